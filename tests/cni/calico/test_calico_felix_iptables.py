"""Felix's NetworkPolicy rules as iptables-restore text (kubenotes/cni/calico/iptables.py, rules.py).

Expectations ported from Calico v3.30.0, each naming its source:

* felix/rules/policy_test.go: "CIDR split tests" and "Named port tests" (rendered with the test's
  marks accept 0x80, scratch0 0x200, scratch1 0x400 and no hash comment), "Allow rules should be
  correctly rendered" (the dst-port and dst-net entries);
* felix/rules/endpoints_test.go: "should render a fully-loaded workload endpoint" and "PolicyGroup
  chains" (marks accept 0x8, pass 0x10); felix/rules/dispatch_test.go "interfaces sharing prefix"; felix/rules/static_test.go the cali-FORWARD chain;
* libcalico-go/lib/selector/parser/parser_test.go: canonicalisation UIDs;
* hash comments as real nodes show them (``cali:wUHhoiAYhphO9Mso`` is also in
  felix/iptables/rules_test.go); ``cali-FORWARD`` hashes from a node whose Felix allocated no drop
  bit (marks 0xe0000), and v3.30 policy chain names from a node's ``iptables -L``.

The rendered text goes through the real ``iptables-restore --noflush --test`` with its IP sets
created in a throwaway network namespace (fixture ``felix_restore``: skipped without iptables-restore
or unshare, failing when ``CI`` is set). An interpreter of the rendered chains checks that the text
and :meth:`PolicySet.evaluate` decide every flow of a policy set alike.
"""

from __future__ import annotations

import ipaddress
import os
import shutil

import pytest

from kubenotes.cni.calico.iptables import (Chain, FelixRules, IptRule, Marks, check_iptables_restore, felix_rules,
                                           proto_rule_to_iptables_rules, render_rule, rule_hashes)
from kubenotes.cni.calico.policy import EGRESS, INGRESS, Endpoint, PolicySet, policy_chain_name
from kubenotes.cni.calico.rules import FelixRule, IPSet, k8s_rules_to_felix, make_unique_id, peer_selector

TEST_MARKS = Marks(accept=0x80, pass_=0x100, drop=0x800, scratch0=0x200, scratch1=0x400)
CLEAR_BOTH = "-A test --jump MARK --set-mark 0x0/0x600"
PRESET_ALL = "-A test --jump MARK --set-mark 0x200/0x600"
ALLOW_IF_ALL = "-A test -m mark --mark 0x200/0x200 --jump MARK --set-mark 0x80/0x80"
ALLOW_IF_ALL_TCP = "-A test -p tcp -m mark --mark 0x200/0x200 --jump MARK --set-mark 0x80/0x80"
ALLOW_IF_ALL_UDP = "-A test -p udp -m mark --mark 0x200/0x200 --jump MARK --set-mark 0x80/0x80"
RETURN = "-A test -m mark --mark 0x80/0x80 --jump RETURN"
AND_THIS_BLOCK = "-A test -m mark --mark 0/0x400 --jump MARK --set-mark 0/0x200"


def _ipset(set_id: str) -> IPSet:
    return IPSet(set_id, "", None, None, None, "")


def _render(rule: FelixRule) -> list[str]:
    return [render_rule(r, "test") for r in proto_rule_to_iptables_rules(rule, TEST_MARKS)]


# ---------------------------------------------------------------------------
# felix/rules/policy_test.go


@pytest.mark.parametrize("rule, match", [
    (FelixRule(0), ""),
    (FelixRule(0, "tcp"), "-p tcp"),
    (FelixRule(0, src_nets=("10.0.0.0/16",)), "--source 10.0.0.0/16"),
    (FelixRule(0, src_ipsets=(_ipset("ipsetid1"), _ipset("ipsetid2"))),
     "-m set --match-set cali40ipsetid1 src -m set --match-set cali40ipsetid2 src"),
    (FelixRule(0, dst_nets=("10.0.0.0/16",)), "--destination 10.0.0.0/16"),
    (FelixRule(0, dst_ipsets=(_ipset("ipsetid1"),)), "-m set --match-set cali40ipsetid1 dst"),
    (FelixRule(0, dst_ports=((10, 12), (20, 30), (8080, 8080))), "-m multiport --destination-ports 10:12,20:30,8080"),
    (FelixRule(0, not_src_nets=("10.0.0.0/16",)), "! --source 10.0.0.0/16"),
])
def test_allow_rules_render_as_policy_test_expects(rule, match):
    """policy_test.go "Allow rules should be correctly rendered": the match sets the accept bit, then RETURN on it."""
    first = "-A test" + (f" {match}" if match else "") + " --jump MARK --set-mark 0x80/0x80"
    assert _render(rule) == [first, RETURN]


_SRC, _NOT_SRC = ("10.0.0.0/24", "10.0.1.0/24"), ("11.0.0.0/24", "11.0.1.0/24")
_DST, _NOT_DST = ("12.0.0.0/24", "12.0.1.0/24"), ("13.0.0.0/24", "13.0.1.0/24")


@pytest.mark.parametrize("n, expected", [
    ((2, 0, 0, 0), [CLEAR_BOTH, "-A test --source 10.0.0.0/24 --jump MARK --set-mark 0x200/0x200",
                    "-A test --source 10.0.1.0/24 --jump MARK --set-mark 0x200/0x200", ALLOW_IF_ALL, RETURN]),
    ((0, 2, 0, 0), [PRESET_ALL, "-A test --source 11.0.0.0/24 --jump MARK --set-mark 0/0x200",
                    "-A test --source 11.0.1.0/24 --jump MARK --set-mark 0/0x200", ALLOW_IF_ALL, RETURN]),
    ((0, 0, 0, 2), [PRESET_ALL, "-A test --destination 13.0.0.0/24 --jump MARK --set-mark 0/0x200",
                    "-A test --destination 13.0.1.0/24 --jump MARK --set-mark 0/0x200", ALLOW_IF_ALL, RETURN]),
    ((1, 1, 0, 0), [PRESET_ALL, "-A test --source 11.0.0.0/24 --jump MARK --set-mark 0/0x200",
                    "-A test --source 10.0.0.0/24 -m mark --mark 0x200/0x200 --jump MARK --set-mark 0x80/0x80",
                    RETURN]),
    ((2, 1, 0, 0), [CLEAR_BOTH, "-A test --source 10.0.0.0/24 --jump MARK --set-mark 0x200/0x200",
                    "-A test --source 10.0.1.0/24 --jump MARK --set-mark 0x200/0x200",
                    "-A test ! --source 11.0.0.0/24 -m mark --mark 0x200/0x200 --jump MARK --set-mark 0x80/0x80",
                    RETURN]),
    ((1, 1, 1, 1), [PRESET_ALL, "-A test --source 11.0.0.0/24 --jump MARK --set-mark 0/0x200",
                    "-A test --destination 13.0.0.0/24 --jump MARK --set-mark 0/0x200",
                    "-A test --source 10.0.0.0/24 --destination 12.0.0.0/24 -m mark --mark 0x200/0x200 "
                    "--jump MARK --set-mark 0x80/0x80", RETURN]),
    ((2, 2, 2, 2), [CLEAR_BOTH, "-A test --source 10.0.0.0/24 --jump MARK --set-mark 0x200/0x200",
                    "-A test --source 10.0.1.0/24 --jump MARK --set-mark 0x200/0x200",
                    "-A test --destination 12.0.0.0/24 --jump MARK --set-mark 0x400/0x400",
                    "-A test --destination 12.0.1.0/24 --jump MARK --set-mark 0x400/0x400", AND_THIS_BLOCK,
                    "-A test --source 11.0.0.0/24 --jump MARK --set-mark 0/0x200",
                    "-A test --source 11.0.1.0/24 --jump MARK --set-mark 0/0x200",
                    "-A test --destination 13.0.0.0/24 --jump MARK --set-mark 0/0x200",
                    "-A test --destination 13.0.1.0/24 --jump MARK --set-mark 0/0x200", ALLOW_IF_ALL, RETURN]),
])
def test_cidr_split_as_policy_test_expects(n, expected):
    """policy_test.go "CIDR split tests" (src, !src, dst, !dst counts)."""
    rule = FelixRule(0, src_nets=_SRC[:n[0]], not_src_nets=_NOT_SRC[:n[1]], dst_nets=_DST[:n[2]],
                     not_dst_nets=_NOT_DST[:n[3]])
    assert _render(rule) == expected


@pytest.mark.parametrize("rule, expected", [
    (FelixRule(0, "tcp", dst_named_port_ipsets=(_ipset("ipset-1"),)),
     ["-A test -p tcp -m set --match-set cali40ipset-1 dst,dst --jump MARK --set-mark 0x80/0x80", RETURN]),
    (FelixRule(0, "tcp", dst_named_port_ipsets=(_ipset("ipset-1"), _ipset("ipset-2"))),
     [CLEAR_BOTH, "-A test -m set --match-set cali40ipset-1 dst,dst --jump MARK --set-mark 0x200/0x200",
      "-A test -m set --match-set cali40ipset-2 dst,dst --jump MARK --set-mark 0x200/0x200", ALLOW_IF_ALL_TCP, RETURN]),
    (FelixRule(0, "tcp", dst_ports=((1, 2),), dst_named_port_ipsets=(_ipset("ipset-1"),)),
     [CLEAR_BOTH, "-A test -p tcp -m multiport --destination-ports 1:2 --jump MARK --set-mark 0x200/0x200",
      "-A test -m set --match-set cali40ipset-1 dst,dst --jump MARK --set-mark 0x200/0x200", ALLOW_IF_ALL_TCP, RETURN]),
    (FelixRule(0, "udp", dst_ports=tuple((p, p + 1) for p in range(1, 17, 2))),
     [CLEAR_BOTH, "-A test -p udp -m multiport --destination-ports 1:2,3:4,5:6,7:8,9:10,11:12,13:14 "
      "--jump MARK --set-mark 0x200/0x200",
      "-A test -p udp -m multiport --destination-ports 15:16 --jump MARK --set-mark 0x200/0x200",
      ALLOW_IF_ALL_UDP, RETURN]),
])
def test_named_and_overflowing_ports_as_policy_test_expects(rule, expected):
    """policy_test.go "Named port tests" (the destination entries)."""
    assert _render(rule) == expected


def test_selector_unique_ids_as_parser_test_expects():
    """parser_test.go canonicalisationTests: UniqueID of the canonical text."""
    assert make_unique_id("s", "all()") == "s:5y5I3VdRZfDU01O--xXAPx2yxCQQqMf0M6IWug"
    assert make_unique_id("s", "!(has(b) || !has(a))") == "s:Iss0uCleLYv1GSv_pNm7hAO58kE9jAx1NKyG3Q"
    assert make_unique_id("s", '!(a == "b" && !c != "d")') == "s:lh3haoY1ikTRkd4UZu0nWSaIBknYLPJLX16d-w"


def test_peer_selectors_are_canonical_text():
    """getEndpointSelector then Normalise: namespace scoping, pcns. prefixes, sorted set literals."""
    assert peer_selector({"podSelector": {"matchLabels": {"role": "client"}}}, "default") == (
        '(projectcalico.org/namespace == "default" && (projectcalico.org/orchestrator == "k8s" && role == "client"))')
    assert peer_selector({"namespaceSelector": {}}, "default") == (
        '(has(projectcalico.org/namespace) && projectcalico.org/orchestrator == "k8s")')
    assert peer_selector({"namespaceSelector": {"matchExpressions": [
        {"key": "env", "operator": "NotIn", "values": ["prod", "dev", "prod"]}]},
        "podSelector": {"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}}, "a") == (
        '(pcns.env not in {"dev", "prod"} && (projectcalico.org/orchestrator == "k8s" && !has(tier)))')


def test_one_felix_rule_per_protocol_and_peer_with_ports_simplified():
    """K8sNetworkPolicyToCalico: protocols sorted, adjacent ports merged, a no-port entry widens its protocol."""
    rules = k8s_rules_to_felix([{"from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}},
                                          {"podSelector": {}}],
                                 "ports": [{"port": 81}, {"port": 80}, {"port": 90, "endPort": 95},
                                           {"protocol": "UDP"}, {"protocol": "UDP", "port": 53}]}], "ns", True)
    assert [(r.protocol, r.dst_ports, r.src_nets, r.not_src_nets, len(r.src_ipsets)) for r in rules] == [
        ("tcp", ((80, 81), (90, 95)), ("10.0.0.0/8",), ("10.1.0.0/16",), 0),
        ("tcp", ((80, 81), (90, 95)), (), (), 1),
        ("udp", (), ("10.0.0.0/8",), ("10.1.0.0/16",), 0),
        ("udp", (), (), (), 1)]


# ---------------------------------------------------------------------------
# hash comments and chain names as real nodes show them


def test_forward_hooks_carry_the_hashes_of_a_real_node():
    text = felix_rules([]).iptables_restore()
    assert '-I FORWARD 1 -m comment --comment "cali:wUHhoiAYhphO9Mso" --jump cali-FORWARD' in text
    assert ('-A FORWARD -m comment --comment "cali:S93hcgKJrXEqnTfs" -m comment --comment "Policy explicitly '
            'accepted packet." -m mark --mark 0x10000/0x10000 --jump ACCEPT') in text
    assert '-A FORWARD -m comment --comment "cali:mp77cMpurHhyjLrM" --jump MARK --set-mark 0x10000/0x10000' in text


def test_static_chain_hashes_match_a_node_without_a_drop_bit():
    """A Felix that allocated accept, pass, scratch0, scratch1 only (marks 0xe0000 after the accept bit)."""
    old = felix_rules([], marks=Marks(accept=0x10000, pass_=0x20000, drop=0, scratch0=0x40000, scratch1=0x80000))
    assert rule_hashes(old.chain("cali-FORWARD")) == [
        "vjrMJCRpqwy5oRoX", "A_sPAO0mcxbT9mOV", "8ZoYfO5HKXWbB3pk", "jdEuaPBe14V2hutn", "12bc6HljsMKsmfr-",
        "NOSxoaGx8OIstr1z"]
    assert rule_hashes(old.chain("cali-from-wl-dispatch")) == ["zTj6P0TIgYvgz-md"]
    assert rule_hashes(old.chain("cali-to-wl-dispatch")) == ["7KNphB1nNHw80nIO"]
    # v3.30 allocates the drop bit 0x40000, so the scratch bits move up
    assert felix_rules([]).chain("cali-FORWARD").rules[0].action == "--jump MARK --set-mark 0/0x1a0000"


def test_policy_chain_names_match_a_v3_30_node():
    assert policy_chain_name("calico-system", "allow-apiserver", INGRESS) == "cali-pi-_RPHPUh868v26JJg7645"
    assert policy_chain_name("calico-system", "whisker", INGRESS) == "cali-pi-_YYnSgB46MA1TYU44kJq"


def test_rule_hashes_chain_through_the_chain():
    """felix/iptables/rules_test.go "Rule hashing tests"."""
    r1, r2 = IptRule(("-m foobar --foobar baz",), "--jump biff"), IptRule(("-m foobar --foobar baz",), "--jump boff")
    h1, h2, h3 = (rule_hashes(Chain("chain", rs)) for rs in ([r1], [r2], [r1, r2]))
    assert h1 != h2 and h1[0] == h3[0] and h2[0] != h3[1]
    assert rule_hashes(Chain("chain2", [r1])) != h1


# ---------------------------------------------------------------------------
# a cluster's ruleset


def _pod(name: str, ns: str, labels: dict, ip: str, ports: tuple = ()) -> dict:
    return {"kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"nodeName": "node-a", "containers": [
                {"name": "c", "ports": [{"name": n, "containerPort": p, "protocol": pr} for n, pr, p in ports]}]},
            "status": {"podIP": ip}}


def _np(name: str, ns: str, spec: dict) -> dict:
    return {"kind": "NetworkPolicy", "metadata": {"name": name, "namespace": ns}, "spec": spec}


CLUSTER = [
    {"kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "web"}}},
    {"kind": "Namespace", "metadata": {"name": "ops", "labels": {"team": "ops"}}},
    _pod("web", "default", {"app": "web"}, "192.168.0.2", (("http", "TCP", 8080),)),
    _pod("client", "default", {"role": "client"}, "192.168.0.3"),
    _pod("other", "default", {}, "192.168.0.4"),
    _pod("mon", "ops", {"app": "mon"}, "192.168.1.2", (("metrics", "TCP", 9090),)),
    _pod("db", "ops", {"app": "db"}, "192.168.1.3"),
    _np("deny-web", "default", {"podSelector": {"matchLabels": {"app": "web"}}, "policyTypes": ["Ingress"]}),
    _np("allow-client", "default", {"podSelector": {"matchLabels": {"app": "web"}}, "ingress": [
        {"from": [{"podSelector": {"matchLabels": {"role": "client"}}}], "ports": [{"port": "http"}]},
        {"from": [{"namespaceSelector": {"matchLabels": {"team": "ops"}},
                   "podSelector": {"matchLabels": {"app": "mon"}}}], "ports": [{"port": 8080, "endPort": 8081}]}]}),
    _np("db-egress", "ops", {"podSelector": {"matchLabels": {"app": "db"}}, "policyTypes": ["Ingress", "Egress"],
                             "ingress": [{"from": [{"ipBlock": {"cidr": "192.168.0.0/16",
                                                                "except": ["192.168.0.4/32", "192.168.1.0/24"]}}]}],
                             "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.9.0.0/16"]}}],
                                         "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]},
                                        {"to": [{"podSelector": {}, "namespaceSelector": {}}],
                                         "ports": [{"port": "metrics"}, {"port": 8080}]}]}),
]


@pytest.fixture
def felix_restore() -> None:
    """The real iptables-restore and unshare: skip without them, fail when CI is set."""
    missing = [b for b in ("iptables-restore", "unshare")
               if not (shutil.which(b) or os.path.exists(f"/usr/sbin/{b}") or os.path.exists(f"/usr/bin/{b}"))]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {missing} are not installed (Debian packages iptables, util-linux)")
        pytest.skip(f"{missing} not installed")


def test_real_iptables_restore_accepts_the_ruleset_with_its_ipsets(felix_restore):
    fr = felix_rules(CLUSTER)
    assert {kind for kind, _ in fr.ipsets.values()} == {"hash:net", "hash:ip,port"}
    r = check_iptables_restore(fr)
    assert r.returncode == 0, r.stderr


def test_real_iptables_restore_refuses_a_set_that_was_not_created(felix_restore):
    """The check can fail: the same text without its IP sets is refused ("Set ... doesn't exist")."""
    fr = felix_rules(CLUSTER)
    r = check_iptables_restore(FelixRules(fr.chains, fr.forward_insert, fr.forward_append, {}))
    assert r.returncode != 0 and "doesn't exist" in r.stderr


def test_ipset_contents_follow_the_selectors():
    fr = felix_rules(CLUSTER)
    text = fr.ipset_restore()
    assert "add {} 192.168.0.3/32".format(next(n for n, (_, m) in fr.ipsets.items() if m == ["192.168.0.3/32"])) in text
    named = sorted(m for kind, ms in fr.ipsets.values() if kind == "hash:ip,port" for m in ms)
    assert named == ["192.168.0.2,tcp:8080", "192.168.1.2,tcp:9090"]


def test_a_selected_pod_has_the_tier_section_and_an_unselected_one_does_not():
    fr = felix_rules(CLUSTER)
    eps = {ep.name: ep for ep in (Endpoint.from_pod(o, o["status"]["podIP"]) for o in CLUSTER if o["kind"] == "Pod")}
    from kubenotes.cni.calico.dataplane import veth_name_for_workload
    web = fr.chain("cali-tw-" + veth_name_for_workload("default", "web"))
    comments = [c for r in web.rules for c in r.comments]
    assert comments == ["Start of tier default", "Return if policy accepted",
                        "End of tier default. Drop if no policies passed packet", "Return if profile accepted",
                        "Return if profile accepted", "Drop if no profiles matched"]
    # deny-web and allow-client share web's selector: one cali-gi- group chain jumps to both
    group = web.rules[4].action.split()[-1]
    assert group.startswith("cali-gi-") and [r.action.split()[-1] for r in fr.chain(group).rules] == [
        policy_chain_name("default", "allow-client", INGRESS), policy_chain_name("default", "deny-web", INGRESS)]
    other = fr.chain("cali-tw-" + veth_name_for_workload("default", "other"))
    assert not any("tier" in c for r in other.rules for c in r.comments)
    assert eps["web"].is_pod


# ---------------------------------------------------------------------------
# the text and the verdict decide alike


_PROTO_NUMBERS = {"tcp": 6, "udp": 17, "sctp": 132}


def _walk(fr: FelixRules, chains: dict, pkt: dict) -> str:
    """Interpret the rendered rules for one packet through FORWARD: 'ACCEPT' or 'DROP'."""
    def matches(frag: str) -> bool:
        w = frag.split()
        if w[0] == "-p":
            return w[1] == pkt["proto"] or w[1] == str(_PROTO_NUMBERS[pkt["proto"]])
        if w[0] in ("--source", "--destination", "!"):
            neg = w[0] == "!"
            flag, net = (w[1], w[2]) if neg else (w[0], w[1])
            ip = pkt["src"] if flag == "--source" else pkt["dst"]
            return (ipaddress.ip_address(ip) in ipaddress.ip_network(net)) != neg
        if w[:2] == ["-m", "set"]:
            name, dirs = w[3], w[4]
            ip = pkt["src"] if dirs.startswith("src") else pkt["dst"]
            member = f"{ip},{pkt['proto']}:{pkt['dport']}" if "," in dirs else f"{ip}/32"
            return member in fr.ipsets[name][1]
        if w[:2] == ["-m", "multiport"]:
            return any(int(a) <= pkt["dport"] <= int(b or a) for a, _, b in (p.partition(":") for p in w[3].split(",")))
        if w[:2] == ["-m", "mark"]:
            neg = w[2] == "!"
            value, mask = (int(x, 16) for x in w[-1].split("/"))
            return ((pkt["mark"] & mask) == value) != neg
        if w[:2] == ["-m", "conntrack"]:
            return False  # a new, valid connection
        if w[0] in ("--in-interface", "--out-interface"):
            iface = pkt["in"] if w[0] == "--in-interface" else pkt["out"]
            return iface.startswith(w[1][:-1]) if w[1].endswith("+") else iface == w[1]
        raise AssertionError(frag)

    def run(chain: str) -> str | None:
        for rule in chains[chain]:
            if not all(matches(m) for m in rule.match):
                continue
            w = rule.action.split()
            if not w:
                continue
            if w[1] == "MARK":
                value, mask = (int(x, 16) for x in w[3].split("/"))
                pkt["mark"] = (pkt["mark"] & ~mask) ^ value
            elif w[1] in ("ACCEPT", "DROP"):
                return w[1]
            elif w[1] == "RETURN":
                return None
            else:
                verdict = run(w[1])
                if verdict is not None or w[0] == "--goto":
                    return verdict
        return None

    chains["FORWARD"] = fr.forward_insert + fr.forward_append
    return run("FORWARD") or "ACCEPT"


def test_rendered_rules_and_evaluate_agree_on_every_flow():
    objs = CLUSTER
    fr, ps = felix_rules(objs), PolicySet(objs)
    chains = {c.name: c.rules for c in fr.chains}
    from kubenotes.cni.calico.dataplane import veth_name_for_workload
    pods = [Endpoint.from_pod(o, o["status"]["podIP"], veth_name_for_workload(o["metadata"]["namespace"],
                                                                              o["metadata"]["name"]))
            for o in objs if o["kind"] == "Pod"]
    outside = [Endpoint("10.1.2.3"), Endpoint("10.9.0.1")]
    checked = allowed = 0
    for src in pods:
        for dst in pods + outside:
            if src is dst:
                continue
            for proto in ("TCP", "UDP"):
                for port in (53, 80, 8080, 8081, 9090):
                    expect = all(ps.evaluate(src, dst, proto, port, d).allowed
                                 for d in ((EGRESS, INGRESS) if dst.is_pod else (EGRESS,)))
                    pkt = {"src": src.ip, "dst": dst.ip, "proto": proto.lower(), "dport": port, "mark": 0,
                           "in": src.veth, "out": dst.veth or "eth0"}
                    got = _walk(fr, chains, pkt) == "ACCEPT"
                    assert got == expect, (src.key, dst.key, proto, port, expect)
                    checked += 1
                    allowed += expect
    assert checked == 5 * 6 * 2 * 5 and 0 < allowed < checked


# ---------------------------------------------------------------------------
# the command line


_MANIFESTS = """
apiVersion: v1
kind: Node
metadata: {name: node-a, annotations: {projectcalico.org/IPv4Address: 10.0.0.11/24}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, annotations: {projectcalico.org/IPv4Address: 10.0.0.12/24}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec: {nodeName: node-a, containers: [{name: c, image: nginx, ports: [{name: http, containerPort: 8080}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: default, labels: {role: client}}
spec: {nodeName: node-b, containers: [{name: c, image: busybox}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-client, namespace: default}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{from: [{podSelector: {matchLabels: {role: client}}}], ports: [{port: http}]}]
"""


def test_calico_rules_prints_one_nodes_table_and_its_ipsets(tmp_path, capsys, felix_restore):
    from kubenotes import cli

    (tmp_path / "c.yaml").write_text(_MANIFESTS)
    assert "calico" in {name for name, _, _ in cli.SUBCOMMANDS}
    assert cli.main(["calico", "rules", str(tmp_path / "c.yaml"), "--node", "node-a", "--check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("*filter\n") and out.endswith("COMMIT\n")
    assert "Policy default/knp.default.allow-client ingress" in out and "dst,dst" in out  # the named port http
    assert out.count(":cali-tw-") == 1  # web only: client runs on node-b
    assert cli.main(["calico", "rules", str(tmp_path / "c.yaml"), "-o", "ipset"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines if line.startswith("create")] == ["hash:ip,port", "hash:net"]
    assert any(line.endswith(",tcp:8080") for line in lines)


def test_calico_rules_refuses_a_bad_policy_or_node_with_one_line_and_no_rules(tmp_path, capsys):
    from kubenotes import cli

    (tmp_path / "c.yaml").write_text(_MANIFESTS)
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: bad, namespace: default}\n"
        "spec: {podSelector: {}, ingress: [{ports: [{port: 80, endPort: 79}]}]}\n")
    assert cli.main(["calico", "rules", str(tmp_path / "c.yaml"), str(tmp_path / "bad.yaml")]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1
    assert "spec.ingress[0].ports[0].endPort: Invalid value: 79: must be greater than or equal to `port`" in cap.err
    assert cli.main(["calico", "rules", str(tmp_path / "c.yaml"), "--node", "nope"]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err == "--node nope: no Node nope in the input\n"


def test_policy_rules_benchmark_runs_small():
    """benchmarks/policy_rules.py at a tiny size (its full run is in the report, not in the suite)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "policy_rules.py"
    spec = importlib.util.spec_from_file_location("policy_rules_benchmark", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = {r[0].strip(): r for r in mod.run(pods=200, policies=20, services=10, namespaces=4, nodes=4, restore=False,
                                             flows=200)}
    assert rows["felix_rules(node-0)"][3] > 0 and rows["evaluate 200 flows"][3] >= 0
    assert rows["felix_rules(all pods)"][3] > rows["felix_rules(node-0)"][3]


# ---------------------------------------------------------------------------
# felix/rules/endpoints_test.go (marks accept 0x8, pass 0x10)


EP_MARKS = Marks(accept=0x8, pass_=0x10, drop=0x80, scratch0=0x20, scratch1=0x40)


def test_fully_loaded_workload_endpoint_as_endpoints_test_expects():
    """endpoints_test.go "should render a fully-loaded workload endpoint" (DROP variant, no flow logs)."""
    from kubenotes.cni.calico.iptables import endpoint_chain

    conntrack = ["-m conntrack --ctstate RELATED,ESTABLISHED --jump ACCEPT", "-m conntrack --ctstate INVALID --jump DROP",
                 "--jump MARK --set-mark 0/0x18"]
    start = ['-m comment --comment "Start of tier default" --jump MARK --set-mark 0/0x10']
    ret = '-m comment --comment "Return if {} accepted" -m mark --mark 0x8/0x8 --jump RETURN'
    end = ['-m comment --comment "End of tier default. Drop if no policies passed packet" -m mark --mark 0/0x10 '
           '--jump DROP']
    tail = ["--jump cali-{}-prof1", ret.format("profile"), "--jump cali-{}-prof2", ret.format("profile"),
            '-m comment --comment "Drop if no profiles matched" --jump DROP']
    encap = ['-m comment --comment "Drop VXLAN encapped packets originating in workloads" -p 17 '
             "-m multiport --destination-ports 4789 --jump DROP",
             '-m comment --comment "Drop IPinIP encapped packets originating in workloads" -p 4 --jump DROP']
    for direction, pfx, ppfx, extra, names in ((INGRESS, "tw", "pri", [], ("ai", "bi")),
                                               (EGRESS, "fw", "pro", encap, ("ae", "be"))):
        pol = "pi" if direction == INGRESS else "po"
        chain = endpoint_chain("cali1234", [f"cali-{pol}-default/{n}" for n in names], ["prof1", "prof2"], direction,
                               EP_MARKS)
        assert chain.name == f"cali-{pfx}-cali1234"
        jumps = [x for n in names for x in (f"-m mark --mark 0/0x10 --jump cali-{pol}-default/{n}", ret.format("policy"))]
        expected = conntrack + extra + start + jumps + end + [t.format(ppfx) for t in tail]
        assert [render_rule(r, chain.name)[len(f"-A {chain.name} "):] for r in chain.rules] == expected


def test_policy_group_chain_as_endpoints_test_expects():
    """endpoints_test.go "PolicyGroup chains": no mark match first, then while 0x18 is clear; RETURN every five."""
    from kubenotes.cni.calico.iptables import policy_group_chain

    names = "abcdefg"
    chain = policy_group_chain("cali-gi-x", [f"cali-pi-default/{n}" for n in names], EP_MARKS)
    rendered = [render_rule(r, "t")[len("-A t "):] for r in chain.rules]
    assert rendered == (["--jump cali-pi-default/a"] + [f"-m mark --mark 0/0x18 --jump cali-pi-default/{n}" for n in "bcde"]
                        + ['-m comment --comment "Return on verdict" -m mark ! --mark 0/0x18 --jump RETURN',
                           "--jump cali-pi-default/f", "-m mark --mark 0/0x18 --jump cali-pi-default/g"])


def test_dispatch_chains_as_dispatch_test_expects():
    """dispatch_test.go "interfaces sharing prefix" (cali1234, cali2333, cali2444; endpoint marks not modelled)."""
    from kubenotes.cni.calico.iptables import workload_dispatch_chains

    drop = '-m comment --comment "Unknown interface" --jump DROP'
    got = {c.name: [render_rule(r, c.name)[len(f"-A {c.name} "):] for r in c.rules]
           for c in workload_dispatch_chains(["cali2444", "cali1234", "cali2333", "cali1234"])}
    assert got == {
        "cali-from-wl-dispatch-2": ["--in-interface cali2333 --goto cali-fw-cali2333",
                                    "--in-interface cali2444 --goto cali-fw-cali2444", drop],
        "cali-from-wl-dispatch": ["--in-interface cali1234 --goto cali-fw-cali1234",
                                  "--in-interface cali2+ --goto cali-from-wl-dispatch-2", drop],
        "cali-to-wl-dispatch-2": ["--out-interface cali2333 --goto cali-tw-cali2333",
                                  "--out-interface cali2444 --goto cali-tw-cali2444", drop],
        "cali-to-wl-dispatch": ["--out-interface cali1234 --goto cali-tw-cali1234",
                                "--out-interface cali2+ --goto cali-to-wl-dispatch-2", drop]}
    assert [c.name for c in workload_dispatch_chains([])] == ["cali-from-wl-dispatch", "cali-to-wl-dispatch"]


def test_forward_chain_as_static_test_expects():
    """static_test.go "should include the expected forward chain in the filter chains" (accept 0x10, pass 0x20,
    scratch0 0x40, scratch1 0x80: all Calico bits but accept = 0xe0)."""
    fr = felix_rules([], marks=Marks(accept=0x10, pass_=0x20, drop=0x200, scratch0=0x40, scratch1=0x80))
    assert [render_rule(r, "cali-FORWARD")[len("-A cali-FORWARD "):] for r in fr.chain("cali-FORWARD").rules] == [
        "--jump MARK --set-mark 0/0xe0", "-m mark --mark 0/0x10 --jump cali-from-hep-forward",
        "--in-interface cali+ --jump cali-from-wl-dispatch", "--out-interface cali+ --jump cali-to-wl-dispatch",
        "--jump cali-to-hep-forward", "--jump cali-cidr-block"]
