"""Tests for kubenotes.api.taints, ported from upstream's test tables.

Upstream sources:
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/toleration_test.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/taint_test.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/helpers_test.go
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lightkube.models.core_v1 import Taint, Toleration

from kubenotes.api.taints import (
    find_matching_untolerated_taint,
    match_taint,
    match_toleration,
    taint_string,
    tolerates,
    tolerations_tolerate_taint,
)

NS, NE, PNS = "NoSchedule", "NoExecute", "PreferNoSchedule"


# --- TestTolerationToleratesTaint (the v1.34 cases; Gt/Lt arrived later) ---------------------------


@pytest.mark.parametrize(
    "description, toleration, taint, want",
    [
        ("same key and effect, Exists, taint has no value",
         Toleration(key="foo", operator="Exists", effect=NS), Taint(key="foo", effect=NS), True),
        ("same key and effect, Exists, taint has some value",
         Toleration(key="foo", operator="Exists", effect=NS), Taint(key="foo", value="bar", effect=NS), True),
        ("same effect, empty key and Exists match all taints",
         Toleration(key="", operator="Exists", effect=NS), Taint(key="foo", value="bar", effect=NS), True),
        ("same key, effect and value, Equal",
         Toleration(key="foo", operator="Equal", value="bar", effect=NS), Taint(key="foo", value="bar", effect=NS), True),
        ("same key and effect, different values, Equal",
         Toleration(key="foo", operator="Equal", value="value1", effect=NS), Taint(key="foo", value="value2", effect=NS),
         False),
        ("same key and value, different effects, Equal",
         Toleration(key="foo", operator="Equal", value="bar", effect=NS), Taint(key="foo", value="bar", effect=NE), False),
    ],
)
def test_toleration_tolerates_taint(description, toleration, taint, want):
    assert tolerates(toleration, taint) is want, description


@pytest.mark.parametrize(
    "toleration, taint, want",
    [
        # empty effect matches every effect
        (Toleration(key="foo", operator="Exists"), Taint(key="foo", effect=NE), True),
        (Toleration(key="foo", operator="Exists"), Taint(key="foo", effect=PNS), True),
        # empty operator means Equal
        (Toleration(key="foo", value="bar"), Taint(key="foo", value="bar", effect=NS), True),
        (Toleration(key="foo", value="baz"), Taint(key="foo", value="bar", effect=NS), False),
        (Toleration(key="foo"), Taint(key="foo", effect=NS), True),  # both values empty
        # Exists ignores the toleration's own value
        (Toleration(key="foo", operator="Exists", value="ignored"), Taint(key="foo", value="bar", effect=NS), True),
        # different keys
        (Toleration(key="foo", operator="Exists"), Taint(key="bar", effect=NS), False),
        # empty key with Exists and no effect tolerates everything
        (Toleration(operator="Exists"), Taint(key="any", value="thing", effect=NE), True),
        # v1.34 knows only Equal and Exists: other operators tolerate nothing
        (Toleration(key="sla", operator="Gt", value="750"), Taint(key="sla", value="950", effect=NS), False),
        (Toleration(key="sla", operator="Lt", value="950"), Taint(key="sla", value="800", effect=NS), False),
    ],
)
def test_toleration_rules(toleration, taint, want):
    assert tolerates(toleration, taint) is want


@pytest.mark.parametrize("seconds", [None, 0, 30, 3600])
def test_toleration_seconds_is_irrelevant_to_matching(seconds):
    taint = Taint(key="node.kubernetes.io/not-ready", effect=NE)
    assert tolerates(Toleration(key="node.kubernetes.io/not-ready", operator="Exists", effect=NE,
                                tolerationSeconds=seconds), taint)
    assert not tolerates(Toleration(key="node.kubernetes.io/unreachable", operator="Exists", effect=NE,
                                    tolerationSeconds=seconds), taint)


def test_dicts_are_accepted():
    assert tolerates({"key": "a", "operator": "Exists"}, {"key": "a", "effect": NS})
    assert taint_string({"key": "a", "value": "b", "effect": NS}) == "a=b:NoSchedule"


# --- TolerationsTolerateTaint / TestFindMatchingUntoleratedTaint ------------------------------------


def test_tolerations_tolerate_taint():
    taint = Taint(key="foo", value="bar", effect=NS)
    assert not tolerations_tolerate_taint([], taint)
    assert not tolerations_tolerate_taint(None, taint)
    assert tolerations_tolerate_taint([Toleration(key="x", operator="Exists"), Toleration(key="foo", value="bar")], taint)


_exists_foo_ns = Toleration(key="foo", operator="Exists", effect=NS)


@pytest.mark.parametrize(
    "description, tolerations, taints, flt, tolerated",
    [
        ("empty tolerations tolerate empty taints", [], [], lambda t: True, True),
        ("non-empty tolerations tolerate empty taints", [_exists_foo_ns], [], lambda t: True, True),
        ("tolerations match all taints", [_exists_foo_ns], [Taint(key="foo", effect=NS)], lambda t: True, True),
        ("tolerations don't match taints, but no taints apply to the filter",
         [_exists_foo_ns], [Taint(key="bar", effect=NS)], lambda t: False, True),
        ("no filter: all taints apply, tolerations don't match",
         [_exists_foo_ns], [Taint(key="bar", effect=NS)], None, False),
        ("tolerations match the taints the filter keeps",
         [Toleration(key="foo", operator="Exists", effect=NE)],
         [Taint(key="foo", effect=NE), Taint(key="bar", effect=NS)], lambda t: t.effect == NE, True),
    ],
)
def test_find_matching_untolerated_taint(description, tolerations, taints, flt, tolerated):
    assert (find_matching_untolerated_taint(taints, tolerations, flt) is None) is tolerated, description


def test_find_matching_untolerated_taint_returns_first_untolerated():
    taints = [Taint(key="a", effect=NS), Taint(key="b", value="1", effect=NS), Taint(key="c", effect=NS)]
    got = find_matching_untolerated_taint(taints, [Toleration(key="a", operator="Exists")])
    assert got is taints[1]


# --- Taint.ToString, MatchTaint, MatchToleration ------------------------------------------------------


@pytest.mark.parametrize(
    "taint, want",
    [
        (Taint(key="foo", value="bar", effect=NS), "foo=bar:NoSchedule"),
        (Taint(key="foo", effect=NS), "foo:NoSchedule"),
        (Taint(key="foo", effect=""), "foo"),
        (Taint(key="foo", value="bar", effect=""), "foo=bar:"),
    ],
)
def test_taint_to_string(taint, want):
    assert taint_string(taint) == want


def test_match_taint_and_toleration():
    assert match_taint(Taint(key="k", value="a", effect=NS), Taint(key="k", value="b", effect=NS))
    assert not match_taint(Taint(key="k", effect=NS), Taint(key="k", effect=NE))
    assert match_toleration(Toleration(key="k", operator="Exists", tolerationSeconds=5),
                            Toleration(key="k", operator="Exists"))
    assert not match_toleration(Toleration(key="k", operator="Exists"), Toleration(key="k", operator="Equal"))


# --- properties ------------------------------------------------------------------------------------

_key = st.sampled_from(["", "a", "b"])
_val = st.sampled_from(["", "x", "y"])
_eff = st.sampled_from(["", NS, PNS, NE])


@settings(deadline=None, derandomize=True, database=None)
@given(key=_key, op=st.sampled_from(["", "Equal", "Exists"]), value=_val, effect=_eff,
       tkey=_key.filter(bool), tvalue=_val, teffect=_eff.filter(bool))
def test_tolerates_matches_documented_rules(key, op, value, effect, tkey, tvalue, teffect):
    want = ((not effect or effect == teffect) and (not key or key == tkey)
            and (op == "Exists" or value == tvalue))
    assert tolerates(Toleration(key=key, operator=op, value=value, effect=effect),
                     Taint(key=tkey, value=tvalue, effect=teffect)) is want


@settings(deadline=None, derandomize=True, database=None)
@given(st.lists(st.tuples(_key.filter(bool), _val, _eff.filter(bool)), max_size=4))
def test_wildcard_toleration_tolerates_every_taint(taints):
    taints = [Taint(key=k, value=v, effect=e) for k, v, e in taints]
    assert find_matching_untolerated_taint(taints, [Toleration(operator="Exists")]) is None


def test_components_call_the_one_home():
    """The DaemonSet controller and the taint helpers of the node controllers match through api.taints."""
    from kubenotes.api import taints
    from kubenotes.controllers import daemonset, podutil

    assert daemonset.match_toleration is taints.match_toleration
    assert podutil.match_taint is taints.match_taint
    assert not hasattr(daemonset, "_match_toleration")
