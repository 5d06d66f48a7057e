"""PodTopologySpread PreFilter, PreFilterExtensions and Filter (hard constraints, ``DoNotSchedule``).

Mirrors ``pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``: PreFilter
counts, for every ``DoNotSchedule`` constraint and every topology domain of the
eligible nodes, the pods matching the constraint's selector, and records the two
least-loaded domains (the *critical paths*); Filter checks
``matching pods in the node's domain + 1 (if the pod matches itself) - global minimum <= maxSkew``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/filtering.go
KEP-895 (pod topology spread), KEP-3022 (minDomains)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubenotes.errors import NotFound
from kubenotes.scheduler.framework.interface import Code, PreFilterResult, Status
from kubenotes.scheduler.arrays import snapshot_arrays
from kubenotes.scheduler.plugins.names import POD_TOPOLOGY_SPREAD as NAME
from kubenotes.scheduler.plugins.podtopologyspread.common import (
    TopologySpreadConstraint,
    count_pods_match_selector,
    node_labels_match_spread_constraints,
    required_node_affinity,
)

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "PRE_FILTER_STATE_KEY",
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "MAX_INT32",
    "CriticalPaths",
    "PreFilterState",
    "cal_pre_filter_state",
    "update_with_pod",
    "filter_node",
    "FilteringMixin",
]

#: CycleState key of the PreFilter state.
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
#: Filter reason when the skew would exceed ``maxSkew``.
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
#: Filter reason when the node lacks a constraint's topology key.
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
#: ``math.MaxInt32``: the match number of an unset critical path.
MAX_INT32 = 2**31 - 1


@dataclass(slots=True)
class CriticalPaths:
    """The two topology domains with the fewest matching pods (upstream ``criticalPaths``).

    ``paths[0][1]`` always holds the minimum; ``paths[1][1]`` is at least that
    but not necessarily the second minimum after incremental updates (the
    structure is exact only for one-node-at-a-time preemption, as upstream notes).

    Attributes
    ----------
    paths : list[list]
        Two ``[topology_value, match_num]`` pairs, initially ``["", MAX_INT32]``.

    Examples
    --------
    >>> p = CriticalPaths()
    >>> for v, n in [("zone1", 3), ("zone2", 2), ("zone3", 0)]:
    ...     p.update(v, n)
    >>> p.paths
    [['zone3', 0], ['zone2', 2]]
    """

    paths: list[list[Any]] = field(default_factory=lambda: [["", MAX_INT32], ["", MAX_INT32]])

    def update(self, tp_value: str, num: int) -> None:
        """Record that domain ``tp_value`` now has ``num`` matching pods (``criticalPaths.update``)."""
        p = self.paths
        i = 0 if tp_value == p[0][0] else 1 if tp_value == p[1][0] else -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [tp_value, num]
        elif num < p[1][1]:
            p[1] = [tp_value, num]

    def clone(self) -> "CriticalPaths":
        return CriticalPaths([list(self.paths[0]), list(self.paths[1])])


@dataclass(slots=True)
class PreFilterState:
    """What PreFilter computes for Filter (upstream ``preFilterState``).

    Attributes
    ----------
    constraints : list[TopologySpreadConstraint]
        The pod's ``DoNotSchedule`` constraints (or defaults).
    critical_paths : list[CriticalPaths]
        One per constraint.
    tp_value_to_match_num : list[dict[str, int]]
        One per constraint: topology value -> matching pods in that domain.
        Every eligible domain has an entry, possibly 0.
    """

    constraints: list[TopologySpreadConstraint] = field(default_factory=list)
    critical_paths: list[CriticalPaths] = field(default_factory=list)
    tp_value_to_match_num: list[dict[str, int]] = field(default_factory=list)

    def min_match_num(self, constraint_id: int, min_domains: int) -> int:
        """Global minimum for the skew: 0 when there are fewer eligible domains than ``minDomains``."""
        if len(self.tp_value_to_match_num[constraint_id]) < min_domains:
            return 0
        return self.critical_paths[constraint_id].paths[0][1]

    def clone(self) -> "PreFilterState":
        """Copy for preemption: constraints shared, counts and paths copied."""
        return PreFilterState(
            constraints=self.constraints,
            critical_paths=[p.clone() for p in self.critical_paths],
            tp_value_to_match_num=[dict(m) for m in self.tp_value_to_match_num],
        )


def cal_pre_filter_state(pod: "PodInfo", constraints: list[TopologySpreadConstraint], nodes: list["NodeInfo"]) -> PreFilterState:
    """Count matching pods per domain over ``nodes`` (``calPreFilterState``).

    A node counts only if it has every constraint's topology key; per
    constraint it further has to pass the node inclusion policies.
    """
    if not constraints:
        return PreFilterState()
    s = PreFilterState(
        constraints=constraints,
        critical_paths=[],
        tp_value_to_match_num=[{} for _ in constraints],
    )
    required = required_node_affinity(pod)
    for ni in nodes:
        if ni.node is None or not node_labels_match_spread_constraints(ni.labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not c.match_node_inclusion_policies(pod, ni.node, required):
                continue
            value = ni.labels[c.topology_key]
            count = count_pods_match_selector(ni.pods, c.selector, pod.namespace)
            m = s.tp_value_to_match_num[i]
            m[value] = m.get(value, 0) + count
    for i in range(len(constraints)):
        paths = CriticalPaths()
        for value, num in s.tp_value_to_match_num[i].items():
            paths.update(value, num)
        s.critical_paths.append(paths)
    return s


def update_with_pod(s: PreFilterState, updated: "PodInfo", preemptor: "PodInfo", node_info: "NodeInfo", delta: int) -> None:
    """Add (``delta=1``) or remove (``-1``) one pod's contribution (``updateWithPod``).

    Only pods in the preemptor's namespace, on nodes carrying every topology key
    and passing the constraint's inclusion policies, are counted.
    """
    node = node_info.node
    if updated.namespace != preemptor.namespace or node is None:
        return
    if not node_labels_match_spread_constraints(node_info.labels, s.constraints):
        return
    required = required_node_affinity(preemptor)
    for i, c in enumerate(s.constraints):
        if not c.selector.matches(updated.labels):
            continue
        if not c.match_node_inclusion_policies(preemptor, node, required):
            continue
        v = node_info.labels[c.topology_key]
        m = s.tp_value_to_match_num[i]
        m[v] = m.get(v, 0) + delta
        s.critical_paths[i].update(v, m[v])


def filter_node(s: PreFilterState, pod: "PodInfo", node_info: "NodeInfo") -> Status:
    """Filter one node against the precomputed state (``PodTopologySpread.Filter``)."""
    if not s.constraints:
        return Status()
    labels = node_info.labels
    for i, c in enumerate(s.constraints):
        if c.topology_key not in labels:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [ERR_REASON_NODE_LABEL_NOT_MATCH])
        min_match = s.min_match_num(i, c.min_domains)
        self_match = 1 if c.selector.matches(pod.labels) else 0
        match_num = s.tp_value_to_match_num[i].get(labels[c.topology_key], 0)
        if match_num + self_match - min_match > c.max_skew:
            return Status(Code.UNSCHEDULABLE, [ERR_REASON_CONSTRAINTS_NOT_MATCH])
    return Status()


class FilteringMixin:
    """PreFilter, PreFilterExtensions and Filter of :class:`PodTopologySpread`.

    Expects ``self.get_constraints(pod, action)``.
    """

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]:
        """Compute the :class:`PreFilterState`; Skip when the pod has no hard constraints.

        Raises
        ------
        FieldError
            When a constraint's label selector is malformed.

        Notes
        -----
        kubenotes: when ``nodes`` are the snapshot's, with
        :class:`~kubenotes.scheduler.arrays.SnapshotArrays`, the counts come
        from the arrays (:mod:`kubenotes.scheduler.fast.podtopologyspread`; the
        same state as :func:`cal_pre_filter_state`).
        """
        constraints = self.get_constraints(pod, "DoNotSchedule")
        if not constraints:
            return None, Status.skip()
        arrays = snapshot_arrays(getattr(self.handle, "snapshot", None), nodes)
        counts = arrays.counts_of(NAME) if arrays is not None else None
        if counts is not None:
            pre = counts.pre_filter_state(pod, constraints, arrays)
        else:
            pre = cal_pre_filter_state(pod, constraints, nodes)
        state.write(PRE_FILTER_STATE_KEY, pre)
        return None, Status()

    def pre_filter_extensions(self) -> "FilteringMixin":
        """This plugin updates its state incrementally when preemption adds/removes pods."""
        return self

    def _state(self, state: "CycleState") -> PreFilterState | Status:
        try:
            return state.read(PRE_FILTER_STATE_KEY)
        except NotFound:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')

    def add_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_add: "PodInfo", node_info: "NodeInfo") -> Status:
        """Count ``pod_to_add`` as if it ran on ``node_info`` (``AddPod``)."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        update_with_pod(s, pod_to_add, pod_to_schedule, node_info, 1)
        return Status()

    def remove_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_remove: "PodInfo", node_info: "NodeInfo") -> Status:
        """Stop counting ``pod_to_remove`` (``RemovePod``)."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        update_with_pod(s, pod_to_remove, pod_to_schedule, node_info, -1)
        return Status()

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Reject a node whose domain would exceed ``maxSkew`` or that lacks a topology key."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        return filter_node(s, pod, node_info)
