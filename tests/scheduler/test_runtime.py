"""Tests for kubenotes.scheduler.framework.runtime (ports of runtime/framework_test.go and registry_test.go tables)."""

from __future__ import annotations

import pytest

from kubenotes.errors import AlreadyExists, ConfigError, NotFound
from kubenotes.scheduler.config import KubeSchedulerProfile, Plugin, PluginConfig, Plugins, PluginSet
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import (
    Code,
    NodeScore,
    NominatingInfo,
    PostFilterResult,
    PreFilterResult,
    Status,
)
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.framework.runtime import Framework, NodeToStatus, Registry
from kubenotes.scheduler.queue import PodNominator
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

INJECT_REASON = "injected status"
INJECT_FILTER_REASON = "injected filter status"


class TestPlugin:
    """An all-purpose plugin whose statuses are injected (upstream's TestPlugin)."""

    __test__ = False

    def __init__(self, name: str, **inj):
        self._name = name
        self.inj = inj
        self.calls: list[str] = []

    def name(self):
        return self._name

    def _st(self, key, reason=INJECT_REASON):
        code = self.inj.get(key, Code.SUCCESS)
        return Status() if code == Code.SUCCESS else Status(Code(code), [reason])

    # extension points (every one but QueueSort, as upstream's TestPlugin)
    def pre_filter(self, state, pod, nodes):
        self.calls.append("PreFilter")
        return self.inj.get("pre_filter_result"), self._st("pre_filter_status")

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state, pod, pod_to_add, node_info):
        self.calls.append("AddPod")
        return self._st("add_pod_status")

    def remove_pod(self, state, pod, pod_to_remove, node_info):
        self.calls.append("RemovePod")
        return self._st("remove_pod_status")

    def filter(self, state, pod, node_info):
        self.calls.append("Filter")
        return self._st("filter_status", INJECT_FILTER_REASON)

    def post_filter(self, state, pod, m):
        self.calls.append("PostFilter")
        return PostFilterResult(self.inj.get("nominating")), self._st("post_filter_status")

    def pre_score(self, state, pod, nodes):
        self.calls.append("PreScore")
        return self._st("pre_score_status")

    def score(self, state, pod, node_info):
        self.calls.append("Score")
        return self.inj.get("score_res", 0), self._st("score_status")

    def score_extensions(self):
        return self

    def normalize_score(self, state, pod, scores):
        self.calls.append("NormalizeScore")
        if "normalize_to" in self.inj:
            for s in scores:
                s.score = self.inj["normalize_to"]
        return self._st("normalize_status")

    def reserve(self, state, pod, node_name):
        self.calls.append("Reserve")
        return self._st("reserve_status")

    def unreserve(self, state, pod, node_name):
        self.calls.append("Unreserve")

    def permit(self, state, pod, node_name):
        self.calls.append("Permit")
        return self._st("permit_status"), 10

    def pre_bind(self, state, pod, node_name):
        self.calls.append("PreBind")
        return self._st("pre_bind_status")

    def bind(self, state, pod, node_name):
        self.calls.append("Bind")
        return self._st("bind_status")

    def post_bind(self, state, pod, node_name):
        self.calls.append("PostBind")


class QueueSortOnly:
    def name(self):
        return "PrioritySort"

    def less(self, a, b):
        return False


class BindOnly:
    def name(self):
        return "DefaultBinder"

    def bind(self, state, pod, node_name):
        return Status()


class FilterOnly:
    def __init__(self, name="FilterOnly"):
        self._name = name

    def name(self):
        return self._name

    def filter(self, state, pod, node_info):
        return Status()


def _registry(*plugins) -> Registry:
    r = Registry(PrioritySort=lambda a, h: QueueSortOnly(), DefaultBinder=lambda a, h: BindOnly())
    for p in plugins:
        r.register(p.name(), (lambda pl: lambda args, h: pl)(p))
    return r


def _framework(ext: str, plugins, **kw) -> Framework:
    """A framework with the queue sort and bind plugins plus ``plugins`` at extension point ``ext``."""
    pl = Plugins(queue_sort=PluginSet([Plugin("PrioritySort")]), bind=PluginSet([Plugin("DefaultBinder")]))
    pl.plugin_set(ext).enabled = [Plugin(p.name(), getattr(p, "weight", None)) for p in plugins]
    return Framework(_registry(*plugins), KubeSchedulerProfile(plugins=pl), **kw)


POD = PodInfo(make_pod("p"))


# --------------------------------------------------------------------------- Registry
def test_registry_register_merge_unregister():
    r = Registry()
    r.register("A", lambda a, h: None)
    with pytest.raises(AlreadyExists, match="a plugin named A already exists"):
        r.register("A", lambda a, h: None)
    other = Registry(B=lambda a, h: None)
    r.merge(other)
    assert sorted(r) == ["A", "B"]
    with pytest.raises(AlreadyExists, match="a plugin named B already exists"):
        r.merge(other)
    r.unregister("A")
    with pytest.raises(NotFound, match="no plugin named A exists"):
        r.unregister("A")


# --------------------------------------------------------------------------- NewFramework
def test_new_framework_errors():
    base = dict(queue_sort=PluginSet([Plugin("PrioritySort")]), bind=PluginSet([Plugin("DefaultBinder")]))
    with pytest.raises(ConfigError, match=r'^FilterPlugin "Nope" does not exist$'):
        Framework(_registry(), KubeSchedulerProfile(plugins=Plugins(filter=PluginSet([Plugin("Nope")]), **base)))
    with pytest.raises(ConfigError, match=r'^PreFilterPlugin "Nope" does not exist$'):
        Framework(_registry(), KubeSchedulerProfile(plugins=Plugins(multi_point=PluginSet([Plugin("Nope")]), **base)))
    with pytest.raises(ConfigError, match=r'^plugin "FilterOnly" does not extend ScorePlugin plugin$'):
        Framework(_registry(FilterOnly()), KubeSchedulerProfile(plugins=Plugins(score=PluginSet([Plugin("FilterOnly")]), **base)))
    with pytest.raises(ConfigError, match=r'^plugin "FilterOnly" already registered as "FilterPlugin"$'):
        Framework(_registry(FilterOnly()), KubeSchedulerProfile(
            plugins=Plugins(filter=PluginSet([Plugin("FilterOnly"), Plugin("FilterOnly")]), **base)))
    with pytest.raises(ConfigError, match=r'only one queue sort plugin required for profile with scheduler name "default-scheduler", but got 0'):
        Framework(_registry(), KubeSchedulerProfile(plugins=Plugins(bind=PluginSet([Plugin("DefaultBinder")]))))
    with pytest.raises(ConfigError, match=r'at least one bind plugin is needed for profile with scheduler name "default-scheduler"'):
        Framework(_registry(), KubeSchedulerProfile(plugins=Plugins(queue_sort=PluginSet([Plugin("PrioritySort")]))))
    with pytest.raises(ConfigError, match=r"^repeated config for plugin X$"):
        Framework(_registry(), KubeSchedulerProfile(plugins=Plugins(**base),
                                                    plugin_config=[PluginConfig("X", {}), PluginConfig("X", {})]))


def test_factory_error_is_wrapped():
    def bad(args, handle):
        raise ConfigError("scoringStrategy.type: Unsupported value")

    r = _registry()
    r.register("Bad", bad)
    prof = KubeSchedulerProfile(plugins=Plugins(queue_sort=PluginSet([Plugin("PrioritySort")]),
                                                bind=PluginSet([Plugin("DefaultBinder")]),
                                                filter=PluginSet([Plugin("Bad")])))
    with pytest.raises(ConfigError, match=r'^initializing plugin "Bad": scoringStrategy.type: Unsupported value$'):
        Framework(r, prof)


def test_factory_receives_args_and_handle():
    seen = {}

    def factory(args, handle):
        seen["args"], seen["handle"] = args, handle
        return FilterOnly("WithArgs")

    r = _registry()
    r.register("WithArgs", factory)
    prof = KubeSchedulerProfile(plugins=Plugins(queue_sort=PluginSet([Plugin("PrioritySort")]),
                                                bind=PluginSet([Plugin("DefaultBinder")]),
                                                filter=PluginSet([Plugin("WithArgs")])),
                                plugin_config=[PluginConfig("WithArgs", {"a": 1})])
    fw = Framework(r, prof)
    assert seen == {"args": {"a": 1}, "handle": fw}


# Ported from TestNewFrameworkMultiPointExpansion (order and weights of MultiPoint expansion).
class Multi(TestPlugin):
    pass


@pytest.mark.parametrize("plugins, want_filter, want_score, want_weights", [
    # plugins in MultiPoint only
    (Plugins(multi_point=PluginSet([Plugin("A", 3), Plugin("B")])), ["A", "B"], ["A", "B"], {"A": 3, "B": 1}),
    # disabled at one extension point
    (Plugins(multi_point=PluginSet([Plugin("A"), Plugin("B")]), score=PluginSet(disabled=[Plugin("A")])),
     ["A", "B"], ["B"], {"A": 1, "B": 1}),  # upstream keeps a weight for A
    # "*" disables every MultiPoint plugin at that point
    (Plugins(multi_point=PluginSet([Plugin("A"), Plugin("B")]), filter=PluginSet(disabled=[Plugin("*")])),
     [], ["A", "B"], {"A": 1, "B": 1}),
    # explicit extension point entry overrides the MultiPoint one and comes first; its weight wins
    (Plugins(multi_point=PluginSet([Plugin("A", 1), Plugin("B", 1)]), score=PluginSet([Plugin("B", 5)])),
     ["A", "B"], ["B", "A"], {"A": 1, "B": 5}),
    # plugin only at a specific extension point comes after MultiPoint ones
    (Plugins(multi_point=PluginSet([Plugin("A")]), filter=PluginSet([Plugin("C")])),
     ["A", "C"], ["A"], {"A": 1}),
])
def test_multipoint_expansion(plugins, want_filter, want_score, want_weights):
    plugins.queue_sort = PluginSet([Plugin("PrioritySort")])
    plugins.bind = PluginSet([Plugin("DefaultBinder")])
    fw = Framework(_registry(Multi("A"), Multi("B"), Multi("C")), KubeSchedulerProfile(plugins=plugins))
    assert [p.name() for p in fw.filter_plugins] == want_filter
    assert [p.name() for p in fw.score_plugins] == want_score
    assert fw.score_plugin_weight == want_weights


def test_multipoint_double_registration():
    plugins = Plugins(multi_point=PluginSet([Plugin("A"), Plugin("A")]),
                      queue_sort=PluginSet([Plugin("PrioritySort")]), bind=PluginSet([Plugin("DefaultBinder")]))
    with pytest.raises(ConfigError, match=r'plugin "A" already registered as "PreFilterPlugin"'):
        Framework(_registry(Multi("A")), KubeSchedulerProfile(plugins=plugins))


def test_score_weight_overflow():
    plugins = Plugins(score=PluginSet([Plugin("A", 2**62), Plugin("B", 2**62)]),
                      queue_sort=PluginSet([Plugin("PrioritySort")]), bind=PluginSet([Plugin("DefaultBinder")]))
    with pytest.raises(ConfigError, match="total score of Score plugins could overflow"):
        Framework(_registry(Multi("A"), Multi("B")), KubeSchedulerProfile(plugins=plugins))


# --------------------------------------------------------------------------- PreFilter
@pytest.mark.parametrize("injs, want_result, want_skipped, want_code", [
    ([("success1", {}), ("success2", {})], None, set(), Code.SUCCESS),
    ([("success", {}), ("error", {"pre_filter_status": Code.ERROR})], None, set(), Code.ERROR),
    ([("skip", {"pre_filter_status": Code.SKIP}), ("error", {"pre_filter_status": Code.ERROR})], None, {"skip"}, Code.ERROR),
    ([("skip1", {"pre_filter_status": Code.SKIP}), ("skip2", {"pre_filter_status": Code.SKIP}),
      ("skip3", {"pre_filter_status": Code.SKIP})], None, {"skip1", "skip2", "skip3"}, Code.SUCCESS),
    ([("skip1", {"pre_filter_status": Code.SKIP}), ("success1", {}), ("skip2", {"pre_filter_status": Code.SKIP}),
      ("success2", {})], None, {"skip1", "skip2"}, Code.SUCCESS),
    ([("unschedulable", {"pre_filter_status": Code.UNSCHEDULABLE}), ("skip", {"pre_filter_status": Code.SKIP})],
     None, {"skip"}, Code.UNSCHEDULABLE),
    ([("unresolvable", {"pre_filter_status": Code.UNSCHEDULABLE_AND_UNRESOLVABLE}),
      ("skip", {"pre_filter_status": Code.SKIP})], None, set(), Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
    ([("reject-all-nodes", {"pre_filter_result": PreFilterResult(set())}), ("skip", {"pre_filter_status": Code.SKIP})],
     PreFilterResult(set()), set(), Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
])
def test_run_pre_filter_plugins(injs, want_result, want_skipped, want_code):
    plugins = [TestPlugin(n, **inj) for n, inj in injs]
    fw = _framework("PreFilter", plugins, snapshot=new_snapshot([], []))
    state = CycleState()
    result, status, _ = fw.run_pre_filter_plugins(state, POD)
    assert result == want_result
    assert status.code == want_code
    assert state.skip_filter_plugins == want_skipped


def test_pre_filter_result_merge_messages():
    a = TestPlugin("A", pre_filter_result=PreFilterResult({"n1"}))
    b = TestPlugin("B", pre_filter_result=PreFilterResult({"n2"}))
    fw = _framework("PreFilter", [a, b], snapshot=new_snapshot([], []))
    result, status, with_nodes = fw.run_pre_filter_plugins(CycleState(), POD)
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message() == "node(s) didn't satisfy plugin(s) [A B] simultaneously"
    assert with_nodes == {"A", "B"}
    one = TestPlugin("A", pre_filter_result=PreFilterResult(set()))
    fw = _framework("PreFilter", [one], snapshot=new_snapshot([], []))
    _, status, _ = fw.run_pre_filter_plugins(CycleState(), POD)
    assert status.message() == "node(s) didn't satisfy plugin A"
    c = TestPlugin("A", pre_filter_result=PreFilterResult({"n1", "n2"}))
    d = TestPlugin("B", pre_filter_result=PreFilterResult({"n2", "n3"}))
    fw = _framework("PreFilter", [c, d], snapshot=new_snapshot([], []))
    result, status, _ = fw.run_pre_filter_plugins(CycleState(), POD)
    assert status.is_success() and result.node_names == {"n2"}


def test_pre_filter_error_message():
    fw = _framework("PreFilter", [TestPlugin("X", pre_filter_status=Code.ERROR)], snapshot=new_snapshot([], []))
    _, status, _ = fw.run_pre_filter_plugins(CycleState(), POD)
    assert status.message() == 'running PreFilter plugin "X": injected status'


@pytest.mark.parametrize("method, key", [("run_pre_filter_extension_add_pod", "add_pod_status"),
                                         ("run_pre_filter_extension_remove_pod", "remove_pod_status")])
@pytest.mark.parametrize("injs, skipped, want_code", [
    ([("success1", {}), ("success2", {})], set(), Code.SUCCESS),
    ([("success1", {}), ("error1", {"X": Code.ERROR})], set(), Code.ERROR),
    ([("success1", {}), ("skipped", {"X": Code.ERROR})], {"skipped"}, Code.SUCCESS),
])
def test_pre_filter_extensions(method, key, injs, skipped, want_code):
    plugins = [TestPlugin(n, **{key if k == "X" else k: v for k, v in inj.items()}) for n, inj in injs]
    fw = _framework("PreFilter", plugins)
    state = CycleState()
    state.skip_filter_plugins = skipped
    s = getattr(fw, method)(state, POD, POD, NodeInfo(make_node("n1")))
    assert s.code == want_code
    if want_code == Code.ERROR:
        op = "AddPod" if "add" in method else "RemovePod"
        assert s.message() == f'running {op} on PreFilter plugin "error1": injected status'


# --------------------------------------------------------------------------- Filter
U, UU, E, S, OK = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR, Code.SKIP, Code.SUCCESS


@pytest.mark.parametrize("codes, skipped, want", [
    ([OK], set(), None),
    ([E], set(), (E, 'running "TestPlugin1" filter plugin: injected filter status', "TestPlugin1")),
    ([U], set(), (U, INJECT_FILTER_REASON, "TestPlugin1")),
    ([UU], set(), (UU, INJECT_FILTER_REASON, "TestPlugin1")),
    ([E, E], set(), (E, 'running "TestPlugin1" filter plugin: injected filter status', "TestPlugin1")),
    ([U, U], set(), (U, INJECT_FILTER_REASON, "TestPlugin1")),
    ([UU, U], set(), (UU, INJECT_FILTER_REASON, "TestPlugin1")),
    ([OK, OK], set(), None),
    ([OK, E], {"TestPlugin2"}, None),
    ([E, OK], set(), (E, 'running "TestPlugin1" filter plugin: injected filter status', "TestPlugin1")),
    ([OK, E], set(), (E, 'running "TestPlugin2" filter plugin: injected filter status', "TestPlugin2")),
    ([OK, U], set(), (U, INJECT_FILTER_REASON, "TestPlugin2")),
])
def test_filter_plugins(codes, skipped, want):
    plugins = [TestPlugin(f"TestPlugin{i + 1}", filter_status=c) for i, c in enumerate(codes)]
    fw = _framework("Filter", plugins)
    state = CycleState()
    state.skip_filter_plugins = skipped
    rec: dict[str, str] = {}
    s = fw.run_filter_plugins(state, POD, NodeInfo(make_node("n1")), rec)
    if want is None:
        assert s.is_success()
        assert set(rec.values()) <= {"passed"}
    else:
        assert (s.code, s.message(), s.plugin) == want
        assert rec[want[2]] == want[1]
        assert list(rec)[-1] == want[2]


# Ported from TestFilterPluginsWithNominatedPods.
def _nominated_framework(prefilter, filt, nominated):
    nominator = PodNominator()
    if nominated is not None:
        nominator.add_nominated_pod(nominated, NominatingInfo("node1"))
    plugins = Plugins(queue_sort=PluginSet([Plugin("PrioritySort")]), bind=PluginSet([Plugin("DefaultBinder")]))
    ps = []
    if prefilter is not None:
        plugins.pre_filter = PluginSet([Plugin(prefilter.name())])
        ps.append(prefilter)
    if filt is not None:
        plugins.filter = PluginSet([Plugin(filt.name())])
        ps.append(filt)
    return Framework(_registry(*ps), KubeSchedulerProfile(plugins=plugins), nominator=nominator)


LOW = PodInfo(make_pod("low", priority=0, uid="low"))
HIGH = PodInfo(make_pod("high", priority=1000, uid="high"))


@pytest.mark.parametrize("prefilter, filt, pod, nominated, want", [
    (None, None, LOW, None, None),
    (TestPlugin("TestPlugin1"), TestPlugin("TestPlugin2"), LOW, HIGH, None),
    (TestPlugin("TestPlugin1", add_pod_status=E), None, LOW, HIGH,
     (E, 'running AddPod on PreFilter plugin "TestPlugin1": injected status')),
    (TestPlugin("TestPlugin1"), TestPlugin("TestPlugin2", filter_status=E), LOW, HIGH,
     (E, 'running "TestPlugin2" filter plugin: injected filter status')),
    (TestPlugin("TestPlugin1", add_pod_status=U), TestPlugin("TestPlugin2"), HIGH, LOW, None),
])
def test_filter_plugins_with_nominated_pods(prefilter, filt, pod, nominated, want):
    fw = _nominated_framework(prefilter, filt, nominated)
    ni = NodeInfo(make_node("node1"))
    s = fw.run_filter_plugins_with_nominated_pods(CycleState(), pod, ni)
    if want is None:
        assert s.is_success()
    else:
        assert (s.code, s.message()) == want


def test_filter_with_nominated_pods_runs_twice():
    class CountingFit:
        """Fails when the node holds more than one pod."""

        def __init__(self):
            self.seen = []

        def name(self):
            return "Fit"

        def filter(self, state, pod, ni):
            self.seen.append(len(ni.pods))
            return Status() if len(ni.pods) <= 1 else Status.unschedulable("Too many pods")

    fit = CountingFit()
    nominator = PodNominator()
    nominator.add_nominated_pod(HIGH, NominatingInfo("node1"))
    plugins = Plugins(queue_sort=PluginSet([Plugin("PrioritySort")]), bind=PluginSet([Plugin("DefaultBinder")]),
                      filter=PluginSet([Plugin("Fit")]))
    fw = Framework(_registry(fit), KubeSchedulerProfile(plugins=plugins), nominator=nominator)
    ni = NodeInfo(make_node("node1"))
    assert fw.run_filter_plugins_with_nominated_pods(CycleState(), LOW, ni).is_success()
    assert fit.seen == [1, 0]  # with the nominated pod, then without
    ni.add_pod(PodInfo(make_pod("running", node_name="node1")))
    fit.seen.clear()
    s = fw.run_filter_plugins_with_nominated_pods(CycleState(), LOW, ni)
    assert s.message() == "Too many pods" and fit.seen == [2]
    assert len(ni.pods) == 1  # the node info passed in is not modified


# --------------------------------------------------------------------------- PostFilter
@pytest.mark.parametrize("codes, want", [
    ([OK], (OK, [INJECT_REASON], "")),
    ([U, OK], (OK, [INJECT_REASON], "")),
    ([OK, U], (OK, [INJECT_REASON], "")),
    ([E, OK], (E, [INJECT_REASON], "TestPlugin1")),
    ([U, UU], (UU, [INJECT_REASON], "TestPlugin2")),
    ([U, U], (U, [INJECT_REASON, INJECT_REASON], "TestPlugin1")),
])
def test_post_filter_plugins(codes, want):
    def status_of(c):
        return Status(c, [INJECT_REASON])

    class P(TestPlugin):
        def post_filter(self, state, pod, m):
            return None, status_of(self.inj["c"])

    plugins = [P(f"TestPlugin{i + 1}", c=c) for i, c in enumerate(codes)]
    fw = _framework("PostFilter", plugins)
    _, s = fw.run_post_filter_plugins(CycleState(), POD, NodeToStatus())
    assert (s.code, s.reasons, s.plugin) == want


def test_post_filter_keeps_last_nominating_result():
    a = TestPlugin("A", post_filter_status=U, nominating=NominatingInfo("n1"))
    b = TestPlugin("B", post_filter_status=U)
    fw = _framework("PostFilter", [a, b])
    r, s = fw.run_post_filter_plugins(CycleState(), POD, NodeToStatus())
    assert s.code == U and r.nominating_info.nominated_node_name == "n1"


# --------------------------------------------------------------------------- PreScore / Score
def test_pre_score_skip_and_error():
    fw = _framework("PreScore", [TestPlugin("skip", pre_score_status=S), TestPlugin("ok")])
    state = CycleState()
    assert fw.run_pre_score_plugins(state, POD, []).is_success()
    assert state.skip_score_plugins == {"skip"}
    fw = _framework("PreScore", [TestPlugin("bad", pre_score_status=E)])
    s = fw.run_pre_score_plugins(CycleState(), POD, [])
    assert s.code == E and s.message() == 'running PreScore plugin "bad": injected status'


def _score_fw(*plugins):
    return _framework("Score", list(plugins))


NODES = [NodeInfo(make_node("node1")), NodeInfo(make_node("node2"))]


# Ported from TestRunScorePlugins.
def test_run_score_plugins_weights_and_normalize():
    p1 = TestPlugin("score1", score_res=1)
    p1.weight = 1
    p2 = TestPlugin("score2", score_res=5, normalize_to=10)
    p2.weight = 3
    fw = _score_fw(p1, p2)
    raw: dict = {}
    scores, s = fw.run_score_plugins(CycleState(), POD, NODES, raw)
    assert s.is_success()
    assert [(n.name, [(p.name, p.score) for p in n.scores], n.total_score) for n in scores] == [
        ("node1", [("score1", 1), ("score2", 30)], 31),
        ("node2", [("score1", 1), ("score2", 30)], 31),
    ]
    assert raw == {"node1": {"score1": 1, "score2": 5}, "node2": {"score1": 1, "score2": 5}}


@pytest.mark.parametrize("inj, want", [
    ({"score_status": E}, 'running Score plugins: plugin "bad" failed with: injected status'),
    ({"normalize_status": E}, 'running Normalize on Score plugins: plugin "bad" failed with: injected status'),
    ({"score_res": 101}, 'applying score defaultWeights on Score plugins: plugin "bad" returns an invalid score 101, '
                         'it should in the range of [0, 100] after normalizing'),
    ({"normalize_to": -1}, 'applying score defaultWeights on Score plugins: plugin "bad" returns an invalid score -1, '
                           'it should in the range of [0, 100] after normalizing'),
])
def test_run_score_plugins_errors(inj, want):
    fw = _score_fw(TestPlugin("bad", **inj))
    scores, s = fw.run_score_plugins(CycleState(), POD, NODES)
    assert scores is None and s.code == E and s.message() == want


def test_skipped_score_plugin_not_run():
    p = TestPlugin("skipme", score_res=500)
    fw = _score_fw(p)
    state = CycleState()
    state.skip_score_plugins = {"skipme"}
    scores, s = fw.run_score_plugins(state, POD, NODES)
    assert s.is_success() and all(n.scores == [] and n.total_score == 0 for n in scores)
    assert "Score" not in p.calls


# --------------------------------------------------------------------------- Reserve .. PostBind
@pytest.mark.parametrize("codes, want", [
    ([], (OK, [])),
    ([OK], (OK, [])),
    ([U], (U, [INJECT_REASON])),
    ([E], (E, ['running PreBind plugin "TestPlugin1": injected status'])),
    ([UU], (UU, [INJECT_REASON])),
    ([OK, E], (E, ['running PreBind plugin "TestPlugin2": injected status'])),
    ([E, OK], (E, ['running PreBind plugin "TestPlugin1": injected status'])),
    ([OK, OK], (OK, [])),
    ([U, OK], (U, [INJECT_REASON])),
])
def test_pre_bind_plugins(codes, want):
    fw = _framework("PreBind", [TestPlugin(f"TestPlugin{i + 1}", pre_bind_status=c) for i, c in enumerate(codes)])
    s = fw.run_pre_bind_plugins(CycleState(), POD, "n1")
    assert (s.code, s.reasons) == want


@pytest.mark.parametrize("codes, want", [
    ([OK], (OK, [])),
    ([U], (U, [INJECT_REASON])),
    ([E], (E, ['running Reserve plugin "TestPlugin1": injected status'])),
    ([OK, E], (E, ['running Reserve plugin "TestPlugin2": injected status'])),
    ([U, OK], (U, [INJECT_REASON])),
])
def test_reserve_plugins(codes, want):
    plugins = [TestPlugin(f"TestPlugin{i + 1}", reserve_status=c) for i, c in enumerate(codes)]
    fw = _framework("Reserve", plugins)
    s = fw.run_reserve_plugins_reserve(CycleState(), POD, "n1")
    assert (s.code, s.reasons) == want


def test_unreserve_runs_in_reverse():
    order = []

    class R(TestPlugin):
        def unreserve(self, state, pod, node_name):
            order.append(self.name())

    fw = _framework("Reserve", [R("a"), R("b"), R("c")])
    fw.run_reserve_plugins_unreserve(CycleState(), POD, "n1")
    assert order == ["c", "b", "a"]


@pytest.mark.parametrize("codes, want", [
    ([OK], (OK, [])),
    ([U], (U, [INJECT_REASON])),
    ([E], (E, ['running Permit plugin "TestPlugin1": injected status'])),
    ([Code.WAIT, OK], (Code.WAIT, ['one or more plugins asked to wait and no plugin rejected pod "p"'])),
    ([Code.WAIT, U], (U, [INJECT_REASON])),
])
def test_permit_plugins(codes, want):
    plugins = [TestPlugin(f"TestPlugin{i + 1}", permit_status=c) for i, c in enumerate(codes)]
    fw = _framework("Permit", plugins)
    rec, timeouts = {}, {}
    s = fw.run_permit_plugins(CycleState(), POD, "n1", rec, timeouts)
    assert (s.code, s.reasons) == want
    if Code.WAIT in codes:
        assert rec["TestPlugin1"] == "wait" and timeouts["TestPlugin1"] == "10s"


@pytest.mark.parametrize("codes, want", [
    ([S], S),
    ([S, OK], OK),
    ([OK, E], OK),
    ([E], E),
    ([S, U], U),
])
def test_bind_plugins(codes, want):
    class B(TestPlugin):
        def bind(self, state, pod, node_name):
            self.calls.append("Bind")
            c = self.inj["c"]
            return Status(c, [INJECT_REASON]) if c != OK else Status()

    plugins = [B(f"B{i}", c=c) for i, c in enumerate(codes)]
    pl = Plugins(queue_sort=PluginSet([Plugin("PrioritySort")]),
                 bind=PluginSet([Plugin(p.name()) for p in plugins]))
    fw = Framework(_registry(*plugins), KubeSchedulerProfile(plugins=pl))
    s = fw.run_bind_plugins(CycleState(), POD, "n1")
    assert s.code == want


def test_node_to_status():
    m = NodeToStatus()
    m["a"] = Status(U, ["x"])
    m["b"] = Status(UU, ["y"])
    nodes = [NodeInfo(make_node(n)) for n in ("a", "b", "c")]
    assert [n.name for n in m.nodes_for_status_code(nodes, U)] == ["a"]
    assert [n.name for n in m.nodes_for_status_code(nodes, UU)] == ["b", "c"]
    m.set_absent_nodes_status(Status(U, ["z"]))
    assert [n.name for n in m.nodes_for_status_code(nodes, U)] == ["a", "c"]
    assert m.status_of("c").reasons == ["z"] and len(m) == 2


def test_normalize_receives_node_scores():
    got = []

    class N(TestPlugin):
        def normalize_score(self, state, pod, scores):
            got.extend((s.name, s.score) for s in scores)
            assert all(isinstance(s, NodeScore) for s in scores)
            return Status()

    fw = _score_fw(N("n", score_res=7))
    fw.run_score_plugins(CycleState(), POD, NODES)
    assert got == [("node1", 7), ("node2", 7)]


def test_pod_info_parses_its_required_node_affinity_once():
    from kubenotes.scheduler.framework.node_info import PodInfo
    from kubenotes.scheduler.testing import make_node, make_pod

    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    p = PodInfo(make_pod("p", nodeSelector={"disk": "ssd"}, affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}))
    rna = p.required_node_affinity()
    assert p.required_node_affinity() is rna
    assert rna.match(make_node("n1", labels={"zone": "a", "disk": "ssd"}))
    assert not rna.match(make_node("n2", labels={"zone": "a"}))
    bad = PodInfo(make_pod("bad", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Bogus", "values": ["a"]}]}]}}}))
    assert not bad.required_node_affinity().match(make_node("n3", labels={"zone": "a"}))   # matches nothing


def test_pod_info_copy_shares_every_parsed_field():
    import copy

    from kubenotes.scheduler.framework.node_info import PodInfo
    from kubenotes.scheduler.testing import make_pod

    p = PodInfo(make_pod("p", requests={"cpu": "1"}, labels={"app": "web"}, ports=[8080]))
    p.required_node_affinity()
    c = copy.copy(p)
    c.node_name = "n1"
    fields = [f for f in PodInfo.__slots__ if f != "__weakref__"]
    assert c is not p and type(c) is PodInfo and p.node_name == ""
    assert all(getattr(c, f) is getattr(p, f) for f in fields if f != "node_name")


def test_skip_status_is_a_fresh_skip():
    """Status.skip() (built without the dataclass __init__) equals Status(Code.SKIP) and shares nothing."""
    a, b = Status.skip(), Status.skip()
    assert a == Status(Code.SKIP) and a.is_skip() and not a.is_success() and a.message() == ""
    assert a is not b and a.reasons is not b.reasons
    a.reasons.append("changed")
    a.plugin = "P"
    assert b == Status(Code.SKIP)
