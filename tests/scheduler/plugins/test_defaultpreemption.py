"""DefaultPreemption, ported from upstream's default_preemption_test.go.

Upstream: kubernetes/kubernetes@v1.34.0
pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go
(TestPostFilter, TestDryRunPreemption, TestSelectBestCandidate,
TestCustomSelection, TestCustomOrdering, TestPodEligibleToPreemptOthers,
TestPreempt) and pkg/scheduler/apis/config/validation tests for the args.

The unit tests drive the plugin through ``FakeHandle`` below, a minimal
framework handle running a real filter chain (a small resource-fit filter
like NodeResourcesFit, plus upstream's fake filters).
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timezone

import pytest
from lightkube.models.core_v1 import Affinity, PodAffinityTerm, PodAntiAffinity, PodCondition, PodStatus
from lightkube.models.meta_v1 import LabelSelector
from lightkube.resources.policy_v1 import PodDisruptionBudget

from kubenotes.api.schema import fill_required_defaults
from kubenotes.errors import ConfigError
from kubenotes.scheduler.fast import defaultpreemption as dp_fast
from kubenotes.scheduler.fast.defaultpreemption import VictimsMemo
from kubenotes.scheduler.fast.registry import fast_forms
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code, NominatingInfo, PostFilterPlugin, Status
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.defaultpreemption import (
    NAME,
    NO_VICTIMS_REASON,
    NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER,
    NOT_ELIGIBLE_TERMINATING_POD,
    PREEMPTION_NOT_HELPFUL_MSG,
    DefaultPreemption,
    DefaultPreemptionArgs,
    Victims,
    new,
    pick_one_node_for_preemption,
)
from kubenotes.scheduler.framework import node_info as node_info_module
from kubenotes.scheduler.plugins.defaultpreemption import default_preemption as dp_module
from kubenotes.scheduler.plugins.defaultpreemption.default_preemption import filter_pods_with_pdb_violation
from kubenotes.scheduler.plugins.defaultpreemption.preemption import (
    TRACE_STATE_KEY,
    disruptions_allowed_from_spec,
    fit_error_message,
    get_lower_priority_nominated_pods,
    get_pod_disruption_budgets,
    more_important_pod,
    pod_start_seconds,
)
from kubenotes.scheduler.snapshot import ClusterObjects, new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400"}


# ---------------------------------------------------------------------------
# builders


def pod(name, node=None, prio=None, req=None, *, labels=None, start=None, policy=None,
        nominated=None, terminating=False, condition=None, ns="default"):
    """Like upstream's st.MakePod(); ``start`` is seconds after the epoch."""
    spec = {"preemptionPolicy": policy} if policy else {}
    p = make_pod(name, ns, requests=req, labels=labels, node_name=node, priority=prio, uid=name, **spec)
    status = {}
    if start is not None:
        status["startTime"] = datetime.fromtimestamp(start, timezone.utc)
    if nominated:
        status["nominatedNodeName"] = nominated
    if condition:
        status["conditions"] = [PodCondition(type=condition[0], status=condition[1], reason=condition[2])]
    if status:
        p.status = PodStatus(**status)
    if terminating:
        p.metadata.deletionTimestamp = datetime(2024, 1, 1, tzinfo=timezone.utc)
    return p


def node(name, res=None, labels=None):
    """Like st.MakeNode().Capacity(res): 32 pods unless ``res`` says otherwise."""
    return make_node(name, allocatable={"pods": "32", **(res or {})}, labels=labels)


def pdb(name, match, *, allowed=None, min_available=None, max_unavailable=None, disrupted=(), ns="default"):
    d = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": name, "namespace": ns},
         "spec": {"selector": {"matchLabels": dict(match)}}}
    if min_available is not None:
        d["spec"]["minAvailable"] = min_available
    if max_unavailable is not None:
        d["spec"]["maxUnavailable"] = max_unavailable
    status = {}
    if allowed is not None:
        status["disruptionsAllowed"] = allowed
    if disrupted:
        status["disruptedPods"] = {n: "2024-01-01T00:00:00Z" for n in disrupted}
    if status:
        d["status"] = status  # the other status counts are zero, as the API server's decoder leaves them
    return PodDisruptionBudget.from_dict(fill_required_defaults(d, PodDisruptionBudget))


# ---------------------------------------------------------------------------
# a minimal Handle running a real filter chain


def fit_filter(state, p, ni):
    """Resource fit as NodeResourcesFit does it for pods, cpu and memory."""
    reasons = []
    if len(ni.pods) + 1 > ni.allocatable.allowed_pod_number:
        reasons.append("Too many pods")
    r = p.requests
    if r.milli_cpu > 0 and r.milli_cpu > ni.allocatable.milli_cpu - ni.requested.milli_cpu:
        reasons.append("Insufficient cpu")
    if r.memory_bytes > 0 and r.memory_bytes > ni.allocatable.memory_bytes - ni.requested.memory_bytes:
        reasons.append("Insufficient memory")
    return Status(Code.UNSCHEDULABLE, reasons) if reasons else Status()


def false_filter(state, p, ni):
    return Status(Code.UNSCHEDULABLE, ["always fail"])


class FakeFilter:
    """tf.FakeFilterPlugin: counts calls, fails nodes listed in ``codes``."""

    def __init__(self, codes=None):
        self.codes = codes or {}
        self.num_filter_called = 0

    def __call__(self, state, p, ni):
        self.num_filter_called += 1
        code = self.codes.get(ni.name, Code.SUCCESS)
        if code != Code.SUCCESS:
            return Status(code, [f"injecting failure for pod {p.name}"])
        return Status()


class FixedOffsets:
    """Stands in for handle.rng: returns the given offsets in turn."""

    def __init__(self, offsets):
        self._it = iter(offsets)

    def randrange(self, n):
        v = next(self._it)
        assert 0 <= v < n
        return v


class FakeHandle:
    """What DefaultPreemption needs from the framework, nothing more."""

    def __init__(self, nodes, pods, filters=(fit_filter,), *, pdbs=(), rng=None, nominated=None):
        self.snapshot = new_snapshot(nodes, pods)
        self.objects = ClusterObjects(pod_disruption_budgets=list(pdbs))
        self.rng = rng if rng is not None else random.Random(0)
        self.filters = list(filters)
        self.nominated = nominated or {}

    def _run_filters(self, state, p, ni):
        for f in self.filters:
            s = f(state, p, ni)
            if not s.is_success():
                return s
        return Status()

    def run_filter_plugins_with_nominated_pods(self, state, p, ni):
        noms = [q for q in self.nominated.get(ni.name, ()) if q.priority >= p.priority and q.uid != p.uid]
        if noms:
            with_noms = ni.clone()
            for q in noms:
                with_noms.add_pod(q)
            s = self._run_filters(state, p, with_noms)
            if not s.is_success():
                return s
        return self._run_filters(state, p, ni)

    def _ext(self, verb, p, ni):
        if ni.labels.get("error") == "true":
            return Status.error(f'running {verb} on PreFilter plugin "test-plugin": failed to {verb[:-3].lower()} pod: {p.name}')
        return Status()

    def run_pre_filter_extension_add_pod(self, state, pod_to_schedule, pod_to_add, ni):
        return self._ext("AddPod", pod_to_schedule, ni)

    def run_pre_filter_extension_remove_pod(self, state, pod_to_schedule, pod_to_remove, ni):
        return self._ext("RemovePod", pod_to_schedule, ni)

    def nominated_pods_for_node(self, node_name):
        return list(self.nominated.get(node_name, ()))



class _DeclaredFilter:
    """A test filter as a Filter plugin that declares what it reads (for the RequestsLedger path)."""

    def __init__(self, fn, index):
        self.filter, self._name = (lambda state, p, ni: fn(state, p, ni)), f"filter-{index}"
        if fn is fit_filter:
            self.filter_reads_requests_only = True
        else:  # FakeFilter and false_filter read the node's name or nothing
            self.filter_ignores_node_pods = True

    def name(self):
        return self._name


class _RemovePodPlugin:
    """The PreFilter plugin whose AddPod/RemovePod fail on nodes labelled error=true."""

    def name(self):
        return "test-plugin"

    def pre_filter_extensions(self):
        return self


class LedgerHandle(FakeHandle):
    """FakeHandle with the plugin lists DefaultPreemption reads to take the RequestsLedger path.

    The AddPod/RemovePod plugin is listed only when some node is labelled error=true (then the
    ledger path is not taken, as it must not be while extensions run).
    """

    def __init__(self, nodes, pods, filters=(fit_filter,), **kw):
        super().__init__(nodes, pods, filters, **kw)
        self.filter_plugins = [_DeclaredFilter(f, i) for i, f in enumerate(self.filters)]
        self.pre_filter_plugins = [_RemovePodPlugin()] if any(n.metadata.labels and n.metadata.labels.get("error")
                                                              for n in nodes) else []

    def ge_nominated_pods(self, p, node_name):
        return [q for q in self.nominated.get(node_name, ()) if q.priority >= p.priority and q.uid != p.uid]


HANDLES = [FakeHandle, LedgerHandle]


def unsched(*names):
    return {n: Status(Code.UNSCHEDULABLE) for n in names}


def result_node(result):
    return None if result is None else result.nominating_info.nominated_node_name


# ---------------------------------------------------------------------------
# TestPostFilter


POST_FILTER_CASES = [
    dict(
        name="pod with higher priority can be made schedulable",
        pod=pod("p", prio=HIGH),
        pods=[pod("p1", "node1")],
        nodes=[node("node1", ONE_POD)],
        statuses=unsched("node1"),
        want_node="node1", want_status=Status(),
    ),
    dict(
        name="pod with tied priority is still unschedulable",
        pod=pod("p"),
        pods=[pod("p1", "node1")],
        nodes=[node("node1", ONE_POD)],
        statuses=unsched("node1"),
        want_node="",
        want_status=Status(Code.UNSCHEDULABLE, ["preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."]),
    ),
    dict(
        name="preemption should respect filteredNodesStatuses",
        pod=pod("p", prio=HIGH),
        pods=[pod("p1", "node1")],
        nodes=[node("node1", ONE_POD)],
        statuses={"node1": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)},
        want_node="",
        want_status=Status(Code.UNSCHEDULABLE, ["preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."]),
    ),
    dict(
        name="preemption should respect absent NodeToStatusReader entry meaning UnschedulableAndUnresolvable",
        pod=pod("p", prio=HIGH),
        pods=[pod("p1", "node1")],
        nodes=[node("node1", ONE_POD)],
        statuses={},
        want_node="",
        want_status=Status(Code.UNSCHEDULABLE, ["preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."]),
    ),
    dict(
        name="pod can be made schedulable on one node",
        pod=pod("p", prio=MID),
        pods=[pod("p1", "node1", HIGH), pod("p2", "node2", LOW)],
        nodes=[node("node1", ONE_POD), node("node2", ONE_POD)],
        statuses=unsched("node1", "node2"),
        want_node="node2", want_status=Status(),
    ),
    dict(
        name="pod can be made schedulable on minHighestPriority node",
        pod=pod("p", prio=VERY_HIGH),
        pods=[
            pod("p1", "node1", HIGH, labels={"pdb": "non-violating"}),
            pod("p2", "node1", LOW, labels={"pdb": "violating"}),
            pod("p3", "node2", MID, labels={"pdb": "violating"}),
        ],
        # The violating PDB has no status: its budget comes from minAvailable 100% (0 allowed).
        pdbs=[pdb("violating-pdb", {"pdb": "violating"}, min_available="100%"),
              pdb("non-violating-pdb", {"pdb": "non-violating"}, min_available=0, allowed=2**31 - 1)],
        nodes=[node("node1", ONE_POD), node("node2", ONE_POD)],
        statuses=unsched("node1", "node2"),
        want_node="node2", want_status=Status(),
    ),
    dict(
        name="no candidate nodes found, no enough resource after removing low priority pods",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", "node1"), pod("p2", "node2")],
        nodes=[node("node1", NODE_RES), node("node2", NODE_RES)],
        statuses=unsched("node1", "node2"),
        want_node="",
        want_status=Status(Code.UNSCHEDULABLE, ["preemption: 0/2 nodes are available: 2 Insufficient cpu."]),
    ),
    dict(
        name="no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", "node1", HIGH), pod("p2", "node2"), pod("p3", "node3", HIGH)],
        nodes=[node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)],
        statuses=unsched("node1", "node2", "node3"),
        want_node="",
        want_status=Status(Code.UNSCHEDULABLE, [
            "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod."]),
    ),
    dict(
        name="no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", "node1"), pod("p2", "node2")],
        nodes=[node(f"node{i}", NODE_RES) for i in range(1, 5)],
        statuses={**unsched("node1", "node2"), "node4": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)},
        want_node="",
        want_status=Status(Code.UNSCHEDULABLE, [
            "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling."]),
    ),
    dict(
        name="only one node but failed with TestPlugin",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", "node1")],
        nodes=[node("node1", LARGE, labels={"error": "true"})],
        statuses=unsched("node1"),
        want_node=None,
        want_status=Status(Code.ERROR, ['preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p']),
    ),
    dict(
        name="one failed with TestPlugin and the other pass",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", "node1"), pod("p2", "node2", req=MEDIUM)],
        nodes=[node("node1", LARGE, labels={"error": "true"}), node("node2", LARGE)],
        statuses=unsched("node1", "node2"),
        want_node="node2", want_status=Status(),
    ),
]


@pytest.mark.parametrize("handle", HANDLES)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("tc", POST_FILTER_CASES, ids=[c["name"] for c in POST_FILTER_CASES])
def test_post_filter(tc, seed, handle):
    h = handle(tc["nodes"], tc["pods"], pdbs=tc.get("pdbs", ()), rng=random.Random(seed))
    pl = new(None, h)
    result, status = pl.post_filter(CycleState(), PodInfo(tc["pod"]), tc["statuses"])
    assert (status.code, status.reasons) == (tc["want_status"].code, tc["want_status"].reasons)
    assert result_node(result) == tc["want_node"]
    if result is not None:
        assert result.nominating_info.mode == "ModeOverride"


def test_post_filter_success_returns_victims_most_important_first():
    h = FakeHandle([node("node1", VERY_LARGE)],
                   [pod("low", "node1", LOW, SMALL, start=1), pod("mid", "node1", MID, LARGE, start=2),
                    pod("older-low", "node1", LOW, SMALL, start=0)])
    result, status = new(None, h).post_filter(CycleState(), PodInfo(pod("p", prio=HIGH, req=VERY_LARGE)), unsched("node1"))
    assert status.is_success() and status.reasons == []
    assert result.nominating_info == NominatingInfo("node1", "ModeOverride")
    assert [v.name for v in result.victims] == ["mid", "older-low", "low"]


def test_post_filter_writes_a_trace_to_cycle_state():
    h = FakeHandle([node("node1", ONE_POD), node("node2", ONE_POD)], [pod("p1", "node1", HIGH), pod("p2", "node2", LOW)],
                   rng=FixedOffsets([0]))
    pl = new(None, h)
    state = CycleState()
    pl.post_filter(state, PodInfo(pod("p", prio=MID)), unsched("node1", "node2"))
    trace = state.read(TRACE_STATE_KEY)
    assert trace is pl.evaluator.last_trace
    assert trace.potential_nodes == ["node1", "node2"] and trace.evaluated_nodes == ["node1", "node2"]
    assert trace.selected == "node2"
    assert trace.node_statuses["node1"].reasons == [NO_VICTIMS_REASON]
    assert [(r["node"], r["victims"], r["selected"]) for r in trace.rows()] == [
        ("node1", [], False), ("node2", ["default/p2"], True)]


def test_post_filter_plugin_protocol_and_name():
    pl = new(None, FakeHandle([], []))
    assert isinstance(pl, PostFilterPlugin)
    assert pl.name() == NAME == "DefaultPreemption"


def test_no_nodes_at_all_is_an_error():
    result, status = new(None, FakeHandle([], [])).post_filter(CycleState(), PodInfo(pod("p", prio=HIGH)), {})
    assert result is None
    assert (status.code, status.reasons) == (Code.ERROR, ["preemption: no nodes available"])


def test_absent_nodes_status_attribute_is_honoured():
    class NodeToStatus(dict):
        absent_nodes_status = Status(Code.UNSCHEDULABLE, ["PreFilter said no"])

    h = FakeHandle([node("node1", ONE_POD)], [pod("p1", "node1")])
    result, status = new(None, h).post_filter(CycleState(), PodInfo(pod("p", prio=HIGH)), NodeToStatus())
    assert status.is_success() and result_node(result) == "node1"


# ---------------------------------------------------------------------------
# TestDryRunPreemption


def dry_run(nodes, init_pods, test_pods, filters, *, pdbs=(), args=None, offsets=None, handle=FakeHandle):
    """Run GetOffsetAndNumCandidates + DryRunPreemption once per test pod, as upstream's test does."""
    fake = FakeFilter(filters.get("codes", {}))
    chain = [fake] + list(filters.get("chain", ()))
    h = handle(nodes, init_pods, chain, rng=FixedOffsets(offsets) if offsets else random.Random(0))
    pl = new(args, h)
    node_infos = sorted(h.snapshot.list(), key=lambda n: n.name)
    out, calls, prev = [], [], 0
    for tp in test_pods:
        offset, num = pl.get_offset_and_num_candidates(len(node_infos))
        cands, _, _ = pl.evaluator.dry_run_preemption(CycleState(), PodInfo(tp), node_infos, list(pdbs), offset, num)
        out.append(sorted((c.name, sorted(p.name for p in c.victims.pods), c.victims.num_pdb_violations) for c in cands))
        calls.append(fake.num_filter_called - prev)
        prev = fake.num_filter_called
    return out, calls


def nodes_big(*names):
    return [node(n, VERY_LARGE) for n in names]


DRY_RUN_CASES = [
    dict(
        name="a pod that does not fit on any node",
        chain=[false_filter], nodes=("node1", "node2"),
        test_pods=[pod("p", prio=HIGH)],
        init=[pod("p1", "node1", MID), pod("p2", "node2", MID)],
        expected=[[]], calls=[2],
    ),
    dict(
        name="a pod that fits with no preemption",
        chain=[], nodes=("node1", "node2"), codes={"node1": Code.UNSCHEDULABLE, "node2": Code.UNSCHEDULABLE},
        test_pods=[pod("p", prio=HIGH)],
        init=[pod("p1", "node1", MID), pod("p2", "node2", MID)],
        expected=[[]], calls=[2],
    ),
    dict(
        name="a pod that fits on both nodes when lower priority pods are preempted",
        nodes=("node1", "node2"),
        test_pods=[pod("p", prio=HIGH, req=LARGE)],
        init=[pod("p1", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)],
        expected=[[("node1", ["p1"], 0), ("node2", ["p2"], 0)]], calls=[4],
    ),
    dict(
        name="a pod that would fit on the nodes, but other pods running are higher priority, no preemption would happen",
        nodes=("node1", "node2"),
        test_pods=[pod("p", prio=LOW, req=LARGE)],
        init=[pod("p1", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)],
        expected=[[]], calls=[0],
    ),
    dict(
        name="medium priority pod is preempted, but lower priority one stays as it is small",
        nodes=("node1", "node2"),
        test_pods=[pod("p", prio=HIGH, req=LARGE)],
        init=[pod("p1.1", "node1", LOW, SMALL), pod("p1.2", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)],
        expected=[[("node1", ["p1.2"], 0), ("node2", ["p2"], 0)]], calls=[5],
    ),
    dict(
        name="mixed priority pods are preempted",
        nodes=("node1", "node2"),
        test_pods=[pod("p", prio=HIGH, req=LARGE)],
        init=[pod("p1.1", "node1", MID, SMALL), pod("p1.2", "node1", LOW, SMALL), pod("p1.3", "node1", MID, MEDIUM),
              pod("p1.4", "node1", HIGH, SMALL), pod("p2", "node2", HIGH, LARGE)],
        expected=[[("node1", ["p1.2", "p1.3"], 0)]], calls=[4],
    ),
    dict(
        name="mixed priority pods are preempted, pick later StartTime one when priorities are equal",
        nodes=("node1", "node2"),
        test_pods=[pod("p", prio=HIGH, req=LARGE)],
        init=[pod("p1.1", "node1", LOW, SMALL, start=5), pod("p1.2", "node1", LOW, SMALL, start=4),
              pod("p1.3", "node1", MID, MEDIUM, start=3), pod("p1.4", "node1", HIGH, SMALL, start=2),
              pod("p2", "node2", HIGH, LARGE, start=1)],
        expected=[[("node1", ["p1.1", "p1.3"], 0)]], calls=[4],
    ),
    dict(
        name="get Unschedulable in the preemption phase when the filter plugins filtering the nodes",
        nodes=("node1", "node2"), codes={"node1": Code.UNSCHEDULABLE, "node2": Code.UNSCHEDULABLE},
        test_pods=[pod("p", prio=HIGH, req=LARGE)],
        init=[pod("p1", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)],
        expected=[[]], calls=[2],
    ),
    dict(
        name="preemption with violation of same pdb",
        nodes=("node1",),
        test_pods=[pod("p", prio=HIGH, req=VERY_LARGE)],
        init=[pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}), pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"})],
        pdbs=[pdb("b", {"app": "foo"}, allowed=1)],
        expected=[[("node1", ["p1.1", "p1.2"], 1)]], calls=[3],
    ),
    dict(
        name="preemption with violation of the pdb with pod whose eviction was processed, the victim doesn't belong to DisruptedPods",
        nodes=("node1",),
        test_pods=[pod("p", prio=HIGH, req=VERY_LARGE)],
        init=[pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}), pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"})],
        pdbs=[pdb("b", {"app": "foo"}, allowed=1, disrupted=["p2"])],
        expected=[[("node1", ["p1.1", "p1.2"], 1)]], calls=[3],
    ),
    dict(
        name="preemption with violation of the pdb with pod whose eviction was processed, the victim belongs to DisruptedPods",
        nodes=("node1",),
        test_pods=[pod("p", prio=HIGH, req=VERY_LARGE)],
        init=[pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}), pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"})],
        pdbs=[pdb("b", {"app": "foo"}, allowed=1, disrupted=["p1.2"])],
        expected=[[("node1", ["p1.1", "p1.2"], 0)]], calls=[3],
    ),
    dict(
        name="preemption with violation of the pdb with pod whose eviction was processed, the victim which belongs to DisruptedPods is treated as 'nonViolating'",
        nodes=("node1",),
        test_pods=[pod("p", prio=HIGH, req=VERY_LARGE)],
        init=[pod(f"p1.{i}", "node1", MID, MEDIUM, labels={"app": "foo"}) for i in (1, 2, 3)],
        pdbs=[pdb("b", {"app": "foo"}, allowed=1, disrupted=["p1.3"])],
        expected=[[("node1", ["p1.1", "p1.2", "p1.3"], 1)]], calls=[4],
    ),
    dict(
        name="all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
        nodes=tuple(f"node{i}" for i in range(1, 6)), offsets=[4],
        test_pods=[pod("p", prio=HIGH, req=LARGE)],
        init=[pod(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6)],
        # offset=4 => node5 (yes), node1 (yes)
        expected=[[("node1", ["p1"], 0), ("node5", ["p5"], 0)]], calls=[4],
    ),
    dict(
        name="some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
        nodes=tuple(f"node{i}" for i in range(1, 6)), offsets=[4],
        test_pods=[pod("p", prio=HIGH, req=LARGE)],
        init=[pod("p1", "node1", MID, LARGE), pod("p2", "node2", VERY_HIGH, LARGE), pod("p3", "node3", MID, LARGE),
              pod("p4", "node4", MID, LARGE), pod("p5", "node5", VERY_HIGH, LARGE)],
        # offset=4 => node5 (no), node1 (yes), node2 (no), node3 (yes)
        expected=[[("node1", ["p1"], 0), ("node3", ["p3"], 0)]], calls=[4],
    ),
    dict(
        name="preemption offset across multiple scheduling cycles and wrap around",
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
        nodes=tuple(f"node{i}" for i in range(1, 6)), offsets=[4, 1, 3],
        test_pods=[pod(f"tp{i}", prio=HIGH, req=LARGE) for i in (1, 2, 3)],
        init=[pod(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6)],
        expected=[
            [("node1", ["p1"], 0), ("node5", ["p5"], 0)],
            [("node2", ["p2"], 0), ("node3", ["p3"], 0)],
            [("node4", ["p4"], 0), ("node5", ["p5"], 0)],
        ],
        calls=[4, 4, 4],
    ),
    dict(
        name="preemption looks past numCandidates until a non-PDB violating node is found",
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
        nodes=tuple(f"node{i}" for i in range(1, 6)), offsets=[4],
        test_pods=[pod("p", prio=HIGH, req=LARGE)],
        init=[pod("p1", "node1", MID, LARGE, labels={"app": "foo"}), pod("p2", "node2", MID, LARGE, labels={"app": "foo"}),
              pod("p3", "node3", MID, LARGE), pod("p4", "node4", MID, LARGE),
              pod("p5", "node5", MID, LARGE, labels={"app": "foo"})],
        pdbs=[pdb("b", {"app": "foo"}, allowed=0)],
        # offset=4 => node5 (yes, pdb), node1 (yes, pdb), node2 (dropped: violating list full), node3 (yes)
        expected=[[("node1", ["p1"], 1), ("node3", ["p3"], 0), ("node5", ["p5"], 1)]], calls=[8],
    ),
]


@pytest.mark.parametrize("tc", DRY_RUN_CASES, ids=[c["name"] for c in DRY_RUN_CASES])
def test_dry_run_preemption(tc):
    got, calls = dry_run(
        nodes_big(*tc["nodes"]), tc["init"], tc["test_pods"],
        {"codes": tc.get("codes", {}), "chain": tc.get("chain", [fit_filter])},
        pdbs=tc.get("pdbs", ()), args=tc.get("args"), offsets=tc.get("offsets"),
    )
    assert got == tc["expected"]
    assert calls == tc["calls"]


@pytest.mark.parametrize("tc", DRY_RUN_CASES, ids=[c["name"] for c in DRY_RUN_CASES])
def test_dry_run_preemption_on_resource_totals(tc, monkeypatch):
    """Upstream's dry-run cases give the same candidates through the RequestsLedger path. The node-object
    filter (FakeFilter) is asked once per node instead of once per reprieve, so its call count is not compared."""
    ledgers = []
    real_init = node_info_module.RequestsLedger.__init__

    def spy(self, *a, **kw):
        ledgers.append(1)
        real_init(self, *a, **kw)

    monkeypatch.setattr(node_info_module.RequestsLedger, "__init__", spy)
    got, _calls = dry_run(
        nodes_big(*tc["nodes"]), tc["init"], tc["test_pods"],
        {"codes": tc.get("codes", {}), "chain": tc.get("chain", [fit_filter])},
        pdbs=tc.get("pdbs", ()), args=tc.get("args"), offsets=tc.get("offsets"), handle=LedgerHandle,
    )
    assert got == tc["expected"]
    assert ledgers or all(not want for want in tc["expected"])  # taken wherever some pod has lower priority


def test_dry_run_statuses_and_candidate_order():
    """Non-violating candidates come first; failures are reported per node."""
    nodes = nodes_big("node1", "node2", "node3")
    init = [pod("a", "node1", MID, LARGE, labels={"app": "a"}), pod("b", "node2", MID, LARGE), pod("c", "node3", HIGH, LARGE)]
    h = FakeHandle(nodes, init, rng=FixedOffsets([0]))
    pl = new(None, h)
    cands, statuses, errs = pl.evaluator.dry_run_preemption(
        CycleState(), PodInfo(pod("p", prio=HIGH, req=LARGE)), h.snapshot.list(), [pdb("x", {"app": "a"}, allowed=0)], 0, 3)
    assert [(c.name, c.victims.num_pdb_violations) for c in cands] == [("node2", 0), ("node1", 1)]
    assert {n: (s.code, s.reasons) for n, s in statuses.items()} == {
        "node3": (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [NO_VICTIMS_REASON])}
    assert errs == []


def test_dry_run_reports_node_without_victims_as_error():
    """A filter that passes after removal and after every reprieve yields no victims: an error for that node."""
    h = FakeHandle(nodes_big("node1"), [pod("p1", "node1", MID)], [FakeFilter()])
    pl = new(None, h)
    cands, statuses, errs = pl.evaluator.dry_run_preemption(CycleState(), PodInfo(pod("p", prio=HIGH)), h.snapshot.list(), [], 0, 1)
    assert cands == []
    assert statuses["node1"].code == Code.ERROR
    assert errs == ['expected at least one victim pod on node "node1"']


# ---------------------------------------------------------------------------
# TestSelectBestCandidate


SELECT_CASES = [
    ("a pod that fits on both nodes when lower priority pods are preempted", ["node1", "node2"],
     pod("p", prio=HIGH, req=LARGE),
     [pod("p1", "node1", MID, LARGE, start=0), pod("p2", "node2", MID, LARGE, start=0)], {"node1", "node2"}),
    ("node with min highest priority pod is picked", ["node1", "node2", "node3"],
     pod("p", prio=HIGH, req=VERY_LARGE),
     [pod("p1.1", "node1", MID, MEDIUM, start=0), pod("p1.2", "node1", MID, LARGE, start=0),
      pod("p2.1", "node2", MID, MEDIUM, start=0), pod("p2.2", "node2", LOW, MEDIUM, start=0),
      pod("p3.1", "node3", LOW, MEDIUM, start=0), pod("p3.2", "node3", LOW, MEDIUM, start=0)], {"node3"}),
    ("when highest priorities are the same, minimum sum of priorities is picked", ["node1", "node2", "node3"],
     pod("p", prio=HIGH, req=VERY_LARGE),
     [pod("p1.1", "node1", MID, MEDIUM, start=0), pod("p1.2", "node1", MID, LARGE, start=0),
      pod("p2.1", "node2", MID, LARGE, start=0), pod("p2.2", "node2", LOW, MEDIUM, start=0),
      pod("p3.1", "node3", MID, MEDIUM, start=0), pod("p3.2", "node3", MID, MEDIUM, start=0)], {"node2"}),
    ("when highest priority and sum are the same, minimum number of pods is picked", ["node1", "node2", "node3"],
     pod("p", prio=HIGH, req=VERY_LARGE),
     [pod("p1.1", "node1", MID, SMALL, start=0), pod("p1.2", "node1", NEG, SMALL, start=0),
      pod("p1.3", "node1", MID, SMALL, start=0), pod("p1.4", "node1", NEG, SMALL, start=0),
      pod("p2.1", "node2", MID, LARGE, start=0), pod("p2.2", "node2", NEG, MEDIUM, start=0),
      pod("p3.1", "node3", MID, MEDIUM, start=0), pod("p3.2", "node3", NEG, SMALL, start=0),
      pod("p3.3", "node3", LOW, SMALL, start=0)], {"node2"}),
    ("sum of adjusted priorities is considered", ["node1", "node2", "node3"],
     pod("p", prio=HIGH, req=VERY_LARGE),
     [pod("p1.1", "node1", MID, SMALL, start=0), pod("p1.2", "node1", NEG, SMALL, start=0),
      pod("p1.3", "node1", NEG, SMALL, start=0),
      pod("p2.1", "node2", MID, LARGE, start=0), pod("p2.2", "node2", NEG, MEDIUM, start=0),
      pod("p3.1", "node3", MID, MEDIUM, start=0), pod("p3.2", "node3", NEG, SMALL, start=0),
      pod("p3.3", "node3", LOW, SMALL, start=0)], {"node2"}),
    ("non-overlapping lowest high priority, sum priorities, and number of pods", ["node1", "node2", "node3", "node4"],
     pod("p", prio=VERY_HIGH, req=VERY_LARGE),
     [pod("p1.1", "node1", MID, SMALL, start=0), pod("p1.2", "node1", LOW, SMALL, start=0),
      pod("p1.3", "node1", LOW, SMALL, start=0),
      pod("p2.1", "node2", HIGH, LARGE, start=0),
      pod("p3.1", "node3", MID, MEDIUM, start=0), pod("p3.2", "node3", LOW, SMALL, start=0),
      pod("p3.3", "node3", LOW, SMALL, start=0), pod("p3.4", "node3", LOW, MEDIUM, start=0),
      pod("p4.1", "node4", MID, MEDIUM, start=0), pod("p4.2", "node4", MID, SMALL, start=0),
      pod("p4.3", "node4", MID, SMALL, start=0), pod("p4.4", "node4", NEG, SMALL, start=0)], {"node1"}),
    ("same priority, same number of victims, different start time for each node's pod", ["node1", "node2", "node3"],
     pod("p", prio=HIGH, req=VERY_LARGE),
     [pod("p1.1", "node1", MID, MEDIUM, start=2), pod("p1.2", "node1", MID, MEDIUM, start=2),
      pod("p2.1", "node2", MID, MEDIUM, start=3), pod("p2.2", "node2", MID, MEDIUM, start=3),
      pod("p3.1", "node3", MID, MEDIUM, start=1), pod("p3.2", "node3", MID, MEDIUM, start=1)], {"node2"}),
    ("same priority, same number of victims, different start time for all pods", ["node1", "node2", "node3"],
     pod("p", prio=HIGH, req=VERY_LARGE),
     [pod("p1.1", "node1", MID, MEDIUM, start=4), pod("p1.2", "node1", MID, MEDIUM, start=2),
      pod("p2.1", "node2", MID, MEDIUM, start=5), pod("p2.2", "node2", MID, MEDIUM, start=1),
      pod("p3.1", "node3", MID, MEDIUM, start=3), pod("p3.2", "node3", MID, MEDIUM, start=6)], {"node3"}),
    ("different priority, same number of victims, different start time for all pods", ["node1", "node2", "node3"],
     pod("p", prio=HIGH, req=VERY_LARGE),
     [pod("p1.1", "node1", LOW, MEDIUM, start=4), pod("p1.2", "node1", MID, MEDIUM, start=2),
      pod("p2.1", "node2", MID, MEDIUM, start=6), pod("p2.2", "node2", LOW, MEDIUM, start=1),
      pod("p3.1", "node3", LOW, MEDIUM, start=3), pod("p3.2", "node3", MID, MEDIUM, start=5)], {"node2"}),
]


@pytest.mark.parametrize("offset", [0, 1, 2])
@pytest.mark.parametrize("name,nodes,preemptor,pods,expected", SELECT_CASES, ids=[c[0] for c in SELECT_CASES])
def test_select_best_candidate(name, nodes, preemptor, pods, expected, offset):
    h = FakeHandle(nodes_big(*nodes), pods, rng=FixedOffsets([offset % len(nodes)]))
    pl = new(None, h)
    infos = h.snapshot.list()
    off, num = pl.get_offset_and_num_candidates(len(infos))
    cands, _, _ = pl.evaluator.dry_run_preemption(CycleState(), PodInfo(preemptor), infos, [], off, num)
    best = pl.evaluator.select_candidate(cands)
    assert best is not None and best.name in expected


# ---------------------------------------------------------------------------
# pickOneNodeForPreemption directly


def _victims(*prios, violations=0, starts=None):
    starts = starts or [None] * len(prios)
    return Victims([PodInfo(pod(f"v{i}", prio=p, start=s)) for i, (p, s) in enumerate(zip(prios, starts))], violations)


def test_pick_one_node_prefers_fewest_pdb_violations_first():
    assert pick_one_node_for_preemption({
        "a": _victims(LOW, violations=1),
        "b": _victims(HIGH, HIGH, HIGH, violations=0),
    }) == "b"


def test_pick_one_node_sum_priorities_shifted_for_negative_priorities():
    # Without the 2**31 shift, three NEG pods would sum lower than one NEG pod.
    assert pick_one_node_for_preemption({"a": _victims(NEG, NEG, NEG), "b": _victims(NEG)}) == "b"


def test_pick_one_node_latest_start_and_unstarted_pods():
    assert pick_one_node_for_preemption({"a": _victims(MID, starts=[10]), "b": _victims(MID, starts=[20])}) == "b"
    # A victim that never started counts as starting "now": the latest of all.
    assert pick_one_node_for_preemption({"a": _victims(MID, starts=[10]), "b": _victims(MID)}) == "b"


def test_pick_one_node_ties_keep_first_and_custom_score_funcs():
    m = {"a": _victims(MID, starts=[1]), "b": _victims(MID, starts=[1])}
    assert pick_one_node_for_preemption(m) == "a"
    assert pick_one_node_for_preemption(m, [lambda n: 1 if n == "b" else 0]) == "b"
    assert pick_one_node_for_preemption({}) == ""


@pytest.mark.parametrize("seed", range(20))
def test_pick_one_node_default_order_equals_the_five_score_functions_run_stage_by_stage(seed):
    """The default path (a comprehension per stage) picks what the five default score functions pick when given
    as custom ones (a call per node), on maps where ties reach every stage."""
    from kubenotes.scheduler.plugins.defaultpreemption.preemption import earliest_pod_start_seconds

    rng = random.Random(8800 + seed)
    m = {f"n{k}": _victims(*[rng.choice([NEG, LOW, MID]) for _ in range(rng.randint(1, 3))],
                           violations=rng.choice([0, 0, 1]),
                           starts=[rng.choice([None, 5, 9]) for _ in range(3)])
         for k in range(rng.randint(1, 40))}
    for v in m.values():
        v.pods.sort(key=lambda p: -p.priority)

    def latest(n):
        t = earliest_pod_start_seconds(m[n])
        return -math.inf if t is None else t

    funcs = [lambda n: -m[n].num_pdb_violations, lambda n: -m[n].pods[0].priority,
             lambda n: -sum(p.priority + 2**31 for p in m[n].pods), lambda n: -len(m[n].pods), latest]
    assert pick_one_node_for_preemption(m) == pick_one_node_for_preemption(m, funcs)


# ---------------------------------------------------------------------------
# TestCustomSelection / TestCustomOrdering


def label_is(key, val):
    return lambda ni, victim, preemptor: victim.labels.get(key) == val


def node_is(name):
    return lambda ni, victim, preemptor: ni.name == name


def preemptor_at_least(min_prio):
    return lambda ni, victim, preemptor: preemptor.priority >= min_prio


def victim_at_most(max_prio):
    return lambda ni, victim, preemptor: victim.priority <= max_prio


LABEL_PODS = [
    pod("v1", "node1", MID, LARGE, labels={"preemptible": "no"}, start=0),
    pod("v2", "node2", MID, LARGE, labels={"preemptible": "yes"}, start=0),
    pod("v3", "node3", LOW, LARGE, labels={"preemptible": "yes"}, start=0),
    pod("v4", "node4", LOW, LARGE, start=0),
]
NODE1_PODS = lambda v1_req: [  # noqa: E731
    pod("v1", "node1", HIGH, v1_req, start=0), pod("v2", "node1", MID, SMALL, start=0),
    pod("v3", "node1", LOW, SMALL, start=0), pod("v4", "node2", MID, LARGE, start=0), pod("v5", "node3", LOW, LARGE, start=0)]
THREE_PODS = [pod("v1", "node1", HIGH, LARGE, start=0), pod("v2", "node2", MID, LARGE, start=0), pod("v3", "node3", LOW, LARGE, start=0)]
N4 = ["node1", "node2", "node3", "node4"]
N3 = ["node1", "node2", "node3"]

CUSTOM_SELECTION_CASES = [
    ("filter for matching pod label: high priority", label_is("preemptible", "yes"), N4, pod("p1", prio=HIGH, req=LARGE), LABEL_PODS,
     {"node2": ["v2"], "node3": ["v3"]}),
    ("filter for matching pod label: mid priority", label_is("preemptible", "yes"), N4, pod("p2", prio=MID, req=LARGE), LABEL_PODS,
     {"node3": ["v3"]}),
    ("filter for matching pod label: low priority", label_is("preemptible", "yes"), N4, pod("p3", prio=LOW, req=LARGE), LABEL_PODS, {}),
    ("filter for matching victim node: high priority", node_is("node1"), N3, pod("p3", prio=HIGH, req=LARGE), NODE1_PODS(MEDIUM),
     {"node1": ["v2", "v3"]}),
    ("filter for matching victim node: mid priority", node_is("node1"), N3, pod("p3", prio=MID, req=LARGE), NODE1_PODS(SMALL),
     {"node1": ["v3"]}),
    ("filter for matching victim node: low priority", node_is("node1"), N3, pod("p3", prio=LOW, req=LARGE), NODE1_PODS(SMALL), {}),
    ("only pods at or above specified priority can preempted: high priority", preemptor_at_least(HIGH), N3,
     pod("p1", prio=HIGH, req=LARGE), THREE_PODS, {"node2": ["v2"], "node3": ["v3"]}),
    ("only pods at or above specified priority can preempted: mid priority", preemptor_at_least(HIGH), N3,
     pod("p2", prio=MID, req=LARGE), THREE_PODS, {}),
    ("only pods at or below specified priority can be preempted: high priority", victim_at_most(MID), N3,
     pod("p1", prio=HIGH, req=LARGE), THREE_PODS, {"node2": ["v2"], "node3": ["v3"]}),
]


@pytest.mark.parametrize("name,eligible,nodes,preemptor,pods,expected", CUSTOM_SELECTION_CASES, ids=[c[0] for c in CUSTOM_SELECTION_CASES])
def test_custom_selection(name, eligible, nodes, preemptor, pods, expected):
    h = FakeHandle(nodes_big(*nodes), pods, rng=FixedOffsets([0]))
    pl = new(None, h)
    pl.is_eligible_pod = eligible
    infos = h.snapshot.list()
    off, num = pl.get_offset_and_num_candidates(len(infos))
    cands, _, _ = pl.evaluator.dry_run_preemption(CycleState(), PodInfo(preemptor), infos, [], off, num)
    assert len(cands) == len(expected)
    while cands:
        sel = pl.evaluator.select_candidate(cands)
        assert [p.name for p in sel.victims.pods] == expected[sel.name]
        cands = [c for c in cands if c.name != sel.name]


@pytest.mark.parametrize("name,order,pods,expected", [
    ("select newest pods", lambda a, b: (a.pod.status.startTime < b.pod.status.startTime),
     [pod("v1", "node1", LOW, MEDIUM, start=2), pod("v2", "node1", LOW, MEDIUM, start=0), pod("v3", "node1", MID, MEDIUM, start=1)],
     ["v3", "v1"]),
    ("select alphabetically-last pods", lambda a, b: a.name < b.name,
     [pod("foo", "node1", LOW, MEDIUM, start=0), pod("bar", "node1", LOW, MEDIUM, start=0), pod("baz", "node1", MID, MEDIUM, start=0)],
     ["baz", "foo"]),
])
def test_custom_ordering(name, order, pods, expected):
    h = FakeHandle(nodes_big("node1"), pods)
    pl = new(None, h)
    pl.more_important_pod = order
    infos = h.snapshot.list()
    off, num = pl.get_offset_and_num_candidates(len(infos))
    cands, _, _ = pl.evaluator.dry_run_preemption(CycleState(), PodInfo(pod("p2", prio=HIGH, req=LARGE)), infos, [], off, num)
    assert len(cands) == 1
    assert [p.name for p in cands[0].victims.pods] == expected


# ---------------------------------------------------------------------------
# TestPodEligibleToPreemptOthers


PREEMPTED = ("DisruptionTarget", "True", "PreemptionByScheduler")

ELIGIBLE_CASES = [
    ("Pod with nominated node", pod("p_with_nominated_node", prio=HIGH, nominated="node1"),
     [pod("p1", "node1", LOW, terminating=True)], ["node1"],
     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["node(s) had untolerated taint {foo: bar}"]), True, ""),
    ("Pod without nominated node", pod("p_without_nominated_node", prio=HIGH), [], [], None, True, ""),
    ("Pod with 'PreemptNever' preemption policy", pod("p_with_preempt_never_policy", prio=HIGH, policy="Never"), [], [], None,
     False, NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER),
    ("preemption victim pod terminating, as indicated by the dedicated DisruptionTarget condition",
     pod("p_with_nominated_node", prio=HIGH, nominated="node1"),
     [pod("p1", "node1", LOW, terminating=True, condition=PREEMPTED)], ["node1"], None, False, NOT_ELIGIBLE_TERMINATING_POD),
    ("non-victim Pods terminating", pod("p_with_nominated_node", prio=HIGH, nominated="node1"),
     [pod("p1", "node1", LOW, terminating=True)], ["node1"], None, True, ""),
    ("terminating victim with a higher priority does not block", pod("p", prio=MID, nominated="node1"),
     [pod("p1", "node1", HIGH, terminating=True, condition=PREEMPTED)], ["node1"], None, True, ""),
]


@pytest.mark.parametrize("name,p,pods,nodes,nominated_status,expected,reason", ELIGIBLE_CASES, ids=[c[0] for c in ELIGIBLE_CASES])
def test_pod_eligible_to_preempt_others(name, p, pods, nodes, nominated_status, expected, reason):
    pl = new(None, FakeHandle([node(n) for n in nodes], pods))
    assert pl.pod_eligible_to_preempt_others(PodInfo(p), nominated_status) == (expected, reason)


def test_preemption_policy_never_in_post_filter():
    h = FakeHandle([node("node1", ONE_POD)], [pod("p1", "node1", LOW)])
    result, status = new(None, h).post_filter(CycleState(), PodInfo(pod("p", prio=HIGH, policy="Never")), unsched("node1"))
    assert result is None
    assert (status.code, status.reasons) == (Code.UNSCHEDULABLE, ["preemption: not eligible due to preemptionPolicy=Never."])


# ---------------------------------------------------------------------------
# TestPreempt (with the follow-up cycle while victims terminate) and nominated pods


PREEMPT_PODS = [pod("p1.1", "node1", LOW, SMALL), pod("p1.2", "node1", LOW, SMALL),
                pod("p2.1", "node2", HIGH, LARGE), pod("p3.1", "node3", MID, MEDIUM)]


@pytest.mark.parametrize("name,policy,want_node,want_victims", [
    ("basic preemption logic", "PreemptLowerPriority", "node1", {"p1.1", "p1.2"}),
    ("no preempting in pod", "Never", None, set()),
    ("PreemptionPolicy is nil", None, "node1", {"p1.1", "p1.2"}),
])
def test_preempt(name, policy, want_node, want_victims):
    h = FakeHandle(nodes_big("node1", "node2", "node3"), PREEMPT_PODS)
    pl = new(None, h)
    preemptor = pod("p", prio=HIGH, req=VERY_LARGE, policy=policy)
    result, status = pl.evaluator.preempt(CycleState(), PodInfo(preemptor), unsched("node1", "node2", "node3"))
    assert status.is_success() or status.is_rejected()
    assert result_node(result) == want_node
    assert {v.name for v in (result.victims if result else [])} == want_victims
    if result is None:
        return

    # The scheduler deletes the victims (they turn terminating with the DisruptionTarget condition)
    # and nominates the preemptor; the next attempt must not preempt again.
    for v in result.victims:
        v.pod.metadata.deletionTimestamp = datetime(2024, 1, 1, tzinfo=timezone.utc)
        v.pod.status = PodStatus(conditions=[PodCondition(type=PREEMPTED[0], status=PREEMPTED[1], reason=PREEMPTED[2])])
    preemptor.status = PodStatus(nominatedNodeName=result.nominating_info.nominated_node_name)
    again, status = pl.post_filter(CycleState(), PodInfo(preemptor), unsched("node1", "node2", "node3"))
    assert again is None
    assert status.reasons == ["preemption: not eligible due to a terminating pod on the nominated node."]


def test_nominated_pods_with_higher_priority_are_respected():
    """A higher-priority pod nominated to node1 keeps its room: preemption goes to node2."""
    nominated = PodInfo(pod("nom", prio=VERY_HIGH, req=LARGE, nominated="node1"))
    h = FakeHandle(nodes_big("node1", "node2"), [pod("a", "node1", LOW, SMALL, start=0), pod("b", "node2", MID, LARGE, start=0)],
                   nominated={"node1": [nominated]})
    result, status = new(None, h).post_filter(CycleState(), PodInfo(pod("p", prio=HIGH, req=LARGE)), unsched("node1", "node2"))
    assert status.is_success()
    assert result_node(result) == "node2"
    assert [v.name for v in result.victims] == ["b"]


def test_lower_priority_nominated_pods():
    low, high = PodInfo(pod("low", prio=LOW)), PodInfo(pod("high", prio=VERY_HIGH))
    h = FakeHandle(nodes_big("node1"), [], nominated={"node1": [low, high]})
    assert get_lower_priority_nominated_pods(h, PodInfo(pod("p", prio=HIGH)), "node1") == [low]
    assert get_lower_priority_nominated_pods(object(), PodInfo(pod("p", prio=HIGH)), "node1") == []


# ---------------------------------------------------------------------------
# PDB helpers


def test_filter_pods_with_pdb_violation_respects_namespace_and_empty_selectors():
    ps = [PodInfo(pod("a", labels={"app": "x"})), PodInfo(pod("b", labels={"app": "x"}, ns="other")), PodInfo(pod("c"))]
    budgets = [pdb("x", {"app": "x"}, allowed=0)]
    violating, ok = filter_pods_with_pdb_violation(ps, budgets)
    assert [p.name for p in violating] == ["a"] and [p.name for p in ok] == ["b", "c"]
    empty = PodDisruptionBudget.from_dict(fill_required_defaults(
        {"metadata": {"name": "e", "namespace": "default"}, "spec": {"selector": {}}, "status": {"disruptionsAllowed": 0}},
        PodDisruptionBudget))
    assert filter_pods_with_pdb_violation(ps, [empty]) == ([], ps)


@pytest.mark.parametrize("spec,terminating,want", [
    ({"min_available": 2}, 0, 1),
    ({"min_available": "100%"}, 0, 0),
    ({"max_unavailable": 1}, 0, 1),
    ({"max_unavailable": "50%"}, 0, 2),
    ({"min_available": 2}, 1, 0),
    ({}, 0, 0),
])
def test_disruptions_allowed_from_spec(spec, terminating, want):
    ps = [PodInfo(pod(f"a{i}", "n", labels={"app": "a"}, terminating=i < terminating)) for i in range(3)]
    assert disruptions_allowed_from_spec(pdb("b", {"app": "a"}, **spec), ps) == want


def test_get_pod_disruption_budgets_fills_missing_status_only():
    with_status, without = pdb("s", {"app": "a"}, allowed=5), pdb("m", {"app": "a"}, min_available=1)
    h = FakeHandle(nodes_big("n"), [pod("a1", "n", labels={"app": "a"}), pod("a2", "n", labels={"app": "a"})],
                   pdbs=[with_status, without])
    got = get_pod_disruption_budgets(h)
    assert got[0] is with_status
    assert got[1] is not without and without.status is None
    assert got[1].status.disruptionsAllowed == 1


# ---------------------------------------------------------------------------
# args, numbers of candidates, messages, ordering helpers


@pytest.mark.parametrize("args,message", [
    ({"minCandidateNodesPercentage": -1}, "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"),
    ({"minCandidateNodesPercentage": 900}, "minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"),
    ({"minCandidateNodesAbsolute": -1}, "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"),
    ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
     "[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, "
     "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]"),
    ({"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": -1},
     "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"),
    ({"minCandidateNodesPercentage": 101, "minCandidateNodesAbsolute": -1},
     "[minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100], "
     "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)]"),
    ({"bogus": 1}, 'strict decoding error: unknown field "bogus"'),
])
def test_args_validation(args, message):
    with pytest.raises(ConfigError) as e:
        new(args, None)
    assert str(e.value) == message


def test_args_defaults_and_valid_values():
    assert new(None, None).args == DefaultPreemptionArgs(10, 100)
    assert new({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "DefaultPreemptionArgs",
                "minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1}, None).args == DefaultPreemptionArgs(0, 1)
    assert new(DefaultPreemptionArgs(100, 0), None).args == DefaultPreemptionArgs(100, 0)


@pytest.mark.parametrize("pct,absolute,num_nodes,want", [
    (10, 100, 10, 10),
    (10, 100, 1000, 100),
    (10, 100, 5000, 500),
    (40, 1, 5, 2),
    (40, 2, 5, 2),
    (0, 3, 10, 3),
    (100, 0, 7, 7),
    (10, 0, 5, 0),
])
def test_calculate_num_candidates(pct, absolute, num_nodes, want):
    assert DefaultPreemption(DefaultPreemptionArgs(pct, absolute), None).calculate_num_candidates(num_nodes) == want


def test_get_offset_and_num_candidates_uses_handle_rng():
    pl = new(None, FakeHandle([], [], rng=random.Random(7)))
    offsets = {pl.get_offset_and_num_candidates(5)[0] for _ in range(50)}
    assert offsets <= set(range(5)) and len(offsets) > 1
    assert new(None, FakeHandle([], [], rng=random.Random(7))).get_offset_and_num_candidates(5) == (
        random.Random(7).randrange(5), 5)


def test_fit_error_message_sorts_counted_reasons_as_strings():
    statuses = {f"n{i}": Status(Code.UNSCHEDULABLE, ["Insufficient cpu"]) for i in range(10)}
    statuses["m"] = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [NO_VICTIMS_REASON])
    statuses["m2"] = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [NO_VICTIMS_REASON])
    absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [PREEMPTION_NOT_HELPFUL_MSG])
    assert fit_error_message(13, statuses, absent) == (
        "0/13 nodes are available: 1 Preemption is not helpful for scheduling, 10 Insufficient cpu, "
        "2 No preemption victims found for incoming pod.")
    assert fit_error_message(2, {}, None, pre_filter_msg="pod has unbound PVCs", post_filter_msg="x.") == (
        "0/2 nodes are available: pod has unbound PVCs. x.")


def test_more_important_pod_orders_by_priority_then_start_time():
    older, newer, unstarted = (PodInfo(pod(n, prio=MID, start=s)) for n, s in (("o", 1), ("n", 2), ("u", None)))
    assert more_important_pod(PodInfo(pod("h", prio=HIGH)), older)
    assert more_important_pod(older, newer) and not more_important_pod(newer, older)
    assert more_important_pod(newer, unstarted)
    assert not more_important_pod(unstarted, PodInfo(pod("u2", prio=MID)))
    assert math.isinf(pod_start_seconds(unstarted)) and pod_start_seconds(older) == 1.0


# ---------------------------------------------------------------------------
# End to end through the real Framework and in-tree plugins


def framework_with(plugin_names, nodes, pods, *, pdbs=(), seed=0, nominator=None):
    from kubenotes.scheduler.config import KubeSchedulerProfile, Plugin, Plugins, PluginSet
    from kubenotes.scheduler.framework.runtime import Framework
    from kubenotes.scheduler.plugins.registry import in_tree_registry

    enabled = [Plugin(n) for n in ("PrioritySort", *plugin_names, "DefaultPreemption", "DefaultBinder")]
    profile = KubeSchedulerProfile(plugins=Plugins(multi_point=PluginSet(enabled=enabled)))
    return Framework(in_tree_registry(), profile, snapshot=new_snapshot(nodes, pods),
                     objects=ClusterObjects(pod_disruption_budgets=list(pdbs)), rng=random.Random(seed),
                     nominator=nominator)


def schedule_and_preempt(fw, preemptor):
    """PreFilter, Filter on every node, then PostFilter, as schedulePod does."""
    from kubenotes.scheduler.framework.runtime import NodeToStatus

    state = CycleState()
    _, status, _ = fw.run_pre_filter_plugins(state, preemptor)
    assert status.is_success()
    m = NodeToStatus()
    for ni in fw.snapshot.list():
        s = fw.run_filter_plugins_with_nominated_pods(state, preemptor, ni)
        if not s.is_success():
            m[ni.name] = s
    return fw.run_post_filter_plugins(state, preemptor, m)


def topo_nodes(*names):
    out = []
    for n in names:
        host, zone = n.split("/")
        out.append(make_node(host, allocatable={"pods": "32", **VERY_LARGE}, labels={"hostname": host, "zone": zone}))
    return out


SPREAD = [{"maxSkew": 1, "topologyKey": k, "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}} for k in ("zone", "hostname")]


def test_e2e_basic_preemption_with_node_resources_fit():
    fw = framework_with(["NodeResourcesFit"], nodes_big("node1", "node2", "node3"), PREEMPT_PODS)
    result, status = schedule_and_preempt(fw, PodInfo(pod("p", prio=HIGH, req=VERY_LARGE)))
    assert status.is_success()
    assert result_node(result) == "node1"
    assert [v.name for v in result.victims] == ["p1.1", "p1.2"]


def test_e2e_no_candidate_message_through_run_post_filter_plugins():
    # Real Fit statuses: a request above the node's whole allocatable is UnschedulableAndUnresolvable,
    # so node2 gets room for the pod in principle (400m) but a high-priority pod holds half of it.
    one_pod = {"pods": "1", **VERY_LARGE}
    fw = framework_with(["NodeResourcesFit"],
                        [make_node("node1", allocatable=one_pod), node("node2", {"cpu": "400m", "memory": "600"}),
                         make_node("node3", allocatable=one_pod)],
                        [pod("p1", "node1", HIGH), pod("p2", "node2"), pod("p2h", "node2", HIGH, MEDIUM),
                         pod("p3", "node3", HIGH)])
    result, status = schedule_and_preempt(fw, PodInfo(pod("p", prio=HIGH, req=LARGE)))
    assert result_node(result) == ""
    assert status.code == Code.UNSCHEDULABLE
    assert status.reasons == [
        "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod."]
    assert status.plugin == "DefaultPreemption"


def test_e2e_unresolvable_fit_failures_are_not_worth_preempting():
    fw = framework_with(["NodeResourcesFit"], [node("node1", NODE_RES), node("node2", NODE_RES)],
                        [pod("p1", "node1"), pod("p2", "node2")])
    result, status = schedule_and_preempt(fw, PodInfo(pod("p", prio=HIGH, req=LARGE)))
    assert result_node(result) == ""
    assert status.reasons == ["preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."]


def test_e2e_pdb_steers_preemption_to_the_other_node():
    pods = [pod("a", "node1", LOW, LARGE, labels={"app": "db"}), pod("b", "node2", MID, LARGE)]
    fw = framework_with(["NodeResourcesFit"], nodes_big("node1", "node2"), pods,
                        pdbs=[pdb("db", {"app": "db"}, min_available=1)])
    result, status = schedule_and_preempt(fw, PodInfo(pod("p", prio=HIGH, req=LARGE)))
    assert status.is_success() and result_node(result) == "node2"


def test_e2e_dry_run_pod_with_anti_affinity_is_preempted():
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}, "topologyKey": "hostname"}]}}
    p11 = make_pod("p1.1", requests=SMALL, labels={"foo": ""}, node_name="node1", priority=LOW, uid="p1.1", affinity=anti)
    init = [p11, pod("p1.2", "node1", MID, SMALL), pod("p1.3", "node1", HIGH, SMALL), pod("p2", "node2", HIGH, SMALL)]
    fw = framework_with(["NodeResourcesFit", "InterPodAffinity"], topo_nodes("node1/zone1", "node2/zone1"), init)
    preemptor = PodInfo(pod("p", prio=HIGH, req=SMALL, labels={"foo": ""}))
    state = CycleState()
    assert fw.run_pre_filter_plugins(state, preemptor)[1].is_success()
    pl = fw.plugins_map["DefaultPreemption"]
    infos = fw.snapshot.list()
    off, num = pl.get_offset_and_num_candidates(len(infos))
    cands, _, _ = pl.evaluator.dry_run_preemption(state, preemptor, infos, [], off, num)
    assert [(c.name, [p.name for p in c.victims.pods]) for c in cands] == [("node1", ["p1.1"])]


def test_e2e_dry_run_resolves_pod_topology_spread_failure():
    init = [pod("pod-a1", "node-a", MID, labels={"foo": ""}), pod("pod-a2", "node-a", LOW, labels={"foo": ""}),
            pod("pod-b1", "node-b", LOW, labels={"foo": ""}), pod("pod-x1", "node-x", HIGH, labels={"foo": ""}),
            pod("pod-x2", "node-x", HIGH, labels={"foo": ""})]
    fw = framework_with(["PodTopologySpread"], topo_nodes("node-a/zone1", "node-b/zone1", "node-x/zone2"), init)
    preemptor = PodInfo(make_pod("p", labels={"foo": ""}, priority=HIGH, uid="p", topologySpreadConstraints=SPREAD))
    state = CycleState()
    assert fw.run_pre_filter_plugins(state, preemptor)[1].is_success()
    pl = fw.plugins_map["DefaultPreemption"]
    infos = fw.snapshot.list()
    off, num = pl.get_offset_and_num_candidates(len(infos))
    cands, _, _ = pl.evaluator.dry_run_preemption(state, preemptor, infos, [], off, num)
    assert sorted((c.name, [p.name for p in c.victims.pods]) for c in cands) == [("node-a", ["pod-a2"]), ("node-b", ["pod-b1"])]


def test_e2e_preemption_for_topology_spread_constraints():
    init = [pod("p-a1", "node-a", HIGH, labels={"foo": ""}), pod("p-a2", "node-a", HIGH, labels={"foo": ""}),
            pod("p-b1", "node-b", LOW, labels={"foo": ""}), pod("p-x1", "node-x", HIGH, labels={"foo": ""}),
            pod("p-x2", "node-x", HIGH, labels={"foo": ""})]
    fw = framework_with(["PodTopologySpread"], topo_nodes("node-a/zone1", "node-b/zone1", "node-x/zone2"), init)
    preemptor = PodInfo(make_pod("p", labels={"foo": ""}, priority=HIGH, uid="p", topologySpreadConstraints=SPREAD))
    result, status = schedule_and_preempt(fw, preemptor)
    assert status.is_success()
    assert result_node(result) == "node-b" and [v.name for v in result.victims] == ["p-b1"]


# ---------------------------------------------------------------------------
# The RequestsLedger path in a whole scheduler run


def crowded_cluster(rng: random.Random):
    """Small full nodes of low-priority pods and pending pods of higher priorities: preemption on most nodes."""
    nodes, pods = [], []
    for i in range(rng.randint(12, 30)):
        alloc = {"cpu": str(rng.choice([2, 3])), "memory": "4Gi", "pods": str(rng.choice([4, 6, 110]))}
        if rng.random() < 0.3:
            alloc["example.com/gpu"] = "2"
        taints = [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}] if rng.random() < 0.1 else None
        nodes.append(make_node(f"n{i}", allocatable=alloc, labels={"zone": rng.choice("ab")}, taints=taints))
        for j in range(rng.randint(1, 4)):
            pods.append(pod(f"low-{i}-{j}", f"n{i}", rng.choice([0, 5]), {"cpu": f"{rng.choice([300, 600])}m"},
                            start=rng.randint(0, 9)))
    for j in range(rng.randint(30, 60)):
        requests = {"cpu": f"{rng.choice([400, 800, 1200])}m", "memory": f"{rng.choice([256, 512])}Mi"}
        if rng.random() < 0.15:
            requests["example.com/gpu"] = "1"
        kw = {}
        if rng.random() < 0.1:  # InterPodAffinity not skipped: the per-NodeInfo path
            kw["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        container = {"name": "c0", "image": "pause", "resources": {"requests": requests}}
        if rng.random() < 0.1:  # NodePorts not skipped either
            container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        pods.append(make_pod(f"p{j}", containers=[container], priority=rng.choice([10, 100, 100, 1000]),
                             labels={"app": rng.choice(["web", "api"])}, **kw))
    return nodes, pods


def _ledger_and_clone_runs(seed, monkeypatch):
    """Run one crowded cluster with the RequestsLedger path and without it; assert the same decisions."""
    from kubenotes.scheduler.schedule_one import new_scheduler
    from kubenotes.scheduler.testing import run_decisions

    nodes, pods = crowded_cluster(random.Random(4100 + seed))
    seen = {"ledger": 0, "with_nominated": 0}
    real_ge = node_info_module.RequestsLedger.clone

    def counting_clone(self):  # the ledger is cloned only to add nominated pods
        seen["with_nominated"] += 1
        return real_ge(self)

    real_init = node_info_module.RequestsLedger.__init__

    def counting_init(self, *a, **kw):
        seen["ledger"] += 1
        real_init(self, *a, **kw)

    monkeypatch.setattr(node_info_module.RequestsLedger, "clone", counting_clone)
    monkeypatch.setattr(node_info_module.RequestsLedger, "__init__", counting_init)
    fast = run_decisions(new_scheduler(nodes, pods, seed=seed, trace=False))
    monkeypatch.setattr(dp_fast, "_requests_decide", lambda handle, state: False)
    slow = run_decisions(new_scheduler(nodes, pods, seed=seed, trace=False))
    assert fast == slow
    assert any(victims for _k, _n, _nom, victims, _m in fast[0])
    assert seen["ledger"] > 0
    return seen


@pytest.mark.parametrize("seed", range(6))
def test_requests_ledger_path_makes_identical_decisions(seed, monkeypatch):
    """A whole run (preemptions, nominations that later dry runs must count, pod-count limits, an extended
    resource, preemptors with host ports or anti-affinity on the cloned path) decides the same with the
    RequestsLedger path as with every dry run on cloned NodeInfos."""
    _ledger_and_clone_runs(seed, monkeypatch)


def test_requests_ledger_path_counts_nominated_pods(monkeypatch):
    """Across the seeds above, some dry run on the ledger had pods nominated to its node."""
    total = 0
    for seed in range(6):
        with monkeypatch.context() as m:
            total += _ledger_and_clone_runs(seed, m)["with_nominated"]
    assert total > 0


# ---------------------------------------------------------------------------
# The dry run's memo of victims per node (select_victims_on_copy)


def _memo_setup(preemptors):
    """Two full nodes of low-priority pods; returns (scheduler, DefaultPreemption, CycleState after PreFilter)."""
    from kubenotes.scheduler.schedule_one import new_scheduler

    nodes = [node(f"n{i}", {"cpu": "2", "memory": "4Gi"}) for i in range(2)]
    init = [pod(f"low-{i}-{j}", f"n{i}", 0, {"cpu": "900m"}, start=j) for i in range(2) for j in range(2)]
    sched = new_scheduler(nodes, init + preemptors, trace=False)
    [plugin] = [pl for pl in sched.framework.post_filter_plugins if pl.name() == "DefaultPreemption"]
    return sched, plugin


def _pre_filtered(sched, p):
    state = CycleState()
    assert sched.framework.run_pre_filter_plugins(state, p)[1].is_success()
    return state


def test_victims_memo_reuses_a_node_only_while_nothing_it_reads_changed(monkeypatch):
    """A second preemptor with the same spec, labels and priority gets the first one's victims on an unchanged node
    without a new dry run; a pod added to the node, a pod nominated there, or another spec makes it run again."""
    twins = [pod(f"twin-{k}", None, 10, {"cpu": "1"}, labels={"app": "rs"}) for k in range(2)]
    other = pod("other", None, 10, {"cpu": "1500m"}, labels={"app": "rs"})
    sched, plugin = _memo_setup(twins + [other])
    runs = []
    real = plugin.select_victims_on_node

    def counting(state, p, ni, pdbs):
        runs.append((p.name, ni.name))
        return real(state, p, ni, pdbs)

    monkeypatch.setattr(plugin, "select_victims_on_node", counting)
    a, b, c = (PodInfo(p) for p in twins + [other])
    n0 = sched.snapshot.get("n0")

    def victims(p):
        got, num_violating, status = plugin.select_victims_on_copy(_pre_filtered(sched, p), p, n0, [])
        want = real(_pre_filtered(sched, p), p, n0.clone(), [])
        assert ([v.name for v in got], num_violating, status) == ([v.name for v in want[0]], want[1], want[2])
        return [v.name for v in got]

    assert victims(a) == ["low-0-1"] and runs == [("twin-0", "n0")]
    assert victims(b) == ["low-0-1"] and len(runs) == 1  # remembered
    assert victims(c) == ["low-0-0", "low-0-1"] and runs[-1] == ("other", "n0")  # another spec
    assert victims(b) == ["low-0-1"] and len(runs) == 2  # the twins' entry is still there
    sched.snapshot.add_pod(PodInfo(pod("low-0-2", "n0", 0, {"cpu": "200m"}, start=5)), "n0")  # the node's pods changed
    assert victims(b) == ["low-0-1", "low-0-2"] and runs[-1] == ("twin-1", "n0") and len(runs) == 3
    sched.framework.nominator.add_nominated_pod(PodInfo(pod("high", None, 100, {"cpu": "900m"})),
                                                NominatingInfo("n0", "ModeOverride"))  # counted in the fit
    assert victims(b) == ["low-0-0", "low-0-1", "low-0-2"] and len(runs) == 4
    assert victims(a) == ["low-0-0", "low-0-1", "low-0-2"] and len(runs) == 4
    # The list and status handed out are the caller's: changing them does not change what is remembered.
    got, _n, status = plugin.select_victims_on_copy(_pre_filtered(sched, b), b, n0, [])
    got.clear()
    status.reasons.append("changed")
    assert victims(b) == ["low-0-0", "low-0-1", "low-0-2"] and len(runs) == 4


def test_victims_memo_keys_on_what_the_filters_read(monkeypatch):
    """Preemptors that differ only where no Filter looks (image, labels) share the remembered victims; a
    toleration (TaintToleration, NodeUnschedulable read it) or a priority does not. With a Filter that does not
    declare what it reads of the spec, the whole spec counts."""
    base = make_pod("base", containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}],
                    priority=10, uid="base")
    image = make_pod("image", containers=[{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}],
                     priority=10, labels={"other": "labels"}, uid="image")
    tolerant = make_pod("tolerant", containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}],
                        priority=10, uid="tolerant", tolerations=[{"key": "k", "operator": "Exists"}])
    higher = make_pod("higher", containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}],
                      priority=11, uid="higher")
    sched, plugin = _memo_setup([base, image, tolerant, higher])
    n0 = sched.snapshot.get("n0")
    infos = {p.metadata.name: PodInfo(p) for p in (base, image, tolerant, higher)}
    sig = {name: plugin.victims_memo.signature(pi, _pre_filtered(sched, pi)) for name, pi in infos.items()}
    assert sig["base"] == sig["image"]
    assert sig["tolerant"] != sig["base"] and sig["higher"] != sig["base"]
    runs = []
    real = plugin.select_victims_on_node
    monkeypatch.setattr(plugin, "select_victims_on_node", lambda *a: runs.append(a[1].name) or real(*a))
    for name in ("base", "image", "tolerant", "higher"):
        plugin.select_victims_on_copy(_pre_filtered(sched, infos[name]), infos[name], n0, [])
    assert runs == ["base", "tolerant", "higher"]
    # A Filter that reads the node object but does not say which fields of the spec: the whole spec counts.
    [taints] = [pl for pl in sched.framework.filter_plugins if pl.name() == "TaintToleration"]
    monkeypatch.delattr(type(fast_forms(taints)), "filter_reads_pod_spec")
    plugin._signature_of = None
    assert plugin.victims_memo.signature(infos["base"], _pre_filtered(sched, infos["base"])) != plugin.victims_memo.signature(
        infos["image"], _pre_filtered(sched, infos["image"]))


def test_victims_memo_is_off_with_pdbs_or_custom_hooks(monkeypatch):
    """With a PodDisruptionBudget listed, or another is_eligible_pod, every call runs the dry run on copies."""
    twins = [pod(f"twin-{k}", None, 10, {"cpu": "1"}, labels={"app": "rs"}) for k in range(2)]
    sched, plugin = _memo_setup(twins)
    runs = []
    real = plugin.select_victims_on_node
    monkeypatch.setattr(plugin, "select_victims_on_node", lambda *a: runs.append(1) or real(*a))
    a = PodInfo(twins[0])
    n0 = sched.snapshot.get("n0")
    budget = [pdb("b", {"app": "other"}, allowed=1)]
    for _ in range(2):
        plugin.select_victims_on_copy(_pre_filtered(sched, a), a, n0, budget)
    assert len(runs) == 2
    plugin.is_eligible_pod = lambda node_info, victim, preemptor: True
    for _ in range(2):
        plugin.select_victims_on_copy(_pre_filtered(sched, a), a, n0, [])
    assert len(runs) == 4


@pytest.mark.parametrize("seed", range(6))
def test_victims_memo_makes_identical_decisions(seed, monkeypatch):
    """Crowded clusters with ReplicaSet-like groups of identical preemptors decide the same with the memo as
    with a dry run on copies for every node, and the memo is used."""
    from kubenotes.scheduler.schedule_one import new_scheduler
    from kubenotes.scheduler.testing import run_decisions

    rng = random.Random(5200 + seed)
    nodes, pods = crowded_cluster(rng)
    for g in range(3):
        requests = {"cpu": f"{rng.choice([500, 900])}m"}
        prio = rng.choice([100, 1000])
        pods += [pod(f"rs{g}-{k}", None, prio, requests, labels={"app": f"rs{g}"}) for k in range(rng.randint(4, 12))]
    hits = []
    real = dp_module.DefaultPreemption.select_victims_on_node

    def counting(self, *a):
        hits.append(-1)
        return real(self, *a)

    real_copy = dp_module.DefaultPreemption.select_victims_on_copy

    def counting_copy(self, *a):
        hits.append(1)
        return real_copy(self, *a)

    monkeypatch.setattr(dp_module.DefaultPreemption, "select_victims_on_node", counting)
    monkeypatch.setattr(dp_module.DefaultPreemption, "select_victims_on_copy", counting_copy)
    with_memo = run_decisions(new_scheduler(nodes, pods, seed=seed, trace=False))
    assert hits.count(1) > hits.count(-1)  # some nodes were answered from the memo
    monkeypatch.setattr(VictimsMemo, "signature", lambda self, p, state: object())  # never equal
    without = run_decisions(new_scheduler(nodes, pods, seed=seed, trace=False))
    assert with_memo == without
    assert any(victims for _k, _n, _nom, victims, _m in with_memo[0])


@pytest.mark.parametrize("cap", [1, 5])
def test_victims_memo_starts_afresh_at_its_cap_and_decides_the_same(cap, monkeypatch):
    """With VictimsMemo.ENTRIES lowered the memo is emptied whenever it fills (never holding more entries than
    the cap) and the decisions are those of an unbounded memo."""
    from kubenotes.scheduler.schedule_one import new_scheduler
    from kubenotes.scheduler.testing import run_decisions

    rng = random.Random(5300 + cap)
    nodes, pods = crowded_cluster(rng)
    pods += [pod(f"rs-{k}", None, 1000, {"cpu": "900m"}, labels={"app": "rs"}) for k in range(10)]
    unbounded = run_decisions(new_scheduler(nodes, pods, seed=cap, trace=False))
    sizes = []
    real_copy = dp_module.DefaultPreemption.select_victims_on_copy

    def measured(self, *a):
        out = real_copy(self, *a)
        sizes.append((self.victims_memo.entries, sum(len(m) for m in self.victims_memo.memo.values())))
        return out

    monkeypatch.setattr(VictimsMemo, "ENTRIES", cap)
    monkeypatch.setattr(dp_module.DefaultPreemption, "select_victims_on_copy", measured)
    assert run_decisions(new_scheduler(nodes, pods, seed=cap, trace=False)) == unbounded
    assert sizes and all(counted == held <= cap for counted, held in sizes)


def affinity_crowded_cluster(rng: random.Random):
    """Full nodes (hostname and zone labels) whose low-priority pods carry labels and required anti-affinity
    terms; pending ReplicaSet-like groups with required anti-affinity per hostname or per zone, and affinity to a
    zone's db pods (for db groups, to pods like themselves): InterPodAffinity runs in every dry run."""
    nodes, pods = [], []
    for i in range(rng.randint(14, 28)):
        alloc = {"cpu": str(rng.choice([2, 3])), "memory": "4Gi", "pods": str(rng.choice([4, 6, 110]))}
        nodes.append(make_node(f"n{i}", allocatable=alloc, labels={"zone": rng.choice("abc")}))
        for j in range(rng.randint(1, 4)):
            p = pod(f"low-{i}-{j}", f"n{i}", rng.choice([0, 5]), {"cpu": f"{rng.choice([300, 600])}m"},
                    labels={"app": rng.choice(["web", "db", "batch"])}, start=rng.randint(0, 9))
            r = rng.random()
            if r < 0.12:  # existing pods' anti-affinity to the incoming web pods, per node or per zone
                term = PodAffinityTerm(labelSelector=LabelSelector(matchLabels={"app": "web"}),
                                       topologyKey=rng.choice(["kubernetes.io/hostname", "zone", "zone"]))
                p.spec.affinity = Affinity(podAntiAffinity=PodAntiAffinity(
                    requiredDuringSchedulingIgnoredDuringExecution=[term]))
            pods.append(p)
    for g in range(rng.randint(4, 7)):
        app = rng.choice(["web", "api", "db"])
        key = rng.choice(["kubernetes.io/hostname", "kubernetes.io/hostname", "zone"])
        terms = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": app, "group": f"g{g}"}}, "topologyKey": key}]}}
        if app == "db" or rng.random() < 0.4:  # db pods: affinity to db pods, themselves included
            terms["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}
        requests = {"cpu": f"{rng.choice([400, 800, 1200])}m", "memory": "256Mi"}
        prio = rng.choice([100, 1000])
        for k in range(rng.randint(3, 9)):
            pods.append(make_pod(f"g{g}-{k}", priority=prio, requests=requests,
                                 labels={"app": app, "group": f"g{g}"}, affinity=terms))
    return nodes, pods


@pytest.mark.parametrize("seed", range(12))
def test_victims_memo_signed_by_interpodaffinity_decides_the_same(seed, monkeypatch):
    """Dry runs in which InterPodAffinity runs (its counters signing each node) decide as dry runs on copies for
    every node, and some nodes are answered from the memo."""
    from kubenotes.scheduler.schedule_one import new_scheduler
    from kubenotes.scheduler.testing import run_decisions

    rng = random.Random(6100 + seed)
    nodes, pods = affinity_crowded_cluster(rng)
    signed_hits, signed_runs = [], []
    real_copy = dp_module.DefaultPreemption.select_victims_on_copy
    real_node = dp_module.DefaultPreemption.select_victims_on_node

    def counting_node(self, *a):
        signed_runs.append(1)
        return real_node(self, *a)

    def counting_copy(self, *a):
        before = len(signed_runs)
        out = real_copy(self, *a)
        if self.victims_memo.dry_run_of[4] and len(signed_runs) == before:
            signed_hits.append(1)
        return out

    monkeypatch.setattr(dp_module.DefaultPreemption, "select_victims_on_node", counting_node)
    monkeypatch.setattr(dp_module.DefaultPreemption, "select_victims_on_copy", counting_copy)
    with_memo = run_decisions(new_scheduler(nodes, pods, seed=seed, trace=False))
    monkeypatch.setattr(VictimsMemo, "signature", lambda self, p, state: object())  # never equal
    without = run_decisions(new_scheduler(nodes, pods, seed=seed, trace=False))
    assert with_memo == without
    assert signed_hits  # dry runs took the signed memo path, and it answered some nodes
