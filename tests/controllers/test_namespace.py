"""Namespace controller: a Terminating namespace is emptied, then finalized and removed.

Cases ported from kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/deletion:

* namespaced_resources_deleter_test.go ``TestSyncNamespaceThatIsTerminating`` (every namespaced kind is
  listed and deleted, then the ``kubernetes`` finalizer is removed through ``finalize``),
  ``TestSyncNamespaceThatIsActive`` (an Active namespace is left alone), ``TestFinalizeNamespaceFunc``
  (only the ``kubernetes`` finalizer is removed), ``TestDeleteEncounters404``-style NotFound tolerance;
* status_condition_utils_test.go (``updateConditions``: OK conditions by default, content and finalizer
  conditions while something remains).

End to end: deleting a namespace with pods and other objects empties it (pods terminate gracefully; the
controller comes back after ``estimate/2 + 1`` seconds) and the API server then removes the namespace.
"""

from __future__ import annotations

from kubenotes.controllers.namespace import (
    CONDITION_TYPES,
    OK_MESSAGES,
    OK_REASONS,
    content_conditions,
    deletable_namespaced_resources,
    update_conditions,
)
from kubenotes.sim.cluster import Cluster

NSC = "namespace-controller"


def _node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _objects() -> list[dict]:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "team"},
           "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "team"}, "data": {"a": "1"}}
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "team"},
           "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}
    return [_node("n1"), {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}, pod, cm, svc]


def _cond(ns: dict, ctype: str) -> dict:
    return next(c for c in ns["status"]["conditions"] if c["type"] == ctype)


def test_active_namespace_is_left_alone():
    c = Cluster(_objects(), seed=0, controllers=[NSC], authorization=False, kubelet="stand-in")
    c.run(until=30)
    assert c.get("namespaces", "team")["status"] == {"phase": "Active"}
    assert c.get("configmaps", "cfg", "team") is not None


def test_terminating_namespace_is_emptied_then_removed():
    c = Cluster(_objects(), seed=0, controllers=[NSC], authorization=False, kubelet="stand-in")
    c.run(until=5)
    assert c.get("pods", "web", "team")["status"]["phase"] == "Running"
    c.client.delete("namespaces", "team")
    c.run(until=6)
    ns = c.get("namespaces", "team")
    assert ns["status"]["phase"] == "Terminating"
    assert ns["spec"]["finalizers"] == ["kubernetes"]
    assert c.get("configmaps", "cfg", "team") is None and c.get("services", "web", "team") is None
    # the pod is terminating gracefully (30 s grace period): content remains, reported in conditions
    remaining = _cond(ns, "NamespaceContentRemaining")
    assert (remaining["status"], remaining["reason"]) == ("True", "SomeResourcesRemain")
    assert remaining["message"] == "Some resources are remaining: pods. has 1 resource instances"
    assert _cond(ns, "NamespaceDeletionDiscoveryFailure")["reason"] == "ResourcesDiscovered"
    # estimate 30 s -> back after 16 s; the kubelet removed the pod after 1 s, so the next pass finalizes
    c.run(until=21)
    assert c.get("namespaces", "team") is not None
    c.run(until=23)
    assert c.get("namespaces", "team") is None
    finalize = [e for e in c.audit_log if e.kind == "Namespace" and e.component == NSC and e.verb == "delete"]
    assert finalize and finalize[0].detail == "finalizers removed"


def test_every_namespaced_kind_is_deleted():
    objs = _objects()[:2] + [
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "team"}},
        {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r", "namespace": "team"},
         "revision": 1},
        {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l", "namespace": "team"},
         "spec": {}},
    ]
    c = Cluster(objs, seed=0, controllers=[NSC], authorization=False, kubelet="stand-in")
    c.run(until=2)
    c.client.delete("namespaces", "team")
    c.run(until=4)
    assert c.get("namespaces", "team") is None
    deleted = {e.kind for e in c.audit_log if e.component == NSC and e.verb == "delete" and e.namespace == "team"}
    assert {"Secret", "ControllerRevision", "Lease"} <= deleted


def test_object_with_a_finalizer_keeps_the_namespace_and_is_reported():
    objs = _objects()[:2] + [{"apiVersion": "v1", "kind": "ConfigMap",
                              "metadata": {"name": "held", "namespace": "team", "finalizers": ["example.com/hold"]}}]
    c = Cluster(objs, seed=0, controllers=[NSC], authorization=False, kubelet="stand-in")
    c.run(until=2)
    c.client.delete("namespaces", "team")
    c.run(until=40)
    ns = c.get("namespaces", "team")
    assert ns is not None
    fin = _cond(ns, "NamespaceFinalizersRemaining")
    assert (fin["status"], fin["reason"]) == ("True", "SomeFinalizerRemain")
    assert fin["message"] == "Some finalizers are remaining: example.com/hold in 1 resource instances"
    cm = c.get("configmaps", "held", "team")
    cm["metadata"]["finalizers"] = []
    c.client.update("configmaps", cm)
    c.run(until=60)
    assert c.get("namespaces", "team") is None


def test_other_spec_finalizers_stay():
    objs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"},
             "spec": {"finalizers": ["kubernetes", "example.com/other"]}}]
    c = Cluster(objs, seed=0, controllers=[NSC], authorization=False, scheduler=False, kubelet="stand-in")
    c.run(until=1)
    c.client.delete("namespaces", "team")
    c.run(until=3)
    assert c.get("namespaces", "team")["spec"]["finalizers"] == ["example.com/other"]


def test_service_account_controller_does_not_recreate_in_terminating_namespace():
    c = Cluster(_objects(), seed=0, controllers=[NSC, "serviceaccount-controller"], authorization=False, kubelet="stand-in")
    c.run(until=2)
    assert c.get("serviceaccounts", "default", "team") is not None
    c.client.delete("namespaces", "team")
    c.run(until=30)
    assert c.get("namespaces", "team") is None
    assert c.get("serviceaccounts", "default", "team") is None


# ---------------------------------------------------------------- status_condition_utils_test.go
def test_update_conditions_sets_ok_conditions_then_failures():
    st: dict = {}
    assert update_conditions(st, [], "t0")
    assert [c["type"] for c in st["conditions"]] == list(CONDITION_TYPES)
    assert all(c["status"] == "False" and c["reason"] == OK_REASONS[c["type"]]
               and c["message"] == OK_MESSAGES[c["type"]] for c in st["conditions"])
    assert not update_conditions(st, [], "t1")
    assert update_conditions(st, content_conditions({"pods.": 2}, {}, "t2"), "t2")
    remaining = next(c for c in st["conditions"] if c["type"] == "NamespaceContentRemaining")
    assert (remaining["status"], remaining["lastTransitionTime"]) == ("True", "t2")


def test_deletable_resources_are_namespaced_with_list_and_delete():
    names = {ri.resource for ri in deletable_namespaced_resources()}
    assert {"pods", "configmaps", "events", "endpointslices", "leases", "serviceaccounts"} <= names
    assert "bindings" not in names and "nodes" not in names and "namespaces" not in names
