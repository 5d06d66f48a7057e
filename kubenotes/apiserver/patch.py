"""JSON merge patch (RFC 7386) and JSON patch (RFC 6902) over JSON-shaped dicts.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
RFC 7386 JSON Merge Patch; RFC 6902 JSON Patch (evanphx/json-patch, which the API server uses)
"""

from __future__ import annotations

from typing import Any

from kubenotes.apiserver.status import new_bad_request, ApiError
from kubenotes.apiserver.store import deep_copy

__all__ = ["merge_patch", "json_patch", "MERGE_PATCH", "JSON_PATCH", "STRATEGIC_MERGE_PATCH", "APPLY_PATCH"]

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


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise new_bad_request(f'the server rejected our request due to an error in our request: invalid JSON pointer "{path}"')
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


def _missing(path: str) -> ApiError:
    return new_bad_request(f"the server rejected our request due to an error in our request: "
                           f"doc is missing path: \"{path}\": missing value")


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
        400 BadRequest for a missing path or a failed ``test``.

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
                raise new_bad_request(f"the server rejected our request due to an error in our request: "
                                      f"testing value {path} failed: test failed")
        else:
            raise new_bad_request(f"the server rejected our request due to an error in our request: "
                                  f"Unexpected kind: {kind}")
    return doc
