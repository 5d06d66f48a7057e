"""BIRD's BGP sessions between Calico nodes (full mesh or route reflectors) and a node failure's withdrawal.

Mirrors ``projectcalico/calico`` ``confd`` (the BIRD configuration calico-node
renders from ``BGPConfiguration``/``BGPPeer``/``Node``: one ``protocol bgp
Mesh_<ip>`` per other node when ``nodeToNodeMeshEnabled`` is true, the
default, or sessions to the route reflectors when it is off), and what BIRD
does with them: every node announces its blocks (the blackhole routes) to its
peers, which install them ``proto bird``; a route reflector passes a client's
routes on to its other peers. When a node stops, its sessions go down and
the others withdraw the routes they learned from it.

Session counts: a full mesh of *n* nodes has n(n−1)/2 sessions; with *k* route
reflectors (a mesh among themselves, each client peering with every
reflector) it has k(k−1)/2 + (n−k)·k.

Notes
-----
Simplified compared with upstream: sessions are established or not (no BGP
state machine, timers or ``birdcl`` output); BIRD's graceful restart (which
keeps a dead peer's routes for up to 120 s) is named, not timed; route
reflector cluster IDs, AS numbers other than the default 64512 and peering
with top-of-rack routers are left out. In VXLAN mode BIRD does not run
(``calico_backend: vxlan``): Felix programs routes from the datastore, so a
stopped node's routes stay until its Node object (and with it its blocks)
is deleted.

References
----------
projectcalico/calico@v3.30.0 confd/etc/calico/confd/templates/bird.cfg.template
projectcalico/calico@v3.30.0 api/pkg/apis/projectcalico/v3/bgpconfig.go (nodeToNodeMeshEnabled, asNumber 64512)
https://docs.tigera.io/calico/latest/networking/configuring/bgp (full mesh, route reflectors)
"""

from __future__ import annotations

import copy
from itertools import combinations
from typing import Iterable, Sequence

from kubenotes.cni.calico.dataplane import CalicoError, CalicoNetwork, _program

__all__ = [
    "DEFAULT_AS_NUMBER",
    "GRACEFUL_RESTART_SECONDS",
    "full_mesh_sessions",
    "route_reflector_sessions",
    "bgp_session_count",
    "bgp_sessions",
    "learned_routes",
    "fail_node",
    "route_withdrawal",
]

#: ``BGPConfiguration.spec.asNumber`` default: every node in one private AS (iBGP).
DEFAULT_AS_NUMBER = 64512
#: BIRD's default graceful-restart time: how long a stopped peer's routes are kept.
GRACEFUL_RESTART_SECONDS = 120


def full_mesh_sessions(nodes: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of nodes: the node-to-node mesh.

    Examples
    --------
    >>> full_mesh_sessions(["a", "b", "c"])
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> len(full_mesh_sessions([str(i) for i in range(10)]))
    45
    """
    return list(combinations(nodes, 2))


def route_reflector_sessions(nodes: Sequence[str], reflectors: Sequence[str]) -> list[tuple[str, str]]:
    """Sessions with route reflectors: a mesh among the reflectors, and each client to each reflector.

    Raises
    ------
    CalicoError
        When a reflector is not one of ``nodes``.

    Examples
    --------
    >>> route_reflector_sessions(["a", "b", "c", "d"], ["a", "b"])
    [('a', 'b'), ('c', 'a'), ('c', 'b'), ('d', 'a'), ('d', 'b')]
    """
    missing = [r for r in reflectors if r not in nodes]
    if missing:
        raise CalicoError(f"route reflector(s) {', '.join(missing)} not among the nodes")
    rr = [n for n in nodes if n in reflectors]
    return list(combinations(rr, 2)) + [(c, r) for c in nodes if c not in reflectors for r in rr]


def bgp_session_count(node_count: int, reflectors: int = 0) -> int:
    """n(n−1)/2 for a full mesh (``reflectors=0``); k(k−1)/2 + (n−k)·k with k route reflectors.

    The closed form of ``len(bgp_sessions(...))``, for cluster sizes too large
    to build a network for.

    Parameters
    ----------
    node_count : int
        Nodes running BIRD (*n*).
    reflectors : int
        Route reflectors (*k*); 0 or less is the node-to-node mesh, more than
        ``node_count`` counts as ``node_count``.

    Returns
    -------
    int
        BGP sessions in the cluster (each counted once, not once per end).

    Raises
    ------
    TypeError
        For non-numeric arguments; it raises nothing of its own (a negative
        ``node_count`` gives a meaningless count, not an error).

    See Also
    --------
    bgp_sessions : the sessions themselves, of a built network.

    Notes
    -----
    Upstream has no such function: it is the count of the ``protocol bgp``
    blocks ``bird.cfg.template`` renders, summed over the nodes and halved.

    References
    ----------
    projectcalico/calico@v3.30.0 confd/etc/calico/confd/templates/bird.cfg.template
    https://docs.tigera.io/calico/latest/networking/configuring/bgp (full mesh, route reflectors)

    Examples
    --------
    >>> bgp_session_count(10), bgp_session_count(100), bgp_session_count(100, 2)
    (45, 4950, 197)
    >>> bgp_session_count(3, 5)
    3
    """
    n, k = node_count, reflectors
    if k <= 0:
        return n * (n - 1) // 2
    k = min(k, n)
    return k * (k - 1) // 2 + (n - k) * k


def bgp_sessions(net: CalicoNetwork, reflectors: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The BGP sessions BIRD holds in ``net`` (none in VXLAN modes: BIRD does not run).

    Parameters
    ----------
    net : CalicoNetwork
        From :func:`kubenotes.cni.calico.dataplane.build_network`.
    reflectors : sequence of str
        Node names acting as route reflectors (``nodeToNodeMeshEnabled:
        false``); empty for the node-to-node mesh.

    Returns
    -------
    list of tuple[str, str]
        One ``(node, peer)`` pair per session, in node order: every pair for
        the mesh (:func:`full_mesh_sessions`), else the reflectors' mesh then
        each client to each reflector (:func:`route_reflector_sessions`).
        Empty for ``vxlan`` and ``vxlan-crosssubnet``.

    Raises
    ------
    CalicoError
        When a reflector is not a node of ``net`` (BGP modes only).

    See Also
    --------
    bgp_session_count : the count in closed form.
    route_withdrawal : what happens to the routes when a node stops.

    Notes
    -----
    Sessions are up or absent: no BGP state machine, timers, AS numbers or
    external peers.

    References
    ----------
    projectcalico/calico@v3.30.0 confd/etc/calico/confd/templates/bird.cfg.template (Mesh_<ip>, Node_<ip>)

    Examples
    --------
    >>> from kubenotes.cni.calico.dataplane import build_network, IPV4_ADDRESS_ANNOTATION
    >>> nodes = [{"metadata": {"name": f"node-{i}", "annotations": {IPV4_ADDRESS_ANNOTATION: f"10.0.0.{10 + i}/24"}}}
    ...          for i in range(3)]
    >>> bgp_sessions(build_network(nodes, mode="bgp"))
    [('node-0', 'node-1'), ('node-0', 'node-2'), ('node-1', 'node-2')]
    >>> bgp_sessions(build_network(nodes, mode="bgp"), ["node-0"])
    [('node-1', 'node-0'), ('node-2', 'node-0')]
    >>> bgp_sessions(build_network(nodes, mode="vxlan"))
    []
    """
    if not net.uses_bgp:
        return []
    names = list(net.nodes)
    return route_reflector_sessions(names, reflectors) if reflectors else full_mesh_sessions(names)


def learned_routes(net: CalicoNetwork, reflectors: Sequence[str] = (), down: Iterable[str] = ()) -> dict[str, set[str]]:
    """Node -> the nodes whose blocks it learns over BGP, given the sessions that are up.

    A node learns a peer's routes over a direct session, or through a route
    reflector it peers with (a reflector passes its clients' routes to all
    peers, and non-clients' routes to its clients).
    """
    down = set(down)
    up = [(a, b) for a, b in bgp_sessions(net, reflectors) if a not in down and b not in down]
    peers: dict[str, set[str]] = {n: set() for n in net.nodes}
    for a, b in up:
        peers[a].add(b)
        peers[b].add(a)
    rr = set(reflectors)
    out: dict[str, set[str]] = {}
    for n in net.nodes:
        if n in down:
            continue
        got = set(peers[n])
        for r in peers[n] & rr:
            for m in peers[r]:
                if m != n and (n not in rr or m not in rr):
                    got.add(m)
        out[n] = got
    return out


def fail_node(net: CalicoNetwork, node: str, reflectors: Sequence[str] = ()) -> CalicoNetwork:
    """A copy of ``net`` after ``node`` stopped and its routes were withdrawn everywhere else.

    With route reflectors, a stopped reflector also takes away the routes its
    clients learned only through it.

    In BIRD modes the peers drop the node's session and withdraw the routes
    learned from it (after graceful restart). In VXLAN modes nothing is
    withdrawn until the Node object is deleted; this function models that
    deletion (its blocks are released, so Felix removes the routes).

    Raises
    ------
    CalicoError
        When ``node`` is not in the network.
    """
    if node not in net.nodes:
        raise CalicoError(f"node {node!r} is not in the network")
    after = copy.deepcopy(net)
    _program(after, frozenset({node}), learned_routes(net, reflectors, down=[node]))
    return after


def route_withdrawal(net: CalicoNetwork, node: str, reflectors: Sequence[str] = ()) -> dict[str, dict[str, list[str]]]:
    """For every other node, its routes to other nodes' pods before and after ``node`` fails.

    Parameters
    ----------
    net : CalicoNetwork
        From :func:`kubenotes.cni.calico.dataplane.build_network`; not changed.
    node : str
        The node that stops.
    reflectors : sequence of str
        Route reflector node names (empty: the node-to-node mesh).

    Returns
    -------
    dict[str, dict[str, list[str]]]
        Node -> ``{"before": [...], "after": [...], "withdrawn": [...]}``, ``ip route`` lines.

    Raises
    ------
    CalicoError
        When ``node`` is not in the network, or (BGP modes) a reflector is not
        one of its nodes.

    See Also
    --------
    fail_node : the network after the failure.

    Notes
    -----
    BIRD's graceful restart (which keeps the routes for up to 120 s) is not
    timed: "after" is once the routes are withdrawn. In VXLAN modes the
    withdrawal shown is the one deleting the Node object causes.

    References
    ----------
    projectcalico/calico@v3.30.0 confd/etc/calico/confd/templates/bird.cfg.template

    Examples
    --------
    >>> from kubenotes.cni.calico.dataplane import build_network, IPV4_ADDRESS_ANNOTATION
    >>> nodes = [{"metadata": {"name": f"node-{i}", "annotations": {IPV4_ADDRESS_ANNOTATION: f"10.0.0.{10 + i}/24"}}}
    ...          for i in range(3)]
    >>> pods = [{"metadata": {"name": f"web-{i}"}, "spec": {"nodeName": f"node-{i}"}} for i in range(3)]
    >>> w = route_withdrawal(build_network(nodes, pods, mode="bgp"), "node-2")
    >>> w["node-0"]["withdrawn"]
    ['192.168.41.0/26 via 10.0.0.12 dev eth0 proto bird']
    """
    after = fail_node(net, node, reflectors)
    out = {}
    for n in net.nodes:
        if n == node:
            continue
        before = [str(r) for r in net.remote_routes(n)]
        now = [str(r) for r in after.remote_routes(n)]
        out[n] = {"before": before, "after": now, "withdrawn": [r for r in before if r not in now]}
    return out
