"""Chapter 02.03's pictures and tables: etcd members running Raft, their elections, logs and writes.

:func:`timeline_figure` draws each member's Raft state over time (follower,
pre-candidate, candidate, leader, stopped, paused), the term of each change,
the fault window and the client's writes (committed or failed);
:func:`log_figure` draws every member's log, an entry per index coloured by
term, with the commit index; :func:`member_graph_figure` draws the members as a
networkx graph (leader, followers, cut links); the tables lay out
:meth:`~kubenotes.etcd.cluster.RaftCluster.status`, the elections, the
history, the writes and the linked trace of :mod:`kubenotes.etcd.trace`;
:func:`raft_panel` is the chapter's widget over
:func:`~kubenotes.etcd.cluster.fault_scenario`.

Every number shown comes from the model; this module only lays it out.

References
----------
etcd-io/etcd@v3.4 raft/raft.go (StateType and the messages named in the pictures)
https://etcd.io/docs/v3.4/op-guide/failures/
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from kubenotes.etcd.cluster import FAULTS, RaftCluster, Request, fault_scenario, fault_summary, state_spans
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import Html, table

__all__ = ["STATE_COLOURS", "status_table", "elections_table", "history_table", "writes_table",
           "linked_trace_table", "chain_table", "timeline_figure", "log_figure", "member_graph_figure", "raft_panel"]

#: A colour per Raft state and per member condition, shared by the pictures.
STATE_COLOURS = {
    "StateFollower": "#cfd8dc", "StatePreCandidate": "#ffe082", "StateCandidate": "#ffb74d",
    "StateLeader": "#66bb6a", "stopped": "#424242", "paused": "#90a4ae", "removed": "#eeeeee",
}
_TERM_COLOURS = ["#e3f2fd", "#bbdefb", "#c8e6c9", "#fff9c4", "#ffe0b2", "#f8bbd0", "#d1c4e9", "#b2dfdb",
                 "#f0f4c3", "#ffccbc"]


def status_table(cluster: RaftCluster) -> Html:
    """One row per member, as ``etcdctl endpoint status`` plus Raft's own view: state, term, vote, leader, log.

    Parameters
    ----------
    cluster : RaftCluster

    Returns
    -------
    Html
        Member, state, role, term, voted for, leader, last index, commit, applied, revision.

    Raises
    ------
    AttributeError
        When ``cluster`` is not a :class:`~kubenotes.etcd.cluster.RaftCluster`.

    Examples
    --------
    >>> c = RaftCluster(3, seed=1)
    >>> c.run(3)
    >>> "StateLeader" in status_table(c)
    True
    """
    rows = [(r["name"], r["state"], r["role"], r["term"], r["vote"] or "-", r["lead"] or "-", r["last_index"],
             r["commit"], r["applied"], r["revision"]) for r in cluster.status()]
    return table(["member", "state", "role", "term", "voted for", "leader", "last index", "commit", "applied",
                  "revision"], rows, caption=f"Members at t={cluster.now:.2f} s")


def elections_table(cluster: RaftCluster) -> Html:
    """Every leader elected: when, who, in which term, with whose votes.

    Parameters
    ----------
    cluster : RaftCluster

    Returns
    -------
    Html
        One row per :meth:`~kubenotes.etcd.cluster.RaftCluster.elections` entry.

    Raises
    ------
    AttributeError
        When ``cluster`` is not a :class:`~kubenotes.etcd.cluster.RaftCluster`.

    Examples
    --------
    >>> c = RaftCluster(3, seed=1)
    >>> c.run(3)
    >>> "m3, m1, m2" in elections_table(c)
    True
    """
    rows = [(f"{e['time']:.3f}", e["leader"], e["term"], ", ".join(e["votes"])) for e in cluster.elections()]
    return table(["t (s)", "leader", "term", "votes (itself first)"], rows, caption="Elections")


def history_table(cluster: RaftCluster, *, limit: int | None = 40) -> Html:
    """The cluster's history so far (state changes, votes, faults), oldest first.

    Parameters
    ----------
    cluster : RaftCluster
    limit : int or None
        At most this many rows (the caption says how many more there were); None: all.

    Returns
    -------
    Html

    Raises
    ------
    AttributeError
        When ``cluster`` is not a :class:`~kubenotes.etcd.cluster.RaftCluster`.

    Examples
    --------
    >>> c = RaftCluster(3, seed=1)
    >>> c.run(3)
    >>> "granted MsgVote" in history_table(c), "(first 2;" in history_table(c, limit=2)
    (True, True)
    """
    rows = [(f"{h['time']:.3f}", h["member"] or "(network)", h["term"], h["event"], h["detail"])
            for h in cluster.history]
    more = len(rows) - limit if limit is not None and len(rows) > limit else 0
    return table(["t (s)", "member", "term", "event", "detail"], rows[:limit],
                 caption="History" + (f" (first {limit}; {more} more)" if more else ""))


def writes_table(writes: Sequence[Request]) -> Html:
    """The client's requests: when, through whom, what came back, after how long, at which index and revision.

    Parameters
    ----------
    writes : sequence of Request
        :meth:`~kubenotes.etcd.cluster.RaftCluster.put`'s answers (or ``fault_scenario(...)["writes"]``).

    Returns
    -------
    Html

    Raises
    ------
    AttributeError
        When an item is not a :class:`~kubenotes.etcd.cluster.Request`.

    Examples
    --------
    >>> c = RaftCluster(1, seed=0)
    >>> c.run(3)
    >>> w = c.put("/k", "v")
    >>> "ok" in writes_table([w])
    True
    """
    rows = [(f"{w.start:.1f}", w.via, w.status, w.error or "-",
             "-" if w.latency_seconds is None else f"{w.latency_seconds * 1000:.1f}",
             w.index or "-", w.term or "-", w.revision or "-") for w in writes]
    return table(["t (s)", "via", "status", "error", "latency (ms)", "raft index", "term", "revision"], rows,
                 caption="Client writes")


def linked_trace_table(rows: Sequence[Mapping[str, Any]], *, limit: int | None = None) -> Html:
    """:func:`kubenotes.etcd.trace.linked_trace`'s rows: step, hop, what, Raft index and term, revision.

    Parameters
    ----------
    rows : sequence of dict
        :func:`~kubenotes.etcd.trace.linked_trace`'s answer.
    limit : int, optional
        Show the first ``limit`` rows only (the caption says of how many).

    Returns
    -------
    Html

    Raises
    ------
    KeyError
        When a row lacks one of linked_trace's keys.

    Examples
    --------
    >>> row = {"step": 1, "from": "etcd", "to": "raft leader m1", "what": "MsgProp: appended at index 5 in term 2",
    ...        "raft_index": 5, "raft_term": 2, "revision": None}
    >>> "5 (t2)" in linked_trace_table([row])
    True
    """
    body = [(r["step"], f"{r['from']} → {r['to']}", r["what"],
             "-" if r["raft_index"] is None else f"{r['raft_index']} (t{r['raft_term']})",
             "-" if r["revision"] is None else r["revision"]) for r in rows[:limit or None]]
    return table(["step", "hop", "what", "raft index (term)", "revision = resourceVersion"], body,
                 caption="One apply through Raft" + (f" (first {limit} of {len(rows)} hops)" if limit else ""))


def chain_table(links: Sequence[Mapping[str, Any]]) -> Html:
    """:func:`kubenotes.etcd.trace.chain`: one row per link of the chain.

    Parameters
    ----------
    links : sequence of dict
        :func:`~kubenotes.etcd.trace.chain`'s answer.

    Returns
    -------
    Html

    Raises
    ------
    KeyError
        When a link lacks ``link``, ``value`` or ``where``.

    Examples
    --------
    >>> "Raft log index" in chain_table([{"link": "Raft log index", "value": "5 (term 2)", "where": "m1"}])
    True
    """
    return table(["link", "value", "where"], [(x["link"], x["value"], x["where"]) for x in links],
                 caption="From kubectl to a controller, through Raft")


def _lanes(names: Sequence[str], lane_inches: float, extra_inches: float) -> tuple[Figure, Axes]:
    """A 9.4-inch figure with one horizontal lane per member (the first on top, at ``y = len(names)``)."""
    fig = detached_figure(9.4, lane_inches * len(names) + extra_inches)
    ax = fig.add_subplot()
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig, ax


def timeline_figure(result: Mapping[str, Any]) -> Figure:
    """Each member's Raft state over time, the terms, the fault window and the client's writes.

    Parameters
    ----------
    result : dict
        :func:`~kubenotes.etcd.cluster.fault_scenario`'s answer (its cluster, writes and fault window).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    KeyError
        When ``result`` lacks one of fault_scenario's keys.

    Examples
    --------
    >>> fig = timeline_figure(fault_scenario(3, fault="stop leader", until_seconds=8))
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['client puts', 'm3', 'm2', 'm1']
    """
    cluster, writes = result["cluster"], result["writes"]
    names, spans = cluster.names, state_spans(cluster)
    fig, ax = _lanes(names, 0.55, 0.55 + 1.3)
    for y, n in zip(range(len(names), 0, -1), names):
        for start, end, state, term in spans[n]:
            ax.add_patch(Rectangle((start, y - 0.35), end - start, 0.7, fc=STATE_COLOURS.get(state, "#fff"),
                                   ec="white", lw=0.5))
            if state.startswith("State") and end - start > 0.25:
                ax.text(start + 0.05, y, f"t{term}", va="center", ha="left", fontsize=7)
    if result["fault"] != "none":
        ax.axvspan(result["fault_at"], cluster.now if result["recover_at"] is None else result["recover_at"],
                   color="#ef5350", alpha=0.08, lw=0)
        ax.text(result["fault_at"], len(names) + 0.55, f"{result['fault']}: {', '.join(result['victims'])}",
                fontsize=8, color="#c62828", va="bottom")
    for w in writes:  # a marker when sent; a line to when it was answered, if that took over 50 ms
        colour = {"ok": "#2e7d32", "pending": "#757575"}.get(w.status, "#c62828")
        ax.plot([w.start], [0], marker={"ok": "o", "pending": "|"}.get(w.status, "x"), color=colour,
                ms=8 if w.status == "pending" else 5)
        if w.status != "pending" and w.done is not None and w.latency_seconds > 0.05:
            y = 0.18 if w.status == "ok" else -0.18
            ax.plot([w.start, w.done], [y, y], color=colour, lw=0.8, alpha=0.6)
    ax.set_yticks(range(0, len(names) + 1), ["client puts"] + names[::-1])
    ax.set(xlim=(0, cluster.now), ylim=(-0.6, len(names) + 1.0), xlabel="virtual time (s)")
    ax.legend(handles=[Patch(fc=c, label=s) for s, c in STATE_COLOURS.items() if s != "removed"],
              loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=6, fontsize=7, frameon=False)
    ax.set_title("Raft states per member (tN: term); client writes: o committed, x failed, | still waiting "
                 "(line: waited)", fontsize=10)
    fig.tight_layout()
    return fig


def log_figure(cluster: RaftCluster, *, last: int = 30) -> Figure:
    """Every member's log: a box per entry coloured by term (label: term), bold up to its commit index.

    Parameters
    ----------
    cluster : RaftCluster
    last : int
        Show the last ``last`` indexes of the longest log.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    AttributeError
        When ``cluster`` is not a :class:`~kubenotes.etcd.cluster.RaftCluster`.

    Examples
    --------
    >>> c = RaftCluster(3, seed=1)
    >>> c.run(3)
    >>> len(log_figure(c).axes[0].patches)  # 3 members x 4 entries
    12
    """
    names = cluster.names
    top = max((cluster.member(n).raft.log.last_index for n in names), default=0)
    lo = max(1, top - last + 1)
    fig, ax = _lanes(names, 0.45, 1.0)
    for y, n in zip(range(len(names), 0, -1), names):
        log = cluster.member(n).raft.log
        for e in log.entries[lo - 1:]:
            done = e.index <= log.committed
            ax.add_patch(Rectangle((e.index - 0.45, y - 0.35), 0.9, 0.7, fc=_TERM_COLOURS[e.term % len(_TERM_COLOURS)],
                                   ec="#263238" if done else "#b0bec5", lw=1.4 if done else 0.6,
                                   ls="-" if done else "--"))
            ax.text(e.index, y, str(e.term), ha="center", va="center", fontsize=7)
        if log.committed >= lo:
            ax.plot([log.committed + 0.5] * 2, [y - 0.45, y + 0.45], color="#c62828", lw=1.5)
    ax.set_yticks(range(1, len(names) + 1), names[::-1])
    ax.set(xlim=(lo - 0.7, top + 1.2), ylim=(0.3, len(names) + 0.7),
           xlabel="log index (box: an entry, its term inside; solid = committed; red bar: commit index)")
    ax.set_title(f"Logs at t={cluster.now:.2f} s", fontsize=10)
    fig.tight_layout()
    return fig


def member_graph_figure(cluster: RaftCluster) -> Figure:
    """The members of :meth:`~kubenotes.etcd.cluster.RaftCluster.graph` on a circle (fixed layout), on a new figure.

    Each member is coloured by its state (:data:`STATE_COLOURS`) and labelled
    with its name, state, term and commit index; cut links are dashed red.

    Parameters
    ----------
    cluster : RaftCluster

    Returns
    -------
    matplotlib.figure.Figure
        Titled with the cluster's time.

    Raises
    ------
    AttributeError
        When ``cluster`` is not a :class:`~kubenotes.etcd.cluster.RaftCluster`.

    Examples
    --------
    >>> c = RaftCluster(3, seed=1)
    >>> c.run(3)
    >>> len(member_graph_figure(c).axes)
    1
    """
    g = cluster.graph()
    names, pos = list(g.nodes), nx.circular_layout(sorted(g.nodes))
    fig = detached_figure(4.6, 4.2)
    ax = fig.add_subplot()
    for cut, colour, style in ((False, "#90a4ae", "solid"), (True, "#c62828", "dashed")):
        nx.draw_networkx_edges(g, pos, edgelist=[(a, b) for a, b, c in g.edges(data="cut") if bool(c) == cut], ax=ax,
                               edge_color=colour, style=style, width=1.2)
    colours = [STATE_COLOURS.get(g.nodes[n]["state"], "#fff") for n in names]
    nx.draw_networkx_nodes(g, pos, nodelist=names, node_color=colours, node_size=2600, ax=ax, edgecolors="#37474f")
    labels = {n: f"{n}\n{d['state'].replace('State', '')}\nterm {d['term']}\ncommit {d['commit']}"
              for n, d in g.nodes(data=True)}
    nx.draw_networkx_labels(g, pos, labels, font_size=7, ax=ax)
    ax.set(xlim=(-1.45, 1.45), ylim=(-1.45, 1.45), aspect="equal")
    ax.axis("off")
    ax.set_title(f"Members at t={cluster.now:.2f} s (red dashed: cut)", fontsize=10)
    return fig


def _summary(result: Mapping[str, Any]) -> Html:
    f, fault = fault_summary(result), result["fault"]
    after = f["first_leader_after_fault"]
    first = ("no fault" if fault == "none" else "no new leader after the fault" if not after else
             f"first leader after the fault: {after['leader']} in term {after['term']}, "
             f"{after['seconds_after_fault']:.2f} s after it")
    return Html(f"<div style='margin:4px 0'><b>{f['committed']} of {f['writes']} writes committed</b>"
                + (f", {f['waiting']} still waiting" if f["waiting"] else "")
                + (f"; errors: {', '.join(f['errors'])}" if f["errors"] else "") + f". {first}; "
                f"{f['elections']} election(s) in all; leader at the end: {f['leader'] or 'none'}.</div>")


def raft_panel(members: int = 3, election_timeout_ms: int = 1000, fault: str = "stop leader",
               recover_after_seconds: int = 4, pre_vote: bool = False, seed: int = 0) -> Any:
    """The chapter's widget over :func:`~kubenotes.etcd.cluster.fault_scenario`.

    Controls: members (1, 3, 5), ``--election-timeout`` (500 to 3000 ms, heartbeat 100 ms), the fault, when
    it is undone (0: never), ``--pre-vote`` and the seed. Each change runs the scenario (memoised) and shows a
    one-line summary, :func:`timeline_figure` and :func:`status_table`.

    Parameters
    ----------
    members, election_timeout_ms, fault, recover_after_seconds, pre_vote, seed
        The controls' starting values (``fault`` one of :data:`~kubenotes.etcd.cluster.FAULTS`).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`.

    Raises
    ------
    traitlets.TraitError
        When ``members`` or ``fault`` is not one of the choices.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     panel = raft_panel(members=3, fault="pause leader")
    >>> [w.description for row in panel.children[:-1] for w in row.children][:3]
    ['members', 'election timeout (ms)', 'fault']
    """
    import ipywidgets as widgets

    from kubenotes.viz.widgets import int_slider, live_panel, memoise_update

    def update(recover_after_seconds: int, **controls: Any) -> list:
        result = fault_scenario(recover_after_seconds=recover_after_seconds or None, **controls)
        return [_summary(result), timeline_figure(result), status_table(result["cluster"])]

    s = {"style": {"description_width": "150px"}}
    return live_panel(memoise_update(update), {
        "members": widgets.Dropdown(options=[1, 3, 5], value=members, description="members", **s),
        "election_timeout_ms": int_slider("election timeout (ms)", election_timeout_ms, 500, 3000, 250, **s),
        "fault": widgets.Dropdown(options=list(FAULTS), value=fault, description="fault", **s),
        "recover_after_seconds": int_slider("undo after (s, 0 never)", recover_after_seconds, 0, 8, **s),
        "pre_vote": widgets.Checkbox(value=pre_vote, description="--pre-vote", **s),
        "seed": int_slider("seed", seed, 0, 9, **s)})
