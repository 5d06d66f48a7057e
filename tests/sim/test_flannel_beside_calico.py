"""Chapter 06.00's Flannel section: kubenotes.sim.flannel (the example network, walks, stores, overhead rows)."""

import json

import pytest

from kubenotes.cni.encap import ENCAP_OVERHEAD_BYTES
from kubenotes.cni.flannel.subnet import FlannelError
from kubenotes.cni.walk import WalkError
from kubenotes.sim.flannel import DESTINATIONS, WALK_BACKENDS, backend_walk, overhead_rows, subnet_manager_store


def test_vxlan_walk_wraps_in_vni_1_on_8472_and_uses_the_onlink_route_arp_and_fdb():
    r = backend_walk("vxlan", "default/web-1-0", size_bytes=1450)
    w = r["walk"]
    assert w["delivered"] and (w["overheadBytes"], w["mtu"]) == (50, 1450) and max(h["bytes"] for h in w["hops"]) == 1500
    wrap = next(h for h in w["hops"] if h["at"] == "node-0/flannel.1")
    assert wrap["headers"][1].endswith("> 8472") and wrap["headers"][2] == "VXLAN vni 1"
    assert "10.244.1.0/24 via 10.244.1.0 dev flannel.1 onlink" in r["routes"]
    mac = r["neigh"][0].split()[4]
    assert r["neigh"][0].startswith("10.244.1.0 dev flannel.1 lladdr") and f"{mac} dev flannel.1 dst 10.0.0.12" in r["fdb"][0]
    assert "FLANNEL_MTU=1450" in r["subnetEnv"] and w["policy"][0]["enforcedBy"] is None


def test_host_gw_routes_directly_on_its_segment_and_loses_the_node_behind_a_router():
    same = backend_walk("host-gw", "default/web-1-0")
    assert same["walk"]["delivered"] and same["walk"]["overheadBytes"] == 0 and same["walk"]["mtu"] == 1500
    assert "10.244.1.0/24 via 10.0.0.12 dev eth0" in same["routes"]
    far = backend_walk("host-gw", "default/web-2-0")
    assert not far["walk"]["delivered"] and not any(x.startswith("10.244.2.0/24") for x in far["routes"])
    assert far["errors"] == ["Error adding route to 10.244.2.0/24 via 10.0.1.13: network is unreachable"]
    assert "router 10.0.0.1" in far["walk"]["hops"][-1]["action"]
    assert backend_walk("vxlan", "default/web-2-0")["walk"]["delivered"]      # vxlan crosses the router


def test_wireguard_walk_and_peers():
    r = backend_walk("wireguard", "default/web-2-0", size_bytes=1000)
    assert r["walk"]["delivered"] and (r["walk"]["overheadBytes"], r["walk"]["mtu"]) == (60, 1420)
    assert [p.split()[-3:] for p in r["wgPeers"]] == [["10.0.0.12:51820", "allowed-ips", "10.244.1.0/24"],
                                                     ["10.0.1.13:51820", "allowed-ips", "10.244.2.0/24"]]
    assert "10.244.0.0/16 dev flannel-wg scope link" in r["routes"] and r["neigh"] == [] and r["fdb"] == []


@pytest.mark.parametrize("backend, dst, size, error, message", [
    ("udp", "default/web-1-0", 1000, FlannelError, "backend 'udp' is not walked"),
    ("vxlan", "default/nope", 1000, FlannelError, "unknown destination 'default/nope'"),
    ("vxlan", "default/web-1-0", 1451, WalkError, "source's MTU 1450"),
])
def test_bad_input_gets_one_line(backend, dst, size, error, message):
    with pytest.raises(error, match=message) as e:
        backend_walk(backend, dst, size_bytes=size)
    assert "\n" not in str(e.value)


def test_subnet_manager_stores():
    kube = subnet_manager_store("kube", "vxlan")
    assert kube[0]["key"] == "net-conf.json" and json.loads(kube[0]["value"])["Backend"] == {"Type": "vxlan"}
    node0 = {r["key"].split()[1]: r["value"] for r in kube if r["key"].startswith("node-0 ")}
    assert sorted(node0) == ["flannel.alpha.coreos.com/backend-data", "flannel.alpha.coreos.com/backend-type",
                             "flannel.alpha.coreos.com/kube-subnet-manager", "flannel.alpha.coreos.com/public-ip"]
    assert node0["flannel.alpha.coreos.com/public-ip"] == "10.0.0.11" and json.loads(
        node0["flannel.alpha.coreos.com/backend-data"])["VNI"] == 1
    assert all(r["ttlSeconds"] is None for r in kube)
    etcd = subnet_manager_store("etcd", "host-gw")
    assert etcd[0]["key"] == "/coreos.com/network/config" and etcd[0]["ttlSeconds"] is None
    leases = etcd[1:]
    assert len(leases) == 3 and all(r["key"].startswith("/coreos.com/network/subnets/10.244.") and
                                    r["key"].endswith("-24") and r["ttlSeconds"] == 24 * 3600 for r in leases)
    assert sorted(json.loads(r["value"])["PublicIP"] for r in leases) == ["10.0.0.11", "10.0.0.12", "10.0.1.13"]
    with pytest.raises(FlannelError, match="unknown subnet manager 'zk'"):
        subnet_manager_store("zk")


def test_overhead_rows_read_the_one_table(monkeypatch):
    rows = {(r["plugin"], r["mode"]): (r["overheadBytes"], r["mtu"]) for r in overhead_rows()}
    assert rows[("Flannel", "vxlan")] == rows[("Calico", "vxlan")] == (50, 1450)
    assert rows[("Flannel", "wireguard")] == (60, 1420) and rows[("Calico", "wireguard")] == (60, 1440)
    assert rows[("Flannel", "host-gw")] == rows[("Calico", "bgp")] == (0, 1500)
    monkeypatch.setitem(ENCAP_OVERHEAD_BYTES, "ipip", 24)
    assert next(r for r in overhead_rows() if r["mode"] == "ipip")["mtu"] == 1476


def test_flannel_panel_answers_every_value():
    import contextlib
    import io

    from kubenotes.viz.network import flannel_panel

    with contextlib.redirect_stdout(io.StringIO()):
        panel = flannel_panel()
        backend, to = panel.children[0].children
        for b in WALK_BACKENDS:
            for d in DESTINATIONS:
                backend.value, to.value = b, d
    assert (backend.value, to.value) == (WALK_BACKENDS[-1], DESTINATIONS[-1])
