"""Tables, pictures and the widget of chapter 01: how the API server reads a manifest.

Pure presentation over :mod:`kubenotes.api`: exact quantities
(:mod:`~kubenotes.api.quantity`), what ``load_manifests`` read
(:mod:`~kubenotes.api.manifests`), API defaulting (:mod:`~kubenotes.api.defaults`),
Priority admission (:mod:`~kubenotes.api.priority`), a Pod's effective request
(:mod:`~kubenotes.api.resources`, ``PodRequests``), its QoS class
(:mod:`~kubenotes.api.qos`), label and node selectors
(:mod:`~kubenotes.api.selectors`) and taints (:mod:`~kubenotes.api.taints`).
Every number shown comes from those modules; this one only lays them out.

There is no single upstream counterpart: the tables show what ``kubectl
apply -f``, ``kubectl get pod -o yaml`` and ``kubectl describe`` would show.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/qos/qos.go
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/defaults.go
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go
KEP-753 (sidecar containers), KEP-688 (pod overhead)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Iterable, Sequence

import ipywidgets as widgets
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from kubenotes.api.manifests import DEFAULTING_STEP_SOURCES, defaulting_steps
from kubenotes.api.podutil import is_restartable_init_container
from kubenotes.api.priority import admit_pods
from kubenotes.api.qos import BEST_EFFORT, BURSTABLE, GUARANTEED, pod_qos_class
from kubenotes.api.quantity import format_quantity, milli_value, parse_quantity, suffix_meaning, value
from kubenotes.api.resources import (
    CPU,
    MEMORY,
    pod_non_zero_requests,
    pod_requests,
    pod_resource_requirements_errors,
    request_breakdown,
)
from kubenotes.api.selectors import NodeSelector, parse_selector
from kubenotes.api.taints import taint_string, tolerates
from kubenotes.errors import KubenotesError
from kubenotes.sim.objects import SIDECAR_EXAMPLE, pod_with_sidecar
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import TABLE_CSS, TH_BOTTOM_CSS, Html, escape, namespaced_name, table
from kubenotes.viz.widgets import int_slider, live_panel, memoise_update

__all__ = [
    "containers_table",
    "plot_request_breakdown",
    "explain_pod",
    "requests_table",
    "kinds_table",
    "quantity_table",
    "defaulting_table",
    "priority_admission_table",
    "label_selector_table",
    "node_selector_table",
    "toleration_table",
    "request_panel",
]

_MIB = 2**20
_QOS_COLOUR = {GUARANTEED: "#2e7d32", BURSTABLE: "#ef6c00", BEST_EFFORT: "#c62828"}
_GREEN = "#2e7d32"
_RED = "#c62828"
_GREY = "#757575"
_YES = f'<span style="color:{_GREEN};font-weight:bold">✓</span>'
_NO = f'<span style="color:{_RED}">✗</span>'

# The request breakdown's bar colours, by legend label.
_BAR_COLOURS = {"containers": "#4C72B0", "sidecars": "#55A868", "init container": "#DD8452",
                "max of the two phases": "#8172B2", "pod overhead": "#C44E52", "pod-level request": "#937860"}


# ---------------------------------------------------------------------------
# small helpers


# Element text: ``&``, ``<`` and ``>`` escaped, quotes kept (they stand in messages and selectors).
_e = functools.partial(escape, quote=False)


# The chapter's tables: rows of ``(html, extra_css)`` cells; headers escaped without quotes (or HTML:
# ``escape_headers=False``).
_table = functools.partial(table, html_cells=True, th_css=TH_BOTTOM_CSS, quote=False)


def _q(amount: int, resource: str) -> str:
    """An integer amount for display: CPU always in millicores (``1450m``, ``2000m``), others canonical (``504Mi``)."""
    if resource == CPU:
        return f"{amount}m" if amount else "0"
    return format_quantity(amount, resource)


def _rl_text(rl: Mapping[str, Any] | None) -> str:
    """A ResourceList as written: ``cpu 500m, memory 256Mi`` (``—`` when empty)."""
    return ", ".join(f"{k} {v}" for k, v in rl.items()) if rl else "—"


def _mark(ok: bool, css: str = "text-align:center") -> tuple[str, str]:
    """A grid cell: a green ✓ or a red ✗."""
    return (_YES if ok else _NO, css)


def containers_table(pod: Any) -> Html:
    """Each container of a Pod in start order, with its role, requests and limits as written.

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod

    Returns
    -------
    Html
        Rows: init containers (marked *sidecar* when ``restartPolicy:
        Always``), regular containers, then ``spec.overhead`` and pod-level
        ``spec.resources`` when set.

    Raises
    ------
    AttributeError
        When ``pod`` is not a lightkube Pod (a plain dict) or has no ``spec``.
        Quantities are shown as written, never parsed, so a bad one does not raise.

    See Also
    --------
    kubenotes.api.resources.request_breakdown : how these rows add up to the effective request.

    References
    ----------
    https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/
    https://kubernetes.io/docs/concepts/scheduling-eviction/pod-overhead/

    Examples
    --------
    >>> t = containers_table(pod_with_sidecar())
    >>> t.count("<tr>"), "sidecar" in t, "spec.overhead" in t
    (5, True, True)
    """
    spec = pod.spec
    entries = [("sidecar (init, restartPolicy: Always)" if is_restartable_init_container(c) else "init container",
                c.name, c.resources) for c in spec.initContainers or ()]
    entries += [("container", c.name, c.resources) for c in spec.containers or ()]
    rows = [[(_e(role), ""), (f"<code>{_e(name)}</code>", ""), (_e(_rl_text(getattr(res, "requests", None))), ""),
             (_e(_rl_text(getattr(res, "limits", None))), "")] for role, name, res in entries]
    if spec.overhead:
        rows.append([("pod overhead (RuntimeClass)", ""), ("<code>spec.overhead</code>", ""),
                     (_e(_rl_text(spec.overhead)), ""), ("", "")])
    if spec.resources is not None and (spec.resources.requests or spec.resources.limits):
        rows.append([("pod-level resources", ""), ("<code>spec.resources</code>", ""),
                     (_e(_rl_text(spec.resources.requests)), ""), (_e(_rl_text(spec.resources.limits)), "")])
    return _table(["role", "name", "requests", "limits"], rows)


def _draw_breakdown(ax: Axes, b: Mapping[str, int], resource: str) -> None:
    """One resource's bars on ``ax``: running phase, init peak, (pod level,) effective; each a stack of segments."""
    c, pod_level = _BAR_COLOURS, b.get("pod-level")
    base = max(b["running"], b["init peak"]) if pod_level is None else pod_level
    init_only = b["init peak"] - b["init peak sidecars"]
    rows = [("running\ncontainers + sidecars", b["running"], [(b["containers"], c["containers"]),
                                                              (b["sidecars"], c["sidecars"])]),
            ("init peak\ninit + earlier sidecars", b["init peak"], [(b["init peak sidecars"], c["sidecars"]),
                                                                    (init_only, c["init container"])])]
    if pod_level is not None:
        rows.append(("pod level\nspec.resources", pod_level, [(pod_level, c["pod-level request"])]))
    rows.append(("effective\n= max + overhead" if pod_level is None else "effective\n= pod level + overhead",
                 b["effective"], [(base, c["max of the two phases" if pod_level is None else "pod-level request"]),
                                  (b["overhead"], c["pod overhead"])]))
    scale = _MIB if resource == MEMORY else 1
    top = max([t / scale for _, t, _ in rows] + [1.0])
    for i, (label, total, segments) in enumerate(rows):
        y = len(rows) - 1 - i
        ax.barh(y, segments[0][0] / scale, height=0.62, color=segments[0][1])
        for amount, colour in segments[1:]:
            ax.barh(y, amount / scale, left=segments[0][0] / scale, height=0.62, color=colour)
        winner = pod_level is None and i < 2 and total == base and total > 0
        ax.text(total / scale + top * 0.015, y, _q(total, resource) + ("  (max)" if winner else ""), va="center",
                fontsize=9, fontweight="bold" if i == len(rows) - 1 or winner else "normal")
    ax.set_yticks(range(len(rows) - 1, -1, -1), [label for label, _, _ in rows], fontsize=8.5)
    ax.set_xlim(0, top * 1.32)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    unit = "millicores" if resource == CPU else ("MiB" if resource == MEMORY else "units")
    ax.set_xlabel(f"{resource} request ({unit})", fontsize=9)
    ax.set_title(f"{resource}: effective request {_q(b['effective'], resource)}", fontsize=10, fontweight="bold")
    ax.tick_params(axis="x", labelsize=8)
    ax.spines[["top", "right"]].set_visible(False)


def plot_request_breakdown(
    pod: Any,
    resources: str | Sequence[str] = (CPU, MEMORY),
) -> Figure:
    """Bar chart of ``PodRequests``: containers + sidecars vs. the init peak, plus overhead.

    One panel per resource. The *running* bar stacks the regular containers
    and the sidecars; the *init peak* bar stacks the sidecars already running
    and the init container at the peak; the *effective* bar is the larger of
    the two plus ``spec.overhead`` (or the pod-level request plus overhead).

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod
    resources : str or sequence of str
        ``cpu`` and/or ``memory`` (or another resource), one panel each.

    Returns
    -------
    matplotlib.figure.Figure
        Not shown: a notebook cell displays it by ending with it.

    Raises
    ------
    InvalidQuantity
        When a quantity does not parse.

    See Also
    --------
    kubenotes.api.resources.request_breakdown : the numbers drawn.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests)

    Examples
    --------
    >>> fig = plot_request_breakdown(pod_with_sidecar())
    >>> [ax.get_title() for ax in fig.axes]
    ['cpu: effective request 1450m', 'memory: effective request 504Mi']
    """
    names = [resources] if isinstance(resources, str) else list(resources)
    fig = detached_figure(min(4.7 * len(names), 9.6), 2.9)  # <= 1,000 px at 100 dpi (MAX_INLINE_WIDTH_PX)
    fig.set_layout_engine("constrained")
    for ax, name in zip(fig.subplots(1, len(names), squeeze=False)[0], names):
        _draw_breakdown(ax, request_breakdown(pod, name), name)
    pod_level = any("pod-level" in request_breakdown(pod, n) for n in names)
    handles = [Patch(color=colour, label=label) for label, colour in _BAR_COLOURS.items()
               if label != "pod-level request" or pod_level]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8.5, frameon=False)
    fig.suptitle(f"PodRequests of {namespaced_name(pod)}: QoS class {pod_qos_class(pod)}", fontsize=11)
    return fig


def explain_pod(pod: Any) -> Html:
    """The effective request, its two phases, the QoS class and the scheduler's non-zero view, as HTML.

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod

    Returns
    -------
    Html
        One line per resource (``effective = max(running, init peak) +
        overhead``) and one with the QoS class and the non-zero view; a red
        line per container whose request exceeds its limit.

    Raises
    ------
    InvalidQuantity
        When a quantity does not parse.

    See Also
    --------
    kubenotes.api.resources.request_breakdown, kubenotes.api.qos.pod_qos_class,
    kubenotes.api.resources.pod_non_zero_requests

    Notes
    -----
    A request above its limit is shown with the API server's rejection
    (``ValidateResourceRequirements``), so the widget never shows a class for
    a Pod that could not be created.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/validation/validation.go (ValidateResourceRequirements)

    Examples
    --------
    >>> "QoS class" in explain_pod(pod_with_sidecar())
    True
    >>> bad = explain_pod(pod_with_sidecar(app_cpu_milli=1200, app_cpu_limit_milli=1000))
    >>> 'requests[cpu]: Invalid value: "1200m": must be less than or equal to cpu limit of 1' in bad
    True
    """
    lines = []
    for name in (CPU, MEMORY):
        b = request_breakdown(pod, name)
        if "pod-level" in b:
            how = f"pod level {_q(b['pod-level'], name)} + overhead {_q(b['overhead'], name)}"
        else:
            how = (f"max(running {_q(b['running'], name)}, init peak {_q(b['init peak'], name)}) "
                   f"+ overhead {_q(b['overhead'], name)}")
        lines.append(f"<b>{name}</b>: effective request <b>{_q(b['effective'], name)}</b> = {_e(how)}")
    qos = pod_qos_class(pod)
    nz_cpu, nz_mem = pod_non_zero_requests(pod)
    lines.append(f'<b>QoS class</b>: <b style="color:{_QOS_COLOUR.get(qos, "#000")}">{_e(qos)}</b> · '
                 f"scheduler's non-zero view: cpu {_q(nz_cpu, CPU)}, memory {_q(nz_mem, MEMORY)}")
    for err in map(str, pod_resource_requirements_errors(pod)):
        lines.append(f'<span style="color:{_RED}">the API server rejects this Pod: '
                     f'Pod "{_e(pod.metadata.name)}" is invalid: {_e(err)}</span>')
    return Html('<div class="kubenotes-explain" style="font-size:13px;line-height:1.6">'
                + "<br>".join(lines) + "</div>")


def requests_table(pods: Iterable[Any]) -> Html:
    """Per Pod: QoS class, requests and limits as written, ``PodRequests`` and the scheduler's non-zero view.

    Parameters
    ----------
    pods : iterable of lightkube Pod

    Returns
    -------
    Html
        Columns ``pod``, ``QoS class``, ``requests`` and ``limits`` (every
        container, as written), ``PodRequests`` cpu/memory and ``non-zero``
        cpu/memory; a non-zero value that differs from ``PodRequests``
        (a scheduler default filled in) is shown in orange.

    Raises
    ------
    InvalidQuantity
        When a quantity does not parse.

    See Also
    --------
    kubenotes.api.resources.pod_requests, kubenotes.api.resources.pod_non_zero_requests,
    kubenotes.api.qos.pod_qos_class

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/util/pod_resources.go (DefaultMilliCPURequest, DefaultMemoryRequest)
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/qos/qos.go

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> t = requests_table([make_pod("idle")])
    >>> "BestEffort" in t, "100m" in t, "200Mi" in t
    (True, True, True)
    """
    rows = []
    for p in pods:
        cs = list(p.spec.initContainers or ()) + list(p.spec.containers or ())
        r, nz, qos = pod_requests(p), dict(zip((CPU, MEMORY), pod_non_zero_requests(p))), pod_qos_class(p)
        written = ["<br>".join(f"{_e(c.name)}: {_e(_rl_text(getattr(c.resources, field, None)))}" for c in cs)
                   for field in ("requests", "limits")]
        # a non-zero value that is not PodRequests' (a scheduler default filled in) in orange
        nz_css = {n: ";color:#ef6c00;font-weight:bold" if nz[n] != r.get(n, 0) else "" for n in (CPU, MEMORY)}
        rows.append([(f"<code>{_e(namespaced_name(p))}</code>", ""),
                     (_e(qos), f"color:{_QOS_COLOUR.get(qos, '#000')};font-weight:bold"), *((w, "") for w in written),
                     *((_e(_q(r[n], n)) if n in r else "0", "text-align:right") for n in (CPU, MEMORY)),
                     *((_e(_q(nz[n], n)), "text-align:right" + nz_css[n]) for n in (CPU, MEMORY))])
    return _table(["pod", "QoS class", "requests (as written)", "limits (as written)", "PodRequests cpu",
                   "PodRequests memory", "non-zero cpu", "non-zero memory"], rows)


# ---------------------------------------------------------------------------
# what load_manifests read


def kinds_table(manifests: Any) -> Html:
    """Objects per kind: how many, from which files, namespaced or cluster-scoped.

    Parameters
    ----------
    manifests : kubenotes.api.manifests.Manifests

    Returns
    -------
    Html
        One row per ``(apiVersion, kind)``, most numerous first, with the
        scope (``Namespaced``/``Cluster``), the count, the source file names
        and up to three example names.

    Raises
    ------
    AttributeError
        When an item is not a :class:`~kubenotes.api.manifests.LoadedObject`
        (e.g. a plain dict).
    TypeError
        When ``manifests`` is not iterable.

    See Also
    --------
    kubenotes.api.manifests.load_manifests : what produces ``manifests``.

    Examples
    --------
    >>> from kubenotes.api.manifests import load_manifests
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... ''')
    >>> "Cluster" in kinds_table(m) and "<code>n1</code>" in kinds_table(m)
    True
    """
    groups: dict[tuple[str, str], list[Any]] = {}
    for o in manifests:
        groups.setdefault((o.api_version, o.kind), []).append(o)
    rows = []
    for (api_version, kind), objs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0][1])):
        scope = "Namespaced" if objs[0].namespace is not None else ("Cluster" if not isinstance(objs[0].obj, dict)
                                                                    else "(component config)")
        files = sorted({o.source.replace("\\", "/").rsplit("/", 1)[-1] for o in objs})
        names = ", ".join(f"<code>{_e(o.namespace + '/' if o.namespace else '')}{_e(o.name)}</code>" for o in objs[:3])
        if len(objs) > 3:
            names += f", … ({len(objs) - 3} more)"
        rows.append([(f"<b>{_e(kind)}</b>", ""), (f"<code>{_e(api_version)}</code>", ""), (_e(scope), ""),
                     (_e(len(objs)), "text-align:right"), (_e(", ".join(files)), ""), (names, "")])
    return _table(["kind", "apiVersion", "scope", "count", "from", "e.g."], rows)


def _grouped(n: int) -> str:
    """Digits in groups of three separated by thin spaces (``2 147 483 648``)."""
    return f"{n:,}".replace(",", "\u2009")


def _plain(d: Decimal) -> str:
    """A Decimal without exponent or trailing zeros, integer part grouped (``0.1``, ``2 147 483 648``)."""
    whole, _, frac = format(d.normalize(), "f").partition(".")
    sign = "-" if whole.startswith("-") else ""
    return sign + _grouped(int(whole.lstrip("-"))) + (f".{frac}" if frac else "")


def quantity_table(quantities: Iterable[Any]) -> Html:
    """How each quantity is read: exact value, integer millicores and integer base units.

    Parameters
    ----------
    quantities : iterable of str or int
        As written in a manifest, e.g. ``"100m"``, ``"1.5"``, ``"2Gi"``, ``"1e3"``, ``"500M"``.

    Returns
    -------
    Html
        Columns: as written; the suffix's meaning; the exact value
        (:func:`~kubenotes.api.quantity.parse_quantity`); ``MilliValue()``
        (what a CPU quantity becomes: millicores); ``Value()`` (what a memory
        quantity becomes: bytes). Values rounded up are marked ``↑``.

    Raises
    ------
    InvalidQuantity
        When a quantity does not parse.

    See Also
    --------
    kubenotes.api.quantity.parse_quantity, kubenotes.api.quantity.milli_value, kubenotes.api.quantity.value

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go

    Examples
    --------
    >>> t = quantity_table(["100m", "2Gi"])
    >>> "2\u2009147\u2009483\u2009648" in t, "↑" in t
    (True, True)
    """
    rows = []
    for q in quantities:
        exact = parse_quantity(q)
        milli, units = milli_value(q), value(q)
        milli_up = Decimal(milli) != exact * 1000
        units_up = Decimal(units) != exact
        rows.append([
            (f"<code>{_e(q)}</code>", ""), (_e(suffix_meaning(str(q))), f"color:{_GREY}"),
            (_e(_plain(exact)), "text-align:right"),
            (_grouped(milli) + (" ↑" if milli_up else ""), "text-align:right"),
            (_grouped(units) + (" ↑" if units_up else ""),
             "text-align:right" + (f";color:{_RED}" if units_up else "")),
        ])
    return _table(["as written", "suffix", "exact value", "MilliValue() = millicores", "Value() = bytes or units"],
                  rows)


# ---------------------------------------------------------------------------
# defaulting and admission


def defaulting_table(pod: Any, priority_classes: Iterable[Any] = ()) -> Html:
    """:func:`~kubenotes.api.manifests.defaulting_steps` as a table: step, upstream file, field, as written, as stored.

    Parameters
    ----------
    pod, priority_classes
        As for :func:`~kubenotes.api.manifests.defaulting_steps` (with the built-in ``system-`` classes).

    Returns
    -------
    Html
        Fields set from limits (``resources.requests``), ``status.qosClass``
        and ``spec.priority`` are in bold.

    Raises
    ------
    FieldError
        When admission rejects the Pod.

    See Also
    --------
    kubenotes.api.manifests.defaulting_steps, kubenotes.api.defaults.apply_defaults

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/defaults.go
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go
    kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> "SetDefaults_Pod" in defaulting_table(make_pod("p", limits={"cpu": "1"}))
    True
    """
    rows = []
    last = None
    for s in defaulting_steps(pod, priority_classes):
        key = ".resources.requests." in s["field"] or s["field"] in ("status.qosClass", "spec.priority")
        step = "" if s["step"] == last else (f"<b>{_e(s['step'])}</b><br><span style=\"color:{_GREY};font-size:11px\">"
                                             f"{_e(DEFAULTING_STEP_SOURCES.get(s['step'], ''))}</span>")
        last = s["step"]
        weight = "font-weight:bold" if key else ""
        rows.append([(step, ""), (f"<code>{_e(s['field'])}</code>", weight), (_e(s["before"]), f"color:{_GREY}"),
                     (_e(s["after"]), weight)])
    return _table(["step (upstream)", "field", "as written", "as stored"], rows)


def priority_admission_table(pods: Iterable[Any], priority_classes: Iterable[Any] = ()) -> Html:
    """Each Pod through the Priority admission plugin: the class it names, what admission writes, or why it rejects.

    Parameters
    ----------
    pods : iterable of lightkube Pod
        As written (``load_manifests(..., defaults=False)``); not modified.
    priority_classes : iterable of PriorityClass
        The cluster's classes; the two built-in ``system-`` classes are added.

    Returns
    -------
    Html
        Columns: pod; ``priorityClassName`` and ``priority`` as written;
        ``priorityClassName``, ``priority`` and ``preemptionPolicy`` after
        admission; and ``admitted`` or upstream's rejection message (red).

    Raises
    ------
    AttributeError
        When an item of ``pods`` is not a lightkube Pod (e.g. a plain dict).
        Admission's own rejections (:class:`~kubenotes.errors.KubenotesError`,
        e.g. ``FieldError``) are not raised: they are the ``result`` column.

    See Also
    --------
    kubenotes.api.priority.admit_pods : the plugin run on each Pod.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> t = priority_admission_table([make_pod("a", priority=7), make_pod("b", priorityClassName="system-node-critical")])
    >>> "must not be provided in pod spec" in t, "2000001000" in t
    (True, True)
    """
    pods = list(pods)
    results = admit_pods(pods, list(priority_classes))
    rows = []
    for p, admitted in zip(pods, results):
        priority = "—" if p.spec.priority is None else p.spec.priority
        written = [(_e(p.spec.priorityClassName or "—"), ""), (_e(priority), "text-align:right")]
        if isinstance(admitted, KubenotesError):
            after = [("", ""), ("", ""), ("", ""), (f"<b>rejected</b>: {_e(admitted)}", f"color:{_RED}")]
        else:
            s = admitted.spec
            after = [(f"<code>{_e(s.priorityClassName or '—')}</code>", ""), (f"<b>{_e(s.priority)}</b>", "text-align:right"),
                     (_e(s.preemptionPolicy), ""), ("admitted", f"color:{_GREEN}")]
        rows.append([(f"<code>{_e(namespaced_name(p))}</code>", ""), *written, *after])
    return _table(["pod", "priorityClassName (written)", "priority (written)", "→ priorityClassName", "→ priority",
                   "→ preemptionPolicy", "result"], rows)


# ---------------------------------------------------------------------------
# selectors, taints and tolerations


def _labels_html(labels: Mapping[str, str]) -> str:
    if not labels:
        return f'<span style="color:{_GREY}">(no labels)</span>'
    return "<br>".join(f'<span style="color:{_GREY};font-weight:normal;font-size:11px">{_e(k)}={_e(v)}</span>'
                       for k, v in labels.items())


def label_selector_table(selectors: Iterable[str], objects: Mapping[str, Any], *,
                         show_labels: Sequence[str] | None = None) -> Html:
    """Which objects each label selector (string form) matches: a ✓/✗ grid.

    Parameters
    ----------
    selectors : iterable of str
        String form as ``kubectl get -l`` takes it: ``app=web``,
        ``app in (web,redis),!canary``, ``tier``, ``app!=web``...
    objects : mapping of str to labels-or-object
        Columns: a name mapped to a ``dict`` of labels or to an object with ``metadata.labels``.
    show_labels : sequence of str, optional
        Label keys listed under each column name (default: all labels).

    Returns
    -------
    Html
        Rows: the selector as written, upstream's canonical string of it
        (requirements sorted by key), then ✓ or ✗ per object.

    Raises
    ------
    FieldError
        When a selector does not parse (upstream's message).

    See Also
    --------
    kubenotes.api.selectors.parse_selector, node_selector_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/labels/selector.go

    Examples
    --------
    >>> t = label_selector_table(["app=web", "!app"], {"web": {"app": "web"}, "bare": {}})
    >>> t.count("✓"), t.count("✗")
    (2, 2)
    """
    named = [(n, o if isinstance(o, Mapping) else o.metadata.labels or {}) for n, o in objects.items()]
    heads = ["selector", "parsed"]
    for n, labels in named:
        shown = {k: v for k, v in labels.items() if show_labels is None or k in show_labels}
        heads.append(f"{_e(n)}<br>{_labels_html(shown)}")
    rows = []
    for s in selectors:
        sel = parse_selector(s)
        row = [(f"<code>{_e(s)}</code>", ""), (f"<code>{_e(sel)}</code>", f"color:{_GREY}")]
        row += [_mark(sel.matches(labels)) for _, labels in named]
        rows.append(row)
    return _table(heads, rows, escape_headers=False)


#: A table that stays within its output column: its long cells wrap rather than widen it.
_WRAPPING_TABLE_CSS = TABLE_CSS + ";max-width:100%"
#: A cell of label keys / requirements: wraps at the word breaks given, else anywhere; never wider than 260 px.
_KEY_CELL_CSS = "min-width:140px;max-width:260px;overflow-wrap:anywhere"


def node_selector_table(selectors: Mapping[str, Any] | Iterable[Sequence[Any]], nodes: Iterable[Any]) -> Html:
    """Which nodes each required node selector matches, with the node's value of the key.

    Parameters
    ----------
    selectors : iterable of ``(key, operator, values)``, or mapping of str to NodeSelector
        A tuple is one ``matchExpressions`` requirement in API spelling
        (``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt``),
        as in ``requiredDuringSchedulingIgnoredDuringExecution``; a mapping
        names full ``v1.NodeSelector`` objects (or dicts with ``nodeSelectorTerms``).
    nodes : iterable of lightkube Node

    Returns
    -------
    Html
        ✓/✗ per node; for tuple rows the node's value of ``key`` is shown
        under the mark (``—`` when the node does not have the label).

    Raises
    ------
    FieldError
        When a selector is invalid (e.g. ``Gt`` with a non-integer value).

    See Also
    --------
    kubenotes.api.selectors.NodeSelector, label_selector_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node
    >>> nodes = [make_node("small", labels={"cores": "8"}), make_node("big", labels={"cores": "48"})]
    >>> t = node_selector_table([("cores", "Gt", ["16"])], nodes)
    >>> t.count("✓"), t.count("✗")
    (1, 1)
    """
    nodes = list(nodes)
    if isinstance(selectors, Mapping):
        items = [(name, NodeSelector.from_api(sel), None) for name, sel in selectors.items()]
    else:  # one requirement a row, named as written: ``key Op [values]`` (``key Op`` for Exists, DoesNotExist)
        items = [(f"{key} {op}" + ("" if op in ("Exists", "DoesNotExist") else f" [{', '.join(values)}]"),
                  NodeSelector.from_api({"nodeSelectorTerms": [
                      {"matchExpressions": [{"key": key, "operator": op, "values": list(values)}]}]}), key)
                 for key, op, values in selectors]
    rows = []
    for name, sel, key in items:
        # Long label keys break after their prefix's '/' (or anywhere, last), values at their hyphens: nine
        # node columns and a key like node-role.kubernetes.io/control-plane fit a ~1,000 px output column.
        row = [(f"<code>{_e(name).replace('/', '/<wbr>')}</code>", _KEY_CELL_CSS)]
        for n in nodes:  # for a requirement row, the node's value of its key under the mark
            val = None if key is None else (n.metadata.labels or {}).get(key)
            val = "—" if val is None else (val or chr(34) * 2)
            under = "" if key is None else f'<br><span style="color:{_GREY};font-size:11px">{_e(val)}</span>'
            row.append(((_YES if sel.matches(n) else _NO) + under, "text-align:center;padding:3px 5px"))
        rows.append(row)
    heads = ["matchExpressions", *[f'<span style="white-space:nowrap">{_e(n.metadata.name)}</span>' for n in nodes]]
    return _table(heads, rows, escape_headers=False, table_css=_WRAPPING_TABLE_CSS)


def _toleration_text(t: Any) -> str:
    fields = []
    for f in ("key", "operator", "value", "effect", "tolerationSeconds"):
        v = t.get(f) if isinstance(t, Mapping) else getattr(t, f, None)
        if v not in (None, ""):
            fields.append(f"{f}: {v}")
    return "{" + ", ".join(fields) + "}"


def toleration_table(tolerations: Iterable[Any], taints: Iterable[Any]) -> Html:
    """Which taint each toleration tolerates (``Toleration.ToleratesTaint``): a ✓/✗ grid.

    Parameters
    ----------
    tolerations : iterable of Toleration or dict
        Rows, shown in manifest spelling (empty fields left out).
    taints : iterable of Taint or dict
        Columns, shown as ``key=value:Effect``.

    Returns
    -------
    Html

    Raises
    ------
    TypeError
        When ``tolerations`` or ``taints`` is not iterable. Malformed entries
        do not raise: each cell is what :func:`kubenotes.api.taints.tolerates`
        returns (an unknown operator tolerates nothing).

    See Also
    --------
    kubenotes.api.taints.tolerates : the rule applied to each cell.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/toleration.go

    Examples
    --------
    >>> t = toleration_table([{"operator": "Exists"}, {"key": "a", "value": "x"}],
    ...                      [{"key": "a", "value": "y", "effect": "NoSchedule"}])
    >>> t.count("✓"), t.count("✗")
    (1, 1)
    """
    taints = list(taints)
    rows = []
    for tol in tolerations:
        row = [(f"<code>{_e(_toleration_text(tol))}</code>", "")]
        row += [_mark(tolerates(tol, t)) for t in taints]
        rows.append(row)
    return _table(["toleration", *[taint_string(t) for t in taints]], rows)


# ---------------------------------------------------------------------------
# the widget


def request_panel(**defaults: int) -> Any:
    """The chapter's widget: the example Pod's CPU and memory sliders -> bar chart, effective request and QoS class.

    Parameters
    ----------
    **defaults : int
        Starting values overriding :data:`SIDECAR_EXAMPLE` (same keys as
        :func:`pod_with_sidecar`'s parameters).

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`. Sliders, two per row
        (the first is the app's CPU request; ``m`` = millicores):
        ``app_cpu_milli``, ``app_cpu_limit_milli``, ``app_memory_mib``,
        ``app_memory_limit_mib``, ``sidecar_cpu_milli``, ``init_cpu_milli``,
        ``overhead_cpu_milli``.
        Each change builds the Pod with :func:`pod_with_sidecar` (defaults
        applied) and shows :func:`plot_request_breakdown` and :func:`explain_pod`.

    Raises
    ------
    TypeError
        For an unknown key in ``defaults``.

    See Also
    --------
    pod_with_sidecar, plot_request_breakdown, explain_pod, kubenotes.viz.widgets.live_panel

    Notes
    -----
    A limit of 0 means "no limit" (the field is left out). An update takes
    about 0.1 s, most of it drawing the chart; a state seen before is shown
    at once (:func:`~kubenotes.viz.widgets.memoise_update`).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests)
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/qos/qos.go

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = request_panel(app_cpu_milli=300)
    >>> panel.children[0].children[0].value, len(panel.children)
    (300, 5)
    """
    unknown = set(defaults) - set(SIDECAR_EXAMPLE)
    if unknown:
        raise TypeError(f"request_panel() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    start = {**SIDECAR_EXAMPLE, **defaults}
    style = {"description_width": "215px"}
    layout = widgets.Layout(width="470px")
    spec = [  # two per row: the app's request next to its limit
        ("app_cpu_milli", "app requests.cpu (m)", 4000, 50),
        ("app_cpu_limit_milli", "app limits.cpu (m)", 4000, 50),
        ("app_memory_mib", "app requests.memory (Mi)", 4096, 64),
        ("app_memory_limit_mib", "app limits.memory (Mi)", 4096, 64),
        ("sidecar_cpu_milli", "istio-proxy sidecar cpu (m)", 2000, 50),
        ("init_cpu_milli", "migrate init cpu (m)", 4000, 50),
        ("overhead_cpu_milli", "spec.overhead.cpu (m)", 1000, 50),
    ]
    controls = {key: int_slider(label, start[key], 0, max(top, start[key]), step, style=style, layout=layout)
                for key, label, top, step in spec}

    def update(**v: int) -> list[Any]:
        pod = pod_with_sidecar(**v)
        return [explain_pod(pod), plot_request_breakdown(pod)]

    return live_panel(memoise_update(update), controls)
