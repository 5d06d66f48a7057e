"""MutatingAdmissionPolicy and its binding refused at create with upstream's field paths and texts.

The cases follow ``validateMutatingAdmissionPolicySpec``, ``validateMutation`` and
``validateMutatingAdmissionPolicyBindingSpec`` (kubernetes/kubernetes@v1.34.0
pkg/apis/admissionregistration/validation/validation.go) and the defaults of
pkg/apis/admissionregistration/v1beta1/defaults.go: each case is a valid policy with one thing broken, and the
expected lines are what kube-apiserver returns for it.
"""

from __future__ import annotations

import copy

import pytest

from kubenotes.apiserver import validation
from kubenotes.apiserver.admission import default_admission_chain
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError

RULE = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}
VALID = {"metadata": {"name": "p"}, "spec": {
    "matchConstraints": {"resourceRules": [RULE]}, "reinvocationPolicy": "Never",
    "mutations": [{"patchType": "ApplyConfiguration",
                   "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"}}]}}


@pytest.fixture(scope="module")
def api():
    return APIServer(admission=default_admission_chain(0), feature_gates="MutatingAdmissionPolicy=true",
                     runtime_config="admissionregistration.k8s.io/v1beta1=true", validator=validation)


def _errors(api, resource, obj):
    try:
        api.client().create(resource, obj)
    except ApiError as e:
        assert e.code == 422
        return [f'{c["field"]}: {c["message"]}' for c in e.status["details"]["causes"]]
    api.client().delete(resource, obj["metadata"]["name"])
    return []


def _policy(**spec):
    p = copy.deepcopy(VALID)
    for k, v in spec.items():
        if v is None:
            p["spec"].pop(k)
        else:
            p["spec"][k] = v
    return p


def test_a_valid_policy_is_accepted_and_failure_policy_defaults_need_no_value(api):
    assert _errors(api, "mutatingadmissionpolicies", _policy()) == []
    # paramKind, variables and params in expressions; jsonpatch library; DELETE-free wildcard operations
    assert _errors(api, "mutatingadmissionpolicies", _policy(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConstraints={"resourceRules": [dict(RULE, operations=["*"])]},
        matchConditions=[{"name": "p", "expression": "params != null"}],
        variables=[{"name": "tier", "expression": "params.data.tier"}],
        mutations=[{"patchType": "JSONPatch", "jsonPatch": {"expression": (
            "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b'), "
            "value: variables.tier}]")}}])) == []


@pytest.mark.parametrize("spec,want", [
    # "reinvocationPolicy is required" / "unsupported reinvocationPolicy"
    ({"reinvocationPolicy": None}, ["spec.reinvocationPolicy: Required value"]),
    ({"reinvocationPolicy": "Always"},
     ['spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']),
    ({"failurePolicy": "Maybe"},
     ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"']),
    # "mutations must contain at least one item"
    ({"mutations": []}, ["spec.mutations: Required value: mutations must contain at least one item"]),
    # "patchType is required" / "unsupported patchType"
    ({"mutations": [{"applyConfiguration": {"expression": "Object{}"}}]},
     ["spec.mutations[0].patchType: Required value"]),
    ({"mutations": [{"patchType": "Merge"}]},
     ['spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"']),
    # "JSONPatch without jsonPatch, with applyConfiguration"
    ({"mutations": [{"patchType": "JSONPatch", "applyConfiguration": {"expression": "Object{}"}}]},
     ["spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
      'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when '
      "patchType is JSONPatch"]),
    ({"mutations": [{"patchType": "ApplyConfiguration", "jsonPatch": {"expression": "[]"}}]},
     ["spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration",
      'spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is '
      "ApplyConfiguration"]),
    ({"mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "  "}}]},
     ["spec.mutations[0].jsonPatch.expression: Required value"]),
    # params without a paramKind are not declared
    ({"mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "params.x"}}]},
     ["spec.mutations[0].applyConfiguration.expression: Invalid value: \"params.x\": compilation failed: ERROR: "
      "<input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^"]),
    # matchConstraints
    ({"matchConstraints": None}, ["spec.matchConstraints: Required value"]),
    ({"matchConstraints": {"namespaceSelector": {}}}, ["spec.matchConstraints.resourceRules: Required value"]),
    ({"matchConstraints": {"resourceRules": [dict(RULE, operations=["CREATE", "DELETE"])]}},
     ['spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", '
      '"CONNECT", "CREATE", "UPDATE"']),
    ({"matchConstraints": {"resourceRules": [dict(RULE, operations=["PATCH"])], "matchPolicy": "Fuzzy"}},
     ['spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
      'spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", '
      '"CONNECT", "CREATE", "DELETE", "UPDATE"',
      'spec.matchConstraints.resourceRules.operations: Unsupported value: "PATCH": supported values: "*", '
      '"CONNECT", "CREATE", "UPDATE"']),
    ({"matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "resources": ["pods", "*/*"],
                                              "scope": "Global", "resourceNames": ["a", "a"]}]}},
     ['spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "a"',
      "spec.matchConstraints.resourceRules[0].apiGroups: Required value",
      "spec.matchConstraints.resourceRules[0].apiVersions: Required value",
      'spec.matchConstraints.resourceRules[0].resources: Invalid value: ["pods","*/*"]: if \'*/*\' is present, '
      "must not specify other resources",
      'spec.matchConstraints.resourceRules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", '
      '"Namespaced"']),
    # paramKind
    ({"paramKind": {"apiVersion": "a/b/c"}},
     ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.paramKind.kind: Required value"]),
    # variables: a CEL identifier and an expression
    ({"variables": [{"name": "1x", "expression": "1"}, {"name": "in", "expression": ""}]},
     ['spec.variables[0].name: Invalid value: "1x": must be a valid CEL identifier',
      'spec.variables[1].name: Invalid value: "in": must be a valid CEL identifier',
      "spec.variables[1].expression: Required value: expression is not specified"]),
    # matchConditions use the stateless compiler: no variables there
    ({"matchConditions": [{"name": "v", "expression": "variables.x"}]},
     ["spec.matchConditions[0].expression: Invalid value: \"variables.x\": compilation failed: ERROR: <input>:1:1: "
      "undeclared reference to 'variables' (in container '')\n | variables.x\n | ^"]),
])
def test_policy_field_errors(api, spec, want):
    assert _errors(api, "mutatingadmissionpolicies", _policy(**spec)) == want


@pytest.mark.parametrize("spec,want", [
    ({}, ["spec.policyName: Required value"]),
    ({"policyName": "Bad_Name"},
     ['spec.policyName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case '
      "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    ({"policyName": "p", "matchResources": {"resourceRules": [dict(RULE, operations=["DELETE"])]}},
     ['spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", '
      '"CREATE", "UPDATE"']),
    ({"policyName": "p", "paramRef": {"name": "x"}}, ["spec.paramRef.parameterNotFoundAction: Required value"]),
])
def test_binding_field_errors(api, spec, want):
    assert _errors(api, "mutatingadmissionpolicybindings", {"metadata": {"name": "b"}, "spec": spec}) == want
