"""Differential test: the node-network walk (cni/walk.py) over Calico-written Host state vs Calico's own walk.

For the sample cluster (:func:`kubenotes.cni.calico.packet.example_cluster`) in every Calico mode, with
the nodes in one subnet and in two, many pod pairs and the ``web`` Service, both walks must give the same
hop sequence: the (node, device, bytes) of each hop (underlay ``eth0`` and router hops, which the two walks
show differently, left out; consecutive repeats merged), the header stacks of those hops with the
source port masked (the walks draw it differently), the overhead, the pod MTU, whether the packet was
delivered, and Felix's verdicts.

History: these agreed while Calico had its own walker (commit 987461d); Calico's walk_packet is now an adapter
over cni/walk.py, so they check that the adapter words the walker's path faithfully, and
``test_calico_walk_unchanged_by_the_move`` checks that its output is byte-identical to the old walker's.
"""

from __future__ import annotations

import random
import re

import pytest

from kubenotes.cni.calico.dataplane import MODES, node_hosts
from kubenotes.cni.calico.packet import (example_cluster, felix_policy_hook, network_from_objects, service_dnat,
                                         service_dnat_hook, walk_packet)
from kubenotes.cni.walk import walk_packet as node_walk
from kubenotes.proxy.endpoints import proxy_state
from kubenotes.proxy.iptables import service_nat_chains
from kubenotes.sim.network import kube_proxy_objects

DENY_WEB_1 = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
              "metadata": {"name": "only-8080-from-client", "namespace": "default"},
              "spec": {"podSelector": {"matchLabels": {"app": "web"}}, "policyTypes": ["Ingress"],
                       "ingress": [{"from": [{"podSelector": {"matchLabels": {"role": "client"}}}],
                                    "ports": [{"port": 9999}]}]}}
DENY_EGRESS = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
               "metadata": {"name": "default-deny-egress", "namespace": "default"},
               "spec": {"podSelector": {}, "policyTypes": ["Egress"]}}
_SPORT = re.compile(r"^(TCP|UDP|SCTP) \d+ > ")


def _cluster(mode: str, subnets: int, extra: list[dict] = ()):
    objs = example_cluster(3, 2, subnets=subnets) + list(extra)
    net, objs = network_from_objects(objs, mode=mode)
    seen = kube_proxy_objects(objs)
    kube_proxy = {node: proxy_state(seen, node) for node in sorted(net.nodes)}
    chains: dict = {}
    for state in kube_proxy.values():
        for name, (svc_chain, seps) in service_nat_chains(state).items():
            chains.setdefault(name, (svc_chain, {}))[1].update(seps)
    return net, objs, kube_proxy, chains


def _project(walk: dict) -> dict:
    seq = []
    for h in walk["hops"]:
        node, _, dev = h["at"].partition("/")
        if node == "router" or dev == "eth0":
            continue
        key = (node, dev, h["bytes"], tuple(_SPORT.sub(r"\1 * > ", x) for x in h["headers"]))
        if not seq or seq[-1] != key:
            seq.append(key)
    delivered = walk.get("delivered", walk["hops"][-1]["action"].startswith("delivered"))
    verdicts = [(v["direction"], v["allowed"], v["chain"], v["policy"], v["rule"]) for v in walk["policy"]]
    return {"hops": seq, "overheadBytes": walk["overheadBytes"], "mtu": walk["mtu"], "delivered": delivered,
            "allowed": walk["allowed"], "verdicts": verdicts}


def _both(net, objs, kube_proxy, chains, src: str, dst: str, size: int = 1000, seed: int = 0):
    own = walk_packet(net, objs, src, dst, size_bytes=size, seed=seed, kube_proxy=kube_proxy, nat_chains=chains)
    hosts, labels = node_hosts(net)
    sp = net.pods[src]
    name, _, port = dst.partition(":")
    if name in net.pods:
        pod = next(o for o in objs if o.get("kind") == "Pod" and f"default/{o['metadata']['name']}" == name)
        ports = [p["containerPort"] for c in pod["spec"]["containers"] for p in c.get("ports", [])]
        dst_ip, dport, proto, dnat = net.pods[name].ip, int(port or (ports or [80])[0]), "TCP", None
    else:
        ns, _, svc_name = name.partition("/")
        svc = next(o for o in objs if o.get("kind") == "Service" and o["metadata"]["name"] == svc_name)
        ep_ip, ep_port, proto, rec = service_dnat(sp, svc, port, random.Random(seed), kube_proxy, chains)
        dst_ip, dport = rec["cluster_ip"], rec["port"]
        dnat = service_dnat_hook(sp.node, rec, ep_ip, ep_port)
    generic = node_walk(hosts, sp.ip, dst_ip, size_bytes=size, protocol=proto, dport=dport, seed=seed, labels=labels,
                        dnat=dnat, policy_hook=felix_policy_hook(net, objs))
    return own, generic


PODS = ["default/client"] + [f"default/web-{i}-{j}" for i in range(3) for j in range(2)]
PAIRS = [(a, b) for a in ("default/client", "default/web-1-0", "default/web-2-1") for b in PODS if a != b]


@pytest.mark.parametrize("subnets", [1, 2])
@pytest.mark.parametrize("mode", MODES)
def test_pod_pairs_agree(mode, subnets):
    net, objs, kp, chains = _cluster(mode, subnets)
    for src, dst in PAIRS:
        own, generic = _both(net, objs, kp, chains, src, dst)
        assert _project(generic) == _project(own), (mode, subnets, src, dst)


@pytest.mark.parametrize("subnets", [1, 2])
@pytest.mark.parametrize("mode", MODES)
def test_service_destinations_agree(mode, subnets):
    net, objs, kp, chains = _cluster(mode, subnets)
    for src in ("default/client", "default/web-2-0"):
        for seed in range(4):
            own, generic = _both(net, objs, kp, chains, src, "default/web:80", seed=seed)
            assert _project(generic) == _project(own), (mode, subnets, src, seed)


@pytest.mark.parametrize("mode", ["vxlan", "ipip", "bgp"])
def test_policy_verdicts_agree(mode):
    net, objs, kp, chains = _cluster(mode, 1, [DENY_WEB_1])
    for src, dst in [("default/client", "default/web-1-0"), ("default/web-1-0", "default/web-0-1"),
                     ("default/client", "default/web-0-0")]:
        own, generic = _both(net, objs, kp, chains, src, dst)
        assert not own["allowed"]
        assert _project(generic) == _project(own), (mode, src, dst)
    net, objs, kp, chains = _cluster(mode, 1, [DENY_EGRESS])
    own, generic = _both(net, objs, kp, chains, "default/client", "default/web:80")
    assert not own["allowed"]
    assert _project(generic) == _project(own)


# Calico's walk_packet is now an adapter over cni/walk.py: its tables and dicts must be byte-identical to what
# its own walker gave before the move (sha256 of walk_table + the JSON of each walk, per configuration, recorded
# from calicowalk 987461d's packet.walk_packet over the cases below).
BEFORE_THE_MOVE = {
    "vxlan/1": "c24f49d792f28f17", "vxlan/2": "fe8da849cd92c5b4", "ipip/1": "6be04a9a85cfb07c",
    "ipip/2": "7173918aa7b054c1", "bgp/1": "0f945a9d0668c14c", "bgp/2": "6f06fa96b7fe8723",
    "vxlan-crosssubnet/1": "f0bdd730c3cd4608", "vxlan-crosssubnet/2": "6fb2f2c7531a75d9",
    "ipip-crosssubnet/1": "c0744d2488b69ba8", "ipip-crosssubnet/2": "7b8e5dccf2599d28",
    "vxlan/deny-in": "6f792448891b4390", "vxlan/deny-out": "fcd215bca86c08d7", "ipip/deny-in": "b5aa2f40b811ab27",
    "ipip/deny-out": "f5cae06e3676f3cb", "bgp/deny-in": "f83e0d0fc69347e2", "bgp/deny-out": "d8f5651ef7e92dfb",
}


def _recorded_cases(key: str):
    mode, _, variant = key.partition("/")
    if variant in ("1", "2"):
        cluster = _cluster(mode, int(variant))
        cases = [(s, d, 1000, 0) for s, d in PAIRS]
        cases += [(s, "default/web:80", 1000, k) for s in ("default/client", "default/web-2-0") for k in range(4)]
        cases += [("default/client", "default/web-1-0", 1499, 3), ("default/client", "default/web:http", 40, 5),
                  ("default/web-1-1", "default/web-2-1:9090", 1480, 1)]
    else:
        cluster = _cluster(mode, 1, [DENY_WEB_1 if variant == "deny-in" else DENY_EGRESS])
        cases = [(s, d, 1000, 0) for s, d in PAIRS] + [("default/client", "default/web:80", 1000, k) for k in range(3)]
    return cluster, cases


@pytest.mark.parametrize("key", sorted(BEFORE_THE_MOVE))
def test_calico_walk_unchanged_by_the_move(key):
    import hashlib
    import json

    from kubenotes.cni.calico.packet import walk_table

    (net, objs, kp, chains), cases = _recorded_cases(key)
    h = hashlib.sha256()
    for src, dst, size, seed in cases:
        w = walk_packet(net, objs, src, dst, size_bytes=size, seed=seed, kube_proxy=kp, nat_chains=chains)
        h.update(walk_table(w).encode())
        h.update(json.dumps(w, sort_keys=True).encode())
    assert h.hexdigest()[:16] == BEFORE_THE_MOVE[key]


def _pair_hosts(mode: str = "ipip"):
    net, objs, kp, chains = _cluster(mode, 1)
    hosts, labels = node_hosts(net)
    return net, hosts, labels


def test_without_proxy_arp_nobody_answers_for_169_254_1_1():
    net, hosts, labels = _pair_hosts()
    client, web = net.pods["default/client"], net.pods["default/web-1-0"]
    assert node_walk(hosts, client.ip, web.ip, labels=labels)["delivered"]
    hosts["node-0"].root.sysctls[f"net.ipv4.conf.{client.veth}.proxy_arp"] = "0"
    w = node_walk(hosts, client.ip, web.ip, labels=labels)
    assert not w["delivered"] and "ARP" in w["hops"][-1]["action"]


def test_node_hosts_state_per_mode():
    net, hosts, _ = _pair_hosts("ipip")
    root = hosts["node-0"].root
    assert root.interfaces["tunl0"].kind == "ipip" and root.interfaces["tunl0"].mtu == 1480
    assert any(r.endswith("dev tunl0 proto bird onlink") for r in root.ip_route())
    assert root.ip_neigh() == [] and root.sysctls["net.ipv4.ip_forward"] == "1"
    net, hosts, _ = _pair_hosts("vxlan")
    root = hosts["node-0"].root
    vx = root.interfaces["vxlan.calico"]
    assert (vx.vni, vx.port, vx.local, vx.mtu) == (4096, 4789, "10.0.0.11", 1450)
    assert len(root.ip_neigh()) == len(root.bridge_fdb()) == 2
    assert any(r.startswith("blackhole ") for r in root.ip_route())


def test_blackhole_and_reject():
    net, hosts, labels = _pair_hosts("vxlan")
    client = net.pods["default/client"]
    block = next(r for r in hosts["node-0"].root.routes if r.blackhole)
    free = block.dst.split("/")[0].rsplit(".", 1)[0] + ".60"
    w = node_walk(hosts, client.ip, free, labels=labels)
    assert not w["delivered"] and "blackhole" in w["hops"][-1]["action"]
    w = node_walk(hosts, client.ip, "10.96.0.80", dport=80, labels=labels,
                  dnat=lambda host, ip, port: ("", 0, "REJECT: no endpoints") if ip == "10.96.0.80" else None)
    assert not w["delivered"] and w["hops"][-1]["action"] == "REJECT: no endpoints"
