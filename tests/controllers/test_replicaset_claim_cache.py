"""The ReplicaSet controller's indexed, cached claim gives what upstream's full scan gives.

Upstream's ``syncReplicaSet`` lists every pod of the namespace, filters the active
ones (``FilterActivePods``), claims them (``ClaimPods``: adopt matching orphans,
release owned pods that stopped matching, ignore pods another controller owns)
and counts the status (``calculateStatus``). The model reads only this
ReplicaSet's pods and the orphans from an informer index
(:func:`~kubenotes.controllers.controller_utils.owned_or_orphaned`), keeps what it
derives from each pod version (``ReplicaSetController.pod_verdicts``) and skips
the claim when every active pod is already its own and matching. These tests
check, over generated namespaces and successive pod versions, that the claimed
pods, the adopt/release patches and the status are the same as the full scan's,
and that the Indexer's kept-sorted index lists equal a fresh sort.
"""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from kubenotes.client.informer import NAMESPACE_INDEX, Indexer
from kubenotes.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    ControllerRefManager,
    controller_uid_index,
    filter_active_pods,
    owned_or_orphaned,
    selector_of,
)
from kubenotes.controllers.replicaset import ReplicaSetController, calculate_status

NOW = 100.0
RS_UID = "rs-uid"
RS = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
      "metadata": {"name": "web", "namespace": "default", "uid": RS_UID, "generation": 1},
      "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
               "template": {"metadata": {"labels": {"app": "web", "tier": "front"}}, "spec": {}}}}


class _Client:
    """Records the adopt/release patches a claim sends."""

    def __init__(self) -> None:
        self.patches: list[tuple[str, dict]] = []

    def get(self, resource: str, name: str, namespace: str | None = None) -> dict:
        return RS

    def patch(self, resource: str, name: str, body: dict, namespace: str | None = None) -> dict:
        self.patches.append((name, body))
        return body


def _controller() -> ReplicaSetController:
    ctl = object.__new__(ReplicaSetController)  # only the sync's pod path: no informers, no clock process
    ctl._verdicts = {}
    ctl.client = _Client()
    ctl.env = SimpleNamespace(now=NOW)
    return ctl


_OWNERS = st.sampled_from([None, RS_UID, "other-uid"])
_LABELS = st.sampled_from([{}, {"app": "web"}, {"app": "web", "tier": "front"}, {"app": "db"},
                           {"app": "web", "tier": "back"}])
_PHASES = st.sampled_from(["Pending", "Running", "Succeeded", "Failed"])


@st.composite
def _pod_version(draw: st.DrawFn, name: str, namespace: str, version: int) -> dict:
    md: dict = {"name": name, "namespace": namespace,
                "uid": f"uid-{name}", "resourceVersion": str(version), "labels": draw(_LABELS)}
    owner = draw(_OWNERS)
    if owner is not None:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "x", "uid": owner,
                                  "controller": True}]
    if draw(st.booleans()) and draw(st.booleans()):
        md["deletionTimestamp"] = "2025-08-27T00:00:50Z"
    ready = draw(st.sampled_from([None, "True", "False"]))
    status: dict = {"phase": draw(_PHASES)}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready, "lastTransitionTime": "2025-08-27T00:00:10Z"}]
    return {"metadata": md, "status": status}


@st.composite
def _histories(draw: st.DrawFn) -> list[list[dict]]:
    """Successive states of a namespace: each round replaces some pods by new versions (as watch updates do)."""
    names = [f"p{i:02d}" for i in range(draw(st.integers(0, 12)))]
    namespaces = {n: draw(st.sampled_from(["default", "default", "other"])) for n in names}
    state = {n: draw(_pod_version(n, namespaces[n], 1)) for n in names}
    rounds = [list(state.values())]
    for r in range(draw(st.integers(0, 3))):
        for n in draw(st.lists(st.sampled_from(names), max_size=4)) if names else []:
            state[n] = draw(_pod_version(n, namespaces[n], r + 2))
        rounds.append(list(state.values()))
    return rounds


def _full_scan(rs: dict, pods: list[dict]) -> tuple[list[str], list, dict]:
    """Upstream's path: every pod of the namespace, FilterActivePods, ClaimPods, calculateStatus."""
    client = _Client()
    ns_pods = sorted((p for p in pods if p["metadata"]["namespace"] == "default"), key=lambda p: p["metadata"]["name"])
    cm = ControllerRefManager(client, rs, selector_of(rs), "apps/v1", "ReplicaSet", "pods", lambda: None)
    claimed = cm.claim(filter_active_pods(ns_pods))
    return [p["metadata"]["name"] for p in claimed], client.patches, calculate_status(rs, claimed, None, NOW, "")


def _indexed(ctl: ReplicaSetController, ix: Indexer, rs: dict) -> tuple[list[str], list, dict]:
    ctl.client = _Client()
    pods = owned_or_orphaned(SimpleNamespace(indexer=ix), "default", RS_UID)
    claimed, counts = ctl.active_claimed_pods(rs, selector_of(rs), pods)
    return ([p["metadata"]["name"] for p in claimed], ctl.client.patches,
            calculate_status(rs, claimed, None, NOW, "", counts))


@settings(max_examples=100, deadline=None)
@given(_histories(), st.booleans())
def test_indexed_cached_claim_equals_full_scan(rounds: list[list[dict]], min_ready: bool):
    rs = RS if not min_ready else {**RS, "spec": {**RS["spec"], "minReadySeconds": 60}}
    ctl = _controller()
    ix = Indexer({CONTROLLER_UID_INDEX: controller_uid_index})
    for pods in rounds:
        for p in pods:
            ix.update(p)
        assert _indexed(ctl, ix, rs) == _full_scan(rs, pods)
        assert _indexed(ctl, ix, rs) == _full_scan(rs, pods)  # a second sync reads the kept verdicts


def test_fast_path_when_every_active_pod_is_ours_and_matching():
    ctl = _controller()
    ix = Indexer({CONTROLLER_UID_INDEX: controller_uid_index})
    ready = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    for i in range(3):
        ix.add({"metadata": {"name": f"p{i}", "namespace": "default", "labels": {"app": "web", "tier": "front"},
                             "ownerReferences": [{"uid": RS_UID, "controller": True}]}, "status": ready})
    ix.add({"metadata": {"name": "done", "namespace": "default", "labels": {"app": "web"}},
            "status": {"phase": "Succeeded"}})   # an inactive orphan: filtered before the claim
    pods = owned_or_orphaned(SimpleNamespace(indexer=ix), "default", RS_UID)
    claimed, counts = ctl.active_claimed_pods(RS, selector_of(RS), pods)
    assert [p["metadata"]["name"] for p in claimed] == ["p0", "p1", "p2"]
    assert counts == (3, 3, 3) and ctl.client.patches == []
    # an orphan that matches must be adopted: the claim runs, and the counts are left to calculate_status
    ix.add({"metadata": {"name": "orphan", "namespace": "default", "uid": "o", "labels": {"app": "web"}},
            "status": {"phase": "Pending"}})
    pods = owned_or_orphaned(SimpleNamespace(indexer=ix), "default", RS_UID)
    claimed, counts = ctl.active_claimed_pods(RS, selector_of(RS), pods)
    assert counts is None and [name for name, _ in ctl.client.patches] == ["orphan"]
    assert [p["metadata"]["name"] for p in claimed] == ["orphan", "p0", "p1", "p2"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "delete"]), st.sampled_from("abcdefgh"),
                          st.sampled_from(["n1", "n2"]), st.sampled_from([None, "u1", "u2"])), max_size=40))
def test_indexer_sorted_index_lists_equal_a_fresh_sort(ops: list[tuple[str, str, str, str | None]]):
    ix = Indexer({CONTROLLER_UID_INDEX: controller_uid_index})
    live: dict[str, dict] = {}
    for i, (op, name, ns, owner) in enumerate(ops):
        md: dict = {"name": name, "namespace": ns}
        if owner:
            md["ownerReferences"] = [{"uid": owner, "controller": True}]
        obj = {"metadata": md}
        key = f"{ns}/{name}"
        if op == "add":
            ix.add(obj)
            live[key] = obj
        else:
            ix.delete(obj)
            live.pop(key, None)
        if i % 3 == 0:  # read some lists mid-way, so later adds and deletes update kept lists
            ix.index_keys(NAMESPACE_INDEX, "n1")
            ix.index_keys(CONTROLLER_UID_INDEX, "n1/u1")
        for index, fn in ((NAMESPACE_INDEX, lambda o: [o["metadata"]["namespace"]]),
                          (CONTROLLER_UID_INDEX, controller_uid_index)):
            for value in ("n1", "n2", "n1/", "n2/", "n1/u1", "n1/u2", "n2/u1"):
                want = sorted(k for k, o in live.items() if value in fn(o))
                assert ix.index_keys(index, value) == want
                assert ix.by_index(index, value) == [live[k] for k in want]
