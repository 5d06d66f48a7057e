"""The admission plugin interface, the chain that runs plugins in order, and admission's error helpers.

A plugin has upstream's name, the set of operations it handles
(``admission.NewHandler(admission.Create, admission.Update)``) and two
phases: ``admit`` (``MutationInterface.Admit``: may change the object) and
``validate`` (``ValidationInterface.Validate``: may only refuse). The API
server runs the mutating phase of every plugin, in order, then the
validating phase of every plugin, in the same order, as
``admission.chainAdmissionHandler`` does (the server calls them at the
points upstream's handlers do: mutating before the registry strategy and
validation, validating just before storage).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/interfaces.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/chain.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/handler.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/errors.go
"""

from __future__ import annotations

from typing import Any, Iterable

from kubenotes.apiserver.request import Attributes
from kubenotes.apiserver.status import ApiError, new_forbidden

__all__ = ["CREATE", "UPDATE", "DELETE", "CONNECT", "Plugin", "AdmissionChain", "forbidden", "resource_name"]

CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"
CONNECT = "CONNECT"


class Plugin:
    """Base of every admission plugin; both phases are no-ops here.

    Subclasses set :attr:`name` and :attr:`operations` and override only the
    phase(s) they implement (the server skips, and does not trace, a phase a
    plugin does not override).

    Attributes
    ----------
    name : str
        Upstream's plugin name (``NamespaceLifecycle``).
    operations : frozenset of str
        ``CREATE``, ``UPDATE``, ``DELETE``, ``CONNECT`` (``Handler.Handles``).
    """

    name: str = ""
    operations: frozenset[str] = frozenset()

    def handles(self, operation: str) -> bool:
        """``Handler.Handles``: whether the plugin looks at this operation at all."""
        return operation in self.operations

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        """Mutating phase: change ``obj`` in place, or raise :class:`ApiError` to refuse."""

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        """Validating phase: raise :class:`ApiError` to refuse; must not change ``obj``."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


_OVERRIDES: dict[tuple[type, str], bool] = {}


def _overrides(p: Plugin, phase: str) -> bool:
    """Whether the plugin's class implements ``phase`` (answered once per class: every request asks)."""
    key = (type(p), phase)
    found = _OVERRIDES.get(key)
    if found is None:
        found = _OVERRIDES[key] = getattr(type(p), phase) is not getattr(Plugin, phase)
    return found


class AdmissionChain:
    """Plugins run in order: every mutating phase, then (separately) every validating phase.

    Parameters
    ----------
    plugins : iterable of Plugin
        In upstream's order (``AllOrderedPlugins``).

    Examples
    --------
    >>> chain = AdmissionChain([])
    >>> chain.names()
    []
    """

    def __init__(self, plugins: Iterable[Plugin]):
        self.plugins: list[Plugin] = list(plugins)
        self._running: dict[tuple[str, str], tuple[list[Plugin], list[Plugin]]] = {}

    def _run_by(self, operation: str, phase: str) -> list[Plugin]:
        """The plugins whose ``phase`` runs for ``operation``, in order; worked out again when :attr:`plugins` changes."""
        key = (operation, phase)
        running = self.__dict__.setdefault("_running", {})
        hit = running.get(key)
        if hit is None or hit[0] != self.plugins:
            hit = running[key] = (list(self.plugins), [p for p in self.plugins
                                                             if p.handles(operation) and _overrides(p, phase)])
        return hit[1]

    def names(self) -> list[str]:
        """The plugin names, in order (``--enable-admission-plugins`` as it runs)."""
        return [p.name for p in self.plugins]

    def plugin(self, name: str) -> Plugin:
        """The plugin called ``name``.

        Raises
        ------
        KeyError
            When no plugin has that name.
        """
        for p in self.plugins:
            if p.name == name:
                return p
        raise KeyError(name)

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        """Run the mutating phase of every plugin that handles the operation (``chainAdmissionHandler.Admit``)."""
        for p in self._run_by(attrs.operation, "admit"):
            p.admit(attrs, obj, old, reader)

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        """Run the validating phase of every plugin that handles the operation (``chainAdmissionHandler.Validate``)."""
        for p in self._run_by(attrs.operation, "validate"):
            p.validate(attrs, obj, old, reader)


def resource_name(attrs: Attributes, obj: dict | None) -> str:
    """``extractResourceName``: the request's name, else the object's name or generateName, else ``Unknown``.

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> a = Attributes(UserInfo("u"), "create", resource_for("pods"), namespace="default")
    >>> resource_name(a, {"metadata": {"generateName": "web-"}}), resource_name(a, None)
    ('web-', 'Unknown')
    """
    if attrs.name:
        return attrs.name
    if obj is not None:
        md = obj.get("metadata") or {}
        return md.get("name") or md.get("generateName") or "Unknown"
    return "Unknown"


def forbidden(attrs: Attributes, obj: dict | None, message: str) -> ApiError:
    """``admission.NewForbidden``: 403 ``pods "web" is forbidden: <message>``."""
    ri = attrs.resource
    return new_forbidden(ri.group, ri.resource, resource_name(attrs, obj), message)
