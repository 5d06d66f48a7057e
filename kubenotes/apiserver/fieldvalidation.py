"""Field validation (``fieldValidation=Strict|Warn|Ignore``) against the served OpenAPI schemas.

kubectl 1.27+ sends ``fieldValidation=Strict`` with ``create``, ``apply`` and
``replace``: a body naming a field the kind does not have is refused with
400 ``ConfigMap in version "v1" cannot be handled as a ConfigMap: strict
decoding error: unknown field "dataa"``. With ``Warn`` the request goes
through and each unknown field comes back as a ``Warning`` header, which
kubectl prints as ``Warning: unknown field "dataa"``; with ``Ignore`` it is
dropped silently (what the server always did before 1.25).

The schemas are the OpenAPI v3 ones the server publishes
(:func:`kubenotes.apiserver.openapi.component_schemas`), so what the server
accepts and what ``kubectl explain`` shows agree.

Notes
-----
Simplified from upstream: only unknown fields are reported (upstream's
decoder also reports duplicate fields, which a parsed JSON body no longer
has). Unknown fields are dropped from the object before it is stored, as
upstream's decoder does under ``Warn`` and ``Ignore``.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go (validationDirective, transformDecodeError)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go (addStrictDecodingWarnings)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/runtime/error.go (NewStrictDecodingError)
kubernetes-sigs/json (unknown field paths: ``spec.template.spec.containers[0].imagee``)
"""

from __future__ import annotations

import functools
from typing import Any

from kubenotes.api.schema import go_json_kind
from kubenotes.apiserver.status import new_bad_request

__all__ = ["STRICT", "WARN", "IGNORE", "unknown_fields", "check_fields", "schema_of_kind", "type_error", "INT64_FIELDS",
           "STRING_MAP_FIELDS"]

STRICT, WARN, IGNORE = "Strict", "Warn", "Ignore"


@functools.lru_cache(maxsize=None)
def _kinds() -> dict[tuple[str, str], str]:
    from kubenotes.apiserver.openapi import component_schemas

    out = {}
    for name, s in component_schemas().items():
        for gvk in s.get("x-kubernetes-group-version-kind", []):
            gv = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            out[(gv, gvk["kind"])] = name
    return out


def schema_of_kind(api_version: str, kind: str) -> dict | None:
    """The OpenAPI schema of a served kind, or None.

    Examples
    --------
    >>> sorted(schema_of_kind("v1", "ConfigMap")["properties"])[:3]
    ['apiVersion', 'binaryData', 'data']
    >>> schema_of_kind("example.com/v1", "Widget") is None
    True
    """
    from kubenotes.apiserver.openapi import component_schemas

    name = _kinds().get((api_version, kind))
    return component_schemas()[name] if name else None


def _deref(node: dict | None) -> dict | None:
    from kubenotes.apiserver.openapi import component_schemas

    seen = 0
    while node is not None and seen < 8:
        seen += 1
        if "$ref" in node:
            node = component_schemas().get(node["$ref"].rsplit("/", 1)[-1])
        elif "allOf" in node and len(node["allOf"]) == 1 and not node.get("properties"):
            node = node["allOf"][0]
        else:
            break
    return node


def unknown_fields(obj: Any, api_version: str, kind: str) -> list[str]:
    """The paths of the fields in ``obj`` its kind's schema does not have, as upstream's decoder names them.

    Returns an empty list for kinds without a schema (nothing to check against).

    Examples
    --------
    >>> unknown_fields({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "dataa": {}},
    ...                "v1", "ConfigMap")
    ['dataa']
    >>> pod = {"spec": {"containers": [{"name": "a", "image": "x", "imagee": "y"}], "nodeNmae": "n"}}
    >>> unknown_fields(pod, "v1", "Pod")
    ['spec.containers[0].imagee', 'spec.nodeNmae']
    """
    return sorted(p for p, _ in _unknown(obj, api_version, kind))


def _unknown(obj: Any, api_version: str, kind: str) -> list[tuple[str, tuple]]:
    """``(path, keys)`` of each unknown field: the printed path and the keys (and list indexes) that reach it."""
    root = schema_of_kind(api_version, kind)
    out: list[tuple[str, tuple]] = []
    if root is None:
        return out

    def walk(v: Any, node: dict | None, path: str, keys: tuple) -> None:
        node = _deref(node)
        if node is None:
            return
        if isinstance(v, dict):
            props = node.get("properties")
            if props is None:
                extra = node.get("additionalProperties")
                if isinstance(extra, dict):
                    for k, child in v.items():
                        walk(child, extra, f"{path}.{k}" if path else k, (*keys, k))
                return
            for k, child in v.items():
                p = f"{path}.{k}" if path else k
                if k not in props:
                    out.append((p, (*keys, k)))
                else:
                    walk(child, props[k], p, (*keys, k))
        elif isinstance(v, list) and isinstance(node.get("items"), dict):
            for i, child in enumerate(v):
                walk(child, node["items"], f"{path}[{i}]", (*keys, i))

    walk(obj, root, "", ())
    return out


def _drop(obj: Any, keys: tuple) -> None:
    cur = obj
    for k in keys[:-1]:
        try:
            cur = cur[k]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(cur, dict):
        cur.pop(keys[-1], None)


def check_fields(obj: dict, directive: str, *, api_version: str | None = None, kind: str | None = None
                 ) -> list[str]:
    """Apply a ``fieldValidation`` directive to a request body; returns the warnings to send.

    Parameters
    ----------
    obj : dict
        The decoded body; unknown fields are removed from it under ``Warn`` and ``Ignore``.
    directive : str
        ``Strict``, ``Warn``, ``Ignore`` (anything else: ``Ignore``... as kubectl sends only these).

    Returns
    -------
    list of str
        ``unknown field "x"`` warnings (``Warn`` only).

    Raises
    ------
    ApiError
        400 BadRequest under ``Strict`` when a field is unknown, worded as upstream's create/update handlers.

    Examples
    --------
    >>> cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "dataa": {"b": "2"}}
    >>> check_fields(cm, "Strict")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "dataa"
    >>> check_fields(cm, "Warn"), "dataa" in cm
    (['unknown field "dataa"'], False)
    """
    api_version = api_version or obj.get("apiVersion", "")
    kind = kind or obj.get("kind", "")
    found = sorted(_unknown(obj, api_version, kind))
    unknown = [p for p, _ in found]
    if not unknown:
        return []
    if directive == STRICT:
        version = api_version.rsplit("/", 1)[-1]
        errs = ", ".join(f'unknown field "{p}"' for p in unknown)
        raise new_bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: '
                              f"strict decoding error: {errs}")
    for _, keys in sorted(found, key=lambda f: len(f[1]), reverse=True):
        _drop(obj, keys)
    return [f'unknown field "{p}"' for p in unknown] if directive == WARN else []



#: JSON field names whose Go type is ``int64`` in the v1.34 API types (kubernetes/api@v0.34.0 ``*/v1/types.go`` and
#: ``autoscaling/v2``, plus meta/v1's); every other integer field is ``int32``. A name that is ``int32`` in one
#: struct and ``int64`` in another (``count``, ``expirationSeconds``) is taken as ``int64``: never refuse a valid
#: value. The served OpenAPI documents, built from lightkube's models, carry no ``int32``/``int64`` format.
INT64_FIELDS = frozenset({
    "activeDeadlineSeconds", "capacity", "count", "deletionGracePeriodSeconds", "expirationSeconds", "fsGroup",
    "generation", "gid", "gracePeriodSeconds", "int", "limitBytes", "nodeAllocatableUpdatePeriodSeconds",
    "observedGeneration", "remainingItemCount", "resourceSliceCount", "revision", "runAsGroup", "runAsUser",
    "seconds", "sinceSeconds", "sizeBytes", "startingDeadlineSeconds", "supplementalGroups", "tailLines",
    "terminationGracePeriodSeconds", "tolerationSeconds", "uid",
})
#: Map fields whose values are strings in v1.34 (``map[string]string``, or ``[]byte`` as base64). The served
#: schemas give every map lightkube leaves untyped string values; only these are checked value by value.
STRING_MAP_FIELDS = frozenset({
    "annotations", "attachmentMetadata", "binaryData", "data", "deprecatedTopology", "labels", "matchLabels",
    "nodeSelector", "parameters", "selector", "stringData", "volumeAttributes", "allocatedResourceStatuses",
})
_INT_RANGE = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}
_QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


_go_kind = go_json_kind  # the JSON kind Go names in an UnmarshalTypeError


def _go_type(node: dict | None, field: str = "") -> str:
    """The Go type a schema node decodes into, as ``reflect.Type.String()`` prints it (``v1.PodSpec``, ``[]string``)."""
    raw = node or {}
    ref = raw.get("$ref") or (raw.get("allOf") or [{}])[0].get("$ref", "")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        pkg, _, short = name.rpartition(".")
        return f"{pkg.rpartition('.')[2]}.{short}"
    t = raw.get("type")
    if t == "array":
        return "[]" + _go_type(raw.get("items"), field)
    if t == "object" and isinstance(raw.get("additionalProperties"), dict):
        return "map[string]" + _go_type(raw["additionalProperties"], field)
    if t == "integer":
        return "int64" if field in INT64_FIELDS else "int32"
    return {"string": "string", "boolean": "bool", "number": "float64"}.get(t or "", "interface {}")


def type_error(obj: Any, api_version: str, kind: str, *, patch: bool = False) -> str | None:
    """The first value of the wrong JSON type in ``obj``, as Go's decoder words it; None when all decode.

    Walks the body against the kind's schema in document order, as
    ``sigs.k8s.io/json`` decodes it into the kind's Go struct: ``null`` is
    always accepted (the zero value), an integer must fit its ``int32`` or
    ``int64`` field, ``IntOrString`` takes an integer or a string and
    ``Quantity`` a string or a number. Unknown fields are not looked at
    (:func:`check_fields` reports them).

    Parameters
    ----------
    obj : object
        The decoded request body.
    api_version, kind : str
        The kind decoded into; a kind without a schema is not checked.
    patch : bool
        Skip the strategic-merge-patch directives (``$patch``, ``$setElementOrder/...``, ``$retainKeys``...).

    Returns
    -------
    str or None
        ``json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string``.

    Notes
    -----
    Whether an integer field is ``int32`` or ``int64`` comes from :data:`INT64_FIELDS` (by JSON name), since
    the served schemas carry no integer formats. Go's decoder keeps going after a type error and reports the
    first; so does this.

    References
    ----------
    kubernetes-sigs/json (internal/golang/encoding/json/decode.go: UnmarshalTypeError, errorContext)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go

    Examples
    --------
    >>> type_error({"data": "notamap"}, "v1", "ConfigMap")
    'json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string'
    >>> type_error({"metadata": {"finalizers": [1]}}, "v1", "ConfigMap")
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string'
    >>> type_error({"spec": {"replicas": 1099511627776}}, "apps/v1", "Deployment")
    'json: cannot unmarshal number 1099511627776 into Go struct field DeploymentSpec.spec.replicas of type int32'
    >>> type_error({"data": {"a": "b"}, "metadata": {"name": "c", "labels": None}}, "v1", "ConfigMap") is None
    True
    """
    root = schema_of_kind(api_version, kind)
    if root is None or api_version.startswith("apiextensions.k8s.io/"):  # CRDs: checked by their own decoder
        return None
    found: list[str] = []

    def fail(v: Any, struct: str, path: list[str], node: dict | None, field: str, value: str = "") -> None:
        what = value or _go_kind(v)
        if struct:
            found.append(f"json: cannot unmarshal {what} into Go struct field {struct}.{'.'.join(path)} of type "
                         f"{_go_type(node, field)}")
        else:
            found.append(f"json: cannot unmarshal {what} into Go value of type {_go_type(node, field)}")

    def walk(v: Any, raw: dict | None, struct: str, path: list[str], field: str) -> None:
        if found or v is None:
            return
        node = _deref(raw)
        if node is None:
            return
        one_of = node.get("oneOf")
        if one_of is not None:
            if node.get("format") == "int-or-string":
                if isinstance(v, bool) or not isinstance(v, (int, str)):
                    found.append(f"json: cannot unmarshal {_go_kind(v)} into Go value of type int32")
            elif isinstance(v, bool) or not isinstance(v, (str, int, float)):
                found.append(_QUANTITY_ERROR)
            return
        t = node.get("type")
        if t == "string":
            if not isinstance(v, str):
                fail(v, struct, path, raw, field)
        elif t == "boolean":
            if not isinstance(v, bool):
                fail(v, struct, path, raw, field)
        elif t == "number":
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                fail(v, struct, path, raw, field)
        elif t == "integer":
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                fail(v, struct, path, raw, field)
            else:
                lo, hi = _INT_RANGE["int64" if field in INT64_FIELDS else "int32"]
                if isinstance(v, float) or not lo <= v <= hi:
                    fail(v, struct, path, raw, field, f"number {v}")
        elif t == "array":
            if not isinstance(v, list):
                fail(v, struct, path, raw, field)
            else:
                for item in v:
                    walk(item, node.get("items"), struct, path, field)
        elif (t == "object" or "properties" in node) and (node.get("properties") or "additionalProperties" in node):
            if not isinstance(v, dict):
                fail(v, struct, path, raw, field)
                return
            props = node.get("properties")
            extra = node.get("additionalProperties")
            if props:
                ref = (raw or {}).get("$ref") or ((raw or {}).get("allOf") or [{}])[0].get("$ref", "")
                inner = ref.rsplit("/", 1)[-1].rpartition(".")[2] if ref else struct
                for k, child in v.items():
                    if k in props and not (patch and k.startswith("$")):
                        walk(child, props[k], inner, [*path, k], k)
            elif isinstance(extra, dict) and (extra.get("type") != "string" or field in STRING_MAP_FIELDS):
                for k, child in v.items():
                    if not (patch and k.startswith("$")):
                        walk(child, extra, struct, path, field)

    if not isinstance(obj, dict):
        fail(obj, "", [], {"$ref": f"#/components/schemas/{_kinds()[(api_version, kind)]}"}, "")
        return found[0]
    name = _kinds()[(api_version, kind)]
    props = root.get("properties") or {}
    for k, child in obj.items():
        if k in props and not (patch and k.startswith("$")):
            walk(child, props[k], name.rpartition(".")[2], [k], k)
        if found:
            break
    return found[0] if found else None
