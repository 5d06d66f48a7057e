"""The cost of ``x-kubernetes-validations`` rules: cel-go's static estimate, and the limits kube-apiserver enforces.

When a CRD is written, kube-apiserver estimates the worst-case cost of every
rule from the rule's expression and the schema's declared sizes, multiplies
it by the most times the rule can run in one object (its *cardinality*), and
refuses the CRD when one rule's estimate exceeds
:data:`STATIC_ESTIMATED_COST_LIMIT` or the sum over the schema exceeds
:data:`STATIC_ESTIMATED_CRD_COST_LIMIT`.

Sizes come from the schema as upstream's ``SchemaDeclType`` derives them:
``maxItems``/``maxProperties``, ``maxLength`` (times 4, bytes per code point),
the longest ``enum`` value, else the most a 3 MiB request can hold given the
element's smallest serialized form (``estimateMaxStringLengthPerRequest``,
``estimateMaxArrayItemsFromMinSize``, ``estimateMaxAdditionalPropertiesFromMinSize``).

The per-node costs are cel-go's (``checker/cost.go``): identifiers and field
selections 1, constants 0, O(1) calls 1, ``&&``/``||`` the sum of their sides,
``c ? a : b`` the condition plus the dearer branch; string equality and
ordering, ``startsWith``/``endsWith``, ``contains``, ``matches``, string
concatenation and ``lowerAscii``/``upperAscii`` scale with the strings'
sizes (0.1 per byte, 0.25 per regex byte); ``in`` a list scales with its
size; list, map and message literals cost 10, 30 and 40. A comprehension
(``all``, ``exists``, ``exists_one``, ``map``, ``filter``) costs its range and
result plus the range's size times its loop condition and step, so nested
comprehensions multiply.

Notes
-----
Only the maximum of cel-go's (min, max) estimate is computed: upstream checks
``MaxCost`` only. Not modelled: string formats ``byte``, ``duration``,
``date``, ``date-time`` (estimated as strings: the model's CEL subset has no
bytes, durations or timestamps), the Kubernetes CEL libraries (quantity, url,
ip, lists, regex ``find``, ``format``...), and the embedded-resource fields of
``x-kubernetes-embedded-resource`` nodes other than the root's.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model/schemas.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/apis/cel/config.go
google/cel-go@v0.26.0 checker/cost.go
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kubenotes.apiserver.admission.cel import LIBRARY_NAMESPACES, CELError, compile_expression
from kubenotes.apiserver.validation import FORBIDDEN, FieldErr

__all__ = ["MAX_REQUEST_SIZE_BYTES", "PER_CALL_LIMIT", "RUNTIME_CEL_COST_BUDGET", "STATIC_ESTIMATED_COST_LIMIT",
           "STATIC_ESTIMATED_CRD_COST_LIMIT", "Decl", "schema_decl", "estimate_cost", "max_cardinality",
           "cost_error_message", "rule_cost_errors"]

#: The largest request body kube-apiserver accepts, 3 MiB (``celconfig.MaxRequestSizeBytes``).
MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
#: The runtime cost limit of one rule evaluation (``celconfig.PerCallLimit``).
PER_CALL_LIMIT = 1_000_000
#: The runtime cost budget of all rules on one object (``celconfig.RuntimeCELCostBudget``).
RUNTIME_CEL_COST_BUDGET = 10_000_000
#: The estimated cost limit of one rule times its cardinality (``StaticEstimatedCostLimit``).
STATIC_ESTIMATED_COST_LIMIT = 10_000_000
#: The estimated cost limit of all rules of one schema (``StaticEstimatedCRDCostLimit``).
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000

_UINT64_MAX = 2 ** 64 - 1
_STRING_TRAVERSAL = 0.1
_REGEX_STRING_LENGTH = 0.25
_LIST_CREATE, _MAP_CREATE, _STRUCT_CREATE = 10, 30, 40
_SCALARS = ("int", "double", "bool", "null")
_MOST_EXPENSIVE = 4


def _sat(n: int) -> int:
    return min(n, _UINT64_MAX)


def _factor(size: int, per_unit: float) -> int:
    return _sat(math.ceil(size * per_unit))


@dataclass
class Decl:
    """The CEL type a schema node declares, with upstream's size bounds (``model.DeclType``).

    Attributes
    ----------
    kind : str
        ``object``, ``map``, ``list``, ``string``, ``int``, ``double``, ``bool`` or ``dyn``.
    min_size : int
        The smallest serialized JSON form, in bytes (``MinSerializedSize``).
    max_elements : int
        Items, properties or string bytes at most (``MaxElements``; 0 for scalars).
    elem, key : Decl or None
        A list's items or a map's values; a map's keys.
    fields : dict
        An object's properties.
    """

    kind: str
    min_size: int
    max_elements: int = 0
    elem: "Decl | None" = None
    key: "Decl | None" = None
    fields: dict = field(default_factory=dict)


def _string(s: dict) -> Decl:
    if isinstance(s.get("maxLength"), int):
        return Decl("string", 2, max(s["maxLength"], 0) * 4)
    enum = [v for v in s.get("enum") or () if isinstance(v, str)]
    if enum:
        return Decl("string", 2, max(len(v.encode()) for v in enum))
    return Decl("string", 2, MAX_REQUEST_SIZE_BYTES - 2)


def schema_decl(s: Any, resource_root: bool = False) -> Decl | None:
    """The :class:`Decl` of a structural schema node (``SchemaDeclType``); ``None`` for an untyped node.

    Examples
    --------
    >>> d = schema_decl({"type": "array", "items": {"type": "number"}})
    >>> d.kind, d.max_elements, d.elem.kind
    ('list', 1572863, 'double')
    >>> schema_decl({"type": "string", "maxLength": 10}).max_elements
    40
    """
    if not isinstance(s, dict):
        return None
    if s.get("x-kubernetes-int-or-string"):
        return Decl("dyn", 1, MAX_REQUEST_SIZE_BYTES - 2)
    t = s.get("type")
    if t == "array":
        items = schema_decl(s.get("items"))
        if items is None:
            return None
        mx = s.get("maxItems")
        n = max(mx, 0) if isinstance(mx, int) else (MAX_REQUEST_SIZE_BYTES - 2) // (items.min_size + 1)
        return Decl("list", 2, n, elem=items)
    if t == "object":
        extra = s.get("additionalProperties")
        if isinstance(extra, dict):
            vals = schema_decl(extra)
            if vals is None:
                return None
            mx = s.get("maxProperties")
            n = max(mx, 0) if isinstance(mx, int) else (MAX_REQUEST_SIZE_BYTES - 2) // (vals.min_size + 6)
            return Decl("map", 2, n, elem=vals, key=Decl("string", 2))
        fields = {k: d for k, v in (s.get("properties") or {}).items() if (d := schema_decl(v)) is not None}
        if resource_root or s.get("x-kubernetes-embedded-resource"):
            for k in ("apiVersion", "kind"):
                fields.setdefault(k, Decl("string", 2, MAX_REQUEST_SIZE_BYTES - 2))
            fields.setdefault("metadata", Decl("object", 2, fields={
                k: Decl("string", 2, MAX_REQUEST_SIZE_BYTES - 2) for k in ("name", "generateName")}))
        size = 2  # {}
        for k in s.get("required") or ():
            if k in fields:
                size += len(k) + 4 + fields[k].min_size  # "k":v,
        return Decl("object", size, fields=fields)
    if t == "string":
        return _string(s)
    if t == "integer":
        return Decl("int", 1)
    if t == "number":
        return Decl("double", 1)
    if t == "boolean":
        return Decl("bool", 4)
    return None


def max_cardinality(min_size: int) -> int:
    """How often a value of ``min_size`` serialized bytes fits in one request (``maxCardinality``).

    Examples
    --------
    >>> max_cardinality(2)
    1048576
    """
    return MAX_REQUEST_SIZE_BYTES // (min_size + 1)


@dataclass
class _Node:
    """One subexpression's estimate: its cost, its computed size, its schema declaration and CEL kind."""

    cost: int
    size: int | None = None
    decl: Decl | None = None
    kind: str | None = None


def _size(n: _Node) -> int:
    """cel-go's ``sizeOrUnknown``: computed size, then the schema's bound, then 1 for scalars, else unbounded."""
    if n.size is not None:
        return n.size
    if n.decl is not None:
        return n.decl.max_elements
    if n.kind in _SCALARS:
        return 1
    return _UINT64_MAX


def _lit_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "double"
    if isinstance(v, str):
        return "string"
    return "null"


def _kind_of(d: Decl | None) -> str | None:
    return None if d is None else d.kind


def _est(n: tuple, env: dict) -> _Node:
    k = n[0]
    if k == "lit":
        v = n[1]
        return _Node(0, len(v) if isinstance(v, str) else None, None, _lit_kind(v))
    if k == "var":
        d = env.get(n[1])
        return _Node(1, None, d, _kind_of(d))
    if k in ("sel", "optsel"):
        o = _est(n[1], env)
        d = o.decl.fields.get(n[2]) if o.decl is not None and o.decl.kind == "object" else None
        kind = _kind_of(d)
        if o.decl is not None and o.decl.kind == "map":
            kind = _kind_of(o.decl.elem)  # a map's value: typed, but without a path the estimator sizes
        own = 0 if o.kind == "dyn" else 1
        if k == "optsel":
            own = 1  # the ``_?._`` call
        return _Node(_sat(o.cost + own), None, d, kind)
    if k == "has":
        o = _est(n[1][1], env)  # presence tests add no cost of their own (PresenceTestHasCost false)
        return _Node(o.cost, None, None, "bool")
    if k in ("idx", "optidx"):
        o, i = _est(n[1], env), _est(n[2], env)
        d = o.decl.elem if o.decl is not None and o.decl.kind in ("list", "map") else None
        return _Node(_sat(o.cost + i.cost + 1), None, d, _kind_of(d))
    if k == "list":
        parts = [_est(x, env) for x in n[1]]
        return _Node(_sat(_LIST_CREATE + sum(p.cost for p in parts)), len(parts), None, "list")
    if k == "map":
        parts = [_est(x, env) for kv in n[1] for x in kv]
        return _Node(_sat(_MAP_CREATE + sum(p.cost for p in parts)), len(n[1]), None, "map")
    if k == "msg":
        parts = [_est(e, env) for _, e in n[2]]
        return _Node(_sat(_STRUCT_CREATE + sum(p.cost for p in parts)), None, None, "object")
    if k == "cond":
        c, a, b = _est(n[1], env), _est(n[2], env), _est(n[3], env)
        return _Node(_sat(c.cost + max(a.cost, b.cost)), max(_size(a), _size(b)), None, a.kind or b.kind)
    if k == "un":
        if n[1] == "-" and n[2][0] == "lit" and _lit_kind(n[2][1]) in ("int", "double"):
            return _Node(0, None, None, _lit_kind(n[2][1]))  # CEL parses -1.0 as one constant
        o = _est(n[2], env)
        return _Node(_sat(o.cost + 1), None, None, "bool" if n[1] == "!" else o.kind)
    if k == "bin":
        return _binary(n[1], _est(n[2], env), _est(n[3], env))
    if k == "call":
        lib = n[2] is not None and n[2][0] == "var" and n[2][1] in LIBRARY_NAMESPACES and n[2][1] not in env
        target = _est(n[2], env) if n[2] is not None and not lib else None
        args = [_est(a, env) for a in n[3]]
        return _call(n[1], target, args)
    if k == "macro":
        return _macro(n[1], _est(n[2], env), n[3], n[4], env)
    raise CELError(f"unsupported expression {k}")  # pragma: no cover


def _binary(op: str, a: _Node, b: _Node) -> _Node:
    args = _sat(a.cost + b.cost)
    if op in ("&&", "||"):
        return _Node(args, None, None, "bool")
    if op in ("==", "!=") or (op in ("<", "<=", ">", ">=") and "string" in (a.kind, b.kind)):
        return _Node(_sat(_factor(min(_size(a), _size(b)), _STRING_TRAVERSAL) + args), None, None, "bool")
    if op == "in":
        own = 1 if b.kind in ("map", "object") else _size(b)
        return _Node(_sat(own + args), None, None, "bool")
    if op == "+" and ("string" in (a.kind, b.kind) or "list" in (a.kind, b.kind)):
        size = _sat(_size(a) + _size(b))
        if "string" in (a.kind, b.kind):
            return _Node(_sat(_factor(size, _STRING_TRAVERSAL) + args), size, None, "string")
        return _Node(_sat(1 + args), size, None, "list")
    kind = "bool" if op in ("<", "<=", ">", ">=") else a.kind or b.kind
    return _Node(_sat(1 + args), None, None, kind)


_RESULT_KINDS = {"size": "int", "int": "int", "double": "double", "string": "string", "startsWith": "bool",
                 "endsWith": "bool", "contains": "bool", "matches": "bool", "hasValue": "bool"}


def _call(name: str, target: _Node | None, args: list[_Node]) -> _Node:
    argsum = _sat(sum(a.cost for a in args) + (target.cost if target is not None else 0))
    kind = _RESULT_KINDS.get(name)
    if target is not None and len(args) == 1:
        if name in ("startsWith", "endsWith"):
            return _Node(_sat(_factor(_size(args[0]), _STRING_TRAVERSAL) + argsum), None, None, kind)
        if name == "contains":
            own = _sat(_factor(_size(target), _STRING_TRAVERSAL) * _factor(_size(args[0]), _STRING_TRAVERSAL))
            return _Node(_sat(own + argsum), None, None, kind)
        if name == "matches":
            own = _sat(_factor(_sat(_size(target) + 1), _STRING_TRAVERSAL)
                       * _factor(_size(args[0]), _REGEX_STRING_LENGTH))
            return _Node(_sat(own + argsum), None, None, kind)
    if target is not None and not args and name in ("lowerAscii", "upperAscii"):
        size = _size(target)
        return _Node(_sat(_factor(size, _STRING_TRAVERSAL) + argsum), size, None, "string")
    return _Node(_sat(1 + argsum), None, None, kind)


def _macro(name: str, rng: _Node, var: str, body: tuple, env: dict) -> _Node:
    elem = None
    if rng.decl is not None and rng.decl.kind == "list":
        elem = rng.decl.elem
    elif rng.decl is not None and rng.decl.kind == "map":
        elem = rng.decl.key
    b = _est(body, {**env, var: elem})
    count = _size(rng)
    # cel-go's expansion of each macro: accumulator init, loop condition, loop step, result
    if name == "all":  # true; @not_strictly_false(r); r && body; r
        init, cond, step, result = 0, 2, b.cost + 1, 1
    elif name == "exists":  # false; @not_strictly_false(!r); r || body; r
        init, cond, step, result = 0, 3, b.cost + 1, 1
    elif name == "exists_one":  # 0; true; body ? r + 1 : r; r == 1
        init, cond, step, result = 0, 0, b.cost + 2, 2
    elif name == "map":  # []; true; r + [body]; r
        init, cond, step, result = _LIST_CREATE, 0, b.cost + 1 + 1 + _LIST_CREATE, 1
    else:  # filter: []; true; body ? r + [x] : r; r
        init, cond, step, result = _LIST_CREATE, 0, b.cost + 1 + 1 + _LIST_CREATE + 1, 1
    total = _sat(rng.cost + init + result + _sat(count * _sat(cond + step)))
    if name in ("all", "exists", "exists_one"):
        return _Node(total, None, None, "bool")
    return _Node(total, count, None, "list")


def estimate_cost(rule: "str | tuple", decl: Decl | None, old_self: bool = True) -> int:
    """The estimated worst-case cost of one rule with ``self`` (and ``oldSelf``) of type ``decl`` (``MaxCost``).

    Raises
    ------
    CELError
        When the rule does not compile.

    Examples
    --------
    >>> nums = {"type": "array", "items": {"type": "number"}}
    >>> estimate_cost("self.all(x, true)", schema_decl(nums))
    4718591
    >>> estimate_cost("self.all(x, true)", schema_decl({**nums, "maxItems": 10}))
    32
    """
    tree = compile_expression(rule) if isinstance(rule, str) else rule
    env = {"self": decl}
    if old_self:
        env["oldSelf"] = decl
    return _est(tree, env).cost


def cost_error_message(cost_name: str, cost: int, limit: int) -> str:
    """Upstream's ``getCostErrorMessage``: how far ``cost`` exceeds ``limit``, and the usual fix.

    Examples
    --------
    >>> cost_error_message("estimated rule cost", 25_000_000, STATIC_ESTIMATED_COST_LIMIT)[:55]
    'estimated rule cost exceeds budget by factor of 2.5x (t'
    """
    factor = cost / limit
    if factor > 100.0:
        text = "more than 100x"
    elif factor < 1.5:
        text = f"{factor:f}x"
    else:
        text = f"{factor:.1f}x"
    return (f"{cost_name} exceeds budget by factor of {text} (try simplifying the rule, or adding maxItems, "
            f"maxProperties, and maxLength where arrays, maps, and strings are declared)")


def _observe(s: dict, path: str, cardinality: int | None, resource_root: bool, out: list[FieldErr],
             total: list, per_expression: bool) -> None:
    rules = s.get("x-kubernetes-validations") or ()
    if rules:
        decl = schema_decl(s, resource_root)
        card = cardinality if cardinality is not None else (max_cardinality(decl.min_size) if decl else 1)
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict) or not rule.get("rule"):
                continue
            try:
                raw = estimate_cost(rule["rule"], decl)
            except CELError:
                continue  # refused as a compile error
            cost = _sat(raw * card)
            f = f"{path}.x-kubernetes-validations[{i}].rule"
            if per_expression and cost > STATIC_ESTIMATED_COST_LIMIT:
                out.append(FieldErr(FORBIDDEN, f, detail=cost_error_message("estimated rule cost", cost,
                                                                              STATIC_ESTIMATED_COST_LIMIT)))
            total.append((f, cost))
            if rule.get("messageExpression"):
                try:  # upstream does not multiply a messageExpression's estimate by the cardinality
                    mcost = estimate_cost(rule["messageExpression"], decl)
                except CELError:
                    continue
                f = f"{path}.x-kubernetes-validations[{i}].messageExpression"
                if per_expression and mcost > STATIC_ESTIMATED_COST_LIMIT:
                    out.append(FieldErr(FORBIDDEN, f, detail=cost_error_message(
                        "estimated messageExpression cost", mcost, STATIC_ESTIMATED_COST_LIMIT)))
                total.append((f, mcost))
    for k, ps in (s.get("properties") or {}).items():
        if isinstance(ps, dict):
            _observe(ps, f"{path}.properties[{k}]", cardinality, False, out, total, per_expression)
    for key, bound in (("items", "maxItems"), ("additionalProperties", "maxProperties")):
        if isinstance(s.get(key), dict):
            mx = s.get(bound)
            child = _sat(cardinality * max(mx, 0)) if isinstance(mx, int) and cardinality is not None else None
            _observe(s[key], f"{path}.{key}", child, False, out, total, per_expression)


def rule_cost_errors(schema: Any, path: str, per_expression: bool = True) -> list[FieldErr]:
    """The CRD field errors of rules whose estimated cost, times their cardinality, exceeds the limits.

    A ``messageExpression``'s estimate (not multiplied by the cardinality) has the same per-rule limit
    and counts towards the total, as upstream's does. ``per_expression=False`` skips the per-rule limit
    (upstream's ``suppressPerExpressionCost``, for a version whose schema an update leaves unchanged, so
    that a CRD accepted before a change of the estimator stays updatable).

    ``path`` is the field path of the ``openAPIV3Schema``. A rule over the per-rule limit is Forbidden at
    its ``rule``; when the schema's total exceeds the per-CRD limit, the (at most four) dearest rules are
    Forbidden as contributing, then the schema itself.

    Examples
    --------
    >>> s = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"tags": {
    ...     "type": "array", "items": {"type": "string"},
    ...     "x-kubernetes-validations": [{"rule": "self.all(x, x.contains('gpu'))"}]}}}}}
    >>> for e in rule_cost_errors(s, "o"): print(e.field, "|", e.detail[:47])
    o.properties[spec].properties[tags].x-kubernetes-validations[0].rule | estimated rule cost exceeds budget by factor of
    o.properties[spec].properties[tags].x-kubernetes-validations[0].rule | contributed to estimated rule cost total exceed
    o | x-kubernetes-validations estimated rule cost to
    """
    out: list[FieldErr] = []
    if not isinstance(schema, dict):
        return out
    total: list[tuple[str, int]] = []
    _observe(schema, path, 1, True, out, total, per_expression)
    if _sat(sum(c for _, c in total)) > STATIC_ESTIMATED_CRD_COST_LIMIT:
        for f, _ in sorted(total, key=lambda fc: -fc[1])[:_MOST_EXPENSIVE]:
            out.append(FieldErr(FORBIDDEN, f, detail="contributed to estimated rule cost total exceeding cost limit "
                                                     "for entire OpenAPIv3 schema"))
        out.append(FieldErr(FORBIDDEN, path, detail=cost_error_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            _sat(sum(c for _, c in total)), STATIC_ESTIMATED_CRD_COST_LIMIT)))
    return out
