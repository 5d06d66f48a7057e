"""The kubelet's CSI volume plugin, as far as modelled: ``WaitForAttach`` on the VolumeAttachment.

Before a CSI volume that needs attaching is staged and published on the node,
the kubelet's mount operation calls the CSI plugin's ``WaitForAttach``: it
reads the VolumeAttachment the attach/detach controller created for (volume
handle, driver, this node) (``csi-<sha256>``,
:func:`kubenotes.api.storagehelpers.csi_attachment_name`) and waits until the
external-attacher reports ``status.attached: true``. An ``attachError`` fails
the operation with its message; a VolumeAttachment being deleted fails it with
``volume attachment is being deleted``. Volumes that need no attach pass at
once: not a claim bound to a PersistentVolume with ``spec.csi``, or a driver
whose CSIDriver says ``attachRequired: false``.

:func:`wait_for_attach` is what the volume manager's SetUp of a claim calls
through :class:`~kubenotes.kubelet.kubelet.KubeletVolumeHost`. While the
VolumeAttachment is absent or not yet attached it raises
:class:`VolumeNotYetAttached`: the volume manager retries with its back-off
and records no Event (upstream's operation blocks in a watch meanwhile); the
other failures raise :class:`WaitForAttachError`, recorded as ``FailedMount``
``MountVolume.WaitForAttach failed for volume "<volume>" : <error>``.

Notes
-----
Only WaitForAttach: ``MountDevice`` (NodeStageVolume under
``/var/lib/kubelet/plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount``)
and ``SetUp`` (NodePublishVolume under
``/var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~csi/<pv>/mount``), their
teardown, ``VerifyControllerAttachedVolume`` (``node.status.volumesAttached``)
and the Node's ``volumesInUse`` are not modelled: after the wait, the volume
is "mounted as is". The Event names the pod's volume, where upstream names
the PersistentVolume; the 10-minute ``waitForAttachTimeout`` is the volume
manager's own 2m3s wait.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_attacher.go (WaitForAttach, waitForVolumeAttachmentInternal,
verifyAttachmentStatus)
kubernetes/kubernetes@v1.34.0 pkg/volume/util/operationexecutor/operation_generator.go (GenerateMountVolumeFunc)
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from kubenotes.api.storagehelpers import csi_attachment_name
from kubenotes.kubelet.volumes import VolumeSetUpError

__all__ = ["wait_for_attach", "WaitForAttachError", "VolumeNotYetAttached", "BEING_DELETED"]

#: ``verifyAttachmentStatus`` for a VolumeAttachment with a deletionTimestamp.
BEING_DELETED = "volume attachment is being deleted"


class WaitForAttachError(VolumeSetUpError):
    """``WaitForAttach`` failed: an ``attachError``, or the VolumeAttachment is being deleted."""

    operation = "MountVolume.WaitForAttach"


class VolumeNotYetAttached(WaitForAttachError):
    """The VolumeAttachment is absent or not attached yet: wait (retry), no Event."""

    pending = True


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
    if csidriver is not None and (csidriver.get("spec") or {}).get("attachRequired") is False:
        return None
    name = csi_attachment_name(handle, driver, node_name)
    va = get("volumeattachments", "", name)
    if va is None or not ((va.get("status") or {}).get("attached") or (va.get("status") or {}).get("attachError")
                          or (va.get("metadata") or {}).get("deletionTimestamp")):
        raise VolumeNotYetAttached(f"volume attachment {name} for volume {handle} on node {node_name} "
                                   "is not attached yet")
    if (va.get("metadata") or {}).get("deletionTimestamp"):
        raise WaitForAttachError(BEING_DELETED)
    if (va.get("status") or {}).get("attached"):
        return name
    raise WaitForAttachError(str(va["status"]["attachError"].get("message", "")))
