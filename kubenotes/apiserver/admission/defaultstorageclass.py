"""The ``DefaultStorageClass`` admission plugin: a new claim without a class gets the default StorageClass.

On CREATE of a PersistentVolumeClaim whose ``spec.storageClassName`` is
not set at all (an explicit ``""`` means "no class" and is kept) and which
has no ``volume.beta.kubernetes.io/storage-class`` annotation, the plugin
sets ``spec.storageClassName`` to the default class: the StorageClass
annotated ``storageclass.kubernetes.io/is-default-class: "true"``, the
newest one when several are (since v1.26 several defaults are allowed).
Without a default class the claim is left alone; the PersistentVolume
controller assigns one later if one appears (RetroactiveDefaultStorageClass).

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/storage/storageclass/setdefault/admission.go
kubernetes/kubernetes@v1.34.0 pkg/volume/util/storageclass.go (GetDefaultClass)
https://kubernetes.io/docs/concepts/storage/storage-classes/#default-storageclass
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.storagehelpers import BETA_STORAGE_CLASS_ANNOTATION, get_default_class
from kubenotes.apiserver.admission.interfaces import CREATE, Plugin
from kubenotes.apiserver.request import Attributes

__all__ = ["NAME", "DefaultStorageClass"]

NAME = "DefaultStorageClass"


class DefaultStorageClass(Plugin):
    """Set a new claim's ``spec.storageClassName`` to the default StorageClass (mutating; CREATE).

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> class Reader:
    ...     def list(self, resource, namespace=None):
    ...         return [{"metadata": {"name": "standard", "annotations": {
    ...             "storageclass.kubernetes.io/is-default-class": "true"}}}]
    >>> attrs = Attributes(UserInfo("u"), "create", resource_for("pvc"))
    >>> claim, explicit_none = {"spec": {}}, {"spec": {"storageClassName": ""}}
    >>> for c in (claim, explicit_none):
    ...     DefaultStorageClass().admit(attrs, c, None, Reader())
    >>> claim["spec"]["storageClassName"], explicit_none["spec"]["storageClassName"]
    ('standard', '')
    """

    name = NAME
    operations = frozenset({CREATE})

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        ri = attrs.resource
        if ri.group != "" or ri.resource != "persistentvolumeclaims" or attrs.subresource or obj is None:
            return
        spec = obj.setdefault("spec", {})
        if spec.get("storageClassName") is not None:
            return
        if BETA_STORAGE_CLASS_ANNOTATION in ((obj.get("metadata") or {}).get("annotations") or {}):
            return
        default = get_default_class(reader.list("storageclasses"))
        if default is None:
            return
        spec["storageClassName"] = default["metadata"]["name"]
