"""IPAddress objects of Services' ClusterIPs (MultiCIDRServiceAllocator, GA and locked on in v1.33).

Cases follow upstream's pkg/registry/core/service/ipallocator/ipallocator_test.go (an allocated address is an
IPAddress with the family and managed-by labels and a parentRef to its Service; an address whose IPAddress
exists is ErrAllocated; Release deletes it) and pkg/registry/core/service/storage/storage_test.go (a create
that fails after allocation releases what it allocated; dry run allocates nothing; delete releases).
"""

from __future__ import annotations

import random

import pytest

from kubenotes.apiserver.ipallocator import (CONTROLLER_NAME, LABEL_IP_ADDRESS_FAMILY, LABEL_MANAGED_BY,
                                             allocate_service)
from kubenotes.apiserver.load import create_objects, objects_with_locations, start_api_server
from kubenotes.apiserver.status import ApiError


def _svc(name, **spec):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": name}, "ports": [{"port": 80}], **spec}}


def _ips(api):
    return {a["metadata"]["name"]: a for a in api.list("ipaddresses")}


@pytest.fixture
def api():
    return start_api_server(seed=3)


def test_bootstrap_kubernetes_service_holds_its_ipaddress(api):
    a = _ips(api)["10.96.0.1"]
    assert a["apiVersion"] == "networking.k8s.io/v1" and a["kind"] == "IPAddress"
    assert a["metadata"]["labels"] == {LABEL_IP_ADDRESS_FAMILY: "IPv4", LABEL_MANAGED_BY: CONTROLLER_NAME}
    assert a["metadata"]["labels"] == {"ipaddress.kubernetes.io/ip-family": "IPv4",
                                       "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}
    assert a["spec"] == {"parentRef": {"resource": "services", "namespace": "default", "name": "kubernetes"}}
    # created by kube-apiserver's loopback client, just before the Service it belongs to
    writes = [(e.component, e.verb, e.kind, e.name) for e in api.audit_log]
    i = writes.index(("kube-apiserver", "create", "IPAddress", "10.96.0.1"))
    assert writes[i + 1][2:] == ("Service", "kubernetes")


def test_create_allocates_and_delete_releases(api):
    c = api.client("kubectl")
    web = c.create("services", _svc("web"), "default")
    ip = web["spec"]["clusterIP"]
    ipaddr = _ips(api)[ip]
    assert ipaddr["spec"]["parentRef"] == {"resource": "services", "namespace": "default", "name": "web"}
    assert int(ipaddr["metadata"]["resourceVersion"]) < int(web["metadata"]["resourceVersion"])
    headless = c.create("services", _svc("db", clusterIP="None"), "default")
    external = c.create("services", {"metadata": {"name": "ext"}, "spec": {"type": "ExternalName",
                                                                          "externalName": "example.com"}}, "default")
    assert headless["spec"]["clusterIP"] == "None" and "clusterIP" not in external["spec"]
    assert set(_ips(api)) == {"10.96.0.1", ip}  # nothing allocated, nothing held
    c.delete("services", "web", "default")
    assert set(_ips(api)) == {"10.96.0.1"}
    assert [(e.component, e.verb, e.kind, e.name) for e in api.audit_log[-2:]] == [
        ("kubectl", "delete", "Service", "web"), ("kube-apiserver", "delete", "IPAddress", ip)]


def test_release_waits_for_the_finalizers(api):
    c = api.client("kubectl")
    svc = _svc("lb", type="LoadBalancer")
    svc["metadata"]["finalizers"] = ["service.kubernetes.io/load-balancer-cleanup"]
    ip = c.create("services", svc, "default")["spec"]["clusterIP"]
    c.delete("services", "lb", "default")
    assert ip in _ips(api)  # still a Service (deletionTimestamp set): still its address
    c.patch("services", "lb", {"metadata": {"finalizers": None}}, "default")
    assert api.get("services", "default", "lb") is None and ip not in _ips(api)


def test_an_address_an_ipaddress_holds_is_refused_and_skipped(api):
    c = api.client("kubectl")
    c.create("ipaddresses", {"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
                             "metadata": {"name": "10.96.0.50"},
                             "spec": {"parentRef": {"resource": "gateways", "group": "gateway.networking.k8s.io",
                                                    "namespace": "default", "name": "gw"}}})
    with pytest.raises(ApiError) as e:
        c.create("services", _svc("web", clusterIP="10.96.0.50"), "default")
    assert e.value.code == 422
    assert str(e.value) == ('Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.50"}: '
                            "failed to allocate IP 10.96.0.50: provided IP is already allocated")
    with pytest.raises(ApiError, match="failed to allocate IP 10.96.0.1: provided IP is already allocated"):
        c.create("services", _svc("web", clusterIP="10.96.0.1"), "default")
    assert api.get("services", "default", "web") is None
    assert _ips(api)["10.96.0.50"]["spec"]["parentRef"]["name"] == "gw"  # untouched
    # dynamic allocation: a /28 has 14 addresses and no lower band; 13 held by IPAddresses leave one
    held = [f"10.0.0.{i}" for i in range(1, 15) if i != 9]
    svc = _svc("x")
    allocate_service(svc, [], random.Random(0), cidr="10.0.0.0/28", held=held)
    assert svc["spec"]["clusterIP"] == "10.0.0.9"


def test_a_create_refused_after_allocation_releases_the_address(api):
    c = api.client("kubectl")
    c.create("services", _svc("web"), "default")
    before = set(_ips(api))
    n = len(api.audit_log)
    with pytest.raises(ApiError) as e:  # AlreadyExists: storage refuses it after the allocation
        c.create("services", _svc("web"), "default")
    assert e.value.code == 409
    with pytest.raises(ApiError) as e:  # validation runs after the allocation too
        c.create("services", _svc("bad", ports=[{"port": 80, "name": "Not_A_Name"}]), "default")
    assert e.value.code == 422
    assert set(_ips(api)) == before
    writes = [(e.verb, e.kind) for e in api.audit_log[n:]]
    assert writes == [("create", "IPAddress"), ("delete", "IPAddress")] * 2  # allocated, then reverted


def test_dry_run_creates_no_ipaddress(api):
    c = api.client("kubectl")
    out = c.create("services", _svc("web"), "default", dry_run=True)
    assert out["spec"]["clusterIP"] and set(_ips(api)) == {"10.96.0.1"}


def test_loopback_request_is_traced_apart(api):
    trace = api.trace_requests()
    api.client("kubectl").create("services", _svc("web"), "default")
    api.trace_requests(False)
    assert [(r["user"], r["verb"], r["resource"], r["name"]) for r in trace] == [
        ("kubernetes-admin", "create", "services", "web"),
        ("system:apiserver", "create", "ipaddresses", api.get("services", "default", "web")["spec"]["clusterIP"])]
    assert not any("ipaddresses" in s["detail"] for s in trace[0]["steps"])


def test_a_dump_is_restored_with_its_ipaddresses(api):
    c = api.client("kubectl")
    c.create("services", _svc("web"), "default")
    dump = [o for o in api.list("services") + api.list("ipaddresses")]
    fresh = start_api_server(seed=4)
    create_objects(fresh, fresh.client("kubectl"), objects_with_locations(dump))
    assert {n: (a["metadata"]["uid"], a["spec"]) for n, a in _ips(fresh).items() if n != "10.96.0.1"} == \
        {n: (a["metadata"]["uid"], a["spec"]) for n, a in _ips(api).items() if n != "10.96.0.1"}
    # a dump without IPAddresses: each restored Service's address gets one
    fresh = start_api_server(seed=4)
    create_objects(fresh, fresh.client("kubectl"), objects_with_locations(api.list("services")))
    assert set(_ips(fresh)) == set(_ips(api))


class _RefusingClient:
    """A loopback client whose IPAddress creates admission refuses after ``allow`` of them."""

    def __init__(self, allow):
        self.allow, self.created, self.deleted = allow, [], []
        self.server = start_api_server(seed=5)

    def create(self, resource, obj):
        from kubenotes.apiserver.status import new_forbidden

        if len(self.created) >= self.allow:
            raise new_forbidden("networking.k8s.io", resource, obj["metadata"]["name"], "denied by a webhook")
        self.created.append(obj["metadata"]["name"])
        return obj

    def delete(self, resource, name):
        self.deleted.append(name)


def test_an_ipaddress_the_request_path_refuses_fails_the_service():
    from kubenotes.apiserver.ipallocator import create_ip_addresses

    svc = {"metadata": {"name": "web", "namespace": "default"},
           "spec": {"clusterIP": "10.96.0.60", "clusterIPs": ["10.96.0.60"]}}
    lo = _RefusingClient(0)
    with pytest.raises(ApiError) as e:  # a requested address: 422, as allocIPs' static branch
        create_ip_addresses(lo, svc, requested=["10.96.0.60"])
    assert e.value.code == 422 and str(e.value).startswith(
        'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.60"}: failed to allocate IP '
        '10.96.0.60: ipaddresses.networking.k8s.io "10.96.0.60" is forbidden')
    with pytest.raises(ApiError) as e:  # an address the allocator chose: 500
        create_ip_addresses(lo, svc)
    assert e.value.code == 500 and str(e.value).startswith(
        "Internal error occurred: failed to allocate a serviceIP: ipaddresses.networking.k8s.io")
    # two addresses, the second refused: the first is released before the error
    svc["spec"]["clusterIPs"] = ["10.96.0.60", "10.96.0.61"]
    lo = _RefusingClient(1)
    with pytest.raises(ApiError):
        create_ip_addresses(lo, svc)
    assert lo.created == lo.deleted == ["10.96.0.60"]
