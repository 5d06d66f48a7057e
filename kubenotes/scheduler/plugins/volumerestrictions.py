"""VolumeRestrictions: disk volumes that cannot be shared, and ReadWriteOncePod claims.

Mirrors ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go``.
Filter rejects a node where another pod already mounts the same

* GCE persistent disk (``pdName``), unless both mounts are read-only;
* AWS EBS volume (``volumeID``), always;
* iSCSI volume (``iqn``), unless both are read-only;
* Ceph RBD image (a shared monitor, same pool and image), unless both are read-only,

and rejects every node when a PersistentVolumeClaim of the pod with the
``ReadWriteOncePod`` access mode is already used by a scheduled pod (preemption
may free it, hence ``Unschedulable``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go
KEP-2485 (ReadWriteOncePod)
"""

from __future__ import annotations

from kubenotes.scheduler.plugins.helper import reject_args

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kubenotes.errors import NotFound
from kubenotes.scheduler.framework.interface import Code, PreFilterResult, Status
from kubenotes.scheduler.plugins.names import VOLUME_RESTRICTIONS as NAME

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "ERR_REASON_DISK_CONFLICT",
    "ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT",
    "READ_WRITE_ONCE_POD",
    "is_volume_conflict",
    "needs_restrictions_check",
    "PreFilterState",
    "VolumeRestrictions",
    "new",
]

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
#: Filter reason for a GCE PD / EBS / iSCSI / RBD conflict.
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
#: Filter reason when a ReadWriteOncePod claim is already in use.
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
#: The access mode that restricts a volume to one pod.
READ_WRITE_ONCE_POD = "ReadWriteOncePod"


def _have_overlap(a: Any, b: Any) -> bool:
    return bool(set(a or ()) & set(b or ()))


def is_volume_conflict(volume: Any, pod: Any) -> bool:
    """True when ``volume`` (of the incoming pod) conflicts with a volume of ``pod`` (``isVolumeConflict``).

    Parameters
    ----------
    volume : lightkube Volume
    pod : lightkube Pod
        An existing pod on the node.
    """
    for ev in pod.spec.volumes or ():
        if volume.gcePersistentDisk is not None and ev.gcePersistentDisk is not None:
            d, e = volume.gcePersistentDisk, ev.gcePersistentDisk
            if d.pdName == e.pdName and not (d.readOnly and e.readOnly):
                return True
        if volume.awsElasticBlockStore is not None and ev.awsElasticBlockStore is not None:
            if volume.awsElasticBlockStore.volumeID == ev.awsElasticBlockStore.volumeID:
                return True
        if volume.iscsi is not None and ev.iscsi is not None:
            if volume.iscsi.iqn == ev.iscsi.iqn and not (volume.iscsi.readOnly and ev.iscsi.readOnly):
                return True
        if volume.rbd is not None and ev.rbd is not None:
            r, e = volume.rbd, ev.rbd
            if (_have_overlap(r.monitors, e.monitors) and (r.pool or "") == (e.pool or "")
                    and r.image == e.image and not (r.readOnly and e.readOnly)):
                return True
    return False


def needs_restrictions_check(volume: Any) -> bool:
    """True for GCE PD, AWS EBS, RBD and iSCSI volumes (``needsRestrictionsCheck``)."""
    return any(x is not None for x in (volume.gcePersistentDisk, volume.awsElasticBlockStore, volume.rbd, volume.iscsi))


@dataclass(slots=True)
class PreFilterState:
    """The pod's ReadWriteOncePod claims and how many scheduled pods already use them.

    Attributes
    ----------
    read_write_once_pod_pvcs : frozenset[str]
        Claim names (in the pod's namespace) with the ReadWriteOncePod access mode.
    conflicting_pvc_ref_count : int
        References to those claims by scheduled pods.
    """

    read_write_once_pod_pvcs: frozenset[str] = frozenset()
    conflicting_pvc_ref_count: int = 0

    def conflicting_pvc_ref_count_for_pod(self, pod_info: "PodInfo") -> int:
        """How many of ``pod_info``'s claim volumes name one of our claims (namespace not compared, as upstream)."""
        return sum(1 for v in pod_info.pod.spec.volumes or ()
                   if v.persistentVolumeClaim is not None and v.persistentVolumeClaim.claimName in self.read_write_once_pod_pvcs)

    def update_with_pod(self, pod_info: "PodInfo", multiplier: int) -> None:
        self.conflicting_pvc_ref_count += multiplier * self.conflicting_pvc_ref_count_for_pod(pod_info)

    def clone(self) -> "PreFilterState":
        return PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)


class VolumeRestrictions:
    """Filter nodes with conflicting disk volumes; enforce ReadWriteOncePod claims.

    Parameters
    ----------
    handle : Handle
        ``handle.snapshot`` (claims used by scheduled pods) and
        ``handle.objects.persistent_volume_claims``.

    See Also
    --------
    kubenotes.scheduler.plugins.volumezone.VolumeZone : zone/region of bound volumes.

    Notes
    -----
    A missing claim gives ``persistentvolumeclaim "x" not found``
    (UnschedulableAndUnresolvable), the informer lister's message. Queueing hints
    are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go

    Examples
    --------
    >>> VolumeRestrictions(None).name()
    'VolumeRestrictions'
    """

    def __init__(self, handle: Any):
        self.handle = handle

    def name(self) -> str:
        """``VolumeRestrictions``."""
        return NAME

    def _read_write_once_pod_pvcs(self, pod: "PodInfo") -> frozenset[str] | Status:
        claims = list(getattr(getattr(self.handle, "objects", None), "persistent_volume_claims", None) or ())
        out = set()
        for v in pod.pod.spec.volumes or ():
            if v.persistentVolumeClaim is None:
                continue
            name = v.persistentVolumeClaim.claimName
            pvc = next((c for c in claims if (c.metadata.namespace or "default") == pod.namespace and c.metadata.name == name), None)
            if pvc is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [f'persistentvolumeclaim "{name}" not found'])
            if READ_WRITE_ONCE_POD in ((pvc.spec.accessModes if pvc.spec is not None else None) or ()):
                out.add(pvc.metadata.name)
        return frozenset(out)

    def _is_pvc_used_by_pods(self, key: str) -> bool:
        """``StorageInfos().IsPVCUsedByPods``: some scheduled pod references ``namespace/claim``."""
        return any(ni.pvc_ref_counts.get(key, 0) > 0 for ni in self.handle.snapshot.list())

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]:
        """Find the pod's ReadWriteOncePod claims in use; Skip when there is nothing to check."""
        needs_check = any(needs_restrictions_check(v) for v in pod.pod.spec.volumes or ())
        pvcs = self._read_write_once_pod_pvcs(pod)
        if isinstance(pvcs, Status):
            return None, pvcs
        conflicts = sum(1 for name in pvcs if self._is_pvc_used_by_pods(f"{pod.namespace}/{name}"))
        s = PreFilterState(pvcs, conflicts)
        if not needs_check and s.conflicting_pvc_ref_count == 0:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, Status()

    def pre_filter_extensions(self) -> "VolumeRestrictions":
        """AddPod/RemovePod adjust the ReadWriteOncePod reference count (preemption)."""
        return self

    def _state(self, state: "CycleState") -> PreFilterState | Status:
        try:
            return state.read(PRE_FILTER_STATE_KEY)
        except NotFound:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')

    def add_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_add: "PodInfo", node_info: "NodeInfo") -> Status:
        """Count ``pod_to_add``'s references to our ReadWriteOncePod claims."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(pod_to_add, 1)
        return Status()

    def remove_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_remove: "PodInfo", node_info: "NodeInfo") -> Status:
        """Drop ``pod_to_remove``'s references (a preemption victim frees the claim)."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(pod_to_remove, -1)
        return Status()

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Disk conflicts with pods on the node first, then the ReadWriteOncePod check."""
        for v in pod.pod.spec.volumes or ():
            if not needs_restrictions_check(v):
                continue
            for ev in node_info.pods:
                if is_volume_conflict(v, ev.pod):
                    return Status(Code.UNSCHEDULABLE, [ERR_REASON_DISK_CONFLICT])
        s = self._state(state)
        if isinstance(s, Status):
            return s
        if s.conflicting_pvc_ref_count > 0:
            return Status(Code.UNSCHEDULABLE, [ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT])
        return Status()


def new(args: Any, handle: Any) -> VolumeRestrictions:
    """Build VolumeRestrictions (it takes no arguments).

    Raises
    ------
    ConfigError
        When ``args`` holds a field (the plugin has no args type).

    Examples
    --------
    >>> new(None, None).name()
    'VolumeRestrictions'
    """
    reject_args(NAME, args)
    return VolumeRestrictions(handle)
