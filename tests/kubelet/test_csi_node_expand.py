"""The kubelet's node expansion of a grown CSI claim (``NodeExpandVolume``), after upstream v1.34.

After kubernetes/kubernetes@v1.34.0 pkg/volume/util/operationexecutor/node_expander_test.go
(``TestNodeExpander``: a claim ``NodeResizePending`` or ``NodeResizeInProgress`` is expanded and its resize
status removed; one without a resize status is not expanded; a failed expansion leaves ``NodeResizeInProgress``)
and pkg/volume/csi/expander_test.go (``TestNodeExpand``: no ``EXPAND_VOLUME`` capability is an error), and
data/storage/csi-provision.yaml end to end.
"""

from __future__ import annotations

import copy

import pytest

from kubenotes.csi.hostpath import HostPathDriver
from kubenotes.csi.spec import INTERNAL, STAGE_UNSTAGE_VOLUME, CSIError
from kubenotes.data import sample
from kubenotes.kubelet.csi import (
    FILE_SYSTEM_RESIZE_SUCCESSFUL,
    CSIVolumePlugin,
    NodeExpandError,
    csi_volume_spec,
    target_path,
)
from kubenotes.sim.cli import build

NS = "default"


def _plugin(resize_status="NodeResizePending", capabilities=None, fail=None):
    driver = HostPathDriver()
    driver.add_volume("h", 2**31, "n1")
    node = driver.node("n1")
    if capabilities is not None:
        node.NodeGetCapabilities = lambda req: {"capabilities": [{"rpc": {"type": t}} for t in capabilities]}
    if fail is not None:
        def expand(req):
            driver.trace.append({"method": "NodeExpandVolume", "request": req})
            raise CSIError(INTERNAL, fail)
        node.NodeExpandVolume = expand
    status = {"phase": "Bound", "capacity": {"storage": "1Gi"}, "allocatedResources": {"storage": "2Gi"},
              "conditions": [{"type": "FileSystemResizePending", "status": "True"}]}
    if resize_status:
        status["allocatedResourceStatuses"] = {"storage": resize_status}
    objs = {("persistentvolumeclaims", NS, "data"): {
                "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": NS},
                "spec": {"volumeName": "pv-a", "resources": {"requests": {"storage": "2Gi"}}}, "status": status},
            ("persistentvolumes", "", "pv-a"): {
                "metadata": {"name": "pv-a"}, "spec": {"capacity": {"storage": "2Gi"}, "accessModes": ["ReadWriteOnce"],
                                                       "csi": {"driver": driver.name, "volumeHandle": "h"}}}}
    writes, events = [], []

    def update(claim):
        writes.append(copy.deepcopy(claim["status"]))
        objs[("persistentvolumeclaims", NS, "data")] = claim
        return claim

    plugin = CSIVolumePlugin(lambda r, ns, n: objs.get((r, ns, n)), "n1", lambda name: node,
                             update_claim_status=update, record_event=lambda *e: events.append(e))
    spec = csi_volume_spec(plugin.get, {"metadata": {"namespace": NS}},
                           {"name": "d", "persistentVolumeClaim": {"claimName": "data"}})
    return plugin, spec, driver, objs, writes, events


POD = {"kind": "Pod", "metadata": {"name": "app", "namespace": NS, "uid": "u1"}}


@pytest.mark.parametrize("resize_status", ["NodeResizePending", "NodeResizeInProgress"])
def test_pending_node_resize_is_expanded_and_finished(resize_status):
    plugin, spec, driver, objs, writes, events = _plugin(resize_status)
    assert plugin.node_expand(spec, POD, "/target", "/staging") == "2Gi"
    (call,) = [t for t in driver.trace if t["method"] == "NodeExpandVolume"]
    assert call["request"]["capacity_range"] == {"required_bytes": 2**31}
    assert (call["request"]["volume_path"], call["request"]["staging_target_path"]) == ("/target", "/staging")
    # MarkNodeExpansionInProgress, then MarkFSResizeFinished
    assert [w.get("allocatedResourceStatuses") for w in writes] == [{"storage": "NodeResizeInProgress"}, None]
    assert writes[-1] == {"phase": "Bound", "capacity": {"storage": "2Gi"}, "allocatedResources": {"storage": "2Gi"}}
    message = 'MountVolume.NodeExpandVolume succeeded for volume "pv-a" n1'
    assert [(e[0]["kind"], e[1:]) for e in events] == [
        ("Pod", ("Normal", FILE_SYSTEM_RESIZE_SUCCESSFUL, message)),
        ("PersistentVolumeClaim", ("Normal", FILE_SYSTEM_RESIZE_SUCCESSFUL, message))]


def test_no_resize_status_or_read_only_is_not_expanded():
    """runPreCheck: without NodeResizePending/InProgress the node does not expand (the controller's part first)."""
    for status in ("", "ControllerResizeInProgress"):
        plugin, spec, driver, _, writes, _ = _plugin(status)
        assert plugin.node_expand(spec, POD, "/target") is None
        assert writes == [] and not any(t["method"] == "NodeExpandVolume" for t in driver.trace)
    plugin, spec, driver, _, writes, _ = _plugin()
    assert plugin.node_expand({**spec, "read_only": True}, POD, "/target") is None and writes == []


def test_failed_expansion_keeps_node_resize_in_progress():
    plugin, spec, driver, objs, writes, events = _plugin(fail="disk busy")
    with pytest.raises(NodeExpandError, match="^Expander.NodeExpand failed to expand the volume : rpc error: code = "
                                              "Internal desc = disk busy$"):
        plugin.node_expand(spec, POD, "/target")
    st = objs[("persistentvolumeclaims", NS, "data")]["status"]
    assert st["allocatedResourceStatuses"] == {"storage": "NodeResizeInProgress"}
    assert st["capacity"] == {"storage": "1Gi"} and events == []


def test_driver_without_expand_volume_capability():
    plugin, spec, driver, _, _, _ = _plugin(capabilities=[STAGE_UNSTAGE_VOLUME])
    with pytest.raises(NodeExpandError, match="found CSI plugin kubernetes.io/csi/hostpath.csi.k8s.io to not "
                                              "support node expansion"):
        plugin.node_expand(spec, POD, "/target")


def test_grown_claim_finishes_through_the_kubelet_in_csi_provision():
    """csi-provision.yaml: grown to 2Gi at t=20 while mounted; the pod's next sync expands it on the node."""
    c = build([sample("storage", "csi-provision.yaml")])
    c.run(until=80)
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    assert claim["status"]["allocatedResourceStatuses"] == {"storage": "NodeResizePending"}
    c.run(until=95)
    claim = c.get("persistentvolumeclaims", "fast-data", NS)
    pv_name = claim["spec"]["volumeName"]
    assert claim["status"]["capacity"] == {"storage": "2Gi"}
    assert "allocatedResourceStatuses" not in claim["status"] and "conditions" not in claim["status"]
    (call,) = [t for t in c.csi["hostpath.csi.k8s.io"].trace if t["method"] == "NodeExpandVolume"]
    pod = c.get("pods", "fast-app", NS)
    assert call["node"] == pod["spec"]["nodeName"] and 80 < call["time"] < 95
    assert call["request"]["volume_path"] == target_path(pod["metadata"]["uid"], pv_name)
    assert call["request"]["capacity_range"] == {"required_bytes": 2 * 2**30}
    got = sorted((e["involvedObject"]["kind"], e["message"]) for e in c.server.list("events")
                 if e["reason"] == FILE_SYSTEM_RESIZE_SUCCESSFUL)
    message = f'MountVolume.NodeExpandVolume succeeded for volume "{pv_name}" {pod["spec"]["nodeName"]}'
    assert got == [("PersistentVolumeClaim", message), ("Pod", message)]


def test_claim_grown_while_unused_is_expanded_at_the_next_mount():
    """expandVolumeDuringMount: the pod is gone when the claim grows; the next pod's mount expands it."""
    import yaml

    from kubenotes.sim.cluster import Cluster

    docs = [d for d in yaml.safe_load_all(sample("storage", "csi-provision.yaml").read_text())
            if d and d["kind"] != "Scenario"]
    pod = next(d for d in docs if d["kind"] == "Pod")
    c = Cluster(docs)
    c.run(until=19)
    c.client.delete("pods", "fast-app", NS)
    c.run(until=30)
    claim = c.client.get("persistentvolumeclaims", "fast-data", NS)
    claim["spec"]["resources"]["requests"]["storage"] = "2Gi"
    c.client.update("persistentvolumeclaims", claim, NS)
    c.run(until=40)
    assert c.get("persistentvolumeclaims", "fast-data", NS)["status"]["allocatedResourceStatuses"] == {
        "storage": "NodeResizePending"}
    assert c.get("pods", "fast-app", NS) is None
    again = copy.deepcopy(pod)
    again["metadata"] = {"name": "fast-app-2", "namespace": NS}
    c.client.create("pods", again, NS)
    c.run(until=80)
    trace = [(t["method"], t["time"]) for t in c.csi["hostpath.csi.k8s.io"].trace
             if t["method"] in ("NodePublishVolume", "NodeExpandVolume")]
    assert [m for m, _ in trace] == ["NodePublishVolume", "NodePublishVolume", "NodeExpandVolume"]
    assert trace[-1][1] == trace[-2][1]  # right after the new pod's SetUp, in the same operation
    assert c.get("persistentvolumeclaims", "fast-data", NS)["status"]["capacity"] == {"storage": "2Gi"}
    assert c.get("pods", "fast-app-2", NS)["status"]["phase"] == "Running"
