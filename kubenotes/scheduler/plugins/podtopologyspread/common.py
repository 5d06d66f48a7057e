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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterable

from kubenotes.api.meta import get_controller_of
from kubenotes.api.selectors import LabelSelector
from kubenotes.api.taints import tolerations_tolerate_taint

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
