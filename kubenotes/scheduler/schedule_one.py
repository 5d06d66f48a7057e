"""The scheduling loop: take one pod, find it a node, bind it (``Scheduler.ScheduleOne``).

Mirrors ``pkg/scheduler/schedule_one.go`` and the ``Diagnosis``/``FitError``
types of ``pkg/scheduler/framework/types.go``:

* **schedulingCycle** -- ``schedule_pod`` (PreFilter, the nominated-node fast
  path, Filter over a round-robin window of ``numFeasibleNodesToFind`` nodes,
  PreScore/Score/NormalizeScore, ``selectHost``), PostFilter (preemption) when
  no node fits, then assume + Reserve + Permit;
* **bindingCycle** -- PreBind, Bind, PostBind; Unreserve on failure;
* **handleSchedulingFailure** -- the FailedScheduling message, the pod's
  nomination, and the pod's way back into the queue.

Every attempt yields an :class:`AttemptTrace` (node -> plugin -> result, like
kube-scheduler-simulator's annotations). ``trace=False`` skips building the
per-node dictionaries but takes exactly the same decisions.

Notes
-----
Simplified compared with upstream:

* the scheduler cache is the :class:`~kubenotes.scheduler.snapshot.Snapshot`
  itself: an assumed pod is added to it at once and binding is synchronous;
* Filter and Score run over nodes one after the other (upstream: 16
  goroutines), so the search stops exactly after ``numFeasibleNodesToFind``
  feasible nodes and the round-robin index advances deterministically;
* nodes named by a PreFilterResult are visited in snapshot order (upstream:
  Go map order);
* random draws come from one seeded ``random.Random`` standing for Go's global
  ``math/rand``: one draw per cycle for plugin-metrics sampling, one per tie in
  ``selectHost``, plus the preemption plugin's offset;
* metrics, events other than FailedScheduling, waiting pods (Permit
  ``Wait`` is approved at once) and the API dispatcher are not modelled;
* extenders (:mod:`kubenotes.scheduler.extender`) run only when configured;
  the untraced scheduler then filters and scores node by node (no batch
  Filter/Score), because an extender's verdict on the feasible nodes needs
  the statuses of every rejected node;
* preemption victims are deleted synchronously (upstream v1.34 deletes them
  asynchronously); the preemptor keeps its nomination and is retried after
  the pods already in activeQ.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/types.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/preemption/preemption.go (prepareCandidate)
https://kubernetes.io/docs/concepts/scheduling-eviction/scheduling-framework/
https://kubernetes.io/docs/concepts/scheduling-eviction/scheduler-perf-tuning/
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import msgspec
import numpy as np

from kubenotes.api.qos import pod_qos_class
from kubenotes.gcpolicy import fewer_gc_passes
from kubenotes.scheduler.batch import (
    SnapshotArrays,
    filter_nodes_batch,
    filter_statuses_batch,
    score_nodes_batch,
    select_host_index,
)
from kubenotes.scheduler.extender import (
    EXTENDER_NAME,
    add_extender_scores,
    build_extenders,
    extenders_binding,
    find_nodes_that_pass_extenders,
    ignored_extended_resources,
)
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import PASSED, Code, NominatingInfo, PostFilterResult, Status
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.framework.runtime import Framework, NodePluginScores, NodeToStatus, Registry
from kubenotes.scheduler.queue import ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE, PodNominator, QueuedPodInfo, SchedulingQueue
from kubenotes.scheduler.snapshot import ClusterObjects, Snapshot, new_snapshot

__all__ = [
    "MIN_FEASIBLE_NODES_TO_FIND",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT",
    "PLUGIN_METRICS_SAMPLE_PERCENT",
    "NO_NODE_AVAILABLE_MSG",
    "ERR_NO_NODES_AVAILABLE",
    "NOTE_LENGTH_LIMIT",
    "Diagnosis",
    "FitError",
    "ScheduleResult",
    "AttemptTrace",
    "trace_nodes",
    "trace_plugins",
    "trace_feasible_nodes",
    "Scheduler",
    "num_feasible_nodes_to_find",
    "select_host",
    "truncate_message",
    "new_scheduler",
]

#: At least this many nodes are searched for feasibility (``minFeasibleNodesToFind``).
MIN_FEASIBLE_NODES_TO_FIND = 100
#: Floor of the adaptive percentage (``minFeasibleNodesPercentageToFind``).
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
#: ``selectHost`` returns this many top nodes (``numberOfHighestScoredNodesToReport``).
NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT = 3
#: Percentage of cycles sampled for plugin metrics (``pluginMetricsSamplePercent``).
PLUGIN_METRICS_SAMPLE_PERCENT = 10
#: ``framework.NoNodeAvailableMsg``.
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
#: ``ErrNoNodesAvailable``.
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"
#: An event note longer than this is truncated (``validation.NoteLengthLimit``).
NOTE_LENGTH_LIMIT = 1024
#: The untraced scheduler filters lists of at least this many nodes with batch Filters (kubenotes only).
BATCH_MIN_NODES = 8

_CLEAR_NOMINATED_NODE = NominatingInfo("", "ModeOverride")


# --------------------------------------------------------------------------- diagnosis
@dataclass
class Diagnosis:
    """Why the pod fits nowhere (``framework.Diagnosis``).

    Attributes
    ----------
    node_to_status : NodeToStatus
        Rejected nodes -> status, plus a status for absent nodes.
    unschedulable_plugins : set[str]
        Plugins that returned Unschedulable(AndUnresolvable); the queue uses them.
    pending_plugins : set[str]
    pre_filter_msg, post_filter_msg : str
    batch_rejected : int
        Nodes the untraced batch Filter rejected without building their
        status (kubenotes only). It is non-zero only when some node fits, and
        then the diagnosis is not reported; it keeps the count of processed
        nodes (and so the round-robin index) equal to the per-node path's.
    """

    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""
    batch_rejected: int = 0

    def add_plugin_status(self, s: Status) -> None:
        """Record the plugin of a rejecting status (``AddPluginStatus``)."""
        if not s.plugin:
            return
        if s.is_rejected():
            self.unschedulable_plugins.add(s.plugin)
        if s.code == Code.PENDING:
            self.pending_plugins.add(s.plugin)


@dataclass
class FitError:
    """The pod fits on no node (``framework.FitError``); :meth:`error` is the FailedScheduling text.

    Examples
    --------
    >>> d = Diagnosis()
    >>> d.node_to_status["n1"] = Status.unschedulable("Insufficient cpu")
    >>> d.node_to_status["n2"] = Status.unschedulable("node(s) had untolerated taint {dedicated: gpu}")
    >>> d.node_to_status["n3"] = Status.unschedulable("node(s) had untolerated taint {dedicated: gpu}")
    >>> d.post_filter_msg = "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    >>> FitError(None, 3, d).error()
    '0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'
    """

    pod: Any
    num_all_nodes: int
    diagnosis: Diagnosis

    def error(self) -> str:
        """``0/N nodes are available: <PreFilterMsg or sorted "count reason" histogram>. <PostFilterMsg>``."""
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        d = self.diagnosis
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            reasons: dict[str, int] = {}
            for s in d.node_to_status.values():
                for r in s.reasons:
                    reasons[r] = reasons.get(r, 0) + 1
            n_explicit = len(d.node_to_status)
            if n_explicit < self.num_all_nodes:
                for r in d.node_to_status.absent_nodes_status.reasons:
                    reasons[r] = reasons.get(r, 0) + self.num_all_nodes - n_explicit
            hist = sorted(f"{v} {k}" for k, v in reasons.items())
            if hist:
                msg += f" {', '.join(hist)}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg

    __str__ = error


@dataclass
class ScheduleResult:
    """Outcome of ``schedule_pod`` (``ScheduleResult``).

    Attributes
    ----------
    suggested_host : str
        The chosen node ("" on failure).
    evaluated_nodes : int
        Nodes Filter ran on (feasible plus rejected).
    feasible_nodes : int
    fit_error : FitError or None
        Set when no node fits.
    error : Status or None
        Set for an error (not a fit failure): an Error status, or
        UnschedulableAndUnresolvable ``no nodes available to schedule pods``.
    """

    suggested_host: str = ""
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    fit_error: FitError | None = None
    error: Status | None = None


@dataclass
class AttemptTrace:
    """What happened to one pod in one scheduling attempt.

    Attributes
    ----------
    namespace, name : str
    node_name : str or None
        The node the pod was bound to; None when it was not.
    qos_class : str
    priority : int
    filter : dict[str, dict[str, str]]
        node -> plugin -> ``"passed"`` or the rejection message, for the
        plugins whose Filter ran on the node (in order). A node excluded by a
        PreFilterResult carries ``node(s) didn't satisfy plugin(s) [X]`` under
        each narrowing plugin.
    score : dict[str, dict[str, int]]
        node -> plugin -> Score as returned (before NormalizeScore). Empty when
        one node was feasible (scoring is skipped).
    final_score : dict[str, dict[str, int]]
        node -> plugin -> normalized score x weight.
    total_score : dict[str, int]
        node -> sum of ``final_score``.
    message : str or None
        The FailedScheduling event text, None on success.
    nominated_node_name : str or None
        The pod's nominated node after a failed attempt (set by preemption).
    victims : list[str]
        ``namespace/name`` of the pods preempted in this attempt.
    pre_filter_status, pre_filter_result, post_filter, pre_score, reserve, permit,
    permit_timeout, pre_bind, bind : dict
        The other extension points, shaped like kube-scheduler-simulator's annotations.
    evaluated_nodes, feasible_nodes : int
    attempt : int
        1 for the pod's first attempt.
    """

    namespace: str
    name: str
    node_name: str | None = None
    qos_class: str = ""
    priority: int = 0
    filter: dict[str, dict[str, str]] = field(default_factory=dict)
    score: dict[str, dict[str, int]] = field(default_factory=dict)
    final_score: dict[str, dict[str, int]] = field(default_factory=dict)
    total_score: dict[str, int] = field(default_factory=dict)
    message: str | None = None
    nominated_node_name: str | None = None
    victims: list[str] = field(default_factory=list)
    pre_filter_status: dict[str, str] = field(default_factory=dict)
    pre_filter_result: dict[str, list[str]] = field(default_factory=dict)
    post_filter: dict[str, dict[str, str]] = field(default_factory=dict)
    pre_score: dict[str, str] = field(default_factory=dict)
    reserve: dict[str, str] = field(default_factory=dict)
    permit: dict[str, str] = field(default_factory=dict)
    permit_timeout: dict[str, str] = field(default_factory=dict)
    pre_bind: dict[str, str] = field(default_factory=dict)
    bind: dict[str, str] = field(default_factory=dict)
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    attempt: int = 1

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON record (camelCase keys, exactly the documented set)."""
        return {
            "namespace": self.namespace,
            "name": self.name,
            "nodeName": self.node_name,
            "qosClass": self.qos_class,
            "priority": self.priority,
            "filter": {n: dict(p) for n, p in self.filter.items()},
            "score": {n: dict(p) for n, p in self.score.items()},
            "finalScore": {n: dict(p) for n, p in self.final_score.items()},
            "totalScore": dict(self.total_score),
            "message": self.message,
            "nominatedNodeName": self.nominated_node_name,
            "victims": list(self.victims),
        }


def trace_nodes(record: Mapping[str, Any]) -> list[str]:
    """Node names of a trace record in trace order: Filter's, then any node only scored.

    Parameters
    ----------
    record : mapping
        :meth:`AttemptTrace.to_dict` (``filter``, ``score``).

    Returns
    -------
    list of str

    Raises
    ------
    AttributeError
        When ``record`` is not a mapping.

    See Also
    --------
    trace_plugins, trace_feasible_nodes

    Examples
    --------
    >>> trace_nodes({"filter": {"n1": {}, "n2": {}}, "score": {"n2": {}, "n3": {}}})
    ['n1', 'n2', 'n3']
    """
    seen = dict.fromkeys(record.get("filter") or {})
    for n in record.get("score") or {}:
        seen.setdefault(n, None)
    return list(seen)


def trace_plugins(per_node: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Plugin names of one extension point's trace, in the order they first appear (the framework's run order).

    Parameters
    ----------
    per_node : mapping of str to mapping
        node -> plugin -> verdict or score, e.g. a record's ``filter`` or ``finalScore``.

    Returns
    -------
    list of str

    Raises
    ------
    AttributeError
        When ``per_node`` is not a mapping.
    TypeError
        When a node's entry is not iterable.

    See Also
    --------
    trace_nodes

    Examples
    --------
    >>> trace_plugins({"n1": {"NodeName": "passed"}, "n2": {"NodeName": "passed", "TaintToleration": "passed"}})
    ['NodeName', 'TaintToleration']
    """
    seen: dict[str, None] = {}
    for plugins in per_node.values():
        for p in plugins:
            seen.setdefault(p, None)
    return list(seen)


def trace_feasible_nodes(record: Mapping[str, Any]) -> list[str]:
    """The nodes of a trace record every Filter plugin passed, in trace order.

    Parameters
    ----------
    record : mapping
        :meth:`AttemptTrace.to_dict`.

    Returns
    -------
    list of str
        Nodes whose ``filter`` verdicts are all :data:`~kubenotes.scheduler.framework.interface.PASSED`.

    Raises
    ------
    AttributeError
        When ``record`` or a node's verdicts are not mappings.

    See Also
    --------
    trace_nodes

    Examples
    --------
    >>> trace_feasible_nodes({"filter": {"n1": {"NodeResourcesFit": "Insufficient cpu"},
    ...                                  "n2": {"NodeResourcesFit": "passed"}}})
    ['n2']
    """
    filt = record.get("filter") or {}
    return [n for n in trace_nodes(record) if n in filt and all(v == PASSED for v in filt[n].values())]


# --------------------------------------------------------------------------- helpers
def num_feasible_nodes_to_find(percentage_of_nodes_to_score: int | None, num_all_nodes: int,
                               global_percentage: int = 0) -> int:
    """How many feasible nodes to find before Filter stops (``numFeasibleNodesToFind``).

    Parameters
    ----------
    percentage_of_nodes_to_score : int or None
        The profile's value; None falls back to ``global_percentage``.
    num_all_nodes : int
    global_percentage : int
        The configuration's ``percentageOfNodesToScore``.

    Returns
    -------
    int
        All nodes below 100 nodes; else ``num * pct / 100`` with at least 100,
        where pct 0 means ``max(5, 50 - num/125)``.

    Examples
    --------
    >>> num_feasible_nodes_to_find(None, 99), num_feasible_nodes_to_find(None, 200), num_feasible_nodes_to_find(None, 1000)
    (99, 100, 420)
    >>> num_feasible_nodes_to_find(None, 6000), num_feasible_nodes_to_find(10, 5000), num_feasible_nodes_to_find(None, 5000, 30)
    (300, 500, 1500)
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage_of_nodes_to_score if percentage_of_nodes_to_score is not None else global_percentage
    if pct == 0:
        pct = 50 - num_all_nodes // 125
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    n = num_all_nodes * pct // 100
    return MIN_FEASIBLE_NODES_TO_FIND if n < MIN_FEASIBLE_NODES_TO_FIND else n


def _heap_less(h: list[NodePluginScores], i: int, j: int) -> bool:
    return h[i].total_score > h[j].total_score


def _heap_down(h: list[NodePluginScores], i0: int, n: int) -> None:
    i = i0
    while True:
        j1 = 2 * i + 1
        if j1 >= n:
            break
        j = j1
        j2 = j1 + 1
        if j2 < n and _heap_less(h, j2, j1):
            j = j2
        if not _heap_less(h, j, i):
            break
        h[i], h[j] = h[j], h[i]
        i = j


def _heap_init(h: list[NodePluginScores]) -> None:
    n = len(h)
    for i in range(n // 2 - 1, -1, -1):
        _heap_down(h, i, n)


def _heap_pop(h: list[NodePluginScores]) -> NodePluginScores:
    n = len(h) - 1
    h[0], h[n] = h[n], h[0]
    _heap_down(h, 0, n)
    return h.pop()


def select_host(node_scores: list[NodePluginScores], count: int, rng: random.Random) -> tuple[str, list[NodePluginScores]]:
    """Pick the best node, breaking ties by reservoir sampling (``selectHost``).

    The list is turned into a max-heap on ``total_score`` exactly as Go's
    ``container/heap`` does, then popped: every node tied with the best
    draws ``rng.randrange(k)`` (k = ties seen so far) and replaces the
    choice on 0; popping stops once ``count`` nodes are collected and the
    next node is not tied.

    Parameters
    ----------
    node_scores : list[NodePluginScores]
        At least two entries (with one feasible node there is no scoring).
    count : int
        How many top nodes to return (3 upstream).
    rng : random.Random
        Stands for Go's global ``math/rand`` (``rand.Intn``).

    Returns
    -------
    (str, list[NodePluginScores])
        The selected node and the top ``count`` (the selected one first).

    Raises
    ------
    ValueError
        ``empty priorityList`` when ``node_scores`` is empty.

    Examples
    --------
    >>> ns = [NodePluginScores("a", [], 10), NodePluginScores("b", [], 30), NodePluginScores("c", [], 20)]
    >>> select_host(ns, 3, random.Random(0))[0]
    'b'
    """
    if not node_scores:
        raise ValueError("empty priorityList")
    h = list(node_scores)
    _heap_init(h)
    cnt = 1
    selected = 0
    top = [_heap_pop(h)]
    if h:
        while True:
            ns = _heap_pop(h)
            if ns.total_score != top[0].total_score and len(top) == count:
                break
            if ns.total_score == top[0].total_score:
                cnt += 1
                if rng.randrange(cnt) == 0:
                    selected = cnt - 1
            top.append(ns)
            if not h:
                break
    if selected:
        top[0], top[selected] = top[selected], top[0]
    return top[0].name, top[:count]


def truncate_message(message: str) -> str:
    """Cut an event note to 1024 characters, ending with `` ...`` (``truncateMessage``)."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    suffix = " ..."
    return message[: NOTE_LENGTH_LIMIT - len(suffix)] + suffix


def _qos_class(pod: Any) -> str:
    return pod_qos_class(pod)


def _status_text(s: Status) -> str:
    return "success" if s.is_success() else s.message()


def _nominated_node_name(pod: Any) -> str:
    st = pod.status
    return (st.nominatedNodeName or "") if st is not None else ""


# --------------------------------------------------------------------------- scheduler
class _PodLister:
    """All pods the scheduler knows (pending and bound), by ``namespace/name``."""

    def __init__(self) -> None:
        self.pods: dict[str, PodInfo] = {}

    def get(self, namespace: str, name: str) -> PodInfo | None:
        return self.pods.get(f"{namespace}/{name}")

    def list(self) -> list[PodInfo]:
        return list(self.pods.values())


class Scheduler:
    """One scheduling profile over a snapshot: queue, framework, and the ScheduleOne loop.

    Parameters
    ----------
    snapshot : Snapshot
        Nodes with their bound pods; assumed pods are added to it.
    config : KubeSchedulerConfiguration, optional
        A loaded configuration (:func:`kubenotes.scheduler.config.load_config`);
        the default configuration when None.
    profile : str, optional
        Scheduler name of the profile to use (default: the first profile).
    registry : Registry, optional
        Plugin factories (default: :func:`~kubenotes.scheduler.plugins.registry.in_tree_registry`).
    objects : ClusterObjects, optional
    seed : int
        Seed of the ``random.Random`` standing for Go's ``math/rand``.
    trace : bool
        Build per-node trace dictionaries (False for benchmarks; same decisions).
    extenders : sequence of Extender, optional
        Extenders to call (e.g. :class:`~kubenotes.scheduler.testing.FakeExtender`),
        in place of ``config.extenders`` (whose ``ignoredByScheduler``
        resources then do not apply); default: one
        :class:`~kubenotes.scheduler.extender.HTTPExtender` per
        ``config.extenders`` entry, the ignorable ones last.
    extender_services : mapping of str to object, optional
        ``urlPrefix`` -> in-process service answering that configured
        extender instead of HTTP (see :class:`~kubenotes.scheduler.extender.HTTPExtender`).

    Attributes
    ----------
    framework : Framework
    extenders : list
        The extenders, in the order they are called.
    queue : SchedulingQueue
    rng : random.Random
    next_start_node_index : int
        Where the next Filter search starts (round robin over the snapshot).
    bindings : list[tuple[str, str]]
        ``(namespace/name, node)`` in bind order.
    deleted : list[str]
        ``namespace/name`` of preempted pods, in deletion order.
    traces : list[AttemptTrace]
        Every attempt so far.

    Raises
    ------
    ConfigError
        When the profile cannot be built (unknown plugin, bad args).

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> sched = new_scheduler([make_node("n1"), make_node("n2", allocatable={"cpu": "1", "memory": "1Gi", "pods": "10"})],
    ...                       [make_pod("web", requests={"cpu": "2"})])
    >>> [(t.name, t.node_name, t.filter["n2"]["NodeResourcesFit"]) for t in sched.run()]
    [('web', 'n1', 'Insufficient cpu')]
    """

    def __init__(
        self,
        snapshot: Snapshot,
        *,
        config: Any = None,
        profile: str | None = None,
        registry: Registry | None = None,
        objects: ClusterObjects | None = None,
        seed: int = 0,
        trace: bool = True,
        extenders: Iterable[Any] | None = None,
        extender_services: Mapping[str, Any] | None = None,
    ):
        from kubenotes.scheduler.config import default_config

        if config is None:
            config = default_config()
        if registry is None:
            from kubenotes.scheduler.plugins.registry import in_tree_registry

            registry = in_tree_registry()
        prof = config.profiles[0] if profile is None else config.profile(profile)
        if prof is None:
            from kubenotes.errors import ConfigError

            raise ConfigError(f"profile not found for scheduler name {profile!r}")
        if extenders is None:
            extenders = build_extenders(config.extenders, extender_services) if config.extenders else []
            ignored = ignored_extended_resources(config.extenders)
            if ignored:
                prof = _with_ignored_resources(prof, ignored)
        self.extenders: list[Any] = list(extenders)
        self.config = config
        self.snapshot = snapshot
        self.objects = objects if objects is not None else ClusterObjects()
        self.rng = random.Random(seed)
        self.tracing = trace
        self.percentage_of_nodes_to_score = int(config.percentage_of_nodes_to_score or 0)
        self.next_start_node_index = 0
        self.nominator = PodNominator()
        self.pod_lister = _PodLister()
        for ni in snapshot.list():
            for p in ni.pods:
                self.pod_lister.pods[p.key] = p
        self.bindings: list[tuple[str, str]] = []
        self.deleted: list[str] = []
        self.traces: list[AttemptTrace] = []
        self._deleted_uids: set[str] = set()
        self._current_victims: list[str] | None = None
        self.framework = Framework(
            registry, prof, snapshot=snapshot, objects=self.objects, rng=self.rng, nominator=self.nominator,
            binder=self._record_binding, pod_deleter=self.delete_pod, pod_lister=self.pod_lister,
        )
        self.framework.extenders = self.extenders
        self.scheduler_name = prof.scheduler_name
        self.queue = SchedulingQueue(
            self.framework.queue_sort_func(), self.framework.run_pre_enqueue_plugins,
            pod_initial_backoff_seconds=config.pod_initial_backoff_seconds or 1,
            pod_max_backoff_seconds=config.pod_max_backoff_seconds or 10,
            nominator=self.nominator, sort_key=self.framework.queue_sort_key(),
        )

    # ---------------------------------------------------------------- input
    def responsible_for(self, pod: Any) -> bool:
        """The pod's ``spec.schedulerName`` names this profile (unset means ``default-scheduler``)."""
        return (pod.spec.schedulerName or "default-scheduler") == self.scheduler_name

    def add_pod(self, pod: Any) -> QueuedPodInfo | None:
        """Queue a pending pod of this profile (``PriorityQueue.Add``).

        Parameters
        ----------
        pod : Pod or PodInfo
            Pods with ``spec.nodeName`` or another ``schedulerName`` are ignored.

        Returns
        -------
        QueuedPodInfo or None
        """
        pi = pod if isinstance(pod, PodInfo) else PodInfo(pod)
        if pi.node_name or not self.responsible_for(pi.pod):
            return None
        self.pod_lister.pods[pi.key] = pi
        if _nominated_node_name(pi.pod):
            self.nominator.add_nominated_pod(pi)
        return self.queue.add(pi)

    def add_pods(self, pods: Iterable[Any]) -> None:
        """:meth:`add_pod` for each pod, in order."""
        for p in pods:
            self.add_pod(p)

    # ---------------------------------------------------------------- loop
    def run(self, max_attempts: int | None = None) -> list[AttemptTrace]:
        """Schedule until the queue has nothing left to try.

        Parameters
        ----------
        max_attempts : int, optional
            Stop after this many attempts.

        Returns
        -------
        list[AttemptTrace]
            The attempts of this call, in order (a preempting pod appears again when retried).

        Notes
        -----
        The garbage collector runs less often meanwhile, and leaves the
        objects that exist when the run starts (the loaded cluster) out of
        its passes (:func:`kubenotes.gcpolicy.fewer_gc_passes`).
        """
        out = []
        with fewer_gc_passes(freeze_existing=True):
            while max_attempts is None or len(out) < max_attempts:
                t = self.schedule_one()
                if t is None:
                    break
                out.append(t)
        return out

    def schedule_one(self) -> AttemptTrace | None:
        """Pop one pod and try to schedule and bind it (``ScheduleOne``).

        Returns
        -------
        AttemptTrace or None
            None when the queue has no pod to try.
        """
        q = self.queue.pop()
        if q is None:
            return None
        pod = q.pod_info
        tr = AttemptTrace(pod.namespace, pod.name, qos_class=_qos_class(pod.pod), priority=pod.priority,
                          attempt=q.attempts)
        self.traces.append(tr)
        if pod.terminating:
            tr.message = f"skip schedule deleting pod: {pod.namespace}/{pod.name}"
            self.queue.done(pod.uid)
            return tr
        state = CycleState()
        state.record_plugin_metrics = self.rng.randrange(100) < PLUGIN_METRICS_SAMPLE_PERCENT
        self._current_victims = tr.victims
        try:
            result, assumed, status, nominating = self._scheduling_cycle(state, q, tr)
            if not status.is_success():
                self._handle_scheduling_failure(q, status, result, nominating, tr)
                return tr
            status = self._binding_cycle(state, result, assumed, tr)
            if not status.is_success():
                self._handle_binding_cycle_error(state, q, assumed, result, status, tr)
                return tr
            tr.node_name = result.suggested_host
            tr.nominated_node_name = None
            self.queue.done(pod.uid)
            self.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_ADD, assumed)
            return tr
        finally:
            self._current_victims = None

    # -------------------------------------------------------- scheduling cycle
    def _scheduling_cycle(self, state: CycleState, q: QueuedPodInfo, tr: AttemptTrace):
        fw = self.framework
        pod = q.pod_info
        result = self.schedule_pod(state, pod, tr)
        if result.error is not None:
            return result, None, result.error, _CLEAR_NOMINATED_NODE
        if result.fit_error is not None:
            fe = result.fit_error
            if not fw.has_post_filter_plugins():
                return result, None, Status(Code.UNSCHEDULABLE, [fe.error()]), _CLEAR_NOMINATED_NODE
            record: dict[str, Any] | None = {} if self.tracing else None
            pf_result, pf_status = fw.run_post_filter_plugins(state, pod, fe.diagnosis.node_to_status, record)
            fe.diagnosis.post_filter_msg = pf_status.message()
            nominating = pf_result.nominating_info if pf_result is not None else None
            if pf_status.is_success() and pf_result is not None:
                self._prepare_candidate(pod, pf_result)
            if self.tracing and record:
                self._trace_post_filter(tr, record)
            return result, None, Status(Code.UNSCHEDULABLE, [fe.error()]), nominating

        host = result.suggested_host
        assumed = self._assume(pod, host)
        rec = {} if self.tracing else None
        sts = fw.run_reserve_plugins_reserve(state, assumed, host, rec)
        if rec:
            tr.reserve = rec
        if not sts.is_success():
            fw.run_reserve_plugins_unreserve(state, assumed, host)
            self._forget(assumed, host)
            return result, assumed, self._single_node_rejection(pod, host, sts), _CLEAR_NOMINATED_NODE
        rec, timeouts = ({}, {}) if self.tracing else (None, None)
        sts = fw.run_permit_plugins(state, assumed, host, rec, timeouts)
        if rec:
            tr.permit, tr.permit_timeout = rec, timeouts
        if not sts.is_wait() and not sts.is_success():
            fw.run_reserve_plugins_unreserve(state, assumed, host)
            self._forget(assumed, host)
            return result, assumed, self._single_node_rejection(pod, host, sts), _CLEAR_NOMINATED_NODE
        return result, assumed, Status(), None

    def _single_node_rejection(self, pod: PodInfo, host: str, sts: Status) -> Status:
        if not sts.is_rejected():
            return sts
        d = Diagnosis()
        d.node_to_status[host] = sts
        d.add_plugin_status(sts)
        fe = FitError(pod, 1, d)
        return Status(sts.code, [fe.error()], sts.plugin)

    def schedule_pod(self, state: CycleState, pod: PodInfo, tr: AttemptTrace | None = None) -> ScheduleResult:
        """Find the best node for ``pod`` (``schedulePod``).

        Parameters
        ----------
        state : CycleState
        pod : PodInfo
        tr : AttemptTrace, optional
            Filled with per-node results when the scheduler traces.

        Returns
        -------
        ScheduleResult
            With ``suggested_host``, or ``fit_error`` (no node fits), or ``error``.
        """
        num_nodes = self.snapshot.num_nodes()
        if num_nodes == 0:
            return ScheduleResult(error=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [ERR_NO_NODES_AVAILABLE]))
        feasible, diagnosis, err = self.find_nodes_that_fit_pod(state, pod, tr)
        if err is not None:
            return ScheduleResult(error=err)
        evaluated = len(feasible) + len(diagnosis.node_to_status) + diagnosis.batch_rejected
        if tr is not None:
            tr.evaluated_nodes, tr.feasible_nodes = evaluated, len(feasible)
        if not feasible:
            return ScheduleResult(evaluated_nodes=evaluated, fit_error=FitError(pod, num_nodes, diagnosis))
        if len(feasible) == 1:
            return ScheduleResult(feasible[0].name, 1 + len(diagnosis.node_to_status) + diagnosis.batch_rejected, 1)
        if not (self.tracing and tr is not None) and self.framework.has_score_plugins() and not self.extenders:
            host, err = self._score_and_select_untraced(state, pod, feasible)
            if err is not None:
                return ScheduleResult(error=err)
            return ScheduleResult(host, evaluated, len(feasible))
        scores, err = self.prioritize_nodes(state, pod, feasible, tr)
        if err is not None:
            return ScheduleResult(error=err)
        host, _top = select_host(scores, NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT, self.rng)
        return ScheduleResult(host, evaluated, len(feasible))

    def _score_and_select_untraced(self, state: CycleState, pod: PodInfo, feasible: list[NodeInfo]
                                   ) -> tuple[str, Status | None]:
        """PreScore, Score and selectHost without a trace: batched when every Score plugin allows it."""
        fw = self.framework
        s = fw.run_pre_score_plugins(state, pod, feasible)
        if not s.is_success():
            return "", s
        arrays = self.snapshot.arrays()
        idx = arrays.indices_of(feasible)
        totals = score_nodes_batch(fw, state, pod, arrays, idx) if idx is not None else None
        if totals is None:
            scores, s = fw.run_score_plugins(state, pod, feasible, None, with_plugin_scores=False)
            if not s.is_success():
                return "", s
            host, _top = select_host(scores, NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT, self.rng)
            return host, None
        return feasible[select_host_index(totals, self.rng)].name, None

    def find_nodes_that_fit_pod(self, state: CycleState, pod: PodInfo, tr: AttemptTrace | None = None
                                ) -> tuple[list[NodeInfo], Diagnosis, Status | None]:
        """PreFilter, then Filter over the candidate nodes (``findNodesThatFitPod``).

        Returns
        -------
        (list[NodeInfo], Diagnosis, Status or None)
            Feasible nodes, the diagnosis, and an Error status if one occurred.
        """
        fw = self.framework
        tracing = self.tracing and tr is not None
        diagnosis = Diagnosis()
        all_nodes = self.snapshot.list()
        record: dict[str, Any] | None = {} if tracing else None
        pre_res, s, plugins_with_nodes = fw.run_pre_filter_plugins(state, pod, record)
        if tracing:
            for name, (r, st) in record.items():
                tr.pre_filter_status[name] = _status_text(st)
                if r is not None and not r.all_nodes():
                    tr.pre_filter_result[name] = sorted(r.node_names)
        diagnosis.unschedulable_plugins = set(plugins_with_nodes)
        if not s.is_success():
            if not s.is_rejected():
                return [], diagnosis, s
            diagnosis.node_to_status.set_absent_nodes_status(s)
            diagnosis.pre_filter_msg = s.message()
            diagnosis.add_plugin_status(s)
            return [], diagnosis, None

        nnn = _nominated_node_name(pod.pod)
        if nnn:
            feasible = self._evaluate_nominated_node(state, pod, nnn, diagnosis, tr)
            if feasible:
                return feasible, diagnosis, None

        nodes = all_nodes
        excluded_msg = ""
        if pre_res is not None and not pre_res.all_nodes():
            wanted = pre_res.node_names
            nodes = [ni for ni in all_nodes if ni.name in wanted]
            excluded_msg = f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins_with_nodes))}]"
            diagnosis.node_to_status.set_absent_nodes_status(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [excluded_msg]))
        feasible, err = self.find_nodes_that_pass_filters(state, pod, diagnosis, nodes, tr)
        processed = len(feasible) + len(diagnosis.node_to_status) + diagnosis.batch_rejected
        self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        if tracing and excluded_msg:
            wanted = pre_res.node_names
            for ni in all_nodes:
                if ni.name not in wanted:
                    tr.filter[ni.name] = {p: excluded_msg for p in sorted(plugins_with_nodes)}
        if err is not None:
            return [], diagnosis, err
        if self.extenders:
            n_feasible = len(feasible)
            feasible, err = find_nodes_that_pass_extenders(self.extenders, pod, feasible, diagnosis.node_to_status,
                                                           tr.filter if tracing else None)
            if err is not None:
                return [], diagnosis, err
            if len(feasible) != n_feasible:
                # extenders cannot say which events may help: any cluster event requeues the pod
                diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
        return feasible, diagnosis, None

    def _evaluate_nominated_node(self, state: CycleState, pod: PodInfo, nnn: str, diagnosis: Diagnosis,
                                 tr: AttemptTrace | None) -> list[NodeInfo]:
        ni = self.snapshot.get(nnn)
        if ni is None:
            return []
        saved = self.next_start_node_index
        feasible, err = self.find_nodes_that_pass_filters(state, pod, diagnosis, [ni], tr, start=0)
        self.next_start_node_index = saved
        if err is not None:
            return []
        if self.extenders:
            feasible, err = find_nodes_that_pass_extenders(self.extenders, pod, feasible, diagnosis.node_to_status,
                                                           tr.filter if self.tracing and tr is not None else None)
            if err is not None:
                return []
        return feasible

    def find_nodes_that_pass_filters(self, state: CycleState, pod: PodInfo, diagnosis: Diagnosis,
                                     nodes: list[NodeInfo], tr: AttemptTrace | None = None,
                                     start: int | None = None) -> tuple[list[NodeInfo], Status | None]:
        """Run Filter (with nominated pods) from the round-robin start until enough nodes fit (``findNodesThatPassFilters``).

        Parameters
        ----------
        state : CycleState
        pod : PodInfo
        diagnosis : Diagnosis
            Rejected nodes are added to ``diagnosis.node_to_status``.
        nodes : list[NodeInfo]
        tr : AttemptTrace, optional
        start : int, optional
            Start index (default :attr:`next_start_node_index`).

        Returns
        -------
        (list[NodeInfo], Status or None)
            Feasible nodes in visiting order; an Error status if a Filter failed hard.
        """
        fw = self.framework
        num_all = len(nodes)
        if num_all == 0:
            return [], None
        begin = self.next_start_node_index if start is None else start
        num_to_find = num_feasible_nodes_to_find(fw.percentage_of_nodes_to_score, num_all, self.percentage_of_nodes_to_score)
        if not self._has_extender_filters() and not self._has_scoring():
            num_to_find = 1
        if not fw.has_filter_plugins():
            return [nodes[(begin + i) % num_all] for i in range(num_to_find)], None
        tracing = self.tracing and tr is not None
        if not tracing and num_all >= BATCH_MIN_NODES and not self.extenders:
            found = self._find_feasible_batch(state, pod, diagnosis, nodes, begin, num_to_find)
            if found is not None:
                return found, None
        feasible: list[NodeInfo] = []
        nts = diagnosis.node_to_status
        run = fw.run_filter_plugins_with_nominated_pods
        for i in range(num_all):
            ni = nodes[(begin + i) % num_all]
            if tracing:
                rec: dict[str, str] = {}
                s = run(state, pod, ni, rec)
                tr.filter[ni.name] = rec
            else:
                s = run(state, pod, ni)
            if s.code == Code.SUCCESS:
                feasible.append(ni)
                if len(feasible) >= num_to_find:
                    break
            elif s.code == Code.ERROR:
                return feasible, s
            else:
                nts[ni.name] = s
                diagnosis.add_plugin_status(s)
        return feasible, None

    def _find_feasible_batch(self, state: CycleState, pod: PodInfo, diagnosis: Diagnosis, nodes: list[NodeInfo],
                             begin: int, num_to_find: int) -> list[NodeInfo] | None:
        """The per-node Filter loop done with batch Filters (see :mod:`kubenotes.scheduler.batch`).

        Visits the same round-robin order in growing chunks and stops at the
        same ``num_to_find``-th feasible node. Returns None (the caller then
        runs the per-node loop) when a plugin has no batch form or a Filter
        would fail with an Error. When no node fits, the statuses of all nodes
        come from :func:`~kubenotes.scheduler.batch.filter_statuses_batch`.
        """
        arrays = self.snapshot.arrays()
        num_all = len(nodes)
        begin %= num_all
        if nodes is self.snapshot.list():
            order = arrays.arange_twice[begin:begin + num_all]  # the nodes from begin on, wrapping: a view
        else:
            pos = arrays.indices_of(nodes)
            if pos is None:
                return None
            order = np.concatenate((pos[begin:], pos[:begin])) if begin else pos
        found: list[np.ndarray] = []
        firsts: list[tuple[list[Any], np.ndarray]] = []
        n_found = 0
        processed = num_all
        offset = 0
        chunk = max(2 * num_to_find, 256)
        while offset < num_all:
            part = order[offset:offset + chunk]
            mask = filter_nodes_batch(self.framework, state, pod, arrays, part, firsts)
            if mask is None:
                return None
            hits = np.flatnonzero(mask)
            if n_found + len(hits) >= num_to_find:
                hits = hits[:num_to_find - n_found]
                found.append(part[hits])
                n_found = num_to_find
                processed = offset + int(hits[-1]) + 1
                break
            found.append(part[hits])
            n_found += len(hits)
            offset += len(part)
            chunk *= 2
        if n_found == 0:
            first = (firsts[0][0], np.concatenate([f for _pl, f in firsts]) if len(firsts) > 1 else firsts[0][1])
            statuses = filter_statuses_batch(self.framework, state, pod, arrays, order, first)
            if statuses is None:
                return None
            infos = arrays.node_infos
            diagnosis.node_to_status.update(zip([infos[i].name for i in order.tolist()], statuses))
            for st in {id(st): st for st in statuses}.values():
                diagnosis.add_plugin_status(st)
            return []
        feasible_idx = np.concatenate(found) if len(found) > 1 else found[0]
        rejected = processed - n_found
        nts = diagnosis.node_to_status
        if nts:
            # The per-node loop overwrites a status already in the map (the nominated node's).
            window = set(order[:processed].tolist()) - set(feasible_idx.tolist())
            rejected -= sum(1 for name in nts if arrays.index.get(name) in window)
        diagnosis.batch_rejected += rejected
        feasible = arrays.node_infos_at(feasible_idx)
        arrays.remember_indices(feasible, feasible_idx)
        return feasible

    def prioritize_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo], tr: AttemptTrace | None = None
                         ) -> tuple[list[NodePluginScores], Status | None]:
        """PreScore, Score, NormalizeScore and weights over the feasible nodes (``prioritizeNodes``).

        Returns
        -------
        (list[NodePluginScores], Status or None)
            Every node scores 1 when no Score plugin is enabled and no
            extender is configured. The extenders' scaled scores are added
            to the plugins' (under the extender's name).
        """
        fw = self.framework
        if not self.extenders and not fw.has_score_plugins():
            return [NodePluginScores(n.name, [], 1) for n in nodes], None
        tracing = self.tracing and tr is not None
        rec: dict[str, str] | None = {} if tracing else None
        s = fw.run_pre_score_plugins(state, pod, nodes, rec)
        if tracing:
            tr.pre_score = rec
        if not s.is_success():
            return [], s
        raw: dict[str, dict[str, int]] | None = {} if tracing else None
        scores, s = fw.run_score_plugins(state, pod, nodes, raw, with_plugin_scores=tracing)
        if not s.is_success():
            return [], s
        if self.extenders:
            add_extender_scores(self.extenders, pod, nodes, scores, raw)
        if tracing:
            tr.score = raw
            tr.final_score = {nps.name: {ps.name: ps.score for ps in nps.scores} for nps in scores}
            tr.total_score = {nps.name: nps.total_score for nps in scores}
        return scores, None

    def _has_scoring(self) -> bool:
        """A Score plugin is enabled or an extender prioritizes (``hasScoring``)."""
        return self.framework.has_score_plugins() or (bool(self.extenders) and any(e.is_prioritizer() for e in self.extenders))

    def _has_extender_filters(self) -> bool:
        """An extender has a filter verb (``hasExtenderFilters``)."""
        return bool(self.extenders) and any(e.is_filter() for e in self.extenders)

    # ----------------------------------------------------------- assume etc.
    def _assume(self, pod: PodInfo, host: str) -> PodInfo:
        assumed = pod.__copy__()  # copy.copy's dispatch, skipped
        assumed.pod = msgspec.structs.replace(pod.pod, spec=msgspec.structs.replace(pod.pod.spec, nodeName=host))
        assumed.node_name = host
        self.snapshot.add_pod(assumed, host)
        self.nominator.delete_nominated_pod_if_exists(pod)
        self.pod_lister.pods[assumed.key] = assumed
        return assumed

    def _forget(self, assumed: PodInfo, host: str) -> None:
        self.snapshot.remove_pod(assumed, host)
        original = copy.copy(assumed)
        original.pod = msgspec.structs.replace(assumed.pod, spec=msgspec.structs.replace(assumed.pod.spec, nodeName=None))
        original.node_name = ""
        self.pod_lister.pods[assumed.key] = original

    def _record_binding(self, pod: PodInfo, node_name: str) -> None:
        self.bindings.append((pod.key, node_name))

    def delete_pod(self, pod: PodInfo) -> None:
        """Delete a bound pod (a preemption victim): it leaves the snapshot, and an AssignedPodDelete event fires.

        Deleting a pod twice is a no-op.
        """
        if pod.uid in self._deleted_uids:
            return
        self._deleted_uids.add(pod.uid)
        node = self.snapshot.get(pod.node_name) if pod.node_name else None
        if node is not None and any(p.uid == pod.uid for p in node.pods):
            self.snapshot.remove_pod(pod, pod.node_name)
        self.pod_lister.pods.pop(pod.key, None)
        self.queue.delete(pod)
        self.deleted.append(pod.key)
        if self._current_victims is not None:
            self._current_victims.append(pod.key)
        self.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, pod)

    def _prepare_candidate(self, pod: PodInfo, result: PostFilterResult) -> None:
        """Delete the victims and clear lower-priority nominations on the node (``prepareCandidate``)."""
        for v in result.victims:
            self.delete_pod(v)
        node = result.nominating_info.nominated_node_name if result.nominating_info is not None else ""
        if not node:
            return
        for p in self.nominator.nominated_pods_for_node(node):
            if p.priority < pod.priority:
                self.nominator.delete_nominated_pod_if_exists(p)
                self._set_nominated_node_name(p, "")

    def _set_nominated_node_name(self, pod: PodInfo, node: str) -> None:
        """Patch ``status.nominatedNodeName`` on a copy of the pod (the caller's object is never changed)."""
        st = pod.pod.status
        if st is None:
            from lightkube.models.core_v1 import PodStatus

            new_status = PodStatus(nominatedNodeName=node or None)
        else:
            new_status = msgspec.structs.replace(st, nominatedNodeName=node or None)
        pod.pod = msgspec.structs.replace(pod.pod, status=new_status)

    def _trace_post_filter(self, tr: AttemptTrace, record: Mapping[str, Any]) -> None:
        names = [ni.name for ni in self.snapshot.list()]
        out: dict[str, dict[str, str]] = {n: {} for n in names}
        for plugin, (r, _s) in record.items():
            ni = r.nominating_info if r is not None else None
            if ni is not None and ni.nominated_node_name in out:
                out[ni.nominated_node_name][plugin] = "preemption victim"
        tr.post_filter = out

    # ---------------------------------------------------------- binding cycle
    def _binding_cycle(self, state: CycleState, result: ScheduleResult, assumed: PodInfo, tr: AttemptTrace) -> Status:
        fw = self.framework
        host = result.suggested_host
        rec = {} if self.tracing else None
        s = fw.run_pre_bind_plugins(state, assumed, host, rec)
        if rec:
            tr.pre_bind = rec
        if not s.is_success():
            return s
        bound = False
        if self.extenders:
            rec = {} if self.tracing else None
            bound, s = extenders_binding(self.extenders, assumed, host, rec)
            if rec:
                tr.bind = rec
            if bound and s.is_success() and fw.binder is not None:
                try:
                    fw.binder(assumed, host)  # the extender made the binding; the model records it
                except Exception as e:  # an API error, as DefaultBinder reports it
                    s = Status.error(str(e))
        if not bound:
            rec = {} if self.tracing else None
            s = fw.run_bind_plugins(state, assumed, host, rec)
            if rec:
                tr.bind = rec
        if not s.is_success():
            return s
        fw.run_post_bind_plugins(state, assumed, host)
        return Status()

    def _handle_binding_cycle_error(self, state: CycleState, q: QueuedPodInfo, assumed: PodInfo,
                                    result: ScheduleResult, status: Status, tr: AttemptTrace) -> None:
        host = result.suggested_host
        self.framework.run_reserve_plugins_unreserve(state, assumed, host)
        self._forget(assumed, host)
        self.queue.move_all_to_active_or_backoff_queue(
            ASSIGNED_POD_DELETE, assumed, pre_check=lambda other: other.pod_info.uid != assumed.uid)
        self._handle_scheduling_failure(q, status, result, _CLEAR_NOMINATED_NODE, tr)

    # --------------------------------------------------------------- failure
    def _handle_scheduling_failure(self, q: QueuedPodInfo, status: Status, result: ScheduleResult | None,
                                   nominating: NominatingInfo | None, tr: AttemptTrace) -> None:
        pod = q.pod_info
        fe = result.fit_error if result is not None else None
        if fe is not None:
            q.unschedulable_plugins = set(fe.diagnosis.unschedulable_plugins)
            q.pending_plugins = set(fe.diagnosis.pending_plugins)
        elif status.is_rejected() and status.plugin:
            q.unschedulable_plugins = {status.plugin}
        else:
            q.unschedulable_plugins = set()
        current = self.pod_lister.get(pod.namespace, pod.name)
        if current is not None and not current.node_name:
            self.queue.add_unschedulable_if_not_present(q, error=not status.is_rejected())
        else:
            self.queue.done(pod.uid)
        self.nominator.add_nominated_pod(pod, nominating)
        if nominating is not None and nominating.mode == "ModeOverride" \
                and _nominated_node_name(pod.pod) != nominating.nominated_node_name:
            self._set_nominated_node_name(pod, nominating.nominated_node_name)
        tr.message = truncate_message(status.message())
        tr.nominated_node_name = _nominated_node_name(pod.pod) or None

    # --------------------------------------------------------------- queries
    def gated_traces(self) -> list[AttemptTrace]:
        """A trace (no attempt made) for each pod still held back by a PreEnqueue plugin.

        ``message`` is that plugin's message, e.g. ``waiting for scheduling gates: [foo]``.
        """
        out = []
        for q in self.queue.gated_pods():
            p = q.pod_info
            out.append(AttemptTrace(p.namespace, p.name, qos_class=_qos_class(p.pod), priority=p.priority,
                                    message=q.gating_status.message() if q.gating_status else None, attempt=0))
        return out


def _with_ignored_resources(profile: Any, ignored: list[str]) -> Any:
    """A copy of ``profile`` whose NodeResourcesFit args ignore the extenders' resources (``buildExtenders``)."""
    from kubenotes.errors import ConfigError

    prof = copy.deepcopy(profile)
    for pc in prof.plugin_config:
        if pc.name == "NodeResourcesFit":
            pc.args = dict(pc.args or {}, ignoredResources=list(ignored))
            return prof
    raise ConfigError("can't find NodeResourcesFitArgs in plugin config")


def new_scheduler(
    nodes: Iterable[Any],
    pods: Iterable[Any],
    *,
    config: Any = None,
    objects: ClusterObjects | None = None,
    registry: Registry | None = None,
    seed: int = 0,
    trace: bool = True,
    warn: Callable[[str], None] | None = None,
    extenders: Iterable[Any] | None = None,
    extender_services: Mapping[str, Any] | None = None,
) -> Scheduler:
    """Build a :class:`Scheduler` from lightkube Nodes and Pods.

    Pods with ``spec.nodeName`` are running (added to the snapshot; one bound
    to an unknown node is ignored and reported through ``warn``); the others
    are queued, in the given order, when their ``schedulerName`` matches the
    (first) profile.

    Parameters
    ----------
    nodes : iterable of Node
    pods : iterable of Pod
    config : KubeSchedulerConfiguration, optional
    objects : ClusterObjects, optional
    registry : Registry, optional
    seed : int
    trace : bool
    warn : callable(str), optional
    extenders, extender_services : optional
        See :class:`Scheduler`.

    Returns
    -------
    Scheduler

    Raises
    ------
    ConfigError
        When the profile cannot be built.
    FieldError
        When a quantity in a node or pod is malformed.
    
    Examples
    --------
    >>> from lightkube.models.core_v1 import Container, Node, NodeStatus, Pod, PodSpec, ResourceRequirements
    >>> from lightkube.models.meta_v1 import ObjectMeta
    >>> node = Node(metadata=ObjectMeta(name="n1", labels={"kubernetes.io/hostname": "n1"}),
    ...             status=NodeStatus(allocatable={"cpu": "2", "memory": "4Gi", "pods": "110"}))
    >>> pod = Pod(metadata=ObjectMeta(name="web", namespace="default", uid="u1"),
    ...           spec=PodSpec(containers=[Container(name="c", resources=ResourceRequirements(
    ...               requests={"cpu": "500m"}))]))
    >>> [(a.name, a.node_name, a.qos_class, a.feasible_nodes) for a in new_scheduler([node], [pod], seed=0).run()]
    [('web', 'n1', 'Burstable', 1)]
    """
    pods = [p if isinstance(p, PodInfo) else PodInfo(p) for p in pods]
    snap = new_snapshot(nodes, [p for p in pods if p.node_name], warn=warn)
    sched = Scheduler(snap, config=config, objects=objects, registry=registry, seed=seed, trace=trace,
                      extenders=extenders, extender_services=extender_services)
    for p in pods:
        if not p.node_name:
            sched.add_pod(p)
    return sched
