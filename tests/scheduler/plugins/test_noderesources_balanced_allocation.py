"""NodeResourcesBalancedAllocation against upstream's balanced_allocation_test.go
(TestNodeResourcesBalancedAllocation, v1.33/v1.34 table with the best-effort Skip).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go
"""

from __future__ import annotations

import itertools

import pytest

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.noderesources import balanced_allocation
from kubenotes.scheduler.plugins.noderesources.balanced_allocation import (
    BalancedAllocation,
    NodeResourcesBalancedAllocationArgs,
    balanced_resource_scorer,
)
from kubenotes.scheduler.plugins.noderesources.resource_allocation import ResourceSpec
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

GPU = "nvidia.com/gpu"
DEFAULT = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
WITH_GPU = DEFAULT + [ResourceSpec(GPU, 1)]
_ids = itertools.count()

# Upstream's pod specs; each is bound to the node in its NodeName.
CPU_AND_MEMORY_AND_GPU = ([{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000", GPU: "3"}], "node1")
CPU_ONLY = ([{"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}], "node1")
CPU_ONLY2 = (CPU_ONLY[0], "node2")
CPU_AND_MEMORY = ([{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}], "node2")


def pod(spec=None, reqs=None):
    """A pod from one of the specs above (bound), or ``st.MakePod().Req(reqs)`` (unbound)."""
    if spec is not None:
        reqs, node = spec
    else:
        node = None
    cs = [{"name": f"c{i}", "image": "img", "resources": {"requests": r}} for i, r in enumerate(reqs or ())]
    return PodInfo(make_pod(f"p{next(_ids)}", containers=cs, node_name=node))


def node(name, milli_cpu, memory, extended=None):
    """Upstream ``makeNode`` (test_util.go)."""
    return make_node(name, allocatable={"cpu": f"{milli_cpu}m", "memory": str(memory),
                                        **{k: str(v) for k, v in (extended or {}).items()}})


CASES = [
    ("nothing scheduled, resources requested, differently sized nodes", lambda: pod(CPU_AND_MEMORY),
     [node("node1", 4000, 10000), node("node2", 6000, 10000)], [], DEFAULT, [87, 100], True),
    ("resources requested, pods scheduled with resources", lambda: pod(CPU_AND_MEMORY),
     [node("node1", 10000, 20000), node("node2", 10000, 20000)], [CPU_ONLY, CPU_AND_MEMORY], DEFAULT, [82, 95], True),
    ("resources requested, pods scheduled with resources, differently sized nodes", lambda: pod(CPU_AND_MEMORY),
     [node("node1", 10000, 20000), node("node2", 10000, 50000)], [CPU_ONLY, CPU_AND_MEMORY], DEFAULT, [82, 80], True),
    ("requested resources at node capacity", lambda: pod(CPU_ONLY),
     [node("node1", 6000, 10000), node("node2", 6000, 10000)], [CPU_ONLY, CPU_AND_MEMORY], DEFAULT, [50, 75], True),
    ("include scalar resource on a node for balanced resource allocation",
     lambda: pod(reqs=[{"memory": "0", GPU: "1"}]),
     [node("node1", 3500, 40000, {GPU: 8}), node("node2", 3500, 40000, {GPU: 8})],
     [CPU_AND_MEMORY, CPU_AND_MEMORY_AND_GPU], WITH_GPU, [70, 65], True),
    ("node without the scalar resource should skip the scalar resource", lambda: pod(CPU_AND_MEMORY),
     [node("node1", 3500, 40000, {GPU: 8}), node("node2", 3500, 40000)], [], WITH_GPU, [63, 63], True),
    ("resources requested, pods scheduled with resources if PreScore not called", lambda: pod(CPU_AND_MEMORY),
     [node("node1", 10000, 20000), node("node2", 10000, 20000)], [CPU_ONLY, CPU_AND_MEMORY], DEFAULT, [82, 95], False),
]


@pytest.mark.parametrize("name,make,nodes,existing,resources,expected,run_pre_score", CASES, ids=[c[0] for c in CASES])
def test_node_resources_balanced_allocation(name, make, nodes, existing, resources, expected, run_pre_score):
    snap = new_snapshot(nodes, [pod(s) for s in existing])
    pl = BalancedAllocation(NodeResourcesBalancedAllocationArgs(resources))
    p, state = make(), CycleState()
    if run_pre_score:
        assert pl.pre_score(state, p, snap.list()).code == Code.SUCCESS
    got = []
    for ni in snap.list():
        score, st = pl.score(state, p, ni)
        assert st.is_success()
        got.append(score)
    assert got == expected


def test_nothing_scheduled_nothing_requested_skip_in_pre_score():
    snap = new_snapshot([node("node1", 4000, 10000), node("node2", 4000, 10000)], [])
    pl = BalancedAllocation(NodeResourcesBalancedAllocationArgs(DEFAULT))
    assert pl.pre_score(CycleState(), pod(reqs=[]), snap.list()).code == Code.SKIP


def test_best_effort_pod_scores_zero_without_pre_score():
    pl = BalancedAllocation(NodeResourcesBalancedAllocationArgs(DEFAULT))
    ni = new_snapshot([node("node1", 4000, 10000)], []).list()[0]
    score, st = pl.score(CycleState(), pod(reqs=[{}]), ni)
    assert (score, st.code) == (0, Code.SUCCESS)


def test_uses_actual_requests_not_non_zero_defaults():
    # A container without requests would count 100m/200Mi in NodeResourcesFit, but not here.
    pl = BalancedAllocation(NodeResourcesBalancedAllocationArgs(DEFAULT))
    assert pl.scorer.calculate_pod_resource_request_list(pod(reqs=[{}])) == [0, 0]


@pytest.mark.parametrize("requested,allocatable,expected", [
    ([3000, 5000], [4000, 10000], 87),
    ([6000, 0], [6000, 10000], 50),
    ([7000, 0], [6000, 0], 100),         # one resource: std 0; fraction capped at 1
    ([0, 0, 0], [0, 0, 0], 100),
])
def test_balanced_resource_scorer(requested, allocatable, expected):
    assert balanced_resource_scorer(requested, allocatable) == expected


def test_v1_defaults_and_validation():
    assert NodeResourcesBalancedAllocationArgs.from_config(None).resources == DEFAULT
    assert NodeResourcesBalancedAllocationArgs.from_config({"resources": [{"name": "cpu", "weight": 0}]}).resources == \
        [ResourceSpec("cpu", 1)]
    with pytest.raises(ConfigError) as e:
        balanced_allocation.new({"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 3}]})
    assert str(e.value) == ('[resources[1].name: Duplicate value: "cpu", '
                            'resources[1].weight: Invalid value: 3: must be 1]')


def test_name():
    pl = balanced_allocation.new(None)
    assert pl.name() == "NodeResourcesBalancedAllocation" and pl.score_extensions() is None
