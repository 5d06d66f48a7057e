"""Tests of kubenotes.replay.explain: FGD's decision in numbers agrees with the FGD plugin and its formula.

The score is ``int(100 * sigmoid((before - after) / 1000))`` of the node's
fragmentation before and after the pod (``fgd_score.go`` of
hkust-adsl/kubernetes-scheduler-simulator).
"""

from __future__ import annotations

import math

import pytest

from kubenotes.datasets.alibaba import NodeRow, PodRow, TraceArrays
from kubenotes.replay import cache as rc
from kubenotes.replay import engine
from kubenotes.replay.explain import fgd_explain
from kubenotes.replay.policies import FGD, frag_amount, typical_pods


def toy() -> TraceArrays:
    """Two 4-card nodes and a mix of sharing, whole-GPU and CPU-only pods."""
    nodes = [NodeRow("n1", 64000, 1 << 40, 4, "T4"), NodeRow("n2", 64000, 1 << 40, 4, "T4")]
    pods = [PodRow("a", 2000, 1 << 30, 1, 500), PodRow("b", 2000, 1 << 30, 1, 1000), PodRow("c", 2000, 1 << 30, 1, 300),
            PodRow("d", 1000, 1 << 30, 0, 0), PodRow("e", 2000, 1 << 30, 2, 1000), PodRow("f", 2000, 1 << 30, 1, 500)]
    return TraceArrays.from_rows(nodes, pods, "toy.csv")


def toy_replay(policy: str = "FGD") -> engine.ReplayResult:
    return engine.replay(toy(), policy, seed=3, tuning_ratio=0)


def _sigmoid_score(before: float, after: float) -> int:
    return int(100.0 / (1.0 + math.exp(-(before - after) / 1000.0)))


def test_fgd_explain_scores_are_the_plugins_and_follow_the_formula():
    r = toy_replay()
    t = r.cluster.trace
    typ = typical_pods(t)
    plugin = FGD({"typicalPods": typ.to_args()})
    for e in range(len(r.pod_index)):
        if r.node_index[e] < 0:
            continue
        x = fgd_explain(r, event=e)
        assert x["node"] == t.node_names[int(r.node_index[e])] and x["cards"] == list(r.gpu_cards[e])
        chosen = next(row for row in x["rows"] if row["node"] == x["node"])
        assert chosen["score"] == x["top_score"] == x["rows"][0]["score"]
        c = rc.cluster_at(r, e)
        for row in x["rows"]:
            assert row["score"] == _sigmoid_score(row["frag_before"], row["frag_after"])
            view = rc.node_view_of(c, row["node"])
            assert row["gpu_left"] == view.gpu_left
            assert row["frag_before"] == pytest.approx(frag_amount(view, typ))
            assert plugin.node_score(x["request"], view) == row["score"]  # the literal port agrees


def test_fgd_explain_picks_a_pod_of_the_kind_and_rejects_other_policies():
    r = toy_replay()
    x = fgd_explain(r, 0, kind="whole")
    assert x["request"].num_gpu >= 1 and not x["request"].is_gpu_share
    x = fgd_explain(r, 0, kind="cpu")
    assert x["request"].num_gpu == 0 and x["cards"] == []
    with pytest.raises(ValueError, match="needs an FGD replay"):
        fgd_explain(toy_replay("BestFit"))
