"""NodePorts: a pod asking for host ports needs them free on the node.

Mirrors ``pkg/scheduler/framework/plugins/nodeports/node_ports.go``: PreFilter
collects the pod's host ports (containers and sidecar init containers, as
``util.GetHostPorts``) and returns ``Skip`` when there are none, so Filter
does not run at all for most pods; Filter checks each port against the
node's used ports, where a ``0.0.0.0`` host IP conflicts with every IP.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeports/node_ports.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/util/utils.go (GetHostPorts)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/types.go (HostPortInfo.CheckConflict)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.api.podutil import is_restartable_init_container
from kubenotes.scheduler.framework.interface import PreFilterResult, Status
from kubenotes.scheduler.plugins.names import NODE_PORTS

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import HostPortInfo, NodeInfo, PodInfo

__all__ = ["NAME", "PRE_FILTER_STATE_KEY", "ERR_REASON", "get_host_ports", "fits_ports", "fits", "NodePorts", "new"]

NAME = NODE_PORTS
#: CycleState key of the pod's wanted host ports.
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
#: Filter reason when a wanted host port is taken.
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


def get_host_ports(pod: Any) -> list[tuple[str, str, int]]:
    """Host ports a pod uses while running (``util.GetHostPorts``).

    Sidecar init containers (``restartPolicy: Always``) first, then regular
    containers; ports without ``hostPort`` are left out, ordinary init
    containers too (they do not run alongside the app).

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod

    Returns
    -------
    list[tuple[str, str, int]]
        ``(hostIP, protocol, hostPort)``; ``hostIP`` may be ``""`` (all addresses).

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> get_host_ports(make_pod("p", containers=[{"name": "c", "ports": [
    ...     {"containerPort": 80, "hostPort": 8080}, {"containerPort": 81}]}]))
    [('', 'TCP', 8080)]
    """
    out = []
    spec = pod.spec
    for c in spec.initContainers or ():
        if not is_restartable_init_container(c):
            continue
        for p in c.ports or ():
            if p.hostPort and p.hostPort > 0:
                out.append((p.hostIP or "", p.protocol or "TCP", int(p.hostPort)))
    for c in spec.containers or ():
        for p in c.ports or ():
            if p.hostPort and p.hostPort > 0:
                out.append((p.hostIP or "", p.protocol or "TCP", int(p.hostPort)))
    return out


def fits_ports(want_ports: list[tuple[str, str, int]], ports_in_use: "HostPortInfo") -> bool:
    """True when none of ``want_ports`` conflicts with ``ports_in_use`` (``fitsPorts``)."""
    for ip, proto, port in want_ports:
        if ports_in_use.check_conflict(ip, proto, port):
            return False
    return True


def fits(pod: "PodInfo", node_info: "NodeInfo") -> bool:
    """True when the pod's host ports are free on the node (``nodeports.Fits``)."""
    return fits_ports(get_host_ports(pod.pod), node_info.used_ports)


class NodePorts:
    """The NodePorts plugin: PreFilter (Skip without host ports) and Filter.

    Parameters
    ----------
    handle : Handle, optional
        Unused.

    See Also
    --------
    kubenotes.scheduler.framework.node_info.HostPortInfo : the node's used ports and the conflict rule.

    Notes
    -----
    Queueing hints are not modelled. Ports of pods already on the node come
    from ``PodInfo.host_ports``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeports/node_ports.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> web = lambda name, **kw: make_pod(name, containers=[{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}], **kw)
    >>> pl, state = NodePorts(), CycleState()
    >>> pl.pre_filter(state, PodInfo(make_pod("plain")), [])[1].is_skip()
    True
    >>> pl.pre_filter(state, PodInfo(web("a")), [])[1].is_success()
    True
    >>> pl.filter(state, PodInfo(web("a")), NodeInfo(make_node("n1"), [PodInfo(web("b", node_name="n1"))])).reasons
    ["node(s) didn't have free ports for the requested pod ports"]
    """

    __slots__ = ("handle",)

    def __init__(self, handle: Any = None):
        self.handle = handle

    def name(self) -> str:
        """``"NodePorts"``."""
        return NAME

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]:
        """Store the wanted host ports; ``Skip`` when the pod has none."""
        ports = get_host_ports(pod.pod)
        if not ports:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, tuple(ports))
        return None, Status()

    def pre_filter_extensions(self) -> None:
        """None: the state does not depend on other pods."""
        return None

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """``Success``, ``Unschedulable`` with :data:`ERR_REASON`, or ``Error`` when PreFilter did not run."""
        want = state.get(PRE_FILTER_STATE_KEY)
        if want is None:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not fits_ports(want, node_info.used_ports):
            return Status.unschedulable(ERR_REASON)
        return Status()


def new(args: Mapping[str, Any] | None = None, handle: Any = None) -> NodePorts:
    """Factory (``nodeports.New``); the plugin takes no args."""
    return NodePorts(handle)
