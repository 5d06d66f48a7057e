"""The external-resizer sidecar: a grown claim of one CSI driver to a ControllerExpandVolume call.

A user grows a Bound claim's ``spec.resources.requests.storage`` (the API
server allows it only for a class with ``allowVolumeExpansion: true``). The
external-resizer, a sidecar of the driver's controller pod, watches the claims
whose volume is a CSI volume of its driver (``spec.csi.driver``) and bound to
them (``claimRef`` uid), and whose request exceeds ``status.capacity``; with
v1.34's recovery from expansion failure (``RecoverVolumeExpansionFailure``,
GA) it records its progress in the claim's status:

1. ``markControllerResizeInProgress``: condition ``Resizing`` (True),
   ``allocatedResources.storage`` the new size and
   ``allocatedResourceStatuses.storage: ControllerResizeInProgress``; event
   ``Resizing`` (``External resizer is resizing volume <pv>``).
2. ``ControllerExpandVolume`` (volume id, ``capacity_range.required_bytes``,
   the volume capability). A failure is event ``VolumeResizeFailed``
   (``resize volume "<pv>" by resizer "<driver>" failed: <error>``) and a retry
   with back-off; an ``InvalidArgument`` or ``OutOfRange`` answer is infeasible
   (``ControllerResizeInfeasible``) and is not retried until the claim changes.
3. The PersistentVolume's ``spec.capacity.storage`` becomes the new size.
4. When the driver answers ``node_expansion_required`` (the hostpath driver
   always does): condition ``FileSystemResizePending`` (``Waiting for user to
   (re-)start a pod to finish file system resize of volume on node.``),
   ``allocatedResourceStatuses.storage: NodeResizePending``, event
   ``FileSystemResizeRequired`` (``Require file system resize of volume on node``);
   the kubelet finishes the resize (:meth:`kubenotes.kubelet.csi.CSIVolumePlugin.node_expand`:
   ``NodeExpandVolume``, then ``status.capacity`` and the condition cleared). Otherwise ``status.capacity`` becomes the
   new size, the resize conditions and status go, event ``VolumeResizeSuccessful``
   (``Resize volume succeeded``).

Notes
-----
With the stand-in kubelet (no volume manager) a claim whose driver asks for
node expansion stays ``FileSystemResizePending`` / ``NodeResizePending`` with
the PV grown. Not modelled: leader election,
the ``volume.kubernetes.io/storage-resizer`` annotation written by
kube-controller-manager's expand controller (the sidecar matches the PV's
driver instead), offline-only drivers and the in-use check, the slow retry
set of infeasible claims (here: no retry until the claim changes),
shrinking back to recover (``VolumeSizeRestored``), secrets, VolumeAttributesClass
modification.

References
----------
kubernetes-csi/external-resizer@v1.14 pkg/controller/controller.go (syncPVC, updatePVCapacity)
kubernetes-csi/external-resizer@v1.14 pkg/controller/expand_and_recover.go (expandAndRecover, callResizeOnPlugin)
kubernetes-csi/external-resizer@v1.14 pkg/controller/resize_status.go (markControllerResizeInProgress,
markForPendingNodeExpansion, markOverallExpansionAsFinished)
kubernetes-csi/external-resizer@v1.14 pkg/util/events.go
kubernetes-csi/external-resizer@v1.14 deploy/kubernetes/rbac.yaml
https://github.com/kubernetes/enhancements/tree/master/keps/sig-storage/1790-recover-resize-failure
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.quantity import format_quantity
from kubenotes.api.quantity import value as quantity_value
from kubenotes.api.storagehelpers import claim_with_resize_status, storage_capacity_bytes, storage_request_bytes
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, events_rule, policy_rule
from kubenotes.apiserver.server import format_timestamp
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.reconciler import Controller, Result, split_key
from kubenotes.controllers.volume.external_attacher import volume_capability
from kubenotes.controllers.volume.external_provisioner import _install_sidecar_rbac
from kubenotes.errors import KubenotesError

__all__ = ["ExternalResizer", "RESIZER_CLUSTER_ROLE", "RESIZING", "FILE_SYSTEM_RESIZE_PENDING",
           "CONTROLLER_RESIZE_IN_PROGRESS", "CONTROLLER_RESIZE_INFEASIBLE", "NODE_RESIZE_PENDING",
           "MSG_FILE_SYSTEM_RESIZE_PENDING"]

#: Claim condition types.
RESIZING = "Resizing"
FILE_SYSTEM_RESIZE_PENDING = "FileSystemResizePending"
#: ``ClaimResourceStatus`` values (``status.allocatedResourceStatuses.storage``).
CONTROLLER_RESIZE_IN_PROGRESS = "ControllerResizeInProgress"
CONTROLLER_RESIZE_INFEASIBLE = "ControllerResizeInfeasible"
NODE_RESIZE_PENDING = "NodeResizePending"
MSG_FILE_SYSTEM_RESIZE_PENDING = "Waiting for user to (re-)start a pod to finish file system resize of volume on node."
#: gRPC codes of an expansion the driver can never do (``IsInfeasibleError``; gRPC's names, not kubenotes.csi's).
_INFEASIBLE_CODES = ("InvalidArgument", "OutOfRange")
#: The sidecar's ClusterRole (its ``rbac.yaml``; the model updates where it patches), bound to ``csi-resizer``.
RESIZER_CLUSTER_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
    "metadata": {"name": "external-resizer-runner"},
    "rules": [
        policy_rule(("get", "list", "watch", "patch", "update"), (LEGACY_GROUP,), ("persistentvolumes",)),
        policy_rule(("get", "list", "watch"), (LEGACY_GROUP,), ("persistentvolumeclaims",)),
        policy_rule(("get", "list", "watch"), (LEGACY_GROUP,), ("pods",)),
        policy_rule(("patch", "update"), (LEGACY_GROUP,), ("persistentvolumeclaims/status",)),
        events_rule(),
    ],
}


class ExternalResizer(Controller):
    """The external-resizer of one CSI driver (see the module docstring).

    Attributes
    ----------
    driver : object
        The CSI driver's Identity and Controller services (``GetPluginInfo``, ``ControllerExpandVolume``);
        set with :meth:`configured`.
    """

    name = "csi-resizer"
    service_account = "csi-resizer"
    driver: Any = None

    def __init__(self, ctx: Any):
        if self.driver is None:
            raise ValueError("ExternalResizer needs a driver: ExternalResizer.configured(driver=...)")
        _install_sidecar_rbac(ctx, RESIZER_CLUSTER_ROLE, "csi-resizer")
        super().__init__(ctx)


    def setup(self) -> None:
        self.driver_name = self.driver.GetPluginInfo({})["name"]
        self.recorder.component = f"external-resizer {self.driver_name}"
        self.recorder._seq = 6 << 20  # apart from the other recorders' event names
        self.claims = self.informers.informer_for("persistentvolumeclaims")
        self.volumes = self.informers.informer_for("persistentvolumes")
        self.claims.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur), None)
        self._infeasible: dict[str, str] = {}  # claim key -> the resourceVersion found infeasible

    def _volume_of(self, claim: dict) -> dict | None:
        """The claim's PV when it is a CSI volume of this driver bound to this claim (``pvCanBeExpanded``)."""
        name = (claim.get("spec") or {}).get("volumeName")
        pv = self.volumes.lister.get(None, name) if name else None
        if pv is None or ((pv.get("spec") or {}).get("csi") or {}).get("driver") != self.driver_name:
            return None
        ref = pv["spec"].get("claimRef") or {}
        md = claim["metadata"]
        if ref.get("namespace") != md.get("namespace") or ref.get("uid") != md.get("uid"):
            return None
        return pv

    def reconcile(self, key: str) -> Result | None:
        ns, name = split_key(key)
        claim = self.claims.lister.get(ns, name)
        if claim is None or (claim.get("status") or {}).get("phase") != "Bound":
            return None
        pv = self._volume_of(claim)
        if pv is None:
            return None
        status = claim.get("status") or {}
        requested = storage_request_bytes(claim)
        current = quantity_value((status.get("capacity") or {}).get("storage", "0"))
        if requested <= current:
            return None
        resize_status = (status.get("allocatedResourceStatuses") or {}).get("storage", "")
        if storage_capacity_bytes(pv) >= requested and resize_status == NODE_RESIZE_PENDING:
            return None  # the controller's part is done; the kubelet's is pending
        if self._infeasible.get(key) == claim["metadata"].get("resourceVersion"):
            return None
        return self._expand(claim, pv)

    def _now(self) -> str:
        return format_timestamp(self.env.now, self.client.server.epoch)

    def _update_status(self, claim: dict, conditions: list[dict], resource_status: str | None,
                       allocated: str | None = None, capacity: str | None = None) -> dict:
        new = claim_with_resize_status(claim, conditions, resource_status, allocated=allocated, capacity=capacity)
        return self.client.update_status("persistentvolumeclaims", new, claim["metadata"]["namespace"])

    def _expand(self, claim: dict, pv: dict) -> Result | None:
        """``expandAndRecover`` for a claim whose request grew (no earlier failure to recover from)."""
        new_size = str(claim["spec"]["resources"]["requests"]["storage"])
        size_bytes = storage_request_bytes(claim)
        claim = self._update_status(claim, [{"type": RESIZING, "status": "True", "lastProbeTime": None,
                                             "lastTransitionTime": self._now()}],
                                    CONTROLLER_RESIZE_IN_PROGRESS, allocated=new_size)
        pv_name = pv["metadata"]["name"]
        self.event(claim, "Normal", "Resizing", f"External resizer is resizing volume {pv_name}")
        try:
            resp = self.driver.ControllerExpandVolume({
                "volume_id": pv["spec"]["csi"].get("volumeHandle", ""),
                "capacity_range": {"required_bytes": size_bytes}, "volume_capability": volume_capability(pv)})
        except KubenotesError as err:  # a CSIError
            self.event(claim, "Warning", "VolumeResizeFailed",
                       f'resize volume "{pv_name}" by resizer "{self.driver_name}" failed: {err}')
            if getattr(err, "code", "") in _INFEASIBLE_CODES:
                claim = self._update_status(claim, [], CONTROLLER_RESIZE_INFEASIBLE)
                self._infeasible[f"{claim['metadata']['namespace']}/{claim['metadata']['name']}"] = \
                    claim["metadata"].get("resourceVersion")
                return None
            return Result(requeue=True)
        got = int(resp.get("capacity_bytes") or 0) or size_bytes
        updated = new_size if got == size_bytes else format_quantity(got, "storage")
        new_pv = deep_copy(pv)
        new_pv["spec"]["capacity"]["storage"] = updated
        self.client.update("persistentvolumes", new_pv)
        if resp.get("node_expansion_required"):
            self._update_status(claim, [{"type": FILE_SYSTEM_RESIZE_PENDING, "status": "True", "lastProbeTime": None,
                                         "lastTransitionTime": self._now(),
                                         "message": MSG_FILE_SYSTEM_RESIZE_PENDING}], NODE_RESIZE_PENDING)
            self.event(claim, "Normal", "FileSystemResizeRequired", "Require file system resize of volume on node")
            return None
        self._update_status(claim, [], None, capacity=updated)
        self.event(claim, "Normal", "VolumeResizeSuccessful", "Resize volume succeeded")
        return None
