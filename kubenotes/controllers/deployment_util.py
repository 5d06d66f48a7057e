"""The Deployment controller's arithmetic and bookkeeping, as pure functions over dicts.

Mirrors ``k8s.io/kubernetes/pkg/controller/deployment/util`` (``deployment_util.go``)
and ``intstr.GetScaledValueFromIntOrPercent``: how ``maxSurge`` and
``maxUnavailable`` resolve (surge rounds up, unavailable rounds down, and if
both come to 0 unavailable becomes 1), how large the new ReplicaSet may grow
(:func:`new_rs_new_replicas`), how a scaling event is shared out between
ReplicaSets (:func:`get_proportion`), the revision and replica annotations, the
Progressing/Available conditions and their reasons.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/util/deployment_util.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any, Iterable

from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.controller_utils import (
    DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
    filter_active_replica_sets,
    replica_sets_by_creation_timestamp,
    timestamp_seconds,
)

__all__ = [
    "REVISION_ANNOTATION", "REVISION_HISTORY_ANNOTATION", "DESIRED_REPLICAS_ANNOTATION", "MAX_REPLICAS_ANNOTATION",
    "LAST_APPLIED_CONFIG_ANNOTATION", "DEPRECATED_ROLLBACK_TO", "ANNOTATIONS_TO_SKIP",
    "MAX_REV_HISTORY_LENGTH_IN_CHARS",
    "ROLLBACK_REVISION_NOT_FOUND", "ROLLBACK_TEMPLATE_UNCHANGED", "ROLLBACK_DONE",
    "REPLICA_SET_UPDATED_REASON", "FAILED_RS_CREATE_REASON", "NEW_REPLICA_SET_REASON", "FOUND_NEW_RS_REASON",
    "NEW_RS_AVAILABLE_REASON", "TIMED_OUT_REASON", "PAUSED_DEPLOY_REASON", "RESUMED_DEPLOY_REASON",
    "MINIMUM_REPLICAS_AVAILABLE", "MINIMUM_REPLICAS_UNAVAILABLE", "MINIMUM_REPLICAS_AVAILABLE_MESSAGE",
    "MINIMUM_REPLICAS_UNAVAILABLE_MESSAGE", "DEPLOYMENT_PAUSED_MESSAGE", "DEPLOYMENT_RESUMED_MESSAGE",
    "get_scaled_value_from_int_or_percent", "resolve_fenceposts", "max_surge_and_unavailable", "max_surge",
    "max_unavailable", "min_available", "is_rolling_update", "new_rs_new_replicas", "get_proportion",
    "get_replica_set_proportion",
    "get_replica_set_fraction", "round_to_int32", "is_saturated", "find_active_or_latest", "equal_ignore_hash",
    "find_new_replica_set", "find_old_replica_sets", "set_from_replica_set_template", "revision",
    "max_revision", "last_revision", "set_deployment_revision", "set_new_replica_set_annotations",
    "set_replicas_annotations", "replicas_annotations_need_update", "get_desired_replicas_annotation",
    "get_max_replicas_annotation", "set_deployment_annotations_to", "new_deployment_condition",
    "get_deployment_condition", "set_deployment_condition", "remove_deployment_condition",
    "replica_set_to_deployment_condition", "get_replica_count_for_replica_sets",
    "get_actual_replica_count_for_replica_sets", "get_ready_replica_count_for_replica_sets",
    "get_available_replica_count_for_replica_sets", "deployment_complete", "deployment_progressing",
    "deployment_timed_out", "has_progress_deadline", "has_revision_history_limit", "replica_sets_by_revision",
    "replicas_of",
]

REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
#: ``v1.LastAppliedConfigAnnotation``.
LAST_APPLIED_CONFIG_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
#: ``apps.DeprecatedRollbackTo``: the controller-side rollback request (an annotation since apps/v1).
DEPRECATED_ROLLBACK_TO = "deprecated.deployment.rollback.to"
#: Annotations never copied between a Deployment and its ReplicaSets (``annotationsToSkip``).
ANNOTATIONS_TO_SKIP = frozenset({LAST_APPLIED_CONFIG_ANNOTATION, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION,
                                 DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, DEPRECATED_ROLLBACK_TO})
#: ``maxRevHistoryLengthInChars`` (sync.go): the revision-history annotation is kept under 2000 characters.
MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000

ROLLBACK_REVISION_NOT_FOUND = "DeploymentRollbackRevisionNotFound"
ROLLBACK_TEMPLATE_UNCHANGED = "DeploymentRollbackTemplateUnchanged"
ROLLBACK_DONE = "DeploymentRollback"

# Progressing condition reasons
REPLICA_SET_UPDATED_REASON = "ReplicaSetUpdated"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
NEW_REPLICA_SET_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
TIMED_OUT_REASON = "ProgressDeadlineExceeded"
PAUSED_DEPLOY_REASON = "DeploymentPaused"
RESUMED_DEPLOY_REASON = "DeploymentResumed"
# Available condition reasons
MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"
MINIMUM_REPLICAS_AVAILABLE_MESSAGE = "Deployment has minimum availability."
MINIMUM_REPLICAS_UNAVAILABLE_MESSAGE = "Deployment does not have minimum availability."
DEPLOYMENT_PAUSED_MESSAGE = "Deployment is paused"
DEPLOYMENT_RESUMED_MESSAGE = "Deployment is resumed"

_INT32_MAX = 2**31 - 1


def replicas_of(obj: dict | None) -> int:
    """``*spec.replicas`` (1 when unset, the API default)."""
    if obj is None:
        return 0
    r = (obj.get("spec") or {}).get("replicas")
    return 1 if r is None else int(r)


def _status(obj: dict, field: str) -> int:
    return int((obj.get("status") or {}).get(field) or 0)


# --------------------------------------------------------------------------- maxSurge / maxUnavailable


def get_scaled_value_from_int_or_percent(value: int | str | None, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``: an int as is, ``"N%"`` of ``total`` rounded up or down.

    Raises
    ------
    ValueError
        ``nil value for IntOrString``, or ``invalid value for IntOrString: ...`` for a
        string that is not a percentage (upstream's messages).

    Examples
    --------
    >>> get_scaled_value_from_int_or_percent("25%", 10, True), get_scaled_value_from_int_or_percent("25%", 10, False)
    (3, 2)
    >>> get_scaled_value_from_int_or_percent(2, 10, True)
    2
    """
    if value is None:
        raise ValueError("nil value for IntOrString")
    if isinstance(value, bool):
        raise ValueError("invalid value for IntOrString: invalid type: neither int nor percentage")
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        raise ValueError("invalid value for IntOrString: invalid type: neither int nor percentage")
    if not value.endswith("%"):
        raise ValueError("invalid value for IntOrString: invalid type: string is not a percentage")
    try:
        v = int(value[:-1])
    except ValueError:
        raise ValueError(f'invalid value for IntOrString: invalid value "{value}": strconv.Atoi: parsing '
                         f'"{value[:-1]}": invalid syntax') from None
    scaled = float(v) * float(total) / 100
    return int(math.ceil(scaled)) if round_up else int(math.floor(scaled))


def resolve_fenceposts(max_surge_value: int | str | None, max_unavailable_value: int | str | None,
                       desired: int) -> tuple[int, int]:
    """``ResolveFenceposts``: (surge, unavailable) for ``desired`` replicas; never both 0.

    A missing value counts as 0. Surge rounds up, unavailable rounds down;
    if both resolve to 0, unavailable becomes 1 ("surge might not work due to quota").

    Examples
    --------
    >>> resolve_fenceposts("25%", "25%", 10), resolve_fenceposts("0%", "1%", 2), resolve_fenceposts(1, 0, 3)
    ((3, 2), (0, 1), (1, 0))
    """
    surge = get_scaled_value_from_int_or_percent(0 if max_surge_value is None else max_surge_value, desired, True)
    unavailable = get_scaled_value_from_int_or_percent(0 if max_unavailable_value is None else max_unavailable_value,
                                                       desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def is_rolling_update(deployment: dict) -> bool:
    """``IsRollingUpdate``."""
    return ((deployment.get("spec") or {}).get("strategy") or {}).get("type") == "RollingUpdate"


def _rolling(deployment: dict) -> dict:
    return ((deployment.get("spec") or {}).get("strategy") or {}).get("rollingUpdate") or {}


def max_surge_and_unavailable(deployment: dict) -> tuple[int, int]:
    """(``MaxSurge``, ``MaxUnavailable``) of a Deployment: what one rollout step may add and take away.

    For a ``Recreate`` Deployment both are 0; ``MaxUnavailable`` is also 0 for
    0 replicas and never more than the replicas.

    Parameters
    ----------
    deployment : dict
        With ``spec.replicas`` and ``spec.strategy``.

    Returns
    -------
    tuple of (int, int)

    Examples
    --------
    >>> d = {"spec": {"replicas": 10, "strategy": {"type": "RollingUpdate",
    ...      "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}}}
    >>> max_surge_and_unavailable(d)
    (3, 2)
    """
    return max_surge(deployment), max_unavailable(deployment)


def max_surge(deployment: dict) -> int:
    """``MaxSurge``: surge pods a rolling Deployment may run above ``spec.replicas``."""
    if not is_rolling_update(deployment):
        return 0
    ru = _rolling(deployment)
    surge, _ = resolve_fenceposts(ru.get("maxSurge"), ru.get("maxUnavailable"), replicas_of(deployment))
    return surge


def max_unavailable(deployment: dict) -> int:
    """``MaxUnavailable``: pods a rolling Deployment may have unavailable (capped at ``spec.replicas``)."""
    replicas = replicas_of(deployment)
    if not is_rolling_update(deployment) or replicas == 0:
        return 0
    ru = _rolling(deployment)
    _, unavailable = resolve_fenceposts(ru.get("maxSurge"), ru.get("maxUnavailable"), replicas)
    return min(unavailable, replicas)


def min_available(deployment: dict) -> int:
    """``MinAvailable``: ``spec.replicas - MaxUnavailable`` for a rolling Deployment (0 for Recreate)."""
    if not is_rolling_update(deployment):
        return 0
    return replicas_of(deployment) - max_unavailable(deployment)


def new_rs_new_replicas(deployment: dict, all_rss: Iterable[dict | None], new_rs: dict) -> int:
    """``NewRSNewReplicas``: the size the new ReplicaSet may have now.

    RollingUpdate: grow it by what ``replicas + maxSurge`` leaves over the sum
    of every ReplicaSet's ``spec.replicas``, but not beyond ``spec.replicas``.
    Recreate: ``spec.replicas`` at once.

    Parameters
    ----------
    deployment : dict
    all_rss : iterable of dict
        Old and new ReplicaSets.
    new_rs : dict

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For another strategy type (``deployment type X isn't supported``) or a bad maxSurge.

    Examples
    --------
    >>> d = {"spec": {"replicas": 10, "strategy": {"type": "RollingUpdate",
    ...      "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}}}
    >>> old, new = {"spec": {"replicas": 10}}, {"spec": {"replicas": 0}}
    >>> new_rs_new_replicas(d, [old, new], new)          # 10 + ceil(2.5) - 10
    3
    """
    strategy = ((deployment.get("spec") or {}).get("strategy") or {}).get("type")
    replicas = replicas_of(deployment)
    if strategy == "RollingUpdate":
        surge = get_scaled_value_from_int_or_percent(_rolling(deployment).get("maxSurge"), replicas, True)
        current = get_replica_count_for_replica_sets(all_rss)
        max_total = replicas + surge
        if current >= max_total:
            return replicas_of(new_rs)
        scale_up = min(max_total - current, replicas - replicas_of(new_rs))
        return replicas_of(new_rs) + scale_up
    if strategy == "Recreate":
        return replicas
    raise ValueError(f"deployment type {strategy} isn't supported")


def round_to_int32(a: float) -> int:
    """``integer.RoundToInt32``: round half away from zero."""
    return int(a - 0.5) if a < 0 else int(a + 0.5)


def get_max_replicas_annotation(rs: dict) -> int | None:
    """``getMaxReplicasAnnotation``."""
    return _int_annotation(rs, MAX_REPLICAS_ANNOTATION)


def get_desired_replicas_annotation(rs: dict) -> int | None:
    """``GetDesiredReplicasAnnotation``."""
    return _int_annotation(rs, DESIRED_REPLICAS_ANNOTATION)


def _int_annotation(rs: dict, key: str) -> int | None:
    """``getNonNegativeInt32FromAnnotation``: a decimal in [0, MaxInt32], else None."""
    v = (rs.get("metadata", {}).get("annotations") or {}).get(key)
    if v is None or not v.isdigit():
        return None
    n = int(v)
    return n if n <= _INT32_MAX else None


def get_replica_set_fraction(rs: dict, deployment: dict) -> int:
    """``getReplicaSetFraction``: how many replicas ``rs`` gains (or loses) in proportion to its share.

    ``round(rs.replicas x (d.replicas + maxSurge) / max-replicas annotation) - rs.replicas``;
    a missing or 0 annotation falls back to ``d.status.replicas`` (0 there: no change);
    scaling the Deployment to 0 removes the whole ReplicaSet.

    Examples
    --------
    >>> d = {"spec": {"replicas": 100, "strategy": {"type": "RollingUpdate",
    ...      "rollingUpdate": {"maxSurge": 10, "maxUnavailable": 1}}}, "status": {}}
    >>> rs = {"metadata": {"annotations": {MAX_REPLICAS_ANNOTATION: "130"}}, "spec": {"replicas": 50}}
    >>> get_replica_set_fraction(rs, d)      # round(50 x 110 / 130) - 50
    -8
    """
    if replicas_of(deployment) == 0:
        return -replicas_of(rs)
    deployment_max_replicas = replicas_of(deployment) + max_surge(deployment)
    before = get_max_replicas_annotation(rs)
    if not before:
        before = _status(deployment, "replicas")
        if before == 0:
            return 0
    new_size = float(replicas_of(rs) * deployment_max_replicas) / float(before)
    return round_to_int32(new_size) - replicas_of(rs)


def get_replica_set_proportion(rs: dict | None, deployment: dict, deployment_replicas_to_add: int,
                               deployment_replicas_added: int) -> int:
    """``GetReplicaSetProportion`` (``GetProportion`` before v1.33): what ``rs`` gains or loses in a scaling event.

    The ReplicaSet's fraction, but never more than what is left to add (when
    scaling up) or to remove (when scaling down).

    Parameters
    ----------
    rs : dict or None
    deployment : dict
        With the new ``spec.replicas``.
    deployment_replicas_to_add : int
        ``(replicas + maxSurge) - sum of ReplicaSet sizes`` (negative to scale down).
    deployment_replicas_added : int
        What earlier ReplicaSets in this round already took.

    Returns
    -------
    int

    Examples
    --------
    A Deployment of 10 (maxSurge 3) mid-rollout (old 8, new 5, annotated max 13) scaled to 20 (maxSurge 5):
    25 allowed, 12 to add; the old ReplicaSet's share is round(8 × 25 / 13) - 8 = 7.

    >>> d = {"spec": {"replicas": 20, "strategy": {"type": "RollingUpdate",
    ...      "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}}}
    >>> old = {"metadata": {"annotations": {MAX_REPLICAS_ANNOTATION: "13"}}, "spec": {"replicas": 8}}
    >>> get_replica_set_proportion(old, d, 12, 0)
    7
    """
    if rs is None or replicas_of(rs) == 0 or deployment_replicas_to_add == 0 or \
            deployment_replicas_to_add == deployment_replicas_added:
        return 0
    fraction = get_replica_set_fraction(rs, deployment)
    allowed = deployment_replicas_to_add - deployment_replicas_added
    if deployment_replicas_to_add > 0:
        return min(fraction, allowed)
    return max(fraction, allowed)


#: The pre-v1.33 name of :func:`get_replica_set_proportion`.
get_proportion = get_replica_set_proportion


def is_saturated(deployment: dict, rs: dict | None) -> bool:
    """``IsSaturated``: the new ReplicaSet has (and is annotated for) all replicas, all available."""
    if rs is None:
        return False
    desired = get_desired_replicas_annotation(rs)
    if desired is None:
        return False
    n = replicas_of(deployment)
    return replicas_of(rs) == n and desired == n and _status(rs, "availableReplicas") == n


def find_active_or_latest(new_rs: dict | None, old_rss: list[dict]) -> dict | None:
    """``FindActiveOrLatest``: the only active ReplicaSet, or the newest if none is active; None if several are."""
    if new_rs is None and not old_rss:
        return None
    old_sorted = list(reversed(replica_sets_by_creation_timestamp(old_rss)))
    active = filter_active_replica_sets(old_sorted + [new_rs])
    if not active:
        return new_rs if new_rs is not None else old_sorted[0]
    if len(active) == 1:
        return active[0]
    return None


# --------------------------------------------------------------------------- templates and revisions


def equal_ignore_hash(template1: dict, template2: dict) -> bool:
    """``EqualIgnoreHash``: two pod templates equal apart from the ``pod-template-hash`` label.

    Compared semantically (nil and empty alike) and, when they differ as
    given, once more with the API server's pod-spec defaults applied to both.

    Notes
    -----
    Upstream both templates always carry the server's defaults (every write
    is defaulted when decoded). The model's API server defaults creates only,
    so a template patched in without defaults would never equal the
    (defaulted) template of the ReplicaSet made from it; comparing the
    defaulted forms gives upstream's answer.

    Examples
    --------
    >>> a = {"metadata": {"labels": {"app": "a", "pod-template-hash": "x"}}, "spec": {"containers": []}}
    >>> equal_ignore_hash(a, {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": []}})
    True
    """
    return _equal_stripped(_strip_hash(template1), _strip_hash(template2))


def _equal_stripped(a: dict, b: dict) -> bool:
    # equal_ignore_hash of two templates already through _strip_hash
    if a == b:
        return True
    try:
        return _defaulted(json.dumps(a, sort_keys=True)) == _defaulted(json.dumps(b, sort_keys=True))
    except Exception:  # not decodable as a PodTemplateSpec: the plain comparison stands
        return False


@functools.lru_cache(maxsize=4096)
def _defaulted(text: str) -> str:
    from kubenotes.api.defaults import scheme_defaulted_pod_template

    return json.dumps(_semantic(scheme_defaulted_pod_template(json.loads(text))), sort_keys=True)


def _semantic(v: Any) -> Any:
    # apiequality.Semantic.DeepEqual treats nil and empty maps/slices alike: drop empty values
    # (a fresh copy: containers are rebuilt, scalars shared).
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if isinstance(x, (dict, list)):
                x = _semantic(x)
                if not x:
                    continue
            elif x is None:
                continue
            out[k] = x
        return out
    if isinstance(v, list):
        return [_semantic(x) if isinstance(x, (dict, list)) else x for x in v]
    return v


def _strip_hash(t: dict) -> dict:
    # Only the path to the label is copied before the label goes: _semantic copies the rest.
    t = t or {}
    labels = (t.get("metadata") or {}).get("labels")
    if labels and DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY in labels:
        labels = {k: v for k, v in labels.items() if k != DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY}
        t = {**t, "metadata": {**t["metadata"], "labels": labels}}
    return _semantic(t)


def _template(obj: dict) -> dict:
    return (obj.get("spec") or {}).get("template") or {}


def find_new_replica_set(deployment: dict, rs_list: Iterable[dict]) -> dict | None:
    """``FindNewReplicaSet``: the oldest ReplicaSet whose template equals the Deployment's (ignoring the hash)."""
    want = None  # the Deployment's template through _strip_hash, made once
    for rs in replica_sets_by_creation_timestamp(rs_list):
        if want is None:
            want = _strip_hash(_template(deployment))
        if _equal_stripped(_strip_hash(_template(rs)), want):
            return rs
    return None


def find_old_replica_sets(deployment: dict, rs_list: list[dict]) -> tuple[list[dict], list[dict]]:
    """``FindOldReplicaSets``: (old ReplicaSets with replicas, all old ReplicaSets)."""
    new_rs = find_new_replica_set(deployment, rs_list)
    required, all_old = [], []
    for rs in rs_list:
        if new_rs is not None and rs["metadata"].get("uid") == new_rs["metadata"].get("uid"):
            continue
        all_old.append(rs)
        if replicas_of(rs) != 0:
            required.append(rs)
    return required, all_old


def set_from_replica_set_template(deployment: dict, template: dict) -> dict:
    """``SetFromReplicaSetTemplate``: put a ReplicaSet's template (without the hash label) into the Deployment."""
    t = deep_copy(template)
    labels = dict((t.get("metadata") or {}).get("labels") or {})
    labels.pop(DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, None)
    t.setdefault("metadata", {})["labels"] = labels
    deployment.setdefault("spec", {})["template"] = t
    return deployment


def revision(obj: dict) -> int:
    """``Revision``: the ``deployment.kubernetes.io/revision`` annotation (0 when missing).

    Raises
    ------
    ValueError
        When the annotation is not an integer.
    """
    v = (obj.get("metadata", {}).get("annotations") or {}).get(REVISION_ANNOTATION)
    if v is None:
        return 0
    return int(v)


def _revision_or_none(obj: dict) -> int | None:
    try:
        return revision(obj)
    except ValueError:
        return None


def max_revision(all_rss: Iterable[dict]) -> int:
    """``MaxRevision``: the highest revision among the ReplicaSets (unparsable ones skipped)."""
    return max((v for v in (_revision_or_none(rs) for rs in all_rss if rs is not None) if v is not None), default=0)


def last_revision(all_rss: Iterable[dict]) -> int:
    """``LastRevision``: the second highest revision."""
    mx = sec = 0
    for rs in all_rss:
        v = _revision_or_none(rs) if rs is not None else None
        if v is None:
            continue
        if v >= mx:
            sec, mx = mx, v
        elif v > sec:
            sec = v
    return sec


def set_deployment_revision(deployment: dict, rev: str) -> bool:
    """``SetDeploymentRevision``: True when the Deployment's revision annotation changed."""
    ann = deployment["metadata"].setdefault("annotations", {})
    if ann.get(REVISION_ANNOTATION) != rev:
        ann[REVISION_ANNOTATION] = rev
        return True
    return False


def _copy_deployment_annotations_to_replica_set(deployment: dict, rs: dict) -> bool:
    changed = False
    ann = rs["metadata"].setdefault("annotations", {})
    for k, v in (deployment["metadata"].get("annotations") or {}).items():
        if k in ANNOTATIONS_TO_SKIP or ann.get(k) == v:
            continue
        ann[k] = v
        changed = True
    return changed


def set_replicas_annotations(rs: dict, desired_replicas: int, max_replicas: int) -> bool:
    """``SetReplicasAnnotations``: write desired-replicas and max-replicas; True when they changed."""
    ann = rs["metadata"].setdefault("annotations", {})
    updated = False
    for key, value in ((DESIRED_REPLICAS_ANNOTATION, str(desired_replicas)),
                       (MAX_REPLICAS_ANNOTATION, str(max_replicas))):
        if ann.get(key) != value:
            ann[key] = value
            updated = True
    return updated


def replicas_annotations_need_update(rs: dict, desired_replicas: int, max_replicas: int) -> bool:
    """``ReplicasAnnotationsNeedUpdate``."""
    ann = rs["metadata"].get("annotations")
    if ann is None:
        return True
    return ann.get(DESIRED_REPLICAS_ANNOTATION) != str(desired_replicas) or \
        ann.get(MAX_REPLICAS_ANNOTATION) != str(max_replicas)


def set_new_replica_set_annotations(deployment: dict, new_rs: dict, new_revision: str, exists: bool,
                                    rev_history_limit_in_chars: int = MAX_REV_HISTORY_LENGTH_IN_CHARS) -> bool:
    """``SetNewReplicaSetAnnotations``: copy the Deployment's annotations, raise the revision, keep its history.

    When an existing ReplicaSet gets a higher revision (a rollback to it), the
    revisions it served before go into ``deployment.kubernetes.io/revision-history``.
    A ReplicaSet about to be created also gets the replica annotations.

    Returns
    -------
    bool
        Whether any annotation changed.

    Examples
    --------
    >>> d = {"metadata": {"annotations": {"team": "a"}}, "spec": {"replicas": 3, "strategy": {"type": "Recreate"}}}
    >>> rs = {"metadata": {"annotations": {REVISION_ANNOTATION: "1"}}}
    >>> set_new_replica_set_annotations(d, rs, "3", True), rs["metadata"]["annotations"]
    (True, {'deployment.kubernetes.io/revision': '3', 'team': 'a', 'deployment.kubernetes.io/revision-history': '1'})
    """
    changed = _copy_deployment_annotations_to_replica_set(deployment, new_rs)
    ann = new_rs["metadata"].setdefault("annotations", {})
    old_revision = ann.get(REVISION_ANNOTATION)
    had = old_revision is not None
    try:
        old_int = int(old_revision) if old_revision else 0
    except ValueError:
        return False
    try:
        new_int = int(new_revision)
    except ValueError:
        return False
    if old_int < new_int:
        ann[REVISION_ANNOTATION] = new_revision
        changed = True
    if had and old_int < new_int:
        history = ann.get(REVISION_HISTORY_ANNOTATION, "")
        old_revisions = history.split(",")
        if not old_revisions[0]:
            ann[REVISION_HISTORY_ANNOTATION] = old_revision
        else:
            total = len(history) + len(old_revision) + 1
            start = 0
            while total > rev_history_limit_in_chars and start < len(old_revisions):
                total -= len(old_revisions[start]) + 1
                start += 1
            if total <= rev_history_limit_in_chars:
                ann[REVISION_HISTORY_ANNOTATION] = ",".join(old_revisions[start:] + [old_revision])
    if not exists and set_replicas_annotations(new_rs, replicas_of(deployment),
                                               replicas_of(deployment) + max_surge(deployment)):
        changed = True
    return changed


def set_deployment_annotations_to(deployment: dict, rollback_to_rs: dict) -> None:
    """``SetDeploymentAnnotationsTo``: the Deployment takes the ReplicaSet's annotations (skipped ones kept)."""
    ann = {k: v for k, v in (deployment["metadata"].get("annotations") or {}).items() if k in ANNOTATIONS_TO_SKIP}
    for k, v in (rollback_to_rs["metadata"].get("annotations") or {}).items():
        if k not in ANNOTATIONS_TO_SKIP:
            ann[k] = v
    deployment["metadata"]["annotations"] = ann


# --------------------------------------------------------------------------- conditions


def new_deployment_condition(ctype: str, status: str, reason: str, message: str, now: str) -> dict:
    """``NewDeploymentCondition`` (``lastUpdateTime`` and ``lastTransitionTime`` = now)."""
    return {"type": ctype, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message}


def get_deployment_condition(status: dict | None, ctype: str) -> dict | None:
    """``GetDeploymentCondition``."""
    for c in (status or {}).get("conditions") or ():
        if c.get("type") == ctype:
            return c
    return None


def set_deployment_condition(status: dict, condition: dict) -> None:
    """``SetDeploymentCondition``: replace the condition of its type unless status and reason are unchanged.

    ``lastTransitionTime`` is kept when only the reason changes.
    """
    cur = get_deployment_condition(status, condition["type"])
    if cur is not None and cur.get("status") == condition["status"] and cur.get("reason") == condition["reason"]:
        return
    condition = dict(condition)
    if cur is not None and cur.get("status") == condition["status"]:
        condition["lastTransitionTime"] = cur.get("lastTransitionTime")
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != condition["type"]] + \
        [condition]


def remove_deployment_condition(status: dict, ctype: str) -> None:
    """``RemoveDeploymentCondition``."""
    conds = [c for c in status.get("conditions") or [] if c.get("type") != ctype]
    if conds:
        status["conditions"] = conds
    else:
        status.pop("conditions", None)


def replica_set_to_deployment_condition(cond: dict) -> dict:
    """``ReplicaSetToDeploymentCondition``: promote a ReplicaSet's ``ReplicaFailure`` condition."""
    return {"type": cond.get("type"), "status": cond.get("status"), "lastUpdateTime": cond.get("lastTransitionTime"),
            "lastTransitionTime": cond.get("lastTransitionTime"), "reason": cond.get("reason"),
            "message": cond.get("message")}


# --------------------------------------------------------------------------- counting


def get_replica_count_for_replica_sets(rss: Iterable[dict | None]) -> int:
    """``GetReplicaCountForReplicaSets``: the sum of ``spec.replicas``."""
    return sum(replicas_of(rs) for rs in rss if rs is not None)


def get_actual_replica_count_for_replica_sets(rss: Iterable[dict | None]) -> int:
    """``GetActualReplicaCountForReplicaSets``: the sum of ``status.replicas``."""
    return sum(_status(rs, "replicas") for rs in rss if rs is not None)


def get_ready_replica_count_for_replica_sets(rss: Iterable[dict | None]) -> int:
    """``GetReadyReplicaCountForReplicaSets``."""
    return sum(_status(rs, "readyReplicas") for rs in rss if rs is not None)


def get_available_replica_count_for_replica_sets(rss: Iterable[dict | None]) -> int:
    """``GetAvailableReplicaCountForReplicaSets``."""
    return sum(_status(rs, "availableReplicas") for rs in rss if rs is not None)


# --------------------------------------------------------------------------- progress


def deployment_complete(deployment: dict, new_status: dict) -> bool:
    """``DeploymentComplete``: every replica updated and available, no old pods, generation observed."""
    n = replicas_of(deployment)
    return int(new_status.get("updatedReplicas") or 0) == n and int(new_status.get("replicas") or 0) == n and \
        int(new_status.get("availableReplicas") or 0) == n and \
        int(new_status.get("observedGeneration") or 0) >= int(deployment["metadata"].get("generation") or 0)


def deployment_progressing(deployment: dict, new_status: dict) -> bool:
    """``DeploymentProgressing``: more updated, ready or available pods, or fewer old ones, than before."""
    old = deployment.get("status") or {}

    def g(s: dict, k: str) -> int:
        return int(s.get(k) or 0)

    old_old = g(old, "replicas") - g(old, "updatedReplicas")
    new_old = g(new_status, "replicas") - g(new_status, "updatedReplicas")
    return g(new_status, "updatedReplicas") > g(old, "updatedReplicas") or new_old < old_old or \
        g(new_status, "readyReplicas") > g(old, "readyReplicas") or \
        g(new_status, "availableReplicas") > g(old, "availableReplicas")


def has_progress_deadline(deployment: dict) -> bool:
    """``HasProgressDeadline``: ``progressDeadlineSeconds`` set and not MaxInt32."""
    p = (deployment.get("spec") or {}).get("progressDeadlineSeconds")
    return p is not None and int(p) != _INT32_MAX


def has_revision_history_limit(deployment: dict) -> bool:
    """``HasRevisionHistoryLimit``: ``revisionHistoryLimit`` set and not MaxInt32."""
    r = (deployment.get("spec") or {}).get("revisionHistoryLimit")
    return r is not None and int(r) != _INT32_MAX


def deployment_timed_out(deployment: dict, new_status: dict, now_seconds: float) -> bool:
    """``DeploymentTimedOut``: the Progressing condition was last updated more than ``progressDeadlineSeconds`` ago.

    Never after ``NewReplicaSetAvailable``; always once ``ProgressDeadlineExceeded`` is set.

    Examples
    --------
    >>> d = {"spec": {"progressDeadlineSeconds": 600}}
    >>> st = {"conditions": [{"type": "Progressing", "reason": "ReplicaSetUpdated",
    ...                       "lastUpdateTime": "2025-08-27T00:00:00Z"}]}
    >>> deployment_timed_out(d, st, 600.0), deployment_timed_out(d, st, 600.5)
    (False, True)
    """
    if not has_progress_deadline(deployment):
        return False
    cond = get_deployment_condition(new_status, "Progressing")
    if cond is None:
        return False
    if cond.get("reason") == NEW_RS_AVAILABLE_REASON:
        return False
    if cond.get("reason") == TIMED_OUT_REASON:
        return True
    since = timestamp_seconds(cond.get("lastUpdateTime")) or 0.0
    return since + int(deployment["spec"]["progressDeadlineSeconds"]) < now_seconds


def replica_sets_by_revision(rss: Iterable[dict]) -> list[dict]:
    """``ReplicaSetsByRevision``: lowest revision first (creation time, then name, for ties or bad revisions)."""
    import functools

    def cmp(a: dict, b: dict) -> int:
        ra, rb = _revision_or_none(a), _revision_or_none(b)
        if ra is None or rb is None or ra == rb:
            ka = (timestamp_seconds(a["metadata"].get("creationTimestamp")) or 0.0, a["metadata"]["name"])
            kb = (timestamp_seconds(b["metadata"].get("creationTimestamp")) or 0.0, b["metadata"]["name"])
            return -1 if ka < kb else 1 if kb < ka else 0
        return -1 if ra < rb else 1

    return sorted(rss, key=functools.cmp_to_key(cmp))

