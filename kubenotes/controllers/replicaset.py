"""The ReplicaSet controller: keep ``spec.replicas`` pods matching the selector, no more, no less.

Mirrors ``k8s.io/kubernetes/pkg/controller/replicaset``. A sync (``syncReplicaSet``)
lists the namespace's pods from the informer cache, drops inactive ones, claims
the rest (adopting matching orphans, releasing owned pods that stopped
matching), then, if its *expectations* are satisfied, creates the missing pods
in slow-start batches (1, 2, 4, ... at most 500 a sync) or deletes the surplus,
preferring pods early in their life (:func:`get_pods_to_delete`). It always
writes the status: ``replicas``, ``fullyLabeledReplicas``, ``readyReplicas``,
``availableReplicas`` (``minReadySeconds``), ``observedGeneration`` and the
``ReplicaFailure`` condition. The ReplicationController manager
(:mod:`kubenotes.controllers.replication`) is this class over another kind.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/replicaset/replica_set.go
kubernetes/kubernetes@v1.34.0 pkg/controller/replicaset/replica_set_utils.go
kubernetes/kubernetes@v1.34.0 pkg/controller/controller_utils.go (RealPodControl, expectations, ActivePodsWithRanks)
"""

from __future__ import annotations

from collections import Counter
from operator import itemgetter
from typing import Any

from kubenotes.api.selectors import LabelSelector
from kubenotes.apiserver.bootstrap_policy import (
    APPS_GROUP,
    EXTENSIONS_GROUP,
    LEGACY_GROUP,
    ControllerPolicy,
    events_rule,
    policy_rule,
)
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.meta import get_controller_of, new_controller_ref
from kubenotes.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    FAILED_CREATE_POD_REASON,
    FAILED_DELETE_POD_REASON,
    SLOW_START_INITIAL_BATCH_SIZE,
    SUCCESSFUL_CREATE_POD_REASON,
    SUCCESSFUL_DELETE_POD_REASON,
    ControllerRefManager,
    UIDTrackingControllerExpectations,
    add_controller_uid_index,
    get_pod_from_template,
    get_pods_ranked_by_related_pods_on_same_node,
    is_pod_active,
    owned_or_orphaned,
    pod_key,
    resolve_controller_ref,
    selector_of,
    slow_start_batch,
    sort_active_pods_with_ranks,
)
from kubenotes.api.podutil import is_pod_ready
from kubenotes.controllers.podutil import is_pod_available, unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, key_of, split_key

__all__ = ["ReplicaSetController", "BURST_REPLICAS", "STATUS_UPDATE_RETRIES", "REPLICA_FAILURE",
           "POD_ACTIVE", "POD_OURS_AND_MATCHING", "POD_FULLY_LABELED", "POD_READY",
           "get_pods_to_delete", "calculate_status", "NO_LABELS_MESSAGE", "namespace_terminating", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:replicaset-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("replicaset-controller")``, ``cmd/kube-controller-manager/app/apps.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("replicaset-controller", (
    policy_rule(("get", "list", "watch", "update"), (APPS_GROUP, EXTENSIONS_GROUP), ("replicasets",)),
    policy_rule(("update",), (APPS_GROUP, EXTENSIONS_GROUP), ("replicasets/status",)),
    policy_rule(("update",), (APPS_GROUP, EXTENSIONS_GROUP), ("replicasets/finalizers",)),
    policy_rule(("list", "watch", "patch", "create", "delete"), (LEGACY_GROUP,), ("pods",)),
    events_rule(),
))

#: Bits of :meth:`ReplicaSetController.pod_verdicts`: ``IsPodActive``; controlled by this ReplicaSet and matching
#: its selector (``ClaimObject`` keeps it); matching the template's labels; ``IsPodReady``.
POD_ACTIVE, POD_OURS_AND_MATCHING, POD_FULLY_LABELED, POD_READY = 1, 2, 4, 8

#: ``BurstReplicas``: at most this many creates or deletes in one sync.
BURST_REPLICAS = 500
#: ``statusUpdateRetries``: a failed status write is retried once after a fresh GET.
STATUS_UPDATE_RETRIES = 1
#: ``apps.ReplicaSetReplicaFailure`` (also ``v1.ReplicationControllerReplicaFailure``).
REPLICA_FAILURE = "ReplicaFailure"
#: ``RealPodControl.createPods`` refuses a template without labels with this error.
NO_LABELS_MESSAGE = "unable to create pods, no labels"
#: ``v1.NamespaceTerminatingCause``.
NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"


def namespace_terminating(err: ApiError) -> bool:
    """``apierrors.HasStatusCause(err, v1.NamespaceTerminatingCause)``."""
    return any(c.get("type") == NAMESPACE_TERMINATING_CAUSE for c in err.causes)


def get_pods_to_delete(filtered_pods: list[dict], related_pods: list[dict], diff: int,
                       now: float | None = None) -> list[dict]:
    """``getPodsToDelete``: the ``diff`` pods to delete first (all of them when ``diff`` covers every pod).

    Pods are ranked by how many related pods (pods of ReplicaSets with the same
    owner) share their node, then sorted by
    :func:`~kubenotes.controllers.controller_utils.active_pods_with_ranks_less`.

    Parameters
    ----------
    filtered_pods : list of dict
        The ReplicaSet's active pods.
    related_pods : list of dict
        Pods of every ReplicaSet with the same controller (``getIndirectlyRelatedPods``).
    diff : int
        How many to delete.
    now : float, optional
        Virtual seconds, for the logarithmic comparison of ready and creation times.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> pending = {"metadata": {"name": "p", "uid": "1"}, "spec": {"nodeName": "n"}, "status": {"phase": "Pending"}}
    >>> running = {"metadata": {"name": "r", "uid": "2"}, "spec": {"nodeName": "n"}, "status": {"phase": "Running"}}
    >>> [p["metadata"]["name"] for p in get_pods_to_delete([running, pending], [running, pending], 1)]
    ['p']
    """
    if diff < len(filtered_pods):
        ranks = get_pods_ranked_by_related_pods_on_same_node(filtered_pods, related_pods)
        filtered_pods = sort_active_pods_with_ranks(filtered_pods, ranks, now)
    return filtered_pods[:diff]


def _new_condition(ctype: str, status: str, reason: str, message: str, now: str) -> dict:
    return {"type": ctype, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}


def calculate_status(rs: dict, active_pods: list[dict], manage_replicas_err: ApiError | None, now_seconds: float,
                     now_timestamp: str, counts: tuple[int, int, int] | None = None) -> dict:
    """``calculateStatus``: the ReplicaSet status the pods give.

    Parameters
    ----------
    rs : dict
    active_pods : list of dict
        The claimed, active pods.
    manage_replicas_err : ApiError or None
        The error of this sync's creates/deletes: sets ``ReplicaFailure``
        (``FailedCreate`` when short of pods, ``FailedDelete`` when over); a
        clean sync removes it.
    now_seconds : float
    now_timestamp : str
        ``metav1.Now()`` for a new condition.
    counts : tuple of (int, int, int), optional
        ``(fullyLabeledReplicas, readyReplicas, availableReplicas)`` of
        ``active_pods`` when the caller has counted them already (the
        controller's per-pod cache); counted here otherwise.

    Returns
    -------
    dict
        The new status (``observedGeneration`` is set when written).

    Examples
    --------
    >>> rs = {"spec": {"replicas": 2, "minReadySeconds": 0, "template": {"metadata": {"labels": {"app": "a"}}}}}
    >>> ready = {"metadata": {"labels": {"app": "a"}}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    >>> st = calculate_status(rs, [ready, {"metadata": {"labels": {}}}], None, 0.0, "")
    >>> st["replicas"], st["fullyLabeledReplicas"], st["readyReplicas"], st["availableReplicas"]
    (2, 1, 1, 1)
    """
    spec = rs.get("spec") or {}
    status = deep_copy(rs.get("status") or {})
    if counts is not None:
        fully, ready, available = counts
    else:
        template_labels = LabelSelector.from_set(((spec.get("template") or {}).get("metadata") or {}).get("labels"))
        min_ready = int(spec.get("minReadySeconds") or 0)
        fully = ready = available = 0
        for p in active_pods:
            if template_labels.matches(p["metadata"].get("labels") or {}):
                fully += 1
            if is_pod_ready(p):
                ready += 1
                if is_pod_available(p, min_ready, now_seconds):
                    available += 1
    conds = list(status.get("conditions") or [])
    failure = next((c for c in conds if c.get("type") == REPLICA_FAILURE), None)
    if manage_replicas_err is not None and failure is None:
        diff = len(active_pods) - int(spec.get("replicas", 1))
        reason = FAILED_CREATE_POD_REASON if diff < 0 else FAILED_DELETE_POD_REASON if diff > 0 else ""
        conds.append(_new_condition(REPLICA_FAILURE, "True", reason, str(manage_replicas_err), now_timestamp))
    elif manage_replicas_err is None and failure is not None:
        conds = [c for c in conds if c.get("type") != REPLICA_FAILURE]
    if conds:
        status["conditions"] = conds
    else:
        status.pop("conditions", None)
    status["replicas"] = len(active_pods)
    status["fullyLabeledReplicas"] = fully
    status["readyReplicas"] = ready
    status["availableReplicas"] = available
    return status


class ReplicaSetController(Controller):
    """kube-controller-manager's ``replicaset-controller``.

    Watches ReplicaSets and Pods; :meth:`reconcile` is upstream's
    ``syncReplicaSet``. Events (on the ReplicaSet, source
    ``replicaset-controller``): ``SuccessfulCreate`` "Created pod: <name>",
    ``SuccessfulDelete`` "Deleted pod: <name>", and the warnings
    ``FailedCreate`` "Error creating: <error>", ``FailedDelete``
    "Error deleting: <error>".

    Class attributes ``resource``, ``api_version`` and ``kind`` name the
    managed kind, so :class:`~kubenotes.controllers.replication.ReplicationManager`
    runs the same code over ReplicationControllers, as upstream's conversion adapter does.

    Attributes
    ----------
    expectations : UIDTrackingControllerExpectations
    burst_replicas : int

    Notes
    -----
    Creates and deletes are issued one after another on the virtual clock
    (upstream runs each batch in goroutines). A sync reads the pods this
    ReplicaSet controls plus the orphans of its namespace from an index
    (upstream lists the whole namespace; pods controlled by others are never
    claimed, so the result is the same). ``getIndirectlyRelatedPods`` counts
    the pods controlled by the related ReplicaSets and matching orphans. The alpha
    ``status.terminatingReplicas`` (DeploymentReplicaSetTerminatingReplicas,
    off in v1.34) is not written. The "last line of defense" resync after a
    sync that found ready but not yet available pods is queued after
    ``minReadySeconds + 1`` s (upstream: ``minReadySeconds``): on the virtual
    clock that sync would run at the very instant the pods turn available
    (``IsPodAvailable`` wants strictly more), where a real one runs a little later.

    In instant mode a sync runs after nearly every pod event, and each sync
    looks at every pod of the ReplicaSet: with 10,000 replicas, 10,000 syncs
    of 10,000 pods. What a sync derives from one pod (``IsPodActive``,
    controlled by this ReplicaSet and matching its selector, matching the
    template's labels, ``IsPodReady``) depends only on that pod version and
    the ReplicaSet's selector and template labels, so it is kept per pod
    object (:meth:`pod_verdicts`; the informer replaces an object on update,
    never mutates it). When every active pod is already this ReplicaSet's
    and matches, ``ClaimPods`` would keep them all and write nothing, so the
    claim is skipped; otherwise it runs as upstream's.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/replicaset/replica_set.go
    """

    name = "replicaset-controller"
    service_account = CONTROLLER_POLICY.service_account
    resource = "replicasets"
    api_version = "apps/v1"
    kind = "ReplicaSet"
    burst_replicas = BURST_REPLICAS

    def setup(self) -> None:
        self.expectations = UIDTrackingControllerExpectations(lambda: float(self.env.now))
        # ReplicaSet uid -> ((selector, template labels), {id(pod): (pod, verdict)}), see pod_verdicts
        self._verdicts: dict[str, tuple[tuple[Any, Any], dict[int, tuple[dict, int]]]] = {}
        self.rs_informer = self.informers.informer_for(self.resource)
        self.pod_informer = self.informers.informer_for("pods")
        self.rs_lister = self.rs_informer.lister
        self.pod_lister = self.pod_informer.lister
        add_controller_uid_index(self.pod_informer)
        add_controller_uid_index(self.rs_informer)
        self.rs_informer.add_event_handler(self.add_rs, self.update_rs, self.delete_rs)
        self.pod_informer.add_event_handler(self.add_pod, self.update_pod, self.delete_pod)

    # ------------------------------------------------------------ lookups
    def _selector(self, rs: dict) -> LabelSelector | None:
        try:
            return selector_of(rs)
        except Exception:  # FieldError: an invalid selector matches nothing
            return None

    def resolve_controller_ref(self, namespace: str, ref: dict) -> dict | None:
        """``resolveControllerRef``: the cached owner named by ``ref``, if it is of our kind and the same uid."""
        return resolve_controller_ref(self.rs_lister, namespace, ref, self.kind)

    def get_pod_replica_sets(self, pod: dict) -> list[dict]:
        """``GetPodReplicaSets``: cached ReplicaSets whose (non-empty) selector matches the pod."""
        labels = pod["metadata"].get("labels") or {}
        if not labels:
            return []
        out = []
        for rs in self.rs_lister.list(pod["metadata"].get("namespace")):
            sel = self._selector(rs)
            if sel is None or sel.is_empty() or not sel.matches(labels):
                continue
            out.append(rs)
        return out

    # ------------------------------------------------------------ handlers
    def add_rs(self, rs: dict) -> None:
        self.enqueue(rs)

    def update_rs(self, old: dict, cur: dict) -> None:
        if cur["metadata"].get("uid") != old["metadata"].get("uid"):
            self.delete_rs(old)
        self.enqueue(cur)

    def delete_rs(self, obj: Any) -> None:
        rs = unwrap_deleted(obj)
        key = key_of(rs)
        self._verdicts.pop(rs["metadata"].get("uid", ""), None)
        self.expectations.delete_expectations(key)
        self.enqueue(key)

    def add_pod(self, pod: dict) -> None:
        if pod["metadata"].get("deletionTimestamp"):
            self.delete_pod(pod)
            return
        ref = get_controller_of(pod)
        if ref is not None:
            rs = self.resolve_controller_ref(pod["metadata"].get("namespace", ""), ref)
            if rs is None:
                return
            key = key_of(rs)
            self.expectations.creation_observed(key)
            self.enqueue(key)
            return
        for rs in self.get_pod_replica_sets(pod):
            self.enqueue(rs)

    def update_pod(self, old: dict, cur: dict) -> None:
        if cur["metadata"].get("resourceVersion") == old["metadata"].get("resourceVersion"):
            return
        label_changed = (cur["metadata"].get("labels") or {}) != (old["metadata"].get("labels") or {})
        if cur["metadata"].get("deletionTimestamp"):
            self.delete_pod(cur)
            if label_changed:
                self.delete_pod(old)
            return
        cur_ref, old_ref = get_controller_of(cur), get_controller_of(old)
        ref_changed = cur_ref != old_ref
        ns = cur["metadata"].get("namespace", "")
        if ref_changed and old_ref is not None:
            rs = self.resolve_controller_ref(ns, old_ref)
            if rs is not None:
                self.enqueue(rs)
        if cur_ref is not None:
            rs = self.resolve_controller_ref(ns, cur_ref)
            if rs is None:
                return
            self.enqueue(rs)
            min_ready = int((rs.get("spec") or {}).get("minReadySeconds") or 0)
            if not is_pod_ready(old) and is_pod_ready(cur) and min_ready > 0:
                self.enqueue_after(rs, min_ready + 1)
            return
        if label_changed or ref_changed:
            for rs in self.get_pod_replica_sets(cur):
                self.enqueue(rs)

    def delete_pod(self, obj: Any) -> None:
        pod = unwrap_deleted(obj)
        ref = get_controller_of(pod)
        if ref is None:
            return
        rs = self.resolve_controller_ref(pod["metadata"].get("namespace", ""), ref)
        if rs is None:
            return
        key = key_of(rs)
        self.expectations.deletion_observed(key, pod_key(pod))
        self.enqueue(key)

    # ------------------------------------------------------------ sync
    def reconcile(self, key: str) -> Result | None:
        """``syncReplicaSet``.

        Raises
        ------
        ApiError
            A failed create/delete/adoption/status write (the key is retried with back-off).
        """
        namespace, name = split_key(key)
        rs = self.rs_lister.get(namespace, name)
        if rs is None:
            self.expectations.delete_expectations(key)
            return None
        needs_sync = self.expectations.satisfied_expectations(key)
        selector = self._selector(rs)
        if selector is None:
            return None
        all_pods = owned_or_orphaned(self.pod_informer, namespace, rs["metadata"].get("uid", ""))
        active, counts = self.active_claimed_pods(rs, selector, all_pods)
        manage_err: ApiError | None = None
        if needs_sync and not rs["metadata"].get("deletionTimestamp"):
            manage_err = self.manage_replicas(active, rs)
        new_status = calculate_status(rs, active, manage_err, float(self.env.now), self.client.server.timestamp(),
                                      counts)
        updated = self.update_replica_set_status(rs, new_status)
        spec = updated.get("spec") or {}
        st = updated.get("status") or {}
        min_ready = int(spec.get("minReadySeconds") or 0)
        if manage_err is None and min_ready > 0 and int(st.get("readyReplicas", 0)) == int(spec.get("replicas", 1)) \
                and int(st.get("availableReplicas", 0)) != int(spec.get("replicas", 1)):
            self.enqueue_after(key, min_ready + 1)  # see the class Notes
        if manage_err is not None:
            raise manage_err
        return None

    def active_claimed_pods(self, rs: dict, selector: LabelSelector,
                            pods: list[dict]) -> tuple[list[dict], tuple[int, int, int] | None]:
        """``FilterActivePods`` then ``claimPods``: the active pods this ReplicaSet owns after the claim.

        When every active pod is already this ReplicaSet's and matches its
        selector, ``ClaimPods`` would keep them all and write nothing: they
        are returned as they are, with the status counts taken from
        :meth:`pod_verdicts`. Otherwise the claim runs (adoptions, releases).

        Parameters
        ----------
        rs : dict
        selector : LabelSelector
        pods : list of dict
            This ReplicaSet's cached pods and the namespace's orphans, in key order.

        Returns
        -------
        tuple of (list of dict, tuple of (int, int, int) or None)
            The claimed pods, and ``(fullyLabeledReplicas, readyReplicas,
            availableReplicas)`` for :func:`calculate_status` (None when the
            claim ran: it counts them).

        Raises
        ------
        ApiError
            The first failed adoption or release.
        """
        verdicts = self.pod_verdicts(rs, selector, pods)
        tally = Counter(verdicts)  # verdict -> pods; a handful of distinct verdicts
        if any(v & POD_ACTIVE for v in tally):
            active = pods if all(v & POD_ACTIVE for v in tally) else \
                [p for p, v in zip(pods, verdicts) if v & POD_ACTIVE]
        else:
            active = []
        if any(v & POD_ACTIVE and not v & POD_OURS_AND_MATCHING for v in tally):
            return self.claim_pods(rs, selector, active), None
        fully = sum(n for v, n in tally.items() if v & POD_ACTIVE and v & POD_FULLY_LABELED)
        ready = sum(n for v, n in tally.items() if v & POD_ACTIVE and v & POD_READY)
        min_ready = int((rs.get("spec") or {}).get("minReadySeconds") or 0)
        if min_ready == 0:  # IsPodAvailable of a ready pod is true when minReadySeconds is 0
            available = ready
        else:
            now = float(self.env.now)
            available = sum(1 for p, v in zip(pods, verdicts) if v & POD_ACTIVE and v & POD_READY
                            and is_pod_available(p, min_ready, now))
        return active, (fully, ready, available)

    def pod_verdicts(self, rs: dict, selector: LabelSelector, pods: list[dict]) -> list[int]:
        """What a sync derives from each pod, as bits: :data:`POD_ACTIVE` | :data:`POD_OURS_AND_MATCHING` | ...

        :data:`POD_ACTIVE` is ``IsPodActive``; :data:`POD_OURS_AND_MATCHING`
        is ``ClaimObject``'s first case (controlled by this ReplicaSet, labels
        matching ``selector``); :data:`POD_FULLY_LABELED` is a match of the
        template's labels (``calculateStatus``); :data:`POD_READY` is
        ``IsPodReady``. Each is kept per pod object and per ReplicaSet
        (selector and template labels) and computed again only for a new pod
        version.

        Parameters
        ----------
        rs : dict
        selector : LabelSelector
            The ReplicaSet's compiled selector.
        pods : list of dict
            Cached pods (never mutated by the informer: an update replaces the object).

        Returns
        -------
        list of int
            One per pod, in order.
        """
        uid = rs["metadata"].get("uid", "")
        template_labels = (((rs.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels")
        context = (selector, template_labels)
        entry = self._verdicts.get(uid)
        if entry is None or entry[0] != context:
            entry = self._verdicts[uid] = (context, {})
        memo = entry[1]
        # an entry holds its pod, so the pod's id is not reused while the entry lives
        found = list(map(memo.get, map(id, pods)))
        if None in found:
            template_selector = LabelSelector.from_set(template_labels)
            for i, p in enumerate(pods):
                if found[i] is not None:
                    continue
                labels = p["metadata"].get("labels") or {}
                ref = get_controller_of(p)
                v = (POD_ACTIVE if is_pod_active(p) else 0) \
                    | (POD_OURS_AND_MATCHING if uid and ref is not None and ref.get("uid") == uid
                       and selector.matches(labels) else 0) \
                    | (POD_FULLY_LABELED if template_selector.matches(labels) else 0) \
                    | (POD_READY if is_pod_ready(p) else 0)
                found[i] = memo[id(p)] = (p, v)
            if len(memo) > 2 * len(pods) + 1024:  # drop the entries of old pod versions
                self._verdicts[uid] = (context, dict(zip(map(id, pods), found)))
        return list(map(itemgetter(1), found))

    def claim_pods(self, rs: dict, selector: LabelSelector, pods: list[dict]) -> list[dict]:
        """``claimPods``: adopt matching orphans, release owned pods that stopped matching."""
        def can_adopt() -> None:
            fresh = self.client.get(self.resource, rs["metadata"]["name"], rs["metadata"].get("namespace"))
            if fresh["metadata"].get("uid") != rs["metadata"].get("uid"):
                raise ApiError({"code": 409, "reason": "Conflict", "message":
                                f"original {self.kind} {rs['metadata'].get('namespace')}/{rs['metadata']['name']} "
                                f"is gone: got uid {fresh['metadata'].get('uid')}, wanted {rs['metadata'].get('uid')}"})
            if fresh["metadata"].get("deletionTimestamp"):
                raise ApiError({"code": 409, "reason": "Conflict", "message":
                                f"{rs['metadata'].get('namespace')}/{rs['metadata']['name']} has just been deleted "
                                f"at {fresh['metadata']['deletionTimestamp']}"})

        cm = ControllerRefManager(self.client, rs, selector, self.api_version, self.kind, "pods", can_adopt)
        return cm.claim_pods(pods)

    def get_indirectly_related_pods(self, rs: dict) -> list[dict]:
        """``getIndirectlyRelatedPods``: pods of every ReplicaSet controlled by this one's controller."""
        ref = get_controller_of(rs)
        if ref is None:
            return []
        seen: set[str] = set()
        out: list[dict] = []
        ns = rs["metadata"].get("namespace") or ""
        related = self.rs_informer.indexer.by_index(CONTROLLER_UID_INDEX, f"{ns}/{ref.get('uid', '')}")
        for other in related:
            sel = self._selector(other)
            if sel is None:
                continue
            for p in owned_or_orphaned(self.pod_informer, ns, other["metadata"].get("uid", "")):
                uid = p["metadata"].get("uid", "")
                if uid in seen or not sel.matches(p["metadata"].get("labels") or {}):
                    continue
                seen.add(uid)
                out.append(p)
        return out

    def manage_replicas(self, filtered_pods: list[dict], rs: dict) -> ApiError | None:
        """``manageReplicas``: create or delete pods toward ``spec.replicas``; returns the first error."""
        key = key_of(rs)
        diff = len(filtered_pods) - int((rs.get("spec") or {}).get("replicas", 1))
        if diff < 0:
            diff = min(-diff, self.burst_replicas)
            self.expectations.expect_creations(key, diff)
            ref = new_controller_ref(rs, self.api_version, self.kind)

            def create() -> ApiError | None:
                err = self.create_pod(rs, ref)
                if err is not None and namespace_terminating(err):
                    return None
                return err

            successes, err = slow_start_batch(diff, SLOW_START_INITIAL_BATCH_SIZE, create)
            for _ in range(diff - successes):
                self.expectations.creation_observed(key)  # skipped creates will not be observed
            return err
        if diff > 0:
            diff = min(diff, self.burst_replicas)
            related = self.get_indirectly_related_pods(rs)
            to_delete = get_pods_to_delete(filtered_pods, related, diff, float(self.env.now))
            self.expectations.expect_deletions(key, [pod_key(p) for p in to_delete])
            first: ApiError | None = None
            for p in to_delete:
                err = self.delete_pod_of(rs, p)
                if err is not None:
                    self.expectations.deletion_observed(key, pod_key(p))
                    if err.code != 404 and first is None:
                        first = err
            return first
        return None

    # RealPodControl
    def create_pod(self, rs: dict, controller_ref: dict) -> ApiError | None:
        """``RealPodControl.CreatePods``: create one pod from the template; record the Event."""
        pod = get_pod_from_template((rs.get("spec") or {}).get("template") or {}, rs, controller_ref)
        if not pod["metadata"].get("labels"):
            return ApiError({"code": 500, "reason": "InternalError", "message": NO_LABELS_MESSAGE})
        try:
            created = self.client.create("pods", pod, rs["metadata"].get("namespace"))
        except ApiError as e:
            if not namespace_terminating(e):
                self.event(rs, "Warning", FAILED_CREATE_POD_REASON, f"Error creating: {e}")
            return e
        self.event(rs, "Normal", SUCCESSFUL_CREATE_POD_REASON, f"Created pod: {created['metadata']['name']}")
        return None

    def delete_pod_of(self, rs: dict, pod: dict) -> ApiError | None:
        """``RealPodControl.DeletePod``: delete one pod; record the Event."""
        name = pod["metadata"]["name"]
        try:
            self.client.delete("pods", name, rs["metadata"].get("namespace"))
        except ApiError as e:
            if e.code == 404:
                return e
            self.event(rs, "Warning", FAILED_DELETE_POD_REASON, f"Error deleting: {e}")
            return ApiError({**e.status, "message": f"unable to delete pods: {e}"})
        self.event(rs, "Normal", SUCCESSFUL_DELETE_POD_REASON, f"Deleted pod: {name}")
        return None

    def update_replica_set_status(self, rs: dict, new_status: dict) -> dict:
        """``updateReplicaSetStatus``: write the status unless nothing changed (one retry after a GET).

        Raises
        ------
        ApiError
            When the write (and its retry) fails.
        """
        st = rs.get("status") or {}
        gen = rs["metadata"].get("generation", 0)
        same = all(int(st.get(k, 0) or 0) == int(new_status.get(k, 0) or 0)
                   for k in ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas")) \
            and gen == st.get("observedGeneration", 0) \
            and (st.get("conditions") or []) == (new_status.get("conditions") or [])
        if same:
            return rs
        new_status = dict(new_status)
        new_status["observedGeneration"] = gen
        cur = rs
        for i in range(STATUS_UPDATE_RETRIES + 1):
            body = deep_copy(cur)
            body["status"] = new_status
            try:
                return self.client.update_status(self.resource, body, cur["metadata"].get("namespace"))
            except ApiError:
                if i >= STATUS_UPDATE_RETRIES:
                    raise
            cur = self.client.get(self.resource, cur["metadata"]["name"], cur["metadata"].get("namespace"))
        return cur  # pragma: no cover
