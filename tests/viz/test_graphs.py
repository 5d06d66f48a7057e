"""Topology graph zones -> nodes -> pods: structure, fixed layout, highlights."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from kubenotes.scheduler.testing import make_node, make_pod  # noqa: E402
from kubenotes.viz.graphs import (  # noqa: E402
    NO_ZONE,
    ZONE_LABEL,
    topology_figure,
    topology_graph,
)


def cluster():
    nodes = [
        make_node("worker-b-1", labels={ZONE_LABEL: "zone-b"}),
        make_node("cp-1", labels={ZONE_LABEL: "zone-a"},
                  taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]),
        make_node("worker-a-1", labels={ZONE_LABEL: "zone-a"}),
        make_node("gpu-b-1", labels={ZONE_LABEL: "zone-b"},
                  taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        make_node("loose"),
    ]
    pods = [
        make_pod("low", "batch", node_name="worker-a-1", priority=-100),
        make_pod("high", "web", node_name="worker-a-1", priority=1000),
        make_pod("kube-proxy-x", "kube-system", node_name="worker-a-1", priority=2000001000),
        make_pod("etcd-cp-1", "kube-system", node_name="cp-1", priority=2000001000),
        make_pod("pending", "web"),
        make_pod("orphan", "web", node_name="not-in-input"),
    ]
    return nodes, pods


def test_graph_is_zone_node_pod_tree_with_upstream_names():
    g = topology_graph(*cluster())
    kinds = {v: d["kind"] for v, d in g.nodes(data=True)}
    assert [v for v, k in kinds.items() if k == "zone"] == [f"zone/{NO_ZONE}", "zone/zone-a", "zone/zone-b"]
    assert set(g.successors("zone/zone-a")) == {"node/cp-1", "node/worker-a-1"}
    assert list(g.successors("node/worker-a-1")) == [
        "pod/kube-system/kube-proxy-x", "pod/web/high", "pod/batch/low"]  # priority descending
    assert "pod/web/pending" not in g and "pod/web/orphan" not in g
    assert g.nodes["node/gpu-b-1"]["taints"] == ["dedicated=gpu:NoSchedule"]
    assert g.nodes["node/cp-1"]["taints"] == ["node-role.kubernetes.io/control-plane:NoSchedule"]
    assert g.nodes["pod/batch/low"] == {"kind": "pod", "name": "batch/low", "node": "worker-a-1", "priority": -100}
    assert all(g.in_degree(v) == 1 for v, k in kinds.items() if k != "zone")


def _texts(ax):
    return {t.get_text(): t for t in ax.texts}


def _positions(fig):
    """First line of each box's label -> its (x, y) in layout units."""
    pos = {t.get_text().split("\n")[0]: t.get_position() for t in fig.axes[0].texts}
    plt.close(fig)
    return pos


def test_layout_is_fixed_and_deterministic():
    nodes, pods = cluster()
    pos = _positions(topology_figure(topology_graph(nodes, pods)))
    assert pos == _positions(topology_figure(topology_graph(list(reversed(nodes)), list(reversed(pods)))))
    assert {pos[z][1] for z in ("zone zone-a", "zone zone-b", NO_ZONE)} == {2.0}
    assert {pos[n][1] for n in ("cp-1", "worker-a-1", "gpu-b-1", "worker-b-1", "loose")} == {1.0}
    # pods stack under their node, zones sit above the middle of their nodes
    assert pos["high"][0] == pos["worker-a-1"][0]
    assert pos["high"][1] < 0.5 and pos["low"][1] < pos["high"][1]
    assert pos["zone zone-a"][0] == pytest.approx((pos["cp-1"][0] + pos["worker-a-1"][0]) / 2)


def test_draw_highlights_winner_and_victims_and_folds_kube_system():
    g = topology_graph(*cluster())
    fig = topology_figure(g, winner="worker-a-1", victims=["batch/low"], incoming="data/big")
    ax = fig.axes[0]
    try:
        texts = _texts(ax)
        winner_box = texts["worker-a-1"].get_bbox_patch()
        victim_box = next(t for s, t in texts.items() if s.startswith("low\n")).get_bbox_patch()
        assert mcolors.to_hex(winner_box.get_edgecolor()) == "#2e7d32"
        assert mcolors.to_hex(victim_box.get_facecolor()) == "#ffcdd2"
        assert "+1 kube-system pod" in texts and "pending pod\ndata/big" in texts
        assert not any(s.startswith("kube-proxy-x") for s in texts)
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "chosen node: worker-a-1" in legend and "victim (evicted by preemption)" in legend
    finally:
        plt.close(fig)


def test_victims_are_never_folded_and_cap_adds_more_box():
    nodes = [make_node("n1")]
    pods = [make_pod(f"p{i}", node_name="n1", priority=i) for i in range(12)]
    pods.append(make_pod("sys", "kube-system", node_name="n1", priority=5))
    g = topology_graph(nodes, pods)
    fig = topology_figure(g, victims=["default/p0", "kube-system/sys"], max_pods_per_node=4)
    ax = fig.axes[0]
    try:
        texts = _texts(ax)
        shown = {s.split("\n")[0] for s in texts}
        assert {"p0", "sys", "p11", "p10"} <= shown  # victims first, then highest priority
        assert "+9 more" in texts
    finally:
        plt.close(fig)


def test_unknown_winner_raises():
    g = topology_graph(*cluster())
    with pytest.raises(KeyError):
        topology_figure(g, winner="nope")


def test_figure_is_sized_to_the_cluster():
    nodes, pods = cluster()
    small = topology_figure(topology_graph(nodes[:1]))
    big = topology_figure(topology_graph(nodes, pods), title="cluster", winner="cp-1", winner_label="nominatedNodeName")
    try:
        assert big.get_figwidth() >= small.get_figwidth()
        assert big.axes[0].get_title() == "cluster"
        assert "nominatedNodeName: cp-1" in [t.get_text() for t in big.axes[0].get_legend().get_texts()]
    finally:
        plt.close(small)
        plt.close(big)


def test_sample_cluster_topology_fits_a_1000px_column():
    from kubenotes.api.manifests import load_manifests
    from kubenotes.data import sample
    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    m = load_manifests(sample("cluster"))
    g = topology_graph(m.nodes, m.pods)
    for fig in (topology_figure(g, title="data/cluster: zones -> nodes -> running pods"),
                topology_figure(g, winner="worker-a-1", incoming="data/ledger-migration",
                                winner_label="nominatedNodeName", title="Preemption: nominated node and victims")):
        width, _ = inline_png_size(fig)
        assert 700 < width <= MAX_INLINE_WIDTH_PX  # nine nodes: was 1,396 px (chapters 01.00 and 04.00)
        plt.close(fig)
