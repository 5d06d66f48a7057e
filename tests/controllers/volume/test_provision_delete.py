"""Provisioning hand-off, deletion and the external provisioner model.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume:

- provision_test.go ``TestProvisionSync``: the rows that do not need an in-tree provisioner (v1.34 has
  none left): "11-16 - no provisioning with class=nil", "11-17 - external provisioner", "11-18 -
  unknown internal provisioner", plus a class that does not exist, delayed binding with and without a
  selected node, and the retroactive default class (``assignDefaultStorageClass``).
- delete_test.go ``TestDeleteSync``: "8-1 - successful delete" and "8-2 - successful delete with
  prebound volume" (the in-tree hostPath deleter, ``/tmp`` paths), "8-3 - plugin not found", "8-5 -
  delete returns error" (hostPath outside ``/tmp``: the deleter's own error), "8-9 - prebound volume is
  deleted while the claim exists", "8-10-1 - external deleter when volume is dynamic provisioning",
  "8-10-2 - external deleter when volume is static provisioning" (a CSI volume), "8-11 - two PVs
  provisioned for a single claim", "8-12 - two PVs externally provisioned for a single claim".

Then the provisioner model end to end (kubernetes-csi external-provisioner / external-resizer
behaviour): provision and bind, a full disk (``ProvisioningFailed``, back-off, nothing half-made,
success once space frees), WaitForFirstConsumer with the scheduler's selected node, deletion of a
released volume, expansion.
"""

from __future__ import annotations

from pv_framework import (
    BOUND_BY_CONTROLLER as BBC,
    NS,
    cluster_with,
    new_claim,
    new_volume,
    storage_class,
    sync_once,
)
from kubenotes.api.storagehelpers import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
)
from kubenotes.controllers.volume.persistentvolume import MSG_EXTERNAL_PROVISIONING
from kubenotes.controllers.volume.provisioner import PROVISIONER_FINALIZER, HostPathProvisioner

EXTERNAL = storage_class("external", provisioner="vendor.com/my-volume")
UNKNOWN_INTERNAL = storage_class("unknown-internal", provisioner="kubernetes.io/unknown")
WAIT_EXTERNAL = storage_class("wait-external", "WaitForFirstConsumer", provisioner="vendor.com/my-volume")


def _events_full(c):
    return [(e["type"], e["reason"], e["message"]) for e in c.list("events", NS)]


# --------------------------------------------------------------------------- provision_test.go


def test_11_16_no_provisioning_with_class_nil():
    _, claims, events = sync_once([], [new_claim("claim11-16", "uid11-16", "1Gi", "", "Pending")], "claim")
    assert ANN_STORAGE_PROVISIONER not in (claims["claim11-16"]["metadata"].get("annotations") or {})
    assert events == ["Normal FailedBinding"]


def test_11_17_external_provisioner():
    _, claims, events = sync_once([], [new_claim("claim11-17", "uid11-17", "1Gi", "", "Pending", "external")],
                                  "claim", classes=[EXTERNAL])
    anns = claims["claim11-17"]["metadata"]["annotations"]
    assert anns[ANN_STORAGE_PROVISIONER] == anns[ANN_BETA_STORAGE_PROVISIONER] == "vendor.com/my-volume"
    assert claims["claim11-17"]["status"]["phase"] == "Pending"
    assert events == ["Normal ExternalProvisioning"]


def test_11_17_message_is_upstreams():
    c = cluster_with([], [new_claim("c", "u", "1Gi", "", "", "external")], [EXTERNAL])
    c.run(until=1)
    assert ("Normal", "ExternalProvisioning", MSG_EXTERNAL_PROVISIONING.format(name="vendor.com/my-volume")) \
        in _events_full(c)
    assert MSG_EXTERNAL_PROVISIONING.format(name="x").startswith(
        "Waiting for a volume to be created either by the external provisioner 'x' or manually by the system "
        "administrator.")


def test_11_18_unknown_internal_provisioner():
    _, claims, events = sync_once([], [new_claim("claim11-18", "uid11-18", "1Gi", "", "Pending", "unknown-internal")],
                                  "claim", classes=[UNKNOWN_INTERNAL])
    assert events == ["Warning ProvisioningFailed"]
    assert ANN_STORAGE_PROVISIONER not in (claims["claim11-18"]["metadata"].get("annotations") or {})


def test_provisioning_with_a_class_that_does_not_exist_fails_with_not_found():
    c = cluster_with([], [new_claim("c", "u", "1Gi", "", "", "nope")])
    c.run(until=1)
    assert ("Warning", "ProvisioningFailed", 'storageclass.storage.k8s.io "nope" not found') in _events_full(c)


def test_delayed_binding_provisions_only_after_selected_node():
    _, claims, events = sync_once([], [new_claim("c", "u", "1Gi", "", "Pending", "wait-external")], "claim",
                                  classes=[WAIT_EXTERNAL])
    assert events == ["Normal WaitForFirstConsumer"]
    claim = new_claim("c", "u", "1Gi", "", "Pending", "wait-external")
    claim["metadata"]["annotations"] = {ANN_SELECTED_NODE: "node1"}
    _, claims, events = sync_once([], [claim], "claim", classes=[WAIT_EXTERNAL])
    assert events == ["Normal ExternalProvisioning"]


def test_wait_for_pod_scheduled_names_the_pod():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "namespace": NS},
           "spec": {"containers": [{"name": "c", "image": "nginx"}],
                    "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "c"}}]}}
    c = cluster_with([], [new_claim("c", "u", "1Gi", "", "", "wait-external")], [WAIT_EXTERNAL], others=[pod])
    c.run(until=1)
    assert ("Normal", "WaitForPodScheduled", "waiting for pod web-0 to be scheduled") in _events_full(c)


def test_retroactive_default_storage_class():
    """``assignDefaultStorageClass``: a claim created with no class gets the default one once it exists."""
    claim = new_claim("c", "u", "1Gi", "", "")
    c = cluster_with([], [claim])
    c.run(until=1)
    assert "storageClassName" not in c.get("persistentvolumeclaims", "c", NS)["spec"]
    c.client.create("storageclasses", storage_class("std", provisioner="vendor.com/my-volume", default=True))
    c.run(until=c.env.now + 16)  # the next resync
    got = c.get("persistentvolumeclaims", "c", NS)
    assert got["spec"]["storageClassName"] == "std"
    assert got["metadata"]["annotations"][ANN_STORAGE_PROVISIONER] == "vendor.com/my-volume"


# --------------------------------------------------------------------------- delete_test.go

TMP = {"hostPath": {"path": "/tmp/pv"}}


def _deleted(volumes, claims=(), name=None):
    vols, _, events = sync_once(volumes, list(claims), "volume", target=name)
    return vols, events


def test_8_1_successful_delete():
    vols, events = _deleted([new_volume("volume8-1", "1Gi", "uid8-1", "claim8-1", "Bound", "Delete", "", BBC,
                                        source=TMP)])
    assert vols == {} and events == []


def test_8_2_successful_delete_with_prebound_volume():
    vols, events = _deleted([new_volume("volume8-2", "1Gi", "uid8-2", "claim8-2", "Bound", "Delete", source=TMP)])
    assert vols == {} and events == []


def test_8_3_plugin_not_found():
    vols, events = _deleted([new_volume("volume8-3", "1Gi", "uid8-3", "claim8-3", "Bound", "Delete")])
    st = vols["volume8-3"]["status"]
    assert (st["phase"], st["message"]) == (
        "Failed", 'error getting deleter volume plugin for volume "volume8-3": no volume plugin matched')
    assert events == ["Warning VolumeFailedDelete"]


def test_8_5_delete_returns_error():
    vols, events = _deleted([new_volume("volume8-5", "1Gi", "uid8-5", "claim8-5", "Bound", "Delete",
                                        source={"hostPath": {"path": "/data/pv"}})])
    assert vols["volume8-5"]["status"]["message"] == "host_path deleter only supports /tmp/.+ but received provided /data/pv"
    assert events == ["Warning VolumeFailedDelete"]


def test_8_9_prebound_volume_is_deleted_while_the_claim_exists():
    vols, events = _deleted([new_volume("volume8-9", "1Gi", "uid8-9", "claim8-9", "Bound", "Delete", source=TMP)],
                            [new_claim("claim8-9", "uid8-9-x", "10Gi", "", "Pending")])
    assert vols == {} and events == []


def test_8_10_1_external_deleter_when_volume_is_dynamic_provisioning():
    v = new_volume("volume8-10-1", "1Gi", "uid10-1-1", "claim10-1-1", "Bound", "Delete", "", BBC)
    v["metadata"]["annotations"][ANN_DYNAMICALLY_PROVISIONED] = "external.io/test"
    vols, events = _deleted([v])
    assert vols["volume8-10-1"]["status"]["phase"] == "Released" and events == []


def test_8_10_2_external_deleter_when_volume_is_static_provisioning():
    v = new_volume("volume8-10-2", "1Gi", "uid10-1-2", "claim10-1-2", "Bound", "Delete", "", BBC,
                   source={"csi": {"driver": "pd.csi.storage.gke.io", "volumeHandle": "h"}})
    vols, events = _deleted([v])
    assert vols["volume8-10-2"]["status"]["phase"] == "Released" and events == []


def test_8_11_two_pvs_provisioned_for_a_single_claim():
    vols = [new_volume(f"volume8-11-{i}", "1Gi", "uid8-11", "claim8-11", "Bound", "Delete", source=TMP) for i in (1, 2)]
    for v in vols:
        v["metadata"]["annotations"] = {ANN_DYNAMICALLY_PROVISIONED: "kubernetes.io/host-path"}
    got, events = _deleted(vols, [new_claim("claim8-11", "uid8-11", "10Gi", "volume8-11-2", "Bound")])
    assert sorted(got) == ["volume8-11-2"] and events == []


def test_8_12_two_pvs_externally_provisioned_for_a_single_claim():
    vols = [new_volume(f"volume8-12-{i}", "1Gi", "uid8-12", "claim8-12", "Bound", "Delete") for i in (1, 2)]
    for v in vols:
        v["metadata"]["annotations"] = {ANN_DYNAMICALLY_PROVISIONED: "external.io/test"}
    got, events = _deleted(vols, [new_claim("claim8-12", "uid8-12", "10Gi", "volume8-12-2", "Bound")])
    assert {n: v["status"]["phase"] for n, v in got.items()} == {"volume8-12-1": "Released", "volume8-12-2": "Bound"}


# --------------------------------------------------------------------------- the provisioner model

HOSTPATH = storage_class("standard", provisioner="k8s.io/minikube-hostpath", default=True, allowVolumeExpansion=True)
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
CONTROLLERS = ("persistentvolume-binder-controller", "persistentvolumeclaim-protection-controller",
               "persistentvolume-protection-controller")


def _claim(name, size="1Gi", cls=None):
    c = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": NS},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}}
    if cls is not None:
        c["spec"]["storageClassName"] = cls
    return c


def _provisioning_cluster(objs, provisioner=HostPathProvisioner, **kw):
    from kubenotes.sim.cluster import Cluster

    return Cluster(objs, controllers=list(CONTROLLERS), extra_controllers={"storage-provisioner": provisioner},
                   kubelet="stand-in", scheduler=False, **kw)


def test_provisioner_provisions_binds_and_deletes_with_the_claim():
    c = _provisioning_cluster([HOSTPATH, _claim("data")])
    c.run(until=3)
    claim = c.get("persistentvolumeclaims", "data", NS)
    assert claim["spec"]["storageClassName"] == "standard"  # DefaultStorageClass admission
    assert claim["status"]["phase"] == "Bound"
    pv = c.get("persistentvolumes", claim["spec"]["volumeName"])
    assert pv["metadata"]["annotations"][ANN_DYNAMICALLY_PROVISIONED] == "k8s.io/minikube-hostpath"
    assert sorted(pv["metadata"]["finalizers"]) == [PROVISIONER_FINALIZER, "kubernetes.io/pv-protection"]
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    reasons = [r for _, r, _ in _events_full(c)]
    assert reasons == ["ExternalProvisioning", "Provisioning", "ProvisioningSucceeded"]
    prov = c.controllers["storage-provisioner"]
    assert list(prov.directories) == [":/tmp/hostpath-provisioner/default/data"]
    c.client.delete("persistentvolumeclaims", "data", NS)
    c.run(until=6)
    assert c.list("persistentvolumes") == [] and prov.directories == {}


def test_provisioner_failure_backs_off_leaves_nothing_and_recovers():
    """A full disk: ProvisioningFailed, the claim stays Pending, no PV, retries 1 s, 2 s, 4 s...; when a
    volume is freed the next retry succeeds."""
    small = HostPathProvisioner.configured(capacity_bytes=3 * 2**30)
    c = _provisioning_cluster([HOSTPATH, _claim("a", "2Gi"), _claim("b", "2Gi")], provisioner=small)
    c.run(until=10)
    phases = {x["metadata"]["name"]: x["status"]["phase"] for x in c.list("persistentvolumeclaims", NS)}
    assert sorted(phases.values()) == ["Bound", "Pending"]
    pending = next(n for n, p in phases.items() if p == "Pending")
    failed = [e for e in c.list("events", NS) if e["reason"] == "ProvisioningFailed"]
    assert len(failed) == 1 and failed[0]["count"] >= 3  # retried with back-off: t=0, 1, 3, 7 ...
    assert failed[0]["message"].startswith('failed to provision volume with StorageClass "standard": insufficient')
    assert len(c.list("persistentvolumes")) == 1  # nothing half-provisioned
    bound = next(n for n in phases if n != pending)
    c.client.delete("persistentvolumeclaims", bound, NS)
    c.run(until=80)
    assert c.get("persistentvolumeclaims", pending, NS)["status"]["phase"] == "Bound"


def test_provisioner_waits_for_selected_node_and_pins_the_volume_there():
    wait = storage_class("local", "WaitForFirstConsumer", provisioner="k8s.io/minikube-hostpath")
    c = _provisioning_cluster([wait, NODE, _claim("data", cls="local")])
    c.run(until=3)
    assert c.list("persistentvolumes") == []
    claim = c.get("persistentvolumeclaims", "data", NS)
    claim["metadata"].setdefault("annotations", {})[ANN_SELECTED_NODE] = "node1"  # the scheduler's PreBind
    c.client.update("persistentvolumeclaims", claim, NS)
    c.run(until=6)
    claim = c.get("persistentvolumeclaims", "data", NS)
    assert claim["status"]["phase"] == "Bound"
    terms = c.get("persistentvolumes", claim["spec"]["volumeName"])["spec"]["nodeAffinity"]["required"]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == ["node1"]


def test_expansion_when_the_class_allows_it():
    c = _provisioning_cluster([HOSTPATH, _claim("data")])
    c.run(until=3)
    claim = c.get("persistentvolumeclaims", "data", NS)
    claim["spec"]["resources"]["requests"]["storage"] = "5Gi"
    c.client.update("persistentvolumeclaims", claim, NS)
    c.run(until=6)
    claim = c.get("persistentvolumeclaims", "data", NS)
    assert claim["status"]["capacity"]["storage"] == "5Gi"
    assert c.get("persistentvolumes", claim["spec"]["volumeName"])["spec"]["capacity"]["storage"] == "5Gi"
    assert [r for _, r, _ in _events_full(c)][-2:] == ["Resizing", "VolumeResizeSuccessful"]


def test_provisioner_hands_a_claim_back_to_the_scheduler_when_the_selected_node_is_full():
    wait = storage_class("local", "WaitForFirstConsumer", provisioner="k8s.io/minikube-hostpath")
    full = HostPathProvisioner.configured(capacity_bytes=2**20)
    c = _provisioning_cluster([wait, NODE, _claim("data", cls="local")], provisioner=full)
    c.run(until=1)
    claim = c.get("persistentvolumeclaims", "data", NS)
    claim["metadata"].setdefault("annotations", {})[ANN_SELECTED_NODE] = "node1"
    c.client.update("persistentvolumeclaims", claim, NS)
    c.run(until=3)
    claim = c.get("persistentvolumeclaims", "data", NS)
    assert ANN_SELECTED_NODE not in claim["metadata"]["annotations"]  # rescheduleProvisioning
    assert claim["status"]["phase"] == "Pending" and c.list("persistentvolumes") == []
    assert any(r == "ProvisioningFailed" and "insufficient capacity on node1" in m for _, r, m in _events_full(c))


def test_both_provisioners_share_the_library_loop():
    """One home for sig-storage-lib-external-provisioner's loop: the provisioners only implement Provision/Delete."""
    from kubenotes.controllers.volume.external_provisioner import ExternalProvisioner
    from kubenotes.controllers.volume.provisioner import ProvisionController

    for cls in (HostPathProvisioner, ExternalProvisioner):
        assert issubclass(cls, ProvisionController)
        assert not {"reconcile", "should_provision", "_provision_claim", "provisioning_failed", "should_delete",
                    "_delete_volume"} & set(vars(cls))
        assert {"provision", "delete", "provision_cleanup"} <= set(vars(cls))
