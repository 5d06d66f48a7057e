"""The scheduler's view of the cluster for one cycle (``Snapshot``) and the other API objects plugins read.

Mirrors ``pkg/scheduler/backend/cache/snapshot.go``: a list of
:class:`NodeInfo` in a stable order, a map by name, the sub-lists of nodes
holding pods with (anti-)affinity, and image states shared across nodes.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/backend/cache/snapshot.go
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from kubenotes.scheduler.arrays import SnapshotArrays
from kubenotes.scheduler.fast.registry import SNAPSHOT_COUNTS
from kubenotes.scheduler.framework.node_info import ImageStateSummary, NodeInfo, PodInfo

__all__ = ["Snapshot", "ClusterObjects", "ObjectListers", "new_snapshot", "cluster_objects_from_manifests", "snapshot_from_manifests",
           "typed", "TypedIndex", "lister_key"]


def typed(obj: Any) -> Any:
    """The scheduler's edge: a stored object (JSON-shaped dict) as the typed object its plugins read.

    The control plane keeps objects as the API server stores them (dicts);
    the scheduler's plugins read lightkube models. This is the one place the
    scheduler converts, at its snapshot edge (``pkg/scheduler`` receives
    typed objects from its informers; the conversion is the decoding its
    informers do). A model is returned as it is.

    Parameters
    ----------
    obj : dict or lightkube object
        With ``apiVersion`` and ``kind`` when a dict.

    Returns
    -------
    lightkube object
        Of the class the object's ``apiVersion``/``kind`` names.

    Raises
    ------
    KeyError
        When a dict's ``apiVersion``/``kind`` is not a kind lightkube knows.

    Examples
    --------
    >>> typed({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}).metadata.name
    'p'
    """
    if not isinstance(obj, dict):
        return obj
    from lightkube.codecs import from_dict

    return from_dict(obj)


def lister_key(attr: str, obj: dict) -> str:
    """The key :class:`ObjectListers` files a stored object under: ``namespace/name`` or ``name``.

    Claims and CSIStorageCapacities are namespaced (a missing namespace reads
    as ``default``); the other storage kinds are cluster-scoped.

    Examples
    --------
    >>> lister_key("persistent_volume_claims", {"metadata": {"name": "data"}}), lister_key("persistent_volumes",
    ...     {"metadata": {"name": "pv-1"}})
    ('default/data', 'pv-1')
    """
    md = obj.get("metadata") or {}
    if attr in ObjectListers._NAMESPACED:
        return f"{md.get('namespace') or 'default'}/{md.get('name', '')}"
    return md.get("name", "")


class TypedIndex:
    """One kind's objects as the scheduler's informer holds them, kept from watch events (an informer-backed lister).

    Upstream's listers read the informer's indexer, which watch events keep
    up to date; nothing lists the API each cycle. Here the running scheduler
    hands :meth:`apply` the keys its event handlers saw change, each with the
    informer's current object (``None`` once deleted), so the cost of a
    scheduling cycle follows what changed, not how many objects exist. Each
    object is converted to its typed form once per ``resourceVersion``
    (:func:`typed`, the informer's decoding).

    Parameters
    ----------
    attr : str
        The :class:`ClusterObjects` attribute this index feeds
        (``persistent_volume_claims`` ...).
    with_dicts : bool
        Also keep each object's JSON-shaped form by :func:`lister_key`, for
        :meth:`ObjectListers.of` (the storage kinds).

    Attributes
    ----------
    objects : list
        The typed objects in informer key order (``namespace/name`` or
        ``name``, sorted), as a full LIST of the informer would give them.
    version : int
        Incremented by each :meth:`apply` that changed something.

    Notes
    -----
    Copy on write: an :meth:`apply` that changes something builds a new
    ``objects`` list and a new :attr:`by_key` map, so one handed out before
    (to a cycle still running) keeps its contents.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go (the indexer a lister reads)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/eventhandlers.go (addAllEventHandlers: the storage informers)

    Examples
    --------
    >>> ix = TypedIndex("persistent_volumes", with_dicts=True)
    >>> pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "b", "uid": "u1",
    ...       "resourceVersion": "3"}}
    >>> ix.apply([("b", pv)]), ix.apply([("b", pv)])  # the same resourceVersion again: nothing to do
    (True, False)
    >>> ix.apply([("a", {**pv, "metadata": {"name": "a", "uid": "u2", "resourceVersion": "4"}})])
    True
    >>> [o.metadata.name for o in ix.objects], list(ix.by_key)
    (['a', 'b'], ['a', 'b'])
    >>> ix.apply([("b", None)]), list(ix.by_key), ix.version
    (True, ['a'], 3)
    """

    def __init__(self, attr: str, with_dicts: bool = False):
        self.attr = attr
        self.with_dicts = with_dicts
        self.objects: list[Any] = []
        self.version = 0
        self._keys: list[str] = []  # informer keys, sorted; parallel to objects
        self._rvs: list[tuple[Any, Any]] = []  # (uid, resourceVersion) of each
        self._map_keys: list[str] = []  # lister_key of each (with_dicts)
        self._dicts: list[dict] = []  # the typed object's dict form (with_dicts)
        self._by_key: dict[str, dict] | None = {}

    def apply(self, changes: Iterable[tuple[str, dict | None]]) -> bool:
        """Bring the changed keys up to date; whether anything changed.

        Parameters
        ----------
        changes : iterable of (str, dict or None)
            Informer key and the informer's current object for it (``None``
            when it no longer holds one).

        Returns
        -------
        bool
            True when an object was added, removed or has another
            ``resourceVersion`` (then ``objects`` and :attr:`by_key` are new).
        """
        from bisect import bisect_left

        copied = False
        for key, obj in changes:
            keys = self._keys
            i = bisect_left(keys, key)
            present = i < len(keys) and keys[i] == key
            if obj is None:
                if not present:
                    continue
                if not copied:
                    self._copy()
                    copied = True
                for lst in (self._keys, self.objects, self._rvs, self._map_keys, self._dicts):
                    if lst:
                        del lst[i]
                continue
            md = obj.get("metadata") or {}
            rv = (md.get("uid"), md.get("resourceVersion"))
            if present and self._rvs[i] == rv:
                continue
            if not copied:
                self._copy()
                copied = True
            t = typed(obj)
            d = None
            if self.with_dicts:
                d = t if isinstance(t, dict) else t.to_dict()
            if present:
                self.objects[i], self._rvs[i] = t, rv
                if self.with_dicts:
                    self._map_keys[i], self._dicts[i] = lister_key(self.attr, d), d
            else:
                self._keys.insert(i, key)
                self.objects.insert(i, t)
                self._rvs.insert(i, rv)
                if self.with_dicts:
                    self._map_keys.insert(i, lister_key(self.attr, d))
                    self._dicts.insert(i, d)
        if copied:
            self.version += 1
            self._by_key = None
        return copied

    def _copy(self) -> None:
        self._keys, self.objects, self._rvs = list(self._keys), list(self.objects), list(self._rvs)
        self._map_keys, self._dicts = list(self._map_keys), list(self._dicts)

    @property
    def by_key(self) -> dict[str, dict]:
        """:func:`lister_key` -> the object as a dict, in informer key order (what ``ObjectListers.of`` gives)."""
        if self._by_key is None:
            self._by_key = dict(zip(self._map_keys, self._dicts))
        return self._by_key


@dataclass
class ClusterObjects:
    """Read-only API objects, other than nodes and pods, that plugins consult.

    Every list holds lightkube objects as loaded from manifests.

    Attributes
    ----------
    namespaces : dict[str, dict[str, str]]
        Namespace name -> its labels (a namespace absent here has no labels).
    services, replication_controllers, replica_sets, stateful_sets : list
        Workload owners (system default topology spreading, SelectorSpread).
    persistent_volume_claims, persistent_volumes, storage_classes : list
        For VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits.
    csi_nodes, csi_drivers, csi_storage_capacities, volume_attachments : list
        For VolumeBinding (capacity checks) and NodeVolumeLimits (attach limits, attached volumes).
    pod_disruption_budgets : list
        For DefaultPreemption.
    priority_classes : list
    informed : dict[str, TypedIndex] or None
        Attribute -> the index its list comes from, when a running scheduler
        keeps these lists from watch events (:class:`ObjectListers` then
        reads the indexes' maps instead of rebuilding them).
    """

    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)
    services: list[Any] = field(default_factory=list)
    replication_controllers: list[Any] = field(default_factory=list)
    replica_sets: list[Any] = field(default_factory=list)
    stateful_sets: list[Any] = field(default_factory=list)
    persistent_volume_claims: list[Any] = field(default_factory=list)
    persistent_volumes: list[Any] = field(default_factory=list)
    storage_classes: list[Any] = field(default_factory=list)
    csi_nodes: list[Any] = field(default_factory=list)
    csi_drivers: list[Any] = field(default_factory=list)
    csi_storage_capacities: list[Any] = field(default_factory=list)
    volume_attachments: list[Any] = field(default_factory=list)
    pod_disruption_budgets: list[Any] = field(default_factory=list)
    priority_classes: list[Any] = field(default_factory=list)
    informed: dict[str, TypedIndex] | None = field(default=None, repr=False, compare=False)

    def namespace_labels(self, name: str) -> dict[str, str]:
        """Labels of namespace ``name`` ({} when unknown)."""
        return self.namespaces.get(name, {})


class ObjectListers:
    """The storage objects of a handle's :class:`ClusterObjects` as dicts by key (the informers' listers).

    ``of(attr)`` maps ``namespace/name`` (claims, CSIStorageCapacities) or
    ``name`` (the cluster-scoped kinds) to the object as a JSON-shaped dict,
    each typed object converted once. The maps are rebuilt after
    :meth:`refresh` finds a list changed (another list object, or other
    objects in it). When the objects come from a running scheduler's
    informers (``ClusterObjects.informed``), the maps are the
    :class:`TypedIndex` ones, which watch events keep up to date: nothing is
    rebuilt or compared list-long (upstream's listers read the informers'
    indexers).

    Parameters
    ----------
    handle : Framework or object
        Its ``objects`` attribute is read at each call (the running cluster
        refreshes it between cycles).

    See Also
    --------
    kubenotes.scheduler.plugins.volumebinding.binder.VolumeBinder : reads claims, PVs, classes, CSI objects.
    kubenotes.scheduler.plugins.nodevolumelimits.CSILimits : reads claims, PVs, classes, CSINodes, VolumeAttachments.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> h = SimpleNamespace(objects=ClusterObjects(persistent_volume_claims=[
    ...     {"metadata": {"name": "data", "namespace": "db"}, "spec": {}}]))
    >>> listers = ObjectListers(h)
    >>> listers.refresh()
    >>> list(listers.of("persistent_volume_claims")), listers.of("persistent_volumes")
    (['db/data'], {})
    """

    ATTRS = ("persistent_volume_claims", "persistent_volumes", "storage_classes", "csi_nodes", "csi_drivers",
             "csi_storage_capacities", "volume_attachments")
    _NAMESPACED = frozenset({"persistent_volume_claims", "csi_storage_capacities"})

    def __init__(self, handle: Any):
        self.handle = handle
        self._seen: dict[str, tuple[int, int, int]] = {}
        self._maps: dict[str, dict[str, dict] | None] = {a: None for a in self.ATTRS}
        self._dicts: dict[int, tuple[Any, dict]] = {}

    def _as_dict(self, o: Any) -> dict:
        if isinstance(o, dict):
            return o
        hit = self._dicts.get(id(o))
        if hit is None or hit[0] is not o:
            hit = (o, o.to_dict())
            self._dicts[id(o)] = hit
        return hit[1]

    def refresh(self) -> None:
        """Forget the maps whose object lists changed (once per scheduling cycle, and before a PreBind check)."""
        objects = getattr(self.handle, "objects", None)
        informed = getattr(objects, "informed", None)
        if informed is not None:
            for attr in self.ATTRS:
                ix = informed[attr]
                sig = (id(ix), ix.version)
                if self._seen.get(attr) != sig:
                    self._seen[attr] = sig
                    self._maps[attr] = None
            return
        for attr in self.ATTRS:
            objs = getattr(objects, attr, None) or []
            sig = (id(objs), len(objs), hash(tuple(map(id, objs))))
            if self._seen.get(attr) != sig:
                self._seen[attr] = sig
                self._maps[attr] = None
        live = {id(o) for attr in self.ATTRS for o in getattr(objects, attr, None) or []}
        if len(self._dicts) > 2 * len(live) + 64:
            self._dicts = {k: v for k, v in self._dicts.items() if k in live}

    def of(self, attr: str) -> dict[str, dict]:
        """Key -> dict of ClusterObjects' ``attr``, as of the last :meth:`refresh`."""
        m = self._maps.get(attr)
        if m is None:
            objects = getattr(self.handle, "objects", None)
            informed = getattr(objects, "informed", None)
            if informed is not None:
                m = informed[attr].by_key
            else:
                m = {}
                for o in getattr(objects, attr, None) or []:
                    d = self._as_dict(o)
                    m[lister_key(attr, d)] = d
            self._maps[attr] = m
        return m


class Snapshot:
    """Nodes and their pods, frozen for one scheduling cycle.

    Parameters
    ----------
    node_infos : iterable of NodeInfo
        In the order the scheduler iterates them (upstream: the cache's
        zone-interleaved node tree order; kubenotes keeps input order).

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node
    >>> s = new_snapshot([make_node("n1"), make_node("n2")], [])
    >>> [n.name for n in s.list()], s.get("n2").name, s.num_nodes()
    (['n1', 'n2'], 'n2', 2)
    """

    def __init__(self, node_infos: Iterable[NodeInfo] = ()):
        self.node_info_list: list[NodeInfo] = list(node_infos)
        self.node_info_map: dict[str, NodeInfo] = {n.name: n for n in self.node_info_list}
        self.generation = 0
        self._arrays = None

    def arrays(self):
        """The :class:`~kubenotes.scheduler.arrays.SnapshotArrays` of these nodes, built on first use.

        Once built, they follow every pod added to or removed from a node.
        """
        if self._live_arrays() is None:
            self._arrays = SnapshotArrays(self.node_info_list, SNAPSHOT_COUNTS)
        return self._arrays

    def _live_arrays(self):
        a = self._arrays
        if a is None or a.node_infos is not self.node_info_list or len(a) != len(self.node_info_list):
            return None
        return a

    def list(self) -> list[NodeInfo]:
        """All nodes (``NodeInfos().List()``)."""
        return self.node_info_list

    def get(self, name: str) -> NodeInfo | None:
        """The node named ``name`` or ``None``."""
        return self.node_info_map.get(name)

    def num_nodes(self) -> int:
        """Number of nodes."""
        return len(self.node_info_list)

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        """Nodes with at least one pod that has a pod (anti-)affinity term."""
        a = self._live_arrays()
        if a is not None:
            return a.nodes_with(a.num_pods_with_affinity)
        return [n for n in self.node_info_list if n.pods_with_affinity]

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        """Nodes with at least one pod that has a required anti-affinity term."""
        a = self._live_arrays()
        if a is not None:
            return a.nodes_with(a.num_pods_with_required_anti_affinity)
        return [n for n in self.node_info_list if n.pods_with_required_anti_affinity]

    def add_pod(self, pod: PodInfo, node_name: str) -> None:
        """Place (assume) ``pod`` on ``node_name``."""
        self.node_info_map[node_name].add_pod(pod)
        self.generation += 1

    def remove_pod(self, pod: PodInfo, node_name: str) -> None:
        """Remove ``pod`` from ``node_name``."""
        self.node_info_map[node_name].remove_pod(pod)
        self.generation += 1


def _image_states(nodes: list[Any]) -> dict[str, dict[str, ImageStateSummary]]:
    """Per node: image name -> summary, with ``num_nodes`` counted over all nodes."""
    holders: dict[str, set[str]] = {}
    sizes: dict[str, dict[str, int]] = {}
    for n in nodes:
        nn = n.metadata.name
        sizes[nn] = {}
        for img in (n.status.images if n.status is not None else None) or ():
            for name in img.names or ():
                sizes[nn][name] = int(img.sizeBytes or 0)
                holders.setdefault(name, set()).add(nn)
    return {nn: {name: ImageStateSummary(size, len(holders[name])) for name, size in imgs.items()}
            for nn, imgs in sizes.items()}


def new_snapshot(nodes: Iterable[Any], pods: Iterable[Any], *, warn=None) -> Snapshot:
    """Build a snapshot from Nodes and bound Pods.

    Parameters
    ----------
    nodes : iterable of Node (lightkube or stored dict)
        Dicts are converted with :func:`typed`.
    pods : iterable of Pod (lightkube or stored dict) or PodInfo
        Pods with ``spec.nodeName`` set count toward that node; others are ignored.
    warn : callable(str), optional
        Called for a bound pod whose node is not in ``nodes`` (the pod is ignored).

    Returns
    -------
    Snapshot

    Raises
    ------
    FieldError
        When a node's allocatable or a pod's request is malformed.
    """
    nodes = [typed(n) for n in nodes]
    infos = [NodeInfo(n) for n in nodes]
    states = _image_states(nodes)
    for ni in infos:
        ni.image_states = states.get(ni.name, {})
    snap = Snapshot(infos)
    for p in pods:
        pi = p if isinstance(p, PodInfo) else PodInfo(typed(p))
        if not pi.node_name:
            continue
        ni = snap.get(pi.node_name)
        if ni is None:
            if warn is not None:
                warn(f"pod {pi.key} is bound to node {pi.node_name!r}, which is not in the input; ignored")
            continue
        ni.add_pod(pi)
    return snap


def cluster_objects_from_manifests(manifests: Any) -> ClusterObjects:
    """The non-node, non-pod objects of loaded manifests that the scheduler's plugins read.

    Parameters
    ----------
    manifests : kubenotes.api.manifests.Manifests

    Returns
    -------
    ClusterObjects
        Namespace labels, Services, ReplicationControllers, ReplicaSets,
        StatefulSets, PersistentVolumeClaims, PersistentVolumes,
        StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities, VolumeAttachments,
        PodDisruptionBudgets and PriorityClasses.
    """
    m = manifests
    return ClusterObjects(
        namespaces={ns.metadata.name: dict(ns.metadata.labels or {}) for ns in m.namespaces},
        services=m.of_kind("Service"),
        replication_controllers=m.of_kind("ReplicationController"),
        replica_sets=m.of_kind("ReplicaSet"),
        stateful_sets=m.of_kind("StatefulSet"),
        persistent_volume_claims=m.of_kind("PersistentVolumeClaim"),
        persistent_volumes=m.of_kind("PersistentVolume"),
        storage_classes=m.of_kind("StorageClass"),
        csi_nodes=m.of_kind("CSINode"),
        csi_drivers=m.of_kind("CSIDriver"),
        csi_storage_capacities=m.of_kind("CSIStorageCapacity"),
        volume_attachments=m.of_kind("VolumeAttachment"),
        pod_disruption_budgets=m.of_kind("PodDisruptionBudget"),
        priority_classes=m.priority_classes,
    )


def snapshot_from_manifests(manifests: Any) -> Snapshot:
    """A :class:`Snapshot` of loaded manifests' nodes and their bound pods."""
    return new_snapshot(manifests.nodes, manifests.pods)
