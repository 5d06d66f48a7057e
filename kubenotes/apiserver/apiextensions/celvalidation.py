"""``x-kubernetes-validations``: the CEL rules of a CRD's schema, checked on every write of a custom resource.

Each rule is evaluated at its schema node with ``self`` bound to the value
there (and ``oldSelf`` to the stored value at the same place on an update:
a rule that uses ``oldSelf`` is a transition rule, evaluated only when there
is an old value unless ``optionalOldSelf``). A false rule is a field error at
the node's path (or its ``fieldPath``), whose bad value is the schema type
and whose detail is the rule's ``message`` (or ``messageExpression``), else
``failed rule: <rule>``; ``reason`` picks the error type (Invalid by
default, Forbidden, Required, Duplicate). A rule that does not compile
refuses the CRD.

Notes
-----
The CEL is the subset of :mod:`kubenotes.apiserver.admission.cel`: no type
checking against the schema, no Kubernetes CEL libraries. Rules are costed
as upstream costs them: statically when the CRD is written
(:mod:`.celcost`), and while they run, each evaluation limited to
:data:`~.celcost.PER_CALL_LIMIT` and all rules on one object to
:data:`~.celcost.RUNTIME_CEL_COST_BUDGET`. Old values are correlated through object
properties and ``additionalProperties`` (and list items of
``x-kubernetes-list-type: map`` by their keys), as upstream's ratcheting does.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go
https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules
"""

from __future__ import annotations

import json
from typing import Any

from kubenotes.apiserver.admission.cel import (COST_LIMIT_EXCEEDED, OUT_OF_BUDGET, CELError, CostTracker,
                                               compile_expression, evaluate)
from kubenotes.apiserver.apiextensions.celcost import PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET
from kubenotes.apiserver.validation import FORBIDDEN, INVALID, REQUIRED, FieldErr

__all__ = ["has_rules", "validate_rules", "rule_compile_errors"]

_ABSENT = object()
_REASONS = {"FieldValueInvalid": INVALID, "FieldValueForbidden": FORBIDDEN, "FieldValueRequired": REQUIRED,
            "FieldValueDuplicate": "FieldValueDuplicate"}


def has_rules(schema: Any) -> bool:
    """Whether any node of ``schema`` has ``x-kubernetes-validations``."""
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    kids = list((schema.get("properties") or {}).values())
    kids += [schema.get("items"), schema.get("additionalProperties")]
    return any(has_rules(k) for k in kids if isinstance(k, dict))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Budget:
    """What is left of the request's runtime cost budget; negative once validation has stopped."""

    def __init__(self, remaining: int):
        self.remaining = remaining


def _rule_error_string(rule: dict) -> str:
    return (rule.get("message") or rule.get("rule") or "").strip()


def _check(s: dict, v: Any, old: Any, path: str, out: list[FieldErr], budget: _Budget) -> None:
    rules = s.get("x-kubernetes-validations") or ()
    kind = s.get("type") or ("integer,string" if s.get("x-kubernetes-int-or-string") else "object")
    if rules and budget.remaining <= 0:
        out.append(FieldErr(INVALID, path or "<nil>", kind, OUT_OF_BUDGET))
        budget.remaining = -1
        return
    for rule in rules:
        src = rule.get("rule", "")
        transition = "oldSelf" in src
        if transition and old is _ABSENT and not rule.get("optionalOldSelf"):
            continue
        env = {"self": v}
        if transition:
            env["oldSelf"] = None if old is _ABSENT else old
        where = path or "<nil>"
        if rule.get("fieldPath"):
            where = _join(path, rule["fieldPath"].lstrip("."))
        cost = CostTracker(PER_CALL_LIMIT)
        err: CELError | None = None
        try:
            ok = evaluate(src, env, cost)
        except CELError as e:
            ok, err = None, e
        if cost.actual > budget.remaining:
            out.append(FieldErr(INVALID, path or "<nil>", kind, OUT_OF_BUDGET))
            budget.remaining = -1
            return
        budget.remaining -= cost.actual
        if err is not None and str(err) == COST_LIMIT_EXCEEDED:
            out.append(FieldErr(INVALID, path or "<nil>", kind, f"'{err}': no further validation rules will be run "
                                                                f"due to call cost exceeds limit for rule: "
                                                                f"{_rule_error_string(rule)}"))
            budget.remaining = -1
            return
        if err is not None:
            out.append(FieldErr(INVALID, where, kind, f"{src}: {err}"))
            continue
        if ok is True:
            continue
        msg = rule.get("message") or ""
        if rule.get("messageExpression"):
            mcost = CostTracker(PER_CALL_LIMIT)
            try:
                got = evaluate(rule["messageExpression"], env, mcost)
                msg = got if isinstance(got, str) and got.strip() else msg
            except CELError as e:
                if str(e) == COST_LIMIT_EXCEEDED:
                    out.append(FieldErr(INVALID, path or "<nil>", kind,
                                        "no further validation rules will be run due to call cost exceeds limit "
                                        f"for messageExpression: {json.dumps(rule['messageExpression'])}"))
                    budget.remaining = -1
                    return
            if mcost.actual > budget.remaining:
                out.append(FieldErr(INVALID, path or "<nil>", kind, "messageExpression evaluation failed due to "
                                                                    "running out of cost budget, no further "
                                                                    "validation rules will be run"))
                budget.remaining = -1
                return
            budget.remaining -= mcost.actual
        msg = msg or f"failed rule: {src}"
        etype = _REASONS.get(rule.get("reason") or "FieldValueInvalid", INVALID)
        out.append(FieldErr(etype, where, kind, msg) if etype == INVALID else FieldErr(etype, where, detail=msg))


def _walk(s: Any, v: Any, old: Any, path: str, out: list[FieldErr], budget: _Budget) -> None:
    if not isinstance(s, dict) or v is None or budget.remaining < 0:
        return
    _check(s, v, old, path, out, budget)
    if isinstance(v, dict):
        props = s.get("properties") or {}
        extra = s.get("additionalProperties")
        for k, x in v.items():
            child = props.get(k, extra if isinstance(extra, dict) else None)
            if child is None:
                continue
            o = old.get(k, _ABSENT) if isinstance(old, dict) else _ABSENT
            _walk(child, x, o, _join(path, k), out, budget)
    elif isinstance(v, list) and isinstance(s.get("items"), dict):
        keys = s.get("x-kubernetes-list-map-keys") if s.get("x-kubernetes-list-type") == "map" else None
        olds: dict = {}
        if keys and isinstance(old, list):
            for o in old:
                if isinstance(o, dict):
                    olds[tuple(o.get(k) for k in keys)] = o
        for i, x in enumerate(v):
            o = olds.get(tuple(x.get(k) for k in keys), _ABSENT) if keys and isinstance(x, dict) else _ABSENT
            _walk(s["items"], x, o, f"{path}[{i}]", out, budget)


def validate_rules(schema: dict, obj: dict, old: dict | None = None, budget: int | None = None) -> list[FieldErr]:
    """The field errors of ``obj``'s CEL rules (``old``: the stored object on an update).

    Each rule's evaluation is limited to ``PER_CALL_LIMIT`` and all of them together to ``budget``
    (``RUNTIME_CEL_COST_BUDGET`` by default), with upstream's errors when either is passed.

    Examples
    --------
    >>> s = {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-validations": [
    ...     {"rule": "self.minReplicas <= self.replicas", "message": "replicas must be at least minReplicas"}],
    ...     "properties": {"replicas": {"type": "integer"}, "minReplicas": {"type": "integer"},
    ...                    "mode": {"type": "string", "x-kubernetes-validations": [
    ...                        {"rule": "self == oldSelf", "message": "mode is immutable"}]}}}}}
    >>> [str(e) for e in validate_rules(s, {"spec": {"replicas": 1, "minReplicas": 2, "mode": "a"}})]
    ['spec: Invalid value: "object": replicas must be at least minReplicas']
    >>> [str(e) for e in validate_rules(s, {"spec": {"replicas": 2, "minReplicas": 2, "mode": "b"}},
    ...                                  {"spec": {"replicas": 2, "minReplicas": 2, "mode": "a"}})]
    ['spec.mode: Invalid value: "string": mode is immutable']
    """
    out: list[FieldErr] = []
    _walk(schema, {k: v for k, v in obj.items() if k != "metadata"},
          _ABSENT if old is None else {k: v for k, v in old.items() if k != "metadata"}, "", out,
          _Budget(RUNTIME_CEL_COST_BUDGET if budget is None else budget))
    return out


def rule_compile_errors(schema: Any, path: str) -> list[FieldErr]:
    """The CRD field errors of rules that do not compile (``path``: the schema's field path in the CRD)."""
    out: list[FieldErr] = []
    if not isinstance(schema, dict):
        return out
    for i, rule in enumerate(schema.get("x-kubernetes-validations") or ()):
        f = f"{path}.x-kubernetes-validations[{i}].rule"
        src = rule.get("rule", "") if isinstance(rule, dict) else ""
        if not src:
            out.append(FieldErr(REQUIRED, f))
            continue
        try:
            compile_expression(src)
        except CELError as e:
            out.append(FieldErr(INVALID, f, src, f"compilation failed: {e}"))
    for k, ps in (schema.get("properties") or {}).items():
        out += rule_compile_errors(ps, f"{path}.properties[{k}]")
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            out += rule_compile_errors(schema[key], f"{path}.{key}")
    return out
