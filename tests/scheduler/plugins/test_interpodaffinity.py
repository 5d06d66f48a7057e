"""InterPodAffinity against upstream's filtering_test.go and scoring_test.go tables.

Upstream pods without a namespace ("") are in "default" here; unnamed upstream
pods get generated names.
"""

from __future__ import annotations

import itertools
import types

import pytest

from kubenotes.errors import ConfigError, FieldError
from kubenotes.scheduler.fast.registry import fast_forms
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code, NodeScore
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins import interpodaffinity as ipa
from kubenotes.scheduler.snapshot import ClusterObjects, new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

AFF = ipa.ERR_REASON_AFFINITY_RULES_NOT_MATCH
ANTI = ipa.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH
EXISTING = ipa.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
U = Code.UNSCHEDULABLE

NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}

_names = itertools.count()


def node(name, labels):
    n = make_node(name)
    n.metadata.labels = dict(labels)
    return n


def expr(key, op, values=None):
    e = {"key": key, "operator": op}
    if values is not None:
        e["values"] = list(values)
    return e


def term(*exprs, topo="", namespaces=None, ns_selector="unset"):
    t = {"labelSelector": {"matchExpressions": list(exprs)}, "topologyKey": topo}
    if namespaces is not None:
        t["namespaces"] = list(namespaces)
    if ns_selector != "unset":
        t["namespaceSelector"] = ns_selector
    return t


def t_in(key, topo, values):
    return term(expr(key, "In", values), topo=topo)


def t_not_in(key, topo, values):
    return term(expr(key, "NotIn", values), topo=topo)


def t_exists(key, topo):
    return term(expr(key, "Exists"), topo=topo)


def pod(name=None, ns="default", labels=None, node_name=None, aff=(), anti=(), pref_aff=(), pref_anti=()):
    affinity = {}
    if aff or pref_aff:
        affinity["podAffinity"] = {}
        if aff:
            affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = list(aff)
        if pref_aff:
            affinity["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": w, "podAffinityTerm": t} for w, t in pref_aff]
    if anti or pref_anti:
        affinity["podAntiAffinity"] = {}
        if anti:
            affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = list(anti)
        if pref_anti:
            affinity["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": w, "podAffinityTerm": t} for w, t in pref_anti]
    extra = {"affinity": affinity} if affinity else {}
    return make_pod(name or f"p{next(_names)}", ns, labels=labels, node_name=node_name, **extra)


def handle(nodes, pods, namespaces=NAMESPACES):
    return types.SimpleNamespace(snapshot=new_snapshot(nodes, pods), objects=ClusterObjects(namespaces=dict(namespaces)))


def run_filter(incoming, pods, nodes, args=None, namespaces=NAMESPACES):
    h = handle(nodes, pods, namespaces)
    pl = ipa.new(args or {}, h)
    state = CycleState()
    pi = PodInfo(incoming)
    _, st = pl.pre_filter(state, pi, h.snapshot.list())
    if not st.is_success():
        return st, None
    return st, [pl.filter(state, pi, h.snapshot.get(n.metadata.name)) for n in nodes]


def as_tuple(st):
    return None if st.is_success() else (st.code, st.reasons)


# --- TestRequiredAffinitySingleNode -------------------------------------------------

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = {"region": "r1", "zone": "z11"}


def existing():
    return pod(labels=POD_LABEL, node_name="node1")


SINGLE_NODE = [
    ("no affinity, no pods", pod(), [], "skip"),
    ("affinity In matches existing pod", pod(labels=POD_LABEL2, aff=[t_in("service", "region", ["securityscan", "value2"])]),
     [existing()], None),
    ("affinity NotIn matches existing pod", pod(labels=POD_LABEL2, aff=[t_not_in("service", "region", ["securityscan3", "value3"])]),
     [existing()], None),
    ("affinity namespaces differ",
     pod(labels=POD_LABEL2, aff=[term(expr("service", "In", ["securityscan", "value2"]), namespaces=["DiffNameSpace"])]),
     [pod(ns="ns", labels=POD_LABEL, node_name="node1")], (UU, [AFF])),
    ("affinity selector does not match existing pod", pod(labels=POD_LABEL, aff=[t_in("service", "", ["antivirusscan", "value2"])]),
     [existing()], (UU, [AFF])),
    ("several requirements and terms all match",
     pod(labels=POD_LABEL2, aff=[term(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), topo="region"),
                                 term(expr("service", "In", ["securityscan"]), expr("service", "NotIn", ["WrongValue"]), topo="region")]),
     [existing()], None),
    ("requirements are ANDed: one fails",
     pod(labels=POD_LABEL2, aff=[term(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), topo="region"),
                                 term(expr("service", "In", ["securityscan2"]), expr("service", "NotIn", ["WrongValue"]), topo="region")]),
     [existing()], (UU, [AFF])),
    ("affinity and anti-affinity satisfied",
     pod(labels=POD_LABEL2, aff=[t_in("service", "region", ["securityscan", "value2"])],
         anti=[t_in("service", "node", ["antivirusscan", "value2"])]),
     [existing()], None),
    ("affinity, anti-affinity and symmetry satisfied",
     pod(labels=POD_LABEL2, aff=[t_in("service", "region", ["securityscan", "value2"])],
         anti=[t_in("service", "node", ["antivirusscan", "value2"])]),
     [pod(labels=POD_LABEL, node_name="node1", anti=[t_in("service", "node", ["antivirusscan", "value2"])])], None),
    ("anti-affinity violated",
     pod(labels=POD_LABEL2, aff=[t_in("service", "region", ["securityscan", "value2"])],
         anti=[t_in("service", "zone", ["securityscan", "value2"])]),
     [existing()], (U, [ANTI])),
    ("existing pod's anti-affinity violated (symmetry)",
     pod(labels=POD_LABEL, aff=[t_in("service", "region", ["securityscan", "value2"])],
         anti=[t_in("service", "node", ["antivirusscan", "value2"])]),
     [pod(labels=POD_LABEL, node_name="node1", anti=[t_in("service", "zone", ["securityscan", "value2"])])], (U, [EXISTING])),
    ("pod matches its own NotIn term but another pod matches elsewhere",
     pod(labels=POD_LABEL, aff=[t_not_in("service", "region", ["securityscan", "value2"])]),
     [pod(labels=POD_LABEL, node_name="node2")], (UU, [AFF])),
    ("no constraints of its own, existing anti-affinity matches",
     pod(labels=POD_LABEL),
     [pod(labels=POD_LABEL, node_name="node1", anti=[t_in("service", "zone", ["securityscan", "value2"])])], (U, [EXISTING])),
    ("no constraints of its own, existing anti-affinity does not match",
     pod(labels=POD_LABEL),
     [pod(labels=POD_LABEL, node_name="node1", anti=[t_not_in("service", "zone", ["securityscan", "value2"])])], "skip"),
    ("incoming anti-affinity matches, symmetry does not",
     pod(labels=POD_LABEL, anti=[t_exists("service", "region"), t_exists("security", "region")]),
     [pod(labels=POD_LABEL2, node_name="node1", anti=[t_exists("security", "zone")])], (U, [ANTI])),
    ("symmetry a1",
     pod(labels=POD_LABEL, anti=[t_exists("service", "zone"), t_exists("security", "zone")]),
     [pod(labels=POD_LABEL2, node_name="node1", anti=[t_exists("security", "zone")])], (U, [ANTI])),
    ("symmetry a2",
     pod(labels=POD_LABEL2, anti=[t_exists("security", "zone")]),
     [pod(labels=POD_LABEL, node_name="node1", anti=[t_exists("service", "zone"), t_exists("security", "zone")])], (U, [EXISTING])),
    ("symmetry b1",
     pod(labels={"abc": "", "xyz": ""}, anti=[t_exists("abc", "zone"), t_exists("def", "zone")]),
     [pod(labels={"def": "", "xyz": ""}, node_name="node1", anti=[t_exists("abc", "zone"), t_exists("def", "zone")])], (U, [ANTI])),
    ("symmetry b2",
     pod(labels={"def": "", "xyz": ""}, anti=[t_exists("abc", "zone"), t_exists("def", "zone")]),
     [pod(labels={"abc": "", "xyz": ""}, node_name="node1", anti=[t_exists("abc", "zone"), t_exists("def", "zone")])], (U, [ANTI])),
    ("affinity with NamespaceSelector",
     pod(labels=POD_LABEL2, aff=[term(expr("service", "In", ["securityscan", "value2"]), topo="region",
                                      ns_selector={"matchExpressions": [expr("team", "In", ["team1"])]})]),
     [pod(ns="subteam1.team1", labels=POD_LABEL, node_name="node1")], None),
    ("affinity with non-matching NamespaceSelector",
     pod(labels=POD_LABEL2, aff=[term(expr("service", "In", ["securityscan", "value2"]), topo="region",
                                      ns_selector={"matchExpressions": [expr("team", "In", ["team1"])]})]),
     [pod(ns="subteam1.team2", labels=POD_LABEL, node_name="node1")], (UU, [AFF])),
    ("anti-affinity with matching NamespaceSelector",
     pod(ns="subteam1.team1", labels=POD_LABEL2, anti=[term(expr("service", "In", ["securityscan", "value2"]), topo="zone",
                                                            ns_selector={"matchExpressions": [expr("team", "In", ["team1"])]})]),
     [pod(ns="subteam2.team1", labels=POD_LABEL, node_name="node1")], (U, [ANTI])),
    ("anti-affinity with match-all NamespaceSelector",
     pod(ns="subteam1.team1", labels=POD_LABEL2, anti=[term(expr("service", "In", ["securityscan", "value2"]), topo="zone", ns_selector={})]),
     [pod(ns="subteam2.team1", labels=POD_LABEL, node_name="node1")], (U, [ANTI])),
    ("anti-affinity with non-matching NamespaceSelector",
     pod(ns="subteam1.team1", labels=POD_LABEL2, anti=[term(expr("service", "In", ["securityscan", "value2"]), topo="zone",
                                                            ns_selector={"matchExpressions": [expr("team", "In", ["team1"])]})]),
     [pod(ns="subteam1.team2", labels=POD_LABEL, node_name="node1")], None),
]


@pytest.mark.parametrize("name,incoming,pods,want", SINGLE_NODE, ids=[c[0] for c in SINGLE_NODE])
def test_required_affinity_single_node(name, incoming, pods, want):
    st, got = run_filter(incoming, pods, [node("node1", NODE1)])
    if want == "skip":
        assert st.is_skip()
        return
    assert st.is_success()
    assert as_tuple(got[0]) == want


def test_invalid_affinity_label_value_is_rejected_when_parsing_the_pod():
    # Upstream: PreFilter returns UnschedulableAndUnresolvable "parsing pod: ...".
    with pytest.raises(FieldError, match="bad-value"):
        PodInfo(pod(labels=POD_LABEL, aff=[t_in("service", "region", ["{{.bad-value.}}"])]))


# --- TestRequiredAffinityMultipleNodes ------------------------------------------------

CHINA = {"region": "China"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
INDIA = {"region": "India"}


def three_regions(a="nodeA", b="nodeB", c="nodeC"):
    return [node(a, CHINA), node(b, CHINA_AZ1), node(c, INDIA)]


def rz(name, region, zone, host=None):
    return node(name, {"region": region, "zone": zone, "hostname": host or name})


MULTI_NODES = [
    ("same topology value as a matching pod", pod(aff=[t_in("foo", "region", ["bar"])]),
     [pod("p1", node_name="node1", labels={"foo": "bar"})], three_regions("node1", "node2", "node3"), None,
     [None, None, (UU, [AFF])]),
    ("first pod of a self-affine collection",
     pod(labels={"foo": "bar", "service": "securityscan"}, aff=[t_in("foo", "zone", ["bar"]), t_in("service", "zone", ["securityscan"])]),
     [pod("p1", node_name="nodeA", labels={"foo": "bar"})],
     [node("nodeA", {"zone": "az1", "hostname": "h1"}), node("nodeB", {"zone": "az2", "hostname": "h2"})], None, [None, None]),
    ("first pod needs the topology keys",
     pod(labels={"foo": "bar", "service": "securityscan"}, aff=[t_in("foo", "zone", ["bar"]), t_in("service", "zone", ["securityscan"])]),
     [pod("p1", node_name="nodeA", labels={"foo": "bar"})],
     [node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}), node("nodeB", {"zoneLabel": "az2", "hostname": "h2"})], None,
     [(UU, [AFF]), (UU, [AFF])]),
    ("anti-affinity blocks the whole region", pod(anti=[t_in("foo", "region", ["abc"])]),
     [pod(node_name="nodeA", labels={"foo": "abc"})],
     [node("nodeA", {"region": "r1", "hostname": "nodeA"}), node("nodeB", {"region": "r1", "hostname": "nodeB"})], None,
     [(U, [ANTI]), (U, [ANTI])]),
    ("any anti-affinity term is enough", pod(anti=[t_in("foo", "region", ["abc"]), t_in("service", "zone", ["securityscan"])]),
     [pod(node_name="nodeA", labels={"foo": "abc", "service": "securityscan"})],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], None, [(U, [ANTI]), (U, [ANTI])]),
    ("anti-affinity spares another region", pod(anti=[t_in("foo", "region", ["abc"])]),
     [pod(node_name="nodeA", labels={"foo": "abc"})], three_regions(), None, [(U, [ANTI]), (U, [ANTI]), None]),
    ("other namespace does not count",
     pod(ns="NS1", labels={"foo": "123"}, anti=[t_in("foo", "region", ["bar"])]),
     [pod(node_name="nodeA", ns="NS1", labels={"foo": "bar"}),
      pod(node_name="nodeC", ns="NS2", anti=[t_in("foo", "region", ["123"])])], three_regions(), None,
     [(U, [ANTI]), (U, [ANTI]), None]),
    ("existing term with a missing topology key",
     pod(labels={"foo": ""}), [pod(node_name="nodeA", anti=[t_exists("foo", "invalid-node-label")])],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z1")], "skip", None),
    ("incoming term with a missing topology key",
     pod(node_name="nodeA", anti=[t_exists("foo", "invalid-node-label")]), [pod(node_name="nodeA", labels={"foo": ""})],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z1")], None, [None, None]),
    ("existing pods' anti-affinity on all nodes",
     pod(labels={"foo": "", "bar": ""}),
     [pod(node_name="nodeA", anti=[t_exists("foo", "zone")]), pod(node_name="nodeA", anti=[t_exists("bar", "region")])],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], None, [(U, [EXISTING]), (U, [EXISTING])]),
    ("incoming anti-affinity violated everywhere",
     pod(anti=[t_exists("foo", "zone"), t_exists("bar", "region")]),
     [pod(node_name="nodeA", labels={"foo": ""}), pod(node_name="nodeB", labels={"bar": ""})],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], None, [(U, [ANTI]), (U, [ANTI])]),
    ("existing term counts only with its topology key",
     pod(labels={"foo": "", "bar": ""}),
     [pod(node_name="nodeA", anti=[t_exists("foo", "invalid-node-label"), t_exists("bar", "zone")])],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], None, [(U, [EXISTING]), None]),
    ("incoming term counts only with its topology key",
     pod(anti=[t_exists("foo", "invalid-node-label"), t_exists("bar", "zone")]),
     [pod("podA", node_name="nodeA", labels={"foo": "", "bar": ""})],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], None, [(U, [ANTI]), None]),
    ("existing terms with valid topology keys",
     pod(labels={"foo": "", "bar": ""}),
     [pod(node_name="nodeA", anti=[t_exists("foo", "region"), t_exists("bar", "zone")])],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], None, [(U, [EXISTING]), (U, [EXISTING])]),
    ("incoming terms with valid topology keys",
     pod(anti=[t_exists("foo", "region"), t_exists("bar", "zone")]),
     [pod(node_name="nodeA", labels={"foo": "", "bar": ""})],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], None, [(U, [ANTI]), (U, [ANTI])]),
    ("existing pods on two nodes leave the third",
     pod(labels={"foo": "", "bar": ""}),
     [pod(node_name="nodeA", anti=[t_exists("foo", "zone"), t_exists("labelA", "zone")]),
      pod(node_name="nodeB", anti=[t_exists("bar", "zone"), t_exists("labelB", "zone")])],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2"), rz("nodeC", "r1", "z3")], None,
     [(U, [EXISTING]), (U, [EXISTING]), None]),
    ("all affinity terms matched by one pod",
     pod(aff=[t_exists("foo", "region"), t_exists("bar", "zone")]),
     [pod("pod1", labels={"foo": "", "bar": ""}, node_name="nodeA")],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z1")], None, [None, None]),
    ("affinity terms matched by different pods do not count",
     pod(aff=[t_exists("foo", "region"), t_exists("bar", "zone")]),
     [pod("pod1", node_name="nodeA", labels={"foo": ""}), pod("pod2", node_name="nodeB", labels={"bar": ""})],
     [rz("nodeA", "r1", "z1"), rz("nodeB", "r1", "z2")], None, [(UU, [AFF]), (UU, [AFF])]),
]


@pytest.mark.parametrize("name,incoming,pods,nodes,want_pre,want", MULTI_NODES, ids=[c[0] for c in MULTI_NODES])
def test_required_affinity_multiple_nodes(name, incoming, pods, nodes, want_pre, want):
    st, got = run_filter(incoming, pods, nodes, namespaces={"NS1": {}})
    if want_pre == "skip":
        assert st.is_skip()
        return
    assert st.is_success()
    assert [as_tuple(s) for s in got] == want


def test_filter_without_pre_filter_is_an_error():
    h = handle([node("n", {})], [])
    pl = ipa.new(None, h)
    st = pl.filter(CycleState(), PodInfo(pod()), h.snapshot.get("n"))
    assert st.code == Code.ERROR
    assert st.reasons == ['error reading "PreFilterInterPodAffinity" from cycleState: not found']


# --- TestPreFilterStateAddRemovePod ---------------------------------------------------

ANTI_FOO_BAR = [t_in("foo", "region", ["bar"])]
ANTI_COMPLEX = [t_in("foo", "region", ["bar", "buzz"]), t_not_in("service", "zone", ["bar", "security", "test"])]
AFF_COMPLEX = ANTI_COMPLEX
ADD_REMOVE_NODES = [node("nodeA", {"region": "r1", "zone": "z11"}), node("nodeB", {"region": "r1", "zone": "z12"}),
                    node("nodeC", {"region": "r2", "zone": "z21"})]

ADD_REMOVE = [
    ("anti-affinity counts",
     dict(name="pending", labels={"foo": "bar"}, anti=ANTI_FOO_BAR),
     [dict(name="p1", labels={"foo": "bar"}, node_name="nodeA"), dict(name="p2", node_name="nodeC", anti=ANTI_FOO_BAR)],
     dict(name="addedPod", labels={"foo": "bar"}, node_name="nodeB", anti=ANTI_FOO_BAR),
     {("region", "r1"): 2}, {}),
    ("complex anti-affinity counts",
     dict(name="pending", labels={"foo": "bar"}, anti=ANTI_COMPLEX),
     [dict(name="p1", labels={"foo": "bar"}, node_name="nodeA"), dict(name="p2", node_name="nodeC", anti=ANTI_FOO_BAR)],
     dict(name="addedPod", labels={"foo": "bar"}, node_name="nodeA", anti=ANTI_COMPLEX),
     {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {}),
    ("affinity counts",
     dict(name="pending", labels={"foo": "bar"}, aff=AFF_COMPLEX),
     [dict(name="p1", labels={"foo": "bar"}, node_name="nodeA"),
      dict(name="p2", node_name="nodeC", anti=ANTI_FOO_BAR, aff=AFF_COMPLEX)],
     dict(name="addedPod", labels={"foo": "bar"}, node_name="nodeA", anti=ANTI_COMPLEX),
     {}, {("region", "r1"): 2, ("zone", "z11"): 2}),
]


def _counts(s):
    return (s.existing_anti_affinity_counts, s.affinity_counts, s.anti_affinity_counts)


@pytest.mark.parametrize("name,pending,existing_pods,added,want_anti,want_aff", ADD_REMOVE, ids=[c[0] for c in ADD_REMOVE])
def test_pre_filter_state_add_remove_pod(name, pending, existing_pods, added, want_anti, want_aff):
    pending_pod = PodInfo(pod(**pending))

    def state_for(pods):
        h = handle(ADD_REMOVE_NODES, pods)
        pl = ipa.new(None, h)
        cs = CycleState()
        _, st = pl.pre_filter(cs, pending_pod, h.snapshot.list())
        assert st.is_success()
        return pl, cs, cs.read(ipa.PRE_FILTER_STATE_KEY), h.snapshot

    added_pod = pod(**added)
    _, _, all_pods_state, _ = state_for([pod(**p) for p in existing_pods] + [added_pod])
    pl, cs, s, snap = state_for([pod(**p) for p in existing_pods])
    original = s.clone()
    ni = snap.get(added["node_name"])
    assert pl.add_pod(cs, pending_pod, PodInfo(added_pod), ni).is_success()
    assert s.anti_affinity_counts == want_anti
    assert s.affinity_counts == want_aff
    assert _counts(s) == _counts(all_pods_state)
    assert pl.remove_pod(cs, pending_pod, PodInfo(added_pod), ni).is_success()
    assert _counts(s) == _counts(original)


def test_pre_filter_state_clone_is_independent():
    s = ipa.PreFilterState({("name", "node1"): 1, ("name", "node2"): 1}, {("name", "nodeA"): 1, ("name", "nodeC"): 2},
                           {("name", "nodeN"): 3, ("name", "nodeM"): 1})
    c = s.clone()
    assert c is not s and _counts(c) == _counts(s)
    c.affinity_counts[("name", "nodeA")] = 5
    assert s.affinity_counts[("name", "nodeA")] == 1


# --- TestGetTPMapMatchingIncomingAffinityAntiAffinity ---------------------------------

def _normal(*labels):
    return pod("normal", node_name="nodeA", labels={k: "" for k in labels})


INCOMING_MAPS = [
    ("nil test", [], pod("aaa-normal"), {}, {}),
    ("incoming pod without affinity is a no-op", [_normal("aaa")], pod("aaa-normal"), {}, {}),
    ("no pod matches", [_normal("bbb")], pod("aaa-anti", aff=[t_exists("aaa", "hostname")], anti=[t_exists("aaa", "hostname")]), {}, {}),
    ("single term", [_normal("aaa")], pod("affi-antiaffi", aff=[t_exists("aaa", "hostname")], anti=[t_exists("aaa", "hostname")]),
     {("hostname", "nodeA"): 1}, {("hostname", "nodeA"): 1}),
    ("multiple terms, one per term", [_normal("aaa", "bbb")],
     pod("affi-antiaffi", aff=[t_exists("aaa", "hostname"), t_exists("bbb", "hostname")], anti=[t_exists("aaa", "hostname")]),
     {("hostname", "nodeA"): 2}, {("hostname", "nodeA"): 1}),
    ("affinity not matched, anti-affinity matched", [_normal("aaa")],
     pod("affi-antiaffi", aff=[t_exists("aaa", "hostname"), t_exists("bbb", "hostname")],
         anti=[t_exists("aaa", "hostname"), t_exists("bbb", "hostname")]),
     {}, {("hostname", "nodeA"): 1}),
    ("partial anti-affinity violation 1", [_normal("aaa", "bbb")],
     pod("anaffi-antiaffiti", aff=[t_exists("aaa", "hostname"), t_exists("ccc", "hostname")],
         anti=[t_exists("aaa", "hostname"), t_exists("ccc", "hostname")]),
     {}, {("hostname", "nodeA"): 1}),
    ("partial anti-affinity violation 2", [_normal("bbb")],
     pod("affi-antiaffi", aff=[t_exists("aaa", "hostname"), t_exists("bbb", "hostname")],
         anti=[t_exists("aaa", "hostname"), t_exists("bbb", "hostname")]),
     {}, {("hostname", "nodeA"): 1}),
]


@pytest.mark.parametrize("name,pods,incoming,want_aff,want_anti", INCOMING_MAPS, ids=[c[0] for c in INCOMING_MAPS])
def test_incoming_affinity_anti_affinity_counts(name, pods, incoming, want_aff, want_anti):
    h = handle([node("nodeA", {"hostname": "nodeA"})], pods)
    pl = ipa.new(None, h)
    cs = CycleState()
    _, st = pl.pre_filter(cs, PodInfo(incoming), h.snapshot.list())
    if st.is_skip():
        assert want_aff == {} and want_anti == {}
        return
    s = cs.read(ipa.PRE_FILTER_STATE_KEY)
    assert s.affinity_counts == want_aff
    assert s.anti_affinity_counts == want_anti


# --- TestPreferredAffinity (scoring) --------------------------------------------------

S1 = {"security": "S1"}
S2 = {"security": "S2"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
CHINA_AZ1_B = {"region": "China", "az": "az1"}

STAY_S1_REGION = dict(pref_aff=[(5, t_in("security", "region", ["S1"]))])
STAY_S2_REGION = dict(pref_aff=[(6, t_in("security", "region", ["S2"]))])
AFFINITY3 = dict(pref_aff=[(8, term(expr("security", "NotIn", ["S1"]), expr("security", "In", ["S2"]), topo="region")),
                           (2, term(expr("security", "Exists"), expr("wrongkey", "DoesNotExist"), topo="region"))])
HARD_AFFINITY = dict(aff=[t_in("security", "region", ["S1", "value2"]),
                          term(expr("security", "Exists"), expr("wrongkey", "DoesNotExist"), topo="region")])
AWAY_S1_AZ = dict(pref_anti=[(5, t_in("security", "az", ["S1"]))])
AWAY_S2_AZ = dict(pref_anti=[(5, t_in("security", "az", ["S2"]))])
STAY_S1_AWAY_S2 = dict(pref_aff=[(8, t_in("security", "region", ["S1"]))], pref_anti=[(5, t_in("security", "az", ["S2"]))])
NS_SEL = {"matchExpressions": [expr("team", "In", ["team1"])]}
AFF_NS_SELECTOR = dict(pref_aff=[(5, term(expr("security", "In", ["S1"]), topo="region", namespaces=["subteam2.team2"], ns_selector=NS_SEL))])
ANTI_NS_SELECTOR = dict(pref_anti=[(5, term(expr("security", "In", ["S1"]), topo="region", namespaces=["subteam2.team2"], ns_selector=NS_SEL))])


def on(node_name, labels=None, ns="default", **aff):
    return pod(node_name=node_name, labels=labels, ns=ns, **aff)


def nodes_of(*pairs):
    return [node(n, labels) for n, labels in pairs]


PREFERRED = [
    ("all nodes same priority as Affinity is nil", pod(labels=S1), [],
     nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)), False, "skip"),
    ("affinity: matching topology and pods score high", pod(labels=S1, **STAY_S1_REGION),
     [on("node1", S1), on("node2", S2), on("node3", S1)],
     nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)), False, [100, 0, 0]),
    ("affinity: same topology value shares the score", pod(**STAY_S1_REGION), [on("node1", S1)],
     nodes_of(("node1", CHINA), ("node2", CHINA_AZ1_B), ("node3", INDIA)), False, [100, 100, 0]),
    ("affinity: region with more matches wins", pod(labels=S1, **STAY_S2_REGION),
     [on("node1", S2), on("node1", S2), on("node2", S2), on("node3", S2), on("node4", S2), on("node5", S2)],
     nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", CHINA), ("node4", CHINA), ("node5", INDIA)), False,
     [100, 0, 100, 100, 0]),
    ("affinity: different operators", pod(labels=S1, **AFFINITY3), [on("node1", S1), on("node2", S2), on("node3", S1)],
     nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)), False, [20, 100, 0]),
    ("affinity symmetry: preferred terms of existing pods", pod(labels=S2),
     [on("node1", S1, **STAY_S1_REGION), on("node2", S2, **STAY_S2_REGION)],
     nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)), False, [0, 100, 0]),
    ("affinity symmetry with namespace selector", pod(ns="subteam1.team1", labels=S1),
     [on("node1", S1, **AFF_NS_SELECTOR), on("node2", S2, **STAY_S2_REGION)],
     nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)), False, [100, 0, 0]),
    ("anti-affinity symmetry with namespace selector", pod(ns="subteam1.team1", labels=S1),
     [on("node1", S1, **ANTI_NS_SELECTOR), on("node2", S2, **STAY_S2_REGION)],
     nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)), False, [0, 100, 100]),
    ("affinity symmetry: required terms of existing pods", pod(labels=S1),
     [on("node1", S1, **HARD_AFFINITY), on("node2", S2, **HARD_AFFINITY)],
     nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", AZ1)), False, [100, 100, 0]),
    ("anti-affinity: matching pods in az score low", pod(labels=S1, **AWAY_S1_AZ), [on("node1", S1), on("node2", S2)],
     nodes_of(("node1", AZ1), ("node2", CHINA)), False, [0, 100]),
    ("anti-affinity: node without the topology key scores high", pod(labels=S1, **AWAY_S1_AZ), [on("node1", S1), on("node2", S1)],
     nodes_of(("node1", AZ1), ("node2", CHINA)), False, [0, 100]),
    ("anti-affinity: more matches score lower", pod(labels=S1, **AWAY_S1_AZ),
     [on("node1", S1), on("node1", S1), on("node2", S2)], nodes_of(("node1", AZ1), ("node2", INDIA)), False, [0, 100]),
    ("anti-affinity symmetry", pod(labels=S2), [on("node1", S1, **AWAY_S2_AZ), on("node2", S2, **AWAY_S1_AZ)],
     nodes_of(("node1", AZ1), ("node2", AZ2)), False, [0, 100]),
    ("affinity and anti-affinity", pod(labels=S1, **STAY_S1_AWAY_S2), [on("node1", S1), on("node2", S1)],
     nodes_of(("node1", CHINA), ("node2", AZ1)), False, [100, 0]),
    ("affinity and anti-affinity, same labels", pod(labels=S1, **STAY_S1_AWAY_S2),
     [on("node1", S1), on("node1", S1), on("node2", S1), on("node3", S1), on("node3", S1), on("node4", S1), on("node5", S1)],
     nodes_of(("node1", CHINA_AZ1_B), ("node2", INDIA), ("node3", CHINA), ("node4", CHINA), ("node5", INDIA)), False,
     [100, 0, 100, 100, 0]),
    ("affinity, anti-affinity and symmetry", pod(labels=S1, **STAY_S1_AWAY_S2),
     [on("node1", S1), on("node2", S2), on("node3", **STAY_S1_AWAY_S2), on("node4", **AWAY_S1_AZ)],
     nodes_of(("node1", CHINA), ("node2", AZ1), ("node3", INDIA), ("node4", AZ2)), False, [100, 0, 100, 0]),
    ("no panic when some nodes of a topology have no pods with affinity", pod(labels=S1),
     [on("node1", S1), on("node2", **STAY_S1_AWAY_S2)], nodes_of(("node1", CHINA), ("node2", CHINA)), False, [0, 0]),
    ("affinity with pods matching NamespaceSelector", pod(ns="subteam1.team1", labels=S1, **AFF_NS_SELECTOR),
     [on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team2"),
      on("node2", S1, ns="subteam2.team1")],
     nodes_of(("node1", CHINA), ("node2", INDIA)), False, [100, 0]),
    ("affinity with pods matching NamespaceSelector and Namespaces", pod(ns="subteam1.team1", labels=S1, **AFF_NS_SELECTOR),
     [on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam2.team2"),
      on("node2", S1, ns="subteam2.team1")],
     nodes_of(("node1", CHINA), ("node2", INDIA)), False, [100, 0]),
    ("anti-affinity with pods matching NamespaceSelector", pod(ns="subteam1.team1", labels=S1, **ANTI_NS_SELECTOR),
     [on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team2"),
      on("node2", S1, ns="subteam2.team1")],
     nodes_of(("node1", CHINA), ("node2", INDIA)), False, [0, 100]),
    ("anti-affinity with pods matching NamespaceSelector and Namespaces", pod(ns="subteam1.team1", labels=S1, **ANTI_NS_SELECTOR),
     [on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam1.team1"), on("node1", S1, ns="subteam2.team2"),
      on("node2", S1, ns="subteam2.team1")],
     nodes_of(("node1", CHINA), ("node2", INDIA)), False, [0, 100]),
    ("ignore preferred terms of existing pods", pod(labels=S2),
     [on("node1", S1, **STAY_S1_AWAY_S2), on("node2", S2, **STAY_S2_REGION)],
     nodes_of(("node1", CHINA), ("node2", INDIA)), True, "skip"),
    ("do not ignore preferred terms of existing pods", pod(labels=S2),
     [on("node1", S1, **STAY_S1_AWAY_S2), on("node2", S2, **STAY_S2_REGION)],
     nodes_of(("node1", CHINA), ("node2", INDIA)), False, [0, 100]),
    ("no nodes to score", pod(labels=S2), [], [], False, "skip"),
]


def run_score(incoming, pods, nodes, args):
    h = handle(nodes, pods)
    pl = ipa.new(args, h)
    cs = CycleState()
    pi = PodInfo(incoming)
    st = pl.pre_score(cs, pi, h.snapshot.list())
    if not st.is_success():
        return st, None
    scores = []
    for n in nodes:
        s, sst = pl.score(cs, pi, h.snapshot.get(n.metadata.name))
        assert sst.is_success()
        scores.append(NodeScore(n.metadata.name, s))
    assert pl.score_extensions().normalize_score(cs, pi, scores).is_success()
    return st, [s.score for s in scores]


@pytest.mark.parametrize("name,incoming,pods,nodes,ignore,want", PREFERRED, ids=[c[0] for c in PREFERRED])
def test_preferred_affinity(name, incoming, pods, nodes, ignore, want):
    st, got = run_score(incoming, pods, nodes, {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": ignore})
    if want == "skip":
        assert st.is_skip()
    else:
        assert st.is_success() and got == want


def test_invalid_preferred_term_is_rejected_when_parsing_the_pod():
    with pytest.raises(FieldError):
        PodInfo(pod(pref_aff=[(8, t_in("security", "region", ["{{.bad-value.}}"]))]))
    with pytest.raises(FieldError):
        PodInfo(pod(pref_anti=[(5, t_in("security", "az", ["{{.bad-value.}}"]))]))


HARD_POD_AFFINITY = [term(expr("service", "In", ["S1"]), topo="region", namespaces=["default", "subteam2.team2"], ns_selector=NS_SEL)]
SYMMETRIC = [
    ("with default weight", pod(labels={"service": "S1"}), 1, [100, 100, 0]),
    ("with zero weight", pod(labels={"service": "S1"}), 0, "skip"),
    ("with no matching namespace", pod(ns="subteam1.team2", labels={"service": "S1"}), 1, "skip"),
    ("with matching NamespaceSelector", pod(ns="subteam1.team1", labels={"service": "S1"}), 1, [100, 100, 0]),
    ("with matching Namespaces", pod(ns="subteam2.team2", labels={"service": "S1"}), 1, [100, 100, 0]),
]


@pytest.mark.parametrize("name,incoming,weight,want", SYMMETRIC, ids=[c[0] for c in SYMMETRIC])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(name, incoming, weight, want):
    pods = [on("node1", aff=HARD_POD_AFFINITY), on("node2", aff=HARD_POD_AFFINITY)]
    nodes = nodes_of(("node1", CHINA), ("node2", INDIA), ("node3", AZ1))
    st, got = run_score(incoming, pods, nodes, {"hardPodAffinityWeight": weight})
    if want == "skip":
        assert st.is_skip()
    else:
        assert st.is_success() and got == want


def test_raw_scores_are_signed_weight_sums():
    # node1 (China) holds an S1 pod (+5 from the incoming preferred affinity);
    # node2 (az1) holds an S2 pod (-5 from the anti-affinity).
    incoming = pod(labels=S1, pref_aff=[(5, t_in("security", "region", ["S1"]))], pref_anti=[(5, t_in("security", "az", ["S2"]))])
    h = handle(nodes_of(("node1", CHINA), ("node2", AZ1)), [on("node1", S1), on("node2", S2)])
    pl = ipa.new(None, h)
    cs = CycleState()
    pi = PodInfo(incoming)
    assert pl.pre_score(cs, pi, h.snapshot.list()).is_success()
    assert [pl.score(cs, pi, h.snapshot.get(n))[0] for n in ("node1", "node2")] == [5, -5]
    assert cs.read(ipa.PRE_SCORE_STATE_KEY).topology_score == {"region": {"China": 5}, "az": {"az1": -5}}


# --- args --------------------------------------------------------------------------

def test_args_defaults():
    pl = ipa.new(None, None)
    assert (pl.hard_pod_affinity_weight, pl.ignore_preferred_terms_of_existing_pods) == (1, False)
    assert ipa.new({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "InterPodAffinityArgs"}, None).hard_pod_affinity_weight == 1


@pytest.mark.parametrize("weight,msg", [
    (-1, "hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"),
    (101, "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"),
])
def test_args_validation(weight, msg):
    with pytest.raises(ConfigError) as e:
        ipa.new({"hardPodAffinityWeight": weight}, None)
    assert str(e.value) == msg


def test_args_reject_unknown_and_mistyped_fields():
    with pytest.raises(ConfigError, match="unknown field"):
        ipa.new({"hardPodAffinity": 1}, None)
    with pytest.raises(ConfigError):
        ipa.new({"hardPodAffinityWeight": "1"}, None)
    with pytest.raises(ConfigError):
        ipa.new({"ignorePreferredTermsOfExistingPods": "yes"}, None)


def test_plugin_surface():
    pl = ipa.new(None, None)
    assert pl.name() == ipa.NAME == "InterPodAffinity"
    assert pl.pre_filter_extensions() is pl and pl.score_extensions() is pl


def test_node_signature_tells_apart_what_filter_reads_of_the_state():
    """filter_node_signature (preemption's dry-run memo) changes with the counters Filter reads for the node, also
    when only the affinity counter's other entries come or go: with a db pod only in zone b, a db pod with affinity
    to db pods per zone is rejected in zone a; once that pod is gone it may go there (the first of its group), and
    the node's signature differs though its own counters did not change."""
    nodes = [make_node("a1", labels={"zone": "a"}), make_node("b1", labels={"zone": "b"})]
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}
    incoming = PodInfo(pod(labels={"app": "db"}, aff=[term], anti=[
        {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}]))
    existing_db = pod("db-0", labels={"app": "db"}, node_name="b1")
    cache = pod("cache-0", labels={"app": "cache"}, node_name="a1")

    def signed(pods):
        h = handle(nodes, pods)
        pl = ipa.new({}, h)
        state = CycleState()
        assert pl.pre_filter(state, incoming, h.snapshot.list())[1].is_success()
        a1 = h.snapshot.get("a1")
        forms = fast_forms(pl)
        return forms.filter_node_signature(state, incoming, a1), pl.filter(state, incoming, a1), \
            forms.filter_state_signature(state, incoming)

    with_db, verdict_with, static_with = signed([existing_db])
    without_db, verdict_without, static_without = signed([])
    assert verdict_with.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and verdict_without.is_success()
    assert with_db != without_db and static_with == static_without
    with_cache, verdict_cache, _ = signed([existing_db, cache])
    assert with_cache != with_db  # the anti-affinity counter at a1's hostname pair
