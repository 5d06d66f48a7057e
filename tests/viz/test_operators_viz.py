"""kubenotes.viz.operators: the mon timeline's bars and width, the log table, the failover panel."""

from __future__ import annotations

import contextlib
import io

from kubenotes.sim.operators import MonFailoverRun, MonSample
from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX
from kubenotes.viz.operators import (_mon_text, _segments, api_resources_table, mon_failover_panel, mon_log_table,
                                     mon_timeline_figure)
from kubenotes.viz.widgets import panels

RUN = MonFailoverRun(None, "n1", 15.0, (
    MonSample(0, "a", "n1", "in quorum"), MonSample(0, "b", "n2", "in quorum"),
    MonSample(10, "a", "n1", "in quorum"), MonSample(10, "b", "n2", "in quorum"),
    MonSample(20, "a", "n1", "out of quorum"), MonSample(20, "b", "n2", "in quorum"),
    MonSample(30, "b", "n2", "in quorum"), MonSample(30, "c", "n3", "in quorum")),
    ((20.0, 'marking mon "a" out of quorum'), (30.0, 'removed monitor a')))


def test_segments_join_equal_states_and_hold_each_sample_to_the_next():
    assert _segments(RUN) == [("a", "n1", 0, 20, "in quorum"), ("b", "n2", 0, 30, "in quorum"),
                              ("a", "n1", 20, 30, "out of quorum"), ("c", "n3", 30, 30, "in quorum")]


def test_timeline_has_a_row_per_node_a_bar_per_segment_and_fits_the_column():
    fig = mon_timeline_figure(RUN, at_seconds=20)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["n3", "n2", "n1"]  # bottom to top: n1 on top
    assert len(ax.collections) == 4
    assert fig.get_size_inches()[0] * fig.dpi <= MAX_INLINE_WIDTH_PX
    assert "quorum at t=30s: b,c" in ax.get_title()
    again = mon_timeline_figure(RUN, at_seconds=0, figure=fig)  # redrawn into the same figure, not piled up
    assert again is fig and len(ax.collections) == 4


def test_log_table_stops_at_the_time():
    assert "marking mon" in mon_log_table(RUN, 20) and "removed monitor" not in mon_log_table(RUN, 20)
    assert "removed monitor" in mon_log_table(RUN)


def test_api_resources_table_prints_namespaced_lowercase():
    t = api_resources_table([{"name": "websites", "shortNames": "ws", "apiVersion": "example.com/v1",
                              "namespaced": True, "kind": "Website"}])
    assert "<td>true</td>" in t.replace(" ", "") or ">true<" in t


def test_panel_output_changes_with_the_clock():
    with contextlib.redirect_stdout(io.StringIO()):
        mon_failover_panel(RUN, 0)
    panel = panels()[-1]
    slider = panel.controls["at_seconds"]
    assert (slider.min, slider.max, slider.step) == (0, 30, 10)
    first = [str(x) for x in _mon_text(RUN, 0)]
    later = [str(x) for x in _mon_text(RUN, 30)]
    assert "quorum a,b: 2 of 2 mons (a majority" in first[0]
    assert "quorum b,c: 2 of 2" in later[0] and first[1] != later[1]
    assert "no mons yet" in str(_mon_text(RUN, -10)[0])


def test_panel_node_choice_runs_each_node_once_and_shows_its_run():
    calm = MonFailoverRun(None, "", 60.0, (MonSample(0, "a", "n1", "in quorum"), MonSample(0, "b", "n2", "in quorum"),
                                           MonSample(30, "a", "n1", "in quorum"),
                                           MonSample(30, "b", "n2", "in quorum")), ())
    calls = []

    def rerun(node):
        calls.append(node)
        return calm

    with contextlib.redirect_stdout(io.StringIO()):
        mon_failover_panel(RUN, 30, rerun=rerun, nodes=["n1", "n2", "n1"])
    panel = panels()[-1]
    node = panel.controls["dead_node"]
    assert (node.options, node.value) == (("n1", "n2", "none"), "n1")
    panel.recording = True
    with contextlib.redirect_stdout(io.StringIO()):
        node.value = "none"
        shown_calm = str(panel.last)
        node.value = "n1"
        shown_failover = str(panel.last)
        node.value = "none"
    assert calls == [""]  # the given run is n1's; "none" ran once and was reused
    assert "quorum a,b: 2 of 2 mons" in shown_calm and "quorum b,c: 2 of 2" in shown_failover
