"""The QoS and eviction chapter's views (kubenotes.viz.qos): values, graph, timeline, orders, widgets.

The memory-pressure run and the kill orders they draw are tested in tests/sim/test_scenarios.py.
"""

from __future__ import annotations

import contextlib
import io

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from kubenotes.kubelet.cgroups import cgroup_tree_graph, qos_values  # noqa: E402
from kubenotes.sim.scenarios import memory_pressure_pods, simulate_memory_pressure, single_container_pod  # noqa: E402
from kubenotes.viz.qos import (  # noqa: E402
    GI,
    MI,
    cgroup_driver_table,
    cgroup_tree_figure,
    eviction_timeline_figure,
    eviction_timeline_table,
    kill_orders_table,
    memory_pressure_panel,
    memory_pressure_view,
    qos_panel,
    qos_view,
)


@pytest.mark.parametrize(
    "args, qos, adj",
    [
        ((500, 500, 1024, 1024), "Guaranteed", -997),
        ((0, 0, 0, 0), "BestEffort", 1000),
        ((250, 500, 1024, 2048), "Burstable", 875),   # 1000 - 1000 * 1Gi / 8Gi
        ((0, 1000, 0, 1024), "Guaranteed", -997),     # limits only: requests default to them
        ((100, 0, 0, 0), "Burstable", 999),           # no memory request: 1000 clamped to 999
    ],
)
def test_qos_values_class_and_oom_score_adj(args, qos, adj):
    v = qos_values(single_container_pod("app", *args), 8 * GI)
    assert (v["qosClass"], v["oom_score_adj"]) == (qos, adj)


def test_qos_values_cgroup_files():
    g = qos_values(single_container_pod("app", 500, 500, 1024, 1024))
    assert g["pod cgroup"] == "/kubepods/podapp"
    assert (g["cpu.shares"], g["cpu.weight"], g["cpu.max"], g["memory.max"]) == ("512", "20", "50000 100000", str(GI))
    b = qos_values(single_container_pod("app", 250, 0, 256, 0))
    assert b["pod cgroup"] == "/kubepods/burstable/podapp"
    assert b["memory.max"] == "-" and b["container memory.max"] == "max" and b["cpu.shares"] == "256"
    be = qos_values(single_container_pod("app"))
    assert be["pod cgroup"] == "/kubepods/besteffort/podapp" and be["cpu.shares"] == "2" and be["cpu.weight"] == "1"


def test_qos_view_and_panel():
    assert "Burstable" in qos_view(256, 512, 250, 500)
    assert "BestEffort" in qos_view(0, 0, 0, 0)
    # the API server's own message (ValidateResourceRequirements: the path names the resource), each error once
    assert qos_view(1024, 512, 0, 0) == ('<b>Invalid:</b> spec.containers[0].resources.requests[memory]: Invalid '
                                         'value: "1Gi": must be less than or equal to memory limit of 512Mi')
    assert qos_view(1024, 512, 500, 250).count("<b>Invalid:</b>") == 2
    assert "oom_score_adj</td><td" in qos_view(1024, 2048, 0, 0, 8) and ">875<" in qos_view(1024, 2048, 0, 0, 8)
    with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
        panel = qos_panel()
    first = panel.children[0].children[0]
    assert first.description == "memory request (Mi)" and "kubenotes-control" in first._dom_classes
    assert "kubenotes-live-output" in panel.children[-1]._dom_classes


def test_cgroup_tree_graph_places_pods_by_qos():
    g = cgroup_tree_graph(memory_pressure_pods(), {"cpu": "2", "memory": "4Gi"})
    assert set(g.successors("/kubepods")) == {"/kubepods/burstable", "/kubepods/besteffort", "/kubepods/poddb"}
    assert list(g.successors("/kubepods/burstable")) == ["/kubepods/burstable/podweb"]
    assert g.nodes["/kubepods/besteffort/podbatch"]["files"] == {"cpu.weight": "1"}
    assert g.nodes["/kubepods/poddb"]["files"]["memory.max"] == str(GI)
    fig = cgroup_tree_figure(g)
    assert len(fig.axes[0].texts) == g.number_of_nodes() + g.number_of_edges()  # boxes and arrows


def test_kill_orders_table_names_the_kubelets_and_the_kernels_picks():
    prio = simulate_memory_pressure(best_effort_priority=1000)
    html = kill_orders_table(prio)
    assert "web (Burstable, priority 0" in html and "batch (BestEffort, oom_score_adj 1000" in html


def test_timeline_views():
    s = simulate_memory_pressure()
    table = eviction_timeline_table(s)
    assert table.count("<tr>") < len(s.manager.timeline) and "default/batch (grace 1s)" in table
    fig = eviction_timeline_figure(s)
    assert len(fig.axes) == 2 and len(fig.axes[1].lines) >= 3
    # the kubelet model starts the pods at about 2 s; the file's usage steps begin at 20 s
    assert s.manager.timeline[0].pod_memory_bytes == {}
    assert s.manager.timeline[2].pod_memory_bytes == {"db": 900 * MI, "web": 330 * MI, "batch": 160 * MI}


def test_memory_pressure_view_and_panel():
    slow, fast = memory_pressure_view(180, 0, 60), memory_pressure_view(360, 0, 60)
    assert slow.axes[0].get_title().endswith("first eviction batch at 490s")
    assert fast.axes[0].get_title() != slow.axes[0].get_title()
    with contextlib.redirect_stdout(io.StringIO()):
        panel = memory_pressure_panel()
    assert panel.children[0].children[0].description == "batch growth (Mi/min)"


def test_memory_pressure_panel_draws_once_for_grace_periods_without_soft_threshold(monkeypatch):
    import kubenotes.viz.qos as qos_viz

    calls = []
    monkeypatch.setattr(qos_viz, "memory_pressure_view",
                        lambda figure=None, **values: calls.append(values) or None)
    with contextlib.redirect_stdout(io.StringIO()):
        panel = memory_pressure_panel()
        growth, soft, grace = (c for row in panel.children[:2] for c in row.children)
        grace.value = 120  # evictionSoft off (0): the same run and figure as any other grace period
        grace.value = 30
        soft.value = 1024  # now the grace period is the run's evictionSoftGracePeriod
        grace.value = 120
    assert calls == [
        {"batch_growth_mi_per_minute": 180, "soft_threshold_mi": 0, "soft_grace_seconds": 0},
        {"batch_growth_mi_per_minute": 180, "soft_threshold_mi": 1024, "soft_grace_seconds": 30},
        {"batch_growth_mi_per_minute": 180, "soft_threshold_mi": 1024, "soft_grace_seconds": 120},
    ]


def _sweep(panel) -> list[tuple[str, int, str]]:
    """Move every slider of ``panel`` to its minimum, middle and maximum (the others as they are); collect errors."""
    seen = []
    sliders = [c for row in panel.children[:-1] for c in row.children]
    for s in sliders:
        start = s.value
        for v in (s.min, s.min + (s.max - s.min) // 2 // s.step * s.step, s.max):
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                    s.value = v
            except Exception as e:  # the callback's exception, as the Output widget would show it
                out.write(f"Traceback: {e!r}")
            if "Traceback" in out.getvalue() or "Error" in out.getvalue():
                seen.append((s.description, v, out.getvalue()[-200:]))
        with contextlib.redirect_stdout(io.StringIO()):
            s.value = start
    return seen


def test_qos_panel_every_slider_at_min_middle_max_renders():
    with contextlib.redirect_stdout(io.StringIO()):
        panel = qos_panel()
    node = next(c for row in panel.children[:-1] for c in row.children if c.description == "node memory (Gi)")
    assert node.min == 1  # a node has memory: 0 made container_oom_score_adjust raise ValueError
    assert _sweep(panel) == []


def test_qos_view_renders_every_corner_of_the_sliders():
    import itertools

    for args in itertools.product((0, 2048, 4096), (0, 4096), (0, 4000), (0, 2000, 4000), (1, 64)):
        assert "<table" in qos_view(*args) or "Invalid:" in qos_view(*args), args


def test_memory_pressure_view_drawn_into_a_kept_figure_is_a_new_figure():
    """The panel draws every position into one figure: the picture is the one a new figure of that position gives."""
    from kubenotes.viz.widgets import figure_png

    kept = memory_pressure_view(600, 2048, 0)
    for args in ((60, 0, 0), (180, 512, 60), (360, 128, 300)):
        assert memory_pressure_view(*args, figure=kept) is kept
        assert figure_png(kept) == figure_png(memory_pressure_view(*args)), args


def test_memory_pressure_panel_extremes_run():
    # the sliders' far corners: fastest growth, highest soft threshold, no grace period / the longest one
    assert memory_pressure_view(600, 2048, 0).axes[0].get_title().endswith("first eviction batch at 30s")
    assert memory_pressure_view(600, 128, 300).axes[0].get_title().endswith("first eviction batch at 190s")


def test_cgroup_tree_graph_spells_the_systemd_driver_and_keeps_the_files():
    fs = cgroup_tree_graph(memory_pressure_pods(), {"cpu": "2", "memory": "4Gi"})
    sd = cgroup_tree_graph(memory_pressure_pods(), {"cpu": "2", "memory": "4Gi"}, cgroup_driver="systemd")
    assert set(sd.successors("/kubepods.slice")) == {"/kubepods.slice/kubepods-burstable.slice",
                                                      "/kubepods.slice/kubepods-besteffort.slice",
                                                      "/kubepods.slice/kubepods-poddb.slice"}
    by_pod = [{d["pod"]: d["files"] for _, d in g.nodes(data=True) if d["pod"]} for g in (fs, sd)]
    assert by_pod[0] == by_pod[1] and len(by_pod[0]) == 3
    fig = cgroup_tree_figure(sd, title="systemd")
    assert any(t.get_text().startswith("kubepods-besteffort-podbatch.slice") for t in fig.axes[0].texts)
    assert fig.get_size_inches()[0] <= 10  # the long slice names widen it, within a notebook column


def test_eviction_timeline_figure_has_a_fixed_layout_that_fits(monkeypatch):
    # issue #26 budget: tight_layout measured every tick label once more per new state of the memory-pressure panel
    from matplotlib.figure import Figure

    from kubenotes.viz.widgets import figure_png

    def no_tight_layout(self, *a, **k):
        raise AssertionError("tight_layout called")

    monkeypatch.setattr(Figure, "tight_layout", no_tight_layout)
    fig = eviction_timeline_figure(simulate_memory_pressure(), title="batch +180Mi/min: first eviction batch at 490s")
    assert figure_png(fig) is not None  # drawn: the text extents below are the PNG's
    renderer = fig.canvas.get_renderer()
    inside = fig.bbox.padded(1)
    texts = [ax.title for ax in fig.axes] + [ax.yaxis.label for ax in fig.axes] + [fig.axes[1].xaxis.label]
    for ax in fig.axes:  # the tick labels drawn: those whose tick is within the axes' view
        lo, hi = sorted(ax.get_ylim())
        texts += [t for t, y in zip(ax.get_yticklabels(), ax.get_yticks()) if t.get_text() and lo <= y <= hi]
    lo, hi = sorted(fig.axes[1].get_xlim())
    texts += [t for t, x in zip(fig.axes[1].get_xticklabels(), fig.axes[1].get_xticks()) if t.get_text() and lo <= x <= hi]
    for t in texts:  # every label inside the figure, none cut off
        box = t.get_window_extent(renderer)
        assert inside.contains(box.x0, box.y0) and inside.contains(box.x1, box.y1), t.get_text()
    top, bottom = fig.axes
    assert top.get_window_extent(renderer).y0 > bottom.title.get_window_extent(renderer).y1 - 1


def test_cgroup_driver_table_shows_both_spellings_per_pod():
    html = str(cgroup_driver_table(memory_pressure_pods()))
    assert html.count("<tr") - 1 == 3
    flat = html.replace("<wbr>", "")
    assert "/kubepods/burstable/podweb" in flat and "/kubepods/poddb" in flat
    assert "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podbatch.slice" in flat
