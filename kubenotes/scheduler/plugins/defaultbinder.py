"""DefaultBinder: bind the pod by creating its ``pods/binding`` subresource.

Mirrors ``pkg/scheduler/framework/plugins/defaultbinder``. Upstream posts a
``v1.Binding`` (pod namespace/name/uid, target ``{kind: Node, name}``) to the
API server, which sets ``spec.nodeName``. kubenotes hands the same binding to
the ``binder`` callable of the framework handle (the scheduler records it).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/defaultbinder/default_binder.go
https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#create-binding-of-a-pod

Examples
--------
>>> from types import SimpleNamespace
>>> from kubenotes.scheduler.testing import make_pod
>>> from kubenotes.scheduler.framework.node_info import PodInfo
>>> bound = []
>>> pl = new(None, SimpleNamespace(binder=lambda pod, node: bound.append((pod.key, node))))
>>> pl.bind(None, PodInfo(make_pod("web")), "n1").is_success(), bound
(True, [('default/web', 'n1')])
>>> binding(PodInfo(make_pod("web")), "n1")["target"]
{'kind': 'Node', 'name': 'n1'}
"""

from __future__ import annotations

from typing import Any

from kubenotes.scheduler.framework.interface import Status
from kubenotes.scheduler.plugins.names import DEFAULT_BINDER

__all__ = ["NAME", "DefaultBinder", "binding", "new"]

NAME = DEFAULT_BINDER


def binding(pod: Any, node_name: str) -> dict[str, Any]:
    """The ``v1.Binding`` object DefaultBinder posts, as a manifest mapping.

    Parameters
    ----------
    pod : PodInfo
    node_name : str

    Returns
    -------
    dict
        ``{"apiVersion": "v1", "kind": "Binding", "metadata": {namespace, name, uid}, "target": {kind, name}}``.
    """
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"namespace": pod.namespace, "name": pod.name, "uid": pod.uid},
        "target": {"kind": "Node", "name": node_name},
    }


class DefaultBinder:
    """Bind plugin that calls the handle's ``binder(pod, node_name)``.

    Parameters
    ----------
    handle : Framework
        Its ``binder`` attribute (callable or None) performs the binding.

    Notes
    -----
    With no binder configured the binding always succeeds (nothing records it).
    An exception raised by the binder becomes an Error status, as an API error does upstream.
    """

    def __init__(self, handle: Any):
        self.handle = handle

    def name(self) -> str:
        """``"DefaultBinder"``."""
        return NAME

    def bind(self, state: Any, pod: Any, node_name: str) -> Status:
        """Create the binding of ``pod`` to ``node_name``.

        Returns
        -------
        Status
            Success, or Error with the binder's exception text.
        """
        binder = getattr(self.handle, "binder", None)
        if binder is None:
            return Status()
        try:
            binder(pod, node_name)
        except Exception as e:  # an API error
            return Status.error(str(e))
        return Status()


def new(args: dict | None, handle: Any) -> DefaultBinder:
    """Build DefaultBinder; it takes no args."""
    return DefaultBinder(handle)
