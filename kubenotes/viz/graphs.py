"""Cluster topology as a networkx graph: zones -> nodes -> pods, drawn with a fixed layout.

The graph is built from the same lightkube ``Node`` and ``Pod`` objects the
scheduler reads, and labelled with upstream names: the zone is the value of
the well-known label ``topology.kubernetes.io/zone``, a node shows its name and
taints (``key=value:Effect``), a pod shows ``namespace/name`` and its
``spec.priority``. A chapter can highlight the scheduler's choice (the
*winner* node) and the pods preemption would evict (the *victims*).

There is no upstream counterpart: this is what ``kubectl get nodes -L
topology.kubernetes.io/zone`` and ``kubectl get pods -o wide`` show, as a
picture.

References
----------
https://kubernetes.io/docs/reference/labels-annotations-taints/#topologykubernetesiozone
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/well_known_labels.go
"""

from __future__ import annotations

import io
import re
import struct
from collections import Counter
from typing import Any, Iterable

import matplotlib.pyplot as plt
import networkx as nx
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from kubenotes.api.taints import taint_string
from kubenotes.viz.html import namespaced_name

__all__ = ["ZONE_LABEL", "NO_ZONE", "topology_graph", "topology_figure", "detached_figure", "MAX_INLINE_WIDTH_PX",
           "inline_png_size"]

#: Well-known node label naming the node's zone (``v1.LabelTopologyZone``).
ZONE_LABEL = "topology.kubernetes.io/zone"
#: Zone shown for nodes without the zone label.
NO_ZONE = "(no zone)"


def detached_figure(width_inches: float, height_inches: float) -> Figure:
    """A new Figure that a notebook shows exactly once: when a cell returns it.

    The figure is created through pyplot (which makes Jupyter's inline backend
    register its PNG formatter) and closed at once, so the backend does not
    also show it at the end of the cell.

    Parameters
    ----------
    width_inches, height_inches : float

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = detached_figure(4, 3)
    >>> fig.get_size_inches().tolist(), plt.fignum_exists(fig.number)
    ([4.0, 3.0], False)
    """
    fig = plt.figure(figsize=(width_inches, height_inches))
    plt.close(fig)
    return fig


#: Widest natural width, in pixels, of a chapter's figure as the inline backend shows it: JupyterLab at
#: 1440x900 with the file browser open leaves an output column about 1,000 px wide, and a wider PNG is shrunk.
MAX_INLINE_WIDTH_PX = 1000
_MAX_WIDTH_INCHES = 9.6


def inline_png_size(fig: Figure) -> tuple[int, int]:
    """Width and height, in pixels, of the PNG Jupyter's inline backend shows for ``fig``.

    The inline backend prints a figure at its own dpi (:rc:`figure.dpi`, 100)
    with ``bbox_inches="tight"``: the size is that of the drawn content plus
    :rc:`savefig.pad_inches`, not the figure's nominal size.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    tuple[int, int]
        ``(width_px, height_px)``.

    See Also
    --------
    MAX_INLINE_WIDTH_PX

    Examples
    --------
    >>> fig = detached_figure(4, 3)
    >>> _ = fig.add_subplot().plot([0, 1], [0, 1])
    >>> w, h = inline_png_size(fig)
    >>> w <= 400 and h <= 300
    True
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, bbox_inches="tight")
    return struct.unpack(">II", buf.getvalue()[16:24])  # the PNG header's IHDR width and height


def topology_graph(nodes: Iterable[Any], pods: Iterable[Any] = ()) -> nx.DiGraph:
    """Build the directed graph zone -> node -> pod of a cluster.

    Parameters
    ----------
    nodes : iterable of lightkube Node
        Each node's zone is its ``topology.kubernetes.io/zone`` label (:data:`NO_ZONE` without it).
    pods : iterable of lightkube Pod
        Pods with ``spec.nodeName`` become children of that node; pods whose
        node is not in ``nodes`` and pending pods are left out.

    Returns
    -------
    networkx.DiGraph
        Graph nodes are ids ``zone/<zone>``, ``node/<name>`` and
        ``pod/<namespace>/<name>``, each with attributes ``kind`` ("zone",
        "node" or "pod") and ``name`` (upstream name; ``namespace/name`` for
        pods). Node entries also carry ``zone`` and ``taints`` (list of
        ``key=value:Effect``); pod entries ``node`` and ``priority`` (int).
        Insertion order is sorted (zones, nodes by name, pods by priority
        descending then name), so the graph is deterministic.

    Raises
    ------
    AttributeError
        When an item of ``nodes``/``pods`` is not a Node/Pod-like object.

    See Also
    --------
    topology_figure

    Notes
    -----
    Only the fields the scheduling chapters talk about are kept.

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> g = topology_graph([make_node("n1", labels={ZONE_LABEL: "a"})],
    ...                    [make_pod("web", node_name="n1", priority=10), make_pod("pending")])
    >>> list(g.edges())
    [('zone/a', 'node/n1'), ('node/n1', 'pod/default/web')]
    >>> g.nodes["pod/default/web"]["priority"]
    10
    """
    g = nx.DiGraph()
    zone_of = {n.metadata.name: (n.metadata.labels or {}).get(ZONE_LABEL, NO_ZONE) for n in nodes}
    for n in sorted(nodes, key=lambda n: (zone_of[n.metadata.name], n.metadata.name)):
        name, zone = n.metadata.name, zone_of[n.metadata.name]
        g.add_node(f"zone/{zone}", kind="zone", name=zone)
        taints = [taint_string(t) for t in (n.spec.taints if n.spec is not None else None) or ()]
        g.add_node(f"node/{name}", kind="node", name=name, zone=zone, taints=taints)
        g.add_edge(f"zone/{zone}", f"node/{name}")
    bound = [p for p in pods if p.spec is not None and p.spec.nodeName in zone_of]
    for p in sorted(bound, key=lambda p: (p.spec.nodeName, -int(p.spec.priority or 0), namespaced_name(p))):
        key = namespaced_name(p)
        g.add_node(f"pod/{key}", kind="pod", name=key, node=p.spec.nodeName, priority=int(p.spec.priority or 0))
        g.add_edge(f"node/{p.spec.nodeName}", f"pod/{key}")
    return g


# How each box is drawn: face colour, edge colour, line width, font size (node, pod and summary fonts are set
# half a point smaller in narrow columns), weight. The legend shows the first four (line width at most 2).
_STYLES = {
    "tainted": ("#ffffff", "#ef6c00", 2.5, 8, "normal"),
    "winner": ("#c8e6c9", "#2e7d32", 2.5, 8, "bold"),
    "victim": ("#ffcdd2", "#c62828", 2.0, 7.5, "bold"),
    "zone": ("#e8eaf6", "#5c6bc0", 1.0, 9, "bold"),
    "node": ("#ffffff", "#424242", 1.0, 8, "normal"),
    "pod": ("#e3f2fd", "#90caf9", 0.8, 7.5, "normal"),
    "summary": ("#f5f5f5", "#bdbdbd", 1.0, 7, "normal"),
    "pending": ("#fff8e1", "#f9a825", 1.5, 8, "bold"),
}
_FOLDED = "kube-system"  # namespace whose pods become one "+N kube-system pods" box per node
_POD_GAP = 0.55  # layout units between stacked pods


def _wrap(text: str, width: int, after: str) -> str:
    """Break ``text`` after the ``after`` lookbehind (e.g. '/' or '-') so each line fits ``width`` characters."""
    lines, cur = [], ""
    for part in re.split(after, text):
        if cur and len(cur) + len(part) > width:
            lines.append(cur)
            cur = ""
        cur += part
    return "\n".join(lines + [cur])


def _pod_boxes(g: nx.DiGraph, nid: str, victims: set[str], cap: int, width: int) -> list[tuple[str, str]]:
    """``(label, style)`` of the boxes under node ``nid``: victims, then pods up to ``cap``, then the summaries."""
    names = [g.nodes[k]["name"] for k in g.successors(nid)]
    folded = [n for n in names if n.startswith(f"{_FOLDED}/") and n not in victims]
    rest = [n for n in names if n not in folded]
    keep = [n for n in rest if n in victims]
    keep += [n for n in rest if n not in victims][: max(0, cap - len(keep))]
    boxes = []
    for n in (n for n in rest if n in keep):  # in the graph's order: priority descending
        ns, _, name = n.partition("/")
        where = f"{ns} · prio {g.nodes['pod/' + n]['priority']}"
        where = where if len(where) <= width else where.replace(" · ", "\n")
        boxes.append((_wrap(name, width, r"(?<=-)") + "\n" + where, "victim" if n in victims else "pod"))
    if folded:
        text = f"+{len(folded)} {_FOLDED} pod{'s' if len(folded) > 1 else ''}"
        boxes.append((_wrap(text, width, r"(?<= )"), "summary"))
    return boxes + ([(f"+{len(rest) - len(keep)} more", "summary")] if len(rest) > len(keep) else [])


def _draw(g: nx.DiGraph, ax: Axes, winner: str | None, victims: Iterable[str], incoming: str | None,
          cap: int, winner_label: str, width: int) -> None:
    """Lay out and draw ``g`` on ``ax``: one column per node grouped by zone, pods stacked under their node."""
    victims = set(victims)
    if winner is not None and f"node/{winner}" not in g:
        raise KeyError(f"winner {winner!r} is not a node of the graph")
    boxes: dict[str, tuple[tuple[float, float], str, str]] = {}  # id -> position, label, style
    edges, x = [], 0.0
    for zone in (v for v, d in g.nodes(data=True) if d["kind"] == "zone"):
        x += 0.5 if boxes else 0.0  # half a column between zones
        x0 = x
        for nid in g.successors(zone):
            d = g.nodes[nid]
            style = "winner" if d["name"] == winner else "tainted" if d["taints"] else "node"
            label = "\n".join([d["name"]] + [_wrap(f"taint {t}", width, r"(?<=[/=:.])") for t in d["taints"]])
            boxes[nid], y, prev = ((x, 1.0), label, style), 0.0, None
            edges.append((zone, nid))
            for i, (text, style) in enumerate(_pod_boxes(g, nid, victims, cap, width)):
                size = max(1.0, 0.5 + 0.25 * text.count("\n")) if style != "summary" else 1.0  # taller boxes: more room
                y -= 0.0 if prev is None else _POD_GAP * (prev + size) / 2
                boxes[f"{nid}#{i}"], prev = ((x, y), text, style), size
                edges.append((nid, f"{nid}#{i}"))
            x += 1.0
        label = f"zone {g.nodes[zone]['name']}" if zone != f"zone/{NO_ZONE}" else NO_ZONE
        boxes[zone] = (((x0 + x - 1.0) / 2, 2.0), label, "zone")
    xs = [xy[0] for xy, _, _ in boxes.values()]
    if incoming is not None:
        target = boxes[f"node/{winner}"][0] if winner is not None else None
        ixy = (target[0] if target else (max(xs) + min(xs)) / 2, 2.9)
        boxes["incoming"] = (ixy, f"pending pod\n{incoming}", "pending")
        if target:
            ax.annotate("", xy=(target[0], 1.22), xytext=(target[0], 2.7), zorder=1,
                        arrowprops=dict(arrowstyle="-|>", color=_STYLES["winner"][1], lw=1.8, ls="--"))
    pos = {k: xy for k, (xy, _, _) in boxes.items()}
    nx.draw_networkx_edges(nx.DiGraph(edges), pos, ax=ax, edge_color="#9e9e9e", arrows=False, width=0.8)
    for k, ((bx, by), text, style) in boxes.items():
        fc, ec, lw, size, weight = _STYLES[style]
        size -= 0.5 if width < 20 and style not in ("zone", "pending") else 0.0
        ax.text(bx, by, text, ha="center", va="center", fontsize=size, fontweight=weight, zorder=3,
                bbox=dict(boxstyle="round,pad=0.3", fc=fc, ec=ec, lw=lw, ls="--" if style == "pending" else "-"))
    ax.set_xlim(min(xs) - 0.65, max(xs) + 0.65)
    ax.set_ylim(min([y for _, y in pos.values()] + [0.0]) - 0.45, (2.9 if incoming is not None else 2.0) + 0.45)
    ax.axis("off")
    legend = {"tainted": "tainted node", "winner": f"{winner_label}: {winner}" if winner is not None else None,
              "victim": "victim (evicted by preemption)" if victims else None,
              "zone": f"zone = node label {ZONE_LABEL}"}
    handles = [Patch(fc=fc, ec=ec, lw=min(lw, 2), label=legend[s])
               for s, (fc, ec, lw, _, _) in _STYLES.items() if legend.get(s)]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), fontsize=8.5, frameon=False,
              ncol=len(handles) if width >= 20 else min(2, len(handles)))


def topology_figure(g: nx.DiGraph, *, winner: str | None = None, victims: Iterable[str] = (),
                    incoming: str | None = None, title: str | None = None, max_pods_per_node: int = 8,
                    winner_label: str = "chosen node") -> Figure:
    """Draw a topology graph with a fixed layout, sized to the cluster, highlighting the winner and victims.

    One column per node, grouped by zone (zones on top, nodes below, pods
    stacked under their node, highest priority first); the same graph always
    gets the same positions (no randomness, no force simulation).

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`topology_graph`.
    winner : str, optional
        Name of the node the scheduler chose (or nominated); drawn green.
    victims : iterable of str
        Pods preemption evicts, as ``namespace/name``; drawn red.
    incoming : str, optional
        The pod being scheduled, ``namespace/name``; drawn above the nodes
        with a dashed arrow to ``winner`` (or alone when there is none).
    title : str, optional
    max_pods_per_node : int
        Pods drawn per node before a ``+N more`` box (victims are always
        drawn). ``kube-system`` pods are folded into one ``+N kube-system
        pods`` box per node (victims are never folded).
    winner_label : str
        Legend text for the winner, e.g. ``"nominatedNodeName"`` after preemption.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes; not shown, a notebook cell displays it by ending with it.
        Columns are 1.45 inch wide, narrower (with labels wrapped after
        ``-``, ``/``, ``=``... and set a little smaller) when the cluster
        would be wider than a 1,000 px output column.

    Raises
    ------
    KeyError
        When ``winner`` is not a node of ``g``.

    See Also
    --------
    topology_graph

    Notes
    -----
    Tainted nodes get an orange border and list their taints; a taint matters
    to ``TaintToleration`` only for the ``NoSchedule``/``NoExecute`` effects.

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> g = topology_graph([make_node("n1"), make_node("n2")], [make_pod("a", node_name="n2")])
    >>> fig = topology_figure(g, winner="n2", victims=["default/a"])
    >>> len(fig.axes), [t.get_text() for t in fig.axes[0].get_legend().get_texts()][1]
    (1, 'chosen node: n2')
    """
    kinds = Counter(d["kind"] for _, d in g.nodes(data=True))
    # Columns of 1.45 inch, but never wider than a 1,000 px output column at 100 dpi (MAX_INLINE_WIDTH_PX):
    # a larger cluster gets narrower columns and labels wrapped to fit them.
    units = max(kinds["node"] - 1, 0) + 0.5 * max(kinds["zone"] - 1, 0) + 1.3
    width = min(max(6.0, 1.45 * kinds["node"] + 1.0), _MAX_WIDTH_INCHES)
    label_width = 20 if width / units >= 1.3 else max(10, int(width / units * 17))
    fig = detached_figure(width, 4.0)
    ax = fig.add_axes((0, 0, 1, 1))
    _draw(g, ax, winner, victims, incoming, max_pods_per_node, winner_label, label_width)
    if title:
        ax.set_title(title, fontsize=10)
    # One layout unit is about 0.95 inch tall; leave room for the title and the legend below.
    lo, hi = ax.get_ylim()
    top_in, bottom_in = (0.35 if title else 0.05), (0.4 if label_width >= 20 else 0.6)
    height = 0.95 * (hi - lo) + top_in + bottom_in
    fig.set_size_inches(width, height)
    ax.set_position((0.01, bottom_in / height, 0.98, 1 - (top_in + bottom_in) / height))
    return fig
