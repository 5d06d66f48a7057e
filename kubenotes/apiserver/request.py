"""Who is asking and what for: ``user.Info`` and the request attributes authorizers and admission read.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authentication/user/user.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/interfaces.go
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any, Protocol

from kubenotes.apiserver.resources import ResourceInfo

__all__ = ["RESPONSE_WARNINGS", "add_warning", "UserInfo", "Attributes", "StoreReader", "ADMISSION_OPERATIONS",
           "SYSTEM_MASTERS", "SYSTEM_AUTHENTICATED", "SYSTEM_UNAUTHENTICATED", "SYSTEM_NODES"]

#: Warnings for the response being built (``Warning: 299`` headers): the HTTP layer sets a list per request
#: (``k8s.io/apiserver/pkg/warning``'s recorder in the request context); None outside an HTTP request.
RESPONSE_WARNINGS: contextvars.ContextVar[list | None] = contextvars.ContextVar("kubenotes_warnings", default=None)


def add_warning(message: str) -> None:
    """``warning.AddWarning``: add ``message`` as a ``Warning: 299`` header of the response being built, if any.

    Parameters
    ----------
    message : str

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/warning/context.go

    Examples
    --------
    >>> token = RESPONSE_WARNINGS.set([])
    >>> add_warning("use tokens from the TokenRequest API")
    >>> RESPONSE_WARNINGS.get()
    ['use tokens from the TokenRequest API']
    >>> RESPONSE_WARNINGS.reset(token); add_warning("dropped outside a request")
    """
    out = RESPONSE_WARNINGS.get()
    if out is not None:
        out.append(message)

SYSTEM_MASTERS = "system:masters"
SYSTEM_AUTHENTICATED = "system:authenticated"
SYSTEM_UNAUTHENTICATED = "system:unauthenticated"
SYSTEM_NODES = "system:nodes"

#: Admission operation of each verb (``admission.Operation``); reads are not admitted.
ADMISSION_OPERATIONS = {"create": "CREATE", "update": "UPDATE", "patch": "UPDATE", "delete": "DELETE",
                        "deletecollection": "DELETE"}


@dataclass(frozen=True)
class UserInfo:
    """An authenticated user (``user.DefaultInfo``).

    Authenticators produce it and authorizers and admission plugins read it;
    it is frozen, so it can key caches.

    Parameters
    ----------
    name : str
        ``kubernetes-admin``, ``system:kube-scheduler``,
        ``system:serviceaccount:default:viewer``, ``system:node:worker-1``...
    uid : str
        Empty unless the authenticator knows one (service-account tokens do).
    groups : tuple[str, ...]
        ``system:masters``, ``system:serviceaccounts``, ``system:authenticated``...

    Returns
    -------
    UserInfo
        Holding ``name``, ``uid`` and ``groups`` as given (attributes of the same names).

    Raises
    ------
    TypeError
        For a missing ``name`` or an unknown keyword (the dataclass constructor);
        assigning to a field afterwards raises ``dataclasses.FrozenInstanceError``.

    See Also
    --------
    Attributes : the request attributes that carry it.

    Notes
    -----
    Upstream's ``Info`` also carries ``extra`` (a map of string lists, e.g.
    a service-account token's pod name); the model has none.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authentication/user/user.go (DefaultInfo)

    Examples
    --------
    >>> u = UserInfo("jane", groups=("dev", SYSTEM_AUTHENTICATED))
    >>> u.name, u.uid, SYSTEM_AUTHENTICATED in u.groups
    ('jane', '', True)
    >>> u == UserInfo("jane", "", ("dev", "system:authenticated"))
    True
    """

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()


@dataclass
class Attributes:
    """One request, as authorization and admission see it.

    Attributes
    ----------
    user : UserInfo
    verb : str
        ``get``, ``list``, ``watch``, ``create``, ``update``, ``patch``, ``delete``,
        ``deletecollection``.
    resource : ResourceInfo
    subresource : str
        ``""``, ``status``, ``scale``, ``binding``, ``eviction``, ``token``...
    namespace : str
        ``""`` for cluster-scoped resources and all-namespace lists.
    name : str
        ``""`` for create (before a generated name) and collections.
    dry_run : bool
    component : str
        The client's name for the event log (``deployment-controller``).
    """

    user: UserInfo
    verb: str
    resource: ResourceInfo
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    dry_run: bool = False
    component: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def operation(self) -> str:
        """Admission operation: ``CREATE``, ``UPDATE``, ``DELETE`` (``CONNECT`` for anything else)."""
        return ADMISSION_OPERATIONS.get(self.verb, "CONNECT")

    @property
    def api_group(self) -> str:
        return self.resource.group


class StoreReader(Protocol):
    """Read access to the store that authorizers and admission plugins use (no admission, no watch events).

    ``resource`` is any name :func:`kubenotes.apiserver.resources.resource_for`
    accepts (``"limitranges"``, ``"roles.rbac.authorization.k8s.io"``).
    Returned dicts are the stored objects themselves: never mutate them.
    """

    def get(self, resource: str, namespace: str | None, name: str) -> dict | None: ...

    def list(self, resource: str, namespace: str | None = None) -> list[dict]: ...

    def update_status(self, resource: str, obj: dict, component: str) -> dict: ...
