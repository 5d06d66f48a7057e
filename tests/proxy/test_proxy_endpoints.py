"""Tests of kubenotes.proxy.endpoints: service ports, endpoints and CategorizeEndpoints.

Ported upstream cases (kubernetes/kubernetes@v1.34.0):

* ``pkg/proxy/topology_test.go`` TestCategorizeEndpoints: the zone-hint cases (with the
  ``hintsAnnotation: auto`` service, since v1.34's kube-proxy no longer reads the annotation), the
  internal/external traffic policy cases and the ProxyTerminatingEndpoints-enabled cases
  (the feature is GA, so the "PTE disabled" variants are not ported).
* ``pkg/proxy/serviceport.go`` / ``pkg/proxy/service_test.go`` (TestServiceToServiceMap): ExternalName and
  headless Services skipped, ClientIP affinity timeout, externalTrafficPolicy ignored for a ClusterIP
  Service without external IPs, load-balancer ingress IPs in VIP mode only.
* ``pkg/proxy/endpointslicecache_test.go``: endpoints of several slices merged, deduplicated and sorted
  by ``ip:port``; unset conditions mean ready/serving; ``nodeName`` decides ``is_local``.
"""

from __future__ import annotations

import pytest

from kubenotes.errors import KubenotesError, ManifestError
from kubenotes.proxy import (
    EndpointInfo,
    ServicePortInfo,
    ServicePortName,
    categorize_endpoints,
    load_proxy_objects,
    proxy_state,
)
from kubenotes.sim.network import kube_proxy_objects

# ---------------------------------------------------------------------------
# categorize_endpoints (topology_test.go TestCategorizeEndpoints)


def ep(addr: str, *, ready=False, serving=False, terminating=False, local=False, hints=()):
    ip, port = addr.rsplit(":", 1)
    return EndpointInfo(ip, int(port), ready, serving, terminating, local, frozenset(hints))


def svc_port(*, internal_local=False, external_local=False, node_port=0):
    return ServicePortInfo(ServicePortName("ns", "svc", ""), "TCP", 80, ("172.30.0.1",), node_port, 80, None,
                           (), (), (), external_local, internal_local, 0, "NodePort" if node_port else "ClusterIP")


ZONED = [ep("10.1.2.3:80", hints=["zone-a"], ready=True), ep("10.1.2.4:80", hints=["zone-b"], ready=True),
         ep("10.1.2.5:80", hints=["zone-c"], ready=True), ep("10.1.2.6:80", hints=["zone-a"], ready=True)]
ALL_ZONED = {"10.1.2.3:80", "10.1.2.4:80", "10.1.2.5:80", "10.1.2.6:80"}

# (name, zone, service port, endpoints, cluster, local, all (None = same as the non-None one), only remote)
CASES = [
    ("hints enabled, hints annotation == auto", "zone-a", svc_port(), ZONED,
     {"10.1.2.3:80", "10.1.2.6:80"}, None, None, False),
    ("externalTrafficPolicy: Local, topology ignored for Local endpoints", "zone-a",
     svc_port(external_local=True, node_port=8080),
     [ep("10.1.2.3:80", hints=["zone-a"], ready=True, local=True),
      ep("10.1.2.4:80", hints=["zone-b"], ready=True, local=True),
      ep("10.1.2.5:80", hints=["zone-c"], ready=True), ep("10.1.2.6:80", hints=["zone-a"], ready=True)],
     {"10.1.2.3:80", "10.1.2.6:80"}, {"10.1.2.3:80", "10.1.2.4:80"}, {"10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"},
     False),
    ("internalTrafficPolicy: Local, topology ignored for Local endpoints", "zone-a",
     svc_port(internal_local=True, node_port=8080),
     [ep("10.1.2.3:80", hints=["zone-a"], ready=True, local=True),
      ep("10.1.2.4:80", hints=["zone-b"], ready=True, local=True),
      ep("10.1.2.5:80", hints=["zone-c"], ready=True), ep("10.1.2.6:80", hints=["zone-a"], ready=True)],
     {"10.1.2.3:80", "10.1.2.6:80"}, {"10.1.2.3:80", "10.1.2.4:80"}, {"10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"},
     False),
    ("empty node labels", "", svc_port(), [ep("10.1.2.3:80", hints=["zone-a"], ready=True)],
     {"10.1.2.3:80"}, None, None, False),
    ("node in different zone, no endpoint filtering", "zone-b", svc_port(),
     [ep("10.1.2.3:80", hints=["zone-a"], ready=True)], {"10.1.2.3:80"}, None, None, False),
    ("unready endpoint", "zone-a", svc_port(), ZONED[:3] + [ep("10.1.2.6:80", hints=["zone-a"])],
     {"10.1.2.3:80"}, None, None, False),
    ("only unready endpoints in same zone (should not filter)", "zone-a", svc_port(),
     [ep("10.1.2.3:80", hints=["zone-a"]), ZONED[1], ZONED[2], ep("10.1.2.6:80", hints=["zone-a"])],
     {"10.1.2.4:80", "10.1.2.5:80"}, None, None, False),
    ("missing hints, no filtering applied", "zone-a", svc_port(),
     [ZONED[0], ZONED[1], ep("10.1.2.5:80", ready=True), ZONED[3]], ALL_ZONED, None, None, False),
    ("multiple hints per endpoint, filtering includes any endpoint with zone included", "zone-c", svc_port(),
     [ep("10.1.2.3:80", hints=["zone-a", "zone-b", "zone-c"], ready=True),
      ep("10.1.2.4:80", hints=["zone-b", "zone-c"], ready=True),
      ep("10.1.2.5:80", hints=["zone-b", "zone-d"], ready=True), ep("10.1.2.6:80", hints=["zone-c"], ready=True)],
     {"10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"}, None, None, False),
    ("conflicting topology and localness require merging allEndpoints", "zone-a",
     svc_port(external_local=True, node_port=8080),
     [ep("10.0.0.0:80", hints=["zone-a"], ready=True, local=True),
      ep("10.0.0.1:80", hints=["zone-b"], ready=True, local=True),
      ep("10.0.0.2:80", hints=["zone-a"], ready=True), ep("10.0.0.3:80", hints=["zone-b"], ready=True)],
     {"10.0.0.0:80", "10.0.0.2:80"}, {"10.0.0.0:80", "10.0.0.1:80"}, {"10.0.0.0:80", "10.0.0.1:80", "10.0.0.2:80"},
     False),
    ("internalTrafficPolicy: Local, but all endpoints are remote", "", svc_port(internal_local=True),
     [ep("10.0.0.0:80", ready=True), ep("10.0.0.1:80", ready=True)], None, set(), None, True),
    ("internalTrafficPolicy: Local, all endpoints are local", "", svc_port(internal_local=True),
     [ep("10.0.0.0:80", ready=True, local=True), ep("10.0.0.1:80", ready=True, local=True)],
     None, {"10.0.0.0:80", "10.0.0.1:80"}, None, False),
    ("internalTrafficPolicy: Local, some endpoints are local", "", svc_port(internal_local=True),
     [ep("10.0.0.0:80", ready=True, local=True), ep("10.0.0.1:80", ready=True)], None, {"10.0.0.0:80"}, None, False),
    ("Cluster traffic policy, endpoints not Ready", "", svc_port(), [ep("10.0.0.0:80"), ep("10.0.0.1:80")],
     set(), None, None, False),
    ("Cluster traffic policy, some endpoints are Ready", "", svc_port(),
     [ep("10.0.0.0:80"), ep("10.0.0.1:80", ready=True)], {"10.0.0.1:80"}, None, None, False),
    ("Cluster traffic policy, PTE enabled, all endpoints are terminating", "", svc_port(),
     [ep("10.0.0.0:80", serving=True, terminating=True, local=True),
      ep("10.0.0.1:80", serving=True, terminating=True)], {"10.0.0.0:80", "10.0.0.1:80"}, None, None, False),
    ("iTP: Local, eTP: Cluster, some endpoints local", "", svc_port(internal_local=True, node_port=8080),
     [ep("10.0.0.0:80", ready=True, local=True), ep("10.0.0.1:80", ready=True)],
     {"10.0.0.0:80", "10.0.0.1:80"}, {"10.0.0.0:80"}, {"10.0.0.0:80", "10.0.0.1:80"}, False),
    ("iTP: Cluster, eTP: Local, some endpoints local", "", svc_port(external_local=True, node_port=8080),
     [ep("10.0.0.0:80", ready=True, local=True), ep("10.0.0.1:80", ready=True)],
     {"10.0.0.0:80", "10.0.0.1:80"}, {"10.0.0.0:80"}, {"10.0.0.0:80", "10.0.0.1:80"}, False),
    ("iTP: Local, eTP: Local, all endpoints remote", "",
     svc_port(internal_local=True, external_local=True, node_port=8080),
     [ep("10.0.0.0:80", ready=True), ep("10.0.0.1:80", ready=True)],
     {"10.0.0.0:80", "10.0.0.1:80"}, set(), {"10.0.0.0:80", "10.0.0.1:80"}, False),
    ("iTP: Local, eTP: Local, PTE enabled, all endpoints remote and terminating", "",
     svc_port(internal_local=True, external_local=True, node_port=8080),
     [ep("10.0.0.0:80", serving=True, terminating=True), ep("10.0.0.1:80", serving=True, terminating=True)],
     {"10.0.0.0:80", "10.0.0.1:80"}, set(), {"10.0.0.0:80", "10.0.0.1:80"}, True),
    ("iTP: Cluster, eTP: Local, PTE enabled, with terminating endpoints", "",
     svc_port(external_local=True, node_port=8080),
     [ep("10.0.0.0:80", ready=True), ep("10.0.0.1:80", local=True),
      ep("10.0.0.2:80", serving=True, terminating=True, local=True),
      ep("10.0.0.3:80", serving=True, terminating=True)],
     {"10.0.0.0:80"}, {"10.0.0.2:80"}, {"10.0.0.0:80", "10.0.0.2:80"}, False),
    ("externalTrafficPolicy ignored if not externally accessible", "", svc_port(external_local=True),
     [ep("10.0.0.0:80", ready=True), ep("10.0.0.1:80", ready=True, local=True)],
     {"10.0.0.0:80", "10.0.0.1:80"}, None, {"10.0.0.0:80", "10.0.0.1:80"}, False),
    ("no cluster endpoints for iTP:Local internal-only service", "", svc_port(internal_local=True),
     [ep("10.0.0.0:80", ready=True), ep("10.0.0.1:80", ready=True, local=True)],
     None, {"10.0.0.1:80"}, {"10.0.0.1:80"}, False),
]


def _names(eps):
    return [str(e) for e in eps or []]


@pytest.mark.parametrize("name,zone,info,endpoints,want_cluster,want_local,want_all,only_remote", CASES,
                         ids=[c[0] for c in CASES])
def test_categorize_endpoints(name, zone, info, endpoints, want_cluster, want_local, want_all, only_remote):
    cluster, local, all_, has_any = categorize_endpoints(endpoints, info, "node1", zone=zone)
    if want_cluster is None:
        assert cluster is None
    else:
        assert cluster is not None and set(_names(cluster)) == want_cluster
        assert len(_names(cluster)) == len(want_cluster)
    if want_local is None:
        assert local is None
    else:
        assert set(_names(local)) == want_local
    if want_cluster is not None and want_local is None:
        expected_all = want_cluster
    elif want_local is not None and want_cluster is None:
        expected_all = want_local
    else:
        expected_all = want_all
    assert set(_names(all_)) == expected_all and len(_names(all_)) == len(expected_all)
    assert has_any == (bool(expected_all) or only_remote)


def test_categorize_no_endpoints():
    assert categorize_endpoints([], svc_port(internal_local=True), "node1") == (None, None, None, False)


# ---------------------------------------------------------------------------
# ServicePortInfo semantics (serviceport.go)


@pytest.mark.parametrize("kw,cluster,local", [
    ({}, True, False),
    ({"internal_local": True}, False, True),
    ({"internal_local": True, "node_port": 30001}, True, True),
    ({"external_local": True, "node_port": 30001}, True, True),
    ({"external_local": True}, True, False),
])
def test_uses_cluster_and_local_endpoints(kw, cluster, local):
    info = svc_port(**kw)
    assert (info.uses_cluster_endpoints, info.uses_local_endpoints) == (cluster, local)


def test_service_port_name_string():
    assert str(ServicePortName("ns1", "svc1", "p80")) == "ns1/svc1:p80"
    assert str(ServicePortName("ns1", "svc1", "")) == "ns1/svc1"


# ---------------------------------------------------------------------------
# proxy_state


def node(name="node1", ip="192.168.0.2", zone=None, pod_cidr="10.244.1.0/24"):
    md = {"name": name}
    if zone:
        md["labels"] = {"topology.kubernetes.io/zone": zone}
    return {"apiVersion": "v1", "kind": "Node", "metadata": md, "spec": {"podCIDR": pod_cidr},
            "status": {"addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}]}}


def service(name, ns="ns1", **spec):
    spec.setdefault("ports", [{"name": "p80", "port": 80, "targetPort": 80, "protocol": "TCP"}])
    spec.setdefault("type", "ClusterIP")
    status = spec.pop("status", None)
    out = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns}, "spec": spec}
    if status:
        out["status"] = status
    return out


def slice_(name, svc, endpoints, ports=None, ns="ns1"):
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name, "namespace": ns, "labels": {"kubernetes.io/service-name": svc}},
            "addressType": "IPv4", "endpoints": endpoints,
            "ports": ports if ports is not None else [{"name": "p80", "port": 80, "protocol": "TCP"}]}


def pod(name, ip, node_name="node1", ready=True, ns="ns1", labels=None, deleting=False, ports=None):
    md = {"name": name, "namespace": ns, "labels": labels or {"app": "web"}, "uid": f"uid-{name}"}
    if deleting:
        md["deletionTimestamp"] = "2025-08-27T00:00:00Z"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md,
            "spec": {"nodeName": node_name,
                     "containers": [{"name": "c", "image": "nginx", "ports": ports or []}]},
            "status": {"phase": "Running", "podIP": ip,
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def test_skips_external_name_and_headless_services():
    objs = [node(), service("ext", type="ExternalName", externalName="example.com"),
            service("headless", clusterIP="None"), service("svc1", clusterIP="172.30.0.41")]
    st = proxy_state(objs, "node1")
    assert list(st.services) == [ServicePortName("ns1", "svc1", "p80")]
    assert st.node_ips == ("192.168.0.2",) and st.pod_cidr == "10.244.1.0/24"


def test_service_port_info_fields():
    objs = [node(), service("lb", clusterIP="172.30.0.42", type="LoadBalancer", externalTrafficPolicy="Local",
                            healthCheckNodePort=30000, sessionAffinity="ClientIP",
                            sessionAffinityConfig={"clientIP": {"timeoutSeconds": 300}},
                            externalIPs=["192.168.99.11", "2001:db8::1"],
                            loadBalancerSourceRanges=[" 203.0.113.0/25 ", "2001:db8::/64"],
                            ports=[{"name": "p80", "port": 80, "targetPort": "http", "nodePort": 3001,
                                    "protocol": "TCP"}],
                            status={"loadBalancer": {"ingress": [{"ip": "1.2.3.4"},
                                                                 {"ip": "5.6.7.8", "ipMode": "Proxy"}]}})]
    info = proxy_state(objs, "node1").services[ServicePortName("ns1", "lb", "p80")]
    assert info.session_affinity_timeout_seconds == 300
    assert info.external_ips == ("192.168.99.11",)
    assert info.load_balancer_source_ranges == ("203.0.113.0/25",)
    assert info.load_balancer_ips == ("1.2.3.4",)
    assert (info.external_policy_local, info.health_check_node_port, info.node_port) == (True, 30000, 3001)
    assert info.target_port == "http" and str(info) == "172.30.0.42:80/TCP"


def test_client_ip_affinity_default_timeout_and_external_policy_ignored_for_cluster_ip():
    objs = [node(), service("s", clusterIP="172.30.0.43", sessionAffinity="ClientIP",
                            externalTrafficPolicy="Local")]
    info = proxy_state(objs, "node1").services[ServicePortName("ns1", "s", "p80")]
    assert info.session_affinity_timeout_seconds == 10800
    assert info.external_policy_local is False


def test_endpoints_from_slices_merged_sorted_and_deduplicated():
    objs = [node(), service("svc1", clusterIP="172.30.0.41"),
            slice_("svc1-b", "svc1", [{"addresses": ["10.180.0.3"], "nodeName": "node2"},
                                      {"addresses": ["10.180.0.10"], "nodeName": "node1"}]),
            slice_("svc1-a", "svc1", [{"addresses": ["10.180.0.2"], "conditions": {"ready": False},
                                       "nodeName": "node1"},
                                      {"addresses": ["10.180.0.3"], "nodeName": "node1"}])]
    eps = proxy_state(objs, "node1").endpoints[ServicePortName("ns1", "svc1", "p80")]
    # sorted by the "ip:port" string, as upstream's byEndpoint sorts them
    assert [str(e) for e in eps] == ["10.180.0.10:80", "10.180.0.2:80", "10.180.0.3:80"]
    by = {e.ip: e for e in eps}
    assert by["10.180.0.3"].is_local  # a duplicate keeps the local copy
    assert by["10.180.0.2"].ready is False and by["10.180.0.2"].serving is True
    assert by["10.180.0.10"].ready and not by["10.180.0.10"].terminating


def test_slice_ports_map_to_named_service_ports():
    objs = [node(), service("svc", clusterIP="172.30.0.44",
                            ports=[{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
                                   {"name": "dns", "port": 53, "targetPort": 5353, "protocol": "UDP"}]),
            slice_("svc-x", "svc", [{"addresses": ["10.0.1.1"]}],
                   ports=[{"name": "http", "port": 8080, "protocol": "TCP"},
                          {"name": "dns", "port": 5353, "protocol": "UDP"}])]
    st = proxy_state(objs, "node1")
    assert [str(e) for e in st.endpoints[ServicePortName("ns1", "svc", "http")]] == ["10.0.1.1:8080"]
    assert [str(e) for e in st.endpoints[ServicePortName("ns1", "svc", "dns")]] == ["10.0.1.1:5353"]
    assert st.services[ServicePortName("ns1", "svc", "dns")].protocol == "UDP"


def test_endpoints_derived_from_pods_when_no_slices():
    objs = [node(), node("node2", "192.168.0.3"),
            service("web", clusterIP="172.30.0.45", selector={"app": "web"},
                    ports=[{"name": "p80", "port": 80, "targetPort": 8080, "protocol": "TCP"}]),
            pod("web-1", "10.244.1.5"), pod("web-2", "10.244.2.6", node_name="node2", ready=False),
            pod("web-3", "10.244.2.7", node_name="node2", deleting=True),
            pod("other", "10.244.1.9", labels={"app": "db"})]
    # kube-proxy reads EndpointSlices only; the slices come from the EndpointSlice controller's code
    assert proxy_state(objs, "node1").endpoints[ServicePortName("ns1", "web", "p80")] == ()
    eps = proxy_state(kube_proxy_objects(objs), "node1").endpoints[ServicePortName("ns1", "web", "p80")]
    by = {e.ip: e for e in eps}
    assert sorted(by) == ["10.244.1.5", "10.244.2.6", "10.244.2.7"]
    assert by["10.244.1.5"].ready and by["10.244.1.5"].is_local and by["10.244.1.5"].port == 8080
    assert not by["10.244.2.6"].ready and not by["10.244.2.6"].serving
    assert by["10.244.2.7"].terminating and by["10.244.2.7"].serving and not by["10.244.2.7"].ready


def test_slices_in_input_win_over_pods():
    objs = [node(), service("web", clusterIP="172.30.0.45", selector={"app": "web"}),
            pod("web-1", "10.244.1.5"), slice_("web-abc", "web", [{"addresses": ["10.9.9.9"]}])]
    eps = proxy_state(objs, "node1").endpoints[ServicePortName("ns1", "web", "p80")]
    assert [e.ip for e in eps] == ["10.9.9.9"]


def test_service_without_endpoints_has_empty_entry():
    st = proxy_state([node(), service("lonely", clusterIP="172.30.0.46", selector={"app": "none"})], "node1")
    assert st.endpoints[ServicePortName("ns1", "lonely", "p80")] == ()


def test_services_from_plain_manifests_get_cluster_ip_and_node_port():
    objs = [node(), service("np", type="NodePort", ports=[{"port": 80, "targetPort": 80, "protocol": "TCP"}]),
            service("cip")]
    st = proxy_state(kube_proxy_objects(objs), "node1")
    np_info = st.services[ServicePortName("ns1", "np", "")]
    cip = st.services[ServicePortName("ns1", "cip", "p80")]
    assert 30000 <= np_info.node_port <= 32767
    assert np_info.cluster_ip.startswith("10.") and np_info.cluster_ip != cip.cluster_ip
    assert proxy_state(kube_proxy_objects(objs), "node1") == st  # deterministic


def test_node_zone_and_zone_hints():
    objs = [node(zone="zone-a"), service("s", clusterIP="172.30.0.47"),
            slice_("s-1", "s", [{"addresses": ["10.0.0.1"], "zone": "zone-a",
                                 "hints": {"forZones": [{"name": "zone-a"}]}}])]
    st = proxy_state(objs, "node1")
    (e,) = st.endpoints[ServicePortName("ns1", "s", "p80")]
    assert st.node_zone == "zone-a" and e.zone_hints == frozenset({"zone-a"}) and e.zone == "zone-a"


def test_unknown_node_is_an_error_naming_it():
    with pytest.raises(KubenotesError, match='nodes "nope" not found'):
        proxy_state([node()], "nope")


# ---------------------------------------------------------------------------
# load_proxy_objects


def test_load_list_dump_and_directory(tmp_path):
    (tmp_path / "a.yaml").write_text("""
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node1}
  status: {addresses: [{type: InternalIP, address: 192.168.0.2}]}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: default}
  spec: {clusterIP: 10.96.0.20, selector: {app: web}, ports: [{port: 80}]}
""")
    objs = load_proxy_objects([str(tmp_path)])
    assert [o["kind"] for o in objs] == ["Node", "Service"]
    st = proxy_state(objs, "node1")
    assert st.services[ServicePortName("default", "web", "")].target_port == 80


def test_load_bad_input_is_one_line(tmp_path):
    f = tmp_path / "svc.yaml"
    f.write_text("apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 70000}]}\n")
    with pytest.raises(ManifestError) as e:
        load_proxy_objects([str(f)])
    msg = str(e.value)
    assert "\n" not in msg and "svc.yaml doc 1 Service default/web: spec.ports[0].port" in msg


def test_load_missing_file(tmp_path):
    with pytest.raises(ManifestError, match="nope.yaml"):
        load_proxy_objects([str(tmp_path / "nope.yaml")])


def test_legacy_ip_spellings_are_read_sloppily_and_written_normalised() -> None:
    """Objects stored before validation refused leading zeros: kept, normalised (ParseIPSloppy), in every mode."""
    from kubenotes.proxy.iptables import iptables_save
    from kubenotes.proxy.ipvs import ipvsadm_ln
    from kubenotes.proxy.nftables import nft_list_table

    objs = [
        {"kind": "Node", "metadata": {"name": "n1"},
         "status": {"addresses": [{"type": "InternalIP", "address": "192.168.000.002"}]}},
        {"kind": "Service", "metadata": {"name": "old", "namespace": "default"},
         "spec": {"type": "LoadBalancer", "clusterIP": "010.096.000.010", "clusterIPs": ["010.096.000.010"],
                  "externalIPs": ["192.168.099.011"], "loadBalancerSourceRanges": [" 203.000.113.000/25"],
                  "ports": [{"name": "http", "port": 80, "protocol": "TCP", "nodePort": 30080}]},
         "status": {"loadBalancer": {"ingress": [{"ip": "001.002.003.004"}]}}},
        {"kind": "EndpointSlice", "metadata": {"name": "old-1", "namespace": "default",
                                               "labels": {"kubernetes.io/service-name": "old"}},
         "addressType": "IPv4", "endpoints": [{"addresses": ["010.244.000.005"]}],
         "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]},
    ]
    st = proxy_state(objs, "n1")
    info = next(iter(st.services.values()))
    assert st.node_ips == ("192.168.0.2",)
    assert info.cluster_ips == ("10.96.0.10",) and info.external_ips == ("192.168.99.11",)
    assert info.load_balancer_ips == ("1.2.3.4",) and info.load_balancer_source_ranges == ("203.0.113.0/25",)
    assert [e.ip for e in st.endpoints[info.name]] == ["10.244.0.5"]
    ipt = iptables_save(st)
    assert "-d 10.96.0.10 --dport 80" in ipt and "--to-destination 10.244.0.5:80" in ipt
    nft = nft_list_table(st)
    assert "10.96.0.10 . tcp . 80 : goto service-" in nft and "dnat to 10.244.0.5:80" in nft
    assert "ip saddr != 203.0.113.0/25 drop" in nft
    assert "TCP  10.96.0.10:80 rr" in ipvsadm_ln(st)
    assert not any(bad in ipt + nft for bad in ("010.", ".099.", "001.002", "203.000"))
