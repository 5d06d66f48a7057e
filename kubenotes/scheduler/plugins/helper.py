"""Helpers shared by the in-tree scheduler plugins.

Mirrors ``pkg/scheduler/framework/plugins/helper`` of kube-scheduler:
:func:`default_normalize_score` (``normalize_score.go``), the broken-linear
scoring shape (``shape_score.go``) and the taint filter used by Filter plugins
(``taint.go``). It also holds the small pieces of upstream behaviour several
plugins rely on and that would otherwise be copied between modules:

* Go's integer arithmetic (:func:`go_div` truncates toward zero,
  :func:`go_round_div` rounds half away from zero like ``math.Round``);
* resource-name classification (``v1helper.IsExtendedResourceName``,
  ``schedutil.IsScalarResourceName``);
* the ``field.Error`` message format used by plugin-argument validation
  (``validation_pluginargs.go``), so :class:`kubenotes.errors.ConfigError`
  carries upstream's exact text.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/normalize_score.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/shape_score.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/taint.go
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/helpers.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/util/utils.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from kubenotes.api.validation import is_qualified_name
from kubenotes.api.resources import (  # noqa: F401 - re-exported: v1helper's names, kept by the API layer
    ATTACHABLE_VOLUMES_PREFIX,
    DEFAULT_RESOURCE_REQUESTS_PREFIX,
    HUGEPAGES_PREFIX,
    RESOURCE_DEFAULT_NAMESPACE_PREFIX,
    is_attachable_volume_resource_name,
    is_extended_resource_name,
    is_hugepage_resource_name,
    is_native_resource,
    is_scalar_resource_name,
)
from kubenotes.scheduler.framework.interface import NodeScore, Status

__all__ = [
    "reject_args",
    "go_div",
    "go_round_div",
    "default_normalize_score",
    "FunctionShapePoint",
    "build_broken_linear_function",
    "do_not_schedule_taints_filter",
    "RESOURCE_DEFAULT_NAMESPACE_PREFIX",
    "DEFAULT_RESOURCE_REQUESTS_PREFIX",
    "HUGEPAGES_PREFIX",
    "ATTACHABLE_VOLUMES_PREFIX",
    "is_native_resource",
    "is_extended_resource_name",
    "is_hugepage_resource_name",
    "is_attachable_volume_resource_name",
    "is_scalar_resource_name",
    "field_invalid",
    "field_required",
    "field_forbidden",
    "field_duplicate",
    "field_not_supported",
    "aggregate_errors",
    "validate_label_name",
]


# ---------------------------------------------------------------------------
# Go integer arithmetic
# ---------------------------------------------------------------------------


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``/`` on ``int64``.

    Python's ``//`` floors, which differs for negative quotients; scores built
    from decreasing shapes (``RequestedToCapacityRatio``) need Go's rule.

    Parameters
    ----------
    a, b : int
        Dividend and (non-zero) divisor.

    Returns
    -------
    int

    Raises
    ------
    ZeroDivisionError
        When ``b`` is 0 (Go panics).

    Examples
    --------
    >>> go_div(7, 2), go_div(-7, 2), -7 // 2
    (3, -3, -4)
    """
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def go_round_div(a: int, b: int) -> int:
    """``int64(math.Round(float64(a) / float64(b)))`` computed exactly on integers.

    Rounds half away from zero (Go's ``math.Round``), not to even as Python's
    :func:`round` does.

    Parameters
    ----------
    a, b : int
        Dividend and positive divisor.

    Returns
    -------
    int

    Raises
    ------
    ZeroDivisionError
        When ``b`` is 0.

    Examples
    --------
    >>> go_round_div(5, 2), round(5 / 2), go_round_div(-5, 2)
    (3, 2, -3)
    """
    sign = -1 if (a < 0) != (b < 0) else 1
    q, r = divmod(abs(a), abs(b))
    if 2 * r >= abs(b):
        q += 1
    return sign * q


# ---------------------------------------------------------------------------
# normalize_score.go
# ---------------------------------------------------------------------------


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> Status:
    """Rescale scores from ``[0, max(scores)]`` to ``[0, max_priority]`` in place (``DefaultNormalizeScore``).

    With ``reverse`` each result is subtracted from ``max_priority``, so the
    node with the highest raw score gets 0. When every raw score is 0 nothing
    changes, except that ``reverse`` turns all of them into ``max_priority``.

    Parameters
    ----------
    max_priority : int
        Upper bound of the result, normally ``MAX_NODE_SCORE`` (100).
    reverse : bool
        Reverse the scale (used by TaintToleration: fewer intolerable taints is better).
    scores : list[NodeScore]
        Raw, non-negative integer scores; modified in place.

    Returns
    -------
    Status
        Always ``Success``.

    Notes
    -----
    Integer arithmetic as upstream: ``max_priority * score // max(scores)``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/normalize_score.go

    Examples
    --------
    >>> s = [NodeScore("a", 1), NodeScore("b", 2), NodeScore("c", 4)]
    >>> _ = default_normalize_score(100, False, s); [x.score for x in s]
    [25, 50, 100]
    >>> _ = default_normalize_score(100, True, s); [x.score for x in s]
    [75, 50, 0]
    """
    max_count = 0
    for s in scores:
        if s.score > max_count:
            max_count = s.score
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return Status()
    for s in scores:
        score = go_div(max_priority * s.score, max_count)
        if reverse:
            score = max_priority - score
        s.score = score
    return Status()


# ---------------------------------------------------------------------------
# shape_score.go
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FunctionShapePoint:
    """One corner of a broken-linear function (``helper.FunctionShapePoint``).

    Attributes
    ----------
    utilization : int
        Function argument, percent of capacity (0-100).
    score : int
        Function value at that point.
    """

    utilization: int
    score: int


def build_broken_linear_function(shape: Sequence[FunctionShapePoint]) -> Callable[[int], int]:
    """A piecewise-linear function through the points of ``shape`` (``BuildBrokenLinearFunction``).

    ``f(p)`` is ``shape[0].score`` left of the first point, ``shape[-1].score``
    right of the last one, and linear in between, evaluated with Go's integer
    arithmetic (truncation toward zero).

    Parameters
    ----------
    shape : sequence of FunctionShapePoint
        Points sorted by increasing utilization (validation guarantees it).

    Returns
    -------
    callable(int) -> int

    Raises
    ------
    IndexError
        When the returned function is called on an empty shape (upstream panics).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/helper/shape_score.go

    Examples
    --------
    >>> f = build_broken_linear_function([FunctionShapePoint(0, 2), FunctionShapePoint(40, 10),
    ...                                   FunctionShapePoint(100, 0)])
    >>> [f(p) for p in (-10, 20, 40, 70, 110)]
    [2, 6, 10, 5, 0]
    """
    points = [(int(p.utilization), int(p.score)) for p in shape]

    def f(p: int) -> int:
        for i, (u, s) in enumerate(points):
            if p <= u:
                if i == 0:
                    return points[0][1]
                pu, ps = points[i - 1]
                return ps + go_div((s - ps) * (p - pu), u - pu)
        return points[-1][1]

    return f


# ---------------------------------------------------------------------------
# taint.go
# ---------------------------------------------------------------------------


def do_not_schedule_taints_filter(taint: Any) -> bool:
    """True for taints that block scheduling: effect ``NoSchedule`` or ``NoExecute`` (``DoNotScheduleTaintsFilterFunc``).

    Parameters
    ----------
    taint : lightkube.models.core_v1.Taint
        A node taint.

    Returns
    -------
    bool

    Examples
    --------
    >>> from lightkube.models.core_v1 import Taint
    >>> do_not_schedule_taints_filter(Taint(key="k", effect="NoExecute"))
    True
    >>> do_not_schedule_taints_filter(Taint(key="k", effect="PreferNoSchedule"))
    False
    """
    return taint.effect in ("NoSchedule", "NoExecute")


# ---------------------------------------------------------------------------
# Resource names (v1helper, schedutil)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# field.Error formatting (apimachinery/pkg/util/validation/field)
# ---------------------------------------------------------------------------


def _bad_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def field_invalid(path: str, value: Any, detail: str) -> str:
    """``field.Invalid(path, value, detail).Error()``.

    Examples
    --------
    >>> field_invalid("scoringStrategy.resources[0].weight", -1, "resource weight of memory not in valid range (0, 100]")
    'scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid range (0, 100]'
    """
    s = f"{path}: Invalid value: {_bad_value(value)}"
    return f"{s}: {detail}" if detail else s


def field_required(path: str, detail: str) -> str:
    """``field.Required(path, detail).Error()``."""
    return f"{path}: Required value: {detail}" if detail else f"{path}: Required value"


def field_forbidden(path: str, detail: str) -> str:
    """``field.Forbidden(path, detail).Error()``."""
    return f"{path}: Forbidden: {detail}" if detail else f"{path}: Forbidden"


def field_duplicate(path: str, value: Any) -> str:
    """``field.Duplicate(path, value).Error()``.

    Examples
    --------
    >>> field_duplicate("resources[1].name", "cpu")
    'resources[1].name: Duplicate value: "cpu"'
    """
    return f"{path}: Duplicate value: {_bad_value(value)}"


def field_not_supported(path: str, value: Any, valid: Iterable[str]) -> str:
    """``field.NotSupported(path, value, valid).Error()``.

    Examples
    --------
    >>> field_not_supported("scoringStrategy.type", "Foo", ["LeastAllocated", "MostAllocated"])
    'scoringStrategy.type: Unsupported value: "Foo": supported values: "LeastAllocated", "MostAllocated"'
    """
    quoted = ", ".join(_bad_value(v) for v in valid)
    s = f"{path}: Unsupported value: {_bad_value(value)}"
    return f"{s}: supported values: {quoted}" if quoted else s


def aggregate_errors(errors: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message as is, several as ``[a, b]`` (duplicates dropped).

    Examples
    --------
    >>> aggregate_errors(["a"]), aggregate_errors(["a", "b", "a"])
    ('a', '[a, b]')
    """
    seen: list[str] = []
    for e in errors:
        if e not in seen:
            seen.append(e)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


def validate_label_name(name: str, path: str) -> list[str]:
    """``metav1validation.ValidateLabelName``: one ``Invalid value`` message per qualified-name problem.

    Examples
    --------
    >>> validate_label_name("example.com/aaa", "ignoredResources[0]")
    []
    >>> validate_label_name("/x", "ignoredResources[0]")
    ['ignoredResources[0]: Invalid value: "/x": prefix part must be non-empty']
    """
    return [field_invalid(path, name, msg) for msg in is_qualified_name(name)]


def reject_args(plugin: str, args: Any) -> None:
    """Refuse pluginConfig args for a plugin that has no args type (``apiVersion``/``kind`` are allowed).

    Raises
    ------
    ConfigError
        ``<plugin> takes no arguments: unknown field "<first field>"``.

    Examples
    --------
    >>> reject_args("VolumeZone", {"apiVersion": "kubescheduler.config.k8s.io/v1"})
    >>> reject_args("VolumeZone", {"zones": 1})
    Traceback (most recent call last):
    ...
    kubenotes.errors.ConfigError: VolumeZone takes no arguments: unknown field "zones"
    """
    from kubenotes.errors import ConfigError

    extra = sorted(set(args or {}) - {"apiVersion", "kind"})
    if extra:
        raise ConfigError(f'{plugin} takes no arguments: unknown field "{extra[0]}"')
