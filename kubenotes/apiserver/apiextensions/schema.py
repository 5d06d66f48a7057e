"""Structural schemas of CustomResourceDefinitions: validation, defaulting and pruning of custom resources.

A custom resource is checked against its version's ``openAPIV3Schema`` as
the apiextensions-apiserver does: kube-openapi's schema validator reports
each violation with go-openapi's wording (``spec.replicas in body must be of
type integer: "string"``), and the apiextensions-apiserver turns each into a
``field.Error`` (Required, Unsupported value, Too long, Too many, Invalid
value), which is what a 422 lists. Before validation the decoder fills
``default`` values and prunes the fields the schema does not declare (unless
``x-kubernetes-preserve-unknown-fields``); with ``fieldValidation=Strict``
the pruned fields are refused instead, ``Warn`` sends them back as warnings.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/validation/validation.go (kubeOpenAPIResultToFieldErrors)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/algorithm.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go
kubernetes/kube-openapi@v0.0.0-2025 pkg/validation/validate/ and pkg/validation/errors/schema.go (the message texts)
https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation
"""

from __future__ import annotations

import base64
import datetime as _dt
import ipaddress
import json
import re
import uuid
from typing import Any, Iterable

from kubenotes.apiserver.store import deep_copy
from kubenotes.apiserver.validation import (INVALID, NOT_SUPPORTED, REQUIRED, TOO_LONG, FieldErr, render_value)

__all__ = ["validate", "default", "prune", "type_name", "TOO_MANY", "SUPPORTED_FORMATS", "walk_schemas"]

#: ``field.ErrorTypeTooMany``: ``Too many: 4: must have at most 3 items``.
TOO_MANY = "FieldValueTooMany"

#: The formats the apiextensions-apiserver checks (``supportedFormats``); any other format is not checked.
SUPPORTED_FORMATS = frozenset({"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid",
                               "uuid3", "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn",
                               "hexcolor", "rgbcolor", "byte", "password", "date", "duration", "datetime",
                               "date-time", "int32", "int64", "float", "double"})


class _TooMany(FieldErr):
    """``field.TooMany``: ``Too many: <actual>: must have at most <max> items``."""

    __slots__ = ()

    def body(self) -> str:
        return f"Too many: {self.value}: {self.detail}"


def type_name(v: Any) -> str:
    """The JSON type of a value as kube-openapi names it in a type error.

    Examples
    --------
    >>> [type_name(v) for v in ("a", 1, 1.5, True, None, {}, [])]
    ['string', 'integer', 'number', 'boolean', 'null', 'object', 'array']
    """
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "integer" if v.is_integer() else "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    return type(v).__name__


def _go_number(v: Any) -> str:
    """``%v`` of a float64 bound (``10``, ``0.5``)."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


_HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
_MAC = re.compile(r"^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_DURATION = re.compile(r"^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w))+$")
_HEXCOLOR = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_BSON = re.compile(r"^[0-9a-fA-F]{24}$")


def _format_ok(fmt: str, v: Any) -> bool:
    """Whether ``v`` (a string, or a number for the numeric formats) has format ``fmt``."""
    if fmt in ("int32", "int64"):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            return True
        bound = 2 ** 31 if fmt == "int32" else 2 ** 63
        return -bound <= v < bound
    if not isinstance(v, str):
        return True
    try:
        if fmt in ("date-time", "datetime"):
            return bool(_DATE_TIME.match(v))
        if fmt == "date":
            _dt.date.fromisoformat(v)
            return len(v) == 10
        if fmt in ("uuid", "uuid3", "uuid4", "uuid5"):
            u = uuid.UUID(v)
            return len(v) == 36 and (fmt == "uuid" or u.version == int(fmt[-1]))
        if fmt == "ipv4":
            ipaddress.IPv4Address(v)
        elif fmt == "ipv6":
            ipaddress.IPv6Address(v)
        elif fmt == "cidr":
            ipaddress.ip_network(v, strict=False)
            return "/" in v
        elif fmt == "byte":
            base64.b64decode(v, validate=True)
        elif fmt == "hostname":
            return bool(_HOSTNAME.match(v)) and len(v) <= 255
        elif fmt == "email":
            return bool(_EMAIL.match(v))
        elif fmt == "mac":
            return bool(_MAC.match(v))
        elif fmt == "duration":
            return bool(_DURATION.match(v))
        elif fmt == "hexcolor":
            return bool(_HEXCOLOR.match(v))
        elif fmt == "bsonobjectid":
            return bool(_BSON.match(v))
        elif fmt == "uri":
            return ":" in v
    except ValueError:
        return False
    return True


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _type_ok(t: str, v: Any) -> bool:
    if t == "object":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "string":
        return isinstance(v, str)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "integer":
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return True


def _invalid(path: str, v: Any, msg: str) -> FieldErr:
    return FieldErr(INVALID, path, v, msg)


def _validate(s: dict, v: Any, path: str, out: list[FieldErr]) -> None:
    if not isinstance(s, dict):
        return
    if v is None:
        if s.get("nullable") or s.get("x-kubernetes-preserve-unknown-fields") and not s.get("type"):
            return
        if not s.get("type") and not s.get("x-kubernetes-int-or-string"):
            return
    t = s.get("type", "")
    if s.get("x-kubernetes-int-or-string"):
        if not (isinstance(v, str) or _type_ok("integer", v)):
            name = type_name(v)
            out.append(_invalid(path, name, f'{path} in body must be of type integer,string: "{name}"'))
            return
    elif t and not _type_ok(t, v):
        name = type_name(v)
        out.append(_invalid(path, name, f'{path} in body must be of type {t}: "{name}"'))
        return
    if "enum" in s and s["enum"] is not None and v not in s["enum"]:
        vals = [x if isinstance(x, str) else json.dumps(x, separators=(",", ":")) for x in s["enum"]]
        detail = "supported values: " + ", ".join(render_value(x) for x in vals)
        out.append(FieldErr(NOT_SUPPORTED, path, v, detail))
    fmt = s.get("format")
    if fmt in SUPPORTED_FORMATS and not _format_ok(fmt, v):
        out.append(_invalid(path, v, f"{path} in body must be of type {fmt}: {render_value(v)}"))
    if isinstance(v, str):
        if "maxLength" in s and len(v) > s["maxLength"]:
            n = s["maxLength"]
            out.append(FieldErr(TOO_LONG, path, v, f"may not be more than {n} byte{'' if n == 1 else 's'}"))
        if "minLength" in s and len(v) < s["minLength"]:
            out.append(_invalid(path, v, f"{path} in body should be at least {s['minLength']} chars long"))
        if s.get("pattern") and not re.search(s["pattern"], v):
            out.append(_invalid(path, v, f"{path} in body should match '{s['pattern']}'"))
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        if "maximum" in s:
            mx = s["maximum"]
            if s.get("exclusiveMaximum") and v >= mx:
                out.append(_invalid(path, v, f"{path} in body should be less than {_go_number(mx)}"))
            elif v > mx:
                out.append(_invalid(path, v, f"{path} in body should be less than or equal to {_go_number(mx)}"))
        if "minimum" in s:
            mn = s["minimum"]
            if s.get("exclusiveMinimum") and v <= mn:
                out.append(_invalid(path, v, f"{path} in body should be greater than {_go_number(mn)}"))
            elif v < mn:
                out.append(_invalid(path, v, f"{path} in body should be greater than or equal to {_go_number(mn)}"))
        if s.get("multipleOf") and (v / s["multipleOf"]) != int(v / s["multipleOf"]):
            out.append(_invalid(path, v, f"{path} in body should be a multiple of {_go_number(s['multipleOf'])}"))
    elif isinstance(v, list):
        if "maxItems" in s and len(v) > s["maxItems"]:
            n = s["maxItems"]
            out.append(_TooMany(TOO_MANY, path, len(v), f"must have at most {n} item{'' if n == 1 else 's'}"))
        if "minItems" in s and len(v) < s["minItems"]:
            out.append(_invalid(path, v, f"{path} in body should have at least {s['minItems']} items"))
        list_type = s.get("x-kubernetes-list-type")
        if s.get("uniqueItems") or list_type == "set":
            seen = []
            for i, x in enumerate(v):
                if x in seen:
                    out.append(FieldErr("FieldValueDuplicate", f"{path}[{i}]", x) if list_type == "set"
                               else _invalid(path, v, f"{path} in body shouldn't contain duplicates"))
                    break
                seen.append(x)
        if list_type == "map":
            keys = s.get("x-kubernetes-list-map-keys") or []
            seen_keys: list = []
            for i, x in enumerate(v):
                if not isinstance(x, dict):
                    continue
                k = _OrderedKey({kk: x.get(kk) for kk in keys})
                if k in seen_keys:
                    out.append(FieldErr("FieldValueDuplicate", f"{path}[{i}]", k))
                seen_keys.append(k)
        items = s.get("items")
        if isinstance(items, dict):
            for i, x in enumerate(v):
                _validate(items, x, f"{path}[{i}]", out)
    elif isinstance(v, dict):
        for r in s.get("required") or ():
            if r not in v:
                out.append(FieldErr(REQUIRED, _join(path, r)))
        if "maxProperties" in s and len(v) > s["maxProperties"]:
            n = s["maxProperties"]
            out.append(_TooMany(TOO_MANY, path, len(v), f"must have at most {n} item{'' if n == 1 else 's'}"))
        if "minProperties" in s and len(v) < s["minProperties"]:
            out.append(_invalid(path, v, f"{path} in body should have at least {s['minProperties']} properties"))
        props = s.get("properties") or {}
        extra = s.get("additionalProperties")
        for k, x in v.items():
            if k in props:
                _validate(props[k], x, _join(path, k), out)
            elif isinstance(extra, dict):
                _validate(extra, x, _join(path, k), out)
    for sub in s.get("allOf") or ():
        _validate(sub, v, path, out)
    if s.get("anyOf") and not s.get("x-kubernetes-int-or-string"):
        if not any(not _errors_of(sub, v, path) for sub in s["anyOf"]):
            out.append(_invalid(path, v, f"{path} in body must validate at least one schema (anyOf)"))
    if s.get("oneOf"):
        if sum(1 for sub in s["oneOf"] if not _errors_of(sub, v, path)) != 1:
            out.append(_invalid(path, v, f"{path} in body must validate one and only one schema (oneOf)"))
    if isinstance(s.get("not"), dict) and not _errors_of(s["not"], v, path):
        out.append(_invalid(path, v, f"{path} in body must not validate the schema (not)"))


class _OrderedKey(dict):
    """A list-map key printed as upstream's duplicate error prints it (``{"name":"a"}``)."""

    def __hash__(self) -> int:  # pragma: no cover - compared by equality only
        return hash(tuple(self.items()))


def _errors_of(s: dict, v: Any, path: str) -> list[FieldErr]:
    out: list[FieldErr] = []
    _validate(s, v, path, out)
    return out


def validate(schema: dict, obj: Any, path: str = "") -> list[FieldErr]:
    """The field errors of ``obj`` against a structural schema, in the order the validator finds them.

    Parameters
    ----------
    schema : dict
        A version's ``schema.openAPIV3Schema``.
    obj : object
        The custom resource (or any value, with ``path`` naming it).
    path : str
        The field path of ``obj`` ("" for a whole object).

    Returns
    -------
    list of FieldErr
        Empty when valid. ``metadata`` is not checked here (the generic
        object-meta validation does that).

    Examples
    --------
    >>> s = {"type": "object", "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
    ...     "size": {"type": "integer", "maximum": 10}, "mode": {"type": "string", "enum": ["a", "b"]}}}}}
    >>> [str(e) for e in validate(s, {"spec": {"size": "big"}})]
    ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"']
    >>> [str(e) for e in validate(s, {"spec": {"size": 20, "mode": "c"}})]
    ['spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10', 'spec.mode: Unsupported value: "c": supported values: "a", "b"']
    >>> [str(e) for e in validate(s, {"spec": {}})]
    ['spec.size: Required value']
    """
    out: list[FieldErr] = []
    if isinstance(obj, dict) and not path and isinstance(schema, dict):
        rest = {k: v for k, v in obj.items() if k != "metadata"}
        s = dict(schema)
        props = dict(s.get("properties") or {})
        props.pop("metadata", None)
        s["properties"] = props
        s["required"] = [r for r in (s.get("required") or ()) if r != "metadata"]
        _validate(s, rest, path, out)
        return out
    _validate(schema, obj, path, out)
    return out


def default(schema: dict, obj: Any) -> Any:
    """Fill the ``default`` of every absent field the schema declares one for (in place; returns ``obj``).

    A null value of a field that is not ``nullable`` is replaced by its
    default too, as structural defaulting does since v1.20.

    Examples
    --------
    >>> s = {"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
    ...     "replicas": {"type": "integer", "default": 1}, "ports": {"type": "array", "items": {
    ...         "type": "object", "properties": {"protocol": {"type": "string", "default": "TCP"}}}}}}}}
    >>> default(s, {"spec": {"ports": [{}, {"protocol": "UDP"}]}})
    {'spec': {'ports': [{'protocol': 'TCP'}, {'protocol': 'UDP'}], 'replicas': 1}}
    >>> default(s, {})
    {'spec': {'replicas': 1}}
    """
    if not isinstance(schema, dict):
        return obj
    if isinstance(obj, dict):
        props = schema.get("properties") or {}
        for k, ps in props.items():
            if not isinstance(ps, dict) or "default" not in ps:
                continue
            if k not in obj or (obj[k] is None and not ps.get("nullable")):
                obj[k] = deep_copy(ps["default"])
        for k, x in obj.items():
            if k in props:
                default(props[k], x)
            elif isinstance(schema.get("additionalProperties"), dict):
                default(schema["additionalProperties"], x)
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for x in obj:
            default(schema["items"], x)
    return obj


_ROOT_KEEP = ("apiVersion", "kind", "metadata")


def prune(schema: dict, obj: Any, *, root: bool = True) -> list[str]:
    """Drop the fields ``schema`` does not declare (in place); returns their paths, in the order found.

    ``x-kubernetes-preserve-unknown-fields: true`` keeps a subtree unpruned
    (its declared properties are still walked); ``apiVersion``, ``kind`` and
    ``metadata`` are kept at the root and in ``x-kubernetes-embedded-resource``
    objects. ``metadata`` itself is left to the object-meta handling.

    Examples
    --------
    >>> s = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}},
    ...      "additionalProperties": False}, "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
    >>> o = {"apiVersion": "x/v1", "kind": "K", "metadata": {}, "spec": {"a": "1", "b": 2}, "status": {"c": 3}, "d": 4}
    >>> prune(s, o), o
    (['spec.b', 'd'], {'apiVersion': 'x/v1', 'kind': 'K', 'metadata': {}, 'spec': {'a': '1'}, 'status': {'c': 3}})
    """
    out: list[str] = []
    _prune(schema, obj, "", root, out)
    return out


def _prune(s: Any, v: Any, path: str, root: bool, out: list[str]) -> None:
    if not isinstance(s, dict):
        return
    if isinstance(v, dict):
        props = s.get("properties") or {}
        extra = s.get("additionalProperties")
        preserve = bool(s.get("x-kubernetes-preserve-unknown-fields"))
        keep_meta = root or s.get("x-kubernetes-embedded-resource")
        for k in list(v):
            if keep_meta and k in _ROOT_KEEP:
                if k != "metadata" and k in props:
                    _prune(props[k], v[k], _join(path, k), False, out)
                continue
            if k in props:
                _prune(props[k], v[k], _join(path, k), False, out)
            elif isinstance(extra, dict):
                _prune(extra, v[k], _join(path, k), False, out)
            elif extra is True or preserve:
                continue
            else:
                out.append(_join(path, k))
                del v[k]
    elif isinstance(v, list):
        items = s.get("items")
        if isinstance(items, dict):
            for i, x in enumerate(v):
                _prune(items, x, f"{path}[{i}]", False, out)


def walk_schemas(schema: dict, path: str = "") -> Iterable[tuple[str, dict]]:
    """Every ``(path, node)`` of a schema, depth first (``properties[x]``, ``items``, ``additionalProperties``)."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for k, ps in (schema.get("properties") or {}).items():
        yield from walk_schemas(ps, f"{path}.properties[{k}]")
    if isinstance(schema.get("items"), dict):
        yield from walk_schemas(schema["items"], f"{path}.items")
    if isinstance(schema.get("additionalProperties"), dict):
        yield from walk_schemas(schema["additionalProperties"], f"{path}.additionalProperties")
