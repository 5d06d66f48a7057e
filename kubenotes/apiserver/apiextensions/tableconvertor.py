"""Server-side Tables of custom resources: ``Name`` and the version's ``additionalPrinterColumns``.

Each column's ``jsonPath`` is read from the object; ``date`` columns print as
an age (``5m``), ``integer``/``number``/``boolean`` cells keep their JSON
type, and a missing value is an empty cell (kubectl prints ``<none>``).

Notes
-----
Only simple JSON paths are read (``.status.replicas``, ``.spec.items[0].name``,
``.metadata.labels.app``); upstream accepts any kubectl JSONPath template.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor/tableconvertor.go
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from kubenotes.apiserver.tables import human_duration, partial_object_metadata

__all__ = ["table_for_columns", "read_json_path", "NAME_DESCRIPTION"]

#: The Name column's description (``ObjectMeta.name``'s documentation, as upstream's swagger gives it).
NAME_DESCRIPTION = ("Name must be unique within a namespace. Is required when creating resources, although some "
                    "resources may allow a client to request the generation of an appropriate name automatically. "
                    "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
                    "updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                    "names#names")

_STEP = re.compile(r"\.((?:\\.|[^.\[])+)|\[(\d+)\]|\['([^']*)'\]")


def read_json_path(obj: Any, path: str) -> tuple[Any, bool]:
    """The value at a simple JSONPath; ``(None, False)`` when a step is missing.

    Examples
    --------
    >>> o = {"metadata": {"labels": {"app.kubernetes.io/name": "x"}}, "spec": {"items": [{"n": 1}]}}
    >>> read_json_path(o, ".spec.items[0].n"), read_json_path(o, ".metadata.labels.app\\\\.kubernetes\\\\.io/name")
    ((1, True), ('x', True))
    >>> read_json_path(o, ".status.replicas")
    (None, False)
    """
    cur = obj
    p = path.strip()
    if p.startswith("{") and p.endswith("}"):
        p = p[1:-1]
    pos = 0
    while pos < len(p):
        m = _STEP.match(p, pos)
        if m is None:
            return None, False
        pos = m.end()
        if m.group(2) is not None:
            i = int(m.group(2))
            if not isinstance(cur, list) or i >= len(cur):
                return None, False
            cur = cur[i]
        else:
            key = m.group(1).replace("\\.", ".") if m.group(1) is not None else m.group(3)
            if not isinstance(cur, dict) or key not in cur:
                return None, False
            cur = cur[key]
    return cur, True


def _cell(ctype: str, value: Any, now: float) -> Any:
    if ctype == "date":
        from kubenotes.apiserver.server import parse_timestamp

        try:
            return human_duration(now - parse_timestamp(str(value)))
        except (ValueError, TypeError):
            return None
    if ctype == "integer":
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if ctype == "number":
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if ctype == "boolean":
        return value if isinstance(value, bool) else None
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def table_for_columns(columns: Iterable[dict], objects: Iterable[dict], now: float) -> dict:
    """A ``meta.k8s.io/v1`` Table of custom resources.

    Parameters
    ----------
    columns : iterable of dict
        ``additionalPrinterColumns`` (``name``, ``type``, ``jsonPath``, optional ``format``,
        ``description``, ``priority``).
    objects : iterable of dict
    now : float
        Virtual seconds (for ``date`` columns).

    Returns
    -------
    dict

    Examples
    --------
    >>> cols = [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
    ...         {"name": "Phase", "type": "string", "jsonPath": ".status.phase", "priority": 1}]
    >>> t = table_for_columns(cols, [{"metadata": {"name": "a"}, "spec": {"size": 3}}], 0)
    >>> [c["name"] for c in t["columnDefinitions"]], t["rows"][0]["cells"]
    (['Name', 'Size', 'Phase'], ['a', 3, None])
    """
    cols = list(columns)
    defs = [{"name": "Name", "type": "string", "format": "name", "description": NAME_DESCRIPTION, "priority": 0}]
    for c in cols:
        defs.append({"name": c.get("name", ""), "type": c.get("type", "string"), "format": c.get("format", ""),
                     "description": c.get("description", ""), "priority": int(c.get("priority", 0) or 0)})
    rows = []
    for o in objects:
        cells: list[Any] = [(o.get("metadata") or {}).get("name", "")]
        for c in cols:
            value, found = read_json_path(o, c.get("jsonPath", ""))
            cells.append(_cell(c.get("type", "string"), value, now) if found and value is not None else None)
        rows.append({"cells": cells, "object": partial_object_metadata(o)})
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {}, "columnDefinitions": defs,
            "rows": rows}
