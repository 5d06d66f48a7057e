"""The hostpath CSI driver model answers each RPC with the CSI spec's codes, and traces every call."""

from __future__ import annotations

import pytest

from kubenotes.csi.hostpath import MAX_VOLUME_SIZE_BYTES, TOPOLOGY_KEY, HostPathDriver
from kubenotes.csi.spec import (
    ALREADY_EXISTS,
    FAILED_PRECONDITION,
    INVALID_ARGUMENT,
    NOT_FOUND,
    OK,
    OUT_OF_RANGE,
    RESOURCE_EXHAUSTED,
    CSIError,
)

RWO = {"access_mode": {"mode": "SINGLE_NODE_WRITER"}, "mount": {}}
RWX = {"access_mode": {"mode": "MULTI_NODE_MULTI_WRITER"}, "mount": {}}
GI = 2**30


def _driver(**kw):
    d = HostPathDriver(**kw)
    d.node("n1"), d.node("n2")
    return d


def _create(d, name="pvc-a", size=GI, cap=RWO, node=None):
    req = {"name": name, "capacity_range": {"required_bytes": size}, "volume_capabilities": [cap]}
    if node:
        req["accessibility_requirements"] = {"preferred": [{"segments": {TOPOLOGY_KEY: node}}]}
    return d.CreateVolume(req)["volume"]


def _code(fn, req):
    with pytest.raises(CSIError) as e:
        fn(req)
    return e.value.code


def test_identity():
    d = HostPathDriver(name="hostpath.csi.k8s.io")
    assert d.GetPluginInfo()["name"] == "hostpath.csi.k8s.io"
    assert d.Probe()["ready"]["value"] is True
    types = [c["service"]["type"] for c in d.GetPluginCapabilities()["capabilities"]]
    assert types == ["CONTROLLER_SERVICE", "VOLUME_ACCESSIBILITY_CONSTRAINTS"]


def test_create_volume_is_idempotent_by_name_and_refuses_another_size():
    d = _driver()
    a = _create(d)
    assert _create(d) == a
    assert _code(d.CreateVolume, {"name": "pvc-a", "capacity_range": {"required_bytes": 2 * GI},
                                  "volume_capabilities": [RWO]}) == ALREADY_EXISTS
    assert len(d.volumes) == 1
    assert _code(d.CreateVolume, {"capacity_range": {"required_bytes": GI}, "volume_capabilities": [RWO]}) \
        == INVALID_ARGUMENT


def test_create_volume_out_of_range_and_resource_exhausted():
    d = _driver(capacity_bytes=3 * GI)
    assert _code(d.CreateVolume, {"name": "big", "capacity_range": {"required_bytes": MAX_VOLUME_SIZE_BYTES + 1},
                                  "volume_capabilities": [RWO]}) == OUT_OF_RANGE
    a = _create(d, "a", 2 * GI, node="n1")
    assert a["accessible_topology"] == [{"segments": {TOPOLOGY_KEY: "n1"}}]
    assert _code(d.CreateVolume, {"name": "b", "capacity_range": {"required_bytes": 2 * GI},
                                  "volume_capabilities": [RWO], "accessibility_requirements": {
                                      "preferred": [{"segments": {TOPOLOGY_KEY: "n1"}}]}}) == RESOURCE_EXHAUSTED
    _create(d, "b", 2 * GI, node="n2")  # room on the other node
    assert d.GetCapacity({"accessible_topology": {"segments": {TOPOLOGY_KEY: "n1"}}})["available_capacity"] == GI


def test_controller_publish_codes():
    d = _driver(max_volumes_per_node=1)
    v = _create(d)["volume_id"]
    w = _create(d, "pvc-b")["volume_id"]
    assert _code(d.ControllerPublishVolume, {"volume_id": "nope", "node_id": "n1", "volume_capability": RWO}) \
        == NOT_FOUND
    assert _code(d.ControllerPublishVolume, {"volume_id": v, "node_id": "n9", "volume_capability": RWO}) == NOT_FOUND
    assert d.ControllerPublishVolume({"volume_id": v, "node_id": "n1", "volume_capability": RWO}) \
        == {"publish_context": {}}
    # idempotent: the same node again
    d.ControllerPublishVolume({"volume_id": v, "node_id": "n1", "volume_capability": RWO})
    # single-node volume elsewhere
    assert _code(d.ControllerPublishVolume, {"volume_id": v, "node_id": "n2", "volume_capability": RWO}) \
        == FAILED_PRECONDITION
    # n1 has max_volumes_per_node=1 attached already
    assert _code(d.ControllerPublishVolume, {"volume_id": w, "node_id": "n1", "volume_capability": RWO}) \
        == RESOURCE_EXHAUSTED
    assert d.volumes[v]["published_to"] == ["n1"]


def test_multi_node_volume_publishes_to_two_nodes_and_unpublish_is_idempotent():
    d = _driver()
    v = _create(d, cap=RWX)["volume_id"]
    for n in ("n1", "n2"):
        d.ControllerPublishVolume({"volume_id": v, "node_id": n, "volume_capability": RWX})
    assert d.volumes[v]["published_to"] == ["n1", "n2"]
    d.ControllerUnpublishVolume({"volume_id": v, "node_id": "n1"})
    d.ControllerUnpublishVolume({"volume_id": v, "node_id": "n1"})
    d.ControllerUnpublishVolume({"volume_id": "gone", "node_id": "n1"})
    assert d.volumes[v]["published_to"] == ["n2"]


def test_delete_volume_in_use_is_failed_precondition_and_unknown_is_ok():
    d = _driver()
    v = _create(d)["volume_id"]
    d.ControllerPublishVolume({"volume_id": v, "node_id": "n1", "volume_capability": RWO})
    assert _code(d.DeleteVolume, {"volume_id": v}) == FAILED_PRECONDITION
    d.ControllerUnpublishVolume({"volume_id": v, "node_id": "n1"})
    assert d.DeleteVolume({"volume_id": v}) == {}
    assert d.DeleteVolume({"volume_id": v}) == {}
    assert d.volumes == {}


def test_node_stage_publish_and_their_codes():
    d = _driver()
    v = _create(d)["volume_id"]
    n1 = d.node("n1")
    staging, target = "/var/lib/kubelet/plugins/kubernetes.io/csi/x/globalmount", "/var/lib/kubelet/pods/u/vol"
    assert _code(n1.NodeStageVolume, {"volume_id": "nope", "staging_target_path": staging,
                                      "volume_capability": RWO}) == NOT_FOUND
    assert _code(n1.NodePublishVolume, {"volume_id": v, "target_path": target, "volume_capability": RWO,
                                        "staging_target_path": staging}) == FAILED_PRECONDITION
    n1.NodeStageVolume({"volume_id": v, "staging_target_path": staging, "volume_capability": RWO})
    n1.NodeStageVolume({"volume_id": v, "staging_target_path": staging, "volume_capability": RWO})
    n1.NodePublishVolume({"volume_id": v, "target_path": target, "volume_capability": RWO,
                          "staging_target_path": staging})
    assert d.volumes[v]["staged"] == [staging] and d.volumes[v]["published"] == [target]
    n1.NodeUnpublishVolume({"volume_id": v, "target_path": target})
    n1.NodeUnpublishVolume({"volume_id": v, "target_path": target})
    n1.NodeUnstageVolume({"volume_id": v, "staging_target_path": staging})
    assert d.volumes[v]["staged"] == [] and d.volumes[v]["published"] == []


def test_expand_and_node_info():
    d = _driver(max_volumes_per_node=16)
    v = _create(d)["volume_id"]
    assert d.ControllerExpandVolume({"volume_id": v, "capacity_range": {"required_bytes": 2 * GI}}) \
        == {"capacity_bytes": 2 * GI, "node_expansion_required": True}
    assert d.node("n1").NodeExpandVolume({"volume_id": v, "volume_path": "/p"})["capacity_bytes"] == 2 * GI
    assert _code(d.ControllerExpandVolume, {"volume_id": "nope", "capacity_range": {"required_bytes": GI}}) \
        == NOT_FOUND
    info = d.node("n2").NodeGetInfo()
    assert info == {"node_id": "n2", "max_volumes_per_node": 16,
                    "accessible_topology": {"segments": {TOPOLOGY_KEY: "n2"}}}


def test_every_call_is_traced_with_time_node_and_code():
    now = [0.0]
    d = HostPathDriver(clock=lambda: now[0])
    d.node("n1")
    now[0] = 5.0
    v = _create(d)["volume_id"]
    now[0] = 7.0
    with pytest.raises(CSIError):
        d.node("n1").NodePublishVolume({"volume_id": v, "target_path": "/t", "volume_capability": RWO})
    assert [(e["time"], e["service"], e["method"], e["node"], e["code"]) for e in d.trace] == [
        (5.0, "Controller", "CreateVolume", "", OK),
        (7.0, "Node", "NodePublishVolume", "n1", FAILED_PRECONDITION)]
    assert d.trace[0]["response"]["volume"]["volume_id"] == v
    assert d.trace[1]["error"].startswith("rpc error: code = FailedPrecondition desc = ")
