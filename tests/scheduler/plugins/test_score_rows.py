"""The vectorised strategies (``scheduler/fast/noderesources.py``) equal their per-node scorers on every row.

``least_allocated_score_rows`` and ``balanced_allocation_score_rows`` are what the
untraced scheduler uses for NodeResourcesFit (LeastAllocated) and NodeResourcesBalancedAllocation;
the per-node functions are held to upstream's cases in test_noderesources_*.py.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenotes.scheduler.fast.noderesources import balanced_allocation_score_rows, least_allocated_score_rows
from kubenotes.scheduler.plugins.noderesources.balanced_allocation import balanced_resource_scorer
from kubenotes.scheduler.plugins.noderesources.least_allocated import least_resource_scorer
from kubenotes.scheduler.plugins.noderesources.resource_allocation import ResourceSpec

# Node-sized amounts (milli-CPU, bytes up to 1 TiB), zero allocatable, requests beyond allocatable.
AMOUNT = st.one_of(st.just(0), st.integers(1, 64_000), st.integers(1, 2**40))


def _rows(width: int):
    return st.lists(st.tuples(st.lists(AMOUNT, min_size=width, max_size=width),
                              st.lists(AMOUNT, min_size=width, max_size=width)), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(weights=st.lists(st.integers(1, 100), min_size=1, max_size=4), data=st.data())
def test_least_allocated_score_rows_equal_the_scalar_scorer(weights, data):
    rows = data.draw(_rows(len(weights)))
    f = least_resource_scorer([ResourceSpec(f"r{i}", w) for i, w in enumerate(weights)])
    req = np.array([r for r, _ in rows], dtype=np.int64)
    alloc = np.array([a for _, a in rows], dtype=np.int64)
    assert least_allocated_score_rows(weights, req, alloc).tolist() == [f(r, a) for r, a in rows]


@settings(max_examples=300, deadline=None)
@given(rows=_rows(2))
def test_balanced_allocation_score_rows_equal_the_scalar_scorer(rows):
    req = np.array([r for r, _ in rows], dtype=np.int64)
    alloc = np.array([a for _, a in rows], dtype=np.int64)
    assert balanced_allocation_score_rows(req, alloc).tolist() == [balanced_resource_scorer(r, a) for r, a in rows]


def test_balanced_allocation_score_rows_decline_other_widths():
    three = np.ones((2, 3), dtype=np.int64)
    assert balanced_allocation_score_rows(three, three) is None


def test_least_allocated_score_rows_decline_amounts_that_could_overflow():
    assert least_allocated_score_rows([1], np.array([[1]]), np.array([[2**62]])) is None
