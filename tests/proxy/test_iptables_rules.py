"""Tests of kubenotes.proxy.iptables: the rules kube-proxy's iptables mode writes.

Ported from kubernetes/kubernetes@v1.34.0 ``pkg/proxy/iptables/proxier_test.go``, with the
same Services and EndpointSlices given as API objects to :func:`kubenotes.proxy.proxy_state`
(node ``test-node``, cluster CIDR ``10.0.0.0/8``, the fake proxier's mark 0x4000, nfacct
counters present and no ``--random-fully``, as ``NewFakeProxier`` sets them up):

* full expected dumps: TestOverallIPTablesRules, TestSyncProxyRulesRepeated (its first,
  full sync), TestBadIPs (as a hand-built ProxyState: the API objects' leading-zero
  addresses would not survive ``proxy_state``); chain excerpts: TestMasqueradeRule,
  TestDropInvalidRule, TestNodePorts (KUBE-FIREWALL), TestSyncProxyRulesLargeClusterMode
  (comment dropping); TestComputeProbability;
* packet-flow cases through a port of upstream's ``tracePacket`` tracer: TestClusterIPGeneral,
  TestLoadBalancer, TestNodePorts (default ``--nodeport-addresses`` cases), TestHealthCheckNodePort,
  TestNoEndpointsReject, TestExternalTrafficPolicyLocal, TestExternalTrafficPolicyCluster,
  TestInternalTrafficPolicy, TestTerminatingEndpointsTrafficPolicyLocal/Cluster,
  TestInternalExternalMasquerade, TestLoadBalancerIngressRouteTypeProxy;
* ``checkIPTablesRuleJumps`` (every jump target created and filled) on every full dump.

Differences from the upstream inputs: svc4 of TestOverallIPTablesRules is ``type: ClusterIP``
(upstream's ``NodePort`` without a ``nodePort`` cannot exist behind a real API server, which
would allocate one; the rules are the same). Every rendered dump is also fed to the real
``iptables-restore --test`` (``ip6tables-restore`` for IPv6) when it is installed.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shlex
import shutil
import subprocess
import textwrap

import pytest

from kubenotes.proxy import EndpointInfo, ProxyState, ServicePortInfo, ServicePortName, proxy_state
from kubenotes.proxy.iptables import (
    ENDPOINT_CHAIN_RE,
    SERVICE_CHAIN_RE,
    compute_probability,
    iptables_save,
    parse_rule,
    service_port_endpoint_chain_name,
    service_port_policy_cluster_chain,
)
from kubenotes.sim.network import kube_proxy_objects

TEST_NODE_NAME = "test-node"
TEST_NODE_IP = "192.168.0.2"
TEST_NODE_IP_ALT = "192.168.1.2"
TEST_EXTERNAL_IP = "192.168.99.11"
TEST_NODE_IPV6 = "2001:db8::1"
TEST_NODE_IPV6_ALT = "2001:db8:1::2"
TEST_EXTERNAL_CLIENT = "203.0.113.2"
TEST_EXTERNAL_CLIENT_BLOCKED = "203.0.113.130"
TEST_NODE_IPS = [TEST_NODE_IP, TEST_NODE_IP_ALT, TEST_EXTERNAL_IP, TEST_NODE_IPV6, TEST_NODE_IPV6_ALT]

_NO_RESTORE = "iptables-restore is not installed (Debian package iptables)"


# ---------------------------------------------------------------------------
# the real iptables-restore


def _restore_binary(ipv6: bool) -> str | None:
    name = "ip6tables-restore" if ipv6 else "iptables-restore"
    return shutil.which(name) or (f"/usr/sbin/{name}" if os.path.exists(f"/usr/sbin/{name}") else None)


def restore_command(binary: str) -> list[str]:
    """``binary --test``, inside a user+network namespace when not root (iptables-nft insists on root)."""
    if os.geteuid() != 0 and shutil.which("unshare"):
        return ["unshare", "-rn", binary, "--test"]
    return [binary, "--test"]


def check_restore(text: str, ipv6: bool = False) -> None:
    """Feed ``text`` to ``iptables-restore --test`` when installed (CI must have it)."""
    binary = _restore_binary(ipv6)
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {_NO_RESTORE}")
        return
    r = subprocess.run(restore_command(binary), input=text, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"{binary} --test rejected the rules ({r.returncode}):\n{r.stderr}\n{text}"


@pytest.fixture
def iptables_restore() -> str:
    """The real iptables-restore: skip without it, fail when CI is set."""
    binary = _restore_binary(False)
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {_NO_RESTORE}")
        pytest.skip(_NO_RESTORE)
    return binary


# ---------------------------------------------------------------------------
# input objects, as upstream's makeTestService / makeTestEndpointSlice build them


def node(ipv6: bool = False) -> dict:
    ips = [TEST_NODE_IPV6, TEST_NODE_IPV6_ALT] if ipv6 else [TEST_NODE_IP, TEST_NODE_IP_ALT]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": TEST_NODE_NAME},
            "status": {"addresses": [{"type": "InternalIP", "address": a} for a in ips]}}


def service(ns: str, name: str, cluster_ip: str, ports: list[dict], type_: str = "ClusterIP", **spec) -> dict:
    status = {}
    if "lb_ips" in spec:
        status = {"loadBalancer": {"ingress": spec.pop("lb_ips")}}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": ns, "name": name},
            "spec": {"type": type_, "clusterIP": cluster_ip, "clusterIPs": [cluster_ip], "ports": ports, **spec},
            "status": status}


def port(name: str, p: int, protocol: str = "TCP", node_port: int | None = None, target: int | None = None) -> dict:
    d = {"name": name, "port": p, "protocol": protocol, "targetPort": target or p}
    if node_port:
        d["nodePort"] = node_port
    return d


def slice_(ns: str, svc: str, endpoints: list[dict], ports: list[tuple[str, int, str]], num: int = 1,
           address_type: str = "IPv4") -> dict:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"namespace": ns, "name": f"{svc}-{num}", "labels": {"kubernetes.io/service-name": svc}},
            "addressType": address_type, "endpoints": endpoints,
            "ports": [{"name": n, "port": p, "protocol": pr} for n, p, pr in ports]}


def ep(ip: str, node_name: str | None = None, **conditions) -> dict:
    d: dict = {"addresses": [ip]}
    if node_name is not None:
        d["nodeName"] = node_name
    if conditions:
        d["conditions"] = conditions
    return d


def render(objs: list[dict], *, cluster_cidr: str | None = "10.0.0.0/8", full: bool = False, **kw) -> str:
    """proxy_state + iptables_save with NewFakeProxier's settings; checked by iptables-restore."""
    kw.setdefault("random_fully", False)
    state = proxy_state(objs, TEST_NODE_NAME, cluster_cidr=cluster_cidr)
    text = iptables_save(state, full=full, **kw)
    check_restore(text, ipv6=any(":" in ip for ip in state.node_ips))
    return text


def dedent(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


# ---------------------------------------------------------------------------
# checkIPTablesRuleJumps


def tables_of(text: str) -> dict[str, list[str]]:
    tables: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("*"):
            current = line[1:]
            tables[current] = []
        elif line == "COMMIT":
            current = None
        elif current is not None:
            tables[current].append(line)
    return tables


def check_rule_jumps(text: str) -> None:
    """Port of ``checkIPTablesRuleJumps``: jumps go to created, non-empty chains; no unused chains."""
    for table, lines in tables_of(text).items():
        created = {m.group(1) for line in lines if (m := re.match(r"^:([^ ]*)", line))}
        filled = {m.group(1) for line in lines if (m := re.search(r"-A ([^ ]*)", line))}
        jumped = {m.group(1) for line in lines if (m := re.search(r"-j ([^ ]*)", line))}
        jumped -= {"ACCEPT", "REJECT", "DROP", "MARK", "RETURN", "DNAT", "SNAT", "MASQUERADE"}
        assert not (jumped - created) | (filled - created), f"chains in {table} used but not created"
        assert not (jumped - filled) - {"KUBE-NODEPORTS"}, f"chains in {table} jumped to but empty"
        extra = created - jumped - {"KUBE-SERVICES", "KUBE-EXTERNAL-SERVICES", "KUBE-NODEPORTS", "KUBE-POSTROUTING",
                                    "KUBE-FORWARD", "KUBE-MARK-MASQ", "KUBE-PROXY-FIREWALL", "KUBE-FIREWALL"}
        assert not extra, f"chains in {table} created but not used: {sorted(extra)}"


def chain_rules(text: str, table: str, chain: str) -> str:
    return "".join(line + "\n" for line in tables_of(text)[table] if line.startswith(f"-A {chain} "))


# ---------------------------------------------------------------------------
# tracePacket


#: Flag -> (rule key, how its value is kept): "neg" (value, negated?), "value", or "flag" (True).
_RULE_FLAGS = {
    "-s": ("src", "neg"), "-d": ("dst", "neg"), "--src-type": ("src_type", "neg"), "--dst-type": ("dst_type", "neg"),
    "-p": ("proto", "value"), "--dport": ("dport", "value"), "-j": ("jump", "value"),
    "--to-destination": ("dnat", "value"), "--probability": ("probability", "value"),
    "--rcheck": ("affinity_check", "flag"), "--mark": ("mark_check", "flag"), "--ctstate": ("ctstate", "flag"),
}


def _parse_rule(line: str) -> dict:
    toks = shlex.split(line)
    rule: dict = {"chain": toks[1], "raw": line}
    neg = False
    i = 2
    while i < len(toks):
        t = toks[i]
        if t == "!":
            neg = True
            i += 1
            continue
        val = toks[i + 1] if i + 1 < len(toks) else None
        if t in _RULE_FLAGS:
            key, kind = _RULE_FLAGS[t]
            rule[key] = (val, neg) if kind == "neg" else (val if kind == "value" else True)
        neg = False
        i += 1
    return rule


def _address_matches(spec: tuple[str, bool], ip: str) -> bool:
    value, negated = spec
    addr = ipaddress.ip_address(ip)
    if "/" in value:
        net = ipaddress.ip_network(value, strict=False)
        matches = addr.version == net.version and addr in net
    else:
        matches = addr == ipaddress.ip_address(value)
    return matches != negated


class Tracer:
    """Port of upstream's ``iptablesTracer``."""

    def __init__(self, text: str, node_ips: list[str]):
        self.chains: dict[tuple[str, str], list[dict]] = {}
        for table, lines in tables_of(text).items():
            for line in lines:
                if line.startswith("-A "):
                    r = _parse_rule(line)
                    self.chains.setdefault((table, r["chain"]), []).append(r)
        self.local_ips = {"127.0.0.1", "::1", *node_ips}
        self.matches: list[str] = []
        self.outputs: list[str] = []
        self.mark_masq = False

    def rule_matches(self, r: dict, src: str, proto: str, dst: str, dport: str) -> bool:
        if "src" in r and not _address_matches(r["src"], src):
            return False
        if "src_type" in r and (("LOCAL" if src in self.local_ips else "x") == r["src_type"][0]) == r["src_type"][1]:
            return False
        if "proto" in r and r["proto"] != proto:
            return False
        if "dst" in r and not _address_matches(r["dst"], dst):
            return False
        if "dst_type" in r and (("LOCAL" if dst in self.local_ips else "x") == r["dst_type"][0]) == r["dst_type"][1]:
            return False
        if "dport" in r and r["dport"] != dport:
            return False
        return not (r.get("affinity_check") or r.get("mark_check") or r.get("ctstate"))

    def run_chain(self, table: str, chain: str, src: str, proto: str, dst: str, dport: str) -> bool:
        for r in self.chains.get((table, chain), []):
            if "jump" not in r or not self.rule_matches(r, src, proto, dst, dport):
                continue
            self.matches.append(r["raw"])
            j = r["jump"]
            if j == "KUBE-MARK-MASQ":
                self.mark_masq = True
                continue
            if j in ("ACCEPT", "REJECT", "DROP"):
                self.outputs.append(j)
                return True
            if j == "DNAT":
                self.outputs.append(r["dnat"])
                return True
            if self.run_chain(table, j, src, proto, dst, dport) and "probability" not in r:
                return True
        return False


def trace_packet(text: str, src: str, dst: str, dport: int, proto: str = "tcp") -> tuple[str, bool]:
    """``tracePacket``: (comma-separated destinations or ACCEPT/DROP/REJECT, masqueraded)."""
    t = Tracer(text, TEST_NODE_IPS)
    t.run_chain("nat", "PREROUTING", src, proto, dst, str(dport))
    if t.outputs:
        dst = t.outputs[0].rsplit(":", 1)[0].strip("[]")
    for chain in ("KUBE-SERVICES", "KUBE-EXTERNAL-SERVICES", "KUBE-NODEPORTS", "KUBE-PROXY-FIREWALL"):
        t.run_chain("filter", chain, src, proto, dst, str(dport))
    return ", ".join(t.outputs), t.mark_masq


def run_flows(text: str, flows: list[tuple]) -> None:
    """Each flow: (name, source, destination, port, expected output, masq[, protocol])."""
    failures = []
    for name, src, dst, dport, output, masq, *proto in flows:
        got, got_masq = trace_packet(text, src, dst, dport, *(p.lower() for p in proto))
        if (got, got_masq) != (output, masq):
            failures.append(f"{name}: expected {output!r} masq={masq}, got {got!r} masq={got_masq}")
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------
# chain names and probabilities


def test_chain_names_are_upstreams_hashes() -> None:
    assert service_port_policy_cluster_chain("ns1/svc1:p80", "tcp") == "KUBE-SVC-XPGD46QRK7WJZT7O"
    assert service_port_policy_cluster_chain("ns2/svc2:p8080", "tcp") == "KUBE-SVC-2VJB64SDSIJUP5T6"
    assert service_port_endpoint_chain_name("ns3/svc3:p80", "tcp", "10.0.3.1:80") == "KUBE-SEP-BSWRHOQ77KEXZLNL"
    assert service_port_endpoint_chain_name("ns1/svc1:p80", "tcp", "10.0.0.0:80") == "KUBE-SEP-DKGQUZGBKLTPAR56"


def test_compute_probability() -> None:
    """TestComputeProbability."""
    expected = {1: "1.0000000000", 2: "0.5000000000", 10: "0.1000000000", 100: "0.0100000000",
                1000: "0.0010000000", 10000: "0.0001000000", 100000: "0.0000100000", 100001: "0.0000099999"}
    assert {n: compute_probability(n) for n in expected} == expected
    values = [float(compute_probability(i)) for i in range(100000, 1, -1)]
    assert all(a < b for a, b in zip(values, values[1:]))


# ---------------------------------------------------------------------------
# full dumps


def overall_objects() -> list[dict]:
    return [
        node(),
        service("ns1", "svc1", "172.30.0.41", [port("p80", 80)]),
        service("ns2", "svc2", "172.30.0.42", [port("p80", 80, node_port=3001)], "LoadBalancer",
                externalTrafficPolicy="Local", externalIPs=["192.168.99.22"], healthCheckNodePort=30000,
                lb_ips=[{"ip": "1.2.3.4"}]),
        service("ns3", "svc3", "172.30.0.43", [port("p80", 80, node_port=3003)], "NodePort"),
        service("ns4", "svc4", "172.30.0.44", [port("p80", 80)], externalIPs=["192.168.99.33"]),
        service("ns5", "svc5", "172.30.0.45", [port("p80", 80, node_port=3002)], "LoadBalancer",
                externalTrafficPolicy="Cluster", healthCheckNodePort=30000,
                loadBalancerSourceRanges=[" 203.0.113.0/25"], sessionAffinity="ClientIP",
                sessionAffinityConfig={"clientIP": {"timeoutSeconds": 10800}}, lb_ips=[{"ip": "5.6.7.8"}]),
        service("ns6", "svc6", "172.30.0.46", [port("p80", 80)]),
        slice_("ns1", "svc1", [ep("10.180.0.1")], [("p80", 80, "TCP")]),
        slice_("ns2", "svc2", [ep("10.180.0.2")], [("p80", 80, "TCP")]),
        slice_("ns3", "svc3", [ep("10.180.0.3")], [("p80", 80, "TCP")]),
        slice_("ns4", "svc4", [ep("10.180.0.4"), ep("10.180.0.5", TEST_NODE_NAME)], [("p80", 80, "TCP")]),
        slice_("ns5", "svc5", [ep("10.180.0.3")], [("p80", 80, "TCP")]),
    ]


OVERALL_EXPECTED = dedent('''
    *filter
    :KUBE-NODEPORTS - [0:0]
    :KUBE-SERVICES - [0:0]
    :KUBE-EXTERNAL-SERVICES - [0:0]
    :KUBE-FIREWALL - [0:0]
    :KUBE-FORWARD - [0:0]
    :KUBE-PROXY-FIREWALL - [0:0]
    -A KUBE-NODEPORTS -m comment --comment "ns2/svc2:p80 health check node port" -m tcp -p tcp --dport 30000 -j ACCEPT
    -A KUBE-SERVICES -m comment --comment "ns6/svc6:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.46 --dport 80 -j REJECT
    -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns2/svc2:p80 has no local endpoints" -m tcp -p tcp -d 192.168.99.22 --dport 80 -j DROP
    -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns2/svc2:p80 has no local endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP
    -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns2/svc2:p80 has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j DROP
    -A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
    -A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP
    -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
    -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
    -A KUBE-PROXY-FIREWALL -m comment --comment "ns5/svc5:p80 traffic not accepted by KUBE-FW-NUKIZ6OKUXPJNT4C" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j DROP
    COMMIT
    *nat
    :KUBE-NODEPORTS - [0:0]
    :KUBE-SERVICES - [0:0]
    :KUBE-EXT-4SW47YFZTEDKD3PK - [0:0]
    :KUBE-EXT-GNZBNJ2PO5MGZ6GT - [0:0]
    :KUBE-EXT-NUKIZ6OKUXPJNT4C - [0:0]
    :KUBE-EXT-X27LE4BHSL4DOUIK - [0:0]
    :KUBE-FW-NUKIZ6OKUXPJNT4C - [0:0]
    :KUBE-MARK-MASQ - [0:0]
    :KUBE-POSTROUTING - [0:0]
    :KUBE-SEP-C6EBXVWJJZMIWKLZ - [0:0]
    :KUBE-SEP-I77PXRDZVX7PMWMN - [0:0]
    :KUBE-SEP-OYPFS5VJICHGATKP - [0:0]
    :KUBE-SEP-RS4RBKLTHTF2IUXJ - [0:0]
    :KUBE-SEP-SXIVWICOYRO3J4NJ - [0:0]
    :KUBE-SEP-UKSFD7AGPMPPLUHC - [0:0]
    :KUBE-SVC-4SW47YFZTEDKD3PK - [0:0]
    :KUBE-SVC-GNZBNJ2PO5MGZ6GT - [0:0]
    :KUBE-SVC-NUKIZ6OKUXPJNT4C - [0:0]
    :KUBE-SVC-X27LE4BHSL4DOUIK - [0:0]
    :KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]
    -A KUBE-NODEPORTS -m comment --comment ns2/svc2:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3001 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-GNZBNJ2PO5MGZ6GT
    -A KUBE-NODEPORTS -m comment --comment ns2/svc2:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-GNZBNJ2PO5MGZ6GT
    -A KUBE-NODEPORTS -m comment --comment ns3/svc3:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3003 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-X27LE4BHSL4DOUIK
    -A KUBE-NODEPORTS -m comment --comment ns3/svc3:p80 -m tcp -p tcp --dport 3003 -j KUBE-EXT-X27LE4BHSL4DOUIK
    -A KUBE-NODEPORTS -m comment --comment ns5/svc5:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3002 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-NUKIZ6OKUXPJNT4C
    -A KUBE-NODEPORTS -m comment --comment ns5/svc5:p80 -m tcp -p tcp --dport 3002 -j KUBE-EXT-NUKIZ6OKUXPJNT4C
    -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O
    -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 80 -j KUBE-SVC-GNZBNJ2PO5MGZ6GT
    -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 external IP" -m tcp -p tcp -d 192.168.99.22 --dport 80 -j KUBE-EXT-GNZBNJ2PO5MGZ6GT
    -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j KUBE-EXT-GNZBNJ2PO5MGZ6GT
    -A KUBE-SERVICES -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 -j KUBE-SVC-X27LE4BHSL4DOUIK
    -A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 cluster IP" -m tcp -p tcp -d 172.30.0.44 --dport 80 -j KUBE-SVC-4SW47YFZTEDKD3PK
    -A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 external IP" -m tcp -p tcp -d 192.168.99.33 --dport 80 -j KUBE-EXT-4SW47YFZTEDKD3PK
    -A KUBE-SERVICES -m comment --comment "ns5/svc5:p80 cluster IP" -m tcp -p tcp -d 172.30.0.45 --dport 80 -j KUBE-SVC-NUKIZ6OKUXPJNT4C
    -A KUBE-SERVICES -m comment --comment "ns5/svc5:p80 loadbalancer IP" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j KUBE-FW-NUKIZ6OKUXPJNT4C
    -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
    -A KUBE-EXT-4SW47YFZTEDKD3PK -m comment --comment "masquerade traffic for ns4/svc4:p80 external destinations" -j KUBE-MARK-MASQ
    -A KUBE-EXT-4SW47YFZTEDKD3PK -j KUBE-SVC-4SW47YFZTEDKD3PK
    -A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment "pod traffic for ns2/svc2:p80 external destinations" -s 10.0.0.0/8 -j KUBE-SVC-GNZBNJ2PO5MGZ6GT
    -A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment "masquerade LOCAL traffic for ns2/svc2:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
    -A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment "route LOCAL traffic for ns2/svc2:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-GNZBNJ2PO5MGZ6GT
    -A KUBE-EXT-NUKIZ6OKUXPJNT4C -m comment --comment "masquerade traffic for ns5/svc5:p80 external destinations" -j KUBE-MARK-MASQ
    -A KUBE-EXT-NUKIZ6OKUXPJNT4C -j KUBE-SVC-NUKIZ6OKUXPJNT4C
    -A KUBE-EXT-X27LE4BHSL4DOUIK -m comment --comment "masquerade traffic for ns3/svc3:p80 external destinations" -j KUBE-MARK-MASQ
    -A KUBE-EXT-X27LE4BHSL4DOUIK -j KUBE-SVC-X27LE4BHSL4DOUIK
    -A KUBE-FW-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 loadbalancer IP" -s 203.0.113.0/25 -j KUBE-EXT-NUKIZ6OKUXPJNT4C
    -A KUBE-FW-NUKIZ6OKUXPJNT4C -m comment --comment "other traffic to ns5/svc5:p80 will be dropped by KUBE-PROXY-FIREWALL"
    -A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
    -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
    -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
    -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
    -A KUBE-SEP-C6EBXVWJJZMIWKLZ -m comment --comment ns4/svc4:p80 -s 10.180.0.5 -j KUBE-MARK-MASQ
    -A KUBE-SEP-C6EBXVWJJZMIWKLZ -m comment --comment ns4/svc4:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.5:80
    -A KUBE-SEP-I77PXRDZVX7PMWMN -m comment --comment ns5/svc5:p80 -s 10.180.0.3 -j KUBE-MARK-MASQ
    -A KUBE-SEP-I77PXRDZVX7PMWMN -m comment --comment ns5/svc5:p80 -m recent --name KUBE-SEP-I77PXRDZVX7PMWMN --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.3:80
    -A KUBE-SEP-OYPFS5VJICHGATKP -m comment --comment ns3/svc3:p80 -s 10.180.0.3 -j KUBE-MARK-MASQ
    -A KUBE-SEP-OYPFS5VJICHGATKP -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.3:80
    -A KUBE-SEP-RS4RBKLTHTF2IUXJ -m comment --comment ns2/svc2:p80 -s 10.180.0.2 -j KUBE-MARK-MASQ
    -A KUBE-SEP-RS4RBKLTHTF2IUXJ -m comment --comment ns2/svc2:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.2:80
    -A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ
    -A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80
    -A KUBE-SEP-UKSFD7AGPMPPLUHC -m comment --comment ns4/svc4:p80 -s 10.180.0.4 -j KUBE-MARK-MASQ
    -A KUBE-SEP-UKSFD7AGPMPPLUHC -m comment --comment ns4/svc4:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.4:80
    -A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 cluster IP" -m tcp -p tcp -d 172.30.0.44 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 -> 10.180.0.4:80" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-UKSFD7AGPMPPLUHC
    -A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 -> 10.180.0.5:80" -j KUBE-SEP-C6EBXVWJJZMIWKLZ
    -A KUBE-SVC-GNZBNJ2PO5MGZ6GT -m comment --comment "ns2/svc2:p80 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-GNZBNJ2PO5MGZ6GT -m comment --comment "ns2/svc2:p80 -> 10.180.0.2:80" -j KUBE-SEP-RS4RBKLTHTF2IUXJ
    -A KUBE-SVC-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 cluster IP" -m tcp -p tcp -d 172.30.0.45 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 -> 10.180.0.3:80" -m recent --name KUBE-SEP-I77PXRDZVX7PMWMN --rcheck --seconds 10800 --reap -j KUBE-SEP-I77PXRDZVX7PMWMN
    -A KUBE-SVC-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 -> 10.180.0.3:80" -j KUBE-SEP-I77PXRDZVX7PMWMN
    -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 -> 10.180.0.3:80" -j KUBE-SEP-OYPFS5VJICHGATKP
    -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ
    COMMIT
    ''')


def test_overall_iptables_rules() -> None:
    """TestOverallIPTablesRules: a variety of Services, rules exactly as upstream expects."""
    out = render(overall_objects())
    assert out == OVERALL_EXPECTED
    check_rule_jumps(out)


def test_sync_proxy_rules_repeated_first_sync() -> None:
    """TestSyncProxyRulesRepeated: the initial full sync of two ClusterIP Services."""
    out = render([
        node(),
        service("ns1", "svc1", "172.30.0.41", [port("p80", 80)]),
        service("ns2", "svc2", "172.30.0.42", [port("p8080", 8080)]),
        slice_("ns1", "svc1", [ep("10.0.1.1")], [("p80", 80, "TCP")]),
        slice_("ns2", "svc2", [ep("10.0.2.1")], [("p8080", 8080, "TCP")]),
    ])
    assert out == dedent('''
        *filter
        :KUBE-NODEPORTS - [0:0]
        :KUBE-SERVICES - [0:0]
        :KUBE-EXTERNAL-SERVICES - [0:0]
        :KUBE-FIREWALL - [0:0]
        :KUBE-FORWARD - [0:0]
        :KUBE-PROXY-FIREWALL - [0:0]
        -A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
        -A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP
        -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
        -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
        COMMIT
        *nat
        :KUBE-NODEPORTS - [0:0]
        :KUBE-SERVICES - [0:0]
        :KUBE-MARK-MASQ - [0:0]
        :KUBE-POSTROUTING - [0:0]
        :KUBE-SEP-SNQ3ZNILQDEJNDQO - [0:0]
        :KUBE-SEP-UHEGFW77JX3KXTOV - [0:0]
        :KUBE-SVC-2VJB64SDSIJUP5T6 - [0:0]
        :KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]
        -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O
        -A KUBE-SERVICES -m comment --comment "ns2/svc2:p8080 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 8080 -j KUBE-SVC-2VJB64SDSIJUP5T6
        -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
        -A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
        -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
        -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
        -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
        -A KUBE-SEP-SNQ3ZNILQDEJNDQO -m comment --comment ns1/svc1:p80 -s 10.0.1.1 -j KUBE-MARK-MASQ
        -A KUBE-SEP-SNQ3ZNILQDEJNDQO -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.1.1:80
        -A KUBE-SEP-UHEGFW77JX3KXTOV -m comment --comment ns2/svc2:p8080 -s 10.0.2.1 -j KUBE-MARK-MASQ
        -A KUBE-SEP-UHEGFW77JX3KXTOV -m comment --comment ns2/svc2:p8080 -m tcp -p tcp -j DNAT --to-destination 10.0.2.1:8080
        -A KUBE-SVC-2VJB64SDSIJUP5T6 -m comment --comment "ns2/svc2:p8080 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 8080 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-2VJB64SDSIJUP5T6 -m comment --comment "ns2/svc2:p8080 -> 10.0.2.1:8080" -j KUBE-SEP-UHEGFW77JX3KXTOV
        -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.0.1.1:80" -j KUBE-SEP-SNQ3ZNILQDEJNDQO
        COMMIT
        ''')
    check_rule_jumps(out)


def test_bad_ips_are_rewritten() -> None:
    """TestBadIPs: leading-zero addresses and CIDRs come out canonical (ProxyState built by hand)."""
    spn = ServicePortName("ns1", "svc1", "p80")
    svc = ServicePortInfo(spn, "TCP", 80, ("172.30.0.041",), 3001, 80, None, ("192.168.099.022",), ("1.2.3.004",),
                          ("203.0.113.000/025",), False, False, 0, "LoadBalancer")
    endpoint = EndpointInfo("10.180.00.001", 80, ready=True, serving=True, terminating=False, is_local=False)
    state = ProxyState(TEST_NODE_NAME, (TEST_NODE_IP,), None, "10.0.0.0/8", {spn: svc}, {spn: (endpoint,)})
    out = iptables_save(state, random_fully=False)
    check_restore(out)
    check_rule_jumps(out)
    nat = "".join(line + "\n" for line in tables_of(out)["nat"])
    assert nat == dedent('''
        :KUBE-NODEPORTS - [0:0]
        :KUBE-SERVICES - [0:0]
        :KUBE-EXT-XPGD46QRK7WJZT7O - [0:0]
        :KUBE-FW-XPGD46QRK7WJZT7O - [0:0]
        :KUBE-MARK-MASQ - [0:0]
        :KUBE-POSTROUTING - [0:0]
        :KUBE-SEP-SXIVWICOYRO3J4NJ - [0:0]
        :KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]
        -A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3001 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-XPGD46QRK7WJZT7O
        -A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-XPGD46QRK7WJZT7O
        -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O
        -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 external IP" -m tcp -p tcp -d 192.168.99.22 --dport 80 -j KUBE-EXT-XPGD46QRK7WJZT7O
        -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j KUBE-FW-XPGD46QRK7WJZT7O
        -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
        -A KUBE-EXT-XPGD46QRK7WJZT7O -m comment --comment "masquerade traffic for ns1/svc1:p80 external destinations" -j KUBE-MARK-MASQ
        -A KUBE-EXT-XPGD46QRK7WJZT7O -j KUBE-SVC-XPGD46QRK7WJZT7O
        -A KUBE-FW-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 203.0.113.0/25 -j KUBE-EXT-XPGD46QRK7WJZT7O
        -A KUBE-FW-XPGD46QRK7WJZT7O -m comment --comment "other traffic to ns1/svc1:p80 will be dropped by KUBE-PROXY-FIREWALL"
        -A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
        -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
        -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
        -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
        -A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ
        -A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80
        -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ
        ''')
    assert '-A KUBE-PROXY-FIREWALL -m comment --comment "ns1/svc1:p80 traffic not accepted by KUBE-FW-XPGD46QRK7WJZT7O" ' \
           "-m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP" in out


# ---------------------------------------------------------------------------
# chain excerpts


@pytest.mark.parametrize("random_fully", [False, True])
def test_masquerade_rule(random_fully: bool) -> None:
    """TestMasqueradeRule: --random-fully when iptables supports it."""
    out = render([node()], random_fully=random_fully)
    suffix = " --random-fully" if random_fully else ""
    assert chain_rules(out, "nat", "KUBE-POSTROUTING") == dedent(f'''
        -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
        -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
        -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE{suffix}
        ''')


def test_masquerade_bit_sets_the_mark() -> None:
    out = render([node()], masquerade_bit=0)
    assert "-A KUBE-MARK-MASQ -j MARK --or-mark 0x1\n" in out
    assert "-m mark --mark 0x1/0x1 -j ACCEPT" in out


@pytest.mark.parametrize("nfacct,tcp_liberal,drop_rule", [
    (False, False, "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP\n"),
    (True, False, "-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP\n"),
    (False, True, ""),
])
def test_drop_invalid_rule(nfacct: bool, tcp_liberal: bool, drop_rule: str) -> None:
    """TestDropInvalidRule."""
    out = render([node()], nfacct=nfacct, conntrack_tcp_be_liberal=tcp_liberal)
    assert chain_rules(out, "filter", "KUBE-FORWARD") == drop_rule + dedent('''
        -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
        -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
        ''')


def test_large_cluster_mode_drops_endpoint_comments() -> None:
    """TestSyncProxyRulesLargeClusterMode: comments go once there are more than 1000 endpoints."""
    objs = [
        node(),
        service("ns1", "svc1", "172.30.0.41", [port("p80", 80)]),
        service("ns2", "svc2", "172.30.0.42", [port("p8080", 8080)]),
        service("ns3", "svc3", "172.30.0.43", [port("p8081", 8081)]),
        slice_("ns1", "svc1", [ep(f"10.0.{i % 256}.{i // 256}") for i in range(499)], [("p80", 80, "TCP")]),
        slice_("ns2", "svc2", [ep(f"10.1.{i % 256}.{i // 256}") for i in range(499)], [("p8080", 8080, "TCP")]),
    ]

    def count(text: str, match: str) -> tuple[str, int, int]:
        lines = [line for line in text.splitlines() if line.startswith("-A KUBE-SEP-") and "-j DNAT" in line]
        return (next((line for line in lines if match in line), ""), len(lines),
                sum("--comment" in line for line in lines))

    out = render(objs, masquerade_all=True)
    first, n, comments = count(out, "10.0.0.0:")
    assert first == "-A KUBE-SEP-DKGQUZGBKLTPAR56 -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80"
    assert (n, comments) == (998, 998)

    objs.append(slice_("ns3", "svc3", [ep("203.0.113.4"), ep("203.0.113.8"), ep("203.0.113.12")],
                       [("p8081", 8081, "TCP")]))
    out = render(objs, masquerade_all=True)
    first, n, comments = count(out, "10.0.0.0:")
    assert first == "-A KUBE-SEP-DKGQUZGBKLTPAR56 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80"
    assert count(out, "203.0.113.4:")[0] == "-A KUBE-SEP-RUVVH7YV3PHQBDOS -m tcp -p tcp -j DNAT --to-destination 203.0.113.4:8081"
    assert (n, comments) == (1001, 0)
    # the KUBE-SVC -> KUBE-SEP rules lose their comments too, the cluster IP rules keep theirs
    assert "-A KUBE-SVC-XPGD46QRK7WJZT7O -m statistic --mode random --probability 0.0020040080 -j KUBE-SEP-" in out
    assert '-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP"' in out


def test_probability_ladder_gives_each_endpoint_one_nth() -> None:
    """Endpoint i of n gets --probability 1/(n-i); the last rule has none."""
    objs = [node(), service("ns1", "svc1", "172.30.0.41", [port("p80", 80)]),
            slice_("ns1", "svc1", [ep(f"10.180.0.{i}") for i in range(1, 5)], [("p80", 80, "TCP")])]
    out = render(objs)
    probs = [m.group(1) if (m := re.search(r"--probability (\S+)", line)) else None
             for line in chain_rules(out, "nat", "KUBE-SVC-XPGD46QRK7WJZT7O").splitlines() if "-> " in line]
    assert probs == ["0.2500000000", "0.3333333333", "0.5000000000", None]


def test_parse_rule_reads_the_service_chains_back() -> None:
    """parse_rule: the KUBE-SERVICES jump, the KUBE-SVC -> KUBE-SEP ladder and the DNATs, as rendered."""
    objs = [node(), service("ns1", "svc1", "172.30.0.41", [port("p80", 80)]),
            slice_("ns1", "svc1", [ep(f"10.180.0.{i}") for i in range(1, 4)], [("p80", 80, "TCP")])]
    rules = [r for r in map(parse_rule, render(objs).splitlines()) if r is not None]
    entry = next(r for r in rules if r.chain == "KUBE-SERVICES" and SERVICE_CHAIN_RE.fullmatch(r.jump))
    assert (entry.jump, entry.comment, entry.destination_address, entry.destination_port) == (
        "KUBE-SVC-XPGD46QRK7WJZT7O", "ns1/svc1:p80 cluster IP", "172.30.0.41", "80")
    ladder = [r for r in rules if SERVICE_CHAIN_RE.fullmatch(r.chain) and ENDPOINT_CHAIN_RE.fullmatch(r.jump)]
    assert [r.probability for r in ladder] == ["0.3333333333", "0.5000000000", None]
    assert sorted(r.dnat_destination for r in rules if r.jump == "DNAT") == [f"10.180.0.{i}:80" for i in range(1, 4)]
    assert parse_rule("*nat") is None and parse_rule(":KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]") is None


def test_ipv6_rules() -> None:
    """An IPv6 node: ip6tables rules, bracketed endpoints, no localhost NodePorts or KUBE-FIREWALL."""
    objs = [node(ipv6=True),
            service("ns1", "svc1", "fd00:172:30::41", [port("p80", 80, node_port=3001)], "NodePort"),
            slice_("ns1", "svc1", [ep("fd00:10:180::1"), ep("fd00:10:180::2:1", TEST_NODE_NAME)],
                   [("p80", 80, "TCP")], address_type="IPv6")]
    out = render(objs, cluster_cidr="fd00:10::/64")
    assert "--to-destination [fd00:10:180::1]:80" in out
    assert "KUBE-FIREWALL" not in out and "127.0.0.0/8" not in out
    assert ("-m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS" in out)
    assert "! -s fd00:10::/64 -j KUBE-MARK-MASQ" in out
    check_rule_jumps(out)


def test_full_dump_has_jumps_builtins_and_canaries(iptables_restore: str) -> None:
    """full=True: what iptables-save shows on the node, jump rules in Prepend order."""
    out = render(overall_objects(), full=True)
    assert list(tables_of(out)) == ["filter", "mangle", "nat"]
    assert chain_rules(out, "filter", "INPUT") == dedent('''
        -A INPUT -j KUBE-FIREWALL
        -A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL
        -A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS
        -A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES
        ''')
    assert chain_rules(out, "nat", "PREROUTING") == \
        '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\n'
    for table in ("filter", "mangle", "nat"):
        assert ":KUBE-PROXY-CANARY - [0:0]" in tables_of(out)[table]
    # the restore payload is contained unchanged
    restore_rules = [line for line in OVERALL_EXPECTED.splitlines() if line.startswith("-A ")]
    assert [line for line in out.splitlines() if line in set(restore_rules)] != []
    assert set(restore_rules) <= set(out.splitlines())


def test_restore_accepts_every_kind_of_rule(iptables_restore: str) -> None:
    """The real iptables-restore --test accepts the overall dump (the fixture skips without it)."""
    r = subprocess.run(restore_command(iptables_restore), input=render(overall_objects(), random_fully=True),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    bad = OVERALL_EXPECTED.replace("--probability 0.5000000000", "--probability 1.5")
    r = subprocess.run(restore_command(iptables_restore), input=bad, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr


# ---------------------------------------------------------------------------
# packet flows


def test_overall_rules_packet_flows() -> None:
    """TestTracePacket's flows, against the rules rendered for TestOverallIPTablesRules."""
    out = render(overall_objects(), full=True)
    run_flows(out, [
        ("no match", "10.0.0.2", "10.0.0.3", 80, "", False),
        ("single endpoint", "10.0.0.2", "172.30.0.41", 80, "10.180.0.1:80", False),
        ("multiple endpoints", "10.0.0.2", "172.30.0.44", 80, "10.180.0.4:80, 10.180.0.5:80", False),
        ("LOCAL, KUBE-MARK-MASQ", TEST_NODE_IP, "192.168.99.22", 80, "10.180.0.2:80", True),
        ("DROP", TEST_EXTERNAL_CLIENT, "192.168.99.22", 80, "DROP", False),
        ("ACCEPT (NodePortHealthCheck)", TEST_NODE_IP, TEST_NODE_IP, 30000, "ACCEPT", False),
        ("REJECT", "10.0.0.2", "172.30.0.46", 80, "REJECT", False),
    ])


def test_no_endpoints_reject() -> None:
    """TestNoEndpointsReject."""
    out = render([node(), service("ns1", "svc1", "172.30.0.41", [port("p80", 80, node_port=3001)], "LoadBalancer",
                                  externalIPs=["192.168.99.11"], lb_ips=[{"ip": "1.2.3.4"}])], full=True)
    run_flows(out, [
        ("pod to cluster IP with no endpoints", "10.0.0.2", "172.30.0.41", 80, "REJECT", False),
        ("external to external IP with no endpoints", TEST_EXTERNAL_CLIENT, "192.168.99.11", 80, "REJECT", False),
        ("pod to NodePort with no endpoints", "10.0.0.2", TEST_NODE_IP, 3001, "REJECT", False),
        ("external to NodePort with no endpoints", TEST_EXTERNAL_CLIENT, TEST_NODE_IP, 3001, "REJECT", False),
        ("pod to LoadBalancer IP with no endpoints", "10.0.0.2", "1.2.3.4", 80, "REJECT", False),
        ("external to LoadBalancer IP with no endpoints", TEST_EXTERNAL_CLIENT, "1.2.3.4", 80, "REJECT", False),
    ])


def test_cluster_ip_general() -> None:
    """TestClusterIPGeneral."""
    out = render([
        node(),
        service("ns1", "svc1", "172.30.0.41", [port("http", 80)]),
        service("ns2", "svc2", "172.30.0.42", [port("http", 80), port("https", 443, target=8443),
                                                port("dns-udp", 53, "UDP"), port("dns-tcp", 53, target=5353),
                                                port("dns-sctp", 53, "SCTP")]),
        slice_("ns1", "svc1", [ep("10.180.0.1", TEST_NODE_NAME)], [("http", 80, "TCP")]),
        slice_("ns2", "svc2", [ep("10.180.0.1", TEST_NODE_NAME), ep("10.180.2.1", "node2")],
               [("http", 80, "TCP"), ("https", 8443, "TCP"), ("dns-udp", 53, "UDP"), ("dns-tcp", 5353, "TCP"),
                ("dns-sctp", 53, "SCTP")]),
    ], full=True)
    run_flows(out, [
        ("simple clusterIP", "10.180.0.2", "172.30.0.41", 80, "10.180.0.1:80", False),
        ("hairpin to cluster IP", "10.180.0.1", "172.30.0.41", 80, "10.180.0.1:80", True),
        ("clusterIP with multiple endpoints", "10.180.0.2", "172.30.0.42", 80, "10.180.0.1:80, 10.180.2.1:80", False),
        ("clusterIP with TargetPort", "10.180.0.2", "172.30.0.42", 443, "10.180.0.1:8443, 10.180.2.1:8443", False),
        ("TCP, UDP and SCTP on same port (TCP)", "10.180.0.2", "172.30.0.42", 53,
         "10.180.0.1:5353, 10.180.2.1:5353", False, "TCP"),
        ("TCP, UDP and SCTP on same port (UDP)", "10.180.0.2", "172.30.0.42", 53,
         "10.180.0.1:53, 10.180.2.1:53", False, "UDP"),
        ("TCP, UDP and SCTP on same port (SCTP)", "10.180.0.2", "172.30.0.42", 53,
         "10.180.0.1:53, 10.180.2.1:53", False, "SCTP"),
        ("TCP-only port does not match UDP traffic", "10.180.0.2", "172.30.0.42", 80, "", False, "UDP"),
        ("svc1 does not accept svc2's ports", "10.180.0.2", "172.30.0.41", 443, "", False),
    ])


def test_load_balancer() -> None:
    """TestLoadBalancer: loadBalancerSourceRanges, and the node allowed through its own LB IPs."""
    out = render([
        node(),
        service("ns1", "svc1", "172.30.0.41", [port("p80", 80, node_port=3001)], "LoadBalancer",
                lb_ips=[{"ip": "1.2.3.4"}, {"ip": "5.6.7.8"}],
                loadBalancerSourceRanges=["192.168.0.0/24", " 203.0.113.0/25"]),
        slice_("ns1", "svc1", [ep("10.180.0.1")], [("p80", 80, "TCP")]),
    ], full=True)
    e = "10.180.0.1:80"
    run_flows(out, [
        ("pod to cluster IP", "10.0.0.2", "172.30.0.41", 80, e, False),
        ("external to nodePort", TEST_EXTERNAL_CLIENT, TEST_NODE_IP, 3001, e, True),
        ("nodePort bypasses LoadBalancerSourceRanges", TEST_EXTERNAL_CLIENT_BLOCKED, TEST_NODE_IP, 3001, e, True),
        ("accepted external to LB1", TEST_EXTERNAL_CLIENT, "1.2.3.4", 80, e, True),
        ("accepted external to LB2", TEST_EXTERNAL_CLIENT, "5.6.7.8", 80, e, True),
        ("blocked external to LB1", TEST_EXTERNAL_CLIENT_BLOCKED, "1.2.3.4", 80, "DROP", False),
        ("blocked external to LB2", TEST_EXTERNAL_CLIENT_BLOCKED, "5.6.7.8", 80, "DROP", False),
        ("pod to LB1 (blocked by LoadBalancerSourceRanges)", "10.0.0.2", "1.2.3.4", 80, "DROP", False),
        ("pod to LB2 (blocked by LoadBalancerSourceRanges)", "10.0.0.2", "5.6.7.8", 80, "DROP", False),
        ("node to LB1 (allowed by LoadBalancerSourceRanges)", TEST_NODE_IP, "1.2.3.4", 80, e, True),
        ("node to LB2 (allowed by LoadBalancerSourceRanges)", TEST_NODE_IP, "5.6.7.8", 80, e, True),
        ("same node to LB1, SNATted to LB1 (implicitly allowed)", "1.2.3.4", "1.2.3.4", 80, e, True),
        ("same node to LB2, SNATted to LB2 (implicitly allowed)", "5.6.7.8", "5.6.7.8", 80, e, True),
    ])


@pytest.mark.parametrize("ipv6,localhost_node_ports", [(False, True), (False, False), (True, True), (True, False)])
def test_node_ports(ipv6: bool, localhost_node_ports: bool) -> None:
    """TestNodePorts (the cases with the default --nodeport-addresses)."""
    if ipv6:
        svc_ip, ep1, ep2, pod, client, nip, alt, lo = ("fd00:172:30::41", "fd00:10:180::1", "fd00:10:180::2:1",
                                                       "fd00:10::2", "2600:5200::1", TEST_NODE_IPV6,
                                                       TEST_NODE_IPV6_ALT, "::1")
    else:
        svc_ip, ep1, ep2, pod, client, nip, alt, lo = ("172.30.0.41", "10.180.0.1", "10.180.2.1", "10.0.0.2",
                                                       TEST_EXTERNAL_CLIENT, TEST_NODE_IP, TEST_NODE_IP_ALT,
                                                       "127.0.0.1")
    out = render([node(ipv6), service("ns1", "svc1", svc_ip, [port("p80", 80, node_port=3001)], "NodePort"),
                  slice_("ns1", "svc1", [ep(ep1), ep(ep2, TEST_NODE_NAME)], [("p80", 80, "TCP")],
                         address_type="IPv6" if ipv6 else "IPv4")],
                 cluster_cidr="fd00:10::/64" if ipv6 else "10.0.0.0/8", full=True,
                 localhost_node_ports=localhost_node_ports)
    join = (lambda ip: f"[{ip}]:80") if ipv6 else (lambda ip: f"{ip}:80")
    both = f"{join(ep1)}, {join(ep2)}"
    localhost_ok = not ipv6 and localhost_node_ports
    run_flows(out, [
        ("pod to cluster IP", pod, svc_ip, 80, both, False),
        ("external to nodePort", client, nip, 3001, both, True),
        ("node to nodePort", nip, nip, 3001, both, True),
        ("localhost to nodePort", lo, lo, 3001, both if localhost_ok else "", localhost_ok),
        ("external to nodePort on secondary IP", client, alt, 3001, both, True),
    ])
    firewall = ('-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 '
                "! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP\n")
    assert chain_rules(out, "filter", "KUBE-FIREWALL") == (firewall if localhost_ok else "")


def test_health_check_node_port() -> None:
    """TestHealthCheckNodePort: accepted whether or not the node has local endpoints; gone with the Service."""
    svc = service("ns1", "svc1", "172.30.0.42", [port("p80", 80, node_port=3001)], "LoadBalancer",
                  healthCheckNodePort=30000, externalTrafficPolicy="Local")
    out = render([node(), svc], full=True)
    run_flows(out, [("firewall accepts HealthCheckNodePort", "1.2.3.4", TEST_NODE_IP, 30000, "ACCEPT", False)])
    out = render([node()], full=True)
    run_flows(out, [("HealthCheckNodePort no longer has any rule", "1.2.3.4", TEST_NODE_IP, 30000, "", False)])


def _policy_objects(etp: str) -> list[dict]:
    return [node(),
            service("ns1", "svc1", "172.30.0.41", [port("p80", 80, node_port=3001)], "LoadBalancer",
                    externalTrafficPolicy=etp, externalIPs=["192.168.99.11"], healthCheckNodePort=30000,
                    lb_ips=[{"ip": "1.2.3.4"}]),
            slice_("ns1", "svc1", [ep("10.180.0.1"), ep("10.180.2.1", TEST_NODE_NAME)], [("p80", 80, "TCP")])]


def test_external_traffic_policy_local() -> None:
    """TestExternalTrafficPolicyLocal: external clients reach only the local endpoint, unmasqueraded."""
    out = render(_policy_objects("Local"), full=True)
    both, local = "10.180.0.1:80, 10.180.2.1:80", "10.180.2.1:80"
    run_flows(out, [
        ("pod to cluster IP hits both endpoints, unmasqueraded", "10.0.0.2", "172.30.0.41", 80, both, False),
        ("pod to external IP hits both endpoints, unmasqueraded", "10.0.0.2", "192.168.99.11", 80, both, False),
        ("external to external IP hits only local endpoint", TEST_EXTERNAL_CLIENT, "192.168.99.11", 80, local, False),
        ("pod to LB IP hits only both endpoints, unmasqueraded", "10.0.0.2", "1.2.3.4", 80, both, False),
        ("external to LB IP hits only local endpoint", TEST_EXTERNAL_CLIENT, "1.2.3.4", 80, local, False),
        ("pod to NodePort hits both endpoints, unmasqueraded", "10.0.0.2", TEST_NODE_IP, 3001, both, False),
        ("external to NodePort hits only local endpoint", TEST_EXTERNAL_CLIENT, TEST_NODE_IP, 3001, local, False),
    ])


def test_external_traffic_policy_cluster() -> None:
    """TestExternalTrafficPolicyCluster: external destinations are masqueraded."""
    out = render(_policy_objects("Cluster"), full=True)
    both = "10.180.0.1:80, 10.180.2.1:80"
    run_flows(out, [
        ("pod to cluster IP hits both endpoints, unmasqueraded", "10.0.0.2", "172.30.0.41", 80, both, False),
        ("pod to external IP hits both endpoints, masqueraded", "10.0.0.2", "192.168.99.11", 80, both, True),
        ("external to external IP hits both endpoints", TEST_EXTERNAL_CLIENT, "192.168.99.11", 80, both, True),
        ("pod to LB IP hits both endpoints, masqueraded", "10.0.0.2", "1.2.3.4", 80, both, True),
        ("external to LB IP hits both endpoints, masqueraded", TEST_EXTERNAL_CLIENT, "1.2.3.4", 80, both, True),
        ("pod to NodePort hits both endpoints, masqueraded", "10.0.0.2", TEST_NODE_IP, 3001, both, True),
        ("external to NodePort hits both endpoints", TEST_EXTERNAL_CLIENT, TEST_NODE_IP, 3001, both, True),
    ])


@pytest.mark.parametrize("itp,nodes,output", [
    ("Cluster", [TEST_NODE_NAME, "node1", "node2"], "10.0.1.1:80, 10.0.1.2:80, 10.0.1.3:80"),
    ("Local", [TEST_NODE_NAME, "node1", "node2"], "10.0.1.1:80"),
    ("Local", [TEST_NODE_NAME, TEST_NODE_NAME, "node2"], "10.0.1.1:80, 10.0.1.2:80"),
    ("Local", ["node0", "node1", "node2"], "DROP"),
])
def test_internal_traffic_policy(itp: str, nodes: list[str], output: str) -> None:
    """TestInternalTrafficPolicy, then the endpoints deleted (REJECT)."""
    svc = service("ns1", "svc1", "172.30.1.1", [port("", 80)], internalTrafficPolicy=itp, selector={"foo": "bar"})
    sl = slice_("ns1", "svc1", [ep(f"10.0.1.{i + 1}", n, ready=True) for i, n in enumerate(nodes)], [("", 80, "TCP")])
    run_flows(render([node(), svc, sl], full=True), [("pod to ClusterIP", "10.0.0.2", "172.30.1.1", 80, output, False)])
    empty = slice_("ns1", "svc1", [], [("", 80, "TCP")])
    run_flows(render([node(), svc, empty], full=True),
              [("endpoints deleted", "10.0.0.2", "172.30.1.1", 80, "REJECT", False)])


_T = dict(ready=False, serving=True, terminating=True)   # serving, terminating
_X = dict(ready=False, serving=False, terminating=True)  # terminating, not serving
_R = dict(ready=True, serving=True, terminating=False)   # ready


@pytest.mark.parametrize("etp,endpoints,to_cluster_ip,to_lb,lb_masq", [
    # TestTerminatingEndpointsTrafficPolicyLocal
    ("Local", [("10.0.1.1", TEST_NODE_NAME, _R), ("10.0.1.2", TEST_NODE_NAME, _R), ("10.0.1.3", TEST_NODE_NAME, _T),
               ("10.0.1.4", TEST_NODE_NAME, _X), ("10.0.1.5", "node-1", _R)],
     "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80", "10.0.1.1:80, 10.0.1.2:80", False),
    ("Local", [("10.0.1.2", TEST_NODE_NAME, _T), ("10.0.1.3", TEST_NODE_NAME, _T), ("10.0.1.4", TEST_NODE_NAME, _X),
               ("10.0.1.5", "node-1", _R)],
     "10.0.1.5:80", "10.0.1.2:80, 10.0.1.3:80", False),
    ("Local", [("10.0.1.5", "node-1", _T)], "10.0.1.5:80", "DROP", False),
    ("Local", [("10.0.1.5", TEST_NODE_NAME, _X), ("10.0.1.5", "node-1", _X)], "REJECT", "REJECT", False),
    # TestTerminatingEndpointsTrafficPolicyCluster
    ("Cluster", [("10.0.1.1", TEST_NODE_NAME, _R), ("10.0.1.2", TEST_NODE_NAME, _R), ("10.0.1.3", "another-node", _T),
                 ("10.0.1.4", "another-node", _X), ("10.0.1.5", "another-node", _R)],
     "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80", "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80", True),
    ("Cluster", [("10.0.1.2", TEST_NODE_NAME, _T), ("10.0.1.3", TEST_NODE_NAME, _T), ("10.0.1.4", "another-node", _X),
                 ("10.0.1.5", "another-node", _T)],
     "10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80", "10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80", True),
    ("Cluster", [("10.0.1.5", "node-1", _T)], "10.0.1.5:80", "10.0.1.5:80", True),
    ("Cluster", [("10.0.1.5", TEST_NODE_NAME, _X), ("10.0.1.5", "node-1", _X)], "REJECT", "REJECT", False),
])
def test_terminating_endpoints(etp: str, endpoints: list, to_cluster_ip: str, to_lb: str, lb_masq: bool) -> None:
    """TestTerminatingEndpointsTrafficPolicyLocal / ...Cluster."""
    svc = service("ns1", "svc1", "172.30.1.1", [port("", 80, node_port=30080)], "LoadBalancer",
                  externalTrafficPolicy=etp, healthCheckNodePort=30000, lb_ips=[{"ip": "1.2.3.4"}])
    sl = slice_("ns1", "svc1", [ep(ip, n, **c) for ip, n, c in endpoints], [("", 80, "TCP")])
    run_flows(render([node(), svc, sl], full=True), [
        ("pod to clusterIP", "10.0.0.2", "172.30.1.1", 80, to_cluster_ip, False),
        ("external to LB", TEST_EXTERNAL_CLIENT, "1.2.3.4", 80, to_lb, lb_masq),
    ])


_MASQ_FLOWS = [
    ("pod to ClusterIP", "10.0.0.2", "172.30.0.41", 80, "10.180.0.1:80, 10.180.1.1:80", False),
    ("pod to NodePort", "10.0.0.2", TEST_NODE_IP, 3001, "10.180.0.1:80, 10.180.1.1:80", True),
    ("pod to LB", "10.0.0.2", "1.2.3.4", 80, "10.180.0.1:80, 10.180.1.1:80", True),
    ("node to ClusterIP", TEST_NODE_IP, "172.30.0.41", 80, "10.180.0.1:80, 10.180.1.1:80", True),
    ("node to NodePort", TEST_NODE_IP, TEST_NODE_IP, 3001, "10.180.0.1:80, 10.180.1.1:80", True),
    ("localhost to NodePort", "127.0.0.1", "127.0.0.1", 3001, "10.180.0.1:80, 10.180.1.1:80", True),
    ("node to LB", TEST_NODE_IP, "1.2.3.4", 80, "10.180.0.1:80, 10.180.1.1:80", True),
    ("external to ClusterIP", TEST_EXTERNAL_CLIENT, "172.30.0.41", 80, "10.180.0.1:80, 10.180.1.1:80", True),
    ("external to NodePort", TEST_EXTERNAL_CLIENT, TEST_NODE_IP, 3001, "10.180.0.1:80, 10.180.1.1:80", True),
    ("external to LB", TEST_EXTERNAL_CLIENT, "1.2.3.4", 80, "10.180.0.1:80, 10.180.1.1:80", True),
    ("pod to ClusterIP with eTP:Local", "10.0.0.2", "172.30.0.42", 80, "10.180.0.2:80, 10.180.1.2:80", False),
    ("pod to NodePort with eTP:Local", "10.0.0.2", TEST_NODE_IP, 3002, "10.180.0.2:80, 10.180.1.2:80", False),
    ("pod to LB with eTP:Local", "10.0.0.2", "5.6.7.8", 80, "10.180.0.2:80, 10.180.1.2:80", False),
    ("node to ClusterIP with eTP:Local", TEST_NODE_IP, "172.30.0.42", 80, "10.180.0.2:80, 10.180.1.2:80", True),
    ("node to NodePort with eTP:Local", TEST_NODE_IP, TEST_NODE_IP, 3001, "10.180.0.1:80, 10.180.1.1:80", True),
    ("localhost to NodePort with eTP:Local", "127.0.0.1", "127.0.0.1", 3002, "10.180.0.2:80, 10.180.1.2:80", True),
    ("node to LB with eTP:Local", TEST_NODE_IP, "5.6.7.8", 80, "10.180.0.2:80, 10.180.1.2:80", True),
    ("external to ClusterIP with eTP:Local", TEST_EXTERNAL_CLIENT, "172.30.0.42", 80,
     "10.180.0.2:80, 10.180.1.2:80", True),
    ("external to NodePort with eTP:Local", TEST_EXTERNAL_CLIENT, TEST_NODE_IP, 3002, "10.180.0.2:80", False),
    ("external to LB with eTP:Local", TEST_EXTERNAL_CLIENT, "5.6.7.8", 80, "10.180.0.2:80", False),
    ("pod to ClusterIP with iTP:Local", "10.0.0.2", "172.30.0.43", 80, "10.180.0.3:80", False),
    ("pod to NodePort with iTP:Local", "10.0.0.2", TEST_NODE_IP, 3003, "10.180.0.3:80, 10.180.1.3:80", True),
    ("pod to LB with iTP:Local", "10.0.0.2", "9.10.11.12", 80, "10.180.0.3:80, 10.180.1.3:80", True),
    ("node to ClusterIP with iTP:Local", TEST_NODE_IP, "172.30.0.43", 80, "10.180.0.3:80", True),
    ("node to NodePort with iTP:Local", TEST_NODE_IP, TEST_NODE_IP, 3003, "10.180.0.3:80, 10.180.1.3:80", True),
    ("localhost to NodePort with iTP:Local", "127.0.0.1", "127.0.0.1", 3003, "10.180.0.3:80, 10.180.1.3:80", True),
    ("node to LB with iTP:Local", TEST_NODE_IP, "9.10.11.12", 80, "10.180.0.3:80, 10.180.1.3:80", True),
    ("external to ClusterIP with iTP:Local", TEST_EXTERNAL_CLIENT, "172.30.0.43", 80, "10.180.0.3:80", True),
    ("external to NodePort with iTP:Local", TEST_EXTERNAL_CLIENT, TEST_NODE_IP, 3003,
     "10.180.0.3:80, 10.180.1.3:80", True),
    ("external to LB with iTP:Local", TEST_EXTERNAL_CLIENT, "9.10.11.12", 80, "10.180.0.3:80, 10.180.1.3:80", True),
]


@pytest.mark.parametrize("masquerade_all,local_detector,overrides", [
    (False, True, {}),
    (False, False, {"node to ClusterIP": (None, False), "node to ClusterIP with eTP:Local": (None, False),
                    "node to ClusterIP with iTP:Local": (None, False), "external to ClusterIP": (None, False),
                    "external to ClusterIP with eTP:Local": (None, False),
                    "external to ClusterIP with iTP:Local": (None, False),
                    "pod to NodePort with eTP:Local": ("10.180.0.2:80", None),
                    "pod to LB with eTP:Local": ("10.180.0.2:80", None)}),
    (True, True, {"pod to ClusterIP": (None, True), "pod to ClusterIP with eTP:Local": (None, True),
                  "pod to ClusterIP with iTP:Local": (None, True)}),
    (True, False, {"pod to ClusterIP": (None, True), "pod to ClusterIP with eTP:Local": (None, True),
                   "pod to ClusterIP with iTP:Local": (None, True),
                   "pod to NodePort with eTP:Local": ("10.180.0.2:80", None),
                   "pod to LB with eTP:Local": ("10.180.0.2:80", None)}),
], ids=["base", "no LocalTrafficDetector", "masqueradeAll", "masqueradeAll, no LocalTrafficDetector"])
def test_internal_external_masquerade(masquerade_all: bool, local_detector: bool, overrides: dict) -> None:
    """TestInternalExternalMasquerade (no LocalTrafficDetector = no --cluster-cidr)."""
    objs = [node()]
    for i, (extra, lb) in enumerate([({}, "1.2.3.4"), ({"externalTrafficPolicy": "Local"}, "5.6.7.8"),
                                     ({"internalTrafficPolicy": "Local"}, "9.10.11.12")], start=1):
        objs.append(service(f"ns{i}", f"svc{i}", f"172.30.0.4{i}", [port("p80", 80, node_port=3000 + i)],
                            "LoadBalancer", healthCheckNodePort=30000 + i, lb_ips=[{"ip": lb}], **extra))
        objs.append(slice_(f"ns{i}", f"svc{i}", [ep(f"10.180.0.{i}", TEST_NODE_NAME), ep(f"10.180.1.{i}", "remote")],
                           [("p80", 80, "TCP")]))
    out = render(objs, cluster_cidr="10.0.0.0/8" if local_detector else None, masquerade_all=masquerade_all,
                 full=True)
    flows = []
    for name, src, dst, dport, output, masq in _MASQ_FLOWS:
        o, m = overrides.get(name, (None, None))
        flows.append((name, src, dst, dport, output if o is None else o, masq if m is None else m))
    assert set(overrides) <= {f[0] for f in _MASQ_FLOWS}
    run_flows(out, flows)


@pytest.mark.parametrize("ip_mode,expected", [("Proxy", False), ("VIP", True), (None, True)])
def test_load_balancer_ingress_ip_mode(ip_mode: str | None, expected: bool) -> None:
    """TestLoadBalancerIngressRouteTypeProxy: no rule for an ingress IP in Proxy mode."""
    ingress = {"ip": "1.2.3.4", **({"ipMode": ip_mode} if ip_mode else {})}
    out = render([node(), service("ns1", "svc1", "10.20.30.41", [port("p80", 80, node_port=3001)], "LoadBalancer",
                                  lb_ips=[ingress]),
                  slice_("ns1", "svc1", [ep("10.180.0.1")], [("p80", 80, "TCP")])])
    assert any(line.startswith("-A KUBE-SERVICES") and "-d 1.2.3.4 " in line for line in out.splitlines()) == expected


def test_services_without_selector_or_endpoints_are_rejected_and_plain_dumps_work() -> None:
    """A kubectl dump without EndpointSlices: completed as the EndpointSlice controller would (from the ready
    Pods the selector matches, :func:`kubenotes.sim.network.kube_proxy_objects`), it renders their endpoints."""
    objs = [node(),
            service("default", "web", "10.96.0.20", [port("http", 80, target=8080)], selector={"app": "web"}),
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "default", "name": "web-1",
                                                             "labels": {"app": "web"}},
             "spec": {"nodeName": TEST_NODE_NAME, "containers": [{"name": "c"}]},
             "status": {"phase": "Running", "podIP": "10.244.0.5",
                        "conditions": [{"type": "Ready", "status": "True"}]}}]
    out = render(kube_proxy_objects(objs), cluster_cidr="10.244.0.0/16")
    assert "-j DNAT --to-destination 10.244.0.5:8080" in out
    assert f"-A {service_port_policy_cluster_chain('default/web:http', 'tcp')} " in out
    check_rule_jumps(out)
