"""Calico's rule model for a Kubernetes NetworkPolicy: the rules and IP sets Felix programs, and what they match.

One Kubernetes rule becomes one Calico rule per (protocol, peer), as
libcalico-go's ``K8sNetworkPolicyToCalico`` converts it (ports grouped by
protocol, protocols sorted, ``SimplifyPorts`` merging adjacent numbers); the
syncer's update processor turns each peer into one selector expression
(the peer's namespace, or its ``namespaceSelector`` with labels prefixed
``pcns.``, and'ed with its pod selector); Felix's rule scanner then gives
each selector an IP set whose id is ``s:`` and the SHA-224 of the
selector's canonical text (``MakeUniqueID``), each named port an
``ip,port`` IP set (id ``n:...``), and keeps CIDRs and numeric ports in the
rule. :class:`FelixRule` is that rule (``proto.Rule``); :meth:`FelixRule.matches`
is what its iptables rendering matches, so the verdict
(:mod:`kubenotes.cni.calico.policy`) and the text
(:mod:`kubenotes.cni.calico.iptables`) read the same objects.

A selector IP set holds the addresses of the pods it selects (Felix writes
them as ``/32`` members of a ``hash:net`` set named ``cali40`` + the id, cut
to 31 characters); a named-port set holds ``ip,proto:port`` of every pod
that declares the port under that name.

Notes
-----
Simplified: only what Kubernetes NetworkPolicies produce (no Calico
NetworkPolicy fields such as ``notSelector``, service accounts, ICMP,
``deny``/``pass``/``log`` actions, service matches); IPv4 rendering
(rules whose CIDRs are all IPv6 are left out, as ``FilterRuleToIPVersion``
does for the IPv4 table). The pods' host endpoints and Calico-only labels
(``projectcalico.org/serviceaccount`` and so on) are not modelled.

References
----------
projectcalico/calico@v3.30.0 libcalico-go/lib/backend/k8s/conversion/conversion.go (K8sNetworkPolicyToCalico,
k8sSelectorToCalico, k8sRuleToCalico, SimplifyPorts)
projectcalico/calico@v3.30.0 libcalico-go/lib/backend/syncersv1/updateprocessors/rules.go (getEndpointSelector)
projectcalico/calico@v3.30.0 libcalico-go/lib/backend/syncersv1/updateprocessors/networkpolicyprocessor.go
projectcalico/calico@v3.30.0 libcalico-go/lib/selector/parser/ast.go (String, UniqueID), lib/hash/unique_id.go
projectcalico/calico@v3.30.0 felix/calc/rule_scanner.go (IPSetData.UniqueID, named-port IP sets)
projectcalico/calico@v3.30.0 felix/ipsets/ipset_defs.go (NameForMainIPSet, MaxIPSetNameLength)
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from kubenotes.api.selectors import LabelSelector
from kubenotes.api.validation import parse_cidr_sloppy, parse_ip_sloppy

__all__ = [
    "LABEL_NAMESPACE",
    "LABEL_ORCHESTRATOR",
    "NAMESPACE_LABEL_PREFIX",
    "IPSET_MAIN_PREFIX_V4",
    "MAX_IPSET_NAME_LENGTH",
    "make_unique_id",
    "k8s_selector_to_calico",
    "peer_selector",
    "policy_selector",
    "IPSet",
    "FelixRule",
    "k8s_rules_to_felix",
]

#: ``apiv3.LabelNamespace``: the label Calico gives every workload endpoint (its namespace).
LABEL_NAMESPACE = "projectcalico.org/namespace"
#: ``apiv3.LabelOrchestrator``: ``k8s`` on every pod's workload endpoint.
LABEL_ORCHESTRATOR = "projectcalico.org/orchestrator"
#: ``conversion.NamespaceLabelPrefix``: namespace labels as a workload endpoint sees them.
NAMESPACE_LABEL_PREFIX = "pcns."
#: ``cali`` + ``4`` (IPv4) + ``0`` (main, not temporary) set: ``IPVersionConfig.mainSetNamePrefix``.
IPSET_MAIN_PREFIX_V4 = "cali40"
#: ``ipsets.MaxIPSetNameLength``: the kernel's limit on IP set names.
MAX_IPSET_NAME_LENGTH = 31


def make_unique_id(prefix: str, content: str) -> str:
    """libcalico-go's ``MakeUniqueID``: ``prefix:`` and the SHA-224 of ``prefix:content``, URL-safe base64, unpadded.

    Parameters
    ----------
    prefix : str
        ``s`` (selector IP set), ``n`` (named-port IP set).
    content : str
        The canonical selector text (or, for ``n``, ``<selector id>,<protocol>,<port name>``).

    Returns
    -------
    str
        40 characters for ``s``/``n``; Felix's IP set name is ``cali40`` + its first 25.

    See Also
    --------
    IPSet.name

    Examples
    --------
    >>> make_unique_id("s", "all()")[:10], len(make_unique_id("s", "all()"))
    ('s:5y5I3VdR', 40)
    """
    digest = hashlib.sha224(f"{prefix}:{content}".encode()).digest()
    return f"{prefix}:" + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _quote(value: str) -> str:
    # the parser's String() uses double quotes unless the value holds one
    return f"'{value}'" if '"' in value else f'"{value}"'


def _and(terms: Sequence[str]) -> str:
    """An ``AndNode``'s text: its operands in parentheses (one operand stays bare, as the parser keeps it)."""
    return terms[0] if len(terms) == 1 else "(" + " && ".join(terms) + ")"


def _selector_terms(selector: Mapping[str, Any] | None, pod: bool, label_prefix: str = "") -> list[str]:
    """``k8sSelectorToCalico`` then the parser's canonical text, one string per ``&&`` operand."""
    terms = [f"{LABEL_ORCHESTRATOR} == {_quote('k8s')}"] if pod else []
    if selector is None:
        return terms
    labels = selector.get("matchLabels") or {}
    for k in sorted(labels):
        terms.append(f"{label_prefix}{k} == {_quote(str(labels[k]))}")
    for e in selector.get("matchExpressions") or ():
        key, op = label_prefix + e.get("key", ""), e.get("operator")
        values = ", ".join(_quote(v) for v in sorted(set(e.get("values") or ())))  # ConvertToStringSetInPlace
        if op == "In":
            terms.append(f"{key} in {{{values}}}")
        elif op == "NotIn":
            terms.append(f"{key} not in {{{values}}}")
        elif op == "Exists":
            terms.append(f"has({key})")
        elif op == "DoesNotExist":
            terms.append(f"!has({key})")
    return terms


def k8s_selector_to_calico(selector: Mapping[str, Any] | None, pod: bool = True) -> str:
    """A Kubernetes label selector as Calico's canonical selector text.

    A pod selector starts with ``projectcalico.org/orchestrator == "k8s"``; an
    empty namespace selector is ``all()`` (every namespace).

    Parameters
    ----------
    selector : dict or None
        ``matchLabels`` (sorted by key) and ``matchExpressions`` (in order).
    pod : bool
        True for a pod selector, False for a namespace selector.

    Returns
    -------
    str
        As the selector parser's ``String()`` writes it: ``&&`` operands in
        parentheses, values double-quoted, set literals sorted and deduplicated.

    Examples
    --------
    >>> k8s_selector_to_calico({"matchLabels": {"role": "client"}})
    '(projectcalico.org/orchestrator == "k8s" && role == "client")'
    >>> k8s_selector_to_calico({"matchExpressions": [{"key": "env", "operator": "In", "values": ["b", "a"]}]}, pod=False)
    'env in {"a", "b"}'
    """
    terms = _selector_terms(selector, pod)
    return _and(terms) if terms else "all()"


def _namespace_selector(ns_selector: Mapping[str, Any]) -> str:
    """``parseSelectorAttachPrefix(nsSel, "pcns.")`` with ``all()`` read as "any namespace"."""
    terms = _selector_terms(ns_selector, False, NAMESPACE_LABEL_PREFIX)
    return _and(terms) if terms else f"has({LABEL_NAMESPACE})"


def peer_selector(peer: Mapping[str, Any], namespace: str) -> str:
    """The selector of a pod/namespace peer once ``getEndpointSelector`` scoped it (canonical text).

    Parameters
    ----------
    peer : dict
        A NetworkPolicyPeer with ``podSelector`` and/or ``namespaceSelector`` (not ``ipBlock``).
    namespace : str
        The policy's namespace: where a peer without ``namespaceSelector`` looks.

    Returns
    -------
    str
        ``(<namespace part> && <pod part>)``; its :func:`make_unique_id` ``s`` id names the IP set.

    Examples
    --------
    >>> peer_selector({"podSelector": {}}, "default")
    '(projectcalico.org/namespace == "default" && projectcalico.org/orchestrator == "k8s")'
    >>> peer_selector({"namespaceSelector": {"matchLabels": {"team": "a"}}}, "default")
    '(pcns.team == "a" && projectcalico.org/orchestrator == "k8s")'
    """
    ns_sel = peer.get("namespaceSelector")
    ns_text = (_namespace_selector(ns_sel) if ns_sel is not None
               else f"{LABEL_NAMESPACE} == {_quote(namespace)}")
    return "(" + ns_text + " && " + _and(_selector_terms(peer.get("podSelector"), True)) + ")"


def policy_selector(pod_selector: Mapping[str, Any] | None, namespace: str) -> str:
    """A Kubernetes policy's selector as Felix holds it: ``(podSelector) && projectcalico.org/namespace == ns``, normalised.

    Felix groups consecutive policies with the same selector into one ``cali-gi-``/``cali-go-`` chain.

    Parameters
    ----------
    pod_selector : dict or None
        ``spec.podSelector``.
    namespace : str

    Returns
    -------
    str

    Examples
    --------
    >>> policy_selector({"matchLabels": {"app": "web"}}, "default")
    '((projectcalico.org/orchestrator == "k8s" && app == "web") && projectcalico.org/namespace == "default")'
    """
    return ("(" + _and(_selector_terms(pod_selector or {}, True)) + " && "
            + f"{LABEL_NAMESPACE} == {_quote(namespace)})")


@dataclass(frozen=True)
class IPSet:
    """One of Felix's IP sets: the pods a selector picks, or their ``ip,port`` for a named port.

    Attributes
    ----------
    set_id : str
        ``s:<sha224>`` (selector) or ``n:<sha224>`` (named port), :func:`make_unique_id`.
    selector : str
        Canonical Calico selector text.
    named_port : tuple of (str, str) or None
        ``(protocol, name)`` (``("tcp", "http")``) for an ``ip,port`` set.
    pods, namespaces : LabelSelector or None
        The Kubernetes selectors it was made from (None: any pod / the policy's namespace, see ``namespace``).
    namespace : str
        The policy's namespace when ``namespaces`` is None; empty for "every namespace".
    """

    set_id: str
    selector: str
    named_port: tuple[str, str] | None
    pods: LabelSelector | None
    namespaces: LabelSelector | None
    namespace: str

    @property
    def name(self) -> str:
        """The kernel name: ``cali40`` + the id, cut to 31 characters (``NameForMainIPSet``)."""
        return (IPSET_MAIN_PREFIX_V4 + self.set_id)[:MAX_IPSET_NAME_LENGTH]

    @property
    def ipset_type(self) -> str:
        """``hash:net`` for a selector set, ``hash:ip,port`` for a named port."""
        return "hash:ip,port" if self.named_port else "hash:net"

    def selects(self, ep: Any, ns_labels: Callable[[str], Mapping[str, str]]) -> bool:
        """Whether pod endpoint ``ep`` (namespace, labels) is one this set's selector picks.

        Parameters
        ----------
        ep : kubenotes.cni.calico.policy.Endpoint
            An address that is no pod is in no selector set.
        ns_labels : callable
            Namespace name -> its labels (:meth:`kubenotes.cni.calico.policy.PolicySet.ns_labels`).

        Returns
        -------
        bool
        """
        if not getattr(ep, "is_pod", False):
            return False
        if self.namespaces is not None:
            if not self.namespaces.matches(ns_labels(ep.namespace)):
                return False
        elif self.namespace and ep.namespace != self.namespace:
            return False
        return self.pods is None or self.pods.matches(ep.labels)

    def members(self, ep: Any, ns_labels: Callable[[str], Mapping[str, str]]) -> list[str]:
        """The set members ``ep`` contributes: ``ip/32``, or ``ip,proto:port`` per matching named port."""
        if not self.selects(ep, ns_labels):
            return []
        if self.named_port is None:
            return [f"{ep.ip}/32"]
        proto, name = self.named_port
        return [f"{ep.ip},{p.lower()}:{n}" for pname, p, n in ep.ports if pname == name and p.lower() == proto]

    def contains_port(self, ep: Any, protocol: str, port: int,
                      ns_labels: Callable[[str], Mapping[str, str]]) -> bool:
        """Whether ``ep``'s ``ip,protocol:port`` is a member (named-port sets)."""
        return f"{ep.ip},{protocol.lower()}:{port}" in self.members(ep, ns_labels)


@dataclass(frozen=True)
class FelixRule:
    """One Calico rule (``proto.Rule``) from a Kubernetes NetworkPolicy rule, all ``allow``.

    Attributes
    ----------
    k8s_index : int
        Index of the Kubernetes rule (``spec.ingress[i]``/``spec.egress[i]``) it came from.
    protocol : str or None
        ``tcp``, ``udp``, ``sctp`` (lower case, as Felix writes ``-p``), None for every protocol.
    src_nets, not_src_nets, dst_nets, not_dst_nets : tuple of str
        CIDRs (``ipBlock.cidr`` and its ``except``).
    src_ipsets, dst_ipsets : tuple of IPSet
        Selector sets the source/destination must be in.
    dst_ports : tuple of (int, int)
        Numeric port ranges (first, last).
    dst_named_port_ipsets : tuple of IPSet
        Named ports (``ip,port`` sets): the destination must be in one of them or in ``dst_ports``.
    """

    k8s_index: int
    protocol: str | None = None
    src_nets: tuple[str, ...] = ()
    not_src_nets: tuple[str, ...] = ()
    dst_nets: tuple[str, ...] = ()
    not_dst_nets: tuple[str, ...] = ()
    src_ipsets: tuple[IPSet, ...] = ()
    dst_ipsets: tuple[IPSet, ...] = ()
    dst_ports: tuple[tuple[int, int], ...] = ()
    dst_named_port_ipsets: tuple[IPSet, ...] = ()
    action: str = "allow"

    def ipsets(self) -> tuple[IPSet, ...]:
        """Every IP set the rule references."""
        return self.src_ipsets + self.dst_ipsets + self.dst_named_port_ipsets

    def matches(self, src: Any, dst: Any, protocol: str, port: int,
                ns_labels: Callable[[str], Mapping[str, str]]) -> bool:
        """Whether a new flow ``src`` -> ``dst:port`` matches the rule, as its iptables rules do.

        Parameters
        ----------
        src, dst : kubenotes.cni.calico.policy.Endpoint
            ``ip``, ``namespace``, ``labels``, ``ports``, ``is_pod`` are read.
        protocol : str
            ``TCP``, ``UDP`` or ``SCTP`` (any case).
        port : int
            Destination port.
        ns_labels : callable
            Namespace name -> its labels.

        Returns
        -------
        bool
            Every criterion holds: protocol, CIDRs (none of the ``except``),
            selector sets, and a port range or a named-port set.

        Examples
        --------
        >>> from kubenotes.cni.calico.policy import Endpoint
        >>> r = FelixRule(0, "tcp", src_nets=("10.0.0.0/8",), not_src_nets=("10.1.0.0/16",), dst_ports=((80, 81),))
        >>> dst = Endpoint("192.168.0.2", "default", "web")
        >>> [r.matches(Endpoint(ip), dst, "TCP", 81, lambda ns: {}) for ip in ("10.2.0.1", "10.1.0.1")]
        [True, False]
        """
        if self.protocol is not None and self.protocol != protocol.lower():
            return False
        src_ip, dst_ip = parse_ip_sloppy(src.ip), parse_ip_sloppy(dst.ip)
        for ip, nets, negated in ((src_ip, self.src_nets, self.not_src_nets), (dst_ip, self.dst_nets, self.not_dst_nets)):
            if nets and not _in_any(ip, nets):
                return False
            if negated and _in_any(ip, negated):
                return False
        if not all(s.selects(src, ns_labels) for s in self.src_ipsets):
            return False
        if not all(s.selects(dst, ns_labels) for s in self.dst_ipsets):
            return False
        if self.dst_ports or self.dst_named_port_ipsets:
            return (any(lo <= port <= hi for lo, hi in self.dst_ports)
                    or any(s.contains_port(dst, protocol, port, ns_labels) for s in self.dst_named_port_ipsets))
        return True


def _in_any(ip: Any, nets: Iterable[str]) -> bool:
    if ip is None:
        return False
    return any(ip.version == n.version and ip in n for n in (ipaddress.ip_network(x) for x in nets))


def _selector_ipset(peer: Mapping[str, Any], namespace: str) -> IPSet:
    sel = peer_selector(peer, namespace)
    ps, ns = peer.get("podSelector"), peer.get("namespaceSelector")
    return IPSet(make_unique_id("s", sel), sel, None,
                 LabelSelector.from_api(ps) if ps is not None else None,
                 LabelSelector.from_api(ns) if ns is not None else None, "" if ns is not None else namespace)


#: ``AllSelector``: the positive selector of a named port with no other destination selector.
_ALL = "all()"


def _named_port_ipset(base: IPSet | None, protocol: str, name: str) -> IPSet:
    sel_text = base.selector if base is not None else _ALL
    set_id = make_unique_id("n", f"{make_unique_id('s', sel_text)},{protocol},{name}")
    if base is None:
        return IPSet(set_id, sel_text, (protocol, name), None, None, "")
    return IPSet(set_id, sel_text, (protocol, name), base.pods, base.namespaces, base.namespace)


def _simplify_ports(ports: list) -> list:
    """``SimplifyPorts``: numeric ports merged into the fewest ranges, named ports passed through first."""
    if len(ports) <= 1:
        return ports
    named = [p for p in ports if isinstance(p, str)]
    numbers = sorted({n for p in ports if not isinstance(p, str) for n in range(p[0], p[1] + 1)})
    if len(numbers) <= 1:
        return ports
    out: list = list(named)
    lo = hi = numbers[0]
    for n in numbers[1:]:
        if n > hi + 1:
            out.append((lo, hi))
            lo = n
        hi = n
    out.append((lo, hi))
    return out


def _peer_nets(peer: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    ipb = peer.get("ipBlock") or {}
    cidr = parse_cidr_sloppy(ipb.get("cidr") or "")
    if cidr is None:
        return None
    excepts = tuple(str(n) for n in (parse_cidr_sloppy(e) for e in ipb.get("except") or ()) if n is not None)
    return (str(cidr),), excepts


def k8s_rules_to_felix(rules: Sequence[Mapping[str, Any]] | None, namespace: str, ingress: bool) -> tuple[FelixRule, ...]:
    """A policy's ``spec.ingress`` (or ``spec.egress``) as Felix's rules, in order.

    Parameters
    ----------
    rules : list of dict
        The Kubernetes rules (``from``/``to``, ``ports``).
    namespace : str
        The policy's namespace (a pod selector alone stays in it).
    ingress : bool
        True for ``spec.ingress`` (peers are sources), False for egress (peers are destinations).

    Returns
    -------
    tuple of FelixRule
        One per (protocol, peer) of each Kubernetes rule; an ``ipBlock`` whose
        ``cidr`` does not parse (the API server refuses it) gives no rule.

    Examples
    --------
    >>> r, = k8s_rules_to_felix([{"from": [{"podSelector": {"matchLabels": {"role": "client"}}}],
    ...                           "ports": [{"port": 8080}, {"port": 8081}]}], "default", True)
    >>> r.protocol, r.dst_ports, r.src_ipsets[0].name
    ('tcp', ((8080, 8081),), 'cali40s:eQYdVhGOo8UPEPLlbaVTcnI')
    >>> [x.protocol for x in k8s_rules_to_felix([{"ports": [{"protocol": "UDP", "port": 53},
    ...                                                   {"protocol": "TCP", "port": 53}]}], "default", False)]
    ['tcp', 'udp']
    """
    out: list[FelixRule] = []
    for idx, rule in enumerate(rules or ()):
        peers = list(rule.get("from" if ingress else "to") or ()) or [None]
        by_proto: dict[str, list | None] = {}
        for port in rule.get("ports") or ():
            proto = (port.get("protocol") or "TCP").lower()
            value = port.get("port")
            if value is None:
                by_proto[proto] = None  # every port of this protocol
                continue
            if isinstance(value, str) and not value.isdigit():
                entry: Any = value
            else:
                end = port.get("endPort")
                entry = (int(value), int(end) if end is not None else int(value))
            if proto not in by_proto:
                by_proto[proto] = [entry]
            elif by_proto[proto] is not None:
                by_proto[proto].append(entry)
        if not rule.get("ports"):
            by_proto = {"": None}
        for proto in sorted(by_proto):
            ports = _simplify_ports(list(by_proto[proto] or ()))
            numeric = tuple(p for p in ports if not isinstance(p, str))
            names = [p for p in ports if isinstance(p, str)]
            for peer in peers:
                nets: tuple[str, ...] = ()
                not_nets: tuple[str, ...] = ()
                sel: IPSet | None = None
                if peer is not None and peer.get("ipBlock") is not None:
                    parsed = _peer_nets(peer)
                    if parsed is None:
                        continue
                    nets, not_nets = parsed
                elif peer is not None:
                    sel = _selector_ipset(peer, namespace)
                # a named port names the destination's port: scoped by the destination selector (egress), else all()
                named = tuple(_named_port_ipset(None if ingress else sel, proto, n) for n in names)
                sets = (sel,) if sel is not None else ()
                if ingress:
                    out.append(FelixRule(idx, proto or None, src_nets=nets, not_src_nets=not_nets, src_ipsets=sets,
                                         dst_ports=numeric, dst_named_port_ipsets=named))
                else:
                    # the selector set is left out when named-port sets (filtered by it) cover every port
                    sets = sets if numeric or not names else ()
                    out.append(FelixRule(idx, proto or None, dst_nets=nets, not_dst_nets=not_nets, dst_ipsets=sets,
                                         dst_ports=numeric, dst_named_port_ipsets=named))
    return tuple(out)
