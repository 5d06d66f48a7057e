"""Tests for the Deployment controller and its util module.

Ported from kubernetes/kubernetes@v1.34.0:

* pkg/controller/deployment/util/deployment_util_test.go: ``TestResolveFenceposts``,
  ``TestNewRSNewReplicas``, ``TestMaxUnavailable``, ``TestMinAvailable``, ``TestGetReplicaSetFraction``,
  ``TestAnnotationUtils``, ``TestReplicasAnnotationsNeedUpdate``, ``TestDeploymentComplete``,
  ``TestDeploymentProgressing``, ``TestDeploymentTimedOut``, ``TestSetCondition``/``TestRemoveCondition``,
  ``TestEqualIgnoreHash``/``TestFindNewReplicaSet``/``TestFindOldReplicaSets`` (shortened),
  ``TestGetNonNegativeInt32FromAnnotation``;
* pkg/controller/deployment/rolling_test.go: ``TestDeploymentController_reconcileNewReplicaSet``,
  ``TestDeploymentController_reconcileOldReplicaSets``, ``TestDeploymentController_cleanupUnhealthyReplicas``,
  ``TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate`` (same tables, a recording client in
  place of the fake clientset);
* pkg/controller/deployment/sync_test.go: ``TestScale`` (the proportional-scaling table).

The end-to-end tests run a Cluster with the replicaset and deployment controllers on 3 nodes
(cpu 4, memory 8Gi, pods 110): a Deployment becoming available, a rolling update within its
maxSurge/maxUnavailable bounds, rollback, proportional scaling during a rollout, Recreate ordering,
pause/resume, the progress deadline and revision history cleanup.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubenotes.apiserver.server import format_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers import deployment_util as du
from kubenotes.controllers.deployment import (
    PAUSED_ROLLBACK_MESSAGE,
    DeploymentController,
    max_surge_and_unavailable,
    new_rs_new_replicas,
    pause,
    resume,
    rollback,
    set_image,
)
from kubenotes.sim.cluster import Cluster

# --------------------------------------------------------------------------- helpers (as upstream's test helpers)


def new_deployment(replicas: int | None, max_surge: Any = 0, max_unavailable: Any = 0, strategy: str = "RollingUpdate",
                   status_replicas: int = 0) -> dict:
    spec: dict = {"strategy": {"type": strategy}}
    if replicas is not None:
        spec["replicas"] = replicas
    if strategy == "RollingUpdate":
        spec["strategy"]["rollingUpdate"] = {"maxSurge": max_surge, "maxUnavailable": max_unavailable}
    return {"metadata": {"name": "foo", "namespace": "default", "uid": "d-uid", "generation": 1, "annotations": {}},
            "spec": spec, "status": {"replicas": status_replicas}}


def rs(name: str, replicas: int, created: float = 0.0, available: int = 0, annotations: dict | None = None) -> dict:
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "creationTimestamp": format_timestamp(created), "annotations": dict(annotations or {})},
            "spec": {"replicas": replicas, "template": {"metadata": {"labels": {"foo": "bar"}}}},
            "status": {"availableReplicas": available}}


class RecordingClient:
    def __init__(self, fail: set[str] | None = None):
        self.updates: list[dict] = []
        self.fail = fail or set()

    def update(self, resource: str, obj: dict, namespace: str | None = None) -> dict:
        if obj["metadata"]["name"] in self.fail:
            raise ApiError({"code": 500, "reason": "InternalError", "message": "fake ReplicaSet update failure"})
        self.updates.append(deep_copy(obj))
        return obj


class RecordingRecorder:
    def __init__(self):
        self.events: list[tuple[str, str, str]] = []

    def event(self, obj: dict, event_type: str, reason: str, message: str) -> None:
        self.events.append((event_type, reason, message))


def fake_controller(fail: set[str] | None = None) -> DeploymentController:
    c = DeploymentController.__new__(DeploymentController)
    c.client = RecordingClient(fail)
    c.recorder = RecordingRecorder()
    return c


# --------------------------------------------------------------------------- deployment_util


@pytest.mark.parametrize("surge,unavail,desired,want", [
    ("0%", "0%", 0, (0, 1)),
    ("39%", "39%", 10, (4, 3)),
    (None, "39%", 10, (0, 3)),
    ("39%", None, 10, (4, 0)),
    (None, None, 10, (0, 1)),
    (1, 1, 2, (1, 1)),
    ("25%", "25%", 8, (2, 2)),
])
def test_resolve_fenceposts(surge, unavail, desired, want):
    assert du.resolve_fenceposts(surge, unavail, desired) == want


@pytest.mark.parametrize("surge,unavail", [("oops", "39%"), ("55%", "urg"), ("5", "1")])
def test_resolve_fenceposts_errors(surge, unavail):
    with pytest.raises(ValueError, match="invalid value for IntOrString"):
        du.resolve_fenceposts(surge, unavail, 10)


@pytest.mark.parametrize("name,strategy,dep_replicas,new_rs_replicas,max_surge,expected", [
    ("can not scale up - to newRSReplicas", "RollingUpdate", 1, 5, 1, 5),
    ("scale up - to depReplicas", "RollingUpdate", 6, 2, 10, 6),
    ("recreate - to depReplicas", "Recreate", 3, 1, 1, 3),
])
def test_new_rs_new_replicas(name, strategy, dep_replicas, new_rs_replicas, max_surge, expected):
    d = new_deployment(dep_replicas, max_surge, 1)
    d["spec"]["strategy"]["type"] = strategy
    new = rs("new", new_rs_replicas)
    assert new_rs_new_replicas(d, [rs("rs5", 5)], new) == expected, name


@pytest.mark.parametrize("replicas,unavail,expected", [
    (10, 5, 5), (10, 10, 10), (5, 10, 5), (0, 10, 0), (10, "50%", 5), (10, "100%", 10), (5, "100%", 5),
])
def test_max_unavailable(replicas, unavail, expected):
    assert du.max_unavailable(new_deployment(replicas, 1, unavail)) == expected


def test_max_unavailable_and_min_available_of_recreate():
    d = new_deployment(None, strategy="Recreate")
    assert (du.max_unavailable(d), du.min_available(new_deployment(10, strategy="Recreate"))) == (0, 0)
    assert max_surge_and_unavailable(d) == (0, 0)


@pytest.mark.parametrize("replicas,unavail,expected", [
    (10, 5, 5), (10, 10, 0), (5, 10, 0), (0, 10, 0), (10, "60%", 4), (10, "100%", 0), (5, "100%", 0),
])
def test_min_available(replicas, unavail, expected):
    assert du.min_available(new_deployment(replicas, 1, unavail)) == expected


@pytest.mark.parametrize("name,dep_replicas,status_replicas,surge,rs_replicas,annotations,expected", [
    ("empty deployment always scales to 0", 0, 0, 0, 10, None, -10),
    ("unsynced, missing max-replicas annotation", 10, 0, 0, 5, None, 0),
    ("unsynced, max-replicas annotation 0", 10, 0, 0, 5, {du.MAX_REPLICAS_ANNOTATION: "0"}, 0),
    ("missing annotation falls back to status.replicas", 120, 100, 0, 50, None, 10),
    ("annotation 0 falls back to status.replicas", 120, 100, 0, 50, {du.MAX_REPLICAS_ANNOTATION: "0"}, 10),
    ("scale up by 1/5", 120, 0, 0, 50, {du.MAX_REPLICAS_ANNOTATION: "100"}, 10),
    ("scale up with maxSurge", 120, 0, 10, 50, {du.MAX_REPLICAS_ANNOTATION: "110"}, 9),
    ("scale down by 1/6", 10, 0, 0, 6, {du.MAX_REPLICAS_ANNOTATION: "12"}, -1),
    ("scale down with maxSurge", 100, 0, 10, 50, {du.MAX_REPLICAS_ANNOTATION: "130"}, -8),
])
def test_get_replica_set_fraction(name, dep_replicas, status_replicas, surge, rs_replicas, annotations, expected):
    d = new_deployment(dep_replicas, surge, 1, status_replicas=status_replicas)
    assert du.get_replica_set_fraction(rs("r", rs_replicas, annotations=annotations), d) == expected, name


@pytest.mark.parametrize("value,expected", [
    (None, None), ("invalid", None), ("-1", None), ("0", 0), ("13", 13), (str(2**31 - 1), 2**31 - 1),
    (str(2**31), None), (str(2**32), None),
])
def test_non_negative_int32_annotation(value, expected):
    ann = {} if value is None else {du.MAX_REPLICAS_ANNOTATION: value}
    assert du.get_max_replicas_annotation({"metadata": {"annotations": ann}}) == expected


def test_annotation_utils():
    d = new_deployment(1)
    d["metadata"]["annotations"][du.REVISION_ANNOTATION] = "1"
    r = rs("r", 1)
    for i in range(10, 20):
        nxt = str(i + 1)
        du.set_new_replica_set_annotations(d, r, nxt, True, 5)
        if i >= 12:
            assert r["metadata"]["annotations"][du.REVISION_HISTORY_ANNOTATION] == f"{i - 1},{i}"
        assert r["metadata"]["annotations"][du.REVISION_ANNOTATION] == nxt
    assert du.set_replicas_annotations(r, 10, 11)
    assert (r["metadata"]["annotations"][du.DESIRED_REPLICAS_ANNOTATION],
            r["metadata"]["annotations"][du.MAX_REPLICAS_ANNOTATION]) == ("10", "11")
    r["metadata"]["annotations"][du.DESIRED_REPLICAS_ANNOTATION] = "1"
    r["status"]["availableReplicas"] = 1
    assert du.is_saturated(d, r)


@pytest.mark.parametrize("annotations,expected", [
    (None, True),
    ({du.DESIRED_REPLICAS_ANNOTATION: "8", du.MAX_REPLICAS_ANNOTATION: "20"}, True),
    ({du.DESIRED_REPLICAS_ANNOTATION: "10", du.MAX_REPLICAS_ANNOTATION: "16"}, True),
    ({du.DESIRED_REPLICAS_ANNOTATION: "10", du.MAX_REPLICAS_ANNOTATION: "20"}, False),
])
def test_replicas_annotations_need_update(annotations, expected):
    r: dict = {"metadata": {"name": "hello"}}
    if annotations is not None:
        r["metadata"]["annotations"] = annotations
    assert du.replicas_annotations_need_update(r, 10, 20) == expected


@pytest.mark.parametrize("desired,current,updated,available,max_unavailable,max_surge,expected", [
    (5, 5, 5, 4, 1, 0, False),
    (5, 5, 5, 3, 1, 0, False),
    (5, 5, 5, 5, 0, 0, True),
    (5, 5, 4, 5, 0, 0, False),
    (1, 2, 1, 1, 0, 1, False),
    (1, 1, 1, 0, 1, 1, False),
])
def test_deployment_complete(desired, current, updated, available, max_unavailable, max_surge, expected):
    d = new_deployment(desired, max_surge, max_unavailable)
    d["status"] = {"replicas": current, "updatedReplicas": updated, "availableReplicas": available,
                   "observedGeneration": 1}
    assert du.deployment_complete(d, d["status"]) == expected


def _counts(current: int, updated: int, ready: int, available: int) -> dict:
    return {"replicas": current, "updatedReplicas": updated, "readyReplicas": ready, "availableReplicas": available}


@pytest.mark.parametrize("old,new,expected", [
    (_counts(10, 4, 4, 4), _counts(10, 6, 4, 4), True),
    (_counts(10, 4, 4, 4), _counts(10, 4, 4, 4), False),
    (_counts(10, 4, 6, 6), _counts(8, 4, 6, 6), True),
    (_counts(10, 7, 3, 3), _counts(10, 6, 3, 3), False),
    (_counts(10, 4, 7, 7), _counts(8, 8, 5, 5), True),
    (_counts(10, 10, 9, 8), _counts(10, 10, 10, 8), True),
    (_counts(10, 10, 10, 9), _counts(10, 10, 10, 10), True),
])
def test_deployment_progressing(old, new, expected):
    assert du.deployment_progressing({"metadata": {}, "status": old}, new) == expected


@pytest.mark.parametrize("name,deadline,reason,from_s,now_s,expected", [
    ("nil progressDeadlineSeconds", None, "", 69, 80, False),
    ("infinite progressDeadlineSeconds", 2**31 - 1, "", 69, 80, False),
    ("10s, 11s passed", 10, "", 69, 80, True),
    ("10s, 9s passed", 10, "", 71, 80, False),
    ("previous status was a complete deployment", None, du.NEW_RS_AVAILABLE_REASON, 0, 80, False),
])
def test_deployment_timed_out(name, deadline, reason, from_s, now_s, expected):
    d = {"metadata": {}, "spec": {"progressDeadlineSeconds": deadline} if deadline is not None else {}}
    st = {"conditions": [{"type": "Progressing", "status": "True", "reason": reason,
                          "lastUpdateTime": format_timestamp(from_s)}]}
    assert du.deployment_timed_out(d, st, float(now_s)) == expected, name


def test_set_and_remove_conditions():
    prog = {"type": "Progressing", "status": "False", "reason": "ForSomeReason"}
    prog2 = {"type": "Progressing", "status": "True", "reason": "BecauseItIs"}
    avail = {"type": "Available", "status": "True", "reason": "AwesomeController"}
    st: dict = {}
    du.set_deployment_condition(st, avail)
    assert st["conditions"] == [avail]
    st = {"conditions": [prog]}
    du.set_deployment_condition(st, avail)
    assert st["conditions"] == [prog, avail]
    st = {"conditions": [prog]}
    du.set_deployment_condition(st, prog2)
    assert st["conditions"] == [prog2]
    du.remove_deployment_condition(st, "Progressing")
    assert st == {}
    st = {"conditions": [prog, avail]}
    du.remove_deployment_condition(st, "ReplicaFailure")
    assert st["conditions"] == [prog, avail]


def test_set_condition_keeps_transition_time_when_status_unchanged():
    st = {"conditions": [du.new_deployment_condition("Progressing", "True", "A", "m", "t0")]}
    du.set_deployment_condition(st, du.new_deployment_condition("Progressing", "True", "B", "m", "t1"))
    assert (st["conditions"][0]["reason"], st["conditions"][0]["lastTransitionTime"],
            st["conditions"][0]["lastUpdateTime"]) == ("B", "t0", "t1")


def test_find_new_and_old_replica_sets():
    d = new_deployment(3)
    d["spec"]["template"] = {"metadata": {"labels": {"foo": "bar"}}, "spec": {"containers": [{"image": "v2"}]}}
    def mk(name, image, t, hash_):
        r = rs(name, 1, t)
        r["spec"]["template"] = {"metadata": {"labels": {"foo": "bar", "pod-template-hash": hash_}},
                                 "spec": {"containers": [{"image": image}]}}
        return r
    old, new, dup = mk("old", "v1", 0, "a"), mk("new", "v2", 10, "b"), mk("dup", "v2", 20, "c")
    assert du.find_new_replica_set(d, [dup, old, new])["metadata"]["name"] == "new"  # the oldest match
    required, all_old = du.find_old_replica_sets(d, [dup, old, new])
    assert sorted(r["metadata"]["name"] for r in all_old) == ["dup", "old"]
    assert du.equal_ignore_hash(new["spec"]["template"], d["spec"]["template"])


# --------------------------------------------------------------------------- rolling.go tables


@pytest.mark.parametrize("dep_replicas,max_surge,old_replicas,new_replicas,scale_expected,expected_new", [
    (10, 0, 10, 0, False, None),
    (10, 2, 10, 0, True, 2),
    (10, 2, 5, 0, True, 7),
    (10, 2, 10, 2, False, None),
    (10, 2, 2, 11, True, 10),  # scale down
])
def test_reconcile_new_replica_set(dep_replicas, max_surge, old_replicas, new_replicas, scale_expected,
                                   expected_new):
    c = fake_controller()
    new, old = rs("foo-v2", new_replicas), rs("foo-v1", old_replicas)
    d = new_deployment(dep_replicas, max_surge, 0)
    scaled = c.reconcile_new_replica_set([new, old], new, d)
    assert scaled == scale_expected
    if not scale_expected:
        assert c.client.updates == []
    else:
        assert [u["spec"]["replicas"] for u in c.client.updates] == [expected_new]


@pytest.mark.parametrize("dep_replicas,max_unavailable,old_replicas,new_replicas,ready_old,ready_new,scale_expected", [
    (10, 0, 10, 0, 10, 0, True),
    (10, 2, 10, 0, 10, 0, True),
    (10, 2, 10, 0, 8, 0, True),   # unhealthy old replicas cleaned up
    (10, 2, 10, 0, 9, 0, True),   # one unhealthy cleaned up, one ready scaled down
    (10, 2, 8, 2, 8, 0, False),   # unavailable new pods do not let old ones go
])
def test_reconcile_old_replica_sets(dep_replicas, max_unavailable, old_replicas, new_replicas, ready_old, ready_new,
                                    scale_expected):
    c = fake_controller()
    new = rs("foo-new", new_replicas, available=ready_new)
    old = rs("foo-old", old_replicas, available=ready_old)
    d = new_deployment(dep_replicas, 0, max_unavailable)
    assert c.reconcile_old_replica_sets([old, new], [old], new, d) == scale_expected


@pytest.mark.parametrize("old_replicas,ready,max_cleanup,expected", [
    (10, 8, 1, 1), (10, 8, 3, 2), (10, 8, 0, 0), (10, 10, 3, 0),
])
def test_cleanup_unhealthy_replicas(old_replicas, ready, max_cleanup, expected):
    c = fake_controller()
    _, count = c.cleanup_unhealthy_replicas([rs("foo-v2", old_replicas, available=ready)], new_deployment(10, 2, 2),
                                            max_cleanup)
    assert count == expected


@pytest.mark.parametrize("dep_replicas,max_unavailable,ready,old_replicas,expected_old", [
    (10, 0, 10, 10, 9), (10, 2, 10, 10, 8), (10, 2, 8, 10, None), (10, 2, 10, 0, None), (10, 2, 1, 10, None),
])
def test_scale_down_old_replica_sets_for_rolling_update(dep_replicas, max_unavailable, ready, old_replicas,
                                                        expected_old):
    c = fake_controller()
    old = rs("foo-v2", old_replicas, available=ready)
    scaled = c.scale_down_old_replica_sets_for_rolling_update([old], [old], new_deployment(dep_replicas, 0,
                                                                                            max_unavailable))
    if expected_old is None:
        assert scaled == 0 and c.client.updates == []
    else:
        assert [u["spec"]["replicas"] for u in c.client.updates] == [expected_old]


# --------------------------------------------------------------------------- sync.go TestScale

OLD_T, NEW_T = 0.0, 100.0


@pytest.mark.parametrize("name,replicas,old_replicas,surge,old_surge,new,olds,want_new,want_olds", [
    ("proportional scaling: 5 -> 10", 10, 5, 0, 0, ("foo-v2", 2), [("foo-v1", 3)], 4, [6]),
    ("proportional scaling: 5 -> 3", 3, 5, 0, 0, ("foo-v2", 2), [("foo-v1", 3)], 1, [2]),
    ("proportional scaling: 9 -> 4", 4, 9, 0, 0, ("foo-v2", 8), [("foo-v1", 1)], 4, [0]),
    ("proportional scaling: 7 -> 10", 10, 7, 0, 0, ("foo-v3", 2), [("foo-v2", 3), ("foo-v1", 2)], 3, [4, 3]),
    ("proportional scaling: 13 -> 8", 8, 13, 0, 0, ("foo-v3", 2), [("foo-v2", 8), ("foo-v1", 3)], 1, [5, 2]),
    ("leftover distribution: 3 -> 4", 4, 3, 0, 0, ("foo-v3", 1), [("foo-v2", 1), ("foo-v1", 1)], 2, [1, 1]),
    ("leftover distribution: 3 -> 2", 2, 3, 0, 0, ("foo-v3", 1), [("foo-v2", 1), ("foo-v1", 1)], 1, [1, 0]),
    ("proportional scaling (no new rs): 4 -> 5", 5, 4, 0, 0, None, [("foo-v2", 2), ("foo-v1", 2)], None, [3, 2]),
    ("proportional scaling: 6 -> 0", 0, 6, 0, 0, ("foo-v3", 3), [("foo-v2", 2), ("foo-v1", 1)], 0, [0, 0]),
    ("proportional scaling: 0 -> 6", 6, 0, 0, 0, ("foo-v3", 0), [("foo-v2", 0), ("foo-v1", 0)], 6, [0, 0]),
    ("deployment with surge pods", 20, 10, 2, 2, ("foo-v2", 6), [("foo-v1", 6)], 11, [11]),
    ("change both surge and size", 50, 10, 6, 3, ("foo-v2", 5), [("foo-v1", 8)], 22, [34]),
])
def test_scale(name, replicas, old_replicas, surge, old_surge, new, olds, want_new, want_olds):
    c = fake_controller()
    d = new_deployment(replicas, surge, 0)
    old_d = new_deployment(old_replicas, old_surge, 0)
    old_max = old_replicas + du.max_surge(old_d)
    new_rs = rs(new[0], new[1], NEW_T) if new else None
    old_rss = [rs(n, r, OLD_T + i) for i, (n, r) in enumerate(reversed(olds))][::-1]
    for r in ([new_rs] if new_rs else []) + old_rss:
        du.set_replicas_annotations(r, old_replicas, old_max)
    c.scale(d, new_rs, old_rss)
    final = {r["metadata"]["name"]: r["spec"]["replicas"] for r in ([new_rs] if new_rs else []) + old_rss}
    final.update({u["metadata"]["name"]: u["spec"]["replicas"] for u in c.client.updates})
    if new:
        assert final[new[0]] == want_new, name
    assert [final[n] for n, _ in olds] == want_olds, name


def test_scale_records_upstream_event_text():
    c = fake_controller()
    d = new_deployment(10, 0, 0)
    new_rs, old = rs("foo-v2", 2, NEW_T), rs("foo-v1", 3, OLD_T)
    for r in (new_rs, old):
        du.set_replicas_annotations(r, 5, 5)
    c.scale(d, new_rs, [old])
    assert c.recorder.events == [("Normal", "ScalingReplicaSet", "Scaled up replica set foo-v1 from 3 to 6"),
                                 ("Normal", "ScalingReplicaSet", "Scaled up replica set foo-v2 from 2 to 4")]


# --------------------------------------------------------------------------- in a cluster


def _node(name: str) -> dict:
    res = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": res, "capacity": res}}


NODES = [_node("n1"), _node("n2"), _node("n3")]


def web(replicas: int = 3, strategy: dict | None = None, **spec: Any) -> dict:
    d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "nginx", "image": "nginx:1.26"}]}}, **spec}}
    if strategy is not None:
        d["spec"]["strategy"] = strategy
    return d


def cluster(*objs: dict) -> Cluster:
    return Cluster([*NODES, *objs], seed=0, controllers=["replicaset-controller", "deployment-controller"],
                   authorization=False, kubelet="stand-in")


def events(c: Cluster, reason: str) -> list[str]:
    return [e["message"] for e in c.list("events", "default") if e["reason"] == reason]


def replica_sets(c: Cluster) -> dict[str, int]:
    return {r["metadata"]["name"]: r["spec"]["replicas"] for r in c.list("replicasets", "default")}


def test_deployment_becomes_available():
    c = cluster(web(3))
    c.run(until=10)
    d = c.get("deployments", "web", "default")
    st = d["status"]
    assert (st["replicas"], st["updatedReplicas"], st["readyReplicas"], st["availableReplicas"],
            st.get("unavailableReplicas", 0), st["observedGeneration"]) == (3, 3, 3, 3, 0, 1)
    conds = {x["type"]: (x["status"], x["reason"], x["message"]) for x in st["conditions"]}
    [rs_obj] = c.list("replicasets", "default")
    name = rs_obj["metadata"]["name"]
    h = rs_obj["metadata"]["labels"]["pod-template-hash"]
    assert name == f"web-{h}" and rs_obj["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": h}
    assert conds == {"Available": ("True", "MinimumReplicasAvailable", "Deployment has minimum availability."),
                     "Progressing": ("True", "NewReplicaSetAvailable",
                                     f'ReplicaSet "{name}" has successfully progressed.')}
    assert d["metadata"]["annotations"][du.REVISION_ANNOTATION] == "1"
    assert rs_obj["metadata"]["annotations"] == {du.REVISION_ANNOTATION: "1", du.DESIRED_REPLICAS_ANNOTATION: "3",
                                                 du.MAX_REPLICAS_ANNOTATION: "4"}
    assert events(c, "ScalingReplicaSet") == [f"Scaled up replica set {name} from 0 to 3"]
    pods = c.list("pods", "default")
    assert len(pods) == 3 and all(p["metadata"]["labels"]["pod-template-hash"] == h for p in pods)


def test_rolling_update_stays_within_max_surge_and_max_unavailable():
    c = cluster(web(4))  # 25% of 4: maxSurge 1, maxUnavailable 1
    c.run(until=10)
    seen = {"max_pods": 0, "min_ready": 99}

    def check(_entry: Any) -> None:
        pods = [p for p in c.server.list("pods", "default") if not p["metadata"].get("deletionTimestamp")]
        ready = sum(1 for p in pods for x in (p.get("status") or {}).get("conditions") or ()
                    if x["type"] == "Ready" and x["status"] == "True")
        seen["max_pods"] = max(seen["max_pods"], len(pods))
        seen["min_ready"] = min(seen["min_ready"], ready)

    c.server.on_commit.append(check)
    set_image(c.client, "default", "web", "nginx", "nginx:1.27")
    c.run(until=60)
    assert seen["max_pods"] == 5 and seen["min_ready"] == 3
    d = c.get("deployments", "web", "default")
    assert (d["status"]["updatedReplicas"], d["status"]["availableReplicas"], d["status"]["replicas"]) == (4, 4, 4)
    assert sorted(replica_sets(c).values()) == [0, 4]
    assert {p["spec"]["containers"][0]["image"] for p in c.list("pods", "default")} == {"nginx:1.27"}
    assert d["metadata"]["annotations"][du.REVISION_ANNOTATION] == "2"


def test_rollback_restores_the_old_template():
    c = cluster(web(3))
    c.run(until=10)
    [first] = replica_sets(c)
    set_image(c.client, "default", "web", "nginx", "nginx:1.27")
    c.run(until=40)
    assert rollback(c.client, "default", "web") == "rolled back"
    c.run(until=80)
    d = c.get("deployments", "web", "default")
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    assert replica_sets(c)[first] == 3 and sum(replica_sets(c).values()) == 3
    old_rs = c.get("replicasets", first, "default")
    assert old_rs["metadata"]["annotations"][du.REVISION_ANNOTATION] == "3"
    assert old_rs["metadata"]["annotations"][du.REVISION_HISTORY_ANNOTATION] == "1"
    assert d["metadata"]["annotations"][du.REVISION_ANNOTATION] == "3"
    assert rollback(c.client, "default", "web", to_revision=3).startswith("skipped rollback")
    with pytest.raises(ValueError, match="unable to find specified revision 7 in history"):
        rollback(c.client, "default", "web", to_revision=7)


def test_scaling_during_a_rollout_is_proportional():
    c = cluster(web(3))  # maxSurge 1, maxUnavailable 0
    c.run(until=10)
    [old] = replica_sets(c)
    set_image(c.client, "default", "web", "nginx", "nginx:1.27")
    c.run(until=11)  # new ReplicaSet at 1, its pod not ready yet (ready at 12 s)
    [new] = [n for n in replica_sets(c) if n != old]
    assert replica_sets(c) == {old: 3, new: 1}
    c.client.scale("deployments", "web", 5, "default")  # 25% of 5: maxSurge 2, allowed 7
    c.run(until=11.5)
    msgs = events(c, "ScalingReplicaSet")
    i = msgs.index(f"Scaled up replica set {old} from 3 to 5")
    assert msgs[i + 1] == f"Scaled up replica set {new} from 1 to 2"
    c.run(until=60)
    assert replica_sets(c) == {old: 0, new: 5}
    assert c.get("deployments", "web", "default")["status"]["availableReplicas"] == 5


def test_recreate_deletes_all_old_pods_before_creating_new_ones():
    c = cluster(web(3, strategy={"type": "Recreate"}))
    c.run(until=10)
    [old] = replica_sets(c)
    set_image(c.client, "default", "web", "nginx", "nginx:1.27")
    c.run(until=40)
    [new] = [n for n in replica_sets(c) if n != old]
    log = [e for e in c.audit_log if e.kind == "Pod" and e.time >= 10]
    old_gone = max(i for i, e in enumerate(log) if e.verb == "delete" and e.name.startswith(old) and
                   not e.detail.startswith("graceful"))
    new_first = min(i for i, e in enumerate(log) if e.verb == "create" and e.name.startswith(new))
    assert old_gone < new_first
    assert replica_sets(c) == {old: 0, new: 3}
    assert events(c, "ScalingReplicaSet")[-2:] == [f"Scaled down replica set {old} from 3 to 0",
                                                   f"Scaled up replica set {new} from 0 to 3"]


def test_pause_and_resume():
    c = cluster(web(3))
    c.run(until=10)
    pause(c.client, "default", "web")
    c.run(until=11)
    cond = du.get_deployment_condition(c.get("deployments", "web", "default")["status"], "Progressing")
    assert (cond["status"], cond["reason"], cond["message"]) == ("Unknown", "DeploymentPaused", "Deployment is paused")
    set_image(c.client, "default", "web", "nginx", "nginx:1.27")
    c.run(until=20)
    assert len(replica_sets(c)) == 1  # no rollout while paused
    with pytest.raises(ValueError, match='no rollout history found for deployment "web"'):
        rollback(c.client, "default", "web")  # kubectl looks for the previous revision first
    with pytest.raises(ValueError) as err:
        rollback(c.client, "default", "web", to_revision=1)
    assert str(err.value) == PAUSED_ROLLBACK_MESSAGE
    set_image(c.client, "default", "web", "nginx", "nginx:1.28")
    resume(c.client, "default", "web")
    c.run(until=60)
    assert sorted(replica_sets(c).values()) == [0, 3]
    d = c.get("deployments", "web", "default")
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert du.get_deployment_condition(d["status"], "Progressing")["reason"] == "NewReplicaSetAvailable"


def test_progress_deadline_exceeded():
    c = cluster(web(3, progressDeadlineSeconds=20))
    c.run(until=10)
    d = c.client.get("deployments", "web", "default")
    d["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100"}}  # fits no node
    c.client.update("deployments", d, "default")
    c.run(until=25)
    cond = du.get_deployment_condition(c.get("deployments", "web", "default")["status"], "Progressing")
    assert cond["reason"] == "ReplicaSetUpdated"
    c.run(until=60)
    st = c.get("deployments", "web", "default")["status"]
    cond = du.get_deployment_condition(st, "Progressing")
    new = [n for n, r in replica_sets(c).items() if r == 1][0]
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "False", "ProgressDeadlineExceeded", f'ReplicaSet "{new}" has timed out progressing.')
    assert du.get_deployment_condition(st, "Available")["status"] == "True"  # the old pods still serve


def test_revision_history_limit_cleans_up_old_replica_sets():
    c = cluster(web(2, revisionHistoryLimit=1))
    c.run(until=10)
    for i, tag in enumerate(("1.27", "1.28", "1.29")):
        set_image(c.client, "default", "web", "nginx", f"nginx:{tag}")
        c.run(until=40 + 30 * i)
    rss = c.list("replicasets", "default")
    assert len(rss) == 2
    revisions = sorted(int(r["metadata"]["annotations"][du.REVISION_ANNOTATION]) for r in rss)
    assert revisions == [3, 4]


def test_a_template_patched_without_server_defaults_rolls_out_once():
    c = cluster(web(3))
    c.run(until=10)
    c.client.patch("deployments", "web", {"spec": {"template": {"spec": {"containers": [
        {"name": "nginx", "image": "nginx:1.27"}]}}}}, "default")
    c.run(until=40)
    assert sorted(replica_sets(c).values()) == [0, 3]
    assert (c.get("deployments", "web", "default")["status"].get("collisionCount") or 0) == 0


def test_controller_side_rollback_annotation():
    c = cluster(web(3))
    c.run(until=10)
    [first] = replica_sets(c)
    set_image(c.client, "default", "web", "nginx", "nginx:1.27")
    c.run(until=40)
    c.client.patch("deployments", "web", {"metadata": {"annotations": {du.DEPRECATED_ROLLBACK_TO: "1"}}}, "default")
    c.run(until=80)
    d = c.get("deployments", "web", "default")
    assert du.DEPRECATED_ROLLBACK_TO not in d["metadata"]["annotations"]
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.26"
    assert events(c, "DeploymentRollback") == ['Rolled back deployment "web" to revision 1']
    assert replica_sets(c)[first] == 3


def test_hash_collision_bumps_collision_count():
    from kubenotes.apiserver.server import APIServer
    from kubenotes.controllers.controller_utils import compute_hash

    stored = APIServer(seed=5).client().create("deployments", web(2), "default")  # the template as defaulted
    taken = f'web-{compute_hash(stored["spec"]["template"], None)}'
    labels = {"app": "web", "squatter": "yes"}
    squatter = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": taken, "namespace": "default",
                                                                           "labels": labels},
                "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                         "template": {"metadata": {"labels": labels},
                                      "spec": {"containers": [{"name": "nginx", "image": "other"}]}}}}
    c = cluster(squatter, web(2))
    c.run(until=20)
    assert c.get("deployments", "web", "default")["status"]["collisionCount"] == 1
    new = f'web-{compute_hash(stored["spec"]["template"], 1)}'
    assert replica_sets(c) == {taken: 0, new: 2}
    assert c.get("replicasets", taken, "default")["metadata"]["ownerReferences"][0]["kind"] == "Deployment"  # adopted
