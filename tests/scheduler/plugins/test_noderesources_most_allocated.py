"""MostAllocated scoring against upstream's most_allocated_test.go (TestMostAllocatedScoringStrategy).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/most_allocated_test.go
"""

from __future__ import annotations

import itertools

import pytest

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.noderesources.fit import Fit, NodeResourcesFitArgs, ScoringStrategy
from kubenotes.scheduler.plugins.noderesources.most_allocated import most_requested_score
from kubenotes.scheduler.plugins.noderesources.resource_allocation import ResourceSpec
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

EXT = "abc.com/xyz"
DEFAULT = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
EXTENDED_SET = DEFAULT + [ResourceSpec(EXT, 1)]
_ids = itertools.count()
EMPTY_CONTAINER = object()  # st.MakePod().Container("container"): one container without requests


def pod(*reqs, node=None):
    cs = []
    for i, r in enumerate(reqs):
        c = {"name": f"c{i}", "image": "img"}
        if r is not EMPTY_CONTAINER:
            c["resources"] = {"requests": r}
        cs.append(c)
    return PodInfo(make_pod(f"p{next(_ids)}", containers=cs, node_name=node))


def node(name, **alloc):
    return make_node(name, allocatable={"pods": "32", **alloc} if alloc else {})


def n(name, cpu, mem):
    return node(name, cpu=cpu, memory=mem)


R2 = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})
ON_NODES = [(({"cpu": "3000", "memory": "0"},), "node1"), (({"cpu": "3000", "memory": "5000"},), "node2")]

CASES = [
    ("nothing scheduled, nothing requested", (), [n("node1", "4000", "10000"), n("node2", "4000", "10000")], [],
     DEFAULT, [0, 0]),
    ("nothing scheduled, resources requested, differently sized nodes", R2,
     [n("node1", "4000", "10000"), n("node2", "6000", "10000")], [], DEFAULT, [62, 50]),
    ("no resources requested, pods scheduled with resources", (),
     [n("node1", "10000", "20000"), n("node2", "10000", "20000")],
     [(({"cpu": "3000", "memory": "0"},), "node1"), (({"cpu": "3000", "memory": "0"},), "node1"),
      (({"cpu": "3000", "memory": "0"},), "node2"), (({"cpu": "3000", "memory": "5000"},), "node2")],
     DEFAULT, [30, 42]),
    ("resources requested, pods scheduled with resources", R2,
     [n("node1", "10000", "20000"), n("node2", "10000", "20000")], ON_NODES, DEFAULT, [42, 55]),
    ("resources requested equal node capacity", ({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
     [n("node1", "5000", "10000"), n("node2", "10000", "9000")], [], DEFAULT, [95, 75]),
    ("nothing scheduled, resources requested, differently sized nodes (weighted)", R2,
     [n("node1", "4000", "10000"), n("node2", "6000", "10000")], [],
     [ResourceSpec("memory", 2), ResourceSpec("cpu", 1)], [58, 50]),
    ("no resources requested, pods scheduled, nonzero request for resource", (EMPTY_CONTAINER,),
     [n("node1", "250m", "1000Mi"), n("node2", "250m", "1000Mi")],
     [((EMPTY_CONTAINER,), "node1"), ((EMPTY_CONTAINER,), "node1")], DEFAULT, [80, 30]),
    ("bypass extended resource if the pod does not request", R2,
     [n("node1", "6000", "10000"), node("node2", cpu="6000", memory="10000", **{EXT: "4"})], [],
     EXTENDED_SET, [50, 50]),
    ("honor extended resource if the pod request", ({"cpu": "3000", "memory": "5000", EXT: "2"},),
     [node("node1", cpu="6000", memory="10000", **{EXT: "4"}), node("node2", cpu="6000", memory="10000", **{EXT: "10"})],
     [], EXTENDED_SET, [50, 40]),
    ("if the node doesn't have a resource", ({"cpu": "3000", "memory": "4000"},),
     [n("node1", "6000", "10000"), node("node2", cpu="6000", memory="10000", **{EXT: "4"})], [],
     [ResourceSpec(EXT, 2), ResourceSpec("cpu", 1), ResourceSpec("memory", 1)], [45, 45]),
]


@pytest.mark.parametrize("name,reqs,nodes,existing,resources,expected", CASES, ids=[c[0] for c in CASES])
def test_most_allocated_scoring_strategy(name, reqs, nodes, existing, resources, expected):
    snap = new_snapshot(nodes, [pod(*r, node=nn) for r, nn in existing])
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("MostAllocated", resources)))
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
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("MostAllocated", [])))
    p, state = pod(*R2), CycleState()
    pl.pre_score(state, p, snap.list())
    for ni in snap.list():
        score, st = pl.score(state, p, ni)
        assert (score, st.code) == (0, Code.ERROR)


@pytest.mark.parametrize("resources,field", [
    ([ResourceSpec("memory", -1), ResourceSpec("cpu", 1)], "scoringStrategy.resources[0].weight"),
    ([ResourceSpec("memory", 1), ResourceSpec("cpu", 0)], "scoringStrategy.resources[1].weight"),
    ([ResourceSpec("memory", 101)], "scoringStrategy.resources[0].weight"),
], ids=["resource with negative weight", "resource with zero weight", "resource weight larger than MaxNodeScore"])
def test_invalid_weights(resources, field):
    with pytest.raises(ConfigError) as e:
        Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("MostAllocated", resources)))
    assert str(e.value).startswith(field + ": Invalid value: ")


@pytest.mark.parametrize("requested,capacity,expected", [(0, 0, 0), (300, 250, 100), (3000, 4000, 75)])
def test_most_requested_score(requested, capacity, expected):
    assert most_requested_score(requested, capacity) == expected
