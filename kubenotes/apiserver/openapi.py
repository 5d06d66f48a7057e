"""OpenAPI v3 documents (``/openapi/v3`` and ``/openapi/v3/<group-version>``), built from lightkube's models.

The schemas are not written by hand: they are derived by walking the
lightkube model dataclasses kubenotes already depends on (their type
annotations give the types, their docstrings the descriptions), named as
upstream names them (``io.k8s.api.core.v1.Pod``,
``io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta``). These are what
``kubectl explain`` and ``kubectl apply`` (strategic-merge metadata, and its
check that the server accepts ``fieldValidation`` / ``dryRun``) read.

Notes
-----
Simplified against upstream ``api/openapi-spec/v3/*.json``:

- lightkube annotates every map as ``dict``: map value types come from
  field names (``limits``/``requests``/``capacity``... hold Quantities,
  ``extra`` string lists, the rest strings).
- integers carry no ``int32``/``int64`` format (lightkube keeps only ``int``);
  zero ``default`` values (``""``, ``0``, ``{}``) are guessed as upstream gives
  them to non-pointer Go fields: required fields, list items and
  ``metadata``/``spec``/``status``/``template`` (lightkube does not record
  pointer-ness); no enums.
- the list and patch extensions (``x-kubernetes-patch-merge-key``,
  ``x-kubernetes-patch-strategy``, ``x-kubernetes-list-type``,
  ``x-kubernetes-list-map-keys``) come from
  :data:`kubenotes.apiserver.patch_meta.DEFINITIONS`, generated from
  upstream's ``swagger.json``, on every property upstream has them; kubectl
  computes its ``apply`` patch from them exactly as from a real server's.
- paths cover create/list/deletecollection, get/replace/patch/delete and the
  subresources in :data:`kubenotes.apiserver.resources.SERVED_RESOURCES`; no ``watch`` paths
  (deprecated upstream), and only the query parameters kubectl checks for.
- the ``hash`` in the index is a SHA-512 of the document, as upstream's.

References
----------
kubernetes/kubernetes@v1.34.0 api/openapi-spec/v3/api__v1_openapi.json
kubernetes/kubernetes@v1.34.0 api/openapi-spec/v3/apis__apps__v1_openapi.json
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kube-openapi/pkg/handler3/handler.go (index shape)
kube-openapi pkg/handler/handler.go (the v2 document's protobuf media types)
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import re
from typing import Iterable

from kubenotes.apiserver.discovery import group_versions, subresource_kind, subresource_verbs
from kubenotes.apiserver.patch_meta import field_extensions
from kubenotes.apiserver.resources import GATED_RESOURCES, SERVED_RESOURCES, ResourceInfo

__all__ = [
    "schema_name",
    "component_schemas",
    "openapi_v3_index",
    "openapi_v3_document",
    "document_hash",
    "OPENAPI_V2_PROTOBUF",
    "openapi_v2_protobuf",
]

_REF = "#/components/schemas/"

# Modules that do not follow ``io.k8s.api.<group>.<version>``, and aliases that are not dataclasses.
_PACKAGES = {
    "meta_v1": "io.k8s.apimachinery.pkg.apis.meta.v1",
    "resource": "io.k8s.apimachinery.pkg.api.resource",
    "util_intstr": "io.k8s.apimachinery.pkg.util.intstr",
    "runtime": "io.k8s.apimachinery.pkg.runtime",
    "version": "io.k8s.apimachinery.pkg.version",
    "apiextensions_v1": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1",
    "apiregistration_v1": "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1",
}
_ALIASES = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {
        "description": "Quantity is a fixed-point representation of a number (\"500m\", \"1Gi\").",
        "oneOf": [{"type": "string"}, {"type": "number"}]},
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
        "description": "IntOrString is a type that can hold an int32 or a string.",
        "format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]},
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": {
        "description": "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.",
        "type": "string", "format": "date-time"},
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": {
        "description": "MicroTime is version of Time with microsecond level precision.",
        "type": "string", "format": "date-time"},
    "io.k8s.apimachinery.pkg.runtime.RawExtension": {
        "description": "RawExtension is used to hold extensions in external versions.", "type": "object"},
    "io.k8s.apimachinery.pkg.apis.meta.v1.Patch": {
        "description": "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
        "type": "object"},
}
_PRIMITIVE = {"str": {"type": "string"}, "int": {"type": "integer"}, "float": {"type": "number", "format": "double"},
              "bool": {"type": "boolean"}, "dict": {"type": "object"}, "Dict": {"type": "object"},
              "Any": {"type": "object"}}

_QTY = "resource.Quantity"
#: Value types of map fields (lightkube annotates every map as ``dict``); the rest map to strings.
_MAP_VALUES = {**{n: _QTY for n in ("allocatable", "allocatedResources", "capacity", "default", "defaultRequest",
                                    "hard", "limits", "max", "maxLimitRequestRatio", "min", "overhead",
                                    "requests", "used")},
               "disruptedPods": "meta_v1.Time", "extra": "List[str]"}

_ALIAS_TYPES = {"str": {"type": "string"}, "datetime": {"type": "string", "format": "date-time"}}

_FIELD_DOC = re.compile(r"^\s*\* \*\*(\w+)\*\* ``[^`]*`` - (.*)$")


def _package(module: str) -> str:
    if module in _PACKAGES:
        return _PACKAGES[module]
    group, _, version = module.rpartition("_")
    return f"io.k8s.api.{group}.{version}"


def _module_for(group: str, version: str) -> str:
    return f"{(group.split('.')[0] or 'core')}_{version}"


def schema_name(module: str, cls: str) -> str:
    """Upstream's schema name for lightkube model ``module.cls``.

    Examples
    --------
    >>> schema_name("core_v1", "Pod"), schema_name("meta_v1", "ObjectMeta")
    ('io.k8s.api.core.v1.Pod', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')
    >>> schema_name("rbac_v1", "Role")
    'io.k8s.api.rbac.v1.Role'
    """
    return f"{_package(module)}.{cls}"


def _parse_doc(doc: str) -> tuple[str, dict[str, str]]:
    head, _, params = (doc or "").partition("**parameters**")
    desc = " ".join(line.strip() for line in head.strip().splitlines()).strip()
    fields: dict[str, str] = {}
    cur = None
    for line in params.splitlines():
        m = _FIELD_DOC.match(line)
        if m:
            cur = m.group(1)
            fields[cur] = m.group(2).strip()
        elif cur and line.strip():
            fields[cur] += " " + line.strip()
    return desc, fields


def _split_args(s: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(s[start:i].strip())
            start = i + 1
    out.append(s[start:].strip())
    return out


class _Walker:
    def __init__(self) -> None:
        self.schemas: dict[str, dict] = {}

    def ref_for(self, module: str, name: str) -> str:
        """Schema name for a type name as written in ``module``; walks it when new."""
        if "." in name:
            module, name = name.split(".", 1)
        full = schema_name(module, name)
        if full in self.schemas:
            return full
        if full in _ALIASES:
            self.schemas[full] = dict(_ALIASES[full])
            return full
        mod = importlib.import_module(f"lightkube.models.{module}")
        cls = getattr(mod, name)
        if not isinstance(cls, type):  # an alias such as ``FieldsV1 = Dict``
            self.schemas[full] = dict(_ALIAS_TYPES.get(getattr(cls, "__name__", ""), {"type": "object"}))
            return full
        self.schemas[full] = {}  # placeholder against cycles (JSONSchemaProps)
        self.schemas[full] = self._class_schema(module, cls, full)
        return full

    def _class_schema(self, module: str, cls, full: str) -> dict:
        desc, field_docs = _parse_doc(cls.__doc__)
        annotations = cls.__annotations__
        props: dict[str, dict] = {}
        required = []
        for fname, ann in annotations.items():
            ann = ann if isinstance(ann, str) else getattr(ann, "__forward_arg__", str(ann))
            wire = fname.rstrip("_")  # lightkube appends ``_`` to Python keywords (``continue_``)
            optional = ann.startswith("Optional[")
            if optional:
                ann = ann[len("Optional["):-1]
            else:
                required.append(wire)
            if ann == "dict":  # lightkube drops map value types; upstream's, by field name
                ann = f"Dict[str, {_MAP_VALUES.get(wire, 'str')}]"
            prop = self._type_schema(module, ann, top=True, default=not optional or wire in _NON_POINTER)
            if field_docs.get(wire) or field_docs.get(fname):
                prop = {"description": field_docs.get(wire) or field_docs[fname], **prop}
            prop.update(field_extensions(full, wire))
            props[wire] = prop
        schema: dict = {"description": desc, "type": "object", "properties": props}
        if required:
            schema["required"] = required
        return schema

    def _type_schema(self, module: str, ann: str, top: bool = False, default: bool = True) -> dict:
        """Schema of one annotation; ``top`` for a property, ``default`` whether upstream gives it a zero default
        (non-pointer Go fields: required properties, list items, ``metadata``/``spec``/``status``)."""
        ann = ann.strip()
        if ann.startswith("List["):
            return {"type": "array", "items": self._type_schema(module, ann[5:-1])}
        if ann.startswith("Dict["):
            _, value = _split_args(ann[5:-1])
            return {"type": "object", "additionalProperties": self._type_schema(module, value)}
        if ann.startswith("Optional["):
            return self._type_schema(module, ann[len("Optional["):-1], top, default)
        if ann in _PRIMITIVE:
            s = dict(_PRIMITIVE[ann])
            if default and ann in _ZERO:
                s["default"] = _ZERO[ann]
            return s
        ref = self.ref_for(module, ann)
        if "properties" not in self.schemas[ref] and self.schemas[ref]:  # Time, Quantity, IntOrString...
            return {"allOf": [{"$ref": _REF + ref}]} if top else {"$ref": _REF + ref}
        out: dict = {"allOf": [{"$ref": _REF + ref}]}
        if default:
            out["default"] = {}
        return out


_ZERO = {"str": "", "int": 0, "bool": False, "float": 0}
_NON_POINTER = ("metadata", "spec", "status", "template")


def _roots() -> list[tuple[str, str]]:
    roots: list[tuple[str, str]] = [("meta_v1", "Status"), ("meta_v1", "DeleteOptions"), ("meta_v1", "Patch"),
                                    ("meta_v1", "WatchEvent")]
    for ri in SERVED_RESOURCES:
        mod = _module_for(ri.group, ri.version)
        roots.append((mod, ri.kind))
        if "list" in ri.verbs:
            roots.append((mod, ri.list_kind))
        for sub in ri.subresources:
            g, v, k = subresource_kind(ri, sub)
            roots.append((_module_for(g, v), k))
    return roots


@functools.lru_cache(maxsize=1)
def component_schemas() -> dict[str, dict]:
    """Every schema reachable from the served kinds, by upstream name.

    Top-level kinds carry ``x-kubernetes-group-version-kind``. Built once and
    cached: treat the returned dict as read-only (the documents are copies).

    Examples
    --------
    >>> s = component_schemas()
    >>> s["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"]
    [{'group': 'apps', 'kind': 'Deployment', 'version': 'v1'}]
    """
    w = _Walker()
    for mod, cls in _roots():
        try:
            present = hasattr(importlib.import_module(f"lightkube.models.{mod}"), cls)
        except ImportError:
            present = False
        if not present:
            continue
        full = w.ref_for(mod, cls)
        group, version = _gv_of_module(mod)
        if group is not None and cls not in ("Patch",):
            gvk = [{"group": group, "kind": cls, "version": version}]
            w.schemas[full]["x-kubernetes-group-version-kind"] = gvk
    return w.schemas


def _gv_of_module(mod: str) -> tuple[str | None, str]:
    """``(group, version)`` of a lightkube model module, ``(None, version)`` when no served kind lives in it."""
    if mod == "meta_v1":
        return "", "v1"
    for g, v in group_versions() + [("autoscaling", "v1"), ("policy", "v1"), ("authentication.k8s.io", "v1")]:
        if _module_for(g, v) == mod:
            return g, v
    return None, mod.rpartition("_")[2]


def _op_id(verb: str, ri: ResourceInfo, scope: str, sub: str = "") -> str:
    group = "".join(p.capitalize() for p in (ri.group.split(".")[0] if ri.group else "core").split("-"))
    return f"{verb}{group}{ri.version.capitalize()}{scope}{ri.kind}{sub.capitalize()}"


_Q = {
    "dryRun": "When present, indicates that modifications should not be persisted.",
    "fieldManager": "fieldManager is a name associated with the actor or entity that is making these changes.",
    "fieldValidation": "fieldValidation instructs the server on how to handle objects in the request "
                       "containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.",
    "force": "Force is going to \"force\" Apply requests.",
    "labelSelector": "A selector to restrict the list of returned objects by their labels.",
    "fieldSelector": "A selector to restrict the list of returned objects by their fields.",
    "limit": "limit is a maximum number of responses to return for a list call.",
    "continue": "The continue option should be set when retrieving more results from the server.",
    "resourceVersion": "resourceVersion sets a constraint on what resource versions a request may be served from.",
    "watch": "Watch for changes to the described resources and return them as a stream of add, update, "
             "and remove notifications.",
    "gracePeriodSeconds": "The duration in seconds before the object should be deleted.",
    "propagationPolicy": "Whether and how garbage collection will be performed: Orphan, Background, Foreground.",
}


def _params(*names: str) -> list[dict]:
    out = []
    for n in names:
        t = {"type": "integer"} if n in ("limit", "gracePeriodSeconds") else \
            {"type": "boolean"} if n in ("force", "watch") else {"type": "string", "uniqueItems": True}
        out.append({"name": n, "in": "query", "description": _Q[n], "schema": t})
    return out


def _content(ref: str) -> dict:
    schema = {"$ref": _REF + ref}
    return {t: {"schema": schema} for t in ("application/json", "application/yaml",
                                              "application/vnd.kubernetes.protobuf")}


def _op(action: str, op_id: str, gvk: dict, ref: str, params: list[dict], desc: str, body: bool = False,
        patch: bool = False) -> dict:
    op = {"tags": [], "description": desc, "operationId": op_id, "parameters": params,
          "responses": {"200": {"description": "OK", "content": _content(ref)},
                        "401": {"description": "Unauthorized"}}}
    if body:
        if patch:
            patch_ref = {"$ref": _REF + "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}
            op["requestBody"] = {"content": {t: {"schema": patch_ref}
                                             for t in ("application/apply-patch+yaml", "application/json-patch+json",
                                                       "application/merge-patch+json",
                                                       "application/strategic-merge-patch+json")},
                                 "required": True}
        else:
            op["requestBody"] = {"content": {"*/*": {"schema": {"$ref": _REF + ref}}}, "required": True}
    if action in ("post",):
        op["responses"]["201"] = {"description": "Created", "content": _content(ref)}
    op["x-kubernetes-action"] = action
    op["x-kubernetes-group-version-kind"] = gvk
    return op


_WRITE = ("dryRun", "fieldManager", "fieldValidation")
_LIST = ("labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "watch")
_STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"


def _paths_for(ri: ResourceInfo, schemas: dict, names: tuple[str, str] | None = None) -> dict[str, dict]:
    mod = _module_for(ri.group, ri.version)
    # a custom resource's schemas are named by its CRD (``com.example.v1.Widget``), not by a lightkube module
    ref, list_ref = names or (schema_name(mod, ri.kind), schema_name(mod, ri.list_kind))
    gvk = {"group": ri.group, "version": ri.version, "kind": ri.kind}
    root = f"/apis/{ri.group}/{ri.version}" if ri.group else f"/api/{ri.version}"
    ns_param = [{"name": "namespace", "in": "path", "description": "object name and auth scope, such as for "
                 "teams and projects", "required": True, "schema": {"type": "string", "uniqueItems": True}}]
    name_param = [{"name": "name", "in": "path", "description": f"name of the {ri.kind}", "required": True,
                   "schema": {"type": "string", "uniqueItems": True}}]
    coll = f"{root}/namespaces/{{namespace}}/{ri.resource}" if ri.namespaced else f"{root}/{ri.resource}"
    scope = "Namespaced" if ri.namespaced else ""
    v = set(ri.verbs)
    paths: dict[str, dict] = {}
    c: dict = {"parameters": list(ns_param) if ri.namespaced else []}
    if "list" in v and list_ref in schemas:
        c["get"] = _op("list", _op_id("list", ri, scope), gvk, list_ref, _params(*_LIST),
                       f"list or watch objects of kind {ri.kind}")
    if "create" in v:
        c["post"] = _op("post", _op_id("create", ri, scope), gvk, ref, _params(*_WRITE),
                        f"create a {ri.kind}", body=True)
    if "deletecollection" in v:
        c["delete"] = _op("deletecollection", _op_id("deleteCollection", ri, scope), gvk, _STATUS,
                          _params("dryRun", "gracePeriodSeconds", "propagationPolicy", *_LIST),
                          f"delete collection of {ri.kind}")
    paths[coll] = c
    if ri.namespaced and "list" in v and list_ref in schemas:
        paths[f"{root}/{ri.resource}"] = {"parameters": [], "get": _op(
            "list", _op_id("list", ri, "", "ForAllNamespaces"), gvk, list_ref, _params(*_LIST),
            f"list or watch objects of kind {ri.kind}")}
    item: dict = {"parameters": name_param + (list(ns_param) if ri.namespaced else [])}
    if "get" in v:
        item["get"] = _op("get", _op_id("read", ri, scope), gvk, ref, [], f"read the specified {ri.kind}")
    if "update" in v:
        item["put"] = _op("put", _op_id("replace", ri, scope), gvk, ref, _params(*_WRITE),
                          f"replace the specified {ri.kind}", body=True)
    if "patch" in v:
        item["patch"] = _op("patch", _op_id("patch", ri, scope), gvk, ref, _params(*_WRITE, "force"),
                            f"partially update the specified {ri.kind}", body=True, patch=True)
    if "delete" in v:
        item["delete"] = _op("delete", _op_id("delete", ri, scope), gvk, _STATUS,
                             _params("dryRun", "gracePeriodSeconds", "propagationPolicy"),
                             f"delete a {ri.kind}")
    if len(item) > 1:
        paths[f"{coll}/{{name}}"] = item
    for sub in sorted(ri.subresources):
        g, ver, k = subresource_kind(ri, sub)
        sref = ref if (g, ver, k) == (ri.group, ri.version, ri.kind) else schema_name(_module_for(g, ver), k)
        if sref not in schemas:
            continue
        sgvk = {"group": g, "version": ver, "kind": k}
        sp: dict = {"parameters": list(item["parameters"])}
        for verb in subresource_verbs(sub):
            label = f"{sub} of the specified {ri.kind}"
            if verb == "get":
                sp["get"] = _op("get", _op_id("read", ri, scope, sub), sgvk, sref, [], f"read {label}")
            elif verb == "update":
                sp["put"] = _op("put", _op_id("replace", ri, scope, sub), sgvk, sref, _params(*_WRITE),
                                f"replace {label}", body=True)
            elif verb == "patch":
                sp["patch"] = _op("patch", _op_id("patch", ri, scope, sub), sgvk, sref, _params(*_WRITE, "force"),
                                  f"partially update {label}", body=True, patch=True)
            elif verb == "create":
                sp["post"] = _op("post", _op_id("create", ri, scope, sub), sgvk, sref, _params(*_WRITE),
                                 f"create {label}", body=True)
        paths[f"{coll}/{{name}}/{sub}"] = sp
    return paths


def _closure(schemas: dict, start: set[str]) -> dict:
    seen: set[str] = set()
    todo = list(start)
    while todo:
        n = todo.pop()
        if n in seen or n not in schemas:
            continue
        seen.add(n)
        todo.extend(_refs_in(schemas[n]))
    return {n: schemas[n] for n in sorted(seen)}


def _refs_in(node) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                out.append(v[len(_REF):])
            else:
                out.extend(_refs_in(v))
    elif isinstance(node, list):
        for v in node:
            out.extend(_refs_in(v))
    return out


def _path_key(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


@functools.lru_cache(maxsize=None)
def _document_json(group_version_path: str) -> str:
    key = group_version_path.strip("/")
    match = [(g, v) for g, v in group_versions() if _path_key(g, v) == key]
    if not match:
        raise KeyError(group_version_path)
    g, v = match[0]
    schemas = component_schemas()
    paths: dict[str, dict] = {}
    for ri in SERVED_RESOURCES:
        if (ri.group, ri.version) == (g, v):
            paths.update(_paths_for(ri, schemas))
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.33.0"},
        "paths": paths,
        "components": {"schemas": _closure(schemas, set(_refs_in(paths)))},
    }
    return json.dumps(doc, sort_keys=True)


def openapi_v3_document(group_version_path: str, custom: Iterable[ResourceInfo] = ()) -> dict:
    """The OpenAPI v3 document of one group-version (``"api/v1"``, ``"apis/apps/v1"``).

    Returns a fresh dict each call (built once, then cached as JSON).

    Raises
    ------
    KeyError
        For a group-version the server does not serve.

    Examples
    --------
    >>> doc = openapi_v3_document("apis/apps/v1")
    >>> doc["openapi"], "io.k8s.api.apps.v1.Deployment" in doc["components"]["schemas"]
    ('3.0.0', True)
    >>> doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments"]["post"]["x-kubernetes-action"]
    'post'
    """
    key = group_version_path.strip("/")
    mine = [ri for ri in custom if _path_key(ri.group, ri.version) == key]
    if mine:  # a CRD's group-version (``custom``: the CRDs' served resources)
        from kubenotes.apiserver.apiextensions.openapi import custom_resource_document

        return custom_resource_document(mine, component_schemas(), _paths_for, _closure, _refs_in)
    return json.loads(_document_json(group_version_path))


@functools.lru_cache(maxsize=None)
def _gated_json(key: str) -> str:
    """The document of an off-by-default group-version (:data:`~kubenotes.apiserver.resources.GATED_RESOURCES`)."""
    ris = [ri for ri in GATED_RESOURCES if _path_key(ri.group, ri.version) == key]
    w = _Walker()
    for ri in ris:
        mod = _module_for(ri.group, ri.version)
        for kind in (ri.kind, ri.list_kind):
            w.schemas.pop(schema_name(mod, kind), None)
            full = w.ref_for(mod, kind)
            w.schemas[full]["x-kubernetes-group-version-kind"] = [
                {"group": ri.group, "kind": kind, "version": ri.version}]
    schemas = {**w.schemas, **component_schemas()}  # the shared ones as the built-in documents have them
    paths: dict[str, dict] = {}
    for ri in ris:
        paths.update(_paths_for(ri, schemas))
    return json.dumps({"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.33.0"}, "paths": paths,
                       "components": {"schemas": _closure(schemas, set(_refs_in(paths)))}}, sort_keys=True)


def gated_document(group_version_path: str, served: Iterable[ResourceInfo]) -> dict | None:
    """The OpenAPI v3 document of an enabled off-by-default group-version, None when it is not one.

    Parameters
    ----------
    group_version_path : str
        ``apis/admissionregistration.k8s.io/v1beta1``.
    served : iterable of ResourceInfo
        The server's enabled off-by-default resources (``APIServer.gated_served``).

    Examples
    --------
    >>> from kubenotes.apiserver.resources import GATED_RESOURCES
    >>> doc = gated_document("apis/admissionregistration.k8s.io/v1beta1", GATED_RESOURCES)
    >>> "io.k8s.api.admissionregistration.v1beta1.MutatingAdmissionPolicy" in doc["components"]["schemas"]
    True
    >>> gated_document("apis/admissionregistration.k8s.io/v1beta1", []) is None
    True
    """
    key = group_version_path.strip("/")
    if not any(_path_key(ri.group, ri.version) == key for ri in served):
        return None
    return json.loads(_gated_json(key))


def gated_index_entries(served: Iterable[ResourceInfo]) -> dict:
    """``/openapi/v3`` index entries of the enabled off-by-default group-versions."""
    out = {}
    for key in dict.fromkeys(_path_key(ri.group, ri.version) for ri in served):
        digest = hashlib.sha512(_gated_json(key).encode()).hexdigest().upper()
        out[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"}
    return out


def document_hash(group_version_path: str) -> str:
    """Upper-case hex SHA-512 of the served document, as upstream's index carries."""
    return hashlib.sha512(_document_json(group_version_path).encode()).hexdigest().upper()


@functools.lru_cache(maxsize=1)
def _index() -> str:
    paths = {}
    for g, v in group_versions():
        key = _path_key(g, v)
        paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={document_hash(key)}"}
    return json.dumps({"paths": paths})


def openapi_v3_index(custom: Iterable[ResourceInfo] = ()) -> dict:
    """The ``/openapi/v3`` index: every served group-version and its document's URL.

    Examples
    --------
    >>> idx = openapi_v3_index()["paths"]
    >>> idx["api/v1"]["serverRelativeURL"].startswith("/openapi/v3/api/v1?hash=")
    True
    """
    out = json.loads(_index())
    for g, v in dict.fromkeys((ri.group, ri.version) for ri in custom):  # the CRDs' group-versions
        key = _path_key(g, v)
        body = json.dumps(openapi_v3_document(key, custom), sort_keys=True).encode()
        out["paths"][key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash="
                                                  f"{hashlib.sha512(body).hexdigest().upper()}"}
    return out


#: The media type ``/openapi/v2`` answers with (gnostic's OpenAPI v2 ``Document`` as protobuf). kubectl asks for
#: ``...spec.v2@v1.0+protobuf``; kube-openapi's handler returns the ``.v1.0`` spelling, which Go's mime parser accepts.
OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def _pb_bytes(field: int, payload: bytes) -> bytes:
    n, out = len(payload), bytearray([(field << 3) | 2])
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            break
    return bytes(out) + payload


def openapi_v2_protobuf(git_version: str = "v1.33.0") -> bytes:
    """``/openapi/v2``: a gnostic OpenAPI v2 ``Document`` with its header and no definitions.

    kubectl reads ``/openapi/v3`` for the kinds it knows the group-version of
    and falls back to ``/openapi/v2`` for one the server lacks (a Deployment in
    ``apps/v1beta1``, a CRD's kind before the CRD exists). With no definitions
    its client-side validation has nothing to check such an object against, so
    kubectl goes on to the REST mapping and prints upstream's ``resource mapping
    not found ... ensure CRDs are installed first``, as against a real server.

    Notes
    -----
    Simplified: the served kinds' schemas are in the v3 documents only
    (kubectl 1.27+ uses v3 for them); the v2 document carries ``swagger``
    (field 1) and ``info`` (field 2: title, version) only.

    Examples
    --------
    >>> doc = openapi_v2_protobuf()
    >>> len(doc), b"2.0" in doc, b"v1.33.0" in doc
    (28, True, True)
    """
    info = _pb_bytes(1, b"Kubernetes") + _pb_bytes(2, git_version.encode())
    return _pb_bytes(1, b"2.0") + _pb_bytes(2, info)
