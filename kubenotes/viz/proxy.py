"""Rules, graphs, histograms and widgets of the Services and kube-proxy chapter (06.01).

Nothing here decides anything: the rules come from :func:`kubenotes.proxy.iptables.iptables_save` and
:func:`kubenotes.proxy.nftables.nft_list_table` over :func:`kubenotes.proxy.endpoints.proxy_state`; the connection
counts from :func:`kubenotes.proxy.balance.simulate_connections`; the readiness failure from
:func:`kubenotes.sim.scenarios.simulate_readiness_drain` (``data/network/readiness-drain.yaml``); env vars from
:mod:`kubenotes.kubelet.envvars` and DNS from :mod:`kubenotes.dns.coredns`, over the chapter's small cluster
(:mod:`kubenotes.sim.services`). This module lays them out: the rules with their KUBE-SVC / KUBE-SEP chains and
probabilities highlighted (:func:`rules_panel`: N on a slider), Service -> KUBE-SVC -> KUBE-SEP -> pods as a graph
(:func:`rule_graph_figure`), 10,000 connections per mode (:func:`balance_panel`), an endpoint leaving the rules
(:func:`side_by_side`, :func:`rules_diff`), each Service type's rules and DNS answer (:func:`service_types_panel`),
and env vars (fixed at container start) against DNS (live) (:func:`discovery_table`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go
kubernetes/kubernetes@v1.34.0 pkg/proxy/nftables/proxier.go
https://kubernetes.io/docs/reference/networking/virtual-ips/
"""

from __future__ import annotations

import html
import re
from functools import partial
from typing import Any, Iterable

import ipywidgets as widgets
import networkx as nx
from matplotlib.figure import Figure

from kubenotes.apiserver.tables import format_table, table_for
from kubenotes.dns.coredns import ClusterDNS, DNSAnswer, DNSRecord
from kubenotes.kubelet.envvars import make_env_variable_name
from kubenotes.proxy.balance import BalanceResult
from kubenotes.proxy.endpoints import ProxyState, proxy_state
from kubenotes.proxy.iptables import ENDPOINT_CHAIN_RE, SERVICE_CHAIN_RE, iptables_save, parse_rule
from kubenotes.sim.services import (balance_runs, nftables_rules, rule_changes, rules_for_service, service_rules,
                                     svc_probabilities, web_state)
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import CAPTION_TIGHT_CSS, TD_CSS, Html, table
from kubenotes.viz.widgets import _agg_canvas, int_slider, live_panel, memoise_update

__all__ = ["rules_html", "rules_panel", "rule_graph", "rule_graph_figure", "balance_histogram", "balance_table",
           "balance_panel", "endpoint_slice_table", "side_by_side", "rules_diff", "discovery_table",
           "dns_records_table", "resolution_table", "services_table", "service_types_panel"]

_SVC, _SEP, _PROB = "#1565c0", "#2e7d32", "#e65100"  # Service chains, endpoint chains, the random choice
# What the rules show in bold colour, in this order: iptables' chains and --probability, nftables' chains and numgen.
_HIGHLIGHTS = ((SERVICE_CHAIN_RE, _SVC), (ENDPOINT_CHAIN_RE, _SEP), (r"--probability [0-9.]+", _PROB),
               (r"\bservice-[A-Z0-9]{8}-[\w./-]+", _SVC), (r"\bendpoint-[A-Z0-9]{8}-[\w./:-]+", _SEP),
               (r"numgen random mod \d+", _PROB))
# The chapter's tables: text cells in a monospace font (addresses, rules).
_table = partial(table, caption_css=CAPTION_TIGHT_CSS, td_css=TD_CSS + ";font-family:monospace")
# Rule text wraps (at spaces, or inside a long chain name) instead of running past a ~1000 px output column, so the
# ``-j KUBE-SEP-...`` target at the end of a rule stays visible; a rule's continuation lines are indented under it.
_PRE_WRAP = "white-space:pre-wrap;overflow-wrap:anywhere"
_RULE_LINE = "display:block;padding-left:2.5em;text-indent:-2.5em"


def _pre(body: str, css: str = "") -> str:
    """``body`` (HTML) in a ``<pre>`` of 11 px text whose long lines wrap; ``css`` is added to its style."""
    return f'<pre style="font-size:11px;{_PRE_WRAP}{css}">{body}</pre>'


def _highlight(text: str) -> str:
    """``text`` HTML-escaped, each match of :data:`_HIGHLIGHTS` in bold colour."""
    text = html.escape(text)
    for pattern, colour in _HIGHLIGHTS:
        text = re.sub(pattern, rf'<b style="color:{colour}">\g<0></b>', text)
    return text


def _rules_pre(text: str, css: str = ";line-height:1.35;margin:0") -> str:
    """``text`` highlighted in a ``<pre>``, one hanging-indented block per line (long ones wrap)."""
    lines = text.rstrip("\n").split("\n")
    return _pre("".join(f'<span style="{_RULE_LINE}">{_highlight(ln) or " "}</span>' for ln in lines), css)


# --------------------------------------------------------------------------- rules

def rules_html(iptables_text: str, nft_text: str | None = None) -> Html:
    """The rules as highlighted ``<pre>`` blocks: iptables, then nftables below it; long lines wrap.

    Parameters
    ----------
    iptables_text : str
        ``iptables-save`` lines, e.g. :func:`service_rules`.
    nft_text : str, optional
        ``nft list table`` text, e.g. :func:`nftables_rules`; None shows iptables only.

    Returns
    -------
    Html
        KUBE-SVC / service chains in blue, KUBE-SEP / endpoint chains in
        green, the ``--probability`` / ``numgen`` choices in orange; text HTML-escaped.
        A rule longer than the column wraps (``white-space:pre-wrap``), its
        continuation indented, so every rule's ``-j`` target stays in view.

    Raises
    ------
    AttributeError
        When a text is not a str (``html.escape`` calls its ``replace``).

    Examples
    --------
    >>> h = rules_html(service_rules(web_state(1)), nftables_rules(web_state(1)))
    >>> h.count("<pre"), "KUBE-SVC" in h
    (2, True)
    """
    cols = [("iptables-save (nat table, Service chains)", iptables_text),
            ("nft list table ip kube-proxy (Service chains)", nft_text)]
    css = ";line-height:1.35;background:#fafafa;border:1px solid #ddd;padding:6px;margin:0"
    cells = "".join(f'<div style="min-width:0"><div style="font-weight:bold;font-size:12px">{html.escape(title)}'
                    f'</div>{_rules_pre(text, css)}</div>' for title, text in cols if text is not None)
    return Html(f'<div style="display:flex;flex-direction:column;gap:6px">{cells}</div>')


def _rules_view(n_endpoints: int = 3, session_affinity: bool = False) -> Html:
    """:func:`rules_panel`'s callback: ``web``'s rules with ``n_endpoints`` endpoints, its probabilities on top."""
    state = web_state(n_endpoints, session_affinity=session_affinity)
    ipt = service_rules(state)
    probs = html.escape(", ".join("rest" if p is None else p for p in svc_probabilities(ipt)))
    return Html(f'<div style="font-size:12px;margin:2px 0">{n_endpoints} endpoint(s): {ipt.count(":KUBE-SEP-")} '
                f'KUBE-SEP chains; KUBE-SVC jump probabilities: {probs}</div>' + rules_html(ipt, nftables_rules(state)))


def rules_panel(n_endpoints: int = 3) -> widgets.VBox:
    """Slider N (endpoints) and a ClientIP-affinity toggle -> the iptables and nftables rules.

    Parameters
    ----------
    n_endpoints : int
        The slider's start (1 to 8); the ``sessionAffinity: ClientIP`` checkbox starts off.

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`: the controls ``endpoints`` and
        ``sessionAffinity: ClientIP``, then the probabilities and :func:`rules_html` of ``web``'s rules.

    Raises
    ------
    traitlets.TraitError
        When a start value has the wrong type for its control.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = rules_panel(2)
    >>> [c.description for c in p.children[0].children]
    ['endpoints', 'sessionAffinity: ClientIP']
    """
    affinity = widgets.Checkbox(value=False, description="sessionAffinity: ClientIP")
    return live_panel(_rules_view, {"n_endpoints": int_slider("endpoints", n_endpoints, 1, 8),
                                    "session_affinity": affinity})


# --------------------------------------------------------------------------- graph

def rule_graph(iptables_text: str, objects: Iterable[dict] = ()) -> nx.DiGraph:
    """Service -> KUBE-SVC -> KUBE-SEP -> pod, parsed from iptables rules.

    Parameters
    ----------
    iptables_text : str
        ``iptables-save`` output (or :func:`service_rules`).
    objects : iterable of dict
        Pods, to name the DNAT destinations (else they are named by ``ip:port``).

    Returns
    -------
    networkx.DiGraph
        Node ids are the chain names, ``svc/<ns>/<name>:<port>`` and
        ``pod/<ip:port>``; attribute ``kind`` is ``Service``, ``KUBE-SVC``,
        ``KUBE-SEP`` or ``Pod``, ``label`` the text to draw. KUBE-SVC ->
        KUBE-SEP edges carry ``probability`` (str, or None for the last jump)
        and ``order``.

    Raises
    ------
    KeyError
        For a pod in ``objects`` without ``metadata.name``. Lines that are not
        ``-A`` rules of these chains are skipped, so other text gives a smaller graph.

    See Also
    --------
    rule_graph_figure, svc_probabilities

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go

    Examples
    --------
    >>> g = rule_graph(service_rules(web_state(2)))
    >>> sorted({d["kind"] for _, d in g.nodes(data=True)})
    ['KUBE-SEP', 'KUBE-SVC', 'Pod', 'Service']
    """
    pods = {(p.get("status") or {}).get("podIP"): p["metadata"]["name"] for p in objects if p.get("kind") == "Pod"}
    svc, sep = SERVICE_CHAIN_RE.fullmatch, ENDPOINT_CHAIN_RE.fullmatch
    g, order = nx.DiGraph(), 0
    for r in filter(None, map(parse_rule, iptables_text.splitlines())):
        edge = {"probability": None, "order": 0}
        if r.chain == "KUBE-SERVICES" and svc(r.jump):  # (id, kind, label) of the edge's two ends
            name, ip = (r.comment or "").split(" ")[0], (r.destination_address or "").split("/")[0]
            ends = [(f"svc/{name}", "Service", f"Service {name}\n{ip}:{r.destination_port or ''}"),
                    (r.jump, "KUBE-SVC", r.jump)]
        elif svc(r.chain) and sep(r.jump):
            order += 1
            edge = {"probability": r.probability, "order": order}
            ends = [(r.chain, "KUBE-SVC", r.chain), (r.jump, "KUBE-SEP", r.jump)]
        elif sep(r.chain) and r.jump == "DNAT" and r.dnat_destination:
            ep = r.dnat_destination
            pod = pods.get(ep.rsplit(":", 1)[0].strip("[]"), "pod")
            ends = [(r.chain, "KUBE-SEP", r.chain), (f"pod/{ep}", "Pod", f"{pod}\n{ep}")]
        else:
            continue
        for node, kind, label in ends:
            g.add_node(node, kind=kind, label=label)
        g.add_edge(ends[0][0], ends[1][0], **edge)
    return g


# Each layer of the rule graph: its x, box colour and heading.
_LAYERS = {"Service": (0.0, "#e3f2fd", "Service (cluster IP)"), "KUBE-SVC": (1.35, "#bbdefb", "KUBE-SVC-* chain"),
           "KUBE-SEP": (2.7, "#c8e6c9", "KUBE-SEP-* chain"), "Pod": (3.85, "#fff3e0", "pod (DNAT target)")}


def _fraction(p: str | None) -> str:
    """``0.3333333333`` -> ``1/3`` (kube-proxy's probabilities are all 1/k); None -> ``rest``."""
    if p is None:
        return "rest"
    k = round(1.0 / float(p)) if float(p) > 0 else 0
    return f"1/{k}" if k and abs(1.0 / k - float(p)) < 1e-9 else p


def rule_graph_figure(g: nx.DiGraph) -> Figure:
    """Draw :func:`rule_graph` left to right: Service, KUBE-SVC, KUBE-SEP chains, pods; probabilities on the edges.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`rule_graph`.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes (axis off), 9.6 inches wide (at most 1,000 px inline), taller with more endpoints;
        each probability is written as a fraction (``1/3``, ``rest``), the title says so.

    Raises
    ------
    KeyError
        For a graph node without a ``kind`` of :func:`rule_graph`'s four.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from kubenotes.sim.services import web_objects
    >>> fig = rule_graph_figure(rule_graph(service_rules(web_state(2)), web_objects(2)))
    >>> len(fig.axes), fig.axes[0].get_title().startswith("How a packet")
    (1, True)
    >>> plt.close(fig)
    """
    # each layer in the KUBE-SVC jump order, so edges do not cross
    rank = {b: d["order"] for a, b, d in g.edges(data=True) if g.nodes[b]["kind"] == "KUBE-SEP"}
    rank.update({n: min((rank.get(a, 0) for a in g.predecessors(n)), default=0)
                 for n, kind in g.nodes(data="kind") if kind == "Pod"})
    layers = {k: sorted((n for n, kind in g.nodes(data="kind") if kind == k), key=lambda n: rank.get(n, 0))
              for k in _LAYERS}
    pos = {n: (_LAYERS[k][0], (len(ns) - 1) / 2.0 - i) for k, ns in layers.items() for i, n in enumerate(ns)}
    top = (max(map(len, layers.values())) - 1) / 2.0
    fig = detached_figure(9.6, max(2.6, 1.8 + 1.2 * top))  # <= 1,000 px inline (graphs.MAX_INLINE_WIDTH_PX)
    ax = fig.add_axes((0.01, 0.02, 0.98, 0.86))
    ax.set_axis_off()
    ax.set(xlim=(-0.6, 4.25), ylim=(-top - 0.55, top + 1.0))
    boxes = {n: ax.text(*pos[n], d["label"], ha="center", va="center", fontsize=8, family="monospace",
                        bbox={"boxstyle": "round,pad=0.3", "fc": _LAYERS[d["kind"]][1], "ec": "#607d8b"})
             for n, d in g.nodes(data=True)}
    canvas = _agg_canvas(fig)  # a closed pyplot figure's base canvas has no renderer
    canvas.draw()  # lays out the text boxes: their drawn half-widths in data units, so arrows start at their edges
    renderer, inv = canvas.get_renderer(), ax.transData.inverted()
    half = {n: inv.transform(t.get_bbox_patch().get_window_extent(renderer).get_points())[:, 0] @ (-0.5, 0.5)
            for n, t in boxes.items()}
    for a, b, d in g.edges(data=True):
        (x0, y0), (x1, y1) = pos[a], pos[b]
        ax.annotate("", xy=(x1 - half[b] - 0.02, y1), xytext=(x0 + half[a] + 0.02, y0),
                    arrowprops={"arrowstyle": "-|>", "color": "#546e7a", "lw": 1.1, "shrinkA": 0, "shrinkB": 0})
        if g.nodes[a]["kind"] == "KUBE-SVC" and g.nodes[b]["kind"] == "KUBE-SEP":
            ax.text(x1 - half[b] - 0.08, y1 + 0.2, _fraction(d["probability"]), ha="right", va="center",
                    fontsize=8, color=_PROB, fontweight="bold")
    for x, _, heading in _LAYERS.values():
        ax.text(x, top + 0.75, heading, ha="center", fontsize=9, fontweight="bold", color="#37474f")
    ax.set_title("How a packet to the cluster IP reaches a pod (iptables mode); orange: the statistic rule's "
                 "--probability", fontsize=10)
    return fig


# --------------------------------------------------------------------------- balance

def balance_histogram(runs: dict[str, BalanceResult]) -> Figure:
    """One bar chart per run: connections per endpoint, the 1/n line, chi-square and p-value.

    Parameters
    ----------
    runs : dict[str, BalanceResult]
        Label -> result, e.g. :func:`kubenotes.sim.services.balance_runs`; at least two runs (one Axes each).

    Returns
    -------
    matplotlib.figure.Figure
        One Axes per run, sharing the y axis (connections); the title holds χ² and p.

    Raises
    ------
    TypeError
        With a single run (``subplots(1, 1)`` returns one Axes, not an array).
    StopIteration
        With no runs.

    See Also
    --------
    balance_table, kubenotes.proxy.balance.simulate_connections

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = balance_histogram(balance_runs(2, 1000, 5, 0))
    >>> len(fig.axes), fig.axes[1].get_title().splitlines()[0]
    (3, 'IPVS round robin')
    >>> plt.close(fig)
    """
    return _balance_figure(runs)


def _balance_figure(runs: dict[str, BalanceResult], fig: Figure | None = None) -> Figure:
    """:func:`balance_histogram`'s figure, or ``fig`` (drawn before over the same endpoints) redrawn for ``runs``.

    Redrawing changes the bars, titles and y axis only (a draw and a layout instead of three new Axes); the
    picture is the one a new figure gives.
    """
    first = next(iter(runs.values()))
    if fig is None:
        fig = detached_figure(11, 3.3)
        for ax, r in zip(fig.subplots(1, len(runs), sharey=True), runs.values()):
            ax.bar(range(len(r.endpoints)), 0, color="#64b5f6", edgecolor="#1565c0")
            ax.axhline(r.connections / len(r.endpoints), color="#c62828", ls="--", lw=1, label="1/n")
            octets = [e.split(":")[0].rsplit(".", 1)[-1] for e in r.endpoints]
            ax.set_xticks(range(len(r.endpoints)), octets, fontsize=8)
            ax.set_xlabel("endpoint (last octet of 10.244.1.x)", fontsize=8)
        fig.axes[0].set_ylabel(f"connections (of {first.connections:,})", fontsize=8)
        fig.axes[0].legend(fontsize=8, loc="lower left")
    for ax, (label, r) in zip(fig.axes, runs.items()):
        for bar, count in zip(ax.patches, r.counts.values()):
            bar.set_height(count)
        ax.set_title(f"{label}\nχ²={r.chi_square:.1f}, p={r.p_value:.2g}", fontsize=9)
        ax.relim()  # the shared y axis scales to all three
    fig.axes[0].autoscale_view()
    fig.subplotpars.reset()  # laid out again from the default margins, as a new figure is: the y tick labels follow
    fig.subplots_adjust()
    fig.tight_layout()
    return fig


def balance_table(runs: dict[str, BalanceResult]) -> Html:
    """Counts per endpoint, chi-square, p-value and endpoints per client, one row per run.

    Parameters
    ----------
    runs : dict[str, BalanceResult]
        Label -> result over the same endpoints, e.g. :func:`kubenotes.sim.services.balance_runs`.

    Returns
    -------
    Html
        A table: run, one count column per endpoint, χ², p, the most endpoints one client reached.

    Raises
    ------
    StopIteration
        With no runs.

    Examples
    --------
    >>> t = balance_table(balance_runs(2, 1000, 5, 0))
    >>> "<table" in t, "IPVS round robin" in t
    (True, True)
    """
    first = next(iter(runs.values()))
    rows = [[label, *r.counts.values(), f"{r.chi_square:.2f}", f"{r.p_value:.3g}",
             max(r.endpoints_per_client.values())] for label, r in runs.items()]
    return _table(["run", *first.endpoints, "χ²", "p", "max endpoints per client"], rows,
                  f"{first.connections:,} connections to default/web")


def balance_panel(n_endpoints: int = 3, clients: int = 50, seed: int = 0) -> widgets.VBox:
    """Sliders for endpoints, client IPs and seed -> the three histograms.

    Parameters
    ----------
    n_endpoints : int
        The endpoints slider's start (2 to 10).
    clients : int
        The client IPs slider's start (1 to 500).
    seed : int
        The seed slider's start (0 to 20).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`: three sliders in a row,
        then :func:`balance_histogram` of 10,000 connections (memoised per position;
        one figure per endpoint count, redrawn).

    Raises
    ------
    traitlets.TraitError
        When a start value is not a number (a float is truncated to an int).

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = balance_panel(2)
    >>> [c.description for c in p.children[0].children]
    ['endpoints', 'client IPs', 'seed']
    """
    figures: dict[int, Figure] = {}  # one figure per endpoint count, redrawn with each run

    def view(n_endpoints: int, clients: int, seed: int) -> Figure:
        runs = balance_runs(n_endpoints, 10_000, clients, seed)
        figures[n_endpoints] = _balance_figure(runs, figures.get(n_endpoints))
        return figures[n_endpoints]

    controls = {"n_endpoints": int_slider("endpoints", n_endpoints, 2, 10),
                "clients": int_slider("client IPs", clients, 1, 500), "seed": int_slider("seed", seed, 0, 20)}
    return live_panel(memoise_update(view), controls, columns=3)


# --------------------------------------------------------------------------- readiness failure

def endpoint_slice_table(slices: Iterable[dict], caption: str | None = None) -> Html:
    """One row per endpoint: slice, address, pod, ready / serving / terminating.

    Parameters
    ----------
    slices : iterable of dict
        ``discovery.k8s.io/v1`` EndpointSlice objects.
    caption : str, optional

    Returns
    -------
    Html
        A table with each endpoint's conditions as stored (None when unset).

    Raises
    ------
    KeyError
        For a slice without ``metadata.name``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/endpointslice/endpointslice_controller.go

    Examples
    --------
    >>> from kubenotes.sim.network import add_endpoint_slices
    >>> from kubenotes.sim.services import web_objects
    >>> slices = [o for o in add_endpoint_slices(web_objects(2)) if o["kind"] == "EndpointSlice"]
    >>> t = endpoint_slice_table(slices); t.count("<tr"), "web-1" in t
    (3, True)
    """
    rows = [[s["metadata"]["name"], ", ".join(e.get("addresses") or []), (e.get("targetRef") or {}).get("name", ""),
             *((e.get("conditions") or {}).get(c) for c in ("ready", "serving", "terminating"))]
            for s in slices for e in s.get("endpoints") or []]
    return _table(["EndpointSlice", "address", "pod", "ready", "serving", "terminating"], rows, caption)


def side_by_side(*parts: str) -> Html:
    """Tables (or any HTML) next to each other in one output, wrapping below each other when the column is narrow.

    A cell that ends with a tuple of :class:`~kubenotes.viz.html.Html` shows
    the tuple's ``repr``: raw ``<table ...>`` markup. This is the one object
    to return instead.

    Parameters
    ----------
    *parts : str
        HTML fragments, e.g. two :func:`endpoint_slice_table` results; used as is.

    Returns
    -------
    Html
        A flex row (``flex-wrap:wrap``) with one box per part, each as wide
        as its content (at least 320 px): parts that do not fit side by side wrap below each
        other; only a part wider than the whole column scrolls in its box.

    Raises
    ------
    ValueError
        With no parts.

    See Also
    --------
    endpoint_slice_table

    Examples
    --------
    >>> h = side_by_side(Html("<table>a</table>"), Html("<table>b</table>"))
    >>> type(h).__name__, h.count("<table>"), "flex-wrap:wrap" in h
    ('Html', 2, True)
    """
    if not parts:
        raise ValueError("side_by_side needs at least one part")
    boxes = "".join(f'<div style="flex:0 0 auto;min-width:320px;max-width:100%;overflow-x:auto">'
                    f'{p}</div>' for p in parts)
    return Html(f'<div style="display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start">{boxes}</div>')


def rules_diff(before: str, after: str) -> Html:
    """Lines removed (red, ``-``) and added (green, ``+``) between two rule texts.

    Parameters
    ----------
    before, after : str
        Rule texts, e.g. :func:`service_rules` before and after an endpoint left.

    Returns
    -------
    Html
        A ``<pre>`` block (long lines wrap), removed lines first; ``(no change)`` when none differ
        (:func:`kubenotes.sim.services.rule_changes`: order and repeats are ignored).

    Raises
    ------
    AttributeError
        When a text is not a str.

    Examples
    --------
    >>> d = rules_diff("a\\nb\\n", "a\\nc\\n")
    >>> "- b" in d, "+ c" in d, "(no change)" in rules_diff("a", "a")
    (True, True, True)
    """
    removed, added = rule_changes(before, after)
    body = "".join(f'<div style="color:{colour};{_RULE_LINE}">{mark} {_highlight(ln)}</div>'
                   for colour, mark, lines in (("#c62828", "-", removed), ("#2e7d32", "+", added)) for ln in lines)
    return Html(_pre(body or "(no change)"))


# --------------------------------------------------------------------------- env vars vs DNS

def discovery_table(timeline: dict[str, Any]) -> Html:
    """What the client sees of a Service created after it: env vars (none until a restart) vs DNS (records now).

    Parameters
    ----------
    timeline : dict
        From :func:`kubenotes.sim.services.discovery_timeline`.

    Returns
    -------
    Html
        Three rows: env of the old container, env of a restarted one (two
        variables shown, then a count), the DNS records.

    Raises
    ------
    KeyError
        When ``timeline`` lacks ``service``, ``env``, ``env_restarted`` or ``dns``.

    Examples
    --------
    >>> from kubenotes.sim.services import discovery_timeline
    >>> t = discovery_table(discovery_timeline("web"))
    >>> "(none)" in t, "A 10.96.0.100" in t
    (True, True)
    """
    service = timeline["service"]
    prefix = make_env_variable_name(service) + "_"

    def fmt(env: dict[str, str]) -> str:
        mine = [f"{k}={v}" for k, v in env.items() if k.startswith(prefix)]
        return ", ".join(mine[:2]) + (f", ... ({len(mine)} variables)" if len(mine) > 2 else "") if mine else "(none)"

    rows = [["env of the container started before the Service", fmt(timeline["env"])],
            ["env of a container (re)started after it", fmt(timeline["env_restarted"])],
            ["DNS, now", ", ".join(f"{r.rtype} {r.data}" for r in timeline["dns"]) or "(no records)"]]
    return _table([f"how the client finds {service}", "what it gets"], rows)


def dns_records_table(records: Iterable[DNSRecord]) -> Html:
    """One row per record: name, TTL, type, data.

    Parameters
    ----------
    records : iterable of DNSRecord
        E.g. :meth:`kubenotes.dns.coredns.ClusterDNS.resolve`.

    Returns
    -------
    Html
        One row per record.

    Raises
    ------
    AttributeError
        For an item without ``name``, ``ttl_seconds``, ``rtype`` or ``data``.

    Examples
    --------
    >>> from kubenotes.sim.services import discovery_objects
    >>> t = dns_records_table(ClusterDNS(discovery_objects()).resolve("db", "default"))
    >>> "10.244.1.30" in t, "10.244.1.31" in t
    (True, True)
    """
    return _table(["name", "TTL", "type", "data"], [[r.name, r.ttl_seconds, r.rtype, r.data] for r in records])


def resolution_table(answers: Iterable[DNSAnswer]) -> Html:
    """The questions a pod's resolver asked, in order, with CoreDNS's answer.

    Parameters
    ----------
    answers : iterable of DNSAnswer
        E.g. :meth:`kubenotes.dns.coredns.ClusterDNS.resolution`.

    Returns
    -------
    Html
        One row per question: name asked, type, rcode, the answers' data (``-`` for none).

    Raises
    ------
    AttributeError
        For an item without ``qname``, ``qtype``, ``rcode`` or ``answer``.

    References
    ----------
    https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/

    Examples
    --------
    >>> from kubenotes.sim.services import discovery_objects
    >>> t = resolution_table(ClusterDNS(discovery_objects()).resolution("web", "default"))
    >>> "web.default.svc.cluster.local." in t, "NOERROR" in t
    (True, True)
    """
    return _table(["asked", "type", "rcode", "answer"],
                  [[a.qname, a.qtype, a.rcode, ", ".join(r.data for r in a.answer) or "-"] for a in answers])


# --------------------------------------------------------------------------- Service types

def services_table(services: Iterable[dict], now: float = 0.0) -> Html:
    """``kubectl get services`` for ``services``: NAME, TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S), AGE.

    Parameters
    ----------
    services : iterable of dict
        Services as the API server stores them.
    now : float
        Virtual seconds, for AGE.

    Returns
    -------
    Html
        kubectl's printer text (the API server's Table, :mod:`kubenotes.apiserver.tables`) in a ``<pre>``.

    Raises
    ------
    KeyError
        For a Service without ``metadata``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/printers/internalversion/printers.go (``printService``)

    Examples
    --------
    >>> from kubenotes.sim.services import web_objects
    >>> t = services_table([o for o in web_objects(1) if o["kind"] == "Service"])
    >>> "CLUSTER-IP" in t, "10.96.0.100" in t, "80/TCP" in t
    (True, True, True)
    """
    return Html(_pre(html.escape(format_table(table_for("services", list(services), now))), ";margin:0"))


def _service_type_view(service: dict, iptables_text: str, dns: ClusterDNS, now: float = 0.0) -> Html:
    """:func:`service_types_panel`'s view of one Service: ``kubectl get service``, its rules, its DNS answer.

    The rules are those kube-proxy wrote for it in ``iptables_text``, or a line saying why there are none
    (``ShouldSkipService``, kubernetes/kubernetes@v1.34.0 pkg/proxy/serviceport.go).
    """
    md, spec = service["metadata"], service.get("spec") or {}
    ns, name = md.get("namespace") or "default", md["name"]
    rules = rules_for_service(iptables_text, ns, name)
    why = ("type ExternalName: no cluster IP, no endpoints; DNS answers with a CNAME"
           if spec.get("type") == "ExternalName" else
           "clusterIP: None (headless): no virtual IP to translate; DNS answers with the endpoints' addresses"
           if spec.get("clusterIP") == "None" else "no cluster IP")
    body = _rules_pre(rules) if rules else (f'<div style="font-size:12px;color:#555">(no rule: kube-proxy skips the '
                                            f'Service, {html.escape(why)})</div>')
    records = "<br>".join(html.escape(f"{r.name} {r.rtype} {r.data}") for r in dns.resolve(name, ns)) or "(no records)"
    head = '<div style="font-weight:bold;font-size:12px;margin-top:6px">'
    return Html(f'<div style="font-weight:bold;font-size:12px">kubectl get service {html.escape(name)}</div>'
                f'{services_table([service], now)}{head}kube-proxy (iptables mode) on the node</div>{body}'
                f'{head}DNS: {html.escape(name)}.{html.escape(ns)}.svc.cluster.local</div>'
                f'<div style="font-size:11px;font-family:monospace">{records}</div>')


def service_types_panel(cluster: Any, service: str = "web") -> widgets.VBox:
    """A dropdown over a cluster's Services -> ``kubectl get service``, its rules and its DNS answer.

    Parameters
    ----------
    cluster : kubenotes.sim.cluster.Cluster
        A run, e.g. ``simulate([sample("network", "service-types.yaml")], until=20)``; read once.
    service : str
        The Service shown first, of the ``default`` namespace (the dropdown lists those).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`: a ``Service`` dropdown, then the Service as
        ``kubectl get service`` prints it (:func:`services_table`), the rules kube-proxy (iptables mode) writes
        for it on the first Node (:func:`~kubenotes.sim.services.rules_for_service`, highlighted, wrapping) or a
        line saying why there are none (headless, ExternalName), and the DNS records of
        ``<name>.<namespace>.svc.cluster.local``.

    Raises
    ------
    traitlets.TraitError
        When ``service`` is not a Service of the ``default`` namespace.
    IndexError
        When the cluster has no Node.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/serviceport.go (``ShouldSkipService``)

    Examples
    --------
    >>> import contextlib, io
    >>> from kubenotes.sim.cli import run
    >>> from kubenotes.data import sample
    >>> c = run([sample("network", "service-types.yaml")], until=10)
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = service_types_panel(c, "web-headless")
    >>> p.children[0].children[0].value, len(p.children[0].children[0].options)
    ('web-headless', 7)
    """
    nodes, now = cluster.list("nodes"), cluster.now
    objects = nodes + cluster.list("services") + cluster.list("endpointslices") + cluster.list("pods")
    text, dns = iptables_save(proxy_state(objects, nodes[0]["metadata"]["name"])), ClusterDNS(objects)
    by_name = {s["metadata"]["name"]: s for s in cluster.list("services", "default")}
    controls = {"service": widgets.Dropdown(options=sorted(by_name), value=service, description="Service")}
    return live_panel(memoise_update(lambda service: _service_type_view(by_name[service], text, dns, now)), controls)
