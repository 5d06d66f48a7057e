"""The runtime's CNI layer (containerd's go-cni / libcni) driving the model plugins.

Cases follow containerd's ``internal/cri/server/sandbox_run_test.go`` (toCNIBandWidth,
toCNIPortMappings: only mappings with a hostPort, protocol lower-cased; toCNILabels),
go-cni's ``cni_test.go`` (loopback attached before the default network, Remove in reverse;
Status "cni plugin not initialized") and libcni's ``api_test.go`` (AddNetworkList passes
each result on as prevResult and caches the final one; DelNetworkList runs in reverse with
the cached result; CheckNetworkList honours disableCheck and refuses versions below 0.4.0).
"""

from __future__ import annotations

import json

import pytest

from kubenotes.cni.exec import exec_real, model_data_dir
from kubenotes.cni.manager import (
    RESULT_CACHE_DIR,
    CNIManager,
    bandwidth_from_annotations,
    default_conflist,
    load_conflist_dir,
    pod_ips,
    port_mappings_from_pod,
)
from kubenotes.cni.spec import CNIEnv, CNIError
from kubenotes.errors import ConfigError, KubenotesError


def _setup(m: CNIManager, i: int, **kw) -> dict:
    return m.setup_pod_network("default", f"web-{i}", f"sb{i}", f"/var/run/netns/cni-{i}", **kw)


def test_pods_get_consecutive_addresses_and_reuse_round_robin():
    m = CNIManager("node-1", default_conflist("10.244.1.0/24"))
    assert [pod_ips(_setup(m, i)) for i in range(3)] == [["10.244.1.2"], ["10.244.1.3"], ["10.244.1.4"]]
    m.teardown_pod_network("default", "web-0", "sb0", "/var/run/netns/cni-0")
    assert pod_ips(_setup(m, 3)) == ["10.244.1.5"]
    files = model_data_dir(m.host.files, "/var/lib/cni/networks")
    assert sorted(files) == ["cbr0/10.244.1.3", "cbr0/10.244.1.4", "cbr0/10.244.1.5",
                             "cbr0/last_reserved_ip.0", "cbr0/lock"]
    assert files["cbr0/10.244.1.5"] == b"sb3\r\neth0"


def test_trace_order_env_and_capability_filtering():
    m = CNIManager("node-1", default_conflist("10.244.1.0/24"))
    pm = [{"hostPort": 8080, "containerPort": 80, "protocol": "tcp", "hostIP": ""}]
    _setup(m, 1, port_mappings=pm, bandwidth={"ingressRate": 10_000_000, "ingressBurst": 2 ** 32 - 1}, uid="u1")
    assert [(t["network"], t["type"]) for t in m.trace] == [
        ("cni-loopback", "loopback"), ("cbr0", "bridge"), ("cbr0", "portmap"), ("cbr0", "bandwidth")]
    assert m.trace[0]["env"]["CNI_IFNAME"] == "lo" and m.trace[1]["env"]["CNI_IFNAME"] == "eth0"
    assert m.trace[1]["env"]["CNI_ARGS"] == ("IgnoreUnknown=1;K8S_POD_INFRA_CONTAINER_ID=sb1;K8S_POD_NAME=web-1;"
                                             "K8S_POD_NAMESPACE=default;K8S_POD_UID=u1")
    assert "runtimeConfig" not in m.trace[1]["stdin"]
    assert m.trace[2]["stdin"]["runtimeConfig"] == {"portMappings": pm}
    assert list(m.trace[3]["stdin"]["runtimeConfig"]) == ["bandwidth"]
    assert m.trace[2]["stdin"]["prevResult"] == json.loads(m.trace[1]["stdout"])
    cached = json.loads(m.host.files[f"{RESULT_CACHE_DIR}/cbr0-sb1-eth0"])
    assert cached["kind"] == "cniCacheV1" and cached["result"] == json.loads(m.trace[3]["stdout"])
    n = len(m.trace)
    m.teardown_pod_network("default", "web-1", "sb1", "/var/run/netns/cni-1", port_mappings=pm)
    assert [t["type"] for t in m.trace[n:]] == ["bandwidth", "portmap", "bridge", "loopback"]
    assert all(t["stdin"]["prevResult"] == cached["result"] for t in m.trace[n:n + 3])
    assert "prevResult" not in m.trace[-1]["stdin"]  # the loopback list is 0.3.1: no prevResult on DEL
    assert f"{RESULT_CACHE_DIR}/cbr0-sb1-eth0" not in m.host.files


def test_failed_add_is_torn_down_and_reported():
    m = CNIManager("node-1", default_conflist("10.244.1.0/30"))
    assert pod_ips(_setup(m, 0)) == ["10.244.1.2"]
    with pytest.raises(CNIError) as e:
        _setup(m, 1)
    assert e.value.code == 999
    assert e.value.msg == ('plugin type="bridge" name="cbr0" failed (add): failed to allocate for range 0: '
                           "no IP addresses available in range set: 10.244.1.1-10.244.1.2")
    assert "eth0" not in m.host.netns("/var/run/netns/cni-1").interfaces
    assert [t["command"] for t in m.trace[-4:]] == ["DEL", "DEL", "DEL", "DEL"]


def test_check_uses_cache_and_honours_disable_check():
    m = CNIManager("node-1", default_conflist("10.244.1.0/24"))
    _setup(m, 1)
    m.check_pod_network("default", "web-1", "sb1", "/var/run/netns/cni-1")
    m.host.netns("/var/run/netns/cni-1").interfaces["eth0"].addresses.clear()
    with pytest.raises(CNIError, match="Failed to match addr 10.244.1.2/24"):
        m.check_pod_network("default", "web-1", "sb1", "/var/run/netns/cni-1")
    with pytest.raises(CNIError) as e:
        m.check_pod_network("default", "nope", "sb9", "/var/run/netns/cni-9")
    assert e.value.code == 3
    off = CNIManager("node-1", {**default_conflist("10.244.1.0/24"), "disableCheck": True})
    off.check_pod_network("default", "x", "sb9", "/ns")  # no cache, but CHECK is skipped
    old = CNIManager("node-1", {**default_conflist("10.244.1.0/24"), "cniVersion": "0.3.1"})
    with pytest.raises(CNIError, match='configuration version "0.3.1" does not support the CHECK command'):
        old.check_pod_network("default", "x", "sb9", "/ns")


def test_status():
    assert CNIManager("n", None).status() == {"ready": False, "message": "cni plugin not initialized"}
    assert CNIManager("n", default_conflist("10.244.1.0/24")).status() == {"ready": True, "message": ""}
    bad = CNIManager("n", {"cniVersion": "1.0.0", "name": "x", "plugins": [{"type": "flannel"}]})
    assert bad.status()["ready"] is False and "flannel" in bad.status()["message"]
    with pytest.raises(CNIError, match="cni plugin not initialized"):
        CNIManager("n", None).setup_pod_network("default", "p", "sb", "/ns")


def test_bandwidth_annotations_and_port_mappings():
    assert bandwidth_from_annotations({"kubernetes.io/ingress-bandwidth": "1M", "kubernetes.io/egress-bandwidth": "2M"}) \
        == {"ingressRate": 1_000_000, "ingressBurst": 4294967295, "egressRate": 2_000_000, "egressBurst": 4294967295}
    with pytest.raises(ConfigError, match=r"resource is unreasonably small \(< 1kbit\)"):
        bandwidth_from_annotations({"kubernetes.io/egress-bandwidth": "500"})
    with pytest.raises(ConfigError, match=r"resource is unreasonably large \(> 1Pbit\)"):
        bandwidth_from_annotations({"kubernetes.io/ingress-bandwidth": "2P"})
    with pytest.raises(KubenotesError):
        bandwidth_from_annotations({"kubernetes.io/ingress-bandwidth": "fast"})
    pod = {"spec": {"containers": [
        {"ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}, {"containerPort": 9090}]},
        {"ports": [{"containerPort": 53, "hostPort": 5353, "protocol": "UDP", "hostIP": "127.0.0.1"}]}]}}
    assert port_mappings_from_pod(pod) == [
        {"hostPort": 8080, "containerPort": 80, "protocol": "tcp", "hostIP": ""},
        {"hostPort": 5353, "containerPort": 53, "protocol": "udp", "hostIP": "127.0.0.1"}]


def test_load_conflist_dir(tmp_path):
    with pytest.raises(ConfigError, match="no network config found"):
        load_conflist_dir(tmp_path)
    (tmp_path / "20-other.conflist").write_text(json.dumps(default_conflist("10.9.0.0/24", name="other")))
    (tmp_path / "10-bridge.conf").write_text(json.dumps(
        {"cniVersion": "1.0.0", "name": "mynet", "type": "bridge", "ipam": {"type": "host-local",
                                                                            "subnet": "10.1.0.0/24"}}))
    cl = load_conflist_dir(tmp_path)
    assert (cl.name, [p["type"] for p in cl.plugins]) == ("mynet", ["bridge"])
    (tmp_path / "05-broken.conflist").write_text("{nope")
    with pytest.raises(ConfigError) as e:
        load_conflist_dir(tmp_path)
    assert str(e.value).startswith(str(tmp_path / "05-broken.conflist") + ": invalid JSON")
    (tmp_path / "05-broken.conflist").write_text('{"cniVersion": "1.0.0", "name": "x", "plugins": []}')
    with pytest.raises(ConfigError, match="05-broken.conflist: error parsing configuration list: no plugins in list"):
        load_conflist_dir(tmp_path)


def test_exec_real_reports_missing_binary():
    with pytest.raises(FileNotFoundError, match='failed to find plugin "no-such-plugin"'):
        exec_real("no-such-plugin", CNIEnv("VERSION"), b"")


def test_cri_hooks_pass_ports_and_bandwidth_from_the_sandbox_config():
    from types import SimpleNamespace

    m = CNIManager("node-1", default_conflist("10.244.2.0/24"))
    setup, teardown = m.cri_hooks()
    sb = SimpleNamespace(id="sb1", netns="/var/run/netns/cni-1", config={
        "metadata": {"name": "web", "namespace": "shop", "uid": "u1"},
        "port_mappings": [{"protocol": "TCP", "container_port": 80, "host_port": 8080}],
        "annotations": {"kubernetes.io/egress-bandwidth": "1M"}})
    assert setup(sb) == "10.244.2.2"
    assert m.trace[2]["stdin"]["runtimeConfig"]["portMappings"][0]["hostPort"] == 8080
    assert m.trace[3]["stdin"]["runtimeConfig"]["bandwidth"]["egressRate"] == 1_000_000
    assert "K8S_POD_NAMESPACE=shop" in m.trace[1]["env"]["CNI_ARGS"]
    teardown(sb)
    assert m.host.qdiscs == {} and m.host.nat["CNI-HOSTPORT-DNAT"] == []


def test_gc_deletes_stale_attachments_only():
    m = CNIManager("node-1", default_conflist("10.244.3.0/24"))
    for i in range(3):
        _setup(m, i)
    n = len(m.trace)
    assert m.gc(["sb1"]) == []
    deleted = {t["env"]["CNI_CONTAINERID"] for t in m.trace[n:]}
    assert deleted == {"sb0", "sb2"} and {t["command"] for t in m.trace[n:]} == {"DEL"}
    assert sorted(model_data_dir(m.host.files, "/var/lib/cni/networks")) == [
        "cbr0/10.244.3.3", "cbr0/last_reserved_ip.0", "cbr0/lock"]
    assert m.cached_result("sb1") is not None and m.cached_result("sb0") is None
    assert m.gc(["sb1"]) == []  # nothing left to collect
