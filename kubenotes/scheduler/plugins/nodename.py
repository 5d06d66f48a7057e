"""NodeName: a pod that names its node (``spec.nodeName``) fits only that node.

Mirrors ``pkg/scheduler/framework/plugins/nodename/node_name.go``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodename/node_name.go
https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.scheduler.framework.interface import Status
from kubenotes.scheduler.plugins.names import NODE_NAME

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["NAME", "ERR_REASON", "fits", "NodeName", "new"]

NAME = NODE_NAME
#: Filter reason when ``spec.nodeName`` names another node.
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: "PodInfo", node_info: "NodeInfo") -> bool:
    """True when the pod names no node or names this one (``nodename.Fits``).

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> fits(PodInfo(make_pod("p", node_name="n1")), NodeInfo(make_node("n2")))
    False
    """
    wanted = pod.pod.spec.nodeName
    return not wanted or wanted == node_info.name


class NodeName:
    """The NodeName Filter plugin.

    Parameters
    ----------
    handle : Handle, optional
        Unused.

    See Also
    --------
    kubenotes.scheduler.plugins.nodeaffinity.NodeAffinity : ``matchFields`` on ``metadata.name``.

    Notes
    -----
    Queueing hints (``EventsToRegister``) are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodename/node_name.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> st = NodeName().filter(None, PodInfo(make_pod("p", node_name="bar")), NodeInfo(make_node("foo")))
    >>> str(st.code), st.reasons
    ('UnschedulableAndUnresolvable', ["node(s) didn't match the requested node name"])
    """

    __slots__ = ("handle",)

    def __init__(self, handle: Any = None):
        self.handle = handle

    def name(self) -> str:
        """``"NodeName"``."""
        return NAME

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """``Success`` or ``UnschedulableAndUnresolvable`` with :data:`ERR_REASON`."""
        if not fits(pod, node_info):
            return Status.unschedulable(ERR_REASON, unresolvable=True)
        return Status()


def new(args: Mapping[str, Any] | None = None, handle: Any = None) -> NodeName:
    """Factory (``nodename.New``); the plugin takes no args."""
    return NodeName(handle)
