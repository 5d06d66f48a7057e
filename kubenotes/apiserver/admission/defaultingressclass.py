"""The ``DefaultIngressClass`` admission plugin: a new Ingress without a class gets the default IngressClass.

On CREATE of an Ingress whose ``spec.ingressClassName`` is not set and
which has no ``kubernetes.io/ingress.class`` annotation (the class's older
spelling), the plugin sets ``spec.ingressClassName`` to the default class:
the IngressClass annotated ``ingressclass.kubernetes.io/is-default-class:
"true"``, the newest one when several are (by ``creationTimestamp``, then
the first by name; since v1.25 several defaults no longer refuse the
Ingress). Without a default class the Ingress is left alone. Updates are
not looked at.

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/network/defaultingressclass/admission.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/networking/v1/well_known_annotations.go
https://kubernetes.io/docs/concepts/services-networking/ingress/#default-ingress-class
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kubenotes.apiserver.admission.interfaces import CREATE, Plugin
from kubenotes.apiserver.request import Attributes

__all__ = ["NAME", "IS_DEFAULT_INGRESS_CLASS_ANNOTATION", "INGRESS_CLASS_ANNOTATION", "get_default_ingress_class",
           "DefaultIngressClass"]

NAME = "DefaultIngressClass"
#: ``networkingv1.AnnotationIsDefaultIngressClass``.
IS_DEFAULT_INGRESS_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class"
#: ``networkingv1beta1.AnnotationIngressClass``: an Ingress carrying it keeps no default.
INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def get_default_ingress_class(classes: Iterable[Mapping[str, Any]]) -> dict | None:
    """``getDefaultClass``: of the IngressClasses annotated default, the newest (on a tie, the first by name).

    Examples
    --------
    >>> mk = lambda n, t: {"metadata": {"name": n, "creationTimestamp": t,
    ...     "annotations": {IS_DEFAULT_INGRESS_CLASS_ANNOTATION: "true"}}}
    >>> get_default_ingress_class([mk("b", "2025-01-01T00:00:00Z"), mk("a", "2025-01-01T00:00:00Z"),
    ...                            {"metadata": {"name": "plain"}}])["metadata"]["name"]
    'a'
    >>> get_default_ingress_class([{"metadata": {"name": "plain"}}]) is None
    True
    """
    defaults = [c for c in classes
                if ((c.get("metadata") or {}).get("annotations") or {}).get(IS_DEFAULT_INGRESS_CLASS_ANNOTATION)
                == "true"]
    if not defaults:
        return None
    defaults.sort(key=lambda c: c["metadata"].get("name", ""))
    defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
    return dict(defaults[0])


class DefaultIngressClass(Plugin):
    """Set a new Ingress's ``spec.ingressClassName`` to the default IngressClass (mutating; CREATE).

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> class Reader:
    ...     def list(self, resource, namespace=None):
    ...         return [{"metadata": {"name": "nginx", "annotations": {IS_DEFAULT_INGRESS_CLASS_ANNOTATION: "true"}}}]
    >>> attrs = Attributes(UserInfo("u"), "create", resource_for("ingresses"))
    >>> plain, annotated = {"spec": {}}, {"metadata": {"annotations": {INGRESS_CLASS_ANNOTATION: "traefik"}}, "spec": {}}
    >>> for ing in (plain, annotated):
    ...     DefaultIngressClass().admit(attrs, ing, None, Reader())
    >>> plain["spec"]["ingressClassName"], "ingressClassName" in annotated["spec"]
    ('nginx', False)
    """

    name = NAME
    operations = frozenset({CREATE})

    def idle(self, reader: Any) -> bool:
        """No IngressClass exists: nothing to default to (request traces leave the plugin out)."""
        return not reader.list("ingressclasses")

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        ri = attrs.resource
        if ri.group != "networking.k8s.io" or ri.resource != "ingresses" or attrs.subresource or obj is None:
            return
        spec = obj.setdefault("spec", {})
        if spec.get("ingressClassName") is not None:
            return
        if INGRESS_CLASS_ANNOTATION in ((obj.get("metadata") or {}).get("annotations") or {}):
            return
        default = get_default_ingress_class(reader.list("ingressclasses"))
        if default is not None:
            spec["ingressClassName"] = default["metadata"]["name"]
