"""NodeUnschedulable: cordoned nodes (``spec.unschedulable``) take no new pods.

Mirrors ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``.
A pod that tolerates the taint ``node.kubernetes.io/unschedulable:NoSchedule``
(which the node lifecycle controller adds to cordoned nodes) may still land
there, as DaemonSet pods do.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
https://kubernetes.io/docs/reference/labels-annotations-taints/#node-kubernetes-io-unschedulable
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.api.taints import TAINT_EFFECT_NO_SCHEDULE, tolerations_tolerate_taint
from kubenotes.scheduler.framework.interface import ADD, UPDATE_NODE_TAINT, Status
from kubenotes.scheduler.plugins.names import NODE_UNSCHEDULABLE

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
    "NODE_EVENTS",
    "is_schedulable_after_node_change",
    "TAINT_NODE_UNSCHEDULABLE",
    "UNSCHEDULABLE_TAINT",
    "ERR_REASON_UNKNOWN_CONDITION",
    "ERR_REASON_UNSCHEDULABLE",
    "NodeUnschedulable",
    "new",
]

NAME = NODE_UNSCHEDULABLE
#: ``v1.TaintNodeUnschedulable``.
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
#: The taint a pod must tolerate to ignore ``spec.unschedulable``.
UNSCHEDULABLE_TAINT = {"key": TAINT_NODE_UNSCHEDULABLE, "effect": TAINT_EFFECT_NO_SCHEDULE}
#: ``ErrReasonUnknownCondition``, defined upstream for nodes with unknown conditions.
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
#: Filter reason for a cordoned node.
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"


#: The Node events ``EventsToRegister`` names (v1.34): ``Add`` and ``UpdateNodeTaint`` (cordon is a taint change).
NODE_EVENTS = frozenset({ADD, UPDATE_NODE_TAINT})


def is_schedulable_after_node_change(pod: "PodInfo", old_node: Any, new_node: Any) -> bool:
    """Whether a Node add or update un-cordons a node for ``pod`` (``isSchedulableAfterNodeChange``): True is ``Queue``.

    Only when the new node is schedulable and the old one was not (or did
    not exist).

    Parameters
    ----------
    pod : PodInfo
    old_node : lightkube.resources.core_v1.Node or None
    new_node : lightkube.resources.core_v1.Node

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> cordoned, open_ = make_node("n", unschedulable=True), make_node("n")
    >>> pod = PodInfo(make_pod("p"))
    >>> [is_schedulable_after_node_change(pod, *c) for c in ((cordoned, open_), (open_, cordoned), (None, open_))]
    [True, False, True]
    """
    def schedulable(node: Any) -> bool:
        return node is not None and not (node.spec is not None and node.spec.unschedulable)

    return schedulable(new_node) and not schedulable(old_node)


class NodeUnschedulable:
    """The NodeUnschedulable Filter plugin.

    Parameters
    ----------
    handle : Handle, optional
        Unused.

    See Also
    --------
    kubenotes.scheduler.plugins.tainttoleration.TaintToleration : the general taint check.

    Notes
    -----
    Its queueing hint is :func:`is_schedulable_after_node_change`.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> cordoned = NodeInfo(make_node("n1", unschedulable=True))
    >>> NodeUnschedulable().filter(None, PodInfo(make_pod("p")), cordoned).reasons
    ['node(s) were unschedulable']
    >>> ds = make_pod("ds", tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
    ...                                   "effect": "NoSchedule"}])
    >>> NodeUnschedulable().filter(None, PodInfo(ds), cordoned).is_success()
    True
    """

    __slots__ = ("handle",)

    def __init__(self, handle: Any = None):
        self.handle = handle

    def name(self) -> str:
        """``"NodeUnschedulable"``."""
        return NAME

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """``Success``, or ``UnschedulableAndUnresolvable`` with :data:`ERR_REASON_UNSCHEDULABLE`."""
        node = node_info.node
        spec = node.spec if node is not None else None
        if spec is None or not spec.unschedulable:
            return Status()
        if tolerations_tolerate_taint(pod.pod.spec.tolerations, UNSCHEDULABLE_TAINT):
            return Status()
        return Status.unschedulable(ERR_REASON_UNSCHEDULABLE, unresolvable=True)


def new(args: Mapping[str, Any] | None = None, handle: Any = None) -> NodeUnschedulable:
    """Factory (``nodeunschedulable.New``); the plugin takes no args."""
    return NodeUnschedulable(handle)
