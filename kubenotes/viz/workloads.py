"""Figures, tables and widgets of chapter 03.01 (the other controllers), drawn from runs of :mod:`kubenotes.sim.workloads`.

Nothing here reconciles or computes what a controller would do: every number
comes from a run of the controllers in a :class:`~kubenotes.sim.cluster.Cluster`
(:mod:`kubenotes.sim.workloads`), read back as lifelines (created, ready,
terminating, gone), replica and metric series, pod CIDRs and audit entries.
Each ``*_panel`` wires controls to what one position of them shows, drawn
into one kept figure, with the helpers of :mod:`kubenotes.viz.controllers`.

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
from kubenotes.sim.workloads import (Lifeline, ScenarioRun, lifeline_phases, lifelines, metric_series,
                                     namespace_conditions, node_cidrs, replica_series, simulate_cronjob,
                                     simulate_daemonset, simulate_hpa, simulate_namespace_deletion,
                                     simulate_node_ipam, simulate_service_accounts, simulate_statefulset)
from kubenotes.viz.controllers import (_LINE_COLOURS, _box_graph, _clear_plotted, _panel, _step_lines, _time_axes,
                                       _time_marks, audit_table, events_table)
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import Html, table
from kubenotes.viz.html import escape as _e

__all__ = [
    "lifelines_figure", "conditions_table", "namespace_panel", "service_accounts_table", "service_accounts_panel",
    "node_ipam_panel", "daemonset_panel", "statefulset_panel", "hpa_panel", "cronjob_panel",
    "controller_writes_figure",
]

_WIDTH_INCHES = 9.4  # 940 px at the inline backend's 100 dpi: never shrunk in a 1000 px output column
_PHASE_COLOURS = {"pending": "#bbdefb", "running": "#1565c0", "finished": "#9e9e9e", "terminating": "#ef6c00"}
_PHASE_LABELS = {"pending": "created, not ready", "running": "running / present", "finished": "finished",
                 "terminating": "terminating"}
_NEW = "#2e7d32"
_CONTROL_SIZE = {"label_px": 230, "width_px": 470}


def _refused(message: str) -> Html:
    return Html(f"<p style='color:#c62828'><b>Refused:</b> {_e(message)}</p>")


def _margins(fig: Figure, left: float, top: float, bottom: float, right: float = 0.15, **gaps: float) -> None:
    """A fixed layout, in inches from each edge of ``fig`` (instead of measuring every artist, as tight_layout)."""
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=left / width, right=1 - right / width, top=1 - top / height, bottom=bottom / height,
                        **gaps)


def _title_inches(title: str | None) -> float:
    """Height a 10 pt title of these lines takes above an Axes, with its pad."""
    return 0.12 + 0.2 * (title.count("\n") + 1) if title else 0.12


# --------------------------------------------------------------------------- lifelines
def lifelines_figure(rows: Sequence[Lifeline], *, end_seconds: float, title: str | None = None,
                     marks: Sequence[tuple[float, str]] = (), label: Callable[[Lifeline], str] | None = None,
                     colour: Callable[[Lifeline], str] | None = None, spans: Sequence[tuple[float, float, str]] = (),
                     ticks: Sequence[float] = (), figure: Figure | None = None) -> Figure:
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
    figure : matplotlib.figure.Figure, optional
        Draw into this figure (made by an earlier call, or empty) instead of a
        new one: a panel keeps one figure for all its positions.

    Returns
    -------
    matplotlib.figure.Figure
        9.4 inches wide, 0.32 inch a row (at most 7 inches high), the phases'
        legend below; a fixed layout sized to the row labels.

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
    fig = figure if figure is not None else detached_figure(_WIDTH_INCHES, 1.0)
    ax = fig.axes[0] if fig.axes else fig.add_subplot()
    n = max(len(rows), 1)
    fig.set_size_inches(_WIDTH_INCHES, min(1.3 + 0.32 * n, 7.0))
    _clear_plotted(ax)
    for legend in list(fig.legends):
        legend.remove()
    for y, r in enumerate(rows):
        for a, b, phase in lifeline_phases(r, end_seconds):  # as barh's bars; the limits are set below
            ax.add_artist(Rectangle((a, y - 0.3), max(b - a, 0.6 if phase == "terminating" else 0.0), 0.6,
                                    facecolor=colour(r) if colour and phase == "running" else _PHASE_COLOURS[phase],
                                    edgecolor="white", linewidth=0.5))
    gone = [(r.gone, y) for y, r in enumerate(rows) if r.gone is not None]
    if gone:
        ax.plot(*zip(*gone), ls="none", marker="x", color="#b71c1c", ms=6)
    for a, b, what in spans:
        ax.axvspan(a, b, color="#fff3e0", zorder=0)
        ax.annotate(what, ((a + b) / 2, 0.02), xycoords=("data", "axes fraction"), ha="center", va="bottom",
                    fontsize=8, color="#e65100")
    _time_marks(ax, marks, rows=2, bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})
    if ticks:
        ax.plot(list(ticks), [-0.9] * len(ticks), "v", color="#6a1b9a", ms=5, clip_on=False)
    ax.set_yticks(range(len(rows)), [label(r) if label else f"{r.name} on {r.node}" if r.kind == "Pod" and r.node
                                     else f"{r.kind}/{r.name}" for r in rows], fontsize=8)
    ax.set_ylim(n - 0.4, -1.6)
    ax.set_xlim(0, end_seconds)
    ax.set_xlabel("virtual time (s)")
    ax.grid(axis="x", alpha=0.25)
    fig.legend(handles=[Patch(color=colour(rows[0]) if colour and rows and phase == "running" else c,
                              label=_PHASE_LABELS[phase]) for phase, c in _PHASE_COLOURS.items()],
               loc="lower center", bbox_to_anchor=(0.5, 0.0), fontsize=7, ncol=4, frameon=False)
    left = max((t.get_window_extent().width for t in ax.get_yticklabels()), default=0.0) / fig.dpi + 0.2
    _margins(fig, left, _title_inches(title), 0.68)
    if title:  # from the figure's left edge: a long title is not cut off by the right one
        ax.set_title(title, fontsize=10, loc="left", x=-(left - 0.1) / (_WIDTH_INCHES - left - 0.15))
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


def _namespace_view(finalizer_removed_at_seconds: int, grace_period_seconds: int, *,
                    figure: Figure | None = None) -> list[Any]:
    """What :func:`namespace_panel` shows: the namespace's objects as lifelines, then its conditions."""
    run = simulate_namespace_deletion(finalizer_removed_at_seconds, grace_period_seconds)
    rows = lifelines(run, ("configmaps", "secrets", "services", "deployments", "replicasets", "pods",
                           "serviceaccounts", "endpointslices"))
    ns = [r for r in lifelines(run, ("namespaces",), namespace="") if r.name == run.namespace]
    gone = ns[0].gone if ns else None
    marks = [(run.at_seconds, "kubectl delete namespace shop")]
    if finalizer_removed_at_seconds:
        marks.append((max(finalizer_removed_at_seconds, run.at_seconds), "finalizer removed"))
    title = f"Namespace shop deleted at t={run.at_seconds:g}s; " + (
        f"gone at t={gone:g}s" if gone is not None else f"still Terminating at t={run.end_seconds:g}s")
    return [lifelines_figure(ns + rows, end_seconds=run.end_seconds, title=title, marks=marks, figure=figure),
            conditions_table(namespace_conditions(run), "status.conditions of Namespace shop, as they changed")]


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
    return _panel(_namespace_view, {
        "finalizer_removed_at_seconds": ("finalizer removed at t (s), 0 = none", finalizer_removed_at_seconds, 0, 120,
                                         10),
        "grace_period_seconds": ("pods: terminationGracePeriodSeconds", grace_period_seconds, 0, 120, 10)},
        detached_figure(_WIDTH_INCHES, 1.0), **_CONTROL_SIZE)


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
            md, data = o["metadata"], ", ".join(sorted(o.get("data") or {}))
            for_sa = (md.get("annotations") or {}).get("kubernetes.io/service-account.name", "?")
            rows.append((kind, md["name"], md.get("creationTimestamp", ""),
                         f"type {o.get('type', '')}; for {for_sa}; data: {data or '(empty)'}" if kind == "Secret"
                         else f"data: {data}" if kind == "ConfigMap" else ""))
    return table(("kind", "name", "creationTimestamp", "contents"), rows,
                 f"Namespace {run.namespace} at t={at_seconds:g}s")


def _service_accounts_view(secret_for: str, at_seconds: int) -> list[Any]:
    """What :func:`service_accounts_panel` shows: the namespace at ``at_seconds`` and the controllers' writes."""
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
    return _panel(_service_accounts_view, {
        "secret_for": ("Secret names ServiceAccount", secret_for, ("build-robot", "ghost")),
        "at_seconds": ("time t (s)", at_seconds, 0, 80, 5)}, **_CONTROL_SIZE)


# --------------------------------------------------------------------------- node IPAM
def _cidr_figure(cluster_cidr: str, node_cidr_mask_size: int, assigned: Mapping[str, str | None], *,
                 figure: Figure | None = None) -> Figure:
    """The cluster CIDR as a row of node blocks coloured by the node each was given to (past 31 blocks: summed).

    >>> len(_cidr_figure("10.244.0.0/23", 24, {"a": "10.244.0.0/24", "b": None}).axes[0].patches)
    2
    """
    net = ipaddress.ip_network(cluster_cidr, strict=False)
    total = 1 << (node_cidr_mask_size - net.prefixlen)
    blocks = list(itertools.islice(net.subnets(new_prefix=node_cidr_mask_size),
                                   total if total <= 32 else 31))
    owner = {c: n for n, c in assigned.items() if c}
    fig = figure if figure is not None else detached_figure(_WIDTH_INCHES, 2.3)
    ax = fig.axes[0] if fig.axes else fig.add_subplot()
    _clear_plotted(ax)
    for i, b in enumerate(blocks):
        who = owner.get(str(b))
        ax.add_patch(Rectangle((i, 0), 0.95, 1, ec="#616161", lw=0.5, fc=_LINE_COLOURS[
            sorted(owner.values()).index(who) % len(_LINE_COLOURS)] if who else "#eeeeee"))
        if len(blocks) <= 16:
            ax.text(i + 0.47, 0.62, str(b), ha="center", va="center", fontsize=7,
                    color="white" if who else "#424242", rotation=0 if len(blocks) <= 8 else 90)
            ax.text(i + 0.47, 0.2, who or "free", ha="center", va="center", fontsize=7,
                    color="white" if who else "#757575")
    n = len(blocks)
    if total > n:
        ax.add_patch(Rectangle((n, 0), 3, 1, fc="#fafafa", ec="#9e9e9e", lw=0.5, ls="--"))
        ax.text(n + 1.5, 0.5, f"… {total - n} more\nfree blocks", ha="center", va="center", fontsize=8)
        n += 3
    ax.set_xlim(-0.2, n + 0.2)
    ax.set_ylim(-0.1, 1.1)
    ax.axis("off")
    without = sorted(k for k, v in assigned.items() if not v)
    ax.set_title(f"--cluster-cidr={cluster_cidr}, --node-cidr-mask-size={node_cidr_mask_size}: {total} blocks"
                 + (f"; no block for {', '.join(without)}" if without else ""), fontsize=10, loc="left")
    _margins(fig, 0.1, _title_inches(ax.get_title(loc="left")), 0.05, 0.1)
    return fig


def _node_ipam_view(cluster_prefix: int, node_cidr_mask_size: int, nodes: int, *,
                    figure: Figure | None = None) -> list[Any]:
    """What :func:`node_ipam_panel` shows: the blocks, the nodes' podCIDRs, and the allocator's Events."""
    run = simulate_node_ipam(cluster_prefix, node_cidr_mask_size, nodes)
    if run.error:
        return [_refused(f"kube-controller-manager does not start node-ipam-controller: {run.error}")]
    cidrs = node_cidrs(run)
    return [_cidr_figure(run.name, node_cidr_mask_size, cidrs, figure=figure),
            table(("node", "spec.podCIDR", "pod IPs (addresses − 2)"),
                  [(n, c or "(none)", str(ipaddress.ip_network(c).num_addresses - 2) if c else "0")
                   for n, c in cidrs.items()], None, ["" if c else "color:#c62828" for c in cidrs.values()]),
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
    return _panel(_node_ipam_view, {
        "cluster_prefix": ("--cluster-cidr 10.244.0.0/", cluster_prefix, 16, 26),
        "node_cidr_mask_size": ("--node-cidr-mask-size", node_cidr_mask_size, 22, 28),
        "nodes": ("nodes (4th joins at 30 s, 5th at 40 s)", nodes, 1, 5)},
        detached_figure(_WIDTH_INCHES, 2.3), **_CONTROL_SIZE)


# --------------------------------------------------------------------------- DaemonSet
def _daemonset_view(max_unavailable: int, tolerate_control_plane: bool, *, figure: Figure | None = None) -> list[Any]:
    """What :func:`daemonset_panel` shows: the DaemonSet's pods per node, old template blue, new green."""
    run = simulate_daemonset(max_unavailable, tolerate_control_plane)
    if run.error:
        return [_refused(run.error)]
    rows = sorted(lifelines(run, ("pods",)), key=lambda r: (r.node or "", r.created))
    done = max((r.ready for r in rows if run.at_seconds <= r.created < 60 and r.ready is not None), default=None)
    title = (f"DaemonSet node-agent, maxUnavailable={max_unavailable}"
             f"{', tolerates control-plane' if tolerate_control_plane else ''}: set image at t=30s"
             + (f", all nodes updated at t={done:g}s" if done is not None else ""))
    return [lifelines_figure(rows, end_seconds=run.end_seconds, title=title, figure=figure,
                             marks=[(run.at_seconds, "kubectl set image"), (60.0, "control-plane taint removed")],
                             colour=lambda r: _NEW if r.created >= run.at_seconds else _PHASE_COLOURS["running"]),
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
    return _panel(_daemonset_view, {
        "max_unavailable": ("rollingUpdate.maxUnavailable", max_unavailable, 0, 4),
        "tolerate_control_plane": ("tolerate control-plane taint", tolerate_control_plane)},
        detached_figure(_WIDTH_INCHES, 1.0), **_CONTROL_SIZE)


# --------------------------------------------------------------------------- StatefulSet
def _statefulset_view(pod_management_policy: str, scale_up_to: int, scale_down_to: int, *,
                      figure: Figure | None = None) -> list[Any]:
    """What :func:`statefulset_panel` shows: the pods ``db-<ordinal>`` as lifelines, and the Events."""
    run = simulate_statefulset(pod_management_policy, scale_up_to, scale_down_to)
    rows = sorted(lifelines(run, ("pods",)), key=lambda r: (int(r.name.rsplit("-", 1)[1]), r.created))
    title = (f"StatefulSet db, podManagementPolicy={pod_management_policy}: 3 replicas, scaled to {scale_up_to} "
             f"at t=40s and to {scale_down_to} at t=70s")
    return [lifelines_figure(rows, end_seconds=run.end_seconds, title=title, figure=figure,
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
    return _panel(_statefulset_view, {
        "pod_management_policy": ("podManagementPolicy", pod_management_policy, ("OrderedReady", "Parallel")),
        "scale_up_to": ("replicas at t=40s", scale_up_to, 0, 6),
        "scale_down_to": ("replicas at t=70s", scale_down_to, 0, 6)},
        detached_figure(_WIDTH_INCHES, 1.0), **_CONTROL_SIZE)


# --------------------------------------------------------------------------- HPA
def _hpa_figure() -> Figure:
    """The HPA panel's figure: replicas on top, utilization below, sharing the time axis (its title is HTML above)."""
    fig = detached_figure(_WIDTH_INCHES, 3.8)
    fig.subplots(2, 1, sharex=True, height_ratios=(1.1, 1))
    return fig


def _hpa_view(high_load_milli_cpu: int, target_utilization: int, downscale_stabilization_seconds: int, *,
              figure: Figure | None = None) -> list[Any]:
    """What :func:`hpa_panel` shows: ``spec.replicas`` and the utilization the HPA read over time, and its Events.

    The title (the settings, the replica changes) is a line of HTML above the figure, not text drawn in it: the
    two lines of text took a quarter of the time to draw and encode each new position's PNG.
    """
    run = simulate_hpa(high_load_milli_cpu, target_utilization, downscale_stabilization_seconds)
    reps, metric, end = replica_series(run), metric_series(run), run.end_seconds
    fig = figure if figure is not None else _hpa_figure()
    ax1, ax2 = fig.axes
    for ax in fig.axes:
        _clear_plotted(ax)
    _step_lines(ax1, end, [(reps, {"color": "#1565c0", "lw": 2})])
    for t, n in reps[1:]:
        ax1.annotate(str(n), (t, n), xytext=(3, 3), textcoords="offset points", fontsize=8, color="#0d47a1")
    ax1.set_ylim(0, max(n for _, n in reps) + 1.5)
    _step_lines(ax2, end, [(metric, {"color": "#ef6c00", "lw": 2, "label": "current utilization (%)"})])
    ax2.axhspan(target_utilization * 0.9, target_utilization * 1.1, color="#c8e6c9", alpha=0.6,
                label="target ± 10 % (no scaling)")
    ax2.axhline(target_utilization, color="#2e7d32", lw=1, ls="--")
    ax2.set_xlim(0, end)
    _time_axes(ax2, "CPU % of request", None, integer=False)
    ax2.legend(fontsize=7, loc="upper right")
    ax1.set_ylabel("spec.replicas")
    ax1.grid(alpha=0.25)
    _margins(fig, 0.85, _title_inches(None), 0.55, hspace=0.08)
    title = Html(f"<div style='font-size:13px;line-height:1.35;margin:2px 0 0 8px'>load {high_load_milli_cpu}m from "
                 f"t=20s, 200m from t=200s; target {target_utilization}%, downscale stabilization "
                 f"{downscale_stabilization_seconds}s<br>replicas: "
                 + " → ".join(f"{n} (t={t:g})" for t, n in reps) + "</div>")
    return [title, fig, events_table(run.cluster, run.namespace, reasons=("SuccessfulRescale",), limit=6)]


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
    return _panel(_hpa_view, {
        "high_load_milli_cpu": ("CPU load from t=20s (millicores)", high_load_milli_cpu, 200, 2400, 100),
        "target_utilization": ("target averageUtilization (%)", target_utilization, 20, 100, 10),
        "downscale_stabilization_seconds": ("downscale stabilization (s)", downscale_stabilization_seconds, 0, 300,
                                            30)}, _hpa_figure(), **_CONTROL_SIZE)


# --------------------------------------------------------------------------- CronJob
def _cronjob_view(concurrency_policy: str, job_run_seconds: int, starting_deadline_seconds: int, *,
                  figure: Figure | None = None) -> list[Any]:
    """What :func:`cronjob_panel` shows: the Jobs as lifelines under the schedule ticks, and the Events."""
    run = simulate_cronjob(concurrency_policy, job_run_seconds, starting_deadline_seconds)
    rows = lifelines(run, ("jobs",))
    deadline = f"{starting_deadline_seconds}s" if starting_deadline_seconds else "unset"
    title = (f"CronJob report */1 * * * *, concurrencyPolicy={concurrency_policy}, jobs run {job_run_seconds}s, "
             f"startingDeadlineSeconds {deadline}: {len(rows)} Jobs")
    return [lifelines_figure(rows, end_seconds=run.end_seconds, title=title, spans=[(200.0, 430.0, "suspended")],
                             ticks=[60.0 * k for k in range(1, 10)], label=lambda r: r.name, figure=figure),
            events_table(run.cluster, run.namespace, kinds=("CronJob",), limit=10)]


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
    return _panel(_cronjob_view, {
        "concurrency_policy": ("concurrencyPolicy", concurrency_policy, ("Allow", "Forbid", "Replace")),
        "job_run_seconds": ("a Job runs (s)", job_run_seconds, 20, 200, 10),
        "starting_deadline_seconds": ("startingDeadlineSeconds, 0 = unset", starting_deadline_seconds, 0, 60, 5)},
        detached_figure(_WIDTH_INCHES, 1.0), **_CONTROL_SIZE)


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
    ccm = {n for n, d in g.nodes(data=True) if d.get("manager") == "cloud-controller-manager"}
    ctrls = sorted((n for n, d in g.nodes(data=True) if d.get("kind") == "controller"), key=lambda n: (n in ccm, n))
    kinds = sorted(n for n, d in g.nodes(data=True) if d.get("kind") == "resource")
    for _ in range(2):  # barycentre ordering: each column sorted by the mean row of its neighbours (fewer crossings)
        row = {c: i for i, c in enumerate(ctrls)}
        kinds.sort(key=lambda k: (sum(row[c] for c in g.predecessors(k)) / max(g.in_degree(k), 1), k))
        col = {k: i for i, k in enumerate(kinds)}
        ctrls.sort(key=lambda c: (c in ccm, sum(col[k] for k in g.successors(c)) / max(g.out_degree(c), 1), c))
    pos = {c: (0.0, -i * (max(len(kinds), 1) / max(len(ctrls), 1))) for i, c in enumerate(ctrls)}
    pos.update({k: (1.0, -float(i)) for i, k in enumerate(kinds)})
    fig = detached_figure(_WIDTH_INCHES, max(len(ctrls), len(kinds)) * 0.3 + 1.0)
    ax = fig.add_subplot()
    box = {"boxstyle": "round,pad=0.25"}
    ccm_box, kcm_box = {**box, "fc": "#f5f5f5", "ec": "#9e9e9e", "ls": "--"}, {**box, "fc": "#e3f2fd", "ec": "#1565c0"}
    _box_graph(ax, pos, {
        **{c: (c + " (not modelled)" if c in ccm else c, {"ha": "right", "fontsize": 8,
                                                           "bbox": ccm_box if c in ccm else kcm_box}) for c in ctrls},
        **{k: (k, {"ha": "left", "fontsize": 8, "bbox": {**box, "fc": "#fff8e1", "ec": "#f9a825"}}) for k in kinds}},
        [(u, v, {"color": "#90a4ae", "lw": 1.0, "mutation_scale": 8} if d.get("modelled", True) else
          {"color": "#bdbdbd", "lw": 1.0, "ls": "--", "mutation_scale": 8}) for u, v, d in g.edges(data=True)])
    ax.set_xlim(-0.9, 1.35)
    ax.set_ylim(min(y for _, y in pos.values()) - 0.7, 0.7)
    ax.axis("off")
    ax.set_title(title or "Who writes what: kube-controller-manager (blue, from this chapter's runs) and "
                          "cloud-controller-manager (grey, dashed)", fontsize=10, loc="left")
    fig.tight_layout()
    return fig
