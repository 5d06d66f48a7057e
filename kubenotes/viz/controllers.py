"""Timelines, ownership graphs and tables of the controllers chapter, read from a running cluster's history.

Nothing here reconciles anything: the numbers come from the controllers of
:mod:`kubenotes.controllers` running in a :class:`~kubenotes.sim.cluster.Cluster`,
and the queries of :mod:`kubenotes.sim.timelines` (rollout timelines, Events,
audit entries, a node's conditions, a Job's attempts) and
:mod:`kubenotes.sim.ownership` (ownerReferences as a graph, a before/after
diff) read what they wrote, the way ``kubectl get -w`` and ``kubectl get events``
show it. The chapter's scenarios are data, ``data/controllers/*.yaml``, run by
:mod:`kubenotes.sim.scenarios` with a widget's parameters. This module draws the
runs; its private drawing helpers (step lines, time marks, boxes and arrows,
panels) are shared with :mod:`kubenotes.viz.workloads`.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/rolling.go (reconcileNewReplicaSet, reconcileOldReplicaSets)
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/util/deployment_util.go (MaxSurge, MaxUnavailable, ResolveFenceposts)
kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem, orphanDependents)
kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle/node_lifecycle_controller.go (monitorNodeHealth)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go (the history)
https://kubernetes.io/docs/concepts/architecture/controller/
https://kubernetes.io/docs/concepts/architecture/garbage-collection/
"""

from __future__ import annotations

import functools
from typing import Any, Iterable, Mapping, Sequence

import networkx as nx
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.transforms import Bbox

from kubenotes.client.components import reconcile_loop_graph
from kubenotes.sim.ownership import graph_diff, ownership_graph
from kubenotes.sim.scenarios import (RollingUpdateRun, ScenarioRun, simulate_cascade, simulate_node_failure,
                                     simulate_rollout, simulate_scale)
from kubenotes.sim.timelines import (RolloutTimeline, audit_entries, cascade_writes, events_by_time,
                                     node_failure_milestones, node_timeline, pods_per_node_timeline, rc_sizes,
                                     rollout_done_at, rollout_timeline, series_extremes, series_held_seconds,
                                     series_value_at)
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import Html, table
from kubenotes.viz.html import escape as _e

__all__ = [
    "rollout_figure", "rolling_update_figure", "ownership_figure", "reconcile_loop_figure", "events_table",
    "audit_table", "node_timeline_table", "job_attempts_table", "scale_panel", "rollout_panel",
    "node_failure_panel", "cascade_panel",
]

_OLD_COLOURS = ("#1565c0", "#42a5f5", "#90caf9", "#5c6bc0")
_NEW_COLOUR = "#e65100"
_LINE_COLOURS = ("#1565c0", "#2e7d32", "#6a1b9a", "#00838f", "#ad1457", "#ef6c00")
_LEGEND_RIGHT = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}


# --------------------------------------------------------------------------- drawing helpers (also workloads')
def _axes_figure(width: float, height: float, rect: tuple[float, float, float, float]) -> Figure:
    """A detached figure of ``width`` x ``height`` inches with one Axes at ``rect`` (a fixed layout)."""
    fig = detached_figure(width, height)
    fig.add_axes(rect)
    return fig


def _clear_plotted(ax: Axes) -> None:
    """Empty ``ax`` for the next plot of the same kind, as ``ax.clear()`` but keeping its tick objects.

    The plotted artists, the legend and the title go and the data limits are
    forgotten; the callers set both limits, labels, grid and locator every time.
    """
    for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.texts, *ax.images]:
        artist.remove()
    if ax.legend_ is not None:
        ax.legend_.remove()
    for loc in ("left", "center", "right"):
        ax.set_title("", loc=loc)
    ax.dataLim.set_points(Bbox.null().get_points())
    ax.ignore_existing_data_limits = True


def _steps(series: Sequence[tuple[float, int]], end: float, *, keep_instants: bool = False) -> tuple[list, list]:
    """x, y for ``ax.step(where="post")`` with the last value held until ``end``.

    Same-time points keep the last, unless ``keep_instants``: then every one is kept, and the step line
    draws a value held for zero seconds as a vertical spike (4 -> 8 -> 7 at one instant reaches 8).
    """
    points = list(series) if keep_instants else list(dict(series).items())  # sorted by time: equal times adjoin
    if points and end > points[-1][0]:
        points.append((end, points[-1][1]))
    return [x for x, _ in points], [y for _, y in points]


def _step_lines(ax: Axes, end: float, lines: Iterable[tuple[Sequence[tuple[float, int]], Mapping[str, Any]]],
                keep_instants: bool = False) -> None:
    """One ``ax.step`` per ``(series, style)`` that has points, each held until ``end``."""
    for series, style in lines:
        xs, ys = _steps(series, end, keep_instants=keep_instants)
        if xs:
            ax.step(xs, ys, where="post", **style)


def _time_axes(ax: Axes, ylabel: str, legend: Mapping[str, Any] | None = _LEGEND_RIGHT, *,
               title: str | None = None, integer: bool = True, **title_style: Any) -> None:
    """Label a plot over virtual time: x and y labels, a light grid, integer ticks, the legend, the title."""
    if integer:
        ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("virtual time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.25)
    if legend is not None:
        ax.legend(fontsize=8, frameon=False, **legend)
    if title:
        ax.set_title(title, fontsize=10, **title_style)


def _time_marks(ax: Axes, marks: Iterable[tuple[float, str]], *, rows: int = 1, step: float = 11,
                colour: str = "#c62828", text: str = "#b71c1c", ls: str = "--", lw: float = 0.9, **style: Any) -> None:
    """A vertical line per ``(time, label)``, the label at the top; labels step down ``step`` points over ``rows``."""
    for j, (t, what) in enumerate(marks):
        ax.axvline(t, color=colour, lw=lw, ls=ls)
        ax.annotate(what, (t, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -11 - step * (j % rows)),
                    textcoords="offset points", fontsize=8, color=text, **style)


def _box_graph(ax: Axes, pos: Mapping[Any, tuple[float, float]], boxes: Mapping[Any, tuple[str, Mapping[str, Any]]],
               edges: Iterable[tuple[Any, Any, Mapping[str, Any]]]) -> None:
    """Text boxes ``node -> (text, ax.text style)`` at ``pos`` and an arrow per ``(u, v, arrowprops)`` edge.

    The arrows are added after the boxes and clipped to them, so they end at a box's edge.
    """
    drawn = {v: ax.text(*pos[v], text, **{"ha": "center", "va": "center", "zorder": 3, **style})
             for v, (text, style) in boxes.items()}
    for u, v, props in edges:
        ax.annotate("", xy=pos[v], xytext=pos[u], zorder=4, arrowprops={
            "arrowstyle": "-|>", "patchA": drawn[u].get_bbox_patch(), "patchB": drawn[v].get_bbox_patch(), **props})


def _legend_patches(ax: Axes, patches: Iterable[Mapping[str, Any]], **where: Any) -> None:
    """A legend of coloured boxes (``Patch`` keyword arguments each), font 8, no frame."""
    ax.legend(handles=[Patch(**p) for p in patches], fontsize=8, frameon=False, **where)


def _drawn_into(view: Any, figure: Figure) -> Any:
    """``view(**values)`` drawing every position into one kept ``figure``, shown as its PNG.

    ``view`` takes ``figure=`` and clears its Axes before drawing, so a panel
    does not build a Figure and its Axes for each control position. The
    figure is turned at once into the PNG the inline backend shows: drawn once
    and cut to the tight box (:func:`~kubenotes.viz.widgets.figure_png`), or,
    when artists reach outside the figure, printed with ``bbox_inches="tight"``.
    """
    from IPython.core.pylabtools import print_figure

    from kubenotes.viz.widgets import figure_png, png_display

    def update(**values: Any) -> list[Any]:
        parts = view(**values, figure=figure)
        if figure not in parts:
            return parts
        png = figure_png(figure) or print_figure(figure, "png", bbox_inches="tight")
        return [png_display(png) if part is figure else part for part in parts]

    return update


def _control(description: str, value: Any, *spec: Any, label_px: int = 235, width_px: int = 500) -> Any:
    """A panel's control: ``(lo, hi[, step])`` an int slider, ``(options,)`` a dropdown, nothing a checkbox."""
    import ipywidgets as widgets

    from kubenotes.viz.widgets import int_slider

    if not spec:
        return widgets.Checkbox(value=value, description=description, indent=False)
    style = {"style": {"description_width": f"{label_px}px"}, "layout": widgets.Layout(width=f"{width_px}px")}
    if isinstance(spec[0], (list, tuple)):
        return widgets.Dropdown(options=list(spec[0]), value=value, description=description, **style)
    return int_slider(description, value, *spec, **style)


def _panel(view: Any, controls: Mapping[str, tuple], figure: Figure | None = None, **size: int) -> Any:
    """:func:`~kubenotes.viz.widgets.live_panel` over ``view`` (memoised) with ``name -> _control(*spec)`` controls.

    Every view is a deterministic simulation of its control values: a value
    seen before is shown at once. With ``figure``, every position is drawn
    into that one figure (:func:`_drawn_into`).
    """
    from kubenotes.viz.widgets import live_panel, memoise_update

    update = view if figure is None else _drawn_into(view, figure)
    return live_panel(memoise_update(update), {k: _control(*spec, **size) for k, spec in controls.items()}, columns=2)


# --------------------------------------------------------------------------- rollout timeline
def _plot_rollout(t: RolloutTimeline, ax: Axes, *, start_seconds: float | None = None,
                  title: str | None = None) -> Axes:
    """Draw a rollout on ``ax`` (cleared): a step line per ReplicaSet, the pods/available band and both fences."""
    _clear_plotted(ax)
    end = max(t.end_seconds, max((x for s in t.values() for x, _ in s), default=0.0))
    if start_seconds is None:
        start_seconds = max(0.0, t.changes[0][0] - 5.0) if t.changes else 0.0
    pods, available = t.get("pods", []), t.get("available", [])
    # every state of pods and available is drawn, also one held 0 s (a spike), as the panel's title counts them
    _step_lines(ax, end, [(pods, {"color": "#424242", "lw": 3.2, "alpha": 0.6, "label": "pods (not terminating)",
                                  "zorder": 2}),
                          (available, {"color": "#2e7d32", "lw": 3.2, "alpha": 0.6, "label": "available",
                                       "zorder": 2})], keep_instants=True)
    if pods:
        peak = series_extremes(pods, since=start_seconds)[1]
        held, at = series_held_seconds(pods, peak, start_seconds, end)
        if held == 0:
            ax.plot([at], [peak], marker="v", ms=7, color="#424242", ls="none", zorder=5)
            ax.annotate(f"{peak} pods for 0 s", (at, peak), xytext=(7, -13), textcoords="offset points", fontsize=8,
                        color="#424242")
    if pods and available:
        top, bottom = (list(zip(*_steps(s, end))) for s in (pods, available))
        grid = sorted({x for x, _ in top} | {x for x, _ in bottom})
        ax.fill_between(grid, [series_value_at(bottom, x) for x in grid], [series_value_at(top, x) for x in grid],
                        step="post", color="#ffcc80", alpha=0.55, lw=0, label="running, not yet available", zorder=1)
    new = t.new_replica_set
    lines = []
    for i, name in enumerate([n for n in t.replica_sets if n != new] + ([new] if new else [])):
        is_new = name == new and len(t.replica_sets) > 1
        rev = t.revisions.get(name)
        lines.append((t.get(f"rs:{name}", []), {
            "lw": 1.6, "zorder": 4, "color": _NEW_COLOUR if is_new else _OLD_COLOURS[i % len(_OLD_COLOURS)],
            "label": f"{'new' if is_new else 'old'} RS {name}" + (f" (rev {rev})" if rev else "")}))
    for key, colour, label in (("surge_bound", "#c62828", "replicas + maxSurge"),
                               ("min_available", "#6a1b9a", "replicas − maxUnavailable")):
        lines.append((t.get(key, []), {"color": colour, "lw": 1.3, "ls": "--", "label": label, "zorder": 3}))
    _step_lines(ax, end, lines)
    _time_marks(ax, [(x, what) for x, what in t.changes if x >= start_seconds], colour="#757575", text="#424242",
                ls=":", lw=0.8)
    ax.set_ylim(-0.3, max([y for s in t.values() for _, y in s] + [1]) + 1.2)
    settled = max([x for k, s in t.items() if k not in ("surge_bound", "min_available", "replicas") for x, _ in s]
                  + [start_seconds])
    ax.set_xlim(start_seconds, min(end, max(settled + 20.0, start_seconds + 30.0)) if end > start_seconds
                else start_seconds + 1)
    _time_axes(ax, "pods / RS spec.replicas", title=title, y=1.0)  # y: no top ticks to measure
    return ax


def _rollout_axes() -> Figure:
    """:func:`rollout_figure`'s empty figure: 10 x 3.8 inches, one Axes with room for the legend on the right."""
    return _axes_figure(10.0, 3.8, (0.07, 0.14, 0.62, 0.76))


def rollout_figure(timeline: RolloutTimeline, *, title: str | None = None,
                   start_seconds: float | None = None) -> Figure:
    """A rollout over time: one step line per ReplicaSet, the pods/available band and the surge/availability fences.

    Parameters
    ----------
    timeline : RolloutTimeline
        From :func:`~kubenotes.sim.timelines.rollout_timeline`.
    title : str, optional
        The Axes title.
    start_seconds : float, optional
        Left edge of the time axis (default: a few seconds before the first change, or 0).

    Returns
    -------
    matplotlib.figure.Figure
        10 x 3.8 inches with one Axes (the legend right of it), not attached to pyplot.

    Raises
    ------
    AttributeError
        For a plain dict instead of a :class:`~kubenotes.sim.timelines.RolloutTimeline` (no ``end_seconds``).

    Notes
    -----
    The band between ``pods`` (not terminating) and ``available`` is the pods
    that run but do not count as available yet. The dashed lines are
    ``replicas + maxSurge`` (the most pods a rollout may run) and
    ``replicas - maxUnavailable`` (the fewest available pods it may leave). A
    count held for zero seconds shows as a spike, marked "N pods for 0 s".

    Examples
    --------
    >>> t = RolloutTimeline("d/web"); t.update({"pods": [(0, 2)], "available": [(0, 1)],
    ...     "surge_bound": [(0, 3)], "min_available": [(0, 1)], "rs:a": [(0, 2)]}); t.replica_sets = ["a"]
    >>> t.end_seconds = 10
    >>> import matplotlib.pyplot as plt
    >>> fig = rollout_figure(t, title="web"); len(fig.axes), fig.axes[0].get_title(), len(fig.axes[0].get_lines())
    (1, 'web', 5)
    >>> plt.close(fig)
    """
    fig = _rollout_axes()
    _plot_rollout(timeline, fig.axes[0], title=title, start_seconds=start_seconds)
    return fig


# --------------------------------------------------------------------------- ownership graph and the cascade
def _ownership_layout(g: nx.DiGraph) -> dict[Any, tuple[float, float]]:
    """Fixed tree positions: roots on top, each parent centred over its children, leaves 1 apart, depth d at y=-d.

    A dependent with several owners sits under its first (controller) owner.

    >>> _ownership_layout(nx.DiGraph([("d", "r"), ("r", "p1"), ("r", "p2")]))
    {'p1': (0.0, -2.0), 'p2': (1.0, -2.0), 'r': (0.5, -1.0), 'd': (0.5, 0.0)}
    """
    parent = {v: ([p for p in g.predecessors(v) if g.edges[p, v].get("controller")] or list(g.predecessors(v)))[0]
              for v in g if g.in_degree(v)}
    pos: dict[Any, tuple[float, float]] = {}
    next_x = [0.0]

    def place(v: Any, depth: int, seen: frozenset) -> float:
        kids = [k for k in g if parent.get(k) == v and k not in seen]
        if kids:
            xs = [place(k, depth + 1, seen | {v}) for k in kids]
            x = (min(xs) + max(xs)) / 2
        else:
            x, next_x[0] = next_x[0], next_x[0] + 1.0
        pos[v] = (x, float(-depth))
        return x

    for v in [v for v in g if v not in parent] + list(g):  # the roots, then what a cycle left (not valid, not lost)
        if v not in pos:
            place(v, 0, frozenset())
            next_x[0] += 0.5
    return pos


_KIND_FC = {"Deployment": "#e8eaf6", "ReplicaSet": "#e3f2fd", "Job": "#e3f2fd", "CronJob": "#e8eaf6",
            "ReplicationController": "#e3f2fd"}
# An object's box by its state, and the legend entry for that state (the first two always shown).
_STATE_BOX = {"": ("#616161", 1.0, "-", "object (arrow: ownerReference owner → dependent)"),
              "terminating": ("#ef6c00", 1.8, "-", "terminating (deletionTimestamp set)"),
              "deleted": ("#c62828", 1.5, "--", "deleted / owner not found"),
              "created": ("#2e7d32", 1.8, "-", "created")}
_STATE_FC = {"terminating": "#fff3e0", "deleted": "#ffebee", "created": "#e8f5e9"}
_EDGE_COLOUR = {"removed": "#9e9e9e", "deleted": "#e57373", "created": "#66bb6a"}


def _state(d: Mapping[str, Any]) -> str:
    """Which of :data:`_STATE_BOX` an object's box shows (deleted over created over terminating)."""
    if d.get("change") == "deleted" or d.get("missing"):
        return "deleted"
    return "created" if d.get("change") == "created" else "terminating" if d.get("terminating") else ""


def _node_label(d: Mapping[str, Any]) -> str:
    name = d.get("name", "")
    extra = ([d.get("node"), d.get("phase") if d.get("phase") != "Running" else None] if d.get("kind") == "Pod"
             else [f"replicas {d['replicas']}" if d.get("replicas") is not None else None])
    extra += ["Terminating" if d.get("terminating") else None,
              "finalizer " + ",".join(d["finalizers"]) if d.get("finalizers") else None,
              "(not found)" if d.get("missing") else None, "deleted" if d.get("change") == "deleted" else None]
    extra = [x for x in extra if x]
    return "\n".join([d.get("kind", ""), name if len(name) <= 22 else name[:11] + "…" + name[-10:]]
                     + ([" · ".join(extra)] if extra else []))


def ownership_figure(g: nx.DiGraph, *, title: str | None = None,
                     pos: Mapping[Any, tuple[float, float]] | None = None) -> Figure:
    """Draw an ownership graph (or a :func:`~kubenotes.sim.ownership.graph_diff`) as a fixed tree, sized to it.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.sim.ownership.ownership_graph` or :func:`~kubenotes.sim.ownership.graph_diff`.
    title : str, optional
        May span lines; the figure grows by one line's height for each.
    pos : mapping of node to (x, y), optional
        Node positions; default: roots on top, each parent centred over its
        children, leaves one apart (pass the layout of an earlier state to keep
        nodes in place; nodes without a position are left out).

    Returns
    -------
    matplotlib.figure.Figure
        9 to 9.8 inches wide (at most 1,000 px inline), one Axes, not attached to pyplot.

    Raises
    ------
    TypeError
        When a ``pos`` value is not an ``(x, y)`` pair; a graph from
        :func:`~kubenotes.sim.ownership.ownership_graph` gives none of its own.

    Notes
    -----
    Deleted objects are red and dashed, created ones green, terminating ones
    (``deletionTimestamp`` set, held by a finalizer or a grace period) orange;
    an edge is an ownerReference (solid when ``controller: true``), dashed grey
    when it was removed (the dependent was orphaned).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> g = nx.DiGraph(); g.add_node("d", kind="Deployment", name="web"); g.add_node("p", kind="Pod", name="web-1")
    >>> g.add_edge("d", "p", controller=True)
    >>> fig = ownership_figure(g, title="t")
    >>> bool(fig.get_size_inches()[0] >= 6), len(fig.axes), len(fig.axes[0].texts)
    (True, 1, 3)
    >>> plt.close(fig)
    """
    pos = dict(pos) if pos is not None else _ownership_layout(g)
    xs, ys = [x for x, _ in pos.values()] or [0.0], [y for _, y in pos.values()] or [0.0]
    # 1.5 inch per leaf, but never wider than a ~1,000 px output column at 100 dpi (graphs.MAX_INLINE_WIDTH_PX):
    # ten pods (a ReplicaSet at 9 replicas and one being deleted) keep about 1 inch each, wider than a pod's box.
    width = min(9.8, max(9.0, 1.5 * (max(xs) - min(xs) + 1.4)))
    title_lines = title.count("\n") + 1 if title else 0
    height = 1.0 * (max(ys) - min(ys) + 1.1) + 0.9 + 0.2 * title_lines
    fig = _axes_figure(width, height, (0.01, 0.7 / height, 0.98, 1 - (0.75 + 0.25 * title_lines) / height))
    ax = fig.axes[0]
    nodes = {v: d for v, d in g.nodes(data=True) if v in pos}
    states = {v: _state(d) for v, d in nodes.items()}
    _box_graph(ax, pos, {v: (_node_label(d), {
        "fontsize": 7.2, "color": "#9e9e9e" if d.get("change") == "deleted" else "#212121",
        "bbox": {"boxstyle": "round,pad=0.3", "fc": _STATE_FC.get(states[v], _KIND_FC.get(d.get("kind"), "#ffffff")),
                 "ec": _STATE_BOX[states[v]][0], "lw": _STATE_BOX[states[v]][1], "ls": _STATE_BOX[states[v]][2]}})
        for v, d in nodes.items()},
        [(u, v, {"color": _EDGE_COLOUR.get(d.get("change", ""), "#616161"), "lw": 1.1, "shrinkA": 1, "shrinkB": 1,
                 "ls": "--" if d.get("change") in ("removed", "deleted") or not d.get("controller", True) else "-"})
         for u, v, d in g.edges(data=True) if u in nodes and v in nodes])
    ax.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.5)
    ax.axis("off")
    seen = {_state(d) for _, d in g.nodes(data=True)}
    shown = ["", "terminating"] + [s for s in ("deleted", "created") if s in seen]
    patches = [{"fc": _STATE_FC.get(s, "#ffffff"), "ec": ec, "lw": lw, "ls": ls, "label": label}
               for s in shown for ec, lw, ls, label in [_STATE_BOX[s]]]
    if any(d.get("change") == "removed" for *_, d in g.edges(data=True)):
        patches.append({"fc": "#ffffff", "ec": "#9e9e9e", "ls": "--", "label": "ownerReference removed (orphaned)"})
    _legend_patches(ax, patches, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2)
    if title:
        ax.set_title(title, fontsize=10)
    return fig


# --------------------------------------------------------------------------- the reconcile loop
# Fixed positions of the loop's boxes (the nodes of :data:`kubenotes.client.components.RECONCILE_LOOP`).
_LOOP_POS = {"kube-apiserver": (0.0, 1.0), "Reflector": (1.6, 2.0), "DeltaFIFO": (3.4, 2.0),
             "Indexer (cache)": (5.6, 2.0), "event handlers": (3.4, 1.0), "workqueue": (3.4, 0.0),
             "Reconcile (syncHandler)": (5.6, 0.0)}
_LOOP_SIDES = {"server": ("#e8eaf6", "#3949ab", "API server"),
               "client-go": ("#e3f2fd", "#1e88e5", "client-go (shared informer)"),
               "controller": ("#fff3e0", "#ef6c00", "the controller's own code")}


def reconcile_loop_figure(g: nx.DiGraph | None = None) -> Figure:
    """Draw :func:`~kubenotes.client.components.reconcile_loop_graph` with its fixed layout.

    Parameters
    ----------
    g : networkx.DiGraph, optional
        From :func:`~kubenotes.client.components.reconcile_loop_graph` (default: the ReplicaSet controller's).

    Returns
    -------
    matplotlib.figure.Figure
        One Axes (axis off): the boxes coloured by side (API server,
        client-go, the controller), the edges labelled, a legend.

    Raises
    ------
    KeyError
        For a node without a fixed position or ``side`` (a graph not built by
        :func:`~kubenotes.client.components.reconcile_loop_graph`).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = reconcile_loop_figure()
    >>> len(fig.axes), fig.axes[0].get_title().startswith("The reconcile loop")
    (1, True)
    >>> plt.close(fig)
    """
    g = g if g is not None else reconcile_loop_graph()
    fig = _axes_figure(10.0, 4.2, (0.01, 0.02, 0.98, 0.9))
    ax = fig.axes[0]
    pos = {v: _LOOP_POS[v] for v in g}
    suffix = {"Reconcile (syncHandler)": g.graph.get("controller", ""), "Reflector": g.graph.get("resource", "")}
    back = ("Reconcile (syncHandler)", "kube-apiserver")  # the write, drawn as an arc below
    _box_graph(ax, pos, {v: (v + (f"\n{suffix[v]}" if v in suffix else ""), {
        "fontsize": 8.5, "bbox": {"boxstyle": "round,pad=0.4", "fc": _LOOP_SIDES[d["side"]][0],
                                  "ec": _LOOP_SIDES[d["side"]][1], "lw": 1.4}}) for v, d in g.nodes(data=True)},
        [(a, b, {"color": "#616161", "lw": 1.2, "shrinkA": 2, "shrinkB": 2,
                 "connectionstyle": f"arc3,rad={-0.25 if (a, b) == back else 0.0}"}) for a, b in g.edges])
    for a, b, d in g.edges(data=True):  # each label beside its arrow: above a row, left or right of a column
        (xa, ya), (xb, yb) = pos[a], pos[b]
        vertical, right = xa == xb, xa == xb and xa > 5
        x, y = ((2.8, -0.5) if (a, b) == back else ((xa + xb) / 2 + (-0.08 if right else 0.08 if vertical else 0.0),
                                                   (ya + yb) / 2 + (0.0 if vertical else 0.1)))
        ax.text(x, y, d["label"], ha="right" if right else "left" if vertical else "center",
                va="center" if vertical or (a, b) == back else "bottom", fontsize=7.5, color="#424242", zorder=2,
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85})
    ax.set_xlim(-0.8, 6.6)
    ax.set_ylim(-1.0, 2.4)
    ax.axis("off")
    _legend_patches(ax, [{"fc": fc, "ec": ec, "label": label} for fc, ec, label in _LOOP_SIDES.values()],
                    loc="lower left")
    ax.set_title("The reconcile loop: a controller reads from its cache and writes through the API", fontsize=10)
    return fig


# --------------------------------------------------------------------------- tables
# The chapter's tables: text cells, a style attribute on every row (``row_css`` colours some).
_table = functools.partial(table, tr_style=True)


def _fmt_t(t: float | None) -> str:
    return "" if t is None else f"{t:g}"


def events_table(source: Any, namespace: str | None = None, *, reasons: Iterable[str] | None = None,
                 kinds: Iterable[str] | None = None, limit: int | None = 30, caption: str | None = None) -> Html:
    """Kubernetes Events as ``kubectl get events`` lists them: last seen, type, reason, object, message, count.

    Parameters
    ----------
    source : Cluster or iterable of dict
        A cluster (its ``events``) or Event objects.
    namespace : str, optional
    reasons, kinds : iterable of str, optional
        Keep only these reasons / involvedObject kinds.
    limit : int, optional
        The last ``limit`` rows (by last seen); None for all.
    caption : str, optional

    Returns
    -------
    Html
        Rows sorted by ``lastTimestamp`` (virtual seconds), then name
        (:func:`~kubenotes.sim.timelines.events_by_time`); Warnings in red.

    Raises
    ------
    KeyError
        For an Event without ``metadata.name``.
    AttributeError
        For an item of ``source`` that is not a dict.

    Examples
    --------
    >>> ev = {"kind": "Event", "metadata": {"name": "web.1", "namespace": "d"}, "type": "Normal",
    ...       "reason": "SuccessfulCreate", "message": "Created pod: web-x", "count": 1,
    ...       "involvedObject": {"kind": "ReplicaSet", "name": "web"}, "source": {"component": "replicaset-controller"},
    ...       "lastTimestamp": "2025-08-27T00:00:05Z"}
    >>> "SuccessfulCreate" in events_table([ev]) and "ReplicaSet/web" in events_table([ev])
    True
    """
    events = events_by_time(source, namespace, reasons=reasons, kinds=kinds, limit=limit)
    return _table(("last seen (s)", "type", "reason", "object", "message", "count", "from"), [
        (_fmt_t(t), e.get("type", ""), e.get("reason", ""),
         f"{(e.get('involvedObject') or {}).get('kind', '')}/{(e.get('involvedObject') or {}).get('name', '')}",
         e.get("message", ""), e.get("count", 1),
         (e.get("source") or {}).get("component") or e.get("reportingComponent", "")) for t, e in events],
        caption, ["color:#c62828" if e.get("type") == "Warning" else "" for _, e in events])


def audit_table(source: Any, *, since: float | None = None, until: float | None = None,
                kinds: Iterable[str] | None = None, components: Iterable[str] | None = None,
                exclude_kinds: Iterable[str] = ("Lease",), limit: int | None = 40,
                caption: str | None = None) -> Html:
    """API writes in commit order (``simulate -o events``): time, component, verb, object, resourceVersion, detail.

    Parameters
    ----------
    source : Cluster or iterable of AuditEntry
    since, until : float, optional
        Virtual-time window (inclusive).
    kinds, components : iterable of str, optional
        Keep only these.
    exclude_kinds : iterable of str
        Leave these out (the kubelets' Lease renewals by default).
    limit : int, optional
        The first ``limit`` rows of the window.
    caption : str, optional

    Returns
    -------
    Html
        One row per write of :func:`~kubenotes.sim.timelines.audit_entries`: time (s), component, verb,
        ``Kind/namespace/name``, resourceVersion, detail.

    Raises
    ------
    AttributeError
        For an entry without the :class:`~kubenotes.apiserver.server.AuditEntry` fields.

    Examples
    --------
    >>> from kubenotes.apiserver.server import AuditEntry
    >>> log = [AuditEntry(1.0, "kubectl", "patch", "ReplicaSet", "d", "web", "7", "replicas 4->6"),
    ...        AuditEntry(1.0, "kubelet/n1", "update", "Lease", "kube-node-lease", "n1", "8")]
    >>> t = audit_table(log); "replicas 4-&gt;6" in t, "Lease" in t
    (True, False)
    """
    return _table(("time (s)", "component", "verb", "object", "resourceVersion", "detail"), [
        (_fmt_t(e.time), e.component, e.verb, f"{e.kind}/{e.namespace + '/' if e.namespace else ''}{e.name}",
         e.resource_version, e.detail)
        for e in audit_entries(source, since=since, until=until, kinds=kinds, components=components,
                               exclude_kinds=exclude_kinds, limit=limit)], caption)


def node_timeline_table(rows: Sequence[Mapping[str, Any]], caption: str | None = None) -> Html:
    """:func:`~kubenotes.sim.timelines.node_timeline` as an HTML table (Unknown rows orange, False red).

    Parameters
    ----------
    rows : sequence of dict
        From :func:`~kubenotes.sim.timelines.node_timeline`.
    caption : str, optional

    Returns
    -------
    Html
        Columns time (s), Ready, reason, message, taints (``—`` for none), written by.

    Raises
    ------
    KeyError
        For a row without ``time``, ``ready``, ``reason``, ``message`` or ``taints``.

    Examples
    --------
    >>> "Unknown" in node_timeline_table([{"time": 70, "ready": "Unknown", "reason": "NodeStatusUnknown",
    ...     "message": "Kubelet stopped posting node status.", "taints": [], "component": "node-lifecycle-controller"}])
    True
    """
    return _table(("time (s)", "Ready", "reason", "message", "taints", "written by"), [
        (_fmt_t(r["time"]), r["ready"], r["reason"], r["message"], ", ".join(r["taints"]) or "—",
         r.get("component", "")) for r in rows], caption,
        [{"Unknown": "background:#fff3e0", "False": "background:#ffebee"}.get(r["ready"], "") for r in rows])


def job_attempts_table(rows: Sequence[Mapping[str, Any]], caption: str | None = None) -> Html:
    """:func:`~kubenotes.sim.timelines.job_attempts` as an HTML table (failed attempts red).

    Parameters
    ----------
    rows : sequence of dict
        From :func:`~kubenotes.sim.timelines.job_attempts`.
    caption : str, optional

    Returns
    -------
    Html
        One row per pod: created, running, finished (s), phase, exit code, wait after the previous failure (s).

    Raises
    ------
    KeyError
        For a row without one of :func:`~kubenotes.sim.timelines.job_attempts`'s keys.

    Examples
    --------
    >>> "Failed" in job_attempts_table([{"pod": "j-1", "created": 0, "running": 2, "finished": 5, "phase": "Failed",
    ...                                  "exit_code": 1, "wait_before": None}])
    True
    """
    return _table(("pod", "created (s)", "running (s)", "finished (s)", "phase", "exit code",
                   "wait after previous failure (s)"), [
        (r["pod"], _fmt_t(r["created"]), _fmt_t(r["running"]), _fmt_t(r["finished"]), r["phase"],
         "" if r["exit_code"] is None else r["exit_code"], _fmt_t(r["wait_before"])) for r in rows],
        caption, ["color:#c62828" if r["phase"] == "Failed" else "" for r in rows])


# --------------------------------------------------------------------------- kubectl rolling-update of RCs
def rolling_update_figure(run: RollingUpdateRun, rollout: ScenarioRun | None = None) -> Figure:
    """``kubectl rolling-update`` of RCs (left) beside a Deployment's rollout (right), ready pods over time.

    Parameters
    ----------
    run : RollingUpdateRun
        From :func:`kubenotes.sim.scenarios.simulate_rc_rolling_update` (RCs ``web-v1`` -> ``web-v2`` in ``default``).
    rollout : ScenarioRun, optional
        From :func:`kubenotes.sim.scenarios.simulate_rollout`, drawn on a second Axes as :func:`rollout_figure` does.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes (6 inches wide), or two (9.6 inches) with ``rollout``.

    Raises
    ------
    ApiError
        As :func:`kubenotes.sim.history.object_history`, when the run's history no longer reaches its start.

    Notes
    -----
    ``kubectl rolling-update`` was removed from kubectl in v1.18; the model
    keeps it to contrast a client-side loop with the Deployment controller.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from kubenotes.sim.scenarios import simulate_rc_rolling_update
    >>> fig = rolling_update_figure(simulate_rc_rolling_update(2, 5.0))
    >>> len(fig.axes), fig.axes[0].get_ylabel()
    (1, 'ready pods')
    >>> plt.close(fig)
    """
    fig = detached_figure(9.6 if rollout is not None else 6.0, 3.4)  # within a ~1,000 px notebook column at 100 dpi
    ax = fig.add_subplot(1, 2 if rollout is not None else 1, 1)
    sizes = rc_sizes(run.cluster, "default", ["web-v1", "web-v2"])
    end = run.cluster.now
    total = sorted({t: sum(series_value_at(s, t) for s in sizes.values()) for series in sizes.values()
                    for t, _ in series}.items())
    _step_lines(ax, end, [(series, {"color": colour, "lw": 1.8, "label": f"RC {name} ready"})
                          for (name, series), colour in zip(sizes.items(), (_OLD_COLOURS[0], _NEW_COLOUR))]
                + [(total, {"color": "#424242", "lw": 3, "alpha": 0.4, "label": "ready pods, both RCs"})])
    ax.set_xlim(max(0.0, run.at_seconds - 5), min(end, max((t for t, _ in total), default=end) + 20.0))
    ax.set_ylim(-0.3, max([y for _, y in total] or [1]) + 0.8)
    _time_axes(ax, "ready pods", {"loc": "center right"}, title="kubectl rolling-update (client-side, one pod a step)")
    if rollout is not None:
        ax2 = fig.add_subplot(1, 2, 2)
        _plot_rollout(rollout_timeline(rollout.cluster, rollout.namespace, rollout.name), ax2,
                      title="Deployment (server-side, maxSurge/maxUnavailable)")
        ax2.legend().remove()
        ax2.set_xlim(max(0.0, rollout.at_seconds - 5), rollout.end_seconds)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- widgets
def _scale_view(replicas: int, start_replicas: int = 4) -> list[Any]:
    """What :func:`scale_panel` shows for one position: the ownership diff graph and the Events of the scale."""
    run = simulate_scale(replicas, start_replicas)
    if run.error:
        return [Html(f"<pre>{_e(run.error)}</pre>")]
    st = (run.cluster.get("replicasets", "web", "default") or {}).get("status") or {}
    title = (f"kubectl scale rs web --replicas={replicas} at t={run.at_seconds:g}s: spec.replicas "
             f"{start_replicas} → {replicas}\nstatus.replicas={st.get('replicas', 0)}, "
             f"readyReplicas={st.get('readyReplicas', 0)} at t={run.end_seconds:g}s")
    diff = graph_diff(ownership_graph(run.cluster, run.namespace, at_seconds=run.at_seconds - 0.001),
                      ownership_graph(run.cluster, run.namespace))
    return [ownership_figure(diff, title=title),
            events_table(run.cluster, run.namespace, reasons=("SuccessfulCreate", "SuccessfulDelete"), limit=12,
                         caption="Events written by replicaset-controller")]


def scale_panel(replicas: int = 4) -> Any:
    """The chapter's ReplicaSet widget: a ``spec.replicas`` slider -> ownership diff graph and Events.

    Parameters
    ----------
    replicas : int
        The slider's start; the scale goes from 4 replicas to it.

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`; one slider ``replicas``
        (0 to 9). Each position runs :func:`~kubenotes.sim.scenarios.simulate_scale` (memoised).

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control (a str for an int slider...).

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = scale_panel(4)
    >>> [c.description for c in p.children[0].children]
    ['spec.replicas (kubectl scale)']
    """
    return _panel(_scale_view, {"replicas": ("spec.replicas (kubectl scale)", replicas, 0, 9)})


def _rollout_view(max_surge: int, max_unavailable: int, replicas: int = 4, *,
                  figure: Figure | None = None) -> list[Any]:
    """What :func:`rollout_panel` shows: the timeline, drawn into ``figure`` (or a new one), or the API's refusal."""
    run = simulate_rollout(max_surge, max_unavailable, replicas)
    if run.error:
        return [Html(f"<p style='color:#c62828'><b>The API server refused the Deployment:</b></p>"
                     f"<pre style='white-space:pre-wrap'>{_e(run.error)}</pre>")]
    t = rollout_timeline(run.cluster, run.namespace, run.name)
    peak = series_extremes(t["pods"], since=run.at_seconds)[1]
    low = series_extremes(t["available"], since=run.at_seconds)[0]
    done = rollout_done_at(t, run.at_seconds)
    end = max(t.end_seconds, done or 0.0)  # a count still held after the rollout is not a 0 s one

    def instant(series: Sequence[tuple[float, int]], value: int) -> str:
        held, at = series_held_seconds(series, value, run.at_seconds, end)
        return f" (for 0 s, at t={at:g}s)" if held == 0 else ""

    title = (f"maxSurge={max_surge}, maxUnavailable={max_unavailable}, replicas={replicas}: "
             f"at most {peak} pods{instant(t['pods'], peak)}, at least {low} available{instant(t['available'], low)}, "
             f"done at t={done:g}s" if done is not None else
             f"maxSurge={max_surge}, maxUnavailable={max_unavailable}: not finished by t={t.end_seconds:g}s")
    figure = figure if figure is not None else _rollout_axes()
    _plot_rollout(t, figure.axes[0], title=title, start_seconds=run.at_seconds - 5)
    return [figure]


def rollout_panel(max_surge: int = 1, max_unavailable: int = 1, replicas: int = 4) -> Any:
    """The chapter's rollout widget: ``maxSurge``, ``maxUnavailable`` and ``replicas`` sliders -> the rollout timeline.

    Parameters
    ----------
    max_surge, max_unavailable : int
        The sliders' starts (0 to 6), the Deployment's ``rollingUpdate`` fields.
    replicas : int
        The replicas slider's start (1 to 8).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`; sliders ``max_surge``
        (first), ``max_unavailable`` and ``replicas``. Each position runs
        :func:`~kubenotes.sim.scenarios.simulate_rollout` (memoised) and is
        drawn into one kept figure, as :func:`rollout_figure` draws.

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control (a str for an int slider...).

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = rollout_panel()
    >>> [c.description for c in p.children[0].children] + [c.description for c in p.children[1].children]
    ['maxSurge', 'maxUnavailable', 'replicas']
    """
    return _panel(_rollout_view, {"max_surge": ("maxSurge", max_surge, 0, 6),
                                  "max_unavailable": ("maxUnavailable", max_unavailable, 0, 6),
                                  "replicas": ("replicas", replicas, 1, 8)}, _rollout_axes())


def _node_failure_figure() -> Figure:
    """The node-failure panel's figure: 10 x 3.4 inches, one Axes (the legend right of it)."""
    return _axes_figure(10.0, 3.4, (0.07, 0.16, 0.62, 0.74))


def _node_failure_view(toleration_seconds: int, node_monitor_grace_period_seconds: int = 50, *,
                       figure: Figure | None = None) -> list[Any]:
    """What :func:`node_failure_panel` shows: pods per node over time with the milestones, and the node's timeline."""
    run = simulate_node_failure(toleration_seconds, node_monitor_grace_period_seconds)
    rows = node_timeline(run.cluster, run.name)
    fig = figure if figure is not None else _node_failure_figure()
    ax = fig.axes[0]
    _clear_plotted(ax)
    series = pods_per_node_timeline(run.cluster, "default")
    _step_lines(ax, run.end_seconds, [([(x, y + 0.05 * (i - (len(series) - 1) / 2)) for x, y in s],  # equal lines
                                       {"lw": 2, "color": _LINE_COLOURS[i % 5], "label": node})  # side by side
                                      for i, (node, s) in enumerate(series.items())])
    _time_marks(ax, node_failure_milestones(run, rows), rows=99, step=16.3)  # 0.09 of the Axes' height a label
    ax.set_xlim(0, run.end_seconds)
    ax.set_ylim(-0.2, max([y for s in series.values() for _, y in s] + [1]) + 1.5)
    _time_axes(ax, "pods on the node", y=1.0,
               title=f"{run.name} stops at t={run.at_seconds:g}s; tolerationSeconds={toleration_seconds}, "
                     f"node-monitor-grace-period={node_monitor_grace_period_seconds}s")
    return [fig, node_timeline_table(rows, caption=f"Node {run.name}: Ready condition and taints")]


def node_failure_panel(toleration_seconds: int = 300, node_monitor_grace_period_seconds: int = 50) -> Any:
    """The chapter's node-failure widget: the pods' ``tolerationSeconds`` and ``--node-monitor-grace-period``.

    Parameters
    ----------
    toleration_seconds : int
        The pods' ``tolerationSeconds`` for ``node.kubernetes.io/unreachable`` (slider start).
    node_monitor_grace_period_seconds : int
        kube-controller-manager's ``--node-monitor-grace-period`` (slider start).

    Returns
    -------
    ipywidgets.VBox
        Sliders ``toleration_seconds`` (0 to 600 s, step 60) and
        ``node_monitor_grace_period_seconds`` (20 to 120 s, step 10); below,
        the pods per node over time with the milestones, and the node's Ready
        condition and taints.

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control (a str for an int slider...).

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = node_failure_panel(0, 20)
    >>> [c.description for c in p.children[0].children]
    ['tolerationSeconds (unreachable)', 'node-monitor-grace-period (s)']
    """
    return _panel(_node_failure_view, {
        "toleration_seconds": ("tolerationSeconds (unreachable)", toleration_seconds, 0, 600, 60),
        "node_monitor_grace_period_seconds": ("node-monitor-grace-period (s)", node_monitor_grace_period_seconds,
                                              20, 120, 10)}, _node_failure_figure())


def _cascade_view(propagation_policy: str, writes: int) -> list[Any]:
    """What :func:`cascade_panel` shows: the ownership graph after the first ``writes`` writes of the cascade.

    ``writes = 0`` is the state just before the delete; the graph keeps the
    layout of that state and marks what is gone (red, dashed) or terminating (orange).
    """
    run = simulate_cascade(propagation_policy)
    log = cascade_writes(run)
    if not log:
        return [Html(f"<pre>{_e(run.error or 'no writes after the delete')}</pre>")]
    k = max(0, min(int(writes), len(log)))
    first_rv = int(log[0].resource_version) - 1
    before = ownership_graph(run.cluster, run.namespace, at_resource_version=first_rv)
    now = ownership_graph(run.cluster, run.namespace,
                          at_resource_version=int(log[k - 1].resource_version) if k else first_rv)
    last = log[k - 1] if k else None
    what = (f"write {k}/{len(log)} at t={last.time:g}s: {last.component} {last.verb} {last.kind} {last.name}"
            + (f" ({last.detail})" if last.detail else "") if last else "before the delete")
    fig = ownership_figure(graph_diff(before, now), pos=_ownership_layout(before),
                           title=f"kubectl delete deployment web --cascade={propagation_policy.lower()}\n{what}")
    if not k:
        return [fig, Html(f"<p>Move the slider: the cascade takes {len(log)} writes.</p>")]
    return [fig, _table(("time (s)", "component", "verb", "object", "detail"),
                        [(_fmt_t(e.time), e.component, e.verb, f"{e.kind}/{e.name}", e.detail) for e in log[:k]],
                        f"The first {k} of {len(log)} writes of the cascade")]


def cascade_panel(propagation_policy: str = "Background", writes: int = 0) -> Any:
    """The chapter's garbage-collector widget: the propagationPolicy and a slider over the cascade's writes.

    Parameters
    ----------
    propagation_policy : str
        ``Background``, ``Foreground`` or ``Orphan`` (the dropdown's start).
    writes : int
        The slider's start: how many of the cascade's writes to apply (0: just before the delete).

    Returns
    -------
    ipywidgets.VBox
        A dropdown ``propagation_policy`` and a slider ``writes`` (0 to 12);
        below, the ownership graph after that many writes (in the layout of
        the state before the delete) and the writes so far. Each policy runs
        :func:`~kubenotes.sim.scenarios.simulate_cascade` once (memoised).

    Raises
    ------
    traitlets.TraitError
        For a ``propagation_policy`` not among the dropdown's options, or a non-int ``writes``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/garbagecollector.go

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = cascade_panel("Background")
    >>> [c.description for c in p.children[0].children]
    ['propagationPolicy', 'API writes since the delete']
    """
    return _panel(_cascade_view, {
        "propagation_policy": ("propagationPolicy", propagation_policy, ("Background", "Foreground", "Orphan")),
        "writes": ("API writes since the delete", writes, 0, 12)})
