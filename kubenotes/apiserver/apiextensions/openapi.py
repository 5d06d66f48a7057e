"""OpenAPI v3 documents of the group-versions CRDs serve (what ``kubectl explain`` reads).

Each served version's ``openAPIV3Schema`` becomes the component schema
``<reversed group>.<version>.<Kind>`` (``com.example.v1.Widget``) with
``apiVersion``, ``kind`` and ``metadata`` (a reference to ``ObjectMeta``)
added and ``x-kubernetes-group-version-kind`` set, plus its ``<Kind>List``;
the paths are those of a built-in resource of the same scope and subresources.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder/builder.go
"""

from __future__ import annotations

import copy
from typing import Any, Callable

__all__ = ["schema_names", "custom_resource_document"]

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_REF = "#/components/schemas/"
_API_VERSION_DOC = ("APIVersion defines the versioned schema of this representation of an object. Servers should "
                    "convert recognized schemas to the latest internal value, and may reject unrecognized values.")
_KIND_DOC = ("Kind is a string value representing the REST resource this object represents. Servers may infer "
             "this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.")


def schema_names(group: str, version: str, kind: str) -> tuple[str, str]:
    """The component names of a custom resource and its list.

    Examples
    --------
    >>> schema_names("example.com", "v1", "Widget")
    ('com.example.v1.Widget', 'com.example.v1.WidgetList')
    """
    base = ".".join(reversed(group.split("."))) + f".{version}."
    return base + kind, base + kind + "List"


def _object_schema(ri: Any) -> dict:
    s = copy.deepcopy(ri.crd.schema or {"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    props = s.setdefault("properties", {})
    props["apiVersion"] = {"description": _API_VERSION_DOC, "type": "string"}
    props["kind"] = {"description": _KIND_DOC, "type": "string"}
    props["metadata"] = {"description": "Standard object's metadata.", "allOf": [{"$ref": _REF + _META + "ObjectMeta"}]}
    s.setdefault("type", "object")
    s["x-kubernetes-group-version-kind"] = [{"group": ri.group, "version": ri.version, "kind": ri.kind}]
    return s


def custom_resource_document(ris: list, schemas: dict, paths_for: Callable, closure: Callable,
                             refs_in: Callable) -> dict:
    """The ``/openapi/v3/apis/<group>/<version>`` document of the custom resources ``ris`` (one group-version).

    ``schemas`` are the built-in component schemas (ObjectMeta, Status, Scale
    are taken from there); ``paths_for``, ``closure`` and ``refs_in`` are
    :mod:`kubenotes.apiserver.openapi`'s path and reference helpers.
    """
    comps = dict(schemas)
    paths: dict[str, dict] = {}
    own: dict[str, dict] = {}
    for ri in ris:
        ref, list_ref = schema_names(ri.group, ri.version, ri.kind)
        own[ref] = _object_schema(ri)
        own[list_ref] = {"description": f"{ri.kind}List is a list of {ri.kind}", "type": "object",
                         "required": ["items"],
                         "properties": {"apiVersion": {"description": _API_VERSION_DOC, "type": "string"},
                                        "items": {"description": f"List of {ri.resource}.", "type": "array",
                                                  "items": {"$ref": _REF + ref}},
                                        "kind": {"description": _KIND_DOC, "type": "string"},
                                        "metadata": {"description": "Standard list metadata.",
                                                     "allOf": [{"$ref": _REF + _META + "ListMeta"}]}},
                         "x-kubernetes-group-version-kind": [{"group": ri.group, "version": ri.version,
                                                              "kind": ri.list_kind}]}
        comps.update(own)
        paths.update(paths_for(ri, comps, (ref, list_ref)))
    components = closure(comps, set(refs_in(paths)) | set(own))
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"}, "paths": paths,
            "components": {"schemas": components}}
