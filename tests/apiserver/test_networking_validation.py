"""NetworkPolicy, Ingress and IngressClass validation and defaults (networking.k8s.io/v1), as v1.34.

Cases ported from kubernetes/kubernetes@v1.34.0 pkg/apis/networking/validation/validation_test.go
(TestValidateNetworkPolicy, TestValidateIngress*, TestValidateIngressClass) where the model can express them.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.resources import resource_for
from kubenotes.apiserver.validation import validate_create, validate_update

NP = resource_for("networkpolicies")
ING = resource_for("ingresses")
IC = resource_for("ingressclasses")


def _np(spec: dict, name: str = "bar") -> dict:
    return {"metadata": {"name": name, "namespace": "foo"}, "spec": spec}


def _messages(ri, obj) -> list[str]:
    return [c["message"] for c in validate_create(ri, obj)]


SEL = {"matchLabels": {"a": "b"}}

#: TestValidateNetworkPolicy's successCases (the ones without feature-gated fields).
VALID_POLICIES = [
    {"podSelector": SEL},
    {"podSelector": SEL, "ingress": [{}]},
    {"podSelector": SEL, "ingress": [{"ports": [{"protocol": "TCP", "port": 80}, {"protocol": "UDP", "port": "dns"},
                                                {"protocol": "SCTP", "port": 7777}]}]},
    {"podSelector": SEL, "ingress": [{"from": [{"podSelector": {"matchLabels": {"c": "d"}}}]}]},
    {"podSelector": SEL, "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"c": "d"}}}]}]},
    {"podSelector": SEL, "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"c": "d"}},
                                                "podSelector": {"matchLabels": {"e": "f"}}}]}]},
    {"podSelector": SEL, "egress": [{"to": [{"namespaceSelector": {"matchLabels": {"c": "d"}}}]}]},
    {"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": "192.168.0.0/16",
                                                            "except": ["192.168.3.0/24", "192.168.4.0/24"]}}]}]},
    {"podSelector": SEL, "egress": [{"to": [{"ipBlock": {"cidr": "192.168.0.0/16",
                                                         "except": ["192.168.3.0/24", "192.168.4.0/24"]}}]}],
     "policyTypes": ["Egress"]},
    {"podSelector": SEL, "egress": [{"to": [{"ipBlock": {"cidr": "fd00:192:168::/48",
                                                         "except": ["fd00:192:168:3::/64", "fd00:192:168:4::/64"]}}]}],
     "policyTypes": ["Ingress", "Egress"]},
    {"podSelector": SEL, "egress": [{"ports": [{"protocol": "TCP", "port": 32000, "endPort": 32768},
                                               {"protocol": "UDP", "port": "dns"}]}]},
    {"podSelector": SEL, "egress": [{"ports": [{"protocol": "TCP", "port": 32000, "endPort": 32000}]}]},
    {"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": "192.168.1.5/24"}}]}]},  # legacy: host bits ok
]


@pytest.mark.parametrize("spec", VALID_POLICIES)
def test_valid_network_policies(spec):
    assert _messages(NP, _np(spec)) == []


#: TestValidateNetworkPolicy's errorCases: the spec and the full ``field.Error`` text the API server answers.
INVALID_POLICIES = {
    "bad protocol": ({"podSelector": SEL, "ingress": [{"ports": [{"protocol": "ICMP", "port": 80}]}]},
                     'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: '
                     '"TCP", "UDP", "SCTP"'),
    "bad port number": ({"podSelector": SEL, "ingress": [{"ports": [{"protocol": "TCP", "port": 0}]}]},
                        "spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"),
    "bad port name": ({"podSelector": SEL, "ingress": [{"ports": [{"protocol": "TCP", "port": "http--x"}]}]},
                      'spec.ingress[0].ports[0].port: Invalid value: "http--x": must not contain consecutive '
                      "hyphens"),
    "bad label key in podSelector": (
        {"podSelector": {"matchLabels": {"a": "b"}},
         "ingress": [{"from": [{"podSelector": {"matchLabels": {"a": "b", "c": "d", "*": "f"}}}]}]},
        'spec.ingress[0].from[0].podSelector.matchLabels: Invalid value: "*": name part must consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
        "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    "missing peer": ({"podSelector": SEL, "ingress": [{"from": [{}]}]},
                     "spec.ingress[0].from[0]: Required value: must specify a peer"),
    "ipBlock beside podSelector": (
        {"podSelector": SEL, "ingress": [{"from": [{"podSelector": SEL, "ipBlock": {"cidr": "192.168.0.0/16"}}]}]},
        "spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer"),
    "missing cidr": ({"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": ""}}]}]},
                     "spec.ingress[0].from[0].ipBlock.cidr: Required value"),
    "bad cidr": ({"podSelector": SEL, "egress": [{"to": [{"ipBlock": {"cidr": "192.168.5.6"}}]}]},
                 'spec.egress[0].to[0].ipBlock.cidr: Invalid value: "192.168.5.6": must be a valid CIDR value, '
                 "(e.g. 10.9.8.0/24 or 2001:db8::/64)"),
    "except outside cidr": (
        {"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": "192.168.8.0/24",
                                                                "except": ["192.168.9.1/24"]}}]}]},
        'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.9.1/24": must be a strict subset of '
        "`cidr`"),
    "except equal to cidr": (
        {"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": "192.168.0.0/24",
                                                                "except": ["192.168.0.0/24"]}}]}]},
        'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.0.0/24": must be a strict subset of '
        "`cidr`"),
    "bad ipv6 cidr": ({"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": "fd00:192:168::/130"}}]}]},
                      'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "fd00:192:168::/130": must be a valid '
                      "CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"),
    "empty except": ({"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": "192.168.8.0/24",
                                                                             "except": [""]}}]}]},
                     'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "": must be a valid CIDR value, '
                     "(e.g. 10.9.8.0/24 or 2001:db8::/64)"),
    "ipv6 except not strictly inside": (
        {"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": "fd00:192:168::/48",
                                                                "except": ["fd00:192:168::/48"]}}]}]},
        'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "fd00:192:168::/48": must be a strict subset of '
        "`cidr`"),
    "bad namespaceSelector operator": (
        {"podSelector": SEL, "egress": [{"to": [{"namespaceSelector": {"matchExpressions": [
            {"key": "team", "operator": "Contains", "values": ["x"]}]}}]}]},
        'spec.egress[0].to[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Contains": not a valid '
        "selector operator"),
    "unknown policy type": ({"podSelector": SEL, "policyTypes": ["foo"]},
                            'spec.policyTypes[0]: Unsupported value: "foo": supported values: "Ingress", "Egress"'),
    "three policy types": ({"podSelector": SEL, "policyTypes": ["Ingress", "Egress", "Egress"]},
                           'spec.policyTypes: Invalid value: ["Ingress","Egress","Egress"]: may not specify more '
                           "than two policyTypes"),
    "endPort below port": ({"podSelector": SEL, "egress": [{"ports": [{"protocol": "TCP", "port": 35000,
                                                                       "endPort": 32000}]}]},
                           "spec.egress[0].ports[0].endPort: Invalid value: 32000: must be greater than or equal "
                           "to `port`"),
    "endPort with a named port": (
        {"podSelector": SEL, "egress": [{"ports": [{"protocol": "TCP", "port": "https", "endPort": 32000}]}]},
        "spec.egress[0].ports[0].endPort: Invalid value: 32000: may not be specified when `port` is non-numeric"),
    "endPort without port": ({"podSelector": SEL, "egress": [{"ports": [{"protocol": "TCP", "endPort": 32000}]}]},
                             "spec.egress[0].ports[0].endPort: Invalid value: 32000: may not be specified when "
                             "`port` is not specified"),
    "endPort out of range": ({"podSelector": SEL, "egress": [{"ports": [{"protocol": "TCP", "port": 30000,
                                                                         "endPort": 65537}]}]},
                             "spec.egress[0].ports[0].endPort: Invalid value: 65537: must be between 1 and 65535, "
                             "inclusive"),
}


@pytest.mark.parametrize("spec, message", INVALID_POLICIES.values(), ids=list(INVALID_POLICIES))
def test_invalid_network_policies(spec, message):
    assert _messages(NP, _np(spec)) == [message]


def test_update_keeps_a_stored_cidr_it_would_refuse_today_but_checks_new_ones():
    # ValidateNetworkPolicyUpdate: CIDRs the stored policy has (written before today's validation) are not
    # re-validated, wherever they move in the new spec
    old = _np({"podSelector": SEL, "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/33"}}]}]})
    old["metadata"]["resourceVersion"] = "1"
    new = _np({"podSelector": SEL, "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/33"}}]}],
               "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/8"}}, {"ipBlock": {"cidr": "10.0.0.0/40"}}]}]})
    new["metadata"]["resourceVersion"] = "1"
    msgs = [c["message"] for c in validate_update(NP, new, old)]
    assert msgs == ['spec.ingress[0].from[1].ipBlock.cidr: Invalid value: "10.0.0.0/40": must be a valid CIDR '
                    'value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']


def _ing(spec: dict, annotations: dict | None = None) -> dict:
    md = {"name": "foo", "namespace": "default"}
    if annotations:
        md["annotations"] = annotations
    return {"metadata": md, "spec": spec}


BACKEND = {"service": {"name": "defaultbackend", "port": {"number": 80}}}


def _rule(path: dict, host: str = "foo.bar.com") -> dict:
    return {"host": host, "http": {"paths": [path]}}


def test_valid_ingress():
    spec = {"defaultBackend": BACKEND, "rules": [_rule({"path": "/foo", "pathType": "Prefix", "backend": BACKEND}),
                                                 _rule({"pathType": "ImplementationSpecific", "backend": BACKEND},
                                                       "*.bar.com")],
            "tls": [{"hosts": ["foo.bar.com"], "secretName": "tls-secret"}], "ingressClassName": "nginx"}
    assert _messages(ING, _ing(spec)) == []


INVALID_INGRESSES = {
    "no rules and no default backend": ({}, "spec: Invalid value: null: either `defaultBackend` or `rules` must be "
                                            "specified"),
    "pathType missing": ({"rules": [_rule({"path": "/foo", "backend": BACKEND})]},
                         "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"),
    "pathType unknown": ({"rules": [_rule({"path": "/foo", "pathType": "Regex", "backend": BACKEND})]},
                         'spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: '
                         '"Exact", "ImplementationSpecific", "Prefix"'),
    "relative Prefix path": ({"rules": [_rule({"path": "foo", "pathType": "Prefix", "backend": BACKEND})]},
                             'spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path'),
    "path with //": ({"rules": [_rule({"path": "/foo//bar", "pathType": "Exact", "backend": BACKEND})]},
                     "spec.rules[0].http.paths[0].path: Invalid value: \"/foo//bar\": must not contain '//'"),
    "both backends": ({"defaultBackend": {**BACKEND, "resource": {"apiGroup": "example.com", "kind": "foo",
                                                                  "name": "bar"}}},
                      'spec.defaultBackend: Invalid value: "": cannot set both resource and service backends'),
    "no backend": ({"defaultBackend": {}}, 'spec.defaultBackend: Invalid value: "": resource or service backend '
                                           "is required"),
    "no port": ({"defaultBackend": {"service": {"name": "web"}}},
                "spec.defaultBackend: Required value: port name or number is required"),
    "IP host": ({"rules": [_rule({"path": "/", "pathType": "Prefix", "backend": BACKEND}, "127.0.0.1")]},
                'spec.rules[0].host: Invalid value: "127.0.0.1": must be a DNS name, not an IP address'),
}


@pytest.mark.parametrize("spec, message", INVALID_INGRESSES.values(), ids=list(INVALID_INGRESSES))
def test_invalid_ingresses(spec, message):
    assert _messages(ING, _ing(spec)) == [message]


def test_ingress_class_annotation_must_match_ingress_class_name_on_create_only():
    obj = _ing({"defaultBackend": BACKEND, "ingressClassName": "nginx"}, {"kubernetes.io/ingress.class": "other"})
    assert _messages(ING, obj) == ['annotations.kubernetes.io/ingress.class: Invalid value: "other": must match '
                                   "`ingressClassName` when both are specified"]
    obj["metadata"]["resourceVersion"] = "1"
    assert validate_update(ING, obj, obj) == []


def test_ingress_class_controller_required_domain_prefixed_and_immutable():
    def ic(controller, **params):
        spec = {"controller": controller}
        if params:
            spec["parameters"] = params
        return {"metadata": {"name": "nginx", "resourceVersion": "1"}, "spec": spec}

    assert _messages(IC, ic("k8s.io/ingress-nginx")) == []
    assert _messages(IC, ic("")) == ["spec.controller: Required value"]
    assert _messages(IC, ic("nginx")) == ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path '
                                          '(such as "acme.io/foo")']
    assert _messages(IC, ic("k8s.io/" + "x" * 250)) == ["spec.controller: Too long: may not be more than 250 bytes"]
    assert _messages(IC, ic("k8s.io/n", kind="Cfg", name="c", scope="Namespace")) == [
        "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]
    assert [c["message"] for c in validate_update(IC, ic("example.com/b"), ic("k8s.io/a"))] == [
        'spec.controller: Invalid value: "example.com/b": field is immutable']


def test_default_ingress_class_admission_sets_the_newest_default_class_on_create():
    from kubenotes.apiserver.load import ADMIN, start_api_server

    server = start_api_server()
    c = server.client("kubectl", ADMIN)
    ing = {"metadata": {"name": "web"}, "spec": {"defaultBackend": BACKEND}}
    assert "ingressClassName" not in c.create("ingresses", ing, "default")["spec"]  # no default class: left alone
    for name in ("nginx", "traefik"):
        c.create("ingressclasses", {"metadata": {"name": name, "annotations": {
            "ingressclass.kubernetes.io/is-default-class": "true"}}, "spec": {"controller": f"example.com/{name}"}})
    # same creationTimestamp: the first by name
    assert c.create("ingresses", {**ing, "metadata": {"name": "a"}}, "default")["spec"]["ingressClassName"] == "nginx"
    annotated = {"metadata": {"name": "b", "annotations": {"kubernetes.io/ingress.class": "haproxy"}},
                 "spec": {"defaultBackend": BACKEND}}
    assert "ingressClassName" not in c.create("ingresses", annotated, "default")["spec"]
    explicit = {"metadata": {"name": "c"}, "spec": {"defaultBackend": BACKEND, "ingressClassName": "traefik"}}
    assert c.create("ingresses", explicit, "default")["spec"]["ingressClassName"] == "traefik"
    # SetDefaults_IngressClass: parameters without a scope are cluster-scoped
    params = c.create("ingressclasses", {"metadata": {"name": "p"}, "spec": {
        "controller": "example.com/p", "parameters": {"kind": "Config", "name": "c"}}})["spec"]["parameters"]
    assert params["scope"] == "Cluster"
