"""The packet walk (:func:`kubenotes.sim.network.packet_walk` over :func:`kubenotes.cni.calico.packet.walk_packet`)
and ``kubenotes packet``.

The overheads are the Calico MTU page's (VXLAN 50 = outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14,
IP-in-IP 20) and RFC 7348 / RFC 2003; the Service hop's chain names are kube-proxy's
(:mod:`kubenotes.proxy.iptables`). No upstream test is ported.
"""

import json

import pytest

import kubenotes.cli as cli
from kubenotes.cni.calico.dataplane import CalicoError, veth_name_for_workload
from kubenotes.cni.calico.packet import example_cluster, mode_summary, network_from_objects, walk_packet, walk_table
from kubenotes.proxy.iptables import service_port_policy_cluster_chain
from kubenotes.sim.network import packet_walk

MANIFEST = """\
apiVersion: v1
kind: Node
metadata: {name: node-a, annotations: {projectcalico.org/IPv4Address: 10.0.0.11/24}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b, annotations: {projectcalico.org/IPv4Address: 10.0.0.12/24}}
---
apiVersion: v1
kind: Node
metadata: {name: node-c}
status: {addresses: [{type: InternalIP, address: 10.0.1.13}]}
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: default}
spec: {nodeName: node-a, containers: [{name: c, image: busybox}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default, labels: {app: web}}
spec: {nodeName: node-b, containers: [{name: c, image: nginx, ports: [{containerPort: 8080}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: far, namespace: default}
spec: {nodeName: node-c, containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {selector: {app: web}, ports: [{name: http, port: 80, targetPort: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: empty, namespace: default}
spec: {selector: {app: none}, ports: [{port: 80}]}
"""


@pytest.fixture
def objects(tmp_path):
    from kubenotes.proxy.endpoints import load_proxy_objects
    p = tmp_path / "cluster.yaml"
    p.write_text(MANIFEST)
    return load_proxy_objects([str(p)])


@pytest.fixture
def manifest(tmp_path):
    p = tmp_path / "cluster.yaml"
    p.write_text(MANIFEST)
    return str(p)


@pytest.mark.parametrize("mode,overhead,mtu,wire", [("vxlan", 50, 1450, 1050), ("ipip", 20, 1480, 1020),
                                                     ("bgp", 0, 1500, 1000), ("vxlan-crosssubnet", 0, 1450, 1000),
                                                     ("ipip-crosssubnet", 0, 1480, 1000)])
def test_pod_to_pod_same_subnet(objects, mode, overhead, mtu, wire):
    w = packet_walk(objects, "default/client", "default/web-1", mode=mode, size_bytes=1000)
    assert set(w) == {"hops", "overheadBytes", "mtu", "allowed", "policy"} and (w["overheadBytes"], w["mtu"]) == (
        overhead, mtu)
    assert w["allowed"] and [v["direction"] for v in w["policy"]] == ["Egress", "Ingress"]  # no policy: allowed
    assert all(set(h) == {"at", "action", "headers", "bytes"} for h in w["hops"])
    assert max(h["bytes"] for h in w["hops"]) == wire
    assert w["hops"][0]["at"] == "node-a/default/client:eth0" and w["hops"][-1]["at"] == "node-b/default/web-1:eth0"
    assert w["hops"][1]["at"] == "node-a/" + veth_name_for_workload("default", "client")
    assert w["hops"][-1]["headers"][-1].endswith("> 8080")  # the pod's containerPort


def test_vxlan_headers_pushed_and_popped(objects):
    w = packet_walk(objects, "default/client", "default/web-1", mode="vxlan", size_bytes=1000)
    at = [h["at"] for h in w["hops"]]
    assert at[2:6] == ["node-a/vxlan.calico", "node-a/eth0", "node-b/eth0", "node-b/vxlan.calico"]
    pushed = w["hops"][2]["headers"]
    assert pushed[0] == "IPv4 10.0.0.11 > 10.0.0.12 UDP" and pushed[1].endswith("> 4789")
    assert pushed[2] == "VXLAN vni 4096" and pushed[3].startswith("Ethernet 66:")
    assert pushed[4:] == w["hops"][0]["headers"]
    assert w["hops"][5]["headers"] == w["hops"][0]["headers"] and w["hops"][5]["bytes"] == 1000


def test_ipip_header(objects):
    w = packet_walk(objects, "default/client", "default/web-1", mode="ipip", size_bytes=600)
    assert w["hops"][2]["at"] == "node-a/tunl0" and w["hops"][2]["headers"][0] == "IPv4 10.0.0.11 > 10.0.0.12 IPIP (protocol 4)"
    assert w["hops"][2]["bytes"] == 620


def test_across_subnets(objects):
    cross = packet_walk(objects, "default/client", "default/far", mode="vxlan-crosssubnet", size_bytes=1000)
    assert cross["overheadBytes"] == 50 and any(h["at"] == "router/10.0.0.1" for h in cross["hops"])
    bgp = packet_walk(objects, "default/client", "default/far", mode="bgp", size_bytes=1000)
    assert bgp["hops"][-1]["at"] == "router/10.0.0.1" and bgp["hops"][-1]["action"].startswith("dropped")


def test_service_dnat(objects):
    w = packet_walk(objects, "default/client", "default/web:http", mode="vxlan", size_bytes=500)
    dnat = next(h for h in w["hops"] if "DNAT" in h["action"])
    assert service_port_policy_cluster_chain("default/web:http", "tcp") in dnat["action"]
    assert "KUBE-SERVICES" in dnat["action"] and "KUBE-SEP-" in dnat["action"]
    assert dnat["headers"][-1].endswith("> 8080") and w["hops"][-1]["at"] == "node-b/default/web-1:eth0"
    assert w["hops"][0]["headers"][-1].endswith("> 80")
    by_number = packet_walk(objects, "default/client", "default/web:80", mode="vxlan", size_bytes=500)
    assert by_number["hops"][-1] == w["hops"][-1]


def test_service_without_endpoints_is_rejected(objects):
    w = packet_walk(objects, "default/client", "default/empty:80", mode="ipip")
    assert "REJECT" in w["hops"][-1]["action"] and "has no endpoints" in w["hops"][-1]["action"]


def test_same_node(objects):
    objs = objects + [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "peer", "namespace": "default"},
                       "spec": {"nodeName": "node-a", "containers": [{"name": "c", "image": "x"}]}}]
    w = packet_walk(objs, "default/client", "default/peer:9000", mode="vxlan", size_bytes=100)
    assert w["overheadBytes"] == 0 and all(h["at"].startswith("node-a/") for h in w["hops"])
    assert w["hops"][-1]["headers"][-1].endswith("> 9000")


def test_fragmentation_beyond_the_pod_mtu(objects):
    w = packet_walk(objects, "default/client", "default/web-1", mode="vxlan", size_bytes=3000)
    assert "fragments" in w["hops"][0]["action"] and w["hops"][0]["bytes"] <= 1450
    assert max(h["bytes"] for h in w["hops"]) <= 1500


@pytest.mark.parametrize("src,dst,msg", [
    ("default/nope", "default/web-1", "--from default/nope: no Pod default/nope in the input"),
    ("default/pending", "default/web-1", "has no spec.nodeName"),
    ("client", "default/web-1", "expected NAMESPACE/NAME"),
    ("default/client", "default/web:443", "the Service has no port 443"),
    ("default/client", "default/ghost", "no Pod or Service default/ghost"),
])
def test_bad_input(objects, src, dst, msg):
    with pytest.raises(CalicoError, match=msg.replace("-", r"\-").replace("/", "/")):
        packet_walk(objects, src, dst)


def test_walk_reads_kube_proxy_state_it_is_given(objects):
    """cni computes no kube-proxy state: a Service walk without it fails; with the caller's state it matches."""
    net, objs = network_from_objects(objects, mode="vxlan")
    with pytest.raises(CalicoError, match="no kube-proxy state for node node-a was given"):
        walk_packet(net, objs, "default/client", "default/web:http", size_bytes=500)
    assert walk_packet(net, objs, "default/client", "default/web-1", size_bytes=500) == \
        packet_walk(objects, "default/client", "default/web-1", mode="vxlan", size_bytes=500)


def test_table():
    text = walk_table({"hops": [{"at": "n/eth0", "action": "x", "headers": ["A", "B"], "bytes": 40}],
                       "overheadBytes": 20, "mtu": 1480})
    assert text.splitlines()[1].split()[:4] == ["1", "n/eth0", "40", "A"] and text.endswith("pod MTU 1480")


@pytest.fixture
def packet_cli():
    """``python -m kubenotes``'s ``main``: ``packet`` is one of its subcommands."""
    assert "packet" in {name for name, _, _ in cli.SUBCOMMANDS}
    return cli.main


def test_cli_json(packet_cli, manifest, capsys):
    rc = packet_cli(["packet", manifest, "--from", "default/client", "--to", "default/web:80",
                     "--calico-mode", "vxlan", "--size", "1000"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and list(out) == ["hops", "overheadBytes", "mtu", "allowed", "policy"] and out["overheadBytes"] == 50 and out["mtu"] == 1450


def test_cli_table_and_default_mode(packet_cli, manifest, capsys):
    assert packet_cli(["packet", manifest, "--from", "default/client", "--to", "default/web-1", "-o", "table"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("overhead 20 bytes, pod MTU 1480")  # default: IP-in-IP


@pytest.mark.parametrize("argv,msg", [
    (["--from", "default/x", "--to", "default/web-1"], "--from default/x: no Pod default/x in the input"),
    (["--from", "default/client", "--to", "default/web-1", "--size", "10"], "--size 10: must be between 40"),
])
def test_cli_bad_input_one_line_exit_2(packet_cli, manifest, capsys, argv, msg):
    assert packet_cli(["packet", manifest, *argv]) == 2
    err = capsys.readouterr().err
    assert err.strip() == msg.strip() or (msg in err and err.count("\n") == 1)


def test_cli_bad_manifest(packet_cli, tmp_path, capsys):
    p = tmp_path / "bad.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: c, image: i, ports: [{containerPort: lots}]}]}\n")
    assert packet_cli(["packet", str(p), "--from", "default/x", "--to", "default/x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.yaml doc 1 Pod default/x" in err


def test_example_cluster_shapes():
    objs = example_cluster(4, pods_per_node=2, subnets=2)
    nodes = [o for o in objs if o["kind"] == "Node"]
    assert [n["metadata"]["annotations"]["projectcalico.org/IPv4Address"] for n in nodes] == [
        "10.0.0.11/24", "10.0.1.12/24", "10.0.0.13/24", "10.0.1.14/24"]
    assert sum(o["kind"] == "Pod" for o in objs) == 1 + 8
    assert example_cluster(2, service=False)[-1]["kind"] == "Pod"


def test_mode_summary():
    assert mode_summary(3, 1500, "vxlan")["fits"] is False and mode_summary(3, 1500, "vxlan")["fragments"] == 2
    assert mode_summary(5, 1400, "ipip-crosssubnet")["bgpSessions"] == 10


def test_cluster_graph_tunnels_only_between_encapsulating_nodes_and_counts_bgp_sessions():
    from kubenotes.cni.calico.bgp import bgp_session_count
    from kubenotes.cni.calico.packet import cluster_graph, example_cluster, network_from_objects

    def kinds(g, kind):
        return [(a, b) for a, b, k in g.edges(data="kind") if k == kind]

    plain = cluster_graph(network_from_objects(example_cluster(3), mode="bgp")[0])
    assert kinds(plain, "tunnel") == [] and len(kinds(plain, "bgp")) == bgp_session_count(3)
    vx = cluster_graph(network_from_objects(example_cluster(3), mode="vxlan")[0])
    assert len(kinds(vx, "tunnel")) == 3 and all(a.endswith("/vxlan.calico") for a, _ in kinds(vx, "tunnel"))
