"""The ``MostAllocated`` scoring strategy of NodeResourcesFit: bin-pack onto busier nodes.

Mirrors ``pkg/scheduler/framework/plugins/noderesources/most_allocated.go``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/most_allocated.go
"""

from __future__ import annotations

from typing import Callable, Sequence

from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE
from kubenotes.scheduler.plugins.noderesources.resource_allocation import ResourceSpec

__all__ = ["MOST_ALLOCATED", "most_requested_score", "most_resource_scorer"]

#: ``config.MostAllocated``.
MOST_ALLOCATED = "MostAllocated"


def most_requested_score(requested: int, capacity: int) -> int:
    """Used share of one resource on the 0-100 scale (``mostRequestedScore``).

    Parameters
    ----------
    requested : int
        Requested on the node including the incoming pod.
    capacity : int
        Allocatable amount.

    Returns
    -------
    int
        ``requested * 100 // capacity``, with ``requested`` capped at
        ``capacity`` (non-zero defaults can exceed it); 0 when capacity is 0.

    Examples
    --------
    >>> most_requested_score(3000, 4000), most_requested_score(300, 250)
    (75, 100)
    """
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return requested * MAX_NODE_SCORE // capacity


def most_resource_scorer(resources: Sequence[ResourceSpec]) -> Callable[[list[int], list[int]], int]:
    """The weighted mean of :func:`most_requested_score` over resources the node has (``mostResourceScorer``).

    Parameters
    ----------
    resources : sequence of ResourceSpec
        Weights, aligned with the lists the returned function receives.

    Returns
    -------
    callable(requested, allocatable) -> int

    Examples
    --------
    >>> f = most_resource_scorer([ResourceSpec("memory", 2), ResourceSpec("cpu", 1)])
    >>> f([5000, 3000], [10000, 4000])   # (50*2 + 75*1) // 3
    58
    """
    weights = [r.weight for r in resources]

    def score(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            w = weights[i]
            node_score += most_requested_score(requested[i], cap) * w
            weight_sum += w
        return node_score // weight_sum if weight_sum else 0

    return score
