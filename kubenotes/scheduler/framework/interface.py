"""The scheduling framework's vocabulary: status codes, statuses, scores and plugin protocols.

Mirrors ``pkg/scheduler/framework/interface.go`` of kube-scheduler. Plugins are
plain classes implementing one or more of the protocols below; a plugin's
``name()`` is its upstream name (``"NodeResourcesFit"``). Every method receives
the :class:`~kubenotes.scheduler.framework.cycle_state.CycleState` of the
current scheduling cycle and a :class:`~kubenotes.scheduler.framework.node_info.PodInfo`
(upstream passes ``*v1.Pod``; ``pod_info.pod`` is that object).

Expected outcomes are values: a plugin returns a :class:`Status`, never ``None``
and never raises for "does not fit".

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kube-scheduler/framework/interface.go
KEP-624 (scheduling framework)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "MAX_TOTAL_SCORE",
    "Code",
    "Status",
    "NodeScore",
    "PreFilterResult",
    "PostFilterResult",
    "NominatingInfo",
    "Plugin",
    "PreEnqueuePlugin",
    "QueueSortPlugin",
    "PreFilterPlugin",
    "PreFilterExtensions",
    "FilterPlugin",
    "PostFilterPlugin",
    "PreScorePlugin",
    "ScorePlugin",
    "ScoreExtensions",
    "ReservePlugin",
    "PermitPlugin",
    "PreBindPlugin",
    "BindPlugin",
    "PostBindPlugin",
    "Handle",
    "ADD",
    "DELETE",
    "UPDATE_NODE_ALLOCATABLE",
    "UPDATE_NODE_LABEL",
    "UPDATE_NODE_TAINT",
    "UPDATE_NODE_CONDITION",
    "UPDATE_NODE_ANNOTATION",
    "PASSED",
    "PHASES",
    "EXTENSION_POINT_FLOW",
    "LEGACY_VIEW",
    "extension_points_graph",
]

# ``fwk.ActionType`` of a cluster event on a Node (pkg/scheduler/framework/types.go, v1.34): what a plugin's
# EventsToRegister names and what the scheduler's node handler reports (NodeSchedulingPropertiesChange).
#: A Node was added.
ADD = "Add"
#: A Node was deleted.
DELETE = "Delete"
#: ``status.allocatable`` changed.
UPDATE_NODE_ALLOCATABLE = "UpdateNodeAllocatable"
#: ``metadata.labels`` changed.
UPDATE_NODE_LABEL = "UpdateNodeLabel"
#: ``spec.taints`` or ``spec.unschedulable`` changed.
UPDATE_NODE_TAINT = "UpdateNodeTaint"
#: ``status.conditions`` changed (heartbeat times aside).
UPDATE_NODE_CONDITION = "UpdateNodeCondition"
#: ``metadata.annotations`` changed.
UPDATE_NODE_ANNOTATION = "UpdateNodeAnnotation"

#: Highest score a Score plugin may return after NormalizeScore.
MAX_NODE_SCORE = 100
#: Lowest score.
MIN_NODE_SCORE = 0
#: Upper bound of a weighted node total (``math.MaxInt64``).
MAX_TOTAL_SCORE = 2**63 - 1


class Code(enum.IntEnum):
    """Status codes of ``framework.Code``; ``str()`` gives upstream's spelling.

    Examples
    --------
    >>> str(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    'UnschedulableAndUnresolvable'
    """

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    def __str__(self) -> str:
        return _CODE_NAMES[self]


_CODE_NAMES = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}
_SKIP = Code.SKIP
_new_object = object.__new__


@dataclass(slots=True)
class Status:
    """Result of running a plugin, as ``framework.Status``.

    Parameters
    ----------
    code : Code
        Outcome; ``Code.SUCCESS`` by default.
    reasons : list[str]
        Upstream reason strings (``"Insufficient cpu"``), in order.
    plugin : str
        Name of the plugin that returned a non-success status (set by the
        framework when empty).

    Returns
    -------
    Status
        A value: plugins return it instead of raising (``is_success``, ``is_rejected``, ``message`` read it).

    Raises
    ------
    Nothing of its own: fields are not checked, so a ``code`` that is not a :class:`Code` only fails where
    the status is read (``str()`` or ``is_rejected`` then raise ``AttributeError``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go (Status, Code)

    Examples
    --------
    >>> s = Status(Code.UNSCHEDULABLE, ["Insufficient cpu", "Insufficient memory"])
    >>> s.is_rejected(), s.message()
    (True, 'Insufficient cpu, Insufficient memory')
    >>> Status().is_success()
    True
    """

    code: Code = Code.SUCCESS
    reasons: list[str] = field(default_factory=list)
    plugin: str = ""

    @classmethod
    def unschedulable(cls, *reasons: str, unresolvable: bool = False) -> "Status":
        """Shorthand for an ``Unschedulable`` (or ``UnschedulableAndUnresolvable``) status."""
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE, list(reasons))

    @classmethod
    def error(cls, message: str) -> "Status":
        """An ``Error`` status carrying ``message``."""
        return cls(Code.ERROR, [message])

    @classmethod
    def skip(cls) -> "Status":
        """A ``Skip`` status (PreFilter/PreScore: do not run this plugin's Filter/Score)."""
        # Most pods skip several plugins: the fields are set without the generated __init__ (half the time).
        s = _new_object(cls)
        s.code = _SKIP
        s.reasons = []
        s.plugin = ""
        return s

    def is_success(self) -> bool:
        """True for ``Success``."""
        return self.code == Code.SUCCESS

    def is_wait(self) -> bool:
        """True for ``Wait``."""
        return self.code == Code.WAIT

    def is_skip(self) -> bool:
        """True for ``Skip``."""
        return self.code == Code.SKIP

    def is_rejected(self) -> bool:
        """True for ``Unschedulable``, ``UnschedulableAndUnresolvable`` or ``Pending``."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def message(self) -> str:
        """Reasons joined by ``", "`` (``Status.Message()``)."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> "Status":
        """Set the failed plugin's name (``Status.WithPlugin``) and return self."""
        self.plugin = plugin
        return self


@dataclass(slots=True)
class NodeScore:
    """A node's score from one Score plugin (``framework.NodeScore``)."""

    name: str
    score: int


@dataclass(slots=True)
class PreFilterResult:
    """Nodes a PreFilter plugin narrows the search to (``framework.PreFilterResult``).

    ``node_names is None`` means all nodes are eligible.

    Examples
    --------
    >>> PreFilterResult({"a", "b"}).merge(PreFilterResult({"b", "c"})).node_names
    {'b'}
    >>> PreFilterResult(None).all_nodes()
    True
    """

    node_names: set[str] | None = None

    def all_nodes(self) -> bool:
        """True when the result does not restrict nodes."""
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        """Intersection of two results (``PreFilterResult.Merge``)."""
        if other is None or other.all_nodes():
            return PreFilterResult(None if self.node_names is None else set(self.node_names))
        if self.all_nodes():
            return PreFilterResult(set(other.node_names))
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(slots=True)
class NominatingInfo:
    """Where a preempting pod is nominated (``framework.NominatingInfo``)."""

    nominated_node_name: str = ""
    mode: str = "ModeOverride"


@dataclass(slots=True)
class PostFilterResult:
    """Outcome of PostFilter (preemption): the nomination and the victims chosen.

    Attributes
    ----------
    nominating_info : NominatingInfo or None
        Node the pod is nominated to, when preemption succeeded.
    victims : list[PodInfo]
        Pods deleted to make room (kubenotes records them for the trace).
    """

    nominating_info: NominatingInfo | None = None
    victims: list[Any] = field(default_factory=list)


@runtime_checkable
class Plugin(Protocol):
    """Every plugin has an upstream name."""

    def name(self) -> str: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Gate a pod before it enters the active queue (e.g. SchedulingGates)."""

    def pre_enqueue(self, pod: "PodInfo") -> Status: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    """Order pods in the scheduling queue; exactly one per profile."""

    def less(self, a: "PodInfo", b: "PodInfo") -> bool: ...


class PreFilterExtensions(Protocol):
    """Incremental updates of PreFilter state when pods are added/removed (used by preemption)."""

    def add_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_add: "PodInfo", node_info: "NodeInfo") -> Status: ...

    def remove_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_remove: "PodInfo", node_info: "NodeInfo") -> Status: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    """Precompute per-cycle state, optionally narrow the node set, or Skip this plugin's Filter."""

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    """Decide whether the pod can run on one node (predicates, 预选)."""

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status: ...


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    """Runs when no node is feasible; DefaultPreemption lives here."""

    def post_filter(self, state: "CycleState", pod: "PodInfo", filtered_node_status_map: dict[str, Status]) -> tuple[PostFilterResult | None, Status]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    """Precompute scoring state over the feasible nodes, or Skip this plugin's Score."""

    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status: ...


class ScoreExtensions(Protocol):
    """NormalizeScore: rescale one plugin's scores over all feasible nodes in place."""

    def normalize_score(self, state: "CycleState", pod: "PodInfo", scores: list[NodeScore]) -> Status: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    """Rank a feasible node (priorities, 优选); integers, [0, 100] after normalization."""

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]: ...

    def score_extensions(self) -> ScoreExtensions | None: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    """Reserve resources for the chosen node; Unreserve rolls back on later failure."""

    def reserve(self, state: "CycleState", pod: "PodInfo", node_name: str) -> Status: ...

    def unreserve(self, state: "CycleState", pod: "PodInfo", node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    """Approve, deny or delay (Wait, with a timeout in seconds) the binding."""

    def permit(self, state: "CycleState", pod: "PodInfo", node_name: str) -> tuple[Status, float]: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    """Work before binding (e.g. provisioning volumes)."""

    def pre_bind(self, state: "CycleState", pod: "PodInfo", node_name: str) -> Status: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    """Bind the pod to the node (``pods/binding``); Skip passes to the next Bind plugin."""

    def bind(self, state: "CycleState", pod: "PodInfo", node_name: str) -> Status: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    """Informational hook after a successful bind."""

    def post_bind(self, state: "CycleState", pod: "PodInfo", node_name: str) -> None: ...


class Handle(Protocol):
    """What the framework offers plugins (``framework.Handle``), passed to every plugin factory.

    Attributes
    ----------
    snapshot : Snapshot
        The cycle's node snapshot: ``list()``, ``get(name)``,
        ``have_pods_with_affinity_list()``, ``have_pods_with_required_anti_affinity_list()``.
    objects : ClusterObjects
        Read-only lists of the other API objects (services, replica sets, PVCs,
        PVs, storage classes, namespaces, PDBs) for plugins that need them.
    """

    snapshot: Any
    objects: Any

    def run_filter_plugins_with_nominated_pods(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status: ...

    def run_pre_score_plugins(self, state: "CycleState", pod: "PodInfo", nodes: Iterable["NodeInfo"]) -> Status: ...


# ---------------------------------------------------------------------------
# the extension points in the order a pod meets them

#: The Filter trace value of a plugin that let the node through.
PASSED = "passed"

#: The three phases a pod goes through, with their extension points in run order
#: (``pkg/scheduler/framework/interface.go``; NormalizeScore is part of a Score plugin).
PHASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("scheduling queue", ("PreEnqueue", "QueueSort")),
    ("scheduling cycle", ("PreFilter", "Filter", "PostFilter", "PreScore", "Score", "NormalizeScore",
                          "Reserve", "Permit")),
    ("binding cycle", ("PreBind", "Bind", "PostBind")),
)

#: Every extension point in the order a pod meets it.
EXTENSION_POINT_FLOW: tuple[str, ...] = tuple(p for _, pts in PHASES for p in pts)

#: The pre-framework view (scheduler policy API, removed in v1.23): predicates
#: became Filter (with PreFilter precomputation), priorities became Score.
LEGACY_VIEW: dict[str, tuple[str, ...]] = {
    "predicates (filter)": ("PreFilter", "Filter"),
    "priorities (score)": ("PreScore", "Score", "NormalizeScore"),
}


def extension_points_graph(plugins_by_point: Mapping[str, Sequence[str]] | None = None) -> nx.DiGraph:
    """The scheduling framework's extension points as a directed graph, in the order a pod meets them.

    Parameters
    ----------
    plugins_by_point : mapping of str to list of str, optional
        Extension point -> enabled plugin names in run order, e.g.
        ``Framework.list_plugins()`` of a profile. ``NormalizeScore`` is
        filled from ``Score`` when absent (every Score plugin may normalize).

    Returns
    -------
    networkx.DiGraph
        One graph node per extension point (upstream CamelCase name) with
        attributes ``phase`` (see :data:`PHASES`), ``legacy`` (the old
        predicates/priorities view or "") and ``plugins`` (list of str). Edges
        follow the flow; ``Filter -> PostFilter`` carries ``when="no feasible
        node"`` and ``Filter -> PreScore`` ``when="feasible nodes"``;
        ``PostFilter`` has no successor (the pod goes back to the queue with a
        nominated node, or stays unschedulable).

    See Also
    --------
    kubenotes.viz.scheduler.extension_points_figure : draws it.

    Notes
    -----
    Upstream's diagram also shows the ``Unreserve`` rollback and the
    ``WaitOnPermit`` step that begins the binding cycle; they are left out.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go
    https://kubernetes.io/docs/concepts/scheduling-eviction/scheduling-framework/

    Examples
    --------
    >>> g = extension_points_graph({"Filter": ["NodeName", "TaintToleration"]})
    >>> list(g.successors("Filter")), g.nodes["Filter"]["legacy"], g.nodes["Filter"]["plugins"]
    (['PostFilter', 'PreScore'], 'predicates (filter)', ['NodeName', 'TaintToleration'])
    """
    import networkx as nx

    plugins = {k: list(v) for k, v in (plugins_by_point or {}).items()}
    plugins.setdefault("NormalizeScore", list(plugins.get("Score", [])))
    g = nx.DiGraph()
    for phase, points in PHASES:
        for p in points:
            legacy = next((k for k, v in LEGACY_VIEW.items() if p in v), "")
            g.add_node(p, phase=phase, legacy=legacy, plugins=plugins.get(p, []))
    flow = [p for p in EXTENSION_POINT_FLOW if p != "PostFilter"]
    for a, b in zip(flow, flow[1:]):
        if a == "Filter":
            g.add_edge("Filter", "PostFilter", when="no feasible node")
        g.add_edge(a, b, when="feasible nodes" if a == "Filter" else "")
    return g
