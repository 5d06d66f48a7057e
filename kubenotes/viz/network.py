"""Chapter 06.00's views of Calico: the cluster graph per mode, a packet's walk, MTU and BGP sessions, policy.

The cluster graph (:func:`cluster_figure`: pods, ``cali`` veths, each node's ``eth0`` and tunnel device, BGP
sessions) in a fixed shell layout at a fixed size and font, so 6 nodes read as well as 2; a packet walk hop by hop
and its header stacks (:func:`walk_table_html`, :func:`header_stack_figure`); routes and their withdrawal
(:func:`routes_table`, :func:`withdrawal_table`); full mesh against route reflectors (:func:`sessions_figure`);
the mode widget over :func:`kubenotes.cni.calico.packet.mode_summary` (:func:`mode_table`, :func:`mode_panel`);
Felix's NetworkPolicy verdicts and their widget (:func:`policy_table`, :func:`policy_panel`); Flannel beside
Calico: what flanneld stores where (:func:`flannel_store_table`), both plugins' encapsulation overhead
(:func:`overhead_figure`), a walk per Flannel backend with node-0's tables (:func:`flannel_panel`, over
:mod:`kubenotes.sim.flannel`).

Notes
-----
There is no upstream counterpart: this is what ``ip -d link``, ``ip route``,
``tcpdump`` and ``calicoctl node status`` show on real nodes, drawn from the
:mod:`kubenotes.cni.calico` model.

References
----------
https://docs.tigera.io/calico/latest/networking/configuring/vxlan-ipip
https://docs.tigera.io/calico/latest/networking/configuring/bgp
https://docs.tigera.io/calico/latest/networking/configuring/mtu
https://kubernetes.io/docs/concepts/services-networking/network-policies/
"""

from __future__ import annotations

import html
import json
import math
from functools import partial
from typing import Any, Sequence

import ipywidgets as widgets
import networkx as nx
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from kubenotes.cni.calico.bgp import bgp_session_count
from kubenotes.cni.calico.dataplane import MODES, CalicoNetwork
from kubenotes.cni.calico.packet import HEADER_BYTES, cluster_graph, example_cluster, mode_summary, network_from_objects
from kubenotes.cni.calico.policy import example_policies
from kubenotes.sim.network import packet_walk
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import Html, table
from kubenotes.viz.widgets import live_panel, memoise_update

__all__ = ["CLUSTER_FIGURE_INCHES", "CLUSTER_FONT_SIZE", "cluster_figure", "walk_table_html", "header_stack_figure",
           "routes_table", "withdrawal_table", "sessions_figure", "mode_table", "mode_panel", "policy_table",
           "policy_panel", "flannel_store_table", "overhead_figure", "flannel_panel"]

# The cluster graph's vertices, in drawing order: kind -> colour, marker, size (pt²), legend label.
_VERTICES = {"host": ("#eeeeee", "s", 1500, "node"), "eth0": ("#a5d6a7", "o", 900, "node eth0"),
             "vxlan": ("#ce93d8", "o", 900, "vxlan.calico"), "ipip": ("#f48fb1", "o", 900, "tunl0"),
             "veth": ("#ffe082", "o", 900, "cali veth (host side)"), "pod": ("#90caf9", "o", 900, "pod eth0")}
_LEGEND_ORDER = ("pod", "veth", "host", "eth0", "vxlan", "ipip")
# Its edges: kinds drawn together -> style (BGP sessions dashed blue arcs, tunnels purple arcs the other way).
_EDGES = {("veth", "device"): {"width": 1.5, "edge_color": "#777"},
          ("bgp",): {"style": "dashed", "edge_color": "#1565c0", "alpha": 0.8, "connectionstyle": "arc3,rad=0.12",
                     "arrows": True, "arrowstyle": "-", "width": 1.2},
          ("tunnel",): {"edge_color": "#8e24aa", "width": 1.8, "alpha": 0.8, "connectionstyle": "arc3,rad=-0.12",
                        "arrows": True, "arrowstyle": "-"}}
_HEADER_COLORS = {"IPv4": "#90caf9", "TCP": "#a5d6a7", "UDP": "#ffcc80", "VXLAN": "#ce93d8",
                  "Ethernet": "#f48fb1", "SCTP": "#a5d6a7"}

# The chapter's tables: text cells whose newlines break the line, no thead/tbody.
_table = partial(table, css_class=None, caption_css="text-align:left;font-weight:bold", sections=False,
                 line_breaks=True)

#: The cluster figure's width and largest height, inches: at the inline backend's 100 dpi its PNG is at most
#: about 960 px wide, so a ~1000 px output column shows it at full size whatever the node count.
CLUSTER_FIGURE_INCHES = (9.6, 7.2)
#: The cluster figure's label size, points: the same for 2 and for 6 nodes (the layout makes room instead).
CLUSTER_FONT_SIZE = 7.5

# Ellipse radii (x, y) in inches of the rings the layout puts each node's parts on, centre outwards.
_RINGS = {"tunnel": (1.45, 0.95), "host": (2.55, 1.7), "veth": (3.45, 2.3), "pod": (4.3, 2.85)}
# Half the drawing's width, inches (the pod ring and half a label); the title's and the legend's heights.
_HALF_WIDTH, _TITLE_INCHES, _LEGEND_INCHES = 4.75, 0.4, 0.6


def _layout(g: nx.Graph, net: CalicoNetwork) -> dict[str, tuple[float, float]]:
    """Positions in inches from the figure's centre: one spoke per node on concentric ellipses (a shell layout).

    Node *i* of *n* sits at the angle 180° − 360°·i/n (node-0 on the left, then clockwise). Along its spoke,
    from the centre out: its tunnel device (so the tunnels are chords of the inner ring), the node with its
    ``eth0`` beside it (the BGP sessions are chords of that ring), its ``cali`` veths, its pods, spread
    across the spoke when there are several.
    """
    pos: dict[str, tuple[float, float]] = {}
    n = max(len(net.nodes), 1)

    def at(ring: str, angle: float, across: float = 0.0) -> tuple[float, float]:
        rx, ry = _RINGS[ring]
        tx, ty = -rx * math.sin(angle), ry * math.cos(angle)  # the ring's tangent at ``angle``: ``across`` inches along
        norm = math.hypot(tx, ty) or 1.0
        return (rx * math.cos(angle) + across * tx / norm, ry * math.sin(angle) + across * ty / norm)

    for i, name in enumerate(net.nodes):
        angle = math.pi - 2 * math.pi * i / n
        pos[name], pos[f"{name}/eth0"] = at("host", angle), at("host", angle, -0.72)
        pos.update({v: at("tunnel", angle) for v, d in g.nodes(data=True)
                    if d["node"] == name and d["kind"] in ("vxlan", "ipip")})
        pods = [p for p in net.pods.values() if p.node == name]
        for j, p in enumerate(pods):
            across = (j - (len(pods) - 1) / 2) * 1.05
            pos[f"{name}/{p.veth}"], pos[p.key] = at("veth", angle, across), at("pod", angle, across)
    return pos


def cluster_figure(net: CalicoNetwork, title: str | None = None) -> Figure:
    """The cluster graph of ``net`` as a Figure.

    Parameters
    ----------
    net : CalicoNetwork
        The network (nodes, pods, mode), e.g. the first item of
        :func:`kubenotes.cni.calico.packet.network_from_objects`.
    title : str, optional
        Axes title; the default names the mode and the pod MTU.

    Returns
    -------
    matplotlib.figure.Figure
        9.6 inches wide whatever the node count (about 960 px at 100 dpi),
        as tall as the layout needs up to :data:`CLUSTER_FIGURE_INCHES`; one axes (no ticks) with
        :func:`~kubenotes.cni.calico.packet.cluster_graph` drawn in a shell layout (the axes' limits in inches, so
        nothing is scaled down as nodes are added): dashed blue BGP sessions, purple tunnels, labels of
        :data:`CLUSTER_FONT_SIZE` points whatever the node count and a legend below; already closed for pyplot
        (see :func:`kubenotes.viz.graphs.detached_figure`).

    Raises
    ------
    AttributeError
        ``net`` is not a :class:`~kubenotes.cni.calico.dataplane.CalicoNetwork`.

    See Also
    --------
    kubenotes.cni.calico.packet.cluster_graph

    Examples
    --------
    >>> from kubenotes.cni.calico.packet import network_from_objects
    >>> fig = cluster_figure(network_from_objects(example_cluster(2), mode="vxlan")[0])
    >>> len(fig.axes), fig.axes[0].get_title(), fig.get_size_inches().round(2).tolist()
    (1, 'Calico mode vxlan: pod MTU 1450', [9.6, 3.34])
    """
    g = cluster_graph(net)  # BGP as a full mesh
    pos = _layout(g, net)
    half_height = max((abs(y) for _, y in pos.values()), default=0.0) + 0.45  # the highest vertex and its label
    width, most = CLUSTER_FIGURE_INCHES
    height = min(most, 2 * half_height + _TITLE_INCHES + _LEGEND_INCHES)
    fig = detached_figure(width, height)
    ax = fig.add_axes((0.0, _LEGEND_INCHES / height, 1.0, 2 * half_height / height))
    for kind, (colour, shape, size, _) in _VERTICES.items():
        nx.draw_networkx_nodes(g, pos, nodelist=[v for v, k in g.nodes(data="kind") if k == kind], node_color=colour,
                               node_shape=shape, node_size=size, edgecolors="#555", ax=ax)
    for kinds, style in _EDGES.items():
        nx.draw_networkx_edges(g, pos, edgelist=[(a, b) for k in kinds for a, b, kk in g.edges(data="kind") if kk == k],
                               ax=ax, **style)
    nx.draw_networkx_labels(g, pos, labels=nx.get_node_attributes(g, "label"), font_size=CLUSTER_FONT_SIZE, ax=ax,
                            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.75})
    sessions = sum(k == "bgp" for *_, k in g.edges(data="kind"))
    handles = [Patch(color=_VERTICES[k][0], label=_VERTICES[k][3]) for k in _LEGEND_ORDER]
    handles += [Patch(facecolor="white", edgecolor="#1565c0", linestyle="--", label=f"BGP session ({sessions})"),
                Patch(facecolor="white", edgecolor="#8e24aa", label="encapsulated path")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4, fontsize=8, frameon=False)
    ax.set_title(title or f"Calico mode {net.mode}: pod MTU {net.mtu}", fontsize=10)
    ax.set(xlim=(-_HALF_WIDTH, _HALF_WIDTH), ylim=(-half_height, half_height), aspect="equal")
    ax.axis("off")
    return fig


def walk_table_html(walk: dict, caption: str | None = None) -> Html:
    """The hops of a walk as a table: #, at, bytes, headers (outermost first), action.

    Parameters
    ----------
    walk : dict
        :func:`kubenotes.sim.network.packet_walk`'s result: ``hops`` (a list
        of dicts with ``at``, ``bytes``, ``headers``, ``action``),
        ``overheadBytes`` and ``mtu``.
    caption : str, optional
        Table caption; the default gives the overhead and the pod MTU.

    Returns
    -------
    Html
        One row per hop, numbered from 1; a hop's headers joined by `` | ``.

    Raises
    ------
    KeyError
        ``walk`` or one of its hops lacks a key named above.

    See Also
    --------
    header_stack_figure, kubenotes.sim.network.packet_walk

    Examples
    --------
    >>> from kubenotes.sim.network import packet_walk
    >>> w = packet_walk(example_cluster(2), "default/client", "default/web-1-0", mode="vxlan", size_bytes=1400)
    >>> t = str(walk_table_html(w))
    >>> "<table" in t, t.count("<tr"), "overhead 50 bytes, pod MTU 1450" in t
    (True, 9, True)
    """
    rows = [(i, h["at"], h["bytes"], " | ".join(h["headers"]), h["action"]) for i, h in enumerate(walk["hops"], 1)]
    cap = caption or f"overhead {walk['overheadBytes']} bytes, pod MTU {walk['mtu']}"
    return _table(["#", "at", "bytes", "headers", "action"], rows, cap)


def header_stack_figure(walk: dict, title: str | None = None) -> Figure:
    """One column per hop with its header stack, outermost on top; box height proportional to header bytes.

    Headers pushed at a hop get a thick outline.

    Parameters
    ----------
    walk : dict
        :func:`kubenotes.sim.network.packet_walk`'s result (``hops`` with
        ``at``, ``bytes``, ``headers``; ``overheadBytes``; ``mtu``).
    title : str, optional
        Axes title; the default gives the overhead and the pod MTU.

    Returns
    -------
    matplotlib.figure.Figure
        One axes: a column per hop, labelled with the hop's place, one box per
        header (bytes on the y axis, ticks 0 to 100) and the packet's size above it;
        at most 9 inches wide (900 px at 100 dpi) with the legend inside;
        already closed for pyplot.

    Raises
    ------
    KeyError
        ``walk`` or one of its hops lacks a key named above.

    Notes
    -----
    Header sizes are fixed (IPv4 20, TCP 20, UDP 8, VXLAN 8, inner Ethernet
    14, SCTP 12 bytes): no IP options, no TCP options.

    See Also
    --------
    walk_table_html

    Examples
    --------
    >>> from kubenotes.sim.network import packet_walk
    >>> w = packet_walk(example_cluster(2), "default/client", "default/web-1-0", mode="vxlan", size_bytes=1400)
    >>> fig = header_stack_figure(w)
    >>> len(fig.axes), fig.axes[0].get_title(), len(fig.axes[0].get_xticks())
    (1, 'headers per hop: overhead 50 B, pod MTU 1450', 8)
    """
    hops = walk["hops"]
    # at most 9 inches (900 px at 100 dpi), the legend below: the PNG fits a ~1000 px column unscaled
    fig = detached_figure(min(9.0, max(6.0, 0.85 * len(hops) + 1.4)), 4.4)
    ax = fig.add_subplot(1, 1, 1)
    prev: list[str] = []
    for x, h in enumerate(hops):
        y = 0.0
        for hdr in reversed(h["headers"]):
            kind, pushed = hdr.split()[0], bool(prev) and hdr not in prev  # pushed at this hop: a thick outline
            height = HEADER_BYTES.get(kind, 20)
            ax.add_patch(Rectangle((x - 0.42, y), 0.84, height, facecolor=_HEADER_COLORS.get(kind, "#ddd"),
                                   edgecolor="#222" if pushed else "#777", linewidth=2 if pushed else 0.6))
            ax.text(x, y + height / 2, kind if kind != "IPv4" else "IP", ha="center", va="center", fontsize=7)
            y += height
        ax.text(x, y + 2, f"{h['bytes']} B", ha="center", fontsize=7)
        prev = h["headers"]
    ax.set_xticks(range(len(hops)), [h["at"].replace("/", "/\n", 1) for h in hops], rotation=60, ha="right", fontsize=7)
    # room above the tallest stack (90 B of headers) for the legend
    ax.set(xlim=(-0.6, len(hops) - 0.4), ylim=(0, 114), yticks=range(0, 101, 20))
    ax.set_ylabel("header bytes (the payload below them not drawn)", fontsize=8)
    ax.set_title(title or f"headers per hop: overhead {walk['overheadBytes']} B, pod MTU {walk['mtu']}", fontsize=10)
    handles = [Patch(color=c, label=k) for k, c in _HEADER_COLORS.items() if k != "SCTP"]
    ax.legend(handles=handles, loc="upper right", ncol=len(handles), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def routes_table(net: CalicoNetwork, node: str) -> Html:
    """``ip route`` on ``node`` with who programmed each line (kernel, DHCP, Felix, BIRD).

    Parameters
    ----------
    net : CalicoNetwork
        The network.
    node : str
        A node name of ``net``.

    Returns
    -------
    Html
        Columns ``ip route`` and ``programmed by``, one row per route, the
        caption naming the node and the mode.

    Raises
    ------
    KeyError
        ``node`` is not a node of ``net``.

    See Also
    --------
    withdrawal_table

    Examples
    --------
    >>> from kubenotes.cni.calico.packet import network_from_objects
    >>> net = network_from_objects(example_cluster(2), mode="bgp")[0]
    >>> t = str(routes_table(net, "node-0"))
    >>> t.count("<tr") - 1, "node-0 (bgp)" in t, "proto bird" in t
    (6, True, True)
    """
    return _table(["ip route", "programmed by"], [(str(r), r.programmed_by) for r in net.nodes[node].routes],
                  f"{node} ({net.mode})")


def withdrawal_table(withdrawal: dict, caption: str | None = None) -> Html:
    """Per surviving node: routes to other nodes' pods before and after, and those withdrawn.

    Parameters
    ----------
    withdrawal : dict[str, dict[str, list[str]]]
        :func:`kubenotes.cni.calico.bgp.route_withdrawal`'s result: node ->
        ``{"before": [...], "after": [...], "withdrawn": [...]}``, ``ip route``
        lines.
    caption : str, optional
        Table caption (none by default).

    Returns
    -------
    Html
        One row per node, its routes one per line; ``(none)`` when nothing
        was withdrawn.

    Raises
    ------
    KeyError
        A node's entry lacks ``before``, ``after`` or ``withdrawn``.

    Examples
    --------
    >>> from kubenotes.cni.calico.bgp import route_withdrawal
    >>> from kubenotes.cni.calico.packet import network_from_objects
    >>> net = network_from_objects(example_cluster(2), mode="bgp")[0]
    >>> t = str(withdrawal_table(route_withdrawal(net, "node-1"), "node-1 fails"))
    >>> t.count("<tr") - 1, "192.168.41.192/26 via 10.0.0.12" in t
    (1, True)
    """
    rows = [(n, "\n".join(d["before"]), "\n".join(d["after"]), "\n".join(d["withdrawn"]) or "(none)")
            for n, d in withdrawal.items()]
    return _table(["node", "before", "after", "withdrawn"], rows, caption)


def sessions_figure(max_nodes: int = 200, reflectors: Sequence[int] = (2, 3), mark: int | None = None) -> Figure:
    """BGP sessions against node count: full mesh n(n−1)/2 and route reflectors k(k−1)/2 + (n−k)·k.

    Parameters
    ----------
    max_nodes : int
        Largest node count on the x axis (from 2).
    reflectors : sequence of int
        Route-reflector counts *k*, one dashed curve each.
    mark : int, optional
        A node count to mark with a vertical line and its full-mesh sessions.

    Returns
    -------
    matplotlib.figure.Figure
        One axes, log y scale: the full-mesh curve, then one per reflector
        count; already closed for pyplot.

    Raises
    ------
    TypeError
        ``reflectors`` holds something other than numbers.

    See Also
    --------
    kubenotes.cni.calico.bgp.bgp_session_count

    Examples
    --------
    >>> fig = sessions_figure(20, mark=10)
    >>> len(fig.axes[0].lines), fig.axes[0].get_yscale()
    (4, 'log')
    """
    fig = detached_figure(6.5, 3.6)
    ax = fig.add_subplot(1, 1, 1)
    ns = list(range(2, max_nodes + 1))
    ax.plot(ns, [bgp_session_count(n) for n in ns], label="full mesh  n(n−1)/2", color="#c62828")
    for k in reflectors:
        ax.plot(ns, [bgp_session_count(n, k) for n in ns], label=f"{k} route reflectors", linestyle="--")
    if mark:
        ax.axvline(mark, color="#999", linewidth=0.8)
        ax.annotate(f"{mark} nodes: {bgp_session_count(mark)} sessions", (mark, bgp_session_count(mark)),
                    textcoords="offset points", xytext=(6, 6), fontsize=8)
    ax.set(yscale="log", xlabel="nodes", ylabel="BGP sessions (log)")
    ax.set_title("Full mesh grows as n², route reflectors as n", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def mode_table(node_count: int = 3, size_bytes: int = 1400) -> Html:
    """:func:`~kubenotes.cni.calico.packet.mode_summary` for every mode, as a table.

    Parameters
    ----------
    node_count : int
        Nodes in the BGP mesh.
    size_bytes : int
        IP packet size a pod sends, bytes.

    Returns
    -------
    Html
        One row per mode: pod MTU, overhead, largest packet on the wire,
        whether ``size_bytes`` fits (else the fragment count), BGP sessions (a full mesh).

    Raises
    ------
    TypeError
        A size or count is not a number.

    Examples
    --------
    >>> t = str(mode_table(3, 1470))
    >>> t.count("<tr") - 1, "no: 2 fragments" in t
    (5, True)
    """
    rows = [(m, s["mtu"], s["overheadBytes"], s["wireBytes"], "yes" if s["fits"] else f"no: {s['fragments']} fragments",
             s["bgpSessions"]) for m in MODES for s in [mode_summary(node_count, size_bytes, m)]]
    return _table(["mode", "pod MTU", "overhead (B)", "largest packet on the wire (B)", f"{size_bytes} B fits?",
                   f"BGP sessions ({node_count} nodes)"], rows)


def mode_panel(node_count: int = 3, size_bytes: int = 1400, mode: str = "vxlan") -> Any:
    """The chapter's widget: node count, packet size and mode → a walk across subnets, the graph, MTU, sessions.

    Even nodes are in ``10.0.0.0/24``, odd nodes in ``10.0.1.0/24``; the walk
    goes from ``client`` on node-0 to ``web-1-0`` on node-1 (another subnet).

    Parameters
    ----------
    node_count : int
        Initial node count (slider 2 to 6).
    size_bytes : int
        Initial packet size, bytes (slider 100 to 3000).
    mode : str
        Initial Calico mode, one of :data:`kubenotes.cni.calico.dataplane.MODES`.

    Returns
    -------
    ipywidgets.VBox
        The controls (``nodes``, ``packet (B)``, ``mode``), then the live
        output: a summary line, :func:`header_stack_figure`,
        :func:`cluster_figure` and :func:`mode_table`.

    Raises
    ------
    traitlets.TraitError
        ``mode`` is not one of the modes.

    See Also
    --------
    kubenotes.cni.calico.packet.mode_summary, kubenotes.viz.widgets.live_panel

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = mode_panel(2, 1400, "ipip")
    >>> [c.description for c in panel.children[0].children], panel.children[0].children[2].value
    (['nodes', 'packet (B)', 'mode'], 'ipip')
    """
    controls = {
        "node_count": widgets.IntSlider(value=node_count, min=2, max=6, description="nodes"),
        "size_bytes": widgets.IntSlider(value=size_bytes, min=100, max=3000, step=50, description="packet (B)"),
        "mode": widgets.Dropdown(options=list(MODES), value=mode, description="mode"),
    }
    # The cluster graph does not depend on the packet size, nor the walk node-0 -> node-1 on the node count: each
    # is drawn once per value of what it does depend on (the walk's JSON), its PNG reused.
    graph = memoise_update(lambda n, mode: cluster_figure(network_from_objects(example_cluster(n, subnets=2),
                                                                                mode=mode)[0]))
    stack = memoise_update(lambda walk: header_stack_figure(json.loads(walk)))

    def update(node_count: int, size_bytes: int, mode: str) -> list:
        objs = example_cluster(node_count, subnets=2)
        walk = packet_walk(objs, "default/client", "default/web-1-0", mode=mode, size_bytes=size_bytes)
        s = mode_summary(node_count, size_bytes, mode)
        end = walk["hops"][-1]
        head = Html(f"<b>{html.escape(mode)}</b>: pod MTU {s['mtu']}, {len(walk['hops'])} hops from default/client "
                    f"(node-0, 10.0.0.0/24) to default/web-1-0 (node-1, 10.0.1.0/24), overhead on this path "
                    f"{walk['overheadBytes']} B; BGP sessions {s['bgpSessions']} (full mesh of {node_count} nodes)"
                    + ("" if s["fits"] else f"; {size_bytes} B does not fit: {s['fragments']} fragments")
                    + (f"; <b>{html.escape(end['action'].split(':')[0])}</b> at {html.escape(end['at'])}"
                       if end["action"].startswith("dropped") else ""))
        return [head, stack(walk=json.dumps(walk, sort_keys=True)), graph(n=node_count, mode=mode),
                mode_table(node_count, size_bytes)]

    return live_panel(memoise_update(update), controls, columns=3)


def policy_table(walk: dict, caption: str | None = None) -> Html:
    """Felix's NetworkPolicy verdicts of a walk: one row per end reached (egress, then ingress).

    Parameters
    ----------
    walk : dict
        :func:`kubenotes.sim.network.packet_walk`'s result (``policy``, ``allowed``).
    caption : str, optional
        Default: whether the flow is allowed.

    Returns
    -------
    Html
        Columns direction, chain, verdict, decided by (policy and rule, or the
        profile / default deny), selected by (the policies isolating that pod).

    Raises
    ------
    KeyError
        ``walk`` has no ``policy`` or ``allowed`` (not a walk's result).

    See Also
    --------
    walk_table_html, kubenotes.cni.calico.policy.PolicySet.evaluate

    Examples
    --------
    >>> from kubenotes.cni.calico.policy import example_policies
    >>> w = packet_walk(example_cluster(2) + example_policies(), "default/client", "default/web-1-0")
    >>> t = str(policy_table(w))
    >>> t.count("<tr") - 1, "dropped" in t, "default/deny-web" in t
    (2, True, True)
    """
    rows = [(v["direction"], v["chain"], "accepted" if v["allowed"] else "dropped",
             f"{v['policy']} {v['direction'].lower()}[{v['rule']}] ({v['policyChain']})" if v["policy"] else
             "no policy selects the pod: profile accepts" if v["allowed"] else "default deny: no rule allows it",
             ", ".join(v["selectedBy"]) or "-") for v in walk["policy"]]
    cap = caption or ("allowed" if walk["allowed"] else "dropped by NetworkPolicy")
    return _table(["direction", "chain", "verdict", "decided by", "selected by"], rows, cap)


def policy_panel(deny_web: bool = True, allow_client: bool = False, client_role: str = "none",
                 to: str = "default/web-1-0:8080") -> Any:
    """The chapter's NetworkPolicy widget: default deny, one allowed path, the client's label, the destination.

    Parameters
    ----------
    deny_web, allow_client : bool
        Which of :func:`kubenotes.cni.calico.policy.example_policies` exist.
    client_role : str
        ``none`` or ``client``: the ``role`` label of ``default/client``.
    to : str
        ``default/web-1-0:8080``, ``default/web:80`` (the Service) or ``default/web-1-0:9090``.

    Returns
    -------
    ipywidgets.VBox
        The controls, then a summary line, :func:`policy_table` and the
        walk's last hop.

    Raises
    ------
    traitlets.TraitError
        ``client_role`` or ``to`` is not one of the options.

    See Also
    --------
    mode_panel, kubenotes.viz.widgets.live_panel

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = policy_panel()
    >>> [c.description for c in panel.children[0].children]
    ['deny-web', 'allow-client', 'client role', 'to']
    """
    controls = {
        "deny_web": widgets.Checkbox(value=deny_web, description="deny-web"),
        "allow_client": widgets.Checkbox(value=allow_client, description="allow-client"),
        "client_role": widgets.Dropdown(options=["none", "client"], value=client_role, description="client role"),
        "to": widgets.Dropdown(options=["default/web-1-0:8080", "default/web:80", "default/web-1-0:9090"],
                               value=to, description="to"),
    }

    def update(deny_web: bool, allow_client: bool, client_role: str, to: str) -> list:
        objs = example_cluster(2)
        if client_role != "none":
            next(o for o in objs if o["metadata"]["name"] == "client")["metadata"]["labels"] = {"role": client_role}
        walk = packet_walk(objs + example_policies(deny_web, allow_client), "default/client", to, mode="vxlan")
        end = walk["hops"][-1]
        labels = html.escape("role=" + client_role) if client_role != "none" else "none"
        verdict = "delivered" if walk["allowed"] else "dropped"
        head = Html(f"default/client (labels: {labels}) → {html.escape(to)}: <b>{verdict}</b> at "
                    f"{html.escape(end['at'])} after {len(walk['hops'])} hops; policies: "
                    + html.escape(", ".join(n for n, on in (("deny-web", deny_web), ("allow-client", allow_client))
                                            if on) or "none"))
        return [head, policy_table(walk)]

    return live_panel(memoise_update(update), controls, columns=4)


def flannel_store_table(rows: Sequence[dict], caption: str | None = None) -> Html:
    """What flanneld stores where, as a table: store, key, value, TTL.

    Parameters
    ----------
    rows : sequence of dict
        :func:`kubenotes.sim.flannel.subnet_manager_store`'s result (``store``, ``key``, ``value``,
        ``ttlSeconds``).
    caption : str, optional

    Returns
    -------
    Html
        One row per key; a TTL in seconds, or ``-`` without one.

    Raises
    ------
    KeyError
        A row lacks a key named above.

    Examples
    --------
    >>> from kubenotes.sim.flannel import subnet_manager_store
    >>> t = str(flannel_store_table(subnet_manager_store("etcd")))
    >>> t.count("<tr") - 1, "/coreos.com/network/config" in t, ">86400<" in t
    (4, True, True)
    """
    body = [(r["store"], r["key"], r["value"], "-" if r["ttlSeconds"] is None else r["ttlSeconds"]) for r in rows]
    return _table(["store", "key", "value", "TTL (s)"], body, caption)


def overhead_figure(rows: Sequence[dict], title: str | None = None) -> Figure:
    """Bytes each Flannel backend and Calico mode adds between nodes, with the pod MTU it leaves.

    Parameters
    ----------
    rows : sequence of dict
        :func:`kubenotes.sim.flannel.overhead_rows`'s result (``plugin``, ``mode``, ``overheadBytes``, ``mtu``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Horizontal bars (8 x 3.4 inches: 800 px wide at 100 dpi), one per row, Flannel's in green and
        Calico's in orange, each labelled with its overhead and MTU.

    Raises
    ------
    KeyError
        A row lacks a key named above.

    Examples
    --------
    >>> from kubenotes.sim.flannel import overhead_rows
    >>> fig = overhead_figure(overhead_rows())
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][:2], fig.get_size_inches().tolist()
    (['Flannel vxlan', 'Flannel host-gw'], [8.0, 3.4])
    """
    fig = detached_figure(8.0, 3.4)
    ax = fig.add_subplot()
    colors = {"Flannel": "#66bb6a", "Calico": "#ffa726"}
    labels = [f"{r['plugin']} {r['mode']}" for r in rows]
    ys = list(range(len(rows)))
    ax.barh(ys, [r["overheadBytes"] for r in rows], color=[colors.get(r["plugin"], "#90a4ae") for r in rows])
    for y, r in zip(ys, rows):
        ax.text(r["overheadBytes"] + 0.8, y, f"{r['overheadBytes']} B, pod MTU {r['mtu']}", va="center", fontsize=8)
    ax.set_yticks(ys, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max([r["overheadBytes"] for r in rows] + [1]) * 1.45)
    ax.set_xlabel("bytes added to each packet between nodes (IPv4 underlay)")
    ax.legend(handles=[Patch(color=c, label=p) for p, c in colors.items()], fontsize=8, loc="lower right")
    ax.set_title(title or "Encapsulation overhead and pod MTU on a 1500-byte link", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def _pre(title: str, lines: Sequence[str]) -> str:
    return (f"<b>{html.escape(title)}</b><pre style='margin:2px 0 8px 0'>"
            + html.escape("\n".join(lines) or "(none)") + "</pre>")


def flannel_panel(backend: str = "vxlan", to: str = "default/web-1-0") -> Any:
    """The Flannel widget: backend and destination → the walk from ``client`` and node-0's tables.

    Walks :func:`kubenotes.sim.flannel.backend_walk` (``default/client`` on node-0 to a web pod on
    node-1, same L2 segment, or node-2, behind a router) and prints node-0's ``ip route``,
    ``ip neigh``, ``bridge fdb`` and WireGuard peers as flanneld left them, and its errors.

    Parameters
    ----------
    backend : str
        Initial backend, one of :data:`kubenotes.sim.flannel.WALK_BACKENDS`.
    to : str
        Initial destination, one of :data:`kubenotes.sim.flannel.DESTINATIONS`.

    Returns
    -------
    ipywidgets.VBox
        The controls (``backend``, ``to``), then a summary line, :func:`walk_table_html` and node-0's tables.

    Raises
    ------
    traitlets.TraitError
        ``backend`` or ``to`` not among the options.

    See Also
    --------
    kubenotes.sim.flannel.backend_walk, kubenotes.viz.widgets.live_panel

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = flannel_panel("host-gw", "default/web-2-0")
    >>> [c.description for c in panel.children[0].children], panel.children[0].children[0].value
    (['backend', 'to'], 'host-gw')
    """
    from kubenotes.sim.flannel import DESTINATIONS, WALK_BACKENDS, backend_walk

    controls = {"backend": widgets.Dropdown(options=list(WALK_BACKENDS), value=backend, description="backend"),
                "to": widgets.Dropdown(options=list(DESTINATIONS), value=to, description="to")}

    def update(backend: str, to: str) -> list:
        r = backend_walk(backend, to)
        w = r["walk"]
        end = w["hops"][-1]
        head = Html(f"<b>{html.escape(backend)}</b>: default/client (node-0) → {html.escape(to)} "
                    f"({html.escape(r['toNode'])}), {len(w['hops'])} hops, overhead {w['overheadBytes']} B, pod MTU "
                    f"{w['mtu']}: <b>{'delivered' if w['delivered'] else 'dropped'}</b>"
                    + ("" if w["delivered"] else f" at {html.escape(end['at'])}") + ". No NetworkPolicy is "
                    "enforced (Flannel has none).")
        tables = Html("<div style='font-size:85%'>" + _pre("node-0: ip route", r["routes"])
                      + _pre("node-0: ip neigh show dev flannel.1", r["neigh"])
                      + _pre("node-0: bridge fdb show dev flannel.1", r["fdb"])
                      + _pre("node-0: wg show flannel-wg (peers)", r["wgPeers"])
                      + _pre("node-0: flanneld errors", r["errors"]) + "</div>")
        return [head, walk_table_html(w, caption=f"{backend}: client → {to}"), tables]

    return live_panel(memoise_update(update), controls, columns=2)
