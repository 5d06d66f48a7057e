"""kube-proxy's IPVS mode: virtual servers, the kube-ipvs0 dummy interface and the ipsets.

In IPVS mode kube-proxy makes every Service address a Linux Virtual Server:
one per cluster IP and port, per external IP, per load-balancer IP, and per
node IP and node port. Each virtual server schedules new connections over
its real servers (the endpoints, masqueraded, weight 1) with the ``rr``
(round robin) scheduler by default; ``sessionAffinity: ClientIP`` makes it
``persistent`` for the affinity timeout. The service addresses are bound to
the ``kube-ipvs0`` dummy interface so the node accepts packets for them, and
a handful of ipsets (``KUBE-CLUSTER-IP``, ``KUBE-NODE-PORT-TCP``...) let a
fixed number of iptables rules do the masquerading and filtering.

:func:`ipvs_virtual_servers` builds the virtual servers; :func:`ipvsadm_ln`
prints them as ``ipvsadm -Ln`` does; :func:`kube_ipvs0_addresses` and
:func:`ipvs_ipsets` give the dummy interface's addresses and the ipsets as data.

Mirrors ``k8s.io/kubernetes/pkg/proxy/ipvs`` (proxier.go, ipset.go).

The configuration's ``ipvs`` section (:func:`kubenotes.proxy.config.proxier_settings`)
reaches these as upstream's ``NewProxier`` uses it: ``scheduler`` (empty: ``rr``;
``mh`` adds the source-hash flag), ``nodePortAddresses`` (which node IPs get node-port
virtual servers), ``excludeCIDRs`` (:func:`clean_legacy_services` leaves virtual servers
there alone), ``masqueradeAll`` and ``detectLocalMode`` (the one cluster-IP masquerade
rule, :func:`cluster_ip_masquerade_rule`); ``strictARP`` and the timeouts are start-up
settings (:func:`kubenotes.proxy.config.conntrack_sysctls`, :func:`kubenotes.proxy.config.ipvs_timeouts`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go (NewProxier, syncProxyRules, syncEndpoint, cleanLegacyService,
writeIptablesRules)
kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/ipset.go
kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier_test.go (TestNodePortIPv4)
ipvsadm 1.31 ipvsadm.c (print_title, print_service_entry), libipvs/libipvs.c (ipvs_cmp_services, ipvs_cmp_dests)
https://kubernetes.io/docs/reference/networking/virtual-ips/#proxy-mode-ipvs
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass, field
from typing import Sequence

from kubenotes.api.validation import parse_cidr_sloppy, parse_ip_sloppy
from kubenotes.proxy.endpoints import EndpointInfo, ProxyState, ServicePortInfo, categorize_endpoints
from kubenotes.proxy.util import LocalTrafficDetector, node_port_ips

__all__ = [
    "DEFAULT_SCHEDULER",
    "DEFAULT_DUMMY_DEVICE",
    "RealServer",
    "VirtualServer",
    "IPSet",
    "ipvs_virtual_servers",
    "ipvsadm_ln",
    "ipvsadm_save",
    "kube_ipvs0_addresses",
    "ipvs_ipsets",
    "IPSET_NAMES",
    "clean_legacy_services",
    "cluster_ip_masquerade_rule",
]

#: ``defaultScheduler``: round robin.
DEFAULT_SCHEDULER = "rr"
#: ``defaultDummyDevice``: the interface the service addresses are bound to.
DEFAULT_DUMMY_DEVICE = "kube-ipvs0"
#: ``ipvsadm -Ln``'s first line (the kernel's IPVS version and connection table size).
IPVSADM_HEADER = ("IP Virtual Server version 1.2.1 (size=4096)\n"
                  "Prot LocalAddress:Port Scheduler Flags\n"
                  "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n")

# ipset names, types and comments (ipset.go)
KUBE_LOOP_BACK = "KUBE-LOOP-BACK"
KUBE_CLUSTER_IP = "KUBE-CLUSTER-IP"
KUBE_EXTERNAL_IP = "KUBE-EXTERNAL-IP"
KUBE_EXTERNAL_IP_LOCAL = "KUBE-EXTERNAL-IP-LOCAL"
KUBE_LOAD_BALANCER = "KUBE-LOAD-BALANCER"
KUBE_LOAD_BALANCER_LOCAL = "KUBE-LOAD-BALANCER-LOCAL"
KUBE_LOAD_BALANCER_FW = "KUBE-LOAD-BALANCER-FW"
KUBE_LOAD_BALANCER_SOURCE_IP = "KUBE-LOAD-BALANCER-SOURCE-IP"
KUBE_LOAD_BALANCER_SOURCE_CIDR = "KUBE-LOAD-BALANCER-SOURCE-CIDR"
KUBE_NODE_PORT_TCP = "KUBE-NODE-PORT-TCP"
KUBE_NODE_PORT_LOCAL_TCP = "KUBE-NODE-PORT-LOCAL-TCP"
KUBE_NODE_PORT_UDP = "KUBE-NODE-PORT-UDP"
KUBE_NODE_PORT_LOCAL_UDP = "KUBE-NODE-PORT-LOCAL-UDP"
KUBE_NODE_PORT_SCTP = "KUBE-NODE-PORT-SCTP-HASH"
KUBE_NODE_PORT_LOCAL_SCTP = "KUBE-NODE-PORT-LOCAL-SCTP-HASH"
KUBE_HEALTH_CHECK_NODE_PORT = "KUBE-HEALTH-CHECK-NODE-PORT"
KUBE_IPVS_IPS = "KUBE-IPVS-IPS"

_IPSETS: list[tuple[str, str, str]] = [
    (KUBE_LOOP_BACK, "hash:ip,port,ip", "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose"),
    (KUBE_CLUSTER_IP, "hash:ip,port", "Kubernetes service cluster ip + port for masquerade purpose"),
    (KUBE_EXTERNAL_IP, "hash:ip,port", "Kubernetes service external ip + port for masquerade and filter purpose"),
    (KUBE_EXTERNAL_IP_LOCAL, "hash:ip,port",
     "Kubernetes service external ip + port with externalTrafficPolicy=local"),
    (KUBE_LOAD_BALANCER, "hash:ip,port", "Kubernetes service lb portal"),
    (KUBE_LOAD_BALANCER_LOCAL, "hash:ip,port",
     "Kubernetes service load balancer ip + port with externalTrafficPolicy=local"),
    (KUBE_LOAD_BALANCER_FW, "hash:ip,port",
     "Kubernetes service load balancer ip + port for load balancer with sourceRange"),
    (KUBE_LOAD_BALANCER_SOURCE_IP, "hash:ip,port,ip",
     "Kubernetes service load balancer ip + port + source IP for packet filter purpose"),
    (KUBE_LOAD_BALANCER_SOURCE_CIDR, "hash:ip,port,net",
     "Kubernetes service load balancer ip + port + source cidr for packet filter purpose"),
    (KUBE_NODE_PORT_TCP, "bitmap:port", "Kubernetes nodeport TCP port for masquerade purpose"),
    (KUBE_NODE_PORT_LOCAL_TCP, "bitmap:port", "Kubernetes nodeport TCP port with externalTrafficPolicy=local"),
    (KUBE_NODE_PORT_UDP, "bitmap:port", "Kubernetes nodeport UDP port for masquerade purpose"),
    (KUBE_NODE_PORT_LOCAL_UDP, "bitmap:port", "Kubernetes nodeport UDP port with externalTrafficPolicy=local"),
    (KUBE_NODE_PORT_SCTP, "hash:ip,port",
     "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'"),
    (KUBE_NODE_PORT_LOCAL_SCTP, "hash:ip,port",
     "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'"),
    (KUBE_HEALTH_CHECK_NODE_PORT, "bitmap:port", "Kubernetes health check node port"),
    (KUBE_IPVS_IPS, "hash:ip", "Addresses on the ipvs interface"),
]
#: Every ipset the IPVS proxier creates, in upstream's order.
IPSET_NAMES = tuple(n for n, _, _ in _IPSETS)

_PROTO_NUMBER = {"TCP": 6, "UDP": 17, "SCTP": 132}


@dataclass(frozen=True)
class RealServer:
    """``utilipvs.RealServer``: one destination of a virtual server.

    Attributes
    ----------
    address : str
    port : int
    weight : int
        1 for every endpoint kube-proxy adds.
    forward : str
        ``Masq`` (NAT), as ``ipvsadm`` names the masquerading forward method.

    Examples
    --------
    >>> str(RealServer("fd00::1", 80)), RealServer("10.244.0.5", 80).forward
    ('[fd00::1]:80', 'Masq')
    """

    address: str
    port: int
    weight: int = 1
    forward: str = "Masq"

    def __str__(self) -> str:
        return _join_host_port(self.address, self.port)


@dataclass
class VirtualServer:
    """``utilipvs.VirtualServer`` with its real servers.

    Attributes
    ----------
    address : str
    port : int
    protocol : str
        ``TCP``, ``UDP`` or ``SCTP``.
    scheduler : str
    persistent_timeout_seconds : int or None
        Set (``FlagPersistent``) for ClientIP session affinity.
    real_servers : list of RealServer
    service : str
        The ``namespace/name:port`` this virtual server belongs to.
    kind : str
        ``ClusterIP``, ``ExternalIP``, ``LoadBalancer`` or ``NodePort``.
    source_hash : bool
        ``FlagSourceHash`` (``IP_VS_SVC_F_SCHED2``, ``mh-port``): set on every virtual
        server when the scheduler is ``mh`` (Maglev hashing over source address and port).

    Examples
    --------
    >>> str(VirtualServer("10.96.0.10", 53, "UDP"))
    '10.96.0.10:53/UDP'
    """

    address: str
    port: int
    protocol: str
    scheduler: str = DEFAULT_SCHEDULER
    persistent_timeout_seconds: int | None = None
    real_servers: list[RealServer] = field(default_factory=list)
    service: str = ""
    kind: str = ""
    source_hash: bool = False

    def __str__(self) -> str:
        return f"{_join_host_port(self.address, self.port)}/{self.protocol}"


@dataclass
class IPSet:
    """One ipset: its type, comment and entries (``utilipset.Entry.String()`` forms, sorted).

    Examples
    --------
    >>> IPSet("KUBE-NODE-PORT-TCP", "bitmap:port", "Kubernetes nodeport TCP port for masquerade purpose").entries
    []
    """

    name: str
    set_type: str
    comment: str
    entries: list[str] = field(default_factory=list)


def _join_host_port(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _node_ips(state: ProxyState, nodeport_addresses: Sequence[str] | None) -> list[str]:
    """The node IPs with node-port virtual servers: every node address (``MatchAll``), else
    ``GetNodeIPs`` (``primary`` or CIDRs) without loopback ones, as ``syncProxyRules`` picks them."""
    matched = node_port_ips(list(state.node_ips), list(nodeport_addresses or ()))
    if matched is None:
        return list(state.node_ips)
    return [ip for ip in matched if not ipaddress.ip_address(ip).is_loopback]


def _endpoints_for(state: ProxyState, info: ServicePortInfo, only_node_local: bool) -> list[EndpointInfo]:
    """``syncEndpoint``'s choice: local endpoints when only local ones may be used and exist, else cluster ones."""
    eps = state.endpoints.get(info.name, ())
    cluster, local, _, _ = categorize_endpoints(eps, info, state.node_name, zone=state.node_zone)
    if only_node_local and local:
        return list(local)
    return list(cluster or [])


def ipvs_virtual_servers(state: ProxyState, *, scheduler: str = DEFAULT_SCHEDULER,
                         nodeport_addresses: Sequence[str] | None = None) -> list[VirtualServer]:
    """The IPVS virtual servers kube-proxy creates on the node, with their real servers.

    Parameters
    ----------
    state : ProxyState
    scheduler : str
        ``ipvs.scheduler`` (``rr`` by default, also when empty; ``wrr``, ``lc``, ``sh``, ``mh``...;
        ``mh`` also sets :attr:`VirtualServer.source_hash`).
    nodeport_addresses : sequence of str, optional
        ``nodePortAddresses``: unset or empty means every node IP; ``["primary"]`` the
        node's primary IP; CIDRs the node IPs inside them (loopback addresses left out).

    Returns
    -------
    list of VirtualServer
        In the order the proxier creates them (per service port: cluster IP,
        external IPs, load-balancer IPs, node ports).

    Notes
    -----
    The cluster-IP virtual server uses local endpoints when
    ``internalTrafficPolicy: Local``; the external, load-balancer and node-port
    ones when ``externalTrafficPolicy: Local``; with no local endpoint they fall
    back to the cluster endpoints (upstream PR 97081). A Service without
    endpoints keeps its virtual servers with no real servers. The node's
    addresses are its ``InternalIP`` addresses (upstream reads every local
    address except kube-ipvs0's). Graceful deletion (weight 0 while
    connections drain) is not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ProxyState, ServicePortName, ServicePortInfo, EndpointInfo
    >>> spn = ServicePortName("ns1", "svc1", "p80")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("10.20.30.41",), 3001, 80, None, (), (), (), False, False, 0, "NodePort")
    >>> st = ProxyState("n1", ("100.101.102.103",), None, None, {spn: info},
    ...                 {spn: (EndpointInfo("10.180.0.1", 80, True, True, False, False),)})
    >>> [(str(v), [str(r) for r in v.real_servers]) for v in ipvs_virtual_servers(st)]
    [('10.20.30.41:80/TCP', ['10.180.0.1:80']), ('100.101.102.103:3001/TCP', ['10.180.0.1:80'])]
    """
    out: list[VirtualServer] = []
    node_ips = _node_ips(state, nodeport_addresses)
    scheduler = scheduler or DEFAULT_SCHEDULER  # "IPVS scheduler not specified, use rr by default"

    def vs(address: str, port: int, info: ServicePortInfo, kind: str, only_local: bool) -> None:
        v = VirtualServer(address, port, info.protocol, scheduler, info.session_affinity_timeout_seconds,
                          service=str(info.name), kind=kind, source_hash=scheduler == "mh")
        v.real_servers = [RealServer(e.ip, e.port) for e in _endpoints_for(state, info, only_local)]
        out.append(v)

    for info in state.services.values():
        vs(info.cluster_ip, info.port, info, "ClusterIP", info.internal_policy_local)
        for ip in info.external_ips:
            vs(ip, info.port, info, "ExternalIP", info.external_policy_local)
        for ip in info.load_balancer_ips:
            vs(ip, info.port, info, "LoadBalancer", info.external_policy_local)
        if info.node_port:
            for ip in node_ips:
                vs(ip, info.node_port, info, "NodePort", info.external_policy_local)
    return out


def _u32_diff(a: int, b: int) -> int:
    """``(int)(a - b)`` on unsigned 32-bit values, as libipvs's comparators compute it."""
    d = (a - b) & 0xFFFFFFFF
    return d - (1 << 32) if d & 0x80000000 else d


def _cmp_addr(a: str, b: str) -> int:
    pa, pb = ipaddress.ip_address(a).packed, ipaddress.ip_address(b).packed
    for i in range(0, len(pa), 4):
        r = _u32_diff(int.from_bytes(pa[i:i + 4], "big"), int.from_bytes(pb[i:i + 4], "big"))
        if r:
            return r
    return 0


def _cmp_services(s1: VirtualServer, s2: VirtualServer) -> int:
    """``ipvs_cmp_services``: address family, protocol number, address, port."""
    af1, af2 = (10 if ":" in s1.address else 2), (10 if ":" in s2.address else 2)
    r = af1 - af2 or _PROTO_NUMBER.get(s1.protocol, 0) - _PROTO_NUMBER.get(s2.protocol, 0)
    return r or _cmp_addr(s1.address, s2.address) or s1.port - s2.port


def _cmp_dests(d1: RealServer, d2: RealServer) -> int:
    """``ipvs_cmp_dests``: address, then port."""
    return _cmp_addr(d1.address, d2.address) or d1.port - d2.port


def ipvsadm_ln(state: ProxyState, **kwargs) -> str:
    """What ``ipvsadm -Ln`` prints on the node.

    Parameters
    ----------
    state : ProxyState
    **kwargs
        As :func:`ipvs_virtual_servers` (``scheduler``, ``nodeport_addresses``).

    Returns
    -------
    str
        The header, then each virtual server (``TCP  10.96.0.10:53 rr``, with
        ``persistent 10800`` under ClientIP affinity) followed by its real
        servers (``  -> 10.244.1.5:53                Masq    1      0          0``),
        sorted as ipvsadm sorts them.

    Notes
    -----
    ipvsadm sorts services and destinations with libipvs's comparators, which
    subtract unsigned 32-bit addresses into a signed int; the model does the
    same, so 192.168.x.x node-port entries list before 10.96.x.x cluster IPs,
    as on a real node. Connection counters are 0 (no traffic is simulated).

    References
    ----------
    ipvsadm 1.31 ipvsadm.c print_service_entry; libipvs/libipvs.c ipvs_cmp_services

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ProxyState, ServicePortName, ServicePortInfo, EndpointInfo
    >>> spn = ServicePortName("kube-system", "kube-dns", "dns-tcp")
    >>> info = ServicePortInfo(spn, "TCP", 53, ("10.96.0.10",), 0, 53, 10800, (), (), (), False, False, 0,
    ...                        "ClusterIP")
    >>> st = ProxyState("n1", ("192.168.0.2",), None, None, {spn: info},
    ...                 {spn: (EndpointInfo("10.244.0.2", 53, True, True, False, True),)})
    >>> print(ipvsadm_ln(st), end="")
    IP Virtual Server version 1.2.1 (size=4096)
    Prot LocalAddress:Port Scheduler Flags
      -> RemoteAddress:Port           Forward Weight ActiveConn InActConn
    TCP  10.96.0.10:53 rr persistent 10800
      -> 10.244.0.2:53                Masq    1      0          0         
    """
    lines = [IPVSADM_HEADER]
    servers = sorted(ipvs_virtual_servers(state, **kwargs), key=functools.cmp_to_key(_cmp_services))
    for v in servers:
        line = f"{v.protocol}  {_join_host_port(v.address, v.port)} {v.scheduler}"
        if v.persistent_timeout_seconds is not None:
            line += f" persistent {v.persistent_timeout_seconds}"
        lines.append(line + "\n")
        for r in sorted(v.real_servers, key=functools.cmp_to_key(_cmp_dests)):
            lines.append(f"  -> {str(r):<28} {r.forward:<7} {r.weight:<6} {0:<10} {0:<10}\n")
    return "".join(lines)


_PROTO_SWITCH = {"TCP": "-t", "UDP": "-u", "SCTP": "--sctp-service"}


def ipvsadm_save(state: ProxyState, **kwargs) -> str:
    """The same virtual servers as ``ipvsadm -Sn`` saves them (input for ``ipvsadm -R``).

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ProxyState, ServicePortName, ServicePortInfo, EndpointInfo
    >>> spn = ServicePortName("default", "kubernetes", "https")
    >>> info = ServicePortInfo(spn, "TCP", 443, ("10.96.0.1",), 0, 6443, None, (), (), (), False, False, 0,
    ...                        "ClusterIP")
    >>> st = ProxyState("n1", ("192.168.0.2",), None, None, {spn: info},
    ...                 {spn: (EndpointInfo("192.168.0.2", 6443, True, True, False, True),)})
    >>> print(ipvsadm_save(st), end="")
    -A -t 10.96.0.1:443 -s rr
    -a -t 10.96.0.1:443 -r 192.168.0.2:6443 -m -w 1
    """
    lines = []
    for v in sorted(ipvs_virtual_servers(state, **kwargs), key=functools.cmp_to_key(_cmp_services)):
        svc = f"{_PROTO_SWITCH[v.protocol]} {_join_host_port(v.address, v.port)}"
        line = f"-A {svc} -s {v.scheduler}"
        if v.persistent_timeout_seconds is not None:
            line += f" -p {v.persistent_timeout_seconds}"
        lines.append(line)
        for r in sorted(v.real_servers, key=functools.cmp_to_key(_cmp_dests)):
            lines.append(f"-a {svc} -r {r} -m -w {r.weight}")
    return "".join(line + "\n" for line in lines)


def kube_ipvs0_addresses(state: ProxyState) -> list[str]:
    """The addresses kube-proxy binds to the ``kube-ipvs0`` dummy interface (``activeBindAddrs``).

    Every cluster IP, and every external and load-balancer IP that is not
    already a node address, in the order the proxier binds them.

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ProxyState, ServicePortName, ServicePortInfo
    >>> spn = ServicePortName("ns1", "svc1", "p80")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("10.20.30.41",), 0, 80, None, ("192.168.0.2", "1.1.1.1"), (), (),
    ...                        False, False, 0, "ClusterIP")
    >>> kube_ipvs0_addresses(ProxyState("n1", ("192.168.0.2",), None, None, {spn: info}, {spn: ()}))
    ['10.20.30.41', '1.1.1.1']
    """
    out: list[str] = []
    for info in state.services.values():
        for ip in (info.cluster_ip,) + tuple(i for i in info.external_ips + info.load_balancer_ips
                                             if i not in state.node_ips):
            if ip not in out:
                out.append(ip)
    return out


def _entry(ip: str, proto: str, port: int) -> str:
    return f"{ip},{proto}:{port}"


def ipvs_ipsets(state: ProxyState, *, nodeport_addresses: Sequence[str] | None = None) -> dict[str, IPSet]:
    """The ipsets the IPVS proxier fills, keyed by name (IPv6 sets are named ``KUBE-6-...``).

    Parameters
    ----------
    state : ProxyState
    nodeport_addresses : sequence of str, optional
        As :func:`ipvs_virtual_servers` (SCTP node-port entries carry the node IP).

    Returns
    -------
    dict[str, IPSet]
        Every set of :data:`IPSET_NAMES`, entries sorted, e.g.
        ``KUBE-CLUSTER-IP``: ``['10.96.0.1,tcp:443']``,
        ``KUBE-NODE-PORT-TCP``: ``['30080']``,
        ``KUBE-LOOP-BACK``: ``['10.244.1.5,tcp:80,10.244.1.5']`` (local endpoints, for hairpin traffic).

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ProxyState, ServicePortName, ServicePortInfo, EndpointInfo
    >>> spn = ServicePortName("ns1", "svc1", "p80")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("10.20.30.41",), 3001, 80, None, (), (), (), False, False, 0,
    ...                        "NodePort")
    >>> sets = ipvs_ipsets(ProxyState("n1", ("100.101.102.103",), None, None, {spn: info},
    ...                    {spn: (EndpointInfo("10.180.0.1", 80, True, True, False, True),)}))
    >>> sets["KUBE-CLUSTER-IP"].entries, sets["KUBE-NODE-PORT-TCP"].entries, sets["KUBE-LOOP-BACK"].entries
    (['10.20.30.41,tcp:80'], ['3001'], ['10.180.0.1,tcp:80,10.180.0.1'])
    """
    v6 = bool(state.node_ips) and ":" in state.node_ips[0]
    sets = {n: set() for n in IPSET_NAMES}
    node_ips = _node_ips(state, nodeport_addresses)
    for info in state.services.values():
        proto = info.protocol.lower()
        for e in state.endpoints.get(info.name, ()):
            if e.is_local:
                sets[KUBE_LOOP_BACK].add(f"{e.ip},{proto}:{e.port},{e.ip}")
        sets[KUBE_CLUSTER_IP].add(_entry(info.cluster_ip, proto, info.port))
        for ip in info.external_ips:
            sets[KUBE_EXTERNAL_IP_LOCAL if info.external_policy_local else KUBE_EXTERNAL_IP].add(
                _entry(ip, proto, info.port))
        for ip in info.load_balancer_ips:
            entry = _entry(ip, proto, info.port)
            sets[KUBE_LOAD_BALANCER].add(entry)
            if info.external_policy_local:
                sets[KUBE_LOAD_BALANCER_LOCAL].add(entry)
            if info.load_balancer_source_ranges:
                sets[KUBE_LOAD_BALANCER_FW].add(entry)
                allow_from_node = False
                for cidr in info.load_balancer_source_ranges:
                    sets[KUBE_LOAD_BALANCER_SOURCE_CIDR].add(f"{entry},{cidr}")
                    node_ip = state.node_ips[0] if state.node_ips else None
                    if node_ip and ipaddress.ip_address(node_ip) in ipaddress.ip_network(cidr, strict=False):
                        allow_from_node = True
                if allow_from_node:
                    sets[KUBE_LOAD_BALANCER_SOURCE_IP].add(f"{entry},{ip}")
        if info.node_port and node_ips:
            if proto == "sctp":
                entries = [_entry(ip, proto, info.node_port) for ip in node_ips]
                all_set, local_set = KUBE_NODE_PORT_SCTP, KUBE_NODE_PORT_LOCAL_SCTP
            else:
                entries = [str(info.node_port)]
                all_set = KUBE_NODE_PORT_TCP if proto == "tcp" else KUBE_NODE_PORT_UDP
                local_set = KUBE_NODE_PORT_LOCAL_TCP if proto == "tcp" else KUBE_NODE_PORT_LOCAL_UDP
            sets[all_set].update(entries)
            if info.external_policy_local:
                sets[local_set].update(entries)
        if info.health_check_node_port:
            sets[KUBE_HEALTH_CHECK_NODE_PORT].add(str(info.health_check_node_port))
    sets[KUBE_IPVS_IPS].update(kube_ipvs0_addresses(state))
    out = {}
    for name, set_type, comment in _IPSETS:
        shown = name.replace("KUBE-", "KUBE-6-", 1)[:31] if v6 else name
        out[shown] = IPSet(shown, set_type, comment, sorted(sets[name]))
    return out


def clean_legacy_services(current: Sequence[VirtualServer], active: Sequence[VirtualServer], *,
                          exclude_cidrs: Sequence[str] = (), version: int = 4) -> list[VirtualServer]:
    """``cleanLegacyService``: the virtual servers on the node that kube-proxy deletes after a sync.

    Every one of the proxier's family that this sync did not create, except those whose
    address lies in ``ipvs.excludeCIDRs`` (virtual servers another tool, such as a
    load balancer's agent, keeps on the node).

    Parameters
    ----------
    current : sequence of VirtualServer
        What ``ipvs.GetVirtualServers`` lists (kube-proxy's and anyone else's).
    active : sequence of VirtualServer
        What this sync created (:func:`ipvs_virtual_servers`).
    exclude_cidrs : sequence of str
        ``ipvs.excludeCIDRs`` (of the proxier's family: ``filterCIDRs``).
    version : {4, 6}
        The proxier's family.

    Returns
    -------
    list of VirtualServer
        In ``current``'s order.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go (cleanLegacyService, isIPInExcludeCIDRs, filterCIDRs)

    Examples
    --------
    >>> lb, old = VirtualServer("10.0.0.5", 80, "TCP"), VirtualServer("10.96.0.99", 80, "TCP")
    >>> [str(v) for v in clean_legacy_services([lb, old], [], exclude_cidrs=["10.0.0.0/24"])]
    ['10.96.0.99:80/TCP']
    """
    nets = [n for n in (parse_cidr_sloppy(c) for c in exclude_cidrs) if n is not None and n.version == version]
    keep = {str(v) for v in active}
    out = []
    for v in current:
        ip = parse_ip_sloppy(v.address)
        if ip is None or ip.version != version or any(ip in n for n in nets):
            continue
        if str(v) not in keep:
            out.append(v)
    return out


def cluster_ip_masquerade_rule(state: ProxyState, *, masquerade_all: bool = False,
                               local_detector: LocalTrafficDetector | None = None) -> str | None:
    """The ``KUBE-SERVICES`` rule that marks cluster-IP traffic for masquerading in IPVS mode.

    ``writeIptablesRules`` writes it when the ``KUBE-CLUSTER-IP`` set has entries: with
    ``masqueradeAll``, every packet to a cluster IP and port (``dst,dst``); else, with a
    local-traffic detector (``detectLocalMode``), the ones not from a local pod; else
    (no detector: no ``clusterCIDR``) those whose source is a cluster IP and port
    (``src,dst``: node-originated traffic picking a kube-ipvs0 address as source).

    Parameters
    ----------
    state : ProxyState
    masquerade_all : bool
        ``masqueradeAll`` (``iptables.masqueradeAll`` in ipvs mode).
    local_detector : LocalTrafficDetector, optional
        From :func:`kubenotes.proxy.config.proxier_settings`; None: no detector.

    Returns
    -------
    str or None
        The rule in ``iptables-save`` form; None when the node has no cluster IP.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go (writeIptablesRules), ipset.go (getComment)

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ServicePortName, ServicePortInfo
    >>> spn = ServicePortName("ns1", "svc1", "p80")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("10.20.30.41",), 0, 80, None, (), (), (), False, False, 0, "ClusterIP")
    >>> st = ProxyState("n1", ("192.168.0.2",), None, None, {spn: info}, {spn: ()})
    >>> print(cluster_ip_masquerade_rule(st, local_detector=LocalTrafficDetector.by_cidr("10.244.0.0/16")))
    -A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
    """
    sets = ipvs_ipsets(state)
    name, cluster = next((n, s) for n, s in sets.items() if n.endswith("CLUSTER-IP"))
    if not cluster.entries:
        return None
    head = f'-A KUBE-SERVICES -m comment --comment "{cluster.comment}" -m set --match-set {name}'
    if masquerade_all:
        return f"{head} dst,dst -j KUBE-MARK-MASQ"
    if local_detector is not None and local_detector.implemented:
        return f"{head} dst,dst {' '.join(local_detector.if_not_local)} -j KUBE-MARK-MASQ"
    return f"{head} src,dst -j KUBE-MARK-MASQ"
