"""Tests for kubenotes.scheduler.plugins.queuesort (port of priority_sort_test.go TestLess)."""

from __future__ import annotations

import pytest

from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.queuesort import NAME, new
from kubenotes.scheduler.queue import QueuedPodInfo
from kubenotes.scheduler.testing import make_pod

LOW, HIGH = 1, 100
T0, T1 = 1000.0, 1001.0


def q(priority, ts):
    return QueuedPodInfo(PodInfo(make_pod("p", priority=priority)), timestamp=ts)


@pytest.mark.parametrize("name, a, b, want", [
    ("p1.priority less than p2.priority", q(LOW, T0), q(HIGH, T0), False),
    ("p1.priority greater than p2.priority", q(HIGH, T0), q(LOW, T0), True),
    ("equal priority. p1 is added to schedulingQ earlier than p2", q(HIGH, T0), q(HIGH, T1), True),
    ("equal priority. p2 is added to schedulingQ earlier than p1", q(HIGH, T1), q(HIGH, T0), False),
    ("equal priority and timestamp", q(HIGH, T0), q(HIGH, T0), False),
])
def test_less(name, a, b, want):
    assert new(None, None).less(a, b) is want


def test_name_and_pod_info_fallback():
    pl = new({}, None)
    assert pl.name() == NAME == "PrioritySort"
    early = PodInfo(make_pod("a", creation_timestamp="2024-01-01T00:00:00Z"))
    late = PodInfo(make_pod("b", creation_timestamp="2024-01-01T00:00:01Z"))
    assert pl.less(early, late) and not pl.less(late, early)
