"""Chapter 05.01's views of the CRI: one pod start's calls, the configs they carry, the runtime stack, pull latency.

Everything here reads the :mod:`kubenotes.cri` model and lays it out:

* :func:`call_table` and :func:`call_timeline_figure`: the CRI calls of one pod
  start (:func:`kubenotes.kubelet.kuberuntime.pod_start_calls` or any
  :attr:`ContainerRuntime.trace <kubenotes.cri.runtime.ContainerRuntime.trace>`),
  with what happened inside the runtime between them (its ``events``);
* :func:`cri_to_oci_table` (and :func:`kubenotes.cri.oci.oci_excerpt`): what the kubelet puts in
  ``PodSandboxConfig``/``ContainerConfig`` and what the runtime writes into
  runc's ``config.json`` from it (namespaces, ``cgroupsPath``, resources,
  ``oomScoreAdj``), row by row from the Pod spec;
* :func:`stack_layout`, :func:`draw_runtime_stack` and
  :func:`runtime_stack_figure`: the graph of
  :func:`kubenotes.kubelet.kuberuntime.runtime_stack_graph` (kubelet → containerd or
  CRI-O → shim or conmon → runc → processes), with the pods' shared network
  namespace and pod cgroup drawn around their processes;
* :func:`layer_cache_table`: pulls in a row on one node's image store
  (:func:`kubenotes.cri.images.layer_cache_pulls`), and which layers each one
  downloads;
* :func:`start_latency_table`, :func:`start_latency_figure` and
  :func:`start_latency_panel`: the chapter's widget, runtime kind, image size,
  what the node already has and the registry bandwidth giving the pod's start
  latency (:func:`kubenotes.kubelet.kuberuntime.start_latency`) and its call
  timeline.

Notes
-----
There is no upstream counterpart: this is what ``crictl`` (``crictl pods``,
``crictl inspect``, ``crictl images``) and containerd's debug log tell about a
pod start, read from the model's own records. Latencies and image sizes are
the model's illustrative defaults (:data:`kubenotes.cri.runtime.DEFAULT_LATENCIES`,
:func:`kubenotes.cri.images.default_catalogue`), not measurements.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (``SyncPod``)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container.go (``startContainer``)
containerd/containerd@v2.1 internal/cri/server/ (sandbox_run.go, container_create.go, container_start.go)
"""

from __future__ import annotations

import functools
from typing import Any, Mapping, Sequence

import ipywidgets as widgets
import networkx as nx
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from kubenotes.api.qos import pod_qos_class
from kubenotes.cri.api import call_summary
from kubenotes.cri.oci import oci_excerpt
from kubenotes.cri.runtime import CONTAINERD, CRI_O, LOW_LEVEL_RUNTIMES, RUNC, RUNTIME_KINDS
from kubenotes.kubelet.cgroups import ResourceConfig
from kubenotes.kubelet.kuberuntime import (
    CACHE_STATES,
    container_config_for_pod,
    oci_config,
    runtime_stack_graph,
    sandbox_config_for_pod,
    start_latency,
)
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import TABLE_CSS, TH_BOTTOM_CSS, Html, table
from kubenotes.viz.html import escape as _e
from kubenotes.viz.widgets import int_slider, live_panel, memoise_update

__all__ = [
    "call_table",
    "call_timeline_figure",
    "cri_to_oci_table",
    "stack_layout",
    "draw_runtime_stack",
    "runtime_stack_figure",
    "layer_cache_table",
    "start_latency_table",
    "start_latency_figure",
    "start_latency_panel",
]


_MIB = 1024 * 1024
_SERVICE_COLOURS = {"RuntimeService": "#1565c0", "ImageService": "#ef6c00"}
_KIND_FC = {"kubelet": "#e3f2fd", "runtime": "#ede7f6", "shim": "#fff8e1", "oci-runtime": "#eceff1",
            "process": "#e8f5e9"}
_KIND_EC = {"kubelet": "#1565c0", "runtime": "#5e35b1", "shim": "#f9a825", "oci-runtime": "#607d8b",
            "process": "#2e7d32"}
_POD_COLOURS = ("#2e7d32", "#c62828", "#1565c0", "#6a1b9a")
_SHOWN_EVENTS = {"NetworkSetUp": "CNI ADD done", "ShimStarted": "shim", "SandboxStarted": "/pause runs",
                 "NamespacesPinned": "pinns", "ImagePulled": "pulled", "TaskExit": "exited"}


# The chapter's tables: HTML cells under escaped headers.
_table = functools.partial(table, html_cells=True, th_css=TH_BOTTOM_CSS)


def _ms(seconds: float) -> str:
    return f"{seconds:.3f}"


def _mib(n: int) -> str:
    return f"{n / _MIB:.1f} MiB"


# ---------------------------------------------------------------------------
# the calls of one pod start


def call_table(trace: Sequence[Mapping[str, Any]], *, caption: str | None = None) -> Html:
    """The calls as a table: when, which service and method, how long, what was asked and answered.

    Parameters
    ----------
    trace : sequence of dict
        Trace entries (``time``, ``service``, ``method``, ``duration_seconds``...).
    caption : str, optional

    Returns
    -------
    Html
        One row per call: #, t (s), service (coloured), method, took (s),
        and :func:`call_summary`'s request and response.

    Raises
    ------
    AttributeError
        An entry, or its ``request``/``response``, is not a mapping.

    Examples
    --------
    >>> from kubenotes.kubelet.kuberuntime import pod_start_calls
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}
    >>> t = call_table(pod_start_calls(pod)["trace"])
    >>> t.count("<tr>") - 1, "RunPodSandbox" in t
    (6, True)
    """
    rows = [[str(i), _ms(e.get("time", 0.0)), '<span style="color:{}">{}</span>'.format(
        _SERVICE_COLOURS.get(e.get("service", ""), "#424242"), _e(e.get("service", ""))),
        f"<b>{_e(e.get('method', ''))}</b>", _ms(e.get("duration_seconds", 0.0)), *map(_e, call_summary(e))]
        for i, e in enumerate(trace, 1)]
    return _table(["#", "t (s)", "service", "method", "took (s)", "request", "response"], rows, caption)


def call_timeline_figure(
    trace: Sequence[Mapping[str, Any]],
    events: Sequence[Mapping[str, Any]] = (),
    *,
    started_seconds: float | None = None,
    title: str | None = None,
) -> Figure:
    """The calls as a timeline: one bar per CRI call, what the runtime did meanwhile below.

    Parameters
    ----------
    trace : sequence of dict
        Trace entries, in call order.
    events : sequence of dict
        The runtime's ``events`` (``time``, ``event``, ``message``); the ones
        of :data:`_SHOWN_EVENTS` kinds are marked on a lane of their own.
    started_seconds : float, optional
        Draw a line where the last app container was started.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One Axes; y tick labels are ``<#> <method>``, bars are coloured by
        service (RuntimeService blue, ImageService orange).

    Raises
    ------
    KeyError
        A trace entry lacks ``time`` or ``method``, or an event lacks ``time``.

    Examples
    --------
    >>> trace = [{"time": 0.0, "service": "RuntimeService", "method": "RunPodSandbox", "duration_seconds": 0.25},
    ...          {"time": 0.25, "service": "ImageService", "method": "PullImage", "duration_seconds": 1.5}]
    >>> fig = call_timeline_figure(trace)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['1 RunPodSandbox', '2 PullImage']
    """
    trace = list(trace)
    shown = [ev for ev in events if ev.get("event") in _SHOWN_EVENTS]
    n = len(trace) + (1 if shown else 0)
    fig = detached_figure(9.6, max(2.4, 1.1 + 0.32 * n))  # within a ~1,000 px notebook column at 100 dpi
    ax = fig.add_subplot(1, 1, 1)
    end = max([e["time"] + e.get("duration_seconds", 0.0) for e in trace] + [ev["time"] for ev in shown] + [0.1])
    labels = []
    for i, e in enumerate(trace):
        colour = _SERVICE_COLOURS.get(e.get("service", ""), "#616161")
        width = max(e.get("duration_seconds", 0.0), end * 0.003)
        ax.barh(i, width, left=e["time"], height=0.6, color=colour, alpha=0.85)
        ax.text(e["time"] + width + end * 0.008, i, call_summary(e)[0][:48], va="center", fontsize=7, color="#37474f")
        labels.append(f"{i + 1} {e['method']}")
    if shown:
        lane = len(trace)
        labels.append("inside the runtime")
        groups: list[tuple[float, list[str]]] = []  # events within 3 % of the time axis share one mark
        for ev in shown:
            text = _SHOWN_EVENTS[ev["event"]] + (" " + ev.get("message", "").split(": ")[0].rsplit("/", 1)[-1]
                                                 if ev["event"] == "ImagePulled" else "")
            if not groups or ev["time"] - groups[-1][0] > end * 0.03:
                groups.append((ev["time"], []))
            if text not in groups[-1][1]:
                groups[-1][1].append(text)
        for k, (t, texts) in enumerate(groups):
            ax.plot([t], [lane], marker="v", color="#6a1b9a", ms=6)
            ax.annotate(", ".join(texts), (t, lane), xytext=(2, -10 - 8 * (k % 3)), textcoords="offset points",
                        fontsize=6.5, color="#6a1b9a")
    if started_seconds is not None:
        ax.axvline(started_seconds, color="#2e7d32", ls="--", lw=1.2)
        ax.text(started_seconds, -0.55, f"last container started: {started_seconds:.2f} s ", color="#2e7d32",
                fontsize=7.5, va="center", ha="right")
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(len(labels) + (0.9 if shown else 0.2), -1.0)
    ax.set_xlim(0, end * 1.42)
    ax.set_xlabel("virtual time (s)")
    ax.grid(axis="x", color="#eeeeee")
    ax.set_title(title or "CRI calls of one pod start (blue: RuntimeService, orange: ImageService)", fontsize=9.5,
                 loc="left")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------
# kubelet's CRI configs and runc's config.json


#: A cell of long identifiers: it may break anywhere, so it never widens its table past the output column.
_WRAP_CSS = "min-width:160px;overflow-wrap:anywhere"


def _code(x: Any) -> str:
    return f"<code>{_e(x)}</code>"


def cri_to_oci_table(
    pod: Mapping[str, Any],
    container_name: str,
    *,
    kind: str = CONTAINERD,
) -> Html:
    """Pod spec → kubelet's CRI config → runc's ``config.json``, one row per thing the pod decides.

    Parameters
    ----------
    pod : dict
        A JSON-shaped Pod with ``metadata.uid``.
    container_name : str
    kind : {"containerd", "cri-o"}
        Which runtime writes the ``config.json``.

    Returns
    -------
    Html
        Rows: QoS class, cgroup parent, CPU request, CPU limit, memory limit,
        ``oom_score_adj``, namespaces, command.

    Raises
    ------
    KeyError
        When the pod has no such container.

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"}, "spec": {"containers": [
    ...     {"name": "app", "image": "nginx:1.27", "resources": {"requests": {"cpu": "500m", "memory": "256Mi"},
    ...      "limits": {"cpu": "500m", "memory": "256Mi"}}}]}}
    >>> t = cri_to_oci_table(pod, "app")
    >>> "Guaranteed" in t, "-997" in t, "cpu.max 50000 100000" in t
    (True, True, True)
    """
    spec_c = next((c for c in list((pod.get("spec") or {}).get("containers") or ())
                   + list((pod.get("spec") or {}).get("initContainers") or ()) if c.get("name") == container_name), None)
    if spec_c is None:
        raise KeyError(f"container {container_name!r} not found in pod")
    sandbox = sandbox_config_for_pod(pod)
    config = container_config_for_pod(pod, container_name)  # on the model's 8 GiB node
    spec = oci_config(pod, container_name, runtime=kind)
    res = config["linux"]["resources"]
    oci_res = spec["linux"].get("resources") or {}
    cpu, mem = oci_res.get("cpu") or {}, oci_res.get("memory") or {}
    requests = (spec_c.get("resources") or {}).get("requests") or {}
    limits = (spec_c.get("resources") or {}).get("limits") or {}
    # what runc writes on a cgroup v2 node: the kubelet's own conversion (cm.ResourceConfig), not a second copy
    v2 = ResourceConfig(cpu_shares=cpu.get("shares"), cpu_quota=cpu.get("quota"), cpu_period=cpu.get("period"),
                        memory=mem.get("limit")).cgroup_v2_files()
    ns = oci_excerpt(spec)["linux.namespaces"]
    rows = [
        ["QoS class (QoS 类别)", _e(pod_qos_class(pod)), "(decides the cgroup parent and oom_score_adj)", ""],
        ["cgroup", "", "PodSandboxConfig.linux.cgroup_parent " + _code(sandbox["linux"]["cgroup_parent"]),
         "linux.cgroupsPath " + _code(spec["linux"]["cgroupsPath"])],
        ["CPU request", _e(requests.get("cpu", "-")), "cpu_shares " + _code(res.get("cpu_shares")),
         f"cpu.shares {_code(cpu.get('shares'))} (cgroup v2: cpu.weight {_code(v2['cpu.weight'])})"],
        ["CPU limit", _e(limits.get("cpu", "-")),
         f"cpu_quota {_code(res.get('cpu_quota', 0))} / cpu_period {_code(res.get('cpu_period'))}",
         f"cpu.quota / cpu.period (cgroup v2: cpu.max {v2['cpu.max']})"],
        ["memory limit", _e(limits.get("memory", "-")),
         "memory_limit_in_bytes " + _code(res.get("memory_limit_in_bytes", 0)),
         "memory.limit " + _code(mem.get("limit", "-")) + f" (cgroup v2: memory.max {v2.get('memory.max', 'max')})"],
        ["OOM score", "", "oom_score_adj " + _code(res.get("oom_score_adj")),
         "process.oomScoreAdj " + _code(spec["process"].get("oomScoreAdj"))],
        ["namespaces (命名空间)", "hostNetwork " + _e(bool((pod.get("spec") or {}).get("hostNetwork"))),
         "namespace_options " + _code(config["linux"]["security_context"]["namespace_options"]),
         "<br>".join(f"{_e(t)}: {_code(p)}" for t, p in ns.items())],
        ["command", _e(spec_c.get("command") or f"(image {spec_c.get('image', '')})"),
         f"command {_code(config['command'])} args {_code(config['args'])}",
         "process.args " + _code(spec["process"]["args"])],
    ]
    # The CRI and OCI columns hold long unbroken tokens (a cgroupsPath ends in a 64-hex container id): they wrap
    # (at spaces and hyphens first, anywhere when a token is still too long) and the table stays within its column.
    rows = [row[:2] + [(cell, _WRAP_CSS) for cell in row[2:]] for row in rows]
    return _table(["", "Pod spec", "CRI (kubelet → runtime)", f"OCI config.json ({kind} → runc)"], rows,
                  caption=f"{(pod.get('metadata') or {}).get('name', '')}/{container_name}",
                  table_css=TABLE_CSS + ";max-width:100%")


# ---------------------------------------------------------------------------
# the runtime stack


def stack_layout(g: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Positions for a runtime stack graph: layers top to bottom, each parent above its children.

    Processes are spaced one unit apart in graph order; every other node
    sits at the mean x of its descendants' processes.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`kubenotes.kubelet.kuberuntime.runtime_stack_graph`.

    Returns
    -------
    dict of str to (float, float)
        ``y = -layer``.

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}
    >>> pos = stack_layout(runtime_stack_graph("containerd", [pod]))
    >>> pos["kubelet"], pos["default/web/POD"], pos["default/web/app"]
    ((0.5, 0.0), (0.0, -4.0), (1.0, -4.0))
    """
    x = {v: float(i) for i, v in enumerate(v for v, d in g.nodes(data=True) if d.get("kind") == "process")}
    below = {v: [x[d] for d in nx.descendants(g, v) if d in x] for v in g.nodes if v not in x}
    x.update({v: sum(xs) / len(xs) if xs else 0.0 for v, xs in below.items()})
    return {v: (x[v], float(-g.nodes[v].get("layer", 0))) for v in g.nodes}


def _node_text(d: Mapping[str, Any]) -> str:
    """A stack box's text: the label; for a process also its oom_score_adj and the pid/mount namespaces it owns."""
    if d.get("kind") != "process":
        return d.get("label", "")
    own = [t for t, p in (d.get("namespaces") or {}).items() if p == "new" and t in ("pid", "mount")]
    adj = d.get("oom_score_adj")
    return "\n".join([d.get("label", "")] + ([f"oom_score_adj {adj}"] if adj is not None else [])
                     + (["own " + ", ".join(own)] if own else []))


#: The runtime-stack figure's widest, inches: 980 px at the inline backend's 100 dpi, within a ~1,000 px column.
_STACK_MAX_WIDTH_INCHES = 9.8


def draw_runtime_stack(g: nx.DiGraph, ax: Axes, *, title: str | None = None) -> Axes:
    """Draw a runtime stack graph on ``ax``: boxes per process, pods framed with their netns and pod cgroup.

    Parameters
    ----------
    g : networkx.DiGraph
        From :func:`kubenotes.kubelet.kuberuntime.runtime_stack_graph`.
    ax : matplotlib.axes.Axes
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}
    >>> ax = detached_figure(6, 4).add_subplot()
    >>> texts = [t.get_text() for t in draw_runtime_stack(runtime_stack_graph("containerd", [pod]), ax).texts]
    >>> "containerd-shim-runc-v2" in texts, any(t.startswith("pause") for t in texts)
    (True, True)
    """
    pos = stack_layout(g)
    procs = [v for v, d in g.nodes(data=True) if d.get("kind") == "process"]
    pods: dict[str, list[str]] = {}
    for v in procs:
        pods.setdefault(g.nodes[v].get("pod", ""), []).append(v)
    colour = {p: _POD_COLOURS[i % len(_POD_COLOURS)] for i, p in enumerate(pods)}
    # pod frames: shared network namespace and pod cgroup
    for p, members in pods.items():
        xs = [pos[v][0] for v in members]
        d0 = g.nodes[members[0]]
        ax.add_patch(FancyBboxPatch((min(xs) - 0.46, -4.42), max(xs) - min(xs) + 0.92, 0.84,
                                    boxstyle="round,pad=0.02", fc="none", ec=colour[p], lw=1.4, ls="--", zorder=1))
        net = (d0.get("namespaces") or {}).get("network", "host").rsplit("/", 1)[-1]
        ax.text((min(xs) + max(xs)) / 2, -4.5, f"pod {p} ({d0.get('qos_class', '')})\nnetns {net}\n"
                f"cgroup …/{d0.get('pod_cgroup', '').rsplit('/', 1)[-1]}", ha="center", va="top", fontsize=7,
                color=colour[p])
    for a, b in g.edges:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        ax.add_patch(FancyArrowPatch((xa, ya - 0.2), (xb, yb + 0.22), arrowstyle="-|>", mutation_scale=9,
                                     color="#9e9e9e", lw=1.0, zorder=2))
    top = next(iter(g.successors("kubelet")), None)
    if top is not None:
        rel = g.edges["kubelet", top].get("relation", "")
        ax.text(pos["kubelet"][0] + 0.08, -0.5, rel, fontsize=7, color="#5e35b1", va="center")
    for v, d in g.nodes(data=True):
        kind = d.get("kind", "process")
        ec = colour.get(d.get("pod", ""), _KIND_EC["process"]) if kind == "process" else _KIND_EC.get(kind, "#616161")
        ax.text(pos[v][0], pos[v][1], _node_text(d), ha="center", va="center", fontsize=7, zorder=4,
                bbox=dict(boxstyle="round,pad=0.3", fc=_KIND_FC.get(kind, "white"), ec=ec, lw=1.1))
    xs = [p[0] for p in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(-5.35, 0.45)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=9.5, loc="left")
    return ax


def runtime_stack_figure(
    pods: Sequence[Mapping[str, Any]],
    kinds: Sequence[str] = RUNTIME_KINDS,
    *,
    title: str | None = None,
) -> Figure:
    """The runtime stack of a node running ``pods``, one panel per runtime kind, one above the other.

    The panels are stacked, not side by side, so the figure's natural width
    stays within a notebook's ~1,000 px output column at the inline backend's
    100 dpi (9.8 inches) and its 7 pt labels are shown at
    full size.

    Parameters
    ----------
    pods : sequence of dict
        JSON-shaped Pods.
    kinds : sequence of str
        Runtime kinds, one panel each.
    title : str, optional
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per kind (:func:`draw_runtime_stack`), top to bottom, titled
        with what sets that runtime apart; at most
        9.8 inches wide; already closed for pyplot.

    Raises
    ------
    ValueError
        A kind is not one of :data:`RUNTIME_KINDS`.

    Examples
    --------
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
    ...        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}
    >>> [ax.get_title(loc="left") for ax in runtime_stack_figure([pod]).axes]
    ['containerd: one shim per pod, a pause process', 'cri-o: one conmon per container, no pause (drop_infra_ctr)']
    """
    graphs = [runtime_stack_graph(k, pods) for k in kinds]  # on the model's 8 GiB node
    procs = max(sum(1 for _, d in g.nodes(data=True) if d.get("kind") == "process") for g in graphs)
    fig = detached_figure(min(_STACK_MAX_WIDTH_INCHES, max(5.0, 1.55 * procs + 1.0)), 4.5 * len(kinds) + 0.4)
    notes = {CONTAINERD: "one shim per pod, a pause process",
             CRI_O: "one conmon per container, no pause (drop_infra_ctr)"}
    for i, k in enumerate(kinds):
        ax = fig.add_subplot(len(kinds), 1, i + 1)
        draw_runtime_stack(graphs[i], ax, title=f"{k}: {notes.get(k, '')}")
    if title:
        fig.suptitle(title, fontsize=10.5, x=0.01, ha="left")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------
# the layer cache


def layer_cache_table(rows: Sequence[Mapping[str, Any]], *, caption: str | None = None) -> Html:
    """:func:`~kubenotes.cri.images.layer_cache_pulls` as a table.

    Parameters
    ----------
    rows : sequence of dict
        :func:`kubenotes.cri.images.layer_cache_pulls`'s result.
    caption : str, optional
        Table caption (none by default).

    Returns
    -------
    Html
        One row per pull: #, image, layers downloaded (of the image's),
        image size and bytes downloaded (MiB), pull seconds, layers on the
        node afterwards.

    Raises
    ------
    KeyError
        A row lacks one of the keys :func:`~kubenotes.cri.images.layer_cache_pulls` gives.

    Examples
    --------
    >>> from kubenotes.cri.images import layer_cache_pulls
    >>> "0.0 MiB" in layer_cache_table(layer_cache_pulls(["busybox:1.36", "busybox:1.36"]))
    True
    """
    body = [[str(i), _e(r["image"]), f"{r['missing_layers']} of {r['layers']}", _mib(r["size_bytes"]),
             f"<b>{_mib(r['download_bytes'])}</b>", f"{r['pull_seconds']:.2f}", str(r["node_layers"])]
            for i, r in enumerate(rows, 1)]
    return _table(["pull", "image", "layers downloaded", "image size", "downloaded", "pull (s)",
                   "layers on node after"], body, caption)


# ---------------------------------------------------------------------------
# start latency: the widget


def start_latency_table(results: Sequence[Mapping[str, Any]]) -> Html:
    """One row per :func:`~kubenotes.kubelet.kuberuntime.start_latency` result: parameters, downloaded bytes, time per phase, start latency.

    Parameters
    ----------
    results : sequence of dict
        :func:`~kubenotes.kubelet.kuberuntime.start_latency` results.

    Returns
    -------
    Html
        Columns runtime (kind + OCI runtime), image, node has, bandwidth,
        downloaded (MiB), RunPodSandbox, PullImage and Create+Start seconds,
        and the start latency in bold.

    Raises
    ------
    KeyError
        A result lacks a key :func:`~kubenotes.kubelet.kuberuntime.start_latency` gives.

    Examples
    --------
    >>> t = start_latency_table([start_latency(kind=k) for k in RUNTIME_KINDS])
    >>> t.count("<tr>") - 1, "cri-o" in t
    (2, True)
    """
    body = [[_e(f"{r['kind']} + {r['low_level']}"), f"{r['image_mib']} MiB", _e(r["cache"]),
             f"{r['bandwidth_mib_per_second']} MiB/s", _mib(r["downloaded_bytes"]),
             *(_ms(r["phases"][p]) for p in ("sandbox", "image pull", "create + start")),
             f"<b>{r['started_seconds']:.3f}</b>"] for r in results]
    return _table(["runtime", "image", "node has", "bandwidth", "downloaded", "RunPodSandbox (s)", "PullImage (s)",
                   "Create+Start (s)", "started at (s)"], body)


def start_latency_figure(result: Mapping[str, Any]) -> Figure:
    """The call timeline of one :func:`~kubenotes.kubelet.kuberuntime.start_latency` result, titled with its latency.

    Examples
    --------
    >>> fig = start_latency_figure(start_latency())
    >>> fig.axes[0].get_title(loc="left").startswith("containerd + runc, 200 MiB image")
    True
    """
    r = result
    title = (f"{r['kind']} + {r['low_level']}, {r['image_mib']} MiB image, node has: {r['cache']}, "
             f"{r['bandwidth_mib_per_second']} MiB/s → started after {r['started_seconds']:.2f} s, "
             f"{r['downloaded_bytes'] / _MIB:.1f} MiB downloaded")
    return call_timeline_figure(r["trace"], r["events"], started_seconds=r["started_seconds"], title=title)


def start_latency_panel(
    image_mib: int = 200,
    bandwidth_mib_per_second: int = 50,
    kind: str = CONTAINERD,
    cache: str = "base layer cached",
    low_level: str = RUNC,
) -> Any:
    """The chapter's widget: image size and bandwidth sliders, runtime and cache choices -> latency and timeline.

    Parameters
    ----------
    image_mib, bandwidth_mib_per_second, kind, cache, low_level
        The controls' starting values (see :func:`~kubenotes.kubelet.kuberuntime.start_latency`).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`; each change calls
        :func:`~kubenotes.kubelet.kuberuntime.start_latency` and shows :func:`start_latency_table` (this
        setting beside the other runtime kind) and
        :func:`start_latency_figure`.

    Raises
    ------
    traitlets.TraitError
        ``kind``, ``cache`` or ``low_level`` is not one of the dropdown's
        options, or a slider value is not an int.

    Notes
    -----
    A starting value outside a slider's range is clamped to it (an
    ``image_mib`` below 30 becomes 30, so :func:`~kubenotes.kubelet.kuberuntime.start_latency`'s
    ValueError cannot occur here).
    The first view of a setting runs the runtime model (about 0.1 s); a
    setting seen before is shown at once (results are memoised).

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = start_latency_panel(30, 500, cache="image cached")
    >>> [c.description for c in panel.children[0].children], panel.children[0].children[0].value
    (['image size (MiB)', 'registry MiB/s'], 30)
    """
    def update(image_mib: int, bandwidth_mib_per_second: int, kind: str, cache: str, low_level: str) -> list:
        args = dict(image_mib=image_mib, cache=cache, bandwidth_mib_per_second=bandwidth_mib_per_second,
                    low_level=low_level)
        chosen = start_latency(kind, **args)
        other = start_latency(next(k for k in RUNTIME_KINDS if k != kind), **args)
        return [start_latency_table([chosen, other]), start_latency_figure(chosen)]

    look = {"style": {"description_width": "150px"}, "layout": widgets.Layout(width="440px")}
    controls = {
        "image_mib": int_slider("image size (MiB)", image_mib, 30, 1000, 10, **look),
        "bandwidth_mib_per_second": int_slider("registry MiB/s", bandwidth_mib_per_second, 5, 500, 5, **look),
        **{key: widgets.Dropdown(options=list(options), value=value, description=label, **look)
           for key, label, options, value in [("kind", "runtime", RUNTIME_KINDS, kind),
                                              ("cache", "node already has", CACHE_STATES, cache),
                                              ("low_level", "OCI runtime", LOW_LEVEL_RUNTIMES, low_level)]},
    }
    return live_panel(memoise_update(update), controls)
