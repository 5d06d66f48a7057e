"""Chapter 05.03's runs and queries (kubenotes.sim.storage) over the data/storage scenario files."""

from __future__ import annotations

import pytest

from kubenotes.data import sample
from kubenotes.sim.cli import run
from kubenotes.sim.storage import (
    attach_timeline,
    binding_volumes,
    claim_binding,
    csi_volume_timeline,
    schedule_volume_filters,
    simulate_csi_attach,
    simulate_node_failure_rwo,
    simulate_statefulset_pod_deletion,
    storage_graph,
)


def _verdicts(result):
    return {r["name"]: r["verdict"] for r in result["rows"]}


def test_immediate_claim_takes_the_fewest_access_modes_before_the_smallest():
    r = claim_binding(3)
    assert r["controller"] == "disk-10g" and not r["delayed"] and r["nodes"] == {}
    v = _verdicts(r)
    assert v["nfs-5g"].startswith("fits, but offers more access modes")
    assert v["disk-2g"] == v["nfs-1g"] == "too small"
    assert v["nfs-ro-8g"] == "no RWO" and v["ssd-5g"] == "class fast"


def test_immediate_binding_ignores_node_affinity_and_wait_for_first_consumer_asks_each_node():
    assert claim_binding(15)["controller"] == "local-a-20g"
    r = claim_binding(15, binding_mode="WaitForFirstConsumer")
    assert r["controller"] is None
    assert r["event"] == ("WaitForFirstConsumer", "waiting for first consumer to be created before binding")
    assert r["nodes"] == {"node-a": "local-a-20g", "node-b": "local-b-50g"}
    assert _verdicts(r)["local-b-50g"] == "chosen on node-b"
    assert claim_binding(30, binding_mode="WaitForFirstConsumer")["nodes"] == {"node-a": None, "node-b": "local-b-50g"}


@pytest.mark.parametrize("args, expected", [
    ((60,), None),                                           # nothing that large: Pending
    ((2, "ReadWriteMany"), "nfs-5g"),                        # only the NFS shares offer RWX
    ((2, "ReadOnlyMany"), "nfs-ro-8g"),
    ((4, "ReadWriteOncePod", "fast"), "ssd-rwop-20g"),
    ((4, "ReadWriteOnce", "fast"), "ssd-5g"),
])
def test_claim_binding_cases(args, expected):
    assert claim_binding(*args)["controller"] == expected


def test_claim_binding_refuses_unknown_modes_in_one_line():
    with pytest.raises(ValueError, match="unknown access mode 'ReadWriteAll'"):
        claim_binding(1, "ReadWriteAll")
    with pytest.raises(ValueError, match="unknown volumeBindingMode 'Later'"):
        claim_binding(1, binding_mode="Later")


def test_claim_binding_does_not_change_the_given_volumes():
    vols = binding_volumes()
    claim_binding(3, volumes=vols)
    assert all("claimRef" not in v["spec"] for v in vols) and vols == binding_volumes()


def test_volume_filters_scenario_gives_one_reason_per_node_and_binds_on_node_a():
    last, attempts = schedule_volume_filters()
    assert "pod has unbound immediate PersistentVolumeClaims" in attempts[0]["message"]
    assert last["nodeName"] == "node-a"
    rejected = {n: [r for r in v.values() if r != "passed"] for n, v in last["filter"].items()}
    assert rejected == {"node-a": [], "node-b": ["node(s) didn't find available persistent volumes to bind"],
                        "node-c": ["node(s) had volume node affinity conflict"],
                        "node-d": ["node(s) exceed max volume count"]}


def test_volume_filters_file_runs_unchanged_under_simulate():
    c = run([sample("storage", "volume-filters.yaml")], until=30)
    assert [(p["spec"].get("nodeName"), p["status"]["phase"]) for p in c.list("pods")] == [("node-a", "Running")]
    bound = {v["metadata"]["name"]: (v["spec"].get("claimRef") or {}).get("name") for v in c.list("persistentvolumes")}
    assert bound == {"local-a": "cache", "local-b": None, "local-c": None, "local-d": None, "pv-db": "db-data"}


def test_csi_timeline_puts_the_attach_before_the_sandbox_and_the_unpublish_after_the_pod():
    c = simulate_csi_attach(60)
    rows = csi_volume_timeline(c, "default", "csi-app", "csi-node-1")
    calls = [(lane, call) for _, lane, call, _ in rows]
    assert [t for t, *_ in rows] == sorted(t for t, *_ in rows)
    assert calls.index(("attach/detach controller", "AttachVolume")) < calls.index(("kubelet CRI", "RunPodSandbox"))
    assert calls.index(("CSI Controller", "ControllerPublishVolume")) < calls.index(("kubelet CRI", "RunPodSandbox"))
    assert calls.index(("kubelet CRI", "StopContainer")) < calls.index(("CSI Controller", "ControllerUnpublishVolume"))
    assert ("kubelet volumes", "WaitForAttachAndMount") in calls
    assert (calls.index(("CSI Controller", "ControllerPublishVolume")) < calls.index(("CSI Node", "NodeStageVolume"))
            < calls.index(("CSI Node", "NodePublishVolume")) < calls.index(("kubelet CRI", "RunPodSandbox")))
    assert (calls.index(("CSI Node", "NodeUnpublishVolume")) < calls.index(("CSI Node", "NodeUnstageVolume"))
            < calls.index(("CSI Controller", "ControllerUnpublishVolume")))
    # only the pod's claim volume: no service-account token volume, no relist calls, no registration calls
    assert not any("kube-api-access" in d for _, lane, _, d in rows if lane == "kubelet volumes"
                   and not d.startswith("data,"))
    assert not {"ListPodSandbox", "NodeGetInfo", "GetPluginInfo"} & {call for _, call in calls}


def test_storage_graph_links_pod_claim_volume_attachment_and_node():
    g = storage_graph(simulate_csi_attach(25), "default", "csi-app")
    (va,) = [n for n in g if n.startswith("VolumeAttachment/")]
    assert set(g.successors("Pod/csi-app")) == {"Node/csi-node-1", "PersistentVolumeClaim/csi-data"}
    assert set(g.successors(va)) == {"PersistentVolume/pv-csi-data", "Node/csi-node-1"}
    assert g.edges["PersistentVolumeClaim/csi-data", "PersistentVolume/pv-csi-data"]["label"] == "spec.volumeName"


def test_statefulset_pod_deletion_keeps_claims_and_volumes():
    before, after = simulate_statefulset_pod_deletion()
    assert [(r["claim"], r["phase"], r["volume"]) for r in after] == [
        ("data-web-0", "Bound", "nfs-1g-a"), ("data-web-1", "Bound", "nfs-1g-b"), ("data-web-2", "Bound", "nfs-5g")]
    assert [r["claim_uid"] for r in before] == [r["claim_uid"] for r in after]
    assert [b["pod_uid"] == a["pod_uid"] for b, a in zip(before, after)] == [True, False, True]
    with pytest.raises(ValueError):
        simulate_statefulset_pod_deletion(90, 55)


def test_node_failure_force_delete_then_six_minute_force_detach():
    """node-failure-rwo.yaml as the chapter runs it: Multi-Attach, the force delete at 150 s, and the detach only
    maxWaitForUnmountDuration later (node-1 unhealthy and still listing the volume in volumesInUse)."""
    c = simulate_node_failure_rwo()
    rows = attach_timeline(c)
    multi = [d for _, _, what, d in rows if what == "Event FailedAttachVolume"]
    assert len(multi) == 1
    assert multi[0].startswith('Multi-Attach error for volume "pv-db" Volume is already used by pod(s) db-')
    old = multi[0].rsplit(" ", 1)[1]
    assert [r for r in rows if r[1] == "kubectl"] == [(150.0, "kubectl", "delete Pod", old)]
    ops = [(t, what, d) for t, who, what, d in rows if who == "attach/detach controller"]
    assert ops == [(15.0, "AttachVolume", "pv-db on node-1"),
                   (510.1, "DetachVolume",  # 150 s + maxWaitForUnmountDuration (360 s) + the 100 ms loop
                    "pv-db on node-1 (force: maxWaitForUnmountDuration expired)"),
                   (510.1, "AttachVolume", "pv-db on node-2")]
    assert [(p["spec"]["nodeName"], p["status"]["phase"]) for p in c.list("pods")] == [("node-2", "Running")]


def test_node_failure_out_of_service_taint_detaches_at_once():
    c = simulate_node_failure_rwo(None, 200, 300)
    ops = [(t, what, d) for t, who, what, d in attach_timeline(c) if who == "attach/detach controller"]
    assert ops == [(15.0, "AttachVolume", "pv-db on node-1"),
                   (220.0, "DetachVolume", "pv-db on node-1 (force: node has out-of-service taint)"),
                   (220.0, "AttachVolume", "pv-db on node-2")]
    assert [(p["spec"]["nodeName"], p["status"]["phase"]) for p in c.list("pods")] == [("node-2", "Running")]


def test_node_failure_without_the_delete_keeps_the_volume_on_the_dead_node():
    c = simulate_node_failure_rwo(None, None, 240)
    assert [va["spec"]["nodeName"] for va in c.list("volumeattachments")] == ["node-1"]
    assert sorted(p["status"]["phase"] for p in c.list("pods")) == ["Pending", "Running"]  # replacement waits
    with pytest.raises(ValueError, match="after the node fails"):
        simulate_node_failure_rwo(50)
    with pytest.raises(ValueError, match="out-of-service taint must come after the node fails"):
        simulate_node_failure_rwo(None, 50)


def test_node_failure_file_runs_unchanged_under_simulate():
    c = run([sample("storage", "node-failure-rwo.yaml")], until=520)
    assert [(va["spec"]["nodeName"], va["status"]["attached"]) for va in c.list("volumeattachments")] == [
        ("node-2", True)]
    assert [p["spec"]["nodeName"] for p in c.list("pods")] == ["node-2"]


def test_csi_timeline_leaves_out_another_pods_cri_calls_on_the_same_node():
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.scenario import cluster_options
    from kubenotes.sim.scenarios import load_scenario_file

    objects, scenario = load_scenario_file("storage/csi-attach.yaml")
    other = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "other", "namespace": "default"},
             "spec": {"nodeName": "csi-node-1", "containers": [{"name": "c", "image": "docker.io/library/busybox:1.36"}]}}
    node = "csi-node-1"
    for o in objects:  # csi-app shares the node with other
        if o["kind"] == "Pod":
            o["spec"]["nodeName"] = node
    other["spec"]["nodeName"] = node
    c = Cluster([*objects, other], **cluster_options([scenario]))
    c.run(until=30)
    rows = csi_volume_timeline(c, "default", "csi-app", node)
    cri = [call for _, lane, call, _ in rows if lane == "kubelet CRI"]
    assert cri == ["RunPodSandbox", "PullImage", "CreateContainer", "StartContainer"]
    assert c.client.get("pods", "other", "default")["status"]["phase"] == "Running"  # it did run there


def test_resize_timeline_orders_the_resizer_then_the_kubelet():
    from kubenotes.sim.storage import resize_timeline, simulate_claim_resize

    rows = resize_timeline(simulate_claim_resize(95))
    assert [(who.split("/")[0], what) for _, who, what, _ in rows if what != "claim"] == [
        ("csi-resizer", "Event Resizing"), ("CSI Controller", "ControllerExpandVolume"),
        ("csi-resizer", "Event FileSystemResizeRequired"), ("CSI Node csi-node-1", "NodeExpandVolume"),
        ("kubelet", "Event FileSystemResizeSuccessful")]
    statuses = [d.split("resize status ")[1].split(",")[0] for _, _, what, d in rows if what == "claim"]
    assert statuses[-4:] == ["ControllerResizeInProgress", "NodeResizePending", "NodeResizeInProgress", "-"]
    assert rows[-1][3] == "request 2Gi, capacity 2Gi, resize status -, conditions -"


def test_capacity_timeline_shows_the_objects_shrink_as_volumes_are_provisioned():
    from kubenotes.sim.storage import capacity_timeline, simulate_storage_capacity

    rows = capacity_timeline(simulate_storage_capacity(30))
    caps = [(t, what.split()[1], d.split(": ")[1]) for t, _, what, d in rows if what.startswith("CSIStorageCapacity")]
    assert [c[1:] for c in caps] == [("create", "capacity 10Gi, maximumVolumeSize 10Gi")] * 2 + [
        ("update", "capacity 5Gi, maximumVolumeSize 5Gi"), ("update", "capacity 2Gi, maximumVolumeSize 2Gi")]
    assert caps[-1][0] == 25.0
