"""TaintToleration against upstream's taint_toleration_test.go (TestTaintTolerationScore, TestTaintTolerationFilter).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go
"""

from __future__ import annotations

import pytest

from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code, NodeScore
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import tainttoleration
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod


def pod_with_tolerations(tolerations):
    return PodInfo(make_pod("pod1", tolerations=tolerations) if tolerations else make_pod("pod1"))


def tol(key, value, effect, op="Equal"):
    return {"key": key, "operator": op, "value": value, "effect": effect}


def taint(key, value, effect):
    return {"key": key, "value": value, "effect": effect}


CPU_ARM = taint("cpu-type", "arm64", "PreferNoSchedule")
DISK_SSD = taint("disk-type", "ssd", "PreferNoSchedule")

SCORE_CASES = [
    ("node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
     [tol("foo", "bar", "PreferNoSchedule")],
     [("nodeA", [taint("foo", "bar", "PreferNoSchedule")]), ("nodeB", [taint("foo", "blah", "PreferNoSchedule")])],
     [100, 0]),
    ("the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable "
     "taints a node has",
     [tol("cpu-type", "arm64", "PreferNoSchedule"), tol("disk-type", "ssd", "PreferNoSchedule")],
     [("nodeA", []), ("nodeB", [CPU_ARM]), ("nodeC", [CPU_ARM, DISK_SSD])], [100, 100, 100]),
    ("the more intolerable taints a node has, the lower score it gets.",
     [tol("foo", "bar", "PreferNoSchedule")],
     [("nodeA", []), ("nodeB", [CPU_ARM]), ("nodeC", [CPU_ARM, DISK_SSD])], [100, 50, 0]),
    ("only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
     [tol("cpu-type", "arm64", "NoSchedule"), tol("disk-type", "ssd", "NoSchedule")],
     [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", "NoSchedule")]), ("nodeC", [CPU_ARM, DISK_SSD])],
     [100, 100, 0]),
    ("Default behaviour No taints and tolerations, lands on node with no taints", [],
     [("nodeA", []), ("nodeB", [CPU_ARM])], [100, 0]),
]


@pytest.mark.parametrize("name,tolerations,nodes,expected", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_taint_toleration_score(name, tolerations, nodes, expected):
    snap = new_snapshot([make_node(n, taints=t) for n, t in nodes], [])
    pl = tainttoleration.new(None, None)
    pod, state = pod_with_tolerations(tolerations), CycleState()
    assert pl.pre_score(state, pod, snap.list()).is_success()
    scores = []
    for ni in snap.list():
        s, st = pl.score(state, pod, ni)
        assert st.is_success()
        scores.append(NodeScore(ni.name, s))
    assert pl.score_extensions().normalize_score(state, pod, scores).is_success()
    assert [(s.name, s.score) for s in scores] == [(n, e) for (n, _), e in zip(nodes, expected)]


FILTER_CASES = [
    ("A pod having no tolerations can't be scheduled onto a node with nonempty taints", [],
     [taint("dedicated", "user1", "NoSchedule")], "node(s) had untolerated taint {dedicated: user1}"),
    ("A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
     [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}], [taint("dedicated", "user1", "NoSchedule")],
     None),
    ("A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
     [tol("dedicated", "user2", "NoSchedule")], [taint("dedicated", "user1", "NoSchedule")],
     "node(s) had untolerated taint {dedicated: user1}"),
    ("A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
     [{"key": "foo", "operator": "Exists", "effect": "NoSchedule"}], [taint("foo", "bar", "NoSchedule")], None),
    ("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled "
     "onto the node",
     [tol("dedicated", "user2", "NoSchedule"), {"key": "foo", "operator": "Exists", "effect": "NoSchedule"}],
     [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")], None),
    ("A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, "
     "can't be scheduled onto the node",
     [tol("foo", "bar", "PreferNoSchedule")], [taint("foo", "bar", "NoSchedule")],
     "node(s) had untolerated taint {foo: bar}"),
    ("The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, "
     "and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
     [{"key": "foo", "operator": "Equal", "value": "bar"}], [taint("foo", "bar", "NoSchedule")], None),
    ("The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node "
     "is PreferNoSchedule. Pod can be scheduled onto the node",
     [tol("dedicated", "user2", "NoSchedule")], [taint("dedicated", "user1", "PreferNoSchedule")], None),
    ("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     [], [taint("dedicated", "user1", "PreferNoSchedule")], None),
]


@pytest.mark.parametrize("name,tolerations,taints,reason", FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_taint_toleration_filter(name, tolerations, taints, reason):
    st = tainttoleration.TaintToleration().filter(None, pod_with_tolerations(tolerations),
                                                  NodeInfo(make_node("nodeA", taints=taints)))
    if reason is None:
        assert st.is_success()
    else:
        assert (st.code, st.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [reason])


def test_no_execute_taint_is_checked_and_first_untolerated_is_named():
    node = NodeInfo(make_node("n", taints=[taint("a", "1", "NoExecute"), taint("b", "2", "NoSchedule")]))
    st = tainttoleration.TaintToleration().filter(None, pod_with_tolerations([]), node)
    assert st.reasons == ["node(s) had untolerated taint {a: 1}"]


def test_score_without_pre_score_is_an_error():
    st = tainttoleration.TaintToleration().score(CycleState(), pod_with_tolerations([]), NodeInfo(make_node("n")))[1]
    assert st.code == Code.ERROR


def test_pre_score_state_survives_cycle_state_clone():
    pl, state = tainttoleration.TaintToleration(), CycleState()
    p = pod_with_tolerations([tol("foo", "bar", "PreferNoSchedule")])
    pl.pre_score(state, p, [])
    node = NodeInfo(make_node("n", taints=[taint("foo", "bar", "PreferNoSchedule"), CPU_ARM]))
    assert pl.score(state.clone(), p, node)[0] == 1
