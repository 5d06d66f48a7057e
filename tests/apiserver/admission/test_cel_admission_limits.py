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


# --------------------------- runtime cost: PerCallLimit per expression, budgets per binding / webhook (filter.go)

HEAVY = "object.data.a.contains(object.data.a)"  # ceil(0.1 len)^2: 4,000,000 for 20,000 bytes, 990,025 for 9,950
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
DOWN = "https://127.0.0.1:1/x"  # calling it fails: a refusal that names the budget shows it was not called


def _served(api):
    api.client().create("namespaces", {"metadata": {"name": "default"}})
    return api


def _cm(size):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "x" * size}}


def _bind(api, policy, validations, **spec):
    api.client().create("validatingadmissionpolicies", _policy(
        validations=[{"expression": e} for e in validations], failurePolicy=policy, **spec))
    api.client().create("validatingadmissionpolicybindings", {"metadata": {"name": "b"}, "spec": {
        "policyName": "p", "validationActions": ["Deny"]}})


def _refusal(api, obj):
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", obj, "default")
    return str(e.value)


def test_vap_expression_over_the_per_call_limit_is_its_error_under_fail(api):
    _bind(_served(api), "Fail", [HEAVY])
    assert _refusal(api, _cm(20_000)) == (
        "configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
        f"expression '{HEAVY}' resulted in error: operation cancelled: actual cost limit exceeded")
    assert api.client().create("configmaps", _cm(9_950), "default")["metadata"]["name"] == "c"  # 990,025: allowed


def test_vap_per_call_limit_is_ignored_under_ignore(api):
    _bind(_served(api), "Ignore", [HEAVY])
    assert api.client().create("configmaps", _cm(20_000), "default")["metadata"]["name"] == "c"


@pytest.mark.parametrize("policy", ["Fail", "Ignore"])
def test_vap_validations_share_the_runtime_budget(api, policy):
    _bind(_served(api), policy, [HEAVY] * 11)  # 10 x 990,025 fit in 10,000,000; the 11th does not
    if policy == "Ignore":
        assert api.client().create("configmaps", _cm(9_950), "default")["metadata"]["name"] == "c"
        return
    assert _refusal(api, _cm(9_950)) == (
        "configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
        + OUT_OF_BUDGET)


def test_vap_ten_validations_fit_the_budget(api):
    _bind(_served(api), "Fail", [HEAVY] * 10)
    assert api.client().create("configmaps", _cm(9_950), "default")["metadata"]["name"] == "c"


def test_vap_match_conditions_have_their_own_smaller_budget(api):
    conds = [{"name": f"c{i}", "expression": f"{HEAVY} || true"} for i in range(3)]
    _bind(_served(api), "Fail", ["false"], matchConditions=conds)  # 3 x 990,025 > 2,500,000
    assert _refusal(api, _cm(9_950)).endswith("denied request: " + OUT_OF_BUDGET)


def _webhook(api, policy, n):
    hook = {"name": "cost.example.com", "clientConfig": {"url": DOWN, "caBundle": ""}, "sideEffects": "None",
            "admissionReviewVersions": ["v1"], "failurePolicy": policy,
            "rules": [RULE],
            "matchConditions": [{"name": f"c{i}", "expression": f"{HEAVY} || true"} for i in range(n)]}
    api.client().create("validatingwebhookconfigurations", {"metadata": {"name": "w"}, "webhooks": [hook]})


def test_webhook_match_conditions_out_of_budget_refuse_under_fail(api):
    _webhook(_served(api), "Fail", 3)
    assert _refusal(api, _cm(9_950)) == f'configmaps "c" is forbidden: {OUT_OF_BUDGET}'


def test_webhook_match_conditions_within_budget_call_the_webhook(api):
    _webhook(_served(api), "Fail", 2)  # 1,980,050: the webhook is called (and is down)
    assert "failed calling webhook" in _refusal(api, _cm(9_950))


def test_webhook_match_conditions_out_of_budget_skip_the_webhook_under_ignore(api):
    _webhook(_served(api), "Ignore", 3)
    assert api.client().create("configmaps", _cm(9_950), "default")["metadata"]["name"] == "c"


def test_webhook_match_condition_over_the_per_call_limit(api):
    _webhook(_served(api), "Fail", 1)
    # 1,440,000: over PerCallLimit, within the 2,500,000 budget, so the expression's own error
    assert _refusal(api, _cm(12_000)) == (
        f"configmaps \"c\" is forbidden: expression '{HEAVY} || true' resulted in error: "
        "operation cancelled: actual cost limit exceeded")
    # 4,000,000: the call's cost is counted whole (as cel-go's tracker does), so it also spends the budget
    assert _refusal(api, _cm(20_000)) == f'configmaps "c" is forbidden: {OUT_OF_BUDGET}'


def test_map_mutation_over_the_per_call_limit_fails_per_failure_policy():
    for policy, refused in (("Fail", True), ("Ignore", False)):
        api = _served(APIServer(admission=default_admission_chain(0), feature_gates="MutatingAdmissionPolicy=true",
                                runtime_config="admissionregistration.k8s.io/v1beta1=true", validator=validation))
        patch = f"{HEAVY} ? [] : []"
        api.client().create("mutatingadmissionpolicies", {"metadata": {"name": "m"}, "spec": {
            "matchConstraints": {"resourceRules": [RULE]}, "reinvocationPolicy": "Never", "failurePolicy": policy,
            "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": patch}}]}})
        api.client().create("mutatingadmissionpolicybindings", {"metadata": {"name": "mb"},
                                                                 "spec": {"policyName": "m"}})
        if refused:
            assert "operation cancelled: actual cost limit exceeded" in _refusal(api, _cm(20_000))
        else:
            assert api.client().create("configmaps", _cm(20_000), "default")["metadata"]["name"] == "c"
