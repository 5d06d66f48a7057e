"""MutatingAdmissionPolicy (kubenotes.apiserver.admission.mutatingadmissionpolicy), beta in v1.34.

Cases marked "ported" follow upstream's tests (kubernetes/kubernetes@v1.34.0):
staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/json_patch_test.go (TestJSONPatch),
.../mutating/patch/smd_test.go (TestApplyConfiguration) and .../mutating/dispatcher_test.go; the objects are
the same Deployments, written as JSON, and the expected results or error texts are upstream's.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver import validation
from kubenotes.apiserver.admission import default_admission_chain
from kubenotes.apiserver.admission.cel import CELError, evaluate
from kubenotes.apiserver.admission.mutatingadmissionpolicy import _json_patch, apply_configuration_patch
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError
from kubenotes.errors import ConfigError

ON = "MutatingAdmissionPolicy=true"
BETA = "admissionregistration.k8s.io/v1beta1=true"
CM_RULES = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
             "resources": ["configmaps"]}]


def _api(gates=ON, runtime=BETA):
    api = APIServer(admission=default_admission_chain(0), feature_gates=gates, runtime_config=runtime,
                    validator=validation)
    c = api.client()
    c.create("namespaces", {"metadata": {"name": "default"}})
    c.create("namespaces", {"metadata": {"name": "prod", "labels": {"env": "prod"}}})
    return api


def _policy(api, name, mutations, rules=CM_RULES, **spec):
    spec.setdefault("reinvocationPolicy", "Never")  # required: upstream does not default it
    api.client().create("mutatingadmissionpolicies", {"metadata": {"name": name}, "spec": {
        "matchConstraints": {"resourceRules": rules}, "mutations": mutations, **spec}})


def _bind(api, name, policy, **spec):
    api.client().create("mutatingadmissionpolicybindings", {"metadata": {"name": name},
                                                            "spec": {"policyName": policy, **spec}})


def _apply(expr):
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expr}}


def _jsonpatch(expr):
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": expr}}


def _deploy(**spec):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec}


def _containers(*names, **extra):
    return {"template": {"spec": {"containers": [{"name": n} for n in names]}}, **extra}


# ------------------------------------------------------------------------------------------ serving

def test_served_only_with_the_gate_and_the_runtime_config():
    for gates, runtime in ((None, None), (ON, None), (None, BETA)):
        api = _api(gates, runtime)
        with pytest.raises(ApiError) as e:
            api.client().list("mutatingadmissionpolicies")
        assert str(e.value) == 'the server doesn\'t have a resource type "mutatingadmissionpolicies"'
    api = _api()
    assert api.client().list("mutatingadmissionpolicies")["items"] == []
    assert _api(ON, "api/beta=true").client().list("mutatingadmissionpolicybindings")["items"] == []
    with pytest.raises(ConfigError):
        APIServer(runtime_config="admissionregistration.k8s.io/v1beta1=maybe")


def test_the_plugin_runs_first_of_the_policies_and_webhooks():
    names = default_admission_chain().names()
    assert names[names.index("MutatingAdmissionPolicy"):] == [
        "MutatingAdmissionPolicy", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
        "ValidatingAdmissionWebhook", "ResourceQuota"]


# ---------------------------------------------------------------------------- mutations through the API

def test_apply_configuration_sets_a_label_and_a_json_patch_adds_an_annotation():
    api = _api()
    _policy(api, "team", [_apply("Object{metadata: Object.metadata{labels: {'team': 'blue'}}}"),
                          _jsonpatch("[JSONPatch{op: 'add', path: '/metadata/annotations', value: {}},"
                                     " JSONPatch{op: 'add', path: '/metadata/annotations/' + "
                                     "jsonpatch.escapeKey('example.com/owner'), value: object.metadata.name}]")])
    _bind(api, "team", "team")
    cm = api.client().create("configmaps", {"metadata": {"name": "c", "labels": {"app": "x"}}}, "default")
    assert cm["metadata"]["labels"] == {"app": "x", "team": "blue"}
    assert cm["metadata"]["annotations"] == {"example.com/owner": "c"}
    # a kind the rules do not match is left alone
    assert "labels" not in api.client().create("secrets", {"metadata": {"name": "s"}}, "default")["metadata"]


def test_a_pod_gets_a_sidecar_merged_by_name_and_defaulted():
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]
    api = _api()
    _policy(api, "sidecar", [_apply(
        "Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: 'mesh-proxy', "
        "image: 'mesh/proxy:v1', restartPolicy: 'Always'}]}}")], rules=rules,
        matchConditions=[{"name": "not-opted-out", "expression":
                          "!has(object.metadata.labels) || !('mesh-skip' in object.metadata.labels)"}])
    _bind(api, "sidecar", "sidecar")
    c = api.client()
    pod = c.create("pods", {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "app", "image": "n"}]}},
                   "default")
    proxy = pod["spec"]["initContainers"][0]
    assert (proxy["name"], proxy["image"], proxy["restartPolicy"]) == ("mesh-proxy", "mesh/proxy:v1", "Always")
    assert proxy["terminationMessagePath"] == "/dev/termination-log"  # defaulted after the mutation
    skipped = c.create("pods", {"metadata": {"name": "batch", "labels": {"mesh-skip": "1"}},
                                "spec": {"containers": [{"name": "app", "image": "n"}]}}, "default")
    assert "initContainers" not in skipped["spec"]


def test_params_variables_and_binding_match_resources():
    api = _api()
    c = api.client()
    c.create("configmaps", {"metadata": {"name": "defaults"}, "data": {"tier": "gold"}}, "prod")
    _policy(api, "tier", [_apply("Object{metadata: Object.metadata{labels: {'tier': variables.tier}}}")],
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
            variables=[{"name": "tier", "expression": "params.data.tier"},
                       {"name": "unused", "expression": "object.no.such.field"}])
    _bind(api, "tier-prod", "tier", paramRef={"name": "defaults", "parameterNotFoundAction": "Deny"},
          matchResources={"namespaceSelector": {"matchLabels": {"env": "prod"}}})
    cm = c.create("configmaps", {"metadata": {"name": "app"}}, "prod")
    assert cm["metadata"]["labels"] == {"tier": "gold"}
    assert "labels" not in c.create("configmaps", {"metadata": {"name": "app"}}, "default")["metadata"]


def test_a_missing_param_with_deny_refuses_with_upstreams_message():
    api = _api()
    _policy(api, "tier", [_apply("Object{metadata: Object.metadata{labels: {'tier': params.data.tier}}}")],
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"})
    _bind(api, "tier", "tier", paramRef={"name": "absent", "parameterNotFoundAction": "Deny"})
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", {"metadata": {"name": "c"}}, "default")
    assert (e.value.code, str(e.value)) == (403, "policy 'tier' with binding 'tier' denied request: failed to "
                                                 "configure binding: no params found for policy binding with "
                                                 "`Deny` parameterNotFoundAction")


def test_failure_policy_fail_refuses_and_ignore_admits():
    api = _api()
    _policy(api, "broken", [_apply("Object{metadata: Object.metadata{labels: {'x': object.data.missing}}}")])
    _bind(api, "broken", "broken")
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1"}}, "default")
    assert (e.value.code, e.value.status["reason"]) == (403, "Invalid")
    assert str(e.value) == "policy 'broken' with binding 'broken' denied request: no such key: missing"
    assert e.value.status["details"]["causes"] == [{"message": str(e.value)}]
    assert api.get("configmaps", "default", "c") is None  # nothing stored
    api2 = _api()
    _policy(api2, "broken", [_apply("Object{metadata: Object.metadata{labels: {'x': object.data.missing}}}")],
            failurePolicy="Ignore")
    _bind(api2, "broken", "broken")
    assert api2.client().create("configmaps", {"metadata": {"name": "c"}}, "default")["metadata"]["name"] == "c"


def test_reinvocation_if_needed_runs_a_policy_again_after_a_later_change():
    # "a" copies the label "b" sets; without reinvocation "a" sees no label "b" on its first run
    expr_a = ("Object{metadata: Object.metadata{labels: {'a': has(object.metadata.labels) && "
              "'b' in object.metadata.labels ? 'saw-b' : 'no-b'}}}")
    for policy, want in (("IfNeeded", "saw-b"), ("Never", "no-b")):
        api = _api()
        _policy(api, "a", [_apply(expr_a)], reinvocationPolicy=policy)
        _policy(api, "b", [_apply("Object{metadata: Object.metadata{labels: {'b': 'set'}}}")])
        _bind(api, "a", "a")
        _bind(api, "b", "b")
        cm = api.client().create("configmaps", {"metadata": {"name": "c"}}, "default")
        assert cm["metadata"]["labels"] == {"a": want, "b": "set"}, policy


def test_validation_of_the_policy_objects():
    api = _api()
    with pytest.raises(ApiError) as e:
        api.client().create("mutatingadmissionpolicies", {"metadata": {"name": "p"}, "spec": {
            "matchConstraints": {"resourceRules": CM_RULES}, "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "Merge"}, _apply(""), _jsonpatch("[JSONPatch{op: 'add',")]}})
    assert e.value.code == 422
    msgs = [f'{c["field"]}: {c["message"]}' for c in e.value.status["details"]["causes"]]
    assert msgs[0] == ('spec.mutations[0].patchType: Unsupported value: "Merge": supported values: '
                       '"ApplyConfiguration", "JSONPatch"')
    assert msgs[1] == "spec.mutations[1].applyConfiguration.expression: Required value"
    assert msgs[2].startswith('spec.mutations[2].jsonPatch.expression: Invalid value: "[JSONPatch{op: \'add\',": '
                              "compilation failed")
    with pytest.raises(ApiError) as e:
        api.client().create("mutatingadmissionpolicies", {"metadata": {"name": "p"}, "spec": {}})
    assert [f'{c["field"]}: {c["message"]}' for c in e.value.status["details"]["causes"]] == [
        "spec.matchConstraints: Required value", "spec.mutations: Required value: mutations must contain at least "
                                                 "one item", "spec.reinvocationPolicy: Required value"]
    with pytest.raises(ApiError) as e:
        _bind(api, "b", "", paramRef={"name": "x", "selector": {}, "parameterNotFoundAction": "Deny"})
    assert "spec.policyName: Required value" in str(e.value)
    assert "spec.paramRef.name: Forbidden: name and selector are mutually exclusive" in str(e.value)


# ------------------------------------------------------- ported: patch/json_patch_test.go TestJSONPatch

@pytest.mark.parametrize("expr,obj,want", [
    # "jsonPatch with false test operation" / "... true test operation"
    ("[JSONPatch{op: 'test', path: '/spec/replicas', value: 100}, JSONPatch{op: 'replace', path: '/spec/replicas', "
     "value: 3}]", _deploy(replicas=1), _deploy(replicas=1)),
    ("[JSONPatch{op: 'test', path: '/spec/replicas', value: 1}, JSONPatch{op: 'replace', path: '/spec/replicas', "
     "value: 3}]", _deploy(replicas=1), _deploy(replicas=3)),
    # "jsonPatch remove to unset field"
    ("[JSONPatch{op: 'remove', path: '/spec/replicas'},]", _deploy(replicas=1), _deploy()),
    # "jsonPatch remove element in list"
    ("[JSONPatch{op: 'remove', path: '/spec/template/spec/containers/1'}]", _deploy(**_containers("a", "b", "c")),
     _deploy(**_containers("a", "c"))),
    # "jsonPatch move first element to end of list"
    ("[JSONPatch{op: 'move', from: '/spec/template/spec/containers/0', path: '/spec/template/spec/containers/-'}]",
     _deploy(**_containers("a", "b", "c")), _deploy(**_containers("b", "c", "a"))),
    # "jsonPatch copy first element to end of list"
    ("[JSONPatch{op: 'copy', from: '/spec/template/spec/containers/0', path: '/spec/template/spec/containers/-'}]",
     _deploy(**_containers("a", "b", "c")), _deploy(**_containers("a", "b", "c", "a"))),
    # "jsonPatch add to start of list"
    ("[JSONPatch{op: 'add', path: '/spec/template/spec/containers/0', value: {'name': 'x'}}]",
     _deploy(**_containers("a")), _deploy(**_containers("x", "a"))),
    # "jsonPatch add map entry by key and value" (the Object initializer one)
    ("[JSONPatch{op: 'add', path: '/spec', value: Object.spec{selector: Object.spec.selector{}, replicas: 10}}]",
     _deploy(), _deploy(selector={}, replicas=10)),
    # "JSONPatch patch type has field testing" (set fields only)
    ("[JSONPatch{op: 'add', path: '/metadata/labels', value: {'op': string(has(JSONPatch{op: 'v'}.op)), "
     "'value': string(has(JSONPatch{value: 'v'}.value))}}]", _deploy(),
     {**_deploy(), "metadata": {"name": "d", "labels": {"op": "true", "value": "true"}}}),
    # "JSONPatch patch type equality"
    ("[JSONPatch{op: 'add', path: '/metadata/labels', value: {'same': string(JSONPatch{op: 'add'} == "
     "JSONPatch{op: 'add'}), 'different-op': string(JSONPatch{op: 'add'} == JSONPatch{op: 'remove'})}}]",
     _deploy(), {**_deploy(), "metadata": {"name": "d", "labels": {"same": "true", "different-op": "false"}}}),
    # "JSONPatch key escaping"
    ("[JSONPatch{op: 'add', path: '/metadata/labels', value: {}}, JSONPatch{op: 'add', path: '/metadata/labels/' + "
     "jsonpatch.escapeKey('k8s.io/x~y'), value: 'true'}]", _deploy(),
     {**_deploy(), "metadata": {"name": "d", "labels": {"k8s.io/x~y": "true"}}}),
    # "jsonPatch with CEL initializer"
    ("[JSONPatch{op: 'add', path: '/spec/template/spec/containers/-', value: Object.spec.template.spec.containers{"
     "name: 'x', ports: [Object.spec.template.spec.containers.ports{containerPort: 8080}],}},]",
     _deploy(**_containers("a")),
     _deploy(template={"spec": {"containers": [{"name": "a"}, {"name": "x", "ports": [{"containerPort": 8080}]}]}})),
])
def test_ported_json_patch_cases(expr, obj, want):
    assert _json_patch(obj, evaluate(expr, {"object": obj})) == want


def test_ported_json_patch_errors():
    # "jsonPatch invalid CEL initializer type"
    with pytest.raises(CELError) as e:
        _json_patch(_deploy(**_containers("a")), evaluate(
            "[JSONPatch{op: 'add', path: '/spec/template/spec/containers/-', value: Object.spec.template.spec."
            "containers{name: 'x', ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]", {}))
    assert str(e.value).endswith(' mismatch: unexpected type name "Object.spec.template.spec.containers.portsZ", '
                                 'expected "Object.spec.template.spec.containers.ports", which matches field name '
                                 "path from root Object type")
    with pytest.raises(CELError) as e:
        _json_patch(_deploy(), evaluate("[JSONPatch{op: 'replace', path: '/spec/replicas', value: 1}]", {}))
    assert str(e.value).startswith("JSONPath: ")


# --------------------------------------------------- ported: patch/smd_test.go TestApplyConfiguration

def test_ported_apply_configuration_cases():
    d = _deploy(replicas=1, **_containers("a"))
    # "apply configuration add to listType=map"
    out = apply_configuration_patch(d, evaluate(
        "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: "
        "[Object.spec.template.spec.containers{name: 'b', image: 'nginx'}]}}}}", {}), "apps/v1", "Deployment")
    assert out["spec"]["template"]["spec"]["containers"] == [{"name": "a"}, {"name": "b", "image": "nginx"}]
    # "apply configuration update listType=map entry"
    out = apply_configuration_patch(out, evaluate(
        "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: "
        "[Object.spec.template.spec.containers{name: 'a', image: 'alpine'}]}}}}", {}), "apps/v1", "Deployment")
    assert out["spec"]["template"]["spec"]["containers"][0] == {"name": "a", "image": "alpine"}
    # "apply configuration with change to atomic"
    with pytest.raises(CELError) as e:
        apply_configuration_patch(d, evaluate("Object{spec: Object.spec{selector: Object.spec.selector{"
                                              "matchLabels: {'l': 'v'}}}}", {}), "apps/v1", "Deployment")
    assert str(e.value) == ("error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps "
                            "or structs: .spec.selector")
    # "apply configuration with invalid type name"
    with pytest.raises(CELError) as e:
        apply_configuration_patch(d, evaluate("Object{spec: Object.specx{replicas: 1}}", {}), "apps/v1", "Deployment")
    assert str(e.value) == ('type mismatch: unexpected type name "Object.specx", expected "Object.spec", which '
                            "matches field name path from root Object type")
    # "apply configuration with invalid return type"
    with pytest.raises(CELError) as e:
        apply_configuration_patch(d, evaluate("\"I'm a teapot!\"", {}), "apps/v1", "Deployment")
    assert str(e.value).startswith("unsupported return type from ApplyConfiguration expression")


# ------------------------------------------------------------------- ValidatingAdmissionPolicy gaps fixed

def _vap(api, name, **spec):
    api.client().create("validatingadmissionpolicies", {"metadata": {"name": name}, "spec": {
        "matchConstraints": {"resourceRules": CM_RULES}, **spec}})
    api.client().create("validatingadmissionpolicybindings", {"metadata": {"name": name}, "spec": {
        "policyName": name, "validationActions": ["Deny"]}})


def test_vap_audit_annotations_and_lazy_variables():
    api = _api()
    _vap(api, "owner", validations=[{"expression": "variables.ok"}],
         variables=[{"name": "ok", "expression": "true"}, {"name": "broken", "expression": "object.no.such"}],
         auditAnnotations=[{"key": "owner", "valueExpression": "object.metadata.name + '-owner'"},
                           {"key": "skipped", "valueExpression": "null"}])
    api.client().create("configmaps", {"metadata": {"name": "c"}}, "default")  # the unused broken variable is fine
    vap = api.admission.plugin("ValidatingAdmissionPolicy")
    assert vap.audit_annotations == [{"key": "owner/owner", "value": "c-owner"}]


def test_vap_params_by_selector_evaluates_each_param():
    api = _api()
    c = api.client()
    for name, limit in (("small", "1"), ("tiny", "0")):
        c.create("configmaps", {"metadata": {"name": name, "labels": {"limits": "yes"}}, "data": {"max": limit}},
                 "prod")
    api.client().create("validatingadmissionpolicies", {"metadata": {"name": "max-keys"}, "spec": {
        "matchConstraints": {"resourceRules": [{**CM_RULES[0], "operations": ["UPDATE"]}]},
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "validations": [{"expression": "size(object.data) <= int(params.data.max)",
                         "messageExpression": "'at most ' + params.data.max + ' keys'"}]}})
    api.client().create("validatingadmissionpolicybindings", {"metadata": {"name": "max-keys"}, "spec": {
        "policyName": "max-keys", "validationActions": ["Deny"],
        "paramRef": {"selector": {"matchLabels": {"limits": "yes"}}, "parameterNotFoundAction": "Allow"}}})
    cm = c.get("configmaps", "small", "prod")
    cm["data"] = {"a": "1"}
    with pytest.raises(ApiError) as e:
        c.update("configmaps", cm, "prod")
    assert str(e.value).endswith("denied request: at most 0 keys")  # "tiny" (max 0) refuses, "small" allows


# ------------------------------------------------------------ ported: dispatcher_test.go TestDispatcher

DEPLOY_RULES = [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["*"], "resources": ["deployments"]}]


def _deployment(replicas=None):
    spec = {"selector": {"matchLabels": {"app": "d1"}}, "template": {
        "metadata": {"labels": {"app": "d1"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d1"}, "spec": spec}


def test_ported_dispatcher_with_param():
    api = _api()
    api.client().create("configmaps", {"metadata": {"name": "cm1"}, "data": {"key": "10"}}, "default")
    _policy(api, "policy1", [_apply("Object{spec: Object.spec{replicas: object.spec.replicas + "
                                    "int(params.data['key'])}}")], rules=DEPLOY_RULES,
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"})
    _bind(api, "binding", "policy1", paramRef={"name": "cm1", "namespace": "default",
                                               "parameterNotFoundAction": "Deny"})
    assert api.client().create("deployments", _deployment(1), "default")["spec"]["replicas"] == 11


def test_ported_dispatcher_both_policies_and_match_conditions():
    # "both policies reinvoked" (optional field access)
    api = _api()
    for p in ("policy1", "policy2"):
        _policy(api, p, [_apply("Object{metadata: Object.metadata{labels: {'%s': "
                                "string(int(object.?metadata.labels['count'].orValue('1')) + 1)}}}" % p)],
                rules=DEPLOY_RULES)
        _bind(api, f"binding-{p}", p)
    assert api.client().create("deployments", _deployment(), "default")["metadata"]["labels"] == {
        "policy1": "2", "policy2": "2"}
    # "1st policy sets match condition that 2nd policy matches", and the reverse: the 1st still does not match
    prod_only = [{"name": "prodonly", "expression": "object.?metadata.labels['environment'].orValue('') == "
                                                    "'production'"}]
    for first_conditions, want in ((None, {"environment": "production", "policy1invoked": "true"}),
                                   (prod_only, {"environment": "production"})):
        api = _api()
        sets_env = _apply("Object{metadata: Object.metadata{labels: {'environment': 'production'}}}")
        marks = _apply("Object{metadata: Object.metadata{labels: {'policy1invoked': 'true'}}}")
        if first_conditions is None:
            _policy(api, "policy1", [sets_env], rules=DEPLOY_RULES)
            _policy(api, "policy2", [marks], rules=DEPLOY_RULES, matchConditions=prod_only)
        else:
            _policy(api, "policy1", [marks], rules=DEPLOY_RULES, matchConditions=first_conditions)
            _policy(api, "policy2", [sets_env], rules=DEPLOY_RULES)
        _bind(api, "binding1", "policy1")
        _bind(api, "binding2", "policy2")
        assert api.client().create("deployments", _deployment(), "default")["metadata"]["labels"] == want


# ------------------------------------------- an apply configuration typed against the schema (patch/smd.go)

def test_an_undeclared_field_fails_the_typed_conversion_at_admission_not_at_create():
    d = _deploy(replicas=1, **_containers("a"))
    with pytest.raises(CELError) as e:
        apply_configuration_patch(d, evaluate("Object{spec: Object.spec{replicaz: 2}}", {}), "apps/v1", "Deployment")
    assert str(e.value) == ("error applying patch: failed to convert patch object to typed object: .spec.replicaz: "
                            "field not declared in schema")
    # a keyed list item is named by its key; several undeclared fields in different objects are listed
    with pytest.raises(CELError) as e:
        apply_configuration_patch(d, evaluate(
            "Object{metadata: Object.metadata{labelz: {'a': 'b'}}, spec: Object.spec{template: Object.spec.template{"
            "spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'a', "
            "imag: 'x'}]}}}}", {}), "apps/v1", "Deployment")
    assert str(e.value) == ("error applying patch: failed to convert patch object to typed object: errors:\n"
                            "  .metadata.labelz: field not declared in schema\n"
                            '  .spec.template.spec.containers[name="a"].imag: field not declared in schema')
    # declared fields, map values (labels) and nested keyed lists pass
    out = apply_configuration_patch(d, evaluate(
        "Object{metadata: Object.metadata{labels: {'any-key': 'v'}}, spec: Object.spec{template: "
        "Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{"
        "name: 'a', ports: [Object.spec.template.spec.containers.ports{containerPort: 80}]}]}}}}", {}),
        "apps/v1", "Deployment")
    assert out["spec"]["template"]["spec"]["containers"][0]["ports"] == [{"containerPort": 80}]
    # through the API: the policy is accepted (no schema at create), the request is refused by failurePolicy Fail
    api = _api()
    _policy(api, "typo", [_apply("Object{data: {'a': 'b'}, metadata: Object.metadata{labelz: {'x': 'y'}}}")])
    _bind(api, "typo", "typo")
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", {"metadata": {"name": "c"}}, "default")
    assert (e.value.code, str(e.value)) == (403, "policy 'typo' with binding 'typo' denied request: error applying "
                                                 "patch: failed to convert patch object to typed object: "
                                                 ".metadata.labelz: field not declared in schema")


def test_a_custom_resources_apply_configuration_is_typed_by_its_crd_schema():
    from kubenotes.sim.operators import website_objects

    api = _api()
    c = api.client()
    crd = next(o for o in website_objects()[0] if o["kind"] == "CustomResourceDefinition")
    c.create("customresourcedefinitions", crd)
    rules = [{"apiGroups": ["example.com"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["websites"]}]
    site = {"apiVersion": "example.com/v1", "kind": "Website", "metadata": {"name": "w"},
            "spec": {"replicas": 1, "image": "nginx:1.27"}}
    _policy(api, "port", [_apply("Object{metadata: Object.metadata{labels: {'p': 'x'}}, "
                                 "spec: Object.spec{port: 8080}}")], rules=rules)
    _bind(api, "port", "port")
    made = c.create("websites", site, "default")
    assert (made["spec"]["port"], made["metadata"]["labels"]) == (8080, {"p": "x"})
    c.delete("mutatingadmissionpolicybindings", "port")
    _policy(api, "typo", [_apply("Object{spec: Object.spec{prot: 80}}")], rules=rules)
    _bind(api, "typo", "typo")
    with pytest.raises(ApiError) as e:
        c.create("websites", dict(site, metadata={"name": "w2"}), "default")
    assert str(e.value) == ("policy 'typo' with binding 'typo' denied request: error applying patch: failed to convert "
                            "patch object to typed object: .spec.prot: field not declared in schema")
