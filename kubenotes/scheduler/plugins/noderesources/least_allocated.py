"""The ``LeastAllocated`` scoring strategy of NodeResourcesFit: favour nodes with more free resources.

Mirrors ``pkg/scheduler/framework/plugins/noderesources/least_allocated.go``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/least_allocated.go
"""

from __future__ import annotations

from typing import Callable, Sequence

from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE
from kubenotes.scheduler.plugins.noderesources.resource_allocation import ResourceSpec

__all__ = ["LEAST_ALLOCATED", "least_requested_score", "least_resource_scorer"]

#: ``config.LeastAllocated``, the default scoring strategy.
LEAST_ALLOCATED = "LeastAllocated"


def least_requested_score(requested: int, capacity: int) -> int:
    """Free share of one resource on the 0-100 scale (``leastRequestedScore``).

    Parameters
    ----------
    requested : int
        Requested on the node including the incoming pod (same units as capacity).
    capacity : int
        Allocatable amount.

    Returns
    -------
    int
        ``(capacity - requested) * 100 // capacity``; 0 when capacity is 0 or
        the request exceeds it.

    Examples
    --------
    >>> least_requested_score(3000, 4000), least_requested_score(5000, 4000)
    (25, 0)
    """
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> Callable[[list[int], list[int]], int]:
    """The weighted mean of :func:`least_requested_score` over resources the node has (``leastResourceScorer``).

    Parameters
    ----------
    resources : sequence of ResourceSpec
        Weights, aligned with the lists the returned function receives.

    Returns
    -------
    callable(requested, allocatable) -> int
        Integer division of the weighted sum by the sum of weights of
        resources with non-zero allocatable; 0 when there are none.

    Examples
    --------
    >>> f = least_resource_scorer([ResourceSpec("memory", 2), ResourceSpec("cpu", 1)])
    >>> f([5000, 3000], [10000, 4000])   # (50*2 + 25*1) // 3
    41
    """
    weights = [r.weight for r in resources]

    def score(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            w = weights[i]
            node_score += least_requested_score(requested[i], cap) * w
            weight_sum += w
        return node_score // weight_sum if weight_sum else 0

    return score
