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
from kubenotes.scheduler.framework.interface import Status
from kubenotes.scheduler.plugins.names import NODE_UNSCHEDULABLE

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
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
    Queueing hints are not modelled.

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
