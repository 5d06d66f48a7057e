"""kube-proxy's IPVS mode configured as upstream (issue #30): what each ``ipvs`` setting does.

Checked against kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go (``NewProxier``: sysctls,
``strictARP``, ``ConfigureTimeouts``, the ``rr`` default scheduler; ``syncProxyRules``: node IPs
from ``nodePortAddresses`` without loopback, ``mh``'s source-hash flag; ``writeIptablesRules``: the
cluster-IP masquerade rule by ``masqueradeAll`` and the local detector; ``cleanLegacyService`` and
``excludeCIDRs``) and pkg/proxy/apis/config/validation/validation.go (``validateIPVSTimeout``,
``validateIPVSExcludeCIDRs``, only in ipvs mode).
"""

from __future__ import annotations

import pytest

from kubenotes.proxy import config as kpconfig
from kubenotes.proxy.endpoints import EndpointInfo, ProxyState, ServicePortInfo, ServicePortName
from kubenotes.proxy.ipvs import (VirtualServer, clean_legacy_services, cluster_ip_masquerade_rule,
                                  ipvs_virtual_servers)
from kubenotes.proxy.util import LocalTrafficDetector
from kubenotes.sim.proxy_cli import run_kube_proxy

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.244.1.0/24, podCIDRs: [10.244.1.0/24]}
status:
  capacity: {cpu: "8", memory: 16Gi}
  addresses: [{type: InternalIP, address: 192.168.0.2}, {type: InternalIP, address: 192.168.1.2}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  type: NodePort
  clusterIP: 10.96.0.20
  ports: [{name: http, port: 80, targetPort: 8080, nodePort: 30080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.244.1.5], nodeName: n1}]
ports: [{name: http, port: 8080, protocol: TCP}]
"""
HEADER = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"


@pytest.fixture
def cluster(tmp_path):
    p = tmp_path / "cluster.yaml"
    p.write_text(CLUSTER)
    return str(p)


@pytest.fixture
def config(tmp_path):
    def write(body: str, name: str = "kp.yaml") -> str:
        p = tmp_path / name
        p.write_text(HEADER + body)
        return str(p)
    return write


def _services(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("TCP ")]


def test_scheduler_from_the_config_file_reaches_ipvsadm(cluster, config):
    default = _services(run_kube_proxy([cluster], "n1", config_file=config("")))
    assert default and all(line.endswith(" rr") for line in default)
    lc = _services(run_kube_proxy([cluster], "n1", config_file=config("ipvs: {scheduler: lc}\n", "lc.yaml")))
    assert [line.replace(" lc", " rr") for line in lc] == default


def test_node_port_addresses_pick_the_node_port_virtual_servers(cluster, config):
    every = _services(run_kube_proxy([cluster], "n1", config_file=config("")))
    assert "TCP  192.168.0.2:30080 rr" in every and "TCP  192.168.1.2:30080 rr" in every
    one = _services(run_kube_proxy([cluster], "n1", config_file=config("nodePortAddresses: [192.168.1.0/24]\n",
                                                                       "c.yaml")))
    assert "TCP  192.168.1.2:30080 rr" in one and not any("192.168.0.2" in line for line in one)
    primary = _services(run_kube_proxy([cluster], "n1", config_file=config("nodePortAddresses: [primary]\n",
                                                                           "p.yaml")))
    assert [line for line in primary if ":30080" in line] == ["TCP  192.168.0.2:30080 rr"]
    # loopback is never a node-port virtual server, even inside a CIDR
    lo = _services(run_kube_proxy([cluster], "n1", config_file=config("nodePortAddresses: [127.0.0.0/8]\n",
                                                                      "lo.yaml")))
    assert not any(":30080" in line for line in lo)


def _state(*, affinity=None):
    spn = ServicePortName("ns1", "svc1", "p80")
    info = ServicePortInfo(spn, "TCP", 80, ("10.20.30.41",), 3001, 80, affinity, (), (), (), False, False, 0,
                           "NodePort")
    return ProxyState("n1", ("192.168.0.2",), None, None, {spn: info},
                      {spn: (EndpointInfo("10.180.0.1", 80, True, True, False, True),)})


def test_empty_scheduler_is_rr_and_mh_sets_the_source_hash_flag():
    assert {v.scheduler for v in ipvs_virtual_servers(_state(), scheduler="")} == {"rr"}
    mh = ipvs_virtual_servers(_state(), scheduler="mh")
    assert [v.source_hash for v in mh] == [True, True]
    assert not any(v.source_hash for v in ipvs_virtual_servers(_state(), scheduler="sh"))


def test_ipvs_sysctls_and_strict_arp():
    base = kpconfig.conntrack_sysctls(kpconfig.set_defaults({"mode": "ipvs"}), num_cpus=2)
    assert base["net.ipv4.vs.conntrack"] == 1 and base["net.ipv4.vs.expire_nodest_conn"] == 1
    assert base["net.ipv4.vs.expire_quiescent_template"] == 1 and base["net.ipv4.ip_forward"] == 1
    assert "net.ipv4.conf.all.route_localnet" not in base  # the iptables proxier's, not IPVS's
    assert "net.ipv4.conf.all.arp_ignore" not in base
    strict = kpconfig.conntrack_sysctls(kpconfig.set_defaults({"mode": "ipvs", "ipvs": {"strictARP": True}}), 2)
    assert (strict["net.ipv4.conf.all.arp_ignore"], strict["net.ipv4.conf.all.arp_announce"]) == (1, 2)
    ipt = kpconfig.conntrack_sysctls(kpconfig.set_defaults({"ipvs": {"strictARP": True}}), 2)
    assert not any(k.startswith("net.ipv4.vs.") or "arp_" in k for k in ipt)


def test_sysctls_command_in_ipvs_mode(cluster, config):
    out = run_kube_proxy([cluster], "n1", config_file=config("ipvs: {strictARP: true}\n"), sysctls=True)
    assert "net.ipv4.conf.all.arp_announce = 2\n" in out and "net.ipv4.vs.conntrack = 1\n" in out


def test_ipvs_timeouts_only_when_one_is_set():
    assert kpconfig.ipvs_timeouts(kpconfig.set_defaults({"mode": "ipvs"})) is None
    cfg = kpconfig.set_defaults({"mode": "ipvs", "ipvs": {"tcpTimeout": "1h", "tcpFinTimeout": "30s"}})
    assert kpconfig.ipvs_timeouts(cfg) == (3600, 30, 0)


def test_ipvs_section_is_validated_in_ipvs_mode_only():
    body = {"ipvs": {"excludeCIDRs": ["10.0.0.0/8", "nope"], "tcpTimeout": "-5s"}}
    errs = kpconfig.validate(kpconfig.platform_apply_defaults(kpconfig.set_defaults({"mode": "ipvs", **body})))
    assert errs == [
        "KubeProxyConfiguration.KubeProxyIPVSConfiguration.TCPTimeout: Invalid value: -5s: "
        "must be greater than or equal to 0",
        'KubeProxyConfiguration.KubeProxyIPVSConfiguration.ExcludeCidrs[1]: Invalid value: "nope": '
        "must be a valid CIDR"]
    assert kpconfig.validate(kpconfig.platform_apply_defaults(kpconfig.set_defaults(body))) == []


def test_a_bad_exclude_cidr_is_one_line(cluster, config):
    with pytest.raises(kpconfig.KubeProxyConfigError, match=r"ExcludeCidrs\[0\]"):
        run_kube_proxy([cluster], "n1", config_file=config("ipvs: {excludeCIDRs: [300.0.0.0/8]}\n"))


def test_settings_carry_the_ipvs_section_of_the_proxiers_family():
    cfg = kpconfig.platform_apply_defaults(kpconfig.set_defaults(
        {"mode": "ipvs", "ipvs": {"scheduler": "wrr", "strictARP": True,
                                  "excludeCIDRs": ["10.0.0.0/24", "fd00::/64"]}}))
    v4, v6 = kpconfig.proxier_settings(cfg, version=4), kpconfig.proxier_settings(cfg, version=6)
    assert (v4.ipvs_scheduler, v4.ipvs_strict_arp, v4.ipvs_exclude_cidrs) == ("wrr", True, ("10.0.0.0/24",))
    assert v6.ipvs_exclude_cidrs == ("fd00::/64",)
    # masqueradeAll in ipvs mode is iptables.masqueradeAll (v1alpha1 conversion)
    on = kpconfig.platform_apply_defaults(kpconfig.set_defaults({"mode": "ipvs", "iptables": {"masqueradeAll": True}}))
    assert kpconfig.proxier_settings(on).masquerade_all


def test_clean_legacy_services_spares_excluded_cidrs_and_other_families():
    active = ipvs_virtual_servers(_state())
    lb = VirtualServer("10.0.0.5", 80, "TCP")
    stale = VirtualServer("10.96.0.99", 80, "TCP")
    v6 = VirtualServer("fd00::5", 80, "TCP")
    current = active + [lb, stale, v6]
    assert clean_legacy_services(current, active, exclude_cidrs=["10.0.0.0/24"]) == [stale]
    assert clean_legacy_services(current, active) == [lb, stale]
    assert clean_legacy_services(current, active, version=6) == [v6]


@pytest.mark.parametrize("masquerade_all, detector, tail", [
    (True, LocalTrafficDetector.by_cidr("10.244.0.0/16"), "dst,dst -j KUBE-MARK-MASQ"),
    (False, LocalTrafficDetector.by_cidr("10.244.0.0/16"), "dst,dst ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ"),
    (False, LocalTrafficDetector.by_interface_name_prefix("veth"), "dst,dst ! -i veth+ -j KUBE-MARK-MASQ"),
    (False, LocalTrafficDetector.no_op(), "src,dst -j KUBE-MARK-MASQ"),
    (False, None, "src,dst -j KUBE-MARK-MASQ"),
])
def test_cluster_ip_masquerade_rule_by_masquerade_all_and_detector(masquerade_all, detector, tail):
    rule = cluster_ip_masquerade_rule(_state(), masquerade_all=masquerade_all, local_detector=detector)
    assert rule == ('-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade '
                    f'purpose" -m set --match-set KUBE-CLUSTER-IP {tail}')


def test_no_cluster_ip_no_masquerade_rule():
    assert cluster_ip_masquerade_rule(ProxyState("n1", ("192.168.0.2",), None, None, {}, {})) is None


def test_ipvs_flags_without_a_config_file(cluster, tmp_path, capsys):
    import kubenotes.cli

    assert kubenotes.cli.main(["kube-proxy", cluster, "--node", "n1", "--mode", "ipvs", "--ipvs-scheduler", "sh",
                               "--nodeport-addresses", "192.168.1.0/24"]) == 0
    out = _services(capsys.readouterr().out)
    assert out and all(line.endswith(" sh") for line in out) and not any("192.168.0.2" in line for line in out)
    assert kubenotes.cli.main(["kube-proxy", cluster, "--node", "n1", "--mode", "ipvs", "--ipvs-strict-arp", "true",
                               "--sysctls"]) == 0
    assert "net.ipv4.conf.all.arp_ignore = 1" in capsys.readouterr().out
    assert kubenotes.cli.main(["kube-proxy", cluster, "--node", "n1", "--mode", "ipvs",
                               "--ipvs-exclude-cidrs", "10.0.0.0/33"]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and "KubeProxyIPVSConfiguration.ExcludeCidrs[0]" in cap.err


def test_ipvs_flags_are_ignored_with_a_config_file(cluster, config, capsys):
    import kubenotes.cli

    assert kubenotes.cli.main(["kube-proxy", cluster, "--node", "n1", "--config", config(""),
                               "--ipvs-scheduler", "sh"]) == 0
    cap = capsys.readouterr()
    assert all(line.endswith(" rr") for line in _services(cap.out))
    assert "--ipvs-scheduler ignored: a config file is specified by --config" in cap.err


def test_ipvs_timeout_flags_reach_the_configuration():
    cfg = kpconfig.set_defaults(kpconfig.from_flags(mode="ipvs", ipvs_tcp_timeout="10m", ipvs_udp_timeout="1m"))
    assert kpconfig.ipvs_timeouts(cfg) == (600, 0, 60)
