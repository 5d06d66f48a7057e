"""VolumeBinding against upstream's volume_binding_test.go (TestVolumeBinding) and binder behaviour.

Each ported case keeps upstream's name. Upstream v1.34 runs the capacity cases
with the StorageCapacityScoring gate (the ``fts`` of the table) and the shape
``defaultShapePoint`` ({0, 0}, {100, 10}) unless the case gives its own;
here the gate comes through ``handle.feature_gates``.
"""

from __future__ import annotations

import types

import pytest
from lightkube.resources.core_v1 import PersistentVolume, PersistentVolumeClaim
from lightkube.resources.storage_v1 import CSIDriver, CSIStorageCapacity, StorageClass

from kubenotes.errors import ConfigError
from kubenotes.features import FeatureGate
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import volumebinding as vb
from kubenotes.scheduler.plugins.volumebinding.volume_binding import STATE_KEY
from kubenotes.scheduler.snapshot import ClusterObjects
from kubenotes.scheduler.testing import make_node, make_pod

UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
HOST = "kubernetes.io/hostname"
REGION, ZONE = "topology.kubernetes.io/region", "topology.kubernetes.io/zone"
DEFAULT_SHAPE_POINT = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]


def sc(name, mode, provisioner="", **extra):
    d = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
         "provisioner": provisioner, "volumeBindingMode": mode, **extra}
    return StorageClass.from_dict(d)


IMMEDIATE_SC = sc("immediate-sc", "Immediate")
WAIT_SC = sc("wait-sc", "WaitForFirstConsumer")
WAIT_HDD_SC = sc("wait-hdd-sc", "WaitForFirstConsumer")


def make_pvc(name, sc_name, bound_pv=None, phase=None, storage=None, annotations=None, uid=None):
    md = {"name": name, "namespace": "default", "uid": uid or f"uid-{name}", "resourceVersion": "1"}
    spec = {"storageClassName": sc_name}
    if bound_pv:
        spec["volumeName"] = bound_pv
        md["annotations"] = {"pv.kubernetes.io/bind-completed": "true"}
    if annotations:
        md.setdefault("annotations", {}).update(annotations)
    if storage:
        spec["resources"] = {"requests": {"storage": storage}}
    d = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": md, "spec": spec}
    if phase:
        d["status"] = {"phase": phase}
    return PersistentVolumeClaim.from_dict(d)


def make_pv(name, sc_name, phase="Available", capacity=None, node_affinity=None, claim_ref=None):
    spec = {"storageClassName": sc_name}
    if capacity:
        spec["capacity"] = {"storage": capacity}
    if node_affinity:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": k, "operator": "In", "values": v} for k, v in node_affinity.items()]}]}}
    if claim_ref:
        spec["claimRef"] = claim_ref
    return PersistentVolume.from_dict({"apiVersion": "v1", "kind": "PersistentVolume",
                                       "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec,
                                       "status": {"phase": phase}})


def pod_with(*claims):
    return make_pod("pod-a", volumes=[{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                                      for i, c in enumerate(claims)])


def node(name, **labels):
    n = make_node(name)
    n.metadata.labels = {HOST: name, **labels}
    return NodeInfo(n)


def plugin(pvcs=(), pvs=(), scoring=False, args=None, extra=None):
    objects = ClusterObjects(persistent_volume_claims=list(pvcs), persistent_volumes=list(pvs),
                             storage_classes=[IMMEDIATE_SC, WAIT_SC, WAIT_HDD_SC], **(extra or {}))
    gates = FeatureGate({"StorageCapacityScoring": True}) if scoring else FeatureGate()
    handle = types.SimpleNamespace(objects=objects, feature_gates=gates, snapshot=None)
    if args is None:
        args = {"bindTimeoutSeconds": 300}
        if scoring:
            args["shape"] = DEFAULT_SHAPE_POINT
    return vb.new(args, handle), handle


def status(st):
    if st.is_success():
        return None
    if st.is_skip():
        return "skip"
    return (st.code, st.reasons)


A_LOCAL = {HOST: ["node-a"]}
B_LOCAL = {HOST: ["node-b"]}
ZA = {REGION: ["region-a"], ZONE: ["zone-a"]}
ZB = {REGION: ["region-b"], ZONE: ["zone-b"]}


def zonal_nodes():
    return [node(f"zone-{z}-node-{n}", **{REGION: f"region-{z}", ZONE: f"zone-{z}"}) for z in "abc" for n in "ab"]


def zonal_pvs():
    return [make_pv("pv-a-0", "wait-sc", capacity="200Gi", node_affinity=ZA),
            make_pv("pv-a-1", "wait-sc", capacity="200Gi", node_affinity=ZA),
            make_pv("pv-b-0", "wait-sc", capacity="100Gi", node_affinity=ZB),
            make_pv("pv-b-1", "wait-sc", capacity="100Gi", node_affinity=ZB)]


BIND = (UU, [vb.ERR_REASON_BIND_CONFLICT])

# (upstream case name, pod, nodes, pvcs, pvs, scoring, args, want prefilter result, want prefilter status,
#  want filter statuses, want prescore status, want scores)
CASES = [
    ("pod has not pvcs", make_pod("pod-a"), [node("node-a")], [], [], False, None, None, "skip", None, "skip", None),
    ("all bound", pod_with("pvc-a"), [node("node-a")], [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a")],
     [make_pv("pv-a", "wait-sc")], False, None, None, None, [None], "skip", None),
    ("all bound with local volumes", pod_with("pvc-a", "pvc-b"), [node("node-a")],
     [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a"), make_pvc("pvc-b", "wait-sc", bound_pv="pv-b")],
     [make_pv("pv-a", "wait-sc", phase="Bound", node_affinity=A_LOCAL),
      make_pv("pv-b", "wait-sc", phase="Bound", node_affinity=A_LOCAL)],
     False, None, {"node-a"}, None, [None], "skip", None),
    ("PVC does not exist", pod_with("pvc-a"), [node("node-a")], [], [], False, None, None,
     (UU, ['persistentvolumeclaim "pvc-a" not found']), None, None, None),
    ("Part of PVCs do not exist", pod_with("pvc-a", "pvc-b"), [node("node-a")],
     [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a")], [], False, None, None,
     (UU, ['persistentvolumeclaim "pvc-b" not found']), None, None, None),
    ("immediate claims not bound", pod_with("pvc-a"), [node("node-a")], [make_pvc("pvc-a", "immediate-sc")], [],
     False, None, None, (UU, ["pod has unbound immediate PersistentVolumeClaims"]), None, None, None),
    ("unbound claims no matches", pod_with("pvc-a"), [node("node-a")], [make_pvc("pvc-a", "wait-sc")], [],
     False, None, None, None, [BIND], "skip", None),
    ("bound and unbound unsatisfied", pod_with("pvc-a", "pvc-b"), [node("node-a", foo="barbar")],
     [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a"), make_pvc("pvc-b", "wait-sc")],
     [make_pv("pv-a", "wait-sc", node_affinity={"foo": ["bar"]})], False, None, None, None,
     [(UU, [vb.ERR_REASON_NODE_CONFLICT, vb.ERR_REASON_BIND_CONFLICT])], "skip", None),
    ("pvc not found", pod_with("pvc-a"), [node("node-a")], [], [], False, None, None,
     (UU, ['persistentvolumeclaim "pvc-a" not found']), None, None, None),
    ("pv not found", pod_with("pvc-a"), [node("node-a")], [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a")], [],
     False, None, None, None, [(UU, [vb.ERR_REASON_PV_NOT_EXIST])], "skip", None),
    ("pv not found claim lost", pod_with("pvc-a"), [node("node-a")],
     [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a", phase="Lost")], [], False, None, None,
     (UU, ['persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"']), None, None, None),
    ("local volumes with close capacity are preferred", pod_with("pvc-a"),
     [node("node-a"), node("node-b"), node("node-c")], [make_pvc("pvc-a", "wait-sc", storage="50Gi")],
     [make_pv("pv-a-0", "wait-sc", capacity="200Gi", node_affinity=A_LOCAL),
      make_pv("pv-a-1", "wait-sc", capacity="200Gi", node_affinity=A_LOCAL),
      make_pv("pv-b-0", "wait-sc", capacity="100Gi", node_affinity=B_LOCAL),
      make_pv("pv-b-1", "wait-sc", capacity="100Gi", node_affinity=B_LOCAL)],
     True, None, None, None, [None, None, BIND], None, [25, 50, 0]),
    ("local volumes with close capacity are preferred (multiple pvcs)", pod_with("pvc-0", "pvc-1"),
     [node("node-a"), node("node-b"), node("node-c")],
     [make_pvc("pvc-0", "wait-sc", storage="50Gi"), make_pvc("pvc-1", "wait-hdd-sc", storage="100Gi")],
     [make_pv(f"pv-a-{i}", sc_, capacity="200Gi", node_affinity=A_LOCAL)
      for i, sc_ in enumerate(["wait-sc", "wait-sc", "wait-hdd-sc", "wait-hdd-sc"])]
     + [make_pv(f"pv-b-{i}", sc_, capacity="100Gi", node_affinity=B_LOCAL)
        for i, sc_ in enumerate(["wait-sc", "wait-sc", "wait-hdd-sc", "wait-hdd-sc"])],
     True, None, None, None, [None, None, BIND], None, [38, 75, 0]),
    ("zonal volumes with close capacity are preferred", pod_with("pvc-a"), zonal_nodes(),
     [make_pvc("pvc-a", "wait-sc", storage="50Gi")], zonal_pvs(), True, None, None, None,
     [None, None, None, None, BIND, BIND], None, [25, 25, 50, 50, 0, 0]),
    ("zonal volumes with close capacity are preferred (custom shape)", pod_with("pvc-a"), zonal_nodes(),
     [make_pvc("pvc-a", "wait-sc", storage="50Gi")], zonal_pvs(), True,
     {"bindTimeoutSeconds": 300, "shape": [{"utilization": 0, "score": 0}, {"utilization": 50, "score": 3},
                                           {"utilization": 100, "score": 5}]},
     None, None, [None, None, None, None, BIND, BIND], None, [15, 15, 30, 30, 0, 0]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_volume_binding_table(case):
    (_name, pod, nodes, pvcs, pvs, scoring, args, want_result, want_pre, want_filter, want_pre_score,
     want_scores) = case
    pl, _h = plugin(pvcs, pvs, scoring, args)
    cs, pi = CycleState(), PodInfo(pod)
    result, pre = pl.pre_filter(cs, pi, nodes)
    assert status(pre) == want_pre
    assert (result.node_names if result is not None else None) == want_result
    if not pre.is_success():
        return
    assert [status(pl.filter(cs, pi, n)) for n in nodes] == want_filter
    ps = pl.pre_score(cs, pi, nodes)
    assert status(ps) == want_pre_score
    if not ps.is_success():
        return
    assert [pl.score(cs, pi, n)[0] for n in nodes] == want_scores


def test_state_after_prefilter_sorts_claims_and_lists_volumes_by_class():
    """upstream 'bound and unbound unsatisfied': wantStateAfterPreFilter."""
    pl, _ = plugin([make_pvc("pvc-a", "wait-sc", bound_pv="pv-a"), make_pvc("pvc-b", "wait-sc")],
                   [make_pv("pv-a", "wait-sc", node_affinity={"foo": ["bar"]})])
    cs = CycleState()
    pl.pre_filter(cs, PodInfo(pod_with("pvc-a", "pvc-b")), [])
    c = cs.read(STATE_KEY).pod_volume_claims
    assert [p["metadata"]["name"] for p in c.bound_claims] == ["pvc-a"]
    assert [p["metadata"]["name"] for p in c.unbound_claims_delay_binding] == ["pvc-b"]
    assert {k: [p["metadata"]["name"] for p in v] for k, v in c.unbound_volumes_delay_binding.items()} == \
        {"wait-sc": ["pv-a"]}


def test_score_is_off_without_the_gate():
    """v1.34: StorageCapacityScoring is alpha and off, so PreScore skips even with static bindings."""
    pl, _ = plugin([make_pvc("pvc-a", "wait-sc", storage="50Gi")],
                   [make_pv("pv-a-0", "wait-sc", capacity="200Gi", node_affinity=A_LOCAL)])
    cs, pi = CycleState(), PodInfo(pod_with("pvc-a"))
    pl.pre_filter(cs, pi, [])
    assert pl.filter(cs, pi, node("node-a")).is_success()
    assert pl.pre_score(cs, pi, []).is_skip() and pl.scorer is None


def test_bind_timeout_default_and_negative():
    assert vb.new(None, None).binder.bind_timeout_seconds == 600 == vb.DEFAULT_BIND_TIMEOUT_SECONDS
    with pytest.raises(ConfigError, match="invalid BindTimeoutSeconds"):
        vb.new({"bindTimeoutSeconds": -1}, None)


def test_smallest_matching_pv_is_chosen_and_reserve_assumes_it():
    pvs = [make_pv("pv-big", "wait-sc", capacity="100Gi"), make_pv("pv-small", "wait-sc", capacity="10Gi"),
           make_pv("pv-tiny", "wait-sc", capacity="1Gi")]
    pl, _ = plugin([make_pvc("pvc-a", "wait-sc", storage="5Gi")], pvs)
    cs, pi = CycleState(), PodInfo(pod_with("pvc-a"))
    pl.pre_filter(cs, pi, [])
    assert pl.filter(cs, pi, node("node-a")).is_success()
    chosen = cs.read(STATE_KEY).pod_volumes_by_node["node-a"].static_bindings
    assert [b.pv["metadata"]["name"] for b in chosen] == ["pv-small"]
    assert pl.reserve(cs, pi, "node-a").is_success() and not cs.read(STATE_KEY).all_bound
    assumed = pl.binder.pv_cache.get("pv-small")
    assert assumed["spec"]["claimRef"]["name"] == "pvc-a"
    assert assumed["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    # a second pod's claim cannot take the assumed PV
    pl2_state, other = CycleState(), PodInfo(make_pod("pod-b", volumes=[{"name": "v", "persistentVolumeClaim":
                                                                            {"claimName": "pvc-b"}}]))
    pl.binder.listers.handle.objects.persistent_volume_claims.append(make_pvc("pvc-b", "wait-sc", storage="5Gi"))
    pl.pre_filter(pl2_state, other, [])
    pl.filter(pl2_state, other, node("node-a"))
    assert [b.pv["metadata"]["name"] for b in pl2_state.read(STATE_KEY).pod_volumes_by_node["node-a"]
            .static_bindings] == ["pv-big"]
    pl.unreserve(cs, pi, "node-a")
    assert "claimRef" not in pl.binder.pv_cache.get("pv-small")["spec"]


def _provisioning(capacities=(), driver_capacity=True, topologies=None, provisioner="csi.example.com"):
    cls = sc("csi-sc", "WaitForFirstConsumer", provisioner=provisioner,
             **({"allowedTopologies": topologies} if topologies else {}))
    extra = {"csi_drivers": [CSIDriver.from_dict({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                                                  "metadata": {"name": "csi.example.com"},
                                                  "spec": {"storageCapacity": driver_capacity}})],
             "csi_storage_capacities": [CSIStorageCapacity.from_dict(
                 {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                  "metadata": {"name": f"cap-{n}", "namespace": "kube-system"}, "storageClassName": "csi-sc",
                  "capacity": cap, "nodeTopology": {"matchLabels": {HOST: n}}}) for n, cap in capacities]}
    pl, h = plugin([make_pvc("pvc-a", "csi-sc", storage="50Gi")], [], extra=extra)
    h.objects.storage_classes.append(cls)
    return pl, h


def test_provisioning_checks_csi_storage_capacity():
    """binder.go hasEnoughCapacity: a node without an accessible CSIStorageCapacity big enough has not enough storage."""
    pl, _ = _provisioning([("node-a", "100Gi"), ("node-b", "10Gi")])
    cs, pi = CycleState(), PodInfo(pod_with("pvc-a"))
    assert pl.pre_filter(cs, pi, [])[1].is_success()
    got = [status(pl.filter(cs, pi, node(n))) for n in ("node-a", "node-b", "node-c")]
    assert got == [None, (UU, [vb.ERR_REASON_NOT_ENOUGH_SPACE]), (UU, [vb.ERR_REASON_NOT_ENOUGH_SPACE])]
    # a driver that does not opt into capacity tracking is never short of storage
    pl, _ = _provisioning([("node-a", "10Gi")], driver_capacity=False)
    cs = CycleState()
    pl.pre_filter(cs, pi, [])
    assert pl.filter(cs, pi, node("node-b")).is_success()


def test_provisioning_needs_a_provisioner_and_allowed_topology():
    pi = PodInfo(pod_with("pvc-a"))
    pl, _ = _provisioning(provisioner="kubernetes.io/no-provisioner")
    cs = CycleState()
    pl.pre_filter(cs, pi, [])
    assert status(pl.filter(cs, pi, node("node-a"))) == BIND
    pl, _ = _provisioning(driver_capacity=False, topologies=[{"matchLabelExpressions": [
        {"key": ZONE, "values": ["zone-a"]}]}])
    cs = CycleState()
    pl.pre_filter(cs, pi, [])
    assert pl.filter(cs, pi, node("n1", **{ZONE: "zone-a"})).is_success()
    assert status(pl.filter(cs, pi, node("n2", **{ZONE: "zone-b"}))) == BIND


def test_storage_capacity_scoring_prefers_the_emptiest_node_by_default():
    """KEP-4049 default shape {0, 10}, {100, 0}: 50Gi of 100Gi scores 50, of 50Gi scores 0."""
    pl, h = _provisioning([("node-a", "100Gi"), ("node-b", "50Gi")])
    h.feature_gates = FeatureGate({"StorageCapacityScoring": True})
    pl = vb.new(None, h)
    cs, pi = CycleState(), PodInfo(pod_with("pvc-a"))
    pl.pre_filter(cs, pi, [])
    nodes = [node("node-a"), node("node-b")]
    assert all(pl.filter(cs, pi, n).is_success() for n in nodes)
    assert pl.pre_score(cs, pi, nodes).is_success()
    assert [pl.score(cs, pi, n)[0] for n in nodes] == [50, 0]


def test_selected_node_annotation_pins_the_claim():
    """FindPodVolumes' fast path: a claim being provisioned for another node fails there."""
    pl, _ = _provisioning(driver_capacity=False)
    pvc = pl.handle.objects.persistent_volume_claims
    pvc[0] = make_pvc("pvc-a", "csi-sc", storage="50Gi", annotations={"volume.kubernetes.io/selected-node": "node-a"})
    cs, pi = CycleState(), PodInfo(pod_with("pvc-a"))
    pl.pre_filter(cs, pi, [])
    assert pl.filter(cs, pi, node("node-a")).is_success()
    assert status(pl.filter(cs, pi, node("node-b"))) == BIND


class _Client:
    """Stands for the API server: stores updates with a new resourceVersion."""

    def __init__(self, fail=False):
        self.writes, self.fail, self.rv = [], fail, 10

    def update(self, resource, obj):
        if self.fail:
            raise RuntimeError('persistentvolumes "pv-a" is forbidden')
        self.rv += 1
        out = {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(self.rv)}}
        self.writes.append((resource, out))
        return out


def test_pre_bind_writes_claim_ref_and_selected_node_then_waits():
    pl, h = _provisioning(driver_capacity=False)
    h.objects.persistent_volumes.append(make_pv("pv-a", "csi-sc", capacity="60Gi"))
    h.objects.persistent_volume_claims.append(make_pvc("pvc-b", "csi-sc", storage="500Gi"))
    pod = make_pod("pod-a", volumes=[{"name": "a", "persistentVolumeClaim": {"claimName": "pvc-a"}},
                                     {"name": "b", "persistentVolumeClaim": {"claimName": "pvc-b"}}])
    h.volume_client = _Client()
    waits = []
    h.volume_bind_waiter = lambda *a: waits.append(a)
    cs, pi = CycleState(), PodInfo(pod)
    pl.pre_filter(cs, pi, [])
    assert pl.filter(cs, pi, node("node-a")).is_success()
    assert pl.reserve(cs, pi, "node-a").is_success()
    assert pl.pre_bind(cs, pi, "node-a").is_success()
    (r1, pv), (r2, pvc) = h.volume_client.writes
    assert (r1, pv["metadata"]["name"], pv["spec"]["claimRef"]["name"]) == ("persistentvolumes", "pv-a", "pvc-a")
    assert (r2, pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"]) == \
        ("persistentvolumeclaims", "node-a")
    (_pod, node_name, check, timeout, interval, _state), = waits
    assert (node_name, timeout, interval) == ("node-a", 300, 1.0)
    # the informer has not seen our writes yet: keep waiting
    assert check() is False
    # the PV controller dropped the selected-node annotation: provisioning failed, stop waiting
    h.objects.persistent_volumes[:] = [PersistentVolume.from_dict(pv)]
    h.objects.persistent_volume_claims[:] = [make_pvc("pvc-a", "csi-sc", bound_pv="pv-a", storage="50Gi"),
                                             PersistentVolumeClaim.from_dict({**pvc, "metadata": {
                                                 **pvc["metadata"], "annotations": {}}})]
    with pytest.raises(vb.binder.VolumeBindingError, match="selectedNode annotation reset"):
        check()


def test_pre_bind_without_waiter_times_out_and_api_errors_are_errors():
    pl, h = plugin([make_pvc("pvc-a", "wait-sc", storage="5Gi")], [make_pv("pv-a", "wait-sc", capacity="10Gi")])
    pi = PodInfo(pod_with("pvc-a"))

    def cycle():
        cs = CycleState()
        pl.pre_filter(cs, pi, [])
        pl.filter(cs, pi, node("node-a"))
        pl.reserve(cs, pi, "node-a")
        return cs

    h.volume_client = _Client()
    s = pl.pre_bind(cycle(), pi, "node-a")
    assert (s.code, s.message()) == (Code.ERROR, "binding volumes: context deadline exceeded")
    h.objects.persistent_volumes[:] = [make_pv("pv-a", "wait-sc", capacity="10Gi")]
    pl.binder.pv_cache.restore("pv-a")
    h.volume_client = _Client(fail=True)
    s = pl.pre_bind(cycle(), pi, "node-a")
    assert (s.code, s.message()) == (Code.ERROR, 'persistentvolumes "pv-a" is forbidden')
    assert "claimRef" not in pl.binder.pv_cache.get("pv-a")["spec"]  # the failed write's assumption is reverted


def test_pre_bind_without_client_keeps_the_assumption():
    pl, _ = plugin([make_pvc("pvc-a", "wait-sc", storage="5Gi")], [make_pv("pv-a", "wait-sc", capacity="10Gi")])
    cs, pi = CycleState(), PodInfo(pod_with("pvc-a"))
    pl.pre_filter(cs, pi, [])
    pl.filter(cs, pi, node("node-a"))
    pl.reserve(cs, pi, "node-a")
    assert pl.pre_bind(cs, pi, "node-a").is_success()
    assert pl.binder.pv_cache.get("pv-a")["spec"]["claimRef"]["name"] == "pvc-a"


def test_all_bound_pod_has_nothing_to_prebind():
    pl, h = plugin([make_pvc("pvc-a", "wait-sc", bound_pv="pv-a")], [make_pv("pv-a", "wait-sc")])
    h.volume_client = _Client()
    cs, pi = CycleState(), PodInfo(pod_with("pvc-a"))
    pl.pre_filter(cs, pi, [])
    pl.filter(cs, pi, node("node-a"))
    assert pl.reserve(cs, pi, "node-a").is_success() and cs.read(STATE_KEY).all_bound
    assert pl.pre_bind(cs, pi, "node-a").is_success() and h.volume_client.writes == []


def test_ephemeral_volume_claim_must_be_owned_by_the_pod():
    pod = make_pod("pod-a", volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}])
    pl, _ = plugin([make_pvc("pod-a-scratch", "wait-sc")], [])
    _, s = pl.pre_filter(CycleState(), PodInfo(pod), [])
    assert status(s) == (UU, ["PVC default/pod-a-scratch was not created for pod default/pod-a (pod is not owner)"])


def test_schedule_command_reads_the_storage_kinds(tmp_path):
    """`schedule` takes PVs, claims, classes, CSIDrivers, CSINodes, CSIStorageCapacity and VolumeAttachments."""
    from kubenotes.scheduler.cli import run_schedule

    docs = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap-n2, namespace: kube-system}
storageClassName: fast
capacity: 100Gi
nodeTopology: {matchLabels: {kubernetes.io/hostname: n2}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n2}
spec: {drivers: [{name: csi.example.com, nodeID: n2, allocatable: {count: 1}}]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: big, namespace: default}
spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 50Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: big2, namespace: default}
spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 50Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: default}
spec:
  containers: [{name: c, image: nginx}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: big}}]
---
apiVersion: v1
kind: Pod
metadata: {name: app2, namespace: default}
spec:
  containers: [{name: c, image: nginx}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: big2}}]
"""
    f = tmp_path / "storage.yaml"
    f.write_text(docs)
    sched, traces = run_schedule([str(f)], warn=lambda m: None)
    got = {t.name: (t.node_name, t.message) for t in traces}
    assert got["app"] == ("n2", None)  # the only node with CSIStorageCapacity for the class
    node, msg = got["app2"]  # n1: no capacity; n2: its one attachable CSI volume is taken by app's claim
    assert node is None and "1 node(s) did not have enough free storage" in msg
    assert "1 node(s) exceed max volume count" in msg


# binder_test.go TestCapacity: a claim of 1Gi to provision on node1 (label kubernetes.io/hostname=node1) against
# CSIStorageCapacity objects, with and without CSIDriver.storageCapacity. Every upstream capacity is named "net",
# so its informer keeps only the last of "multiple": node1's. A capacity without a node has an empty nodeTopology.
def _capacity(name, class_name, node_name, capacity, maximum):
    d = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
         "metadata": {"name": name, "namespace": "default"}, "storageClassName": class_name,
         "nodeTopology": {"matchLabels": {HOST: node_name}} if node_name else {}}
    if capacity:
        d["capacity"] = capacity
    if maximum:
        d["maximumVolumeSize"] = maximum
    return d


NETWORK_ATTACHED = _capacity("net", "csi-sc", None, "1Gi", "")
NODE1, NODE2 = _capacity("net", "csi-sc", "node1", "1Gi", ""), _capacity("net", "csi-sc", "node2", "1Gi", "")
NOT_ENOUGH = [vb.ERR_REASON_NOT_ENOUGH_SPACE]
CAPACITY_CASES = {  # name: (capacities, expected reasons, the capacity that admits the claim)
    "network-attached": ([NETWORK_ATTACHED], None, NETWORK_ATTACHED),
    "local-storage": ([NODE1], None, NODE1),
    "multiple": ([NETWORK_ATTACHED, NODE2, NODE1], None, NODE1),
    "no-storage": ([], NOT_ENOUGH, None),
    "wrong-node": ([_capacity("net", "csi-sc", "node2", "1Gi", "")], NOT_ENOUGH, None),
    "wrong-storage-class": ([_capacity("net", "wait-sc", "node1", "1Gi", "")], NOT_ENOUGH, None),
    "insufficient-storage": ([_capacity("net", "csi-sc", "node1", "1Mi", "")], NOT_ENOUGH, None),
    "insufficient-volume-size": ([_capacity("net", "csi-sc", "node1", "1Gi", "1Mi")], NOT_ENOUGH, None),
    "zero-storage": ([_capacity("net", "csi-sc", "node1", "0Mi", "")], NOT_ENOUGH, None),
    "zero-volume-size": ([_capacity("net", "csi-sc", "node1", "", "0Mi")], NOT_ENOUGH, None),
    "nil-storage": ([_capacity("net", "csi-sc", "node1", "", "")], NOT_ENOUGH, None),
}


@pytest.mark.parametrize("opt_in", [True, False], ids=lambda v: f"CSIDriver.StorageCapacity={v}")
@pytest.mark.parametrize("name", list(CAPACITY_CASES))
def test_capacity(name, opt_in):
    """kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/binder_test.go TestCapacity."""
    capacities, reasons, admitted = CAPACITY_CASES[name]
    kept = {}
    for c in capacities:  # the informer's store: one object per namespace/name
        kept[(c["metadata"]["namespace"], c["metadata"]["name"])] = c
    cls = sc("csi-sc", "WaitForFirstConsumer", provisioner="csi.example.com")
    extra = {"csi_drivers": [CSIDriver.from_dict({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                                                  "metadata": {"name": "csi.example.com"},
                                                  "spec": {"storageCapacity": opt_in}})],
             "csi_storage_capacities": [CSIStorageCapacity.from_dict(c) for c in kept.values()]}
    pl, h = plugin([make_pvc("pvc-a", "csi-sc", storage="1Gi")], [], extra=extra)
    h.objects.storage_classes.append(cls)
    cs, pi = CycleState(), PodInfo(pod_with("pvc-a"))
    assert pl.pre_filter(cs, pi, [])[1].is_success()
    expected = (UU, reasons) if reasons and opt_in else None
    assert status(pl.filter(cs, pi, node("node1"))) == expected
    claim = pl.binder.pvc_cache.get("default/pvc-a")
    ok, cap = pl.binder._has_enough_capacity("csi.example.com", claim, cls.to_dict(), {HOST: "node1"})
    assert ok == (not (reasons and opt_in))
    if opt_in and admitted is not None:
        assert (cap["nodeTopology"], cap.get("capacity"), cap.get("maximumVolumeSize")) == (
            admitted["nodeTopology"], admitted.get("capacity"), admitted.get("maximumVolumeSize"))
    else:
        assert cap is None
