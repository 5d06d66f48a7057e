"""NodeLabel (legacy, v1.21) against upstream's node_label_test.go tables."""

from __future__ import annotations

import pytest

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo
from kubenotes.scheduler.plugins import nodelabel as nl
from kubenotes.scheduler.testing import make_node

OK, UU = Code.SUCCESS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def node(labels):
    n = make_node("machine1")
    n.metadata.labels = dict(labels)
    return NodeInfo(n)


@pytest.mark.parametrize("name,args,err", [
    ("happy case", {"presentLabels": ["foo", "bar"], "absentLabels": ["baz"], "presentLabelsPreference": ["foo", "bar"],
                    "absentLabelsPreference": ["baz"]}, None),
    ("label presence conflict", {"presentLabels": ["foo", "bar"], "absentLabels": ["bar", "baz"],
                                 "presentLabelsPreference": ["foo", "bar"], "absentLabelsPreference": ["baz"]},
     'presentLabels[1]: Invalid value: "bar": conflict with absentLabels[0]'),
    ("label preference conflict", {"presentLabels": ["foo", "bar"], "absentLabels": ["baz"],
                                   "presentLabelsPreference": ["foo", "bar"], "absentLabelsPreference": ["bar", "baz"]},
     'presentLabelsPreference[1]: Invalid value: "bar": conflict with absentLabelsPreference[0]'),
    ("both label presence and preference conflict", {"presentLabels": ["foo", "bar"], "absentLabels": ["bar", "baz"],
                                                     "presentLabelsPreference": ["foo", "bar"], "absentLabelsPreference": ["bar", "baz"]},
     '[presentLabels[1]: Invalid value: "bar": conflict with absentLabels[0], '
     'presentLabelsPreference[1]: Invalid value: "bar": conflict with absentLabelsPreference[0]]'),
])
def test_validate_node_label_args(name, args, err):
    if err is None:
        assert nl.new(args, None).name() == "NodeLabel"
    else:
        with pytest.raises(ConfigError) as e:
            nl.new(args, None)
        assert str(e.value) == err


FILTER = [
    ("present label does not match", {"presentLabels": ["baz"]}, UU),
    ("absent label does not match", {"absentLabels": ["baz"]}, OK),
    ("one of two present labels matches", {"presentLabels": ["foo", "baz"]}, UU),
    ("one of two absent labels matches", {"absentLabels": ["foo", "baz"]}, UU),
    ("all present labels match", {"presentLabels": ["foo", "bar"]}, OK),
    ("all absent labels match", {"absentLabels": ["foo", "bar"]}, UU),
    ("both present and absent label matches", {"presentLabels": ["foo"], "absentLabels": ["bar"]}, UU),
    ("neither present nor absent label matches", {"presentLabels": ["foz"], "absentLabels": ["baz"]}, UU),
    ("present label matches and absent label doesn't match", {"presentLabels": ["foo"], "absentLabels": ["baz"]}, OK),
    ("present label doesn't match and absent label matches", {"presentLabels": ["foz"], "absentLabels": ["bar"]}, UU),
]


@pytest.mark.parametrize("name,args,want", FILTER, ids=[c[0] for c in FILTER])
def test_node_label_filter(name, args, want):
    st = nl.new(args, None).filter(None, None, node({"foo": "any value", "bar": "any value"}))
    assert st.code == want
    if want != OK:
        assert st.reasons == ["node(s) didn't have the requested labels"] == [nl.ERR_REASON_PRESENCE_VIOLATED]


SCORE = [
    ("one present label match", {"presentLabelsPreference": ["foo"]}, 100),
    ("one present label mismatch", {"presentLabelsPreference": ["somelabel"]}, 0),
    ("two present labels match", {"presentLabelsPreference": ["foo", "bar"]}, 100),
    ("two present labels mismatch", {"presentLabelsPreference": ["somelabel1", "somelabel2"]}, 0),
    ("two present labels only one matches", {"presentLabelsPreference": ["foo", "somelabel"]}, 50),
    ("one absent label match", {"absentLabelsPreference": ["foo"]}, 0),
    ("one absent label mismatch", {"absentLabelsPreference": ["somelabel"]}, 100),
    ("two absent labels match", {"absentLabelsPreference": ["foo", "bar"]}, 0),
    ("two absent labels mismatch", {"absentLabelsPreference": ["somelabel1", "somelabel2"]}, 100),
    ("two absent labels only one matches", {"absentLabelsPreference": ["foo", "somelabel"]}, 50),
    ("two present labels match, two absent labels mismatch",
     {"presentLabelsPreference": ["foo", "bar"], "absentLabelsPreference": ["somelabel1", "somelabel2"]}, 100),
    ("two present labels both mismatch, two absent labels both match",
     {"absentLabelsPreference": ["foo", "bar"], "presentLabelsPreference": ["somelabel1", "somelabel2"]}, 0),
    ("two present labels one matches, two absent labels mismatch",
     {"presentLabelsPreference": ["foo", "somelabel"], "absentLabelsPreference": ["somelabel1", "somelabel2"]}, 75),
]


@pytest.mark.parametrize("name,args,want", SCORE, ids=[c[0] for c in SCORE])
def test_node_label_score(name, args, want):
    score, st = nl.new(args, None).score(None, None, node({"foo": "", "bar": ""}))
    assert st.is_success() and score == want


def test_without_node():
    empty = NodeInfo()
    assert nl.new(None, None).filter(None, None, empty).code == Code.ERROR
    assert nl.new(None, None).score(None, None, empty)[1].code == Code.ERROR


def test_no_preferences_scores_zero():
    assert nl.new({"presentLabels": ["foo"]}, None).score(None, None, node({"foo": ""}))[0] == 0


def test_bad_args():
    with pytest.raises(ConfigError):
        nl.new({"presentLabels": "foo"}, None)
    with pytest.raises(ConfigError, match="unknown field"):
        nl.new({"labels": ["foo"]}, None)
