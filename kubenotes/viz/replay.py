"""Plots, tables and the live panel of chapter 04.04: a production GPU trace replayed under nine Score plugins.

Drawing only: replays, the cluster at some arrived workload, FGD's decision in
numbers and fragmentation come from :mod:`kubenotes.replay` (``cache``,
``explain``, ``engine``, ``policies``). The trace is Alibaba's research/study-use
``cluster-trace-gpu-v2023`` (not shipped), released with Q. Weng et al.,
"Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
Gradient Descent", USENIX ATC 2023; cite the paper when you use it.

References
----------
hkust-adsl/kubernetes-scheduler-simulator experiments/plot/plot_openb_alloc.py, plot_openb_frag_ratio.py
hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/fgd_score.go, pkg/utils/frag.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go (ScorePlugin)
"""

from __future__ import annotations

import base64
import functools
import io
import os
import time
from collections.abc import Mapping
from itertools import groupby
from typing import Any, Sequence

import networkx as nx
import numpy as np
from matplotlib import colormaps
from matplotlib.colors import to_rgba
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import imsave
from matplotlib.patches import Patch, Rectangle

from kubenotes.datasets.alibaba import MILLI_PER_GPU, TraceArrays, pod_gpu_request, trace_counts
from kubenotes.replay.cache import (ARRIVED_PERCENT, DEFAULT_SEED, TRACE_VARIANTS, cached_replay, cluster_at, curves,
                                    events_at, gpu_rates_at, per_trace, replay_policies, seed_means, trace_of)
from kubenotes.replay.engine import PAPER_ALLOCATION_PERCENT, ReplayResult, replay
from kubenotes.replay.explain import fgd_explain, fragmentation_terms
from kubenotes.replay.policies import PAPER_POLICY_NAMES, POLICY_NAMES, NodeView, PodRequest, TypicalPods, frag_amount
from kubenotes.scheduler.whatif import compare_placements
from kubenotes.viz.controlplane import _png  # the one savefig-to-PNG helper of the chapters
from kubenotes.viz.graphs import detached_figure
from kubenotes.viz.html import TABLE_CSS, Html, table
from kubenotes.viz.html import escape as _e

__all__ = ["VARIANT_LABELS", "POLICY_COLORS", "trace_overview", "results_table", "curves_figure",
           "variants_figure", "occupancy_figure", "fragmentation_breakdown", "fgd_panel", "placement_figure",
           "schedule_comparison", "replay_view", "replay_panel", "update_seconds"]

#: What each variant changes (the data README's wording, shortened), for dropdowns and tables.
VARIANT_LABELS: dict[str, str] = {
    "default": "default: the production pod list",
    "gpushare100": "gpushare100: all GPU demand from sharing pods",
    "multigpu50": "multigpu50: half the GPU demand from multi-GPU pods",
    "gpuspec33": "gpuspec33: a third of GPU pods pinned to card models",
    "cpu050": "cpu050: fewer CPU-only pods",
}
#: One fixed colour per policy, in every figure.
POLICY_COLORS: dict[str, str] = {
    "LeastAllocated": "#8c564b", "MostAllocated": "#e377c2", "BalancedAllocation": "#bcbd22", "Random": "#7f7f7f",
    "DotProd": "#9467bd", "GpuClustering": "#17becf", "GpuPacking": "#2ca02c", "BestFit": "#1f77b4", "FGD": "#d62728",
}

_IDLE, _FULL, _GREEN, _PARTIAL = "#dcdcdc", "#253494", "#2e7d32", colormaps["YlOrRd"]
_TH = "padding:3px 7px;border-bottom:2px solid #888;text-align:left;background:#fafafa"
_TD = "padding:2px 7px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top"
#: Why a typical pod shape counts the node's idle GPU as fragmented (reasons of fragmentation_terms).
_WHY = {"no GPU": "asks for no GPU: all idle GPU is wasted for it", "card model": "needs {t}: card model not allowed",
        "CPU": "not enough CPU left: all idle GPU is stranded",
        "cards": "no {n} card{s} with {m} free: all idle GPU is stranded",
        "fits": "fits; idle GPU on cards with less than {m} free is stranded"}


def _table(headers: Sequence[str], rows: Any, *, row_css: Sequence[str] | None = None, numeric_from: int = 1,
           compact: bool = False) -> Html:
    """The chapter's tables: cells are HTML (escape text first); columns from ``numeric_from`` align right."""
    pad = (lambda css, p: css.replace(p, "2px 4px")) if compact else (lambda css, p: css)
    return table(headers, rows, None, row_css, html_cells=True, table_css=TABLE_CSS.replace("12px", "11px")
                 if compact else TABLE_CSS, th_css=pad(_TH, "3px 7px"), td_css=pad(_TD, "2px 7px"), tr_style=True,
                 right_from=numeric_from)


def _div(body: str, css: str = "") -> str:
    return f"<div style='font-size:12px{css}'>{body}</div>"


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _gpu_text(num_gpu: int, gpu_milli: int) -> str:
    if num_gpu == 0:
        return "no GPU"
    return f"{gpu_milli / MILLI_PER_GPU:.2f} of 1 GPU" if gpu_milli < MILLI_PER_GPU else f"{num_gpu} GPU" + (
        "s" if num_gpu > 1 else "")


def _vcpu(milli_cpu: int) -> str:
    return f"{milli_cpu / 1000:g} vCPU"


def _legend(fig: Figure, handles: list[Any], labels: list[str], ncol: int) -> None:
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), ncol), fontsize=8.5, frameon=False)


# ---------------------------------------------------------------------------
# tables


def trace_overview(trace: TraceArrays) -> Html:
    """The trace in one small table: nodes, GPUs per model, pod kinds, GPU demand against capacity.

    Parameters
    ----------
    trace : TraceArrays

    Returns
    -------
    Html
        Two columns, ``what`` and ``value``.

    Raises
    ------
    AttributeError
        ``trace`` is not a TraceArrays.

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n", 8000, 1024, 2, "T4")],
    ...                           [PodRow("a", 1000, 0, 1, 500), PodRow("b", 1000, 0, 0, 0)])
    >>> s = trace_overview(t)
    >>> "T4 2" in s and "1 GPU-sharing" in s and "25.0%" in s
    True
    """
    c = trace_counts(trace)
    pct = {k: f"{100 * c[k] / max(trace.num_pods, 1):.1f}%" for k in ("cpu_only", "gpu_sharing", "whole_gpu")}
    demand = c["gpu_demand_milli"]
    rows = [
        ("pod list", f"<code>{_e(trace.pods_file or '(in memory)')}</code>"),
        ("GPU nodes", f"{trace.num_nodes:,} with {c['gpus']:,} GPUs, {c['milli_cpu'] // 1000:,} vCPU"),
        ("GPUs by card model", " · ".join(f"{_e(m)} {g:,}" for m, g in c["gpus_by_model"].items())),
        ("GPUs per node", " · ".join(f"{g} on {n:,} nodes" for g, n in c["nodes_by_gpus"].items())),
        ("pods", f"{trace.num_pods:,}: {c['cpu_only']:,} CPU-only ({pct['cpu_only']}), {c['gpu_sharing']:,} "
                 f"GPU-sharing ({pct['gpu_sharing']}), {c['whole_gpu']:,} whole-GPU ({pct['whole_gpu']}; "
                 f"{c['multi_gpu']:,} of them multi-GPU)"),
        ("pods pinned to card models (gpu_spec)", f"{c['pinned']:,}"),
        ("GPU requested by the whole list", f"{demand / MILLI_PER_GPU:,.1f} GPUs = "
                                            f"{100 * demand / max(trace.total_gpu_milli, 1):.1f}% of capacity"),
    ]
    return _table(["what", "value"], [(f"<b>{_e(k)}</b>", v) for k, v in rows], numeric_from=99)


def results_table(results: Mapping[str, ReplayResult | Sequence[ReplayResult]], *,
                  paper: Mapping[str, tuple[float, float]] | None = PAPER_ALLOCATION_PERCENT,
                  seconds: Mapping[str, float] | None = None) -> Html:
    """Per policy: GPU allocation ratio at 100% and 130% arrived workload (next to the paper's), fragmentation rate at 90%.

    Parameters
    ----------
    results : mapping of str to ReplayResult or list of ReplayResult
        Policy -> one result, or one per seed (then means over seeds).
    paper : mapping of str to (float, float), optional
        Published allocation percent at 100% and 130% (default
        :data:`~kubenotes.replay.engine.PAPER_ALLOCATION_PERCENT`, valid for
        the default trace only); None leaves the columns out.
    seconds : mapping of str to float, optional
        Policy -> replay CPU seconds (:func:`~kubenotes.replay.cache.replay_timings`), shown in a last column.

    Returns
    -------
    Html
        The best allocation at 130% is in bold.

    Raises
    ------
    TypeError
        A value of ``results`` is neither a ReplayResult nor an iterable of them.
    IndexError
        A ``paper`` entry has fewer than two numbers.

    See Also
    --------
    kubenotes.replay.cache.seed_means : the numbers, as values.
    kubenotes.replay.cli.summarize : the same numbers as JSON.

    Examples
    --------
    >>> r = ReplayResult("FGD", 42, "", 1000, np.array([0, 1]), np.array([0, -1]), [[0], []],
    ...                  np.array([1000, 1300]), np.array([950, 950]), np.array([10.0, 10.0]))
    >>> s = results_table({"FGD": r})
    >>> "95.00" in s and "95.39" in s and "<b>" in s
    True
    """
    cols = ["policy", "seeds", "allocation at 100% arrived", "paper", "allocation at 130% arrived", "paper",
            "fragmentation rate at 90%", "failed pods", "replay seconds"]
    keep = [i for i in range(9) if (paper is not None or i not in (3, 5)) and (seconds is not None or i < 8)]
    means = seed_means(results)
    best = max((m["allocation_130"] for m in means.values() if np.isfinite(m["allocation_130"])), default=None)
    rows = []
    for name, m in means.items():
        pub, a130 = (paper or {}).get(name) or (None, None), _fmt(m["allocation_130"])
        row = [f'<span style="color:{POLICY_COLORS.get(name, "#000")}">■</span> {_e(name)}', str(m["seeds"]),
               _fmt(m["allocation_100"]), _fmt(pub[0]), f"<b>{a130}</b>" if m["allocation_130"] == best else a130,
               _fmt(pub[1]), _fmt(m["fragmentation_90"], 1), f"{m['failed_pods']:,.0f}",
               _fmt((seconds or {}).get(name))]
        rows.append([row[i] for i in keep])
    return _table([cols[i] for i in keep], rows)


def fragmentation_breakdown(view: NodeView, typical: TypicalPods, *, top: int = 10) -> Html:
    """The paper's fragmentation of one node, term by term: one row per typical pod shape.

    For each typical pod ``p`` (popularity ``f_p``), ``F_p`` is the idle GPU
    of the node that ``p`` could not use: all of it when ``p`` cannot run on
    the node, otherwise the idle GPU on cards with less free than ``p`` asks.
    The node's fragmentation is ``F = sum_p f_p * F_p``.

    Parameters
    ----------
    view : NodeView
        E.g. :func:`node_view_of` a cluster.
    typical : TypicalPods
        The target workload (:func:`~kubenotes.replay.policies.typical_pods`).
    top : int
        Rows shown, largest contribution ``f_p * F_p`` first (ties: the more
        popular shape first); the rest are summed in one row.

    Returns
    -------
    Html
        A heading line (cards, CPU), the table, and the total ``F`` as
        :func:`~kubenotes.replay.policies.frag_amount` computes it.

    Raises
    ------
    AttributeError
        ``view`` is not a NodeView or ``typical`` not a TypicalPods.

    Notes
    -----
    The terms and their reasons come from
    :func:`~kubenotes.replay.explain.fragmentation_terms`; each ``F_p`` is
    ``frag_amount`` of the node against the single shape ``p``.

    Examples
    --------
    >>> t = TypicalPods.from_args([{"milliCpu": 2000, "milliGpu": 500, "gpuNumber": 1, "percentage": 0.5},
    ...                            {"milliCpu": 2000, "milliGpu": 1000, "gpuNumber": 1, "percentage": 0.5}])
    >>> s = fragmentation_breakdown(NodeView("n", 8000, 8000, 0, 0, [600, 1000], "T4"), t)
    >>> "F = 300" in s and "cards with less than 1000 free" in s
    True
    """
    idle, terms, total = sum(view.gpu_left), fragmentation_terms(view, typical), frag_amount(view, typical)
    rows = []
    for x in terms[:top]:
        n, m, t, f = x["num_gpu"], x["gpu_milli"], x["gpu_type"], x["share"]
        rows.append([_e(_vcpu(x["milli_cpu"])), _e(_gpu_text(n, m)) + (f" ({_e(t)})" if t else ""), f"{100 * f:.1f}%",
                     _WHY[x["reason"]].format(t=_e(t), n=n, s="s" if n > 1 else "", m=m), f"{x['frag']:,.0f}",
                     f"{f * x['frag']:,.1f}"])
    if len(terms) > top:
        rows.append(["", f"the other {len(terms) - top} shapes (smaller terms)",
                     f"{100 * (float(typical.percentage.sum()) - sum(x['share'] for x in terms[:top])):.1f}%", "", "",
                     f"{total - sum(x['share'] * x['frag'] for x in terms[:top]):,.1f}"])
    head = _div(f"<b>{_e(view.name)}</b> ({_e(view.model or 'no GPU')}): free GPU per card <code>{_e(view.gpu_left)}"
                f"</code> (thousandths), {_e(_vcpu(view.milli_cpu_left))} free; idle GPU T = {idle:,}")
    foot = _div(f"<b>F = {total:,.0f}</b> thousandths of a GPU are fragmented on this node ({100 * total / idle:.0f}% "
                "of its idle GPU)" if idle else "<b>F = 0</b>: no idle GPU, nothing to fragment")
    return Html(head + _table(["CPU", "GPU", "share f_p", "on this node", "F_p", "f_p × F_p"], rows, numeric_from=4)
                + foot)


def _cards_text(left: Sequence[int], chosen: Sequence[int] = ()) -> str:
    """Free GPU per card in card order, runs of equal values as ``1000×5``, chosen cards bracketed in green."""
    runs = groupby(range(len(left)), key=lambda i: (left[i], i if i in chosen else -1))
    return " ".join(f'<b style="color:{_GREEN}">[{v}]</b>' if c >= 0 else f"{v}" + (f"×{n}" if n > 1 else "")
                    for (v, c), n in ((k, len(list(g))) for k, g in runs))


def fgd_panel(explain: Mapping[str, Any], *, top: int = 6, compact: bool = False) -> Html:
    """The FGD side panel: one pod, the best-scoring nodes and the one chosen, in numbers.

    Parameters
    ----------
    explain : mapping
        :func:`fgd_explain`'s result.
    top : int
        Best rows shown; the chosen node and the worst-scoring node are
        always added.
    compact : bool
        Smaller type and padding (for the side panel of :func:`replay_view`).

    Returns
    -------
    Html
        Heading (pod, request, arrival), the formula, a table (node and
        model, free GPU per card with the card FGD would use bracketed, F
        before, F after, ΔF, score) and the outcome (ties, chosen node and card).

    Raises
    ------
    KeyError
        ``explain`` lacks a key :func:`fgd_explain` gives (``request``,
        ``rows``, ``node``, ...).

    Examples
    --------
    >>> x = {"pod": "p", "event": 3, "arrived_percent": 50.0, "request": PodRequest(1000, 0, 1, 500),
    ...      "feasible": 2, "top_score": 56, "ties": 1, "node": "n1", "cards": [0], "typical": 2,
    ...      "rows": [{"node": "n1", "model": "T4", "gpu_left": [500, 1000], "milli_cpu_left": 8000, "cards": [0],
    ...                "frag_before": 250.0, "frag_after": 0.0, "score": 56},
    ...               {"node": "n2", "model": "T4", "gpu_left": [1000, 1000], "milli_cpu_left": 8000, "cards": [0],
    ...                "frag_before": 0.0, "frag_after": 250.0, "score": 43}]}
    >>> s = fgd_panel(x)
    >>> "n1" in s and "−250" in s and "card 0" in s
    True
    """
    req: PodRequest = explain["request"]
    rows, node = list(explain["rows"]), explain["node"]
    keep = rows[:top]
    for extra in [r for r in rows if r["node"] == node] + rows[-1:]:
        keep += [extra] if extra not in keep else []
    nowrap = "<span style='white-space:nowrap'>{}</span>"
    body = [[nowrap.format(f"<b>{_e(node)}</b> ✔" if r["node"] == node else _e(r["node"])) +
             f"<br><span style='font-size:10px;color:#616161'>{_e(r['model'])}</span>",
             nowrap.format(_cards_text(r["gpu_left"], r["cards"])), f"{r['frag_before']:,.0f}",
             f"{r['frag_after']:,.0f}", f"{r['frag_after'] - r['frag_before']:+,.0f}".replace("-", "−"),
             f"<b>{r['score']}</b>"] for r in keep]
    where = (f"<b style='color:{_GREEN}'>{_e(node)}</b>, "
             + (", ".join(f"card {c}" for c in explain["cards"]) or "no card (CPU only)"))
    outcome = (f"{explain['ties']:,} share the top score {explain['top_score']}; the replay breaks the tie by its "
               f"seeded node order and binds the pod to {where}." if explain["ties"] > 1 else
               f"one node has the top score {explain['top_score']}: the pod is bound to {where}.")
    head = _div(f"<b>FGD scores pod {_e(explain['pod'])}</b> ({_e(_vcpu(req.milli_cpu))}, "
                f"{_e(_gpu_text(req.num_gpu, req.gpu_milli))}), arriving at {explain['arrived_percent']:.1f}% of GPU "
                f"capacity.<br>F = a node's expected fragmentation against the {explain['typical']} typical pod shapes "
                f"(thousandths of a GPU); score = int(100 · sigmoid((F<sub>before</sub> − F<sub>after</sub>) / 1000))."
                f" Free GPU per card before the pod; <b style='color:{_GREEN}'>[x]</b> = the card FGD gives it there.",
                ";line-height:1.45")
    return Html(head + _table(["node, model", "free GPU per card", "F before", "F after", "ΔF", "score"], body,
                              row_css=["background:#e8f5e9" if r["node"] == node else "" for r in keep],
                              numeric_from=2, compact=compact)
                + _div(f"{explain['feasible']:,} nodes passed Filter; {outcome}", ";line-height:1.45"))


def schedule_comparison(runs: Mapping[str, Sequence[Any]], *, pods: Sequence[Any] = (), nodes: Sequence[Any] = (),
                        rows: int = 12) -> Html:
    """Where each pod went under several scheduler configurations, and how many nodes stayed untouched.

    Parameters
    ----------
    runs : mapping of str to list of AttemptTrace or dict
        Label -> the attempts of ``Scheduler.run()`` (or their ``to_dict()``);
        the last attempt of each pod counts.
    pods : sequence of lightkube Pod, optional
        To show each pod's GPU request (from its annotations).
    nodes : sequence of lightkube Node, optional
        To count the nodes no pod landed on.
    rows : int
        Pods listed (the summary covers all).

    Returns
    -------
    Html
        A summary table (pods bound, nodes used, nodes left empty, pods whose
        node differs from the first run) and a per-pod table.

    Raises
    ------
    KeyError
        An attempt has no ``name``.

    See Also
    --------
    kubenotes.scheduler.whatif.compare_placements : the numbers, as values.

    Examples
    --------
    >>> a = [{"namespace": "ns", "name": "p", "nodeName": "n1"}]
    >>> b = [{"namespace": "ns", "name": "p", "nodeName": "n2"}]
    >>> s = schedule_comparison({"default": a, "mine": b})
    >>> "n1" in s and "n2" in s and ">1<" in s
    True
    """
    cmp = compare_placements(runs, nodes)
    placed, keys = cmp["placed"], cmp["pods"]
    gpu = {f"{p.metadata.namespace or 'default'}/{p.metadata.name}": _gpu_text(*pod_gpu_request(p)[:2]) for p in pods}
    summary = [[f"<b>{_e(lab)}</b>", str(s["bound"]), str(s["nodes_used"]),
                "–" if s["nodes_left_empty"] is None else str(s["nodes_left_empty"]), str(s["moved"])]
               for lab, s in cmp["summary"].items()]
    vals = [[placed[lab].get(k) for lab in placed] for k in keys[:rows]]
    more = (f"<div style='font-size:11px;color:#616161'>… and {len(keys) - rows} more pods</div>"
            if len(keys) > rows else "")
    return Html(_table(["configuration", "pods bound", "nodes used", "nodes left empty", "pods placed differently"],
                       summary)
                + _table(["pod", "GPU request"] + list(placed),
                         [[_e(k), _e(gpu.get(k, ""))] + [_e(v) if v else "<i>Pending</i>" for v in vs]
                          for k, vs in zip(keys, vals)],
                         row_css=["background:#fff8e1" if len(set(vs)) > 1 else "" for vs in vals], numeric_from=99)
                + more)


# ---------------------------------------------------------------------------
# figures


#: The three Axes of the curves: metric, x range, y label, title.
_AXES = (("allocation", (0, 130), "GPU allocation ratio (% of capacity)", "GPU allocation ratio"),
         ("allocation", (80, 130), "", "zoom: 80-130% arrived"),
         ("fragmentation", (0, 130), "fragmentation rate (% of idle GPU)", "fragmentation rate"))


def _zoom_ylim(results: Mapping[str, ReplayResult], paper: Mapping[str, tuple[float, float]] | None = None,
               ) -> tuple[float, float]:
    """The zoomed Axes' y range: the curves' (and paper points') values from 80% arrived on, a point of margin."""
    vals = [curves(r)["allocation"][80:] for r in results.values()] + [np.array(paper[n]) for n in results
                                                                       if paper and n in paper]
    vals = np.concatenate([v[np.isfinite(v)] for v in vals]) if vals else np.array([80.0, 100.0])
    if not len(vals):
        return 80.0, 100.0
    return max(float(np.floor(vals.min() - 1)), 60.0), min(float(np.ceil(vals.max() + 1)), 101.0)


class _CurvesView:
    """:func:`curves_figure` drawn once; :meth:`png` moves its arrived-workload marker by blitting (``BlitPNG``).

    :meth:`show_results` puts other results (another trace variant, other policies) on the same three Axes.
    """

    def __init__(self, results: Mapping[str, ReplayResult], *, paper: Mapping[str, tuple[float, float]] | None = None,
                 title: str | None = None, blit: bool = True):
        from kubenotes.viz.widgets import BlitPNG

        self.shown = None
        fig = self.figure = detached_figure(9.8, 4.2)  # <= 1,000 px inline at 100 dpi (graphs.MAX_INLINE_WIDTH_PX)
        axes = self._axes = fig.subplots(1, 3)
        full = axes[0]
        fig.subplots_adjust(left=0.065, right=0.99, bottom=0.31, wspace=0.3)
        full.plot([0, 100], [0, 100], ls=":", color="#9e9e9e", lw=1, zorder=2.5)  # above the curves
        full.text(3, 95, "dotted: every requested\nGPU allocated", fontsize=7.5, color="#757575", va="top")
        for ax, (_metric, xlim, ylabel, axes_title) in zip(axes, _AXES):
            ax.set(xlim=xlim, ylim=(0, 102), ylabel=ylabel, title=axes_title)
            ax.set_xlabel("arrived workload (% of GPU capacity)", fontsize=9)
            ax.yaxis.label.set_fontsize(9)
            ax.title.set_fontsize(10.5)
            ax.tick_params(labelsize=8.5)
            ax.grid(alpha=0.3)
            ax.axvline(100, color="#bdbdbd", lw=0.8, zorder=0)
        # the marker: a dashed line on each Axes, each curve's value as a dot there (see _draw), a label on the first
        self._lines = [ax.axvline(0, color="#212121", lw=1.2, ls="--") for ax in axes]
        self._label = full.text(0, 4, "", fontsize=8, color="#212121")
        self._drawn: list[Any] = []  # what _draw added: curves, paper points, dots, legend
        self._draw(results, paper, title)
        self._blit = BlitPNG(fig, self.marker) if blit else None

    def _draw(self, results: Mapping[str, ReplayResult], paper: Mapping[str, tuple[float, float]] | None,
              title: str | None) -> None:
        """Draw the curves of ``results`` (removing those drawn before), their dots, legend and title."""
        fig, axes = self.figure, self._axes
        full = axes[0]
        for artist in self._drawn:
            artist.remove()
        self.policies, self.paper, self.titled = tuple(results), paper, bool(title)
        drawn: list[Any] = []
        self._curve_lines = {}
        for name, r in results.items():
            color, lw = POLICY_COLORS.get(name, "#000000"), 2.2 if name == "FGD" else 1.4
            self._curve_lines[name] = [ax.plot(ARRIVED_PERCENT, curves(r)[spec[0]], color=color, lw=lw,
                                               label=name if ax is full else None)[0] for ax, spec in zip(axes, _AXES)]
            drawn += self._curve_lines[name]
            for ax in axes[:2] if paper and name in paper else ():
                drawn += ax.plot([100, 130], paper[name], ls="none", marker="D", mfc="none", mec=color, ms=7, mew=1.3)
        axes[1].set_ylim(_zoom_ylim(results, paper))
        self._dots = [(ax.plot([], [], "o", color=POLICY_COLORS.get(name, "#000"), ms=5, mec="white", mew=0.6)[0],
                       name, spec[0]) for ax, spec in zip(axes, _AXES) for name in results]
        self._curves = [curves(results[name])[metric] for _d, name, metric in self._dots]
        handles, labels = [self._curve_lines[n][0] for n in results], list(results)
        if paper:
            handles.append(full.plot([], [], ls="none", marker="D", mfc="none", mec="#424242")[0])
            labels.append("paper (mean of 10 seeds)")
            drawn.append(handles[-1])
        _legend(fig, handles, labels, 5)
        drawn += [d for d, _n, _m in self._dots] + [fig.legends[-1]]
        fig.subplots_adjust(top=0.86 if title else 0.91)
        if title:
            fig.suptitle(title, fontsize=11)
        elif fig._suptitle is not None:
            fig._suptitle.remove()
            fig._suptitle = None
        self._drawn = drawn
        self.marker = self._lines + [d for d, _n, _m in self._dots] + [self._label]

    def move(self, arrived_percent: float) -> None:
        """Put the marker at ``arrived_percent``."""
        xi = int(round(arrived_percent))
        for line in self._lines:
            line.set_xdata([arrived_percent, arrived_percent])
        for (dot, _n, _m), c in zip(self._dots, self._curves):
            dot.set_visible(0 <= xi < len(c) and bool(np.isfinite(c[xi])))
            if dot.get_visible():
                dot.set_data([xi], [c[xi]])
        self._label.set_position((arrived_percent + 1.5, 4))
        self._label.set_text(f"{arrived_percent:g}% arrived")

    def show_results(self, results: Mapping[str, ReplayResult], title: str | None = None, *,
                     paper: Mapping[str, tuple[float, float]] | None = None) -> None:
        """Put other results on this figure's Axes, as a new view of them would show them.

        The same policies, without the paper's points and with a title as before (another trace variant): only
        the curves' values change. Otherwise the curves, dots, legend and title are drawn again (no new
        figure); the figure is then drawn once more without the marker.
        """
        if tuple(results) == self.policies and not paper and not self.paper and bool(title) == self.titled:
            for name, r in results.items():
                for line, spec in zip(self._curve_lines[name], _AXES):
                    line.set_ydata(curves(r)[spec[0]])
            self._axes[1].set_ylim(_zoom_ylim(results))
            self._curves = [curves(results[name])[metric] for _d, name, metric in self._dots]
            if title:
                self.figure._suptitle.set_text(title)
            self._blit.redraw()
            return
        from kubenotes.viz.widgets import BlitPNG

        self._draw(results, paper, title)
        self._blit = BlitPNG(self.figure, self.marker)

    def png(self, arrived_percent: float) -> bytes:
        """The figure with the marker at ``arrived_percent``, as PNG bytes."""
        self.move(arrived_percent)
        return self._blit.png()


def curves_figure(results: Mapping[str, ReplayResult], arrived_percent: float | None = None, *,
                  paper: Mapping[str, tuple[float, float]] | None = None, title: str | None = None) -> Figure:
    """GPU allocation ratio and fragmentation rate against arrived workload, one curve per policy.

    Parameters
    ----------
    results : mapping of str to ReplayResult
        Policy -> result (one seed).
    arrived_percent : float, optional
        Draw a marker there: a vertical line and each curve's value.
    paper : mapping of str to (float, float), optional
        Published allocation at 100% and 130% arrived, drawn as hollow
        diamonds (pass :data:`~kubenotes.replay.engine.PAPER_ALLOCATION_PERCENT`
        for the default trace).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Three Axes: allocation ratio (0-130% arrived), the same zoomed on
        80-130%, and the fragmentation rate; one legend below.

    Raises
    ------
    AttributeError
        A value of ``results`` is not a ReplayResult.

    Notes
    -----
    Values are the simulator's per-bucket means (:meth:`ReplayResult.at`),
    one seed; the paper plots the mean of ten seeds.

    Examples
    --------
    >>> r = ReplayResult("FGD", 42, "", 1000, np.array([0, 1]), np.array([0, 0]), [[0], [0]],
    ...                  np.array([500, 1000]), np.array([500, 1000]), np.array([0.0, 0.0]))
    >>> fig = curves_figure({"FGD": r}, 100)
    >>> [a.get_xlabel() for a in fig.axes]
    ['arrived workload (% of GPU capacity)', 'arrived workload (% of GPU capacity)', 'arrived workload (% of GPU capacity)']
    """
    view = _CurvesView(results, paper=paper, title=title, blit=False)
    for artist in view.marker if arrived_percent is None else ():
        artist.remove()
    if arrived_percent is not None:
        view.move(arrived_percent)
    return view.figure


def variants_figure(by_variant: Mapping[str, Mapping[str, ReplayResult]], arrived_percent: int = 100) -> Figure:
    """GPU allocation ratio at one arrived workload, per trace variant and policy (a dot plot).

    Parameters
    ----------
    by_variant : mapping of str to mapping of str to ReplayResult
        Variant -> policy -> result, as :func:`replay_variants` returns.
    arrived_percent : int
        The arrived workload (% of GPU capacity) the ratios are read at
        (:meth:`ReplayResult.at`).

    Returns
    -------
    matplotlib.figure.Figure
        One Axes: a row per variant (top to bottom in the mapping's order),
        a dot per policy in its colour, FGD's larger; the x axis spans only
        the values drawn, so the gaps between policies are readable.

    Raises
    ------
    StopIteration
        The first variant maps to no policy (the title reads its seed).
    AttributeError
        A result is not a ReplayResult.

    Notes
    -----
    One seed; the paper's section 6.3 compares the same variants.

    Examples
    --------
    >>> r = ReplayResult("FGD", 42, "", 1000, np.array([0, 1]), np.array([0, 0]), [[0], [0]],
    ...                  np.array([500, 1000]), np.array([500, 1000]), np.array([0.0, 0.0]))
    >>> fig = variants_figure({"default": {"FGD": r}, "cpu050": {"FGD": r}})
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['default: the production pod list', 'cpu050: fewer CPU-only pods']
    """
    names, height = list(by_variant), 0.45 * len(by_variant) + 1.3
    fig = detached_figure(9.0, height)
    ax = fig.subplots()
    fig.subplots_adjust(left=0.36, right=0.97, top=1 - 0.35 / height, bottom=0.8 / height)
    values = []
    for row, variant in enumerate(names):
        for policy, r in by_variant[variant].items():
            values.append(r.at("allocation", arrived_percent))
            ax.plot([values[-1]], [row], ls="none", marker="o", ms=9 if policy == "FGD" else 6, alpha=0.9,
                    color=POLICY_COLORS.get(policy, "#000000"), label=policy if row == 0 else None,
                    zorder=3 if policy == "FGD" else 2)
    finite = [v for v in values if np.isfinite(v)] or [0.0, 100.0]
    ax.set_xlim(np.floor(min(finite)) - 0.5, min(np.ceil(max(finite)) + 0.5, 100.5))
    ax.set_yticks(range(len(names)), [VARIANT_LABELS.get(v, v) for v in names], fontsize=8.5)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlabel(f"GPU allocation ratio at {arrived_percent}% arrived workload (% of capacity)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Which policy allocates the most GPUs, per pod-list variant (seed "
                 f"{next(iter(next(iter(by_variant.values())).values())).seed})" if by_variant else "", fontsize=10)
    _legend(fig, *ax.get_legend_handles_labels(), 6)
    return fig


def _card_colors(used: np.ndarray) -> np.ndarray:
    """RGBA per card from its used share: idle grey, partly used yellow to red, full dark blue."""
    colors = np.empty(used.shape + (4,))
    colors[:] = to_rgba(_IDLE)
    part = (used > 0) & (used < 1)
    colors[part] = _PARTIAL(0.25 + 0.6 * used[part])
    colors[used >= 1] = to_rgba(_FULL)
    return colors


class _Occupancy:
    """The occupancy picture of one trace, kept to show any replay and moment on it (blitted for the panel)."""

    def __init__(self, trace: TraceArrays, per_row: int, width_inches: float):
        # node tiles of 4 x 2 cards, grouped by card model (largest first): each card's (row, col), each tile's corner
        count, model, self.trace, self.narrow = trace.node_gpu_count, trace.node_model, trace, width_inches < 9
        self.at = np.full((trace.num_nodes, 8, 2), -1, dtype=np.int64)
        self.origin, sections, y = np.zeros((trace.num_nodes, 2), dtype=np.int64), [], 0
        for m in sorted({int(m) for m, g in zip(model.tolist(), count.tolist()) if g > 0},
                        key=lambda m: -int(count[model == m].sum())):
            idx = sorted((i for i in range(trace.num_nodes) if int(model[i]) == m and count[i] > 0),
                         key=lambda i: (-int(count[i]), trace.node_names[i]))
            sections.append((trace.models[m], y, len(idx), sorted({int(count[i]) for i in idx}, reverse=True)))
            for k, i in enumerate(idx):
                self.origin[i] = (y + (k // per_row) * 3, (k % per_row) * 5)
                for c in range(min(int(count[i]), 8)):
                    self.at[i, c] = self.origin[i] + (c // 4, c % 4)
            y += max(((len(idx) + per_row - 1) // per_row) * 3, 6) + 1
        h, w = max(y - 1, 1), per_row * 5 - 1
        label_in, top_in, bottom_in = 1.3, (0.75 if self.narrow else 0.55), (0.65 if self.narrow else 0.45)
        img_w = width_inches - label_in - 0.1
        height = top_in + bottom_in + img_w * h / w
        fig = self.figure = detached_figure(width_inches, height)
        ax = self.ax = fig.add_axes((label_in / width_inches, bottom_in / height, img_w / width_inches,
                                     1 - (top_in + bottom_in) / height))
        self.image = ax.imshow(np.ones((h, w, 4)), interpolation="nearest", aspect="equal", extent=(0, w, h, 0))
        ax.set_axis_off()
        for name, y0, n, gpus in sections:
            ax.text(-1.5, y0 - 0.3, f"{name}: {n} nodes\n{'/'.join(map(str, gpus))} GPU{'' if gpus == [1] else 's'} "
                    "each", ha="right", va="top", fontsize=7.5, color="#37474f", linespacing=1.1)
        self.box = ax.add_patch(Rectangle((0, 0), 5.2, 3.2, fill=False, ec=_GREEN, lw=2.2, visible=False))
        self.legend, self._background = None, None

    def show(self, result: ReplayResult, arrived_percent: float, highlight: str | None) -> Figure:
        """Draw the cards after ``arrived_percent`` of ``result`` (a replay of this trace), outlining ``highlight``."""
        names, e = self.trace.node_names, events_at(result, arrived_percent)
        left = cluster_at(result, e).gpu_left
        at = self.at[:, : left.shape[1]]
        has, used = at[:, :, 0] >= 0, (MILLI_PER_GPU - left) / MILLI_PER_GPU
        img = np.ones(self.image.get_array().shape)
        img[at[has][:, 0], at[has][:, 1]] = _card_colors(used)[has]
        self.image.set_data(img)
        counts = [int((m & has).sum()) for m in (used >= 1, (used > 0) & (used < 1), used <= 0)]
        self.box.set_visible(highlight in names)
        if highlight in names:
            self.box.set_xy(self.origin[names.index(highlight)][::-1] - 0.6)
        alloc, rate = gpu_rates_at(result, e)
        self.ax.set_title(f"{result.policy}, {arrived_percent:g}% arrived:{chr(10) if self.narrow else ' '}{alloc:.1f}% "
                          f"of GPUs allocated, fragmentation rate {rate:.1f}%\n{counts[0]:,} full, {counts[1]:,} partly "
                          f"used, {counts[2]:,} idle cards", fontsize=9.5 if self.narrow else 10)
        legend = [Patch(fc=_IDLE, label="idle card"), Patch(fc=_PARTIAL(0.35), label="partly used (shared)"),
                  Patch(fc=_PARTIAL(0.8), label="partly used, nearly full"), Patch(fc=_FULL, label="full card")]
        legend += [Patch(fc="none", ec=_GREEN, lw=2, label=f"{highlight}")] if highlight is not None else []
        if self.legend is not None:
            self.legend.remove()
        self.legend = self.figure.legend(handles=legend, loc="lower center", ncol=3 if self.narrow else len(legend),
                                         fontsize=8, frameon=False)
        return self.figure

    def png(self, result: ReplayResult, arrived_percent: float, highlight: str | None) -> bytes:
        """:meth:`show` saved as ``_png`` saves a figure (80 dpi, no tight box): only what changes is drawn again."""
        fig, changing = self.figure, [self.image, self.box, self.ax.title]
        if self._background is None:  # everything but the changing artists, drawn once
            fig.set_dpi(80)
            for a in changing:
                a.set_animated(True)
            FigureCanvasAgg(fig).draw()
            self._background = fig.canvas.copy_from_bbox(fig.bbox)
        self.show(result, arrived_percent, highlight)
        fig.canvas.restore_region(self._background)
        for a in changing + [self.legend]:
            fig.draw_artist(a)
        buf = io.BytesIO()
        imsave(buf, np.asarray(fig.canvas.buffer_rgba()), format="png", dpi=80)
        return buf.getvalue()


def occupancy_figure(result: ReplayResult, arrived_percent: float, *, highlight: str | None = None,
                     per_row: int = 40, width_inches: float = 9.8) -> Figure:
    """Every GPU card of the cluster at one arrived workload: idle, partly used (shared) or full.

    Nodes are grouped by card model (largest model first) and drawn as tiles
    of up to 4 x 2 cards, in card order (cards 0-3 on top).

    Parameters
    ----------
    result : ReplayResult
    arrived_percent : float
        The moment to draw (see :func:`events_at`).
    highlight : str, optional
        Outline this node (e.g. where the next pod goes).
    per_row : int
        Node tiles per row.
    width_inches : float
        Figure width; the height follows from the layout.

    Returns
    -------
    matplotlib.figure.Figure
        One image Axes (no ticks), a label per card model on its left, the
        legend below; the title gives policy, arrived workload, allocation
        ratio, fragmentation rate and card counts.

    Raises
    ------
    ValueError
        ``result`` carries no cluster (it was not made by
        :func:`~kubenotes.replay.engine.replay`).

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 8, "G2")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> r = replay(t, "BestFit", tuning_ratio=0, order=[0])
    >>> fig = occupancy_figure(r, 10)
    >>> "1 partly used" in fig.axes[0].get_title()
    True
    """
    return _Occupancy(trace_of(result), per_row, width_inches).show(result, arrived_percent, highlight)


def placement_figure(graph: nx.DiGraph, *, title: str | None = None, highlight: str | None = None) -> Figure:
    """Draw :func:`~kubenotes.replay.cache.placement_graph` left to right (nodes, cards, GPU pods) with a fixed layout.

    Parameters
    ----------
    graph : networkx.DiGraph
        From :func:`~kubenotes.replay.cache.placement_graph`; CPU-only pods
        (they take no card) are left out.
    title : str, optional
    highlight : str, optional
        A graph node to draw in green (e.g. ``pod/<event>``).

    Returns
    -------
    matplotlib.figure.Figure
        Cards are coloured like :func:`occupancy_figure` and labelled with
        their free thousandths; a pod shows its name and its GPU share.

    Raises
    ------
    KeyError
        A graph node lacks the attributes :func:`~kubenotes.replay.cache.placement_graph` sets
        (``kind``, and ``name``/``index``/``free``/``num_gpu``... per kind).

    Examples
    --------
    >>> g = nx.DiGraph()
    >>> g.add_node("node/n", kind="node", name="n", model="T4")
    >>> g.add_node("card/n/0", kind="card", node="n", index=0, free=500)
    >>> g.add_node("pod/0", kind="pod", name="p", num_gpu=1, gpu_milli=500, milli_cpu=1000)
    >>> g.add_edges_from([("node/n", "card/n/0"), ("card/n/0", "pod/0")])
    >>> len(placement_figure(g).axes)
    1
    """
    g = graph.copy()
    g.remove_nodes_from([n for n, d in graph.nodes(data=True) if d["kind"] == "pod" and d["num_gpu"] == 0])
    pos: dict[str, tuple[float, float]] = {}
    y = 0.0
    for nid in [n for n, d in g.nodes(data=True) if d["kind"] == "node"]:
        cards = sorted((c for c in g.successors(nid) if g.nodes[c]["kind"] == "card"), key=lambda c: g.nodes[c]["index"])
        for c in cards:
            pos[c], y = (1.0, -y), y + 1.0
        pos[nid] = (0.0, float(np.mean([pos[c][1] for c in cards])) if cards else -y)
        y += 0.8
    placed: list[float] = []
    pods = [n for n, d in g.nodes(data=True) if d["kind"] == "pod"]
    want = {p: float(np.mean([pos[c][1] for c in g.predecessors(p) if c in pos])) for p in pods}
    for p in sorted(pods, key=lambda p: -want[p]):
        placed.append(min(want[p], placed[-1] - 0.62) if placed else want[p])
        pos[p] = (1.8, placed[-1])
    lo = min([p[1] for p in pos.values()] + [0.0])
    fig = detached_figure(10.0, max(2.5, 0.34 * (-lo + 1.5)))
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.9 if title else 0.97))
    ax.axis("off")
    nx.draw_networkx_edges(g, pos, ax=ax, edge_color="#9e9e9e", width=1.0, arrows=True, arrowstyle="-|>",
                           arrowsize=8, node_size=0, min_source_margin=14, min_target_margin=14)
    for n, d in g.nodes(data=True):
        if d["kind"] == "node":
            text, kw = f"{d['name']}\n{d['model']}", dict(ha="center", fontsize=8.5, fontweight="bold")
            box = dict(boxstyle="round,pad=0.4", fc="white", ec="#455a64", lw=1.2)
        elif d["kind"] == "card":
            used = (MILLI_PER_GPU - d["free"]) / MILLI_PER_GPU
            text = f"GPU {d['index']} · {d['free']} free"
            kw = dict(ha="center", fontsize=7.5, color="white" if used >= 0.75 else "#212121")
            box = dict(boxstyle="square,pad=0.3", fc=tuple(_card_colors(np.array([used]))[0]), ec="#616161", lw=0.8)
        else:
            hl = n == highlight
            text = f"{d['name']} · " + (f"{d['gpu_milli'] / MILLI_PER_GPU:.2f} GPU" if d["gpu_milli"] < MILLI_PER_GPU
                                        else f"{d['num_gpu']} whole GPU" + ("s" if d["num_gpu"] > 1 else ""))
            kw = dict(ha="left", fontsize=7.5, fontweight="bold" if hl else "normal")
            box = dict(boxstyle="round,pad=0.25", fc="#c8e6c9" if hl else "#e3f2fd", ec=_GREEN if hl else "#90a4ae",
                       lw=1.4 if hl else 0.6)
        ax.text(*pos[n], text, va="center", bbox=box, **kw)
    ax.set_xlim(-0.45, 2.9)
    ax.set_ylim(lo - 0.7, 0.7)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


# ---------------------------------------------------------------------------
# the live panel


def _curves_title(variant: str, seed: int) -> str:
    return f"{VARIANT_LABELS.get(variant, variant)} (seed {seed})"


def _view_row(variant: str, arrived_percent: float, focus: str, seed: int,
              trace_dir: str | os.PathLike[str] | None, kept: dict[str, Any] | None = None) -> Html:
    """The occupancy picture and FGD table of :func:`replay_view` (they do not depend on ``policies``).

    ``kept`` holds the occupancy picture between calls (default: per trace); every variant of a trace directory has
    the same nodes, so a panel's one picture serves them all.
    """
    fgd = cached_replay("FGD", variant, seed, trace_dir)
    try:
        explain = fgd_explain(fgd, arrived_percent, kind="share")
        panel, chosen = fgd_panel(explain, top=5, compact=True), explain["node"]
    except ValueError as e:
        panel, chosen = Html(f"<p>{_e(e)}</p>"), None
    focused = cached_replay(focus, variant, seed, trace_dir)
    trace = trace_of(focused)
    kept = per_trace(trace) if kept is None else kept
    if "occupancy" not in kept or kept["occupancy"].trace.node_names != trace.node_names:
        kept["occupancy"] = _Occupancy(trace, 22, 5.5)
    png = kept["occupancy"].png(focused, arrived_percent, chosen if focus == "FGD" else None)
    return Html("<div style='display:flex;gap:12px;align-items:flex-start'><div style='flex:0 0 440px'><img "
                "style='width:440px' alt='GPU occupancy' src='data:image/png;base64,"
                f"{base64.b64encode(png).decode('ascii')}'></div>"
                f"<div style='flex:1 1 auto;min-width:0;overflow-x:auto'>{panel}</div></div>")


def replay_view(policies: Sequence[str] = PAPER_POLICY_NAMES, variant: str = "default",
                arrived_percent: float = 100, focus: str = "FGD", seed: int = DEFAULT_SEED,
                trace_dir: str | os.PathLike[str] | None = None) -> list[Any]:
    """What the live panel shows for one state of its controls.

    Parameters
    ----------
    policies : sequence of str
        Curves to draw (``focus`` is always replayed too).
    variant : str
        A key of :data:`TRACE_VARIANTS`.
    arrived_percent : float
        Marker on the curves and the moment of the occupancy picture.
    focus : str
        The policy whose cluster the occupancy picture shows.
    seed : int
    trace_dir : str or path-like, optional

    Returns
    -------
    list
        ``[curves Figure, Html]``: the curves, then a row with the occupancy
        picture (left) and the FGD side panel (right; FGD's score for the
        next GPU-sharing pod at that arrived workload, on the FGD replay).

    Raises
    ------
    UnknownPolicy, ValueError, TraceNotFound
        As :func:`cached_replay`.

    See Also
    --------
    replay_panel : the widget that calls it.

    Examples
    --------
    >>> from kubenotes.replay.sample import sample_trace_dir
    >>> d = sample_trace_dir()  # the synthetic sample of data/replay/
    >>> curves, row = replay_view(["BestFit"], arrived_percent=50, trace_dir=d)
    >>> len(curves.axes), "FGD scores pod" in row, "data:image/png;base64," in row
    (3, True, True)
    """
    return [curves_figure(replay_policies(list(policies), variant, seed, trace_dir), arrived_percent,
                          paper=PAPER_ALLOCATION_PERCENT if variant == "default" else None,
                          title=_curves_title(variant, seed)),
            _view_row(variant, arrived_percent, focus, seed, trace_dir)]


def replay_panel(policies: Sequence[str] = PAPER_POLICY_NAMES, variant: str = "default", arrived_percent: int = 100,
                 focus: str = "FGD", seed: int = DEFAULT_SEED, trace_dir: str | os.PathLike[str] | None = None):
    """The chapter's live panel: arrived-workload slider, policies, trace variant and occupancy policy -> :func:`replay_view`.

    Parameters
    ----------
    policies : sequence of str
        Initially selected curves.
    variant : str
    arrived_percent : int
        Initial slider value (0-130).
    focus : str
        Initial policy of the occupancy picture.
    seed : int
    trace_dir : str or path-like, optional

    Returns
    -------
    ipywidgets.VBox
        From :func:`kubenotes.viz.widgets.live_panel`; the slider comes first.

    Raises
    ------
    UnknownPolicy, ValueError, TraceNotFound
        As :func:`replay_view` (for the initial state).

    See Also
    --------
    replay_view, update_seconds

    Notes
    -----
    Replays are cached per ``(policy, variant, seed)``: the first selection of
    a policy on a variant replays it (about 0.2-1 s); moving the slider only
    rebuilds the cluster at that point (continuing from a kept one,
    :func:`cluster_at`) and moves the curves' marker (one curves figure:
    another variant or selection of policies is drawn on its Axes, the marker
    blitted on them; the occupancy picture redraws only its cards). The curves
    are kept per (policies, variant, slider) and the occupancy row per
    (variant, slider, focus), so changing the other control reuses them; a
    state seen before is shown at once
    (:func:`~kubenotes.viz.widgets.memoise_update`).

    Examples
    --------
    On the synthetic sample (the chapter reads the Alibaba trace when found):

    >>> import contextlib, io
    >>> from kubenotes.replay.sample import sample_trace_dir
    >>> d = sample_trace_dir()
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside Jupyter the output widget prints
    ...     panel = replay_panel(["BestFit"], arrived_percent=50, trace_dir=d)
    >>> slider = panel.children[0].children[0]
    >>> slider.description, slider.value, len(panel.children)
    ('arrived workload %', 50, 3)
    """
    import ipywidgets as widgets

    from kubenotes.viz.widgets import int_slider, live_panel, memoise_update, png_display

    wide = {"style": {"description_width": "150px"}, "layout": widgets.Layout(width="470px")}
    controls = {
        "arrived_percent": int_slider("arrived workload %", int(arrived_percent), 0, 130, **wide),
        "focus": widgets.Dropdown(options=list(POLICY_NAMES), value=focus, description="occupancy of", **wide),
        "variant": widgets.Dropdown(options=[(VARIANT_LABELS[v], v) for v in TRACE_VARIANTS], value=variant,
                                    description="trace variant", **wide),
        "policies": widgets.SelectMultiple(options=list(POLICY_NAMES), value=tuple(policies), rows=9,
                                           description="policies (ctrl-click)", **wide),
    }

    # One curves figure: another selection of policies or another variant is drawn on its Axes.
    views: list[_CurvesView] = []

    @functools.lru_cache(maxsize=16)
    def curves_png(policies: tuple[str, ...], variant: str, arrived_percent: int) -> Any:
        res, title = replay_policies(policies, variant, seed, trace_dir), _curves_title(variant, seed)
        paper = PAPER_ALLOCATION_PERCENT if variant == "default" else None
        if not views:
            views.append(_CurvesView(res, paper=paper, title=title))
        elif views[0].shown != (policies, variant):
            views[0].show_results(res, title, paper=paper)
        views[0].shown = (policies, variant)
        return png_display(views[0].png(arrived_percent))
    kept: dict[str, Any] = {}  # the occupancy picture, for every variant
    row = functools.lru_cache(maxsize=16)(lambda variant, pct, focus: _view_row(variant, pct, focus, seed, trace_dir,
                                                                                kept))

    def update(arrived_percent, focus, variant, policies):
        return [curves_png(tuple(policies) or (focus,), variant, arrived_percent), row(variant, arrived_percent, focus)]

    return live_panel(memoise_update(update), controls)


def update_seconds(**state: Any) -> float:
    """Wall-clock seconds :func:`replay_view` takes for one state of the panel (what a widget change costs).

    Parameters
    ----------
    **state
        Keyword arguments of :func:`replay_view`.

    Returns
    -------
    float
        Seconds, rounded to milliseconds; includes any replay not cached yet
        and drawing both figures.

    Raises
    ------
    UnknownPolicy, ValueError, TraceNotFound
        As :func:`replay_view`.

    Notes
    -----
    Wall-clock time: it differs between runs and machines.

    Examples
    --------
    >>> from kubenotes.replay.sample import sample_trace_dir
    >>> d = sample_trace_dir()  # the synthetic sample of data/replay/
    >>> seconds = update_seconds(policies=["BestFit"], arrived_percent=50, trace_dir=d)
    >>> isinstance(seconds, float) and seconds >= 0
    True
    """
    t0 = time.perf_counter()
    _png(replay_view(**state)[0])
    return round(time.perf_counter() - t0, 3)
