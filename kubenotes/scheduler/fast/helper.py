"""Batch forms of the shared plugin helpers (``pkg/scheduler/framework/plugins/helper``).

kubenotes only (see :mod:`kubenotes.scheduler.fast`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/normalize_score.go
"""

from __future__ import annotations

import numpy as np

__all__ = ["default_normalize_score_batch"]


def default_normalize_score_batch(max_priority: int, reverse: bool, scores: np.ndarray) -> np.ndarray:
    """:func:`~kubenotes.scheduler.plugins.helper.default_normalize_score` over an int64 array.

    Examples
    --------
    >>> default_normalize_score_batch(100, False, np.array([1, 2, 4])).tolist()
    [25, 50, 100]
    >>> default_normalize_score_batch(100, True, np.array([0, 0])).tolist()
    [100, 100]
    """
    max_count = int(scores.max()) if len(scores) else 0
    if max_count <= 0:
        return np.full(len(scores), max_priority, dtype=np.int64) if reverse else scores
    # Scores are non-negative, so floor division is Go's truncation.
    out = (max_priority * scores) // max_count
    return max_priority - out if reverse else out
