"""NodeVolumeLimits (CSILimits) against upstream's csi_test.go TestCSILimits.

The fixtures follow upstream's: PVs and bound claims ``csi-<driver>-<i>`` (i < 4)
with volume handle ``csi-<driver>-<i>``, ``csi-4`` unbound of class ``csi-sc``,
``csi-5`` with no class, ``csi-6`` bound to a missing PV; ``csi-sc``'s
provisioner is the case's first driver; the node's CSINode lists the drivers
with ``allocatable.count = maxVols`` ("csinode") or without a count
("csinode-with-no-limit"); ``vaCount`` VolumeAttachments per driver on the
node. The in-tree migration cases are not ported (CSI migration is not
modelled, see the plugin's Notes).
"""

from __future__ import annotations

import types

import pytest
from lightkube.resources.core_v1 import PersistentVolume, PersistentVolumeClaim
from lightkube.resources.storage_v1 import CSINode, StorageClass, VolumeAttachment

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import nodevolumelimits as nvl
from kubenotes.scheduler.snapshot import ClusterObjects
from kubenotes.scheduler.testing import make_node, make_pod

EBS, GCE = "ebs.csi.aws.com", "pd.csi.storage.gke.io"
NODE = "node-for-max-pd-test-1"
EXCEEDED = (Code.UNSCHEDULABLE, [nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED])
_n = iter(range(10**6))


def pod(*claims, name=None, node=None):
    p = make_pod(name or f"p{next(_n)}", volumes=[{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                                                  for i, c in enumerate(claims)])
    if node:
        p.spec.nodeName = node
    return p


def objects(drivers, limit_source, max_vols, va_count=0, extra_claims=()):
    pvs, pvcs = [], []
    for d in drivers:
        for j in range(4):
            n = f"csi-{d}-{j}"
            pvs.append(PersistentVolume.from_dict({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": n},
                                                   "spec": {"csi": {"driver": d, "volumeHandle": n}}}))
            pvcs.append(PersistentVolumeClaim.from_dict({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                                         "metadata": {"name": n, "namespace": "default"},
                                                         "spec": {"volumeName": n}}))
    for name, spec in (("csi-4", {"storageClassName": "csi-sc"}), ("csi-5", {}),
                       ("csi-6", {"storageClassName": "csi-sc", "volumeName": "missing-in-action"})):
        pvcs.append(PersistentVolumeClaim.from_dict({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                                     "metadata": {"name": name, "namespace": "default"}, "spec": spec}))
    pvcs.extend(extra_claims)
    csi_nodes = []
    if limit_source in ("csinode", "csinode-with-no-limit"):
        ds = [{"name": d, "nodeID": NODE, **({"allocatable": {"count": max_vols}} if limit_source == "csinode" else {})}
              for d in drivers]
        csi_nodes.append(CSINode.from_dict({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                                            "metadata": {"name": NODE}, "spec": {"drivers": ds}}))
    vas = [VolumeAttachment.from_dict({"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
                                       "metadata": {"name": f"va-{d}-{j}"},
                                       "spec": {"nodeName": NODE, "attacher": d,
                                                "source": {"persistentVolumeName": f"csi-{d}-{j}"}}})
           for d in drivers for j in range(va_count)]
    sc = StorageClass.from_dict({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                                 "metadata": {"name": "csi-sc"}, "provisioner": drivers[0]})
    return ClusterObjects(persistent_volumes=pvs, persistent_volume_claims=pvcs, storage_classes=[sc],
                          csi_nodes=csi_nodes, volume_attachments=vas)


def run(new_pod, existing, drivers, limit_source, max_vols, va_count=0, extra_claims=()):
    pl = nvl.new(None, types.SimpleNamespace(objects=objects(drivers, limit_source, max_vols, va_count, extra_claims)))
    ni = NodeInfo(make_node(NODE))
    for p in existing:
        p.spec.nodeName = NODE
        ni.add_pod(PodInfo(p))
    pi = PodInfo(new_pod)
    _, pre = pl.pre_filter(CycleState(), pi, [])
    if not pre.is_success():
        return "skip" if pre.is_skip() else (pre.code, pre.reasons)
    st = pl.filter(CycleState(), pi, ni)
    return None if st.is_success() else (st.code, st.reasons)


def running_pod():
    return pod(f"csi-{EBS}-3")


def ebs_two():
    return pod(f"csi-{EBS}-1", f"csi-{EBS}-2")


# (upstream test name, new pod, existing pods, drivers, limit source, maxVols, vaCount, want)
CASES = [
    ("should count VolumeAttachments towards volume limit when no pods exist",
     lambda: pod(f"csi-{EBS}-0"), lambda: [], [EBS], "csinode", 2, 2, EXCEEDED),
    ("should schedule pod when VolumeAttachments count does not exceed limit",
     lambda: pod(f"csi-{EBS}-0"), lambda: [], [EBS], "csinode", 2, 1, None),
    ("fits when node volume limit >= new pods CSI volume",
     lambda: pod(f"csi-{EBS}-0"), lambda: [running_pod(), ebs_two()], [EBS], "csinode", 4, 0, None),
    ("doesn't when node volume limit <= pods CSI volume",
     lambda: pod(f"csi-{EBS}-0"), lambda: [running_pod(), ebs_two()], [EBS], "csinode", 2, 0, EXCEEDED),
    ("should when driver does not support volume limits",
     lambda: pod(f"csi-{EBS}-0"), lambda: [running_pod(), ebs_two()], [EBS], "csinode-with-no-limit", 2, 0, None),
    ("count pending PVCs towards volume limit <= pods CSI volume",
     lambda: pod(f"csi-{EBS}-0"), lambda: [pod("csi-4"), ebs_two()], [EBS], "csinode", 2, 0, EXCEEDED),
    ("count multiple pending pvcs towards volume limit >= pods CSI volume",
     lambda: pod(f"csi-{EBS}-0"), lambda: [pod("csi-4"), pod("csi-4"), ebs_two()], [EBS], "csinode", 4, 0, None),
    ("should count PVCs with invalid PV name but valid SC",
     lambda: pod(f"csi-{EBS}-0"), lambda: [pod("csi-6"), ebs_two()], [EBS], "csinode", 2, 0, EXCEEDED),
    ("don't count pvcs with missing SC towards volume limit",
     lambda: pod(f"csi-{EBS}-0"), lambda: [running_pod(), pod("csi-5")], [EBS], "csinode", 2, 0, None),
    ("count pvcs with the same type towards volume limit",
     lambda: pod(f"csi-{EBS}-0"), lambda: [pod(f"csi-{GCE}-1", f"csi-{GCE}-2"), ebs_two()], [EBS, GCE], "csinode",
     2, 0, EXCEEDED),
    ("don't count pvcs with different type towards volume limit",
     lambda: pod(f"csi-{GCE}-1", f"csi-{GCE}-2"), lambda: [ebs_two(), running_pod()], [EBS, GCE], "csinode", 2, 0,
     None),
    ("the same volume used by a pod on the node counts once (kubenotes: upstream's delete(newVolumes, ...))",
     lambda: pod(f"csi-{EBS}-1"), lambda: [ebs_two()], [EBS], "csinode", 2, 0, None),
    ("no CSINode: no limit (upstream 'nil csi node', with a CSI claim)",
     lambda: pod(f"csi-{EBS}-0"), lambda: [running_pod(), ebs_two()], [EBS], "none", 2, 0, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_csi_limits(case):
    _name, new_pod, existing, drivers, source, max_vols, va_count, want = case
    assert run(new_pod(), existing(), drivers, source, max_vols, va_count) == want


def test_pod_without_claims_skips():
    assert run(make_pod("plain"), [], [EBS], "csinode", 0) == "skip"


def test_missing_claim_of_the_new_pod_is_unresolvable():
    want = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ['looking up PVC default/nope: persistentvolumeclaim "nope" not found'])
    assert run(pod("nope"), [], [EBS], "csinode", 2) == want


def test_ephemeral_volumes_count_and_must_belong_to_the_pod():
    """upstream 'ephemeral volume' / 'ephemeral volume missing' / 'conflicting claim' cases, in substance."""
    new = make_pod("abc", volumes=[{"name": "xyz", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}])
    new.metadata.uid = "12345"
    owned = PersistentVolumeClaim.from_dict({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                             "metadata": {"name": "abc-xyz", "namespace": "default", "ownerReferences": [
                                                 {"apiVersion": "v1", "kind": "Pod", "name": "abc", "uid": "12345",
                                                  "controller": True}]}, "spec": {"storageClassName": "csi-sc"}})
    assert run(new, [ebs_two()], [EBS], "csinode", 2, extra_claims=[owned]) == EXCEEDED
    assert run(new, [ebs_two()], [EBS], "csinode", 3, extra_claims=[owned]) is None
    conflicting = PersistentVolumeClaim.from_dict({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                                   "metadata": {"name": "abc-xyz", "namespace": "default"},
                                                   "spec": {"storageClassName": "csi-sc"}})
    code, reasons = run(new, [], [EBS], "csinode", 3, extra_claims=[conflicting])
    assert code == Code.ERROR and reasons == ["PVC default/abc-xyz was not created for pod default/abc (pod is not owner)"]


def test_takes_no_args():
    with pytest.raises(ConfigError):
        nvl.new({"x": 1}, None)
