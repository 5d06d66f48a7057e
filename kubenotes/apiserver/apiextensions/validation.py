"""Validation of CustomResourceDefinitions (``ValidateCustomResourceDefinition``), the part the model checks.

Checked, with upstream's field paths and texts: the name (``<plural>.<group>``),
the group (a DNS subdomain with a dot), the scope, the names (DNS-1035
labels, the kind's case), the versions (names, unique, exactly one storage
version, a schema for each), the structural-schema rules every CRD trips
over first (a ``type`` at the root, which must be ``object``, and on every
specified property and array item), the ``scale`` subresource's paths,
the printer columns, and the fields an update may not change.

Notes
-----
Not checked: the rest of the structural-schema rules (``metadata`` at the
root, value validations inside ``allOf``/``anyOf``, defaults validating and
surviving pruning), type checking of ``x-kubernetes-validations`` rules (they are
compiled with the model's CEL subset; their estimated cost is checked against upstream's
limits by :mod:`~kubenotes.apiserver.apiextensions.celcost`), conversion webhooks (refused: the model serves
``strategy: None`` only), and ``status.storedVersions`` rules.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/validation.go (ValidateStructural)
"""

from __future__ import annotations

import json
from typing import Any

from kubenotes.apiserver.apiextensions.celcost import rule_cost_errors
from kubenotes.apiserver.apiextensions.celvalidation import rule_compile_errors
from kubenotes.apiserver.validation import (FIELD_IMMUTABLE_ERROR_MSG, FORBIDDEN, INVALID, NOT_SUPPORTED, REQUIRED,
                                            FieldErr, name_is_dns1035_label, name_is_dns_subdomain)

__all__ = ["validate_crd", "PRINTER_COLUMN_TYPES"]

#: The ``additionalPrinterColumns[*].type`` values upstream accepts.
PRINTER_COLUMN_TYPES = ("integer", "number", "string", "boolean", "date")
_SCOPES = ("Cluster", "Namespaced")


def _supported(f: str, v: Any, vals: tuple[str, ...]) -> FieldErr:
    return FieldErr(NOT_SUPPORTED, f, v, "supported values: " + ", ".join(json.dumps(x) for x in vals))


def _structural(s: Any, f: str, where: str, errs: list[FieldErr]) -> None:
    """``type`` must be set on every specified node (except int-or-string and preserve-unknown-fields nodes)."""
    if not isinstance(s, dict):
        return
    if not s.get("type") and not s.get("x-kubernetes-int-or-string") and not (
            where != "at the root" and s.get("x-kubernetes-preserve-unknown-fields")):
        errs.append(FieldErr(REQUIRED, f"{f}.type", detail=f"must not be empty {where}"))
    for k, ps in (s.get("properties") or {}).items():
        _structural(ps, f"{f}.properties[{k}]", "for specified object fields", errs)
    if isinstance(s.get("items"), dict):
        _structural(s["items"], f"{f}.items", "for specified array items", errs)
    if isinstance(s.get("additionalProperties"), dict):
        _structural(s["additionalProperties"], f"{f}.additionalProperties", "for specified object fields", errs)


def validate_crd(crd: dict, old: dict | None = None, server: Any = None) -> list[FieldErr]:
    """The field errors of a CRD (create, or update when ``old`` is given); generic metadata checks apart.

    Examples
    --------
    >>> crd = {"metadata": {"name": "widget.example.com"}, "spec": {"group": "example.com", "scope": "Global",
    ...        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
    ...        "versions": [{"name": "v1", "served": True, "storage": False, "schema": {"openAPIV3Schema": {
    ...            "properties": {"spec": {"type": "object"}}}}}]}}
    >>> for e in validate_crd(crd): print(e)
    metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group
    spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"
    spec.versions: Invalid value: ["v1"]: must have exactly one version marked as storage version
    spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root
    """
    errs: list[FieldErr] = []
    md = crd.get("metadata") or {}
    spec = crd.get("spec") if isinstance(crd.get("spec"), dict) else {}
    names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
    group = spec.get("group") or ""
    plural = names.get("plural") or ""
    if md.get("name") and md.get("name") != f"{plural}.{group}":
        errs.append(FieldErr(INVALID, "metadata.name", md["name"], 'must be spec.names.plural+"."+spec.group'))
    if not group:
        errs.append(FieldErr(REQUIRED, "spec.group"))
    else:
        errs += [FieldErr(INVALID, "spec.group", group, m) for m in name_is_dns_subdomain(group, False)]
        if "." not in group:
            errs.append(FieldErr(INVALID, "spec.group", group, "should be a domain with at least one dot"))
    scope = spec.get("scope") or ""
    if not scope:
        errs.append(FieldErr(REQUIRED, "spec.scope"))
    elif scope not in _SCOPES:
        errs.append(_supported("spec.scope", scope, _SCOPES))
    for key in ("plural", "singular"):
        v = names.get(key) or ""
        if not v:
            errs.append(FieldErr(REQUIRED, f"spec.names.{key}"))
        else:
            errs += [FieldErr(INVALID, f"spec.names.{key}", v, m) for m in name_is_dns1035_label(v, False)]
    for i, sn in enumerate(names.get("shortNames") or ()):
        errs += [FieldErr(INVALID, f"spec.names.shortNames[{i}]", sn, m) for m in name_is_dns1035_label(sn, False)]
    for key in ("kind", "listKind"):
        v = names.get(key) or ""
        if not v:
            errs.append(FieldErr(REQUIRED, f"spec.names.{key}"))
        elif name_is_dns1035_label(v.lower(), False):
            errs.append(FieldErr(INVALID, f"spec.names.{key}", v, "may have mixed case, but should otherwise match: "
                                                                   "[a-z]([-a-z0-9]*[a-z0-9])?"))
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        errs.append(FieldErr(INVALID, "spec.names.listKind", names["listKind"], "kind and listKind may not be the "
                                                                                "same"))
    conv = spec.get("conversion") or {}
    if conv.get("strategy") not in (None, "None"):
        errs.append(FieldErr(FORBIDDEN, "spec.conversion.strategy",
                             detail=f'the kubenotes API server serves conversion strategy "None" only, not '
                                    f'{json.dumps(conv.get("strategy"))}'))
    versions = spec.get("versions") if isinstance(spec.get("versions"), list) else []
    if not versions:
        errs.append(FieldErr(REQUIRED, "spec.versions", detail="must have exactly one version marked as storage "
                                                                "version"))
    else:
        if sum(1 for v in versions if isinstance(v, dict) and v.get("storage")) != 1:
            errs.append(FieldErr(INVALID, "spec.versions", [v.get("name") for v in versions if isinstance(v, dict)],
                                 "must have exactly one version marked as storage version"))
        seen: set[str] = set()
        for i, v in enumerate(versions):
            f = f"spec.versions[{i}]"
            if not isinstance(v, dict):
                continue
            vn = v.get("name") or ""
            if not vn:
                errs.append(FieldErr(REQUIRED, f"{f}.name"))
            else:
                errs += [FieldErr(INVALID, f"{f}.name", vn, m) for m in name_is_dns1035_label(vn, False)]
                if vn in seen:
                    errs.append(FieldErr(INVALID, f"{f}.name", vn, "must be unique"))
                seen.add(vn)
            sch = (v.get("schema") or {}).get("openAPIV3Schema")
            if not isinstance(sch, dict):
                errs.append(FieldErr(REQUIRED, f"{f}.schema.openAPIV3Schema", detail="schemas are required"))
            else:
                sf = f"{f}.schema.openAPIV3Schema"
                if sch.get("type") and sch.get("type") != "object":
                    errs.append(FieldErr(INVALID, f"{sf}.type", sch["type"], "must be object at the root"))
                _structural(sch, sf, "at the root", errs)
                errs += rule_compile_errors(sch, sf)
                unchanged = old is not None and any(
                    isinstance(o, dict) and o.get("name") == vn
                    and (o.get("schema") or {}).get("openAPIV3Schema") == sch
                    for o in (old.get("spec") or {}).get("versions") or ())
                errs += rule_cost_errors(sch, sf, per_expression=not unchanged)
            scale = (v.get("subresources") or {}).get("scale")
            if isinstance(scale, dict):
                for key, under in (("specReplicasPath", ".spec"), ("statusReplicasPath", ".status")):
                    p = scale.get(key) or ""
                    if not p:
                        errs.append(FieldErr(REQUIRED, f"{f}.subresources.scale.{key}"))
                    elif not p.startswith(under + "."):
                        errs.append(FieldErr(INVALID, f"{f}.subresources.scale.{key}", p,
                                             f"should be a json path under {under}"))
            for j, col in enumerate(v.get("additionalPrinterColumns") or ()):
                cf = f"{f}.additionalPrinterColumns[{j}]"
                if not col.get("name"):
                    errs.append(FieldErr(REQUIRED, f"{cf}.name"))
                if not col.get("type"):
                    errs.append(FieldErr(REQUIRED, f"{cf}.type"))
                elif col["type"] not in PRINTER_COLUMN_TYPES:
                    errs.append(_supported(f"{cf}.type", col["type"], PRINTER_COLUMN_TYPES))
                if not col.get("jsonPath"):
                    errs.append(FieldErr(REQUIRED, f"{cf}.JSONPath"))
    if old is not None:
        ospec = old.get("spec") or {}
        if ospec.get("group") != spec.get("group"):
            errs.append(FieldErr(INVALID, "spec.group", spec.get("group"), FIELD_IMMUTABLE_ERROR_MSG))
        onames = ospec.get("names") or {}
        if onames.get("plural") != names.get("plural"):
            errs.append(FieldErr(INVALID, "spec.names.plural", names.get("plural"), FIELD_IMMUTABLE_ERROR_MSG))
    return errs
