"""A simulated cluster networked by Flannel: simulate, the node-network packet walk, the packet CLI, bad input."""

import json

import pytest

from kubenotes.cli import main
from kubenotes.cni.flannel import NO_POLICY_NOTE
from kubenotes.cni.flannel.network import FlannelNetwork
from kubenotes.cni.flannel.subnet import BACKEND_TYPE_ANNOTATION, KUBE_SUBNET_MANAGER_ANNOTATION, PUBLIC_IP_ANNOTATION
from kubenotes.cni.walk import WalkError
from kubenotes.data import sample
from kubenotes.sim.cli import run
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.network import cluster_packet_walk, node_packet_walk

VXLAN = str(sample("network", "flannel-vxlan.yaml"))
HOST_GW = str(sample("network", "flannel-host-gw.yaml"))


@pytest.fixture(scope="module")
def vxlan_run():
    return run([VXLAN], until=30)


def test_pods_get_addresses_from_their_nodes_pod_cidr(vxlan_run):
    assert isinstance(vxlan_run.network, FlannelNetwork) and vxlan_run.network.backend_type == "vxlan"
    for pod in vxlan_run.list("pods", "default"):
        node = vxlan_run.get("nodes", pod["spec"]["nodeName"])
        cidr = node["spec"]["podCIDR"]
        assert pod["status"]["podIP"].rsplit(".", 1)[0] == cidr.rsplit(".", 2)[0] + "." + cidr.split(".")[2]
        ann = node["metadata"]["annotations"]
        assert ann[BACKEND_TYPE_ANNOTATION] == "vxlan" and ann[KUBE_SUBNET_MANAGER_ANNOTATION] == "true"
        assert ann[PUBLIC_IP_ANNOTATION] == node["status"]["addresses"][0]["address"]


def test_the_walk_crosses_nodes_in_vxlan_and_says_flannel_enforces_no_policy(vxlan_run):
    w = cluster_packet_walk(vxlan_run, "default/client", "default/web-2-0", size_bytes=1000)
    assert w == node_packet_walk(vxlan_run, "default/client", "default/web-2-0", size_bytes=1000)
    assert w["delivered"] and w["allowed"] and w["overheadBytes"] == 50 and w["mtu"] == 1450
    assert [h["at"] for h in w["hops"]][2:5] == ["node-0/flannel.1", "node-0/eth0", "node-2/flannel.1"]
    assert w["hops"][0]["at"] == "node-0/default/client:eth0" and w["hops"][-1]["at"] == "node-2/default/web-2-0:eth0"
    assert w["policy"][0]["note"] == NO_POLICY_NOTE and w["network"] == "Flannel"
    same = node_packet_walk(vxlan_run, "default/client", "default/web-0-0")
    assert same["delivered"] and same["overheadBytes"] == 0
    with pytest.raises(WalkError, match="no Pod or Service 'default/nope'"):
        node_packet_walk(vxlan_run, "default/client", "default/nope")


def test_a_service_destination_is_dnated_by_kube_proxy_then_walked(vxlan_run):
    w = node_packet_walk(vxlan_run, "default/client", "default/web:80", size_bytes=1000)
    assert w["hops"][0]["headers"][0].endswith("> 10.96.0.80 TCP") and w["hops"][0]["headers"][1].endswith("> 80")
    assert "cni0's own address: up to the host's routing" in w["hops"][1]["action"]  # via the gateway
    assert "DNAT 10.96.0.80:80 >" in w["hops"][2]["action"] and w["delivered"]
    endpoint = w["hops"][2]["action"].rsplit("> ", 1)[1]
    assert w["hops"][2]["headers"][0].endswith(f"> {endpoint.split(':')[0]} TCP")
    assert w["hops"][-1]["headers"][0].endswith(f"> {endpoint.split(':')[0]} TCP")
    with pytest.raises(WalkError, match="the Service has no port 81"):
        node_packet_walk(vxlan_run, "default/client", "default/web:81")


def test_the_packet_command_walks_a_flannel_scenario(capsys):
    assert main(["packet", VXLAN, "--from", "default/client", "--to", "default/web-1-0", "--until", "30"]) == 0
    walk = json.loads(capsys.readouterr().out)
    assert walk["overheadBytes"] == 50 and walk["delivered"]
    assert main(["packet", HOST_GW, "--from", "default/client", "--to", "default/web-2-0", "--until", "30",
                 "-o", "table"]) == 0
    out = capsys.readouterr().out
    assert "which has no route for the pod address" in out and "Flannel enforces no NetworkPolicy" in out


def test_host_gw_routes_on_the_segment_and_logs_the_unreachable_peer():
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}, "spec": {"podCIDR": cidr},
              "status": {"addresses": [{"type": "InternalIP", "address": ip}]}}
             for n, ip, cidr in (("a", "10.0.0.11", "10.244.1.0/24"), ("b", "10.0.0.12", "10.244.2.0/24"),
                                 ("c", "10.0.1.13", "10.244.3.0/24"))]
    c = Cluster(nodes, network={"plugin": "flannel", "backend": "host-gw"}, controllers=[])
    a = c.network.nodes["a"]
    assert "10.244.2.0/24 via 10.0.0.12 dev eth0" in a.host.root.ip_route()
    assert a.errors == ["Error adding route to 10.244.3.0/24 via 10.0.1.13: network is unreachable"]
    assert c.kubelets["a"].cni.network.plugins[0]["type"] == "flannel"


@pytest.mark.parametrize("network, message", [
    ("{plugin: flannel, backend: geneve}",
     'spec.cluster.network.backend: Unsupported value: "geneve": supported values: "vxlan", "host-gw", "wireguard"'),
    ("{plugin: flannel, backend: vxlan, mode: vxlan}",
     'spec.cluster.network.mode: Forbidden: not a flannel setting (it takes "plugin", "backend")'),
    ("{plugin: calico, backend: vxlan}",
     'spec.cluster.network.backend: Forbidden: not a calico setting (it takes "plugin", "mode", "ipPool")'),
])
def test_a_bad_flannel_network_is_one_line_and_exit_2(tmp_path, capsys, network, message):
    path = tmp_path / "bad.yaml"
    path.write_text(open(VXLAN).read().replace("{plugin: flannel, backend: vxlan}", network))
    assert main(["simulate", str(path), "--until", "5"]) == 2
    err = capsys.readouterr().err
    assert err == f"{path} doc 9 Scenario flannel-vxlan: {message}\n"


def test_a_bridge_only_cluster_gets_the_same_walk():
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}, "spec": {"podCIDR": cidr},
              "status": {"addresses": [{"type": "InternalIP", "address": ip}]}}
             for n, ip, cidr in (("a", "10.0.0.11", "10.244.1.0/24"), ("b", "10.0.0.12", "10.244.2.0/24"))]
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": p, "namespace": "default"},
             "spec": {"nodeName": n, "containers": [{"name": "c", "image": "busybox"}]}}
            for p, n in (("p1", "a"), ("p2", "a"), ("p3", "b"))]
    c = Cluster(nodes + pods, controllers=[])
    c.run(until=10)
    same = node_packet_walk(c, "default/p1", "default/p2")
    assert same["delivered"] and same["network"] == "the bridge plugin" and same["hops"][1]["at"] == "a/cni0"
    other = node_packet_walk(c, "default/p1", "default/p3")
    assert not other["delivered"]  # nothing routes pod subnets between bridge-only nodes
