"""TaintToleration: keep pods off nodes whose taints they do not tolerate.

Mirrors ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`` (v1.34):

* **Filter** looks at ``NoSchedule`` and ``NoExecute`` taints only and
  rejects the node with the first one no toleration matches:
  ``UnschedulableAndUnresolvable`` with
  ``"node(s) had untolerated taint {<key>: <value>}"`` (preemption cannot
  remove a taint).
* **PreScore** keeps the pod's tolerations that apply to
  ``PreferNoSchedule`` (that effect, or no effect); **Score** counts the
  node's ``PreferNoSchedule`` taints they do not tolerate; **NormalizeScore**
  reverses the default normalization, so the node with the most intolerable
  soft taints scores 0 and a node with none scores 100.

Notes
-----
The reason string is v1.34.0's. Later 1.34 patch releases (kubernetes#134740,
cherry-picked as #135023) stopped putting the taint's key and value into pod
status, so a patched cluster prints ``node(s) had untolerated taint(s)``
instead; the scheduling decision is the same.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/taint.go
https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kubenotes.api.taints import (
    TAINT_EFFECT_PREFER_NO_SCHEDULE,
    find_matching_untolerated_taint,
    tolerations_tolerate_taint,
)
from kubenotes.scheduler.framework.interface import ADD, MAX_NODE_SCORE, UPDATE_NODE_TAINT, NodeScore, Status
from kubenotes.scheduler.plugins.helper import default_normalize_score, do_not_schedule_taints_filter
from kubenotes.scheduler.plugins.names import TAINT_TOLERATION

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
    "NODE_EVENTS",
    "is_schedulable_after_node_change",
    "PRE_SCORE_STATE_KEY",
    "ERR_REASON_NOT_MATCH",
    "ERR_REASON_UNTOLERATED_TAINT_FORMAT",
    "untolerated_taint_reason",
    "get_all_toleration_prefer_no_schedule",
    "count_intolerable_taints_prefer_no_schedule",
    "TaintToleration",
    "new",
]

NAME = TAINT_TOLERATION
#: CycleState key of the PreferNoSchedule tolerations computed at PreScore.
PRE_SCORE_STATE_KEY = "PreScore" + NAME
#: ``ErrReasonNotMatch``, defined upstream (used by callers outside Filter).
ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
#: Go format of the Filter reason; see :func:`untolerated_taint_reason`.
ERR_REASON_UNTOLERATED_TAINT_FORMAT = "node(s) had untolerated taint {%s: %s}"


def _s(obj: Any, name: str) -> str:
    if isinstance(obj, Mapping):
        return obj.get(name) or ""
    return getattr(obj, name, None) or ""


def untolerated_taint_reason(taint: Any) -> str:
    """The Filter reason for an untolerated taint, e.g. ``node(s) had untolerated taint {dedicated: user1}``.

    Examples
    --------
    >>> from lightkube.models.core_v1 import Taint
    >>> untolerated_taint_reason(Taint(key="dedicated", value="user1", effect="NoSchedule"))
    'node(s) had untolerated taint {dedicated: user1}'
    """
    return ERR_REASON_UNTOLERATED_TAINT_FORMAT % (_s(taint, "key"), _s(taint, "value"))


def get_all_toleration_prefer_no_schedule(tolerations: Any) -> list[Any]:
    """Tolerations with effect ``PreferNoSchedule`` or no effect (``getAllTolerationPreferNoSchedule``)."""
    return [t for t in tolerations or () if _s(t, "effect") in ("", TAINT_EFFECT_PREFER_NO_SCHEDULE)]


def count_intolerable_taints_prefer_no_schedule(taints: Any, tolerations: list[Any]) -> int:
    """Number of ``PreferNoSchedule`` taints none of ``tolerations`` tolerates (``countIntolerableTaintsPreferNoSchedule``)."""
    n = 0
    for taint in taints or ():
        if _s(taint, "effect") != TAINT_EFFECT_PREFER_NO_SCHEDULE:
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            n += 1
    return n


class _PreScoreState:
    """The pod's PreferNoSchedule tolerations (``preScoreState``); clones share it (it never changes)."""

    __slots__ = ("tolerations_prefer_no_schedule",)

    def __init__(self, tolerations: list[Any]):
        self.tolerations_prefer_no_schedule = tolerations

    def clone(self) -> "_PreScoreState":
        return self


#: The Node events ``EventsToRegister`` names (v1.34): ``Add`` and ``UpdateNodeTaint``.
NODE_EVENTS = frozenset({ADD, UPDATE_NODE_TAINT})


def is_schedulable_after_node_change(pod: "PodInfo", old_node: Any, new_node: Any) -> bool:
    """Whether a Node add or taint change may let ``pod`` through (``isSchedulableAfterNodeChange``): True is ``Queue``.

    Only when the new node has no untolerated ``NoSchedule``/``NoExecute``
    taint and the old one had one (a new node counts as having had one). A
    node that gains a taint (``node.kubernetes.io/unreachable`` when it turns
    Unknown) never requeues the pod.

    Parameters
    ----------
    pod : PodInfo
    old_node : lightkube.resources.core_v1.Node or None
        None for an add.
    new_node : lightkube.resources.core_v1.Node

    Returns
    -------
    bool

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> tainted = make_node("n", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    >>> pod = PodInfo(make_pod("p"))
    >>> is_schedulable_after_node_change(pod, tainted, make_node("n")), is_schedulable_after_node_change(pod, make_node("n"), tainted)
    (True, False)
    """
    tolerations = pod.pod.spec.tolerations
    was_untolerated = old_node is None or find_matching_untolerated_taint(
        (old_node.spec.taints if old_node.spec else None), tolerations, do_not_schedule_taints_filter) is not None
    is_untolerated = find_matching_untolerated_taint(
        (new_node.spec.taints if new_node.spec else None), tolerations, do_not_schedule_taints_filter) is not None
    return was_untolerated and not is_untolerated


def _taints(node_info: "NodeInfo") -> Any:
    node = node_info.node
    spec = node.spec if node is not None else None
    return spec.taints if spec is not None else None


class TaintToleration:
    """The TaintToleration plugin: Filter, PreScore, Score, NormalizeScore.

    Parameters
    ----------
    handle : Handle, optional
        Unused.

    See Also
    --------
    kubenotes.api.taints.find_matching_untolerated_taint : the matching rules.
    kubenotes.scheduler.plugins.nodeunschedulable.NodeUnschedulable : the cordon check.

    Notes
    -----
    Queueing hints are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> node = NodeInfo(make_node("n1", taints=[{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}]))
    >>> st = TaintToleration().filter(None, PodInfo(make_pod("p")), node)
    >>> str(st.code), st.reasons
    ('UnschedulableAndUnresolvable', ['node(s) had untolerated taint {dedicated: user1}'])
    """

    __slots__ = ("handle",)

    def __init__(self, handle: Any = None):
        self.handle = handle

    def name(self) -> str:
        """``"TaintToleration"``."""
        return NAME

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """``Success``, or ``UnschedulableAndUnresolvable`` naming the first untolerated NoSchedule/NoExecute taint."""
        taint = find_matching_untolerated_taint(_taints(node_info), pod.pod.spec.tolerations,
                                                do_not_schedule_taints_filter)
        if taint is None:
            return Status()
        return Status.unschedulable(untolerated_taint_reason(taint), unresolvable=True)

    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Store the pod's PreferNoSchedule tolerations under ``"PreScoreTaintToleration"``."""
        tolerations = get_all_toleration_prefer_no_schedule(pod.pod.spec.tolerations)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(tolerations))
        return Status()

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Raw score: the number of intolerable PreferNoSchedule taints (lower is better before normalizing)."""
        s = state.get(PRE_SCORE_STATE_KEY) if state is not None else None
        if s is None:
            return 0, Status.error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return count_intolerable_taints_prefer_no_schedule(_taints(node_info), s.tolerations_prefer_no_schedule), Status()

    def normalize_score(self, state: "CycleState", pod: "PodInfo", scores: list[NodeScore]) -> Status:
        """Reverse default normalization: most intolerable taints → 0, none → 100."""
        return default_normalize_score(MAX_NODE_SCORE, True, scores)

    def score_extensions(self) -> "TaintToleration":
        """Self: this plugin normalizes its scores."""
        return self


def new(args: Mapping[str, Any] | None = None, handle: Any = None) -> TaintToleration:
    """Factory (``tainttoleration.New``); the plugin takes no args."""
    return TaintToleration(handle)
