"""Helpers the workload controllers share: expectations, pod ranking, adoption, hashing, slow start.

Mirrors the Go package ``k8s.io/kubernetes/pkg/controller`` (``controller_utils.go`` and
``controller_ref_manager.go``). The pod-status helpers of ``pkg/api/v1/pod/util.go``
(``is_pod_ready``, ``is_pod_available``, ``pod_ready_condition``) live in
:mod:`kubenotes.controllers.podutil` and are re-exported here. Objects are the JSON-shaped dicts the API returns;
times are virtual seconds (``env.now``) or the API's RFC 3339 strings.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/controller_utils.go
kubernetes/kubernetes@v1.34.0 pkg/controller/controller_ref_manager.go
kubernetes/kubernetes@v1.34.0 pkg/api/v1/pod/util.go (IsPodReady, IsPodAvailable)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/rand/rand.go (SafeEncodeString)
"""

from __future__ import annotations

import functools
import heapq
import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from kubenotes.api.selectors import LabelSelector
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.meta import get_controller_of, new_controller_ref
from kubenotes.api.podutil import is_pod_ready, pod_ready_condition
from kubenotes.controllers.podutil import is_pod_available, pod_ready_since_seconds, timestamp_seconds

__all__ = [
    "EXPECTATIONS_TIMEOUT_SECONDS", "SLOW_START_INITIAL_BATCH_SIZE", "POD_DELETION_COST_ANNOTATION",
    "DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY",
    "FAILED_CREATE_POD_REASON", "SUCCESSFUL_CREATE_POD_REASON", "FAILED_DELETE_POD_REASON",
    "SUCCESSFUL_DELETE_POD_REASON",
    "ControlleeExpectations", "ControllerExpectations", "UIDTrackingControllerExpectations",
    "is_pod_ready", "pod_ready_condition", "is_pod_available", "is_pod_active", "is_pod_terminating",
    "filter_active_pods", "filter_terminating_pods", "pod_key", "max_container_restarts",
    "active_pods_less", "active_pods_with_ranks_less", "sort_active_pods", "sort_active_pods_with_ranks",
    "get_pods_ranked_by_related_pods_on_same_node", "logarithmic_rank_diff",
    "slow_start_batch", "get_pod_from_template", "get_pods_prefix",
    "resolve_controller_ref",
    "ControllerRefManager", "filter_active_replica_sets", "replica_sets_by_creation_timestamp",
    "replica_sets_by_size_older", "replica_sets_by_size_newer", "compute_hash", "safe_encode_string",
    "fnv32a", "deep_hash_text", "timestamp_seconds", "selector_of", "CONTROLLER_UID_INDEX", "controller_uid_index",
    "add_controller_uid_index", "owned_or_orphaned",
]

#: ``ExpectationsTimeout``: a controller waiting on unobserved creates/deletes wakes up anyway after 5 min.
EXPECTATIONS_TIMEOUT_SECONDS = 5 * 60
#: ``SlowStartInitialBatchSize``: the first batch of creates in :func:`slow_start_batch`.
SLOW_START_INITIAL_BATCH_SIZE = 1
#: ``core.PodDeletionCost`` annotation, read when ranking pods to delete (PodDeletionCost, beta, on).
POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
#: ``apps.DefaultDeploymentUniqueLabelKey``.
DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = "pod-template-hash"

#: Event reasons of ``RealPodControl`` (on the owning ReplicaSet or ReplicationController).
FAILED_CREATE_POD_REASON = "FailedCreate"
SUCCESSFUL_CREATE_POD_REASON = "SuccessfulCreate"
FAILED_DELETE_POD_REASON = "FailedDelete"
SUCCESSFUL_DELETE_POD_REASON = "SuccessfulDelete"

_INT32_MAX = 2**31 - 1


def selector_of(obj: dict) -> LabelSelector:
    """The compiled ``spec.selector`` of a ReplicaSet/Deployment (a map for a ReplicationController).

    Examples
    --------
    >>> str(selector_of({"kind": "ReplicationController", "spec": {"selector": {"app": "web"}}}))
    'app=web'
    """
    sel = (obj.get("spec") or {}).get("selector")
    if obj.get("kind") == "ReplicationController":
        # the RC -> ReplicaSet conversion: a nil map selects nothing, an empty one everything
        return LabelSelector.nothing() if sel is None else LabelSelector.from_set(sel)
    return LabelSelector.from_api(sel)


# --------------------------------------------------------------------------- cache index

#: Informer index of objects by ``<namespace>/<controller uid>`` (``<namespace>/`` for orphans).
CONTROLLER_UID_INDEX = "kubenotes.io/controller-uid"


def controller_uid_index(obj: dict) -> list[str]:
    """Index function for :data:`CONTROLLER_UID_INDEX`.

    Examples
    --------
    >>> controller_uid_index({"metadata": {"namespace": "ns", "ownerReferences": [{"uid": "u", "controller": True}]}})
    ['ns/u']
    """
    md = obj.get("metadata") or {}
    ref = get_controller_of(obj)
    return [f"{md.get('namespace', '')}/{ref.get('uid', '') if ref else ''}"]


def add_controller_uid_index(informer: Any) -> None:
    """Add :data:`CONTROLLER_UID_INDEX` to a shared informer (once; adding it again is harmless)."""
    if CONTROLLER_UID_INDEX not in getattr(informer.indexer, "_indexers", {}):
        informer.add_indexers({CONTROLLER_UID_INDEX: controller_uid_index})


def owned_or_orphaned(informer: Any, namespace: str, uid: str) -> list[dict]:
    """Cached objects in ``namespace`` controlled by ``uid`` or by nobody, in key order.

    What a claim needs: objects controlled by someone else are never claimed
    (``ClaimObject`` ignores them), so the model skips them instead of
    listing the whole namespace as upstream's controllers do.
    """
    ix = informer.indexer
    orphans = ix.index_keys(CONTROLLER_UID_INDEX, f"{namespace}/")
    if not uid:
        return [ix.get_by_key(k) for k in orphans]
    if not orphans:
        return ix.by_index(CONTROLLER_UID_INDEX, f"{namespace}/{uid}")
    # both lists are in key order and disjoint (an object has one controller): merge them
    owned = ix.index_keys(CONTROLLER_UID_INDEX, f"{namespace}/{uid}")
    return [ix.get_by_key(k) for k in heapq.merge(owned, orphans)]


# --------------------------------------------------------------------------- expectations


@dataclass
class ControlleeExpectations:
    """How many creates (``add``) and deletes (``delete``) one controller still waits to observe.

    Attributes
    ----------
    add, delete : int
        Outstanding creates and deletes (fulfilled when both are <= 0).
    key : str
        The controller's ``namespace/name``.
    timestamp : float
        Virtual time the expectations were set (they expire after :data:`EXPECTATIONS_TIMEOUT_SECONDS`).
    """

    add: int
    delete: int
    key: str
    timestamp: float

    def fulfilled(self) -> bool:
        """``Fulfilled``: every expected create and delete was observed."""
        return self.add <= 0 and self.delete <= 0


class ControllerExpectations:
    """``ControllerExpectations``: a controller does not act again until it has seen its own writes.

    After creating ``n`` pods a ReplicaSet's key expects ``n`` creations; the pod
    informer's add handler lowers the count. Until it reaches 0 (or 5 minutes
    pass) :meth:`satisfied_expectations` is False and the sync only updates
    status, so a stale informer cache cannot make the controller create the
    same pods twice.

    Parameters
    ----------
    clock : callable returning float
        The virtual clock (``lambda: env.now``).

    Examples
    --------
    >>> now = [0.0]
    >>> e = ControllerExpectations(lambda: now[0])
    >>> e.satisfied_expectations("default/web")        # never set: sync
    True
    >>> e.expect_creations("default/web", 2); e.creation_observed("default/web")
    >>> e.satisfied_expectations("default/web")
    False
    >>> now[0] = 301.0; e.satisfied_expectations("default/web")  # expired
    True

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/controller_utils.go (ControllerExpectations)
    """

    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self._store: dict[str, ControlleeExpectations] = {}

    def get_expectations(self, controller_key: str) -> ControlleeExpectations | None:
        return self._store.get(controller_key)

    def delete_expectations(self, controller_key: str) -> None:
        self._store.pop(controller_key, None)

    def satisfied_expectations(self, controller_key: str) -> bool:
        """True when the controller may sync: no expectations, fulfilled ones, or expired ones."""
        exp = self._store.get(controller_key)
        if exp is None:
            return True
        if exp.fulfilled():
            return True
        return self.clock() - exp.timestamp > EXPECTATIONS_TIMEOUT_SECONDS

    def set_expectations(self, controller_key: str, add: int, delete: int) -> None:
        self._store[controller_key] = ControlleeExpectations(add, delete, controller_key, float(self.clock()))

    def expect_creations(self, controller_key: str, adds: int) -> None:
        self.set_expectations(controller_key, adds, 0)

    def expect_deletions(self, controller_key: str, dels: int) -> None:
        self.set_expectations(controller_key, 0, dels)

    def lower_expectations(self, controller_key: str, add: int, delete: int) -> None:
        exp = self._store.get(controller_key)
        if exp is not None:
            exp.add -= add
            exp.delete -= delete

    def raise_expectations(self, controller_key: str, add: int, delete: int) -> None:
        exp = self._store.get(controller_key)
        if exp is not None:
            exp.add += add
            exp.delete += delete

    def creation_observed(self, controller_key: str) -> None:
        self.lower_expectations(controller_key, 1, 0)

    def deletion_observed(self, controller_key: str) -> None:
        self.lower_expectations(controller_key, 0, 1)


class UIDTrackingControllerExpectations(ControllerExpectations):
    """Expectations that remember *which* pods are expected to go (``UIDTrackingControllerExpectations``).

    A graceful delete is seen twice (the update setting ``deletionTimestamp``,
    then the DELETE); tracking pod keys counts each expected deletion once.

    Examples
    --------
    >>> e = UIDTrackingControllerExpectations(lambda: 0.0)
    >>> e.expect_deletions("ns/rs", ["ns/p1", "ns/p2"])
    >>> e.deletion_observed("ns/rs", "ns/p1"); e.deletion_observed("ns/rs", "ns/p1")
    >>> e.get_expectations("ns/rs").delete, sorted(e.get_uids("ns/rs"))
    (1, ['ns/p2'])
    """

    def __init__(self, clock: Callable[[], float]):
        super().__init__(clock)
        self._uids: dict[str, set[str]] = {}

    def get_uids(self, controller_key: str) -> set[str] | None:
        return self._uids.get(controller_key)

    def expect_deletions(self, controller_key: str, deleted_keys: Iterable[str]) -> None:  # type: ignore[override]
        keys = set(deleted_keys)
        self._uids[controller_key] = keys
        super().expect_deletions(controller_key, len(keys))

    def deletion_observed(self, controller_key: str, delete_key: str | None = None) -> None:  # type: ignore[override]
        uids = self._uids.get(controller_key)
        if uids is not None and delete_key in uids:
            super().deletion_observed(controller_key)
            uids.discard(delete_key)

    def delete_expectations(self, controller_key: str) -> None:
        super().delete_expectations(controller_key)
        self._uids.pop(controller_key, None)


# --------------------------------------------------------------------------- pod helpers


def is_pod_active(pod: dict) -> bool:
    """``IsPodActive``: not Succeeded, not Failed, and not being deleted."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp")


def is_pod_terminating(pod: dict) -> bool:
    """``IsPodTerminating``: being deleted but not yet in a terminal phase."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and bool(pod["metadata"].get("deletionTimestamp"))


def filter_active_pods(pods: Iterable[dict]) -> list[dict]:
    """``FilterActivePods``."""
    return [p for p in pods if is_pod_active(p)]


def filter_terminating_pods(pods: Iterable[dict]) -> list[dict]:
    """``FilterTerminatingPods``."""
    return [p for p in pods if is_pod_terminating(p)]


def pod_key(pod: dict) -> str:
    """``PodKey``: ``namespace/name``."""
    md = pod["metadata"]
    return f"{md.get('namespace', '')}/{md['name']}"


def max_container_restarts(pod: dict) -> int:
    """``maxContainerRestarts``: the highest ``restartCount`` among the pod's containers."""
    return max((int(c.get("restartCount") or 0) for c in (pod.get("status") or {}).get("containerStatuses") or ()),
               default=0)


_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


def _phase_ord(pod: dict) -> int:
    # podPhaseToOrdinal: a missing key (Succeeded/Failed/"") is 0, as a Go map lookup gives.
    return _PHASE_ORDINAL.get((pod.get("status") or {}).get("phase") or "", 0)


def _after_or_zero(t1: float | None, t2: float | None) -> bool:
    """``afterOrZero``: t1 after t2, a zero (missing) time counting as after any other."""
    if t1 is None or t2 is None:
        return t1 is None
    return t1 > t2


def _deletion_cost(pod: dict) -> int:
    v = (pod["metadata"].get("annotations") or {}).get(POD_DELETION_COST_ANNOTATION)
    if v is None:
        return 0
    try:
        n = int(v)
    except ValueError:
        return 0
    return n if -(2**31) <= n <= _INT32_MAX else 0


def logarithmic_rank_diff(t1: float, t2: float, now: float) -> int:
    """``logarithmicRankDiff``: compare two times by ``floor(log2(now - t))``, durations in nanoseconds.

    Examples
    --------
    >>> logarithmic_rank_diff(99.0, 98.95, 100.0), logarithmic_rank_diff(90.0, 99.0, 100.0)
    (0, 4)
    """
    d1, d2 = (now - t1) * 1e9, (now - t2) * 1e9
    r1 = int(math.log2(d1)) if d1 > 0 else -1
    r2 = int(math.log2(d2)) if d2 > 0 else -1
    return r1 - r2


def _uid(pod: dict) -> str:
    return pod["metadata"].get("uid", "")


def active_pods_less(p1: dict, p2: dict) -> bool:
    """``ActivePods.Less``: True when ``p1`` should be deleted before ``p2`` (no ranks, no log scale)."""
    n1, n2 = (p1.get("spec") or {}).get("nodeName") or "", (p2.get("spec") or {}).get("nodeName") or ""
    if n1 != n2 and (not n1 or not n2):
        return not n1
    if _phase_ord(p1) != _phase_ord(p2):
        return _phase_ord(p1) < _phase_ord(p2)
    r1, r2 = is_pod_ready(p1), is_pod_ready(p2)
    if r1 != r2:
        return not r1
    if r1 and r2:
        t1, t2 = pod_ready_since_seconds(p1), pod_ready_since_seconds(p2)
        if t1 != t2:
            return _after_or_zero(t1, t2)
    if max_container_restarts(p1) != max_container_restarts(p2):
        return max_container_restarts(p1) > max_container_restarts(p2)
    c1, c2 = timestamp_seconds(p1["metadata"].get("creationTimestamp")), \
        timestamp_seconds(p2["metadata"].get("creationTimestamp"))
    if c1 != c2:
        return _after_or_zero(c1, c2)
    return False


def active_pods_with_ranks_less(p1: dict, rank1: int, p2: dict, rank2: int, now: float | None) -> bool:
    """``ActivePodsWithRanks.Less``: True when ``p1`` should be deleted before ``p2``.

    Rules in turn: unassigned before assigned; Pending before Unknown before
    Running; not ready before ready; lower ``pod-deletion-cost`` first; higher
    rank (more related pods on the same node) first; ready for a shorter time
    first; more container restarts first; newer first. Ready and creation
    times are compared on a log2 scale of their age (LogarithmicScaleDown),
    ties in the same bucket broken by UID.

    Parameters
    ----------
    p1, p2 : dict
        Pods.
    rank1, rank2 : int
        Their ranks (:func:`get_pods_ranked_by_related_pods_on_same_node`).
    now : float or None
        Virtual seconds for the logarithmic comparison; None compares times exactly.

    Examples
    --------
    >>> unassigned = {"metadata": {"name": "a"}, "spec": {}, "status": {"phase": "Pending"}}
    >>> running = {"metadata": {"name": "b"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}
    >>> active_pods_with_ranks_less(unassigned, 0, running, 0, None)
    True
    """
    n1, n2 = (p1.get("spec") or {}).get("nodeName") or "", (p2.get("spec") or {}).get("nodeName") or ""
    if n1 != n2 and (not n1 or not n2):
        return not n1
    if _phase_ord(p1) != _phase_ord(p2):
        return _phase_ord(p1) < _phase_ord(p2)
    r1, r2 = is_pod_ready(p1), is_pod_ready(p2)
    if r1 != r2:
        return not r1
    c1, c2 = _deletion_cost(p1), _deletion_cost(p2)
    if c1 != c2:
        return c1 < c2
    if rank1 != rank2:
        return rank1 > rank2
    if r1 and r2:
        t1, t2 = pod_ready_since_seconds(p1), pod_ready_since_seconds(p2)
        if t1 != t2:
            if now is None or t1 is None or t2 is None:
                return _after_or_zero(t1, t2)
            diff = logarithmic_rank_diff(t1, t2, now)
            if diff == 0:
                return _uid(p1) < _uid(p2)
            return diff < 0
    if max_container_restarts(p1) != max_container_restarts(p2):
        return max_container_restarts(p1) > max_container_restarts(p2)
    t1 = timestamp_seconds(p1["metadata"].get("creationTimestamp"))
    t2 = timestamp_seconds(p2["metadata"].get("creationTimestamp"))
    if t1 != t2:
        if now is None or t1 is None or t2 is None:
            return _after_or_zero(t1, t2)
        diff = logarithmic_rank_diff(t1, t2, now)
        if diff == 0:
            return _uid(p1) < _uid(p2)
        return diff < 0
    return False


def _cmp_from_less(less: Callable[[Any, Any], bool]) -> Callable[[Any, Any], int]:
    def cmp(a: Any, b: Any) -> int:
        if less(a, b):
            return -1
        if less(b, a):
            return 1
        return 0

    return cmp


def sort_active_pods(pods: Sequence[dict]) -> list[dict]:
    """Pods in ``ActivePods`` order: the ones to delete first come first."""
    return sorted(pods, key=functools.cmp_to_key(_cmp_from_less(active_pods_less)))


def sort_active_pods_with_ranks(pods: Sequence[dict], ranks: Sequence[int], now: float | None) -> list[dict]:
    """Pods in ``ActivePodsWithRanks`` order (see :func:`active_pods_with_ranks_less`).

    Notes
    -----
    Python's sort is stable where Go's ``sort.Sort`` is not: pods equal under
    every rule keep their input order here.
    """
    pairs = list(zip(pods, ranks))
    cmp = _cmp_from_less(lambda a, b: active_pods_with_ranks_less(a[0], a[1], b[0], b[1], now))
    return [p for p, _ in sorted(pairs, key=functools.cmp_to_key(cmp))]


def get_pods_ranked_by_related_pods_on_same_node(pods_to_rank: Sequence[dict],
                                                 related_pods: Iterable[dict]) -> list[int]:
    """``getPodsRankedByRelatedPodsOnSameNode``: each pod's rank is the number of active related pods on its node.

    Examples
    --------
    >>> mk = lambda n: {"metadata": {}, "spec": {"nodeName": n}, "status": {"phase": "Running"}}
    >>> pods = [mk("a"), mk("a"), mk("b")]
    >>> get_pods_ranked_by_related_pods_on_same_node(pods, pods)
    [2, 2, 1]
    """
    on_node: dict[str, int] = {}
    for p in related_pods:
        if is_pod_active(p):
            n = (p.get("spec") or {}).get("nodeName") or ""
            on_node[n] = on_node.get(n, 0) + 1
    return [on_node.get((p.get("spec") or {}).get("nodeName") or "", 0) for p in pods_to_rank]


# --------------------------------------------------------------------------- creating pods


def slow_start_batch(count: int, initial_batch_size: int,
                     fn: Callable[[], ApiError | None]) -> tuple[int, ApiError | None]:
    """``slowStartBatch``: call ``fn`` ``count`` times in batches of 1, 2, 4, ... stopping after a failing batch.

    Within a batch every call is made (upstream runs them concurrently); if
    any failed, the remaining batches are skipped.

    Parameters
    ----------
    count : int
    initial_batch_size : int
        :data:`SLOW_START_INITIAL_BATCH_SIZE` for the ReplicaSet controller.
    fn : callable returning ApiError or None

    Returns
    -------
    tuple of (int, ApiError or None)
        Successful calls and the first error.

    Examples
    --------
    >>> calls = []
    >>> def fn():
    ...     calls.append(1)
    ...     return ApiError({"message": "quota", "code": 403}) if len(calls) > 3 else None
    >>> ok, err = slow_start_batch(10, 1, fn)
    >>> ok, len(calls), str(err)          # batches 1, 2, then 4 with failures: 7 calls, 3 successes
    (3, 7, 'quota')
    """
    remaining = count
    successes = 0
    batch = min(remaining, initial_batch_size)
    while batch > 0:
        errors = [e for e in (fn() for _ in range(batch)) if e is not None]
        successes += batch - len(errors)
        if errors:
            return successes, errors[0]
        remaining -= batch
        batch = min(2 * batch, remaining)
    return successes, None


def get_pods_prefix(controller_name: str) -> str:
    """``getPodsPrefix``: ``<name>-`` unless that is not a valid generateName (then the bare name).

    Examples
    --------
    >>> get_pods_prefix("web-5d59d67564")
    'web-5d59d67564-'
    """
    prefix = f"{controller_name}-"
    # ValidatePodName(prefix, true): the prefix, with 5 random characters appended, must be a DNS subdomain.
    if len(prefix) > 253 - 5:
        return controller_name
    return prefix


def resolve_controller_ref(lister: Any, namespace: str, ref: dict | None, kind: str) -> dict | None:
    """``resolveControllerRef``: the cached owner a controller reference names, when it is still that owner.

    Every workload controller's event handlers map an object (a pod, a
    ReplicaSet, a Job, a ControllerRevision) to its owner this way: the
    reference must be of the controller's own ``kind``, the lister must hold
    an object of that name, and its ``uid`` must be the reference's (a
    same-named owner created after the original was deleted is a different
    owner).

    Parameters
    ----------
    lister : Lister
        The owner informer's lister (``get(namespace, name)`` returning a dict or None).
    namespace : str
        The namespace of the object holding ``ref`` (controller references never cross namespaces).
    ref : dict or None
        An ownerReference, usually :func:`get_controller_of` of the object; None resolves to None.
    kind : str
        The owner kind the caller manages (``ReplicaSet``, ``DaemonSet``, ``Job``...).

    Returns
    -------
    dict or None
        The cached owner (shared: do not mutate), or None when ``ref`` is of
        another kind, names nothing cached, or names an owner with another uid.

    Notes
    -----
    Upstream each controller has its own ``resolveControllerRef`` method
    bound to its lister and kind; here it is one function taking both.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/replicaset/replica_set.go (resolveControllerRef)
    kubernetes/kubernetes@v1.34.0 pkg/controller/daemon/daemon_controller.go (resolveControllerRef)
    kubernetes/kubernetes@v1.34.0 pkg/controller/statefulset/stateful_set.go (resolveControllerRef)

    Examples
    --------
    >>> class _Lister:
    ...     def get(self, namespace, name):
    ...         return {"metadata": {"namespace": "ns", "name": "web", "uid": "u1"}} if name == "web" else None
    >>> ref = {"kind": "DaemonSet", "name": "web", "uid": "u1", "controller": True}
    >>> resolve_controller_ref(_Lister(), "ns", ref, "DaemonSet")["metadata"]["uid"]
    'u1'
    >>> resolve_controller_ref(_Lister(), "ns", dict(ref, uid="u0"), "DaemonSet") is None   # recreated owner
    True
    >>> resolve_controller_ref(_Lister(), "ns", ref, "StatefulSet") is None                 # another kind
    True
    """
    if ref is None or ref.get("kind") != kind:
        return None
    owner = lister.get(namespace, ref.get("name", ""))
    if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
        return None
    return owner


def get_pod_from_template(template: dict, parent: dict, controller_ref: dict | None) -> dict:
    """``GetPodFromTemplate``: the Pod a controller creates (labels, annotations, finalizers, spec; generateName).

    Examples
    --------
    >>> rs = {"metadata": {"name": "web", "uid": "u1"}}
    >>> pod = get_pod_from_template({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": []}}, rs,
    ...                             new_controller_ref(rs, "apps/v1", "ReplicaSet"))
    >>> pod["metadata"]["generateName"], pod["metadata"]["ownerReferences"][0]["controller"]
    ('web-', True)
    """
    tmd = template.get("metadata") or {}
    md: dict[str, Any] = {"generateName": get_pods_prefix(parent["metadata"]["name"]),
                          "labels": dict(tmd.get("labels") or {})}
    if tmd.get("annotations"):
        md["annotations"] = dict(tmd["annotations"])
    if tmd.get("finalizers"):
        md["finalizers"] = list(tmd["finalizers"])
    if controller_ref is not None:
        md["ownerReferences"] = [dict(controller_ref)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": deep_copy(template.get("spec") or {})}


# --------------------------------------------------------------------------- adoption


class ControllerRefManager:
    """``BaseControllerRefManager`` + ``PodControllerRefManager`` / ``ReplicaSetControllerRefManager``.

    Claims the objects a controller should own: it keeps the ones it already
    controls that still match its selector, *releases* (removes its
    ownerReference from) the ones that no longer match, and *adopts* (adds a
    controller ownerReference to) orphans that match, each with a PATCH.

    Parameters
    ----------
    client : Client
        Writes the adopt/release patches.
    controller : dict
        The owner (a ReplicaSet, ReplicationController or Deployment).
    selector : LabelSelector
    api_version, kind : str
        The owner's type, for the ownerReference.
    resource : str
        What is claimed (``pods`` or ``replicasets``).
    can_adopt : callable raising ApiError, optional
        ``RecheckDeletionTimestamp``: called once before the first adoption.

    Notes
    -----
    Upstream sends a strategic merge patch that merges ``ownerReferences`` by
    ``uid`` (and a ``$patch: delete`` directive to release); the model sends
    the resulting list in a JSON merge patch, which gives the same object.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/controller_ref_manager.go
    """

    def __init__(self, client: Any, controller: dict, selector: LabelSelector, api_version: str, kind: str,
                 resource: str, can_adopt: Callable[[], None] | None = None):
        self.client = client
        self.controller = controller
        self.selector = selector
        self.api_version = api_version
        self.kind = kind
        self.resource = resource
        self._can_adopt = can_adopt
        self._can_adopt_err: ApiError | None = None
        self._can_adopt_done = False

    def can_adopt(self) -> None:
        if not self._can_adopt_done:
            self._can_adopt_done = True
            if self._can_adopt is not None:
                try:
                    self._can_adopt()
                except ApiError as e:
                    self._can_adopt_err = e
        if self._can_adopt_err is not None:
            raise self._can_adopt_err

    def claim_object(self, obj: dict, match: Callable[[dict], bool]) -> bool:
        """``ClaimObject``: True when the controller owns ``obj`` after the call.

        Raises
        ------
        ApiError
            When an adopt or release patch fails other than with 404.
        """
        cmd = self.controller["metadata"]
        ref = get_controller_of(obj)
        if ref is not None:
            if ref.get("uid") != cmd.get("uid"):
                return False  # owned by someone else
            if match(obj):
                return True
            if cmd.get("deletionTimestamp"):
                return False
            try:
                self.release(obj)
            except ApiError as e:
                if e.code in (404, 422):
                    return False
                raise
            return False
        # an orphan
        if cmd.get("deletionTimestamp") or not match(obj):
            return False
        if obj["metadata"].get("deletionTimestamp"):
            return False
        if cmd.get("namespace") and cmd.get("namespace") != obj["metadata"].get("namespace"):
            return False
        try:
            self.adopt(obj)
        except ApiError as e:
            if e.code == 404:
                return False
            raise
        return True

    def claim(self, objects: Iterable[dict], filters: Sequence[Callable[[dict], bool]] = ()) -> list[dict]:
        """``ClaimPods``/``ClaimReplicaSets``: the objects owned after adopting and releasing.

        Raises
        ------
        ApiError
            The first adopt/release error (the others are still attempted).
        """
        claimed: list[dict] = []
        first_err: ApiError | None = None

        def match(o: dict) -> bool:
            if not self.selector.matches(o["metadata"].get("labels") or {}):
                return False
            return all(f(o) for f in filters)

        for o in objects:
            try:
                if self.claim_object(o, match):
                    claimed.append(o)
            except ApiError as e:
                if first_err is None:
                    first_err = e
        if first_err is not None:
            raise first_err
        return claimed

    claim_pods = claim
    claim_replica_sets = claim

    def adopt(self, obj: dict) -> None:
        """``AdoptPod``/``AdoptReplicaSet``: add this controller as the object's controller ownerReference."""
        self.can_adopt()
        md = obj["metadata"]
        refs = [r for r in md.get("ownerReferences") or () if r.get("uid") != self.controller["metadata"]["uid"]]
        refs.append(new_controller_ref(self.controller, self.api_version, self.kind))
        self.client.patch(self.resource, md["name"], {"metadata": {"ownerReferences": refs, "uid": md["uid"]}},
                          md.get("namespace"))

    def release(self, obj: dict) -> None:
        """``ReleasePod``/``ReleaseReplicaSet``: remove this controller's ownerReference."""
        md = obj["metadata"]
        refs = [r for r in md.get("ownerReferences") or () if r.get("uid") != self.controller["metadata"]["uid"]]
        self.client.patch(self.resource, md["name"], {"metadata": {"ownerReferences": refs or None,
                                                                   "uid": md["uid"]}}, md.get("namespace"))


# --------------------------------------------------------------------------- replica sets


def _replicas(rs: dict) -> int:
    r = (rs.get("spec") or {}).get("replicas")
    return 1 if r is None else int(r)


def filter_active_replica_sets(rss: Iterable[dict | None]) -> list[dict]:
    """``FilterActiveReplicaSets``: the ones with ``spec.replicas > 0``."""
    return [rs for rs in rss if rs is not None and _replicas(rs) > 0]


def _created(rs: dict) -> float:
    t = timestamp_seconds(rs["metadata"].get("creationTimestamp"))
    return -math.inf if t is None else t


def replica_sets_by_creation_timestamp(rss: Iterable[dict]) -> list[dict]:
    """``ReplicaSetsByCreationTimestamp``: oldest first, name as tie breaker."""
    return sorted(rss, key=lambda rs: (_created(rs), rs["metadata"]["name"]))


def replica_sets_by_size_older(rss: Iterable[dict]) -> list[dict]:
    """``ReplicaSetsBySizeOlder``: largest first; equal sizes oldest first."""
    return sorted(rss, key=lambda rs: (-_replicas(rs), _created(rs), rs["metadata"]["name"]))


def replica_sets_by_size_newer(rss: Iterable[dict]) -> list[dict]:
    """``ReplicaSetsBySizeNewer``: largest first; equal sizes newest first."""
    by_new = sorted(rss, key=lambda rs: (_created(rs), rs["metadata"]["name"]), reverse=True)
    return sorted(by_new, key=lambda rs: -_replicas(rs))


# --------------------------------------------------------------------------- hashing

from kubenotes.api.rand import ALPHANUMS as _ALPHANUMS  # noqa: E402


def safe_encode_string(s: str) -> str:
    """``rand.SafeEncodeString``: map each character to a vowel-free alphabet (no "bad words").

    Examples
    --------
    >>> safe_encode_string("1234567890")
    '56789bcdf4'
    """
    return "".join(_ALPHANUMS[ord(ch) % len(_ALPHANUMS)] for ch in s)


def fnv32a(data: bytes, h: int = 0x811C9DC5) -> int:
    """FNV-1a, 32 bit (Go's ``hash/fnv.New32a``).

    Examples
    --------
    >>> hex(fnv32a(b"a"))
    '0xe40c292c'
    """
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def deep_hash_text(template: dict) -> str:
    """The text hashed for a pod template: canonical JSON (sorted keys, no spaces).

    Upstream's ``hashutil.DeepHashObject`` prints the Go struct with
    ``spew`` (every field, zero values included, in declaration order); the
    model prints the JSON object instead, so equal templates hash equal and
    different ones differ, but the value is not a real cluster's.
    """
    return json.dumps(template, sort_keys=True, separators=(",", ":"))


def compute_hash(template: dict, collision_count: int | None = None) -> str:
    """``controller.ComputeHash``: the ``pod-template-hash`` of a template and a collision count.

    FNV-1a 32 over the template's printed form, then the 8-byte little-endian
    collision count (when set; only its low 4 bytes are filled, as upstream's
    ``PutUint32`` into an 8-byte buffer), rendered as a decimal string and
    passed through :func:`safe_encode_string`.

    Parameters
    ----------
    template : dict
        A ``PodTemplateSpec`` (``metadata`` and ``spec``).
    collision_count : int, optional
        ``deployment.status.collisionCount``.

    Returns
    -------
    str
        Up to 10 characters of ``4-9bcdf`` (e.g. ``"5d59d67564"``-shaped).

    Notes
    -----
    The text hashed is :func:`deep_hash_text` (JSON), not spew's dump of the
    Go struct, so a hash differs from the one a real cluster gives the same
    template; its alphabet, length and behaviour (a new template gives a new
    hash, a collision count bump gives a new hash) are upstream's.

    Examples
    --------
    >>> t = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    >>> h = compute_hash(t); h == compute_hash(t), h != compute_hash(t, 1), set(h) <= set("456789bcdf")
    (True, True, True)
    """
    h = fnv32a(deep_hash_text(template).encode())
    if collision_count is not None:
        h = fnv32a((int(collision_count) & 0xFFFFFFFF).to_bytes(4, "little") + b"\x00" * 4, h)
    return safe_encode_string(str(h))
