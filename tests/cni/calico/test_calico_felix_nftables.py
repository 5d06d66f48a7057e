"""Felix's NetworkPolicy rules in nftables mode (kubenotes/cni/calico/nftables.py).

Expectations ported from Calico v3.30.0, each naming its source:

* felix/nftables/match_builder_test.go "MatchBuilder": the clause of each criterion the iptables
  renderer uses (fed as the iptables fragment that criterion produces there);
* felix/nftables/actions_test.go "Actions": goto, jump, return, drop, accept, ClearMark, SetMark,
  SetMaskedMark;
* felix/nftables/rules_test.go "Rule hashing tests" and "rule comments" (``cali:TEST; boz fizz``,
  newline escaped, truncated to 128); felix/nftables/table_test.go's exact hash comments of the rules
  it inserts into and appends to ``filter-FORWARD`` and writes into ``cali-foobar``;
* felix/rules/dispatch.go buildSingleDispatchChainsVMAP and table_layer.go namespacing (chain, map
  and goto names), ipsets.go setType / CanonicaliseMember (set types, members).

The whole table goes through the real ``nft -c -f -`` in a throwaway network namespace (fixture
``felix_nft``: skipped without nft or unshare, failing when ``CI`` is set).
"""

from __future__ import annotations

import os
import shutil

import pytest

from kubenotes.cni.calico.dataplane import CalicoError
from kubenotes.cni.calico.iptables import felix_rules
from kubenotes.cni.calico.nftables import (NftRule, NftRules, _comment, check_nft, felix_nft_rules, nft_action,
                                           nft_match, nft_rule_hashes, nft_rules_from_felix)
from kubenotes.cni.calico.policy import PolicySet, policy_chain_name


def _pod(name, labels, ip, node="node-a", ns="default", ports=()):
    return {"kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"nodeName": node, "containers": [{"name": "c", "ports": [
                {"name": n, "containerPort": p, "protocol": "TCP"} for n, p in ports]}]},
            "status": {"podIP": ip}}


CLUSTER = [
    {"kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "a"}}},
    _pod("web", {"app": "web"}, "192.168.0.2", ports=[("http", 8080)]),
    _pod("client", {"role": "client"}, "192.168.0.3"),
    _pod("db", {"app": "db"}, "192.168.0.4", node="node-b", ports=[("metrics", 9090)]),
    {"kind": "NetworkPolicy", "metadata": {"name": "web", "namespace": "default"},
     "spec": {"podSelector": {"matchLabels": {"app": "web"}}, "policyTypes": ["Ingress", "Egress"],
              "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "client"}}},
                                    {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16", "10.2.0.0/16"]}}],
                           "ports": [{"port": "http"}, {"port": 80}, {"port": 443, "endPort": 445}]}],
              "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.9.0.0/16"]}}],
                          "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]},
                         {"to": [{"podSelector": {}, "namespaceSelector": {}}],
                          "ports": [{"port": "metrics"}, {"port": 8080}]}]}},
    {"kind": "NetworkPolicy", "metadata": {"name": "web-too", "namespace": "default"},
     "spec": {"podSelector": {"matchLabels": {"app": "web"}}, "ingress": [{}]}},
]


# ---------------------------------------------------------------------------
# felix/nftables/match_builder_test.go


@pytest.mark.parametrize("fragments, clause", [
    (["-m mark --mark 0/0x400a"], "meta mark & 0x400a == 0"),                          # MarkClear
    (["-m mark ! --mark 0/0x400a"], "meta mark & 0x400a != 0"),                        # MarkNotClear
    (["-m mark --mark 0x4000/0x4000"], "meta mark & 0x4000 == 0x4000"),                # MarkSingleBitSet
    (["-m mark --mark 0x400a/0xf00f"], "meta mark & 0xf00f == 0x400a"),                # MarkMatchesWithMask
    (["-m mark ! --mark 0x400a/0xf00f"], "meta mark & 0xf00f != 0x400a"),              # NotMarkMatchesWithMask
    (["-m conntrack --ctstate INVALID"], "ct state invalid"),
    (["--in-interface tap1234abcd"], "iifname tap1234abcd"),
    (["--out-interface tap1234abcd"], "oifname tap1234abcd"),
    (["-p tcp"], "meta l4proto tcp"),
    (["-p 4"], "meta l4proto 4"),                                                      # ProtocolNum IPIP
    (["--source 10.0.0.4"], "ip saddr 10.0.0.4"),
    (["! --source 10.0.0.4"], "ip saddr != 10.0.0.4"),
    (["--destination 10.0.0.4"], "ip daddr 10.0.0.4"),
    (["! --destination 10.0.0.4"], "ip daddr != 10.0.0.4"),
    (["-m set --match-set calits:12345abc-_ src"], "ip saddr @calits-12345abc-_"),
    (["-m set --match-set calits:12345abc-_ dst"], "ip daddr @calits-12345abc-_"),
    (["-m set --match-set calitn:12345abc-_ dst,dst"], "ip daddr . meta l4proto . th dport @calitn-12345abc-_"),
    (["-p udp", "-m multiport --destination-ports 1234,5678:6000"], "meta l4proto udp udp dport { 1234, 5678-6000 }"),
    (["-p 17", "-m multiport --destination-ports 1234,5678:6000"],
     "meta l4proto 17 udp dport { 1234, 5678-6000 }"),                                  # ProtocolNum.DestPortRanges
    (["-p tcp", "-m multiport --destination-ports 1234,5678"], "meta l4proto tcp tcp dport { 1234, 5678 }"),
])
def test_match_clauses_as_match_builder_test_expects(fragments, clause):
    assert nft_match(fragments) == clause


def test_interface_wildcard_is_nfts_star():
    assert nft_match(["--in-interface cali+"]) == "iifname cali*"


def test_unknown_fragment_or_portless_protocol_is_one_error():
    with pytest.raises(CalicoError, match="no nft form"):
        nft_match(["-m comment --comment x"])
    with pytest.raises(CalicoError, match="TCP, UDP or SCTP"):
        nft_match(["-m multiport --destination-ports 80"])


# ---------------------------------------------------------------------------
# felix/nftables/actions_test.go (no layer: the fragments as the test renders them)


@pytest.mark.parametrize("action, fragment", [
    ("--goto cali-abcd", "goto cali-abcd"),
    ("--jump cali-abcd", "jump cali-abcd"),
    ("--jump RETURN", "return"),
    ("--jump DROP", "drop"),
    ("--jump ACCEPT", "accept"),
    ("--jump MARK --set-mark 0/0x1000", "meta mark set mark & 0xffffefff"),         # ClearMarkAction
    ("--jump MARK --set-mark 0x1000/0x1000", "meta mark set mark or 0x1000"),       # SetMarkAction
    ("--jump MARK --set-mark 0x1000/0xf000", "meta mark set mark & 0xffff0fff ^ 0x1000"),  # SetMaskedMarkAction
])
def test_actions_as_actions_test_expects(action, fragment):
    assert nft_action(action, layer="") == fragment


def test_layer_namespaces_jump_and_goto_targets_once():
    assert nft_action("--jump cali-FORWARD") == "jump filter-cali-FORWARD"
    assert nft_action("--goto filter-cali-x") == "goto filter-cali-x"
    with pytest.raises(CalicoError):
        nft_action("--jump LOG --log-prefix x")


# ---------------------------------------------------------------------------
# felix/nftables/rules_test.go


R1 = [NftRule("foobar baz counter jump biff")]
R2 = [NftRule("foobar baz counter jump boff")]
R3 = R1 + R2


def test_rule_hashes_as_rules_test_expects():
    assert nft_rule_hashes("chain", R1) != nft_rule_hashes("chain", R2)
    assert nft_rule_hashes("chain", R1)[0] == nft_rule_hashes("chain", R3)[0]
    assert nft_rule_hashes("chain", R1) != nft_rule_hashes("chain2", R1)
    assert nft_rule_hashes("chain", R2)[0] != nft_rule_hashes("chain", R3)[1]
    assert [len(nft_rule_hashes("foo", r)) for r in (R1, R2, R3)] == [1, 1, 2]


def test_hash_comments_as_table_test_expects():
    drop, accept = NftRule("counter drop"), NftRule("counter accept")
    assert nft_rule_hashes("filter-FORWARD", [drop, accept, drop, accept]) == [
        "DCGauXoHP5A9-AIO", "6tpY0LmXqEPD5dsI", "_Zdh35A6d8kLWs7z", "K23j5egouXzd1qRD"]
    assert nft_rule_hashes("filter-FORWARD*appends*", [drop, accept]) == ["T41ctVF7TLDIehjM", "AodlDFLDC_KqOIJO"]
    assert nft_rule_hashes("cali-foobar", [accept, drop]) == ["en3LGdDuVUQEgLl8", "iSw4pE2oK6hZ-s52"]
    assert nft_rule_hashes("cali-foobar", [drop, accept]) == ["qEazjD2XdAvzH1n5", "0breZU0oqlsEQH-N"]
    assert _comment("DCGauXoHP5A9-AIO", ("insert drop rule",)) == "cali:DCGauXoHP5A9-AIO; insert drop rule"
    assert _comment("DCGauXoHP5A9-AIO", ()) == "cali:DCGauXoHP5A9-AIO;"


def test_rule_comments_as_rules_test_expects():
    assert _comment("TEST", ("boz", "fizz")) == "cali:TEST; boz fizz"
    assert _comment("TEST", ("boz\nfizz",)) == "cali:TEST; boz_fizz"
    assert _comment("TEST", ("a" * 129,)) == "cali:TEST; " + "a" * 117


# ---------------------------------------------------------------------------
# the table


@pytest.fixture(scope="module")
def nr() -> NftRules:
    return felix_nft_rules(CLUSTER, "node-a")


def test_one_table_layer_namespaced_chains_and_a_forward_base_chain(nr):
    text = nr.nft_transaction()
    lines = text.splitlines()
    assert lines[0] == "add table ip calico"
    # every base chain of table_test.go's expectedBaseChains, created at the first sync
    assert [line.split()[4] for line in lines[1:15]] == [
        "filter-INPUT", "filter-FORWARD", "filter-OUTPUT", "nat-PREROUTING", "nat-INPUT", "nat-OUTPUT",
        "nat-POSTROUTING", "mangle-PREROUTING", "mangle-INPUT", "mangle-FORWARD", "mangle-OUTPUT",
        "mangle-POSTROUTING", "raw-PREROUTING", "raw-OUTPUT"]
    assert lines[2] == "add chain ip calico filter-FORWARD { type filter hook forward priority filter ; }"
    assert "add chain ip calico nat-POSTROUTING { type nat hook postrouting priority srcnat+10 ; }" in lines
    # Felix's srcnat+10 on the output hook, which nft 1.0.6 refuses by name, as its number
    assert "add chain ip calico nat-OUTPUT { type nat hook output priority 110 ; }" in lines
    assert all(n.startswith("filter-cali-") for n in nr.chains)
    assert [r.rule for r in nr.forward_insert] == ["counter jump filter-cali-FORWARD"]
    assert [r.rule for r in nr.forward_append] == ["meta mark & 0x10000 == 0x10000 counter accept",
                                                   "counter meta mark set mark or 0x10000"]
    # inserted and appended rules hash as separate chains (expectedHashesForInsertAppendChain)
    assert f'comment "cali:{nft_rule_hashes("filter-FORWARD*appends*", nr.forward_append)[0]}; Policy explicitly' \
        in text


def test_policy_chains_keep_their_full_id_where_iptables_hashes_it(nr):
    ipt = policy_chain_name("default", "web", "Ingress")
    assert ipt.startswith("cali-pi-_") and len(ipt) == 28
    assert "filter-cali-pi-default/default/knp.default.web" in nr.chains
    assert "filter-cali-po-default/default/knp.default.web" in nr.chains
    # the two policies share a selector: a policy-group chain jumps to both, by their nft names
    (group,) = [n for n in nr.chains if n.startswith("filter-cali-gi-")]
    assert [r.rule for r in nr.chains[group]] == [
        "counter jump filter-cali-pi-default/default/knp.default.web",
        "meta mark & 0x30000 == 0 counter jump filter-cali-pi-default/default/knp.default.web-too"]


def test_dispatch_is_a_verdict_map_per_direction(nr):
    fr = felix_rules(CLUSTER, "node-a")
    veths = sorted(r.match[0].split()[1] for c in fr.chains if c.name.startswith("cali-from-wl-dispatch")
                   for r in c.rules if r.match and not r.match[0].endswith("+"))
    assert len(veths) == 2  # web and client on node-a
    assert nr.maps["filter-cali-from-wl-dispatch"] == {v: f"goto filter-cali-fw-{v}" for v in veths}
    assert nr.maps["filter-cali-to-wl-dispatch"] == {v: f"goto filter-cali-tw-{v}" for v in veths}
    assert [r.rule for r in nr.chains["filter-cali-from-wl-dispatch"]] == [
        "iifname vmap @filter-cali-from-wl-dispatch", "counter drop"]
    assert not any(n.startswith("filter-cali-from-wl-dispatch-") for n in nr.chains)  # no prefix tree
    text = nr.nft_transaction()
    # map elements name chains: they come after every chain and rule (Apply's order)
    assert text.rindex("add rule ") < text.index("add element ip calico filter-cali-from-wl-dispatch")


def test_sets_are_typed_as_felix_and_hold_canonical_members(nr):
    kinds = {kind: (flags, members) for kind, flags, members in nr.sets.values()}
    assert set(kinds) == {"ipv4_addr", "ipv4_addr . inet_proto . inet_service"}
    flags, _ = kinds["ipv4_addr"]
    assert flags == ("interval",)
    members = [m for kind, _, ms in nr.sets.values() if kind == "ipv4_addr" for m in ms]
    assert "192.168.0.3" in members and not any(m.endswith("/32") for m in members)
    ports = [m for kind, _, ms in nr.sets.values() if kind != "ipv4_addr" for m in ms]
    assert "192.168.0.2 . tcp . 8080" in ports and "192.168.0.4 . tcp . 9090" in ports
    assert all(":" not in name for name in nr.sets)


def test_the_same_rules_as_iptables_mode_one_for_one(nr):
    """One home for the policy logic: every iptables rule has its nft twin, save the dispatch tree."""
    fr = felix_rules(CLUSTER, "node-a")
    dispatch = ("cali-from-wl-dispatch", "cali-to-wl-dispatch")
    ipt = sum(len(c.rules) for c in fr.chains if not c.name.startswith(dispatch))
    assert sum(len(r) for n, r in nr.chains.items() if not n.startswith(tuple("filter-" + d for d in dispatch))) == ipt
    web_in = nr.chains["filter-cali-pi-default/default/knp.default.web"]
    text = "\n".join(r.rule for r in web_in)
    assert "meta mark set mark & 0xffe7ffff ^ 0x0" in text  # the match blocks' initial SetMaskedMark
    assert "ip daddr . meta l4proto . th dport @cali40n-" in text and "tcp dport { 80, 443-445 }" in text
    assert "ip saddr 10.1.0.0/16 counter meta mark set mark & 0xfff7ffff" in text  # except: clear scratch0


def test_without_policies_policy_chains_keep_iptables_names():
    ps = PolicySet(CLUSTER)
    fr = felix_rules(CLUSTER, "node-a", policies=ps)
    plain = nft_rules_from_felix(fr)
    assert "filter-" + policy_chain_name("default", "web", "Ingress") in plain.chains


# ---------------------------------------------------------------------------
# the real nft


@pytest.fixture
def felix_nft() -> None:
    """The real nft and unshare: skip without them, fail when CI is set."""
    missing = [b for b in ("nft", "unshare")
               if not (shutil.which(b) or os.path.exists(f"/usr/sbin/{b}") or os.path.exists(f"/usr/bin/{b}"))]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {missing} are not installed (Debian packages nftables, util-linux)")
        pytest.skip(f"{missing} not installed")


def test_real_nft_accepts_the_table(nr, felix_nft):
    r = check_nft(nr)
    assert r.returncode == 0, r.stderr


def test_real_nft_accepts_every_pods_table(felix_nft):
    r = check_nft(felix_nft_rules(CLUSTER))
    assert r.returncode == 0, r.stderr


def test_real_nft_refuses_a_set_that_is_not_in_the_table(nr, felix_nft):
    """The check can fail: the same table without its sets is refused."""
    r = check_nft(NftRules(nr.chains, nr.forward_insert, nr.forward_append, {}, nr.maps))
    assert r.returncode != 0 and "cali40" in r.stderr


# ---------------------------------------------------------------------------
# the CLI


_MANIFESTS = """\
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {addresses: [{type: InternalIP, address: 192.168.1.10}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {addresses: [{type: InternalIP, address: 192.168.1.11}]}
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


def test_calico_rules_dataplane_nftables_prints_the_table(tmp_path, capsys, felix_nft):
    from kubenotes import cli

    (tmp_path / "c.yaml").write_text(_MANIFESTS)
    assert cli.main(["calico", "rules", str(tmp_path / "c.yaml"), "--node", "node-a", "--dataplane", "nftables",
                     "--check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("add table ip calico\n")
    assert "Policy default/knp.default.allow-client ingress" in out and " . th dport @cali40n-" in out
    assert out.count("add chain ip calico filter-cali-tw-") == 1  # web only: client runs on node-b
    assert cli.main(["calico", "rules", str(tmp_path / "c.yaml"), "--dataplane", "nftables", "-o", "summary"]) == 0
    assert '"maps": 2' in capsys.readouterr().out


def test_calico_rules_refuses_outputs_the_dataplane_has_not(tmp_path, capsys):
    from kubenotes import cli

    (tmp_path / "c.yaml").write_text(_MANIFESTS)
    assert cli.main(["calico", "rules", str(tmp_path / "c.yaml"), "--dataplane", "nftables", "-o", "ipset"]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and len(cap.err.strip().splitlines()) == 1 and "-o ipset" in cap.err
    assert cli.main(["calico", "rules", str(tmp_path / "c.yaml"), "-o", "nft"]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and "--dataplane nftables" in cap.err


def test_check_nft_reports_a_missing_binary():
    with pytest.raises(FileNotFoundError):
        check_nft(NftRules({}, [], [], {}, {}), binary="/nonexistent/nft")



def test_policy_rules_benchmark_has_the_nft_figures():
    """benchmarks/policy_rules.py at a tiny size reports the nftables rendering beside iptables'."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "policy_rules.py"
    spec = importlib.util.spec_from_file_location("policy_rules_benchmark_nft", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = {r[0].strip(): r for r in mod.run(pods=100, policies=10, services=0, namespaces=2, nodes=2, restore=False,
                                             flows=10)}
    one, every = rows["nftables: nft_rules_from_felix(node-0)"], rows["nftables: nft_rules_from_felix(all)"]
    assert 0 < one[3] < every[3] and rows["felix_rules(node-0)"][3] > one[3]  # no dispatch tree in nft
    assert "nft -f text" in rows
