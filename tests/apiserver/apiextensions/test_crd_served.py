"""CustomResourceDefinitions served live by the API server (kubenotes.apiserver.apiextensions).

Expected texts are upstream's: the naming and establishing controllers' conditions
(pkg/controller/status/naming_controller.go, establish/establishing_controller.go),
kube-openapi's validation messages as the apiextensions-apiserver turns them into
field errors (pkg/apiserver/validation/validation.go), the finalizer controller's
Terminating conditions (pkg/controller/finalizer/crd_finalizer.go).
"""

from __future__ import annotations

import copy

import pytest

from kubenotes.apiserver import discovery, openapi, validation
from kubenotes.apiserver.apiextensions import CLEANUP_FINALIZER
from kubenotes.apiserver.apiextensions.tableconvertor import table_for_columns
from kubenotes.apiserver.apiextensions.schema import default, prune, validate
from kubenotes.apiserver.request import Attributes
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"], "categories": ["all"]},
        "versions": [
            {"name": "v1", "served": True, "storage": True,
             "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                      "statusReplicasPath": ".status.replicas",
                                                      "labelSelectorPath": ".status.selector"}},
             "additionalPrinterColumns": [{"name": "Colour", "type": "string", "jsonPath": ".spec.colour"},
                                          {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}],
             "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                 "spec": {"type": "object", "required": ["colour"], "properties": {
                     "colour": {"type": "string", "enum": ["red", "blue"]},
                     "size": {"type": "integer", "default": 1, "minimum": 1, "maximum": 10},
                     "name": {"type": "string", "maxLength": 5, "pattern": "^[a-z]+$"},
                     "replicas": {"type": "integer"},
                     "port": {"x-kubernetes-int-or-string": True},
                     "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
                     "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}},
                 "status": {"type": "object", "properties": {"replicas": {"type": "integer"},
                                                             "selector": {"type": "string"}}}}}}},
            {"name": "v1beta1", "served": True, "storage": False,
             "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}},
        ]},
}


def _widget(obj_name: str = "a", **spec) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": obj_name},
            "spec": {"colour": "red", **spec}}


@pytest.fixture
def api():
    server = APIServer(validator=validation)
    server.client().create("customresourcedefinitions", copy.deepcopy(CRD))
    return server


def test_crd_is_named_accepted_and_established_by_the_apiextensions_apiserver(api):
    crd = api.client().get("customresourcedefinitions", "widgets.example.com")
    st = crd["status"]
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in st["conditions"]] == [
        ("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
        ("Established", "True", "InitialNamesAccepted", "the initial names have been accepted")]
    assert st["acceptedNames"]["singular"] == "widget" and st["acceptedNames"]["listKind"] == "WidgetList"
    assert st["storedVersions"] == ["v1"] and crd["spec"]["conversion"] == {"strategy": "None"}
    assert [(e.component, e.verb) for e in api.audit_log[-2:]] == [("kubectl", "create"),
                                                                   ("apiextensions-apiserver", "update")]


def test_custom_resources_are_defaulted_pruned_and_validated(api):
    c = api.client()
    w = c.create("wd", _widget(junk=1, extra={"anything": [1]}), "default")
    assert w["spec"] == {"colour": "red", "size": 1, "extra": {"anything": [1]}}
    assert w["metadata"]["generation"] == 1 and "status" not in w
    with pytest.raises(ApiError) as e:
        c.create("widgets", _widget("b", size="big", colour="green", name="TOOLONG", tags=["a", "b", "c"],
                                    port=True), "default")
    assert e.value.code == 422
    assert str(e.value) == (
        'Widget.example.com "b" is invalid: ['
        'spec.colour: Unsupported value: "green": supported values: "red", "blue", '
        'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string", '
        "spec.name: Too long: may not be more than 5 bytes, "
        "spec.name: Invalid value: \"TOOLONG\": spec.name in body should match '^[a-z]+$', "
        "spec.tags: Too many: 3: must have at most 2 items, "
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"]')
    with pytest.raises(ApiError) as e:
        c.create("widgets", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "c"},
                             "spec": {"size": 0}}, "default")
    assert str(e.value) == ('Widget.example.com "c" is invalid: [spec.colour: Required value, spec.size: Invalid '
                            'value: 0: spec.size in body should be greater than or equal to 1]')
    assert api.store.get(api.crds.lookup("example.com", "v1", "widgets"), "default", "c") is None


def test_strict_field_validation_refuses_pruned_fields(api):
    ri = api.crds.lookup("example.com", "v1", "widgets")
    a = Attributes(api.client().user, "create", ri, "", "default", "", False, "kubectl",
                   {"fieldValidation": "Strict"})
    with pytest.raises(ApiError) as e:
        api.create(a, _widget(junk=1))
    assert (e.value.code, str(e.value)) == (400, 'Widget in version "v1" cannot be handled as a Widget: strict '
                                                 'decoding error: unknown field "spec.junk"')


def test_status_subresource_generation_and_scale(api):
    c = api.client()
    w = c.create("widgets", _widget(replicas=1), "default")
    w["status"] = {"replicas": 1, "selector": "app=w"}
    w["spec"]["colour"] = "blue"
    after = c.update("widgets", w, "default", subresource="status")
    assert after["status"] == {"replicas": 1, "selector": "app=w"} and after["spec"]["colour"] == "red"
    assert after["metadata"]["generation"] == 1
    after["spec"]["colour"], after["status"] = "blue", {"replicas": 9}
    main = c.update("widgets", after, "default")
    assert main["spec"]["colour"] == "blue" and main["status"]["replicas"] == 1
    assert main["metadata"]["generation"] == 2
    scale = c.scale("widgets", "a", 4, "default")
    assert (scale["apiVersion"], scale["spec"], scale["status"]) == (
        "autoscaling/v1", {"replicas": 4}, {"replicas": 1, "selector": "app=w"})
    assert c.get("widgets", "a", "default")["spec"]["replicas"] == 4


def test_other_served_version_shares_the_storage_version(api):
    c = api.client()
    c.create("widgets", _widget(), "default")
    beta = c.get("widgets.v1beta1.example.com", "a", "default")
    assert beta["apiVersion"] == "example.com/v1beta1" and beta["spec"]["colour"] == "red"
    assert list(k for k in api.store.keys() if "/example.com/" in k) == ["/registry/example.com/widgets/default/a"]


def test_strategic_merge_patch_is_refused_as_upstream(api):
    c = api.client()
    c.create("widgets", _widget(), "default")
    with pytest.raises(ApiError) as e:
        c.patch("widgets", "a", {"spec": {"size": 2}}, "default", patch_type="application/strategic-merge-patch+json")
    assert e.value.code == 415 and "application/merge-patch+json, application/apply-patch+yaml" in str(e.value)
    out = c.patch("widgets", "a", {"spec": {"size": 2}}, "default", patch_type="application/merge-patch+json")
    assert out["spec"]["size"] == 2 and out["metadata"]["generation"] == 2


def test_discovery_openapi_and_table_know_the_custom_resource(api):
    served = api.crds.served()
    assert [(r.api_version, r.resource) for r in served] == [("example.com/v1", "widgets"),
                                                              ("example.com/v1beta1", "widgets")]
    doc = discovery.api_resource_list("example.com", "v1", served)
    names = {e["name"]: e for e in doc["resources"]}
    assert names["widgets"]["shortNames"] == ["wd"] and names["widgets"]["categories"] == ["all"]
    assert names["widgets/scale"]["kind"] == "Scale" and names["widgets/status"]["kind"] == "Widget"
    groups = discovery.api_group_list(served)["groups"]
    assert groups[-1] == {"name": "example.com", "versions": [
        {"groupVersion": "example.com/v1", "version": "v1"},
        {"groupVersion": "example.com/v1beta1", "version": "v1beta1"}],
        "preferredVersion": {"groupVersion": "example.com/v1", "version": "v1"}}
    assert "apis/example.com/v1" in openapi.openapi_v3_index(served)["paths"]
    oa = openapi.openapi_v3_document("apis/example.com/v1", served)
    w = oa["components"]["schemas"]["com.example.v1.Widget"]
    assert w["x-kubernetes-group-version-kind"] == [{"group": "example.com", "version": "v1", "kind": "Widget"}]
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in oa["components"]["schemas"]
    api.client().create("widgets", _widget(replicas=3), "default")
    t = table_for_columns(served[0].crd.columns, api.store.list(served[0], "default"), 0.0)
    assert [c["name"] for c in t["columnDefinitions"]] == ["Name", "Colour", "Replicas"]
    assert t["rows"][0]["cells"] == ["a", "red", 3]


def test_deleting_the_crd_deletes_its_objects_then_itself(api):
    c = api.client()
    c.create("widgets", _widget("a"), "default")
    c.create("widgets", _widget("b"), "default")
    c.delete("customresourcedefinitions", "widgets.example.com")
    assert c.list("customresourcedefinitions")["items"] == [] and api.crds.served() == []
    assert not [k for k in api.store.keys() if "example.com" in k]
    log = [(e.component, e.verb, e.kind, e.detail) for e in api.audit_log[-4:]]
    assert log == [("kubectl", "delete", "CustomResourceDefinition", f"finalizers: {CLEANUP_FINALIZER}"),
                   ("apiextensions-apiserver", "delete", "Widget", ""),
                   ("apiextensions-apiserver", "delete", "Widget", ""),
                   ("apiextensions-apiserver", "delete", "CustomResourceDefinition", "finalizers removed")]


def test_a_crd_waits_for_instances_with_finalizers(api):
    c = api.client()
    w = _widget()
    w["metadata"]["finalizers"] = ["example.com/hold"]
    c.create("widgets", w, "default")
    c.delete("customresourcedefinitions", "widgets.example.com")
    crd = c.get("customresourcedefinitions", "widgets.example.com")
    term = next(x for x in crd["status"]["conditions"] if x["type"] == "Terminating")
    assert (term["reason"], term["message"]) == ("InstanceDeletionInProgress", "CustomResource deletion is in progress")
    with pytest.raises(ApiError) as e:
        c.create("widgets", _widget("late"), "default")
    assert (e.value.code, str(e.value)) == (405, "create not allowed while custom resource definition is terminating")
    c.patch("widgets", "a", {"metadata": {"finalizers": None}}, "default", patch_type="application/merge-patch+json")
    assert c.list("customresourcedefinitions")["items"] == []


def test_bad_crds_are_refused_with_field_paths():
    api = APIServer(validator=validation)
    bad = copy.deepcopy(CRD)
    bad["metadata"]["name"] = "widget.example.com"
    bad["spec"]["versions"][1]["storage"] = True
    del bad["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]["type"]
    with pytest.raises(ApiError) as e:
        api.client().create("customresourcedefinitions", bad)
    assert e.value.code == 422
    msg = str(e.value)
    assert 'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group' in msg
    assert 'spec.versions: Invalid value: ["v1","v1beta1"]: must have exactly one version marked as storage' in msg
    assert ("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: Required value: "
            "must not be empty for specified object fields") in msg
    assert api.crds.served() == [] and api.store.count(api.crds.server_ri()) == 0


def test_a_name_conflict_keeps_the_second_crd_unestablished(api):
    other = copy.deepcopy(CRD)
    other["metadata"]["name"] = "gadgets.example.com"
    other["spec"]["names"] = {"plural": "gadgets", "kind": "Gadget", "shortNames": ["wd"]}
    api.client().create("customresourcedefinitions", other)
    st = api.client().get("customresourcedefinitions", "gadgets.example.com")["status"]
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in st["conditions"]] == [
        ("NamesAccepted", "False", "NameConflict", '"wd" is already in use')]
    assert api.crds.lookup("example.com", "v1", "gadgets") is None


def test_schema_helpers_default_prune_and_validate_nested_lists():
    s = {"type": "object", "properties": {"items": {"type": "array", "x-kubernetes-list-type": "map",
                                                    "x-kubernetes-list-map-keys": ["name"], "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer", "default": 80}}}}}}
    o = {"items": [{"name": "a", "x": 1}, {"name": "a"}]}
    assert prune(s, o) == ["items[0].x"]
    assert default(s, o) == {"items": [{"name": "a", "port": 80}, {"name": "a", "port": 80}]}
    assert [str(e) for e in validate(s, o)] == ['items[1]: Duplicate value: {"name":"a"}']


def test_selectable_fields_filter_lists_and_watches():
    api = APIServer(validator=validation)
    crd = copy.deepcopy(CRD)
    crd["spec"]["versions"][0]["selectableFields"] = [{"jsonPath": ".spec.colour"}]
    c = api.client()
    c.create("customresourcedefinitions", crd)
    c.create("widgets", _widget("r"), "default")
    c.create("widgets", _widget("b", colour="blue"), "default")
    got = c.list("widgets", "default", field_selector="spec.colour=blue")["items"]
    assert [o["metadata"]["name"] for o in got] == ["b"]
    with pytest.raises(ApiError) as e:
        c.list("widgets", "default", field_selector="spec.size=1")
    assert str(e.value) == "field label not supported: spec.size"
    w = c.watch("widgets", "default", field_selector="spec.colour=red")
    c.create("widgets", _widget("r2"), "default")
    c.create("widgets", _widget("b2", colour="blue"), "default")
    assert [ev.object["metadata"]["name"] for ev in w.pop_all()] == ["r2"]


def test_a_deprecated_version_warns_with_the_default_text():
    from kubenotes.apiserver.apiextensions.registry import CustomResourceDefinitions

    api = APIServer(validator=validation)
    crd = copy.deepcopy(CRD)
    crd["spec"]["versions"][1]["deprecated"] = True
    api.client().create("customresourcedefinitions", crd)
    assert isinstance(api.crds, CustomResourceDefinitions)
    beta = api.crds.lookup("example.com", "v1beta1", "widgets")
    assert beta.crd.deprecation_warning == "example.com/v1beta1 Widget is deprecated"
    assert api.crds.lookup("example.com", "v1", "widgets").crd.deprecation_warning == ""


def test_x_kubernetes_validations_with_transition_rules():
    api = APIServer(validator=validation)
    crd = copy.deepcopy(CRD)
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["x-kubernetes-validations"] = [{"rule": "!has(self.replicas) || self.replicas <= self.size * 2",
                                         "message": "replicas may be at most twice the size"}]
    spec["properties"]["colour"]["x-kubernetes-validations"] = [{"rule": "self == oldSelf",
                                                                 "message": "colour is immutable"}]
    c = api.client()
    c.create("customresourcedefinitions", crd)
    with pytest.raises(ApiError) as e:
        c.create("widgets", _widget(size=1, replicas=3), "default")
    assert str(e.value) == ('Widget.example.com "a" is invalid: spec: Invalid value: "object": replicas may be at '
                            'most twice the size')
    w = c.create("widgets", _widget(size=2, replicas=3), "default")
    w["spec"]["colour"] = "blue"
    with pytest.raises(ApiError) as e:
        c.update("widgets", w, "default")
    assert str(e.value) == ('Widget.example.com "a" is invalid: spec.colour: Invalid value: "string": colour is '
                            'immutable')


def test_a_crd_whose_rule_does_not_compile_is_refused():
    api = APIServer(validator=validation)
    crd = copy.deepcopy(CRD)
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"] = [{"rule": "self.spec >"}]
    with pytest.raises(ApiError) as e:
        api.client().create("customresourcedefinitions", crd)
    assert ('spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: "self.spec >": '
            'compilation failed: Syntax error') in str(e.value)
