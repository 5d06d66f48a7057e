"""Tests for the ResourceQuota controller.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/resourcequota/resource_quota_controller_test.go
``TestSyncResourceQuota``: the rows "clean state" (test_clean_state: two running pods and a failed
one, usage of cpu/memory/pods), "quota-spec-hard-updated" (test_spec_hard_updated), "quota-unchanged"
(test_unchanged_quota_is_not_written), the scoped rows with ``BestEffort``/``NotBestEffort``
(test_scopes), ``TestAddQuota`` (test_add_quota_and_replenishment: which events enqueue a quota) and
the object-count evaluators (test_object_counts). End to end: a ResourceQuota in a running Cluster
gives usage back when a Job's pods finish, and quota admission rejects a pod with upstream's message.
"""

from __future__ import annotations

from typing import Any

import simpy

from kubenotes.apiserver.server import APIServer
from kubenotes.client import SharedInformerFactory
from kubenotes.controllers.reconciler import ControllerContext
from kubenotes.controllers.resourcequota import ResourceQuotaController, calculate_usage, tracked_resources
from kubenotes.sim.cluster import Cluster


class Rig:
    def __init__(self) -> None:
        self.env = simpy.Environment()
        self.server = APIServer(self.env, seed=1)
        self.admin = self.server.client("kubectl")
        informers = SharedInformerFactory(self.server.client("kube-controller-manager"), self.env)
        self.ctrl = ResourceQuotaController(ControllerContext(self.env, self.server, informers,
                                                              lambda comp, sa: self.server.client(comp)))
        informers.start()
        self.env.run(until=1)

    def quota(self, hard: dict, status: dict | None = None, **spec: Any) -> dict:
        q = self.admin.create("resourcequotas", {"metadata": {"name": "quota"}, "spec": {"hard": hard, **spec}},
                              "default")
        if status is not None:
            q["status"] = status
            q = self.admin.update_status("resourcequotas", q, "default")
        return q

    def pod(self, name: str, phase: str = "Running", requests: dict | None = None,
            limits: dict | None = None) -> dict:
        res: dict = {}
        if requests:
            res["requests"] = requests
        if limits:
            res["limits"] = limits
        p = self.admin.create("pods", {"metadata": {"name": name}, "spec": {"containers": [
            {"name": "c", "image": "x", "resources": res}]}}, "default")
        p["status"] = {"phase": phase}
        return self.admin.update_status("pods", p, "default")

    def sync(self) -> tuple[dict, int]:
        self.env.run(until=self.env.now + 1)
        start = len(self.server.audit_log)
        self.ctrl.reconcile("default/quota")
        writes = sum(1 for e in self.server.audit_log[start:] if e.kind == "ResourceQuota")
        return self.server.get("resourcequotas", "default", "quota")["status"], writes


def test_clean_state():
    r = Rig()
    r.quota({"cpu": "3", "memory": "100Gi", "pods": "5"})
    for name in ("pod-running", "pod-running-2"):
        r.pod(name, requests={"cpu": "100m", "memory": "1Gi"}, limits={"cpu": "200m", "memory": "2Gi"})
    r.pod("pod-failed", "Failed", requests={"cpu": "100m", "memory": "1Gi"}, limits={"cpu": "200m", "memory": "2Gi"})
    st, writes = r.sync()
    assert st == {"hard": {"cpu": "3", "memory": "100Gi", "pods": "5"},
                  "used": {"cpu": "200m", "memory": "2Gi", "pods": "2"}}
    assert writes == 1


def test_spec_hard_updated():
    r = Rig()
    r.quota({"cpu": "4"}, status={"hard": {"cpu": "3"}, "used": {"cpu": "0"}})
    st, writes = r.sync()
    assert st == {"hard": {"cpu": "4"}, "used": {"cpu": "0"}} and writes == 1


def test_unchanged_quota_is_not_written():
    r = Rig()
    r.quota({"cpu": "4"}, status={"hard": {"cpu": "4"}, "used": {"cpu": "0"}})
    st, writes = r.sync()
    assert st == {"hard": {"cpu": "4"}, "used": {"cpu": "0"}} and writes == 0


def test_scopes():
    r = Rig()
    r.quota({"pods": "5"}, scopes=["BestEffort"])
    r.pod("best-effort")
    r.pod("burstable", requests={"cpu": "100m"})
    st, _ = r.sync()
    assert st["used"] == {"pods": "1"}
    q = r.admin.get("resourcequotas", "quota", "default")
    q["spec"]["scopes"] = ["NotBestEffort"]
    q["spec"]["hard"] = {"pods": "5", "requests.cpu": "1", "configmaps": "3"}
    r.admin.update("resourcequotas", q, "default")
    st, _ = r.sync()
    # object counts match no scope: a scoped quota counts no configmaps
    assert st["used"] == {"pods": "1", "requests.cpu": "100m", "configmaps": "0"}


def test_object_counts():
    r = Rig()
    r.quota({"configmaps": "10", "count/configmaps": "10", "services": "2", "services.nodeports": "4",
             "count/jobs.batch": "3"})
    r.admin.create("configmaps", {"metadata": {"name": "a"}}, "default")
    r.admin.create("services", {"metadata": {"name": "s"}, "spec": {"type": "NodePort", "ports": [
        {"port": 80}, {"port": 443}]}}, "default")
    r.admin.create("jobs", {"metadata": {"name": "j"}, "spec": {"template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}, "default")
    r.env.run(until=r.env.now + 2)  # the jobs informer starts on the first sync that needs it
    r.ctrl.reconcile("default/quota")
    st, _ = r.sync()
    assert st["used"] == {"configmaps": "1", "count/configmaps": "1", "services": "1", "services.nodeports": "2",
                          "count/jobs.batch": "1"}
    assert [ri.resource for ri in tracked_resources({"count/jobs.batch": "1"})] == ["jobs"]


def test_calculate_usage_fills_zeros():
    q = {"spec": {"hard": {"pods": "3", "limits.memory": "1Gi"}}}
    assert {k: str(v) for k, v in calculate_usage(q, {}).items()} == {}
    from kubenotes.apiserver.resources import resource_for

    got = calculate_usage(q, {resource_for("pods"): []})
    assert {k: str(v) for k, v in got.items()} == {"pods": "0", "limits.memory": "0"}


def test_add_quota_and_replenishment():
    r = Rig()

    def drain() -> None:
        while r.ctrl.queue.queued():
            key = r.ctrl.queue.get().value
            r.ctrl.queue.done(key)

    r.quota({"pods": "5"})
    r.env.run(until=r.env.now + 1)
    assert r.ctrl.queue.queued() == ["default/quota"]
    drain()
    r.pod("p")
    r.env.run(until=r.env.now + 1)
    drain()
    p = r.admin.get("pods", "p", "default")
    p["metadata"]["labels"] = {"x": "y"}
    r.admin.update("pods", p, "default")
    r.env.run(until=r.env.now + 1)
    assert r.ctrl.queue.queued() == []  # an update that cannot change usage is ignored
    # a pod turning terminal gives usage back: the quota is re-synced
    p = r.admin.get("pods", "p", "default")
    p["status"]["phase"] = "Succeeded"
    r.admin.update_status("pods", p, "default")
    r.env.run(until=r.env.now + 1)
    assert r.ctrl.queue.queued() == ["default/quota"]
    drain()
    r.admin.delete("pods", "p", "default")
    r.env.run(until=r.env.now + 1)
    assert r.ctrl.queue.queued() == ["default/quota"]


def test_usage_returns_when_pods_finish_and_admission_rejects():
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
              "status": {"allocatable": alloc, "capacity": alloc}} for i in (1, 2, 3)]
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute", "namespace": "default"},
             "spec": {"hard": {"pods": "2", "requests.cpu": "1"}}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default"},
           "spec": {"completions": 4, "parallelism": 2, "template": {
               "metadata": {"annotations": {"kubenotes.io/run-seconds": "5"}},
               "spec": {"restartPolicy": "Never", "containers": [
                   {"name": "pi", "image": "perl", "resources": {"requests": {"cpu": "400m"}}}]}}}}
    c = Cluster(nodes + [quota], seed=0, controllers=["resourcequota-controller", "job-controller"],
                authorization=False, kubelet="stand-in")
    c.run(until=2)
    assert c.get("resourcequotas", "compute", "default")["status"]["used"] == {"pods": "0", "requests.cpu": "0"}
    c.apply(job)
    c.run(until=4)
    assert c.get("resourcequotas", "compute", "default")["status"]["used"] == {"pods": "2", "requests.cpu": "800m"}
    # a third pod does not fit
    from kubenotes.apiserver.status import ApiError

    try:
        c.client.create("pods", {"metadata": {"name": "extra"}, "spec": {"containers": [
            {"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]}}, "default")
        raise AssertionError("quota admission should have rejected the pod")
    except ApiError as e:
        assert e.code == 403
        assert "exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2" in e.message
    c.run(until=30)
    st = c.get("resourcequotas", "compute", "default")["status"]
    assert st["used"] == {"pods": "0", "requests.cpu": "0"}
    assert c.get("jobs", "pi", "default")["status"]["succeeded"] == 4
