"""The attach/detach controller with the hostpath CSI driver and its external-attacher, on a running cluster.

After kubernetes/kubernetes@v1.34.0 pkg/controller/volume/attachdetach/reconciler/reconciler_test.go
(``Test_Run_Positive_OneDesiredVolumeAttach``,
``Test_Run_Positive_OneDesiredVolumeAttachThenDetachWithUnmountedVolume``,
``Test_Run_Negative_OneDesiredVolumeAttachThenDetachWithMountedVolume`` (a mounted volume waits
``maxWaitForUnmountDuration`` on an unhealthy node), ``Test_Run_OneVolumeDetachOnOutOfServiceTaintedNode``,
``Test_ReportMultiAttachError``) and pkg/volume/csi/csi_attacher_test.go (the attachment name).
"""

from __future__ import annotations

import pytest

from kubenotes.api.storagehelpers import csi_attachment_name as attachment_name
from kubenotes.api.storagehelpers import csi_unique_volume_name as unique_volume_name
from kubenotes.controllers.volume.attachdetach import (
    CONTROLLER_MANAGED_ATTACH_ANNOTATION,
    MAX_WAIT_FOR_UNMOUNT_SECONDS,
    MULTI_ATTACH_EXCLUSIVE,
)
from kubenotes.controllers.volume.external_attacher import finalizer_name
from kubenotes.sim.cluster import Cluster

DRIVER = "hostpath.csi.k8s.io"
FINALIZER = "external-attacher/hostpath-csi-k8s-io"
NS = "default"


def _node(name: str, managed: bool = True) -> dict:
    md: dict = {"name": name, "labels": {"kubernetes.io/hostname": name}}
    if managed:
        md["annotations"] = {CONTROLLER_MANAGED_ATTACH_ANNOTATION: "true"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": md,
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _storage(attach_required: bool = True, modes=("ReadWriteOnce",)) -> list[dict]:
    return [
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": DRIVER},
         "spec": {"attachRequired": attach_required}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-a"},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": list(modes), "storageClassName": "",
                  "persistentVolumeReclaimPolicy": "Retain", "csi": {"driver": DRIVER, "volumeHandle": "vol-a"}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": NS},
         "spec": {"storageClassName": "", "volumeName": "pv-a", "accessModes": list(modes),
                  "resources": {"requests": {"storage": "1Gi"}}}},
    ]


def _pod(name: str, node: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}],
                     "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}


def _cluster(objs: list[dict]) -> Cluster:
    return Cluster(objs, controllers=["persistentvolume-binder-controller"], kubelet="stand-in", scheduler=False)


def _attachments(c: Cluster) -> dict[str, dict]:
    return {va["spec"]["nodeName"]: va for va in c.client.list("volumeattachments")["items"]}


def _events(c: Cluster, reason: str) -> list[tuple[str, str]]:
    return [(e["involvedObject"]["name"], e["message"]) for e in c.client.list("events", NS)["items"]
            if e["reason"] == reason]


def _methods(c: Cluster) -> list[str]:
    return [e["method"] for e in c.csi[DRIVER].trace if e["service"] == "Controller"]


def _set_node(c: Cluster, name: str, ready: str | None = None, in_use: list[str] | None = None,
              taints: list[dict] | None = None) -> None:
    node = c.client.get("nodes", name)
    if taints is not None:
        node.setdefault("spec", {})["taints"] = taints
        node = c.client.update("nodes", node)
    if ready is not None:
        node["status"]["conditions"] = [{"type": "Ready", "status": ready, "reason": "KubeletNotReady"}]
    if in_use is not None:
        node["status"]["volumesInUse"] = in_use
    c.client.update_status("nodes", node)


def test_attachment_name_is_sha256_of_handle_driver_and_node():
    import hashlib

    assert attachment_name("vol-a", DRIVER, "n1") == "csi-" + hashlib.sha256(b"vol-ahostpath.csi.k8s.ion1").hexdigest()
    assert finalizer_name(DRIVER) == FINALIZER


def test_pod_on_node_gets_volumeattachment_attached_then_detached_when_deleted():
    c = _cluster([_node("n1"), _node("n2")] + _storage() + [_pod("app", "n1")])
    c.run(until=5)
    vas = _attachments(c)
    assert list(vas) == ["n1"]
    va = vas["n1"]
    assert va["metadata"]["name"] == attachment_name("vol-a", DRIVER, "n1")
    assert va["spec"] == {"attacher": DRIVER, "nodeName": "n1", "source": {"persistentVolumeName": "pv-a"}}
    assert va["status"] == {"attached": True}
    assert va["metadata"]["finalizers"] == [FINALIZER]
    assert FINALIZER in c.get("persistentvolumes", "pv-a")["metadata"]["finalizers"]
    assert c.get("csinodes", "n1")["spec"]["drivers"][0]["nodeID"] == "n1"
    assert _methods(c) == ["ControllerPublishVolume"]
    assert c.csi[DRIVER].volumes["vol-a"]["published_to"] == ["n1"]
    assert _events(c, "SuccessfulAttachVolume") == [("app", 'AttachVolume.Attach succeeded for volume "pv-a" ')]
    c.client.delete("pods", "app", NS, grace_period_seconds=0)
    c.run(until=10)
    assert _attachments(c) == {}
    assert _methods(c) == ["ControllerPublishVolume", "ControllerUnpublishVolume"]
    assert c.csi[DRIVER].volumes["vol-a"]["published_to"] == []
    ops = [(op, pv, node) for _, op, pv, node, _ in c.controllers["attachdetach-controller"].operations]
    assert ops == [("AttachVolume", "pv-a", "n1"), ("DetachVolume", "pv-a", "n1")]


def test_pv_being_deleted_loses_the_attacher_finalizer_once_detached():
    c = _cluster([_node("n1")] + _storage() + [_pod("app", "n1")])
    c.run(until=5)
    c.client.delete("pods", "app", NS, grace_period_seconds=0)
    c.client.delete("persistentvolumeclaims", "data", NS)
    c.run(until=8)
    c.client.delete("persistentvolumes", "pv-a")
    c.run(until=12)
    pv = c.server.get("persistentvolumes", None, "pv-a")
    assert pv is None or FINALIZER not in pv["metadata"].get("finalizers", [])


@pytest.mark.parametrize("case", ["attachRequired false", "node not managed", "no CSIDriver object"])
def test_no_attachment_when_not_required_or_node_not_managed(case):
    storage = _storage(attach_required=case != "attachRequired false")
    node = _node("n1", managed=case != "node not managed")
    if case == "no CSIDriver object":  # attach required, but the driver is not installed: nothing runs
        storage = storage[1:]
    c = _cluster([node] + storage + [_pod("app", "n1")])
    c.run(until=5)
    assert _attachments(c) == {}


def test_cluster_without_csi_driver_gets_no_attach_detach_controller():
    c = _cluster([_node("n1")])
    assert c.csi == {} and "attachdetach-controller" not in c.controllers
    assert c.server.get("clusterroles", None, "system:controller:attachdetach-controller") is None


def test_multi_attach_error_names_the_pod_on_the_other_node():
    c = _cluster([_node("n1"), _node("n2")] + _storage() + [_pod("first", "n1")])
    c.run(until=5)
    c.client.create("pods", _pod("second", "n2"), NS)
    c.run(until=10)
    assert list(_attachments(c)) == ["n1"]
    assert _events(c, "FailedAttachVolume") == [
        ("second", 'Multi-Attach error for volume "pv-a" Volume is already used by pod(s) first')]
    c.run(until=30)  # reported once per (volume, node)
    assert len(_events(c, "FailedAttachVolume")) == 1


def test_read_write_many_volume_attaches_to_both_nodes():
    c = _cluster([_node("n1"), _node("n2")] + _storage(modes=("ReadWriteMany",)) +
                 [_pod("first", "n1"), _pod("second", "n2")])
    c.run(until=5)
    assert sorted(_attachments(c)) == ["n1", "n2"]
    assert all(va["status"]["attached"] for va in _attachments(c).values())


def test_mounted_volume_on_unhealthy_node_is_force_detached_after_six_minutes():
    c = _cluster([_node("n1"), _node("n2")] + _storage() + [_pod("first", "n1")])
    c.run(until=5)
    c.node_down("n1")
    _set_node(c, "n1", ready="Unknown", in_use=[unique_volume_name(DRIVER, "vol-a")])
    c.client.delete("pods", "first", NS, grace_period_seconds=0)
    c.client.create("pods", _pod("second", "n2"), NS)
    c.run(until=10)
    # still mounted on n1: no detach yet, and the new pod is told the volume is exclusively attached
    assert list(_attachments(c)) == ["n1"]
    assert _events(c, "FailedAttachVolume") == [
        ("second", f'Multi-Attach error for volume "pv-a" {MULTI_ATTACH_EXCLUSIVE}')]
    c.run(until=5 + MAX_WAIT_FOR_UNMOUNT_SECONDS - 5)
    assert list(_attachments(c)) == ["n1"]
    c.run(until=5 + MAX_WAIT_FOR_UNMOUNT_SECONDS + 10)
    assert list(_attachments(c)) == ["n2"]
    ops = c.controllers["attachdetach-controller"].operations
    t, op, pv, node, detail = ops[1]
    assert (op, node, detail) == ("DetachVolume", "n1", "force: maxWaitForUnmountDuration expired")
    assert MAX_WAIT_FOR_UNMOUNT_SECONDS < t - 5 <= MAX_WAIT_FOR_UNMOUNT_SECONDS + 2
    assert ops[2][1:4] == ("AttachVolume", "pv-a", "n2")


def test_mounted_volume_on_healthy_node_waits_for_unmount():
    c = _cluster([_node("n1")] + _storage() + [_pod("first", "n1")])
    c.run(until=5)
    c.node_down("n1")  # no status posts overwrite ours; the node stays Ready
    _set_node(c, "n1", ready="True", in_use=[unique_volume_name(DRIVER, "vol-a")])
    c.client.delete("pods", "first", NS, grace_period_seconds=0)
    c.run(until=5 + MAX_WAIT_FOR_UNMOUNT_SECONDS + 60)
    assert list(_attachments(c)) == ["n1"]
    _set_node(c, "n1", in_use=[])  # the kubelet unmounted it
    c.run(until=c.env.now + 2)
    assert _attachments(c) == {}


def test_out_of_service_taint_detaches_at_once():
    c = _cluster([_node("n1")] + _storage() + [_pod("first", "n1")])
    c.run(until=5)
    c.node_down("n1")
    _set_node(c, "n1", ready="Unknown", in_use=[unique_volume_name(DRIVER, "vol-a")],
              taints=[{"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"}])
    c.client.delete("pods", "first", NS, grace_period_seconds=0)
    c.run(until=8)
    assert _attachments(c) == {}
    assert c.controllers["attachdetach-controller"].operations[-1][4] == "force: node has out-of-service taint"


def test_attach_error_becomes_a_failed_attach_volume_event_on_the_pod():
    c = _cluster([_node("n1")] + _storage() + [_pod("app", "n1")])
    c.csi[DRIVER].volumes.clear()  # the volume is gone from the backend
    c.run(until=5)
    assert _attachments(c)["n1"]["status"]["attached"] is False
    assert _events(c, "FailedAttachVolume") == [("app", 'AttachVolume.Attach failed for volume "pv-a" : rpc error: '
                                                        'code = NotFound desc = volume id vol-a does not exist in the '
                                                        'volumes list')]


def test_terminating_pod_on_a_dead_node_keeps_its_volume_attached():
    c = _cluster([_node("n1")] + _storage() + [_pod("app", "n1")])
    c.run(until=5)
    running = c.get("pods", "app", NS)["status"]["containerStatuses"][0]["state"]
    assert "running" in running
    c.node_down("n1")  # nobody stops the container: the pod stays Terminating with a running container
    c.client.delete("pods", "app", NS)
    c.run(until=60)
    assert c.get("pods", "app", NS)["metadata"]["deletionTimestamp"]
    assert list(_attachments(c)) == ["n1"]
    c.client.delete("pods", "app", NS, grace_period_seconds=0)  # kubectl delete --force
    c.run(until=62)
    assert _attachments(c) == {}
