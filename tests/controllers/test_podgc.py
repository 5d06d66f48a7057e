"""The pod garbage collector: orphaned, terminated-above-threshold, unscheduled and out-of-service pods.

Cases after kubernetes/kubernetes@v1.34.0 pkg/controller/podgc/gc_controller_test.go (TestGCTerminated's
ordering by eviction then age, TestGCOrphaned's quarantine and node re-appearance, TestGCUnscheduledTerminating,
TestGCTerminating's out-of-service taint), run through the API server with RBAC on, so the controller's role
(``system:controller:pod-garbage-collector``) is exercised too.
"""

from __future__ import annotations

import pytest

from kubenotes.controllers import CONTROLLER_POLICIES, CONTROLLERS
from kubenotes.controllers.podgc import (
    CONTROLLER_POLICY,
    DELETION_BY_POD_GC_REASON,
    NAME,
    ORPHANED_MESSAGE,
    QUARANTINE_SECONDS,
    TAINT_NODE_OUT_OF_SERVICE,
    PodGCController,
)
from kubenotes.sim.cluster import Cluster


def _cluster(objs: list[dict] | None = None, options: dict | None = None) -> Cluster:
    c = Cluster(objs or [], seed=0, controllers=[], extra_controllers={NAME: PodGCController}, options=options,
                scheduler=False)
    c.run(until=0.5)
    return c


def _pod(name: str, node: str = "", **meta) -> dict:
    spec = {"containers": [{"name": "c", "image": "nginx"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **meta},
            "spec": spec}


def _node(name: str, ready: bool = True, taints: list | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "spec": {"taints": taints or []},
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
                       "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _gc(c: Cluster) -> PodGCController:
    return c.controllers[NAME]


def test_registered_with_upstreams_name_and_role():
    assert CONTROLLERS["pod-garbage-collector-controller"] is PodGCController
    assert CONTROLLER_POLICIES["pod-garbage-collector-controller"] is CONTROLLER_POLICY
    rules = {(tuple(r["resources"]), tuple(r["verbs"])) for r in CONTROLLER_POLICY.rules}
    assert rules == {(("pods",), ("delete", "list", "watch")), (("nodes",), ("get", "list")),
                     (("pods/status",), ("patch",))}


def test_an_orphaned_pod_is_failed_and_force_deleted_after_the_quarantine():
    c = _cluster()
    c.client.create("pods", _pod("orphan", node="gone"), "default")
    c.run(until=QUARANTINE_SECONDS - 1)
    assert c.get("pods", "orphan", "default") is not None  # still in quarantine
    c.run(until=QUARANTINE_SECONDS + 21)
    assert c.get("pods", "orphan", "default") is None
    [(t, key, why)] = _gc(c).deleted
    assert key == "default/orphan" and why == "orphaned" and QUARANTINE_SECONDS <= t <= QUARANTINE_SECONDS + 20
    patches = [e for e in c.audit_log if e.component == NAME and e.verb == "patch" and e.kind == "Pod"]
    deletes = [e for e in c.audit_log if e.component == NAME and e.verb == "delete" and e.kind == "Pod"]
    assert len(patches) == 1 and len(deletes) == 1


def test_the_patch_marks_the_pod_failed_with_the_disruption_target_condition():
    c = _cluster()
    c.client.create("pods", _pod("orphan", node="gone", finalizers=["example.com/hold"]), "default")
    c.run(until=QUARANTINE_SECONDS + 21)
    pod = c.get("pods", "orphan", "default")  # the finalizer keeps it, so the status can be read
    assert pod["metadata"].get("deletionTimestamp")
    assert pod["status"]["phase"] == "Failed"
    [cond] = [x for x in pod["status"]["conditions"] if x["type"] == "DisruptionTarget"]
    assert (cond["status"], cond["reason"], cond["message"]) == ("True", DELETION_BY_POD_GC_REASON, ORPHANED_MESSAGE)


def test_a_node_that_appears_during_the_quarantine_saves_its_pods():
    c = _cluster()
    c.client.create("pods", _pod("early", node="late"), "default")
    c.run(until=QUARANTINE_SECONDS / 2)
    c.client.create("nodes", _node("late"))
    c.run(until=QUARANTINE_SECONDS * 3)
    assert c.get("pods", "early", "default") is not None
    assert _gc(c).deleted == []


def _finish(c: Cluster, name: str, phase: str, reason: str | None = None) -> None:
    pod = c.get("pods", name, "default")
    pod["status"] = {"phase": phase, **({"reason": reason} if reason else {})}
    c.client.update_status("pods", pod, "default")


@pytest.mark.parametrize("threshold, expected", [
    (1, ["default/evicted", "default/a-oldest"]),  # evicted first, then the oldest
    (2, ["default/evicted"]),
    (3, []),
    (0, []),  # 0 turns the collection off
])
def test_terminated_pods_above_the_threshold_go_evicted_first_then_oldest(threshold, expected):
    c = _cluster(options={"terminated-pod-gc-threshold": threshold})
    for i, name in enumerate(("a-oldest", "b-newer", "evicted")):
        c.client.create("pods", _pod(name), "default")
        c.run(until=c.env.now + 1)
    _finish(c, "a-oldest", "Succeeded")
    _finish(c, "b-newer", "Failed")
    _finish(c, "evicted", "Failed", "Evicted")
    c.client.create("pods", _pod("running"), "default")
    c.run(until=c.env.now + 21)
    assert [key for _, key, _ in _gc(c).deleted] == expected
    assert all(why == "terminated" for _, _, why in _gc(c).deleted)
    assert c.get("pods", "running", "default") is not None


def test_an_unscheduled_terminating_pod_is_failed_and_force_deleted():
    c = _cluster()
    c.client.create("pods", _pod("pending", finalizers=["example.com/hold"]), "default")
    c.client.delete("pods", "pending", "default")
    assert c.get("pods", "pending", "default")["metadata"].get("deletionTimestamp")
    c.run(until=c.env.now + 21)
    assert [(k, w) for _, k, w in _gc(c).deleted] == [("default/pending", "unscheduled-terminating")]
    assert c.get("pods", "pending", "default")["status"]["phase"] == "Failed"


@pytest.mark.parametrize("ready, taint, collected", [
    (False, True, True),
    (True, True, False),  # a Ready node: its kubelet will finish the deletion
    (False, False, False),  # not out of service: wait for the kubelet (or the taint)
])
def test_terminating_pods_on_out_of_service_nodes(ready, taint, collected):
    taints = [{"key": TAINT_NODE_OUT_OF_SERVICE, "value": "nodeshutdown", "effect": "NoExecute"}] if taint else []
    c = _cluster()
    c.client.create("nodes", _node("n1", ready=ready, taints=taints))  # created after start: no kubelet confirms
    c.client.create("pods", _pod("p", node="n1"), "default")
    c.client.delete("pods", "p", "default", grace_period_seconds=30)
    assert c.get("pods", "p", "default")["metadata"].get("deletionTimestamp")
    c.run(until=c.env.now + 21)
    assert (c.get("pods", "p", "default") is None) == collected
    assert [w for _, _, w in _gc(c).deleted] == (["terminating-out-of-service"] if collected else [])
