"""The CSI external-provisioner and external-resizer sidecars (data/storage/csi-provision.yaml and variants).

Provisioning: CreateVolume with the claim's size, the class parameters without ``csi.storage.k8s.io/`` keys and
the selected node preferred; the PV's ``spec.csi``, node affinity, annotations and finalizer; the failures
(``ProvisioningFailed``, back-off, ``RESOURCE_EXHAUSTED`` -> selected node removed). Deletion: DeleteVolume once,
then the PV goes. Resizing: ControllerExpandVolume, the PV grown, the claim's status (FileSystemResizePending,
or the capacity when the driver needs no node expansion, or infeasible).
"""

from __future__ import annotations

import copy

import pytest

from kubenotes.api.storagehelpers import ANN_SELECTED_NODE
from kubenotes.controllers.volume.external_provisioner import (
    PROVISIONER_ID_KEY,
    accessibility_requirements,
    check_error,
)
from kubenotes.controllers.volume.external_resizer import MSG_FILE_SYSTEM_RESIZE_PENDING
from kubenotes.controllers.volume.provisioner import PROVISIONER_FINALIZER
from kubenotes.data import sample
from kubenotes.sim.cli import build
from kubenotes.sim.cluster import Cluster

DRIVER = "hostpath.csi.k8s.io"
NS = "default"
TOPOLOGY_KEY = "topology.hostpath.csi/node"


def _objects(**claim_spec):
    """csi-provision.yaml's objects without its Scenario, the claim's spec updated with ``claim_spec``."""
    import yaml

    docs = [d for d in yaml.safe_load_all(sample("storage", "csi-provision.yaml").read_text())
            if d and d["kind"] != "Scenario"]
    for d in docs:
        if d["kind"] == "PersistentVolumeClaim":
            d["spec"].update(claim_spec)
    return docs


def _events(c, reason):
    return [e for e in c.list("events", NS) if e["reason"] == reason]


def _calls(c, method):
    return [t for t in c.csi[DRIVER].trace if t["method"] == method]


@pytest.fixture(scope="module")
def provisioned():
    c = build([sample("storage", "csi-provision.yaml")], kubelet="stand-in")
    c.run(until=10)
    return c


def test_create_volume_request_and_the_pv(provisioned):
    c = provisioned
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    node = claim["metadata"]["annotations"][ANN_SELECTED_NODE]
    pv_name = "pvc-" + claim["metadata"]["uid"]
    assert claim["status"]["phase"] == "Bound" and claim["spec"]["volumeName"] == pv_name
    assert c.get("pods", "fast-app", NS)["spec"]["nodeName"] == node
    (call,) = _calls(c, "CreateVolume")
    req = call["request"]
    assert req["name"] == pv_name and req["capacity_range"] == {"required_bytes": 2**30}
    assert req["parameters"] == {"kind": "fast"}  # csi.storage.k8s.io/fstype stripped
    assert req["volume_capabilities"] == [{"access_mode": {"mode": "SINGLE_NODE_WRITER"}, "mount": {"fs_type": "xfs"}}]
    assert req["accessibility_requirements"]["preferred"][0] == {"segments": {TOPOLOGY_KEY: node}}
    assert len(req["accessibility_requirements"]["requisite"]) == 2
    pv = c.get("persistentvolumes", pv_name)
    csi = pv["spec"]["csi"]
    assert csi["driver"] == DRIVER and csi["fsType"] == "xfs"
    assert csi["volumeHandle"] == call["response"]["volume"]["volume_id"]
    assert csi["volumeAttributes"][PROVISIONER_ID_KEY].endswith("-8081-" + DRIVER)
    assert pv["spec"]["capacity"] == {"storage": "1Gi"}
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    assert pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": TOPOLOGY_KEY, "operator": "In", "values": [node]}]}]
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == DRIVER
    assert PROVISIONER_FINALIZER in pv["metadata"]["finalizers"]
    assert c.get("nodes", node)["metadata"]["labels"][TOPOLOGY_KEY] == node
    (prov,) = _events(c, "Provisioning")
    assert prov["message"] == 'External provisioner is provisioning volume for claim "default/fast-data"'
    assert prov["source"]["component"].startswith(DRIVER + "_csi-hostpathplugin-0_")
    assert [e["message"] for e in _events(c, "ProvisioningSucceeded")] == [
        f"Successfully provisioned volume {pv_name}"]


def test_resize_then_delete_through_the_scenario():
    c = build([sample("storage", "csi-provision.yaml")], kubelet="stand-in")
    c.run(until=25)  # the scenario grows the claim to 2Gi at t=20
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    pv_name = claim["spec"]["volumeName"]
    (expand,) = _calls(c, "ControllerExpandVolume")
    assert expand["request"]["capacity_range"] == {"required_bytes": 2 * 2**30}
    assert c.get("persistentvolumes", pv_name)["spec"]["capacity"] == {"storage": "2Gi"}
    st = claim["status"]
    assert st["capacity"] == {"storage": "1Gi"}  # the kubelet's NodeExpandVolume is not modelled
    assert st["allocatedResources"] == {"storage": "2Gi"}
    assert st["allocatedResourceStatuses"] == {"storage": "NodeResizePending"}
    assert [(x["type"], x["status"], x.get("message")) for x in st["conditions"]] == [
        ("FileSystemResizePending", "True", MSG_FILE_SYSTEM_RESIZE_PENDING)]
    assert [e["message"] for e in _events(c, "Resizing")] == [f"External resizer is resizing volume {pv_name}"]
    assert [e["message"] for e in _events(c, "FileSystemResizeRequired")] == [
        "Require file system resize of volume on node"]
    c.run(until=60)  # pod deleted at 30, claim at 40: Released, Delete -> DeleteVolume, then the PV goes
    assert c.get("persistentvolumes", pv_name) is None
    assert [t["request"]["volume_id"] for t in _calls(c, "DeleteVolume")] == [expand["request"]["volume_id"]]
    assert c.csi[DRIVER].volumes == {}


def test_resize_without_node_expansion_sets_the_capacity():
    c = Cluster(_objects(), kubelet="stand-in")
    drv = c.csi[DRIVER]
    expand = drv.ControllerExpandVolume
    drv.ControllerExpandVolume = lambda req: {**expand(req), "node_expansion_required": False}
    c.run(until=5)
    c.client.patch("persistentvolumeclaims", "fast-data", {"spec": {"resources": {"requests": {"storage": "3Gi"}}}},
                   NS)
    c.run(until=10)
    st = c.get("persistentvolumeclaims", "fast-data", NS)["status"]
    assert st["capacity"] == {"storage": "3Gi"} and "conditions" not in st
    assert "allocatedResourceStatuses" not in st
    assert [e["message"] for e in _events(c, "VolumeResizeSuccessful")] == ["Resize volume succeeded"]


def test_resize_beyond_the_driver_maximum_is_infeasible():
    c = Cluster(_objects(), kubelet="stand-in")
    c.run(until=5)
    c.client.patch("persistentvolumeclaims", "fast-data", {"spec": {"resources": {"requests": {"storage": "2Ti"}}}},
                   NS)
    c.run(until=30)
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    assert claim["status"]["allocatedResourceStatuses"] == {"storage": "ControllerResizeInfeasible"}
    assert len(_calls(c, "ControllerExpandVolume")) == 1  # not retried until the claim changes
    (failed,) = _events(c, "VolumeResizeFailed")
    assert failed["message"].startswith(f'resize volume "{claim["spec"]["volumeName"]}" by resizer "{DRIVER}" '
                                        "failed: rpc error: code = OutOfRange")
    assert c.get("persistentvolumes", claim["spec"]["volumeName"])["spec"]["capacity"] == {"storage": "1Gi"}


def test_resource_exhausted_hands_the_claim_back_to_the_scheduler():
    c = Cluster(_objects(), kubelet="stand-in")
    c.csi[DRIVER].capacity_bytes = 2**29  # 512Mi per node: the 1Gi claim fits nowhere
    c.run(until=20)
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    assert claim["status"]["phase"] == "Pending" and c.list("persistentvolumes") == []
    creates = _calls(c, "CreateVolume")
    assert len(creates) >= 2 and {t["code"] for t in creates} == {"ResourceExhausted"}
    # each failure removed the selected node; the scheduler chose a node again and the provisioner retried
    assert {t["request"]["accessibility_requirements"]["preferred"][0]["segments"][TOPOLOGY_KEY]
            for t in creates} == {"csi-node-1", "csi-node-2"}
    assert ANN_SELECTED_NODE not in claim["metadata"].get("annotations", {}) or len(creates) > 2
    failed = _events(c, "ProvisioningFailed")
    assert failed and failed[0]["message"].startswith(
        'failed to provision volume with StorageClass "csi-hostpath-wffc": rpc error: code = ResourceExhausted')
    assert c.csi[DRIVER].volumes == {}  # nothing half-provisioned


def test_unknown_prefixed_parameter_fails_and_retries_with_back_off():
    objs = _objects()
    for o in objs:
        if o["kind"] == "StorageClass":
            o["parameters"]["csi.storage.k8s.io/colour"] = "red"
            o["volumeBindingMode"] = "Immediate"
    c = Cluster(objs, kubelet="stand-in")
    c.run(until=20)
    assert _calls(c, "CreateVolume") == [] and c.list("persistentvolumes") == []
    (failed,) = _events(c, "ProvisioningFailed")
    assert failed["message"] == ('failed to provision volume with StorageClass "csi-hostpath-wffc": failed to strip '
                                 'CSI Parameters of prefixed keys: found unknown parameter key '
                                 '"csi.storage.k8s.io/colour" with reserved namespace csi.storage.k8s.io/')
    # retried after 1, 2, 4, 8 s (--retry-interval-start 1 s, doubling): 5 attempts in the first 20 s
    assert failed["count"] == 5


def test_accessibility_requirements_errors_and_check_error():
    nodes = {"a": {"metadata": {"name": "a", "labels": {}}}}
    csn = [{"metadata": {"name": "a"}, "spec": {"drivers": [{"name": "d", "topologyKeys": ["k"]}]}}]
    with pytest.raises(ValueError, match="does not match topology keys"):
        accessibility_requirements("d", "c", csn, nodes, "a")
    assert accessibility_requirements("d", "c", csn, nodes) is None
    assert check_error("Internal", True) == "Finished" and check_error("Unavailable", True) == "Background"
    base = copy.deepcopy(nodes)
    base["a"]["metadata"]["labels"]["k"] = "a"
    assert accessibility_requirements("d", "c", csn, base)["requisite"] == [{"segments": {"k": "a"}}]
