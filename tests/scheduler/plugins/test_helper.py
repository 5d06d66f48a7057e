"""Plugin helpers against upstream's helper/normalize_score_test.go (TestDefaultNormalizeScore) and
noderesources/requested_to_capacity_ratio_test.go (TestBrokenLinearFunction).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/normalize_score_test.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio_test.go
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, NodeScore
from kubenotes.scheduler.plugins.helper import (
    FunctionShapePoint,
    aggregate_errors,
    build_broken_linear_function,
    default_normalize_score,
    field_not_supported,
    go_div,
    go_round_div,
    is_extended_resource_name,
    is_scalar_resource_name,
    validate_label_name,
)


@pytest.mark.parametrize("reverse,scores,expected", [
    (False, [1, 2, 3, 4], [25, 50, 75, 100]),
    (True, [1, 2, 3, 4], [75, 50, 25, 0]),
    (False, [1000, 10, 20, 30], [100, 1, 2, 3]),
    (True, [1000, 10, 20, 30], [0, 99, 98, 97]),
    (False, [1, 1, 1, 1], [100, 100, 100, 100]),
    (False, [1000, 1, 1, 1], [100, 0, 0, 0]),
    (True, [0, 1, 1, 1], [100, 0, 0, 0]),
])
def test_default_normalize_score(reverse, scores, expected):
    node_scores = [NodeScore(f"n{i}", s) for i, s in enumerate(scores)]
    assert default_normalize_score(MAX_NODE_SCORE, reverse, node_scores).is_success()
    assert [s.score for s in node_scores] == expected


def test_default_normalize_score_all_zero():
    s = [NodeScore("a", 0), NodeScore("b", 0)]
    default_normalize_score(MAX_NODE_SCORE, False, s)
    assert [x.score for x in s] == [0, 0]
    default_normalize_score(MAX_NODE_SCORE, True, s)
    assert [x.score for x in s] == [100, 100]


@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=20), st.booleans())
def test_default_normalize_score_stays_in_range(scores, reverse):
    node_scores = [NodeScore(str(i), s) for i, s in enumerate(scores)]
    default_normalize_score(MAX_NODE_SCORE, reverse, node_scores)
    assert all(0 <= s.score <= MAX_NODE_SCORE for s in node_scores)


@pytest.mark.parametrize("points,assertions", [
    ([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9),
                          (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
])
def test_broken_linear_function(points, assertions):
    f = build_broken_linear_function([FunctionShapePoint(u, s) for u, s in points])
    for p, expected in assertions:
        assert f(p) == expected, (points, p)


@given(st.integers(-10**9, 10**9), st.integers(-10**6, 10**6).filter(lambda b: b != 0))
def test_go_div_truncates_toward_zero(a, b):
    q = go_div(a, b)
    r = a - q * b
    # Go's remainder is smaller than the divisor and takes the sign of the dividend.
    assert abs(r) < abs(b) and (r == 0 or (r > 0) == (a > 0))


@pytest.mark.parametrize("a,b,expected", [(5, 2, 3), (7, 2, 4), (1, 3, 0), (2, 3, 1), (75, 2, 38), (-5, 2, -3)])
def test_go_round_div(a, b, expected):
    assert go_round_div(a, b) == expected


@pytest.mark.parametrize("name,extended,scalar", [
    ("cpu", False, False), ("pods", False, False), ("storage", False, False), ("ephemeral-storage", False, False),
    ("example.com/aaa", True, True), ("nvidia.com/gpu", True, True),
    ("kubernetes.io/something", False, True), ("subdomain.kubernetes.io/something", False, True),
    ("hugepages-2Mi", False, True), ("attachable-volumes-aws-ebs", False, True),
    ("requests.example.com/aaa", False, False),
])
def test_resource_name_classes(name, extended, scalar):
    assert is_extended_resource_name(name) is extended
    assert is_scalar_resource_name(name) is scalar


def test_field_error_formats():
    assert field_not_supported("scoringStrategy.type", "", ["LeastAllocated"]) == \
        'scoringStrategy.type: Unsupported value: "": supported values: "LeastAllocated"'
    assert aggregate_errors(["x"]) == "x"
    assert validate_label_name("in valid", "ignoredResources[0]") == [
        "ignoredResources[0]: Invalid value: \"in valid\": name part must consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]
