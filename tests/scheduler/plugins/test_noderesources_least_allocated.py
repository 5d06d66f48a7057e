"""LeastAllocated scoring against upstream's least_allocated_test.go (TestLeastAllocatedScoringStrategy).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go
"""

from __future__ import annotations

import itertools

import pytest

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.noderesources.fit import Fit, NodeResourcesFitArgs, ScoringStrategy
from kubenotes.scheduler.plugins.noderesources.least_allocated import least_requested_score
from kubenotes.scheduler.plugins.noderesources.resource_allocation import ResourceSpec
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

EXT = "abc.com/xyz"
DEFAULT = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
EXTENDED_SET = DEFAULT + [ResourceSpec(EXT, 1)]
_ids = itertools.count()


def pod(*reqs, node=None):
    """``st.MakePod().Req(r1).Req(r2)``: no containers unless requests are given."""
    cs = [{"name": f"c{i}", "image": "img", "resources": {"requests": r}} for i, r in enumerate(reqs)]
    return PodInfo(make_pod(f"p{next(_ids)}", containers=cs, node_name=node))


def node(name, **alloc):
    """``st.MakeNode().Name(name).Capacity(alloc)`` (pods 32 added when any capacity is given)."""
    return make_node(name, allocatable={"pods": "32", **alloc} if alloc else {})


def n(name, cpu, mem, **ext):
    return node(name, cpu=cpu, memory=mem, **ext)


R2 = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})

CASES = [
    ("nothing scheduled, nothing requested", (), [n("node1", "4000", "10000"), n("node2", "4000", "10000")], [],
     DEFAULT, [100, 100]),
    ("nothing scheduled, resources requested, differently sized nodes", R2,
     [n("node1", "4000", "10000"), n("node2", "6000", "10000")], [], DEFAULT, [37, 50]),
    ("no resources requested, pods scheduled", (), [n("node1", "4000", "10000"), n("node2", "4000", "10000")],
     [((), "node1"), ((), "node1"), ((), "node2"), ((), "node2")], DEFAULT, [100, 100]),
    ("no resources requested, pods scheduled with resources", (),
     [n("node1", "10000", "20000"), n("node2", "10000", "20000")],
     [(({"cpu": "3000", "memory": "0"},), "node1"), (({"cpu": "3000", "memory": "0"},), "node1"),
      (({"cpu": "3000", "memory": "0"},), "node2"), (({"cpu": "3000", "memory": "5000"},), "node2")],
     DEFAULT, [70, 57]),
    ("resources requested, pods scheduled with resources", R2,
     [n("node1", "10000", "20000"), n("node2", "10000", "20000")],
     [(({"cpu": "3000", "memory": "0"},), "node1"), (({"cpu": "3000", "memory": "5000"},), "node2")],
     DEFAULT, [57, 45]),
    ("resources requested, pods scheduled with resources, differently sized nodes", R2,
     [n("node1", "10000", "20000"), n("node2", "10000", "50000")],
     [(({"cpu": "3000", "memory": "0"},), "node1"), (({"cpu": "3000", "memory": "5000"},), "node2")],
     DEFAULT, [57, 60]),
    ("requested resources exceed node capacity", ({"cpu": "3000", "memory": "0"},),
     [n("node1", "4000", "10000"), n("node2", "4000", "10000")],
     [(({"cpu": "3000", "memory": "0"},), "node1"), (({"cpu": "3000", "memory": "5000"},), "node2")],
     DEFAULT, [50, 25]),
    ("zero node resources, pods scheduled with resources", (), [node("node1"), node("node2")],
     [(({"cpu": "3000", "memory": "0"},), "node1"), (({"cpu": "3000", "memory": "5000"},), "node2")],
     DEFAULT, [0, 0]),
    ("nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes", R2,
     [n("node1", "4000", "10000"), n("node2", "6000", "10000")], [],
     [ResourceSpec("memory", 2), ResourceSpec("cpu", 1)], [41, 50]),
    ("bypass extended resource if the pod does not request", R2,
     [n("node1", "6000", "10000"), node("node2", cpu="6000", memory="10000", **{EXT: "4"})], [],
     EXTENDED_SET, [50, 50]),
    ("honor extended resource if the pod requests", ({"cpu": "3000", "memory": "5000", EXT: "2"},),
     [node("node1", cpu="6000", memory="10000", **{EXT: "4"}), node("node2", cpu="6000", memory="10000", **{EXT: "10"})],
     [], EXTENDED_SET, [50, 60]),
    ("if the node doesn't have a resource", ({"cpu": "3000", "memory": "4000"},),
     [n("node1", "6000", "10000"), node("node2", cpu="6000", memory="10000", **{EXT: "4"})], [],
     [ResourceSpec(EXT, 2), ResourceSpec("cpu", 1), ResourceSpec("memory", 1)], [55, 55]),
]


@pytest.mark.parametrize("name,reqs,nodes,existing,resources,expected", CASES, ids=[c[0] for c in CASES])
def test_least_allocated_scoring_strategy(name, reqs, nodes, existing, resources, expected):
    snap = new_snapshot(nodes, [pod(*r, node=nn) for r, nn in existing])
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", resources)))
    p, state = pod(*reqs), CycleState()
    assert pl.pre_score(state, p, snap.list()).is_success()
    got = []
    for ni in snap.list():
        score, st = pl.score(state, p, ni)
        assert st.is_success()
        got.append(score)
    assert got == expected


def test_resources_not_set_pods_scheduled_with_error():
    snap = new_snapshot([n("node1", "4000", "10000"), n("node2", "6000", "10000")], [])
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", [])))
    p, state = pod(*R2), CycleState()
    pl.pre_score(state, p, snap.list())
    assert [(pl.score(state, p, ni)[0], pl.score(state, p, ni)[1].code) for ni in snap.list()] == \
        [(0, Code.ERROR), (0, Code.ERROR)]


@pytest.mark.parametrize("resources,field", [
    ([ResourceSpec("memory", -1), ResourceSpec("cpu", 1)], "scoringStrategy.resources[0].weight"),
    ([ResourceSpec("memory", 1), ResourceSpec("cpu", 0)], "scoringStrategy.resources[1].weight"),
    ([ResourceSpec("memory", 1), ResourceSpec("cpu", 101)], "scoringStrategy.resources[1].weight"),
], ids=["resource with negative weight", "resource with zero weight", "resource weight larger than MaxNodeScore"])
def test_invalid_weights(resources, field):
    with pytest.raises(ConfigError) as e:
        Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("LeastAllocated", resources)))
    assert str(e.value).startswith(field + ": Invalid value: ")


@pytest.mark.parametrize("requested,capacity,expected", [(0, 0, 0), (5, 4, 0), (3000, 4000, 25), (0, 10, 100)])
def test_least_requested_score(requested, capacity, expected):
    assert least_requested_score(requested, capacity) == expected
