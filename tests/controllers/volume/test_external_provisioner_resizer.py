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
    assert st["capacity"] == {"storage": "1Gi"}  # until the kubelet's NodeExpandVolume (not the stand-in's)
    assert st["allocatedResources"] == {"storage": "2Gi"}
    assert st["allocatedResourceStatuses"] == {"storage": "NodeResizePending"}
    assert [(x["type"], x["status"], x.get("message")) for x in st["conditions"]] == [
        ("FileSystemResizePending", "True", MSG_FILE_SYSTEM_RESIZE_PENDING)]
    assert [e["message"] for e in _events(c, "Resizing")] == [f"External resizer is resizing volume {pv_name}"]
    assert [e["message"] for e in _events(c, "FileSystemResizeRequired")] == [
        "Require file system resize of volume on node"]
    c.run(until=130)  # pod deleted at 100, claim at 110: Released, Delete -> DeleteVolume, then the PV goes
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


def test_real_kubectl_storage_columns_and_describe_pvc_events(kubectl_required):
    """The real kubectl against the served model: v1.34's server-side columns of the six storage kinds, and
    ``describe pvc`` with the sidecars' Events and the resize condition."""
    from kubenotes.sim.serve import serve

    c = build([sample("storage", "csi-provision.yaml")], kubelet="stand-in")
    c.run(until=25)
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    pv_name = claim["spec"]["volumeName"]
    s = serve(c, port=0, time_scale=0)
    try:
        r = s.kubectl("get", "pv,pvc,sc,volumeattachments,csinodes,csidrivers")
        assert r.returncode == 0, r.stderr
        blocks = [[ln.split() for ln in b.splitlines()] for b in r.stdout.strip().split("\n\n")]
        heads = [b[0] for b in blocks]
        assert heads == [
            ["NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS", "CLAIM", "STORAGECLASS",
             "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"],
            ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"],
            ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"],
            ["NAME", "ATTACHER", "PV", "NODE", "ATTACHED", "AGE"],
            ["NAME", "DRIVERS", "AGE"],
            ["NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS", "REQUIRESREPUBLISH",
             "MODES", "AGE"]]
        pv_row, pvc_row, sc_row, va_row, csn_rows, drv_row = (blocks[0][1], blocks[1][1], blocks[2][1], blocks[3][1],
                                                              blocks[4][1:], blocks[5][1])
        assert pv_row[:7] == [f"persistentvolume/{pv_name}", "2Gi", "RWO", "Delete", "Bound", "default/fast-data",
                              "csi-hostpath-wffc"]
        assert pvc_row[:6] == ["persistentvolumeclaim/fast-data", "Bound", pv_name, "1Gi", "RWO", "csi-hostpath-wffc"]
        assert sc_row[:5] == ["storageclass.storage.k8s.io/csi-hostpath-wffc", DRIVER, "Delete",
                              "WaitForFirstConsumer", "true"]
        assert va_row[1:5] == [DRIVER, pv_name, claim["metadata"]["annotations"][ANN_SELECTED_NODE], "true"]
        assert [x[:2] for x in csn_rows] == [["csinode.storage.k8s.io/csi-node-1", "1"],
                                             ["csinode.storage.k8s.io/csi-node-2", "1"]]
        assert drv_row[:7] == [f"csidriver.storage.k8s.io/{DRIVER}", "true", "true", "false", "<unset>", "false",
                               "Persistent"]
        r = s.kubectl("describe", "pvc", "fast-data")
        assert r.returncode == 0, r.stderr
        out = r.stdout
        assert f"Volume:        {pv_name}" in out and "Capacity:      1Gi" in out and "Used By:       fast-app" in out
        assert "FileSystemResizePending   True" in out and MSG_FILE_SYSTEM_RESIZE_PENDING in out
        events = out.split("Events:", 1)[1]
        for reason, source, message in (
                ("Provisioning", f"{DRIVER}_csi-hostpathplugin-0_",
                 'External provisioner is provisioning volume for claim "default/fast-data"'),
                ("ProvisioningSucceeded", f"{DRIVER}_csi-hostpathplugin-0_", f"Successfully provisioned volume {pv_name}"),
                ("Resizing", f"external-resizer {DRIVER}", f"External resizer is resizing volume {pv_name}"),
                ("FileSystemResizeRequired", f"external-resizer {DRIVER}",
                 "Require file system resize of volume on node")):
            line = next(ln for ln in events.splitlines() if ln.split()[1:2] == [reason])
            assert source in line and line.endswith(message), line
    finally:
        s.stop()


def test_a_pv_object_that_cannot_be_written_deletes_the_volume_again():
    from kubenotes.apiserver.status import new_forbidden

    objs = _objects()
    for o in objs:
        if o["kind"] == "StorageClass":
            o["volumeBindingMode"] = "Immediate"
    c = Cluster(objs, kubelet="stand-in")
    prov = c.controllers[f"csi-provisioner/{DRIVER}"]
    create = prov.client.create

    def refuse_pvs(resource, *args, **kwargs):
        if resource == "persistentvolumes":
            raise new_forbidden("", "persistentvolumes", "", "denied for the test")
        return create(resource, *args, **kwargs)

    prov.client.create = refuse_pvs
    c.run(until=2.5)  # retried with back-off (and on the claim's updates)
    methods = [t["method"] for t in c.csi[DRIVER].trace if t["service"] == "Controller"]
    assert len(methods) >= 4 and methods == ["CreateVolume", "DeleteVolume"] * (len(methods) // 2)
    assert c.csi[DRIVER].volumes == {} and c.list("persistentvolumes") == []
    (failed,) = _events(c, "ProvisioningFailed")
    assert failed["message"].startswith("Error creating provisioned PV object for claim default/fast-data: ")
    assert failed["message"].endswith("Deleting the volume.")


def test_a_selected_node_that_is_gone_is_handed_back_to_the_scheduler():
    c = Cluster(_objects(), kubelet="stand-in", scheduler=False)
    c.run(until=1)
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    claim["metadata"].setdefault("annotations", {})[ANN_SELECTED_NODE] = "gone-node"
    c.client.update("persistentvolumeclaims", claim, NS)
    c.run(until=3)
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    assert ANN_SELECTED_NODE not in claim["metadata"]["annotations"]
    assert [e["message"] for e in _events(c, "ProvisioningFailed")] == ['node "gone-node" not found']
    assert _calls(c, "CreateVolume") == []
