"""A simulated cluster networked by Calico (a Scenario's ``spec.cluster.network``), and ``packet`` over its run.

As on a v1.34 node: the kubelet calls ``RunPodSandbox``; the runtime (containerd's CRI plugin through go-cni)
runs the node's ``10-calico.conflist`` (loopback first, then ``calico`` with ``calico-ipam``, ``portmap``,
``bandwidth``); the pod's IP is the address Calico IPAM handed out, reported by ``PodSandboxStatus`` and written
by the kubelet to ``status.podIP``/``podIPs``; Felix routes it on every node. Without ``spec.cluster.network``
nothing changes (the kubelet model networks pods with a bridge on the Node's podCIDR).
"""

from __future__ import annotations

import ipaddress
import json

import pytest
import yaml

from kubenotes.cli import main
from kubenotes.cni.calico.dataplane import CalicoError, veth_name_for_workload
from kubenotes.data import sample
from kubenotes.errors import NotFound
from kubenotes.sim.cli import run
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.network import cluster_packet_walk, pod_sandbox_network

CALICO = str(sample("network", "calico.yaml"))
SPLIT = str(sample("network", "calico-crosssubnet.yaml"))


@pytest.fixture(scope="module")
def vxlan_run():
    return run([CALICO], until=60)


def test_the_scenario_installs_calico_on_every_node(vxlan_run):
    net = vxlan_run.network
    assert (net.mode, net.pool.cidr, net.pool.block_size, net.mtu) == ("vxlan", "192.168.0.0/16", 26, 1450)
    for name, kubelet in vxlan_run.kubelets.items():
        assert kubelet.cni.network.name == "k8s-pod-network"
        assert [p["type"] for p in kubelet.cni.network.plugins] == ["calico", "portmap", "bandwidth"]
        assert kubelet.cni.network.plugins[0]["mtu"] == 1450 and kubelet.cni.network.plugins[0]["nodename"] == name
        assert net.ipam.handles[f"vxlan-tunnel-addr-{name}"] == [net.nodes[name].tunnel_ip]


def test_pod_ips_come_from_calico_ipam_through_the_cri(vxlan_run):
    net = vxlan_run.network
    pods = vxlan_run.list("pods")
    assert len(pods) == 4
    for pod in pods:
        ns, name, node = pod["metadata"]["namespace"], pod["metadata"]["name"], pod["spec"]["nodeName"]
        s = pod_sandbox_network(vxlan_run, ns, name)
        assert [(t["network"], t["type"], t["command"]) for t in s["calls"]] == [
            ("cni-loopback", "loopback", "ADD"), ("k8s-pod-network", "calico", "ADD"),
            ("k8s-pod-network", "portmap", "ADD"), ("k8s-pod-network", "bandwidth", "ADD")]
        assert s["calls"][1]["delegated"][0]["type"] == "calico-ipam"
        assert f"K8S_POD_NAME={name}" in s["calls"][1]["env"]["CNI_ARGS"]
        ip = s["result"]["ips"][0]["address"]
        assert ip == f"{pod['status']['podIP']}/32" and pod["status"]["podIPs"] == [{"ip": pod["status"]["podIP"]}]
        assert net.ipam.handles[f"k8s-pod-network.{s['sandboxId']}"] == [pod["status"]["podIP"]]
        assert any(ipaddress.ip_address(pod["status"]["podIP"]) in b.cidr for b in net.ipam.affine_blocks(node))
        assert net.pods[f"{ns}/{name}"].veth == veth_name_for_workload(ns, name)
        assert s["podRoutes"] == ["169.254.1.1 dev eth0 scope link", "default via 169.254.1.1 dev eth0"]
        status = next(t for t in vxlan_run.kubelets[node].runtime.trace if t["method"] == "PodSandboxStatus"
                      and t["response"]["status"]["id"] == s["sandboxId"])
        assert status["response"]["status"]["network"]["ip"] == pod["status"]["podIP"]


def test_felix_routes_every_remote_block_through_vxlan(vxlan_run):
    net = vxlan_run.network
    for name, nn in net.nodes.items():
        remote = [str(r) for r in net.remote_routes(name)]
        want = sorted(f"{b.cidr} via {net.nodes[o].tunnel_ip} dev vxlan.calico onlink"
                      for o in net.nodes if o != name for b in net.ipam.affine_blocks(o))
        assert sorted(remote) == want
        assert [(i.name, i.mtu) for i in nn.interfaces if i.kind == "vxlan"] == [("vxlan.calico", 1450)]


def test_a_deleted_pods_address_goes_back_and_its_route_goes(tmp_path):
    text = open(CALICO).read().replace("  steps: []", "  steps:\n  - at: 30\n    delete: {kind: Pod, namespace: default, name: web-2-0}")
    path = tmp_path / "calico-delete.yaml"
    path.write_text(text)
    c = run([str(path)], until=90)
    assert c.get("pods", "web-2-0", "default") is None
    assert "default/web-2-0" not in c.network.pods
    assert not [h for h, ips in c.network.ipam.handles.items() if h.startswith("k8s-pod-network.") and
                any(ipaddress.ip_address(i) in b.cidr for i in ips for b in c.network.ipam.affine_blocks("node-2"))]
    assert all("192.168.41.1 " not in str(r) for n in c.network.nodes.values() for r in n.routes)


def test_without_a_network_nothing_changes():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "spec": {"podCIDR": "10.244.1.0/24"},
            "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.11"}]}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "default"},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "busybox"}]}}
    c = Cluster([node, pod])
    c.run(until=30)
    assert c.network is None and c.kubelets["n1"].cni.network.name == "cbr0"
    assert [p["type"] for p in c.kubelets["n1"].cni.network.plugins] == ["bridge", "portmap", "bandwidth"]
    cidr = c.get("nodes", "n1")["spec"]["podCIDR"]
    assert ipaddress.ip_address(c.get("pods", "a", "default")["status"]["podIP"]) in ipaddress.ip_network(cidr)
    with pytest.raises(CalicoError, match=r"the cluster runs no Calico network \(set spec.cluster.network"):
        cluster_packet_walk(c, "default/a", "default/a")


def test_the_network_argument_runs_the_same_file_in_another_mode():
    c = run([CALICO], until=60, network={"mode": "ipip", "ipPool": {"blockSize": 28}})
    assert (c.network.mode, c.network.pool.block_size, c.network.pool.cidr) == ("ipip", 28, "192.168.0.0/16")
    assert all(str(r).endswith("dev tunl0 proto bird onlink") for r in c.network.remote_routes("node-0"))
    walk = cluster_packet_walk(c, "default/client", "default/web-1-0", size_bytes=1000)
    assert walk["overheadBytes"] == 20 and walk["mtu"] == 1480


def test_crosssubnet_encapsulates_only_across_the_router():
    c = run([SPLIT], until=60)
    assert c.network.mode == "vxlan-crosssubnet"
    over = {d: cluster_packet_walk(c, "default/client", d)["overheadBytes"] for d in ("default/web-2-0", "default/web-1-0")}
    assert over == {"default/web-2-0": 0, "default/web-1-0": 50}


def test_pod_sandbox_network_of_an_unknown_pod(vxlan_run):
    with pytest.raises(NotFound, match="pod default/nope has no networked sandbox"):
        pod_sandbox_network(vxlan_run, "default", "nope")


# ---------------------------------------------------------------------------------------------- the command line
def test_simulate_shows_the_pods_with_their_calico_ips(capsys, vxlan_run):
    assert main(["simulate", CALICO, "--until", "60", "-o", "wide"]) == 0
    out = capsys.readouterr().out
    for pod in vxlan_run.list("pods"):
        line = next(l for l in out.splitlines() if f" {pod['metadata']['name']} " in l)
        assert f" {pod['status']['podIP']} " in line and f" {pod['spec']['nodeName']} " in line


def test_packet_walks_the_state_of_the_scenarios_run(capsys, vxlan_run):
    assert main(["packet", CALICO, "--from", "default/client", "--to", "default/web:80"]) == 0
    walk = json.loads(capsys.readouterr().out)
    client = vxlan_run.get("pods", "client", "default")["status"]["podIP"]
    assert walk == cluster_packet_walk(vxlan_run, "default/client", "default/web:80")
    assert walk["hops"][0]["headers"][0] == f"IPv4 {client} > 10.96.0.80 TCP" and walk["overheadBytes"] == 50
    assert main(["packet", CALICO, "--from", "default/client", "--to", "default/web-1-0", "--calico-mode", "bgp"]) == 0
    assert json.loads(capsys.readouterr().out)["overheadBytes"] == 0


@pytest.mark.parametrize("change, message", [
    (("mode: vxlan,", "mode: geneve,"), 'spec.cluster.network.mode: Unsupported value: "geneve": supported values: '
     '"vxlan", "ipip", "bgp", "vxlan-crosssubnet", "ipip-crosssubnet"'),
    (("plugin: calico", "plugin: weave"),
     'spec.cluster.network.plugin: Unsupported value: "weave": supported values: "calico", "flannel"'),
    (("blockSize: 26", "blockSize: 12"),
     "spec.cluster.network.ipPool.blockSize: Invalid value: 12: must be in [20, 32] for 192.168.0.0/16"),
    (("cidr: 192.168.0.0/16", "cidr: 192.168.0.1/16"), "spec.cluster.network.ipPool.cidr: Invalid value: invalid "
     "IPv4 CIDR '192.168.0.1/16' (192.168.0.1/16 has host bits set)"),
    (("network: {plugin", "network: {mtu: 9000, plugin"),
     'spec.cluster.network.mtu: Unsupported value: "mtu": supported values: "plugin", "mode", "ipPool", "backend"'),
    (("  cluster:\n", "  cluster:\n    kubelet: stand-in\n"),
     'spec.cluster.network: Invalid value: a pod network needs the kubelet model, not "stand-in"'),
])
def test_a_bad_network_is_one_line_and_exit_2(tmp_path, capsys, change, message):
    path = tmp_path / "bad.yaml"
    path.write_text(open(CALICO).read().replace(*change))
    assert main(["simulate", str(path), "--until", "5"]) == 2
    err = capsys.readouterr().err
    assert err == f"{path} doc 9 Scenario calico: {message}\n"


def test_the_command_lines_bad_combinations_are_one_line(capsys):
    assert main(["simulate", CALICO, "--kubelet", "stand-in", "--until", "5"]) == 2
    assert capsys.readouterr().err == "--kubelet stand-in: Invalid value: spec.cluster.network needs the kubelet model\n"
    assert main(["packet", CALICO, "--from", "default/client", "--to", "default/web-1-0", "--link-mtu", "9000"]) == 2
    assert capsys.readouterr().err.endswith("--link-mtu: not supported with a Scenario (its nodes' links are 1500 bytes)\n")


def test_the_data_file_is_a_plain_manifest_list():
    docs = list(yaml.safe_load_all(open(CALICO)))
    assert [d["kind"] for d in docs] == ["Node"] * 3 + ["Pod"] * 4 + ["Service", "Scenario"]
    assert docs[-1]["spec"]["cluster"]["network"] == {"plugin": "calico", "mode": "vxlan",
                                                      "ipPool": {"cidr": "192.168.0.0/16", "blockSize": 26}}
