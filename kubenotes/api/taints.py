"""Taints and tolerations: which toleration tolerates which taint.

Mirrors the helpers behind the scheduler's TaintToleration plugin and the
taint manager: ``Toleration.ToleratesTaint`` and ``Taint.ToString`` from
``k8s.io/api/core/v1`` and ``TolerationsTolerateTaint`` /
``FindMatchingUntoleratedTaint`` from ``k8s.io/component-helpers``
(re-exported by ``pkg/apis/core/v1/helper``). They work on lightkube
``Taint``/``Toleration`` models (or dicts with the same camelCase keys).

Matching rules (v1.34):

* an empty toleration ``effect`` matches every effect, otherwise effects must be equal;
* an empty toleration ``key`` matches every key (valid only with ``Exists``);
* operator ``Exists`` ignores the value; ``Equal`` (also the empty operator)
  compares values; any other operator tolerates nothing;
* ``tolerationSeconds`` plays no part in matching (it only bounds how long a
  ``NoExecute`` taint is tolerated).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/toleration.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/taint.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go
https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

__all__ = [
    "TAINT_EFFECT_NO_SCHEDULE",
    "TAINT_EFFECT_PREFER_NO_SCHEDULE",
    "TAINT_EFFECT_NO_EXECUTE",
    "TOLERATION_OP_EQUAL",
    "TOLERATION_OP_EXISTS",
    "tolerates",
    "tolerations_tolerate_taint",
    "find_matching_untolerated_taint",
    "taint_string",
    "match_taint",
    "match_toleration",
]

#: ``v1.TaintEffectNoSchedule``: new pods that do not tolerate it are not scheduled.
TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
#: ``v1.TaintEffectPreferNoSchedule``: the scheduler tries to avoid the node.
TAINT_EFFECT_PREFER_NO_SCHEDULE = "PreferNoSchedule"
#: ``v1.TaintEffectNoExecute``: running pods that do not tolerate it are evicted.
TAINT_EFFECT_NO_EXECUTE = "NoExecute"
#: ``v1.TolerationOpEqual`` (what an empty operator means).
TOLERATION_OP_EQUAL = "Equal"
#: ``v1.TolerationOpExists``.
TOLERATION_OP_EXISTS = "Exists"


def _s(obj: Any, name: str) -> str:
    if isinstance(obj, dict):
        return obj.get(name) or ""
    return getattr(obj, name, None) or ""


def tolerates(toleration: Any, taint: Any) -> bool:
    """True when ``toleration`` tolerates ``taint`` (``Toleration.ToleratesTaint``).

    Parameters
    ----------
    toleration : lightkube.models.core_v1.Toleration or dict
        Fields ``key``, ``operator``, ``value``, ``effect``
        (``tolerationSeconds`` is ignored).
    taint : lightkube.models.core_v1.Taint or dict
        Fields ``key``, ``value``, ``effect``.

    Returns
    -------
    bool

    Notes
    -----
    Follows the v1.34 helper literally, so an empty key with operator
    ``Equal`` matches any key whose taint value equals the toleration's value
    (API validation forbids that toleration). The ``Gt``/``Lt`` toleration
    operators of later releases are not part of v1.34 and tolerate nothing.

    See Also
    --------
    find_matching_untolerated_taint : apply it to a node's taints.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/toleration.go

    Examples
    --------
    >>> from lightkube.models.core_v1 import Taint, Toleration
    >>> taint = Taint(key="gpu", value="a100", effect="NoSchedule")
    >>> tolerates(Toleration(key="gpu", operator="Exists"), taint)
    True
    >>> tolerates(Toleration(key="gpu", value="h100", effect="NoSchedule"), taint)
    False
    >>> tolerates(Toleration(operator="Exists"), taint)
    True
    """
    if isinstance(toleration, dict) or isinstance(taint, dict):
        t_effect, t_key, op = _s(toleration, "effect"), _s(toleration, "key"), _s(toleration, "operator")
        if t_effect and t_effect != _s(taint, "effect"):
            return False
        if t_key and t_key != _s(taint, "key"):
            return False
        if not op or op == TOLERATION_OP_EQUAL:
            return _s(toleration, "value") == _s(taint, "value")
        return op == TOLERATION_OP_EXISTS
    # Fast path for lightkube models (None and "" both mean unset).
    t_effect = toleration.effect
    if t_effect and t_effect != taint.effect:
        return False
    t_key = toleration.key
    if t_key and t_key != taint.key:
        return False
    op = toleration.operator
    if not op or op == TOLERATION_OP_EQUAL:
        return (toleration.value or "") == (taint.value or "")
    return op == TOLERATION_OP_EXISTS


def tolerations_tolerate_taint(tolerations: Iterable[Any] | None, taint: Any) -> bool:
    """True when any of ``tolerations`` tolerates ``taint`` (``TolerationsTolerateTaint``).

    Parameters
    ----------
    tolerations : iterable of Toleration or dict, or None
    taint : Taint or dict

    Examples
    --------
    >>> from lightkube.models.core_v1 import Taint, Toleration
    >>> tolerations_tolerate_taint([Toleration(key="a", operator="Exists")], Taint(key="b", effect="NoSchedule"))
    False
    """
    for t in tolerations or ():
        if tolerates(t, taint):
            return True
    return False


def find_matching_untolerated_taint(
    taints: Iterable[Any] | None,
    tolerations: Iterable[Any] | None,
    inclusion_filter: Callable[[Any], bool] | None = None,
) -> Any | None:
    """The first taint passing ``inclusion_filter`` that no toleration tolerates.

    Mirrors ``FindMatchingUntoleratedTaint``, whose ``(taint, bool)`` result
    becomes "the taint, or ``None`` when every filtered taint is tolerated".

    Parameters
    ----------
    taints : iterable of Taint or dict, or None
        A node's ``spec.taints`` in order.
    tolerations : iterable of Toleration or dict, or None
        A pod's ``spec.tolerations``.
    inclusion_filter : callable, optional
        ``taint -> bool``; only taints for which it is true are considered
        (the scheduler passes "effect is NoSchedule or NoExecute"). ``None``
        considers every taint.

    Returns
    -------
    Taint or dict or None
        The first untolerated taint (the same object that was passed in).

    See Also
    --------
    tolerates : the rule for one toleration and one taint.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go

    Examples
    --------
    >>> from lightkube.models.core_v1 import Taint, Toleration
    >>> taints = [Taint(key="a", effect="PreferNoSchedule"), Taint(key="b", value="1", effect="NoSchedule")]
    >>> hard = lambda t: t.effect in ("NoSchedule", "NoExecute")
    >>> taint_string(find_matching_untolerated_taint(taints, [], hard))
    'b=1:NoSchedule'
    >>> find_matching_untolerated_taint(taints, [Toleration(key="b", operator="Exists")], hard) is None
    True
    """
    tolerations = list(tolerations or ())
    for taint in taints or ():
        if inclusion_filter is not None and not inclusion_filter(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


def taint_string(taint: Any) -> str:
    """A taint in ``key=value:effect`` form (``Taint.ToString``).

    Also ``key=value:`` (no effect), ``key:effect`` (no value) and ``key``.

    Examples
    --------
    >>> from lightkube.models.core_v1 import Taint
    >>> [taint_string(t) for t in (Taint(key="k", value="v", effect="NoSchedule"), Taint(key="k", value="v", effect=""),
    ...                            Taint(key="k", effect="NoExecute"), Taint(key="k", effect=""))]
    ['k=v:NoSchedule', 'k=v:', 'k:NoExecute', 'k']
    """
    key, value, effect = _s(taint, "key"), _s(taint, "value"), _s(taint, "effect")
    if not effect:
        return f"{key}={value}:" if value else key
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def match_taint(a: Any, b: Any) -> bool:
    """True when two taints have the same key and effect (``Taint.MatchTaint``; taints are unique by ``key:effect``)."""
    return _s(a, "key") == _s(b, "key") and _s(a, "effect") == _s(b, "effect")


def match_toleration(a: Any, b: Any) -> bool:
    """True when two tolerations have the same key, operator, value and effect (``Toleration.MatchToleration``)."""
    return all(_s(a, f) == _s(b, f) for f in ("key", "effect", "operator", "value"))
