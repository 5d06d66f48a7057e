"""NodeResourcesFit against upstream's fit_test.go tables (TestEnoughRequests, TestNotEnoughRequests,
TestStorageRequests, TestRestartableInitContainers, TestPreFilterDisabled, TestFitScore).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/fit_test.go
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins.noderesources import fit
from kubenotes.scheduler.plugins.noderesources.fit import (
    ERR_REASON_RESTARTABLE_INIT_CONTAINER,
    Fit,
    NodeResourcesFitArgs,
    ScoringStrategy,
    compute_pod_resource_request,
    fits_request,
)
from kubenotes.scheduler.plugins.noderesources.requested_to_capacity_ratio import UtilizationShapePoint
from kubenotes.scheduler.plugins.noderesources.resource_allocation import DEFAULT_RESOURCES, ResourceSpec
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

A = "example.com/aaa"
B = "example.com/bbb"
KA = "kubernetes.io/something"
KB = "subdomain.kubernetes.io/something"
HP = "hugepages-2Mi"
DRA = "extended.resource.dra.io/something"

_ids = itertools.count()


def R(cpu: int = 0, mem: int = 0, eph: int = 0, scalars: dict | None = None) -> dict:
    """A container's requests as upstream's newResourcePod writes them (cpu in millicores)."""
    rl = {"cpu": f"{cpu}m", "memory": str(mem), "pods": "0", "ephemeral-storage": str(eph)}
    rl.update({k: str(v) for k, v in (scalars or {}).items()})
    return rl


def containers(reqs, prefix="c", sidecar=False):
    out = []
    for r in reqs:
        c = {"name": f"{prefix}{next(_ids)}", "image": "img"}
        if r is not None:
            c["resources"] = {"requests": dict(r)}
        if sidecar:
            c["restartPolicy"] = "Always"
        out.append(c)
    return out


def rpod(*reqs, init=(), sidecars=(), overhead=None, pod_level=None, node=None, name=None) -> PodInfo:
    spec = {}
    if init or sidecars:
        spec["initContainers"] = containers(sidecars, "s", sidecar=True) + containers(init, "i")
    if overhead:
        spec["overhead"] = overhead
    if pod_level:
        spec["resources"] = {"requests": pod_level}
    return PodInfo(make_pod(name or f"p{next(_ids)}", containers=containers(reqs), node_name=node, **spec))


def enough_node(*pods: PodInfo) -> NodeInfo:
    # makeAllocatableResources(10, 20, 32, 5, 20, 5)
    return NodeInfo(make_node("n", allocatable={"cpu": "10m", "memory": "20", "pods": "32", A: "5",
                                                "ephemeral-storage": "20", HP: "5"}), pods)


def run_filter(pl: Fit, pod: PodInfo, node: NodeInfo):
    state = CycleState()
    _, st = pl.pre_filter(state, pod, [])
    assert st.is_success()
    return pl.filter(state, pod, node)


UU, U, OK = Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.UNSCHEDULABLE, Code.SUCCESS


def ins(name, requested, used, capacity, unresolvable=False):
    reason = "Too many pods" if name == "pods" else f"Insufficient {name}"
    return (name, reason, requested, used, capacity, unresolvable)


# (name, pod, existing pods on node, args, code, insufficient)
ENOUGH_REQUESTS = [
    ("no resources requested always fits", lambda: rpod(), [R(10, 20)], {}, OK, []),
    ("too many resources fails", lambda: rpod(R(1, 1)), [R(10, 20)], {}, U,
     [ins("cpu", 1, 10, 10), ins("memory", 1, 20, 20)]),
    ("too many resources fails due to init container cpu", lambda: rpod(R(1, 1), init=[R(3, 1)]), [R(8, 19)], {}, U,
     [ins("cpu", 3, 8, 10)]),
    ("too many resources fails due to highest init container cpu",
     lambda: rpod(R(1, 1), init=[R(3, 1), R(2, 1)]), [R(8, 19)], {}, U, [ins("cpu", 3, 8, 10)]),
    ("too many resources fails due to init container memory", lambda: rpod(R(1, 1), init=[R(1, 3)]), [R(9, 19)], {}, U,
     [ins("memory", 3, 19, 20)]),
    ("too many resources fails due to highest init container memory",
     lambda: rpod(R(1, 1), init=[R(1, 3), R(1, 2)]), [R(9, 19)], {}, U, [ins("memory", 3, 19, 20)]),
    ("init container fits because it's the max, not sum, of containers and init containers",
     lambda: rpod(R(1, 1), init=[R(1, 1)]), [R(9, 19)], {}, OK, []),
    ("multiple init containers fit because it's the max, not sum, of containers and init containers",
     lambda: rpod(R(1, 1), init=[R(1, 1), R(1, 1)]), [R(9, 19)], {}, OK, []),
    ("both resources fit", lambda: rpod(R(1, 1)), [R(5, 5)], {}, OK, []),
    ("one resource memory fits", lambda: rpod(R(2, 1)), [R(9, 5)], {}, U, [ins("cpu", 2, 9, 10)]),
    ("one resource cpu fits", lambda: rpod(R(1, 2)), [R(5, 19)], {}, U, [ins("memory", 2, 19, 20)]),
    ("equal edge case", lambda: rpod(R(5, 1)), [R(5, 19)], {}, OK, []),
    ("equal edge case for init container", lambda: rpod(R(4, 1), init=[R(5, 1)]), [R(5, 19)], {}, OK, []),
    ("extended resource fits", lambda: rpod(R(scalars={A: 1})), [R()], {}, OK, []),
    ("extended resource fits for init container", lambda: rpod(R(), init=[R(scalars={A: 1})]), [R()], {}, OK, []),
    ("extended resource capacity enforced", lambda: rpod(R(1, 1, scalars={A: 10})), [R(scalars={A: 0})], {}, UU,
     [ins(A, 10, 0, 5, True)]),
    ("extended resource capacity enforced for init container",
     lambda: rpod(R(), init=[R(1, 1, scalars={A: 10})]), [R(scalars={A: 0})], {}, UU, [ins(A, 10, 0, 5, True)]),
    ("extended resource allocatable enforced", lambda: rpod(R(1, 1, scalars={A: 1})), [R(scalars={A: 5})], {}, U,
     [ins(A, 1, 5, 5)]),
    ("extended resource allocatable enforced for init container",
     lambda: rpod(R(), init=[R(1, 1, scalars={A: 1})]), [R(scalars={A: 5})], {}, U, [ins(A, 1, 5, 5)]),
    ("extended resource allocatable enforced for multiple containers",
     lambda: rpod(R(1, 1, scalars={A: 3}), R(1, 1, scalars={A: 3})), [R(scalars={A: 2})], {}, UU,
     [ins(A, 6, 2, 5, True)]),
    ("extended resource allocatable admits multiple init containers",
     lambda: rpod(R(), init=[R(1, 1, scalars={A: 3}), R(1, 1, scalars={A: 3})]), [R(scalars={A: 2})], {}, OK, []),
    ("extended resource allocatable enforced for multiple init containers",
     lambda: rpod(R(), init=[R(1, 1, scalars={A: 6}), R(1, 1, scalars={A: 3})]), [R(scalars={A: 2})], {}, UU,
     [ins(A, 6, 2, 5, True)]),
    ("extended resource allocatable enforced for unknown resource", lambda: rpod(R(1, 1, scalars={B: 1})), [R()], {},
     UU, [ins(B, 1, 0, 0, True)]),
    ("extended resource allocatable enforced for unknown resource for init container",
     lambda: rpod(R(), init=[R(1, 1, scalars={B: 1})]), [R()], {}, UU, [ins(B, 1, 0, 0, True)]),
    ("kubernetes.io resource capacity enforced", lambda: rpod(R(1, 1, scalars={KA: 10})), [R()], {}, UU,
     [ins(KA, 10, 0, 0, True)]),
    ("kubernetes.io resource capacity enforced for init container",
     lambda: rpod(R(), init=[R(1, 1, scalars={KB: 10})]), [R()], {}, UU, [ins(KB, 10, 0, 0, True)]),
    ("hugepages resource capacity enforced", lambda: rpod(R(1, 1, scalars={HP: 10})), [R(scalars={HP: 0})], {}, UU,
     [ins(HP, 10, 0, 5, True)]),
    ("hugepages resource capacity enforced for init container",
     lambda: rpod(R(), init=[R(1, 1, scalars={HP: 10})]), [R(scalars={HP: 0})], {}, UU, [ins(HP, 10, 0, 5, True)]),
    ("hugepages resource allocatable enforced for multiple containers",
     lambda: rpod(R(1, 1, scalars={HP: 3}), R(1, 1, scalars={HP: 3})), [R(scalars={HP: 2})], {}, UU,
     [ins(HP, 6, 2, 5, True)]),
    ("skip checking ignored extended resource", lambda: rpod(R(1, 1, scalars={B: 1})), [R()],
     {"ignored_resources": [B]}, OK, []),
    ("resources + pod overhead fits", lambda: rpod(R(1, 1), overhead={"cpu": "3m", "memory": "13"}), [R(5, 5)], {},
     OK, []),
    ("requests + overhead does not fit for memory", lambda: rpod(R(1, 1), overhead={"cpu": "1m", "memory": "15"}),
     [R(5, 5)], {}, U, [ins("memory", 16, 5, 20)]),
    ("skip checking ignored extended resource via resource groups", lambda: rpod(R(1, 1, scalars={B: 1, KA: 1})),
     [R()], {"ignored_resource_groups": ["example.com"]}, UU, [ins(KA, 1, 0, 0, True)]),
    ("skip checking extended resource request with quantity zero via resource groups",
     lambda: rpod(R(1, 1, scalars={A: 0})), [R(scalars={A: 6})], {}, OK, []),
    ("skip checking resource request with quantity zero", lambda: rpod(R(scalars={A: 1})),
     [R(20, 30, scalars={A: 1})], {}, OK, []),
    ("both pod-level and container-level resources fit",
     lambda: rpod(R(1, 1), pod_level={"cpu": "1m", "memory": "2"}), [R(5, 5)], {}, OK, []),
    ("pod-level cpu resource not fit", lambda: rpod(R(1, 1), pod_level={"cpu": "7m", "memory": "2"}), [R(5, 5)], {},
     U, [ins("cpu", 7, 5, 10)]),
    ("pod-level memory resource not fit", lambda: rpod(R(1, 1), pod_level={"cpu": "3m", "memory": "2"}), [R(5, 19)],
     {}, U, [ins("memory", 2, 19, 20)]),
    ("pod-level hugepages resource fit", lambda: rpod(pod_level={"cpu": "3m", "memory": "2", HP: "5"}), [], {}, OK, []),
    ("both pod-level and container-level hugepages resource fit",
     lambda: rpod(R(1, 1, scalars={HP: 3}), pod_level={"cpu": "3m", "memory": "2", HP: "5"}), [], {}, OK, []),
    ("pod-level hugepages resource not fit", lambda: rpod(pod_level={"cpu": "3m", "memory": "2", HP: "10"}), [], {},
     UU, [ins(HP, 10, 0, 5, True)]),
    ("one pod-level cpu resource fits and all init and non-init containers resources fit",
     lambda: rpod(R(1, 1), init=[R(1, 1)], pod_level={"cpu": "3m", "memory": "2"}), [R(5, 19)], {}, U,
     [ins("memory", 2, 19, 20)]),
    # With DRAExtendedResource off (v1.34 default) the DRA-named resource is an ordinary extended resource.
    ("extended resource backed by DRA not enabled", lambda: rpod(R(1, 1, scalars={DRA: 1})), [R()], {}, UU,
     [ins(DRA, 1, 0, 0, True)]),
    ("extended resource backed by device plugin", lambda: rpod(R(scalars={A: 1})), [R()], {}, OK, []),
    ("extended resource NOT backed by DRA", lambda: rpod(R(1, 1, scalars={B: 1})), [R()], {}, UU,
     [ins(B, 1, 0, 0, True)]),
]


@pytest.mark.parametrize("name,make,existing,args,code,insufficient", ENOUGH_REQUESTS,
                         ids=[c[0] for c in ENOUGH_REQUESTS])
def test_enough_requests(name, make, existing, args, code, insufficient):
    pl = Fit(NodeResourcesFitArgs(**args))
    pod = make()
    node = enough_node(*(rpod(r) for r in existing))
    st = run_filter(pl, pod, node)
    assert st.code == code
    assert st.reasons == [i[1] for i in insufficient]
    got = fits_request(compute_pod_resource_request(pod), node, pl.ignored_resources, pl.ignored_resource_groups)
    assert [(r.resource_name, r.reason, r.requested, r.used, r.capacity, r.unresolvable) for r in got] == insufficient


def test_pre_filter_disabled():
    pl = Fit(NodeResourcesFitArgs())
    st = pl.filter(CycleState(), rpod(), NodeInfo(make_node("n", allocatable={})))
    assert st.code == Code.ERROR
    assert "not found" in st.message()


NOT_ENOUGH = [
    ("even without specified resources, predicate fails when there's no space for additional pod",
     lambda: rpod(), R(10, 20)),
    ("even if both resources fit, predicate fails when there's no space for additional pod",
     lambda: rpod(R(1, 1)), R(5, 5)),
    ("even for equal edge case, predicate fails when there's no space for additional pod",
     lambda: rpod(R(5, 1)), R(5, 19)),
    ("even for equal edge case, predicate fails when there's no space for additional pod due to init container",
     lambda: rpod(R(5, 1), init=[R(5, 1)]), R(5, 19)),
]


@pytest.mark.parametrize("name,make,existing", NOT_ENOUGH, ids=[c[0] for c in NOT_ENOUGH])
def test_not_enough_requests(name, make, existing):
    # makeAllocatableResources(10, 20, 1, 0, 0, 0)
    node = NodeInfo(make_node("n", allocatable={"cpu": "10m", "memory": "20", "pods": "1", A: "0",
                                                "ephemeral-storage": "0", HP: "0"}), [rpod(existing)])
    st = run_filter(Fit(NodeResourcesFitArgs()), make(), node)
    assert (st.code, st.reasons) == (Code.UNSCHEDULABLE, ["Too many pods"])


STORAGE = [
    ("empty storage requested, and pod fits", lambda: rpod(R(1, 1)), R(2, 10), OK, []),
    ("storage ephemeral local storage request exceeds allocatable", lambda: rpod(R(eph=25)), R(2, 2), UU,
     ["Insufficient ephemeral-storage"]),
    ("ephemeral local storage is sufficient", lambda: rpod(R(eph=5)), R(2, 2, eph=10), OK, []),
    ("pod fits", lambda: rpod(R(eph=10)), R(2, 2), OK, []),
]


@pytest.mark.parametrize("name,make,existing,code,reasons", STORAGE, ids=[c[0] for c in STORAGE])
def test_storage_requests(name, make, existing, code, reasons):
    st = run_filter(Fit(NodeResourcesFitArgs()), make(), enough_node(rpod(existing)))
    assert (st.code, st.reasons) == (code, reasons)


def _sidecar_pod(request=None, sidecar_request=None):
    spec = {"initContainers": [{"name": "restartable-init", "restartPolicy": "Always",
                                **({"resources": {"requests": sidecar_request}} if sidecar_request else {})}]}
    c = {"name": "regular", **({"resources": {"requests": request}} if request else {})}
    return PodInfo(make_pod(f"p{next(_ids)}", containers=[c], **spec))


RESTARTABLE = [
    ("allow pod without restartable init containers if sidecar containers is disabled",
     lambda: PodInfo(make_pod(f"p{next(_ids)}", containers=[{"name": "regular"}])), False, None, None),
    ("not allow pod with restartable init containers if sidecar containers is disabled",
     lambda: _sidecar_pod(), False, ERR_REASON_RESTARTABLE_INIT_CONTAINER, None),
    ("allow pod without restartable init containers if sidecar containers is enabled",
     lambda: PodInfo(make_pod(f"p{next(_ids)}", containers=[{"name": "regular"}])), True, None, None),
    ("allow pod with restartable init containers if sidecar containers is enabled",
     lambda: _sidecar_pod(), True, None, None),
    ("allow pod if the total requested resources do not exceed the node's allocatable resources",
     lambda: _sidecar_pod({"cpu": "1m"}, {"cpu": "1m"}), True, None, None),
    ("not allow pod if the total requested resources do exceed the node's allocatable resources",
     lambda: _sidecar_pod({"cpu": "1m"}, {"cpu": "2m"}), True, None, "Insufficient cpu"),
]


@pytest.mark.parametrize("name,make,enabled,pre_filter_reason,filter_reason", RESTARTABLE,
                         ids=[c[0] for c in RESTARTABLE])
def test_restartable_init_containers(name, make, enabled, pre_filter_reason, filter_reason):
    # makeAllocatableResources(2, 0, 1, 0, 0, 0)
    node = NodeInfo(make_node("n", allocatable={"cpu": "2m", "memory": "0", "pods": "1", A: "0",
                                                "ephemeral-storage": "0", HP: "0"}))
    pl = Fit(NodeResourcesFitArgs(), enable_sidecar_containers=enabled)
    state, pod = CycleState(), make()
    _, st = pl.pre_filter(state, pod, [])
    if pre_filter_reason:
        assert (st.code, st.reasons) == (UU, [pre_filter_reason])
        return
    assert st.is_success()
    st = pl.filter(state, pod, node)
    if filter_reason:
        assert (st.code, st.reasons) == (UU, [filter_reason])
    else:
        assert st.is_success()


# --- TestFitScore ---------------------------------------------------------------------


def spod(*reqs, node=None):
    """``st.MakePod().Req(...)``: one container per request map."""
    return rpod(*reqs, node=node)


def cap_node(name, **alloc):
    return make_node(name, allocatable={"pods": "32", **alloc})


RTCR_LEAST = [UtilizationShapePoint(0, 10), UtilizationShapePoint(100, 0)]
RTCR_MOST = [UtilizationShapePoint(0, 0), UtilizationShapePoint(100, 10)]

FIT_SCORE = [
    ("test case for ScoringStrategy RequestedToCapacityRatio case1", {"cpu": "3000", "memory": "5000"},
     ScoringStrategy("RequestedToCapacityRatio", list(DEFAULT_RESOURCES), RTCR_LEAST), [10, 32], True),
    ("test case for ScoringStrategy RequestedToCapacityRatio case2", {"cpu": "3000", "memory": "5000"},
     ScoringStrategy("RequestedToCapacityRatio", list(DEFAULT_RESOURCES), RTCR_MOST), [95, 68], True),
    ("test case for ScoringStrategy MostAllocated", {"cpu": "1000", "memory": "2000"},
     ScoringStrategy("MostAllocated", list(DEFAULT_RESOURCES)), [67, 36], True),
    ("test case for ScoringStrategy LeastAllocated", {"cpu": "1000", "memory": "2000"},
     ScoringStrategy("LeastAllocated", list(DEFAULT_RESOURCES)), [32, 63], True),
    ("test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore is not called",
     {"cpu": "3000", "memory": "5000"},
     ScoringStrategy("RequestedToCapacityRatio", list(DEFAULT_RESOURCES), RTCR_LEAST), [10, 32], False),
    ("test case for ScoringStrategy MostAllocated if PreScore is not called", {"cpu": "1000", "memory": "2000"},
     ScoringStrategy("MostAllocated", list(DEFAULT_RESOURCES)), [67, 36], False),
    ("test case for ScoringStrategy LeastAllocated if PreScore is not called", {"cpu": "1000", "memory": "2000"},
     ScoringStrategy("LeastAllocated", list(DEFAULT_RESOURCES)), [32, 63], False),
]


@pytest.mark.parametrize("name,req,strategy,expected,run_pre_score", FIT_SCORE, ids=[c[0] for c in FIT_SCORE])
def test_fit_score(name, req, strategy, expected, run_pre_score):
    nodes = [cap_node("node1", cpu="4000", memory="10000"), cap_node("node2", cpu="6000", memory="10000")]
    existing = [spod({"cpu": "2000", "memory": "4000"}, node="node1"), spod({"cpu": "1000", "memory": "2000"}, node="node2")]
    snap = new_snapshot(nodes, existing)
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=strategy), SimpleNamespace(snapshot=snap))
    pod, state = spod(req), CycleState()
    got = []
    for n in snap.list():
        if run_pre_score:
            assert pl.pre_score(state, pod, snap.list()).is_success()
        score, st = pl.score(state, pod, n)
        assert st.is_success()
        got.append(score)
    assert got == expected


@pytest.mark.parametrize("strategy,expected", [("MostAllocated", [67, 45]), ("LeastAllocated", [32, 55])])
def test_fit_score_with_sidecar_container(strategy, expected):
    nodes = [cap_node("node1", cpu="4000", memory="10000"), cap_node("node2", cpu="4000", memory="10000")]
    existing = [rpod({"cpu": "1000", "memory": "2000"}, sidecars=[{"cpu": "1000", "memory": "2000"}], node="node1"),
                rpod({"cpu": "1000", "memory": "2000"}, node="node2")]
    snap = new_snapshot(nodes, existing)
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(strategy, list(DEFAULT_RESOURCES))))
    pod, state = rpod({"cpu": "1000", "memory": "2000"}), CycleState()
    assert pl.pre_score(state, pod, snap.list()).is_success()
    assert [pl.score(state, pod, n)[0] for n in snap.list()] == expected


# --- args: v1 defaults and validation ----------------------------------------------------


def test_v1_defaults():
    a = NodeResourcesFitArgs.from_config(None)
    assert a.scoring_strategy == ScoringStrategy("LeastAllocated", list(DEFAULT_RESOURCES), None)
    a = NodeResourcesFitArgs.from_config({"scoringStrategy": {"type": "MostAllocated", "resources": [
        {"name": "cpu"}, {"name": "nvidia.com/gpu", "weight": 5}]}})
    assert a.scoring_strategy.resources == [ResourceSpec("cpu", 1), ResourceSpec("nvidia.com/gpu", 5)]
    a = NodeResourcesFitArgs.from_config({"kind": "NodeResourcesFitArgs", "scoringStrategy": {"type": "MostAllocated"}})
    assert a.scoring_strategy.resources == list(DEFAULT_RESOURCES)


@pytest.mark.parametrize("args,message", [
    (NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", [ResourceSpec("memory", -1),
                                                                              ResourceSpec("cpu", 1)])),
     "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid range (0, 100]"),
    (NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("MostAllocated", [ResourceSpec("memory", 1),
                                                                             ResourceSpec("cpu", 0)])),
     "scoringStrategy.resources[1].weight: Invalid value: 0: resource weight of cpu not in valid range (0, 100]"),
    (NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", [ResourceSpec("memory", 1),
                                                                              ResourceSpec("cpu", 101)])),
     "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"),
    (NodeResourcesFitArgs(scoring_strategy=None), "scoringStrategy: Required value: ScoringStrategy field is required"),
    (NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("RequestedToCapacityRatio")),
     "scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio"),
    (NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", requested_to_capacity_ratio=[])),
     "scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio"),
    (NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("RequestedToCapacityRatio", requested_to_capacity_ratio=[])),
     "scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified"),
    (NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("RequestedToCapacityRatio", requested_to_capacity_ratio=[
        UtilizationShapePoint(30, 1), UtilizationShapePoint(20, 11)])),
     "[scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 20: values must be sorted in "
     "increasing order, scoringStrategy.requestedToCapacityRatio.shape[1].score: Invalid value: 11: not in valid "
     "range [0, 10]]"),
    (NodeResourcesFitArgs(ignored_resources=["example.com/aaa", "/x"]),
     'ignoredResources[1]: Invalid value: "/x": prefix part must be non-empty'),
])
def test_validation(args, message):
    with pytest.raises(ConfigError) as e:
        Fit(args)
    assert str(e.value) == message


def test_unknown_field_is_rejected():
    with pytest.raises(ConfigError, match='unknown field "scoringstrategy"'):
        fit.new({"scoringstrategy": {}})


def test_resources_not_set_score_error():
    # Upstream "Resources not set, pods scheduled with error": validation accepts an empty list.
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", [])))
    node = NodeInfo(cap_node("node1", cpu="4000", memory="10000"))
    state, pod = CycleState(), spod({"cpu": "1000", "memory": "2000"})
    assert pl.pre_score(state, pod, [node]).is_success()
    score, st = pl.score(state, pod, node)
    assert (score, st.code) == (0, Code.ERROR)


def test_name_and_factory():
    pl = fit.new(None)
    assert pl.name() == "NodeResourcesFit" and pl.score_extensions() is None and pl.pre_filter_extensions() is None
