"""Names of the in-tree scheduler plugins.

Mirrors ``pkg/scheduler/framework/plugins/names``: one constant per plugin,
spelled exactly as in a KubeSchedulerConfiguration and in traces. Legacy
plugins (removed upstream from the default set in v1.23-v1.26 but still
useful for teaching) are listed at the end.

Notes
-----
``NodePreferAvoidPods``, ``SelectorSpread``, ``ServiceAffinity``,
``NodeLabel`` and ``EqualPriority`` no longer exist in v1.34; they are kept as
legacy names so older configurations can be explained.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/names/names.go

Examples
--------
>>> NODE_RESOURCES_FIT
'NodeResourcesFit'
>>> PRIORITY_SORT in IN_TREE_NAMES
True
"""

from __future__ import annotations

__all__ = [
    "PRIORITY_SORT",
    "DEFAULT_BINDER",
    "DEFAULT_PREEMPTION",
    "DYNAMIC_RESOURCES",
    "IMAGE_LOCALITY",
    "INTER_POD_AFFINITY",
    "NODE_AFFINITY",
    "NODE_NAME",
    "NODE_PORTS",
    "NODE_RESOURCES_BALANCED_ALLOCATION",
    "NODE_RESOURCES_FIT",
    "NODE_UNSCHEDULABLE",
    "NODE_VOLUME_LIMITS",
    "POD_TOPOLOGY_SPREAD",
    "SCHEDULING_GATES",
    "TAINT_TOLERATION",
    "VOLUME_BINDING",
    "VOLUME_RESTRICTIONS",
    "VOLUME_ZONE",
    "SELECTOR_SPREAD",
    "NODE_PREFER_AVOID_PODS",
    "EQUAL_PRIORITY",
    "NODE_LABEL",
    "SERVICE_AFFINITY",
    "IN_TREE_NAMES",
    "LEGACY_NAMES",
]

PRIORITY_SORT = "PrioritySort"
DEFAULT_BINDER = "DefaultBinder"
DEFAULT_PREEMPTION = "DefaultPreemption"
DYNAMIC_RESOURCES = "DynamicResources"
IMAGE_LOCALITY = "ImageLocality"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_AFFINITY = "NodeAffinity"
NODE_NAME = "NodeName"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT = "NodeResourcesFit"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
SCHEDULING_GATES = "SchedulingGates"
TAINT_TOLERATION = "TaintToleration"
VOLUME_BINDING = "VolumeBinding"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
VOLUME_ZONE = "VolumeZone"

# Legacy plugins: gone from kube-scheduler v1.34, kept for teaching.
SELECTOR_SPREAD = "SelectorSpread"
NODE_PREFER_AVOID_PODS = "NodePreferAvoidPods"
EQUAL_PRIORITY = "EqualPriority"
NODE_LABEL = "NodeLabel"
SERVICE_AFFINITY = "ServiceAffinity"

#: Plugins that exist in kube-scheduler v1.34, in names.go order.
IN_TREE_NAMES: tuple[str, ...] = (
    PRIORITY_SORT,
    DEFAULT_BINDER,
    DEFAULT_PREEMPTION,
    DYNAMIC_RESOURCES,
    IMAGE_LOCALITY,
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_BALANCED_ALLOCATION,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    NODE_VOLUME_LIMITS,
    POD_TOPOLOGY_SPREAD,
    SCHEDULING_GATES,
    TAINT_TOLERATION,
    VOLUME_BINDING,
    VOLUME_RESTRICTIONS,
    VOLUME_ZONE,
)

#: Plugins removed upstream, registered by kubenotes but never enabled by default.
LEGACY_NAMES: tuple[str, ...] = (
    SELECTOR_SPREAD,
    NODE_PREFER_AVOID_PODS,
    EQUAL_PRIORITY,
    NODE_LABEL,
    SERVICE_AFFINITY,
)
