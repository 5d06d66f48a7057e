"""Service defaults and ClusterIP / NodePort allocation (kubenotes.apiserver.ipallocator).

Cases follow upstream's pkg/registry/core/service/ipallocator/ipallocator_test.go
(TestCalculateRangeOffset, TestAllocateNextServiceIPs: the upper band first, then the lower band, then full),
portallocator's TestCalculateRangeOffset, and storage_test.go's TestServiceRegistryUpdate... (an update that
omits the ClusterIP keeps it: patchAllocatedValues).
"""

from __future__ import annotations

import ipaddress
import random

import pytest

from kubenotes.apiserver.ipallocator import (allocate_cluster_ip, allocate_node_port, ip_range_offset,
                                             port_range_offset)
from kubenotes.apiserver.server import APIServer


@pytest.mark.parametrize("cidr,offset", [("192.168.1.0/24", 16), ("192.168.1.0/28", 0), ("192.168.1.0/27", 16),
                                          ("10.96.0.0/16", 256), ("10.96.0.0/20", 256), ("10.96.0.0/22", 64)])
def test_ip_range_offset(cidr, offset):
    assert ip_range_offset(cidr) == offset


@pytest.mark.parametrize("low,high,offset", [(30000, 32767, 86), (30000, 30015, 0), (30000, 30127, 16),
                                              (1, 65535, 128)])
def test_port_range_offset(low, high, offset):
    assert port_range_offset(low, high) == offset


def test_upper_band_first_then_lower_band_then_full():
    cidr = "10.0.0.0/24"  # 254 usable addresses, offset 16: .17-.254 first, then .1-.16
    rng = random.Random(3)
    used: list[str] = []
    for _ in range(254 - 16):
        used.append(allocate_cluster_ip(used, rng, cidr))
    assert len(set(used)) == len(used)
    assert all(17 <= int(ip.rsplit(".", 1)[1]) <= 254 for ip in used)
    for _ in range(16):
        used.append(allocate_cluster_ip(used, rng, cidr))
    assert sorted(int(ip.rsplit(".", 1)[1]) for ip in used) == list(range(1, 255))
    assert allocate_cluster_ip(used, rng, cidr) is None
    ports = [allocate_node_port(set(), random.Random(i)) for i in range(50)]
    assert all(30086 <= p <= 32767 for p in ports)


def _svc(name, **spec):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": name}, "ports": [{"port": 80}], **spec}}


def test_service_create_defaults_allocates_and_update_keeps_allocations():
    api = APIServer(seed=1)
    c = api.client("kubectl")
    a = c.create("services", _svc("a"), "default")
    spec = a["spec"]
    assert (spec["type"], spec["sessionAffinity"], spec["internalTrafficPolicy"]) == ("ClusterIP", "None", "Cluster")
    assert spec["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert ipaddress.ip_address(spec["clusterIP"]) in ipaddress.ip_network("10.96.0.0/12")
    assert spec["clusterIPs"] == [spec["clusterIP"]] and spec["ipFamilies"] == ["IPv4"]
    headless = c.create("services", _svc("h", clusterIP="None"), "default")
    assert headless["spec"]["clusterIP"] == "None"
    np = c.create("services", _svc("n", type="NodePort"), "default")
    assert np["spec"]["externalTrafficPolicy"] == "Cluster" and 30000 <= np["spec"]["ports"][0]["nodePort"] <= 32767
    # a replace without the allocated values keeps them
    body = _svc("n", type="NodePort")
    body["metadata"]["resourceVersion"] = np["metadata"]["resourceVersion"]
    again = c.update("services", body, "default")
    assert again["spec"]["clusterIP"] == np["spec"]["clusterIP"]
    assert again["spec"]["ports"][0]["nodePort"] == np["spec"]["ports"][0]["nodePort"]
    ips = {s["spec"]["clusterIP"] for s in c.list("services", "default")["items"]}
    assert len(ips) == 3  # no address handed out twice


@pytest.mark.parametrize("spec, field, message", [
    ({"clusterIP": "192.168.1.1"}, "spec.clusterIPs",
     'Invalid value: []string{"192.168.1.1"}: failed to allocate IP 192.168.1.1: provided IP is not in the valid '
     'range. The range of valid IPs is 10.96.0.0/12'),
    ({"clusterIP": "10.96.0.9"}, "spec.clusterIPs",
     'Invalid value: []string{"10.96.0.9"}: failed to allocate IP 10.96.0.9: provided IP is already allocated'),
    ({"type": "NodePort", "ports": [{"port": 80, "nodePort": 8080}]}, "spec.ports[0].nodePort",
     "Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767"),
    ({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]}, "spec.ports[0].nodePort",
     "Invalid value: 30080: provided port is already allocated"),
])
def test_requested_addresses_and_ports_out_of_range_or_taken_are_422(spec, field, message):
    """The allocators' errors (ipallocator ``ErrNotInRange``/``ErrAllocated``, portallocator's), as
    ``kubectl create`` shows them: ``The Service "x" is invalid: <field>: <message>``."""
    from kubenotes.apiserver.status import ApiError

    api = APIServer(seed=1)
    c = api.client("kubectl")
    c.create("services", _svc("taken", clusterIP="10.96.0.9", type="NodePort",
                              ports=[{"port": 80, "nodePort": 30080}]), "default")
    with pytest.raises(ApiError) as err:
        c.create("services", _svc("x", **spec), "default")
    e = err.value
    assert (e.code, e.reason) == (422, "Invalid")
    assert str(e) == f'Service "x" is invalid: {field}: {message}'
    assert e.status["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": field, "message": message}]
    assert [s["metadata"]["name"] for s in c.list("services", "default")["items"]] == ["taken"]  # nothing written
