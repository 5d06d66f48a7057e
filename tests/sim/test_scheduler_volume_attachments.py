"""The running kube-scheduler's VolumeAttachment informer feeds NodeVolumeLimits (kubernetes#127757).

One node whose CSINode allows one volume of driver ``csi.example.com``; two pre-bound CSI volumes. A
VolumeAttachment of the first volume created during the run (a volume still attached after its pod is
gone) takes the node's only slot, so a pod using the second volume is refused with
``node(s) exceed max volume count``; when the attachment is deleted the pod is tried again and scheduled.
"""

from __future__ import annotations

from kubenotes.apiserver.bootstrap_policy import bootstrap_cluster_roles, policy_rule
from kubenotes.scheduler.plugins.nodevolumelimits import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED
from kubenotes.sim.cluster import Cluster

DRIVER = "csi.example.com"
NODE = "node-1"


def _manifests() -> list[dict]:
    objs: list[dict] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": NODE},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                    "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": NODE},
         "spec": {"drivers": [{"name": DRIVER, "nodeID": NODE, "allocatable": {"count": 1}}]}},
    ]
    for v in ("a", "b"):
        objs.append({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"pv-{v}"},
                     "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                              "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                              "claimRef": {"namespace": "default", "name": f"claim-{v}"},
                              "csi": {"driver": DRIVER, "volumeHandle": f"vol-{v}"}}})
        objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                     "metadata": {"name": f"claim-{v}", "namespace": "default"},
                     "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "", "volumeName": f"pv-{v}",
                              "resources": {"requests": {"storage": "1Gi"}}}})
    return objs


def _pod() -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "uses-b", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "claim-b"}}]}}


def _attachment() -> dict:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "csi-va-a"},
            "spec": {"attacher": DRIVER, "nodeName": NODE, "source": {"persistentVolumeName": "pv-a"}}}


def test_a_volume_attachment_created_in_the_run_changes_node_volume_limits_verdict():
    c = Cluster(_manifests(), kubelet="stand-in")
    c.run(until=16)  # the PV controller binds the pre-bound pairs on its first resync (15 s)
    assert {x["metadata"]["name"]: x["status"]["phase"] for x in c.list("persistentvolumeclaims", "default")} == {
        "claim-a": "Bound", "claim-b": "Bound"}
    c.client.create("volumeattachments", _attachment())
    c.run(until=c.env.now + 2)
    c.client.create("pods", _pod(), "default")
    c.run(until=c.env.now + 5)
    pod = c.get("pods", "uses-b", "default")
    assert not pod["spec"].get("nodeName")
    cond = next(x for x in pod["status"]["conditions"] if x["type"] == "PodScheduled")
    assert cond["status"] == "False" and ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED in cond["message"]
    # the volume is detached: its attachment goes, NodeVolumeLimits' pod is tried again and fits
    c.client.delete("volumeattachments", "csi-va-a")
    c.run(until=c.env.now + 5)
    assert c.get("pods", "uses-b", "default")["spec"].get("nodeName") == NODE


def test_kube_scheduler_role_reads_volume_attachments():
    """policy.go: ``NewRule(Read...).Groups(storageGroup).Resources("volumeattachments")`` (kubernetes#127757)."""
    role = next(r for r in bootstrap_cluster_roles(()) if r["metadata"]["name"] == "system:kube-scheduler")
    rules = [r for r in role["rules"] if "volumeattachments" in r.get("resources", ())]
    assert rules == [policy_rule(("get", "list", "watch"), ("storage.k8s.io",), ("volumeattachments",))]
