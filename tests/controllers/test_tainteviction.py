"""Taint eviction controller: NoExecute taints delete the pods that do not tolerate them.

Cases ported from kubernetes/kubernetes@v1.34.0 pkg/controller/tainteviction:

* taint_eviction_test.go ``TestCreatePod`` (no taint; untolerated taint deletes at once; tolerated
  forever; tolerated for a while), ``TestUpdatePod`` (lengthening a toleration does not postpone the deletion),
  ``TestUpdateNode`` (taint removed before the toleration ran out: deletion cancelled),
  ``TestUpdateNodeWithMultipleTaints`` (the smallest tolerationSeconds wins), ``TestGetMinTolerationTime``,
  and the DisruptionTarget condition and ``TaintManagerEviction`` events of ``deletePodHandler``;
* timed_workers_test.go ``TestExecute``, ``TestCancel`` (on :class:`TimedWorkerQueue`).

End to end with the node lifecycle controller: a node that stops heartbeating gets the unreachable
taint, and its pods, with DefaultTolerationSeconds' 300 s tolerations, are deleted 300 s later.
"""

from __future__ import annotations

import pytest
import simpy

from kubenotes.apiserver.server import parse_timestamp
from kubenotes.controllers.tainteviction import (
    CANCELLING_DELETION_MESSAGE,
    DISRUPTION_TARGET_MESSAGE,
    DISRUPTION_TARGET_REASON,
    MARKING_FOR_DELETION_MESSAGE,
    TimedWorkerQueue,
    get_matching_tolerations,
    get_min_toleration_time,
)
from kubenotes.sim.cluster import Cluster

TEC = "taint-eviction-controller"
TAINT = {"key": "example.com/maintenance", "value": "true", "effect": "NoExecute"}


def _node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, node: str = "n1", tolerations: list | None = None) -> dict:
    spec: dict = {"nodeName": node, "containers": [{"name": "c", "image": "nginx:1.27"}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _tol(seconds: int | None = None, key: str = "example.com/maintenance") -> dict:
    t = {"key": key, "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return t


def _cluster(pods: list[dict], **kw) -> Cluster:
    c = Cluster([_node("n1"), _node("n2"), *pods], seed=0, controllers=[TEC], authorization=False, **kw)
    c.run(until=5)
    return c


def _taint(c: Cluster, taints: list[dict] | None, node: str = "n1") -> None:
    c.client.patch("nodes", node, {"spec": {"taints": taints}})


def _deleted_at(c: Cluster, name: str) -> float | None:
    """When the taint eviction controller sent DELETE for the pod (virtual seconds)."""
    for e in c.audit_log:
        if e.kind == "Pod" and e.name == name and e.verb == "delete" and e.component == TEC:
            return e.time
    return None


def _events(c: Cluster) -> list[tuple[str, str, str]]:
    return [(e["involvedObject"]["name"], e["reason"], e["message"]) for e in c.list("events")
            if e["source"]["component"] == TEC]


# ---------------------------------------------------------------- TestCreatePod
def test_pod_on_untainted_node_is_left_alone():
    c = _cluster([_pod("p")])
    _taint(c, [TAINT], node="n2")
    c.run(until=100)
    assert c.get("pods", "p", "default") is not None and _deleted_at(c, "p") is None


def test_untolerated_taint_deletes_at_once_with_condition_and_event():
    c = _cluster([_pod("p")])
    seen = []

    def watch():
        w = c.client.watch("pods", "default")
        while True:
            yield w.wait()
            for ev in w.pop_all():
                seen.append(ev.object)

    c.env.process(watch())
    _taint(c, [TAINT])
    c.run(until=10)
    assert 5 <= _deleted_at(c, "p") < 6
    assert c.get("pods", "p", "default") is None  # the kubelet confirmed the deletion
    conds = [cd for o in seen for cd in o["status"].get("conditions") or [] if cd["type"] == "DisruptionTarget"]
    assert conds and conds[0]["reason"] == DISRUPTION_TARGET_REASON
    assert conds[0]["message"] == DISRUPTION_TARGET_MESSAGE and conds[0]["status"] == "True"
    assert ("p", "TaintManagerEviction", MARKING_FOR_DELETION_MESSAGE.format("default/p")) in _events(c)
    assert MARKING_FOR_DELETION_MESSAGE.format("default/p") == "Marking for deletion Pod default/p"


def test_tolerated_forever_is_never_deleted():
    c = _cluster([_pod("p", tolerations=[_tol()])])
    _taint(c, [TAINT])
    c.run(until=1000)
    assert _deleted_at(c, "p") is None


def test_tolerated_for_a_while_is_deleted_after_toleration_seconds():
    c = _cluster([_pod("p", tolerations=[_tol(60)])])
    _taint(c, [TAINT])
    c.run(until=64)
    assert _deleted_at(c, "p") is None
    c.run(until=70)
    assert 65 <= _deleted_at(c, "p") < 66


# ---------------------------------------------------------------- TestUpdateNodeWithMultipleTaints
def test_smallest_toleration_seconds_of_the_used_tolerations_wins():
    other = {"key": "example.com/other", "effect": "NoExecute"}
    c = _cluster([_pod("p", tolerations=[_tol(300), _tol(100, key="example.com/other")])])
    _taint(c, [TAINT, other])
    c.run(until=200)
    assert 105 <= _deleted_at(c, "p") < 106


def test_one_untolerated_taint_among_several_deletes_at_once():
    c = _cluster([_pod("p", tolerations=[_tol(300)])])
    _taint(c, [TAINT, {"key": "example.com/other", "effect": "NoExecute"}])
    c.run(until=10)
    assert 5 <= _deleted_at(c, "p") < 6


def test_no_schedule_taints_do_not_evict():
    c = _cluster([_pod("p")])
    _taint(c, [{"key": "example.com/x", "effect": "NoSchedule"}])
    c.run(until=50)
    assert _deleted_at(c, "p") is None


# ---------------------------------------------------------------- TestUpdateNode / TestUpdatePod
def test_taint_removed_before_toleration_runs_out_cancels_the_deletion():
    c = _cluster([_pod("p", tolerations=[_tol(60)])])
    _taint(c, [TAINT])
    c.run(until=30)
    _taint(c, None)
    c.run(until=200)
    assert _deleted_at(c, "p") is None
    assert ("p", "TaintManagerEviction", CANCELLING_DELETION_MESSAGE.format("default/p")) in _events(c)


def test_lengthening_toleration_does_not_postpone_the_deletion():
    c = _cluster([_pod("p", tolerations=[_tol(60)])])
    _taint(c, [TAINT])
    c.run(until=30)
    pod = c.client.get("pods", "p", "default")
    pod["spec"]["tolerations"] = [_tol(600)]
    c.client.update("pods", pod)
    c.run(until=100)
    assert 65 <= _deleted_at(c, "p") < 66


def test_later_taint_update_keeps_the_original_start_time():
    c = _cluster([_pod("p", tolerations=[_tol(60), _tol(60, key="example.com/other")])])
    _taint(c, [TAINT])
    c.run(until=35)
    _taint(c, [TAINT, {"key": "example.com/other", "effect": "NoExecute"}])
    c.run(until=100)
    assert 65 <= _deleted_at(c, "p") < 66


# ---------------------------------------------------------------- helpers
@pytest.mark.parametrize("tolerations, expected", [
    ([], 0.0),
    ([{"tolerationSeconds": 10}, {"tolerationSeconds": 5}], 5.0),
    ([{"tolerationSeconds": 10}, {"operator": "Exists"}], 10.0),
    ([{"operator": "Exists"}], -1.0),
    ([{"tolerationSeconds": 0}, {"tolerationSeconds": 10}], 0.0),
    ([{"tolerationSeconds": -3}], 0.0),
])
def test_get_min_toleration_time(tolerations, expected):
    assert get_min_toleration_time(tolerations) == expected


def test_get_matching_tolerations_uses_the_first_match_per_taint():
    taints = [{"key": "a", "effect": "NoExecute"}, {"key": "b", "effect": "NoExecute"}]
    tols = [{"key": "a", "operator": "Exists", "tolerationSeconds": 5}, {"operator": "Exists"}]
    ok, used = get_matching_tolerations(taints, tols)
    assert ok and used == [tols[0], tols[1]]
    assert get_matching_tolerations(taints, tols[:1]) == (False, [])


def test_timed_worker_queue_fires_at_fire_time_and_can_be_cancelled():
    env = simpy.Environment()
    fired: list[tuple[float, str]] = []
    q = TimedWorkerQueue(env, lambda k: fired.append((env.now, k)))
    q.add_work("1", 0, 0)
    q.add_work("2", 0, 1)
    q.add_work("3", 0, 5)
    q.add_work("3", 0, 2)  # already there: skipped
    assert q.cancel_work("2") and not q.cancel_work("2") and not q.cancel_work("1")
    env.run(until=10)
    assert fired == [(0, "1"), (5, "3")]


# ---------------------------------------------------------------- end to end with node lifecycle
def test_unreachable_node_pods_are_deleted_after_default_toleration_seconds():
    tol = [{"key": k, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
           for k in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")]
    objs = [_node("n1"), _node("n2"), _node("n3"), _pod("a", "n1", tol), _pod("b", "n2", tol)]
    c = Cluster(objs, seed=0, controllers=["node-lifecycle-controller", TEC], authorization=False, kubelet="stand-in")
    c.run(until=20)
    c.node_down("n1")
    c.run(until=300)
    taint = next(t for t in c.get("nodes", "n1")["spec"]["taints"] if t["effect"] == "NoExecute")
    assert taint["key"] == "node.kubernetes.io/unreachable"
    tainted_at = parse_timestamp(taint["timeAdded"])
    assert _deleted_at(c, "a") is None
    c.run(until=tainted_at + 310)
    assert tainted_at + 300 <= _deleted_at(c, "a") < tainted_at + 301
    pod = c.get("pods", "a", "default")  # the dead kubelet cannot confirm: Terminating
    assert pod["metadata"]["deletionTimestamp"]
    assert any(cd["type"] == "DisruptionTarget" for cd in pod["status"]["conditions"])
    assert _deleted_at(c, "b") is None
