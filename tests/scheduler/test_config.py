"""Tests for kubenotes.scheduler.config (ports of v1/default_plugins_test.go, defaults_test.go and validation_test.go)."""

from __future__ import annotations

import pytest
import yaml

from kubenotes.data import sample
from kubenotes.errors import ConfigError
from kubenotes.scheduler.config import (
    API_VERSION,
    DEFAULT_RTCR_SHAPE,
    KIND,
    Plugin,
    Plugins,
    PluginSet,
    as_config_dict,
    config_with,
    default_config,
    default_plugins,
    load_config,
    load_config_file,
    merge_plugins,
    parse_config,
)
from kubenotes.scheduler.whatif import score_weights


def cfg(**kw):
    return {"apiVersion": API_VERSION, "kind": KIND, **kw}


def ps(enabled=(), disabled=()):
    def pl(x):
        return Plugin(*x) if isinstance(x, tuple) else Plugin(x)

    return PluginSet([pl(x) for x in enabled], [pl(x) for x in disabled])


def names(s: PluginSet):
    return [(p.name, p.weight) if p.weight is not None else p.name for p in s.enabled], [p.name for p in s.disabled]


# --------------------------------------------------------------------------- mergePlugins (TestMergePlugins)
MERGE_CASES = [
    ("AppendCustomPlugin", ps(["CustomPlugin"]), ps(["DefaultPlugin1", "DefaultPlugin2"]),
     (["DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"], [])),
    ("InsertAfterDefaultPlugins2", ps(["CustomPlugin", "DefaultPlugin2"], ["DefaultPlugin2"]),
     ps(["DefaultPlugin1", "DefaultPlugin2"]),
     (["DefaultPlugin1", "CustomPlugin", "DefaultPlugin2"], ["DefaultPlugin2"])),
    ("InsertBeforeAllPlugins", ps(["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"], ["*"]),
     ps(["DefaultPlugin1", "DefaultPlugin2"]),
     (["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"], ["*"])),
    ("ReorderDefaultPlugins", ps(["DefaultPlugin2", "DefaultPlugin1"], ["*"]), ps(["DefaultPlugin1", "DefaultPlugin2"]),
     (["DefaultPlugin2", "DefaultPlugin1"], ["*"])),
    ("CustomPluginOverrideDefaultPlugin", ps([("Plugin1", 2), ("Plugin3", 3)]), ps(["Plugin1", "Plugin2", "Plugin3"]),
     ([("Plugin1", 2), "Plugin2", ("Plugin3", 3)], [])),
    ("OrderPreserveAfterOverride", ps([("Plugin2", 2), ("Plugin1", 1)]), ps(["Plugin1", "Plugin2", "Plugin3"]),
     ([("Plugin1", 1), ("Plugin2", 2), "Plugin3"], [])),
    ("RepeatedCustomPlugin", ps(["Plugin1", ("Plugin2", 2), "Plugin3", ("Plugin2", 4)]), ps(["Plugin1", "Plugin2", "Plugin3"]),
     (["Plugin1", ("Plugin2", 4), "Plugin3", ("Plugin2", 2)], [])),
    ("multipoint with only disabled gets merged", ps([], ["DefaultPlugin"]), ps(["DefaultPlugin"]),
     ([], ["DefaultPlugin"])),
    ("override default MultiPoint plugins with custom value", ps([("DefaultPlugin", 5)]), ps(["DefaultPlugin"]),
     ([("DefaultPlugin", 5)], [])),
    ("disabled MultiPoint plugin in default set", ps(["CustomPlugin"]), ps(["DefaultPlugin"], ["DefaultPlugin2"]),
     (["DefaultPlugin", "CustomPlugin"], ["DefaultPlugin2"])),
]


@pytest.mark.parametrize("name, custom, default, want", MERGE_CASES, ids=[c[0] for c in MERGE_CASES])
def test_merge_plugins(name, custom, default, want):
    got = merge_plugins(Plugins(filter=default), Plugins(filter=custom))
    assert names(got.filter) == want


def test_merge_nil_custom():
    d = Plugins(filter=ps(["DefaultPlugin1", "DefaultPlugin2"]))
    assert merge_plugins(d, None) is d


def test_append_disabled_multipoint_plugins():
    custom = Plugins(multi_point=ps(["CustomPlugin", "CustomPlugin2"], ["DefaultPlugin2"]),
                     score=ps([], ["CustomPlugin2"]))
    got = merge_plugins(Plugins(multi_point=ps(["DefaultPlugin1", "DefaultPlugin2"])), custom)
    assert names(got.multi_point) == (["DefaultPlugin1", "CustomPlugin", "CustomPlugin2"], ["DefaultPlugin2"])
    assert names(got.score) == ([], ["CustomPlugin2"])


# --------------------------------------------------------------------------- defaults
def test_default_plugin_set_v134():
    got = [(p.name, p.weight) for p in default_plugins().multi_point.enabled]
    assert got == [
        ("SchedulingGates", None), ("PrioritySort", None), ("NodeUnschedulable", None), ("NodeName", None),
        ("TaintToleration", 3), ("NodeAffinity", 2), ("NodePorts", None), ("NodeResourcesFit", 1),
        ("VolumeRestrictions", None), ("NodeVolumeLimits", None), ("VolumeBinding", None), ("VolumeZone", None),
        ("PodTopologySpread", 2), ("InterPodAffinity", 2), ("DynamicResources", None), ("DefaultPreemption", None),
        ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1), ("DefaultBinder", None),
    ]


def test_defaults_empty_config():
    c = default_config()
    assert c.parallelism == 16
    assert c.percentage_of_nodes_to_score == 0
    assert (c.pod_initial_backoff_seconds, c.pod_max_backoff_seconds) == (1, 10)
    assert c.enable_profiling is True and c.enable_contention_profiling is True
    assert len(c.profiles) == 1
    p = c.profiles[0]
    assert p.scheduler_name == "default-scheduler"
    assert p.percentage_of_nodes_to_score is None
    assert [pc.name for pc in p.plugin_config] == [
        "DefaultPreemption", "InterPodAffinity", "NodeAffinity", "NodeResourcesBalancedAllocation",
        "NodeResourcesFit", "PodTopologySpread", "VolumeBinding"]
    args = {pc.name: pc.args for pc in p.plugin_config}
    assert args["DefaultPreemption"] == {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}
    assert args["InterPodAffinity"] == {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False}
    assert args["NodeAffinity"] == {}
    assert args["NodeResourcesBalancedAllocation"] == {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    assert args["NodeResourcesFit"] == {"scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}
    assert args["PodTopologySpread"] == {"defaultingType": "System"}
    assert args["VolumeBinding"] == {"bindTimeoutSeconds": 600}


def test_defaults_partial_args_and_weights():
    c = load_config(cfg(profiles=[{"pluginConfig": [
        {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated",
                                                                 "resources": [{"name": "cpu"}, {"name": "nvidia.com/gpu", "weight": 3}]}}},
        {"name": "DefaultPreemption", "args": {"minCandidateNodesAbsolute": 50}},
        {"name": "NodeResourcesBalancedAllocation", "args": {"resources": [{"name": "cpu", "weight": 0}]}},
    ]}]))
    p = c.profiles[0]
    assert p.args_for("NodeResourcesFit") == {"scoringStrategy": {"type": "MostAllocated", "resources": [
        {"name": "cpu", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 3}]}}
    assert p.args_for("DefaultPreemption") == {"minCandidateNodesAbsolute": 50, "minCandidateNodesPercentage": 10}
    assert p.args_for("NodeResourcesBalancedAllocation") == {"resources": [{"name": "cpu", "weight": 1}]}
    # explicit configs keep their place; defaults for the others are appended, sorted
    assert [pc.name for pc in p.plugin_config][:3] == ["NodeResourcesFit", "DefaultPreemption", "NodeResourcesBalancedAllocation"]
    assert [pc.name for pc in p.plugin_config][3:] == ["InterPodAffinity", "NodeAffinity", "PodTopologySpread", "VolumeBinding"]


def test_scheduler_name_defaults_only_with_one_profile():
    c = load_config(cfg(profiles=[{"schedulerName": "a"}]))
    assert c.profiles[0].scheduler_name == "a"
    with pytest.raises(ConfigError, match=r"profiles\[1\].schedulerName: Required value"):
        load_config(cfg(profiles=[{"schedulerName": "a"}, {}]))


def test_multi_point_disable_all():
    c = load_config(cfg(profiles=[{"plugins": {"multiPoint": {"enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}],
                                                              "disabled": [{"name": "*"}]}}}]))
    assert [p.name for p in c.profiles[0].plugins.multi_point.enabled] == ["PrioritySort", "DefaultBinder"]
    assert [p.name for p in c.profiles[0].plugin_config] == []


# --------------------------------------------------------------------------- validation (TestValidateKubeSchedulerConfigurationV1)
@pytest.mark.parametrize("doc, want", [
    (cfg(percentageOfNodesToScore=150), "percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]"),
    (cfg(percentageOfNodesToScore=-1), "percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"),
    (cfg(profiles=[{"percentageOfNodesToScore": 101}]),
     "profiles[0].percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
    (cfg(parallelism=0), "parallelism: Invalid value: 0: should be an integer value greater than zero"),
    (cfg(podInitialBackoffSeconds=0), "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"),
    (cfg(podInitialBackoffSeconds=5, podMaxBackoffSeconds=1),
     "podMaxBackoffSeconds: Invalid value: 1: must be greater than or equal to PodInitialBackoffSeconds"),
    (cfg(profiles=[{"schedulerName": "a"}, {"schedulerName": "a"}]),
     'profiles[1].schedulerName: Duplicate value: "profiles[0].schedulerName"'),
    (cfg(profiles=[{"plugins": {"filter": {"enabled": [{"name": "EBSLimits"}]}}}]),
     'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version '
     '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")'),
    (cfg(profiles=[{"pluginConfig": [{"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": 0,
                                                                           "minCandidateNodesAbsolute": 0}}]}]),
     "[profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
     "minCandidateNodesAbsolute, profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: Invalid value: 0: cannot be "
     "zero at the same time as minCandidateNodesPercentage]"),
    (cfg(profiles=[{"pluginConfig": [{"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": 101}}]}]),
     "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]"),
    (cfg(profiles=[{"pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": -1}}]}]),
     "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"),
    (cfg(profiles=[{"pluginConfig": [{"name": "NodeResourcesBalancedAllocation",
                                      "args": {"resources": [{"name": "cpu", "weight": 2}]}}]}]),
     "profiles[0].pluginConfig[0].args.resources[0].weight: Invalid value: 2: must be 1"),
    (cfg(profiles=[{"pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "Foo"}}]}]),
     'profiles[0].pluginConfig[0].args.defaultingType: Unsupported value: "Foo": supported values: "System", "List"'),
    (cfg(profiles=[{"pluginConfig": [{"name": "PodTopologySpread", "args": {
        "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]}}]}]),
     'profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'),
    (cfg(profiles=[{"pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List",
        "defaultConstraints": [{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "Never"}]}}]}]),
     "[profiles[0].pluginConfig[0].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf), "
     'profiles[0].pluginConfig[0].args.defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Never": '
     'supported values: "DoNotSchedule", "ScheduleAnyway"]'),
    (cfg(profiles=[{"pluginConfig": [{"name": "VolumeBinding", "args": {"bindTimeoutSeconds": -1}}]}]),
     "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"),
    (cfg(profiles=[{"pluginConfig": [{"name": "X"}, {"name": "X"}]}]),
     'profiles[0].pluginConfig[1]: Duplicate value: "X"'),
    (cfg(profiles=[{"schedulerName": "a", "plugins": {"queueSort": {"enabled": [{"name": "Custom"}]}}}, {"schedulerName": "b"}]),
     None),  # checked below: must be the same for all profiles
])
def test_validation_messages(doc, want):
    with pytest.raises(ConfigError) as ei:
        load_config(doc)
    if want is not None:
        assert str(ei.value) == want
    else:
        assert "profiles[1].plugins.queueSort: Invalid value" in str(ei.value)
        assert str(ei.value).endswith("must be the same for all profiles")


def test_weights_are_not_range_checked_like_upstream():
    c = load_config(cfg(profiles=[{"plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 0}]}}}]))
    assert c.profiles[0].plugins.score.enabled[0].weight == 0


# --------------------------------------------------------------------------- decoding
@pytest.mark.parametrize("doc, want", [
    ({"kind": KIND}, "Object 'apiVersion' is missing"),
    ({"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": KIND},
     'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3"'),
    ({"apiVersion": "v1", "kind": KIND}, 'for version "v1"'),
    ({"apiVersion": API_VERSION}, "Object 'Kind' is missing"),
    (cfg(foo=1), 'strict decoding error: unknown field "foo"'),
    (cfg(profiles=[{"plugin": {}}]), 'strict decoding error: unknown field "profiles[0].plugin"'),
    (cfg(profiles=[{"plugins": {"filter": {"enable": []}}}]), 'strict decoding error: unknown field "profiles[0].plugins.filter.enable"'),
    (cfg(profiles=[{"pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeigh": 1}}]}]),
     'strict decoding error: unknown field "profiles[0].pluginConfig[0].args.hardPodAffinityWeigh"'),
    (cfg(percentageOfNodesToScore="50"), "json: cannot unmarshal string into Go struct field percentageOfNodesToScore of type int32"),
])
def test_decoding_errors(doc, want):
    with pytest.raises(ConfigError) as ei:
        parse_config(doc)
    assert want in str(ei.value)


def test_args_kind_is_checked_and_stripped():
    c = load_config(cfg(profiles=[{"pluginConfig": [{"name": "InterPodAffinity", "args": {
        "apiVersion": API_VERSION, "kind": "InterPodAffinityArgs", "hardPodAffinityWeight": 5}}]}]))
    assert c.profiles[0].args_for("InterPodAffinity") == {"hardPodAffinityWeight": 5, "ignorePreferredTermsOfExistingPods": False}
    with pytest.raises(ConfigError, match="has to match plugin args"):
        parse_config(cfg(profiles=[{"pluginConfig": [{"name": "InterPodAffinity", "args": {"kind": "NodeAffinityArgs"}}]}]))


# --------------------------------------------------------------------------- dumping
def test_to_yaml_round_trip():
    doc = cfg(percentageOfNodesToScore=30, profiles=[{
        "schedulerName": "my-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": "ImageLocality", "weight": 5}], "disabled": [{"name": "NodeAffinity"}]},
                    "score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}},
        "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}],
    }])
    c = load_config(doc)
    text = c.to_yaml()
    back = yaml.safe_load(text)
    assert back["apiVersion"] == API_VERSION and back["kind"] == KIND
    c2 = load_config(back)
    assert c2 == c
    assert c2.to_dict() == c.to_dict()


def test_to_dict_of_default_is_reloadable():
    d = default_config().to_dict()
    assert set(d) <= {"apiVersion", "kind", "parallelism", "enableProfiling", "enableContentionProfiling",
                      "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles"}
    assert load_config(d) == default_config()


def test_load_config_file(tmp_path):
    f = tmp_path / "sched.yaml"
    f.write_text(f"apiVersion: {API_VERSION}\nkind: {KIND}\npercentageOfNodesToScore: 200\n")
    with pytest.raises(ConfigError, match=r"^percentageOfNodesToScore: Invalid value: 200: not in valid range \[0-100\]$"):
        load_config_file(str(f))
    with pytest.raises(ConfigError, match="unable to read config file"):
        load_config_file(str(tmp_path / "missing.yaml"))


def test_weight_that_overflows_int32_is_rejected_as_the_decoder_does():
    from kubenotes.errors import ConfigError
    from kubenotes.scheduler.config import load_config

    cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"schedulerName": "default-scheduler",
                         "plugins": {"multiPoint": {"enabled": [{"name": "NodeResourcesFit", "weight": 3000000000}]}}}]}
    with pytest.raises(ConfigError, match=r"^json: cannot unmarshal number 3000000000 into Go struct field .*weight of type int32$"):
        load_config(cfg)


# --------------------------------------------------------------------------- overrides, as in the scheduling chapter
SAMPLE_CONFIG = sample("scheduling", "scheduler-config.yaml")


def test_config_with_overrides_weights_and_strategy_like_a_yaml_file():
    cfg = config_with(SAMPLE_CONFIG, weights={"ImageLocality": 7}, strategy="LeastAllocated")
    assert score_weights(cfg)["ImageLocality"] == 7
    assert score_weights(cfg)["TaintToleration"] == 3  # untouched default
    ss = cfg.profiles[0].args_for("NodeResourcesFit")["scoringStrategy"]
    assert ss["type"] == "LeastAllocated"
    assert {"name": "nvidia.com/gpu", "weight": 3} in ss["resources"]  # the file's resources are kept
    rtcr = config_with(None, strategy="RequestedToCapacityRatio").profiles[0].args_for("NodeResourcesFit")
    assert rtcr["scoringStrategy"]["requestedToCapacityRatio"]["shape"] == list(DEFAULT_RTCR_SHAPE)
    with pytest.raises(ValueError, match="unknown scoring strategy"):
        config_with(None, strategy="Random")
    assert as_config_dict(SAMPLE_CONFIG)["profiles"][0]["pluginConfig"][0]["name"] == "NodeResourcesFit"
