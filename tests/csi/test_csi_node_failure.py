"""A ReadWriteOnce CSI volume through a node failure: Multi-Attach, then the out-of-service taint frees it.

The node's kubelet stops; after the grace period and the pods' unreachable toleration (10 s here) the
taint-eviction controller deletes the pod, which stays Terminating on the dead node, so its volume stays
attached there: the Deployment's replacement on the other node gets the attach/detach controller's
Multi-Attach Event naming the old pod, and waits in WaitForAttach. The administrator's
``node.kubernetes.io/out-of-service`` taint lets the pod GC delete the Terminating pod and the attach/detach
controller detach at once; the volume attaches to the new node and the replacement runs.
"""

from __future__ import annotations

from kubenotes.sim.cluster import Cluster

DRIVER = "hostpath.csi.k8s.io"
NS = "default"
CONTROLLERS = ["deployment-controller", "replicaset-controller", "node-lifecycle-controller",
               "taint-eviction-controller", "pod-garbage-collector-controller", "persistentvolume-binder-controller"]
#: Evicted 10 s after the node is tainted unreachable (instead of DefaultTolerationSeconds' 300 s): a faster test.
TOLERATIONS = [{"key": f"node.kubernetes.io/{k}", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}
               for k in ("unreachable", "not-ready")]
MANAGED = {"volumes.kubernetes.io/controller-managed-attach-detach": "true"}


def _node(name):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "annotations": MANAGED,
                                                             "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _objects():
    affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": {"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}}]}}
    return [
        _node("n1"), _node("n2"),
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": DRIVER},
         "spec": {"attachRequired": True}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-db"},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
                  "csi": {"driver": DRIVER, "volumeHandle": "vol-db"}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "db-data", "namespace": NS},
         "spec": {"storageClassName": "", "volumeName": "pv-db", "accessModes": ["ReadWriteOnce"],
                  "resources": {"requests": {"storage": "1Gi"}}}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "db", "namespace": NS},
         "spec": {"replicas": 1, "strategy": {"type": "Recreate"}, "selector": {"matchLabels": {"app": "db"}},
                  "template": {"metadata": {"labels": {"app": "db"}},
                               "spec": {"affinity": affinity, "tolerations": TOLERATIONS,
                                        "containers": [{"name": "db", "image": "nginx:1.27",
                                                        "volumeMounts": [{"name": "d", "mountPath": "/data"}]}],
                                        "volumes": [{"name": "d",
                                                     "persistentVolumeClaim": {"claimName": "db-data"}}]}}}},
    ]


def _pods(c):
    return {p["metadata"]["name"]: (p["spec"].get("nodeName"), p["status"].get("phase"),
                                    bool(p["metadata"].get("deletionTimestamp"))) for p in c.list("pods", NS)}


def _attached_to(c):
    return sorted((va["spec"]["nodeName"], bool((va.get("status") or {}).get("attached")))
                  for va in c.list("volumeattachments"))


def test_node_failure_multi_attach_then_out_of_service_taint():
    c = Cluster(_objects(), controllers=CONTROLLERS)
    c.run(until=40)  # mounted once the kubelet reported the volume in use (its 10 s status update) and verified it
    (old,) = [n for n, (node, phase, _) in _pods(c).items() if node == "n1" and phase == "Running"]
    assert _attached_to(c) == [("n1", True)]
    c.node_down("n1")
    c.run(until=140)  # node grace + 10 s toleration: evicted, Terminating on the dead node; a replacement on n2
    pods = _pods(c)
    assert pods[old] == ("n1", "Running", True)
    (new,) = [n for n in pods if n != old]
    assert pods[new][:2] == ("n2", "Pending")
    assert _attached_to(c) == [("n1", True)]
    multi = [e["message"] for e in c.list("events", NS) if e["reason"] == "FailedAttachVolume"]
    assert multi == [f'Multi-Attach error for volume "pv-db" Volume is already used by pod(s) {old}']
    node = c.client.get("nodes", "n1")
    node["spec"]["taints"] = node["spec"].get("taints", []) + [
        {"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"}]
    c.client.update("nodes", node)
    c.run(until=200)
    assert old not in _pods(c)
    assert _attached_to(c) == [("n2", True)]
    assert _pods(c)[new][:2] == ("n2", "Running")
    ops = [(op, node, detail) for _, op, _, node, detail in c.controllers["attachdetach-controller"].operations]
    assert ("DetachVolume", "n1", "force: node has out-of-service taint") in ops


def test_node_failure_force_detach_after_max_wait_for_unmount():
    """The dead node still reports the volume in use: the detach waits maxWaitForUnmountDuration (6 min).

    The evicted pod is force-deleted (``kubectl delete pod --force --grace-period=0``) while its node is down;
    the Node's ``status.volumesInUse`` (last reported by the kubelet before it died) still lists the volume,
    so the attach/detach controller does not detach at once: the node is unhealthy, and after 360 s the
    volume is force-detached; then it attaches to the other node, whose kubelet mounts it and starts the
    replacement.
    """
    c = Cluster(_objects(), controllers=CONTROLLERS)
    c.run(until=40)
    (old,) = [n for n, (node, phase, _) in _pods(c).items() if node == "n1" and phase == "Running"]
    unique = f"kubernetes.io/csi/{DRIVER}^vol-db"
    assert c.get("nodes", "n1")["status"]["volumesInUse"] == [unique]
    assert c.get("nodes", "n1")["status"]["volumesAttached"] == [{"name": unique, "devicePath": ""}]
    c.node_down("n1")
    c.run(until=140)
    (new,) = [n for n in _pods(c) if n != old]
    assert _pods(c)[new][:2] == ("n2", "Pending")
    c.client.delete("pods", old, NS, grace_period_seconds=0)  # force delete: the pod object is gone at once
    deleted_at = c.env.now
    c.run(until=deleted_at + 355)
    assert old not in _pods(c)
    assert _attached_to(c) == [("n1", True)]  # mounted by the (dead) node: waiting
    assert c.get("nodes", "n1")["status"]["volumesInUse"] == [unique]
    c.run(until=deleted_at + 365)
    ops = [(t, op, node, detail) for t, op, _, node, detail in c.controllers["attachdetach-controller"].operations]
    (detach,) = [o for o in ops if o[1] == "DetachVolume"]
    assert detach[2:] == ("n1", "force: maxWaitForUnmountDuration expired")
    assert deleted_at + 360 < detach[0] <= deleted_at + 360.2  # the reconciler's first 100 ms pass after 6 min
    assert "volumesAttached" not in c.get("nodes", "n1")["status"]  # removed before the VolumeAttachment went
    c.run(until=deleted_at + 420)
    assert _attached_to(c) == [("n2", True)]
    assert _pods(c)[new][:2] == ("n2", "Pending")  # its kubelet's verify retries have backed off to 2m2s
    c.run(until=deleted_at + 480)
    assert _pods(c)[new][:2] == ("n2", "Running")
    calls = [(x["method"], x["node"]) for x in c.csi[DRIVER].trace
             if x["method"] in ("ControllerUnpublishVolume", "NodeStageVolume", "NodePublishVolume")]
    assert calls == [("NodeStageVolume", "n1"), ("NodePublishVolume", "n1"), ("ControllerUnpublishVolume", ""),
                     ("NodeStageVolume", "n2"), ("NodePublishVolume", "n2")]
