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

import re
from typing import Any, Iterable

import matplotlib.pyplot as plt
import networkx as nx
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from kubenotes.api.taints import taint_string
from kubenotes.viz.html import namespaced_name

__all__ = [
    "ZONE_LABEL",
    "NO_ZONE",
    "topology_graph",
    "topology_layout",
    "draw_topology",
    "topology_figure",
    "detached_figure",
    "MAX_INLINE_WIDTH_PX",
    "inline_png_size",
]

#: Well-known node label naming the node's zone (``v1.LabelTopologyZone``).
ZONE_LABEL = "topology.kubernetes.io/zone"
#: Zone shown for nodes without the zone label.
NO_ZONE = "(no zone)"

# Colours: calm defaults, one strong colour per highlight.
_ZONE_FC = "#e8eaf6"
_NODE_FC = "#ffffff"
_TAINTED_EC = "#ef6c00"
_POD_FC = "#e3f2fd"
_PENDING_FC = "#fff8e1"
_WINNER_FC = "#c8e6c9"
_WINNER_EC = "#2e7d32"
_VICTIM_FC = "#ffcdd2"
_VICTIM_EC = "#c62828"
_EDGE = "#9e9e9e"


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
    import io
    import struct

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, bbox_inches="tight")
    width, height = struct.unpack(">II", buf.getvalue()[16:24])
    return width, height


def _zone_id(zone: str) -> str:
    return f"zone/{zone}"


def _node_id(name: str) -> str:
    return f"node/{name}"


def _pod_id(key: str) -> str:
    return f"pod/{key}"



def topology_graph(nodes: Iterable[Any], pods: Iterable[Any] = (), *, zone_label: str = ZONE_LABEL) -> nx.DiGraph:
    """Build the directed graph zone -> node -> pod of a cluster.

    Parameters
    ----------
    nodes : iterable of lightkube Node
    pods : iterable of lightkube Pod
        Pods with ``spec.nodeName`` become children of that node; pods whose
        node is not in ``nodes`` and pending pods are left out.
    zone_label : str
        Node label holding the zone (default ``topology.kubernetes.io/zone``).

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
    topology_layout, draw_topology

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
    by_zone: dict[str, list[Any]] = {}
    for n in nodes:
        labels = n.metadata.labels or {}
        by_zone.setdefault(labels.get(zone_label, NO_ZONE), []).append(n)
    node_names: set[str] = set()
    for zone in sorted(by_zone):
        g.add_node(_zone_id(zone), kind="zone", name=zone)
        for n in sorted(by_zone[zone], key=lambda n: n.metadata.name):
            name = n.metadata.name
            node_names.add(name)
            taints = [taint_string(t) for t in (n.spec.taints if n.spec is not None else None) or ()]
            g.add_node(_node_id(name), kind="node", name=name, zone=zone, taints=taints)
            g.add_edge(_zone_id(zone), _node_id(name))
    bound = [p for p in pods if p.spec is not None and p.spec.nodeName in node_names]
    bound.sort(key=lambda p: (p.spec.nodeName, -int(p.spec.priority or 0), namespaced_name(p)))
    for p in bound:
        key = namespaced_name(p)
        g.add_node(_pod_id(key), kind="pod", name=key, node=p.spec.nodeName, priority=int(p.spec.priority or 0))
        g.add_edge(_node_id(p.spec.nodeName), _pod_id(key))
    return g


def topology_layout(g: nx.DiGraph, *, node_gap: float = 1.0, pod_gap: float = 0.42,
                    sizes: dict[str, float] | None = None) -> dict[str, tuple[float, float]]:
    """Fixed positions: one column per node grouped by zone, pods stacked under their node.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`topology_graph`.
    node_gap : float
        Horizontal distance between neighbouring nodes (a zone boundary adds half a gap).
    pod_gap : float
        Vertical distance between pods of one node.
    sizes : dict[str, float], optional
        Pod id -> height in units of ``pod_gap`` (default 1): a taller box
        pushes the pods below it further down.

    Returns
    -------
    dict[str, tuple[float, float]]
        Graph node id -> ``(x, y)``. Zones at ``y = 2``, nodes at ``y = 1``,
        pods from ``y = 0`` downwards. The same graph always gets the same
        positions (no randomness, no force simulation).

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> g = topology_graph([make_node("n1"), make_node("n2")], [make_pod("a", node_name="n2")])
    >>> topology_layout(g)["node/n2"], topology_layout(g)["pod/default/a"]
    ((1.0, 1.0), (1.0, 0.0))
    """
    pos: dict[str, tuple[float, float]] = {}
    x = 0.0
    zones = [v for v, d in g.nodes(data=True) if d["kind"] == "zone"]
    for i, z in enumerate(zones):
        if i:
            x += node_gap * 0.5
        xs = []
        for nid in g.successors(z):
            pos[nid] = (x, 1.0)
            xs.append(x)
            y, prev = 0.0, None
            for pid in g.successors(nid):
                if prev is not None:
                    y -= pod_gap * ((sizes or {}).get(prev, 1.0) + (sizes or {}).get(pid, 1.0)) / 2
                pos[pid] = (x, y)
                prev = pid
            x += node_gap
        pos[z] = ((min(xs) + max(xs)) / 2 if xs else x, 2.0)
        if not xs:
            x += node_gap
    return pos


def _wrap(text: str, width: int = 22, after: str = r"(?<=[/=])") -> list[str]:
    """Split a long label after '/' or '=' (or the ``after`` lookbehind) so it fits a node column."""
    lines, cur = [], ""
    for part in re.split(after, text):
        if cur and len(cur) + len(part) > width:
            lines.append(cur)
            cur = ""
        cur += part
    return lines + [cur]


def _short_node_label(d: dict, width: int = 20) -> str:
    lines = [d["name"]]
    for t in d["taints"]:
        lines += _wrap(f"taint {t}", width, r"(?<=[/=:.])")
    return "\n".join(lines)


def _short_pod_label(d: dict, width: int = 20) -> str:
    ns, _, name = d["name"].partition("/")
    where = f"{ns} · prio {d['priority']}"
    return "\n".join(_wrap(name, width, r"(?<=-)") + ([where] if len(where) <= width else [ns, f"prio {d['priority']}"]))


def _box(ax: Axes, xy: tuple[float, float], text: str, fc: str, ec: str, lw: float = 1.0,
         fontsize: float = 7.5, weight: str = "normal", ls: str = "-") -> None:
    ax.text(*xy, text, ha="center", va="center", fontsize=fontsize, fontweight=weight, zorder=3,
            bbox=dict(boxstyle="round,pad=0.3", fc=fc, ec=ec, lw=lw, ls=ls))


def draw_topology(
    g: nx.DiGraph,
    ax: Axes,
    *,
    winner: str | None = None,
    victims: Iterable[str] = (),
    incoming: str | None = None,
    title: str | None = None,
    max_pods_per_node: int = 8,
    winner_label: str = "chosen node",
    collapse: Iterable[str] = ("kube-system",),
    pod_gap: float = 0.55,
    label_width: int = 20,
) -> Axes:
    """Draw a topology graph on ``ax`` with a fixed layout, highlighting the winner and victims.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`topology_graph`.
    ax : matplotlib.axes.Axes
        Where to draw (cleared first).
    winner : str, optional
        Name of the node the scheduler chose (or nominated); drawn green.
    victims : iterable of str
        Pods preemption evicts, as ``namespace/name``; drawn red.
    incoming : str, optional
        The pod being scheduled, ``namespace/name``; drawn above the nodes
        with a dashed arrow to ``winner`` (or alone when there is none).
    title : str, optional
    max_pods_per_node : int
        Pods drawn per node before a ``+N more`` box (victims are always drawn).
    winner_label : str
        Legend text for the winner, e.g. ``"nominatedNodeName"`` after preemption.
    collapse : iterable of str
        Namespaces whose pods are folded into one ``+N <namespace> pods`` box
        per node (victims are never folded). Default: ``kube-system``.
    pod_gap : float
        Vertical distance between stacked pods, in layout units.
    label_width : int
        Characters per line of a pod's or a taint's label (longer names wrap
        after ``-``, ``/``, ``=``...); below 20 the labels are also set a
        little smaller, for narrow node columns.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    Raises
    ------
    KeyError
        When ``winner`` is not a node of ``g``.

    See Also
    --------
    topology_graph, topology_layout

    Notes
    -----
    Tainted nodes get an orange border and list their taints; a taint matters
    to ``TaintToleration`` only for the ``NoSchedule``/``NoExecute`` effects.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> g = topology_graph([make_node("n1")], [make_pod("a", node_name="n1")])
    >>> ax = Figure().add_subplot()
    >>> draw_topology(g, ax, winner="n1", victims=["default/a"]) is ax
    True
    """
    victims = set(victims)
    collapse = tuple(collapse)
    if winner is not None and _node_id(winner) not in g:
        raise KeyError(f"winner {winner!r} is not a node of the graph")
    ax.clear()
    # Drop pods beyond the per-node cap (keeping victims), replaced by one "+N more" entry.
    shown = g.copy()
    for nid, d in g.nodes(data=True):
        if d["kind"] != "node":
            continue
        kids = list(g.successors(nid))
        folded = [k for k in kids if g.nodes[k]["name"].split("/", 1)[0] in collapse and g.nodes[k]["name"] not in victims]
        rest = [k for k in kids if k not in folded]
        keep = [k for k in rest if g.nodes[k]["name"] in victims]
        keep += [k for k in rest if k not in keep][: max(0, max_pods_per_node - len(keep))]
        keep_set = set(keep)
        dropped = [k for k in rest if k not in keep_set]
        shown.remove_nodes_from(folded + dropped)
        # Re-add kept pods in their sorted order (priority descending), then the summaries.
        for k in kids:
            if k in keep_set:
                shown.remove_edge(nid, k)
                shown.add_edge(nid, k)
        for ns in collapse:
            n_ns = sum(1 for k in folded if g.nodes[k]["name"].split("/", 1)[0] == ns)
            if n_ns:
                sid = f"summary/{d['name']}/{ns}"
                shown.add_node(sid, kind="summary", name=f"+{n_ns} {ns} pod{'s' if n_ns > 1 else ''}")
                shown.add_edge(nid, sid)
        if dropped:
            sid = f"summary/{d['name']}/more"
            shown.add_node(sid, kind="summary", name=f"+{len(dropped)} more")
            shown.add_edge(nid, sid)
    labels = {v: _short_pod_label(d, label_width) for v, d in shown.nodes(data=True) if d["kind"] == "pod"}
    small = 0.5 if label_width < 20 else 0.0  # points taken off the fonts in narrow columns
    sizes = {v: max(1.0, 0.5 + 0.25 * text.count("\n")) for v, text in labels.items()}
    pos = topology_layout(shown, pod_gap=pod_gap, sizes=sizes)
    nx.draw_networkx_edges(shown, pos, ax=ax, edge_color=_EDGE, arrows=False, width=0.8)

    lowest = min([y for _, y in pos.values()] + [0.0])
    for nid, d in shown.nodes(data=True):
        xy = pos[nid]
        if d["kind"] == "zone":
            _box(ax, xy, f"zone {d['name']}" if d["name"] != NO_ZONE else NO_ZONE,
                 _ZONE_FC, "#5c6bc0", fontsize=9, weight="bold")
        elif d["kind"] == "node":
            is_winner = d["name"] == winner
            ec = _WINNER_EC if is_winner else (_TAINTED_EC if d["taints"] else "#424242")
            _box(ax, xy, _short_node_label(d, label_width), _WINNER_FC if is_winner else _NODE_FC, ec,
                 lw=2.5 if is_winner or d["taints"] else 1.0, fontsize=8 - small, weight="bold" if is_winner else "normal")
        elif d["kind"] == "summary":
            _box(ax, xy, "\n".join(_wrap(d["name"], label_width, r"(?<= )")), "#f5f5f5", "#bdbdbd", fontsize=7 - small)
        else:
            is_victim = d["name"] in victims
            _box(ax, xy, labels[nid], _VICTIM_FC if is_victim else _POD_FC,
                 _VICTIM_EC if is_victim else "#90caf9", lw=2.0 if is_victim else 0.8, fontsize=7.5 - small,
                 weight="bold" if is_victim else "normal")

    xs = [x for x, _ in pos.values()] or [0.0]
    top = 2.0
    if incoming is not None:
        top = 2.9
        target = pos.get(_node_id(winner)) if winner is not None else None
        ixy = (target[0] if target is not None else (max(xs) + min(xs)) / 2, 2.9)
        _box(ax, ixy, f"pending pod\n{incoming}", _PENDING_FC, "#f9a825", lw=1.5, fontsize=8, weight="bold", ls="--")
        if target is not None:
            ax.annotate("", xy=(target[0], target[1] + 0.22), xytext=(ixy[0], ixy[1] - 0.2),
                        arrowprops=dict(arrowstyle="-|>", color=_WINNER_EC, lw=1.8, ls="--"), zorder=1)
    ax.set_xlim(min(xs) - 0.65, max(xs) + 0.65)
    ax.set_ylim(lowest - 0.45, top + 0.45)
    ax.axis("off")
    handles = [Patch(fc=_NODE_FC, ec=_TAINTED_EC, lw=2, label="tainted node")]
    if winner is not None:
        handles.append(Patch(fc=_WINNER_FC, ec=_WINNER_EC, lw=2, label=f"{winner_label}: {winner}"))
    if victims:
        handles.append(Patch(fc=_VICTIM_FC, ec=_VICTIM_EC, lw=2, label="victim (evicted by preemption)"))
    handles.append(Patch(fc=_ZONE_FC, ec="#5c6bc0", label=f"zone = node label {ZONE_LABEL}"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
              ncol=len(handles) if label_width >= 20 else min(2, len(handles)), fontsize=8.5, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def topology_figure(
    g: nx.DiGraph,
    *,
    winner: str | None = None,
    victims: Iterable[str] = (),
    incoming: str | None = None,
    title: str | None = None,
    max_pods_per_node: int = 8,
    winner_label: str = "chosen node",
    collapse: Iterable[str] = ("kube-system",),
) -> Figure:
    """A new Figure sized to the cluster, with :func:`draw_topology` on its one Axes.

    Parameters
    ----------
    g, winner, victims, incoming, title, max_pods_per_node, winner_label, collapse
        As for :func:`draw_topology`.

    Returns
    -------
    matplotlib.figure.Figure
        Not shown; a notebook cell displays it by ending with it.

    Raises
    ------
    KeyError
        When ``winner`` is not a node of ``g``.

    See Also
    --------
    draw_topology

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node
    >>> fig = topology_figure(topology_graph([make_node("n1"), make_node("n2")]), winner="n2")
    >>> len(fig.axes), fig.axes[0].get_legend() is not None
    (1, True)
    """
    n_nodes = sum(1 for _, d in g.nodes(data=True) if d["kind"] == "node")
    n_zones = sum(1 for _, d in g.nodes(data=True) if d["kind"] == "zone")
    # Columns of 1.45 inch, but never wider than a 1,000 px output column at 100 dpi (MAX_INLINE_WIDTH_PX):
    # a larger cluster gets narrower columns and labels wrapped to fit them.
    units = max(n_nodes - 1, 0) + 0.5 * max(n_zones - 1, 0) + 1.3
    width = min(max(6.0, 1.45 * n_nodes + 1.0), _MAX_WIDTH_INCHES)
    per_unit = width / units
    label_width = 20 if per_unit >= 1.3 else max(10, int(per_unit * 17))
    fig = detached_figure(width, 4.0)
    ax = fig.add_axes((0, 0, 1, 1))
    draw_topology(g, ax, winner=winner, victims=victims, incoming=incoming, title=title,
                  max_pods_per_node=max_pods_per_node, winner_label=winner_label, collapse=collapse,
                  label_width=label_width)
    # One layout unit is about 0.95 inch tall; leave room for the title and the legend below.
    lo, hi = ax.get_ylim()
    top_in, bottom_in = (0.35 if title else 0.05), (0.4 if label_width >= 20 else 0.6)
    height = 0.95 * (hi - lo) + top_in + bottom_in
    fig.set_size_inches(width, height)
    ax.set_position((0.01, bottom_in / height, 0.98, 1 - (top_in + bottom_in) / height))
    return fig
