"""Label selectors, node selectors and required node affinity.

Mirrors three upstream packages:

* ``k8s.io/apimachinery/pkg/labels`` (selector.go): :class:`Requirement`,
  :class:`LabelSelector` and the string grammar :func:`parse_selector`
  (``env in (a,b),!canary``);
* ``k8s.io/apimachinery/pkg/apis/meta/v1`` (helpers.go
  ``LabelSelectorAsSelector`` and validation/validation.go
  ``ValidateLabelSelector``): :meth:`LabelSelector.from_api`, where a nil
  selector matches nothing and an empty one matches everything;
* ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``
  (nodeaffinity.go): :class:`NodeSelector` (terms ORed, requirements ANDed,
  ``matchFields`` on ``metadata.name``), :class:`PreferredSchedulingTerms`
  and :class:`RequiredNodeAffinity` (``GetRequiredNodeAffinity``).

Selectors are compiled once (requirements sorted by key, value sets frozen)
so that ``matches`` is a short loop on the scheduler's hot path.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/labels/selector.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Iterable, Sequence

from kubenotes.api.validation import is_qualified_name, is_valid_label_value
from kubenotes.errors import FieldError, KubenotesError

__all__ = [
    "IN",
    "NOT_IN",
    "EQUALS",
    "DOUBLE_EQUALS",
    "NOT_EQUALS",
    "EXISTS",
    "DOES_NOT_EXIST",
    "GREATER_THAN",
    "LESS_THAN",
    "OBJECT_NAME_FIELD",
    "Requirement",
    "LabelSelector",
    "parse_selector",
    "NodeSelector",
    "PreferredSchedulingTerms",
    "RequiredNodeAffinity",
]

# --- selection.Operator values (k8s.io/apimachinery/pkg/selection/operator.go) ---
#: ``key in (a,b)``; also what ``matchExpressions`` operator ``In`` becomes.
IN = "in"
#: ``key notin (a,b)``: matches when the key is absent too.
NOT_IN = "notin"
#: ``key=value``; what every ``matchLabels`` entry becomes.
EQUALS = "="
#: ``key==value``.
DOUBLE_EQUALS = "=="
#: ``key!=value``: matches when the key is absent too.
NOT_EQUALS = "!="
#: ``key``: the label is present with any value.
EXISTS = "exists"
#: ``!key``: the label is absent.
DOES_NOT_EXIST = "!"
#: ``key>N``: the label parses as an int64 greater than ``N``.
GREATER_THAN = "gt"
#: ``key<N``: the label parses as an int64 less than ``N``.
LESS_THAN = "lt"

#: The only node field ``matchFields`` can usefully select on (``metav1.ObjectNameField``).
OBJECT_NAME_FIELD = "metadata.name"

_UNARY = (EXISTS, DOES_NOT_EXIST)
_BINARY = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_VALID_OPERATORS = _BINARY + _UNARY

# API operator spellings (metav1.LabelSelectorOperator, v1.NodeSelectorOperator).
_LABEL_SELECTOR_OPS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}
_NODE_SELECTOR_OPS = {**_LABEL_SELECTOR_OPS, "Gt": GREATER_THAN, "Lt": LESS_THAN}
_NODE_SELECTOR_OP_NAMES = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_SELECTOR_OP_NAMES = ("In", "NotIn")

# Match codes used by the compiled form.
_M_IN, _M_NOT_IN, _M_EXISTS, _M_DNE, _M_GT, _M_LT = range(6)
_MATCH_CODE = {
    IN: _M_IN, EQUALS: _M_IN, DOUBLE_EQUALS: _M_IN,
    NOT_IN: _M_NOT_IN, NOT_EQUALS: _M_NOT_IN,
    EXISTS: _M_EXISTS, DOES_NOT_EXIST: _M_DNE,
    GREATER_THAN: _M_GT, LESS_THAN: _M_LT,
}

_INT64_RE = re.compile(r"^[+-]?[0-9]+$")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


# --- field.Error rendering (k8s.io/apimachinery/pkg/util/validation/field/errors.go) ---


def _go_quote(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _go_value(v: Any) -> str:
    # How ErrorBody prints a bad value: strings %q, []string %#v.
    if isinstance(v, str):
        return _go_quote(v)
    if v is None:
        return "[]string(nil)"
    if isinstance(v, (list, tuple)):
        return "[]string{" + ", ".join(_go_quote(str(x)) for x in v) + "}"
    return str(v)


def _invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError(path, f"Invalid value: {_go_value(value)}: {detail}")


def _required(path: str, detail: str) -> FieldError:
    return FieldError(path, f"Required value: {detail}")


def _forbidden(path: str, detail: str) -> FieldError:
    return FieldError(path, f"Forbidden: {detail}")


def _not_supported(path: str, value: Any, valid: Iterable[str]) -> FieldError:
    supported = ", ".join(_go_quote(v) for v in valid)
    return FieldError(path, f"Unsupported value: {_go_value(value)}: supported values: {supported}")


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _aggregate_message(errs: Sequence[FieldError]) -> str:
    # errors.NewAggregate(...).Error(): one message, or "[a, b]" with duplicates removed.
    msgs: list[str] = []
    for e in errs:
        m = str(e) if e.field else f": {e.message}"
        if m not in msgs:
            msgs.append(m)
    return msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"


def _raise_all(errs: list[FieldError]) -> None:
    first = errs[0]
    exc = FieldError(first.field, first.message)
    exc.errors = list(errs)  # every error upstream would aggregate
    raise exc


def _parse_int64(s: str) -> int | None:
    # strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no spaces or underscores.
    if not _INT64_RE.match(s):
        return None
    v = int(s)
    return v if _INT64_MIN <= v <= _INT64_MAX else None


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


# --- labels.Requirement ---------------------------------------------------------


class Requirement:
    """One ``key operator values`` condition (``labels.Requirement``).

    Construction validates like upstream's ``NewRequirement``: the key must
    be a qualified name; ``in``/``notin`` need values; ``=``, ``==``, ``!=``
    exactly one; ``exists``/``!`` none; ``gt``/``lt`` exactly one integer;
    every value must be a valid label value.

    Parameters
    ----------
    key : str
        Label key.
    operator : str
        One of :data:`IN`, :data:`NOT_IN`, :data:`EQUALS`,
        :data:`DOUBLE_EQUALS`, :data:`NOT_EQUALS`, :data:`EXISTS`,
        :data:`DOES_NOT_EXIST`, :data:`GREATER_THAN`, :data:`LESS_THAN`.
    values : sequence of str
        Kept in the given order (``str`` sorts them, as upstream does).
    field_path : str, optional
        Where the requirement lives, for error paths (e.g.
        ``nodeSelectorTerms[0].matchExpressions[1]``).

    Attributes
    ----------
    key : str
    operator : str
    values : tuple[str, ...]

    Raises
    ------
    FieldError
        With upstream's path and message for the first problem; the
        exception's ``errors`` attribute lists all of them.

    Notes
    -----
    Upstream returns every problem as one aggregate error; we raise the first
    and keep the rest in ``errors``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/labels/selector.go (NewRequirement, Matches, String)

    Examples
    --------
    >>> r = Requirement("env", IN, ["prod", "dev"])
    >>> str(r), r.matches({"env": "dev"}), r.matches({})
    ('env in (dev,prod)', True, False)
    >>> Requirement("x", EXISTS, ["a"])
    Traceback (most recent call last):
    ...
    kubenotes.errors.FieldError: values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist
    """

    __slots__ = ("key", "operator", "values", "_code", "_set", "_int", "_hash")

    def __init__(self, key: str, operator: str, values: Sequence[str] = (), *, field_path: str = ""):
        errs = self._validate(key, operator, values, field_path)
        if errs:
            _raise_all(errs)
        self._init(key, operator, tuple(values))

    def _init(self, key: str, operator: str, values: tuple[str, ...]) -> None:
        self.key = key
        self.operator = operator
        self.values = values
        self._code = _MATCH_CODE[operator]
        self._set = frozenset(values)
        self._int = _parse_int64(values[0]) if self._code in (_M_GT, _M_LT) and len(values) == 1 else None
        self._hash = hash((key, operator, values))  # selectors key memos by their requirements

    @classmethod
    def _unchecked(cls, key: str, operator: str, values: tuple[str, ...]) -> "Requirement":
        r = cls.__new__(cls)
        r._init(key, operator, values)
        return r

    @staticmethod
    def _validate(key: str, op: str, vals: Sequence[str] | None, path: str) -> list[FieldError]:
        errs: list[FieldError] = []
        msgs = is_qualified_name(key)
        if msgs:
            errs.append(_invalid(_child(path, "key"), key, "; ".join(msgs)))
        vpath = _child(path, "values")
        n = len(vals) if vals is not None else 0
        if op in (IN, NOT_IN):
            if n == 0:
                errs.append(_invalid(vpath, vals, "for 'in', 'notin' operators, values set can't be empty"))
        elif op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
            if n != 1:
                errs.append(_invalid(vpath, vals, "exact-match compatibility requires one single value"))
        elif op in _UNARY:
            if n != 0:
                errs.append(_invalid(vpath, vals, "values set must be empty for exists and does not exist"))
        elif op in (GREATER_THAN, LESS_THAN):
            if n != 1:
                errs.append(_invalid(vpath, vals, "for 'Gt', 'Lt' operators, exactly one value is required"))
            for i, v in enumerate(vals or ()):
                if _parse_int64(v) is None:
                    errs.append(_invalid(f"{vpath}[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"))
        else:
            errs.append(_not_supported(_child(path, "operator"), op, _VALID_OPERATORS))
        for i, v in enumerate(vals or ()):
            vm = is_valid_label_value(v)
            if vm:
                errs.append(_invalid(f"{vpath}[{i}][{key}]", v, "; ".join(vm)))
        return errs

    def matches(self, labels: Mapping[str, str]) -> bool:
        """True when ``labels`` satisfy this requirement (``Requirement.Matches``).

        ``notin`` and ``!=`` match a missing key; ``gt``/``lt`` need the
        label to parse as an int64, otherwise they do not match.
        """
        code = self._code
        if code == _M_IN:
            v = labels.get(self.key)
            return v is not None and v in self._set
        if code == _M_NOT_IN:
            v = labels.get(self.key)
            return v is None or v not in self._set
        if code == _M_EXISTS:
            return self.key in labels
        if code == _M_DNE:
            return self.key not in labels
        v = labels.get(self.key)
        if v is None or self._int is None:
            return False
        n = _parse_int64(v)
        if n is None:
            return False
        return n > self._int if code == _M_GT else n < self._int

    def __str__(self) -> str:
        op = self.operator
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        if op == EXISTS:
            return self.key
        vals = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in (IN, NOT_IN):
            return f"{self.key} {op} ({vals})"
        sym = {EQUALS: "=", DOUBLE_EQUALS: "==", NOT_EQUALS: "!=", GREATER_THAN: ">", LESS_THAN: "<"}[op]
        return f"{self.key}{sym}{vals}"

    def __repr__(self) -> str:
        return f"Requirement({self.key!r}, {self.operator!r}, {list(self.values)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self.key, self.operator, self.values) == (other.key, other.operator, other.values)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt, not restored: the string hashes behind _hash differ from one process to another.
        return Requirement._unchecked, (self.key, self.operator, self.values)


# --- labels.Selector -------------------------------------------------------------


class LabelSelector:
    """A compiled label selector: requirements ANDed (``labels.Selector``).

    Build one with :meth:`from_api` (a ``metav1.LabelSelector``),
    :func:`parse_selector` (the string form) or :meth:`from_set` (an
    equality map such as ``spec.nodeSelector``). Two special selectors exist:
    :meth:`everything` (no requirements, matches every label set) and
    :meth:`nothing` (what a nil API selector becomes; matches none).

    Parameters
    ----------
    requirements : iterable of Requirement
        Sorted by key (stable), as ``Selector.Add`` does.

    Attributes
    ----------
    requirements : tuple[Requirement, ...]

    See Also
    --------
    parse_selector : the string form.
    NodeSelector : selectors over node labels and names (adds ``Gt``/``Lt`` and ``matchFields``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/labels/selector.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go

    Examples
    --------
    >>> sel = LabelSelector.from_api({"matchLabels": {"app": "web"},
    ...                               "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]})
    >>> str(sel), sel.matches({"app": "web"}), sel.matches({"app": "web", "tier": "db"})
    ('app=web,tier notin (db)', True, False)
    >>> LabelSelector.from_api(None).matches({}), LabelSelector.from_api({}).matches({"any": "thing"})
    (False, True)
    """

    __slots__ = ("requirements", "_nothing", "_checks", "_equals")

    def __init__(self, requirements: Iterable[Requirement] = ()):
        self.requirements = tuple(sorted(requirements, key=lambda r: r.key))
        self._nothing = False
        self._checks = tuple((r.key, r._code, r._set, r) for r in self.requirements)
        # only `key=value` requirements (matchLabels, SelectorFromSet): matched as one sub-dict test
        self._equals: dict[str, str] | None = None
        if all(code == _M_IN and len(vals) == 1 for _k, code, vals, _r in self._checks):
            eq = {k: next(iter(vals)) for k, _code, vals, _r in self._checks}
            if len(eq) == len(self._checks):
                self._equals = eq

    # -- constructors ---------------------------------------------------------

    @classmethod
    def everything(cls) -> "LabelSelector":
        """The selector that matches every label set (``labels.Everything``)."""
        return _EVERYTHING

    @classmethod
    def nothing(cls) -> "LabelSelector":
        """The selector that matches no label set (``labels.Nothing``)."""
        return _NOTHING

    @classmethod
    def from_set(cls, labels: Mapping[str, str] | None) -> "LabelSelector":
        """Equality selector for a label map, without validation (``labels.SelectorFromSet``).

        An empty or missing map gives :meth:`everything`.

        Examples
        --------
        >>> str(LabelSelector.from_set({"zone": "a", "disk": "ssd"}))
        'disk=ssd,zone=a'
        """
        if not labels:
            return _EVERYTHING
        return cls(Requirement._unchecked(k, EQUALS, (v,)) for k, v in labels.items())

    @classmethod
    def from_api(cls, selector: Any, field_path: str = "") -> "LabelSelector":
        """Compile a ``metav1.LabelSelector`` (``LabelSelectorAsSelector``).

        Parameters
        ----------
        selector : lightkube LabelSelector, dict, LabelSelector or None
            ``None`` becomes :meth:`nothing`; a selector without
            ``matchLabels`` and ``matchExpressions`` becomes
            :meth:`everything`. A dict uses the manifest's camelCase keys.
        field_path : str, optional
            Path of the selector in its object (e.g. ``spec.selector``),
            prefixed to error paths.

        Returns
        -------
        LabelSelector

        Raises
        ------
        FieldError
            When the API server's ``ValidateLabelSelector`` would reject the
            selector: ``matchExpressions[i].values`` ``Required value: must be
            specified when `operator` is 'In' or 'NotIn'`` or ``Forbidden: may
            not be specified when `operator` is 'Exists' or 'DoesNotExist'``,
            ``matchExpressions[i].operator`` ``Invalid value: "X": not a valid
            selector operator``, invalid keys and values. The ``errors``
            attribute lists every problem.

        Notes
        -----
        Errors use the API server's validation wording (what ``kubectl
        apply`` shows) rather than ``LabelSelectorAsSelector``'s, since an
        invalid selector never reaches the scheduler. ``matchLabels`` entries
        come first (sorted by key) before the stable sort by key, where Go
        iterates its map in random order.

        Examples
        --------
        >>> LabelSelector.from_api({"matchExpressions": [{"key": "a", "operator": "In"}]})
        Traceback (most recent call last):
        ...
        kubenotes.errors.FieldError: matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'
        """
        if selector is None:
            return _NOTHING
        if isinstance(selector, LabelSelector):
            return selector
        match_labels = _get(selector, "matchLabels") or {}
        exprs = _get(selector, "matchExpressions") or ()
        if not match_labels and not exprs:
            return _EVERYTHING
        errs: list[FieldError] = []
        ml_path = _child(field_path, "matchLabels")
        for k in sorted(match_labels):
            v = match_labels[k]
            errs.extend(_invalid(ml_path, k, m) for m in is_qualified_name(k))
            errs.extend(_invalid(ml_path, v, m) for m in is_valid_label_value(v))
        reqs = [Requirement._unchecked(k, EQUALS, (match_labels[k],)) for k in sorted(match_labels)]
        for i, expr in enumerate(exprs):
            p = f"{_child(field_path, 'matchExpressions')}[{i}]"
            key = _get(expr, "key") or ""
            op_name = _get(expr, "operator") or ""
            values = list(_get(expr, "values") or ())
            op = _LABEL_SELECTOR_OPS.get(op_name)
            if op in (IN, NOT_IN):
                if not values:
                    errs.append(_required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
            elif op in _UNARY:
                if values:
                    errs.append(_forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
            else:
                errs.append(_invalid(f"{p}.operator", op_name, "not a valid selector operator"))
            errs.extend(_invalid(f"{p}.key", key, m) for m in is_qualified_name(key))
            for j, v in enumerate(values):
                errs.extend(_invalid(f"{p}.values[{j}]", v, m) for m in is_valid_label_value(v))
            if op is not None:
                reqs.append(Requirement._unchecked(key, op, tuple(values)))
        if errs:
            _raise_all(errs)
        return cls(reqs)

    # -- queries ----------------------------------------------------------------

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """True when every requirement holds for ``labels`` (``Selector.Matches``).

        Parameters
        ----------
        labels : mapping of str to str, or None
            An object's labels; ``None`` is an empty set.
        """
        if self._nothing:
            return False
        if labels is None:
            labels = {}
        if self._equals is not None and type(labels) is dict:
            return self._equals.items() <= labels.items()
        for key, code, vals, req in self._checks:
            if code == _M_IN:
                v = labels.get(key)
                if v is None or v not in vals:
                    return False
            elif code == _M_NOT_IN:
                v = labels.get(key)
                if v is not None and v in vals:
                    return False
            elif code == _M_EXISTS:
                if key not in labels:
                    return False
            elif code == _M_DNE:
                if key in labels:
                    return False
            elif not req.matches(labels):
                return False
        return True

    def is_empty(self) -> bool:
        """True when the selector does not restrict anything (``Selector.Empty``)."""
        return not self._nothing and not self.requirements

    def is_nothing(self) -> bool:
        """True for the nil-selector that matches nothing (``labels.MatchesNothing``)."""
        return self._nothing

    def requires_exact_match(self, label: str) -> str | None:
        """The single value ``label`` must have, if the selector pins it (``RequiresExactMatch``).

        Examples
        --------
        >>> parse_selector("app=web,tier in (a,b)").requires_exact_match("app")
        'web'
        """
        for r in self.requirements:
            if r.key == label:
                if r.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(r.values) == 1:
                    return r.values[0]
                return None
        return None

    def required_values(self) -> tuple[str, tuple[str, ...]] | None:
        """A label every matching set must carry with one of a few values: the first ``in``/``=`` requirement.

        kubenotes only (an index of label sets can look up only those
        carrying one of the values instead of testing every set).

        Returns
        -------
        (str, tuple[str, ...]) or None
            The key and its allowed values; None when no requirement pins a
            value (or the selector matches nothing).

        Examples
        --------
        >>> parse_selector("tier notin (db),app in (web,api)").required_values()
        ('app', ('api', 'web'))
        >>> parse_selector("tier notin (db)").required_values() is None
        True
        """
        if self._nothing:
            return None
        for key, code, _vals, r in self._checks:
            if code == _M_IN:
                return key, tuple(r.values)
        return None

    def add(self, *requirements: Requirement) -> "LabelSelector":
        """A new selector with more requirements, re-sorted by key (``Selector.Add``)."""
        if self._nothing:
            return self
        return LabelSelector(self.requirements + requirements)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        if self._nothing:
            return "LabelSelector.nothing()"
        return f"parse_selector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return self._nothing == other._nothing and self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash((self._nothing, self.requirements))


_EVERYTHING = LabelSelector()
_NOTHING = LabelSelector()
_NOTHING._nothing = True


# --- labels.Parse -----------------------------------------------------------------

(_T_ERROR, _T_EOS, _T_CPAR, _T_COMMA, _T_DNE, _T_DEQ, _T_EQ, _T_GT, _T_ID, _T_IN, _T_LT, _T_NEQ, _T_NOTIN,
 _T_OPAR) = range(14)
_STRING_TOKENS = {
    ")": _T_CPAR, ",": _T_COMMA, "!": _T_DNE, "==": _T_DEQ, "=": _T_EQ, ">": _T_GT,
    "in": _T_IN, "<": _T_LT, "!=": _T_NEQ, "notin": _T_NOTIN, "(": _T_OPAR,
}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")


def _lex(s: str) -> list[tuple[int, str]]:
    """Tokens of a selector string, ending with end-of-string (``Lexer.Lex``)."""
    out: list[tuple[int, str]] = []
    i, n = 0, len(s)
    while True:
        while i < n and s[i] in _WHITESPACE:
            i += 1
        if i >= n:
            out.append((_T_EOS, ""))
            return out
        if s[i] in _SPECIAL:
            # Longest special-symbol sequence that is a token.
            buf, last, j = "", None, i
            while j < n and s[j] in _SPECIAL:
                buf += s[j]
                if buf in _STRING_TOKENS:
                    last = (_STRING_TOKENS[buf], buf)
                    j += 1
                elif last is not None:
                    break
                else:
                    j += 1
            if last is None:
                out.append((_T_ERROR, f"error expected: keyword found '{buf}'"))
                i = j
            else:
                out.append(last)
                i += len(last[1])
            continue
        j = i
        while j < n and s[j] not in _SPECIAL and s[j] not in _WHITESPACE:
            j += 1
        lit = s[i:j]
        out.append((_STRING_TOKENS.get(lit, _T_ID), lit))
        i = j


class _ParseError(KubenotesError):
    pass


class _Parser:
    """Recursive-descent parser over pre-scanned tokens (``labels.Parser``)."""

    def __init__(self, s: str):
        self.items = _lex(s)
        self.pos = 0

    def _look(self, values: bool) -> tuple[int, str]:
        tok, lit = self.items[self.pos]
        if values and tok in (_T_IN, _T_NOTIN):
            tok = _T_ID
        return tok, lit

    def _consume(self, values: bool) -> tuple[int, str]:
        r = self._look(values)
        self.pos += 1
        return r

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            tok, lit = self._look(True)
            if tok in (_T_ID, _T_DNE):
                try:
                    reqs.append(self._requirement())
                except _ParseError as e:
                    raise _ParseError(f"unable to parse requirement: {e}") from None
                t, l = self._consume(True)
                if t == _T_EOS:
                    return reqs
                if t == _T_COMMA:
                    t2, l2 = self._look(True)
                    if t2 not in (_T_ID, _T_DNE):
                        raise _ParseError(f"found '{l2}', expected: identifier after ','")
                else:
                    raise _ParseError(f"found '{l}', expected: ',' or 'end of string'")
            elif tok == _T_EOS:
                return reqs
            else:
                raise _ParseError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def _requirement(self) -> Requirement:
        op: str | None = None
        tok, lit = self._consume(True)
        if tok == _T_DNE:
            op = DOES_NOT_EXIST
            tok, lit = self._consume(True)
        if tok != _T_ID:
            raise _ParseError(f"found '{lit}', expected: identifier")
        key = lit
        msgs = is_qualified_name(key)
        if msgs:
            # validateLabelKey with the parser's nil path, which prints as "<nil>".
            raise _ParseError(f"<nil>: Invalid value: {_go_quote(key)}: {'; '.join(msgs)}")
        if self._look(True)[0] in (_T_EOS, _T_COMMA) and op != DOES_NOT_EXIST:
            op = EXISTS
        if op in _UNARY:
            return self._new(key, op, [])
        tok, lit = self._consume(False)
        op = {
            _T_IN: IN, _T_EQ: EQUALS, _T_DEQ: DOUBLE_EQUALS, _T_GT: GREATER_THAN,
            _T_LT: LESS_THAN, _T_NOTIN: NOT_IN, _T_NEQ: NOT_EQUALS,
        }.get(tok)
        if op is None:
            raise _ParseError(f"found '{lit}', expected: {', '.join(_BINARY)}")
        values = self._values() if op in (IN, NOT_IN) else self._exact_value()
        return self._new(key, op, sorted(values))

    @staticmethod
    def _new(key: str, op: str, values: list[str]) -> Requirement:
        errs = Requirement._validate(key, op, values, "")
        if errs:
            raise _ParseError(_aggregate_message(errs))
        return Requirement._unchecked(key, op, tuple(values))

    def _values(self) -> set[str]:
        tok, lit = self._consume(True)
        if tok != _T_OPAR:
            raise _ParseError(f"found '{lit}' expected: '('")
        tok, lit = self._look(True)
        if tok in (_T_ID, _T_COMMA):
            s = self._identifiers()
            if self._consume(True)[0] != _T_CPAR:
                raise _ParseError(f"found '{lit}', expected: ')'")
            return s
        if tok == _T_CPAR:
            self._consume(True)
            return {""}
        raise _ParseError(f"found '{lit}', expected: ',', ')' or identifier")

    def _identifiers(self) -> set[str]:
        s: set[str] = set()
        while True:
            tok, lit = self._consume(True)
            if tok == _T_ID:
                s.add(lit)
                tok2, lit2 = self._look(True)
                if tok2 == _T_COMMA:
                    continue
                if tok2 == _T_CPAR:
                    return s
                raise _ParseError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _T_COMMA:
                if not s:
                    s.add("")  # "(,"
                tok2, _ = self._look(True)
                if tok2 in (_T_CPAR, _T_COMMA):
                    s.add("")  # ",)" and ",,"
                    if tok2 == _T_CPAR:
                        return s
                continue
            raise _ParseError(f"found '{lit}', expected: ',', or identifier")

    def _exact_value(self) -> set[str]:
        tok, _ = self._look(True)
        if tok in (_T_EOS, _T_COMMA):
            return {""}
        tok, lit = self._consume(True)
        if tok == _T_ID:
            return {lit}
        raise _ParseError(f"found '{lit}', expected: identifier")


def parse_selector(selector: str, field_path: str = "") -> LabelSelector:
    """Parse the string form of a label selector (``labels.Parse``).

    Grammar: requirements separated by ``,``; each is ``[!]key``,
    ``key in (v1,v2)``, ``key notin (v1,v2)``, ``key=v``, ``key==v``,
    ``key!=v``, ``key>N`` or ``key<N``. Whitespace separates tokens; ``in``
    and ``notin`` may also be values; ``()`` is the set ``{""}``.

    Parameters
    ----------
    selector : str
        E.g. ``"env in (prod,dev),!canary"``. The empty string selects everything.
    field_path : str, optional
        Path named in errors (e.g. a flag or field name).

    Returns
    -------
    LabelSelector
        Requirements sorted by key; set-based values sorted and deduplicated.

    Raises
    ------
    FieldError
        On a syntax error or an invalid key or value, with upstream's
        message (e.g. ``found '==', expected: ',' or 'end of string'``).

    See Also
    --------
    LabelSelector.from_api : the same selectors from their API form.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Parse)

    Examples
    --------
    >>> sel = parse_selector("env in (prod, dev), !canary")
    >>> str(sel), sel.matches({"env": "dev"}), sel.matches({"env": "dev", "canary": "1"})
    ('!canary,env in (dev,prod)', True, False)
    >>> parse_selector("x==a==b")
    Traceback (most recent call last):
    ...
    kubenotes.errors.FieldError: found '==', expected: ',' or 'end of string'
    """
    try:
        reqs = _Parser(selector).parse()
    except _ParseError as e:
        raise FieldError(field_path, str(e)) from None
    return LabelSelector(reqs) if reqs else _EVERYTHING


# --- nodeaffinity ----------------------------------------------------------------


class _NodeSelectorTerm:
    """A parsed ``NodeSelectorTerm``: label requirements and name requirements, ANDed."""

    __slots__ = ("labels", "fields", "parse_errors")

    def __init__(self, term: Any, path: str):
        self.labels: LabelSelector | None = None
        self.fields: tuple[tuple[str, bool, str], ...] | None = None
        self.parse_errors: list[FieldError] = []
        exprs = _get(term, "matchExpressions") or ()
        fields = _get(term, "matchFields") or ()
        if exprs:
            reqs = []
            for i, expr in enumerate(exprs):
                p = f"{_child(path, 'matchExpressions')}[{i}]"
                op_name = _get(expr, "operator") or ""
                op = _NODE_SELECTOR_OPS.get(op_name)
                if op is None:
                    self.parse_errors.append(_not_supported(f"{p}.operator", op_name, _NODE_SELECTOR_OP_NAMES))
                    continue
                key = _get(expr, "key") or ""
                raw = _get(expr, "values")
                errs = Requirement._validate(key, op, raw, p)
                if errs:
                    self.parse_errors.extend(errs)
                else:
                    reqs.append(Requirement._unchecked(key, op, tuple(raw or ())))
            self.labels = LabelSelector(reqs)
        if fields:
            parsed = []
            for i, expr in enumerate(fields):
                p = f"{_child(path, 'matchFields')}[{i}]"
                op_name = _get(expr, "operator") or ""
                raw = list(_get(expr, "values") or ())
                if op_name in _FIELD_SELECTOR_OP_NAMES:
                    if len(raw) != 1:
                        self.parse_errors.append(_invalid(f"{p}.values", _get(expr, "values"), "must have one element"))
                    else:
                        parsed.append((_get(expr, "key") or "", op_name == "In", raw[0]))
                else:
                    self.parse_errors.append(_not_supported(f"{p}.operator", op_name, _FIELD_SELECTOR_OP_NAMES))
            self.fields = tuple(parsed)

    def match(self, labels: Mapping[str, str], node_name: str) -> bool:
        if self.parse_errors:
            return False
        if self.labels is not None and not self.labels.matches(labels):
            return False
        if self.fields is not None and node_name:
            # fields.Set{"metadata.name": name}; any other field reads as "".
            for key, is_in, value in self.fields:
                got = node_name if key == OBJECT_NAME_FIELD else ""
                if (got == value) != is_in:
                    return False
        return True


def _is_empty_term(term: Any) -> bool:
    return not (_get(term, "matchExpressions") or _get(term, "matchFields"))


def _node_labels_and_name(node: Any) -> tuple[Mapping[str, str], str]:
    if isinstance(node, dict):
        md = node.get("metadata") or {}
        return (md.get("labels") or {}), (md.get("name") or "")
    md = node.metadata
    if md is None:
        return {}, ""
    return (md.labels or {}), (md.name or "")


class NodeSelector:
    """Required node selector terms: terms ORed, requirements ANDed (``nodeaffinity.NodeSelector``).

    ``matchExpressions`` select on node labels (``In``, ``NotIn``,
    ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt``); ``matchFields`` select on
    ``metadata.name`` (``In``/``NotIn`` with exactly one value). A term with
    neither matches nothing, and so does a selector without terms.

    Attributes
    ----------
    parse_errors : list[FieldError]
        Problems found in lazy mode (terms with errors never match).

    See Also
    --------
    RequiredNodeAffinity : a pod's nodeSelector and required affinity together.
    PreferredSchedulingTerms : the weighted, preferred form.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Node
    >>> ns = NodeSelector.from_api({"nodeSelectorTerms": [
    ...     {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]},
    ...     {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]})
    >>> ns.matches(Node.from_dict({"metadata": {"name": "n1", "labels": {"disk": "ssd"}}}))
    True
    >>> ns.matches(Node.from_dict({"metadata": {"name": "n2"}})), ns.matches(Node.from_dict({"metadata": {"name": "n3"}}))
    (True, False)
    """

    __slots__ = ("_terms", "parse_errors")

    def __init__(self, terms: list[_NodeSelectorTerm], parse_errors: list[FieldError] | None = None):
        self._terms = terms
        self.parse_errors = parse_errors or []

    @classmethod
    def from_api(cls, selector: Any, *, lazy: bool = False, field_path: str = "") -> "NodeSelector":
        """Compile a ``v1.NodeSelector`` (``NewNodeSelector`` / ``NewLazyErrorNodeSelector``).

        Parameters
        ----------
        selector : lightkube NodeSelector, dict, NodeSelector or None
            ``None`` is a selector without terms (matches nothing).
        lazy : bool
            Keep going past parse errors: the bad terms never match and the
            errors are kept in :attr:`parse_errors` (what the scheduler does
            for a pod's own affinity).
        field_path : str, optional
            Prefix for error paths.

        Raises
        ------
        FieldError
            In strict mode, for the first parse error with upstream's path
            (``nodeSelectorTerms[0].matchFields[0].values``) and message
            (``Invalid value: []string{"a", "b"}: must have one element``);
            ``errors`` lists all of them.
        """
        if isinstance(selector, NodeSelector):
            return selector
        terms: list[_NodeSelectorTerm] = []
        errs: list[FieldError] = []
        base = _child(field_path, "nodeSelectorTerms")
        for i, term in enumerate(_get(selector, "nodeSelectorTerms") or ()):
            if _is_empty_term(term):
                continue
            t = _NodeSelectorTerm(term, f"{base}[{i}]")
            errs.extend(t.parse_errors)
            terms.append(t)
        if errs and not lazy:
            _raise_all(errs)
        return cls(terms, errs)

    def matches_labels(self, labels: Mapping[str, str] | None, node_name: str = "") -> bool:
        """Match a node given as its labels and name (avoids touching the Node object)."""
        if labels is None:
            labels = {}
        for t in self._terms:
            if t.match(labels, node_name):
                return True
        return False

    def matches(self, node: Any) -> bool:
        """True when some term matches ``node`` (``NodeSelector.Match``); ``None`` never matches.

        Parameters
        ----------
        node : lightkube.resources.core_v1.Node or None
        """
        if node is None:
            return False
        labels, name = _node_labels_and_name(node)
        return self.matches_labels(labels, name)


class PreferredSchedulingTerms:
    """Weighted preferred node-affinity terms (``nodeaffinity.PreferredSchedulingTerms``).

    Terms with weight 0 or with neither ``matchExpressions`` nor
    ``matchFields`` are skipped, including their parse errors.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Node
    >>> terms = PreferredSchedulingTerms.from_api([
    ...     {"weight": 5, "preference": {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}},
    ...     {"weight": 11, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}}])
    >>> terms.score(Node.from_dict({"metadata": {"name": "n1", "labels": {"zone": "a"}}}))
    16
    """

    __slots__ = ("_terms",)

    def __init__(self, terms: list[tuple[_NodeSelectorTerm, int]]):
        self._terms = terms

    @classmethod
    def from_api(cls, terms: Iterable[Any] | None, field_path: str = "") -> "PreferredSchedulingTerms":
        """Compile ``[]v1.PreferredSchedulingTerm`` (``NewPreferredSchedulingTerms``).

        Parameters
        ----------
        terms : iterable of lightkube PreferredSchedulingTerm or dict, or None
        field_path : str, optional
            Prefix for error paths (upstream's root is the list, so paths
            look like ``[0].matchFields[0].values``).

        Raises
        ------
        FieldError
            For the first parse error among terms with a non-zero weight;
            ``errors`` lists all of them.
        """
        parsed: list[tuple[_NodeSelectorTerm, int]] = []
        errs: list[FieldError] = []
        for i, term in enumerate(terms or ()):
            weight = int(_get(term, "weight") or 0)
            pref = _get(term, "preference")
            if weight == 0 or _is_empty_term(pref):
                continue
            t = _NodeSelectorTerm(pref, f"{field_path}[{i}]")
            if t.parse_errors:
                errs.extend(t.parse_errors)
            else:
                parsed.append((t, weight))
        if errs:
            _raise_all(errs)
        return cls(parsed)

    def score(self, node: Any) -> int:
        """Sum of the weights of the terms that match ``node`` (``PreferredSchedulingTerms.Score``)."""
        labels, name = _node_labels_and_name(node)
        return sum(w for t, w in self._terms if t.match(labels, name))

    def __len__(self) -> int:
        return len(self._terms)


class RequiredNodeAffinity:
    """A pod's hard node constraints: ``spec.nodeSelector`` AND required node affinity.

    Built by :meth:`from_pod` (``GetRequiredNodeAffinity``). The pod's own
    affinity is parsed lazily: a term with a parse error never matches and
    does not raise, for backwards compatibility, as upstream's
    ``LazyErrorNodeSelector``. An optional scheduler-enforced
    ``addedAffinity`` (``NodeAffinityArgs``) is ANDed in.

    Attributes
    ----------
    label_selector : LabelSelector or None
        From ``spec.nodeSelector`` (``None`` when empty).
    node_selector : NodeSelector or None
        From ``requiredDuringSchedulingIgnoredDuringExecution`` (``None`` when unset).
    added_node_selector : NodeSelector or None
        From ``addedAffinity.requiredDuringSchedulingIgnoredDuringExecution``.

    See Also
    --------
    NodeSelector : one required node selector.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Node, Pod
    >>> pod = Pod.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}],
    ...     "nodeSelector": {"disk": "ssd"},
    ...     "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    ...         {"matchExpressions": [{"key": "kernel", "operator": "Gt", "values": ["5"]}]}]}}}}})
    >>> rna = RequiredNodeAffinity.from_pod(pod)
    >>> rna.match(Node.from_dict({"metadata": {"name": "n", "labels": {"disk": "ssd", "kernel": "6"}}}))
    True
    >>> rna.match(Node.from_dict({"metadata": {"name": "n", "labels": {"disk": "ssd", "kernel": "v6"}}}))
    False
    """

    __slots__ = ("label_selector", "node_selector", "added_node_selector")

    def __init__(self, label_selector: LabelSelector | None = None, node_selector: NodeSelector | None = None,
                 added_node_selector: NodeSelector | None = None):
        self.label_selector = label_selector
        self.node_selector = node_selector
        self.added_node_selector = added_node_selector

    @classmethod
    def from_pod(cls, pod: Any, added_affinity: Any = None) -> "RequiredNodeAffinity":
        """Parse a pod's ``nodeSelector`` and required node affinity.

        Parameters
        ----------
        pod : lightkube.resources.core_v1.Pod
        added_affinity : lightkube NodeAffinity or dict, optional
            ``NodeAffinityArgs.addedAffinity``; only its required part is used here.

        Raises
        ------
        FieldError
            When ``added_affinity`` does not parse (the scheduler refuses to
            start in that case); paths start with
            ``addedAffinity.requiredDuringSchedulingIgnoredDuringExecution``.
        """
        spec = _get(pod, "spec")
        ns_map = _get(spec, "nodeSelector")
        label_selector = LabelSelector.from_set(ns_map) if ns_map else None
        node_selector = None
        aff = _get(_get(spec, "affinity"), "nodeAffinity")
        required = _get(aff, "requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            node_selector = NodeSelector.from_api(required, lazy=True)
        added = None
        added_required = _get(added_affinity, "requiredDuringSchedulingIgnoredDuringExecution")
        if added_required is not None:
            added = NodeSelector.from_api(
                added_required, field_path="addedAffinity.requiredDuringSchedulingIgnoredDuringExecution")
        return cls(label_selector, node_selector, added)

    @property
    def parse_errors(self) -> list[FieldError]:
        """Problems in the pod's required affinity (ignored when matching, as upstream)."""
        return list(self.node_selector.parse_errors) if self.node_selector is not None else []

    def match_added(self, node: Any) -> bool:
        """True when there is no added affinity or ``node`` satisfies it."""
        return self.added_node_selector is None or self.added_node_selector.matches(node)

    def match_pod(self, node: Any) -> bool:
        """``RequiredNodeAffinity.Match``: the pod's own nodeSelector and required affinity."""
        labels, name = _node_labels_and_name(node)
        return self._match_pod(labels, name)

    def _match_pod(self, labels: Mapping[str, str], name: str) -> bool:
        if self.label_selector is not None and not self.label_selector.matches(labels):
            return False
        if self.node_selector is not None:
            return self.node_selector.matches_labels(labels, name)
        return True

    def match(self, node: Any) -> bool:
        """True when ``node`` satisfies the added affinity (if any) and the pod's constraints.

        Parameters
        ----------
        node : lightkube.resources.core_v1.Node
        """
        labels, name = _node_labels_and_name(node)
        if self.added_node_selector is not None and not self.added_node_selector.matches_labels(labels, name):
            return False
        return self._match_pod(labels, name)
