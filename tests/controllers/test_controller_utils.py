"""Tests for kubenotes.controllers.controller_utils.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/controller_utils_test.go:
``TestActivePodFiltering`` (test_active_pod_filtering), ``TestSortingActivePods``
(test_sorting_active_pods, 20 shuffles as upstream), ``TestSortingActivePodsWithRanks``
(the equality and inequality tables), ``TestActiveReplicaSetsFiltering``,
``TestComputeHash``, ``TestControllerExpectations``/``TestUIDExpectations`` (expectations
lower to fulfilled, expire after ExpectationsTimeout, uid-tracked deletions count once);
``slowStartBatch`` from pkg/controller/replicaset/replica_set_test.go ``TestSlowStartBatch``.
``resolve_controller_ref`` has no upstream unit test of its own (upstream each controller's
``resolveControllerRef`` is exercised through its pod handlers); its cases here check the three
ways a reference fails to resolve (other kind, nothing cached, a recreated owner with a new uid).
"""

from __future__ import annotations

import random

import pytest

from kubenotes.apiserver.resources import resource_for
from kubenotes.apiserver.server import format_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.client.informer import Indexer, Lister
from kubenotes.api.meta import new_controller_ref
from kubenotes.controllers.controller_utils import (
    EXPECTATIONS_TIMEOUT_SECONDS,
    POD_DELETION_COST_ANNOTATION,
    ControllerExpectations,
    ControllerRefManager,
    UIDTrackingControllerExpectations,
    active_pods_with_ranks_less,
    compute_hash,
    filter_active_pods,
    filter_active_replica_sets,
    filter_terminating_pods,
    get_pod_from_template,
    get_pods_ranked_by_related_pods_on_same_node,
    is_pod_available,
    replica_sets_by_size_newer,
    replica_sets_by_size_older,
    resolve_controller_ref,
    safe_encode_string,
    slow_start_batch,
    sort_active_pods,
)

NOW = 40 * 86400.0
THEN = NOW - 31 * 86400.0  # AddDate(0, -1, 0)


def ts(seconds: float | None) -> str | None:
    return None if seconds is None else format_timestamp(seconds)


def pod(name: str, node: str = "", phase: str = "Running", ready: bool = False, ready_since: float | None = None,
        restarts: tuple[int, ...] = (), created: float | None = None, annotations: dict | None = None,
        uid: str = "") -> dict:
    md: dict = {"name": name, "namespace": "default", "uid": uid}
    if created is not None:
        md["creationTimestamp"] = ts(created)
    if annotations:
        md["annotations"] = annotations
    status: dict = {"phase": phase}
    if ready:
        cond = {"type": "Ready", "status": "True"}
        if ready_since is not None:
            cond["lastTransitionTime"] = ts(ready_since)
        status["conditions"] = [cond]
    if restarts:
        status["containerStatuses"] = [{"restartCount": r} for r in restarts]
    return {"metadata": md, "spec": {"nodeName": node} if node else {}, "status": status}


def test_active_pod_filtering():
    pods = [pod(f"pod-{i}") for i in range(1, 6)]
    pods[0]["status"]["phase"] = "Succeeded"
    pods[1]["status"]["phase"] = "Failed"
    assert sorted(p["metadata"]["name"] for p in filter_active_pods(pods)) == ["pod-3", "pod-4", "pod-5"]
    pods[2]["metadata"]["deletionTimestamp"] = ts(NOW)
    assert sorted(p["metadata"]["name"] for p in filter_active_pods(pods)) == ["pod-4", "pod-5"]
    assert [p["metadata"]["name"] for p in filter_terminating_pods(pods)] == ["pod-3"]


def test_sorting_active_pods():
    pods = [
        pod("unscheduled", "", "Pending"),
        pod("scheduledButPending", "bar", "Pending"),
        pod("unknownPhase", "foo", "Unknown"),
        pod("runningButNotReady", "foo", "Running"),
        pod("runningNoLastTransitionTime", "foo", ready=True, restarts=(3, 0)),
        pod("runningWithLastTransitionTime", "foo", ready=True, ready_since=NOW, restarts=(3, 0)),
        pod("runningLongerTime", "foo", ready=True, ready_since=THEN, restarts=(3, 0)),
        pod("lowerContainerRestartCount", "foo", ready=True, ready_since=THEN, restarts=(2, 1), created=NOW),
        pod("oldest", "foo", ready=True, ready_since=THEN, restarts=(2, 1), created=THEN),
    ]
    want = [p["metadata"]["name"] for p in pods]
    rng = random.Random(7)
    for _ in range(20):
        shuffled = pods[:]
        rng.shuffle(shuffled)
        assert [p["metadata"]["name"] for p in sort_active_pods(shuffled)] == want


H = 3600.0
UNSCHEDULED = pod("unscheduled", "", "Pending")
SCHEDULED_PENDING = pod("pending", "node", "Pending")
UNKNOWN_PHASE = pod("unknown-phase", "node", "Unknown")
RUNNING_NOT_READY = pod("not-ready", "node", "Running")
READY_NO_LTT = pod("ready-no-last-transition-time", "node", ready=True, restarts=(0,))
READY_NOW = pod("ready-now", "node", ready=True, ready_since=NOW, created=NOW, restarts=(0,))
READY_THEN = pod("ready-then", "node", ready=True, ready_since=THEN, created=THEN, restarts=(0,))
READY_NOW_HIGH_RESTARTS = pod("ready-high-restarts", "node", ready=True, ready_since=NOW, created=NOW, restarts=(9001,))
READY_NOW_CREATED_THEN = pod("ready-now-created-then", "node", ready=True, ready_since=NOW, created=THEN, restarts=(0,))
LOW_COST = pod("low-deletion-cost", "node", ready=True, ready_since=NOW, created=THEN, restarts=(0,),
               annotations={POD_DELETION_COST_ANNOTATION: "10"})
HIGH_COST = pod("high-deletion-cost", "node", ready=True, ready_since=NOW, created=THEN, restarts=(0,),
                annotations={POD_DELETION_COST_ANNOTATION: "100"})
UNSCHEDULED_5H = pod("unscheduled-5-hours", "", "Pending", created=NOW - 5 * H)
UNSCHEDULED_8H = pod("unscheduled-10-hours", "", "Pending", created=NOW - 8 * H)
READY_2H = pod("ready-2-hours", "", ready=True, ready_since=NOW - 2 * H, created=THEN, restarts=(0,))
READY_5H = pod("ready-5-hours", "", ready=True, ready_since=NOW - 5 * H, created=THEN, restarts=(0,))
READY_8H = pod("ready-10-hours", "", ready=True, ready_since=NOW - 8 * H, created=THEN, restarts=(0,))


@pytest.mark.parametrize("p1,p2", [
    (UNSCHEDULED, None), (SCHEDULED_PENDING, None), (UNKNOWN_PHASE, None), (RUNNING_NOT_READY, None),
    (READY_NOW_CREATED_THEN, None), (READY_NOW, None), (READY_THEN, None), (READY_NOW_HIGH_RESTARTS, None),
    (UNSCHEDULED_5H, UNSCHEDULED_8H),  # same log2 bucket of age
    (READY_5H, READY_8H),
])
def test_sorting_active_pods_with_ranks_equality(p1, p2):
    p2 = p2 or p1
    assert not active_pods_with_ranks_less(p1, 1, p2, 1, NOW)
    assert not active_pods_with_ranks_less(p2, 1, p1, 1, NOW)


@pytest.mark.parametrize("lesser,lrank,greater,grank", [
    (UNSCHEDULED, 1, SCHEDULED_PENDING, 2),
    (UNSCHEDULED, 2, SCHEDULED_PENDING, 1),
    (SCHEDULED_PENDING, 1, UNKNOWN_PHASE, 2),
    (UNKNOWN_PHASE, 1, RUNNING_NOT_READY, 2),
    (RUNNING_NOT_READY, 1, READY_NO_LTT, 1),
    (READY_NO_LTT, 1, READY_NOW, 1),
    (READY_NOW, 2, READY_NO_LTT, 1),
    (READY_NOW, 1, READY_THEN, 1),
    (READY_NOW, 2, READY_THEN, 1),
    (READY_NOW_HIGH_RESTARTS, 1, READY_NOW, 1),
    (READY_NOW, 2, READY_NOW_HIGH_RESTARTS, 1),
    (READY_NOW, 1, READY_NOW_CREATED_THEN, 1),
    (READY_NOW_CREATED_THEN, 2, READY_NOW, 1),
    (LOW_COST, 2, HIGH_COST, 1),
    (READY_2H, 1, READY_5H, 1),
])
def test_sorting_active_pods_with_ranks_inequality(lesser, lrank, greater, grank):
    assert active_pods_with_ranks_less(lesser, lrank, greater, grank, NOW)
    assert not active_pods_with_ranks_less(greater, grank, lesser, lrank, NOW)


def test_ranks_count_active_related_pods_per_node():
    a1, a2, b1 = pod("a1", "a"), pod("a2", "a"), pod("b1", "b")
    gone = pod("a3", "a", phase="Failed")
    assert get_pods_ranked_by_related_pods_on_same_node([a1, b1], [a1, a2, b1, gone]) == [2, 1]


def test_active_replica_sets_filtering():
    rs = lambda name, n: {"metadata": {"name": name}, "spec": {"replicas": n}}  # noqa: E731
    got = filter_active_replica_sets([rs("zero", 0), None, rs("foo", 1), rs("bar", 2)])
    assert [r["metadata"]["name"] for r in got] == ["foo", "bar"]


def test_replica_sets_by_size_tie_breaks():
    def rs(name, n, t):
        return {"metadata": {"name": name, "creationTimestamp": ts(t)}, "spec": {"replicas": n}}

    rss = [rs("old", 2, 0), rs("new", 2, 10), rs("big", 5, 5)]
    assert [r["metadata"]["name"] for r in replica_sets_by_size_older(rss)] == ["big", "old", "new"]
    assert [r["metadata"]["name"] for r in replica_sets_by_size_newer(rss)] == ["big", "new", "old"]


def test_compute_hash():
    template: dict = {}
    assert compute_hash(template, 1) != compute_hash(template, 2)
    assert compute_hash(template, None) != compute_hash(template, 2**31 - 1)
    t2 = {"spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}
    assert compute_hash(t2) != compute_hash({"spec": {"containers": [{"name": "c", "image": "nginx:1.26"}]}})
    assert set(compute_hash(t2)) <= set("456789bcdf")


def test_safe_encode_string_maps_digits_like_upstream():
    # '0' is rune 48, 48 % 27 = 21 -> alphanums[21] = '4'
    assert safe_encode_string("0") == "4"
    assert safe_encode_string("9") == "f"


def test_controller_expectations_lifecycle():
    now = [0.0]
    e = ControllerExpectations(lambda: now[0])
    key = "default/rs"
    e.set_expectations(key, 2, 1)
    assert not e.satisfied_expectations(key)
    e.creation_observed(key)
    e.creation_observed(key)
    assert not e.satisfied_expectations(key)  # one deletion still expected
    e.deletion_observed(key)
    assert e.satisfied_expectations(key)
    e.expect_creations(key, 1)
    now[0] = EXPECTATIONS_TIMEOUT_SECONDS  # not yet expired (strictly greater)
    assert not e.satisfied_expectations(key)
    now[0] = EXPECTATIONS_TIMEOUT_SECONDS + 0.5
    assert e.satisfied_expectations(key)
    e.delete_expectations(key)
    assert e.get_expectations(key) is None


def test_uid_tracking_expectations_count_each_pod_once():
    e = UIDTrackingControllerExpectations(lambda: 0.0)
    key = "default/rs"
    e.expect_deletions(key, ["default/p1", "default/p2"])
    e.deletion_observed(key, "default/p1")  # the update that sets deletionTimestamp
    e.deletion_observed(key, "default/p1")  # then the DELETE
    e.deletion_observed(key, "default/other")
    assert not e.satisfied_expectations(key)
    e.deletion_observed(key, "default/p2")
    assert e.satisfied_expectations(key)


@pytest.mark.parametrize("count,fail_after,want_calls,want_ok", [
    (10, None, 10, 10),  # 1 + 2 + 4 + 3
    (10, 0, 1, 0),       # the first batch of 1 fails: nothing more is tried
    (10, 2, 3, 2),       # batch 1 ok, batch 2 half fails: stop
    (10, 3, 7, 3),       # batch 4 fails: 7 calls
    (0, None, 0, 0),
])
def test_slow_start_batch(count, fail_after, want_calls, want_ok):
    calls = []

    def fn():
        calls.append(1)
        if fail_after is not None and len(calls) > fail_after:
            return ApiError({"code": 500, "message": "boom"})
        return None

    ok, err = slow_start_batch(count, 1, fn)
    assert (len(calls), ok, err is None) == (want_calls, want_ok, fail_after is None)


def test_is_pod_available_needs_min_ready_seconds_strictly_passed():
    p = pod("p", "n", ready=True, ready_since=100.0)
    assert is_pod_available(p, 0, 100.0)
    assert not is_pod_available(p, 10, 110.0)
    assert is_pod_available(p, 10, 110.5)
    assert not is_pod_available(pod("q", "n"), 0, 100.0)


def test_get_pod_from_template_copies_labels_annotations_and_owner():
    rs = {"metadata": {"name": "web-abc", "uid": "u-1"}}
    t = {"metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}, "finalizers": ["f"]},
         "spec": {"containers": [{"name": "c", "image": "i"}]}}
    p = get_pod_from_template(t, rs, new_controller_ref(rs, "apps/v1", "ReplicaSet"))
    assert p["metadata"]["generateName"] == "web-abc-"
    assert p["metadata"]["labels"] == {"app": "web"} and p["metadata"]["annotations"] == {"a": "b"}
    ref = p["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["uid"], ref["controller"], ref["blockOwnerDeletion"]) == ("ReplicaSet", "u-1", True, True)
    p["spec"]["containers"][0]["image"] = "changed"
    assert t["spec"]["containers"][0]["image"] == "i"


class _RecordingClient:
    def __init__(self):
        self.patches = []

    def patch(self, resource, name, body, namespace=None):
        self.patches.append((resource, name, body))
        return body


def test_controller_ref_manager_adopts_orphans_and_releases_strays():
    from kubenotes.api.selectors import LabelSelector

    owner = {"metadata": {"name": "rs", "namespace": "default", "uid": "owner"}}
    other = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "x", "uid": "other", "controller": True}
    mine = new_controller_ref(owner, "apps/v1", "ReplicaSet")

    def p(name, labels, refs=None):
        return {"metadata": {"name": name, "namespace": "default", "uid": name, "labels": labels,
                             **({"ownerReferences": refs} if refs else {})}}

    orphan = p("orphan", {"app": "web"})
    owned = p("owned", {"app": "web"}, [mine])
    stray = p("stray", {"app": "db"}, [mine])
    foreign = p("foreign", {"app": "web"}, [other])
    dying = p("dying", {"app": "web"})
    dying["metadata"]["deletionTimestamp"] = ts(1.0)
    c = _RecordingClient()
    cm = ControllerRefManager(c, owner, LabelSelector.from_set({"app": "web"}), "apps/v1", "ReplicaSet", "pods")
    got = cm.claim_pods([orphan, owned, stray, foreign, dying])
    assert [x["metadata"]["name"] for x in got] == ["orphan", "owned"]
    assert [(n, body["metadata"]["ownerReferences"]) for _, n, body in c.patches] == [
        ("orphan", [mine]), ("stray", None)]


def _daemonset_lister(*objs: dict) -> Lister:
    ix = Indexer()
    for o in objs:
        ix.add(o)
    return Lister(ix, resource_for("daemonsets"))


@pytest.mark.parametrize("ref, want", [
    ({"kind": "DaemonSet", "name": "agent", "uid": "u1", "controller": True}, "u1"),
    ({"kind": "StatefulSet", "name": "agent", "uid": "u1", "controller": True}, None),   # another kind
    ({"kind": "DaemonSet", "name": "other", "uid": "u1", "controller": True}, None),     # not cached
    ({"kind": "DaemonSet", "name": "agent", "uid": "u0", "controller": True}, None),     # recreated owner
    (None, None),                                                                        # an orphan
])
def test_resolve_controller_ref(ref, want):
    lister = _daemonset_lister({"metadata": {"namespace": "kube-system", "name": "agent", "uid": "u1"}})
    got = resolve_controller_ref(lister, "kube-system", ref, "DaemonSet")
    assert (got["metadata"]["uid"] if got is not None else None) == want


def test_resolve_controller_ref_stays_in_the_objects_namespace():
    lister = _daemonset_lister({"metadata": {"namespace": "kube-system", "name": "agent", "uid": "u1"}})
    ref = {"kind": "DaemonSet", "name": "agent", "uid": "u1", "controller": True}
    assert resolve_controller_ref(lister, "default", ref, "DaemonSet") is None
