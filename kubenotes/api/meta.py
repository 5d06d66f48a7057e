"""Object metadata helpers: an object's controller reference.

Mirrors ``k8s.io/apimachinery/pkg/apis/meta/v1`` (controller_ref.go):
``GetControllerOf`` and ``NewControllerRef``. Every controller that adopts,
releases or resolves its objects, the scheduler's spreading plugins and the
chapters' views read an owner through these. Objects are the JSON-shaped
dicts the API server stores; :func:`get_controller_of` also reads a
lightkube model (the scheduler's pods).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go
https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/
"""

from __future__ import annotations

from typing import Any

__all__ = ["get_controller_of", "new_controller_ref"]


def get_controller_of(obj: Any) -> Any:
    """``metav1.GetControllerOf``: the ownerReference with ``controller: true``.

    Parameters
    ----------
    obj : dict or lightkube resource
        Any API object, stored (JSON-shaped) or as a lightkube model.

    Returns
    -------
    dict or lightkube OwnerReference or None
        The object's controller reference itself (not a copy), in the form
        ``obj`` has, or None for an orphan.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go

    Examples
    --------
    >>> get_controller_of({"metadata": {"ownerReferences": [{"kind": "ReplicaSet", "name": "a", "uid": "u1"},
    ...                                                      {"kind": "Job", "name": "b", "uid": "u2",
    ...                                                       "controller": True}]}})["name"]
    'b'
    >>> get_controller_of({"metadata": {}}) is None
    True
    >>> from lightkube.resources.core_v1 import Pod
    >>> get_controller_of(Pod.from_dict({"metadata": {"name": "p", "ownerReferences": [
    ...     {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u", "controller": True}]}})).name
    'web'
    """
    if isinstance(obj, dict):
        for r in (obj.get("metadata") or {}).get("ownerReferences") or ():
            if r.get("controller"):
                return r
        return None
    md = obj.metadata
    for r in (md.ownerReferences if md is not None else None) or ():
        if r.controller:
            return r
    return None


def new_controller_ref(owner: dict, api_version: str, kind: str) -> dict:
    """``metav1.NewControllerRef``: an ownerReference with ``controller`` and ``blockOwnerDeletion`` true.

    Parameters
    ----------
    owner : dict
        The owning object (its ``metadata.name`` and ``metadata.uid`` are used).
    api_version, kind : str
        The owner's ``apiVersion`` and ``kind`` (e.g. ``apps/v1``, ``ReplicaSet``).

    Returns
    -------
    dict
        A new ownerReference.

    Raises
    ------
    KeyError
        When the owner has no ``metadata.name`` or ``metadata.uid``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go

    Examples
    --------
    >>> new_controller_ref({"metadata": {"name": "web", "uid": "u1"}}, "apps/v1", "ReplicaSet")
    {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': 'web', 'uid': 'u1', 'controller': True, 'blockOwnerDeletion': True}
    """
    md = owner["metadata"]
    return {"apiVersion": api_version, "kind": kind, "name": md["name"], "uid": md["uid"],
            "controller": True, "blockOwnerDeletion": True}
