"""InterPodAffinity: required and preferred pod (anti-)affinity between the incoming pod and running pods.

Mirrors the upstream package ``pkg/scheduler/framework/plugins/interpodaffinity``
(``plugin.go``, ``filtering.go``, ``scoring.go``).

PreFilter counts, per topology pair ``(topologyKey, value)``:

* existing pods whose *required anti-affinity* terms match the incoming pod
  (symmetry: an existing pod can keep the newcomer out);
* existing pods matching *all* the incoming pod's required affinity terms;
* existing pods matching each of the incoming pod's required anti-affinity terms.

Filter then looks the node's labels up in those maps. PreScore sums term
weights (preferred terms of both pods, and existing pods' required affinity
terms with ``hardPodAffinityWeight``) per topology pair; Score adds the pairs
the node has; NormalizeScore maps min..max to 0..100.

Notes
-----
Upstream walks every pod of every node for each pod scheduled (in 16
goroutines). When the snapshot has :class:`~kubenotes.scheduler.arrays.SnapshotArrays`,
kubenotes reads the same counters from a whole-snapshot index instead
(:mod:`kubenotes.scheduler.fast.interpodaffinity`: pods grouped into label
classes, existing pods' terms into entries, per-node counts recounted only
for nodes whose pods changed), so PreFilter and PreScore cost about the nodes
that hold matching pods rather than every pod of the cluster; the counters
are identical (tests/scheduler/plugins/test_ipa_batch.py). The same module
holds the batch forms of Filter, Score and NormalizeScore for the untraced
scheduler.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/plugin.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/scoring.go
https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from kubenotes.errors import ConfigError, NotFound
from kubenotes.scheduler.arrays import snapshot_arrays
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Code, NodeScore, PreFilterResult, Status
from kubenotes.scheduler.framework.node_info import AffinityTerm, WeightedAffinityTerm
from kubenotes.scheduler.plugins.names import INTER_POD_AFFINITY as NAME

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "DEFAULT_HARD_POD_AFFINITY_WEIGHT",
    "PreFilterState",
    "PreScoreState",
    "InterPodAffinity",
    "new",
]

#: CycleState keys.
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
#: An existing pod's required anti-affinity term matches the incoming pod in the node's domain.
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
#: The incoming pod's required affinity is not satisfied on the node.
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
#: The incoming pod's required anti-affinity is violated on the node.
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
#: ``InterPodAffinityArgs.hardPodAffinityWeight`` default (v1).
DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1

TopologyPair = tuple[str, str]


def _nothing() -> Any:
    from kubenotes.api.selectors import LabelSelector

    return LabelSelector.from_api(None)


def _merge_namespaces(term: AffinityTerm, namespaces: Mapping[str, Mapping[str, str]]) -> AffinityTerm:
    """Unroll a non-empty namespaceSelector into the term's namespaces (``mergeAffinityTermNamespacesIfNotEmpty``).

    Only for the incoming pod's terms: afterwards the selector is "nothing" (or
    still "everything"), so matching never needs the other pod's namespace labels.
    """
    if term.namespace_selector.is_empty():
        return term
    selected = {name for name, labels in namespaces.items() if term.namespace_selector.matches(labels or {})}
    return AffinityTerm(
        namespaces=frozenset(term.namespaces | selected),
        selector=term.selector,
        topology_key=term.topology_key,
        namespace_selector=_nothing(),
    )


def _pod_matches_all_terms(terms: list[AffinityTerm], pod: "PodInfo") -> bool:
    """True iff ``terms`` is non-empty and ``pod`` matches every term (``podMatchesAllAffinityTerms``)."""
    if not terms:
        return False
    return all(t.matches(pod, None) for t in terms)


def _add(m: dict[TopologyPair, int], labels: Mapping[str, str], key: str, value: int) -> None:
    if key in labels:
        pair = (key, labels[key])
        n = m.get(pair, 0) + value
        if n == 0:
            m.pop(pair, None)
        else:
            m[pair] = n


@dataclass(slots=True)
class PreFilterState:
    """What PreFilter computes for Filter (upstream ``preFilterState``).

    Attributes
    ----------
    existing_anti_affinity_counts : dict[tuple[str, str], int]
        (topologyKey, value) -> existing pods whose required anti-affinity terms match the incoming pod.
    affinity_counts : dict[tuple[str, str], int]
        (topologyKey, value) -> existing pods matching all the incoming pod's required affinity terms
        (counted once per term).
    anti_affinity_counts : dict[tuple[str, str], int]
        (topologyKey, value) -> existing pods matching an incoming required anti-affinity term.
    pod_info : PodInfo
        The incoming pod.
    affinity_terms, anti_affinity_terms : list[AffinityTerm]
        The incoming pod's required terms with namespaceSelector unrolled.
    namespace_labels : dict[str, str]
        Labels of the incoming pod's namespace.
    """

    existing_anti_affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    anti_affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    pod_info: Any = None
    affinity_terms: list[AffinityTerm] = field(default_factory=list)
    anti_affinity_terms: list[AffinityTerm] = field(default_factory=list)
    namespace_labels: dict[str, str] = field(default_factory=dict)

    def clone(self) -> "PreFilterState":
        """Copy the counters; the pod and its terms are shared (they do not change)."""
        return PreFilterState(
            dict(self.existing_anti_affinity_counts),
            dict(self.affinity_counts),
            dict(self.anti_affinity_counts),
            self.pod_info,
            self.affinity_terms,
            self.anti_affinity_terms,
            self.namespace_labels,
        )

    def update_with_pod(self, p: "PodInfo", node_labels: Mapping[str, str], multiplier: int) -> None:
        """Add (``1``) or remove (``-1``) the matches of pod ``p`` on a node with ``node_labels`` (``updateWithPod``)."""
        for t in p.required_anti_affinity_terms:
            if t.matches(self.pod_info, self.namespace_labels):
                _add(self.existing_anti_affinity_counts, node_labels, t.topology_key, multiplier)
        if _pod_matches_all_terms(self.affinity_terms, p):
            for t in self.affinity_terms:
                _add(self.affinity_counts, node_labels, t.topology_key, multiplier)
        for t in self.anti_affinity_terms:
            if t.matches(p, None):
                _add(self.anti_affinity_counts, node_labels, t.topology_key, multiplier)


@dataclass(slots=True)
class PreScoreState:
    """What PreScore computes for Score (upstream ``preScoreState``).

    Attributes
    ----------
    topology_score : dict[str, dict[str, int]]
        topologyKey -> value -> summed weight (positive attracts, negative repels).
    """

    topology_score: dict[str, dict[str, int]] = field(default_factory=dict)

    def clone(self) -> "PreScoreState":
        return self


def _process_term(
    m: dict[str, dict[str, int]], term: AffinityTerm, weight: int, pod: "PodInfo",
    ns_labels: Mapping[str, str] | None, node_labels: Mapping[str, str], multiplier: int,
) -> None:
    if term.matches(pod, ns_labels) and term.topology_key in node_labels:
        vals = m.setdefault(term.topology_key, {})
        v = node_labels[term.topology_key]
        vals[v] = vals.get(v, 0) + weight * multiplier


def _process_terms(
    m: dict[str, dict[str, int]], terms: Iterable[WeightedAffinityTerm], pod: "PodInfo",
    ns_labels: Mapping[str, str] | None, node_labels: Mapping[str, str], multiplier: int,
) -> None:
    for wt in terms:
        _process_term(m, wt.term, wt.weight, pod, ns_labels, node_labels, multiplier)


class InterPodAffinity:
    """Pod affinity and anti-affinity (PreFilter, Filter, PreScore, Score, NormalizeScore).

    Parameters
    ----------
    handle : Handle
        ``handle.snapshot`` (nodes and their pods) and ``handle.objects.namespaces``
        (namespace labels for ``namespaceSelector``).
    hard_pod_affinity_weight : int
        Score weight, in [0, 100], of an existing pod's *required* affinity term
        that the incoming pod matches (symmetry). Default 1.
    ignore_preferred_terms_of_existing_pods : bool
        Skip scoring when the incoming pod has no preferred terms, instead of
        honouring existing pods' preferences. Default False.

    See Also
    --------
    kubenotes.scheduler.plugins.podtopologyspread.PodTopologySpread : spreading instead of (anti-)affinity.
    kubenotes.scheduler.framework.node_info.AffinityTerm : the parsed term and its ``matches``.

    Notes
    -----
    Pods are assumed already parsed (``PodInfo``): upstream's "parsing pod"
    UnschedulableAndUnresolvable status for bad selectors is raised earlier, as
    ``FieldError``, when the ``PodInfo`` is built. Queueing hints are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/plugin.go

    Examples
    --------
    >>> import types
    >>> InterPodAffinity(types.SimpleNamespace(snapshot=None, objects=None)).name()
    'InterPodAffinity'
    """

    def __init__(self, handle: Any, hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT,
                 ignore_preferred_terms_of_existing_pods: bool = False):
        self.handle = handle
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_preferred_terms_of_existing_pods

    def name(self) -> str:
        """``InterPodAffinity``."""
        return NAME

    # -- helpers ---------------------------------------------------------
    def _namespaces(self) -> Mapping[str, Mapping[str, str]]:
        objects = getattr(self.handle, "objects", None)
        return getattr(objects, "namespaces", None) or {}

    def _namespace_labels(self, ns: str) -> dict[str, str]:
        return dict(self._namespaces().get(ns, {}) or {})

    # -- PreFilter / Filter ----------------------------------------------
    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]:
        """Count existing matches per topology pair; Skip when nothing can constrain the pod.

        Parameters
        ----------
        nodes : list[NodeInfo]
            All nodes of the snapshot.

        Notes
        -----
        Upstream's ``getExistingAntiAffinityCounts`` and
        ``getIncomingAffinityAntiAffinityCounts``; when ``nodes`` is the
        snapshot's own node list, the counts come from the whole-snapshot
        index (same maps, see the module notes).
        """
        namespaces = self._namespaces()
        s = PreFilterState(
            pod_info=pod,
            affinity_terms=[_merge_namespaces(t, namespaces) for t in pod.required_affinity_terms],
            anti_affinity_terms=[_merge_namespaces(t, namespaces) for t in pod.required_anti_affinity_terms],
            namespace_labels=self._namespace_labels(pod.namespace),
        )
        arrays = snapshot_arrays(self.handle.snapshot, nodes)
        counts = arrays.counts_of(NAME) if arrays is not None else None
        if counts is not None:
            counts.pre_filter_counts(arrays, s, pod)
        else:
            self._pre_filter_counts(s, pod, nodes)
        if not s.existing_anti_affinity_counts and not s.affinity_terms and not s.anti_affinity_terms:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, Status()

    def _pre_filter_counts(self, s: PreFilterState, pod: "PodInfo", nodes: list["NodeInfo"]) -> None:
        """The counters of ``s``, walking every pod of ``nodes`` (``getExistingAntiAffinityCounts``...)."""
        for ni in self.handle.snapshot.have_pods_with_required_anti_affinity_list():
            if ni.node is None:
                continue
            for existing in ni.pods_with_required_anti_affinity:
                for t in existing.required_anti_affinity_terms:
                    if t.matches(pod, s.namespace_labels):
                        _add(s.existing_anti_affinity_counts, ni.labels, t.topology_key, 1)
        if s.affinity_terms or s.anti_affinity_terms:
            for ni in nodes:
                if ni.node is None:
                    continue
                for existing in ni.pods:
                    if _pod_matches_all_terms(s.affinity_terms, existing):
                        for t in s.affinity_terms:
                            _add(s.affinity_counts, ni.labels, t.topology_key, 1)
                    for t in s.anti_affinity_terms:
                        if t.matches(existing, None):
                            _add(s.anti_affinity_counts, ni.labels, t.topology_key, 1)

    def pre_filter_extensions(self) -> "InterPodAffinity":
        """AddPod/RemovePod update the counters incrementally (used by preemption)."""
        return self

    def _pre_filter_state(self, state: "CycleState") -> PreFilterState | Status:
        try:
            return state.read(PRE_FILTER_STATE_KEY)
        except NotFound:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')

    def add_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_add: "PodInfo", node_info: "NodeInfo") -> Status:
        """Count ``pod_to_add`` as running on ``node_info`` (``AddPod``)."""
        s = self._pre_filter_state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(pod_to_add, node_info.labels, 1)
        return Status()

    def remove_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_remove: "PodInfo", node_info: "NodeInfo") -> Status:
        """Forget ``pod_to_remove`` on ``node_info`` (``RemovePod``)."""
        s = self._pre_filter_state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(pod_to_remove, node_info.labels, -1)
        return Status()

    @staticmethod
    def _satisfy_existing_pods_anti_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
        if s.existing_anti_affinity_counts:
            for pair in labels.items():
                if s.existing_anti_affinity_counts.get(pair, 0) > 0:
                    return False
        return True

    @staticmethod
    def _satisfy_pod_anti_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
        if s.anti_affinity_counts:
            for t in s.anti_affinity_terms:
                if t.topology_key in labels and s.anti_affinity_counts.get((t.topology_key, labels[t.topology_key]), 0) > 0:
                    return False
        return True

    @staticmethod
    def _satisfy_pod_affinity(s: PreFilterState, labels: Mapping[str, str]) -> bool:
        pods_exist = True
        for t in s.affinity_terms:
            if t.topology_key not in labels:
                return False  # every topology key must exist on the node
            if s.affinity_counts.get((t.topology_key, labels[t.topology_key]), 0) <= 0:
                pods_exist = False
        if not pods_exist:
            # The first pod of a group with affinity to itself: allowed when no
            # pod anywhere matches and the pod matches all its own terms.
            return not s.affinity_counts and _pod_matches_all_terms(s.affinity_terms, s.pod_info)
        return True

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Check affinity, then anti-affinity, then existing pods' anti-affinity (in upstream order)."""
        s = self._pre_filter_state(state)
        if isinstance(s, Status):
            return s
        labels = node_info.labels
        if not self._satisfy_pod_affinity(s, labels):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [ERR_REASON_AFFINITY_RULES_NOT_MATCH])
        if not self._satisfy_pod_anti_affinity(s, labels):
            return Status(Code.UNSCHEDULABLE, [ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH])
        if not self._satisfy_existing_pods_anti_affinity(s, labels):
            return Status(Code.UNSCHEDULABLE, [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH])
        return Status()

    # -- PreScore / Score ------------------------------------------------
    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Sum term weights per topology pair over the cluster; Skip when nothing contributes."""
        has_constraints = bool(pod.preferred_affinity_terms or pod.preferred_anti_affinity_terms)
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status.skip()
        snapshot = self.handle.snapshot
        namespaces = self._namespaces()
        affinity = [WeightedAffinityTerm(_merge_namespaces(w.term, namespaces), w.weight) for w in pod.preferred_affinity_terms]
        anti = [WeightedAffinityTerm(_merge_namespaces(w.term, namespaces), w.weight) for w in pod.preferred_anti_affinity_terms]
        ns_labels = self._namespace_labels(pod.namespace)
        s = PreScoreState()
        arrays = snapshot_arrays(snapshot, snapshot.list())
        counts = arrays.counts_of(NAME) if arrays is not None else None
        if counts is not None:
            contributed = counts.pre_score_weights(
                arrays, s.topology_score, pod, ns_labels, affinity, anti, self.hard_pod_affinity_weight)
        else:
            all_nodes = snapshot.list() if has_constraints else snapshot.have_pods_with_affinity_list()
            contributed = self._pre_score_weights(s, pod, ns_labels, affinity, anti, all_nodes, has_constraints)
        if not contributed:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, s)
        return Status()

    def _pre_score_weights(self, s: PreScoreState, pod: "PodInfo", ns_labels: Mapping[str, str],
                           affinity: list[WeightedAffinityTerm], anti: list[WeightedAffinityTerm],
                           all_nodes: Iterable["NodeInfo"], has_constraints: bool) -> bool:
        """Fill ``s.topology_score`` walking the pods of ``all_nodes``; True when some term contributed."""
        contributed = False
        for ni in all_nodes:
            if ni.node is None:
                continue
            labels = ni.labels
            topo: dict[str, dict[str, int]] = {}
            for existing in (ni.pods if has_constraints else ni.pods_with_affinity):
                if not labels:
                    continue
                _process_terms(topo, affinity, existing, None, labels, 1)
                _process_terms(topo, anti, existing, None, labels, -1)
                if self.hard_pod_affinity_weight > 0:
                    for t in existing.required_affinity_terms:
                        _process_term(topo, t, self.hard_pod_affinity_weight, pod, ns_labels, labels, 1)
                _process_terms(topo, existing.preferred_affinity_terms, pod, ns_labels, labels, 1)
                _process_terms(topo, existing.preferred_anti_affinity_terms, pod, ns_labels, labels, -1)
            if topo:
                contributed = True
                for key, vals in topo.items():
                    dst = s.topology_score.setdefault(key, {})
                    for v, w in vals.items():
                        dst[v] = dst.get(v, 0) + w
        return contributed

    def _pre_score_state(self, state: "CycleState") -> PreScoreState | Status:
        try:
            return state.read(PRE_SCORE_STATE_KEY)
        except NotFound:
            return Status.error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Sum of the weights of the topology pairs the node has (positive attracts, negative repels)."""
        s = self._pre_score_state(state)
        if isinstance(s, Status):
            return 0, s
        total = 0
        for key, vals in s.topology_score.items():
            if key in node_info.labels:
                total += vals.get(node_info.labels[key], 0)
        return total, Status()

    def score_extensions(self) -> "InterPodAffinity":
        """NormalizeScore is implemented here."""
        return self

    def normalize_score(self, state: "CycleState", pod: "PodInfo", scores: list[NodeScore]) -> Status:
        """Map ``[min, max]`` linearly onto ``[0, 100]`` (truncating); all 0 when min == max."""
        s = self._pre_score_state(state)
        if isinstance(s, Status):
            return s
        if not s.topology_score or not scores:
            return Status()
        lo = min(ns.score for ns in scores)
        hi = max(ns.score for ns in scores)
        diff = hi - lo
        for ns in scores:
            f = float(MAX_NODE_SCORE) * ((ns.score - lo) / diff) if diff > 0 else 0.0
            ns.score = int(f)
        return Status()


def _field_invalid(path: str, value: Any, detail: str) -> str:
    return f"{path}: Invalid value: {value}: {detail}"


def new(args: Mapping[str, Any] | None, handle: Any) -> InterPodAffinity:
    """Build InterPodAffinity from raw ``InterPodAffinityArgs`` (camelCase keys).

    Parameters
    ----------
    args : mapping or None
        ``hardPodAffinityWeight`` (int in [0, 100], default 1) and
        ``ignorePreferredTermsOfExistingPods`` (bool, default False).
        ``apiVersion``/``kind`` keys are ignored.
    handle : Handle

    Returns
    -------
    InterPodAffinity

    Raises
    ------
    ConfigError
        On unknown keys, wrong types, or a weight outside [0, 100]
        (upstream message ``hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]``).

    Examples
    --------
    >>> new({"hardPodAffinityWeight": 5}, None).hard_pod_affinity_weight
    5
    >>> new({"hardPodAffinityWeight": 101}, None)
    Traceback (most recent call last):
    ...
    kubenotes.errors.ConfigError: hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]
    """
    args = dict(args or {})
    unknown = sorted(set(args) - {"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods", "apiVersion", "kind"})
    if unknown:
        raise ConfigError(f'InterPodAffinityArgs: unknown field "{unknown[0]}"')
    weight = args.get("hardPodAffinityWeight", DEFAULT_HARD_POD_AFFINITY_WEIGHT)
    if weight is None:
        weight = DEFAULT_HARD_POD_AFFINITY_WEIGHT
    if isinstance(weight, bool) or not isinstance(weight, int):
        raise ConfigError(f"InterPodAffinityArgs.hardPodAffinityWeight: expected an integer, got {weight!r}")
    ignore = args.get("ignorePreferredTermsOfExistingPods", False)
    if ignore is None:
        ignore = False
    if not isinstance(ignore, bool):
        raise ConfigError(f"InterPodAffinityArgs.ignorePreferredTermsOfExistingPods: expected a boolean, got {ignore!r}")
    if weight < 0 or weight > 100:
        raise ConfigError(_field_invalid("hardPodAffinityWeight", weight, "not in valid range [0, 100]"))
    return InterPodAffinity(handle, weight, ignore)
