"""The external-attacher sidecar: VolumeAttachments of its driver become ControllerPublish/UnpublishVolume calls.

After kubernetes-csi/external-attacher@v4.9 pkg/controller/csi_handler_test.go (``TestCSIHandler``:
"VA -> successful attachment", "VA with PV finalizer -> ...", "VA attach error -> saved as attachError",
"VA deleted -> successful detach", "VA deleted -> detach error saved as detachError",
"VA for other driver -> ignored") and util_test.go (``TestSanitizeDriverName``).
"""

from __future__ import annotations

import pytest

from kubenotes.controllers.volume.external_attacher import sanitize_driver_name, volume_capability
from kubenotes.csi.spec import INTERNAL, CSIError
from kubenotes.sim.cluster import Cluster

DRIVER = "hostpath.csi.k8s.io"
FINALIZER = "external-attacher/hostpath-csi-k8s-io"


def _node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}


def _pv(name: str, handle: str, driver: str = DRIVER) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                     "persistentVolumeReclaimPolicy": "Retain", "csi": {"driver": driver, "volumeHandle": handle}}}


def _va(name: str, pv: str, node: str = "n1", attacher: str = DRIVER) -> dict:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": name},
            "spec": {"attacher": attacher, "nodeName": node, "source": {"persistentVolumeName": pv}}}


@pytest.fixture
def cluster():
    csidriver = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": DRIVER},
                 "spec": {"attachRequired": True}}
    c = Cluster([_node("n1"), csidriver, _pv("pv-a", "vol-a"), _pv("pv-b", "vol-b"),
                 _pv("pv-other", "x", driver="other.csi.example.com")],
                controllers=[], kubelet="stand-in", scheduler=False)
    # the sidecar alone, as in its unit tests: the attach/detach controller would detach these VolumeAttachments,
    # which no pod needs
    c.controllers["attachdetach-controller"].reconcile = lambda key: None
    return c


def _get(c, name):
    return c.server.get("volumeattachments", None, name)


@pytest.mark.parametrize("driver,want", [("hostpath.csi.k8s.io", "hostpath-csi-k8s-io"), ("a/b/", "a-b-X"),
                                         ("Ebs.CSI_aws", "Ebs-CSI-aws")])
def test_sanitize_driver_name(driver, want):
    assert sanitize_driver_name(driver) == want


def test_volume_capability_from_access_modes():
    assert volume_capability({"spec": {"accessModes": ["ReadOnlyMany"], "volumeMode": "Block"}}) == \
        {"access_mode": {"mode": "MULTI_NODE_READER_ONLY"}, "block": {}}
    assert volume_capability({"spec": {"accessModes": ["ReadWriteOncePod"]}})["access_mode"]["mode"] == \
        "SINGLE_NODE_SINGLE_WRITER"


def test_attach_sets_finalizers_calls_publish_and_marks_attached(cluster):
    cluster.client.create("volumeattachments", _va("va-a", "pv-a"))
    cluster.run(until=2)
    va = _get(cluster, "va-a")
    assert va["metadata"]["finalizers"] == [FINALIZER] and va["status"] == {"attached": True}
    assert FINALIZER in cluster.get("persistentvolumes", "pv-a")["metadata"]["finalizers"]
    call = [e for e in cluster.csi[DRIVER].trace if e["method"] == "ControllerPublishVolume"][0]
    assert call["request"]["volume_id"] == "vol-a" and call["request"]["node_id"] == "n1"
    assert call["request"]["volume_capability"]["access_mode"]["mode"] == "SINGLE_NODE_WRITER"


def test_attachment_of_another_driver_is_ignored(cluster):
    cluster.client.create("volumeattachments", _va("va-x", "pv-other", attacher="other.csi.example.com"))
    cluster.run(until=2)
    assert "finalizers" not in _get(cluster, "va-x")["metadata"]
    assert not [e for e in cluster.csi[DRIVER].trace if e["method"] == "ControllerPublishVolume"]


def test_publish_error_is_saved_as_attach_error_and_retried(cluster):
    cluster.csi[DRIVER].max_volumes_per_node = 1
    cluster.client.create("volumeattachments", _va("va-a", "pv-a"))
    cluster.run(until=2)
    cluster.client.create("volumeattachments", _va("va-b", "pv-b"))
    cluster.run(until=4)
    st = _get(cluster, "va-b")["status"]
    assert st["attached"] is False
    assert st["attachError"]["message"] == (
        "rpc error: code = ResourceExhausted desc = Cannot attach any more volumes to this node ('n1')")
    assert st["attachError"]["time"]
    tries = [e for e in cluster.csi[DRIVER].trace if e["method"] == "ControllerPublishVolume"
             and e["request"]["volume_id"] == "vol-b"]
    assert len(tries) >= 2 and all(e["code"] == "ResourceExhausted" for e in tries)
    # room again: the retry attaches it
    cluster.client.delete("volumeattachments", "va-a")
    cluster.run(until=40)
    assert _get(cluster, "va-b")["status"]["attached"] is True


def test_missing_node_registration_is_an_attach_error(cluster):
    cluster.client.create("volumeattachments", _va("va-a", "pv-a", node="n9"))
    cluster.run(until=2)
    assert _get(cluster, "va-a")["status"]["attachError"]["message"] == \
        "CSINode n9 does not contain driver hostpath.csi.k8s.io"


def test_delete_calls_unpublish_then_drops_the_finalizer(cluster):
    cluster.client.create("volumeattachments", _va("va-a", "pv-a"))
    cluster.run(until=2)
    cluster.client.delete("volumeattachments", "va-a")
    cluster.run(until=4)
    assert _get(cluster, "va-a") is None
    assert [e["method"] for e in cluster.csi[DRIVER].trace if e["service"] == "Controller"] == [
        "ControllerPublishVolume", "ControllerUnpublishVolume"]


def test_unpublish_error_is_saved_as_detach_error_and_keeps_the_object(cluster, monkeypatch):
    cluster.client.create("volumeattachments", _va("va-a", "pv-a"))
    cluster.run(until=2)
    driver = cluster.csi[DRIVER]

    def broken(request):
        raise CSIError(INTERNAL, "backend unavailable")

    monkeypatch.setattr(driver, "ControllerUnpublishVolume", broken)
    cluster.client.delete("volumeattachments", "va-a")
    cluster.run(until=4)
    va = _get(cluster, "va-a")
    assert va["metadata"]["deletionTimestamp"] and va["metadata"]["finalizers"] == [FINALIZER]
    assert va["status"]["detachError"]["message"] == "rpc error: code = Internal desc = backend unavailable"
    monkeypatch.undo()
    cluster.run(until=60)
    assert _get(cluster, "va-a") is None
