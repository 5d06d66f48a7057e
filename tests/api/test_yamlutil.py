"""YAML read as kubectl reads it: each go-yaml v2 / sigs.k8s.io/yaml quirk, with the values kubectl 1.33 sends.

Every expected value below was read from ``kubectl create --dry-run=client -o json -f FILE`` (and the request
body ``-v=9`` shows) for the same text; errors carry kubectl's problem text.
"""

from __future__ import annotations

import pytest

from kubenotes.api.manifests import load_manifests
from kubenotes.api.yamlutil import YAMLError, load, load_documents, split_documents
from kubenotes.errors import ManifestError


def data(block: str) -> dict:
    """The ``data`` map of a ConfigMap whose data lines are ``block`` (two-space indented)."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: q}\ndata:\n" + block
    (_, doc), = list(load_documents(text))
    return doc["data"]


def test_yaml_1_1_booleans_include_y_and_n():
    assert data("  a: y\n  b: n\n  c: Y\n  d: yes\n  e: On\n  f: OFF\n  g: True\n  h: NO\n") == {
        "a": True, "b": False, "c": True, "d": True, "e": True, "f": False, "g": True, "h": False}


def test_integers_as_go_parses_them():
    got = data("  a: 0o17\n  b: 017\n  c: 08\n  d: 0x1F\n  e: 0X1F\n  f: 1_000\n  g: 1:20\n  h: 0b101\n"
               "  i: 1e3\n  j: 1.0\n  o: 09.5\n  p: -0\n  q: +12\n  r: .5\n")
    assert got == {"a": 15, "b": 15, "c": 8, "d": 31, "e": 31, "f": 1000, "g": "1:20", "h": 5, "i": 1000, "j": 1,
                   "o": 9.5, "p": 0, "q": 12, "r": 0.5}
    assert all(type(got[k]) is int for k in "abcdefhijpq")


def test_large_numbers_reach_the_server_as_json_numbers_do():
    got = data("  a: 9223372036854775807\n  b: 9223372036854775808\n  c: 18446744073709551616\n  e: 1e21\n"
               "  f: 1.0e20\n  h: -9223372036854775809\n  i: 3.0\n  j: 2.50\n")
    assert got["a"] == 9223372036854775807 and type(got["a"]) is int
    assert got["b"] == 9.223372036854776e18 and type(got["b"]) is float
    assert got["c"] == 1.8446744073709552e19 and got["e"] == 1e21 and got["f"] == 1e20
    assert got["h"] == -9.223372036854776e18 and type(got["h"]) is float
    assert (got["i"], type(got["i"]), got["j"]) == (3, int, 2.5)


def test_timestamps_and_equals_stay_strings():
    assert data("  a: =\n  b: 2024-01-01\n  c: 2024-01-01T10:00:00Z\n") == {
        "a": "=", "b": "2024-01-01", "c": "2024-01-01T10:00:00Z"}


def test_keys_become_strings_and_the_last_duplicate_wins():
    assert data("  1: a\n  y: b\n  true: c\n  1.5: d\n  0x10: g\n  2.0: h\n  1e3: i\n  on: j\n") == {
        "1": "a", "1.5": "d", "16": "g", "2": "h", "1000": "i", "true": "j"}
    assert data('  a: "1"\n  a: "2"\n') == {"a": "2"}
    # float keys as strconv.FormatFloat(k, 'g', -1, 32) writes them
    assert data("  1000000.5: a\n  0.00001: b\n  1.0e+7: c\n  123456.7: d\n  0.1: e\n  -2.5e-5: f\n") == {
        "1.0000005e+06": "a", "1e-05": "b", "1e+07": "c", "123456.7": "d", "0.1": "e", "-2.5e-05": "f"}


def test_a_null_key_is_refused_with_sigs_yaml_text():
    with pytest.raises(YAMLError) as ei:
        data("  null: e\n  ~: f\n")
    assert str(ei.value) == ('error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, '
                             'value: "f"')


def test_infinity_cannot_be_sent_as_json():
    with pytest.raises(YAMLError, match=r"^error converting YAML to JSON: json: unsupported value: \+Inf$"):
        data("  f: .inf\n")


def test_escapes_are_yaml_1_1s():
    assert data('  a: "\\x41\\u00e9\\U0001F600"\n  c: "\\N\\_\\L\\P"\n  d: "\\e\\0\\a\\v\\f\\b"\n'
                '  e: "tab\\there\\\tx"\n  f: "line1\n    line2"\n  g: "a\\\n    b"\n') == {
        "a": "A\u00e9\U0001F600", "c": "\u0085\u00a0\u2028\u2029", "d": "\x1b\x00\x07\x0b\x0c\x08",
        "e": "tab\there\tx", "f": "line1 line2", "g": "ab"}
    with pytest.raises(YAMLError, match="^yaml: line 6, column 7: found unknown escape character$"):
        data('  a: "ok"\n  b: "\\/"\n')


def test_merge_keys_as_go_yaml_v2_merges_them():
    got = data('  base: &b {x: "1", z: "9"}\n  m: {x: "0", <<: *b, z: "2"}\n  s: &s2 {w: "3"}\n'
               '  n:\n    <<: [*b, *s2, {x: "7"}]\n')
    assert got["m"] == {"x": "1", "z": "2"}  # the merge overwrites x written before it; z after it wins
    assert got["false"] == {"x": "1", "w": "3", "z": "9"}  # the key n is the boolean false


def test_tags():
    assert data('  a: !!str 1\n  b: !!binary aGVsbG8=\n  c: !!int "7"\n  t: !Ref "x"\n  u: !custom 12\n'
                '  v: !!str 0x10\n') == {"a": "1", "b": "hello", "c": 7, "t": "x", "u": "12", "v": "0x10"}


def test_unknown_anchor_and_tabs():
    with pytest.raises(YAMLError, match="unknown anchor 'nope' referenced"):
        data("  a: *nope\n")
    with pytest.raises(YAMLError, match="^yaml: line 5, column 1: found character that cannot start any token$"):
        data("\ta: 1\n")


def test_document_separators_as_yamlreader_reads_them():
    two = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: q1}\n"
    assert [d["metadata"]["name"] for _, d in load_documents(two + "--- # c\n" + two.replace("q1", "q2"))] == [
        "q1", "q2"]
    assert [d["metadata"]["name"] for _, d in load_documents(two + "...\n" + two.replace("q1", "q2"))] == ["q1"]
    assert [n for n, d in load_documents("---\n---\n" + two + "---\n# only comment\n---\n") if d] == [2]
    for bad, rest in (("--- {a: 1}", "{a: 1}"), ("----", "-")):
        with pytest.raises(YAMLError, match=f"^invalid Yaml document separator: {rest}$"):
            list(split_documents(two + bad + "\n" + two))


def test_manifests_read_yaml_as_kubectl():
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {on: \"x\"}}\n"
            "spec: {containers: [{name: c, image: nginx}], priority: 5.0}\n")
    pod = load_manifests(text, defaults=False).pods[0]
    assert pod.metadata.labels == {"true": "x"} and pod.spec.priority == 5
    with pytest.raises(ManifestError, match=r"^<string> doc 1 Node: metadata.name: expected str, got bool false$"):
        load_manifests("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n", defaults=False)  # the Norway problem


def test_load_reads_only_the_first_document():
    assert load("a: 1\n---\nb: 2\n") == {"a": 1}
