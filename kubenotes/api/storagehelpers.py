"""Storage helpers over PersistentVolumes, claims and StorageClasses, shared by the controllers and the scheduler.

Mirrors ``k8s.io/component-helpers/storage/volume`` (``helpers.go``,
``pv_helpers.go``): the annotations the PersistentVolume controller, the
scheduler's VolumeBinding and the external provisioners agree on, the
class of a claim or a volume, the access-mode, volume-mode and
node-affinity checks, ``IsVolumeBoundToClaim``, ``FindMatchingVolume`` (the
smallest volume that satisfies a claim), the delayed-binding tests, and
``GetDefaultClass`` from ``pkg/volume/util/storageclass.go``. Objects are the
JSON-shaped dicts the API server stores.

Notes
-----
``FindMatchingVolume`` does not check ``volumeAttributesClassName``
(VolumeAttributesClass): the model has no VolumeAttributesClasses.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/storage/volume/helpers.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/storage/volume/pv_helpers.go
kubernetes/kubernetes@v1.34.0 pkg/volume/util/storageclass.go (GetDefaultClass)
kubernetes/kubernetes@v1.34.0 pkg/api/persistentvolume/util.go (GetWarningsForPersistentVolume)
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_attacher.go (getAttachmentName), csi_plugin.go (GetVolumeName)
kubernetes/kubernetes@v1.34.0 pkg/volume/util/resize_util.go (MergeResizeConditionOnPVC, mergeStorageResourceStatus)
https://kubernetes.io/docs/concepts/storage/persistent-volumes/
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from kubenotes.api.quantity import value
from kubenotes.api.selectors import LabelSelector, NodeSelector

__all__ = [
    "ANN_BIND_COMPLETED", "ANN_BOUND_BY_CONTROLLER", "ANN_SELECTED_NODE", "ANN_DYNAMICALLY_PROVISIONED",
    "ANN_STORAGE_PROVISIONER", "ANN_BETA_STORAGE_PROVISIONER", "BETA_STORAGE_CLASS_ANNOTATION",
    "IS_DEFAULT_STORAGE_CLASS_ANNOTATION", "BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION", "NOT_SUPPORTED_PROVISIONER",
    "PVC_PROTECTION_FINALIZER", "PV_PROTECTION_FINALIZER", "VOLUME_BINDING_IMMEDIATE",
    "VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER",
    "get_persistent_volume_claim_class", "get_persistent_volume_class", "storage_request_bytes",
    "storage_capacity_bytes", "check_access_modes", "check_volume_mode_mismatches", "check_node_affinity",
    "is_volume_bound_to_claim", "find_matching_volume", "is_delay_binding_mode", "is_delay_binding_provisioning",
    "is_default_annotation", "get_default_class", "claims_of_pod", "ACCESS_MODE_SHORT",
    "get_access_modes_as_string", "get_access_modes_from_string", "RECYCLE_DEPRECATED_WARNING",
    "warnings_for_persistent_volume", "csi_attachment_name", "csi_unique_volume_name",
    "RESIZE_CONDITIONS", "claim_with_resize_status",
]

#: ``AnnBindCompleted``: the binding of a claim is complete (set by the PV controller).
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
#: ``AnnBoundByController``: the controller (not the user) bound this claim or volume.
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
#: ``AnnSelectedNode``: the node the scheduler picked for a delayed-binding claim.
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
#: ``AnnDynamicallyProvisioned``: the provisioner (plugin name) that created the volume.
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
#: ``AnnStorageProvisioner``: the provisioner asked to provision the claim.
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
#: ``AnnBetaStorageProvisioner``: the same, the deprecated beta key (still written).
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
#: ``v1.BetaStorageClassAnnotation``: the class before ``spec.storageClassName`` existed.
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
#: ``storageutil.IsDefaultStorageClassAnnotation``.
IS_DEFAULT_STORAGE_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
#: ``storageutil.BetaIsDefaultStorageClassAnnotation``.
BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class"
#: ``NotSupportedProvisioner``: a class whose volumes are created by hand (local volumes).
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
#: ``volumeutil.PVCProtectionFinalizer``.
PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection"
#: ``volumeutil.PVProtectionFinalizer``.
PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection"
#: Access mode -> its short form, in ``GetAccessModesAsString``'s order.
ACCESS_MODE_SHORT = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX",
                     "ReadWriteOncePod": "RWOP"}
VOLUME_BINDING_IMMEDIATE = "Immediate"
VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


def _annotations(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get("annotations") or {}


#: ``GetWarningsForPersistentVolume``'s warning for the deprecated reclaim policy.
RECYCLE_DEPRECATED_WARNING = ("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. "
                              "Instead, the recommended approach is to use dynamic provisioning.")


def warnings_for_persistent_volume(volume: Mapping[str, Any]) -> list[str]:
    """``GetWarningsForPersistentVolume`` (the deprecated-policy part): what ``kubectl apply`` prints as ``Warning:``.

    Examples
    --------
    >>> warnings_for_persistent_volume({"spec": {"persistentVolumeReclaimPolicy": "Recycle"}})[0][:63]
    'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy '
    """
    if (volume.get("spec") or {}).get("persistentVolumeReclaimPolicy") == "Recycle":
        return [RECYCLE_DEPRECATED_WARNING]
    return []


def get_access_modes_as_string(modes: Iterable[str] | None) -> str:
    """``helper.GetAccessModesAsString``: ``RWO,ROX,RWX,RWOP`` in that order, each once (``kubectl get pv``'s column).

    Examples
    --------
    >>> get_access_modes_as_string(["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"])
    'RWO,RWX'
    """
    present = set(modes or ())
    return ",".join(short for mode, short in ACCESS_MODE_SHORT.items() if mode in present)


def get_access_modes_from_string(s: str) -> list[str]:
    """``helper.GetAccessModesFromString``: the inverse of :func:`get_access_modes_as_string`.

    Examples
    --------
    >>> get_access_modes_from_string("RWO,RWX")
    ['ReadWriteOnce', 'ReadWriteMany']
    """
    by_short = {v: k for k, v in ACCESS_MODE_SHORT.items()}
    return [by_short[p.strip()] for p in s.split(",") if p.strip() in by_short]


def get_persistent_volume_claim_class(claim: Mapping[str, Any]) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation first, then ``spec.storageClassName``; "" for none.

    Examples
    --------
    >>> get_persistent_volume_claim_class({"spec": {"storageClassName": "fast"}})
    'fast'
    >>> get_persistent_volume_claim_class({"metadata": {"annotations": {
    ...     "volume.beta.kubernetes.io/storage-class": "old"}}, "spec": {"storageClassName": "fast"}})
    'old'
    """
    ann = _annotations(claim)
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return ann[BETA_STORAGE_CLASS_ANNOTATION]
    return (claim.get("spec") or {}).get("storageClassName") or ""


def get_persistent_volume_class(volume: Mapping[str, Any]) -> str:
    """``GetPersistentVolumeClass``: the beta annotation first, then ``spec.storageClassName``; "" for none."""
    ann = _annotations(volume)
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return ann[BETA_STORAGE_CLASS_ANNOTATION]
    return (volume.get("spec") or {}).get("storageClassName") or ""


def storage_request_bytes(claim: Mapping[str, Any]) -> int:
    """The claim's ``spec.resources.requests.storage`` in bytes (0 when absent)."""
    q = (((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
    return 0 if q is None else value(q)


def storage_capacity_bytes(volume: Mapping[str, Any]) -> int:
    """The volume's ``spec.capacity.storage`` in bytes (0 when absent)."""
    q = ((volume.get("spec") or {}).get("capacity") or {}).get("storage")
    return 0 if q is None else value(q)


def check_access_modes(claim: Mapping[str, Any], volume: Mapping[str, Any]) -> bool:
    """``CheckAccessModes``: every access mode the claim asks for is one the volume offers.

    Examples
    --------
    >>> check_access_modes({"spec": {"accessModes": ["ReadWriteOnce"]}},
    ...                    {"spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"]}})
    True
    >>> check_access_modes({"spec": {"accessModes": ["ReadWriteMany"]}}, {"spec": {"accessModes": ["ReadWriteOnce"]}})
    False
    """
    offered = set((volume.get("spec") or {}).get("accessModes") or ())
    return all(m in offered for m in (claim.get("spec") or {}).get("accessModes") or ())


def check_volume_mode_mismatches(claim_spec: Mapping[str, Any], volume_spec: Mapping[str, Any]) -> bool:
    """``CheckVolumeModeMismatches``: True when the two ``volumeMode``s differ (both default to Filesystem).

    Examples
    --------
    >>> check_volume_mode_mismatches({}, {"volumeMode": "Filesystem"}), check_volume_mode_mismatches(
    ...     {"volumeMode": "Block"}, {})
    (False, True)
    """
    return (claim_spec.get("volumeMode") or "Filesystem") != (volume_spec.get("volumeMode") or "Filesystem")


def check_node_affinity(volume: Mapping[str, Any], node_labels: Mapping[str, str] | None,
                        node_name: str = "") -> str | None:
    """``CheckNodeAffinity``: None when the volume's ``nodeAffinity.required`` admits the node, else the error.

    Parameters
    ----------
    volume : dict
        A PersistentVolume.
    node_labels : mapping of str to str
        The node's labels.
    node_name : str
        The node's name (``matchFields`` on ``metadata.name``).

    Returns
    -------
    str or None
        ``"no matching NodeSelectorTerms"`` when no term matches.

    Examples
    --------
    >>> pv = {"spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
    ...     {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}}}}
    >>> check_node_affinity(pv, {"kubernetes.io/hostname": "n1"}), check_node_affinity(pv, {})
    (None, 'no matching NodeSelectorTerms')
    """
    required = (((volume.get("spec") or {}).get("nodeAffinity")) or {}).get("required")
    if not required:
        return None
    if NodeSelector.from_api(required, lazy=True).matches_labels(node_labels or {}, node_name):
        return None
    return "no matching NodeSelectorTerms"


def is_volume_bound_to_claim(volume: Mapping[str, Any], claim: Mapping[str, Any]) -> bool:
    """``IsVolumeBoundToClaim``: the volume's ``claimRef`` names the claim (and its uid, once set).

    Examples
    --------
    >>> claim = {"metadata": {"name": "c", "namespace": "ns", "uid": "u1"}}
    >>> is_volume_bound_to_claim({"spec": {"claimRef": {"name": "c", "namespace": "ns"}}}, claim)
    True
    >>> is_volume_bound_to_claim({"spec": {"claimRef": {"name": "c", "namespace": "ns", "uid": "u2"}}}, claim)
    False
    """
    ref = (volume.get("spec") or {}).get("claimRef")
    if not ref:
        return False
    md = claim.get("metadata") or {}
    if ref.get("name") != md.get("name") or ref.get("namespace") != md.get("namespace"):
        return False
    return not ref.get("uid") or ref.get("uid") == md.get("uid")


def find_matching_volume(claim: Mapping[str, Any], volumes: Iterable[Mapping[str, Any]],
                         node: Mapping[str, Any] | None = None, excluded_volumes: Iterable[str] = (),
                         delay_binding: bool = False) -> dict | None:
    """``FindMatchingVolume``: the volume pre-bound to the claim, else the smallest one that satisfies it.

    A volume is skipped when it is excluded, being deleted or of another
    ``volumeMode``. One pre-bound to the claim wins when big enough (if the
    node cannot reach it, nothing matches). Otherwise, unless binding is
    delayed and no node is given (the PV controller leaves those claims to the
    scheduler), an ``Available`` volume without ``claimRef``, of the claim's
    class, matching its selector, reachable from the node (and, on the
    scheduler's path, offering the claim's access modes) that holds at least
    the request is a candidate; the smallest wins (the first one on a tie).

    Parameters
    ----------
    claim : dict
        The PersistentVolumeClaim.
    volumes : iterable of dict
        The candidates, in the order to try them.
    node : dict, optional
        The scheduler's node (VolumeBinding); None for the PV controller.
    excluded_volumes : iterable of str
        Volume names already chosen for other claims of the same pod.
    delay_binding : bool
        The claim's class is ``WaitForFirstConsumer``.

    Returns
    -------
    dict or None

    Raises
    ------
    FieldError
        For a claim selector that does not parse
        (``error creating internal label selector for claim``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/storage/volume/pv_helpers.go (FindMatchingVolume)

    Examples
    --------
    >>> pvs = [{"metadata": {"name": f"pv{g}"}, "spec": {"capacity": {"storage": f"{g}Gi"},
    ...        "accessModes": ["ReadWriteOnce"]}, "status": {"phase": "Available"}} for g in (10, 1, 5)]
    >>> claim = {"metadata": {"name": "c", "namespace": "ns", "uid": "u"},
    ...          "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}}}
    >>> find_matching_volume(claim, pvs)["metadata"]["name"]
    'pv5'
    """
    requested = storage_request_bytes(claim)
    requested_class = get_persistent_volume_claim_class(claim)
    cspec = claim.get("spec") or {}
    selector = LabelSelector.from_api(cspec["selector"]) if cspec.get("selector") else None
    excluded = set(excluded_volumes)
    node_labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    node_name = ((node or {}).get("metadata") or {}).get("name", "")
    smallest: dict | None = None
    smallest_bytes = 0
    for volume in volumes:
        md = volume.get("metadata") or {}
        if md.get("name") in excluded:
            continue
        vspec = volume.get("spec") or {}
        # upstream's order: the cheap checks first (a volume bound to another claim costs one look), the node
        # affinity, "the most expensive call in this loop", last
        if vspec.get("claimRef") is not None and not is_volume_bound_to_claim(volume, claim):
            continue
        size = storage_capacity_bytes(volume)
        if size < requested or check_volume_mode_mismatches(cspec, vspec) or md.get("deletionTimestamp"):
            continue
        affinity_ok = node is None or check_node_affinity(volume, node_labels, node_name) is None
        if is_volume_bound_to_claim(volume, claim):
            # pre-bound to this claim: not reachable from the node, no match at all
            if not affinity_ok:
                return None
            return dict(volume)
        if node is None and delay_binding:
            continue
        # volumes not Available yet are skipped: binding them would likely meet a write conflict
        if ((volume.get("status") or {}).get("phase") or "") != "Available" or vspec.get("claimRef") is not None:
            continue
        if selector is not None and not selector.matches(md.get("labels") or {}):
            continue
        if get_persistent_volume_class(volume) != requested_class or not affinity_ok:
            continue
        if node is not None and not check_access_modes(claim, volume):
            continue
        if smallest is None or smallest_bytes > size:
            smallest, smallest_bytes = dict(volume), size
    return smallest


def is_delay_binding_mode(claim: Mapping[str, Any], get_class: Callable[[str], Mapping[str, Any] | None]) -> bool:
    """``IsDelayBindingMode``: the claim's class binds ``WaitForFirstConsumer``.

    Parameters
    ----------
    claim : dict
    get_class : callable(name) -> dict or None
        A StorageClass lister's ``Get``.

    Returns
    -------
    bool
        False for a claim without a class or whose class does not exist.

    Raises
    ------
    ValueError
        ``VolumeBindingMode not set for StorageClass "x"``.
    """
    name = get_persistent_volume_claim_class(claim)
    if not name:
        return False
    cls = get_class(name)
    if cls is None:
        return False
    mode = cls.get("volumeBindingMode")
    if mode is None:
        raise ValueError(f'VolumeBindingMode not set for StorageClass "{name}"')
    return mode == VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER


def is_delay_binding_provisioning(claim: Mapping[str, Any]) -> bool:
    """``IsDelayBindingProvisioning``: the scheduler has set ``volume.kubernetes.io/selected-node`` on the claim."""
    return bool(_annotations(claim).get(ANN_SELECTED_NODE))


def is_default_annotation(obj: Mapping[str, Any]) -> bool:
    """``IsDefaultAnnotation``: ``storageclass.kubernetes.io/is-default-class`` (or the beta key) is "true".

    Examples
    --------
    >>> is_default_annotation({"metadata": {"annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}})
    True
    """
    ann = _annotations(obj)
    return ann.get(IS_DEFAULT_STORAGE_CLASS_ANNOTATION) == "true" or \
        ann.get(BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION) == "true"


def get_default_class(classes: Iterable[Mapping[str, Any]]) -> dict | None:
    """``GetDefaultClass``: of the classes marked default, the newest (on a tie, the first by name).

    Examples
    --------
    >>> mk = lambda n, t: {"metadata": {"name": n, "creationTimestamp": t,
    ...     "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}}
    >>> get_default_class([mk("old", "2025-01-01T00:00:00Z"), mk("new", "2025-02-01T00:00:00Z"),
    ...                    {"metadata": {"name": "plain"}}])["metadata"]["name"]
    'new'
    """
    defaults = [c for c in classes if is_default_annotation(c)]
    if not defaults:
        return None
    defaults.sort(key=lambda c: (c["metadata"].get("name", "")))
    defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
    return dict(defaults[0])


def claims_of_pod(pod: Mapping[str, Any]) -> list[str]:
    """The claim names a pod's volumes use: ``persistentVolumeClaim.claimName`` and ``<pod>-<volume>`` for
    generic ephemeral volumes (``ephemeral.VolumeClaimName``), in volume order.

    Examples
    --------
    >>> claims_of_pod({"metadata": {"name": "p"}, "spec": {"volumes": [
    ...     {"name": "a", "persistentVolumeClaim": {"claimName": "data"}}, {"name": "s", "ephemeral": {}}]}})
    ['data', 'p-s']
    """
    out = []
    for v in (pod.get("spec") or {}).get("volumes") or ():
        if v.get("persistentVolumeClaim"):
            out.append(v["persistentVolumeClaim"].get("claimName", ""))
        elif v.get("ephemeral") is not None:
            out.append(f"{(pod.get('metadata') or {}).get('name', '')}-{v.get('name', '')}")
    return out


def csi_attachment_name(volume_handle: str, driver: str, node_name: str) -> str:
    """``getAttachmentName``: the VolumeAttachment of a CSI volume on a node, ``csi-<sha256(handle+driver+node)>``.

    The attach/detach controller creates it and the kubelet's CSI plugin waits for it (``WaitForAttach``).

    Examples
    --------
    >>> name = csi_attachment_name("vol-1", "hostpath.csi.k8s.io", "node-1")
    >>> name[:4], len(name)
    ('csi-', 68)
    """
    import hashlib

    return "csi-" + hashlib.sha256(f"{volume_handle}{driver}{node_name}".encode()).hexdigest()


def csi_unique_volume_name(driver: str, volume_handle: str) -> str:
    """A CSI volume's unique name (``node.status.volumesInUse``): ``kubernetes.io/csi/<driver>^<handle>``.

    Examples
    --------
    >>> csi_unique_volume_name("hostpath.csi.k8s.io", "vol-1")
    'kubernetes.io/csi/hostpath.csi.k8s.io^vol-1'
    """
    return f"kubernetes.io/csi/{driver}^{volume_handle}"


#: The claim conditions a resize writes and a finished resize removes (``MergeResizeConditionOnPVC``).
RESIZE_CONDITIONS = ("Resizing", "FileSystemResizePending", "ControllerResizeError", "NodeResizeError")


def claim_with_resize_status(claim: Mapping[str, Any], conditions: Iterable[Mapping[str, Any]],
                             resource_status: str | None, *, allocated: str | None = None,
                             capacity: str | None = None) -> dict:
    """A copy of the claim with its resize progress recorded in ``status`` (to write with ``update_status``).

    Both resizers use it: the external-resizer (``markControllerResizeInProgress``,
    ``markForPendingNodeExpansion``...) and the kubelet's node expansion
    (``MarkNodeExpansionInProgress``, ``MarkFSResizeFinished``).

    Parameters
    ----------
    claim : dict
        The PersistentVolumeClaim.
    conditions : iterable of dict
        The resize conditions the claim has afterwards: every condition of :data:`RESIZE_CONDITIONS` is
        replaced by these; others are kept (``MergeResizeConditionOnPVC`` without keeping old ones).
    resource_status : str or None
        ``status.allocatedResourceStatuses.storage`` afterwards (``NodeResizeInProgress``...); None removes it
        (and the map when it becomes empty).
    allocated, capacity : str, optional
        New ``status.allocatedResources.storage`` and ``status.capacity.storage`` quantities.

    Returns
    -------
    dict
        The updated copy; ``claim`` is not changed.

    Examples
    --------
    >>> c = {"status": {"capacity": {"storage": "1Gi"}, "allocatedResourceStatuses": {"storage": "NodeResizePending"},
    ...                 "conditions": [{"type": "FileSystemResizePending", "status": "True"}]}}
    >>> claim_with_resize_status(c, [], None, capacity="2Gi")["status"]
    {'capacity': {'storage': '2Gi'}}
    >>> claim_with_resize_status(c, [], "NodeResizeInProgress")["status"]["allocatedResourceStatuses"]
    {'storage': 'NodeResizeInProgress'}
    """
    import copy

    new = copy.deepcopy(dict(claim))
    st = new.setdefault("status", {})
    kept = [c for c in st.get("conditions") or () if c.get("type") not in RESIZE_CONDITIONS]
    st["conditions"] = kept + [dict(c) for c in conditions]
    if not st["conditions"]:
        st.pop("conditions")
    statuses = dict(st.get("allocatedResourceStatuses") or {})
    if resource_status is None:
        statuses.pop("storage", None)
    else:
        statuses["storage"] = resource_status
    if statuses:
        st["allocatedResourceStatuses"] = statuses
    else:
        st.pop("allocatedResourceStatuses", None)
    if allocated is not None:
        st.setdefault("allocatedResources", {})["storage"] = allocated
    if capacity is not None:
        st.setdefault("capacity", {})["storage"] = capacity
    return new
