"""kube-proxy's iptables mode: the ``filter`` and ``nat`` rules ``syncProxyRules`` writes.

:func:`iptables_save` renders, from a :class:`~kubenotes.proxy.endpoints.ProxyState`,
the text kube-proxy v1.34 hands to ``iptables-restore`` on a full sync, in
``iptables-save`` format: the ``filter`` table (KUBE-SERVICES,
KUBE-EXTERNAL-SERVICES, KUBE-FORWARD, KUBE-NODEPORTS, KUBE-PROXY-FIREWALL and
kubelet's KUBE-FIREWALL copy) and the ``nat`` table (KUBE-SERVICES,
KUBE-NODEPORTS, KUBE-POSTROUTING, KUBE-MARK-MASQ and, per Service port,
KUBE-SVC-*, KUBE-SVL-*, KUBE-EXT-*, KUBE-FW-* and one KUBE-SEP-* per endpoint).
Chain names are hashed as upstream hashes them (SHA-256, base32, 16
characters); comments, ``-m statistic --probability`` values (endpoint ``i``
of ``n`` gets ``1/(n-i)`` printed with ``%0.10f``), ClientIP affinity
(``-m recent``), traffic policies, the REJECT/DROP rules for Services without
(local) endpoints and the masquerade mark follow ``syncProxyRules`` rule by
rule.

Upstream iterates Services in Go map order, so its output order varies from
sync to sync; its tests compare after ``sortIPTablesRules``. This module emits
that sorted order directly: tables ``filter`` then ``nat``; per table
KUBE-NODEPORTS, KUBE-SERVICES, then the other KUBE-* chains alphabetically;
the rules of KUBE-SERVICES and KUBE-NODEPORTS ordered by the service name in
their comment (the "must be the last rule" jump stays last).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (syncProxyRules, writeServiceToEndpointRules)
kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier_test.go (sortIPTablesRules, TestOverallIPTablesRules)
kubernetes/kubernetes@v1.34.0 pkg/proxy/topology.go (CategorizeEndpoints)
kubernetes/kubernetes@v1.34.0 pkg/proxy/util/localdetector.go (DetectLocalByCIDR)
https://kubernetes.io/docs/reference/networking/virtual-ips/
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from kubenotes.proxy.endpoints import categorize_endpoints
from kubenotes.proxy.util import LocalTrafficDetector, node_port_ips, normalize_ip, parse_cidr_sloppy

__all__ = [
    "KUBE_SERVICES_CHAIN",
    "KUBE_EXTERNAL_SERVICES_CHAIN",
    "KUBE_NODE_PORTS_CHAIN",
    "KUBE_POSTROUTING_CHAIN",
    "KUBE_MARK_MASQ_CHAIN",
    "KUBE_FORWARD_CHAIN",
    "KUBE_PROXY_FIREWALL_CHAIN",
    "KUBE_PROXY_CANARY_CHAIN",
    "KUBELET_FIREWALL_CHAIN",
    "LARGE_CLUSTER_ENDPOINTS_THRESHOLD",
    "IPTABLES_CT_STATE_INVALID_DROPPED_NFACCT_COUNTER",
    "LOCALHOST_NODE_PORT_ACCEPTED_NFACCT_COUNTER",
    "IPTABLES_JUMP_CHAINS",
    "IPTABLES_KUBELET_JUMP_CHAINS",
    "port_proto_hash",
    "service_port_policy_cluster_chain",
    "service_port_policy_local_chain_name",
    "service_firewall_chain_name",
    "service_external_chain_name",
    "service_port_endpoint_chain_name",
    "service_nat_chains",
    "compute_probability",
    "iptables_save",
    "SERVICE_CHAIN_RE",
    "ENDPOINT_CHAIN_RE",
    "Rule",
    "parse_rule",
]

KUBE_SERVICES_CHAIN = "KUBE-SERVICES"
KUBE_EXTERNAL_SERVICES_CHAIN = "KUBE-EXTERNAL-SERVICES"
KUBE_NODE_PORTS_CHAIN = "KUBE-NODEPORTS"
KUBE_POSTROUTING_CHAIN = "KUBE-POSTROUTING"
KUBE_MARK_MASQ_CHAIN = "KUBE-MARK-MASQ"
KUBE_FORWARD_CHAIN = "KUBE-FORWARD"
KUBE_PROXY_FIREWALL_CHAIN = "KUBE-PROXY-FIREWALL"
#: Created empty in mangle, nat and filter by ``iptables.Monitor``; its disappearance triggers a full resync.
KUBE_PROXY_CANARY_CHAIN = "KUBE-PROXY-CANARY"
#: kube-proxy's copy of kubelet's chain holding the anti-martian-packet rule.
KUBELET_FIREWALL_CHAIN = "KUBE-FIREWALL"
#: Above this many endpoints in total, per-endpoint comments are dropped ("large cluster mode").
LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000

SERVICE_PORT_POLICY_CLUSTER_CHAIN_NAME_PREFIX = "KUBE-SVC-"
SERVICE_PORT_POLICY_LOCAL_CHAIN_NAME_PREFIX = "KUBE-SVL-"
SERVICE_FIREWALL_CHAIN_NAME_PREFIX = "KUBE-FW-"
SERVICE_EXTERNAL_CHAIN_NAME_PREFIX = "KUBE-EXT-"
SERVICE_PORT_ENDPOINT_CHAIN_NAME_PREFIX = "KUBE-SEP-"

#: pkg/proxy/metrics: nfacct counters kube-proxy's rules feed.
IPTABLES_CT_STATE_INVALID_DROPPED_NFACCT_COUNTER = "ct_state_invalid_dropped_pkts"
LOCALHOST_NODE_PORT_ACCEPTED_NFACCT_COUNTER = "localhost_nps_accepted_pkts"

# Rule comments, copied from proxier.go.
_COMMENT_SERVICE_PORTALS = "kubernetes service portals"
_COMMENT_EXTERNAL_PORTALS = "kubernetes externally-visible service portals"
_COMMENT_HEALTH_CHECK_PORTS = "kubernetes health check service ports"
_COMMENT_FORWARDING_RULES = "kubernetes forwarding rules"
_COMMENT_LB_FIREWALL = "kubernetes load balancer firewall"
_COMMENT_POSTROUTING_RULES = "kubernetes postrouting rules"
_COMMENT_SNAT = '"kubernetes service traffic requiring SNAT"'
_COMMENT_LOCALNET = '"block incoming localnet connections"'
_COMMENT_NODEPORTS_LAST = '"kubernetes service nodeports; NOTE: this must be the last rule in this chain"'
_COMMENT_FORWARDING = '"kubernetes forwarding rules"'
_COMMENT_FORWARDING_CONNTRACK = '"kubernetes forwarding conntrack rule"'

#: ``iptablesJumpChains``: (table, destination chain, source chain, comment, extra args), installed with
#: ``EnsureRule(Prepend, ...)`` outside iptables-restore, so each later entry lands above the earlier ones.
IPTABLES_JUMP_CHAINS: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    ("filter", KUBE_EXTERNAL_SERVICES_CHAIN, "INPUT", _COMMENT_EXTERNAL_PORTALS, ("-m", "conntrack", "--ctstate", "NEW")),
    ("filter", KUBE_EXTERNAL_SERVICES_CHAIN, "FORWARD", _COMMENT_EXTERNAL_PORTALS, ("-m", "conntrack", "--ctstate", "NEW")),
    ("filter", KUBE_NODE_PORTS_CHAIN, "INPUT", _COMMENT_HEALTH_CHECK_PORTS, ()),
    ("filter", KUBE_SERVICES_CHAIN, "FORWARD", _COMMENT_SERVICE_PORTALS, ("-m", "conntrack", "--ctstate", "NEW")),
    ("filter", KUBE_SERVICES_CHAIN, "OUTPUT", _COMMENT_SERVICE_PORTALS, ("-m", "conntrack", "--ctstate", "NEW")),
    ("filter", KUBE_FORWARD_CHAIN, "FORWARD", _COMMENT_FORWARDING_RULES, ()),
    ("filter", KUBE_PROXY_FIREWALL_CHAIN, "INPUT", _COMMENT_LB_FIREWALL, ("-m", "conntrack", "--ctstate", "NEW")),
    ("filter", KUBE_PROXY_FIREWALL_CHAIN, "OUTPUT", _COMMENT_LB_FIREWALL, ("-m", "conntrack", "--ctstate", "NEW")),
    ("filter", KUBE_PROXY_FIREWALL_CHAIN, "FORWARD", _COMMENT_LB_FIREWALL, ("-m", "conntrack", "--ctstate", "NEW")),
    ("nat", KUBE_SERVICES_CHAIN, "OUTPUT", _COMMENT_SERVICE_PORTALS, ()),
    ("nat", KUBE_SERVICES_CHAIN, "PREROUTING", _COMMENT_SERVICE_PORTALS, ()),
    ("nat", KUBE_POSTROUTING_CHAIN, "POSTROUTING", _COMMENT_POSTROUTING_RULES, ()),
)
#: ``iptablesKubeletJumpChains``: duplicates of the jumps kubelet used to install.
IPTABLES_KUBELET_JUMP_CHAINS: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    ("filter", KUBELET_FIREWALL_CHAIN, "INPUT", "", ()),
    ("filter", KUBELET_FIREWALL_CHAIN, "OUTPUT", "", ()),
)

_BUILTIN_CHAINS = {
    "filter": ("INPUT", "FORWARD", "OUTPUT"),
    "mangle": ("PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"),
    "nat": ("PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"),
}


# ---------------------------------------------------------------------------
# chain names


def port_proto_hash(service_port_name: str, protocol: str) -> str:
    """``portProtoHash``: the 16-character base32 SHA-256 prefix shared by a port's chains.

    Parameters
    ----------
    service_port_name : str
        ``ServicePortName.String()``, e.g. ``"ns1/svc1:p80"`` (``"ns1/svc1"`` for an unnamed port).
    protocol : str
        Lower-case protocol, ``"tcp"``, ``"udp"`` or ``"sctp"``.

    Returns
    -------
    str

    Examples
    --------
    >>> port_proto_hash("ns1/svc1:p80", "tcp")
    'XPGD46QRK7WJZT7O'
    """
    digest = hashlib.sha256((service_port_name + protocol).encode()).digest()
    return base64.b32encode(digest).decode()[:16]


def service_port_policy_cluster_chain(service_port_name: str, protocol: str) -> str:
    """``servicePortPolicyClusterChain``: the KUBE-SVC-* chain (Cluster traffic policy endpoints).

    Examples
    --------
    >>> service_port_policy_cluster_chain("ns2/svc2:p80", "tcp")
    'KUBE-SVC-GNZBNJ2PO5MGZ6GT'
    """
    return SERVICE_PORT_POLICY_CLUSTER_CHAIN_NAME_PREFIX + port_proto_hash(service_port_name, protocol)


def service_port_policy_local_chain_name(service_port_name: str, protocol: str) -> str:
    """``servicePortPolicyLocalChainName``: the KUBE-SVL-* chain (Local traffic policy endpoints)."""
    return SERVICE_PORT_POLICY_LOCAL_CHAIN_NAME_PREFIX + port_proto_hash(service_port_name, protocol)


def service_firewall_chain_name(service_port_name: str, protocol: str) -> str:
    """``serviceFirewallChainName``: the KUBE-FW-* chain (loadBalancerSourceRanges)."""
    return SERVICE_FIREWALL_CHAIN_NAME_PREFIX + port_proto_hash(service_port_name, protocol)


def service_external_chain_name(service_port_name: str, protocol: str) -> str:
    """``serviceExternalChainName``: the KUBE-EXT-* chain (NodePort, external IP, load-balancer traffic)."""
    return SERVICE_EXTERNAL_CHAIN_NAME_PREFIX + port_proto_hash(service_port_name, protocol)


def service_port_endpoint_chain_name(service_port_name: str, protocol: str, endpoint: str) -> str:
    """``servicePortEndpointChainName``: the KUBE-SEP-* chain of one endpoint.

    Parameters
    ----------
    service_port_name, protocol : str
        As for :func:`port_proto_hash`.
    endpoint : str
        ``"ip:port"`` (``"[ip6]:port"`` for IPv6).

    Examples
    --------
    >>> service_port_endpoint_chain_name("ns1/svc1:p80", "tcp", "10.180.0.1:80")
    'KUBE-SEP-SXIVWICOYRO3J4NJ'
    """
    digest = hashlib.sha256((service_port_name + protocol + endpoint).encode()).digest()
    return SERVICE_PORT_ENDPOINT_CHAIN_NAME_PREFIX + base64.b32encode(digest).decode()[:16]


def service_nat_chains(state: Any) -> dict[Any, tuple[str, dict[str, str]]]:
    """The nat chains iptables mode names for each service port of ``state``: KUBE-SVC-* and each KUBE-SEP-*.

    Parameters
    ----------
    state : ProxyState
        kube-proxy's state on one node (:func:`kubenotes.proxy.endpoints.proxy_state`).

    Returns
    -------
    dict
        ``ServicePortName`` -> (the port's ``KUBE-SVC-*`` chain, endpoint
        ``ip:port`` -> its ``KUBE-SEP-*`` chain), for every endpoint of the
        port, used or not on this node.

    Notes
    -----
    Only names: which chains :func:`iptables_save` writes on a node (and which
    endpoints a KUBE-SVC-* chain jumps to) depends on the traffic policies and
    the endpoints' conditions. The packet walk (:mod:`kubenotes.cni.calico.packet`)
    reads these names instead of computing them.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (servicePortPolicyClusterChain,
    servicePortEndpointChainName)

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import EndpointInfo, ProxyState, ServicePortInfo, ServicePortName
    >>> spn = ServicePortName("ns1", "svc1", "p80")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("172.30.0.41",), 0, 80, None, (), (), (), False, False, 0, "ClusterIP")
    >>> st = ProxyState("n1", ("192.168.0.2",), None, None, {spn: info}, {spn: (EndpointInfo("10.180.0.1", 80, True, True, False, False),)})
    >>> service_nat_chains(st)[spn]
    ('KUBE-SVC-XPGD46QRK7WJZT7O', {'10.180.0.1:80': 'KUBE-SEP-SXIVWICOYRO3J4NJ'})
    """
    out: dict[Any, tuple[str, dict[str, str]]] = {}
    for name, info in state.services.items():
        spn, proto = str(name), info.protocol.lower()
        out[name] = (service_port_policy_cluster_chain(spn, proto),
                     {e.endpoint(): service_port_endpoint_chain_name(spn, proto, e.endpoint())
                      for e in state.endpoints.get(name, ())})
    return out


def compute_probability(n: int) -> str:
    """``computeProbability``: ``1/n`` printed with Go's ``%0.10f``.

    The k-th of n endpoint rules (k from 0) matches with probability
    ``1/(n-k)``, so each endpoint gets ``1/n`` of new connections overall.

    Examples
    --------
    >>> compute_probability(3), compute_probability(100001)
    ('0.3333333333', '0.0000099999')
    """
    return "%0.10f" % (1.0 / n)


# ---------------------------------------------------------------------------
# addresses


def _canonical_ip(s: str) -> tuple[str, int] | None:
    """``(canonical text, IP version)`` of an address (:func:`~kubenotes.proxy.util.normalize_ip`), or ``None``."""
    text = normalize_ip(s)
    if text is None:
        return None
    return text, (6 if ":" in text else 4)


def _family_ips(values: Iterable[str], version: int) -> list[str]:
    out = []
    for v in values:
        c = _canonical_ip(v)
        if c is not None and c[1] == version:
            out.append(c[0])
    return out


def _join_host_port(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


# ---------------------------------------------------------------------------
# rendering


@dataclass
class _Table:
    name: str
    chains: list[str] = field(default_factory=list)
    rules: dict[str, list[str]] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)

    def chain(self, name: str) -> None:
        """Write the ``:NAME - [0:0]`` line (once)."""
        if name not in self.declared:
            self.declared.add(name)
            self.chains.append(name)

    def write(self, *args: str) -> None:
        """Append one ``-A CHAIN ...`` rule (args[1] is the chain)."""
        rules = self.rules.get(args[1])
        if rules is None:
            rules = self.rules[args[1]] = []
        rules.append(" ".join(a for a in args if a != ""))


def _comment_service_name(rule: str) -> str | None:
    """The service name a rule's comment starts with (``orderByCommentServiceName``)."""
    i = rule.find("--comment ")
    if i < 0:
        return None
    rest = rule[i + len("--comment "):]
    if rest.startswith('"'):
        value = rest[1:rest.index('"', 1)]
    else:
        value = rest.split(" ", 1)[0]
    for j, c in enumerate(value):
        if c in " :":
            return value[:j]
    return value


def _chain_sort_key(name: str) -> tuple[int, str]:
    if name == KUBE_NODE_PORTS_CHAIN:
        return (0, "")
    if name == KUBE_SERVICES_CHAIN:
        return (1, "")
    return (2 if name.startswith("KUBE-") else 3, name)


def _sorted_rules(chain: str, table: str, rules: list[str]) -> list[str]:
    if chain not in (KUBE_NODE_PORTS_CHAIN, KUBE_SERVICES_CHAIN):
        return rules

    def key(rule: str) -> tuple[int, str]:
        if table == "nat" and chain == KUBE_SERVICES_CHAIN and "must be the last rule" in rule:
            return (1, "")
        return (0, _comment_service_name(rule) or "")

    return sorted(rules, key=key)


def _render_restore(tables: list[_Table]) -> list[str]:
    lines: list[str] = []
    for t in tables:
        lines.append(f"*{t.name}")
        chains = sorted(t.chains, key=_chain_sort_key)
        lines.extend(f":{c} - [0:0]" for c in chains)
        for c in chains:
            lines.extend(_sorted_rules(c, t.name, t.rules.get(c, [])))
        lines.append("COMMIT")
    return lines


def _render_full(tables: list[_Table], version: int) -> list[str]:
    """Whole tables as ``iptables-save`` prints them on the node after the sync."""
    by_name = {t.name: t for t in tables}
    by_name["mangle"] = _Table("mangle")
    jumps: dict[tuple[str, str], list[str]] = {}
    for table, dst, src, comment, extra in IPTABLES_JUMP_CHAINS + IPTABLES_KUBELET_JUMP_CHAINS:
        args = list(extra)
        if comment:
            args += ["-m", "comment", "--comment", f'"{comment}"' if " " in comment else comment]
        args += ["-j", dst]
        # EnsureRule(Prepend): each new jump goes to the top of the source chain.
        jumps.setdefault((table, src), []).insert(0, " ".join(["-A", src] + args))
        by_name[table].chain(dst)
    for t in by_name.values():
        t.chain(KUBE_PROXY_CANARY_CHAIN)
    lines: list[str] = []
    for name in ("filter", "mangle", "nat"):
        t = by_name[name]
        builtins = _BUILTIN_CHAINS[name]
        user = sorted(t.chains)
        lines.append(f"*{name}")
        lines.extend(f":{c} ACCEPT [0:0]" for c in builtins)
        lines.extend(f":{c} - [0:0]" for c in user)
        for c in builtins:
            lines.extend(jumps.get((name, c), []))
        for c in user:
            lines.extend(_sorted_rules(c, name, t.rules.get(c, [])))
        lines.append("COMMIT")
    return lines


def iptables_save(
    state: Any,
    *,
    masquerade_all: bool = False,
    masquerade_bit: int = 14,
    localhost_node_ports: bool = True,
    random_fully: bool = True,
    nfacct: bool = True,
    conntrack_tcp_be_liberal: bool = False,
    ip_family: str | None = None,
    full: bool = False,
    local_detector: LocalTrafficDetector | None = None,
    nodeport_addresses: Iterable[str] | None = None,
) -> str:
    """The ``filter`` and ``nat`` rules kube-proxy's iptables proxier writes for ``state``.

    Parameters
    ----------
    state : ProxyState
        Node name and IPs, ``cluster_cidr`` and the Service ports with their endpoints.
    masquerade_all : bool
        ``--masquerade-all``: SNAT every packet sent to a cluster IP.
    masquerade_bit : int
        ``--iptables-masquerade-bit`` (default 14: mark ``0x4000``).
    localhost_node_ports : bool
        ``--iptables-localhost-nodeports`` (default true; IPv4 only): NodePorts on
        127.0.0.0/8, guarded by the KUBE-FIREWALL anti-martian rule.
    random_fully : bool
        Whether the iptables binary supports ``MASQUERADE --random-fully`` (iptables
        1.6.2 and later, so true on current nodes; upstream's fake reports false).
    nfacct : bool
        Whether the nfacct counters could be created (adds ``-m nfacct`` to the INVALID
        drop rule and a localhost NodePort rule, as on a node with nfnetlink_acct).
    conntrack_tcp_be_liberal : bool
        ``net.netfilter.nf_conntrack_tcp_be_liberal`` is set: no INVALID drop rule.
    ip_family : {"IPv4", "IPv6"}, optional
        The single-stack proxier to render (``iptables-save`` or ``ip6tables-save``);
        default: the family of the node's first IP (IPv4 when it has none).
    full : bool
        Print the whole tables as ``iptables-save`` would after the sync: built-in
        chains, the jumps into kube-proxy's chains that it installs with
        ``iptables -I`` outside the restore, and the empty KUBE-PROXY-CANARY chains
        (also in ``mangle``).
    local_detector : LocalTrafficDetector, optional
        ``detectLocalMode``'s detector; default: by ``state.cluster_cidr`` (``ClusterCIDR``),
        the no-op detector when that is unset.
    nodeport_addresses : iterable of str, optional
        ``nodePortAddresses``: None or empty for every local address (the iptables
        default), ``["primary"]`` or CIDRs for one ``-d IP -j KUBE-NODEPORTS`` rule per
        matching node address.

    Returns
    -------
    str
        ``iptables-save`` text ending in a newline.

    Raises
    ------
    ValueError
        For an unknown ``ip_family``.

    Notes
    -----
    Simplified compared with upstream: always a full sync (no partial syncs, no ``-X``
    lines for stale chains); the node's addresses for ``nodeport_addresses`` are its
    Node object's (not its interfaces'); no topology-aware routing (see :func:`categorize_endpoints`); the
    text is what kube-proxy writes, before the kernel round trip that makes a real
    ``iptables-save`` print e.g. ``--set-xmark 0x4000/0x4000`` for ``--or-mark 0x4000``.
    Order is upstream's test order (see the module docstring).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import EndpointInfo, ProxyState, ServicePortInfo, ServicePortName
    >>> spn = ServicePortName("ns1", "svc1", "p80")
    >>> svc = ServicePortInfo(spn, "TCP", 80, ("172.30.0.41",), 0, 80, None, (), (), (), False, False, 0, "ClusterIP")
    >>> ep = EndpointInfo("10.180.0.1", 80, ready=True, serving=True, terminating=False, is_local=False)
    >>> state = ProxyState("test-node", ("192.168.0.2",), None, "10.0.0.0/8", {spn: svc}, {spn: (ep,)})
    >>> out = iptables_save(state, nfacct=False, random_fully=False)
    >>> print("\\n".join(l for l in out.splitlines() if "svc1" in l))  # doctest: +NORMALIZE_WHITESPACE
    -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O
    -A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ
    -A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80
    -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ
    """
    if ip_family is None:
        first = next((c for ip in state.node_ips or () if (c := _canonical_ip(ip)) is not None), None)
        ip_family = "IPv6" if first is not None and first[1] == 6 else "IPv4"
    if ip_family not in ("IPv4", "IPv6"):
        raise ValueError(f'ip_family must be "IPv4" or "IPv6", got {ip_family!r}')
    version = 4 if ip_family == "IPv4" else 6
    is_ipv6 = version == 6
    if is_ipv6:
        localhost_node_ports = False  # NewDualStackProxier passes false to the IPv6 proxier
    mark = f"{1 << masquerade_bit:#x}"

    # LocalTrafficDetector: by default DetectLocalByCIDR over --cluster-cidr of this family, else no-op.
    if local_detector is None:
        local_detector = LocalTrafficDetector.for_family("ClusterCIDR", version,
                                                         cluster_cidrs=(state.cluster_cidr or "").split(","))
    detect_local = local_detector.implemented
    if_not_local, if_local = local_detector.if_not_local, local_detector.if_local
    node_ip = None
    for ip in _family_ips(state.node_ips or (), version):
        node_ip = ipaddress.ip_address(ip)
        break

    filt, nat = _Table("filter"), _Table("nat")
    for c in (KUBE_SERVICES_CHAIN, KUBE_EXTERNAL_SERVICES_CHAIN, KUBE_FORWARD_CHAIN, KUBE_NODE_PORTS_CHAIN,
              KUBE_PROXY_FIREWALL_CHAIN):
        filt.chain(c)
    for c in (KUBE_SERVICES_CHAIN, KUBE_NODE_PORTS_CHAIN, KUBE_POSTROUTING_CHAIN, KUBE_MARK_MASQ_CHAIN):
        nat.chain(c)

    nat.write("-A", KUBE_POSTROUTING_CHAIN, "-m", "mark", "!", "--mark", f"{mark}/{mark}", "-j", "RETURN")
    nat.write("-A", KUBE_POSTROUTING_CHAIN, "-j", "MARK", "--xor-mark", mark)
    nat.write("-A", KUBE_POSTROUTING_CHAIN, "-m", "comment", "--comment", _COMMENT_SNAT, "-j", "MASQUERADE",
              "--random-fully" if random_fully else "")
    nat.write("-A", KUBE_MARK_MASQ_CHAIN, "-j", "MARK", "--or-mark", mark)

    if not is_ipv6 and localhost_node_ports:
        filt.chain(KUBELET_FIREWALL_CHAIN)
        filt.write("-A", KUBELET_FIREWALL_CHAIN, "-m", "comment", "--comment", _COMMENT_LOCALNET,
                   "-d", "127.0.0.0/8", "!", "-s", "127.0.0.0/8", "-m", "conntrack",
                   "!", "--ctstate", "RELATED,ESTABLISHED,DNAT", "-j", "DROP")

    # Service ports of this family, in a fixed order (upstream: Go map order, sorted by its tests).
    ports = []
    for spn, svc in state.services.items():
        cluster_ip = next(iter(_family_ips(svc.cluster_ips, version)), None)
        if cluster_ip is None:
            continue
        eps = []
        for ep in state.endpoints.get(spn, ()):
            c = _canonical_ip(ep.ip)
            if c is not None and c[1] == version:
                eps.append(_Endpoint(ep, c[0], _join_host_port(c[0], ep.port)))
        eps.sort(key=lambda e: e.text)  # endpointsMap order: byEndpoint (ip:port strings)
        ports.append((str(spn), svc, cluster_ip, eps))
    ports.sort(key=lambda t: (t[0], t[1].protocol))

    total_endpoints = sum(len(eps) for _, _, _, eps in ports)
    large_cluster_mode = total_endpoints > LARGE_CLUSTER_ENDPOINTS_THRESHOLD

    def svc_comment(text: str) -> tuple[str, ...]:
        # appendServiceCommentLocked: no per-endpoint comments in large cluster mode
        return () if large_cluster_mode else ("-m", "comment", "--comment", text)

    for name, svc, cluster_ip, all_eps in ports:
        protocol = svc.protocol.lower()
        for e in all_eps:
            e.chain = service_port_endpoint_chain_name(name, protocol, e.text)
        port = str(svc.port)
        cluster_chain = service_port_policy_cluster_chain(name, protocol)
        local_chain = service_port_policy_local_chain_name(name, protocol)
        ext_chain = service_external_chain_name(name, protocol)
        fw_chain = service_firewall_chain_name(name, protocol)
        external_ips = _family_ips(svc.external_ips, version)
        lb_ips = _family_ips(svc.load_balancer_ips, version)
        source_ranges = [n for r in svc.load_balancer_source_ranges
                         if (n := parse_cidr_sloppy(r.strip())) is not None and n.version == version]
        by_id = {id(e.info): e for e in all_eps}
        cluster_eps, local_eps, reachable_eps, has_endpoints = categorize_endpoints(
            [e.info for e in all_eps], svc, state.node_name, getattr(state, "node_zone", ""))
        cluster_eps = [by_id[id(e)] for e in cluster_eps or ()]
        local_eps = [by_id[id(e)] for e in local_eps or ()]
        reachable_eps = [by_id[id(e)] for e in reachable_eps or ()]
        uses_cluster_chain = bool(cluster_eps) and svc.uses_cluster_endpoints
        uses_local_chain = bool(local_eps) and svc.uses_local_endpoints

        internal_chain = cluster_chain
        has_internal = has_endpoints
        if svc.internal_policy_local:
            internal_chain = local_chain
            if not local_eps:
                has_internal = False
        external_policy_chain = cluster_chain
        has_external = has_endpoints
        if svc.external_policy_local:
            external_policy_chain = local_chain
            if not local_eps:
                has_external = False
        uses_ext_chain = has_endpoints and svc.externally_accessible
        uses_fw_chain = has_endpoints and bool(lb_ips) and bool(source_ranges)
        lb_chain = fw_chain if uses_fw_chain else ext_chain

        internal_target = internal_comment = external_target = external_comment = ""
        if not has_endpoints:
            internal_target = external_target = "REJECT"
            internal_comment = external_comment = f'"{name} has no endpoints"'
        else:
            if not has_internal:
                internal_target, internal_comment = "DROP", f'"{name} has no local endpoints"'
            if not has_external:
                external_target, external_comment = "DROP", f'"{name} has no local endpoints"'

        match = ("-m", protocol, "-p", protocol)
        # Capture the clusterIP.
        if has_internal:
            nat.write("-A", KUBE_SERVICES_CHAIN, "-m", "comment", "--comment", f'"{name} cluster IP"',
                      *match, "-d", cluster_ip, "--dport", port, "-j", internal_chain)
        else:
            filt.write("-A", KUBE_SERVICES_CHAIN, "-m", "comment", "--comment", internal_comment,
                       *match, "-d", cluster_ip, "--dport", port, "-j", internal_target)
        # Capture externalIPs.
        for eip in external_ips:
            if has_endpoints:
                nat.write("-A", KUBE_SERVICES_CHAIN, "-m", "comment", "--comment", f'"{name} external IP"',
                          *match, "-d", eip, "--dport", port, "-j", ext_chain)
            if not has_external:
                filt.write("-A", KUBE_EXTERNAL_SERVICES_CHAIN, "-m", "comment", "--comment", external_comment,
                           *match, "-d", eip, "--dport", port, "-j", external_target)
        # Capture load-balancer ingress.
        for lbip in lb_ips:
            if has_endpoints:
                nat.write("-A", KUBE_SERVICES_CHAIN, "-m", "comment", "--comment", f'"{name} loadbalancer IP"',
                          *match, "-d", lbip, "--dport", port, "-j", lb_chain)
            if uses_fw_chain:
                filt.write("-A", KUBE_PROXY_FIREWALL_CHAIN, "-m", "comment", "--comment",
                           f'"{name} traffic not accepted by {fw_chain}"',
                           *match, "-d", lbip, "--dport", port, "-j", "DROP")
        if not has_external:
            for lbip in lb_ips:
                filt.write("-A", KUBE_EXTERNAL_SERVICES_CHAIN, "-m", "comment", "--comment", external_comment,
                           *match, "-d", lbip, "--dport", port, "-j", external_target)
        # Capture nodeports.
        if svc.node_port:
            node_port = str(svc.node_port)
            if has_endpoints:
                if localhost_node_ports and not is_ipv6 and nfacct:
                    nat.write("-A", KUBE_NODE_PORTS_CHAIN, "-m", "comment", "--comment", name, *match,
                              "-d", "127.0.0.0/8", "--dport", node_port,
                              "-m", "nfacct", "--nfacct-name", LOCALHOST_NODE_PORT_ACCEPTED_NFACCT_COUNTER,
                              "-j", ext_chain)
                nat.write("-A", KUBE_NODE_PORTS_CHAIN, "-m", "comment", "--comment", name, *match,
                          "--dport", node_port, "-j", ext_chain)
            if not has_external:
                filt.write("-A", KUBE_EXTERNAL_SERVICES_CHAIN, "-m", "comment", "--comment", external_comment,
                           "-m", "addrtype", "--dst-type", "LOCAL", *match, "--dport", node_port,
                           "-j", external_target)
        # Capture healthCheckNodePorts (set only for type=LoadBalancer with eTP=Local).
        hc_port = svc.health_check_node_port if (svc.type == "LoadBalancer" and svc.external_policy_local) else 0
        if hc_port:
            filt.write("-A", KUBE_NODE_PORTS_CHAIN, "-m", "comment", "--comment",
                       f'"{name} health check node port"', "-m", "tcp", "-p", "tcp",
                       "--dport", str(hc_port), "-j", "ACCEPT")

        # Internal traffic handling.
        if has_internal:
            args = ("-m", "comment", "--comment", f'"{name} cluster IP"', *match,
                    "-d", cluster_ip, "--dport", port)
            if masquerade_all:
                nat.write("-A", internal_chain, *args, "-j", KUBE_MARK_MASQ_CHAIN)
            elif detect_local:
                nat.write("-A", internal_chain, *args, *if_not_local, "-j", KUBE_MARK_MASQ_CHAIN)

        # External traffic handling.
        if uses_ext_chain:
            nat.chain(ext_chain)
            if not svc.external_policy_local:
                nat.write("-A", ext_chain, "-m", "comment", "--comment",
                          f'"masquerade traffic for {name} external destinations"', "-j", KUBE_MARK_MASQ_CHAIN)
            else:
                if detect_local:
                    nat.write("-A", ext_chain, "-m", "comment", "--comment",
                              f'"pod traffic for {name} external destinations"', *if_local, "-j", cluster_chain)
                nat.write("-A", ext_chain, "-m", "comment", "--comment",
                          f'"masquerade LOCAL traffic for {name} external destinations"',
                          "-m", "addrtype", "--src-type", "LOCAL", "-j", KUBE_MARK_MASQ_CHAIN)
                nat.write("-A", ext_chain, "-m", "comment", "--comment",
                          f'"route LOCAL traffic for {name} external destinations"',
                          "-m", "addrtype", "--src-type", "LOCAL", "-j", cluster_chain)
            if has_external:
                nat.write("-A", ext_chain, "-j", external_policy_chain)

        # Firewall chain (loadBalancerSourceRanges).
        if uses_fw_chain:
            nat.chain(fw_chain)
            fw_args = ("-A", fw_chain, "-m", "comment", "--comment", f'"{name} loadbalancer IP"')
            allow_from_node = False
            for cidr in source_ranges:
                nat.write(*fw_args, "-s", str(cidr), "-j", ext_chain)
                if node_ip is not None and node_ip in cidr:
                    allow_from_node = True
            if allow_from_node:
                for lbip in lb_ips:
                    nat.write(*fw_args, "-s", lbip, "-j", ext_chain)
            nat.write("-A", fw_chain, "-m", "comment", "--comment",
                      f'"other traffic to {name} will be dropped by KUBE-PROXY-FIREWALL"')

        if uses_cluster_chain:
            nat.chain(cluster_chain)
            _write_service_to_endpoint_rules(nat, name, protocol, svc, cluster_chain, cluster_eps, svc_comment)
        if uses_local_chain:
            nat.chain(local_chain)
            _write_service_to_endpoint_rules(nat, name, protocol, svc, local_chain, local_eps, svc_comment)

        # Per-endpoint chains.
        for e in reachable_eps:
            nat.chain(e.chain)
            head = ("-A", e.chain, *svc_comment(name))
            nat.write(*head, "-s", e.ip, "-j", KUBE_MARK_MASQ_CHAIN)
            affinity = (("-m", "recent", "--name", e.chain, "--set")
                        if svc.session_affinity_timeout_seconds is not None else ())
            nat.write(*head, *affinity, *match, "-j", "DNAT", "--to-destination", e.text)

    # Tail-call to the nodePorts chain: every local address, or one rule per nodePortAddresses match.
    np_ips = node_port_ips(_family_ips(state.node_ips or (), version), list(nodeport_addresses or ()))
    if np_ips is None:
        destinations = ["-m", "addrtype", "--dst-type", "LOCAL"]
        if is_ipv6:
            destinations += ["!", "-d", "::1/128"]
        elif not localhost_node_ports:
            destinations += ["!", "-d", "127.0.0.0/8"]
        nat.write("-A", KUBE_SERVICES_CHAIN, "-m", "comment", "--comment", _COMMENT_NODEPORTS_LAST,
                  *destinations, "-j", KUBE_NODE_PORTS_CHAIN)
    else:
        for ip in np_ips:
            if ipaddress.ip_address(ip).is_loopback and (is_ipv6 or not localhost_node_ports):
                continue  # kube-proxy logs that localhost NodePorts are not supported and skips it
            nat.write("-A", KUBE_SERVICES_CHAIN, "-m", "comment", "--comment", _COMMENT_NODEPORTS_LAST,
                      "-d", ip, "-j", KUBE_NODE_PORTS_CHAIN)

    if not conntrack_tcp_be_liberal:
        filt.write("-A", KUBE_FORWARD_CHAIN, "-m", "conntrack", "--ctstate", "INVALID",
                   *(("-m", "nfacct", "--nfacct-name", IPTABLES_CT_STATE_INVALID_DROPPED_NFACCT_COUNTER)
                     if nfacct else ()), "-j", "DROP")
    filt.write("-A", KUBE_FORWARD_CHAIN, "-m", "comment", "--comment", _COMMENT_FORWARDING,
               "-m", "mark", "--mark", f"{mark}/{mark}", "-j", "ACCEPT")
    filt.write("-A", KUBE_FORWARD_CHAIN, "-m", "comment", "--comment", _COMMENT_FORWARDING_CONNTRACK,
               "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED", "-j", "ACCEPT")

    lines = _render_full([filt, nat], version) if full else _render_restore([filt, nat])
    return "\n".join(lines) + "\n"


class _Endpoint:
    """An EndpointInfo with its canonical address, ``ip:port`` text and KUBE-SEP chain."""

    __slots__ = ("info", "ip", "text", "chain")

    def __init__(self, info: Any, ip: str, text: str):
        self.info, self.ip, self.text, self.chain = info, ip, text, ""


def _write_service_to_endpoint_rules(nat: _Table, name: str, protocol: str, svc: Any, chain: str,
                                     endpoints: list[Any], svc_comment: Any) -> None:
    """``writeServiceToEndpointRules``: affinity checks, then the probability ladder."""
    eps = [(e.text, e.chain) for e in endpoints]
    if svc.session_affinity_timeout_seconds is not None:
        for ep_str, ep_chain in eps:
            nat.write("-A", chain, *svc_comment(f'"{name} -> {ep_str}"'),
                      "-m", "recent", "--name", ep_chain, "--rcheck",
                      "--seconds", str(svc.session_affinity_timeout_seconds), "--reap", "-j", ep_chain)
    n = len(eps)
    for i, (ep_str, ep_chain) in enumerate(eps):
        prob = ("-m", "statistic", "--mode", "random", "--probability", compute_probability(n - i)) if i < n - 1 else ()
        nat.write("-A", chain, *svc_comment(f'"{name} -> {ep_str}"'), *prob, "-j", ep_chain)


# --------------------------------------------------------------------------- reading iptables-save text back

#: A ``KUBE-SVC-*`` chain name in ``iptables-save`` text: the prefix and the 16 characters of the port's hash.
SERVICE_CHAIN_RE = re.compile(SERVICE_PORT_POLICY_CLUSTER_CHAIN_NAME_PREFIX + "[A-Z0-9]{16}")
#: A ``KUBE-SEP-*`` chain name in ``iptables-save`` text.
ENDPOINT_CHAIN_RE = re.compile(SERVICE_PORT_ENDPOINT_CHAIN_NAME_PREFIX + "[A-Z0-9]{16}")

# ``-A CHAIN <match> -j TARGET [<target options>]``
_RULE_LINE_RE = re.compile(r"^-A (\S+) (.*)-j (\S+)(?: (.*))?$")
_COMMENT_RE = re.compile(r'--comment (?:"([^"]*)"|(\S+))')
_DESTINATION_RE = re.compile(r"-d (\S+)")
_DESTINATION_PORT_RE = re.compile(r"--dport (\d+)")
_PROBABILITY_RE = re.compile(r"--probability ([0-9.]+)")
_DNAT_DESTINATION_RE = re.compile(r"--to-destination (\S+)")


@dataclass(frozen=True)
class Rule:
    """One ``-A`` line of ``iptables-save`` output, the parts of it that say where a packet goes.

    Attributes
    ----------
    chain : str
        The chain the rule is appended to (``-A``).
    jump : str
        The target (``-j``): a chain or ``DNAT``, ``MASQUERADE``...
    comment : str or None
        ``-m comment --comment`` (quotes removed).
    destination_address : str or None
        ``-d``, as written (``10.96.0.100/32``).
    destination_port : str or None
        ``--dport``.
    probability : str or None
        ``-m statistic --probability``, as printed (``0.3333333333``).
    dnat_destination : str or None
        ``--to-destination`` of a DNAT rule (``10.244.1.10:8080``).
    raw : str
        The whole line.
    """

    chain: str
    jump: str
    comment: str | None = None
    destination_address: str | None = None
    destination_port: str | None = None
    probability: str | None = None
    dnat_destination: str | None = None
    raw: str = ""


def parse_rule(line: str) -> Rule | None:
    """Read one ``iptables-save`` line into a :class:`Rule` (``ParseRule`` of upstream's test helpers).

    Parameters
    ----------
    line : str
        A line of ``iptables-save`` output.

    Returns
    -------
    Rule or None
        None for a line that is not an ``-A ... -j ...`` rule (a table
        header, a chain declaration, ``COMMIT``).

    Raises
    ------
    TypeError
        When ``line`` is not a str.

    Notes
    -----
    Upstream's parser knows every match kube-proxy writes and can be strict;
    this one reads only the fields the chapters follow (chain, jump, comment,
    destination and port, probability, DNAT destination) and ignores the rest.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/util/iptables/testing/parse.go (ParseRule)

    Examples
    --------
    >>> r = parse_rule('-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" '
    ...                '-m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-SXIVWICOYRO3J4NJ')
    >>> r.chain, r.jump, r.comment, r.probability
    ('KUBE-SVC-XPGD46QRK7WJZT7O', 'KUBE-SEP-SXIVWICOYRO3J4NJ', 'ns1/svc1:p80 -> 10.180.0.1:80', '0.5000000000')
    >>> parse_rule(":KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]") is None
    True
    """
    m = _RULE_LINE_RE.match(line)
    if m is None:
        return None
    match, options = m.group(2), m.group(4) or ""

    def first(regex: re.Pattern[str], text: str) -> str | None:
        found = regex.search(text)
        return found.group(1) if found else None

    comment = _COMMENT_RE.search(match)
    return Rule(chain=m.group(1), jump=m.group(3),
                comment=(comment.group(1) or comment.group(2)) if comment else None,
                destination_address=first(_DESTINATION_RE, match), destination_port=first(_DESTINATION_PORT_RE, match),
                probability=first(_PROBABILITY_RE, match), dnat_destination=first(_DNAT_DESTINATION_RE, options),
                raw=line)
