"""The time a write takes: client rate limits and request latency on the virtual clock (kubenotes.sim.costs)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.costs import COMPONENT_RATE_LIMITS, RequestCosts, RequestLatency, parse_request_costs


def _objects(replicas: int, nodes: int = 4) -> list[dict]:
    cap = {"cpu": "64", "memory": "256Gi", "pods": "500"}
    objs: list[dict] = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
                         "status": {"capacity": cap, "allocatable": cap}} for i in range(nodes)]
    objs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
                 "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                          "template": {"metadata": {"labels": {"app": "web"}},
                                       "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                                                "resources": {"requests": {"cpu": "5m"}}}]}}}})
    return objs


def _writes(c: Cluster, component: str, verb: str, kind: str) -> list[float]:
    return [e.time for e in c.audit_log
            if e.component == component and e.verb == verb and e.kind == kind]


def _available(c: Cluster) -> bool:
    d = c.server.get("deployments", "default", "web")
    return (d.get("status") or {}).get("availableReplicas") == d["spec"]["replicas"]


def test_upstream_client_defaults():
    assert COMPONENT_RATE_LIMITS == {"kube-controller-manager": (20.0, 30), "kube-scheduler": (50.0, 100),
                                     "kubelet": (50.0, 100), "kube-proxy": (5.0, 10), "client-go": (5.0, 10)}


def test_a_cluster_built_without_request_costs_is_instant_every_pod_created_in_one_instant():
    c = Cluster(_objects(100), kubelet="stand-in")
    assert c.server.request_costs is None
    c.run(until=10)
    creates = _writes(c, "replicaset-controller", "create", "Pod")
    assert len(creates) == 100 and len(set(creates)) == 1


def test_replicaset_creates_at_burst_then_qps():
    lat = RequestLatency()
    c = Cluster(_objects(100), kubelet="stand-in", request_costs=RequestCosts())
    assert c.run_until(_available, 60, 0.5)
    creates = _writes(c, "replicaset-controller", "create", "Pod")
    assert len(creates) == 100
    write = lat.seconds("create")
    # the burst (30 tokens): only each request's own latency, one after another
    assert creates[1] - creates[0] == pytest.approx(write)
    # then one token every 1/20 s: 70 more creates take 3.5 s
    assert creates[-1] - creates[0] == pytest.approx(70 / 20.0, abs=0.1)
    gaps = [b - a for a, b in zip(creates[40:], creates[41:])]
    assert min(gaps) == pytest.approx(1 / 20.0, abs=write)
    assert c.server.request_costs.throttled_seconds["replicaset-controller"] > 0


def test_raising_the_controller_manager_qps_shortens_the_rollout():
    slow = Cluster(_objects(100), kubelet="stand-in", request_costs=RequestCosts())
    fast = Cluster(_objects(100), kubelet="stand-in",
                   request_costs=RequestCosts(rate_limits={"kube-controller-manager": (200.0, 300)}))
    assert slow.run_until(_available, 60, 0.1) and fast.run_until(_available, 60, 0.1)
    assert fast.now + 2.0 < slow.now


def test_scheduler_binds_at_most_its_qps_after_its_burst():
    costs = RequestCosts(rate_limits={"kube-controller-manager": (1000.0, 1000), "kube-scheduler": (10.0, 20)})
    c = Cluster(_objects(60), kubelet="stand-in", request_costs=costs)
    assert c.run_until(_available, 60, 0.5)
    binds = _writes(c, "default-scheduler", "bind", "Pod")
    assert len(binds) == 60
    assert binds[-1] - binds[0] == pytest.approx(40 / 10.0, abs=0.2)  # 20 in the burst, then 10 a second


def test_a_write_costs_handler_round_trip_and_fsync():
    lat = RequestLatency(handler_seconds=0.01, etcd_round_trip_seconds=0.02, etcd_fsync_seconds=0.03)
    assert lat.seconds("create") == pytest.approx(0.06) and lat.seconds("get") == pytest.approx(0.03)
    c = Cluster(_objects(1), kubelet="stand-in", request_costs=RequestCosts(latency=lat))
    c.run(until=10)
    [rs_create] = _writes(c, "deployment-controller", "create", "ReplicaSet")
    [pod_create] = _writes(c, "replicaset-controller", "create", "Pod")
    assert rs_create == pytest.approx(0.06)  # the Deployment's first reconcile, one write
    # the ReplicaSet's reconcile: a pod create after its own write latency
    assert pod_create - rs_create >= 0.06 - 1e-9


def test_scenario_request_costs_parse_and_bad_input_is_one_line():
    c = parse_request_costs({})
    assert c.latency == RequestLatency() and c.limits_for("kubelet") == (50.0, 100)
    with pytest.raises(ValueError, match=r"^spec.cluster.requestCosts.latency.etcdFsyncSeconds: Invalid value"):
        parse_request_costs({"latency": {"etcdFsyncSeconds": -1}})
    with pytest.raises(ValueError, match=r"clients.kubelet.burst: Invalid value: 0"):
        parse_request_costs({"clients": {"kubelet": {"burst": 0}}})


SCENARIO = """
apiVersion: kubenotes.io/v1
kind: Scenario
metadata: {name: costs}
spec:
  cluster:
    kubelet: stand-in
    requestCosts: %s
  steps: []
"""


def _simulate(tmp_path, capsys, costs: str, *flags: str, costs_line: bool = True) -> tuple[int, str, str]:
    """``simulate`` of 40 pods with ``requestCosts: <costs>`` (without the line when not ``costs_line``)."""
    import yaml

    from kubenotes.cli import main

    (tmp_path / "objs.yaml").write_text(yaml.safe_dump_all(_objects(40)))
    scenario = SCENARIO % costs
    if not costs_line:
        scenario = scenario.replace(f"    requestCosts: {costs}\n", "")
    (tmp_path / "scenario.yaml").write_text(scenario)
    rc = main(["simulate", str(tmp_path), "--until", "20", *flags])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _pod_creates(out: str) -> list[str]:
    return [line for line in out.splitlines() if '"verb": "create", "kind": "Pod"' in line]


def test_simulate_realistic_and_instant(tmp_path, capsys):
    slow = "{clients: {kube-controller-manager: {qps: 5, burst: 10}}}"
    rc, real, _ = _simulate(tmp_path, capsys, slow)
    assert rc == 0
    assert '"time": 6.' in _pod_creates(real)[-1]  # 40 pods, a burst of 10, then 5 a second: 6 s
    rc, instant, _ = _simulate(tmp_path, capsys, slow, "--instant")
    assert rc == 0 and all('"time": 0.0' in line for line in _pod_creates(instant))
    rc, defaults, _ = _simulate(tmp_path, capsys, "{}", "--realistic")
    assert rc == 0 and '"time": 0.5' in _pod_creates(defaults)[-1]  # a burst of 30, then 20 a second
    rc, _, err = _simulate(tmp_path, capsys, "{clients: {kubectl: {qps: 1}}}")
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert "spec.cluster.requestCosts.clients.kubectl" in err


def test_simulate_is_realistic_by_default_and_a_file_can_say_instant(tmp_path, capsys):
    # no requestCosts: upstream's defaults (a burst of 30 creates, then 20 a second): 40 pods end at 0.5 s
    rc, default, _ = _simulate(tmp_path, capsys, "{}", costs_line=False)
    assert rc == 0 and '"time": 0.5' in _pod_creates(default)[-1]
    rc, instant, _ = _simulate(tmp_path, capsys, "instant")
    assert rc == 0 and len(_pod_creates(instant)) == 40
    assert all('"time": 0.0' in line for line in _pod_creates(instant))  # the file's instant is honoured
    rc, realistic, _ = _simulate(tmp_path, capsys, "realistic")
    assert rc == 0 and _pod_creates(realistic) == _pod_creates(default)


def test_the_command_line_wins_over_the_files_mode(tmp_path, capsys):
    rc, forced, _ = _simulate(tmp_path, capsys, "instant", "--realistic")
    assert rc == 0 and '"time": 0.5' in _pod_creates(forced)[-1]
    rc, forced, _ = _simulate(tmp_path, capsys, "realistic", "--instant")
    assert rc == 0 and all('"time": 0.0' in line for line in _pod_creates(forced))
    rc, forced, _ = _simulate(tmp_path, capsys, "{}", "--instant", costs_line=False)
    assert rc == 0 and all('"time": 0.0' in line for line in _pod_creates(forced))


@pytest.mark.parametrize("spelling", ["fast", "true", "[instant]", "Instant"])
def test_a_bad_mode_is_one_line_naming_file_document_and_field(tmp_path, capsys, spelling):
    rc, out, err = _simulate(tmp_path, capsys, spelling)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "scenario.yaml" in err and "spec.cluster.requestCosts" in err
    assert '"instant", "realistic"' in err


def test_cluster_options_give_the_files_mode_to_a_chapters_helper():
    from kubenotes.sim.scenario import cluster_options, parse_scenario

    def scenario(cluster: dict):
        return parse_scenario({"apiVersion": "kubenotes.io/v1", "kind": "Scenario", "metadata": {"name": "s"},
                               "spec": {"cluster": cluster, "steps": []}})

    assert cluster_options([scenario({})])["request_costs"] == RequestCosts()
    assert "request_costs" not in cluster_options([scenario({"requestCosts": "instant"})])
    refined = cluster_options([scenario({"requestCosts": {"clients": {"kubelet": {"qps": 5}}}})])["request_costs"]
    assert refined.limits_for("kubelet") == (5.0, 100)
    # a later file's mode wins, as for every spec.cluster field
    assert "request_costs" not in cluster_options([scenario({}), scenario({"requestCosts": "instant"})])


def test_each_data_scenario_that_runs_instant_says_why():
    # a file asks for zero-cost requests only with a one-line reason above the field (README, issue #27)
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "data"
    instant = []
    for path in sorted(data.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "kind: Scenario" not in text or "requestCosts: instant" not in text:
            continue
        lines = text.split("\n")
        field = next(i for i, line in enumerate(lines)
                     if "requestCosts: instant" in line and not line.lstrip().startswith("#"))
        why = [line for line in lines[field - 2:field] if line.lstrip().startswith("# requestCosts: instant: ")]
        assert why and len(why[0].split(": instant: ", 1)[1]) > 10, path
        instant.append(path.name)
    assert "scale.yaml" in instant and "calico.yaml" not in instant  # chapter 03.00's file; 06.00's runs realistic
