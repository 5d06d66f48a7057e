"""Felix's NetworkPolicy programming in nftables mode (``nftablesMode: Enabled``) as ``nft -f`` text.

Felix builds one set of rules (``generictables.Rule``: a match criteria, an
action, comments) and hands it to either dataplane; in nftables mode the
match and action builders of ``felix/nftables`` spell the same criteria as
nft expressions. This module does the same with the rules
:func:`kubenotes.cni.calico.iptables.felix_rules` already built (the policy
logic, the match blocks, the endpoint, group, profile and static chains
live there, once): each iptables match fragment is re-spelt as the
``nftMatch`` clause of the criterion that produced it (``-m mark --mark
0/0x10000`` is ``MarkClear`` is ``meta mark & 0x10000 == 0``), each action as
its ``ToFragment``, and the result is written as Felix's first sync writes it:

* one table ``ip calico`` for every layer; chains are namespaced by their
  layer (``filter-cali-FORWARD``, ``filter-cali-tw-<veth>``; jumps and gotos
  too); the table's fourteen base chains (:data:`BASE_CHAINS`: filter, nat,
  mangle and raw hooks; a NAT priority name on a hook nft does not accept
  it for is written as its number) are created empty, save ``filter-FORWARD`` (hook
  ``forward``, priority ``filter``), which holds the inserted jump and the
  appended accept rules;
* chain names are limited by nft's 256 characters, not iptables' 28, so
  policy and profile chains keep their full id (``filter-cali-pi-default/
  default/knp.default.allow-client``) where iptables hashes it;
* every rule with an action gets ``counter``; an empty rule is ``continue``;
  the comment is ``cali:<hash>;`` then the rule's comments, shell-unsafe
  characters replaced by ``_``, cut to 128 characters; the hash chains
  SHA-224 over the chain's name and each rendered rule, as for iptables;
* IP sets are nft sets named as the ipset with ``:`` made ``-``
  (``cali40s-...``): ``ipv4_addr`` with ``flags interval`` for a selector
  (members without ``/32``), ``ipv4_addr . inet_proto . inet_service`` for a
  named port (members ``ip . proto . port``); matches read them as ``ip saddr
  @set`` and ``ip daddr . meta l4proto . th dport @set``;
* workload dispatch is a verdict map per direction (``filter-cali-from-wl-dispatch``
  and ``filter-cali-to-wl-dispatch``, ``type ifname : verdict``, one ``goto``
  per workload interface) that the dispatch chain reads with ``iifname vmap``
  / ``oifname vmap`` before its ``Unknown interface`` drop; iptables mode's
  prefix tree of child chains does not exist here.

:func:`felix_nft_rules` renders API objects, :func:`nft_rules_from_felix`
re-spells rules already built, :meth:`NftRules.nft_transaction` gives the
text and :func:`check_nft` feeds it to the real ``nft -c -f`` in a
throwaway network namespace.

Notes
-----
Simplified as :mod:`kubenotes.cni.calico.iptables` (the filter table's
forward path, IPv4; no raw/mangle/nat layers, no other base chains), and
the mark bits are iptables mode's defaults (Felix allocates them from the
same ``IptablesMarkMask`` in both modes). Only the fragments that module
emits are re-spelt; an unknown one raises ``CalicoError`` rather than
pass through. Felix writes its transaction with knftables; the text follows
knftables' ``add`` syntax but not its exact quoting of every element.

References
----------
projectcalico/calico@v3.30.0 felix/nftables/match_builder.go (nftMatch clauses, PortRangesToMultiport, InInterfaceVMAP)
projectcalico/calico@v3.30.0 felix/nftables/actions.go (ToFragment of each action), felix/nftables/renderer.go
(renderRule: ``counter``, ``continue``; comment: ``cali:<hash>;``, 128 characters)
projectcalico/calico@v3.30.0 felix/nftables/table.go (baseChains, CalculateRuleHashes, Apply's order), table_layer.go
(namespaceName: ``<layer>-<chain>``)
projectcalico/calico@v3.30.0 felix/nftables/ipsets.go (LegalizeSetName, setType, interval flag, CanonicaliseMember),
maps.go (``ifname : verdict``), members.go
projectcalico/calico@v3.30.0 felix/rules/dispatch.go (buildSingleDispatchChainsVMAP, DispatchMappings),
felix/rules/policy.go (PolicyChainName with nftables.MaxChainNameLength), felix/dataplane/linux/int_dataplane.go
(table ``calico``, layers mangle/nat/raw/filter)
https://docs.tigera.io/calico/latest/operations/nftables (nftables data plane)
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from kubenotes.cni.calico.dataplane import CalicoError
from kubenotes.cni.calico.iptables import (CHAIN_FILTER_FORWARD, CHAIN_FROM_WORKLOAD_DISPATCH,
                                           CHAIN_TO_WORKLOAD_DISPATCH, DEFAULT_MARKS, HASH_LENGTH,
                                           PROFILE_INBOUND_PREFIX, PROFILE_OUTBOUND_PREFIX, RULE_HASH_PREFIX,
                                           Chain, FelixRules, IptRule, Marks, cluster_felix_rules, felix_rules)
from kubenotes.cni.calico.policy import DEFAULT_TIER, get_length_limited_id, policy_chain_name, PolicySet

__all__ = [
    "TABLE_NAME",
    "FILTER_LAYER",
    "BASE_CHAINS",
    "MAX_CHAIN_NAME_LENGTH",
    "COMMENT_LENGTH_MAX",
    "nft_match",
    "nft_action",
    "legalize_set_name",
    "NftRule",
    "NftRules",
    "nft_rule_hashes",
    "nft_rules_from_felix",
    "felix_nft_rules",
    "cluster_felix_nft_rules",
    "check_nft",
]

#: The one nftables table Felix programs (``NewTable("calico", 4, ...)``), family ``ip`` for IPv4.
TABLE_NAME = "calico"
#: The layer of the filter-table chains (``NewTableLayer("filter", ...)``): every chain name's prefix.
FILTER_LAYER = "filter"
#: ``nftables.MaxChainNameLength`` (knftables' ``NameLengthMax``).
MAX_CHAIN_NAME_LENGTH = 256
#: knftables' ``CommentLengthMax``.
COMMENT_LENGTH_MAX = 128
#: The workload-interface wildcard (``nftables.Wildcard``; iptables writes ``+``).
WILDCARD = "*"
#: ``baseChains``: (name, type, hook, priority) of every base chain Felix creates in its table, in
#: ``table_test.go``'s ``expectedBaseChains`` order; only ``filter-FORWARD`` gets rules here.
BASE_CHAINS = (
    ("filter-INPUT", "filter", "input", "filter"), ("filter-FORWARD", "filter", "forward", "filter"),
    ("filter-OUTPUT", "filter", "output", "filter"),
    ("nat-PREROUTING", "nat", "prerouting", "dstnat"), ("nat-INPUT", "nat", "input", "dstnat"),
    ("nat-OUTPUT", "nat", "output", "srcnat+10"), ("nat-POSTROUTING", "nat", "postrouting", "srcnat+10"),
    ("mangle-PREROUTING", "filter", "prerouting", "mangle"), ("mangle-INPUT", "filter", "input", "mangle"),
    ("mangle-FORWARD", "filter", "forward", "mangle"), ("mangle-OUTPUT", "route", "output", "mangle"),
    ("mangle-POSTROUTING", "filter", "postrouting", "mangle"),
    ("raw-PREROUTING", "filter", "prerouting", "raw"), ("raw-OUTPUT", "filter", "output", "raw"),
)
#: nft's named NAT priorities, and the hooks nft 1.0.6 accepts each name on (rule.c ``std_prios``).
_NAT_PRIORITIES = {"dstnat": (-100, ("prerouting", "output")), "srcnat": (100, ("postrouting", "input"))}
_SHELL_UNSAFE = re.compile(r"[^\w @%+=:,./-]")


def _priority(hook: str, prio: str) -> str:
    """A base chain's priority as nft accepts it: Felix's name, or its number on a hook the name is not for.

    Felix asks for ``dstnat`` on ``nat-INPUT`` and ``srcnat+10`` on ``nat-OUTPUT``; nft
    1.0.6 refuses those names on those hooks, so they are written as -100 and 110.

    Examples
    --------
    >>> _priority("prerouting", "dstnat"), _priority("input", "dstnat"), _priority("output", "srcnat+10")
    ('dstnat', '-100', '110')
    """
    name, _, offset = prio.partition("+")
    if name not in _NAT_PRIORITIES or hook in _NAT_PRIORITIES[name][1]:
        return prio
    return str(_NAT_PRIORITIES[name][0] + int(offset or 0))
_PROTO_NUMBERS = {"6": "tcp", "17": "udp", "132": "sctp"}
_POLICY_PREFIXES = ("cali-pi-", "cali-po-")


def legalize_set_name(name: str) -> str:
    """``LegalizeSetName``: an IP set's name with ``:`` replaced by ``-`` (nft set names cannot hold ``:``).

    Examples
    --------
    >>> legalize_set_name("cali40s:eQYdVhGOo8UPEPLlbaVTcnI")
    'cali40s-eQYdVhGOo8UPEPLlbaVTcnI'
    """
    return name.replace(":", "-")


def _ports(text: str) -> str:
    """``PortRangesToMultiport``: iptables' ``80,90:99`` as ``{ 80, 90-99 }``."""
    return "{ " + ", ".join(p.replace(":", "-") for p in text.split(",")) + " }"


def _mark_value(text: str) -> str:
    return "0" if text == "0" else f"{int(text, 16):#x}"


def _namespace(chain: str, layer: str = FILTER_LAYER) -> str:
    """``tableLayer.namespaceName``: ``<layer>-<chain>`` unless it already starts with the layer (or no layer)."""
    if not layer:
        return chain
    return chain if chain.startswith(layer) else f"{layer}-{chain}"


def nft_match(fragments: Sequence[str], layer: str = FILTER_LAYER) -> str:
    """The nft clauses of an iptables rule's match fragments (``nftMatch.Render`` for IPv4).

    Parameters
    ----------
    fragments : sequence of str
        As :mod:`kubenotes.cni.calico.iptables` builds them (one per match criterion).
    layer : str
        The table layer (only vmap matches name it).

    Returns
    -------
    str
        The clauses joined by spaces; empty for no fragment.

    Raises
    ------
    kubenotes.cni.calico.dataplane.CalicoError
        A fragment that is not one of Felix's criteria, or ports without a TCP/UDP/SCTP protocol.

    Examples
    --------
    >>> nft_match(["-p tcp", "-m set --match-set cali40s:abc src", "-m multiport --destination-ports 80,90:99"])
    'meta l4proto tcp ip saddr @cali40s-abc tcp dport { 80, 90-99 }'
    >>> nft_match(["-m mark --mark 0/0x400a"]), nft_match(["-m mark ! --mark 0/0x30000"])
    ('meta mark & 0x400a == 0', 'meta mark & 0x30000 != 0')
    """
    clauses: list[str] = []
    proto: str | None = None
    for frag in fragments:
        words = frag.split()
        neg = "!" in words
        words = [w for w in words if w != "!"]
        op = "!= " if neg else ""
        if words[0] == "-p":
            proto = words[1]
            clauses.append(f"meta l4proto {op}{proto}")
        elif words[0] in ("--source", "--destination"):
            clauses.append(f"ip {'saddr' if words[0] == '--source' else 'daddr'} {op}{words[1]}")
        elif words[:3] == ["-m", "set", "--match-set"]:
            name, kind = legalize_set_name(words[3]), words[4]
            if kind == "src":
                clauses.append(f"ip saddr {op}@{name}")
            elif kind == "dst":
                clauses.append(f"ip daddr {op}@{name}")
            elif kind == "dst,dst":
                clauses.append(f"ip daddr . meta l4proto . th dport {op}@{name}")
            else:
                raise CalicoError(f"nftables: no nft form for IP set match {frag!r}")
        elif words[:3] == ["-m", "multiport", "--destination-ports"]:
            transport = _PROTO_NUMBERS.get(proto or "", proto)
            if transport not in ("tcp", "udp", "sctp"):
                raise CalicoError(f"nftables: port match {frag!r} needs a TCP, UDP or SCTP protocol")
            clauses.append(f"{transport} dport {op}{_ports(words[3])}")
        elif words[:3] == ["-m", "mark", "--mark"]:
            value, mask = words[3].split("/")
            clauses.append(f"meta mark & {int(mask, 16):#x} {'!=' if neg else '=='} {_mark_value(value)}")
        elif words[:3] == ["-m", "conntrack", "--ctstate"]:
            clauses.append(f"ct state {op}{words[3].lower()}")
        elif words[0] in ("--in-interface", "--out-interface"):
            iface = words[1][:-1] + WILDCARD if words[1].endswith("+") else words[1]
            clauses.append(f"{'iifname' if words[0] == '--in-interface' else 'oifname'} {op}{iface}")
        else:
            raise CalicoError(f"nftables: no nft form for match {frag!r}")
    return " ".join(clauses)


def nft_action(action: str, layer: str = FILTER_LAYER, rename: Mapping[str, str] | None = None) -> str:
    """An iptables action as Felix's nftables action fragment (``ToFragment``), targets namespaced by the layer.

    Parameters
    ----------
    action : str
        ``--jump X``, ``--goto X``, ``--jump MARK --set-mark V/M``, ``--jump RETURN|ACCEPT|DROP``, or empty.
    layer : str
        The table layer whose name prefixes jump and goto targets (empty: none, as ``actions_test.go`` renders).
    rename : mapping, optional
        iptables chain name -> nft chain name before namespacing (policy and profile chains).

    Returns
    -------
    str

    Raises
    ------
    kubenotes.cni.calico.dataplane.CalicoError
        An action Felix's nftables renderer has no form for here.

    Examples
    --------
    >>> nft_action("--jump MARK --set-mark 0x10000/0x10000"), nft_action("--jump MARK --set-mark 0/0x30000")
    ('meta mark set mark or 0x10000', 'meta mark set mark & 0xfffcffff')
    >>> nft_action("--jump MARK --set-mark 0x80000/0x180000"), nft_action("--goto cali-fw-cali1")
    ('meta mark set mark & 0xffe7ffff ^ 0x80000', 'goto filter-cali-fw-cali1')
    """
    rename = rename or {}
    words = action.split()
    if not words:
        return ""
    if words[:3] == ["--jump", "MARK", "--set-mark"]:
        value, mask = words[3].split("/")
        m = int(mask, 16)
        if value == "0":  # ClearMark
            return f"meta mark set mark & {m ^ 0xffffffff:#x}"
        if int(value, 16) == m:  # SetMark
            return f"meta mark set mark or {m:#x}"
        return f"meta mark set mark & {m ^ 0xffffffff:#x} ^ {int(value, 16):#x}"  # SetMaskedMark
    if len(words) == 2 and words[0] == "--jump" and words[1] in ("RETURN", "ACCEPT", "DROP"):
        return {"RETURN": "return", "ACCEPT": "accept", "DROP": "drop"}[words[1]]
    if len(words) == 2 and words[0] in ("--jump", "--goto"):
        verb = "jump" if words[0] == "--jump" else "goto"
        return f"{verb} {_namespace(rename.get(words[1], words[1]), layer)}"
    raise CalicoError(f"nftables: no nft form for action {action!r}")


def _comment(hash_: str, comments: Sequence[str]) -> str | None:
    """``nftRenderer.comment``: ``cali:<hash>;`` then the comments, each cut to its share, all to 128."""
    fragments = [f"{RULE_HASH_PREFIX}{hash_};"] if hash_ else []
    if comments:
        per = (COMMENT_LENGTH_MAX - len(" ".join(fragments))) // len(comments)
        fragments += [_SHELL_UNSAFE.sub("_", c)[:per] for c in comments]
    text = " ".join(fragments)[:COMMENT_LENGTH_MAX]
    return text or None


@dataclass(frozen=True)
class NftRule:
    """One rule as knftables holds it: the rule text (no comment) and its comments.

    Attributes
    ----------
    rule : str
        Match clauses, ``counter`` and the action; ``continue`` for an empty rule.
    comments : tuple of str
        The rule's own comments (the hash goes in front when it is written).
    """

    rule: str
    comments: tuple[str, ...] = ()


def _render(r: IptRule, layer: str, rename: Mapping[str, str]) -> NftRule:
    """``nftRenderer.renderRule``: match, then ``counter`` and the action when there is one."""
    parts = []
    match = nft_match(r.match, layer)
    if match:
        parts.append(match)
    if r.action:
        parts += ["counter", nft_action(r.action, layer, rename)]
    return NftRule(" ".join(parts) or "continue", r.comments)


def nft_rule_hashes(chain: str, rules: Sequence[NftRule]) -> list[str]:
    """``RuleHashes`` with the nft renderer: SHA-224 chained from the chain's name over each rule's text.

    Parameters
    ----------
    chain : str
        The namespaced chain name (``filter-cali-FORWARD``; ``filter-FORWARD*appends*`` for appended rules).
    rules : sequence of NftRule

    Returns
    -------
    list of str
        16 characters of URL-safe base64 each.

    Examples
    --------
    >>> a = nft_rule_hashes("chain", [NftRule("foobar baz counter jump biff")])
    >>> b = nft_rule_hashes("chain", [NftRule("foobar baz counter jump biff"), NftRule("foobar baz counter jump boff")])
    >>> a[0] == b[0], a == nft_rule_hashes("chain2", [NftRule("foobar baz counter jump biff")]), len(a[0])
    (True, False, 16)
    """
    h = hashlib.sha224(chain.encode()).digest()
    out = []
    for r in rules:
        h = hashlib.sha224(h + r.rule.encode()).digest()
        out.append(base64.urlsafe_b64encode(h).decode().rstrip("=")[:HASH_LENGTH])
    return out


@dataclass
class NftRules:
    """Felix's ``ip calico`` table for NetworkPolicy on one node: chains, base-chain hooks, sets, dispatch maps.

    Attributes
    ----------
    chains : dict
        Namespaced chain name -> list of NftRule, in Felix's order (iptables mode's, dispatch children gone).
    forward_insert, forward_append : list of NftRule
        The base chain ``filter-FORWARD``'s inserted and appended rules.
    sets : dict
        Set name -> (nft type, flags, members as nft writes them).
    maps : dict
        Verdict map name -> {interface: verdict}.
    family, table : str
    """

    chains: dict[str, list[NftRule]]
    forward_insert: list[NftRule]
    forward_append: list[NftRule]
    sets: dict[str, tuple[str, tuple[str, ...], list[str]]]
    maps: dict[str, dict[str, str]]
    family: str = "ip"
    table: str = TABLE_NAME
    base_chain: str = field(default=f"{FILTER_LAYER}-FORWARD")

    @property
    def rule_count(self) -> int:
        """Rules in Felix's chains and in the base chain."""
        return sum(len(r) for r in self.chains.values()) + len(self.forward_insert) + len(self.forward_append)

    def nft_transaction(self) -> str:
        """The first sync's transaction as ``nft -f`` input: table, base chains, chains, sets, rules, map elements.

        Map elements come after the rules, as ``Apply`` adds them, since their
        ``goto`` names chains the same transaction adds.
        """
        p = f"{self.family} {self.table}"
        lines = [f"add table {p}"]
        lines += [f"add chain {p} {name} {{ type {kind} hook {hook} priority {_priority(hook, prio)} ; }}"
                  for name, kind, hook, prio in BASE_CHAINS]
        lines += [f"add chain {p} {name}" for name in self.chains]
        for name, (kind, flags, members) in self.sets.items():
            spec = f"type {kind} ;" + (f" flags {','.join(flags)} ;" if flags else "")
            lines.append(f"add set {p} {name} {{ {spec} }}")
            lines += [f"add element {p} {name} {{ {m} }}" for m in members]
        for name in self.maps:
            lines.append(f"add map {p} {name} {{ type ifname : verdict ; }}")

        def add(chain: str, rules: Sequence[NftRule], hash_chain: str) -> None:
            for r, h in zip(rules, nft_rule_hashes(hash_chain, rules)):
                c = _comment(h, r.comments)
                lines.append(f"add rule {p} {chain} {r.rule}" + (f' comment "{c}"' if c else ""))

        for name, rules in self.chains.items():
            add(name, rules, name)
        add(self.base_chain, self.forward_insert, self.base_chain)
        add(self.base_chain, self.forward_append, self.base_chain + "*appends*")
        for name, members in self.maps.items():
            lines += [f"add element {p} {name} {{ {iface} : {verdict} }}" for iface, verdict in members.items()]
        return "\n".join(lines) + "\n"


def _nft_set(ipset_type: str, members: Sequence[str]) -> tuple[str, tuple[str, ...], list[str]]:
    """``NFTablesSet`` and ``CanonicaliseMember``: a ``hash:net`` set is an interval set of addresses."""
    if ipset_type == "hash:ip,port":
        out = []
        for m in members:
            ip, proto_port = m.split(",")
            proto, port = proto_port.split(":")
            out.append(f"{ip} . {proto} . {port}")
        return "ipv4_addr . inet_proto . inet_service", (), out
    return "ipv4_addr", ("interval",), [m[:-3] if m.endswith("/32") else m for m in members]


def _chain_renames(fr: FelixRules, policies: PolicySet | None) -> dict[str, str]:
    """iptables chain name -> nft chain name (policy and profile ids unhashed up to 256 characters)."""
    rename: dict[str, str] = {}
    for p in (policies.policies if policies is not None else ()):
        for direction, pfx in (("Ingress", "cali-pi-"), ("Egress", "cali-po-")):
            rename[policy_chain_name(p.namespace, p.name, direction)] = get_length_limited_id(
                pfx, f"{DEFAULT_TIER}/{p.calico_name}", MAX_CHAIN_NAME_LENGTH)
    for c in fr.chains:
        # a profile chain's first rule carries "Profile <id> <direction>" (ProfileToIptablesChains)
        if c.name.startswith((PROFILE_INBOUND_PREFIX, PROFILE_OUTBOUND_PREFIX)) and c.rules and c.rules[0].comments:
            profile = c.rules[0].comments[-1].split(" ")[1]
            rename[c.name] = get_length_limited_id(c.name[:len(PROFILE_INBOUND_PREFIX)], profile,
                                                   MAX_CHAIN_NAME_LENGTH)
    return rename


def _dispatch_map(chains: Sequence[Chain], root: str, flag: str, rename: Mapping[str, str]) -> dict[str, str]:
    """``DispatchMappings``: interface -> ``goto`` its endpoint chain, read from iptables mode's dispatch tree."""
    out: dict[str, str] = {}
    for c in chains:
        if c.name != root and not c.name.startswith(root + "-"):
            continue
        for r in c.rules:
            words = " ".join(r.match).split()
            if len(words) == 2 and words[0] == flag and not words[1].endswith("+") and r.action.startswith("--goto "):
                out[words[1]] = nft_action(r.action, FILTER_LAYER, rename)
    return dict(sorted(out.items()))


def nft_rules_from_felix(fr: FelixRules, policies: PolicySet | None = None,
                         marks: Marks = DEFAULT_MARKS) -> NftRules:
    """Felix's rules (built once by :func:`~kubenotes.cni.calico.iptables.felix_rules`) as its nftables table.

    Parameters
    ----------
    fr : FelixRules
    policies : PolicySet, optional
        The compiled policies: gives each policy chain its unhashed nft name
        (without it, policy chains keep iptables' hashed names).
    marks : Marks
        The mark bits ``fr`` was built with (the dispatch chains' drop rule uses none).

    Returns
    -------
    NftRules

    Raises
    ------
    kubenotes.cni.calico.dataplane.CalicoError
        A rule fragment with no nft form.
    """
    rename = _chain_renames(fr, policies)
    from_map = _dispatch_map(fr.chains, CHAIN_FROM_WORKLOAD_DISPATCH, "--in-interface", rename)
    to_map = _dispatch_map(fr.chains, CHAIN_TO_WORKLOAD_DISPATCH, "--out-interface", rename)
    unknown = NftRule("counter drop", ("Unknown interface",))
    chains: dict[str, list[NftRule]] = {}
    for c in fr.chains:
        if c.name.startswith((CHAIN_FROM_WORKLOAD_DISPATCH + "-", CHAIN_TO_WORKLOAD_DISPATCH + "-")):
            continue  # iptables' prefix-tree children: the vmap replaces them
        name = _namespace(rename.get(c.name, c.name))
        if c.name in (CHAIN_FROM_WORKLOAD_DISPATCH, CHAIN_TO_WORKLOAD_DISPATCH):
            # buildSingleDispatchChainsVMAP: the vmap lookup (a match, no action), then the end rule
            verb, m = (("iifname", CHAIN_FROM_WORKLOAD_DISPATCH) if c.name == CHAIN_FROM_WORKLOAD_DISPATCH
                       else ("oifname", CHAIN_TO_WORKLOAD_DISPATCH))
            chains[name] = [NftRule(f"{verb} vmap @{_namespace(m)}"), unknown]
            continue
        chains[name] = [_render(r, FILTER_LAYER, rename) for r in c.rules]
    sets = {legalize_set_name(n): _nft_set(kind, members) for n, (kind, members) in fr.ipsets.items()}
    return NftRules(chains, [_render(r, FILTER_LAYER, rename) for r in fr.forward_insert],
                    [_render(r, FILTER_LAYER, rename) for r in fr.forward_append], sets,
                    {_namespace(CHAIN_FROM_WORKLOAD_DISPATCH): from_map, _namespace(CHAIN_TO_WORKLOAD_DISPATCH): to_map})


def felix_nft_rules(objects: Iterable[Mapping[str, Any]], node: str | None = None, *, network: Any = None,
                    marks: Marks = DEFAULT_MARKS) -> NftRules:
    """:func:`~kubenotes.cni.calico.iptables.felix_rules` in nftables mode: the ``ip calico`` table for ``node``.

    Parameters
    ----------
    objects : iterable of dict
        Pods, Namespaces, NetworkPolicies (as for ``felix_rules``).
    node : str, optional
    network : kubenotes.cni.calico.dataplane.CalicoNetwork, optional
    marks : Marks

    Returns
    -------
    NftRules

    Raises
    ------
    kubenotes.errors.FieldError
        A NetworkPolicy selector the API server would have refused.

    Examples
    --------
    >>> from kubenotes.cni.calico.policy import example_policies
    >>> pods = [{"kind": "Pod", "metadata": {"name": n, "namespace": "default", "labels": l},
    ...          "spec": {"nodeName": "node-a"}, "status": {"podIP": ip}}
    ...         for n, l, ip in (("web", {"app": "web"}, "192.168.0.2"), ("client", {"role": "client"}, "192.168.0.3"))]
    >>> nr = felix_nft_rules(pods + example_policies(True, True))
    >>> [n for n in nr.chains if n.startswith("filter-cali-pi-")]
    ['filter-cali-pi-default/default/knp.default.allow-client', 'filter-cali-pi-default/default/knp.default.deny-web']
    >>> nr.sets
    {'cali40s-eQYdVhGOo8UPEPLlbaVTcnI': ('ipv4_addr', ('interval',), ['192.168.0.3'])}
    >>> nr.chains["filter-cali-pi-default/default/knp.default.allow-client"][0].rule
    'meta l4proto tcp ip saddr @cali40s-eQYdVhGOo8UPEPLlbaVTcnI tcp dport { 8080 } counter meta mark set mark or 0x10000'
    """
    objs = list(objects)
    ps = PolicySet(objs)
    return nft_rules_from_felix(felix_rules(objs, node, network=network, policies=ps, marks=marks), ps, marks)


def cluster_felix_nft_rules(objects: Iterable[Mapping[str, Any]], node: str | None = None, *,
                            mode: str | None = None, pool_cidr: str | None = None) -> NftRules:
    """:func:`~kubenotes.cni.calico.iptables.cluster_felix_rules` in nftables mode (pods addressed by Calico IPAM).

    Parameters
    ----------
    objects : iterable of dict
    node : str, optional
    mode, pool_cidr : str, optional
        As for ``cluster_felix_rules``.

    Returns
    -------
    NftRules

    Raises
    ------
    kubenotes.cni.calico.dataplane.CalicoError
        A node without an address, a pod on an unknown node.
    kubenotes.errors.FieldError
        A NetworkPolicy selector the API server would have refused.
    """
    objs = list(objects)
    return nft_rules_from_felix(cluster_felix_rules(objs, node, mode=mode, pool_cidr=pool_cidr), PolicySet(objs))


def check_nft(rules: NftRules, binary: str | None = None) -> subprocess.CompletedProcess:
    """Feed the transaction to the real ``nft -c -f -`` in a throwaway network namespace.

    Parameters
    ----------
    rules : NftRules
    binary : str, optional
        ``nft``'s path (default: on PATH or /usr/sbin/nft).

    Returns
    -------
    subprocess.CompletedProcess
        ``returncode`` 0 when nft accepted the text; ``stderr`` says why not.

    Raises
    ------
    FileNotFoundError
        No ``nft`` or ``unshare``.
    """
    binary = binary or shutil.which("nft") or "/usr/sbin/nft"
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    if not os.path.exists(binary) or not os.path.exists(unshare):
        raise FileNotFoundError("nft and unshare are needed")
    flags = "-n" if os.geteuid() == 0 else "-rn"
    return subprocess.run([unshare, flags, binary, "-c", "-f", "-"], input=rules.nft_transaction(), text=True,
                          capture_output=True, timeout=600)
