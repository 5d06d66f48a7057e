"""The API server's storage semantics: resourceVersions, watches, conflicts, graceful deletion, subresources.

Cases follow upstream's documented behaviour (api-concepts: resource versions, watch, 410 Gone) and
tests of the generic registry (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store_test.go:
TestStoreUpdate conflict, TestGracefulStoreHandleFinalizers, TestStoreDeleteWithOrphanDependents).
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.resources import resource_for, etcd_key


def _pod(name, labels=None, node=None, **spec):
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}},
         "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}], **spec}}
    if node:
        p["spec"]["nodeName"] = node
    return p


@pytest.fixture
def api():
    return APIServer(seed=3)


@pytest.fixture
def c(api):
    return api.client("kubectl")


def test_every_write_bumps_one_global_resource_version(api, c):
    a = c.create("pods", _pod("a"), "default")
    b = c.create("configmaps", {"metadata": {"name": "cm"}, "data": {"k": "v"}}, "default")
    assert int(b["metadata"]["resourceVersion"]) == int(a["metadata"]["resourceVersion"]) + 1
    lst = c.list("pods")
    assert lst["metadata"]["resourceVersion"] == b["metadata"]["resourceVersion"]
    assert list(api.store.keys()) == ["/registry/configmaps/default/cm", "/registry/pods/default/a"]


def test_keys_follow_upstream_prefixes():
    assert etcd_key(resource_for("services"), "default", "web") == "/registry/services/specs/default/web"
    assert etcd_key(resource_for("rc"), "default", "web") == "/registry/controllers/default/web"
    assert etcd_key(resource_for("deploy"), "ns", "web") == "/registry/deployments/ns/web"


def test_create_rejected_changes_nothing(api, c):
    c.create("pods", _pod("a"), "default")
    rev = api.store.revision
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("a"), "default")
    assert (e.value.code, e.value.reason, str(e.value)) == (409, "AlreadyExists", 'pods "a" already exists')
    assert api.store.revision == rev and len(api.audit_log) == 1


def test_generate_name_and_system_fields(c):
    p = c.create("pods", {"metadata": {"generateName": "web-"}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
                 "default")
    name = p["metadata"]["name"]
    assert name.startswith("web-") and len(name) == 9
    assert set(name[4:]) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert p["metadata"]["uid"] and p["metadata"]["creationTimestamp"] == "2025-08-27T00:00:00Z"
    assert p["metadata"]["generation"] == 1


def test_stale_resource_version_conflicts_with_upstream_message(c):
    p = c.create("pods", _pod("a"), "default")
    p2 = c.get("pods", "a", "default")
    p2["metadata"]["labels"] = {"x": "1"}
    c.update("pods", p2)
    p["metadata"]["labels"] = {"x": "2"}
    with pytest.raises(ApiError) as e:
        c.update("pods", p)
    assert e.value.code == 409 and e.value.reason == "Conflict"
    assert str(e.value) == ('Operation cannot be fulfilled on pods "a": the object has been modified; please apply '
                            'your changes to the latest version and try again')


def test_identical_update_is_not_written(api, c):
    p = c.create("pods", _pod("a"), "default")
    out = c.update("pods", p)
    assert out["metadata"]["resourceVersion"] == p["metadata"]["resourceVersion"]
    assert len(api.audit_log) == 1


def test_generation_bumps_on_spec_change_only(c):
    d = c.create("deployments", {"metadata": {"name": "web"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}},
        "default")
    assert d["metadata"]["generation"] == 1 and "status" not in d
    d["metadata"]["labels"] = {"team": "a"}
    d = c.update("deployments", d)
    assert d["metadata"]["generation"] == 1
    d["spec"]["replicas"] = 3
    d = c.update("deployments", d)
    assert d["metadata"]["generation"] == 2
    d["status"] = {"observedGeneration": 2, "replicas": 3}
    d = c.update("deployments", d)  # the main resource ignores status
    assert "status" not in d
    d = c.update_status("deployments", dict(d, status={"observedGeneration": 2}, spec={"replicas": 99}))
    assert d["status"] == {"observedGeneration": 2} and d["spec"]["replicas"] == 3 and d["metadata"]["generation"] == 2


def test_watch_from_resource_version_replays_and_filters(api, c):
    c.create("pods", _pod("a", {"app": "web"}), "default")
    rv = c.list("pods")["metadata"]["resourceVersion"]
    c.create("pods", _pod("b", {"app": "db"}), "default")
    c.create("pods", _pod("c", {"app": "web"}), "other")
    w = c.watch("pods", resource_version=rv, label_selector="app=web")
    assert [(e.type, e.object["metadata"]["name"]) for e in w.pop_all()] == [("ADDED", "c")]
    p = c.get("pods", "b", "default")
    p["metadata"]["labels"] = {"app": "web"}
    c.update("pods", p)  # starts matching: ADDED
    p = c.get("pods", "b", "default")
    p["metadata"]["labels"] = {"app": "db"}
    c.update("pods", p)  # stops matching: DELETED
    assert [e.type for e in w.pop_all()] == ["ADDED", "DELETED"]


def test_watch_resource_versions_arrive_in_order(c):
    w = c.watch("pods")
    for i in range(5):
        c.create("pods", _pod(f"p{i}"), "default")
    rvs = [int(e.resource_version) for e in w.pop_all()]
    assert rvs == sorted(rvs) and len(rvs) == 5


def test_watch_from_compacted_revision_is_expired():
    api = APIServer(history_capacity=3)
    c = api.client()
    for i in range(6):
        c.create("pods", _pod(f"p{i}"), "default")
    oldest = api.store.oldest_revision
    with pytest.raises(ApiError) as e:
        c.watch("pods", resource_version="2")
    assert e.value.code == 410 and e.value.reason == "Expired"
    assert str(e.value) == f"too old resource version: 2 ({oldest - 1})"
    w = c.watch("pods", resource_version=str(oldest - 1))  # still in the window
    assert len(w.pop_all()) == 3


def test_node_name_watch_is_indexed(api, c):
    w1 = c.watch("pods", field_selector="spec.nodeName=n1")
    w2 = c.watch("pods", field_selector="spec.nodeName=n2")
    c.create("pods", _pod("a"), "default")
    c.bind("default", "a", "n1")
    assert [e.type for e in w1.pop_all()] == ["ADDED"]
    assert w2.pop_all() == []
    assert api.store.watcher_count(resource_for("pods")) == 2
    w1.stop()
    assert api.store.watcher_count(resource_for("pods")) == 1


def test_binding_sets_node_and_condition_and_refuses_a_second_bind(c):
    c.create("pods", _pod("a"), "default")
    c.bind("default", "a", "n1")
    p = c.get("pods", "a", "default")
    assert p["spec"]["nodeName"] == "n1"
    assert [x["type"] for x in p["status"]["conditions"]] == ["PodScheduled"]
    with pytest.raises(ApiError) as e:
        c.bind("default", "a", "n2")
    assert e.value.code == 409 and 'is already assigned to node "n1"' in str(e.value)


def test_graceful_pod_deletion(api, c):
    c.create("pods", _pod("pending"), "default")
    c.delete("pods", "pending", "default")  # never scheduled: gone at once
    assert c.list("pods")["items"] == []
    c.create("pods", _pod("run", node="n1", terminationGracePeriodSeconds=45), "default")
    p = c.delete("pods", "run", "default")
    assert p["metadata"]["deletionGracePeriodSeconds"] == 45
    assert p["metadata"]["deletionTimestamp"] == "2025-08-27T00:00:45Z"
    assert c.get("pods", "run", "default")
    c.delete("pods", "run", "default", grace_period_seconds=0)
    assert c.list("pods")["items"] == []


def test_finalizers_hold_deletion_until_removed(c):
    c.create("configmaps", {"metadata": {"name": "cm", "finalizers": ["example.com/hold"]}}, "default")
    cm = c.delete("configmaps", "cm", "default")
    assert cm["metadata"]["deletionTimestamp"]
    cm = c.get("configmaps", "cm", "default")
    cm["metadata"]["finalizers"] = []
    c.update("configmaps", cm)
    assert c.list("configmaps")["items"] == []


def test_propagation_policies_add_gc_finalizers(c):
    for name, policy, fin in (("a", "Orphan", "orphan"), ("b", "Foreground", "foregroundDeletion")):
        c.create("configmaps", {"metadata": {"name": name}}, "default")
        out = c.delete("configmaps", name, "default", propagation_policy=policy)
        assert out["metadata"]["finalizers"] == [fin]


def test_namespace_deletion_terminates_until_finalized(c):
    c.create("namespaces", {"metadata": {"name": "team"}})
    ns = c.delete("namespaces", "team")
    assert ns["status"]["phase"] == "Terminating" and ns["spec"]["finalizers"] == ["kubernetes"]
    ns = c.get("namespaces", "team")
    ns["spec"]["finalizers"] = []
    c.update("namespaces", ns, subresource="finalize")
    assert c.list("namespaces")["items"] == []


def test_eviction_honours_pod_disruption_budget(c):
    c.create("pods", _pod("a", {"app": "web"}, node="n1"), "default")
    pa = c.get("pods", "a", "default")
    c.update_status("pods", dict(pa, status={"phase": "Running"}))
    c.create("poddisruptionbudgets", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                                      "metadata": {"name": "pdb"},
                                      "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
             "default")
    with pytest.raises(ApiError) as e:
        c.evict("default", "a")
    assert e.value.code == 429 and str(e.value) == "Cannot evict pod as it would violate the pod's disruption budget."
    pdb = c.get("poddisruptionbudgets", "pdb", "default")
    c.update_status("poddisruptionbudgets", dict(pdb, status={"observedGeneration": 1, "disruptionsAllowed": 1,
                                                              "currentHealthy": 2, "desiredHealthy": 1}))
    c.evict("default", "a")
    assert c.get("pods", "a", "default")["metadata"]["deletionTimestamp"]
    assert c.get("poddisruptionbudgets", "pdb", "default")["status"]["disruptionsAllowed"] == 0


def test_scale_subresource(c):
    c.create("replicasets", {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"}, "spec": {
        "replicas": 2, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}},
        "default")
    s = c.get("replicasets", "rs", "default", subresource="scale")
    assert (s["kind"], s["spec"]["replicas"], s["status"]["selector"]) == ("Scale", 2, "app=web")
    s = c.scale("rs", "rs", 5, "default")
    assert s["spec"]["replicas"] == 5 and c.get("rs", "rs", "default")["spec"]["replicas"] == 5


def test_patches(c):
    c.create("configmaps", {"metadata": {"name": "cm", "labels": {"a": "1"}}, "data": {"x": "1"}}, "default")
    out = c.patch("configmaps", "cm", {"metadata": {"labels": {"a": None, "b": "2"}}, "data": {"y": "2"}}, "default")
    assert out["metadata"]["labels"] == {"b": "2"} and out["data"] == {"x": "1", "y": "2"}
    out = c.patch("configmaps", "cm", [{"op": "replace", "path": "/data/x", "value": "9"}], "default",
                  patch_type="json")
    assert out["data"]["x"] == "9"


def test_dry_run_writes_nothing(api, c):
    rev = api.store.revision
    c.create("pods", _pod("a"), "default", dry_run=True)
    assert api.store.revision == rev and c.list("pods")["items"] == []


def test_field_selector_on_unknown_field_is_bad_request(c):
    with pytest.raises(ApiError) as e:
        c.list("pods", field_selector="spec.foo=bar")
    assert e.value.code == 400 and str(e.value) == "field label not supported: spec.foo"


def test_list_pagination(c):
    for i in range(5):
        c.create("configmaps", {"metadata": {"name": f"cm{i}"}}, "default")
    first = c.list("configmaps", limit=2)
    assert [o["metadata"]["name"] for o in first["items"]] == ["cm0", "cm1"]
    assert first["metadata"]["remainingItemCount"] == 3
    rest = c.list("configmaps", limit=10, continue_token=first["metadata"]["continue"])
    assert [o["metadata"]["name"] for o in rest["items"]] == ["cm2", "cm3", "cm4"]


def test_same_seed_same_uids():
    uids = []
    for _ in range(2):
        c = APIServer(seed=7).client()
        uids.append(c.create("pods", _pod("a"), "default")["metadata"]["uid"])
    assert uids[0] == uids[1]


def test_list_by_node_name_uses_the_index_and_follows_binding(api, c):
    c.create("pods", _pod("a", node="n1"), "default")
    c.create("pods", _pod("b"), "default")
    c.create("pods", _pod("z", node="n1"), "kube-system")
    names = lambda out: [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in out["items"]]
    assert names(c.list("pods", field_selector="spec.nodeName=n1")) == [("default", "a"), ("kube-system", "z")]
    assert names(c.list("pods", "default", field_selector="spec.nodeName=n1")) == [("default", "a")]
    assert names(c.list("pods", field_selector="spec.nodeName=")) == [("default", "b")]
    c.bind("default", "b", "n1")
    c.delete("pods", "z", "kube-system", grace_period_seconds=0)
    assert names(c.list("pods", field_selector="spec.nodeName=n1")) == [("default", "a"), ("default", "b")]
    assert names(c.list("pods", field_selector="spec.nodeName=n1,metadata.name!=a")) == [("default", "b")]


def test_a_job_gets_a_generated_selector_and_template_labels(c):
    job = c.create("jobs", {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
                            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                                {"name": "pi", "image": "perl:5.34"}]}}}}, "default")
    uid = job["metadata"]["uid"]
    assert job["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    labels = job["spec"]["template"]["metadata"]["labels"]
    assert labels["controller-uid"] == uid and labels["batch.kubernetes.io/job-name"] == "pi"


def test_a_daemonset_template_change_bumps_its_template_generation(c):
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
          "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
              "metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "a", "image": "a:1"}]}}}}
    out = c.create("daemonsets", ds, "default")
    assert out["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "1"
    out = c.patch("daemonsets", "agent", {"spec": {"template": {"spec": {"containers": [
        {"name": "a", "image": "a:2"}]}}}}, "default")
    assert out["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"
