"""Endpoints and EndpointSlice controllers: ready and not-ready addresses following pod readiness.

Cases ported from kubernetes/kubernetes@v1.34.0:

* pkg/controller/endpoint/endpoints_controller_test.go ``TestSyncEndpointsItemsPreserveNoSelector``
  (a Service without selector is left alone), ``TestSyncEndpointsItemsEmptySelectorSelectsAll``,
  ``TestSyncEndpointsItemsPreexisting`` / ``TestSyncEndpointsNewEndpointsNotReady`` (ready vs
  notReadyAddresses), ``TestSyncEndpointsItemsPublishNotReady`` style ``publishNotReadyAddresses``,
  ``TestSyncEndpointsHeadlessServiceLabel``,
  ``TestSyncEndpointsItemsExcludeNotReadyPodsWithRestartPolicyNeverAndPhaseFailed``
  (terminal pods excluded), ``TestSyncServiceOverCapacity`` (truncation at 1000 and the over-capacity
  annotation), ``TestLastTriggerChangeTimeAnnotation``, ``TestSyncEndpointsServiceNotFound``, named
  ``targetPort`` resolution (``TestPodToEndpointAddressForService`` / ``FindPort``);
* pkg/controller/endpointslice/endpointslice_controller_test.go ``TestSyncServiceWithSelector`` (one
  slice, its labels and owner), ``TestSyncServicePodSelection``, and the staging reconciler's
  ``TestReconcileManyPods`` / max-endpoints-per-slice splitting and the placeholder slice of a Service
  without endpoints; ``podToEndpoint`` conditions (ready, serving, terminating).
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.server import parse_timestamp
from kubenotes.controllers.endpoints import (
    LAST_CHANGE_TRIGGER_TIME_ANNOTATION,
    OVER_CAPACITY_ANNOTATION,
    compute_subsets,
    repack_subsets,
    truncate_endpoints,
)
from kubenotes.api.service import LABEL_SERVICE_NAME
from kubenotes.controllers.endpointslice import LABEL_MANAGED_BY, pod_to_endpoint
from kubenotes.sim.cluster import Cluster

CONTROLLERS = ["node-ipam-controller", "endpoints-controller", "endpointslice-controller"]


def _node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, node: str, labels: dict | None = None, **spec_extra) -> dict:
    spec = {"nodeName": node, "containers": [{"name": "c", "image": "nginx:1.27",
                                              "ports": [{"name": "http", "containerPort": 8080}]}], **spec_extra}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": "web"}}, "spec": spec}


def _svc(name: str = "web", selector: dict | None = {"app": "web"}, **spec_extra) -> dict:  # noqa: B006
    spec = {"ports": [{"name": "http", "port": 80, "targetPort": "http"}], **spec_extra}
    if selector is not None:
        spec["selector"] = selector
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default",
                                                                "labels": {"team": "a"}}, "spec": spec}


def _cluster(objs: list[dict], until: float = 5, **kw) -> Cluster:
    kw.setdefault("kubelet", "stand-in")
    c = Cluster([_node("n1"), _node("n2"), *objs], seed=0, controllers=CONTROLLERS, authorization=False, **kw)
    c.run(until=until)
    return c


def _set_not_ready(c: Cluster, name: str) -> None:
    pod = c.client.get("pods", name, "default")
    for cond in pod["status"]["conditions"]:
        if cond["type"] in ("Ready", "ContainersReady"):
            cond["status"] = "False"
            cond["lastTransitionTime"] = c.server.timestamp()
    c.client.update_status("pods", pod)


def _ips(subset: dict, field: str) -> list[str]:
    return [a["ip"] for a in subset.get(field) or []]


# ---------------------------------------------------------------- Endpoints
def test_ready_pods_become_addresses_with_target_ref_node_and_resolved_port():
    c = _cluster([_pod("a", "n1"), _pod("b", "n2"), _svc()])
    ep = c.get("endpoints", "web", "default")
    (ss,) = ep["subsets"]
    assert _ips(ss, "addresses") == ["10.244.0.2", "10.244.1.2"]
    assert "notReadyAddresses" not in ss
    assert ss["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    a = ss["addresses"][0]
    assert a["nodeName"] == "n1"
    assert a["targetRef"] == {"kind": "Pod", "namespace": "default", "name": "a",
                              "uid": c.get("pods", "a", "default")["metadata"]["uid"]}
    assert ep["metadata"]["labels"]["team"] == "a"
    assert ep["metadata"]["labels"]["endpoints.kubernetes.io/managed-by"] == "endpoint-controller"


def test_not_ready_pod_moves_to_not_ready_addresses_and_back():
    c = _cluster([_pod("a", "n1"), _pod("b", "n2"), _svc()])
    _set_not_ready(c, "b")
    c.run(until=6)
    (ss,) = c.get("endpoints", "web", "default")["subsets"]
    assert _ips(ss, "addresses") == ["10.244.0.2"]
    assert _ips(ss, "notReadyAddresses") == ["10.244.1.2"]


def test_publish_not_ready_addresses_lists_every_pod_as_ready():
    c = _cluster([_pod("a", "n1"), _pod("b", "n2"), _svc(publishNotReadyAddresses=True)])
    _set_not_ready(c, "b")
    c.run(until=6)
    (ss,) = c.get("endpoints", "web", "default")["subsets"]
    assert _ips(ss, "addresses") == ["10.244.0.2", "10.244.1.2"]


def test_pods_without_ip_are_skipped():
    c = _cluster([_pod("a", "n1"), _svc()], until=1)  # the stand-in kubelet starts pods at 2 s
    ep = c.get("endpoints", "web", "default")
    assert ep is not None and not ep.get("subsets")


def test_service_without_selector_is_left_alone():
    c = _cluster([_pod("a", "n1"), _svc(selector=None)])
    assert c.get("endpoints", "web", "default") is None


def test_empty_selector_selects_all_pods():
    c = _cluster([_pod("a", "n1", labels={"x": "1"}), _pod("b", "n2", labels={"y": "2"}), _svc(selector={})])
    (ss,) = c.get("endpoints", "web", "default")["subsets"]
    assert len(ss["addresses"]) == 2


def test_headless_service_label():
    c = _cluster([_pod("a", "n1"), _svc(clusterIP="None")])
    assert c.get("endpoints", "web", "default")["metadata"]["labels"]["service.kubernetes.io/headless"] == ""


def test_terminal_pods_are_excluded():
    c = _cluster([_pod("a", "n1"), _pod("b", "n2", restartPolicy="Never"), _svc()])
    pod = c.client.get("pods", "b", "default")
    pod["status"]["phase"] = "Failed"  # as the kubelet reports it: failed and no longer Ready
    for cond in pod["status"]["conditions"]:
        if cond["type"] == "Ready":
            cond["status"] = "False"
    c.client.update_status("pods", pod)
    c.run(until=6)
    (ss,) = c.get("endpoints", "web", "default")["subsets"]
    assert _ips(ss, "addresses") == ["10.244.0.2"] and "notReadyAddresses" not in ss


def test_terminating_pod_is_dropped_unless_publishing_not_ready():
    c = _cluster([_pod("a", "n1"), _pod("b", "n2"), _svc()])
    c.node_down("n2")  # its kubelet cannot finish the deletion: the pod stays Terminating
    c.client.delete("pods", "b", "default")
    c.run(until=7)
    (ss,) = c.get("endpoints", "web", "default")["subsets"]
    assert _ips(ss, "addresses") == ["10.244.0.2"] and "notReadyAddresses" not in ss
    (slice_,) = c.list("endpointslices", "default")
    b = next(e for e in slice_["endpoints"] if e["targetRef"]["name"] == "b")
    assert b["conditions"] == {"ready": False, "serving": True, "terminating": True}


def test_endpoints_are_deleted_with_their_service():
    c = _cluster([_pod("a", "n1"), _svc()])
    c.client.delete("services", "web", "default")
    c.run(until=6)
    assert c.get("endpoints", "web", "default") is None


def test_last_change_trigger_time_annotation_is_the_oldest_unsynced_change():
    c = _cluster([_pod("a", "n1"), _svc()])
    ep = c.get("endpoints", "web", "default")
    first = parse_timestamp(ep["metadata"]["annotations"][LAST_CHANGE_TRIGGER_TIME_ANNOTATION])
    assert first <= 2  # the service creation or the first Ready transition
    c.run(until=20)
    _set_not_ready(c, "a")
    c.run(until=21)
    ep = c.get("endpoints", "web", "default")
    assert parse_timestamp(ep["metadata"]["annotations"][LAST_CHANGE_TRIGGER_TIME_ANNOTATION]) == 20


@pytest.mark.parametrize("ready, not_ready, expected_ready, expected_not_ready", [
    ([], [], [], []),
    ([50, 100, 100, 100, 100], [50, 100, 100, 100, 100], [50, 100, 100, 100, 100], [50, 100, 100, 100, 100]),
    ([100] * 5, [100] * 5, [100] * 5, [100] * 5),
    ([90, 110, 50, 10, 20], [101, 200, 200, 201, 298], [90, 110, 50, 10, 20], [73, 144, 144, 145, 214]),
    ([205, 400, 402, 400, 693], [100, 200, 200, 200, 300], [98, 191, 192, 191, 328], [0, 0, 0, 0, 0]),
])
def test_truncate_endpoints(ready, not_ready, expected_ready, expected_not_ready):
    """TestTruncateEndpoints."""
    subsets = [{"addresses": [{}] * r, "notReadyAddresses": [{}] * n} for r, n in zip(ready, not_ready)]
    out, _ = truncate_endpoints(subsets, 1000)
    assert [len(s.get("addresses") or []) for s in out] == expected_ready
    assert [len(s.get("notReadyAddresses") or []) for s in out] == expected_not_ready


def test_over_capacity_service_is_truncated_and_annotated():
    """TestSyncServiceOverCapacity, "annotation added past capacity, maxCapacity of Ready Addresses"."""
    c = Cluster([_svc(), _node("n1")], seed=0, controllers=["endpoints-controller"], authorization=False,
                scheduler=False, kubelet="stand-in")
    c.run(until=1)
    ctl = c.controllers["endpoints-controller"]
    pods = [{"metadata": {"name": f"p{i:04d}", "namespace": "default", "uid": str(i), "labels": {"app": "web"}},
             "spec": {"containers": [{"name": "c", "image": "x", "ports": [{"name": "http", "containerPort": 80}]}]},
             "status": {"phase": "Running", "podIP": f"10.0.{i // 256}.{i % 256}",
                        "conditions": [{"type": "Ready", "status": "True" if i < 1000 else "False"}]}}
            for i in range(1010)]
    for p in pods:
        ctl.pod_informer.indexer.add(p)  # straight into the cache: 1010 running pods without kubelets
    ctl.enqueue("default/web")
    c.run(until=2)
    ep = c.get("endpoints", "web", "default")
    assert ep["metadata"]["annotations"][OVER_CAPACITY_ANNOTATION] == "truncated"
    assert sum(len(s.get("addresses") or []) for s in ep["subsets"]) == 1000
    assert sum(len(s.get("notReadyAddresses") or []) for s in ep["subsets"]) == 0


def test_repack_groups_addresses_by_port_set():
    p80 = [{"name": "a", "port": 80, "protocol": "TCP"}]
    p81 = [{"name": "a", "port": 81, "protocol": "TCP"}]
    out = repack_subsets([{"addresses": [{"ip": "1.1.1.2"}], "ports": p80},
                          {"notReadyAddresses": [{"ip": "1.1.1.1"}], "ports": p81},
                          {"addresses": [{"ip": "1.1.1.1"}], "ports": p80}])
    assert [(_ips(s, "addresses"), _ips(s, "notReadyAddresses"), s["ports"][0]["port"]) for s in out] == [
        (["1.1.1.1", "1.1.1.2"], [], 80), ([], ["1.1.1.1"], 81)]


def test_numeric_target_port_defaults_to_port():
    svc = {"metadata": {"name": "web", "namespace": "default"},
           "spec": {"selector": {"app": "web"}, "ports": [{"name": "x", "port": 9376}]}}
    pod = {"metadata": {"name": "p", "namespace": "default", "uid": "u"}, "spec": {},
           "status": {"phase": "Running", "podIP": "10.0.0.1", "conditions": [{"type": "Ready", "status": "True"}]}}
    (ss,), _ = compute_subsets(svc, [pod])
    assert ss["ports"] == [{"name": "x", "port": 9376, "protocol": "TCP"}]


# ---------------------------------------------------------------- EndpointSlices
def test_one_slice_with_service_labels_owner_and_conditions():
    c = _cluster([_pod("a", "n1"), _pod("b", "n2"), _svc()])
    _set_not_ready(c, "b")
    c.run(until=6)
    (s,) = c.list("endpointslices", "default")
    svc = c.get("services", "web", "default")
    assert s["metadata"]["name"].startswith("web-") and len(s["metadata"]["name"]) == len("web-") + 5
    assert s["metadata"]["labels"][LABEL_SERVICE_NAME] == "web"
    assert s["metadata"]["labels"][LABEL_MANAGED_BY] == "endpointslice-controller.k8s.io"
    assert s["metadata"]["labels"]["team"] == "a"
    assert s["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Service", "name": "web",
                                                 "uid": svc["metadata"]["uid"], "controller": True,
                                                 "blockOwnerDeletion": True}]
    assert s["addressType"] == "IPv4"
    assert s["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    conds = {e["targetRef"]["name"]: e["conditions"] for e in s["endpoints"]}
    assert conds == {"a": {"ready": True, "serving": True, "terminating": False},
                     "b": {"ready": False, "serving": False, "terminating": False}}
    assert {e["targetRef"]["name"]: e["nodeName"] for e in s["endpoints"]} == {"a": "n1", "b": "n2"}


def test_max_endpoints_per_slice_splits_and_placeholder_when_empty():
    pods = [_pod(f"p{i}", "n1" if i % 2 else "n2") for i in range(5)]
    c = _cluster([*pods, _svc()], options={"max-endpoints-per-slice": 2})
    slices = c.list("endpointslices", "default")
    assert sorted(len(s["endpoints"]) for s in slices) == [1, 2, 2]
    for i in range(5):
        c.client.delete("pods", f"p{i}", "default")
    c.run(until=10)
    (placeholder,) = c.list("endpointslices", "default")
    assert placeholder["endpoints"] == [] and placeholder["ports"] == []


def test_slice_keeps_its_name_as_pods_change():
    c = _cluster([_pod("a", "n1"), _svc()])
    (s1,) = c.list("endpointslices", "default")
    c.client.create("pods", _pod("b", "n2"), "default")
    c.run(until=10)
    (s2,) = c.list("endpointslices", "default")
    assert s2["metadata"]["name"] == s1["metadata"]["name"]
    assert sorted(e["targetRef"]["name"] for e in s2["endpoints"]) == ["a", "b"]


@pytest.mark.parametrize("publish, ready_cond, terminating, expected", [
    (False, "True", False, {"ready": True, "serving": True, "terminating": False}),
    (False, "False", False, {"ready": False, "serving": False, "terminating": False}),
    (False, "True", True, {"ready": False, "serving": True, "terminating": True}),
    (True, "False", True, {"ready": True, "serving": False, "terminating": True}),
])
def test_pod_to_endpoint_conditions(publish, ready_cond, terminating, expected):
    md = {"name": "p", "namespace": "default", "uid": "u"}
    if terminating:
        md["deletionTimestamp"] = "2025-08-27T00:00:30Z"
    pod = {"metadata": md, "spec": {}, "status": {"podIP": "10.0.0.1",
                                                   "conditions": [{"type": "Ready", "status": ready_cond}]}}
    svc = {"metadata": {"name": "web"}, "spec": {"publishNotReadyAddresses": publish}}
    assert pod_to_endpoint(pod, svc)["conditions"] == expected


def test_slices_go_with_their_service_through_the_garbage_collector():
    c = Cluster([_node("n1"), _pod("a", "n1"), _svc()], seed=0, authorization=False,
                controllers=[*CONTROLLERS, "garbage-collector-controller"], kubelet="stand-in")
    c.run(until=5)
    assert len(c.list("endpointslices", "default")) == 1
    c.client.delete("services", "web", "default")
    c.run(until=7)
    assert c.list("endpointslices", "default") == []
    assert c.get("endpoints", "web", "default") is None


def test_new_endpoints_fill_the_closest_fitting_slice_before_creating_one():
    """Staging reconciler: unchanged slice with room takes the new endpoint; a full set makes a new slice."""
    c = _cluster([_pod("p0", "n1"), _pod("p1", "n2"), _pod("p2", "n1"), _svc()],
                 options={"max-endpoints-per-slice": 2})
    before = {s["metadata"]["name"]: len(s["endpoints"]) for s in c.list("endpointslices", "default")}
    assert sorted(before.values()) == [1, 2]
    c.client.create("pods", _pod("p3", "n2"), "default")
    c.run(until=10)
    after = {s["metadata"]["name"]: len(s["endpoints"]) for s in c.list("endpointslices", "default")}
    assert after == {name: 2 for name in before}  # filled in place, no new slice
    c.client.create("pods", _pod("p4", "n1"), "default")
    c.run(until=15)
    final = {s["metadata"]["name"]: len(s["endpoints"]) for s in c.list("endpointslices", "default")}
    assert len(final) == 3 and sorted(final.values()) == [1, 2, 2] and set(before) < set(final)


def test_the_placeholder_slice_is_filled_in_place_not_replaced():
    """finalize() in staging/src/k8s.io/endpointslice/reconciler.go turns a create + delete pair into an update."""
    from kubenotes.sim.cluster import Cluster

    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 80}]}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "default",
                                                          "labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}]}}
    c = Cluster([node, svc, pod], seed=0, controllers=["node-ipam-controller", "endpointslice-controller"],
                authorization=False, kubelet="stand-in")
    c.run(until=1)
    (placeholder,) = c.list("endpointslices", "default")
    assert not placeholder.get("endpoints")
    c.run(until=10)
    (filled,) = c.list("endpointslices", "default")
    assert filled["metadata"]["name"] == placeholder["metadata"]["name"]
    assert [e["addresses"] for e in filled["endpoints"]] and filled["endpoints"][0]["conditions"]["ready"] is True
    writes = [e.verb for e in c.audit_log if e.kind == "EndpointSlice"]
    assert "delete" not in writes
