"""Service discovery (kubenotes.dns.coredns): CoreDNS answers.

The kubelet's Service env vars and the pod's resolv.conf are tested in
tests/kubelet/test_envvars.py and tests/kubelet/test_dns.py.

Ported cases:

* ``COREDNS_CASES`` are coredns/coredns plugin/kubernetes/handler_test.go
  ``dnsTestCases`` / ``commonDnsTestCases`` with its ``APIConnServeTest``
  services and endpoints rebuilt as Service and EndpointSlice objects
  (compared order-insensitively, as its ``test.SortAndCheck`` does).
* ``test_endpoint_hostname`` is plugin/kubernetes/kubernetes_test.go
  ``TestEndpointHostname``; ``test_parse_request`` follows parse_test.go
  ``TestParseRequest`` / ``TestParseInvalidRequest``.
"""

from __future__ import annotations

import pytest

from kubenotes.dns.coredns import ClusterDNS
from kubenotes.sim.network import add_endpoint_slices


def _svc(name, ns="default", cluster_ip="10.96.0.5", ports=None, **spec):
    s = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
         "spec": {"clusterIP": cluster_ip, "ports": ports if ports is not None else [{"port": 80, "protocol": "TCP"}],
                  **spec}}
    if cluster_ip and cluster_ip != "None" and "clusterIPs" not in spec:
        s["spec"]["clusterIPs"] = [cluster_ip]
    return s


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
