"""Chapter 02's pictures and tables: the control plane of a running cluster, and List-Watch up close.

Two chapters use this module:

* **Architecture** (02.00): :func:`~kubenotes.sim.trace.component_graph` turns a running
  :class:`~kubenotes.sim.cluster.Cluster` into a networkx graph of its
  components (``kubectl``, kube-apiserver's request path, etcd and the watch
  cache, every controller of kube-controller-manager, kube-scheduler, one
  kubelet per node), and :func:`~kubenotes.sim.trace.apply_hops` follows one ``kubectl apply``
  through it, hop by hop, from the API server's own request traces
  (:meth:`~kubenotes.apiserver.server.APIServer.trace_requests`) and its audit
  log. :func:`component_figure` and :func:`hops_figure` draw both with a fixed
  layout; :func:`apply_panel` puts a hop slider on top.
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

Both graphs are drawn with the same few primitives (a dashed group frame, a
labelled arrow, a node box); every number shown comes from the running model;
this module only lays it out.

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

import matplotlib.pyplot as plt
import networkx as nx
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import imsave
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

__all__ = ["component_figure", "hops_table", "hops_figure", "apply_panel", "informer_figure", "watch_stream_table",
           "request_trace_table", "can_i_table", "reflector_log_table", "cache_vs_store", "outage_table",
           "outage_panel"]

#: Fill and edge colour per node kind of the component graph, and its box half-size (data units).
_COLOURS = {"client": ("#ffffff", "#424242"), "stage": ("#e3f2fd", "#1565c0"), "store": ("#e8f5e9", "#2e7d32"),
            "cache": ("#e3f2fd", "#1565c0"), "controller": ("#fff8e1", "#f9a825"),
            "scheduler": ("#f3e5f5", "#6a1b9a"), "kubelet": ("#eceff1", "#546e7a")}
_HALF = {"client": (0.45, 0.26), "stage": (0.6, 0.26), "store": (0.5, 0.3), "cache": (0.6, 0.26),
         "controller": (0.95, 0.15), "scheduler": (0.75, 0.26), "kubelet": (0.55, 0.15)}
#: The component graph's group frames: group -> (title, colour).
_GROUPS = {"kube-apiserver": ("kube-apiserver", "#1565c0"),
           "kube-controller-manager": ("kube-controller-manager", "#f9a825"),
           "kubelet": ("kubelet (one per node)", "#546e7a")}
_PAST, _NOW, _GREEN, _RED, _GREY = "#1e88e5", "#d84315", "#2e7d32", "#c62828", "#9e9e9e"
_ROWS_PER_COLUMN = 11
#: Widest natural size of a chapter figure, in inches: at the inline backend's 100 dpi it fits a ~1,000 px
#: output column (JupyterLab at 1440x900 with the file browser open) without being shrunk.
_MAX_WIDTH_INCHES = 9.6
#: Width of one character of a hop number label (7.5 pt bold), in layout units (about an inch each).
_LABEL_W_PER_CHAR = 0.075

# The chapter's tables: rows of HTML cells (or ``(html, extra_css)``) under escaped headers.
_table = functools.partial(table, html_cells=True, th_css=TH_BOTTOM_CSS)
_RIGHT = "text-align:right"


def _b(text: Any, colour: str) -> str:
    """``text`` escaped, in bold and ``colour``: the coloured word of a table cell."""
    return f'<b style="color:{colour}">{_e(text)}</b>'


# ---------------------------------------------------------------------------
# drawing primitives shared by the two graphs (patches go in with add_artist: the limits are set, not computed)


def _clip(c: tuple[float, float], half: tuple[float, float], towards: tuple[float, float],
          pad: float = 0.04) -> tuple[float, float]:
    """Where the segment from the centre ``c`` towards ``towards`` leaves a box of half-size ``half``."""
    dx, dy = towards[0] - c[0], towards[1] - c[1]
    if dx == 0 and dy == 0:
        return c
    t = min((half[0] + pad) / abs(dx) if dx else math.inf, (half[1] + pad) / abs(dy) if dy else math.inf)
    return (c[0] + dx * t, c[1] + dy * t)


def _on_arc(a: tuple[float, float], b: tuple[float, float], rad: float, t: float = 0.5) -> tuple[float, float]:
    """The point at parameter ``t`` of an ``arc3`` connection (a quadratic Bezier through its control point)."""
    c = ((a[0] + b[0]) / 2 + rad * (b[1] - a[1]), (a[1] + b[1]) / 2 - rad * (b[0] - a[0]))
    return tuple((1 - t) ** 2 * a[i] + 2 * (1 - t) * t * c[i] + t ** 2 * b[i] for i in (0, 1))


def _arrow(ax: Axes, a: tuple, b: tuple, colour: str, lw: float, *, rad: float = 0.0, zorder: float = 1,
           label: str = "", label_colour: str = "#616161", size: float = 6.5) -> None:
    """An arrow from ``a`` to ``b``, with ``label`` on a white patch at its middle."""
    ax.add_artist(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=11, color=colour, lw=lw,
                                  connectionstyle=f"arc3,rad={rad}", zorder=zorder, shrinkA=0, shrinkB=0))
    if label:
        m = _on_arc(a, b, rad)
        ax.text(m[0], m[1], label, fontsize=size, color=label_colour, ha="center", va="center", zorder=zorder + 1,
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.85))


def _frame(ax: Axes, members: Iterable[tuple[tuple, tuple]], label: str, colour: str, *, pad: float,
           top: float) -> tuple[float, float, float, float]:
    """A dashed, titled frame around boxes given as ``(centre, half-size)``; returns it as ``(x0, y0, x1, y1)``."""
    members = list(members)
    x0 = min(c[0] - h[0] for c, h in members) - pad
    y0 = min(c[1] - h[1] for c, h in members) - pad
    x1 = max(c[0] + h[0] for c, h in members) + pad
    y1 = max(c[1] + h[1] for c, h in members) + top
    ax.add_artist(FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0.02,rounding_size=0.12",
                                 fc="none", ec=colour, lw=1.2, ls="--", zorder=0))
    ax.text(x0 + 0.1, y1 - 0.06, label, ha="left", va="top", fontsize=8, color=colour, fontweight="bold", zorder=1)
    return (x0, y0, x1, y1)


def _box(ax: Axes, xy: tuple, half: tuple, label: str, fc: str, ec: str, *, hot: bool = False,
         current: bool = False, lw: float = 0.9, size: float = 8.0) -> None:
    """A node: a rounded box, bold when ``hot``, orange when ``current``, with its label."""
    ax.add_artist(FancyBboxPatch((xy[0] - half[0], xy[1] - half[1]), 2 * half[0], 2 * half[1],
                                 boxstyle="round,pad=0.0,rounding_size=0.08", fc="#ffe0b2" if current else fc,
                                 ec=_NOW if current else ec, lw=2.2 if hot else lw, zorder=3))
    ax.text(xy[0], xy[1], label, ha="center", va="center", fontsize=size, zorder=5,
            fontweight="bold" if hot else "normal")


def _finish(ax: Axes, xlim: tuple, ylim: tuple, title: str | None) -> Axes:
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


# ---------------------------------------------------------------------------
# the component graph


def _component_layout(g: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Fixed positions: the request path along the top, the watching components along the bottom.

    ``kubectl`` and kube-apiserver's stages on ``y = 3`` left to right, ``etcd`` at their right end and the
    watch cache under it; controllers in columns of up to 11 at the bottom left, then kube-scheduler, then
    the kubelets (a column of up to 9). The same graph always gets the same positions.

    >>> g = nx.DiGraph()
    >>> g.add_node("kubectl", kind="client"); g.add_node("authentication", kind="stage")
    >>> _component_layout(g)
    {'kubectl': (-1.45, 3.0), 'authentication': (0.0, 3.0)}
    """
    kinds = {v: d.get("kind") for v, d in g.nodes(data=True)}
    of = {k: [v for v, kind in kinds.items() if kind == k] for k in ("client", "controller", "scheduler", "kubelet")}
    pos = {v: (-1.45, 3.0) for v in of["client"]}
    stages = [v for v in APISERVER_STAGES if v in kinds]
    pos.update({v: (i * 1.45, 3.0) for i, v in enumerate(stages)})
    last = (len(stages) - 1) * 1.45 if stages else 0.0
    if ETCD in kinds:
        pos[ETCD] = (last + 1.35, 3.0)
    if WATCH_CACHE in kinds:
        pos[WATCH_CACHE] = (last, 1.9)
    controllers, top, gap, x = of["controller"], 0.95, 0.36, -1.05
    for i, v in enumerate(controllers):
        col, row = divmod(i, _ROWS_PER_COLUMN)
        pos[v] = (x + col * 2.05, top - row * gap)
    if controllers:
        x += (math.ceil(len(controllers) / _ROWS_PER_COLUMN) - 1) * 2.05 + 1.25
    mid = top - (min(len(controllers), _ROWS_PER_COLUMN) - 1) * gap / 2 if controllers else top
    for v in of["scheduler"]:
        pos[v] = (x + 0.8, mid)
        x += 1.6
    k_rows = min(len(of["kubelet"]), _ROWS_PER_COLUMN - 2) or 1
    for i, v in enumerate(of["kubelet"]):
        col, row = divmod(i, k_rows)
        pos[v] = (x + 0.95 + col * 1.3, top - row * gap)
    return pos


def _hop_path(g: nx.DiGraph, a: str, b: str) -> list[str]:
    if not g.has_edge(a, b):
        try:
            return nx.shortest_path(g, a, b)
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            pass
    return [a, b]


def _label_spot(a: tuple, b: tuple, rad: float, w: float, h: float, placed: list[tuple]) -> tuple[float, float]:
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


def _draw_hops(g: nx.DiGraph, ax: Axes, pos: Mapping, hops: Sequence[Mapping[str, Any]]) -> set[str]:
    """The hops as numbered arrows along their paths (the last one in orange); returns the nodes they touched."""
    touched: set[str] = set()
    seg_steps: dict[tuple[str, str], list[int]] = {}
    current: set[tuple[str, str]] = set()
    for i, h in enumerate(hops):
        step = int(h.get("step", i + 1))
        path = _hop_path(g, h["from"], h["to"])
        touched.update(p for p in path if p in g)
        for j, seg in enumerate(zip(path, path[1:])):
            steps = seg_steps.setdefault(seg, [])
            if j == len(path) - 2 and step not in steps:  # number only where the hop arrives
                steps.append(step)
            if i == len(hops) - 1:
                current.add(seg)
    placed: list[tuple] = []  # hop-number labels drawn so far, as boxes
    for (u, v), steps in seg_steps.items():
        if u not in pos or v not in pos:
            continue
        colour = _NOW if (u, v) in current else _PAST
        rad = 0.12 if g.nodes[u].get("kind") == "stage" and g.nodes[v].get("kind") in ("stage", "store") else 0.18
        a, b = _clip(pos[u], _HALF[g.nodes[u]["kind"]], pos[v]), _clip(pos[v], _HALF[g.nodes[v]["kind"]], pos[u])
        _arrow(ax, a, b, colour, 2.6 if colour == _NOW else 1.6, rad=rad, zorder=4)
        if steps:
            text = ",".join(map(str, steps)) if len(steps) <= 3 else f"{steps[0]},…,{steps[-1]}"
            m = _label_spot(a, b, rad, _LABEL_W_PER_CHAR * len(text) + 0.16, 0.24, placed)
            ax.text(m[0], m[1], text, fontsize=7.5, fontweight="bold", ha="center", va="center", zorder=6,
                    color="white", bbox=dict(boxstyle="round,pad=0.18", fc=colour, ec="none"))
    return touched


def _hops_and_boxes(g: nx.DiGraph, ax: Axes, pos: Mapping, hops: Sequence[Mapping[str, Any]]) -> None:
    """The hops' arrows, the node boxes (over the arrows' ends; bold where touched), the legend: all of zorder >= 3."""
    hot = _draw_hops(g, ax, pos, hops)
    for v, d in g.nodes(data=True):
        kind, label = d.get("kind", "stage"), d.get("label", v)
        label = label.replace(" ", "\n") if kind == "stage" else label  # "mutating\nadmission": stages sit close
        size = 8.0 if kind not in ("controller", "kubelet") else (7.0 if len(label) <= 28 else 6.4)
        _box(ax, pos[v], _HALF[kind], label, *_COLOURS[kind], hot=v in hot,
             current=bool(hops) and v == hops[-1]["to"], size=size)
    if hops:
        last = hops[-1].get("step", len(hops))
        ax.legend(handles=[Patch(fc=_PAST, label="hops so far (numbered)"), Patch(fc=_NOW, label=f"hop {last}")],
                  loc="upper left", fontsize=8, frameon=False, ncol=2, bbox_to_anchor=(0.0, 0.0))


def component_figure(g: nx.DiGraph, highlight: Iterable[Any] | None = None, *, title: str | None = None) -> Figure:
    """The component graph on a new Figure sized to it, with a fixed layout; optionally the hops of a request.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`~kubenotes.sim.trace.component_graph`.
    highlight : iterable of dict, optional
        Hops (from :func:`~kubenotes.sim.trace.apply_hops`, each with ``from``, ``to`` and
        ``step``) are drawn as numbered arrows along their path in the graph,
        the last one in orange, earlier ones in blue; the nodes they touched
        get a bold border.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Not shown; a notebook cell displays it by ending with it. At most
        9.6 inches wide: it fits a 1,000 px column at 100 dpi.

    Raises
    ------
    KeyError
        When a graph node has no ``kind``, or one that is not drawn
        (``client``, ``stage``, ``store``, ``cache``, ``controller``,
        ``scheduler``, ``kubelet``); or when a hop has no ``from`` or ``to``.

    See Also
    --------
    kubenotes.sim.trace.component_graph, hops_figure

    Notes
    -----
    Fixed positions: ``kubectl`` and kube-apiserver's stages along the top,
    ``etcd`` at their right end and the watch cache under it; controllers in
    columns of up to 11 at the bottom left, then kube-scheduler, then the
    kubelets. Without highlights, the edges of the controllers and of the
    kubelets are drawn once per group (kube-controller-manager, the
    kubelets): every member has the same two edges (a write into
    authentication, a watch from the watch cache), and twenty parallel
    arrows would say nothing more.

    Examples
    --------
    >>> g = nx.DiGraph(); g.add_node("etcd", kind="store", group="etcd", label="etcd")
    >>> len(component_figure(g).axes)
    1
    >>> g.add_node("kubectl", kind="client", group="kubectl", label="kubectl")
    >>> g.add_edge("kubectl", "etcd", flow="write")
    >>> ax = component_figure(g, [{"step": 1, "from": "kubectl", "to": "etcd"}]).axes[0]
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['hops so far (numbered)', 'hop 1']
    """
    fig, ax, pos = _plain_graph(g, title)
    _hops_and_boxes(g, ax, pos, list(highlight or ()))
    return fig


def _plain_graph(g: nx.DiGraph, title: str | None) -> tuple[Figure, Axes, dict[str, tuple[float, float]]]:
    """:func:`component_figure` without hops and node boxes: the frames, the plain edges (all of zorder < 3)."""
    pos = _component_layout(g)
    xs, ys = [p[0] for p in pos.values()] or [0.0], [p[1] for p in pos.values()] or [0.0]
    width, height = max(xs) - min(xs) + 1.6, max(ys) - min(ys) + 1.2
    scale = min(1.05, _MAX_WIDTH_INCHES / width)
    fig = detached_figure(width * scale, height * scale + (0.5 if title else 0.2))
    ax = fig.add_axes((0.0, 0.03, 1.0, 0.92 if title else 0.96))
    # group frames, the plain edges (once per group: every controller and every kubelet has the same two)
    boxes = {group: _frame(ax, [(pos[v], _HALF[d["kind"]]) for v, d in g.nodes(data=True) if d.get("group") == group],
                           *_GROUPS[group], pad=0.12, top=0.3)
             for group in _GROUPS if any(d.get("group") == group for _, d in g.nodes(data=True))}

    def anchor(v: str) -> tuple[tuple, tuple]:  # a group's box stands for its controllers and kubelets
        box = boxes.get(g.nodes[v].get("group")) if g.nodes[v].get("kind") in ("controller", "kubelet") else None
        if box is None:
            return pos[v], _HALF[g.nodes[v]["kind"]]
        x0, y0, x1, y1 = box
        return ((x0 + x1) / 2, (y0 + y1) / 2), ((x1 - x0) / 2, (y1 - y0) / 2)

    drawn: set[tuple] = set()
    for u, v, d in g.edges(data=True):
        (cu, hu), (cv, hv) = anchor(u), anchor(v)
        if (cu, cv) not in drawn:
            drawn.add((cu, cv))
            _arrow(ax, _clip(cu, hu, cv), _clip(cv, hv, cu), _GREY, 0.9, label=d.get("flow", ""))
    frames = list(boxes.values())
    _finish(ax, (min(min(xs) - 0.6, min((b[0] for b in frames), default=0.0) - 0.1),
                 max(max(xs) + 0.6, max((b[2] for b in frames), default=0.0) + 0.1)),
            (min(min(ys) - 0.4, min((b[1] for b in frames), default=0.0) - 0.1), max(ys) + 0.55), title)
    return fig, ax, pos


def _png(fig: Figure, dpi: int = 80) -> bytes:
    """``fig`` saved as a PNG at ``dpi`` (no tight box), then closed; :mod:`kubenotes.viz.replay`'s too."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return buf.getvalue()


class _HopPictures:
    """``_png(hops_figure(g, hops, title=...), dpi)``, pixel for pixel, drawn on one Figure whose plain part is kept.

    Everything of zorder < 3 (the group frames, the plain edges and their
    labels) is the same in every picture: it is drawn once and its pixels
    kept. A picture puts them back and draws only the rest, as
    :func:`_hops_and_boxes` adds it, with the title, in the order a full
    draw would (by zorder, then as added). Whatever happens, the Axes is
    left as built; should that draw fail, the picture is drawn in full and
    the kept pixels rebuilt, so one bad draw never spoils the next.
    """

    def __init__(self, g: nx.DiGraph, dpi: int = 80):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.g, self.dpi = g, dpi
        self.figure, self.ax, self.pos = _plain_graph(g, " ")  # titled: a hop picture's size and Axes
        self.figure.set_dpi(dpi)
        self.canvas = FigureCanvasAgg(self.figure)
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(self.figure.bbox)

    def png(self, hops: Sequence[Mapping[str, Any]], title: str) -> bytes:
        """The picture of ``hops`` (the last one current) titled ``title``, as PNG bytes."""
        ax, before = self.ax, set(self.ax.get_children())
        try:
            _hops_and_boxes(self.g, ax, self.pos, hops)
            ax.title.set_text(title)
            self.canvas.restore_region(self.background)
            renderer = self.canvas.get_renderer()
            for a in sorted((a for a in ax.get_children() if a not in before or a is ax.title), key=Artist.get_zorder):
                a.draw(renderer)
            buf = io.BytesIO()
            imsave(buf, self.canvas.buffer_rgba(), format="png", dpi=self.dpi, pil_kwargs={"compress_level": 1})
            return buf.getvalue()  # zlib level 1: a third faster than savefig's 6, the same pixels
        except Exception:
            self.__init__(self.g, self.dpi)
            return _png(hops_figure(self.g, hops, title=title), self.dpi)
        finally:  # the hop artists go (the legend's removal unsets it), the title is blank again
            for a in ax.get_children():
                if a not in before:
                    a.remove()
            ax.title.set_text(" ")


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
    shown = [h for h in hops if current is None or int(h["step"]) <= current][-(window or len(hops) + 1):]
    rows = []
    for h in shown:
        css = "background:#fff3e0;font-weight:bold" if current is not None and int(h["step"]) == current else ""
        rows.append([(_e(x), css) for x in (h["step"], f"{h['time']:g}", h["from"], h["to"], h["what"])])
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
    component_figure, apply_panel

    Examples
    --------
    >>> g = nx.DiGraph(); g.add_node("kubectl", kind="client", group="kubectl", label="kubectl")
    >>> hops_figure(g, []).axes[0].get_title()
    ''
    """
    return component_figure(g, list(hops[:len(hops) if upto is None else upto]), title=title)


def apply_panel(g: nx.DiGraph, hops: Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Mapping[str, Any]]], *,
                start: int = 1) -> Any:
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

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`. Each picture is
        :func:`hops_figure` as an 80 dpi PNG (drawn incrementally: only what the
        hops change), with the last six hops under it (:func:`hops_table`), kept per
        control values (:func:`kubenotes.viz.widgets.memoise_update`), so moving back to a
        hop seen shows it again at once. Its title gives the hop's step number first: the model
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

    from kubenotes.viz.widgets import int_slider, live_panel, memoise_update, png_display

    runs = {str(k): list(v) for k, v in hops.items()} if isinstance(hops, Mapping) else {"": list(hops)}
    first = next(iter(runs))
    pictures = _HopPictures(g)

    def update(hop: int, applied: str = first) -> list:
        run = runs[applied]
        k = max(1, min(hop, len(run)))
        h = run[k - 1]
        label = (f"{applied + ': ' if applied else ''}step {k} of {len(run)}, {h['from']} -> {h['to']} "
                 f"(virtual t={h['time']:g} s)")
        return [png_display(pictures.png(run[:k], label)), hops_table(run, current=k, window=6)]

    n, memo = len(runs[first]), memoise_update(update, maxsize=sum(map(len, runs.values())))
    slider = int_slider("hop", max(1, min(start, n)), 1, max(1, n), layout=widgets.Layout(width="520px"))
    if len(runs) == 1:
        return live_panel(memo, {"hop": slider}, columns=1)
    menu = widgets.Dropdown(options=list(runs), value=first, description="applied",
                            layout=widgets.Layout(width="300px"))
    # Registered before live_panel's own observer: the slider's range follows the run before the redraw.
    menu.observe(lambda change: setattr(slider, "max", max(1, len(runs[change["new"]]))), names="value")
    return live_panel(memo, {"applied": menu, "hop": slider}, columns=2)


# ---------------------------------------------------------------------------
# inside one informer: client-go's List-Watch machinery

# Fixed positions and box labels of the nodes of :func:`~kubenotes.client.components.informer_graph`.
_INFORMER_POS: dict[str, tuple[float, float]] = {
    "kube-apiserver": (0.0, 0.8), "Reflector": (2.5, 2.0), "DeltaFIFO": (5.0, 2.0), "Indexer": (7.5, 2.0),
    "event handlers": (5.0, 1.0), "Lister": (7.5, 1.0), "workqueue": (5.0, -0.4), "Reconcile": (2.5, -0.4)}
_INFORMER_LABEL = {"event handlers": "event handlers\nOnAdd / OnUpdate / OnDelete",
                   "Indexer": "Indexer\n(the local cache)", "Reconcile": "worker: Reconcile(key)",
                   "workqueue": "workqueue\n(rate-limited)", "kube-apiserver": "kube-apiserver\n(watch cache)"}
#: Per node kind: fill, edge colour, and the title of its frame (None: no frame).
_INFORMER_KINDS = {"server": ("#e3f2fd", "#1565c0", None),
                   "informer": ("#ffffff", "#1565c0", "shared informer (one per resource per process)"),
                   "controller": ("#fff8e1", "#f9a825", "controller")}


def informer_figure(highlight: Iterable[str] = (), *, title: str | None = None) -> Figure:
    """client-go's List-Watch machinery (:func:`~kubenotes.client.components.informer_graph`) on a new Figure.

    The nodes have fixed positions: the API server at the left, the shared
    informer's Reflector, DeltaFIFO and Indexer along the top, the
    controller's workqueue and worker at the bottom. The ``highlight``
    nodes and the edges between them are drawn in orange.

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
    kubenotes.client.components.informer_graph

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go
    https://github.com/kubernetes/sample-controller/blob/master/docs/controller-client-go.md

    Examples
    --------
    >>> len(informer_figure(["Reflector"]).axes)
    1
    """
    g, hot, half, pos = informer_graph(), set(highlight), (0.85, 0.28), _INFORMER_POS
    fig = detached_figure(9.4, 4.9 if title else 4.6)
    ax = fig.add_axes((0.0, 0.0, 1.0, 0.93 if title else 1.0))
    for kind, (_fc, colour, label) in _INFORMER_KINDS.items():
        if label:
            _frame(ax, [(pos[v], half) for v, d in g.nodes(data=True) if d["kind"] == kind], label, colour,
                   pad=0.15, top=0.4)
    for u, v, d in g.edges(data=True):
        on = u in hot and v in hot
        _arrow(ax, _clip(pos[u], half, pos[v]), _clip(pos[v], half, pos[u]), _NOW if on else "#757575",
               2.4 if on else 1.0, rad=-0.85 if (u, v) == ("Lister", "Reconcile") else 0.0, label=d["flow"],
               label_colour=_NOW if on else "#424242", size=7)
    for v, d in g.nodes(data=True):
        fc, ec, _ = _INFORMER_KINDS[d["kind"]]
        _box(ax, pos[v], half, _INFORMER_LABEL.get(v, v), fc, ec, hot=v in hot, current=v in hot, lw=1.0)
    xs, ys = [pos[v][0] for v in g], [pos[v][1] for v in g]
    _finish(ax, (min(xs) - 1.2, max(xs) + 1.3), (min(ys) - 1.15, max(ys) + 0.75), title)
    return fig


# ---------------------------------------------------------------------------
# List-Watch tables


def _what(obj: Mapping[str, Any]) -> str:
    """A few words on the fields a chapter watches change (phase, node, replicas, data)."""
    spec, st, md = obj.get("spec") or {}, obj.get("status") or {}, obj.get("metadata") or {}
    if obj.get("kind") == "Pod":
        ready = (pod_ready_condition(obj) or {}).get("status")
        parts = [spec.get("nodeName") and f"nodeName={spec['nodeName']}", st.get("phase") and f"phase={st['phase']}",
                 ready and f"Ready={ready}", md.get("deletionTimestamp") and "terminating"]
    elif "replicas" in spec:
        parts = [f"spec.replicas={spec['replicas']}", ("readyReplicas" in st or "replicas" in st)
                 and f"status.replicas={st.get('replicas', 0)} ready={st.get('readyReplicas', 0)}"]
    else:
        data = sorted((obj.get("data") or {}).items())
        parts = [obj.get("kind") == "ConfigMap" and ", ".join(f"{k}={v}" for k, v in data)]
    return " ".join(p for p in parts if p)


def watch_stream_table(events: Iterable[Any]) -> Html:
    """A watch stream, one row per event: type, object, resourceVersion, and what it says.

    Parameters
    ----------
    events : iterable of WatchEvent
        What :meth:`Watch.pop_all` returned.

    Returns
    -------
    Html
        Columns ``type``, ``kind``, ``namespace/name``, ``resourceVersion``,
        ``what`` (for Pods: ``nodeName``, ``phase``, ``Ready``; for workloads:
        replicas; for ConfigMaps: data).

    Raises
    ------
    AttributeError
        When an event is not a WatchEvent (it has no ``type``), or its
        object is not a mapping.

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
        t, obj = ev.type, ev.object
        md = obj.get("metadata") or {}
        name = f"{md['namespace']}/{md.get('name', '')}" if md.get("namespace") else md.get("name", "")
        rows.append([_b(t, colour.get(t, "#000")), _e(obj.get("kind", "")), _e(name),
                     (_e(md.get("resourceVersion", "")), _RIGHT), _e(_what(obj))])
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
    rows = []
    for s in trace_record.get("steps", ()):
        auth = s["step"] == "authorization"
        css = f"color:{_RED}" if s["step"] == "response" or (auth and not s["detail"].startswith("Allow")) else ""
        detail = s["detail"].removesuffix(": ") if auth else s["detail"]
        rows.append([(f"<b>{_e(s['step'])}</b>", css), (_e(detail), css)])
    caption = (f"t={trace_record.get('time', 0.0):g} s  {trace_record.get('user', '')}: "
               f"{verb_text(trace_record)} -> {trace_record.get('code', 200)}")
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
    yes, no = _b("✓", _GREEN), f'<span style="color:{_RED}">✗</span>'
    rows = [[f"<code>{_e(res)}</code>", *((yes if ok else no, "text-align:center") for ok in allowed.values())]
            for res, allowed in can_i_matrix(authorizer, user, resources, namespace, verbs).items()]
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
    colour = {"LIST": _GREEN, "WATCH": "#1565c0", "WATCH 410 Gone": _RED}
    rows = [[(_e(f"{t:g}"), _RIGHT), _b(action, colour.get(action, _GREY)), _e(detail)]
            for t, action, detail in getattr(reflector, "log", reflector)]
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
    rows = [[_e(r["key"]), (_e(r["cache_resource_version"] or "-"), _RIGHT),
             (_e(r["store_resource_version"] or "-"), _RIGHT), _b(r["verdict"], colour[r["verdict"]])]
            for r in compare_cache_with_store(informer, server, resource, namespace, label_selector=label_selector)]
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
    tail = f"Store revision {result['revision']}; cache has cm-0 data {_e(result['cache'])}."
    return Html(f'<div style="margin:4px 0">{head}<br>{tail}</div>' + reflector_log_table(result["log"]))


def outage_panel(writes_while_down: int = 3, history_capacity: int = 8) -> Any:
    """The chapter's widget: writes while the watch is down and the history capacity -> resume or relist.

    Parameters
    ----------
    writes_while_down, history_capacity : int
        The sliders' starting values.

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
        raise: the sliders clamp them (writes to ``[0, 20]``, capacity
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

    from kubenotes.viz.widgets import int_slider, live_panel, memoise_update

    def update(writes_while_down: int, history_capacity: int) -> Html:
        return outage_table(watch_outage(writes_while_down, history_capacity))

    style, layout = {"description_width": "130px"}, widgets.Layout(width="440px")
    return live_panel(memoise_update(update), {
        "writes_while_down": int_slider("writes while down", writes_while_down, 0, 20, style=style,
                                        layout=layout),
        "history_capacity": int_slider("history capacity", history_capacity, 1, 30, style=style, layout=layout)})
