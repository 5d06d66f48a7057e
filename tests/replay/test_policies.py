"""Tests for kubenotes.replay.policies: the nine Score plugins, framework face against vectorized face."""

from __future__ import annotations

import os
import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenotes.datasets import alibaba as ab
from kubenotes.replay import engine
from kubenotes.replay import policies as P
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import NodeScore, ScorePlugin
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.framework.runtime import Registry

REPO = Path(__file__).resolve().parents[2]

HALF_AND_WHOLE = [{"milliCpu": 1000, "milliGpu": 500, "gpuNumber": 1, "percentage": 0.5},
                  {"milliCpu": 1000, "milliGpu": 1000, "gpuNumber": 1, "percentage": 0.5}]


def _trace_dir() -> Path:
    env = os.environ.get(ab.ENV_VAR)
    p = Path(env) if env else REPO.parent / "shared" / "data" / "alibaba-gpu-2023"
    if not p.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"Alibaba trace missing at {p} (required in CI)")
        pytest.skip(f"Alibaba trace not found at {p}; set {ab.ENV_VAR} to run these tests")
    return p


# ---------------------------------------------------------------------------
# registry and plugin protocol


def test_registered_like_an_out_of_tree_plugin():
    reg = Registry()
    out = P.registry(reg)
    assert out is reg and list(reg) == list(P.POLICY_NAMES)
    for name in P.POLICY_NAMES:
        plugin = reg[name]({"typicalPods": HALF_AND_WHOLE} if name == "FGD" else None, None)
        assert plugin.name() == name
        assert isinstance(plugin, ScorePlugin)
    assert reg["BestFit"](None, None).score_extensions() is not None
    assert reg["FGD"]({"typicalPods": HALF_AND_WHOLE}, None).score_extensions() is None
    with pytest.raises(Exception, match="a plugin named LeastAllocated already exists"):
        P.registry(reg)


def test_user_plugin_can_sit_next_to_the_policies():
    class Mine:
        def name(self):
            return "Mine"

        def score(self, state, pod, node_info):
            from kubenotes.scheduler.framework.interface import Status
            return 7, Status()

        def score_extensions(self):
            return None

    reg = P.registry()
    reg.register("Mine", lambda args, handle: Mine())
    assert reg["Mine"](None, None).score(None, None, None)[0] == 7


# ---------------------------------------------------------------------------
# the fragmentation measure and FGD by hand


def test_fgd_worked_example_by_hand():
    # Half the workload asks 0.5 GPU, half a whole GPU (1 vCPU each). A node with
    # cards [500 free, 1000 free]: for whole-GPU pods the 500 are stranded, so
    # F = 0.5 * 500 = 250. A 0.5-GPU pod on card 0 leaves [0, 1000]: F = 0 (score
    # int(100 * sigmoid(0.25)) = 56); on card 1 it leaves [500, 500]: no whole
    # card, F = 0.5 * 1000 = 500 (score int(100 * sigmoid(-0.25)) = 43).
    typical = P.TypicalPods.from_args(HALF_AND_WHOLE)
    node = P.NodeView("n", 8000, 8000, 0, 0, [500, 1000], "T4")
    assert P.frag_amount(node, typical) == 250.0
    fgd = P.FGD({"typicalPods": HALF_AND_WHOLE})
    pod = P.PodRequest(1000, 0, 1, 500)
    assert fgd.card_scores(pod, node) == {0: 56, 1: 43}
    assert fgd.node_score(pod, node) == 56
    # a whole-GPU pod takes the free card: [500, 0] still fits 0.5-GPU pods, no longer whole-GPU
    # ones, so F = 0.5 * 500 = 250 before and after: int(100 * sigmoid(0)) = 50
    assert fgd.node_score(P.PodRequest(1000, 0, 1, 1000), node) == 50
    # a CPU-only pod that leaves enough CPU changes nothing: sigmoid(0) -> 50
    assert fgd.node_score(P.PodRequest(1000, 0, 0, 0), node) == 50
    # ... one that starves the typical pods of CPU strands all 1500 idle milli-GPU
    assert fgd.node_score(P.PodRequest(7500, 0, 0, 0), node) == int(100 / (1 + np.exp(1.25)))


def test_frag_amount_categories():
    t = P.TypicalPods.from_args([
        {"milliCpu": 2000, "milliGpu": 0, "gpuNumber": 0, "percentage": 0.2},          # CPU-only: all idle GPU counts
        {"milliCpu": 2000, "milliGpu": 300, "gpuNumber": 1, "gpuType": "A10", "percentage": 0.3},  # wrong model
        {"milliCpu": 2000, "milliGpu": 1000, "gpuNumber": 2, "percentage": 0.5},        # needs two free cards
    ])
    node = P.NodeView("n", 8000, 8000, 0, 0, [1000, 1000, 400], "T4")
    # 0.2 * 2400 + 0.3 * 2400 + 0.5 * 400 (the 400 card is too small for whole GPUs)
    assert P.frag_amount(node, t) == pytest.approx(0.2 * 2400 + 0.3 * 2400 + 0.5 * 400)
    node.milli_cpu_left = 1000  # nothing fits any more: every idle GPU is a fragment
    assert P.frag_amount(node, t) == pytest.approx(2400)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_vectorized_fragmentation_equals_the_literal_port(data):
    models = ["T4", "G2", "A10"]
    k = data.draw(st.integers(1, 6))
    items = []
    for _ in range(k):
        num = data.draw(st.sampled_from([0, 1, 1, 1, 2, 4]))
        milli = 0 if num == 0 else (data.draw(st.sampled_from([100, 250, 500, 810])) if num == 1 and
                                    data.draw(st.booleans()) else 1000)
        gtype = data.draw(st.sampled_from(["", "", "T4", "G2|A10"])) if num else ""
        items.append({"milliCpu": data.draw(st.sampled_from([1000, 4000, 8000, 16000])), "milliGpu": milli,
                      "gpuNumber": num, "gpuType": gtype, "percentage": data.draw(st.floats(0.01, 1.0))})
    typical = P.TypicalPods.from_args(items)
    fr = P.Fragmentation(typical, models, 4)
    cards = data.draw(st.integers(0, 4))
    left = [data.draw(st.sampled_from([0, 90, 250, 500, 690, 1000])) for _ in range(cards)]
    cpu = data.draw(st.sampled_from([0, 999, 1000, 5000, 16000, 20000]))
    model = data.draw(st.integers(0, 2)) if cards else -1
    view = P.NodeView("n", cpu, cpu, 0, 0, left, models[model] if cards else "")
    padded = np.array([left + [0] * (4 - cards)])
    got = fr.amount(np.array([cpu]), padded, np.array([model]))[0]
    assert got == pytest.approx(P.frag_amount(view, typical), abs=1e-9)


def test_typical_pods_follow_the_simulator():
    nodes = [ab.NodeRow("n", 1000, 1, 1, "T4")]
    pods = [ab.PodRow(f"p{i}", 1000, 0, 1, 500) for i in range(6)] + \
           [ab.PodRow(f"q{i}", 2000, 0, 1, 1000) for i in range(3)] + [ab.PodRow("r", 3000, 0, 0, 0)]
    t = ab.TraceArrays.from_rows(nodes, pods)
    # 60% + 30% = 90% < 95%, so the third shape is needed: all kept, shares 0.6, 0.3, 0.1
    tp = P.typical_pods(t)
    assert tp.to_args() == [
        {"milliCpu": 1000, "milliGpu": 500, "gpuNumber": 1, "gpuType": "", "percentage": 0.6},
        {"milliCpu": 2000, "milliGpu": 1000, "gpuNumber": 1, "gpuType": "", "percentage": 0.3},
        {"milliCpu": 3000, "milliGpu": 0, "gpuNumber": 0, "gpuType": "", "percentage": 0.1}]
    # at 85% the first two suffice and are renormalised
    tp = P.typical_pods(t, popularity_threshold_percent=85)
    assert tp.percentage.tolist() == pytest.approx([2 / 3, 1 / 3])
    # without CPU pods
    assert len(P.typical_pods(t, include_cpu_pods=False)) == 2


def test_typical_pods_of_the_default_trace():
    t = ab.load_arrays(_trace_dir())
    tp = P.typical_pods(t)
    assert len(tp) == 35 and tp.percentage.sum() == pytest.approx(1.0)
    # the most popular shape: 3.152 vCPU with 0.81 GPU
    assert (tp.milli_cpu[0], tp.gpu_milli[0], tp.num_gpu[0]) == (3152, 810, 1)
    fr = P.Fragmentation(tp, t.models, 8)
    c = engine.ClusterState(t)
    frag = c.node_fragmentation(fr)
    # an empty cluster: all GPUs are fragments for the CPU-only shapes (13.6%), and a few small nodes
    # lack the CPU of some GPU shapes: 13.94%, the 13.99% the simulator logs over the first 0.5%
    cpu_share = 100 * tp.percentage[tp.num_gpu == 0].sum()
    assert 100 * frag.sum() / t.total_gpu_milli == pytest.approx(13.9445, abs=1e-3)
    assert cpu_share == pytest.approx(13.5977, abs=1e-3)


# ---------------------------------------------------------------------------
# each policy by hand


def test_gpu_packing_cases():
    p = P.GpuPacking()
    share, whole = P.PodRequest(1000, 0, 1, 300), P.PodRequest(1000, 0, 2, 1000)
    fresh = P.NodeView("n", 8000, 8000, 0, 0, [1000] * 8, "G2")
    used = P.NodeView("n", 8000, 8000, 0, 0, [400, 1000, 1000, 1000], "T4", {"share-gpu": 1})
    assert p.node_score(share, fresh) == 25            # case 3: max(33 - 8, 8)
    assert p.node_score(share, used) == 100 - 40 // 10  # case 1 on the 400 card
    assert p.node_score(whole, used) == 48             # case 2: max(50 - 2, 33)
    assert p.node_score(P.PodRequest(1000, 0, 0, 0), used) == 0


def test_best_fit_normalize_score_through_extensions():
    b = P.BestFit()
    scores = [NodeScore("a", 34), NodeScore("b", 50), NodeScore("c", 90)]
    assert b.score_extensions().normalize_score(None, None, scores).is_success()
    assert [s.score for s in scores] == [0, 28, 100]
    same = [NodeScore("a", 5), NodeScore("b", 5)]
    b.normalize_score(None, None, same)
    assert [s.score for s in same] == [0, 0]


def test_upstream_strategies_by_hand():
    node = P.NodeView("n", 6000, 8000, 4 << 30, 8 << 30, [1000, 0], "T4")   # 25% cpu, 50% mem, 50% gpu used
    pod = P.PodRequest(2000, 1 << 30, 1, 500)
    # after: cpu 4000/8000, mem 5/8 GiB, gpu 1500/2000
    assert P.LeastAllocated().node_score(pod, node) == (50 + 37 + 25) // 3
    assert P.MostAllocated().node_score(pod, node) == (50 + 62 + 75) // 3
    f = [0.5, 0.625, 0.75]
    mean = sum(f) / 3
    std = (sum((x - mean) ** 2 for x in f) / 3) ** 0.5
    assert P.BalancedAllocation().node_score(pod, node) == int((1 - std) * 100)


def test_random_uses_the_handle_rng_at_prescore():
    p = P.Random(None, SimpleNamespace(rng=random.Random(3)))
    state = CycleState()
    nodes = [SimpleNamespace(name=f"n{i}") for i in range(5)]
    assert p.pre_score(state, None, nodes).is_success()
    got = [p.score(state, None, n)[0] for n in nodes]
    assert sorted(got) == [0, 0, 0, 0, 100]
    assert not p.score(CycleState(), None, nodes[0])[1].is_success()


# ---------------------------------------------------------------------------
# framework face == vectorized face on random states of the real trace


@pytest.fixture(scope="module")
def random_states():
    """A cluster after 4,000 Random placements, as arrays and as framework NodeInfos."""
    d = _trace_dir()
    trace = ab.load_arrays(d)
    with open(d / ab.GPU_NODES_FILE, newline="") as f:
        node_rows = ab.read_node_rows(f, ab.GPU_NODES_FILE)
    with open(d / ab.DEFAULT_PODS_FILE, newline="") as f:
        pod_rows = ab.read_pod_rows(f, ab.DEFAULT_PODS_FILE)
    res = engine.replay(trace, "Random", seed=7, tuning_ratio=0,
                        order=np.random.default_rng(7).permutation(trace.num_pods)[:4000])
    infos = {}
    rng = np.random.default_rng(1)
    sample = sorted(set(rng.choice(trace.num_nodes, 120, replace=False).tolist()) |
                    set(res.node_index[res.node_index >= 0][:40].tolist()))
    for i in sample:
        infos[i] = NodeInfo(ab.node_object(node_rows[i]))
    for e in range(len(res.pod_index)):
        n = int(res.node_index[e])
        if n in infos:
            row = pod_rows[int(res.pod_index[e])]
            infos[n].add_pod(PodInfo(ab.pod_object(row, node_name=node_rows[n].name, gpu_index=res.gpu_cards[e])))
    return trace, res.cluster, infos, pod_rows


@pytest.mark.parametrize("name", [n for n in P.POLICY_NAMES if n != "Random"])
def test_framework_score_equals_vectorized_score(random_states, name):
    trace, cluster, infos, pod_rows = random_states
    typical = P.typical_pods(trace)
    plugin = engine.new_policy(name, typical=typical)
    reqs = engine.pod_requests(trace)
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    picks = list(rng.choice(trace.num_pods, 40, replace=False)) + [1, 2]   # a sharing and a whole-GPU pod
    sample = np.array(sorted(infos))
    checked = 0
    for p in picks:
        req = reqs[int(p)]
        nodes = np.intersect1d(cluster.feasible(req), sample)
        if len(nodes) == 0:
            continue
        fast = plugin.score_nodes(req, cluster, nodes)
        pod_info = PodInfo(ab.pod_object(pod_rows[int(p)]))
        slow = []
        for i in nodes.tolist():
            s, status = plugin.score(CycleState(), pod_info, infos[i])
            assert status.is_success(), status
            slow.append(s)
        slow = np.array(slow)
        if name == "FGD":
            # the literal port sums fragments in the simulator's category order; a node where the
            # pod changes no fragment can land on 49.999... instead of exactly 50 (float rounding)
            assert np.abs(fast - slow).max() <= 1, (req, nodes[fast != slow])
            assert (fast == slow).mean() > 0.97
        else:
            assert np.array_equal(fast, slow), (req, nodes[fast != slow], fast[fast != slow], slow[fast != slow])
        checked += len(nodes)
    assert checked > 500


def test_views_rebuilt_from_annotations_equal_the_arrays(random_states):
    trace, cluster, infos, _ = random_states
    for i, ni in infos.items():
        v = P.node_view(ni)
        assert v.gpu_left == cluster.gpu_left[i, : cluster.gpu_count[i]].tolist()
        assert v.milli_cpu_left == cluster.milli_cpu_left[i] and v.memory_left == cluster.memory_left[i]
        assert v.affinity == {t: int(cluster.affinity[i, c]) for t, c in cluster.affinity_tags.items()
                              if cluster.affinity[i, c] > 0}


def test_gpu_selection_per_policy():
    t = ab.TraceArrays.from_rows([ab.NodeRow("n", 64000, 1 << 40, 4, "T4")], [ab.PodRow("p", 1000, 0, 1, 300)])
    c = engine.ClusterState(t, rng=np.random.default_rng(0))
    c.gpu_left[0] = [1000, 700, 400, 700]
    c.total_gpu_left[0], c.free_cards[0], c.max_gpu_left[0] = 2800, 1, 1000
    share = P.PodRequest(1000, 0, 1, 300)
    assert P.BestFit().select_gpus(share, c, 0) == [2]           # fullest card that fits
    assert P.DotProd().select_gpus(P.PodRequest(1000, 0, 1, 500), c, 0) == [1]  # first of the tied 700s
    assert P.GpuPacking().select_gpus(P.PodRequest(1000, 0, 1, 1000), c, 0) == [0]
    picks = {P.Random().select_gpus(share, c, 0)[0] for _ in range(60)}
    assert picks == {0, 1, 2, 3}
    fgd = engine.new_policy("FGD", typical=P.TypicalPods.from_args(HALF_AND_WHOLE))
    c.state_id[0] = c._state_of(0)
    fgd.score_nodes(share, c, np.array([0]))
    # FGD: 300 on the 400 card strands 100 (below 500, still a fragment for both shapes) but keeps
    # the 700s usable by the 0.5-GPU pods; compare with the literal port
    view = P.NodeView("n", 64000, 64000, 0, 0, [1000, 700, 400, 700], "T4")
    scores = fgd.card_scores(share, view)
    best = max(scores.values())
    assert fgd.select_gpus(share, c, 0) == [min(i for i, s in scores.items() if s == best)]


def test_gpu_packing_keeps_its_per_state_memo_per_cluster():
    # the same state id names different cards in two clusters: a plugin scoring both must not mix them up
    t = ab.TraceArrays.from_rows([ab.NodeRow("n", 64000, 1 << 30, 2, "T4")],
                                 [ab.PodRow("a", 1000, 0, 1, 500), ab.PodRow("b", 1000, 0, 1, 800),
                                  ab.PodRow("q", 1000, 0, 1, 300)])
    a_pod, b_pod, q = engine.pod_requests(t)
    one, two = engine.ClusterState(t), engine.ClusterState(t)
    one.place(0, a_pod, [1])  # cards [1000, 500]
    two.place(0, b_pod, [1])  # cards [1000, 200]
    assert one.state_id.tolist() == two.state_id.tolist() == [1]
    plugin = P.GpuPacking()
    nodes = np.array([0])
    for c in (one, two, one):
        view = P.NodeView("n", int(c.milli_cpu_left[0]), 64000, int(c.memory_left[0]), 1 << 30, c.gpu_left[0].tolist(),
                          "T4")
        assert plugin.score_nodes(q, c, nodes).tolist() == [plugin.node_score(q, view)]
    assert plugin.node_score(q, P.NodeView("n", 63000, 64000, 0, 1 << 30, [1000, 500], "T4")) == 95
