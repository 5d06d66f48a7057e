"""Legacy scheduler Policy predicates (预选) and priorities (优选), and the plugins that replaced them.

Before the scheduling framework, kube-scheduler was configured with a ``Policy``
listing *predicates* (filters) and weighted *priorities* (scores). From v1.19 to
v1.22 a ``LegacyRegistry`` translated each Policy name into framework plugins
and extension points; the Policy API was removed in v1.23. This module keeps
that translation as data, so old configurations and blog posts can be read
against today's plugin names.

Each row of :func:`legacy_table` has:

``name``
    The Policy name.
``kind`` / ``kind_zh``
    ``predicate`` / ``预选`` or ``priority`` / ``优选``.
``plugin``
    Plugin the legacy registry (v1.19-v1.22) produced for it (the first one when several).
``plugins``
    Every plugin it produced (``GeneralPredicates`` expands to four).
``extension_points``
    Extension points where the plugin(s) were enabled.
``how``
    How the behaviour maps onto the plugin (arguments, scoring strategy, aliases).
``replacement_v1_34``
    The v1.34 plugin (and setting) giving the same behaviour.
``removed_in``
    Release whose scheduler no longer accepts the name (Policy API removal: v1.23).
``default_weight``
    Weight in the registry's ``DefaultPriorities`` (priorities only; ``None`` otherwise).
``kubenotes_legacy_plugin``
    True when kubenotes ships a legacy plugin module for it (never enabled by default).

References
----------
kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/legacy_registry.go
kubernetes/kubernetes@v1.21.0 pkg/scheduler/factory.go (EqualPriority skipped)
kubernetes/kubernetes#105424 (Policy API removed, v1.23)
https://kubernetes.io/docs/reference/scheduling/config/#scheduler-configuration-migrations

Examples
--------
>>> plugin_for("LeastRequestedPriority")
'NodeResourcesFit'
>>> [r["kind_zh"] for r in legacy_table() if r["name"] in ("HostName", "ImageLocalityPriority")]
['预选', '优选']
"""

from __future__ import annotations

import copy
import difflib
from typing import Any

__all__ = ["POLICY_API_REMOVED_IN", "legacy_table", "plugin_for", "row_for"]

#: Release in which kube-scheduler stopped accepting Policy files (kubernetes/kubernetes#105424).
POLICY_API_REMOVED_IN = "v1.23"

_PRED = ("predicate", "预选")
_PRIO = ("priority", "优选")


def _row(name: str, kind: tuple[str, str], plugin: str | tuple[str, ...], points: tuple[str, ...], how: str, replacement: str,
         default_weight: int | None = None, legacy_plugin: bool = False) -> dict[str, Any]:
    plugins = (plugin,) if isinstance(plugin, str) else plugin
    return {
        "name": name,
        "kind": kind[0],
        "kind_zh": kind[1],
        "plugin": plugins[0],
        "plugins": list(plugins),
        "extension_points": list(points),
        "how": how,
        "replacement_v1_34": replacement,
        "removed_in": POLICY_API_REMOVED_IN,
        "default_weight": default_weight,
        "kubenotes_legacy_plugin": legacy_plugin,
    }


_TABLE: tuple[dict[str, Any], ...] = (
    # -- predicates (预选), in the legacy predicate ordering ------------------
    _row("CheckNodeUnschedulable", _PRED, "NodeUnschedulable", ("Filter",),
         "Mandatory predicate: always added. Rejects nodes with spec.unschedulable unless the pod tolerates "
         "node.kubernetes.io/unschedulable:NoSchedule.", "NodeUnschedulable"),
    _row("GeneralPredicates", _PRED, ("NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity"), ("PreFilter", "Filter"),
         "Bundle of PodFitsResources, HostName, PodFitsHostPorts and MatchNodeSelector.",
         "NodeResourcesFit + NodeName + NodePorts + NodeAffinity"),
    _row("HostName", _PRED, "NodeName", ("Filter",),
         "Pod spec.nodeName must equal the node name.", "NodeName"),
    _row("PodFitsHostPorts", _PRED, "NodePorts", ("PreFilter", "Filter"),
         "Requested hostPorts must be free on the node.", "NodePorts"),
    _row("PodFitsPorts", _PRED, "NodePorts", ("PreFilter", "Filter"),
         "v1.0 name kept as an alias: the registry rewrote it to PodFitsHostPorts.", "NodePorts"),
    _row("MatchNodeSelector", _PRED, "NodeAffinity", ("PreFilter", "Filter"),
         "nodeSelector and required node affinity.", "NodeAffinity"),
    _row("PodSelectorMatches", _PRED, "NodeAffinity", ("PreFilter", "Filter"),
         "Historic name (v1.0-era Go function behind MatchNodeSelector); the v1.19-v1.22 registry did not accept it, "
         "MatchNodeSelector is the Policy name.", "NodeAffinity"),
    _row("PodFitsResources", _PRED, "NodeResourcesFit", ("PreFilter", "Filter"),
         "Requests must fit allocatable minus requested (NodeResourcesFitArgs such as ignoredResources passed through).",
         "NodeResourcesFit"),
    _row("PodFitsHost", _PRED, "NodeName", ("Filter",),
         "Historic name (v1.0-era Go function behind HostName); the v1.19-v1.22 registry did not accept it, "
         "HostName is the Policy name.", "NodeName"),
    _row("NoDiskConflict", _PRED, "VolumeRestrictions", ("Filter",),
         "GCE PD / AWS EBS / RBD / iSCSI volumes already mounted on the node conflict "
         "(VolumeRestrictions later added PreFilter and ReadWriteOncePod).", "VolumeRestrictions"),
    _row("PodToleratesNodeTaints", _PRED, "TaintToleration", ("Filter",),
         "Mandatory predicate: always added. NoSchedule/NoExecute taints must be tolerated.", "TaintToleration"),
    _row("CheckNodeLabelPresence", _PRED, "NodeLabel", ("Filter",),
         "Custom predicate (argument labelsPresence): labels went to NodeLabelArgs.presentLabels or absentLabels.",
         "NodeAffinity (Exists / DoesNotExist requirements)", legacy_plugin=True),
    _row("CheckServiceAffinity", _PRED, "ServiceAffinity", ("PreFilter", "Filter"),
         "Custom predicate (argument serviceAffinity): labels went to ServiceAffinityArgs.affinityLabels.",
         "InterPodAffinity (required pod affinity)", legacy_plugin=True),
    _row("MaxEBSVolumeCount", _PRED, "EBSLimits", ("Filter",),
         "Attachable AWS EBS volume limit per node (deprecated: the in-tree driver migrated to CSI).", "NodeVolumeLimits"),
    _row("MaxGCEPDVolumeCount", _PRED, "GCEPDLimits", ("Filter",),
         "Attachable GCE PD volume limit per node (deprecated: migrated to CSI).", "NodeVolumeLimits"),
    _row("MaxCSIVolumeCountPred", _PRED, "NodeVolumeLimits", ("Filter",),
         "CSI attachable volume limits from CSINode.", "NodeVolumeLimits"),
    _row("MaxAzureDiskVolumeCount", _PRED, "AzureDiskLimits", ("Filter",),
         "Attachable Azure disk limit per node (deprecated: migrated to CSI).", "NodeVolumeLimits"),
    _row("MaxCinderVolumeCount", _PRED, "CinderLimits", ("Filter",),
         "Attachable Cinder volume limit per node (deprecated: migrated to CSI).", "NodeVolumeLimits"),
    _row("CheckVolumeBinding", _PRED, "VolumeBinding", ("PreFilter", "Filter", "Reserve", "PreBind"),
         "PVC binding and PV node affinity; binds delayed (WaitForFirstConsumer) claims.", "VolumeBinding"),
    _row("NoVolumeZoneConflict", _PRED, "VolumeZone", ("Filter",),
         "Bound PVs' zone/region labels must match the node (VolumeZone later added PreFilter).", "VolumeZone"),
    _row("EvenPodsSpread", _PRED, "PodTopologySpread", ("PreFilter", "Filter"),
         "topologySpreadConstraints with whenUnsatisfiable: DoNotSchedule.", "PodTopologySpread"),
    _row("MatchInterPodAffinity", _PRED, "InterPodAffinity", ("PreFilter", "Filter"),
         "Required pod affinity / anti-affinity, including existing pods' anti-affinity (symmetry).",
         "InterPodAffinity"),
    # -- priorities (优选) ------------------------------------------------------
    _row("SelectorSpreadPriority", _PRIO, "PodTopologySpread", ("PreScore", "Score"),
         "With DefaultPodTopologySpread (beta and on since v1.20): PodTopologySpread with defaultingType System. "
         "With the gate off (v1.19 default): the SelectorSpread plugin.",
         "PodTopologySpread (system default constraints)", default_weight=1, legacy_plugin=True),
    _row("ServiceSpreadingPriority", _PRIO, "PodTopologySpread", ("PreScore", "Score"),
         "Alias: the registry rewrote it to SelectorSpreadPriority.",
         "PodTopologySpread (system default constraints)", legacy_plugin=True),
    _row("InterPodAffinityPriority", _PRIO, "InterPodAffinity", ("PreScore", "Score"),
         "Preferred pod (anti-)affinity; the Policy's hardPodAffinitySymmetricWeight became "
         "InterPodAffinityArgs.hardPodAffinityWeight.", "InterPodAffinity", default_weight=1),
    _row("LeastRequestedPriority", _PRIO, "NodeResourcesFit", ("Score",),
         "v1.19-v1.21: plugin NodeResourcesLeastAllocated; since v1.22 (config v1beta2): NodeResourcesFit "
         "scoringStrategy type LeastAllocated (the default).", "NodeResourcesFit (scoringStrategy LeastAllocated)",
         default_weight=1),
    _row("MostRequestedPriority", _PRIO, "NodeResourcesFit", ("Score",),
         "v1.19-v1.21: plugin NodeResourcesMostAllocated; since v1.22: NodeResourcesFit scoringStrategy type MostAllocated.",
         "NodeResourcesFit (scoringStrategy MostAllocated)"),
    _row("RequestedToCapacityRatioPriority", _PRIO, "NodeResourcesFit", ("Score",),
         "Custom priority (argument requestedToCapacityRatioArguments): v1.19-v1.21 plugin RequestedToCapacityRatio; "
         "since v1.22: NodeResourcesFit scoringStrategy type RequestedToCapacityRatio with the same shape.",
         "NodeResourcesFit (scoringStrategy RequestedToCapacityRatio)"),
    _row("BalancedResourceAllocation", _PRIO, "NodeResourcesBalancedAllocation", ("Score",),
         "Favours nodes whose CPU and memory fractions are close.", "NodeResourcesBalancedAllocation",
         default_weight=1),
    _row("NodePreferAvoidPodsPriority", _PRIO, "NodePreferAvoidPods", ("Score",),
         "Node annotation scheduler.alpha.kubernetes.io/preferAvoidPods; default weight 10000.",
         "TaintToleration (taint the node instead)", default_weight=10000, legacy_plugin=True),
    _row("NodeAffinityPriority", _PRIO, "NodeAffinity", ("PreScore", "Score"),
         "Preferred node affinity terms.", "NodeAffinity", default_weight=1),
    _row("TaintTolerationPriority", _PRIO, "TaintToleration", ("PreScore", "Score"),
         "Fewer intolerable PreferNoSchedule taints score higher.", "TaintToleration", default_weight=1),
    _row("ImageLocalityPriority", _PRIO, "ImageLocality", ("Score",),
         "Nodes already holding the pod's images score higher.", "ImageLocality", default_weight=1),
    _row("EqualPriority", _PRIO, "EqualPriority", (),
         "Gave every node score 1 before the framework; from v1.18 the Policy translation skipped it and no plugin "
         "ran. kubenotes' EqualPriority plugin reproduces the old constant score.",
         "(none: a constant score changes no ranking)", legacy_plugin=True),
    _row("EvenPodsSpreadPriority", _PRIO, "PodTopologySpread", ("PreScore", "Score"),
         "topologySpreadConstraints with whenUnsatisfiable: ScheduleAnyway; default weight 2.", "PodTopologySpread",
         default_weight=2),
)

_BY_NAME = {r["name"]: r for r in _TABLE}


def legacy_table() -> list[dict[str, Any]]:
    """Every legacy predicate and priority with its replacement (copies, safe to modify).

    Parameters
    ----------
    None
        The table is fixed: the names of the v1.17-era scheduler policy (``predicates.go``, ``priorities.go``).

    Returns
    -------
    list[dict]
        One dict per legacy name; keys described in the module docstring.

    Raises
    ------
    Nothing: the rows are built from module constants.

    Examples
    --------
    >>> rows = legacy_table()
    >>> sum(r["kind"] == "predicate" for r in rows), sum(r["kind"] == "priority" for r in rows)
    (22, 13)
    """
    return copy.deepcopy(list(_TABLE))


def row_for(legacy_name: str) -> dict[str, Any]:
    """The table row of one legacy name (a copy).

    Parameters
    ----------
    legacy_name : str
        A predicate or priority name of the old policy API (预选 / 优选), e.g. ``"PodFitsResources"``.

    Returns
    -------
    dict
        The row of :func:`legacy_table` for that name: its kind, the v1.34 plugin(s) and extension points that
        replaced it, the release that removed it and its old default weight.

    Raises
    ------
    KeyError
        For an unknown name; the message suggests close matches.

    Examples
    --------
    >>> row = row_for("PodFitsResources")
    >>> row["kind"], row["kind_zh"], row["plugin"], row["extension_points"]
    ('predicate', '预选', 'NodeResourcesFit', ['PreFilter', 'Filter'])
    >>> try:
    ...     row_for("PodFitsResource")
    ... except KeyError as e:
    ...     print(e.args[0][:84])
    unknown legacy predicate/priority 'PodFitsResource'; did you mean 'PodFitsResources'
    """
    try:
        return copy.deepcopy(_BY_NAME[legacy_name])
    except KeyError:
        close = difflib.get_close_matches(legacy_name, list(_BY_NAME), n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise KeyError(
            f"unknown legacy predicate/priority {legacy_name!r}{hint} "
            f"(known: {', '.join(sorted(_BY_NAME))})"
        ) from None


def plugin_for(legacy_name: str) -> str:
    """Plugin the v1.19-v1.22 legacy registry used for a predicate or priority name.

    Parameters
    ----------
    legacy_name : str
        A Policy predicate or priority name, e.g. ``"PodFitsResources"``.

    Returns
    -------
    str
        Plugin name (``names.py`` spelling).

    Raises
    ------
    KeyError
        For an unknown name; the message lists close matches and all known names.

    See Also
    --------
    row_for : the whole row (all plugins, extension points, v1.34 replacement).
    kubenotes.scheduler.plugins.names : plugin name constants.

    Notes
    -----
    ``GeneralPredicates`` produced four plugins; this returns the first
    (``NodeResourcesFit``). ``SelectorSpreadPriority`` gives ``PodTopologySpread``
    (the v1.20-v1.22 default, ``DefaultPodTopologySpread`` on); v1.19 used ``SelectorSpread``.

    Examples
    --------
    >>> plugin_for("MatchInterPodAffinity"), plugin_for("PodFitsPorts")
    ('InterPodAffinity', 'NodePorts')
    >>> plugin_for("PodFitsResource")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "unknown legacy predicate/priority 'PodFitsResource'; did you mean 'PodFitsResources', ...
    """
    return row_for(legacy_name)["plugin"]
