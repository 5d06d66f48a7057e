"""Regenerate the tables of ``kubenotes/apiserver/patch_meta.py`` from upstream's ``swagger.json``.

Usage (from the repository root)::

    python tools/gen_patch_meta.py SWAGGER_JSON            # print the generated block
    python tools/gen_patch_meta.py SWAGGER_JSON --check    # exit 1 when the committed block differs
    python tools/gen_patch_meta.py SWAGGER_JSON --write    # rewrite the block in place

``SWAGGER_JSON`` is ``api/openapi-spec/swagger.json`` of Kubernetes ``release-1.34``;
kubernetes-client/python@v34.1.0 keeps the same file as ``kubernetes/swagger.json.unprocessed``
(sha256 ``f0cb7a8eaad46df1883eeb494771d310609c859649aff668bba3d238ffcb1a6e``). Nothing installed
here ships it, so the script reads it from the path given, and ``tests/apiserver/test_generated.py``
checks the committed tables against it only when ``KUBENOTES_SWAGGER_JSON`` names a copy.

The generated block is everything from the ``#: definition -> field`` comment before
``DEFINITIONS`` to the closing brace of ``KINDS``; the rest of the module (its docstring,
:class:`FieldPatchMeta` and the lookups) is written by hand and left as it is.

How: the roots are the definitions of every kind :data:`kubenotes.apiserver.resources.SERVED_RESOURCES`
serves, their list kinds and their subresources' kinds
(:func:`kubenotes.apiserver.discovery.subresource_kind`), plus meta/v1 ``Status``,
``DeleteOptions`` and ``WatchEvent``. Every definition reachable from them through property
``$ref`` (of the property, its ``items`` or its ``additionalProperties``) is read; a property that
carries one of the four list and patch extensions gets a row, and then, until nothing changes, a
property whose referenced definition has rows gets a row (or its row's last element) naming that
definition. ``KINDS`` maps every ``x-kubernetes-group-version-kind`` of a root to the root.

References
----------
kubernetes/kubernetes@v1.34.0 api/openapi-spec/swagger.json
kubernetes-client/python@v34.1.0 kubernetes/swagger.json.unprocessed
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kubenotes.apiserver.discovery import subresource_kind
from kubenotes.apiserver.resources import SERVED_RESOURCES

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "kubenotes" / "apiserver" / "patch_meta.py"

#: The pinned input's sha256 (kubernetes-client/python@v34.1.0 kubernetes/swagger.json.unprocessed).
SWAGGER_SHA256 = "f0cb7a8eaad46df1883eeb494771d310609c859649aff668bba3d238ffcb1a6e"

_EXTENSIONS = ("x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-list-type",
               "x-kubernetes-list-map-keys")
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_BEGIN = "#: definition -> field -> :class:`FieldPatchMeta` (generated; see the module docstring)."
_KINDS_LINE = "KINDS: dict[tuple[str, str], str] = {"


def _ref(prop: dict) -> str | None:
    """The definition a property's value, items or map values have (``None`` for scalars)."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[1]
    if "items" in prop:
        return _ref(prop["items"])
    if "additionalProperties" in prop and isinstance(prop["additionalProperties"], dict):
        return _ref(prop["additionalProperties"])
    return None


def served_kinds() -> list[tuple[str, str, str]]:
    """``(group, version, kind)`` of every kind served, its list kind and its subresources' kinds.

    Returns
    -------
    list[tuple[str, str, str]]
        In :data:`~kubenotes.apiserver.resources.SERVED_RESOURCES` order, without repeats.
    """
    out: list[tuple[str, str, str]] = []
    for ri in SERVED_RESOURCES:
        for gvk in [(ri.group, ri.version, ri.kind), (ri.group, ri.version, ri.list_kind)] + [
                subresource_kind(ri, sub) for sub in ri.subresources]:
            if gvk not in out:
                out.append(gvk)
    return out


def generate_tables(definitions: dict) -> tuple[dict[str, dict[str, tuple]], dict[tuple[str, str], str]]:
    """``DEFINITIONS`` and ``KINDS`` as values, from the ``definitions`` of a swagger document.

    Parameters
    ----------
    definitions : dict
        ``swagger.json``'s ``definitions``: definition name -> schema.

    Returns
    -------
    tuple[dict, dict]
        definition -> field -> ``(patch_strategy, patch_merge_key, list_type, list_map_keys, definition)``;
        ``(apiVersion, kind)`` -> definition name.

    Examples
    --------
    >>> d = {"io.k8s.api.core.v1.Pod": {"x-kubernetes-group-version-kind": [
    ...          {"group": "", "version": "v1", "kind": "Pod"}],
    ...          "properties": {"spec": {"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec"}}},
    ...      "io.k8s.api.core.v1.PodSpec": {"properties": {"containers": {
    ...          "type": "array", "items": {"$ref": "#/definitions/io.k8s.api.core.v1.Container"},
    ...          "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}}},
    ...      "io.k8s.api.core.v1.Container": {"properties": {"name": {"type": "string"}}}}
    >>> tables, kinds = generate_tables(d)
    >>> tables["io.k8s.api.core.v1.Pod"], tables["io.k8s.api.core.v1.PodSpec"], kinds
    ({'spec': (None, None, None, None, 'io.k8s.api.core.v1.PodSpec')}, \
{'containers': ('merge', 'name', None, None, None)}, {('v1', 'Pod'): 'io.k8s.api.core.v1.Pod'})
    """
    gvk = {(x["group"], x["version"], x["kind"]): name
           for name, schema in definitions.items() for x in schema.get("x-kubernetes-group-version-kind", [])}
    roots = {gvk[k] for k in served_kinds() if k in gvk}
    roots |= {_META + n for n in ("Status", "DeleteOptions", "WatchEvent") if _META + n in definitions}
    reachable, todo = set(), sorted(roots)
    while todo:
        name = todo.pop()
        if name in reachable or name not in definitions:
            continue
        reachable.add(name)
        todo += [r for p in definitions[name].get("properties", {}).values() if (r := _ref(p))]
    table: dict[str, dict[str, list]] = {}
    for name in reachable:
        for field, prop in definitions[name].get("properties", {}).items():
            values = [prop.get(e) for e in _EXTENSIONS]
            if any(v is not None for v in values):
                keys = values[3]
                table.setdefault(name, {})[field] = values[:3] + [tuple(keys) if keys is not None else None, None]
    changed = True
    while changed:
        changed = False
        for name in reachable:
            for field, prop in definitions[name].get("properties", {}).items():
                ref = _ref(prop)
                if ref and table.get(ref):
                    row = table.setdefault(name, {}).setdefault(field, [None] * 5)
                    if row[4] != ref:
                        row[4] = ref
                        changed = True
    tables = {n: {f: tuple(row) for f, row in fields.items()} for n, fields in table.items() if fields}
    kinds = {}
    for name in roots:
        for x in definitions[name].get("x-kubernetes-group-version-kind", []):
            kinds[(f"{x['group']}/{x['version']}" if x["group"] else x["version"], x["kind"])] = name
    return tables, kinds


def _py(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return "(" + ", ".join(_py(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return json.dumps(value)


def generate_block(definitions: dict) -> str:
    """The generated block of ``patch_meta.py``: ``DEFINITIONS`` and ``KINDS`` with their comments.

    Parameters
    ----------
    definitions : dict
        ``swagger.json``'s ``definitions``.

    Returns
    -------
    str
        Python source, from the ``#: definition -> field`` line to ``KINDS``'s closing brace and newline.
    """
    tables, kinds = generate_tables(definitions)
    w = [_BEGIN, "DEFINITIONS: dict[str, dict[str, FieldPatchMeta]] = {"]
    for name in sorted(tables):
        w.append(f"    {_py(name)}: {{")
        w += [f"        {_py(f)}: _f({', '.join(_py(v) for v in row)})," for f, row in sorted(tables[name].items())]
        w.append("    },")
    w += ["}", "",
          "#: ``(apiVersion, kind)`` -> definition name, for every kind served, its list kind and its "
          "subresources' kinds.", _KINDS_LINE]
    w += [f"    {_py(k)}: {_py(v)}," for k, v in sorted(kinds.items())]
    w.append("}")
    return "\n".join(w) + "\n"


def committed_block(source: str) -> tuple[int, int]:
    """Where the generated block is in the module's source: ``(start, end)`` character offsets.

    Raises
    ------
    ValueError
        When the module has no such block.
    """
    start = source.index(_BEGIN)
    end = source.index("\n}\n", source.index(_KINDS_LINE, start)) + 3
    return start, end


def main(argv: list[str] | None = None) -> int:
    """Print, check or write the block; see the module docstring.

    Returns
    -------
    int
        0, or 1 when ``--check`` finds the committed block different.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("swagger", type=Path, help="swagger.json of Kubernetes release-1.34")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    block = generate_block(json.loads(args.swagger.read_text(encoding="utf-8"))["definitions"])
    source = MODULE.read_text(encoding="utf-8")
    start, end = committed_block(source)
    if args.write:
        MODULE.write_text(source[:start] + block + source[end:], encoding="utf-8")
    elif args.check:
        if source[start:end] != block:
            print(f"{MODULE.relative_to(ROOT)}: the generated tables differ from {args.swagger}", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(block)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
