"""Tests for ``python -m kubenotes schedule`` (kubenotes.scheduler.cli)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
import yaml

from kubenotes.cli import main

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}, capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}, capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n3}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}, capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: busy}
spec: {nodeName: n1, containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: 1500m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: small}
spec: {containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 100m, memory: 64Mi}}}]}
"""

MESSAGE = ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}. "
           "no new claims to deallocate, preemption: 0/3 nodes are available: "
           "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.")

KEYS = ["namespace", "name", "nodeName", "qosClass", "priority", "filter", "score", "finalScore", "totalScore",
        "message", "nominatedNodeName", "victims"]


@pytest.fixture
def cluster(tmp_path):
    f = tmp_path / "cluster.yaml"
    f.write_text(CLUSTER)
    return str(f)


def run(capsys, *argv):
    rc = main(["schedule", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_json_output(capsys, cluster):
    rc, out, err = run(capsys, cluster, "-o", "json")
    assert rc == 1 and err == ""
    doc = json.loads(out)
    assert list(doc) == ["pods"]
    web, small = doc["pods"]
    assert list(web) == KEYS and list(small) == KEYS
    assert web["nodeName"] is None and web["message"] == MESSAGE
    assert web["nominatedNodeName"] is None and web["victims"] == []
    assert web["qosClass"] == "Burstable" and web["priority"] == 0
    assert web["filter"]["n1"]["NodeResourcesFit"] == "Insufficient cpu"
    assert web["score"] == {} and web["finalScore"] == {} and web["totalScore"] == {}
    # exactly one feasible node: scoring is skipped
    assert small["nodeName"] == "n1" and small["qosClass"] == "Guaranteed" and small["message"] is None
    assert small["score"] == {} and small["totalScore"] == {}
    # NodeAffinity, NodePorts... returned Skip at PreFilter for this pod, so their Filter did not run
    assert small["filter"]["n1"] == {"NodeUnschedulable": "passed", "NodeName": "passed", "TaintToleration": "passed",
                                     "NodeResourcesFit": "passed"}


def test_table_output_is_default(capsys, cluster):
    rc, out, _ = run(capsys, cluster)
    lines = out.splitlines()
    assert lines[0].split() == ["NAMESPACE", "NAME", "NODE", "PRIORITY", "QOS", "MESSAGE"]
    assert lines[1].split()[:5] == ["default", "web", "<none>", "0", "Burstable"]
    assert lines[1].endswith(MESSAGE)
    assert lines[2].split() == ["default", "small", "n1", "0", "Guaranteed", "<none>"]


def test_kss_output(capsys, cluster):
    rc, out, _ = run(capsys, cluster, "-o", "kss")
    docs = list(yaml.safe_load_all(out))
    assert [d["metadata"]["name"] for d in docs] == ["web", "small"]
    a = "kube-scheduler-simulator.sigs.k8s.io/"
    web, small = (d["metadata"]["annotations"] for d in docs)
    for key in ("filter-result", "score-result", "finalscore-result", "prefilter-result-status", "prefilter-result",
                "postfilter-result", "prescore-result", "reserve-result", "permit-result", "permit-result-timeout",
                "prebind-result", "bind-result", "selected-node", "result-history"):
        assert a + key in web and isinstance(web[a + key], str)
    assert json.loads(web[a + "filter-result"])["n1"]["NodeResourcesFit"] == "Insufficient cpu"
    assert web[a + "selected-node"] == ""
    assert json.loads(web[a + "postfilter-result"]) == {"n1": {}, "n2": {}, "n3": {}}
    assert small[a + "selected-node"] == "n1" and json.loads(small[a + "bind-result"]) == {"DefaultBinder": "success"}
    assert docs[1]["spec"]["nodeName"] == "n1"
    assert docs[0]["status"]["conditions"][-1]["reason"] == "Unschedulable"
    assert len(json.loads(web[a + "result-history"])) == 1


def test_kss_scores_are_strings(capsys, tmp_path):
    f = tmp_path / "two.yaml"
    f.write_text("""\
apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: "1", memory: 1Gi}}}]}
""")
    rc, out, _ = run(capsys, str(f), "-o", "kss")
    ann = next(yaml.safe_load_all(out))["metadata"]["annotations"]
    scores = json.loads(ann["kube-scheduler-simulator.sigs.k8s.io/score-result"])
    final = json.loads(ann["kube-scheduler-simulator.sigs.k8s.io/finalscore-result"])
    assert set(scores) == {"a", "b"} and all(isinstance(v, str) for v in scores["a"].values())
    assert final["a"]["TaintToleration"] == "300"
    rc, out, _ = run(capsys, str(f), "-o", "json")
    p = json.loads(out)["pods"][0]
    assert rc == 0 and p["nodeName"] == "a"
    assert p["totalScore"]["a"] == sum(p["finalScore"]["a"].values())
    assert p["score"]["a"]["TaintToleration"] == 0  # no intolerable taints, reversed by NormalizeScore to 100, x3


def test_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(CLUSTER))
    rc, out, _ = run(capsys, "-", "-o", "json")
    assert [p["name"] for p in json.loads(out)["pods"]] == ["web", "small"]


def test_invalid_config_file(capsys, cluster, tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 101\n")
    rc, out, err = run(capsys, cluster, "--config", str(cfg))
    assert rc == 2 and out == ""
    assert err.strip() == "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"
    assert "Traceback" not in err


def test_unknown_plugin_in_config(capsys, cluster, tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("""\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    filter:
      enabled: [{name: NoSuchPlugin}]
""")
    rc, _, err = run(capsys, cluster, "--config", str(cfg))
    assert rc == 2
    assert err.strip() == ('initializing profiles: creating profile for scheduler name default-scheduler: '
                           'FilterPlugin "NoSuchPlugin" does not exist')


def test_unknown_api_version(capsys, cluster, tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n")
    rc, _, err = run(capsys, cluster, "--config", str(cfg))
    assert rc == 2 and "kubescheduler.config.k8s.io/v1beta3" in err and "Traceback" not in err


def test_config_in_manifest(capsys, tmp_path):
    f = tmp_path / "all.yaml"
    f.write_text(CLUSTER + """---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    postFilter:
      disabled: [{name: "*"}]
""")
    rc, out, _ = run(capsys, str(f), "-o", "json")
    web = json.loads(out)["pods"][0]
    assert web["message"] == "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}."


def test_manifest_error(capsys, tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("""\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: lots}}}]}
""")
    rc, out, err = run(capsys, str(f))
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "lots" in err


def test_bound_pod_on_unknown_node_warns(capsys, tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(CLUSTER + """---
apiVersion: v1
kind: Pod
metadata: {name: orphan}
spec: {nodeName: gone, containers: [{name: c, image: "nginx:1.27"}]}
""")
    rc, out, err = run(capsys, str(f), "-o", "json")
    assert "orphan" in err and "gone" in err and err.startswith("warning: ")
    assert "orphan" not in out


def test_other_scheduler_names_are_not_scheduled(capsys, tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text(CLUSTER + """---
apiVersion: v1
kind: Pod
metadata: {name: custom}
spec: {schedulerName: my-scheduler, containers: [{name: c, image: "nginx:1.27"}]}
""")
    rc, out, _ = run(capsys, str(f), "-o", "json")
    assert "custom" not in [p["name"] for p in json.loads(out)["pods"]]


def test_preemption_appears_twice(capsys, tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("""\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: low}
spec: {nodeName: n1, containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: 1500m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: important}
spec: {priorityClassName: high, containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: "1"}}}]}
""")
    rc, out, _ = run(capsys, str(f), "-o", "json")
    first, second = json.loads(out)["pods"]
    assert first["name"] == second["name"] == "important"
    assert (first["nodeName"], first["nominatedNodeName"], first["victims"]) == (None, "n1", ["default/low"])
    assert first["priority"] == 1000 and first["message"] == "0/1 nodes are available: 1 Insufficient cpu."
    assert (second["nodeName"], second["nominatedNodeName"], second["victims"]) == ("n1", None, [])
    assert rc == 0


def test_seed_breaks_ties(capsys, tmp_path):
    nodes = "".join(f"""---
apiVersion: v1
kind: Node
metadata: {{name: n{i}}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
""" for i in range(4))
    f = tmp_path / "c.yaml"
    f.write_text(nodes + """---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: "nginx:1.27"}]}
""")
    picks = set()
    for seed in range(8):
        rc, out, _ = run(capsys, str(f), "-o", "json", "--seed", str(seed))
        picks.add(json.loads(out)["pods"][0]["nodeName"])
    assert len(picks) > 1


def test_module_entry_point(cluster):
    r = subprocess.run([sys.executable, "-m", "kubenotes", "schedule", cluster, "-o", "json"], capture_output=True, text=True)
    assert r.returncode == 1 and json.loads(r.stdout)["pods"][0]["message"] == MESSAGE
