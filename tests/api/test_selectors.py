"""Tests for kubenotes.api.selectors, ported from upstream's test tables.

Upstream sources:
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/labels/selector_test.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers_test.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity_test.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/helpers_test.go
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lightkube.models.meta_v1 import LabelSelector as LkLabelSelector
from lightkube.models.meta_v1 import LabelSelectorRequirement
from lightkube.resources.core_v1 import Node, Pod

from kubenotes.api import selectors as S
from kubenotes.api.selectors import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_EQUALS,
    NOT_IN,
    LabelSelector,
    NodeSelector,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
    Requirement,
    parse_selector,
)
from kubenotes.errors import FieldError

QNAME_NAME_PART_ERR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


# --- labels.Parse: TestSelectorParse, TestDeterministicParse ---------------------------------


@pytest.mark.parametrize("s", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"])
def test_parse_good_strings_restring_without_spaces(s):
    assert str(parse_selector(s)) == s.replace(" ", "")


@pytest.mark.parametrize("s", ["x=a||y=b", "x==a==b", "!x=a", "x<a"])
def test_parse_bad_strings(s):
    with pytest.raises(FieldError):
        parse_selector(s)


def test_parse_is_deterministic():
    assert str(parse_selector("x=a,a=x")) == str(parse_selector("a=x,x=a")) == "a=x,x=a"


# --- TestEverything, TestSelectorMatches, TestSetMatches, TestSetIsEmpty ----------------------


def test_everything_matches_and_is_empty():
    assert LabelSelector.everything().matches({"x": "y"})
    assert LabelSelector.everything().is_empty()
    assert LabelSelector.from_set(None).is_empty() and LabelSelector.from_set({}).is_empty()
    assert LabelSelector().is_empty()


def test_nothing_matches_nothing():
    n = LabelSelector.nothing()
    assert not n.matches({}) and not n.matches({"a": "b"})
    assert n.is_nothing() and not n.is_empty()
    assert str(n) == ""


@pytest.mark.parametrize(
    "selector, labels, want",
    [
        ("", {"x": "y"}, True),
        ("x=y", {"x": "y"}, True),
        ("x=y,z=w", {"x": "y", "z": "w"}, True),
        ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
        ("notin=in", {"notin": "in"}, True),  # in and notin in exact match
        ("x", {"x": "z"}, True),
        ("!x", {"y": "z"}, True),
        ("x>1", {"x": "2"}, True),
        ("x<1", {"x": "0"}, True),
        ("x=z", {}, False),
        ("x=y", {"x": "z"}, False),
        ("x=y,z=w", {"x": "w", "z": "w"}, False),
        ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
        ("x", {"y": "z"}, False),
        ("!x", {"x": "z"}, False),
        ("x>1", {"x": "0"}, False),
        ("x<1", {"x": "2"}, False),
        ("foo=bar", {"foo": "bar", "baz": "blah"}, True),
        ("baz=blah", {"foo": "bar", "baz": "blah"}, True),
        ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
        ("foo=blah", {"foo": "bar", "baz": "blah"}, False),
        ("baz=bar", {"foo": "bar", "baz": "blah"}, False),
        ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    ],
)
def test_selector_matches(selector, labels, want):
    assert parse_selector(selector).matches(labels) is want


@pytest.mark.parametrize("sel", [{}, {"foo": "bar"}, {"baz": "blah"}, {"foo": "bar", "baz": "blah"}])
def test_set_matches(sel):
    assert LabelSelector.from_set(sel).matches({"foo": "bar", "baz": "blah"})


# --- TestLexer, TestLexerSequence -------------------------------------------------------------


@pytest.mark.parametrize(
    "s, tok",
    [
        ("", S._T_EOS), (",", S._T_COMMA), ("notin", S._T_NOTIN), ("in", S._T_IN), ("=", S._T_EQ),
        ("==", S._T_DEQ), (">", S._T_GT), ("<", S._T_LT), ("!", S._T_DNE), ("!=", S._T_NEQ),
        ("(", S._T_OPAR), (")", S._T_CPAR), ("~", S._T_ID), ("||", S._T_ID),
    ],
)
def test_lexer_single_token(s, tok):
    t, lit = S._lex(s)[0]
    assert t == tok and lit == s


@pytest.mark.parametrize(
    "s, toks",
    [
        ("key in ( value )", [S._T_ID, S._T_IN, S._T_OPAR, S._T_ID, S._T_CPAR]),
        ("key notin ( value )", [S._T_ID, S._T_NOTIN, S._T_OPAR, S._T_ID, S._T_CPAR]),
        ("key in ( value1, value2 )", [S._T_ID, S._T_IN, S._T_OPAR, S._T_ID, S._T_COMMA, S._T_ID, S._T_CPAR]),
        ("key", [S._T_ID]),
        ("!key", [S._T_DNE, S._T_ID]),
        ("()", [S._T_OPAR, S._T_CPAR]),
        ("x in (),y", [S._T_ID, S._T_IN, S._T_OPAR, S._T_CPAR, S._T_COMMA, S._T_ID]),
        ("== != (), = notin", [S._T_DEQ, S._T_NEQ, S._T_OPAR, S._T_CPAR, S._T_COMMA, S._T_EQ, S._T_NOTIN]),
        ("key>2", [S._T_ID, S._T_GT, S._T_ID]),
        ("key<1", [S._T_ID, S._T_LT, S._T_ID]),
    ],
)
def test_lexer_sequence(s, toks):
    assert [t for t, _ in S._lex(s)] == toks + [S._T_EOS]


# --- TestRequirementConstructor ---------------------------------------------------------------


@pytest.mark.parametrize(
    "key, op, vals, ok",
    [
        ("x", IN, [], False),
        ("x", NOT_IN, [], False),
        ("x", IN, ["foo"], True),
        ("x", NOT_IN, ["foo"], True),
        ("x", EXISTS, [], True),
        ("x", DOES_NOT_EXIST, [], True),
        ("1foo", IN, ["bar"], True),
        ("1234", IN, ["bar"], True),
        ("y", GREATER_THAN, ["1"], True),
        ("z", LESS_THAN, ["6"], True),
        ("foo", GREATER_THAN, ["bar"], False),
        ("barz", LESS_THAN, ["blah"], False),
        ("a" * 254, EXISTS, [], False),  # breaks the DNS rule that len(key) <= 253
    ],
)
def test_requirement_constructor(key, op, vals, ok):
    if ok:
        Requirement(key, op, vals)
    else:
        with pytest.raises(FieldError):
            Requirement(key, op, vals)


def test_requirement_error_messages():
    with pytest.raises(FieldError) as e:
        Requirement("x", IN, [])
    assert str(e.value) == "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"
    with pytest.raises(FieldError) as e:
        Requirement("x", EQUALS, ["a", "b"])
    assert e.value.message == 'Invalid value: []string{"a", "b"}: exact-match compatibility requires one single value'
    with pytest.raises(FieldError) as e:
        Requirement("x", GREATER_THAN, ["bar"])
    assert str(e.value) == 'values[0]: Invalid value: "bar": for \'Gt\', \'Lt\' operators, the value must be an integer'
    with pytest.raises(FieldError) as e:
        Requirement("x", "like", [])
    assert e.value.field == "operator"
    assert e.value.message.startswith('Unsupported value: "like": supported values: "in", "notin", "=", "==", "!="')


# --- TestToString ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reqs, out",
    [
        ([("x", IN, ["abc", "def"]), ("y", NOT_IN, ["jkl"]), ("z", EXISTS, [])], "x in (abc,def),y notin (jkl),z"),
        ([("x", NOT_IN, ["abc", "def"]), ("y", NOT_EQUALS, ["jkl"]), ("z", DOES_NOT_EXIST, [])],
         "x notin (abc,def),y!=jkl,!z"),
        ([("x", NOT_IN, ["abc"]), ("y", IN, ["jkl", "mno"]), ("z", NOT_IN, [""])], "x notin (abc),y in (jkl,mno),z notin ()"),
        ([("x", EQUALS, ["abc"]), ("y", DOUBLE_EQUALS, ["jkl"]), ("z", NOT_EQUALS, ["a"]), ("z", EXISTS, [])],
         "x=abc,y==jkl,z!=a,z"),
        ([("x", GREATER_THAN, ["2"]), ("y", LESS_THAN, ["8"]), ("z", EXISTS, [])], "x>2,y<8,z"),
    ],
)
def test_to_string(reqs, out):
    assert str(LabelSelector(Requirement(*r) for r in reqs)) == out


def test_to_string_sorts_values_without_mutating():
    r = Requirement("x", IN, ["def", "abc"])
    assert str(r) == "x in (abc,def)" and r.values == ("def", "abc")


# --- TestRequirementSelectorMatching ---------------------------------------------------------------


@pytest.mark.parametrize(
    "labels, reqs, want",
    [
        ({"x": "foo", "y": "baz"}, [("x", IN, ["foo"]), ("y", NOT_IN, ["alpha"])], True),
        ({"x": "foo", "y": "baz"}, [("x", IN, ["foo"]), ("y", IN, ["alpha"])], False),
        ({"y": ""}, [("x", NOT_IN, [""]), ("y", EXISTS, [])], True),
        ({"y": ""}, [("x", DOES_NOT_EXIST, []), ("y", EXISTS, [])], True),
        ({"y": ""}, [("x", NOT_IN, [""]), ("y", DOES_NOT_EXIST, [])], False),
        ({"y": "baz"}, [("x", IN, [""])], False),
        ({"z": "2"}, [("z", GREATER_THAN, ["1"])], True),
        ({"z": "v2"}, [("z", GREATER_THAN, ["1"])], False),
    ],
)
def test_requirement_selector_matching(labels, reqs, want):
    assert LabelSelector(Requirement(*r) for r in reqs).matches(labels) is want


def test_gt_lt_integer_semantics():
    # strconv.ParseInt: leading zeros and signs are fine, spaces and underscores are not, int64 range.
    assert parse_selector("k>0204").matches({"k": "0206"})
    assert parse_selector("k<5").matches({"k": "-3"})
    assert not parse_selector("k<5").matches({"k": "1_0"})
    assert not parse_selector("k>1").matches({"k": " 2"})
    assert not parse_selector("k>1").matches({"k": str(2**63)})


# --- TestSetSelectorParser -------------------------------------------------------------------------


def _reqs(*rs):
    return tuple(Requirement(*r) for r in rs)


@pytest.mark.parametrize(
    "s, want",
    [
        ("", ()),
        ("\rx", _reqs(("x", EXISTS, []))),
        ("this-is-a-dns.domain.com/key-with-dash", _reqs(("this-is-a-dns.domain.com/key-with-dash", EXISTS, []))),
        ("this-is-another-dns.domain.com/key-with-dash in (so,what)",
         _reqs(("this-is-another-dns.domain.com/key-with-dash", IN, ["so", "what"]))),
        ("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
         _reqs(("0.1.2.domain/99", NOT_IN, ["10.10.100.1", "tick.tack.clock"]))),
        ("foo  in\t (abc)", _reqs(("foo", IN, ["abc"]))),
        ("x notin\n (abc)", _reqs(("x", NOT_IN, ["abc"]))),
        ("x  notin\t\t\t(abc,def)", _reqs(("x", NOT_IN, ["abc", "def"]))),
        ("x in (abc,def)", _reqs(("x", IN, ["abc", "def"]))),
        ("x in (abc,)", _reqs(("x", IN, ["", "abc"]))),
        ("x in ()", _reqs(("x", IN, [""]))),
        ("x notin (abc,,def),bar,z in (),w",
         _reqs(("bar", EXISTS, []), ("w", EXISTS, []), ("x", NOT_IN, ["", "abc", "def"]), ("z", IN, [""]))),
        ("x=a", _reqs(("x", EQUALS, ["a"]))),
        ("x>1", _reqs(("x", GREATER_THAN, ["1"]))),
        ("x<7", _reqs(("x", LESS_THAN, ["7"]))),
        ("x=a,y!=b", _reqs(("x", EQUALS, ["a"]), ("y", NOT_EQUALS, ["b"]))),
        ("x=a,y!=b,z in (h,i,j)", _reqs(("x", EQUALS, ["a"]), ("y", NOT_EQUALS, ["b"]), ("z", IN, ["h", "i", "j"]))),
        ("x notin ( )", _reqs(("x", NOT_IN, [""]))),
        ("x notin (, a)", _reqs(("x", NOT_IN, ["", "a"]))),
        ("a ", _reqs(("a", EXISTS, []))),
        ("a in (x,y,notin, z,in)", _reqs(("a", IN, ["in", "notin", "x", "y", "z"]))),  # in/notin as values
    ],
)
def test_set_selector_parser_valid(s, want):
    assert parse_selector(s).requirements == want


def test_set_selector_parser_sorts_by_key():
    # "x,y in (a)" parses; the requirements come out sorted by key.
    assert [r.key for r in parse_selector("y in (a),x").requirements] == ["x", "y"]


@pytest.mark.parametrize(
    "s", ["x=a||y=b", "x,,y", ",x,y", "x nott in (y)", "a in (xyz),", "a in (xyz)b notin ()",
          "a in (xyz abc)", "a notin(", "a (", "("],
)
def test_set_selector_parser_invalid(s):
    with pytest.raises(FieldError):
        parse_selector(s)


@pytest.mark.parametrize(
    "s, msg",
    [
        ("x==a==b", "found '==', expected: ',' or 'end of string'"),
        ("x,", "found '', expected: identifier after ','"),
        ("(", "found '(', expected: !, identifier, or 'end of string'"),
        ("a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
        ("x nott in (y)", "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"),
        ("x,,y", "found ',', expected: identifier after ','"),
        ("a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'"),
        ("a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier"),
        ("a x", "unable to parse requirement: found 'x', expected: in, notin, =, ==, !=, gt, lt"),
        ("x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": "
                "for 'Gt', 'Lt' operators, the value must be an integer"),
        ("a$", f'unable to parse requirement: <nil>: Invalid value: "a$": {QNAME_NAME_PART_ERR}'),
    ],
)
def test_parse_error_messages(s, msg):
    with pytest.raises(FieldError) as e:
        parse_selector(s)
    assert e.value.message == msg


def test_parse_error_field_path():
    with pytest.raises(FieldError) as e:
        parse_selector("x==a==b", "--selector")
    assert str(e.value) == "--selector: found '==', expected: ',' or 'end of string'"


# --- TestAdd, RequiresExactMatch --------------------------------------------------------------------


def test_add_sorts_by_key():
    sel = LabelSelector().add(Requirement("key", IN, ["value"]))
    assert sel.requirements == (Requirement("key", IN, ["value"]),)
    sel = sel.add(Requirement("key2", EQUALS, ["value2"]))
    assert str(sel) == "key in (value),key2=value2"
    assert str(LabelSelector([Requirement("b", EXISTS)]).add(Requirement("a", EXISTS))) == "a,b"


@pytest.mark.parametrize(
    "s, label, want",
    [("a=b", "a", "b"), ("a==b", "a", "b"), ("a in (b)", "a", "b"), ("a in (b,c)", "a", None),
     ("a!=b", "a", None), ("c=d", "a", None)],
)
def test_requires_exact_match(s, label, want):
    assert parse_selector(s).requires_exact_match(label) == want


# --- TestLabelSelectorAsSelector (meta/v1 helpers_test.go) ------------------------------------------

_ML = {"foo": "bar"}
_ME = [{"key": "baz", "operator": "In", "values": ["qux", "norf"]}]


@pytest.mark.parametrize(
    "sel, want",
    [
        ({"matchLabels": _ML}, "foo=bar"),
        ({"matchExpressions": _ME}, "baz in (norf,qux)"),
        ({"matchLabels": _ML, "matchExpressions": _ME}, "baz in (norf,qux),foo=bar"),
    ],
)
def test_label_selector_as_selector(sel, want):
    got = LabelSelector.from_api(sel)
    assert str(got) == str(parse_selector(want)) == want
    # the lightkube model gives the same selector
    assert LabelSelector.from_api(LkLabelSelector.from_dict(sel)) == got


def test_label_selector_as_selector_nil_and_empty():
    assert LabelSelector.from_api(None).is_nothing()
    assert LabelSelector.from_api({}).is_empty()
    assert LabelSelector.from_api(LkLabelSelector()).is_empty()
    assert LabelSelector.from_api(LkLabelSelector(matchLabels={}, matchExpressions=[])).is_empty()


def test_label_selector_as_selector_does_not_mutate_input():
    lk = LkLabelSelector(matchExpressions=[LabelSelectorRequirement(key="b", operator="In", values=["z", "a"])])
    before = lk.to_dict()
    LabelSelector.from_api(lk)
    assert lk.to_dict() == before


@pytest.mark.parametrize(
    "sel, field, message",
    [
        ({"matchExpressions": [{"key": "baz", "operator": "Exists", "values": ["qux", "norf"]}]},
         "matchExpressions[0].values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        ({"matchExpressions": [{"key": "baz", "operator": "DoesNotExist", "values": ["x"]}]},
         "matchExpressions[0].values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}, {"key": "baz", "operator": "NotIn"}]},
         "matchExpressions[1].values", "Required value: must be specified when `operator` is 'In' or 'NotIn'"),
        ({"matchExpressions": [{"key": "baz", "operator": "Gt", "values": ["1"]}]},
         "matchExpressions[0].operator", 'Invalid value: "Gt": not a valid selector operator'),
        ({"matchExpressions": [{"key": "invalid key", "operator": "Exists"}]},
         "matchExpressions[0].key", f'Invalid value: "invalid key": {QNAME_NAME_PART_ERR}'),
        ({"matchLabels": {"app": "-web"}}, "matchLabels",
         "Invalid value: \"-web\": a valid label must be an empty string or consist of alphanumeric characters, '-', "
         "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
         "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    ],
)
def test_label_selector_validation_errors(sel, field, message):
    with pytest.raises(FieldError) as e:
        LabelSelector.from_api(sel)
    assert e.value.field == field
    assert e.value.message == message


def test_label_selector_error_path_prefix_and_all_errors():
    sel = {"matchExpressions": [{"key": "a", "operator": "In"}, {"key": "b", "operator": "Exists", "values": ["x"]}]}
    with pytest.raises(FieldError) as e:
        LabelSelector.from_api(sel, "spec.selector")
    assert e.value.field == "spec.selector.matchExpressions[0].values"
    assert [x.field for x in e.value.errors] == ["spec.selector.matchExpressions[0].values",
                                                  "spec.selector.matchExpressions[1].values"]


@pytest.mark.parametrize(
    "key, errs",
    [
        ("a/b/c", ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                   "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                   "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
                   "and '/' (e.g. 'example.com/MyName')"]),
        ("Example.com/x", ["prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                           "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                           "'example.com', regex used for validation is "
                           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
        ("x/", ["name part must be non-empty", QNAME_NAME_PART_ERR]),
        ("a" * 64, ["name part must be no more than 63 characters"]),
    ],
)
def test_is_qualified_name_messages(key, errs):
    assert S.is_qualified_name(key) == errs


# --- hypothesis: string form round trip -----------------------------------------------------------

_keys = st.sampled_from(["a", "b", "app", "x.y/z", "in", "notin", "k8s.io/zone", "tier-1"])
_values = st.sampled_from(["", "a", "b", "prod", "in", "notin", "v1.2", "x_y"])
_ints = st.integers(min_value=-5, max_value=5).map(str)


@st.composite
def _requirement(draw):
    op = draw(st.sampled_from([IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, EXISTS, DOES_NOT_EXIST,
                               GREATER_THAN, LESS_THAN]))
    key = draw(_keys)
    if op in (IN, NOT_IN):
        vals = draw(st.lists(_values, min_size=1, max_size=3))
    elif op in (EXISTS, DOES_NOT_EXIST):
        vals = []
    elif op in (GREATER_THAN, LESS_THAN):
        vals = [draw(st.integers(min_value=0, max_value=5).map(str))]  # "-1" is not a valid label value
    else:
        vals = [draw(_values)]
    return Requirement(key, op, vals)


_label_sets = st.dictionaries(_keys, st.one_of(_values, _ints), max_size=5)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(reqs=st.lists(_requirement(), max_size=4), label_sets=st.lists(_label_sets, min_size=1, max_size=8))
def test_string_round_trip_matches_same_label_sets(reqs, label_sets):
    sel = LabelSelector(reqs)
    again = parse_selector(str(sel))
    # Values are deduplicated by the parser, so the string is a fixpoint after one round.
    assert str(parse_selector(str(again))) == str(again)
    if all(len(set(r.values)) == len(r.values) for r in reqs):
        assert str(again) == str(sel)
    for labels in label_sets:
        assert again.matches(labels) == sel.matches(labels)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(sel=st.dictionaries(_keys, _values, max_size=4), labels=_label_sets)
def test_from_set_is_subset_check(sel, labels):
    assert LabelSelector.from_set(sel).matches(labels) == all(labels.get(k) == v for k, v in sel.items())


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(exprs=st.lists(st.tuples(_keys, st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]),
                                st.lists(_values, min_size=1, max_size=3)), max_size=3),
       labels=_label_sets)
def test_from_api_semantics(exprs, labels):
    api = {"matchExpressions": [
        {"key": k, "operator": op, "values": vals if op in ("In", "NotIn") else []} for k, op, vals in exprs]}
    want = True
    for k, op, vals in exprs:
        if op == "In":
            want &= k in labels and labels[k] in vals
        elif op == "NotIn":
            want &= k not in labels or labels[k] not in vals
        elif op == "Exists":
            want &= k in labels
        else:
            want &= k not in labels
    assert LabelSelector.from_api(api).matches(labels) == want


# --- nodeaffinity: TestNodeSelectorMatch -----------------------------------------------------------


def _node(name="", labels=None):
    md = {"name": name}
    if labels:
        md["labels"] = labels
    return Node.from_dict({"metadata": md})


def test_node_selector_nil_node():
    assert not NodeSelector.from_api({"nodeSelectorTerms": []}).matches(None)


def test_node_selector_invalid_field_and_label_selector():
    ns = {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1", "host_2"]}]},
        {"matchExpressions": [{"key": "label_1", "operator": "In", "values": ["label_1_val"]}],
         "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1"]}]},
        {"matchExpressions": [{"key": "invalid key", "operator": "In", "values": ["label_value"]}]},
    ]}
    with pytest.raises(FieldError) as e:
        NodeSelector.from_api(ns)
    assert [(x.field, x.message.split(": ", 2)[-1]) for x in e.value.errors] == [
        ("nodeSelectorTerms[0].matchFields[0].values", "must have one element"),
        ("nodeSelectorTerms[2].matchExpressions[0].key", QNAME_NAME_PART_ERR),
    ]
    assert str(e.value) == ('nodeSelectorTerms[0].matchFields[0].values: '
                            'Invalid value: []string{"host_1", "host_2"}: must have one element')


@pytest.mark.parametrize(
    "terms, node, want",
    [
        ([{"matchExpressions": [{"key": "label_1", "operator": "In", "values": ["label_1_val"]}],
           "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1"]}]}],
         _node("host_1"), False),  # matches field selector, but not labels
        ([{"matchExpressions": [{"key": "label_1", "operator": "In", "values": ["label_1_val"]}],
           "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1"]}]}],
         _node("host_1", {"label_1": "label_1_val"}), True),
        ([{"matchExpressions": [{"key": "label_1", "operator": "In", "values": ["label_1_val"]}]},
          {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1"]}]}],
         _node("host_1"), True),  # second term matches
    ],
)
def test_node_selector_match(terms, node, want):
    assert NodeSelector.from_api({"nodeSelectorTerms": terms}).matches(node) is want


def test_node_selector_unsupported_operators():
    with pytest.raises(FieldError) as e:
        NodeSelector.from_api({"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Like"}]}]})
    assert str(e.value) == ('nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Like": '
                            'supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"')
    with pytest.raises(FieldError) as e:
        NodeSelector.from_api({"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}]})
    assert str(e.value) == ('nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: "Exists": '
                            'supported values: "In", "NotIn"')


def test_node_selector_lazy_keeps_good_terms():
    ns = NodeSelector.from_api({"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
        {"matchExpressions": [{"key": "b", "operator": "Exists"}]}]}, lazy=True)
    assert [e.field for e in ns.parse_errors] == ["nodeSelectorTerms[0].matchExpressions[0].values"]
    assert ns.matches(_node("n", {"b": "1"}))
    assert not ns.matches(_node("n", {"a": "1"}))


# --- TestPreferredSchedulingTermsScore --------------------------------------------------------------


def test_preferred_terms_invalid():
    terms = [
        {"weight": 1, "preference": {"matchFields": [{"key": "metadata.name", "operator": "In",
                                                      "values": ["host_1", "host_2"]}]}},
        {"weight": 1, "preference": {
            "matchExpressions": [{"key": "label_1", "operator": "In", "values": ["label_1_val"]}],
            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1"]}]}},
        {"weight": 1, "preference": {"matchExpressions": [{"key": "invalid key", "operator": "In",
                                                           "values": ["label_value"]}]}},
    ]
    with pytest.raises(FieldError) as e:
        PreferredSchedulingTerms.from_api(terms)
    assert [x.field for x in e.value.errors] == ["[0].matchFields[0].values", "[2].matchExpressions[0].key"]


def test_preferred_terms_zero_weight_error_not_reported():
    terms = [{"weight": 0, "preference": {"matchFields": [{"key": "metadata.name", "operator": "In",
                                                           "values": ["host_1", "host_2"]}]}}]
    assert PreferredSchedulingTerms.from_api(terms).score(_node("host_1")) == 0


def test_preferred_terms_first_and_third_match():
    terms = [
        {"weight": 5, "preference": {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1"]}]}},
        {"weight": 7, "preference": {"matchExpressions": [{"key": "unknown_label", "operator": "In",
                                                           "values": ["unknown_label_val"]}]}},
        {"weight": 11, "preference": {"matchExpressions": [{"key": "label_1", "operator": "In",
                                                            "values": ["label_1_val"]}]}},
    ]
    assert PreferredSchedulingTerms.from_api(terms).score(_node("host_1", {"label_1": "label_1_val"})) == 16


def test_preferred_terms_skip_empty_preference():
    assert len(PreferredSchedulingTerms.from_api([{"weight": 3, "preference": {}}])) == 0


# --- TestNodeSelectorRequirementsAsSelector ---------------------------------------------------------


@pytest.mark.parametrize(
    "exprs, want",
    [
        ([{"key": "foo", "operator": "In", "values": ["bar", "baz"]}], "foo in (bar,baz)"),
        ([{"key": "foo", "operator": "Gt", "values": ["1"]}], "foo>1"),
        ([{"key": "bar", "operator": "Lt", "values": ["7"]}], "bar<7"),
    ],
)
def test_node_selector_requirements_as_selector(exprs, want):
    term = S._NodeSelectorTerm({"matchExpressions": exprs}, "root")
    assert not term.parse_errors and str(term.labels) == want


def test_node_selector_requirements_exists_with_values():
    term = S._NodeSelectorTerm({"matchExpressions": [{"key": "foo", "operator": "Exists", "values": ["bar", "baz"]}]},
                               "root")
    assert [(e.field, e.message) for e in term.parse_errors] == [
        ("root.matchExpressions[0].values",
         'Invalid value: []string{"bar", "baz"}: values set must be empty for exists and does not exist')]


# --- TestPodMatchesNodeSelectorAndAffinityTerms -----------------------------------------------------


def _pod(node_selector=None, required=None, affinity=None):
    spec = {"containers": [{"name": "c"}]}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if affinity is not None:
        spec["affinity"] = affinity
    elif required is not None:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}
    return Pod.from_dict({"metadata": {"name": "p"}, "spec": spec})


def _terms(*terms):
    return {"nodeSelectorTerms": list(terms)}


def _expr(key, op, *values):
    d = {"key": key, "operator": op}
    if values:
        d["values"] = list(values)
    return d


@pytest.mark.parametrize(
    "pod, labels, node_name, want",
    [
        (_pod(), None, "", True),  # no selector
        (_pod({"foo": "bar"}), None, "", False),  # missing labels
        (_pod({"foo": "bar"}), {"foo": "bar"}, "", True),  # same labels
        (_pod({"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "", True),  # node labels are superset
        (_pod({"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "", False),  # node labels are subset
        (_pod(required=_terms({"matchExpressions": [_expr("foo", "In", "bar", "value2")]})), {"foo": "bar"}, "", True),
        (_pod(required=_terms({"matchExpressions": [_expr("kernel-version", "Gt", "0204")]})),
         {"kernel-version": "0206"}, "", True),
        (_pod(required=_terms({"matchExpressions": [_expr("mem-type", "NotIn", "DDR", "DDR2")]})),
         {"mem-type": "DDR3"}, "", True),
        (_pod(required=_terms({"matchExpressions": [_expr("GPU", "Exists")]})), {"GPU": "NVIDIA-GRID-K1"}, "", True),
        (_pod(required=_terms({"matchExpressions": [_expr("foo", "In", "value1", "value2")]})),
         {"foo": "bar"}, "", False),
        (_pod(required={"nodeSelectorTerms": []}), {"foo": "bar"}, "", False),  # empty terms
        (_pod(required=_terms({"matchExpressions": []})), {"foo": "bar"}, "", False),  # empty term
        (_pod(), {"foo": "bar"}, "", True),  # no affinity
        (_pod(affinity={"nodeAffinity": {}}), {"foo": "bar"}, "", True),  # affinity but nil NodeSelector
        (_pod(required=_terms({"matchExpressions": [_expr("GPU", "Exists"), _expr("GPU", "NotIn", "AMD", "INTER")]})),
         {"GPU": "NVIDIA-GRID-K1"}, "", True),
        (_pod(required=_terms({"matchExpressions": [_expr("GPU", "Exists"), _expr("GPU", "In", "AMD", "INTER")]})),
         {"GPU": "NVIDIA-GRID-K1"}, "", False),
        (_pod(required=_terms({"matchExpressions": [_expr("foo", "In", "bar", "value2")]},
                              {"matchExpressions": [_expr("diffkey", "In", "wrong", "value2")]})),
         {"foo": "bar"}, "", True),  # terms ORed
        (_pod({"foo": "bar"}, required=_terms({"matchExpressions": [_expr("foo", "Exists")]})),
         {"foo": "bar"}, "", True),
        (_pod({"foo": "bar"}, required=_terms({"matchExpressions": [_expr("foo", "Exists")]})),
         {"foo": "barrrrrr"}, "", False),
        (_pod(required=_terms({"matchExpressions": [_expr("foo", "NotIn", "invalid value: ___@#$%^")]})),
         {"foo": "bar"}, "", False),  # invalid value: the term never matches
        (_pod(required=_terms({"matchFields": [_expr("metadata.name", "In", "node_1")]})), None, "node_1", True),
        (_pod(required=_terms({"matchFields": [_expr("metadata.name", "In", "node_1")]})), None, "node_2", False),
        (_pod(required=_terms({"matchFields": [_expr("metadata.name", "In", "node_1")]},
                              {"matchExpressions": [_expr("foo", "In", "bar")]})), {"foo": "bar"}, "node_2", True),
        (_pod(required=_terms({"matchFields": [_expr("metadata.name", "In", "node_1")],
                               "matchExpressions": [_expr("foo", "In", "bar")]})), {"foo": "bar"}, "node_2", False),
        (_pod(required=_terms({"matchFields": [_expr("metadata.name", "In", "node_1")],
                               "matchExpressions": [_expr("foo", "In", "bar")]})), {"foo": "bar"}, "node_1", True),
        (_pod(required=_terms({"matchFields": [_expr("metadata.name", "In", "node_1")]},
                              {"matchExpressions": [_expr("foo", "In", "not-match-to-bar")]})),
         {"foo": "bar"}, "node_2", False),
    ],
)
def test_pod_matches_node_selector_and_affinity_terms(pod, labels, node_name, want):
    assert RequiredNodeAffinity.from_pod(pod).match(_node(node_name, labels)) is want


def test_required_node_affinity_records_parse_errors():
    pod = _pod(required=_terms({"matchExpressions": [_expr("foo", "NotIn", "invalid value: ___@#$%^")]}))
    errs = RequiredNodeAffinity.from_pod(pod).parse_errors
    assert [e.field for e in errs] == ["nodeSelectorTerms[0].matchExpressions[0].values[0][foo]"]


# --- TestMatchNodeSelectorTerms (component-helpers helpers_test.go) ---------------------------------


@pytest.mark.parametrize(
    "terms, node, want",
    [
        ([{"matchExpressions": [_expr("label_1", "In", "label_1_val")]}], _node("", {"label_1": "label_1_val"}), True),
        ([{"matchFields": [_expr("metadata.name", "In", "host_1")]}], _node("host_1"), True),
        ([{"matchFields": [_expr("metadata.name", "In", "host_1", "host_2")]}], _node("host_1"), False),
        ([{"matchFields": [_expr("metadata.name", "In", "host_1")]}],
         _node("not_host_1", {"metadata.name": "host_1"}), False),  # field selector term with node labels
        ([{"matchExpressions": [_expr("metadata.name", "In", "host_1")]}], _node("host_1"), False),
        ([{"matchExpressions": [_expr("label_1", "In", "label_1_val")],
           "matchFields": [_expr("metadata.name", "In", "host_1")]}], _node("host_1"), False),
        ([{"matchExpressions": [_expr("label_1", "In", "label_1_val")],
           "matchFields": [_expr("metadata.name", "In", "host_1")]}], _node("host_1", {"label_1": "label_1_val"}), True),
        ([{"matchExpressions": [_expr("label_1", "In", "label_1_val")],
           "matchFields": [_expr("metadata.name", "In", "host_1")]}],
         _node("host_1", {"label_1": "label_1_val-failed"}), False),
        ([{"matchExpressions": [_expr("label_1", "In", "label_1_val")]},
          {"matchFields": [_expr("metadata.name", "In", "host_1")]}],
         _node("host_1", {"label_1": "label_1_val-failed"}), True),
    ],
)
def test_match_node_selector_terms(terms, node, want):
    assert NodeSelector.from_api({"nodeSelectorTerms": terms}, lazy=True).matches(node) is want


def test_match_fields_not_in_and_unnamed_node():
    ns = NodeSelector.from_api(_terms({"matchFields": [_expr("metadata.name", "NotIn", "host_1")]}))
    assert ns.matches(_node("host_2")) and not ns.matches(_node("host_1"))
    # A node without a name has no fields, so matchFields are not checked (upstream's len(nodeFields) > 0).
    assert NodeSelector.from_api(_terms({"matchFields": [_expr("metadata.name", "In", "host_1")]})).matches(_node(""))


def test_node_selector_does_not_mutate_input():
    ns = NodeSelector.from_api(_terms({"matchExpressions": [_expr("label_1", "In", "label_2_val", "label_1_val")]}))
    assert ns.matches(_node("", {"label_1": "label_1_val"}))
    raw = _terms({"matchFields": [_expr("metadata.name", "In", "host_2", "host_1")]})
    NodeSelector.from_api(raw, lazy=True)
    assert raw == _terms({"matchFields": [_expr("metadata.name", "In", "host_2", "host_1")]})


# --- added affinity (NodeAffinityArgs.addedAffinity) ------------------------------------------------


def test_required_node_affinity_with_added_affinity():
    added = {"requiredDuringSchedulingIgnoredDuringExecution": _terms(
        {"matchExpressions": [_expr("zone", "In", "foo")]})}
    rna = RequiredNodeAffinity.from_pod(_pod({"disk": "ssd"}), added_affinity=added)
    assert rna.match(_node("n", {"zone": "foo", "disk": "ssd"}))
    assert not rna.match(_node("n", {"zone": "bar", "disk": "ssd"}))
    assert not rna.match_added(_node("n", {"zone": "bar"})) and rna.match_pod(_node("n", {"disk": "ssd"}))
    with pytest.raises(FieldError) as e:
        RequiredNodeAffinity.from_pod(_pod(), added_affinity={"requiredDuringSchedulingIgnoredDuringExecution": _terms(
            {"matchFields": [_expr("metadata.name", "In", "a", "b")]})})
    assert e.value.field.startswith("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]")


def test_requirement_hash_is_rebuilt_in_another_process():
    """A pickled Requirement hashes as a fresh one where it is loaded (string hashes differ per process)."""
    import os
    import pickle
    import subprocess
    import sys

    r = Requirement("app", "in", ["web", "db"])
    assert hash(r) == hash(Requirement("app", "in", ["web", "db"])) and r == pickle.loads(pickle.dumps(r))
    code = ("import pickle, sys; from kubenotes.api.selectors import Requirement; "
            "r = pickle.loads(sys.stdin.buffer.read()); "
            "print(hash(r) == hash(Requirement('app', 'in', ['web', 'db'])), r.matches({'app': 'db'}))")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(r), capture_output=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert out.stdout.split() == [b"True", b"True"]
