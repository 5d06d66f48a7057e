"""ValidatingAdmissionPolicy and its binding refused at create with upstream's field paths and texts.

After ``validateValidatingAdmissionPolicySpec``, ``validateValidation``, ``validateAuditAnnotation`` and
``validateValidatingAdmissionPolicyBindingSpec`` (kubernetes/kubernetes@v1.34.0
pkg/apis/admissionregistration/validation/validation.go): each case is a valid object with one thing broken.
"""

from __future__ import annotations

import copy

import pytest

from kubenotes.apiserver import validation
from kubenotes.apiserver.admission import default_admission_chain
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError

RULE = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}
VALID = {"metadata": {"name": "p"}, "spec": {"matchConstraints": {"resourceRules": [RULE]},
                                             "validations": [{"expression": "object.metadata.name != 'x'"}]}}


@pytest.fixture(scope="module")
def api():
    return APIServer(admission=default_admission_chain(0), validator=validation)


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
    p["spec"].update(spec)
    return p


def test_valid_policies_are_accepted(api):
    assert _errors(api, "validatingadmissionpolicies", _policy()) == []
    assert _errors(api, "validatingadmissionpolicies", _policy(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"}, variables=[{"name": "n", "expression": "params.data.n"}],
        validations=[{"expression": "variables.n != ''", "messageExpression": "'bad: ' + object.metadata.name",
                      "reason": "Forbidden"}],
        auditAnnotations=[{"key": "seen", "valueExpression": "object.metadata.name"}])) == []


@pytest.mark.parametrize("spec,want", [
    ({"validations": []},
     ["spec.validations: Required value: validations or auditAnnotations must contain at least one item",
      "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item"]),
    ({"validations": [{"expression": " ", "message": "two\nlines", "reason": "Teapot"}]},
     ["spec.validations[0].expression: Required value: expression is not specified",
      'spec.validations[0].message: Invalid value: "two\\nlines": must not contain line breaks',
      'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", '
      '"RequestEntityTooLarge"']),
    ({"validations": [{"expression": "params.x"}]},
     ["spec.validations[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: "
      "undeclared reference to 'params' (in container '')\n | params.x\n | ^"]),
    ({"auditAnnotations": [{"key": "a", "valueExpression": "'1'"}, {"key": "a", "valueExpression": ""}]},
     ["spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified",
      'spec.auditAnnotations[1].key: Duplicate value: "a"']),
    ({"failurePolicy": "Sometimes", "matchConstraints": {"namespaceSelector": {}}},
     ['spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
      "spec.matchConstraints.resourceRules: Required value"]),
])
def test_policy_field_errors(api, spec, want):
    assert _errors(api, "validatingadmissionpolicies", _policy(**spec)) == want


@pytest.mark.parametrize("spec,want", [
    ({"policyName": "p"}, ["spec.validationActions: Required value: at least one validation action is required"]),
    ({"policyName": "p", "validationActions": ["Deny", "Block"]},
     ['spec.validationActions[1]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"']),
    ({"policyName": "p", "validationActions": ["Warn", "Deny"]},
     ['spec.validationActions: Invalid value: ["Warn","Deny"]: must not contain both Deny and Warn (repeating the '
      "same validation failure information in the API response and headers serves no purpose)"]),
    ({"policyName": "p", "validationActions": ["Deny"], "matchResources": {"matchPolicy": "Loose"}},
     ['spec.matchResources.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"']),
])
def test_binding_field_errors(api, spec, want):
    assert _errors(api, "validatingadmissionpolicybindings", {"metadata": {"name": "b"}, "spec": spec}) == want
