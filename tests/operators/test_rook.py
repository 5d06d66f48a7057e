"""Rook's pattern on the virtual clock: mons on distinct nodes with a quorum, OSDs on device nodes, CSI, status,
and the mon health check's failover after a node dies, at Rook's intervals (rook/rook pkg/operator/ceph/cluster/mon)."""

from __future__ import annotations

import pytest

from kubenotes.apiserver.status import ApiError
from kubenotes.data import sample
from kubenotes.operators import OPERATORS
from kubenotes.operators.rook import (DEVICES_ANNOTATION, HEALTH_CHECK_INTERVAL_SECONDS, MON_OUT_TIMEOUT_SECONDS,
                                      RBD_DRIVER_NAME, REASON_MON_OUT_OF_QUORUM, STORAGE_CLASS_NAME, RookCephOperator,
                                      mon_name)
from kubenotes.sim import Cluster
from kubenotes.sim.cli import build

NS = "rook-ceph"


def _mons(c) -> dict[str, str]:
    """mon -> node its Deployment is pinned to (Deployments being deleted left out)."""
    return {d["metadata"]["labels"]["mon"]: d["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/hostname"]
            for d in c.list("deployments", NS)
            if d["metadata"]["labels"].get("app") == "rook-ceph-mon" and not d["metadata"].get("deletionTimestamp")}


def _lines(op, text: str) -> list[float]:
    return [t for t, line in op.log if text in line]


@pytest.fixture(scope="module")
def scenario():
    """data/operators/rook-ceph.yaml run to 1450 s, the quorum sampled every 10 s."""
    c = build([sample("operators", "rook-ceph.yaml")])
    op = c.controllers["rook-ceph-operator"]
    samples = {}
    snapshots = {}
    for t in (*range(10, 1441, 10), 1450):
        c.run(until=t)
        samples[t] = op.quorum(NS, "rook-ceph")
        if t in (30, 200):
            snapshots[t] = {"mons": _mons(c), "cc": c.get("cephclusters", "rook-ceph", NS)}
    return c, op, samples, snapshots


def test_the_scenario_enables_the_operator():
    assert OPERATORS["rook-ceph-operator"] is RookCephOperator


def test_mons_on_distinct_nodes_with_quorum(scenario):
    c, op, samples, snap = scenario
    mons = snap[30]["mons"]
    assert mons == {"a": "worker-1", "b": "worker-2", "c": "worker-3"}
    assert len(set(mons.values())) == 3
    assert samples[30] == ["a", "b", "c"]
    for m in "bc":
        svc = c.get("services", f"rook-ceph-mon-{m}", NS)
        assert [p["port"] for p in svc["spec"]["ports"]] == [6789, 3300]


def test_osds_only_on_nodes_with_devices(scenario):
    c, *_ = scenario
    osds = sorted((d["metadata"]["labels"]["topology-location-host"], d["metadata"]["labels"]["device"],
                   d["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/hostname"])
                  for d in c.list("deployments", NS) if d["metadata"]["labels"].get("app") == "rook-ceph-osd")
    assert osds == [("worker-1", "sdb", "worker-1"), ("worker-2", "sdb", "worker-2"),
                    ("worker-4", "sdb", "worker-4"), ("worker-4", "sdc", "worker-4")]
    assert DEVICES_ANNOTATION not in (c.get("nodes", "worker-3")["metadata"].get("annotations") or {})


def test_csi_driver_and_storage_class(scenario):
    c, *_ = scenario
    assert c.get("csidrivers", RBD_DRIVER_NAME)["spec"]["attachRequired"] is True
    sc = c.get("storageclasses", STORAGE_CLASS_NAME)
    assert sc["provisioner"] == RBD_DRIVER_NAME and sc["parameters"]["clusterID"] == NS


def test_status_ready_then_mon_down(scenario):
    _, _, _, snap = scenario
    st = snap[30]["cc"]["status"]
    assert (st["phase"], st["state"], st["ceph"]) == ("Ready", "Created", {"health": "HEALTH_OK"})
    conds = {c["type"]: (c["status"], c["reason"], c["message"]) for c in st["conditions"]}
    assert conds == {"Progressing": ("False", "ClusterProgressing", "Configuring the Ceph cluster"),
                     "Ready": ("True", "ClusterCreated", "Cluster created successfully")}
    down = snap[200]["cc"]["status"]["ceph"]
    assert down["health"] == "HEALTH_WARN"
    assert down["details"]["MON_DOWN"] == {"message": "1/3 mons down, quorum b,c", "severity": "HEALTH_WARN"}


def test_failover_timing_on_the_virtual_clock(scenario):
    _, op, _, _ = scenario
    waiting = _lines(op, 'mon "a" not found in quorum, waiting for timeout')
    checks = sorted(set(waiting) | set(_lines(op, 'mon "a" NOT found in quorum')))
    # checks every 45 s from the first one 45 s after the cluster was ready (t=2): 47, 92, 137 ...
    assert [b - a for a, b in zip(checks, checks[1:])] == [HEALTH_CHECK_INTERVAL_SECONDS] * (len(checks) - 1)
    first_out = waiting[0]
    assert first_out == 137.0  # node NotReady at 110 (grace 50 s after 60), its pods NotReady, next check at 137
    # past the timeout the mon pod is Pending (evicted at 410, pinned to the dead node): one more timeout
    retry = _lines(op, "Mon pod is not scheduled. Retrying with a timeout of 600.00 seconds")
    assert retry == [first_out + 14 * 45]  # first check with now - 137 > 600
    failover = _lines(op, 'mon "a" NOT found in quorum and timeout exceeded, mon will be failed over')
    assert failover == [retry[0] + 45 + 14 * 45] == [1442.0]
    assert MON_OUT_TIMEOUT_SECONDS == 600.0
    assert _lines(op, 'starting new mon "d" on node "worker-4"') == failover
    removed = _lines(op, "removed monitor a")
    assert len(removed) == 1 and failover[0] < removed[0] <= failover[0] + 5


def test_quorum_kept_and_restored(scenario):
    c, op, samples, _ = scenario
    assert all(len(q) >= 2 for t, q in samples.items() if t >= 10)  # a majority of 3 at every sample
    assert samples[1450] == ["b", "c", "d"]
    assert _mons(c) == {"b": "worker-2", "c": "worker-3", "d": "worker-4"}
    assert c.get("services", "rook-ceph-mon-a", NS) is None
    cm = c.get("configmaps", "rook-ceph-mon-endpoints", NS)["data"]
    assert [e.split("=")[0] for e in cm["data"].split(",")] == ["b", "c", "d"] and cm["maxMonId"] == "3"
    st = c.get("cephclusters", "rook-ceph", NS)["status"]["ceph"]
    assert "MON_DOWN" not in st.get("details", {})
    reasons = [e["reason"] for e in c.list("events", NS) if e["involvedObject"]["kind"] == "CephCluster"]
    assert {"ReconcileSucceeded", REASON_MON_OUT_OF_QUORUM, "MonFailover", "MonRemoved"} <= set(reasons)


NODES = "".join(f"""
---
apiVersion: v1
kind: Node
metadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}}}, annotations: {{kubenotes.io/ceph-devices: sdb}}}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}, capacity: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
""" for i in (1, 2, 3, 4))


def _small(mon_health: dict, **spec):
    c = Cluster.from_manifests(NODES, kubelet="stand-in", options={"node-monitor-grace-period": 50},
                               extra_controllers={"rook": RookCephOperator})
    c.apply({"apiVersion": "ceph.rook.io/v1", "kind": "CephCluster", "metadata": {"name": "ceph", "namespace": NS},
             "spec": {"cephVersion": {"image": "quay.io/ceph/ceph:v19.2.3"}, "dataDirHostPath": "/var/lib/rook",
                      "storage": {"useAllNodes": True, "useAllDevices": True},
                      "healthCheck": {"daemonHealth": {"mon": mon_health}}, **spec}})
    return c, c.controllers["rook"]


def test_interval_and_timeout_from_the_cluster_resource():
    c, op = _small({"interval": "10s", "timeout": "30s"})
    c.run(until=20)
    assert _mons(c) == {"a": "n1", "b": "n2", "c": "n3"}
    c.node_down("n1")
    c.run(until=140)
    waiting = _lines(op, 'mon "a" not found in quorum, waiting for timeout')
    assert [b - a for a, b in zip(waiting, waiting[1:])] == [10.0] * (len(waiting) - 1)
    # the old pod is still bound to n1 (no eviction before 300 s): no extra timeout
    failover = _lines(op, "mon will be failed over")
    assert failover == [waiting[0] + 40]  # first check with now - since > 30
    c.run(until=145)
    assert _mons(c) == {"b": "n2", "c": "n3", "d": "n4"}


def test_timeout_zero_never_fails_over():
    c, op = _small({"interval": "10s", "timeout": "0"})
    c.run(until=20)
    c.node_down("n1")
    c.run(until=150)
    assert _lines(op, "health timeout is 0, mon will never fail over")
    assert not _lines(op, "Failing over")
    assert _mons(c) == {"a": "n1", "b": "n2", "c": "n3"}


def test_mon_count_and_placement():
    c, _ = _small({}, mon={"count": 5})
    c.run(until=10)
    assert _mons(c) == {"a": "n1", "b": "n2", "c": "n3", "d": "n4"}  # one per node: no fifth node
    st = c.get("cephclusters", "ceph", NS)["status"]
    assert st["phase"] == "Progressing"


def test_schema_refuses_a_bad_mon_count():
    c, _ = _small({})
    with pytest.raises(ApiError) as e:
        c.client.create("cephclusters", {"apiVersion": "ceph.rook.io/v1", "kind": "CephCluster",
                                         "metadata": {"name": "other", "namespace": NS},
                                         "spec": {"mon": {"count": 12}}}, NS)
    assert e.value.code == 422 and "spec.mon.count" in str(e.value)


def test_mon_names():
    assert [mon_name(i) for i in (0, 3, 26)] == ["a", "d", "aa"]
