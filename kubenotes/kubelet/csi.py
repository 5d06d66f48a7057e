"""The kubelet's CSI volume plugin: VerifyControllerAttachedVolume, WaitForAttach, MountDevice, SetUp, and back.

For a pod volume whose claim is bound to a PersistentVolume with ``spec.csi``
(:func:`csi_volume_spec`), the volume manager's mount operation runs, as
``GenerateMountVolumeFunc`` orders them:

1. ``VerifyControllerAttachedVolume`` (volumes that need attaching): the volume
   must already be in the node's ``status.volumesInUse`` as the kubelet last
   reported it (else ``Volume has not been added to the list of VolumesInUse
   in the node's volume status``) and in ``status.volumesAttached``, which the
   attach/detach controller writes (else ``Volume not attached according to
   node status``); both are retried with the operation back-off, no Event;
2. ``WaitForAttach``: the VolumeAttachment the attach/detach controller
   created for (volume handle, driver, this node) (``csi-<sha256>``,
   :func:`kubenotes.api.storagehelpers.csi_attachment_name`) reports
   ``status.attached: true``. While it is absent or not yet attached,
   :class:`VolumeNotYetAttached` (retry, no Event); an ``attachError``, or a
   VolumeAttachment being deleted (``volume attachment is being deleted``),
   :class:`WaitForAttachError`, recorded as ``FailedMount``
   ``MountVolume.WaitForAttach failed for volume "<volume>" : <error>``;
3. ``MountDevice`` (once per volume and node, while no pod has it mounted):
   when the driver's Node service has ``STAGE_UNSTAGE_VOLUME``,
   ``NodeStageVolume`` at :func:`device_mount_path`
   (``/var/lib/kubelet/plugins/kubernetes.io/csi/<driver>/<sha256(volumeHandle)>/globalmount``);
4. ``SetUp``: ``NodePublishVolume`` at :func:`target_path`
   (``/var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~csi/<pv name>/mount``), with the staging path
   when staged, the VolumeAttachment's ``attachmentMetadata`` as ``publish_context``, and the pod's
   ``csi.storage.k8s.io/pod.*`` keys in ``volume_context`` when the CSIDriver has ``podInfoOnMount``.

A claim grown by the external-resizer (``allocatedResourceStatuses.storage: NodeResizePending``, the PV
larger than ``status.capacity``) is finished here: :meth:`CSIVolumePlugin.node_expand` calls
``NodeExpandVolume`` after ``SetUp`` (``expandVolumeDuringMount``) or, for a mounted volume, when the pod is
synced again (``ExpandInUseVolume``), and writes the claim's new ``status.capacity``.

When the pod's volumes are torn down, ``TearDown`` calls ``NodeUnpublishVolume``; when no pod
on the node mounts the volume any more and none is about to, ``UnmountDevice`` calls
``NodeUnstageVolume``, and the volume leaves the kubelet's actual state (and so ``volumesInUse``
at the next node status update, after which the attach/detach controller may detach it). A
failed CSI call fails the step with the gRPC error text (``MountVolume.MountDevice failed for
volume "<volume>" : rpc error: code = ... desc = ...``). Every call goes through the driver
model's Node service, which traces it (:func:`kubenotes.sim.csi.csi_calls`).

Notes
-----
Volumes that need no attach skip steps 1 and 2: not a claim bound to a
PersistentVolume with ``spec.csi``, or a driver whose CSIDriver says
``attachRequired: false``. Not modelled: ``vol_data.json``, node stage/publish
secrets, fsGroup ownership (``fsGroupPolicy``), block volumes (``volumeDevices``),
inline ephemeral CSI volumes, the ``SINGLE_NODE_MULTI_WRITER`` capability check
(``ReadWriteOncePod`` maps to ``SINGLE_NODE_SINGLE_WRITER``, ``ReadWriteOnce`` to
``SINGLE_NODE_WRITER``), uncertain mounts and reconstruction. The Event names the pod's volume,
where upstream names the PersistentVolume; the 10-minute ``waitForAttachTimeout`` is the volume
manager's own 2m3s wait.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_attacher.go (WaitForAttach, waitForVolumeAttachmentInternal,
verifyAttachmentStatus, GetDeviceMountPath, MountDevice, UnmountDevice, makeDeviceMountPath)
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_mounter.go (SetUpAt, TearDownAt, GetPath: getTargetPath)
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_client.go (asCSIAccessModeV1, NodeSupportsStageUnstage)
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_util.go (getVolumeDevicePluginDir, generateSha)
kubernetes/kubernetes@v1.34.0 pkg/volume/util/operationexecutor/operation_generator.go (GenerateMountVolumeFunc,
GenerateVerifyControllerAttachedVolumeFunc, GenerateUnmountVolumeFunc, GenerateUnmountDeviceFunc)
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Mapping

from kubenotes.api.quantity import value as quantity_value
from kubenotes.api.storagehelpers import (
    RESIZE_CONDITIONS,
    claim_with_resize_status,
    csi_attachment_name,
    csi_unique_volume_name,
    storage_capacity_bytes,
)
from kubenotes.csi.spec import EXPAND_VOLUME, STAGE_UNSTAGE_VOLUME, CSIError
from kubenotes.kubelet.volumes import CSI_PLUGIN_NAME, KUBELET_PODS_DIR, VolumeSetUpError, pod_volume_dir

__all__ = ["wait_for_attach", "csi_volume_spec", "CSIVolumePlugin", "device_mount_path", "target_path",
           "csi_access_mode", "WaitForAttachError", "VolumeNotYetAttached", "VerifyAttachedError",
           "MountDeviceError", "CSISetUpError", "BEING_DELETED", "CSI_PLUGIN_NAME", "KUBELET_PLUGINS_DIR",
           "NOT_REPORTED_IN_USE", "NOT_ATTACHED_PER_NODE_STATUS", "NodeExpandError", "FILE_SYSTEM_RESIZE_SUCCESSFUL",
           "VOLUME_RESIZE_FAILED", "NODE_RESIZE_PENDING", "NODE_RESIZE_IN_PROGRESS"]

#: ``verifyAttachmentStatus`` for a VolumeAttachment with a deletionTimestamp.
BEING_DELETED = "volume attachment is being deleted"
#: ``--root-dir`` + ``plugins`` (``config.DefaultKubeletPluginsDirName``).
KUBELET_PLUGINS_DIR = "/var/lib/kubelet/plugins"
#: ``VerifyControllerAttachedVolume`` before the kubelet reported the volume in ``volumesInUse``.
NOT_REPORTED_IN_USE = "Volume has not been added to the list of VolumesInUse in the node's volume status"
#: ``VerifyControllerAttachedVolume`` when ``node.status.volumesAttached`` lacks the volume.
NOT_ATTACHED_PER_NODE_STATUS = "Volume not attached according to node status"
#: ``events.FileSystemResizeSuccess`` and ``events.VolumeResizeFailed`` (the kubelet's Event reasons; the second
#: for a failed expansion of a mounted volume, recorded by the volume manager).
FILE_SYSTEM_RESIZE_SUCCESSFUL = "FileSystemResizeSuccessful"
VOLUME_RESIZE_FAILED = "VolumeResizeFailed"
#: ``ClaimResourceStatus`` values the node expansion reads and writes (``allocatedResourceStatuses.storage``).
NODE_RESIZE_PENDING = "NodeResizePending"
NODE_RESIZE_IN_PROGRESS = "NodeResizeInProgress"
#: ``volume_context`` keys the kubelet adds when the CSIDriver has ``podInfoOnMount: true``.
_POD_INFO_KEYS = ("csi.storage.k8s.io/pod.name", "csi.storage.k8s.io/pod.namespace", "csi.storage.k8s.io/pod.uid",
                  "csi.storage.k8s.io/serviceAccount.name", "csi.storage.k8s.io/ephemeral")


class WaitForAttachError(VolumeSetUpError):
    """``WaitForAttach`` failed: an ``attachError``, or the VolumeAttachment is being deleted."""

    operation = "MountVolume.WaitForAttach"


class VolumeNotYetAttached(WaitForAttachError):
    """The VolumeAttachment is absent or not attached yet: wait (retry), no Event."""

    pending = True


class VerifyAttachedError(VolumeSetUpError):
    """``VerifyControllerAttachedVolume``: not yet in ``volumesInUse`` or ``volumesAttached`` (retry, no Event)."""

    operation = "VerifyControllerAttachedVolume"
    pending = True


class MountDeviceError(VolumeSetUpError):
    """``MountDevice`` failed (``NodeStageVolume``'s error, or the driver is not registered on the node)."""

    operation = "MountVolume.MountDevice"


class CSISetUpError(VolumeSetUpError):
    """``SetUp`` failed (``NodePublishVolume``'s error)."""

    operation = "MountVolume.SetUp"


class NodeExpandError(VolumeSetUpError):
    """``NodeExpandVolume`` failed (the driver's error, or a claim status update refused); retried."""

    operation = "MountVolume.NodeExpandVolume"


def device_mount_path(driver: str, volume_handle: str, plugins_dir: str = KUBELET_PLUGINS_DIR) -> str:
    """``makeDeviceMountPath``: where ``NodeStageVolume`` stages a volume on the node.

    ``<plugins>/kubernetes.io/csi/<driver>/<sha256 hex of the volume handle>/globalmount``.

    Examples
    --------
    >>> device_mount_path("hostpath.csi.k8s.io", "vol-1")  # doctest: +ELLIPSIS
    '/var/lib/kubelet/plugins/kubernetes.io/csi/hostpath.csi.k8s.io/d2e8...cc49/globalmount'
    """
    sha = hashlib.sha256(volume_handle.encode()).hexdigest()
    return f"{plugins_dir}/{CSI_PLUGIN_NAME}/{driver}/{sha}/globalmount"


def target_path(pod_uid: str, spec_volume_name: str, pods_dir: str = KUBELET_PODS_DIR) -> str:
    """``getTargetPath``: where ``NodePublishVolume`` publishes a volume for a pod (the PV's name for a claim).

    Examples
    --------
    >>> target_path("u1", "pv-a")
    '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~csi/pv-a/mount'
    """
    return pod_volume_dir(pod_uid, CSI_PLUGIN_NAME, spec_volume_name, pods_dir) + "/mount"


def csi_access_mode(pv: Mapping[str, Any]) -> str:
    """``asCSIAccessModeV1`` of the PV's first access mode (``ReadWriteOnce`` when it has none).

    Examples
    --------
    >>> csi_access_mode({"spec": {"accessModes": ["ReadOnlyMany", "ReadWriteOnce"]}})
    'MULTI_NODE_READER_ONLY'
    >>> csi_access_mode({"spec": {}})
    'SINGLE_NODE_WRITER'
    """
    modes = (pv.get("spec") or {}).get("accessModes") or ["ReadWriteOnce"]
    return {"ReadOnlyMany": "MULTI_NODE_READER_ONLY", "ReadWriteMany": "MULTI_NODE_MULTI_WRITER",
            "ReadWriteOncePod": "SINGLE_NODE_SINGLE_WRITER"}.get(modes[0], "SINGLE_NODE_WRITER")


def csi_volume_spec(get: Callable[[str, str, str], dict | None], pod: Mapping[str, Any],
                    volume: Mapping[str, Any]) -> dict | None:
    """The CSI persistent volume behind a pod volume, or None (not a claim bound to a PV with ``spec.csi``).

    Parameters
    ----------
    get : callable(resource, namespace, name) -> dict or None
        Reads an object with the kubelet's credentials (None when it does not exist).
    pod : dict
    volume : dict
        One of ``pod.spec.volumes``.

    Returns
    -------
    dict or None
        ``pv_name``, ``pv``, ``driver``, ``handle``, ``claim_namespace``, ``claim_name``, ``unique_name``
        (``kubernetes.io/csi/<driver>^<handle>``),
        ``attach_required`` (the CSIDriver's ``attachRequired``; true without a CSIDriver object),
        ``pod_info_on_mount``, ``read_only``.

    Examples
    --------
    >>> objs = {("persistentvolumeclaims", "default", "data"): {"spec": {"volumeName": "pv-a"}},
    ...         ("persistentvolumes", "", "pv-a"): {"spec": {"csi": {"driver": "d.example.com", "volumeHandle": "h"}}}}
    >>> s = csi_volume_spec(lambda r, ns, n: objs.get((r, ns, n)), {"metadata": {"namespace": "default"}},
    ...                     {"name": "v", "persistentVolumeClaim": {"claimName": "data"}})
    >>> s["pv_name"], s["unique_name"], s["attach_required"]
    ('pv-a', 'kubernetes.io/csi/d.example.com^h', True)
    """
    md = pod.get("metadata") or {}
    if volume.get("persistentVolumeClaim"):
        claim = volume["persistentVolumeClaim"].get("claimName", "")
    elif volume.get("ephemeral") is not None:
        claim = f"{md.get('name', '')}-{volume.get('name', '')}"
    else:
        return None
    pvc = get("persistentvolumeclaims", md.get("namespace", ""), claim)
    pv_name = ((pvc or {}).get("spec") or {}).get("volumeName")
    pv = get("persistentvolumes", "", pv_name) if pv_name else None
    csi = ((pv or {}).get("spec") or {}).get("csi")
    if not csi:
        return None
    driver, handle = csi.get("driver", ""), csi.get("volumeHandle", "")
    csidriver = get("csidrivers", "", driver)
    dspec = (csidriver or {}).get("spec") or {}
    return {"pv_name": pv_name, "pv": pv, "driver": driver, "handle": handle,
            "claim_namespace": md.get("namespace", ""), "claim_name": claim,
            "unique_name": csi_unique_volume_name(driver, handle),
            "attach_required": dspec.get("attachRequired", True) is not False,
            "pod_info_on_mount": bool(dspec.get("podInfoOnMount")),
            "read_only": bool(csi.get("readOnly") or (volume.get("persistentVolumeClaim") or {}).get("readOnly"))}


def _check_attachment(get: Callable[[str, str, str], dict | None], node_name: str, spec: Mapping[str, Any]) -> dict:
    """``waitForVolumeAttachmentInternal`` once: the attached VolumeAttachment, or raise."""
    name = csi_attachment_name(spec["handle"], spec["driver"], node_name)
    va = get("volumeattachments", "", name)
    status = (va or {}).get("status") or {}
    deleting = ((va or {}).get("metadata") or {}).get("deletionTimestamp")
    if va is None or not (status.get("attached") or status.get("attachError") or deleting):
        raise VolumeNotYetAttached(f"volume attachment {name} for volume {spec['handle']} on node {node_name} "
                                   "is not attached yet")
    if deleting:
        raise WaitForAttachError(BEING_DELETED)
    if status.get("attached"):
        return va
    raise WaitForAttachError(str(status["attachError"].get("message", "")))


def wait_for_attach(get: Callable[[str, str, str], dict | None], node_name: str, pod: Mapping[str, Any],
                    volume: Mapping[str, Any]) -> str | None:
    """Check once that a pod volume's CSI volume is attached to ``node_name``.

    Parameters
    ----------
    get : callable(resource, namespace, name) -> dict or None
        Reads an object with the kubelet's credentials (None when it does not exist).
    node_name : str
        This node.
    pod : dict
        The pod.
    volume : dict
        One of ``pod.spec.volumes`` (a ``persistentVolumeClaim`` or ``ephemeral`` volume; others pass).

    Returns
    -------
    str or None
        The VolumeAttachment's name when the volume needed attaching and is attached; None when no
        attach is needed.

    Raises
    ------
    VolumeNotYetAttached
        No VolumeAttachment yet, or not attached yet (retry).
    WaitForAttachError
        The VolumeAttachment reports an ``attachError``, or is being deleted.

    Examples
    --------
    >>> objs = {("persistentvolumeclaims", "default", "data"): {"spec": {"volumeName": "pv-a"}},
    ...         ("persistentvolumes", "", "pv-a"): {"spec": {"csi": {"driver": "d.example.com", "volumeHandle": "h"}}}}
    >>> get = lambda r, ns, n: objs.get((r, ns, n))
    >>> pod = {"metadata": {"name": "p", "namespace": "default"}}
    >>> vol = {"name": "v", "persistentVolumeClaim": {"claimName": "data"}}
    >>> wait_for_attach(get, "n1", pod, vol)
    Traceback (most recent call last):
    ...
    kubenotes.kubelet.csi.VolumeNotYetAttached: volume attachment csi-... for volume h on node n1 is not attached yet
    >>> objs[("volumeattachments", "", csi_attachment_name("h", "d.example.com", "n1"))] = {
    ...     "metadata": {}, "status": {"attached": True}}
    >>> wait_for_attach(get, "n1", pod, vol) == csi_attachment_name("h", "d.example.com", "n1")
    True
    """
    spec = csi_volume_spec(get, pod, volume)
    if spec is None or not spec["attach_required"]:
        return None
    return _check_attachment(get, node_name, spec)["metadata"].get("name") or csi_attachment_name(
        spec["handle"], spec["driver"], node_name)


class CSIVolumePlugin:
    """The kubelet's ``kubernetes.io/csi`` plugin on one node (see the module docstring).

    Parameters
    ----------
    get : callable(resource, namespace, name) -> dict or None
        Reads an object with the kubelet's credentials.
    node_name : str
    node_service : callable(driver) -> object or None
        The driver's Node service on this node as node-driver-registrar registered it
        (:class:`kubenotes.csi.hostpath.HostPathNode`), None when the driver is not registered here.
    plugins_dir, pods_dir : str
        ``<root-dir>/plugins`` and ``<root-dir>/pods``.
    update_claim_status : callable(claim) -> dict, optional
        Writes a PersistentVolumeClaim's status with the kubelet's credentials and returns the stored claim
        (node expansion's progress); without it :meth:`node_expand` does nothing.
    record_event : callable(obj, type, reason, message), optional
        Records an Event about a pod or a claim from the kubelet.

    Examples
    --------
    >>> from kubenotes.csi.hostpath import HostPathDriver
    >>> d = HostPathDriver()
    >>> _ = d.add_volume("h", 2**30)
    >>> pv = {"metadata": {"name": "pv-a"}, "spec": {"accessModes": ["ReadWriteOnce"],
    ...       "csi": {"driver": d.name, "volumeHandle": "h", "fsType": "ext4"}}}
    >>> spec = {"pv_name": "pv-a", "pv": pv, "driver": d.name, "handle": "h", "attach_required": False,
    ...         "pod_info_on_mount": False, "read_only": False}
    >>> plugin = CSIVolumePlugin(lambda r, ns, n: None, "n1", lambda name: d.node("n1"))
    >>> staging = plugin.mount_device(spec)
    >>> pod = {"metadata": {"name": "p", "namespace": "default", "uid": "u1"}}
    >>> plugin.set_up(spec, pod, staging)
    '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~csi/pv-a/mount'
    >>> [e["method"] for e in d.trace]
    ['NodeGetCapabilities', 'NodeStageVolume', 'NodeGetCapabilities', 'NodePublishVolume']
    """

    def __init__(self, get: Callable[[str, str, str], dict | None], node_name: str,
                 node_service: Callable[[str], Any], *, plugins_dir: str = KUBELET_PLUGINS_DIR,
                 pods_dir: str = KUBELET_PODS_DIR, update_claim_status: Callable[[dict], dict] | None = None,
                 record_event: Callable[[dict, str, str, str], None] | None = None) -> None:
        self.get = get
        self.update_claim_status = update_claim_status
        self.record_event = record_event
        self.node_name = node_name
        self.node_service = node_service
        self.plugins_dir = plugins_dir
        self.pods_dir = pods_dir

    def volume_spec(self, pod: Mapping[str, Any], volume: Mapping[str, Any]) -> dict | None:
        """:func:`csi_volume_spec` with this plugin's reader."""
        return csi_volume_spec(self.get, pod, volume)

    def verify_controller_attached(self, spec: Mapping[str, Any], reported_in_use: bool) -> None:
        """``VerifyControllerAttachedVolume``: reported in ``volumesInUse`` and listed in ``volumesAttached``."""
        if not reported_in_use:
            raise VerifyAttachedError(f"{NOT_REPORTED_IN_USE} for volume {spec['unique_name']}")
        node = self.get("nodes", "", self.node_name) or {}
        attached = ((node.get("status") or {}).get("volumesAttached")) or ()
        if not any(a.get("name") == spec["unique_name"] for a in attached):
            raise VerifyAttachedError(f"{NOT_ATTACHED_PER_NODE_STATUS} for volume {spec['unique_name']}")

    def wait_for_attach(self, spec: Mapping[str, Any]) -> dict:
        """``WaitForAttach`` once; the ``publish_context`` (the VolumeAttachment's ``attachmentMetadata``)."""
        if not spec["attach_required"]:
            return {}
        va = _check_attachment(self.get, self.node_name, spec)
        return dict((va.get("status") or {}).get("attachmentMetadata") or {})

    def _node(self, spec: Mapping[str, Any], error: type) -> Any:
        node = self.node_service(spec["driver"])
        if node is None:
            raise error(f"driver name {spec['driver']} not found in the list of registered CSI drivers")
        return node

    def _stages(self, node: Any) -> bool:
        """``NodeSupportsStageUnstage``."""
        caps = node.NodeGetCapabilities({}).get("capabilities") or ()
        return any((c.get("rpc") or {}).get("type") == STAGE_UNSTAGE_VOLUME for c in caps)

    @staticmethod
    def _capability(spec: Mapping[str, Any]) -> dict:
        pv_spec = spec["pv"].get("spec") or {}
        mount = {"fs_type": (pv_spec.get("csi") or {}).get("fsType", ""),
                 "mount_flags": list(pv_spec.get("mountOptions") or ())}
        return {"access_mode": {"mode": csi_access_mode(spec["pv"])}, "mount": mount}

    def mount_device(self, spec: Mapping[str, Any], publish_context: Mapping[str, str] | None = None) -> str:
        """``MountDevice``: ``NodeStageVolume`` when the driver stages; the staging path ("" when it does not)."""
        node = self._node(spec, MountDeviceError)
        try:
            if not self._stages(node):
                return ""
            path = device_mount_path(spec["driver"], spec["handle"], self.plugins_dir)
            node.NodeStageVolume({"volume_id": spec["handle"], "publish_context": dict(publish_context or {}),
                                  "staging_target_path": path, "volume_capability": self._capability(spec),
                                  "secrets": {}, "volume_context": dict(
                                      ((spec["pv"].get("spec") or {}).get("csi") or {}).get("volumeAttributes") or {})})
        except CSIError as e:
            raise MountDeviceError(str(e)) from e
        return path

    def set_up(self, spec: Mapping[str, Any], pod: Mapping[str, Any], staging_path: str,
               publish_context: Mapping[str, str] | None = None) -> str:
        """``SetUp``: ``NodePublishVolume`` at :func:`target_path`; returns the target path."""
        md = pod.get("metadata") or {}
        target = target_path(md.get("uid", ""), spec["pv_name"], self.pods_dir)
        context = dict(((spec["pv"].get("spec") or {}).get("csi") or {}).get("volumeAttributes") or {})
        if spec["pod_info_on_mount"]:
            sa = (pod.get("spec") or {}).get("serviceAccountName") or "default"
            context.update(zip(_POD_INFO_KEYS, (md.get("name", ""), md.get("namespace", ""), md.get("uid", ""),
                                                sa, "false")))
        node = self._node(spec, CSISetUpError)
        request = {"volume_id": spec["handle"], "publish_context": dict(publish_context or {}),
                   "target_path": target, "volume_capability": self._capability(spec),
                   "readonly": spec["read_only"], "secrets": {}, "volume_context": context}
        try:
            if self._stages(node):
                request["staging_target_path"] = staging_path or device_mount_path(
                    spec["driver"], spec["handle"], self.plugins_dir)
            node.NodePublishVolume(request)
        except CSIError as e:
            raise CSISetUpError(str(e)) from e
        return target

    def tear_down(self, spec: Mapping[str, Any], target: str) -> None:
        """``TearDown``: ``NodeUnpublishVolume`` (raises :class:`~kubenotes.csi.spec.CSIError`)."""
        node = self.node_service(spec["driver"])
        if node is None:
            raise CSIError("Unavailable", f"driver name {spec['driver']} not found in the list of registered "
                                          "CSI drivers")
        node.NodeUnpublishVolume({"volume_id": spec["handle"], "target_path": target})

    def unmount_device(self, spec: Mapping[str, Any], staging_path: str) -> None:
        """``UnmountDevice``: ``NodeUnstageVolume`` when the driver stages (raises ``CSIError``)."""
        node = self.node_service(spec["driver"])
        if node is None:
            raise CSIError("Unavailable", f"driver name {spec['driver']} not found in the list of registered "
                                          "CSI drivers")
        if self._stages(node):
            node.NodeUnstageVolume({"volume_id": spec["handle"], "staging_target_path": staging_path or
                                    device_mount_path(spec["driver"], spec["handle"], self.plugins_dir)})

    def node_expand(self, spec: Mapping[str, Any], pod: Mapping[str, Any], volume_path: str,
                    staging_path: str = "") -> str | None:
        """``NodeExpander.expandOnPlugin``: finish a claim's resize on this node with ``NodeExpandVolume``.

        Called after ``SetUp`` (``expandVolumeDuringMount``) and, for a mounted volume, at each pod sync
        (``ExpandInUseVolume``). It reads the claim and its PersistentVolume afresh; when the PV's
        ``spec.capacity.storage`` exceeds the claim's ``status.capacity.storage`` and the claim's
        ``allocatedResourceStatuses.storage`` is ``NodeResizePending`` or ``NodeResizeInProgress``
        (``runPreCheck``), it

        1. marks the claim ``NodeResizeInProgress`` (``MarkNodeExpansionInProgress``);
        2. calls ``NodeExpandVolume`` (volume id, ``volume_path``, ``staging_target_path``,
           ``capacity_range.required_bytes`` the PV's size, the volume capability) when the Node service
           has ``EXPAND_VOLUME``;
        3. records ``FileSystemResizeSuccessful``
           (``MountVolume.NodeExpandVolume succeeded for volume "<pv>" <node>``) on the pod and on the claim;
        4. writes the claim's ``status.capacity.storage`` (the PV's size), removes
           ``allocatedResourceStatuses.storage`` and the resize conditions (``MarkFSResizeFinished``).

        Parameters
        ----------
        spec : dict
            What :func:`csi_volume_spec` resolved for the pod volume.
        pod : dict
        volume_path : str
            The published path (:func:`target_path`).
        staging_path : str
            The staging path ("" when the driver does not stage).

        Returns
        -------
        str or None
            The claim's new capacity (a quantity) when the volume was expanded; None when nothing was to do.

        Raises
        ------
        NodeExpandError
            The driver cannot expand (``Expander.NodeExpand found CSI plugin kubernetes.io/csi/<driver> to not
            support node expansion``), ``NodeExpandVolume`` failed (``Expander.NodeExpand failed to expand the
            volume : rpc error: ...``), or a claim status update was refused.

        Notes
        -----
        Not modelled: the final-error bookkeeping (``MarkNodeExpansionFailedCondition``,
        ``MarkNodeExpansionInfeasible``, ``NodeResizeError``), ``FailedPrecondition`` not blocking the mount,
        and ``pvcAlreadyUpdated`` (a claim already expanded on another node, for ReadWriteMany volumes).

        References
        ----------
        kubernetes/kubernetes@v1.34.0 pkg/volume/util/operationexecutor/node_expander.go
        kubernetes/kubernetes@v1.34.0 pkg/volume/util/operationexecutor/operation_generator.go (nodeExpandVolume,
        GenerateExpandInUseVolumeFunc, expandVolumeDuringMount)
        kubernetes/kubernetes@v1.34.0 pkg/volume/csi/expander.go (nodeExpandWithClient)
        kubernetes/kubernetes@v1.34.0 pkg/volume/util/resize_util.go (MarkNodeExpansionInProgress, MarkFSResizeFinished)

        Examples
        --------
        >>> from kubenotes.csi.hostpath import HostPathDriver
        >>> d = HostPathDriver()
        >>> _ = d.add_volume("h", 2**31)
        >>> pvc = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
        ...        "spec": {"volumeName": "pv-a"}, "status": {"capacity": {"storage": "1Gi"},
        ...        "allocatedResourceStatuses": {"storage": "NodeResizePending"}}}
        >>> pv = {"metadata": {"name": "pv-a"}, "spec": {"capacity": {"storage": "2Gi"},
        ...       "csi": {"driver": d.name, "volumeHandle": "h"}}}
        >>> objs = {("persistentvolumeclaims", "default", "data"): pvc, ("persistentvolumes", "", "pv-a"): pv}
        >>> def update(claim):
        ...     objs[("persistentvolumeclaims", "default", "data")] = claim
        ...     return claim
        >>> events = []
        >>> plugin = CSIVolumePlugin(lambda r, ns, n: objs.get((r, ns, n)), "n1", lambda name: d.node("n1"),
        ...                          update_claim_status=update, record_event=lambda *e: events.append(e[1:]))
        >>> spec = csi_volume_spec(plugin.get, {"metadata": {"namespace": "default"}},
        ...                        {"name": "v", "persistentVolumeClaim": {"claimName": "data"}})
        >>> plugin.node_expand(spec, {"metadata": {"name": "p"}}, "/target")
        '2Gi'
        >>> objs[("persistentvolumeclaims", "default", "data")]["status"]
        {'capacity': {'storage': '2Gi'}}
        >>> events[0]
        ('Normal', 'FileSystemResizeSuccessful', 'MountVolume.NodeExpandVolume succeeded for volume "pv-a" n1')
        >>> plugin.node_expand(spec, {"metadata": {"name": "p"}}, "/target") is None  # nothing left to do
        True
        """
        if self.update_claim_status is None or spec.get("read_only"):
            return None
        pvc = self.get("persistentvolumeclaims", spec.get("claim_namespace", ""), spec.get("claim_name", ""))
        pv = self.get("persistentvolumes", "", spec["pv_name"])
        if pvc is None or pv is None:
            return None
        status = pvc.get("status") or {}
        new_bytes = storage_capacity_bytes(pv)
        if quantity_value((status.get("capacity") or {}).get("storage") or "0") >= new_bytes:
            return None  # nothing to resize
        if (status.get("allocatedResourceStatuses") or {}).get("storage") not in (NODE_RESIZE_PENDING,
                                                                                   NODE_RESIZE_IN_PROGRESS):
            return None  # runPreCheck: not handed to the node (yet)
        new_size = str(pv["spec"]["capacity"]["storage"])
        pvc = self._write_claim(claim_with_resize_status(pvc, _resize_conditions(pvc), NODE_RESIZE_IN_PROGRESS))
        node = self._node(spec, NodeExpandError)
        caps = node.NodeGetCapabilities({}).get("capabilities") or ()
        if not any((c.get("rpc") or {}).get("type") == EXPAND_VOLUME for c in caps):
            raise NodeExpandError(f"Expander.NodeExpand found CSI plugin {CSI_PLUGIN_NAME}/{spec['driver']} to not "
                                  "support node expansion")
        request = {"volume_id": spec["handle"], "volume_path": volume_path,
                   "capacity_range": {"required_bytes": new_bytes}, "volume_capability": self._capability(spec)}
        if staging_path:
            request["staging_target_path"] = staging_path
        try:
            node.NodeExpandVolume(request)
        except CSIError as e:
            raise NodeExpandError(f"Expander.NodeExpand failed to expand the volume : {e}") from e
        message = f'MountVolume.NodeExpandVolume succeeded for volume "{spec["pv_name"]}" {self.node_name}'
        if self.record_event is not None:
            self.record_event(dict(pod), "Normal", FILE_SYSTEM_RESIZE_SUCCESSFUL, message)
            self.record_event(pvc, "Normal", FILE_SYSTEM_RESIZE_SUCCESSFUL, message)
        self._write_claim(claim_with_resize_status(pvc, [], None, capacity=new_size))
        return new_size

    def _write_claim(self, claim: dict) -> dict:
        try:
            return self.update_claim_status(claim)
        except VolumeSetUpError:
            raise
        except Exception as e:  # an ApiError (a conflict with the resizer's write): retried
            if hasattr(e, "code"):
                raise NodeExpandError(f"mountVolume.NodeExpandVolume update pvc status failed: {e}") from e
            raise


def _resize_conditions(claim: Mapping[str, Any]) -> list[dict]:
    """The claim's resize conditions as they are (``MarkNodeExpansionInProgress`` leaves them)."""
    return [c for c in (claim.get("status") or {}).get("conditions") or () if c.get("type") in RESIZE_CONDITIONS]
