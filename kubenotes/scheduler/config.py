"""KubeSchedulerConfiguration (``kubescheduler.config.k8s.io/v1``): parse, default, validate, dump.

Mirrors ``k8s.io/kube-scheduler/config/v1`` (types),
``pkg/scheduler/apis/config/v1`` (``defaults.go``, ``default_plugins.go``) and
``pkg/scheduler/apis/config/validation``. A configuration is loaded from the
mapping YAML gives (camelCase keys), defaulted exactly as the v1 scheme does
(the default ``multiPoint`` plugin set merged with the user's
``enabled``/``disabled`` lists, default plugin args appended) and validated
with upstream's messages (``percentageOfNodesToScore: Invalid value: 150: not
in valid range [0-100]``).

Plugin args stay plain mappings with upstream's camelCase keys; each plugin's
factory reads them.

:func:`config_with` changes Score weights and the NodeResourcesFit scoring
strategy the way a user edits the YAML file, then loads the result.

Notes
-----
Feature gates are those of a default v1.34 kube-scheduler: DynamicResources is
in the default plugin set (DRA is GA), StorageCapacityScoring is off.
``leaderElection`` and ``clientConnection`` are kept as given and not
validated beyond their presence. ``extenders`` are decoded strictly (the v1
``Extender`` fields) and validated as ``validateExtenders`` does; they stay
mappings with upstream's camelCase keys, which
:func:`kubenotes.scheduler.extender.build_extenders` reads.
``DynamicResourcesArgs`` are not defaulted (their defaults depend on beta gates).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kube-scheduler/config/v1/types.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kube-scheduler/config/v1/types_pluginargs.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/defaults.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/default_plugins.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/validation/validation_pluginargs.go
https://kubernetes.io/docs/reference/scheduling/config/

Examples
--------
>>> cfg = load_config({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"})
>>> p = cfg.profiles[0]
>>> p.scheduler_name, [(x.name, x.weight) for x in p.plugins.multi_point.enabled][4:6]
('default-scheduler', [('TaintToleration', 3), ('NodeAffinity', 2)])
>>> load_config({"apiVersion": API_VERSION, "kind": KIND, "percentageOfNodesToScore": 150})
Traceback (most recent call last):
...
kubenotes.errors.ConfigError: percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubenotes.api.duration import parse_go_duration
from kubenotes.api.manifests import load_manifests
from kubenotes.api.schema import go_json_kind
from kubenotes.api.resources import is_extended_resource_name
from kubenotes.api.validation import is_qualified_name
from kubenotes.api.yamlutil import YAMLError, load_documents
from kubenotes.errors import ConfigError
from kubenotes.scheduler.plugins import names

__all__ = [
    "API_VERSION",
    "KIND",
    "DEFAULT_SCHEDULER_NAME",
    "DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE",
    "Plugin",
    "PluginSet",
    "Plugins",
    "PluginConfig",
    "KubeSchedulerProfile",
    "KubeSchedulerConfiguration",
    "default_plugins",
    "merge_plugins",
    "parse_config",
    "set_defaults",
    "validate",
    "load_config",
    "load_config_file",
    "default_config",
    "SCORING_STRATEGIES",
    "DEFAULT_RTCR_SHAPE",
    "as_config_dict",
    "config_with",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
#: ``v1.DefaultSchedulerName``.
DEFAULT_SCHEDULER_NAME = "default-scheduler"
#: ``config.DefaultPercentageOfNodesToScore``: 0 means the adaptive rule.
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0

# Config field name (camelCase, as in YAML) -> extension point name.
_PLUGIN_FIELDS: dict[str, str] = {
    "preEnqueue": "PreEnqueue",
    "queueSort": "QueueSort",
    "preFilter": "PreFilter",
    "filter": "Filter",
    "postFilter": "PostFilter",
    "preScore": "PreScore",
    "score": "Score",
    "reserve": "Reserve",
    "permit": "Permit",
    "preBind": "PreBind",
    "bind": "Bind",
    "postBind": "PostBind",
    "multiPoint": "MultiPoint",
}
_EXT_TO_ATTR = {ext: re.sub(r"(?<!^)([A-Z])", r"_\1", ext).lower() for ext in _PLUGIN_FIELDS.values()}

_TOP_FIELDS = {
    "apiVersion", "kind", "parallelism", "leaderElection", "clientConnection", "enableProfiling",
    "enableContentionProfiling", "percentageOfNodesToScore", "podInitialBackoffSeconds",
    "podMaxBackoffSeconds", "profiles", "extenders", "delayCacheUntilActive",
}
_PROFILE_FIELDS = {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"}

#: Plugins removed from v1 (``invalidPluginsByVersion``).
_INVALID_V1_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")

_DEFAULT_RESOURCE_SPEC = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})

# Known args kinds and their top-level fields (strict decoding).
_ARGS_FIELDS: dict[str, set[str]] = {
    names.DEFAULT_PREEMPTION: {"minCandidateNodesPercentage", "minCandidateNodesAbsolute"},
    names.INTER_POD_AFFINITY: {"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"},
    names.NODE_AFFINITY: {"addedAffinity"},
    names.NODE_RESOURCES_BALANCED_ALLOCATION: {"resources"},
    names.NODE_RESOURCES_FIT: {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"},
    names.POD_TOPOLOGY_SPREAD: {"defaultConstraints", "defaultingType"},
    names.VOLUME_BINDING: {"bindTimeoutSeconds", "shape"},
    names.DYNAMIC_RESOURCES: {"filterTimeout", "bindingTimeout"},
}
# Plugins whose args get a default entry appended to pluginConfig.
_DEFAULTED_ARGS = tuple(sorted(set(_ARGS_FIELDS) - {names.DYNAMIC_RESOURCES}))


# --------------------------------------------------------------------------- types
@dataclass
class Plugin:
    """A plugin named in a plugin set, with its Score weight (``v1.Plugin``).

    Attributes
    ----------
    name : str
    weight : int or None
        Only meaningful for Score plugins; None (or 0) means 1.
    """

    name: str
    weight: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name}
        if self.weight is not None:
            d["weight"] = self.weight
        return d


@dataclass
class PluginSet:
    """Plugins ``enabled`` (in order) and ``disabled`` (``"*"`` disables all defaults) at one extension point."""

    enabled: list[Plugin] = field(default_factory=list)
    disabled: list[Plugin] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.enabled:
            d["enabled"] = [p.to_dict() for p in self.enabled]
        if self.disabled:
            d["disabled"] = [p.to_dict() for p in self.disabled]
        return d


@dataclass
class Plugins:
    """One :class:`PluginSet` per extension point plus ``multi_point`` (``v1.Plugins``)."""

    pre_enqueue: PluginSet = field(default_factory=PluginSet)
    queue_sort: PluginSet = field(default_factory=PluginSet)
    pre_filter: PluginSet = field(default_factory=PluginSet)
    filter: PluginSet = field(default_factory=PluginSet)
    post_filter: PluginSet = field(default_factory=PluginSet)
    pre_score: PluginSet = field(default_factory=PluginSet)
    score: PluginSet = field(default_factory=PluginSet)
    reserve: PluginSet = field(default_factory=PluginSet)
    permit: PluginSet = field(default_factory=PluginSet)
    pre_bind: PluginSet = field(default_factory=PluginSet)
    bind: PluginSet = field(default_factory=PluginSet)
    post_bind: PluginSet = field(default_factory=PluginSet)
    multi_point: PluginSet = field(default_factory=PluginSet)

    def plugin_set(self, extension_point: str) -> PluginSet:
        """The set of an extension point given by its upstream name (``"PreFilter"``, ``"MultiPoint"``)."""
        return getattr(self, _EXT_TO_ATTR[extension_point])

    def to_dict(self) -> dict[str, Any]:
        d = {}
        for key, ext in _PLUGIN_FIELDS.items():
            ps = self.plugin_set(ext).to_dict()
            if ps:
                d[key] = ps
        return d


@dataclass
class PluginConfig:
    """Args of one plugin (``v1.PluginConfig``); ``args`` keeps upstream's camelCase keys."""

    name: str
    args: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name}
        if self.args is not None:
            d["args"] = copy.deepcopy(self.args)
        return d


@dataclass
class KubeSchedulerProfile:
    """A scheduling profile (``v1.KubeSchedulerProfile``).

    Attributes
    ----------
    scheduler_name : str
        Pods with this ``spec.schedulerName`` use the profile.
    percentage_of_nodes_to_score : int or None
        Overrides the global value when set (0-100; 0 means adaptive).
    plugins : Plugins or None
    plugin_config : list[PluginConfig]
    """

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    percentage_of_nodes_to_score: int | None = None
    plugins: Plugins | None = None
    plugin_config: list[PluginConfig] = field(default_factory=list)

    def args_for(self, plugin: str) -> dict[str, Any] | None:
        """The args of ``plugin`` or None."""
        for pc in self.plugin_config:
            if pc.name == plugin:
                return pc.args
        return None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.scheduler_name:
            d["schedulerName"] = self.scheduler_name
        if self.percentage_of_nodes_to_score is not None:
            d["percentageOfNodesToScore"] = self.percentage_of_nodes_to_score
        if self.plugins is not None:
            d["plugins"] = self.plugins.to_dict()
        if self.plugin_config:
            d["pluginConfig"] = [pc.to_dict() for pc in self.plugin_config]
        return d


@dataclass
class KubeSchedulerConfiguration:
    """The scheduler's component configuration (``v1.KubeSchedulerConfiguration``).

    Attributes
    ----------
    api_version : str
        Always ``kubescheduler.config.k8s.io/v1``.
    parallelism : int or None
        Goroutines for filtering/scoring upstream (16); kubenotes runs serially.
    percentage_of_nodes_to_score : int or None
        0-100; 0 applies the adaptive rule ``50 - numNodes/125`` (at least 5%).
    pod_initial_backoff_seconds, pod_max_backoff_seconds : int or None
        Backoff of pods that failed scheduling (1 s and 10 s).
    profiles : list[KubeSchedulerProfile]
    extenders : list[dict]
        ``v1.Extender`` entries as decoded (camelCase keys: ``urlPrefix``,
        ``filterVerb``, ``prioritizeVerb``, ``weight``, ``bindVerb``,
        ``preemptVerb``, ``httpTimeout``, ``nodeCacheCapable``,
        ``managedResources``, ``ignorable``...); see
        :mod:`kubenotes.scheduler.extender`.
    enable_profiling, enable_contention_profiling, delay_cache_until_active : bool or None
    leader_election, client_connection : dict or None
        Kept as given (not modelled).
    """

    parallelism: int | None = None
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: int | None = None
    pod_max_backoff_seconds: int | None = None
    profiles: list[KubeSchedulerProfile] = field(default_factory=list)
    extenders: list[dict[str, Any]] = field(default_factory=list)
    enable_profiling: bool | None = None
    enable_contention_profiling: bool | None = None
    delay_cache_until_active: bool | None = None
    leader_election: dict[str, Any] | None = None
    client_connection: dict[str, Any] | None = None
    api_version: str = API_VERSION

    def profile(self, scheduler_name: str) -> KubeSchedulerProfile | None:
        """The profile for ``scheduler_name`` or None."""
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None

    def to_dict(self) -> dict[str, Any]:
        """A mapping a kube-scheduler accepts with ``--config`` (apiVersion, kind, v1 fields only)."""
        d: dict[str, Any] = {"apiVersion": self.api_version, "kind": KIND}
        for key, val in (
            ("parallelism", self.parallelism),
            ("leaderElection", self.leader_election),
            ("clientConnection", self.client_connection),
            ("enableProfiling", self.enable_profiling),
            ("enableContentionProfiling", self.enable_contention_profiling),
            ("percentageOfNodesToScore", self.percentage_of_nodes_to_score),
            ("podInitialBackoffSeconds", self.pod_initial_backoff_seconds),
            ("podMaxBackoffSeconds", self.pod_max_backoff_seconds),
            ("delayCacheUntilActive", self.delay_cache_until_active),
        ):
            if val is not None:
                d[key] = copy.deepcopy(val)
        if self.profiles:
            d["profiles"] = [p.to_dict() for p in self.profiles]
        if self.extenders:
            d["extenders"] = copy.deepcopy(self.extenders)
        return d

    def to_yaml(self) -> str:
        """:meth:`to_dict` as a YAML document."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=False)


# --------------------------------------------------------------------------- parsing
def _strict(d: Mapping[str, Any], allowed: set[str], path: str) -> None:
    for k in d:
        if k not in allowed:
            p = f"{path}.{k}" if path else k
            raise ConfigError(f'strict decoding error: unknown field "{p}"')


def _want(v: Any, typ: type | tuple, path: str, go_type: str) -> Any:
    if v is None:
        return None
    if typ is int and isinstance(v, bool) or not isinstance(v, typ):
        raise ConfigError(f"json: cannot unmarshal {_json_kind(v)} into Go struct field {path} of type {go_type}")
    bits = _INT_BITS.get(go_type)
    if bits is not None and not -(2 ** (bits - 1)) <= v < 2 ** (bits - 1):
        # encoding/json reports an overflowing number with its literal
        raise ConfigError(f"json: cannot unmarshal number {v} into Go struct field {path} of type {go_type}")
    return v


_INT_BITS = {"int32": 32, "int64": 64}


_json_kind = go_json_kind


def _parse_plugin_set(d: Any, path: str) -> PluginSet:
    if d is None:
        return PluginSet()
    _want(d, dict, path, "v1.PluginSet")
    _strict(d, {"enabled", "disabled"}, path)
    out = PluginSet()
    for key in ("enabled", "disabled"):
        lst = d.get(key) or []
        _want(lst, list, f"{path}.{key}", "[]v1.Plugin")
        for i, p in enumerate(lst):
            pp = f"{path}.{key}[{i}]"
            _want(p, dict, pp, "v1.Plugin")
            _strict(p, {"name", "weight"}, pp)
            name = _want(p.get("name", ""), str, f"{pp}.name", "string")
            weight = _want(p.get("weight"), int, f"{pp}.weight", "int32")
            getattr(out, key).append(Plugin(name, weight))
    return out


def _parse_plugins(d: Any, path: str) -> Plugins | None:
    if d is None:
        return None
    _want(d, dict, path, "v1.Plugins")
    _strict(d, set(_PLUGIN_FIELDS), path)
    out = Plugins()
    for key, ext in _PLUGIN_FIELDS.items():
        setattr(out, _EXT_TO_ATTR[ext], _parse_plugin_set(d.get(key), f"{path}.{key}"))
    return out


def _parse_profile(d: Any, path: str) -> KubeSchedulerProfile:
    _want(d, dict, path, "v1.KubeSchedulerProfile")
    _strict(d, _PROFILE_FIELDS, path)
    prof = KubeSchedulerProfile(scheduler_name=None)  # type: ignore[arg-type]
    if "schedulerName" in d:
        prof.scheduler_name = _want(d["schedulerName"], str, f"{path}.schedulerName", "string")
    prof.percentage_of_nodes_to_score = _want(d.get("percentageOfNodesToScore"), int, f"{path}.percentageOfNodesToScore", "int32")
    prof.plugins = _parse_plugins(d.get("plugins"), f"{path}.plugins")
    for i, pc in enumerate(d.get("pluginConfig") or []):
        pp = f"{path}.pluginConfig[{i}]"
        _want(pc, dict, pp, "v1.PluginConfig")
        _strict(pc, {"name", "args"}, pp)
        name = _want(pc.get("name", ""), str, f"{pp}.name", "string")
        args = pc.get("args")
        if args is not None:
            _want(args, dict, f"{pp}.args", "runtime.RawExtension")
            args = copy.deepcopy(dict(args))
            kind = args.pop("kind", None)
            args.pop("apiVersion", None)
            if name in _ARGS_FIELDS:
                if kind is not None and kind != f"{name}Args":
                    raise ConfigError(f"{pp}.args: Invalid value: {_go_str(kind)}: has to match plugin args")
                _strict(args, _ARGS_FIELDS[name], f"{pp}.args")
        prof.plugin_config.append(PluginConfig(name, args))
    return prof


# v1.Extender fields (camelCase) -> (Python type, Go type) for strict decoding.
_EXTENDER_FIELDS: dict[str, tuple[type, str]] = {
    "urlPrefix": (str, "string"),
    "filterVerb": (str, "string"),
    "preemptVerb": (str, "string"),
    "prioritizeVerb": (str, "string"),
    "weight": (int, "int64"),
    "bindVerb": (str, "string"),
    "enableHTTPS": (bool, "bool"),
    "tlsConfig": (dict, "v1.ExtenderTLSConfig"),
    "httpTimeout": (str, "v1.Duration"),
    "nodeCacheCapable": (bool, "bool"),
    "managedResources": (list, "[]v1.ExtenderManagedResource"),
    "ignorable": (bool, "bool"),
}
_EXTENDER_TLS_FIELDS: dict[str, tuple[type, str]] = {
    "insecure": (bool, "bool"),
    "serverName": (str, "string"),
    "certFile": (str, "string"),
    "keyFile": (str, "string"),
    "caFile": (str, "string"),
    "certData": (str, "[]uint8"),
    "keyData": (str, "[]uint8"),
    "caData": (str, "[]uint8"),
}


def _parse_extender(d: Any, path: str) -> dict[str, Any]:
    """Decode one ``v1.Extender`` strictly; the result keeps the given camelCase keys."""
    _want(d, dict, path, "v1.Extender")
    _strict(d, set(_EXTENDER_FIELDS), path)
    out: dict[str, Any] = {}
    for key, val in d.items():
        typ, go_type = _EXTENDER_FIELDS[key]
        _want(val, typ, f"{path}.{key}", go_type)
        if val is None:
            continue
        if key == "httpTimeout":
            try:
                parse_go_duration(val)
            except ValueError as e:
                raise ConfigError(f"{path}.httpTimeout: {e}") from None
        elif key == "tlsConfig":
            _strict(val, set(_EXTENDER_TLS_FIELDS), f"{path}.tlsConfig")
            for k, v in val.items():
                _want(v, _EXTENDER_TLS_FIELDS[k][0], f"{path}.tlsConfig.{k}", _EXTENDER_TLS_FIELDS[k][1])
        elif key == "managedResources":
            for j, r in enumerate(val):
                rp = f"{path}.managedResources[{j}]"
                _want(r, dict, rp, "v1.ExtenderManagedResource")
                _strict(r, {"name", "ignoredByScheduler"}, rp)
                _want(r.get("name"), str, f"{rp}.name", "string")
                _want(r.get("ignoredByScheduler"), bool, f"{rp}.ignoredByScheduler", "bool")
        out[key] = copy.deepcopy(val)
    return out


def parse_config(d: Mapping[str, Any]) -> KubeSchedulerConfiguration:
    """Decode a KubeSchedulerConfiguration mapping (as YAML loads it) without defaulting.

    Parameters
    ----------
    d : mapping
        Must carry ``apiVersion: kubescheduler.config.k8s.io/v1`` and
        ``kind: KubeSchedulerConfiguration``.

    Returns
    -------
    KubeSchedulerConfiguration
        Fields absent from ``d`` are None (profiles' ``scheduler_name`` too).

    Raises
    ------
    ConfigError
        Missing or unknown apiVersion/kind (the message names it), an unknown
        field (``strict decoding error: unknown field "profiles[0].foo"``) or a
        wrongly typed value.
    """
    if not isinstance(d, Mapping):
        raise ConfigError(f"couldn't decode KubeSchedulerConfiguration: expected a mapping, got {_json_kind(d)}")
    api_version = d.get("apiVersion")
    kind = d.get("kind")
    if not api_version:
        raise ConfigError("Object 'apiVersion' is missing in KubeSchedulerConfiguration")
    if not kind:
        raise ConfigError("Object 'Kind' is missing in KubeSchedulerConfiguration")
    if api_version != API_VERSION or kind != KIND:
        raise ConfigError(f'no kind "{kind}" is registered for version "{api_version}" in scheme '
                          f'"pkg/scheduler/apis/config/scheme/scheme.go"')
    _strict(d, _TOP_FIELDS, "")
    cfg = KubeSchedulerConfiguration()
    cfg.parallelism = _want(d.get("parallelism"), int, "parallelism", "int32")
    cfg.percentage_of_nodes_to_score = _want(d.get("percentageOfNodesToScore"), int, "percentageOfNodesToScore", "int32")
    cfg.pod_initial_backoff_seconds = _want(d.get("podInitialBackoffSeconds"), int, "podInitialBackoffSeconds", "int64")
    cfg.pod_max_backoff_seconds = _want(d.get("podMaxBackoffSeconds"), int, "podMaxBackoffSeconds", "int64")
    cfg.enable_profiling = _want(d.get("enableProfiling"), bool, "enableProfiling", "bool")
    cfg.enable_contention_profiling = _want(d.get("enableContentionProfiling"), bool, "enableContentionProfiling", "bool")
    cfg.delay_cache_until_active = _want(d.get("delayCacheUntilActive"), bool, "delayCacheUntilActive", "bool")
    cfg.leader_election = copy.deepcopy(_want(d.get("leaderElection"), dict, "leaderElection", "v1.LeaderElectionConfiguration"))
    cfg.client_connection = copy.deepcopy(_want(d.get("clientConnection"), dict, "clientConnection", "v1.ClientConnectionConfiguration"))
    extenders = _want(d.get("extenders"), list, "extenders", "[]v1.Extender") or []
    cfg.extenders = [_parse_extender(e, f"extenders[{i}]") for i, e in enumerate(extenders)]
    profiles = _want(d.get("profiles"), list, "profiles", "[]v1.KubeSchedulerProfile") or []
    cfg.profiles = [_parse_profile(p, f"profiles[{i}]") for i, p in enumerate(profiles)]
    return cfg


# --------------------------------------------------------------------------- defaults
def default_plugins() -> Plugins:
    """The v1.34 default plugin set: everything under ``multiPoint`` (``getDefaultPlugins``).

    Examples
    --------
    >>> [p.name for p in default_plugins().multi_point.enabled][:4]
    ['SchedulingGates', 'PrioritySort', 'NodeUnschedulable', 'NodeName']
    """
    n = names
    enabled = [
        Plugin(n.SCHEDULING_GATES),
        Plugin(n.PRIORITY_SORT),
        Plugin(n.NODE_UNSCHEDULABLE),
        Plugin(n.NODE_NAME),
        Plugin(n.TAINT_TOLERATION, 3),
        Plugin(n.NODE_AFFINITY, 2),
        Plugin(n.NODE_PORTS),
        Plugin(n.NODE_RESOURCES_FIT, 1),
        Plugin(n.VOLUME_RESTRICTIONS),
        Plugin(n.NODE_VOLUME_LIMITS),
        Plugin(n.VOLUME_BINDING),
        Plugin(n.VOLUME_ZONE),
        Plugin(n.POD_TOPOLOGY_SPREAD, 2),
        Plugin(n.INTER_POD_AFFINITY, 2),
        # DynamicResourceAllocation is GA (enabled) in v1.34: inserted before DefaultPreemption.
        Plugin(n.DYNAMIC_RESOURCES),
        Plugin(n.DEFAULT_PREEMPTION),
        Plugin(n.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
        Plugin(n.IMAGE_LOCALITY, 1),
        Plugin(n.DEFAULT_BINDER),
    ]
    return Plugins(multi_point=PluginSet(enabled=enabled))


def _merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    disabled_names: set[str] = set()
    disabled: list[Plugin] = []
    for p in list(custom.disabled) + list(default.disabled):
        disabled.append(Plugin(p.name))
        disabled_names.add(p.name)
    custom_index = {p.name: (i, p) for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[Plugin] = []
    if "*" not in disabled_names:
        for dp in default.enabled:
            if dp.name in disabled_names:
                continue
            if dp.name in custom_index:
                i, cp = custom_index[dp.name]
                dp = cp
                replaced.add(i)
            enabled.append(Plugin(dp.name, dp.weight))
    for i, p in enumerate(custom.enabled):
        if i not in replaced:
            enabled.append(Plugin(p.name, p.weight))
    return PluginSet(enabled=enabled, disabled=disabled)


def merge_plugins(default: Plugins, custom: Plugins | None) -> Plugins:
    """Merge a profile's plugins into the defaults, per extension point (``mergePlugins``).

    A custom ``enabled`` entry naming a default plugin replaces it in place
    (keeping the default order); other custom entries are appended; a
    ``disabled`` entry removes a default (``"*"`` removes all).

    Examples
    --------
    >>> custom = Plugins(multi_point=PluginSet(enabled=[Plugin("ImageLocality", 5)], disabled=[Plugin("NodeAffinity")]))
    >>> m = merge_plugins(default_plugins(), custom).multi_point
    >>> [(p.name, p.weight) for p in m.enabled if p.name in ("ImageLocality", "NodeAffinity")], [p.name for p in m.disabled]
    ([('ImageLocality', 5)], ['NodeAffinity'])
    """
    if custom is None:
        return default
    out = Plugins()
    for ext in _PLUGIN_FIELDS.values():
        attr = _EXT_TO_ATTR[ext]
        setattr(out, attr, _merge_plugin_set(getattr(default, attr), getattr(custom, attr)))
    return out


def _plugin_names(p: Plugins) -> list[str]:
    seen = set()
    for ext in _PLUGIN_FIELDS.values():
        seen.update(x.name for x in p.plugin_set(ext).enabled)
    return sorted(seen)


def _default_resources(resources: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if not resources:
        return [dict(r) for r in _DEFAULT_RESOURCE_SPEC]
    out = []
    for r in resources:
        r = dict(r)
        if not r.get("weight"):
            r["weight"] = 1
        out.append(r)
    return out


def _default_args(name: str, args: dict[str, Any] | None) -> dict[str, Any] | None:
    if name not in _ARGS_FIELDS:
        return args
    a = copy.deepcopy(args) if args is not None else {}
    if name == names.DEFAULT_PREEMPTION:
        a.setdefault("minCandidateNodesPercentage", 10)
        a.setdefault("minCandidateNodesAbsolute", 100)
        if a["minCandidateNodesPercentage"] is None:
            a["minCandidateNodesPercentage"] = 10
        if a["minCandidateNodesAbsolute"] is None:
            a["minCandidateNodesAbsolute"] = 100
    elif name == names.INTER_POD_AFFINITY:
        if a.get("hardPodAffinityWeight") is None:
            a["hardPodAffinityWeight"] = 1
        a.setdefault("ignorePreferredTermsOfExistingPods", False)
    elif name == names.NODE_RESOURCES_BALANCED_ALLOCATION:
        a["resources"] = _default_resources(a.get("resources"))
    elif name == names.NODE_RESOURCES_FIT:
        ss = a.get("scoringStrategy")
        if ss is None:
            ss = {"type": "LeastAllocated", "resources": [dict(r) for r in _DEFAULT_RESOURCE_SPEC]}
        else:
            ss = dict(ss)
            ss["resources"] = _default_resources(ss.get("resources"))
        a["scoringStrategy"] = ss
    elif name == names.POD_TOPOLOGY_SPREAD:
        if not a.get("defaultingType"):
            a["defaultingType"] = "System"
    elif name == names.VOLUME_BINDING:
        if a.get("bindTimeoutSeconds") is None:
            a["bindTimeoutSeconds"] = 600
    return a


def set_defaults(cfg: KubeSchedulerConfiguration) -> KubeSchedulerConfiguration:
    """Apply the v1 defaults in place (``SetDefaults_KubeSchedulerConfiguration``) and return ``cfg``.

    ``parallelism`` 16; one profile named ``default-scheduler`` when none is
    given (a single unnamed profile gets that name); each profile's plugins
    merged into :func:`default_plugins`; default args appended (sorted by
    plugin name) for plugins that have an args type; ``percentageOfNodesToScore`` 0;
    backoff 1 s / 10 s; profiling on.
    """
    if cfg.parallelism is None:
        cfg.parallelism = 16
    if not cfg.profiles:
        cfg.profiles.append(KubeSchedulerProfile(scheduler_name=None))  # type: ignore[arg-type]
    if len(cfg.profiles) == 1 and cfg.profiles[0].scheduler_name is None:
        cfg.profiles[0].scheduler_name = DEFAULT_SCHEDULER_NAME
    for prof in cfg.profiles:
        if prof.scheduler_name is None:
            prof.scheduler_name = ""
        prof.plugins = merge_plugins(default_plugins(), prof.plugins)
        existing = set()
        for pc in prof.plugin_config:
            existing.add(pc.name)
            pc.args = _default_args(pc.name, pc.args)
        for name in _plugin_names(prof.plugins):
            if name in existing or name not in _DEFAULTED_ARGS:
                continue
            prof.plugin_config.append(PluginConfig(name, _default_args(name, None)))
    if cfg.percentage_of_nodes_to_score is None:
        cfg.percentage_of_nodes_to_score = DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE
    if cfg.pod_initial_backoff_seconds is None:
        cfg.pod_initial_backoff_seconds = 1
    if cfg.pod_max_backoff_seconds is None:
        cfg.pod_max_backoff_seconds = 10
    if cfg.enable_profiling is None:
        cfg.enable_profiling = True
    if cfg.enable_profiling and cfg.enable_contention_profiling is None:
        cfg.enable_contention_profiling = True
    return cfg


# --------------------------------------------------------------------------- validation
def _go_str(s: Any) -> str:
    return json.dumps(str(s))


def _go_val(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return _go_str(v)
    return str(v)


def _invalid(path: str, value: Any, detail: str) -> str:
    return f"{path}: Invalid value: {_go_val(value)}: {detail}"


def _required(path: str, detail: str = "") -> str:
    return f"{path}: Required value" + (f": {detail}" if detail else "")


def _duplicate(path: str, value: Any) -> str:
    return f"{path}: Duplicate value: {_go_val(value)}"


def _not_supported(path: str, value: Any, supported: list[str]) -> str:
    return f"{path}: Unsupported value: {_go_val(value)}: supported values: " + ", ".join(_go_str(s) for s in supported)


def _forbidden(path: str, detail: str) -> str:
    return f"{path}: Forbidden: {detail}"


def _aggregate(errs: list[str]) -> str:
    seen: list[str] = []
    for e in errs:
        if e not in seen:
            seen.append(e)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


def _validate_label_name(v: str, path: str) -> list[str]:
    """``metav1validation.ValidateLabelName``: a field.Invalid for each of ``IsQualifiedName``'s messages."""
    return [_invalid(path, v, m) for m in is_qualified_name(v)]


def _validate_args(name: str, path: str, a: dict[str, Any]) -> list[str]:
    errs: list[str] = []
    if name == names.DEFAULT_PREEMPTION:
        pct, ab = a.get("minCandidateNodesPercentage", 0), a.get("minCandidateNodesAbsolute", 0)
        pp, ap = f"{path}.minCandidateNodesPercentage", f"{path}.minCandidateNodesAbsolute"
        if pct < 0 or pct > 100:
            errs.append(_invalid(pp, pct, "not in valid range [0, 100]"))
        if ab < 0:
            errs.append(_invalid(ap, ab, "not in valid range [0, inf)"))
        if pct == 0 and ab == 0:
            errs.append(_invalid(pp, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
            errs.append(_invalid(ap, ab, "cannot be zero at the same time as minCandidateNodesPercentage"))
    elif name == names.INTER_POD_AFFINITY:
        w = a.get("hardPodAffinityWeight", 0)
        if w < 0 or w > 100:
            errs.append(_invalid(f"{path}.hardPodAffinityWeight", w, "not in valid range [0, 100]"))
    elif name == names.NODE_RESOURCES_BALANCED_ALLOCATION:
        seen = set()
        for i, r in enumerate(a.get("resources") or []):
            rp = f"{path}.resources[{i}]"
            if r.get("name") in seen:
                errs.append(_duplicate(f"{rp}.name", r.get("name")))
            else:
                seen.add(r.get("name"))
            if r.get("weight") != 1:
                errs.append(_invalid(f"{rp}.weight", r.get("weight"), "must be 1"))
    elif name == names.POD_TOPOLOGY_SPREAD:
        dt = a.get("defaultingType", "")
        constraints = a.get("defaultConstraints") or []
        if dt not in ("System", "List"):
            errs.append(_not_supported(f"{path}.defaultingType", dt, ["System", "List"]))
        elif dt == "System" and constraints:
            errs.append(_invalid(f"{path}.defaultingType", dt, "when .defaultConstraints are not empty"))
        cp = f"{path}.defaultConstraints"
        for i, c in enumerate(constraints):
            p = f"{cp}[{i}]"
            if (c.get("maxSkew") or 0) <= 0:
                errs.append(_invalid(f"{p}.maxSkew", c.get("maxSkew") or 0, "not in valid range (0, inf)"))
            tk = c.get("topologyKey") or ""
            if not tk:
                errs.append(_required(f"{p}.topologyKey", "can not be empty"))
            else:
                errs.extend(_validate_label_name(tk, f"{p}.topologyKey"))
            wu = c.get("whenUnsatisfiable") or ""
            if not wu:
                errs.append(_required(f"{p}.whenUnsatisfiable", "can not be empty"))
            elif wu not in ("DoNotSchedule", "ScheduleAnyway"):
                errs.append(_not_supported(f"{p}.whenUnsatisfiable", wu, ["DoNotSchedule", "ScheduleAnyway"]))
            if c.get("labelSelector") is not None:
                errs.append(_forbidden(f"{p}.labelSelector", "constraint must not define a selector, as they deduced for each pod"))
            for j in range(i):
                o = constraints[j]
                if o.get("topologyKey") == c.get("topologyKey") and o.get("whenUnsatisfiable") == c.get("whenUnsatisfiable"):
                    errs.append(_duplicate(f"{cp}[{i}]", f"{{{c.get('topologyKey')}, {c.get('whenUnsatisfiable')}}}"))
                    break
    elif name == names.VOLUME_BINDING:
        bt = a.get("bindTimeoutSeconds", 0)
        if bt < 0:
            errs.append(_invalid(f"{path}.bindTimeoutSeconds", bt, "invalid BindTimeoutSeconds, should not be a negative value"))
        if a.get("shape") is not None:
            errs.append(f"{path}.shape: Invalid value: {json.dumps(a['shape'])}: unexpected field `shape`, remove it or "
                        "turn on the feature gate StorageCapacityScoring")
    # NodeResourcesFit is (as upstream, whose map key is "NodeResourcesFitArgs") validated by the plugin
    # factory; NodeAffinity's addedAffinity is validated by the NodeAffinity plugin factory.
    return errs


def _validate_extended_resource_name(path: str, name: str) -> list[str]:
    """``validateExtendedResourceName``: a qualified name that is an extended resource."""
    errs = [_invalid(path, name, m) for m in is_qualified_name(name)]
    if errs:
        return errs
    if not is_extended_resource_name(name):
        return [_invalid(path, name, "is an invalid extended resource name")]
    return []


def _validate_extenders(extenders: list[dict[str, Any]]) -> list[str]:
    """``validateExtenders``: a prioritizer needs a positive weight, one binder at most, managed resources unique."""
    errs: list[str] = []
    binders = 0
    managed: set[str] = set()
    for i, e in enumerate(extenders):
        path = f"extenders[{i}]"
        weight = e.get("weight") or 0
        if e.get("prioritizeVerb") and weight <= 0:
            errs.append(_invalid(f"{path}.weight", weight, "must have a positive weight applied to it"))
        if e.get("bindVerb"):
            binders += 1
        for j, r in enumerate(e.get("managedResources") or []):
            rp = f"{path}.managedResources[{j}].name"
            name = r.get("name") or ""
            errs.extend(_validate_extended_resource_name(rp, name))
            if name in managed:
                errs.append(_invalid(rp, name, "duplicate extender managed resource name"))
            managed.add(name)
    if binders > 1:
        errs.append(_invalid("extenders", f"found {binders} extenders implementing bind", "only one extender can implement bind"))
    return errs


def validate(cfg: KubeSchedulerConfiguration) -> None:
    """Validate a defaulted configuration (``ValidateKubeSchedulerConfiguration``).

    Raises
    ------
    ConfigError
        With upstream's aggregated message: one ``path: Invalid value: v: detail``
        error, or several in ``[a, b]``.

    Notes
    -----
    Plugin weights are not range-checked (upstream does not either: 0 means 1
    at framework construction). Unknown plugin names are reported when the
    framework is built (``FilterPlugin "Foo" does not exist``).
    """
    errs: list[str] = []
    if cfg.parallelism is not None and cfg.parallelism <= 0:
        errs.append(_invalid("parallelism", cfg.parallelism, "should be an integer value greater than zero"))
    if not cfg.profiles:
        errs.append(_required("profiles"))
    else:
        seen: dict[str, int] = {}
        for i, prof in enumerate(cfg.profiles):
            path = f"profiles[{i}]"
            if not prof.scheduler_name:
                errs.append(_required(f"{path}.schedulerName"))
            p = prof.percentage_of_nodes_to_score
            if p is not None and (p < 0 or p > 100):
                errs.append(_invalid(f"{path}.percentageOfNodesToScore", p, "not in valid range [0-100]"))
            if prof.plugins is not None:
                for key, ext in _PLUGIN_FIELDS.items():
                    if ext == "MultiPoint":
                        continue
                    for j, pl in enumerate(prof.plugins.plugin_set(ext).enabled):
                        if pl.name in _INVALID_V1_PLUGINS:
                            errs.append(_invalid(f"{path}.plugins.{key}.enabled[{j}]", pl.name,
                                                 f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version "{cfg.api_version}")'))
            seen_cfg: set[str] = set()
            for j, pc in enumerate(prof.plugin_config):
                pcp = f"{path}.pluginConfig[{j}]"
                if pc.name in seen_cfg:
                    errs.append(_duplicate(pcp, pc.name))
                else:
                    seen_cfg.add(pc.name)
                if pc.name in _INVALID_V1_PLUGINS:
                    errs.append(_invalid(pcp, pc.name, f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version "{cfg.api_version}")'))
                elif pc.name in _ARGS_FIELDS and pc.args is not None:
                    errs.extend(_validate_args(pc.name, f"{pcp}.args", pc.args))
            if prof.scheduler_name in seen:
                errs.append(_duplicate(f"{path}.schedulerName", f"profiles[{seen[prof.scheduler_name]}].schedulerName"))
            seen[prof.scheduler_name] = i
        errs.extend(_validate_common_queue_sort(cfg.profiles))
    p = cfg.percentage_of_nodes_to_score
    if p is not None and (p < 0 or p > 100):
        errs.append(_invalid("percentageOfNodesToScore", p, "not in valid range [0-100]"))
    if cfg.pod_initial_backoff_seconds is not None and cfg.pod_initial_backoff_seconds <= 0:
        errs.append(_invalid("podInitialBackoffSeconds", cfg.pod_initial_backoff_seconds, "must be greater than 0"))
    if (cfg.pod_max_backoff_seconds is not None and cfg.pod_initial_backoff_seconds is not None
            and cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds):
        errs.append(_invalid("podMaxBackoffSeconds", cfg.pod_max_backoff_seconds, "must be greater than or equal to PodInitialBackoffSeconds"))
    errs.extend(_validate_extenders(cfg.extenders))
    if errs:
        raise ConfigError(_aggregate(errs))


def _validate_common_queue_sort(profiles: list[KubeSchedulerProfile]) -> list[str]:
    errs = []
    first = profiles[0]
    canon = first.plugins.queue_sort if first.plugins is not None else PluginSet()
    qs_name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errs.append(_invalid("profiles[0].plugins.queueSort.Enabled", len(canon.enabled), "only one queue sort plugin can be enabled"))
    qs_args = first.args_for(qs_name) if qs_name else None
    for i in range(1, len(profiles)):
        cur = profiles[i].plugins.queue_sort if profiles[i].plugins is not None else PluginSet()
        if cur != canon:
            errs.append(f"profiles[{i}].plugins.queueSort: Invalid value: {json.dumps(cur.to_dict())}: must be the same for all profiles")
        for pc in profiles[i].plugin_config:
            if pc.name == qs_name and pc.args != qs_args:
                errs.append(f"profiles[{i}].pluginConfig.args: Invalid value: {json.dumps(pc.args)}: queueSort must be the same for all profiles")
    return errs


# --------------------------------------------------------------------------- entry points
def load_config(d: Mapping[str, Any]) -> KubeSchedulerConfiguration:
    """Parse, default and validate a KubeSchedulerConfiguration mapping.

    Raises
    ------
    ConfigError
        See :func:`parse_config` and :func:`validate`.
    """
    cfg = parse_config(d)
    set_defaults(cfg)
    validate(cfg)
    return cfg


def load_config_file(path: str) -> KubeSchedulerConfiguration:
    """:func:`load_config` on the first YAML document of ``path``.

    Raises
    ------
    ConfigError
        When the file cannot be read or parsed, or the configuration is invalid.
    """
    try:
        with open(path, encoding="utf-8") as f:
            docs = [x for _, x in load_documents(f.read()) if x is not None]  # as sigs.k8s.io/yaml reads it
    except OSError as e:
        raise ConfigError(f"unable to read config file {path!r}: {e.strerror}") from None
    except YAMLError as e:
        raise ConfigError(f"unable to decode config file {path!r}: {e}") from None
    if not docs:
        raise ConfigError(f"config file {path!r} is empty")
    return load_config(docs[0])


def default_config() -> KubeSchedulerConfiguration:
    """The configuration a kube-scheduler runs with when given none.

    Examples
    --------
    >>> default_config().percentage_of_nodes_to_score
    0
    """
    return load_config({"apiVersion": API_VERSION, "kind": KIND})


# --------------------------------------------------------------------------- overrides
#: ``NodeResourcesFitArgs.scoringStrategy.type`` values (``config.ScoringStrategyType``).
SCORING_STRATEGIES: tuple[str, ...] = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")

#: Shape used when RequestedToCapacityRatio is chosen without one: the bin-packing
#: example of the scheduler documentation (score 0 at 0 % utilization, 10 at 100 %).
DEFAULT_RTCR_SHAPE: tuple[dict[str, int], ...] = ({"utilization": 0, "score": 0}, {"utilization": 100, "score": 10})


def as_config_dict(config: Any = None) -> dict[str, Any]:
    """A KubeSchedulerConfiguration as the mapping a YAML file gives.

    Parameters
    ----------
    config : None, mapping, str, Path, Manifests or KubeSchedulerConfiguration
        None for the default configuration; a mapping as read from YAML; a
        path to a YAML file; a :class:`~kubenotes.api.manifests.Manifests`
        holding one (its first); or a loaded configuration (its ``to_dict()``).

    Returns
    -------
    dict
        A deep copy (camelCase keys), safe to edit.

    Raises
    ------
    ValueError
        When a path or Manifests holds no KubeSchedulerConfiguration.

    See Also
    --------
    config_with, load_config, kubenotes.api.manifests.load_manifests

    Examples
    --------
    >>> as_config_dict()["kind"]
    'KubeSchedulerConfiguration'
    """
    if config is None:
        return {"apiVersion": API_VERSION, "kind": KIND}
    if isinstance(config, Mapping):
        return copy.deepcopy(dict(config))
    if isinstance(config, (str, Path)):
        config = load_manifests(config)
    if hasattr(config, "scheduler_configs"):
        found = config.scheduler_configs
        if not found:
            raise ValueError("no KubeSchedulerConfiguration in the given manifests")
        return copy.deepcopy(dict(found[0]))
    return config.to_dict()


def config_with(config: Any = None, *, weights: Mapping[str, int] | None = None, strategy: str | None = None) -> Any:
    """Load a configuration with Score weights and the NodeResourcesFit scoring strategy overridden.

    The overrides are written the way a user writes them in YAML: an
    ``enabled`` entry ``{name, weight}`` under the first profile's
    ``plugins.multiPoint`` (which replaces the default entry in place), and
    ``pluginConfig[NodeResourcesFit].args.scoringStrategy.type``.

    Parameters
    ----------
    config : any, optional
        See :func:`as_config_dict`.
    weights : mapping of str to int, optional
        Score plugin -> weight (upstream treats 0 as 1).
    strategy : str, optional
        One of :data:`SCORING_STRATEGIES`. RequestedToCapacityRatio gets
        :data:`DEFAULT_RTCR_SHAPE` when the configuration has no shape.

    Returns
    -------
    KubeSchedulerConfiguration
        Parsed, defaulted and validated by :func:`load_config`.

    Raises
    ------
    ConfigError
        When the result is not a valid configuration.
    ValueError
        When ``strategy`` is not a known scoring strategy.

    See Also
    --------
    as_config_dict, load_config, kubenotes.scheduler.whatif.score_weights

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/default_plugins.go
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/types_pluginargs.go (NodeResourcesFitArgs, ScoringStrategy)
    https://kubernetes.io/docs/reference/scheduling/config/

    Examples
    --------
    >>> from kubenotes.scheduler.whatif import score_weights
    >>> cfg = config_with(weights={"ImageLocality": 5}, strategy="MostAllocated")
    >>> score_weights(cfg)["ImageLocality"], cfg.profiles[0].args_for("NodeResourcesFit")["scoringStrategy"]["type"]
    (5, 'MostAllocated')
    """
    d = as_config_dict(config)
    profiles = d.setdefault("profiles", [])
    if not profiles:
        profiles.append({})
    prof = profiles[0]
    if weights:
        plugins = prof.get("plugins") or {}
        prof["plugins"] = plugins
        mp = plugins.get("multiPoint") or {}
        plugins["multiPoint"] = mp
        enabled = list(mp.get("enabled") or [])
        for name, w in weights.items():
            for e in enabled:
                if e.get("name") == name:
                    e["weight"] = int(w)
                    break
            else:
                enabled.append({"name": name, "weight": int(w)})
        mp["enabled"] = enabled
    if strategy is not None:
        if strategy not in SCORING_STRATEGIES:
            raise ValueError(f"unknown scoring strategy {strategy!r}; one of {', '.join(SCORING_STRATEGIES)}")
        pcs = prof.get("pluginConfig") or []
        prof["pluginConfig"] = pcs
        entry = next((pc for pc in pcs if pc.get("name") == "NodeResourcesFit"), None)
        if entry is None:
            entry = {"name": "NodeResourcesFit", "args": {}}
            pcs.append(entry)
        args = entry.get("args") or {}
        entry["args"] = args
        ss = args.get("scoringStrategy") or {}
        args["scoringStrategy"] = ss
        ss["type"] = strategy
        if strategy == "RequestedToCapacityRatio" and not (ss.get("requestedToCapacityRatio") or {}).get("shape"):
            ss["requestedToCapacityRatio"] = {"shape": [dict(p) for p in DEFAULT_RTCR_SHAPE]}
    return load_config(d)
