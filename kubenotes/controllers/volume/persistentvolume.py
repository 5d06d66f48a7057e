"""The PersistentVolume controller (persistentvolume-binder): binds claims to volumes, provisions, reclaims.

One worker syncs claims and volumes (upstream runs one queue of each; here
one queue whose keys with a ``/`` are claims and the others volumes).

* **Unbound claim** (no ``pv.kubernetes.io/bind-completed``): with no
  ``spec.volumeName``, the index gives the smallest matching volume (access
  modes fewest first, then capacity, class, selector, volumeMode; see
  :mod:`kubenotes.controllers.volume.index`) and the claim is bound to it. With
  none, a claim without a class gets the default StorageClass
  (retroactively); a ``WaitForFirstConsumer`` claim not yet given a node by the
  scheduler waits (``WaitForFirstConsumer`` / ``WaitForPodScheduled`` events);
  a claim with a class is provisioned: the controller annotates it with
  ``volume.kubernetes.io/storage-provisioner`` for the class's external
  provisioner and says so (``ExternalProvisioning``); a ``kubernetes.io/``
  provisioner with no in-tree plugin fails (``ProvisioningFailed``). A claim
  naming its volume (``spec.volumeName``) is bound to it when it satisfies
  the claim (``VolumeMismatch`` otherwise).
* **Bound claim**: kept bound; ``ClaimLost`` when its volume is gone,
  ``ClaimMisbound`` when the volume is bound to another claim.
* **Volume**: ``Available`` without a claim (or pre-bound to one not yet
  bound), ``Bound`` with its claim, ``Released`` once the claim is deleted,
  then its reclaim policy: ``Retain`` keeps it, ``Delete`` deletes it (an
  external provisioner's volume is left to that provisioner), ``Recycle``
  (deprecated) scrubs a hostPath or NFS volume and makes it ``Available``.
  An unknown policy makes it ``Failed``.

Binding writes, in order: the volume's ``claimRef`` (and
``pv.kubernetes.io/bound-by-controller``), the volume's phase, the claim's
``volumeName`` (and ``bind-completed``/``bound-by-controller``), the claim's
phase with the volume's access modes and capacity. Every
``--pvclaimbinder-sync-period`` (15 s) every claim and volume is synced again:
that is how waiting claims retry.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/pv_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/pv_controller_base.go
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/events/event.go
kubernetes/kubernetes@v1.34.0 pkg/util/goroutinemap/exponentialbackoff/exponential_backoff.go
https://kubernetes.io/docs/concepts/storage/persistent-volumes/
"""

from __future__ import annotations

import re
from typing import Any

from kubenotes.api.storagehelpers import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_STORAGE_PROVISIONER,
    BETA_STORAGE_CLASS_ANNOTATION,
    check_access_modes,
    check_volume_mode_mismatches,
    claims_of_pod,
    get_default_class,
    get_persistent_volume_class,
    get_persistent_volume_claim_class,
    is_delay_binding_mode,
    is_delay_binding_provisioning,
    is_volume_bound_to_claim,
    storage_capacity_bytes,
    storage_request_bytes,
)
from kubenotes.apiserver.bootstrap_policy import (
    LEGACY_GROUP,
    STORAGE_GROUP,
    ControllerPolicy,
    events_rule,
    policy_rule,
)
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, split_key
from kubenotes.controllers.volume.index import PersistentVolumeOrderedIndex

__all__ = [
    "PersistentVolumeController", "CONTROLLER_POLICY", "DEFAULT_SYNC_PERIOD_SECONDS", "POD_PVC_INDEX",
    "check_volume_satisfy_claim", "pod_pvc_index", "ExponentialBackoff",
    "FAILED_BINDING", "VOLUME_MISMATCH", "VOLUME_FAILED_RECYCLE", "VOLUME_RECYCLED", "VOLUME_FAILED_DELETE",
    "VOLUME_DELETE", "EXTERNAL_PROVISIONING", "PROVISIONING_FAILED", "PROVISIONING_SUCCEEDED",
    "WAIT_FOR_FIRST_CONSUMER", "WAIT_FOR_POD_SCHEDULED", "CLAIM_LOST", "CLAIM_MISBOUND",
    "VOLUME_UNKNOWN_RECLAIM_POLICY",
]

#: Upstream's ``system:controller:persistent-volume-binder`` role (``controller_policy.go``); the
#: glusterfs/openstack rules (endpoints, services, secrets, nodes) are kept as upstream lists them.
CONTROLLER_POLICY = ControllerPolicy("persistent-volume-binder", (
    policy_rule(("get", "list", "watch", "update", "create", "delete"), (LEGACY_GROUP,), ("persistentvolumes",)),
    policy_rule(("update",), (LEGACY_GROUP,), ("persistentvolumes/status",)),
    policy_rule(("get", "list", "watch", "update"), (LEGACY_GROUP,), ("persistentvolumeclaims",)),
    policy_rule(("update",), (LEGACY_GROUP,), ("persistentvolumeclaims/status",)),
    policy_rule(("list", "watch", "get", "create", "delete"), (LEGACY_GROUP,), ("pods",)),
    policy_rule(("get", "list", "watch"), (STORAGE_GROUP,), ("storageclasses",)),
    policy_rule(("get", "create", "update", "delete"), (LEGACY_GROUP,), ("endpoints",)),
    policy_rule(("get", "create", "delete"), (LEGACY_GROUP,), ("services",)),
    policy_rule(("get",), (LEGACY_GROUP,), ("secrets",)),
    policy_rule(("get", "list"), (LEGACY_GROUP,), ("nodes",)),
    policy_rule(("watch",), (LEGACY_GROUP,), ("events",)),
    events_rule(),
))

#: ``--pvclaimbinder-sync-period`` (``PersistentVolumeBinderControllerConfiguration.PVClaimBinderSyncPeriod``).
DEFAULT_SYNC_PERIOD_SECONDS = 15.0
#: ``common.PodPVCIndex``: pods by ``<namespace>/<claim>`` of each claim they use.
POD_PVC_INDEX = "pod-pvc-index"

# Event reasons (pkg/controller/volume/events/event.go)
FAILED_BINDING = "FailedBinding"
VOLUME_MISMATCH = "VolumeMismatch"
VOLUME_FAILED_RECYCLE = "VolumeFailedRecycle"
VOLUME_RECYCLED = "VolumeRecycled"
VOLUME_FAILED_DELETE = "VolumeFailedDelete"
VOLUME_DELETE = "VolumeDelete"
EXTERNAL_PROVISIONING = "ExternalProvisioning"
PROVISIONING_FAILED = "ProvisioningFailed"
PROVISIONING_SUCCEEDED = "ProvisioningSucceeded"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
WAIT_FOR_POD_SCHEDULED = "WaitForPodScheduled"
CLAIM_LOST = "ClaimLost"
CLAIM_MISBOUND = "ClaimMisbound"
VOLUME_UNKNOWN_RECLAIM_POLICY = "VolumeUnknownReclaimPolicy"

MSG_WAIT_FOR_FIRST_CONSUMER = "waiting for first consumer to be created before binding"
MSG_NO_CLASS = "no persistent volumes available for this claim and no storage class is set"
MSG_EXTERNAL_PROVISIONING = ("Waiting for a volume to be created either by the external provisioner '{name}' or "
                             "manually by the system administrator. If volume creation is delayed, please verify "
                             "that the provisioner is running and correctly registered.")
MSG_CLAIM_LOST_REFERENCE = "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!"
MSG_CLAIM_LOST_VOLUME = "Bound claim has lost its PersistentVolume. Data on the volume is lost!"
MSG_CLAIM_MISBOUND = "Two claims are bound to the same volume, this one is bound incorrectly"
MSG_UNKNOWN_RECLAIM_POLICY = "Volume has unrecognized PersistentVolumeReclaimPolicy"
MSG_NO_RECYCLER = "No recycler plugin found for the volume!"

#: ``exponentialbackoff``: the first retry of a failed operation waits 500 ms, doubling up to 2 m 2 s.
INITIAL_DURATION_BEFORE_RETRY_SECONDS = 0.5
MAX_DURATION_BEFORE_RETRY_SECONDS = 122.0

_TMP_PATH = re.compile(r"^/tmp/.+")


def pod_pvc_index(pod: dict) -> list[str]:
    """``common.PodPVCIndexFunc``: ``<namespace>/<claim>`` for each claim of the pod.

    Examples
    --------
    >>> pod_pvc_index({"metadata": {"name": "p", "namespace": "ns"},
    ...                "spec": {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}})
    ['ns/data']
    """
    ns = (pod.get("metadata") or {}).get("namespace", "")
    return [f"{ns}/{c}" for c in claims_of_pod(pod)]


def check_volume_satisfy_claim(volume: dict, claim: dict) -> str | None:
    """``checkVolumeSatisfyClaim``: why a requested volume cannot serve the claim, or None.

    Examples
    --------
    >>> pv = {"metadata": {"name": "pv1"}, "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}}
    >>> check_volume_satisfy_claim(pv, {"spec": {"resources": {"requests": {"storage": "2Gi"}}}})
    'requested PV is too small'
    >>> check_volume_satisfy_claim(pv, {"spec": {"accessModes": ["ReadWriteMany"],
    ...                                          "resources": {"requests": {"storage": "1Gi"}}}})
    'incompatible accessMode'
    """
    if (volume.get("metadata") or {}).get("deletionTimestamp"):
        return f'the volume is marked for deletion "{volume["metadata"]["name"]}"'
    if storage_capacity_bytes(volume) < storage_request_bytes(claim):
        return "requested PV is too small"
    if get_persistent_volume_class(volume) != get_persistent_volume_claim_class(claim):
        return "storageClassName does not match"
    if check_volume_mode_mismatches(claim.get("spec") or {}, volume.get("spec") or {}):
        return "incompatible volumeMode"
    if not check_access_modes(claim, volume):
        return "incompatible accessMode"
    return None


def _ann(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("annotations") or {}


def _rv(obj: dict) -> int:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0)
    except ValueError:
        return 0


def _claim_key(claim: dict) -> str:
    return f'{claim["metadata"].get("namespace", "")}/{claim["metadata"]["name"]}'


def _claimref_key(ref: dict) -> str:
    return f'{ref.get("namespace", "")}/{ref.get("name", "")}'


class ExponentialBackoff:
    """``goroutinemap``'s per-operation exponential back-off (``exponentialbackoff.ExponentialBackoff``).

    Examples
    --------
    >>> b = ExponentialBackoff()
    >>> b.failed("op", now=0.0); b.failed("op", now=0.0); b.safe_to_retry("op", now=0.9), b.safe_to_retry("op", now=1.0)
    (False, True)
    """

    def __init__(self, initial_seconds: float = INITIAL_DURATION_BEFORE_RETRY_SECONDS,
                 max_seconds: float = MAX_DURATION_BEFORE_RETRY_SECONDS):
        self.initial_seconds, self.max_seconds = initial_seconds, max_seconds
        self._state: dict[str, tuple[float, float]] = {}  # name -> (last error time, duration)

    def failed(self, name: str, now: float) -> None:
        """Record a failure: the first waits ``initial_seconds``, each next one twice the previous."""
        _, dur = self._state.get(name, (0.0, 0.0))
        dur = self.initial_seconds if dur == 0 else min(dur * 2, self.max_seconds)
        self._state[name] = (now, dur)

    def succeeded(self, name: str) -> None:
        self._state.pop(name, None)

    def safe_to_retry(self, name: str, now: float) -> bool:
        t, dur = self._state.get(name, (0.0, 0.0))
        return dur == 0 or now >= t + dur


class PersistentVolumeController(Controller):
    """``persistentvolume.PersistentVolumeController`` (kube-controller-manager's ``persistentvolume-binder-controller``).

    Parameters
    ----------
    ctx : ControllerContext
        ``options["pvclaimbinder-sync-period"]`` (seconds, default 15) sets the resync;
        ``options["enable-dynamic-provisioning"]`` (default True) as upstream's flag.

    Attributes
    ----------
    volumes : PersistentVolumeOrderedIndex
        The controller's own volume cache (informer events and its own writes, newest resourceVersion wins).
    claims : dict of str to dict
        The same for claims, by ``namespace/name``.

    Notes
    -----
    Asynchronous operations (provision, delete, recycle) run inline in the
    worker, each behind upstream's per-operation exponential back-off (500 ms
    doubling to 2 m 2 s) after a failure. No in-tree volume plugin provisions
    (v1.34 has none left but CSI migration); the in-tree deleter is hostPath's
    (``/tmp`` paths only) and the recycler hostPath's and NFS's, which succeed
    at once (no recycler pod). CSI migration annotations, the
    ``kubernetes.io/pv-controller`` finalizer (HonorPVReclaimPolicy) and
    metrics are not modelled; ``status.lastPhaseTransitionTime`` is left to the
    API server.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/pv_controller.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-10g"},
    ...       "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
    ...                "hostPath": {"path": "/data/pv-10g"}}}
    >>> pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
    ...        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
    ...                 "resources": {"requests": {"storage": "5Gi"}}}}
    >>> c = Cluster([pv, pvc], controllers=["persistentvolume-binder-controller"], authorization=False)
    >>> c.run(until=5)
    >>> claim = c.get("persistentvolumeclaims", "data", "default")
    >>> claim["spec"]["volumeName"], claim["status"]["phase"], claim["status"]["capacity"]
    ('pv-10g', 'Bound', {'storage': '10Gi'})
    >>> c.get("persistentvolumes", "pv-10g")["status"]["phase"]
    'Bound'
    """

    name = "persistentvolume-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        self.volumes = PersistentVolumeOrderedIndex()
        self.claims: dict[str, dict] = {}
        self.backoff = ExponentialBackoff()
        self.sync_period_seconds = float(self.option("pvclaimbinder-sync-period", DEFAULT_SYNC_PERIOD_SECONDS))
        self.enable_dynamic_provisioning = bool(self.option("enable-dynamic-provisioning", True))
        self.volume_informer = self.informers.informer_for("persistentvolumes")
        self.claim_informer = self.informers.informer_for("persistentvolumeclaims")
        self.class_informer = self.informers.informer_for("storageclasses")
        self.pod_informer = self.informers.informer_for("pods")
        self.node_informer = self.informers.informer_for("nodes")
        self.pod_informer.add_indexers({POD_PVC_INDEX: pod_pvc_index})
        self.volume_informer.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur),
                                               lambda o: self.enqueue(unwrap_deleted(o)))
        self.claim_informer.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur),
                                              lambda o: self.enqueue(unwrap_deleted(o)))
        self.every(self.sync_period_seconds, self.resync)

    # ------------------------------------------------------------ caches and queue
    def resync(self) -> None:
        """``resync``: enqueue every claim and volume the informers hold."""
        for claim in self.claim_informer.lister.list():
            self.enqueue(claim)
        for volume in self.volume_informer.lister.list():
            self.enqueue(volume)

    def _store_volume(self, volume: dict) -> bool:
        """``storeVolumeUpdate``: keep the newer version; False when the cache already holds a newer one."""
        old = self.volumes.get(volume["metadata"]["name"])
        if old is not None and _rv(old) > _rv(volume):
            return False
        self.volumes.add(volume)
        return True

    def _store_claim(self, claim: dict) -> bool:
        key = _claim_key(claim)
        old = self.claims.get(key)
        if old is not None and _rv(old) > _rv(claim):
            return False
        self.claims[key] = claim
        return True

    def _get_class(self, name: str) -> dict | None:
        return self.class_informer.lister.get(None, name)

    def reconcile(self, key: str) -> Result | None:
        """``syncClaimByKey`` for ``namespace/name`` keys, ``syncVolumeByKey`` for volume names.

        Errors are not retried with back-off (as upstream, which only logs
        them): the next resync tries again.
        """
        try:
            if "/" in key:
                self._sync_claim_by_key(key)
            else:
                self._sync_volume_by_key(key)
        except ApiError as e:
            self.errors.append((float(self.env.now), key, str(e)))
        return None

    def _sync_claim_by_key(self, key: str) -> None:
        ns, name = split_key(key)
        claim = self.claim_informer.lister.get(ns, name)
        if claim is not None:
            if self._store_claim(claim):
                self.sync_claim(self.claims[key])
            return
        old = self.claims.pop(key, None)
        if old is not None:
            # deleteClaim: sync the volume now, so that it is Released (or deleted) at once
            volume_name = (old.get("spec") or {}).get("volumeName")
            if volume_name:
                self.enqueue(volume_name)

    def _sync_volume_by_key(self, name: str) -> None:
        volume = self.volume_informer.lister.get(None, name)
        if volume is not None:
            if self._store_volume(volume):
                self.sync_volume(self.volumes.get(name))
            return
        old = self.volumes.get(name)
        if old is not None:
            self.volumes.delete(name)
            ref = (old.get("spec") or {}).get("claimRef")
            if ref:
                self.enqueue(_claimref_key(ref))

    # ------------------------------------------------------------ claims
    def sync_claim(self, claim: dict) -> None:
        """``syncClaim``: unbound and bound claims take different paths."""
        if ANN_BIND_COMPLETED not in _ann(claim):
            self._sync_unbound_claim(claim)
        else:
            self._sync_bound_claim(claim)

    def _emit_event_for_unbound_delay_binding_claim(self, claim: dict) -> None:
        reason, message = WAIT_FOR_FIRST_CONSUMER, MSG_WAIT_FOR_FIRST_CONSUMER
        pods = self._find_non_scheduled_pods_by_pvc(claim)
        if pods:
            reason = WAIT_FOR_POD_SCHEDULED
            message = (f"waiting for pods {','.join(pods)} to be scheduled" if len(pods) > 1
                       else f"waiting for pod {pods[0]} to be scheduled")
        self.event(claim, "Normal", reason, message)

    def _pods_using(self, claim_key: str) -> list[dict]:
        return sorted(self.pod_informer.indexer.by_index(POD_PVC_INDEX, claim_key),
                      key=lambda p: p["metadata"]["name"])

    def _find_non_scheduled_pods_by_pvc(self, claim: dict) -> list[str]:
        return [p["metadata"]["name"] for p in self._pods_using(_claim_key(claim))
                if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
                and not (p.get("spec") or {}).get("nodeName")]

    def _sync_unbound_claim(self, claim: dict) -> None:
        spec = claim.get("spec") or {}
        if not spec.get("volumeName"):
            try:
                delay = is_delay_binding_mode(claim, self._get_class)
            except ValueError:
                return
            volume = self.volumes.find_by_claim(claim, delay)
            if volume is None:
                if self._assign_default_storage_class(claim):
                    return
                if delay and not is_delay_binding_provisioning(claim):
                    self._emit_event_for_unbound_delay_binding_claim(claim)
                elif get_persistent_volume_claim_class(claim):
                    self._provision_claim(claim)
                    return
                else:
                    self.event(claim, "Normal", FAILED_BINDING, MSG_NO_CLASS)
                self._update_claim_status(claim, "Pending", None)
                return
            self._bind(volume, claim)
            return
        # the user asked for a specific volume
        volume = self.volumes.get(spec["volumeName"])
        if volume is None:
            self._update_claim_status(claim, "Pending", None)
            return
        if not (volume.get("spec") or {}).get("claimRef"):
            why = check_volume_satisfy_claim(volume, claim)
            if why is not None:
                self.event(claim, "Warning", VOLUME_MISMATCH,
                           f'Cannot bind to requested volume "{volume["metadata"]["name"]}": {why}')
                self._update_claim_status(claim, "Pending", None)
                return
            self._bind(volume, claim)
        elif is_volume_bound_to_claim(volume, claim):
            self._bind(volume, claim)
        else:
            self.event(claim, "Warning", FAILED_BINDING,
                       f'volume "{volume["metadata"]["name"]}" already bound to a different claim.')
            if ANN_BOUND_BY_CONTROLLER not in _ann(claim):
                self._update_claim_status(claim, "Pending", None)

    def _sync_bound_claim(self, claim: dict) -> None:
        volume_name = (claim.get("spec") or {}).get("volumeName")
        if not volume_name:
            self._update_claim_status_with_event(claim, "Lost", None, "Warning", CLAIM_LOST, MSG_CLAIM_LOST_REFERENCE)
            return
        volume = self.volumes.get(volume_name)
        if volume is None:
            self._update_claim_status_with_event(claim, "Lost", None, "Warning", CLAIM_LOST, MSG_CLAIM_LOST_VOLUME)
            return
        ref = (volume.get("spec") or {}).get("claimRef")
        if not ref or ref.get("uid") == claim["metadata"].get("uid"):
            self._bind(volume, claim)
        else:
            self._update_claim_status_with_event(claim, "Lost", None, "Warning", CLAIM_MISBOUND, MSG_CLAIM_MISBOUND)

    def _assign_default_storage_class(self, claim: dict) -> bool:
        """``assignDefaultStorageClass`` (RetroactiveDefaultStorageClass): a claim with no class at all
        (``storageClassName`` unset, not "") gets the default class; True when the claim was updated."""
        spec = claim.get("spec") or {}
        if "storageClassName" in spec and spec["storageClassName"] is not None:
            return False
        if BETA_STORAGE_CLASS_ANNOTATION in _ann(claim):
            return False
        default = get_default_class(self.class_informer.lister.list())
        if default is None:
            return False
        new = deep_copy(claim)
        new["spec"]["storageClassName"] = default["metadata"]["name"]
        self._store_claim(self.client.update("persistentvolumeclaims", new, claim["metadata"]["namespace"]))
        return True

    # ------------------------------------------------------------ volumes
    def sync_volume(self, volume: dict) -> None:
        """``syncVolume``: the volume's phase from its claim, and the reclaim policy once released."""
        ref = (volume.get("spec") or {}).get("claimRef")
        if not ref:
            self._update_volume_phase(volume, "Available")
            return
        if not ref.get("uid"):
            # pre-bound to a claim that has not been bound to it yet: the claim's sync will
            self._update_volume_phase(volume, "Available")
            return
        claim = self.claims.get(_claimref_key(ref))
        if claim is None and (volume.get("status") or {}).get("phase") not in ("Released", "Failed"):
            claim = self.claim_informer.lister.get(ref.get("namespace"), ref.get("name"))
            if claim is None:
                try:
                    claim = self.client.get("persistentvolumeclaims", ref.get("name"), ref.get("namespace"))
                except ApiError as e:
                    if e.code != 404:
                        raise
        if claim is not None and claim["metadata"].get("uid") != ref.get("uid"):
            claim = None  # a new claim of the same name: the old one was deleted
        if claim is None:
            phase = (volume.get("status") or {}).get("phase")
            if phase not in ("Released", "Failed"):
                volume = self._update_volume_phase(volume, "Released")
            self._reclaim_volume(volume)
            return
        cvol = (claim.get("spec") or {}).get("volumeName")
        if not cvol:
            if check_volume_mode_mismatches(claim.get("spec") or {}, volume.get("spec") or {}):
                self.event(volume, "Warning", VOLUME_MISMATCH,
                           f'Cannot bind PersistentVolume to requested PersistentVolumeClaim '
                           f'"{claim["metadata"]["name"]}" due to incompatible volumeMode.')
                self.event(claim, "Warning", VOLUME_MISMATCH,
                           f'Cannot bind PersistentVolume "{volume["metadata"]["name"]}" to requested '
                           f'PersistentVolumeClaim due to incompatible volumeMode.')
                return
            self.enqueue(_claim_key(claim))
            return
        if cvol == volume["metadata"]["name"]:
            self._update_volume_phase(volume, "Bound")
            return
        # bound to a claim that is bound to another volume
        if ANN_DYNAMICALLY_PROVISIONED in _ann(volume) and \
                (volume.get("spec") or {}).get("persistentVolumeReclaimPolicy") == "Delete":
            if (volume.get("status") or {}).get("phase") not in ("Released", "Failed"):
                volume = self._update_volume_phase(volume, "Released")
            self._reclaim_volume(volume)
            return
        self._unbind_volume(volume)

    def _reclaim_volume(self, volume: dict) -> None:
        """``reclaimVolume``: Retain, Recycle or Delete."""
        policy = (volume.get("spec") or {}).get("persistentVolumeReclaimPolicy")
        name = volume["metadata"]["name"]
        if policy == "Retain":
            return
        if policy == "Recycle":
            self._run_operation(f"recycle-{name}[{volume['metadata'].get('uid', '')}]",
                                lambda: self._recycle_volume_operation(volume))
        elif policy == "Delete":
            self._run_operation(f"delete-{name}[{volume['metadata'].get('uid', '')}]",
                                lambda: self._delete_volume_operation(volume))
        else:
            self._update_volume_phase_with_event(volume, "Failed", "Warning", VOLUME_UNKNOWN_RECLAIM_POLICY,
                                                 MSG_UNKNOWN_RECLAIM_POLICY)

    def _run_operation(self, name: str, op: Any) -> None:
        """``scheduleOperation``: run unless the operation is in its back-off after a failure."""
        now = float(self.env.now)
        if not self.backoff.safe_to_retry(name, now):
            return
        try:
            ok = op()
        except ApiError:
            ok = False
        if ok is False:
            self.backoff.failed(name, now)
        else:
            self.backoff.succeeded(name)

    def _is_volume_released(self, volume: dict) -> bool:
        """``isVolumeReleased``: bound (uid set) to a claim that is gone or bound elsewhere."""
        ref = (volume.get("spec") or {}).get("claimRef")
        if not ref or not ref.get("uid"):
            return False
        claim = self.claims.get(_claimref_key(ref))
        if claim is not None and claim["metadata"].get("uid") == ref.get("uid"):
            cvol = (claim.get("spec") or {}).get("volumeName")
            return bool(cvol) and cvol != volume["metadata"]["name"]
        return True

    def _recycle_volume_operation(self, volume: dict) -> bool:
        try:
            volume = self.client.get("persistentvolumes", volume["metadata"]["name"])
        except ApiError:
            return True
        if not self._is_volume_released(volume):
            return True
        spec = volume.get("spec") or {}
        if not (spec.get("hostPath") or spec.get("nfs")):
            self._update_volume_phase_with_event(volume, "Failed", "Warning", VOLUME_FAILED_RECYCLE, MSG_NO_RECYCLER)
            return False
        self.event(volume, "Normal", VOLUME_RECYCLED, "Volume recycled")
        self._unbind_volume(volume)
        return True

    def _delete_volume_operation(self, volume: dict) -> bool:
        try:
            volume = self.client.get("persistentvolumes", volume["metadata"]["name"])
        except ApiError:
            return True
        if not self._is_volume_released(volume):
            return True
        deleted, err = self._do_delete_volume(volume)
        if err is not None:
            self._update_volume_phase_with_event(volume, "Failed", "Warning", VOLUME_FAILED_DELETE, err)
            return False
        if not deleted:
            return True  # an external provisioner deletes it
        try:
            self.client.delete("persistentvolumes", volume["metadata"]["name"])
        except ApiError:
            pass
        return True

    def _do_delete_volume(self, volume: dict) -> tuple[bool, str | None]:
        """``doDeleteVolume`` + ``findDeletablePlugin``: (deleted, error message)."""
        prov = _ann(volume).get(ANN_DYNAMICALLY_PROVISIONED, "")
        spec = volume.get("spec") or {}
        if prov and not prov.startswith("kubernetes.io/"):
            return False, None  # external deleter
        if spec.get("csi"):
            return False, None  # HonorPVReclaimPolicy: a CSI volume is its external provisioner's
        name = volume["metadata"]["name"]
        if spec.get("hostPath"):
            path = spec["hostPath"].get("path", "")
            if not _TMP_PATH.match(path):
                return False, f"host_path deleter only supports /tmp/.+ but received provided {path}"
            return True, None
        return False, (f'error getting deleter volume plugin for volume "{name}": '
                       "no volume plugin matched")

    # ------------------------------------------------------------ provisioning
    def _provision_claim(self, claim: dict) -> None:
        """``provisionClaim``: hand the claim to its class's provisioner."""
        if not self.enable_dynamic_provisioning:
            return
        class_name = get_persistent_volume_claim_class(claim)
        sc = self._get_class(class_name)
        if sc is None:
            self.event(claim, "Warning", PROVISIONING_FAILED, f'storageclass.storage.k8s.io "{class_name}" not found')
            return
        provisioner = sc.get("provisioner", "")
        if provisioner.startswith("kubernetes.io/"):
            # no in-tree provisioner is left in v1.34 (kubernetes.io/no-provisioner included)
            self.event(claim, "Warning", PROVISIONING_FAILED, f"no volume plugin matched name: {provisioner}")
            return
        op = f"provision-{_claim_key(claim)}[{claim['metadata'].get('uid', '')}]"
        self._run_operation(op, lambda: self._provision_claim_operation_external(claim, provisioner))

    def _provision_claim_operation_external(self, claim: dict, provisioner: str) -> bool:
        claim = self._set_claim_provisioner(claim, provisioner)
        self.event(claim, "Normal", EXTERNAL_PROVISIONING, MSG_EXTERNAL_PROVISIONING.format(name=provisioner))
        return True

    def _set_claim_provisioner(self, claim: dict, provisioner: str) -> dict:
        """``setClaimProvisioner``: both provisioner annotations on the claim."""
        ann = _ann(claim)
        if ann.get(ANN_STORAGE_PROVISIONER) == provisioner and ann.get(ANN_BETA_STORAGE_PROVISIONER) == provisioner:
            return claim
        new = deep_copy(claim)
        anns = new["metadata"].setdefault("annotations", {})
        anns[ANN_BETA_STORAGE_PROVISIONER] = provisioner
        anns[ANN_STORAGE_PROVISIONER] = provisioner
        new = self.client.update("persistentvolumeclaims", new, claim["metadata"]["namespace"])
        self._store_claim(new)
        return new

    # ------------------------------------------------------------ writes
    def _update_claim_status(self, claim: dict, phase: str, volume: dict | None) -> dict:
        """``updateClaimStatus``: phase, and the volume's access modes and capacity (when it becomes Bound)."""
        status = claim.get("status") or {}
        new = deep_copy(claim)
        nst = new.setdefault("status", {})
        dirty = False
        if status.get("phase") != phase:
            nst["phase"] = phase
            dirty = True
        if volume is None:
            for f in ("accessModes", "capacity"):
                if status.get(f) is not None:
                    nst.pop(f, None)
                    dirty = True
        else:
            vspec = volume.get("spec") or {}
            if status.get("accessModes") != vspec.get("accessModes"):
                nst["accessModes"] = list(vspec.get("accessModes") or [])
                dirty = True
            if status.get("phase") != phase:
                cap = (vspec.get("capacity") or {}).get("storage")
                if (status.get("capacity") or {}).get("storage") != cap:
                    nst["capacity"] = dict(vspec.get("capacity") or {})
                    dirty = True
        if not dirty:
            return claim
        new = self.client.update_status("persistentvolumeclaims", new, claim["metadata"]["namespace"])
        self._store_claim(new)
        return new

    def _update_claim_status_with_event(self, claim: dict, phase: str, volume: dict | None, event_type: str,
                                        reason: str, message: str) -> dict:
        if (claim.get("status") or {}).get("phase") == phase:
            return claim
        new = self._update_claim_status(claim, phase, volume)
        self.event(new, event_type, reason, message)
        return new

    def _update_volume_phase(self, volume: dict, phase: str, message: str = "") -> dict:
        """``updateVolumePhase``."""
        if (volume.get("status") or {}).get("phase") == phase:
            return volume
        new = deep_copy(volume)
        st = new.setdefault("status", {})
        st["phase"] = phase
        if message:
            st["message"] = message
        else:
            st.pop("message", None)
        new = self.client.update_status("persistentvolumes", new)
        self._store_volume(new)
        return new

    def _update_volume_phase_with_event(self, volume: dict, phase: str, event_type: str, reason: str,
                                        message: str) -> dict:
        if (volume.get("status") or {}).get("phase") == phase:
            return volume
        new = self._update_volume_phase(volume, phase, message)
        self.event(new, event_type, reason, message)
        return new

    def _bind_volume_to_claim(self, volume: dict, claim: dict) -> dict:
        """``bindVolumeToClaim``: the volume's ``claimRef`` (and ``bound-by-controller`` unless pre-bound)."""
        set_by_controller = not is_volume_bound_to_claim(volume, claim)
        md = claim["metadata"]
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        new = deep_copy(volume)
        dirty = False
        if (ref.get("name"), ref.get("namespace"), ref.get("uid")) != (md["name"], md["namespace"], md.get("uid")):
            new["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": md["namespace"],
                                       "name": md["name"], "uid": md.get("uid"), "apiVersion": "v1",
                                       "resourceVersion": md.get("resourceVersion")}
            dirty = True
        if set_by_controller and ANN_BOUND_BY_CONTROLLER not in _ann(new):
            new["metadata"].setdefault("annotations", {})[ANN_BOUND_BY_CONTROLLER] = "yes"
            dirty = True
        if not dirty:
            return volume
        new = self.client.update("persistentvolumes", new)
        self._store_volume(new)
        return new

    def _bind_claim_to_volume(self, claim: dict, volume: dict) -> dict:
        """``bindClaimToVolume``: the claim's ``volumeName`` and its binding annotations."""
        vname = volume["metadata"]["name"]
        set_by_controller = (claim.get("spec") or {}).get("volumeName") != vname
        new = deep_copy(claim)
        dirty = False
        if new["spec"].get("volumeName") != vname:
            new["spec"]["volumeName"] = vname
            dirty = True
        anns = new["metadata"].setdefault("annotations", {})
        if set_by_controller and ANN_BOUND_BY_CONTROLLER not in anns:
            anns[ANN_BOUND_BY_CONTROLLER] = "yes"
            dirty = True
        if ANN_BIND_COMPLETED not in anns:
            anns[ANN_BIND_COMPLETED] = "yes"
            dirty = True
        if not dirty:
            return claim
        new = self.client.update("persistentvolumeclaims", new, claim["metadata"]["namespace"])
        self._store_claim(new)
        return new

    def _bind(self, volume: dict, claim: dict) -> None:
        """``bind``: volume spec, volume status, claim spec, claim status, in that order."""
        volume = self._bind_volume_to_claim(volume, claim)
        volume = self._update_volume_phase(volume, "Bound")
        claim = self._bind_claim_to_volume(claim, volume)
        self._update_claim_status(claim, "Bound", volume)

    def _unbind_volume(self, volume: dict) -> None:
        """``unbindVolume``: drop a controller-made binding, or only the uid of a user's pre-binding."""
        new = deep_copy(volume)
        if ANN_BOUND_BY_CONTROLLER in _ann(volume):
            new["spec"].pop("claimRef", None)
            anns = new["metadata"].get("annotations") or {}
            anns.pop(ANN_BOUND_BY_CONTROLLER, None)
            if not anns:
                new["metadata"].pop("annotations", None)
        else:
            new["spec"]["claimRef"].pop("uid", None)
        new = self.client.update("persistentvolumes", new)
        self._store_volume(new)
        self._update_volume_phase(new, "Available")

