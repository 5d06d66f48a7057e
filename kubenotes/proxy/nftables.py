"""kube-proxy's nftables mode: the ``kube-proxy`` table it programs on one node.

The nftables proxier keeps everything in one table, ``ip kube-proxy`` (``ip6``
for IPv6). Base chains hook into netfilter in v1.34's layout
(kubernetes/kubernetes#132456): ``filter-prerouting-pre-dnat`` and
``filter-output-pre-dnat`` before DNAT (priority ``dstnat - 10``) for the
``loadBalancerSourceRanges`` check on the original destination;
``filter-input``, ``filter-forward`` and ``filter-output`` at the ``filter``
priority, after DNAT, for the no-endpoint and unallocated-ClusterIP checks (so
a node's own connection to a Service's external address, already DNATed to an
endpoint, is not refused by them); ``nat-prerouting``, ``nat-output`` and
``nat-postrouting`` for DNAT and masquerading. The ``services`` chain dispatches on verdict maps
(``service-ips`` for ClusterIP, external and load-balancer IPs,
``service-nodeports`` for node ports); each service port gets a
``service-<HASH>-ns/name/proto/port`` chain that picks an
``endpoint-<HASH>-...`` chain with ``numgen random mod N vmap``, and each
endpoint chain DNATs to its address. Services without usable endpoints are
rejected through ``no-endpoint-services`` / ``no-endpoint-nodeports``;
``loadBalancerSourceRanges`` go through ``firewall-ips``; ClientIP affinity
uses per-endpoint ``affinity-...`` sets with a timeout.

:func:`kube_proxy_table` builds the table from a
:class:`~kubenotes.proxy.endpoints.ProxyState`; :func:`nft_transaction`
prints the ``add ...`` commands kube-proxy sends (the form upstream's tests
compare, and valid input for ``nft -f``); :func:`nft_list_table` prints the
table as ``nft list table ip kube-proxy`` shows it once loaded.

Mirrors ``k8s.io/kubernetes/pkg/proxy/nftables`` (proxier.go).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/proxy/nftables/proxier.go (setupNFTables, syncProxyRules, writeServiceToEndpointRules)
kubernetes/kubernetes@v1.34.0 pkg/proxy/nftables/proxier_test.go (TestOverallNFTablesRules)
kubernetes/enhancements keps/sig-network/3866-nftables-proxy
https://kubernetes.io/docs/reference/networking/virtual-ips/#proxy-mode-nftables
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import re
from dataclasses import dataclass, field
from typing import Sequence

from kubenotes.proxy.endpoints import EndpointInfo, ProxyState, ServicePortInfo, categorize_endpoints
from kubenotes.proxy.util import NODE_PORT_ADDRESSES_PRIMARY, LocalTrafficDetector, node_port_ips

__all__ = [
    "KUBE_PROXY_TABLE",
    "NFTSet",
    "NFTChain",
    "NFTTable",
    "kube_proxy_table",
    "nft_transaction",
    "nft_list_table",
    "hash_and_truncate",
    "service_port_chain_name_base",
    "service_port_endpoint_chain_name_base",
    "DEFAULT_MASQUERADE_BIT",
]

KUBE_PROXY_TABLE = "kube-proxy"
#: ``--iptables-masquerade-bit`` default (also used by the nftables mode): mark ``0x4000``.
DEFAULT_MASQUERADE_BIT = 14
#: knftables ``NameLengthMax`` minus ``chainNamePrefixLengthMax``.
_CHAIN_NAME_BASE_LENGTH_MAX = 256 - 16

# chain, set and map names (proxier.go constants)
FILTER_PREROUTING_PRE_DNAT = "filter-prerouting-pre-dnat"
FILTER_OUTPUT_PRE_DNAT = "filter-output-pre-dnat"
FILTER_INPUT = "filter-input"
FILTER_FORWARD = "filter-forward"
FILTER_OUTPUT = "filter-output"
NAT_PREROUTING = "nat-prerouting"
NAT_OUTPUT = "nat-output"
NAT_POSTROUTING = "nat-postrouting"
SERVICES_CHAIN = "services"
SERVICE_IPS_MAP = "service-ips"
SERVICE_NODEPORTS_MAP = "service-nodeports"
NODEPORT_IPS_SET = "nodeport-ips"
CLUSTER_IPS_SET = "cluster-ips"
SERVICE_ENDPOINTS_CHECK = "service-endpoints-check"
NODEPORT_ENDPOINTS_CHECK = "nodeport-endpoints-check"
NO_ENDPOINT_SERVICES_MAP = "no-endpoint-services"
NO_ENDPOINT_NODEPORTS_MAP = "no-endpoint-nodeports"
REJECT_CHAIN = "reject-chain"
CLUSTER_IPS_CHECK = "cluster-ips-check"
FIREWALL_IPS_MAP = "firewall-ips"
FIREWALL_CHECK = "firewall-check"
MARK_MASQ_CHAIN = "mark-for-masquerade"
MASQUERADING_CHAIN = "masquerading"

# comments copied from upstream
TABLE_COMMENT = "rules for kube-proxy"
CLUSTER_IPS_COMMENT = "Active ClusterIPs"
NODEPORT_IPS_COMMENT = "IPs that accept NodePort traffic"
NO_ENDPOINT_SERVICES_COMMENT = "vmap to drop or reject packets to services with no endpoints"
NO_ENDPOINT_NODEPORTS_COMMENT = "vmap to drop or reject packets to service nodeports with no endpoints"
REJECT_CHAIN_COMMENT = "helper for @no-endpoint-services / @no-endpoint-nodeports"
FIREWALL_IPS_COMMENT = "destinations that are subject to LoadBalancerSourceRanges"
SERVICE_IPS_COMMENT = "ClusterIP, ExternalIP and LoadBalancer IP traffic"
SERVICE_NODEPORTS_COMMENT = "NodePort traffic"
REJECT_INVALID_PORTS_COMMENT = "Reject traffic to invalid ports of ClusterIPs"
DROP_UNALLOCATED_COMMENT = "Drop traffic to unallocated ClusterIPs"
SHORT_CIRCUIT_POD_COMMENT = "short-circuit pod traffic"
MASQUERADE_LOCAL_COMMENT = "masquerade local traffic"
SHORT_CIRCUIT_LOCAL_COMMENT = "short-circuit local traffic"

# (name, type, hook, priority) of nftablesBaseChains (v1.34, kubernetes/kubernetes#132456): the two
# "pre-dnat" filter chains run before DNAT (dstnat-10, knftables writes -110) to see the original destination
# (LoadBalancerSourceRanges); input, forward and output run at the filter priority (0), after DNAT, so that
# local traffic to an external address has been short-circuited to its endpoint before it is checked.
_BASE_CHAINS = [
    (FILTER_PREROUTING_PRE_DNAT, "filter", "prerouting", -110),
    (FILTER_OUTPUT_PRE_DNAT, "filter", "output", -110),
    (FILTER_FORWARD, "filter", "forward", 0),
    (FILTER_INPUT, "filter", "input", 0),
    (FILTER_OUTPUT, "filter", "output", 0),
    (NAT_PREROUTING, "nat", "prerouting", -100),
    (NAT_OUTPUT, "nat", "output", -100),
    (NAT_POSTROUTING, "nat", "postrouting", 100),
]
# nftablesJumpChains: (destination, source, extra match)
_JUMP_CHAINS = [
    (NODEPORT_ENDPOINTS_CHECK, FILTER_INPUT, "ct state new"),
    (SERVICE_ENDPOINTS_CHECK, FILTER_INPUT, "ct state new"),
    (SERVICE_ENDPOINTS_CHECK, FILTER_FORWARD, "ct state new"),
    (SERVICE_ENDPOINTS_CHECK, FILTER_OUTPUT, "ct state new"),
    (FIREWALL_CHECK, FILTER_PREROUTING_PRE_DNAT, "ct state new"),
    (FIREWALL_CHECK, FILTER_OUTPUT_PRE_DNAT, "ct state new"),
    (SERVICES_CHAIN, NAT_OUTPUT, ""),
    (SERVICES_CHAIN, NAT_PREROUTING, ""),
    (MASQUERADING_CHAIN, NAT_POSTROUTING, ""),
    (CLUSTER_IPS_CHECK, FILTER_FORWARD, "ct state new"),
    (CLUSTER_IPS_CHECK, FILTER_OUTPUT, "ct state new"),
]
# nft's standard priority names and the hooks where ip/ip6 tables print them (rule.c std_prios)
_STD_PRIOS = [(-300, "raw", None), (-150, "mangle", None), (-100, "dstnat", {"prerouting"}),
              (0, "filter", None), (50, "security", None), (100, "srcnat", {"postrouting"})]


# ---------------------------------------------------------------------------
# Names


def hash_and_truncate(name: str) -> str:
    """``hashAndTruncate``: the first 8 base32 characters of the name's SHA-256, a dash, then the name.

    Examples
    --------
    >>> hash_and_truncate("ns1/svc1/tcp/p80")
    'ULMVA6XW-ns1/svc1/tcp/p80'
    """
    # base32 turns each 5 bytes into 8 characters, so the first 5 bytes give the 8 that are kept
    encoded = base64.b32encode(hashlib.sha256(name.encode()).digest()[:5]).decode()
    out = encoded + "-" + name
    if len(out) > _CHAIN_NAME_BASE_LENGTH_MAX:
        out = out[:_CHAIN_NAME_BASE_LENGTH_MAX - 3] + "..."
    return out


def service_port_chain_name_base(info: ServicePortInfo) -> str:
    """``servicePortChainNameBase``: ``HASH-namespace/name/protocol/portName``.

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ServicePortName
    >>> info = ServicePortInfo(ServicePortName("ns1", "svc1", "p80"), "TCP", 80, ("172.30.0.41",), 0, 80, None,
    ...                        (), (), (), False, False, 0, "ClusterIP")
    >>> "service-" + service_port_chain_name_base(info)
    'service-ULMVA6XW-ns1/svc1/tcp/p80'
    """
    n = info.name
    return hash_and_truncate(f"{n.namespace}/{n.name}/{info.protocol.lower()}/{n.port}")


def service_port_endpoint_chain_name_base(info: ServicePortInfo, ep: EndpointInfo) -> str:
    """``servicePortEndpointChainNameBase``: ``HASH-namespace/name/protocol/portName__ip/port`` (IPv6 colons as dots).

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ServicePortName
    >>> info = ServicePortInfo(ServicePortName("ns1", "svc1", "p80"), "TCP", 80, ("172.30.0.41",), 0, 80, None,
    ...                        (), (), (), False, False, 0, "ClusterIP")
    >>> ep = EndpointInfo("10.180.0.1", 80, True, True, False, False, frozenset())
    >>> "endpoint-" + service_port_endpoint_chain_name_base(info, ep)
    'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80'
    """
    n = info.name
    ip = ep.ip.replace(":", ".")
    return hash_and_truncate(f"{n.namespace}/{n.name}/{info.protocol.lower()}/{n.port}__{ip}/{ep.port}")


# ---------------------------------------------------------------------------
# The table


@dataclass(slots=True)
class NFTSet:
    """A named set or verdict map of the table.

    Attributes
    ----------
    name, type : str
        ``type`` as nft spells it, e.g. ``ipv4_addr . inet_proto . inet_service : verdict``.
    is_map : bool
    comment : str or None
    flags : tuple[str, ...]
    timeout_seconds : int or None
    elements : list of (key, value, comment)
        ``key`` the ``.``-joined parts, ``value`` the verdict (maps only).

    Examples
    --------
    >>> NFTSet("cluster-ips", "ipv4_addr", comment="Active ClusterIPs").is_map
    False
    """

    name: str
    type: str
    is_map: bool = False
    comment: str | None = None
    flags: tuple[str, ...] = ()
    timeout_seconds: int | None = None
    elements: list[tuple[tuple[str, ...], str | None, str | None]] = field(default_factory=list)


@dataclass(slots=True)
class NFTChain:
    """A chain: a base chain (``type``, ``hook``, ``priority``) or a regular one, with its rules.

    Attributes
    ----------
    rules : list of (rule, comment)
        Rule text as knftables writes it.

    Examples
    --------
    >>> NFTChain("nat-prerouting", "nat", "prerouting", -100).rules
    []
    """

    name: str
    type: str | None = None
    hook: str | None = None
    priority: int | None = None
    comment: str | None = None
    rules: list[tuple[str, str | None]] = field(default_factory=list)


@dataclass
class NFTTable:
    """The ``kube-proxy`` table: sets and maps and chains in creation order, and the transaction that built it.

    Attributes
    ----------
    family : str
        ``ip`` or ``ip6``.
    sets : dict[str, NFTSet]
    chains : dict[str, NFTChain]
    commands : list[str]
        The ``add`` commands in the order kube-proxy's first sync sends them.

    Examples
    --------
    >>> t = NFTTable("ip")
    >>> t.add_chain(NFTChain("services"))
    >>> t.add_rule("services", "ip daddr . meta l4proto . th dport vmap @service-ips")
    >>> t.commands
    ['add chain ip kube-proxy services', 'add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips']
    """

    family: str
    name: str = KUBE_PROXY_TABLE
    comment: str = TABLE_COMMENT
    sets: dict[str, NFTSet] = field(default_factory=dict)
    chains: dict[str, NFTChain] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)
    record_commands: bool = True
    _keys: dict[str, set] = field(default_factory=dict, repr=False)

    @property
    def _prefix(self) -> str:
        return f"{self.family} {self.name}"

    def add_set(self, s: NFTSet) -> None:
        """``add set`` / ``add map``."""
        self.sets[s.name] = s
        self._keys[s.name] = set()
        if not self.record_commands:
            return
        parts = [f"type {s.type}"]
        if s.flags:
            parts.append("flags " + ",".join(s.flags))
        if s.timeout_seconds is not None:
            parts.append(f"timeout {s.timeout_seconds}s")
        if s.comment:
            parts.append(f'comment "{s.comment}"')
        kind = "map" if s.is_map else "set"
        self.commands.append(f"add {kind} {self._prefix} {s.name} {{ " + " ; ".join(parts) + " ; }")

    def add_chain(self, c: NFTChain) -> None:
        """``add chain`` (once per name, as upstream's ``ensureChain``)."""
        if c.name in self.chains:
            return
        self.chains[c.name] = c
        if not self.record_commands:
            return
        parts = []
        if c.type:
            parts.append(f"type {c.type} hook {c.hook} priority {c.priority}")
        if c.comment:
            parts.append(f'comment "{c.comment}"')
        spec = (" { " + " ; ".join(parts) + " ; }") if parts else ""
        self.commands.append(f"add chain {self._prefix} {c.name}{spec}")

    def add_rule(self, chain: str, rule: str, comment: str | None = None) -> None:
        """``add rule`` to an existing chain, with an optional comment."""
        self.chains[chain].rules.append((rule, comment))
        if not self.record_commands:
            return
        text = f"add rule {self._prefix} {chain} {rule}"
        if comment:
            text += f' comment "{comment}"'
        self.commands.append(text)

    def add_element(self, name: str, key: Sequence[str], value: str | None = None, comment: str | None = None) -> None:
        """``add element`` (once per key, as ``nftElementStorage.ensureElem``)."""
        s = self.sets[name]
        key = tuple(str(k) for k in key)
        if key in self._keys[name]:
            return
        self._keys[name].add(key)
        s.elements.append((key, value, comment))
        if not self.record_commands:
            return
        text = " . ".join(key)
        if comment:
            text += f' comment "{comment}"'
        if value is not None:
            text += f" : {value}"
        self.commands.append(f"add element {self._prefix} {name} {{ {text} }}")


def _mark(bit: int) -> str:
    """The masquerade mark as kube-proxy formats it (Go's ``%#08x``: ``0x004000`` for bit 14)."""
    return format(1 << bit, "#08x")


def kube_proxy_table(state: ProxyState, *, masquerade_all: bool = False,
                     service_cidrs: Sequence[str] | None = None,
                     nodeport_addresses: Sequence[str] | None = None,
                     masquerade_bit: int = DEFAULT_MASQUERADE_BIT, record_commands: bool = True,
                     local_detector: LocalTrafficDetector | None = None) -> NFTTable:
    """Build the ``kube-proxy`` table a first full sync of the nftables proxier writes.

    Parameters
    ----------
    state : ProxyState
    masquerade_all : bool
        ``--masquerade-all``: SNAT every packet to a cluster IP.
    service_cidrs : sequence of str, optional
        The ServiceCIDRs (``--service-cluster-ip-range``); traffic to an
        unallocated address in them is dropped. Default ``10.96.0.0/12``
        (kubeadm's); ``()`` leaves the drop rule out.
    nodeport_addresses : sequence of str, optional
        ``nodePortAddresses``: None (the nftables default, ``primary``: the
        node's first IP), ``()`` or a ``/0`` CIDR for every local IP, or CIDRs.
    masquerade_bit : int
        ``--iptables-masquerade-bit`` (14: mark ``0x4000``).
    record_commands : bool
        Keep the ``add ...`` transaction in ``NFTTable.commands`` (off saves memory for listings).
    local_detector : LocalTrafficDetector, optional
        ``detectLocalMode``'s detector for this family; default: by ``state.cluster_cidr``
        (``ClusterCIDR`` mode), the no-op detector when that is unset.

    Returns
    -------
    NFTTable

    Notes
    -----
    Upstream iterates services in Go map order; here they are in
    ``state.services`` order (sorted by namespace and name). Only the first
    full sync is modelled (no partial syncs or stale-chain cleanup, and without
    the ``flush``/``delete`` commands, which change nothing on an empty table).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/nftables/proxier.go
    """
    from kubenotes.apiserver.ipallocator import DEFAULT_SERVICE_CIDR

    v6 = bool(state.node_ips) and ":" in state.node_ips[0]
    ipx = "ip6" if v6 else "ip"
    addr_type = "ipv6_addr" if v6 else "ipv4_addr"
    no_localhost = "ip6 daddr != ::1" if v6 else "ip daddr != 127.0.0.0/8"
    mark = _mark(masquerade_bit)
    cidrs = [c for c in (service_cidrs if service_cidrs is not None else (DEFAULT_SERVICE_CIDR,))
             if (":" in c) == v6]
    np_ips = node_port_ips(state.node_ips, [NODE_PORT_ADDRESSES_PRIMARY] if nodeport_addresses is None
                           else nodeport_addresses)
    if np_ips is not None:  # "--nodeport-addresses includes localhost but localhost NodePorts are not supported"
        np_ips = [ip for ip in np_ips if ip not in ("127.0.0.1", "::1")]
    if local_detector is None:
        local_detector = LocalTrafficDetector.for_family("ClusterCIDR", 6 if v6 else 4,
                                                         cluster_cidrs=(state.cluster_cidr or "").split(","))

    t = NFTTable(family=ipx, record_commands=record_commands)
    t.commands.append(f'add table {ipx} {KUBE_PROXY_TABLE} {{ comment "{TABLE_COMMENT}" ; }}')
    # setupNFTables
    for name, ctype, hook, prio in _BASE_CHAINS:
        t.add_chain(NFTChain(name, ctype, hook, prio))
    for dst, src, extra in _JUMP_CHAINS:
        t.add_chain(NFTChain(dst))
        t.add_rule(src, f"{extra} jump {dst}".strip())
    for name in (SERVICES_CHAIN, CLUSTER_IPS_CHECK, MASQUERADING_CHAIN, MARK_MASQ_CHAIN):
        t.add_chain(NFTChain(name))
    t.add_rule(MARK_MASQ_CHAIN, f"mark set mark or {mark}")
    t.add_rule(MASQUERADING_CHAIN, f"mark and {mark} == 0 return")
    t.add_rule(MASQUERADING_CHAIN, f"mark set mark xor {mark}")
    t.add_rule(MASQUERADING_CHAIN, "masquerade fully-random")
    t.add_set(NFTSet(CLUSTER_IPS_SET, addr_type, comment=CLUSTER_IPS_COMMENT))
    t.add_rule(CLUSTER_IPS_CHECK, f"{ipx} daddr @{CLUSTER_IPS_SET} reject", REJECT_INVALID_PORTS_COMMENT)
    if cidrs:
        t.add_rule(CLUSTER_IPS_CHECK, f"{ipx} daddr {{ {','.join(cidrs)} }} drop", DROP_UNALLOCATED_COMMENT)
    if np_ips is not None:
        t.add_set(NFTSet(NODEPORT_IPS_SET, addr_type, comment=NODEPORT_IPS_COMMENT))
        for ip in np_ips:
            t.add_element(NODEPORT_IPS_SET, [ip])
    t.add_set(NFTSet(NO_ENDPOINT_SERVICES_MAP, f"{addr_type} . inet_proto . inet_service : verdict", is_map=True,
                     comment=NO_ENDPOINT_SERVICES_COMMENT))
    t.add_set(NFTSet(NO_ENDPOINT_NODEPORTS_MAP, "inet_proto . inet_service : verdict", is_map=True,
                     comment=NO_ENDPOINT_NODEPORTS_COMMENT))
    t.add_chain(NFTChain(REJECT_CHAIN, comment=REJECT_CHAIN_COMMENT))
    t.add_rule(REJECT_CHAIN, "reject")
    t.add_rule(SERVICE_ENDPOINTS_CHECK, f"{ipx} daddr . meta l4proto . th dport vmap @{NO_ENDPOINT_SERVICES_MAP}")
    np_match = no_localhost if np_ips is None else f"{ipx} daddr @{NODEPORT_IPS_SET}"
    t.add_rule(NODEPORT_ENDPOINTS_CHECK, f"{np_match} meta l4proto . th dport vmap @{NO_ENDPOINT_NODEPORTS_MAP}")
    t.add_set(NFTSet(FIREWALL_IPS_MAP, f"{addr_type} . inet_proto . inet_service : verdict", is_map=True,
                     comment=FIREWALL_IPS_COMMENT))
    t.add_rule(FIREWALL_CHECK, f"{ipx} daddr . meta l4proto . th dport vmap @{FIREWALL_IPS_MAP}")
    t.add_set(NFTSet(SERVICE_IPS_MAP, f"{addr_type} . inet_proto . inet_service : verdict", is_map=True,
                     comment=SERVICE_IPS_COMMENT))
    t.add_set(NFTSet(SERVICE_NODEPORTS_MAP, "inet_proto . inet_service : verdict", is_map=True,
                     comment=SERVICE_NODEPORTS_COMMENT))
    t.add_rule(SERVICES_CHAIN, f"{ipx} daddr . meta l4proto . th dport vmap @{SERVICE_IPS_MAP}")
    if np_ips is None:
        t.add_rule(SERVICES_CHAIN, f"fib daddr type local {no_localhost} meta l4proto . th dport "
                                   f"vmap @{SERVICE_NODEPORTS_MAP}")
    else:
        t.add_rule(SERVICES_CHAIN, f"{ipx} daddr @{NODEPORT_IPS_SET} meta l4proto . th dport "
                                   f"vmap @{SERVICE_NODEPORTS_MAP}")

    for spn, info in state.services.items():
        _sync_service(t, state, info, state.endpoints.get(spn, ()), ipx=ipx, addr_type=addr_type,
                      detector=local_detector, masquerade_all=masquerade_all)
    return t


def _sync_service(t: NFTTable, state: ProxyState, info: ServicePortInfo, endpoints: Sequence[EndpointInfo], *,
                  ipx: str, addr_type: str, detector: LocalTrafficDetector, masquerade_all: bool) -> None:
    """One iteration of ``syncProxyRules``'s per-service-port loop."""
    proto = info.protocol.lower()
    name_string = str(info.name)
    base = service_port_chain_name_base(info)
    cluster_chain, local_chain = "service-" + base, "local-" + base
    external_chain, fw_chain = "external-" + base, "firewall-" + base
    ep_chain = {e.endpoint(): "endpoint-" + service_port_endpoint_chain_name_base(info, e) for e in endpoints}
    affinity = {k: "affinity-" + v[len("endpoint-"):] for k, v in ep_chain.items()}

    cluster_eps, local_eps, all_reachable, has_endpoints = categorize_endpoints(
        endpoints, info, state.node_name, zone=state.node_zone)
    cluster_eps, local_eps, all_reachable = cluster_eps or [], local_eps or [], all_reachable or []
    for e in all_reachable:
        t.add_chain(NFTChain(ep_chain[e.endpoint()]))
    uses_cluster_chain = bool(cluster_eps) and info.uses_cluster_endpoints
    if uses_cluster_chain:
        t.add_chain(NFTChain(cluster_chain))
    uses_local_chain = bool(local_eps) and info.uses_local_endpoints
    if uses_local_chain:
        t.add_chain(NFTChain(local_chain))

    internal_chain, has_internal = cluster_chain, has_endpoints
    if info.internal_policy_local:
        internal_chain = local_chain
        has_internal = has_internal and bool(local_eps)
    external_policy_chain, has_external = cluster_chain, has_endpoints
    if info.external_policy_local:
        external_policy_chain = local_chain
        has_external = has_external and bool(local_eps)
    uses_external_chain = has_endpoints and info.externally_accessible
    if uses_external_chain:
        t.add_chain(NFTChain(external_chain))

    if not has_endpoints:
        internal_verdict = external_verdict = f"goto {REJECT_CHAIN}"
    else:
        internal_verdict = "" if has_internal else "drop"
        external_verdict = "" if has_external else "drop"

    port = str(info.port)
    t.add_element(CLUSTER_IPS_SET, [info.cluster_ip])
    if has_internal:
        t.add_element(SERVICE_IPS_MAP, [info.cluster_ip, proto, port], f"goto {internal_chain}")
    else:
        t.add_element(NO_ENDPOINT_SERVICES_MAP, [info.cluster_ip, proto, port], internal_verdict, name_string)
    for ip in info.external_ips:
        if has_endpoints:
            t.add_element(SERVICE_IPS_MAP, [ip, proto, port], f"goto {external_chain}")
        if not has_external:
            t.add_element(NO_ENDPOINT_SERVICES_MAP, [ip, proto, port], external_verdict, name_string)
    uses_fw_chain = bool(info.load_balancer_ips) and bool(info.load_balancer_source_ranges)
    if uses_fw_chain:
        t.add_chain(NFTChain(fw_chain))
    for ip in info.load_balancer_ips:
        if has_endpoints:
            t.add_element(SERVICE_IPS_MAP, [ip, proto, port], f"goto {external_chain}")
        if uses_fw_chain:
            t.add_element(FIREWALL_IPS_MAP, [ip, proto, port], f"goto {fw_chain}")
    if not has_external:
        for ip in info.load_balancer_ips:
            t.add_element(NO_ENDPOINT_SERVICES_MAP, [ip, proto, port], external_verdict, name_string)
    if info.node_port:
        if has_endpoints:
            t.add_element(SERVICE_NODEPORTS_MAP, [proto, str(info.node_port)], f"goto {external_chain}")
        if not has_external:
            t.add_element(NO_ENDPOINT_NODEPORTS_MAP, [proto, str(info.node_port)], external_verdict, name_string)

    if has_internal:
        # v1.34 (kubernetes/kubernetes#131492) matches the cluster IP only: a packet reaching this chain through
        # service-ips already matched its protocol and port, and one coming from an external chain never has it.
        if masquerade_all:
            t.add_rule(internal_chain, f"{ipx} daddr {info.cluster_ip} jump {MARK_MASQ_CHAIN}")
        elif detector.implemented:
            t.add_rule(internal_chain, f"{ipx} daddr {info.cluster_ip} {' '.join(detector.if_not_local_nft)} "
                                       f"jump {MARK_MASQ_CHAIN}")
    if uses_external_chain:
        if not info.external_policy_local:
            t.add_rule(external_chain, f"jump {MARK_MASQ_CHAIN}")
        else:
            if detector.implemented:
                t.add_rule(external_chain, f"{' '.join(detector.if_local_nft)} goto {cluster_chain}",
                           SHORT_CIRCUIT_POD_COMMENT)
            t.add_rule(external_chain, f"fib saddr type local jump {MARK_MASQ_CHAIN}", MASQUERADE_LOCAL_COMMENT)
            t.add_rule(external_chain, f"fib saddr type local goto {cluster_chain}", SHORT_CIRCUIT_LOCAL_COMMENT)
        if has_external:
            t.add_rule(external_chain, f"goto {external_policy_chain}")
    if uses_fw_chain:
        sources = list(info.load_balancer_source_ranges)
        node_ip = state.node_ips[0] if state.node_ips else None
        if node_ip and any(ipaddress.ip_address(node_ip) in ipaddress.ip_network(c, strict=False) for c in sources):
            sources += list(info.load_balancer_ips)
        t.add_rule(fw_chain, f"{ipx} saddr != {{ {' , '.join(sources)} }} drop")
    if info.session_affinity_client_ip:
        for e in all_reachable:
            t.add_set(NFTSet(affinity[e.endpoint()], addr_type, flags=("dynamic", "timeout"),
                             timeout_seconds=info.session_affinity_timeout_seconds))
    if uses_cluster_chain:
        _write_service_to_endpoint_rules(t, info, cluster_chain, cluster_eps, ep_chain, affinity, ipx)
    if uses_local_chain:
        _write_service_to_endpoint_rules(t, info, local_chain, local_eps, ep_chain, affinity, ipx)
    for e in all_reachable:
        chain = ep_chain[e.endpoint()]
        t.add_rule(chain, f"{ipx} saddr {e.ip} jump {MARK_MASQ_CHAIN}")
        if info.session_affinity_client_ip:
            t.add_rule(chain, f"update @{affinity[e.endpoint()]} {{ {ipx} saddr }}")
        t.add_rule(chain, f"meta l4proto {proto} dnat to {e.endpoint()}")


def _write_service_to_endpoint_rules(t: NFTTable, info: ServicePortInfo, chain: str, endpoints: list[EndpointInfo],
                                     ep_chain: dict[str, str], affinity: dict[str, str], ipx: str) -> None:
    """``writeServiceToEndpointRules``: affinity rules, then the ``numgen random mod N vmap``."""
    if info.session_affinity_client_ip:
        for e in endpoints:
            t.add_rule(chain, f"{ipx} saddr @{affinity[e.endpoint()]} goto {ep_chain[e.endpoint()]}")
    elements = " , ".join(f"{i} : goto {ep_chain[e.endpoint()]}" for i, e in enumerate(endpoints))
    t.add_rule(chain, f"numgen random mod {len(endpoints)} vmap {{ {elements} }}")


# ---------------------------------------------------------------------------
# Printing


def nft_transaction(state: ProxyState, **kwargs) -> str:
    """The ``add ...`` commands of kube-proxy's first full sync, one a line (input for ``nft -f``).

    Parameters
    ----------
    state : ProxyState
    **kwargs
        As :func:`kube_proxy_table`.

    Returns
    -------
    str

    Notes
    -----
    The ``flush`` and ``delete`` commands upstream also sends are left out:
    on an empty table they change nothing.

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ProxyState
    >>> print(nft_transaction(ProxyState("n1", ("192.168.0.2",), None, None, {}, {})).splitlines()[0])
    add table ip kube-proxy { comment "rules for kube-proxy" ; }
    """
    return "\n".join(kube_proxy_table(state, **kwargs).commands) + "\n"


def _priority_name(hook: str, prio: int) -> str:
    for val, name, hooks in _STD_PRIOS:
        if abs(prio - val) <= 10 and (hooks is None or hook in hooks):
            off = prio - val
            return name if off == 0 else f"{name} {'+' if off > 0 else '-'} {abs(off)}"
    return str(prio)


def _duration(seconds: int) -> str:
    out = ""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            out += f"{seconds // size}{unit}"
            seconds %= size
    return out or "0s"


def _sort_key(part: str) -> tuple:
    try:
        net = ipaddress.ip_network(part, strict=False)
        return (0, net.version, int(net.network_address), net.prefixlen)
    except ValueError:
        pass
    return (1, 0, int(part), 0) if part.isdigit() else (2, 0, 0, part)


_IFNAME_RE = re.compile(r"\b(iifname|oifname)( != | )([^\s\"]+)")


def _list_rule(rule: str) -> str:
    """A rule as ``nft list`` prints it back (mark arithmetic spelt out, anonymous sets normalised,
    interface names quoted)."""
    if "ifname " in rule:
        rule = _IFNAME_RE.sub(lambda m: f'{m.group(1)}{m.group(2)}"{m.group(3)}"', rule)
    if "{" not in rule and not rule.startswith("mark "):
        return rule
    words = rule.split(" ")
    if rule.startswith("mark "):
        hexval = next(w for w in words if w.startswith("0x"))
        mark = "0x" + format(int(hexval, 16), "08x")
        if words[1] == "set":
            op = "|" if words[3] == "or" else "^"
            return f"meta mark set meta mark {op} {mark}"
        return f"meta mark & {mark} == 0x00000000 " + " ".join(words[5:])
    if " { " in rule and " vmap { " not in rule and "update @" not in rule:
        head, _, rest = rule.partition("{ ")
        inner, _, tail = rest.partition(" }")
        items = sorted((x.strip() for x in inner.replace(" , ", ",").split(",")), key=_sort_key)
        body = items[0] if len(items) == 1 else "{ " + ", ".join(items) + " }"
        return f"{head}{body}{tail}"
    return rule.replace(" , ", ", ")


def _part_bytes(part: str) -> bytes:
    """The bytes of one key part in its register (addresses and ports in network order, protocol one byte)."""
    try:
        return ipaddress.ip_address(part).packed
    except ValueError:
        pass
    if part.isdigit():
        return int(part).to_bytes(2, "big")
    return bytes([{"tcp": 6, "udp": 17, "sctp": 132}.get(part, 0)])


def _element_order(key: tuple[str, ...]) -> int:
    """nft's listing order (mergesort.c): a value by its number, a concatenation by its bytes read little-endian."""
    if len(key) == 1:
        return int.from_bytes(_part_bytes(key[0]), "big")
    return int.from_bytes(b"".join(_part_bytes(p) for p in key), "little")


def _elements(s: NFTSet) -> str:
    items = []
    for k, v, c in sorted(s.elements, key=lambda e: _element_order(e[0])):
        text = " . ".join(k)
        if c:
            text += f' comment "{c}"'
        if v is not None:
            text += f" : {v}"
        items.append(text)
    newline = s.is_map or s.timeout_seconds is not None or any(c for _, _, c in s.elements) or " . " in s.type
    per_line = 1 if newline else (2 if s.type in ("ipv4_addr", "ipv6_addr") else 16)
    out = "{ "
    for i, item in enumerate(items):
        if i:
            out += ",\n\t\t\t     " if i % per_line == 0 else ", "
        out += item
    return out + " }"


def nft_list_table(state: ProxyState, **kwargs) -> str:
    """What ``nft list table ip kube-proxy`` prints on the node after kube-proxy's first sync.

    Parameters
    ----------
    state : ProxyState
    **kwargs
        As :func:`kube_proxy_table` (``masquerade_all``, ``service_cidrs``,
        ``nodeport_addresses``, ``masquerade_bit``).

    Returns
    -------
    str
        The listing: the table comment, sets and maps in creation order, then
        chains in creation order, as nft 1.0 formats them (mark expressions
        as ``meta mark ...``, standard priority names such as
        ``dstnat - 10`` where nft uses them, durations such as ``3h``).

    Notes
    -----
    Elements of a set are listed sorted (nft prints them in the kernel's
    hash order, which varies); service chains come in ``state.services``
    order (upstream's Go map order varies too).

    See Also
    --------
    nft_transaction : the commands that build this table.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/nftables/proxier.go
    https://wiki.nftables.org/wiki-nftables/index.php/Configuring_chains

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import proxy_state
    >>> objs = [{"kind": "Node", "metadata": {"name": "n1"},
    ...          "status": {"addresses": [{"type": "InternalIP", "address": "192.168.0.2"}]}},
    ...         {"kind": "Service", "metadata": {"name": "svc1", "namespace": "ns1"},
    ...          "spec": {"clusterIP": "172.30.0.41", "ports": [{"name": "p80", "port": 80, "protocol": "TCP"}]}},
    ...         {"kind": "EndpointSlice", "metadata": {"name": "s", "namespace": "ns1",
    ...                                                 "labels": {"kubernetes.io/service-name": "svc1"}},
    ...          "endpoints": [{"addresses": ["10.180.0.1"]}], "ports": [{"name": "p80", "port": 80}]}]
    >>> text = nft_list_table(proxy_state(objs, "n1"))
    >>> text.splitlines()[:2]
    ['table ip kube-proxy {', '\\tcomment "rules for kube-proxy"']
    >>> block = text[text.index("chain service-ULMVA6XW"):].split("\\n\\t}")[0]
    >>> [line.strip() for line in block.splitlines()]
    ['chain service-ULMVA6XW-ns1/svc1/tcp/p80 {', 'numgen random mod 1 vmap { 0 : goto endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 }']
    """
    t = kube_proxy_table(state, record_commands=False, **kwargs)
    blocks = []
    for s in t.sets.values():
        lines = [f"\t{'map' if s.is_map else 'set'} {s.name} {{", f"\t\ttype {s.type}"]
        if "dynamic" in s.flags:
            lines.append("\t\tsize 65535")  # nft's default size of a set an "update" statement fills
        if s.flags:
            lines.append("\t\tflags " + ",".join(s.flags))
        if s.timeout_seconds is not None:
            lines.append(f"\t\ttimeout {_duration(s.timeout_seconds)}")
        if s.comment:
            lines.append(f'\t\tcomment "{s.comment}"')
        if s.elements:
            lines.append(f"\t\telements = {_elements(s)}")
        lines.append("\t}")
        blocks.append("\n".join(lines))
    for c in t.chains.values():
        lines = [f"\tchain {c.name} {{"]
        if c.type:
            lines.append(f"\t\ttype {c.type} hook {c.hook} priority {_priority_name(c.hook, c.priority)}; "
                         "policy accept;")
        if c.comment:
            lines.append(f'\t\tcomment "{c.comment}"')
        for rule, comment in c.rules:
            lines.append("\t\t" + _list_rule(rule) + (f' comment "{comment}"' if comment else ""))
        lines.append("\t}")
        blocks.append("\n".join(lines))
    return f"table {t.family} {t.name} {{\n\tcomment \"{t.comment}\"\n" + "\n\n".join(blocks) + "\n}\n"
