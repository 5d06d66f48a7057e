"""Shared parts of PodTopologySpread: parsed constraints, default constraints, workload selectors.

Mirrors ``pkg/scheduler/framework/plugins/podtopologyspread/common.go`` and the
selector helpers of ``pkg/scheduler/framework/plugins/helper/spread.go``
(``DefaultSelector``, ``GetPodServices``), which the legacy SelectorSpread and
ServiceAffinity plugins reuse.

Behaviour follows kube-scheduler v1.34 with its default feature gates:
``NodeInclusionPolicyInPodTopologySpread`` and ``MinDomainsInPodTopologySpread``
are GA (always on) and ``MatchLabelKeysInPodTopologySpread`` is on, so
``matchLabelKeys`` are merged into the selector here as well (v1.34's API server
also merges them at pod creation; merging twice selects the same pods).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/common.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/spread.go
KEP-895 (pod topology spread), KEP-1258 (default constraints), KEP-3022 (minDomains),
KEP-3094 (node inclusion policies), KEP-3243 (matchLabelKeys)
"""

from __future__ import annotations

import bisect

import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Hashable, Iterable

import numpy as np

from kubenotes.api.meta import get_controller_of
from kubenotes.api.selectors import LabelSelector
from kubenotes.api.taints import tolerations_tolerate_taint
from kubenotes.scheduler.arrays import PodMemo, pod_spec_key

__all__ = [
    "LABEL_HOSTNAME",
    "LABEL_TOPOLOGY_ZONE",
    "DO_NOT_SCHEDULE",
    "SCHEDULE_ANYWAY",
    "NODE_INCLUSION_POLICY_HONOR",
    "NODE_INCLUSION_POLICY_IGNORE",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "TopologySpreadConstraint",
    "label_selector",
    "selector_requirements",
    "selector_from_requirements",
    "node_labels_match_spread_constraints",
    "count_pods_match_selector",
    "filter_topology_spread_constraints",
    "get_pod_services",
    "default_selector",
    "build_default_constraints",
    "has_untolerated_do_not_schedule_taint",
    "required_node_affinity",
    "selector_key",
    "count_pods_match_selector_per_node",
    "MatchingPodCounts",
    "node_inclusion_key",
    "node_inclusion_mask",
]

#: ``kubernetes.io/hostname`` (``v1.LabelHostname``).
LABEL_HOSTNAME = "kubernetes.io/hostname"
#: ``topology.kubernetes.io/zone`` (``v1.LabelTopologyZone``).
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
#: ``whenUnsatisfiable`` values.
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
#: ``nodeAffinityPolicy`` / ``nodeTaintsPolicy`` values.
NODE_INCLUSION_POLICY_HONOR = "Honor"
NODE_INCLUSION_POLICY_IGNORE = "Ignore"

#: Constraints used when ``defaultingType: System``: hostname then zone, both ScheduleAnyway.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[dict[str, Any], ...] = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)


def label_selector(raw: Any) -> Any:
    """A :class:`kubenotes.api.selectors.LabelSelector` from a lightkube selector, a dict or ``None``.

    ``None`` selects nothing and ``{}`` everything (``metav1.LabelSelectorAsSelector``).

    Raises
    ------
    FieldError
        When a requirement is malformed (bad operator, bad label value).
    """
    return LabelSelector.from_api(raw)


def _get(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    if type(obj) is dict or isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def selector_requirements(raw: Any) -> list[dict[str, Any]] | None:
    """Requirements of a label selector as ``matchExpressions`` dicts, or ``None`` for a nil selector.

    ``matchLabels`` entries become ``In [value]`` requirements so that several
    selectors can be ANDed without losing a conflicting key.

    Examples
    --------
    >>> selector_requirements({"matchLabels": {"app": "web"}})
    [{'key': 'app', 'operator': 'In', 'values': ['web']}]
    >>> selector_requirements(None) is None, selector_requirements({})
    (True, [])
    """
    if raw is None:
        return None
    reqs: list[dict[str, Any]] = []
    for k, v in sorted((_get(raw, "matchLabels") or {}).items()):
        reqs.append({"key": k, "operator": "In", "values": [v]})
    for e in _get(raw, "matchExpressions") or ():
        d = {"key": _get(e, "key"), "operator": _get(e, "operator")}
        values = _get(e, "values")
        if values is not None:
            d["values"] = list(values)
        reqs.append(d)
    return reqs


_COMPILED_SELECTORS: dict[tuple[Any, ...], Any] = {}
_MAX_COMPILED_SELECTORS = 1024


def selector_from_requirements(reqs: list[dict[str, Any]] | None) -> Any:
    """A LabelSelector ANDing ``reqs`` (``None`` selects nothing, ``[]`` everything).

    Compiled selectors are immutable and remembered by their requirements
    (kubenotes only), since every pod of a workload asks for the same one.

    Raises
    ------
    FieldError
        When a requirement is malformed (never remembered).

    Examples
    --------
    >>> reqs = [{"key": "app", "operator": "In", "values": ["web"]}]
    >>> sel = selector_from_requirements(reqs)
    >>> str(sel), selector_from_requirements([dict(r) for r in reqs]) is sel
    ('app in (web)', True)
    """
    if reqs is None:
        return label_selector(None)
    try:
        key = tuple((r.get("key"), r.get("operator"), None if r.get("values") is None else tuple(r["values"]))
                    for r in reqs)
        hit = _COMPILED_SELECTORS.get(key)
    except TypeError:  # unhashable values: just compile
        key = hit = None
    if hit is not None:
        return hit
    sel = label_selector({"matchExpressions": list(reqs)})
    if key is not None:
        if len(_COMPILED_SELECTORS) >= _MAX_COMPILED_SELECTORS:
            _COMPILED_SELECTORS.clear()
        _COMPILED_SELECTORS[key] = sel
    return sel


def _set_requirements(label_set: Mapping[str, str]) -> list[dict[str, Any]]:
    return [{"key": k, "operator": "In", "values": [v]} for k, v in sorted(label_set.items())]


def required_node_affinity(pod_info: Any) -> Any:
    """The pod's required node affinity and nodeSelector (``nodeaffinity.GetRequiredNodeAffinity``)."""
    return pod_info.required_node_affinity()


def has_untolerated_do_not_schedule_taint(node: Any, pod: Any) -> bool:
    """True when ``node`` has a NoSchedule/NoExecute taint the pod does not tolerate.

    Mirrors ``FindMatchingUntoleratedTaint`` with ``helper.DoNotScheduleTaintsFilterFunc``.
    """
    taints = (node.spec.taints if node is not None and node.spec is not None else None) or ()
    tolerations = list(pod.spec.tolerations or ())
    for t in taints:
        if t.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not tolerations_tolerate_taint(tolerations, t):
            return True
    return False


@dataclass(slots=True)
class TopologySpreadConstraint:
    """A parsed ``v1.TopologySpreadConstraint`` (upstream ``topologySpreadConstraint``).

    Attributes
    ----------
    max_skew : int
        Largest allowed difference in matching pods between two domains.
    topology_key : str
        Node label key whose values are the domains.
    selector : LabelSelector
        Pods counted in each domain (``labelSelector`` ANDed with ``matchLabelKeys``).
    min_domains : int
        ``minDomains`` (1 when unset): with fewer eligible domains the global minimum is 0.
    node_affinity_policy, node_taints_policy : str
        ``Honor`` or ``Ignore``; defaults Honor / Ignore.
    """

    max_skew: int
    topology_key: str
    selector: Any
    min_domains: int = 1
    node_affinity_policy: str = NODE_INCLUSION_POLICY_HONOR
    node_taints_policy: str = NODE_INCLUSION_POLICY_IGNORE

    def match_node_inclusion_policies(self, pod_info: Any, node: Any, required_affinity: Any) -> bool:
        """True when ``node`` counts as an eligible domain member under this constraint's policies.

        Parameters
        ----------
        pod_info : PodInfo
            The incoming pod.
        node : lightkube Node
        required_affinity : RequiredNodeAffinity
            From :func:`required_node_affinity` of the incoming pod.
        """
        if self.node_affinity_policy == NODE_INCLUSION_POLICY_HONOR and not required_affinity.match(node):
            return False
        if self.node_taints_policy == NODE_INCLUSION_POLICY_HONOR and has_untolerated_do_not_schedule_taint(node, pod_info.pod):
            return False
        return True


def node_labels_match_spread_constraints(node_labels: Mapping[str, str], constraints: Iterable[TopologySpreadConstraint]) -> bool:
    """True when the node carries every constraint's topology key (``nodeLabelsMatchSpreadConstraints``).

    Examples
    --------
    >>> c = TopologySpreadConstraint(1, "zone", None)
    >>> node_labels_match_spread_constraints({"zone": "a"}, [c]), node_labels_match_spread_constraints({}, [c])
    (True, False)
    """
    return all(c.topology_key in node_labels for c in constraints)


def count_pods_match_selector(pod_infos: Iterable[Any], selector: Any, namespace: str) -> int:
    """Pods in ``namespace`` matching ``selector``, skipping terminating pods (``countPodsMatchSelector``).

    An empty selector (``{}``) counts nothing, as upstream.
    """
    if selector.is_empty():
        return 0
    n = 0
    for p in pod_infos:
        if p.terminating or p.namespace != namespace:
            continue
        if selector.matches(p.labels):
            n += 1
    return n


def _spec_constraint_get(c: Any, key: str) -> Any:
    return _get(c, key)


def filter_topology_spread_constraints(
    constraints: Iterable[Any], pod_labels: Mapping[str, str], action: str
) -> list[TopologySpreadConstraint]:
    """Parse the constraints whose ``whenUnsatisfiable`` equals ``action`` (``filterTopologySpreadConstraints``).

    Parameters
    ----------
    constraints : iterable of TopologySpreadConstraint (lightkube) or dict
    pod_labels : mapping
        Labels of the incoming pod; ``matchLabelKeys`` take their values from it
        (keys the pod lacks are ignored).
    action : str
        ``DoNotSchedule`` (Filter) or ``ScheduleAnyway`` (Score).

    Returns
    -------
    list[TopologySpreadConstraint]

    Raises
    ------
    FieldError
        When a label selector is malformed.

    Notes
    -----
    v1.34 default gates: node inclusion policies are honoured when set, defaults
    Honor (affinity) and Ignore (taints); ``minDomains`` defaults to 1.
    """
    out: list[TopologySpreadConstraint] = []
    for c in constraints:
        if _spec_constraint_get(c, "whenUnsatisfiable") != action:
            continue
        raw_sel = _spec_constraint_get(c, "labelSelector")
        reqs = selector_requirements(raw_sel)
        keys = _spec_constraint_get(c, "matchLabelKeys") or ()
        if reqs is not None and keys:
            match = {k: pod_labels[k] for k in keys if k in pod_labels}
            if match:
                reqs = _set_requirements(match) + reqs
        min_domains = _spec_constraint_get(c, "minDomains")
        out.append(
            TopologySpreadConstraint(
                max_skew=int(_spec_constraint_get(c, "maxSkew")),
                topology_key=_spec_constraint_get(c, "topologyKey"),
                selector=selector_from_requirements(reqs),
                min_domains=1 if min_domains is None else int(min_domains),
                node_affinity_policy=_spec_constraint_get(c, "nodeAffinityPolicy") or NODE_INCLUSION_POLICY_HONOR,
                node_taints_policy=_spec_constraint_get(c, "nodeTaintsPolicy") or NODE_INCLUSION_POLICY_IGNORE,
            )
        )
    return out


def _namespace_of(obj: Any) -> str:
    return (obj.metadata.namespace if obj.metadata is not None else None) or "default"


def get_pod_services(objects: Any, pod_info: Any) -> list[Any]:
    """Services in the pod's namespace whose selector matches the pod (``helper.GetPodServices``).

    Services with a nil selector match nothing; an empty selector matches every pod.

    Notes
    -----
    kubenotes looks the namespace's Services up in an index of the (read-only)
    ``objects.services`` list instead of scanning every Service for every pod;
    the result, in list order, is the same.
    """
    services = getattr(objects, "services", None) or ()
    if not services:
        return []
    out = []
    for svc in _in_namespace(services, pod_info.namespace):
        sel = svc.spec.selector if svc.spec is not None else None
        if sel is None:
            continue
        if all(pod_info.labels.get(k) == v for k, v in sel.items()):
            out.append(svc)
    return out


_GVK_RC = ("", "v1", "ReplicationController")
_GVK_RS = ("apps", "v1", "ReplicaSet")
_GVK_SS = ("apps", "v1", "StatefulSet")


def _parse_api_version(api_version: str) -> tuple[str, str] | None:
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


class _ObjectsIndex:
    """Positions of a read-only list's objects by namespace and by (namespace, name), first occurrence kept (kubenotes only)."""

    __slots__ = ("objs", "size", "by_namespace", "by_name")

    def __init__(self, objs: Any):
        self.objs, self.size = objs, len(objs)
        self.by_namespace: dict[str, list[int]] = {}
        self.by_name: dict[tuple[str, str], int] = {}
        for pos, o in enumerate(objs):
            ns = _namespace_of(o)
            self.by_namespace.setdefault(ns, []).append(pos)
            self.by_name.setdefault((ns, o.metadata.name), pos)


_OBJECT_INDEXES: dict[int, _ObjectsIndex] = {}


def _objects_index(objs: Any, fresh: bool = False) -> _ObjectsIndex:
    """The index of ``objs``, rebuilt when asked, or when the list is another one or changed length.

    The index keeps the list alive, so its ``id`` is not reused while cached.
    """
    got = _OBJECT_INDEXES.get(id(objs))
    if fresh or got is None or got.objs is not objs or got.size != len(objs):
        if len(_OBJECT_INDEXES) >= 64:
            _OBJECT_INDEXES.clear()
        got = _OBJECT_INDEXES[id(objs)] = _ObjectsIndex(objs)
    return got


def _in_namespace(objs: Any, namespace: str) -> list[Any]:
    """Objects of ``objs`` in ``namespace``, in list order (indexed; an object replaced in place is re-read)."""
    if not isinstance(objs, (list, tuple)):
        return [o for o in objs if _namespace_of(o) == namespace]
    for fresh in (False, True):
        positions = _objects_index(objs, fresh).by_namespace.get(namespace, ())
        out = [objs[pos] for pos in positions]
        if all(_namespace_of(o) == namespace for o in out):
            return out
    return [o for o in objs if _namespace_of(o) == namespace]  # pragma: no cover - unreachable after a rebuild


def _find(objs: Any, namespace: str, name: str) -> Any:
    """The first object of ``objs`` named ``namespace/name``, or None (indexed for lists)."""
    if not objs:
        return None
    if isinstance(objs, (list, tuple)):
        pos = _objects_index(objs).by_name.get((namespace, name))
        if pos is not None:
            o = objs[pos]
            if _namespace_of(o) == namespace and o.metadata.name == name:
                return o
    for o in objs:  # not indexed, absent, or replaced in place: scan
        if _namespace_of(o) == namespace and o.metadata.name == name:
            return o
    return None


def default_selector(pod_info: Any, objects: Any) -> Any:
    """Selector deduced from the Services and controller matching the pod (``helper.DefaultSelector``).

    The selectors of every Service that selects the pod are merged; then the
    selector of the pod's controller is added when it is a ReplicationController
    (merged as a label set), ReplicaSet or StatefulSet (its requirements ANDed).

    Parameters
    ----------
    pod_info : PodInfo
    objects : ClusterObjects
        Services, replication controllers, replica sets and stateful sets.

    Returns
    -------
    LabelSelector
        Empty (``is_empty()``) when nothing owns or selects the pod.
    """
    services = get_pod_services(objects, pod_info)
    owner, kind = None, None
    ref = get_controller_of(pod_info.pod)
    gv = _parse_api_version(ref.apiVersion or "") if ref is not None else None
    if gv is not None:
        kind = _OWNER_POOLS.get((gv[0], gv[1], ref.kind))
        if kind is not None:
            owner = _find(getattr(objects, kind, ()), pod_info.namespace, ref.name)
    # The selector depends only on these objects (read-only; a changed one is a new object): remembered by
    # identity, with the objects kept so that their ids stay theirs.
    held = (owner, *services)
    key = (kind, tuple(map(id, held)))
    got = _DEFAULT_SELECTORS.get(key)
    if got is not None and all(a is b for a, b in zip(got[0], held)):
        return got[1]
    label_set: dict[str, str] = {}
    for svc in services:
        label_set.update(svc.spec.selector or {})
    reqs = _set_requirements(label_set)
    if owner is not None:
        if kind == "replication_controllers":
            label_set.update((owner.spec.selector if owner.spec is not None else None) or {})
            reqs = _set_requirements(label_set)
        else:
            other = selector_requirements(owner.spec.selector if owner.spec is not None else None)
            if other is not None:
                reqs = reqs + other
    selector = selector_from_requirements(reqs)
    if len(_DEFAULT_SELECTORS) >= 4096:
        _DEFAULT_SELECTORS.clear()
    _DEFAULT_SELECTORS[key] = (held, selector)
    return selector


#: The ClusterObjects list of each owner kind DefaultSelector reads.
_OWNER_POOLS = {_GVK_RC: "replication_controllers", _GVK_RS: "replica_sets", _GVK_SS: "stateful_sets"}
_DEFAULT_SELECTORS: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = {}


def build_default_constraints(
    default_constraints: Iterable[Any], pod_info: Any, objects: Any, action: str,
    parsed: list[TopologySpreadConstraint] | None = None,
) -> list[TopologySpreadConstraint]:
    """Default constraints for a pod without its own (``buildDefaultConstraints``).

    The constraints whose ``whenUnsatisfiable`` is ``action`` get the pod's
    :func:`default_selector`; a pod that no Service or controller selects gets none.

    Parameters
    ----------
    parsed : list of TopologySpreadConstraint, optional
        ``filter_topology_spread_constraints`` of the defaults for ``action``
        when it does not depend on the pod (no ``matchLabelKeys``); copied,
        not changed.

    Returns
    -------
    list of TopologySpreadConstraint
        Read-only: with ``parsed`` given, pods with the same default selector
        (the same object, see :func:`default_selector`) share one list.
    """
    given = parsed is not None
    if parsed is None:
        parsed = filter_topology_spread_constraints(default_constraints, pod_info.labels, action)
    if not parsed:
        return []
    selector = default_selector(pod_info, objects)
    if selector.is_empty():
        return []
    key = (id(selector), id(parsed))
    got = _BUILT_CONSTRAINTS.get(key) if given else None
    if got is not None and got[0] is selector and got[1] is parsed:
        return got[2]
    built = [TopologySpreadConstraint(c.max_skew, c.topology_key, selector, c.min_domains, c.node_affinity_policy,
                                      c.node_taints_policy) for c in parsed]
    if given:
        if len(_BUILT_CONSTRAINTS) >= 4096:
            _BUILT_CONSTRAINTS.clear()
        _BUILT_CONSTRAINTS[key] = (selector, parsed, built)  # both kept: their ids stay theirs
    return built


#: (id of the selector, id of the parsed defaults) -> (selector, parsed defaults, constraints built from them).
_BUILT_CONSTRAINTS: dict[tuple[int, int], tuple[Any, list[Any], list[TopologySpreadConstraint]]] = {}


# --------------------------------------------------------------------------- whole-snapshot forms
# kubenotes only: the same counts and predicates over numpy arrays of every
# snapshot node (see kubenotes.scheduler.batch), so PreFilter/PreScore need not
# walk every pod of every node for every pod scheduled.


def selector_key(selector: Any) -> tuple[Any, ...]:
    """A hashable key equal for selectors that select the same pods (their requirements).

    Examples
    --------
    >>> a = label_selector({"matchLabels": {"app": "web"}})
    >>> selector_key(a) == selector_key(label_selector({"matchLabels": {"app": "web"}}))
    True
    >>> selector_key(label_selector(None)) == selector_key(label_selector({}))
    False
    """
    return (selector.is_nothing(), selector.requirements)


def count_pods_match_selector_per_node(arrays: Any, selector: Any, namespace: str) -> Any:
    """:func:`count_pods_match_selector` of every snapshot node, as an int64 array.

    Parameters
    ----------
    arrays : SnapshotArrays
    selector : LabelSelector
    namespace : str

    Returns
    -------
    numpy.ndarray
        Shape (n,), in snapshot order; kept up to date incrementally
        (:class:`MatchingPodCounts`), so do not modify it.

    Examples
    --------
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1"), make_node("n2")],
    ...                     [make_pod("a", labels={"app": "x"}, node_name="n2"), make_pod("b", node_name="n2")])
    >>> count_pods_match_selector_per_node(snap.arrays(), label_selector({"matchLabels": {"app": "x"}}), "default").tolist()
    [0, 1]
    """
    if selector.is_empty():
        return np.zeros(len(arrays), dtype=np.int64)
    return MatchingPodCounts.of(arrays).counts(namespace, selector)


class MatchingPodCounts:
    """Per-node counts of the pods matching PodTopologySpread selectors, kept by replaying pod changes.

    kubenotes only (upstream counts in PreFilter/PreScore over every node, in
    16 goroutines). What decides whether a pod matches a constraint's
    selector is its *class*: namespace, terminating or not, and labels. This
    index keeps, per snapshot node, how many pods of each class it holds and,
    whenever a node's pods change (``SnapshotArrays.rows_changed_since``), logs
    the per-class differences as ``(node, class, delta)`` rows. A selector's
    table is brought up to date by adding the logged rows since its last use
    whose class matches it, in numpy; whether a class matches is evaluated
    once per selector and class. So scheduling the pods of many workloads
    interleaved costs one row per pod placed, not a recount of every node
    that changed.

    Parameters
    ----------
    arrays : SnapshotArrays

    Notes
    -----
    The counts equal :func:`count_pods_match_selector` of every node's pods
    (the log sums to each node's current classes). Selector tables are kept
    within :attr:`TABLE_BUDGET_BYTES` (and :attr:`MAX_TABLES`), least
    recently used first out; a table made again replays the whole log. The
    log is rebuilt from the nodes' current classes when it grows to several
    times their size.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/common.go (countPodsMatchSelector)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (calPreFilterState)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/scoring.go (PreScore)

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1"), make_node("n2")], [make_pod("a", labels={"app": "x"}, node_name="n2")])
    >>> idx = MatchingPodCounts.of(snap.arrays())
    >>> sel = label_selector({"matchLabels": {"app": "x"}})
    >>> idx.counts("default", sel).tolist()
    [0, 1]
    >>> snap.add_pod(PodInfo(make_pod("b", labels={"app": "x"}, node_name="n1")), "n1")
    >>> idx.counts("default", sel).tolist(), idx.counts("other", sel).tolist()
    ([1, 1], [0, 0])
    """

    #: How many selector tables are kept at most (also at most :attr:`TABLE_BUDGET_BYTES` of them).
    MAX_TABLES = 16384
    #: Memory for selector tables (8 bytes per node each); at least 256 tables are kept.
    TABLE_BUDGET_BYTES = 64 << 20
    #: The log is rebuilt once it exceeds four times the live (node, class) rows plus this.
    LOG_SLACK_ROWS = 4096
    _BY_ARRAYS: "weakref.WeakKeyDictionary[Any, MatchingPodCounts]" = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, arrays: Any) -> "MatchingPodCounts":
        """The index of ``arrays`` (made on first use)."""
        got = cls._BY_ARRAYS.get(arrays)
        if got is None:
            got = cls._BY_ARRAYS[arrays] = cls(arrays)
        return got

    def __init__(self, arrays: Any):
        # A proxy: the index lives in a WeakKeyDictionary keyed by the arrays and must not keep them alive.
        self.arrays = weakref.proxy(arrays)
        self._arrays_ref = weakref.ref(arrays)
        n = len(arrays)
        self._seen = np.full(n, -1, dtype=np.int64)
        self._changes_seen: int | None = None  # SnapshotArrays.changes at the last _sync
        self._node_classes: list[dict[int, int]] = [{} for _ in range(n)]
        self._counted: list[tuple[int, int]] = [(0, -1)] * n  # node -> (pods counted, NodeInfo.generation then)
        self._class_ids: dict[tuple[Any, ...], int] = {}
        self._class_facts: list[tuple[str, bool, Mapping[str, str]]] = []
        self._classes_with: dict[tuple[str, str], list[int]] = {}  # (label key, value) -> class ids, ascending
        self._pod_class = PodMemo()
        self._log = np.zeros((3, 1024), dtype=np.int64)  # node, class, delta
        self._log_len = 0
        self._live = 0  # rows the log would have if rebuilt now
        self._tables: dict[tuple[Any, ...], list[Any]] = {}
        self._domain_tables: dict[tuple[Any, ...], list[Any]] = {}  # see domain_counts
        self._max_tables = min(self.MAX_TABLES, max(256, self.TABLE_BUDGET_BYTES // (8 * max(n, 1))))

    def _class_of(self, p: Any) -> int:
        got = self._pod_class.get(p)
        if got is not None:
            return got
        labels = p.labels
        key = (p.namespace, p.terminating, tuple(sorted(labels.items())))
        c = self._class_ids.get(key)
        if c is None:
            c = self._class_ids[key] = len(self._class_facts)
            self._class_facts.append((p.namespace, p.terminating, dict(labels)))
            with_label = self._classes_with
            for pair in labels.items():
                got = with_label.get(pair)
                if got is None:
                    with_label[pair] = [c]
                else:
                    got.append(c)
        self._pod_class.put(p, c)
        return c

    def _append(self, rows: list[int]) -> None:
        k = len(rows) // 3
        n = self._log_len
        if n + k > self._log.shape[1]:
            grown = np.zeros((3, max(2 * self._log.shape[1], n + k)), dtype=np.int64)
            grown[:, :n] = self._log[:, :n]
            self._log = grown
        log = self._log
        if k <= 4:  # the usual case, one pod placed: skip building an array
            for j in range(k):
                log[0, n + j], log[1, n + j], log[2, n + j] = rows[3 * j:3 * j + 3]
        else:
            log[:, n:n + k] = np.array(rows, dtype=np.int64).reshape(k, 3).T
        self._log_len = n + k

    def _sync(self) -> None:
        """Log the class changes of every node whose pods changed since the last call."""
        stale, self._changes_seen = self.arrays.changed_rows(self._changes_seen, self._seen)
        if not len(stale):
            return
        if self._log_len > 4 * self._live + self.LOG_SLACK_ROWS:
            self._compact()
        infos = self.arrays.node_infos
        class_of, memo = self._class_of, self._pod_class.get
        rows: list[int] = []
        for i in stale.tolist():
            ni = infos[i]
            pods = ni.pods
            counted, generation = self._counted[i]
            self._counted[i] = (len(pods), ni.generation)
            if 0 < counted and ni.generation - generation == len(pods) - counted > 0:
                # Only appended since the last count (every add or remove bumps NodeInfo.generation: as
                # many changes as new pods means no removal): log the new pods alone.
                before = self._node_classes[i]
                added: dict[int, int] = {}
                for p in pods[counted:]:
                    c = memo(p)
                    if c is None:
                        c = class_of(p)
                    added[c] = added.get(c, 0) + 1
                for c, d in added.items():
                    rows += (i, c, d)
                    if c not in before:
                        self._live += 1
                    before[c] = before.get(c, 0) + d
                continue
            now: dict[int, int] = {}
            for p in pods:
                c = memo(p)
                if c is None:
                    c = class_of(p)
                now[c] = now.get(c, 0) + 1
            before = self._node_classes[i]
            if now != before:
                for c, k in now.items():
                    d = k - before.get(c, 0)
                    if d:
                        rows += (i, c, d)
                for c, k in before.items():
                    if c not in now:
                        rows += (i, c, -k)
                self._live += len(now) - len(before)
                self._node_classes[i] = now
        if rows:
            self._append(rows)
        self._pod_class.trim(self.arrays.total_pods)  # forget pods that left

    def _compact(self) -> None:
        """Rebuild the log from the nodes' classes; tables already up to date stay, the others go."""
        old_len = self._log_len
        rows: list[int] = []
        for i, classes in enumerate(self._node_classes):
            for c, k in classes.items():
                rows += (i, c, k)
        self._log_len = 0
        self._live = len(rows) // 3
        if rows:
            self._append(rows)
        for tables in (self._tables, self._domain_tables):
            for key in [k for k, t in tables.items() if t[1] != old_len]:
                del tables[key]
            for t in tables.values():
                t[1] = self._log_len

    def table(self, namespace: str, selector: Any) -> tuple[Any, ...]:
        """A handle on the selector's table, up to date now, for :meth:`count_on`.

        Returns
        -------
        tuple
            Opaque; valid while the table is kept and the log is not rebuilt.
        """
        counts = self.counts(namespace, selector)
        key = (namespace, selector_key(selector))
        return (key, self._tables[key], counts)

    def current(self, handle: tuple[Any, ...]) -> Any:
        """The counts of a :meth:`table` handle if nothing was placed or removed since, else None.

        Returns
        -------
        numpy.ndarray or None
            int64 of shape (n,), as :meth:`counts`; read-only for the caller.
        """
        self._sync()
        return handle[2] if self._has_every_change(handle) else None

    def _has_every_change(self, handle: tuple[Any, ...]) -> bool:
        # The handle's table is still kept and has every logged change.
        key, table, _counts = handle
        return self._tables.get(key) is table and table[1] == self._log_len

    def count_on(self, handle: tuple[Any, ...], node_info: Any) -> int | None:
        """The table's count for ``node_info`` if it is still exact, else None.

        Exact when ``node_info`` is a node of these arrays, its pods have not
        changed since the last sync, and the table has every logged change
        (nothing was placed or removed since :meth:`table`).
        """
        hook = getattr(node_info, "batch_hook", None)
        if hook is None or hook[0] is not self._arrays_ref():
            return None
        arrays, j = hook
        if not self._has_every_change(handle) or self._seen[j] != arrays.pod_generation[j]:
            return None
        return int(handle[2][j])

    def _match_classes(self, namespace: str, selector: Any, start: int) -> Any:
        """Whether ``selector`` (in ``namespace``, not terminating) matches each class from ``start`` on.

        Only the classes carrying one of the values the selector requires of
        some label (:meth:`LabelSelector.required_values`) are tested; the
        others cannot match. Without such a label, every class is.
        """
        facts = self._class_facts
        matches = selector.matches
        required = selector.required_values()
        if required is None:
            return np.fromiter((not term and ns == namespace and matches(labels) for ns, term, labels in facts[start:]),
                               dtype=bool, count=len(facts) - start)
        out = np.zeros(len(facts) - start, dtype=bool)
        key, values = required
        with_label = self._classes_with
        for value in values:
            ids = with_label.get((key, value))
            if not ids:
                continue
            for c in ids[bisect.bisect_left(ids, start):]:
                ns, term, labels = facts[c]
                if not term and ns == namespace and matches(labels):
                    out[c - start] = True
        return out

    def counts(self, namespace: str, selector: Any) -> Any:
        """Per node, its pods in ``namespace``, not terminating, whose labels ``selector`` matches.

        Returns
        -------
        numpy.ndarray
            int64 of shape (n,); read-only for the caller.
        """
        self._sync()
        key = (namespace, selector_key(selector))
        tables = self._tables
        table = tables.pop(key, None)
        if table is None:
            if len(tables) >= self._max_tables:
                del tables[next(iter(tables))]
            table = [np.zeros(len(self.arrays), dtype=np.int64), 0, np.zeros(0, dtype=bool)]
        tables[key] = table  # most recently used last
        counts, pos, match = table
        end = self._log_len
        if pos < end:
            if len(match) < len(self._class_facts):
                match = table[2] = np.concatenate([match, self._match_classes(namespace, selector, len(match))])
            if end - pos <= 8:  # a few pods placed since: row by row
                log = self._log
                for j in range(pos, end):
                    if match[log[1, j]]:
                        counts[log[0, j]] += log[2, j]
                table[1] = end
                return counts
            nodes, classes, deltas = self._log[:, pos:end]
            hit = np.flatnonzero(match[classes])
            if len(hit) > len(counts) // 8:
                # Integer sums well below 2**53: float64 bincount is exact.
                counts += np.bincount(nodes[hit], weights=deltas[hit], minlength=len(counts)).astype(np.int64)
            elif len(hit):
                np.add.at(counts, nodes[hit], deltas[hit])
            table[1] = end
        return counts

    #: How many :meth:`domain_counts` tables are kept (all dropped when full).
    MAX_DOMAIN_TABLES = 4096

    def domain_counts(self, namespace: str, selector: Any, topology_key: str, eligible: Any,
                      eligible_key: Hashable | None) -> Any:
        """Matching pods (as :meth:`counts`) summed per domain of ``topology_key`` over the ``eligible`` nodes.

        Parameters
        ----------
        namespace, selector
            As for :meth:`counts`.
        topology_key : str
            A node label key; domains are its value ids (``SnapshotArrays.label_values``).
        eligible : numpy.ndarray
            bool of shape (n,): the nodes counted.
        eligible_key : hashable or None
            Names ``eligible``: the sums are then kept under it and brought
            up to date from the log, like the per-node tables; None: summed afresh.

        Returns
        -------
        numpy.ndarray
            int64 of shape (values + 1,): entry ``id + 1`` per value id, entry
            0 for nodes without the label. Read-only for the caller.
        """
        counts = self.counts(namespace, selector)
        ids, vocab = self.arrays.label_values(topology_key)
        tkey = (namespace, selector_key(selector))
        key = (tkey, topology_key, eligible_key)
        got = self._domain_tables.get(key) if eligible_key is not None else None
        end = self._log_len
        if got is None:
            sel = eligible & (counts > 0)
            # Integer sums well below 2**53: float64 bincount is exact.
            sums = np.bincount(ids[sel] + 1, weights=counts[sel], minlength=len(vocab) + 1).astype(np.int64)
            if eligible_key is not None:
                if len(self._domain_tables) >= self.MAX_DOMAIN_TABLES:
                    self._domain_tables.clear()
                self._domain_tables[key] = [sums, end]
            return sums
        sums, pos = got
        if pos < end:
            # The log rows counts() just added to the per-node table, on eligible nodes, by domain.
            match = self._tables[tkey][2]
            if end - pos <= 8:
                log = self._log
                for j in range(pos, end):
                    node = log[0, j]
                    if match[log[1, j]] and eligible[node]:
                        sums[ids[node] + 1] += log[2, j]
            else:
                nodes, classes, deltas = self._log[:, pos:end]
                hit = np.flatnonzero(match[classes] & eligible[nodes])
                if len(hit):
                    np.add.at(sums, ids[nodes[hit]] + 1, deltas[hit])
            got[1] = end
        return sums


def _taints_key(node_info: Any) -> str:
    node = node_info.node
    spec = node.spec if node is not None else None
    return repr(spec.taints if spec is not None else None)


def _affinity_keys(spec: Any) -> tuple[tuple[str, ...], bool]:
    """Node label keys read by a pod's nodeSelector and required node affinity, and whether it reads fields."""
    keys = set(spec.nodeSelector or ())
    by_name = False
    na = _get(spec.affinity, "nodeAffinity")
    required = _get(na, "requiredDuringSchedulingIgnoredDuringExecution")
    for t in _get(required, "nodeSelectorTerms") or ():
        for e in _get(t, "matchExpressions") or ():
            keys.add(_get(e, "key"))
        if _get(t, "matchFields"):
            by_name = True
    return tuple(sorted(keys, key=str)), by_name


def node_inclusion_mask(arrays: Any, pod_info: Any, constraint: TopologySpreadConstraint, required: Any) -> Any:
    """Per snapshot node: it has a Node object and passes ``constraint``'s inclusion policies.

    The same predicate as ``node_info.node is not None and
    constraint.match_node_inclusion_policies(pod_info, node_info.node, required)``,
    evaluated once per class of nodes that agree on everything it reads (the
    label values the pod's node affinity names, the name when it uses
    ``matchFields``, the taints when ``nodeTaintsPolicy`` is Honor).

    Returns
    -------
    numpy.ndarray
        bool of shape (n,).
    """
    honor_affinity = constraint.node_affinity_policy == NODE_INCLUSION_POLICY_HONOR and (
        required.label_selector is not None or required.node_selector is not None
        or required.added_node_selector is not None)
    honor_taints = constraint.node_taints_policy == NODE_INCLUSION_POLICY_HONOR
    keys, by_name = _affinity_keys(pod_info.pod.spec) if honor_affinity else ((), False)
    if required.added_node_selector is not None and honor_affinity:
        by_name = True  # the added affinity's keys are not listed: one class per node
    classes = arrays.classes(
        ("PodTopologySpread/inclusion", keys, by_name, honor_taints),
        lambda ni: (ni.node is None, tuple(ni.labels.get(k) for k in keys),
                    ni.name if by_name else "", _taints_key(ni) if honor_taints else ""))

    def included(ni: Any) -> bool:
        if ni.node is None:
            return False
        if honor_affinity and not required.match(ni.node):
            return False
        if honor_taints and has_untolerated_do_not_schedule_taint(ni.node, pod_info.pod):
            return False
        return True

    return arrays.mask_by_class(classes, included, node_inclusion_key(pod_info, constraint, required))


def node_inclusion_key(pod_info: Any, constraint: TopologySpreadConstraint, required: Any) -> Hashable | None:
    """A key equal for pods and constraints with equal :func:`node_inclusion_mask` (None: no such key).

    It names the policies and the pod's fields the predicate reads (its
    node selector and affinity when the affinity policy is Honor, its
    tolerations when the taints policy is); None when the profile adds a
    node affinity of its own.
    """
    if required.added_node_selector is not None:
        return None
    honor_affinity = constraint.node_affinity_policy == NODE_INCLUSION_POLICY_HONOR and (
        required.label_selector is not None or required.node_selector is not None)
    honor_taints = constraint.node_taints_policy == NODE_INCLUSION_POLICY_HONOR
    fields = (("nodeSelector", "affinity") if honor_affinity else ()) + (("tolerations",) if honor_taints else ())
    return ("PodTopologySpread/inclusion", honor_affinity, honor_taints, pod_spec_key(pod_info, fields))
