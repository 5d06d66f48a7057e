"""The attach/detach controller: a VolumeAttachment per (node, CSI volume) that a scheduled pod needs.

kube-controller-manager's attach/detach controller keeps two caches and a
reconciler between them:

* the **desired state of the world**: for every pod bound to a node that the
  controller manages (annotation
  ``volumes.kubernetes.io/controller-managed-attach-detach: "true"``, which the
  kubelet sets when it registers its Node) and not terminated, each of its
  volumes that needs attaching: a claim (or generic ephemeral volume) bound to a
  PersistentVolume with ``spec.csi`` whose CSIDriver has ``attachRequired:
  true`` (no CSIDriver object: attach is required);
* the **actual state of the world**: the VolumeAttachments (attached, or
  being attached);
* the **reconciler**: detach what is attached but no longer desired (delete
  the VolumeAttachment), then attach what is desired (create
  ``csi-<sha256(volumeHandle + driver + node)>``, ``spec.attacher: <driver>``,
  ``spec.nodeName``, ``spec.source.persistentVolumeName``; the driver's
  external-attacher does the rest).

A volume the node still reports in ``status.volumesInUse`` (mounted) is not
detached until the kubelet unmounts it, unless the node has the
``node.kubernetes.io/out-of-service`` taint, or the node is unhealthy (not
Ready) and :data:`MAX_WAIT_FOR_UNMOUNT_SECONDS` (6 minutes,
``reconcilerMaxWaitForUnmountDuration``) have passed since the detach was
first wanted: then it is force-detached. A volume that allows one node only
(no ``ReadWriteMany``/``ReadOnlyMany`` access mode) and is attached to
another node is not attached: the pods that want it get a ``Warning
FailedAttachVolume`` Event, once per (volume, node): ``Multi-Attach error
for volume "<pv>" Volume is already exclusively attached to one node and
can't be attached to another``, or ``... Volume is already used by pod(s)
<names>`` when pods in the same namespace on the other node use it.

When a VolumeAttachment reports ``status.attached``, the pods get ``Normal
SuccessfulAttachVolume`` ``AttachVolume.Attach succeeded for volume "<pv>" ``
(upstream's message ends in a space); an ``attachError`` gives ``Warning
FailedAttachVolume`` ``AttachVolume.Attach failed for volume "<pv>" : <error>``.

Notes
-----
Only CSI persistent volumes (in-tree attachable plugins are migrated to CSI in
v1.34; inline CSI volumes are never attached). The caches are rebuilt from the
informers on each pass, which is one key in the queue; the 1-minute desired
state populator and the 100 ms reconciler loop become event handlers and a
timed requeue for the 6-minute wait. The node status updater writes each
managed node's ``status.volumesAttached`` (``{"name": "kubernetes.io/csi/<driver>^<handle>",
"devicePath": ""}`` for every VolumeAttachment reporting ``attached``), and
removes a volume from it before deleting its VolumeAttachment, as upstream's
reconciler does before a detach; the kubelet's CSI plugin mounts a volume
only once it is listed there (:mod:`kubenotes.kubelet.csi`). A volume is
mounted by the node when the Node's ``status.volumesInUse`` (which the kubelet
model reports, :meth:`kubenotes.kubelet.volumes.VolumeManager.volumes_in_use`)
lists it; upstream assumes a freshly attached volume mounted until the next
Node update says otherwise, the model reads the Node as it is. Operation
back-off and metrics are not modelled. Not in :data:`kubenotes.controllers.CONTROLLERS` (the
cluster starts it with a CSI driver, :mod:`kubenotes.sim.csi`), so clusters
without CSI are unchanged.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/attachdetach/attach_detach_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/attachdetach/reconciler/reconciler.go (reconcile,
attachDesiredVolumes, reportMultiAttachError)
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/attachdetach/util/util.go (DetermineVolumeAction)
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/attachdetach/statusupdater/node_status_updater.go
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/attachdetach/cache/actual_state_of_world.go
(GetVolumesToReportAttached)
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_attacher.go (Attach; getAttachmentName is
:func:`kubenotes.api.storagehelpers.csi_attachment_name`)
kubernetes/kubernetes@v1.34.0 pkg/volume/util/util.go (IsMultiAttachAllowed, ControllerManagedAttachAnnotation)
kubernetes/kubernetes@v1.34.0 pkg/volume/util/operationexecutor/operation_executor.go (generateVolumeMsg)
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.storagehelpers import claims_of_pod, csi_attachment_name, csi_unique_volume_name
from kubenotes.apiserver.bootstrap_policy import (
    LEGACY_GROUP,
    STORAGE_GROUP,
    ControllerPolicy,
    events_rule,
    policy_rule,
)
from kubenotes.apiserver.status import ApiError
from kubenotes.controllers.podgc import TAINT_NODE_OUT_OF_SERVICE
from kubenotes.controllers.podutil import get_node_condition
from kubenotes.controllers.reconciler import Controller, Result

__all__ = ["AttachDetachController", "CONTROLLER_POLICY", "is_multi_attach_allowed",
           "CONTROLLER_MANAGED_ATTACH_ANNOTATION", "MAX_WAIT_FOR_UNMOUNT_SECONDS", "MULTI_ATTACH_EXCLUSIVE", "SYNC_KEY"]

#: ``reconcilerMaxWaitForUnmountDuration``: 6 minutes before an unhealthy node's mounted volume is force-detached.
MAX_WAIT_FOR_UNMOUNT_SECONDS = 360.0
#: ``reconcilerLoopPeriod``: the reconciler's pass every 100 ms (here: when the 6-minute wait is over).
RECONCILER_LOOP_PERIOD_SECONDS = 0.1
#: ``volutil.ControllerManagedAttachAnnotation``: the kubelet leaves attach/detach of its node to this controller.
CONTROLLER_MANAGED_ATTACH_ANNOTATION = "volumes.kubernetes.io/controller-managed-attach-detach"
#: The Multi-Attach detail when no pod on the other node(s) uses the volume.
MULTI_ATTACH_EXCLUSIVE = "Volume is already exclusively attached to one node and can't be attached to another"
#: The one queue key: each pass rebuilds both states of the world.
SYNC_KEY = "reconcile"

#: ``system:controller:attachdetach-controller``.
CONTROLLER_POLICY = ControllerPolicy("attachdetach-controller", (
    policy_rule(("list", "watch"), (LEGACY_GROUP,), ("persistentvolumes", "persistentvolumeclaims")),
    policy_rule(("get", "list", "watch"), (LEGACY_GROUP,), ("nodes",)),
    policy_rule(("patch", "update"), (LEGACY_GROUP,), ("nodes/status",)),
    policy_rule(("list", "watch"), (LEGACY_GROUP,), ("pods",)),
    events_rule(),
    policy_rule(("get", "create", "delete", "list", "watch"), (STORAGE_GROUP,), ("volumeattachments",)),
    policy_rule(("get", "watch", "list"), (STORAGE_GROUP,), ("csidrivers",)),
    policy_rule(("get", "watch", "list"), (STORAGE_GROUP,), ("csinodes",)),
))


def is_multi_attach_allowed(pv: dict) -> bool:
    """``IsMultiAttachAllowed``: no access modes (unknown), or one of ``ReadWriteMany``/``ReadOnlyMany``.

    Examples
    --------
    >>> is_multi_attach_allowed({"spec": {"accessModes": ["ReadWriteOnce"]}})
    False
    >>> is_multi_attach_allowed({"spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"]}})
    True
    """
    modes = (pv.get("spec") or {}).get("accessModes") or []
    return not modes or any(m in ("ReadWriteMany", "ReadOnlyMany") for m in modes)


def _is_pod_terminated(pod: dict) -> bool:
    """``util.IsPodTerminated``: Succeeded/Failed, or deleted with no container running (``notRunning``: each
    status is terminated or waiting).

    Examples
    --------
    >>> _is_pod_terminated({"metadata": {"deletionTimestamp": "t"},
    ...                     "status": {"containerStatuses": [{"state": {"waiting": {}}}]}})
    True
    >>> _is_pod_terminated({"metadata": {"deletionTimestamp": "t"},
    ...                     "status": {"containerStatuses": [{"state": {"running": {}}}]}})
    False
    """
    status = pod.get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed"):
        return True
    if not (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    statuses = (list(status.get("initContainerStatuses") or []) + list(status.get("containerStatuses") or [])
                + list(status.get("ephemeralContainerStatuses") or []))
    return all((s.get("state") or {}).get("terminated") is not None or
               (s.get("state") or {}).get("waiting") is not None for s in statuses)


class AttachDetachController(Controller):
    """The attach/detach controller for CSI volumes (see the module docstring).

    Attributes
    ----------
    operations : list of tuple
        ``(time_seconds, operation, pv, node, detail)`` for each attach and detach it started
        (``AttachVolume``, ``DetachVolume``; detail ``force: maxWaitForUnmountDuration expired`` or
        ``force: node has out-of-service taint`` for a force detach).
    """

    name = "attachdetach-controller"
    service_account = "attachdetach-controller"

    def setup(self) -> None:
        self.pods = self.informers.informer_for("pods")
        self.nodes = self.informers.informer_for("nodes")
        self.claims = self.informers.informer_for("persistentvolumeclaims")
        self.volumes = self.informers.informer_for("persistentvolumes")
        self.drivers = self.informers.informer_for("csidrivers")
        self.attachments = self.informers.informer_for("volumeattachments")
        for inf in (self.pods, self.nodes, self.claims, self.volumes, self.drivers, self.attachments):
            inf.add_event_handler(lambda o: self.enqueue(SYNC_KEY), lambda o, n: self.enqueue(SYNC_KEY),
                                  lambda o: self.enqueue(SYNC_KEY))
        # Event names are <object>.<virtual ns + the recorder's sequence number>: the scheduler and the kubelet
        # write events about the same pod at the same instant, so start ours far from theirs (as the provisioner)
        self.recorder._seq = 3 << 20
        self.operations: list[tuple[float, str, str, str, str]] = []
        self._detach_requested: dict[tuple[str, str], float] = {}
        self._multi_attach_reported: set[tuple[str, str]] = set()
        self._attach_reported: set[tuple[str, str]] = set()
        self._attach_error_reported: dict[tuple[str, str], str] = {}

    # ------------------------------------------------------------ the desired state of the world
    def _attach_required(self, driver: str) -> bool:
        """``csiPlugin.CanAttach``: the CSIDriver's ``attachRequired``; true without a CSIDriver object."""
        obj = self.drivers.lister.get(None, driver)
        return True if obj is None else bool((obj.get("spec") or {}).get("attachRequired", True))

    def _managed(self, node_name: str) -> dict | None:
        node = self.nodes.lister.get(None, node_name)
        ann = ((node or {}).get("metadata") or {}).get("annotations") or {}
        return node if ann.get(CONTROLLER_MANAGED_ATTACH_ANNOTATION) == "true" else None

    def _pv_of(self, namespace: str, claim_name: str) -> dict | None:
        """``getPVCFromCache`` + ``getPVSpecFromCache``: the bound claim's volume, its claimRef naming the claim."""
        pvc = self.claims.lister.get(namespace, claim_name)
        if pvc is None or (pvc.get("status") or {}).get("phase") != "Bound":
            return None
        pv = self.volumes.lister.get(None, (pvc.get("spec") or {}).get("volumeName") or "")
        ref = ((pv or {}).get("spec") or {}).get("claimRef") or {}
        if pv is None or (ref.get("uid") and ref["uid"] != pvc["metadata"].get("uid")):
            return None
        return pv

    def desired_state(self) -> dict[tuple[str, str], dict[str, Any]]:
        """``(pv name, node) -> {"pv", "pods"}`` for every attachable CSI volume a scheduled, running pod needs."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for pod in self.pods.lister.list():
            node = (pod.get("spec") or {}).get("nodeName")
            if not node or self._managed(node) is None or _is_pod_terminated(pod):
                continue
            for claim in claims_of_pod(pod):
                pv = self._pv_of(pod["metadata"].get("namespace", ""), claim)
                csi = ((pv or {}).get("spec") or {}).get("csi")
                if not csi or not self._attach_required(csi.get("driver", "")):
                    continue
                entry = out.setdefault((pv["metadata"]["name"], node), {"pv": pv, "pods": []})
                entry["pods"].append(pod)
        return out

    def actual_state(self) -> dict[tuple[str, str], dict]:
        """``(pv name, node) -> VolumeAttachment`` for the VolumeAttachments of persistent volumes."""
        out = {}
        for va in self.attachments.lister.list():
            spec = va.get("spec") or {}
            pv = (spec.get("source") or {}).get("persistentVolumeName")
            if pv and spec.get("nodeName"):
                out[(pv, spec["nodeName"])] = va
        return out

    # ------------------------------------------------------------ the reconciler
    def reconcile(self, key: str) -> Result | None:
        desired, actual = self.desired_state(), self.actual_state()
        wait = self._detach_undesired(desired, actual)
        self._attach_desired(desired, actual)
        self._update_node_statuses(actual)
        for k in [k for k in self._multi_attach_reported if k not in desired]:
            self._multi_attach_reported.discard(k)
        for k in [k for k in self._attach_reported if k not in actual]:
            self._attach_reported.discard(k)
        return Result(requeue_after_seconds=wait) if wait else None

    def _node_health(self, node_name: str) -> tuple[bool, bool]:
        """``(isHealthy, hasOutOfServiceTaint)``: Ready condition True; the out-of-service NoExecute taint."""
        node = self.nodes.lister.get(None, node_name)
        if node is None:
            return False, False
        ready = get_node_condition(node.get("status"), "Ready")
        taints = (node.get("spec") or {}).get("taints") or ()
        oos = any(t.get("key") == TAINT_NODE_OUT_OF_SERVICE and t.get("effect") == "NoExecute" for t in taints)
        return bool(ready and ready.get("status") == "True"), oos

    def _mounted(self, node_name: str, va: dict) -> bool:
        """``MountedByNode``: the node lists the volume in ``status.volumesInUse``."""
        pv = self.volumes.lister.get(None, va["spec"]["source"]["persistentVolumeName"])
        csi = ((pv or {}).get("spec") or {}).get("csi") or {}
        node = self.nodes.lister.get(None, node_name)
        in_use = ((node or {}).get("status") or {}).get("volumesInUse") or ()
        return csi_unique_volume_name(csi.get("driver", ""), csi.get("volumeHandle", "")) in in_use

    def _detach_undesired(self, desired: dict, actual: dict) -> float:
        """Detach what is attached and not desired; the seconds until a 6-minute wait ends (0: none)."""
        wait = 0.0
        now = float(self.env.now)
        for key, va in sorted(actual.items()):
            pv_name, node = key
            if key in desired or va["metadata"].get("deletionTimestamp"):
                continue  # still needed, or its detach is under way
            elapsed = now - self._detach_requested.setdefault(key, now)
            healthy, out_of_service = self._node_health(node)
            timeout = elapsed > MAX_WAIT_FOR_UNMOUNT_SECONDS
            force = not healthy and timeout
            if self._mounted(node, va) and not force and not out_of_service:
                if not timeout:  # upstream's reconciler loops every 100 ms: come back at its first pass after
                    left = MAX_WAIT_FOR_UNMOUNT_SECONDS - elapsed + RECONCILER_LOOP_PERIOD_SECONDS
                    wait = left if not wait else min(wait, left)
                continue
            detail = ("" if not (timeout or out_of_service) else
                      "force: maxWaitForUnmountDuration expired" if timeout else "force: node has out-of-service taint")
            # "Before triggering volume detach, mark volume as detached and update node status"
            if not self._update_node_status(node, actual, skip={key}):
                continue
            try:
                self.client.delete("volumeattachments", va["metadata"]["name"])
            except ApiError as e:
                if e.code != 404:
                    raise
            self._detach_requested.pop(key, None)
            self.operations.append((now, "DetachVolume", pv_name, node, detail))
        return wait

    # ------------------------------------------------------------ the node status updater
    def volumes_to_report_attached(self, node_name: str, actual: dict,
                                   skip: set[tuple[str, str]] = frozenset()) -> list[dict]:
        """``GetVolumesToReportAttached`` for one node: ``{"name": <unique volume name>, "devicePath": ""}`` for
        each volume whose VolumeAttachment reports ``attached`` and whose detach has not started, by name."""
        out = []
        for (pv_name, node), va in actual.items():
            if node != node_name or (pv_name, node) in skip or va["metadata"].get("deletionTimestamp"):
                continue
            if not (va.get("status") or {}).get("attached"):
                continue
            pv = self.volumes.lister.get(None, pv_name)
            csi = ((pv or {}).get("spec") or {}).get("csi") or {}
            if csi:
                out.append({"name": csi_unique_volume_name(csi.get("driver", ""), csi.get("volumeHandle", "")),
                            "devicePath": ""})
        return sorted(out, key=lambda a: a["name"])

    def _update_node_status(self, node_name: str, actual: dict, skip: set[tuple[str, str]] = frozenset()) -> bool:
        """``UpdateNodeStatusForNode``: patch ``status.volumesAttached`` when it differs; False when the patch
        failed."""
        node = self.nodes.lister.get(None, node_name)
        if node is None:
            return True  # the node is gone: nothing to update (upstream: "not exist"; the detach goes on)
        want = self.volumes_to_report_attached(node_name, actual, skip)
        have = (node.get("status") or {}).get("volumesAttached") or []
        if [(a.get("name"), a.get("devicePath", "")) for a in have] == [(a["name"], a["devicePath"]) for a in want]:
            return True
        try:
            self.client.patch("nodes", node_name, {"status": {"volumesAttached": want or None}}, subresource="status")
        except ApiError:
            return False
        return True

    def _update_node_statuses(self, actual: dict) -> None:
        """``nodeStatusUpdater.UpdateNodeStatuses``: every managed node whose ``volumesAttached`` is not what
        the VolumeAttachments say."""
        by_node: dict[str, dict] = {}
        for key, va in actual.items():
            by_node.setdefault(key[1], {})[key] = va
        for node in self.nodes.lister.list():
            name = node["metadata"]["name"]
            if name not in by_node and not (node.get("status") or {}).get("volumesAttached"):
                continue  # nothing attached, nothing reported
            if self._managed(name) is not None:
                self._update_node_status(name, by_node.get(name, {}))

    def _attach_desired(self, desired: dict, actual: dict) -> None:
        """``attachDesiredVolumes``: attach what is desired and absent, report Multi-Attach and attach outcomes."""
        now = float(self.env.now)
        for key, want in sorted(desired.items(), key=lambda kv: kv[0]):
            pv_name, node = key
            pv, pods = want["pv"], want["pods"]
            va = actual.get(key)
            if va is not None:
                self._detach_requested.pop(key, None)  # ResetDetachRequestTime
                self._report_attach_outcome(key, va, pods)
                continue
            if not is_multi_attach_allowed(pv):
                others = sorted(n for (p, n) in actual if p == pv_name and n != node)
                if others:
                    if key not in self._multi_attach_reported:
                        self._report_multi_attach_error(pv_name, pods, others, desired)
                        self._multi_attach_reported.add(key)
                    continue
            csi = pv["spec"]["csi"]
            body = {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
                    "metadata": {"name": csi_attachment_name(csi.get("volumeHandle", ""), csi.get("driver", ""), node)},
                    "spec": {"attacher": csi.get("driver", ""), "nodeName": node,
                             "source": {"persistentVolumeName": pv_name}}}
            try:
                self.client.create("volumeattachments", body)
            except ApiError as e:
                if e.code != 409:
                    raise
            actual[key] = body
            self.operations.append((now, "AttachVolume", pv_name, node, ""))

    def _report_attach_outcome(self, key: tuple[str, str], va: dict, pods: list[dict]) -> None:
        status = va.get("status") or {}
        if status.get("attached"):
            if key not in self._attach_reported:
                self._attach_reported.add(key)
                for pod in pods:
                    self.event(pod, "Normal", "SuccessfulAttachVolume",
                               f'AttachVolume.Attach succeeded for volume "{key[0]}" ')
            return
        message = (status.get("attachError") or {}).get("message")
        if message and self._attach_error_reported.get(key) != message:
            self._attach_error_reported[key] = message
            for pod in pods:
                self.event(pod, "Warning", "FailedAttachVolume",
                           f'AttachVolume.Attach failed for volume "{key[0]}" : {message}')

    def _report_multi_attach_error(self, pv_name: str, pods: list[dict], other_nodes: list[str],
                                   desired: dict) -> None:
        """``reportMultiAttachError``: one Event per pod that wants the volume here."""
        users = [p for n in other_nodes for p in (desired.get((pv_name, n)) or {}).get("pods", [])]
        for pod in pods:
            if not users:
                detail = MULTI_ATTACH_EXCLUSIVE
            else:
                ns = pod["metadata"].get("namespace")
                local = [u["metadata"]["name"] for u in users if u["metadata"].get("namespace") == ns]
                other = len(users) - len(local)
                if local:
                    detail = f"Volume is already used by pod(s) {', '.join(local)}"
                    if other:
                        detail += f" and {other} pod(s) in different namespaces"
                else:
                    detail = f"Volume is already used by {other} pod(s) in different namespaces"
            self.event(pod, "Warning", "FailedAttachVolume", f'Multi-Attach error for volume "{pv_name}" {detail}')
