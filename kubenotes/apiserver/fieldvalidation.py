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

from kubenotes.apiserver.status import new_bad_request

__all__ = ["STRICT", "WARN", "IGNORE", "unknown_fields", "check_fields", "schema_of_kind"]

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
    root = schema_of_kind(api_version, kind)
    out: list[str] = []
    if root is None:
        return out

    def walk(v: Any, node: dict | None, path: str) -> None:
        node = _deref(node)
        if node is None:
            return
        if isinstance(v, dict):
            props = node.get("properties")
            if props is None:
                extra = node.get("additionalProperties")
                if isinstance(extra, dict):
                    for k, child in v.items():
                        walk(child, extra, f"{path}.{k}" if path else k)
                return
            for k, child in v.items():
                p = f"{path}.{k}" if path else k
                if k not in props:
                    out.append(p)
                else:
                    walk(child, props[k], p)
        elif isinstance(v, list) and isinstance(node.get("items"), dict):
            for i, child in enumerate(v):
                walk(child, node["items"], f"{path}[{i}]")

    walk(obj, root, "")
    return sorted(out)


def _drop(obj: Any, path: str) -> None:
    import re

    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    cur = obj
    for part in parts[:-1]:
        cur = cur[int(part[1:-1])] if part.startswith("[") else cur.get(part)
        if cur is None:
            return
    if isinstance(cur, dict):
        cur.pop(parts[-1], None)


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
    unknown = unknown_fields(obj, api_version, kind)
    if not unknown:
        return []
    if directive == STRICT:
        version = api_version.rsplit("/", 1)[-1]
        errs = ", ".join(f'unknown field "{p}"' for p in unknown)
        raise new_bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: '
                              f"strict decoding error: {errs}")
    for p in sorted(unknown, key=len, reverse=True):
        _drop(obj, p)
    return [f'unknown field "{p}"' for p in unknown] if directive == WARN else []

