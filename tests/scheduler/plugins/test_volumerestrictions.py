"""VolumeRestrictions against upstream's volume_restrictions_test.go tables."""

from __future__ import annotations

import itertools
import types

import pytest
from lightkube.resources.core_v1 import PersistentVolumeClaim

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import volumerestrictions as vr
from kubenotes.scheduler.snapshot import ClusterObjects, new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

DISK = (Code.UNSCHEDULABLE, ["node(s) had no available disk"])
RWOP = (Code.UNSCHEDULABLE, ["node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"])
_n = itertools.count()


def vpod(*volumes, name=None, node_name=None):
    vols = [dict(v, name=v.get("name", f"v{i}")) for i, v in enumerate(volumes)]
    return make_pod(name or f"p{next(_n)}", node_name=node_name, volumes=vols or None)


def node_info(*pods):
    ni = NodeInfo(make_node("node-1"))
    for p in pods:
        ni.add_pod(PodInfo(p))
    return ni


def plugin(pods=(), nodes=(), pvcs=()):
    h = types.SimpleNamespace(snapshot=new_snapshot(list(nodes), list(pods)),
                              objects=ClusterObjects(persistent_volume_claims=list(pvcs)))
    return vr.new(None, h)


def as_tuple(st):
    return None if st.is_success() else ("skip" if st.is_skip() else (st.code, st.reasons))


def run(incoming, ni, pl=None):
    pl = pl or plugin()
    cs = CycleState()
    pi = PodInfo(incoming)
    _, pre = pl.pre_filter(cs, pi, [])
    if not pre.is_success():
        return as_tuple(pre), None
    return None, as_tuple(pl.filter(cs, pi, ni))


GCE = {"gcePersistentDisk": {"pdName": "foo"}}
GCE2 = {"gcePersistentDisk": {"pdName": "bar"}}
AWS = {"awsElasticBlockStore": {"volumeID": "foo"}}
AWS2 = {"awsElasticBlockStore": {"volumeID": "bar"}}
RBD = {"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
RBD2 = {"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
ISCSI = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01", "fsType": "ext4", "lun": 0}}
ISCSI2 = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01", "fsType": "ext4", "lun": 0}}


@pytest.mark.parametrize("kind,vol,vol2", [("GCE", GCE, GCE2), ("AWS", AWS, AWS2), ("RBD", RBD, RBD2), ("ISCSI", ISCSI, ISCSI2)])
@pytest.mark.parametrize("case", ["nothing", "one state", "same state", "different state"])
def test_disk_conflicts(kind, vol, vol2, case):
    incoming, existing, want_pre, want = {
        "nothing": (vpod(), [], "skip", None),
        "one state": (vpod(), [vpod(vol)], "skip", None),
        "same state": (vpod(vol), [vpod(vol)], None, DISK),
        "different state": (vpod(vol2), [vpod(vol)], None, None),
    }[case]
    pre, got = run(incoming, node_info(*existing))
    assert pre == want_pre
    assert got == want


def test_volume_without_restrictions_is_skipped():
    pre, _ = run(vpod({"name": "volume with no restriction", "emptyDir": {}}), node_info())
    assert pre == "skip"


@pytest.mark.parametrize("vol,read_only_ok", [
    ({"gcePersistentDisk": {"pdName": "foo", "readOnly": True}}, True),
    ({"iscsi": {"targetPortal": "p", "iqn": "iqn.x", "lun": 0, "readOnly": True}}, True),
    ({"rbd": {"monitors": ["a"], "pool": "p", "image": "i", "readOnly": True}}, True),
    ({"awsElasticBlockStore": {"volumeID": "foo", "readOnly": True}}, False),
])
def test_read_only_mounts(vol, read_only_ok):
    """(kubenotes) GCE PD, iSCSI and RBD may be shared read-only; EBS never."""
    _, got = run(vpod(vol), node_info(vpod(vol)))
    assert got == (None if read_only_ok else DISK)


def test_rbd_needs_a_shared_monitor():
    a = {"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar"}}
    b = {"rbd": {"monitors": ["b", "c"], "pool": "foo", "image": "bar"}}
    assert vr.is_volume_conflict(vpod(a).spec.volumes[0], vpod(b))


# --- TestAccessModeConflicts ----------------------------------------------------------

def claim(name, mode):
    return PersistentVolumeClaim.from_dict({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                            "metadata": {"name": name, "namespace": "default"},
                                            "spec": {"accessModes": [mode]}})


def pvc_pod(name, *claims):
    return make_pod(name, node_name="node-1", volumes=[{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims])


POD_ONE = pvc_pod("pod-with-one-pvc", "claim-with-rwop-1")
POD_TWO = pvc_pod("pod-with-two-pvcs", "claim-with-rwop-1", "claim-with-rwop-2")
POD_ONE_CONFLICT = pvc_pod("pod-with-one-conflict", "claim-with-rwop-1")
POD_TWO_CONFLICTS = pvc_pod("pod-with-two-conflicts", "claim-with-rwop-1", "claim-with-rwop-2")
POD_RWX = pvc_pod("pod-with-rwx", "claim-with-rwx")
NODE = make_node("node-1")
RWOP1, RWOP2 = claim("claim-with-rwop-1", "ReadWriteOncePod"), claim("claim-with-rwop-2", "ReadWriteOncePod")
RWX = claim("claim-with-rwx", "ReadWriteMany")

ACCESS_MODE = [
    ("nothing", vpod(), [], [], [], "skip", None),
    ("failed to get PVC", POD_ONE, [], [], [], (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ['persistentvolumeclaim "claim-with-rwop-1" not found']),
     None),
    ("no access mode conflict", POD_ONE, [POD_RWX], [NODE], [RWOP1, RWX], "skip", None),
    ("access mode conflict, unschedulable", POD_ONE_CONFLICT, [POD_ONE, POD_RWX], [NODE], [RWOP1, RWX], None, RWOP),
    ("two conflicts, unschedulable", POD_TWO_CONFLICTS, [POD_TWO, POD_RWX], [NODE], [RWOP1, RWOP2, RWX], None, RWOP),
]


@pytest.mark.parametrize("name,incoming,existing,nodes,pvcs,want_pre,want", ACCESS_MODE, ids=[c[0] for c in ACCESS_MODE])
def test_access_mode_conflicts(name, incoming, existing, nodes, pvcs, want_pre, want):
    pl = plugin(existing, nodes, pvcs)
    pre, got = run(incoming, node_info(*existing), pl)
    assert pre == want_pre
    assert got == want


def test_preemption_removing_the_claim_holder_clears_the_conflict():
    pl = plugin([POD_ONE, POD_RWX], [NODE], [RWOP1, RWX])
    cs = CycleState()
    pi = PodInfo(POD_ONE_CONFLICT)
    pl.pre_filter(cs, pi, [])
    ni = node_info(POD_ONE, POD_RWX)
    assert cs.read(vr.PRE_FILTER_STATE_KEY).conflicting_pvc_ref_count == 1
    victim = PodInfo(POD_ONE)
    copy = cs.clone()
    assert pl.pre_filter_extensions().remove_pod(copy, pi, victim, ni).is_success()
    assert pl.filter(copy, pi, ni).is_success()
    assert as_tuple(pl.filter(cs, pi, ni)) == RWOP
    pl.add_pod(copy, pi, victim, ni)
    assert as_tuple(pl.filter(copy, pi, ni)) == RWOP


def test_filter_without_pre_filter_is_an_error():
    st = plugin().filter(CycleState(), PodInfo(vpod()), node_info())
    assert st.code == Code.ERROR and st.reasons == ['cannot read "PreFilterVolumeRestrictions" from cycleState']


def test_factory():
    assert vr.new(None, None).name() == "VolumeRestrictions"
    with pytest.raises(ConfigError):
        vr.new({"x": 1}, None)
