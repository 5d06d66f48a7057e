"""Timelines, ownership graphs and tables of the controllers chapter, read from a running cluster's history.

Nothing here reconciles anything: the numbers come from the controllers of
:mod:`kubenotes.controllers` running in a :class:`~kubenotes.sim.cluster.Cluster`.
This module reads what they wrote, the way ``kubectl get -w`` and
``kubectl get events`` show it:

* the **history** of a kind (:func:`kubenotes.sim.history.object_history`) is
  the API server's watch cache replayed from resourceVersion 1 (every committed
  revision of every object), timed by the audit log (:attr:`Cluster.audit_log`,
  one entry per committed write with its virtual time and resourceVersion);
* a **rollout timeline** follows a Deployment's ReplicaSets (``spec.replicas``,
  ``status.readyReplicas``, ``status.availableReplicas``) and its pods over
  virtual time, with the ``maxSurge`` / ``maxUnavailable`` fences resolved as the
  deployment controller resolves them;
* the **ownership graph** (:func:`kubenotes.sim.ownership.ownership_graph`)
  links objects by ``metadata.ownerReferences`` (by uid), Deployment →
  ReplicaSet → Pod, and a before/after diff
  (:func:`kubenotes.sim.ownership.graph_diff`) shows the garbage collector's
  cascade; here it is laid out as a tree and drawn;
* the reconcile loop (:func:`kubenotes.client.components.reconcile_loop_graph`)
  is drawn with a fixed layout;
* small HTML tables list Kubernetes Events, audit entries, a node's conditions
  and taints over time, and a Job's attempts.

The chapter's small scenarios (three nodes, four to six replicas) are data,
``data/controllers/*.yaml``; :mod:`kubenotes.sim.scenarios` runs them with a
widget's parameters (memoised, so a widget re-renders a slider position it
has seen at once) and the views here draw the runs.

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
from kubenotes.sim.scenarios import (
    RollingUpdateRun,
    ScenarioRun,
    simulate_cascade,
    simulate_node_failure,
    simulate_rollout,
    simulate_scale,
)
from kubenotes.sim.timelines import (
    RolloutTimeline,
    audit_entries,
    cascade_writes,
    events_by_time,
    node_failure_milestones,
    node_timeline,
    pods_per_node_timeline,
    rc_sizes,
    rollout_done_at,
    rollout_timeline,
    series_extremes,
    series_held_seconds,
    series_value_at,
)
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import Html, table
from kubenotes.viz.html import escape as _e

__all__ = [
    "plot_rollout_timeline",
    "rollout_figure",
    "rolling_update_figure",
    "ownership_layout",
    "draw_ownership_graph",
    "ownership_figure",
    "reconcile_loop_figure",
    "events_table",
    "audit_table",
    "node_timeline_table",
    "plot_pods_per_node",
    "job_attempts_table",
    "scale_view",
    "scale_panel",
    "rollout_view",
    "rollout_panel",
    "node_failure_view",
    "node_failure_panel",
    "cascade_view",
    "cascade_panel",
]


# ---------------------------------------------------------------------------
# rollout timeline




def _clear_plotted(ax: Axes) -> None:
    """Empty ``ax`` for the next plot of the same kind, as ``ax.clear()`` but keeping its axes' tick objects.

    A cleared Axes builds its ticks (each a line, a marker and a label) again
    at the next draw; here the plotted artists, the legend and the title go
    and the data limits are forgotten, and the ticks stay. The plot functions
    calling it set both limits, the labels, the grid and the locator every time.
    """
    for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.texts, *ax.images]:
        artist.remove()
    if ax.legend_ is not None:
        ax.legend_.remove()
    ax.set_title("")
    ax.dataLim.set_points(Bbox.null().get_points())
    ax.ignore_existing_data_limits = True


def _steps(series: Sequence[tuple[float, int]], end: float, *, keep_instants: bool = False) -> tuple[list[float], list[int]]:
    """x, y for ``ax.step(where="post")`` with the last value held until ``end``.

    Same-time points keep the last, unless ``keep_instants``: then every one is kept, and the step line
    draws a value held for zero seconds as a vertical spike (4 -> 8 -> 7 at one instant reaches 8).
    """
    xs: list[float] = []
    ys: list[int] = []
    for x, y in series:
        if xs and xs[-1] == x and not keep_instants:
            ys[-1] = y
        else:
            xs.append(x)
            ys.append(y)
    if xs and end > xs[-1]:
        xs.append(end)
        ys.append(ys[-1])
    return xs, ys


_OLD_COLOURS = ("#1565c0", "#42a5f5", "#90caf9", "#5c6bc0")
_NEW_COLOUR = "#e65100"


def plot_rollout_timeline(timeline: RolloutTimeline, ax: Axes, *, start_seconds: float | None = None,
                          title: str | None = None) -> Axes:
    """Draw a rollout: one step line per ReplicaSet, the pods/available band and the surge/availability fences.

    Parameters
    ----------
    timeline : RolloutTimeline
        From :func:`~kubenotes.sim.timelines.rollout_timeline`.
    ax : matplotlib.axes.Axes
        Cleared first.
    start_seconds : float, optional
        Left edge of the x axis (default: a few seconds before the first change, or 0).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    rollout_timeline, rollout_figure

    Notes
    -----
    The band between ``pods`` (not terminating) and ``available`` is the pods
    that run but do not count as available yet. The dashed lines are
    ``replicas + maxSurge`` (the most pods a rollout may run) and
    ``replicas - maxUnavailable`` (the fewest available pods it may leave).

    Examples
    --------
    >>> t = RolloutTimeline("d/web"); t.update({"pods": [(0, 2)], "available": [(0, 1)],
    ...     "surge_bound": [(0, 3)], "min_available": [(0, 1)], "rs:a": [(0, 2)]}); t.replica_sets = ["a"]
    >>> t.end_seconds = 10
    >>> ax = Figure().add_subplot()
    >>> len(plot_rollout_timeline(t, ax).get_lines()) >= 4
    True
    """
    _clear_plotted(ax)
    end = max(timeline.end_seconds, max((x for s in timeline.values() for x, _ in s), default=0.0))
    if start_seconds is None:
        start_seconds = max(0.0, timeline.changes[0][0] - 5.0) if timeline.changes else 0.0
    pods_x, pods_y = _steps(timeline.get("pods", []), end)
    av_x, av_y = _steps(timeline.get("available", []), end)
    # the pods and available lines keep every state, also one held 0 s (a spike), as the panel's title counts them
    for key, colour, label in (("pods", "#424242", "pods (not terminating)"), ("available", "#2e7d32", "available")):
        xs, ys = _steps(timeline.get(key, []), end, keep_instants=True)
        if xs:
            ax.step(xs, ys, where="post", color=colour, lw=3.2, alpha=0.6, label=label, zorder=2)
    pods = timeline.get("pods", [])
    if pods:
        peak = series_extremes(pods, since=start_seconds)[1]
        held, at = series_held_seconds(pods, peak, start_seconds, end)
        if held == 0:
            ax.plot([at], [peak], marker="v", ms=7, color="#424242", ls="none", zorder=5)
            ax.annotate(f"{peak} pods for 0 s", (at, peak), xytext=(7, -13), textcoords="offset points", fontsize=8,
                        color="#424242")
    if pods_x and av_x:
        grid = sorted(set(pods_x) | set(av_x))
        top = [series_value_at(list(zip(pods_x, pods_y)), x) for x in grid]
        bottom = [series_value_at(list(zip(av_x, av_y)), x) for x in grid]
        ax.fill_between(grid, bottom, top, step="post", color="#ffcc80", alpha=0.55, lw=0,
                        label="running, not yet available", zorder=1)
    new = timeline.new_replica_set
    olds = [n for n in timeline.replica_sets if n != new]
    for i, name in enumerate(olds + ([new] if new else [])):
        xs, ys = _steps(timeline.get(f"rs:{name}", []), end)
        if not xs:
            continue
        is_new = name == new and len(timeline.replica_sets) > 1
        rev = timeline.revisions.get(name)
        label = f"{'new' if is_new else 'old'} RS {name}" + (f" (rev {rev})" if rev else "")
        ax.step(xs, ys, where="post", lw=1.6, color=_NEW_COLOUR if is_new else _OLD_COLOURS[i % len(_OLD_COLOURS)],
                label=label, zorder=4)
    for key, colour, label in (("surge_bound", "#c62828", "replicas + maxSurge"),
                               ("min_available", "#6a1b9a", "replicas − maxUnavailable")):
        xs, ys = _steps(timeline.get(key, []), end)
        if xs:
            ax.step(xs, ys, where="post", color=colour, lw=1.3, ls="--", label=label, zorder=3)
    for t, what in timeline.changes:
        if t >= start_seconds:
            ax.axvline(t, color="#757575", lw=0.8, ls=":")
            ax.annotate(what, (t, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -12),
                        textcoords="offset points", fontsize=8, color="#424242")
    top = max([y for s in timeline.values() for _, y in s] + [1])
    ax.set_ylim(-0.3, top + 1.2)
    settled = max([x for k, s in timeline.items() if k not in ("surge_bound", "min_available", "replicas")
                   for x, _ in s] + [start_seconds])
    ax.set_xlim(start_seconds, min(end, max(settled + 20.0, start_seconds + 30.0)) if end > start_seconds
                else start_seconds + 1)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("virtual time (s)")
    ax.set_ylabel("pods / RS spec.replicas")
    ax.grid(alpha=0.25)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10, y=1.0)  # where the automatic position puts it (no top ticks), unmeasured
    return ax


def rollout_figure(timeline: RolloutTimeline, *, title: str | None = None,
                   start_seconds: float | None = None) -> Figure:
    """A new Figure with :func:`plot_rollout_timeline` (a notebook cell shows it by ending with it).

    Parameters
    ----------
    timeline : RolloutTimeline
        From :func:`~kubenotes.sim.timelines.rollout_timeline`.
    title : str, optional
        The Axes title.
    start_seconds : float, optional
        Left edge of the time axis, as :func:`plot_rollout_timeline`.

    Returns
    -------
    matplotlib.figure.Figure
        10 x 3.8 inches with one Axes (the legend right of it), not attached to pyplot.

    Raises
    ------
    AttributeError
        For a plain dict instead of a :class:`~kubenotes.sim.timelines.RolloutTimeline` (no ``end_seconds``).

    Examples
    --------
    >>> t = RolloutTimeline("d/web"); t.update({"pods": [(0, 1)]}); t.end_seconds = 5
    >>> import matplotlib.pyplot as plt
    >>> fig = rollout_figure(t, title="web"); len(fig.axes), fig.axes[0].get_title()
    (1, 'web')
    >>> plt.close(fig)
    """
    fig = _rollout_axes()
    plot_rollout_timeline(timeline, fig.axes[0], title=title, start_seconds=start_seconds)
    return fig


def _rollout_axes() -> Figure:
    """:func:`rollout_figure`'s empty figure: 10 x 3.8 inches, one Axes with room for the legend on the right."""
    fig = detached_figure(10.0, 3.8)
    fig.add_axes((0.07, 0.14, 0.62, 0.76))
    return fig


# ---------------------------------------------------------------------------
# ownership graph and the garbage collector's cascade

def ownership_layout(g: nx.DiGraph, *, x_gap: float = 1.0, y_gap: float = 1.0) -> dict[Any, tuple[float, float]]:
    """Fixed tree positions: roots on top, each parent centred over its children, leaves evenly spaced.

    A dependent with several owners sits under its first (controller) owner.

    Returns
    -------
    dict
        Graph node -> ``(x, y)``; depth d is at ``y = -d * y_gap``.

    Examples
    --------
    >>> g = nx.DiGraph([("d", "r"), ("r", "p1"), ("r", "p2")])
    >>> ownership_layout(g)
    {'p1': (0.0, -2.0), 'p2': (1.0, -2.0), 'r': (0.5, -1.0), 'd': (0.5, 0.0)}
    """
    parent: dict[Any, Any] = {}
    for v in g:
        preds = list(g.predecessors(v))
        if preds:
            ctrl = [p for p in preds if g.edges[p, v].get("controller")]
            parent[v] = (ctrl or preds)[0]
    children: dict[Any, list] = {v: [] for v in g}
    for v, p in parent.items():
        children[p].append(v)
    pos: dict[Any, tuple[float, float]] = {}
    next_x = [0.0]

    def place(v: Any, depth: int, seen: frozenset) -> float:
        kids = [k for k in children[v] if k not in seen]
        if not kids:
            x = next_x[0]
            next_x[0] += x_gap
        else:
            xs = [place(k, depth + 1, seen | {v}) for k in kids]
            x = (min(xs) + max(xs)) / 2
        pos[v] = (x, -depth * y_gap)
        return x

    for v in g:
        if v not in parent:
            place(v, 0, frozenset())
            next_x[0] += x_gap * 0.5
    for v in g:  # cycles (not valid in Kubernetes, but do not lose nodes)
        if v not in pos:
            place(v, 0, frozenset())
    return pos


_KIND_FC = {"Deployment": "#e8eaf6", "ReplicaSet": "#e3f2fd", "Pod": "#ffffff", "Job": "#e3f2fd",
            "CronJob": "#e8eaf6", "ReplicationController": "#e3f2fd"}


def _node_label(d: Mapping[str, Any]) -> str:
    name = d.get("name", "")
    lines = [d.get("kind", ""), name if len(name) <= 22 else name[:11] + "…" + name[-10:]]
    extra = []
    if d.get("kind") == "Pod":
        if d.get("node"):
            extra.append(d["node"])
        if d.get("phase") and d.get("phase") != "Running":
            extra.append(d["phase"])
    elif d.get("replicas") is not None:
        extra.append(f"replicas {d['replicas']}")
    if d.get("terminating"):
        extra.append("Terminating")
    if d.get("finalizers"):
        extra.append("finalizer " + ",".join(d["finalizers"]))
    if d.get("missing"):
        extra.append("(not found)")
    if d.get("change") == "deleted":
        extra.append("deleted")
    return "\n".join(lines + ([" · ".join(extra)] if extra else []))


def draw_ownership_graph(g: nx.DiGraph, ax: Axes, *, title: str | None = None,
                         pos: Mapping[Any, tuple[float, float]] | None = None) -> Axes:
    """Draw an ownership graph (or a :func:`~kubenotes.sim.ownership.graph_diff`) with a fixed tree layout.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.sim.ownership.ownership_graph` or :func:`~kubenotes.sim.ownership.graph_diff`.
    ax : matplotlib.axes.Axes
        Cleared first.
    title : str, optional
    pos : mapping, optional
        Positions (default :func:`ownership_layout`); pass one layout to draw
        several states of a cascade at the same places.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Deleted objects are red and dashed, created ones green, terminating ones
    (``deletionTimestamp`` set, held by a finalizer or a grace period) orange;
    an edge is an ownerReference (solid when ``controller: true``), dashed grey
    when it was removed (the dependent was orphaned).

    Examples
    --------
    >>> g = nx.DiGraph(); g.add_node("d", kind="Deployment", name="web"); g.add_node("r", kind="ReplicaSet", name="web-5d")
    >>> g.add_edge("d", "r", controller=True)
    >>> ax = Figure().add_subplot()
    >>> draw_ownership_graph(g, ax, title="t") is ax
    True
    """
    ax.clear()
    pos = dict(pos) if pos is not None else ownership_layout(g)
    boxes = {}
    for v, d in g.nodes(data=True):
        if v not in pos:
            continue
        ch = d.get("change", "")
        fc, ec, lw, ls = _KIND_FC.get(d.get("kind", ""), "#ffffff"), "#616161", 1.0, "-"
        if d.get("terminating"):
            fc, ec, lw = "#fff3e0", "#ef6c00", 1.8
        if ch == "created":
            fc, ec, lw = "#e8f5e9", "#2e7d32", 1.8
        if ch == "deleted" or d.get("missing"):
            fc, ec, lw, ls = "#ffebee", "#c62828", 1.5, "--"
        boxes[v] = ax.text(*pos[v], _node_label(d), ha="center", va="center", fontsize=7.2, zorder=3,
                           color="#9e9e9e" if ch == "deleted" else "#212121",
                           bbox=dict(boxstyle="round,pad=0.3", fc=fc, ec=ec, lw=lw, ls=ls))
    for u, v, d in g.edges(data=True):
        if u not in boxes or v not in boxes:
            continue
        ch = d.get("change", "")
        colour = {"removed": "#9e9e9e", "deleted": "#e57373", "created": "#66bb6a"}.get(ch, "#616161")
        ls = "--" if ch in ("removed", "deleted") or not d.get("controller", True) else "-"
        ax.annotate("", xy=pos[v], xytext=pos[u], zorder=4, arrowprops=dict(  # after the boxes: clipped to them
            arrowstyle="-|>", color=colour, lw=1.1, ls=ls, patchA=boxes[u].get_bbox_patch(),
            patchB=boxes[v].get_bbox_patch(), shrinkA=1, shrinkB=1))
    xs = [x for x, _ in pos.values()] or [0.0]
    ys = [y for _, y in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.5)
    ax.axis("off")
    handles = [Patch(fc="#ffffff", ec="#616161", label="object (arrow: ownerReference owner → dependent)"),
               Patch(fc="#fff3e0", ec="#ef6c00", lw=1.8, label="terminating (deletionTimestamp set)")]
    changes = {d.get("change") for _, d in g.nodes(data=True)}
    if "deleted" in changes or any(d.get("missing") for _, d in g.nodes(data=True)):
        handles.append(Patch(fc="#ffebee", ec="#c62828", ls="--", label="deleted / owner not found"))
    if "created" in changes:
        handles.append(Patch(fc="#e8f5e9", ec="#2e7d32", lw=1.8, label="created"))
    if any(d.get("change") == "removed" for *_, d in g.edges(data=True)):
        handles.append(Patch(fc="#ffffff", ec="#9e9e9e", ls="--", label="ownerReference removed (orphaned)"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(2, len(handles)),
              fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def ownership_figure(g: nx.DiGraph, *, title: str | None = None,
                     pos: Mapping[Any, tuple[float, float]] | None = None) -> Figure:
    """A new Figure sized to the graph, with :func:`draw_ownership_graph` on its one Axes.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.sim.ownership.ownership_graph` or :func:`~kubenotes.sim.ownership.graph_diff`.
    title : str, optional
        May span lines; the figure grows by one line's height for each.
    pos : mapping of node to (x, y), optional
        Node positions; default :func:`ownership_layout` of ``g`` (pass the
        layout of an earlier state to keep nodes in place).

    Returns
    -------
    matplotlib.figure.Figure
        9 to 9.8 inches wide (at most 1,000 px inline), one Axes, not attached to pyplot.

    Raises
    ------
    TypeError
        When a ``pos`` value is not an ``(x, y)`` pair; a graph from
        :func:`~kubenotes.sim.ownership.ownership_graph` gives none of its own.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> g = nx.DiGraph(); g.add_node("p", kind="Pod", name="web-1")
    >>> fig = ownership_figure(g)
    >>> bool(fig.get_size_inches()[0] >= 6), len(fig.axes)
    (True, 1)
    >>> plt.close(fig)
    """
    pos = dict(pos) if pos is not None else ownership_layout(g)
    xs = [x for x, _ in pos.values()] or [0.0]
    ys = [y for _, y in pos.values()] or [0.0]
    # 1.5 inch per leaf, but never wider than a ~1,000 px output column at 100 dpi (graphs.MAX_INLINE_WIDTH_PX):
    # ten pods (a ReplicaSet at 9 replicas and one being deleted) keep about 1 inch each, wider than a pod's box.
    width = min(9.8, max(9.0, 1.5 * (max(xs) - min(xs) + 1.4)))
    title_lines = title.count("\n") + 1 if title else 0
    height = 1.0 * (max(ys) - min(ys) + 1.1) + 0.9 + 0.2 * title_lines
    fig = detached_figure(width, height)
    ax = fig.add_axes((0.01, 0.7 / height, 0.98, 1 - (0.75 + 0.25 * title_lines) / height))
    draw_ownership_graph(g, ax, title=title, pos=pos)
    return fig


# ---------------------------------------------------------------------------
# the reconcile loop

# Fixed positions of the loop's boxes (the nodes of :data:`kubenotes.client.components.RECONCILE_LOOP`).
_LOOP_POS = {"kube-apiserver": (0.0, 1.0), "Reflector": (1.6, 2.0), "DeltaFIFO": (3.4, 2.0),
             "Indexer (cache)": (5.6, 2.0), "event handlers": (3.4, 1.0), "workqueue": (3.4, 0.0),
             "Reconcile (syncHandler)": (5.6, 0.0)}


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
    fig = detached_figure(10.0, 4.2)
    ax = fig.add_axes((0.01, 0.02, 0.98, 0.9))
    pos = {v: _LOOP_POS[v] for v in g}
    colours = {"server": ("#e8eaf6", "#3949ab"), "client-go": ("#e3f2fd", "#1e88e5"), "controller": ("#fff3e0", "#ef6c00")}
    boxes = {}
    for v, d in g.nodes(data=True):
        fc, ec = colours[d["side"]]
        text = v if v != "Reconcile (syncHandler)" else f"Reconcile (syncHandler)\n{g.graph.get('controller', '')}"
        if v == "Reflector":
            text += f"\n{g.graph.get('resource', '')}"
        boxes[v] = ax.text(*pos[v], text, ha="center", va="center", fontsize=8.5, zorder=3,
                           bbox=dict(boxstyle="round,pad=0.4", fc=fc, ec=ec, lw=1.4))
    for a, b, d in g.edges(data=True):
        back = (a, b) == ("Reconcile (syncHandler)", "kube-apiserver")
        ax.annotate("", xy=pos[b], xytext=pos[a], zorder=4, arrowprops=dict(  # after the boxes: clipped to them
            arrowstyle="-|>", color="#616161", lw=1.2, patchA=boxes[a].get_bbox_patch(), patchB=boxes[b].get_bbox_patch(),
            shrinkA=2, shrinkB=2, connectionstyle=f"arc3,rad={-0.25 if back else 0.0}"))
        mx, my = (pos[a][0] + pos[b][0]) / 2, (pos[a][1] + pos[b][1]) / 2
        vertical = pos[a][0] == pos[b][0]
        right = vertical and mx > 5
        if back:
            mx, my = 2.8, -0.5
        ax.text(mx + (0.0 if not vertical else -0.08 if right else 0.08), my + (0 if vertical or back else 0.1),
                d["label"], ha="right" if right else "left" if vertical else "center",
                va="center" if vertical or back else "bottom", fontsize=7.5, color="#424242", zorder=2,
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
    ax.set_xlim(-0.8, 6.6)
    ax.set_ylim(-1.0, 2.4)
    ax.axis("off")
    ax.legend(handles=[Patch(fc=fc, ec=ec, label=lab) for lab, (fc, ec) in
                       (("API server", colours["server"]), ("client-go (shared informer)", colours["client-go"]),
                        ("the controller's own code", colours["controller"]))],
              loc="lower left", fontsize=8, frameon=False)
    ax.set_title("The reconcile loop: a controller reads from its cache and writes through the API", fontsize=10)
    return fig


# ---------------------------------------------------------------------------
# tables


# The chapter's tables: text cells, a style attribute on every row (``row_css`` colours some).
_table = functools.partial(table, tr_style=True)


def _fmt_t(t: float | None) -> str:
    if t is None:
        return ""
    return f"{t:g}"


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
    body, css = [], []
    for t, e in events_by_time(source, namespace, reasons=reasons, kinds=kinds, limit=limit):
        io = e.get("involvedObject") or {}
        body.append((_fmt_t(t), e.get("type", ""), e.get("reason", ""),
                     f"{io.get('kind', '')}/{io.get('name', '')}", e.get("message", ""), e.get("count", 1),
                     (e.get("source") or {}).get("component") or e.get("reportingComponent", "")))
        css.append("color:#c62828" if e.get("type") == "Warning" else "")
    return _table(("last seen (s)", "type", "reason", "object", "message", "count", "from"), body, caption, css)


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
    rows = []
    for e in audit_entries(source, since=since, until=until, kinds=kinds, components=components,
                           exclude_kinds=exclude_kinds, limit=limit):
        obj = f"{e.kind}/{e.namespace + '/' if e.namespace else ''}{e.name}"
        rows.append((_fmt_t(e.time), e.component, e.verb, obj, e.resource_version, e.detail))
    return _table(("time (s)", "component", "verb", "object", "resourceVersion", "detail"), rows, caption)


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
    css = ["background:#fff3e0" if r["ready"] == "Unknown" else "background:#ffebee" if r["ready"] == "False" else ""
           for r in rows]
    body = [(_fmt_t(r["time"]), r["ready"], r["reason"], r["message"], ", ".join(r["taints"]) or "—",
             r.get("component", "")) for r in rows]
    return _table(("time (s)", "Ready", "reason", "message", "taints", "written by"), body, caption, css)


def plot_pods_per_node(series: Mapping[str, Sequence[tuple[float, int]]], ax: Axes, *, end_seconds: float,
                       marks: Sequence[tuple[float, str]] = (), title: str | None = None) -> Axes:
    """Step lines of :func:`~kubenotes.sim.timelines.pods_per_node_timeline`, with labelled vertical marks (heartbeat stopped, taint...).

    Examples
    --------
    >>> ax = Figure().add_subplot()
    >>> len(plot_pods_per_node({"n1": [(0, 2)]}, ax, end_seconds=10, marks=[(5, "down")]).get_lines())
    2
    """
    _clear_plotted(ax)
    colours = ("#1565c0", "#2e7d32", "#6a1b9a", "#00838f", "#ad1457")
    for i, (node, s) in enumerate(series.items()):
        xs, ys = _steps(s, end_seconds)
        off = 0.05 * (i - (len(series) - 1) / 2)  # equal lines stay visible side by side
        ax.step(xs, [y + off for y in ys], where="post", lw=2, color=colours[i % len(colours)], label=node)
    for j, (t, what) in enumerate(marks):
        ax.axvline(t, color="#c62828", lw=0.9, ls="--")
        ax.annotate(what, (t, 1.0 - 0.09 * j), xycoords=("data", "axes fraction"), xytext=(3, -11),
                    textcoords="offset points", fontsize=8, color="#b71c1c")
    ax.set_xlim(0, end_seconds)
    top = max([y for s in series.values() for _, y in s] + [1])
    ax.set_ylim(-0.2, top + 1.5)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("virtual time (s)")
    ax.set_ylabel("pods on the node")
    ax.grid(alpha=0.25)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10, y=1.0)  # where the automatic position puts it (no top ticks), unmeasured
    return ax


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
    css = ["color:#c62828" if r["phase"] == "Failed" else "" for r in rows]
    body = [(r["pod"], _fmt_t(r["created"]), _fmt_t(r["running"]), _fmt_t(r["finished"]), r["phase"],
             "" if r["exit_code"] is None else r["exit_code"],
             "" if r["wait_before"] is None else f"{r['wait_before']:g}") for r in rows]
    return _table(("pod", "created (s)", "running (s)", "finished (s)", "phase", "exit code",
                   "wait after previous failure (s)"), body, caption, css)


# ---------------------------------------------------------------------------
# kubectl rolling-update of ReplicationControllers


def rolling_update_figure(run: RollingUpdateRun, rollout: ScenarioRun | None = None) -> Figure:
    """``kubectl rolling-update`` of RCs (left) beside a Deployment's rollout (right), ready pods over time.

    Parameters
    ----------
    run : RollingUpdateRun
        From :func:`kubenotes.sim.scenarios.simulate_rc_rolling_update` (RCs ``web-v1`` -> ``web-v2`` in ``default``).
    rollout : ScenarioRun, optional
        From :func:`kubenotes.sim.scenarios.simulate_rollout`, drawn on a second Axes with :func:`plot_rollout_timeline`.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes (6 inches wide), or two (11 inches) with ``rollout``.

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
    for (name, series), colour in zip(sizes.items(), (_OLD_COLOURS[0], _NEW_COLOUR)):
        xs, ys = _steps(series, end)
        if xs:
            ax.step(xs, ys, where="post", color=colour, lw=1.8, label=f"RC {name} ready")
    total = {}
    for name, series in sizes.items():
        for t, _ in series:
            total[t] = sum(series_value_at(sizes[n], t) for n in sizes)
    xs, ys = _steps(sorted(total.items()), end)
    if xs:
        ax.step(xs, ys, where="post", color="#424242", lw=3, alpha=0.4, label="ready pods, both RCs")
    last = max((t for series in sizes.values() for t, _ in series), default=end)
    ax.set_xlim(max(0.0, run.at_seconds - 5), min(end, last + 20.0))
    ax.set_ylim(-0.3, max(ys or [1]) + 0.8)
    ax.set_xlabel("virtual time (s)")
    ax.set_ylabel("ready pods")
    ax.set_title("kubectl rolling-update (client-side, one pod a step)", fontsize=10)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(alpha=0.25)
    ax.legend(loc="center right", fontsize=8, frameon=False)
    if rollout is not None:
        ax2 = fig.add_subplot(1, 2, 2)
        t = rollout_timeline(rollout.cluster, rollout.namespace, rollout.name)
        plot_rollout_timeline(t, ax2, title="Deployment (server-side, maxSurge/maxUnavailable)")
        ax2.legend().remove()
        ax2.set_xlim(max(0.0, rollout.at_seconds - 5), rollout.end_seconds)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------
# widgets


def _slider(description: str, value: int, lo: int, hi: int, step: int = 1) -> Any:
    import ipywidgets as widgets

    from kubenotes.viz.widgets import int_slider

    return int_slider(description, value, lo, hi, step, style={"description_width": "235px"},
                      layout=widgets.Layout(width="500px"))


def _panel(update: Any, controls: Mapping[str, Any], columns: int = 2) -> Any:
    from kubenotes.viz.widgets import live_panel as panel
    from kubenotes.viz.widgets import memoise_update

    # Every view here is a deterministic simulation of its control values: a value seen before is shown at once.
    return panel(memoise_update(update), controls, columns=columns)


def _drawn_into(view: Any, figure: Figure) -> Any:
    """``view(**values)`` drawing every position into one kept ``figure``, shown as its PNG.

    ``view`` takes ``figure=`` and clears its Axes before drawing, so the panel
    does not build a Figure and its Axes for each slider position. The figure
    is turned at once into the PNG the inline backend shows (the next position
    redraws it): drawn once and cut to the tight box (:func:`figure_png`), or,
    when artists reach outside the figure (a long title), printed with
    ``bbox_inches="tight"`` as the backend prints it.
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


def scale_view(replicas: int, start_replicas: int = 4) -> list[Any]:
    """What :func:`scale_panel` shows for one slider position: the diff graph and the Events of the scale."""
    run = simulate_scale(replicas, start_replicas)
    before = ownership_graph(run.cluster, run.namespace, at_seconds=run.at_seconds - 0.001)
    after = ownership_graph(run.cluster, run.namespace)
    rs = run.cluster.get("replicasets", "web", "default") or {}
    st = rs.get("status") or {}
    title = (f"kubectl scale rs web --replicas={replicas} at t={run.at_seconds:g}s: spec.replicas "
             f"{start_replicas} → {replicas}\nstatus.replicas={st.get('replicas', 0)}, "
             f"readyReplicas={st.get('readyReplicas', 0)} at t={run.end_seconds:g}s")
    ev = events_table(run.cluster, run.namespace, reasons=("SuccessfulCreate", "SuccessfulDelete"), limit=12,
                      caption="Events written by replicaset-controller")
    if run.error:
        return [Html(f"<pre>{_e(run.error)}</pre>")]
    return [ownership_figure(graph_diff(before, after), title=title), ev]


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
        (0 to 9). Each position runs :func:`simulate_scale` (memoised).

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
    return _panel(scale_view, {"replicas": _slider("spec.replicas (kubectl scale)", replicas, 0, 9)})


def rollout_view(max_surge: int, max_unavailable: int, replicas: int = 4, *,
                 figure: Figure | None = None) -> list[Any]:
    """What :func:`rollout_panel` shows: the timeline figure and a one-line summary (or the API's refusal).

    ``figure``, one :func:`rollout_figure` made before, is drawn again instead
    of a new one (the panel keeps one: the same picture, without building a
    Figure and its Axes for every slider position).
    """
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
    if figure is None:
        return [rollout_figure(t, title=title, start_seconds=run.at_seconds - 5)]
    plot_rollout_timeline(t, figure.axes[0], title=title, start_seconds=run.at_seconds - 5)
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
        :func:`simulate_rollout` (memoised; a new position takes about half a second).

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
    return _panel(_drawn_into(rollout_view, _rollout_axes()), {
        "max_surge": _slider("maxSurge", max_surge, 0, 6),
        "max_unavailable": _slider("maxUnavailable", max_unavailable, 0, 6),
        "replicas": _slider("replicas", replicas, 1, 8)})


def _node_failure_figure() -> Figure:
    """The node-failure panel's figure: 10 x 3.4 inches, one Axes (the legend right of it)."""
    fig = detached_figure(10.0, 3.4)
    fig.add_axes((0.07, 0.16, 0.62, 0.74))
    return fig


def node_failure_view(toleration_seconds: int, node_monitor_grace_period_seconds: int = 50, *,
                      figure: Figure | None = None) -> list[Any]:
    """What :func:`node_failure_panel` shows: pods per node over time with the milestones, and the node's timeline.

    ``figure``, one this function returned before, is drawn again instead of a
    new one (the panel keeps one: the same picture).
    """
    run = simulate_node_failure(toleration_seconds, node_monitor_grace_period_seconds)
    rows = node_timeline(run.cluster, run.name)
    marks = node_failure_milestones(run, rows)
    fig = figure if figure is not None else _node_failure_figure()
    ax = fig.axes[0]
    plot_pods_per_node(pods_per_node_timeline(run.cluster, "default"), ax, end_seconds=run.end_seconds, marks=marks,
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
        ``node_monitor_grace_period_seconds`` (20 to 120 s, step 10).

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
    return _panel(_drawn_into(node_failure_view, _node_failure_figure()), {
        "toleration_seconds": _slider("tolerationSeconds (unreachable)", toleration_seconds, 0, 600, 60),
        "node_monitor_grace_period_seconds": _slider("node-monitor-grace-period (s)",
                                                     node_monitor_grace_period_seconds, 20, 120, 10)})


def cascade_view(propagation_policy: str, writes: int) -> list[Any]:
    """What :func:`cascade_panel` shows: the ownership graph after the first ``writes`` writes of the cascade.

    ``writes = 0`` is the state just before the delete; the graph keeps the
    layout of that state and marks what is gone (red, dashed) or terminating (orange).
    """
    run = simulate_cascade(propagation_policy)
    log = cascade_writes(run)
    if not log:
        return [Html(f"<pre>{_e(run.error or 'no writes after the delete')}</pre>")]
    k = max(0, min(int(writes), len(log)))
    before = ownership_graph(run.cluster, run.namespace, at_resource_version=int(log[0].resource_version) - 1)
    rv = int(log[k - 1].resource_version) if k else int(log[0].resource_version) - 1
    now = ownership_graph(run.cluster, run.namespace, at_resource_version=rv)
    last = log[k - 1] if k else None
    what = (f"write {k}/{len(log)} at t={last.time:g}s: {last.component} {last.verb} {last.kind} {last.name}"
            + (f" ({last.detail})" if last.detail else "") if last else "before the delete")
    fig = ownership_figure(graph_diff(before, now), pos=ownership_layout(before),
                           title=f"kubectl delete deployment web --cascade={propagation_policy.lower()}\n{what}")
    if not k:
        return [fig, Html(f"<p>Move the slider: the cascade takes {len(log)} writes.</p>")]
    rows = [(_fmt_t(e.time), e.component, e.verb, f"{e.kind}/{e.name}", e.detail) for e in log[:k]]
    return [fig, _table(("time (s)", "component", "verb", "object", "detail"), rows,
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
        A dropdown ``propagation_policy`` and a slider ``writes`` (0 to 12;
        see :func:`cascade_view`). Each policy runs :func:`simulate_cascade` once (memoised).

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
    import ipywidgets as widgets

    dd = widgets.Dropdown(options=["Background", "Foreground", "Orphan"], value=propagation_policy,
                          description="propagationPolicy", style={"description_width": "235px"},
                          layout=widgets.Layout(width="500px"))
    return _panel(cascade_view, {"propagation_policy": dd,
                                     "writes": _slider("API writes since the delete", writes, 0, 12)})
