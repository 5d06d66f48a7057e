"""The ``RequestedToCapacityRatio`` scoring strategy: a user-drawn utilization-to-score curve.

Mirrors ``pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio.go``.
The user gives points on a 0-10 score scale
(``scoringStrategy.requestedToCapacityRatio.shape``); they are multiplied by
10 to reach the scheduler's 0-100 scale, joined by straight segments
(:func:`~kubenotes.scheduler.plugins.helper.build_broken_linear_function`),
and evaluated at each resource's utilization in percent.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/types_pluginargs.go (UtilizationShapePoint, MaxCustomPriorityScore)
KEP-1819 (requested-to-capacity-ratio bin packing)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE
from kubenotes.scheduler.plugins.helper import FunctionShapePoint, build_broken_linear_function, go_round_div
from kubenotes.scheduler.plugins.noderesources.resource_allocation import ResourceSpec

__all__ = [
    "REQUESTED_TO_CAPACITY_RATIO",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MAX_UTILIZATION",
    "UtilizationShapePoint",
    "shape_from_config",
    "build_requested_to_capacity_ratio_scorer_function",
    "requested_to_capacity_ratio_scorer",
]

#: ``config.RequestedToCapacityRatio``.
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
#: Top of the user's score scale (``config.MaxCustomPriorityScore``).
MAX_CUSTOM_PRIORITY_SCORE = 10
#: Utilization is expressed in percent (``maxUtilization``).
MAX_UTILIZATION = 100


@dataclass(frozen=True, slots=True)
class UtilizationShapePoint:
    """A user point of the shape (``config.UtilizationShapePoint``).

    Attributes
    ----------
    utilization : int
        Percent, 0-100.
    score : int
        User scale, 0-10.
    """

    utilization: int
    score: int


def shape_from_config(raw: Any, path: str) -> list[UtilizationShapePoint]:
    """Parse ``shape: [{utilization: 0, score: 10}, ...]`` from plugin args.

    Parameters
    ----------
    raw : list of dict
    path : str
        Field path for error messages.

    Returns
    -------
    list[UtilizationShapePoint]

    Raises
    ------
    ConfigError
        When an entry is not an object of integers.

    Examples
    --------
    >>> shape_from_config([{"utilization": 0, "score": 10}], "shape")
    [UtilizationShapePoint(utilization=0, score=10)]
    """
    if raw is None:
        return []
    if not isinstance(raw, (list, tuple)):
        raise ConfigError(f"{path}: expected a list, got {type(raw).__name__}")
    out = []
    for i, p in enumerate(raw):
        if isinstance(p, UtilizationShapePoint):
            out.append(p)
            continue
        if not isinstance(p, Mapping):
            raise ConfigError(f"{path}[{i}]: expected an object with utilization and score")
        vals = []
        for k in ("utilization", "score"):
            v = p.get(k, 0)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"{path}[{i}].{k}: expected an integer, got {v!r}")
            vals.append(v)
        out.append(UtilizationShapePoint(*vals))
    return out


def build_requested_to_capacity_ratio_scorer_function(
    shape: Sequence[FunctionShapePoint], resources: Sequence[ResourceSpec]
) -> Callable[[list[int], list[int]], int]:
    """Score from a 0-100 shape, weighted over resources (``buildRequestedToCapacityRatioScorerFunction``).

    Each resource with non-zero allocatable scores ``f(requested * 100 // capacity)``
    (``f(100)`` when over capacity); only positive resource scores take part
    in the weighted mean, which is rounded half away from zero.

    Parameters
    ----------
    shape : sequence of FunctionShapePoint
        Already on the 0-100 score scale.
    resources : sequence of ResourceSpec
        Weights, aligned with the lists the returned function receives.

    Returns
    -------
    callable(requested, allocatable) -> int
    """
    raw = build_broken_linear_function(shape)
    weights = [r.weight for r in resources]

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def score(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            s = resource_score(requested[i], cap)
            if s > 0:
                w = weights[i]
                node_score += s * w
                weight_sum += w
        if weight_sum == 0:
            return 0
        return go_round_div(node_score, weight_sum)

    return score


def requested_to_capacity_ratio_scorer(
    resources: Sequence[ResourceSpec], shape: Sequence[UtilizationShapePoint]
) -> Callable[[list[int], list[int]], int]:
    """Scale the user's 0-10 shape to 0-100 and build the scorer (``requestedToCapacityRatioScorer``).

    Parameters
    ----------
    resources : sequence of ResourceSpec
    shape : sequence of UtilizationShapePoint
        User points, score 0-10.

    Returns
    -------
    callable(requested, allocatable) -> int

    Examples
    --------
    >>> f = requested_to_capacity_ratio_scorer([ResourceSpec("cpu", 1)],
    ...     [UtilizationShapePoint(0, 10), UtilizationShapePoint(100, 0)])   # least-requested-like
    >>> f([1000], [4000]), f([4000], [4000])
    (75, 0)
    """
    factor = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    points = [FunctionShapePoint(int(p.utilization), int(p.score) * factor) for p in shape]
    return build_requested_to_capacity_ratio_scorer_function(points, resources)
