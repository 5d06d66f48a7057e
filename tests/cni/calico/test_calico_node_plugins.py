"""Calico installed on a node: its own ``calico``/``calico-ipam`` binaries bound to one cluster's datastore.

calico-node's install container copies the two binaries into the node's ``/opt/cni/bin`` and writes
``10-calico.conflist`` (``cni-plugin/pkg/install/install.go``, calico.yaml's ``cni_network_config``);
the plugins then talk to that cluster's datastore: ``calico-ipam`` assigns from the node's affine block
under the handle ``k8s-pod-network.<container id>`` (``ipam_plugin.go``), ``calico`` writes the pod's
WorkloadEndpoint (``k8s.go`` CmdAddK8s) and Felix routes it (``route_mgr.go``); DEL undoes both.
"""

from __future__ import annotations

import ipaddress

import pytest

from kubenotes.cni.calico.dataplane import (add_workload, build_network, new_network, program, remove_workload,
                                            start_node, veth_name_for_workload)
from kubenotes.cni.calico.plugin import DEFAULT_IPAM, calico_conflist, calico_plugins
from kubenotes.cni.manager import CNIManager, pod_ips
from kubenotes.cni.spec import CNIEnv, CNIError, lookup_plugin, run_plugin


def _node(name, ip):
    return {"kind": "Node", "metadata": {"name": name},
            "status": {"addresses": [{"type": "InternalIP", "address": ip}]}}


@pytest.fixture
def net():
    net = new_network("vxlan", pool_cidr="10.10.0.0/16")
    for name, ip in (("n1", "10.0.0.11"), ("n2", "10.0.0.12")):
        start_node(net, _node(name, ip))
    return program(net)


def _manager(net, node):
    return CNIManager(node, calico_conflist(node, mtu=net.mtu), plugins=calico_plugins(net))


def test_a_nodes_own_binaries_are_found_before_the_registered_ones(net):
    plugins = calico_plugins(net)
    assert lookup_plugin("calico", plugins) is plugins["calico"]
    assert lookup_plugin("calico") is not plugins["calico"]  # the process-wide registry is untouched
    assert lookup_plugin("portmap", plugins) is lookup_plugin("portmap")
    with pytest.raises(CNIError, match=r'failed to find plugin "flannel" in path \[/opt/cni/bin\]'):
        lookup_plugin("flannel", plugins)


def test_add_assigns_from_the_nodes_block_writes_the_endpoint_and_felix_routes_it(net):
    used_before = dict(DEFAULT_IPAM.handles)
    m = _manager(net, "n2")
    result = m.setup_pod_network("default", "web", "c0ffee", "/var/run/netns/cni-1", uid="u1")
    ip = pod_ips(result)[0]
    assert net.ipam.handles["k8s-pod-network.c0ffee"] == [ip]
    assert any(ipaddress.ip_address(ip) in b.cidr for b in net.ipam.affine_blocks("n2"))
    pod = net.pods["default/web"]
    assert (pod.node, pod.ip, pod.veth, pod.mtu) == ("n2", ip, veth_name_for_workload("default", "web"), 1450)
    assert pod.mac == result["interfaces"][1]["mac"]  # the pod's eth0 as the plugin made it
    assert f"{ip} dev {pod.veth} scope link" in net.nodes["n2"].ip_route().splitlines()
    block = next(str(b.cidr) for b in net.ipam.affine_blocks("n2"))
    tunnel = net.nodes["n2"].tunnel_ip
    assert f"{block} via {tunnel} dev vxlan.calico onlink" in net.nodes["n1"].ip_route().splitlines()
    assert DEFAULT_IPAM.handles == used_before


def test_del_releases_the_address_and_removes_the_endpoint_and_its_route(net):
    m = _manager(net, "n1")
    ip = pod_ips(m.setup_pod_network("default", "web", "c1", "/var/run/netns/cni-1"))[0]
    m.teardown_pod_network("default", "web", "c1", "/var/run/netns/cni-1")
    assert "k8s-pod-network.c1" not in net.ipam.handles and "default/web" not in net.pods
    assert not any(r.dst == ip for r in net.nodes["n1"].routes)
    m.teardown_pod_network("default", "web", "c1", "/var/run/netns/cni-1")  # DEL is idempotent


def test_two_clusters_never_share_an_ipam():
    a, b = new_network("ipip"), new_network("ipip")
    for net in (a, b):
        start_node(net, _node("n1", "10.0.0.11"))
    ip_a = pod_ips(_manager(a, "n1").setup_pod_network("default", "web", "c1", "/ns/1"))[0]
    ip_b = pod_ips(_manager(b, "n1").setup_pod_network("default", "web", "c1", "/ns/1"))[0]
    assert ip_a == ip_b and list(a.pods) == list(b.pods) == ["default/web"]


def test_a_pod_on_a_node_without_calico_node_fails_the_add_and_is_cleaned_up(net):
    m = _manager(net, "n3")
    with pytest.raises(CNIError, match="calico node 'n3' is not running"):
        m.setup_pod_network("default", "web", "c1", "/var/run/netns/cni-1")
    assert not any(h.startswith("k8s-pod-network.") for h in net.ipam.handles) and net.pods == {}


def test_the_pieces_give_what_build_network_gives():
    nodes = [_node("node-a", "10.0.0.11"), _node("node-b", "10.0.1.12")]
    pods = [{"metadata": {"name": p, "namespace": "default"}, "spec": {"nodeName": n}}
            for p, n in (("a", "node-a"), ("b", "node-b"), ("c", "node-b"))]
    for mode in ("vxlan", "ipip", "bgp", "vxlan-crosssubnet", "ipip-crosssubnet"):
        whole = build_network(nodes, pods, mode=mode)
        net = new_network(mode)
        for n in nodes:
            start_node(net, n)
        for p in pods:
            ns, name, node = "default", p["metadata"]["name"], p["spec"]["nodeName"]
            add_workload(net, ns, name, node, net.ipam.auto_assign(node, f"k8s-pod-network.{ns}.{name}"))
        assert {n: net.nodes[n].ip_route() for n in net.nodes} == {n: whole.nodes[n].ip_route() for n in whole.nodes}
        assert {k: p.ip for k, p in net.pods.items()} == {k: p.ip for k, p in whole.pods.items()}
        remove_workload(net, "default", "c")
        assert "default/c" not in net.pods


def test_new_network_takes_the_pool_and_block_size():
    net = new_network("ipip-crosssubnet", pool_cidr="10.244.0.0/16", block_size=24)
    assert (net.pool.cidr, net.pool.block_size, net.pool.ipip_mode, net.pool.vxlan_mode) == (
        "10.244.0.0/16", 24, "CrossSubnet", "Never")
    start_node(net, _node("n1", "10.0.0.11"))
    assert [str(b.cidr) for b in net.ipam.affine_blocks("n1")][0].endswith("/24")


def test_run_plugin_passes_the_nodes_plugins_to_a_delegate(net):
    plugins = calico_plugins(net)
    conf = calico_conflist("n1")["plugins"][0] | {"cniVersion": "1.0.0", "name": "k8s-pod-network"}
    out = run_plugin("calico-ipam", CNIEnv("ADD", "c9", "/ns", "eth0", path="/opt/cni/bin"), conf, plugins=plugins)
    assert out.error is None and net.ipam.handles["k8s-pod-network.c9"] == [out.result["ips"][0]["address"][:-3]]
