"""The Deployment controller: roll a pod template out through ReplicaSets, and the kubectl verbs around it.

Mirrors ``k8s.io/kubernetes/pkg/controller/deployment``. A Deployment owns one
ReplicaSet per pod template, named ``<deployment>-<pod-template-hash>``. A sync
(``syncDeployment``) claims the ReplicaSets, then, in upstream's order of
priority: a paused Deployment is only scaled (``sync``); a pending
controller-side rollback is applied; a *scaling event* (the replicas changed
while several ReplicaSets are active) is shared out proportionally; otherwise
the strategy rolls out: ``RollingUpdate`` grows the new ReplicaSet within
``replicas + maxSurge`` and shrinks old ones while ``replicas - maxUnavailable``
stay available; ``Recreate`` scales every old ReplicaSet to 0, waits until no
old pod runs, then scales the new one up. The status carries the Progressing
condition (``NewReplicaSetCreated``, ``FoundNewReplicaSet``,
``ReplicaSetUpdated``, ``NewReplicaSetAvailable``, ``ProgressDeadlineExceeded``,
``DeploymentPaused``/``DeploymentResumed``) and the Available condition.

The client-side verbs ``kubectl rollout undo`` (:func:`rollback`), ``rollout
pause``/``resume`` (:func:`pause`, :func:`resume`) and ``set image``
(:func:`set_image`) are here too, as plain writes through a client.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/deployment_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/sync.go
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/rolling.go
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/recreate.go
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/rollback.go
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/progress.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollback.go (kubectl rollout undo)
"""

from __future__ import annotations

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
from kubenotes.controllers import deployment_util as du
from kubenotes.api.meta import get_controller_of, new_controller_ref
from kubenotes.controllers.controller_utils import (
    CONTROLLER_UID_INDEX,
    DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
    ControllerRefManager,
    add_controller_uid_index,
    compute_hash,
    filter_active_replica_sets,
    owned_or_orphaned,
    replica_sets_by_creation_timestamp,
    replica_sets_by_size_newer,
    replica_sets_by_size_older,
    resolve_controller_ref,
    timestamp_seconds,
)
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, key_of, split_key
from kubenotes.controllers.replicaset import namespace_terminating

__all__ = ["DeploymentController", "calculate_status", "rollback", "pause", "resume", "set_image",
           "SCALING_REPLICA_SET_REASON", "SELECTING_ALL_REASON", "SELECTING_ALL_MESSAGE", "ROLLBACK_SUCCESS",
           "ROLLBACK_SKIPPED", "PAUSED_ROLLBACK_MESSAGE", "new_rs_new_replicas", "max_surge_and_unavailable",
           "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:deployment-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("deployment-controller")``, ``cmd/kube-controller-manager/app/apps.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("deployment-controller", (
    policy_rule(("get", "list", "watch", "update"), (EXTENSIONS_GROUP, APPS_GROUP), ("deployments",)),
    policy_rule(("update",), (EXTENSIONS_GROUP, APPS_GROUP), ("deployments/status",)),
    policy_rule(("update",), (EXTENSIONS_GROUP, APPS_GROUP), ("deployments/finalizers",)),
    policy_rule(("get", "list", "watch", "create", "update", "patch", "delete"), (APPS_GROUP, EXTENSIONS_GROUP),
       ("replicasets",)),
    # "update" stays until kubernetes/kubernetes#36897 is resolved
    policy_rule(("get", "list", "watch", "update"), (LEGACY_GROUP,), ("pods",)),
    events_rule(),
))

# re-exported for the chapter: the arithmetic of one rollout step
new_rs_new_replicas = du.new_rs_new_replicas
max_surge_and_unavailable = du.max_surge_and_unavailable

SCALING_REPLICA_SET_REASON = "ScalingReplicaSet"
SELECTING_ALL_REASON = "SelectingAll"
SELECTING_ALL_MESSAGE = "This deployment is selecting all pods. A non-empty selector is required."
#: kubectl's results and errors (``polymorphichelpers/rollback.go``).
ROLLBACK_SUCCESS = "rolled back"
ROLLBACK_SKIPPED = "skipped rollback"
PAUSED_ROLLBACK_MESSAGE = ("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' "
                           "and try again")

_API_VERSION, _KIND = "apps/v1", "Deployment"


def calculate_status(all_rss: list[dict | None], new_rs: dict | None, deployment: dict, now: str) -> dict:
    """``calculateStatus``: the Deployment status its ReplicaSets give, with the Available condition.

    Parameters
    ----------
    all_rss : list of dict
        Old and new ReplicaSets (None entries ignored).
    new_rs : dict or None
    deployment : dict
    now : str
        ``metav1.Now()`` for a changed condition.

    Returns
    -------
    dict

    Examples
    --------
    >>> d = {"metadata": {"generation": 2}, "spec": {"replicas": 3, "strategy": {"type": "RollingUpdate",
    ...      "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}}, "status": {}}
    >>> rs = {"spec": {"replicas": 3}, "status": {"replicas": 3, "readyReplicas": 2, "availableReplicas": 2}}
    >>> st = calculate_status([rs], rs, d, "t")
    >>> st["unavailableReplicas"], st["conditions"][0]["reason"]
    (1, 'MinimumReplicasAvailable')
    """
    available = du.get_available_replica_count_for_replica_sets(all_rss)
    total = du.get_replica_count_for_replica_sets(all_rss)
    unavailable = max(total - available, 0)
    old = deployment.get("status") or {}
    status: dict[str, Any] = {
        "observedGeneration": int(deployment["metadata"].get("generation") or 0),
        "replicas": du.get_actual_replica_count_for_replica_sets(all_rss),
        "updatedReplicas": du.get_actual_replica_count_for_replica_sets([new_rs]),
        "readyReplicas": du.get_ready_replica_count_for_replica_sets(all_rss),
        "availableReplicas": available,
        "unavailableReplicas": unavailable,
    }
    if old.get("collisionCount") is not None:
        status["collisionCount"] = old["collisionCount"]
    if old.get("conditions"):
        status["conditions"] = [dict(c) for c in old["conditions"]]
    if available >= du.replicas_of(deployment) - du.max_unavailable(deployment):
        cond = du.new_deployment_condition("Available", "True", du.MINIMUM_REPLICAS_AVAILABLE,
                                           du.MINIMUM_REPLICAS_AVAILABLE_MESSAGE, now)
    else:
        cond = du.new_deployment_condition("Available", "False", du.MINIMUM_REPLICAS_UNAVAILABLE,
                                           du.MINIMUM_REPLICAS_UNAVAILABLE_MESSAGE, now)
    du.set_deployment_condition(status, cond)
    return status


def _normalize_status(st: dict | None) -> dict:
    st = dict(st or {})
    for k in ("observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
              "unavailableReplicas"):
        st[k] = int(st.get(k) or 0)
    if not st.get("conditions"):
        st.pop("conditions", None)
    if st.get("collisionCount") is None:
        st.pop("collisionCount", None)
    st.pop("terminatingReplicas", None)
    return st


class DeploymentController(Controller):
    """kube-controller-manager's ``deployment-controller``.

    Events (on the Deployment, source ``deployment-controller``):
    ``ScalingReplicaSet`` "Scaled up replica set <rs> from 0 to 3" / "Scaled
    down replica set <rs> from 3 to 2", ``ReplicaSetCreateError``,
    ``SelectingAll``, and the rollback reasons ``DeploymentRollback``,
    ``DeploymentRollbackRevisionNotFound``, ``DeploymentRollbackTemplateUnchanged``.

    Notes
    -----
    As upstream, the Deployment copy a sync works on keeps the resourceVersion
    it was read with, so a sync that writes the status twice (a new ReplicaSet,
    then the rollout status) gets a 409 Conflict on the second write and is
    retried with back-off. Upstream's ``deployments/status`` strategy keeps the
    annotations of the request (that is how the revision annotation reaches
    the Deployment); when the model's API server drops them on a status write,
    the controller follows up with an update of the annotations (the
    ``system:controller:deployment-controller`` role allows ``update``, not ``patch``).
    ``podMap`` only feeds Recreate's "old pods still running" check. ReplicaSets
    and pods are read from a controller-uid index of the informer caches
    (only the Deployment's own and orphans), where upstream lists the namespace.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/deployment_controller.go
    """

    name = "deployment-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        self.d_informer = self.informers.informer_for("deployments")
        self.rs_informer = self.informers.informer_for("replicasets")
        self.pod_informer = self.informers.informer_for("pods")
        self.d_lister = self.d_informer.lister
        self.rs_lister = self.rs_informer.lister
        self.pod_lister = self.pod_informer.lister
        add_controller_uid_index(self.rs_informer)
        add_controller_uid_index(self.pod_informer)
        self.d_informer.add_event_handler(self.add_deployment, self.update_deployment, self.delete_deployment)
        self.rs_informer.add_event_handler(self.add_replica_set, self.update_replica_set, self.delete_replica_set)
        self.pod_informer.add_event_handler(None, None, self.delete_pod)

    # ------------------------------------------------------------ handlers
    def add_deployment(self, d: dict) -> None:
        self.enqueue(d)

    def update_deployment(self, old: dict, cur: dict) -> None:
        self.enqueue(cur)

    def delete_deployment(self, obj: Any) -> None:
        self.enqueue(unwrap_deleted(obj))

    def resolve_controller_ref(self, namespace: str, ref: dict) -> dict | None:
        """``resolveControllerRef``: the cached Deployment ``ref`` names (same uid), or None."""
        return resolve_controller_ref(self.d_lister, namespace, ref, _KIND)

    def get_deployments_for_replica_set(self, rs: dict) -> list[dict]:
        """``GetDeploymentsForReplicaSet``: Deployments whose non-empty selector matches the ReplicaSet."""
        labels = rs["metadata"].get("labels") or {}
        if not labels:
            return []
        out = []
        for d in self.d_lister.list(rs["metadata"].get("namespace")):
            sel = self._selector(d)
            if sel is None or sel.is_empty() or not sel.matches(labels):
                continue
            out.append(d)
        return out

    def add_replica_set(self, rs: dict) -> None:
        if rs["metadata"].get("deletionTimestamp"):
            self.delete_replica_set(rs)
            return
        ref = get_controller_of(rs)
        if ref is not None:
            d = self.resolve_controller_ref(rs["metadata"].get("namespace", ""), ref)
            if d is not None:
                self.enqueue(d)
            return
        for d in self.get_deployments_for_replica_set(rs):
            self.enqueue(d)

    def update_replica_set(self, old: dict, cur: dict) -> None:
        if cur["metadata"].get("resourceVersion") == old["metadata"].get("resourceVersion"):
            return
        cur_ref, old_ref = get_controller_of(cur), get_controller_of(old)
        ns = cur["metadata"].get("namespace", "")
        ref_changed = cur_ref != old_ref
        if ref_changed and old_ref is not None:
            d = self.resolve_controller_ref(ns, old_ref)
            if d is not None:
                self.enqueue(d)
        if cur_ref is not None:
            d = self.resolve_controller_ref(ns, cur_ref)
            if d is not None:
                self.enqueue(d)
            return
        label_changed = (cur["metadata"].get("labels") or {}) != (old["metadata"].get("labels") or {})
        if label_changed or ref_changed:
            for d in self.get_deployments_for_replica_set(cur):
                self.enqueue(d)

    def delete_replica_set(self, obj: Any) -> None:
        rs = unwrap_deleted(obj)
        ref = get_controller_of(rs)
        if ref is None:
            return
        d = self.resolve_controller_ref(rs["metadata"].get("namespace", ""), ref)
        if d is not None:
            self.enqueue(d)

    def delete_pod(self, obj: Any) -> None:
        """``deletePod``: a Recreate Deployment waits for its last old pod to go."""
        pod = unwrap_deleted(obj)
        ns = pod["metadata"].get("namespace", "")
        rs = resolve_controller_ref(self.rs_lister, ns, get_controller_of(pod), "ReplicaSet")
        if rs is None:
            return
        dref = get_controller_of(rs)
        d = self.resolve_controller_ref(ns, dref) if dref is not None else None
        if d is None or ((d.get("spec") or {}).get("strategy") or {}).get("type") != "Recreate":
            return
        rs_list = self.rs_informer.indexer.by_index(CONTROLLER_UID_INDEX, f'{ns}/{d["metadata"].get("uid", "")}')
        pod_map = self.get_pod_map_for_deployment(d, rs_list)
        if sum(len(v) for v in pod_map.values()) == 0:
            self.enqueue(d)

    # ------------------------------------------------------------ lookups
    @staticmethod
    def _selector(d: dict) -> LabelSelector | None:
        try:
            return LabelSelector.from_api((d.get("spec") or {}).get("selector"))
        except Exception:
            return None

    def get_replica_sets_for_deployment(self, d: dict) -> list[dict]:
        """``getReplicaSetsForDeployment``: claim the namespace's ReplicaSets (adopt orphans, release strays)."""
        ns = d["metadata"].get("namespace")
        selector = self._selector(d)
        if selector is None:
            return []

        def can_adopt() -> None:
            fresh = self.client.get("deployments", d["metadata"]["name"], ns)
            if fresh["metadata"].get("uid") != d["metadata"].get("uid"):
                raise ApiError({"code": 409, "reason": "Conflict", "message":
                                f"original Deployment {ns}/{d['metadata']['name']} is gone: got uid "
                                f"{fresh['metadata'].get('uid')}, wanted {d['metadata'].get('uid')}"})
            if fresh["metadata"].get("deletionTimestamp"):
                raise ApiError({"code": 409, "reason": "Conflict", "message":
                                f"{ns}/{d['metadata']['name']} has just been deleted at "
                                f"{fresh['metadata']['deletionTimestamp']}"})

        cm = ControllerRefManager(self.client, d, selector, _API_VERSION, _KIND, "replicasets", can_adopt)
        return cm.claim_replica_sets(owned_or_orphaned(self.rs_informer, ns or "", d["metadata"].get("uid", "")))

    def get_pod_map_for_deployment(self, d: dict, rs_list: list[dict]) -> dict[str, list[dict]]:
        """``getPodMapForDeployment``: the Deployment's pods grouped by the uid of the ReplicaSet owning them."""
        selector = self._selector(d)
        pod_map: dict[str, list[dict]] = {rs["metadata"]["uid"]: [] for rs in rs_list}
        if selector is None:
            return pod_map
        ns = d["metadata"].get("namespace") or ""
        for uid, pods in pod_map.items():
            pods.extend(p for p in self.pod_informer.indexer.by_index(CONTROLLER_UID_INDEX, f"{ns}/{uid}")
                        if selector.matches(p["metadata"].get("labels") or {}))
        return pod_map

    # ------------------------------------------------------------ writes
    def _now(self) -> str:
        return self.client.server.timestamp()

    def update_deployment_status(self, d: dict) -> dict:
        """``UpdateStatus`` of the working copy (its resourceVersion as read: a second write may conflict)."""
        out = self.client.update_status("deployments", d, d["metadata"].get("namespace"))
        want = d["metadata"].get("annotations") or {}
        got = out["metadata"].get("annotations") or {}
        diff = {k: v for k, v in want.items() if got.get(k) != v}
        if diff:  # the status strategy did not keep the annotations (see the class Notes)
            body = deep_copy(out)
            body["metadata"]["annotations"] = {**got, **diff}
            out = self.client.update("deployments", body, d["metadata"].get("namespace"))
        return out

    # ------------------------------------------------------------ sync
    def reconcile(self, key: str) -> Result | None:
        """``syncDeployment``.

        Raises
        ------
        ApiError
            Any failed write (the key is retried with back-off).
        """
        namespace, name = split_key(key)
        cached = self.d_lister.get(namespace, name)
        if cached is None:
            return None
        d = deep_copy(cached)
        sel = (d.get("spec") or {}).get("selector") or {}
        if not sel.get("matchLabels") and not sel.get("matchExpressions"):
            self.event(d, "Warning", SELECTING_ALL_REASON, SELECTING_ALL_MESSAGE)
            st = d.setdefault("status", {})
            if int(st.get("observedGeneration") or 0) < int(d["metadata"].get("generation") or 0):
                st["observedGeneration"] = int(d["metadata"].get("generation") or 0)
                self.client.update_status("deployments", d, namespace)
            return None
        rs_list = self.get_replica_sets_for_deployment(d)
        pod_map = self.get_pod_map_for_deployment(d, rs_list)
        if d["metadata"].get("deletionTimestamp"):
            return self.sync_status_only(d, rs_list)
        self.check_paused_conditions(d)
        if (d.get("spec") or {}).get("paused"):
            return self.sync(d, rs_list)
        if self.get_rollback_to(d) is not None:
            return self.rollback(d, rs_list)
        if self.is_scaling_event(d, rs_list):
            return self.sync(d, rs_list)
        strategy = ((d.get("spec") or {}).get("strategy") or {}).get("type")
        if strategy == "Recreate":
            return self.rollout_recreate(d, rs_list, pod_map)
        if strategy == "RollingUpdate":
            return self.rollout_rolling(d, rs_list)
        raise ApiError({"code": 500, "reason": "InternalError",
                        "message": f"unexpected deployment strategy type: {strategy}"})

    def sync_status_only(self, d: dict, rs_list: list[dict]) -> None:
        """``syncStatusOnly``."""
        new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list, False)
        self.sync_deployment_status(old_rss + [new_rs], new_rs, d)

    def sync(self, d: dict, rs_list: list[dict]) -> None:
        """``sync``: scale (proportionally when several ReplicaSets are active); clean up if paused."""
        new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list, False)
        self.scale(d, new_rs, old_rss)
        if (d.get("spec") or {}).get("paused") and self.get_rollback_to(d) is None:
            self.cleanup_deployment(old_rss, d)
        self.sync_deployment_status(old_rss + [new_rs], new_rs, d)

    def check_paused_conditions(self, d: dict) -> None:
        """``checkPausedConditions``: Progressing ``Unknown`` with ``DeploymentPaused`` / ``DeploymentResumed``."""
        if not du.has_progress_deadline(d):
            return
        cond = du.get_deployment_condition(d.get("status"), "Progressing")
        if cond is not None and cond.get("reason") == du.TIMED_OUT_REASON:
            return
        paused_exists = cond is not None and cond.get("reason") == du.PAUSED_DEPLOY_REASON
        paused = bool((d.get("spec") or {}).get("paused"))
        st = d.setdefault("status", {})
        if paused and not paused_exists:
            du.set_deployment_condition(st, du.new_deployment_condition(
                "Progressing", "Unknown", du.PAUSED_DEPLOY_REASON, du.DEPLOYMENT_PAUSED_MESSAGE, self._now()))
        elif not paused and paused_exists:
            du.set_deployment_condition(st, du.new_deployment_condition(
                "Progressing", "Unknown", du.RESUMED_DEPLOY_REASON, du.DEPLOYMENT_RESUMED_MESSAGE, self._now()))
        else:
            return
        self.update_deployment_status(d)

    def get_all_replica_sets_and_sync_revision(self, d: dict, rs_list: list[dict],
                                               create_if_not_existed: bool) -> tuple[dict | None, list[dict]]:
        """``getAllReplicaSetsAndSyncRevision``: (new ReplicaSet or None, all old ReplicaSets)."""
        _, all_old = du.find_old_replica_sets(d, rs_list)
        new_rs = self.get_new_replica_set(d, rs_list, all_old, create_if_not_existed)
        return new_rs, all_old

    def get_new_replica_set(self, d: dict, rs_list: list[dict], old_rss: list[dict],
                            create_if_not_existed: bool) -> dict | None:
        """``getNewReplicaSet``: find (and annotate) or create the ReplicaSet of the current template."""
        ns = d["metadata"].get("namespace")
        existing = du.find_new_replica_set(d, rs_list)
        new_revision = str(du.max_revision(old_rss) + 1)
        spec = d.get("spec") or {}
        min_ready = int(spec.get("minReadySeconds") or 0)
        if existing is not None:
            rs_copy = deep_copy(existing)
            annotations_updated = du.set_new_replica_set_annotations(d, rs_copy, new_revision, True)
            min_ready_needs_update = int((rs_copy.get("spec") or {}).get("minReadySeconds") or 0) != min_ready
            if annotations_updated or min_ready_needs_update:
                rs_copy["spec"]["minReadySeconds"] = min_ready
                return self.client.update("replicasets", rs_copy, ns)
            needs_update = du.set_deployment_revision(
                d, (rs_copy["metadata"].get("annotations") or {}).get(du.REVISION_ANNOTATION, ""))
            cond = du.get_deployment_condition(d.get("status"), "Progressing")
            if du.has_progress_deadline(d) and cond is None:
                du.set_deployment_condition(d.setdefault("status", {}), du.new_deployment_condition(
                    "Progressing", "True", du.FOUND_NEW_RS_REASON,
                    f'Found new replica set "{rs_copy["metadata"]["name"]}"', self._now()))
                needs_update = True
            if needs_update:
                self.update_deployment_status(d)
            return rs_copy
        if not create_if_not_existed:
            return None

        template = deep_copy(spec.get("template") or {})
        collision = (d.get("status") or {}).get("collisionCount")
        pod_template_hash = compute_hash(template, collision)
        labels = dict((template.get("metadata") or {}).get("labels") or {})
        labels[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = pod_template_hash
        template.setdefault("metadata", {})["labels"] = labels
        selector = deep_copy(spec.get("selector") or {})
        selector.setdefault("matchLabels", {})[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = pod_template_hash
        new_rs: dict = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                        "metadata": {"name": f'{d["metadata"]["name"]}-{pod_template_hash}', "namespace": ns,
                                     "ownerReferences": [new_controller_ref(d, _API_VERSION, _KIND)],
                                     "labels": dict(labels)},
                        "spec": {"replicas": 0, "minReadySeconds": min_ready, "selector": selector,
                                 "template": template}}
        new_replicas = du.new_rs_new_replicas(d, old_rss + [new_rs], new_rs)
        new_rs["spec"]["replicas"] = new_replicas
        du.set_new_replica_set_annotations(d, new_rs, new_revision, False)
        already_exists = False
        try:
            created = self.client.create("replicasets", new_rs, ns)
        except ApiError as err:
            if err.code == 409 and err.reason == "AlreadyExists":
                already_exists = True
                rs = self.rs_lister.get(ns, new_rs["metadata"]["name"])
                if rs is None:
                    raise
                ref = get_controller_of(rs)
                if ref is not None and ref.get("uid") == d["metadata"].get("uid") and \
                        du.equal_ignore_hash(d["spec"]["template"], rs["spec"]["template"]):
                    created = rs
                else:
                    st = d.setdefault("status", {})
                    st["collisionCount"] = int(st.get("collisionCount") or 0) + 1
                    try:
                        self.client.update_status("deployments", d, ns)
                    except ApiError:
                        pass
                    raise
            elif namespace_terminating(err):
                raise
            else:
                msg = f'Failed to create new replica set "{new_rs["metadata"]["name"]}": {err}'
                if du.has_progress_deadline(d):
                    du.set_deployment_condition(d.setdefault("status", {}), du.new_deployment_condition(
                        "Progressing", "False", du.FAILED_RS_CREATE_REASON, msg, self._now()))
                    try:
                        self.client.update_status("deployments", d, ns)
                    except ApiError:
                        pass
                self.event(d, "Warning", du.FAILED_RS_CREATE_REASON, msg)
                raise
        if not already_exists and new_replicas > 0:
            self.event(d, "Normal", SCALING_REPLICA_SET_REASON,
                       f'Scaled up replica set {created["metadata"]["name"]} from 0 to {new_replicas}')
        needs_update = du.set_deployment_revision(d, new_revision)
        if not already_exists and du.has_progress_deadline(d):
            du.set_deployment_condition(d.setdefault("status", {}), du.new_deployment_condition(
                "Progressing", "True", du.NEW_REPLICA_SET_REASON,
                f'Created new replica set "{created["metadata"]["name"]}"', self._now()))
            needs_update = True
        if needs_update:
            self.update_deployment_status(d)
        return created

    # ------------------------------------------------------------ scaling
    def scale(self, d: dict, new_rs: dict | None, old_rss: list[dict]) -> None:
        """``scale``: bring the active ReplicaSets to the Deployment's size, proportionally during a rollout."""
        replicas = du.replicas_of(d)
        active_or_latest = du.find_active_or_latest(new_rs, old_rss)
        if active_or_latest is not None:
            if du.replicas_of(active_or_latest) == replicas:
                return
            self.scale_replica_set_and_record_event(active_or_latest, replicas, d)
            return
        if du.is_saturated(d, new_rs):
            for old in filter_active_replica_sets(old_rss):
                self.scale_replica_set_and_record_event(old, 0, d)
            return
        if not du.is_rolling_update(d):
            return
        all_rss = filter_active_replica_sets(old_rss + [new_rs])
        all_replicas = du.get_replica_count_for_replica_sets(all_rss)
        allowed = replicas + du.max_surge(d) if replicas > 0 else 0
        to_add = allowed - all_replicas
        if to_add > 0:
            all_rss = replica_sets_by_size_newer(all_rss)
        elif to_add < 0:
            all_rss = replica_sets_by_size_older(all_rss)
        added = 0
        name_to_size: dict[str, int] = {}
        for rs in all_rss:
            if to_add != 0:
                proportion = du.get_replica_set_proportion(rs, d, to_add, added)
                name_to_size[rs["metadata"]["name"]] = du.replicas_of(rs) + proportion
                added += proportion
            else:
                name_to_size[rs["metadata"]["name"]] = du.replicas_of(rs)
        for i, rs in enumerate(all_rss):
            n = rs["metadata"]["name"]
            if i == 0 and to_add != 0:
                name_to_size[n] = max(name_to_size[n] + to_add - added, 0)
            self.scale_replica_set(rs, name_to_size[n], d)

    def scale_replica_set_and_record_event(self, rs: dict, new_scale: int, d: dict) -> tuple[bool, dict]:
        """``scaleReplicaSetAndRecordEvent``."""
        if du.replicas_of(rs) == new_scale:
            return False, rs
        return self.scale_replica_set(rs, new_scale, d)

    def scale_replica_set(self, rs: dict, new_scale: int, d: dict) -> tuple[bool, dict]:
        """``scaleReplicaSet``: write the size and the replica annotations; record ``ScalingReplicaSet``."""
        size_needs_update = du.replicas_of(rs) != new_scale
        desired, max_replicas = du.replicas_of(d), du.replicas_of(d) + du.max_surge(d)
        if not size_needs_update and not du.replicas_annotations_need_update(rs, desired, max_replicas):
            return False, rs
        old_scale = du.replicas_of(rs)
        rs_copy = deep_copy(rs)
        rs_copy["spec"]["replicas"] = new_scale
        du.set_replicas_annotations(rs_copy, desired, max_replicas)
        out = self.client.update("replicasets", rs_copy, rs["metadata"].get("namespace"))
        if size_needs_update:
            operation = "up" if old_scale < new_scale else "down"
            self.event(d, "Normal", SCALING_REPLICA_SET_REASON,
                       f'Scaled {operation} replica set {out["metadata"]["name"]} from {old_scale} to {new_scale}')
            return True, out
        return False, out

    def is_scaling_event(self, d: dict, rs_list: list[dict]) -> bool:
        """``isScalingEvent``: an active ReplicaSet's desired-replicas annotation differs from ``spec.replicas``."""
        new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list, False)
        for rs in filter_active_replica_sets(old_rss + [new_rs]):
            desired = du.get_desired_replicas_annotation(rs)
            if desired is not None and desired != du.replicas_of(d):
                return True
        return False

    def cleanup_deployment(self, old_rss: list[dict], d: dict) -> None:
        """``cleanupDeployment``: delete the oldest scaled-down ReplicaSets beyond ``revisionHistoryLimit``."""
        if not du.has_revision_history_limit(d):
            return
        cleanable = [rs for rs in old_rss if rs is not None and not rs["metadata"].get("deletionTimestamp")]
        diff = len(cleanable) - int(d["spec"]["revisionHistoryLimit"])
        if diff <= 0:
            return
        cleanable = du.replica_sets_by_revision(cleanable)
        for rs in cleanable[:diff]:
            st = rs.get("status") or {}
            if int(st.get("replicas") or 0) != 0 or du.replicas_of(rs) != 0 or \
                    int(rs["metadata"].get("generation") or 0) > int(st.get("observedGeneration") or 0) or \
                    rs["metadata"].get("deletionTimestamp"):
                continue
            try:
                self.client.delete("replicasets", rs["metadata"]["name"], rs["metadata"].get("namespace"))
            except ApiError as e:
                if e.code != 404:
                    raise

    # ------------------------------------------------------------ status
    def sync_deployment_status(self, all_rss: list[dict | None], new_rs: dict | None, d: dict) -> None:
        """``syncDeploymentStatus``: write the calculated status if it changed."""
        new_status = calculate_status(all_rss, new_rs, d, self._now())
        if _normalize_status(d.get("status")) == _normalize_status(new_status):
            return
        d["status"] = new_status
        self.update_deployment_status(d)

    def sync_rollout_status(self, all_rss: list[dict | None], new_rs: dict | None, d: dict) -> None:
        """``syncRolloutStatus``: the status plus the Progressing condition; requeue a stuck rollout."""
        now = self._now()
        new_status = calculate_status(all_rss, new_rs, d, now)
        if not du.has_progress_deadline(d):
            du.remove_deployment_condition(new_status, "Progressing")
        current = du.get_deployment_condition(d.get("status"), "Progressing")
        is_complete = int(new_status["replicas"]) == int(new_status["updatedReplicas"]) and current is not None \
            and current.get("reason") == du.NEW_RS_AVAILABLE_REASON
        name = d["metadata"]["name"]
        rs_name = new_rs["metadata"]["name"] if new_rs is not None else None
        if du.has_progress_deadline(d) and not is_complete:
            if du.deployment_complete(d, new_status):
                msg = f'ReplicaSet "{rs_name}" has successfully progressed.' if rs_name else \
                    f'Deployment "{name}" has successfully progressed.'
                du.set_deployment_condition(new_status, du.new_deployment_condition(
                    "Progressing", "True", du.NEW_RS_AVAILABLE_REASON, msg, now))
            elif du.deployment_progressing(d, new_status):
                msg = f'ReplicaSet "{rs_name}" is progressing.' if rs_name else f'Deployment "{name}" is progressing.'
                cond = du.new_deployment_condition("Progressing", "True", du.REPLICA_SET_UPDATED_REASON, msg, now)
                if current is not None:
                    if current.get("status") == "True":
                        cond["lastTransitionTime"] = current.get("lastTransitionTime")
                    du.remove_deployment_condition(new_status, "Progressing")
                du.set_deployment_condition(new_status, cond)
            elif du.deployment_timed_out(d, new_status, float(self.env.now)):
                msg = f'ReplicaSet "{rs_name}" has timed out progressing.' if rs_name else \
                    f'Deployment "{name}" has timed out progressing.'
                du.set_deployment_condition(new_status, du.new_deployment_condition(
                    "Progressing", "False", du.TIMED_OUT_REASON, msg, now))
        failures = self.get_replica_failures(all_rss, new_rs)
        if failures:
            du.set_deployment_condition(new_status, failures[0])
        else:
            du.remove_deployment_condition(new_status, "ReplicaFailure")
        if _normalize_status(d.get("status")) == _normalize_status(new_status):
            self.requeue_stuck_deployment(d, new_status)
            return
        d["status"] = new_status
        self.update_deployment_status(d)

    @staticmethod
    def get_replica_failures(all_rss: list[dict | None], new_rs: dict | None) -> list[dict]:
        """``getReplicaFailures``: the new ReplicaSet's ``ReplicaFailure`` conditions first, then the others'."""
        def of(rs: dict) -> list[dict]:
            return [du.replica_set_to_deployment_condition(c) for c in (rs.get("status") or {}).get("conditions") or ()
                    if c.get("type") == "ReplicaFailure"]

        if new_rs is not None and of(new_rs):
            return of(new_rs)
        out: list[dict] = []
        for rs in all_rss:
            if rs is not None:
                out.extend(of(rs))
        return out

    def requeue_stuck_deployment(self, d: dict, new_status: dict) -> float:
        """``requeueStuckDeployment``: check again when the progress deadline would pass (-1: not needed)."""
        current = du.get_deployment_condition(d.get("status"), "Progressing")
        if not du.has_progress_deadline(d) or current is None:
            return -1.0
        if du.deployment_complete(d, new_status) or current.get("reason") == du.TIMED_OUT_REASON:
            return -1.0
        since = timestamp_seconds(current.get("lastUpdateTime")) or 0.0
        after = since + int(d["spec"]["progressDeadlineSeconds"]) - float(self.env.now)
        if after < 1.0:
            self.queue.add_rate_limited(key_of(d))
            return 0.0
        self.enqueue_after(d, after + 1.0)
        return after

    # ------------------------------------------------------------ strategies
    def rollout_rolling(self, d: dict, rs_list: list[dict]) -> None:
        """``rolloutRolling``: scale the new ReplicaSet up, else old ones down, else clean up."""
        new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list, True)
        all_rss: list[dict | None] = old_rss + [new_rs]
        if self.reconcile_new_replica_set(all_rss, new_rs, d):
            return self.sync_rollout_status(all_rss, new_rs, d)
        if self.reconcile_old_replica_sets(all_rss, filter_active_replica_sets(old_rss), new_rs, d):
            return self.sync_rollout_status(all_rss, new_rs, d)
        if du.deployment_complete(d, d.get("status") or {}):
            self.cleanup_deployment(old_rss, d)
        return self.sync_rollout_status(all_rss, new_rs, d)

    def reconcile_new_replica_set(self, all_rss: list[dict | None], new_rs: dict, d: dict) -> bool:
        """``reconcileNewReplicaSet``: grow the new ReplicaSet as far as maxSurge allows (or shrink it to size)."""
        replicas = du.replicas_of(d)
        if du.replicas_of(new_rs) == replicas:
            return False
        if du.replicas_of(new_rs) > replicas:
            scaled, _ = self.scale_replica_set_and_record_event(new_rs, replicas, d)
            return scaled
        new_count = du.new_rs_new_replicas(d, all_rss, new_rs)
        scaled, _ = self.scale_replica_set_and_record_event(new_rs, new_count, d)
        return scaled

    def reconcile_old_replica_sets(self, all_rss: list[dict | None], old_rss: list[dict], new_rs: dict,
                                   d: dict) -> bool:
        """``reconcileOldReplicaSets``: scale old ReplicaSets down without going below minAvailable.

        ``maxScaledDown = allPods - minAvailable - newRSUnavailable``; unhealthy
        old replicas go first (:meth:`cleanup_unhealthy_replicas`), then
        available ones (:meth:`scale_down_old_replica_sets_for_rolling_update`).
        """
        old_count = du.get_replica_count_for_replica_sets(old_rss)
        if old_count == 0:
            return False
        all_count = du.get_replica_count_for_replica_sets(all_rss)
        min_avail = du.replicas_of(d) - du.max_unavailable(d)
        new_unavailable = du.replicas_of(new_rs) - int((new_rs.get("status") or {}).get("availableReplicas") or 0)
        max_scaled_down = all_count - min_avail - new_unavailable
        if max_scaled_down <= 0:
            return False
        try:
            old_rss, cleanup_count = self.cleanup_unhealthy_replicas(old_rss, d, max_scaled_down)
        except ApiError:
            return False
        all_rss = list(old_rss) + [new_rs]
        try:
            scaled_down = self.scale_down_old_replica_sets_for_rolling_update(all_rss, old_rss, d)
        except ApiError:
            return False
        return cleanup_count + scaled_down > 0

    def cleanup_unhealthy_replicas(self, old_rss: list[dict], d: dict, max_cleanup: int) -> tuple[list[dict], int]:
        """``cleanupUnhealthyReplicas``: remove old replicas that are not available, oldest ReplicaSet first."""
        old_rss = replica_sets_by_creation_timestamp(old_rss)
        total = 0
        for i, rs in enumerate(old_rss):
            if total >= max_cleanup:
                break
            n = du.replicas_of(rs)
            avail = int((rs.get("status") or {}).get("availableReplicas") or 0)
            if n == 0 or n == avail:
                continue
            count = min(max_cleanup - total, n - avail)
            _, updated = self.scale_replica_set_and_record_event(rs, n - count, d)
            total += count
            old_rss[i] = updated
        return old_rss, total

    def scale_down_old_replica_sets_for_rolling_update(self, all_rss: list[dict | None], old_rss: list[dict],
                                                       d: dict) -> int:
        """``scaleDownOldReplicaSetsForRollingUpdate``: remove available old replicas above minAvailable."""
        min_avail = du.replicas_of(d) - du.max_unavailable(d)
        available = du.get_available_replica_count_for_replica_sets(all_rss)
        if available <= min_avail:
            return 0
        total = 0
        to_scale_down = available - min_avail
        for rs in replica_sets_by_creation_timestamp(old_rss):
            if total >= to_scale_down:
                break
            n = du.replicas_of(rs)
            if n == 0:
                continue
            count = min(n, to_scale_down - total)
            self.scale_replica_set_and_record_event(rs, n - count, d)
            total += count
        return total

    def rollout_recreate(self, d: dict, rs_list: list[dict], pod_map: dict[str, list[dict]]) -> None:
        """``rolloutRecreate``: old ReplicaSets to 0, wait until no old pod runs, then the new one to size."""
        new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list, False)
        all_rss: list[dict | None] = old_rss + [new_rs]
        scaled_down = False
        for rs in filter_active_replica_sets(old_rss):
            scaled, _ = self.scale_replica_set_and_record_event(rs, 0, d)
            scaled_down = scaled_down or scaled
        if scaled_down:
            return self.sync_rollout_status(all_rss, new_rs, d)
        if self.old_pods_running(new_rs, old_rss, pod_map):
            return self.sync_rollout_status(all_rss, new_rs, d)
        if new_rs is None:
            new_rs, old_rss = self.get_all_replica_sets_and_sync_revision(d, rs_list, True)
            all_rss = old_rss + [new_rs]
        self.scale_replica_set_and_record_event(new_rs, du.replicas_of(d), d)  # type: ignore[arg-type]
        if du.deployment_complete(d, d.get("status") or {}):
            self.cleanup_deployment(old_rss, d)
        return self.sync_rollout_status(all_rss, new_rs, d)

    @staticmethod
    def old_pods_running(new_rs: dict | None, old_rss: list[dict], pod_map: dict[str, list[dict]]) -> bool:
        """``oldPodsRunning``: an old ReplicaSet reports pods, or an old pod is not Succeeded/Failed."""
        if du.get_actual_replica_count_for_replica_sets(old_rss) > 0:
            return True
        new_uid = new_rs["metadata"].get("uid") if new_rs is not None else None
        for uid, pods in pod_map.items():
            if uid == new_uid:
                continue
            for p in pods:
                if (p.get("status") or {}).get("phase") not in ("Failed", "Succeeded"):
                    return True
        return False

    # ------------------------------------------------------------ controller-side rollback (annotation)
    @staticmethod
    def get_rollback_to(d: dict) -> int | None:
        """``getRollbackTo``: the revision in the ``deprecated.deployment.rollback.to`` annotation."""
        v = (d["metadata"].get("annotations") or {}).get(du.DEPRECATED_ROLLBACK_TO)
        if not v:
            return None
        try:
            return int(v)
        except ValueError:
            return None

    def rollback(self, d: dict, rs_list: list[dict]) -> None:
        """``rollback``: apply a rollback requested through the ``deprecated.deployment.rollback.to`` annotation."""
        new_rs, all_old = self.get_all_replica_sets_and_sync_revision(d, rs_list, True)
        all_rss = all_old + [new_rs]
        to = self.get_rollback_to(d) or 0
        if to == 0:
            to = du.last_revision(all_rss)
            if to == 0:
                self.event(d, "Warning", du.ROLLBACK_REVISION_NOT_FOUND, "Unable to find last revision.")
                return self._clear_rollback_to(d)
        for rs in all_rss:
            if rs is not None and du.revision(rs) == to:
                if not du.equal_ignore_hash(d["spec"]["template"], rs["spec"]["template"]):
                    du.set_from_replica_set_template(d, rs["spec"]["template"])
                    du.set_deployment_annotations_to(d, rs)
                    self._clear_rollback_to(d)
                    self.event(d, "Normal", du.ROLLBACK_DONE, f'Rolled back deployment "{d["metadata"]["name"]}" '
                                                              f'to revision {to}')
                    return None
                self.event(d, "Warning", du.ROLLBACK_TEMPLATE_UNCHANGED,
                           f'The rollback revision contains the same template as current deployment '
                           f'"{d["metadata"]["name"]}"')
                return self._clear_rollback_to(d)
        self.event(d, "Warning", du.ROLLBACK_REVISION_NOT_FOUND, "Unable to find the revision to rollback to.")
        return self._clear_rollback_to(d)

    def _clear_rollback_to(self, d: dict) -> None:
        (d["metadata"].get("annotations") or {}).pop(du.DEPRECATED_ROLLBACK_TO, None)
        self.client.update("deployments", d, d["metadata"].get("namespace"))


# --------------------------------------------------------------------------- kubectl verbs


def _owned_replica_sets(client: Any, d: dict) -> list[dict]:
    sel = LabelSelector.from_api((d.get("spec") or {}).get("selector"))
    items = client.list("replicasets", d["metadata"].get("namespace"), label_selector=str(sel))["items"]
    return [rs for rs in items if (get_controller_of(rs) or {}).get("uid") == d["metadata"].get("uid")]


def rollback(client: Any, namespace: str, name: str, to_revision: int = 0) -> str:
    """``kubectl rollout undo deployment/<name> [--to-revision=N]``: patch the template back from a ReplicaSet.

    kubectl finds the ReplicaSet of revision ``to_revision`` (0: the previous
    revision, the second highest), and sends one JSON patch replacing
    ``spec.template`` (without the ``pod-template-hash`` label) and
    ``metadata.annotations`` (the ReplicaSet's, plus the Deployment's own
    revision/apply annotations). The Deployment controller then sees a
    template equal to that old ReplicaSet's, makes it the new ReplicaSet
    (with a new revision number, the old ones in
    ``deployment.kubernetes.io/revision-history``) and rolls it out.

    Parameters
    ----------
    client : Client
    namespace, name : str
    to_revision : int
        0 for the previous revision.

    Returns
    -------
    str
        ``"rolled back"``, or ``"skipped rollback (current template already matches revision N)"``.

    Raises
    ------
    ValueError
        With kubectl's messages: ``unable to find specified revision N in history``,
        ``no rollout history found for deployment "web"``, or the paused-Deployment refusal.
    ApiError
        When reading or patching fails (404 for a missing Deployment).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollback.go (DeploymentRollbacker)
    """
    if to_revision < 0:
        raise ValueError(f"unable to find specified revision {to_revision} in history")
    d = client.get("deployments", name, namespace)
    rss = _owned_replica_sets(client, d)
    target: dict | None = None
    if to_revision == 0:
        latest_rev, prev_rev = -1, -1
        latest: dict | None = None
        for rs in rss:
            try:
                v = du.revision(rs)
            except ValueError:
                continue
            if latest_rev < v:
                prev_rev, target = latest_rev, latest
                latest_rev, latest = v, rs
            elif prev_rev < v:
                prev_rev, target = v, rs
        if target is None:
            raise ValueError(f'no rollout history found for deployment "{name}"')
    else:
        target = next((rs for rs in rss if du._revision_or_none(rs) == to_revision), None)
        if target is None:
            raise ValueError(f"unable to find specified revision {to_revision} in history")
    if (d.get("spec") or {}).get("paused"):
        raise ValueError(PAUSED_ROLLBACK_MESSAGE)
    if du.equal_ignore_hash(target["spec"]["template"], d["spec"]["template"]):
        return f"{ROLLBACK_SKIPPED} (current template already matches revision {to_revision})"
    template = deep_copy(target["spec"]["template"])
    ((template.get("metadata") or {}).get("labels") or {}).pop(DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, None)
    annotations = {k: v for k, v in (d["metadata"].get("annotations") or {}).items() if k in du.ANNOTATIONS_TO_SKIP}
    for k, v in (target["metadata"].get("annotations") or {}).items():
        if k not in du.ANNOTATIONS_TO_SKIP:
            annotations[k] = v
    patch = [{"op": "replace", "path": "/spec/template", "value": template},
             {"op": "replace", "path": "/metadata/annotations", "value": annotations}]
    client.patch("deployments", name, patch, namespace, patch_type="application/json-patch+json")
    return ROLLBACK_SUCCESS


def pause(client: Any, namespace: str, name: str) -> dict:
    """``kubectl rollout pause``: patch ``spec.paused: true``."""
    return client.patch("deployments", name, {"spec": {"paused": True}}, namespace)


def resume(client: Any, namespace: str, name: str) -> dict:
    """``kubectl rollout resume``: patch ``spec.paused: false``."""
    return client.patch("deployments", name, {"spec": {"paused": False}}, namespace)


def set_image(client: Any, namespace: str, name: str, container: str, image: str,
              resource: str = "deployments") -> dict:
    """``kubectl set image <resource>/<name> <container>=<image>``: change one container's image.

    Raises
    ------
    ValueError
        When the template has no such container (kubectl: ``unable to find container named "x"``).
    """
    obj = client.get(resource, name, namespace)
    containers = obj["spec"]["template"]["spec"].get("containers") or []
    for c in containers:
        if c.get("name") == container:
            c["image"] = image
            break
    else:
        raise ValueError(f'unable to find container named "{container}"')
    return client.update(resource, obj, namespace)
