"""Tables, plots and the widgets of the scheduling chapter, drawn from the scheduler's per-pod trace.

Every function here reads one *trace result*: the mapping the scheduler (and
``python -m kubenotes schedule -o json``) produces for a pod::

    {"namespace", "name", "nodeName" (None when unschedulable), "qosClass", "priority",
     "filter":     {node: {plugin: "passed" | reason}},
     "score":      {node: {plugin: int}}          # raw Score, 0..100 for in-tree plugins
     "finalScore": {node: {plugin: int}}          # after NormalizeScore, times the plugin weight
     "totalScore": {node: int},
     "message":    None | FailedScheduling text,
     "nominatedNodeName", "victims": ["ns/name", ...]}

Nothing here models scheduling: the numbers come from
:mod:`kubenotes.scheduler` (the widgets' runs from
:mod:`kubenotes.scheduler.whatif` and :mod:`kubenotes.scheduler.explore`);
this module only lays them out, the way ``kube-scheduler-simulator`` shows
its result annotations. Tables are specs (header -> cell of one row) fed to
one function; the four panels build their controls from specs too.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go
https://github.com/kubernetes-sigs/kube-scheduler-simulator
KEP-624 (scheduling framework)
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Sequence

import ipywidgets as widgets
import networkx as nx
import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from kubenotes.api.taints import taint_string
from kubenotes.scheduler.config import SCORING_STRATEGIES, as_config_dict, config_with
from kubenotes.scheduler.explore import extender_what_if, pod_affinity_variant, preemption_what_if
from kubenotes.scheduler.extender import VERB_TYPES
from kubenotes.scheduler.framework.interface import (EXTENSION_POINT_FLOW, LEGACY_VIEW, PASSED, PHASES,
                                                     extension_points_graph)
from kubenotes.scheduler.schedule_one import trace_feasible_nodes, trace_nodes, trace_plugins
from kubenotes.scheduler.whatif import (schedule_what_if, score_weights, scoring_strategy, taints_of, variant_requests,
                                        zones_of)
from kubenotes.viz.graphs import ZONE_LABEL, detached_figure
from kubenotes.viz.html import TABLE_CSS, Html, table
from kubenotes.viz.html import escape as _e
from kubenotes.viz.widgets import int_slider, live_panel

__all__ = ["extension_points_figure", "trace_summary", "results_table", "filter_table", "score_heatmap", "score_table",
           "winner_banner", "failed_scheduling", "legacy_names_table", "priority_classes_table", "preemption_table",
           "scheduling_panel", "plugin_column_table", "preemption_candidates_table", "extender_exchanges_table",
           "pod_affinity_panel", "preemption_panel", "extender_panel"]

_GREEN, _RED, _GREY = "#2e7d32", "#c62828", "#9e9e9e"
_PICKED = f"color:{_GREEN};font-weight:bold"
#: Widest figure, in inches: 1,000 px at the inline backend's 100 dpi (kubenotes.viz.graphs.MAX_INLINE_WIDTH_PX).
_MAX_WIDTH_INCHES = 9.6
_CMAP = LinearSegmentedColormap.from_list("kubenotes_score", ["#f7fbff", "#6baed6", "#08306b"])
#: The chapter's tables: HTML cells, and never wider than the output column (cells wrap instead).
_html_table = functools.partial(table, html_cells=True, table_css=TABLE_CSS + ";max-width:100%")


def _spec_table(columns: Mapping[str, Callable[[Any], tuple[str, str]]], items: Iterable[Any], **kw: Any) -> Html:
    """One table from a spec: header -> the ``(html, css)`` cell of one item; one row per item."""
    return _html_table(list(columns), [[cell(x) for cell in columns.values()] for x in items], **kw)


def _pod_key(result: Mapping[str, Any]) -> str:
    return f"{result.get('namespace') or 'default'}/{result['name']}"


def _joined(v: Any, sep: str = ", ") -> str:
    """A list of reasons or names as one string (None: empty)."""
    return "" if v is None else sep.join(map(str, v)) if isinstance(v, (list, tuple, set, frozenset)) else str(v)


def _first_rejection(verdicts: Mapping[str, Any]) -> tuple[str, Any] | None:
    """``(plugin, reason)`` of the first Filter plugin that rejected a node (the framework stops there)."""
    return next(((p, v) for p, v in verdicts.items() if v != PASSED), None)


# ---------------------------------------------------------------------------
# the extension points


def _wrap_names(names: Sequence[str], width: int) -> str:
    lines, cur = [], ""
    for n in names:
        piece = n if not cur else ", " + n
        if cur and len(cur) + len(piece) > width:
            lines.append(cur + ",")
            cur = n
        else:
            cur += piece
    return "\n".join(lines + ([cur] if cur else []))


def extension_points_figure(plugins_by_point: Mapping[str, Sequence[str]] | None = None) -> Figure:
    """Draw the extension points top to bottom, grouped by phase, with the legacy view beside them.

    Parameters
    ----------
    plugins_by_point : mapping of str to list of str, optional
        As for :func:`extension_points_graph`; when given, each point lists
        its enabled plugins to the right (wrapped at 64 characters).

    Returns
    -------
    matplotlib.figure.Figure
        One Axes: the flow (networkx, fixed layout), phase bands on the left
        and the "predicates"/"priorities" brackets of the pre-framework view.

    Raises
    ------
    TypeError
        When a value of ``plugins_by_point`` is not an iterable of str (e.g.
        ``None``, or plugin names given as ints).

    See Also
    --------
    extension_points_graph

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go
    https://kubernetes.io/docs/concepts/scheduling-eviction/scheduling-framework/

    Examples
    --------
    >>> fig = extension_points_figure({"Score": ["NodeResourcesFit"]})
    >>> len(fig.axes)
    1
    """
    g = extension_points_graph(plugins_by_point)
    row_h = 0.62
    # PostFilter sits to the right of the main column: it is a branch, not a step.
    main = [p for p in EXTENSION_POINT_FLOW if p != "PostFilter"]
    pos = {p: (0.0, -i * row_h) for i, p in enumerate(main)}
    fy = pos["Filter"][1]
    pos["PostFilter"] = (1.35, fy - row_h / 2)
    fig = detached_figure(9.4, 0.42 * len(EXTENSION_POINT_FLOW) + 0.6)  # <= 1,000 px at 100 dpi
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.98))
    ax.axis("off")
    arrows = dict(min_source_margin=9, min_target_margin=9, node_size=0, arrows=True, arrowstyle="-|>", arrowsize=11)
    nx.draw_networkx_edges(g, pos, edgelist=[(a, b) for a, b in g.edges() if b != "PostFilter"], ax=ax,
                           edge_color="#616161", width=1.3, **arrows)
    nx.draw_networkx_edges(g, pos, edgelist=[("Filter", "PostFilter")], ax=ax, edge_color=_RED, width=1.3,
                           style="dashed", connectionstyle="arc3,rad=-0.25", **arrows)
    ax.text(0.62, fy + 0.09, "no feasible node", fontsize=7, color=_RED, ha="left", va="bottom")
    ax.text(-0.06, fy - row_h / 2, "feasible nodes", fontsize=7, color="#616161", ha="right", va="center")
    phase_fc = {"scheduling queue": "#fff3e0", "scheduling cycle": "#e3f2fd", "binding cycle": "#e8f5e9"}
    for phase, points in PHASES:
        ys = [pos[p][1] for p in points if p != "PostFilter"]
        ax.add_patch(Rectangle((-2.45, min(ys) - row_h / 2 + 0.04), 9.6, max(ys) - min(ys) + row_h - 0.08,
                               fc=phase_fc[phase], ec="none", zorder=0))
        ax.text(-2.4, max(ys) + row_h / 2 - 0.1, phase, fontsize=8.5, fontweight="bold", va="top", color="#37474f")
    for p, (x, y) in pos.items():
        branch = p == "PostFilter"
        ax.text(x, y, p, ha="center", va="center", fontsize=9, fontweight="bold", zorder=3,
                bbox=dict(boxstyle="round,pad=0.35", fc="white", ec=_RED if branch else "#455a64", lw=1.2,
                          ls="--" if branch else "-"))
        if g.nodes[p]["plugins"]:  # the enabled plugins: right of the column, or under the PostFilter branch
            names = _wrap_names(g.nodes[p]["plugins"], 20 if branch else 64)
            ax.text(x if branch else 2.35, y - 0.2 if branch else y, names, fontsize=7, family="monospace",
                    va="top" if branch else "center", ha="center" if branch else "left",
                    color=_RED if branch else "#263238")
    for label, points in LEGACY_VIEW.items():
        ys = [pos[p][1] for p in points if p in pos and pos[p][0] == 0.0]
        top, bottom = max(ys) + 0.2, min(ys) - 0.2
        ax.plot([-0.55, -0.62, -0.62, -0.55], [top, top, bottom, bottom], color="#6a1b9a", lw=1.5)
        ax.text(-0.67, (top + bottom) / 2, label, fontsize=8, color="#6a1b9a", ha="right", va="center",
                fontstyle="italic")
    ax.set(xlim=(-2.5, 7.2), ylim=(-len(main) * row_h + row_h / 2 - 0.05, row_h / 2 + 0.05))
    return fig


# ---------------------------------------------------------------------------
# tables of one result


def trace_summary(result: Mapping[str, Any]) -> str:
    """A compact two-column table of one pod's scheduling result.

    Parameters
    ----------
    result : mapping
        One trace result (see the module docstring).

    Returns
    -------
    str
        HTML: pod, priority, QoS class, how many nodes passed Filter, the
        chosen node and its total score, the runner-up, the FailedScheduling
        message, the nominated node and the victims (rows left out when empty).

    Raises
    ------
    KeyError
        When ``result`` has no ``name``.
    TypeError, AttributeError
        When ``result["filter"]`` is not a mapping of mappings (node ->
        plugin -> verdict), or ``totalScore`` not a mapping.

    See Also
    --------
    results_table, filter_table, score_heatmap

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go

    Examples
    --------
    >>> r = {"namespace": "shop", "name": "web", "nodeName": "n2", "priority": 0, "qosClass": "Burstable",
    ...      "filter": {"n1": {"NodeResourcesFit": "Insufficient cpu"}, "n2": {"NodeResourcesFit": "passed"}},
    ...      "score": {"n2": {"NodeResourcesFit": 40}}, "finalScore": {"n2": {"NodeResourcesFit": 40}},
    ...      "totalScore": {"n2": 40}, "message": None, "nominatedNodeName": None, "victims": []}
    >>> s = trace_summary(r)
    >>> "shop/web" in s and "1 of 2" in s and "n2" in s
    True
    """
    total = result.get("totalScore") or {}
    feasible, winner = trace_feasible_nodes(result), result.get("nodeName")
    runner = next(((n, s) for n, s in sorted(total.items(), key=lambda kv: -kv[1]) if n != winner), None)
    rows = [("pod", _e(_pod_key(result)), ""), ("spec.priority", _e(result.get("priority", 0)), ""),
            ("qosClass", _e(result.get("qosClass") or ""), ""),
            ("passed Filter", f"{len(feasible)} of {len(trace_nodes(result))} nodes"
             + (f": {_e(', '.join(feasible))}" if feasible else ""), ""),
            ("nodeName (winner)",
             f"<b>{_e(winner)}</b>" + (f" · totalScore {total[winner]}" if winner in total else ""), f"color:{_GREEN}")
            if winner else ("nodeName", "<b>none: the pod stays Pending</b>", f"color:{_RED}"),
            # the rows below are shown only when they have a value
            ("runner-up", f"{_e(runner[0])} · totalScore {runner[1]}" if winner and runner else "", ""),
            ("FailedScheduling", _e(result.get("message") or ""), f"color:{_RED}"),
            ("nominatedNodeName", _e(result.get("nominatedNodeName") or ""), ""),
            ("victims", _e(", ".join(result.get("victims") or ())), f"color:{_RED}")]
    rows = rows[:5] + [r for r in rows[5:] if r[1]]
    return _html_table(["field", "value"], [((f"<code>{k}</code>", ""), (v, css)) for k, v, css in rows])


_RESULT_COLUMNS = {
    "pod": lambda r: (_e(_pod_key(r)), "white-space:nowrap"),
    "priority": lambda r: (_e(r.get("priority", 0)), "text-align:right"),
    "qosClass": lambda r: (_e(r.get("qosClass") or ""), ""),
    "nodeName": lambda r: ((f"<b>{_e(r['nodeName'])}</b>", f"color:{_GREEN};white-space:nowrap") if r.get("nodeName")
                           else ("Pending", f"color:{_RED};white-space:nowrap")),
    "nominatedNodeName": lambda r: (_e(r.get("nominatedNodeName") or ""), "white-space:nowrap"),
    "victims": lambda r: (_e(", ".join(r.get("victims") or ())), f"color:{_RED}"),
    "message": lambda r: (_e(r.get("message") or ""), "max-width:520px"),
}


def results_table(results: Iterable[Mapping[str, Any]]) -> str:
    """One row per scheduled pod: where it went, or why it is Pending.

    Parameters
    ----------
    results : iterable of mapping
        Trace results in scheduling order.

    Returns
    -------
    str
        HTML table with columns pod, priority, qosClass, nodeName,
        nominatedNodeName, victims, message.

    Raises
    ------
    KeyError
        When a result has no ``name``.
    AttributeError
        When an item of ``results`` is not a mapping.

    See Also
    --------
    trace_summary, winner_banner, failed_scheduling

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go

    Examples
    --------
    >>> rows = [{"namespace": "a", "name": "p", "priority": 5, "qosClass": "BestEffort", "nodeName": None,
    ...          "message": "0/1 nodes are available: 1 Insufficient cpu.", "nominatedNodeName": None, "victims": []}]
    >>> "Insufficient cpu" in results_table(rows) and "Pending" in results_table(rows)
    True
    """
    return _spec_table(_RESULT_COLUMNS, results)


def filter_table(result: Mapping[str, Any]) -> str:
    """The Filter (预选) table: one row per node, one column per Filter plugin, with upstream reasons.

    Parameters
    ----------
    result : mapping
        One trace result; ``result["filter"]`` is ``dict[str, dict[str, str]]``,
        node -> plugin -> ``"passed"`` or the reason string.

    Returns
    -------
    str
        HTML. A passing plugin shows a green check, a rejecting one its reason
        in red, a plugin that did not run on that node (the framework stops at
        a node's first rejection) a grey dot. The last column says whether the
        node is feasible.

    Raises
    ------
    KeyError
        When ``result`` has no ``name``.
    TypeError, AttributeError
        When ``result["filter"]`` is not a mapping of mappings (node ->
        plugin -> verdict).

    See Also
    --------
    score_heatmap

    Notes
    -----
    Column order is the order plugins first appear in the trace, which is the
    profile's Filter order.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (findNodesThatPassFilters)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go (RunFilterPlugins)

    Examples
    --------
    >>> r = {"name": "web", "filter": {"n1": {"TaintToleration": "node(s) had untolerated taint {dedicated: gpu}"},
    ...                                "n2": {"TaintToleration": "passed", "NodeResourcesFit": "passed"}}}
    >>> t = filter_table(r)
    >>> "untolerated taint {dedicated: gpu}" in t, t.count(">feasible<"), t.count(">filtered out<")
    (True, 1, 1)
    """
    filt = result.get("filter") or {}
    plugins = trace_plugins(filt)
    rows = []
    for node, verdicts in filt.items():
        ok = _first_rejection(verdicts) is None
        rows.append([(f"<b>{_e(node)}</b>", "")]
                    + [("·", f"color:{_GREY};text-align:center") if p not in verdicts
                       else ("✓", f"color:{_GREEN};text-align:center") if verdicts[p] == PASSED
                       else (_e(_joined(verdicts[p], "; ")), f"color:{_RED};background:#ffebee") for p in plugins]
                    + [("feasible" if ok else "filtered out", f"color:{_GREEN if ok else _RED};font-weight:bold")])
    caption = f"Filter for {_pod_key(result)}: ✓ passed, · not run (the node was already rejected)"
    return _html_table(["node", *plugins, "result"], rows, caption=caption)


def _scores(result: Mapping[str, Any]) -> tuple[dict, dict, dict, list[str], list[str]]:
    """Raw Score and finalScore (node -> plugin -> int), totalScore, the scored nodes (highest total first), plugins."""
    raw, final, total = (result.get(k) or {} for k in ("score", "finalScore", "totalScore"))
    plugins = trace_plugins(final) or trace_plugins(raw)
    return raw, final, total, sorted(set(raw) | set(final), key=lambda n: (-total.get(n, 0), n)), plugins


def score_heatmap(result: Mapping[str, Any], *, weights: Mapping[str, int] | None = None) -> Figure:
    """The Score (优选) heatmap: raw scores and normalized x weight per node and plugin, with totals.

    Parameters
    ----------
    result : mapping
        One trace result with ``score`` and ``finalScore``
        (``dict[str, dict[str, int]]``, node -> plugin -> score) and
        ``totalScore`` (``dict[str, int]``).
    weights : mapping of str to int, optional
        Plugin -> weight, shown in the right panel's column labels.

    Returns
    -------
    matplotlib.figure.Figure
        Two heatmaps side by side (rows are the feasible nodes, highest
        total first; the winner's row is outlined) and a bar of totalScore.

    Raises
    ------
    ValueError
        When the result has no scored node (the pod was unschedulable, or
        only one node was feasible and scoring was skipped).

    See Also
    --------
    score_table, filter_table

    Notes
    -----
    Upstream skips Score entirely when only one node passes Filter; the trace
    then has no scores and this raises.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (prioritizeNodes, selectHost)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go (RunScorePlugins)

    Examples
    --------
    >>> r = {"name": "web", "nodeName": "n1", "score": {"n1": {"A": 90, "B": 10}, "n2": {"A": 50, "B": 70}},
    ...      "finalScore": {"n1": {"A": 180, "B": 10}, "n2": {"A": 100, "B": 70}}, "totalScore": {"n1": 190, "n2": 170}}
    >>> fig = score_heatmap(r, weights={"A": 2, "B": 1})
    >>> len(fig.axes) >= 3
    True
    """
    raw, final, total, nodes, plugins = _scores(result)
    if not nodes:
        raise ValueError(f"{_pod_key(result)} has no scores: {result.get('message') or 'Score was skipped'}")
    plugins += [p for p in trace_plugins(raw) if p not in plugins]  # a plugin with a raw Score only still gets a column
    t = np.array([total.get(n, 0) for n in nodes], dtype=float)
    winner = result.get("nodeName")
    wlabel = [f"{p} x{weights[p]}" if weights and p in weights else p for p in plugins]
    below = 0.3 + 0.05 * max(len(x) for x in wlabel) * 0.57
    cell_w = min(0.95, (_MAX_WIDTH_INCHES - 2.8) / (2 * len(plugins)))  # a 1,000 px column at 100 dpi
    fig_w, fig_h = 1.3 + 2 * cell_w * len(plugins) + 1.5, 0.6 + 0.34 * len(nodes) + below + 0.55
    fig = detached_figure(fig_w, fig_h)
    gs = fig.add_gridspec(1, 3, width_ratios=[len(plugins), len(plugins), 1.3], wspace=0.06,
                          left=1.3 / fig_w, right=0.98, top=1 - 0.5 / fig_h, bottom=below / fig_h)
    axes = [fig.add_subplot(gs[0, i]) for i in range(3)]
    for ax, scores, labels, name in ((axes[0], raw, plugins, "raw Score (as the plugin returned it)"),
                                     (axes[1], final, wlabel, "NormalizeScore x weight")):
        m = np.array([[int(scores.get(n, {}).get(p, 0)) for p in plugins] for n in nodes], dtype=float)
        vmax = max(100.0, float(m.max()))
        ax.imshow(m, cmap=_CMAP, vmin=0, vmax=vmax, aspect="auto")
        for (i, j), v in np.ndenumerate(m):
            ax.text(j, i, f"{int(v)}", ha="center", va="center", fontsize=8,
                    color="white" if v > 0.6 * vmax else "black")
        ax.set_xticks(range(len(labels)), labels, rotation=35, ha="right", rotation_mode="anchor", fontsize=7.5)
        ax.set_title(name, fontsize=9)
        ax.tick_params(length=0)
        ax.set_yticks(range(len(nodes)), nodes, fontsize=8) if ax is axes[0] else ax.set_yticks([])
        if winner in nodes:
            ax.add_patch(Rectangle((-0.5, nodes.index(winner) - 0.5), len(plugins), 1, fill=False, ec=_GREEN, lw=2.5))
    axes[2].barh(range(len(nodes)), t, color=[_GREEN if n == winner else "#90a4ae" for n in nodes])
    for i, v in enumerate(t):
        axes[2].text(v, i, f" {int(v)}", va="center", fontsize=8)
    axes[2].set(ylim=(len(nodes) - 0.5, -0.5), yticks=[], xlim=(0, max(t.max(), 1) * 1.35))
    axes[2].set_title("totalScore", fontsize=9)
    axes[2].tick_params(labelsize=7)
    axes[2].spines[["top", "right"]].set_visible(False)
    fig.suptitle(f"Score for {_pod_key(result)}: winner {winner or 'none'}", fontsize=10)
    return fig


def score_table(result: Mapping[str, Any], *, weights: Mapping[str, int] | None = None) -> str:
    """The Score numbers as an HTML table: ``raw -> final`` per plugin, totalScore last, highest first.

    Parameters
    ----------
    result : mapping
        One trace result.
    weights : mapping of str to int, optional
        Plugin -> weight, shown in the headers.

    Returns
    -------
    str
        HTML; the winner's row is green. Empty table when nothing was scored.

    Raises
    ------
    AttributeError
        When a node's entry in ``score`` or ``finalScore`` is not a mapping
        (plugin -> score). A result without ``name`` or without scores still
        gives a table.

    See Also
    --------
    score_heatmap

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (prioritizeNodes)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go (RunScorePlugins)

    Examples
    --------
    >>> r = {"name": "web", "nodeName": "n1", "score": {"n1": {"A": 90}}, "finalScore": {"n1": {"A": 180}},
    ...      "totalScore": {"n1": 180}}
    >>> "90 → 180" in score_table(r, weights={"A": 2})
    True
    """
    raw, final, total, nodes, plugins = _scores(result)
    rows = []
    for n in nodes:
        css = _PICKED if n == result.get("nodeName") else ""
        cells = [(f"{raw.get(n, {}).get(p, 0)} → {final.get(n, {}).get(p, 0)}", "text-align:right") for p in plugins]
        rows.append([(_e(n), css), *cells, (str(total.get(n, 0)), "text-align:right;" + css)])
    heads = [f"{p} (x{weights[p]})" if weights and p in weights else p for p in plugins]
    return _html_table(["node", *heads, "totalScore"], rows, caption="raw Score → NormalizeScore x weight")


def _heatmap_html(result: Mapping[str, Any], weights: Mapping[str, int]) -> str:
    """The Score heatmap as an HTML table, fast enough to redraw on every widget change.

    Rows are the scored nodes, highest totalScore first; each plugin cell shows
    ``NormalizeScore x weight`` large and the raw Score small, coloured by the
    weighted value on :func:`score_heatmap`'s colour scale; the last column is
    totalScore with a bar, and the winner's row is outlined in green.
    """
    raw, final, total, nodes, plugins = _scores(result)
    winner = result.get("nodeName")
    top = max([v for d in final.values() for v in d.values()] + [100])
    tmax = max(list(total.values()) + [1])
    rows = []
    for n in nodes:
        win = n == winner
        rows.append([(f'{_e(n)}{" ★" if win else ""}', f"padding:3px 8px;white-space:nowrap;font-weight:"
                      f'{"bold" if win else "normal"};color:{_GREEN if win else "black"}')])
        for p in plugins:
            f_v, r_v = int(final.get(n, {}).get(p, 0)), int(raw.get(n, {}).get(p, 0))
            r, g, b, _ = _CMAP(min(1.0, max(0.0, f_v / top)))  # the colour scale of score_heatmap
            rows[-1].append((f'<b>{f_v}</b><br><span style="font-size:10px">raw {r_v}</span>',
                             f"background:#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x};"
                             f'color:{"white" if f_v / top > 0.55 else "black"};text-align:center;padding:2px 6px;'
                             "border:1px solid #fff"))
        t = int(total.get(n, 0))
        rows[-1].append((f'<div style="display:inline-block;height:10px;width:{int(100 * t / tmax)}px;background:'
                         f'{_GREEN if win else "#90a4ae"};margin-right:6px;vertical-align:middle"></div><b>{t}</b>',
                         "padding:2px 8px;white-space:nowrap"))
    # CamelCase plugin names may break between words (<wbr>): six of them must fit a 1,000 px column
    heads = [re.sub("(?<=[a-z])(?=[A-Z])", "<wbr>", _e(p)) + (f" ×{weights[p]}" if p in weights else "")
             for p in plugins]
    caption = (f"<b>Score for {_e(_pod_key(result))}</b>: each cell is NormalizeScore × weight (raw Score below); "
               "totalScore decides")
    return table(["node", *heads, '<div style="min-width:150px">totalScore</div>'], rows, caption,
                 [f"outline:2.5px solid {_GREEN}" if n == winner else "" for n in nodes], html_cells=True,
                 css_class="kubenotes-heatmap", table_css=TABLE_CSS + ";max-width:100%", td_css="",
                 th_css="padding:3px 6px;border-bottom:2px solid #888;font-size:11px;text-align:center;background:#fafafa",
                 caption_css="caption-side:top;text-align:left;padding:2px 0", escape_headers=False,
                 escape_caption=False)


def winner_banner(result: Mapping[str, Any]) -> str:
    """One line saying where the pod goes, by how much it won, or why it stays Pending.

    Parameters
    ----------
    result : mapping
        One trace result.

    Returns
    -------
    str
        HTML ``<div>``.

    Raises
    ------
    KeyError
        When ``result`` has no ``name``.

    See Also
    --------
    trace_summary, failed_scheduling

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (selectHost)

    Examples
    --------
    >>> winner_banner({"name": "w", "nodeName": "n1", "totalScore": {"n1": 300, "n2": 250}})  # doctest: +ELLIPSIS
    '<div class="kubenotes-winner" ...default/w → <b>n1</b> with totalScore <b>300</b> (runner-up n2: 250)</div>'
    """
    total, node, pod = result.get("totalScore") or {}, result.get("nodeName"), _e(_pod_key(result))
    if node:
        others = sorted(((s, n) for n, s in total.items() if n != node), reverse=True)
        text = (f"{pod} → <b>{_e(node)}</b>" + (f" with totalScore <b>{total[node]}</b>" if node in total else "")
                + (f" (runner-up {_e(others[0][1])}: {others[0][0]})" if others
                   else " (the only feasible node: Score skipped)"))
    else:
        text = f"{pod} stays Pending: {_e(result.get('message') or 'no node fits')}" + (
            f"; nominatedNodeName {_e(result['nominatedNodeName'])}" if result.get("nominatedNodeName") else "")
    style = f"font-size:14px;padding:4px 8px;border-left:4px solid {_GREEN if node else _RED};margin:4px 0"
    return Html(f'<div class="kubenotes-winner" style="{style}">{text}</div>')


def failed_scheduling(result: Mapping[str, Any]) -> str:
    """The pod's FailedScheduling event as ``kubectl describe pod`` prints it, with the per-node reasons below.

    Parameters
    ----------
    result : mapping
        One trace result of a pod that did not fit (``message`` set).

    Returns
    -------
    str
        HTML: an ``Events:`` block (``Warning  FailedScheduling
        default-scheduler  <message>``) and a table node -> the plugin that
        rejected it and its reason.

    Raises
    ------
    ValueError
        When the pod was scheduled (no message).

    See Also
    --------
    filter_table, winner_banner

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/types.go (FitError.Error)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (handleSchedulingFailure)

    Examples
    --------
    >>> r = {"name": "big", "nodeName": None, "message": "0/1 nodes are available: 1 Insufficient cpu.",
    ...      "filter": {"n1": {"NodeResourcesFit": "Insufficient cpu"}}}
    >>> "FailedScheduling" in failed_scheduling(r)
    True
    """
    msg = result.get("message")
    if not msg:
        raise ValueError(f"{_pod_key(result)} was scheduled on {result.get('nodeName')}: no FailedScheduling event")
    event = ("Events:\n  Type     Reason            From               Message\n"
             "  ----     ------            ----               -------\n"
             f"  Warning  FailedScheduling  default-scheduler  {msg}")
    first = {node: _first_rejection(verdicts) for node, verdicts in (result.get("filter") or {}).items()}
    rows = [[(_e(node), ""), (_e(pv[0]), ""), (_e(_joined(pv[1], "; ")), f"color:{_RED}")]
            for node, pv in first.items() if pv]
    pre = ('<pre style="font-size:12px;background:#fafafa;border:1px solid #ddd;padding:6px;'
           f'white-space:pre-wrap">{_e(event)}</pre>')
    return Html(pre + (_html_table(["node", "rejected by", "reason"], rows) if rows else ""))


_PRIORITY_CLASS_COLUMNS = {
    "name": lambda pc: (f"<code>{_e(pc.metadata.name)}</code>", ""),
    "value": lambda pc: (_e(pc.value), "text-align:right"),
    "preemptionPolicy": lambda pc: (_e(pc.preemptionPolicy or "PreemptLowerPriority"),
                                    f"color:{_RED}" if pc.preemptionPolicy == "Never" else ""),
    "globalDefault": lambda pc: (_e(bool(pc.globalDefault)), ""),
    "description": lambda pc: (_e(pc.description or ""), ""),
}


def priority_classes_table(priority_classes: Iterable[Any]) -> str:
    """The cluster's PriorityClasses, highest value first.

    Parameters
    ----------
    priority_classes : iterable of lightkube PriorityClass

    Returns
    -------
    str
        HTML with ``metadata.name``, ``value``, ``preemptionPolicy`` (upstream
        default ``PreemptLowerPriority`` when unset), ``globalDefault`` and
        ``description``.

    Raises
    ------
    AttributeError
        When an item is not a PriorityClass object (e.g. a plain dict).
    TypeError
        When a PriorityClass has no ``value`` (``int(None)``).

    See Also
    --------
    preemption_table, kubenotes.viz.objects.priority_admission_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/scheduling/v1/types.go
    https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/

    Examples
    --------
    >>> from lightkube.resources.scheduling_v1 import PriorityClass
    >>> pc = PriorityClass.from_dict({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
    ...                               "metadata": {"name": "batch-low"}, "value": -100})
    >>> "PreemptLowerPriority" in priority_classes_table([pc])
    True
    """
    return _spec_table(_PRIORITY_CLASS_COLUMNS, sorted(priority_classes, key=lambda pc: -int(pc.value)))


def preemption_table(manifests: Any, result: Mapping[str, Any]) -> str:
    """The preemptor next to its victims: PriorityClass, priority and node of each.

    Parameters
    ----------
    manifests : Manifests
        Where the pods are looked up (by ``namespace/name``).
    result : mapping
        The preemptor's trace result (``victims``, ``nominatedNodeName``).

    Returns
    -------
    str
        HTML; victims in red. A victim missing from ``manifests`` shows only its name.

    Raises
    ------
    KeyError
        When ``result`` has no ``name``.
    AttributeError
        When ``manifests`` has no ``pods``.

    See Also
    --------
    priority_classes_table, trace_summary

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/preemption/preemption.go

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from kubenotes.scheduler.testing import make_pod
    >>> m = SimpleNamespace(pods=[make_pod("low", "b", node_name="n1", priority=-5)])
    >>> t = preemption_table(m, {"namespace": "a", "name": "hi", "priority": 100, "nominatedNodeName": "n1",
    ...                          "victims": ["b/low"]})
    >>> "victim" in t and "-5" in t and "preemptor" in t
    True
    """
    pods = {f"{p.metadata.namespace or 'default'}/{p.metadata.name}": p for p in manifests.pods}
    me = pods.get(_pod_key(result))
    rows = [[(_e(_pod_key(result)), "font-weight:bold"), ("preemptor", ""),
             (_e(me.spec.priorityClassName or "") if me is not None else "", ""),
             (_e(result.get("priority", 0)), "text-align:right"),
             (f"nominatedNodeName: {_e(result.get('nominatedNodeName') or '')}", "")]]
    for v, p in ((v, pods.get(v)) for v in result.get("victims") or ()):
        spec = p.spec if p is not None else None
        rows.append([(_e(v), f"color:{_RED}"), ("victim", f"color:{_RED}"),
                     (_e(spec and spec.priorityClassName or ""), ""),
                     (_e(spec.priority if spec else ""), "text-align:right"), (_e(spec.nodeName if spec else ""), "")])
    return _html_table(["pod", "role", "priorityClassName", "priority", "node"], rows)


def legacy_names_table(rows: Iterable[Any], columns: Sequence[str] | None = None) -> str:
    """The old predicate/priority names next to the plugins that replaced them.

    Parameters
    ----------
    rows : iterable of mapping or tuple
        From ``kubenotes.scheduler.legacy.legacy_table()``: mappings (their
        keys become the headers, in order) or tuples (headers ``legacy name``,
        ``kind``, ``plugin``, ``extension points``, ``note`` as many as fit).
    columns : sequence of str, optional
        For mappings: the keys to show, in this order.

    Returns
    -------
    str
        HTML table.

    Raises
    ------
    TypeError
        When the first row is neither a mapping, a named tuple nor a sequence
        (e.g. an int).
    AttributeError
        When rows mix kinds: the first row decides, so a tuple after a mapping
        has no ``get``.

    See Also
    --------
    extension_points_figure, LEGACY_VIEW

    References
    ----------
    https://kubernetes.io/docs/reference/scheduling/policies/ (the Policy API, removed in v1.23)
    https://kubernetes.io/docs/reference/scheduling/config/#scheduling-plugins

    Examples
    --------
    >>> "NodeResourcesFit" in legacy_names_table([{"legacy": "PodFitsResources", "plugin": "NodeResourcesFit"}])
    True
    """
    rows = list(rows)
    first = rows[0] if rows else {}
    if isinstance(first, Mapping):
        heads = list(columns) if columns is not None else list(first)
        body = [[r.get(h) for h in heads] for r in rows]
    elif hasattr(first, "_fields"):  # a named tuple
        heads, body = list(first._fields), [list(r) for r in rows]
    else:
        heads = ["legacy name", "kind", "plugin", "extension points", "note"][: len(first)]
        body = [list(r) for r in rows]
    # Long names (extension-point lists, notes) wrap: the table never grows past the output column.
    return _html_table(heads, [[(_e(_joined(v)), ";overflow-wrap:anywhere") for v in row] for row in body])


# ---------------------------------------------------------------------------
# the chapter's widgets


def _controls(spec: Mapping[str, tuple[str, str, Any, Any]], description_width: str, width: str) -> dict[str, Any]:
    """Widgets from a spec: key -> ``(kind, description, value, options)``.

    ``kind`` is "slider" (options ``(min, max[, step])``), "dropdown" (the
    options) or "checkbox"; every control is ``width`` wide.
    """
    out = {}
    # One Layout for the panel's sliders and dropdowns: a slider widened to fit its track widens them all.
    lay = dict(style={"description_width": description_width}, layout=widgets.Layout(width=width))
    for key, (kind, description, value, options) in spec.items():
        if kind == "slider":
            out[key] = int_slider(description, value, *options, **lay)
        elif kind == "dropdown":
            out[key] = widgets.Dropdown(options=options, value=value, description=description, **lay)
        else:
            out[key] = widgets.Checkbox(value=value, description=description, indent=False,
                                        layout=widgets.Layout(width=width))
    return out


def _outcome(result: Mapping[str, Any]) -> str:
    """Where the pod went (:func:`winner_banner`), or its FailedScheduling event."""
    return winner_banner(result) if result.get("nodeName") else failed_scheduling(result)


def scheduling_panel(manifests: Any, pod: Any, *, config: Any = None, plugins: Sequence[str] | None = None,
                     seed: int = 0) -> Any:
    """The chapter's widget: Score weights, scoring strategy, requests, tolerations, node affinity -> winner and heatmap.

    Parameters
    ----------
    manifests : Manifests
        The cluster (nodes, running pods, other objects).
    pod : lightkube Pod
        The pending pod to place.
    config : any, optional
        Starting configuration (see :func:`~kubenotes.scheduler.config.as_config_dict`); its weights and
        scoring strategy are the controls' defaults.
    plugins : sequence of str, optional
        Score plugins that get a weight slider, in this order (default: every
        Score plugin of the profile). The first slider comes first in the panel.
    seed : int

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`; each change calls
        :func:`~kubenotes.scheduler.whatif.schedule_what_if` and shows :func:`winner_banner` with
        a colour-scaled Score table (HTML, so an update takes milliseconds), or
        :func:`failed_scheduling` / :func:`filter_table` when nothing was scored.

    Raises
    ------
    ConfigError
        When ``config`` is invalid.

    See Also
    --------
    kubenotes.scheduler.whatif.schedule_what_if, kubenotes.viz.widgets.live_panel

    Notes
    -----
    Weight sliders are labelled with the plugin's name and run from 1 to 10:
    upstream turns a weight of 0 into 1, so switching a plugin off means
    disabling it in the configuration. The requests sliders change the first
    container only.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go
    https://kubernetes.io/docs/reference/scheduling/config/

    Examples
    --------
    >>> import contextlib, io
    >>> from kubenotes.api.manifests import load_manifests
    >>> from kubenotes.scheduler.testing import make_pod
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ''')
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = scheduling_panel(m, make_pod("web", requests={"cpu": "500m"}), plugins=["NodeResourcesFit"])
    >>> [w.description for row in panel.children[:-1] for w in row.children]  # doctest: +NORMALIZE_WHITESPACE
    ['NodeResourcesFit', 'NodeResourcesFit scoringStrategy', 'requests.cpu (millicores)', 'requests.memory (MiB)',
     'tolerate dedicated=gpu:NoSchedule', 'nodeAffinity']
    >>> panel.children[1].children[0].value
    500
    """
    base = as_config_dict(config)
    cfg0 = config_with(base)
    weights0 = score_weights(cfg0)
    chosen = list(plugins) if plugins is not None else list(weights0)
    cpu0, mem0 = variant_requests(pod)
    taints, zones = taints_of(manifests.nodes), zones_of(manifests.nodes, ZONE_LABEL)
    affinity = [("none", ("", "", ""))] + [(f"{mode}: {ZONE_LABEL}={z}", (mode, ZONE_LABEL, z))
                                           for mode in ("required", "preferred") for z in zones]
    spec = {f"w{i}": ("slider", p, weights0.get(p, 1), (1, 10)) for i, p in enumerate(chosen)}
    spec.update(strategy=("dropdown", "NodeResourcesFit scoringStrategy", scoring_strategy(cfg0),
                          list(SCORING_STRATEGIES)),
                cpu_milli=("slider", "requests.cpu (millicores)", cpu0, (100, max(8000, cpu0), 100)),
                memory_mib=("slider", "requests.memory (MiB)", mem0, (64, max(16384, mem0), 64)),
                **{f"t{i}": ("checkbox", f"tolerate {taint_string(t)}", False, None) for i, t in enumerate(taints)},
                affinity=("dropdown", "nodeAffinity", affinity[0][1], affinity))
    controls = _controls(spec, "245px", "435px")
    for i, p in enumerate(chosen):
        controls[f"w{i}"].tooltip = f"Score weight of {p}"

    def update(**v: Any) -> Any:
        weights = {p: v[f"w{i}"] for i, p in enumerate(chosen)}
        tolerate = [t for i, t in enumerate(taints) if v[f"t{i}"]]
        result = schedule_what_if(manifests, pod, config=base, weights=weights, strategy=v["strategy"],
                                  cpu_milli=v["cpu_milli"], memory_mib=v["memory_mib"], tolerate=tolerate,
                                  node_affinity=v["affinity"] if v["affinity"][0] else None, seed=seed)
        if result.get("score"):
            return [winner_banner(result), Html(_heatmap_html(result, {**weights0, **weights}))]
        return [winner_banner(result), failed_scheduling(result) if result.get("message") else filter_table(result)]

    return live_panel(update, controls)


def plugin_column_table(result: Mapping[str, Any], plugin: str) -> str:
    """One plugin's view of a trace: its Filter verdict, raw Score, weighted NormalizeScore and the total, per node.

    Parameters
    ----------
    result : mapping
        One trace result.
    plugin : str
        A plugin name, or an extender's ``urlPrefix`` (extenders appear as columns of the trace).

    Returns
    -------
    str
        HTML table and a legend line; the chosen node in green, rejections in
        red. "·": the plugin did not filter that node (its PreFilter returned
        Skip, or Filter had stopped earlier); "rejected earlier by" names the
        rejection that stopped Filter before it.

    Raises
    ------
    AttributeError
        When ``result`` is not a mapping.

    See Also
    --------
    filter_table, score_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go (RunFilterPlugins, RunScorePlugins)

    Examples
    --------
    >>> r = {"name": "p", "nodeName": "n2",
    ...      "filter": {"n1": {"InterPodAffinity": "node(s) didn't match pod affinity rules"},
    ...                 "n2": {"InterPodAffinity": "passed"}},
    ...      "score": {"n2": {"InterPodAffinity": 0}}, "finalScore": {"n2": {"InterPodAffinity": 0}},
    ...      "totalScore": {"n2": 0}}
    >>> t = plugin_column_table(r, "InterPodAffinity")
    >>> "didn&#x27;t match pod affinity rules" in t or "didn't match pod affinity rules" in t
    True
    """
    rows = []
    for n in trace_nodes(result):
        f = (result.get("filter") or {}).get(n, {})
        verdict, failed = f.get(plugin, "·"), _first_rejection(f)
        rows.append([(_e(n), _PICKED if n == result.get("nodeName") else ""),
                     (_e(_joined(verdict, "; ")), f"color:{_RED}" if verdict not in (PASSED, "·") else ""),
                     (_e(_joined(failed[1], "; ") if failed and verdict == "·" else ""), f"color:{_GREY}")]
                    + [(_e((result.get(k) or {}).get(n, {}).get(plugin, "")), "text-align:right")
                       for k in ("score", "finalScore")]
                    + [(_e((result.get("totalScore") or {}).get(n, "")), "text-align:right")])
    head = ["node", f"{plugin} Filter", "rejected earlier by", "raw Score", "× weight", "totalScore"]
    legend = (f'<div style="font-size:11px;color:{_GREY}">· = {_e(plugin)} did not filter this node: its PreFilter '
              "returned Skip (nothing to check), or an earlier Filter plugin had rejected the node</div>")
    return Html(_html_table(head, rows) + legend)  # str + str is a str: wrap it again


_CANDIDATE_COLUMNS = {
    "node": lambda c: (_e(c["node"]), _PICKED if c["selected"] else ""),
    "victims": lambda c: (_e(", ".join(c["victims"]) or "–"), f"color:{_RED}" if c["victims"] else ""),
    "PDB violations": lambda c: (_e(c["pdb_violations"]),
                                 "text-align:right" + (f";color:{_RED}" if c["pdb_violations"] else "")),
    "dry run": lambda c: (_e(c["status"]), ""),
    "picked": lambda c: ("✔" if c["selected"] else "", _PICKED if c["selected"] else ""),
}


def preemption_candidates_table(result: Mapping[str, Any]) -> str:
    """The preemption dry run node by node: victims, PDB violations, and which candidate was picked.

    Parameters
    ----------
    result : mapping
        A result of :func:`kubenotes.scheduler.explore.preemption_what_if` (its ``candidates`` rows).

    Returns
    -------
    str
        HTML; the selected node in green, a banner line above saying the
        nomination, or why there is none.

    Raises
    ------
    KeyError
        When ``result`` has no ``candidates``.

    See Also
    --------
    preemption_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/preemption/preemption.go (pickOneNodeForPreemption)

    Examples
    --------
    >>> r = {"name": "p", "priority": 10, "nominatedNodeName": "n1", "victims": ["default/low"], "candidates": [
    ...     {"node": "n1", "victims": ["default/low"], "pdb_violations": 1, "status": "candidate", "selected": True}]}
    >>> "nominatedNodeName <b>n1</b>" in preemption_candidates_table(r)
    True
    """
    line = f"priority {_e(result.get('priority'))}: "
    if result.get("nodeName"):
        line += f"the pod fits on <b>{_e(result['nodeName'])}</b>, no preemption"
    elif result.get("nominatedNodeName"):
        line += (f"nominatedNodeName <b>{_e(result['nominatedNodeName'])}</b>, "
                 f"victims {_e(', '.join(result.get('victims') or []))}")
    else:
        line += f"no node nominated; {_e(result.get('message') or '')}"
    banner = f'<div class="kubenotes-winner" style="margin:4px 0">{line}</div>'
    return Html(banner + _spec_table(_CANDIDATE_COLUMNS, result["candidates"]))


def extender_exchanges_table(exchanges: Iterable[Sequence[Any]], *, width: int = 160) -> str:
    """The JSON an extender received and answered, one row per call (verb, request, HTTP code, response).

    Parameters
    ----------
    exchanges : iterable of (str, mapping, int, any)
        ``HTTPExtender.exchanges``: verb, decoded request, status code, decoded response.
    width : int
        Characters of JSON shown per cell; longer JSON ends in "…". The pod
        in the request is shown as its ``namespace/name``.

    Returns
    -------
    str
        HTML table.

    Raises
    ------
    ValueError
        When an exchange does not have four items.

    See Also
    --------
    kubenotes.scheduler.extender.ExtenderArgs, kubenotes.scheduler.extender.ExtenderFilterResult

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kube-scheduler/extender/v1/types.go

    Examples
    --------
    >>> t = extender_exchanges_table([("prioritize", {"Pod": {"metadata": {"name": "p", "namespace": "a"}},
    ...                                  "NodeNames": ["n1"]}, 200, [{"Host": "n1", "Score": 10}])])
    >>> "a/p" in t and "HostPriorityList" in t
    True
    """
    def short(v: Any) -> str:
        s = json.dumps(v, separators=(",", ":"), sort_keys=False)
        return _e(s if len(s) <= width else s[: width - 1] + "…")

    mono = "font-family:monospace;word-break:break-all;max-width:330px"
    rows = []
    for verb, request, code, response in exchanges:
        pod = request.get("Pod") if isinstance(request, Mapping) else None
        if isinstance(pod, Mapping):
            request = {**request, "Pod": f"{(pod.get('metadata') or {}).get('namespace', 'default')}/"
                                         f"{(pod.get('metadata') or {}).get('name', '')}"}
        a, b = VERB_TYPES.get(verb, ("", ""))
        rows.append([(f"POST …/{_e(verb)}", "font-family:monospace;white-space:nowrap"), (_e(a), ""),
                     (short(request), mono), (_e(code), "text-align:right"), (_e(b), ""), (short(response), mono)])
    return _html_table(["call", "request type", "request", "code", "response type", "response"], rows)


_PANEL = ("200px", "430px")  # description and control widths of the three panels below


def pod_affinity_panel(manifests: Any, pod: Any, *, config: Any = None, seed: int = 0,
                       targets: Sequence[str] = ("redis", "web", "postgres"),
                       images: Sequence[str] | None = None) -> Any:
    """A live panel: one pod-affinity or anti-affinity term and the pod's image, then InterPodAffinity's and ImageLocality's verdicts.

    Parameters
    ----------
    manifests : Manifests
        The running cluster.
    pod : lightkube Pod
        The pending pod (its namespace is where the term looks for pods).
    config : any, optional
        See :func:`~kubenotes.scheduler.config.as_config_dict`.
    seed : int
    targets : sequence of str
        ``app`` label values the term may select.
    images : sequence of str, optional
        Images to offer; default: the pod's own first.

    Returns
    -------
    ipywidgets.VBox
        Controls (kind, required/preferred, topologyKey, target, weight,
        image) over the InterPodAffinity and ImageLocality tables and the
        winner. It starts with a *preferred* pod affinity to the first target
        by hostname, so every node is scored.

    Raises
    ------
    ConfigError
        When ``config`` is invalid.

    See Also
    --------
    kubenotes.scheduler.explore.pod_affinity_variant, plugin_column_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/imagelocality/image_locality.go

    Examples
    --------
    >>> import contextlib, io
    >>> from kubenotes.api.manifests import load_manifests
    >>> from kubenotes.scheduler.testing import make_pod
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ''')
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     panel = pod_affinity_panel(m, make_pod("web"), targets=["db"])
    >>> [w.description for row in panel.children[:-1] for w in row.children]
    ['affinity', 'term', 'topologyKey', 'matchLabels app', 'preferred weight', 'image']
    """
    base = as_config_dict(config)
    weights = score_weights(config_with(base))
    image0 = pod.spec.containers[0].image
    controls = _controls({
        "kind": ("dropdown", "affinity", "podAffinity", ["none", "podAffinity", "podAntiAffinity"]),
        "mode": ("dropdown", "term", "preferred", ["required", "preferred"]),
        "topology_key": ("dropdown", "topologyKey", "kubernetes.io/hostname",
                         ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]),
        "target": ("dropdown", "matchLabels app", targets[0], list(targets)),
        "weight": ("slider", "preferred weight", 100, (1, 100)),
        "image": ("dropdown", "image", image0, list(dict.fromkeys([image0, *(images or ())]))),
    }, *_PANEL)

    def update(kind: str, mode: str, topology_key: str, target: str, weight: int, image: str) -> Any:
        variant = pod_affinity_variant(pod, kind="podAffinity" if kind == "none" else kind, mode=mode,
                                       topology_key=topology_key, weight=weight, image=image,
                                       match_labels=None if kind == "none" else {"app": target})
        r = schedule_what_if(manifests, variant, config=base, seed=seed)
        return [_outcome(r)] + [f"<b>{p}</b> (weight {weights.get(p, 1)})" + plugin_column_table(r, p)
                                for p in ("InterPodAffinity", "ImageLocality")]

    return live_panel(update, controls, columns=2)


def preemption_panel(manifests: Any, pod: Any, *, config: Any = None, seed: int = 0) -> Any:
    """A live panel: the preemptor's priority and a PodDisruptionBudget over the likely victims, then the dry run.

    Parameters
    ----------
    manifests : Manifests
        The running cluster.
    pod : lightkube Pod
        The preemptor; its own ``spec.priority`` is the slider's start (clamped to -200..2000, step 100).
    config : any, optional
    seed : int

    Returns
    -------
    ipywidgets.VBox
        A priority slider, a checkbox adding a PodDisruptionBudget (namespace
        ``batch``, ``matchLabels {"job-name": "transcode"}``, the chapter's
        likely victims) and its ``maxUnavailable`` slider, over
        :func:`preemption_candidates_table`.

    Raises
    ------
    ConfigError
        When ``config`` is invalid.

    See Also
    --------
    kubenotes.scheduler.explore.preemption_what_if

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/preemption/preemption.go

    Examples
    --------
    >>> import contextlib, io
    >>> from kubenotes.api.manifests import load_manifests
    >>> from kubenotes.scheduler.testing import make_pod
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ''')
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     panel = preemption_panel(m, make_pod("big", requests={"cpu": "1"}))
    >>> [w.description for row in panel.children[:-1] for w in row.children]
    ['preemptor spec.priority', 'PodDisruptionBudget on victims', 'PDB maxUnavailable']
    """
    base = as_config_dict(config)
    controls = _controls({
        "priority": ("slider", "preemptor spec.priority", min(max(int(pod.spec.priority or 0), -200), 2000),
                     (-200, 2000, 100)),
        "use_pdb": ("checkbox", "PodDisruptionBudget on victims", False, None),
        "max_unavailable": ("slider", "PDB maxUnavailable", 0, (0, 5)),
    }, *_PANEL)

    def update(priority: int, use_pdb: bool, max_unavailable: int) -> Any:
        pdb = ("batch", {"job-name": "transcode"}, max_unavailable) if use_pdb else None
        return [preemption_candidates_table(preemption_what_if(manifests, pod, priority=priority, pdb=pdb, config=base,
                                                               seed=seed))]

    return live_panel(update, controls, columns=2)


def extender_panel(manifests: Any, pod: Any, *, config: Any, seed: int = 0) -> Any:
    """A live panel: what a zone extender avoids and prefers, and its weight, then the trace and the JSON on the wire.

    Parameters
    ----------
    manifests : Manifests
        The running cluster (its nodes' ``topology.kubernetes.io/zone`` values are the choices).
    pod : lightkube Pod
    config : any
        A configuration with an extender (``data/extenders/scheduler-config.yaml``).
    seed : int

    Returns
    -------
    ipywidgets.VBox
        Controls (avoided zone, preferred zone, extender weight) over the
        extender's column of the trace, the winner and the calls it answered.

    Raises
    ------
    ValueError
        When ``config`` has no extender.

    See Also
    --------
    kubenotes.scheduler.explore.extender_what_if, extender_exchanges_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/extender.go

    Examples
    --------
    >>> import contextlib, io
    >>> from kubenotes.api.manifests import load_manifests
    >>> from kubenotes.scheduler.testing import make_pod
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: a1, labels: {topology.kubernetes.io/zone: a}}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ''')
    >>> cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    ...        "extenders": [{"urlPrefix": "http://x/s", "filterVerb": "filter", "prioritizeVerb": "prioritize",
    ...                       "weight": 1}]}
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     panel = extender_panel(m, make_pod("p"), config=cfg)
    >>> [w.description for row in panel.children[:-1] for w in row.children]
    ['extender avoids zone', 'extender prefers zone', 'extender weight']
    """
    base = as_config_dict(config)
    if not base.get("extenders"):
        raise ValueError("the configuration has no extenders")
    url = base["extenders"][0]["urlPrefix"]
    zones = ["none", *zones_of(manifests.nodes, ZONE_LABEL)]
    controls = _controls({
        "avoid": ("dropdown", "extender avoids zone", zones[-1], zones),
        "prefer": ("dropdown", "extender prefers zone", zones[1 if len(zones) > 1 else 0], zones),
        "weight": ("slider", "extender weight", int(base["extenders"][0].get("weight") or 1), (1, 10)),
    }, *_PANEL)

    def update(avoid: str, prefer: str, weight: int) -> Any:
        r = extender_what_if(manifests, pod, config=base, avoid_zones=() if avoid == "none" else (avoid,),
                             prefer_zone=None if prefer == "none" else prefer, weight=weight, seed=seed)
        return [_outcome(r),
                f"<b>extender {_e(url)}</b> (weight {weight}: Score = 0-10 × {weight} × 10)"
                + plugin_column_table(r, url),
                extender_exchanges_table(r["exchanges"])]

    return live_panel(update, controls, columns=2)
