"""FGD's decision for one pod of a replay, in numbers (chapter 04.04's "why this node").

:func:`fgd_explain` rebuilds the cluster just before one placement of an FGD
replay (:func:`kubenotes.replay.cache.cluster_at`) and asks the FGD plugin
itself for every feasible node's score and cards, with the fragmentation
before and after (:class:`~kubenotes.replay.policies.Fragmentation`).
:func:`fragmentation_terms` takes one node's fragmentation apart, one term
per typical pod shape.

References
----------
hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/fgd_score.go
hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kubenotes.replay.cache import cluster_at, events_at, fragmentation_of, requests_of, trace_of, typical_of
from kubenotes.replay.engine import ReplayResult, new_policy
from kubenotes.replay.policies import NodeView, PodRequest, TypicalPods, frag_amount

__all__ = ["fgd_explain", "FRAG_REASONS", "fragmentation_terms"]


def _is_kind(req: PodRequest, kind: str) -> bool:
    if kind == "share":
        return req.is_gpu_share
    if kind == "whole":
        return req.num_gpu > 0 and not req.is_gpu_share
    if kind == "cpu":
        return req.num_gpu == 0
    return True


def fgd_explain(result: ReplayResult, arrived_percent: float = 100.0, *, kind: str = "share",
                event: int | None = None) -> dict[str, Any]:
    """FGD's decision for one pod of an FGD replay, in numbers: every feasible node's fragmentation before and after, and its score.

    Parameters
    ----------
    result : ReplayResult
        A replay with policy ``FGD``.
    arrived_percent : float
        Explain the first pod of ``kind`` placed once the arrived workload
        passed this (or the last one before, near the end of the replay).
    kind : {"share", "whole", "cpu", "any"}
        GPU-sharing, whole-GPU, CPU-only or any pod.
    event : int, optional
        Explain this event instead (it must be a placed pod).

    Returns
    -------
    dict
        ``pod`` (name), ``event``, ``arrived_percent``, ``request``
        (:class:`PodRequest`), ``feasible`` (count), ``rows`` (one dict per
        feasible node, best score first: ``node``, ``model``, ``gpu_left``
        (list, before), ``milli_cpu_left``, ``cards`` (the cards FGD would
        give the pod there), ``frag_before``, ``frag_after`` (thousandths of a
        GPU), ``score``), ``top_score``, ``ties`` (nodes with the top score),
        ``node`` and ``cards`` (what the replay did), ``typical`` (number of
        typical pod shapes).

    Raises
    ------
    ValueError
        When the result is not an FGD replay, or no placed pod of that kind exists.

    Notes
    -----
    Scores and cards come from the FGD plugin itself (its vectorized
    ``score_nodes`` and ``select_gpus`` on the cluster rebuilt by
    :func:`cluster_at`); ``frag_before``/``frag_after`` from
    :class:`~kubenotes.replay.policies.Fragmentation`, and the score is
    ``int(100 * sigmoid((frag_before - frag_after) / 1000))``. Among nodes
    with the top score the replay takes the first in its seeded node order.

    Examples
    --------
    Two thirds of the workload ask for half a GPU, one third for a whole
    GPU. After ``a`` (half) and ``b`` (whole) landed on ``n1``, its half-free
    card is useless to whole-GPU pods (F = 500 / 3); pod ``c`` (half) fills it
    (F drops to 0, score 54), while on the empty ``n2`` it would break a card
    (F rises, score 45).

    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow, TraceArrays
    >>> from kubenotes.replay.engine import replay
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4"), NodeRow("n2", 32000, 1 << 20, 2, "T4")],
    ...                           [PodRow("a", 1000, 1024, 1, 500), PodRow("b", 1000, 1024, 1, 1000),
    ...                            PodRow("c", 1000, 1024, 1, 500)])
    >>> x = fgd_explain(replay(t, "FGD", seed=1, tuning_ratio=0, order=[0, 1, 2]), event=2)
    >>> [(r["node"], r["gpu_left"], r["cards"], round(r["frag_before"]), round(r["frag_after"]), r["score"])
    ...  for r in x["rows"]]
    [('n1', [500, 0], [0], 167, 0, 54), ('n2', [1000, 1000], [0], 0, 167, 45)]
    >>> x["node"], x["cards"]
    ('n1', [0])
    """
    if result.policy != "FGD":
        raise ValueError(f"fgd_explain needs an FGD replay, not {result.policy}")
    trace = trace_of(result)
    reqs = requests_of(trace)
    pods, nodes_of = result.pod_index, result.node_index
    if event is None:
        start = events_at(result, arrived_percent)
        ok = [e for e in range(len(pods)) if nodes_of[e] >= 0 and _is_kind(reqs[int(pods[e])], kind)]
        if not ok:
            raise ValueError(f"no placed pod of kind {kind!r} in this replay")
        after = [e for e in ok if e >= start]
        event = after[0] if after else ok[-1]
    elif nodes_of[event] < 0:
        raise ValueError(f"event {event} is a pod that fitted nowhere")
    req = reqs[int(pods[event])]
    cluster = cluster_at(result, event)
    plugin = new_policy("FGD", typical=typical_of(trace))
    feasible = cluster.feasible(req)
    scores = plugin.normalize_scores(plugin.score_nodes(req, cluster, feasible))
    cards = [plugin.select_gpus(req, cluster, int(n)) for n in feasible]
    frag = fragmentation_of(trace, cluster.max_cards)
    before_l = cluster.gpu_left[feasible].copy()
    after_l = before_l.copy()
    for j, cs in enumerate(cards):
        for c in cs:
            after_l[j, c] -= req.gpu_milli
    cpu = cluster.milli_cpu_left[feasible]
    model = cluster.node_model[feasible]
    fb = frag.amount(cpu, before_l, model)
    fa = frag.amount(cpu - req.milli_cpu, after_l, model)
    names = trace.node_names
    rows = []
    for j, n in enumerate(feasible.tolist()):
        g = int(cluster.gpu_count[n])
        rows.append({"node": names[n], "model": trace.models[int(model[j])] if g else "",
                     "gpu_left": [int(x) for x in before_l[j, :g]], "milli_cpu_left": int(cpu[j]),
                     "cards": list(cards[j]), "frag_before": float(fb[j]), "frag_after": float(fa[j]),
                     "score": int(scores[j])})
    rows.sort(key=lambda r: (-r["score"], r["frag_after"] - r["frag_before"], r["node"]))
    top = rows[0]["score"] if rows else 0
    return {"pod": trace.pod_names[int(pods[event])], "event": int(event),
            "arrived_percent": float(result.arrived_percent[event]), "request": req, "feasible": len(rows),
            "rows": rows, "top_score": top, "ties": sum(1 for r in rows if r["score"] == top),
            "node": names[int(nodes_of[event])], "cards": list(result.gpu_cards[event]),
            "typical": len(typical_of(trace))}


#: The reasons of :func:`fragmentation_terms`, in the order they are checked.
FRAG_REASONS: tuple[str, ...] = ("no GPU", "card model", "CPU", "cards", "fits")


def fragmentation_terms(view: NodeView, typical: TypicalPods) -> list[dict[str, Any]]:
    """A node's fragmentation term by term: one entry per typical pod shape, the largest contribution first.

    For each typical pod ``p`` (popularity ``f_p``), ``F_p`` is the idle GPU
    of the node that ``p`` could not use: all of it when ``p`` cannot run on
    the node, otherwise the idle GPU on cards with less free than ``p`` asks.
    The node's fragmentation is ``F = sum_p f_p * F_p``
    (:func:`~kubenotes.replay.policies.frag_amount`).

    Parameters
    ----------
    view : NodeView
        One node (:func:`~kubenotes.replay.cache.node_view_of`).
    typical : TypicalPods
        The target workload (:func:`~kubenotes.replay.policies.typical_pods`).

    Returns
    -------
    list of dict
        One per shape, sorted by contribution (largest first; ties: the more
        popular shape, then the earlier one): ``index`` (in ``typical``),
        ``milli_cpu``, ``gpu_milli`` (per GPU), ``num_gpu``, ``gpu_type``,
        ``share`` (``f_p``), ``frag`` (``F_p``, thousandths of a GPU),
        ``contribution`` (``f_p * F_p``) and ``reason``, one of
        :data:`FRAG_REASONS`: the shape asks for ``no GPU``, its ``card
        model`` is not the node's, the node has too little ``CPU`` left, too
        few ``cards`` with enough free, or it ``fits`` (then only cards with
        less free than it asks are stranded).

    Raises
    ------
    AttributeError
        ``view`` is not a NodeView or ``typical`` not a TypicalPods.

    See Also
    --------
    kubenotes.replay.policies.frag_amount, kubenotes.viz.replay.fragmentation_breakdown

    Notes
    -----
    Each ``F_p`` is ``frag_amount`` of the node against the single shape
    ``p``; ``reason`` restates the rule it applied, for reading.

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go (NodeGpuShareFragAmount, IsNodeAccessibleToPodByType)

    Examples
    --------
    >>> t = TypicalPods.from_args([{"milliCpu": 2000, "milliGpu": 500, "gpuNumber": 1, "percentage": 0.5},
    ...                            {"milliCpu": 2000, "milliGpu": 1000, "gpuNumber": 1, "percentage": 0.5}])
    >>> [(x["index"], x["frag"], x["contribution"], x["reason"])
    ...  for x in fragmentation_terms(NodeView("n", 8000, 8000, 0, 0, [600, 1000], "T4"), t)]
    [(1, 600.0, 300.0, 'fits'), (0, 0.0, 0.0, 'fits')]
    """
    terms = []
    for i in range(len(typical)):
        one = TypicalPods(typical.milli_cpu[i:i + 1], typical.gpu_milli[i:i + 1], typical.num_gpu[i:i + 1],
                          typical.gpu_type[i:i + 1], np.array([1.0]))
        share = float(typical.percentage[i])
        frag = frag_amount(view, one)
        c, m, n, t = int(typical.milli_cpu[i]), int(typical.gpu_milli[i]), int(typical.num_gpu[i]), typical.gpu_type[i]
        if n == 0:
            reason = "no GPU"
        elif t and view.model not in t.split("|"):
            reason = "card model"
        elif view.milli_cpu_left < c:
            reason = "CPU"
        elif sum(1 for x in view.gpu_left if x >= m) < n:
            reason = "cards"
        else:
            reason = "fits"
        terms.append({"index": i, "milli_cpu": c, "gpu_milli": m, "num_gpu": n, "gpu_type": t, "share": share,
                      "frag": frag, "contribution": share * frag, "reason": reason})
    terms.sort(key=lambda x: (-round(x["contribution"], 9), -x["share"], x["index"]))
    return terms
