"""The external-attacher sidecar: VolumeAttachments of one CSI driver to ControllerPublish/UnpublishVolume calls.

kube-controller-manager's attach/detach controller cannot talk to a CSI
driver; it writes a ``VolumeAttachment`` (``spec.attacher: <driver>``,
``spec.nodeName``, ``spec.source.persistentVolumeName``) and waits. The
external-attacher, a sidecar of the driver's controller pod, watches the
VolumeAttachments of its driver:

* **attach** (no ``deletionTimestamp``, not ``status.attached``): add its
  finalizer ``external-attacher/<driver>`` (every character outside
  ``[a-zA-Z0-9-]`` replaced by ``-``, an ``X`` appended if it then ends in
  ``-``: ``external-attacher/hostpath-csi-k8s-io``) to the VolumeAttachment
  and to the PersistentVolume, look up the node's id for the driver in its
  CSINode, call ``ControllerPublishVolume`` and write ``status.attached:
  true`` and ``attachmentMetadata`` (the ``publish_context``); a failed call
  writes ``status.attachError`` (time and message) and retries with back-off.
* **detach** (``deletionTimestamp`` set, finalizer present): call
  ``ControllerUnpublishVolume``, write ``status.attached: false``, then drop
  the finalizer so the object goes; a failed call writes ``status.detachError``.
* a PersistentVolume being deleted loses the finalizer once no
  VolumeAttachment names it.

The driver is any object with the CSI Controller RPCs as methods taking and
returning dicts (:class:`kubenotes.csi.hostpath.HostPathDriver`); whoever wires
the cluster hands it in (:meth:`ExternalAttacher.configured`).

Notes
-----
Not part of kube-controller-manager: a sidecar with its own ServiceAccount
(``csi-attacher``) and ClusterRole (``external-attacher-runner``, created on
install like its deployment's ``rbac.yaml``; the model updates where the
sidecar patches, so the role also grants ``update``). Leader election, the
``--timeout`` of calls, ``ListVolumes`` reconciliation, migrated in-tree
volumes, inline volume specs and ``attachmentMetadata`` size checks are not
modelled.

References
----------
kubernetes-csi/external-attacher@v4.9 pkg/controller/csi_handler.go (syncAttach, syncDetach, csiAttach, csiDetach)
kubernetes-csi/external-attacher@v4.9 pkg/controller/util.go (SanitizeDriverName, GetFinalizerName,
GetNodeIDFromCSINode, GetVolumeCapabilities)
kubernetes-csi/external-attacher@v4.9 deploy/kubernetes/rbac.yaml
"""

from __future__ import annotations

import re
from typing import Any

from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, STORAGE_GROUP, events_rule, policy_rule
from kubenotes.apiserver.server import format_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.reconciler import Controller, Result
from kubenotes.errors import KubenotesError

__all__ = ["ExternalAttacher", "sanitize_driver_name", "finalizer_name", "volume_capability",
           "ATTACHER_CLUSTER_ROLE", "PV_KEY_PREFIX"]

#: The sidecar's ClusterRole (its ``rbac.yaml``), bound to ServiceAccount ``kube-system/csi-attacher``.
ATTACHER_CLUSTER_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
    "metadata": {"name": "external-attacher-runner"},
    "rules": [
        policy_rule(("get", "list", "watch", "patch", "update"), (LEGACY_GROUP,), ("persistentvolumes",)),
        policy_rule(("get", "list", "watch"), (STORAGE_GROUP,), ("csinodes",)),
        policy_rule(("get", "list", "watch", "patch", "update"), (STORAGE_GROUP,), ("volumeattachments",)),
        policy_rule(("patch", "update"), (STORAGE_GROUP,), ("volumeattachments/status",)),
        events_rule(),
    ],
}
#: Queue keys of PersistentVolumes start with this (VolumeAttachment keys are bare names).
PV_KEY_PREFIX = "persistentvolume:"


def sanitize_driver_name(driver: str) -> str:
    """``SanitizeDriverName``: each character outside ``[a-zA-Z0-9-]`` becomes ``-``; a trailing ``-`` gets an ``X``.

    Examples
    --------
    >>> sanitize_driver_name("hostpath.csi.k8s.io"), sanitize_driver_name("ebs.csi.aws.com/")
    ('hostpath-csi-k8s-io', 'ebs-csi-aws-com-X')
    """
    name = re.sub(r"[^a-zA-Z0-9-]", "-", driver)
    return name + "X" if name.endswith("-") else name


def finalizer_name(driver: str) -> str:
    """``GetFinalizerName``: ``external-attacher/<sanitized driver>``.

    Examples
    --------
    >>> finalizer_name("hostpath.csi.k8s.io")
    'external-attacher/hostpath-csi-k8s-io'
    """
    return "external-attacher/" + sanitize_driver_name(driver)


def volume_capability(pv: dict) -> dict:
    """The CSI ``VolumeCapability`` for a PersistentVolume: mount or block, and an access mode from its modes.

    ``ReadWriteMany`` -> ``MULTI_NODE_MULTI_WRITER``, else ``ReadOnlyMany`` ->
    ``MULTI_NODE_READER_ONLY``, else ``ReadWriteOncePod`` -> ``SINGLE_NODE_SINGLE_WRITER``,
    else ``SINGLE_NODE_WRITER``.

    Examples
    --------
    >>> volume_capability({"spec": {"accessModes": ["ReadWriteOnce"], "csi": {"fsType": "ext4"}}})
    {'access_mode': {'mode': 'SINGLE_NODE_WRITER'}, 'mount': {'fs_type': 'ext4'}}
    """
    spec = pv.get("spec") or {}
    modes = set(spec.get("accessModes") or ())
    if "ReadWriteMany" in modes:
        mode = "MULTI_NODE_MULTI_WRITER"
    elif "ReadOnlyMany" in modes:
        mode = "MULTI_NODE_READER_ONLY"
    elif "ReadWriteOncePod" in modes:
        mode = "SINGLE_NODE_SINGLE_WRITER"
    else:
        mode = "SINGLE_NODE_WRITER"
    if spec.get("volumeMode") == "Block":
        return {"access_mode": {"mode": mode}, "block": {}}
    return {"access_mode": {"mode": mode}, "mount": {"fs_type": (spec.get("csi") or {}).get("fsType", "")}}


class ExternalAttacher(Controller):
    """The external-attacher of one CSI driver (see the module docstring).

    Attributes
    ----------
    driver : object
        The CSI driver's Controller service (``ControllerPublishVolume``, ``ControllerUnpublishVolume``,
        ``GetPluginInfo``); set with :meth:`configured`.

    Examples
    --------
    >>> ExternalAttacher.finalizer_for("hostpath.csi.k8s.io")
    'external-attacher/hostpath-csi-k8s-io'
    """

    name = "csi-attacher"
    service_account = "csi-attacher"
    driver: Any = None

    def __init__(self, ctx: Any):
        if self.driver is None:
            raise ValueError("ExternalAttacher needs a driver: ExternalAttacher.configured(driver=...)")
        self._install_rbac(ctx)
        super().__init__(ctx)


    @staticmethod
    def finalizer_for(driver_name: str) -> str:
        """The finalizer this sidecar puts on VolumeAttachments and PersistentVolumes of ``driver_name``."""
        return finalizer_name(driver_name)

    @staticmethod
    def _install_rbac(ctx: Any) -> None:
        """The deployment's ``rbac.yaml``: the ClusterRole (if absent) and its binding to ``csi-attacher``."""
        from kubenotes.apiserver.request import UserInfo

        admin = ctx.server.client("kube-apiserver", UserInfo("kubernetes-admin", groups=("system:masters",)))
        binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                   "metadata": {"name": "csi-attacher-role"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                               "name": ATTACHER_CLUSTER_ROLE["metadata"]["name"]},
                   "subjects": [{"kind": "ServiceAccount", "name": "csi-attacher", "namespace": "kube-system"}]}
        for resource, obj in (("clusterroles", ATTACHER_CLUSTER_ROLE), ("clusterrolebindings", binding)):
            if ctx.server.get(resource, None, obj["metadata"]["name"]) is None:
                admin.create(resource, deep_copy(obj))

    def setup(self) -> None:
        self.recorder._seq = 4 << 20  # apart from the other recorders' event names (see AttachDetachController)
        self.driver_name = self.driver.GetPluginInfo({})["name"]
        self.finalizer = finalizer_name(self.driver_name)
        self.attachments = self.informers.informer_for("volumeattachments")
        self.volumes = self.informers.informer_for("persistentvolumes")
        self.csinodes = self.informers.informer_for("csinodes")
        self.attachments.add_event_handler(self._on_va, lambda old, cur: self._on_va(cur), None)
        self.volumes.add_event_handler(self._on_pv, lambda old, cur: self._on_pv(cur), None)

    def _on_va(self, va: dict) -> None:
        if (va.get("spec") or {}).get("attacher") == self.driver_name:
            self.enqueue(va["metadata"]["name"])

    def _on_pv(self, pv: dict) -> None:
        md = pv.get("metadata") or {}
        if md.get("deletionTimestamp") and self.finalizer in (md.get("finalizers") or ()):
            self.enqueue(PV_KEY_PREFIX + md["name"])

    # ------------------------------------------------------------ the queue
    def reconcile(self, key: str) -> Result | None:
        if key.startswith(PV_KEY_PREFIX):
            return self._sync_pv(key[len(PV_KEY_PREFIX):])
        va = self.attachments.lister.get(None, key)
        if va is None or (va.get("spec") or {}).get("attacher") != self.driver_name:
            return None
        if va["metadata"].get("deletionTimestamp"):
            return self._sync_detach(va)
        return self._sync_attach(va)

    def _now(self) -> str:
        return format_timestamp(self.env.now, self.client.server.epoch)

    def _node_id(self, node_name: str) -> str | None:
        """``GetNodeIDFromCSINode``: the driver's ``nodeID`` in the node's CSINode."""
        csinode = self.csinodes.lister.get(None, node_name)
        for d in ((csinode or {}).get("spec") or {}).get("drivers") or ():
            if d.get("name") == self.driver_name:
                return d.get("nodeID")
        return None

    def _sync_attach(self, va: dict) -> Result | None:
        """``syncAttach``: finalizers, ``ControllerPublishVolume``, status."""
        if (va.get("status") or {}).get("attached"):
            return None
        if self.finalizer not in (va["metadata"].get("finalizers") or ()):
            va = deep_copy(va)
            va["metadata"].setdefault("finalizers", []).append(self.finalizer)
            va = self.client.update("volumeattachments", va)
        pv_name = ((va.get("spec") or {}).get("source") or {}).get("persistentVolumeName")
        pv = self.volumes.lister.get(None, pv_name) if pv_name else None
        if pv is None:
            return self._save_error(va, "attachError", f'persistentvolume "{pv_name}" not found')
        if self.finalizer not in (pv["metadata"].get("finalizers") or ()):
            new_pv = deep_copy(pv)
            new_pv["metadata"].setdefault("finalizers", []).append(self.finalizer)
            self.client.update("persistentvolumes", new_pv)
        node = va["spec"].get("nodeName", "")
        node_id = self._node_id(node)
        if node_id is None:
            return self._save_error(va, "attachError", f"CSINode {node} does not contain driver {self.driver_name}")
        try:
            resp = self.driver.ControllerPublishVolume({
                "volume_id": (pv["spec"].get("csi") or {}).get("volumeHandle", ""), "node_id": node_id,
                "volume_capability": volume_capability(pv), "readonly": False,
                "volume_context": dict((pv["spec"].get("csi") or {}).get("volumeAttributes") or {})})
        except KubenotesError as err:  # a CSIError: the call failed with a gRPC code
            return self._save_error(va, "attachError", str(err))
        status: dict[str, Any] = {"attached": True}
        if resp.get("publish_context"):
            status["attachmentMetadata"] = dict(resp["publish_context"])
        va = deep_copy(va)
        va["status"] = status
        self.client.update_status("volumeattachments", va)
        return None

    def _save_error(self, va: dict, field: str, message: str) -> Result:
        """``saveAttachError`` / ``saveDetachError``: the error in status, then retry with back-off."""
        va = deep_copy(va)
        status = va.setdefault("status", {})
        status["attached"] = bool(status.get("attached"))
        status[field] = {"time": self._now(), "message": message}
        try:
            self.client.update_status("volumeattachments", va)
        except ApiError as e:
            if e.code != 404:
                raise
        return Result(requeue=True)

    def _sync_detach(self, va: dict) -> Result | None:
        """``syncDetach``: ``ControllerUnpublishVolume``, then status and finalizer off."""
        if self.finalizer not in (va["metadata"].get("finalizers") or ()):
            return None
        pv_name = ((va.get("spec") or {}).get("source") or {}).get("persistentVolumeName")
        pv = self.volumes.lister.get(None, pv_name) if pv_name else None
        handle = ((pv or {}).get("spec") or {}).get("csi", {}).get("volumeHandle", "")
        node_id = self._node_id(va["spec"].get("nodeName", "")) or va["spec"].get("nodeName", "")
        try:
            self.driver.ControllerUnpublishVolume({"volume_id": handle, "node_id": node_id})
        except KubenotesError as err:
            return self._save_error(va, "detachError", str(err))
        va = deep_copy(va)
        va["status"] = {"attached": False}
        va = self.client.update_status("volumeattachments", va)
        va["metadata"]["finalizers"] = [f for f in va["metadata"].get("finalizers") or () if f != self.finalizer]
        try:
            self.client.update("volumeattachments", va)
        except ApiError as e:
            if e.code != 404:
                raise
        if pv is not None and pv["metadata"].get("deletionTimestamp"):
            self.enqueue(PV_KEY_PREFIX + pv["metadata"]["name"])
        return None

    def _sync_pv(self, name: str) -> Result | None:
        """A PV being deleted loses the finalizer once no VolumeAttachment of this driver names it."""
        pv = self.volumes.lister.get(None, name)
        if pv is None or self.finalizer not in (pv["metadata"].get("finalizers") or ()):
            return None
        for va in self.attachments.lister.list():
            if ((va.get("spec") or {}).get("source") or {}).get("persistentVolumeName") == name:
                return None
        pv = deep_copy(pv)
        pv["metadata"]["finalizers"] = [f for f in pv["metadata"]["finalizers"] if f != self.finalizer]
        self.client.update("persistentvolumes", pv)
        return None
