"""The node-network walk (kubenotes.cni.walk): over Flannel's, bridge's and a toy plugin's Host state."""

import pytest

from kubenotes.cni.flannel.network import build_network
from kubenotes.cni.flannel.plugin import flannel_conflist, flannel_plugins
from kubenotes.cni.manager import CNIManager, default_conflist, pod_ips
from kubenotes.cni.netns import Route, random_veth_name, uplink_host
from kubenotes.cni.walk import WalkError, walk_packet


def _flannel(backend, addresses=("10.0.0.11", "10.0.0.12")):
    nodes = [{"metadata": {"name": f"n{i}"}, "spec": {"podCIDR": f"10.244.{i}.0/24"},
              "status": {"addresses": [{"type": "InternalIP", "address": a}]}} for i, a in enumerate(addresses, 1)]
    net = build_network(nodes, backend)
    ips = [pod_ips(CNIManager(f"n{i}", flannel_conflist(), host=net.nodes[f"n{i}"].host, plugins=flannel_plugins())
                   .setup_pod_network("default", f"p{i}", f"s{i}", f"/var/run/netns/p{i}"))[0]
           for i in range(1, len(addresses) + 1)]
    return net, ips


@pytest.mark.parametrize("backend, overhead, device, mtu", [
    ("vxlan", 50, "flannel.1", 1450), ("host-gw", 0, "eth0", 1500), ("wireguard", 60, "flannel-wg", 1420)])
def test_flannel_backends_cross_nodes(backend, overhead, device, mtu):
    net, (a, b) = _flannel(backend)
    w = walk_packet(net.hosts(), a, b, size_bytes=1000)
    assert w["delivered"] and w["overheadBytes"] == overhead and w["mtu"] == mtu
    assert f"n1/{device}" in [h["at"] for h in w["hops"]]
    assert max(h["bytes"] for h in w["hops"]) == 1000 + overhead
    assert w["hops"][-1]["at"] == "n2//var/run/netns/p2:eth0"


def test_vxlan_headers_carry_vni_1_and_port_8472():
    net, (a, b) = _flannel("vxlan")
    hop = next(h for h in walk_packet(net.hosts(), a, b)["hops"] if h["at"] == "n1/flannel.1")
    assert hop["headers"][0] == "IPv4 10.0.0.11 > 10.0.0.12 UDP"
    assert hop["headers"][1].endswith("> 8472") and hop["headers"][2] == "VXLAN vni 1"


def test_host_gw_across_a_router_is_dropped_there():
    net, (a, _, c) = _flannel("host-gw", ("10.0.0.11", "10.0.0.12", "10.0.1.13"))
    w = walk_packet(net.hosts(), a, c, size_bytes=1000)
    assert not w["delivered"] and "to the router 10.0.0.1, which has no route" in w["hops"][-1]["action"]
    vx, (a, _, c) = _flannel("vxlan", ("10.0.0.11", "10.0.0.12", "10.0.1.13"))
    assert walk_packet(vx.hosts(), a, c, size_bytes=1000)["delivered"]  # VXLAN crosses the router


def test_missing_fdb_entry_drops_and_bad_sizes_are_refused():
    net, (a, b) = _flannel("vxlan")
    net.nodes["n1"].host.root.fdb.clear()
    w = walk_packet(net.hosts(), a, b)
    assert not w["delivered"] and "no FDB entry" in w["hops"][-1]["action"]
    with pytest.raises(WalkError, match="between 40 and the source's MTU 1450"):
        walk_packet(net.hosts(), a, b, size_bytes=1500)
    with pytest.raises(WalkError, match="no network namespace has the address 10.9.9.9"):
        walk_packet(net.hosts(), "10.9.9.9", b)


def test_bridge_only_nodes_reach_their_own_pods_but_not_the_others():
    hosts, ips = {}, []
    for i in (1, 2):
        m = CNIManager(f"n{i}", default_conflist(f"10.244.{i}.0/24"), host=uplink_host(f"n{i}", f"10.0.0.1{i}/24"))
        ips += pod_ips(m.setup_pod_network("default", f"a{i}", f"sa{i}", f"/var/run/netns/a{i}"))
        ips += pod_ips(m.setup_pod_network("default", f"b{i}", f"sb{i}", f"/var/run/netns/b{i}"))
        hosts[f"n{i}"] = m.host
    same = walk_packet(hosts, ips[0], ips[1])
    assert same["delivered"] and [h["at"] for h in same["hops"]][1] == "n1/cni0"
    other = walk_packet(hosts, ips[0], ips[2])
    assert not other["delivered"] and "router" in other["hops"][-1]["action"]


class Toy:
    """A new CNI plugin the walker has never heard of: a veth, a /32 for the pod, a host route per pod."""

    supported_versions = ("1.0.0",)

    def add(self, call):
        host, ns = call.host, call.host.netns(call.env.netns)
        pod_ip = call.config["podIPs"][call.env.container_id]
        name = random_veth_name(0, call.env.container_id, call.env.ifname)
        hv, cv = host.create_veth(call.env.netns, call.env.ifname, name, seed_key=call.env.container_id)
        cv.addresses.append(f"{pod_ip}/32")
        ns.add_route(Route("169.254.1.1/32", dev=call.env.ifname, scope="link"))
        ns.add_route(Route("0.0.0.0/0", gw="169.254.1.1", dev=call.env.ifname))
        hv.addresses.append("169.254.1.1/32")
        host.root.add_route(Route(f"{pod_ip}/32", dev=name, scope="link"))
        host.root.sysctls["net.ipv4.ip_forward"] = "1"
        return {"cniVersion": "1.0.0", "ips": [{"address": f"{pod_ip}/32"}]}

    def delete(self, call):
        pass

    def check(self, call):
        pass


def test_a_new_plugin_writing_host_state_gets_walks():
    pods = {"c1": "172.16.1.5", "c2": "172.16.2.7"}
    conf = {"cniVersion": "1.0.0", "name": "toy", "plugins": [{"type": "toy", "podIPs": pods}]}
    hosts = {}
    for i, (cid, ip) in enumerate(pods.items(), 1):
        m = CNIManager(f"n{i}", conf, host=uplink_host(f"n{i}", f"10.0.0.1{i}/24"), plugins={"toy": Toy()})
        m.setup_pod_network("default", cid, cid, f"/var/run/netns/{cid}")
        hosts[f"n{i}"] = m.host
    # the toy daemon's job: route each other node's pod via that node (on the same segment)
    hosts["n1"].root.add_route(Route("172.16.2.7/32", gw="10.0.0.12", dev="eth0"))
    w = walk_packet(hosts, "172.16.1.5", "172.16.2.7", size_bytes=500)
    assert w["delivered"] and w["overheadBytes"] == 0
    assert [h["at"] for h in w["hops"]] == ["n1//var/run/netns/c1:eth0", f"n1/{random_veth_name(0, 'c1', 'eth0')}",
                                           "n1/eth0", "n2/eth0", f"n2/{random_veth_name(0, 'c2', 'eth0')}",
                                           "n2//var/run/netns/c2:eth0"]
