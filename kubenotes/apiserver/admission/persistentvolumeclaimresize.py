"""The ``PersistentVolumeClaimResize`` admission plugin: a claim grows only if its StorageClass allows it.

On UPDATE of a PersistentVolumeClaim whose ``spec.resources.requests.storage``
grows, the plugin refuses (403) a claim that is not Bound ("Only bound
persistent volume claims can be expanded") and a claim whose class (the same
before and after) is missing or lacks ``allowVolumeExpansion: true`` ("only
dynamically provisioned pvc can be resized and the storageclass that
provisions the pvc must support resize"). Shrinking is validation's business
(``field can not be less than status.capacity``).

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/storage/persistentvolume/resize/admission.go
https://kubernetes.io/docs/concepts/storage/persistent-volumes/#expanding-persistent-volumes-claims
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.quantity import value
from kubenotes.api.storagehelpers import get_persistent_volume_claim_class
from kubenotes.apiserver.admission.interfaces import UPDATE, Plugin, forbidden
from kubenotes.apiserver.request import Attributes

__all__ = ["NAME", "PersistentVolumeClaimResize", "NOT_BOUND_MESSAGE", "NOT_ALLOWED_MESSAGE"]

NAME = "PersistentVolumeClaimResize"
NOT_BOUND_MESSAGE = "Only bound persistent volume claims can be expanded"
NOT_ALLOWED_MESSAGE = ("only dynamically provisioned pvc can be resized and the storageclass that provisions the "
                       "pvc must support resize")


def _size(claim: dict | None) -> int:
    q = ((((claim or {}).get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
    return 0 if q is None else value(q)


class PersistentVolumeClaimResize(Plugin):
    """Refuse growing a claim unless it is Bound and its class allows volume expansion (validating; UPDATE).

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> class Reader:
    ...     def list(self, resource, namespace=None):
    ...         return [{"metadata": {"name": "fixed"}}]
    >>> old = {"metadata": {"name": "data"}, "spec": {"storageClassName": "fixed",
    ...        "resources": {"requests": {"storage": "1Gi"}}}, "status": {"phase": "Bound"}}
    >>> new = {"metadata": {"name": "data"}, "spec": {"storageClassName": "fixed",
    ...        "resources": {"requests": {"storage": "2Gi"}}}}
    >>> PersistentVolumeClaimResize().validate(Attributes(UserInfo("u"), "update", resource_for("pvc")),
    ...                                        new, old, Reader())
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize
    """

    name = NAME
    operations = frozenset({UPDATE})

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        ri = attrs.resource
        if ri.group != "" or ri.resource != "persistentvolumeclaims" or attrs.subresource or obj is None:
            return
        if _size(obj) <= _size(old):
            return
        if ((old or {}).get("status") or {}).get("phase") != "Bound":
            raise forbidden(attrs, obj, NOT_BOUND_MESSAGE)
        if not self._allow_resize(obj, old or {}, reader):
            raise forbidden(attrs, obj, NOT_ALLOWED_MESSAGE)

    @staticmethod
    def _allow_resize(claim: dict, old: dict, reader: Any) -> bool:
        cls, old_cls = get_persistent_volume_claim_class(claim), get_persistent_volume_claim_class(old)
        if not cls or not old_cls or cls != old_cls:
            return False
        sc = next((c for c in reader.list("storageclasses") if c["metadata"]["name"] == cls), None)
        return bool(sc is not None and sc.get("allowVolumeExpansion"))
