"""Tables, figures and the live panel of chapter 04.04, on toy traces and (when present) the Alibaba trace."""

from __future__ import annotations

import io
import math
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from kubenotes.datasets import alibaba as ab  # noqa: E402
from kubenotes.datasets.alibaba import NodeRow, PodRow, TraceArrays  # noqa: E402
from kubenotes.replay import cache as rc  # noqa: E402
from kubenotes.replay import engine  # noqa: E402
from kubenotes.replay.explain import fgd_explain  # noqa: E402
from kubenotes.replay.policies import FGD, TypicalPods, frag_amount, typical_pods  # noqa: E402
from kubenotes.viz import replay as rv  # noqa: E402
from kubenotes.viz.widgets import CONTROL_CLASS, LIVE_OUTPUT_CLASS  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _trace_dir() -> Path:
    env = os.environ.get(ab.ENV_VAR)
    p = Path(env) if env else REPO.parent / "shared" / "data" / "alibaba-gpu-2023"
    if not (p / ab.DEFAULT_PODS_FILE).is_file():
        if os.environ.get("CI"):
            pytest.fail(f"Alibaba trace missing at {p} (required in CI)")
        pytest.skip(f"Alibaba trace not found at {p}; set {ab.ENV_VAR} to run these tests")
    return p


@pytest.fixture(scope="module")
def trace_dir() -> Path:
    return _trace_dir()


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


# ---------------------------------------------------------------------------
# locating the trace and caching


def test_default_trace_dir_uses_the_environment_and_explains_a_missing_trace(tmp_path, monkeypatch):
    monkeypatch.setenv(ab.ENV_VAR, str(tmp_path))
    with pytest.raises(ab.TraceNotFound) as err:
        ab.default_trace_dir()
    msg = str(err.value)
    assert ab.ENV_VAR in msg and "research or study" in msg and "Weng" in msg and "clusterdata" in msg
    (tmp_path / ab.DEFAULT_PODS_FILE).write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n")
    assert ab.default_trace_dir() == tmp_path


def test_default_trace_dir_falls_back_to_shared_data_beside_the_repository(monkeypatch):
    monkeypatch.delenv(ab.ENV_VAR, raising=False)
    expected = REPO.parent / "shared" / "data" / "alibaba-gpu-2023"
    if (expected / ab.DEFAULT_PODS_FILE).is_file():
        assert ab.default_trace_dir() == expected
    else:
        with pytest.raises(ab.TraceNotFound, match="is not set"):
            ab.default_trace_dir()


def _tiny_dir(tmp_path: Path) -> Path:
    (tmp_path / ab.GPU_NODES_FILE).write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,T4\nn1,64000,262144,2,T4\n")
    pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,4000,1024,1,500\np1,4000,1024,1,1000\np2,2000,1024,0,0\n"
    for f in rc.TRACE_VARIANTS.values():
        (tmp_path / f).write_text(pods)
    return tmp_path


def test_replay_variants_and_their_figure(tmp_path):
    d = _tiny_dir(tmp_path)
    (d / rc.TRACE_VARIANTS["cpu050"]).write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,4000,1024,1,1000\n")
    by_variant = rc.replay_variants(["Random", "FGD"], ["default", "cpu050"], 42, d)
    assert list(by_variant) == ["default", "cpu050"] and list(by_variant["cpu050"]) == ["Random", "FGD"]
    assert by_variant["default"]["FGD"] is rc.cached_replay("FGD", "default", 42, d)       # the same cache
    assert len(by_variant["cpu050"]["FGD"].pod_index) != len(by_variant["default"]["FGD"].pod_index)
    fig = rv.variants_figure(by_variant, 125)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [rv.VARIANT_LABELS["default"], rv.VARIANT_LABELS["cpu050"]]
    dots = {(line.get_color(), int(line.get_ydata()[0])): float(line.get_xdata()[0]) for line in ax.get_lines()}
    drawn = [dots[(rv.POLICY_COLORS[p], row)] for row, v in enumerate(by_variant) for p in by_variant[v]]
    expected = [r.at("allocation", 125) for v in by_variant.values() for r in v.values()]
    assert np.isfinite(expected).all() and drawn == expected
    assert "seed 42" in ax.get_title() and "125% arrived" in ax.get_xlabel()
    with pytest.raises(ValueError, match="unknown trace variant"):
        rc.replay_variants(["FGD"], ["bogus"], 42, d)


# ---------------------------------------------------------------------------
# FGD in numbers


def test_fgd_panel_marks_the_chosen_node_and_card():
    x = fgd_explain(toy_replay(), event=2)
    s = rv.fgd_panel(x)
    assert f"<b>{x['node']}</b> ✔" in s and "sigmoid" in s and f"card {x['cards'][0]}" in s
    assert s._repr_html_() == str(s)
    cards = rv._cards_text([0, 0, 160, 1000, 1000, 1000], [2])
    assert cards.startswith("0×2 <b") and "[160]" in cards and cards.endswith("1000×3")


def test_fragmentation_breakdown_terms_add_up_to_frag_amount():
    typ = TypicalPods.from_args([
        {"milliCpu": 2000, "milliGpu": 500, "gpuNumber": 1, "percentage": 0.4},
        {"milliCpu": 2000, "milliGpu": 1000, "gpuNumber": 1, "percentage": 0.3},
        {"milliCpu": 90000, "milliGpu": 1000, "gpuNumber": 1, "percentage": 0.1},
        {"milliCpu": 1000, "milliGpu": 0, "gpuNumber": 0, "percentage": 0.2},
    ])
    from kubenotes.replay.policies import NodeView

    v = NodeView("n", 16000, 64000, 0, 0, [1000, 600, 300, 0], "T4")
    s = rv.fragmentation_breakdown(v, typ, top=2)
    total = frag_amount(v, typ)
    assert f"F = {total:,.0f}" in s
    # largest terms first: the CPU-only shape (0.2 x 1900 idle), then whole GPUs (0.3 x 900 on the used cards)
    body = s.split("<tbody>")[1]
    assert body.index("asks for no GPU") < body.index("less than 1000 free") and "the other 2 shapes" in body
    assert "not enough CPU" not in body
    full = rv.fragmentation_breakdown(v, typ, top=10)
    assert full.count("<tr") == 1 + 4
    assert "fits; idle GPU on cards with less than 500 free" in full


# ---------------------------------------------------------------------------
# tables and figures


def test_results_table_means_over_seeds_and_shows_the_paper():
    rs = [engine.replay(toy(), "FGD", seed=s) for s in (1, 2)]
    s = rv.results_table({"FGD": rs, "BestFit": engine.replay(toy(), "BestFit", seed=1)}, seconds={"FGD": 0.5})
    assert "95.39" in s and "95.23" in s and "replay seconds" in s and ">2<" in s
    assert "paper" not in rv.results_table({"FGD": rs}, paper=None)


def test_trace_overview_counts_pod_kinds():
    s = rv.trace_overview(toy())
    assert "6: 1 CPU-only" in s and "3 GPU-sharing" in s and "2 whole-GPU" in s and "1 of them multi-GPU" in s


def test_curves_figure_has_three_axes_a_marker_and_paper_diamonds():
    r = toy_replay()
    fig = rv.curves_figure({"FGD": r, "Random": toy_replay("Random")}, 50,
                           paper=engine.PAPER_ALLOCATION_PERCENT, title="toy")
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:2] == ["FGD", "Random"] and "paper (mean of 10 seeds)" in labels
    assert all(str(ax.get_title()).isascii() for ax in fig.axes)
    assert any(line.get_linestyle() == "--" for line in fig.axes[0].get_lines())


def test_curves_view_blits_the_marker_onto_the_same_picture():
    from matplotlib.image import imread

    from kubenotes.viz.widgets import figure_png

    results = {"FGD": toy_replay(), "Random": toy_replay("Random")}
    view = rv._CurvesView(results, paper=engine.PAPER_ALLOCATION_PERCENT, title="toy")
    for pct in (30, 110, 50):
        blit = imread(io.BytesIO(view.png(pct)))
        full = imread(io.BytesIO(figure_png(rv.curves_figure(results, pct, paper=engine.PAPER_ALLOCATION_PERCENT,
                                                             title="toy"))))
        assert blit.shape == full.shape
        # the marker is drawn last, so it may cover an axis spine where a full draw puts the spine on top
        assert (np.abs(blit - full).max(axis=2) > 0.05).sum() < 40


def test_curves_view_shows_another_variant_in_place_as_a_new_view_would():
    """_CurvesView.show_results redraws the same policies' other results on the figure it has: the PNG is byte for
    byte a new view's, at several marker positions; other policies, or a view with the paper's points, decline."""
    first = {"FGD": toy_replay(), "Random": toy_replay("Random")}
    packed = engine.ReplayResult("FGD", 42, "", 1000, np.array([0, 1]), np.array([0, 0]), [[0], [0]],
                                 np.array([500, 1000]), np.array([500, 1000]), np.array([0.0, 0.0]))
    other = {"FGD": packed, "Random": engine.replay(toy(), "Random", seed=11, tuning_ratio=0)}
    assert not np.array_equal(rc.curves(first["Random"])["allocation"], rc.curves(other["Random"])["allocation"],
                              equal_nan=True)
    def zoom_range(results):
        return rv._zoom_ylim(results)

    assert zoom_range(first) != zoom_range(other)
    view = rv._CurvesView(first, title="first")
    first_png = view.png(60)
    view.show_results(other, title="other variant")
    for pct in (60, 110, 20):
        assert view.png(pct) == rv._CurvesView(other, title="other variant").png(pct)
    assert view.png(60) != first_png
    # other policies, the paper's points, a title removed: drawn again on the same Axes, still a new view's picture
    fig = view.figure
    for results, paper, title in [({"Random": first["Random"]}, None, "x"),
                                  (first, engine.PAPER_ALLOCATION_PERCENT, "with paper"),
                                  ({"Random": other["Random"], "FGD": other["FGD"]}, None, None),
                                  (other, None, "other variant")]:
        view.show_results(results, title, paper=paper)
        assert view.figure is fig and len(fig.legends) == 1
        for pct in (60, 125):
            assert view.png(pct) == rv._CurvesView(results, paper=paper, title=title).png(pct), (list(results), title)


def test_occupancy_figure_counts_cards():
    r = toy_replay("BestFit")
    fig = rv.occupancy_figure(r, 130, highlight="n1")
    c = r.cluster
    left = c.gpu_left[:, :4]
    title = fig.axes[0].get_title()
    assert f"{int((left == 0).sum())} full" in title and f"{int((left == 1000).sum())} idle" in title
    assert f"{int(((left > 0) & (left < 1000)).sum())} partly used" in title
    outlines = [p for p in fig.axes[0].patches if p.get_visible()]
    assert len(outlines) == 1 and outlines[0].get_xy()[0] == -0.6  # n1 is the first tile
    assert [t.get_text() for t in fig.legends[0].get_texts()][-1] == "n1"
    assert not [p for p in rv.occupancy_figure(r, 130).axes[0].patches if p.get_visible()]


def test_the_panels_blitted_occupancy_picture_is_the_saved_figure_byte_for_byte():
    """The panel keeps one occupancy figure per trace and redraws only the cards, outline, title and legend: each
    PNG must be exactly what saving a new occupancy_figure gives, whatever was shown before."""
    from kubenotes.viz.controlplane import _png

    results = {p: toy_replay(p) for p in ("BestFit", "FGD")}
    view = rv._Occupancy(rc.trace_of(results["FGD"]), 22, 5.5)
    for policy, pct, highlight in [("FGD", 90, "n1"), ("BestFit", 20, None), ("FGD", 130, "n2"), ("FGD", 0, None)]:
        new = _png(rv.occupancy_figure(results[policy], pct, highlight=highlight, per_row=22, width_inches=5.5))
        assert view.png(results[policy], pct, highlight) == new, (policy, pct, highlight)
    # another pod list on the same nodes (a trace variant) is drawn on the same picture
    nodes = [NodeRow("n1", 64000, 1 << 40, 4, "T4"), NodeRow("n2", 64000, 1 << 40, 4, "T4")]
    variant = engine.replay(TraceArrays.from_rows(nodes, [PodRow("x", 1000, 1 << 30, 1, 700)] * 3, "other.csv"), "FGD",
                            seed=3, tuning_ratio=0)
    assert view.png(variant, 100, "n2") == _png(rv.occupancy_figure(variant, 100, highlight="n2", per_row=22,
                                                                     width_inches=5.5))


def test_placement_graph_links_nodes_cards_and_pods():
    r = toy_replay("BestFit")
    g = rc.placement_graph(r, 130, ["n1", "n2"])
    kinds = {d["kind"] for _, d in g.nodes(data=True)}
    assert kinds == {"node", "card", "pod"}
    assert sum(1 for _, d in g.nodes(data=True) if d["kind"] == "card") == 8
    placed = [e for e in range(len(r.pod_index)) if r.node_index[e] >= 0]
    assert {n for n, d in g.nodes(data=True) if d["kind"] == "pod"} == {f"pod/{e}" for e in placed}
    for e in placed:
        node = r.cluster.trace.node_names[int(r.node_index[e])]
        preds = set(g.predecessors(f"pod/{e}"))
        want = {f"card/{node}/{c}" for c in r.gpu_cards[e]} or {f"node/{node}"}
        assert preds == want
    fig = rv.placement_figure(g, highlight=f"pod/{placed[0]}", title="toy")
    assert isinstance(fig, Figure)
    assert len(rc.placement_graph(r, None, ["n1"], events=0).nodes) == 5


def test_schedule_comparison_counts_nodes_and_differences():
    a = [{"namespace": "ns", "name": "p", "nodeName": "n1"}, {"namespace": "ns", "name": "q", "nodeName": None},
         {"namespace": "ns", "name": "q", "nodeName": "n2"}]
    b = [{"namespace": "ns", "name": "p", "nodeName": "n1"}, {"namespace": "ns", "name": "q", "nodeName": "n1"}]
    s = rv.schedule_comparison({"default": a, "mine": b})
    summary = s.split("</table>")[0]
    rows = summary.split("<tr")[2:]
    assert ">2<" in rows[0] and ">1<" in rows[1]  # nodes used: 2 vs 1 (last attempt of q counts)
    assert "ns/q" in s and "background:#fff8e1" in s


# ---------------------------------------------------------------------------
# the real trace


def test_the_chapters_claims_on_the_real_trace(trace_dir):
    res = rc.replay_policies(["Random", "BestFit", "FGD"], "default", 42, trace_dir)
    a130 = {p: r.at("allocation", 130) for p, r in res.items()}
    assert a130["FGD"] > a130["BestFit"] > a130["Random"]
    x = fgd_explain(res["FGD"], 60)
    assert x["ties"] == 1 and x["rows"][0]["node"] == x["node"]
    assert x["rows"][0]["frag_after"] < x["rows"][0]["frag_before"]
    for row in x["rows"]:
        assert row["score"] == _sigmoid_score(row["frag_before"], row["frag_after"])
    c = rc.cluster_at(res["FGD"], x["event"])
    typ = typical_pods(res["FGD"].cluster.trace)
    plugin = FGD({"typicalPods": typ.to_args()})
    for row in x["rows"][:5] + x["rows"][-3:]:
        assert plugin.node_score(x["request"], rc.node_view_of(c, row["node"])) == row["score"]


def test_the_live_panel_slider_comes_first_and_updates_are_fast(trace_dir):
    panel = rv.replay_panel(["BestFit", "FGD"], "default", 90, "FGD", trace_dir=trace_dir)
    rows = [w for w in panel.children if isinstance(w, widgets.HBox)]
    controls = [c for r in rows for c in r.children]
    assert isinstance(controls[0], widgets.IntSlider) and controls[0].value == 90
    assert all(CONTROL_CLASS in c._dom_classes for c in controls)
    assert LIVE_OUTPUT_CLASS in panel.children[-1]._dom_classes
    view = rv.replay_view(["BestFit", "FGD"], "default", 95, "FGD", trace_dir=trace_dir)
    assert isinstance(view[0], Figure) and "data:image/png;base64," in view[1] and "FGD scores pod" in view[1]
    assert rv.update_seconds(policies=["BestFit", "FGD"], arrived_percent=100, trace_dir=trace_dir) < 5.0


def test_curves_and_occupancy_figures_fit_the_output_column():
    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    curves = rv.curves_figure({"FGD": toy_replay(), "Random": toy_replay("Random")}, 90,
                              paper=engine.PAPER_ALLOCATION_PERCENT, title="toy")
    assert 800 < inline_png_size(curves)[0] <= MAX_INLINE_WIDTH_PX  # was 1,239 px in chapter 04.04 (shown at 81 %)
    occupancy = rv.occupancy_figure(toy_replay("BestFit"), 90, highlight="n1")
    assert 800 < inline_png_size(occupancy)[0] <= MAX_INLINE_WIDTH_PX  # was 1,133 px (shown at 89 %)
