"""Tests for the disruption controller (PodDisruptionBudget status).

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/disruption/disruption_test.go:
``TestNoSelector`` (test_no_selector, with policy/v1's "an empty selector selects every pod of the
namespace"), ``TestUnavailable`` (test_unavailable), ``TestIntegerMaxUnavailable`` and
``TestStatusForUnmanagedPod`` (test_max_unavailable_with_unmanaged_pods), ``TestNakedPod``
(test_naked_pod_with_integer_min_available), ``TestIntegerMaxUnavailableWithScaling``,
``TestPercentageMaxUnavailableWithScaling`` (test_max_unavailable_with_scaling), ``TestReplicaSet``
(test_replica_set_percentage), ``TestDeploymentFinderFunction``-style lookups through
Deployment -> ReplicaSet (test_deployment_scale), ``TestStatefulSetController``
(test_stateful_set_percentage), ``TestPDBNotExist``, ``TestUpdateDisruptedPods``
(test_update_disrupted_pods), and the rounding of ``getExpectedPodCount`` (test_expected_pod_count).
Syncs run ``reconcile`` by hand against a real API server and informers; the eviction test runs a
Cluster.
"""

from __future__ import annotations

from typing import Any

import pytest
import simpy

from kubenotes.apiserver.server import APIServer, format_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.client import SharedInformerFactory
from kubenotes.controllers.disruption import (
    DELETION_TIMEOUT_SECONDS,
    DisruptionController,
    disruptions_allowed,
    expected_pod_count,
)
from kubenotes.controllers.reconciler import ControllerContext
from kubenotes.sim.cluster import Cluster

LABELS = {"foo": "bar"}


@pytest.mark.parametrize("spec,pods,scale,expected", [
    ({"minAvailable": 3}, 4, 10, (4, 3)),
    ({"minAvailable": "20%"}, 1, 10, (10, 2)),
    ({"minAvailable": "51%"}, 3, 3, (3, 2)),       # 1.53 rounds up
    ({"minAvailable": "1%"}, 2, 2, (2, 1)),
    ({"maxUnavailable": 1}, 3, 3, (3, 2)),
    ({"maxUnavailable": 2}, 1, 7, (7, 5)),
    ({"maxUnavailable": "30%"}, 1, 7, (7, 4)),     # 2.1 rounds up to 3
    ({"maxUnavailable": "30%"}, 1, 3, (3, 2)),
    ({"maxUnavailable": 5}, 1, 3, (3, 0)),
])
def test_expected_pod_count(spec, pods, scale, expected):
    assert expected_pod_count(spec, pods, scale) == expected


def test_disruptions_allowed():
    assert disruptions_allowed(4, 3, 4) == 1
    assert disruptions_allowed(3, 3, 4) == 0
    assert disruptions_allowed(5, 0, 0) == 0


# --------------------------------------------------------------------------- syncs by hand


class Rig:
    def __init__(self) -> None:
        self.env = simpy.Environment()
        self.server = APIServer(self.env, seed=1)
        self.admin = self.server.client("kubectl")
        informers = SharedInformerFactory(self.server.client("kube-controller-manager"), self.env)
        self.ctrl = DisruptionController(ControllerContext(self.env, self.server, informers,
                                                           lambda comp, sa: self.server.client(comp)))
        informers.start()
        self.env.run(until=1)
        self.n = 0

    def settle(self) -> None:
        self.env.run(until=self.env.now + 1)

    def pdb(self, **spec: Any) -> dict:
        spec.setdefault("selector", {"matchLabels": LABELS})
        return self.admin.create("poddisruptionbudgets", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                                                          "metadata": {"name": "pdb"}, "spec": spec}, "default")

    def owner(self, resource: str, kind: str, replicas: int, owner: dict | None = None, name: str = "") -> dict:
        md: dict = {"name": name or kind.lower()}
        if owner is not None:
            md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner["kind"], "name": owner["metadata"]["name"],
                                      "uid": owner["metadata"]["uid"], "controller": True}]
        spec: dict = {"replicas": replicas, "selector": {"matchLabels": LABELS},
                      "template": {"metadata": {"labels": LABELS},
                                   "spec": {"containers": [{"name": "c", "image": "x"}]}}}
        if kind == "ReplicationController":
            spec["selector"] = LABELS
        return self.admin.create(resource, {"kind": kind, "metadata": md, "spec": spec}, "default")

    def pod(self, ready: bool = True, owner: dict | None = None) -> dict:
        self.n += 1
        md: dict = {"name": f"pod-{self.n}", "labels": LABELS}
        if owner is not None:
            md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner["kind"], "name": owner["metadata"]["name"],
                                      "uid": owner["metadata"]["uid"], "controller": True}]
        p = self.admin.create("pods", {"metadata": md, "spec": {"containers": [{"name": "c", "image": "x"}]}},
                              "default")
        return self.set_ready(p, ready)

    def set_ready(self, p: dict, ready: bool) -> dict:
        p = self.admin.get("pods", p["metadata"]["name"], "default")
        p["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                                           "lastTransitionTime": format_timestamp(self.env.now)}]}
        return self.admin.update_status("pods", p, "default")

    def sync(self) -> dict:
        self.settle()
        self.ctrl.reconcile("default/pdb")
        return self.server.get("poddisruptionbudgets", "default", "pdb")["status"]


def verify(st: dict, allowed: int, healthy: int, desired: int, expected: int) -> None:
    assert (st["disruptionsAllowed"], st["currentHealthy"], st["desiredHealthy"], st["expectedPods"]) == \
        (allowed, healthy, desired, expected)
    cond = next(c for c in st["conditions"] if c["type"] == "DisruptionAllowed")
    assert (cond["status"], cond["reason"]) == (("True", "SufficientPods") if allowed > 0 else
                                                ("False", "InsufficientPods"))
    assert st["observedGeneration"] == 1


def test_no_selector():
    r = Rig()
    r.pdb(minAvailable=3, selector={})
    verify(r.sync(), 0, 0, 3, 0)
    assert any(e["reason"] == "NoPods" and e["message"] == "No matching pods found"
               for e in r.server.list("events", "default"))
    r.admin.create("pods", {"metadata": {"name": "yo-yo-yo", "labels": {"any": "thing"}},
                            "spec": {"containers": [{"name": "c", "image": "x"}]}}, "default")
    r.set_ready({"metadata": {"name": "yo-yo-yo"}}, True)
    verify(r.sync(), 0, 1, 3, 1)  # policy/v1: the empty selector picks the pod


def test_unavailable():
    r = Rig()
    r.pdb(minAvailable=3)
    pods = [r.pod() for _ in range(4)]
    verify(r.sync(), 1, 4, 3, 4)
    r.set_ready(pods[0], False)
    verify(r.sync(), 0, 3, 3, 4)


def test_naked_pod_with_integer_min_available():
    r = Rig()
    r.pdb(minAvailable="28%")
    r.pod()
    st = r.sync()  # a percentage needs the controller's scale: a naked pod is unmanaged
    assert st["disruptionsAllowed"] == 0
    assert any(e["reason"] == "UnmanagedPods" for e in r.server.list("events", "default"))
    r2 = Rig()
    r2.pdb(minAvailable=1)
    r2.pod()
    r2.pod()
    verify(r2.sync(), 1, 2, 1, 2)


def test_max_unavailable_with_unmanaged_pods():
    r = Rig()
    r.pdb(maxUnavailable=1)
    r.pod()
    r.pod()
    verify(r.sync(), 0, 2, 0, 0)
    ev = [e for e in r.server.list("events", "default") if e["reason"] == "UnmanagedPods"]
    assert ev and ev[0]["message"].startswith(
        "Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{foo: bar,},"
        "MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged.")
    assert ev[0]["type"] == "Warning"


def test_max_unavailable_with_scaling():
    r = Rig()
    r.pdb(maxUnavailable=2)
    rs = r.owner("replicasets", "ReplicaSet", 7)
    r.pod(owner=rs)
    verify(r.sync(), 0, 1, 5, 7)
    for _ in range(5):
        r.pod(owner=rs)
    verify(r.sync(), 1, 6, 5, 7)
    rs = r.admin.get("replicasets", "replicaset", "default")
    rs["spec"]["replicas"] = 5
    r.admin.update("replicasets", rs, "default")
    verify(r.sync(), 3, 6, 3, 5)
    r3 = Rig()
    r3.pdb(maxUnavailable="30%")
    rs = r3.owner("replicasets", "ReplicaSet", 7)
    r3.pod(owner=rs)
    verify(r3.sync(), 0, 1, 4, 7)


def test_replica_set_percentage():
    r = Rig()
    r.pdb(minAvailable="20%")
    rs = r.owner("replicasets", "ReplicaSet", 10)
    r.pod(owner=rs)
    verify(r.sync(), 0, 1, 2, 10)


def test_deployment_scale():
    r = Rig()
    r.pdb(maxUnavailable="25%")
    d = r.owner("deployments", "Deployment", 4)
    rs = r.owner("replicasets", "ReplicaSet", 2, owner=d)
    for _ in range(4):
        r.pod(owner=rs)
    verify(r.sync(), 1, 4, 3, 4)  # the Deployment's 4, not the ReplicaSet's 2


def test_stateful_set_percentage():
    r = Rig()
    r.pdb(minAvailable="51%")
    ss = r.owner("statefulsets", "StatefulSet", 3)
    r.pod(owner=ss)
    verify(r.sync(), 0, 1, 2, 3)
    r.pod(owner=ss)
    r.pod(owner=ss)
    verify(r.sync(), 1, 3, 2, 3)


def test_missing_controller_fails_safe():
    r = Rig()
    r.pdb(maxUnavailable=1)
    r.pod(owner={"kind": "ReplicaSet", "metadata": {"name": "gone", "uid": "nope"}})
    st = r.sync()
    cond = st["conditions"][0]
    assert st["disruptionsAllowed"] == 0
    assert (cond["status"], cond["reason"]) == ("False", "SyncFailed")
    assert cond["message"] == 'found no controllers for pod "pod-1"'


def test_pdb_not_exist():
    r = Rig()
    assert r.ctrl.reconcile("default/unk") is None


def test_update_disrupted_pods():
    r = Rig()
    pdb = r.pdb(minAvailable=1)
    pods = [r.pod() for _ in range(3)]
    r.sync()
    pdb = r.admin.get("poddisruptionbudgets", "pdb", "default")
    pdb["status"]["disruptedPods"] = {"p1": format_timestamp(r.env.now), "pod-1": format_timestamp(r.env.now),
                                      "pod-2": format_timestamp(r.env.now - DELETION_TIMEOUT_SECONDS - 10)}
    r.admin.update_status("poddisruptionbudgets", pdb, "default")
    st = r.sync()
    # p1 does not exist, pod-2's eviction is too old: only pod-1 stays, and it does not count as healthy
    assert st["disruptedPods"] == {"pod-1": pdb["status"]["disruptedPods"]["pod-1"]}
    verify(st, 1, 2, 1, 3)
    assert len(pods) == 3


# --------------------------------------------------------------------------- end to end with evictions


def test_eviction_respects_the_budget():
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
              "status": {"allocatable": alloc, "capacity": alloc}} for i in (1, 2, 3)]
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
          "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {
              "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "web", "namespace": "default"},
           "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}}
    c = Cluster(nodes + [rs, pdb], seed=0, controllers=["replicaset-controller", "disruption-controller"],
                authorization=False, kubelet="stand-in")
    c.run(until=10)
    st = c.get("poddisruptionbudgets", "web", "default")["status"]
    assert (st["disruptionsAllowed"], st["currentHealthy"], st["desiredHealthy"], st["expectedPods"]) == (1, 3, 2, 3)
    running = sorted(p["metadata"]["name"] for p in c.list("pods", "default"))
    c.client.evict("default", running[0])
    with pytest.raises(ApiError) as e:
        c.client.evict("default", running[1])
    assert e.value.code == 429
    c.run(until=20)  # the replacement is Running and Ready: one disruption allowed again
    st = c.get("poddisruptionbudgets", "web", "default")["status"]
    assert (st["disruptionsAllowed"], st["currentHealthy"]) == (1, 3)
    assert "disruptedPods" not in st
    c.client.evict("default", running[1])
