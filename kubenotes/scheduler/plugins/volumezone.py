"""VolumeZone: a pod's bound PersistentVolumes must live in the node's zone/region.

Mirrors ``pkg/scheduler/framework/plugins/volumezone/volume_zone.go``. PreFilter
resolves each PersistentVolumeClaim of the pod to its bound PersistentVolume and
reads the PV's topology labels (GA ``topology.kubernetes.io/{zone,region}`` and
the beta ``failure-domain.beta.kubernetes.io/{zone,region}``); Filter requires
the node to carry a matching value for each. A label value may list several
zones joined by ``__``. Unbound claims whose StorageClass uses
``WaitForFirstConsumer`` are skipped (VolumeBinding places those). v1.34 has no
Score for this plugin.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumezone/volume_zone.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cloud-provider/volume/helpers/zones.go
"""

from __future__ import annotations

from kubenotes.scheduler.plugins.helper import reject_args

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubenotes.errors import NotFound
from kubenotes.scheduler.framework.interface import Code, PreFilterResult, Status
from kubenotes.scheduler.plugins.names import VOLUME_ZONE as NAME

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "ERR_REASON_CONFLICT",
    "LABEL_FAILURE_DOMAIN_BETA_ZONE",
    "LABEL_FAILURE_DOMAIN_BETA_REGION",
    "LABEL_TOPOLOGY_ZONE",
    "LABEL_TOPOLOGY_REGION",
    "TOPOLOGY_LABELS",
    "PVTopology",
    "label_zones_to_set",
    "VolumeZone",
    "new",
]

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
#: Filter reason when a PV's zone/region label does not match the node.
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
#: PV labels that constrain the node, in upstream order.
TOPOLOGY_LABELS = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION, LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)

_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
_MULTI_ZONE_DELIMITER = "__"


def _translate_to_ga(label: str) -> str:
    if label == LABEL_FAILURE_DOMAIN_BETA_REGION:
        return LABEL_TOPOLOGY_REGION
    if label == LABEL_FAILURE_DOMAIN_BETA_ZONE:
        return LABEL_TOPOLOGY_ZONE
    return label


def label_zones_to_set(value: str) -> set[str] | None:
    """Split a zone label value on ``__`` (``volumehelpers.LabelZonesToSet``); ``None`` if a part is empty.

    Examples
    --------
    >>> sorted(label_zones_to_set("us-west1-c__us-west1-a"))
    ['us-west1-a', 'us-west1-c']
    >>> label_zones_to_set("a____b") is None
    True
    """
    out = set()
    for part in value.split(_MULTI_ZONE_DELIMITER):
        part = part.strip()
        if not part:
            return None
        out.add(part)
    return out


@dataclass(frozen=True, slots=True)
class PVTopology:
    """One topology label of a PV (upstream ``pvTopology``): PV name, label key, allowed values."""

    pv_name: str
    key: str
    values: frozenset[str]


@dataclass(slots=True)
class _StateData:
    pod_pv_topologies: list[PVTopology] = field(default_factory=list)

    def clone(self) -> "_StateData":
        return self


def _pv_topologies(pv: Any) -> list[PVTopology]:
    labels = (pv.metadata.labels if pv.metadata is not None else None) or {}
    out = []
    for key in TOPOLOGY_LABELS:
        if key in labels:
            values = label_zones_to_set(labels[key])
            if values is None:
                continue  # unparsable label: ignored, as upstream
            out.append(PVTopology(pv.metadata.name, key, frozenset(values)))
    return out


def _claim_class(pvc: Any) -> str:
    """``storagehelpers.GetPersistentVolumeClaimClass``: beta annotation first, then spec.storageClassName."""
    ann = (pvc.metadata.annotations if pvc.metadata is not None else None) or {}
    if _STORAGE_CLASS_ANNOTATION in ann:
        return ann[_STORAGE_CLASS_ANNOTATION]
    return (pvc.spec.storageClassName if pvc.spec is not None else None) or ""


class VolumeZone:
    """Filter nodes whose zone/region labels do not match the pod's bound PersistentVolumes.

    Parameters
    ----------
    handle : Handle
        ``handle.objects`` provides ``persistent_volume_claims``,
        ``persistent_volumes`` and ``storage_classes``.

    See Also
    --------
    kubenotes.scheduler.plugins.volumerestrictions.VolumeRestrictions : other volume checks.

    Notes
    -----
    Only PV labels are read, never ``spec.nodeAffinity`` (VolumeBinding checks
    that). Missing objects give upstream's lister messages
    (``persistentvolumeclaim "x" not found``, ``persistentvolume "x" not found``,
    ``storageclass.storage.k8s.io "x" not found``) with
    ``UnschedulableAndUnresolvable``. Queueing hints are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumezone/volume_zone.go

    Examples
    --------
    >>> VolumeZone(None).name()
    'VolumeZone'
    """

    def __init__(self, handle: Any):
        self.handle = handle

    def name(self) -> str:
        """``VolumeZone``."""
        return NAME

    def _objects(self, attr: str) -> list[Any]:
        return list(getattr(getattr(self.handle, "objects", None), attr, None) or ())

    def _get_pvc(self, namespace: str, name: str) -> Any:
        for pvc in self._objects("persistent_volume_claims"):
            if (pvc.metadata.namespace or "default") == namespace and pvc.metadata.name == name:
                return pvc
        return None

    def _get_named(self, attr: str, name: str) -> Any:
        for o in self._objects(attr):
            if o.metadata.name == name:
                return o
        return None

    def _pod_pv_topologies(self, pod: "PodInfo") -> list[PVTopology] | Status:
        """Topologies of the pod's bound PVs (``getPVbyPod``), or a failure Status."""
        out: list[PVTopology] = []
        for v in pod.pod.spec.volumes or ():
            if v.persistentVolumeClaim is None:
                continue
            claim = v.persistentVolumeClaim.claimName
            if not claim:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["PersistentVolumeClaim had no name"])
            pvc = self._get_pvc(pod.namespace, claim)
            if pvc is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [f'persistentvolumeclaim "{claim}" not found'])
            pv_name = (pvc.spec.volumeName if pvc.spec is not None else None) or ""
            if not pv_name:
                sc_name = _claim_class(pvc)
                if not sc_name:
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["PersistentVolumeClaim had no pv name and storageClass name"])
                sc = self._get_named("storage_classes", sc_name)
                if sc is None:
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [f'storageclass.storage.k8s.io "{sc_name}" not found'])
                if sc.volumeBindingMode is None:
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [f'VolumeBindingMode not set for StorageClass "{sc_name}"'])
                if sc.volumeBindingMode == _WAIT_FOR_FIRST_CONSUMER:
                    continue  # unbound volume: VolumeBinding will pick a zone
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["PersistentVolume had no name"])
            pv = self._get_named("persistent_volumes", pv_name)
            if pv is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [f'persistentvolume "{pv_name}" not found'])
            out.extend(_pv_topologies(pv))
        return out

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]:
        """Resolve the pod's PV topologies; Skip when none constrain placement."""
        topologies = self._pod_pv_topologies(pod)
        if isinstance(topologies, Status):
            return None, topologies
        if not topologies:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _StateData(topologies))
        return None, Status()

    def pre_filter_extensions(self) -> None:
        """None: the state does not depend on other pods."""
        return None

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Reject the node when a PV topology label has no matching node label value.

        A node without any of the four topology labels passes (single-zone clusters).
        """
        if not pod.pod.spec.volumes:
            return Status()
        try:
            topologies = state.read(PRE_FILTER_STATE_KEY).pod_pv_topologies
        except NotFound:
            topologies = self._pod_pv_topologies(pod)  # fallback, as upstream
            if isinstance(topologies, Status):
                return topologies
        labels = node_info.labels
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return Status()
        for t in topologies:
            value = labels.get(t.key)
            if value is None:
                value = labels.get(_translate_to_ga(t.key))
            if value is None or value not in t.values:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [ERR_REASON_CONFLICT])
        return Status()


def new(args: Any, handle: Any) -> VolumeZone:
    """Build VolumeZone (it takes no arguments).

    Raises
    ------
    ConfigError
        When ``args`` holds a field (the plugin has no args type).

    Examples
    --------
    >>> new(None, None).name()
    'VolumeZone'
    """
    reject_args(NAME, args)
    return VolumeZone(handle)
