"""Tests of kubenotes.replay.cache: replays computed once, and the cluster at any point of a replay."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubenotes.datasets import alibaba as ab
from kubenotes.datasets.alibaba import NodeRow, PodRow, TraceArrays
from kubenotes.replay import cache as rc
from kubenotes.replay import engine


def toy() -> TraceArrays:
    """Two 4-card nodes and a mix of sharing, whole-GPU and CPU-only pods."""
    nodes = [NodeRow("n1", 64000, 1 << 40, 4, "T4"), NodeRow("n2", 64000, 1 << 40, 4, "T4")]
    pods = [PodRow("a", 2000, 1 << 30, 1, 500), PodRow("b", 2000, 1 << 30, 1, 1000), PodRow("c", 2000, 1 << 30, 1, 300),
            PodRow("d", 1000, 1 << 30, 0, 0), PodRow("e", 2000, 1 << 30, 2, 1000), PodRow("f", 2000, 1 << 30, 1, 500)]
    return TraceArrays.from_rows(nodes, pods, "toy.csv")


def toy_replay(policy: str = "FGD") -> engine.ReplayResult:
    return engine.replay(toy(), policy, seed=3, tuning_ratio=0)


def _tiny_dir(tmp_path: Path) -> Path:
    (tmp_path / ab.GPU_NODES_FILE).write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,T4\nn1,64000,262144,2,T4\n")
    pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,4000,1024,1,500\np1,4000,1024,1,1000\np2,2000,1024,0,0\n"
    for f in rc.TRACE_VARIANTS.values():
        (tmp_path / f).write_text(pods)
    return tmp_path


def test_cached_replay_computes_once_per_policy_variant_and_seed(tmp_path):
    d = _tiny_dir(tmp_path)
    a = rc.cached_replay("BestFit", "default", 42, d)
    assert rc.cached_replay("BestFit", "default", 42, str(d)) is a
    assert rc.cached_replay("BestFit", "default", 43, d) is not a
    assert rc.cached_replay("BestFit", "cpu050", 42, d) is not a
    assert rc.trace_variant("default", d) is rc.trace_variant("default", d)
    assert ("BestFit", "default", 42) in rc.replay_timings()
    res = rc.replay_policies(["Random", "FGD"], "default", 42, d)
    assert list(res) == ["Random", "FGD"] and res["FGD"].policy == "FGD"
    with pytest.raises(ValueError, match="unknown trace variant 'bogus'"):
        rc.cached_replay("FGD", "bogus", 42, d)
    with pytest.raises(engine.UnknownPolicy):
        rc.cached_replay("Nope", "default", 42, d)


def test_cluster_at_the_end_is_the_replays_final_cluster():
    r = toy_replay("BestFit")
    c = rc.cluster_at(r, len(r.pod_index))
    assert c.gpu_left.tolist() == r.cluster.gpu_left.tolist()
    assert c.milli_cpu_left.tolist() == r.cluster.milli_cpu_left.tolist()
    assert c.allocated_gpu_milli == r.allocated_gpu_milli[-1]
    empty = rc.cluster_at(r, 0)
    assert (empty.gpu_left[:, :4] == 1000).all()
    with pytest.raises(ValueError, match="events must be between 0 and 6"):
        rc.cluster_at(r, 7)


def test_cluster_at_continues_from_a_kept_cluster_and_returns_copies():
    r = toy_replay("BestFit")
    fresh = [rc.cluster_at(r, e).gpu_left.tolist() for e in range(len(r.pod_index) + 1)]
    rc._CHECKPOINTS.pop(id(r), None)
    for e in (3, 1, 5, 5, 6, 0, 4):  # up, down, the same twice: each from the nearest kept one
        c = rc.cluster_at(r, e)
        assert c.gpu_left.tolist() == fresh[e]
        c.gpu_left[:] = 0  # a caller changing its copy does not change what is kept
    assert rc.cluster_at(r, 5).gpu_left.tolist() == fresh[5]
    assert set(rc._CHECKPOINTS[id(r)]) <= {0, 1, 3, 4, 5, 6}


def test_events_at_counts_arrivals_up_to_the_percentage():
    r = toy_replay()
    cum = r.arrived_percent
    for x in (0, 10, float(cum[2]), 100, 130):
        assert rc.events_at(r, x) == int((cum <= x + 1e-9).sum())


def test_node_view_and_fragmented_node():
    r = toy_replay("BestFit")
    c = r.cluster
    v = rc.node_view_of(c, 0)
    assert v.name == "n1" and v.gpu_left == c.gpu_left[0, :4].tolist() and v.model == "T4"
    assert rc.node_view_of(c, "n2").name == "n2"
    assert rc.fragmented_node(c) in ("n1", "n2")


def _same_records(a: engine.ReplayResult, b: engine.ReplayResult) -> None:
    """Every record of two replays, and their final clusters, are equal."""
    for name in ("pod_index", "node_index", "arrived_gpu_milli", "allocated_gpu_milli", "frag_gpu_milli"):
        assert getattr(a, name).tolist() == getattr(b, name).tolist(), name
    assert [list(c) for c in a.gpu_cards] == [list(c) for c in b.gpu_cards]
    assert (a.policy, a.seed, a.pods_file, a.total_gpu_milli) == (b.policy, b.seed, b.pods_file, b.total_gpu_milli)
    for name in engine.ClusterState._MUTABLE_ARRAYS:
        assert getattr(a.cluster, name).tolist() == getattr(b.cluster, name).tolist(), name
    assert a.cluster.rng.bit_generator.state == b.cluster.rng.bit_generator.state


def test_replay_many_in_workers_records_what_serial_replays_record():
    from kubenotes.replay.sample import sample_trace_dir

    d = sample_trace_dir()
    specs = [(p, v, s) for p, v, s in [("FGD", "default", 7), ("Random", "default", 8), ("BestFit", "cpu050", 7),
                                       ("GpuPacking", "gpushare100", 9), ("FGD", "default", 7)]]
    runs = rc.replay_many(specs, d, workers=2)
    assert list(runs) == list(dict.fromkeys(specs))
    for (p, v, s), r in runs.items():
        trace = rc.trace_variant(v, d)
        assert rc.trace_of(r) is trace and rc.cached_replay(p, v, s, d) is r
        _same_records(r, engine.replay(trace, p, seed=s, typical=rc.typical_of(trace), requests=rc.requests_of(trace)))
        assert rc.replay_timings()[(p, v, s)] >= 0
    # what the chapter reads from a result computed in a worker: the cluster at a point, curves
    fgd = runs["FGD", "default", 7]
    assert rc.cluster_at(fgd, len(fgd.pod_index)).gpu_left.tolist() == fgd.cluster.gpu_left.tolist()


def test_replay_many_rejects_an_unknown_policy_before_replaying(tmp_path):
    d = _tiny_dir(tmp_path)
    with pytest.raises(engine.UnknownPolicy):
        rc.replay_many([("BestFit", "default", 5), ("Tetris", "default", 5)], d, workers=2)
    assert ("BestFit", "default", 5) not in rc.replay_timings()


def test_replay_in_background_returns_at_once_and_the_cache_waits_for_it():
    from kubenotes.replay.sample import sample_trace_dir

    d = sample_trace_dir()
    for key in list(rc._PENDING):  # replays another test or doctest in this process started and left running
        rc._collect(key)
    specs = [("FGD", "default", 21), ("Random", "cpu050", 22), ("FGD", "default", 21), ("BestFit", "default", 21)]
    assert rc.cached_replay("BestFit", "default", 21, d) is not None  # cached: not started again
    assert rc.replay_in_background(specs, d, workers=2) == 2
    assert rc.replay_in_background(specs, d, workers=2) == 0  # running: not started twice
    assert {k[:3] for k in rc._PENDING} == {("FGD", "default", 21), ("Random", "cpu050", 22)}
    import os
    assert rc._POOL.submit(os.nice, 0).result() == min(os.nice(0) + rc.WORKER_NICENESS, 19)  # workers yield the CPU
    fgd = rc.cached_replay("FGD", "default", 21, d)  # waits for the worker instead of replaying here
    assert rc.trace_of(fgd) is rc.trace_variant("default", d) and rc._POOL is not None
    runs = rc.replay_many(specs, d, workers=2)
    assert runs["FGD", "default", 21] is fgd and not rc._PENDING and rc._POOL is None  # drained: pool shut down
    for (p, v, s), r in runs.items():
        trace = rc.trace_variant(v, d)
        _same_records(r, engine.replay(trace, p, seed=s, typical=rc.typical_of(trace), requests=rc.requests_of(trace)))
        assert rc.replay_timings()[(p, v, s)] >= 0


def test_replay_in_background_checks_every_spec_before_starting(tmp_path):
    d = _tiny_dir(tmp_path)
    with pytest.raises(engine.UnknownPolicy):
        rc.replay_in_background([("BestFit", "default", 6), ("Tetris", "default", 6)], d, workers=2)
    with pytest.raises(ValueError, match="unknown trace variant"):
        rc.replay_in_background([("BestFit", "nope", 6)], d, workers=2)
    assert not any(k[2] == 6 for k in rc._PENDING) and ("BestFit", "default", 6) not in rc.replay_timings()
