"""Tests for kubenotes.kubelet.node_status (registration, node status, allocatable, Lease).

Cases ported from kubernetes/kubernetes@v1.34.0:

* pkg/kubelet/cm/node_container_manager_linux_test.go:
  TestNodeAllocatableReservationForScheduling (kube/system reserved, hard
  eviction as a quantity and as a percentage, ephemeral-storage) and
  TestNodeAllocatableForEnforcement (allocatable never negative).
* pkg/kubelet/kubelet_node_status_test.go: TestUpdateNewNodeStatus (capacity
  cpu 2 / memory 10E9 / pods 110, allocatable after a 200m cpu and 100E6
  memory reservation, the four conditions with the kubelet's reasons and
  messages, addresses, daemon endpoints, images biggest first capped at
  nodeStatusMaxImages), TestUpdateExistingNodeStatus (unchanged statuses keep
  lastTransitionTime, heartbeat moves), TestUpdateNodeStatusWithRuntimeStateError
  (NotReady with the runtime's error), TestUpdateDefaultLabels,
  TestRegisterWithApiServerWithTaint, TestNodeStatusHasChanged,
  TestUpdateNodeStatusAndVolumesInUseWithoutNodeLease (report frequency).
* pkg/kubelet/nodestatus/setters_test.go: TestMachineInfo (podsPerCore,
  hugepages reduce allocatable memory), TestImages (5 names per image).
* pkg/kubelet/nodelease/controller_test.go: TestNewNodeLease (holder,
  duration, owner reference, renewTime).
"""

from __future__ import annotations

import pytest

from kubenotes.api.quantity import Quantity
from kubenotes.kubelet.node_status import (
    MachineInfo,
    NodeConfig,
    initial_node,
    lease_renew_interval_seconds,
    new_lease,
    node_allocatable,
    node_allocatable_reservation,
    node_capacity,
    node_images,
    node_status_has_changed,
    renew_lease,
    set_node_status,
    should_post_node_status,
    update_default_labels,
)


def q(resources):
    return {k: Quantity.parse(v) for k, v in resources.items()}


def s(resources):
    return {k: str(v) for k, v in resources.items()}


@pytest.mark.parametrize("kube, system, eviction, capacity, expected", [
    ({"cpu": "100m", "memory": "100Mi"}, {"cpu": "50m", "memory": "50Mi"}, {},
     {"cpu": "10", "memory": "10Gi"}, {"cpu": "150m", "memory": "150Mi"}),
    ({"cpu": "100m", "memory": "100Mi"}, {"cpu": "50m", "memory": "50Mi"}, {"memory.available": "100Mi"},
     {"cpu": "10", "memory": "10Gi"}, {"cpu": "150m", "memory": "250Mi"}),
    ({"cpu": "100m", "memory": "100Mi"}, {"cpu": "50m", "memory": "50Mi"}, {"memory.available": "5%"},
     {"cpu": "10", "memory": "10Gi"}, {"cpu": "150m", "memory": "694157320"}),  # float32 percentage
    ({}, {}, {}, {"cpu": "10", "memory": "10Gi"}, {}),
    ({"cpu": "100m"}, {}, {}, {"cpu": "10", "memory": "10Gi"}, {"cpu": "100m"}),
    ({"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "100Mi"},
     {"cpu": "50m", "memory": "50Mi", "ephemeral-storage": "50Mi"}, {"nodefs.available": "100Mi"},
     {"cpu": "10", "memory": "10Gi", "ephemeral-storage": "10Gi"},
     {"cpu": "150m", "memory": "150Mi", "ephemeral-storage": "250Mi"}),
])
def test_node_allocatable_reservation_for_scheduling(kube, system, eviction, capacity, expected):
    assert s(node_allocatable_reservation(q(capacity), kube, system, eviction)) == expected


def test_allocatable_never_negative():
    cap = q({"cpu": "1", "memory": "100Mi", "pods": "110", "ephemeral-storage": "1Gi"})
    alloc = node_allocatable(cap, NodeConfig(kube_reserved={"cpu": "2", "memory": "1Gi"}, eviction_hard={}))
    assert str(alloc["cpu"]) == "0" and str(alloc["memory"]) == "0" and str(alloc["pods"]) == "110"


def test_default_eviction_thresholds_reduce_allocatable():
    cap = q({"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"})
    alloc = node_allocatable(cap, NodeConfig())
    assert str(alloc["memory"]) == "16284Mi"                          # 16Gi - 100Mi
    assert alloc["ephemeral-storage"].int_value() == 107374182400 - 10737418400  # float32(10%)


def test_machine_info_pods_per_core_and_hugepages():
    machine = MachineInfo(num_cores=2, memory_capacity_bytes=10 * 10**9, hugepages={"2Mi": 100})
    cap = node_capacity(machine, NodeConfig(pods_per_core=10))
    assert str(cap["pods"]) == "20" and str(cap["hugepages-2Mi"]) == "200Mi"
    cap = node_capacity(machine, NodeConfig(pods_per_core=100))
    assert str(cap["pods"]) == "110"
    alloc = node_allocatable(cap, NodeConfig(eviction_hard={}))
    assert alloc["memory"].int_value() == 10 * 10**9 - 200 * 2**20


def images(n):
    return [{"repoTags": [f"img{i}:v1"], "repoDigests": [f"img{i}@sha256:{i}"], "size": 1000 * (i + 1)}
            for i in range(n)]


def test_update_new_node_status():
    machine = MachineInfo(num_cores=2, memory_capacity_bytes=10 * 10**9, rootfs_capacity_bytes=5000 * 10**6,
                          machine_id="123", system_uuid="abc", boot_id="1b3", kernel_version="3.16.0-0.bpo.4-amd64",
                          os_image="Debian GNU/Linux 7 (wheezy)")
    config = NodeConfig(node_name="testnode", node_ips=["127.0.0.1"], kube_reserved={"cpu": "200m", "memory": "100M"},
                        eviction_hard={}, kubelet_version="v1.33.0", container_runtime_version="test://1.5.0",
                        node_status_max_images=5)
    events = []
    node = set_node_status({"metadata": {"name": "testnode"}}, machine, config, 0, images=images(7), events=events,
                           format_time=lambda t: f"t{int(t)}")
    st = node["status"]
    def values(rl, keys):  # upstream compares quantities semantically; memory prints in BinarySI
        return {k: Quantity.parse(rl[k]).value for k in keys}
    assert values(st["capacity"], ("cpu", "memory", "pods", "ephemeral-storage")) == \
        values({"cpu": "2", "memory": "10G", "pods": "110", "ephemeral-storage": "5G"},
               ("cpu", "memory", "pods", "ephemeral-storage"))
    assert values(st["allocatable"], ("cpu", "memory", "pods")) == \
        values({"cpu": "1800m", "memory": "9900M", "pods": "110"}, ("cpu", "memory", "pods"))
    assert st["capacity"]["memory"] == "9765625Ki" and st["allocatable"]["cpu"] == "1800m"
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in st["conditions"]] == [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    assert all(c["lastHeartbeatTime"] == c["lastTransitionTime"] == "t0" for c in st["conditions"])
    assert events == ["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID", "NodeReady"]
    assert st["nodeInfo"] == {"machineID": "123", "systemUUID": "abc", "bootID": "1b3",
                              "kernelVersion": "3.16.0-0.bpo.4-amd64", "osImage": "Debian GNU/Linux 7 (wheezy)",
                              "containerRuntimeVersion": "test://1.5.0", "kubeletVersion": "v1.33.0", "kubeProxyVersion": "",
                              "operatingSystem": "linux", "architecture": "amd64"}
    assert st["addresses"] == [{"type": "InternalIP", "address": "127.0.0.1"},
                               {"type": "Hostname", "address": "testnode"}]
    assert st["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 10250}}
    assert [i["sizeBytes"] for i in st["images"]] == [7000, 6000, 5000, 4000, 3000]
    assert st["images"][0]["names"] == ["img6@sha256:6", "img6:v1"]


def test_image_names_capped_at_five():
    img = [{"repoTags": [f"t{i}" for i in range(4)], "repoDigests": ["d0", "d1"], "size": 1}]
    assert node_images(img)[0]["names"] == ["d0", "d1", "t0", "t1", "t2"]
    assert len(node_images(images(60))) == 50 and len(node_images(images(60), -1)) == 60


def test_update_existing_node_status_keeps_transition_times():
    machine, config = MachineInfo(), NodeConfig()
    node = initial_node(machine, config, 0, format_time=lambda t: f"t{int(t)}")
    original = {"status": dict(node["status"])}
    events = []
    set_node_status(node, machine, config, 10, events=events, format_time=lambda t: f"t{int(t)}")
    for c in node["status"]["conditions"]:
        assert c["lastHeartbeatTime"] == "t10" and c["lastTransitionTime"] == "t0"
    assert events == []
    assert not node_status_has_changed(original["status"], node["status"])
    # memory pressure flips MemoryPressure only
    set_node_status(node, machine, config, 20, memory_pressure=True, events=events, format_time=lambda t: f"t{int(t)}")
    mp = node["status"]["conditions"][0]
    assert (mp["status"], mp["reason"], mp["message"], mp["lastTransitionTime"]) == \
        ("True", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available", "t20")
    assert events == ["NodeHasInsufficientMemory"]
    assert node_status_has_changed(original["status"], node["status"])


def test_update_node_status_with_runtime_state_error():
    events = []
    node = initial_node(MachineInfo(), NodeConfig(), 0, errors=["container runtime is down"], events=events)
    ready = node["status"]["conditions"][-1]
    assert (ready["status"], ready["reason"], ready["message"]) == \
        ("False", "KubeletNotReady", "container runtime is down")
    assert events[-1] == "NodeNotReady"
    set_node_status(node, MachineInfo(), NodeConfig(), 10,
                    errors=["container runtime is down", "network plugin is not ready: cni config uninitialized"])
    assert node["status"]["conditions"][-1]["message"] == \
        "[container runtime is down, network plugin is not ready: cni config uninitialized]"
    set_node_status(node, MachineInfo(), NodeConfig(), 20, events=events)
    assert node["status"]["conditions"][-1]["reason"] == "KubeletReady" and events[-1] == "NodeReady"


def test_register_with_labels_taints_and_annotation():
    config = NodeConfig(node_name="w1", instance_type="m5.large", node_labels={"team": "a"},
                        register_with_taints=[{"key": "dedicated", "value": "db", "effect": "NoSchedule"}],
                        register_schedulable=False)
    node = initial_node(MachineInfo(architecture="arm64"), config, 0)
    labels = node["metadata"]["labels"]
    assert labels["kubernetes.io/hostname"] == "w1" and labels["kubernetes.io/arch"] == "arm64"
    assert labels["node.kubernetes.io/instance-type"] == "m5.large" and labels["team"] == "a"
    assert node["metadata"]["annotations"] == {"volumes.kubernetes.io/controller-managed-attach-detach": "true"}
    assert [t["key"] for t in node["spec"]["taints"]] == ["dedicated", "node.kubernetes.io/unschedulable"]
    assert node["spec"]["unschedulable"] is True
    cloud = initial_node(MachineInfo(), NodeConfig(external_cloud_provider=True), 0)
    assert cloud["spec"]["taints"] == [{"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true",
                                        "effect": "NoSchedule"}]
    assert "unschedulable" not in cloud["spec"]
    assert "node.kubernetes.io/instance-type" not in initial_node(MachineInfo(), NodeConfig(), 0)["metadata"]["labels"]


def test_update_default_labels():
    initial = {"metadata": {"labels": {"kubernetes.io/hostname": "new-hostname", "kubernetes.io/os": "new-os",
                                       "kubernetes.io/arch": "new-arch"}}}
    existing = {"metadata": {"labels": {"kubernetes.io/hostname": "old-hostname", "kubernetes.io/os": "old-os",
                                        "kubernetes.io/arch": "old-arch", "please-persist": "foo"}}}
    assert update_default_labels(initial, existing)
    assert existing["metadata"]["labels"] == {"kubernetes.io/hostname": "new-hostname", "kubernetes.io/os": "new-os",
                                              "kubernetes.io/arch": "new-arch", "please-persist": "foo"}
    assert not update_default_labels(initial, existing)


def test_node_status_has_changed():
    base = {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "t0",
                            "lastTransitionTime": "t0"},
                           {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": "t0"}],
            "phase": ""}
    reordered = {"conditions": list(reversed(base["conditions"])), "phase": ""}
    assert not node_status_has_changed(base, reordered)
    assert node_status_has_changed(base, None) and not node_status_has_changed(None, None)
    changed = {"conditions": [dict(base["conditions"][0], lastTransitionTime="t5"), base["conditions"][1]]}
    assert node_status_has_changed(base, changed)
    assert node_status_has_changed(base, dict(base, phase="Running"))


def test_status_reported_on_change_or_every_report_frequency():
    st = {"conditions": [{"type": "Ready", "status": "True"}]}
    assert should_post_node_status(None, st, 0, None)                   # never reported
    assert not should_post_node_status(st, st, 290, 0)
    assert should_post_node_status(st, st, 300, 0)
    assert should_post_node_status(st, {"conditions": []}, 10, 0)
    assert should_post_node_status(st, st, 10, 0, pod_cidr_changed=True)


def test_node_lease():
    lease = new_lease("w1", 12.5, lease_duration_seconds=40)
    assert lease["apiVersion"] == "coordination.k8s.io/v1" and lease["kind"] == "Lease"
    assert lease["metadata"] == {"name": "w1", "namespace": "kube-node-lease"}
    assert lease["spec"] == {"holderIdentity": "w1", "leaseDurationSeconds": 40,
                             "renewTime": "2025-08-27T00:00:12.500000Z"}
    renewed = renew_lease(lease, "w1", 22.5, node_uid="uid-1")
    assert renewed["spec"]["renewTime"] == "2025-08-27T00:00:22.500000Z"
    assert renewed["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Node", "name": "w1",
                                                       "uid": "uid-1"}]
    assert lease["spec"]["renewTime"].endswith("12.500000Z")            # the input is not changed
    assert lease_renew_interval_seconds(40) == 10.0 and lease_renew_interval_seconds(60) == 15.0
