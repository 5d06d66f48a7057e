"""NetworkPolicy enforced by Calico's Felix in the packet walk (:mod:`kubenotes.cni.calico.policy`).

Chain names follow Felix (felix/rules: ``cali-tw-``/``cali-fw-`` per workload endpoint, ``cali-pi-``/``cali-po-``
per policy, hashed by ``GetLengthLimitedID`` past 28 characters); the semantics are the Kubernetes NetworkPolicy
documentation's (a pod is isolated for a direction once a policy selects it for that direction). No upstream test
is ported.
"""

from __future__ import annotations

import json

import pytest
import yaml

from kubenotes.cli import main
from kubenotes.cni.calico.dataplane import veth_name_for_workload
from kubenotes.cni.calico.packet import example_cluster, walk_table
from kubenotes.cni.calico.policy import get_length_limited_id, policy_chain_name
from kubenotes.data import sample
from kubenotes.sim.network import cluster_packet_walk, packet_walk


def _np(name, spec, namespace="default"):
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


WEB = {"matchLabels": {"app": "web"}}
DENY_WEB = _np("deny-web", {"podSelector": WEB, "policyTypes": ["Ingress"]})
ALLOW_CLIENT = _np("allow-client", {"podSelector": WEB, "ingress": [
    {"from": [{"podSelector": {"matchLabels": {"role": "client"}}}], "ports": [{"protocol": "TCP", "port": 8080}]}]})


def _cluster(*extra, client_labels=None):
    objs = example_cluster(2)
    if client_labels:
        next(o for o in objs if o["metadata"]["name"] == "client")["metadata"]["labels"] = client_labels
    return objs + list(extra)


def test_length_limited_ids_hash_only_what_does_not_fit():
    assert get_length_limited_id("cali-tw-", "calic440f455693") == "cali-tw-calic440f455693"
    assert get_length_limited_id("cali-pi-", "x" * 20) == "cali-pi-" + "x" * 20  # exactly 28: kept
    hashed = get_length_limited_id("cali-pi-", "x" * 21)
    assert len(hashed) == 28 and hashed.startswith("cali-pi-_")
    assert get_length_limited_id("cali-pi-", "_" + "x" * 19) != "cali-pi-_" + "x" * 19  # could clash with a hash
    # v3.30's PolicyChainName hashes tier "/" name, the name being namespace/knp.default.<name>
    assert policy_chain_name("default", "deny-web", "Ingress") == get_length_limited_id(
        "cali-pi-", "default/default/knp.default.deny-web")
    assert policy_chain_name("default", "deny-web", "Egress").startswith("cali-po-_")


def test_chain_names_as_felix_policy_test_expects():
    """felix/rules/policy_test.go@v3.30.0: Tier "default" Name "default.foo" fits; an empty tier's long name is hashed."""
    assert get_length_limited_id("cali-pi-", "default/default.foo") == "cali-pi-default/default.foo"
    assert get_length_limited_id("cali-po-", "default/default.foo") == "cali-po-default/default.foo"
    assert get_length_limited_id("cali-pi-", "/long-policy-name-that-gets-hashed") == "cali-pi-_FJ9yUkNpzshVDh2n7mg"
    assert get_length_limited_id("cali-po-", "/long-policy-name-that-gets-hashed") == "cali-po-_FJ9yUkNpzshVDh2n7mg"


def test_without_policies_every_flow_is_allowed_by_the_profile():
    w = packet_walk(_cluster(), "default/client", "default/web-1-0", mode="vxlan")
    assert w["allowed"] and [v["policy"] for v in w["policy"]] == [None, None]
    assert all("kns.default accepts" in v["reason"] for v in w["policy"])
    assert w["hops"][-1]["action"].startswith("delivered")


def test_default_deny_drops_at_the_destinations_to_workload_chain_then_one_path_opens():
    denied = packet_walk(_cluster(DENY_WEB), "default/client", "default/web-1-0", mode="vxlan")
    veth = veth_name_for_workload("default", "web-1-0")
    assert not denied["allowed"]
    egress, ingress = denied["policy"]
    assert egress["allowed"] and egress["selectedBy"] == []  # client is not isolated for egress
    assert (ingress["allowed"], ingress["chain"], ingress["selectedBy"]) == (False, f"cali-tw-{veth}",
                                                                           ["default/deny-web"])
    assert denied["hops"][-1]["at"] == f"node-1/{veth}" and "dropped" in denied["hops"][-1]["action"]
    assert "Drop if no policies passed packet" in ingress["reason"]
    assert "DROPPED" in walk_table(denied).splitlines()[-1]
    # the same policies plus one that lets role=client in on 8080: only a labelled client gets through
    still = packet_walk(_cluster(DENY_WEB, ALLOW_CLIENT), "default/client", "default/web-1-0", mode="vxlan")
    assert not still["allowed"]
    opened = packet_walk(_cluster(DENY_WEB, ALLOW_CLIENT, client_labels={"role": "client"}), "default/client",
                         "default/web-1-0", mode="vxlan")
    ingress = opened["policy"][1]
    assert opened["allowed"] and (ingress["policy"], ingress["rule"]) == ("default/allow-client", 0)
    assert ingress["policyChain"] == policy_chain_name("default", "allow-client", "Ingress")
    assert ingress["selectedBy"] == ["default/allow-client", "default/deny-web"]  # Felix's order: by name
    assert opened["hops"][-1]["action"].startswith("delivered to default/web-1-0")
    # another port is not opened
    other = packet_walk(_cluster(DENY_WEB, ALLOW_CLIENT, client_labels={"role": "client"}), "default/client",
                        "default/web-1-0:9090", mode="vxlan")
    assert not other["allowed"]


def test_egress_default_deny_drops_at_the_sources_from_workload_chain_after_dnat():
    deny_all_egress = _np("deny-egress", {"podSelector": {}, "policyTypes": ["Egress"]})
    w = packet_walk(_cluster(deny_all_egress), "default/client", "default/web:80", mode="ipip")
    veth = veth_name_for_workload("default", "client")
    assert not w["allowed"] and len(w["policy"]) == 1 and w["policy"][0]["chain"] == f"cali-fw-{veth}"
    assert [h["at"] for h in w["hops"]] == ["node-0/default/client:eth0", f"node-0/{veth}", f"node-0/{veth}"]
    assert "DNAT 10.96.0.80:80" in w["hops"][-1]["action"] and "dropped" in w["hops"][-1]["action"]
    # egress judged on the endpoint the DNAT chose: an ipBlock of the pod pool with a port range lets it out
    allow = _np("allow-pods", {"podSelector": {}, "egress": [{"to": [{"ipBlock": {
        "cidr": "192.168.0.0/16", "except": ["192.168.250.0/24"]}}], "ports": [{"port": 8000, "endPort": 8100}]}]})
    w = packet_walk(_cluster(deny_all_egress, allow), "default/client", "default/web:80", mode="ipip")
    assert (w["policy"][0]["policy"], w["policy"][0]["rule"]) == ("default/allow-pods", 0)
    assert w["policy"][0]["policyChain"].startswith("cali-po-")
    # without policyTypes the defaulting makes allow-pods an Ingress policy too: every pod is now isolated for
    # ingress with no ingress rule, so the web pod drops it
    assert not w["allowed"] and w["policy"][1]["selectedBy"] == ["default/allow-pods"]
    allow["spec"]["policyTypes"] = ["Egress"]
    assert packet_walk(_cluster(deny_all_egress, allow), "default/client", "default/web:80", mode="ipip")["allowed"]
    allow["spec"]["egress"][0]["ports"][0]["endPort"] = 8079  # 8080 out of the range
    assert not packet_walk(_cluster(deny_all_egress, allow), "default/client", "default/web:80",
                           mode="ipip")["allowed"]


def test_namespace_selector_and_named_ports():
    objs = _cluster()
    objs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tools", "labels": {"team": "ops"}}})
    objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": "tools"},
                 "spec": {"nodeName": "node-0", "containers": [{"name": "c", "image": "busybox"}]}})
    for o in objs:
        if o["kind"] == "Pod" and o["metadata"]["name"].startswith("web-"):
            o["spec"]["containers"][0]["ports"][0]["name"] = "http-alt"
    ops_only = _np("ops-only", {"podSelector": WEB, "ingress": [
        {"from": [{"namespaceSelector": {"matchLabels": {"team": "ops"}}}], "ports": [{"port": "http-alt"}]}]})
    assert packet_walk(objs + [ops_only], "tools/probe", "default/web-1-0", mode="bgp")["allowed"]
    assert not packet_walk(objs + [ops_only], "default/client", "default/web-1-0", mode="bgp")["allowed"]
    # by the namespace's name label, which the API server sets on every Namespace
    by_name = _np("by-name", {"podSelector": WEB, "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {
        "kubernetes.io/metadata.name": "default"}}}]}]})
    assert packet_walk(objs + [by_name], "default/client", "default/web-0-0", mode="bgp")["allowed"]
    assert not packet_walk(objs + [by_name], "tools/probe", "default/web-0-0", mode="bgp")["allowed"]


POLICIES = """\
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-web, namespace: default}
spec: {podSelector: {matchLabels: {app: web}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-same-namespace, namespace: default}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{from: [{podSelector: {}}], ports: [{port: 8080}]}]
"""


def test_packet_over_a_simulated_calico_run_reads_its_network_policies(tmp_path, capsys):
    text = sample("network", "calico.yaml").read_text() + POLICIES
    scenario = tmp_path / "calico-netpol.yaml"
    scenario.write_text(text)
    assert main(["packet", str(scenario), "--from", "default/client", "--to", "default/web:80",
                 "--calico-mode", "bgp", "--until", "10"]) == 0
    walk = json.loads(capsys.readouterr().out)
    assert walk["allowed"] and walk["policy"][1]["policy"] == "default/allow-same-namespace"
    assert walk["policy"][1]["selectedBy"] == ["default/allow-same-namespace", "default/deny-web"]


def test_a_network_policy_the_api_server_refuses_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(_np("bad", {"podSelector": {}, "ingress": [
        {"from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["11.0.0.0/16"]}}],
         "ports": [{"protocol": "ICMP", "port": 80, "endPort": 79}]}]})))
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'NetworkPolicy.networking.k8s.io "bad" is invalid' in err[0]
    for part in ('spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP"',
                 "spec.ingress[0].ports[0].endPort: Invalid value: 79: must be greater than or equal to `port`",
                 'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict '
                 "subset of `cidr`"):
        assert part in err[0]


def test_validate_prints_a_network_policy_as_stored_with_its_defaulted_policy_types(tmp_path, capsys):
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(ALLOW_CLIENT))
    assert main(["validate", str(good)]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(
        "NetworkPolicy default/allow-client: podSelector app=web, policyTypes Ingress, 1 ingress, 0 egress rule(s)")


def test_simulate_refuses_a_bad_network_policy_with_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "scenario.yaml"
    bad.write_text(sample("network", "calico.yaml").read_text() + "---\n" + yaml.safe_dump(
        _np("bad", {"podSelector": {}, "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/33"}}]}]})))
    assert main(["simulate", str(bad), "--until", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith('NetworkPolicy.networking.k8s.io "bad" is invalid: '
                                             'spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": '
                                             'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')
