"""The network side of a dump (:mod:`kubenotes.sim.network`): completing it as the control plane would.

kube-proxy and CoreDNS read Services, EndpointSlices and Nodes only; the EndpointSlices a plain dump
lacks, and the cluster IPs and node ports a hand-written Service lacks, come from the EndpointSlice
controller's and the API server's allocators' code, run here before the components read the objects.
"""

from __future__ import annotations

from kubenotes.api.service import LABEL_SERVICE_NAME
from kubenotes.controllers.endpointslice import LABEL_MANAGED_BY, desired_endpoints
from kubenotes.proxy import ServicePortName, proxy_state
from kubenotes.sim.network import KUBE_PROXY_KINDS, add_endpoint_slices, allocate_service_ips, kube_proxy_objects


def _node(name="n1", zone=None):
    labels = {"topology.kubernetes.io/zone": zone} if zone else {}
    return {"kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"addresses": [{"type": "InternalIP", "address": "192.168.0.2"}]}}


def _svc(name, ns="ns1", **spec):
    spec.setdefault("ports", [{"name": "p80", "port": 80, "targetPort": 8080, "protocol": "TCP"}])
    return {"kind": "Service", "metadata": {"name": name, "namespace": ns}, "spec": {"type": "ClusterIP", **spec}}


def _pod(name, ip, ns="ns1", labels=None, node="n1", ready=True):
    return {"kind": "Pod", "metadata": {"name": name, "namespace": ns, "labels": labels or {"app": "web"}},
            "spec": {"nodeName": node, "containers": [{"name": "c"}]},
            "status": {"phase": "Running", "podIP": ip,
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def test_slices_are_the_controllers_desired_endpoints():
    svc = _svc("web", selector={"app": "web"})
    pods = [_pod("web-2", "10.244.0.6", node="n2"), _pod("web-1", "10.244.0.5"),
            _pod("db", "10.244.0.9", labels={"app": "db"}), _pod("web-x", "10.244.0.7", ns="other")]
    objs = [_node(zone="zone-a"), _node("n2"), svc, *pods]
    out = add_endpoint_slices(objs)
    assert out[:len(objs)] == objs
    (sl,) = out[len(objs):]
    (ports, eps), = desired_endpoints(svc, [pods[1], pods[0]], {"n1": "zone-a"}).values()
    assert sl["endpoints"] == eps and sl["ports"] == ports and sl["addressType"] == "IPv4"
    assert sl["metadata"]["namespace"] == "ns1" and sl["metadata"]["labels"][LABEL_SERVICE_NAME] == "web"
    assert LABEL_MANAGED_BY in sl["metadata"]["labels"]
    assert [e["addresses"] for e in sl["endpoints"]] == [["10.244.0.5"], ["10.244.0.6"]]
    assert sl["endpoints"][0]["zone"] == "zone-a" and "zone" not in sl["endpoints"][1]


def test_no_slices_for_services_that_have_them_or_no_selector():
    given = {"kind": "EndpointSlice", "metadata": {"name": "web-abc", "namespace": "ns1",
                                                   "labels": {LABEL_SERVICE_NAME: "web"}},
             "addressType": "IPv4", "endpoints": [], "ports": []}
    ext = _svc("ext", type="ExternalName", selector={"app": "web"})
    objs = [_svc("web", selector={"app": "web"}), given, _svc("manual"), ext, _pod("web-1", "10.244.0.5")]
    assert add_endpoint_slices(objs) == objs


def test_allocation_is_the_api_servers_and_leaves_the_input_alone():
    np = _svc("np", type="NodePort", ports=[{"port": 80, "protocol": "TCP"}])
    cip = _svc("cip")
    fixed = _svc("fixed", clusterIP="10.96.0.7")
    headless = _svc("headless", clusterIP="None")
    out = allocate_service_ips([np, cip, fixed, headless])
    assert out[2] is fixed and out[3] is headless
    assert "clusterIP" not in np["spec"] and "nodePort" not in np["spec"]["ports"][0]
    assert 30000 <= out[0]["spec"]["ports"][0]["nodePort"] <= 32767
    ips = [o["spec"]["clusterIP"] for o in out[:2]]
    assert all(ip.startswith("10.") for ip in ips) and len(set(ips + ["10.96.0.7"])) == 3
    assert allocate_service_ips([np, cip, fixed, headless]) == out  # deterministic


def test_kube_proxy_reads_only_what_its_informers_hold():
    objs = [_node(), _svc("web", selector={"app": "web"}), _pod("web-1", "10.244.0.5"),
            {"kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns1"}}]
    seen = kube_proxy_objects(objs)
    assert {o["kind"] for o in seen} == set(KUBE_PROXY_KINDS)
    spn = ServicePortName("ns1", "web", "p80")
    assert proxy_state(objs, "n1").services == {}  # no cluster IP yet: kube-proxy skips the Service
    assert [str(e) for e in proxy_state(seen, "n1").endpoints[spn]] == ["10.244.0.5:8080"]
