"""``python -m kubenotes simulate``: the user-facing contract (events, yaml, table, one-line errors)."""

from __future__ import annotations

import json

import pytest

from kubenotes.cli import main

NODES = """apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""
DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        resources: {requests: {cpu: 100m, memory: 64Mi}}
"""
SCENARIO = """apiVersion: kubenotes.io/v1
kind: Scenario
metadata: {name: rollout}
spec:
  steps:
  - at: 30
    setImage: {kind: Deployment, namespace: default, name: web, container: nginx, image: "nginx:1.28"}
"""


@pytest.fixture
def manifests(tmp_path):
    p = tmp_path / "cluster.yaml"
    p.write_text(NODES + "---\n" + DEPLOY + "---\n" + SCENARIO)
    return str(p)


def test_events_are_json_lines_in_time_order_with_scheduler_binds(capsys, manifests):
    assert main(["simulate", manifests, "--until", "120"]) == 0
    lines = capsys.readouterr().out.splitlines()
    events = [json.loads(x) for x in lines]
    assert set(events[0]) == {"time", "component", "verb", "kind", "namespace", "name", "resourceVersion", "detail"}
    times = [e["time"] for e in events]
    assert times == sorted(times)
    binds = [e for e in events if e["verb"] == "bind"]
    assert binds and all(e["component"] == "default-scheduler" and e["kind"] == "Pod" for e in binds)
    reasons = {e["detail"].split(":")[0] for e in events if e["kind"] == "Event"}
    assert {"ScalingReplicaSet", "SuccessfulCreate", "Scheduled"} <= reasons
    # the rollout at t=30 made a second ReplicaSet
    rs_creates = [e for e in events if e["kind"] == "ReplicaSet" and e["verb"] == "create"]
    assert len(rs_creates) == 2 and rs_creates[1]["time"] >= 30


def test_same_input_and_seed_give_the_same_event_log_byte_for_byte(capsys, manifests):
    main(["simulate", manifests, "--until", "90", "--seed", "7"])
    a = capsys.readouterr().out
    main(["simulate", manifests, "--until", "90", "--seed", "7"])
    b = capsys.readouterr().out
    assert a == b and len(a) > 1000


def test_yaml_is_one_list_with_status(capsys, manifests):
    import yaml

    assert main(["simulate", manifests, "--until", "60", "-o", "yaml"]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    assert doc["kind"] == "List"
    kinds = {i["kind"] for i in doc["items"]}
    assert {"Pod", "Deployment", "ReplicaSet", "Node", "Event"} <= kinds
    d = next(i for i in doc["items"] if i["kind"] == "Deployment")
    assert d["status"]["availableReplicas"] == 3


def test_table_has_kubectl_columns(capsys, manifests):
    assert main(["simulate", manifests, "--until", "60", "-o", "table"]) == 0
    out = capsys.readouterr().out
    assert "NAME" in out and "READY" in out and "UP-TO-DATE" in out and "AVAILABLE" in out


def test_bad_scenario_is_one_line_and_exit_2(capsys, tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text(NODES + "---\n" + SCENARIO.replace("container: nginx, ", ""))
    assert main(["simulate", str(p)]) == 2
    err = capsys.readouterr().err
    assert err == f"{p} doc 3 Scenario rollout: spec.steps[0].setImage.container: Required value\n"


def test_an_object_the_api_server_rejects_is_one_line_naming_file_and_object(capsys, tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text(NODES + "---\n" + DEPLOY.replace("name: web, namespace", "name: Web_App, namespace"))
    assert main(["simulate", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{p} doc 3 Deployment default/Web_App: ")
    assert 'metadata.name: Invalid value: "Web_App"' in err and err.count("\n") == 1


def test_validate_checks_scenarios_too(capsys, tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text(SCENARIO)
    assert main(["validate", str(p)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"{p} doc 1 Scenario rollout: 1 step(s) until 30 s: setImage"
    p.write_text(SCENARIO.replace("at: 30", "at: -5"))
    assert main(["validate", str(p)]) == 2
    assert capsys.readouterr().err == (f"{p} doc 1 Scenario rollout: spec.steps[0].at: Invalid value: -5: "
                                       "must be greater than or equal to 0\n")


NODE_SIDE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers:
  - name: nginx
    image: nginx:1.27
    livenessProbe: {httpGet: {path: /healthz, port: 80}, periodSeconds: 5, failureThreshold: 2}
    resources: {limits: {memory: 128Mi}}
---
apiVersion: kubenotes.io/v1
kind: Scenario
metadata: {name: node-side}
spec:
  steps:
  - {at: 20, probe: {name: web, container: nginx, probe: liveness, result: failure, output: "HTTP probe failed with statuscode: 500"}}
  - {at: 32, probe: {name: web, container: nginx, probe: liveness, result: success}}
  - {at: 60, containerExit: {name: web, container: nginx, exitCode: 3}}
  - {at: 90, usage: {name: web, container: nginx, memoryBytes: 200000000}}
  - at: 100
    staticPod:
      node: n1
      object: {apiVersion: v1, kind: Pod, metadata: {name: etcd, namespace: kube-system},
               spec: {containers: [{name: etcd, image: "registry.k8s.io/etcd:3.5.21-0"}]}}
"""


def test_node_side_scenario_actions_with_the_kubelet_model(tmp_path, capsys):
    """containerExit, probe, usage and staticPod act through the kubelet model; -o events adds cri/<node> lines."""
    f = tmp_path / "node.yaml"
    f.write_text(NODE_SIDE)
    assert main(["simulate", str(f), "--kubelet", "model", "--until", "130"]) == 0
    events = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert [e["time"] for e in events] == sorted(e["time"] for e in events)
    kubelet = [e["detail"] for e in events if e["component"] == "kubelet/n1" and e["kind"] == "Event" and e["detail"]]
    assert "Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 500" in kubelet
    assert "Killing: Container nginx failed liveness probe, will be restarted" in kubelet
    cri = [(e["verb"], e["kind"]) for e in events if e["component"] == "cri/n1"]
    assert ("SandboxStarted", "sandbox") in cri and ("ContainerStarted", "container") in cri
    assert ("OOMKilled", "container") in cri  # usage above the 128Mi limit at t=90
    assert any(e["component"] == "cri/n1" and e["verb"] == "TaskExit" and e["time"] == 60.0 for e in events)
    assert any(e["component"] == "kubelet/n1" and e["kind"] == "Pod" and e["name"] == "etcd-n1"
               and e["verb"] == "create" for e in events)  # the static pod's mirror pod
    scenario = [(e["time"], e["verb"]) for e in events if e["component"] == "scenario"]
    assert scenario == [(20.0, "probe"), (32.0, "probe"), (60.0, "containerExit"), (90.0, "usage"),
                        (100.0, "staticPod")]


def test_node_side_actions_need_the_kubelet_model(tmp_path, capsys):
    f = tmp_path / "node.yaml"
    f.write_text(NODE_SIDE)
    assert main(["simulate", str(f), "--until", "70", "--kubelet", "stand-in"]) == 0
    failed = [json.loads(ln) for ln in capsys.readouterr().out.splitlines() if '"verb": "failed"' in ln]
    assert failed and all("kubelet model" in e["detail"] for e in failed)


# ------------------------------------------------ issue #32: every object of the final state, --kinds
PDB_CM = """---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
data: {mode: fast}
"""


def test_yaml_holds_every_object_not_only_get_all(capsys, tmp_path):
    """Objects outside ``kubectl get all,nodes,events`` (PDBs, ConfigMaps, Leases, RBAC) are printed too,
    after that set, as ``kubectl get <every listable resource> -A -o yaml`` would (kubectl get.go)."""
    import yaml

    p = tmp_path / "c.yaml"
    p.write_text(NODES + "---\n" + DEPLOY + PDB_CM)
    assert main(["simulate", str(p), "--until", "30", "-o", "yaml"]) == 0
    items = yaml.safe_load(capsys.readouterr().out)["items"]
    kinds = [i["kind"] for i in items]
    assert {"PodDisruptionBudget", "ConfigMap", "Lease", "Namespace", "ServiceAccount", "ClusterRole"} <= set(kinds)
    assert "ComponentStatus" not in kinds
    assert kinds.index("Event") < kinds.index("ConfigMap")  # the get all,nodes,events set comes first
    pdb = next(i for i in items if i["kind"] == "PodDisruptionBudget")
    assert pdb["status"]["currentHealthy"] == 3 and pdb["status"]["disruptionsAllowed"] == 1
    leases = {i["metadata"]["name"] for i in items if i["kind"] == "Lease"}
    assert {"n1", "n2"} <= leases


def test_kinds_narrows_yaml_table_and_events_in_the_given_order(capsys, tmp_path):
    import yaml

    p = tmp_path / "c.yaml"
    p.write_text(NODES + "---\n" + DEPLOY + PDB_CM)
    assert main(["simulate", str(p), "--until", "30", "-o", "yaml", "--kinds", "pdb,cm"]) == 0
    items = yaml.safe_load(capsys.readouterr().out)["items"]
    assert [i["kind"] for i in items][0] == "PodDisruptionBudget"
    assert {i["kind"] for i in items} == {"PodDisruptionBudget", "ConfigMap"}
    assert main(["simulate", str(p), "--until", "30", "-o", "table", "--kinds", "leases.coordination.k8s.io,all"]) == 0
    heads = [x for x in capsys.readouterr().out.splitlines() if x.startswith("# ")]
    assert heads == ["# leases.coordination.k8s.io", "# pods", "# services", "# deployments.apps",
                     "# replicasets.apps"]
    assert main(["simulate", str(p), "--until", "30", "--kinds", "Deployment"]) == 0
    events = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert events and {e["kind"] for e in events} == {"Deployment"}


@pytest.mark.parametrize("kinds, output, err", [
    ("bogus", "yaml", 'kubenotes simulate: --kinds bogus: the server doesn\'t have a resource type "bogus"\n'),
    ("tokenreviews", "table", 'kubenotes simulate: --kinds tokenreviews: resource type "tokenreviews" cannot be '
                              'listed\n'),
    ("pods", "cri", "kubenotes simulate: --kinds applies to -o yaml, table, wide and events, not cri\n"),
])
def test_bad_kinds_is_one_line_and_exit_2(capsys, manifests, kinds, output, err):
    assert main(["simulate", manifests, "--until", "1", "-o", output, "--kinds", kinds]) == 2
    assert capsys.readouterr().err == err
