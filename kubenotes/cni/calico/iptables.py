"""Felix's NetworkPolicy programming as ``iptables-restore`` text (filter table) and ``ipset restore`` text.

What Felix writes on one node for its workload endpoints, from the rule
model the verdicts use (:mod:`kubenotes.cni.calico.rules`, compiled by
:class:`kubenotes.cni.calico.policy.PolicySet`):

* ``cali-FORWARD`` (hooked first into ``FORWARD``): clear Calico's mark
  bits, then ``-i cali+`` to ``cali-from-wl-dispatch`` and ``-o cali+`` to
  ``cali-to-wl-dispatch``; ``FORWARD`` then accepts what policy accepted
  ("Policy explicitly accepted packet.");
* the dispatch chains: a ``--goto`` per interface to its ``cali-fw-``/``cali-tw-``
  chain, split into ``<chain>-<char>`` children by the first character after
  the interfaces' common prefix, ending in ``Unknown interface`` drops;
* per endpoint ``cali-tw-<veth>`` / ``cali-fw-<veth>``: conntrack accept and
  INVALID drop, clear the accept and pass bits (egress also drops VXLAN and
  IP-in-IP packets from the pod), ``Start of tier default``, a jump per policy
  (or per ``cali-gi-``/``cali-go-`` group of consecutive policies with the
  same selector), ``Return if policy accepted``, ``End of tier default. Drop
  if no policies passed packet``; then the profiles ``kns.<namespace>``
  (accepts) and ``ksa.<namespace>.<serviceaccount>`` and ``Drop if no
  profiles matched``;
* per active policy ``cali-pi-``/``cali-po-`` with each Calico rule rendered
  as ``ProtoRuleToIptablesRules`` does: the match (protocol, ``--source``,
  ``-m set --match-set cali40s:... src``, ``-m multiport
  --destination-ports``, named ports as ``dst,dst`` sets), match blocks on
  the scratch mark bits when CIDRs, ``except`` or ports do not fit one rule,
  ``--set-mark`` of the accept bit and ``RETURN`` (a chain's trailing
  RETURN dropped); the chain's first rule carries ``Policy <name> ingress``.

Every rule starts with Felix's hash comment ``cali:<16 chars>`` (SHA-224
chained over the chain name and each rendered rule). Mark bits are Felix's
defaults for ``IptablesMarkMask`` 0xffff0000: accept 0x10000, pass 0x20000,
drop 0x40000, scratch0 0x80000, scratch1 0x100000.

:func:`felix_rules` renders API objects (:func:`cluster_felix_rules` networks manifests first); the result's
:meth:`FelixRules.iptables_restore` and :meth:`FelixRules.ipset_restore`
give the two texts, :func:`check_iptables_restore` feeds them to the real
``iptables-restore --test`` with the IP sets created first in a throwaway
network namespace (the ``ipset`` tool is not needed).

Notes
-----
Simplified: the filter table's forward path only (no ``cali-INPUT``/
``cali-OUTPUT``, host endpoints, raw/mangle/nat tables, failsafes, flow
logs, QoS controls, BPF or nftables mode); IPv4 only; the hash comments are
computed as Felix does, but Felix inserts its ``FORWARD`` hook with
``--noflush`` into a live table, which the text reproduces as ``-I FORWARD 1``
and ``-A FORWARD`` lines.

References
----------
projectcalico/calico@v3.30.0 felix/rules/policy.go (ProtoRuleToIptablesRules, matchBlockBuilder, CalculateRuleMatch)
projectcalico/calico@v3.30.0 felix/rules/endpoints.go (endpointIptablesChain, PolicyGroup)
projectcalico/calico@v3.30.0 felix/rules/dispatch.go (WorkloadDispatchChains), felix/rules/static.go
(StaticFilterForwardChains, StaticFilterForwardAppendRules)
projectcalico/calico@v3.30.0 felix/iptables/renderer.go, match_builder.go, actions.go, restore_buffer.go
projectcalico/calico@v3.30.0 felix/generictables/rules.go (RuleHashes)
projectcalico/calico@v3.30.0 felix/dataplane/driver.go (mark bit allocation), felix/dataplane/linux/endpoint_mgr.go
(groupPolicies)
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from kubenotes.cni.calico.policy import (DEFAULT_TIER, EGRESS, END_OF_TIER_DROP_COMMENT, INGRESS, Endpoint, PolicySet,
                                         endpoint_chain_name, get_length_limited_id, policy_chain_name)
from kubenotes.cni.calico.rules import FelixRule, IPSet

__all__ = [
    "Marks",
    "DEFAULT_MARKS",
    "IptRule",
    "Chain",
    "render_rule",
    "rule_hashes",
    "split_port_list",
    "proto_rule_to_iptables_rules",
    "profile_chain_name",
    "policy_group_chain",
    "endpoint_chain",
    "workload_dispatch_chains",
    "FelixRules",
    "felix_rules",
    "cluster_felix_rules",
    "check_iptables_restore",
]

RULE_HASH_PREFIX = "cali:"
HASH_LENGTH = 16
MAX_COMMENT_LENGTH = 256
CHAIN_FILTER_FORWARD = "cali-FORWARD"
CHAIN_FROM_WORKLOAD_DISPATCH = "cali-from-wl-dispatch"
CHAIN_TO_WORKLOAD_DISPATCH = "cali-to-wl-dispatch"
CHAIN_FROM_HEP_FORWARD = "cali-from-hep-forward"
CHAIN_TO_HEP_FORWARD = "cali-to-hep-forward"
CHAIN_CIDR_BLOCK = "cali-cidr-block"
POLICY_GROUP_INBOUND_PREFIX = "cali-gi-"
POLICY_GROUP_OUTBOUND_PREFIX = "cali-go-"
PROFILE_INBOUND_PREFIX = "cali-pri-"
PROFILE_OUTBOUND_PREFIX = "cali-pro-"
WORKLOAD_IFACE_PREFIX = "cali"
#: ``RETURN`` on a verdict every this many jumps in a policy-group chain.
GROUP_RETURN_STRIDE = 5
VXLAN_PORT = 4789
_SHELL_UNSAFE = re.compile(r"[^\w @%+=:,./-]")


@dataclass(frozen=True)
class Marks:
    """Felix's mark bits (``MarkAccept``... as ``markbits`` allocates them from ``IptablesMarkMask``)."""

    accept: int = 0x10000
    pass_: int = 0x20000
    drop: int = 0x40000
    scratch0: int = 0x80000
    scratch1: int = 0x100000

    @property
    def all_calico(self) -> int:
        """``allCalicoMarkBits``: accept, pass and both scratch bits."""
        return self.accept | self.pass_ | self.scratch0 | self.scratch1


DEFAULT_MARKS = Marks()


@dataclass(frozen=True)
class IptRule:
    """One rule (``generictables.Rule``): match fragments, an action fragment, comments."""

    match: tuple[str, ...] = ()
    action: str = ""
    comments: tuple[str, ...] = ()


@dataclass
class Chain:
    """A chain and its rules, in order."""

    name: str
    rules: list[IptRule] = field(default_factory=list)


# --- matches and actions (felix/iptables/match_builder.go, actions.go) ---

def _mark_set(mark: int) -> str:
    return f"-m mark --mark {mark:#x}/{mark:#x}"


def _mark_clear(mark: int) -> str:
    return f"-m mark --mark 0/{mark:#x}"


def _set_mark(mark: int) -> str:
    return f"--jump MARK --set-mark {mark:#x}/{mark:#x}"


def _clear_mark(mark: int) -> str:
    return f"--jump MARK --set-mark 0/{mark:#x}"


def _set_masked_mark(mark: int, mask: int) -> str:
    return f"--jump MARK --set-mark {mark:#x}/{mask:#x}"


def _ports(ranges: Sequence[tuple[int, int]]) -> str:
    return ",".join(str(a) if a == b else f"{a}:{b}" for a, b in ranges)


def split_port_list(ranges: Sequence[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """``SplitPortList``: groups of at most 15 multiport slots (a range takes two).

    Examples
    --------
    >>> [len(s) for s in split_port_list([(p, p + 1) for p in range(1, 17, 2)])]
    [7, 1]
    """
    splits: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    free = 15
    for r in ranges:
        need = 1 if r[0] == r[1] else 2
        if free < need:
            splits.append(current)
            current, free = [], 15
        current.append(r)
        free -= need
    if current:
        splits.append(current)
    return splits


def render_rule(rule: IptRule, chain: str, hash_: str = "") -> str:
    """``RenderAppend``: ``-A chain``, the hash comment, comments, match, action.

    Examples
    --------
    >>> render_rule(IptRule(("-p tcp",), "--jump RETURN", ("a 'quoted' note",)), "cali-x", "abcd")
    '-A cali-x -m comment --comment "cali:abcd" -m comment --comment "a _quoted_ note" -p tcp --jump RETURN'
    """
    parts = ["-A", chain]
    if hash_ == "HASH":
        parts.append(hash_)
    elif hash_:
        parts.append(f'-m comment --comment "{RULE_HASH_PREFIX}{hash_}"')
    for c in rule.comments:
        parts.append(f'-m comment --comment "{_SHELL_UNSAFE.sub("_", c)[:MAX_COMMENT_LENGTH]}"')
    if rule.match:
        parts.append(" ".join(rule.match))
    if rule.action:
        parts.append(rule.action)
    return " ".join(parts)


def rule_hashes(chain: Chain) -> list[str]:
    """``RuleHashes``: per rule, SHA-224 over the previous hash and the rule rendered with ``HASH``, 16 chars.

    The first hash chains from the SHA-224 of the chain's name, so a rule's
    hash depends on its chain and on every rule before it. Felix writes each as
    the ``cali:<hash>`` comment and compares them with ``iptables-save`` to
    find what changed.

    Parameters
    ----------
    chain : Chain

    Returns
    -------
    list of str
        One per rule, URL-safe base64.

    Examples
    --------
    >>> rule_hashes(Chain("FORWARD", [IptRule((), "--jump cali-FORWARD")]))
    ['wUHhoiAYhphO9Mso']
    """
    h = hashlib.sha224(chain.name.encode()).digest()
    out = []
    for rule in chain.rules:
        h = hashlib.sha224(h + render_rule(rule, chain.name, "HASH").encode()).digest()
        out.append(base64.urlsafe_b64encode(h).decode().rstrip("=")[:HASH_LENGTH])
    return out


# --- policy rules (felix/rules/policy.go) ---

class _MatchBlocks:
    """``matchBlockBuilder``: OR-blocks on the scratch bits for matches that do not fit one rule."""

    def __init__(self, marks: Marks):
        self.all_pass, self.this_pass = marks.scratch0, marks.scratch1
        self.rules: list[IptRule] = []
        self.using = False
        self._first_positive_done = False

    def _initial(self, bits: int) -> None:
        if not self.using:
            self.rules.append(IptRule((), _set_masked_mark(bits, self.all_pass | self.this_pass)))
            self.using = True

    def _positive_mark(self) -> int:
        return self.this_pass if self._first_positive_done else self.all_pass

    def _finish_positive(self) -> None:
        if not self._first_positive_done:
            self._first_positive_done = True
            return
        self.rules.append(IptRule((_mark_clear(self.this_pass),), _clear_mark(self.all_pass)))

    def port_block(self, protocol: str | None, splits: list, named: Sequence[IPSet]) -> None:
        self._initial(0)
        mark = self._positive_mark()
        for split in splits:
            match = ((f"-p {protocol}",) if protocol else ()) + (f"-m multiport --destination-ports {_ports(split)}",)
            self.rules.append(IptRule(match, _set_mark(mark)))
        for s in named:
            self.rules.append(IptRule((f"-m set --match-set {s.name} dst,dst",), _set_mark(mark)))
        self._finish_positive()

    def cidr_block(self, cidrs: Sequence[str], flag: str) -> None:
        self._initial(0)
        mark = self._positive_mark()
        for c in cidrs:
            self.rules.append(IptRule((f"{flag} {c}",), _set_mark(mark)))
        self._finish_positive()

    def negated_cidr_block(self, cidrs: Sequence[str], flag: str) -> None:
        self._initial(self.all_pass)
        for c in cidrs:
            self.rules.append(IptRule((f"{flag} {c}",), _clear_mark(self.all_pass)))


def _v4(nets: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """``filterNets`` for IPv4: the IPv4 CIDRs, and whether filtering removed every one."""
    if not nets:
        return (), False
    kept = tuple(n for n in nets if ":" not in n)
    return kept, not kept


def proto_rule_to_iptables_rules(rule: FelixRule, marks: Marks = DEFAULT_MARKS) -> list[IptRule]:
    """``ProtoRuleToIptablesRules`` for an allow rule (IPv4): match blocks, the main rule setting accept, RETURN.

    Parameters
    ----------
    rule : FelixRule
    marks : Marks
        Felix's mark bits (upstream's unit tests use accept 0x80, scratch0 0x200, scratch1 0x400).

    Returns
    -------
    list of IptRule
        Empty when every CIDR of a CIDR match is IPv6 (the rule is for the IPv6 table only).

    Examples
    --------
    >>> from kubenotes.cni.calico.rules import FelixRule
    >>> [render_rule(r, "test") for r in proto_rule_to_iptables_rules(FelixRule(0, "tcp", dst_ports=((80, 80),)))]
    ['-A test -p tcp -m multiport --destination-ports 80 --jump MARK --set-mark 0x10000/0x10000', \
'-A test -m mark --mark 0x10000/0x10000 --jump RETURN']
    """
    src_net, gone1 = _v4(rule.src_nets)
    not_src, gone2 = _v4(rule.not_src_nets)
    dst_net, gone3 = _v4(rule.dst_nets)
    not_dst, gone4 = _v4(rule.not_dst_nets)
    if gone1 or gone2 or gone3 or gone4:
        return []
    blocks = _MatchBlocks(marks)
    dst_ports: Sequence[tuple[int, int]] = rule.dst_ports
    named: Sequence[IPSet] = rule.dst_named_port_ipsets
    splits = split_port_list(dst_ports)
    if len(splits) + len(named) > 1:
        blocks.port_block(rule.protocol, splits, named)
        dst_ports, named = (), ()
    if len(src_net) > 1:
        blocks.cidr_block(src_net, "--source")
        src_net = ()
    if len(dst_net) > 1:
        blocks.cidr_block(dst_net, "--destination")
        dst_net = ()
    if len(src_net) + len(not_src) > 1:
        blocks.negated_cidr_block(not_src, "--source")
        not_src = ()
    if len(dst_net) + len(not_dst) > 1:
        blocks.negated_cidr_block(not_dst, "--destination")
        not_dst = ()
    # CalculateRuleMatch: positive criteria, then the negated ones
    match: list[str] = []
    if rule.protocol:
        match.append(f"-p {rule.protocol}")
    if src_net:
        match.append(f"--source {src_net[0]}")
    match += [f"-m set --match-set {s.name} src" for s in rule.src_ipsets]
    if dst_net:
        match.append(f"--destination {dst_net[0]}")
    match += [f"-m set --match-set {s.name} dst" for s in rule.dst_ipsets]
    if dst_ports:
        match.append(f"-m multiport --destination-ports {_ports(dst_ports)}")
    match += [f"-m set --match-set {s.name} dst,dst" for s in named]
    if not_src:
        match.append(f"! --source {not_src[0]}")
    if not_dst:
        match.append(f"! --destination {not_dst[0]}")
    if blocks.using:
        match.append(_mark_set(blocks.all_pass))
    # CombineMatchAndActionsForProtoRule: allow sets the accept bit, then returns on it
    return blocks.rules + [IptRule(tuple(match), _set_mark(marks.accept)),
                           IptRule((_mark_set(marks.accept),), "--jump RETURN")]


def _rules_chain(name: str, rules: Iterable[FelixRule], comment: str, marks: Marks) -> Chain:
    """``ProtoRulesToIptablesRules``: every rule, trailing RETURNs dropped, the chain comment on the first rule."""
    out: list[IptRule] = []
    for r in rules:
        out += proto_rule_to_iptables_rules(r, marks)
    while out and out[-1].action == "--jump RETURN":
        out.pop()
    if not out:
        out.append(IptRule())
    out[0] = IptRule(out[0].match, out[0].action, out[0].comments + (comment,))
    return Chain(name, out)


# --- endpoint chains (felix/rules/endpoints.go) ---

def _group_uid(selector: str, direction: str, names: Sequence[str]) -> str:
    """``PolicyGroup.UniqueID``: SHA3-224 over tier, selector, direction, count and names, each line-terminated."""
    h = hashlib.sha3_224()
    for part in (DEFAULT_TIER, selector, direction, str(len(names)), *names):
        h.update(part.encode() + b"\n")
    return base64.urlsafe_b64encode(h.digest()).decode().rstrip("=")[:28 - len(POLICY_GROUP_INBOUND_PREFIX)]


@dataclass(frozen=True)
class _Group:
    direction: str  # INGRESS / EGRESS
    selector: str
    policies: tuple  # of policy._Policy, Felix's order

    @property
    def chain_name(self) -> str:
        pfx, word = ((POLICY_GROUP_INBOUND_PREFIX, "inbound") if self.direction == INGRESS
                     else (POLICY_GROUP_OUTBOUND_PREFIX, "outbound"))
        return pfx + _group_uid(self.selector, word, [p.calico_name for p in self.policies])


def _groups(policies: Sequence[Any], direction: str) -> list[_Group]:
    """``groupPolicies``: consecutive policies with the same selector share a group."""
    out: list[_Group] = []
    for p in policies:
        if out and out[-1].selector == p.calico_selector:
            out[-1] = _Group(direction, p.calico_selector, out[-1].policies + (p,))
        else:
            out.append(_Group(direction, p.calico_selector, (p,)))
    return out


def policy_group_chain(name: str, targets: Sequence[str], marks: Marks = DEFAULT_MARKS) -> Chain:
    """``PolicyGroupToIptablesChains``: a jump per policy chain, a RETURN on a verdict every five.

    Parameters
    ----------
    name : str
        The group's ``cali-gi-``/``cali-go-`` chain.
    targets : sequence of str
        The grouped policies' ``cali-pi-``/``cali-po-`` chains, in order.
    marks : Marks

    Returns
    -------
    Chain
        After the first jump of each block of five, a jump only while neither
        the accept nor the pass bit is set.
    """
    rules: list[IptRule] = []
    for i, target in enumerate(targets):
        if i and i % GROUP_RETURN_STRIDE == 0:
            rules.append(IptRule((f"-m mark ! --mark 0/{marks.pass_ | marks.accept:#x}",), "--jump RETURN",
                                 ("Return on verdict",)))
        match = () if i % GROUP_RETURN_STRIDE == 0 else (_mark_clear(marks.pass_ | marks.accept),)
        rules.append(IptRule(match, f"--jump {target}"))
    return Chain(name, rules)


def _group_target(g: _Group) -> str:
    """The chain an endpoint jumps to for a group: the policy's own when it is alone (``ShouldBeInlined``)."""
    if len(g.policies) == 1:
        return policy_chain_name(g.policies[0].namespace, g.policies[0].name, g.direction)
    return g.chain_name


def profile_chain_name(profile: str, direction: str) -> str:
    """``ProfileChainName``: ``cali-pri-<profile>`` (ingress) or ``cali-pro-<profile>``, hashed past 28 characters.

    Examples
    --------
    >>> profile_chain_name("kns.default", "Ingress"), profile_chain_name("ksa.default.default", "Egress")
    ('cali-pri-kns.default', 'cali-pro-ksa.default.default')
    """
    return get_length_limited_id(PROFILE_INBOUND_PREFIX if direction == INGRESS else PROFILE_OUTBOUND_PREFIX, profile)


def endpoint_chain(veth: str, targets: Sequence[str], profiles: Sequence[str], direction: str,
                   marks: Marks = DEFAULT_MARKS) -> Chain:
    """``endpointIptablesChain`` for a workload: ``cali-tw-<veth>`` (ingress) or ``cali-fw-<veth>`` (egress).

    Parameters
    ----------
    veth : str
        The pod's host-side interface.
    targets : sequence of str
        Policy or policy-group chains of the ``default`` tier that apply, in
        order; empty: no tier section (the pod is not isolated).
    profiles : sequence of str
        ``kns.<namespace>``, ``ksa.<namespace>.<serviceaccount>``.
    direction : str
        :data:`~kubenotes.cni.calico.policy.INGRESS` or ``EGRESS`` (which also
        drops VXLAN and IP-in-IP packets a pod sends).
    marks : Marks

    Returns
    -------
    Chain
    """
    rules = [IptRule(("-m conntrack --ctstate RELATED,ESTABLISHED",), "--jump ACCEPT"),
             IptRule(("-m conntrack --ctstate INVALID",), "--jump DROP"),
             IptRule((), _clear_mark(marks.accept | marks.pass_))]
    if direction == EGRESS:  # AllowVXLANPacketsFromWorkloads / AllowIPIPPacketsFromWorkloads default false
        rules += [IptRule(("-p 17", f"-m multiport --destination-ports {VXLAN_PORT}"), "--jump DROP",
                          ("Drop VXLAN encapped packets originating in workloads",)),
                  IptRule(("-p 4",), "--jump DROP", ("Drop IPinIP encapped packets originating in workloads",))]
    if targets:
        rules.append(IptRule((), _clear_mark(marks.pass_), (f"Start of tier {DEFAULT_TIER}",)))
        for target in targets:
            rules.append(IptRule((_mark_clear(marks.pass_),), f"--jump {target}"))
            rules.append(IptRule((_mark_set(marks.accept),), "--jump RETURN", ("Return if policy accepted",)))
        rules.append(IptRule((_mark_clear(marks.pass_),), "--jump DROP", (END_OF_TIER_DROP_COMMENT,)))
    for prof in profiles:
        rules.append(IptRule((), f"--jump {profile_chain_name(prof, direction)}"))
        rules.append(IptRule((_mark_set(marks.accept),), "--jump RETURN", ("Return if profile accepted",)))
    rules.append(IptRule((), "--jump DROP", ("Drop if no profiles matched",)))
    return Chain(endpoint_chain_name(veth, direction), rules)


def _profile_chains(profile: str, allow: bool, marks: Marks) -> list[Chain]:
    """``ProfileToIptablesChains``: ``kns.<ns>`` allows both ways; ``ksa.<ns>.<sa>`` has no rule."""
    rule = (FelixRule(0),) if allow else ()
    return [_rules_chain(profile_chain_name(profile, d), rule, f"Profile {profile} {word}", marks)
            for d, word in ((INGRESS, "ingress"), (EGRESS, "egress"))]


# --- dispatch and static chains (felix/rules/dispatch.go, static.go) ---

def _common_prefix(names: Sequence[str]) -> str:
    return os.path.commonprefix(list(names)) if names else ""


def _dispatch_chains(names: Sequence[str], root: str, flag: str, ep_prefix: str) -> list[Chain]:
    """``buildSingleDispatchChainTree``: one ``--goto`` per interface, children by the next character."""
    names = sorted(set(names))
    common = _common_prefix(names)
    by_prefix: dict[str, list[str]] = {}
    for n in names:
        by_prefix.setdefault(n[:len(common) + 1] if len(n) > len(common) else common, []).append(n)
    end = IptRule((), "--jump DROP", ("Unknown interface",))
    children: list[Chain] = []
    root_rules: list[IptRule] = []
    for pfx, members in by_prefix.items():
        if len(members) > 1:
            child = f"{root}-{pfx[len(common):]}"
            root_rules.append(IptRule((f"{flag} {pfx}+",), f"--goto {child}"))
            children.append(Chain(child, [IptRule((f"{flag} {n}",), f"--goto {get_length_limited_id(ep_prefix, n)}")
                                          for n in members] + [end]))
        else:
            n = members[0]
            root_rules.append(IptRule((f"{flag} {n}",), f"--goto {get_length_limited_id(ep_prefix, n)}"))
    return children + [Chain(root, root_rules + [end])]


def workload_dispatch_chains(veths: Sequence[str]) -> list[Chain]:
    """``WorkloadDispatchChains``: ``cali-from-wl-dispatch`` (``--in-interface``) and ``cali-to-wl-dispatch``.

    Parameters
    ----------
    veths : sequence of str
        The node's workload interfaces (duplicates ignored).

    Returns
    -------
    list of Chain
        The from-children, ``cali-from-wl-dispatch``, the to-children,
        ``cali-to-wl-dispatch``; with no interface, each root only drops
        ("Unknown interface").

    Examples
    --------
    >>> [c.name for c in workload_dispatch_chains(["cali1234", "cali2333", "cali2444"])]
    ['cali-from-wl-dispatch-2', 'cali-from-wl-dispatch', 'cali-to-wl-dispatch-2', 'cali-to-wl-dispatch']
    """
    if not veths:
        return [Chain(CHAIN_FROM_WORKLOAD_DISPATCH, [IptRule((), "--jump DROP", ("Unknown interface",))]),
                Chain(CHAIN_TO_WORKLOAD_DISPATCH, [IptRule((), "--jump DROP", ("Unknown interface",))])]
    return (_dispatch_chains(veths, CHAIN_FROM_WORKLOAD_DISPATCH, "--in-interface", "cali-fw-")
            + _dispatch_chains(veths, CHAIN_TO_WORKLOAD_DISPATCH, "--out-interface", "cali-tw-"))


def _forward_chain(marks: Marks) -> Chain:
    return Chain(CHAIN_FILTER_FORWARD, [
        IptRule((), _clear_mark(marks.all_calico & ~marks.accept)),
        IptRule((_mark_clear(marks.accept),), f"--jump {CHAIN_FROM_HEP_FORWARD}"),
        IptRule((f"--in-interface {WORKLOAD_IFACE_PREFIX}+",), f"--jump {CHAIN_FROM_WORKLOAD_DISPATCH}"),
        IptRule((f"--out-interface {WORKLOAD_IFACE_PREFIX}+",), f"--jump {CHAIN_TO_WORKLOAD_DISPATCH}"),
        IptRule((), f"--jump {CHAIN_TO_HEP_FORWARD}"),
        IptRule((), f"--jump {CHAIN_CIDR_BLOCK}"),
    ])


# --- the whole ruleset ---

@dataclass
class FelixRules:
    """What Felix programs on one node for NetworkPolicy: filter chains, the ``FORWARD`` hooks, IP sets.

    Attributes
    ----------
    chains : list of Chain
        ``cali-FORWARD``, dispatch, endpoint, group, policy and profile chains, in that order.
    forward_insert : list of IptRule
        Inserted at the top of ``FORWARD`` (the jump to ``cali-FORWARD``).
    forward_append : list of IptRule
        Appended to ``FORWARD`` (accept on the accept bit, then set it).
    ipsets : dict
        IP set name -> (type, sorted members) for every set an active policy references.
    """

    chains: list[Chain]
    forward_insert: list[IptRule]
    forward_append: list[IptRule]
    ipsets: dict[str, tuple[str, list[str]]]

    @property
    def rule_count(self) -> int:
        """Rules in Felix's chains and hooks."""
        return sum(len(c.rules) for c in self.chains) + len(self.forward_insert) + len(self.forward_append)

    def chain(self, name: str) -> Chain:
        """The chain called ``name``.

        Raises
        ------
        KeyError
            No such chain.
        """
        for c in self.chains:
            if c.name == name:
                return c
        raise KeyError(name)

    def iptables_restore(self) -> str:
        """The filter table as ``iptables-restore`` input: forward references (``:name - -``), rules, ``COMMIT``."""
        lines = ["*filter"] + [f":{c.name} - -" for c in self.chains]
        for c in self.chains:
            lines += [render_rule(r, c.name, h) for r, h in zip(c.rules, rule_hashes(c))]
        fwd_in = Chain("FORWARD", self.forward_insert)
        for i, (r, h) in enumerate(zip(fwd_in.rules, rule_hashes(fwd_in)), start=1):
            lines.append(render_rule(r, "FORWARD", h).replace("-A FORWARD", f"-I FORWARD {i}", 1))
        # appended rules are hashed as the chain "FORWARD*appends*" (Table.expectedHashesForInsertAppendChain)
        fwd_app = Chain("FORWARD*appends*", self.forward_append)
        lines += [render_rule(r, "FORWARD", h) for r, h in zip(fwd_app.rules, rule_hashes(fwd_app))]
        lines.append("COMMIT")
        return "\n".join(lines) + "\n"

    def ipset_restore(self) -> str:
        """The IP sets as ``ipset restore`` input (``create NAME TYPE family inet maxelem 1048576``, ``add NAME MEMBER``)."""
        lines = []
        for name, (kind, members) in self.ipsets.items():
            lines.append(f"create {name} {kind} family inet maxelem 1048576")
            lines += [f"add {name} {m}" for m in members]
        return "\n".join(lines) + ("\n" if lines else "")


def _pod_endpoints(objects: Sequence[Mapping[str, Any]], network: Any = None) -> list[tuple[Endpoint, str]]:
    """(Endpoint with its veth, node) for every Pod that has an address (``network``'s, else ``status.podIP``)."""
    from kubenotes.cni.calico.dataplane import veth_name_for_workload

    out = []
    for o in objects:
        if o.get("kind") != "Pod":
            continue
        md, spec = o.get("metadata") or {}, o.get("spec") or {}
        if spec.get("hostNetwork"):
            continue
        ns, name = md.get("namespace") or "default", md.get("name") or ""
        pod_net = network.pods.get(f"{ns}/{name}") if network is not None else None
        if pod_net is not None:
            ip, veth, node = pod_net.ip, pod_net.veth, pod_net.node
        else:
            ip = (o.get("status") or {}).get("podIP")
            if not ip:
                continue
            veth, node = veth_name_for_workload(ns, name), spec.get("nodeName") or ""
        out.append((Endpoint.from_pod(o, ip, veth), node))
    return out


def felix_rules(objects: Iterable[Mapping[str, Any]], node: str | None = None, *, network: Any = None,
                policies: PolicySet | None = None, marks: Marks = DEFAULT_MARKS) -> FelixRules:
    """Felix's filter-table policy programming for the pods of ``node`` (all pods when None).

    Parameters
    ----------
    objects : iterable of dict
        Pods (with ``status.podIP``, or networked by ``network``), Namespaces, NetworkPolicies.
    node : str, optional
        Render the endpoints of this node only (Felix runs per node); IP sets
        still hold matching pods of every node.
    network : kubenotes.cni.calico.dataplane.CalicoNetwork, optional
        Gives each pod's address and veth (:func:`kubenotes.cni.calico.packet.network_from_objects`).
    policies : PolicySet, optional
        Already compiled from ``objects`` (saves compiling twice).
    marks : Marks

    Returns
    -------
    FelixRules

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
    >>> fr = felix_rules(pods + example_policies(True, True))
    >>> [c.name for c in fr.chains if c.name.startswith(("cali-pi-", "cali-gi-"))]
    ['cali-gi-MISdga9Bn5SrFafkkC9H', 'cali-pi-_vudyd2LmkGOaMGECBe_', 'cali-pi-_R_yQPlWeh9dERnIkP9A']
    >>> fr.ipsets
    {'cali40s:eQYdVhGOo8UPEPLlbaVTcnI': ('hash:net', ['192.168.0.3/32'])}
    >>> print(fr.ipset_restore(), end="")
    create cali40s:eQYdVhGOo8UPEPLlbaVTcnI hash:net family inet maxelem 1048576
    add cali40s:eQYdVhGOo8UPEPLlbaVTcnI 192.168.0.3/32
    """
    objs = list(objects)
    ps = policies if policies is not None else PolicySet(objs)
    all_eps = _pod_endpoints(objs, network)
    local = [ep for ep, n in all_eps if node is None or n == node]
    chains: list[Chain] = [_forward_chain(marks)]
    chains += workload_dispatch_chains([ep.veth for ep in local])
    chains += [Chain(CHAIN_FROM_HEP_FORWARD), Chain(CHAIN_TO_HEP_FORWARD), Chain(CHAIN_CIDR_BLOCK)]
    groups: dict[str, Chain] = {}
    active: dict[str, Any] = {}
    profiles: dict[str, bool] = {}
    for ep in sorted(local, key=lambda e: e.veth):
        prof = [f"kns.{ep.namespace}", f"ksa.{ep.namespace}.{ep.service_account}"]
        profiles[prof[0]], profiles[prof[1]] = True, False
        for direction in (INGRESS, EGRESS):
            selecting = ps.selecting(ep, direction)
            gs = _groups(selecting, direction)
            for g in gs:
                if len(g.policies) > 1 and g.chain_name not in groups:
                    groups[g.chain_name] = policy_group_chain(
                        g.chain_name, [policy_chain_name(p.namespace, p.name, direction) for p in g.policies], marks)
            for p in selecting:
                active[p.key] = p
            chains.append(endpoint_chain(ep.veth, [_group_target(g) for g in gs], prof, direction, marks))
    chains += groups.values()
    sets: dict[str, IPSet] = {}
    for key in sorted(active):
        p = active[key]
        for direction, word in ((INGRESS, "ingress"), (EGRESS, "egress")):
            rules = p.rules[direction] if direction in p.types else ()
            chains.append(_rules_chain(policy_chain_name(p.namespace, p.name, direction), rules,
                                       f"Policy {p.calico_name} {word}", marks))
            for r in rules:
                for s in r.ipsets():
                    sets.setdefault(s.name, s)
    for prof in sorted(profiles):
        chains += _profile_chains(prof, profiles[prof], marks)
    by_ns: dict[str, list[Endpoint]] = {}
    for ep, _ in all_eps:
        by_ns.setdefault(ep.namespace, []).append(ep)
    ipsets = {}
    for name in sorted(sets):
        s = sets[name]
        if s.namespaces is None and s.namespace:  # a pod selector: pods of the policy's namespace only
            candidates: Iterable[Endpoint] = by_ns.get(s.namespace, ())
        else:
            candidates = (ep for ns, eps in by_ns.items()
                          if s.namespaces is None or s.namespaces.matches(ps.ns_labels(ns)) for ep in eps)
        members = sorted({m for ep in candidates for m in s.members(ep, ps.ns_labels)})
        ipsets[name] = (s.ipset_type, members)
    forward_insert = [IptRule((), f"--jump {CHAIN_FILTER_FORWARD}")]
    forward_append = [IptRule((_mark_set(marks.accept),), "--jump ACCEPT", ("Policy explicitly accepted packet.",)),
                      IptRule((), _set_mark(marks.accept))]
    return FelixRules(chains, forward_insert, forward_append, ipsets)


def cluster_felix_rules(objects: Iterable[Mapping[str, Any]], node: str | None = None, *, mode: str | None = None,
                        pool_cidr: str | None = None) -> FelixRules:
    """:func:`felix_rules` for manifests: pods are addressed by Calico IPAM from the Nodes, as ``packet`` does.

    Parameters
    ----------
    objects : iterable of dict
        Nodes, Pods placed with ``spec.nodeName``, Namespaces, NetworkPolicies
        (:func:`kubenotes.cni.calico.packet.example_cluster` and
        :func:`kubenotes.cni.calico.policy.example_policies` give the chapter's).
        Without Nodes, pods keep their ``status.podIP``.
    node : str, optional
        The node whose Felix renders; None: every pod.
    mode : str, optional
        IPPool encapsulation (default Calico's, ``ipip``).
    pool_cidr : str, optional
        The IPPool's cidr (default as calico-node picks it).

    Returns
    -------
    FelixRules

    Raises
    ------
    kubenotes.cni.calico.dataplane.CalicoError
        A node without an address, a pod on an unknown node.
    kubenotes.errors.FieldError
        A NetworkPolicy selector the API server would have refused.

    Examples
    --------
    >>> from kubenotes.cni.calico.packet import example_cluster
    >>> from kubenotes.cni.calico.policy import example_policies
    >>> fr = cluster_felix_rules(example_cluster(2) + example_policies(True, True), "node-1", mode="vxlan")
    >>> [r.comments[0] for r in fr.chain(policy_chain_name("default", "allow-client", INGRESS)).rules]
    ['Policy default/knp.default.allow-client ingress']
    """
    from kubenotes.cni.calico.dataplane import DEFAULT_MODE
    from kubenotes.cni.calico.packet import network_from_objects

    objs = list(objects)
    network = None
    if any(o.get("kind") == "Node" for o in objs):
        network, objs = network_from_objects(objs, mode=mode or DEFAULT_MODE, pool_cidr=pool_cidr)
    return felix_rules(objs, node, network=network)


# --- checking with the real iptables-restore ---

_NETLINK_CREATE = r'''
import socket, struct, sys
def attr(t, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, t) + payload + b"\0" * ((4 - n % 4) % 4)
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)  # NETLINK_NETFILTER
s.bind((0, 0))
for seq, line in enumerate(sys.stdin.read().split("\n"), start=1):
    if not line:
        continue
    name, kind = line.split(" ")
    body = struct.pack("BBH", 2, 0, 0) + attr(1, b"\x06") + attr(2, name.encode() + b"\0")
    body += attr(3, kind.encode() + b"\0") + attr(4, b"\0") + attr(5, b"\x02")
    # IPSET_CMD_CREATE (2) of subsystem NFNL_SUBSYS_IPSET (6); REQUEST|ACK|EXCL|CREATE
    s.send(struct.pack("IHHII", 16 + len(body), (6 << 8) | 2, 0x1 | 0x4 | 0x200 | 0x400, seq, 0) + body)
    reply = s.recv(65536)
    if struct.unpack("H", reply[4:6])[0] == 2 and struct.unpack("i", reply[16:20])[0] != 0:
        sys.exit("cannot create ipset %s %s: errno %d" % (name, kind, -struct.unpack("i", reply[16:20])[0]))
'''


def check_iptables_restore(rules: FelixRules, binary: str | None = None) -> subprocess.CompletedProcess:
    """Feed the filter table to the real ``iptables-restore --noflush --test`` after creating its IP sets.

    Runs in a new network namespace (``unshare -n``; ``-rn`` with a user
    namespace when not root), so the IP sets (made
    with one netlink ``IPSET_CMD_CREATE`` each, empty: ``--test`` checks
    that a set exists, not its members) and nothing else touch the host.

    Parameters
    ----------
    rules : FelixRules
    binary : str, optional
        ``iptables-restore``'s path (default: found on PATH or in /usr/sbin).

    Returns
    -------
    subprocess.CompletedProcess
        ``returncode`` 0 when iptables-restore accepted the text; ``stderr`` says why not.

    Raises
    ------
    FileNotFoundError
        No ``iptables-restore`` or ``unshare``.
    """
    binary = binary or shutil.which("iptables-restore") or "/usr/sbin/iptables-restore"
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    if not os.path.exists(binary) or not os.path.exists(unshare):
        raise FileNotFoundError("iptables-restore and unshare are needed")
    sets = "".join(f"{name} {kind}\n" for name, (kind, _) in rules.ipsets.items())
    script = (f"{sys.executable} -c {_shell_quote(_NETLINK_CREATE)} <<'EOF_SETS'\n{sets}EOF_SETS\n"
              f"{binary} --noflush --test")
    # not root: a user namespace too (iptables-nft and ipset want CAP_NET_ADMIN, which it grants there)
    flags = "-n" if os.geteuid() == 0 else "-rn"
    return subprocess.run([unshare, flags, "sh", "-c", script], input=rules.iptables_restore(), text=True,
                          capture_output=True, timeout=600)


def _shell_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"
