"""Service discovery (kubenotes.proxy.discovery): the kubelet's Service env vars, the pod's resolv.conf, CoreDNS answers.

Ported cases:

* ``test_from_services_upstream`` is kubernetes/kubernetes@v1.34.0
  pkg/kubelet/envvars/envvars_test.go ``TestFromServices`` (every service and
  expected variable, incl. the IPv6 ``[2001:DB8::]`` URLs and SCTP).
* ``test_service_env_var_map`` follows pkg/kubelet/kubelet_pods_test.go
  ``TestMakeEnvironmentVariables`` (the master service of ``default`` always;
  namespace services only with enableServiceLinks; a namespace-local
  ``kubernetes`` Service wins).
* ``COREDNS_CASES`` are coredns/coredns plugin/kubernetes/handler_test.go
  ``dnsTestCases`` / ``commonDnsTestCases`` with its ``APIConnServeTest``
  services and endpoints rebuilt as Service and EndpointSlice objects
  (compared order-insensitively, as its ``test.SortAndCheck`` does).
* ``test_endpoint_hostname`` is plugin/kubernetes/kubernetes_test.go
  ``TestEndpointHostname``; ``test_parse_request`` follows parse_test.go
  ``TestParseRequest`` / ``TestParseInvalidRequest``.
* ``test_pod_dns_cluster_first`` follows pkg/kubelet/network/dns/dns_test.go
  ``TestGetPodDNS`` / ``TestGetPodDNSCustom`` (policies, hostNetwork fallback,
  dnsConfig merge).
"""

from __future__ import annotations

import pytest

from kubenotes.proxy.discovery import (
    DNSConfig,
    ClusterDNS,
    from_services,
    make_env_variable_name,
    pod_dns_config,
    resolv_conf,
    search_names,
    service_env_vars,
)
from kubenotes.sim.network import add_endpoint_slices


def _svc(name, ns="default", cluster_ip="10.96.0.5", ports=None, **spec):
    s = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
         "spec": {"clusterIP": cluster_ip, "ports": ports if ports is not None else [{"port": 80, "protocol": "TCP"}],
                  **spec}}
    if cluster_ip and cluster_ip != "None" and "clusterIPs" not in spec:
        s["spec"]["clusterIPs"] = [cluster_ip]
    return s


# ---------------------------------------------------------------------------------------------- env vars

def test_from_services_upstream():
    sl = [
        _svc("foo-bar", cluster_ip="1.2.3.4", ports=[{"port": 8080, "protocol": "TCP"}]),
        _svc("abc-123", cluster_ip="5.6.7.8", ports=[{"name": "u-d-p", "port": 8081, "protocol": "UDP"},
                                                     {"name": "t-c-p", "port": 8081, "protocol": "TCP"}]),
        _svc("q-u-u-x", cluster_ip="9.8.7.6", ports=[{"port": 8082, "protocol": "TCP"},
                                                     {"name": "8083", "port": 8083, "protocol": "TCP"}]),
        _svc("svrc-clusterip-none", cluster_ip="None", ports=[{"port": 8082, "protocol": "TCP"}]),
        _svc("svrc-clusterip-empty", cluster_ip="", ports=[{"port": 8082, "protocol": "TCP"}]),
        _svc("super-ipv6", cluster_ip="2001:DB8::", ports=[{"name": "u-d-p", "port": 8084, "protocol": "UDP"},
                                                          {"name": "t-c-p", "port": 8084, "protocol": "TCP"}]),
        _svc("sctp-1", cluster_ip="1.2.3.4", ports=[{"port": 777, "protocol": "SCTP"}]),
    ]
    expected = [
        ("FOO_BAR_SERVICE_HOST", "1.2.3.4"), ("FOO_BAR_SERVICE_PORT", "8080"),
        ("FOO_BAR_PORT", "tcp://1.2.3.4:8080"), ("FOO_BAR_PORT_8080_TCP", "tcp://1.2.3.4:8080"),
        ("FOO_BAR_PORT_8080_TCP_PROTO", "tcp"), ("FOO_BAR_PORT_8080_TCP_PORT", "8080"),
        ("FOO_BAR_PORT_8080_TCP_ADDR", "1.2.3.4"),
        ("ABC_123_SERVICE_HOST", "5.6.7.8"), ("ABC_123_SERVICE_PORT", "8081"),
        ("ABC_123_SERVICE_PORT_U_D_P", "8081"), ("ABC_123_SERVICE_PORT_T_C_P", "8081"),
        ("ABC_123_PORT", "udp://5.6.7.8:8081"), ("ABC_123_PORT_8081_UDP", "udp://5.6.7.8:8081"),
        ("ABC_123_PORT_8081_UDP_PROTO", "udp"), ("ABC_123_PORT_8081_UDP_PORT", "8081"),
        ("ABC_123_PORT_8081_UDP_ADDR", "5.6.7.8"), ("ABC_123_PORT_8081_TCP", "tcp://5.6.7.8:8081"),
        ("ABC_123_PORT_8081_TCP_PROTO", "tcp"), ("ABC_123_PORT_8081_TCP_PORT", "8081"),
        ("ABC_123_PORT_8081_TCP_ADDR", "5.6.7.8"),
        ("Q_U_U_X_SERVICE_HOST", "9.8.7.6"), ("Q_U_U_X_SERVICE_PORT", "8082"),
        ("Q_U_U_X_SERVICE_PORT_8083", "8083"), ("Q_U_U_X_PORT", "tcp://9.8.7.6:8082"),
        ("Q_U_U_X_PORT_8082_TCP", "tcp://9.8.7.6:8082"), ("Q_U_U_X_PORT_8082_TCP_PROTO", "tcp"),
        ("Q_U_U_X_PORT_8082_TCP_PORT", "8082"), ("Q_U_U_X_PORT_8082_TCP_ADDR", "9.8.7.6"),
        ("Q_U_U_X_PORT_8083_TCP", "tcp://9.8.7.6:8083"), ("Q_U_U_X_PORT_8083_TCP_PROTO", "tcp"),
        ("Q_U_U_X_PORT_8083_TCP_PORT", "8083"), ("Q_U_U_X_PORT_8083_TCP_ADDR", "9.8.7.6"),
        ("SUPER_IPV6_SERVICE_HOST", "2001:DB8::"), ("SUPER_IPV6_SERVICE_PORT", "8084"),
        ("SUPER_IPV6_SERVICE_PORT_U_D_P", "8084"), ("SUPER_IPV6_SERVICE_PORT_T_C_P", "8084"),
        ("SUPER_IPV6_PORT", "udp://[2001:DB8::]:8084"), ("SUPER_IPV6_PORT_8084_UDP", "udp://[2001:DB8::]:8084"),
        ("SUPER_IPV6_PORT_8084_UDP_PROTO", "udp"), ("SUPER_IPV6_PORT_8084_UDP_PORT", "8084"),
        ("SUPER_IPV6_PORT_8084_UDP_ADDR", "2001:DB8::"), ("SUPER_IPV6_PORT_8084_TCP", "tcp://[2001:DB8::]:8084"),
        ("SUPER_IPV6_PORT_8084_TCP_PROTO", "tcp"), ("SUPER_IPV6_PORT_8084_TCP_PORT", "8084"),
        ("SUPER_IPV6_PORT_8084_TCP_ADDR", "2001:DB8::"),
        ("SCTP_1_SERVICE_HOST", "1.2.3.4"), ("SCTP_1_SERVICE_PORT", "777"),
        ("SCTP_1_PORT", "sctp://1.2.3.4:777"), ("SCTP_1_PORT_777_SCTP", "sctp://1.2.3.4:777"),
        ("SCTP_1_PORT_777_SCTP_PROTO", "sctp"), ("SCTP_1_PORT_777_SCTP_PORT", "777"),
        ("SCTP_1_PORT_777_SCTP_ADDR", "1.2.3.4"),
    ]
    assert from_services(sl) == expected


def test_make_env_variable_name():
    assert make_env_variable_name("my-svc") == "MY_SVC"
    assert make_env_variable_name("kubernetes") == "KUBERNETES"


SERVICES = [
    _svc("kubernetes", "default", "1.2.3.1", [{"port": 8081, "protocol": "TCP"}]),
    _svc("test", "test1", "1.2.3.3", [{"port": 8083, "protocol": "TCP"}]),
    _svc("kubernetes", "test2", "1.2.3.4", [{"port": 8084, "protocol": "TCP"}]),
    _svc("test", "test2", "1.2.3.5", [{"port": 8085, "protocol": "TCP"}]),
    _svc("test", "test2", "None", [{"port": 8085, "protocol": "TCP"}]),
    _svc("test", "test2", "", [{"port": 8085, "protocol": "TCP"}]),
    _svc("kubernetes", "kubernetes", "1.2.3.6", [{"port": 8086, "protocol": "TCP"}]),
    _svc("not-special", "kubernetes", "1.2.3.8", [{"port": 8088, "protocol": "TCP"}]),
]


def test_service_env_var_map():
    # a pod in test1: the master service plus the namespace's own
    env = service_env_vars(SERVICES, "test1")
    assert env["KUBERNETES_SERVICE_HOST"] == "1.2.3.1" and env["TEST_SERVICE_HOST"] == "1.2.3.3"
    assert env["TEST_PORT"] == "tcp://1.2.3.3:8083" and env["KUBERNETES_PORT_8081_TCP_PORT"] == "8081"
    assert not any(v == "1.2.3.8" for v in env.values())
    # enableServiceLinks false: only the master service
    env = service_env_vars(SERVICES, "test1", enable_service_links=False)
    assert {k.split("_")[0] for k in env} == {"KUBERNETES"} and env["KUBERNETES_SERVICE_HOST"] == "1.2.3.1"
    # a namespace's own kubernetes Service wins over the master one (whatever the listing order)
    for order in (SERVICES, SERVICES[::-1]):
        env = service_env_vars(order, "test2")
        assert env["KUBERNETES_SERVICE_HOST"] == "1.2.3.4" and env["TEST_SERVICE_HOST"] == "1.2.3.5"
    # ... but not when the pod opted out of service links
    assert service_env_vars(SERVICES, "test2", enable_service_links=False)["KUBERNETES_SERVICE_HOST"] == "1.2.3.1"
    # headless and empty cluster IPs never produce variables
    assert service_env_vars([_svc("h", "x", "None")], "x") == {}


def test_service_env_vars_order_is_by_service_then_upstream():
    env = list(service_env_vars([_svc("zeta", "a", "10.0.0.2"), _svc("alpha", "a", "10.0.0.1")], "a"))
    assert env[0] == "ALPHA_SERVICE_HOST" and env[7] == "ZETA_SERVICE_HOST" and len(env) == 14


# ---------------------------------------------------------------------------------------------- resolv.conf

@pytest.mark.parametrize("spec, expected", [
    ({}, DNSConfig(("10.96.0.10",), ("ns1.svc.cluster.local", "svc.cluster.local", "cluster.local", "host.example"),
                   ("ndots:5",))),
    ({"dnsPolicy": "ClusterFirstWithHostNet", "hostNetwork": True},
     DNSConfig(("10.96.0.10",), ("ns1.svc.cluster.local", "svc.cluster.local", "cluster.local", "host.example"),
               ("ndots:5",))),
    ({"hostNetwork": True}, DNSConfig(("192.168.0.1",), ("host.example",), ("rotate",))),
    ({"dnsPolicy": "Default"}, DNSConfig(("192.168.0.1",), ("host.example",), ("rotate",))),
    ({"dnsPolicy": "None", "dnsConfig": {"nameservers": ["203.0.113.1"], "searches": ["my.dns.search.suffix"],
                                         "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]}},
     DNSConfig(("203.0.113.1",), ("my.dns.search.suffix",), ("ndots:2", "edns0"))),
    ({"dnsConfig": {"nameservers": ["10.96.0.10", "203.0.113.1"], "searches": ["svc.cluster.local", "x.y"],
                    "options": [{"name": "ndots", "value": "3"}]}},
     DNSConfig(("10.96.0.10", "203.0.113.1"),
               ("ns1.svc.cluster.local", "svc.cluster.local", "cluster.local", "host.example", "x.y"), ("ndots:3",))),
])
def test_pod_dns_cluster_first(spec, expected):
    host = DNSConfig(("192.168.0.1",), ("host.example",), ("rotate",))
    assert pod_dns_config({"metadata": {"namespace": "ns1"}, "spec": spec}, host_dns=host) == expected


def test_pod_dns_without_cluster_dns_falls_back_to_host():
    host = DNSConfig(("192.168.0.1",), (), ())
    assert pod_dns_config({"metadata": {"namespace": "a"}, "spec": {}}, cluster_dns=(), host_dns=host) == host


def test_resolv_conf_text():
    cfg = pod_dns_config({"metadata": {"namespace": "shop"}, "spec": {}})
    assert resolv_conf(cfg) == ("search shop.svc.cluster.local svc.cluster.local cluster.local\n"
                                "nameserver 10.96.0.10\noptions ndots:5\n")


def test_search_names_ndots():
    cfg = pod_dns_config({"metadata": {"namespace": "shop"}, "spec": {}})
    # 1 dot < ndots 5: the search path first, then the name as is
    assert search_names("example.com", cfg) == [
        "example.com.shop.svc.cluster.local.", "example.com.svc.cluster.local.", "example.com.cluster.local.",
        "example.com."]
    # 5 dots: as is first
    assert search_names("a.b.c.d.e.f", cfg)[0] == "a.b.c.d.e.f."
    assert search_names("a.b.c.d.e.f", DNSConfig((), ("x",), ("ndots:1",))) == ["a.b.c.d.e.f.", "a.b.c.d.e.f.x."]


# ---------------------------------------------------------------------------------------------- CoreDNS

def _slice(svc, addrs, ports):
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": f"{svc}-slice1", "namespace": "testns", "labels": {"kubernetes.io/service-name": svc}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": [ip], **({"hostname": h} if h else {}), "conditions": {"ready": True}}
                          for ip, h in addrs],
            "ports": ports}


HTTP = [{"port": 80, "protocol": "TCP", "name": "http"}]

# plugin/kubernetes/handler_test.go APIConnServeTest: svcIndex and epsIndex
COREDNS_OBJECTS = [
    {"kind": "Namespace", "metadata": {"name": "testns"}},
    _svc("svc1", "testns", "10.0.0.1", HTTP),
    _svc("svcempty", "testns", "10.0.0.1", HTTP),
    _svc("svc6", "testns", "1234:abcd::1", HTTP),
    _svc("hdls1", "testns", "None", []),
    _svc("hdlsprtls", "testns", "None", []),
    {"kind": "Service", "metadata": {"name": "external", "namespace": "testns"},
     "spec": {"type": "ExternalName", "externalName": "ext.interwebs.test", "ports": HTTP}},
    {"kind": "Service", "metadata": {"name": "external-to-service", "namespace": "testns"},
     "spec": {"type": "ExternalName", "externalName": "svc1.testns.svc.cluster.local.", "ports": HTTP}},
    _svc("svc-dual-stack", "testns", "10.0.0.3", HTTP, clusterIPs=["10.0.0.3", "10::3"]),
    _slice("svc1", [("172.0.0.1", "ep1a")], HTTP),
    _slice("svcempty", [], HTTP),
    _slice("hdls1", [("172.0.0.2", None), ("172.0.0.3", None), ("172.0.0.4", "dup-name"), ("172.0.0.5", "dup-name"),
                     ("5678:abcd::1", None), ("5678:abcd::2", None)], HTTP),
    _slice("hdlsprtls", [("172.0.0.20", None)], []),
]

COREDNS_CASES = [
    ("svc1.testns.svc.cluster.local.", "A", "NOERROR", ["svc1.testns.svc.cluster.local.\t5\tIN\tA\t10.0.0.1"], []),
    ("svcempty.testns.svc.cluster.local.", "A", "NOERROR",
     ["svcempty.testns.svc.cluster.local.\t5\tIN\tA\t10.0.0.1"], []),
    ("svc1.testns.svc.cluster.local.", "SRV", "NOERROR",
     ["svc1.testns.svc.cluster.local.\t5\tIN\tSRV\t0 100 80 svc1.testns.svc.cluster.local."],
     ["svc1.testns.svc.cluster.local.\t5\tIN\tA\t10.0.0.1"]),
    ("svc6.testns.svc.cluster.local.", "SRV", "NOERROR",
     ["svc6.testns.svc.cluster.local.\t5\tIN\tSRV\t0 100 80 svc6.testns.svc.cluster.local."],
     ["svc6.testns.svc.cluster.local.\t5\tIN\tAAAA\t1234:abcd::1"]),
    ("_http._tcp.svc1.testns.svc.cluster.local.", "SRV", "NOERROR",
     ["_http._tcp.svc1.testns.svc.cluster.local.\t5\tIN\tSRV\t0 100 80 svc1.testns.svc.cluster.local."],
     ["svc1.testns.svc.cluster.local.\t5\tIN\tA\t10.0.0.1"]),
    ("hdls1.testns.svc.cluster.local.", "A", "NOERROR",
     [f"hdls1.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.{i}" for i in (2, 3, 4, 5)], []),
    ("hdlsprtls.testns.svc.cluster.local.", "A", "NOERROR",
     ["hdlsprtls.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.20"], []),
    ("svc1.testns.svc.cluster.local.", "AAAA", "NOERROR", [], []),
    ("svc0.testns.svc.cluster.local.", "AAAA", "NXDOMAIN", [], []),
    ("svc0.testns.svc.cluster.local.", "A", "NXDOMAIN", [], []),
    ("svc0.svc-nons.svc.cluster.local.", "A", "NXDOMAIN", [], []),
    ("bogusendpoint.hdls1.testns.svc.cluster.local.", "A", "NXDOMAIN", [], []),
    ("bogusendpoint.svc0.testns.svc.cluster.local.", "A", "NXDOMAIN", [], []),
    ("svc6.testns.svc.cluster.local.", "AAAA", "NOERROR", ["svc6.testns.svc.cluster.local.\t5\tIN\tAAAA\t1234:abcd::1"],
     []),
    ("_http._tcp.svc6.testns.svc.cluster.local.", "SRV", "NOERROR",
     ["_http._tcp.svc6.testns.svc.cluster.local.\t5\tIN\tSRV\t0 100 80 svc6.testns.svc.cluster.local."],
     ["svc6.testns.svc.cluster.local.\t5\tIN\tAAAA\t1234:abcd::1"]),
    ("hdls1.testns.svc.cluster.local.", "AAAA", "NOERROR",
     ["hdls1.testns.svc.cluster.local.\t5\tIN\tAAAA\t5678:abcd::1",
      "hdls1.testns.svc.cluster.local.\t5\tIN\tAAAA\t5678:abcd::2"], []),
    ("svc.cluster.local.", "A", "NOERROR", [], []),
    ("pod.cluster.local.", "A", "NOERROR", [], []),
    ("testns.svc.cluster.local.", "A", "NOERROR", [], []),
    ("svc-dual-stack.testns.svc.cluster.local.", "A", "NOERROR",
     ["svc-dual-stack.testns.svc.cluster.local.\t5\tIN\tA\t10.0.0.3"], []),
    ("svc-dual-stack.testns.svc.cluster.local.", "AAAA", "NOERROR",
     ["svc-dual-stack.testns.svc.cluster.local.\t5\tIN\tAAAA\t10::3"], []),
    ("svc-dual-stack.testns.svc.cluster.local.", "SRV", "NOERROR",
     ["svc-dual-stack.testns.svc.cluster.local.\t5\tIN\tSRV\t0 50 80 svc-dual-stack.testns.svc.cluster.local."],
     ["svc-dual-stack.testns.svc.cluster.local.\t5\tIN\tA\t10.0.0.3",
      "svc-dual-stack.testns.svc.cluster.local.\t5\tIN\tAAAA\t10::3"]),
    ("endpoint.external.testns.svc.cluster.local.", "CNAME", "NXDOMAIN", [], []),
    ("subdomain.subdomain.external.testns.svc.cluster.local.", "CNAME", "NXDOMAIN", [], []),
    # dnsTestCases
    ("_http._tcp.hdls1.testns.svc.cluster.local.", "SRV", "NOERROR",
     [f"_http._tcp.hdls1.testns.svc.cluster.local.\t5\tIN\tSRV\t0 16 80 {h}.hdls1.testns.svc.cluster.local."
      for h in ("172-0-0-2", "172-0-0-3", "5678-abcd--1", "5678-abcd--2", "dup-name")],
     ["172-0-0-2.hdls1.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.2",
      "172-0-0-3.hdls1.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.3",
      "5678-abcd--1.hdls1.testns.svc.cluster.local.\t5\tIN\tAAAA\t5678:abcd::1",
      "5678-abcd--2.hdls1.testns.svc.cluster.local.\t5\tIN\tAAAA\t5678:abcd::2",
      "dup-name.hdls1.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.4",
      "dup-name.hdls1.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.5"]),
    ("5678-abcd--2.hdls1.testns.svc.cluster.local", "AAAA", "NOERROR",
     ["5678-abcd--2.hdls1.testns.svc.cluster.local.\t5\tIN\tAAAA\t5678:abcd::2"], []),
    ("172-0-0-20.hdlsprtls.testns.svc.cluster.local.", "A", "NOERROR",
     ["172-0-0-20.hdlsprtls.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.20"], []),
    ("172-0-0-2.hdls1.testns.svc.cluster.local.", "A", "NOERROR",
     ["172-0-0-2.hdls1.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.2"], []),
    ("dup-name.hdls1.testns.svc.cluster.local.", "A", "NOERROR",
     ["dup-name.hdls1.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.4",
      "dup-name.hdls1.testns.svc.cluster.local.\t5\tIN\tA\t172.0.0.5"], []),
    ("external.testns.svc.cluster.local.", "CNAME", "NOERROR",
     ["external.testns.svc.cluster.local.\t5\tIN\tCNAME\text.interwebs.test."], []),
    ("external-to-service.testns.svc.cluster.local", "A", "NOERROR",
     ["external-to-service.testns.svc.cluster.local.\t5\tIN\tCNAME\tsvc1.testns.svc.cluster.local.",
      "svc1.testns.svc.cluster.local.\t5\tIN\tA\t10.0.0.1"], []),
]


@pytest.mark.parametrize("qname, qtype, rcode, answer, extra", COREDNS_CASES,
                         ids=[f"{c[1]} {c[0]}" for c in COREDNS_CASES])
def test_coredns_handler_cases(qname, qtype, rcode, answer, extra):
    ans = ClusterDNS(COREDNS_OBJECTS).query(qname, qtype)
    assert ans.rcode == rcode
    assert sorted(str(r) for r in ans.answer) == sorted(answer)
    assert sorted(str(r) for r in ans.extra) == sorted(extra)


def test_coredns_cname_comes_before_its_target():
    ans = ClusterDNS(COREDNS_OBJECTS).query("external-to-service.testns.svc.cluster.local", "A")
    assert [r.rtype for r in ans.answer] == ["CNAME", "A"]


@pytest.mark.parametrize("ip, hostname, expected", [
    ("10.11.12.13", "", "10-11-12-13"),
    ("10.11.12.13", "epname", "epname"),
    ("1234:5678:9abc::def0", "", "1234-5678-9abc--def0"),
    ("1234:5678::", "", "1234-5678--0"),
    ("::", "", "--0"),
])
def test_endpoint_hostname(ip, hostname, expected):
    dns = ClusterDNS([_svc("h", "testns", "None", []), _slice("h", [(ip, hostname)], HTTP)])
    name = f"{expected}.h.testns.svc.cluster.local."
    ans = dns.query(name, "A" if "." in ip else "AAAA")
    assert [r.data for r in ans.answer] == [ip]


def test_endpoint_pod_names_option():
    sl = _slice("h", [("10.0.0.9", None)], HTTP)
    sl["endpoints"][0]["targetRef"] = {"kind": "Pod", "name": "web-0"}
    objs = [_svc("h", "testns", "None", []), sl]
    assert ClusterDNS(objs).query("10-0-0-9.h.testns.svc.cluster.local", "A").answer
    assert ClusterDNS(objs, endpoint_pod_names=True).query("web-0.h.testns.svc.cluster.local", "A").answer


@pytest.mark.parametrize("qname, rcode", [
    ("_http._tcp.webs.mynamespace.svc.inter.webs.tests.", "NOERROR"),  # parses: port/proto/service/ns
    ("webs.mynamespace.svc.inter.webs.tests.", "NOERROR"),
    ("too.long.for.what.I.am.trying.to.pod.inter.webs.tests.", "NXDOMAIN"),
    ("webs.mynamespace.pood.inter.webs.test.", "FORWARDED"),  # wrong zone
    ("webs.mynamespace.pood.inter.webs.tests.", "NXDOMAIN"),  # neither svc nor pod
])
def test_parse_request(qname, rcode):
    dns = ClusterDNS([_svc("webs", "mynamespace", "10.9.9.9", HTTP)], cluster_domain="inter.webs.tests")
    ans = dns.query(qname, "A")
    assert ans.rcode == rcode
    if qname.startswith("_http") or qname.startswith("webs.mynamespace.svc"):
        assert [r.data for r in ans.answer] == ["10.9.9.9"]


def _pod(name, ns, ip, labels=None, ready=True, **spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}",
                                                            "labels": labels or {}},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "ports": [{"containerPort": 8080,
                                                                               "name": "http"}]}], **spec},
            "status": {"phase": "Running", "podIP": ip,
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def test_pod_records_by_mode():
    objs = [_pod("foo", "podns", "10.240.0.1")]
    # insecure (kubeadm's Corefile): any well-formed dashed IP answers
    assert [r.data for r in ClusterDNS(objs).query("10-240-0-9.podns.pod.cluster.local", "A").answer] == ["10.240.0.9"]
    assert ClusterDNS(objs).query("not-an-ip.podns.pod.cluster.local", "A").rcode == "NXDOMAIN"
    # verified: only an existing pod with that IP in that namespace
    verified = ClusterDNS(objs, pod_mode="verified")
    assert [r.data for r in verified.query("10-240-0-1.podns.pod.cluster.local", "A").answer] == ["10.240.0.1"]
    assert verified.query("10-240-0-9.podns.pod.cluster.local", "A").rcode == "NXDOMAIN"
    assert ClusterDNS(objs, pod_mode="disabled").query("10-240-0-1.podns.pod.cluster.local", "A").rcode == "NXDOMAIN"


def test_headless_from_pods_ready_only_and_hostname_subdomain():
    objs = [
        {"kind": "Service", "metadata": {"name": "db", "namespace": "data"},
         "spec": {"clusterIP": "None", "selector": {"app": "db"},
                  "ports": [{"name": "pg", "port": 5432, "targetPort": 5432, "protocol": "TCP"}]}},
        _pod("db-0", "data", "10.244.1.10", {"app": "db"}, hostname="db-0", subdomain="db"),
        _pod("db-1", "data", "10.244.2.11", {"app": "db"}, hostname="db-1", subdomain="db"),
        _pod("db-2", "data", "10.244.3.12", {"app": "db"}, ready=False, hostname="db-2", subdomain="db"),
    ]
    assert ClusterDNS(objs).query("db.data.svc.cluster.local", "A").answer == ()  # CoreDNS reads slices only
    dns = ClusterDNS(add_endpoint_slices(objs))  # the slices the EndpointSlice controller would write
    assert sorted(r.data for r in dns.query("db.data.svc.cluster.local", "A").answer) == ["10.244.1.10", "10.244.2.11"]
    assert [r.data for r in dns.query("db-0.db.data.svc.cluster.local", "A").answer] == ["10.244.1.10"]
    assert dns.query("db-2.db.data.svc.cluster.local", "A").rcode == "NXDOMAIN"  # not ready: not published
    srv = dns.query("_pg._tcp.db.data.svc.cluster.local", "SRV")
    assert sorted(r.data for r in srv.answer) == ["0 50 5432 db-0.db.data.svc.cluster.local.",
                                                  "0 50 5432 db-1.db.data.svc.cluster.local."]
    names = {r.name for r in dns.records()}
    assert {"db.data.svc.cluster.local.", "_pg._tcp.db.data.svc.cluster.local.",
            "db-0.db.data.svc.cluster.local.", "10-244-1-10.data.pod.cluster.local."} <= names
    # three ready replicas: weight floor(100/3)
    objs[3]["status"]["conditions"][0]["status"] = "True"
    srv3 = ClusterDNS(add_endpoint_slices(objs)).query("_pg._tcp.db.data.svc.cluster.local", "SRV")
    assert {r.data.split()[1] for r in srv3.answer} == {"33"} and len(srv3.answer) == 3


def test_resolve_follows_the_search_path():
    dns = ClusterDNS([_svc("web", "shop", "10.96.7.7", HTTP), _svc("db", "data", "10.96.0.42", HTTP)])
    asked = [a.qname for a in dns.resolution("web", "shop")]
    assert asked == ["web.shop.svc.cluster.local."]
    steps = dns.resolution("db.data", "shop")
    assert [(a.qname, a.rcode) for a in steps] == [("db.data.shop.svc.cluster.local.", "NXDOMAIN"),
                                                    ("db.data.svc.cluster.local.", "NOERROR")]
    assert [r.data for r in dns.resolve("db.data", "shop")] == ["10.96.0.42"]
    ext = dns.resolution("example.com", "shop")
    assert [a.rcode for a in ext] == ["NXDOMAIN", "NXDOMAIN", "NXDOMAIN", "FORWARDED"]
    assert dns.resolve("web", "other") == []


def test_bad_pod_mode():
    with pytest.raises(ValueError, match="pod_mode"):
        ClusterDNS([], pod_mode="sometimes")
