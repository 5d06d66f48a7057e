"""PodTopologySpread's batch forms (filter_batch, score_batch, normalize_score_batch) against its per-node code.

Property tests (hypothesis, derandomized) over random clusters: workloads owned by
ReplicaSets, StatefulSets and ReplicationControllers and selected by Services get
the system default constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway);
other pods carry explicit constraints over several keys with both
``whenUnsatisfiable`` values, minDomains, inclusion policies and matchLabelKeys.
Some nodes lack the zone or hostname label, some are tainted, some pods are
terminating or in another namespace, and the pods of many workloads are
scheduled interleaved (the incremental per-selector counts replay many changes).

The identity is checked at three levels: the plugin (PreFilter/PreScore states,
Filter mask, raw and normalized scores, node by node), the per-selector pod
counts after random adds and removals, and the whole scheduler (traced versus
untraced: same chosen node, nominated node, victims and FailedScheduling message
for every attempt, with PodTopologySpread on the batch path). kubenotes only: no
upstream counterpart.
"""

from __future__ import annotations

import dataclasses
import datetime
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenotes.scheduler.fast import podtopologyspread as fast_pts
from kubenotes.scheduler.fast.registry import fast_forms
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import NodeScore
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.podtopologyspread import common, filtering, scoring
from kubenotes.scheduler.schedule_one import new_scheduler
from kubenotes.scheduler.snapshot import ClusterObjects, new_snapshot
from kubenotes.scheduler.testing import churn_pods, make_node, make_pod, run_decisions, spy_batch_path

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
KEYS = [ZONE, "rack", HOST]
SETTINGS = dict(deadline=None, derandomize=True, database=None)


def _owner_objects(n_workloads: int) -> ClusterObjects:
    from lightkube.resources.apps_v1 import ReplicaSet, StatefulSet
    from lightkube.resources.core_v1 import ReplicationController, Service

    def meta(name: str, ns: str) -> dict:
        return {"name": name, "namespace": ns}

    template = {"metadata": {}, "spec": {"containers": [{"name": "c"}]}}
    rss, sss, rcs = [], [], []
    for w in range(n_workloads):
        ns = "team" if w % 5 == 4 else "default"
        sel = {"matchLabels": {"app": f"w{w}"}}
        if w % 3 == 0:
            rss.append(ReplicaSet.from_dict({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta(f"rs-{w}", ns),
                                             "spec": {"selector": sel, "template": template}}))
        elif w % 3 == 1:
            sss.append(StatefulSet.from_dict({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta(f"ss-{w}", ns),
                                              "spec": {"selector": sel, "serviceName": "s", "template": template}}))
        else:
            rcs.append(ReplicationController.from_dict({"apiVersion": "v1", "kind": "ReplicationController",
                                                        "metadata": meta(f"rc-{w}", ns),
                                                        "spec": {"selector": {"app": f"w{w}"}}}))
    svcs = [Service.from_dict({"apiVersion": "v1", "kind": "Service", "metadata": meta("fe", "default"),
                               "spec": {"selector": {"tier": "fe"}}}),
            Service.from_dict({"apiVersion": "v1", "kind": "Service", "metadata": meta("none", "default"), "spec": {}})]
    return ClusterObjects(replica_sets=rss, stateful_sets=sss, replication_controllers=rcs, services=svcs)


def _owner_ref(w: int) -> dict:
    kind, api, prefix = [("ReplicaSet", "apps/v1", "rs"), ("StatefulSet", "apps/v1", "ss"),
                         ("ReplicationController", "v1", "rc")][w % 3]
    return {"apiVersion": api, "kind": kind, "name": f"{prefix}-{w}", "uid": f"uid-{prefix}-{w}", "controller": True}


def random_cluster(seed: int, n_nodes: int, n_pods: int, n_workloads: int, explicit_share: float):
    """Nodes, pods (some bound) and ClusterObjects; most pending pods are workload-owned (system defaults)."""
    from lightkube.models.meta_v1 import OwnerReference

    rng = random.Random(seed)
    nodes = []
    for i in range(n_nodes):
        labels = {}
        if rng.random() < 0.85:
            labels[ZONE] = rng.choice(["z1", "z2", "z3"]) if i else ""
        if rng.random() < 0.7:
            labels["rack"] = f"r{rng.randrange(6)}"
        labels["disk"] = rng.choice(["ssd", "hdd"])
        taints = None
        if rng.random() < 0.1:
            taints = [{"key": "dedicated", "value": "db", "effect": rng.choice(["NoSchedule", "PreferNoSchedule"])}]
        node = make_node(f"n{i}", labels=labels, taints=taints,
                         allocatable={"cpu": str(rng.choice([1, 2, 2, 4])), "memory": "8Gi",
                                      "pods": str(rng.choice([3, 6, 10]))})
        if rng.random() < 0.05:
            del node.metadata.labels[HOST]  # a node without a hostname label
        nodes.append(node)
    pods = []
    for j in range(n_pods):
        w = rng.randrange(n_workloads)
        ns = "team" if w % 5 == 4 else "default"
        labels = {"app": f"w{w}", "pod-template-hash": rng.choice(["h1", "h2"])}
        if rng.random() < 0.2:
            labels["tier"] = "fe"
        kw: dict = {}
        explicit = rng.random() < explicit_share
        if explicit:
            cs = []
            for key in rng.sample(KEYS, rng.randint(1, 3)):
                when = rng.choice(["DoNotSchedule", "ScheduleAnyway"])
                c = {"maxSkew": rng.choice([1, 1, 2, 3]), "topologyKey": key, "whenUnsatisfiable": when,
                     "labelSelector": rng.choice([{"matchLabels": {"app": f"w{w}"}}, {"matchLabels": {"tier": "fe"}},
                                                  {"matchExpressions": [{"key": "app", "operator": "Exists"}]}])}
                if when == "DoNotSchedule" and rng.random() < 0.3:
                    c["minDomains"] = rng.choice([2, 4, 50])
                if rng.random() < 0.3:
                    c["nodeAffinityPolicy"] = rng.choice(["Honor", "Ignore"])
                if rng.random() < 0.3:
                    c["nodeTaintsPolicy"] = rng.choice(["Honor", "Ignore"])
                if rng.random() < 0.2:
                    c["matchLabelKeys"] = ["pod-template-hash"]
                cs.append(c)
            kw["topologySpreadConstraints"] = cs
        if rng.random() < 0.15:
            kw["nodeSelector"] = {"disk": rng.choice(["ssd", "hdd"])}
        if rng.random() < 0.1:
            kw["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": ZONE, "operator": "In", "values": rng.sample(["z1", "z2", "z3"], 2)}]}]}}}
        if rng.random() < 0.2:
            kw["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        bound = f"n{rng.randrange(n_nodes)}" if rng.random() < 0.35 else None
        priority = rng.choice([0, 10]) if bound else rng.choice([0, 10, 1000])
        cpu = rng.choice([100, 200, 500, 900, 5000 if rng.random() < 0.05 else 300])
        p = make_pod(f"p{j}", ns, requests={"cpu": f"{cpu}m", "memory": "128Mi"}, labels=labels,
                     node_name=bound, priority=priority, creation_timestamp=f"2024-01-01T00:{j // 60 % 60:02d}:{j % 60:02d}Z",
                     **kw)
        if not explicit and rng.random() < 0.9:
            p.metadata.ownerReferences = [OwnerReference(**_owner_ref(w))]
        if bound and rng.random() < 0.1:
            p.metadata.deletionTimestamp = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
        pods.append(p)
    return nodes, pods, _owner_objects(n_workloads)


def _list_config():
    from kubenotes.scheduler.config import API_VERSION, KIND, load_config

    return load_config({"apiVersion": API_VERSION, "kind": KIND, "profiles": [{"pluginConfig": [
        {"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"},
            {"maxSkew": 2, "topologyKey": HOST, "whenUnsatisfiable": "ScheduleAnyway"}]}}]}]})


def _pts(fw):
    [pl] = [p for p in fw.filter_plugins if p.name() == "PodTopologySpread"]
    return pl


clusters = st.tuples(st.integers(0, 2**31 - 1), st.integers(10, 90), st.integers(40, 160), st.integers(1, 40),
                     st.sampled_from([0.0, 0.0, 0.3]))


@settings(max_examples=25, **SETTINGS)
@given(cluster=clusters, list_defaulting=st.booleans())
def test_batch_forms_equal_per_node(cluster, list_defaulting):
    """Every pod, node by node: PreFilter/PreScore states, Filter mask, raw and normalized scores are equal."""
    seed, n_nodes, n_pods, n_workloads, explicit = cluster
    rng = random.Random(seed)
    nodes_, pods, objects = random_cluster(seed, n_nodes, n_pods, n_workloads, explicit)
    sched = new_scheduler(nodes_, pods, config=_list_config() if list_defaulting else None, objects=objects,
                          seed=seed, trace=False)
    pl = _pts(sched.framework)
    arr = sched.snapshot.arrays()
    nodes = sched.snapshot.list()
    for _ in range(40):
        q = sched.queue.pop()
        if q is None:
            break
        pod = q.pod_info
        state = CycleState()
        _r, s = pl.pre_filter(state, pod, nodes)
        if s.is_success():
            got = state.read(filtering.PRE_FILTER_STATE_KEY)
            want = filtering.cal_pre_filter_state(pod, got.constraints, nodes)
            assert list(got.tp_value_to_match_num[0].items()) == list(want.tp_value_to_match_num[0].items())
            assert got.tp_value_to_match_num == want.tp_value_to_match_num
            assert [p.paths for p in got.critical_paths] == [p.paths for p in want.critical_paths]
            idx = rng.sample(range(len(nodes)), rng.randint(1, len(nodes)))
            mask = fast_forms(pl, pl.handle).filter_batch(state, pod, arr, np.array(idx, dtype=np.int64))
            assert mask.tolist() == [pl.filter(state, pod, nodes[i]).is_success() for i in idx]
        feasible = [ni for ni in nodes if rng.random() < 0.7] or nodes[:1]
        if pl.pre_score(state, pod, feasible).is_success():
            got = state.read(scoring.PRE_SCORE_STATE_KEY)
            require_all = bool(pod.pod.spec.topologySpreadConstraints) or list_defaulting
            want = scoring.pre_score_state(pod, got.constraints, require_all, feasible, nodes)
            assert got.ignored_nodes == want.ignored_nodes
            assert got.topology_value_to_pod_counts == want.topology_value_to_pod_counts
            assert got.topology_normalizing_weight == want.topology_normalizing_weight
            # Every node, also those in domains PreScore did not see (score() counts 0 there).
            every = fast_forms(pl, pl.handle).score_batch(state, pod, arr, arr.arange)
            assert every.tolist() == [pl.score(state, pod, ni)[0] for ni in nodes]
            idx = np.array([arr.index[ni.name] for ni in feasible], dtype=np.int64)
            raw = fast_forms(pl, pl.handle).score_batch(state, pod, arr, idx)
            per_node = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in feasible]
            assert raw.tolist() == [x.score for x in per_node]
            # The per-node Score reading hostname counts from the tables equals walking each node's pods.
            walked = CycleState()
            walked.write(scoring.PRE_SCORE_STATE_KEY, dataclasses.replace(got, host_tables=None))
            assert [pl.score(walked, pod, ni)[0] for ni in feasible] == [x.score for x in per_node]
            pl.normalize_score(state, pod, per_node)
            assert fast_forms(pl, pl.handle).normalize_score_batch(state, pod, raw).tolist() == [x.score for x in per_node]
        sched.queue.done(pod.uid)
        sched._assume(pod, rng.choice(nodes).name)
        if rng.random() < 0.25:
            victim = rng.choice(nodes)
            if victim.pods:
                sched.snapshot.remove_pod(rng.choice(victim.pods), victim.name)


@settings(max_examples=30, **SETTINGS)
@given(seed=st.integers(0, 2**31 - 1), n_nodes=st.integers(1, 40), rounds=st.integers(1, 12),
       slack=st.sampled_from([0, 4096]))
def test_matching_pod_counts_follow_adds_and_removes(seed, n_nodes, rounds, slack):
    """The replayed per-selector counts equal a fresh count after random adds and removals (and log rebuilds)."""
    rng = random.Random(seed)
    nodes_, pods, _objects = random_cluster(seed, n_nodes, 3 * n_nodes + 5, rng.randint(1, 12), 0.0)
    snap = new_snapshot(nodes_, [p for p in pods if p.spec.nodeName])
    arr = snap.arrays()
    index = fast_pts.MatchingPodCounts.of(arr)
    index.LOG_SLACK_ROWS = slack  # 0: the log is rebuilt whenever it outgrows 4x the live rows
    selectors = [common.label_selector({"matchLabels": {"app": f"w{w}"}}) for w in range(4)]
    selectors += [common.label_selector({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}),
                  common.label_selector({"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["w1"]}]}),
                  common.label_selector({"matchExpressions": [{"key": "app", "operator": "In", "values": ["w0", "w2"]},
                                                              {"key": "tier", "operator": "DoesNotExist"}]})]
    pending = [PodInfo(p) for p in pods if not p.spec.nodeName]
    for _ in range(rounds):
        for sel in rng.sample(selectors, rng.randint(1, len(selectors))):
            for ns in ("default", "team"):
                want = [common.count_pods_match_selector(ni.pods, sel, ns) for ni in snap.list()]
                assert fast_pts.count_pods_match_selector_per_node(arr, sel, ns).tolist() == want
                assert index.counts(ns, sel).tolist() == want
        churn_pods(rng, snap, pending, rng.randint(1, 10), 0.6)
        if rng.random() < 0.2:
            index._compact()  # a rebuilt log gives the same counts


def test_matching_pod_counts_drop_least_recent_tables(monkeypatch):
    """With more selectors than tables, a dropped table is rebuilt from the log with the same counts."""
    monkeypatch.setattr(fast_pts.MatchingPodCounts, "MAX_TABLES", 2)
    nodes_, pods, _objects = random_cluster(7, 12, 60, 6, 0.0)
    snap = new_snapshot(nodes_, [p for p in pods if p.spec.nodeName])
    arr = snap.arrays()
    sels = [common.label_selector({"matchLabels": {"app": f"w{w}"}}) for w in range(6)]
    for rnd in range(3):
        for sel in sels:
            want = [common.count_pods_match_selector(ni.pods, sel, "default") for ni in snap.list()]
            assert fast_pts.count_pods_match_selector_per_node(arr, sel, "default").tolist() == want
        snap.add_pod(PodInfo(make_pod(f"extra{rnd}", labels={"app": "w0"})), f"n{rnd}")
    assert len(fast_pts.MatchingPodCounts.of(arr)._tables) == 2


def test_matching_pod_counts_current_only_until_a_placement():
    """A table handle gives its counts until a pod is placed or removed; then Score counts again."""
    nodes_, pods, _objects = random_cluster(11, 8, 50, 4, 0.0)
    snap = new_snapshot(nodes_, [p for p in pods if p.spec.nodeName])
    index = fast_pts.MatchingPodCounts.of(snap.arrays())
    sel = common.label_selector({"matchLabels": {"app": "w1"}})
    handle = index.table("default", sel)
    assert index.current(handle) is handle[2]
    assert index.current(handle).tolist() == [common.count_pods_match_selector(ni.pods, sel, "default")
                                              for ni in snap.list()]
    snap.add_pod(PodInfo(make_pod("placed", labels={"app": "w0"})), "n0")  # another selector's pod: still stale
    assert index.current(handle) is None
    handle = index.table("default", sel)
    assert index.current(handle) is not None
    snap.remove_pod(snap.get("n0").pods[-1], "n0")
    assert index.current(handle) is None


def test_default_constraints_shared_per_selector_and_parsed_defaults():
    """Pods with the same default selector share one constraint list; another selector or parse gets its own."""
    nodes_, pods, objects = random_cluster(5, 4, 60, 6, 0.0)
    infos = [PodInfo(p) for p in pods]
    defaults = [{"maxSkew": 3, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}]
    parsed = common.filter_topology_spread_constraints(defaults, {}, "ScheduleAnyway")
    built = {}
    for p in infos:
        got = common.build_default_constraints(defaults, p, objects, "ScheduleAnyway", parsed)
        assert got == common.build_default_constraints(defaults, p, objects, "ScheduleAnyway")  # as unshared
        if got:
            built.setdefault(id(got[0].selector), []).append(got)
    assert len(built) > 1
    for lists in built.values():
        assert all(b is lists[0] for b in lists)
    ids = {id(lists[0]) for lists in built.values()}
    assert len(ids) == len(built)
    other = common.filter_topology_spread_constraints(defaults, {}, "ScheduleAnyway")
    p = next(p for p in infos if common.build_default_constraints(defaults, p, objects, "ScheduleAnyway", parsed))
    assert common.build_default_constraints(defaults, p, objects, "ScheduleAnyway", other) is not \
        common.build_default_constraints(defaults, p, objects, "ScheduleAnyway", parsed)


def _scan_services(objects, pod_info):
    return [s for s in objects.services if (s.metadata.namespace or "default") == pod_info.namespace
            and s.spec.selector is not None and all(pod_info.labels.get(k) == v for k, v in s.spec.selector.items())]


def test_default_selector_index_follows_the_object_lists():
    """Looked-up Services and owners equal a scan of the lists, also after a list grows."""
    from lightkube.resources.core_v1 import Service

    nodes_, pods, objects = random_cluster(3, 5, 80, 12, 0.0)
    infos = [PodInfo(p) for p in pods]
    first = [str(common.default_selector(p, objects)) for p in infos]
    assert sum(1 for s in first if "app" in s) > 20
    for p in infos:
        assert common.get_pod_services(objects, p) == _scan_services(objects, p)
    objects.services.append(Service.from_dict({"apiVersion": "v1", "kind": "Service",
                                               "metadata": {"name": "w1", "namespace": "default"},
                                               "spec": {"selector": {"app": "w1"}}}))
    for p in infos:
        assert common.get_pod_services(objects, p) == _scan_services(objects, p)
    after = [str(common.default_selector(p, objects)) for p in infos]
    changed = [i for i, p in enumerate(infos) if p.labels.get("app") == "w1" and p.namespace == "default"]
    assert changed and all(after[i] != first[i] for i in changed)
    assert all(after[i] == first[i] for i in range(len(infos)) if i not in changed)


def test_owner_replaced_in_place_is_read_again():
    """An owner replaced in its list slot (same length) gives its new selector, as a scan would."""
    from lightkube.resources.apps_v1 import ReplicaSet

    _nodes, pods, objects = random_cluster(5, 5, 60, 6, 0.0)
    owned = [PodInfo(p) for p in pods if p.metadata.ownerReferences
             and p.metadata.ownerReferences[0].name == "rs-0" and p.metadata.namespace == "default"]
    assert owned
    before = str(common.default_selector(owned[0], objects))
    pos = [i for i, rs in enumerate(objects.replica_sets) if rs.metadata.name == "rs-0"][0]
    objects.replica_sets[pos] = ReplicaSet.from_dict({
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs-0", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "w0", "extra": "yes"}},
                 "template": {"metadata": {}, "spec": {"containers": [{"name": "c"}]}}}})
    after = str(common.default_selector(owned[0], objects))
    assert before != after and "extra" in after
    objects.replica_sets[pos] = ReplicaSet.from_dict({
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "other", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "w0"}}, "template": {"metadata": {}, "spec": {"containers": [{"name": "c"}]}}}})
    assert "app" not in str(common.default_selector(owned[0], objects))  # no owner found: no owner selector


@settings(max_examples=15, **SETTINGS)
@given(cluster=st.tuples(st.integers(0, 2**31 - 1), st.integers(10, 60), st.integers(40, 140), st.integers(1, 30),
                         st.sampled_from([0.0, 0.0, 0.25])),
       list_defaulting=st.booleans())
def test_untraced_scheduler_decides_as_traced(cluster, list_defaulting):
    """Same chosen node, nomination, victims and FailedScheduling message per attempt; PodTopologySpread batched."""
    seed, n_nodes, n_pods, n_workloads, explicit = cluster
    nodes_, pods, objects = random_cluster(seed, n_nodes, n_pods, n_workloads, explicit)
    config = _list_config() if list_defaulting else None

    def outcome(trace):
        return run_decisions(new_scheduler(nodes_, pods, config=config, objects=objects, seed=seed, trace=trace))

    with pytest.MonkeyPatch.context() as mp:
        used = spy_batch_path(mp, "PodTopologySpread")
        traced = outcome(True)
        assert not used["filter"] and not used["score"]
        fast = outcome(False)
    assert traced == fast
    with pytest.MonkeyPatch.context() as mp:  # the traced Score walking every node's pods decides alike
        mp.setattr(fast_pts.MatchingPodCounts, "count_on", lambda self, handle, node_info: None)
        assert outcome(True) == traced
    if used["score"]:
        # Scoring with PodTopologySpread (system defaults included) never leaves the batch path.
        assert all(used["score"])
    if list_defaulting and used["filter"]:
        assert any(used["filter"])


def test_replicaset_pods_stay_on_the_batch_path():
    """Pods owned by ReplicaSets get the system defaults and are filtered and scored in batches."""
    nodes_, pods, objects = random_cluster(11, 30, 120, 9, 0.0)
    assert any(p.metadata.ownerReferences for p in pods if not p.spec.nodeName)
    with pytest.MonkeyPatch.context() as mp:
        used = spy_batch_path(mp, "PodTopologySpread")
        traces = new_scheduler(nodes_, pods, objects=objects, seed=1, trace=False).run()
    calls = {"score": len(used["score"]), "none": used["score"].count(False)}
    assert traces and calls["score"] > 20 and calls["none"] == 0


def test_matching_pod_counts_after_a_counted_pod_leaves_and_comes_back():
    """Pods only appended since the last count are logged alone; when the last counted pod left and came back
    behind a newcomer after another pod left, the node is recounted (same pod in place, other first pods)."""
    snap = new_snapshot([make_node("n0"), make_node("n1")], [])
    arr = snap.arrays()
    index = fast_pts.MatchingPodCounts.of(arr)
    web = common.label_selector({"matchLabels": {"app": "web"}})

    def add(name, app):
        snap.add_pod(PodInfo(make_pod(name, labels={"app": app}, node_name="n0")), "n0")

    def check(expected):
        got = index.counts("default", web).tolist()
        assert got == [common.count_pods_match_selector(ni.pods, web, "default") for ni in snap.list()] == expected

    for name, app in (("a", "web"), ("b", "api"), ("c", "web")):
        add(name, app)
    check([2, 0])
    add("d", "web")                                    # appended only
    check([3, 0])
    a, b, c, d = snap.get("n0").pods
    snap.remove_pod(d, "n0")
    snap.remove_pod(a, "n0")
    add("e", "api")
    snap.add_pod(d, "n0")                              # d is again where the last counted pod was
    add("f", "api")
    assert snap.get("n0").pods[3] is d
    check([2, 0])
