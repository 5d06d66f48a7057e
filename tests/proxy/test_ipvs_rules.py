"""Tests of kubenotes.proxy.ipvs: virtual servers, ``ipvsadm -Ln``, kube-ipvs0 and the ipsets.

Ported from kubernetes/kubernetes@v1.34.0 ``pkg/proxy/ipvs/proxier_test.go``:

* ``TestNodePortIPv4``: "1 service with node port, has 2 endpoints" (the IPv6 endpoint is
  ignored by the IPv4 proxier), "1 UDP service with node port, has endpoints" (with
  ``KUBE-NODE-PORT-UDP``), "service has node port but no endpoints" (virtual servers with no
  real servers), "node port service with protocol sctp on a node with multiple nodeIPs"
  (``KUBE-NODE-PORT-SCTP-HASH`` entries per node IP) and "... sctp and externalTrafficPolicy
  local" (the node-port virtual server only gets the local endpoint; the cluster IP gets both).
* ``TestSessionAffinity``: ClientIP affinity makes every virtual server persistent with the
  affinity timeout.
* ``TestOnlyLocalLoadBalancing`` / ``TestLoadBalancer``: ``KUBE-LOAD-BALANCER(-LOCAL)``,
  ``-FW``, ``-SOURCE-CIDR`` entries.

The ``ipvsadm -Ln`` format follows ipvsadm's ``print_service_entry``. The real ipvsadm cannot
check it here: loading rules (``ipvsadm -R``) needs IPVS in the kernel, which the containers this
suite runs in do not have, so no test depends on it.
"""

from __future__ import annotations

from kubenotes.proxy import proxy_state
from kubenotes.proxy.ipvs import (
    IPSET_NAMES,
    ipvs_ipsets,
    ipvs_virtual_servers,
    ipvsadm_ln,
    ipvsadm_save,
    kube_ipvs0_addresses,
)

def node(name="test-node", *ips):
    return {"kind": "Node", "metadata": {"name": name},
            "status": {"addresses": [{"type": "InternalIP", "address": ip} for ip in ips]}}


def svc(ns, name, **spec):
    status = spec.pop("status", None)
    d = {"kind": "Service", "metadata": {"name": name, "namespace": ns}, "spec": spec}
    if status:
        d["status"] = status
    return d


def eps(ns, name, endpoints, protocol="TCP", address_type="IPv4", suffix="1"):
    return {"kind": "EndpointSlice",
            "metadata": {"name": f"{name}-{suffix}", "namespace": ns, "labels": {"kubernetes.io/service-name": name}},
            "addressType": address_type, "endpoints": endpoints,
            "ports": [{"name": "p80", "port": 80, "protocol": protocol}]}


def p80(protocol="TCP", **kw):
    return [dict(name="p80", port=80, protocol=protocol, **kw)]


def servers(state, **kw):
    return {(v.address, v.port, v.protocol): sorted(str(r) for r in v.real_servers)
            for v in ipvs_virtual_servers(state, **kw)}


def test_node_port_two_endpoints_ipv6_ignored():
    st = proxy_state([node("test-node", "100.101.102.103"),
                      svc("ns1", "svc1", type="NodePort", clusterIP="10.20.30.41", ports=p80(nodePort=3001)),
                      eps("ns1", "svc1", [{"addresses": ["10.180.0.1"]}]),
                      eps("ns1", "svc1", [{"addresses": ["1002:ab8::2:10"]}], address_type="IPv6", suffix="2")],
                     "test-node")
    assert servers(st) == {("10.20.30.41", 80, "TCP"): ["10.180.0.1:80"],
                           ("100.101.102.103", 3001, "TCP"): ["10.180.0.1:80"]}
    assert all(v.scheduler == "rr" and v.persistent_timeout_seconds is None for v in ipvs_virtual_servers(st))


def test_udp_node_port_and_ipset():
    st = proxy_state([node("test-node", "100.101.102.103"),
                      svc("ns1", "svc1", type="NodePort", clusterIP="10.20.30.41", ports=p80("UDP", nodePort=3001)),
                      eps("ns1", "svc1", [{"addresses": ["10.180.0.1"]}], protocol="UDP")], "test-node")
    assert servers(st, nodeport_addresses=["0.0.0.0/0"]) == {("10.20.30.41", 80, "UDP"): ["10.180.0.1:80"],
                                                             ("100.101.102.103", 3001, "UDP"): ["10.180.0.1:80"]}
    sets = ipvs_ipsets(st)
    assert sets["KUBE-NODE-PORT-UDP"].entries == ["3001"]
    assert sets["KUBE-NODE-PORT-UDP"].set_type == "bitmap:port"
    assert sets["KUBE-CLUSTER-IP"].entries == ["10.20.30.41,udp:80"]
    assert sets["KUBE-NODE-PORT-TCP"].entries == []


def test_node_port_without_endpoints_keeps_virtual_servers():
    st = proxy_state([node("test-node", "100.101.102.103"),
                      svc("ns1", "svc1", type="NodePort", clusterIP="10.20.30.41", ports=p80(nodePort=3001))],
                     "test-node")
    assert servers(st) == {("10.20.30.41", 80, "TCP"): [], ("100.101.102.103", 3001, "TCP"): []}


def test_sctp_node_port_on_multiple_node_ips():
    st = proxy_state([node("test-node", "100.101.102.103", "100.101.102.104", "100.101.102.105", "2001:db8::1:1"),
                      svc("ns1", "svc1", type="NodePort", clusterIP="10.20.30.41", ports=p80("SCTP", nodePort=3001)),
                      eps("ns1", "svc1", [{"addresses": ["10.180.0.1"]}], protocol="SCTP")], "test-node")
    got = servers(st)
    assert got == {("10.20.30.41", 80, "SCTP"): ["10.180.0.1:80"],
                   ("100.101.102.103", 3001, "SCTP"): ["10.180.0.1:80"],
                   ("100.101.102.104", 3001, "SCTP"): ["10.180.0.1:80"],
                   ("100.101.102.105", 3001, "SCTP"): ["10.180.0.1:80"]}
    assert ipvs_ipsets(st)["KUBE-NODE-PORT-SCTP-HASH"].entries == [
        "100.101.102.103,sctp:3001", "100.101.102.104,sctp:3001", "100.101.102.105,sctp:3001"]


def test_sctp_node_port_external_traffic_policy_local():
    st = proxy_state([node("test-node", "100.101.102.103"),
                      svc("ns1", "svc1", type="NodePort", clusterIP="10.20.30.41", externalTrafficPolicy="Local",
                          ports=p80("SCTP", nodePort=3001)),
                      eps("ns1", "svc1", [{"addresses": ["10.180.0.1"], "nodeName": "test-node"},
                                          {"addresses": ["10.180.1.1"], "nodeName": "otherHost"}], protocol="SCTP")],
                     "test-node")
    assert servers(st) == {("10.20.30.41", 80, "SCTP"): ["10.180.0.1:80", "10.180.1.1:80"],
                           ("100.101.102.103", 3001, "SCTP"): ["10.180.0.1:80"]}
    sets = ipvs_ipsets(st)
    assert sets["KUBE-NODE-PORT-SCTP-HASH"].entries == ["100.101.102.103,sctp:3001"]
    assert sets["KUBE-NODE-PORT-LOCAL-SCTP-HASH"].entries == ["100.101.102.103,sctp:3001"]


def test_external_policy_local_without_local_endpoints_falls_back_to_cluster():
    # upstream PR 97081: pods on this node can still reach the service
    st = proxy_state([node("test-node", "100.101.102.103"),
                      svc("ns1", "svc1", type="NodePort", clusterIP="10.20.30.41", externalTrafficPolicy="Local",
                          ports=p80(nodePort=3001)),
                      eps("ns1", "svc1", [{"addresses": ["10.180.1.1"], "nodeName": "otherHost"}])], "test-node")
    assert servers(st)[("100.101.102.103", 3001, "TCP")] == ["10.180.1.1:80"]


def test_session_affinity_makes_all_virtual_servers_persistent():
    st = proxy_state([node("test-node", "100.101.102.103"),
                      svc("ns1", "svc1", type="NodePort", clusterIP="10.20.30.41", externalIPs=["50.60.70.81"],
                          sessionAffinity="ClientIP", sessionAffinityConfig={"clientIP": {"timeoutSeconds": 10800}},
                          ports=p80(nodePort=3001)),
                      eps("ns1", "svc1", [{"addresses": ["10.180.0.1"]}])], "test-node")
    vss = ipvs_virtual_servers(st)
    assert {v.kind for v in vss} == {"ClusterIP", "ExternalIP", "NodePort"}
    assert all(v.persistent_timeout_seconds == 10800 for v in vss)
    assert "TCP  50.60.70.81:80 rr persistent 10800\n" in ipvsadm_ln(st)


def test_load_balancer_ipsets():
    st = proxy_state([node("test-node", "100.101.102.103"),
                      svc("ns1", "svc1", type="LoadBalancer", clusterIP="10.20.30.41", externalTrafficPolicy="Local",
                          loadBalancerSourceRanges=["100.101.102.0/24", "1.2.3.0/24"], healthCheckNodePort=30000,
                          ports=p80(nodePort=3001), status={"loadBalancer": {"ingress": [{"ip": "111.11.11.11"}]}}),
                      eps("ns1", "svc1", [{"addresses": ["10.180.0.1"], "nodeName": "test-node"}])], "test-node")
    sets = ipvs_ipsets(st)
    assert sets["KUBE-LOAD-BALANCER"].entries == ["111.11.11.11,tcp:80"]
    assert sets["KUBE-LOAD-BALANCER-LOCAL"].entries == ["111.11.11.11,tcp:80"]
    assert sets["KUBE-LOAD-BALANCER-FW"].entries == ["111.11.11.11,tcp:80"]
    assert sets["KUBE-LOAD-BALANCER-SOURCE-CIDR"].entries == ["111.11.11.11,tcp:80,1.2.3.0/24",
                                                              "111.11.11.11,tcp:80,100.101.102.0/24"]
    # the node IP is inside a source range: the LB IP may talk to itself
    assert sets["KUBE-LOAD-BALANCER-SOURCE-IP"].entries == ["111.11.11.11,tcp:80,111.11.11.11"]
    assert sets["KUBE-NODE-PORT-LOCAL-TCP"].entries == ["3001"]
    assert sets["KUBE-HEALTH-CHECK-NODE-PORT"].entries == ["30000"]
    assert sets["KUBE-LOOP-BACK"].entries == ["10.180.0.1,tcp:80,10.180.0.1"]
    assert sets["KUBE-IPVS-IPS"].entries == ["10.20.30.41", "111.11.11.11"]
    assert list(sets) == list(IPSET_NAMES)
    assert sets["KUBE-CLUSTER-IP"].comment == "Kubernetes service cluster ip + port for masquerade purpose"


def test_kube_ipvs0_skips_node_addresses():
    st = proxy_state([node("test-node", "100.101.102.103"),
                      svc("ns1", "svc1", clusterIP="10.20.30.41", externalIPs=["100.101.102.103", "50.60.70.81"],
                          ports=p80())], "test-node")
    assert kube_ipvs0_addresses(st) == ["10.20.30.41", "50.60.70.81"]


KIND_LIKE = [
    node("kind-worker", "172.18.0.3"),
    svc("default", "kubernetes", clusterIP="10.96.0.1", ports=[{"name": "https", "port": 443, "targetPort": 6443,
                                                              "protocol": "TCP"}]),
    eps("default", "kubernetes", [{"addresses": ["172.18.0.2"]}]) | {
        "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]},
    svc("default", "web", type="NodePort", clusterIP="10.96.100.7", ports=p80(nodePort=30080)),
    eps("default", "web", [{"addresses": ["10.244.1.3"], "nodeName": "kind-worker"},
                           {"addresses": ["10.244.2.2"], "nodeName": "kind-worker2"}]),
]

EXPECTED_LN = """\
IP Virtual Server version 1.2.1 (size=4096)
Prot LocalAddress:Port Scheduler Flags
  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn
TCP  172.18.0.3:30080 rr
  -> 10.244.1.3:80                Masq    1      0          0         
  -> 10.244.2.2:80                Masq    1      0          0         
TCP  10.96.0.1:443 rr
  -> 172.18.0.2:6443              Masq    1      0          0         
TCP  10.96.100.7:80 rr
  -> 10.244.1.3:80                Masq    1      0          0         
  -> 10.244.2.2:80                Masq    1      0          0         
"""


def test_ipvsadm_ln_format_and_order():
    text = ipvsadm_ln(proxy_state(KIND_LIKE, "kind-worker"))
    # ipvsadm's comparator subtracts unsigned addresses into an int: 172.18.x sorts before 10.96.x
    assert text == EXPECTED_LN


def test_ipvsadm_save_format():
    text = ipvsadm_save(proxy_state(KIND_LIKE, "kind-worker"))
    assert text.splitlines()[:3] == ["-A -t 172.18.0.3:30080 -s rr",
                                     "-a -t 172.18.0.3:30080 -r 10.244.1.3:80 -m -w 1",
                                     "-a -t 172.18.0.3:30080 -r 10.244.2.2:80 -m -w 1"]


def test_ipvs_ipv6_sets_are_renamed():
    st = proxy_state([node("n6", "2001:db8::1"), svc("ns1", "s", clusterIP="fd00::10", ports=p80())], "n6")
    sets = ipvs_ipsets(st)
    assert "KUBE-6-CLUSTER-IP" in sets and sets["KUBE-6-CLUSTER-IP"].entries == ["fd00::10,tcp:80"]
    assert "TCP  [fd00::10]:80 rr\n" in ipvsadm_ln(st)
