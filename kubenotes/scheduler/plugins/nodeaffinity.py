"""NodeAffinity: ``spec.nodeSelector`` and node affinity, required (Filter) and preferred (Score).

Mirrors ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`` (v1.34):

* **PreFilter** returns ``Skip`` for a pod with neither a node selector nor
  required node affinity (and no scheduler-enforced ``addedAffinity``);
  otherwise it parses the constraints once into the CycleState. When every
  required term names nodes with ``matchFields`` ``metadata.name In``, it
  returns a :class:`PreFilterResult` with the union over terms of the
  intersection within each term, so the scheduler only looks at those nodes;
  an empty union is the conflict ``"pod affinity terms conflict"``.
* **Filter** rejects nodes failing ``addedAffinity``
  (``"node(s) didn't match scheduler-enforced node affinity"``) or the pod's
  own constraints (``"node(s) didn't match Pod's node affinity/selector"``),
  both ``UnschedulableAndUnresolvable``.
* **PreScore**/**Score** sum the weights of matching preferred terms (the
  pod's and ``addedAffinity``'s); **NormalizeScore** rescales them to 0-100.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidateNodeAffinityArgs)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kubenotes.api.selectors import (
    OBJECT_NAME_FIELD,
    NodeSelector,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
)
from kubenotes.errors import ConfigError, FieldError
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, NodeScore, PreFilterResult, Status
from kubenotes.scheduler.plugins.helper import aggregate_errors, default_normalize_score
from kubenotes.scheduler.plugins.names import NODE_AFFINITY

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "ERR_REASON_POD",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_CONFLICT",
    "NodeAffinityArgs",
    "validate_node_affinity_args",
    "get_pod_preferred_node_affinity",
    "NodeAffinity",
    "new",
]

NAME = NODE_AFFINITY
#: CycleState key of the parsed required constraints.
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
#: CycleState key of the parsed preferred terms.
PRE_SCORE_STATE_KEY = "PreScore" + NAME

#: Filter reason: the pod's nodeSelector or required node affinity does not match.
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
#: Filter reason: the profile's ``addedAffinity`` does not match (``errReasonEnforced``).
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
#: PreFilter reason: the terms' ``metadata.name`` sets cannot all hold (``errReasonConflict``).
ERR_REASON_CONFLICT = "pod affinity terms conflict"

_ADDED_REQUIRED_PATH = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
_ADDED_PREFERRED_PATH = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _field_errors(e: FieldError) -> list[str]:
    return [str(x) for x in getattr(e, "errors", None) or [e]]


@dataclass
class NodeAffinityArgs:
    """``NodeAffinityArgs``: node affinity the profile adds to every pod.

    Attributes
    ----------
    added_affinity : lightkube NodeAffinity, dict or None
        ``addedAffinity``: its required part is ANDed with each pod's
        constraints, its preferred terms add to every pod's score.

    Examples
    --------
    >>> NodeAffinityArgs.from_config(None).added_affinity is None
    True
    """

    added_affinity: Any = None

    @classmethod
    def from_config(cls, raw: Mapping[str, Any] | None) -> "NodeAffinityArgs":
        """Parse raw pluginConfig args (no v1 defaults exist for this plugin).

        Raises
        ------
        ConfigError
            For an unknown field.
        """
        raw = dict(raw or {})
        raw.pop("apiVersion", None)
        raw.pop("kind", None)
        unknown = set(raw) - {"addedAffinity"}
        if unknown:
            raise ConfigError(f'unknown field "{sorted(unknown)[0]}"')
        return cls(raw.get("addedAffinity"))


def _parse_added(args: NodeAffinityArgs) -> tuple[NodeSelector | None, PreferredSchedulingTerms | None, list[str]]:
    aff = args.added_affinity
    if aff is None:
        return None, None, []
    errs: list[str] = []
    selector = prefs = None
    required = _get(aff, "requiredDuringSchedulingIgnoredDuringExecution")
    if required is not None:
        try:
            selector = NodeSelector.from_api(required, field_path=_ADDED_REQUIRED_PATH)
        except FieldError as e:
            errs += _field_errors(e)
    terms = _get(aff, "preferredDuringSchedulingIgnoredDuringExecution")
    if terms:
        try:
            prefs = PreferredSchedulingTerms.from_api(terms, field_path=_ADDED_PREFERRED_PATH)
        except FieldError as e:
            errs += _field_errors(e)
    return selector, prefs, errs


def validate_node_affinity_args(args: NodeAffinityArgs) -> list[str]:
    """``ValidateNodeAffinityArgs``: ``addedAffinity`` must parse.

    Returns
    -------
    list[str]
        ``field.Error`` messages with paths under ``addedAffinity``.

    Examples
    --------
    >>> validate_node_affinity_args(NodeAffinityArgs({"requiredDuringSchedulingIgnoredDuringExecution": {
    ...     "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]}}))
    ['addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: Invalid value: []string{"a", "b"}: must have one element']
    """
    return _parse_added(args)[2]


def get_pod_preferred_node_affinity(pod: Any) -> PreferredSchedulingTerms | None:
    """The pod's preferred node-affinity terms, or ``None`` when unset (``getPodPreferredNodeAffinity``).

    Raises
    ------
    FieldError
        When a term with non-zero weight does not parse.
    """
    terms = _get(_get(_get(pod.spec, "affinity"), "nodeAffinity"), "preferredDuringSchedulingIgnoredDuringExecution")
    if terms is None:
        return None
    return PreferredSchedulingTerms.from_api(terms)


class _PreFilterState:
    """The pod's parsed required constraints (``preFilterState``); clones share it (it never changes)."""

    __slots__ = ("required_node_selector_and_affinity",)

    def __init__(self, required: RequiredNodeAffinity):
        self.required_node_selector_and_affinity = required

    def clone(self) -> "_PreFilterState":
        return self


class _PreScoreState:
    """The pod's parsed preferred terms, or ``None`` (``preScoreState``); clones share it."""

    __slots__ = ("preferred_node_affinity",)

    def __init__(self, preferred: PreferredSchedulingTerms | None):
        self.preferred_node_affinity = preferred

    def clone(self) -> "_PreScoreState":
        return self


def _pre_filter_node_names(terms: list[Any]) -> set[str] | None:
    """Union over terms of each term's ``metadata.name In`` intersection; ``None`` when some term has none."""
    node_names: set[str] | None = None
    for t in terms:
        term_names: set[str] | None = None
        for r in _get(t, "matchFields") or ():
            if _get(r, "key") == OBJECT_NAME_FIELD and _get(r, "operator") == "In":
                s = set(_get(r, "values") or ())
                term_names = s if term_names is None else term_names & s
        if term_names is None:
            # A term without node-name affinity admits every node (terms are ORed).
            return None
        node_names = set(term_names) if node_names is None else node_names | term_names
    return node_names


class NodeAffinity:
    """The NodeAffinity plugin: PreFilter, Filter, PreScore, Score, NormalizeScore.

    Parameters
    ----------
    args : NodeAffinityArgs, optional
    handle : Handle, optional
        Unused.

    Raises
    ------
    ConfigError
        When ``addedAffinity`` does not parse (upstream's validation message).

    See Also
    --------
    kubenotes.api.selectors.RequiredNodeAffinity : the parsed required constraints.
    kubenotes.api.selectors.PreferredSchedulingTerms : the weighted preferred terms.

    Notes
    -----
    A pod's own affinity is parsed leniently, as upstream: a required term
    with an invalid value never matches; an invalid preferred term makes
    PreScore return ``Error``. Queueing hints are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> pl, state = NodeAffinity(), CycleState()
    >>> pod = PodInfo(make_pod("p", nodeSelector={"disk": "ssd"}))
    >>> pl.pre_filter(state, pod, [])[1].is_success()
    True
    >>> pl.filter(state, pod, NodeInfo(make_node("n1", labels={"disk": "hdd"}))).reasons
    ["node(s) didn't match Pod's node affinity/selector"]
    >>> pl.pre_filter(CycleState(), PodInfo(make_pod("q")), [])[1].is_skip()
    True
    """

    __slots__ = ("args", "handle", "added_node_selector", "added_pref_sched_terms")

    def __init__(self, args: NodeAffinityArgs | None = None, handle: Any = None):
        args = args if args is not None else NodeAffinityArgs()
        selector, prefs, errs = _parse_added(args)
        if errs:
            raise ConfigError(aggregate_errors(errs))
        self.args = args
        self.handle = handle
        self.added_node_selector: NodeSelector | None = selector
        self.added_pref_sched_terms: PreferredSchedulingTerms | None = prefs

    def name(self) -> str:
        """``"NodeAffinity"``."""
        return NAME

    # PreFilter / Filter -----------------------------------------------------

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]:
        """Parse the pod's required constraints; narrow to named nodes when every term names some.

        Returns
        -------
        tuple[PreFilterResult or None, Status]
            ``Skip`` when there is nothing to check; ``UnschedulableAndUnresolvable``
            with :data:`ERR_REASON_CONFLICT` when the ``metadata.name`` terms
            admit no node; a :class:`PreFilterResult` of node names when each
            term names nodes; otherwise ``(None, Success)``.
        """
        spec = pod.pod.spec
        required = _get(_get(spec.affinity, "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution")
        if required is None and self.added_node_selector is None and spec.nodeSelector is None:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(pod.required_node_affinity()))
        terms = list(_get(required, "nodeSelectorTerms") or ()) if required is not None else []
        if not terms:
            return None, Status()
        node_names = _pre_filter_node_names(terms)
        if node_names is None:
            return None, Status()
        if not node_names:
            return None, Status.unschedulable(ERR_REASON_CONFLICT, unresolvable=True)
        return PreFilterResult(node_names), Status()

    def pre_filter_extensions(self) -> None:
        """None: the state does not depend on other pods."""
        return None

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """``Success`` or ``UnschedulableAndUnresolvable`` (:data:`ERR_REASON_ENFORCED` / :data:`ERR_REASON_POD`)."""
        if self.added_node_selector is not None and not self.added_node_selector.matches_labels(
                node_info.labels, node_info.name):
            return Status.unschedulable(ERR_REASON_ENFORCED, unresolvable=True)
        s = state.get(PRE_FILTER_STATE_KEY) if state is not None else None
        if s is None:
            # PreFilter did not run: parse here, as upstream's fallback.
            rna = pod.required_node_affinity()
        else:
            rna = s.required_node_selector_and_affinity
        if not rna.match_pod(node_info.node):
            return Status.unschedulable(ERR_REASON_POD, unresolvable=True)
        return Status()

    # PreScore / Score / NormalizeScore ------------------------------------

    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Parse the pod's preferred terms; ``Skip`` when neither the pod nor the profile has any.

        Returns
        -------
        Status
            ``Success``, ``Skip``, or ``Error`` with the parse error message.
        """
        try:
            preferred = get_pod_preferred_node_affinity(pod.pod)
        except FieldError as e:
            return Status.error(aggregate_errors(_field_errors(e)))
        if preferred is None and self.added_pref_sched_terms is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return Status()

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Sum of the weights of matching preferred terms (raw, before NormalizeScore)."""
        node = node_info.node
        count = 0
        if self.added_pref_sched_terms is not None:
            count += self.added_pref_sched_terms.score(node)
        s = state.get(PRE_SCORE_STATE_KEY) if state is not None else None
        if s is not None:
            preferred = s.preferred_node_affinity
        else:
            # PreScore did not run: parse here, as upstream's fallback.
            try:
                preferred = get_pod_preferred_node_affinity(pod.pod)
            except FieldError as e:
                return 0, Status.error(aggregate_errors(_field_errors(e)))
        if preferred is not None:
            count += preferred.score(node)
        return count, Status()

    def normalize_score(self, state: "CycleState", pod: "PodInfo", scores: list[NodeScore]) -> Status:
        """Rescale to [0, 100] with :func:`~kubenotes.scheduler.plugins.helper.default_normalize_score`."""
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def score_extensions(self) -> "NodeAffinity":
        """Self: this plugin normalizes its scores."""
        return self


def new(args: Mapping[str, Any] | None = None, handle: Any = None) -> NodeAffinity:
    """Factory from raw pluginConfig args (``nodeaffinity.New``).

    Raises
    ------
    ConfigError
        For an unknown field or an ``addedAffinity`` that does not parse.

    Examples
    --------
    >>> pl = new({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    ...     {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["batch"]}]}]}}})
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> pl.filter(None, PodInfo(make_pod("p")), NodeInfo(make_node("n1"))).reasons
    ["node(s) didn't match scheduler-enforced node affinity"]
    """
    return NodeAffinity(NodeAffinityArgs.from_config(args), handle)
