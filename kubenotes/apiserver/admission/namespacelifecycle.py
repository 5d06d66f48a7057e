"""The ``NamespaceLifecycle`` admission plugin: no new content in a missing or terminating namespace.

* Deleting ``default``, ``kube-system`` or ``kube-public`` is forbidden
  (``this namespace may not be deleted``).
* Cluster-scoped objects and Namespaces themselves are always admitted;
  deletes of namespaced objects too.
* Any other request for a namespace that does not exist gets the
  namespace's own 404 (``namespaces "x" not found``).
* A create in a ``Terminating`` namespace gets 403 ``unable to create new
  content in namespace x because it is being terminated``, with a
  ``NamespaceTerminating`` cause on ``metadata.namespace``.

Notes
-----
Upstream reads an informer cache, waits 50 ms for a namespace it has not
seen yet, then asks storage; here the store is read directly, which is what
those retries converge to. Access reviews (``localsubjectaccessreviews``)
are not served by the model.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go
"""

from __future__ import annotations

from typing import Any, Iterable

from kubenotes.apiserver.admission.interfaces import CREATE, DELETE, UPDATE, Plugin, forbidden
from kubenotes.apiserver.request import Attributes
from kubenotes.apiserver.status import new_forbidden, new_not_found

__all__ = ["NAME", "NamespaceLifecycle", "IMMORTAL_NAMESPACES", "NAMESPACE_TERMINATING_CAUSE",
           "TERMINATING_MESSAGE", "IMMORTAL_MESSAGE"]

NAME = "NamespaceLifecycle"
#: Namespaces that may never be deleted (``metav1.NamespaceDefault``, ``NamespaceSystem``, ``NamespacePublic``).
IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})
#: ``v1.NamespaceTerminatingCause``.
NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"
TERMINATING_MESSAGE = "unable to create new content in namespace {namespace} because it is being terminated"
IMMORTAL_MESSAGE = "this namespace may not be deleted"


class NamespaceLifecycle(Plugin):
    """Refuse creates in missing or ``Terminating`` namespaces and deletes of immortal namespaces (mutating phase).

    Parameters
    ----------
    immortal_namespaces : iterable of str
        Namespaces that cannot be deleted.

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> api = APIServer(seed=0)
    >>> from kubenotes.apiserver.admission import AdmissionChain
    >>> api.admission = AdmissionChain([NamespaceLifecycle()])
    >>> api.client().create("configmaps", {"metadata": {"name": "cm"}}, "nowhere")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: namespaces "nowhere" not found
    """

    name = NAME
    operations = frozenset({CREATE, UPDATE, DELETE})

    def __init__(self, immortal_namespaces: Iterable[str] = IMMORTAL_NAMESPACES):
        self.immortal_namespaces = frozenset(immortal_namespaces)

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        ri = attrs.resource
        is_namespace = ri.group == "" and ri.kind == "Namespace"
        op = attrs.operation
        if op == DELETE and is_namespace and attrs.name in self.immortal_namespaces:
            raise new_forbidden(ri.group, ri.resource, attrs.name, IMMORTAL_MESSAGE)
        if not attrs.namespace and not is_namespace:
            return  # cluster-scoped
        if is_namespace or op == DELETE:
            return
        ns = reader.get("namespaces", None, attrs.namespace)
        if ns is None:
            raise new_not_found("", "namespaces", attrs.namespace)
        if op == CREATE and (ns.get("status") or {}).get("phase") == "Terminating":
            err = forbidden(attrs, obj, TERMINATING_MESSAGE.format(namespace=attrs.namespace))
            details = err.status.setdefault("details", {})
            details.setdefault("causes", []).append({
                "reason": NAMESPACE_TERMINATING_CAUSE,
                "message": f"namespace {attrs.namespace} is being terminated",
                "field": "metadata.namespace"})
            raise err
