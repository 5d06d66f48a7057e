"""PodTopologySpread PreScore, Score and NormalizeScore (soft constraints, ``ScheduleAnyway``).

Mirrors ``pkg/scheduler/framework/plugins/podtopologyspread/scoring.go``. For each
``ScheduleAnyway`` constraint a node earns ``matching pods in its domain x
log(number of domains + 2) + (maxSkew - 1)``; NormalizeScore inverts the sums so
the emptiest domains score 100.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/scoring.go
KEP-895 (pod topology spread), KEP-1258 (default constraints)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubenotes.errors import NotFound
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, NodeScore, Status
from kubenotes.scheduler.arrays import snapshot_arrays
from kubenotes.scheduler.plugins.names import POD_TOPOLOGY_SPREAD as NAME
from kubenotes.scheduler.plugins.podtopologyspread.common import (
    LABEL_HOSTNAME,
    TopologySpreadConstraint,
    count_pods_match_selector,
    node_labels_match_spread_constraints,
    required_node_affinity,
)

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "PRE_SCORE_STATE_KEY",
    "INVALID_SCORE",
    "PreScoreState",
    "topology_normalizing_weight",
    "score_for_count",
    "pre_score_state",
    "ScoringMixin",
]

#: CycleState key of the PreScore state.
PRE_SCORE_STATE_KEY = "PreScore" + NAME
#: Marker for nodes that miss a topology key (they end with score 0).
INVALID_SCORE = -1


def topology_normalizing_weight(size: int) -> float:
    """``log(size + 2)``: weight of a constraint whose topology has ``size`` domains.

    It keeps the counts of small topologies (zones) from being drowned by large
    ones (hostnames); with 1 to 5000 domains it lies in [1.09, 8.52].

    Examples
    --------
    >>> round(topology_normalizing_weight(2), 4), round(topology_normalizing_weight(4), 4)
    (1.3863, 1.7918)
    """
    return math.log(size + 2)


def score_for_count(count: int, max_skew: int, tp_weight: float) -> float:
    """``count * tp_weight + (max_skew - 1)``: one constraint's raw score for a domain with ``count`` pods.

    Adding ``maxSkew - 1`` waters down differences between domains, so a larger
    ``maxSkew`` makes the score more tolerant of skew.

    Examples
    --------
    >>> score_for_count(2, 1, 1.5), score_for_count(0, 3, 1.5)
    (3.0, 2.0)
    """
    return count * tp_weight + (max_skew - 1)


def _round_half_away(x: float) -> int:
    """Go's ``math.Round`` (half away from zero)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


@dataclass(slots=True)
class PreScoreState:
    """What PreScore computes for Score (upstream ``preScoreState``).

    Attributes
    ----------
    constraints : list[TopologySpreadConstraint]
        The pod's ``ScheduleAnyway`` constraints (or defaults).
    ignored_nodes : set[str]
        Feasible nodes missing a topology key (scored 0).
    topology_value_to_pod_counts : list[dict[str, int]]
        Per constraint: domain value -> matching pods over all nodes. Hostname
        constraints are counted per node in Score instead.
    topology_normalizing_weight : list[float]
        Per constraint: :func:`topology_normalizing_weight` of its domain count
        among the feasible nodes.
    host_tables : list or None
        kubenotes only: per constraint, for hostname constraints counted from
        the snapshot's arrays, ``(MatchingPodCounts, handle)`` so that the
        per-node Score reads a node's count from the table while it is still
        exact (:meth:`~kubenotes.scheduler.fast.podtopologyspread.MatchingPodCounts.count_on`)
        instead of walking its pods; None otherwise.
    """

    constraints: list[TopologySpreadConstraint] = field(default_factory=list)
    ignored_nodes: set[str] = field(default_factory=set)
    topology_value_to_pod_counts: list[dict[str, int]] = field(default_factory=list)
    topology_normalizing_weight: list[float] = field(default_factory=list)
    host_tables: Any = field(default=None, compare=False, repr=False)

    def clone(self) -> "PreScoreState":
        """Scoring state is read-only after PreScore; shared like upstream."""
        return self


def pre_score_state(pod: "PodInfo", constraints: list[TopologySpreadConstraint], require_all: bool,
                    nodes: list["NodeInfo"], all_nodes: list["NodeInfo"]) -> PreScoreState:
    """The PreScore state, node after node (upstream ``initPreScoreState`` and the counting loop of ``PreScore``).

    Parameters
    ----------
    pod : PodInfo
    constraints : list[TopologySpreadConstraint]
        The pod's ``ScheduleAnyway`` constraints (non-empty).
    require_all : bool
        Whether a node must carry every topology key (not for system defaults).
    nodes : list[NodeInfo]
        The feasible nodes.
    all_nodes : list[NodeInfo]
        Every snapshot node (matching pods are counted on all of them).

    Returns
    -------
    PreScoreState
    """
    s = PreScoreState()
    s.constraints = constraints
    s.topology_value_to_pod_counts = [{} for _ in s.constraints]
    topo_size = [0] * len(s.constraints)
    for ni in nodes:
        if require_all and not node_labels_match_spread_constraints(ni.labels, s.constraints):
            s.ignored_nodes.add(ni.name)
            continue
        for i, c in enumerate(s.constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue
            value = ni.labels.get(c.topology_key, "")
            if value not in s.topology_value_to_pod_counts[i]:
                s.topology_value_to_pod_counts[i][value] = 0
                topo_size[i] += 1
    for i, c in enumerate(s.constraints):
        size = topo_size[i]
        if c.topology_key == LABEL_HOSTNAME:
            size = len(nodes) - len(s.ignored_nodes)
        s.topology_normalizing_weight.append(topology_normalizing_weight(size))

    required = required_node_affinity(pod)
    for ni in all_nodes:
        if ni.node is None:
            continue
        if require_all and not node_labels_match_spread_constraints(ni.labels, s.constraints):
            continue
        for i, c in enumerate(s.constraints):
            if not c.match_node_inclusion_policies(pod, ni.node, required):
                continue
            counts = s.topology_value_to_pod_counts[i]
            value = ni.labels.get(c.topology_key, "")
            if value not in counts:  # domain without candidate nodes, or hostname
                continue
            counts[value] += count_pods_match_selector(ni.pods, c.selector, pod.namespace)
    return s


class ScoringMixin:
    """PreScore, Score and NormalizeScore of :class:`PodTopologySpread`.

    Expects ``self.get_constraints(pod, action)``, ``self.system_defaulted`` and
    ``self.handle``.
    """

    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Count matching pods per domain; Skip when the pod has no soft constraints.

        Parameters
        ----------
        nodes : list[NodeInfo]
            The feasible nodes (the ones that will be scored).

        Raises
        ------
        FieldError
            When a constraint's label selector is malformed.

        Notes
        -----
        kubenotes: when the snapshot has
        :class:`~kubenotes.scheduler.arrays.SnapshotArrays` the counts come
        from the arrays (:mod:`kubenotes.scheduler.fast.podtopologyspread`; the
        same result as :func:`pre_score_state`, without walking every pod of
        every node).
        """
        snapshot = self.handle.snapshot
        all_nodes = snapshot.list()
        if not all_nodes:
            return Status.skip()
        # Only non-system-default rules require every topology key, so nodes
        # without a zone label still get hostname spreading.
        require_all = bool(pod.pod.spec.topologySpreadConstraints) or not self.system_defaulted
        constraints = self.get_constraints(pod, "ScheduleAnyway")
        if not constraints:
            return Status.skip()
        arrays = snapshot_arrays(snapshot, all_nodes)
        counts = arrays.counts_of(NAME) if arrays is not None else None
        fidx = arrays.indices_of(nodes) if counts is not None else None
        if fidx is None:
            s = pre_score_state(pod, constraints, require_all, nodes, all_nodes)
        else:
            s = counts.pre_score_state(pod, constraints, require_all, nodes, arrays, fidx)
        state.write(PRE_SCORE_STATE_KEY, s)
        return Status()

    def _score_state(self, state: "CycleState") -> PreScoreState | Status:
        try:
            return state.read(PRE_SCORE_STATE_KEY)
        except NotFound:
            return Status.error(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Weighted matching-pod count of the node's domains (higher is worse, inverted later).

        Notes
        -----
        A hostname constraint's count is the node's matching pods
        (``countPodsMatchSelector`` over ``nodeInfo.Pods``); kubenotes reads it
        from the per-selector table PreScore brought up to date when that is
        still exact, and walks the node's pods otherwise.
        """
        s = self._score_state(state)
        if isinstance(s, Status):
            return 0, s
        if node_info.name in s.ignored_nodes:
            return 0, Status()
        total = 0.0
        for i, c in enumerate(s.constraints):
            value = node_info.labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == LABEL_HOSTNAME:
                tables = s.host_tables
                count = tables[i][0].count_on(tables[i][1], node_info) if tables and tables[i] else None
                if count is None:
                    count = count_pods_match_selector(node_info.pods, c.selector, pod.namespace)
            else:
                count = s.topology_value_to_pod_counts[i].get(value, 0)
            total += score_for_count(count, c.max_skew, s.topology_normalizing_weight[i])
        return _round_half_away(total), Status()

    def score_extensions(self) -> "ScoringMixin":
        """NormalizeScore is implemented here."""
        return self

    def normalize_score(self, state: "CycleState", pod: "PodInfo", scores: list[NodeScore]) -> Status:
        """Map raw scores to ``100 * (max + min - score) // max``; ignored nodes get 0."""
        s = self._score_state(state)
        if isinstance(s, Status):
            return s
        min_score = 2**63 - 1
        max_score = 0
        for ns in scores:
            if ns.name in s.ignored_nodes:
                ns.score = INVALID_SCORE
                continue
            min_score = min(min_score, ns.score)
            max_score = max(max_score, ns.score)
        for ns in scores:
            if ns.score == INVALID_SCORE:
                ns.score = 0
            elif max_score == 0:
                ns.score = MAX_NODE_SCORE
            else:
                ns.score = MAX_NODE_SCORE * (max_score + min_score - ns.score) // max_score
        return Status()
