"""Fast forms of NodeResourcesFit and NodeResourcesBalancedAllocation, and of their resource scorer.

kubenotes only (see :mod:`kubenotes.scheduler.fast`). Fit's Filter compares
the pod's requests with each node's allocatable and requested totals, which
:class:`~kubenotes.scheduler.arrays.SnapshotArrays` holds as columns; both
plugins' Scores depend only on a node's totals and the pod's requests, so the
scores of every node are kept per request between cycles and only the nodes
that changed are scored again.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/fit.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/resource_allocation.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE
from kubenotes.scheduler.plugins.names import NODE_RESOURCES_BALANCED_ALLOCATION
from kubenotes.scheduler.plugins.helper import is_extended_resource_name
from kubenotes.scheduler.plugins.noderesources import balanced_allocation
from kubenotes.scheduler.plugins.noderesources.balanced_allocation import BalancedAllocation, balanced_resource_scorer
from kubenotes.scheduler.plugins.noderesources.least_allocated import LEAST_ALLOCATED
from kubenotes.scheduler.plugins.noderesources.fit import PRE_FILTER_STATE_KEY, PRE_SCORE_STATE_KEY, Fit, fits_request
from kubenotes.scheduler.plugins.noderesources.resource_allocation import (
    _CPU,
    _EPHEMERAL,
    _MEMORY,
    _SCALAR,
    ResourceAllocationScorer,
)

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import PodInfo

__all__ = ["FitForms", "BalancedAllocationForms", "scorer_score_batch", "least_allocated_score_rows",
           "balanced_allocation_score_rows", "score_rows_of"]

#: Largest allocatable for which ``(capacity - requested) * 100`` stays exact in int64.
_MAX_EXACT = 2**62 // (MAX_NODE_SCORE + 1)


def least_allocated_score_rows(weights: Sequence[int], requested: np.ndarray, allocatable: np.ndarray
                               ) -> np.ndarray | None:
    """:func:`~kubenotes.scheduler.plugins.noderesources.least_allocated.least_resource_scorer` on every row at once.

    Parameters
    ----------
    weights : sequence of int
        The strategy's resource weights, aligned with the columns.
    requested, allocatable : numpy.ndarray
        int64, shape (m, len(weights)).

    Returns
    -------
    numpy.ndarray or None
        int64 scores, shape (m,), with the scalar scorer's integer
        arithmetic; None when int64 could overflow.

    Examples
    --------
    >>> least_allocated_score_rows([2, 1], np.array([[5000, 3000], [1, 5000]]),
    ...                            np.array([[10000, 4000], [0, 4000]])).tolist()
    [41, 0]
    """
    if allocatable.size and int(allocatable.max()) > _MAX_EXACT:
        return None
    w = np.asarray(weights, dtype=np.int64)
    has = allocatable != 0
    cap = np.where(has, allocatable, 1)
    per = np.where(has & (requested <= allocatable), (cap - requested) * MAX_NODE_SCORE // cap, 0)
    total = (per * w).sum(axis=1)
    weight_sum = (has * w).sum(axis=1)
    return np.where(weight_sum > 0, total // np.maximum(weight_sum, 1), 0)


def balanced_allocation_score_rows(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray | None:
    """:func:`~kubenotes.scheduler.plugins.noderesources.balanced_allocation.balanced_resource_scorer` on every row.

    The two-resource case (CPU and memory, the default) in the same float64
    operations, so each row equals the scalar result bit for bit.

    Parameters
    ----------
    requested, allocatable : numpy.ndarray
        int64, shape (m, 2).

    Returns
    -------
    numpy.ndarray or None
        int64 scores, shape (m,); None for other widths.

    Examples
    --------
    >>> balanced_allocation_score_rows(np.array([[3000, 5000], [1, 7]]), np.array([[4000, 10000], [0, 8]])).tolist()
    [87, 100]
    """
    if allocatable.ndim != 2 or allocatable.shape[1] != 2:
        return None
    has = allocatable != 0
    both = has.all(axis=1)
    f = requested.astype(np.float64) / np.where(has, allocatable, 1).astype(np.float64)
    f = np.where(f > 1, 1.0, f)
    std = np.abs((f[:, 0] - f[:, 1]) / 2)
    scores = ((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
    return np.where(both, scores, MAX_NODE_SCORE)


def score_rows_of(scorer: ResourceAllocationScorer) -> Any:
    """The vectorised form of ``scorer``'s strategy, ``f(requested, allocatable)``, or None when it has none.

    LeastAllocated (NodeResourcesFit's default) and BalancedAllocation have
    one; other strategies are scored once per distinct row on Python integers.

    Parameters
    ----------
    scorer : ResourceAllocationScorer

    Returns
    -------
    callable or None

    Examples
    --------
    >>> from kubenotes.scheduler.plugins.noderesources.resource_allocation import DEFAULT_RESOURCES
    >>> score_rows_of(ResourceAllocationScorer("LeastAllocated", None, DEFAULT_RESOURCES)) is not None
    True
    >>> score_rows_of(ResourceAllocationScorer("MostAllocated", None, DEFAULT_RESOURCES)) is None
    True
    """
    if scorer.name == LEAST_ALLOCATED:
        weights = [r.weight for r in scorer.resources]
        return lambda requested, allocatable: least_allocated_score_rows(weights, requested, allocatable)
    if scorer.name == NODE_RESOURCES_BALANCED_ALLOCATION and scorer.scorer is balanced_resource_scorer:
        return balanced_allocation_score_rows
    return None


def scorer_score_batch(scorer: ResourceAllocationScorer, arrays: Any, idx: Any, pod_requests: Sequence[int]) -> Any:
    """``scorer.score`` over the nodes ``idx`` of a :class:`~kubenotes.scheduler.arrays.SnapshotArrays`.

    A strategy with a vectorised form (:func:`score_rows_of`) scores all rows
    at once with the same arithmetic (LeastAllocated; BalancedAllocation
    over two resources); otherwise it runs once per distinct
    (requested, allocatable) row, on Python integers, so every strategy
    keeps its exact arithmetic. A node's score depends only on its own
    totals and the pod's requests, so the scores of every node are kept
    per request (``SnapshotArrays.per_node_memo``): the pods of one
    workload, scheduled one after another, rescore only the nodes that
    changed (a few of them with the scorer's per-node arithmetic).

    Returns
    -------
    numpy.ndarray or None
        int64 scores aligned with ``idx``; None when no resources are configured.
    """
    if not scorer.resources:
        return None
    memo = getattr(arrays, "per_node_memo", None)
    if memo is None:
        return _score_rows_of(scorer, arrays, idx, pod_requests)
    reqs = tuple(pod_requests)
    infos = arrays.node_infos

    def compute(rows: Any) -> Any:
        if len(rows) > arrays.FEW_ROWS:
            return _score_rows_of(scorer, arrays, rows, reqs)
        # The node the last pod went to, usually: the per-node score, on Python integers.
        return np.array([scorer._score_of(infos[i], reqs) for i in rows.tolist()], dtype=np.int64)

    return memo(("ResourceAllocationScorer", scorer, reqs), compute)[idx]

def _score_rows_of(scorer: ResourceAllocationScorer, arrays: Any, idx: Any, pod_requests: Sequence[int]) -> Any:
    """The scores of the nodes ``idx``, computed (see :func:`scorer_score_batch`)."""
    n = len(scorer.resources)
    m = len(idx)
    req_cols, alloc_cols = [], []
    zeros = None
    for i, kind in enumerate(scorer._kinds):
        pr = pod_requests[i]
        if kind == _CPU:
            alloc = arrays.alloc_milli_cpu[idx]
            used = (arrays.requested_milli_cpu if scorer.use_requested else arrays.non_zero_milli_cpu)[idx] + pr
        elif kind == _MEMORY:
            alloc = arrays.alloc_memory_bytes[idx]
            used = (arrays.requested_memory_bytes if scorer.use_requested else arrays.non_zero_memory_bytes)[idx] + pr
        elif kind == _EPHEMERAL:
            alloc = arrays.alloc_ephemeral_storage_bytes[idx]
            used = arrays.requested_ephemeral_storage_bytes[idx] + pr
        elif kind == _SCALAR and pr != 0:
            a, u = arrays.scalar(scorer.resources[i].name)
            alloc = a[idx]
            used = u[idx] + pr
        else:
            if zeros is None:
                zeros = np.zeros(m, dtype=np.int64)
            alloc = used = zeros
        req_cols.append(np.where(alloc == 0, 0, used))
        alloc_cols.append(alloc)
    strategy = scorer.scorer
    score_rows = score_rows_of(scorer)
    if score_rows is not None:
        out = score_rows(np.stack(req_cols, axis=1), np.stack(alloc_cols, axis=1))
        if out is not None:
            return out
    rows = np.ascontiguousarray(np.stack(req_cols + alloc_cols, axis=1))
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    table = np.array([strategy(r[:n], r[n:]) for r in rows[first].tolist()], dtype=np.int64)
    return table[inverse.ravel()]


class FitForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.noderesources.fit.Fit` (NodeResourcesFit).

    Parameters
    ----------
    plugin : Fit

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/fit.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.plugins.noderesources.fit import new
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> small = make_node("n1", allocatable={"cpu": "2", "memory": "16Gi", "pods": "110"})
    >>> arr = new_snapshot([small, make_node("n2")], []).arrays()
    >>> pl, state, pod = new(None), CycleState(), PodInfo(make_pod("p", requests={"cpu": "3"}))
    >>> _ = pl.pre_filter(state, pod, arr.node_infos)
    >>> FitForms(pl).filter_batch(state, pod, arr, arr.arange).tolist()
    [False, True]
    """

    plugin_type = Fit
    #: Filter reads only ``node_info.allocatable``, ``node_info.requested`` and the number of ``node_info.pods``
    #: (:func:`~kubenotes.scheduler.plugins.noderesources.fit.fits_request`), so a dry run may test it on resource
    #: totals alone.
    filter_reads_requests_only = True

    __slots__ = ()

    def filter_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any, added: Any = None) -> Any:
        """``filter`` over the nodes ``idx``: the comparisons of :func:`fits_request` on arrays.

        ``added`` (a :class:`~kubenotes.scheduler.batch.NominatedTotals`), when
        given, counts more pods and requests on each node: the verdict is
        ``filter``'s on the node with those pods added.
        """
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return None
        memo = getattr(arrays, "per_node_memo", None)
        if added is not None or memo is None:
            return self._fits_rows(s, arrays, idx, added)
        # Without nominated pods a node's verdict depends only on its totals and the pod's requests: kept for
        # every node per request (SnapshotArrays.per_node_memo); the few nodes changed since, node by node.
        infos = arrays.node_infos
        ignored, groups = self.plugin.ignored_resources, self.plugin.ignored_resource_groups

        def compute(rows: Any) -> Any:
            if len(rows) > arrays.FEW_ROWS:
                return self._fits_rows(s, arrays, rows, None)
            return np.array([not fits_request(s, infos[i], ignored, groups) for i in rows.tolist()], dtype=bool)

        key = ("NodeResourcesFit.filter", self.plugin, s.milli_cpu, s.memory_bytes, s.ephemeral_storage_bytes,
               tuple(sorted(s.scalar_resources.items())))
        return memo(key, compute)[idx]

    def _fits_rows(self, s: Any, arrays: Any, idx: Any, added: Any) -> Any:
        """:meth:`filter_batch`'s verdicts computed over the nodes ``idx``."""
        n_pods = arrays.num_pods[idx] if added is None else arrays.num_pods[idx] + added.num_pods[idx]
        ok = n_pods + 1 <= arrays.allowed_pod_number[idx]
        for r, alloc, used, extra in self._batch_checks(s, arrays, added):
            if r > 0:
                ok &= r <= alloc[idx] - (used[idx] if extra is None else used[idx] + extra[idx])
        return ok

    def filter_status_key_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any,
                                added: Any = None) -> Any:
        """Per node of ``idx``, a key such that nodes with equal keys get equal ``filter`` statuses.

        The key holds a bit per check of :func:`fits_request` (pods, cpu,
        memory, ephemeral-storage, each scalar resource it looks at) that
        fails, and one per failing check whose request exceeds allocatable:
        the status's reasons and code follow from those alone. Key 0: the
        node passes.

        Parameters
        ----------
        state : CycleState
        pod : PodInfo
        arrays : SnapshotArrays
        idx : numpy.ndarray
            Snapshot node indices, int64.
        added : NominatedTotals, optional
            Pods counted on top of each node's own (the nominated pods of
            ``RunFilterPluginsWithNominatedPods``' first pass).

        Returns
        -------
        numpy.ndarray of int64 or None
            None without the PreFilter state, or with more scalar resources
            than the key has bits for.
        """
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return None
        num_pods = arrays.num_pods[idx] if added is None else arrays.num_pods[idx] + added.num_pods[idx]
        key = (num_pods + 1 > arrays.allowed_pod_number[idx]).astype(np.int64)
        checks = self._batch_checks(s, arrays, added)
        if 1 + 2 * len(checks) > 62:
            return None
        for j, (r, alloc, used, extra) in enumerate(checks):
            if r > 0:
                short = r > alloc[idx] - (used[idx] if extra is None else used[idx] + extra[idx])
                key |= short.astype(np.int64) << (1 + 2 * j)
                key |= (short & (r > alloc[idx])).astype(np.int64) << (2 + 2 * j)
        return key

    def _batch_checks(self, s: Any, arrays: Any, added: Any) -> list[tuple[int, Any, Any, Any]]:
        """What :func:`fits_request` compares after the pod count, in its order, as whole-snapshot arrays.

        ``(request, allocatable, requested, added or None)`` for cpu, memory,
        ephemeral-storage and each scalar resource it looks at; empty when
        the pod requests nothing (then only the pod count is checked).
        """
        scalars = s.scalar_resources
        if s.milli_cpu == 0 and s.memory_bytes == 0 and s.ephemeral_storage_bytes == 0 and not scalars:
            return []
        checks = [(s.milli_cpu, arrays.alloc_milli_cpu, arrays.requested_milli_cpu, getattr(added, "milli_cpu", None)),
                  (s.memory_bytes, arrays.alloc_memory_bytes, arrays.requested_memory_bytes,
                   getattr(added, "memory_bytes", None)),
                  (s.ephemeral_storage_bytes, arrays.alloc_ephemeral_storage_bytes,
                   arrays.requested_ephemeral_storage_bytes, getattr(added, "ephemeral_storage_bytes", None))]
        for name, q in scalars.items():
            if q == 0:
                continue
            if is_extended_resource_name(name):
                prefix = name.split("/", 1)[0] if self.plugin.ignored_resource_groups else ""
                if name in self.plugin.ignored_resources or prefix in self.plugin.ignored_resource_groups:
                    continue
            checks.append((q, *arrays.scalar(name), added.scalars.get(name) if added is not None else None))
        return checks

    def score_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``score`` over the nodes ``idx`` (see :func:`scorer_score_batch`)."""
        scorer = self.plugin.scorer
        reqs = state.get(PRE_SCORE_STATE_KEY)
        if reqs is None:
            reqs = scorer.calculate_pod_resource_request_list(pod)
        return scorer_score_batch(scorer, arrays, idx, reqs)


class BalancedAllocationForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.noderesources.balanced_allocation.BalancedAllocation`.

    Parameters
    ----------
    plugin : BalancedAllocation

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> arr = new_snapshot([make_node("n1")], []).arrays()
    >>> pl, state = balanced_allocation.new(None), CycleState()
    >>> pod = PodInfo(make_pod("p", requests={"cpu": "2", "memory": "4Gi"}))
    >>> _ = pl.pre_score(state, pod, arr.node_infos)
    >>> BalancedAllocationForms(pl).score_batch(state, pod, arr, arr.arange).tolist()   # cpu 50%, memory 25%
    [87]
    """

    plugin_type = BalancedAllocation

    __slots__ = ()

    def score_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``score`` over the nodes ``idx`` (see :func:`scorer_score_batch`)."""
        scorer = self.plugin.scorer
        reqs = state.get(balanced_allocation.PRE_SCORE_STATE_KEY)
        if reqs is None:
            reqs = scorer.calculate_pod_resource_request_list(pod)
            if scorer.is_best_effort_pod(reqs):
                return np.zeros(len(idx), dtype=np.int64)
        return scorer_score_batch(scorer, arrays, idx, reqs)
