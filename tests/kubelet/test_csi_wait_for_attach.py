"""The kubelet's CSI WaitForAttach: a claim's CSI volume is not mounted until its VolumeAttachment is attached.

After kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_attacher_test.go (``TestAttacherWaitForAttach``:
"successful attach", "failed attach" (attachError), "being deleted"), run through the kubelet model.
"""

from __future__ import annotations

import pytest

from kubenotes.api.storagehelpers import csi_attachment_name
from kubenotes.kubelet.csi import (
    BEING_DELETED,
    NOT_ATTACHED_PER_NODE_STATUS,
    NOT_REPORTED_IN_USE,
    VolumeNotYetAttached,
    WaitForAttachError,
    wait_for_attach,
)
from kubenotes.sim.cluster import Cluster

DRIVER = "hostpath.csi.k8s.io"
NS = "default"
POD = {"metadata": {"name": "p", "namespace": NS}}
VOL = {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}


def _objects(attach_required=True):
    return {("persistentvolumeclaims", NS, "data"): {"spec": {"volumeName": "pv-a"}},
            ("persistentvolumes", "", "pv-a"): {"spec": {"csi": {"driver": DRIVER, "volumeHandle": "vol-a"}}},
            ("csidrivers", "", DRIVER): {"spec": {"attachRequired": attach_required}}}


def _va(objs, **status_or_meta):
    name = csi_attachment_name("vol-a", DRIVER, "n1")
    objs[("volumeattachments", "", name)] = {"metadata": status_or_meta.pop("metadata", {}), "status": status_or_meta}


def test_wait_for_attach_cases():
    objs = _objects()
    get = lambda r, ns, n: objs.get((r, ns, n))  # noqa: E731
    with pytest.raises(VolumeNotYetAttached):
        wait_for_attach(get, "n1", POD, VOL)
    _va(objs, attached=False)
    with pytest.raises(VolumeNotYetAttached):
        wait_for_attach(get, "n1", POD, VOL)
    _va(objs, attached=False, attachError={"message": "rpc error: code = NotFound desc = gone"})
    with pytest.raises(WaitForAttachError) as e:
        wait_for_attach(get, "n1", POD, VOL)
    assert str(e.value) == "rpc error: code = NotFound desc = gone" and not getattr(e.value, "pending", False)
    _va(objs, attached=True, metadata={"deletionTimestamp": "2025-08-27T00:00:01Z"})
    with pytest.raises(WaitForAttachError, match=BEING_DELETED):
        wait_for_attach(get, "n1", POD, VOL)
    _va(objs, attached=True)
    assert wait_for_attach(get, "n1", POD, VOL) == csi_attachment_name("vol-a", DRIVER, "n1")
    assert wait_for_attach(get, "n1", POD, {"name": "e", "emptyDir": {}}) is None


def test_no_attach_needed_passes():
    objs = _objects(attach_required=False)
    assert wait_for_attach(lambda r, ns, n: objs.get((r, ns, n)), "n1", POD, VOL) is None


def _cluster():
    managed = {"volumes.kubernetes.io/controller-managed-attach-detach": "true"}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "annotations": managed},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    return Cluster([
        node,
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": DRIVER},
         "spec": {"attachRequired": True}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-a"},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
                  "csi": {"driver": DRIVER, "volumeHandle": "vol-a"}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": NS},
         "spec": {"storageClassName": "", "volumeName": "pv-a", "accessModes": ["ReadWriteOnce"],
                  "resources": {"requests": {"storage": "1Gi"}}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app", "namespace": NS},
         "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx:1.27",
                                                     "volumeMounts": [{"name": "d", "mountPath": "/data"}]}],
                  "volumes": [VOL]}},
    ], controllers=["persistentvolume-binder-controller"], scheduler=False)


def test_pod_waits_for_the_attachment_and_reports_an_attach_error():
    c = _cluster()
    saved = dict(c.csi[DRIVER].volumes)
    c.csi[DRIVER].volumes.clear()  # ControllerPublishVolume answers NotFound until the volume is back
    c.run(until=30)
    assert c.get("pods", "app", NS)["status"]["phase"] == "Pending"
    # the attach error is the attach/detach controller's Event; the kubelet waits for node.status.volumesAttached
    messages = [e["message"] for e in c.list("events", NS) if e["reason"] == "FailedAttachVolume"]
    assert messages and messages[0] == ('AttachVolume.Attach failed for volume "pv-a" : rpc error: code = NotFound '
                                        'desc = volume id vol-a does not exist in the volumes list')
    assert not [e for e in c.list("events", NS) if e["reason"] == "FailedMount"]
    assert "volumesAttached" not in c.get("nodes", "n1")["status"]
    verify = [t[4] for t in c.kubelets["n1"].volume_manager.trace if t[1] == "VerifyControllerAttachedVolume"]
    assert any(NOT_ATTACHED_PER_NODE_STATUS in m for m in verify)
    c.csi[DRIVER].volumes.update(saved)  # the backend has it again: the attacher's retry attaches it
    c.run(until=300)
    assert c.get("pods", "app", NS)["status"]["phase"] == "Running"
    va = c.get("volumeattachments", csi_attachment_name("vol-a", DRIVER, "n1"))
    assert va["status"]["attached"] is True


def test_pod_starts_after_a_prompt_attach_without_failed_mount():
    c = _cluster()
    c.run(until=40)
    assert c.get("pods", "app", NS)["status"]["phase"] == "Running"
    assert not [e for e in c.list("events", NS) if e["reason"] == "FailedMount"]


def test_pod_waits_quietly_while_there_is_no_attachment_yet():
    c = _cluster()
    adc = c.controllers["attachdetach-controller"]
    reconcile = adc.reconcile
    adc.reconcile = lambda key: None  # the attach/detach controller is late: no VolumeAttachment yet
    c.run(until=30)
    assert c.get("pods", "app", NS)["status"]["phase"] == "Pending"
    assert not [e for e in c.list("events", NS) if e["reason"] == "FailedMount"]
    verify = [t[4] for t in c.kubelets["n1"].volume_manager.trace if t[1] == "VerifyControllerAttachedVolume"]
    # first not yet in the node's volumesInUse, then (reported at a status update) not in volumesAttached
    assert NOT_REPORTED_IN_USE in verify[0] and NOT_ATTACHED_PER_NODE_STATUS in verify[-1]
    adc.reconcile = reconcile
    adc.enqueue("reconcile")
    c.run(until=200)  # the mount is retried with the volume manager's back-off, then the pod starts
    assert c.get("pods", "app", NS)["status"]["phase"] == "Running"
