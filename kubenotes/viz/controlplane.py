"""Chapter 02's pictures and tables: the control plane of a running cluster, and List-Watch up close.

Two chapters use this module:

* **Architecture** (02.00): :func:`~kubenotes.sim.trace.component_graph` turns a running
  :class:`~kubenotes.sim.cluster.Cluster` into a networkx graph of its
  components (``kubectl``, kube-apiserver's request path, etcd and the watch
  cache, every controller of kube-controller-manager, kube-scheduler, one
  kubelet per node), and :func:`~kubenotes.sim.trace.apply_hops` follows one ``kubectl apply``
  through it, hop by hop, from the API server's own request traces
  (:meth:`~kubenotes.apiserver.server.APIServer.trace_requests`) and its audit
  log. :func:`draw_component_graph` draws both with a fixed layout;
  :func:`apply_panel` puts a hop slider on top.
* **API server and List-Watch** (02.01): :func:`watch_stream_table`,
  :func:`request_trace_table`, :func:`reflector_log_table` and
  :func:`cache_vs_store` lay out a watch stream, one request's steps, a
  reflector's LIST/WATCH history and an informer's cache beside the store;
  :func:`informer_figure` draws client-go's machinery (Reflector, DeltaFIFO,
  Indexer, Lister, workqueue: :func:`~kubenotes.client.components.informer_graph`);
  :func:`can_i_table` shows ``kubectl auth can-i`` for a grid of verbs and
  resources (:func:`~kubenotes.apiserver.rbac.can_i_matrix` asks the authorizer); :func:`~kubenotes.sim.listwatch.watch_outage` and
  :func:`outage_panel` show when a reflector resumes its watch and when it
  must relist (410 Gone).

Every number shown comes from the running model; this module only lays it out.

Notes
-----
There is no upstream counterpart: the graph is the architecture drawing of
the Kubernetes documentation ("Kubernetes Components"), built from the
components that actually run, and the hops are what ``kubectl apply -v=8``,
the API server's audit log and each component's ``-v=4`` logs would tell
together. Inside kube-apiserver the stages follow the handler chain
(authentication, authorization, mutating admission, validation, validating
admission, storage); watches are served from the watch cache (the cacher),
which is fed by an etcd watch. Left out of the picture: the filters that
decide nothing in this model (API Priority and Fairness, audit,
impersonation), decoding and defaulting between the stages, and the
aggregation layer.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/rbac.go
https://kubernetes.io/docs/concepts/overview/components/
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Mapping
from typing import Any, Iterable, Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch

from kubenotes.api.podutil import pod_ready_condition
from kubenotes.apiserver.rbac import can_i_matrix
from kubenotes.client.components import informer_graph
from kubenotes.sim.listwatch import (DELETED_CACHE_STILL_HAS_IT, IN_SYNC, NOT_YET_IN_CACHE, STALE,
                                    compare_cache_with_store, watch_outage)
from kubenotes.sim.trace import APISERVER_STAGES, ETCD, WATCH_CACHE, verb_text
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import TH_BOTTOM_CSS, Html, table
from kubenotes.viz.html import escape as _e

__all__ = [
    "component_layout",
    "draw_component_graph",
    "component_figure",
    "hops_table",
    "hops_figure",
    "apply_panel",
    "draw_informer_graph",
    "informer_figure",
    "watch_stream_table",
    "request_trace_table",
    "can_i_table",
    "reflector_log_table",
    "cache_vs_store",
    "outage_table",
    "outage_panel",
]


# Colours.
_FC = {"client": "#ffffff", "stage": "#e3f2fd", "store": "#e8f5e9", "cache": "#e3f2fd", "controller": "#fff8e1",
       "scheduler": "#f3e5f5", "kubelet": "#eceff1"}
_EC = {"client": "#424242", "stage": "#1565c0", "store": "#2e7d32", "cache": "#1565c0", "controller": "#f9a825",
       "scheduler": "#6a1b9a", "kubelet": "#546e7a"}
_GROUP_EC = {"kube-apiserver": "#1565c0", "kube-controller-manager": "#f9a825", "kubelet": "#546e7a"}
_EDGE = "#9e9e9e"
_PAST = "#1e88e5"
_NOW = "#d84315"
_GREEN = "#2e7d32"
_RED = "#c62828"
_GREY = "#9e9e9e"


# ---------------------------------------------------------------------------
# small helpers


# The chapter's tables: rows of ``(html, extra_css)`` cells under escaped headers.
_table = functools.partial(table, html_cells=True, th_css=TH_BOTTOM_CSS)


def _seconds(t: float) -> str:
    return f"{t:g}"


# ---------------------------------------------------------------------------
# the component graph


#: Box half-sizes (data units) per node kind.
_HALF = {"client": (0.45, 0.26), "stage": (0.6, 0.26), "store": (0.5, 0.3), "cache": (0.6, 0.26),
         "controller": (0.95, 0.15), "scheduler": (0.75, 0.26), "kubelet": (0.55, 0.15)}
_ROWS_PER_COLUMN = 11
#: Widest natural size of a chapter figure, in inches: at the inline backend's 100 dpi it fits a ~1,000 px
#: output column (JupyterLab at 1440x900 with the file browser open) without being shrunk.
_MAX_WIDTH_INCHES = 9.6


def component_layout(g: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Fixed positions: the request path along the top, the watching components along the bottom.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.sim.trace.component_graph`.

    Returns
    -------
    dict[str, tuple[float, float]]
        Node -> ``(x, y)``. ``kubectl`` and kube-apiserver's stages on
        ``y = 3`` left to right, ``etcd`` at their right end and the watch
        cache under it; controllers in columns of up to 11 at the bottom left,
        then kube-scheduler, then the kubelets (a column of up to 9). No
        randomness: the same graph always gets the same positions. Narrow
        enough for the figure to fit a 1,000 px column at 100 dpi.

    Examples
    --------
    >>> g = nx.DiGraph()
    >>> g.add_node("kubectl", kind="client"); g.add_node("authentication", kind="stage")
    >>> component_layout(g)
    {'kubectl': (-1.45, 3.0), 'authentication': (0.0, 3.0)}
    """
    pos: dict[str, tuple[float, float]] = {}
    kinds = {v: d.get("kind") for v, d in g.nodes(data=True)}
    stage_gap = 1.45
    for v, k in kinds.items():
        if k == "client":
            pos[v] = (-1.45, 3.0)
    stages = [v for v in APISERVER_STAGES if v in kinds]
    for i, v in enumerate(stages):
        pos[v] = (i * stage_gap, 3.0)
    last = (len(stages) - 1) * stage_gap if stages else 0.0
    if ETCD in kinds:
        pos[ETCD] = (last + 1.35, 3.0)
    if WATCH_CACHE in kinds:
        pos[WATCH_CACHE] = (last, 1.9)
    controllers = [v for v, k in kinds.items() if k == "controller"]
    kubelets = [v for v, k in kinds.items() if k == "kubelet"]
    top = 0.95
    row_gap = 0.36
    x = -1.45 + 0.4
    for i, v in enumerate(controllers):
        col, row = divmod(i, _ROWS_PER_COLUMN)
        pos[v] = (x + col * 2.05, top - row * row_gap)
    n_cols = math.ceil(len(controllers) / _ROWS_PER_COLUMN) if controllers else 0
    x = x + max(n_cols - 1, 0) * 2.05 + (1.05 + 0.2 if controllers else 0.0)
    rows = min(len(controllers), _ROWS_PER_COLUMN) or 1
    mid = top - (rows - 1) * row_gap / 2
    for v, k in kinds.items():
        if k == "scheduler":
            x += 0.8
            pos[v] = (x, mid if controllers else top)
            x += 0.8
    x += 0.35
    k_rows = min(len(kubelets), _ROWS_PER_COLUMN - 2) or 1
    for i, v in enumerate(kubelets):
        col, row = divmod(i, k_rows)
        pos[v] = (x + 0.6 + col * 1.3, top - row * row_gap)
    return pos


def _clip(c: tuple[float, float], half: tuple[float, float], towards: tuple[float, float],
          pad: float = 0.04) -> tuple[float, float]:
    """Where the segment from the centre ``c`` towards ``towards`` leaves a box of half-size ``half``."""
    dx, dy = towards[0] - c[0], towards[1] - c[1]
    if dx == 0 and dy == 0:
        return c
    hw, hh = half[0] + pad, half[1] + pad
    t = min(hw / abs(dx) if dx else math.inf, hh / abs(dy) if dy else math.inf)
    return (c[0] + dx * t, c[1] + dy * t)


def _groups(g: nx.DiGraph, pos: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float, float, float]]:
    """Bounding boxes ``(x0, y0, x1, y1)`` of the multi-member groups, with a margin."""
    out = {}
    for group in ("kube-apiserver", "kube-controller-manager", "kubelet"):
        members = [v for v, d in g.nodes(data=True) if d.get("group") == group and v in pos]
        if not members:
            continue
        xs0 = [pos[v][0] - _HALF[g.nodes[v]["kind"]][0] for v in members]
        xs1 = [pos[v][0] + _HALF[g.nodes[v]["kind"]][0] for v in members]
        ys0 = [pos[v][1] - _HALF[g.nodes[v]["kind"]][1] for v in members]
        ys1 = [pos[v][1] + _HALF[g.nodes[v]["kind"]][1] for v in members]
        out[group] = (min(xs0) - 0.12, min(ys0) - 0.12, max(xs1) + 0.12, max(ys1) + 0.3)
    return out


def _anchor(g: nx.DiGraph, v: str, pos: Mapping, boxes: Mapping) -> tuple[tuple[float, float], tuple[float, float]]:
    """Centre and half-size used for un-highlighted edges: a group's box for controllers and kubelets."""
    group = g.nodes[v].get("group")
    if g.nodes[v].get("kind") in ("controller", "kubelet") and group in boxes:
        x0, y0, x1, y1 = boxes[group]
        return ((x0 + x1) / 2, (y0 + y1) / 2), ((x1 - x0) / 2, (y1 - y0) / 2)
    return pos[v], _HALF[g.nodes[v]["kind"]]


def _arrow(ax: Axes, a: tuple[float, float], b: tuple[float, float], *, color: str, lw: float, rad: float = 0.0,
           zorder: float = 1, ls: str = "-") -> None:
    ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=11, color=color, lw=lw, ls=ls,
                                 connectionstyle=f"arc3,rad={rad}", zorder=zorder, shrinkA=0, shrinkB=0))


def _mid(a: tuple[float, float], b: tuple[float, float], rad: float) -> tuple[float, float]:
    """Midpoint of an ``arc3`` connection (matplotlib's control point is offset by ``rad`` times the length)."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    return (mx + rad * dy / 2, my - rad * dx / 2)


#: Width of one character of a hop number label (7.5 pt bold), in layout units (about an inch each).
_LABEL_W_PER_CHAR = 0.075


def _on_arc(a: tuple[float, float], b: tuple[float, float], rad: float, t: float) -> tuple[float, float]:
    """The point at parameter ``t`` of an ``arc3`` connection (a quadratic Bezier through matplotlib's control point)."""
    c = ((a[0] + b[0]) / 2 + rad * (b[1] - a[1]), (a[1] + b[1]) / 2 - rad * (b[0] - a[0]))
    return tuple((1 - t) ** 2 * a[i] + 2 * (1 - t) * t * c[i] + t ** 2 * b[i] for i in (0, 1))


def _label_spot(a: tuple[float, float], b: tuple[float, float], rad: float, w: float, h: float,
                placed: list[tuple[float, float, float, float]]) -> tuple[float, float]:
    """Where on the arc ``a -> b`` a ``w`` x ``h`` label overlaps none of ``placed`` (appended to it).

    The midpoint first, then points nearer either end; if every one collides, the one with the least overlap.
    """
    best, best_overlap = None, math.inf
    for t in (0.5, 0.35, 0.65, 0.25, 0.75, 0.42, 0.58, 0.3, 0.7):
        x, y = _on_arc(a, b, rad, t)
        box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        overlap = sum(max(0.0, min(box[2], p[2]) - max(box[0], p[0])) * max(0.0, min(box[3], p[3]) - max(box[1], p[1]))
                      for p in placed)
        if overlap < best_overlap:
            best, best_overlap = (box, (x, y)), overlap
        if overlap == 0:
            break
    placed.append(best[0])
    return best[1]


def _numbers(nums: Sequence[int]) -> str:
    if len(nums) <= 3:
        return ",".join(str(n) for n in nums)
    return f"{nums[0]},…,{nums[-1]}"


def _hop_path(g: nx.DiGraph, a: str, b: str) -> list[str]:
    if g.has_edge(a, b):
        return [a, b]
    try:
        return nx.shortest_path(g, a, b)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return [a, b]


def draw_component_graph(g: nx.DiGraph, ax: Axes, highlight: Iterable[Any] | None = None, *,
                         title: str | None = None) -> Axes:
    """Draw the component graph on ``ax`` with a fixed layout; optionally number the hops of a request.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.sim.trace.component_graph`.
    ax : matplotlib.axes.Axes
        Cleared first.
    highlight : iterable of hop dicts or of node names, optional
        Hops (from :func:`~kubenotes.sim.trace.apply_hops`, each with ``from``, ``to`` and
        ``step``) are drawn as numbered arrows along their path in the graph,
        the last one in orange, earlier ones in blue; the nodes they touched
        get a bold border. Plain node names are only outlined.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    See Also
    --------
    kubenotes.sim.trace.component_graph, component_layout, hops_figure

    Notes
    -----
    Without highlights, the edges of the controllers and of the kubelets are
    drawn once per group (kube-controller-manager, the kubelets): every
    member has the same two edges (a write into authentication, a watch from
    the watch cache), and twenty parallel arrows would say nothing more.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> g = nx.DiGraph()
    >>> g.add_node("kubectl", kind="client", group="kubectl", label="kubectl")
    >>> g.add_node("authentication", kind="stage", group="kube-apiserver", label="authentication")
    >>> g.add_edge("kubectl", "authentication", flow="write")
    >>> ax = Figure().add_subplot()
    >>> draw_component_graph(g, ax, highlight=[{"step": 1, "from": "kubectl", "to": "authentication"}]) is ax
    True
    """
    ax.clear()
    pos = component_layout(g)
    boxes = _groups(g, pos)
    hops, marked = _split_highlight(highlight)
    _draw_frames(g, ax, pos, boxes)
    touched = _draw_hops(g, ax, pos, hops)
    _draw_nodes(g, ax, pos, touched | marked, hops[-1]["to"] if hops else None)
    _set_limits(ax, pos, boxes)
    _title_and_legend(ax, title, hops)
    return ax


def _split_highlight(highlight: Iterable[Any] | None) -> tuple[list[Mapping[str, Any]], set[str]]:
    """``highlight`` of :func:`draw_component_graph` as (hops, plain node names)."""
    hops: list[Mapping[str, Any]] = []
    marked: set[str] = set()
    for h in highlight or ():
        if isinstance(h, Mapping):
            hops.append(h)
        else:
            marked.add(str(h))
    return hops, marked


def _draw_frames(g: nx.DiGraph, ax: Axes, pos: Mapping, boxes: Mapping) -> None:
    """The group frames and the plain edges (bundled per group): the part no hop changes."""
    # group frames
    titles = {"kube-apiserver": "kube-apiserver", "kube-controller-manager": "kube-controller-manager",
              "kubelet": "kubelet (one per node)"}
    for group, (x0, y0, x1, y1) in boxes.items():
        ax.add_patch(FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0.02,rounding_size=0.12",
                                    fc="none", ec=_GROUP_EC[group], lw=1.2, ls="--", zorder=0))
        ax.text(x0 + 0.1, y1 - 0.06, titles[group], ha="left", va="top", fontsize=8, color=_GROUP_EC[group],
                fontweight="bold", zorder=1)

    # plain edges, bundled per group
    drawn: set[tuple] = set()
    for u, v, d in g.edges(data=True):
        cu, hu = _anchor(g, u, pos, boxes)
        cv, hv = _anchor(g, v, pos, boxes)
        key = (cu, cv)
        if key in drawn:
            continue
        drawn.add(key)
        a, b = _clip(cu, hu, cv), _clip(cv, hv, cu)
        _arrow(ax, a, b, color=_EDGE, lw=0.9, zorder=1)
        m = _mid(a, b, 0.0)
        ax.text(m[0], m[1], d.get("flow", ""), fontsize=6.5, color="#616161", ha="center", va="center", zorder=2,
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.85))


def _draw_hops(g: nx.DiGraph, ax: Axes, pos: Mapping, hops: Sequence[Mapping[str, Any]]) -> set[str]:
    """The hops as numbered arrows along their paths (the last one in orange); returns the nodes they touched."""
    touched: set[str] = set()
    seg_steps: dict[tuple[str, str], list[int]] = {}
    last_step = hops[-1].get("step", len(hops)) if hops else None
    current_segments: set[tuple[str, str]] = set()
    for i, h in enumerate(hops):
        step = int(h.get("step", i + 1))
        path = _hop_path(g, h["from"], h["to"])
        touched.update(p for p in path if p in g)
        segs = list(zip(path, path[1:]))
        for j, seg in enumerate(segs):
            lst = seg_steps.setdefault(seg, [])
            if j == len(segs) - 1 and step not in lst:  # number only where the hop arrives
                lst.append(step)
            if step == last_step:
                current_segments.add(seg)
    placed: list[tuple[float, float, float, float]] = []  # hop-number labels drawn so far, as boxes
    for (u, v), steps in seg_steps.items():
        if u not in pos or v not in pos:
            continue
        now = (u, v) in current_segments
        hu, hv = _HALF[g.nodes[u]["kind"]], _HALF[g.nodes[v]["kind"]]
        rad = 0.12 if g.nodes[u].get("kind") in ("stage",) and g.nodes[v].get("kind") in ("stage", "store") else 0.18
        a, b = _clip(pos[u], hu, pos[v]), _clip(pos[v], hv, pos[u])
        _arrow(ax, a, b, color=_NOW if now else _PAST, lw=2.6 if now else 1.6, rad=rad, zorder=4)
        if not steps:
            continue
        text = _numbers(steps)
        m = _label_spot(a, b, rad, _LABEL_W_PER_CHAR * len(text) + 0.16, 0.24, placed)
        ax.text(m[0], m[1], text, fontsize=7.5, fontweight="bold", ha="center", va="center", zorder=6,
                color="white", bbox=dict(boxstyle="round,pad=0.18", fc=_NOW if now else _PAST, ec="none"))
    return touched


def _draw_nodes(g: nx.DiGraph, ax: Axes, pos: Mapping, hot_nodes: set[str], current_target: str | None, *,
                boxes: str = "all", labels: bool = True) -> None:
    """The node boxes (``boxes``: "all", or "changed": only those not drawn as without hops) and their labels."""
    for v, d in g.nodes(data=True):
        kind = d.get("kind", "stage")
        x, y = pos[v]
        hw, hh = _HALF[kind]
        hot = v in hot_nodes
        fc = "#ffe0b2" if v == current_target else _FC[kind]
        if boxes == "all" or hot or v == current_target:
            ax.add_patch(FancyBboxPatch((x - hw, y - hh), 2 * hw, 2 * hh,
                                        boxstyle="round,pad=0.0,rounding_size=0.08",
                                        fc=fc, ec=_NOW if v == current_target else _EC[kind],
                                        lw=2.2 if hot else 0.9, zorder=3))
        if not labels:
            continue
        label = d.get("label", v)
        if kind == "stage":
            label = label.replace(" ", "\n")  # "mutating\nadmission": the stages sit close together
        size = 8.0 if kind not in ("controller", "kubelet") else (7.0 if len(label) <= 28 else 6.4)
        ax.text(x, y, label, ha="center", va="center", fontsize=size, zorder=5,
                fontweight="bold" if hot else "normal")


def _set_limits(ax: Axes, pos: Mapping, boxes: Mapping) -> None:
    """The view around every node and group frame, equal aspect, no axes."""
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    x_lo = min(min(xs) - 0.6, min((b[0] for b in boxes.values()), default=0.0) - 0.1)
    x_hi = max(max(xs) + 0.6, max((b[2] for b in boxes.values()), default=0.0) + 0.1)
    y_lo = min(min(ys) - 0.4, min((b[1] for b in boxes.values()), default=0.0) - 0.1)
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, max(ys) + 0.55)
    ax.set_aspect("equal")
    ax.axis("off")


def _title_and_legend(ax: Axes, title: str | None, hops: Sequence[Mapping[str, Any]]) -> None:
    """The title, and under the graph a legend naming the current hop."""
    if title:
        ax.set_title(title, fontsize=10)
    if hops:
        last_step = hops[-1].get("step", len(hops))
        handles = [Patch(fc=_PAST, label="hops so far (numbered)"), Patch(fc=_NOW, label=f"hop {last_step}")]
        ax.legend(handles=handles, loc="upper left", fontsize=8, frameon=False, ncol=2,
                  bbox_to_anchor=(0.0, 0.0))


def component_figure(g: nx.DiGraph, highlight: Iterable[Any] | None = None, *, title: str | None = None) -> Figure:
    """A new Figure sized to the graph, with :func:`draw_component_graph` on it.

    Parameters
    ----------
    g, highlight, title
        As for :func:`draw_component_graph`.

    Returns
    -------
    matplotlib.figure.Figure
        Not shown; a notebook cell displays it by ending with it.

    Raises
    ------
    KeyError
        When a graph node has no ``kind``, or one that is not drawn
        (``client``, ``stage``, ``store``, ``cache``, ``controller``,
        ``scheduler``, ``kubelet``); or when a hop has no ``from`` or ``to``.

    See Also
    --------
    kubenotes.sim.trace.component_graph, draw_component_graph, hops_figure

    Examples
    --------
    >>> g = nx.DiGraph(); g.add_node("etcd", kind="store", group="etcd", label="etcd")
    >>> len(component_figure(g).axes)
    1
    """
    fig, ax = _component_canvas(g, titled=bool(title))
    draw_component_graph(g, ax, highlight, title=title)
    return fig


def _component_canvas(g: nx.DiGraph, *, titled: bool) -> tuple[Figure, Axes]:
    """An empty Figure sized to ``g``'s layout (room for a title when ``titled``) and its one Axes."""
    pos = component_layout(g)
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    width_units = max(xs) - min(xs) + 1.6
    height_units = max(ys) - min(ys) + 1.2
    scale = min(1.05, _MAX_WIDTH_INCHES / width_units)
    fig = detached_figure(width_units * scale, height_units * scale + (0.5 if titled else 0.2))
    return fig, fig.add_axes((0.0, 0.03, 1.0, 0.92 if titled else 0.96))


class _HopPictures:
    """PNGs of :func:`hops_figure` (as :func:`_png` saves them) drawn on one Figure: the unchanging part once.

    The group frames, the plain edges and the nodes as drawn without hops
    are rendered once and their pixels kept; each picture puts them back
    and draws on top only what the hops change (their arrows and numbers,
    the boxes they touched, every node label, the title and the legend),
    in z-order, as a full draw would: the same pixels.
    """

    def __init__(self, g: nx.DiGraph, dpi: int = 80):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.g, self.dpi = g, dpi
        self.figure, self.ax = _component_canvas(g, titled=True)
        self.figure.set_dpi(dpi)
        self.canvas = FigureCanvasAgg(self.figure)
        self.pos = component_layout(g)
        boxes = _groups(g, self.pos)
        _draw_frames(g, self.ax, self.pos, boxes)
        _draw_nodes(g, self.ax, self.pos, set(), None, labels=False)
        _set_limits(self.ax, self.pos, boxes)
        self.ax.set_title(" ", fontsize=10)  # places the title (Axes.draw does) without drawing text
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(self.figure.bbox)

    def png(self, hops: Sequence[Mapping[str, Any]], title: str) -> bytes:
        """The picture of ``hops`` (the last one current) titled ``title``, as PNG bytes.

        Whatever happens while drawing, the Axes is left as the constructor
        left it (the hop artists removed, no legend, a blank title). Should
        the incremental draw fail, the picture is drawn in full on a fresh
        Figure instead (:func:`hops_figure`, the same pixels) and the kept
        background is rebuilt, so one bad draw never breaks the next.
        """
        try:
            return self._incremental(hops, title)
        except Exception:
            self.__init__(self.g, self.dpi)
            return _png(hops_figure(self.g, hops, title=title), dpi=self.dpi)

    def _incremental(self, hops: Sequence[Mapping[str, Any]], title: str) -> bytes:
        from matplotlib.image import imsave

        ax, canvas = self.ax, self.canvas
        before = set(ax.get_children())
        added: list[Any] = []
        try:
            touched = _draw_hops(self.g, ax, self.pos, hops)
            _draw_nodes(self.g, ax, self.pos, touched, hops[-1]["to"] if hops else None, boxes="changed")
            _title_and_legend(ax, None, hops)
            ax.title.set_text(title)
            added = [a for a in ax.get_children() if a not in before]
            canvas.restore_region(self.background)
            renderer = canvas.get_renderer()
            for a in sorted(added + [ax.title], key=lambda a: a.get_zorder()):
                a.draw(renderer)
            pixels = np.asarray(canvas.buffer_rgba())
        finally:
            for a in added or [a for a in ax.get_children() if a not in before]:
                if a.axes is not None or a.get_figure(root=False) is not None:
                    a.remove()
            ax.legend_ = None
            ax.title.set_text(" ")
        buf = io.BytesIO()
        imsave(buf, pixels, format="png", dpi=self.dpi,
               metadata={"Software": f"Matplotlib version{mpl.__version__}, https://matplotlib.org/"})
        return buf.getvalue()


# ---------------------------------------------------------------------------
# one apply, hop by hop


def hops_table(hops: Sequence[Mapping[str, Any]], *, current: int | None = None, window: int | None = None) -> Html:
    """The hops of :func:`~kubenotes.sim.trace.apply_hops` as a compact table (step, time, from, to, what).

    Parameters
    ----------
    hops : sequence of dict
    current : int, optional
        Step to highlight; later steps are left out (None: every hop given, none highlighted).
    window : int, optional
        Show only this many steps, ending at ``current`` (or at the last).

    Returns
    -------
    Html

    Raises
    ------
    KeyError
        When a hop lacks ``step``, ``time``, ``from``, ``to`` or ``what``.
    ValueError
        With ``current`` given, when a hop's ``step`` is not an integer.

    See Also
    --------
    kubenotes.sim.trace.apply_hops, hops_figure, apply_panel

    Examples
    --------
    >>> t = hops_table([{"step": 1, "time": 5.0, "from": "kubectl", "to": "authentication", "what": "create"}])
    >>> "kubectl" in t and "<table" in t
    True
    """
    shown = [h for h in hops if current is None or int(h["step"]) <= current]
    if window is not None:
        shown = shown[-window:]
    rows = []
    for h in shown:
        now = current is not None and int(h["step"]) == current
        css = "background:#fff3e0;font-weight:bold" if now else ""
        rows.append([(_e(h["step"]), css), (_e(_seconds(h["time"])), css), (_e(h["from"]), css),
                     (_e(h["to"]), css), (_e(h["what"]), css)])
    return _table(["#", "time (s)", "from", "to", "what"], rows)


def hops_figure(g: nx.DiGraph, hops: Sequence[Mapping[str, Any]], upto: int | None = None, *,
                title: str | None = None) -> Figure:
    """The component graph with the first ``upto`` hops drawn (all when None).

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.sim.trace.component_graph`.
    hops : sequence of dict
        From :func:`~kubenotes.sim.trace.apply_hops`.
    upto : int, optional
        How many hops to draw; the last one drawn is the current one (orange).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    KeyError
        As for :func:`component_figure`: a node without a drawn ``kind``, a hop
        without ``from`` or ``to``.

    See Also
    --------
    draw_component_graph, apply_panel

    Examples
    --------
    >>> g = nx.DiGraph(); g.add_node("kubectl", kind="client", group="kubectl", label="kubectl")
    >>> hops_figure(g, []).axes[0].get_title()
    ''
    """
    upto = len(hops) if upto is None else upto
    return component_figure(g, list(hops[:upto]), title=title)


def _png(fig: Figure, dpi: int = 80) -> bytes:
    """``fig`` saved as a PNG at ``dpi`` (no tight box), then closed; also :mod:`kubenotes.viz.replay`'s.

    A candidate for :mod:`kubenotes.viz.widgets` beside ``figure_png`` (the
    inline backend's tight PNG, a different picture).
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return buf.getvalue()


def apply_panel(g: nx.DiGraph, hops: Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Mapping[str, Any]]], *,
                start: int = 1, window: int = 6, title: str = "") -> Any:
    """The chapter's widget: a hop slider over the component graph, with the latest hops as a table.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.sim.trace.component_graph`.
    hops : sequence of dict, or mapping of str to sequence of dict
        From :func:`~kubenotes.sim.trace.apply_hops`. A mapping (what was
        applied -> its hops, e.g. ``{"Deployment web/api": ..., "Pod web/probe": ...}``)
        adds a dropdown, ``applied``, choosing which apply the slider walks;
        the slider's range follows it.
    start : int
        The slider's first value (which hop is shown at first).
    window : int
        Rows of the table under the graph (the hops up to the slider's).
    title : str
        Figure title prefix.

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`. Each picture is drawn
        once, on one Figure whose unchanging part (frames, edges, plain
        boxes) is drawn when the panel is built, and cached as a PNG, so
        moving back and forth re-renders in milliseconds. Its title gives the hop's step number first: the model
        charges no virtual time to API calls, so most hops share one virtual
        second and only their order tells them apart.

    Raises
    ------
    IndexError
        When ``hops`` (or one of its runs) is empty (there is no hop to show).
    KeyError
        When a hop lacks ``step``, ``time``, ``from``, ``to`` or ``what``, or a
        node of ``g`` has no drawn ``kind`` (see :func:`component_figure`).

    See Also
    --------
    kubenotes.sim.trace.apply_hops, hops_figure, hops_table, kubenotes.viz.widgets.live_panel

    Notes
    -----
    The errors above come from the first drawing, made while the panel is
    built: outside Jupyter they are raised; inside Jupyter the output widget
    shows their traceback in the panel instead.

    Examples
    --------
    >>> import contextlib, io
    >>> g = nx.DiGraph()
    >>> g.add_node("kubectl", kind="client", group="kubectl", label="kubectl")
    >>> g.add_node("authentication", kind="stage", group="kube-apiserver", label="authentication")
    >>> g.add_edge("kubectl", "authentication", flow="write")
    >>> hops = [{"step": 1, "time": 5.0, "from": "kubectl", "to": "authentication", "what": "create pods"}]
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = apply_panel(g, hops)
    >>> slider = panel.children[0].children[0]
    >>> slider.description, slider.value, slider.max
    ('hop', 1, 1)
    """
    import ipywidgets as widgets
    from IPython.display import Image

    from kubenotes.viz.widgets import live_panel

    runs = {str(k): list(v) for k, v in hops.items()} if isinstance(hops, Mapping) else {"": list(hops)}
    first = next(iter(runs))
    canvas = _HopPictures(g)

    @functools.lru_cache(maxsize=None)
    def picture(applied: str, k: int) -> bytes:
        run = runs[applied]
        h = run[k - 1]
        what = f"{applied}: " if applied else ""
        label = (f"{title}{what}step {k} of {len(run)}, {h['from']} -> {h['to']} "
                 f"(virtual t={_seconds(h['time'])} s)")
        return canvas.png(run[:k], label)  # the PNG of _png(hops_figure(g, run, k, title=label))

    def update(hop: int, applied: str = first) -> Any:
        run = runs[applied]
        k = max(1, min(hop, len(run)))
        return [Image(data=picture(applied, k), format="png"), hops_table(run, current=k, window=window)]

    n = len(runs[first])
    slider = widgets.IntSlider(value=max(1, min(start, n)), min=1, max=max(1, n), step=1,
                               description="hop", continuous_update=False,
                               layout=widgets.Layout(width="520px"))
    if len(runs) == 1:
        return live_panel(update, {"hop": slider}, columns=1)
    menu = widgets.Dropdown(options=list(runs), value=first, description="applied",
                            layout=widgets.Layout(width="300px"))
    # Registered before live_panel's own observer: the slider's range follows the run before the redraw.
    menu.observe(lambda change: setattr(slider, "max", max(1, len(runs[change["new"]]))), names="value")
    return live_panel(update, {"applied": menu, "hop": slider}, columns=2)


# ---------------------------------------------------------------------------
# inside one informer: client-go's List-Watch machinery

# Fixed positions and box labels of the nodes of :func:`~kubenotes.client.components.informer_graph`.
_INFORMER_POS: dict[str, tuple[float, float]] = {
    "kube-apiserver": (0.0, 0.8), "Reflector": (2.5, 2.0), "DeltaFIFO": (5.0, 2.0), "Indexer": (7.5, 2.0),
    "event handlers": (5.0, 1.0), "Lister": (7.5, 1.0), "workqueue": (5.0, -0.4), "Reconcile": (2.5, -0.4)}
_INFORMER_LABEL = {"event handlers": "event handlers\nOnAdd / OnUpdate / OnDelete",
                   "Indexer": "Indexer\n(the local cache)", "Reconcile": "worker: Reconcile(key)",
                   "workqueue": "workqueue\n(rate-limited)", "kube-apiserver": "kube-apiserver\n(watch cache)"}


def draw_informer_graph(g: nx.DiGraph, ax: Axes, highlight: Iterable[str] = (), *, title: str | None = None) -> Axes:
    """Draw :func:`~kubenotes.client.components.informer_graph` with its fixed positions; ``highlight`` nodes and the edges between them in orange.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.client.components.informer_graph` (its nodes
        have fixed positions here; ``kind`` picks the colours).
    ax : matplotlib.axes.Axes
        Cleared first.
    highlight : iterable of str
        Node names, e.g. a path such as ``["kube-apiserver", "Reflector", "DeltaFIFO"]``.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    KeyError
        For a node without ``kind`` or without a fixed position (not one of
        :data:`~kubenotes.client.components.INFORMER_NODES`).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = draw_informer_graph(informer_graph(), Figure().add_subplot(), ["Lister", "Reconcile"])
    >>> "Lister" in [t.get_text() for t in ax.texts]
    True
    """
    ax.clear()
    hot = set(highlight)
    half = (0.85, 0.28)
    frames = {"informer": ("shared informer (one per resource per process)", "#1565c0"),
              "controller": ("controller", "#f9a825")}
    for kind, (label, colour) in frames.items():
        members = [_INFORMER_POS[v] for v, d in g.nodes(data=True) if d["kind"] == kind]
        if not members:
            continue
        x0, x1 = min(x for x, _ in members) - half[0] - 0.15, max(x for x, _ in members) + half[0] + 0.15
        y0, y1 = min(y for _, y in members) - half[1] - 0.15, max(y for _, y in members) + half[1] + 0.4
        ax.add_patch(FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0.02,rounding_size=0.12",
                                    fc="none", ec=colour, lw=1.2, ls="--", zorder=0))
        ax.text(x0 + 0.1, y1 - 0.06, label, ha="left", va="top", fontsize=8, color=colour, fontweight="bold")
    for u, v, d in g.edges(data=True):
        a, b = _INFORMER_POS[u], _INFORMER_POS[v]
        on = u in hot and v in hot
        rad = -0.85 if (u, v) == ("Lister", "Reconcile") else 0.0
        pa, pb = _clip(a, half, b), _clip(b, half, a)
        _arrow(ax, pa, pb, color=_NOW if on else "#757575", lw=2.4 if on else 1.0, rad=rad, zorder=1)
        m = _mid(pa, pb, rad)
        ax.text(m[0], m[1], d["flow"], fontsize=7, ha="center", va="center", zorder=2,
                color=_NOW if on else "#424242", bbox=dict(boxstyle="round,pad=0.12", fc="white", ec="none"))
    colours = {"server": ("#e3f2fd", "#1565c0"), "informer": ("#ffffff", "#1565c0"),
               "controller": ("#fff8e1", "#f9a825")}
    for v, d in g.nodes(data=True):
        x, y = _INFORMER_POS[v]
        fc, ec = colours[d["kind"]]
        on = v in hot
        ax.add_patch(FancyBboxPatch((x - half[0], y - half[1]), 2 * half[0], 2 * half[1],
                                    boxstyle="round,pad=0.0,rounding_size=0.08", fc="#ffe0b2" if on else fc,
                                    ec=_NOW if on else ec, lw=2.2 if on else 1.0, zorder=3))
        ax.text(x, y, _INFORMER_LABEL.get(v, v), ha="center", va="center", fontsize=8, zorder=5,
                fontweight="bold" if on else "normal")
    xs = [_INFORMER_POS[v][0] for v in g]
    ys = [_INFORMER_POS[v][1] for v in g]
    ax.set_xlim(min(xs) - 1.2, max(xs) + 1.3)
    ax.set_ylim(min(ys) - 1.15, max(ys) + 0.75)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def informer_figure(highlight: Iterable[str] = (), *, title: str | None = None) -> Figure:
    """A new Figure with :func:`draw_informer_graph` of :func:`~kubenotes.client.components.informer_graph`.

    Parameters
    ----------
    highlight : iterable of str
        Node names to highlight (with the edges between them).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        When ``highlight`` is not iterable. Names that are not in the graph are
        ignored.

    See Also
    --------
    kubenotes.client.components.informer_graph, draw_informer_graph

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go
    https://github.com/kubernetes/sample-controller/blob/master/docs/controller-client-go.md

    Examples
    --------
    >>> len(informer_figure(["Reflector"]).axes)
    1
    """
    fig = detached_figure(9.4, 4.9 if title else 4.6)
    ax = fig.add_axes((0.0, 0.0, 1.0, 0.93 if title else 1.0))
    draw_informer_graph(informer_graph(), ax, highlight, title=title)
    return fig


# ---------------------------------------------------------------------------
# List-Watch tables


def _event_parts(ev: Any) -> tuple[str, dict]:
    if isinstance(ev, Mapping):
        return ev.get("type", ""), ev.get("object") or {}
    return ev.type, ev.object


def _what(obj: Mapping[str, Any]) -> str:
    """A few words on the fields a chapter watches change (phase, node, replicas, data)."""
    kind = obj.get("kind", "")
    spec, st = obj.get("spec") or {}, obj.get("status") or {}
    md = obj.get("metadata") or {}
    parts = []
    if kind == "Pod":
        if spec.get("nodeName"):
            parts.append(f"nodeName={spec['nodeName']}")
        if st.get("phase"):
            parts.append(f"phase={st['phase']}")
        ready = (pod_ready_condition(obj) or {}).get("status")
        if ready:
            parts.append(f"Ready={ready}")
        if md.get("deletionTimestamp"):
            parts.append("terminating")
    elif "replicas" in spec:
        parts.append(f"spec.replicas={spec['replicas']}")
        if "readyReplicas" in st or "replicas" in st:
            parts.append(f"status.replicas={st.get('replicas', 0)} ready={st.get('readyReplicas', 0)}")
    elif kind == "ConfigMap":
        parts.append(", ".join(f"{k}={v}" for k, v in sorted((obj.get("data") or {}).items())))
    return " ".join(p for p in parts if p)


def watch_stream_table(events: Iterable[Any]) -> Html:
    """A watch stream, one row per event: type, object, resourceVersion, and what it says.

    Parameters
    ----------
    events : iterable of WatchEvent or dict
        What :meth:`Watch.pop_all` returned (or ``{"type", "object"}`` dicts).

    Returns
    -------
    Html
        Columns ``type``, ``kind``, ``namespace/name``, ``resourceVersion``,
        ``what`` (for Pods: ``nodeName``, ``phase``, ``Ready``; for workloads:
        replicas; for ConfigMaps: data).

    Raises
    ------
    AttributeError
        When an event is neither a mapping nor a WatchEvent (it has no
        ``type``), or its object is not a mapping.

    See Also
    --------
    request_trace_table, cache_vs_store

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/watch/watch.go (EventType)
    https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes

    Examples
    --------
    >>> from kubenotes.apiserver.watch import WatchEvent
    >>> t = watch_stream_table([WatchEvent("ADDED", {"kind": "Pod", "metadata": {"namespace": "default",
    ...     "name": "web", "resourceVersion": "7"}, "status": {"phase": "Pending"}})])
    >>> "phase=Pending" in t and ">7<" in t
    True
    """
    colour = {"ADDED": _GREEN, "MODIFIED": "#1565c0", "DELETED": _RED, "BOOKMARK": _GREY, "ERROR": _RED}
    rows = []
    for ev in events:
        t, obj = _event_parts(ev)
        md = obj.get("metadata") or {}
        ns = md.get("namespace") or ""
        rows.append([(f'<b style="color:{colour.get(t, "#000")}">{_e(t)}</b>', ""), (_e(obj.get("kind", "")), ""),
                     (_e(f"{ns}/{md.get('name', '')}" if ns else md.get("name", "")), ""),
                     (_e(md.get("resourceVersion", "")), "text-align:right"), (_e(_what(obj)), "")])
    return _table(["type", "kind", "namespace/name", "resourceVersion", "what"], rows)


def request_trace_table(trace_record: Mapping[str, Any]) -> Html:
    """One request's path through kube-apiserver: a row per step, with the outcome.

    Parameters
    ----------
    trace_record : dict
        One record of :meth:`APIServer.trace_requests` (``time``, ``user``,
        ``verb``, ``resource``, ``namespace``, ``name``, ``code``, ``steps``).

    Returns
    -------
    Html
        A caption with the request and its HTTP code, then ``step`` and
        ``detail`` per step; a refused request ends with its ``response``
        step (the Status message), in red.

    Raises
    ------
    KeyError
        When the record lacks ``verb`` or ``resource``, or a step lacks
        ``step`` or ``detail``.

    See Also
    --------
    watch_stream_table, can_i_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)
    https://kubernetes.io/docs/concepts/security/controlling-access/

    Examples
    --------
    >>> rec = {"time": 0.0, "user": "u", "verb": "create", "resource": "pods", "namespace": "default", "name": "",
    ...        "code": 403, "steps": [{"step": "authentication", "detail": "user 'u'"},
    ...                               {"step": "response", "detail": "403 Forbidden: nope"}]}
    >>> "403" in request_trace_table(rec)
    True
    """
    code = trace_record.get("code", 200)
    rows = []
    for s in trace_record.get("steps", ()):
        bad = s["step"] == "response" or (s["step"] == "authorization" and not s["detail"].startswith("Allow"))
        css = f"color:{_RED}" if bad else ""
        detail = s["detail"].removesuffix(": ") if s["step"] == "authorization" else s["detail"]
        rows.append([(f"<b>{_e(s['step'])}</b>", css), (_e(detail), css)])
    caption = (f"t={_seconds(trace_record.get('time', 0.0))} s  {trace_record.get('user', '')}: "
               f"{verb_text(trace_record)} -> {code}")
    return _table(["step", "detail"], rows, caption=caption)


def can_i_table(authorizer: Any, user: Any, resources: Sequence[str], namespace: str = "default",
                verbs: Sequence[str] = ("get", "list", "watch", "create", "update", "delete")) -> Html:
    """``kubectl auth can-i VERB RESOURCE -n NAMESPACE --as USER`` for a grid of verbs and resources.

    Parameters
    ----------
    authorizer : RBACAuthorizer
        Anything with ``can_i(attributes) -> bool``
        (:class:`~kubenotes.apiserver.rbac.RBACAuthorizer`).
    user : UserInfo
    resources : sequence of str
        Resource names (``pods``, ``secrets``, ``deployments``, ``pods/log``...).
    namespace : str
    verbs : sequence of str

    Returns
    -------
    Html
        One row per resource, one column per verb: ✓ allowed, ✗ not.

    Raises
    ------
    ApiError
        When a resource is unknown to the API server (``the server doesn't have
        a resource type``).
    AttributeError
        When ``authorizer`` has no ``can_i``.

    See Also
    --------
    kubenotes.apiserver.rbac.can_i_matrix : the answers, as values.
    request_trace_table, kubenotes.apiserver.rbac.RBACAuthorizer

    Notes
    -----
    The answers come from :func:`~kubenotes.apiserver.rbac.can_i_matrix`
    (the authorizer is asked directly, without a SelfSubjectAccessReview).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/auth/cani.go
    kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/rbac.go

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> class Reads:
    ...     def can_i(self, attrs): return attrs.verb == "get"
    >>> t = can_i_table(Reads(), UserInfo("jane"), ["pods"], verbs=("get", "delete"))
    >>> t.count("✓"), t.count("✗")
    (1, 1)
    """
    yes = f'<b style="color:{_GREEN}">✓</b>'
    no = f'<span style="color:{_RED}">✗</span>'
    rows = []
    for res, allowed in can_i_matrix(authorizer, user, resources, namespace, verbs).items():
        rows.append([(f"<code>{_e(res)}</code>", "")] + [(yes if ok else no, "text-align:center")
                                                        for ok in allowed.values()])
    return _table([f"{getattr(user, 'name', user)} in {namespace}", *verbs], rows)


def reflector_log_table(reflector: Any) -> Html:
    """A reflector's history: every LIST, WATCH, watch end, 410 and relist, with its virtual time.

    Parameters
    ----------
    reflector : Reflector or sequence of ``(time, action, detail)``
        :class:`~kubenotes.client.informer.Reflector` (its ``log`` is read).

    Returns
    -------
    Html

    Raises
    ------
    ValueError
        When a log entry is not a ``(time, action, detail)`` triple, or its time
        is not a number.

    See Also
    --------
    kubenotes.sim.listwatch.watch_outage, outage_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go

    Examples
    --------
    >>> t = reflector_log_table([(0.0, "LIST", "3 pods at resourceVersion 4"), (2.0, "WATCH 410 Gone", "too old")])
    >>> "410 Gone" in t
    True
    """
    log = getattr(reflector, "log", reflector)
    colour = {"LIST": _GREEN, "WATCH": "#1565c0", "WATCH 410 Gone": _RED}
    rows = []
    for t, action, detail in log:
        c = colour.get(action, _GREY)
        rows.append([(_e(_seconds(t)), "text-align:right"), (f'<b style="color:{c}">{_e(action)}</b>', ""),
                     (_e(detail), "")])
    return _table(["time (s)", "action", "detail"], rows)


def cache_vs_store(informer: Any, server: Any, resource: str, namespace: str | None = None, *,
                   label_selector: str = "") -> Html:
    """An informer's cache beside the store: each object's resourceVersion in both, and whether they agree.

    Parameters
    ----------
    informer : SharedIndexInformer
        Its ``indexer`` is read (never changed).
    server : APIServer
        Its store is read directly (no request, no authorization).
    resource : str
        Any name ``kubectl get`` accepts (``pods``, ``deploy``...).
    namespace : str, optional
        Only this namespace.
    label_selector : str, optional
        Only objects whose labels match (``app=web``), in either.

    Returns
    -------
    Html
        One row per key in either: ``key``, cache resourceVersion, store
        resourceVersion, and ``in sync``, ``stale (cache behind)``, ``not yet in
        cache`` or ``deleted, cache still has it``.

    Raises
    ------
    ApiError
        When ``resource`` is not a resource the API server knows.
    FieldError
        When ``label_selector`` does not parse.

    See Also
    --------
    kubenotes.sim.listwatch.compare_cache_with_store, watch_stream_table, reflector_log_table

    Notes
    -----
    The store is read in process. Upstream no client sees etcd: the
    comparison would be between the informer's cache and a LIST from the API
    server.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/thread_safe_store.go

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> from kubenotes.client import SharedInformerFactory
    >>> api = APIServer(seed=0)
    >>> f = SharedInformerFactory(api.client("kube-controller-manager"), api.env)
    >>> inf = f.informer_for("configmaps"); f.start(); api.env.run(until=1)
    >>> _ = api.client().create("configmaps", {"metadata": {"name": "a"}}, "default")
    >>> "not yet in cache" in cache_vs_store(inf, api, "configmaps")
    True
    >>> api.env.run(until=2); "in sync" in cache_vs_store(inf, api, "configmaps")
    True
    """
    colour = {NOT_YET_IN_CACHE: _RED, DELETED_CACHE_STILL_HAS_IT: _RED, IN_SYNC: _GREEN, STALE: "#ef6c00"}
    rows = []
    for r in compare_cache_with_store(informer, server, resource, namespace, label_selector=label_selector):
        crv, srv, verdict = r["cache_resource_version"], r["store_resource_version"], r["verdict"]
        rows.append([(_e(r["key"]), ""), (_e(crv or "-"), "text-align:right"), (_e(srv or "-"), "text-align:right"),
                     (f'<b style="color:{colour[verdict]}">{_e(verdict)}</b>', "")])
    return _table(["key", "cache resourceVersion", "store resourceVersion", "cache vs store"], rows)


# ---------------------------------------------------------------------------
# a watch outage: resume or relist


def outage_table(result: Mapping[str, Any]) -> Html:
    """A verdict line (resumed or relisted, and why) above the reflector's log, for :func:`~kubenotes.sim.listwatch.watch_outage`.

    Parameters
    ----------
    result : dict
        What :func:`~kubenotes.sim.listwatch.watch_outage` returned.

    Returns
    -------
    Html
        The verdict (with the last resourceVersion the reflector saw and the
        oldest one the history still holds), the store's revision and the
        cache's content, then :func:`reflector_log_table`.

    Raises
    ------
    KeyError
        When ``result`` lacks one of :func:`~kubenotes.sim.listwatch.watch_outage`'s keys (``last_seen``,
        ``oldest``, ``relisted``, ``lists`` or ``watches``, ``revision``,
        ``cache``, ``log``).

    See Also
    --------
    watch_outage, outage_panel, reflector_log_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go

    Examples
    --------
    >>> "410 Gone" in outage_table(watch_outage(12, history_capacity=10))
    True
    """
    last, oldest = int(result["last_seen"] or 0), int(result["oldest"])
    if result["relisted"]:
        head = (f'<b style="color:{_RED}">410 Gone -&gt; relist.</b> The reflector last saw resourceVersion {last}; '
                f"the history now starts at {oldest}, so the events after {last} are gone. It LISTs again "
                f"({result['lists']} LISTs in all) and its cache is replaced.")
    else:
        head = (f'<b style="color:{_GREEN}">Resumed.</b> The reflector last saw resourceVersion {last}; the '
                f"history still starts at {oldest}, so the watch from {last} replays every missed event "
                f"(1 LIST, {result['watches']} WATCHes).")
    tail = (f"Store revision {result['revision']}; cache has cm-0 data "
            f"{_e(result['cache'])}.")
    return Html(f'<div style="margin:4px 0">{head}<br>{tail}</div>' + reflector_log_table(result["log"]))


def outage_panel(writes_while_down: int = 3, history_capacity: int = 8, *, max_writes: int = 20) -> Any:
    """The chapter's widget: writes while the watch is down and the history capacity -> resume or relist.

    Parameters
    ----------
    writes_while_down, history_capacity : int
        The sliders' starting values.
    max_writes : int
        The writes slider's maximum.

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`; each change calls
        :func:`~kubenotes.sim.listwatch.watch_outage` (cached per slider values) and shows
        :func:`outage_table`.

    Raises
    ------
    traitlets.TraitError
        When a starting value is not an integer. Out-of-range values do not
        raise: the sliders clamp them (writes to ``[0, max_writes]``, capacity
        to ``[1, 30]``).

    See Also
    --------
    watch_outage, outage_table, kubenotes.viz.widgets.live_panel

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = outage_panel(writes_while_down=2, history_capacity=5)
    >>> [(w.description, w.value) for w in panel.children[0].children]
    [('writes while down', 2), ('history capacity', 5)]
    """
    import ipywidgets as widgets

    from kubenotes.viz.widgets import live_panel

    @functools.lru_cache(maxsize=None)
    def run(writes: int, capacity: int) -> Html:
        return outage_table(watch_outage(writes, capacity))

    def update(writes_while_down: int, history_capacity: int) -> Html:
        return run(writes_while_down, history_capacity)

    style = {"description_width": "130px"}
    layout = widgets.Layout(width="440px")
    controls = {
        "writes_while_down": widgets.IntSlider(value=writes_while_down, min=0, max=max_writes, step=1,
                                               description="writes while down", style=style, layout=layout,
                                               continuous_update=False),
        "history_capacity": widgets.IntSlider(value=history_capacity, min=1, max=30, step=1,
                                              description="history capacity", style=style, layout=layout,
                                              continuous_update=False),
    }
    return live_panel(update, controls)
