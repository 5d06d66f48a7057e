"""Server-side apply (kubenotes.apiserver.apply): merging, ownership, conflicts, removal.

Cases follow upstream's integration tests in
kubernetes/kubernetes@v1.34.0 test/integration/apiserver/apply/apply_test.go:
TestApplyAlsoCreates, TestApplyUpdateApplyConflictForced, TestApplyManagedFields,
TestApplyRemovesEmptyManagedFields, TestApplyCanRemoveMapItems, TestApplyCanTransferFieldOwnershipToController
(scale), and structured-merge-diff's merge tests for associative lists (merge/multiple_appliers_test.go:
two appliers of one container list).
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.apply import (ATOMIC, BEFORE_FIRST_APPLY, apply_configuration, field_set, fields_v1,
                                       parse_fields_v1, path_string, record_update)
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy

LISTS = {("spec", "template", "spec", "containers"): ("map", ("name",)),
         ("spec", "template", "spec", "containers", "ports"): ("map", ("containerPort", "protocol")),
         ("metadata", "finalizers"): ("set", ())}


def resolve(fpath):
    return LISTS.get(fpath, ATOMIC)


def deployment(replicas=None, image="nginx:1.27", containers=None, labels=None):
    spec = {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": containers or [{"name": "nginx", "image": image}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    md = {"name": "web", "namespace": "default"}
    if labels:
        md["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md, "spec": spec}


def managers(obj):
    return [(m["manager"], m["operation"], m.get("subresource", "")) for m in obj["metadata"]["managedFields"]]


def test_apply_also_creates_and_records_the_applier():
    obj = apply_configuration(None, deployment(3), "kubectl", resolve=resolve)
    assert obj["spec"]["replicas"] == 3
    assert managers(obj) == [("kubectl", "Apply", "")]
    fields = obj["metadata"]["managedFields"][0]["fieldsV1"]
    assert fields["f:spec"]["f:replicas"] == {}
    assert fields["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"nginx"}'] == {
        ".": {}, "f:image": {}, "f:name": {}}
    assert "f:name" not in fields.get("f:metadata", {})  # stripped like upstream's stripmeta


def test_scale_then_reapply_conflicts_and_force_takes_the_field_back():
    live = apply_configuration(None, deployment(3), "kubectl", resolve=resolve)
    scaled = deep_copy(live)
    scaled["spec"]["replicas"] = 5
    record_update(live, scaled, "kubectl", subresource="scale", resolve=resolve)
    assert ("kubectl", "Update", "scale") in managers(scaled)
    with pytest.raises(ApiError) as e:
        apply_configuration(scaled, deployment(3), "kubectl", resolve=resolve)
    assert e.value.code == 409 and e.value.reason == "Conflict"
    assert str(e.value) == ('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" '
                            'using apps/v1: .spec.replicas')
    assert e.value.status["details"]["causes"] == [
        {"type": "FieldManagerConflict", "message": 'conflict with "kubectl" with subresource "scale" using apps/v1',
         "field": ".spec.replicas"}]
    forced = apply_configuration(scaled, deployment(3), "kubectl", force=True, resolve=resolve)
    assert forced["spec"]["replicas"] == 3
    assert ("kubectl", "Update", "scale") not in managers(forced)  # its only field was taken


def test_same_value_is_shared_not_a_conflict():
    live = apply_configuration(None, deployment(3), "alice", resolve=resolve)
    both = apply_configuration(live, deployment(3), "bob", resolve=resolve)
    owners = {m["manager"]: parse_fields_v1(m["fieldsV1"]) for m in both["metadata"]["managedFields"]}
    assert ("f:spec", "f:replicas") in owners["alice"] and ("f:spec", "f:replicas") in owners["bob"]
    # alice stops setting replicas: bob still owns it, so it stays
    after = apply_configuration(both, deployment(None), "alice", resolve=resolve)
    assert after["spec"]["replicas"] == 3


def test_a_field_left_out_by_its_only_owner_is_removed():
    live = apply_configuration(None, deployment(3, labels={"tier": "front", "team": "a"}), "kubectl",
                               resolve=resolve)
    after = apply_configuration(live, deployment(3, labels={"tier": "front"}), "kubectl", resolve=resolve)
    assert after["metadata"]["labels"] == {"tier": "front"}
    gone = apply_configuration(after, deployment(3), "kubectl", resolve=resolve)
    assert "labels" not in gone["metadata"]  # the emptied map goes too


def test_two_appliers_of_one_associative_list_merge_by_key():
    a = apply_configuration(None, deployment(1), "a", resolve=resolve)
    sidecar = deployment(1, containers=[{"name": "log", "image": "fluentd:1"}])
    b = apply_configuration(a, sidecar, "b", resolve=resolve)
    names = [c["name"] for c in b["spec"]["template"]["spec"]["containers"]]
    assert names == ["nginx", "log"]
    # b changes the image of a's container: conflict names the element by its key
    clash = deployment(1, containers=[{"name": "nginx", "image": "nginx:1.28"}])
    with pytest.raises(ApiError) as e:
        apply_configuration(b, clash, "b", resolve=resolve)
    assert '.spec.template.spec.containers[name="nginx"].image' in str(e.value)
    # b drops its sidecar: only its own element goes
    c = apply_configuration(b, deployment(1, containers=[]), "b", resolve=resolve)
    assert [x["name"] for x in c["spec"]["template"]["spec"]["containers"]] == ["nginx"]


def test_first_apply_over_an_unmanaged_object_meets_before_first_apply():
    live = deployment(1)
    with pytest.raises(ApiError) as e:
        apply_configuration(live, deployment(4), "kubectl", resolve=resolve)
    assert f'conflict with "{BEFORE_FIRST_APPLY}" using apps/v1: .spec.replicas' in str(e.value)
    ok = apply_configuration(live, deployment(1, image="nginx:1.27"), "kubectl", resolve=resolve)
    assert {m for m, _, _ in managers(ok)} == {BEFORE_FIRST_APPLY, "kubectl"}


def test_sets_and_multiple_conflicts_message():
    cfg = deployment(2)
    cfg["metadata"]["finalizers"] = ["a", "b"]
    paths = field_set(cfg, resolve)
    assert ("f:metadata", "f:finalizers", 'v:"a"') in paths
    live = apply_configuration(None, cfg, "x", resolve=resolve)
    other = deployment(7, image="nginx:2")
    with pytest.raises(ApiError) as e:
        apply_configuration(live, other, "y", resolve=resolve)
    msg = str(e.value)
    assert msg.startswith('Apply failed with 2 conflicts: conflicts with "x":\n- .spec.replicas\n')
    assert len(e.value.status["details"]["causes"]) == 2


def test_fields_v1_round_trip_and_path_strings():
    paths = field_set(deployment(2), resolve)
    assert parse_fields_v1(fields_v1(paths)) == paths
    assert path_string(("f:metadata", "f:labels", "f:app")) == ".metadata.labels.app"


def test_record_update_leaves_unmanaged_objects_alone():
    old = deployment(1)
    new = deployment(2)
    record_update(old, new, "kubectl", resolve=resolve)
    assert "managedFields" not in new["metadata"]
