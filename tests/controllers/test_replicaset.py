"""Tests for the ReplicaSet controller and the ReplicationController manager.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/replicaset/replica_set_test.go:
``TestGetPodsToDelete`` (test_get_pods_to_delete, its orderings), ``TestSyncReplicaSetDormancy``
(test_sync_replica_set_dormancy: expectations hold a sync back until the creates are observed, a
failed create does not leave an expectation behind), ``TestSyncReplicaSetCreateFailures``
(test_sync_replica_set_create_failures: slow start makes one attempt, FailedCreate event and
ReplicaFailure condition), ``TestSyncReplicaSetDeletes``/``TestSyncReplicaSetBurstReplicas``
(test_burst_replicas_caps_one_sync), ``TestPodControllerLookup``/``TestPatchPodFails`` style
adoption and release (test_adopts_orphans_and_releases_pods_that_stop_matching), and
replica_set_utils_test.go ``TestCalculateStatus`` (test_calculate_status) and
``TestCalculateStatusConditions``. The syncs in these tests run ``reconcile`` by hand against a
real API server and informers, where upstream uses a fake clientset and FakePodControl; the
end-to-end tests run a :class:`~kubenotes.sim.cluster.Cluster`.
"""

from __future__ import annotations

from typing import Any

import pytest
import simpy

from kubenotes.apiserver.server import APIServer, format_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.client import SharedInformerFactory
from kubenotes.controllers.reconciler import ControllerContext
from kubenotes.controllers.replicaset import REPLICA_FAILURE, ReplicaSetController, calculate_status, get_pods_to_delete
from kubenotes.controllers.replication import ReplicationManager, rolling_update
from kubenotes.sim.cluster import Cluster

QUOTA_ERROR = ApiError({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 403, "reason": "Forbidden",
                        "message": 'pods "rs-x" is forbidden: exceeded quota: compute, requested: pods=1, '
                                   'used: pods=1, limited: pods=1'})


# --------------------------------------------------------------------------- getPodsToDelete


def _pod(name: str, node: str = "", phase: str = "Pending", ready: bool | None = None) -> dict:
    status: dict = {"phase": phase}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False",
                                 "lastTransitionTime": format_timestamp(10)}]
    return {"metadata": {"name": name, "namespace": "default", "uid": name, "creationTimestamp": format_timestamp(0)},
            "spec": {"nodeName": node} if node else {}, "status": status}


UNSCHEDULED_PENDING = _pod("unscheduled-pending")
SCHEDULED_PENDING = _pod("scheduled-pending", "fake-node")
RUNNING_NOT_READY = _pod("running-not-ready", "fake-node", "Running", False)
READY_ON_NODE1 = _pod("ready-node-1", "fake-node-1", "Running", True)
READY_ON_NODE2 = _pod("ready-node-2", "fake-node-2", "Running", True)
RELATED_ON_NODE2 = _pod("related-node-2", "fake-node-2", "Running", True)


@pytest.mark.parametrize("name,pods,related,diff,want", [
    ("len(pods) = 0", [], None, 0, []),
    ("diff = len(pods)", [RUNNING_NOT_READY, READY_ON_NODE1], None, 2, ["running-not-ready", "ready-node-1"]),
    ("diff < len(pods)", [READY_ON_NODE1, RUNNING_NOT_READY], None, 1, ["running-not-ready"]),
    ("scheduled vs unscheduled", [SCHEDULED_PENDING, UNSCHEDULED_PENDING], None, 1, ["unscheduled-pending"]),
    ("ready vs not-ready", [READY_ON_NODE1, RUNNING_NOT_READY], None, 1, ["running-not-ready"]),
    ("pending vs running", [SCHEDULED_PENDING, RUNNING_NOT_READY], None, 1, ["scheduled-pending"]),
    ("colocated with a related pod goes first", [READY_ON_NODE1, READY_ON_NODE2],
     [READY_ON_NODE1, READY_ON_NODE2, RELATED_ON_NODE2], 1, ["ready-node-2"]),
    ("various phases and conditions, diff < len(pods)",
     [READY_ON_NODE1, READY_ON_NODE2, RUNNING_NOT_READY, SCHEDULED_PENDING, UNSCHEDULED_PENDING], None, 3,
     ["unscheduled-pending", "scheduled-pending", "running-not-ready"]),
])
def test_get_pods_to_delete(name, pods, related, diff, want):
    got = get_pods_to_delete(list(pods), list(pods if related is None else related), diff, 100.0)
    assert [p["metadata"]["name"] for p in got] == want, name


# --------------------------------------------------------------------------- calculateStatus


def _rs(replicas: int = 1, min_ready: int = 0, status: dict | None = None) -> dict:
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "rs", "namespace": "default", "generation": 1},
            "spec": {"replicas": replicas, "minReadySeconds": min_ready, "selector": {"matchLabels": {"name": "foo"}},
                     "template": {"metadata": {"labels": {"name": "foo", "type": "production"}},
                                  "spec": {"containers": [{"name": "c", "image": "foo/bar"}]}}}}
    if status:
        rs["status"] = status
    return rs


def _labelled(labels: dict, ready: bool, since: float = 0.0) -> dict:
    return {"metadata": {"labels": labels},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                                           "lastTransitionTime": format_timestamp(since)}]}}


FULL = {"name": "foo", "type": "production"}
PARTIAL = {"name": "foo"}


@pytest.mark.parametrize("name,min_ready,pods,want", [
    ("1 fully labelled pod", 0, [_labelled(FULL, True)], (1, 1, 1, 1)),
    ("1 not fully labelled pod", 0, [_labelled(PARTIAL, True)], (1, 0, 1, 1)),
    ("2 fully labelled pods", 0, [_labelled(FULL, True)] * 2, (2, 2, 2, 2)),
    ("1 fully, 1 not fully labelled", 0, [_labelled(FULL, True), _labelled(PARTIAL, True)], (2, 1, 2, 2)),
    ("1 non-ready pod", 0, [_labelled(FULL, False)], (1, 1, 0, 0)),
    ("1 ready but not yet available pod (minReadySeconds)", 3600, [_labelled(FULL, True, 50.0)], (1, 1, 1, 0)),
])
def test_calculate_status(name, min_ready, pods, want):
    st = calculate_status(_rs(min_ready=min_ready), pods, None, 100.0, format_timestamp(100))
    assert (st["replicas"], st["fullyLabeledReplicas"], st["readyReplicas"], st["availableReplicas"]) == want, name


def test_calculate_status_conditions():
    # fewer pods than wanted and an error: FailedCreate; more pods: FailedDelete; a clean sync removes it
    st = calculate_status(_rs(replicas=2), [_labelled(FULL, True)], QUOTA_ERROR, 0.0, "t")
    cond = st["conditions"][0]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
        REPLICA_FAILURE, "True", "FailedCreate", str(QUOTA_ERROR))
    st = calculate_status(_rs(replicas=0), [_labelled(FULL, True)], QUOTA_ERROR, 0.0, "t")
    assert st["conditions"][0]["reason"] == "FailedDelete"
    failing = _rs(replicas=2, status={"conditions": [cond]})
    assert "conditions" not in calculate_status(failing, [_labelled(FULL, True)] * 2, None, 0.0, "t")
    # an existing failure condition is kept as it is while errors continue
    again = calculate_status(failing, [], ApiError({"code": 500, "message": "other"}), 0.0, "t2")
    assert again["conditions"] == [cond]


# --------------------------------------------------------------------------- syncs by hand


class FlakyClient:
    """A client whose pod creates can be made to fail (the role of upstream's FakePodControl.Err)."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.create_error: ApiError | None = None
        self.pod_create_attempts = 0

    def create(self, resource: str, obj: dict, namespace: str | None = None, **kw: Any) -> dict:
        if resource == "pods":
            self.pod_create_attempts += 1
            if self.create_error is not None:
                raise self.create_error
        return self.inner.create(resource, obj, namespace, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _harness(cls: type = ReplicaSetController):
    env = simpy.Environment()
    server = APIServer(env, seed=1)
    admin = server.client("kubectl")
    informers = SharedInformerFactory(server.client("kube-controller-manager"), env)
    holder: dict = {}

    def make_client(component: str, sa: str) -> Any:
        holder["c"] = FlakyClient(server.client(component))
        return holder["c"]

    ctrl = cls(ControllerContext(env, server, informers, make_client))
    informers.start()
    env.run(until=1)
    return env, server, admin, ctrl, holder["c"]


def _events(server: APIServer, reason: str) -> list[dict]:
    return [e for e in server.list("events", "default") if e["reason"] == reason]


def _make_pod(admin: Any, name: str, labels: dict, owner: dict | None = None) -> dict:
    md: dict = {"name": name, "labels": labels}
    if owner is not None:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner["metadata"]["name"],
                                  "uid": owner["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
    return admin.create("pods", {"metadata": md, "spec": {"containers": [{"name": "c", "image": "foo/bar"}]}},
                        "default")


def test_sync_replica_set_dormancy():
    env, server, admin, ctrl, client = _harness()
    rs = admin.create("replicasets", _rs(replicas=2), "default")
    _make_pod(admin, "existing", FULL, rs)
    env.run(until=2)
    key = "default/rs"
    ctrl.reconcile(key)
    assert client.pod_create_attempts == 1
    # the informer has not delivered the new pod: expectations hold the next sync back
    ctrl.reconcile(key)
    assert client.pod_create_attempts == 1
    # lower the expectation by hand: the sync acts on the stale cache; make that create fail
    ctrl.expectations.creation_observed(key)
    client.create_error = QUOTA_ERROR
    with pytest.raises(ApiError):
        ctrl.reconcile(key)
    assert client.pod_create_attempts == 2
    # the failed create left no expectation behind, so the next sync creates at once
    client.create_error = None
    ctrl.reconcile(key)
    assert client.pod_create_attempts == 3


def test_sync_replica_set_create_failures():
    env, server, admin, ctrl, client = _harness()
    admin.create("replicasets", _rs(replicas=10), "default")
    env.run(until=2)
    client.create_error = QUOTA_ERROR
    with pytest.raises(ApiError):
        ctrl.reconcile("default/rs")
    assert client.pod_create_attempts == 1  # slow start: the first batch of 1 failed, nothing else tried
    assert [e["message"] for e in _events(server, "FailedCreate")] == [f"Error creating: {QUOTA_ERROR}"]
    assert _events(server, "FailedCreate")[0]["type"] == "Warning"
    cond = server.get("replicasets", "default", "rs")["status"]["conditions"][0]
    assert (cond["type"], cond["reason"], cond["message"]) == ("ReplicaFailure", "FailedCreate", str(QUOTA_ERROR))
    assert ctrl.expectations.satisfied_expectations("default/rs")


def test_burst_replicas_caps_one_sync():
    env, server, admin, ctrl, client = _harness()
    ctrl.burst_replicas = 5
    admin.create("replicasets", _rs(replicas=8), "default")
    env.run(until=2)
    ctrl.reconcile("default/rs")
    assert client.pod_create_attempts == 5
    env.run(until=3)
    ctrl.reconcile("default/rs")
    assert client.pod_create_attempts == 8
    created = _events(server, "SuccessfulCreate")
    assert len(created) == 8 and created[0]["message"].startswith("Created pod: rs-")
    pod = server.list("pods", "default")[0]
    ref = pod["metadata"]["ownerReferences"][0]
    assert (pod["metadata"]["generateName"], ref["kind"], ref["controller"], ref["blockOwnerDeletion"]) == (
        "rs-", "ReplicaSet", True, True)
    assert pod["metadata"]["labels"] == FULL


def test_scale_down_deletes_least_established_pods_and_records_events():
    env, server, admin, ctrl, client = _harness()
    rs = admin.create("replicasets", _rs(replicas=3), "default")
    for n in ("a", "b", "c"):
        _make_pod(admin, n, FULL, rs)
    for n in ("b", "c"):  # b and c are bound and running; a stays unscheduled
        admin.bind("default", n, "node-1")
        p = admin.get("pods", n, "default")
        p["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        admin.update_status("pods", p, "default")
    admin.patch("replicasets", "rs", {"spec": {"replicas": 2}}, "default")
    env.run(until=2)
    ctrl.reconcile("default/rs")
    gone = [p["metadata"]["name"] for p in server.list("pods", "default") if p["metadata"].get("deletionTimestamp")]
    remaining = [p["metadata"]["name"] for p in server.list("pods", "default")]
    assert "a" not in remaining and not gone
    assert [e["message"] for e in _events(server, "SuccessfulDelete")] == ["Deleted pod: a"]


def test_adopts_orphans_and_releases_pods_that_stop_matching():
    env, server, admin, ctrl, client = _harness()
    rs = admin.create("replicasets", _rs(replicas=1), "default")
    _make_pod(admin, "orphan", FULL)
    env.run(until=2)
    ctrl.reconcile("default/rs")
    orphan = server.get("pods", "default", "orphan")
    assert orphan["metadata"]["ownerReferences"][0]["uid"] == rs["metadata"]["uid"]
    assert client.pod_create_attempts == 0  # adopted instead of creating
    admin.patch("pods", "orphan", {"metadata": {"labels": {"name": "bar"}}}, "default")
    env.run(until=3)
    ctrl.reconcile("default/rs")
    assert not server.get("pods", "default", "orphan")["metadata"].get("ownerReferences")
    assert client.pod_create_attempts == 1  # a replacement for the released pod


# --------------------------------------------------------------------------- in a cluster

def _node(name: str) -> dict:
    res = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": res, "capacity": res}}


NODES = [_node("n1"), _node("n2"), _node("n3")]


def test_replica_set_reaches_replicas_and_respects_min_ready_seconds():
    c = Cluster([*NODES, _rs(replicas=3, min_ready=5)], seed=0, controllers=["replicaset-controller"],
                authorization=False, kubelet="stand-in")
    c.run(until=5)  # pods ready at 2 s, not yet available
    st = c.get("replicasets", "rs", "default")["status"]
    assert (st["replicas"], st["readyReplicas"], st["availableReplicas"]) == (3, 3, 0)
    c.run(until=10)
    st = c.get("replicasets", "rs", "default")["status"]
    assert (st["availableReplicas"], st["observedGeneration"]) == (3, 1)
    c.client.scale("replicasets", "rs", 1, "default")
    c.run(until=20)
    assert len(c.list("pods", "default")) == 1
    assert c.get("replicasets", "rs", "default")["status"]["replicas"] == 1


def _rc(name: str, version: str, replicas: int) -> dict:
    labels = {"app": "web", "version": version}
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": labels,
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": f"nginx:{version}"}]}}}}


def test_replication_manager_runs_the_replica_set_logic_over_rcs():
    c = Cluster([*NODES, _rc("web-v1", "v1", 3)], seed=0, controllers=["replicationcontroller-controller"],
                authorization=False, kubelet="stand-in")
    assert isinstance(c.controllers["replicationcontroller-controller"], ReplicationManager)
    c.run(until=5)
    pods = c.list("pods", "default")
    assert len(pods) == 3
    ref = pods[0]["metadata"]["ownerReferences"][0]
    assert (ref["apiVersion"], ref["kind"], ref["name"]) == ("v1", "ReplicationController", "web-v1")
    created = [e for e in c.list("events", "default") if e["reason"] == "SuccessfulCreate"]
    assert created and created[0]["source"]["component"] == "replication-controller"
    assert c.get("replicationcontrollers", "web-v1", "default")["status"]["readyReplicas"] == 3


def test_kubectl_rolling_update_keeps_desired_pods_ready():
    c = Cluster([*NODES, _rc("web-v1", "v1", 3)], seed=0, controllers=["replicationcontroller-controller"],
                authorization=False, kubelet="stand-in")
    c.run(until=5)
    worst: dict = {"ready": 99, "total": 0}

    def check(_entry: Any) -> None:
        pods = [p for p in c.server.list("pods", "default") if not p["metadata"].get("deletionTimestamp")]
        ready = sum(1 for p in pods for cd in (p.get("status") or {}).get("conditions") or ()
                    if cd["type"] == "Ready" and cd["status"] == "True")
        worst["ready"] = min(worst["ready"], ready)
        worst["total"] = max(worst["total"], len(pods))

    c.server.on_commit.append(check)
    lines: list[str] = []
    proc = c.env.process(rolling_update(c.client, c.env, "default", "web-v1", _rc("web-v2", "v2", 3),
                                        update_period_seconds=10, out=lines))
    c.run(until=120)
    assert proc.triggered and proc.value is lines
    assert lines[0] == "Created web-v2"
    assert lines[1] == ("Scaling up web-v2 from 0 to 3, scaling down web-v1 from 3 to 0 "
                        "(keep 3 pods available, don't exceed 4 pods)")
    assert lines[-1] == 'replicationcontroller/web-v1 rolling updated to "web-v2"'
    assert c.get("replicationcontrollers", "web-v1", "default") is None
    assert sorted(p["metadata"]["labels"]["version"] for p in c.list("pods", "default")) == ["v2"] * 3
    assert worst == {"ready": 3, "total": 4}
