"""Tests of ``kubenotes kube-proxy`` (kubenotes.sim.proxy_cli).

The CLI contract of issue #10: ``python -m kubenotes kube-proxy MANIFEST... --node NODE
[--mode iptables|ipvs|nftables] [--cluster-cidr CIDR]`` prints what kube-proxy v1.34 programs on
the node; a plain ``kubectl get -o yaml`` List of Nodes, Services and Pods (no EndpointSlices)
works; bad input is one line on stderr and exit status 2. The ``--cluster-cidr`` messages are
upstream's: ``clusterCIDR`` becomes the internal ``DetectLocal.ClusterCIDRs``, validated by
``validateDualStackCIDRStrings`` (kubernetes/kubernetes@v1.34.0
pkg/proxy/apis/config/validation/validation.go). ``--config`` is tested in tests/proxy/test_kube_proxy_config.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import kubenotes.cli
from kubenotes.errors import KubenotesError
from kubenotes.sim.proxy_cli import run_kube_proxy, validate_cluster_cidr

KUBECTL_DUMP = """\
apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: worker-1
  spec:
    podCIDR: 10.244.1.0/24
  status:
    addresses:
    - type: InternalIP
      address: 192.168.0.2
    - type: Hostname
      address: worker-1
- apiVersion: v1
  kind: Service
  metadata:
    name: web
    namespace: default
  spec:
    type: NodePort
    clusterIP: 10.96.0.20
    clusterIPs: [10.96.0.20]
    selector:
      app: web
    ports:
    - name: http
      port: 80
      targetPort: 8080
      nodePort: 30080
      protocol: TCP
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-1
    namespace: default
    labels:
      app: web
  spec:
    nodeName: worker-1
    containers:
    - name: web
      image: nginx
      ports:
      - containerPort: 8080
  status:
    phase: Running
    podIP: 10.244.1.5
    podIPs: [{ip: 10.244.1.5}]
    conditions:
    - type: Ready
      status: "True"
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-2
    namespace: default
    labels:
      app: web
  spec:
    nodeName: worker-2
    containers:
    - name: web
      image: nginx
  status:
    phase: Running
    podIP: 10.244.2.7
    podIPs: [{ip: 10.244.2.7}]
    conditions:
    - type: Ready
      status: "True"
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-3
    namespace: default
    labels:
      app: web
  spec:
    nodeName: worker-2
    containers:
    - name: web
      image: nginx
  status:
    phase: Running
    podIP: 10.244.2.8
    podIPs: [{ip: 10.244.2.8}]
    conditions:
    - type: Ready
      status: "False"
"""


@pytest.fixture
def cli():
    """``kubenotes.cli.main``: ``kube-proxy`` is one of its subcommands."""
    assert "kube-proxy" in {name for name, _, _ in kubenotes.cli.SUBCOMMANDS}
    return kubenotes.cli.main


@pytest.fixture
def dump(tmp_path) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(KUBECTL_DUMP)
    return str(path)


def test_iptables_from_a_kubectl_dump(cli, dump, capsys) -> None:
    rc = cli(["kube-proxy", dump, "--node", "worker-1", "--cluster-cidr", "10.244.0.0/16"])
    out, err = capsys.readouterr()
    assert (rc, err) == (0, "")
    assert out.startswith("*filter\n") and out.endswith("COMMIT\n")
    # endpoints derived from the ready Pods as the EndpointSlice controller derives them
    assert "-j DNAT --to-destination 10.244.1.5:8080" in out
    assert "-j DNAT --to-destination 10.244.2.7:8080" in out
    assert "10.244.2.8" not in out  # not ready
    assert '-m statistic --mode random --probability 0.5000000000' in out
    assert "-A KUBE-NODEPORTS -m comment --comment default/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-" in out
    assert "! -s 10.244.0.0/16 -j KUBE-MARK-MASQ" in out
    assert "MASQUERADE --random-fully" in out
    binary = shutil.which("iptables-restore") or ("/usr/sbin/iptables-restore"
                                                  if os.path.exists("/usr/sbin/iptables-restore") else None)
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but iptables-restore is not installed (Debian package iptables)")
    else:
        cmd = [binary, "--test"]
        if os.geteuid() != 0 and shutil.which("unshare"):
            cmd = ["unshare", "-rn", *cmd]  # iptables-nft wants root even for --test
        r = subprocess.run(cmd, input=out, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr


def test_without_cluster_cidr_nothing_is_masqueraded_for_cluster_ips(cli, dump, capsys) -> None:
    assert cli(["kube-proxy", dump, "--node", "worker-1"]) == 0
    out = capsys.readouterr().out
    assert "KUBE-MARK-MASQ" in out and "cluster IP\" -m tcp -p tcp -d 10.96.0.20 --dport 80 ! -s" not in out


def test_masquerade_all_and_full(cli, dump, capsys) -> None:
    assert cli(["kube-proxy", dump, "--node", "worker-1", "--masquerade-all", "--full"]) == 0
    out = capsys.readouterr().out
    assert '-m comment --comment "default/web:http cluster IP" -m tcp -p tcp -d 10.96.0.20 --dport 80 -j KUBE-MARK-MASQ' \
        in out
    assert ":PREROUTING ACCEPT [0:0]" in out and "*mangle" in out and ":KUBE-PROXY-CANARY - [0:0]" in out


def test_nftables_mode(cli, dump, capsys) -> None:
    assert cli(["kube-proxy", dump, "--node", "worker-1", "--mode", "nftables"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("table ip kube-proxy {")
    assert "10.244.1.5" in out and "*filter" not in out


def test_ipvs_mode(cli, dump, capsys) -> None:
    assert cli(["kube-proxy", dump, "--node", "worker-1", "--mode", "ipvs"]) == 0
    out = capsys.readouterr().out
    assert "10.96.0.20:80" in out and "10.244.1.5:8080" in out


def test_unknown_node_is_one_line_exit_2(cli, dump, capsys) -> None:
    assert cli(["kube-proxy", dump, "--node", "worker-9"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and 'nodes "worker-9" not found' in err and "worker-1" in err


def test_bad_manifest_is_one_line_exit_2(cli, tmp_path, capsys) -> None:
    bad = tmp_path / "svc.yaml"
    bad.write_text("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\n"
                   "spec: {ports: [{port: http}]}\n")
    assert cli(["kube-proxy", str(bad), "--node", "n1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(str(bad)) and "Service default/web" in err and "spec.ports[0].port" in err


def test_missing_file_is_exit_2(cli, tmp_path, capsys) -> None:
    assert cli(["kube-proxy", str(tmp_path / "nope.yaml"), "--node", "n1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_bad_cluster_cidr_is_upstreams_message(cli, dump, capsys) -> None:
    assert cli(["kube-proxy", dump, "--node", "worker-1", "--cluster-cidr", "192.168.59.0"]) == 2
    assert capsys.readouterr().err == (
        'kubenotes kube-proxy: KubeProxyConfiguration.DetectLocalConfiguration.ClusterCIDRs[0]: Invalid value: '
        '"192.168.59.0": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)\n')


@pytest.mark.parametrize("value,ok", [
    ("10.244.0.0/16", True), ("fd00:10::/64", True), ("10.244.0.0/16,fd00:10::/64", True),
    ("192.168.59.0/24,fd00:192:168::/64,10.0.0.0/16", False), ("10.0.0.0/16,10.1.0.0/16", False),
    ("bogus", False),
])
def test_validate_cluster_cidr(value: str, ok: bool) -> None:
    if ok:
        validate_cluster_cidr(value)
    else:
        with pytest.raises(KubenotesError,
                           match=r"KubeProxyConfiguration\.DetectLocalConfiguration\.ClusterCIDRs(\[0\])?: Invalid value"):
            validate_cluster_cidr(value)


def test_mode_is_validated_by_the_parser(cli, dump, capsys) -> None:
    with pytest.raises(SystemExit) as exc:  # argparse's usage error, as for every kubenotes subcommand
        cli(["kube-proxy", dump, "--node", "worker-1", "--mode", "userspace"])
    assert exc.value.code == 2
    assert "argument --mode: invalid choice: 'userspace'" in capsys.readouterr().err


def test_run_kube_proxy_reads_yaml_text() -> None:
    out = run_kube_proxy([KUBECTL_DUMP], "worker-1", cluster_cidr="10.244.0.0/16")
    assert "-A KUBE-SERVICES -m comment --comment \"default/web:http cluster IP\"" in out


def test_python_dash_m_entry_point(dump) -> None:
    """``python -m kubenotes kube-proxy``."""
    import sys

    r = subprocess.run([sys.executable, "-m", "kubenotes", "kube-proxy", dump, "--node", "worker-1"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("*filter\n")
