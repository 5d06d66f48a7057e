"""A host and its network namespaces as data: interfaces, addresses, routes, sysctls, NAT rules, files.

The CNI plugins change the kernel's state through netlink, iptables and files under
``/var/lib/cni``; here they change a :class:`Host` instead, so a learner can list what a
pod's network consists of (the veth pair, the bridge, the routes) without root. The shape
follows ``ip -d link`` / ``ip route`` / ``iptables-save`` / ``tc qdisc`` as data.

Names and MAC addresses that the real plugins draw at random (``RandomVethName``:
``veth`` + 4 random bytes; kernel-assigned MACs) are derived from a seeded SHA-256 of the
container ID and interface name, so runs are reproducible.

References
----------
containernetworking/plugins@v1.1.1 pkg/ip/link_linux.go (SetupVeth, RandomVethName)
containernetworking/plugins@v1.1.1 pkg/ns/ns_linux.go
containernetworking/plugins@v1.1.1 pkg/ipam/ipam_linux.go (ConfigureIface)
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass, field

__all__ = [
    "format_ip_route",
    "HOST_NETNS",
    "Interface",
    "Route",
    "Neighbour",
    "FdbEntry",
    "WireGuardPeer",
    "NetNS",
    "Host",
    "seeded_hex",
    "random_veth_name",
    "seeded_mac",
    "uplink_host",
]

#: Path used for the host's (root) network namespace.
HOST_NETNS = "/proc/1/ns/net"


def seeded_hex(seed: int | str, *parts: str, length: int = 8) -> str:
    """``length`` hex digits of SHA-256 over the seed and parts (a deterministic stand-in for randomness).

    Examples
    --------
    >>> seeded_hex(0, "c1", "eth0") == seeded_hex(0, "c1", "eth0"), len(seeded_hex(0, "x", length=12))
    (True, 12)
    """
    h = hashlib.sha256("\x00".join([str(seed), *parts]).encode()).hexdigest()
    return h[:length]


def random_veth_name(seed: int | str, container_id: str, ifname: str) -> str:
    """The host-side veth name: ``veth`` + 8 hex digits, as ``ip.RandomVethName`` (seeded here).

    Examples
    --------
    >>> name = random_veth_name(0, "c1", "eth0")
    >>> name.startswith("veth"), len(name)
    (True, 12)
    """
    return "veth" + seeded_hex(seed, "veth", container_id, ifname)


def seeded_mac(seed: int | str, *parts: str) -> str:
    """A locally administered unicast MAC (first octet ``x2``/``x6``/``xa``/``xe``), seeded.

    Examples
    --------
    >>> mac = seeded_mac(0, "c1", "eth0")
    >>> int(mac[:2], 16) & 0b11
    2
    """
    raw = bytearray(bytes.fromhex(seeded_hex(seed, "mac", *parts, length=12)))
    raw[0] = (raw[0] & 0xFC) | 0x02
    return ":".join(f"{b:02x}" for b in raw)


@dataclass
class Interface:
    """One network interface (``ip -d link`` + ``ip addr``).

    Attributes
    ----------
    name : str
    kind : str
        ``loopback``, ``veth``, ``bridge``, ``vxlan``, ``ipip``, ``device``...
    mac : str
    mtu : int
        Bytes.
    addresses : list of str
        CIDR strings (``10.244.1.5/24``).
    up : bool
    peer : tuple of (str, str) or None
        For a veth: ``(netns path, interface name)`` of the other end.
    master : str or None
        The bridge this interface is enslaved to.
    hairpin : bool
        Bridge port hairpin mode (reflect frames back out the port they came in).
    promisc : bool
    vni : int or None
        For a ``vxlan`` device: its VXLAN network identifier (``ip -d link``: ``vxlan id 1``).
    port : int or None
        UDP destination port of a ``vxlan`` device (``dstport 8472``) or listen port of a
        ``wireguard`` device (``51820``).
    local : str or None
        Source address of the encapsulated packets (``vxlan ... local 10.0.0.11``).
    learning : bool
        A ``vxlan`` device's MAC learning (``nolearning`` when False, as Flannel creates it).
    wg_peers : list of WireGuardPeer
        A ``wireguard`` device's peers (``wg show``).
    """

    name: str
    kind: str
    mac: str = "00:00:00:00:00:00"
    mtu: int = 1500
    addresses: list[str] = field(default_factory=list)
    up: bool = False
    peer: tuple[str, str] | None = None
    master: str | None = None
    hairpin: bool = False
    promisc: bool = False
    vni: int | None = None
    port: int | None = None
    local: str | None = None
    learning: bool = False
    wg_peers: list["WireGuardPeer"] = field(default_factory=list)

    def to_dict(self) -> dict:
        """A JSON-shaped view."""
        out = {"name": self.name, "kind": self.kind, "mac": self.mac, "mtu": self.mtu,
               "addresses": list(self.addresses), "up": self.up}
        if self.peer:
            out["peer"] = {"netns": self.peer[0], "name": self.peer[1]}
        if self.master:
            out["master"] = self.master
        if self.hairpin:
            out["hairpin"] = True
        if self.vni is not None:
            out["vni"] = self.vni
        if self.port is not None:
            out["port"] = self.port
        if self.local:
            out["local"] = self.local
        if self.wg_peers:
            out["peers"] = [p.to_dict() for p in self.wg_peers]
        return out


@dataclass(frozen=True)
class WireGuardPeer:
    """One peer of a WireGuard device (``wg show``): its key, endpoint and the addresses routed to it.

    Examples
    --------
    >>> WireGuardPeer("key-b", "10.0.0.12:51820", ("10.244.2.0/24",)).to_dict()["allowedIPs"]
    ['10.244.2.0/24']
    """

    public_key: str
    endpoint: str
    allowed_ips: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """A JSON-shaped view."""
        return {"publicKey": self.public_key, "endpoint": self.endpoint, "allowedIPs": list(self.allowed_ips)}


@dataclass(frozen=True)
class Neighbour:
    """One neighbour (ARP) entry (``ip neigh``): an IP address's link-layer address on a device.

    Examples
    --------
    >>> str(Neighbour("10.244.2.0", "66:aa:bb:cc:dd:02", "flannel.1"))
    '10.244.2.0 dev flannel.1 lladdr 66:aa:bb:cc:dd:02 PERMANENT'
    """

    ip: str
    lladdr: str
    dev: str
    state: str = "PERMANENT"

    def __str__(self) -> str:
        return f"{self.ip} dev {self.dev} lladdr {self.lladdr} {self.state}"


@dataclass(frozen=True)
class FdbEntry:
    """One forwarding-database entry (``bridge fdb``): for a VXLAN device, which VTEP owns a MAC.

    Examples
    --------
    >>> str(FdbEntry("66:aa:bb:cc:dd:02", "flannel.1", "10.0.0.12"))
    '66:aa:bb:cc:dd:02 dev flannel.1 dst 10.0.0.12 self permanent'
    """

    mac: str
    dev: str
    dst: str

    def __str__(self) -> str:
        return f"{self.mac} dev {self.dev} dst {self.dst} self permanent"


def format_ip_route(dst: str, *, via: str | None = None, dev: str | None = None, proto: str | None = None,
                    scope: str | None = None, src: str | None = None, onlink: bool = False,
                    blackhole: bool = False) -> str:
    """One line of ``ip route`` (iproute2's field order: type, destination, via, dev, proto, scope, src, flags).

    Examples
    --------
    >>> format_ip_route("0.0.0.0/0", via="10.244.1.1", dev="eth0")
    'default via 10.244.1.1 dev eth0'
    >>> format_ip_route("192.168.0.0/26", dev="eth0", proto="bird", blackhole=True)
    'blackhole 192.168.0.0/26 proto bird'
    >>> format_ip_route("192.168.1.64/26", via="10.0.0.12", dev="tunl0", proto="bird", onlink=True)
    '192.168.1.64/26 via 10.0.0.12 dev tunl0 proto bird onlink'
    """
    shown = "default" if dst in ("0.0.0.0/0", "::/0") else dst
    parts = ["blackhole", shown] if blackhole else [shown]
    for key, value in (("via", via), ("dev", None if blackhole else dev), ("proto", proto), ("scope", scope),
                       ("src", src)):
        if value:
            parts += [key, value]
    if onlink:
        parts.append("onlink")
    return " ".join(parts)


@dataclass(frozen=True)
class Route:
    """One route (``ip route``): destination, optional gateway, device, scope; ``blackhole`` routes drop.

    Examples
    --------
    >>> str(Route("0.0.0.0/0", gw="10.244.1.1", dev="eth0"))
    'default via 10.244.1.1 dev eth0'
    >>> str(Route("10.244.1.0/24", dev="cni0", scope="link", src="10.244.1.1"))
    '10.244.1.0/24 dev cni0 scope link src 10.244.1.1'
    >>> str(Route("192.168.61.192/26", proto="80", blackhole=True))
    'blackhole 192.168.61.192/26 proto 80'
    """

    dst: str
    gw: str | None = None
    dev: str | None = None
    scope: str | None = None
    src: str | None = None
    proto: str | None = None
    onlink: bool = False
    blackhole: bool = False

    def __str__(self) -> str:
        return format_ip_route(self.dst, via=self.gw, dev=self.dev, proto=self.proto, scope=self.scope, src=self.src,
                               onlink=self.onlink, blackhole=self.blackhole)


@dataclass
class NetNS:
    """A network namespace: its interfaces, routes and sysctls.

    Attributes
    ----------
    path : str
        ``/var/run/netns/<name>`` (or :data:`HOST_NETNS` for the host's).
    interfaces : dict of str to Interface
    routes : list of Route
    sysctls : dict of str to str
        E.g. ``net.ipv4.ip_forward`` -> ``"1"``.
    neighbours : list of Neighbour
        Static neighbour entries (``ip neigh``) programmed by a network daemon (flanneld, Felix).
    fdb : list of FdbEntry
        Forwarding-database entries of VXLAN devices (``bridge fdb``).
    """

    path: str
    interfaces: dict[str, Interface] = field(default_factory=dict)
    routes: list[Route] = field(default_factory=list)
    sysctls: dict[str, str] = field(default_factory=dict)
    neighbours: list[Neighbour] = field(default_factory=list)
    fdb: list[FdbEntry] = field(default_factory=list)

    def replace_route(self, route: Route) -> None:
        """``ip route replace``: the route to the same destination (and device-less table) is replaced."""
        self.routes = [r for r in self.routes if r.dst != route.dst] + [route]

    def set_neighbour(self, entry: Neighbour) -> None:
        """``ip neigh replace`` (netlink ``NeighSet``): one entry per (device, IP)."""
        self.neighbours = [n for n in self.neighbours if (n.dev, n.ip) != (entry.dev, entry.ip)] + [entry]

    def set_fdb(self, entry: FdbEntry) -> None:
        """``bridge fdb replace``: one entry per (device, MAC)."""
        self.fdb = [f for f in self.fdb if (f.dev, f.mac) != (entry.dev, entry.mac)] + [entry]

    def ip_neigh(self) -> list[str]:
        """Neighbour entries as ``ip neigh`` prints them."""
        return [str(n) for n in self.neighbours]

    def bridge_fdb(self) -> list[str]:
        """FDB entries as ``bridge fdb`` prints them."""
        return [str(f) for f in self.fdb]

    def add_route(self, route: Route) -> None:
        """Add a route unless an identical one exists (``ip route replace`` semantics)."""
        if route not in self.routes:
            self.routes.append(route)

    def ip_route(self) -> list[str]:
        """Routes as ``ip route`` prints them."""
        return [str(r) for r in self.routes]

    def to_dict(self) -> dict:
        """A JSON-shaped view."""
        out = {"path": self.path, "interfaces": [i.to_dict() for i in self.interfaces.values()],
               "routes": self.ip_route(), "sysctls": dict(self.sysctls)}
        if self.neighbours:
            out["neighbours"] = self.ip_neigh()
        if self.fdb:
            out["fdb"] = self.bridge_fdb()
        return out


def _jump_target(rule: str) -> str | None:
    tokens = rule.split()
    return tokens[tokens.index("-j") + 1] if "-j" in tokens[:-1] else None


class Host:
    """A node's network state: the root namespace, pod namespaces, NAT rules, qdiscs and CNI files.

    Parameters
    ----------
    name : str
        The node name.
    seed : int
        Seed for veth names and MAC addresses.

    Attributes
    ----------
    root : NetNS
        The host's namespace (with ``lo`` and ``eth0``).
    namespaces : dict of str to NetNS
        Pod namespaces by path.
    nat : dict of str to list of str
        ``iptables -t nat`` chains -> rules in ``iptables-save`` syntax (``-A CHAIN ...``).
    qdiscs : dict of str to dict
        Interface -> traffic-control qdisc (the bandwidth plugin's ``tbf``).
    files : dict of str to bytes
        Files the plugins write (host-local's ``/var/lib/cni/networks/<net>/<ip>``).

    Examples
    --------
    >>> h = Host("node-1")
    >>> ns = h.add_netns("/var/run/netns/cni-1")
    >>> sorted(ns.interfaces)
    ['lo']
    >>> h.netns("/var/run/netns/cni-1") is ns
    True
    """

    def __init__(self, name: str = "node", *, seed: int = 0, eth0_address: str | None = None, mtu: int = 1500):
        self.name = name
        self.seed = seed
        self.root = NetNS(HOST_NETNS)
        self.root.interfaces["lo"] = Interface("lo", "loopback", mtu=65536, addresses=["127.0.0.1/8"], up=True)
        self.root.interfaces["eth0"] = Interface("eth0", "device", seeded_mac(seed, name, "eth0"), mtu,
                                                 [eth0_address] if eth0_address else [], up=True)
        self.root.sysctls["net.ipv4.ip_forward"] = "0"
        self.namespaces: dict[str, NetNS] = {}
        self.nat: dict[str, list[str]] = {"PREROUTING": [], "OUTPUT": [], "POSTROUTING": []}
        self.qdiscs: dict[str, dict] = {}
        self.files: dict[str, bytes] = {}

    def add_netns(self, path: str) -> NetNS:
        """Create a namespace (as the runtime does before calling CNI) with a down ``lo``."""
        ns = NetNS(path)
        ns.interfaces["lo"] = Interface("lo", "loopback", mtu=65536)
        self.namespaces[path] = ns
        return ns

    def netns(self, path: str) -> NetNS:
        """The namespace at ``path`` (the root namespace for :data:`HOST_NETNS`).

        Raises
        ------
        KeyError
            If no such namespace exists (upstream: ``failed to Statfs``).
        """
        if path == HOST_NETNS:
            return self.root
        return self.namespaces[path]

    def delete_netns(self, path: str) -> None:
        """Remove a namespace; its veth ends vanish and so do their host peers, as in the kernel."""
        ns = self.namespaces.pop(path, None)
        if ns is None:
            return
        for iface in ns.interfaces.values():
            if iface.kind == "veth" and iface.peer:
                peer_ns = self.root if iface.peer[0] == HOST_NETNS else self.namespaces.get(iface.peer[0])
                if peer_ns is not None:
                    peer_ns.interfaces.pop(iface.peer[1], None)

    def create_veth(self, netns_path: str, ifname: str, host_ifname: str, *, mtu: int = 1500,
                    container_mac: str | None = None, seed_key: str = "") -> tuple[Interface, Interface]:
        """Create a veth pair: ``ifname`` in ``netns_path``, ``host_ifname`` in the root namespace.

        Returns
        -------
        (Interface, Interface)
            The host end and the container end, both up (as ``ip.SetupVeth`` leaves them).

        Raises
        ------
        ValueError
            ``container veth name provided (X) already exists`` or the host name is taken.
        """
        ns = self.netns(netns_path)
        if ifname in ns.interfaces:
            raise ValueError(f'container veth name provided ({ifname}) already exists')
        if host_ifname in self.root.interfaces:
            raise ValueError(f"{host_ifname} already exists")
        host = Interface(host_ifname, "veth", seeded_mac(self.seed, seed_key, host_ifname), mtu, up=True,
                         peer=(netns_path, ifname))
        cont = Interface(ifname, "veth", container_mac or seeded_mac(self.seed, seed_key, ifname), mtu,
                         up=True, peer=(HOST_NETNS, host_ifname))
        self.root.interfaces[host_ifname] = host
        ns.interfaces[ifname] = cont
        return host, cont

    def ensure_chain(self, chain: str) -> list[str]:
        """The rules of NAT chain ``chain``, created empty if missing."""
        return self.nat.setdefault(chain, [])

    def append_rule(self, chain: str, rule: str) -> None:
        """Append ``-A chain rule`` unless present (``iptables -C`` then ``-A``, as the plugins do)."""
        rules = self.ensure_chain(chain)
        line = f"-A {chain} {rule}"
        if line not in rules:
            rules.append(line)

    def delete_chain(self, chain: str) -> None:
        """Flush and delete a NAT chain and every jump to it."""
        self.nat.pop(chain, None)
        for name, rules in self.nat.items():
            self.nat[name] = [r for r in rules if _jump_target(r) != chain]

    def iptables_save_nat(self) -> str:
        """The NAT table in ``iptables-save`` syntax (policy ACCEPT for the built-in chains)."""
        builtin = ("PREROUTING", "INPUT", "OUTPUT", "POSTROUTING")
        lines = ["*nat"] + [f":{chain} ACCEPT [0:0]" for chain in builtin]
        for chain in sorted(c for c in self.nat if c not in builtin):
            lines.append(f":{chain} - [0:0]")
        for chain, rules in self.nat.items():
            lines.extend(rules)
        lines.append("COMMIT")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict:
        """A JSON-shaped view of everything."""
        return {"name": self.name, "root": self.root.to_dict(),
                "namespaces": {p: ns.to_dict() for p, ns in self.namespaces.items()},
                "nat": {c: list(r) for c, r in self.nat.items()}, "qdiscs": dict(self.qdiscs),
                "files": sorted(self.files)}


def uplink_host(name: str, address: str, *, mtu: int = 1500, seed: int = 0, gateway: str | None = None) -> Host:
    """A node as its OS leaves it before any CNI plugin: ``eth0`` with ``address``, its connected and default routes.

    Parameters
    ----------
    name : str
    address : str
        ``eth0``'s address with prefix (``10.0.0.11/24``): the nodes sharing that prefix share an L2 segment.
    mtu : int
    seed : int
    gateway : str, optional
        The segment's router (default: the prefix's first address).

    Returns
    -------
    Host

    Examples
    --------
    >>> uplink_host("n1", "10.0.0.11/24").root.ip_route()
    ['10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.11', 'default via 10.0.0.1 dev eth0']
    """
    addr = ipaddress.ip_interface(address)
    host = Host(name, seed=seed, eth0_address=str(addr), mtu=mtu)
    host.root.add_route(Route(str(addr.network), dev="eth0", proto="kernel", scope="link", src=str(addr.ip)))
    host.root.add_route(Route("0.0.0.0/0", gw=gateway or str(addr.network.network_address + 1), dev="eth0"))
    return host
