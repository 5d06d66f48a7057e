"""The real kubectl against ``serve``: NetworkPolicy and Ingress applied, refused as v1.34 refuses them, listed.

``kubectl get netpol,ing`` prints upstream's columns (pkg/printers/internalversion/printers.go:
NetworkPolicy NAME, POD-SELECTOR, AGE; Ingress NAME, CLASS, HOSTS, ADDRESS, PORTS, AGE); what ``apply`` stores
carries the v1 defaults (policyTypes, port protocol TCP).
"""

from __future__ import annotations

import json

import pytest

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""

GOOD = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-client, namespace: default}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{from: [{podSelector: {matchLabels: {role: client}}}], ports: [{port: 8080}]}]
  egress: [{to: [{ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}}], ports: [{port: 32000, endPort: 32768}]}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: default}
spec:
  rules:
  - host: web.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
"""

BAD = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: bad, namespace: default}
spec:
  podSelector: {}
  ingress: [{from: [{ipBlock: {cidr: 10.0.0.0/33}}], ports: [{protocol: ICMP, port: 8080, endPort: 80}]}]
"""


@pytest.fixture(scope="module")
def served():
    c = Cluster.from_manifests(NODE, kubelet="stand-in")
    c.run(until=1)
    s = serve(c, port=0, time_scale=0)
    yield s
    s.stop()


def test_kubectl_applies_a_network_policy_and_an_ingress_and_lists_them(kubectl_required, served):
    r = served.kubectl("apply", "-f", "-", input=GOOD)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["networkpolicy.networking.k8s.io/allow-client", "created",
                                "ingress.networking.k8s.io/web", "created"]
    r = served.kubectl("get", "netpol,ing")
    assert r.returncode == 0, r.stderr
    lines = [ln.split() for ln in r.stdout.splitlines() if ln.strip()]
    assert lines[0] == ["NAME", "POD-SELECTOR", "AGE"]
    assert lines[1][:2] == ["networkpolicy.networking.k8s.io/allow-client", "app=web"]
    assert lines[2] == ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]
    assert lines[3][:4] == ["ingress.networking.k8s.io/web", "<none>", "web.example.com", "80"]
    stored = json.loads(served.kubectl("get", "netpol", "allow-client", "-o", "json").stdout)
    assert stored["spec"]["policyTypes"] == ["Ingress", "Egress"]  # SetDefaults_NetworkPolicy
    assert [p["protocol"] for p in stored["spec"]["ingress"][0]["ports"] + stored["spec"]["egress"][0]["ports"]] == [
        "TCP", "TCP"]


def test_kubectl_gets_the_api_servers_422_for_a_policy_v1_34_refuses(kubectl_required, served):
    r = served.kubectl("apply", "-f", "-", input=BAD)
    assert r.returncode != 0
    assert 'The NetworkPolicy "bad" is invalid' in r.stderr
    for part in ('spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", '
                 '"SCTP"', "spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to "
                 "`port`", 'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid '
                 "CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"):
        assert part in r.stderr, r.stderr
    assert served.kubectl("get", "netpol", "bad").returncode != 0
