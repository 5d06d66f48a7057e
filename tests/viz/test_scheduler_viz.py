"""Scheduler tables and plots, from hand-made trace results (the CLI's JSON contract)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from kubenotes.viz import scheduler as sv  # noqa: E402

WEIGHTS = {"TaintToleration": 3, "NodeResourcesFit": 1}


def scheduled():
    return {
        "namespace": "web", "name": "web-x", "nodeName": "worker-b-1", "qosClass": "Burstable", "priority": 1000,
        "filter": {
            "cp-1": {"NodeUnschedulable": "passed", "TaintToleration":
                     "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
            "worker-a-1": {"NodeUnschedulable": "passed", "TaintToleration": "passed", "NodeResourcesFit": "passed"},
            "worker-b-1": {"NodeUnschedulable": "passed", "TaintToleration": "passed", "NodeResourcesFit": "passed"},
        },
        "score": {"worker-a-1": {"TaintToleration": 100, "NodeResourcesFit": 40},
                  "worker-b-1": {"TaintToleration": 100, "NodeResourcesFit": 70}},
        "finalScore": {"worker-a-1": {"TaintToleration": 300, "NodeResourcesFit": 40},
                       "worker-b-1": {"TaintToleration": 300, "NodeResourcesFit": 70}},
        "totalScore": {"worker-a-1": 340, "worker-b-1": 370},
        "message": None, "nominatedNodeName": None, "victims": [],
    }


def pending():
    return {
        "namespace": "batch", "name": "big", "nodeName": None, "qosClass": "Guaranteed", "priority": 0,
        "filter": {"cp-1": {"TaintToleration": "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
                   "worker-a-1": {"TaintToleration": "passed", "NodeResourcesFit": ["Insufficient cpu", "Insufficient memory"]}},
        "score": {}, "finalScore": {}, "totalScore": {},
        "message": "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) had untolerated "
                   "taint {node-role.kubernetes.io/control-plane: }. preemption: 0/2 nodes are available: "
                   "1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
        "nominatedNodeName": None, "victims": [],
    }


def test_filter_table_keeps_upstream_reasons_verbatim_and_marks_not_run():
    t = sv.filter_table(scheduled())
    assert "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }" in t
    # columns in first-appearance order; cp-1 never reached NodeResourcesFit
    heads = t.split("<thead>")[1].split("</thead>")[0]
    assert heads.index("NodeUnschedulable") < heads.index("TaintToleration") < heads.index("NodeResourcesFit")
    cp_row = next(r for r in t.split("<tr>") if ">cp-1<" in r)
    assert "·" in cp_row and ">filtered out<" in cp_row
    assert t.count(">feasible<") == 2
    assert "Insufficient cpu; Insufficient memory" in sv.filter_table(pending())


def test_html_is_escaped():
    r = scheduled()
    r["filter"]["cp-1"]["TaintToleration"] = "<script>x</script>"
    assert "<script>" not in sv.filter_table(r) and "&lt;script&gt;" in sv.filter_table(r)


def test_score_heatmap_rows_sorted_by_total_with_exact_numbers():
    fig = sv.score_heatmap(scheduled(), weights=WEIGHTS)
    try:
        raw_ax, final_ax, total_ax = fig.axes[:3]
        assert [t.get_text() for t in raw_ax.get_yticklabels()] == ["worker-b-1", "worker-a-1"]
        assert [t.get_text() for t in raw_ax.texts] == ["100", "70", "100", "40"]
        assert [t.get_text() for t in final_ax.texts] == ["300", "70", "300", "40"]
        assert [t.get_text() for t in final_ax.get_xticklabels()] == ["TaintToleration x3", "NodeResourcesFit x1"]
        assert [t.get_text().strip() for t in total_ax.texts] == ["370", "340"]
        assert "winner worker-b-1" in fig._suptitle.get_text()
        assert len(raw_ax.patches) == 1  # winner outline
    finally:
        plt.close(fig)


def test_score_heatmap_refuses_unscored_result():
    with pytest.raises(ValueError, match="batch/big has no scores"):
        sv.score_heatmap(pending())


def test_score_table_and_winner_banner():
    t = sv.score_table(scheduled(), weights=WEIGHTS)
    assert "70 → 70" in t and "100 → 300" in t and t.index("worker-b-1") < t.index("worker-a-1")
    b = sv.winner_banner(scheduled())
    assert "<b>worker-b-1</b>" in b and "totalScore <b>370</b>" in b and "runner-up worker-a-1: 340" in b
    p = sv.winner_banner(pending())
    assert "stays Pending" in p and "0/2 nodes are available" in p
    only = dict(scheduled(), score={}, finalScore={}, totalScore={})
    assert "Score skipped" in sv.winner_banner(only)


def test_failed_scheduling_prints_event_and_first_rejection_per_node():
    html = sv.failed_scheduling(pending())
    assert "Warning  FailedScheduling  default-scheduler  0/2 nodes are available: 1 Insufficient cpu" in html
    row = next(r for r in html.split("<tr>") if ">worker-a-1<" in r)
    assert "NodeResourcesFit" in row and "Insufficient cpu; Insufficient memory" in row
    with pytest.raises(ValueError):
        sv.failed_scheduling(scheduled())


def test_summary_and_results_table():
    s = sv.trace_summary(scheduled())
    assert "web/web-x" in s and "2 of 3 nodes" in s and "totalScore 370" in s and "runner-up" in s
    p = sv.trace_summary(dict(pending(), nominatedNodeName="worker-a-1", victims=["batch/pi-1"]))
    assert "stays Pending" in p and "batch/pi-1" in p and "nominatedNodeName" in p
    t = sv.results_table([scheduled(), pending()])
    assert t.count("<tr>") == 3 and "Pending" in t and "worker-b-1" in t


def test_legacy_names_table_accepts_dicts_tuples_and_namedtuples():
    from collections import namedtuple

    Row = namedtuple("Row", "legacy plugin")
    for rows in ([{"legacy": "PodFitsResources", "plugin": "NodeResourcesFit"}],
                 [("PodFitsResources", "predicate", "NodeResourcesFit")],
                 [Row("PodFitsResources", "NodeResourcesFit")]):
        t = sv.legacy_names_table(rows)
        assert "PodFitsResources" in t and "NodeResourcesFit" in t
    assert "<th" in sv.legacy_names_table([("a", "b", "c")]) and "legacy name" in sv.legacy_names_table([("a", "b")])


def test_extension_points_graph_and_figure():
    g = sv.extension_points_graph({"Score": ["NodeResourcesFit"], "PostFilter": ["DefaultPreemption"]})
    assert list(g.nodes) == list(sv.EXTENSION_POINT_FLOW)
    assert len(sv.EXTENSION_POINT_FLOW) == 13
    assert g.edges["Filter", "PostFilter"]["when"] == "no feasible node"
    assert g.out_degree("PostFilter") == 0 and g.out_degree("PostBind") == 0
    assert g.nodes["NormalizeScore"]["plugins"] == ["NodeResourcesFit"]
    assert g.nodes["Score"]["legacy"] == "priorities (score)" and g.nodes["Bind"]["legacy"] == ""
    fig = sv.extension_points_figure({"Filter": ["NodeName"]})
    try:
        texts = {t.get_text() for t in fig.axes[0].texts}
        assert set(sv.EXTENSION_POINT_FLOW) <= texts and "NodeName" in texts
        assert {"predicates (filter)", "priorities (score)", "binding cycle"} <= texts
    finally:
        plt.close(fig)


# ---------------------------------------------------------------------------
# the chapter's widget and preemption tables, on the sample cluster

from kubenotes.api.manifests import load_manifests  # noqa: E402
from kubenotes.data import sample  # noqa: E402
from kubenotes.scheduler.config import SCORING_STRATEGIES  # noqa: E402
from kubenotes.scheduler.whatif import schedule_pending  # noqa: E402

CONFIG = sample("scheduling", "scheduler-config.yaml")


@pytest.fixture(scope="module")
def fits():
    m = load_manifests(sample("cluster"), sample("scheduling", "fits.yaml"))
    return m, m.get("Pod", "web-7c9d8f6b5d-x8k2q", namespace="web")


def test_panel_first_control_is_a_weight_slider_that_changes_the_output(fits, monkeypatch):
    import ipywidgets as widgets

    import kubenotes.viz.widgets as kw

    m, pod = fits
    shown = []
    monkeypatch.setattr(kw, "show", lambda result: shown.append(result))
    panel = sv.scheduling_panel(m, pod, config=CONFIG, plugins=["NodeResourcesFit", "ImageLocality"])
    first = panel.children[0].children[0]
    assert isinstance(first, widgets.IntSlider) and kw.CONTROL_CLASS in first._dom_classes
    assert first.description == "NodeResourcesFit" and first.value == 1
    banner, heat = shown[-1]
    assert "worker-b-2" in banner and "NodeResourcesFit ×1" in heat.replace("<wbr>", "")
    first.value = 4
    banner4, heat4 = shown[-1]
    assert heat4 != heat and "NodeResourcesFit ×4" in heat4.replace("<wbr>", "")
    controls = [c for row in panel.children[:-1] for c in row.children]
    cpu = next(c for c in controls if c.description.startswith("requests.cpu"))
    cpu.value = 8000
    assert "stays Pending" in shown[-1][0] and "FailedScheduling" in shown[-1][1]
    strategy = next(c for c in controls if isinstance(c, widgets.Dropdown) and "scoringStrategy" in c.description)
    assert strategy.value == "MostAllocated" and list(strategy.options) == list(SCORING_STRATEGIES)


def test_priority_and_preemption_tables():
    pm = load_manifests(sample("cluster"), sample("scheduling", "preemption.yaml"))
    first = schedule_pending(pm, config=CONFIG, seed=0)[0]
    t = sv.preemption_table(pm, first)
    assert "high-priority" in t and all(v in t for v in first["victims"])
    pcs = sv.priority_classes_table(pm.priority_classes)
    assert pcs.index("high-priority") < pcs.index("batch-low") and ">Never<" in pcs


def test_chapter_figures_fit_a_1000px_column():
    from kubenotes.api.manifests import load_manifests
    from kubenotes.data import sample
    from kubenotes.scheduler.whatif import enabled_plugins, schedule_pending, score_weights
    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    config = sample("scheduling", "scheduler-config.yaml")
    web = schedule_pending(load_manifests(sample("cluster"), sample("scheduling", "fits.yaml")), config=config, seed=0)[0]
    for fig in (sv.extension_points_figure(enabled_plugins(config)),  # was 1,049 px in chapter 04.00
                sv.score_heatmap(web, weights=score_weights(config))):  # was 1,160 px
        width, _ = inline_png_size(fig)
        assert 600 < width <= MAX_INLINE_WIDTH_PX
        plt.close(fig)


def _controls(panel):
    return [c for row in panel.children[:-1] for c in row.children]


def _positions(c):
    """min / middle / max of a slider, every option of a dropdown, both states of a checkbox."""
    import ipywidgets as widgets

    if isinstance(c, widgets.Checkbox):
        return [not c.value, c.value]
    if isinstance(c, widgets.Dropdown):
        return [v for _, v in c.options] if c.options and isinstance(c.options[0], tuple) else list(c.options)
    return [c.min, c.min + (c.max - c.min) // 2 // c.step * c.step, c.max]


def _sweep(panel, shown):
    """Move each control through its positions (the others as they are); every move must show new output."""
    outputs = {}
    for c in _controls(panel):
        start = c.value
        for v in _positions(c):
            c.value = v  # an exception in the callback propagates here
            outputs[(c.description, v)] = shown[-1]
        c.value = start
    return outputs


@pytest.fixture(scope="module")
def preempt():
    pm = load_manifests(sample("cluster"), sample("scheduling", "preemption.yaml"))
    return pm, pm.get("Pod", "ledger-migration", namespace="data")


def _capture(monkeypatch):
    import kubenotes.viz.widgets as kw

    shown = []
    monkeypatch.setattr(kw, "show", lambda result: shown.append(result))
    return shown


def _slider_tracks_at_least_150px(panel):
    import ipywidgets as widgets

    for c in _controls(panel):
        if isinstance(c, widgets.IntSlider):
            total = int(c.layout.width.removesuffix("px"))
            label = int(c.style.description_width.removesuffix("px"))
            assert total - label - 60 >= 150, c.description  # 60 px: the readout


def test_pod_affinity_panel_every_control_renders_and_changes_the_tables(fits, monkeypatch):
    from kubenotes.scheduler.whatif import pod_variant

    m, pod = fits
    shown = _capture(monkeypatch)
    tolerant = pod_variant(pod, tolerate=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    panel = sv.pod_affinity_panel(m, tolerant, config=CONFIG, images=["nvcr.io/nvidia/pytorch:24.08-py3"])
    banner, ipa_table, il_table = shown[-1]
    assert "worker-b-2" in banner and ">100<" in ipa_table  # preferred affinity to the redis pod's node
    outs = _sweep(panel, shown)
    assert "node(s) didn&#x27;t match pod affinity rules" in outs[("term", "required")][1]
    assert "stays Pending" not in outs[("affinity", "none")][0]
    anti = outs[("affinity", "podAntiAffinity")][1]
    assert ">-100<" in anti and "worker-b-2" not in outs[("affinity", "podAntiAffinity")][0]
    torch = outs[("image", "nvcr.io/nvidia/pytorch:24.08-py3")]
    assert torch[2] != il_table and "gpu-a-1" in torch[2]
    _slider_tracks_at_least_150px(panel)


def test_preemption_panel_sweep_and_pdb_moves_the_nomination(preempt, monkeypatch):
    m, pod = preempt
    shown = _capture(monkeypatch)
    panel = sv.preemption_panel(m, pod, config=CONFIG)
    prio, use_pdb, max_unavailable = _controls(panel)
    assert (prio.min, prio.max, prio.value) == (-200, 2000, 2000)  # 1000000 clamped to the range
    assert "nominatedNodeName <b>worker-c-2</b>" in shown[-1][0]
    use_pdb.value = True
    assert "nominatedNodeName <b>worker-b-1</b>" in shown[-1][0] and "data/postgres-1" in shown[-1][0]
    prio.value = -200
    assert "no node nominated" in shown[-1][0] and "No preemption victims found for incoming pod" in shown[-1][0]
    prio.value, use_pdb.value = 2000, False
    outs = _sweep(panel, shown)
    assert len({o[0] for o in outs.values()}) >= 3
    _slider_tracks_at_least_150px(panel)


def test_extender_panel_sweep_weight_scales_the_extender_column(fits, monkeypatch):
    m, pod = fits
    shown = _capture(monkeypatch)
    panel = sv.extender_panel(m, pod, config=sample("extenders", "scheduler-config.yaml"))
    avoid, prefer, weight = _controls(panel)
    assert (avoid.value, prefer.value, weight.value) == ("us-central1-c", "us-central1-a", 2)
    banner, column, calls = shown[-1]
    assert "worker-a-2" in banner and "zone us-central1-c is avoided by the extender" in column
    assert "ExtenderFilterResult" in calls and "HostPriorityList" in calls and "ExtenderBindingArgs" in calls
    weight.value = 10
    assert ">1000<" in shown[-1][1]
    outs = _sweep(panel, shown)
    assert outs[("extender weight", 1)][1] != outs[("extender weight", 10)][1]
    _slider_tracks_at_least_150px(panel)


def test_exchanges_table_shows_pod_by_name_and_breaks_long_json():
    t = sv.extender_exchanges_table([("filter", {"Pod": {"metadata": {"name": "p", "namespace": "a"}},
                                                 "NodeNames": ["n" * 50] * 10}, 200, {"NodeNames": []})], width=40)
    assert '"Pod":"a/p"' in t.replace("&quot;", '"') and "…" in t and "word-break:break-all" in t
    assert "ExtenderArgs" in t and "ExtenderFilterResult" in t


def test_tables_joined_with_a_banner_or_legend_still_display_as_html():
    # Html + str is a plain str, which Jupyter shows as its repr: raw '<table ...' markup (04.00 cells 37, 44).
    from kubenotes.viz.html import Html
    from kubenotes.viz.scheduler import plugin_column_table, preemption_candidates_table

    r = {"name": "p", "nodeName": "n2", "filter": {"n2": {"InterPodAffinity": "passed"}},
         "score": {"n2": {"InterPodAffinity": 0}}, "finalScore": {"n2": {"InterPodAffinity": 0}}, "totalScore": {"n2": 0}}
    assert isinstance(plugin_column_table(r, "InterPodAffinity"), Html)
    c = {"name": "p", "priority": 10, "nominatedNodeName": "n1", "victims": ["default/low"], "candidates": [
        {"node": "n1", "victims": ["default/low"], "pdb_violations": 0, "status": "candidate", "selected": True}]}
    assert isinstance(preemption_candidates_table(c), Html)
