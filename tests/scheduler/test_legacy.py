"""The legacy predicate/priority table against the v1.21 LegacyRegistry translation."""

from __future__ import annotations

import importlib

import pytest

from kubenotes.scheduler import legacy
from kubenotes.scheduler.plugins import names

# Upstream legacy_registry.go (v1.21): predicate/priority -> plugins and extension points.
REGISTRY = {
    "GeneralPredicates": (["NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity"], ["PreFilter", "Filter"]),
    "PodToleratesNodeTaints": (["TaintToleration"], ["Filter"]),
    "PodFitsResources": (["NodeResourcesFit"], ["PreFilter", "Filter"]),
    "HostName": (["NodeName"], ["Filter"]),
    "PodFitsHostPorts": (["NodePorts"], ["PreFilter", "Filter"]),
    "PodFitsPorts": (["NodePorts"], ["PreFilter", "Filter"]),
    "MatchNodeSelector": (["NodeAffinity"], ["PreFilter", "Filter"]),
    "CheckNodeUnschedulable": (["NodeUnschedulable"], ["Filter"]),
    "CheckVolumeBinding": (["VolumeBinding"], ["PreFilter", "Filter", "Reserve", "PreBind"]),
    "NoDiskConflict": (["VolumeRestrictions"], ["Filter"]),
    "NoVolumeZoneConflict": (["VolumeZone"], ["Filter"]),
    "MaxCSIVolumeCountPred": (["NodeVolumeLimits"], ["Filter"]),
    "MaxEBSVolumeCount": (["EBSLimits"], ["Filter"]),
    "MaxGCEPDVolumeCount": (["GCEPDLimits"], ["Filter"]),
    "MaxAzureDiskVolumeCount": (["AzureDiskLimits"], ["Filter"]),
    "MaxCinderVolumeCount": (["CinderLimits"], ["Filter"]),
    "MatchInterPodAffinity": (["InterPodAffinity"], ["PreFilter", "Filter"]),
    "CheckNodeLabelPresence": (["NodeLabel"], ["Filter"]),
    "CheckServiceAffinity": (["ServiceAffinity"], ["PreFilter", "Filter"]),
    "EvenPodsSpread": (["PodTopologySpread"], ["PreFilter", "Filter"]),
    "SelectorSpreadPriority": (["PodTopologySpread"], ["PreScore", "Score"]),
    "ServiceSpreadingPriority": (["PodTopologySpread"], ["PreScore", "Score"]),
    "TaintTolerationPriority": (["TaintToleration"], ["PreScore", "Score"]),
    "NodeAffinityPriority": (["NodeAffinity"], ["PreScore", "Score"]),
    "ImageLocalityPriority": (["ImageLocality"], ["Score"]),
    "InterPodAffinityPriority": (["InterPodAffinity"], ["PreScore", "Score"]),
    "NodePreferAvoidPodsPriority": (["NodePreferAvoidPods"], ["Score"]),
    "BalancedResourceAllocation": (["NodeResourcesBalancedAllocation"], ["Score"]),
    "EvenPodsSpreadPriority": (["PodTopologySpread"], ["PreScore", "Score"]),
}

# Upstream DefaultPriorities (used when a Policy set no priorities).
DEFAULT_PRIORITIES = {"SelectorSpreadPriority": 1, "InterPodAffinityPriority": 1, "LeastRequestedPriority": 1,
                      "BalancedResourceAllocation": 1, "NodePreferAvoidPodsPriority": 10000, "NodeAffinityPriority": 1,
                      "TaintTolerationPriority": 1, "ImageLocalityPriority": 1, "EvenPodsSpreadPriority": 2}

REQUIRED = ["PodFitsHostPorts", "PodFitsPorts", "PodFitsResources", "HostName", "MatchNodeSelector", "NoVolumeZoneConflict",
            "NoDiskConflict", "PodSelectorMatches", "PodFitsHost", "CheckNodeLabelPresence", "CheckServiceAffinity",
            "MatchInterPodAffinity", "PodToleratesNodeTaints", "CheckNodeUnschedulable", "EvenPodsSpread",
            "SelectorSpreadPriority", "InterPodAffinityPriority", "LeastRequestedPriority", "BalancedResourceAllocation",
            "NodePreferAvoidPodsPriority", "NodeAffinityPriority", "TaintTolerationPriority", "ServiceSpreadingPriority",
            "EqualPriority", "ImageLocalityPriority", "MostRequestedPriority", "RequestedToCapacityRatioPriority",
            "EvenPodsSpreadPriority"]


def test_every_required_name_is_present_once():
    names_in_table = [r["name"] for r in legacy.legacy_table()]
    assert len(names_in_table) == len(set(names_in_table))
    assert set(REQUIRED) <= set(names_in_table)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_matches_the_legacy_registry(name):
    row = legacy.row_for(name)
    plugins, points = REGISTRY[name]
    assert row["plugins"] == plugins
    assert row["plugin"] == legacy.plugin_for(name) == plugins[0]
    assert row["extension_points"] == points


def test_kinds_and_chinese_terms():
    for row in legacy.legacy_table():
        assert (row["kind"], row["kind_zh"]) in {("predicate", "预选"), ("priority", "优选")}
        assert row["kind"] == ("priority" if row["name"].endswith("Priority") or row["name"] == "BalancedResourceAllocation"
                               else "predicate")


def test_default_weights():
    got = {r["name"]: r["default_weight"] for r in legacy.legacy_table() if r["default_weight"] is not None}
    assert got == DEFAULT_PRIORITIES


@pytest.mark.parametrize("name,plugin,how", [
    ("LeastRequestedPriority", "NodeResourcesFit", "LeastAllocated"),
    ("MostRequestedPriority", "NodeResourcesFit", "MostAllocated"),
    ("RequestedToCapacityRatioPriority", "NodeResourcesFit", "RequestedToCapacityRatio"),
])
def test_resource_priorities_became_scoring_strategies(name, plugin, how):
    row = legacy.row_for(name)
    assert row["plugin"] == plugin and how in row["how"] and how in row["replacement_v1_34"]


def test_removed_with_the_policy_api():
    assert {r["removed_in"] for r in legacy.legacy_table()} == {"v1.23"} == {legacy.POLICY_API_REMOVED_IN}


def test_legacy_plugins_shipped_by_kubenotes():
    shipped = {r["plugin"] for r in legacy.legacy_table() if r["kubenotes_legacy_plugin"]}
    assert {"NodeLabel", "ServiceAffinity", "NodePreferAvoidPods", "EqualPriority"} <= shipped
    assert legacy.row_for("SelectorSpreadPriority")["kubenotes_legacy_plugin"]
    modules = {"NodeLabel": "nodelabel", "ServiceAffinity": "serviceaffinity", "NodePreferAvoidPods": "nodepreferavoidpods",
               "EqualPriority": "equalpriority", "SelectorSpread": "selectorspread"}
    for plugin, module in modules.items():
        mod = importlib.import_module(f"kubenotes.scheduler.plugins.{module}")
        assert mod.NAME == plugin and plugin in names.LEGACY_NAMES


def test_replacements_are_v1_34_plugins():
    for row in legacy.legacy_table():
        if row["name"] == "EqualPriority":
            continue
        first = row["replacement_v1_34"].split(" ")[0]
        assert first in names.IN_TREE_NAMES, row["name"]


def test_unknown_name_raises_a_helpful_key_error():
    with pytest.raises(KeyError) as e:
        legacy.plugin_for("PodFitsResource")
    msg = e.value.args[0]
    assert "PodFitsResource" in msg and "did you mean 'PodFitsResources'" in msg and "known:" in msg
    with pytest.raises(KeyError):
        legacy.plugin_for("")


def test_table_is_a_copy():
    legacy.legacy_table()[0]["plugin"] = "changed"
    legacy.row_for("HostName")["plugins"].append("x")
    assert legacy.plugin_for("CheckNodeUnschedulable") == "NodeUnschedulable"
    assert legacy.row_for("HostName")["plugins"] == ["NodeName"]
