"""A subset of CEL (the Common Expression Language) for admission policy expressions.

No maintained CEL library is installed in the project's environment, so the
model evaluates the subset admission policies use most, over JSON values:

* literals: integers, floats, strings (``'...'``, ``"..."``), ``true``,
  ``false``, ``null``, lists ``[a, b]`` and maps ``{'k': v}``;
* variables (``object``, ``oldObject``, ``request``, ``params``,
  ``namespaceObject``, ``variables``), field selection ``a.b`` and indexing
  ``a['k']``, ``a[0]`` (a missing key is an error, ``no such key: k``);
* ``!``, unary ``-``, ``* / %``, ``+ -`` (numbers, strings, lists),
  ``< <= > >=``, ``== !=``, ``in``, ``&&``, ``||`` (with CEL's error-absorbing
  logic: ``false && error`` is false), and ``c ? a : b``;
* message constructions for MutatingAdmissionPolicy: ``Object{spec: Object.spec{...}}``
  (:class:`ObjectVal`), ``JSONPatch{op: ..., path: ..., value: ...}`` and
  ``jsonpatch.escapeKey(k)``; trailing commas in lists, maps and constructions;
* optionals: ``a.?b``, ``a[?k]`` (the rest of the chain stays optional),
  ``optional.of(x)``, ``optional.none()``, ``.orValue()``, ``.hasValue()``, ``.value()``;
* ``has(a.b)``, ``size(x)``/``x.size()``, ``int()``, ``string()``, ``type``-free
  ``x.startsWith()``, ``endsWith()``, ``contains()``, ``matches()``,
  ``lowerAscii()``, ``upperAscii()``, and the macros ``all``, ``exists``,
  ``exists_one``, ``map``, ``filter``.

Of upstream's compile-time checks, references to variables the environment
does not declare are reported with cel-go's text (:func:`compile_issues`), and
an expression's result type is inferred where no schema is needed
(:func:`output_type`: literals, operators, ``size()``, macros; the rest is
``dyn``). Not supported: full type checking, the Kubernetes CEL libraries
(quantity, url, ip, authorizer...), timestamps and durations.
:class:`CostTracker` counts an evaluation's actual cost as cel-go's does, with
an optional limit; :class:`CostBudget` shares a runtime budget between
expressions as admission does.
An expression outside the subset raises :class:`CELError` when compiled,
with the position, as a compile error refuses it upstream.

References
----------
https://github.com/google/cel-spec/blob/master/doc/langdef.md
https://kubernetes.io/docs/reference/using-api/cel/
"""

from __future__ import annotations

import re
from typing import Any

from kubenotes.errors import KubenotesError

__all__ = ["CELError", "CostBudget", "CostTracker", "OutOfBudget", "MATCH_CONDITIONS_COST_BUDGET", "OUT_OF_BUDGET",
           "ObjectVal", "Optional", "JSONPATCH_FIELDS", "COST_LIMIT_EXCEEDED", "LIBRARY_NAMESPACES",
           "compile_expression", "compile_issues", "evaluate", "output_type", "plain", "syntax_error_text",
           "type_name_errors"]


class CELError(KubenotesError):
    """A compile error (bad syntax, unsupported construct) or an evaluation error (``no such key: x``)."""


#: cel-go's error when an evaluation's actual cost passes the program's cost limit.
COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
_COST = "@cost"  # the env key of a CostTracker: not a CEL identifier, so no expression can name it
_TRAVERSAL, _REGEX_FACTOR = 0.1, 0.25


class CostTracker:
    """The actual cost of one evaluation, after cel-go's ``interpreter.CostTracker``, with an optional limit.

    Identifiers and field selections or indexes cost 1, constants 0, calls 1, except that string
    comparisons, ``startsWith``/``endsWith``, ``contains``, ``matches``, string concatenation and
    ``lowerAscii``/``upperAscii`` cost 0.1 per byte of the strings involved (``matches`` times 0.25 per
    regex byte), ``in`` a list its length, equality of lists, maps and strings 0.1 per element, list,
    map and message literals 10, 30 and 40; ``&&``, ``||`` and ``?:`` cost nothing themselves, and
    comprehensions their steps as cel-go's macro expansions evaluate them.

    Attributes
    ----------
    actual : int
        The cost so far.
    limit : int or None
        Passing it raises :class:`CELError` with :data:`COST_LIMIT_EXCEEDED`.

    Examples
    --------
    >>> t = CostTracker()
    >>> evaluate("self.all(x, x > 0)", {"self": [1, 2, 3]}, t)
    True
    >>> t.actual
    17

    References
    ----------
    google/cel-go@v0.26.0 interpreter/runtimecost.go
    """

    def __init__(self, limit: "int | None" = None):
        self.actual = 0
        self.limit = limit

    def add(self, n: int) -> None:
        self.actual += n
        if self.limit is not None and self.actual > self.limit:
            raise CELError(COST_LIMIT_EXCEEDED)


#: ``celconfig.RuntimeCELCostBudgetMatchConditions``: the runtime budget of one webhook's or one policy binding's
#: ``matchConditions`` (a quarter of ``RuntimeCELCostBudget``, which the validations share).
MATCH_CONDITIONS_COST_BUDGET = 2_500_000
#: The error when a budget shared by several expressions is spent (``plugin/cel/filter.go``).
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


class OutOfBudget(CELError):
    """The budget of a request's expressions is spent: no further expression is evaluated (``cel.ErrOutOfBudget``)."""


class CostBudget:
    """A runtime cost budget shared by several expressions, after ``plugin/cel/filter.go``'s ``ForInput``.

    Each :meth:`evaluate` runs one expression under ``per_call_limit`` (``celconfig.PerCallLimit``; passing
    it is the expression's own error, :data:`COST_LIMIT_EXCEEDED`), then takes its actual cost from what
    remains; an expression costing more than what remains raises :class:`OutOfBudget` with upstream's
    ``validation failed due to running out of cost budget, no further validation rules will be run``, and
    the budget stays spent.

    Parameters
    ----------
    remaining : int
        ``celconfig.RuntimeCELCostBudget`` (10,000,000) for a binding's validations, audit annotations or a
        mutating policy's mutations; :data:`MATCH_CONDITIONS_COST_BUDGET` for ``matchConditions``.
    per_call_limit : int or None
        ``celconfig.PerCallLimit`` (:data:`kubenotes.apiserver.apiextensions.celcost.PER_CALL_LIMIT`).

    Examples
    --------
    >>> b = CostBudget(10)
    >>> b.evaluate("self.all(x, x > 0)", {"self": [1, 2, 3]})
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.admission.cel.OutOfBudget: validation failed due to running out of cost budget, \
no further validation rules will be run
    >>> CostBudget(100).evaluate("[1, 2].all(x, x > 0)", {})
    True

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/filter.go (ForInput),
    staging/src/k8s.io/apiserver/pkg/apis/cel/config.go
    """

    def __init__(self, remaining: int, per_call_limit: "int | None" = None):
        self.remaining = remaining
        self.per_call_limit = per_call_limit

    def evaluate(self, expr: "str | tuple", env: dict) -> Any:
        if self.remaining < 0:
            raise OutOfBudget(OUT_OF_BUDGET)
        cost = CostTracker(self.per_call_limit)
        err: CELError | None = None
        value = None
        try:
            value = evaluate(expr, env, cost)
        except CELError as e:
            err = e
        if cost.actual > self.remaining:
            self.remaining = -1
            raise OutOfBudget(OUT_OF_BUDGET)
        self.remaining -= cost.actual
        if err is not None:
            raise err
        return value


def _ceil(x: float) -> int:
    return int(-(-x // 1))


def _actual_size(v: Any) -> int:
    return len(v) if isinstance(v, (str, list, dict)) else 1


#: The fields of MutatingAdmissionPolicy's ``JSONPatch`` type.
JSONPATCH_FIELDS = ("op", "path", "from", "value")


class ObjectVal(dict):
    """A value built by a message construction, ``Object.spec{replicas: 1}`` or ``JSONPatch{op: "add"}``.

    A dict of the fields set, remembering its type name (``Object.spec``).

    Attributes
    ----------
    type_name : str

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/cel/mutation/dynamic/objects.go (ObjectVal)
    """

    def __init__(self, type_name: str, fields: dict):
        super().__init__(fields)
        self.type_name = type_name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectVal) and other.type_name == self.type_name and dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]


class Optional:
    """A CEL optional (``a.?b``, ``optional.of(x)``, ``optional.none()``): a value or none.

    Examples
    --------
    >>> env = {"object": {"metadata": {"labels": {"env": "prod"}}}}
    >>> evaluate("object.?metadata.labels['env'].orValue('') + '/' + object.?spec.replicas.orValue('none')", env)
    'prod/none'
    """

    __slots__ = ("present", "value")

    def __init__(self, present: bool, value: Any = None):
        self.present, self.value = present, value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Optional) and (self.present, self.value) == (other.present, other.value)

    __hash__ = None  # type: ignore[assignment]


def type_name_errors(value: Any, path: tuple[str, ...] = ("Object",)) -> list[str]:
    """``CheckTypeNamesMatchFieldPathNames``: every nested ``Object...`` value named by its field path.

    Examples
    --------
    >>> type_name_errors(evaluate("Object{spec: Object.specx{replicas: 1}}", {}))
    ['unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type']
    """
    errs: list[str] = []
    if isinstance(value, ObjectVal):
        if value.type_name != "JSONPatch":
            want = ".".join(path)
            if value.type_name != want:
                errs.append(f'unexpected type name "{value.type_name}", expected "{want}", '
                            "which matches field name path from root Object type")
        for k, v in value.items():
            errs += type_name_errors(v, path + (k,))
    elif isinstance(value, list):
        for v in value:
            errs += type_name_errors(v, path)
    elif isinstance(value, dict):
        for v in value.values():
            errs += type_name_errors(v, path)
    return errs


def plain(value: Any) -> Any:
    """A CEL result as plain JSON values (message constructions become dicts)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


_TOKEN = re.compile(r"""
    (?P<ws>\s+)|
    (?P<float>\d+\.\d+(?:[eE][+-]?\d+)?)|
    (?P<int>\d+)u?|
    (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|
    (?P<op>\|\||&&|==|!=|<=|>=|[-+*/%<>!?:.,()\[\]{}])|
    (?P<id>[A-Za-z_][A-Za-z0-9_]*)
""", re.VERBOSE)

_MACROS = ("all", "exists", "exists_one", "map", "filter")
_BINARY = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3, "in": 3, "+": 4, "-": 4,
           "*": 5, "/": 5, "%": 5}


def _unescape(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), body)


def _tokens(src: str) -> list[tuple[str, Any, int]]:
    out: list[tuple[str, Any, int]] = []
    pos = 0
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if m is None:
            raise CELError(f"Syntax error: token recognition error at: '{src[pos]}' (column {pos + 1})")
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "float":
            out.append(("lit", float(text), pos))
        elif kind == "int":
            out.append(("lit", int(text), pos))
        elif kind == "str":
            out.append(("lit", _unescape(text), pos))
        elif kind == "op":
            out.append(("op", text, pos))
        elif kind == "id":
            if text in ("true", "false"):
                out.append(("lit", text == "true", pos))
            elif text == "null":
                out.append(("lit", None, pos))
            elif text == "in":
                out.append(("op", "in", pos))
            else:
                out.append(("id", text, pos))
        pos = m.end()
    out.append(("end", None, len(src)))
    return out


# AST nodes are tuples: ("lit", v) ("var", name) ("sel", e, name) ("idx", e, i) ("un", op, e) ("bin", op, a, b)
# ("cond", c, a, b) ("call", name, target|None, [args]) ("has", e) ("macro", name, target, var, body) ("list", [..])
# ("map", [(k, v)..])


class _Parser:
    def __init__(self, src: str):
        self.src = src
        self.toks = _tokens(src)
        self.i = 0

    def peek(self) -> tuple[str, Any, int]:
        return self.toks[self.i]

    def take(self, value: Any = None) -> tuple[str, Any, int]:
        t = self.toks[self.i]
        if value is not None and t[1] != value:
            raise CELError(f"Syntax error: expected '{value}' at column {t[2] + 1}")
        self.i += 1
        return t

    def parse(self) -> tuple:
        e = self.expr()
        if self.peek()[0] != "end":
            raise CELError(f"Syntax error: unexpected '{self.peek()[1]}' at column {self.peek()[2] + 1}")
        return e

    def expr(self) -> tuple:
        c = self.binary(1)
        if self.peek()[1] == "?":
            self.take("?")
            a = self.expr()
            self.take(":")
            b = self.expr()
            return ("cond", c, a, b)
        return c

    def binary(self, level: int) -> tuple:
        left = self.unary()
        while True:
            t = self.peek()
            prec = _BINARY.get(t[1]) if t[0] == "op" else None
            if prec is None or prec < level:
                return left
            self.take()
            right = self.binary(prec + 1)
            left = ("bin", t[1], left, right)

    def unary(self) -> tuple:
        t = self.peek()
        if t[0] == "op" and t[1] in ("!", "-"):
            self.take()
            return ("un", t[1], self.unary())
        return self.postfix(self.primary())

    def args(self) -> list[tuple]:
        self.take("(")
        out = []
        if self.peek()[1] != ")":
            out.append(self.expr())
            while self.peek()[1] == ",":
                self.take(",")
                out.append(self.expr())
        self.take(")")
        return out

    def primary(self) -> tuple:
        t = self.take()
        if t[0] == "lit":
            return ("lit", t[1])
        if t[0] == "id":
            name = self.type_name(t[1])
            if name is not None:
                return ("msg", name, self.field_inits(name))
            if self.peek()[1] == "(":
                args = self.args()
                if t[1] == "has":
                    if len(args) != 1 or args[0][0] != "sel":
                        raise CELError("invalid argument to has() macro")
                    return ("has", args[0])
                return ("call", t[1], None, args)
            return ("var", t[1])
        if t[1] == "(":
            e = self.expr()
            self.take(")")
            return e
        if t[1] == "[":
            items = []
            while self.peek()[1] != "]":
                items.append(self.expr())
                if self.peek()[1] != ",":
                    break
                self.take(",")  # a trailing comma is allowed
            self.take("]")
            return ("list", items)
        if t[1] == "{":
            pairs = []
            while self.peek()[1] != "}":
                k = self.expr()
                self.take(":")
                pairs.append((k, self.expr()))
                if self.peek()[1] != ",":
                    break
                self.take(",")
            self.take("}")
            return ("map", pairs)
        raise CELError(f"Syntax error: unexpected '{t[1]}' at column {t[2] + 1}")

    def type_name(self, first: str) -> str | None:
        """A message construction ``Name{`` or ``Name.a.b{`` ahead: consume the dotted name and return it."""
        j, parts = self.i, [first]
        while self.toks[j][1] == "." and self.toks[j + 1][0] == "id":
            parts.append(self.toks[j + 1][1])
            j += 2
        if self.toks[j][1] != "{" or self.toks[j][0] != "op":
            return None
        name = ".".join(parts)
        if name != "JSONPatch" and parts[0] != "Object":
            raise CELError(f"undeclared reference to '{name}'")
        self.i = j
        return name

    def field_inits(self, name: str) -> list[tuple[str, tuple]]:
        """``{field: expr, ...}`` of a message construction (a trailing comma allowed)."""
        self.take("{")
        fields: list[tuple[str, tuple]] = []
        while self.peek()[1] != "}":
            f = self.take()
            if f[0] != "id":
                raise CELError(f"Syntax error: expected a field name at column {f[2] + 1}")
            if name == "JSONPatch" and f[1] not in JSONPATCH_FIELDS:
                raise CELError(f"undefined field '{f[1]}'")
            self.take(":")
            fields.append((f[1], self.expr()))
            if self.peek()[1] != ",":
                break
            self.take(",")
        self.take("}")
        return fields

    def postfix(self, e: tuple) -> tuple:
        while True:
            t = self.peek()
            if t[1] == ".":
                self.take()
                optional = self.peek()[1] == "?"
                if optional:  # ``a.?b``: optional field selection
                    self.take()
                name = self.take()
                if name[0] != "id":
                    raise CELError(f"Syntax error: expected a field name at column {name[2] + 1}")
                if self.peek()[1] == "(":
                    args = self.args()
                    if name[1] in _MACROS:
                        if len(args) != 2 or args[0][0] != "var":
                            raise CELError(f"invalid arguments to {name[1]}() macro")
                        e = ("macro", name[1], e, args[0][1], args[1])
                    else:
                        e = ("call", name[1], e, args)
                else:
                    e = ("optsel" if optional else "sel", e, name[1])
            elif t[1] == "[":
                self.take()
                optional = self.peek()[1] == "?"
                if optional:  # ``a[?k]``: optional index
                    self.take()
                i = self.expr()
                self.take("]")
                e = ("optidx" if optional else "idx", e, i)
            else:
                return e


def compile_expression(src: str) -> tuple:
    """Parse ``src`` into the evaluator's tree.

    Raises
    ------
    CELError
        For a syntax error or an unsupported construct.

    Examples
    --------
    >>> compile_expression("object.spec.replicas <= 5")[0]
    'bin'
    """
    return _Parser(src).parse()


#: Names a call may be qualified by (``jsonpatch.escapeKey``, ``optional.of``): libraries, not variables.
LIBRARY_NAMESPACES = frozenset({"optional", "jsonpatch", "math", "strings", "sets", "lists", "base64"})


def _free_variables(n: Any, bound: frozenset = frozenset()) -> set[str]:
    """The variable names a parsed expression reads that no macro binds."""
    if isinstance(n, list):
        return set().union(*(_free_variables(x, bound) for x in n)) if n else set()
    if not isinstance(n, tuple) or not n:
        return set()
    if n[0] == "var" and len(n) == 2 and isinstance(n[1], str):
        return set() if n[1] in bound else {n[1]}
    if n[0] == "macro" and len(n) == 5:
        return _free_variables(n[2], bound) | _free_variables(n[4], bound | {n[3]})
    if n[0] == "call" and len(n) == 4 and n[2] is not None and n[2][0] == "var" and n[2][1] in LIBRARY_NAMESPACES:
        return _free_variables(n[3], bound)
    return set().union(*(_free_variables(x, bound) for x in n[1:] if isinstance(x, (tuple, list))))


_AT_COLUMN = re.compile(r"(?: at column (\d+)| \(column (\d+)\))$")


def _display(src: str, pos: int, message: str) -> str:
    """One cel-go issue as ``Issues.String()`` shows it: ``ERROR: <input>:line:col: msg``, the line, a caret."""
    line = src.count("\n", 0, pos) + 1
    start = src.rfind("\n", 0, pos) + 1
    end = src.find("\n", pos)
    col = pos - start + 1
    text = src[start:] if end < 0 else src[start:end]
    return f"ERROR: <input>:{line}:{col}: {message}\n | {text}\n | {'.' * (col - 1)}^"


def syntax_error_text(src: str, error: CELError) -> str:
    """A syntax error of :func:`compile_expression` in cel-go's display form (position, source line, caret).

    The message itself is the model's parser's (cel-go's ANTLR texts, ``mismatched input ... expecting
    {...}``, are not reproduced); the end of input is named ``<EOF>`` as cel-go names it.

    Examples
    --------
    >>> src = "object.x =="
    >>> try:
    ...     compile_expression(src)
    ... except CELError as e:
    ...     print(syntax_error_text(src, e))
    ERROR: <input>:1:12: Syntax error: unexpected '<EOF>'
     | object.x ==
     | ...........^
    """
    text = str(error)
    m = _AT_COLUMN.search(text)
    if m is None:
        return f"ERROR: <input>: {text}"
    pos = min(int(m.group(1) or m.group(2)) - 1, len(src))
    return _display(src, pos, text[:m.start()].replace("'None'", "'<EOF>'"))


def compile_issues(src: str, declared: frozenset | set) -> str:
    """cel-go's ``Issues.String()`` for references to variables the environment does not declare, or ``""``.

    Upstream compiles each admission expression in an environment that declares
    only some variables (a webhook's ``matchConditions`` have no ``params``); a
    reference to any other name is a compile error, reported once per
    occurrence with its line, column and a caret under it.

    Parameters
    ----------
    src : str
        The expression (it must parse: see :func:`compile_expression`).
    declared : set of str
        The variables the environment declares (``object``, ``request``...).

    Returns
    -------
    str
        ``""`` when every name is declared.

    Raises
    ------
    CELError
        When ``src`` does not parse.

    References
    ----------
    google/cel-go common/errors.go (``ToDisplayString``); kubernetes/kubernetes@v1.34.0
    staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/compile.go ("compilation failed: ").

    Examples
    --------
    >>> print(compile_issues("params.x == 1", {"object", "oldObject", "request"}))
    ERROR: <input>:1:1: undeclared reference to 'params' (in container '')
     | params.x == 1
     | ^
    >>> compile_issues("object.items.all(i, i > 0)", {"object"})
    ''
    """
    missing = _free_variables(compile_expression(src)) - set(declared)
    if not missing:
        return ""
    out = []
    toks = _tokens(src)
    for j, (kind, value, pos) in enumerate(toks):
        if kind != "id" or value not in missing or (j and toks[j - 1][:2] == ("op", ".")):
            continue
        out.append(_display(src, pos, f"undeclared reference to '{value}' (in container '')"))
    return "\n".join(out)


_CALL_TYPES = {"size": "int", "int": "int", "double": "double", "string": "string", "startsWith": "bool",
               "endsWith": "bool", "contains": "bool", "matches": "bool", "lowerAscii": "string",
               "upperAscii": "string", "hasValue": "bool"}
_LITERAL_TYPES = {bool: "bool", int: "int", float: "double", str: "string", type(None): "null_type"}


def output_type(expr: "str | tuple") -> "str | None":
    """The type cel-go's checker gives an expression, where the model's subset can tell it without a schema.

    Literals, comparisons, ``in``, ``!``, ``&&``/``||``, ``has()``, ``size()``, the string functions and the
    ``all``/``exists``/``exists_one`` macros have a fixed type (``bool``, ``int``, ``double``, ``string``,
    ``list``, ``map``, ``null_type``); arithmetic has its operands' type when both are known and equal, and
    ``c ? a : b`` its branches'. Anything that reads a variable's fields is ``dyn`` to the model (upstream
    types ``object`` from the resource's schema): ``None``, which no return-type check refuses.

    Examples
    --------
    >>> [output_type(e) for e in ("object.x > 1", "size(object.items) + 1", "'a' + 'b'", "object.x", "[1, 2]")]
    ['bool', 'int', 'string', None, 'list']

    References
    ----------
    google/cel-go checker/checker.go; kubernetes/kubernetes@v1.34.0
    staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/compile.go (``ast.OutputType()``)
    """
    n = compile_expression(expr) if isinstance(expr, str) else expr
    k = n[0]
    if k == "lit":
        return _LITERAL_TYPES.get(type(n[1]))
    if k in ("list", "map"):
        return k
    if k == "has":
        return "bool"
    if k == "un":
        t = output_type(n[2])
        return "bool" if n[1] == "!" else t if t in ("int", "double") else None
    if k == "bin":
        if n[1] in ("&&", "||", "==", "!=", "<", "<=", ">", ">=", "in"):
            return "bool"
        a, b = output_type(n[2]), output_type(n[3])
        if a is None or a != b:
            return None
        if n[1] == "+":
            return a if a in ("int", "double", "string", "list") else None
        return a if a in ("int", "double") else None
    if k == "cond":
        a = output_type(n[2])
        return a if a is not None and a == output_type(n[3]) else None
    if k == "macro":
        return "bool" if n[1] in ("all", "exists", "exists_one") else "list"
    if k == "call":
        if n[2] is not None and n[2][0] == "var" and n[2][1] in LIBRARY_NAMESPACES:
            return "string" if (n[2][1], n[1]) == ("jsonpatch", "escapeKey") else None
        return _CALL_TYPES.get(n[1])
    return None


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _eval(n: tuple, env: dict) -> Any:
    k = n[0]
    if k == "lit":
        return n[1]
    cost = env.get(_COST)
    if cost is not None:
        own = _OWN_COST.get(k)
        if (k == "un" and n[1] == "-" and n[2][0] == "lit") or (k in ("list", "map") and _constant(n)):
            own = 0  # -1 and [1, 2] are constants
        elif k in ("idx", "optidx") and n[2][0] != "lit":
            own = 0  # a computed index is charged for its operand only
        if own:
            cost.add(own)
    if k == "var":
        if n[1] not in env:
            raise CELError(f"undeclared reference to '{n[1]}'")
        return env[n[1]]
    if k in ("sel", "idx", "optsel", "optidx"):
        o = _eval(n[1], env)
        key = n[2] if k in ("sel", "optsel") else _eval(n[2], env)
        if k in ("optsel", "optidx") or isinstance(o, Optional):  # an optional chain stays optional
            if isinstance(o, Optional):
                if not o.present:
                    return o
                o = o.value
            if isinstance(o, dict):
                return Optional(True, o[key]) if key in o else Optional(False)
            if isinstance(o, list) and isinstance(key, int) and not isinstance(key, bool):
                return Optional(True, o[key]) if 0 <= key < len(o) else Optional(False)
            raise CELError("no such overload")
        if k == "sel":
            if not isinstance(o, dict) or key not in o:
                raise CELError(f"no such key: {key}")
            return o[key]
        if isinstance(o, list):
            if not isinstance(key, int) or isinstance(key, bool) or not 0 <= key < len(o):
                raise CELError(f"index out of bounds: {key}")
            return o[key]
        if isinstance(o, dict):
            if key not in o:
                raise CELError(f"no such key: {key}")
            return o[key]
        raise CELError("no such overload")
    if k == "has":
        sel = n[1]
        try:
            o = _eval(sel[1], env)
        except CELError:
            raise
        return isinstance(o, dict) and sel[2] in o
    if k == "list":
        return [_eval(x, env) for x in n[1]]
    if k == "map":
        return {_eval(a, env): _eval(b, env) for a, b in n[1]}
    if k == "msg":
        return ObjectVal(n[1], {f: _eval(e, env) for f, e in n[2]})
    if k == "cond":
        c = _eval(n[1], env)
        if not isinstance(c, bool):
            raise CELError("no matching overload for '_?_:_'")
        return _eval(n[2] if c else n[3], env)
    if k == "un":
        v = _eval(n[2], env)
        if n[1] == "!":
            if not isinstance(v, bool):
                raise CELError("no matching overload for '!_'")
            return not v
        if not _num(v):
            raise CELError("no matching overload for '-_'")
        return -v
    if k == "bin":
        return _binary(n[1], n[2], n[3], env)
    if k == "call" and n[2] == ("var", "optional") and "optional" not in env:
        args = [_eval(a, env) for a in n[3]]
        if n[1] == "of" and len(args) == 1:
            return Optional(True, args[0])
        if n[1] == "none" and not args:
            return Optional(False)
        raise CELError(f"found no matching overload for 'optional.{n[1]}'")
    if k == "call" and n[2] == ("var", "jsonpatch") and "jsonpatch" not in env:
        args = [_eval(a, env) for a in n[3]]
        if n[1] != "escapeKey" or len(args) != 1 or not isinstance(args[0], str):
            raise CELError(f"found no matching overload for 'jsonpatch.{n[1]}'")
        return args[0].replace("~", "~0").replace("/", "~1")
    if k == "call":
        target, args = None if n[2] is None else _eval(n[2], env), [_eval(a, env) for a in n[3]]
        if cost is not None:
            cost.add(_call_cost(n[1], target, args))
        return _call(n[1], target, args)
    if k == "macro":
        return _macro(n[1], _eval(n[2], env), n[3], n[4], env)
    raise CELError(f"unsupported expression {k}")  # pragma: no cover


#: The cost a node adds by itself, before its operands' (calls and operators are charged on their values).
_OWN_COST = {"var": 1, "sel": 1, "idx": 1, "optsel": 1, "optidx": 1, "list": 10, "map": 30, "msg": 40, "un": 1,
             "call": 0}


def _constant(n: tuple) -> bool:
    """A literal, or a list or map literal of constants (folded by cel-go, so free at runtime)."""
    if n[0] == "lit":
        return True
    if n[0] == "un" and n[1] == "-" and n[2][0] == "lit":
        return True
    if n[0] == "list":
        return all(_constant(x) for x in n[1])
    if n[0] == "map":
        return all(_constant(a) and _constant(b) for a, b in n[1])
    return False


def _call_cost(name: str, target: Any, args: list) -> int:
    if isinstance(target, str) and len(args) == 1 and isinstance(args[0], str):
        if name in ("startsWith", "endsWith"):
            return _ceil(len(target) * _TRAVERSAL)
        if name == "contains":
            return _ceil(len(target) * _TRAVERSAL) * _ceil(len(args[0]) * _TRAVERSAL)
        if name == "matches":
            return _ceil((len(target) + 1) * _TRAVERSAL) * _ceil(len(args[0]) * _REGEX_FACTOR)
    if isinstance(target, str) and not args and name in ("lowerAscii", "upperAscii"):
        return _ceil(len(target) * _TRAVERSAL)
    return 1


def _binary_cost(op: str, x: Any, y: Any) -> int:
    if op in ("==", "!=") or (op in ("<", "<=", ">", ">=") and isinstance(x, str)):
        return _ceil(min(_actual_size(x), _actual_size(y)) * _TRAVERSAL)
    if op == "in":
        return len(y) if isinstance(y, list) else 1
    if op == "+" and isinstance(x, str):
        return _ceil((len(x) + _actual_size(y)) * _TRAVERSAL)
    return 1


def _logic(op: str, a: tuple, b: tuple, env: dict) -> bool:
    short = op == "&&"  # false && x == false; true || x == true, even when x is an error
    err: CELError | None = None
    vals = []
    for side in (a, b):
        try:
            v = _eval(side, env)
        except CELError as e:
            if str(e) == COST_LIMIT_EXCEEDED:  # cel-go cancels the whole evaluation: nothing absorbs it
                raise
            err = err or e
            continue
        if not isinstance(v, bool):
            raise CELError(f"no matching overload for '_{op}_'")
        if v is not short:
            return v
        vals.append(v)
    if err is not None:
        raise err
    return short


def _binary(op: str, a: tuple, b: tuple, env: dict) -> Any:
    if op in ("&&", "||"):
        return _logic(op, a, b, env)
    x, y = _eval(a, env), _eval(b, env)
    cost = env.get(_COST)
    if cost is not None:
        cost.add(_binary_cost(op, x, y))
    if op in ("==", "!="):
        return (x == y and type(x) is type(y) or (_num(x) and _num(y) and x == y)) is (op == "==")
    if op == "in":
        if isinstance(y, (list, dict)):
            return x in y
        raise CELError("no matching overload for '@in'")
    if op in ("<", "<=", ">", ">="):
        if not ((_num(x) and _num(y)) or (isinstance(x, str) and isinstance(y, str))):
            raise CELError(f"no matching overload for '_{op}_'")
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
    if op == "+":
        if (_num(x) and _num(y)) or (isinstance(x, str) and isinstance(y, str)) or (
                isinstance(x, list) and isinstance(y, list)):
            return x + y
        raise CELError("no matching overload for '_+_'")
    if not (_num(x) and _num(y)):
        raise CELError(f"no matching overload for '_{op}_'")
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if y == 0:
        raise CELError("division by zero" if op == "/" else "modulus by zero")
    if op == "/":
        return int(x / y) if isinstance(x, int) and isinstance(y, int) else x / y
    return x - y * int(x / y) if isinstance(x, int) and isinstance(y, int) else x % y


def _call(name: str, target: Any, args: list) -> Any:
    if isinstance(target, Optional):
        if name == "orValue" and len(args) == 1:
            return target.value if target.present else args[0]
        if name == "hasValue" and not args:
            return target.present
        if name == "value" and not args:
            if not target.present:
                raise CELError("optional.none() dereference")
            return target.value
        raise CELError(f"found no matching overload for '{name}'")
    if target is None and name in ("size", "int", "string", "double") and len(args) == 1:
        target, args = args[0], []
    if name == "size":
        if isinstance(target, (str, list, dict)):
            return len(target)
        raise CELError("no matching overload for 'size'")
    if name == "int":
        try:
            return int(target)
        except (TypeError, ValueError):
            raise CELError(f"cannot convert {target!r} to int") from None
    if name == "double":
        return float(target)
    if name == "string":
        return "true" if target is True else "false" if target is False else str(target)
    if isinstance(target, str):
        if name == "startsWith":
            return target.startswith(args[0])
        if name == "endsWith":
            return target.endswith(args[0])
        if name == "contains":
            return args[0] in target
        if name == "matches":
            return re.search(args[0], target) is not None
        if name == "lowerAscii":
            return target.lower()
        if name == "upperAscii":
            return target.upper()
    raise CELError(f"found no matching overload for '{name}'")


def _macro(name: str, target: Any, var: str, body: tuple, env: dict) -> Any:
    items = list(target) if isinstance(target, (list, dict)) else None
    if items is None:
        raise CELError(f"no matching overload for '{name}'")

    cost = env.get(_COST)
    if cost is not None:  # what cel-go's expansion of the macro costs at runtime beyond its body
        return _macro_costed(name, items, var, body, env, cost)

    def run(x: Any) -> Any:
        return _eval(body, {**env, var: x})

    if name == "all":
        return all(run(x) is True for x in items)
    if name == "exists":
        return any(run(x) is True for x in items)
    if name == "exists_one":
        return sum(1 for x in items if run(x) is True) == 1
    if name == "map":
        return [run(x) for x in items]
    return [x for x in items if run(x) is True]


def _macro_costed(name: str, items: list, var: str, body: tuple, env: dict, cost: CostTracker) -> Any:
    """:func:`_macro` charging cel-go's expansion: the loop condition before each element (``all`` and ``exists``
    stop when it fails, after the element that decided), the step, and the result."""
    cost.add(2 if name == "exists_one" else 1)  # the result: r == 1, or r
    out: list = []
    for i, x in enumerate(items):
        if name in ("all", "exists"):
            cost.add(3 if name == "all" else 4)  # @not_strictly_false(r) (or (!r)), and r in the step
        elif name == "map":
            cost.add(12)  # r + [body]
        got = _eval(body, {**env, var: x})
        if name in ("all", "exists") and (got is True) is (name == "exists"):
            if i + 1 < len(items):
                cost.add(2 if name == "all" else 3)  # the condition that stops the loop
            return name == "exists"
        if name == "map":
            out.append(got)
        elif got is True and name in ("exists_one", "filter"):
            cost.add(2 if name == "exists_one" else 13)  # r + 1; r + [x]
            out.append(x)
    if name == "all":
        return True
    if name == "exists":
        return False
    if name == "exists_one":
        return len(out) == 1
    return out


def evaluate(expr: "str | tuple", env: dict, cost: "CostTracker | None" = None) -> Any:
    """Evaluate a CEL expression (source or compiled) over ``env``'s variables (``cost``: counts its actual cost).

    Raises
    ------
    CELError
        For a compile error or an evaluation error (``no such key: x``).

    Examples
    --------
    >>> env = {"object": {"spec": {"replicas": 3, "containers": [{"image": "nginx:1.27"}]}}}
    >>> evaluate("object.spec.replicas <= 5 && object.spec.containers.all(c, c.image.startsWith('nginx'))", env)
    True
    >>> evaluate("has(object.spec.paused) || size(object.spec.containers) > 1", env)
    False
    >>> evaluate("object.spec.paused", env)
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.admission.cel.CELError: no such key: paused
    """
    tree = compile_expression(expr) if isinstance(expr, str) else expr
    return _eval(tree, env if cost is None else {**env, _COST: cost})

