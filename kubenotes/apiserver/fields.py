"""Field selectors (``?fieldSelector=spec.nodeName=worker-1``) and the fields each kind exposes to them.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/fields/selector.go
kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (ToSelectableFields)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/event/strategy.go, pkg/registry/core/node/strategy.go
"""

from __future__ import annotations

from typing import Any, Callable

from kubenotes.apiserver.status import new_bad_request

__all__ = ["FieldSelector", "parse_field_selector", "selectable_fields"]


def _g(o: dict, *path: str) -> str:
    for p in path:
        o = o.get(p) if isinstance(o, dict) else None
        if o is None:
            return ""
    if isinstance(o, bool):
        return "true" if o else "false"
    return str(o)


def _meta(o: dict) -> dict[str, str]:
    m = o.get("metadata", {})
    out = {"metadata.name": m.get("name", "")}
    if "namespace" in m:
        out["metadata.namespace"] = m.get("namespace", "")
    return out


_EXTRA: dict[str, Callable[[dict], dict[str, str]]] = {
    "pods": lambda o: {
        "spec.nodeName": _g(o, "spec", "nodeName"), "spec.restartPolicy": _g(o, "spec", "restartPolicy"),
        "spec.schedulerName": _g(o, "spec", "schedulerName"),
        "spec.serviceAccountName": _g(o, "spec", "serviceAccountName"),
        "spec.hostNetwork": _g(o, "spec", "hostNetwork") or "false",
        "status.phase": _g(o, "status", "phase"), "status.podIP": _g(o, "status", "podIP"),
        "status.nominatedNodeName": _g(o, "status", "nominatedNodeName")},
    "nodes": lambda o: {"spec.unschedulable": _g(o, "spec", "unschedulable") or "false"},
    "events": lambda o: {
        "involvedObject.kind": _g(o, "involvedObject", "kind"), "involvedObject.namespace": _g(o, "involvedObject", "namespace"),
        "involvedObject.name": _g(o, "involvedObject", "name"), "involvedObject.uid": _g(o, "involvedObject", "uid"),
        "involvedObject.apiVersion": _g(o, "involvedObject", "apiVersion"),
        "involvedObject.resourceVersion": _g(o, "involvedObject", "resourceVersion"),
        "involvedObject.fieldPath": _g(o, "involvedObject", "fieldPath"),
        "reason": _g(o, "reason"), "reportingComponent": _g(o, "reportingComponent"),
        "source": _g(o, "source", "component"), "type": _g(o, "type")},
    "namespaces": lambda o: {"status.phase": _g(o, "status", "phase")},
    "secrets": lambda o: {"type": _g(o, "type")},
    "replicasets": lambda o: {"status.replicas": _g(o, "status", "replicas") or "0"},
    "replicationcontrollers": lambda o: {"status.replicas": _g(o, "status", "replicas") or "0"},
    "jobs": lambda o: {"status.successful": _g(o, "status", "successful") or "0"},
}


def selectable_fields(resource: str, obj: dict) -> dict[str, str]:
    """The fields of ``obj`` a field selector may name, with their string values.

    Examples
    --------
    >>> selectable_fields("pods", {"metadata": {"name": "web", "namespace": "default"}, "spec": {"nodeName": "n1"}})["spec.nodeName"]
    'n1'
    """
    out = _meta(obj)
    extra = _EXTRA.get(resource)
    if extra is not None:
        out.update(extra(obj))
    return out


class FieldSelector:
    """A parsed field selector: a conjunction of ``field=value`` / ``field!=value`` terms.

    Examples
    --------
    >>> s = parse_field_selector("spec.nodeName=n1,status.phase!=Failed", "pods")
    >>> s.matches({"metadata": {"name": "a"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})
    True
    """

    __slots__ = ("terms", "resource", "text", "extra")

    def __init__(self, terms: list[tuple[str, str, str]], resource: str, text: str, extra: tuple[str, ...] = ()):
        self.terms = terms
        self.resource = resource
        self.text = text
        #: A custom resource's ``selectableFields`` (``spec.colour``), read from the object itself.
        self.extra = extra

    def empty(self) -> bool:
        return not self.terms

    def matches(self, obj: dict) -> bool:
        if not self.terms:
            return True
        fields = selectable_fields(self.resource, obj)
        for f in self.extra:
            fields[f] = _g(obj, *f.split("."))
        for f, op, v in self.terms:
            got = fields.get(f, "")
            if (got == v) != (op == "="):
                return False
        return True

    def __str__(self) -> str:
        return self.text


def parse_field_selector(text: str | None, resource: str, extra: tuple[str, ...] = ()) -> FieldSelector:
    """Parse ``a=b,c!=d`` (``==`` is ``=``), checking each field is selectable for ``resource``.

    ``extra`` are a custom resource's ``selectableFields`` paths without the
    leading dot (``spec.colour``), selectable besides ``metadata.name`` and
    ``metadata.namespace``.

    Raises
    ------
    ApiError
        400 BadRequest: ``field label not supported: spec.foo`` as upstream words it.
    """
    terms: list[tuple[str, str, str]] = []
    for part in [p for p in (text or "").split(",") if p.strip()]:
        if "!=" in part:
            f, v = part.split("!=", 1)
            op = "!="
        elif "==" in part:
            f, v = part.split("==", 1)
            op = "="
        elif "=" in part:
            f, v = part.split("=", 1)
            op = "="
        else:
            raise new_bad_request(f"invalid selector: '{part}'; can't understand '{part}'")
        f = f.strip()
        probe = selectable_fields(resource, {"metadata": {"namespace": ""}})
        if f not in probe and f not in extra:
            raise new_bad_request(f'field label not supported: {f}')
        terms.append((f, op, v.strip()))
    return FieldSelector(terms, resource, text or "", tuple(extra))
