"""EqualPriority (legacy): every node scores 1 (``EqualPriorityMap``)."""

from __future__ import annotations

import pytest

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo
from kubenotes.scheduler.plugins import equalpriority as ep
from kubenotes.scheduler.testing import make_node


def test_every_node_scores_one():
    pl = ep.new(None, None)
    scores = [pl.score(None, None, NodeInfo(make_node(n, labels={"zone": z})))[0] for n, z in [("a", "1"), ("b", "2")]]
    assert scores == [1, 1] == [ep.EQUAL_SCORE] * 2
    assert pl.score_extensions() is None


def test_missing_node_is_an_error():
    score, st = ep.EqualPriority().score(None, None, NodeInfo())
    assert st.code == Code.ERROR and st.reasons == ["node not found"]


def test_factory():
    assert ep.new({}, None).name() == "EqualPriority"
    with pytest.raises(ConfigError):
        ep.new({"weight": 1}, None)
