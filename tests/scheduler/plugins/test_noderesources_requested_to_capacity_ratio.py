"""RequestedToCapacityRatio scoring against upstream's requested_to_capacity_ratio_test.go
(TestRequestedToCapacityRatioScoringStrategy, TestResourceBinPackingSingleExtended,
TestResourceBinPackingMultipleExtended).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio_test.go
"""

from __future__ import annotations

import itertools

import pytest

from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.noderesources import fit
from kubenotes.scheduler.plugins.noderesources.fit import Fit, NodeResourcesFitArgs, ScoringStrategy
from kubenotes.scheduler.plugins.noderesources.requested_to_capacity_ratio import (
    UtilizationShapePoint,
    requested_to_capacity_ratio_scorer,
)
from kubenotes.scheduler.plugins.noderesources.resource_allocation import ResourceSpec
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

DEFAULT = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
SHAPE = [UtilizationShapePoint(0, 10), UtilizationShapePoint(100, 0)]
_ids = itertools.count()


def pod(*reqs, node=None):
    cs = [{"name": f"c{i}", "image": "img", "resources": {"requests": r}} for i, r in enumerate(reqs)]
    return PodInfo(make_pod(f"p{next(_ids)}", containers=cs, node_name=node))


def cap_node(name, cpu, mem):
    return make_node(name, allocatable={"pods": "32", "cpu": cpu, "memory": mem})


def ext_node(name, milli_cpu, memory, extended):
    """Upstream ``makeNode(name, milliCPU, memory, extended)`` (test_util.go)."""
    return make_node(name, allocatable={"cpu": f"{milli_cpu}m", "memory": str(memory),
                                        **{k: str(v) for k, v in extended.items()}})


def scores(strategy: ScoringStrategy, nodes, existing, p):
    snap = new_snapshot(nodes, existing)
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=strategy))
    state = CycleState()
    out = []
    for ni in snap.list():
        assert pl.pre_score(state, p, snap.list()).is_success()
        s, st = pl.score(state, p, ni)
        assert st.is_success()
        out.append(s)
    return out


R2 = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})

STRATEGY_CASES = [
    ("nothing scheduled, nothing requested (default - least requested nodes have priority)", (),
     [cap_node("node1", "4000", "10000"), cap_node("node2", "4000", "10000")],
     [((), "node1"), ((), "node1")], [100, 100]),
    ("nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
     R2, [cap_node("node1", "4000", "10000"), cap_node("node2", "6000", "10000")],
     [((), "node1"), ((), "node1")], [38, 50]),
    ("no resources requested, pods scheduled with resources (default - least requested nodes have priority)", (),
     [cap_node("node1", "4000", "10000"), cap_node("node2", "6000", "10000")],
     [(({"cpu": "3000", "memory": "5000"},), "node1"), (({"cpu": "3000", "memory": "5000"},), "node2")], [38, 50]),
]


@pytest.mark.parametrize("name,reqs,nodes,existing,expected", STRATEGY_CASES, ids=[c[0] for c in STRATEGY_CASES])
def test_requested_to_capacity_ratio_scoring_strategy(name, reqs, nodes, existing, expected):
    strategy = ScoringStrategy("RequestedToCapacityRatio", DEFAULT, SHAPE)
    assert scores(strategy, nodes, [pod(*r, node=nn) for r, nn in existing], pod(*reqs)) == expected


FOO, BAR = "intel.com/foo", "intel.com/bar"
BIN_SHAPE = [UtilizationShapePoint(0, 0), UtilizationShapePoint(100, 1)]

SINGLE = [
    ("nothing scheduled, nothing requested", (), [((), None)], [0, 0]),
    ("resources requested, pods scheduled with less resources", ({FOO: "2"},), [((), None)], [2, 5]),
    ("resources requested, pods scheduled with resources, on node with existing pod running ", ({FOO: "2"},),
     [(({FOO: "2"},), "node2")], [2, 10]),
    ("resources requested, pods scheduled with more resources", ({FOO: "4"},), [((), None)], [5, 10]),
]


@pytest.mark.parametrize("name,reqs,existing,expected", SINGLE, ids=[c[0] for c in SINGLE])
def test_resource_bin_packing_single_extended(name, reqs, existing, expected):
    nodes = [ext_node("node1", 4000, 10000 * 1024 * 1024, {FOO: 8}),
             ext_node("node2", 4000, 10000 * 1024 * 1024, {FOO: 4})]
    strategy = ScoringStrategy("RequestedToCapacityRatio", [ResourceSpec(FOO, 1)], BIN_SHAPE)
    assert scores(strategy, nodes, [pod(*r, node=nn) for r, nn in existing], pod(*reqs)) == expected


MULTIPLE = [
    ("nothing scheduled, nothing requested", (), [((), None)], [0, 0]),
    ("resources requested, pods scheduled with less resources", ({FOO: "2", BAR: "2"},), [((), None)], [4, 3]),
    ("resources requested, pods scheduled with resources, on node with existing pod running ",
     ({FOO: "2", BAR: "2"},), [(({FOO: "4", BAR: "2"},), "node2")], [4, 7]),
    ("resources requested, pods scheduled with more resources", ({FOO: "4", BAR: "2"},), [((), None)], [5, 5]),
]


@pytest.mark.parametrize("name,reqs,existing,expected", MULTIPLE, ids=[c[0] for c in MULTIPLE])
def test_resource_bin_packing_multiple_extended(name, reqs, existing, expected):
    nodes = [ext_node("node1", 4000, 10000 * 1024 * 1024, {FOO: 8, BAR: 4}),
             ext_node("node2", 4000, 10000 * 1024 * 1024, {FOO: 4, BAR: 8})]
    strategy = ScoringStrategy("RequestedToCapacityRatio", [ResourceSpec(FOO, 3), ResourceSpec(BAR, 5)], BIN_SHAPE)
    assert scores(strategy, nodes, [pod(*r, node=nn) for r, nn in existing], pod(*reqs)) == expected


def test_user_scale_is_mapped_to_0_100_and_rounds_half_away_from_zero():
    f = requested_to_capacity_ratio_scorer(DEFAULT, SHAPE)
    # cpu 75% -> 25, memory 50% -> 50: mean 37.5 rounds to 38 (Go math.Round), not 38/37 by banker's rounding.
    assert f([3000, 5000], [4000, 10000]) == 38
    # A decreasing segment with a non-exact quotient truncates toward zero as Go does:
    # shape (0, 100) -> (30, 0) at 20%: 100 + (-100 * 20) / 30 = 100 - 66 = 34 (flooring would give 33).
    g = requested_to_capacity_ratio_scorer([ResourceSpec("cpu", 1)],
                                           [UtilizationShapePoint(0, 10), UtilizationShapePoint(30, 0)])
    assert g([2000], [10000]) == 34


def test_factory_parses_shape():
    pl = fit.new({"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": [{"name": "cpu", "weight": 1}],
                                      "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                                                             {"utilization": 100, "score": 10}]}}})
    assert pl.scorer.name == "RequestedToCapacityRatio"
    assert pl.scorer.scorer([1000], [4000]) == 25
