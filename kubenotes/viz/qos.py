"""Tables, graphs, timelines and widgets of the QoS and node-pressure eviction chapter (05.02).

Nothing here decides anything: the QoS class comes from :mod:`kubenotes.api.qos`, ``oom_score_adj`` and the
kernel's order from :mod:`kubenotes.kubelet.qos`, the cgroup files from :mod:`kubenotes.kubelet.cgroups`
(:func:`~kubenotes.kubelet.cgroups.qos_values`), the API server's check of a request above its limit from
:func:`kubenotes.api.resources.pod_resource_requirements_errors`, and the memory-pressure run
(``data/qos/memory-pressure.yaml`` run as ``simulate`` runs it), the widget's one-container pod and the eviction
and OOM-kill orders from :mod:`kubenotes.sim.scenarios`. This module shows what those functions return:

* :func:`qos_values_table` / :func:`qos_panel`: one container's requests and limits -> QoS class,
  ``oom_score_adj``, pod cgroup path and the cgroup v1 and v2 files;
* :func:`cgroup_tree_figure` (of :func:`cgroup_tree_graph`) and :func:`cgroup_driver_table`: the kubepods /
  burstable / besteffort tree, and each pod's cgroup under both cgroup drivers;
* :func:`eviction_timeline_figure` / :func:`eviction_timeline_table`: memory available, the MemoryPressure
  condition and the evictions over time; :func:`memory_pressure_panel` draws the first for a chosen growth and
  soft threshold;
* :func:`kill_orders_table`: the kubelet's eviction ranking and the kernel OOM killer's order, side by side.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/helpers_linux.go
https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/
https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, Iterable, Mapping

import ipywidgets as widgets
import networkx as nx
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from kubenotes.api.qos import pod_qos_class
from kubenotes.api.resources import pod_resource_requirements_errors
from kubenotes.kubelet.cgroups import (CGROUP_DRIVER_CGROUPFS, CGROUP_DRIVER_SYSTEMD, cgroup_tree_graph,
                                      pod_cgroup_path, qos_values)
from kubenotes.kubelet.eviction import SIGNAL_MEMORY_AVAILABLE
from kubenotes.sim.scenarios import (
    PressureScenario,
    eviction_rounds,
    evictions,
    first_eviction,
    kill_orders,
    pressure_intervals,
    simulate_memory_pressure,
    single_container_pod,
)
from kubenotes.viz.controllers import _clear_plotted, _drawn_into
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import CAPTION_TIGHT_CSS, Html, escape, table
from kubenotes.viz.widgets import int_slider, live_panel, memoise_update

__all__ = [
    "MI",
    "GI",
    "MIN_NODE_MEMORY_GI",
    "qos_values_table",
    "qos_panel",
    "qos_view",
    "cgroup_driver_table",
    "cgroup_tree_figure",
    "eviction_timeline_table",
    "eviction_timeline_figure",
    "kill_orders_table",
    "memory_pressure_panel",
    "memory_pressure_view",
]

MI = 2**20
GI = 2**30

#: The node-memory slider's floor, GiB: ``container_oom_score_adjust`` needs a positive capacity.
MIN_NODE_MEMORY_GI = 1

_QOS_COLOURS = {"Guaranteed": "#2e7d32", "Burstable": "#f9a825", "BestEffort": "#c62828"}

# The chapter's tables: text cells.
_table = functools.partial(table, caption_css=CAPTION_TIGHT_CSS)


def _sliders(label_px: int, spec: Iterable[tuple[str, str, int, int, int, int]]) -> dict[str, widgets.IntSlider]:
    """The chapter's sliders, two a row within a ~1,000 px column: ``(key, label, start, lo, hi, step)`` each."""
    style = {"description_width": f"{label_px}px"}
    return {key: int_slider(label, start, lo, hi, step, style=style, layout=widgets.Layout(width=f"{label_px + 270}px"))
            for key, label, start, lo, hi, step in spec}


# --- one container's QoS -------------------------------------------------------------------------------


def qos_values_table(values: Mapping[str, Any], caption: str | None = None) -> Html:
    """:func:`~kubenotes.kubelet.cgroups.qos_values` as a two-column HTML table.

    Parameters
    ----------
    values : mapping
        :func:`~kubenotes.kubelet.cgroups.qos_values`'s result (any name -> value mapping is shown).
    caption : str, optional
        Table caption (none by default).

    Returns
    -------
    Html
        One row per item: its name, its value.

    Raises
    ------
    AttributeError
        ``values`` is not a mapping (has no ``items``).

    Examples
    --------
    >>> t = str(qos_values_table(qos_values(single_container_pod("app", 250, 500, 256, 512)), "app"))
    >>> t.count("<tr") - 1, "Burstable" in t, "/kubepods/burstable/podapp" in t
    (8, True, True)
    """
    return _table(["", "value"], list(values.items()), caption)


def qos_panel(cpu_request_milli: int = 250, cpu_limit_milli: int = 500, memory_request_mi: int = 256,
              memory_limit_mi: int = 512, memory_capacity_gi: int = 8) -> widgets.VBox:
    """Sliders for one container's requests and limits; the output is :func:`qos_values_table`.

    0 means "not set" for the four requests and limits. The default is a Burstable container.

    Parameters
    ----------
    cpu_request_milli, cpu_limit_milli : int
        Initial CPU request and limit, millicores (sliders 0 to 4000).
    memory_request_mi, memory_limit_mi : int
        Initial memory request and limit, MiB (sliders 0 to 4096).
    memory_capacity_gi : int
        Initial node memory, GiB (slider :data:`MIN_NODE_MEMORY_GI` = 1 to 64: a node without memory has no
        Burstable ``oom_score_adj``).

    Returns
    -------
    ipywidgets.VBox
        Five sliders, two per row, then the live :func:`qos_view` output.

    Raises
    ------
    traitlets.TraitError
        An initial value is not an int (a value outside a slider's range is clamped to it).

    See Also
    --------
    qos_view, kubenotes.kubelet.cgroups.qos_values

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = qos_panel()
    >>> [c.description for c in panel.children[0].children], len(panel.children)
    (['memory request (Mi)', 'memory limit (Mi)'], 4)
    """
    return live_panel(qos_view, _sliders(150, [
        ("memory_request_mi", "memory request (Mi)", memory_request_mi, 0, 4096, 64),
        ("memory_limit_mi", "memory limit (Mi)", memory_limit_mi, 0, 4096, 64),
        ("cpu_request_milli", "cpu request (m)", cpu_request_milli, 0, 4000, 50),
        ("cpu_limit_milli", "cpu limit (m)", cpu_limit_milli, 0, 4000, 50),
        ("memory_capacity_gi", "node memory (Gi)", memory_capacity_gi, MIN_NODE_MEMORY_GI, 64, 1),
    ]))


def qos_view(memory_request_mi: int, memory_limit_mi: int, cpu_request_milli: int, cpu_limit_milli: int,
             memory_capacity_gi: int = 8) -> Html:
    """The :func:`qos_panel` callback: the table, or the API server's validation error for a request above its limit.

    Parameters
    ----------
    memory_request_mi, memory_limit_mi : int
        The container's memory request and limit, MiB (0: unset).
    cpu_request_milli, cpu_limit_milli : int
        Its CPU request and limit, millicores (0: unset).
    memory_capacity_gi : int
        Node memory, GiB.

    Returns
    -------
    Html
        :func:`qos_values_table` of :func:`~kubenotes.sim.scenarios.single_container_pod`, or every message of
        :func:`~kubenotes.api.resources.pod_resource_requirements_errors` (``ValidateResourceRequirements``).

    Examples
    --------
    >>> "Guaranteed" in qos_view(512, 512, 250, 250)
    True
    >>> print(qos_view(1024, 512, 0, 0))
    <b>Invalid:</b> spec.containers[0].resources.requests[memory]: Invalid value: "1Gi": must be less than or equal to memory limit of 512Mi
    """
    pod = single_container_pod("app", cpu_request_milli, cpu_limit_milli, memory_request_mi, memory_limit_mi)
    errors = pod_resource_requirements_errors(pod)
    if errors:
        return Html("<br>".join(f"<b>Invalid:</b> {escape(e, quote=False)}" for e in errors))
    res = pod["spec"]["containers"][0]["resources"]
    return qos_values_table(qos_values(pod, memory_capacity_gi * GI), caption=f"resources: {res}")


# --- the cgroup tree ------------------------------------------------------------------------------------


def cgroup_driver_table(pods: Iterable[Mapping[str, Any]], caption: str | None = None) -> Html:
    """Each pod's cgroup as the two cgroup drivers spell it: cgroupfs and systemd, side by side.

    Parameters
    ----------
    pods : iterable of mapping
        Pod dicts.
    caption : str, optional
        Table caption (none by default).

    Returns
    -------
    Html
        One row per pod: its name, QoS class, the cgroupfs path
        (``/kubepods/burstable/pod<uid>``) and the systemd path
        (``/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice``);
        the paths may wrap after each ``/``.

    Raises
    ------
    KeyError
        A pod has no ``metadata``.

    See Also
    --------
    cgroup_tree_graph, kubenotes.kubelet.cgroups.pod_cgroup_path

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/cgroup_manager_linux.go (CgroupName.ToSystemd, ToCgroupfs)

    Examples
    --------
    >>> t = str(cgroup_driver_table([single_container_pod("web", 250, 0, 256, 0, uid="u-1")]))
    >>> "/<wbr>burstable/<wbr>podu-1" in t, "kubepods-burstable-podu_1.slice" in t  # systemd: "-" nests, so "_"
    (True, True)
    """
    rows = [(escape(p["metadata"].get("name", "")), pod_qos_class(p),
             *("<code>" + escape(pod_cgroup_path(p, d)).replace("/", "/<wbr>") + "</code>"
               for d in (CGROUP_DRIVER_CGROUPFS, CGROUP_DRIVER_SYSTEMD))) for p in pods]
    return _table(["pod", "QoS class", "cgroupDriver: cgroupfs", "cgroupDriver: systemd"], rows, caption,
                  html_cells=True)


def cgroup_tree_figure(g: nx.DiGraph, title: str = "The kubelet's cgroup tree (cgroup v2, cgroupfs driver)") -> Figure:
    """Draw :func:`cgroup_tree_graph` top-down with each cgroup's files (fixed layout).

    Parameters
    ----------
    g : networkx.DiGraph
        :func:`cgroup_tree_graph`'s result (rooted at ``/kubepods`` or ``/kubepods.slice``).
    title : str
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
        One axes (no ticks): a box per cgroup with its ``cpu.weight``,
        ``cpu.max`` and ``memory.max``, pod cgroups coloured by QoS class,
        arrows parent -> child; already closed for pyplot.

    Raises
    ------
    StopIteration
        ``g`` is empty (it has no root).
    KeyError
        A vertex lacks ``files``, ``pod`` or ``qos``.

    Examples
    --------
    >>> from kubenotes.sim.scenarios import memory_pressure_pods
    >>> fig = cgroup_tree_figure(cgroup_tree_graph(memory_pressure_pods(), {"cpu": "4", "memory": "4Gi"}))
    >>> len(fig.axes), len(fig.axes[0].texts), fig.axes[0].get_title()  # 6 cgroup boxes, 5 arrows
    (1, 11, "The kubelet's cgroup tree (cgroup v2, cgroupfs driver)")
    """
    # leaves one unit apart in depth-first order; a parent over the middle of its children
    x: dict[str, float] = {}
    leaf = itertools.count()

    def place(n: str) -> float:
        kids = list(g.successors(n))
        x[n] = sum(map(place, kids)) / len(kids) if kids else float(next(leaf))
        return x[n]

    place(next(n for n in g if g.in_degree(n) == 0))
    pos = {n: (x[n], -(n.count("/") - 1)) for n in g}
    labels = {n: n.rsplit("/", 1)[-1] + ("" if d["pod"] is None else f"\n({d['pod']}, {d['qos']})") + "\n"
              + "\n".join(f"{k}: {v}" for k, v in d["files"].items() if k in ("cpu.weight", "cpu.max", "memory.max"))
              for n, d in g.nodes(data=True)}
    # a leaf's box is about 0.055 in per character at 7 pt: the systemd driver's long .slice names need more room
    per_leaf = max(1.55, 0.055 * max(len(line) for t in labels.values() for line in t.split("\n")) + 0.35)
    leaves = max(1, next(leaf))
    fig = detached_figure(max(7.0, 2.4 * leaves, per_leaf * (leaves + 0.6) / 0.96), 4.6)
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.88))
    for a, b in g.edges():
        ax.annotate("", xy=pos[b], xytext=pos[a], arrowprops={"arrowstyle": "-|>", "color": "#777", "lw": 1.0,
                                                              "shrinkA": 22, "shrinkB": 26})
    for n, d in g.nodes(data=True):
        ax.text(*pos[n], labels[n], ha="center", va="center", fontsize=7, bbox={
            "boxstyle": "round,pad=0.35", "fc": _QOS_COLOURS.get(d["qos"] or "", "#eceff1"), "ec": "#455a64",
            "alpha": 0.85})
    ax.set_xlim(min(x.values()) - 0.8, max(x.values()) + 0.8)
    ax.set_ylim(min(y for _, y in pos.values()) - 0.6, 0.6)
    ax.set_axis_off()
    ax.set_title(title, fontsize=10)
    return fig


# --- the memory-pressure scenario ----------------------------------------------------------------------


def eviction_timeline_table(scenario: PressureScenario) -> Html:
    """The rounds where something changed: memory.available, thresholds met, conditions, the eviction.

    Parameters
    ----------
    scenario : PressureScenario
        A :func:`simulate_memory_pressure` run.

    Returns
    -------
    Html
        One row per round of :func:`~kubenotes.sim.scenarios.eviction_rounds` whose thresholds, conditions or
        eviction differ from the previous row: t (s), memory.available (Mi), thresholds met, grace period over,
        node conditions and evicted (pod, grace period, the kubelet's message).

    Raises
    ------
    AttributeError
        ``scenario`` has no ``manager.timeline``.

    Examples
    --------
    >>> t = str(eviction_timeline_table(simulate_memory_pressure()))
    >>> t.count("<tr") - 1, "default/batch (grace 1s)" in t
    (4, True)
    """
    rows = [(f"{r.time:g}", f"{r.observations.get(SIGNAL_MEMORY_AVAILABLE, (0, 0))[0] // MI}Mi",
             *(", ".join(v) or "-" for v in (r.thresholds_met, r.thresholds_grace_met, r.node_conditions)),
             f"{r.evicted} (grace {r.grace_period_seconds}s): {r.message}" if r.evicted else "")
            for r in eviction_rounds(scenario)]
    return _table(["t (s)", "memory.available", "thresholds met", "grace period over", "node conditions", "evicted"],
                  rows, caption="Eviction manager rounds (only those where something changed)")


def _eviction_axes() -> Figure:
    """:func:`eviction_timeline_figure`'s empty figure: 9.5 x 5.2 inches, two Axes sharing the time axis.

    A fixed layout (margins in figure fractions, the axis labels at fixed places, at most 6 y ticks) instead of
    tight_layout, which measured every tick label once more per new state of the panel (a third of its time).
    """
    fig = detached_figure(9.5, 5.2)
    fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [1, 1.2], "left": 0.075, "right": 0.985,
                                                 "top": 0.94, "bottom": 0.1, "hspace": 0.06})
    return fig


def eviction_timeline_figure(scenario: PressureScenario, title: str | None = None, *,
                             figure: Figure | None = None) -> Figure:
    """Memory available and each pod's working set over time, MemoryPressure shaded, evictions marked.

    Parameters
    ----------
    scenario : PressureScenario
        A :func:`simulate_memory_pressure` run.
    title : str, optional
        Title of the upper axes; the default names the node and its threshold.
    figure : matplotlib.figure.Figure, optional
        A figure this function made before: drawn into again (its Axes kept,
        their plotted artists replaced), as a panel does for each position.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes sharing the time axis: ``memory.available`` (Mi) with the
        thresholds, then each pod's working set (Mi); already closed for pyplot.

    Raises
    ------
    AttributeError
        ``scenario`` has no ``manager.timeline``.

    See Also
    --------
    eviction_timeline_table, memory_pressure_panel

    Examples
    --------
    >>> fig = eviction_timeline_figure(simulate_memory_pressure())
    >>> len(fig.axes), fig.axes[0].get_title(), len(fig.axes[1].lines)  # 3 pods, 1 eviction line
    (2, 'Node worker-1: 4Gi, evictionHard memory.available<100Mi', 4)
    >>> eviction_timeline_figure(simulate_memory_pressure(360), figure=fig) is fig, len(fig.axes[1].lines)
    (True, 4)
    """
    tl = scenario.manager.timeline
    times = [r.time for r in tl]
    fig = figure if figure is not None else _eviction_axes()
    ax1, ax2 = fig.axes
    for ax in (ax1, ax2):  # a figure drawn before: its Axes and their ticks stay, what was plotted goes
        _clear_plotted(ax)
    ax1.plot(times, [r.observations.get(SIGNAL_MEMORY_AVAILABLE, (0, 0))[0] / MI for r in tl], color="#1565c0",
             label="memory.available")
    ax1.axhline(scenario.hard_mi, color="#c62828", ls="--", lw=1, label=f"evictionHard {scenario.hard_mi}Mi")
    if scenario.soft_mi:
        ax1.axhline(scenario.soft_mi, color="#ef6c00", ls=":", lw=1.2, label=f"evictionSoft {scenario.soft_mi}Mi")
    for p in scenario.pods:
        name = p["metadata"]["name"]
        ax2.plot(times, [r.pod_memory_bytes.get(name, 0) / MI for r in tl], label=f"{name} ({pod_qos_class(p)})",
                 color={"db": "#2e7d32", "web": "#f9a825", "batch": "#c62828"}.get(name))
    for ax, ylabel, corner in ((ax1, "Mi", "upper right"), (ax2, "working set (Mi)", "upper left")):
        for a, b in pressure_intervals(tl):
            ax.axvspan(a, b, color="#ffcdd2", alpha=0.5, lw=0)
        for r in evictions(scenario):
            ax.axvline(r.time, color="black", lw=0.8)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7, loc=corner)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
        ax.yaxis.set_label_coords(-0.062, 0.5)
    for r in evictions(scenario):
        ax2.annotate(f"evict {r.evicted.split('/')[-1]}", (r.time, ax2.get_ylim()[1] * 0.92), fontsize=8,
                     xytext=(4, 0), textcoords="offset points")
    ax2.set_xlabel("virtual time (s); shaded: node condition MemoryPressure=True")
    ax2.xaxis.set_label_coords(0.5, -0.13)
    ax1.set_title(title or "Node worker-1: 4Gi, evictionHard memory.available<100Mi", fontsize=10, y=1.0)
    ax2.set_title("", y=1.0)
    return fig


def kill_orders_table(scenario: PressureScenario) -> Html:
    """:func:`kill_orders` side by side: rank, the kubelet's pick and why, the kernel's pick and its badness.

    Parameters
    ----------
    scenario : PressureScenario
        A :func:`simulate_memory_pressure` run; the orders are those at its first eviction.

    Returns
    -------
    Html
        One row per rank: the kubelet's pod (QoS class, priority,
        usage − request) and the kernel's pod (``oom_score_adj``, badness).

    Raises
    ------
    IndexError
        As :func:`kill_orders`.

    Examples
    --------
    >>> t = str(kill_orders_table(simulate_memory_pressure()))
    >>> t.count("<tr") - 1, "1 byte, the floor" in t
    (3, True)
    """
    orders = kill_orders(scenario)
    adj = dict(orders["oom_score_adj"])
    pods = {p["metadata"]["name"]: (pod_qos_class(p), p["spec"].get("priority") or 0) for p in scenario.pods}
    rows = [(i, f"{kn} ({pods[kn][0]}, priority {pods[kn][1]}, usage−request {over // MI}Mi)",
             f"{on} ({pods[on][0]}, oom_score_adj {adj[on]}, badness "
             + (f"{bad // MI}Mi)" if bad >= MI else f"{bad} byte{'s' if bad != 1 else ''}, the floor)"))
            for i, ((kn, over), (on, bad)) in enumerate(zip(orders["kubelet"], orders["kernel"]), 1)]
    return _table(["#", "kubelet eviction (rankMemoryPressure)", "kernel OOM killer (oom_badness)"], rows)


def memory_pressure_panel(batch_growth_mi_per_minute: int = 180, soft_threshold_mi: int = 0,
                          soft_grace_seconds: int = 60) -> widgets.VBox:
    """Sliders for the BestEffort pod's growth and a soft threshold; the output is the timeline figure.

    Parameters
    ----------
    batch_growth_mi_per_minute : int
        Initial growth of ``batch``, MiB per minute (slider 60 to 600).
    soft_threshold_mi : int
        Initial ``evictionSoft`` on ``memory.available``, MiB (0: off; slider to 2048).
    soft_grace_seconds : int
        Initial ``evictionSoftGracePeriod``, seconds (slider 0 to 300).

    Returns
    -------
    ipywidgets.VBox
        Three sliders (two per row), then the live :func:`memory_pressure_view`.

    Raises
    ------
    traitlets.TraitError
        An initial value is not an int.

    See Also
    --------
    simulate_memory_pressure, eviction_timeline_figure

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = memory_pressure_panel()
    >>> [c.description for c in panel.children[0].children], panel.children[0].children[0].value
    (['batch growth (Mi/min)', 'evictionSoft (Mi, 0=off)'], 180)
    """
    # every position is drawn into one kept figure and shown as its PNG (no Figure and Axes built per position)
    view = memoise_update(_drawn_into(lambda figure, **values: [memory_pressure_view(**values, figure=figure)],
                                      _eviction_axes()))

    def update(batch_growth_mi_per_minute: int, soft_threshold_mi: int, soft_grace_seconds: int) -> Any:
        # evictionSoft off: no grace period is read and the figure does not name one, so every grace value shows
        # the same figure (one run, one render: see simulate_memory_pressure)
        return view(batch_growth_mi_per_minute=batch_growth_mi_per_minute, soft_threshold_mi=soft_threshold_mi,
                    soft_grace_seconds=soft_grace_seconds if soft_threshold_mi else 0)

    return live_panel(update, _sliders(170, [
        ("batch_growth_mi_per_minute", "batch growth (Mi/min)", batch_growth_mi_per_minute, 60, 600, 30),
        ("soft_threshold_mi", "evictionSoft (Mi, 0=off)", soft_threshold_mi, 0, 2048, 128),
        ("soft_grace_seconds", "soft grace period (s)", soft_grace_seconds, 0, 300, 30),
    ]))


def memory_pressure_view(batch_growth_mi_per_minute: int, soft_threshold_mi: int, soft_grace_seconds: int, *,
                         figure: Figure | None = None) -> Figure:
    """The :func:`memory_pressure_panel` callback: run (memoised) and draw the timeline.

    Parameters
    ----------
    batch_growth_mi_per_minute, soft_threshold_mi, soft_grace_seconds : int
        As for :func:`~kubenotes.sim.scenarios.simulate_memory_pressure`.
    figure : matplotlib.figure.Figure, optional
        Draw into this figure of an earlier call (see :func:`eviction_timeline_figure`).

    Returns
    -------
    matplotlib.figure.Figure
        :func:`eviction_timeline_figure`, titled with the settings and the first eviction.

    Examples
    --------
    >>> memory_pressure_view(180, 0, 60).axes[0].get_title()
    'batch +180Mi/min: first eviction batch at 490s'
    """
    s = simulate_memory_pressure(batch_growth_mi_per_minute, soft_threshold_mi, soft_grace_seconds)
    ev = first_eviction(s)
    when = f"first eviction {ev.evicted.split('/')[-1]} at {ev.time:g}s" if ev else "no eviction"
    soft = f", evictionSoft <{soft_threshold_mi}Mi for {soft_grace_seconds}s" if soft_threshold_mi else ""
    return eviction_timeline_figure(s, title=f"batch +{batch_growth_mi_per_minute}Mi/min{soft}: {when}", figure=figure)
