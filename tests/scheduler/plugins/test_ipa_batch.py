"""InterPodAffinity's whole-snapshot index (kubenotes only) against the walk over every pod it replaces.

PreFilter and PreScore read their counters from ``_PodIndex`` (kubenotes.scheduler.fast.interpodaffinity) when the
snapshot has arrays; these tests hold the result to the per-pod walk
(``_pre_filter_counts``/``_pre_score_weights``, upstream's
``getExistingAntiAffinityCounts``, ``getIncomingAffinityAntiAffinityCounts``
and PreScore's loop) pod after pod while pods come and go, and hold the
traced and untraced schedulers to the same decisions.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from kubenotes.scheduler.fast.interpodaffinity import InterPodAffinityCounts
from kubenotes.scheduler.fast.registry import fast_forms
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import NodeScore
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins import interpodaffinity as ipa
from kubenotes.scheduler.schedule_one import new_scheduler
from kubenotes.scheduler.snapshot import ClusterObjects
from kubenotes.scheduler.testing import make_node, make_pod, run_decisions

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
APPS = ["web", "db", "cache", "batch"]


def _term(rng: random.Random, app: str, key: str) -> dict:
    t: dict = {"labelSelector": rng.choice([{"matchLabels": {"app": app}},
                                            {"matchExpressions": [{"key": "app", "operator": "In",
                                                                   "values": rng.sample(APPS, 2)}]},
                                            {"matchLabels": {"tier": "fe"}}]),
               "topologyKey": key}
    r = rng.random()
    if r < 0.15:
        t["namespaces"] = ["team"]
    elif r < 0.3:
        t["namespaceSelector"] = rng.choice([{}, {"matchLabels": {"env": "prod"}}])
    return t


def random_affinity_cluster(rng: random.Random, n_nodes: tuple[int, int] = (20, 60), n_pods: tuple[int, int] = (80, 150)):
    """Nodes (some without a zone, one with an empty zone) and pods with every kind of pod (anti-)affinity term."""
    nodes = []
    count = rng.randint(*n_nodes)
    for i in range(count):
        labels = {HOST: f"n{i}"}
        if rng.random() < 0.85:
            labels[ZONE] = rng.choice(["z1", "z2", "z3"]) if i else ""
        if rng.random() < 0.6:
            labels["rack"] = f"r{rng.randrange(5)}"
        nodes.append(make_node(f"n{i}", allocatable={"cpu": "1", "memory": "8Gi", "pods": str(rng.choice([2, 3, 5]))},
                               labels=labels))
    pods = []
    for j in range(rng.randint(*n_pods)):
        app = rng.choice(APPS)
        labels = {"app": app}
        if rng.random() < 0.3:
            labels["tier"] = "fe"
        aff: dict = {}
        keys = [ZONE, HOST, "rack"]
        if rng.random() < 0.2:
            aff.setdefault("podAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
                _term(rng, rng.choice(APPS), rng.choice(keys)) for _ in range(rng.choice([1, 1, 2]))]
        if rng.random() < 0.35:
            aff.setdefault("podAntiAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
                _term(rng, app, rng.choice([HOST, HOST, ZONE, "rack"]))]
        if rng.random() < 0.25:
            aff.setdefault("podAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "podAffinityTerm": _term(rng, rng.choice(APPS), rng.choice(keys))}]
        if rng.random() < 0.25:
            aff.setdefault("podAntiAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "podAffinityTerm": _term(rng, app, rng.choice(keys))}]
        bound = f"n{rng.randrange(count)}" if rng.random() < 0.35 else None
        pods.append(make_pod(f"p{j}", "team" if rng.random() < 0.2 else "default",
                             requests={"cpu": f"{rng.choice([100, 300, 600])}m", "memory": "256Mi"},
                             labels=labels, node_name=bound, priority=rng.choice([0, 0, 100, 1000]),
                             affinity=aff or None))
    objects = ClusterObjects(namespaces={"default": {"env": "prod"}, "team": {"env": "dev"}})
    return nodes, pods, objects


def _ipa(fw):
    [pl] = [p for p in fw.filter_plugins if p.name() == ipa.NAME]
    return pl


@pytest.mark.parametrize("hard_weight", [1, 0, 7])
@pytest.mark.parametrize("seed", range(6))
def test_index_matches_the_walk_over_every_pod(seed, hard_weight):
    """PreFilter counters and PreScore weights from the index equal the per-pod walk, while pods come and go."""
    rng = random.Random(seed)
    nodes, pods, objects = random_affinity_cluster(rng)
    sched = new_scheduler(nodes, pods, objects=objects, seed=seed, trace=False)
    pl = _ipa(sched.framework)
    pl.hard_pod_affinity_weight = hard_weight
    snap = sched.snapshot
    all_nodes = snap.list()
    arr = snap.arrays()
    seen = {"existing": 0, "affinity": 0, "anti": 0, "score": 0}
    for _ in range(70):
        q = sched.queue.pop()
        if q is None:
            break
        pod = q.pod_info
        state = CycleState()
        _r, s = pl.pre_filter(state, pod, all_nodes)
        if s.is_success():
            got = state.read(ipa.PRE_FILTER_STATE_KEY)
            want = ipa.PreFilterState(pod_info=pod, affinity_terms=got.affinity_terms,
                                      anti_affinity_terms=got.anti_affinity_terms,
                                      namespace_labels=got.namespace_labels)
            pl._pre_filter_counts(want, pod, all_nodes)
            assert got.existing_anti_affinity_counts == want.existing_anti_affinity_counts
            assert got.affinity_counts == want.affinity_counts
            assert got.anti_affinity_counts == want.anti_affinity_counts
            mask = fast_forms(pl, pl.handle).filter_batch(state, pod, arr, arr.arange)
            assert mask.tolist() == [pl.filter(state, pod, ni).is_success() for ni in all_nodes]
            seen["existing"] += bool(got.existing_anti_affinity_counts)
            seen["affinity"] += bool(got.affinity_counts)
            seen["anti"] += bool(got.anti_affinity_counts)
        else:
            # Skip: the walk finds nothing either.
            want = ipa.PreFilterState(pod_info=pod, namespace_labels=pl._namespace_labels(pod.namespace))
            pl._pre_filter_counts(want, pod, all_nodes)
            assert not want.existing_anti_affinity_counts and not pod.required_affinity_terms
        feasible = [ni for ni in all_nodes if rng.random() < 0.7] or all_nodes[:1]
        ps = pl.pre_score(state, pod, feasible)
        has = bool(pod.preferred_affinity_terms or pod.preferred_anti_affinity_terms)
        want_s = ipa.PreScoreState()
        ns = pl._namespaces()
        aff = [ipa.WeightedAffinityTerm(ipa._merge_namespaces(w.term, ns), w.weight) for w in pod.preferred_affinity_terms]
        anti = [ipa.WeightedAffinityTerm(ipa._merge_namespaces(w.term, ns), w.weight)
                for w in pod.preferred_anti_affinity_terms]
        walk = all_nodes if has else snap.have_pods_with_affinity_list()
        contributed = pl._pre_score_weights(want_s, pod, pl._namespace_labels(pod.namespace), aff, anti, walk, has)
        assert ps.is_success() == contributed
        if contributed:
            got_s = state.read(ipa.PRE_SCORE_STATE_KEY)
            assert got_s.topology_score == want_s.topology_score
            idx = np.array([arr.index[ni.name] for ni in feasible], dtype=np.int64)
            raw = fast_forms(pl, pl.handle).score_batch(state, pod, arr, idx)
            per_node = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in feasible]
            assert raw.tolist() == [x.score for x in per_node]
            pl.normalize_score(state, pod, per_node)
            assert fast_forms(pl, pl.handle).normalize_score_batch(state, pod, raw).tolist() == [x.score for x in per_node]
            seen["score"] += 1
        sched.queue.done(pod.uid)
        sched._assume(pod, rng.choice(all_nodes).name)
        if rng.random() < 0.25:  # take a pod away again, so counts go down too
            victim = rng.choice(all_nodes)
            if victim.pods:
                snap.remove_pod(rng.choice(victim.pods), victim.name)
    assert seen["existing"] and seen["anti"] and seen["score"]


def test_index_recounts_only_changed_nodes():
    """After a pod is added to one node, the next sync recounts that node alone; removing it restores the counts."""
    nodes = [make_node(f"n{i}", labels={HOST: f"n{i}"}) for i in range(4)]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}}
    pods = [make_pod("a", labels={"app": "web"}, node_name="n1", affinity=anti)]
    sched = new_scheduler(nodes, pods, trace=False)
    pl = _ipa(sched.framework)
    arr = sched.snapshot.arrays()
    ix = InterPodAffinityCounts.pod_index(arr)
    assert ix.class_nodes[0] == {1: 1} and ix.entry_nodes[0] == {1: 1}
    recounted = []
    real = ix._recount
    ix._recount = lambda i: (recounted.append(i), real(i))
    extra = PodInfo(make_pod("b", labels={"app": "web"}, node_name="n3", affinity=anti))
    sched.snapshot.add_pod(extra, "n3")
    ix.sync()
    assert recounted == [3]
    assert ix.class_nodes[0] == {1: 1, 3: 1} and ix.entry_nodes[0] == {1: 1, 3: 1}
    sched.snapshot.remove_pod(extra, "n3")
    ix.sync()
    assert ix.class_nodes[0] == {1: 1} and ix.entry_nodes[0] == {1: 1}
    s = ipa.PreFilterState(pod_info=extra, namespace_labels={})
    ix.pre_filter_counts(s, extra)
    assert s.existing_anti_affinity_counts == {(HOST, "n1"): 1}


def test_index_counts_appended_pods_and_recounts_after_a_removal():
    """Pods only appended since the last sync are counted on top; a removal followed by appends (the node has
    more pods than counted, but not the same first ones) is recounted from the node's pods."""
    nodes = [make_node(f"n{i}", labels={HOST: f"n{i}"}) for i in range(2)]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}}

    def pod_info(name, app, affinity=None):
        return PodInfo(make_pod(name, labels={"app": app}, node_name="n0", affinity=affinity))

    a, b = pod_info("a", "x"), pod_info("b", "web", anti)
    sched = new_scheduler(nodes, [a.pod, b.pod], trace=False)
    pl = _ipa(sched.framework)
    arr = sched.snapshot.arrays()
    ix = InterPodAffinityCounts.pod_index(arr)
    [a, b] = sched.snapshot.get("n0").pods

    def counts(index):
        cls = {(index.class_reps[c].labels["app"]): dict(nodes_) for c, nodes_ in enumerate(index.class_nodes)}
        ent = sorted((index.entries[e][0], dict(nodes_)) for e, nodes_ in enumerate(index.entry_nodes))
        return {k: v for k, v in cls.items() if v}, [(k, v) for k, v in ent if v]

    def fresh():
        from kubenotes.scheduler.fast.interpodaffinity import _PodIndex
        other = _PodIndex(arr)
        other.sync()
        return counts(other)

    sched.snapshot.add_pod(pod_info("c", "y", anti), "n0")        # appended only
    ix.sync()
    assert counts(ix) == fresh() and counts(ix)[0] == {"x": {0: 1}, "web": {0: 1}, "y": {0: 1}}
    sched.snapshot.remove_pod(a, "n0")                              # a removal, then appends:
    sched.snapshot.add_pod(pod_info("d", "z"), "n0")                # more pods than counted, first ones moved
    sched.snapshot.add_pod(pod_info("e", "web", anti), "n0")
    ix.sync()
    assert counts(ix) == fresh() and counts(ix)[0] == {"web": {0: 2}, "y": {0: 1}, "z": {0: 1}}
    assert counts(ix)[1] == [(0, {0: 3})]   # three pods with the required anti-affinity term
    # The last counted pod leaves and comes back behind a newcomer, after another pod left: the node has
    # more pods than counted and the same pod where the last counted one was, yet not the same first ones.
    b_, c_, d_, e_ = sched.snapshot.get("n0").pods
    sched.snapshot.remove_pod(e_, "n0")
    sched.snapshot.remove_pod(c_, "n0")
    sched.snapshot.add_pod(pod_info("f", "x"), "n0")
    sched.snapshot.add_pod(e_, "n0")
    sched.snapshot.add_pod(pod_info("g", "x"), "n0")
    assert sched.snapshot.get("n0").pods[3] is e_
    ix.sync()
    assert counts(ix) == fresh() and counts(ix)[0] == {"web": {0: 2}, "z": {0: 1}, "x": {0: 2}}


@pytest.mark.parametrize("seed", range(8))
def test_trace_false_makes_identical_decisions(seed):
    """Traced and untraced schedulers bind, preempt, nominate and report alike on pod (anti-)affinity workloads."""
    rng = random.Random(900 + seed)
    nodes, pods, objects = random_affinity_cluster(rng)

    def outcome(trace):
        return run_decisions(new_scheduler(nodes, pods, objects=objects, seed=seed, trace=trace))[:3]

    traced = outcome(True)
    assert traced == outcome(False)
    assert any(t[1] for t in traced[0]) and any(not t[1] for t in traced[0])


@pytest.mark.parametrize("seed", range(4))
def test_scores_match_a_snapshot_without_arrays(seed):
    """The traced scheduler's per-plugin scores are the same whether PreFilter/PreScore use the index or the walk."""
    rng = random.Random(50 + seed)
    nodes, pods, objects = random_affinity_cluster(rng, n_nodes=(10, 20), n_pods=(40, 70))

    def outcome(walk):
        s = new_scheduler(nodes, pods, objects=objects, seed=seed, trace=True)
        if walk:
            import kubenotes.scheduler.plugins.interpodaffinity as mod

            orig = mod.snapshot_arrays
            mod.snapshot_arrays = lambda *_a: None
            try:
                ts = s.run()
            finally:
                mod.snapshot_arrays = orig
        else:
            ts = s.run()
        return [t.to_dict() for t in ts]

    assert outcome(False) == outcome(True)
