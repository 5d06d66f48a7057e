"""Chapter 05.00's views of the kubelet: one pod's start, restarts and back-off, static pods, the PLEG cost.

Everything here reads runs of the :mod:`kubenotes.kubelet` model and lays them out; the runs are the
chapter's scenarios (``data/kubelet/*.yaml``) run by :mod:`kubenotes.sim.scenarios`
(:func:`~kubenotes.sim.scenarios.simulate_pod_start`, ``simulate_restarts``, ``simulate_static_pod``):

* :func:`~kubenotes.sim.timelines.start_timeline`, :func:`start_timeline_table`
  and :func:`start_timeline_figure`: one pod (an init container, an app
  container with a readiness probe) started by
  :class:`~kubenotes.kubelet.kubelet.Kubelet` through its CRI runtime, as the
  runtime's call trace merged with the kubelet's events and every probe run;
* :func:`~kubenotes.sim.timelines.status_history` and :func:`status_history_table`: the pod status the
  kubelet wrote to the API, write by write (phase, conditions, container state);
* :func:`~kubenotes.sim.timelines.restart_history`, :func:`restarts_figure`
  and :func:`restarts_panel`: a liveness failure (or a process that exits) and
  the restarts under ``restartPolicy`` with the CrashLoopBackOff;
* :func:`static_pod_table`, :func:`~kubenotes.sim.timelines.static_pod_merges`: a manifest directory
  read as the file source reads it, the static pod and its mirror pod;
  :func:`mirror_pod_writes` (:func:`~kubenotes.sim.timelines.mirror_pod_history`): the API writes on it;
* :func:`pleg_cost_figure` and :func:`pleg_panel`: the PLEG relist cost curve
  (:func:`kubenotes.kubelet.pleg.relist_seconds`) and where ``maxPods`` 110 sits;
* :func:`kubelet_graph` and :func:`kubelet_graph_figure`: where a kubelet's pods
  come from and where its work goes, with upstream's component names.

Notes
-----
There is no upstream counterpart: these are the views ``kubectl describe pod``,
``kubectl get pod -w -o yaml``, ``crictl`` and the kubelet's log give of the
same events, read from the model's own records. Probe *outcomes* are set by
the scenario (a results source), not computed; image sizes and CRI latencies
are the CRI model's illustrative defaults.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go (syncLoopIteration, SyncPod)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (computePodActions, SyncPod, doBackOff)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/worker.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/file.go, pkg/kubelet/pod/mirror_client.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/pleg/generic.go
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import ipywidgets as widgets
import networkx as nx
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from kubenotes.api.podutil import RESTART_POLICIES
from kubenotes.kubelet.backoff import go_duration
from kubenotes.kubelet.pleg import RELIST_PERIOD_SECONDS, max_pods_within_period, relist_seconds
from kubenotes.kubelet.server import COMMANDS, node_api_hops
from kubenotes.apiserver.request import UserInfo
from kubenotes.kubelet.prober import LIVENESS
from kubenotes.sim.scenarios import (
    CAUSES,
    FAIL_FROM_SECONDS,
    FAIL_UNTIL_SECONDS,
    PodRun,
    StaticPodRun,
    simulate_restarts,
)
from kubenotes.sim.timelines import (
    mirror_pod_history,
    pod_events,
    restart_counts,
    restart_history,
    running_spans,
    start_timeline,
    static_pod_fields,
)
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import CAPTION_TIGHT_CSS, TABLE_CSS, TD_CSS, Html, table
from kubenotes.viz.widgets import _agg_canvas, int_slider, live_panel, memoise_update

__all__ = [
    "NODE_NAME",
    "start_timeline_table",
    "start_timeline_figure",
    "status_history_table",
    "restart_table",
    "kubelet_events_table",
    "restarts_figure",
    "restarts_panel",
    "static_pod_table",
    "mirror_pod_writes",
    "pleg_cost_figure",
    "pleg_panel",
    "kubelet_graph",
    "kubelet_graph_figure",
    "node_api_table",
    "node_api_figure",
    "node_api_panel",
]

#: The one worker node every scenario here runs on.
NODE_NAME = "worker-1"

# ----------------------------------------------------------------------------- one pod's start
_COLOURS = {"volume": "#00838f", "CRI": "#1565c0", "event": "#2e7d32", "probe": "#6a1b9a", "status": "#e65100"}


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], caption: str | None = None,
           colours: Sequence[str | None] | None = None, **css: str) -> Html:
    """The chapter's tables: text cells, no thead/tbody, a text colour per row (``colours``)."""
    return table(headers, rows, caption, caption_css=CAPTION_TIGHT_CSS, sections=False, row_colours=colours, **css)


def _axes(width: float, height: float) -> tuple[Figure, Any]:
    """A detached figure and its one Axes."""
    fig = detached_figure(width, height)
    return fig, fig.add_subplot(1, 1, 1)


def _probe_marks(ax: Any, probes: Iterable[Mapping[str, Any]], y: float, ms: float) -> None:
    """One mark per probe run at height ``y``: a green dot for a success, a red cross otherwise."""
    for p in probes:
        ok = p["result"] == "success"
        ax.plot(p["time"], y, "o" if ok else "x", color="#2e7d32" if ok else "#c62828", ms=ms)


def _panel(update: Any, **controls: tuple) -> widgets.VBox:
    """A live panel over ``update`` (memoised per setting); each control is ``(description, value, *choice)``.

    The choice is ``lo, hi[, step]`` for an int slider, a tuple of options for a dropdown (``ToggleButtons``
    as a fourth item for buttons), nothing for a checkbox.
    """
    style = {"description_width": "initial"}
    built = {}
    for key, (label, value, *choice) in controls.items():
        if not choice:
            built[key] = widgets.Checkbox(value=value, description=label, style=style)
        elif isinstance(choice[0], tuple):
            kind = choice[1] if len(choice) > 1 else widgets.Dropdown
            built[key] = kind(options=list(choice[0]), value=value, description=label, style=style)
        else:
            built[key] = int_slider(label, value, *choice, style=style)
    return live_panel(memoise_update(update), built)


def start_timeline_table(rows: Sequence[Mapping[str, Any]], caption: str | None = None) -> Html:
    """:func:`~kubenotes.sim.timelines.start_timeline`'s rows as an HTML table (time, source, what, container, detail).

    Parameters
    ----------
    rows : sequence of dict
        From :func:`~kubenotes.sim.timelines.start_timeline`.
    caption : str, optional

    Returns
    -------
    Html
        One row per entry, coloured by source; a CRI call's duration follows its method (``RunPodSandbox (700ms)``).

    Raises
    ------
    KeyError
        For a row without ``time``, ``source``, ``what``, ``container``, ``detail`` or ``duration_seconds``.

    Examples
    --------
    >>> "RunPodSandbox" in start_timeline_table([{"time": 0.0, "source": "CRI", "what": "RunPodSandbox",
    ...     "container": "", "detail": "", "duration_seconds": 0.7}])
    True
    """
    body = [(f"{r['time']:.2f}", r["source"], r["what"] + (
        f" ({go_duration(round(r['duration_seconds'], 3))})" if r["duration_seconds"] else ""), r["container"],
        r["detail"]) for r in rows]
    return _table(["t (s)", "source", "what", "container", "detail"], body, caption,
                  [_COLOURS.get(r["source"]) for r in rows])


def start_timeline_figure(run: PodRun) -> Figure:
    """The pod's start as lanes: the sandbox, each container's pull/create/start and run, probes, Ready.

    Parameters
    ----------
    run : PodRun
        From :func:`kubenotes.sim.scenarios.simulate_pod_start` (or another pod run).

    Returns
    -------
    matplotlib.figure.Figure
        One Axes, one lane per sandbox, (init) container, probes and Ready; x is virtual seconds; titled with
        the pod, its node and "syncPod's order through the CRI".

    Raises
    ------
    AttributeError, KeyError
        When ``run`` is not a :class:`~kubenotes.sim.scenarios.PodRun` or its pod has no ``spec.containers``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> fig = start_timeline_figure(simulate_pod_start())
    >>> len(fig.axes), fig.axes[0].get_title()
    (1, "Pod web on worker-1: syncPod's order through the CRI")
    >>> plt.close(fig)
    """
    rows = start_timeline(run)
    containers = (run.pod["spec"].get("initContainers") or []) + run.pod["spec"]["containers"]
    lanes = ["sandbox", *(c["name"] for c in containers), "probes", "Ready"]
    y = {lane: len(lanes) - 1 - i for i, lane in enumerate(lanes)}
    fig, ax = _axes(11, 0.55 * len(lanes) + 1.4)
    end = run.until_seconds
    pull_for = {c["image"]: c["name"] for c in reversed(containers)}  # an image's pull: its first container's lane
    colours = {"RunPodSandbox": "#90a4ae", "PullImage": "#42a5f5", "CreateContainer": "#ffb74d",
               "StartContainer": "#66bb6a", "StopContainer": "#ef5350"}
    for r in rows:
        lane = {"RunPodSandbox": "sandbox", "PullImage": pull_for.get(r["detail"], "")}.get(r["what"], r["container"])
        if r["source"] == "CRI" and lane in y:
            ax.barh(y[lane], max(r["duration_seconds"], 0.15), left=r["time"], height=0.5,
                    color=colours.get(r["what"], "#bbb"), edgecolor="black", linewidth=0.4)
    for name, start, stop in running_spans(run):
        ax.barh(y[name], stop - start, left=start, height=0.22, color="#2e7d32", alpha=0.6)
    sandbox_start = next((r["time"] + r["duration_seconds"] for r in rows if r["what"] == "RunPodSandbox"), None)
    if sandbox_start is not None:
        ax.barh(y["sandbox"], end - sandbox_start, left=sandbox_start, height=0.22, color="#607d8b", alpha=0.5)
    _probe_marks(ax, run.probes, y["probes"], 6)
    for p in run.probes:
        ax.annotate(p["kind"][0], (p["time"], y["probes"]), xytext=(0, 6), textcoords="offset points",
                    ha="center", fontsize=7)
    ready_rows = [r for r in rows if r["source"] == "status"]
    for r, following in zip(ready_rows, ready_rows[1:] + [{"time": end}]):
        on = r["detail"].startswith("Ready=True")
        ax.barh(y["Ready"], following["time"] - r["time"], left=r["time"], height=0.4,
                color="#2e7d32" if on else "#e0e0e0", edgecolor="black", linewidth=0.3)
        if on:
            ax.annotate(f"Ready at {r['time']:.1f}s", (r["time"], y["Ready"]), xytext=(3, 8),
                        textcoords="offset points", fontsize=8)
    ax.set_yticks([y[lane] for lane in lanes], lanes)
    ax.set_xlim(0, end)
    ax.set_xlabel("virtual time (s)")
    ax.legend(handles=[Patch(color=c, label=m) for m, c in colours.items() if m != "StopContainer"]
              + [Patch(color="#2e7d32", alpha=0.6, label="running")], fontsize=7, loc="upper left",
              bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"Pod {run.pod_name} on {NODE_NAME}: syncPod's order through the CRI", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- the status over time
_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")


def status_history_table(history: Sequence[Mapping[str, Any]], caption: str | None = None) -> Html:
    """:func:`~kubenotes.sim.timelines.status_history` as ``kubectl get pod -w``-like rows with the conditions and container states.

    Parameters
    ----------
    history : sequence of dict
        From :func:`~kubenotes.sim.timelines.status_history`.
    caption : str, optional

    Returns
    -------
    Html
        One row per status write: t (s), phase, the four pod conditions as
        ``T``/``F`` (``-`` when absent), each container's state and restarts, lastState.

    Raises
    ------
    KeyError
        For an entry without one of :func:`~kubenotes.sim.timelines.status_history`'s keys.

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> from kubenotes.sim.timelines import status_history
    >>> h = status_history(simulate_pod_start())
    >>> t = status_history_table(h); t.count("<tr") == len(h) + 1, "Ready=T" in t
    (True, True)
    """
    body = []
    for h in history:
        conds = " ".join(f"{c}={h['conditions'].get(c, '-')[0]}" for c in _CONDITIONS)
        containers = "; ".join(f"{n}: {s} (restarts {h['restart_count'][n]})" for n, s in h["containers"].items())
        last = "; ".join(f"{n}: {s}" for n, s in h["last_state"].items() if s != "-") or "-"
        body.append((f"{h['time']:.2f}", h["phase"], conds, containers, last))
    return _table(["t (s)", "phase", "conditions (T/F)", "state", "lastState"], body, caption)


# ----------------------------------------------------------------------------- restarts and back-off
def restart_table(history: Sequence[Mapping[str, Any]], caption: str | None = None) -> Html:
    """:func:`~kubenotes.sim.timelines.restart_history` as a table.

    Parameters
    ----------
    history : sequence of dict
        From :func:`~kubenotes.sim.timelines.restart_history`.
    caption : str, optional

    Returns
    -------
    Html
        One row per run: restartCount, started, finished (s), stopped by
        (the Killing message, ``exited`` or ``-`` while running), waited (s), back-off.

    Raises
    ------
    KeyError
        For an entry without one of :func:`~kubenotes.sim.timelines.restart_history`'s keys.

    Examples
    --------
    >>> t = restart_table(restart_history(simulate_restarts(cause="exits with code 1", until_seconds=60)))
    >>> "exited" in t, "10s" in t
    (True, True)
    """
    body = [(h["attempt"], f"{h['started']:.1f}", "-" if h["finished"] is None else f"{h['finished']:.1f}",
             h["killed_by"] or ("-" if h["finished"] is None else "exited"),
             "-" if h["gap_seconds"] is None else f"{h['gap_seconds']:.1f}", h["back_off"] or "-")
            for h in history]
    return _table(["restartCount", "started (s)", "finished (s)", "stopped by", "waited (s)", "back-off"], body,
                  caption)


def restarts_figure(run: PodRun) -> Figure:
    """Container ``app``'s runs, its liveness probes, the Killing/BackOff events and restartCount over time.

    Parameters
    ----------
    run : PodRun
        From :func:`kubenotes.sim.scenarios.simulate_restarts`.

    Returns
    -------
    matplotlib.figure.Figure
        Two Axes sharing virtual time: the runs (with each back-off), the probes and events above, the
        ``restartCount`` the kubelet wrote below; titled with the restart policy, phase and waiting reason.

    Examples
    --------
    >>> restarts_figure(simulate_restarts(cause="exits with code 1", until_seconds=60)).axes[0].get_title()
    'restartPolicy Always: phase Running (CrashLoopBackOff), restartCount 2 at t=60s'
    """
    container = "app"
    hist = restart_history(run, container)
    end = run.until_seconds
    fig = detached_figure(10, 3.6)
    ax, ax2 = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2.2, 1]})
    for h in hist:
        stop = h["finished"] if h["finished"] is not None else end
        ax.barh(2, stop - h["started"], left=h["started"], height=0.5, color="#66bb6a", edgecolor="black", lw=0.4)
        ax.annotate(str(h["attempt"]), (h["started"] + 0.5, 2), va="center", fontsize=7)
        if h["gap_seconds"] is not None and h["back_off"]:
            ax.annotate(f"back-off {h['back_off']}", (h["started"] - h["gap_seconds"] / 2, 2.45), ha="center",
                        fontsize=7, color="#6d4c41")
    liveness = [p for p in run.probes if p["kind"] == LIVENESS]
    if any(p["result"] != "success" for p in liveness):
        ax.axvspan(FAIL_FROM_SECONDS, FAIL_UNTIL_SECONDS, color="#ffebee", zorder=0)
        ax.annotate("/healthz answers 500", (FAIL_FROM_SECONDS, 2.75), fontsize=7, color="#c62828")
    _probe_marks(ax, liveness, 1, 5)
    marks = {"Killing": ("v", "#ef6c00"), "BackOff": ("s", "#6d4c41")}
    for e in pod_events(run, tuple(marks)):
        ax.plot(e["time"], 0, marks[e["reason"]][0], color=marks[e["reason"]][1], ms=7)
    ax.set_yticks([2, 1, 0], [f"{container} runs", "liveness probes", "Killing ▼ / BackOff ■"])
    ax.set_ylim(-0.6, 2.9)
    ax.grid(axis="x", alpha=0.3)
    writes = restart_counts(run, container)
    counts = [0] + [n for _, n in writes]
    ax2.step([0.0] + [t for t, _ in writes] + [end], counts + counts[-1:], where="post", color="#1565c0")
    ax2.set_ylabel("restartCount", fontsize=8)
    ax2.set_xlabel("virtual time (s)")
    ax2.set_xlim(0, end)
    ax2.grid(alpha=0.3)
    status = run.pod["status"]
    waiting = next((((c.get("state") or {}).get("waiting") or {}).get("reason") for c in
                    status.get("containerStatuses") or []), None)
    ax.set_title(f"restartPolicy {run.pod['spec'].get('restartPolicy')}: phase {status.get('phase')}"
                 + (f" ({waiting})" if waiting else "") + f", restartCount {counts[-1]} at t={end:.0f}s",
                 fontsize=10)
    fig.tight_layout()
    return fig


def restarts_panel(failure_threshold: int = 3, period_seconds: int = 5, restart_policy: str = "Always",
                   cause: str = CAUSES[0]) -> widgets.VBox:
    """The chapter's widget: probe settings, the restart policy and the cause give the restart timeline.

    The first control is the ``failureThreshold`` slider; every change reruns
    :func:`simulate_restarts` (memoised) and redraws :func:`restarts_figure`
    and the :func:`restart_table`.

    Parameters
    ----------
    failure_threshold : int
        The liveness probe's ``failureThreshold`` (slider, 1 to 6).
    period_seconds : int
        Its ``periodSeconds`` (slider, 1 to 20).
    restart_policy : str
        One of ``RESTART_POLICIES`` (``Always``, ``OnFailure``, ``Never``).
    cause : str
        One of :data:`kubenotes.sim.scenarios.CAUSES`: what goes wrong with the container.

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`: the four controls, two a row, then the figure and table.

    Raises
    ------
    traitlets.TraitError
        For a ``restart_policy`` or ``cause`` not among the dropdown's options, or a non-int slider value.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = restarts_panel(cause="exits with code 1")
    >>> [c.description for row in p.children[:-1] for c in row.children]
    ['failureThreshold', 'periodSeconds', 'restartPolicy', 'the container']
    """
    def update(failure_threshold: int, period_seconds: int, restart_policy: str, cause: str) -> list:
        run = simulate_restarts(failure_threshold, period_seconds, restart_policy, cause)
        return [restarts_figure(run), restart_table(restart_history(run))]

    return _panel(update, failure_threshold=("failureThreshold", failure_threshold, 1, 6),
                  period_seconds=("periodSeconds", period_seconds, 1, 20),
                  restart_policy=("restartPolicy", restart_policy, tuple(RESTART_POLICIES)),
                  cause=("the container", cause, tuple(CAUSES)))


def kubelet_events_table(run: PodRun, reasons: Iterable[str] | None = None, *, limit: int | None = 12) -> Html:
    """The kubelet's events for the pod, as ``kubectl describe pod`` lists them (type, reason, from, message).

    Parameters
    ----------
    run : PodRun
    reasons : iterable of str, optional
        Keep only these reasons.
    limit : int, optional
        The first ``limit`` rows; None for all.

    Returns
    -------
    Html
        Rows t (s), type, reason, fieldPath, message, in the order the kubelet recorded them; Warnings in red.

    Raises
    ------
    AttributeError
        When ``run`` has no ``kubelet.events`` (not a :class:`~kubenotes.sim.scenarios.PodRun`).
    KeyError
        For an event without ``time``, ``type``, ``reason`` or ``message``.

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> "Started container web" in kubelet_events_table(simulate_pod_start())
    True
    """
    events = pod_events(run, None if reasons is None else list(reasons))[:limit]
    body = [(f"{e['time']:.1f}", e["type"], e["reason"], e.get("field_path") or "", e["message"]) for e in events]
    return _table(["t (s)", "type", "reason", "fieldPath", "message"], body, None,
                  ["#c62828" if e["type"] == "Warning" else None for e in events])


# ----------------------------------------------------------------------------- static pods
def static_pod_table(files: Mapping[str, str] | None = None) -> Html:
    """The static pods a manifest directory gives, next to their mirror pods in the API.

    Parameters
    ----------
    files : dict[str, str], optional
        File name -> content of ``/etc/kubernetes/manifests`` (default: ``etcd.yaml`` with
        :data:`~kubenotes.sim.timelines.STATIC_MANIFEST`).

    Returns
    -------
    Html
        One row per field: the static pod the kubelet runs on :data:`NODE_NAME`, the mirror pod it creates.
        A file that does not parse becomes an ``error`` row, not an exception.

    Raises
    ------
    TypeError
        When ``files`` is not a mapping (or pairs) of file name to content.
    AttributeError
        When a file's content is not a str.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/file.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/pod/mirror_client.go

    Examples
    --------
    >>> "etcd-worker-1" in static_pod_table()
    True
    """
    rows = static_pod_fields(files, NODE_NAME)
    return _table(["field", "static pod (the kubelet runs it)", "mirror pod (the API shows it)"], rows,
                  f"/etc/kubernetes/manifests on {NODE_NAME}")


def mirror_pod_writes(run: StaticPodRun) -> Html:
    """:func:`~kubenotes.sim.timelines.mirror_pod_history` as a table: the API writes on the mirror pod, kubelet events.

    Parameters
    ----------
    run : StaticPodRun
        From :func:`kubenotes.sim.scenarios.simulate_static_pod`.

    Returns
    -------
    Html
        Rows t (s), component, what (``create pod``, ``event Started``...), detail.

    Raises
    ------
    AttributeError
        When ``run`` is not a :class:`~kubenotes.sim.scenarios.StaticPodRun`.

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_static_pod
    >>> t = mirror_pod_writes(simulate_static_pod(None, None, until_seconds=5))
    >>> "create pod" in t, "etcd-worker-1" in t
    (True, True)
    """
    rows = mirror_pod_history(run)
    return _table(["t (s)", "component", "what", "detail"],
                  [(f"{r['time']:.2f}", r["component"], r["what"], r["detail"]) for r in rows],
                  f"Static pod {run.namespace}/{run.name}: API writes and kubelet events")


# ----------------------------------------------------------------------------- PLEG
def pleg_cost_figure(pods: int = 110, containers_per_pod: int = 2, changed_percent: int = 100) -> Figure:
    """The PLEG relist duration against the pods on the node, with the 1 s relist period and ``pods``.

    Parameters
    ----------
    pods : int
        The marked pod count.
    containers_per_pod : int
    changed_percent : int
        Share of pods whose containers changed since the last relist (each is inspected).

    Returns
    -------
    matplotlib.figure.Figure
    """
    xs = list(range(0, 401, 5))
    fig, ax = _axes(9, 3.8)
    curves = [(1, ":"), (2, "-"), (4, "--")]
    if containers_per_pod not in (1, 2, 4):
        curves.append((containers_per_pod, "-"))
    for cpp, style in curves:
        chosen = cpp == containers_per_pod
        ax.plot(xs, [relist_seconds(n, cpp, changed_pods=n * changed_percent // 100) for n in xs], style,
                color="#1565c0" if chosen else "#90a4ae", lw=2 if chosen else 1,
                label=f"{cpp} container(s)/pod" if cpp in (1, 2, 4) else f"{cpp} containers/pod")
    ax.axhline(RELIST_PERIOD_SECONDS, color="#c62828", ls="--", lw=1)
    ax.annotate("relist period 1 s", (400, RELIST_PERIOD_SECONDS), xytext=(-4, 4), textcoords="offset points",
                ha="right", fontsize=8, color="#c62828")
    ax.axvline(110, color="#6a1b9a", ls=":", lw=1)
    ax.annotate("maxPods 110", (110, 0), xytext=(3, 4), textcoords="offset points", fontsize=8, color="#6a1b9a")
    took = relist_seconds(pods, containers_per_pod, changed_pods=pods * changed_percent // 100)
    ax.plot([pods], [took], "o", color="#e65100", ms=8)
    fits = max_pods_within_period(containers_per_pod, changed_pods=None) if changed_percent == 100 else None
    ax.set_xlabel("pods on the node")
    ax.set_ylabel("one relist (s)")
    ax.set_xlim(0, 400)
    ax.set_ylim(0, max(2.5, took * 1.1))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"{pods} pods × {containers_per_pod} containers, {changed_percent}% changed: a relist takes "
                 f"{took:.2f} s" + (f"; at most {fits} pods fit in 1 s" if fits is not None else ""), fontsize=10)
    fig.tight_layout()
    return fig


def pleg_panel(pods: int = 110, containers_per_pod: int = 2, changed_percent: int = 100) -> widgets.VBox:
    """The PLEG-cost widget: a pods slider (first), containers per pod, and the share of changed pods.

    Parameters
    ----------
    pods : int
        The pods slider's start (10 to 400, step 10).
    containers_per_pod : int
        Its start (1 to 6).
    changed_percent : int
        Its start (0 to 100, step 10).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`: the sliders, then :func:`pleg_cost_figure`.

    Raises
    ------
    traitlets.TraitError
        When a start value is not a number (a float is truncated to an int).

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = pleg_panel(110)
    >>> [c.description for row in p.children[:-1] for c in row.children]
    ['pods', 'containers per pod', '% pods changed']
    """
    return _panel(pleg_cost_figure, pods=("pods", pods, 10, 400, 10),
                  containers_per_pod=("containers per pod", containers_per_pod, 1, 6),
                  changed_percent=("% pods changed", changed_percent, 0, 100, 10))


# ----------------------------------------------------------------------------- the kubelet as a graph
_GRAPH_NODES = {
    # name: (x, y, kind)
    "kube-apiserver\n(watch spec.nodeName)": (0, 4, "source"),
    "/etc/kubernetes/manifests\n(fileCheckFrequency 20s)": (0, 2.6, "source"),
    "staticPodURL\n(httpCheckFrequency 20s)": (0, 1.2, "source"),
    "config: podStorage.merge": (2.4, 2.6, "kubelet"),
    "syncLoop": (4.6, 2.6, "kubelet"),
    "podWorkers": (6.6, 2.6, "kubelet"),
    "SyncPod / computePodActions": (8.8, 2.6, "kubelet"),
    "PLEG relist (1s)": (6.6, 0.8, "kubelet"),
    "prober manager": (4.6, 0.8, "kubelet"),
    "status manager": (8.8, 4.4, "kubelet"),
    "mirror client": (2.4, 4.4, "kubelet"),
    "CRI: RuntimeService\nImageService": (11, 1.6, "runtime"),
    "containerd + runc": (11, 0.2, "runtime"),
}
_GRAPH_EDGES = [
    ("kube-apiserver\n(watch spec.nodeName)", "config: podStorage.merge", "pods (ADD/UPDATE/DELETE)"),
    ("/etc/kubernetes/manifests\n(fileCheckFrequency 20s)", "config: podStorage.merge", "static\npods"),
    ("staticPodURL\n(httpCheckFrequency 20s)", "config: podStorage.merge", "static pods"),
    ("config: podStorage.merge", "syncLoop", "configCh"),
    ("config: podStorage.merge", "mirror client", "static pods"),
    ("syncLoop", "podWorkers", "UpdatePod"),
    ("podWorkers", "SyncPod / computePodActions", "one pod\nat a time"),
    ("SyncPod / computePodActions", "CRI: RuntimeService\nImageService", "RunPodSandbox, PullImage,\nCreate/StartContainer"),
    ("CRI: RuntimeService\nImageService", "containerd + runc", "gRPC"),
    ("PLEG relist (1s)", "CRI: RuntimeService\nImageService", "ListPodSandbox, ListContainers"),
    ("PLEG relist (1s)", "syncLoop", "plegCh"),
    ("prober manager", "syncLoop", "liveness/readiness/startup results"),
    ("SyncPod / computePodActions", "status manager", "API pod status"),
    ("status manager", "kube-apiserver\n(watch spec.nodeName)", "PATCH pods/status"),
    ("mirror client", "kube-apiserver\n(watch spec.nodeName)", "create mirror pod"),
]


def kubelet_graph() -> nx.DiGraph:
    """The kubelet's pipeline as a graph: pod sources → config → syncLoop → podWorkers → SyncPod → CRI.

    Parameters
    ----------
    None

    Returns
    -------
    networkx.DiGraph
        Node attributes ``pos`` (fixed layout) and ``kind`` (``source``, ``kubelet``, ``runtime``);
        edge attribute ``label``.

    Raises
    ------
    None of its own: the graph is fixed.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go (``syncLoop``)

    Examples
    --------
    >>> g = kubelet_graph()
    >>> sorted(g.predecessors("config: podStorage.merge"))[:1]
    ['/etc/kubernetes/manifests\\n(fileCheckFrequency 20s)']
    >>> nx.has_path(g, "/etc/kubernetes/manifests\\n(fileCheckFrequency 20s)", "containerd + runc")
    True
    """
    g = nx.DiGraph()
    g.add_nodes_from((name, {"pos": (x, y), "kind": kind}) for name, (x, y, kind) in _GRAPH_NODES.items())
    g.add_edges_from((a, b, {"label": label}) for a, b, label in _GRAPH_EDGES)
    return g


def _visible_middle(fig: Figure, ax: Any, start: Any, end: Any) -> float:
    """Where, from 0 at ``start``'s centre to 1 at ``end``'s, the straight line between two text boxes is halfway
    between their edges (0.5 when the boxes cannot be measured)."""
    canvas = _agg_canvas(fig)
    if canvas is None:  # pragma: no cover - another backend's canvas
        return 0.5
    renderer = canvas.get_renderer()
    ends = []
    for t in (start, end):
        t.update_bbox_position_size(renderer)
        bb = t.get_bbox_patch().get_window_extent(renderer)
        ends.append(((bb.x0 + bb.x1) / 2, (bb.y0 + bb.y1) / 2, bb.width / 2, bb.height / 2))
    (xa, ya, wa, ha), (xb, yb, wb, hb) = ends
    dx, dy = abs(xb - xa) or 1e-9, abs(yb - ya) or 1e-9
    leave, enter = min(wa / dx, ha / dy), 1 - min(wb / dx, hb / dy)
    return (leave + enter) / 2 if leave < enter else 0.5


def kubelet_graph_figure(g: nx.DiGraph | None = None, *, highlight: Iterable[str] = ()) -> Figure:
    """Draw :func:`kubelet_graph` with its fixed layout; ``highlight`` names nodes to outline in red.

    Parameters
    ----------
    g : networkx.DiGraph, optional
        From :func:`kubelet_graph` (the default).
    highlight : iterable of str
        Node names to outline in red.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes (axis off), 9.6 x 5.2 inches: at most 1,000 px wide inline.

    Raises
    ------
    KeyError
        For a node without ``pos`` or ``kind`` (a graph not built by :func:`kubelet_graph`).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig = kubelet_graph_figure(highlight=["syncLoop"])
    >>> len(fig.axes), fig.axes[0].get_title().startswith("The kubelet (kubelet/worker-1)")
    (1, True)
    >>> plt.close(fig)
    """
    g = g if g is not None else kubelet_graph()
    pos = nx.get_node_attributes(g, "pos")
    fig, ax = _axes(9.6, 5.2)  # <= 1,000 px at the inline backend's 100 dpi (graphs.MAX_INLINE_WIDTH_PX)
    colours = {"source": "#e3f2fd", "kubelet": "#fff3e0", "runtime": "#e8f5e9"}
    hl = set(highlight)
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowstyle="-|>", arrowsize=12, edge_color="#777",
                           node_size=3200, connectionstyle="arc3,rad=0.06")
    boxes = {}
    for n, (x, y) in pos.items():
        boxes[n] = ax.text(x, y, n, ha="center", va="center", fontsize=7,
                           bbox={"boxstyle": "round,pad=0.35", "fc": colours[g.nodes[n]["kind"]],
                                 "ec": "#c62828" if n in hl else "#555", "lw": 2 if n in hl else 0.8})
    ax.set_xlim(-1.0, 11.9)
    ax.set_ylim(-0.5, 5)
    ax.axis("off")
    ax.set_title("The kubelet (kubelet/" + NODE_NAME + "): pod sources, the sync loop, and the CRI", fontsize=10)
    fig.tight_layout()  # the axes' final place, before the labels are placed from measured boxes
    for (a, b), label in nx.get_edge_attributes(g, "label").items():
        # in the middle of the edge's visible part, between the two boxes (not of the centres: under a box)
        nx.draw_networkx_edge_labels(g, pos, ax=ax, edge_labels={(a, b): label}, font_size=6,
                                     label_pos=_visible_middle(fig, ax, boxes[a], boxes[b]),
                                     bbox={"fc": "white", "ec": "none", "alpha": 0.7})
    return fig


# ----------------------------------------------------------------------------- API server -> kubelet
_HOP_MODELLED, _HOP_MISSING = "#1565c0", "#9e9e9e"


def node_api_table(hops: Sequence[Mapping[str, Any]], caption: str | None = None) -> Html:
    """:func:`~kubenotes.kubelet.server.node_api_hops`'s hops as an HTML table, hops the model lacks in grey.

    Parameters
    ----------
    hops : sequence of dict
        From :func:`~kubenotes.kubelet.server.node_api_hops`.
    caption : str, optional

    Returns
    -------
    Html
        One row per hop: number, from → to, request, authorized as, in the model (yes/no), its record.
        Long URLs wrap inside their cells (the table stays within about 1,000 px).

    Raises
    ------
    KeyError
        For a hop without ``from``, ``to``, ``request``, ``authorized as``, ``modelled`` or ``record``.

    Examples
    --------
    >>> hop = {"from": "kubectl", "to": "kube-apiserver", "request": "GET /api/v1/namespaces/default/pods/web/log",
    ...        "authorized as": "get pods/log", "modelled": True, "record": "authorization: Allow"}
    >>> "get pods/log" in node_api_table([hop])
    True
    """
    rows = [(str(i), f"{h['from']} → {h['to']}", h["request"], h["authorized as"], "yes" if h["modelled"] else "no",
             h["record"]) for i, h in enumerate(hops, 1)]
    return _table(["hop", "from → to", "request", "authorized as", "in the model", "the model's record"], rows,
                  caption, [None if h["modelled"] else "#757575" for h in hops],
                  table_css=TABLE_CSS + ";max-width:1000px", td_css=TD_CSS + ";overflow-wrap:anywhere")


def node_api_figure(hops: Sequence[Mapping[str, Any]]) -> Figure:
    """The hops as a sequence diagram: one lifeline per component, one arrow per hop, grey dashed where not modelled.

    Parameters
    ----------
    hops : sequence of dict
        From :func:`~kubenotes.kubelet.server.node_api_hops`.

    Returns
    -------
    matplotlib.figure.Figure
        9.5 inches wide (at most 950 px at the notebook's 100 dpi).

    Raises
    ------
    ValueError
        For no hops.

    Examples
    --------
    >>> hop = {"from": "kubectl", "to": "kube-apiserver", "request": "GET .../log", "authorized as": "get pods/log",
    ...        "modelled": True, "record": ""}
    >>> [t.get_text() for t in node_api_figure([hop]).axes[0].texts][:2]
    ['kubectl', 'kube-apiserver']
    """
    if not hops:
        raise ValueError("node_api_figure: no hops to draw")
    x = {n: i for i, n in enumerate(dict.fromkeys(n for h in hops for n in (h["from"], h["to"])))}
    rows = len(hops)
    fig, ax = _axes(9.5, 1.1 + 0.5 * rows)
    top = rows + 0.2
    for n, i in x.items():
        ax.plot([i, i], [0.3, top], color="#bdbdbd", lw=1, zorder=1)
        ax.text(i, top + 0.05, n.replace(" (", "\n("), ha="center", va="bottom", fontsize=8.5, fontweight="bold")
    for k, h in enumerate(hops):
        y = rows - k - 0.2
        colour = _HOP_MODELLED if h["modelled"] else _HOP_MISSING
        a, b = x[h["from"]], x[h["to"]]
        ax.annotate("", xy=(b, y), xytext=(a, y), arrowprops={
            "arrowstyle": "-|>", "color": colour, "lw": 1.6, "linestyle": "-" if h["modelled"] else "--"})
        # the request without scheme, query or aside in parentheses, at most 50 characters
        text = h["request"].replace("https://", "").split("?")[0].split(" (")[0]
        text = text if len(text) <= 50 else text[:49] + "…"
        ax.text((a + b) / 2, y + 0.08, f"{k + 1}. {text}", ha="center", va="bottom",
                fontsize=7.5, color=colour if h["modelled"] else "#616161")
    ax.set_xlim(-0.6, len(x) - 0.4)
    ax.set_ylim(0, top + 0.75)
    ax.axis("off")
    done = sum(1 for h in hops if h["modelled"])
    ax.set_title(f"{done} of {rows} hops in the model (blue); grey dashed: upstream only", fontsize=10)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.02, top=0.9)  # fixed: no tight_layout draw per redraw
    return fig


def node_api_panel(run: PodRun, command: str = "logs", *, as_jane: bool = False) -> widgets.VBox:
    """The API server → kubelet widget: choose the command (and the user); the hop table and the sequence figure.

    Every change calls :func:`~kubenotes.kubelet.server.node_api_hops` on
    ``run``'s cluster for its pod (memoised per choice).

    Parameters
    ----------
    run : PodRun
        A pod run (e.g. :func:`~kubenotes.sim.scenarios.simulate_pod_start`); its pod is the target.
    command : str
        One of :data:`kubenotes.kubelet.server.COMMANDS` (``logs``, ``exec``, ``port-forward``, ``top``).
    as_jane : bool
        Run kubectl as ``jane``, who has no RoleBinding (the API server's 403 ends the chain).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`: the command buttons and the checkbox, then the figure
        and the table.

    Raises
    ------
    traitlets.TraitError
        For a ``command`` not among the buttons.

    Examples
    --------
    >>> import contextlib, io
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel the first render prints
    ...     p = node_api_panel(simulate_pod_start(until_seconds=12), "exec")
    >>> [c.description for row in p.children[:-1] for c in row.children]
    ['kubectl', 'as jane (no RoleBinding)']
    """
    jane = UserInfo("jane", groups=("system:authenticated",))

    def update(command: str, as_jane: bool) -> list:
        hops = node_api_hops(run.cluster.server, run.kubelet, command, run.namespace, run.pod_name,
                             user=jane if as_jane else None)
        who = "jane" if as_jane else "kubernetes-admin"
        return [node_api_figure(hops), node_api_table(hops, f"kubectl {command} {run.pod_name} as {who}")]

    return _panel(update, command=("kubectl", command, tuple(COMMANDS), widgets.ToggleButtons),
                  as_jane=("as jane (no RoleBinding)", as_jane))
