"""Tests of kubenotes.proxy.userspace: LoadBalancerRR and the userspace proxier's iptables portals.

Ported from kubernetes/kubernetes@v1.25.16 ``pkg/proxy/userspace/roundrobin_test.go``:
TestLoadBalanceFailsWithNoEndpoints, TestLoadBalanceWorksWithSingleEndpoint,
TestLoadBalanceWorksWithMultipleEndpoints, TestLoadBalanceWorksWithMultipleEndpointsMultiplePorts,
TestLoadBalanceWorksWithMultipleEndpointsAndUpdates, TestStickyLoadBalanceWorksWithNewServiceCalledFirst,
TestStickyLoadBalanceWorksWithMultipleEndpoints, TestStickyLoadBalanceWorksWithMultipleEndpointsStickyNone,
TestStickyLoadBalanceWorksWithMultipleEndpointsRemoveOne, TestStickyLoadBalanceWorksWithMultipleEndpointsAndUpdates
(with the simulated clock standing in for ``time.Now()``), and the portal rules of
``pkg/proxy/userspace/proxier.go`` (openOnePortal / openNodePort / iptablesInit), checked with
the real ``iptables-restore --test`` (fixture ``iptables_restore``).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest

from kubenotes.proxy import proxy_state
from kubenotes.proxy.endpoints import ServicePortName
from kubenotes.proxy.userspace import (
    ERR_MISSING_ENDPOINTS,
    ERR_MISSING_SERVICE_ENTRY,
    LoadBalancerError,
    LoadBalancerRR,
    load_balancer_for,
    userspace_iptables_save,
    userspace_services,
)

IPTABLES_RESTORE = "/usr/sbin/iptables-restore"
SVC = ServicePortName("testnamespace", "foo", "p")


@pytest.fixture(scope="module")
def iptables_restore():
    """The real iptables-restore: required in CI, skipped elsewhere when missing."""
    path = IPTABLES_RESTORE if os.path.exists(IPTABLES_RESTORE) else shutil.which("iptables-restore")
    if not path:
        if os.environ.get("CI"):
            pytest.fail("iptables-restore is not installed but CI is set: install the iptables package")
        pytest.skip("iptables-restore (package iptables) is not installed")
    return path


# ---------------------------------------------------------------------------
# LoadBalancerRR (roundrobin_test.go)


def test_fails_with_no_endpoints():
    lb = LoadBalancerRR()
    with pytest.raises(LoadBalancerError, match=ERR_MISSING_SERVICE_ENTRY):
        lb.next_endpoint(SVC, "10.0.0.1:1")
    lb.new_service(SVC)
    with pytest.raises(LoadBalancerError, match=ERR_MISSING_ENDPOINTS):
        lb.next_endpoint(SVC, "10.0.0.1:1")
    assert not lb.service_has_endpoints(SVC)


def test_single_endpoint():
    lb = LoadBalancerRR()
    lb.set_endpoints(SVC, ["endpoint1:40"])
    assert [lb.next_endpoint(SVC, "10.0.0.1:1") for _ in range(4)] == ["endpoint1:40"] * 4


def test_multiple_endpoints_round_robin_in_shuffled_order():
    lb = LoadBalancerRR(random.Random(3))
    lb.set_endpoints(SVC, ["endpoint:1", "endpoint:2", "endpoint:3"])
    order = lb.endpoints(SVC)
    assert sorted(order) == ["endpoint:1", "endpoint:2", "endpoint:3"]
    got = [lb.next_endpoint(SVC, "10.0.0.1:1") for _ in range(4)]
    assert got == [order[0], order[1], order[2], order[0]]


def test_multiple_ports_are_independent():
    lb = LoadBalancerRR()
    p, q = ServicePortName("testnamespace", "foo", "p"), ServicePortName("testnamespace", "foo", "q")
    lb.set_endpoints(p, ["endpoint1:1", "endpoint2:2", "endpoint3:3"])
    lb.set_endpoints(q, ["endpoint1:4", "endpoint2:5", "endpoint3:6"])
    assert [lb.next_endpoint(p, "1.1.1.1:1") for _ in range(3)] == lb.endpoints(p)
    assert [lb.next_endpoint(q, "1.1.1.1:1") for _ in range(3)] == lb.endpoints(q)


def test_update_resets_index_and_same_set_does_not():
    lb = LoadBalancerRR()
    lb.set_endpoints(SVC, ["endpoint:1", "endpoint:2", "endpoint:3"])
    first = lb.next_endpoint(SVC, "1.1.1.1:1")
    lb.set_endpoints(SVC, ["endpoint:3", "endpoint:2", "endpoint:1"])  # same set: nothing changes
    assert lb.next_endpoint(SVC, "1.1.1.1:1") == lb.endpoints(SVC)[1] and first == lb.endpoints(SVC)[0]
    lb.set_endpoints(SVC, ["endpoint:8", "endpoint:9"])
    assert lb.next_endpoint(SVC, "1.1.1.1:1") == lb.endpoints(SVC)[0]
    lb.remove_endpoints(SVC)
    with pytest.raises(LoadBalancerError, match=ERR_MISSING_ENDPOINTS):
        lb.next_endpoint(SVC, "1.1.1.1:1")


def test_sticky_with_new_service_called_first():
    lb = LoadBalancerRR()
    lb.new_service(SVC, "ClientIP", 0)
    lb.set_endpoints(SVC, ["endpoint:1", "endpoint:2"])
    a = lb.next_endpoint(SVC, "10.0.0.1:0")
    b = lb.next_endpoint(SVC, "10.0.0.2:0")
    assert a != b
    assert [lb.next_endpoint(SVC, "10.0.0.1:0") for _ in range(3)] == [a, a, a]
    assert lb.next_endpoint(SVC, "10.0.0.2:999") == b  # the source port does not matter


def test_sticky_multiple_endpoints_clients_spread_round_robin():
    lb = LoadBalancerRR()
    lb.new_service(SVC, "ClientIP", 0)
    lb.set_endpoints(SVC, ["endpoint:1", "endpoint:2", "endpoint:3"])
    order = lb.endpoints(SVC)
    clients = ["10.0.0.1:0", "10.0.0.2:0", "10.0.0.3:0"]
    assert [lb.next_endpoint(SVC, c) for c in clients] == order
    assert [lb.next_endpoint(SVC, c) for c in clients] == order


def test_sticky_none_is_plain_round_robin():
    lb = LoadBalancerRR()
    lb.new_service(SVC, "None", 0)
    lb.set_endpoints(SVC, ["endpoint:1", "endpoint:2", "endpoint:3"])
    order = lb.endpoints(SVC)
    assert [lb.next_endpoint(SVC, "10.0.0.1:0") for _ in range(3)] == order


def test_sticky_remove_one_endpoint_forgets_its_clients():
    lb = LoadBalancerRR()
    lb.new_service(SVC, "ClientIP", 0)
    lb.set_endpoints(SVC, ["endpoint:1", "endpoint:2", "endpoint:3"])
    clients = ["10.0.0.1:0", "10.0.0.2:0", "10.0.0.3:0"]
    chosen = {c: lb.next_endpoint(SVC, c) for c in clients}
    victim = chosen["10.0.0.2:0"]
    lb.set_endpoints(SVC, [e for e in ["endpoint:1", "endpoint:2", "endpoint:3"] if e != victim])
    for c in ("10.0.0.1:0", "10.0.0.3:0"):
        assert lb.next_endpoint(SVC, c) == chosen[c]
    assert lb.next_endpoint(SVC, "10.0.0.2:0") != victim


def test_sticky_timeout_and_cleanup():
    lb = LoadBalancerRR()
    lb.new_service(SVC, "ClientIP", 10)
    lb.set_endpoints(SVC, ["endpoint:1", "endpoint:2"])
    a = lb.next_endpoint(SVC, "10.0.0.1:0", now_seconds=0)
    assert lb.next_endpoint(SVC, "10.0.0.1:0", now_seconds=9) == a  # refreshes last-used
    assert lb.next_endpoint(SVC, "10.0.0.1:0", now_seconds=18) == a
    assert lb.next_endpoint(SVC, "10.0.0.1:0", now_seconds=28) != a  # idle 10 s: affinity expired
    lb.cleanup_stale_sticky_sessions(SVC, now_seconds=100)
    assert lb.services[SVC].affinity_map == {}


def test_session_affinity_reset_picks_next():
    lb = LoadBalancerRR()
    lb.new_service(SVC, "ClientIP", 0)
    lb.set_endpoints(SVC, ["endpoint:1", "endpoint:2"])
    a = lb.next_endpoint(SVC, "10.0.0.1:0")
    assert lb.next_endpoint(SVC, "10.0.0.1:0", session_affinity_reset=True) != a


# ---------------------------------------------------------------------------
# The proxier's portals


def _objs():
    return [
        {"kind": "Node", "metadata": {"name": "n1"},
         "status": {"addresses": [{"type": "InternalIP", "address": "192.168.0.2"}]}},
        {"kind": "Service", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"type": "NodePort", "clusterIP": "10.0.0.10", "externalIPs": ["203.0.113.9"],
                  "sessionAffinity": "ClientIP", "ports": [{"name": "http", "port": 80, "protocol": "TCP",
                                                            "nodePort": 30080, "targetPort": 8080}]}},
        {"kind": "Service", "metadata": {"name": "dns", "namespace": "kube-system"},
         "spec": {"clusterIP": "10.0.0.53", "ports": [{"name": "dns", "port": 53, "protocol": "UDP"}]}},
        {"kind": "EndpointSlice", "metadata": {"name": "web-1", "namespace": "default",
                                               "labels": {"kubernetes.io/service-name": "web"}},
         "endpoints": [{"addresses": ["10.244.1.5"]}, {"addresses": ["10.244.2.6"], "conditions": {"ready": False}}],
         "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]},
    ]


def test_proxy_ports_are_distinct_ephemeral_and_seeded():
    st = proxy_state(_objs(), "n1")
    a = userspace_services(st, seed=1)
    b = userspace_services(st, seed=1)
    assert a == b
    ports = [s.proxy_port for s in a.values()]
    assert len(set(ports)) == len(ports) and all(32768 <= p <= 60999 for p in ports)
    web = a[ServicePortName("default", "web", "http")]
    assert web.session_affinity_type == "ClientIP" and web.sticky_max_age_seconds == 10800


def test_portal_rules():
    st = proxy_state(_objs(), "n1")
    pp = userspace_services(st)[ServicePortName("default", "web", "http")].proxy_port
    text = userspace_iptables_save(st)
    web = [line for line in text.splitlines() if '"default/web:http"' in line]
    assert web == [
        f'-A KUBE-PORTALS-CONTAINER -d 10.0.0.10/32 -p tcp -m comment --comment "default/web:http" -m tcp '
        f"--dport 80 -j REDIRECT --to-ports {pp}",
        f'-A KUBE-PORTALS-CONTAINER -d 203.0.113.9/32 -p tcp -m comment --comment "default/web:http" -m tcp '
        f"--dport 80 -m physdev ! --physdev-is-in -j REDIRECT --to-ports {pp}",
        f'-A KUBE-PORTALS-CONTAINER -d 203.0.113.9/32 -p tcp -m comment --comment "default/web:http" -m tcp '
        f"--dport 80 -m addrtype --dst-type LOCAL -j REDIRECT --to-ports {pp}",
        f'-A KUBE-PORTALS-HOST -d 10.0.0.10/32 -p tcp -m comment --comment "default/web:http" -m tcp '
        f"--dport 80 -j DNAT --to-destination 192.168.0.2:{pp}",
        f'-A KUBE-PORTALS-HOST -d 203.0.113.9/32 -p tcp -m comment --comment "default/web:http" -m tcp '
        f"--dport 80 -m addrtype --dst-type LOCAL -j DNAT --to-destination 192.168.0.2:{pp}",
        f'-A KUBE-NODEPORT-CONTAINER -p tcp -m comment --comment "default/web:http" -m tcp --dport 30080 '
        f"-j REDIRECT --to-ports {pp}",
        f'-A KUBE-NODEPORT-HOST -p tcp -m comment --comment "default/web:http" -m tcp --dport 30080 '
        f"-j DNAT --to-destination 192.168.0.2:{pp}",
        f'-A KUBE-NODEPORT-NON-LOCAL -p tcp -m comment --comment "default/web:http" -m tcp --dport {pp} '
        f"-m state --state NEW -j ACCEPT",
    ]
    assert "-m udp --dport 53 -j REDIRECT" in text


def test_specific_listen_ip_uses_dnat():
    text = userspace_iptables_save(proxy_state(_objs(), "n1"), listen_ip="192.168.0.2")
    assert "REDIRECT" not in text and "-j DNAT --to-destination 192.168.0.2:" in text


def test_rules_pass_iptables_restore(iptables_restore, tmp_path):
    text = userspace_iptables_save(proxy_state(_objs(), "n1"))
    r = subprocess.run([iptables_restore, "--test"], input=text, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_load_balancer_for_state_uses_ready_endpoints():
    lb = load_balancer_for(proxy_state(_objs(), "n1"))
    web = ServicePortName("default", "web", "http")
    assert lb.endpoints(web) == ["10.244.1.5:8080"]
    assert lb.services[web].affinity_type == "ClientIP"
    assert lb.next_endpoint(web, "10.244.3.3:5000") == "10.244.1.5:8080"
