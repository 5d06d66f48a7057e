"""Node lifecycle controller: health from Lease and NodeStatus, Ready=Unknown, taints, zone states.

Cases ported from kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle:

* node_lifecycle_controller_test.go ``TestMonitorNodeHealthUpdateStatus`` (node with no status within /
  past the startup grace period; status older than the monitor grace period; recent status),
  ``TestMonitorNodeHealthUpdateNodeAndPodStatusWithLease`` (a renewed Lease keeps a node healthy),
  ``TestMonitorNodeHealthMarkPodsNotReady``, ``TestApplyNoExecuteTaints`` and
  ``TestSwapUnreachableNotReadyTaints`` (NoExecute taints follow Ready, swapped in place),
  ``TestTaintsNodeByCondition`` (NoSchedule taints from conditions and unschedulable),
  ``TestComputeZoneState``-style checks of ``ComputeZoneState`` and ``ReducedQPSFunc``;
* scheduler/rate_limited_queue_test.go ``TestAddNode``, ``TestDelNode``, ``TestTry``, ``TestTryOrdering``,
  ``TestSwapLimiter``.

End to end: a three-node cluster where ``node_down("n1")`` leads to Ready=Unknown with the
``NodeStatusUnknown`` reason after the 50 s grace period, the unreachable NoExecute taint, the
``NodeNotReady`` events and the node's pods marked not Ready.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.server import parse_timestamp
from kubenotes.controllers.nodelifecycle import (
    NODE_STATUS_NEVER_UPDATED_MESSAGE,
    NODE_STATUS_NEVER_UPDATED_REASON,
    NODE_STATUS_UNKNOWN_MESSAGE,
    NODE_STATUS_UNKNOWN_REASON,
    STATE_FULL_DISRUPTION,
    STATE_NORMAL,
    STATE_PARTIAL_DISRUPTION,
    RateLimitedTimedQueue,
    TokenBucket,
    compute_zone_state,
    taints_for_conditions,
)
from kubenotes.sim.cluster import Cluster

NLC = "node-lifecycle-controller"


def _node(name: str, labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, node: str | None = None, toleration_seconds: int | None = 300) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "nginx:1.27"}]}
    if toleration_seconds is not None:
        spec["tolerations"] = [
            {"key": k, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": toleration_seconds}
            for k in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")]
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _cond(node: dict, ctype: str) -> dict | None:
    return next((c for c in (node.get("status") or {}).get("conditions") or [] if c["type"] == ctype), None)


def _bare_cluster(**kw) -> Cluster:
    """A cluster with only the node lifecycle controller; nodes created later have no kubelet."""
    return Cluster([], seed=0, controllers=[NLC], authorization=False, scheduler=False, **kw)


def _post_status(c: Cluster, name: str, conditions: list[dict]) -> None:
    node = c.client.get("nodes", name)
    node.setdefault("status", {})["conditions"] = conditions
    c.client.update_status("nodes", node)


def _ready(ts: str, status: str = "True") -> dict:
    return {"type": "Ready", "status": status, "lastHeartbeatTime": ts, "lastTransitionTime": ts,
            "reason": "KubeletReady", "message": "kubelet is posting ready status"}


# ---------------------------------------------------------------- TestMonitorNodeHealthUpdateStatus
def test_node_without_status_within_startup_grace_period_is_left_alone():
    c = _bare_cluster()
    c.client.create("nodes", {"metadata": {"name": "node0"}})
    c.run(until=55)
    assert _cond(c.get("nodes", "node0"), "Ready") is None


def test_node_without_status_past_startup_grace_period_gets_never_updated_conditions():
    c = _bare_cluster()
    c.client.create("nodes", {"metadata": {"name": "node0"}})
    c.run(until=70)
    node = c.get("nodes", "node0")
    for ctype in ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure"):
        cond = _cond(node, ctype)
        assert cond["status"] == "Unknown"
        assert cond["reason"] == NODE_STATUS_NEVER_UPDATED_REASON
        assert cond["message"] == NODE_STATUS_NEVER_UPDATED_MESSAGE
        assert cond["lastHeartbeatTime"] == node["metadata"]["creationTimestamp"]
    # startup grace 60 s, checked every 5 s: the first pass after 60 s
    assert 60 < parse_timestamp(_cond(node, "Ready")["lastTransitionTime"]) <= 66


def test_status_older_than_grace_period_becomes_unknown():
    c = _bare_cluster()
    c.client.create("nodes", {"metadata": {"name": "node0"}})
    _post_status(c, "node0", [_ready(c.server.timestamp())])
    c.run(until=45)
    assert _cond(c.get("nodes", "node0"), "Ready")["status"] == "True"
    c.run(until=61)
    node = c.get("nodes", "node0")
    ready = _cond(node, "Ready")
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "Unknown", NODE_STATUS_UNKNOWN_REASON, NODE_STATUS_UNKNOWN_MESSAGE)
    # first seen by the pass at 5 s (probe timestamp = now), grace 50 s, passes every 5 s
    assert parse_timestamp(ready["lastTransitionTime"]) == 60
    # conditions the kubelet never posted are added as never updated
    assert _cond(node, "MemoryPressure")["reason"] == NODE_STATUS_NEVER_UPDATED_REASON


def test_custom_grace_period_option():
    c = _bare_cluster(options={"node-monitor-grace-period": 20})
    c.client.create("nodes", {"metadata": {"name": "node0"}})
    _post_status(c, "node0", [_ready(c.server.timestamp())])
    c.run(until=29)
    assert _cond(c.get("nodes", "node0"), "Ready")["status"] == "True"
    c.run(until=31)
    assert _cond(c.get("nodes", "node0"), "Ready")["status"] == "Unknown"


# ---------------------------------------------------------------- TestMonitorNodeHealthUpdateNodeAndPodStatusWithLease
def test_renewed_lease_keeps_node_ready_without_status_updates():
    c = _bare_cluster()
    c.client.create("nodes", {"metadata": {"name": "node0"}})
    _post_status(c, "node0", [_ready(c.server.timestamp())])

    def renew():
        while True:
            lease = c.server.get("leases", "kube-node-lease", "node0")
            body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": "node0", "namespace": "kube-node-lease"},
                    "spec": {"holderIdentity": "node0", "leaseDurationSeconds": 40,
                             "renewTime": f"{c.server.timestamp()[:-1]}.{int(c.now * 1000) % 1000:03d}000Z"}}
            if lease is None:
                c.client.create("leases", body, "kube-node-lease")
            else:
                body["metadata"]["resourceVersion"] = lease["metadata"]["resourceVersion"]
                c.client.update("leases", body, "kube-node-lease")
            yield c.env.timeout(10)

    c.env.process(renew())
    c.run(until=200)
    assert _cond(c.get("nodes", "node0"), "Ready")["status"] == "True"


# ---------------------------------------------------------------- end to end: node_down
@pytest.fixture(scope="module")
def down_cluster():
    objs = [_node("n1"), _node("n2"), _node("n3"), _pod("a", "n1"), _pod("b", "n2")]
    c = Cluster(objs, seed=0, controllers=[NLC, "node-ipam-controller"], authorization=False, kubelet="stand-in")
    c.run(until=20)
    c.node_down("n1")
    c.run(until=120)
    return c


def test_node_down_becomes_unknown_after_grace_period(down_cluster):
    c = down_cluster
    ready = _cond(c.get("nodes", "n1"), "Ready")
    assert (ready["status"], ready["reason"]) == ("Unknown", NODE_STATUS_UNKNOWN_REASON)
    # last lease renewal at 10 s, seen by a pass at 10 or 15 s; grace period 50 s, passes every 5 s
    assert 60 < parse_timestamp(ready["lastTransitionTime"]) <= 70
    assert _cond(c.get("nodes", "n2"), "Ready")["status"] == "True"


def test_node_down_gets_unreachable_taints(down_cluster):
    taints = down_cluster.get("nodes", "n1")["spec"]["taints"]
    keys = {(t["key"], t["effect"]) for t in taints}
    assert ("node.kubernetes.io/unreachable", "NoExecute") in keys
    assert ("node.kubernetes.io/unreachable", "NoSchedule") in keys
    assert all("timeAdded" in t for t in taints)
    assert not down_cluster.get("nodes", "n2")["spec"].get("taints")


def test_node_down_marks_its_pods_not_ready_and_records_events(down_cluster):
    c = down_cluster
    pod_ready = _cond(c.get("pods", "a", "default"), "Ready")
    assert pod_ready["status"] == "False"
    assert _cond(c.get("pods", "b", "default"), "Ready")["status"] == "True"
    events = {(e["involvedObject"]["kind"], e["involvedObject"]["name"], e["reason"], e["message"], e["type"])
              for e in c.list("events")}
    assert ("Node", "n1", "NodeNotReady", "Node n1 status is now: NodeNotReady", "Normal") in events
    assert ("Pod", "a", "NodeNotReady", "Node is not ready", "Warning") in events
    assert ("Node", "n2", "RegisteredNode", "Node n2 event: Registered Node n2 in Controller", "Normal") in events
    assert all(e["source"]["component"] == "node-controller" for e in c.list("events"))


def test_node_back_up_loses_its_taints():
    objs = [_node("n1"), _node("n2")]
    c = Cluster(objs, seed=0, controllers=[NLC], authorization=False, kubelet="stand-in")
    c.run(until=5)
    c.node_down("n1")
    c.run(until=100)
    assert c.get("nodes", "n1")["spec"].get("taints")
    c.node_up("n1")
    c.run(until=130)
    assert _cond(c.get("nodes", "n1"), "Ready")["status"] == "True"
    assert not c.get("nodes", "n1")["spec"].get("taints")


# ------------------------------------------------ TestApplyNoExecuteTaints / TestSwapUnreachableNotReadyTaints
def test_not_ready_then_unknown_swaps_not_ready_taint_for_unreachable():
    c = _bare_cluster()
    c.client.create("nodes", {"metadata": {"name": "node0"}})
    c.client.create("nodes", {"metadata": {"name": "node1"}})
    ts = c.server.timestamp()
    _post_status(c, "node0", [_ready(ts, "False")])
    _post_status(c, "node1", [_ready(ts)])

    def heartbeat():  # node1 stays healthy so the zone is not fully disrupted
        while True:
            yield c.env.timeout(10)
            _post_status(c, "node1", [_ready(c.server.timestamp())])
            if c.now < 30:
                _post_status(c, "node0", [_ready(c.server.timestamp(), "False")])

    c.env.process(heartbeat())
    c.run(until=25)
    keys = {(t["key"], t["effect"]) for t in c.get("nodes", "node0")["spec"]["taints"]}
    assert keys == {("node.kubernetes.io/not-ready", "NoExecute"), ("node.kubernetes.io/not-ready", "NoSchedule")}
    c.run(until=110)  # node0 stops posting at 30 s: Unknown after 50 s more
    keys = {(t["key"], t["effect"]) for t in c.get("nodes", "node0")["spec"]["taints"]}
    assert keys == {("node.kubernetes.io/unreachable", "NoExecute"), ("node.kubernetes.io/unreachable", "NoSchedule")}


def test_all_nodes_down_is_full_disruption_and_stops_tainting():
    c = _bare_cluster()
    for n in ("node0", "node1"):
        c.client.create("nodes", {"metadata": {"name": n}})
        _post_status(c, n, [_ready(c.server.timestamp(), "False")])
    c.run(until=30)
    ctl = c.controllers[NLC]
    assert ctl.zone_states == {"": STATE_FULL_DISRUPTION}
    for n in ("node0", "node1"):
        assert not [t for t in c.get("nodes", n)["spec"].get("taints") or [] if t["effect"] == "NoExecute"]


# ---------------------------------------------------------------- TestTaintsNodeByCondition
@pytest.mark.parametrize("conditions, unschedulable, expected", [
    ([{"type": "Ready", "status": "True"}], False, []),
    ([{"type": "Ready", "status": "True"}, {"type": "MemoryPressure", "status": "True"}], False,
     ["node.kubernetes.io/memory-pressure"]),
    ([{"type": "Ready", "status": "True"}, {"type": "DiskPressure", "status": "True"},
      {"type": "PIDPressure", "status": "True"}], False,
     ["node.kubernetes.io/disk-pressure", "node.kubernetes.io/pid-pressure"]),
    ([{"type": "Ready", "status": "True"}, {"type": "NetworkUnavailable", "status": "True"}], False,
     ["node.kubernetes.io/network-unavailable"]),
    ([{"type": "Ready", "status": "False"}], False, ["node.kubernetes.io/not-ready"]),
    ([{"type": "Ready", "status": "True"}], True, ["node.kubernetes.io/unschedulable"]),
])
def test_taints_for_conditions(conditions, unschedulable, expected):
    node = {"spec": {"unschedulable": unschedulable}, "status": {"conditions": conditions}}
    assert [t["key"] for t in taints_for_conditions(node)] == expected
    assert all(t["effect"] == "NoSchedule" for t in taints_for_conditions(node))


def test_no_schedule_taints_follow_conditions_on_the_node():
    c = _bare_cluster()
    c.client.create("nodes", {"metadata": {"name": "node0"}})
    ts = c.server.timestamp()
    _post_status(c, "node0", [_ready(ts), {"type": "MemoryPressure", "status": "True", "lastHeartbeatTime": ts,
                                           "lastTransitionTime": ts}])
    c.run(until=2)
    assert [(t["key"], t["effect"]) for t in c.get("nodes", "node0")["spec"]["taints"]] == [
        ("node.kubernetes.io/memory-pressure", "NoSchedule")]
    _post_status(c, "node0", [_ready(c.server.timestamp())])
    c.client.patch("nodes", "node0", {"spec": {"unschedulable": True}})
    c.run(until=4)
    assert [(t["key"], t["effect"]) for t in c.get("nodes", "node0")["spec"]["taints"]] == [
        ("node.kubernetes.io/unschedulable", "NoSchedule")]


def test_beta_os_label_is_reconciled_from_ga_label():
    c = _bare_cluster()
    c.client.create("nodes", {"metadata": {"name": "node0", "labels": {"kubernetes.io/os": "linux"}}})
    c.run(until=2)
    assert c.get("nodes", "node0")["metadata"]["labels"]["beta.kubernetes.io/os"] == "linux"


# ---------------------------------------------------------------- ComputeZoneState, ReducedQPSFunc
@pytest.mark.parametrize("statuses, expected", [
    (["True", "True"], (0, STATE_NORMAL)),
    (["True", "False"], (1, STATE_NORMAL)),
    (["False", "Unknown"], (2, STATE_FULL_DISRUPTION)),
    ([None], (1, STATE_FULL_DISRUPTION)),
    (["True", "False", "False", "False"], (3, STATE_PARTIAL_DISRUPTION)),  # 0.75 >= 0.55 and > 2
    (["True", "True", "False", "False", "False"], (3, STATE_PARTIAL_DISRUPTION)),  # 0.6
    (["True", "True", "True", "False", "False", "False"], (3, STATE_NORMAL)),  # 0.5 < 0.55
    (["True", "False", "False"], (2, STATE_NORMAL)),  # not more than 2 unhealthy
])
def test_compute_zone_state(statuses, expected):
    assert compute_zone_state(statuses) == expected


def test_reduced_qps_is_zero_for_small_zones_and_secondary_rate_for_large():
    c = _bare_cluster()
    ctl = c.controllers[NLC]
    assert ctl.reduced_qps(50) == 0.0
    assert ctl.reduced_qps(51) == 0.01
    assert ctl.healthy_qps(3) == 0.1


# ---------------------------------------------------------------- rate_limited_queue_test.go
class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_queue_add_is_unique_and_remove_forgets():
    q = RateLimitedTimedQueue(1000.0, _Clock())
    assert q.add("first") and q.add("second") and q.add("third")
    assert not q.add("first")
    assert q.remove("second") and len(q) == 2
    assert q.add("second")


def test_try_processes_in_order_and_processed_values_stay_seen():
    clock = _Clock()
    q = RateLimitedTimedQueue(1000.0, clock)
    for v in ("first", "second", "third"):
        q.add(v)
        clock.t += 0.001
    seen = []
    q.try_(lambda tv: (seen.append(tv.value) or True, 0.0))
    assert seen == ["first"]  # burst 1: the second attempt finds no token
    clock.t += 1.0
    q.try_(lambda tv: (seen.append(tv.value) or True, 0.0))
    clock.t += 1.0
    q.try_(lambda tv: (seen.append(tv.value) or True, 0.0))
    assert seen == ["first", "second", "third"]
    assert not q.add("first")  # processed once until removed


def test_try_retries_a_failed_value_later():
    clock = _Clock()
    q = RateLimitedTimedQueue(1000.0, clock)
    q.add("a")
    calls = []
    q.try_(lambda tv: (calls.append(clock.t) and False, 5.0))
    assert len(q) == 1 and calls == [0.0]
    clock.t = 1.0
    q.try_(lambda tv: (calls.append(clock.t) or True, 0.0))
    assert calls == [0.0]  # not due yet
    clock.t = 6.0
    q.try_(lambda tv: (calls.append(clock.t) or True, 0.0))
    assert calls == [0.0, 6.0] and len(q) == 0


def test_token_bucket_rate_is_one_node_per_ten_seconds_by_default():
    clock = _Clock()
    b = TokenBucket(0.1, 1, clock)
    accepted = []
    for step in range(0, 300):
        clock.t = step * 0.1
        if b.try_accept():
            accepted.append(round(clock.t, 1))
    assert [round(a) for a in accepted] == [0, 10, 20]


def test_swap_limiter_to_zero_stops_processing():
    clock = _Clock()
    q = RateLimitedTimedQueue(0.1, clock)
    q.swap_limiter(0.0)
    q.add("a")
    q.try_(lambda tv: (True, 0.0))
    assert len(q) == 1
    q.swap_limiter(0.1)  # swapped in drained, as the old limiter had no token
    q.try_(lambda tv: (True, 0.0))
    assert len(q) == 1
    clock.t = 10.0
    q.try_(lambda tv: (True, 0.0))
    assert len(q) == 0


def test_node_failure_run_is_deterministic():
    def run() -> list[dict]:
        objs = [_node("n1"), _node("n2"), _pod("a", "n1", 30), _pod("b", "n2", 30)]
        c = Cluster(objs, seed=7, controllers=[NLC, "taint-eviction-controller", "node-ipam-controller"],
                    authorization=False, kubelet="stand-in")
        c.run(until=10)
        c.node_down("n1")
        c.run(until=200)
        return [e.to_dict() for e in c.audit_log]

    first = run()
    assert any(e["component"] == "taint-eviction-controller" and e["verb"] == "delete" for e in first)
    assert first == run()


# ------------------------------------------------ kubernetes#120816 (CHANGELOG-1.34)
def test_unreachable_no_execute_taint_comes_in_the_pass_that_marks_unknown():
    """v1.34's monitorNodeHealth hands processTaintBaseEviction the Ready condition it just wrote
    (kubernetes/kubernetes#120816, fixing #120815's extra 5 s): the NoExecute taint's timeAdded is the
    Unknown transition time plus at most the 100 ms NodeEvictionPeriod, not one monitor period later."""
    objs = [_node("n1"), _node("n2")]
    c = Cluster(objs, seed=0, controllers=[NLC], authorization=False, kubelet="stand-in")
    c.run(until=20)
    c.node_down("n1")
    c.run(until=100)
    node = c.get("nodes", "n1")
    unknown_at = parse_timestamp(_cond(node, "Ready")["lastTransitionTime"])
    added = {(t["key"], t["effect"]): parse_timestamp(t["timeAdded"]) for t in node["spec"]["taints"]}
    no_execute = added[("node.kubernetes.io/unreachable", "NoExecute")]
    assert unknown_at <= no_execute <= unknown_at + 0.1 + 1e-9
    # the monitor period is 5 s: the pre-v1.34 code tainted at unknown_at + 5
    assert no_execute - unknown_at < 5
