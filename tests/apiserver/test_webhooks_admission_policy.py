"""ValidatingAdmissionPolicy (kubenotes.apiserver.admission.validatingadmissionpolicy) and its CEL subset.

Expected texts are upstream's (staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/
dispatcher.go): ``<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>'
denied request: <message>``, ``failed expression: <expr>`` when a validation has no message,
``Validation failed for ValidatingAdmissionPolicy ...`` for the Warn action.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.admission import default_admission_chain
from kubenotes.apiserver.admission.cel import CELError, compile_expression, evaluate
from kubenotes.apiserver.server import RESPONSE_WARNINGS, APIServer
from kubenotes.apiserver.status import ApiError

RULES = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["configmaps"]}]


def _api():
    api = APIServer(admission=default_admission_chain(0))
    c = api.client()
    c.create("namespaces", {"metadata": {"name": "default"}})
    c.create("namespaces", {"metadata": {"name": "prod", "labels": {"env": "prod"}}})
    return api


def _policy(api, name, validations, **spec):
    api.client().create("validatingadmissionpolicies", {"metadata": {"name": name}, "spec": {
        "matchConstraints": {"resourceRules": RULES}, "validations": validations, **spec}})


def _bind(api, name, policy, actions=("Deny",), **spec):
    api.client().create("validatingadmissionpolicybindings", {"metadata": {"name": name}, "spec": {
        "policyName": policy, "validationActions": list(actions), **spec}})


def _cm(name="c", ns="default", **data):
    return {"metadata": {"name": name, "namespace": ns, "labels": {"team": "a"}}, "data": dict(data)}


def test_a_denied_request_has_upstreams_message_and_the_reasons_code():
    api = _api()
    _policy(api, "no-debug", [{"expression": "!has(object.data) || !('debug' in object.data)",
                               "message": "debug keys are not allowed", "reason": "Forbidden"},
                              {"expression": "object.metadata.name.startsWith('c')"}])
    _bind(api, "no-debug-everywhere", "no-debug")
    c = api.client()
    c.create("configmaps", _cm("c1", a="1"), "default")
    with pytest.raises(ApiError) as e:
        c.create("configmaps", _cm("c2", debug="1"), "default")
    assert (e.value.code, e.value.status["reason"], str(e.value)) == (
        403, "Forbidden", "configmaps \"c2\" is forbidden: ValidatingAdmissionPolicy 'no-debug' with binding "
                          "'no-debug-everywhere' denied request: debug keys are not allowed")
    with pytest.raises(ApiError) as e:
        c.create("configmaps", _cm("x"), "default")
    assert e.value.code == 422 and str(e.value).endswith(
        "denied request: failed expression: object.metadata.name.startsWith('c')")
    assert api.get("configmaps", "default", "x") is None


def test_warn_and_audit_actions_let_the_request_through():
    api = _api()
    _policy(api, "two-keys", [{"expression": "size(object.data) <= 2", "message": "at most two keys"}])
    _bind(api, "two-keys-warn", "two-keys", actions=("Warn", "Audit"))
    warnings: list[str] = []
    token = RESPONSE_WARNINGS.set(warnings)
    try:
        api.client().create("configmaps", _cm(a="1", b="2", c="3"), "default")
    finally:
        RESPONSE_WARNINGS.reset(token)
    assert warnings == ["Validation failed for ValidatingAdmissionPolicy 'two-keys' with binding 'two-keys-warn': "
                        "at most two keys"]
    vap = api.admission.plugin("ValidatingAdmissionPolicy")
    assert vap.audit == [{"policy": "two-keys", "binding": "two-keys-warn", "message": "at most two keys"}]


def test_match_conditions_selectors_and_excluded_rules_narrow_the_policy():
    api = _api()
    _policy(api, "prod-only", [{"expression": "false", "message": "refused"}],
            matchConditions=[{"name": "not-system", "expression": "!request.userInfo.username.startsWith('system:')"}])
    _bind(api, "prod", "prod-only", matchResources={"namespaceSelector": {"matchLabels": {"env": "prod"}},
                                                    "excludeResourceRules": [{
                                                        "apiGroups": [""], "apiVersions": ["v1"],
                                                        "operations": ["CREATE"], "resources": ["configmaps"],
                                                        "resourceNames": []}]})
    c = api.client()
    c.create("configmaps", _cm("c", "default"), "default")  # namespace does not match
    c.create("configmaps", _cm("c", "prod"), "prod")  # CREATE is excluded
    with pytest.raises(ApiError) as e:
        c.update("configmaps", _cm("c", "prod", k="v"), "prod")
    assert "with binding 'prod' denied request: refused" in str(e.value)
    from kubenotes.apiserver.request import UserInfo

    system = api.client("kube-controller-manager", UserInfo("system:kube-controller-manager",
                                                            groups=("system:authenticated",)))
    system.update("configmaps", _cm("c", "prod", k="v"), "prod")  # the match condition is false


def test_params_variables_and_failure_policy():
    api = _api()
    c = api.client()
    c.create("configmaps", {"metadata": {"name": "limits"}, "data": {"max": "2"}}, "default")
    _policy(api, "limited", [{"expression": "variables.keys <= int(params.data.max)",
                              "messageExpression": "'too many keys: ' + string(variables.keys)"}],
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
            variables=[{"name": "keys", "expression": "has(object.data) ? size(object.data) : 0"}])
    _bind(api, "limited", "limited", paramRef={"name": "limits", "namespace": "default"})
    c.create("configmaps", _cm("ok", a="1"), "default")
    with pytest.raises(ApiError) as e:
        c.create("configmaps", _cm("big", a="1", b="2", d="3"), "default")
    assert str(e.value).endswith("denied request: too many keys: 3")
    _policy(api, "broken", [{"expression": "object.spec.replicas > 0"}], failurePolicy="Ignore")
    _bind(api, "broken", "broken")
    c.create("configmaps", _cm("fine"), "default")  # the error is ignored
    _policy(api, "broken-fail", [{"expression": "object.spec.replicas > 0"}])
    _bind(api, "broken-fail", "broken-fail")
    with pytest.raises(ApiError) as e:
        c.create("configmaps", _cm("nope"), "default")
    assert str(e.value).endswith("denied request: expression 'object.spec.replicas > 0' resulted in error: no such "
                                 "key: spec")


def test_cel_subset():
    env = {"object": {"spec": {"replicas": 3, "ports": [{"port": 80}, {"port": 443}], "name": "web-1"}}}
    assert evaluate("object.spec.ports.exists(p, p.port == 443) && object.spec.ports.all(p, p.port > 0)", env)
    assert evaluate("object.spec.ports.map(p, p.port).filter(x, x > 100)", env) == [443]
    assert evaluate("object.spec.replicas % 2 == 1 ? 'odd' : 'even'", env) == "odd"
    assert evaluate("object.spec.name.matches('^web-[0-9]+$') && 'web' in ['web', 'db']", env)
    assert evaluate("false && object.spec.missing", env) is False  # CEL's logic absorbs the error
    with pytest.raises(CELError, match="no such key: missing"):
        evaluate("true && object.spec.missing", env)
    with pytest.raises(CELError, match="Syntax error"):
        compile_expression("object.spec.replicas >")
