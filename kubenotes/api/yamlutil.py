"""YAML read as kubectl reads it: documents split by ``---`` lines, then each turned into JSON as ``sigs.k8s.io/yaml`` does.

kubectl never hands YAML to the API server. Its resource builder splits a file
into documents at lines that start with ``---`` (``k8s.io/apimachinery``'s
``YAMLReader``), converts each document to JSON with ``sigs.k8s.io/yaml``
(go-yaml v2 underneath, a YAML 1.1 reading) and sends the JSON. Every place in
kubenotes that reads Kubernetes YAML (manifests, kubectl's ``apply -f``,
static pod files, component configuration, YAML request bodies) reads it here,
so that a file kubectl accepts is accepted, with the same values:

- plain scalars resolve as go-yaml v2 resolves them: ``y``/``Y``/``yes``/``on``...
  and ``n``/``N``/``no``/``off``... are booleans; integers are Go's
  ``strconv.ParseInt(s, 0, 64)`` with every ``_`` removed (``0x1F``, ``0o17``,
  ``017`` octal, ``0b101``, ``1_000``), then ``ParseUint``, then floats of the form
  ``1e3``, ``.5``, ``08``; ``1:20`` (YAML 1.1 base 60) stays a string; timestamps
  (``2024-01-01``) stay strings; ``=`` is a string;
- the JSON conversion: a float with an integral value below 1e21 is written as an
  integer (``replicas: 1.0`` is ``1``), an integer beyond int64 reaches the server
  as a float, ``.inf`` and ``.nan`` are refused (``json: unsupported value: +Inf``);
- map keys become strings: ``1`` -> ``"1"``, ``y``/``on``/``true`` -> ``"true"``,
  ``2.0`` -> ``"2"``; a null key is refused (``unsupported map key of type``);
- a key given twice keeps its last value (go-yaml v2 without strict mode: kubectl
  sends only the last), also when two spellings resolve to one key (``y`` and ``on``);
- merge keys (``<<: *base``) merge as go-yaml v2 merges them: the merged map's
  values win over keys written before the ``<<`` line, keys after it win over them;
- tags: ``!!binary`` is decoded to a string, ``!!int "7"`` is 7, ``!!str 0x10`` is
  ``"0x10"``; a scalar with an unknown tag (``!Ref x``, ``!custom 12``) is its text,
  a string; a map or list with one is read as if untagged;
- double-quoted escapes are YAML 1.1's: ``\\/`` is refused (``found unknown escape character``);
- documents: a line starting with ``---`` ends a document; anything but spaces or
  a comment after it is refused (``invalid Yaml document separator: {a: 1}``);
  of each document only the first YAML document is read (text after a ``...`` line
  is ignored); empty documents and documents that are only comments are skipped.

Errors are :class:`YAMLError`, ``yaml: line L, column C: problem`` with the
file's line numbers and go-yaml's problem texts (it is a port of libyaml, which
PyYAML's C parser is: the syntax errors are word for word the same).

Notes
-----
kubectl reports go-yaml's line number within the document and no column
(``yaml: line 6: found unknown escape character``); kubenotes gives the line in
the file and the column. kubectl's own ``kustomize`` (``-k``) reads YAML with
go-yaml v3, which refuses duplicate keys (``mapping key "a" already defined``);
``-f``, modelled here, does not. A JSON file is read by :mod:`json`, not here.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLReader, YAMLOrJSONDecoder)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go (StreamVisitor: empty documents skipped)
sigs.k8s.io/yaml yaml.go (YAMLToJSON, convertToJSONableObject)
go.yaml.in/yaml/v2 resolve.go, decode.go (resolve, merge, duplicate keys)
"""

from __future__ import annotations

import base64
import math
import re
from decimal import Decimal
from typing import Any, Iterator

import yaml

from kubenotes.errors import KubenotesError

__all__ = ["YAMLError", "split_documents", "yaml_to_json", "load_documents", "load"]

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_PLAIN = "!kubenotes/plain"  # a plain scalar, resolved below as go-yaml resolves it
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"

_BOOLS = {**{s: True for s in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")},
          **{s: False for s in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")}}
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_SPECIAL_FLOATS = {**{s: math.nan for s in (".nan", ".NaN", ".NAN")},
                   **{s: math.inf for s in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
                   **{s: -math.inf for s in ("-.inf", "-.Inf", "-.INF")}}
#: go-yaml's ``yamlStyleFloat``.
_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_GO_INT = re.compile(r"^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$")
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UINT64_MAX = (1 << 64) - 1


class YAMLError(KubenotesError, ValueError):
    """A document kubectl cannot read: ``yaml: line L, column C: problem`` (or a conversion error).

    Attributes
    ----------
    problem : str
        go-yaml's (or sigs.k8s.io/yaml's) text: ``found character that cannot start any token``...
    line, column : int or None
        1-based position in the whole text, when known.
    """

    def __init__(self, problem: str, line: int | None = None, column: int | None = None):
        self.problem, self.line, self.column = problem, line, column
        where = f"line {line}, column {column}: " if line is not None and column is not None else (
            f"line {line}: " if line is not None else "")
        prefix = "yaml: " if line is not None else ""
        super().__init__(f"{prefix}{where}{problem}")


def _parse_go_int(s: str) -> int | None:
    """``strconv.ParseInt``/``ParseUint`` with base 0 on a string without underscores; None when not an integer."""
    if not _GO_INT.match(s):
        return None
    sign = -1 if s[0] == "-" else 1
    body = s.lstrip("+-")
    low = body[:2].lower()
    if low == "0x":
        v = int(body[2:], 16)
    elif low == "0o":
        v = int(body[2:], 8)
    elif low == "0b":
        v = int(body[2:], 2)
    elif len(body) > 1 and body[0] == "0":
        v = int(body[1:], 8)
    else:
        v = int(body)
    v *= sign
    if _INT64[0] <= v <= _INT64[1] or 0 <= v <= _UINT64_MAX:
        return v
    return None


def resolve_plain(value: str) -> Any:
    """The value go-yaml v2 gives an untagged plain scalar (before the JSON conversion).

    Examples
    --------
    >>> [resolve_plain(s) for s in ("y", "off", "0o17", "017", "08", "1_000", "1:20", "1e3", "=", "~")]
    [True, False, 15, 15, 8.0, 1000, '1:20', 1000.0, '=', None]
    """
    if value in _NULLS:
        return None
    if value in _BOOLS:
        return _BOOLS[value]
    if value in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[value]
    head = value[0]
    if head == ".":
        try:
            return float(value) if _YAML_STYLE_FLOAT.match(value) else value
        except ValueError:
            return value
    if head in "+-0123456789":
        plain = value.replace("_", "")
        iv = _parse_go_int(plain) if plain else None
        if iv is not None:
            return iv
        if _YAML_STYLE_FLOAT.match(plain):
            return float(plain)
        if plain.startswith(("0b", "-0b")):
            try:
                return int(plain.replace("0b", "", 1), 2)
            except ValueError:
                return value
    return value


class _Loader(_Base):  # type: ignore[misc, valid-type]
    """PyYAML's parser with go-yaml's scalar resolution and no implicit types of its own."""

    text = ""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0]:
                return _MERGE if value == "<<" else _PLAIN
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    def construct_plain(self, node: Any) -> Any:
        v = resolve_plain(node.value)
        return _json_number(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    def construct_json_int(self, node: Any) -> Any:
        return _json_number(self.construct_yaml_int(node))

    def construct_json_float(self, node: Any) -> Any:
        return _json_number(self.construct_yaml_float(node))

    def construct_go_str(self, node: Any) -> str:
        if node.style == '"':
            _check_escapes(self.text, node)
        return node.value

    def construct_binary(self, node: Any) -> str:
        try:
            return base64.b64decode("".join(node.value.split())).decode("utf-8", errors="replace")
        except ValueError as e:
            raise yaml.constructor.ConstructorError(None, None, f"!!binary value contains invalid base64 data: {e}",
                                                    node.start_mark) from None

    def construct_unknown(self, suffix: str, node: Any) -> Any:
        """An unknown tag: go-yaml keeps a scalar's text as a string, and reads maps and lists as untagged."""
        if isinstance(node, yaml.ScalarNode):
            return node.value
        if isinstance(node, yaml.SequenceNode):
            return self.construct_sequence(node, deep=True)
        return self.construct_go_mapping(node)

    def construct_go_mapping(self, node: Any) -> dict:
        """go-yaml v2's ``mapping``: keys in order, the last of duplicates wins, merges overwrite what came before."""
        out: dict = {}
        unsupported = None
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                self._merge(value_node, out)
                continue
            if key_node.tag == _PLAIN:  # the key as go-yaml resolves it, before any JSON conversion
                key = resolve_plain(key_node.value)
            else:
                key = self.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise yaml.constructor.ConstructorError(None, None, "invalid map key: " + _go_value(key),
                                                        key_node.start_mark)
            value = self.construct_object(value_node, deep=True)
            if key is None or (isinstance(key, int) and not _INT64[0] <= key <= _INT64[1]):
                unsupported = (key, value)  # refused once the map is built (the last such key's value)
                continue
            k = _key_string(key, value)
            out.pop(k, None)  # the last of duplicates wins, in its place (Go maps keep no order anyway)
            out[k] = value
        if unsupported is not None:
            _key_string(*unsupported)
        return out

    def _merge(self, node: Any, out: dict) -> None:
        if isinstance(node, yaml.MappingNode):
            out.update(self.construct_go_mapping(node))
        elif isinstance(node, yaml.SequenceNode):
            for sub in reversed(node.value):  # go-yaml merges the last map first: earlier maps win
                if not isinstance(sub, yaml.MappingNode):
                    raise yaml.constructor.ConstructorError(None, None, "map merge requires map or sequence of maps "
                                                            "as the value", node.start_mark)
                out.update(self.construct_go_mapping(sub))
        else:
            raise yaml.constructor.ConstructorError(None, None, "map merge requires map or sequence of maps as the value",
                                                    node.start_mark)


_Loader.yaml_constructors = dict(_Base.yaml_constructors)
_Loader.yaml_multi_constructors = dict(_Base.yaml_multi_constructors)
_Loader.add_constructor(_PLAIN, _Loader.construct_plain)
_Loader.add_constructor(_STR, _Loader.construct_go_str)
_Loader.add_constructor(_MAP, _Loader.construct_go_mapping)
_Loader.add_constructor("tag:yaml.org,2002:binary", _Loader.construct_binary)
_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_json_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_json_float)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: node.value)  # kept as the text
_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: node.value)
_Loader.add_multi_constructor("!", _Loader.construct_unknown)
_Loader.add_multi_constructor("tag:", _Loader.construct_unknown)


def _check_escapes(text: str, node: Any) -> None:
    """go-yaml (YAML 1.1) has no ``\\/`` escape, which libyaml 0.2 (YAML 1.2) reads as ``/``."""
    start, end = node.start_mark.index, node.end_mark.index
    raw = text[start:end] if 0 <= start < end <= len(text) else ""
    i = raw.find("\\")
    while i != -1:
        if raw[i + 1:i + 2] == "/":
            mark = node.start_mark
            before = raw[:i]
            line = mark.line + before.count("\n")
            column = (i - before.rfind("\n") - 1) if "\n" in before else mark.column + i
            raise yaml.scanner.ScannerError("while parsing a quoted scalar", mark, "found unknown escape character",
                                            yaml.Mark("", 0, line, column, None, None))
        i = raw.find("\\", i + 2)


def _go_value(v: Any) -> str:
    """A value as Go's ``%+#v`` shows it in sigs.k8s.io/yaml's key error (near enough for one line)."""
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, dict):
        return "map[interface {}]interface {}{" + ", ".join(f"{_go_value(k)}:{_go_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[]interface {}{" + ", ".join(_go_value(x) for x in v) + "}"
    return repr(v)


def _go_float_key(f: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 32)``, as sigs.k8s.io/yaml writes a float map key."""
    if math.isnan(f):
        return ".nan"
    if math.isinf(f):
        return ".inf" if f > 0 else "-.inf"
    import numpy as np

    sci = np.format_float_scientific(np.float32(f), unique=True, trim="-")  # shortest float32 digits: "1.5e+00"
    mant, exp = sci.split("e")
    exp_i = int(exp)
    digits = mant.replace("-", "").replace(".", "")
    sign = "-" if mant.startswith("-") else ""
    if exp_i < -4 or exp_i >= 6:  # 'g' with the shortest digits decides with precision 6
        tail = digits[1:]
        return f"{sign}{digits[0]}{'.' + tail if tail else ''}e{'-' if exp_i < 0 else '+'}{abs(exp_i):02d}"
    if exp_i >= 0:
        whole = digits[:exp_i + 1].ljust(exp_i + 1, "0")
        frac = digits[exp_i + 1:]
        return f"{sign}{whole}{'.' + frac if frac else ''}"
    return f"{sign}0.{'0' * (-exp_i - 1)}{digits}"


def _key_string(k: Any, value: Any) -> str:
    """sigs.k8s.io/yaml's ``convertToJSONableObject`` for a map key: every key becomes a string."""
    if isinstance(k, str):
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, int) and _INT64[0] <= k <= _INT64[1]:
        return str(k)
    if isinstance(k, float):
        return _go_float_key(k)
    kind = "%!s(<nil>)" if k is None else ("uint64" if isinstance(k, int) else type(k).__name__)
    raise YAMLError(f"error converting YAML to JSON: unsupported map key of type: {kind}, "
                    f"key: {_go_value(k)}, value: {_go_value(value)}")


def _json_number(v: int | float) -> int | float:
    """A number as the API server reads it from the JSON kubectl sends (go-yaml's value through Go's encoder)."""
    if isinstance(v, int):
        return v if _INT64[0] <= v <= _INT64[1] else float(v)  # beyond int64 the server's decoder reads a float
    if math.isnan(v) or math.isinf(v):
        raise YAMLError("error converting YAML to JSON: json: unsupported value: "
                        + ("NaN" if math.isnan(v) else "+Inf" if v > 0 else "-Inf"))
    if v.is_integer() and abs(v) < 1e21:
        # Go's encoder writes the shortest digits without an exponent (3.0 as 3, -2**63 as
        # -9223372036854776000), which the server decodes as an integer when it fits int64
        text = int(Decimal(repr(v)))
        if _INT64[0] <= text <= _INT64[1]:
            return text
    return v


def split_documents(text: str) -> Iterator[tuple[int, int, str]]:
    """``YAMLReader.Read``: the documents of a text, each as ``(document number, 0-based first line, text)``.

    A line that starts with ``---`` ends the document before it (when that one
    is not empty; otherwise it is kept as the new document's first line, so
    ``---`` twice in a row gives one document to read, as kubectl reads it). The
    number counts documents as YAML does: each ``---`` line after the first
    content starts one, also when it stays empty.

    Parameters
    ----------
    text : str

    Yields
    ------
    (int, int, str)

    Raises
    ------
    YAMLError
        ``invalid Yaml document separator: <rest of the line>`` when a ``---``
        line has more than spaces or a comment after it (``----`` included).

    Examples
    --------
    >>> list(split_documents("a: 1\\n--- # two\\nb: 2\\n"))
    [(1, 0, 'a: 1\\n'), (2, 2, 'b: 2\\n')]
    >>> list(split_documents("a: 1\\n--- {b: 2}\\n"))
    Traceback (most recent call last):
    ...
    kubenotes.api.yamlutil.YAMLError: invalid Yaml document separator: {b: 2}
    """
    buf: list[str] = []
    start = 0
    doc = 1  # YAML's count: the first document, then one more per separator after content
    seen_content = False
    buf_doc = 1
    for i, line in enumerate(text.splitlines(keepends=True)):
        if line.startswith("---"):
            rest = line[3:].strip()
            if rest and not rest.startswith("#"):
                err = YAMLError(f"invalid Yaml document separator: {rest}")
                err.doc = doc + 1 if seen_content else doc  # type: ignore[attr-defined]
                raise err
            if seen_content:
                doc += 1
            seen_content = True
            if buf:
                yield buf_doc, start, "".join(buf)
                buf = []
                start = i + 1
                continue
        elif line.strip() and not line.lstrip().startswith("#"):
            seen_content = True
        if not buf:
            start, buf_doc = i, doc
        buf.append(line)
    if buf:
        yield buf_doc, start, "".join(buf)


def yaml_to_json(text: str, first_line: int = 0) -> Any:
    """One document's value as kubectl sends it (sigs.k8s.io/yaml ``YAMLToJSON``, then JSON's numbers).

    Parameters
    ----------
    text : str
        One document (:func:`split_documents`); only its first YAML document is read.
    first_line : int
        0-based line of ``text`` in its file, added to error line numbers.

    Returns
    -------
    dict, list, str, int, float, bool or None
        None for an empty document or one that is only comments.

    Raises
    ------
    YAMLError
        Syntax errors (``yaml: line 5, column 1: found character that cannot
        start any token``), ``found unknown escape character``, an unknown
        anchor, a non-string map key that cannot be one (null), ``.inf``/``.nan``.

    Examples
    --------
    >>> yaml_to_json("a: y\\nb: 0o17\\nc: 1.0\\n1: x\\nd: 2024-01-01\\n")
    {'a': True, 'b': 15, 'c': 1, '1': 'x', 'd': '2024-01-01'}
    >>> yaml_to_json("a: 1\\na: 2\\nbase: &b {x: 1}\\nm: {x: 0, <<: *b, z: 2}\\n")
    {'a': 2, 'base': {'x': 1}, 'm': {'x': 1, 'z': 2}}
    >>> yaml_to_json('a: "\\\\/"\\n')
    Traceback (most recent call last):
    ...
    kubenotes.api.yamlutil.YAMLError: yaml: line 1, column 5: found unknown escape character
    """
    loader = _Loader(text)
    loader.text = text
    try:
        node = loader.get_node() if loader.check_node() else None
        value = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = e.problem or e.context or "invalid YAML"
        if "found undefined alias" in problem and e.problem_mark is not None:
            name = _alias_name(text, e.problem_mark)
            problem = f"unknown anchor '{name}' referenced" if name else problem
        if mark is None:
            raise YAMLError(problem) from None
        raise YAMLError(problem, mark.line + 1 + first_line, mark.column + 1) from None
    except yaml.YAMLError as e:  # a reader error on control characters
        raise YAMLError("yaml: " + " ".join(str(e).split())) from None
    finally:
        loader.dispose()
    return value


def _alias_name(text: str, mark: Any) -> str:
    m = re.compile(r"\*([^\s,\[\]{}]+)").match(text, mark.index) if mark.index is not None else None
    return m.group(1) if m else ""


def load_documents(text: str) -> Iterator[tuple[int, Any]]:
    """Every document of a text as kubectl reads it: ``(1-based document number, value)``.

    Empty documents are yielded as None (and counted), as the resource builder skips them.

    Parameters
    ----------
    text : str

    Yields
    ------
    (int, object)

    Raises
    ------
    YAMLError
        See :func:`split_documents` and :func:`yaml_to_json`; ``doc_number`` of the
        failing document is set on the error as ``doc``.

    Examples
    --------
    >>> list(load_documents("---\\na: on\\n---\\n# nothing\\n---\\nb: 1\\n"))
    [(1, {'a': True}), (2, None), (3, {'b': 1})]
    """
    n = 0
    docs = split_documents(text)
    while True:
        try:
            n, first_line, chunk = next(docs)
        except StopIteration:
            return
        except YAMLError as e:
            if not hasattr(e, "doc"):
                e.doc = n + 1  # type: ignore[attr-defined]
            raise
        try:
            yield n, yaml_to_json(chunk, first_line)
        except YAMLError as e:
            e.doc = n  # type: ignore[attr-defined]
            raise


def load(text: str) -> Any:
    """The first document of a text as kubectl reads it (``yaml.Unmarshal`` of sigs.k8s.io/yaml).

    Parameters
    ----------
    text : str

    Returns
    -------
    object
        None when the text holds no document.

    Raises
    ------
    YAMLError
        As :func:`yaml_to_json`.

    Examples
    --------
    >>> load("replicas: 3.0\\nlabels: {on: yes}\\n")
    {'replicas': 3, 'labels': {'true': True}}
    """
    return yaml_to_json(text)
