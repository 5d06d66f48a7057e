"""NodeVolumeLimits: CSI attach limits per driver from the node's CSINode (``nodevolumelimits/csi.go``).

Mirrors ``pkg/scheduler/framework/plugins/nodevolumelimits/csi.go``
(``CSILimits``). PreFilter skips pods without claim-backed volumes. Filter
counts, per CSI driver, the unique volumes (``driver/volumeHandle``) the pod
would add to the node beyond those its pods already use, and rejects the node
with ``node(s) exceed max volume count`` when a driver's
``spec.drivers[].allocatable.count`` on the node's CSINode would be exceeded.
A claim's driver and handle come from its bound PV's ``spec.csi``; an unbound
claim counts under its StorageClass's provisioner with a handle made of a
per-plugin random prefix and ``namespace/claim``. The node's VolumeAttachments
count too, so a volume still detaching after its pod is gone holds its slot.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodevolumelimits/csi.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodevolumelimits/utils.go
https://github.com/kubernetes/kubernetes/pull/127757 (VolumeAttachments counted)
https://kubernetes.io/docs/concepts/storage/storage-limits/#dynamic-volume-limits
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubenotes.api import storagehelpers as sh
from kubenotes.scheduler.framework.interface import Code, PreFilterResult, Status
from kubenotes.scheduler.plugins.helper import reject_args
from kubenotes.scheduler.plugins.names import NODE_VOLUME_LIMITS as NAME
from kubenotes.scheduler.snapshot import ObjectListers

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["NAME", "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED", "volume_limits", "CSILimits", "new"]

#: Filter reason when a driver's attach limit would be exceeded.
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"


def volume_limits(csi_node: dict | None) -> dict[str, int]:
    """Driver -> ``allocatable.count`` of a CSINode (``getVolumeLimits``); {} without a CSINode.

    Examples
    --------
    >>> volume_limits({"spec": {"drivers": [{"name": "a", "allocatable": {"count": 2}}, {"name": "b"}]}})
    {'a': 2}
    """
    out = {}
    for d in ((csi_node or {}).get("spec") or {}).get("drivers") or ():
        count = (d.get("allocatable") or {}).get("count")
        if count is not None:
            out[d.get("name")] = int(count)
    return out


class CSILimits:
    """The NodeVolumeLimits plugin (upstream type ``CSILimits``).

    Parameters
    ----------
    handle : Framework
        ``handle.objects`` gives claims, PVs, StorageClasses and CSINodes.
    random_volume_id_prefix : str
        Upstream draws a random prefix (``rand.String(32)``) per plugin for
        the handles of unbound claims; any fixed string gives the same counts.

    Notes
    -----
    In-tree volumes (inline or PV) are not translated to CSI (CSI migration;
    kubenotes has no in-tree volume plugins), so they are never counted;
    upstream counts them when the node's CSINode lists the migrated plugin
    (``storage.alpha.kubernetes.io/migrated-plugins``). The node's
    VolumeAttachments not used by its pods are counted too (kubernetes#127757);
    as upstream, a new volume is not matched against them. Queueing
    hints are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodevolumelimits/csi.go

    Examples
    --------
    >>> CSILimits(None).name()
    'NodeVolumeLimits'
    """

    def __init__(self, handle: Any, random_volume_id_prefix: str = "kubenotes"):
        self.handle = handle
        self.random_volume_id_prefix = random_volume_id_prefix
        self.listers = ObjectListers(handle)

    def name(self) -> str:
        """``NodeVolumeLimits``."""
        return NAME

    def _find(self, attr: str, name: str, namespace: str | None = None) -> dict | None:
        key = name if namespace is None else f"{namespace}/{name}"
        return self.listers.of(attr).get(key)

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]
                   ) -> tuple[PreFilterResult | None, Status]:
        """Skip unless the pod has a PersistentVolumeClaim or generic ephemeral volume."""
        for v in pod.pod.spec.volumes or ():
            if v.persistentVolumeClaim is not None or v.ephemeral is not None:
                self.listers.refresh()
                return None, Status()
        return None, Status.skip()

    def pre_filter_extensions(self) -> None:
        """None."""
        return None

    def _driver_info(self, pvc: dict) -> tuple[str, str]:
        """(driver, volume handle) of a claim (``getCSIDriverInfo``); ("", "") when not countable."""
        pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
        if pv_name:
            pv = self._find("persistent_volumes", pv_name)
            if pv is not None:
                csi = (pv.get("spec") or {}).get("csi")
                if not csi:
                    return "", ""  # in-tree, not translated (see Notes)
                return csi.get("driver") or "", csi.get("volumeHandle") or ""
        # no PV (yet): count under the class's provisioner (getCSIDriverInfoFromSC)
        sc_name = sh.get_persistent_volume_claim_class(pvc)
        if not sc_name:
            return "", ""
        sc = self._find("storage_classes", sc_name)
        if sc is None:
            return "", ""
        md = pvc.get("metadata") or {}
        return sc.get("provisioner") or "", f"{self.random_volume_id_prefix}-{md.get('namespace')}/{md.get('name')}"

    def _filter_attachable_volumes(self, pod: Any, new_pod: bool, result: dict[str, str]) -> Status | None:
        """Add ``driver/handle -> driver`` of the pod's countable volumes (``filterAttachableVolumes``)."""
        namespace = pod.metadata.namespace or "default"
        for v in pod.spec.volumes or ():
            ephemeral = False
            if v.persistentVolumeClaim is not None:
                claim = v.persistentVolumeClaim.claimName or ""
            elif v.ephemeral is not None:
                claim, ephemeral = f"{pod.metadata.name}-{v.name}", True
            else:
                continue  # inline in-tree volumes: not translated (see Notes)
            if not claim:
                return Status.error("PersistentVolumeClaim had no name")
            pvc = self._find("persistent_volume_claims", claim, namespace)
            if pvc is None:
                if new_pod:
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                  [f'looking up PVC {namespace}/{claim}: persistentvolumeclaim "{claim}" not found'])
                continue
            if ephemeral:
                uid = pod.metadata.uid
                if not any(r.get("controller") and r.get("uid") == uid
                           for r in (pvc.get("metadata") or {}).get("ownerReferences") or ()):
                    return Status.error(f"PVC {namespace}/{claim} was not created for pod {namespace}/{pod.metadata.name} "
                                        "(pod is not owner)")
            driver, handle = self._driver_info(pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = driver
        return None

    def node_volume_attachment_info(self, node_name: str) -> dict[str, str]:
        """``driver/handle -> driver`` of the VolumeAttachments on the node (``getNodeVolumeAttachmentInfo``).

        An attachment counts when it names its attacher and a PersistentVolume
        with a CSI source (volumes still detaching after their pod is gone count too).
        """
        out = {}
        for va in self.listers.of("volume_attachments").values():
            spec = va.get("spec") or {}
            if spec.get("nodeName") != node_name:
                continue
            attacher, pv_name = spec.get("attacher") or "", (spec.get("source") or {}).get("persistentVolumeName")
            if not attacher or not pv_name:
                continue
            pv = self._find("persistent_volumes", pv_name)
            csi = ((pv or {}).get("spec") or {}).get("csi")
            if not csi:
                continue
            out[f"{attacher}/{csi.get('volumeHandle') or ''}"] = attacher
        return out

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Reject the node when a driver's new volumes would pass its CSINode limit."""
        if not pod.pod.spec.volumes:
            return Status()
        new_volumes: dict[str, str] = {}
        err = self._filter_attachable_volumes(pod.pod, True, new_volumes)
        if err is not None:
            return err
        if not new_volumes:
            return Status()
        limits = volume_limits(self._find("csi_nodes", node_info.name))
        if not limits:
            return Status()
        attached: dict[str, str] = {}
        for existing in node_info.pods:
            err = self._filter_attachable_volumes(existing.pod, False, attached)
            if err is not None:
                return err
        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            new_volumes.pop(unique, None)  # a volume shared with a pod on the node counts once
            attached_count[driver] = attached_count.get(driver, 0) + 1
        for unique, driver in self.node_volume_attachment_info(node_info.name).items():
            if unique not in attached:  # attached for a pod already counted above
                attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return Status(Code.UNSCHEDULABLE, [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED])
        return Status()


def new(args: Any, handle: Any) -> CSILimits:
    """Build NodeVolumeLimits (it takes no arguments).

    Raises
    ------
    ConfigError
        When ``args`` holds a field.

    Examples
    --------
    >>> new(None, None).name()
    'NodeVolumeLimits'
    """
    reject_args(NAME, args)
    return CSILimits(handle)
