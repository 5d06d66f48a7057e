"""What Felix and BIRD program on each node: interfaces, ``ip route`` tables, VXLAN neighbours, per Calico mode.

Mirrors the dataplane side of ``projectcalico/calico``: the Calico CNI plugin
(``cni-plugin/internal/pkg/utils/network_linux.go``: the ``cali<11 hex>`` veth,
the pod's ``169.254.1.1`` default gateway answered by proxy ARP), Felix's
route managers (``felix/dataplane/linux/route_mgr.go``, ``vxlan_mgr.go``,
``ipip_mgr.go``: ``vxlan.calico``, ``tunl0``, local ``/32`` routes, blackhole
routes for the node's blocks, remote blocks via the tunnel) and BIRD
(``confd/etc/calico/confd/templates/bird.cfg.template``: routes learned over
BGP, ``proto bird``).

The five modes (the IPPool's ``vxlanMode``/``ipipMode``):

=====================  ============================  ==================================================
mode                   IPPool                        a remote block's route
=====================  ============================  ==================================================
``vxlan``              vxlanMode Always              ``via <remote vxlan.calico addr> dev vxlan.calico onlink`` (Felix)
``vxlan-crosssubnet``  vxlanMode CrossSubnet         as ``vxlan`` across subnets, ``via <node> dev eth0 proto 80 onlink`` within one
``ipip``               ipipMode Always               ``via <node> dev tunl0 proto bird onlink`` (BIRD)
``ipip-crosssubnet``   ipipMode CrossSubnet          as ``ipip`` across subnets, ``via <node> dev eth0 proto bird`` within one
``bgp``                both Never                    ``via <node> dev eth0 proto bird``; across subnets via the gateway
=====================  ============================  ==================================================

Notes
-----
Simplified compared with upstream: a node's prefix length comes from the
``projectcalico.org/IPv4Address`` annotation calico-node writes (e.g.
``10.0.0.11/24``) and is taken as /24 when only ``status.addresses`` has the
address; the subnet's gateway is its first host address; MAC addresses
(the node's NIC, the pod side of the veth, the VTEP's ``66:..`` address that
Felix picks at random and stores in ``Node.spec.ipv4VXLANTunnelMACAddr``) are
derived from a hash of the name, so they are stable; iptables/nftables rules
Felix writes (policy, ``cali-`` chains, natOutgoing) are named in the packet
walk but not modelled; IPv6, WireGuard and the eBPF dataplane are left out.

References
----------
projectcalico/calico@v3.30.0 cni-plugin/internal/pkg/utils/network_linux.go (DoNetworking: veth, 169.254.1.1, proxy_arp)
projectcalico/calico@v3.30.0 libcalico-go/lib/backend/k8s/conversion/conversion.go (VethNameForWorkload)
projectcalico/calico@v3.30.0 felix/dataplane/linux/vxlan_mgr.go and route_mgr.go (vxlan.calico, routes, blackholes)
projectcalico/calico@v3.30.0 felix/config/config_params.go (VXLANPort 4789, VXLANVNI 4096, IPIP/VXLAN MTU)
https://docs.tigera.io/calico/latest/networking/configuring/vxlan-ipip
https://docs.tigera.io/calico/latest/networking/configuring/mtu
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass, field
from typing import Any, Iterable

from kubenotes.cni.calico.ipam import (CalicoIPAM, IPAMError, IPPool, DEFAULT_IPV4_POOL_CIDR,
                                       ipip_tunnel_handle, vxlan_tunnel_handle)
from kubenotes.cni.encap import ENCAP_OVERHEAD_BYTES, overhead_bytes
from kubenotes.cni import netns as nodenet
from kubenotes.cni.netns import format_ip_route
from kubenotes.errors import KubenotesError

__all__ = [
    "MODES",
    "DEFAULT_MODE",
    "VXLAN_DEVICE",
    "IPIP_DEVICE",
    "VXLAN_PORT",
    "VXLAN_VNI",
    "VXLAN_OVERHEAD_BYTES",
    "IPIP_OVERHEAD_BYTES",
    "DEFAULT_LINK_MTU",
    "POD_GATEWAY",
    "VETH_HOST_MAC",
    "IPV4_ADDRESS_ANNOTATION",
    "FELIX_ROUTE_PROTO",
    "CalicoError",
    "Interface",
    "Route",
    "NodeNet",
    "PodNet",
    "CalicoNetwork",
    "pool_for_mode",
    "encapsulation",
    "encap_overhead_bytes",
    "pod_mtu",
    "veth_name_for_workload",
    "build_network",
    "new_network",
    "start_node",
    "add_workload",
    "remove_workload",
    "program",
    "pod_netns_path",
    "node_hosts",
]

#: The ``--calico-mode`` values: encapsulation and whether it applies only across subnets.
MODES = ("vxlan", "ipip", "bgp", "vxlan-crosssubnet", "ipip-crosssubnet")
#: calico.yaml's default pool: ``CALICO_IPV4POOL_IPIP=Always``, ``CALICO_IPV4POOL_VXLAN=Never``.
DEFAULT_MODE = "ipip"
#: Felix's VXLAN device (``VXLANTunnelDeviceName``) and IP-in-IP device.
VXLAN_DEVICE = "vxlan.calico"
IPIP_DEVICE = "tunl0"
#: Felix defaults ``VXLANPort`` and ``VXLANVNI``.
VXLAN_PORT = 4789
VXLAN_VNI = 4096
#: Outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14 (the outer Ethernet header is the link's own); from the
#: shared table :data:`kubenotes.cni.encap.ENCAP_OVERHEAD_BYTES`.
VXLAN_OVERHEAD_BYTES = ENCAP_OVERHEAD_BYTES["vxlan"]
#: One outer IPv4 header, protocol 4 (IP-in-IP); from the shared table.
IPIP_OVERHEAD_BYTES = ENCAP_OVERHEAD_BYTES["ipip"]
DEFAULT_LINK_MTU = 1500
#: The pod's default gateway: a link-local address no interface has; the host veth answers ARP for it.
POD_GATEWAY = "169.254.1.1"
#: MAC of every host-side ``cali`` veth (Calico sets it so that pods always see the same gateway MAC).
VETH_HOST_MAC = "ee:ee:ee:ee:ee:ee"
#: Annotation calico-node writes on the Node with the address (and prefix) it autodetected.
IPV4_ADDRESS_ANNOTATION = "projectcalico.org/IPv4Address"
#: Route protocol number Felix tags its routes with (``ip route`` prints ``proto 80``).
FELIX_ROUTE_PROTO = "80"


class CalicoError(KubenotesError):
    """Bad input for the Calico model (unknown mode, a node without an address, a pod on an unknown node)."""


def _hash(*parts: str) -> bytes:
    return hashlib.sha256("\x00".join(parts).encode()).digest()


def _mac(prefix: int, *parts: str) -> str:
    b = _hash(*parts)
    return ":".join(f"{x:02x}" for x in (prefix, *b[:5]))


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise CalicoError(f"unknown Calico mode {mode!r} (one of {', '.join(MODES)})")
    return mode


def encapsulation(mode: str) -> str | None:
    """``"vxlan"``, ``"ipip"`` or ``None`` for a mode.

    Examples
    --------
    >>> [encapsulation(m) for m in MODES]
    ['vxlan', 'ipip', None, 'vxlan', 'ipip']
    """
    _check_mode(mode)
    return mode.split("-")[0] if mode != "bgp" else None


def encap_overhead_bytes(mode: str) -> int:
    """Bytes an encapsulated packet grows by: 50 (VXLAN), 20 (IP-in-IP), 0 (BGP, no encapsulation).

    VXLAN adds an outer IPv4 (20), UDP (8), VXLAN (8) and inner Ethernet (14)
    header; IP-in-IP an outer IPv4 header.

    Parameters
    ----------
    mode : str
        One of :data:`MODES` (CrossSubnet modes count as encapsulated).

    Returns
    -------
    int
        Bytes.

    Raises
    ------
    CalicoError
        For a mode not in :data:`MODES`.

    See Also
    --------
    pod_mtu
    kubenotes.cni.encap.ENCAP_OVERHEAD_BYTES : the one table of overheads (Flannel's too).

    Notes
    -----
    IPv4 underlay only; WireGuard's overhead (in the shared table) is not used by the Calico model.

    References
    ----------
    projectcalico/calico@v3.30.0 felix/dataplane/linux/vxlan_mgr.go
    https://datatracker.ietf.org/doc/html/rfc7348 (VXLAN)

    Examples
    --------
    >>> encap_overhead_bytes("vxlan"), encap_overhead_bytes("ipip-crosssubnet"), encap_overhead_bytes("bgp")
    (50, 20, 0)
    """
    return overhead_bytes(encapsulation(mode))


def pod_mtu(mode: str, link_mtu: int = DEFAULT_LINK_MTU) -> int:
    """The MTU Calico gives the pod's ``eth0``, its veth and the tunnel device: link MTU minus the overhead.

    CrossSubnet modes take the encapsulated MTU too: any packet may have to be encapsulated.

    Parameters
    ----------
    mode : str
        One of :data:`MODES`.
    link_mtu : int
        MTU of the nodes' ``eth0`` in bytes (1500; 9001 on AWS).

    Returns
    -------
    int
        Bytes.

    Raises
    ------
    CalicoError
        For a mode not in :data:`MODES`.

    See Also
    --------
    encap_overhead_bytes

    Notes
    -----
    Calico's MTU auto-detection reads the host interfaces and subtracts the
    largest overhead of the enabled encapsulations (WireGuard included); here
    the link MTU is given and only the mode's overhead is subtracted.

    References
    ----------
    https://docs.tigera.io/calico/latest/networking/configuring/mtu

    Examples
    --------
    >>> pod_mtu("vxlan"), pod_mtu("ipip"), pod_mtu("bgp"), pod_mtu("vxlan-crosssubnet", 9001)
    (1450, 1480, 1500, 8951)
    """
    return link_mtu - encap_overhead_bytes(mode)


def pool_for_mode(mode: str, cidr: str = DEFAULT_IPV4_POOL_CIDR, **kw: Any) -> IPPool:
    """The IPPool that gives ``mode`` (``ipipMode``/``vxlanMode``).

    Examples
    --------
    >>> p = pool_for_mode("vxlan-crosssubnet")
    >>> p.vxlan_mode, p.ipip_mode
    ('CrossSubnet', 'Never')
    """
    enc = encapsulation(mode)
    how = "CrossSubnet" if mode.endswith("crosssubnet") else "Always"
    return IPPool(cidr=cidr, ipip_mode=how if enc == "ipip" else "Never",
                  vxlan_mode=how if enc == "vxlan" else "Never", **kw)


def veth_name_for_workload(namespace: str, name: str, prefix: str = "cali") -> str:
    """Host-side veth name of a pod: ``cali`` + the first 11 hex digits of SHA-1 of ``namespace.name``.

    Parameters
    ----------
    namespace, name : str
        The pod's namespace and name.
    prefix : str
        Felix's ``InterfacePrefix`` (``cali``).

    Returns
    -------
    str
        15 characters with the default prefix (Linux's interface name limit).

    Raises
    ------
    TypeError
        When ``prefix`` is not a string; nothing of its own (any namespace
        and name are formatted as given).

    Notes
    -----
    The same rule as upstream, so the host's ``cali...`` interfaces can be
    predicted from the pod list (``ip link`` on a node shows these names).

    References
    ----------
    projectcalico/calico@v3.30.0 libcalico-go/lib/backend/k8s/conversion/conversion.go (VethNameForWorkload)

    Examples
    --------
    >>> veth_name_for_workload("default", "nginx")
    'calic440f455693'
    >>> len(veth_name_for_workload("kube-system", "coredns-7db6d8ff4d-abcde"))
    15
    """
    return prefix + hashlib.sha1(f"{namespace}.{name}".encode()).hexdigest()[:11]


@dataclass(frozen=True)
class Interface:
    """One network interface as ``ip -d addr`` shows it.

    Attributes
    ----------
    name : str
    kind : str
        ``loopback``, ``ethernet``, ``veth``, ``vxlan`` or ``ipip``.
    mtu : int
    addresses : tuple of str
        ``ip/prefix``.
    mac : str or None
    details : dict
        Kind-specific: ``peer`` (veth: ``ns/pod``), ``vni``/``dstport``/``local`` (vxlan), ``proxy_arp``.
    """

    name: str
    kind: str
    mtu: int
    addresses: tuple[str, ...] = ()
    mac: str | None = None
    details: dict = field(default_factory=dict, hash=False, compare=False)

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "mtu": self.mtu, "addresses": list(self.addresses),
                "mac": self.mac, **self.details}


@dataclass(frozen=True)
class Route:
    """One route of a node's main table; ``str()`` is the line ``ip route`` prints.

    Attributes
    ----------
    dst : str
        ``default``, ``a.b.c.d/len`` or a host address.
    dev : str or None
    via : str or None
    proto : str or None
        ``kernel``, ``bird``, ``80`` (Felix) or ``None``.
    scope : str or None
    onlink : bool
    blackhole : bool
    src : str or None
    owner : str or None
        Node whose pods the route leads to (model bookkeeping, not printed).
    programmed_by : str
        ``kernel``, ``felix``, ``bird`` or ``dhcp``.

    Examples
    --------
    >>> str(Route("192.168.1.64/26", "vxlan.calico", via="192.168.1.64", onlink=True, programmed_by="felix"))
    '192.168.1.64/26 via 192.168.1.64 dev vxlan.calico onlink'
    >>> str(Route("192.168.0.0/26", None, proto="bird", blackhole=True))
    'blackhole 192.168.0.0/26 proto bird'
    """

    dst: str
    dev: str | None
    via: str | None = None
    proto: str | None = None
    scope: str | None = None
    onlink: bool = False
    blackhole: bool = False
    src: str | None = None
    owner: str | None = field(default=None, compare=False)
    programmed_by: str = "kernel"

    def __str__(self) -> str:
        return format_ip_route(self.dst, via=self.via, dev=self.dev, proto=self.proto, scope=self.scope,
                               src=self.src, onlink=self.onlink, blackhole=self.blackhole)

    @property
    def network(self) -> ipaddress.IPv4Network:
        return ipaddress.IPv4Network("0.0.0.0/0" if self.dst == "default" else self.dst, strict=False)


@dataclass
class PodNet:
    """A pod's network as the Calico CNI plugin set it up.

    Attributes
    ----------
    namespace, name, node, ip : str
    veth : str
        Host side (``cali...``); the pod side is ``eth0``.
    mac : str
        The pod's ``eth0`` MAC.
    mtu : int
    routes : list of Route
        The pod namespace's table: ``default via 169.254.1.1 dev eth0`` and ``169.254.1.1 dev eth0 scope link``.
    """

    namespace: str
    name: str
    node: str
    ip: str
    veth: str
    mac: str
    mtu: int
    routes: list = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass
class NodeNet:
    """One node's interfaces, routes and VXLAN neighbours.

    Attributes
    ----------
    name, ip : str
    interface : ipaddress.IPv4Interface
        The node address with its prefix (its subnet).
    gateway : str
    mac : str
    tunnel_ip : str or None
        Address of ``vxlan.calico``/``tunl0`` (from IPAM).
    vtep_mac : str or None
    interfaces : list of Interface
    routes : list of Route
    neighbors : list of str
        ``ip neigh`` lines Felix adds for remote VTEPs (VXLAN modes).
    fdb : list of str
        ``bridge fdb`` lines Felix adds (VTEP MAC -> node address).
    """

    name: str
    ip: str
    interface: ipaddress.IPv4Interface
    gateway: str
    mac: str
    tunnel_ip: str | None = None
    vtep_mac: str | None = None
    interfaces: list = field(default_factory=list)
    routes: list = field(default_factory=list)
    neighbors: list = field(default_factory=list)
    fdb: list = field(default_factory=list)

    @property
    def subnet(self) -> ipaddress.IPv4Network:
        return self.interface.network

    def ip_route(self) -> str:
        """The table as ``ip route`` prints it (default first, then by destination)."""
        return "\n".join(str(r) for r in self.routes)

    def lookup(self, ip: str) -> Route | None:
        """Longest-prefix match of ``ip`` in the node's table (``ip route get``)."""
        addr = ipaddress.IPv4Address(ip)
        best = None
        for r in self.routes:
            if addr in r.network and (best is None or r.network.prefixlen > best.network.prefixlen):
                best = r
        return best


class CalicoNetwork:
    """A cluster's Calico network: the pool, IPAM, every node's dataplane and every pod's interface.

    Build it with :func:`build_network`.

    Attributes
    ----------
    mode : str
    pool : IPPool
    ipam : CalicoIPAM
    link_mtu : int
    nodes : dict[str, NodeNet]
    pods : dict[str, PodNet]
        ``namespace/name`` -> pod.
    """

    def __init__(self, mode: str, pool: IPPool, ipam: CalicoIPAM, link_mtu: int):
        self.mode, self.pool, self.ipam, self.link_mtu = mode, pool, ipam, link_mtu
        self.nodes: dict[str, NodeNet] = {}
        self.pods: dict[str, PodNet] = {}

    @property
    def encapsulation(self) -> str | None:
        return encapsulation(self.mode)

    @property
    def mtu(self) -> int:
        return pod_mtu(self.mode, self.link_mtu)

    @property
    def uses_bgp(self) -> bool:
        """Whether BIRD distributes the routes (IP-in-IP and BGP modes; VXLAN runs without BGP)."""
        return self.encapsulation != "vxlan"

    def encapsulates(self, src_node: str, dst_node: str) -> str | None:
        """The encapsulation a packet from ``src_node`` to a pod on ``dst_node`` gets (``None`` on one node)."""
        if src_node == dst_node or self.encapsulation is None:
            return None
        if self.mode.endswith("crosssubnet") and self.nodes[src_node].subnet == self.nodes[dst_node].subnet:
            return None
        return self.encapsulation

    def pod_by_ip(self, ip: str) -> PodNet | None:
        return next((p for p in self.pods.values() if p.ip == ip), None)

    def node_by_ip(self, ip: str) -> NodeNet | None:
        return next((n for n in self.nodes.values() if n.ip == ip), None)

    def remote_routes(self, node: str) -> list[Route]:
        """The routes on ``node`` that lead to other nodes' pods."""
        return [r for r in self.nodes[node].routes if r.owner is not None and r.owner != node and not r.blackhole]

    def remote_route(self, at: NodeNet, owner: NodeNet, dst: str) -> Route:
        """The route Felix or BIRD programs on ``at`` for ``dst`` (a block or a borrowed /32) on ``owner``."""
        enc = self.encapsulates(at.name, owner.name)
        same_subnet = at.subnet == owner.subnet
        if enc == "vxlan":
            return Route(dst, VXLAN_DEVICE, via=owner.tunnel_ip, onlink=True, owner=owner.name, programmed_by="felix")
        if enc == "ipip":
            return Route(dst, IPIP_DEVICE, via=owner.ip, proto="bird", onlink=True, owner=owner.name,
                         programmed_by="bird")
        if self.encapsulation == "vxlan":  # CrossSubnet, same subnet: Felix routes it unencapsulated
            return Route(dst, "eth0", via=owner.ip, proto=FELIX_ROUTE_PROTO, onlink=True, owner=owner.name,
                         programmed_by="felix")
        if same_subnet:
            return Route(dst, "eth0", via=owner.ip, proto="bird", owner=owner.name, programmed_by="bird")
        # no encapsulation across subnets: BIRD resolves the next hop recursively, through the gateway
        return Route(dst, "eth0", via=at.gateway, proto="bird", owner=owner.name, programmed_by="bird")


def _node_address(node: dict) -> ipaddress.IPv4Interface:
    md = node.get("metadata") or {}
    name = md.get("name", "?")
    ann = (md.get("annotations") or {}).get(IPV4_ADDRESS_ANNOTATION)
    try:
        if ann:
            return ipaddress.IPv4Interface(ann)
        for a in (node.get("status") or {}).get("addresses") or []:
            if a.get("type") == "InternalIP" and ":" not in a.get("address", ""):
                return ipaddress.IPv4Interface(f"{a['address']}/24")
    except ValueError as e:
        raise CalicoError(f"Node {name}: invalid IPv4 address ({e})") from None
    raise CalicoError(f"Node {name}: status.addresses: no InternalIP IPv4 address "
                      f"(nor a {IPV4_ADDRESS_ANNOTATION} annotation)")


def _sort_routes(routes: Iterable[Route]) -> list[Route]:
    return sorted(routes, key=lambda r: (r.dst != "default", int(r.network.network_address), r.network.prefixlen))


def build_network(nodes: Iterable[dict], pods: Iterable[dict] = (), *, mode: str = DEFAULT_MODE,
                  pool: IPPool | None = None, pool_cidr: str = DEFAULT_IPV4_POOL_CIDR,
                  link_mtu: int = DEFAULT_LINK_MTU, strict_affinity: bool = False) -> CalicoNetwork:
    """Run calico-node on every node and the Calico CNI ADD for every placed pod; return the network.

    Order, as on a real cluster: each node's calico-node claims a block and
    takes a tunnel address for ``vxlan.calico``/``tunl0`` (tunnel modes only),
    then pods are networked in input order. A pod that already has
    ``status.podIP`` keeps it (IPAM ``AssignIP``); the others get the next free
    address of their node's blocks (``AutoAssign``). Pods without
    ``spec.nodeName``, and ``hostNetwork`` pods, get no Calico interface.

    Parameters
    ----------
    nodes : iterable of dict
        Node objects (``status.addresses`` InternalIP, or the ``projectcalico.org/IPv4Address`` annotation).
    pods : iterable of dict
    mode : str
        One of :data:`MODES`.
    pool : IPPool, optional
        Overrides ``mode``'s default pool.
    pool_cidr : str
    link_mtu : int
        MTU of the nodes' ``eth0`` (1500 on most networks, 9001 on AWS).
    strict_affinity : bool

    Returns
    -------
    CalicoNetwork

    Raises
    ------
    CalicoError
        Unknown mode, a node without an IPv4 address, a pod on a node not in
        the input, a pod IP outside the pool.

    Examples
    --------
    >>> nodes = [{"metadata": {"name": n, "annotations": {IPV4_ADDRESS_ANNOTATION: f"10.0.0.{i}/24"}}}
    ...          for i, n in ((11, "node-a"), (12, "node-b"))]
    >>> pods = [{"metadata": {"name": "web", "namespace": "default"}, "spec": {"nodeName": "node-b"}}]
    >>> net = build_network(nodes, pods, mode="vxlan")
    >>> print(net.nodes["node-a"].ip_route())
    default via 10.0.0.1 dev eth0
    10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.11
    192.168.61.0/26 via 192.168.61.0 dev vxlan.calico onlink
    blackhole 192.168.61.192/26 proto 80
    >>> net.pods["default/web"].ip, net.pods["default/web"].veth, net.mtu
    ('192.168.61.1', 'cali68caf03a5f4', 1450)
    """
    net = new_network(mode, pool=pool, pool_cidr=pool_cidr, link_mtu=link_mtu, strict_affinity=strict_affinity)
    for node in nodes:
        start_node(net, node)
    for pod in pods:
        md, spec, st = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
        node = spec.get("nodeName")
        if not node or spec.get("hostNetwork"):
            continue
        ns, pname = md.get("namespace") or "default", md.get("name", "?")
        if node not in net.nodes:
            raise CalicoError(f"Pod {ns}/{pname}: spec.nodeName: node {node!r} is not in the input")
        handle = f"k8s-pod-network.{ns}.{pname}"
        try:
            ip = net.ipam.assign_ip(node, handle, st["podIP"]) if st.get("podIP") else net.ipam.auto_assign(node, handle)
        except IPAMError as e:
            raise CalicoError(f"Pod {ns}/{pname}: status.podIP: {e}") from None
        add_workload(net, ns, pname, node, ip, program=False)
    program(net)
    return net


def new_network(mode: str = DEFAULT_MODE, *, pool: IPPool | None = None, pool_cidr: str = DEFAULT_IPV4_POOL_CIDR,
                block_size: int | None = None, link_mtu: int = DEFAULT_LINK_MTU,
                strict_affinity: bool = False) -> CalicoNetwork:
    """A cluster's Calico datastore before any calico-node runs: the IPPool for ``mode`` and an empty IPAM.

    Parameters
    ----------
    mode : str
        One of :data:`MODES`.
    pool : IPPool, optional
        Overrides the pool ``mode``, ``pool_cidr`` and ``block_size`` describe.
    pool_cidr : str
        The IPPool's ``cidr`` (calico.yaml's ``CALICO_IPV4POOL_CIDR``).
    block_size : int, optional
        The IPPool's ``blockSize`` (``CALICO_IPV4POOL_BLOCK_SIZE``; default 26).
    link_mtu : int
        MTU of the nodes' ``eth0`` in bytes.
    strict_affinity : bool
        IPAMConfig ``strictAffinity``: never borrow from another node's block.

    Returns
    -------
    CalicoNetwork
        No nodes and no pods yet: :func:`start_node` and :func:`add_workload` fill it.

    Raises
    ------
    CalicoError
        Unknown mode.
    kubenotes.cni.calico.ipam.IPAMError
        A malformed CIDR or a block size out of range for it.

    See Also
    --------
    build_network : the whole network at once, from Nodes and Pods.

    References
    ----------
    projectcalico/calico@v3.30.0 node/pkg/lifecycle/startup/startup.go (configureIPPools: the default pool)

    Examples
    --------
    >>> net = new_network("vxlan", pool_cidr="10.244.0.0/16", block_size=24)
    >>> net.pool.cidr, net.pool.block_size, net.pool.vxlan_mode, net.mtu, net.nodes
    ('10.244.0.0/16', 24, 'Always', 1450, {})
    """
    _check_mode(mode)
    if pool is None:
        pool = pool_for_mode(mode, pool_cidr, **({} if block_size is None else {"block_size": block_size}))
    return CalicoNetwork(mode, pool, CalicoIPAM([pool], strict_affinity=strict_affinity), link_mtu)


def start_node(net: CalicoNetwork, node: dict) -> NodeNet:
    """calico-node starting on ``node``: autodetect its address, take the tunnel address (tunnel modes).

    The address comes from the ``projectcalico.org/IPv4Address`` annotation, else the
    Node's first IPv4 ``InternalIP`` (taken as a /24); in VXLAN modes the node takes an
    address for ``vxlan.calico`` (handle ``vxlan-tunnel-addr-<node>``) and a VTEP MAC, in
    IP-in-IP modes one for ``tunl0``: the first address of the first block it claims.
    Routes are not programmed here (:func:`program`).

    Parameters
    ----------
    net : CalicoNetwork
        Changed in place.
    node : dict
        A Node object.

    Returns
    -------
    NodeNet
        The node's entry in ``net.nodes``.

    Raises
    ------
    CalicoError
        A Node without a name or an IPv4 address; no block left for the tunnel address.

    References
    ----------
    projectcalico/calico@v3.30.0 node/pkg/lifecycle/startup/startup.go (autodetection)
    projectcalico/calico@v3.30.0 node/pkg/allocateip/allocateip.go (tunnel addresses)

    Examples
    --------
    >>> net = new_network("ipip")
    >>> nn = start_node(net, {"metadata": {"name": "n1"}, "status": {"addresses": [
    ...     {"type": "InternalIP", "address": "10.0.0.11"}]}})
    >>> nn.ip, str(nn.subnet), nn.tunnel_ip
    ('10.0.0.11', '10.0.0.0/24', '192.168.52.128')
    """
    name = (node.get("metadata") or {}).get("name")
    if not name:
        raise CalicoError("Node without metadata.name")
    iface = _node_address(node)
    gw = str(next(iface.network.hosts()))
    nn = NodeNet(name, str(iface.ip), iface, gw, _mac(0x52, "eth0", name))
    net.nodes[name] = nn
    enc = net.encapsulation
    try:
        if enc == "vxlan":
            nn.tunnel_ip = net.ipam.auto_assign(name, vxlan_tunnel_handle(name))
            nn.vtep_mac = _mac(0x66, "vtep", name)
        elif enc == "ipip":
            nn.tunnel_ip = net.ipam.auto_assign(name, ipip_tunnel_handle(name))
    except IPAMError as e:
        raise CalicoError(f"Node {name}: {e}") from None
    return nn


def add_workload(net: CalicoNetwork, namespace: str, name: str, node: str, ip: str, *, veth: str | None = None,
                 mac: str | None = None, program: bool = True) -> PodNet:
    """A pod's workload endpoint (what the Calico CNI plugin writes on ADD); Felix then programs its route.

    Parameters
    ----------
    net : CalicoNetwork
        Changed in place.
    namespace, name : str
        The pod.
    node : str
        A node of ``net`` (started with :func:`start_node`).
    ip : str
        The address IPAM assigned.
    veth : str, optional
        The host veth; default :func:`veth_name_for_workload`.
    mac : str, optional
        The pod's ``eth0`` MAC; default derived from the names.
    program : bool
        Re-program every node's routes (:func:`program`) at once.

    Returns
    -------
    PodNet

    Raises
    ------
    CalicoError
        ``node`` is not in the network.

    References
    ----------
    projectcalico/calico@v3.30.0 cni-plugin/pkg/k8s/k8s.go (CmdAddK8s: the WorkloadEndpoint)

    Examples
    --------
    >>> net = new_network("bgp")
    >>> _ = start_node(net, {"metadata": {"name": "n1"}, "status": {"addresses": [
    ...     {"type": "InternalIP", "address": "10.0.0.11"}]}})
    >>> p = add_workload(net, "default", "web", "n1", "192.168.52.128")
    >>> p.veth, str(net.nodes["n1"].lookup("192.168.52.128"))
    ('cali68caf03a5f4', '192.168.52.128 dev cali68caf03a5f4 scope link')
    """
    if node not in net.nodes:
        raise CalicoError(f"Pod {namespace}/{name}: node {node!r} runs no calico-node")
    p = PodNet(namespace, name, node, ip, veth or veth_name_for_workload(namespace, name),
               mac or _mac(0x0A, "pod", namespace, name), net.mtu,
               [Route("default", "eth0", via=POD_GATEWAY), Route(POD_GATEWAY, "eth0", scope="link")])
    net.pods[p.key] = p
    if program:
        _program(net)
    return p


def remove_workload(net: CalicoNetwork, namespace: str, name: str, *, program: bool = True) -> PodNet | None:
    """Drop a pod's workload endpoint (the Calico CNI plugin's DEL); Felix removes its route.

    Parameters
    ----------
    net : CalicoNetwork
        Changed in place.
    namespace, name : str
        The pod.
    program : bool
        Re-program every node's routes at once.

    Returns
    -------
    PodNet or None
        The removed endpoint; None when there was none (DEL is idempotent).

    Raises
    ------
    None

    Examples
    --------
    >>> remove_workload(new_network("bgp"), "default", "web") is None
    True
    """
    p = net.pods.pop(f"{namespace}/{name}", None)
    if p is not None and program:
        _program(net)
    return p


def program(net: CalicoNetwork) -> CalicoNetwork:
    """Felix and BIRD on every node: interfaces, routes, VXLAN neighbours and FDB from the datastore.

    Parameters
    ----------
    net : CalicoNetwork
        Its nodes' ``interfaces``, ``routes``, ``neighbors`` and ``fdb`` are rewritten.

    Returns
    -------
    CalicoNetwork
        ``net``.

    Raises
    ------
    None

    References
    ----------
    projectcalico/calico@v3.30.0 felix/dataplane/linux/route_mgr.go, vxlan_mgr.go

    Examples
    --------
    >>> program(new_network()).nodes
    {}
    """
    _program(net)
    return net


def _program(net: CalicoNetwork, down: frozenset[str] = frozenset(),
             learned: dict[str, set[str]] | None = None) -> None:
    """Fill every node's interfaces, routes, neighbours and FDB (what Felix, BIRD and the kernel hold).

    ``down``: stopped nodes (their routes disappear elsewhere). ``learned``:
    node -> the nodes whose routes BIRD learned (default: all of them).
    """
    enc, mtu = net.encapsulation, net.mtu
    borrowed = net.ipam.borrowed()
    for nn in net.nodes.values():
        ifs = [Interface("lo", "loopback", 65536, ("127.0.0.1/8",)),
               Interface("eth0", "ethernet", net.link_mtu, (str(nn.interface),), nn.mac)]
        if enc == "vxlan":
            ifs.append(Interface(VXLAN_DEVICE, "vxlan", mtu, (f"{nn.tunnel_ip}/32",), nn.vtep_mac,
                                 {"vni": VXLAN_VNI, "dstport": VXLAN_PORT, "local": nn.ip, "dev": "eth0"}))
        elif enc == "ipip":
            ifs.append(Interface(IPIP_DEVICE, "ipip", mtu, (f"{nn.tunnel_ip}/32",), None,
                                 {"protocol": 4, "remote": "any"}))
        routes = [Route("default", "eth0", via=nn.gateway, programmed_by="dhcp"),
                  Route(str(nn.subnet), "eth0", proto="kernel", scope="link", src=nn.ip)]
        local_proto = FELIX_ROUTE_PROTO if enc == "vxlan" else "bird"
        for b in net.ipam.affine_blocks(nn.name):
            routes.append(Route(str(b.cidr), None, proto=local_proto, blackhole=True, owner=nn.name,
                                programmed_by="felix" if enc == "vxlan" else "bird"))
        for p in net.pods.values():
            if p.node == nn.name:
                ifs.append(Interface(p.veth, "veth", mtu, (), VETH_HOST_MAC,
                                     {"peer": f"{p.key} eth0", "proxy_arp": 1}))
                routes.append(Route(p.ip, p.veth, scope="link", owner=nn.name, programmed_by="felix"))
        for other in net.nodes.values():
            if other.name == nn.name or other.name in down:
                continue
            if learned is not None and net.uses_bgp and other.name not in learned.get(nn.name, ()):
                continue
            for b in net.ipam.affine_blocks(other.name):
                routes.append(net.remote_route(nn, other, str(b.cidr)))
        for ip, borrower in borrowed.items():
            if borrower != nn.name and borrower not in down and (
                    learned is None or not net.uses_bgp or borrower in learned.get(nn.name, ())):
                routes.append(net.remote_route(nn, net.nodes[borrower], f"{ip}/32"))
        nn.interfaces, nn.routes = ifs, _sort_routes(routes)
        nn.neighbors, nn.fdb = [], []
        if enc == "vxlan":
            for other in net.nodes.values():
                if other.name != nn.name and other.name not in down and net.encapsulates(nn.name, other.name):
                    nn.neighbors.append(f"{other.tunnel_ip} dev {VXLAN_DEVICE} lladdr {other.vtep_mac} PERMANENT")
                    nn.fdb.append(f"{other.vtep_mac} dev {VXLAN_DEVICE} dst {other.ip} self permanent")


def pod_netns_path(pod: PodNet) -> str:
    """The pod's network namespace path as the runtime names it (``/var/run/netns/cni-<uuid>``; seeded here).

    Examples
    --------
    >>> p = PodNet("default", "web", "n1", "192.168.52.128", "cali68caf03a5f4", "0a:00:00:00:00:01", 1480)
    >>> pod_netns_path(p).startswith("/var/run/netns/cni-"), pod_netns_path(p) == pod_netns_path(p)
    (True, True)
    """
    h = nodenet.seeded_hex(0, "calico-netns", pod.node, pod.key, length=32)
    return f"/var/run/netns/cni-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _host_route(r: Route) -> nodenet.Route:
    return nodenet.Route("0.0.0.0/0" if r.dst == "default" else r.dst, gw=r.via, dev=r.dev, scope=r.scope, src=r.src,
                         proto=r.proto, onlink=r.onlink, blackhole=r.blackhole)


def node_hosts(net: CalicoNetwork) -> tuple[dict[str, nodenet.Host], dict[tuple[str, str], str]]:
    """Write ``net`` into the one node-network model: a :class:`kubenotes.cni.netns.Host` per node.

    What ``ip -d link``, ``ip route``, ``ip neigh``, ``bridge fdb`` and ``sysctl`` show on a node
    running Calico (the state :func:`program` computed, as Felix, BIRD and the Calico CNI plugin
    leave it in the kernel):

    * ``eth0`` with the node's address and the connected and default routes;
      ``net.ipv4.ip_forward=1`` (calico-node's requirement);
    * per pod a ``cali<11 hex>`` veth (MAC ``ee:ee:ee:ee:ee:ee``) whose other end is the pod's
      ``eth0`` (its address as a ``/32``; routes ``default via 169.254.1.1 dev eth0`` and
      ``169.254.1.1 dev eth0 scope link``); the CNI plugin sets ``proxy_arp=1``,
      ``neigh.proxy_delay=0`` and ``forwarding=1`` on the host end, so the host answers the pod's
      ARP for ``169.254.1.1``, an address no interface has; the node's ``/32 dev cali... scope link``
      route;
    * VXLAN modes: ``vxlan.calico`` (VNI 4096, UDP 4789, ``local`` the node's address, the tunnel
      address as a /32, the pod MTU, ``nolearning``), a permanent neighbour entry per remote VTEP
      (tunnel address -> VTEP MAC) and an FDB entry (VTEP MAC -> node address), remote blocks
      ``via <tunnel address> dev vxlan.calico onlink``, the node's own blocks blackholed
      (``proto 80``, Felix);
    * IP-in-IP modes: ``tunl0`` (kind ``ipip``, the tunnel address), remote blocks
      ``via <node> dev tunl0 proto bird onlink`` (BIRD);
    * BGP and the CrossSubnet modes' same-subnet peers: ``via <node> dev eth0`` (``proto bird``;
      Felix's ``proto 80 onlink`` in vxlan-crosssubnet); across subnets without encapsulation,
      via the subnet's gateway.

    Parameters
    ----------
    net : CalicoNetwork
        A programmed network (:func:`build_network`).

    Returns
    -------
    (dict of str to Host, dict of (str, str) to str)
        The hosts by node name, and ``(node, netns path) -> namespace/pod`` labels for
        :func:`kubenotes.cni.walk.walk_packet`.

    Raises
    ------
    None

    References
    ----------
    projectcalico/calico@v3.30.0 cni-plugin/internal/pkg/utils/network_linux.go (DoNetworking: proxy_arp,
    proxy_delay, forwarding, the 169.254.1.1 routes)
    projectcalico/calico@v3.30.0 felix/dataplane/linux/vxlan_mgr.go (device, neighbours, FDB), route_mgr.go

    Examples
    --------
    >>> nodes = [{"metadata": {"name": n, "annotations": {IPV4_ADDRESS_ANNOTATION: f"10.0.0.{i}/24"}}}
    ...          for i, n in ((11, "node-a"), (12, "node-b"))]
    >>> pods = [{"metadata": {"name": "web", "namespace": "default"}, "spec": {"nodeName": "node-b"}}]
    >>> hosts, labels = node_hosts(build_network(nodes, pods, mode="vxlan"))
    >>> a = hosts["node-a"].root
    >>> a.ip_route()[2]
    '192.168.61.0/26 via 192.168.61.0 dev vxlan.calico onlink'
    >>> for line in a.ip_neigh() + a.bridge_fdb():
    ...     print(line)
    192.168.61.0 dev vxlan.calico lladdr 66:86:ea:b1:c7:d7 PERMANENT
    66:86:ea:b1:c7:d7 dev vxlan.calico dst 10.0.0.12 self permanent
    >>> b = hosts["node-b"]
    >>> b.root.ip_route()[3], b.root.sysctls["net.ipv4.conf.cali68caf03a5f4.proxy_arp"], list(labels.values())
    ('192.168.61.1 dev cali68caf03a5f4 scope link', '1', ['default/web'])
    """
    hosts: dict[str, nodenet.Host] = {}
    labels: dict[tuple[str, str], str] = {}
    for nn in net.nodes.values():
        host = nodenet.Host(nn.name, eth0_address=str(nn.interface), mtu=net.link_mtu)
        root = host.root
        root.interfaces["eth0"].mac = nn.mac
        root.sysctls["net.ipv4.ip_forward"] = "1"
        for i in nn.interfaces:
            if i.kind == "vxlan":
                root.interfaces[i.name] = nodenet.Interface(
                    i.name, "vxlan", i.mac or "", i.mtu, list(i.addresses), up=True, vni=i.details["vni"],
                    port=i.details["dstport"], local=i.details["local"], learning=False)
            elif i.kind == "ipip":
                root.interfaces[i.name] = nodenet.Interface(i.name, "ipip", "00:00:00:00", i.mtu, list(i.addresses),
                                                            up=True)
        for p in net.pods.values():
            if p.node != nn.name:
                continue
            path = pod_netns_path(p)
            ns = host.add_netns(path)
            host_end, cont = host.create_veth(path, "eth0", p.veth, mtu=p.mtu, container_mac=p.mac, seed_key=p.key)
            host_end.mac = VETH_HOST_MAC
            cont.addresses.append(f"{p.ip}/32")
            ns.routes.extend(_host_route(r) for r in p.routes)
            for key, value in (("proxy_arp", "1"), ("forwarding", "1")):
                root.sysctls[f"net.ipv4.conf.{p.veth}.{key}"] = value
            root.sysctls[f"net.ipv4.neigh.{p.veth}.proxy_delay"] = "0"
            labels[(nn.name, path)] = p.key
        root.routes = [_host_route(r) for r in nn.routes]
        for line in nn.neighbors:  # "<ip> dev <dev> lladdr <mac> PERMANENT"
            ip, _, dev, _, mac, _ = line.split()
            root.set_neighbour(nodenet.Neighbour(ip, mac, dev))
        for line in nn.fdb:  # "<mac> dev <dev> dst <ip> self permanent"
            mac, _, dev, _, dst, *_ = line.split()
            root.set_fdb(nodenet.FdbEntry(mac, dev, dst))
        hosts[nn.name] = host
    return hosts, labels
