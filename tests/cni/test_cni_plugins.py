"""The reference plugin models: loopback, bridge, ptp, portmap, bandwidth, on a modelled host.

Ported from containernetworking/plugins@v1.1.1:
``pkg/utils/utils_test.go`` (FormatChainName "must format a short name", "must truncate a
long name", MustFormatChainNameWithPrefix "generates a chain name with a prefix"),
``plugins/meta/portmap/portmap_test.go`` ("generates a correct standard container chain"
with its eight port mappings for IPv4, IPv6 and snat=false, "generates a correct chain with
external mark", "generates the correct mark chains"), ``plugins/meta/bandwidth/
bandwidth_linux_test.go`` (tbf Rate/Limit for rate 8/16/8000 bits and bursts 8/80, "burst
without rate" errors, runtimeConfig overriding the config), ``plugins/main/bridge/
bridge_test.go`` (gateway on the bridge, default route with isDefaultGateway, ipMasq chain,
DEL idempotent) and ``plugins/main/loopback/loopback_test.go`` (lo up, result with
127.0.0.1/8 and ::1/128). The generated NAT table is checked with the real
``iptables-restore --test`` when it is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from kubenotes.cni.netns import Host, Interface
from kubenotes.cni.plugins import (
    MARK_MASQ_CHAIN_NAME,
    SET_MARK_CHAIN_NAME,
    TOP_LEVEL_DNAT_CHAIN_NAME,
    fill_dnat_rules,
    format_chain_name,
    ifb_device_name,
    must_format_hash_with_prefix,
    tbf_parameters,
)
from kubenotes.cni.spec import CNIEnv, CNIError, run_plugin

NS = "/var/run/netns/pod1"
_NO_IPTABLES = "no /usr/sbin/iptables-restore (apt-get install iptables)"


@pytest.fixture
def iptables_restore() -> str:
    """The real iptables-restore: skip without it, fail when ``CI`` is set."""
    path = shutil.which("iptables-restore") or ("/usr/sbin/iptables-restore"
                                                if os.path.exists("/usr/sbin/iptables-restore") else None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {_NO_IPTABLES}")
        pytest.skip(_NO_IPTABLES)
    return path


def _host() -> Host:
    h = Host("node-1")
    h.add_netns(NS)
    return h


def _env(cmd: str, cid: str = "c1", ifname: str = "eth0", netns: str = NS) -> CNIEnv:
    return CNIEnv(cmd, cid, netns, ifname, "", "/opt/cni/bin")


def _bridge_conf(**kw) -> dict:
    return {"cniVersion": "1.0.0", "name": "cbr0", "type": "bridge", "bridge": "cni0", "isGateway": True,
            "ipam": {"type": "host-local", "subnet": "10.244.1.0/24", "routes": [{"dst": "0.0.0.0/0"}]}, **kw}


# ---------------------------------------------------------------- names and hashes


def test_chain_names_match_upstream_vectors():
    assert format_chain_name("test", "1234") == "CNI-2bbe0c48b91a7d1b8a6753a8"
    assert format_chain_name("testalongnamethatdoesnotmakesense", "1234") == "CNI-374f33fe84ab0ed84dcdebe3"
    assert format_chain_name("test", "1234", "PREFIX-") == "CNI-PREFIX-2bbe0c48b91a7d1b8"
    assert format_chain_name("testalongnamethatdoesnotmakesense", "1234", "PREFIX-") == "CNI-PREFIX-374f33fe84ab0ed84"
    with pytest.raises(ValueError):
        must_format_hash_with_prefix(4, "CNI-", "x")
    assert len(ifb_device_name("cbr0", "c1")) == 15 and ifb_device_name("cbr0", "c1").startswith("bwp")


# ---------------------------------------------------------------- portmap (portmap_test.go)

CONTAINER_ID = ("icee6giejonei6sohng6ahngee7laquohquee9shiGo7fohferakah3Feiyoolu2pei7ciPhoh7shaoX6vai3vuf0ah"
                "faeng8yohb9ceu0daez5hashee8ooYai5wa3y")
PORT_MAPPINGS = [
    {"hostPort": 8080, "containerPort": 80, "protocol": "tcp"},
    {"hostPort": 8081, "containerPort": 80, "protocol": "tcp"},
    {"hostPort": 8080, "containerPort": 81, "protocol": "udp"},
    {"hostPort": 8082, "containerPort": 82, "protocol": "udp"},
    {"hostPort": 8083, "containerPort": 83, "protocol": "tcp", "hostIP": "192.168.0.2"},
    {"hostPort": 8084, "containerPort": 84, "protocol": "tcp", "hostIP": "0.0.0.0"},
    {"hostPort": 8085, "containerPort": 85, "protocol": "tcp", "hostIP": "2001:db8:a::1"},
    {"hostPort": 8086, "containerPort": 86, "protocol": "tcp", "hostIP": "::"},
]


def test_portmap_dnat_chain_names():
    assert format_chain_name("testNetName", CONTAINER_ID, "DN-") == "CNI-DN-bfd599665540dd91d5d28"
    assert format_chain_name("test", CONTAINER_ID, "DN-") == "CNI-DN-67e92b96e692a494b6b85"


def test_portmap_standard_container_chain_ipv4_ipv6_and_no_snat():
    conf = {"portMappings": PORT_MAPPINGS, "snat": True, "conditionsV4": ["a", "b"], "conditionsV6": ["c", "d"]}
    comment = f'"dnat name: \\"test\\" id: \\"{CONTAINER_ID}\\""'
    entry, rules = fill_dnat_rules("test", CONTAINER_ID, conf, "10.0.0.2/24")
    assert entry == [
        f"-m comment --comment {comment} -m multiport -p tcp --destination-ports 8080,8081,8083,8084,8085,8086 a b",
        f"-m comment --comment {comment} -m multiport -p udp --destination-ports 8080,8082 a b",
    ]
    mark = "-j CNI-HOSTPORT-SETMARK"
    expected = []
    for proto, port, cport, dst in [("tcp", 8080, 80, ""), ("tcp", 8081, 80, ""), ("udp", 8080, 81, ""),
                                    ("udp", 8082, 82, ""), ("tcp", 8083, 83, " -d 192.168.0.2"),
                                    ("tcp", 8084, 84, "")]:
        base = f"-p {proto} --dport {port}{dst}"
        expected += [f"{base} -s 10.0.0.2/24 {mark}", f"{base} -s 127.0.0.1 {mark}",
                     f"{base} -j DNAT --to-destination 10.0.0.2:{cport}"]
    assert rules == expected
    _, rules6 = fill_dnat_rules("test", CONTAINER_ID, conf, "2001:db8::2/64")
    expected6 = []
    for proto, port, cport, dst in [("tcp", 8080, 80, ""), ("tcp", 8081, 80, ""), ("udp", 8080, 81, ""),
                                    ("udp", 8082, 82, ""), ("tcp", 8085, 85, " -d 2001:db8:a::1"),
                                    ("tcp", 8086, 86, "")]:
        base = f"-p {proto} --dport {port}{dst}"
        expected6 += [f"{base} -s 2001:db8::2/64 {mark}", f"{base} -j DNAT --to-destination [2001:db8::2]:{cport}"]
    assert rules6 == expected6
    _, no_snat = fill_dnat_rules("test", CONTAINER_ID, {**conf, "snat": False}, "10.0.0.2/24")
    assert no_snat == [
        "-p tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80",
        "-p tcp --dport 8081 -j DNAT --to-destination 10.0.0.2:80",
        "-p udp --dport 8080 -j DNAT --to-destination 10.0.0.2:81",
        "-p udp --dport 8082 -j DNAT --to-destination 10.0.0.2:82",
        "-p tcp --dport 8083 -d 192.168.0.2 -j DNAT --to-destination 10.0.0.2:83",
        "-p tcp --dport 8084 -j DNAT --to-destination 10.0.0.2:84",
    ]


def test_portmap_external_mark_chain():
    _, rules = fill_dnat_rules("test", CONTAINER_ID, {"portMappings": PORT_MAPPINGS[:1],
                                                      "externalSetMarkChain": "PLZ-SET-MARK"}, "10.0.0.2/24")
    assert rules == ["-p tcp --dport 8080 -s 10.0.0.2/24 -j PLZ-SET-MARK",
                     "-p tcp --dport 8080 -s 127.0.0.1 -j PLZ-SET-MARK",
                     "-p tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80"]


def _prev(address="10.244.1.5/24"):
    return {"cniVersion": "1.0.0", "interfaces": [{"name": "cni0"}, {"name": "veth1"},
                                                   {"name": "eth0", "sandbox": NS}],
            "ips": [{"interface": 2, "address": address, "gateway": "10.244.1.1"}], "dns": {}}


def test_portmap_add_mark_chains_and_del():
    h = _host()
    conf = {"cniVersion": "1.0.0", "name": "cbr0", "type": "portmap", "markMasqBit": 5, "prevResult": _prev(),
            "runtimeConfig": {"portMappings": PORT_MAPPINGS[:1]}}
    out = run_plugin("portmap", _env("ADD"), conf, host=h)
    assert out.result == _prev()  # passes prevResult through
    assert h.nat[SET_MARK_CHAIN_NAME] == [f'-A {SET_MARK_CHAIN_NAME} -m comment --comment '
                                          f'"CNI portfwd masquerade mark" -j MARK --set-xmark 0x20/0x20']
    assert h.nat[MARK_MASQ_CHAIN_NAME] == [f"-A {MARK_MASQ_CHAIN_NAME} -m mark --mark 0x20/0x20 -j MASQUERADE"]
    assert h.nat["POSTROUTING"][0].endswith(f"-j {MARK_MASQ_CHAIN_NAME}")
    assert h.nat["PREROUTING"] == [f"-A PREROUTING -m addrtype --dst-type LOCAL -j {TOP_LEVEL_DNAT_CHAIN_NAME}"]
    dn = format_chain_name("cbr0", "c1", "DN-")
    assert h.nat[dn][-1] == f"-A {dn} -p tcp --dport 8080 -j DNAT --to-destination 10.244.1.5:80"
    assert run_plugin("portmap", _env("CHECK"), conf, host=h).exit_code == 0
    assert run_plugin("portmap", _env("DEL"), conf, host=h).exit_code == 0
    assert dn not in h.nat and h.nat[TOP_LEVEL_DNAT_CHAIN_NAME] == []
    assert run_plugin("portmap", _env("CHECK"), conf, host=h).error.msg.startswith("could not find rule")
    assert run_plugin("portmap", _env("DEL"), conf, host=h).exit_code == 0  # idempotent


@pytest.mark.parametrize("conf, msg", [
    ({"runtimeConfig": {"portMappings": PORT_MAPPINGS[:1]}}, "must be called as chained plugin"),
    ({"markMasqBit": 40}, "MasqMarkBit must be between 0 and 31"),
    ({"markMasqBit": 1, "externalSetMarkChain": "X"}, "Cannot specify externalSetMarkChain and markMasqBit"),
    ({"prevResult": _prev(), "runtimeConfig": {"portMappings": [{"hostPort": 0, "containerPort": 80}]}},
     "Invalid host port number: 0"),
])
def test_portmap_config_errors(conf, msg):
    out = run_plugin("portmap", _env("ADD"), {"cniVersion": "1.0.0", "name": "cbr0", "type": "portmap", **conf},
                     host=_host())
    assert (out.error.code, out.error.msg) == (999, msg)


# ---------------------------------------------------------------- bandwidth (bandwidth_linux_test.go)


@pytest.mark.parametrize("rate, burst, rate_bytes, limit_bytes", [(8, 8, 1, 1), (16, 8, 2, 1), (8000, 80, 1000, 35)])
def test_tbf_rate_and_limit(rate, burst, rate_bytes, limit_bytes):
    tbf = tbf_parameters(rate, burst)
    assert (tbf["rate_bytes"], tbf["limit_bytes"]) == (rate_bytes, limit_bytes)


def _bw_setup():
    h = _host()
    out = run_plugin("bridge", _env("ADD"), _bridge_conf(), host=h)
    return h, out.result


def test_bandwidth_ingress_on_host_veth_egress_on_ifb_and_runtime_config_wins():
    h, prev = _bw_setup()
    conf = {"cniVersion": "1.0.0", "name": "cbr0", "type": "bandwidth", "ingressRate": 123, "ingressBurst": 123,
            "prevResult": prev,
            "runtimeConfig": {"bandwidth": {"ingressRate": 8, "ingressBurst": 8, "egressRate": 16, "egressBurst": 9}}}
    out = run_plugin("bandwidth", _env("ADD"), conf, host=h)
    veth = prev["interfaces"][1]["name"]
    ifb = ifb_device_name("cbr0", "c1")
    assert h.qdiscs[veth]["rate_bytes"] == 1 and h.qdiscs[ifb]["rate_bytes"] == 2
    assert out.result["interfaces"][-1]["name"] == ifb and ifb in h.root.interfaces
    assert run_plugin("bandwidth", _env("CHECK"), conf, host=h).exit_code == 0
    run_plugin("bandwidth", _env("DEL"), conf, host=h)
    assert ifb not in h.root.interfaces and veth not in h.qdiscs


@pytest.mark.parametrize("bw, msg", [
    ({"ingressRate": 0, "ingressBurst": 123, "egressRate": 123, "egressBurst": 123},
     "if burst is set, rate must also be set"),
    ({"egressRate": 123}, "if rate is set, burst must also be set"),
    ({"egressRate": 1, "egressBurst": 8 * 2 ** 32}, "burst cannot be more than 4GB"),
])
def test_bandwidth_validation(bw, msg):
    h, prev = _bw_setup()
    out = run_plugin("bandwidth", _env("ADD"), {"cniVersion": "1.0.0", "name": "cbr0", "type": "bandwidth",
                                                 "prevResult": prev, "runtimeConfig": {"bandwidth": bw}}, host=h)
    assert out.error.msg == msg


def test_bandwidth_without_limits_passes_prev_result_through():
    h, prev = _bw_setup()
    out = run_plugin("bandwidth", _env("ADD"), {"cniVersion": "1.0.0", "name": "cbr0", "type": "bandwidth",
                                                 "prevResult": prev}, host=h)
    assert out.result == prev and h.qdiscs == {}


# ---------------------------------------------------------------- loopback, bridge, ptp


def test_loopback_up_and_result():
    h = _host()
    out = run_plugin("loopback", _env("ADD", ifname="lo"), {"cniVersion": "1.0.0", "name": "lo",
                                                            "type": "loopback"}, host=h)
    assert out.result == {"cniVersion": "1.0.0",
                          "interfaces": [{"name": "lo", "mac": "00:00:00:00:00:00", "sandbox": NS}],
                          "ips": [{"interface": 0, "address": "127.0.0.1/8"}, {"interface": 0, "address": "::1/128"}],
                          "dns": {}}
    assert h.netns(NS).interfaces["lo"].up
    run_plugin("loopback", _env("DEL", ifname="lo"), {"cniVersion": "1.0.0", "name": "lo", "type": "loopback"},
               host=h)
    assert not h.netns(NS).interfaces["lo"].up


def test_bridge_gateway_veth_routes_and_result():
    h = _host()
    out = run_plugin("bridge", _env("ADD"), _bridge_conf(isDefaultGateway=True, hairpinMode=True, mtu=1450), host=h)
    r = out.result
    assert [i["name"] for i in r["interfaces"]][0] == "cni0" and r["interfaces"][2] == {
        "name": "eth0", "mac": h.netns(NS).interfaces["eth0"].mac, "sandbox": NS}
    assert r["ips"] == [{"interface": 2, "address": "10.244.1.2/24", "gateway": "10.244.1.1"}]
    # calcGateways only counts a default route *with* a gw, so the gateway's default route is appended
    assert r["routes"] == [{"dst": "0.0.0.0/0"}, {"dst": "0.0.0.0/0", "gw": "10.244.1.1"}]
    veth = h.root.interfaces[r["interfaces"][1]["name"]]
    assert (veth.master, veth.hairpin, veth.mtu, veth.peer) == ("cni0", True, 1450, (NS, "eth0"))
    assert h.root.interfaces["cni0"].addresses == ["10.244.1.1/24"]
    assert h.root.sysctls["net.ipv4.ip_forward"] == "1"
    assert h.netns(NS).ip_route() == ["10.244.1.0/24 dev eth0 proto kernel scope link src 10.244.1.2",
                                      "default via 10.244.1.1 dev eth0"]
    assert run_plugin("bridge", _env("CHECK"), {**_bridge_conf(), "prevResult": r}, host=h).exit_code == 0
    # a second pod on the same bridge gets the next address and its own veth
    h.add_netns("/var/run/netns/pod2")
    r2 = run_plugin("bridge", _env("ADD", cid="c2", netns="/var/run/netns/pod2"), _bridge_conf(), host=h).result
    assert r2["ips"][0]["address"] == "10.244.1.3/24" and r2["interfaces"][1]["name"] != veth.name


def test_bridge_default_gateway_route_without_ipam_routes_and_ip_masq():
    h = _host()
    conf = _bridge_conf(isDefaultGateway=True, ipMasq=True,
                        ipam={"type": "host-local", "subnet": "10.244.1.0/24"})
    r = run_plugin("bridge", _env("ADD"), conf, host=h).result
    assert r["routes"] == [{"dst": "0.0.0.0/0", "gw": "10.244.1.1"}]
    chain = format_chain_name("cbr0", "c1")
    assert h.nat[chain] == [
        f'-A {chain} -d 10.244.1.2/24 -j ACCEPT -m comment --comment "name: \\"cbr0\\" id: \\"c1\\""',
        f'-A {chain} ! -d 224.0.0.0/4 -j MASQUERADE -m comment --comment "name: \\"cbr0\\" id: \\"c1\\""']
    assert h.nat["POSTROUTING"][-1].startswith(f"-A POSTROUTING -s 10.244.1.2 -j {chain}")
    assert run_plugin("bridge", _env("DEL"), conf, host=h).exit_code == 0
    assert chain not in h.nat and h.nat["POSTROUTING"] == []
    assert "eth0" not in h.netns(NS).interfaces and len(h.root.interfaces) == 3  # lo, eth0, cni0
    assert run_plugin("bridge", _env("DEL"), conf, host=h).exit_code == 0  # idempotent


def test_bridge_errors_release_the_address():
    h = _host()
    h.root.interfaces["cni0"] = Interface("cni0", "bridge", addresses=["10.9.0.1/24"])
    out = run_plugin("bridge", _env("ADD"), _bridge_conf(), host=h)
    assert out.error.msg == 'failed to set bridge addr: "cni0" already has an IP address different from 10.244.1.1/24'
    assert not [f for f in h.files if f.endswith("10.244.1.2")]
    assert run_plugin("bridge", _env("ADD"), _bridge_conf(hairpinMode=True, promiscMode=True), host=h).error.msg == \
        "cannot set hairpin mode and promiscuous mode at the same time."
    assert run_plugin("bridge", _env("ADD", netns="/var/run/netns/missing"), _bridge_conf(),
                      host=h).error.msg.startswith('failed to open netns "/var/run/netns/missing"')


def test_ptp_host_routes_and_gateway():
    h = _host()
    conf = {"cniVersion": "1.0.0", "name": "ptpnet", "type": "ptp", "ipMasq": True,
            "ipam": {"type": "host-local", "subnet": "10.1.1.0/24", "routes": [{"dst": "0.0.0.0/0"}]}}
    r = run_plugin("ptp", _env("ADD"), conf, host=h).result
    assert r["ips"] == [{"interface": 1, "address": "10.1.1.2/24", "gateway": "10.1.1.1"}]
    veth = r["interfaces"][0]["name"]
    assert h.root.interfaces[veth].addresses == ["10.1.1.1/32"]
    assert f"10.1.1.2/32 dev {veth} scope link" in h.root.ip_route()
    assert h.netns(NS).ip_route() == ["10.1.1.1/32 dev eth0 scope link src 10.1.1.2",
                                      "10.1.1.0/24 via 10.1.1.1 dev eth0 src 10.1.1.2",
                                      "default via 10.1.1.1 dev eth0"]
    run_plugin("ptp", _env("DEL"), conf, host=h)
    assert veth not in h.root.interfaces and format_chain_name("ptpnet", "c1") not in h.nat


def test_generated_nat_table_is_accepted_by_iptables_restore(iptables_restore):
    h = _host()
    r = run_plugin("bridge", _env("ADD"), _bridge_conf(ipMasq=True), host=h).result
    conf = {"cniVersion": "1.0.0", "name": "cbr0", "type": "portmap", "prevResult": r,
            "runtimeConfig": {"portMappings": PORT_MAPPINGS}}
    assert run_plugin("portmap", _env("ADD"), conf, host=h).exit_code == 0
    proc = subprocess.run([iptables_restore, "--test"], input=h.iptables_save_nat().encode(),
                          capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr.decode()


def test_errors_are_cni_errors():
    assert isinstance(run_plugin("ptp", _env("ADD"), {"cniVersion": "1.0.0", "name": "n", "type": "ptp"},
                                 host=_host()).error, CNIError)
