"""Queueing hints for Node events in the running scheduler (v1.34, QueueingHints locked on).

Ported from kubernetes/kubernetes@v1.34.0 test/integration/scheduler/queueing/queue_test.go
``TestCoreResourceEnqueue``, the Node-event cases the model can express (each case: a pod the
named plugin rejected, one Node event, and whether the pod is retried):

* "Pod rejected by the NodeResourcesFit plugin is requeued when a Node is created" (a node with room),
  and not for a created node too small for it;
* "Pod rejected by the NodeResourcesFit plugin is requeued when the Node is updated" (allocatable grows),
  and "... isn't requeued when a Node is updated without increase in the requested resources"
  (a label change);
* "Pod rejected by the NodeUnschedulable plugin is requeued when the node is turned to ready" (uncordoned);
* "Pod rejected by the TaintToleration plugin is requeued when the Node's taint is updated" (removed),
  and not when a node gains a taint;
* issue #32: a pod NodeResourcesFit rejected is not requeued when a node turns Unknown and gains the
  ``node.kubernetes.io/unreachable`` NoSchedule and NoExecute taints.

Hints: pkg/scheduler/framework/plugins/noderesources/fit.go, tainttoleration/taint_toleration.go,
nodeunschedulable/node_unschedulable.go ``isSchedulableAfterNodeChange``; the event types from
pkg/scheduler/framework/events.go ``NodeSchedulingPropertiesChange``.
"""

from __future__ import annotations

import pytest

from kubenotes.scheduler.plugins.names import NODE_RESOURCES_FIT, NODE_UNSCHEDULABLE, TAINT_TOLERATION
from kubenotes.sim.cluster import Cluster


def _node(name: str, cpu: str = "1", **spec) -> dict:
    alloc = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": spec, "status": {"allocatable": alloc, "capacity": dict(alloc)}}


def _pod(cpu: str = "2") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": cpu}}}]}}


def _attempts(c: Cluster) -> list:
    """The scheduling attempts that failed for pod ``big`` (one trace per ScheduleOne)."""
    return [t for t in c.scheduler.traces if t.name == "big" and t.node_name is None]


def _rejected_by(c: Cluster) -> set[str]:
    q = c.scheduler.scheduler.queue.unschedulable_pods
    return set().union(*(x.unschedulable_plugins for x in q.values())) if q else set()


def _cluster(*nodes: dict, pod: dict | None = None) -> Cluster:
    c = Cluster(list(nodes) + [pod or _pod()], seed=0, controllers=[], authorization=False, kubelet="stand-in")
    c.run(until=5)
    return c


def _update_node(c: Cluster, name: str, fn) -> None:
    node = c.client.get("nodes", name)
    fn(node)
    if "status" in node:
        c.client.update_status("nodes", node)
        node = c.client.get("nodes", name)
        fn(node)
    c.client.update("nodes", node)


def _bound(c: Cluster) -> str | None:
    return (c.get("pods", "big", "default")["spec"] or {}).get("nodeName")


@pytest.mark.parametrize("cpu, requeued", [("4", True), ("1", False)])
def test_fit_rejected_pod_and_a_node_created(cpu, requeued):
    c = _cluster(_node("n1"))
    assert _rejected_by(c) == {NODE_RESOURCES_FIT}
    before = len(_attempts(c))
    c.client.create("nodes", _node("n2", cpu=cpu))
    c.run(until=20)
    assert (_bound(c) == "n2") is requeued
    assert len(_attempts(c)) == before  # requeued: bound at once; skipped: no new attempt


def _set_cpu(cpu: str):
    def fn(node: dict) -> None:
        node["status"]["allocatable"]["cpu"] = cpu
        node["status"]["capacity"]["cpu"] = cpu
    return fn


def _add_label(node: dict) -> None:
    node["metadata"]["labels"]["tier"] = "gold"


@pytest.mark.parametrize("change, requeued", [(_set_cpu("4"), True), (_add_label, False)])
def test_fit_rejected_pod_and_a_node_updated(change, requeued):
    c = _cluster(_node("n1"))
    before = len(_attempts(c))
    _update_node(c, "n1", change)
    c.run(until=20)
    assert (_bound(c) == "n1") is requeued
    assert len(_attempts(c)) == before


def test_unschedulable_rejected_pod_is_requeued_when_the_node_is_uncordoned():
    c = _cluster(_node("n1", cpu="4", unschedulable=True))
    assert NODE_UNSCHEDULABLE in _rejected_by(c)
    _update_node(c, "n1", lambda n: n["spec"].pop("unschedulable", None))
    c.run(until=20)
    assert _bound(c) == "n1"


@pytest.mark.parametrize("removed, requeued", [(True, True), (False, False)])
def test_taint_rejected_pod_and_a_taint_change(removed, requeued):
    taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    c = _cluster(_node("n1", cpu="4", taints=[taint]), _node("n2", cpu="4", taints=[taint]))
    assert _rejected_by(c) == {TAINT_TOLERATION}
    before = len(_attempts(c))
    other = {"key": "team", "value": "a", "effect": "NoExecute"}
    _update_node(c, "n1", (lambda n: n["spec"].pop("taints")) if removed else
                 (lambda n: n["spec"]["taints"].append(other)))
    c.run(until=20)
    assert (_bound(c) == "n1") is requeued
    assert len(_attempts(c)) == before


def test_fit_rejected_pod_is_not_requeued_when_a_node_turns_unknown_and_is_tainted():
    """Issue #32: Ready=Unknown (UpdateNodeCondition) and the unreachable taints (UpdateNodeTaint) are not events
    NodeResourcesFit registers; before queueing hints, every such node change retried the pod."""
    c = Cluster([_node("n1"), _node("n2"), _pod()], seed=0, controllers=["node-lifecycle-controller"],
                authorization=False, kubelet="stand-in")
    c.run(until=10)
    assert _rejected_by(c) == {NODE_RESOURCES_FIT}
    before = len(_attempts(c))
    c.node_down("n1")
    c.run(until=120)
    taints = {(t["key"], t["effect"]) for t in c.get("nodes", "n1")["spec"]["taints"]}
    assert ("node.kubernetes.io/unreachable", "NoExecute") in taints
    assert len(_attempts(c)) == before
    assert _rejected_by(c) == {NODE_RESOURCES_FIT}
