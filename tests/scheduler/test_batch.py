"""The untraced batch path (kubenotes/scheduler/batch.py) against the per-node code it stands for."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kubenotes.scheduler.arrays import SnapshotArrays
from kubenotes.scheduler.batch import select_host_index
from kubenotes.scheduler.fast.helper import default_normalize_score_batch
from kubenotes.scheduler.fast.registry import fast_forms
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code, NodeScore, NominatingInfo
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.framework.runtime import NodePluginScores
from kubenotes.scheduler.plugins.helper import default_normalize_score
from kubenotes.scheduler.schedule_one import new_scheduler, select_host
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import churn_pods, make_node, make_pod, run_decisions, spy_batch_path


def _assert_arrays_match(arr: SnapshotArrays) -> None:
    for i, ni in enumerate(arr.node_infos):
        assert arr.index[ni.name] == i
        assert arr.requested_milli_cpu[i] == ni.requested.milli_cpu
        assert arr.requested_memory_bytes[i] == ni.requested.memory_bytes
        assert arr.requested_ephemeral_storage_bytes[i] == ni.requested.ephemeral_storage_bytes
        assert arr.non_zero_milli_cpu[i] == ni.non_zero_requested.milli_cpu
        assert arr.non_zero_memory_bytes[i] == ni.non_zero_requested.memory_bytes
        assert arr.num_pods[i] == len(ni.pods)
        assert arr.num_used_ports[i] == len(ni.used_ports)
        assert arr.num_pods_with_affinity[i] == len(ni.pods_with_affinity)
        assert arr.num_pods_with_required_anti_affinity[i] == len(ni.pods_with_required_anti_affinity)
        assert arr.alloc_milli_cpu[i] == ni.allocatable.milli_cpu
        assert arr.allowed_pod_number[i] == ni.allocatable.allowed_pod_number
        alloc, used = arr.scalar("example.com/gpu")
        assert alloc[i] == ni.allocatable.scalar_resources.get("example.com/gpu", 0)
        assert used[i] == ni.requested.scalar_resources.get("example.com/gpu", 0)


def _pre_filtered(sched, n: int):
    """Up to ``n`` pods popped from ``sched``'s queue, each as (QueuedPodInfo, CycleState after PreFilter, status);
    the caller marks each done (and may place it) before taking the next."""
    for _ in range(n):
        q = sched.queue.pop()
        if q is None:
            return
        state = CycleState()
        _r, status, _skip = sched.framework.run_pre_filter_plugins(state, q.pod_info)
        yield q, state, status


@pytest.mark.parametrize("seed", range(5))
def test_arrays_follow_assume_and_remove(seed, random_large_cluster):
    rng = random.Random(seed)
    ns, pods = random_large_cluster(rng)
    snap = new_snapshot(ns, pods)
    arr = snap.arrays()
    _assert_arrays_match(arr)
    placed = []
    for j, p in enumerate(pods):
        pi = PodInfo(p)
        if pi.node_name:
            continue
        node = rng.choice(snap.list()).name
        snap.add_pod(pi, node)
        placed.append((pi, node))
        if placed and rng.random() < 0.3:
            q, n = placed.pop(rng.randrange(len(placed)))
            snap.remove_pod(q, n)
    _assert_arrays_match(arr)
    assert snap.have_pods_with_affinity_list() == [n for n in snap.list() if n.pods_with_affinity]
    assert snap.have_pods_with_required_anti_affinity_list() == [
        n for n in snap.list() if n.pods_with_required_anti_affinity]


def test_clones_do_not_touch_the_arrays():
    snap = new_snapshot([make_node("n1")], [])
    arr = snap.arrays()
    c = snap.get("n1").clone()
    c.add_pod(PodInfo(make_pod("p", requests={"cpu": "1"}, node_name="n1")))
    assert arr.requested_milli_cpu.tolist() == [0]


@pytest.mark.parametrize("seed", range(200))
def test_select_host_index_matches_select_host(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 300)
    top = rng.randint(0, 5)
    totals = [rng.randint(max(0, top - rng.choice([0, 1, 3])), top) for _ in range(n)]
    a, b = random.Random(seed), random.Random(seed)
    want, _ = select_host([NodePluginScores(str(i), [], t) for i, t in enumerate(totals)], 3, a)
    got = select_host_index(np.array(totals, dtype=np.int64), b)
    assert str(got) == want
    assert a.getstate() == b.getstate()


@pytest.mark.parametrize("seed", range(150))
def test_select_host_index_tie_shares(seed):
    """From a few to nearly all nodes tied: the pick in preorder, pops that reach heap slots still holding a
    best entry, and (past half the nodes) the heap replay."""
    rng = random.Random(seed)
    n = rng.randint(2, 1100)
    share = rng.choice([0.02, 0.1, 0.3, 0.5, 0.8, 0.95])
    totals = [2 if rng.random() < share else rng.randint(0, 1) for _ in range(n)]
    a, b = random.Random(seed), random.Random(seed)
    want, _ = select_host([NodePluginScores(str(i), [], t) for i, t in enumerate(totals)], 3, a)
    got = select_host_index(np.array(totals, dtype=np.int64), b)
    assert str(got) == want
    assert a.getstate() == b.getstate()


def test_select_host_index_first_leaf_beside_a_parent():
    """Slot n/2 - 1 has one child when n is even: the pops reach its sibling, the first leaf, which kept its
    best entry because the sift-down from their parent took the child's."""
    totals = [2] * 60
    for i, t in ((5, 0), (6, 0), (10, 0), (14, 1), (16, 1), (17, 0), (20, 1), (24, 0), (29, 1), (42, 0)):
        totals[i] = t
    a, b = random.Random(0.5359782329808135), random.Random(0.5359782329808135)
    want, _ = select_host([NodePluginScores(str(i), [], t) for i, t in enumerate(totals)], 3, a)
    assert str(select_host_index(np.array(totals, dtype=np.int64), b)) == want
    assert a.getstate() == b.getstate()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("seed", range(20))
def test_default_normalize_score_batch(seed, reverse):
    rng = random.Random(seed)
    raw = [rng.choice([0, 0, 1, 3, 7, 250]) for _ in range(rng.randint(1, 40))]
    lst = [NodeScore(str(i), s) for i, s in enumerate(raw)]
    default_normalize_score(100, reverse, lst)
    assert default_normalize_score_batch(100, reverse, np.array(raw, dtype=np.int64)).tolist() == [x.score for x in lst]


@pytest.mark.parametrize("seed", range(6))
def test_plugin_batch_methods_match_per_node(seed, random_large_cluster):
    """Every batch Filter/Score/NormalizeScore equals the per-node method on every node, pod after pod."""
    rng = random.Random(seed)
    ns, pods = random_large_cluster(rng)
    sched = new_scheduler(ns, pods, seed=seed, trace=False)
    fw = sched.framework
    arr = sched.snapshot.arrays()
    idx = arr.arange
    nodes = sched.snapshot.list()
    checked = 0
    for q, state, s in _pre_filtered(sched, 40):
        pod = q.pod_info
        if s.is_success():
            for pl in fw.filter_plugins:
                forms = fast_forms(pl, fw)
                if pl.name() in state.skip_filter_plugins or getattr(forms, "filter_batch", None) is None:
                    continue
                mask = forms.filter_batch(state, pod, arr, idx)
                assert mask.tolist() == [pl.filter(state, pod, ni).is_success() for ni in nodes], pl.name()
                checked += 1
        if fw.run_pre_score_plugins(state, pod, nodes).is_success():
            for pl in fw.score_plugins:
                forms = fast_forms(pl, fw)
                if pl.name() in state.skip_score_plugins or getattr(forms, "score_batch", None) is None:
                    continue
                raw = forms.score_batch(state, pod, arr, idx)
                per_node = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in nodes]
                assert raw.tolist() == [x.score for x in per_node], pl.name()
                ext = pl.score_extensions()
                if ext is not None:
                    ext.normalize_score(state, pod, per_node)
                    assert fast_forms(ext, fw).normalize_score_batch(state, pod, raw).tolist() == \
                        [x.score for x in per_node], pl.name()
                checked += 1
        sched.queue.done(pod.uid)
        # Place the pod somewhere feasible-or-not so the node totals move on.
        sched._assume(pod, rng.choice(nodes).name)
    assert checked > 100


# --------------------------------------------------------------------------- PodTopologySpread
# Random clusters for PodTopologySpread's batch forms (kubenotes only, no upstream counterpart):
# explicit constraints over several keys (some nodes lack a key, one has an empty value), both
# whenUnsatisfiable values, inclusion policies, minDomains, matchLabelKeys, and ReplicaSet-owned
# pods that get the system default constraints; terminating pods and a second namespace.
SPREAD_KEYS = ["topology.kubernetes.io/zone", "rack", "kubernetes.io/hostname"]


def _spread_objects():
    from lightkube.resources.apps_v1 import ReplicaSet
    from lightkube.resources.core_v1 import Service

    from kubenotes.scheduler.snapshot import ClusterObjects

    def rs(name, app, ns="default"):
        return ReplicaSet.from_dict({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                     "metadata": {"name": name, "namespace": ns},
                                     "spec": {"selector": {"matchLabels": {"app": app}},
                                              "template": {"metadata": {}, "spec": {"containers": [{"name": "c"}]}}}})

    svc = Service.from_dict({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc-y", "namespace": "default"},
                             "spec": {"selector": {"tier": "fe"}}})
    return ClusterObjects(replica_sets=[rs("rs-x", "x"), rs("rs-y", "y"), rs("rs-z", "z", "team")], services=[svc])


def random_spread_cluster(rng: random.Random, n_nodes: tuple[int, int] = (30, 140), n_pods: tuple[int, int] = (90, 160)):
    """Nodes, pods and ClusterObjects exercising every PodTopologySpread path."""
    import datetime

    from lightkube.models.meta_v1 import OwnerReference

    ns = []
    count = rng.randint(*n_nodes)
    for i in range(count):
        labels = {}
        if rng.random() < 0.9:
            labels["topology.kubernetes.io/zone"] = rng.choice(["z1", "z2", "z3", "z4"]) if i else ""
        if rng.random() < 0.8:
            labels["rack"] = f"r{rng.randrange(12)}"
        labels["disk"] = rng.choice(["ssd", "hdd"])
        taints = None
        if rng.random() < 0.15:
            taints = [{"key": "dedicated", "value": "db", "effect": rng.choice(["NoSchedule", "PreferNoSchedule"])}]
        ns.append(make_node(f"n{i}", allocatable={"cpu": str(rng.choice([1, 1, 2])), "memory": "8Gi",
                                                   "pods": str(rng.choice([2, 3, 6]))},
                            labels=labels, taints=taints))
    pods = []
    for j in range(rng.randint(*n_pods)):
        app = rng.choice(["x", "y", "z"])
        namespace = "team" if rng.random() < 0.15 else "default"
        labels = {"app": app, "pod-template-hash": rng.choice(["h1", "h2"])}
        if rng.random() < 0.3:
            labels["tier"] = "fe"
        kw: dict = {}
        kind = rng.random()
        if kind < 0.45:
            cs = []
            for key in rng.sample(SPREAD_KEYS, rng.randint(1, 3)):
                when = rng.choice(["DoNotSchedule", "ScheduleAnyway"])
                c = {"maxSkew": rng.choice([1, 1, 2, 3]), "topologyKey": key, "whenUnsatisfiable": when,
                     "labelSelector": rng.choice([{"matchLabels": {"app": app}},
                                                  {"matchExpressions": [{"key": "app", "operator": "In",
                                                                         "values": rng.sample(["x", "y", "z"], 2)}]},
                                                  {"matchLabels": {"tier": "fe"}}])}
                if when == "DoNotSchedule" and rng.random() < 0.3:
                    c["minDomains"] = rng.choice([2, 4, 5, 30])
                if rng.random() < 0.3:
                    c["nodeAffinityPolicy"] = rng.choice(["Honor", "Ignore"])
                if rng.random() < 0.3:
                    c["nodeTaintsPolicy"] = rng.choice(["Honor", "Ignore"])
                if rng.random() < 0.2:
                    c["matchLabelKeys"] = ["pod-template-hash"]
                cs.append(c)
            kw["topologySpreadConstraints"] = cs
        if rng.random() < 0.2:
            kw["nodeSelector"] = {"disk": rng.choice(["ssd", "hdd"])}
        if rng.random() < 0.15:
            kw["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                       "values": rng.sample(["z1", "z2", "z3", "z4"], 3)}]}]}}}
        if rng.random() < 0.3:
            kw["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        bound = f"n{rng.randrange(count)}" if rng.random() < 0.45 else None
        priority = rng.choice([0, 10]) if bound else rng.choice([0, 10, 1000, 1000])
        p = make_pod(f"p{j}", namespace, requests={"cpu": f"{rng.choice([100, 300, 700])}m", "memory": "256Mi"},
                     labels=labels, node_name=bound, priority=priority, **kw)
        if kind >= 0.45 and rng.random() < 0.8:
            owner = {"x": "rs-x", "y": "rs-y", "z": "rs-z"}[app]
            p.metadata.ownerReferences = [OwnerReference(apiVersion="apps/v1", kind="ReplicaSet", name=owner,
                                                         uid=f"uid-{owner}", controller=True)]
        if bound and rng.random() < 0.1:
            p.metadata.deletionTimestamp = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
        pods.append(p)
    return ns, pods, _spread_objects()


def _list_defaulting_config():
    from kubenotes.scheduler.config import API_VERSION, KIND, load_config

    return load_config({"apiVersion": API_VERSION, "kind": KIND, "profiles": [{"pluginConfig": [
        {"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"},
            {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}]}}]}]})


def _pts(fw):
    [pl] = [p for p in fw.filter_plugins if p.name() == "PodTopologySpread"]
    return pl


@pytest.mark.parametrize("list_defaulting", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_pod_topology_spread_batch_matches_per_node(seed, list_defaulting):
    """PreFilter/PreScore states from the arrays equal the per-node ones; batch Filter/Score/NormalizeScore too."""
    from kubenotes.scheduler.plugins.podtopologyspread import filtering, scoring

    rng = random.Random(seed)
    ns, pods, objects = random_spread_cluster(rng)
    config = _list_defaulting_config() if list_defaulting else None
    sched = new_scheduler(ns, pods, config=config, objects=objects, seed=seed, trace=False)
    fw = sched.framework
    pl = _pts(fw)
    arr = sched.snapshot.arrays()
    nodes = sched.snapshot.list()
    seen = {"filter": 0, "score": 0, "ignored": 0, "dns": 0}
    for _ in range(60):
        q = sched.queue.pop()
        if q is None:
            break
        pod = q.pod_info
        state = CycleState()
        _r, s = pl.pre_filter(state, pod, nodes)
        if s.is_success():
            got = state.read(filtering.PRE_FILTER_STATE_KEY)
            want = filtering.cal_pre_filter_state(pod, got.constraints, nodes)
            assert got.tp_value_to_match_num == want.tp_value_to_match_num
            assert list(map(list, got.tp_value_to_match_num)) == list(map(list, want.tp_value_to_match_num))  # order
            assert [p.paths for p in got.critical_paths] == [p.paths for p in want.critical_paths]
            mask = fast_forms(pl, fw).filter_batch(state, pod, arr, arr.arange)
            assert mask.tolist() == [pl.filter(state, pod, ni).is_success() for ni in nodes]
            seen["filter"] += 1
            seen["dns"] += int(not mask.all())
        feasible = [ni for ni in nodes if rng.random() < 0.7] or nodes[:1]
        if pl.pre_score(state, pod, feasible).is_success():
            got = state.read(scoring.PRE_SCORE_STATE_KEY)
            want = scoring.pre_score_state(pod, got.constraints, bool(pod.pod.spec.topologySpreadConstraints)
                                           or list_defaulting, feasible, nodes)
            assert got.ignored_nodes == want.ignored_nodes
            assert got.topology_value_to_pod_counts == want.topology_value_to_pod_counts
            assert got.topology_normalizing_weight == want.topology_normalizing_weight
            idx = np.array([arr.index[ni.name] for ni in feasible], dtype=np.int64)
            raw = fast_forms(pl, fw).score_batch(state, pod, arr, idx)
            per_node = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in feasible]
            assert raw.tolist() == [x.score for x in per_node]
            pl.normalize_score(state, pod, per_node)
            assert fast_forms(pl, fw).normalize_score_batch(state, pod, raw).tolist() == [x.score for x in per_node]
            seen["score"] += 1
            seen["ignored"] += int(bool(got.ignored_nodes))
        sched.queue.done(pod.uid)
        target = rng.choice(nodes).name
        sched._assume(pod, target)
        if rng.random() < 0.2:  # and sometimes take a pod away again, so counts go down too
            victim = rng.choice(nodes)
            if victim.pods:
                sched.snapshot.remove_pod(victim.pods[0], victim.name)
    assert seen["filter"] > 5 and seen["score"] > 10 and seen["dns"] > 0
    if list_defaulting:
        assert seen["ignored"] > 0


@pytest.mark.parametrize("seed", range(10))
def test_pod_topology_spread_trace_false_makes_identical_decisions(seed, monkeypatch):
    """Traced and untraced schedulers bind, preempt, nominate and report alike, with spreading pods batched."""
    rng = random.Random(500 + seed)
    ns, pods, objects = random_spread_cluster(rng)
    config = _list_defaulting_config() if seed % 3 == 2 else None
    used = spy_batch_path(monkeypatch, "PodTopologySpread")

    def outcome(trace):
        return run_decisions(new_scheduler(ns, pods, config=config, objects=objects, seed=seed, trace=trace))

    traced = outcome(True)
    assert not used["filter"] and not used["score"]
    fast = outcome(False)
    assert traced == fast
    assert any(used["filter"]) and any(used["score"])


@pytest.mark.parametrize("seed", range(4))
def test_count_matching_pods_follows_adds_and_removes(seed):
    """The incremental per-node counts equal a fresh count after random assumes and removals."""
    from kubenotes.scheduler.fast.podtopologyspread import count_pods_match_selector_per_node
    from kubenotes.scheduler.plugins.podtopologyspread.common import count_pods_match_selector, label_selector

    rng = random.Random(seed)
    ns, pods, _objects = random_spread_cluster(rng, n_nodes=(20, 40), n_pods=(60, 100))
    snap = new_snapshot(ns, [p for p in pods if p.spec.nodeName])
    arr = snap.arrays()
    selectors = [label_selector({"matchLabels": {"app": a}}) for a in "xyz"] + [label_selector({})]
    pending = [PodInfo(p) for p in pods if not p.spec.nodeName]
    for round_ in range(6):
        for sel in selectors:
            for namespace in ("default", "team"):
                got = count_pods_match_selector_per_node(arr, sel, namespace).tolist()
                assert got == [count_pods_match_selector(ni.pods, sel, namespace) for ni in snap.list()]
        churn_pods(rng, snap, pending, rng.randint(1, 8), 0.7)
    assert any(count_pods_match_selector_per_node(arr, s, "default").any() for s in selectors)


@pytest.mark.parametrize("slack", [4096, -10**9])  # the log rebuilt never / whenever a node changed
@pytest.mark.parametrize("seed", range(4))
def test_domain_counts_follow_adds_removes_and_log_rebuilds(seed, slack, monkeypatch):
    """Kept per-domain sums equal a fresh sum of the per-node counts over the eligible nodes, step after step."""
    from kubenotes.scheduler.fast.podtopologyspread import MatchingPodCounts
    from kubenotes.scheduler.plugins.podtopologyspread.common import count_pods_match_selector, label_selector

    monkeypatch.setattr(MatchingPodCounts, "LOG_SLACK_ROWS", slack)
    rng = random.Random(seed)
    ns, pods, _objects = random_spread_cluster(rng, n_nodes=(20, 40), n_pods=(60, 100))
    snap = new_snapshot(ns, [p for p in pods if p.spec.nodeName])
    arr = snap.arrays()
    index = MatchingPodCounts.of(arr)
    selectors = [label_selector({"matchLabels": {"app": a}}) for a in "xyz"]
    eligible = {"every": np.ones(len(arr), dtype=bool), "some": np.array([rng.random() < 0.6 for _ in snap.list()])}
    pending = [PodInfo(p) for p in pods if not p.spec.nodeName]
    for round_ in range(10):
        for sel in selectors:
            for key in ("topology.kubernetes.io/zone", "rack", "kubernetes.io/hostname"):
                ids, vocab = arr.label_values(key)
                for name, mask in eligible.items():
                    want = np.zeros(len(vocab) + 1, dtype=np.int64)
                    for i, ni in enumerate(snap.list()):
                        if mask[i]:
                            want[ids[i] + 1] += count_pods_match_selector(ni.pods, sel, "default")
                    assert index.domain_counts("default", sel, key, mask, name).tolist() == want.tolist()
                    assert index.domain_counts("default", sel, key, mask, None).tolist() == want.tolist()
        churn_pods(rng, snap, pending, rng.choice([1, 3, 12]), 0.7)  # a few log rows (one by one) or many (numpy)


def test_pre_score_counts_missing_and_empty_zone_in_one_domain():
    """System defaults keep nodes without a zone: their "" domain also holds a node labelled zone="" (kubenotes)."""
    from kubenotes.scheduler.plugins.podtopologyspread import scoring

    objects = _spread_objects()
    zone = "topology.kubernetes.io/zone"
    labels = [{zone: ""}, {}, {zone: "z1"}, {}]
    nodes = [make_node(f"m{i}", labels=lab) for i, lab in enumerate(labels)]

    def rs_pod(name, node=None):
        from lightkube.models.meta_v1 import OwnerReference

        p = make_pod(name, labels={"app": "x"}, node_name=node)
        p.metadata.ownerReferences = [OwnerReference(apiVersion="apps/v1", kind="ReplicaSet", name="rs-x",
                                                     uid="uid-rs-x", controller=True)]
        return p

    bound = [rs_pod("a", "m0"), rs_pod("b", "m1"), rs_pod("c", "m1"), rs_pod("d", "m2")]
    sched = new_scheduler(nodes, bound + [rs_pod("new")], objects=objects, trace=False)
    pl = _pts(sched.framework)
    q = sched.queue.pop()
    state = CycleState()
    all_nodes = sched.snapshot.list()
    assert pl.pre_score(state, q.pod_info, all_nodes).is_success()
    got = state.read(scoring.PRE_SCORE_STATE_KEY)
    assert got.topology_value_to_pod_counts[1] == {"": 3, "z1": 1}
    want = scoring.pre_score_state(q.pod_info, got.constraints, False, all_nodes, all_nodes)
    assert want.topology_value_to_pod_counts == got.topology_value_to_pod_counts
    assert got.topology_normalizing_weight == want.topology_normalizing_weight


@pytest.mark.parametrize("seed", range(8))
def test_filter_with_nominated_pods_batch_matches_per_node(seed):
    """``filter_nodes_batch`` with pods nominated to some nodes (higher, equal and lower priority than the
    incoming pod) equals ``RunFilterPluginsWithNominatedPods`` node by node: a node the batch rejects, or whose
    nominated pods all have lower priority, needs no second look."""
    from kubenotes.scheduler.batch import filter_nodes_batch

    rng = random.Random(900 + seed)
    ns, pods, objects = random_spread_cluster(rng)
    sched = new_scheduler(ns, pods, objects=objects, seed=seed, trace=False)
    fw = sched.framework
    arr = sched.snapshot.arrays()
    nodes = sched.snapshot.list()
    seen = {"rejected": 0, "nominated_changed": 0}
    for k in range(40):
        q = sched.queue.pop()
        if q is None:
            break
        pod = q.pod_info
        added = []
        for j in range(rng.randint(1, 4)):  # nominate big pods of random priority to random nodes
            big = PodInfo(make_pod(f"nominated-{k}-{j}", requests={"cpu": rng.choice(["2", "6", "14"])},
                                   priority=pod.priority + rng.choice([-10, 0, 10])))
            fw.nominator.add_nominated_pod(big, NominatingInfo(rng.choice(nodes).name, "ModeOverride"))
            added.append(big)
        state = CycleState()
        _r, status, _skip = fw.run_pre_filter_plugins(state, pod)
        if status.is_success():
            mask = filter_nodes_batch(fw, state, pod, arr, arr.arange)
            if mask is not None:
                per_node = [fw.run_filter_plugins_with_nominated_pods(state, pod, ni).is_success() for ni in nodes]
                assert mask.tolist() == per_node
                seen["rejected"] += int(not all(per_node))
                plain = [fw.run_filter_plugins(state, pod, ni).is_success() for ni in nodes]
                seen["nominated_changed"] += int(plain != per_node)
        for big in added:
            fw.nominator.delete_nominated_pod_if_exists(big)
        fw.nominator.nominated_pod_to_node.clear()
        sched.queue.done(pod.uid)
    assert seen["rejected"] > 0 and seen["nominated_changed"] > 0


@pytest.mark.parametrize("incoming_cpu, fits", [("1", True), ("3", True), ("4", False)])
def test_nominated_pods_of_lower_priority_do_not_count_against_the_incoming_pod(incoming_cpu, fits):
    """Only nominated pods of at least the incoming pod's priority are added in the first pass: here a 1-CPU pod of
    priority 20 counts on the 4-CPU node and a 3-CPU pod of priority 0 does not (the batch decides with
    NodeResourcesFit alone when that rejects, so this holds its arithmetic to the per-node path)."""
    from kubenotes.scheduler.batch import filter_nodes_batch

    nodes = [make_node(f"n{i}", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}) for i in range(3)]
    incoming = make_pod("incoming", requests={"cpu": incoming_cpu}, priority=10)
    sched = new_scheduler(nodes, [incoming], trace=False)
    fw = sched.framework
    for name, cpu, prio in (("high", "1", 20), ("low", "3", 0)):
        fw.nominator.add_nominated_pod(PodInfo(make_pod(name, requests={"cpu": cpu}, priority=prio)),
                                       NominatingInfo("n1", "ModeOverride"))
    q = sched.queue.pop()
    state = CycleState()
    _r, status, _skip = fw.run_pre_filter_plugins(state, q.pod_info)
    assert status.is_success()
    arr = sched.snapshot.arrays()
    per_node = [fw.run_filter_plugins_with_nominated_pods(state, q.pod_info, ni).is_success()
                for ni in sched.snapshot.list()]
    assert per_node == [True, fits, True]
    assert filter_nodes_batch(fw, state, q.pod_info, arr, arr.arange).tolist() == per_node


def test_statuses_of_nodes_with_nominated_pods_come_from_the_pass_with_them_added():
    """``filter_statuses_batch`` gives each node the status of ``RunFilterPluginsWithNominatedPods``: on n0 the
    nominated pod's host port makes NodePorts reject before NodeResourcesFit, on n2 its CPU makes Fit reject, on n1
    Fit rejects without any nominated pod, on n3 a taint rejects before anything looks at pods, and on n4 Fit
    rejects in both passes but the nominated pod adds "Too many pods"."""
    from kubenotes.scheduler.batch import filter_statuses_batch

    def port_container(cpu):
        return [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80, "hostPort": 80}],
                 "resources": {"requests": {"cpu": cpu}}}]

    big = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    nodes = [make_node("n0", allocatable=big), make_node("n1", allocatable={**big, "cpu": "2"}),
             make_node("n2", allocatable=big), make_node("n3", allocatable=big, taints=[{"key": "k", "effect": "NoSchedule"}]),
             make_node("n4", allocatable={**big, "cpu": "2", "pods": "1"})]
    incoming = make_pod("incoming", containers=port_container("3"), priority=10)
    sched = new_scheduler(nodes, [incoming], trace=False)
    fw = sched.framework
    for name, node, containers in (("ported", "n0", port_container("2")), ("plain", "n2", None), ("tainted", "n3", None),
                                    ("crowding", "n4", None)):
        nominated = make_pod(name, requests=None if containers else {"cpu": "2"}, containers=containers, priority=20)
        fw.nominator.add_nominated_pod(PodInfo(nominated), NominatingInfo(node, "ModeOverride"))
    q = sched.queue.pop()
    state = CycleState()
    _r, status, _skip = fw.run_pre_filter_plugins(state, q.pod_info)
    assert status.is_success()
    arr = sched.snapshot.arrays()
    want = [fw.run_filter_plugins_with_nominated_pods(state, q.pod_info, ni) for ni in sched.snapshot.list()]
    assert [s.plugin for s in want] == ["NodePorts", "NodeResourcesFit", "NodeResourcesFit", "TaintToleration",
                                        "NodeResourcesFit"]
    assert want[4].reasons == ["Too many pods", "Insufficient cpu"]  # the batch's pass alone finds only the CPU
    got = filter_statuses_batch(fw, state, q.pod_info, arr, arr.arange)
    assert [(s.code, s.reasons, s.plugin) for s in got] == [(s.code, s.reasons, s.plugin) for s in want]


def test_filter_statuses_batch_declines_when_a_node_passes():
    from kubenotes.scheduler.batch import filter_statuses_batch

    nodes = [make_node("small", allocatable={"cpu": "1", "memory": "8Gi", "pods": "110"}),
             make_node("big", allocatable={"cpu": "8", "memory": "8Gi", "pods": "110"})]
    sched = new_scheduler(nodes, [make_pod("p", requests={"cpu": "2"})], trace=False)
    q = sched.queue.pop()
    state = CycleState()
    assert sched.framework.run_pre_filter_plugins(state, q.pod_info)[1].is_success()
    arr = sched.snapshot.arrays()
    assert filter_statuses_batch(sched.framework, state, q.pod_info, arr, arr.arange) is None
    only_small = filter_statuses_batch(sched.framework, state, q.pod_info, arr, arr.arange[:1])
    assert [(s.plugin, s.reasons) for s in only_small] == [("NodeResourcesFit", ["Insufficient cpu"])]


@pytest.mark.parametrize("nominated", [False, True], ids=["alone", "with-nominated"])
@pytest.mark.parametrize("seed", range(4))
def test_fit_status_keys_group_nodes_with_equal_statuses(seed, nominated, random_large_cluster):
    """NodeResourcesFit.filter_status_key_batch: nodes with one key get one (code, reasons) from Fit.filter (a
    status may have several keys: which short resource exceeds allocatable is in the key, not in the status), and
    key 0 is exactly where Fit passes. With the nominated pods' totals given, the same holds of Fit.filter on the
    node with those pods added (a RequestsLedger)."""
    from kubenotes.scheduler.batch import ge_nominated_totals
    from kubenotes.scheduler.framework.node_info import RequestsLedger

    rng = random.Random(7700 + seed)
    nodes, pods = random_large_cluster(rng)
    sched = new_scheduler(nodes, pods, seed=seed, trace=False)
    fw = sched.framework
    [fit] = [pl for pl in fw.filter_plugins if pl.name() == "NodeResourcesFit"]
    arr = sched.snapshot.arrays()
    infos = sched.snapshot.list()
    if nominated:
        for k, ni in enumerate(rng.sample(infos, len(infos) // 2)):
            for j in range(rng.randint(1, 3)):
                req = {"cpu": f"{rng.choice([500, 2000, 6000])}m", "memory": f"{rng.choice([1, 8])}Gi"}
                fw.nominator.add_nominated_pod(PodInfo(make_pod(f"nom-{k}-{j}", requests=req, priority=10**6)),
                                               NominatingInfo(ni.name, "ModeOverride"))
    kinds, passed = 0, 0
    for q, state, status in _pre_filtered(sched, 40):
        if status.is_success():
            added = ge_nominated_totals(fw, q.pod_info, arr) if nominated else None
            keys = fast_forms(fit, fw).filter_status_key_batch(state, q.pod_info, arr, arr.arange, added).tolist()
            by_key: dict[int, tuple] = {}
            for key, ni in zip(keys, infos):
                ledger = RequestsLedger(ni)
                for p in fw.ge_nominated_pods(q.pod_info, ni.name):
                    ledger.add_pod(p)
                s = fit.filter(state, q.pod_info, ledger)
                ok = s is None or s.is_success()
                assert (key == 0) == ok
                passed += ok
                if not ok:
                    got = (s.code, tuple(s.reasons))
                    assert by_key.setdefault(key, got) == got
            kinds += len(set(by_key.values()))
        sched.queue.done(q.pod_info.uid)
        sched._assume(q.pod_info, random.Random(seed).choice(infos).name)
    # Several kinds of status per pod: short of pods, cpu, memory, the GPU, beyond allocatable.
    assert kinds > 40 and passed > 0


def test_per_node_memo_recomputes_only_nodes_whose_pods_changed():
    snap = new_snapshot([make_node(f"n{i}") for i in range(4)], [])
    arr = snap.arrays()
    asked = []

    def compute(rows):
        asked.append(rows.tolist())
        return arr.requested_milli_cpu[rows] * 2

    assert arr.per_node_memo("k", compute).tolist() == [0, 0, 0, 0] and asked == [[0, 1, 2, 3]]
    snap.add_pod(PodInfo(make_pod("p", requests={"cpu": "300m"}, node_name="n2")), "n2")
    assert arr.per_node_memo("k", compute).tolist() == [0, 0, 600, 0] and asked[-1] == [2]
    assert arr.per_node_memo("k", compute).tolist() == [0, 0, 600, 0] and len(asked) == 2   # nothing changed
    assert arr.per_node_memo("other", compute).tolist() == [0, 0, 600, 0] and asked[-1] == [0, 1, 2, 3]


@pytest.mark.parametrize("few", [0, 64], ids=["numpy", "python"])
@pytest.mark.parametrize("seed", range(4))
def test_change_log_names_the_nodes_changed_and_gives_up_once_trimmed(seed, few, monkeypatch):
    """rows_changed_since and the memos built on it agree with a full recount, across a trimmed log (the changed
    rows sorted by np.unique, or in Python for a few of them)."""
    monkeypatch.setattr(SnapshotArrays, "MIN_CHANGE_LOG", 8)
    monkeypatch.setattr(SnapshotArrays, "FEW_CHANGES", few)
    rng = random.Random(seed)
    snap = new_snapshot([make_node(f"n{i}", allocatable={"cpu": "8", "memory": "16Gi", "pods": "110"})
                         for i in range(5)], [])
    arr = snap.arrays()
    from kubenotes.scheduler.fast.noderesources import scorer_score_batch
    from kubenotes.scheduler.plugins.noderesources.least_allocated import least_resource_scorer
    from kubenotes.scheduler.plugins.noderesources.resource_allocation import (
        DEFAULT_RESOURCES,
        ResourceAllocationScorer,
    )

    scorer = ResourceAllocationScorer("NodeResourcesFit", least_resource_scorer(DEFAULT_RESOURCES), DEFAULT_RESOURCES)
    placed: list[tuple[PodInfo, str]] = []
    mark = arr.changes
    changed: set[int] = set()
    for step in range(60):
        if placed and rng.random() < 0.3:
            pi, node = placed.pop(rng.randrange(len(placed)))
            snap.remove_pod(pi, node)
        else:
            node = f"n{rng.randrange(5)}"
            pi = PodInfo(make_pod(f"p{step}", requests={"cpu": f"{rng.randint(1, 900)}m"}, node_name=node))
            snap.add_pod(pi, node)
            placed.append((pi, node))
        changed.add(arr.index[node])
        if rng.random() < 0.4:
            rows = arr.rows_changed_since(mark)
            assert rows is None or rows.tolist() == sorted(changed)
            if rows is None:
                assert arr.changes - mark > 2 * 8  # only a log trimmed past the mark gives up
            mark, changed = arr.changes, set()
        got = scorer_score_batch(scorer, arr, arr.arange, [250, 0])
        assert got.tolist() == [scorer.score(None, ni, [250, 0])[0] for ni in snap.list()]
    assert arr.rows_changed_since(None) is None


def test_rows_changed_since_answers_a_mark_once_until_the_next_refresh():
    """Asked again from the same mark before any node changes, the same read-only rows come back; a refresh
    answers anew."""
    snap = new_snapshot([make_node(f"n{i}") for i in range(4)], [])
    arr = snap.arrays()
    m0 = arr.changes
    snap.add_pod(PodInfo(make_pod("a", node_name="n1")), "n1")
    m1 = arr.changes
    snap.add_pod(PodInfo(make_pod("b", node_name="n3")), "n3")
    a, b = arr.rows_changed_since(m0), arr.rows_changed_since(m1)
    assert a.tolist() == [1, 3] and b.tolist() == [3]
    assert arr.rows_changed_since(m0) is a and arr.rows_changed_since(m1) is b
    with pytest.raises(ValueError):
        a[0] = 0
    snap.add_pod(PodInfo(make_pod("c", node_name="n0")), "n0")
    assert arr.rows_changed_since(m0).tolist() == [0, 1, 3] and arr.rows_changed_since(m1).tolist() == [0, 3]


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("raw, ok", [([0, 100, 7], True), ([5, -1, 0], False), ([5, 101, 0], False),
                                     ([-(2 ** 30), 3, 0], False)])
def test_score_nodes_batch_declines_scores_out_of_range(raw, ok, dtype):
    """A score outside [0, 100] sends the cycle to the per-node path, which reports the error exactly."""
    class Plugin:
        def name(self):
            return "P"

        def score_batch(self, state, pod, arrays, idx):
            return np.array(raw, dtype=dtype)

        def score_extensions(self):
            return None

    from types import SimpleNamespace
    from kubenotes.scheduler.batch import score_nodes_batch
    fw = SimpleNamespace(score_plugins=[Plugin()], score_plugin_weight={"P": 2})
    got = score_nodes_batch(fw, SimpleNamespace(skip_score_plugins=set()), None, None, np.arange(3))
    assert (got.tolist() == [2 * x for x in raw]) if ok else got is None


@pytest.mark.parametrize("plugin", ["NodeAffinity", "TaintToleration", "NodeUnschedulable"])
@pytest.mark.parametrize("seed", range(3))
def test_node_object_filters_give_one_status_per_status_key(seed, plugin, random_large_cluster):
    """The node-object Filters' filter_status_key_batch: nodes with one key get one (code, reasons) from the
    plugin's filter, and every pod meets both passing and rejected nodes among the kinds seen (so the keys group
    rejections, not only passes)."""
    rng = random.Random(9100 + seed)
    nodes, pods = random_large_cluster(rng)
    sched = new_scheduler(nodes, pods, seed=seed, trace=False)
    fw = sched.framework
    [pl] = [p for p in fw.filter_plugins if p.name() == plugin]
    arr = sched.snapshot.arrays()
    infos = sched.snapshot.list()
    rejected_kinds = 0
    for q, state, status in _pre_filtered(sched, 60):
        if status.is_success() and plugin not in state.skip_filter_plugins:
            keys = fast_forms(pl, fw).filter_status_key_batch(state, q.pod_info, arr, arr.arange).tolist()
            by_key: dict[int, tuple] = {}
            for key, ni in zip(keys, infos):
                s = pl.filter(state, q.pod_info, ni)
                got = (Code.SUCCESS, ()) if s is None else (s.code, tuple(s.reasons))
                assert by_key.setdefault(key, got) == got
            rejected_kinds += sum(1 for code, _ in by_key.values() if code != Code.SUCCESS)
        sched.queue.done(q.pod_info.uid)
    assert rejected_kinds > 0


@pytest.mark.parametrize("change_log", [4096, 1], ids=["log", "trimmed-log"])
@pytest.mark.parametrize("seed", range(3))
def test_nominated_totals_and_positions_sum_the_pods_added_per_node(seed, change_log, monkeypatch):
    """ge_nominated_totals / ge_nominated_positions equal, node by node, what addGENominatedPods adds: the other
    nominated pods of at least the pod's priority (requests, scalar resources, host ports), also for a pod that is
    nominated itself and after the nominations change (a pod nominated again as a new PodInfo included), whether
    the table follows the nominator's change log or, the log trimmed, is built afresh."""
    from kubenotes.scheduler.batch import ge_nominated_positions, ge_nominated_totals
    from kubenotes.scheduler.queue import PodNominator

    monkeypatch.setattr(PodNominator, "CHANGE_LOG", change_log)

    rng = random.Random(4400 + seed)
    nodes = [make_node(f"n{i}", allocatable={"cpu": "8", "memory": "16Gi", "pods": "110", "example.com/gpu": "4"})
             for i in range(12)]
    sched = new_scheduler(nodes, [], trace=False)
    fw = sched.framework
    arr = sched.snapshot.arrays()
    infos = sched.snapshot.list()
    nominated: list[PodInfo] = []

    def nominate(k: int) -> None:
        containers = None
        req = {"cpu": f"{rng.choice([100, 500, 2000])}m", "memory": f"{rng.choice([1, 2])}Gi"}
        if rng.random() < 0.3:
            req["example.com/gpu"] = str(rng.randint(1, 2))
        if rng.random() < 0.2:
            containers = [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80, "hostPort": 8000 + k}],
                           "resources": {"requests": req}}]
        pi = PodInfo(make_pod(f"nom-{k}", requests=None if containers else req, containers=containers,
                              priority=rng.choice([0, 10, 100])))
        fw.nominator.add_nominated_pod(pi, NominatingInfo(rng.choice(infos).name, "ModeOverride"))
        nominated.append(pi)

    for k in range(30):
        nominate(k)
        if k % 10 == 9:
            fw.nominator.delete_nominated_pod_if_exists(nominated.pop(rng.randrange(len(nominated))))
        if k % 7 == 3:  # the same pod (uid) nominated again as a new PodInfo asking for more
            j = rng.randrange(len(nominated))
            old = nominated[j]
            again = PodInfo(make_pod(old.pod.metadata.name, uid=old.uid, requests={"cpu": "3", "memory": "3Gi"},
                                     priority=old.priority))
            fw.nominator.add_nominated_pod(again, NominatingInfo(rng.choice(infos).name, "ModeOverride"))
            nominated[j] = again
        for pod in (PodInfo(make_pod(f"q{k}", priority=rng.choice([0, 10, 50, 100]))), rng.choice(nominated)):
            got = ge_nominated_totals(fw, pod, arr)
            positions = ge_nominated_positions(fw, pod, arr, arr.arange).tolist()
            want_positions = []
            for i, ni in enumerate(infos):
                added = fw.ge_nominated_pods(pod, ni.name)
                if added:
                    want_positions.append(i)
                assert got.num_pods[i] == len(added)
                assert got.milli_cpu[i] == sum(p.requests.milli_cpu for p in added)
                assert got.memory_bytes[i] == sum(p.requests.memory_bytes for p in added)
                assert got.host_ports[i] == any(p.host_ports for p in added)
                gpus = sum(p.requests.scalar_resources.get("example.com/gpu", 0) for p in added)
                assert (got.scalars["example.com/gpu"][i] if "example.com/gpu" in got.scalars else 0) == gpus
            assert positions == want_positions
