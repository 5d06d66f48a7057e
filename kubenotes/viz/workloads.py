"""Figures, tables and widgets of chapter 03.01 (the other controllers), drawn from runs of :mod:`kubenotes.sim.workloads`.

Nothing here reconciles or computes what a controller would do: every number
comes from a run of the controllers in a :class:`~kubenotes.sim.cluster.Cluster`
(:mod:`kubenotes.sim.workloads`), read back as lifelines (created, ready,
terminating, gone), replica and metric series, pod CIDRs and audit entries.
Each ``*_view`` is what one panel shows for one position of its controls, and
each ``*_panel`` wires controls to it with :func:`kubenotes.viz.widgets.live_panel`.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/deletion/namespaced_resources_deleter.go
kubernetes/kubernetes@v1.34.0 pkg/controller/nodeipam/ipam/range_allocator.go
kubernetes/kubernetes@v1.34.0 pkg/controller/daemon/update.go
kubernetes/kubernetes@v1.34.0 pkg/controller/statefulset/stateful_set_control.go
kubernetes/kubernetes@v1.34.0 pkg/controller/podautoscaler/horizontal.go
kubernetes/kubernetes@v1.34.0 pkg/controller/cronjob/cronjob_controllerv2.go
https://kubernetes.io/docs/concepts/architecture/cloud-controller/
"""

from __future__ import annotations

import ipaddress
import itertools
from typing import Any, Callable, Mapping, Sequence

import networkx as nx
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from kubenotes.sim.history import objects_at
from kubenotes.sim.workloads import (
    Lifeline,
    ScenarioRun,
    lifelines,
    metric_series,
    namespace_conditions,
    node_cidrs,
    replica_series,
    simulate_cronjob,
    simulate_daemonset,
    simulate_hpa,
    simulate_namespace_deletion,
    simulate_node_ipam,
    simulate_service_accounts,
    simulate_statefulset,
)
from kubenotes.viz.controllers import audit_table, events_table
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import Html, table
from kubenotes.viz.html import escape as _e

__all__ = [
    "lifelines_figure", "conditions_table", "namespace_view", "namespace_panel",
    "service_accounts_table", "service_accounts_view", "service_accounts_panel",
    "cidr_figure", "node_ipam_view", "node_ipam_panel",
    "daemonset_view", "daemonset_panel", "statefulset_view", "statefulset_panel",
    "hpa_figure", "hpa_view", "hpa_panel", "cronjob_view", "cronjob_panel",
    "controller_writes_figure",
]

_WIDTH_INCHES = 9.4  # 940 px at the inline backend's 100 dpi: never shrunk in a 1000 px output column
_PENDING, _RUNNING, _TERMINATING, _DONE = "#bbdefb", "#1565c0", "#ef6c00", "#9e9e9e"
_NEW = "#2e7d32"


def _refused(message: str) -> Html:
    return Html(f"<p style='color:#c62828'><b>Refused:</b> {_e(message)}</p>")


# Subplot parameters tight_layout found, by what decides them (tick labels, limits, title lines, legend place):
# a figure whose deciding parts were seen before gets them at once instead of measuring every artist again.
_LAYOUT_OF: dict[Any, dict[str, float]] = {}


def _fixed_layout(fig: Figure, key: Any) -> None:
    """Lay ``fig`` out as ``fig.tight_layout()`` did for a figure with the same ``key`` (run it the first time)."""
    pars = _LAYOUT_OF.get(key)
    if pars is None:
        fig.tight_layout()
        p = fig.subplotpars
        pars = _LAYOUT_OF[key] = {"left": p.left, "right": p.right, "bottom": p.bottom, "top": p.top,
                                  "wspace": p.wspace, "hspace": p.hspace}
        if len(_LAYOUT_OF) > 256:
            _LAYOUT_OF.pop(next(iter(_LAYOUT_OF)))
    else:
        fig.subplots_adjust(**pars)


def _tick_chars(ax: Any) -> int:
    """The longest y tick label of ``ax`` in characters (the digits are equally wide): what its left margin needs."""
    lo, hi = sorted(ax.get_ylim())
    ticks = [t for t in ax.get_yticks() if lo <= t <= hi]
    return max((len(label) for label in ax.yaxis.get_major_formatter().format_ticks(ticks)), default=0)


def _title_key(title: str | None) -> tuple[int, int]:
    """What of a left-aligned title the layout depends on: its lines, and its length only when it may overhang."""
    if not title:
        return (0, 0)
    longest = max(len(line) for line in title.split("\n"))
    return (title.count("\n") + 1, longest if longest > 90 else 0)


# --------------------------------------------------------------------------- lifelines
def lifelines_figure(rows: Sequence[Lifeline], *, end_seconds: float, title: str | None = None,
                     marks: Sequence[tuple[float, str]] = (), label: Callable[[Lifeline], str] | None = None,
                     colour: Callable[[Lifeline], str] | None = None, spans: Sequence[tuple[float, float, str]] = (),
                     ticks: Sequence[float] = ()) -> Figure:
    """One horizontal bar per object: pending (light), running or present (solid), terminating (orange), done (grey).

    Parameters
    ----------
    rows : sequence of Lifeline
        From :func:`kubenotes.sim.workloads.lifelines`; drawn top to bottom.
    end_seconds : float
        The right end (objects still present run to it).
    title : str, optional
    marks : sequence of (float, str)
        Labelled vertical dashed lines (an action of the scenario).
    label : callable(Lifeline) -> str, optional
        The row label (default ``Kind/name``, or ``name on node`` for pods).
    colour : callable(Lifeline) -> str, optional
        The solid colour of a row (default blue).
    spans : sequence of (float, float, str)
        Shaded time spans with a label (e.g. a CronJob suspended).
    ticks : sequence of float
        Small triangles on the time axis (e.g. schedule times).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        When a row's times are not numbers.

    Examples
    --------
    >>> fig = lifelines_figure([Lifeline("Pod", "db-0", 0.0, 10.0, 11.0, "n1", 5.0)], end_seconds=20)
    >>> len(fig.axes[0].patches) >= 3
    True
    """
    n = max(len(rows), 1)
    fig = detached_figure(_WIDTH_INCHES, min(1.3 + 0.32 * n, 7.0))
    ax = fig.add_subplot()
    for y, r in enumerate(rows):
        start_running = r.ready if r.kind == "Pod" and r.ready is not None else (
            r.created if r.kind != "Pod" else None)
        stop = r.gone if r.gone is not None else end_seconds
        solid = colour(r) if colour else _RUNNING
        segments = []
        first_end = min(x for x in (start_running, r.finished, r.deleting, stop) if x is not None)
        if start_running is None or start_running > r.created:
            segments.append((r.created, first_end, _PENDING))
        if start_running is not None:
            run_end = min(x for x in (r.finished, r.deleting, stop) if x is not None)
            segments.append((start_running, run_end, solid))
        if r.finished is not None:
            segments.append((r.finished, r.deleting if r.deleting is not None else stop, _DONE))
        if r.deleting is not None:
            segments.append((r.deleting, stop, _TERMINATING))
        for a, b, c in segments:  # as barh's bars; the view limits are set below, so nothing to autoscale
            ax.add_artist(Rectangle((a, y - 0.3), max(b - a, 0.6 if c == _TERMINATING else 0.0), 0.6,
                                    facecolor=c, edgecolor="white", linewidth=0.5))
    gone = [(r.gone, y) for y, r in enumerate(rows) if r.gone is not None]
    if gone:
        ax.plot([t for t, _ in gone], [y for _, y in gone], ls="none", marker="x", color="#b71c1c", ms=6)
    for a, b, what in spans:
        ax.axvspan(a, b, color="#fff3e0", zorder=0)
        ax.annotate(what, ((a + b) / 2, 0.02), xycoords=("data", "axes fraction"), ha="center", va="bottom",
                    fontsize=8, color="#e65100")
    for j, (t, what) in enumerate(marks):
        ax.axvline(t, color="#c62828", lw=0.9, ls="--")
        ax.annotate(what, (t, 1.0), xycoords=("data", "axes fraction"), xytext=(3, -11 - 11 * (j % 2)),
                    textcoords="offset points", fontsize=8, color="#b71c1c",
                    bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})
    if ticks:
        ax.plot(list(ticks), [-0.9] * len(ticks), "v", color="#6a1b9a", ms=5, clip_on=False)
    names = [label(r) if label else (f"{r.name} on {r.node}" if r.kind == "Pod" and r.node else
                                     f"{r.kind}/{r.name}") for r in rows]
    ax.set_yticks(range(len(rows)), names, fontsize=8)
    ax.set_ylim(n - 0.4, -1.6)
    ax.set_xlim(0, end_seconds)
    ax.set_xlabel("virtual time (s)")
    ax.grid(axis="x", alpha=0.25)
    handles = [Patch(color=_PENDING, label="created, not ready"), Patch(color=colour(rows[0]) if colour and rows
                                                                        else _RUNNING, label="running / present"),
               Patch(color=_DONE, label="finished"), Patch(color=_TERMINATING, label="terminating")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16 if n > 6 else -0.28), fontsize=7,
              ncol=4, frameon=False)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    _fixed_layout(fig, ("lifelines", tuple(names), ax.get_xlim(), n, _title_key(title)))
    return fig


# --------------------------------------------------------------------------- namespace deletion
def conditions_table(rows: Sequence[Mapping[str, Any]], caption: str | None = None) -> Html:
    """:func:`kubenotes.sim.workloads.namespace_conditions` as a table (time, phase, condition, reason, message).

    Parameters
    ----------
    rows : sequence of dict
        From :func:`kubenotes.sim.workloads.namespace_conditions`.
    caption : str, optional

    Returns
    -------
    Html

    Raises
    ------
    KeyError
        For a row without one of the keys.

    Examples
    --------
    >>> "SomeFinalizerRemain" in conditions_table([{"time": 1.0, "phase": "Terminating", "type": "x",
    ...                                           "reason": "SomeFinalizerRemain", "message": "m"}])
    True
    """
    return table(("time (s)", "phase", "condition (True)", "reason", "message"),
                  [(f"{r['time']:g}", r["phase"], r["type"], r["reason"], r["message"]) for r in rows], caption)


def namespace_view(finalizer_removed_at_seconds: int, grace_period_seconds: int) -> list[Any]:
    """What :func:`namespace_panel` shows: the namespace's objects as lifelines, then its conditions.

    Parameters
    ----------
    finalizer_removed_at_seconds, grace_period_seconds : int
        As the panel's controls (see :func:`namespace_panel`).

    Returns
    -------
    list
        Figures and :class:`~kubenotes.viz.html.Html` tables to show, in order; a one-line refusal instead when
        the API server (or kube-controller-manager) refuses the settings.

    Raises
    ------
    TypeError
        For a missing argument.

    Examples
    --------
    >>> [type(o).__name__ for o in namespace_view(0, 30)]
    ['Figure', 'Html']
    """
    run = simulate_namespace_deletion(finalizer_removed_at_seconds, grace_period_seconds)
    rows = lifelines(run, ("configmaps", "secrets", "services", "deployments", "replicasets", "pods",
                           "serviceaccounts", "endpointslices"))
    ns = [r for r in lifelines(run, ("namespaces",), namespace="") if r.name == run.namespace]
    end = run.end_seconds
    gone = ns[0].gone if ns else None
    marks = [(run.at_seconds, "kubectl delete namespace shop")]
    if finalizer_removed_at_seconds:
        marks.append((max(finalizer_removed_at_seconds, run.at_seconds), "finalizer removed"))
    title = (f"Namespace shop deleted at t={run.at_seconds:g}s; gone at t={gone:g}s" if gone is not None else
             f"Namespace shop deleted at t={run.at_seconds:g}s; still Terminating at t={end:g}s")
    fig = lifelines_figure(ns + rows, end_seconds=end, title=title, marks=marks)
    return [fig, conditions_table(namespace_conditions(run), "status.conditions of Namespace shop, as they changed")]


def _controls_style() -> dict[str, Any]:
    import ipywidgets as widgets

    return {"style": {"description_width": "230px"}, "layout": widgets.Layout(width="470px")}


def _panel(update: Any, controls: Mapping[str, Any], columns: int = 2) -> Any:
    from kubenotes.viz.widgets import live_panel, memoise_update

    return live_panel(memoise_update(update), controls, columns=columns)


def _slider(description: str, value: int, lo: int, hi: int, step: int = 1) -> Any:
    from kubenotes.viz.widgets import int_slider

    return int_slider(description, value, lo, hi, step, **_controls_style())


def _dropdown(description: str, options: Sequence[Any], value: Any) -> Any:
    import ipywidgets as widgets

    return widgets.Dropdown(options=list(options), value=value, description=description, **_controls_style())


def namespace_panel(finalizer_removed_at_seconds: int = 80, grace_period_seconds: int = 30) -> Any:
    """The namespace-deletion widget: when the blocking finalizer goes, and the pods' grace period.

    Parameters
    ----------
    finalizer_removed_at_seconds : int
        Start of the slider (0 to 120 s, 0 = the ConfigMap has no finalizer).
    grace_period_seconds : int
        Start of the ``terminationGracePeriodSeconds`` slider (0 to 120 s).

    Returns
    -------
    ipywidgets.VBox

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = namespace_panel(0, 30)
    >>> [c.description for c in p.children[0].children]
    ['finalizer removed at t (s), 0 = none', 'pods: terminationGracePeriodSeconds']
    """
    return _panel(namespace_view, {
        "finalizer_removed_at_seconds": _slider("finalizer removed at t (s), 0 = none",
                                                finalizer_removed_at_seconds, 0, 120, 10),
        "grace_period_seconds": _slider("pods: terminationGracePeriodSeconds", grace_period_seconds, 0, 120, 10)})


# --------------------------------------------------------------------------- service accounts
def service_accounts_table(run: ScenarioRun, at_seconds: float) -> Html:
    """The ServiceAccounts, Secrets and ConfigMaps of the run's namespace as they were at ``at_seconds``.

    Parameters
    ----------
    run : ScenarioRun
        From :func:`kubenotes.sim.workloads.simulate_service_accounts`.
    at_seconds : float

    Returns
    -------
    Html
        kind, name, creationTimestamp, and what it holds (for a token Secret: whom it names and the keys of ``data``).

    Raises
    ------
    AttributeError
        When ``run`` has no cluster.

    Examples
    --------
    >>> "kube-root-ca.crt" in service_accounts_table(simulate_service_accounts(), 15)
    True
    """
    rows = []
    for res, kind in (("serviceaccounts", "ServiceAccount"), ("secrets", "Secret"), ("configmaps", "ConfigMap")):
        for o in sorted(objects_at(run.cluster, res, run.namespace, at_seconds=at_seconds),
                        key=lambda o: o["metadata"]["name"]):
            md = o["metadata"]
            extra = ""
            if kind == "Secret":
                ann = md.get("annotations") or {}
                extra = (f"type {o.get('type', '')}; for {ann.get('kubernetes.io/service-account.name', '?')}; "
                         f"data: {', '.join(sorted((o.get('data') or {}))) or '(empty)'}")
            elif kind == "ConfigMap":
                extra = "data: " + ", ".join(sorted(o.get("data") or {}))
            rows.append((kind, md["name"], md.get("creationTimestamp", ""), extra))
    return table(("kind", "name", "creationTimestamp", "contents"), rows,
                  f"Namespace {run.namespace} at t={at_seconds:g}s")


def service_accounts_view(secret_for: str, at_seconds: int) -> list[Any]:
    """What :func:`service_accounts_panel` shows: the namespace at ``at_seconds`` and the controllers' writes.

    Parameters
    ----------
    secret_for : str; at_seconds : int
        As the panel's controls (see :func:`service_accounts_panel`).

    Returns
    -------
    list
        Figures and :class:`~kubenotes.viz.html.Html` tables to show, in order; a one-line refusal instead when
        the API server (or kube-controller-manager) refuses the settings.

    Raises
    ------
    TypeError
        For a missing argument.

    Examples
    --------
    >>> [type(o).__name__ for o in service_accounts_view('ghost', 40)]
    ['Html', 'Html']
    """
    run = simulate_service_accounts(secret_for)
    return [service_accounts_table(run, at_seconds),
            audit_table([e for e in run.cluster.audit_log if e.namespace == run.namespace], until=at_seconds,
                        exclude_kinds=("Lease", "Event"), limit=14,
                        caption=f"Writes in {run.namespace} up to t={at_seconds:g}s")]


def service_accounts_panel(secret_for: str = "build-robot", at_seconds: int = 40) -> Any:
    """The ServiceAccount widget: whom the token Secret names, and a time slider (0 to 80 s).

    Parameters
    ----------
    secret_for : str
        The dropdown's start (``build-robot`` or ``ghost``).
    at_seconds : int
        The time slider's start.

    Returns
    -------
    ipywidgets.VBox

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = service_accounts_panel("ghost", 80)
    >>> [c.description for c in p.children[0].children]
    ['Secret names ServiceAccount', 'time t (s)']
    """
    return _panel(service_accounts_view, {
        "secret_for": _dropdown("Secret names ServiceAccount", ("build-robot", "ghost"), secret_for),
        "at_seconds": _slider("time t (s)", at_seconds, 0, 80, 5)})


# --------------------------------------------------------------------------- node IPAM
def cidr_figure(cluster_cidr: str, node_cidr_mask_size: int, assigned: Mapping[str, str | None], *,
                title: str | None = None, max_blocks: int = 32) -> Figure:
    """The cluster CIDR as a row of node blocks, each coloured by the node it was given to.

    Parameters
    ----------
    cluster_cidr : str
    node_cidr_mask_size : int
    assigned : mapping of str to str or None
        Node -> its ``spec.podCIDR`` (None: none), from :func:`kubenotes.sim.workloads.node_cidrs`.
    title : str, optional
    max_blocks : int
        Blocks drawn at most; the rest are summed up in the last box.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For a malformed CIDR or a mask shorter than its prefix.

    Examples
    --------
    >>> fig = cidr_figure("10.244.0.0/23", 24, {"a": "10.244.0.0/24", "b": None})
    >>> len(fig.axes[0].patches)
    2
    """
    net = ipaddress.ip_network(cluster_cidr, strict=False)
    total = 1 << (node_cidr_mask_size - net.prefixlen)
    blocks = list(itertools.islice(net.subnets(new_prefix=node_cidr_mask_size),
                                   total if total <= max_blocks else max_blocks - 1))
    owner = {c: n for n, c in assigned.items() if c}
    fig = detached_figure(_WIDTH_INCHES, 2.3)
    ax = fig.add_subplot()
    colours = ("#1565c0", "#2e7d32", "#6a1b9a", "#00838f", "#ad1457", "#ef6c00")
    width = 1.0
    for i, b in enumerate(blocks):
        who = owner.get(str(b))
        fc = colours[sorted(owner.values()).index(who) % len(colours)] if who else "#eeeeee"
        ax.add_patch(Rectangle(
            (i * width, 0), width * 0.95, 1, fc=fc, ec="#616161", lw=0.5))
        if len(blocks) <= 16:
            ax.text(i * width + 0.47, 0.62, str(b), ha="center", va="center", fontsize=7,
                    color="white" if who else "#424242", rotation=0 if len(blocks) <= 8 else 90)
            ax.text(i * width + 0.47, 0.2, who or "free", ha="center", va="center", fontsize=7,
                    color="white" if who else "#757575")
    n = len(blocks)
    if total > n:
        ax.add_patch(Rectangle(
            (n * width, 0), width * 3, 1, fc="#fafafa", ec="#9e9e9e", lw=0.5, ls="--"))
        ax.text(n * width + 1.5, 0.5, f"… {total - n} more\nfree blocks", ha="center", va="center", fontsize=8)
        n += 3
    ax.set_xlim(-0.2, n + 0.2)
    ax.set_ylim(-0.1, 1.1)
    ax.axis("off")
    without = sorted(k for k, v in assigned.items() if not v)
    ax.set_title(title or (f"--cluster-cidr={cluster_cidr}, --node-cidr-mask-size={node_cidr_mask_size}: "
                           f"{total} blocks" + (f"; no block for {', '.join(without)}" if without else "")),
                 fontsize=10, loc="left")
    fig.tight_layout()
    return fig


def node_ipam_view(cluster_prefix: int, node_cidr_mask_size: int, nodes: int) -> list[Any]:
    """What :func:`node_ipam_panel` shows: the blocks, the nodes' podCIDRs, and the allocator's Events.

    Parameters
    ----------
    cluster_prefix, node_cidr_mask_size, nodes : int
        As the panel's controls (see :func:`node_ipam_panel`).

    Returns
    -------
    list
        Figures and :class:`~kubenotes.viz.html.Html` tables to show, in order; a one-line refusal instead when
        the API server (or kube-controller-manager) refuses the settings.

    Raises
    ------
    TypeError
        For a missing argument.

    Examples
    --------
    >>> [type(o).__name__ for o in node_ipam_view(26, 24, 5)]
    ['Html']
    """
    run = simulate_node_ipam(cluster_prefix, node_cidr_mask_size, nodes)
    if run.error:
        return [_refused(f"kube-controller-manager does not start node-ipam-controller: {run.error}")]
    cidrs = node_cidrs(run)
    rows = [(n, c or "(none)", str(ipaddress.ip_network(c).num_addresses - 2) if c else "0")
            for n, c in cidrs.items()]
    css = ["" if c else "color:#c62828" for c in cidrs.values()]
    return [cidr_figure(run.name, node_cidr_mask_size, cidrs),
            table(("node", "spec.podCIDR", "pod IPs (addresses − 2)"), rows, None, css),
            events_table(run.cluster, "default", reasons=("CIDRNotAvailable",), limit=5,
                         caption="Events from the range allocator (cidrAllocator)")]


def node_ipam_panel(cluster_prefix: int = 22, node_cidr_mask_size: int = 24, nodes: int = 5) -> Any:
    """The node IPAM widget: ``--cluster-cidr`` prefix (16 to 26), ``--node-cidr-mask-size`` (22 to 28), nodes (1 to 5).

    Parameters
    ----------
    cluster_prefix, node_cidr_mask_size, nodes : int
        The sliders' starts.

    Returns
    -------
    ipywidgets.VBox

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = node_ipam_panel(26, 24, 5)   # a mask shorter than the prefix: one line, no traceback
    >>> [c.description for c in p.children[0].children]
    ['--cluster-cidr 10.244.0.0/', '--node-cidr-mask-size']
    """
    return _panel(node_ipam_view, {
        "cluster_prefix": _slider("--cluster-cidr 10.244.0.0/", cluster_prefix, 16, 26),
        "node_cidr_mask_size": _slider("--node-cidr-mask-size", node_cidr_mask_size, 22, 28),
        "nodes": _slider("nodes (4th joins at 30 s, 5th at 40 s)", nodes, 1, 5)})


# --------------------------------------------------------------------------- DaemonSet
def daemonset_view(max_unavailable: int, tolerate_control_plane: bool) -> list[Any]:
    """What :func:`daemonset_panel` shows: the DaemonSet's pods per node, old template blue, new green.

    Parameters
    ----------
    max_unavailable : int; tolerate_control_plane : bool
        As the panel's controls (see :func:`daemonset_panel`).

    Returns
    -------
    list
        Figures and :class:`~kubenotes.viz.html.Html` tables to show, in order; a one-line refusal instead when
        the API server (or kube-controller-manager) refuses the settings.

    Raises
    ------
    TypeError
        For a missing argument.

    Examples
    --------
    >>> [type(o).__name__ for o in daemonset_view(0, False)]
    ['Html']
    """
    run = simulate_daemonset(max_unavailable, tolerate_control_plane)
    if run.error:
        return [_refused(run.error)]
    rows = sorted(lifelines(run, ("pods",)), key=lambda r: (r.node or "", r.created))
    done = max((r.ready for r in rows if r.created >= run.at_seconds and r.ready is not None
                and r.created < 60), default=None)
    title = (f"DaemonSet node-agent, maxUnavailable={max_unavailable}"
             f"{', tolerates control-plane' if tolerate_control_plane else ''}: set image at t=30s"
             + (f", all nodes updated at t={done:g}s" if done is not None else ""))
    return [lifelines_figure(rows, end_seconds=run.end_seconds, title=title,
                             marks=[(run.at_seconds, "kubectl set image"), (60.0, "control-plane taint removed")],
                             colour=lambda r: _NEW if r.created >= run.at_seconds else _RUNNING),
            events_table(run.cluster, run.namespace, kinds=("DaemonSet",), limit=6)]


def daemonset_panel(max_unavailable: int = 1, tolerate_control_plane: bool = False) -> Any:
    """The DaemonSet widget: ``maxUnavailable`` (0 to 4; 0 is refused with maxSurge 0) and a toleration toggle.

    Parameters
    ----------
    max_unavailable : int
        The slider's start.
    tolerate_control_plane : bool
        The checkbox's start.

    Returns
    -------
    ipywidgets.VBox

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = daemonset_panel(0, True)
    >>> [c.description for c in p.children[0].children]
    ['rollingUpdate.maxUnavailable', 'tolerate control-plane taint']
    """
    import ipywidgets as widgets

    return _panel(daemonset_view, {
        "max_unavailable": _slider("rollingUpdate.maxUnavailable", max_unavailable, 0, 4),
        "tolerate_control_plane": widgets.Checkbox(value=tolerate_control_plane,
                                                   description="tolerate control-plane taint", indent=False)})


# --------------------------------------------------------------------------- StatefulSet
def statefulset_view(pod_management_policy: str, scale_up_to: int, scale_down_to: int) -> list[Any]:
    """What :func:`statefulset_panel` shows: the pods ``db-<ordinal>`` as lifelines.

    Parameters
    ----------
    pod_management_policy : str; scale_up_to, scale_down_to : int
        As the panel's controls (see :func:`statefulset_panel`).

    Returns
    -------
    list
        Figures and :class:`~kubenotes.viz.html.Html` tables to show, in order; a one-line refusal instead when
        the API server (or kube-controller-manager) refuses the settings.

    Raises
    ------
    TypeError
        For a missing argument.

    Examples
    --------
    >>> [type(o).__name__ for o in statefulset_view('Parallel', 4, 1)]
    ['Figure', 'Html']
    """
    run = simulate_statefulset(pod_management_policy, scale_up_to, scale_down_to)
    rows = sorted(lifelines(run, ("pods",)), key=lambda r: (int(r.name.rsplit("-", 1)[1]), r.created))
    title = (f"StatefulSet db, podManagementPolicy={pod_management_policy}: 3 replicas, scaled to {scale_up_to} "
             f"at t=40s and to {scale_down_to} at t=70s")
    return [lifelines_figure(rows, end_seconds=run.end_seconds, title=title,
                             marks=[(40.0, f"scale to {scale_up_to}"), (70.0, f"scale to {scale_down_to}")]),
            events_table(run.cluster, run.namespace, kinds=("StatefulSet",), limit=8)]


def statefulset_panel(pod_management_policy: str = "OrderedReady", scale_up_to: int = 5,
                      scale_down_to: int = 2) -> Any:
    """The StatefulSet widget: the policy, and the two ``kubectl scale`` targets (0 to 6).

    Parameters
    ----------
    pod_management_policy : str
        The dropdown's start.
    scale_up_to, scale_down_to : int
        The sliders' starts.

    Returns
    -------
    ipywidgets.VBox

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = statefulset_panel("Parallel", 6, 0)
    >>> [c.description for c in p.children[0].children]
    ['podManagementPolicy', 'replicas at t=40s']
    """
    return _panel(statefulset_view, {
        "pod_management_policy": _dropdown("podManagementPolicy", ("OrderedReady", "Parallel"), pod_management_policy),
        "scale_up_to": _slider("replicas at t=40s", scale_up_to, 0, 6),
        "scale_down_to": _slider("replicas at t=70s", scale_down_to, 0, 6)})


# --------------------------------------------------------------------------- HPA
def hpa_figure(run: ScenarioRun, target_utilization: int, *, title: str | None = None) -> Figure:
    """Replicas (``spec.replicas`` of the Deployment) and the CPU utilization the HPA read, over time.

    Parameters
    ----------
    run : ScenarioRun
        From :func:`kubenotes.sim.workloads.simulate_hpa`.
    target_utilization : int
        Drawn as the target line, with the ±10 % tolerance band.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two Axes sharing the time axis: replicas on top, utilization below.

    Raises
    ------
    IndexError
        When the run has no replica history (the Deployment never existed).

    Examples
    --------
    >>> len(hpa_figure(simulate_hpa(run_seconds=100), 80).axes)
    2
    """
    end = run.end_seconds
    reps = replica_series(run)
    metric = metric_series(run)
    fig = detached_figure(_WIDTH_INCHES, 4.2)
    ax1, ax2 = fig.subplots(2, 1, sharex=True, height_ratios=(1.1, 1))
    xs = [t for t, _ in reps] + [end]
    ys = [n for _, n in reps] + [reps[-1][1]]
    ax1.step(xs, ys, where="post", color="#1565c0", lw=2)
    ax1.set_ylabel("spec.replicas")
    ax1.set_ylim(0, max(ys) + 1.5)
    ax1.grid(alpha=0.25)
    for t, n in reps[1:]:
        ax1.annotate(str(n), (t, n), xytext=(3, 3), textcoords="offset points", fontsize=8, color="#0d47a1")
    if metric:
        mx = [t for t, _ in metric] + [end]
        my = [v for _, v in metric] + [metric[-1][1]]
        ax2.step(mx, my, where="post", color="#ef6c00", lw=2, label="current utilization (%)")
    lo, hi = target_utilization * 0.9, target_utilization * 1.1
    ax2.axhspan(lo, hi, color="#c8e6c9", alpha=0.6, label="target ± 10 % (no scaling)")
    ax2.axhline(target_utilization, color="#2e7d32", lw=1, ls="--")
    ax2.set_ylabel("CPU % of request")
    ax2.set_xlabel("virtual time (s)")
    ax2.set_xlim(0, end)
    ax2.grid(alpha=0.25)
    ax2.legend(fontsize=7, loc="upper right")
    if title:
        ax1.set_title(title, fontsize=10, loc="left")
    _fixed_layout(fig, ("hpa", _tick_chars(ax1), _tick_chars(ax2), end, _title_key(title)))
    return fig


def hpa_view(high_load_milli_cpu: int, target_utilization: int, downscale_stabilization_seconds: int) -> list[Any]:
    """What :func:`hpa_panel` shows: replicas and utilization over time, and the controller's Events.

    Parameters
    ----------
    high_load_milli_cpu, target_utilization, downscale_stabilization_seconds : int
        As the panel's controls (see :func:`hpa_panel`).

    Returns
    -------
    list
        Figures and :class:`~kubenotes.viz.html.Html` tables to show, in order; a one-line refusal instead when
        the API server (or kube-controller-manager) refuses the settings.

    Raises
    ------
    TypeError
        For a missing argument.

    Examples
    --------
    >>> [type(o).__name__ for o in hpa_view(1000, 80, 300)]
    ['Figure', 'Html']
    """
    run = simulate_hpa(high_load_milli_cpu, target_utilization, downscale_stabilization_seconds)
    reps = replica_series(run)
    title = (f"load {high_load_milli_cpu}m from t=20s, 200m from t=200s; target {target_utilization}%, "
             f"downscale stabilization {downscale_stabilization_seconds}s\nreplicas: "
             + " → ".join(f"{n} (t={t:g})" for t, n in reps))
    return [hpa_figure(run, target_utilization, title=title),
            events_table(run.cluster, run.namespace, reasons=("SuccessfulRescale",), limit=6)]


def hpa_panel(high_load_milli_cpu: int = 1000, target_utilization: int = 80,
              downscale_stabilization_seconds: int = 300) -> Any:
    """The HPA widget: the load (200m to 2400m), the target (20 to 100 %), the stabilization window (0 to 300 s).

    Parameters
    ----------
    high_load_milli_cpu, target_utilization, downscale_stabilization_seconds : int
        The sliders' starts.

    Returns
    -------
    ipywidgets.VBox

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = hpa_panel(200, 100, 0)
    >>> [c.description for c in p.children[0].children]
    ['CPU load from t=20s (millicores)', 'target averageUtilization (%)']
    """
    return _panel(hpa_view, {
        "high_load_milli_cpu": _slider("CPU load from t=20s (millicores)", high_load_milli_cpu, 200, 2400, 100),
        "target_utilization": _slider("target averageUtilization (%)", target_utilization, 20, 100, 10),
        "downscale_stabilization_seconds": _slider("downscale stabilization (s)", downscale_stabilization_seconds,
                                                   0, 300, 30)})


# --------------------------------------------------------------------------- CronJob
def cronjob_view(concurrency_policy: str, job_run_seconds: int, starting_deadline_seconds: int) -> list[Any]:
    """What :func:`cronjob_panel` shows: the Jobs as lifelines under the schedule ticks, and the Events.

    Parameters
    ----------
    concurrency_policy : str; job_run_seconds, starting_deadline_seconds : int
        As the panel's controls (see :func:`cronjob_panel`).

    Returns
    -------
    list
        Figures and :class:`~kubenotes.viz.html.Html` tables to show, in order; a one-line refusal instead when
        the API server (or kube-controller-manager) refuses the settings.

    Raises
    ------
    TypeError
        For a missing argument.

    Examples
    --------
    >>> [type(o).__name__ for o in cronjob_view('Forbid', 90, 0)]
    ['Figure', 'Html']
    """
    run = simulate_cronjob(concurrency_policy, job_run_seconds, starting_deadline_seconds)
    rows = lifelines(run, ("jobs",))
    deadline = f"{starting_deadline_seconds}s" if starting_deadline_seconds else "unset"
    title = (f"CronJob report */1 * * * *, concurrencyPolicy={concurrency_policy}, jobs run {job_run_seconds}s, "
             f"startingDeadlineSeconds {deadline}: {len(rows)} Jobs")
    fig = lifelines_figure(rows, end_seconds=run.end_seconds, title=title, spans=[(200.0, 430.0, "suspended")],
                           ticks=[60.0 * k for k in range(1, 10)], label=lambda r: r.name)
    return [fig, events_table(run.cluster, run.namespace, kinds=("CronJob",), limit=10)]


def cronjob_panel(concurrency_policy: str = "Forbid", job_run_seconds: int = 90,
                  starting_deadline_seconds: int = 0) -> Any:
    """The CronJob widget: ``concurrencyPolicy``, how long a Job runs (20 to 200 s), ``startingDeadlineSeconds`` (0 to 60).

    Parameters
    ----------
    concurrency_policy : str
        The dropdown's start.
    job_run_seconds, starting_deadline_seconds : int
        The sliders' starts.

    Returns
    -------
    ipywidgets.VBox

    Raises
    ------
    traitlets.TraitError
        When a start value does not fit its control.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     p = cronjob_panel("Replace", 200, 60)
    >>> [c.description for c in p.children[0].children]
    ['concurrencyPolicy', 'a Job runs (s)']
    """
    return _panel(cronjob_view, {
        "concurrency_policy": _dropdown("concurrencyPolicy", ("Allow", "Forbid", "Replace"), concurrency_policy),
        "job_run_seconds": _slider("a Job runs (s)", job_run_seconds, 20, 200, 10),
        "starting_deadline_seconds": _slider("startingDeadlineSeconds, 0 = unset", starting_deadline_seconds,
                                             0, 60, 5)})


# --------------------------------------------------------------------------- who writes what
def controller_writes_figure(g: nx.DiGraph, *, title: str | None = None) -> Figure:
    """:func:`kubenotes.sim.workloads.controller_writes_graph` drawn as two columns: controllers -> kinds.

    kube-controller-manager's controllers are blue with solid edges; the
    cloud-controller-manager's are grey with dashed edges: the model runs none
    of them. Both columns are ordered by their neighbours' mean row, so edges
    cross less.

    Parameters
    ----------
    g : networkx.DiGraph
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    KeyError
        For a node without its ``kind`` attribute.

    Examples
    --------
    >>> g = nx.DiGraph([("a-controller", "Pod")], )
    >>> g.nodes["a-controller"].update(kind="controller", manager="kube-controller-manager", modelled=True)
    >>> g.nodes["Pod"]["kind"] = "resource"
    >>> g.edges["a-controller", "Pod"].update(writes=2, modelled=True)
    >>> len(controller_writes_figure(g).axes)
    1
    """
    ctrls = sorted((n for n, d in g.nodes(data=True) if d.get("kind") == "controller"),
                   key=lambda n: (g.nodes[n].get("manager") != "kube-controller-manager", n))
    kinds = sorted(n for n, d in g.nodes(data=True) if d.get("kind") == "resource")
    for _ in range(2):  # barycentre ordering: each column sorted by the mean row of its neighbours (fewer crossings)
        row = {c: i for i, c in enumerate(ctrls)}
        kinds.sort(key=lambda k: (sum(row[c] for c in g.predecessors(k)) / max(g.in_degree(k), 1), k))
        col = {k: i for i, k in enumerate(kinds)}
        ctrls.sort(key=lambda c: (g.nodes[c].get("manager") != "kube-controller-manager",
                                  sum(col[k] for k in g.successors(c)) / max(g.out_degree(c), 1), c))
    pos = {}
    for i, c in enumerate(ctrls):
        pos[c] = (0.0, -i * (max(len(kinds), 1) / max(len(ctrls), 1)))
    for i, k in enumerate(kinds):
        pos[k] = (1.0, -i)
    height = max(len(ctrls), len(kinds)) * 0.3 + 1.0
    fig = detached_figure(_WIDTH_INCHES, height)
    ax = fig.add_subplot()
    solid = [(u, v) for u, v, d in g.edges(data=True) if d.get("modelled", True)]
    dashed = [(u, v) for u, v, d in g.edges(data=True) if not d.get("modelled", True)]
    nx.draw_networkx_edges(g, pos, edgelist=solid, ax=ax, edge_color="#90a4ae", arrows=True, arrowsize=8,
                           width=1.0, node_size=0)
    nx.draw_networkx_edges(g, pos, edgelist=dashed, ax=ax, edge_color="#bdbdbd", style="dashed", arrows=True,
                           arrowsize=8, width=1.0, node_size=0)
    for c in ctrls:
        ccm = g.nodes[c].get("manager") == "cloud-controller-manager"
        ax.text(*pos[c], c + (" (not modelled)" if ccm else ""), ha="right", va="center", fontsize=8,
                bbox={"boxstyle": "round,pad=0.25", "fc": "#f5f5f5" if ccm else "#e3f2fd",
                      "ec": "#9e9e9e" if ccm else "#1565c0", "ls": "--" if ccm else "-"})
    for k in kinds:
        ax.text(*pos[k], k, ha="left", va="center", fontsize=8,
                bbox={"boxstyle": "round,pad=0.25", "fc": "#fff8e1", "ec": "#f9a825"})
    ax.set_xlim(-0.9, 1.35)
    ax.set_ylim(min(y for _, y in pos.values()) - 0.7, 0.7)
    ax.axis("off")
    ax.set_title(title or "Who writes what: kube-controller-manager (blue, from this chapter's runs) and "
                          "cloud-controller-manager (grey, dashed)", fontsize=10, loc="left")
    fig.tight_layout()
    return fig

