"""Calico's per-node dataplane (interfaces, routes per mode), BGP sessions and route withdrawal.

No upstream unit test is ported here: Felix's route manager tests work on netlink mocks. The expected
lines follow what ``ip route`` shows on Calico nodes as the Calico docs print them (vxlan-ipip and
MTU pages): ``<block> via <tunnel addr> dev vxlan.calico onlink``, ``<block> via <node> dev tunl0 proto
bird onlink``, ``blackhole <block> proto bird`` / ``proto 80``, ``<pod ip> dev cali... scope link``.
"""

import pytest

from kubenotes.cni.calico.bgp import (bgp_session_count, bgp_sessions, fail_node, full_mesh_sessions,
                                      learned_routes, route_reflector_sessions, route_withdrawal)
from kubenotes.cni.calico.dataplane import (IPV4_ADDRESS_ANNOTATION, MODES, CalicoError, build_network,
                                            encap_overhead_bytes, pod_mtu, veth_name_for_workload)


def node(name, addr):
    return {"metadata": {"name": name, "annotations": {IPV4_ADDRESS_ANNOTATION: addr}}}


def pod(name, node_name, ns="default", ip=None):
    p = {"metadata": {"name": name, "namespace": ns}, "spec": {"nodeName": node_name}}
    if ip:
        p["status"] = {"podIP": ip}
    return p


NODES = [node("a", "10.0.0.11/24"), node("b", "10.0.0.12/24"), node("c", "10.0.1.13/24")]
PODS = [pod("pa", "a"), pod("pb", "b"), pod("pc", "c")]


def remote_lines(net, n):
    return [str(r) for r in net.remote_routes(n)]


def test_mtu_and_overhead():
    assert [pod_mtu(m) for m in MODES] == [1450, 1480, 1500, 1450, 1480]
    assert [encap_overhead_bytes(m) for m in MODES] == [50, 20, 0, 50, 20]
    with pytest.raises(CalicoError, match="unknown Calico mode"):
        pod_mtu("geneve")


def test_veth_name_is_sha1_of_namespace_dot_name():
    import hashlib
    assert veth_name_for_workload("kube-system", "coredns") == "cali" + hashlib.sha1(b"kube-system.coredns").hexdigest()[:11]


def test_vxlan_interfaces_and_routes():
    net = build_network(NODES, PODS, mode="vxlan")
    a, b = net.nodes["a"], net.nodes["b"]
    vx = next(i for i in a.interfaces if i.name == "vxlan.calico")
    assert (vx.mtu, vx.details["vni"], vx.details["dstport"], vx.details["local"]) == (1450, 4096, 4789, "10.0.0.11")
    assert vx.addresses == (f"{a.tunnel_ip}/32",)
    veth = next(i for i in a.interfaces if i.kind == "veth")
    assert veth.name == veth_name_for_workload("default", "pa") and veth.mac == "ee:ee:ee:ee:ee:ee" and veth.mtu == 1450
    block_b = str(net.ipam.affine_blocks("b")[0].cidr)
    assert f"{block_b} via {b.tunnel_ip} dev vxlan.calico onlink" in remote_lines(net, "a")
    own = str(net.ipam.affine_blocks("a")[0].cidr)
    assert f"blackhole {own} proto 80" in a.ip_route().splitlines()
    assert f"{net.pods['default/pa'].ip} dev {veth.name} scope link" in a.ip_route().splitlines()
    assert a.fdb == [f"{n.vtep_mac} dev vxlan.calico dst {n.ip} self permanent" for n in (b, net.nodes["c"])]
    assert net.pods["default/pa"].routes[0].__str__() == "default via 169.254.1.1 dev eth0"
    assert bgp_sessions(net) == []  # VXLAN mode runs without BIRD


def test_ipip_and_bgp_routes():
    ipip = build_network(NODES, PODS, mode="ipip")
    block_b = str(ipip.ipam.affine_blocks("b")[0].cidr)
    assert f"{block_b} via 10.0.0.12 dev tunl0 proto bird onlink" in remote_lines(ipip, "a")
    tunl = next(i for i in ipip.nodes["a"].interfaces if i.name == "tunl0")
    assert tunl.mtu == 1480 and tunl.details["protocol"] == 4
    bgp = build_network(NODES, PODS, mode="bgp")
    block_b = str(bgp.ipam.affine_blocks("b")[0].cidr)
    block_c = str(bgp.ipam.affine_blocks("c")[0].cidr)
    assert f"{block_b} via 10.0.0.12 dev eth0 proto bird" in remote_lines(bgp, "a")
    assert f"{block_c} via 10.0.0.1 dev eth0 proto bird" in remote_lines(bgp, "a")  # other subnet: via the gateway
    assert all(i.kind not in ("vxlan", "ipip") for i in bgp.nodes["a"].interfaces)


def test_crosssubnet_encapsulates_only_across_subnets():
    net = build_network(NODES, PODS, mode="vxlan-crosssubnet")
    assert net.encapsulates("a", "b") is None and net.encapsulates("a", "c") == "vxlan"
    lines = remote_lines(net, "a")
    block_b, block_c = (str(net.ipam.affine_blocks(n)[0].cidr) for n in "bc")
    assert f"{block_b} via 10.0.0.12 dev eth0 proto 80 onlink" in lines
    assert f"{block_c} via {net.nodes['c'].tunnel_ip} dev vxlan.calico onlink" in lines
    ipip = build_network(NODES, PODS, mode="ipip-crosssubnet")
    lines = remote_lines(ipip, "a")
    assert f"{str(ipip.ipam.affine_blocks('b')[0].cidr)} via 10.0.0.12 dev eth0 proto bird" in lines
    assert f"{str(ipip.ipam.affine_blocks('c')[0].cidr)} via 10.0.1.13 dev tunl0 proto bird onlink" in lines


def test_pod_ip_from_status_is_kept_and_borrowed_addresses_get_host_routes():
    nodes = [node("a", "10.0.0.11/24"), node("b", "10.0.0.12/24")]
    net = build_network(nodes, [pod("p1", "a"), pod("p2", "b", ip="10.9.0.5")], mode="bgp", pool_cidr="10.9.0.0/26")
    assert net.pods["default/p2"].ip == "10.9.0.5"
    assert net.ipam.block_for("10.9.0.5").host == "a"  # p1 claimed the pool's only block first
    assert "10.9.0.5/32 via 10.0.0.12 dev eth0 proto bird" in remote_lines(net, "a")
    with pytest.raises(CalicoError, match="Pod default/x: status.podIP"):
        build_network(nodes, [pod("x", "a", ip="172.16.0.1")], mode="bgp")
    with pytest.raises(CalicoError, match="node 'zz' is not in the input"):
        build_network(nodes, [pod("x", "zz")])
    with pytest.raises(CalicoError, match="Node q: status.addresses"):
        build_network([{"metadata": {"name": "q"}}])


@pytest.mark.parametrize("n,k,want", [(2, 0, 1), (10, 0, 45), (100, 0, 4950), (10, 2, 17), (100, 3, 294)])
def test_session_counts(n, k, want):
    nodes = [f"n{i}" for i in range(n)]
    got = route_reflector_sessions(nodes, nodes[:k]) if k else full_mesh_sessions(nodes)
    assert len(got) == bgp_session_count(n, k) == want


def test_node_failure_withdraws_its_routes_in_bgp_modes():
    net = build_network(NODES, PODS, mode="ipip")
    w = route_withdrawal(net, "b")
    block_b = str(net.ipam.affine_blocks("b")[0].cidr)
    assert w["a"]["withdrawn"] == [f"{block_b} via 10.0.0.12 dev tunl0 proto bird onlink"]
    assert len(w["a"]["after"]) == len(w["a"]["before"]) - 1 and "b" not in w
    assert len(remote_lines(net, "a")) == 2  # the original is untouched


def test_route_reflector_failure():
    nodes = [node(f"n{i}", f"10.0.0.{10 + i}/24") for i in range(4)]
    net = build_network(nodes, [pod(f"p{i}", f"n{i}") for i in range(4)], mode="bgp")
    learned = learned_routes(net, ["n0"])
    assert learned["n2"] == {"n0", "n1", "n3"}  # through the reflector
    after = fail_node(net, "n0", reflectors=["n0"])
    assert after.remote_routes("n2") == []  # the only reflector is gone: clients learn nothing
    two = learned_routes(net, ["n0", "n1"], down=["n0"])
    assert two["n2"] == {"n1", "n3"}
