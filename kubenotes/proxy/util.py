"""kube-proxy's small helpers: sloppy IP parsing, the local-traffic detector, node-port addresses.

* :func:`parse_ip_sloppy` / :func:`parse_cidr_sloppy` are ``k8s.io/utils/net``'s
  ``ParseIPSloppy`` / ``ParseCIDRSloppy``: like Go's ``net.ParseIP`` but an IPv4
  octet may carry leading zeros, read as decimal (``010.000.000.001`` is
  10.0.0.1). Validation refuses such spellings today, but objects stored before
  it did still carry them; kube-proxy parses them this way and writes the
  normalised address (:func:`normalize_ip`).
* :class:`LocalTrafficDetector` is ``pkg/proxy/util/localdetector.go``: the
  iptables and nftables matches for "from a local pod" by cluster CIDR, the
  node's pod CIDR, a bridge interface or an interface-name prefix (or none).
* :func:`node_port_ips` is ``NodePortAddresses``: which node IPs accept NodePort
  traffic for ``--nodeport-addresses`` (``primary``, CIDRs, or everything).

References
----------
kubernetes/utils net/parse.go (ParseIPSloppy, ParseCIDRSloppy)
kubernetes/kubernetes@v1.34.0 pkg/proxy/util/localdetector.go
kubernetes/kubernetes@v1.34.0 pkg/proxy/util/nodeport_addresses.go
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Iterable, Sequence

from kubenotes.api.validation import parse_cidr_sloppy, parse_ip_sloppy  # k8s.io/utils/net: one home, in api/

__all__ = [
    "parse_ip_sloppy",
    "parse_cidr_sloppy",
    "normalize_ip",
    "LocalTrafficDetector",
    "node_port_ips",
    "NODE_PORT_ADDRESSES_PRIMARY",
]

#: ``kubeproxyconfig.NodePortAddressesPrimary``: only the node's primary IP of each family.
NODE_PORT_ADDRESSES_PRIMARY = "primary"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def normalize_ip(s: str) -> str | None:
    """The address as kube-proxy writes it after :func:`parse_ip_sloppy` (None when it does not parse).

    Examples
    --------
    >>> normalize_ip("172.030.000.041"), normalize_ip("10.96.0.1"), normalize_ip("nope")
    ('172.30.0.41', '10.96.0.1', None)
    """
    if ":" not in s:  # fast path: an already-canonical IPv4 address
        parts = s.split(".")
        if len(parts) == 4 and all(p.isdigit() and len(p) <= 3 and (p == "0" or p[0] != "0") and int(p) <= 255
                                   for p in parts):
            return s
    ip = parse_ip_sloppy(s)
    return None if ip is None else str(ip)


@dataclass(frozen=True)
class LocalTrafficDetector:
    """``LocalTrafficDetector``: matches for traffic from (or not from) a local pod, per rule syntax.

    Attributes
    ----------
    if_local, if_not_local : tuple[str, ...]
        iptables arguments (``-s CIDR`` / ``! -s CIDR``, ``-i IFACE``, ``-i PREFIX+``).
    if_local_nft, if_not_local_nft : tuple[str, ...]
        nftables words (``ip saddr CIDR``, ``iifname IFACE``, ``iifname "PREFIX*"``).

    Examples
    --------
    >>> d = LocalTrafficDetector.by_cidr("10.0.0.0/8")
    >>> d.implemented, " ".join(d.if_not_local), " ".join(d.if_not_local_nft)
    (True, '! -s 10.0.0.0/8', 'ip saddr != 10.0.0.0/8')
    >>> " ".join(LocalTrafficDetector.by_interface_name_prefix("veth").if_local_nft)
    'iifname veth*'
    >>> LocalTrafficDetector.no_op().implemented
    False
    """

    if_local: tuple[str, ...] = ()
    if_not_local: tuple[str, ...] = ()
    if_local_nft: tuple[str, ...] = ()
    if_not_local_nft: tuple[str, ...] = ()

    @property
    def implemented(self) -> bool:
        """``IsImplemented``: the detector matches something (the no-op one does not)."""
        return bool(self.if_local)

    @classmethod
    def no_op(cls) -> "LocalTrafficDetector":
        """``NewNoOpLocalDetector``."""
        return cls()

    @classmethod
    def by_cidr(cls, cidr: str) -> "LocalTrafficDetector":
        """``NewDetectLocalByCIDR`` (``cidr`` already valid)."""
        fam = "ip6" if ":" in cidr else "ip"
        return cls(("-s", cidr), ("!", "-s", cidr), (fam, "saddr", cidr), (fam, "saddr", "!=", cidr))

    @classmethod
    def by_bridge_interface(cls, name: str) -> "LocalTrafficDetector":
        """``NewDetectLocalByBridgeInterface``."""
        return cls(("-i", name), ("!", "-i", name), ("iifname", name), ("iifname", "!=", name))

    @classmethod
    def by_interface_name_prefix(cls, prefix: str) -> "LocalTrafficDetector":
        """``NewDetectLocalByInterfaceNamePrefix``: iptables' ``+`` and nftables' ``*`` wildcards."""
        return cls(("-i", prefix + "+"), ("!", "-i", prefix + "+"), ("iifname", prefix + "*"),
                   ("iifname", "!=", prefix + "*"))

    @classmethod
    def for_family(cls, mode: str, version: int, *, cluster_cidrs: Iterable[str] = (),
                   node_pod_cidrs: Iterable[str] = (), bridge_interface: str = "",
                   interface_name_prefix: str = "") -> "LocalTrafficDetector":
        """``GetLocalTrafficDetectors`` for one IP family.

        Parameters
        ----------
        mode : {"ClusterCIDR", "NodeCIDR", "BridgeInterface", "InterfaceNamePrefix", ""}
            ``detectLocalMode``; anything else is the no-op detector.
        version : {4, 6}
        cluster_cidrs : iterable of str
            ``detectLocal.clusterCIDRs`` (the first of the family is used).
        node_pod_cidrs : iterable of str
            The Node's ``spec.podCIDRs`` (the first of the family is used).
        bridge_interface, interface_name_prefix : str

        Returns
        -------
        LocalTrafficDetector

        Examples
        --------
        >>> LocalTrafficDetector.for_family("NodeCIDR", 4, node_pod_cidrs=["10.244.1.0/24"]).if_not_local
        ('!', '-s', '10.244.1.0/24')
        >>> LocalTrafficDetector.for_family("ClusterCIDR", 6, cluster_cidrs=["10.0.0.0/8"]).implemented
        False
        """
        def first_of_family(cidrs: Iterable[str]) -> str | None:
            for c in cidrs:
                net = parse_cidr_sloppy(c) if c and c.strip() else None
                if net is not None and net.version == version:
                    return str(net)
            return None

        if mode in ("ClusterCIDR", "NodeCIDR"):
            cidr = first_of_family(cluster_cidrs if mode == "ClusterCIDR" else node_pod_cidrs)
            return cls.by_cidr(cidr) if cidr else cls.no_op()
        if mode == "BridgeInterface" and bridge_interface:
            return cls.by_bridge_interface(bridge_interface)
        if mode == "InterfaceNamePrefix" and interface_name_prefix:
            return cls.by_interface_name_prefix(interface_name_prefix)
        return cls.no_op()


def node_port_ips(node_ips: Sequence[str], node_port_addresses: Sequence[str] | None) -> list[str] | None:
    """``NodePortAddresses.GetNodeIPs``: the node IPs accepting NodePorts, or None for every local IP (``MatchAll``).

    Parameters
    ----------
    node_ips : sequence of str
        The node's addresses of the proxier's family, primary first.
    node_port_addresses : sequence of str or None
        ``nodePortAddresses``: empty or None means every local address; ``["primary"]``
        the primary node IP; otherwise CIDRs (a ``/0`` among them matches everything).

    Returns
    -------
    list of str or None
        The matching addresses, the loopback one (``127.0.0.1`` or ``::1``, on ``lo``)
        first when a CIDR contains it (the nftables proxier skips it, the iptables one
        keeps it with localhost NodePorts), or None when every local address accepts NodePorts.

    Notes
    -----
    The model knows a node's addresses from its Node object only (``InternalIP``),
    not from its interfaces as upstream's ``GetNodeIPs`` does.

    Examples
    --------
    >>> node_port_ips(["192.168.0.2", "192.168.1.2"], ["primary"]), node_port_ips(["192.168.0.2"], None)
    (['192.168.0.2'], None)
    >>> node_port_ips(["192.168.0.2", "192.168.1.2"], ["192.168.1.0/24", "127.0.0.0/8"])
    ['127.0.0.1', '192.168.1.2']
    """
    if not node_port_addresses:
        return None
    if list(node_port_addresses) == [NODE_PORT_ADDRESSES_PRIMARY]:
        return list(node_ips[:1])
    nets = []
    for cidr in node_port_addresses:
        net = parse_cidr_sloppy(cidr.strip())
        if net is None:
            continue
        if net.prefixlen == 0:
            return None
        nets.append(net)
    out = []
    first = parse_ip_sloppy(node_ips[0]) if node_ips else None
    loopback = "::1" if first is not None and first.version == 6 else "127.0.0.1"
    for ip in (loopback, *node_ips):  # the "lo" interface comes first, as in GetNodeIPs
        addr = parse_ip_sloppy(ip)
        if addr is not None and any(addr in n for n in nets) and str(addr) not in out:
            out.append(str(addr))
    return out
