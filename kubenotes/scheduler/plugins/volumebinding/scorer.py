"""VolumeBinding's Score function over storage classes (``scorer.go``).

Mirrors ``pkg/scheduler/framework/plugins/volumebinding/scorer.go``: per
storage class, the utilization ``requested * 100 / capacity`` goes through the
broken-linear shape of ``VolumeBindingArgs.shape`` (each point's score scaled
from [0, 10] to [0, 100]); the node's score is the rounded mean over the
classes (every class weighs the same).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/scorer.go
KEP-4049 (StorageCapacityScoring)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from kubenotes.scheduler.plugins.helper import FunctionShapePoint, build_broken_linear_function

__all__ = ["StorageResource", "MAX_UTILIZATION", "DEFAULT_SHAPE", "shape_from_args", "build_scorer_function"]

#: Utilization is a percentage.
MAX_UTILIZATION = 100
#: The default shape with StorageCapacityScoring on (``SetDefaults_VolumeBindingArgs``): the emptiest node wins.
DEFAULT_SHAPE = ({"utilization": 0, "score": 10}, {"utilization": 100, "score": 0})
_MAX_CUSTOM_PRIORITY_SCORE = 10
_MAX_NODE_SCORE = 100


@dataclass(slots=True)
class StorageResource:
    """Requested and available bytes of one storage class on one node (upstream ``StorageResource``)."""

    requested: int = 0
    capacity: int = 0


def shape_from_args(shape: Sequence[Mapping[str, int]] | None) -> list[FunctionShapePoint]:
    """The args' ``shape`` (``utilization``, ``score`` in [0, 10]) as points scaled to [0, 100].

    Examples
    --------
    >>> [(p.utilization, p.score) for p in shape_from_args(None)]
    [(0, 100), (100, 0)]
    """
    pts = shape if shape else DEFAULT_SHAPE
    return [FunctionShapePoint(int(p["utilization"]), int(p["score"]) * (_MAX_NODE_SCORE // _MAX_CUSTOM_PRIORITY_SCORE))
            for p in pts]


def build_scorer_function(shape: Sequence[FunctionShapePoint]) -> Callable[[Mapping[str, StorageResource]], int]:
    """The node scorer over ``class -> StorageResource`` (``buildScorerFunction``).

    A class with no capacity or more requested than capacity scores as 100 % utilized.

    Examples
    --------
    >>> f = build_scorer_function(shape_from_args([{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]))
    >>> f({"sc": StorageResource(50, 200)}), f({"sc": StorageResource(50, 100), "hdd": StorageResource(100, 100)}), f({})
    (25, 75, 0)
    """
    raw = build_broken_linear_function(shape)

    def per_class(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def score(class_resources: Mapping[str, StorageResource]) -> int:
        if not class_resources:
            return 0
        total = sum(per_class(r.requested, r.capacity) for r in class_resources.values())
        q = total / len(class_resources)
        return int(q + 0.5) if q >= 0 else -int(-q + 0.5)  # Go's math.Round: half away from zero

    return score
