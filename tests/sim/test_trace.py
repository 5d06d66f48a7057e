"""The component graph of a running cluster and the hops one apply causes (:mod:`kubenotes.sim.trace`)."""

from __future__ import annotations

import networkx as nx
import pytest

from kubenotes.apiserver.status import ApiError
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.trace import APISERVER_STAGES, apply_hops, component_graph

NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def replicaset(name: str = "hello", replicas: int = 2) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.27",
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}



@pytest.fixture()
def cluster():
    c = Cluster.from_manifests(NODES, seed=0, controllers=["replicaset-controller"])
    c.run(until=1)
    return c


@pytest.fixture()
def traced(cluster):
    g = component_graph(cluster)
    hops = apply_hops(cluster, replicaset(), until_seconds=10, graph=g)
    return cluster, g, hops


def test_graph_has_every_running_component(cluster):
    g = component_graph(cluster)
    assert set(APISERVER_STAGES) | {"kubectl", "etcd", "watch cache", "kube-scheduler"} <= set(g)
    assert g.nodes["replicaset-controller"]["group"] == "kube-controller-manager"
    assert {v for v, d in g.nodes(data=True) if d["kind"] == "kubelet"} == {"kubelet/n1", "kubelet/n2"}
    # the handler chain, in upstream's order, ends in etcd
    chain = [*APISERVER_STAGES, "etcd"]
    assert all(g.has_edge(a, b) for a, b in zip(chain, chain[1:]))
    assert nx.shortest_path(g, "kubectl", "etcd") == ["kubectl", *chain]
    flows = {(u, v): d["flow"] for u, v, d in g.edges(data=True)}
    assert flows["kube-scheduler", "authentication"] == "bind"
    assert flows["kubelet/n1", "authentication"] == "status"
    assert flows["replicaset-controller", "authentication"] == "write"
    assert flows["watch cache", "kubelet/n2"] == flows["watch cache", "replicaset-controller"] == "watch"


def test_graph_without_scheduler_or_controllers():
    c = Cluster.from_manifests(NODES, seed=0, controllers=[], scheduler=False, kubelet="stand-in")
    g = component_graph(c)
    assert "kube-scheduler" not in g and not [v for v, d in g.nodes(data=True) if d["kind"] == "controller"]
    # the kubelet model always brings the two controllers every pod's token volume needs
    c = Cluster.from_manifests(NODES, seed=0, controllers=[], scheduler=False)
    assert sorted(v for v, d in component_graph(c).nodes(data=True) if d["kind"] == "controller") == [
        "root-ca-certificate-publisher-controller", "serviceaccount-controller"]


def test_apply_hops_follow_the_request_path_then_the_watchers(traced):
    cluster, g, hops = traced
    assert [h["step"] for h in hops] == list(range(1, len(hops) + 1))
    assert all(h["from"] in g and h["to"] in g for h in hops)
    times = [h["time"] for h in hops]
    assert times == sorted(times)
    # kubectl's request, stage by stage
    assert [(h["from"], h["to"]) for h in hops[:6]] == [
        ("kubectl", "authentication"), ("authentication", "authorization"), ("authorization", "mutating admission"),
        ("mutating admission", "validation"), ("validation", "validating admission"),
        ("validating admission", "etcd")]
    assert hops[0]["what"] == "create replicasets default/hello (as kubernetes-admin)"
    assert "/registry/replicasets/default/hello" in hops[5]["what"]
    # then the watch wakes the ReplicaSet controller, which creates the pods
    assert hops[6]["from"] == "etcd" and hops[6]["to"] == "replicaset-controller"
    assert hops[6]["what"].startswith("watch: ADDED ReplicaSet default/hello ")
    order = [(h["from"], h["to"]) for h in hops]
    first_create = order.index(("replicaset-controller", "authentication"))
    first_bind = next(i for i, h in enumerate(hops) if h["what"].startswith("create pods/binding"))
    first_kubelet = next(i for i, h in enumerate(hops) if h["from"].startswith("kubelet/"))
    assert first_create < first_bind < first_kubelet
    assert hops[first_bind - 1]["to"] == "kube-scheduler" and hops[first_bind - 1]["what"].startswith("watch: ADDED Pod")
    assert hops[first_kubelet - 1]["from"] == "etcd" and hops[first_kubelet - 1]["what"].startswith("watch: ADDED Pod")
    binds = [h for h in hops if h["what"].startswith("create pods/binding")]
    assert len(binds) == 2 and all(h["from"] == "kube-scheduler" for h in binds)
    # each bound pod is reported Running by the kubelet of its node
    pods = cluster.list("pods", "default")
    nodes = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods}
    running = [h for h in hops if h["from"].startswith("kubelet/") and "Running" in h["what"]]
    assert sorted(h["from"] for h in running) == sorted(f"kubelet/{n}" for n in nodes.values())


def test_apply_hops_resource_versions_increase_and_match_the_store(traced):
    cluster, _g, hops = traced
    import re

    rvs = [int(re.search(r"resourceVersion (\d+)", h["what"]).group(1)) for h in hops if h["to"] == "etcd"]
    assert rvs == sorted(rvs) and len(set(rvs)) == len(rvs)
    rs = cluster.get("replicasets", "hello", "default")
    assert int(rs["metadata"]["resourceVersion"]) == max(
        rv for h, rv in zip([h for h in hops if h["to"] == "etcd"], rvs) if "replicasets/default/hello" in h["what"])


def test_apply_hops_records_requests_and_restores_tracing(traced):
    cluster, _g, hops = traced
    assert cluster.server.request_trace is None  # tracing was off before, and is off again
    assert hops[0]["request"] is not None and all(h["request"] is None for h in hops if h["from"] == "etcd")


def test_apply_hops_keeps_tracing_on_when_it_was_on(cluster):
    trace = cluster.server.trace_requests()
    hops = apply_hops(cluster, replicaset("other", 1), until_seconds=4)
    assert cluster.server.request_trace is trace
    rec = trace[hops[0]["request"]]
    assert (rec["verb"], rec["resource"], rec["name"]) == ("create", "replicasets", "other")


def test_apply_hops_without_status_updates(cluster):
    hops = apply_hops(cluster, replicaset(), until_seconds=10, status_updates=False)
    assert not [h for h in hops if "replicasets/status" in h["what"]]
    assert [h for h in hops if "pods/status" in h["what"]]  # the kubelet is not a controller: kept


def test_apply_hops_ignores_unrelated_writes(cluster):
    hops = apply_hops(cluster, replicaset(), until_seconds=25)  # leases renew every 10 s meanwhile
    assert not [h for h in hops if "leases" in h["what"] or "Lease" in h["what"]]


def test_refused_apply_raises_and_leaves_no_hops(cluster):
    bad = replicaset()
    bad["metadata"]["namespace"] = "missing"
    with pytest.raises(ApiError):
        apply_hops(cluster, bad, until_seconds=5)
    assert cluster.server.request_trace is None


def test_apply_hops_on_a_bare_request_path():
    """AlwaysAllow, no admission, no validation: the stages are still passed, and say so."""
    c = Cluster.from_manifests(NODES, seed=0, controllers=["replicaset-controller"], authorization=False,
                               admission=False, validation=False)
    c.run(until=1)
    hops = apply_hops(c, replicaset("bare", 1), until_seconds=5)
    assert [h["what"] for h in hops[2:5]] == ["authorized: AlwaysAllow", "mutating admission: no plugin enabled",
                                              "validation: not enabled"]
    assert hops[5]["what"].startswith("validating admission: no plugin enabled; stored /registry/replicasets/default/bare")
    assert any(h["what"].startswith("as system:serviceaccount:kube-system:replicaset-controller: AlwaysAllow;")
               for h in hops)
