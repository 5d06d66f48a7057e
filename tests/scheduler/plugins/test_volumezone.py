"""VolumeZone against upstream's volume_zone_test.go tables (TestSingleZone, TestMultiZone, TestWithBinding)."""

from __future__ import annotations

import types

import pytest
from lightkube.resources.core_v1 import PersistentVolume, PersistentVolumeClaim
from lightkube.resources.storage_v1 import StorageClass

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import volumezone as vz
from kubenotes.scheduler.snapshot import ClusterObjects
from kubenotes.scheduler.testing import make_node, make_pod

BETA_ZONE, BETA_REGION = vz.LABEL_FAILURE_DOMAIN_BETA_ZONE, vz.LABEL_FAILURE_DOMAIN_BETA_REGION
ZONE, REGION = vz.LABEL_TOPOLOGY_ZONE, vz.LABEL_TOPOLOGY_REGION
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
CONFLICT = (UU, ["node(s) had no available volume zone"])


def pv(name, labels):
    return PersistentVolume.from_dict({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name, "labels": labels}})


def pvc(name, volume_name=None, storage_class=None):
    spec = {}
    if volume_name:
        spec["volumeName"] = volume_name
    if storage_class:
        spec["storageClassName"] = storage_class
    return PersistentVolumeClaim.from_dict({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                            "metadata": {"name": name, "namespace": "default"}, "spec": spec})


def sc(name, mode=None):
    d = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name}, "provisioner": "example.com/p"}
    if mode:
        d["volumeBindingMode"] = mode
    return StorageClass.from_dict(d)


def pod_with_volume(claim):
    return make_pod("pod_1", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": claim}}])


def node(labels):
    n = make_node("host1")
    n.metadata.labels = dict(labels)
    return NodeInfo(n)


def run(objects, incoming, labels):
    pl = vz.new(None, types.SimpleNamespace(snapshot=None, objects=objects))
    cs = CycleState()
    pi = PodInfo(incoming)
    _, pre = pl.pre_filter(cs, pi, [])
    st = pl.filter(cs, pi, node(labels))
    return pre, st


def as_tuple(st):
    return None if st.is_success() else ("skip" if st.is_skip() else (st.code, st.reasons))


SINGLE_ZONE_OBJECTS = ClusterObjects(
    persistent_volumes=[
        pv("Vol_1", {BETA_ZONE: "us-west1-a"}),
        pv("Vol_2", {BETA_REGION: "us-west1", "uselessLabel": "none"}),
        pv("Vol_3", {BETA_REGION: "us-west1"}),
        pv("Vol_Stable_1", {ZONE: "us-west1-a"}),
        pv("Vol_Stable_2", {REGION: "us-west1", "uselessLabel": "none"}),
        pv("Vol_Stable_3", {ZONE: "us-west1-a", REGION: "us-west1-a"}),
    ],
    persistent_volume_claims=[
        pvc("PVC_1", "Vol_1"), pvc("PVC_2", "Vol_2"), pvc("PVC_3", "Vol_3"), pvc("PVC_4", "Vol_not_exist"),
        pvc("PVC_Stable_1", "Vol_Stable_1"), pvc("PVC_Stable_2", "Vol_Stable_2"), pvc("PVC_Stable_3", "Vol_Stable_3"),
    ],
)

SINGLE_ZONE = [
    ("pod without volume", make_pod("pod_1"), {BETA_ZONE: "us-west1-a"}, "skip", None),
    ("node without labels", pod_with_volume("PVC_1"), {}, None, None),
    ("beta zone label matched", pod_with_volume("PVC_1"), {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, None, None),
    ("beta region label matched", pod_with_volume("PVC_2"), {BETA_REGION: "us-west1", "uselessLabel": "none"}, None, None),
    ("beta region label doesn't match", pod_with_volume("PVC_2"), {BETA_REGION: "no_us-west1", "uselessLabel": "none"}, None, CONFLICT),
    ("beta zone label doesn't match", pod_with_volume("PVC_1"), {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"}, None, CONFLICT),
    ("zone label matched", pod_with_volume("PVC_Stable_1"), {ZONE: "us-west1-a", "uselessLabel": "none"}, None, None),
    ("region label matched", pod_with_volume("PVC_Stable_2"), {REGION: "us-west1", "uselessLabel": "none"}, None, None),
    ("region label doesn't match", pod_with_volume("PVC_Stable_2"), {REGION: "no_us-west1", "uselessLabel": "none"}, None, CONFLICT),
    ("zone label doesn't match", pod_with_volume("PVC_Stable_1"), {ZONE: "no_us-west1-a", "uselessLabel": "none"}, None, CONFLICT),
    ("pv with zone and region, node with only zone", pod_with_volume("PVC_Stable_3"), {ZONE: "us-west1-a"}, None, CONFLICT),
    ("pv with zone, node with beta zone", pod_with_volume("PVC_Stable_1"), {BETA_ZONE: "us-west1-a"}, None, CONFLICT),
    ("pv with beta label, node with ga label, matched", pod_with_volume("PVC_1"), {ZONE: "us-west1-a"}, None, None),
    ("pv with beta label, node with ga label, don't match", pod_with_volume("PVC_1"), {ZONE: "us-west1-b"}, None, CONFLICT),
]


@pytest.mark.parametrize("name,incoming,labels,want_pre,want", SINGLE_ZONE, ids=[c[0] for c in SINGLE_ZONE])
def test_single_zone(name, incoming, labels, want_pre, want):
    pre, st = run(SINGLE_ZONE_OBJECTS, incoming, labels)
    assert as_tuple(pre) == want_pre
    assert as_tuple(st) == want


MULTI_ZONE_OBJECTS = ClusterObjects(
    persistent_volumes=[
        pv("Vol_1", {BETA_ZONE: "us-west1-a"}),
        pv("Vol_2", {BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
        pv("Vol_3", {BETA_ZONE: "us-west1-c__us-west1-a"}),
        pv("Vol_Stable_1", {ZONE: "us-west1-a"}),
        pv("Vol_Stable_2", {ZONE: "us-west1-c__us-west1-a"}),
    ],
    persistent_volume_claims=[pvc("PVC_1", "Vol_1"), pvc("PVC_2", "Vol_2"), pvc("PVC_3", "Vol_3"), pvc("PVC_4", "Vol_not_exist"),
                              pvc("PVC_Stable_1", "Vol_Stable_1"), pvc("PVC_Stable_2", "Vol_Stable_2")],
)

MULTI_ZONE = [
    ("node without labels", "PVC_3", {}, None),
    ("beta zone label matched", "PVC_3", {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, None),
    ("beta zone label doesn't match", "PVC_1", {BETA_ZONE: "us-west1-b", "uselessLabel": "none"}, CONFLICT),
    ("zone label matched", "PVC_Stable_2", {ZONE: "us-west1-a", "uselessLabel": "none"}, None),
    ("zone label doesn't match", "PVC_Stable_1", {ZONE: "us-west1-b", "uselessLabel": "none"}, CONFLICT),
]


@pytest.mark.parametrize("name,claim,labels,want", MULTI_ZONE, ids=[c[0] for c in MULTI_ZONE])
def test_multi_zone(name, claim, labels, want):
    pre, st = run(MULTI_ZONE_OBJECTS, pod_with_volume(claim), labels)
    assert pre.is_success()
    assert as_tuple(st) == want


BINDING_OBJECTS = ClusterObjects(
    storage_classes=[sc("Class_Immediate"), sc("Class_Wait", "WaitForFirstConsumer")],
    persistent_volumes=[pv("Vol_1", {BETA_ZONE: "us-west1-a"})],
    persistent_volume_claims=[pvc("PVC_1", "Vol_1"), pvc("PVC_NoSC", storage_class="Class_0"), pvc("PVC_EmptySC"),
                              pvc("PVC_WaitSC", storage_class="Class_Wait"), pvc("PVC_ImmediateSC", storage_class="Class_Immediate")],
)
TEST_NODE = {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}

WITH_BINDING = [
    ("label zone failure domain matched", "PVC_1", None, None),
    ("unbound volume empty storage class", "PVC_EmptySC", (UU, ["PersistentVolumeClaim had no pv name and storageClass name"]),
     (UU, ["PersistentVolumeClaim had no pv name and storageClass name"])),
    # Upstream's fake lister says `storageclasses.storage.k8s.io "Class_0" not found`;
    # the informer lister kube-scheduler runs with uses the singular resource name.
    ("unbound volume no storage class", "PVC_NoSC", (UU, ['storageclass.storage.k8s.io "Class_0" not found']),
     (UU, ['storageclass.storage.k8s.io "Class_0" not found'])),
    ("unbound volume immediate binding mode", "PVC_ImmediateSC", (UU, ['VolumeBindingMode not set for StorageClass "Class_Immediate"']),
     (UU, ['VolumeBindingMode not set for StorageClass "Class_Immediate"'])),
    ("unbound volume wait binding mode", "PVC_WaitSC", "skip", None),
]


@pytest.mark.parametrize("name,claim,want_pre,want", WITH_BINDING, ids=[c[0] for c in WITH_BINDING])
def test_with_binding(name, claim, want_pre, want):
    pre, st = run(BINDING_OBJECTS, pod_with_volume(claim), TEST_NODE)
    assert as_tuple(pre) == want_pre
    assert as_tuple(st) == want


def test_missing_claim_and_volume():
    pre, _ = run(SINGLE_ZONE_OBJECTS, pod_with_volume("nope"), TEST_NODE)
    assert as_tuple(pre) == (UU, ['persistentvolumeclaim "nope" not found'])
    pre, _ = run(SINGLE_ZONE_OBJECTS, pod_with_volume("PVC_4"), TEST_NODE)
    assert as_tuple(pre) == (UU, ['persistentvolume "Vol_not_exist" not found'])


def test_storage_class_annotation_wins_over_spec():
    claim = pvc("PVC_Ann", storage_class="Class_Immediate")
    claim.metadata.annotations = {"volume.beta.kubernetes.io/storage-class": "Class_Wait"}
    objects = ClusterObjects(storage_classes=BINDING_OBJECTS.storage_classes, persistent_volume_claims=[claim])
    pre, _ = run(objects, pod_with_volume("PVC_Ann"), TEST_NODE)
    assert pre.is_skip()


def test_unparsable_zone_label_is_ignored():
    objects = ClusterObjects(persistent_volumes=[pv("V", {ZONE: "a____b", REGION: "r1"})], persistent_volume_claims=[pvc("C", "V")])
    pre, st = run(objects, pod_with_volume("C"), {ZONE: "zzz", REGION: "r1"})
    assert pre.is_success() and st.is_success()


def test_label_zones_to_set():
    assert vz.label_zones_to_set(" a __b") == {"a", "b"}
    assert vz.label_zones_to_set("") is None


def test_factory():
    assert vz.new({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "x"}, None).name() == "VolumeZone"
    assert vz.new(None, None).pre_filter_extensions() is None
    with pytest.raises(ConfigError):
        vz.new({"foo": 1}, None)
