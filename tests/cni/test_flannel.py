"""Flannel: net-conf.json, the Kubernetes and etcd subnet managers, the backends' Host state, the CNI plugin."""

import json

import pytest

from kubenotes.cni.encap import ENCAP_OVERHEAD_BYTES, EncapError, inner_mtu, overhead_bytes
from kubenotes.cni.flannel.backend import backend_mtu, handle_subnet_events, masq_rules
from kubenotes.cni.flannel.network import build_network
from kubenotes.cni.flannel.plugin import DATA_DIR, delegate_config, flannel_conflist, flannel_plugins
from kubenotes.cni.flannel.subnet import (BACKEND_DATA_ANNOTATION, BACKEND_TYPE_ANNOTATION, CONFIG_KEY, SUBNET_FILE,
                                          SUBNET_TTL_SECONDS, EtcdSubnetManager, FlannelError, KubeSubnetManager,
                                          Lease, MemoryEtcd, parse_net_config, parse_subnet_env, subnet_env)
from kubenotes.cni.manager import CNIManager, pod_ips
from kubenotes.cni.calico import dataplane


def _nodes(addresses=("10.0.0.11", "10.0.0.12"), pod_cidrs=True):
    return [{"metadata": {"name": f"n{i}"}, "spec": {"podCIDR": f"10.244.{i}.0/24"} if pod_cidrs else {},
             "status": {"addresses": [{"type": "InternalIP", "address": a}]}} for i, a in enumerate(addresses, 1)]


def test_one_encapsulation_table_that_calico_reads_too():
    assert ENCAP_OVERHEAD_BYTES == {"vxlan": 50, "ipip": 20, "wireguard": 60, "wireguard-ipv6": 80, "udp": 28,
                                    "none": 0}
    assert dataplane.VXLAN_OVERHEAD_BYTES is ENCAP_OVERHEAD_BYTES["vxlan"]
    assert dataplane.IPIP_OVERHEAD_BYTES is ENCAP_OVERHEAD_BYTES["ipip"]
    assert inner_mtu(1500, "wireguard") == 1440 and overhead_bytes(None) == 0
    with pytest.raises(EncapError, match="unknown encapsulation 'geneve'"):
        overhead_bytes("geneve")


@pytest.mark.parametrize("conf, message", [
    ({}, "please define a correct Network parameter"),
    ({"Network": "10.244.0.0/16", "Backend": {"Type": "geneve"}}, 'unknown backend type: "geneve"'),
    ({"Network": "10.244.0.0/16", "SubnetLen": 31}, "SubnetLen must be less than /31"),
    ({"Network": "10.244.0.0/30"}, "Network is too small"),
    ({"Network": "10.244.0.0/16", "SubnetMin": "10.245.0.0"}, "SubnetMin is not in the range of the Network"),
    ("{not json", "error decoding network config"),
])
def test_bad_net_conf_is_refused(conf, message):
    with pytest.raises(FlannelError, match=message):
        parse_net_config(conf)


def test_kube_subnet_manager_uses_pod_cidr_and_writes_the_annotations():
    m = KubeSubnetManager(parse_net_config({"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}))
    lease, ann = m.acquire_lease(_nodes()[0], "10.0.0.11", "vxlan", {"VNI": 1, "VtepMAC": "66:00:00:00:00:01"})
    assert lease.subnet == "10.244.1.0/24" and lease.expiration == SUBNET_TTL_SECONDS
    assert ann[BACKEND_TYPE_ANNOTATION] == "vxlan"
    assert json.loads(ann[BACKEND_DATA_ANNOTATION]) == {"VNI": 1, "VtepMAC": "66:00:00:00:00:01"}
    with pytest.raises(FlannelError, match='node "n1" pod cidr not assigned'):
        m.acquire_lease(_nodes(pod_cidrs=False)[0], "10.0.0.11", "vxlan", {})
    outside = {"metadata": {"name": "x"}, "spec": {"podCIDR": "10.99.0.0/24"}}
    with pytest.raises(FlannelError, match="doesn't contain \"10.99.0.0/24\" PodCIDR"):
        m.acquire_lease(outside, "10.0.0.11", "vxlan", {})


def test_etcd_subnet_manager_keys_ttl_and_expiry():
    t = [0.0]
    kv = MemoryEtcd(lambda: t[0])
    m = EtcdSubnetManager(kv, seed=1)
    with pytest.raises(FlannelError, match="flannel config not found in etcd store"):
        m.acquire_lease("10.0.0.11", "host-gw", {})
    kv.put(CONFIG_KEY, '{"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}}')
    a = m.acquire_lease("10.0.0.11", "host-gw", {})
    b = m.acquire_lease("10.0.0.12", "host-gw", {})
    keys = [k for k, _, _ in kv.range("/coreos.com/network/subnets/")]
    assert a.subnet != b.subnet and len(keys) == 2
    assert all(k.endswith(s.replace("/", "-")) for k, s in zip(sorted(keys), sorted([a.subnet, b.subnet])))
    assert json.loads(kv.get(keys[0]))["BackendType"] == "host-gw"
    t[0] = SUBNET_TTL_SECONDS - 1
    m.renew_lease(a)                       # a renews, b does not
    t[0] = SUBNET_TTL_SECONDS + 1
    assert [l.subnet for l in m.leases()] == [a.subnet]


def test_subnet_env_round_trip_and_missing_keys():
    cfg = parse_net_config({"Network": "10.244.0.0/16"})
    text = subnet_env(cfg, "10.244.3.0/24", 1450, False)
    assert parse_subnet_env(text) == {"networks": ["10.244.0.0/16"], "subnet": "10.244.3.0/24", "mtu": 1450,
                                      "ipMasq": False}
    with pytest.raises(FlannelError, match="is missing FLANNEL_MTU, FLANNEL_IPMASQ"):
        parse_subnet_env("FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.3.1/24\n")


def test_vxlan_programs_arp_fdb_and_onlink_routes():
    net = build_network(_nodes(), "vxlan")
    a, b = net.nodes["n1"], net.nodes["n2"]
    dev_b = b.host.root.interfaces["flannel.1"]
    assert (dev_b.vni, dev_b.port, dev_b.mtu, dev_b.addresses) == (1, 8472, 1450, ["10.244.2.0/32"])
    root = a.host.root
    assert "10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink" in root.ip_route()
    assert root.ip_neigh() == [f"10.244.2.0 dev flannel.1 lladdr {dev_b.mac} PERMANENT"]
    assert root.bridge_fdb() == [f"{dev_b.mac} dev flannel.1 dst 10.0.0.12 self permanent"]
    env = a.host.files[SUBNET_FILE].decode()
    assert "FLANNEL_SUBNET=10.244.1.1/24" in env and "FLANNEL_MTU=1450" in env and "FLANNEL_IPMASQ=true" in env
    assert "-A POSTROUTING -m comment --comment \"flanneld masq\" -j FLANNEL-POSTRTG" in a.host.nat["POSTROUTING"]
    assert len(a.host.nat["FLANNEL-POSTRTG"]) == len(masq_rules("10.244.0.0/16", "10.244.1.0/24")) - 1


def test_host_gw_needs_l2_adjacency_and_wireguard_peers():
    net = build_network(_nodes(("10.0.0.11", "10.0.0.12", "10.0.1.13")), "host-gw")
    a = net.nodes["n1"]
    assert "10.244.2.0/24 via 10.0.0.12 dev eth0" in a.host.root.ip_route()
    assert not any(r.startswith("10.244.3.0/24") for r in a.host.root.ip_route())
    assert a.errors == ["Error adding route to 10.244.3.0/24 via 10.0.1.13: network is unreachable"]
    wg = build_network(_nodes(), "wireguard")
    dev = wg.nodes["n1"].host.root.interfaces["flannel-wg"]
    assert dev.mtu == backend_mtu("wireguard") == 1420 and dev.port == 51820
    assert [(p.endpoint, p.allowed_ips) for p in dev.wg_peers] == [("10.0.0.12:51820", ("10.244.2.0/24",))]
    assert "10.244.0.0/16 dev flannel-wg scope link" in wg.nodes["n1"].host.root.ip_route()


def test_a_lease_of_another_backend_is_ignored():
    net = build_network(_nodes()[:1], "vxlan")
    out = handle_subnet_events(net.nodes["n1"], [Lease("10.244.9.0/24", "10.0.0.19", "host-gw")])
    assert out == ["ignoring non-vxlan subnet(10.244.9.0/24): type=host-gw"]


def test_the_cni_plugin_delegates_to_bridge_as_upstream_writes_it():
    net = build_network(_nodes()[:1], "vxlan")
    host = net.nodes["n1"].host
    m = CNIManager("n1", flannel_conflist(), host=host, plugins=flannel_plugins())
    ip = pod_ips(m.setup_pod_network("default", "p", "sb1", "/var/run/netns/p"))[0]
    saved = host.files[f"{DATA_DIR}/sb1"].decode()
    assert saved == ('{"cniVersion":"0.3.1","hairpinMode":true,"ipMasq":false,"ipam":{"ranges":[[{"subnet":'
                     '"10.244.1.0/24"}]],"routes":[{"dst":"10.244.0.0/16"}],"type":"host-local"},'
                     '"isDefaultGateway":true,"isGateway":true,"mtu":1450,"name":"cbr0","type":"bridge"}')
    assert ip == "10.244.1.2" and [t["type"] for t in m.trace] == ["loopback", "flannel", "portmap"]
    assert m.trace[1]["delegated"][0]["type"] == "bridge"
    port = next(i for i in host.root.interfaces.values() if i.master == "cni0")
    assert port.hairpin and host.root.interfaces["cni0"].addresses == ["10.244.1.1/24"]
    m.teardown_pod_network("default", "p", "sb1", "/var/run/netns/p")
    assert f"{DATA_DIR}/sb1" not in host.files and not any(i.master == "cni0" for i in host.root.interfaces.values())


def test_the_cni_plugin_without_subnet_env_and_with_a_bad_delegate():
    m = CNIManager("n1", flannel_conflist(), plugins=flannel_plugins())
    with pytest.raises(Exception, match="failed to load flannel 'subnet.env' file: open /run/flannel/subnet.env: "
                                        "no such file or directory. Check the flannel pod log for this node."):
        m.setup_pod_network("default", "p", "sb1", "/var/run/netns/p")
    env = subnet_env(parse_net_config({"Network": "10.244.0.0/16"}), "10.244.1.0/24", 1450, True)
    with pytest.raises(FlannelError, match="'delegate' dictionary must not have 'ipam' field"):
        delegate_config({"name": "cbr0", "delegate": {"ipam": {}}}, env)
    assert delegate_config({"name": "cbr0"}, env.replace("IPMASQ=true", "IPMASQ=false"))["ipMasq"] is True


def test_the_etcd_subnet_manager_on_a_real_etcd(etcd_required, etcd_member):
    from kubenotes.cni.flannel.subnet import ETCD_PREFIX, GatewayEtcd

    kv = GatewayEtcd(etcd_member.endpoints[0])
    prefix = f"/flannel-test-{id(kv)}{ETCD_PREFIX}"
    kv.put(f"{prefix}/config", '{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}')
    m = EtcdSubnetManager(kv, prefix=prefix)
    a = m.acquire_lease("10.0.0.11", "vxlan", {"VNI": 1, "VtepMAC": "66:00:00:00:00:01"})
    [(key, value, lease_id)] = kv.range(f"{prefix}/subnets/")
    assert key == f"{prefix}/subnets/{a.subnet.replace('/', '-')}" and json.loads(value)["BackendType"] == "vxlan"
    assert SUBNET_TTL_SECONDS - 5 <= kv.time_to_live(lease_id) <= SUBNET_TTL_SECONDS
    assert m.acquire_lease("10.0.0.11", "vxlan", {}).subnet == a.subnet
    assert kv.create(key, "x") is False


def test_backend_summary_reads_the_one_encap_table():
    from kubenotes.cni.flannel.backend import backend_summary

    rows = {r["backend"]: r for r in backend_summary(9001)}
    assert rows["vxlan"]["mtu"] == 9001 - ENCAP_OVERHEAD_BYTES["vxlan"]
    assert rows["wireguard"]["mtu"] == 9001 - ENCAP_OVERHEAD_BYTES["wireguard-ipv6"]
    assert rows["wireguard"]["overheadBytes"] == ENCAP_OVERHEAD_BYTES["wireguard"] and rows["wireguard"]["encrypted"]
    assert not rows["udp"]["inKernel"] and rows["host-gw"]["needsL2Adjacency"]


def test_flanneld_and_the_plugins_nat_table_is_accepted_by_iptables_restore():
    import os
    import shutil
    import subprocess

    iptables_restore = shutil.which("iptables-restore") or shutil.which("/usr/sbin/iptables-restore")
    if iptables_restore is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but iptables-restore is not installed")
        pytest.skip("iptables-restore is not installed")

    net = build_network(_nodes()[:1], "vxlan")
    host = net.nodes["n1"].host
    CNIManager("n1", flannel_conflist(), host=host, plugins=flannel_plugins()).setup_pod_network(
        "default", "p", "sb1", "/var/run/netns/p", port_mappings=[{"hostPort": 8080, "containerPort": 80,
                                                                   "protocol": "tcp", "hostIP": ""}])
    text = host.iptables_save_nat()
    assert "FLANNEL-POSTRTG" in text and "CNI-HOSTPORT-DNAT" in text
    proc = subprocess.run([iptables_restore, "--test"], input=text.encode(), capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
