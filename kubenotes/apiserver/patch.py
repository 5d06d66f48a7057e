"""Patches over JSON-shaped dicts: JSON merge patch (RFC 7386), JSON patch (RFC 6902), strategic merge patch.

The strategic merge patch (``application/strategic-merge-patch+json``, what
``kubectl apply``, ``set image``, ``label``, ``cordon``... send) is applied as
upstream's ``strategicpatch.StrategicMergeMapPatch`` applies it on the server:
maps merge recursively and ``null`` deletes a key; a list whose field has
``patchStrategy: merge`` merges by its ``patchMergeKey`` (lists of maps) or as
a set (lists of primitives), other lists are replaced; the directives
``$patch: replace|delete|merge``, ``$setElementOrder/<field>``,
``$retainKeys`` and ``$deleteFromPrimitiveList/<field>`` are honoured, and a
merged list is ordered as upstream orders it (``$setElementOrder`` first, then
the patch's order, then the live object's). Where a field's patch metadata
comes from is the ``meta`` argument, a :class:`LookupPatchMeta` (upstream's
``LookupPatchMeta``): :class:`PatchMetaFromOpenAPIV3` reads it from an OpenAPI
v3 schema given as plain dicts, and
:func:`kubenotes.apiserver.patch_meta.meta_for` gives the built-in Kubernetes
types' (what upstream reads from the Go struct tags).

Notes
-----
Simplified against upstream:

- only the server's apply mode is modelled (``MergeParallelList`` and
  ``IgnoreUnmatchedNulls`` on); creating patches (two-way / three-way diffs,
  kubectl's side) and merging two patches are not.
- a field the metadata does not know has no patch metadata (plain merge or
  replace); upstream's struct lookup answers ``unable to find api field``.
- ``sort.SliceStable`` is modelled by a stable insertion sort with the same
  comparison, which is what Go runs for lists of up to 20 items; for longer
  lists the two differ only when the comparison is inconsistent.
- :func:`strategic_merge_patch` drops directive keys left in the result
  (a ``$retainKeys`` inside a map the live object did not have, items
  appended as sent), as upstream's decode into the Go type drops them with
  every unknown field; :func:`strategic_merge_map_patch` keeps them, as
  upstream's function does.
- errors that are not one of ``mergepatch``'s sentinel errors become a 500
  ``Status`` with an empty reason and the error text, as
  ``responsewriters.ErrorToAPIStatus`` turns a plain Go error into one.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/meta.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/mergepatch/errors.go
https://git.k8s.io/design-proposals-archive/cli/preserve-order-in-strategic-merge-patch.md
RFC 7386 JSON Merge Patch; RFC 6902 JSON Patch (evanphx/json-patch, which the API server uses)
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NamedTuple, Protocol

from kubenotes.apiserver.status import ApiError, new_bad_request
from kubenotes.apiserver.store import deep_copy
from kubenotes.errors import KubenotesError

__all__ = [
    "merge_patch",
    "json_patch",
    "JSONPatchError",
    "json_patch_apply_error",
    "strategic_merge_patch",
    "strategic_merge_map_patch",
    "interpret_strategic_merge_patch_error",
    "StrategicMergePatchError",
    "PatchMeta",
    "LookupPatchMeta",
    "PatchMetaFromOpenAPIV3",
    "MERGE_PATCH",
    "JSON_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "APPLY_PATCH",
    "DIRECTIVE_MARKER",
    "DELETE_DIRECTIVE",
    "REPLACE_DIRECTIVE",
    "MERGE_DIRECTIVE",
    "RETAIN_KEYS_STRATEGY",
    "RETAIN_KEYS_DIRECTIVE",
    "DELETE_FROM_PRIMITIVE_LIST_DIRECTIVE_PREFIX",
    "SET_ELEMENT_ORDER_DIRECTIVE_PREFIX",
    "ERR_BAD_JSON_DOC",
    "ERR_NO_LIST_OF_LISTS",
    "ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST",
    "ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS",
    "ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST",
    "ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS",
    "ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT",
]

MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"


def merge_patch(target: Any, patch: Any) -> Any:
    """Apply an RFC 7386 merge patch; returns a new value (``target`` is not changed).

    ``null`` in the patch removes a key; lists are replaced whole.

    Examples
    --------
    >>> merge_patch({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": None, "e": 4}, "f": [1]})
    {'a': 1, 'b': {'d': 3, 'e': 4}, 'f': [1]}
    """
    if not isinstance(patch, dict):
        return deep_copy(patch)
    out = deep_copy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


class JSONPatchError(KubenotesError, ValueError):
    """An RFC 6902 operation that cannot be applied; ``str()`` is evanphx/json-patch's error text."""


def json_patch_apply_error(err: JSONPatchError) -> ApiError:
    """The ``Status`` the API server answers when a JSON patch does not apply.

    ``jsonPatcher.applyJSPatch`` turns every ``Apply`` error into
    ``NewGenericServerResponse(422, ...)`` with an empty resource, whose message is
    the generic one (the error text is dropped), so a failed ``test`` is a 422
    Invalid, the status optimistic clients (kopf) treat as a conflict to retry.

    Examples
    --------
    >>> e = json_patch_apply_error(JSONPatchError("testing value /metadata/resourceVersion failed: test failed"))
    >>> e.code, e.reason, e.message
    (422, 'Invalid', 'the server rejected our request due to an error in our request')
    """
    return ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                     "message": _INVALID_MESSAGE, "reason": "Invalid", "details": {}, "code": 422})


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise JSONPatchError(f'invalid JSON pointer "{path}"')
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def _parent(doc: Any, toks: list[str], path: str) -> tuple[Any, str]:
    cur = doc
    for t in toks[:-1]:
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            raise _missing(path)
    return cur, toks[-1]


def _missing(path: str) -> JSONPatchError:
    return JSONPatchError(f"doc is missing path: \"{path}\": missing value")


def _get(doc: Any, path: str) -> Any:
    cur = doc
    for t in _tokens(path):
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            raise _missing(path)
    return cur


def _add(doc: Any, path: str, value: Any) -> Any:
    toks = _tokens(path)
    if not toks:
        return value
    parent, last = _parent(doc, toks, path)
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            parent.append(value)
        elif last.isdigit() and int(last) <= len(parent):
            parent.insert(int(last), value)
        else:
            raise _missing(path)
    else:
        raise _missing(path)
    return doc


def _remove(doc: Any, path: str) -> Any:
    toks = _tokens(path)
    parent, last = _parent(doc, toks, path)
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent.pop(int(last))
    raise _missing(path)


def json_patch(target: Any, ops: list[dict]) -> Any:
    """Apply an RFC 6902 JSON patch (add, remove, replace, move, copy, test); returns a new value.

    Raises
    ------
    ApiError
        400 BadRequest when ``ops`` is not a list (upstream's ``DecodePatch``).
    JSONPatchError
        When an operation cannot be applied (a missing path, a failed ``test``, an unknown ``op``):
        the API server answers it with :func:`json_patch_apply_error`.

    Examples
    --------
    >>> json_patch({"spec": {"replicas": 1}}, [{"op": "replace", "path": "/spec/replicas", "value": 3}])
    {'spec': {'replicas': 3}}
    """
    doc = deep_copy(target)
    if not isinstance(ops, list):
        raise new_bad_request("the server rejected our request due to an error in our request: "
                              "json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    for op in ops:
        kind, path = op.get("op"), op.get("path", "")
        if kind == "add":
            doc = _add(doc, path, deep_copy(op.get("value")))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            _get(doc, path)
            if not _tokens(path):
                doc = deep_copy(op.get("value"))
            else:
                _remove(doc, path)
                doc = _add(doc, path, deep_copy(op.get("value")))
        elif kind == "move":
            v = _remove(doc, op.get("from", ""))
            doc = _add(doc, path, v)
        elif kind == "copy":
            doc = _add(doc, path, deep_copy(_get(doc, op.get("from", ""))))
        elif kind == "test":
            if _get(doc, path) != op.get("value"):
                raise JSONPatchError(f"testing value {path} failed: test failed")
        else:
            raise JSONPatchError(f"Unexpected kind: {kind}")
    return doc


# --------------------------------------------------------------------------- strategic merge patch

DIRECTIVE_MARKER = "$patch"
DELETE_DIRECTIVE = "delete"
REPLACE_DIRECTIVE = "replace"
MERGE_DIRECTIVE = "merge"
RETAIN_KEYS_STRATEGY = "retainKeys"
DELETE_FROM_PRIMITIVE_LIST_DIRECTIVE_PREFIX = "$deleteFromPrimitiveList"
RETAIN_KEYS_DIRECTIVE = "$" + RETAIN_KEYS_STRATEGY
SET_ELEMENT_ORDER_DIRECTIVE_PREFIX = "$setElementOrder"

# k8s.io/apimachinery/pkg/util/mergepatch/errors.go
ERR_BAD_JSON_DOC = "invalid JSON document"
ERR_NO_LIST_OF_LISTS = "lists of lists are not supported"
ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = "invalid patch format of primitive list"
ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = "invalid patch format of retainKeys"
ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST = "invalid patch format of setElementOrder list"
ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS = "patch content doesn't match retainKeys list"
ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT = "strategic merge patch format is not supported"

_BAD_REQUEST_ERRORS = (ERR_BAD_JSON_DOC, ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST, ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
                       ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST, ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT)
_UNPROCESSABLE_ERRORS = (ERR_NO_LIST_OF_LISTS, ERR_PATCH_CONTENT_NOT_MATCH_RETAIN_KEYS)
_INVALID_MESSAGE = "the server rejected our request due to an error in our request"


class StrategicMergePatchError(KubenotesError, ValueError):
    """An error of upstream's ``strategicpatch`` package; ``message`` is its exact text.

    Examples
    --------
    >>> str(StrategicMergePatchError(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS))
    'invalid patch format of retainKeys'
    """

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class PatchMeta(NamedTuple):
    """A field's patch metadata: its patch strategies and merge key (upstream's ``PatchMeta``).

    Attributes
    ----------
    patch_strategies : tuple[str, ...]
        ``("merge",)``, ``("retainKeys",)``, ``("merge", "retainKeys")``, ``("replace",)`` or ``()``.
    patch_merge_key : str
        ``"name"`` for ``containers``; ``""`` when none.
    """

    patch_strategies: tuple[str, ...] = ()
    patch_merge_key: str = ""


class LookupPatchMeta(Protocol):
    """Where we are in a type, and the patch metadata of its fields (upstream's ``LookupPatchMeta``).

    ``lookup_patch_metadata_for_struct(key)`` returns the lookup for the
    field's own type (a map or struct) and the field's :class:`PatchMeta`;
    ``lookup_patch_metadata_for_slice(key)`` returns the lookup for the
    field's *element* type and the field's :class:`PatchMeta`; ``name()``
    names the type (used in error texts).
    """

    def lookup_patch_metadata_for_struct(self, key: str) -> tuple["LookupPatchMeta", PatchMeta]: ...

    def lookup_patch_metadata_for_slice(self, key: str) -> tuple["LookupPatchMeta", PatchMeta]: ...

    def name(self) -> str: ...


_PATCH_MERGE_KEY = "x-kubernetes-patch-merge-key"
_PATCH_STRATEGY = "x-kubernetes-patch-strategy"
_COMPONENTS = "#/components/schemas/"


class PatchMetaFromOpenAPIV3:
    """:class:`LookupPatchMeta` over an OpenAPI v3 schema given as plain dicts (upstream's ``PatchMetaFromOpenAPIV3``).

    Reads ``properties``, ``items``, ``additionalProperties``, ``allOf`` and
    ``$ref`` (``#/components/schemas/<name>``) and the extensions
    ``x-kubernetes-patch-strategy`` / ``x-kubernetes-patch-merge-key``, so it
    works on the documents :mod:`kubenotes.apiserver.openapi` serves and on a
    small hand-written schema alike.

    Parameters
    ----------
    schemas : dict[str, dict]
        ``components.schemas``: name -> schema, to resolve ``$ref``.
    schema : dict or str or None
        The schema we are at, or its name in ``schemas``; ``None`` for "no
        schema" (every lookup then answers no metadata).

    Notes
    -----
    Upstream fails a lookup of a field that is not in ``properties``
    (``unable to find api field``); here such a field has no metadata and an
    unknown type, and a key of an ``additionalProperties`` map gets the map's
    value schema.

    Examples
    --------
    >>> schemas = {"item": {"properties": {"list": {"type": "array", "items": {"$ref": "#/components/schemas/item"},
    ...                                             "x-kubernetes-patch-strategy": "merge",
    ...                                             "x-kubernetes-patch-merge-key": "name"}}}}
    >>> sub, pm = PatchMetaFromOpenAPIV3(schemas, "item").lookup_patch_metadata_for_slice("list")
    >>> pm, sub.name()
    (PatchMeta(patch_strategies=('merge',), patch_merge_key='name'), 'Struct')
    """

    def __init__(self, schemas: dict[str, dict], schema: dict | str | None) -> None:
        self.schemas = schemas
        self.schema = schemas.get(schema) if isinstance(schema, str) else schema

    def _field(self, key: str) -> tuple[dict | None, PatchMeta]:
        s = self.schema
        if not s:
            return None, PatchMeta()
        props = s.get("properties") or {}
        if key in props:
            sub = props[key]
        elif isinstance(s.get("additionalProperties"), dict):
            sub = s["additionalProperties"]
        else:
            return None, PatchMeta()
        strategy = sub.get(_PATCH_STRATEGY)
        pm = PatchMeta(tuple(strategy.split(",")) if strategy else (), sub.get(_PATCH_MERGE_KEY, ""))
        return sub, pm

    def _resolve(self, s: dict | None) -> "PatchMetaFromOpenAPIV3":
        if s and s.get("allOf"):
            s = s["allOf"][0]
        if s and "$ref" in s:
            s = self.schemas.get(s["$ref"][len(_COMPONENTS):] if s["$ref"].startswith(_COMPONENTS) else s["$ref"])
        return PatchMetaFromOpenAPIV3(self.schemas, s)

    def lookup_patch_metadata_for_struct(self, key: str) -> tuple["PatchMetaFromOpenAPIV3", PatchMeta]:
        sub, pm = self._field(key)
        return self._resolve(sub), pm

    def lookup_patch_metadata_for_slice(self, key: str) -> tuple["PatchMetaFromOpenAPIV3", PatchMeta]:
        sub, pm = self._field(key)
        if sub and isinstance(sub.get("items"), dict):
            sub = sub["items"]
        return self._resolve(sub), pm

    def name(self) -> str:
        t = (self.schema or {}).get("type")
        return "".join(t) if isinstance(t, list) else (t or "Struct")


# ------------------------------------------------------------------ Go-shaped values and their texts

def _kind(v: Any) -> str:
    """The Go type a JSON value decodes to (``reflect.TypeOf`` of ``interface{}``)."""
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "map[string]interface {}"
    if isinstance(v, list):
        return "[]interface {}"
    return type(v).__name__


def _type_text(v: Any) -> str:
    """``%s`` of ``reflect.TypeOf(v)``."""
    return "%!s(<nil>)" if v is None else _kind(v)


def _eq(a: Any, b: Any) -> bool:
    """Go's ``==`` on two decoded JSON values (a bool never equals a number)."""
    return _kind(a) == _kind(b) and a == b


def _go_float(f: float) -> str:
    """``%v`` of a float64: shortest digits, ``%e`` form when the exponent is < -4 or >= 6 (``1e+06``)."""
    if f == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(abs(f))).normalize().as_tuple()
    ds = "".join(map(str, digits))
    dp = len(ds) + int(exponent)  # position of the decimal point
    exp = dp - 1
    neg = "-" if f < 0 else ""
    if exp < -4 or exp >= 6:
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{neg}{mant}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    if dp <= 0:
        return f"{neg}0.{'0' * -dp}{ds}"
    if dp >= len(ds):
        return f"{neg}{ds}{'0' * (dp - len(ds))}"
    return f"{neg}{ds[:dp]}.{ds[dp:]}"


def _go_v(v: Any) -> str:
    """``fmt.Sprintf("%v", v)`` of a decoded JSON value: ``map[a:1 b:[x y]]``."""
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _go_float(float(v))
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{_go_v(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(_go_v(x) for x in v) + "]"
    return str(v)


def _go_s(v: Any) -> str:
    """``fmt.Sprintf("%s", v)``: strings as they are, other values as ``%!s(float64=1)``."""
    if isinstance(v, str):
        return v
    if v is None:
        return "%!s(<nil>)"
    if isinstance(v, (dict, list)):
        return _go_v(v)
    return f"%!s({_kind(v)}={_go_v(v)})"


def _err_no_merge_key(m: Any, key: str) -> StrategicMergePatchError:
    return StrategicMergePatchError(f"map: {_go_v(m)} does not contain declared merge key: {key}")


def _err_bad_arg_type(expected: str, actual: Any) -> StrategicMergePatchError:
    return StrategicMergePatchError(f"expected a {expected}, but received a {_type_text(actual)}")


def _err_bad_patch_type(t: Any, m: dict) -> StrategicMergePatchError:
    return StrategicMergePatchError(f"unknown patch type: {_go_s(t)} in map: {_go_v(m)}")


_MAP = "map[string]interface {}"
_SLICE = "[]interface {}"


# ------------------------------------------------------------------ the merge

def _extract_retain_keys_patch_strategy(strategies: tuple[str, ...]) -> tuple[bool, str]:
    if not strategies:
        return False, ""
    if len(strategies) == 1:
        return (True, "") if strategies[0] == RETAIN_KEYS_STRATEGY else (False, strategies[0])
    if len(strategies) == 2:
        if strategies[0] == RETAIN_KEYS_STRATEGY:
            return True, strategies[1]
        if strategies[1] == RETAIN_KEYS_STRATEGY:
            return True, strategies[0]
    raise StrategicMergePatchError(f"unexpected patch strategy: [{' '.join(strategies)}]")


def _extract_key(s: str, prefix: str) -> str:
    head, sep, tail = s.partition("/")
    if not sep or head != prefix:
        if prefix == DELETE_FROM_PRIMITIVE_LIST_DIRECTIVE_PREFIX:
            raise StrategicMergePatchError(ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST)
        if prefix == SET_ELEMENT_ORDER_DIRECTIVE_PREFIX:
            raise StrategicMergePatchError(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
        raise StrategicMergePatchError(f"fail to find unknown prefix {prefix!r} in {s}\n".replace("'", '"'))
    return tail


def _slice_element_kind(*slices: list) -> str:
    prev = None
    for s in slices:
        for v in s:
            cur = _kind(v)
            if prev is None:
                prev = cur
                if cur == _SLICE:
                    raise StrategicMergePatchError(ERR_NO_LIST_OF_LISTS)
            elif prev != cur:
                raise StrategicMergePatchError(
                    "list element types are not identical: [" + " ".join(_go_v(x) for x in slices) + "]")
    if prev is None:
        raise StrategicMergePatchError("no elements in any of the given slices")
    return prev


def _handle_directive_in_merge_map(directive: Any, patch: dict) -> dict:
    if _eq(directive, REPLACE_DIRECTIVE):
        del patch[DIRECTIVE_MARKER]
        return patch
    if _eq(directive, DELETE_DIRECTIVE):
        return {}
    raise _err_bad_patch_type(directive, patch)


def _remove_directives(obj: Any) -> tuple[Any, bool]:
    """Drop maps carrying ``$patch`` (and list items that are such maps); ``(value, keep)``."""
    if isinstance(obj, dict):
        if DIRECTIVE_MARKER in obj:
            return None, False
        for k in list(obj):
            v, keep = _remove_directives(obj[k])
            if keep:
                obj[k] = v
            else:
                del obj[k]
        return obj, True
    if isinstance(obj, list):
        out = []
        for v in obj:
            nv, keep = _remove_directives(v)
            if keep:
                out.append(nv)
        return out, True
    return obj, True


def _discard_null_values_from_patch(v: Any) -> None:
    if isinstance(v, dict):
        for k in list(v):
            if v[k] is None:
                del v[k]
            else:
                _discard_null_values_from_patch(v[k])
    elif isinstance(v, list):
        for x in v:
            _discard_null_values_from_patch(x)


def _apply_retain_keys_directive(original: dict, patch: dict) -> None:
    if RETAIN_KEYS_DIRECTIVE not in patch:
        return
    retain = patch.pop(RETAIN_KEYS_DIRECTIVE)
    if not isinstance(retain, list):
        raise StrategicMergePatchError(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    keep = [k for k in retain]
    for k, v in patch.items():
        if v is None or k.startswith(DELETE_FROM_PRIMITIVE_LIST_DIRECTIVE_PREFIX) or \
                k.startswith(SET_ELEMENT_ORDER_DIRECTIVE_PREFIX):
            continue
        if not any(_eq(k, r) for r in keep):
            raise StrategicMergePatchError(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    for k in list(original):
        if not any(_eq(k, r) for r in keep):
            del original[k]


def _index(items: list, value: Any, merge_key: str, kind: str) -> int:
    def val(item: Any) -> Any:
        if kind == _MAP:
            return item.get(merge_key) if isinstance(item, dict) else None
        return item
    target = val(value)
    for i, v in enumerate(items):
        if _eq(target, val(v)):
            return i
    return -1


def _validate_merge_key_in_lists(merge_key: str, *lists: list) -> None:
    for lst in lists:
        for item in lst:
            if not isinstance(item, dict):
                raise _err_bad_arg_type(_MAP, item)
            if merge_key not in item:
                raise _err_no_merge_key(item, merge_key)


def _extract_to_delete_items(items: list) -> tuple[list, list]:
    keep, delete = [], []
    for v in items:
        if not isinstance(v, dict):
            raise _err_bad_arg_type(_MAP, v)
        if DIRECTIVE_MARKER in v and _eq(v[DIRECTIVE_MARKER], DELETE_DIRECTIVE):
            delete.append(v)
        else:
            keep.append(v)
    return keep, delete


def _normalize_slice_order(to_sort: list, order: list, merge_key: str, kind: str) -> list:
    to_delete: list = []
    if kind == _MAP:
        _validate_merge_key_in_lists(merge_key, to_sort, order)
        to_sort, to_delete = _extract_to_delete_items(to_sort)
    data = list(to_sort)

    def less(a: Any, b: Any) -> bool:
        ia = _index(order, a, merge_key, kind)
        if ia >= 0:
            ib = _index(order, b, merge_key, kind)
            if ib >= 0:
                return ia < ib
        return True

    for i in range(1, len(data)):  # Go's stable insertion sort
        j = i
        while j > 0 and less(data[j], data[j - 1]):
            data[j], data[j - 1] = data[j - 1], data[j]
            j -= 1
    return data + to_delete


def _merge_sorted_slice(left: list, right: list, server_order: list, merge_key: str, kind: str) -> list:
    """Interleave server-only items (``left``) into patch items (``right``), both already sorted."""
    out = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j]); j += 1
        elif j >= len(right):
            out.append(left[i]); i += 1
        else:
            li = _index(server_order, left[i], merge_key, kind)
            ri = _index(server_order, right[j], merge_key, kind)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i]); i += 1
            else:
                out.append(right[j]); j += 1
    return out


def _normalize_element_order(patch: list, server_only: list, patch_order: list, server_order: list,
                             merge_key: str, kind: str) -> list:
    patch = _normalize_slice_order(patch, patch_order, merge_key, kind)
    server_only = _normalize_slice_order(server_only, server_order, merge_key, kind)
    return _merge_sorted_slice(server_only, patch, server_order, merge_key, kind)


def _find_map_in_slice(items: list, key: str, value: Any) -> tuple[dict | None, int, bool]:
    for i, v in enumerate(items):
        if not isinstance(v, dict):
            raise StrategicMergePatchError(f"value for key {i} is not a map")
        if key in v and _eq(v[key], value):
            return v, i, True
    return None, 0, False


def _partition_primitives(original: list, partition_by: list) -> tuple[list, list]:
    patch, server_only = [], []
    for v in original:
        (patch if any(_eq(v, p) for p in partition_by) else server_only).append(v)
    return patch, server_only


def _partition_maps(original: list, partition_by: list, merge_key: str) -> tuple[list, list]:
    patch, server_only = [], []
    for v in original:
        if not isinstance(v, dict):
            raise _err_bad_arg_type(_MAP, v)
        if merge_key not in v:
            raise _err_no_merge_key(v, merge_key)
        _, _, found = _find_map_in_slice(partition_by, merge_key, v[merge_key])
        (patch if found else server_only).append(v)
    return patch, server_only


def _validate_patch_with_set_order_list(patch_list: list, set_order: list, merge_key: str) -> None:
    if not set_order or not patch_list:
        return
    non_delete = _extract_to_delete_items(patch_list)[0] if merge_key else patch_list
    pi = si = 0
    while pi < len(non_delete) and si < len(set_order):
        if isinstance(non_delete[pi], dict) and DIRECTIVE_MARKER in non_delete[pi]:
            pi += 1
            continue
        if _merge_key_value_equal(non_delete[pi], set_order[si], merge_key):
            pi += 1
        si += 1
    if pi < len(non_delete) and si >= len(set_order):
        raise StrategicMergePatchError(
            f"The order in patch list:\n{_go_v(patch_list)}\n doesn't match {SET_ELEMENT_ORDER_DIRECTIVE_PREFIX} "
            f"list:\n{_go_v(set_order)}\n")


def _merge_key_value_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _eq(left, right)
    if not isinstance(left, dict):
        raise _err_bad_arg_type(_MAP, left)
    if not isinstance(right, dict):
        raise _err_bad_arg_type(_MAP, right)
    if merge_key not in left:
        raise _err_no_merge_key(left, merge_key)
    if merge_key not in right:
        raise _err_no_merge_key(right, merge_key)
    return _eq(left[merge_key], right[merge_key])


def _merge_patch_into_original(original: dict, patch: dict, schema: LookupPatchMeta) -> None:
    """Apply each ``$setElementOrder/<field>`` with its list, then order the list as the directive says."""
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER_DIRECTIVE_PREFIX)]:
        set_order = patch.pop(key)
        if not isinstance(set_order, list):
            raise _err_bad_arg_type(_SLICE, set_order)
        original_key = _extract_key(key, SET_ELEMENT_ORDER_DIRECTIVE_PREFIX)
        found_original, found_patch = original_key in original, original_key in patch
        original_list: list = []
        patch_list: list = []
        if found_original:
            original_list = original[original_key]
            if not isinstance(original_list, list):
                raise _err_bad_arg_type(_SLICE, original_list)
        if found_patch:
            patch_list = patch[original_key]
            if not isinstance(patch_list, list):
                raise _err_bad_arg_type(_SLICE, patch_list)
        subschema, pm = schema.lookup_patch_metadata_for_slice(original_key)
        _, strategy = _extract_retain_keys_patch_strategy(pm.patch_strategies)
        _validate_patch_with_set_order_list(patch_list, set_order, pm.patch_merge_key)
        if found_original and not found_patch:
            merged = original_list
        elif not found_original and found_patch:
            merged = _remove_directives(patch_list)[0]
        elif found_original and found_patch:
            merged = _merge_slice_handler(original_list, patch_list, subschema, strategy, pm.patch_merge_key, False)
        else:
            continue
        if not pm.patch_merge_key:
            patch_items, server_only = _partition_primitives(merged, set_order)
        else:
            patch_items, server_only = _partition_maps(merged, set_order, pm.patch_merge_key)
        kind = _slice_element_kind(original_list, patch_list)
        original[original_key] = _normalize_element_order(patch_items, server_only, set_order, original_list,
                                                          pm.patch_merge_key, kind)
        patch.pop(original_key, None)


def _merge_map(original: dict | None, patch: dict, schema: LookupPatchMeta) -> dict:
    if DIRECTIVE_MARKER in patch:
        return _handle_directive_in_merge_map(patch[DIRECTIVE_MARKER], patch)
    if original is None:
        original = {}
    _apply_retain_keys_directive(original, patch)
    _merge_patch_into_original(original, patch, schema)
    for k, patch_v in list(patch.items()):
        is_delete_list = False
        if k.startswith(DELETE_FROM_PRIMITIVE_LIST_DIRECTIVE_PREFIX):
            k = _extract_key(k, DELETE_FROM_PRIMITIVE_LIST_DIRECTIVE_PREFIX)
            is_delete_list = True
        if patch_v is None:
            original.pop(k, None)
            continue
        if k not in original or _kind(original[k]) != _kind(patch_v):
            if not is_delete_list:
                _discard_null_values_from_patch(patch_v)
                v, keep = _remove_directives(patch_v)
                if keep:
                    original[k] = v
                else:
                    original.pop(k, None)
            continue
        if isinstance(patch_v, dict):
            subschema, pm = schema.lookup_patch_metadata_for_struct(k)
            _, strategy = _extract_retain_keys_patch_strategy(pm.patch_strategies)
            original[k] = _merge_map(original[k], patch_v, subschema) if strategy != REPLACE_DIRECTIVE else patch_v
        elif isinstance(patch_v, list):
            subschema, pm = schema.lookup_patch_metadata_for_slice(k)
            _, strategy = _extract_retain_keys_patch_strategy(pm.patch_strategies)
            original[k] = _merge_slice_handler(original[k], patch_v, subschema, strategy, pm.patch_merge_key,
                                               is_delete_list)
        else:
            v, keep = _remove_directives(patch_v)
            if keep:
                original[k] = v
            else:
                del original[k]
    return original


def _merge_slice_handler(original: list, patch: list, schema: LookupPatchMeta, strategy: str, merge_key: str,
                         is_delete_list: bool) -> list:
    if strategy == MERGE_DIRECTIVE or is_delete_list:
        return _merge_slice(original, patch, schema, merge_key, is_delete_list)
    return patch


def _merge_slice(original: list, patch: list, schema: LookupPatchMeta, merge_key: str, is_delete_list: bool) -> list:
    if not original and not patch:
        return original
    kind = _slice_element_kind(original, patch)
    if kind != _MAP:
        if is_delete_list:
            return [v for v in original if not any(_eq(v, d) for d in patch)]
        merged = _deduplicate_scalars(original + patch)
        server_order = original
    else:
        if not merge_key:
            raise StrategicMergePatchError(f"cannot merge lists without merge key for {schema.name()}")
        backing, length, patch = _merge_slice_with_special_elements(original, patch, merge_key)
        server_order = backing[:length]
        merged = _merge_slice_without_special_elements(backing, length, patch, merge_key, schema)
    if not merge_key:
        patch_items, server_only = _partition_primitives(merged, patch)
    else:
        patch_items, server_only = _partition_maps(merged, patch, merge_key)
    return _normalize_element_order(patch_items, server_only, patch, server_order, merge_key, kind)


def _deduplicate_scalars(s: list) -> list:
    """Upstream's in-place de-duplication (a duplicate is overwritten by the last item)."""
    s = list(s)
    length = len(s) - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if _eq(s[i], s[j]):
                s[j] = s[length]
                s = s[:length]
                length -= 1
                j -= 1
            j += 1
        i += 1
    return s


def _merge_slice_with_special_elements(original: list, patch: list, merge_key: str) -> tuple[list, int, list]:
    """Apply the ``$patch`` items of a merging list; ``(backing list, length, patch without them)``.

    Deletions shift the items left *inside* ``original`` (as Go's
    ``append(s[:i], s[i+1:]...)`` does in the slice's backing array), so a
    caller still holding ``original`` sees what upstream's caller sees: that
    is the order ``$setElementOrder`` then falls back on.
    """
    without: list = []
    length = len(original)
    replace = False
    for v in patch:
        if DIRECTIVE_MARKER not in v:
            without.append(v)
            continue
        directive = v[DIRECTIVE_MARKER]
        if _eq(directive, DELETE_DIRECTIVE):
            if merge_key not in v:
                raise _err_no_merge_key(v, merge_key)
            while True:
                _, idx, found = _find_map_in_slice(original[:length], merge_key, v[merge_key])
                if not found:
                    break
                original[idx:length - 1] = original[idx + 1:length]
                length -= 1
        elif _eq(directive, REPLACE_DIRECTIVE):
            replace = True
        elif _eq(directive, MERGE_DIRECTIVE):
            raise StrategicMergePatchError("merging lists cannot yet be specified in the patch")
        else:
            raise _err_bad_patch_type(directive, v)
    if replace:
        return without, len(without), []
    return original, length, without


def _merge_slice_without_special_elements(backing: list, length: int, patch: list, merge_key: str,
                                          schema: LookupPatchMeta) -> list:
    """Merge each patch item into the item with its merge key, or append it.

    An append lands in ``backing`` while it has room left by deletions (Go's
    ``append`` within the capacity), else in a new list.
    """
    for v in patch:
        if merge_key not in v:
            raise _err_no_merge_key(v, merge_key)
        found_map, idx, found = _find_map_in_slice(backing[:length], merge_key, v[merge_key])
        if found:
            backing[idx] = _merge_map(found_map, v, schema)
        elif length < len(backing):
            backing[length] = v
            length += 1
        else:
            backing = backing[:length] + [v]
            length += 1
    return backing[:length]


def strategic_merge_map_patch(original: dict, patch: dict, meta: LookupPatchMeta) -> dict:
    """Apply a strategic merge patch as upstream's ``StrategicMergeMapPatchUsingLookupPatchMeta``.

    Returns a new dict; neither argument is changed.

    Parameters
    ----------
    original : dict
        The live object (JSON-shaped).
    patch : dict
        The strategic merge patch.
    meta : LookupPatchMeta
        Patch metadata at the root of ``original``'s type.

    Returns
    -------
    dict
        The patched object.

    Raises
    ------
    StrategicMergePatchError
        With upstream's error text, for a malformed patch (unknown ``$patch``
        value, a list item without its merge key, a bad ``$retainKeys`` or
        ``$setElementOrder`` list...).

    Examples
    --------
    >>> schemas = {"spec": {"properties": {"containers": {
    ...     "type": "array", "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}}}}
    >>> live = {"containers": [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1"}]}
    >>> strategic_merge_map_patch(live, {"containers": [{"name": "b", "image": "y:2"}]},
    ...                           PatchMetaFromOpenAPIV3(schemas, "spec"))
    {'containers': [{'name': 'a', 'image': 'x:1'}, {'name': 'b', 'image': 'y:2'}]}
    """
    if not isinstance(original, dict) or not isinstance(patch, dict):
        raise StrategicMergePatchError(ERR_BAD_JSON_DOC)
    return _merge_map(deep_copy(original), deep_copy(patch), meta)


def interpret_strategic_merge_patch_error(err: StrategicMergePatchError) -> ApiError:
    """The ``Status`` the API server answers for a strategic merge patch error (``interpretStrategicMergePatchError``).

    ``mergepatch``'s format errors are 400 BadRequest with their text; lists of
    lists and a patch that does not match ``$retainKeys`` are 422 Invalid with
    ``NewGenericServerResponse``'s text; any other error is a plain error,
    which the API server sends as a 500 with an empty reason and the text.

    Examples
    --------
    >>> e = interpret_strategic_merge_patch_error(StrategicMergePatchError(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS))
    >>> e.code, e.reason, e.message
    (400, 'BadRequest', 'invalid patch format of retainKeys')
    >>> interpret_strategic_merge_patch_error(StrategicMergePatchError(ERR_NO_LIST_OF_LISTS)).code
    422
    """
    msg = err.message
    if msg in _BAD_REQUEST_ERRORS:
        return new_bad_request(msg)
    if msg in _UNPROCESSABLE_ERRORS:
        return ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                         "message": _INVALID_MESSAGE, "reason": "Invalid", "details": {}, "code": 422})
    return ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                     "message": msg, "reason": "", "code": 500})


def strategic_merge_patch(original: dict, patch: Any, meta: LookupPatchMeta) -> dict:
    """``PATCH`` with ``application/strategic-merge-patch+json``: the patched object, or the API server's error.

    Parameters
    ----------
    original : dict
        The live object.
    patch : Any
        The decoded request body; it must be a JSON object.
    meta : LookupPatchMeta
        The object's patch metadata, e.g. ``patch_meta.meta_for("apps/v1", "Deployment")``.

    Returns
    -------
    dict
        A new dict; ``original`` is not changed.

    Raises
    ------
    ApiError
        400 when the body is not a JSON object or is a malformed strategic
        merge patch (:func:`interpret_strategic_merge_patch_error`), 422 or 500
        as upstream answers the other errors.

    Examples
    --------
    >>> from kubenotes.apiserver.patch_meta import meta_for
    >>> live = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.26"},
    ...                                                       {"name": "log", "image": "busybox"}]}}}}
    >>> out = strategic_merge_patch(live, {"spec": {"template": {"spec": {
    ...     "$setElementOrder/containers": [{"name": "web"}, {"name": "log"}],
    ...     "containers": [{"name": "web", "image": "nginx:1.27"}]}}}}, meta_for("apps/v1", "Deployment"))
    >>> [c["image"] for c in out["spec"]["template"]["spec"]["containers"]]
    ['nginx:1.27', 'busybox']
    >>> strategic_merge_patch(live, [], meta_for("apps/v1", "Deployment"))
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: json: cannot unmarshal array into Go value of type map[string]interface {}
    """
    if not isinstance(patch, dict):
        what = {list: "array", str: "string", bool: "bool", type(None): "null"}.get(type(patch), "number")
        raise new_bad_request(f"json: cannot unmarshal {what} into Go value of type map[string]interface {{}}")
    try:
        patched = strategic_merge_map_patch(original, patch, meta)
    except StrategicMergePatchError as err:
        raise interpret_strategic_merge_patch_error(err) from None
    return _drop_directive_keys(patched)


def _is_directive_key(key: str) -> bool:
    return key in (DIRECTIVE_MARKER, RETAIN_KEYS_DIRECTIVE) or \
        key.startswith((SET_ELEMENT_ORDER_DIRECTIVE_PREFIX + "/", DELETE_FROM_PRIMITIVE_LIST_DIRECTIVE_PREFIX + "/"))


def _drop_directive_keys(obj: Any) -> Any:
    """Remove directive keys the merge left in place (inside values it took from the patch as they were).

    Upstream then decodes the merged map into the Go type, which drops every
    unknown field, these included; the model keeps the map, so it drops them here.
    """
    if isinstance(obj, dict):
        for k in [k for k in obj if _is_directive_key(k)]:
            del obj[k]
        for v in obj.values():
            _drop_directive_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            _drop_directive_keys(v)
    return obj
