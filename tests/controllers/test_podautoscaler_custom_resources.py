"""The HPA scales any target with a ``scale`` subresource, a custom resource too (issue #29).

After kubernetes/kubernetes@v1.34.0 pkg/controller/podautoscaler/horizontal.go: ``reconcileAutoscaler`` maps
``scaleTargetRef`` by GroupKind (``RESTMappings``; the version in its apiVersion does not matter), reads the
target through the scale client (``scaleForResourceMappings``), takes the pods from the Scale's
``status.selector`` (``validateAndParseSelector``: ``SelectorRequired`` / ``InvalidSelector``, then
``FailedComputeMetricsReplicas``) and writes ``spec.replicas`` back through ``/scale``, which the API server
stores at the CRD's ``specReplicasPath``. A kind nobody serves, or one without a scale subresource, is a
``FailedGetScale``.
"""

from __future__ import annotations

from kubenotes.sim.cluster import Cluster

HPA = "horizontal-pod-autoscaler-controller"
SCALE = {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.ready", "labelSelectorPath": ".status.selector"}


def _crd(scale: dict | None = SCALE, versions: tuple[str, ...] = ("v1",)) -> dict:
    subs = {"status": {}, **({"scale": scale} if scale else {})}
    schema = {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "integer"}, "selector": {"type": "string"}}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "webapps.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "webapps", "kind": "WebApp"},
                     "versions": [{"name": v, "served": True, "storage": i == 0, "subresources": subs, "schema": schema}
                                  for i, v in enumerate(versions)]}}


def _cluster(crd: dict, ref_version: str = "example.com/v1", kind: str = "WebApp", selector: str = "app=web") -> Cluster:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"web-{i}", "namespace": "default",
                                                             "labels": {"app": "web"}},
             "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]}}
            for i in range(2)]
    c = Cluster([node, *pods], seed=0, controllers=[HPA], authorization=False, kubelet="stand-in")
    c.client.create("customresourcedefinitions", crd)
    c.client.create("webapps.example.com", {"apiVersion": "example.com/v1", "kind": "WebApp",
                                            "metadata": {"name": "web"}, "spec": {"size": 2}}, "default")
    if selector is not None:
        w = c.client.get("webapps.example.com", "web", "default")
        w["status"] = {"ready": 2, "selector": selector}
        c.client.update_status("webapps.example.com", w, "default")
    c.client.create("horizontalpodautoscalers", {
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": ref_version, "kind": kind, "name": "web"},
                 "minReplicas": 1, "maxReplicas": 10}}, "default")
    c.metrics[("default", "web")] = 160.0     # 160 % of the request against the default 80 %: twice the pods
    return c


def _hpa_events(c: Cluster) -> list[tuple[str, str]]:
    return [(e["reason"], e["message"]) for e in c.client.list("events", "default")["items"]
            if e["involvedObject"]["kind"] == "HorizontalPodAutoscaler"]


def _cond(c: Cluster, ctype: str) -> tuple[str, str, str]:
    h = c.get("horizontalpodautoscalers", "web", "default")
    d = next(x for x in h["status"]["conditions"] if x["type"] == ctype)
    return d["status"], d["reason"], d["message"]


def test_custom_resource_scaled_through_its_scale_subresource():
    c = _cluster(_crd())
    c.run(until=16)
    assert c.client.get("webapps.example.com", "web", "default")["spec"]["size"] == 4   # ceil(2 * 160 / 80)
    assert ("SuccessfulRescale", "New size: 4; reason: cpu resource utilization (percentage of request) above target") \
        in _hpa_events(c)
    assert _cond(c, "AbleToScale") == ("True", "SucceededRescale",
                                       "the HPA controller was able to update the target scale to 4")
    st = c.get("horizontalpodautoscalers", "web", "default")["status"]
    assert (st["currentReplicas"], st["desiredReplicas"]) == (2, 4)
    writes = [e for e in c.audit_log if e.component == "horizontal-pod-autoscaler" and e.kind == "WebApp"
              and e.verb not in ("get", "list", "watch")]
    assert writes and all(e.verb == "scale" for e in writes)


def test_only_the_group_of_the_reference_counts():
    c = _cluster(_crd(versions=("v1", "v2")), ref_version="example.com/v1alpha9")   # RESTMappings(GroupKind)
    c.run(until=16)
    assert c.client.get("webapps.example.com", "web", "default")["spec"]["size"] == 4


def test_missing_selector_stops_scaling():
    c = _cluster(_crd(), selector=None)
    c.run(until=16)
    assert c.client.get("webapps.example.com", "web", "default")["spec"]["size"] == 2
    assert _cond(c, "ScalingActive") == ("False", "InvalidSelector", "the HPA target's scale is missing a selector")
    assert ("SelectorRequired", "selector is required") in _hpa_events(c)
    assert ("FailedComputeMetricsReplicas", "selector is required") in _hpa_events(c)


def test_unknown_kind_and_kind_without_scale_fail_to_get_scale():
    c = _cluster(_crd(), kind="Gizmo")
    c.run(until=16)
    msg = 'no matches for kind "Gizmo" in group "example.com"'
    assert _cond(c, "AbleToScale") == ("False", "FailedGetScale",
                                       f"the HPA controller was unable to get the target's current scale: {msg}")
    assert ("FailedGetScale", msg) in _hpa_events(c)
    c = _cluster(_crd(scale=None))
    c.run(until=16)
    assert ("FailedGetScale", "the server could not find the requested resource") in _hpa_events(c)
    assert c.client.get("webapps.example.com", "web", "default")["spec"]["size"] == 2
