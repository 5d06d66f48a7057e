"""Differential test: the node-network walk (cni/walk.py) over Calico-written Host state vs Calico's own walk.

For the sample cluster (:func:`kubenotes.cni.calico.packet.example_cluster`) in every Calico mode, with
the nodes in one subnet and in two, many pod pairs and the ``web`` Service, both walks must give the same
hop sequence: the (node, device, bytes) of each hop (underlay ``eth0`` and router hops, which the two walks
show differently, left out; consecutive repeats merged), the header stacks of those hops with the
source port masked (the walks draw it differently), the overhead, the pod MTU, whether the packet was
delivered, and Felix's verdicts.
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
