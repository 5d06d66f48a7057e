"""Tests of kube-proxy's configuration: ``kubenotes kube-proxy --config FILE`` and the flags (issue #30).

* decoding as v1.34's ``loadConfig``: an unknown field is logged (one stderr line naming the
  file and the field) and the rest is used, as the lenient v1alpha1 decoding does; a field of
  the wrong type or a wrong kind is one error line and exit 2, with nothing on stdout;
* defaults (v1alpha1 ``defaults.go`` and Linux ``platformApplyDefaults``) and upstream's
  validation messages (``validation.go``);
* what each setting changes in the rules: ``mode``, ``clusterCIDR`` and the other
  ``detectLocalMode`` detectors, ``nodePortAddresses`` (nftables' ``primary`` default),
  ``iptables.localhostNodePorts``, ``masqueradeAll`` per mode, the ServiceCIDRs, and the
  conntrack sysctls; every rendered ruleset goes through the real ``nft -c`` or
  ``iptables-restore --test`` (required when CI is set).
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import kubenotes.cli
from kubenotes.proxy import config as kpconfig
from kubenotes.proxy.util import LocalTrafficDetector, node_port_ips
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

HEADER = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"


def _binary(name: str) -> str | None:
    return shutil.which(name) or (f"/usr/sbin/{name}" if os.path.exists(f"/usr/sbin/{name}") else None)


def _required(name: str) -> str | None:
    path = _binary(name)
    if path is None and os.environ.get("CI"):
        pytest.fail(f"CI is set but {name} is not installed")
    return path


def check_nft(text: str, tmp_path) -> None:
    nft = _required("nft")
    if nft is None:
        return
    f = tmp_path / "rules.nft"
    f.write_text(text)
    r = subprocess.run([nft, "-c", "-f", str(f)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def check_iptables(text: str) -> None:
    binary = _required("iptables-restore")
    if binary is None:
        return
    cmd = [binary, "--test"]
    if os.geteuid() != 0 and shutil.which("unshare"):
        cmd = ["unshare", "-rn", *cmd]
    r = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


@pytest.fixture
def cluster(tmp_path):
    p = tmp_path / "cluster.yaml"
    p.write_text(CLUSTER)
    return str(p)


@pytest.fixture
def config(tmp_path):
    def write(body: str, name: str = "kube-proxy.yaml") -> str:
        p = tmp_path / name
        p.write_text(HEADER + body)
        return str(p)
    return write


def cli(argv):
    return kubenotes.cli.main(argv)


# ---------------------------------------------------------------------------
# decoding, defaults, validation


def test_config_file_nftables_mode_with_primary_node_ports(cluster, config, capsys, tmp_path) -> None:
    path = config("mode: nftables\nclusterCIDR: 10.244.0.0/16\n")
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", path]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("table ip kube-proxy {")
    # nftables' default nodePortAddresses is "primary": only the first node IP accepts NodePorts
    assert "set nodeport-ips {" in out and "elements = { 192.168.0.2 }" in out and "192.168.1.2" not in out
    assert "ip daddr 10.96.0.20 ip saddr != 10.244.0.0/16 jump mark-for-masquerade" in out
    assert "chain filter-prerouting-pre-dnat {" in out and "chain filter-output-pre-dnat {" in out
    check_nft(out, tmp_path)


def test_unknown_field_is_logged_and_the_rest_used(cluster, config, capsys) -> None:
    path = config("mode: nftables\nudpIdleTimeout: 250ms\niptables: {masqueradeAll: true, bogus: 1}\n")
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", path]) == 0
    out, err = capsys.readouterr()
    assert err == (f"{path}: Using lenient decoding as strict decoding failed: strict decoding error: "
                   'unknown field "udpIdleTimeout", unknown field "iptables.bogus"\n')
    assert out.startswith("table ip kube-proxy {")


@pytest.mark.parametrize("body,detail", [
    ("conntrack: {min: lots}\n", "failed to decode: conntrack.min: expected int32, got string 'lots'"),
    ("iptables: {localhostNodePorts: maybe}\n",
     "failed to decode: iptables.localhostNodePorts: expected bool, got string 'maybe'"),
    ("conntrack: {tcpEstablishedTimeout: 1 day}\n",
     'failed to decode: conntrack.tcpEstablishedTimeout: time: unknown unit " day" in duration "1 day"'),
    ("nodePortAddresses: 10.0.0.0/8\n", "failed to decode: nodePortAddresses: expected array of strings, got string"),
])
def test_wrong_types_are_one_line_exit_2(cluster, config, capsys, body, detail) -> None:
    path = config(body)
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", path]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"{path}: {detail}\n"


def test_wrong_kind_and_bad_yaml(cluster, tmp_path, capsys) -> None:
    wrong = tmp_path / "kubelet.yaml"
    wrong.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n")
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f'{wrong}: failed to decode: no kind "KubeletConfiguration" is registered for version '
                          '"kubelet.config.k8s.io/v1beta1"') and err.count("\n") == 1
    bad = tmp_path / "bad.yaml"
    bad.write_text(HEADER + "mode: [\n")
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"{bad}: failed to decode: yaml: line") and err.count("\n") == 1
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", str(tmp_path / "nope.yaml")]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'nope.yaml'}: no such file or directory\n"


@pytest.mark.parametrize("body,message", [
    ("mode: userspace\n", 'KubeProxyConfiguration.Mode.ProxyMode: Invalid value: "userspace": must be iptables, '
                          "ipvs, nftables or blank (blank means the best-available proxy [currently iptables])"),
    ("detectLocalMode: PodCIDR\n",
     'KubeProxyConfiguration.DetectLocalMode: Unsupported value: "PodCIDR": supported values: "ClusterCIDR", '
     '"NodeCIDR", "BridgeInterface", "InterfaceNamePrefix", ""'),
    ("detectLocalMode: BridgeInterface\n",
     'KubeProxyConfiguration.DetectLocalConfiguration.InterfaceName: Invalid value: "": must not be empty'),
    ("nodePortAddresses: [10.0.0.0/8, primary]\n",
     "KubeProxyConfiguration.NodePortAddresses[1]: Invalid value: \"primary\": can't use both 'primary' and CIDRs"),
    ("nodePortAddresses: [1.2.3]\n",
     'KubeProxyConfiguration.NodePortAddresses[0]: Invalid value: "1.2.3": must be a valid CIDR'),
    ("clusterCIDR: 10.0.0.0/16,10.1.0.0/16\n",
     'KubeProxyConfiguration.DetectLocalConfiguration.ClusterCIDRs: Invalid value: []string{"10.0.0.0/16", '
     '"10.1.0.0/16"}: must be a either a single CIDR or dual-stack pair of CIDRs (e.g. [10.100.0.0/16, '
     'fde4:8dba:82e1::/48]'),
    ("conntrack: {maxPerCore: -1}\n", "KubeProxyConfiguration.KubeProxyLinuxConfiguration."
                                      "KubeProxyConntrackConfiguration.MaxPerCore: Invalid value: -1: "
                                      "must be greater than or equal to 0"),
    ("iptables: {masqueradeBit: 32}\n", "KubeProxyConfiguration.KubeProxyIPTablesConfiguration.MasqueradeBit: "
                                        "Invalid value: 32: must be within the range [0, 31]"),
])
def test_invalid_values_use_upstreams_messages(cluster, config, capsys, body, message) -> None:
    path = config(body)
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", path]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"{path}: {message}\n"


def test_several_errors_are_upstreams_aggregate_on_one_line(cluster, config, capsys) -> None:
    path = config("mode: userspace\noomScoreAdj: 5000\n")
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{path}: [KubeProxyConfiguration.KubeProxyLinuxConfiguration."
                                                   "OOMScoreAdj: Invalid value: 5000")


def test_defaults() -> None:
    d = kpconfig.platform_apply_defaults(kpconfig.set_defaults({}))
    assert d["mode"] == "iptables" and d["detectLocalMode"] == "ClusterCIDR" and d["nodePortAddresses"] == []
    assert d["iptables"] == {"syncPeriod": "30s", "minSyncPeriod": "1s", "masqueradeBit": 14,
                             "masqueradeAll": False, "localhostNodePorts": True}
    assert d["conntrack"]["maxPerCore"] == 32768 and d["conntrack"]["min"] == 131072
    assert d["oomScoreAdj"] == -999 and d["configSyncPeriod"] == "15m0s"
    assert d["bindAddress"] == "0.0.0.0" and d["metricsBindAddress"] == "127.0.0.1:10249"
    assert kpconfig.validate(d) == []


def test_flags_are_ignored_with_a_config_file(cluster, config, capsys) -> None:
    path = config("mode: iptables\n")
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", path, "--mode", "nftables",
                "--masquerade-all"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("*filter\n")  # the file's mode, not the flag's
    assert err == ("kubenotes kube-proxy: --mode, --masquerade-all ignored: a config file is specified by "
                   "--config\n")


# ---------------------------------------------------------------------------
# what the settings change


def test_masquerade_all_is_per_mode_section(cluster, config, tmp_path) -> None:
    # nftables mode reads nftables.masqueradeAll, not iptables.masqueradeAll (v1alpha1 conversion)
    off = run_kube_proxy([cluster], "n1", config_file=config("mode: nftables\niptables: {masqueradeAll: true}\n"))
    assert "ip daddr 10.96.0.20 jump mark-for-masquerade" not in off
    on = run_kube_proxy([cluster], "n1", config_file=config("mode: nftables\nnftables: {masqueradeAll: true}\n"))
    assert "ip daddr 10.96.0.20 jump mark-for-masquerade" in on
    check_nft(on, tmp_path)
    ipt = run_kube_proxy([cluster], "n1", config_file=config("iptables: {masqueradeAll: true}\n", "i.yaml"))
    assert '-d 10.96.0.20 --dport 80 -j KUBE-MARK-MASQ' in ipt
    check_iptables(ipt)


@pytest.mark.parametrize("body,ipt_rule,nft_rule", [
    ("detectLocalMode: NodeCIDR\n", "! -s 10.244.1.0/24 -j KUBE-MARK-MASQ",
     "ip daddr 10.96.0.20 ip saddr != 10.244.1.0/24 jump mark-for-masquerade"),
    ("detectLocalMode: BridgeInterface\ndetectLocal: {bridgeInterface: cni0}\n", "! -i cni0 -j KUBE-MARK-MASQ",
     'ip daddr 10.96.0.20 iifname != "cni0" jump mark-for-masquerade'),
    ("detectLocalMode: InterfaceNamePrefix\ndetectLocal: {interfaceNamePrefix: veth}\n",
     "! -i veth+ -j KUBE-MARK-MASQ", 'ip daddr 10.96.0.20 iifname != "veth*" jump mark-for-masquerade'),
    ("clusterCIDR: 10.244.0.0/16\n", "! -s 10.244.0.0/16 -j KUBE-MARK-MASQ",
     "ip daddr 10.96.0.20 ip saddr != 10.244.0.0/16 jump mark-for-masquerade"),
])
def test_detect_local_modes(cluster, config, tmp_path, body, ipt_rule, nft_rule) -> None:
    ipt = run_kube_proxy([cluster], "n1", config_file=config(body))
    assert ipt_rule in ipt
    check_iptables(ipt)
    nft = run_kube_proxy([cluster], "n1", config_file=config("mode: nftables\n" + body, "n.yaml"))
    assert nft_rule in nft  # nft lists an interface name quoted
    check_nft(nft, tmp_path)


def test_no_cluster_cidr_means_no_masquerade_rule_for_cluster_ips(cluster) -> None:
    out = run_kube_proxy([cluster], "n1", mode="nftables")
    assert "ip daddr 10.96.0.20 " not in out  # the no-op detector


def test_node_port_addresses_in_iptables(cluster, config) -> None:
    default = run_kube_proxy([cluster], "n1")
    assert "-m addrtype --dst-type LOCAL -j KUBE-NODEPORTS" in default
    cidr = run_kube_proxy([cluster], "n1", config_file=config("nodePortAddresses: [192.168.1.0/24]\n"))
    assert ('-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule '
            'in this chain" -d 192.168.1.2 -j KUBE-NODEPORTS') in cidr
    assert "--dst-type LOCAL -j KUBE-NODEPORTS" not in cidr and "-d 192.168.0.2 -j KUBE-NODEPORTS" not in cidr
    check_iptables(cidr)
    primary = run_kube_proxy([cluster], "n1", nodeport_addresses="primary")
    assert "-d 192.168.0.2 -j KUBE-NODEPORTS" in primary and "192.168.1.2" not in primary
    # localhost NodePorts need a CIDR with 127.0.0.1 (ContainsIPv4Loopback): none here, so no nfacct rule
    assert "127.0.0.0/8 --dport 30080" not in primary and "127.0.0.0/8 --dport 30080" in default


def test_node_port_addresses_in_nftables(cluster, config, tmp_path) -> None:
    all_ips = run_kube_proxy([cluster], "n1", config_file=config("mode: nftables\nnodePortAddresses: [0.0.0.0/0]\n"))
    assert "nodeport-ips" not in all_ips
    assert "fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports" in all_ips
    both = run_kube_proxy([cluster], "n1", mode="nftables", nodeport_addresses="192.168.0.0/16,127.0.0.0/8")
    assert "elements = { 192.168.0.2, 192.168.1.2 }" in both  # loopback skipped by the nftables proxier
    check_nft(both, tmp_path)


def test_localhost_node_ports_off(cluster, config) -> None:
    out = run_kube_proxy([cluster], "n1", config_file=config("iptables: {localhostNodePorts: false}\n"))
    assert "-m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j KUBE-NODEPORTS" in out
    assert "KUBE-FIREWALL" not in out and "127.0.0.0/8 --dport 30080" not in out
    check_iptables(out)


def test_service_cidrs_come_from_servicecidr_objects(cluster, tmp_path) -> None:
    extra = tmp_path / "servicecidrs.yaml"
    extra.write_text("apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: kubernetes}\n"
                     "spec: {cidrs: [10.96.0.0/16]}\n---\napiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\n"
                     "metadata: {name: more}\nspec: {cidrs: [10.100.0.0/16]}\n")
    out = run_kube_proxy([cluster, str(extra)], "n1", mode="nftables")
    assert 'ip daddr { 10.96.0.0/16, 10.100.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"' in out
    default = run_kube_proxy([cluster], "n1", mode="nftables")
    assert 'ip daddr 10.96.0.0/12 drop comment "Drop traffic to unallocated ClusterIPs"' in default
    check_nft(out, tmp_path)


def test_conntrack_sysctls(cluster, config, capsys) -> None:
    assert cli(["kube-proxy", cluster, "--node", "n1", "--sysctls"]) == 0
    assert capsys.readouterr().out == (
        "net.netfilter.nf_conntrack_max = 262144\n"          # 32768 per core x 8 CPUs > min 131072
        "/sys/module/nf_conntrack/parameters/hashsize = 65536\n"
        "net.netfilter.nf_conntrack_tcp_timeout_established = 86400\n"
        "net.netfilter.nf_conntrack_tcp_timeout_close_wait = 3600\n"
        "net.ipv4.conf.all.route_localnet = 1\n")
    path = config("mode: nftables\nconntrack: {maxPerCore: 0, tcpEstablishedTimeout: 2h, tcpBeLiberal: true}\n")
    assert cli(["kube-proxy", cluster, "--node", "n1", "--config", path, "--sysctls"]) == 0
    assert capsys.readouterr().out == ("net.netfilter.nf_conntrack_tcp_timeout_established = 7200\n"
                                       "net.netfilter.nf_conntrack_tcp_timeout_close_wait = 3600\n"
                                       "net.netfilter.nf_conntrack_tcp_be_liberal = 1\n")
    small = kpconfig.conntrack_sysctls(kpconfig.set_defaults({"conntrack": {"maxPerCore": 1000, "min": 5000}}), 2)
    assert small["net.netfilter.nf_conntrack_max"] == 5000  # the floor wins
    flags = run_kube_proxy([cluster], "n1", sysctls=True, conntrack_max_per_core=65536,
                           conntrack_tcp_timeout_close_wait="30m")
    assert "nf_conntrack_max = 524288\n" in flags and "close_wait = 1800\n" in flags


def test_helpers() -> None:
    assert node_port_ips(["192.168.0.2"], ["primary"]) == ["192.168.0.2"]
    assert node_port_ips(["192.168.0.2"], ["10.0.0.0/8", "0.0.0.0/0"]) is None
    d = LocalTrafficDetector.for_family("InterfaceNamePrefix", 4, interface_name_prefix="cali")
    assert d.if_local == ("-i", "cali+") and d.if_not_local_nft == ("iifname", "!=", "cali*")
    assert kpconfig.parse_duration_seconds("1h30m") == 5400


V6 = """\
apiVersion: v1
kind: Node
metadata: {name: n6}
spec: {podCIDRs: [10.244.1.0/24, "fd00:10:244:1::/64"]}
status: {addresses: [{type: InternalIP, address: "2001:db8::2"}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {clusterIP: "fd00:10:96::20", clusterIPs: ["fd00:10:96::20"], ipFamilies: [IPv6], type: NodePort,
       ports: [{name: http, port: 80, nodePort: 30080}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv6
endpoints: [{addresses: ["fd00:10:244:1::5"], nodeName: n6}]
ports: [{name: http, port: 80, protocol: TCP}]
"""


def test_ipv6_node_cidr_detector_and_sysctls(tmp_path) -> None:
    """An IPv6 node: NodeCIDR picks the pod CIDR of the family; no route_localnet (no localhost NodePorts)."""
    nft = run_kube_proxy([V6], "n6", mode="nftables", detect_local_mode="NodeCIDR")
    assert "ip6 daddr fd00:10:96::20 ip6 saddr != fd00:10:244:1::/64 jump mark-for-masquerade" in nft
    assert "elements = { 2001:db8::2 }" in nft  # primary node IP
    check_nft(nft, tmp_path)
    ipt = run_kube_proxy([V6], "n6", detect_local_mode="NodeCIDR", nodeport_addresses="primary")
    assert "! -s fd00:10:244:1::/64 -j KUBE-MARK-MASQ" in ipt and "-d 2001:db8::2 -j KUBE-NODEPORTS" in ipt
    binary = _required("ip6tables-restore")
    if binary is not None:
        r = subprocess.run([binary, "--test"], input=ipt, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    assert "route_localnet" not in run_kube_proxy([V6], "n6", sysctls=True)
