"""Extenders in the scheduling cycle: ports of the extender cases of schedule_one_test.go and extender_test.go.

Each case names its upstream source (kubernetes/kubernetes@v1.34.0 pkg/scheduler/...).
"""

from __future__ import annotations

import random

import pytest

from kubenotes.scheduler.config import API_VERSION, KIND, load_config
from kubenotes.scheduler.extender import EXTENDER_NAME, find_nodes_that_pass_extenders
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code, Status
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.framework.runtime import NodeToStatus
from kubenotes.scheduler.plugins.registry import in_tree_registry
from kubenotes.scheduler.schedule_one import new_scheduler
from kubenotes.scheduler.testing import (
    FakeExtender,
    error_predicate_extender,
    error_prioritizer_extender,
    false_predicate_extender,
    make_node,
    make_pod,
    node1_predicate_extender,
    node1_prioritizer_extender,
    node2_predicate_extender,
    node2_prioritizer_extender,
    run_decisions,
    true_predicate_extender,
)


# --------------------------------------------------------------------------- fake plugins (pkg/scheduler/testing/framework)
class TrueFilter:
    def name(self):
        return "TrueFilter"

    def filter(self, state, pod, node_info):
        return Status()


class FakeFilter:
    """``NewFakeFilterPlugin``: the code given per node, message ``injecting failure for pod <name>``."""

    def __init__(self, codes):
        self.codes = codes

    def name(self):
        return "FakeFilter"

    def filter(self, state, pod, node_info):
        code = self.codes.get(node_info.name)
        return Status() if code is None else Status(code, [f"injecting failure for pod {pod.name}"])


class ScorePlugin:
    def __init__(self, name, fn, weight):
        self._name, self.fn, self.weight = name, fn, weight

    def name(self):
        return self._name

    def score(self, state, pod, node_info):
        return self.fn(node_info.name), Status()

    def score_extensions(self):
        return None


def equal_prioritizer(weight=1):
    return ScorePlugin("EqualPrioritizerPlugin", lambda n: 1, weight)


def node2_prioritizer(weight):
    return ScorePlugin("Node2Prioritizer", lambda n: 100 if n == "node2" else 10, weight)


def numeric_map(weight=1):
    return ScorePlugin("NumericMap", int, weight)


def scheduler(node_names, plugins, extenders, pods=(), *, trace=True):
    reg = in_tree_registry()
    enabled = [{"name": "PrioritySort"}, {"name": "DefaultBinder"}]
    for p in plugins:
        reg.register(p.name(), (lambda pl: lambda args, h: pl)(p))
        e = {"name": p.name()}
        if getattr(p, "weight", None) is not None:
            e["weight"] = p.weight
        enabled.append(e)
    doc = {"apiVersion": API_VERSION, "kind": KIND,
           "profiles": [{"plugins": {"multiPoint": {"enabled": enabled, "disabled": [{"name": "*"}]}}}]}
    return new_scheduler([make_node(n) for n in node_names], list(pods), config=load_config(doc), registry=reg,
                         trace=trace, extenders=extenders)


def schedule(sched, pod_name="ignore"):
    return sched.schedule_pod(CycleState(), PodInfo(make_pod(pod_name)))


# --------------------------------------------------------------------------- TestSchedulerWithExtenders
# pkg/scheduler/extender_test.go TestSchedulerWithExtenders: (name, plugins, extenders, nodes, want) where want is
# (host, evaluated, feasible) or "error".
WITH_EXTENDERS = [
    ("test 1", [TrueFilter()],
     [FakeExtender("FakeExtender1", predicates=[true_predicate_extender]),
      FakeExtender("FakeExtender2", predicates=[error_predicate_extender])], ["node1", "node2"], "error"),
    ("test 2", [TrueFilter()],
     [FakeExtender("FakeExtender1", predicates=[true_predicate_extender]),
      FakeExtender("FakeExtender2", predicates=[false_predicate_extender])], ["node1", "node2"], "error"),
    ("test 3", [TrueFilter(), equal_prioritizer()],
     [FakeExtender("FakeExtender1", predicates=[true_predicate_extender]),
      FakeExtender("FakeExtender2", predicates=[node1_predicate_extender])], ["node1", "node2"], ("node1", 2, 1)),
    ("test 4", [TrueFilter()],
     [FakeExtender("FakeExtender1", predicates=[node2_predicate_extender]),
      FakeExtender("FakeExtender2", predicates=[node1_predicate_extender])], ["node1", "node2"], "error"),
    ("test 5", [TrueFilter()],
     [FakeExtender("FakeExtender1", predicates=[true_predicate_extender],
                   prioritizers=[(error_prioritizer_extender, 10)], weight=1)], ["node1"], ("node1", 1, 1)),
    ("test 6", [TrueFilter()],
     [FakeExtender("FakeExtender1", predicates=[true_predicate_extender],
                   prioritizers=[(node1_prioritizer_extender, 10)], weight=1),
      FakeExtender("FakeExtender2", predicates=[true_predicate_extender],
                   prioritizers=[(node2_prioritizer_extender, 10)], weight=5)], ["node1", "node2"], ("node2", 2, 2)),
    ("test 7", [TrueFilter(), node2_prioritizer(20)],
     [FakeExtender("FakeExtender1", predicates=[true_predicate_extender],
                   prioritizers=[(node1_prioritizer_extender, 10)], weight=1)], ["node1", "node2"], ("node2", 2, 2)),
    # the extender is not interested: were the pod sent, its error predicate and prioritizer would fail the cycle
    ("test 8", [TrueFilter(), node2_prioritizer(1)],
     [FakeExtender("FakeExtender1", predicates=[error_predicate_extender],
                   prioritizers=[(error_prioritizer_extender, 10)], uninterested=True)], ["node1", "node2"],
     ("node2", 2, 2)),
    # an ignorable extender that fails is skipped
    ("test 9", [TrueFilter(), equal_prioritizer()],
     [FakeExtender("FakeExtender1", predicates=[error_predicate_extender], ignorable=True),
      FakeExtender("FakeExtender2", predicates=[node1_predicate_extender])], ["node1", "node2"], ("node1", 2, 1)),
    ("test 10 - no scoring, extender filters configured, multiple feasible nodes are evaluated", [TrueFilter()],
     [FakeExtender("FakeExtender1", predicates=[true_predicate_extender]),
      FakeExtender("FakeExtender2", predicates=[node1_predicate_extender])], ["node1", "node2"], ("node1", 2, 1)),
    ("test 11 - no scoring, no prefilters or extender filters configured, a single feasible node is evaluated", [],
     [FakeExtender("FakeExtender1", binder=lambda: Status())], ["node1", "node2"], ("node1", 1, 1)),
]


@pytest.mark.parametrize("name, plugins, extenders, node_names, want", WITH_EXTENDERS, ids=[c[0] for c in WITH_EXTENDERS])
def test_scheduler_with_extenders(name, plugins, extenders, node_names, want):
    r = schedule(scheduler(node_names, plugins, extenders))
    if want == "error":
        assert r.error is not None or r.fit_error is not None
    else:
        assert (r.error, r.fit_error) == (None, None)
        assert (r.suggested_host, r.evaluated_nodes, r.feasible_nodes) == want


def test_extender_scores_are_scaled_and_added_to_the_plugins_total():
    # test 7 above, with the arithmetic: Node2Prioritizer x 20 gives node1 200 and node2 2000; the extender's
    # combined scores (100 and 10) x weight 1 x MaxNodeScore/MaxExtenderPriority (10) give node1 1000, node2 100
    sched = scheduler(["node1", "node2"], [TrueFilter(), node2_prioritizer(20)],
                      [FakeExtender("FakeExtender1", predicates=[true_predicate_extender],
                                    prioritizers=[(node1_prioritizer_extender, 10)], weight=1)],
                      [make_pod("p")])
    (t,) = sched.run()
    assert t.total_score == {"node1": 1200, "node2": 2100}
    assert t.final_score["node1"] == {"Node2Prioritizer": 200, "FakeExtender1": 1000}
    assert t.score["node1"] == {"Node2Prioritizer": 10, "FakeExtender1": 100}
    assert t.node_name == "node2"


# --------------------------------------------------------------------------- TestFindNodesThatPassExtenders
ABSENT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["node(s) didn't satisfy plugin(s) [PreFilter]"])


def _a_b_c(pod, node):
    if node.name == "a":
        return Status()
    code = Code.UNSCHEDULABLE if node.name == "b" else Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    return Status(code, [f'node "{node.name}" is not allowed'])


def _only_a(pod, node):
    return Status() if node.name == "a" else Status(Code.UNSCHEDULABLE, [f'node "{node.name}" is not allowed'])


def _failed(n):
    return (Code.UNSCHEDULABLE, [f'FakeExtender: node "{n}" failed'])


def _unresolvable(n):
    return (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [f'FakeExtender: node "{n}" failed and unresolvable'])


# pkg/scheduler/schedule_one_test.go TestFindNodesThatPassExtenders: (name, predicates per extender, nodes,
# statuses before, want nodes or "error", want statuses)
PASS_EXTENDERS = [
    ("error", [[error_predicate_extender]], ["a"], {}, "error", {}),
    ("success", [[true_predicate_extender]], ["a"], {}, ["a"], {}),
    ("unschedulable", [[_only_a]], ["a", "b"], {}, ["a"], {"b": _failed("b")}),
    ("unschedulable and unresolvable", [[_a_b_c]], ["a", "b", "c"], {}, ["a"],
     {"b": _failed("b"), "c": _unresolvable("c")}),
    ("extender does not overwrite the previous statuses", [[_a_b_c]], ["a", "b"],
     {"c": (Code.UNSCHEDULABLE, ['FakeFilterPlugin: node "c" failed'])}, ["a"],
     {"b": _failed("b"), "c": (Code.UNSCHEDULABLE, ['FakeFilterPlugin: node "c" failed'])}),
    ("multiple extenders", [[_a_b_c], [_only_a]], ["a", "b", "c"], {}, ["a"],
     {"b": _failed("b"), "c": _unresolvable("c")}),
]


@pytest.mark.parametrize("name, predicates, node_names, before, want_nodes, want_statuses", PASS_EXTENDERS,
                         ids=[c[0] for c in PASS_EXTENDERS])
def test_find_nodes_that_pass_extenders(name, predicates, node_names, before, want_nodes, want_statuses):
    extenders = [FakeExtender("FakeExtender1", predicates=p) for p in predicates]
    statuses = NodeToStatus({n: Status(c, list(r)) for n, (c, r) in before.items()}, absent_nodes_status=ABSENT)
    got, err = find_nodes_that_pass_extenders(extenders, PodInfo(make_pod("1", uid="1")),
                                              [NodeInfo(make_node(n)) for n in node_names], statuses)
    if want_nodes == "error":
        assert err is not None and err.code == Code.ERROR and err.message() == "some error"
        return
    assert err is None
    assert [ni.name for ni in got] == want_nodes
    assert {n: (s.code, s.reasons) for n, s in statuses.items()} == want_statuses
    assert statuses.absent_nodes_status is ABSENT


# --------------------------------------------------------------------------- TestSchedulerSchedulePod (extender case)
def test_schedule_pod_with_extender_which_filters_out_some_nodes():
    # pkg/scheduler/schedule_one_test.go TestSchedulerSchedulePod "test with extender which filters out some Nodes"
    sched = scheduler(["1", "2", "3"], [FakeFilter({"3": Code.UNSCHEDULABLE}), numeric_map()],
                      [FakeExtender("FakeExtender1", predicates=[false_predicate_extender])])
    r = schedule(sched, "test-filter")
    fe = r.fit_error
    assert fe is not None and fe.num_all_nodes == 3
    d = fe.diagnosis
    assert {n: (s.code, s.reasons, s.plugin) for n, s in d.node_to_status.items()} == {
        "1": (Code.UNSCHEDULABLE, ['FakeExtender: node "1" failed'], ""),
        "2": (Code.UNSCHEDULABLE, ['FakeExtender: node "2" failed'], ""),
        "3": (Code.UNSCHEDULABLE, ["injecting failure for pod test-filter"], "FakeFilter"),
    }
    assert d.unschedulable_plugins == {"FakeFilter", EXTENDER_NAME}
    assert fe.error() == ('0/3 nodes are available: 1 FakeExtender: node "1" failed, 1 FakeExtender: node "2" failed, '
                          "1 injecting failure for pod test-filter.")


def test_failed_scheduling_message_and_queue_plugins_for_extender_rejections():
    # schedule_one.go findNodesThatFitPod: nodes the extenders reject carry their messages into the FitError,
    # and the pod is requeued with "Extender" among its unschedulable plugins
    sched = scheduler(["node1", "node2"], [TrueFilter(), equal_prioritizer()],
                      [FakeExtender("E", predicates=[_a_b_c])], [make_pod("p")])
    (t,) = sched.run()
    assert t.node_name is None
    assert t.message == ('0/2 nodes are available: 1 FakeExtender: node "node1" failed and unresolvable, '
                         '1 FakeExtender: node "node2" failed and unresolvable.')
    assert t.filter["node1"] == {"TrueFilter": "passed", "E": 'FakeExtender: node "node1" failed and unresolvable'}
    (q,) = [q for qs in sched.queue.pending_pods().values() for q in qs]
    assert q.unschedulable_plugins == {EXTENDER_NAME}


def test_an_extender_error_fails_the_attempt_with_its_message():
    sched = scheduler(["node1", "node2"], [TrueFilter()],
                      [FakeExtender("E", predicates=[error_predicate_extender])], [make_pod("p")])
    (t,) = sched.run(max_attempts=1)
    assert (t.node_name, t.message) == (None, "some error")


def test_nominated_node_goes_through_the_extenders():
    # schedule_one.go evaluateNominatedNode: the nominated node passes Filter but the extender rejects it,
    # so every node is searched
    from lightkube.resources.core_v1 import Pod

    d = make_pod("p").to_dict()
    d["status"] = {"nominatedNodeName": "node1"}
    ext = FakeExtender("E", predicates=[node2_predicate_extender])
    sched = scheduler(["node1", "node2"], [TrueFilter(), equal_prioritizer()], [ext], [Pod.from_dict(d)])
    (t,) = sched.run()
    assert t.node_name == "node2"
    assert t.filter["node1"]["E"] == 'FakeExtender: node "node1" failed'


# --------------------------------------------------------------------------- TestSchedulerBinding
class BindingExtender:
    """pkg/scheduler/schedule_one_test.go ``fakeExtender`` of TestSchedulerBinding."""

    def __init__(self, is_binder, interested_pod, err_bind=False, ignorable=False):
        self.binder, self.interested_pod, self.err_bind, self.ignorable = is_binder, interested_pod, err_bind, ignorable
        self.got_bind = False

    def name(self):
        return "fakeExtender"

    def is_ignorable(self):
        return self.ignorable

    def is_filter(self):
        return False

    def is_prioritizer(self):
        return False

    def is_binder(self):
        return self.binder

    def supports_preemption(self):
        return False

    def is_interested(self, pod):
        return pod.name == self.interested_pod

    def filter(self, pod, nodes):
        return list(nodes), {}, {}, Status()

    def bind(self, binding):
        self.got_bind = True
        return Status(Code.ERROR, ["bind error"]) if self.err_bind else Status()


# (name, pod, extenders, who binds: "framework", an extender index, or "" when binding fails)
BINDING = [
    ("the extender is not a binder", "pod0", [BindingExtender(False, "pod0")], "framework"),
    ("one of the extenders is a binder and interested in pod", "pod0",
     [BindingExtender(False, "pod0"), BindingExtender(True, "pod0")], 1),
    ("one of the extenders is a binder, but not interested in pod", "pod1",
     [BindingExtender(False, "pod1"), BindingExtender(True, "pod0")], "framework"),
    ("ignore when extender bind returns error", "pod0", [BindingExtender(True, "pod0", err_bind=True, ignorable=True)],
     "framework"),
    ("not ignore when extender bind returns error", "pod0", [BindingExtender(True, "pod0", err_bind=True)], ""),
]


@pytest.mark.parametrize("name, pod_name, extenders, want", BINDING, ids=[c[0] for c in BINDING])
def test_scheduler_binding(name, pod_name, extenders, want):
    sched = scheduler(["node1"], [], extenders, [make_pod(pod_name)])
    framework_bound = []
    sched.framework.binder = lambda pod, node: framework_bound.append((pod.name, node))
    real_bind = sched.framework.plugins_map["DefaultBinder"].bind
    calls = []
    sched.framework.plugins_map["DefaultBinder"].bind = lambda *a: calls.append(a) or real_bind(*a)
    (t,) = sched.run(max_attempts=1)
    if want == "":
        assert t.node_name is None and t.message == "bind error"
        return
    assert t.node_name == "node1"
    if want == "framework":
        assert len(calls) == 1
    else:
        assert calls == [] and extenders[want].got_bind
    # the binding is recorded either way (the extender wrote it to the API server)
    assert framework_bound == [(pod_name, "node1")]


# --------------------------------------------------------------------------- preemption (callExtenders)
def _preemption_cluster():
    nodes = [make_node(f"node{i}", allocatable={"cpu": "1", "memory": "1Gi", "pods": "10"}) for i in (1, 2, 3)]
    # node1's victim has the highest priority: DefaultPreemption prefers node2 or node3
    running = [make_pod(f"v{i}", requests={"cpu": "1"}, node_name=f"node{i}", priority=p)
               for i, p in ((1, 50), (2, 10), (3, 10))]
    return nodes, running + [make_pod("high", requests={"cpu": "1"}, priority=100)]


def test_preemption_without_extenders_picks_a_node_with_lower_victims():
    nodes, pods = _preemption_cluster()
    sched = new_scheduler(nodes, pods)
    t = sched.run(max_attempts=1)[0]
    assert t.nominated_node_name in ("node2", "node3")


def test_preemption_extender_allows_only_node1():
    # pkg/scheduler/framework/preemption/preemption_test.go TestPreempt
    # "One scheduler extender allows only node1, otherwise node3 would have been chosen"
    nodes, pods = _preemption_cluster()
    ext = FakeExtender("E", predicates=[true_predicate_extender, node1_predicate_extender])
    sched = new_scheduler(nodes, pods, extenders=[ext])
    t = sched.run(max_attempts=1)[0]
    assert (t.nominated_node_name, t.victims) == ("node1", ["default/v1"])


def test_preemption_extenders_that_allow_nothing_leave_no_candidate():
    # TestPreempt "Scheduler extenders do not allow any preemption"
    nodes, pods = _preemption_cluster()
    ext = FakeExtender("E", predicates=[false_predicate_extender])
    sched = new_scheduler(nodes, pods, extenders=[ext])
    t = sched.run(max_attempts=1)[0]
    assert (t.victims, t.nominated_node_name) == ([], None)
    assert t.message.endswith(", preemption: no candidate node for preemption")


def test_preemption_extender_error_ignorable_is_skipped():
    # TestPreempt "One scheduler extender allows only node1, the other returns error but ignorable"
    nodes, pods = _preemption_cluster()
    exts = [FakeExtender("E1", predicates=[error_predicate_extender], ignorable=True),
            FakeExtender("E2", predicates=[node1_predicate_extender])]
    sched = new_scheduler(nodes, pods, extenders=exts)
    t = sched.run(max_attempts=1)[0]
    assert t.nominated_node_name == "node1"


# --------------------------------------------------------------------------- the untraced path
def test_untraced_scheduler_decides_as_the_traced_one_with_extenders():
    rng = random.Random(7)
    node_names = [f"node{i}" for i in range(1, 13)]
    pods = [make_pod(f"p{j}", requests={"cpu": f"{rng.choice([500, 1000, 1500])}m"}) for j in range(40)]

    def run(trace):
        exts = [FakeExtender("E1", predicates=[lambda pod, n: Status() if n.name != "node3" else
                                               Status(Code.UNSCHEDULABLE, ["no"])],
                             prioritizers=[(node2_prioritizer_extender, 1)], weight=3)]
        return run_decisions(new_scheduler([make_node(n) for n in node_names], pods, extenders=exts, trace=trace, seed=3))

    traced, untraced = run(True), run(False)
    assert traced == untraced
    assert all(node != "node3" for _pod, node in traced[1])
    assert sum(1 for _pod, node in traced[1] if node == "node2") >= 3


def test_ignored_by_scheduler_resources_are_not_checked_by_noderesourcesfit():
    # pkg/scheduler/scheduler.go buildExtenders: managedResources with ignoredByScheduler become
    # NodeResourcesFitArgs.ignoredResources
    cfg = {"apiVersion": API_VERSION, "kind": KIND, "extenders": [{
        "urlPrefix": "http://e", "filterVerb": "filter",
        "managedResources": [{"name": "example.com/foo", "ignoredByScheduler": True}]}]}
    pod = make_pod("p", requests={"example.com/foo": "1"})

    class PassAll:
        def filter(self, args):
            return {"NodeNames": None, "Nodes": args["Nodes"], "FailedNodes": {}, "Error": ""}

    sched = new_scheduler([make_node("n1")], [pod], config=load_config(cfg), extender_services={"http://e": PassAll()})
    (t,) = sched.run()
    assert t.node_name == "n1"
    (t2,) = new_scheduler([make_node("n1")], [pod]).run()
    assert t2.message.startswith("0/1 nodes are available: 1 Insufficient example.com/foo.")


def test_failed_and_unresolvable_wins_when_an_extender_names_a_node_in_both_maps():
    # schedule_one.go findNodesThatPassExtenders: failedAndUnresolvableMap takes precedence over failedMap
    class Both(FakeExtender):
        def filter(self, pod, nodes):
            return [], {"a": "failed"}, {"a": "unresolvable"}, Status()

    statuses = NodeToStatus()
    got, err = find_nodes_that_pass_extenders([Both("B")], PodInfo(make_pod("p")), [NodeInfo(make_node("a"))], statuses)
    assert (got, err) == ([], None)
    assert (statuses["a"].code, statuses["a"].reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["unresolvable"])


@pytest.mark.parametrize("trace", [True, False])
def test_the_fit_error_counts_filter_and_extender_rejections_on_the_untraced_path_too(trace):
    # with extenders the untraced scheduler keeps the per-node Filter loop: the batch one records no status for
    # the nodes it rejects, which the FitError needs once the extenders reject the rest
    small = {"cpu": "1", "memory": "4Gi", "pods": "110"}
    node_list = [make_node(f"node{i}", allocatable=small if i % 2 else None) for i in range(10)]
    ext = FakeExtender("E", predicates=[false_predicate_extender])
    sched = new_scheduler(node_list, [make_pod("p", requests={"cpu": "2"})], extenders=[ext], trace=trace)
    (t,) = sched.run(max_attempts=1)
    reasons = ", ".join(sorted([f'1 FakeExtender: node "node{i}" failed' for i in range(0, 10, 2)] + ["5 Insufficient cpu"]))
    assert t.message.startswith(f"0/10 nodes are available: {reasons}.")
