"""Tests for kubenotes.scheduler.plugins.schedulinggates (port of scheduling_gates_test.go TestPreEnqueue)."""

from __future__ import annotations

import pytest

from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.schedulinggates import NAME, new
from kubenotes.scheduler.testing import make_pod


@pytest.mark.parametrize("gates, want", [
    (None, None),
    (["foo", "bar"], (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [foo bar]")),
    (["example.com/one"], (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [example.com/one]")),
])
def test_pre_enqueue(gates, want):
    kw = {"schedulingGates": [{"name": g} for g in gates]} if gates else {}
    s = new(None, None).pre_enqueue(PodInfo(make_pod("p", **kw)))
    if want is None:
        assert s.is_success()
    else:
        assert (s.code, s.message()) == want


def test_name():
    assert new(None, None).name() == NAME == "SchedulingGates"
