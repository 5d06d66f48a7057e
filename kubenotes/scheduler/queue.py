"""The scheduling queue: activeQ, backoffQ, the unschedulable pool, and nominated pods.

Mirrors ``pkg/scheduler/backend/queue`` (``PriorityQueue`` in
``scheduling_queue.go``, the ``nominator`` in ``nominator.go``,
``QueuedPodInfo`` in ``pkg/scheduler/framework/types.go``):

* **activeQ** is a heap ordered by the profile's QueueSort ``less`` (PrioritySort:
  priority, then queue timestamp); :meth:`SchedulingQueue.pop` takes its head;
* a pod whose attempt failed goes to **backoffQ** when a cluster event seen
  while it was being scheduled may help it (or it failed with an error), else to
  the **unschedulable pool**;
* :meth:`SchedulingQueue.move_all_to_active_or_backoff_queue` moves pooled
  pods back when an event may make them schedulable;
* when activeQ is empty, ``pop`` takes the head of backoffQ even before its
  backoff expired (``SchedulerPopFromBackoffQ``, on by default since v1.33);
* **PreEnqueue** plugins (SchedulingGates) keep gated pods in the pool;
* the :class:`PodNominator` tracks pods nominated to nodes by preemption.

Notes
-----
QueueingHints (locked on in v1.34) for **Node** events are those of
NodeResourcesFit, TaintToleration and NodeUnschedulable
(:data:`NODE_EVENT_HINTS`, :func:`is_pod_worth_requeuing_after_node_event`):
a pod they rejected is requeued by a Node add or update only when their hint
says the change may help (a node with room for it, a taint it now tolerates, an
uncordon); a node turning ``Unknown`` or gaining a NoExecute taint requeues
none of them. A pod another in-tree plugin rejected is requeued by every node
change the scheduler reads (those plugins' node hints are not modelled). For
assigned pods being added or deleted, hints are approximated by a table of
which plugins care (:data:`POD_EVENT_INTERESTS`); a plugin not in the table
(e.g. an out-of-tree one) is interested in every event, as upstream's
``defaultEnqueueExtension``. The five-minute flush of the
unschedulable pool is not modelled: a static run ends before it. A pod that
failed with an error is retried once per cluster event instead of forever.
Time is a simulated clock in seconds that never runs by itself.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/backend/queue/scheduling_queue.go (isPodWorthRequeuing)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/events.go (NodeSchedulingPropertiesChange)
kubernetes/kubernetes@v1.34.0 test/integration/scheduler/queueing/queue_test.go (TestCoreResourceEnqueue)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/backend/queue/nominator.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/types.go
KEP-4247 (QueueingHint), KEP-3521 (scheduling gates)
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from kubenotes.scheduler.framework.interface import (
    ADD,
    UPDATE_NODE_ALLOCATABLE,
    UPDATE_NODE_ANNOTATION,
    UPDATE_NODE_CONDITION,
    UPDATE_NODE_LABEL,
    UPDATE_NODE_TAINT,
    NominatingInfo,
    Status,
)
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins import names, nodeunschedulable, tainttoleration
from kubenotes.scheduler.plugins.noderesources import fit

__all__ = [
    "ASSIGNED_POD_ADD",
    "ASSIGNED_POD_DELETE",
    "POD_EVENT_INTERESTS",
    "NODE_EVENT_HINTS",
    "node_scheduling_properties_change",
    "is_pod_worth_requeuing_after_node_event",
    "DEFAULT_POD_INITIAL_BACKOFF_SECONDS",
    "DEFAULT_POD_MAX_BACKOFF_SECONDS",
    "QueuedPodInfo",
    "PodNominator",
    "SchedulingQueue",
]

#: Cluster event: a pod bound to a node appeared (``framework.EventAssignedPodAdd``).
ASSIGNED_POD_ADD = "AssignedPodAdd"
#: Cluster event: a pod bound to a node was deleted (``framework.EventAssignedPodDelete``).
ASSIGNED_POD_DELETE = "AssignedPodDelete"

#: Event -> in-tree plugins whose rejection such an event may resolve (from their ``EventsToRegister``).
POD_EVENT_INTERESTS: dict[str, frozenset[str]] = {
    ASSIGNED_POD_ADD: frozenset({names.INTER_POD_AFFINITY, names.POD_TOPOLOGY_SPREAD}),
    ASSIGNED_POD_DELETE: frozenset({
        names.NODE_RESOURCES_FIT, names.NODE_PORTS, names.INTER_POD_AFFINITY, names.POD_TOPOLOGY_SPREAD,
        names.VOLUME_RESTRICTIONS, names.NODE_VOLUME_LIMITS,
    }),
}
_KNOWN_PLUGINS = frozenset(names.IN_TREE_NAMES) | frozenset(names.LEGACY_NAMES)

#: Plugin -> (the Node action types its ``EventsToRegister`` names, its queueing hint ``(pod, old, new) -> Queue?``).
NODE_EVENT_HINTS: dict[str, tuple[frozenset[str], Callable[[Any, Any, Any], bool]]] = {
    names.NODE_RESOURCES_FIT: (fit.NODE_EVENTS, fit.is_schedulable_after_node_change),
    names.TAINT_TOLERATION: (tainttoleration.NODE_EVENTS, tainttoleration.is_schedulable_after_node_change),
    names.NODE_UNSCHEDULABLE: (nodeunschedulable.NODE_EVENTS, nodeunschedulable.is_schedulable_after_node_change),
}


def node_scheduling_properties_change(new: dict, old: dict | None) -> list[str]:
    """The Node action types one Node change is (``NodeSchedulingPropertiesChange``), in upstream's order.

    ``[ADD]`` for a new node; for an update, ``UpdateNodeTaint`` when
    ``spec.unschedulable`` changed, ``UpdateNodeAllocatable``,
    ``UpdateNodeLabel``, ``UpdateNodeTaint`` (taints), ``UpdateNodeCondition``
    (a condition's type or status; heartbeat and transition times do not count)
    and ``UpdateNodeAnnotation``; empty when nothing the scheduler reads moved.

    Parameters
    ----------
    new : dict
        The Node as stored.
    old : dict or None
        Before the change; None for an add.

    Returns
    -------
    list of str

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/events.go

    Examples
    --------
    >>> old = {"metadata": {"name": "n"}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    >>> new = {"metadata": {"name": "n"}, "spec": {"taints": [{"key": "node.kubernetes.io/unreachable",
    ...        "effect": "NoExecute"}]}, "status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}}
    >>> node_scheduling_properties_change(new, old), node_scheduling_properties_change(new, None)
    (['UpdateNodeTaint', 'UpdateNodeCondition'], ['Add'])
    """
    if old is None:
        return [ADD]

    def spec(n: dict) -> dict:
        return n.get("spec") or {}

    def md(n: dict) -> dict:
        return n.get("metadata") or {}

    def st(n: dict) -> dict:
        return n.get("status") or {}

    def conditions(n: dict) -> dict:
        return {c.get("type"): c.get("status") for c in st(n).get("conditions") or []}

    out = []
    if bool(spec(new).get("unschedulable")) != bool(spec(old).get("unschedulable")):
        out.append(UPDATE_NODE_TAINT)
    if (st(new).get("allocatable") or {}) != (st(old).get("allocatable") or {}):
        out.append(UPDATE_NODE_ALLOCATABLE)
    if (md(new).get("labels") or {}) != (md(old).get("labels") or {}):
        out.append(UPDATE_NODE_LABEL)
    if (spec(new).get("taints") or []) != (spec(old).get("taints") or []):
        out.append(UPDATE_NODE_TAINT)
    if conditions(new) != conditions(old):
        out.append(UPDATE_NODE_CONDITION)
    if (md(new).get("annotations") or {}) != (md(old).get("annotations") or {}):
        out.append(UPDATE_NODE_ANNOTATION)
    return out


def is_pod_worth_requeuing_after_node_event(q: "QueuedPodInfo", action: str, old_node: Any, new_node: Any) -> bool:
    """``isPodWorthRequeuing`` for one Node event: does any plugin that rejected the pod say ``Queue``?

    A pod with no rejecting plugin (it failed with an error) is always worth
    it. A plugin of :data:`NODE_EVENT_HINTS` counts only for the action types
    it registered, through its hint; any other plugin counts for every action
    (its node hints are not modelled).

    Parameters
    ----------
    q : QueuedPodInfo
        From the unschedulable pool.
    action : str
        One of :func:`node_scheduling_properties_change`'s action types.
    old_node, new_node : lightkube.resources.core_v1.Node or None
        The node before (None for an add) and after, as the plugins read it.

    Returns
    -------
    bool

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/backend/queue/scheduling_queue.go (isPodWorthRequeuing)
    """
    rejectors = q.unschedulable_plugins | q.pending_plugins
    if not rejectors:
        return True
    for plugin in sorted(rejectors):
        hint = NODE_EVENT_HINTS.get(plugin)
        if hint is None:
            return True
        actions, fn = hint
        if action in actions and new_node is not None and fn(q.pod_info, old_node, new_node):
            return True
    return False

#: ``podInitialBackoffSeconds`` default.
DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1.0
#: ``podMaxBackoffSeconds`` default.
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10.0


@dataclass(eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue with its queue bookkeeping (``framework.QueuedPodInfo``).

    Attributes
    ----------
    pod_info : PodInfo
    timestamp : float
        When the pod was (re-)added to the queue, seconds; PrioritySort's tie-breaker.
    attempts : int
        Scheduling attempts so far.
    initial_attempt_timestamp : float or None
    unschedulable_plugins : set[str]
        Plugins that rejected the pod in its last attempt.
    pending_plugins : set[str]
    gating_plugin : str
        The PreEnqueue plugin keeping the pod out of activeQ ("" when not gated).
    gating_status : Status or None
        That plugin's status (``waiting for scheduling gates: [a]``).
    consecutive_errors_count : int
    backoff_expiration : float
        Seconds; set when the pod enters backoffQ.
    """

    pod_info: PodInfo
    timestamp: float = 0.0
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gating_plugin: str = ""
    gating_status: Status | None = None
    consecutive_errors_count: int = 0
    backoff_expiration: float = 0.0
    seq: int = 0
    events_seen: int = 0

    @property
    def pod(self) -> Any:
        """The lightkube Pod."""
        return self.pod_info.pod

    @property
    def priority(self) -> int:
        """``spec.priority``."""
        return self.pod_info.priority

    def gated(self) -> bool:
        """True when a PreEnqueue plugin keeps the pod out of activeQ."""
        return bool(self.gating_plugin)

    def __repr__(self) -> str:
        return f"QueuedPodInfo({self.pod_info.key}, attempts={self.attempts})"


class PodNominator:
    """Pods nominated to nodes, awaiting the room preemption made (``nominator``).

    Attributes
    ----------
    nominated_pods : dict[str, list[PodInfo]]
        Node name -> pods nominated to it, in nomination order.
    nominated_pod_to_node : dict[str, str]
        Pod uid -> node name.
    version : int
        Bumped on every change (kubenotes only: the batch Filters cache what they derive from the nominations).
    changed_uids : list[str]
        kubenotes only: the uid of the pod each change was about, from change
        ``changes_base`` on (the batch path follows them instead of rereading
        every nomination); the oldest are dropped past :attr:`CHANGE_LOG`.

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> n = PodNominator()
    >>> p = PodInfo(make_pod("p", priority=10))
    >>> n.add_nominated_pod(p, NominatingInfo("node-1"))
    >>> [x.key for x in n.nominated_pods_for_node("node-1")], n.nominated_node_name(p)
    (['default/p'], 'node-1')
    >>> n.delete_nominated_pod_if_exists(p); n.nominated_pods_for_node("node-1")
    []

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/backend/queue/nominator.go
    """

    #: How many changes :attr:`changed_uids` keeps at least.
    CHANGE_LOG = 4096

    def __init__(self) -> None:
        self.nominated_pods: dict[str, list[PodInfo]] = {}
        self.nominated_pod_to_node: dict[str, str] = {}
        self.version = 0
        self.changed_uids: list[str] = []
        self.changes_base = 0  # the change changed_uids[0] stands for

    def _changed(self, uid: str) -> None:
        self.version += 1
        log = self.changed_uids
        log.append(uid)
        if len(log) > 2 * self.CHANGE_LOG:
            del log[:self.CHANGE_LOG]
            self.changes_base += self.CHANGE_LOG

    def add_nominated_pod(self, pod: PodInfo, nominating_info: NominatingInfo | None = None) -> None:
        """Record ``pod`` as nominated (``AddNominatedPod``).

        With ``ModeOverride`` the pod goes to ``nominating_info.nominated_node_name``
        (an empty name only removes it); with no info (``ModeNoop``) its
        ``status.nominatedNodeName`` is used. A pod already bound is not nominated.
        """
        self._delete(pod)
        if nominating_info is not None and nominating_info.mode == "ModeOverride":
            node = nominating_info.nominated_node_name
        else:
            st = pod.pod.status
            node = (st.nominatedNodeName or "") if st is not None else ""
        if not node or pod.node_name:
            return
        self.nominated_pod_to_node[pod.uid] = node
        self._changed(pod.uid)
        lst = self.nominated_pods.setdefault(node, [])
        if all(p.uid != pod.uid for p in lst):
            lst.append(pod)

    def delete_nominated_pod_if_exists(self, pod: PodInfo) -> None:
        """Forget ``pod``'s nomination (``DeleteNominatedPodIfExists``)."""
        self._delete(pod)

    def _delete(self, pod: PodInfo) -> None:
        node = self.nominated_pod_to_node.pop(pod.uid, None)
        if node is None:
            return
        self._changed(pod.uid)
        lst = [p for p in self.nominated_pods.get(node, []) if p.uid != pod.uid]
        if lst:
            self.nominated_pods[node] = lst
        else:
            self.nominated_pods.pop(node, None)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """Pods nominated to ``node_name``, in nomination order (a copy)."""
        return list(self.nominated_pods.get(node_name, ()))

    def nominated_node_name(self, pod: PodInfo) -> str:
        """Node ``pod`` is nominated to ("" when none)."""
        return self.nominated_pod_to_node.get(pod.uid, "")


class _Heap:
    """A binary heap ordered by a ``less(a, b)`` function, ties broken by insertion sequence.

    With ``key`` (a total order agreeing with ``less``: ``less(a, b)`` exactly
    when ``key(a) < key(b)``) entries are compared as tuples, without a Python
    call per comparison; the order is the same. A heap of at least
    :attr:`RUN_MIN` entries is then sorted, once, into a *run* popped from its
    front, and later pushes go to a new heap: each pop takes the smaller of
    the run's front and the heap's top, so the order is still the entries'
    order (kubenotes only: 150,000 pending pods cost one sort instead of a
    sift-down per pop).
    """

    __slots__ = ("_items", "_less", "_key", "_uids", "_count", "_run", "_head")

    #: Heap size from which a pop first sorts the heap into the run (key order only).
    RUN_MIN = 1024

    def __init__(self, less: Callable[[Any, Any], bool], key: Callable[[Any], Any] | None = None):
        self._less = less
        self._key = key
        self._items: list[Any] = []
        self._uids: dict[str, int] = {}  # uid -> entries held (a pod is normally in once)
        self._count = itertools.count()  # tells two entries of one pod apart
        self._run: list[Any] = []  # sorted entries, those before _head already popped (None)
        self._head = 0

    def push(self, q: QueuedPodInfo) -> None:
        key = self._key
        entry = _Entry(q, self._less) if key is None else (key(q), q.seq, next(self._count), q)
        heapq.heappush(self._items, entry)
        uid = q.pod_info.uid
        self._uids[uid] = self._uids.get(uid, 0) + 1

    def _q(self, entry: Any) -> QueuedPodInfo:
        return entry.q if self._key is None else entry[3]

    def _sort_into_run(self) -> None:
        run = self._run[self._head:]
        run.extend(self._items)
        run.sort()  # tuples with a unique counter: a total order, as the heap's
        self._run, self._head, self._items = run, 0, []

    def pop(self) -> QueuedPodInfo | None:
        items, run, head = self._items, self._run, self._head
        if len(items) >= self.RUN_MIN and self._key is not None:
            self._sort_into_run()
            items, run, head = self._items, self._run, 0
        if head < len(run) and (not items or run[head] < items[0]):
            entry, run[head] = run[head], None
            head += 1
            if head >= 4096 and 2 * head >= len(run):
                del run[:head]
                head = 0
            self._head = head
        elif items:
            entry = heapq.heappop(items)
        else:
            return None
        q = self._q(entry)
        self._forget(q.pod_info.uid)
        return q

    def _forget(self, uid: str) -> None:
        left = self._uids.pop(uid) - 1
        if left:
            self._uids[uid] = left

    def peek(self) -> QueuedPodInfo | None:
        items, run, head = self._items, self._run, self._head
        if head < len(run) and (not items or run[head] < items[0]):
            return self._q(run[head])
        return self._q(items[0]) if items else None

    def remove(self, uid: str) -> QueuedPodInfo | None:
        if uid not in self._uids:  # most deletions are of bound pods: no scan of the whole heap
            return None
        self._forget(uid)
        run = self._run
        for i in range(self._head, len(run)):
            q = self._q(run[i])
            if q.pod_info.uid == uid:
                del run[i]  # the rest stays sorted
                return q
        for i, e in enumerate(self._items):
            q = self._q(e)
            if q.pod_info.uid == uid:
                self._items.pop(i)
                heapq.heapify(self._items)
                return q
        return None

    def __len__(self) -> int:
        return len(self._items) + len(self._run) - self._head

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        return (self._q(e) for e in sorted(self._items + self._run[self._head:]))


class _Entry:
    __slots__ = ("q", "less")

    def __init__(self, q: QueuedPodInfo, less: Callable[[Any, Any], bool]):
        self.q = q
        self.less = less

    def __lt__(self, other: "_Entry") -> bool:
        if self.less(self.q, other.q):
            return True
        if self.less(other.q, self.q):
            return False
        return self.q.seq < other.q.seq


def _backoff_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    return a.backoff_expiration < b.backoff_expiration


def _backoff_key(q: QueuedPodInfo) -> float:
    return q.backoff_expiration


class SchedulingQueue:
    """The scheduler's ``PriorityQueue``.

    Parameters
    ----------
    less : callable(QueuedPodInfo, QueuedPodInfo) -> bool
        The profile's QueueSort function (``Framework.queue_sort_func()``).
    sort_key : callable(QueuedPodInfo) -> tuple, optional
        A key that orders pods as ``less`` does (``Framework.queue_sort_key()``);
        the active queue then compares keys instead of calling ``less``.
    pre_enqueue : callable(PodInfo) -> Status, optional
        Runs PreEnqueue plugins (``Framework.run_pre_enqueue_plugins``).
    pod_initial_backoff_seconds, pod_max_backoff_seconds : float
        Backoff doubles per attempt from the initial value up to the max.
    nominator : PodNominator, optional
    max_attempts_per_pod : int
        kubenotes guard: a pod that failed this many attempts is parked in the
        unschedulable pool for good, so a run always ends (upstream retries forever).

    Attributes
    ----------
    now : float
        The simulated clock, seconds: the latest queue timestamp seen.
    scheduling_cycle : int
        Incremented by every :meth:`pop`.
    nominator : PodNominator

    Examples
    --------
    >>> from kubenotes.scheduler.plugins.queuesort import PrioritySort
    >>> from kubenotes.scheduler.testing import make_pod
    >>> q = SchedulingQueue(PrioritySort().less)
    >>> for name, prio in [("a", 1), ("b", 5), ("c", 1)]:
    ...     _ = q.add(PodInfo(make_pod(name, priority=prio)))
    >>> [q.pop().pod_info.name for _ in range(3)]
    ['b', 'a', 'c']
    """

    def __init__(
        self,
        less: Callable[[Any, Any], bool],
        pre_enqueue: Callable[[PodInfo], Status] | None = None,
        *,
        pod_initial_backoff_seconds: float = DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
        pod_max_backoff_seconds: float = DEFAULT_POD_MAX_BACKOFF_SECONDS,
        nominator: PodNominator | None = None,
        max_attempts_per_pod: int = 50,
        sort_key: Callable[[Any], Any] | None = None,
    ):
        self.less = less
        self.max_attempts_per_pod = max_attempts_per_pod
        self.pre_enqueue = pre_enqueue
        self.pod_initial_backoff_seconds = float(pod_initial_backoff_seconds)
        self.pod_max_backoff_seconds = float(pod_max_backoff_seconds)
        self.nominator = nominator if nominator is not None else PodNominator()
        self.active_q = _Heap(less, sort_key)
        self.backoff_q = _Heap(_backoff_less, _backoff_key)
        self.unschedulable_pods: dict[str, QueuedPodInfo] = {}
        self.in_flight: dict[str, QueuedPodInfo] = {}
        self.now = 0.0
        self.scheduling_cycle = 0
        self.events: list[tuple[str, Any]] = []
        self._seq = itertools.count()

    # ------------------------------------------------------------------ add
    def new_queued_pod_info(self, pod: PodInfo, timestamp: float | None = None) -> QueuedPodInfo:
        """Wrap ``pod`` with a queue timestamp (its creation time, or :attr:`now`)."""
        ts = pod.creation_seconds if timestamp is None and pod.creation_seconds else timestamp
        if ts is None:
            ts = self.now
        self.now = max(self.now, ts)
        return QueuedPodInfo(pod, timestamp=ts, seq=next(self._seq), events_seen=len(self.events))

    def add(self, pod: PodInfo, timestamp: float | None = None) -> QueuedPodInfo:
        """Add a new pending pod (``PriorityQueue.Add``): activeQ, or the pool when gated by PreEnqueue.

        Returns
        -------
        QueuedPodInfo
        """
        q = self.new_queued_pod_info(pod, timestamp)
        self._move_to_active_q(q)
        return q

    def _run_pre_enqueue(self, q: QueuedPodInfo) -> bool:
        if self.pre_enqueue is None:
            return True
        s = self.pre_enqueue(q.pod_info)
        if s.is_success():
            q.gating_plugin, q.gating_status = "", None
            return True
        q.gating_plugin, q.gating_status = s.plugin, s
        return False

    def _move_to_active_q(self, q: QueuedPodInfo) -> None:
        if not self._run_pre_enqueue(q):
            self.unschedulable_pods[q.pod_info.uid] = q
            return
        self.unschedulable_pods.pop(q.pod_info.uid, None)
        self.active_q.push(q)

    # ------------------------------------------------------------------ pop
    def pop(self) -> QueuedPodInfo | None:
        """Take the next pod to schedule (``PriorityQueue.Pop``).

        The head of activeQ, or, when activeQ is empty, the head of backoffQ
        (whose backoff is then treated as over: the clock moves to its expiry).

        Returns
        -------
        QueuedPodInfo or None
            None when both queues are empty.
        """
        q = self.active_q.pop()
        if q is None:
            q = self.backoff_q.pop()
            if q is None:
                return None
        self.scheduling_cycle += 1
        q.attempts += 1
        if q.initial_attempt_timestamp is None:
            q.initial_attempt_timestamp = self.now
        q.events_seen = len(self.events)
        self.in_flight[q.pod_info.uid] = q
        return q

    def done(self, uid: str) -> None:
        """The scheduling of pod ``uid`` finished (``Done``)."""
        self.in_flight.pop(uid, None)

    # ------------------------------------------------------- after failure
    def backoff_duration_seconds(self, q: QueuedPodInfo) -> float:
        """``initial * 2**(attempts-1)`` capped at the max (``calculateBackoffDuration``)."""
        d = self.pod_initial_backoff_seconds
        for _ in range(1, q.attempts):
            d *= 2
            if d > self.pod_max_backoff_seconds:
                return self.pod_max_backoff_seconds
        return min(d, self.pod_max_backoff_seconds)

    def _interested(self, q: QueuedPodInfo, event: str) -> bool:
        rejectors = q.unschedulable_plugins | q.pending_plugins
        if not rejectors:
            return True
        interests = POD_EVENT_INTERESTS.get(event, frozenset())
        for p in rejectors:
            if p in interests or p not in _KNOWN_PLUGINS:
                return True
        return False

    def add_unschedulable_if_not_present(self, q: QueuedPodInfo, *, error: bool = False) -> str:
        """Put back a pod whose attempt failed (``AddUnschedulableIfNotPresent``).

        The pod goes to backoffQ when it has no rejecting plugin (an error) or
        when a cluster event received while it was being scheduled interests
        one of its rejecting plugins; otherwise to the unschedulable pool.

        Parameters
        ----------
        q : QueuedPodInfo
            With ``unschedulable_plugins`` set from the attempt's diagnosis.
        error : bool
            The attempt ended with an error status.

        Returns
        -------
        str
            ``"backoffQ"`` or ``"unschedulablePods"``.
        """
        uid = q.pod_info.uid
        self.in_flight.pop(uid, None)
        q.timestamp = self.now
        q.seq = next(self._seq)
        # Events the pod caused itself (its own forget after a failed bind) do not count.
        events = [(ev, obj) for ev, obj in self.events[q.events_seen:] if getattr(obj, "uid", None) != uid]
        if error:
            q.consecutive_errors_count += 1
            requeue = q.consecutive_errors_count == 1 or bool(events)
        else:
            q.consecutive_errors_count = 0
            requeue = any(self._interested(q, ev) for ev, _ in events)
        if q.attempts >= self.max_attempts_per_pod:
            requeue = False
        q.events_seen = len(self.events)
        if requeue:
            self._to_backoff(q)
            return "backoffQ"
        self.unschedulable_pods[uid] = q
        return "unschedulablePods"

    def _to_backoff(self, q: QueuedPodInfo) -> None:
        q.backoff_expiration = q.timestamp + self.backoff_duration_seconds(q)
        self.backoff_q.push(q)

    def move_all_to_active_or_backoff_queue(self, event: str, obj: Any = None,
                                            pre_check: Callable[[QueuedPodInfo], bool] | None = None) -> int:
        """A cluster event happened: move pooled pods it may help (``MoveAllToActiveOrBackoffQueue``).

        The event is also remembered for pods being scheduled right now.

        Parameters
        ----------
        event : str
            :data:`ASSIGNED_POD_ADD` or :data:`ASSIGNED_POD_DELETE`.
        obj : object, optional
            The pod concerned (kept in :attr:`events`).
        pre_check : callable, optional
            Only pods for which it returns True are considered.

        Returns
        -------
        int
            Number of pods moved.
        """
        self.events.append((event, obj))
        moved = 0
        for uid, q in list(self.unschedulable_pods.items()):
            if q.gated() or (pre_check is not None and not pre_check(q)):
                continue
            if q.attempts >= self.max_attempts_per_pod or getattr(obj, "uid", None) == uid:
                continue
            if not self._interested(q, event):
                continue
            del self.unschedulable_pods[uid]
            q.events_seen = len(self.events)
            self._to_backoff(q)
            moved += 1
        return moved

    def activate(self, pods: Iterable[PodInfo]) -> None:
        """Move the given pods from the pool or backoffQ straight to activeQ (``Activate``)."""
        for p in pods:
            q = self.unschedulable_pods.pop(p.uid, None) or self.backoff_q.remove(p.uid)
            if q is not None:
                self._move_to_active_q(q)

    def delete(self, pod: PodInfo) -> None:
        """Remove a pod from every queue and from the nominator (``Delete``)."""
        self.active_q.remove(pod.uid)
        self.backoff_q.remove(pod.uid)
        self.unschedulable_pods.pop(pod.uid, None)
        self.nominator.delete_nominated_pod_if_exists(pod)

    # -------------------------------------------------------------- queries
    def pending_pods(self) -> dict[str, list[QueuedPodInfo]]:
        """Pods per queue: ``activeQ`` (pop order), ``backoffQ``, ``unschedulablePods``."""
        return {
            "activeQ": list(self.active_q),
            "backoffQ": list(self.backoff_q),
            "unschedulablePods": list(self.unschedulable_pods.values()),
        }

    def gated_pods(self) -> list[QueuedPodInfo]:
        """Pods kept out by a PreEnqueue plugin, in the order they were added."""
        return sorted((q for q in self.unschedulable_pods.values() if q.gated()), key=lambda q: q.seq)

    def __len__(self) -> int:
        return len(self.active_q) + len(self.backoff_q) + len(self.unschedulable_pods)
