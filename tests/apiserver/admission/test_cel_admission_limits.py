"""Admission CEL: return types checked at create, runtime cost limits per failurePolicy (issue #29).

After kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/compile.go
(``CompileCELExpression``: ``must evaluate to bool``) and pkg/admission/plugin/cel/filter.go plus
apis/cel/config.go (``PerCallLimit``, ``RuntimeCELCostBudget``).
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver import validation
from kubenotes.apiserver.admission import default_admission_chain
from kubenotes.apiserver.admission.cel import output_type
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError

RULE = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}


@pytest.fixture()
def api():
    return APIServer(admission=default_admission_chain(0), validator=validation)


def _causes(api, resource, obj):
    with pytest.raises(ApiError) as e:
        api.client().create(resource, obj)
    assert e.value.code == 422
    return [f'{c["field"]}: {c["message"]}' for c in e.value.status["details"]["causes"]]


def _policy(name="p", **spec):
    return {"metadata": {"name": name}, "spec": {"matchConstraints": {"resourceRules": [RULE]}, **spec}}


@pytest.mark.parametrize("expr,want", [
    ("1 + 2", "int"), ("'a' + 'b'", "string"), ("size(object.data)", "int"), ("[true]", "list"),
    ("{'a': true}", "map"), ("null", "null_type"), ("2.0 * 3.0", "double"), ("object.data.map(k, k)", "list"),
    ("has(object.data) && object.x", "bool"), ("object.metadata.name.startsWith('a')", "bool"),
    ("object.data", None), ("object.x + 1", None), ("true ? 1 : object.y", None),
])
def test_output_type(expr, want):
    assert output_type(expr) == want


def test_validation_and_match_condition_must_evaluate_to_bool(api):
    pol = _policy(matchConditions=[{"name": "c", "expression": "size(object.data)"}],
                  validations=[{"expression": "'always'"}, {"expression": "object.data.x"},
                               {"expression": "true", "messageExpression": "size(object.data) > 1"}],
                  auditAnnotations=[{"key": "k", "valueExpression": "1"}])
    assert _causes(api, "validatingadmissionpolicies", pol) == [
        'spec.matchConditions[0].expression: Invalid value: "size(object.data)": must evaluate to bool',
        'spec.validations[0].expression: Invalid value: "\'always\'": must evaluate to bool',
        'spec.validations[2].messageExpression: Invalid value: "size(object.data) > 1": must evaluate to string',
        'spec.auditAnnotations[0].valueExpression: Invalid value: "1": must evaluate to one of [string null_type]',
    ]


def test_webhook_match_condition_must_evaluate_to_bool(api):
    hook = {"name": "h.example.com", "clientConfig": {"url": "https://h.example.com/v"}, "sideEffects": "None",
            "admissionReviewVersions": ["v1"], "matchConditions": [{"name": "c", "expression": "1 - 1"}]}
    assert _causes(api, "validatingwebhookconfigurations", {"metadata": {"name": "w"}, "webhooks": [hook]}) == [
        'webhooks[0].matchConditions[0].expression: Invalid value: "1 - 1": must evaluate to bool']


def test_map_match_condition_must_evaluate_to_bool():
    api = APIServer(admission=default_admission_chain(0), feature_gates="MutatingAdmissionPolicy=true",
                    runtime_config="admissionregistration.k8s.io/v1beta1=true", validator=validation)
    pol = {"apiVersion": "admissionregistration.k8s.io/v1beta1", "metadata": {"name": "m"}, "spec": {
        "matchConstraints": {"resourceRules": [RULE]}, "reinvocationPolicy": "Never",
        "matchConditions": [{"name": "c", "expression": "'yes'"}],
        "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}}]}}
    assert _causes(api, "mutatingadmissionpolicies", pol) == [
        'spec.matchConditions[0].expression: Invalid value: "\'yes\'": must evaluate to bool']
