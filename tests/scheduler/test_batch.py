"""The untraced batch path (kubenotes/scheduler/batch.py) against the per-node code it stands for."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kubenotes.scheduler.batch import SnapshotArrays, default_normalize_score_batch, select_host_index
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import NodeScore
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.framework.runtime import NodePluginScores
from kubenotes.scheduler.plugins.helper import default_normalize_score
from kubenotes.scheduler.schedule_one import new_scheduler, select_host
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod


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
    for _ in range(40):
        q = sched.queue.pop()
        if q is None:
            break
        pod = q.pod_info
        state = CycleState()
        _res, s, _ = fw.run_pre_filter_plugins(state, pod)
        if s.is_success():
            for pl in fw.filter_plugins:
                if pl.name() in state.skip_filter_plugins or not hasattr(pl, "filter_batch"):
                    continue
                mask = pl.filter_batch(state, pod, arr, idx)
                assert mask.tolist() == [pl.filter(state, pod, ni).is_success() for ni in nodes], pl.name()
                checked += 1
        if fw.run_pre_score_plugins(state, pod, nodes).is_success():
            for pl in fw.score_plugins:
                if pl.name() in state.skip_score_plugins or not hasattr(pl, "score_batch"):
                    continue
                raw = pl.score_batch(state, pod, arr, idx)
                per_node = [NodeScore(ni.name, pl.score(state, pod, ni)[0]) for ni in nodes]
                assert raw.tolist() == [x.score for x in per_node], pl.name()
                ext = pl.score_extensions()
                if ext is not None:
                    ext.normalize_score(state, pod, per_node)
                    assert ext.normalize_score_batch(state, pod, raw).tolist() == [x.score for x in per_node], pl.name()
                checked += 1
        sched.queue.done(pod.uid)
        # Place the pod somewhere feasible-or-not so the node totals move on.
        sched._assume(pod, rng.choice(nodes).name)
    assert checked > 100
