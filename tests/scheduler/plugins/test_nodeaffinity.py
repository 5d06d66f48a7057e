"""NodeAffinity against upstream's node_affinity_test.go (TestNodeAffinity, TestNodeAffinityPriority).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go
"""

from __future__ import annotations

import pytest

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code, NodeScore
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import nodeaffinity
from kubenotes.scheduler.plugins.nodeaffinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
    NodeAffinityArgs,
)
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod


def expr(key, op, *values):
    e = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


def name_in(*names):
    return {"key": "metadata.name", "operator": "In", "values": list(names)}


def required(*terms):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def pod(affinity=None, node_selector=None):
    extra = {}
    if affinity is not None:
        extra["affinity"] = affinity
    if node_selector is not None:
        extra["nodeSelector"] = node_selector
    return PodInfo(make_pod("p", **extra))


UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
SKIP = Code.SKIP

# (name, pod, node labels, node name, want Filter reason, want PreFilter (code, reason), want PreFilter node names,
#  args addedAffinity, run PreFilter)
FILTER_CASES = [
    ("missing labels", lambda: pod(node_selector={"foo": "bar"}), {}, "", ERR_REASON_POD, None, None, None, True),
    ("same labels", lambda: pod(node_selector={"foo": "bar"}), {"foo": "bar"}, "", None, None, None, None, True),
    ("node labels are superset", lambda: pod(node_selector={"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "", None,
     None, None, None, True),
    ("node labels are subset", lambda: pod(node_selector={"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "",
     ERR_REASON_POD, None, None, None, True),
    ("Pod with matchExpressions using In operator that matches the existing node",
     lambda: pod(required({"matchExpressions": [expr("foo", "In", "bar", "value2")]})), {"foo": "bar"}, "", None, None,
     None, None, True),
    ("Pod with matchExpressions using Gt operator that matches the existing node",
     lambda: pod(required({"matchExpressions": [expr("kernel-version", "Gt", "0204")]})), {"kernel-version": "0206"}, "",
     None, None, None, None, True),
    ("Pod with matchExpressions using NotIn operator that matches the existing node",
     lambda: pod(required({"matchExpressions": [expr("mem-type", "NotIn", "DDR", "DDR2")]})), {"mem-type": "DDR3"}, "",
     None, None, None, None, True),
    ("Pod with matchExpressions using Exists operator that matches the existing node",
     lambda: pod(required({"matchExpressions": [expr("GPU", "Exists")]})), {"GPU": "NVIDIA-GRID-K1"}, "", None, None,
     None, None, True),
    ("Pod with affinity that don't match node's labels won't schedule onto the node",
     lambda: pod(required({"matchExpressions": [expr("foo", "In", "value1", "value2")]})), {"foo": "bar"}, "",
     ERR_REASON_POD, None, None, None, True),
    ("Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
     lambda: pod(required({"matchExpressions": []})), {"foo": "bar"}, "", ERR_REASON_POD, None, None, None, True),
    ("Pod with no Affinity will schedule onto a node", lambda: pod(), {"foo": "bar"}, "", None, (SKIP, None), None,
     None, True),
    ("Pod with Affinity but nil NodeSelector will schedule onto a node",
     lambda: pod({"nodeAffinity": {}}), {"foo": "bar"}, "", None, (SKIP, None), None, None, True),
    ("Pod with multiple matchExpressions ANDed that matches the existing node",
     lambda: pod(required({"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]})),
     {"GPU": "NVIDIA-GRID-K1"}, "", None, None, None, None, True),
    ("Pod with multiple matchExpressions ANDed that doesn't match the existing node",
     lambda: pod(required({"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")]})),
     {"GPU": "NVIDIA-GRID-K1"}, "", ERR_REASON_POD, None, None, None, True),
    ("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
     lambda: pod(required({"matchExpressions": [expr("foo", "In", "bar", "value2")]},
                          {"matchExpressions": [expr("diffkey", "In", "wrong", "value2")]})),
     {"foo": "bar"}, "", None, None, None, None, True),
    ("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, "
     "will schedule onto the node",
     lambda: pod(required({"matchExpressions": [expr("foo", "Exists")]}), node_selector={"foo": "bar"}),
     {"foo": "bar"}, "", None, None, None, None, True),
    ("Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) "
     "is not satisfied, won't schedule onto the node",
     lambda: pod(required({"matchExpressions": [expr("foo", "Exists")]}), node_selector={"foo": "bar"}),
     {"foo": "barrrrrr"}, "", ERR_REASON_POD, None, None, None, True),
    ("Pod with an invalid value in Affinity term won't be scheduled onto the node",
     lambda: pod(required({"matchExpressions": [expr("foo", "NotIn", "invalid value: ___@#$%^")]})), {"foo": "bar"},
     "", ERR_REASON_POD, None, None, None, True),
    ("Pod with matchFields using In operator that matches the existing node",
     lambda: pod(required({"matchFields": [name_in("node1")]})), {}, "node1", None, None, {"node1"}, None, True),
    ("Pod with matchFields using In operator that does not match the existing node",
     lambda: pod(required({"matchFields": [name_in("node1")]})), {}, "node2", ERR_REASON_POD, None, {"node1"}, None,
     True),
    ("Pod with two terms: matchFields does not match, but matchExpressions matches",
     lambda: pod(required({"matchFields": [name_in("node1"), name_in("node2")]},
                          {"matchExpressions": [expr("foo", "In", "bar")]})),
     {"foo": "bar"}, "node2", None, None, None, None, True),
    ("Pod with one term: matchFields does not match, but matchExpressions matches",
     lambda: pod(required({"matchFields": [name_in("node1")], "matchExpressions": [expr("foo", "In", "bar")]})),
     {"foo": "bar"}, "node2", ERR_REASON_POD, None, {"node1"}, None, True),
    ("Pod with one term: both matchFields and matchExpressions match",
     lambda: pod(required({"matchFields": [name_in("node1")], "matchExpressions": [expr("foo", "In", "bar")]})),
     {"foo": "bar"}, "node1", None, None, {"node1"}, None, True),
    ("Pod with two terms: both matchFields and matchExpressions do not match",
     lambda: pod(required({"matchFields": [name_in("node1")]},
                          {"matchExpressions": [expr("foo", "In", "not-match-to-bar")]})),
     {"foo": "bar"}, "node2", ERR_REASON_POD, None, None, None, True),
    ("Pod with two terms of node.Name affinity",
     lambda: pod(required({"matchFields": [name_in("node1")]}, {"matchFields": [name_in("node2")]})),
     {}, "node2", None, None, {"node1", "node2"}, None, True),
    ("Pod with two conflicting mach field requirements",
     lambda: pod(required({"matchFields": [name_in("node1"), name_in("node2")]})),
     {"foo": "bar"}, "node2", ERR_REASON_POD, (UU, ERR_REASON_CONFLICT), None, None, True),
    ("Matches added affinity and Pod's node affinity",
     lambda: pod(required({"matchExpressions": [expr("zone", "In", "foo")]})), {"zone": "foo"}, "node2", None, None,
     None, {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [name_in("node2")]}]}},
     True),
    ("Matches added affinity but not Pod's node affinity",
     lambda: pod(required({"matchExpressions": [expr("zone", "In", "bar")]})), {"zone": "foo"}, "node2",
     ERR_REASON_POD, None, None,
     {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [name_in("node2")]}]}},
     True),
    ("Doesn't match added affinity", lambda: pod(), {"zone": "foo"}, "node2", ERR_REASON_ENFORCED, None, None,
     {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
         {"matchExpressions": [expr("zone", "In", "bar")]}]}}, True),
    ("Matches node selector correctly even if PreFilter is not called", lambda: pod(node_selector={"foo": "bar"}),
     {"foo": "bar", "baz": "blah"}, "", None, None, None, None, False),
    ("Matches node affinity correctly even if PreFilter is not called",
     lambda: pod(required({"matchExpressions": [expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]})),
     {"GPU": "NVIDIA-GRID-K1"}, "", None, None, None, None, False),
]


@pytest.mark.parametrize("name,make,labels,node_name,reason,pre_filter,node_names,added,run_pre_filter",
                         FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_node_affinity(name, make, labels, node_name, reason, pre_filter, node_names, added, run_pre_filter):
    pl = NodeAffinity(NodeAffinityArgs(added))
    p, state = make(), CycleState()
    if run_pre_filter:
        result, st = pl.pre_filter(state, p, [])
        if pre_filter is None:
            assert st.is_success()
        else:
            assert st.code == pre_filter[0]
            assert st.reasons == ([pre_filter[1]] if pre_filter[1] else [])
        if node_names is None:
            assert result is None
        else:
            assert result is not None and result.node_names == node_names
    st = pl.filter(state, p, NodeInfo(make_node(node_name, labels=labels)))
    if reason is None:
        assert st.is_success()
    else:
        assert (st.code, st.reasons) == (UU, [reason])


# --- TestNodeAffinityPriority ---------------------------------------------------------------

LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}


def pref(weight, *exprs):
    return {"weight": weight, "preference": {"matchExpressions": list(exprs)}}


AFFINITY1 = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [pref(2, expr("foo", "In", "bar"))]}}
AFFINITY2 = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    pref(2, expr("foo", "In", "bar")),
    pref(4, expr("key", "In", "value")),
    pref(5, expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")),
]}}

PRIORITY_CASES = [
    ("all nodes are same priority as NodeAffinity is nil", None, [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
     None, False, [0, 0, 0]),
    ("no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
     AFFINITY1, [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)], None, True, [0, 0, 0]),
    ("only node1 matches the preferred scheduling requirements of pod", AFFINITY1,
     [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)], None, True, [100, 0, 0]),
    ("all nodes matches the preferred scheduling requirements of pod but with different priorities ", AFFINITY2,
     [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)], None, True, [18, 100, 36]),
    ("added affinity", None, [("node1", LABEL1), ("node2", LABEL2)], AFFINITY1["nodeAffinity"], True, [100, 0]),
    ("added affinity and pod has default affinity", AFFINITY1, [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)],
     {"preferredDuringSchedulingIgnoredDuringExecution": [pref(3, expr("key", "In", "value"))]}, True, [40, 60, 100]),
    ("calculate the priorities correctly even if PreScore is not called", AFFINITY2,
     [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)], None, False, [18, 100, 36]),
]


@pytest.mark.parametrize("name,affinity,nodes,added,run_pre_score,expected", PRIORITY_CASES,
                         ids=[c[0] for c in PRIORITY_CASES])
def test_node_affinity_priority(name, affinity, nodes, added, run_pre_score, expected):
    snap = new_snapshot([make_node(n, labels=lab) for n, lab in nodes], [])
    pl = NodeAffinity(NodeAffinityArgs(added))
    p, state = pod(affinity), CycleState()
    if run_pre_score:
        assert pl.pre_score(state, p, snap.list()).is_success()
    scores = []
    for ni in snap.list():
        s, st = pl.score(state, p, ni)
        assert st.is_success()
        scores.append(NodeScore(ni.name, s))
    assert pl.score_extensions().normalize_score(state, p, scores).is_success()
    assert [s.score for s in scores] == expected


def test_skip_is_returned_in_pre_score_when_node_affinity_is_nil():
    assert NodeAffinity().pre_score(CycleState(), pod(), []).code == SKIP


def test_pre_score_returns_error_when_an_incoming_pod_has_a_broken_affinity():
    broken = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        pref(2, expr("invalid key", "In", "bar"))]}}
    st = NodeAffinity().pre_score(CycleState(), pod(broken), [])
    assert st.code == Code.ERROR
    assert st.message() == (
        "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name part must consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def test_added_affinity_validation():
    with pytest.raises(ConfigError) as e:
        nodeaffinity.new({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]}}})
    assert str(e.value) == (
        "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: "
        'Invalid value: []string{"a", "b"}: must have one element')
    with pytest.raises(ConfigError, match='unknown field "added"'):
        nodeaffinity.new({"added": {}})


def test_name_and_extensions():
    pl = nodeaffinity.new(None)
    assert pl.name() == "NodeAffinity" and pl.score_extensions() is pl and pl.pre_filter_extensions() is None


def test_state_survives_cycle_state_clone():
    # Preemption filters with a cloned CycleState; the parsed state is shared, not deep-copied.
    pl = NodeAffinity()
    p, state = pod(required({"matchExpressions": [expr("zone", "In", "a")]})), CycleState()
    pl.pre_filter(state, p, [])
    pl.pre_score(state, p, [])
    clone = state.clone()
    assert clone.read(nodeaffinity.PRE_FILTER_STATE_KEY) is state.read(nodeaffinity.PRE_FILTER_STATE_KEY)
    assert pl.filter(clone, p, NodeInfo(make_node("n", labels={"zone": "b"}))).reasons == [ERR_REASON_POD]
