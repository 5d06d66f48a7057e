"""Chapter 02.03's pictures, tables and widget: what they show is what the Raft model did."""

from __future__ import annotations

import contextlib
import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from kubenotes.etcd.cluster import RaftCluster, fault_scenario, state_spans  # noqa: E402
from kubenotes.etcd.trace import chain, linked_trace  # noqa: E402
from kubenotes.viz.etcd import (STATE_COLOURS, chain_table, elections_table, history_table,  # noqa: E402
                                linked_trace_table, log_figure, member_graph_figure, raft_panel,
                                status_table, timeline_figure, writes_table)


@pytest.fixture(scope="module")
def partitioned():
    return fault_scenario(5, fault="partition leader into a minority", seed=0)


def test_state_spans_cover_the_run_and_follow_the_history(partitioned):
    c = partitioned["cluster"]
    spans = state_spans(c)
    for name, ss in spans.items():
        assert ss[0][0] == 0 and ss[-1][1] == pytest.approx(c.now)
        assert all(a[1] == pytest.approx(b[0]) for a, b in zip(ss, ss[1:]))  # no gap, no overlap
    leaders = {(n, s[3]) for n, ss in spans.items() for s in ss if s[2] == "StateLeader"}
    assert leaders == {(e["leader"], e["term"]) for e in c.elections()}


def test_stopped_and_paused_members_show_as_such():
    c = RaftCluster(3, seed=1)
    c.run(3)
    lead = c.leader()
    c.stop(lead)
    other = next(n for n in c.names if n != lead)
    c.run(4)
    c.pause(other)
    c.run(5)
    spans = state_spans(c)
    assert spans[lead][-1][2] == "stopped" and spans[lead][-1][0] == pytest.approx(3)
    assert spans[other][-1][2] == "paused" and spans[other][-1][0] == pytest.approx(4)


def test_figures_draw_every_member_and_the_writes(partitioned):
    fig = timeline_figure(partitioned)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["client puts", "m5", "m4", "m3", "m2", "m1"]
    failed = [l for l in ax.lines if l.get_marker() == "x"]
    assert len(failed) == sum(1 for w in partitioned["writes"] if w.status != "ok") > 0
    fig = log_figure(partitioned["cluster"], last=10)
    assert len(fig.axes[0].patches) == 5 * 10
    fig = member_graph_figure(partitioned["cluster"])
    assert fig.axes and fig.axes[0].get_title().startswith("Members at t=14.00 s")
    plt.close("all")


def test_tables_show_the_models_numbers(partitioned):
    c = partitioned["cluster"]
    s = status_table(c)
    assert all(r["name"] in s for r in c.status()) and "StateLeader" in s
    e = elections_table(c)
    assert all(f">{x['leader']}</td>" in e and f">{x['term']}</td>" in e for x in c.elections())
    assert "partitioned" in history_table(c, limit=None) and "(first 5;" in history_table(c, limit=5)
    w = writes_table(partitioned["writes"])
    assert "etcdserver: request timed out" in w
    raft = RaftCluster(3, seed=1)
    raft.run(3)
    rows = linked_trace([{"step": 1, "time": 0.0, "from": "kubectl", "to": "validating admission", "request": 0,
                          "what": "create pods default/p"},
                         {"step": 2, "time": 0.0, "from": "validating admission", "to": "etcd", "request": 0,
                          "what": "stored /registry/pods/default/p at resourceVersion 3"}], raft)
    assert "revision 3 of /registry/pods/default/p" in linked_trace_table(rows)
    assert "Raft log index" in chain_table(chain(rows))


def test_panel_controls_and_default_view():
    with contextlib.redirect_stdout(io.StringIO()):
        panel = raft_panel()
    controls = [w for row in panel.children[:-1] for w in row.children]
    assert [w.description for w in controls] == ["members", "election timeout (ms)", "fault",
                                                 "undo after (s, 0 never)", "--pre-vote", "seed"]
    assert controls[0].options == (1, 3, 5) and controls[1].min == 500 and controls[1].max == 3000
    assert set(STATE_COLOURS) >= {"StateFollower", "StatePreCandidate", "StateCandidate", "StateLeader"}
    plt.close("all")


def test_writes_still_waiting_are_neither_committed_nor_failed():
    r = fault_scenario(3, fault="stop a majority", recover_after_seconds=None, until_seconds=9)
    waiting = [w for w in r["writes"] if w.status == "pending"]
    ax = timeline_figure(r).axes[0]
    assert waiting and len([l for l in ax.lines if l.get_marker() == "|"]) == len(waiting)
    plt.close("all")
