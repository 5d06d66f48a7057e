"""The in-tree plugin registry: plugin name -> factory.

Mirrors ``pkg/scheduler/framework/plugins/registry.go`` (``NewInTreeRegistry``).
Each entry imports its plugin module lazily, when a framework instantiates the
plugin, so that importing the registry never fails because one plugin module
is missing or broken.

Plugins kubenotes does not model (``VolumeBinding``, ``NodeVolumeLimits``,
``DynamicResources``) get a stand-in that behaves like the real plugin for
pods that do not use the feature (PreFilter returns Skip, so their Filter
never runs) and returns an Error status for pods that do. The
DynamicResources stand-in also answers PostFilter with upstream's
``no new claims to deallocate``, which is why v1.34's FailedScheduling
messages contain that phrase.

Notes
-----
Legacy plugins (``SelectorSpread``, ``NodePreferAvoidPods``,
``EqualPriority``, ``NodeLabel``, ``ServiceAffinity``) are registered so an
old-style profile can enable them, but are not in the default profile.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/registry.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/volume_binding.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodevolumelimits/csi.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go

Examples
--------
>>> r = in_tree_registry()
>>> "NodeResourcesFit" in r and "SelectorSpread" in r
True
>>> r["PrioritySort"](None, None).name()
'PrioritySort'
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import Code, Status
from kubenotes.scheduler.framework.runtime import Registry
from kubenotes.scheduler.plugins import names

__all__ = [
    "PLUGIN_MODULES",
    "in_tree_registry",
    "NO_NEW_CLAIMS_TO_DEALLOCATE",
    "NotModelledVolumeBinding",
    "NotModelledNodeVolumeLimits",
    "NotModelledDynamicResources",
]

_P = "kubenotes.scheduler.plugins."

#: Plugin name -> module (or package) whose ``new(args, handle)`` builds it.
PLUGIN_MODULES: dict[str, str] = {
    names.PRIORITY_SORT: _P + "queuesort",
    names.SCHEDULING_GATES: _P + "schedulinggates",
    names.NODE_UNSCHEDULABLE: _P + "nodeunschedulable",
    names.NODE_NAME: _P + "nodename",
    names.TAINT_TOLERATION: _P + "tainttoleration",
    names.NODE_AFFINITY: _P + "nodeaffinity",
    names.NODE_PORTS: _P + "nodeports",
    names.NODE_RESOURCES_FIT: _P + "noderesources.fit",
    names.NODE_RESOURCES_BALANCED_ALLOCATION: _P + "noderesources.balanced_allocation",
    names.IMAGE_LOCALITY: _P + "imagelocality",
    names.INTER_POD_AFFINITY: _P + "interpodaffinity",
    names.POD_TOPOLOGY_SPREAD: _P + "podtopologyspread",
    names.VOLUME_ZONE: _P + "volumezone",
    names.VOLUME_RESTRICTIONS: _P + "volumerestrictions",
    names.VOLUME_BINDING: _P + "volumebinding",
    names.NODE_VOLUME_LIMITS: _P + "nodevolumelimits",
    names.DYNAMIC_RESOURCES: _P + "dynamicresources",
    names.DEFAULT_PREEMPTION: _P + "defaultpreemption",
    names.DEFAULT_BINDER: _P + "defaultbinder",
    # legacy
    names.SELECTOR_SPREAD: _P + "selectorspread",
    names.NODE_PREFER_AVOID_PODS: _P + "nodepreferavoidpods",
    names.EQUAL_PRIORITY: _P + "equalpriority",
    names.NODE_LABEL: _P + "nodelabel",
    names.SERVICE_AFFINITY: _P + "serviceaffinity",
}

#: DynamicResources' PostFilter answer for a pod without resource claims.
NO_NEW_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"

_NOT_MODELLED = "kubenotes does not model {plugin} for pods that use {what}"


def _spec(pod: Any) -> Any:
    return pod.pod.spec


def _uses_pvcs(pod: Any) -> bool:
    return any(v.persistentVolumeClaim is not None or v.ephemeral is not None for v in _spec(pod).volumes or ())


class _StateData:
    def clone(self) -> "_StateData":
        return self


class NotModelledVolumeBinding:
    """Stand-in for VolumeBinding: Skip for pods without PersistentVolumeClaims, Error otherwise.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/volume_binding.go
    """

    def name(self) -> str:
        return names.VOLUME_BINDING

    def pre_filter(self, state: Any, pod: Any, nodes: list) -> tuple[None, Status]:
        if _uses_pvcs(pod):
            return None, Status.error(_NOT_MODELLED.format(plugin=self.name(), what="PersistentVolumeClaims"))
        state.write("PreFilter" + self.name(), _StateData())
        return None, Status.skip()

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status:
        return Status()

    def pre_score(self, state: Any, pod: Any, nodes: list) -> Status:
        return Status.skip()

    def score(self, state: Any, pod: Any, node_info: Any) -> tuple[int, Status]:
        return 0, Status()

    def score_extensions(self) -> None:
        return None

    def reserve(self, state: Any, pod: Any, node_name: str) -> Status:
        return Status()

    def unreserve(self, state: Any, pod: Any, node_name: str) -> None:
        return None

    def pre_bind(self, state: Any, pod: Any, node_name: str) -> Status:
        return Status()


class NotModelledNodeVolumeLimits:
    """Stand-in for NodeVolumeLimits (CSILimits): Skip for pods without PVC/ephemeral volumes, Error otherwise.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodevolumelimits/csi.go
    """

    def name(self) -> str:
        return names.NODE_VOLUME_LIMITS

    def pre_filter(self, state: Any, pod: Any, nodes: list) -> tuple[None, Status]:
        if _uses_pvcs(pod):
            return None, Status.error(_NOT_MODELLED.format(plugin=self.name(), what="PersistentVolumeClaims"))
        return None, Status.skip()

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status:
        return Status()


class NotModelledDynamicResources:
    """Stand-in for DynamicResources: Skip for pods without resource claims, Error otherwise.

    Its PostFilter returns Unschedulable ``no new claims to deallocate`` for a
    pod without claims, as upstream does (the message ends up in the
    FailedScheduling event before the preemption message).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go
    """

    def name(self) -> str:
        return names.DYNAMIC_RESOURCES

    def pre_filter(self, state: Any, pod: Any, nodes: list) -> tuple[None, Status]:
        if _spec(pod).resourceClaims:
            return None, Status.error(_NOT_MODELLED.format(plugin=self.name(), what="resource claims"))
        state.write("PreFilter" + self.name(), _StateData())
        return None, Status.skip()

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status:
        return Status()

    def post_filter(self, state: Any, pod: Any, filtered_node_status_map: Any) -> tuple[None, Status]:
        return None, Status(Code.UNSCHEDULABLE, [NO_NEW_CLAIMS_TO_DEALLOCATE])

    def reserve(self, state: Any, pod: Any, node_name: str) -> Status:
        return Status()

    def unreserve(self, state: Any, pod: Any, node_name: str) -> None:
        return None

    def pre_bind(self, state: Any, pod: Any, node_name: str) -> Status:
        return Status()


_FALLBACKS: dict[str, type] = {
    names.VOLUME_BINDING: NotModelledVolumeBinding,
    names.NODE_VOLUME_LIMITS: NotModelledNodeVolumeLimits,
    names.DYNAMIC_RESOURCES: NotModelledDynamicResources,
}


def _lazy(plugin: str, module: str) -> Callable[[Any, Any], Any]:
    def factory(args: Any, handle: Any) -> Any:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name is not None and module.startswith(e.name) or e.name == module:
                fallback = _FALLBACKS.get(plugin)
                if fallback is not None:
                    return fallback()
                raise ConfigError(f"plugin module {module} is not available") from None
            raise
        return mod.new(args, handle)

    factory.__name__ = f"new_{plugin}"
    factory.__qualname__ = factory.__name__
    return factory


def in_tree_registry() -> Registry:
    """A fresh :class:`Registry` of every in-tree plugin (``NewInTreeRegistry``).

    Returns
    -------
    Registry
        Name -> factory ``new(args, handle)``; the plugin module is imported on first use.

    Raises
    ------
    ConfigError
        (from a factory) when the plugin's module does not exist and has no stand-in.
    """
    r = Registry()
    for name, module in PLUGIN_MODULES.items():
        r.register(name, _lazy(name, module))
    return r
