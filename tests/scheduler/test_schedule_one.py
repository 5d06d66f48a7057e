"""Tests for kubenotes.scheduler.schedule_one (ports of schedule_one_test.go tables, plus end-to-end runs)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kubenotes.scheduler.config import API_VERSION, KIND, load_config
from kubenotes.scheduler.framework.interface import Code, NominatingInfo, PostFilterResult, PreFilterResult, Status
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.framework.runtime import NodePluginScores, NodeToStatus
from kubenotes.scheduler.plugins.registry import in_tree_registry
from kubenotes.scheduler.schedule_one import (
    Diagnosis,
    FitError,
    new_scheduler,
    num_feasible_nodes_to_find,
    select_host,
    truncate_message,
)
from kubenotes.scheduler.testing import make_node, make_pod, run_decisions, spy_batch_path


# --------------------------------------------------------------------------- helpers
class FakeFilter:
    """Rejects nodes whose name is in ``reject`` (Unschedulable, or Unresolvable for ``unresolvable``)."""

    def __init__(self, name="FakeFilter", reject=(), reason="fake reject", unresolvable=()):
        self._name, self.reject, self.reason, self.unresolvable = name, set(reject), reason, set(unresolvable)
        self.calls: list[str] = []

    def name(self):
        return self._name

    def filter(self, state, pod, node_info):
        self.calls.append(node_info.name)
        if node_info.name in self.unresolvable:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [self.reason])
        if node_info.name in self.reject:
            return Status(Code.UNSCHEDULABLE, [self.reason])
        return Status()


class FakeScore:
    """Scores a node by a table (default 0)."""

    def __init__(self, name="FakeScore", table=None, weight=None):
        self._name, self.table, self.weight = name, table or {}, weight

    def name(self):
        return self._name

    def score(self, state, pod, node_info):
        return self.table.get(node_info.name, 0), Status()

    def score_extensions(self):
        return None


class FakePreFilter:
    def __init__(self, name, node_names):
        self._name, self.node_names = name, node_names

    def name(self):
        return self._name

    def pre_filter(self, state, pod, nodes):
        return PreFilterResult(set(self.node_names)), Status()

    def pre_filter_extensions(self):
        return None

    def filter(self, state, pod, node_info):
        return Status()


def fake_scheduler(nodes, pods, plugins, *, seed=0, trace=True, percentage=None, global_percentage=None):
    reg = in_tree_registry()
    for p in plugins:
        reg.register(p.name(), (lambda pl: lambda args, h: pl)(p))
    enabled = [{"name": "PrioritySort"}, {"name": "DefaultBinder"}]
    for p in plugins:
        e = {"name": p.name()}
        if getattr(p, "weight", None) is not None:
            e["weight"] = p.weight
        enabled.append(e)
    prof = {"plugins": {"multiPoint": {"enabled": enabled, "disabled": [{"name": "*"}]}}}
    if percentage is not None:
        prof["percentageOfNodesToScore"] = percentage
    doc = {"apiVersion": API_VERSION, "kind": KIND, "profiles": [prof]}
    if global_percentage is not None:
        doc["percentageOfNodesToScore"] = global_percentage
    return new_scheduler(nodes, pods, config=load_config(doc), registry=reg, seed=seed, trace=trace)


def nodes(n, prefix="node", **kw):
    return [make_node(f"{prefix}-{i}", **kw) for i in range(n)]


# --------------------------------------------------------------------------- numFeasibleNodesToFind
@pytest.mark.parametrize("profile_pct, global_pct, num_all, want", [
    (None, 0, 10, 10),      # not set percentageOfNodesToScore and nodes number not more than 50
    (40, 0, 10, 10),        # set profile percentageOfNodesToScore and nodes number not more than 50
    (None, 0, 1000, 420),   # not set percentageOfNodesToScore and nodes number more than 50
    (40, 0, 1000, 400),     # set profile percentageOfNodesToScore and nodes number more than 50
    (70, 100, 1000, 700),   # set global and profile percentageOfNodesToScore
    (None, 40, 1000, 400),  # set global percentageOfNodesToScore
    (None, 0, 6000, 300),   # not set, nodes number more than 50*125
    (40, 0, 6000, 2400),    # set, nodes number more than 50*125
    (None, 0, 100, 100),
    (None, 0, 200, 100),
    (1, 0, 5000, 100),      # never below minFeasibleNodesToFind
])
def test_num_feasible_nodes_to_find(profile_pct, global_pct, num_all, want):
    assert num_feasible_nodes_to_find(profile_pct, num_all, global_pct) == want


# --------------------------------------------------------------------------- selectHost
def nps(*pairs):
    return [NodePluginScores(n, [], s) for n, s in pairs]


@pytest.mark.parametrize("scores, possible", [
    (nps(("node1.1", 1), ("node2.1", 2)), {"node2.1"}),
    (nps(("node1.1", 1), ("node1.2", 2), ("node2.1", 2)), {"node1.2", "node2.1"}),
    (nps(("node1.1", 3), ("node1.2", 3), ("node2.1", 2), ("node3.1", 1), ("node1.3", 3)), {"node1.1", "node1.2", "node1.3"}),
    (nps(("node1.1", 3), ("node1.2", 3), ("node2.1", 2), ("node3.1", 1), ("node3.2", 1)), {"node1.1", "node1.2"}),
])
def test_select_host(scores, possible):
    seen = set()
    for seed in range(40):
        host, top = select_host(list(scores), 3, random.Random(seed))
        assert host in possible
        assert top[0].name == host
        assert len(top) == min(3, len(scores))
        seen.add(host)
    assert seen == possible  # every tied node gets picked for some seed


def test_select_host_draws_once_per_tie():
    class Counting(random.Random):
        draws = 0

        def randrange(self, *a, **k):
            Counting.draws += 1
            return super().randrange(*a, **k)

    rng = Counting(1)
    select_host(nps(("a", 5), ("b", 5), ("c", 5), ("d", 1)), 3, rng)
    assert Counting.draws == 2
    Counting.draws = 0
    select_host(nps(("a", 9), ("b", 5), ("c", 4)), 3, rng)
    assert Counting.draws == 0


def test_select_host_is_roughly_uniform():
    counts = Counter(select_host(nps(("a", 1), ("b", 1), ("c", 1), ("d", 1)), 3, random.Random(s))[0] for s in range(4000))
    assert set(counts) == {"a", "b", "c", "d"}
    assert all(800 < c < 1200 for c in counts.values())


def test_select_host_empty():
    with pytest.raises(ValueError, match="empty priorityList"):
        select_host([], 3, random.Random(0))


# --------------------------------------------------------------------------- FitError
def test_fit_error_prefilter_message():
    d = Diagnosis()
    d.node_to_status.set_absent_nodes_status(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["Node(s) failed PreFilter plugin FalsePreFilter"]))
    d.pre_filter_msg = "Node(s) failed PreFilter plugin FalsePreFilter"
    assert FitError(None, 3, d).error() == "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter."


def test_fit_error_absent_nodes_are_counted():
    d = Diagnosis()
    d.node_to_status["n1"] = Status.unschedulable("Insufficient cpu")
    d.node_to_status.set_absent_nodes_status(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]))
    assert FitError(None, 4, d).error() == \
        "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]."


def test_fit_error_histogram_sorted_as_strings():
    d = Diagnosis()
    for i in range(10):
        d.node_to_status[f"a{i}"] = Status.unschedulable("A reason")
    d.node_to_status["b"] = Status.unschedulable("B reason", "C reason")
    # "10 A reason" sorts before "1 B reason": the histogram is sorted as strings, as upstream
    assert FitError(None, 11, d).error() == "0/11 nodes are available: 1 B reason, 1 C reason, 10 A reason."


def test_truncate_message():
    assert truncate_message("x" * 1024) == "x" * 1024
    t = truncate_message("x" * 2000)
    assert len(t) == 1024 and t.endswith(" ...")


# --------------------------------------------------------------------------- the loop with fake plugins
def test_filter_trace_and_single_feasible_node_skips_scoring():
    f = FakeFilter(reject={"node-0", "node-2"}, reason="nope")
    s = fake_scheduler(nodes(3), [make_pod("p")], [f, FakeScore(table={"node-1": 50})])
    [t] = s.run()
    assert t.node_name == "node-1"
    assert t.filter == {"node-0": {"FakeFilter": "nope"}, "node-1": {"FakeFilter": "passed"}, "node-2": {"FakeFilter": "nope"}}
    assert t.score == {} and t.final_score == {} and t.total_score == {}
    assert t.message is None and t.bind == {"DefaultBinder": "success"}
    assert s.bindings == [("default/p", "node-1")]
    assert [p.key for p in s.snapshot.get("node-1").pods] == ["default/p"]


def test_scores_are_weighted_and_best_node_wins():
    sc = FakeScore(table={"node-0": 10, "node-1": 30, "node-2": 20}, weight=2)
    s = fake_scheduler(nodes(3), [make_pod("p")], [FakeFilter(), sc])
    [t] = s.run()
    assert t.node_name == "node-1"
    assert t.score == {"node-0": {"FakeScore": 10}, "node-1": {"FakeScore": 30}, "node-2": {"FakeScore": 20}}
    assert t.final_score["node-1"] == {"FakeScore": 60}
    assert t.total_score == {"node-0": 20, "node-1": 60, "node-2": 40}


def test_fit_error_without_post_filter():
    f = FakeFilter(reject={"node-0", "node-1"}, reason="nope", unresolvable={"node-2"})
    s = fake_scheduler(nodes(3), [make_pod("p")], [f])
    [t] = s.run()
    assert t.node_name is None
    assert t.message == "0/3 nodes are available: 3 nope."
    assert s.queue.pending_pods()["unschedulablePods"][0].unschedulable_plugins == {"FakeFilter"}


def test_no_nodes():
    s = fake_scheduler([], [make_pod("p")], [FakeFilter()])
    [t] = s.run()
    assert t.message == "no nodes available to schedule pods"


def test_pre_filter_result_excludes_nodes():
    s = fake_scheduler(nodes(4), [make_pod("p")], [FakePreFilter("Narrow", ["node-1", "node-3"]),
                                                    FakeFilter(reject={"node-1", "node-3"}, reason="nope")])
    [t] = s.run()
    assert t.message == "0/4 nodes are available: 2 node(s) didn't satisfy plugin(s) [Narrow], 2 nope."
    assert t.filter["node-0"] == {"Narrow": "node(s) didn't satisfy plugin(s) [Narrow]"}
    assert t.filter["node-1"] == {"Narrow": "passed", "FakeFilter": "nope"}
    assert t.pre_filter_result == {"Narrow": ["node-1", "node-3"]}


def test_pre_filter_rejection_message():
    class Rejecting:
        def name(self):
            return "Rejecting"

        def pre_filter(self, state, pod, nodes):
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["no way"])

        def pre_filter_extensions(self):
            return None

    s = fake_scheduler(nodes(2), [make_pod("p")], [Rejecting()])
    [t] = s.run()
    assert t.message == "0/2 nodes are available: no way."
    assert t.filter == {} and t.pre_filter_status == {"Rejecting": "no way"}


def test_round_robin_start_index_and_percentage():
    f = FakeFilter()
    s = fake_scheduler(nodes(200), [make_pod(f"p{i}") for i in range(3)], [f, FakeScore()])
    t1, t2, t3 = s.run()
    assert len(t1.filter) == 100 and list(t1.filter)[0] == "node-0"
    assert list(t2.filter)[0] == "node-100" and list(t2.filter)[-1] == "node-199"
    assert list(t3.filter)[0] == "node-0"
    assert len(t1.score) == 100
    # rejected nodes count as processed too
    f2 = FakeFilter(reject={f"node-{i}" for i in range(1, 200, 2)})
    s = fake_scheduler(nodes(200), [make_pod("a"), make_pod("b")], [f2, FakeScore()])
    ta, tb = s.run()
    assert len(ta.filter) == 199 and ta.feasible_nodes == 100 and ta.evaluated_nodes == 199
    assert list(tb.filter)[0] == "node-199"


def test_profile_percentage_of_nodes_to_score():
    s = fake_scheduler(nodes(1000), [make_pod("p")], [FakeFilter(), FakeScore()], percentage=30)
    [t] = s.run()
    assert len(t.filter) == 300
    s = fake_scheduler(nodes(1000), [make_pod("p")], [FakeFilter(), FakeScore()], global_percentage=20)
    [t] = s.run()
    assert len(t.filter) == 200


def test_without_score_plugins_first_feasible_node_wins():
    s = fake_scheduler(nodes(5), [make_pod("p")], [FakeFilter(reject={"node-0"})])
    [t] = s.run()
    assert t.node_name == "node-1" and list(t.filter) == ["node-0", "node-1"]


class FakePreemption:
    """PostFilter nominating ``node`` and evicting every pod on it whose priority is lower."""

    def __init__(self, handle_box):
        self.box = handle_box

    def name(self):
        return "FakePreemption"

    def post_filter(self, state, pod, m):
        assert isinstance(m, NodeToStatus)
        h = self.box["handle"]
        ni = h.snapshot.get("node-0")
        victims = [p for p in ni.pods if p.priority < pod.priority]
        if not victims:
            return None, Status(Code.UNSCHEDULABLE, ["preemption: nothing to do"])
        return PostFilterResult(NominatingInfo("node-0"), victims), Status()


class OnePodPerNode:
    def name(self):
        return "OnePodPerNode"

    def filter(self, state, pod, ni):
        return Status() if not ni.pods else Status.unschedulable("Too many pods")


def test_preemption_flow_with_fake_plugins():
    box = {}
    reg_pl = FakePreemption(box)
    low = make_pod("low", priority=1, node_name="node-0")
    s = fake_scheduler(nodes(1), [low, make_pod("high", priority=100)], [OnePodPerNode(), reg_pl])
    box["handle"] = s.framework
    t1, t2 = s.run()
    assert (t1.node_name, t1.nominated_node_name, t1.victims) == (None, "node-0", ["default/low"])
    assert t1.message == "0/1 nodes are available: 1 Too many pods."
    assert t1.post_filter == {"node-0": {"FakePreemption": "preemption victim"}}
    assert (t2.node_name, t2.attempt, t2.nominated_node_name) == ("node-0", 2, None)
    assert s.deleted == ["default/low"]
    assert s.nominator.nominated_pods_for_node("node-0") == []


def test_nominated_pod_blocks_lower_priority_pods():
    box = {}
    low = make_pod("low", priority=1, node_name="node-0")
    pods = [low, make_pod("high", priority=100), make_pod("lower", priority=0)]
    s = fake_scheduler(nodes(1), pods, [OnePodPerNode(), FakePreemption(box)])
    box["handle"] = s.framework
    traces = s.run()
    got = [(t.name, t.node_name) for t in traces]
    # "lower" is tried while "high" is nominated to node-0: the nominated pod counts as running there
    # ... then, once "high" is bound, "lower" (rejected by an out-of-tree plugin, interested in every
    # event) is retried and fails again
    assert got == [("high", None), ("lower", None), ("high", "node-0"), ("lower", None)]
    assert traces[1].filter == {"node-0": {"OnePodPerNode": "Too many pods"}}
    assert len(s.snapshot.get("node-0").pods) == 1


def test_reserve_failure_unreserves_and_forgets():
    class BadReserve:
        unreserved = []

        def name(self):
            return "BadReserve"

        def reserve(self, state, pod, node_name):
            return Status.unschedulable("reserve says no")

        def unreserve(self, state, pod, node_name):
            BadReserve.unreserved.append(node_name)

    s = fake_scheduler(nodes(1), [make_pod("p")], [FakeFilter(), BadReserve()])
    [t] = s.run()
    assert t.node_name is None and t.message == "0/1 nodes are available: 1 reserve says no."
    assert BadReserve.unreserved == ["node-0"] and s.snapshot.get("node-0").pods == []
    assert t.reserve == {"BadReserve": "reserve says no"}


def test_bind_failure_unreserves_and_requeues():
    class FailingBinder:
        def name(self):
            return "FailingBinder"

        def bind(self, state, pod, node_name):
            return Status.error("connection refused")

    reg = in_tree_registry()
    fb = FailingBinder()
    reg.register("FailingBinder", lambda a, h: fb)
    reg.register("FakeFilter", lambda a, h: FakeFilter())
    doc = {"apiVersion": API_VERSION, "kind": KIND, "profiles": [{"plugins": {
        "multiPoint": {"enabled": [{"name": "PrioritySort"}, {"name": "FakeFilter"}], "disabled": [{"name": "*"}]},
        "bind": {"enabled": [{"name": "FailingBinder"}], "disabled": [{"name": "*"}]}}}]}
    s = new_scheduler(nodes(1), [make_pod("p")], config=load_config(doc), registry=reg)
    traces = s.run()
    assert traces[0].message == 'running Bind plugin "FailingBinder": connection refused'
    assert len(traces) == 2  # an error is retried once, then parked
    assert s.snapshot.get("node-0").pods == []


def test_scheduler_name_filter():
    s = fake_scheduler(nodes(1), [make_pod("mine"), make_pod("other", schedulerName="my-scheduler")], [FakeFilter()])
    assert [t.name for t in s.run()] == ["mine"]


def test_terminating_pod_is_skipped():
    p = make_pod("dying")
    p.metadata.deletionTimestamp = "2024-01-01T00:00:00Z"
    s = fake_scheduler(nodes(1), [p], [FakeFilter()])
    [t] = s.run()
    assert t.message == "skip schedule deleting pod: default/dying" and t.node_name is None


def test_gated_pods_are_reported():
    s = new_scheduler(nodes(1), [make_pod("g", schedulingGates=[{"name": "foo"}])])
    assert s.run() == []
    [g] = s.gated_traces()
    assert (g.name, g.node_name, g.message, g.attempt) == ("g", None, "waiting for scheduling gates: [foo]", 0)


# --------------------------------------------------------------------------- end to end with the default profile
def three_nodes():
    taint = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    return [make_node("n1", allocatable={"cpu": "2", "memory": "4Gi", "pods": "110"}),
            make_node("n2", allocatable={"cpu": "8", "memory": "16Gi", "pods": "110"}, taints=taint),
            make_node("n3", allocatable={"cpu": "8", "memory": "16Gi", "pods": "110"}, taints=taint)]


def test_failed_scheduling_message_three_nodes():
    running = make_pod("busy", requests={"cpu": "1500m"}, node_name="n1")
    s = new_scheduler(three_nodes(), [running, make_pod("web", requests={"cpu": "1"})])
    [t] = s.run()
    assert t.node_name is None
    assert t.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.")
    assert t.filter["n1"]["NodeResourcesFit"] == "Insufficient cpu"
    assert t.filter["n2"]["TaintToleration"] == "node(s) had untolerated taint {dedicated: gpu}"
    assert "NodeResourcesFit" not in t.filter["n2"]  # Filter stops at the first failing plugin


def test_default_profile_preemption_end_to_end():
    low = make_pod("low", requests={"cpu": "1500m"}, node_name="n1", priority=10)
    high = make_pod("high", requests={"cpu": "1"}, priority=1000)
    s = new_scheduler(three_nodes(), [low, high])
    t1, t2 = s.run()
    assert (t1.node_name, t1.nominated_node_name, t1.victims) == (None, "n1", ["default/low"])
    assert t1.message == "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}."
    assert (t2.node_name, t2.nominated_node_name) == ("n1", None)
    assert list(t2.filter) == ["n1"]  # the nominated node is tried first, and fits
    assert s.deleted == ["default/low"]


def test_ties_are_broken_by_the_seed():
    def place(seed):
        s = new_scheduler([make_node(f"n{i}") for i in range(4)], [make_pod("p", requests={"cpu": "100m"})], seed=seed)
        [t] = s.run()
        assert len(set(t.total_score.values())) == 1
        return t.node_name

    picks = {seed: place(seed) for seed in range(12)}
    assert len(set(picks.values())) > 1
    assert all(place(seed) == node for seed, node in list(picks.items())[:4])  # reproducible


@pytest.mark.parametrize("num_nodes, want", [(200, 100), (1000, 420)])
def test_nodes_evaluated_match_num_feasible_nodes_to_find(num_nodes, want):
    ns = [make_node(f"node-{i:04d}") for i in range(num_nodes)]
    s = new_scheduler(ns, [make_pod("a", requests={"cpu": "100m"}), make_pod("b", requests={"cpu": "100m"})])
    a, b = s.run()
    assert len(a.filter) == want and len(a.score) == want and a.evaluated_nodes == want
    assert list(b.filter)[0] == f"node-{want % num_nodes:04d}"  # round robin across consecutive pods
    assert s.next_start_node_index == (2 * want) % num_nodes


# --------------------------------------------------------------------------- trace=False makes the same decisions
def random_cluster(rng: random.Random):
    taints = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    ns = []
    for i in range(rng.randint(1, 8)):
        ns.append(make_node(f"n{i}", allocatable={"cpu": str(rng.choice([1, 2, 4])), "memory": f"{rng.choice([2, 4, 8])}Gi",
                                                   "pods": str(rng.choice([2, 5, 110]))},
                            labels={"zone": rng.choice(["a", "b"])},
                            taints=taints if rng.random() < 0.2 else None))
    pods = []
    for j in range(rng.randint(1, 14)):
        kw = {}
        if rng.random() < 0.3:
            kw["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        if rng.random() < 0.2:
            kw["nodeSelector"] = {"zone": rng.choice(["a", "b"])}
        bound = f"n{rng.randrange(len(ns))}" if rng.random() < 0.3 else None
        pods.append(make_pod(f"p{j}", requests={"cpu": f"{rng.choice([100, 500, 1000, 1500])}m",
                                                "memory": f"{rng.choice([128, 512, 1024])}Mi"},
                             priority=rng.choice([0, 0, 10, 100]), node_name=bound,
                             labels={"app": rng.choice(["x", "y"])}, **kw))
    return ns, pods


@pytest.mark.parametrize("case", range(30))
def test_trace_false_makes_identical_decisions(case):
    rng = random.Random(case)
    ns, pods = random_cluster(rng)

    def outcome(trace):
        return run_decisions(new_scheduler(ns, pods, seed=case, trace=trace))[:2]

    traced, fast = outcome(True), outcome(False)
    assert traced == fast


def test_input_objects_are_not_modified():
    low = make_pod("low", requests={"cpu": "1500m"}, node_name="n1", priority=10)
    high = make_pod("high", requests={"cpu": "1"}, priority=1000)
    before = (low.to_dict(), high.to_dict())
    first = [(t.key, t.node_name, t.nominated_node_name) for t in new_scheduler(three_nodes(), [low, high]).run()]
    assert (low.to_dict(), high.to_dict()) == before
    again = [(t.key, t.node_name, t.nominated_node_name) for t in new_scheduler(three_nodes(), [low, high]).run()]
    assert first == again


@pytest.mark.parametrize("case", range(12))
def test_trace_false_batch_path_makes_identical_decisions(case, monkeypatch, random_large_cluster):
    """The batch Filter/Score path (trace=False) binds, preempts, nominates and reports as the traced path."""
    rng = random.Random(1000 + case)
    ns, pods = random_large_cluster(rng)
    used = spy_batch_path(monkeypatch)
    batched = used["filter"]

    def outcome(trace):
        return run_decisions(new_scheduler(ns, pods, seed=case, trace=trace))

    traced = outcome(True)
    assert not batched
    fast = outcome(False)
    assert traced == fast
    assert any(batched)


# --------------------------------------------------------------------------- from loaded manifests
def test_cluster_objects_from_the_sample_cluster():
    from pathlib import Path

    from kubenotes.api.manifests import load_manifests
    from kubenotes.scheduler.snapshot import ClusterObjects, cluster_objects_from_manifests

    m = load_manifests(Path(__file__).resolve().parents[2] / "data" / "cluster")
    co = cluster_objects_from_manifests(m)
    assert isinstance(co, ClusterObjects)
    assert co.namespace_labels("ml")["gpu-access"] == "true"
    assert co.namespace_labels("web")["kubernetes.io/metadata.name"] == "web"
    assert {s.metadata.name for s in co.services} == {"web", "redis", "postgres", "kube-dns", "ingress-nginx-controller"}
    assert len(co.replica_sets) == 4 and [s.metadata.name for s in co.stateful_sets] == ["postgres"]
    assert len(co.persistent_volume_claims) == 3 and len(co.persistent_volumes) == 3
    assert [s.metadata.name for s in co.storage_classes] == ["standard-rwo"]
    assert {p.metadata.name for p in co.pod_disruption_budgets} == {"web", "postgres"}
    assert {p.metadata.name for p in co.priority_classes} == {"high-priority", "ml-training", "default-priority",
                                                             "batch-low"}
    assert co.replication_controllers == []


def test_snapshot_from_manifests_counts_bound_pods():
    from pathlib import Path

    from kubenotes.api.manifests import load_manifests
    from kubenotes.scheduler.snapshot import snapshot_from_manifests

    m = load_manifests(Path(__file__).resolve().parents[2] / "data" / "cluster")
    snap = snapshot_from_manifests(m)
    assert snap.num_nodes() == 9
    assert sum(len(n.pods) for n in snap.list()) == len([p for p in m.pods if p.spec.nodeName])
    assert snap.get("worker-a-2").requested.milli_cpu == 6650
