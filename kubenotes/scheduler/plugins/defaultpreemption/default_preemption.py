"""The ``DefaultPreemption`` PostFilter plugin: evict lower-priority pods to make room.

Mirrors ``pkg/scheduler/framework/plugins/defaultpreemption`` of
kube-scheduler v1.34. When Filter leaves no feasible node, PostFilter asks
whether removing lower-priority pods from some node would let the pod fit,
picks the node where that hurts least, and nominates the pod there. The
generic search lives in :mod:`.preemption` (``Evaluator``); this module holds
the default policy: who may preempt, which pods are victims on a node, and
how many nodes to examine.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/validation/validation_pluginargs.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/defaults.go
https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from kubenotes.errors import ConfigError
from kubenotes.scheduler.fast.defaultpreemption import VictimsMemo
from kubenotes.scheduler.framework.interface import Code, PostFilterResult, Status
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import names
from kubenotes.scheduler.plugins.defaultpreemption.preemption import (
    DISRUPTION_TARGET,
    POD_REASON_PREEMPTION_BY_SCHEDULER,
    Candidate,
    Evaluator,
    Victims,
    sort_by_importance,
    more_important_pod,
    nominated_node_name,
    compile_pdb_selector,
)

__all__ = [
    "NAME",
    "NO_VICTIMS_REASON",
    "NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER",
    "NOT_ELIGIBLE_TERMINATING_POD",
    "PREEMPTION_MESSAGE_PREFIX",
    "PREEMPT_NEVER",
    "DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE",
    "DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE",
    "DefaultPreemptionArgs",
    "validate_default_preemption_args",
    "DefaultPreemption",
    "filter_pods_with_pdb_violation",
    "pod_terminating_by_preemption",
    "new",
]

#: Plugin name (``names.DefaultPreemption``).
NAME = names.DEFAULT_PREEMPTION

#: SelectVictimsOnNode status when no pod on the node has a lower priority.
NO_VICTIMS_REASON = "No preemption victims found for incoming pod"
#: PodEligibleToPreemptOthers reason for ``preemptionPolicy: Never``.
NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
#: PodEligibleToPreemptOthers reason while earlier victims are still terminating.
NOT_ELIGIBLE_TERMINATING_POD = "not eligible due to a terminating pod on the nominated node."
#: PostFilter prefixes every non-empty message with this.
PREEMPTION_MESSAGE_PREFIX = "preemption: "
#: ``v1.PreemptNever``.
PREEMPT_NEVER = "Never"

#: Default of ``minCandidateNodesPercentage`` (v1 defaults).
DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
#: Default of ``minCandidateNodesAbsolute`` (v1 defaults).
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100

_ARG_FIELDS = {
    "minCandidateNodesPercentage": "min_candidate_nodes_percentage",
    "minCandidateNodesAbsolute": "min_candidate_nodes_absolute",
}


def _invalid(field: str, value: Any, detail: str) -> str:
    """``field.Invalid(path, value, detail).Error()``."""
    shown = f'"{value}"' if isinstance(value, str) else value
    return f"{field}: Invalid value: {shown}: {detail}"


@dataclass(slots=True)
class DefaultPreemptionArgs:
    """Arguments of DefaultPreemption (``config.DefaultPreemptionArgs``).

    The number of candidate nodes the dry run looks for is
    ``max(num_nodes * percentage // 100, absolute)``, capped at the number
    of potential nodes.

    Parameters
    ----------
    min_candidate_nodes_percentage : int
        Percentage of potential nodes, in [0, 100]; default 10.
    min_candidate_nodes_absolute : int
        Absolute minimum, >= 0; default 100.

    Examples
    --------
    >>> DefaultPreemptionArgs.from_dict({"minCandidateNodesPercentage": 40})
    DefaultPreemptionArgs(min_candidate_nodes_percentage=40, min_candidate_nodes_absolute=100)
    """

    min_candidate_nodes_percentage: int = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE
    min_candidate_nodes_absolute: int = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "DefaultPreemptionArgs":
        """Decode ``pluginConfig[].args`` (camelCase keys), filling in v1 defaults for missing fields.

        Parameters
        ----------
        d : mapping or None
            May carry ``apiVersion`` and ``kind: DefaultPreemptionArgs``.

        Returns
        -------
        DefaultPreemptionArgs
            Not yet validated.

        Raises
        ------
        ConfigError
            For an unknown field, a wrong ``kind`` or a non-integer value.
        """
        args = cls()
        for k, v in (d or {}).items():
            if k == "apiVersion":
                continue
            if k == "kind":
                if v != "DefaultPreemptionArgs":
                    raise ConfigError(f'got args of kind "{v}", want DefaultPreemptionArgs')
                continue
            attr = _ARG_FIELDS.get(k)
            if attr is None:
                raise ConfigError(f'strict decoding error: unknown field "{k}"')
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"{k}: Invalid value: {v!r}: must be an integer")
            setattr(args, attr, v)
        return args


def validate_default_preemption_args(args: DefaultPreemptionArgs) -> None:
    """Check the arguments as ``ValidateDefaultPreemptionArgs`` does.

    Parameters
    ----------
    args : DefaultPreemptionArgs

    Raises
    ------
    ConfigError
        With upstream's message, e.g.
        ``minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]``;
        several errors are joined as ``[a, b]``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/validation/validation_pluginargs.go

    Examples
    --------
    >>> validate_default_preemption_args(DefaultPreemptionArgs(0, 0))
    Traceback (most recent call last):
    ...
    kubenotes.errors.ConfigError: [minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]
    """
    pct, absolute = args.min_candidate_nodes_percentage, args.min_candidate_nodes_absolute
    errs: list[str] = []
    if pct < 0 or pct > 100:
        errs.append(_invalid("minCandidateNodesPercentage", pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(_invalid("minCandidateNodesAbsolute", absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(_invalid("minCandidateNodesPercentage", pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(_invalid("minCandidateNodesAbsolute", absolute, "cannot be zero at the same time as minCandidateNodesPercentage"))
    if len(errs) == 1:
        raise ConfigError(errs[0])
    if errs:
        raise ConfigError("[" + ", ".join(errs) + "]")


def pod_terminating_by_preemption(pod: PodInfo) -> bool:
    """True for a pod being deleted because the scheduler preempted it (``podTerminatingByPreemption``).

    The pod must have ``metadata.deletionTimestamp`` and a ``DisruptionTarget``
    condition with status ``True`` and reason ``PreemptionByScheduler``.

    Parameters
    ----------
    pod : PodInfo

    Returns
    -------
    bool

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> pod_terminating_by_preemption(PodInfo(make_pod("p")))
    False
    """
    if pod.pod.metadata is None or pod.pod.metadata.deletionTimestamp is None:
        return False
    st = pod.pod.status
    for c in (st.conditions if st is not None else None) or ():
        if c.type == DISRUPTION_TARGET:
            return c.status == "True" and c.reason == POD_REASON_PREEMPTION_BY_SCHEDULER
    return False


def filter_pods_with_pdb_violation(pods: Sequence[PodInfo], pdbs: Sequence[Any]) -> tuple[list[PodInfo], list[PodInfo]]:
    """Split pods into those whose eviction would break a PDB and the others (``filterPodsWithPDBViolation``).

    Pods are taken in the given order; each one matching a PDB uses up one of
    that PDB's ``status.disruptionsAllowed`` (unless it is already listed in
    ``status.disruptedPods``); a pod that drives any budget below zero is
    violating. The order of ``pods`` is kept in both outputs.

    Parameters
    ----------
    pods : sequence of PodInfo
    pdbs : sequence of PodDisruptionBudget
        lightkube objects; a missing ``disruptionsAllowed`` counts as 0.

    Returns
    -------
    (list[PodInfo], list[PodInfo])
        ``(violating, non_violating)``.

    Examples
    --------
    >>> from lightkube.resources.policy_v1 import PodDisruptionBudget
    >>> from kubenotes.scheduler.testing import make_pod
    >>> pdb = PodDisruptionBudget.from_dict({"metadata": {"name": "b", "namespace": "default"},
    ...     "spec": {"selector": {"matchLabels": {"app": "a"}}}, "status": {"disruptionsAllowed": 1,
    ...     "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2}})
    >>> ps = [PodInfo(make_pod(n, labels={"app": "a"})) for n in ("a1", "a2")]
    >>> [[p.name for p in g] for g in filter_pods_with_pdb_violation(ps, [pdb])]
    [['a2'], ['a1']]
    """
    allowed = [int((pdb.status.disruptionsAllowed if pdb.status is not None else 0) or 0) for pdb in pdbs]
    selectors = [compile_pdb_selector(pdb.spec.selector if pdb.spec is not None else None) for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for p in pods:
        violated = False
        if p.labels:
            for i, pdb in enumerate(pdbs):
                ns = (pdb.metadata.namespace if pdb.metadata is not None else None) or "default"
                if ns != p.namespace:
                    continue
                sel = selectors[i]
                if sel is None or not sel.matches(p.labels):
                    continue
                disrupted = (pdb.status.disruptedPods if pdb.status is not None else None) or {}
                if p.name in disrupted:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(p)
    return violating, non_violating


class DefaultPreemption:
    """PostFilter plugin that preempts lower-priority pods (``defaultpreemption.DefaultPreemption``).

    Parameters
    ----------
    args : DefaultPreemptionArgs
        Already validated.
    handle : Handle
        Uses ``snapshot``, ``objects.pod_disruption_budgets``, ``rng``,
        ``run_filter_plugins_with_nominated_pods``,
        ``run_pre_filter_extension_add_pod`` and
        ``run_pre_filter_extension_remove_pod``; optionally ``pod_lister``
        (to re-read the preemptor).

    Attributes
    ----------
    evaluator : Evaluator
        The generic engine, driven with this plugin as its policy.
    is_eligible_pod : callable(NodeInfo, PodInfo, PodInfo) -> bool
        Extra victim filter ``(node_info, victim, preemptor)``, on top of
        "victim has lower priority"; accepts everything by default.
    more_important_pod : callable(PodInfo, PodInfo) -> bool
        Victim ordering, most important first; by default higher priority,
        then earlier start.

    See Also
    --------
    kubenotes.scheduler.plugins.defaultpreemption.preemption.Evaluator

    Notes
    -----
    Simplified compared with upstream v1.34:

    * no PreEnqueue gate and no cluster events: with synchronous victim
      deletion by the scheduler core there is no "preemption in flight" to
      wait for;
    * the dry run is sequential and ``GetOffsetAndNumCandidates`` draws the
      offset from ``handle.rng.randrange(num_nodes)`` (upstream:
      ``rand.Int31n``), so offsets are seeded but differ from Go's stream;
    * PDBs without ``status.disruptionsAllowed`` get it from
      :func:`~.preemption.disruptions_allowed_from_spec`.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go

    Examples
    --------
    >>> DefaultPreemption(DefaultPreemptionArgs(), handle=None).calculate_num_candidates(2000)
    200
    """

    def __init__(self, args: DefaultPreemptionArgs, handle: Any):
        self.args = args
        self.handle = handle
        self.is_eligible_pod: Callable[[NodeInfo, PodInfo, PodInfo], bool] = lambda node_info, victim, preemptor: True
        self.more_important_pod: Callable[[PodInfo, PodInfo], bool] = more_important_pod
        self.evaluator = Evaluator(NAME, handle, self)
        self._default_hooks = (self.is_eligible_pod, self.more_important_pod)
        self.victims_memo = VictimsMemo(self)  # kubenotes only: the dry run's speed path

    def name(self) -> str:
        """``"DefaultPreemption"``."""
        return NAME

    # -- PostFilter ----------------------------------------------------------

    def post_filter(self, state: Any, pod: PodInfo, filtered_node_status_map: Mapping[str, Status]) -> tuple[PostFilterResult | None, Status]:
        """Preempt for ``pod`` after Filter found no node (``PostFilter``).

        Parameters
        ----------
        state : CycleState
            The cycle's state after PreFilter.
        pod : PodInfo
            The unschedulable pod.
        filtered_node_status_map : dict[str, Status]
            node name -> Filter status. Nodes absent from it count as
            ``UnschedulableAndUnresolvable`` unless the mapping has an
            ``absent_nodes_status`` attribute (upstream's ``NodeToStatus``).

        Returns
        -------
        (PostFilterResult or None, Status)
            On success the result nominates a node and lists the victims
            (most important first) and the status is Success. Otherwise the
            status message starts with ``"preemption: "``, e.g.
            ``preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No
            preemption victims found for incoming pod.``; the result is then
            ``None`` (not eligible, or an error) or nominates ``""`` (clear
            any previous nomination).
        """
        result, status = self.evaluator.preempt(state, pod, filtered_node_status_map)
        msg = status.message()
        if msg:
            return result, Status(status.code, [PREEMPTION_MESSAGE_PREFIX + msg])
        return result, status

    # -- preemption.Interface --------------------------------------------------

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """How many candidates the dry run should find (``calculateNumCandidates``).

        ``num_nodes * minCandidateNodesPercentage // 100``, raised to
        ``minCandidateNodesAbsolute``, capped at ``num_nodes``.

        Examples
        --------
        >>> pl = DefaultPreemption(DefaultPreemptionArgs(40, 1), handle=None)
        >>> pl.calculate_num_candidates(5), pl.calculate_num_candidates(1)
        (2, 1)
        """
        n = num_nodes * self.args.min_candidate_nodes_percentage // 100
        n = max(n, self.args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random start offset in ``[0, num_nodes)`` and :meth:`calculate_num_candidates` (``GetOffsetAndNumCandidates``).

        Raises
        ------
        ValueError
            When ``num_nodes`` is 0 (upstream panics).
        """
        return self.handle.rng.randrange(num_nodes), self.calculate_num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        """node name -> victims (``CandidatesToVictimsMap``)."""
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> None:
        """None: use upstream's default tie-breakers (``OrderedScoreFuncs``)."""
        return None

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: PodInfo) -> bool:
        """Victim has a lower priority and passes :attr:`is_eligible_pod` (``isPreemptionAllowed``)."""
        return victim.priority < preemptor.priority and self.is_eligible_pod(node_info, victim, preemptor)

    def pod_eligible_to_preempt_others(self, pod: PodInfo, nominated_node_status: Status | None) -> tuple[bool, str]:
        """May ``pod`` preempt at all? (``PodEligibleToPreemptOthers``).

        Not when ``spec.preemptionPolicy`` is ``Never``, nor while a
        lower-priority pod on its nominated node is still terminating because
        of an earlier preemption (unless that node is now
        ``UnschedulableAndUnresolvable`` for the pod).

        Parameters
        ----------
        pod : PodInfo
        nominated_node_status : Status or None
            Filter status of ``status.nominatedNodeName`` (None means Success).

        Returns
        -------
        (bool, str)
            Eligibility and, when not eligible, the upstream reason.
        """
        if (pod.pod.spec.preemptionPolicy if pod.pod.spec is not None else None) == PREEMPT_NEVER:
            return False, NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER
        nom = nominated_node_name(pod)
        if nom:
            if nominated_node_status is not None and nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self.handle.snapshot.get(nom)
            if node_info is not None:
                for p in node_info.pods:
                    if self.is_preemption_allowed(node_info, p, pod) and pod_terminating_by_preemption(p):
                        return False, NOT_ELIGIBLE_TERMINATING_POD
        return True, ""

    def select_victims_on_copy(self, state: Any, pod: PodInfo, node_info: NodeInfo, pdbs: list[Any]
                               ) -> tuple[list[PodInfo], int, Status]:
        """:meth:`select_victims_on_node` on copies of ``state`` and ``node_info`` (one node of ``DryRunPreemption``).

        kubenotes only: the dry run calls this; it runs
        :meth:`select_victims_on_node` on copies, or reuses a remembered
        result (:meth:`kubenotes.scheduler.fast.defaultpreemption.VictimsMemo.select_victims_on_copy`).

        Returns
        -------
        (list[PodInfo], int, Status)
            As :meth:`select_victims_on_node`; the caller's to keep.
        """
        return self.victims_memo.select_victims_on_copy(state, pod, node_info, pdbs)

    def select_victims_on_node(self, state: Any, pod: PodInfo, node_info: NodeInfo, pdbs: list[Any]) -> tuple[list[PodInfo], int, Status]:
        """The fewest, least important pods to evict from ``node_info`` (``SelectVictimsOnNode``).

        1. Remove every pod that may be preempted (lower priority and
           :attr:`is_eligible_pod`), updating PreFilter state through
           ``RemovePod`` extensions.
        2. If the pod still does not pass Filter (with nominated pods), the
           node cannot help: return that status.
        3. Re-add ("reprieve") the removed pods, most important first -- first
           those whose eviction would break a PDB, then the others -- keeping
           each one that still lets the pod fit; the rest are the victims.

        Parameters
        ----------
        state : CycleState
            A copy; it is modified.
        pod : PodInfo
            The preemptor.
        node_info : NodeInfo
            A copy; it is modified.
        pdbs : list of PodDisruptionBudget

        Returns
        -------
        (list[PodInfo], int, Status)
            Victims (most important first), how many of them violate a PDB,
            and Success; or ``([], 0, status)`` with
            ``UnschedulableAndUnresolvable`` "No preemption victims found for
            incoming pod", the Filter failure, or an Error.

        Notes
        -----
        Pod affinity of the preemptor to a victim is not considered, as
        upstream: victims are removed before checking the fit.

        kubenotes only: when every Filter that runs for the pod declares that
        it reads the node object (``filter_ignores_node_pods``) or resource
        totals (``filter_reads_requests_only``) and no PreFilter extension
        runs, the steps above run on a
        :class:`~kubenotes.scheduler.framework.node_info.RequestsLedger`
        (totals and a pod count) and a reprieve asks only the totals
        Filters again (:meth:`kubenotes.scheduler.fast.defaultpreemption.VictimsMemo.ledger_steps`);
        the victims and statuses are the same
        (tests/scheduler/plugins/test_defaultpreemption.py runs upstream's
        cases and whole clusters both ways).
        """
        h = self.handle

        def remove(p: PodInfo) -> Status | None:
            try:
                node_info.remove_pod(p)
            except Exception as e:  # NotFound: the pod vanished from the copy
                return Status(Code.ERROR, [str(e)])
            s = h.run_pre_filter_extension_remove_pod(state, pod, p, node_info)
            if not s.is_success():
                return Status(Code.ERROR, [s.message()])
            return None

        def add(p: PodInfo) -> Status | None:
            node_info.add_pod(p)
            s = h.run_pre_filter_extension_add_pod(state, pod, p, node_info)
            if not s.is_success():
                return Status(Code.ERROR, [s.message()])
            return None

        def fits() -> bool:
            return h.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success()

        potential = [p for p in list(node_info.pods) if self.is_preemption_allowed(node_info, p, pod)]
        ledger = self.victims_memo.ledger_steps(state, pod, node_info) if potential else None
        if ledger is not None:  # kubenotes only: the same steps on resource totals (scheduler/fast/defaultpreemption.py)
            node_info, remove, add, fits = ledger

        for p in potential:
            err = remove(p)
            if err is not None:
                return [], 0, err
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [NO_VICTIMS_REASON])

        status = h.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not status.is_success():
            return [], 0, status

        sort_by_importance(potential, self.more_important_pod)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []
        num_violating = 0

        def reprieve(p: PodInfo) -> tuple[bool, Status | None]:
            err = add(p)
            if err is not None:
                return False, err
            if not fits():
                err = remove(p)
                if err is not None:
                    return False, err
                victims.append(p)
                return False, None
            return True, None

        for p in violating:
            kept, err = reprieve(p)
            if err is not None:
                return [], 0, err
            if not kept:
                num_violating += 1
        for p in non_violating:
            _, err = reprieve(p)
            if err is not None:
                return [], 0, err
        if violating and non_violating:
            sort_by_importance(victims, self.more_important_pod)
        return victims, num_violating, Status()


def new(args: Mapping[str, Any] | DefaultPreemptionArgs | None, handle: Any) -> DefaultPreemption:
    """Plugin factory (``defaultpreemption.New``).

    Parameters
    ----------
    args : dict, DefaultPreemptionArgs or None
        ``pluginConfig[].args`` for DefaultPreemption (camelCase keys);
        missing fields take the v1 defaults (10 %, 100 nodes).
    handle : Handle

    Returns
    -------
    DefaultPreemption

    Raises
    ------
    ConfigError
        When the arguments cannot be decoded or fail validation.

    Examples
    --------
    >>> new({"minCandidateNodesAbsolute": -1}, handle=None)
    Traceback (most recent call last):
    ...
    kubenotes.errors.ConfigError: minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)
    >>> new(None, handle=None).args
    DefaultPreemptionArgs(min_candidate_nodes_percentage=10, min_candidate_nodes_absolute=100)
    """
    a = args if isinstance(args, DefaultPreemptionArgs) else DefaultPreemptionArgs.from_dict(args)
    validate_default_preemption_args(a)
    return DefaultPreemption(a, handle)
