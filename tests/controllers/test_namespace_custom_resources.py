"""Namespace deletion empties custom resources as it empties built-in kinds (issue #29).

After kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/deletion/namespaced_resources_deleter.go: the
deleter asks discovery (``ServerPreferredNamespacedResources``) on every pass, so each served CRD's
namespaced resource is deleted in its preferred version; objects held by finalizers keep the namespace
Terminating with ``NamespaceContentRemaining`` / ``NamespaceFinalizersRemaining`` worded as
status_condition_utils.go's ``ProcessContentTotals`` (``<resource>.<group> has N resource instances``,
``<finalizer> in N resource instances``) until they go.
"""

from __future__ import annotations

from kubenotes.controllers.namespace import deletable_namespaced_resources
from kubenotes.sim.cluster import Cluster

NSC = "namespace-controller"
_SCHEMA = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}


def _crd(plural: str, kind: str, scope: str = "Namespaced", versions: tuple[str, ...] = ("v1",)) -> dict:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.example.com"},
            "spec": {"group": "example.com", "scope": scope, "names": {"plural": plural, "kind": kind},
                     "versions": [{"name": v, "served": True, "storage": i == 0, "schema": _SCHEMA}
                                  for i, v in enumerate(versions)]}}


def _cluster() -> Cluster:
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    return Cluster([ns], seed=0, controllers=[NSC], authorization=False, scheduler=False, kubelet="stand-in")


def _widget(name: str, **md) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "namespace": "team", **md}}


def _cond(ns: dict, ctype: str) -> dict:
    return next(c for c in ns["status"]["conditions"] if c["type"] == ctype)


def test_preferred_version_only_and_namespaced_only():
    c = _cluster()
    c.client.create("customresourcedefinitions", _crd("widgets", "Widget", versions=("v1", "v1beta1", "v2")))
    c.client.create("customresourcedefinitions", _crd("gadgets", "Gadget", scope="Cluster"))
    custom = [ri for ri in deletable_namespaced_resources(c.server.crds.served()) if ri.group == "example.com"]
    assert [(ri.resource, ri.version) for ri in custom] == [("widgets", "v2")]   # v2 > v1 > v1beta1; no gadgets
    assert deletable_namespaced_resources()[-1].group != "example.com"          # built-ins alone without CRDs


def test_custom_resources_deleted_and_finalizers_reported_until_removed():
    c = _cluster()
    c.client.create("customresourcedefinitions", _crd("widgets", "Widget"))   # applied after the controller started
    c.client.create("widgets.example.com", _widget("plain"), "team")
    c.client.create("widgets.example.com", _widget("held", finalizers=["example.com/cleanup"]), "team")
    c.run(until=1)
    c.client.delete("namespaces", "team")
    c.run(until=3)
    ns = c.get("namespaces", "team")
    assert ns["status"]["phase"] == "Terminating" and ns["spec"]["finalizers"] == ["kubernetes"]
    assert c.client.list("widgets.example.com", "team")["items"][0]["metadata"]["name"] == "held"
    remaining, fin = _cond(ns, "NamespaceContentRemaining"), _cond(ns, "NamespaceFinalizersRemaining")
    assert (remaining["status"], remaining["reason"], remaining["message"]) == (
        "True", "SomeResourcesRemain", "Some resources are remaining: widgets.example.com has 1 resource instances")
    assert (fin["status"], fin["reason"], fin["message"]) == (
        "True", "SomeFinalizerRemain", "Some finalizers are remaining: example.com/cleanup in 1 resource instances")
    assert _cond(ns, "NamespaceDeletionContentFailure")["status"] == "False"
    deleted = [e.name for e in c.audit_log if e.component == NSC and e.verb == "delete" and e.kind == "Widget"]
    assert deleted == ["held", "plain"]                # each deleted once, by name order; "held" stays marked
    c.run(until=40)                                   # finalizerEstimateSeconds 15: back every 8 s, still held
    assert c.get("namespaces", "team") is not None
    w = c.client.get("widgets.example.com", "held", "team")
    w["metadata"]["finalizers"] = []
    c.client.update("widgets.example.com", w, "team")
    c.run(until=50)
    assert c.get("namespaces", "team") is None


def test_cluster_scoped_custom_resources_and_other_namespaces_stay():
    c = _cluster()
    c.client.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    c.client.create("customresourcedefinitions", _crd("widgets", "Widget"))
    c.client.create("customresourcedefinitions", _crd("gadgets", "Gadget", scope="Cluster"))
    c.client.create("widgets.example.com", _widget("a"), "team")
    c.client.create("widgets.example.com", {**_widget("b"), "metadata": {"name": "b", "namespace": "other"}}, "other")
    c.client.create("gadgets.example.com", {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}})
    c.run(until=1)
    c.client.delete("namespaces", "team")
    c.run(until=5)
    assert c.get("namespaces", "team") is None
    assert c.client.get("widgets.example.com", "b", "other")["metadata"]["name"] == "b"
    assert c.client.get("gadgets.example.com", "g")["metadata"]["name"] == "g"


def test_custom_resources_scenario_file():
    from kubenotes.data import sample
    from kubenotes.sim.cli import build

    c = build([sample("controllers", "custom-resources.yaml")])
    c.run(until=20)
    assert c.client.get("webapps.example.com", "web", "shop")["spec"]["size"] == 4    # the HPA through /scale
    c.run(until=60)
    ns = c.get("namespaces", "shop")
    assert _cond(ns, "NamespaceFinalizersRemaining")["message"] == \
        "Some finalizers are remaining: example.com/backup in 1 resource instances"
    c.run(until=97)                                   # finalized on the pass after the finalizer went (t=96)
    assert c.get("namespaces", "shop") is None
    assert not c.client.list("webapps.example.com", "shop")["items"]
