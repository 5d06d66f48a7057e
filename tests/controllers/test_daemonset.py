"""Tests for the DaemonSet controller.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/daemon/daemon_controller_test.go
``TestNodeShouldRunDaemonPod`` (test_node_should_run_daemon_pod: its rows on resources, host name,
host ports, node selector, node affinity, unschedulable nodes and taints), util/daemonset_util_test.go
``TestReplaceDaemonSetPodNodeNameNodeAffinity`` and ``TestAddOrUpdateDaemonPodTolerations``
(test_tolerations_and_affinity). The sync behaviours of ``TestSimpleDaemonSetLaunchesPods``,
``TestNodeSelectorDaemonLaunchesPods``, ``TestTaintedNodeDaemonDoesNotLaunchPod``,
``TestDaemonSetRespectsTermination``-style removal, update_test.go ``TestDaemonSetUpdatesPods``
(maxUnavailable), ``TestDaemonSetUpdatesPodsWithMaxSurge`` and ``TestDaemonSetUpdatesNoTemplateChanged``
run end to end in a Cluster (scheduler and stand-in kubelets included).
"""

from __future__ import annotations

from typing import Any

import pytest

from kubenotes.controllers.daemonset import (
    DAEMONSET_TOLERATIONS,
    add_or_update_daemon_pod_tolerations,
    node_should_run_daemon_pod,
    replace_daemon_set_pod_node_name_node_affinity,
)
from kubenotes.sim.cluster import Cluster


def _ds(**tmpl_spec: Any) -> dict:
    return {"metadata": {"name": "ds", "namespace": "default"},
            "spec": {"template": {"metadata": {"labels": {"app": "ds"}},
                                  "spec": {"containers": [{"name": "c", "image": "x", "resources": {
                                      "requests": {"cpu": "50", "memory": "75Gi"}},
                                      "ports": [{"hostPort": 666, "containerPort": 666}]}], **tmpl_spec}}}}


def _node(name: str = "test-node", labels: dict | None = None, taints: list | None = None,
          unschedulable: bool = False) -> dict:
    spec: dict = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"metadata": {"name": name, "labels": labels or {}}, "spec": spec,
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "0"}}}


AFFINITY_IN = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "type", "operator": "In", "values": ["production"]}]}]}}}


@pytest.mark.parametrize("name,ds,node,expected", [
    ("ShouldRunDaemonPod (resources do not matter)", _ds(), _node(), (True, True)),
    ("InsufficientResourceError", _ds(), _node(), (True, True)),
    ("ErrPodNotMatchHostName", _ds(nodeName="other-node"), _node(), (False, False)),
    ("matching nodeName", _ds(nodeName="test-node"), _node(), (True, True)),
    ("ErrPodNotFitsHostPorts", _ds(), _node(), (True, True)),
    ("ErrNodeSelectorNotMatch", _ds(nodeSelector={"disk": "ssd"}), _node(), (False, False)),
    ("node selector matches", _ds(nodeSelector={"disk": "ssd"}), _node(labels={"disk": "ssd"}), (True, True)),
    ("ErrPodAffinityNotMatch", _ds(affinity=AFFINITY_IN), _node(labels={"type": "test"}), (False, False)),
    ("ShouldRunDaemonPod (affinity)", _ds(affinity=AFFINITY_IN), _node(labels={"type": "production"}),
     (True, True)),
    ("ShouldRunDaemonPodOnUnschedulableNode", _ds(), _node(unschedulable=True), (True, True)),
    ("unschedulable taint is tolerated", _ds(),
     _node(taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]), (True, True)),
    ("not-ready NoExecute taint is tolerated", _ds(),
     _node(taints=[{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]), (True, True)),
    ("untolerated NoSchedule taint: keep running", _ds(),
     _node(taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]), (False, True)),
    ("untolerated NoExecute taint: evicted", _ds(),
     _node(taints=[{"key": "dedicated", "value": "gpu", "effect": "NoExecute"}]), (False, False)),
    ("PreferNoSchedule is ignored", _ds(),
     _node(taints=[{"key": "dedicated", "value": "gpu", "effect": "PreferNoSchedule"}]), (True, True)),
    ("tolerated NoSchedule taint", _ds(tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu",
                                                     "effect": "NoSchedule"}]),
     _node(taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]), (True, True)),
    ("network-unavailable only for hostNetwork", _ds(),
     _node(taints=[{"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}]), (False, True)),
    ("network-unavailable tolerated with hostNetwork", _ds(hostNetwork=True),
     _node(taints=[{"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}]), (True, True)),
])
def test_node_should_run_daemon_pod(name, ds, node, expected):
    assert node_should_run_daemon_pod(node, ds) == expected, name


def test_tolerations_and_affinity():
    spec = {"tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}, {"key": "other", "operator": "Exists"}]}
    add_or_update_daemon_pod_tolerations(spec)
    # the matching toleration is replaced by the one without seconds; the others are appended in order
    assert spec["tolerations"][0] == {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                      "effect": "NoExecute"}
    assert spec["tolerations"][1] == {"key": "other", "operator": "Exists"}
    assert [(t["key"], t["effect"]) for t in spec["tolerations"][2:]] == list(DAEMONSET_TOLERATIONS[1:])
    aff = replace_daemon_set_pod_node_name_node_affinity(AFFINITY_IN, "host-1")
    assert aff["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host-1"]}]}]}
    assert AFFINITY_IN["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
        "matchExpressions"]  # the input is not changed


# --------------------------------------------------------------------------- end to end


def nodes(n: int = 3) -> list[dict]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}",
                                                              "labels": {"kubernetes.io/hostname": f"node-{i}"}},
             "status": {"allocatable": alloc, "capacity": alloc}} for i in range(1, n + 1)]


def daemonset(image: str = "agent:1", **strategy: Any) -> dict:
    spec: dict = {"selector": {"matchLabels": {"app": "agent"}}, "template": {
        "metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "agent", "image": image}]}}}
    if strategy:
        spec["updateStrategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
            "spec": spec}


def cluster(objs: list[dict]) -> Cluster:
    return Cluster(objs, seed=0, controllers=["daemonset-controller"], authorization=False, kubelet="stand-in")


def pods(c: Cluster) -> list[tuple[str, str, str, bool]]:
    return sorted((p["spec"].get("nodeName", ""), p["spec"]["containers"][0]["image"], p["status"].get("phase", ""),
                   bool(p["metadata"].get("deletionTimestamp"))) for p in c.list("pods", "kube-system"))


def set_image(c: Cluster, image: str) -> None:
    c.apply({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
             "spec": {"template": {"spec": {"containers": [{"name": "agent", "image": image}]}}}})


def test_one_pod_per_untainted_node():
    ns = nodes()
    ns[2]["spec"] = {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}
    c = cluster(ns + [daemonset()])
    c.run(until=10)
    assert pods(c) == [("node-1", "agent:1", "Running", False), ("node-2", "agent:1", "Running", False)]
    p = c.list("pods", "kube-system")[0]
    assert p["metadata"]["name"].startswith("agent-")
    node = p["spec"]["nodeName"]
    assert p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}
    assert {t["key"] for t in p["spec"]["tolerations"]} == {k for k, _ in DAEMONSET_TOLERATIONS}
    revs = c.list("controllerrevisions", "kube-system")
    assert len(revs) == 1 and revs[0]["revision"] == 1
    h = revs[0]["metadata"]["labels"]["controller-revision-hash"]
    assert revs[0]["metadata"]["name"] == f"agent-{h}"
    assert p["metadata"]["labels"] == {"app": "agent", "controller-revision-hash": h, "pod-template-generation": "1"}
    st = c.get("daemonsets", "agent", "kube-system")["status"]
    assert st == {"currentNumberScheduled": 2, "numberMisscheduled": 0, "desiredNumberScheduled": 2,
                  "numberReady": 2, "updatedNumberScheduled": 2, "numberAvailable": 2, "observedGeneration": 1}
    events = [(e["reason"], e["message"]) for e in c.list("events", "kube-system")
              if e["involvedObject"]["kind"] == "DaemonSet"]
    assert sorted(r for r, _ in events) == ["SuccessfulCreate", "SuccessfulCreate"]
    assert all(m.startswith("Created pod: agent-") for _, m in events)


def test_node_selector_and_label_changes():
    ns = nodes()
    ns[0]["metadata"]["labels"]["disk"] = "ssd"
    ds = daemonset()
    ds["spec"]["template"]["spec"]["nodeSelector"] = {"disk": "ssd"}
    c = cluster(ns + [ds])
    c.run(until=10)
    assert [p[0] for p in pods(c)] == ["node-1"]
    c.client.patch("nodes", "node-2", {"metadata": {"labels": {"disk": "ssd"}}})
    c.run(until=20)
    assert [p[0] for p in pods(c)] == ["node-1", "node-2"]
    c.client.patch("nodes", "node-1", {"metadata": {"labels": {"disk": None}}})
    c.run(until=30)
    assert [p[0] for p in pods(c)] == ["node-2"]


def test_rolling_update_replaces_one_node_at_a_time():
    c = cluster(nodes() + [daemonset()])
    c.run(until=10)
    set_image(c, "agent:2")
    c.run(until=10.5)
    # maxUnavailable 1: one old pod is being deleted, the others stay
    assert sum(1 for p in pods(c) if p[3]) == 1
    timeline = []
    for t in range(11, 40):
        c.run(until=t)
        timeline.append(sum(1 for p in pods(c) if p[1] == "agent:2" and p[2] == "Running"))
    assert timeline[-1] == 3
    assert all(b - a <= 1 for a, b in zip(timeline, timeline[1:]))  # never two nodes at once
    st = c.get("daemonsets", "agent", "kube-system")["status"]
    assert (st["updatedNumberScheduled"], st["numberAvailable"], st["observedGeneration"]) == (3, 3, 2)
    assert sorted(r["revision"] for r in c.list("controllerrevisions", "kube-system")) == [1, 2]


def test_rolling_update_with_max_surge_starts_the_new_pod_first():
    c = cluster(nodes() + [daemonset(type="RollingUpdate", rollingUpdate={"maxSurge": 1, "maxUnavailable": 0})])
    c.run(until=10)
    set_image(c, "agent:2")
    c.run(until=10.5)
    assert not any(p[3] for p in pods(c))            # nothing deleted yet
    assert sum(1 for p in pods(c) if p[1] == "agent:2") == 1
    for t in range(11, 40):
        c.run(until=t)
        running = [p for p in pods(c) if p[2] == "Running" and not p[3]]
        assert len({p[0] for p in running}) == 3     # every node keeps a running pod
    assert pods(c) == [(f"node-{i}", "agent:2", "Running", False) for i in (1, 2, 3)]


def test_on_delete_waits_for_deletion():
    c = cluster(nodes() + [daemonset(type="OnDelete")])
    c.run(until=10)
    set_image(c, "agent:2")
    c.run(until=30)
    assert {p[1] for p in pods(c)} == {"agent:1"}
    name = next(p["metadata"]["name"] for p in c.list("pods", "kube-system") if p["spec"]["nodeName"] == "node-1")
    c.client.delete("pods", name, "kube-system")
    c.run(until=40)
    assert [p[1] for p in pods(c)] == ["agent:2", "agent:1", "agent:1"]
    assert c.get("daemonsets", "agent", "kube-system")["status"]["updatedNumberScheduled"] == 1


def test_failed_daemon_pod_is_replaced():
    c = cluster(nodes(1) + [daemonset()])
    c.run(until=5)
    pod = c.list("pods", "kube-system")[0]
    pod["status"]["phase"] = "Failed"   # as a kubelet reports a pod it rejected
    c.client.update_status("pods", pod, "kube-system")
    c.run(until=20)
    ev = [(e["reason"], e["message"]) for e in c.list("events", "kube-system") if e["reason"] == "FailedDaemonPod"]
    assert ev == [("FailedDaemonPod", f"Found failed daemon pod kube-system/{pod['metadata']['name']} on node node-1, "
                                      "will try to kill it")]
    assert pods(c) == [("node-1", "agent:1", "Running", False)]
    assert c.list("pods", "kube-system")[0]["metadata"]["name"] != pod["metadata"]["name"]
