"""The external-provisioner's capacity controller: CSIStorageCapacity per topology segment and class.

After kubernetes-csi/external-provisioner@v5.3 pkg/capacity/capacity_test.go (``TestCapacityController``: one object
per segment and class, labels ``csi.storage.k8s.io/drivername`` / ``managed-by``, updates only on change, obsolete
and duplicate objects deleted, foreign objects kept, Immediate classes skipped) and data/storage/storage-capacity.yaml.
"""

from __future__ import annotations

from kubenotes.controllers.volume.capacity import (
    CAPACITY_NAMESPACE,
    DRIVER_NAME_LABEL,
    MANAGED_BY,
    MANAGED_BY_LABEL,
)
from kubenotes.data import sample
from kubenotes.sim.cli import run
from kubenotes.sim.cluster import Cluster

DRIVER = "hostpath.csi.k8s.io"
TOPO = "topology.hostpath.csi/node"


def _sc(name, mode="WaitForFirstConsumer", provisioner=DRIVER, **extra):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
            "provisioner": provisioner, "volumeBindingMode": mode, **extra}


def _cluster(storage_capacity=True, extra=()):
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}} for n in ("n1", "n2")]
    drv = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
           "metadata": {"name": DRIVER, "annotations": {"kubenotes.io/hostpath-capacity": "10Gi"}},
           "spec": {"storageCapacity": storage_capacity}}
    return Cluster([*nodes, drv, _sc("fast", parameters={"kind": "fast"}), _sc("slow"), _sc("now", "Immediate"),
                    _sc("other", provisioner="other.csi.example.com"), *extra],
                   controllers=[], scheduler=False, kubelet="stand-in")


def _objects(c):
    return sorted((x["storageClassName"], x["nodeTopology"]["matchLabels"][TOPO], x["capacity"],
                   x.get("maximumVolumeSize")) for x in c.list("csistoragecapacities", CAPACITY_NAMESPACE)
                  if x.get("metadata", {}).get("labels"))


def test_one_object_per_segment_and_class_waiting_for_its_consumer():
    c = _cluster()
    c.run(until=1)
    assert _objects(c) == [("fast", n, "10Gi", "10Gi") for n in ("n1", "n2")] + [
        ("slow", n, "10Gi", "10Gi") for n in ("n1", "n2")]  # not the Immediate class, not another driver's
    obj = c.list("csistoragecapacities", CAPACITY_NAMESPACE)[0]
    assert obj["metadata"]["name"].startswith("csisc-")
    assert obj["metadata"]["labels"] == {DRIVER_NAME_LABEL: DRIVER, MANAGED_BY_LABEL: MANAGED_BY}
    calls = [t["request"] for t in c.csi[DRIVER].trace if t["method"] == "GetCapacity"]
    assert {"parameters": {"kind": "fast"}, "volume_capabilities": [{"mount": {}, "access_mode": {"mode": "UNKNOWN"}}],
            "accessible_topology": {"segments": {TOPO: "n1"}}} in calls
    writes = [a.verb for a in c.audit_log if a.kind == "CSIStorageCapacity"]
    assert writes == ["create"] * 4  # later passes found nothing changed


def test_poll_updates_changed_capacity_and_deletes_obsolete_and_duplicate_objects_only():
    hand_made = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                 "metadata": {"name": "by-hand", "namespace": CAPACITY_NAMESPACE}, "storageClassName": "fast",
                 "nodeTopology": {"matchLabels": {TOPO: "n1"}}, "capacity": "1Gi"}
    c = _cluster(extra=[hand_made])
    c.run(until=1)
    dup = {**hand_made, "metadata": {"name": "dup", "namespace": CAPACITY_NAMESPACE,
                                     "labels": {DRIVER_NAME_LABEL: DRIVER, MANAGED_BY_LABEL: MANAGED_BY}}}
    c.client.create("csistoragecapacities", dup, CAPACITY_NAMESPACE)
    c.client.delete("storageclasses", "slow")
    c.run(until=2)
    assert c.get("csistoragecapacities", "dup", CAPACITY_NAMESPACE) is None
    assert _objects(c) == [("fast", n, "10Gi", "10Gi") for n in ("n1", "n2")]
    c.csi[DRIVER].capacity_bytes = 20 * 2**30  # the storage grew, nothing else changed: seen at the next poll
    c.run(until=59)
    assert _objects(c) == [("fast", n, "10Gi", "10Gi") for n in ("n1", "n2")]
    c.run(until=62)
    assert _objects(c) == [("fast", n, "20Gi", "20Gi") for n in ("n1", "n2")]
    assert c.get("csistoragecapacities", "by-hand", CAPACITY_NAMESPACE)["capacity"] == "1Gi"  # not ours


def test_no_capacity_controller_without_storage_capacity():
    c = _cluster(storage_capacity=False)
    c.run(until=1)
    assert f"csi-capacity/{DRIVER}" not in c.controllers and c.list("csistoragecapacities") == []


def test_storage_capacity_scenario_filters_nodes_without_room():
    c = run([sample("storage", "storage-capacity.yaml")], until=60)
    pods = {p["metadata"]["name"]: p for p in c.list("pods", "default")}
    assert pods["app-a"]["spec"]["nodeName"] == "node-1"
    assert pods["app-b"]["spec"]["nodeName"] == "node-2"  # prefers node-1, which has 5Gi left for 8Gi
    assert "nodeName" not in pods["app-c"]["spec"]
    (cond,) = [x for x in pods["app-c"]["status"]["conditions"] if x["type"] == "PodScheduled"]
    assert cond["message"].startswith("0/2 nodes are available: 2 node(s) did not have enough free storage.")
    caps = sorted((x["nodeTopology"]["matchLabels"][TOPO], x["capacity"]) for x in c.list("csistoragecapacities"))
    assert caps == [("node-1", "5Gi"), ("node-2", "2Gi")]


def test_schedule_reads_csi_storage_capacities(tmp_path, capsys):
    """``schedule`` accepts CSIStorageCapacity objects: only the node with room is feasible."""
    import yaml

    from kubenotes.cli import main

    objs = [{"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "csi.example.com"},
             "spec": {"storageCapacity": True}},
            _sc("csi-sc", provisioner="csi.example.com"),
            {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
             "metadata": {"name": "cap-1", "namespace": "kube-system"}, "storageClassName": "csi-sc",
             "capacity": "100Gi", "nodeTopology": {"matchLabels": {"kubernetes.io/hostname": "worker-a-1"}}},
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
             "spec": {"storageClassName": "csi-sc", "accessModes": ["ReadWriteOnce"],
                      "resources": {"requests": {"storage": "50Gi"}}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
             "spec": {"containers": [{"name": "c", "image": "nginx"}],
                      "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}]
    f = tmp_path / "capacity.yaml"
    f.write_text(yaml.safe_dump_all(objs))
    assert main(["schedule", str(sample("cluster")), str(f)]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[:3] == ["default", "p", "worker-a-1"]
