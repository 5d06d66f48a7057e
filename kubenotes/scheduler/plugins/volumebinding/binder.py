"""The scheduler's volume binder: match claims to volumes per node, assume, write, wait (``binder.go``).

Mirrors ``pkg/scheduler/framework/plugins/volumebinding/binder.go``
(``volumeBinder``) and its ``assume_cache.go``: claims of a pod are split into
bound ones, unbound ``Immediate`` ones (the PV controller's job) and unbound
``WaitForFirstConsumer`` ones; for a node, bound claims must reach it through
their PV's node affinity, delayed claims either find the smallest matching
Available PV or are provisioned through their StorageClass (allowed
topologies, CSIStorageCapacity). Reserve assumes the choice in the binder's
caches; PreBind writes it (the PV's ``claimRef``, the claim's
``volume.kubernetes.io/selected-node``) and waits for the PV controller to
complete the binding.

Objects are the JSON-shaped dicts the API server stores; the typed objects of
:class:`~kubenotes.scheduler.snapshot.ClusterObjects` are read through
``to_dict()``.

Notes
-----
Simplified: in-tree PVs are never translated to CSI (``tryTranslatePVToCSI``:
kubenotes has no in-tree volume plugins); metrics are not modelled; the
CSIStorageCapacity lookup is a scan, as upstream's.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/binder.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/util/assumecache/assume_cache.go
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/helpers.go (MatchTopologySelectorTerms)
kubernetes/kubernetes@v1.34.0 pkg/volume/util/util.go (GetLocalPersistentVolumeNodeNames)
https://kubernetes.io/docs/concepts/storage/storage-classes/#volume-binding-mode
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from kubenotes.api import storagehelpers as sh
from kubenotes.api.quantity import value
from kubenotes.api.selectors import LabelSelector
from kubenotes.errors import KubenotesError
from kubenotes.scheduler.snapshot import ObjectListers

__all__ = [
    "ERR_REASON_BIND_CONFLICT", "ERR_REASON_NODE_CONFLICT", "ERR_REASON_NOT_ENOUGH_SPACE", "ERR_REASON_PV_NOT_EXIST",
    "BindingInfo", "DynamicProvision", "PodVolumes", "PodVolumeClaims", "AssumeCache", "VolumeBinder",
    "match_topology_selector_terms", "local_persistent_volume_node_names", "VolumeBindingError",
]

#: Filter reasons (``ConflictReason``), in the order FindPodVolumes appends them.
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

_LABEL_HOSTNAME = "kubernetes.io/hostname"


class VolumeBindingError(KubenotesError):
    """An error of the binder (upstream returns ``error``); the plugin turns it into an Error status."""


def _md(o: Mapping[str, Any]) -> Mapping[str, Any]:
    return o.get("metadata") or {}


def _rv(o: Mapping[str, Any] | None) -> int:
    try:
        return int(_md(o or {}).get("resourceVersion") or 0)
    except ValueError:
        return 0


def pvc_key(pvc: Mapping[str, Any]) -> str:
    """``namespace/name`` of a claim (``getPVCName``)."""
    return f"{_md(pvc).get('namespace') or 'default'}/{_md(pvc).get('name', '')}"


def match_topology_selector_terms(terms: Iterable[Mapping[str, Any]] | None, labels: Mapping[str, str]) -> bool:
    """``MatchTopologySelectorTerms``: no terms match everything; an empty term matches nothing.

    Examples
    --------
    >>> t = [{"matchLabelExpressions": [{"key": "zone", "values": ["a", "b"]}]}]
    >>> match_topology_selector_terms(t, {"zone": "b"}), match_topology_selector_terms(t, {}), \
match_topology_selector_terms(None, {})
    (True, False, True)
    """
    terms = list(terms or ())
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or []
        if not exprs:
            continue
        if all(labels.get(e.get("key")) in (e.get("values") or ()) for e in exprs):
            return True
    return False


def local_persistent_volume_node_names(pv: Mapping[str, Any]) -> list[str]:
    """Node names a PV's required node affinity pins by ``kubernetes.io/hostname In`` (``GetLocalPersistentVolumeNodeNames``).

    Within a term the hostname expressions intersect; across terms they unite.

    Examples
    --------
    >>> pv = {"spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [
    ...     {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["b", "a"]}]}]}}}}
    >>> local_persistent_volume_node_names(pv), local_persistent_volume_node_names({"spec": {}})
    (['a', 'b'], [])
    """
    required = (((pv.get("spec") or {}).get("nodeAffinity")) or {}).get("required")
    if not required:
        return []
    result: set[str] = set()
    for term in required.get("nodeSelectorTerms") or ():
        nodes: set[str] | None = None
        for e in term.get("matchExpressions") or ():
            if e.get("key") == _LABEL_HOSTNAME and e.get("operator") == "In":
                vals = set(e.get("values") or ())
                nodes = vals if nodes is None else nodes & vals
        result |= nodes or set()
    return sorted(result)


@dataclass(slots=True)
class BindingInfo:
    """A claim matched to a pre-existing PV (upstream ``BindingInfo``)."""

    pv: dict
    pvc: dict

    def storage_class_name(self) -> str:
        """The PV's ``spec.storageClassName``."""
        return (self.pv.get("spec") or {}).get("storageClassName") or ""

    def storage_resource(self) -> tuple[int, int]:
        """(requested bytes of the claim, capacity bytes of the PV)."""
        return sh.storage_request_bytes(self.pvc), sh.storage_capacity_bytes(self.pv)


@dataclass(slots=True)
class DynamicProvision:
    """A claim to provision on the node, with the CSIStorageCapacity that admitted it, if any."""

    pvc: dict
    node_capacity: dict | None = None


@dataclass(slots=True)
class PodVolumes:
    """What Filter found for one node (upstream ``PodVolumes``): static bindings and claims to provision."""

    static_bindings: list[BindingInfo] | None = None
    dynamic_provisions: list[DynamicProvision] | None = None


@dataclass(slots=True)
class PodVolumeClaims:
    """The pod's claims by kind (upstream ``PodVolumeClaims``).

    Attributes
    ----------
    bound_claims, unbound_claims_immediate, unbound_claims_delay_binding : list[dict]
    unbound_volumes_delay_binding : dict[str, list[dict]]
        Storage class -> PVs of that class (candidates for the delayed claims).
    """

    bound_claims: list[dict] = field(default_factory=list)
    unbound_claims_immediate: list[dict] = field(default_factory=list)
    unbound_claims_delay_binding: list[dict] = field(default_factory=list)
    unbound_volumes_delay_binding: dict[str, list[dict]] = field(default_factory=dict)


class AssumeCache:
    """Informer objects overlaid with assumed versions (``assumecache.AssumeCache``).

    An assumed object hides the informer's until the informer holds a newer
    ``resourceVersion`` (the API write arrived) or the assumption is restored.

    Parameters
    ----------
    source : callable() -> dict[str, dict]
        Key -> the informer's current object.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/util/assumecache/assume_cache.go

    Examples
    --------
    >>> informer = {"pv": {"metadata": {"name": "pv", "resourceVersion": "5"}}}
    >>> cache = AssumeCache(lambda: informer)
    >>> cache.assume("pv", {"metadata": {"name": "pv", "resourceVersion": "5"}, "spec": {"claimRef": {}}})
    >>> "spec" in cache.get("pv")
    True
    >>> informer["pv"] = {"metadata": {"name": "pv", "resourceVersion": "6"}}  # the API write came back
    >>> "spec" in cache.get("pv"), cache.get_api("pv")["metadata"]["resourceVersion"]
    (False, '6')
    """

    def __init__(self, source: Callable[[], Mapping[str, dict]]):
        self._source = source
        self._assumed: dict[str, dict] = {}

    def get_api(self, key: str) -> dict | None:
        """The informer's object (``GetAPIObj``)."""
        return self._source().get(key)

    def get(self, key: str) -> dict | None:
        """The assumed object while it is not older than the informer's, else the informer's."""
        api = self.get_api(key)
        a = self._assumed.get(key)
        if a is not None:
            if api is None or _rv(api) <= _rv(a):
                return a
            del self._assumed[key]
        return api

    def list(self) -> list[dict]:
        """Every object, assumed versions first where they apply, in the informer's order."""
        return [self.get(k) for k in list(self._source())]

    def assume(self, key: str, obj: dict) -> None:
        """Hide the informer's object behind ``obj`` (``Assume``).

        Raises
        ------
        VolumeBindingError
            When the object is unknown or ``obj`` is older than it.
        """
        cur = self.get(key)
        if cur is None:
            raise VolumeBindingError(f"{key} not found")
        if _rv(obj) < _rv(cur):
            raise VolumeBindingError(f"{key} is out of sync (stored: {_rv(cur)}, assume: {_rv(obj)})")
        self._assumed[key] = obj

    def restore(self, key: str) -> None:
        """Drop the assumption (``Restore``)."""
        self._assumed.pop(key, None)


class VolumeBinder:
    """The binder behind VolumeBinding (upstream ``volumeBinder``).

    Parameters
    ----------
    handle : Framework
        ``handle.objects`` (ClusterObjects) gives claims, volumes, classes,
        CSINodes, CSIDrivers and CSIStorageCapacities; ``handle.volume_client``,
        when set, writes PVs and claims (see :meth:`bind_pod_volumes`).
    bind_timeout_seconds : float
        How long PreBind waits for the PV controller (``bindTimeoutSeconds``, default 600).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/binder.go
    """

    def __init__(self, handle: Any, bind_timeout_seconds: float = 600):
        self.handle = handle
        self.bind_timeout_seconds = bind_timeout_seconds
        self.listers = ObjectListers(handle)
        self.pv_cache = AssumeCache(lambda: self.listers.of("persistent_volumes"))
        self.pvc_cache = AssumeCache(lambda: self.listers.of("persistent_volume_claims"))

    # ------------------------------------------------------------ lookups
    def get_class(self, name: str) -> dict | None:
        """The StorageClass named ``name`` (lister ``Get``) or None."""
        return self.listers.of("storage_classes").get(name)

    def _pvs_of_class(self, class_name: str) -> list[dict]:
        return [pv for pv in self.pv_cache.list() if sh.get_persistent_volume_class(pv) == class_name]

    def is_pvc_fully_bound(self, pvc: Mapping[str, Any]) -> bool:
        """``volumeName`` set and ``pv.kubernetes.io/bind-completed`` present (``isPVCFullyBound``)."""
        return bool((pvc.get("spec") or {}).get("volumeName")) and sh.ANN_BIND_COMPLETED in (_md(pvc).get("annotations") or {})

    def pod_claims(self, pod: Any) -> list[tuple[str, bool]]:
        """``(claim name, is ephemeral)`` for each claim-backed volume of the pod, in volume order."""
        out = []
        for v in pod.pod.spec.volumes or ():
            if v.persistentVolumeClaim is not None:
                out.append((v.persistentVolumeClaim.claimName or "", False))
            elif v.ephemeral is not None:
                out.append((f"{pod.name}-{v.name}", True))  # ephemeral.VolumeClaimName
        return out

    @staticmethod
    def volume_is_for_pod(pod: Any, pvc: Mapping[str, Any]) -> str | None:
        """``ephemeral.VolumeIsForPod``: None when the pod controls the claim, else the error text."""
        for ref in _md(pvc).get("ownerReferences") or ():
            if ref.get("controller") and ref.get("uid") == pod.uid:
                return None
        return (f"PVC {_md(pvc).get('namespace')}/{_md(pvc).get('name')} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)")

    def get_pod_volume_claims(self, pod: Any) -> PodVolumeClaims:
        """Split the pod's claims (``GetPodVolumeClaims``).

        Raises
        ------
        VolumeBindingError
            A claim missing from the cache, or a class without ``volumeBindingMode``.
        """
        out = PodVolumeClaims()
        for name, ephemeral in self.pod_claims(pod):
            key = f"{pod.namespace}/{name}"
            pvc = self.pvc_cache.get(key)
            if pvc is None:
                raise VolumeBindingError(f'error getting PVC "{key}": could not find v1.PersistentVolumeClaim "{key}"')
            if ephemeral:
                err = self.volume_is_for_pod(pod, pvc)
                if err:
                    raise VolumeBindingError(err)
            if self.is_pvc_fully_bound(pvc):
                out.bound_claims.append(pvc)
                continue
            try:
                delay = sh.is_delay_binding_mode(pvc, self.get_class)
            except ValueError as e:
                raise VolumeBindingError(str(e)) from None
            if delay and not (pvc.get("spec") or {}).get("volumeName"):
                out.unbound_claims_delay_binding.append(pvc)
            else:  # prebound claims count as immediate ones: the PV controller finishes them
                out.unbound_claims_immediate.append(pvc)
        for pvc in out.unbound_claims_delay_binding:
            cls = sh.get_persistent_volume_claim_class(pvc)
            out.unbound_volumes_delay_binding[cls] = self._pvs_of_class(cls)
        return out

    def get_eligible_nodes(self, bound_claims: list[dict]) -> set[str] | None:
        """Nodes the bound claims' local PVs pin the pod to, or None for no restriction (``GetEligibleNodes``)."""
        if not bound_claims:
            return None
        eligible: set[str] | None = None
        for pvc in bound_claims:
            pv = self.pv_cache.get((pvc.get("spec") or {}).get("volumeName") or "")
            if pv is None:
                return None  # an error: no narrowing
            names = local_persistent_volume_node_names(pv)
            if names:
                eligible = set(names) if eligible is None else eligible & set(names)
        return eligible

    # ------------------------------------------------------------ Filter
    def find_pod_volumes(self, pod: Any, claims: PodVolumeClaims, node: Any) -> tuple[PodVolumes, list[str]]:
        """Check bound claims and match or provision delayed ones on ``node`` (``FindPodVolumes``).

        Parameters
        ----------
        pod : PodInfo
        claims : PodVolumeClaims
        node : NodeInfo
            Its ``name`` and ``labels`` are read.

        Returns
        -------
        (PodVolumes, list[str])
            The choice for the node and the conflict reasons (empty when it fits).

        Raises
        ------
        VolumeBindingError
            A lookup failed (no class for a claim to provision, a class missing...).
        """
        bound_ok, unbound_ok, space_ok, pvs_found = True, True, True, True
        static: list[BindingInfo] = []
        dynamic: list[DynamicProvision] = []
        labels, name = node.labels, node.name
        if claims.bound_claims:
            bound_ok, pvs_found = self._check_bound_claims(claims.bound_claims, labels, name)
        if claims.unbound_claims_delay_binding:
            to_match, to_provision = [], []
            for c in claims.unbound_claims_delay_binding:
                selected = (_md(c).get("annotations") or {}).get(sh.ANN_SELECTED_NODE)
                if selected is not None:
                    if selected != name:
                        unbound_ok = False  # fast path: the claim is being provisioned for another node
                        return PodVolumes(), self._reasons(bound_ok, unbound_ok, space_ok, pvs_found)
                    to_provision.append(c)
                else:
                    to_match.append(c)
            if to_match:
                unbound_ok, static, unmatched = self._find_matching_volumes(to_match, claims.unbound_volumes_delay_binding,
                                                                            node)
                to_provision.extend(unmatched)
            if to_provision:
                unbound_ok, space_ok, dynamic = self._check_volume_provisions(to_provision, labels)
        return (PodVolumes(static or None, dynamic or None),
                self._reasons(bound_ok, unbound_ok, space_ok, pvs_found))

    @staticmethod
    def _reasons(bound_ok: bool, unbound_ok: bool, space_ok: bool, pvs_found: bool) -> list[str]:
        out = []
        if not bound_ok:
            out.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            out.append(ERR_REASON_BIND_CONFLICT)
        if not space_ok:
            out.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            out.append(ERR_REASON_PV_NOT_EXIST)
        return out

    def _check_bound_claims(self, claims: list[dict], labels: Mapping[str, str], node_name: str) -> tuple[bool, bool]:
        """(node affinity satisfied, every PV found) (``checkBoundClaims``)."""
        for pvc in claims:
            pv = self.pv_cache.get((pvc.get("spec") or {}).get("volumeName") or "")
            if pv is None:
                return True, False
            if sh.check_node_affinity(pv, labels, node_name) is not None:
                return False, True
        return True, True

    def _find_matching_volumes(self, claims: list[dict], pvs_by_class: Mapping[str, list[dict]], node: Any
                               ) -> tuple[bool, list[BindingInfo], list[dict]]:
        """Smallest matching PV per claim, smallest claims first (``findMatchingVolumes``)."""
        node_obj = {"metadata": {"name": node.name, "labels": dict(node.labels)}}
        chosen: set[str] = set()
        bindings, unbound, found = [], [], True
        for pvc in sorted(claims, key=sh.storage_request_bytes):  # byPVCSize
            pvs = pvs_by_class.get(sh.get_persistent_volume_claim_class(pvc), [])
            pv = sh.find_matching_volume(pvc, pvs, node_obj, chosen, True)
            if pv is None:
                unbound.append(pvc)
                found = False
                continue
            chosen.add(_md(pv).get("name"))
            bindings.append(BindingInfo(pv, pvc))
        return found, bindings, unbound

    def _check_volume_provisions(self, claims: list[dict], labels: Mapping[str, str]
                                 ) -> tuple[bool, bool, list[DynamicProvision]]:
        """(provisioning possible, enough storage, provisions) (``checkVolumeProvisions``)."""
        out = []
        for c in claims:
            cls_name = sh.get_persistent_volume_claim_class(c)
            if not cls_name:
                raise VolumeBindingError(f'no class for claim "{pvc_key(c)}"')
            cls = self.get_class(cls_name)
            if cls is None:
                raise VolumeBindingError(f'failed to find storage class "{cls_name}"')
            provisioner = cls.get("provisioner") or ""
            if not provisioner or provisioner == sh.NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not match_topology_selector_terms(cls.get("allowedTopologies"), labels):
                return False, True, []
            sufficient, capacity = self._has_enough_capacity(provisioner, c, cls, labels)
            if not sufficient:
                return True, False, []
            out.append(DynamicProvision(c, capacity))
        return True, True, out

    def _has_enough_capacity(self, provisioner: str, claim: dict, cls: dict, labels: Mapping[str, str]
                             ) -> tuple[bool, dict | None]:
        """``hasEnoughCapacity``: only for CSIDrivers with ``storageCapacity: true``."""
        q = (((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
        if q is None:
            return True, None
        driver = self.listers.of("csi_drivers").get(provisioner)
        if driver is None or not (driver.get("spec") or {}).get("storageCapacity"):
            return True, None
        size = value(q)
        for cap in self.listers.of("csi_storage_capacities").values():
            if cap.get("storageClassName") != _md(cls).get("name"):
                continue
            limit = cap.get("maximumVolumeSize") if cap.get("maximumVolumeSize") is not None else cap.get("capacity")
            if limit is None or value(limit) < size:
                continue
            topo = cap.get("nodeTopology")
            if topo is None:
                continue
            try:
                if not LabelSelector.from_api(topo).matches(labels):
                    continue
            except Exception:  # an unparsable selector gives no access, as upstream logs and skips it
                continue
            return True, cap
        return False, None

    # ------------------------------------------------------------ Reserve / Unreserve
    def assume_pod_volumes(self, pod: Any, node_name: str, pod_volumes: PodVolumes) -> bool:
        """Assume the bindings and provisionings in the caches (``AssumePodVolumes``); True when all are bound.

        Raises
        ------
        VolumeBindingError
            When an assumption fails (those made are reverted).
        """
        if self.are_pod_volumes_bound(pod):
            return True
        new_bindings: list[BindingInfo] = []
        new_provisions: list[DynamicProvision] = []
        try:
            for b in pod_volumes.static_bindings or ():
                pv, dirty = bind_volume_to_claim(b.pv, b.pvc)
                if dirty:
                    self.pv_cache.assume(_md(pv).get("name", ""), pv)
                new_bindings.append(BindingInfo(pv, b.pvc))
            for p in pod_volumes.dynamic_provisions or ():
                clone = copy.deepcopy(p.pvc)
                clone.setdefault("metadata", {}).setdefault("annotations", {})[sh.ANN_SELECTED_NODE] = node_name
                self.pvc_cache.assume(pvc_key(clone), clone)
                new_provisions.append(DynamicProvision(clone))
        except VolumeBindingError:
            self._revert(new_bindings, new_provisions)
            raise
        pod_volumes.static_bindings = new_bindings
        pod_volumes.dynamic_provisions = new_provisions
        return False

    def are_pod_volumes_bound(self, pod: Any) -> bool:
        """Every claim of the pod is fully bound in the cache (``arePodVolumesBound``)."""
        for name, _eph in self.pod_claims(pod):
            pvc = self.pvc_cache.get(f"{pod.namespace}/{name}")
            if pvc is None or not self.is_pvc_fully_bound(pvc):
                return False
        return True

    def _revert(self, bindings: Iterable[BindingInfo], provisions: Iterable[DynamicProvision]) -> None:
        for b in bindings:
            self.pv_cache.restore(_md(b.pv).get("name", ""))
        for p in provisions:
            self.pvc_cache.restore(pvc_key(p.pvc))

    def revert_assumed_pod_volumes(self, pod_volumes: PodVolumes) -> None:
        """Restore every assumption of ``pod_volumes`` (``RevertAssumedPodVolumes``)."""
        self._revert(pod_volumes.static_bindings or (), pod_volumes.dynamic_provisions or ())

    # ------------------------------------------------------------ PreBind
    def bind_api_update(self, pod: Any, pod_volumes: PodVolumes, client: Any) -> None:
        """Write the PVs' claimRefs, then the claims' selected-node annotations (``bindAPIUpdate``).

        Parameters
        ----------
        client : object
            ``update(resource, obj) -> dict`` (the stored object); an :class:`Exception` is an API error.

        Raises
        ------
        VolumeBindingError
            No cached bindings, or the API refused a write (assumptions not yet written are reverted).
        """
        bindings, provisions = pod_volumes.static_bindings, pod_volumes.dynamic_provisions
        if bindings is None:
            raise VolumeBindingError(f'failed to get cached bindings for pod "{pod.namespace}/{pod.name}"')
        if provisions is None:
            raise VolumeBindingError(f'failed to get cached claims to provision for pod "{pod.namespace}/{pod.name}"')
        i = j = 0
        try:
            for i, b in enumerate(bindings):
                b.pv = client.update("persistentvolumes", b.pv)
            i = len(bindings)
            for j, p in enumerate(provisions):
                p.pvc = client.update("persistentvolumeclaims", p.pvc)
            j = len(provisions)
        except VolumeBindingError:
            self._revert(bindings[i:], provisions[j:])
            raise
        except Exception as e:  # an API error
            self._revert(bindings[i:], provisions[j:])
            raise VolumeBindingError(str(e)) from None

    def check_bindings(self, pod: Any, node_name: str, pod_volumes: PodVolumes,
                       node_labels: Mapping[str, str], pod_exists: bool = True) -> bool:
        """True once the PV controller completed every binding (``checkBindings``).

        Raises
        ------
        VolumeBindingError
            When waiting is pointless: the pod is gone, a claimRef was reset,
            provisioning failed (selected-node removed), node affinity no longer matches.
        """
        if not pod_exists:
            raise VolumeBindingError(f'pod does not exist any more: pods "{pod.name}" not found')
        for b in pod_volumes.static_bindings or ():
            name = _md(b.pv).get("name", "")
            pv = self.pv_cache.get_api(name)
            pvc = self.pvc_cache.get_api(pvc_key(b.pvc))
            if pv is None:
                raise VolumeBindingError(f'failed to check binding: persistentvolume "{name}" not found')
            if pvc is None:
                raise VolumeBindingError(f'failed to check binding: persistentvolumeclaim "{pvc_key(b.pvc)}" not found')
            if _rv(b.pv) > _rv(pv):
                return False  # our write has not reached the informer yet
            err = sh.check_node_affinity(pv, node_labels, node_name)
            if err is not None:
                raise VolumeBindingError(f'pv "{name}" node affinity doesn\'t match node "{node_name}": {err}')
            ref = (pv.get("spec") or {}).get("claimRef")
            if not ref or not ref.get("uid"):
                raise VolumeBindingError(f'ClaimRef got reset for pv "{name}"')
            if not self.is_pvc_fully_bound(pvc):
                return False
        for p in pod_volumes.dynamic_provisions or ():
            pvc = self.pvc_cache.get_api(pvc_key(p.pvc))
            if pvc is None:
                raise VolumeBindingError(f'failed to check provisioning pvc: persistentvolumeclaim "{pvc_key(p.pvc)}" not found')
            if _rv(p.pvc) > _rv(pvc):
                return False
            ann = _md(pvc).get("annotations")
            if not ann:
                raise VolumeBindingError(f'selectedNode annotation reset for PVC "{_md(pvc).get("name")}"')
            if ann.get(sh.ANN_SELECTED_NODE) != node_name:
                raise VolumeBindingError(f'provisioning failed for PVC "{_md(pvc).get("name")}"')
            vol = (pvc.get("spec") or {}).get("volumeName")
            if vol:
                pv = self.pv_cache.get_api(vol)
                if pv is None:
                    return False  # tolerated: the PV may not have reached the informer yet
                err = sh.check_node_affinity(pv, node_labels, node_name)
                if err is not None:
                    raise VolumeBindingError(f'pv "{vol}" node affinity doesn\'t match node "{node_name}": {err}')
            if not self.is_pvc_fully_bound(pvc):
                return False
        return True


def bind_volume_to_claim(pv: Mapping[str, Any], pvc: Mapping[str, Any]) -> tuple[dict, bool]:
    """A copy of ``pv`` bound to ``pvc`` and whether it changed (``GetBindVolumeToClaim``).

    The claimRef is set when it does not name the claim with its uid, and
    ``pv.kubernetes.io/bound-by-controller: "yes"`` when the PV was not already
    pre-bound to the claim.

    Examples
    --------
    >>> pv, dirty = bind_volume_to_claim({"metadata": {"name": "pv"}, "spec": {}},
    ...     {"metadata": {"name": "c", "namespace": "ns", "uid": "u", "resourceVersion": "7"}})
    >>> dirty, pv["spec"]["claimRef"]["uid"], pv["metadata"]["annotations"]
    (True, 'u', {'pv.kubernetes.io/bound-by-controller': 'yes'})
    """
    should_set_bound_by_controller = not sh.is_volume_bound_to_claim(pv, pvc)
    clone = copy.deepcopy(dict(pv))
    dirty = False
    ref = (pv.get("spec") or {}).get("claimRef") or {}
    md = _md(pvc)
    if (ref.get("name") != md.get("name") or ref.get("namespace") != md.get("namespace")
            or ref.get("uid") != md.get("uid")):
        clone.setdefault("spec", {})["claimRef"] = {
            "kind": "PersistentVolumeClaim", "namespace": md.get("namespace"), "name": md.get("name"),
            "uid": md.get("uid"), "apiVersion": "v1", "resourceVersion": md.get("resourceVersion")}
        dirty = True
    ann = clone.setdefault("metadata", {}).setdefault("annotations", {})
    if should_set_bound_by_controller and sh.ANN_BOUND_BY_CONTROLLER not in ann:
        ann[sh.ANN_BOUND_BY_CONTROLLER] = "yes"
        dirty = True
    if not ann:
        del clone["metadata"]["annotations"]
    return clone, dirty
