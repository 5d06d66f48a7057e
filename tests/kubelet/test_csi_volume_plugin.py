"""The kubelet's CSI volume plugin through the kubelet model: stage once, publish per pod, unpublish, unstage.

After kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_attacher_test.go (``TestAttacherGetDeviceMountPath``:
``<plugins>/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount``; ``TestAttacherMountDevice``: staged
only with ``STAGE_UNSTAGE_VOLUME``), csi_mounter_test.go (``TestMounterGetPath``:
``<pods>/<uid>/volumes/kubernetes.io~csi/<pv>/mount``; ``TestMounterSetUp``: pod info in the volume context)
and the volume manager's ``volumesInUse`` / the attach/detach controller's ``volumesAttached`` handshake.
"""

from __future__ import annotations

import hashlib

from kubenotes.csi.spec import STAGE_UNSTAGE_VOLUME
from kubenotes.kubelet.csi import device_mount_path, target_path
from kubenotes.sim.cluster import Cluster

DRIVER = "hostpath.csi.k8s.io"
NS = "default"
UNIQUE = f"kubernetes.io/csi/{DRIVER}^vol-a"
MANAGED = {"volumes.kubernetes.io/controller-managed-attach-detach": "true"}


def _pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx:1.27",
                                                        "volumeMounts": [{"name": "d", "mountPath": "/data"}]}],
                     "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}


def _cluster(pods=("app",)):
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "annotations": MANAGED},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    return Cluster([
        node,
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": DRIVER},
         "spec": {"attachRequired": True, "podInfoOnMount": True}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-a"},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
                  "csi": {"driver": DRIVER, "volumeHandle": "vol-a", "fsType": "ext4",
                          "volumeAttributes": {"tier": "gold"}}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": NS},
         "spec": {"storageClassName": "", "volumeName": "pv-a", "accessModes": ["ReadWriteOnce"],
                  "resources": {"requests": {"storage": "1Gi"}}}},
        *[_pod(p) for p in pods],
    ], controllers=["persistentvolume-binder-controller"], scheduler=False)


def _calls(c, *methods):
    return [(x["time"], x["method"], x["request"]) for x in c.csi[DRIVER].trace if x["method"] in methods]


def test_paths_follow_upstream_formats():
    sha = hashlib.sha256(b"vol-a").hexdigest()
    expected = f"/var/lib/kubelet/plugins/kubernetes.io/csi/{DRIVER}/{sha}/globalmount"
    assert device_mount_path(DRIVER, "vol-a") == expected
    assert target_path("uid-1", "pv-a") == "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/pv-a/mount"


def test_stage_then_publish_with_volumes_in_use_and_attached():
    c = _cluster()
    c.run(until=40)
    pod = c.get("pods", "app", NS)
    uid = pod["metadata"]["uid"]
    assert pod["status"]["phase"] == "Running"
    node = c.get("nodes", "n1")
    assert node["status"]["volumesInUse"] == [UNIQUE]
    assert node["status"]["volumesAttached"] == [{"name": UNIQUE, "devicePath": ""}]
    ((t_stage, _, stage),) = _calls(c, "NodeStageVolume")
    ((t_pub, _, pub),) = _calls(c, "NodePublishVolume")
    staging = device_mount_path(DRIVER, "vol-a")
    assert stage["staging_target_path"] == staging and stage["volume_id"] == "vol-a"
    assert stage["volume_capability"] == {"access_mode": {"mode": "SINGLE_NODE_WRITER"},
                                          "mount": {"fs_type": "ext4", "mount_flags": []}}
    assert stage["volume_context"] == {"tier": "gold"}
    assert pub["staging_target_path"] == staging and pub["target_path"] == target_path(uid, "pv-a")
    assert pub["volume_context"] == {"tier": "gold", "csi.storage.k8s.io/pod.name": "app",
                                     "csi.storage.k8s.io/pod.namespace": NS, "csi.storage.k8s.io/pod.uid": uid,
                                     "csi.storage.k8s.io/serviceAccount.name": "default",
                                     "csi.storage.k8s.io/ephemeral": "false"}
    # the kubelet mounted only after its node status reported the volume in use (status updates every 10 s)
    (t_attach,) = [x["time"] for x in c.csi[DRIVER].trace if x["method"] == "ControllerPublishVolume"]
    assert t_attach < 1 and 10 <= t_stage == t_pub
    caps = [x["response"] for x in c.csi[DRIVER].trace if x["method"] == "NodeGetCapabilities"]
    assert {"rpc": {"type": STAGE_UNSTAGE_VOLUME}} in caps[0]["capabilities"]
    vm = c.kubelets["n1"].volume_manager
    assert vm.volume_paths(uid)["d"] == target_path(uid, "pv-a")
    assert vm.staged_devices() == {UNIQUE: staging}


def test_unstage_after_the_last_pod_then_detach_after_volumes_in_use_drops():
    c = _cluster(pods=("a", "b"))
    c.run(until=40)
    assert [c.get("pods", p, NS)["status"]["phase"] for p in "ab"] == ["Running", "Running"]
    assert len(_calls(c, "NodeStageVolume")) == 1 and len(_calls(c, "NodePublishVolume")) == 2
    c.client.delete("pods", "a", NS)
    c.run(until=80)
    assert len(_calls(c, "NodeUnpublishVolume")) == 1 and not _calls(c, "NodeUnstageVolume")  # b still uses it
    assert c.list("volumeattachments")
    c.client.delete("pods", "b", NS)
    c.run(until=140)
    (unpub_a, unpub_b) = _calls(c, "NodeUnpublishVolume")
    ((t_unstage, _, unstage),) = _calls(c, "NodeUnstageVolume")
    assert unstage["staging_target_path"] == device_mount_path(DRIVER, "vol-a")
    ((t_detach, _, _),) = _calls(c, "ControllerUnpublishVolume")
    assert unpub_b[0] <= t_unstage < t_detach
    # the kubelet's next status update drops volumesInUse; only then does the controller detach
    ops = [(t, op, d) for t, op, _, _, d in c.controllers["attachdetach-controller"].operations if op == "DetachVolume"]
    assert len(ops) == 1 and ops[0][2] == "" and ops[0][0] >= t_unstage
    node = c.get("nodes", "n1")
    assert "volumesInUse" not in node["status"] and "volumesAttached" not in node["status"]
    assert not c.list("volumeattachments")
    assert c.kubelets["n1"].volume_manager.staged_devices() == {}


def test_mount_device_errors_and_a_driver_without_staging():
    import pytest

    from kubenotes.csi.hostpath import HostPathDriver
    from kubenotes.kubelet.csi import CSIVolumePlugin, MountDeviceError

    d = HostPathDriver()
    pv = {"metadata": {"name": "pv-a"}, "spec": {"accessModes": ["ReadWriteOncePod"],
                                                 "csi": {"driver": DRIVER, "volumeHandle": "vol-a"}}}
    spec = {"pv_name": "pv-a", "pv": pv, "driver": DRIVER, "handle": "vol-a", "attach_required": False,
            "pod_info_on_mount": False, "read_only": True}
    unregistered = CSIVolumePlugin(lambda r, ns, n: None, "n1", lambda name: None)
    with pytest.raises(MountDeviceError, match=f"driver name {DRIVER} not found in the list of registered CSI drivers"):
        unregistered.mount_device(spec)
    plugin = CSIVolumePlugin(lambda r, ns, n: None, "n1", lambda name: d.node("n1"))
    with pytest.raises(MountDeviceError) as e:  # the backend has no such volume: NodeStageVolume's NotFound
        plugin.mount_device(spec)
    assert str(e.value).startswith("rpc error: code = NotFound desc = ")
    assert e.value.operation == "MountVolume.MountDevice"

    class NoStaging:  # a driver without STAGE_UNSTAGE_VOLUME: MountDevice does nothing, publish has no staging path
        calls = []

        def NodeGetCapabilities(self, request):  # noqa: N802
            return {"capabilities": []}

        def NodePublishVolume(self, request):  # noqa: N802
            self.calls.append(request)
            return {}

    plain = CSIVolumePlugin(lambda r, ns, n: None, "n1", lambda name: NoStaging())
    assert plain.mount_device(spec) == ""
    assert plain.set_up(spec, {"metadata": {"uid": "u1"}}, "") == target_path("u1", "pv-a")
    (pub,) = NoStaging.calls
    assert "staging_target_path" not in pub and pub["readonly"] is True
    assert pub["volume_capability"]["access_mode"]["mode"] == "SINGLE_NODE_SINGLE_WRITER"
