"""The PodTopologySpread plugin and its factory with ``PodTopologySpreadArgs`` defaults and validation.

Mirrors ``pkg/scheduler/framework/plugins/podtopologyspread/plugin.go`` and the
``PodTopologySpreadArgs`` parts of ``pkg/scheduler/apis/config/v1/defaults.go`` and
``pkg/scheduler/apis/config/validation/validation_pluginargs.go``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/plugin.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/validation/validation_pluginargs.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/defaults.go
https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/
"""

from __future__ import annotations

from kubenotes.api.validation import is_qualified_name

import re
from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.errors import ConfigError
from kubenotes.scheduler.plugins.names import POD_TOPOLOGY_SPREAD as NAME
from kubenotes.scheduler.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    TopologySpreadConstraint,
    _spec_constraint_get,
    build_default_constraints,
    filter_topology_spread_constraints,
)
from kubenotes.scheduler.plugins.podtopologyspread.filtering import FilteringMixin
from kubenotes.scheduler.plugins.podtopologyspread.scoring import ScoringMixin

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.node_info import PodInfo

__all__ = [
    "NAME",
    "SYSTEM_DEFAULTING",
    "LIST_DEFAULTING",
    "PodTopologySpread",
    "validate_args",
    "new",
]

#: ``defaultingType: System`` (the v1 default): use the built-in constraints.
SYSTEM_DEFAULTING = "System"
#: ``defaultingType: List``: use ``defaultConstraints`` as given.
LIST_DEFAULTING = "List"

_ARG_KEYS = {"defaultConstraints", "defaultingType", "apiVersion", "kind"}


class PodTopologySpread(FilteringMixin, ScoringMixin):
    """Spread pods evenly across topology domains (PreFilter, Filter, PreScore, Score).

    Parameters
    ----------
    handle : Handle
        ``handle.snapshot`` (nodes) and ``handle.objects`` (Services, controllers
        for default constraints).
    default_constraints : list of dict
        Constraints applied to pods that declare none (camelCase keys, no selector).
    system_defaulted : bool
        True when ``defaultingType: System``; then nodes without a zone label
        still take part in hostname spreading.

    See Also
    --------
    kubenotes.scheduler.plugins.podtopologyspread.filtering : PreFilter/Filter (``DoNotSchedule``).
    kubenotes.scheduler.plugins.podtopologyspread.scoring : PreScore/Score (``ScheduleAnyway``).
    kubenotes.scheduler.plugins.selectorspread.SelectorSpread : the legacy plugin it replaced.

    Notes
    -----
    v1.34 default feature gates are fixed on: node inclusion policies, minDomains,
    matchLabelKeys. Queueing hints (``EventsToRegister``) and in-place resize
    deferral are not modelled. kubenotes' fast path
    (:mod:`kubenotes.scheduler.fast.podtopologyspread`) has batch forms for the
    untraced scheduler and counts matching pods per node incrementally for
    PreFilter/PreScore; both give exactly the per-node results.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/plugin.go

    Examples
    --------
    >>> import types
    >>> pl = PodTopologySpread(types.SimpleNamespace(snapshot=None, objects=None), [], False)
    >>> pl.name()
    'PodTopologySpread'
    """

    def __init__(self, handle: Any, default_constraints: list[Mapping[str, Any]], system_defaulted: bool):
        self.handle = handle
        self.default_constraints = list(default_constraints)
        self.system_defaulted = system_defaulted
        # The defaults parsed per action, when that does not read the pod (no matchLabelKeys).
        self._parsed_defaults: dict[str, list[TopologySpreadConstraint]] | None = None
        if not any(_spec_constraint_get(c, "matchLabelKeys") for c in self.default_constraints):
            self._parsed_defaults = {}

    def name(self) -> str:
        """``PodTopologySpread``."""
        return NAME

    def get_constraints(self, pod: "PodInfo", action: str) -> list[TopologySpreadConstraint]:
        """The pod's own constraints for ``action``, or the default ones when it declares none (``getConstraints``).

        Raises
        ------
        FieldError
            When a label selector is malformed.
        """
        spec_constraints = pod.pod.spec.topologySpreadConstraints
        if spec_constraints:
            return filter_topology_spread_constraints(spec_constraints, pod.labels, action)
        parsed = None
        if self._parsed_defaults is not None:
            parsed = self._parsed_defaults.get(action)
            if parsed is None:
                parsed = self._parsed_defaults[action] = filter_topology_spread_constraints(
                    self.default_constraints, {}, action)
        return build_default_constraints(self.default_constraints, pod, getattr(self.handle, "objects", None), action,
                                         parsed)


def _quote(v: Any) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(v)




def _label_name_errors(path: str, value: str) -> list[str]:
    """``metav1validation.ValidateLabelName`` field errors (``IsQualifiedName`` messages)."""
    return [f"{path}: Invalid value: {_quote(value)}: {e}" for e in is_qualified_name(value)]


def validate_args(defaulting_type: Any, default_constraints: list[Mapping[str, Any]]) -> list[str]:
    """Field errors of ``PodTopologySpreadArgs`` (``ValidatePodTopologySpreadArgs``), in upstream order.

    Parameters
    ----------
    defaulting_type : str
        ``System`` or ``List``.
    default_constraints : list of dict
        camelCase ``TopologySpreadConstraint`` dicts.

    Returns
    -------
    list[str]
        One message per field error, formatted like ``field.Error.Error()``.

    Examples
    --------
    >>> validate_args("System", [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}])
    ['defaultingType: Invalid value: "System": when .defaultConstraints are not empty']
    >>> validate_args("List", [{"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "DoNotSchedule"}])
    ['defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)', 'defaultConstraints[0].topologyKey: Required value: can not be empty']
    """
    errs: list[str] = []
    if defaulting_type not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(f'defaultingType: Unsupported value: {_quote(defaulting_type)}: supported values: "System", "List"')
    elif defaulting_type == SYSTEM_DEFAULTING and default_constraints:
        errs.append(f"defaultingType: Invalid value: {_quote(defaulting_type)}: when .defaultConstraints are not empty")
    for i, c in enumerate(default_constraints):
        p = f"defaultConstraints[{i}]"
        max_skew = c.get("maxSkew", 0)
        if not isinstance(max_skew, int) or isinstance(max_skew, bool) or max_skew <= 0:
            errs.append(f"{p}.maxSkew: Invalid value: {_quote(max_skew)}: not in valid range (0, inf)")
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(f"{p}.topologyKey: Required value: can not be empty")
        else:
            errs.extend(_label_name_errors(f"{p}.topologyKey", key))
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errs.append(f"{p}.whenUnsatisfiable: Required value: can not be empty")
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.append(f'{p}.whenUnsatisfiable: Unsupported value: {_quote(when)}: supported values: "DoNotSchedule", "ScheduleAnyway"')
        if c.get("labelSelector") is not None:
            errs.append(f"{p}.labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod")
        for other in default_constraints[:i]:
            if other.get("topologyKey") == c.get("topologyKey") and other.get("whenUnsatisfiable") == c.get("whenUnsatisfiable"):
                errs.append(f'defaultConstraints[{i}]: Duplicate value: "{{{c.get("topologyKey")}, {c.get("whenUnsatisfiable")}}}"')
                break
    return errs


def _aggregate(errs: list[str]) -> str:
    uniq = list(dict.fromkeys(errs))
    return uniq[0] if len(uniq) == 1 else "[" + ", ".join(uniq) + "]"


def new(args: Mapping[str, Any] | None, handle: Any) -> PodTopologySpread:
    """Build PodTopologySpread from raw ``PodTopologySpreadArgs`` (camelCase keys).

    Parameters
    ----------
    args : mapping or None
        ``defaultingType`` (default ``System`` in v1) and ``defaultConstraints``
        (default none). ``apiVersion``/``kind`` keys are ignored.
    handle : Handle
        Needs ``snapshot`` and ``objects``.

    Returns
    -------
    PodTopologySpread

    Raises
    ------
    ConfigError
        On unknown keys or when validation fails; the message matches
        upstream's aggregated field errors.

    Examples
    --------
    >>> import types
    >>> pl = new(None, types.SimpleNamespace(snapshot=None, objects=None))
    >>> pl.system_defaulted, [c["topologyKey"] for c in pl.default_constraints]
    (True, ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'])
    >>> new({"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Maybe"}]}, None)
    Traceback (most recent call last):
    ...
    kubenotes.errors.ConfigError: defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"
    """
    args = dict(args or {})
    unknown = sorted(set(args) - _ARG_KEYS)
    if unknown:
        raise ConfigError(f'PodTopologySpreadArgs: unknown field "{unknown[0]}"')
    defaulting_type = args.get("defaultingType") or SYSTEM_DEFAULTING
    default_constraints = [dict(c) for c in args.get("defaultConstraints") or ()]
    errs = validate_args(defaulting_type, default_constraints)
    if errs:
        raise ConfigError(_aggregate(errs))
    if defaulting_type == SYSTEM_DEFAULTING:
        return PodTopologySpread(handle, [dict(c) for c in SYSTEM_DEFAULT_CONSTRAINTS], True)
    return PodTopologySpread(handle, default_constraints, False)
