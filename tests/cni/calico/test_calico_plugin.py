"""The ``calico`` / ``calico-ipam`` CNI plugin models through the CNI registry (:mod:`kubenotes.cni.spec`).

Expectations follow Calico's CNI plugin (``cni-plugin/internal/pkg/utils/network_linux.go`` DoNetworking:
``/32`` address, ``169.254.1.1`` link route and default route in the pod, ``proxy_arp`` on the host veth;
``ipam_plugin.go``: a retried ADD with the same container ID keeps the address; DEL releases it).
No upstream test is ported (upstream's tests need a datastore and root).
"""

import pytest

from kubenotes.cni.calico.ipam import CalicoIPAM, IPPool
from kubenotes.cni.calico.plugin import CalicoIPAMPlugin, calico_conflist
from kubenotes.cni.netns import Host
from kubenotes.cni.spec import CNIEnv, register_plugin, registered_plugins, run_plugin


@pytest.fixture
def ipam():
    ipam = CalicoIPAM([IPPool(cidr="10.20.0.0/16")])
    register_plugin("calico-ipam", CalicoIPAMPlugin(ipam))
    yield ipam
    register_plugin("calico-ipam", CalicoIPAMPlugin())


def conf(node):
    return calico_conflist(node)["plugins"][0] | {"cniVersion": "1.0.0", "name": "k8s-pod-network"}


def env(cmd, cid, ns, pod="web"):
    return CNIEnv(cmd, cid, ns, "eth0", f"K8S_POD_NAMESPACE=default;K8S_POD_NAME={pod}", "/opt/cni/bin")


def test_registered():
    import kubenotes.cni.calico  # noqa: F401
    assert {"calico", "calico-ipam"} <= set(registered_plugins())


def test_add_del(ipam):
    h = Host("n1")
    ns = h.add_netns("/var/run/netns/a")
    out = run_plugin("calico", env("ADD", "c1", ns.path), conf("n1"), host=h)
    assert out.exit_code == 0
    ip = out.result["ips"][0]["address"]
    assert ip.endswith("/32") and ns.interfaces["eth0"].addresses == [ip]
    veth = out.result["interfaces"][0]["name"]
    assert veth.startswith("cali") and len(veth) == 15 and h.root.interfaces[veth].mac == "ee:ee:ee:ee:ee:ee"
    assert h.root.sysctls[f"net.ipv4.conf.{veth}.proxy_arp"] == "1"
    assert ns.ip_route() == ["169.254.1.1 dev eth0 scope link", "default via 169.254.1.1 dev eth0"]
    assert ipam.affine_blocks("n1")[0].cidr.prefixlen == 26
    # a retried ADD of the same container keeps its address (the handle is k8s-pod-network.<container id>)
    assert CalicoIPAMPlugin(ipam).add(type("C", (), {"config": conf("n1"), "env": env("ADD", "c1", ns.path),
                                                      "host": h, "cni_version": "1.0.0"})())["ips"][0]["address"] == ip
    assert run_plugin("calico", env("DEL", "c1", ns.path), conf("n1"), host=h).exit_code == 0
    assert veth not in h.root.interfaces and ipam.handles == {}
    ns2 = h.add_netns("/var/run/netns/b")
    again = run_plugin("calico", env("ADD", "c2", ns2.path, "api"), conf("n1"), host=h)
    assert again.result["ips"][0]["address"] == ip  # freed address reused, lowest ordinal first


def test_add_without_netns_is_an_error(ipam):
    out = run_plugin("calico", env("ADD", "c1", "/var/run/netns/none"), conf("n1"), host=Host("n1"))
    assert out.exit_code == 1 and "failed to open netns" in out.error.msg


def test_through_the_runtime_cni_manager(ipam):
    from kubenotes.cni.manager import CNIManager
    m = CNIManager("n1", calico_conflist("n1"))
    r = m.setup_pod_network("default", "web", "sb1", "/var/run/netns/cni-1")
    assert [(t["type"], t["command"]) for t in m.trace] == [("loopback", "ADD"), ("calico", "ADD"),
                                                             ("portmap", "ADD"), ("bandwidth", "ADD")]
    assert m.trace[1]["delegated"][0]["type"] == "calico-ipam" and r["ips"][0]["address"].endswith("/32")
    m.teardown_pod_network("default", "web", "sb1", "/var/run/netns/cni-1")
    assert [t["type"] for t in m.trace[4:]] == ["bandwidth", "portmap", "calico", "loopback"]
    assert ipam.handles == {} and m.host.root.ip_route() == []
