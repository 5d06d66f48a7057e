"""The in-tree plugin registry: plugin name -> factory.

Mirrors ``pkg/scheduler/framework/plugins/registry.go`` (``NewInTreeRegistry``):
every in-tree plugin module is imported here, statically, and
:data:`PLUGIN_FACTORIES` maps each plugin name to its module's
``new(args, handle)``.

Plugins kubenotes does not model (``DynamicResources``) get a stand-in that behaves like the real plugin for
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

from typing import Any

from kubenotes.scheduler.framework.interface import Code, Status
from kubenotes.scheduler.framework.runtime import PluginFactory, Registry
from kubenotes.scheduler.plugins import (
    defaultbinder,
    defaultpreemption,
    equalpriority,
    imagelocality,
    interpodaffinity,
    names,
    nodeaffinity,
    nodelabel,
    nodename,
    nodeports,
    nodepreferavoidpods,
    nodevolumelimits,
    nodeunschedulable,
    podtopologyspread,
    queuesort,
    schedulinggates,
    selectorspread,
    serviceaffinity,
    tainttoleration,
    volumebinding,
    volumerestrictions,
    volumezone,
)
from kubenotes.scheduler.plugins.noderesources import balanced_allocation, fit

__all__ = [
    "PLUGIN_FACTORIES",
    "in_tree_registry",
    "NO_NEW_CLAIMS_TO_DEALLOCATE",
    "NotModelledDynamicResources",
]

#: DynamicResources' PostFilter answer for a pod without resource claims.
NO_NEW_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"

_NOT_MODELLED = "kubenotes does not model {plugin} for pods that use {what}"


def _spec(pod: Any) -> Any:
    return pod.pod.spec


class _StateData:
    def clone(self) -> "_StateData":
        return self


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


def _new_dynamic_resources(args: Any, handle: Any) -> NotModelledDynamicResources:
    return NotModelledDynamicResources()


#: Plugin name -> factory ``new(args, handle)``, in the order of upstream's ``NewInTreeRegistry``
#: (the legacy plugins last).
PLUGIN_FACTORIES: dict[str, PluginFactory] = {
    names.PRIORITY_SORT: queuesort.new,
    names.SCHEDULING_GATES: schedulinggates.new,
    names.NODE_UNSCHEDULABLE: nodeunschedulable.new,
    names.NODE_NAME: nodename.new,
    names.TAINT_TOLERATION: tainttoleration.new,
    names.NODE_AFFINITY: nodeaffinity.new,
    names.NODE_PORTS: nodeports.new,
    names.NODE_RESOURCES_FIT: fit.new,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: balanced_allocation.new,
    names.IMAGE_LOCALITY: imagelocality.new,
    names.INTER_POD_AFFINITY: interpodaffinity.new,
    names.POD_TOPOLOGY_SPREAD: podtopologyspread.new,
    names.VOLUME_ZONE: volumezone.new,
    names.VOLUME_RESTRICTIONS: volumerestrictions.new,
    names.VOLUME_BINDING: volumebinding.new,
    names.NODE_VOLUME_LIMITS: nodevolumelimits.new,
    names.DYNAMIC_RESOURCES: _new_dynamic_resources,
    names.DEFAULT_PREEMPTION: defaultpreemption.new,
    names.DEFAULT_BINDER: defaultbinder.new,
    # legacy
    names.SELECTOR_SPREAD: selectorspread.new,
    names.NODE_PREFER_AVOID_PODS: nodepreferavoidpods.new,
    names.EQUAL_PRIORITY: equalpriority.new,
    names.NODE_LABEL: nodelabel.new,
    names.SERVICE_AFFINITY: serviceaffinity.new,
}


def in_tree_registry() -> Registry:
    """A fresh :class:`Registry` of every in-tree plugin (``NewInTreeRegistry``).

    Parameters
    ----------
    None
        The in-tree set is fixed, as upstream's ``NewInTreeRegistry`` (feature gates are not modelled here).

    Returns
    -------
    Registry
        Name -> factory ``new(args, handle)``, a new mapping on each call (a
        caller may register out-of-tree plugins in it).

    Raises
    ------
    Nothing: the table is built from module-level imports.

    See Also
    --------
    PLUGIN_FACTORIES : the name -> factory table it copies.
    
    Examples
    --------
    >>> r = in_tree_registry()
    >>> r["TaintToleration"](None, None).name()
    'TaintToleration'
    >>> r is in_tree_registry()
    False
    """
    r = Registry()
    for name, factory in PLUGIN_FACTORIES.items():
        r.register(name, factory)
    return r
