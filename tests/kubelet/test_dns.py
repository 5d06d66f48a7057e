"""The pod's DNS configuration (kubenotes.kubelet.dns).

``test_pod_dns_cluster_first`` follows kubernetes/kubernetes@v1.34.0
pkg/kubelet/network/dns/dns_test.go ``TestGetPodDNS`` / ``TestGetPodDNSCustom``
(policies, hostNetwork fallback, dnsConfig merge).
"""

from __future__ import annotations

import pytest

from kubenotes.kubelet.dns import DNSConfig, pod_dns_config, resolv_conf, search_names


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
