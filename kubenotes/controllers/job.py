"""The Job controller: run pods to a number of completions, retrying failures with back-off.

A Job wants ``spec.completions`` pods to succeed (or, without completions,
any one), running at most ``spec.parallelism`` at a time. The controller
creates pods named ``<job>-<5 random>`` carrying the job tracking finalizer
``batch.kubernetes.io/job-tracking``; when a pod finishes it is first
recorded in ``status.uncountedTerminatedPods``, then its finalizer is
removed, then it is counted in ``status.succeeded``/``status.failed``, so no
pod is counted twice or lost. A failed pod is replaced after a back-off
(10 s doubling to 10 min, counting failures since the last success). The Job
fails when more than ``backoffLimit`` pods have failed (default 6) or after
``activeDeadlineSeconds``: first the interim ``FailureTarget`` condition is
added and remaining pods are deleted, then ``Failed`` once no pod is
terminating. Success is recorded as ``SuccessCriteriaMet`` then ``Complete``
(reason ``CompletionsReached``) once no pod is terminating.

``spec.podFailurePolicy`` matches each failed pod against its rules in
order (container exit codes, or pod conditions); the first match decides:
``FailJob`` fails the Job at once (reason ``PodFailurePolicy``), ``Ignore``
does not count the failure toward ``backoffLimit``, ``Count`` counts it,
``FailIndex`` fails the pod's index. With ``spec.backoffLimitPerIndex`` an
Indexed Job counts failures per index (the pod annotation
``batch.kubernetes.io/job-index-failure-count``, carried to the
replacement pod), lists exhausted indexes in ``status.failedIndexes`` and
fails with ``FailedIndexes`` once every index is finished, or with
``MaxFailedIndexesExceeded``. ``spec.successPolicy`` declares an Indexed Job
succeeded early (reason ``SuccessPolicy``), deleting the pods still running.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/job/job_controller.go (syncJob, manageJob, trackJobStatusAndRemoveFinalizers)
kubernetes/kubernetes@v1.34.0 pkg/controller/job/pod_failure_policy.go (matchPodFailurePolicy)
kubernetes/kubernetes@v1.34.0 pkg/controller/job/success_policy.go (matchSuccessPolicy)
kubernetes/kubernetes@v1.34.0 pkg/controller/job/backoff_utils.go (backoffRecord, getRemainingTimePerIndex)
kubernetes/kubernetes@v1.34.0 pkg/controller/job/indexed_job_utils.go (calculateFailedIndexes, firstPendingIndexes)
kubernetes/kubernetes@v1.34.0 pkg/registry/batch/job/strategy.go (generateSelector: the labels pods get)
https://kubernetes.io/docs/concepts/workloads/controllers/job/
https://kep.k8s.io/3329 (pod failure policy), https://kep.k8s.io/3850 (backoff limit per index),
https://kep.k8s.io/3998 (success policy), https://kep.k8s.io/3939 (pod replacement policy)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubenotes.apiserver.bootstrap_policy import BATCH_GROUP, LEGACY_GROUP, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.server import parse_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.meta import get_controller_of
from kubenotes.controllers.controller_utils import (
    ControllerExpectations,
    is_pod_active,
    is_pod_terminating,
    resolve_controller_ref,
)
from kubenotes.api.podutil import is_pod_ready
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, key_of, split_key
from kubenotes.controllers.workload_util import (
    CACHE_CATCH_UP_SECONDS,
    WrittenVersions,
    active_pods_rank_key,
    claim_pods,
    create_pod,
    delete_pod,
    label_selector,
    pod_from_template,
)

__all__ = ["JobController", "BackoffRecord", "remaining_backoff_seconds", "want_active", "is_job_finished",
           "past_backoff_limit_on_failure", "JOB_TRACKING_FINALIZER", "DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS",
           "MAX_JOB_POD_FAILURE_BACKOFF_SECONDS", "MAX_UNCOUNTED_PODS", "MAX_POD_CREATE_DELETE_PER_SYNC",
           "JOB_REASON_BACKOFF_LIMIT_EXCEEDED", "JOB_REASON_DEADLINE_EXCEEDED", "JOB_REASON_COMPLETIONS_REACHED",
           "BACKOFF_LIMIT_EXCEEDED_MESSAGE", "DEADLINE_EXCEEDED_MESSAGE", "COMPLETIONS_REACHED_MESSAGE",
           "JOB_COMPLETION_INDEX_ANNOTATION", "JOB_NAME_LABEL", "CONTROLLER_UID_LABEL", "CONTROLLER_POLICY",
           "match_pod_failure_policy", "match_success_policy", "JOB_REASON_POD_FAILURE_POLICY",
           "JOB_REASON_FAILED_INDEXES", "JOB_REASON_MAX_FAILED_INDEXES_EXCEEDED", "JOB_REASON_SUCCESS_POLICY",
           "FAILED_INDEXES_MESSAGE", "MAX_FAILED_INDEXES_EXCEEDED_MESSAGE", "JOB_INDEX_FAILURE_COUNT_ANNOTATION",
           "JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION"]

#: Upstream's ``system:controller:job-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("job-controller")``, ``cmd/kube-controller-manager/app/batch.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("job-controller", (
    policy_rule(("get", "list", "watch", "update", "patch"), (BATCH_GROUP,), ("jobs",)),
    policy_rule(("update",), (BATCH_GROUP,), ("jobs/status",)),
    policy_rule(("update",), (BATCH_GROUP,), ("jobs/finalizers",)),
    policy_rule(("list", "watch", "create", "delete", "patch"), (LEGACY_GROUP,), ("pods",)),
    events_rule(),
))

#: ``batch.JobTrackingFinalizer``.
JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
#: ``DefaultJobPodFailureBackOff`` and ``MaxJobPodFailureBackOff``.
DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS = 10.0
MAX_JOB_POD_FAILURE_BACKOFF_SECONDS = 600.0  # 10 min in v1.34 (the docs' "six minutes" is older)
#: ``MaxUncountedPods``: finished pods recorded per status write.
MAX_UNCOUNTED_PODS = 500
#: ``MaxPodCreateDeletePerSync``.
MAX_POD_CREATE_DELETE_PER_SYNC = 500
#: ``syncJobBatchPeriod``: pod events are batched into one sync this long after.
SYNC_JOB_BATCH_PERIOD_SECONDS = 1.0
#: Keys of upstream's separate orphan-pod queue share the one work queue under this prefix.
ORPHAN_KEY_PREFIX = "orphan-pod:"
#: ``controller.SlowStartInitialBatchSize``.
SLOW_START_INITIAL_BATCH_SIZE = 1

JOB_REASON_BACKOFF_LIMIT_EXCEEDED = "BackoffLimitExceeded"
JOB_REASON_DEADLINE_EXCEEDED = "DeadlineExceeded"
JOB_REASON_COMPLETIONS_REACHED = "CompletionsReached"
BACKOFF_LIMIT_EXCEEDED_MESSAGE = "Job has reached the specified backoff limit"
DEADLINE_EXCEEDED_MESSAGE = "Job was active longer than specified deadline"
COMPLETIONS_REACHED_MESSAGE = "Reached expected number of succeeded pods"
#: ``batch.JobReasonPodFailurePolicy``, ``JobReasonFailedIndexes``, ``JobReasonMaxFailedIndexesExceeded``,
#: ``JobReasonSuccessPolicy`` and the messages syncJob gives them.
JOB_REASON_POD_FAILURE_POLICY = "PodFailurePolicy"
JOB_REASON_FAILED_INDEXES = "FailedIndexes"
JOB_REASON_MAX_FAILED_INDEXES_EXCEEDED = "MaxFailedIndexesExceeded"
JOB_REASON_SUCCESS_POLICY = "SuccessPolicy"
FAILED_INDEXES_MESSAGE = "Job has failed indexes"
MAX_FAILED_INDEXES_EXCEEDED_MESSAGE = "Job has exceeded the specified maximal number of failed indexes"

#: ``batch.JobCompletionIndexAnnotation`` (also the PodIndexLabel label key).
JOB_COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
#: ``batch.JobIndexFailureCountAnnotation`` and ``JobIndexIgnoredFailureCountAnnotation``: failures of the
#: pod's index before it (counted, and ignored by an ``Ignore`` rule), under ``backoffLimitPerIndex``.
JOB_INDEX_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-failure-count"
JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-ignored-failure-count"
#: Labels ``generateSelector`` puts on the template (and the legacy unprefixed ones).
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
_LEGACY_JOB_NAME_LABEL = "job-name"
_LEGACY_CONTROLLER_UID_LABEL = "controller-uid"


@dataclass
class BackoffRecord:
    """``backoffRecord``: failures since the last success and when the last one happened (virtual seconds)."""

    failures_after_last_success: int = 0
    last_failure_time: float | None = None


def remaining_backoff_seconds(record: BackoffRecord, now_seconds: float,
                              default_backoff_seconds: float = DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS,
                              max_backoff_seconds: float = MAX_JOB_POD_FAILURE_BACKOFF_SECONDS) -> float:
    """How long to wait before creating a replacement pod (``getRemainingTimeForFailuresCount``).

    The delay after ``n`` failures is ``10 s * 2^(n-1)``, capped at 10 min,
    counted from the last failure.

    Examples
    --------
    >>> [remaining_backoff_seconds(BackoffRecord(n, 100.0), 100.0) for n in (0, 1, 2, 3, 7, 8)]
    [0.0, 10.0, 20.0, 40.0, 600.0, 600.0]
    >>> remaining_backoff_seconds(BackoffRecord(2, 100.0), 115.0)
    5.0
    """
    n = record.failures_after_last_success
    if n == 0 or record.last_failure_time is None:
        return 0.0
    delay = default_backoff_seconds
    for _ in range(1, n):
        delay *= 2
        if delay >= max_backoff_seconds:
            delay = max_backoff_seconds
            break
    elapsed = now_seconds - record.last_failure_time
    if delay < elapsed:
        return 0.0
    return delay - elapsed


def want_active(completions: int | None, parallelism: int, succeeded: int, active: int) -> int:
    """How many pods should be running (``manageJob``'s ``wantActive``).

    Examples
    --------
    >>> want_active(5, 2, 0, 0), want_active(5, 2, 4, 1), want_active(None, 3, 0, 0), want_active(None, 3, 1, 2)
    (2, 1, 3, 2)
    """
    if completions is None:
        return active if succeeded > 0 else parallelism
    return max(min(completions - succeeded, parallelism), 0)


def is_job_finished(job: dict) -> bool:
    """``util.IsJobFinished``: a True ``Complete`` or ``Failed`` condition."""
    return any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or [])


def past_backoff_limit_on_failure(job: dict, pods: list[dict]) -> bool:
    """``pastBackoffLimitOnFailure``: under ``restartPolicy: OnFailure``, container restarts count as failures.

    Examples
    --------
    >>> job = {"spec": {"backoffLimit": 2, "template": {"spec": {"restartPolicy": "OnFailure"}}}}
    >>> pod = {"status": {"phase": "Running", "containerStatuses": [{"restartCount": 2}]}}
    >>> past_backoff_limit_on_failure(job, [pod])
    True
    """
    spec = job.get("spec") or {}
    if ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") != "OnFailure":
        return False
    result = 0
    for p in pods:
        st = p.get("status") or {}
        if st.get("phase") in ("Running", "Pending"):
            for cs in (st.get("initContainerStatuses") or []) + (st.get("containerStatuses") or []):
                result += int(cs.get("restartCount", 0) or 0)
    limit = int(spec.get("backoffLimit", 6))
    return result > 0 if limit == 0 else result >= limit


def _finished_time(pod: dict) -> float:
    """``getFinishedTime``: latest container finishedAt, else Ready=False transition, else deletion, else creation."""
    st = pod.get("status") or {}
    times = []
    for cs in (st.get("containerStatuses") or []):
        term = (cs.get("state") or {}).get("terminated")
        if term and term.get("finishedAt"):
            times.append(parse_timestamp(term["finishedAt"]))
    if times:
        return max(times)
    for c in st.get("conditions") or []:
        if c.get("type") == "Ready" and c.get("status") == "False" and c.get("lastTransitionTime"):
            return parse_timestamp(c["lastTransitionTime"])
    md = pod["metadata"]
    if md.get("deletionTimestamp"):
        return parse_timestamp(md["deletionTimestamp"]) - float(md.get("deletionGracePeriodSeconds") or 0)
    return parse_timestamp(md["creationTimestamp"])


def _completion_index(pod: dict) -> int:
    v = ((pod["metadata"].get("annotations") or {}).get(JOB_COMPLETION_INDEX_ANNOTATION))
    if v is None or not str(v).isdigit():
        return -1
    return int(v)


def _parse_indexes(text: str, completions: int | None = None) -> set[int]:
    """``parseIndexesFromString``: ``"0-2,5"`` as a set; corrupt intervals skipped, capped below ``completions``.

    Examples
    --------
    >>> sorted(_parse_indexes("0-2,5,x,7-9", completions=8))
    [0, 1, 2, 5, 7]
    """
    out: set[int] = set()
    for part in (text or "").split(","):
        limits = part.split("-")
        try:
            first = int(limits[0])
        except ValueError:
            continue
        if completions is not None and first >= completions:
            break
        last = first
        if len(limits) > 1:
            try:
                last = int(limits[1])
            except ValueError:
                continue
            if completions is not None and last >= completions:
                last = completions - 1
        out.update(range(first, last + 1))
    return out


def _format_indexes(ix: set[int]) -> str:
    """``orderedIntervals.String``: intervals of three or more as ``first-last``, two as ``first,last``.

    Examples
    --------
    >>> _format_indexes({0, 1, 2, 5, 7, 8})
    '0-2,5,7,8'
    """
    out, run = [], []
    for i in sorted(ix) + [None]:
        if run and i is not None and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]},{run[-1]}" if len(run) == 2
                       else f"{run[0]}-{run[-1]}")
        run = [i]
    return ",".join(out)


def _only_replace_failed_pods(job: dict) -> bool:
    """``onlyReplaceFailedPods``: ``podReplacementPolicy: Failed``, always the case under a ``podFailurePolicy``."""
    spec = job.get("spec") or {}
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def _has_backoff_limit_per_index(job: dict) -> bool:
    """``hasBackoffLimitPerIndex`` (the JobBackoffLimitPerIndex gate is GA and locked on in v1.34)."""
    return (job.get("spec") or {}).get("backoffLimitPerIndex") is not None


def _is_pod_failed(pod: dict, job: dict) -> bool:
    """``isPodFailed``: Failed, or (unless only failed pods are replaced) deleted before succeeding."""
    phase = (pod.get("status") or {}).get("phase")
    if phase == "Failed":
        return True
    if _only_replace_failed_pods(job):
        return False
    return bool(pod["metadata"].get("deletionTimestamp")) and phase != "Succeeded"


def _matching_container(statuses: list[dict] | None, requirement: dict) -> dict | None:
    """``getMatchingContainerFromList``: the first terminated container, non-zero exit, matching the operator."""
    name = requirement.get("containerName")
    values = [int(v) for v in requirement.get("values") or []]
    for cs in statuses or []:
        term = (cs.get("state") or {}).get("terminated")
        if term is None or (name is not None and name != cs.get("name")):
            continue
        code = int(term.get("exitCode") or 0)
        if code == 0:
            continue
        op = requirement.get("operator")
        if (op == "In" and code in values) or (op == "NotIn" and code not in values):
            return cs
    return None


def match_pod_failure_policy(policy: dict | None, pod: dict) -> tuple[str | None, bool, str | None]:
    """Match a failed pod against ``spec.podFailurePolicy`` (``matchPodFailurePolicy``).

    Rules are tried in order and the first that matches decides. A rule
    matches on ``onExitCodes`` (a terminated container, app containers
    before init containers, with a non-zero exit code that is ``In`` or
    ``NotIn`` the values, optionally only the container named
    ``containerName``) or on ``onPodConditions`` (a pod condition of that
    type and status). A rule with an action this model does not know is
    skipped, as upstream skips it.

    Parameters
    ----------
    policy : dict or None
        The Job's ``spec.podFailurePolicy``; ``onPodConditions[].status`` defaulted to ``"True"``.
    pod : dict
        A failed pod.

    Returns
    -------
    tuple[str | None, bool, str | None]
        The Job failure message (a ``FailJob`` match only), whether the
        failure counts toward ``backoffLimit`` (and ``backoffLimitPerIndex``;
        False only for ``Ignore``), and the matched action or None.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/job/pod_failure_policy.go

    Examples
    --------
    >>> policy = {"rules": [
    ...     {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
    ...     {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}}]}
    >>> pod = {"metadata": {"name": "x", "namespace": "default"}, "status": {"phase": "Failed",
    ...        "containerStatuses": [{"name": "main", "state": {"terminated": {"exitCode": 42}}}]}}
    >>> match_pod_failure_policy(policy, pod)
    ('Container main for pod default/x failed with exit code 42 matching FailJob rule at index 1', True, 'FailJob')
    >>> pod["status"]["conditions"] = [{"type": "DisruptionTarget", "status": "True"}]
    >>> match_pod_failure_policy(policy, pod)
    (None, False, 'Ignore')
    >>> match_pod_failure_policy(None, pod)
    (None, True, None)
    """
    if policy is None:
        return None, True, None
    md, st = pod["metadata"], pod.get("status") or {}
    for index, rule in enumerate(policy.get("rules") or []):
        action = rule.get("action")
        if rule.get("onExitCodes") is not None:
            req = rule["onExitCodes"]
            cs = (_matching_container(st.get("containerStatuses"), req)
                  or _matching_container(st.get("initContainerStatuses"), req))
            if cs is None:
                continue
            message = (f"Container {cs.get('name', '')} for pod {md.get('namespace', '')}/{md.get('name', '')} "
                       f"failed with exit code {int(cs['state']['terminated'].get('exitCode') or 0)} "
                       f"matching {action} rule at index {index}")
        elif rule.get("onPodConditions") is not None:
            cond = next((c for c in st.get("conditions") or [] for pat in rule["onPodConditions"]
                         if c.get("type") == pat.get("type") and c.get("status") == pat.get("status", "True")),
                        None)
            if cond is None:
                continue
            message = (f"Pod {md.get('namespace', '')}/{md.get('name', '')} has condition {cond.get('type')} "
                       f"matching {action} rule at index {index}")
        else:
            continue
        if action == "Ignore":
            return None, False, action
        if action in ("Count", "FailIndex"):
            return None, True, action
        if action == "FailJob":
            return message, True, action
    return None, True, None


def _fail_job_message(job: dict, pods: list[dict]) -> str | None:
    """``getFailJobMessage``: the message of the first failed pod matching a ``FailJob`` rule."""
    policy = (job.get("spec") or {}).get("podFailurePolicy")
    if policy is None:
        return None
    for p in pods:
        if _is_pod_failed(p, job):
            message = match_pod_failure_policy(policy, p)[0]
            if message is not None:
                return message
    return None


def _non_ignored_failed_count(job: dict, failed: list[dict]) -> int:
    """``nonIgnoredFailedPodsCount``: failed pods not matching an ``Ignore`` rule."""
    policy = (job.get("spec") or {}).get("podFailurePolicy")
    if policy is None:
        return len(failed)
    return sum(1 for p in failed if match_pod_failure_policy(policy, p)[1])


def match_success_policy(policy: dict | None, completions: int, succeeded_indexes: set[int]) -> tuple[str, bool]:
    """Whether an Indexed Job met its ``spec.successPolicy`` (``matchSuccessPolicy``).

    Rules are tried in order. A rule with ``succeededIndexes`` is met when
    all those indexes succeeded, or (with ``succeededCount``) at least that
    many of them; a rule with only ``succeededCount`` when that many indexes
    succeeded.

    Parameters
    ----------
    policy : dict or None
        The Job's ``spec.successPolicy``.
    completions : int
        ``spec.completions``; indexes at or above it are ignored.
    succeeded_indexes : set[int]
        Indexes with a succeeded pod.

    Returns
    -------
    tuple[str, bool]
        The ``SuccessCriteriaMet`` message (``"Matched rules at index N"``) and whether a rule matched.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/job/success_policy.go

    Examples
    --------
    >>> policy = {"rules": [{"succeededIndexes": "0-2", "succeededCount": 3}, {"succeededCount": 4}]}
    >>> match_success_policy(policy, 10, {0, 2, 7})
    ('', False)
    >>> match_success_policy(policy, 10, {0, 1, 2})
    ('Matched rules at index 0', True)
    >>> match_success_policy(policy, 10, {5, 6, 7, 8})
    ('Matched rules at index 1', True)
    """
    if policy is None or not succeeded_indexes:
        return "", False
    for index, rule in enumerate(policy.get("rules") or []):
        count = rule.get("succeededCount")
        if rule.get("succeededIndexes") is not None:
            required = _parse_indexes(rule["succeededIndexes"], completions)
            if not required:
                continue
            contains = len(required & succeeded_indexes)
            if contains == len(required) or (count is not None and contains >= int(count)):
                return f"Matched rules at index {index}", True
        elif count is not None and len(succeeded_indexes) >= int(count):
            return f"Matched rules at index {index}", True
    return "", False


def _annotation_count(pod: dict, key: str) -> int:
    """``parseInt32`` of a failure-count annotation: 0 when absent, not a number, negative or above int32."""
    value = (pod["metadata"].get("annotations") or {}).get(key)
    if value is None:
        return 0
    try:
        n = int(value)
    except ValueError:
        return 0
    return n if 0 <= n <= 2**31 - 1 else 0


def _index_absolute_failure_count(pod: dict) -> int:
    """``getIndexAbsoluteFailureCount``: counted plus ignored failures of the pod's index."""
    return (_annotation_count(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION)
            + _annotation_count(pod, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION))


def _is_index_failed(job: dict, pod: dict) -> bool:
    """``isIndexFailed``: the pod matched a ``FailIndex`` rule, or its counted failure exhausts the index."""
    counted = False
    if _is_pod_failed(pod, job):
        policy = job["spec"].get("podFailurePolicy")
        if policy is not None:
            _, counted, action = match_pod_failure_policy(policy, pod)
            if action == "FailIndex":
                return True
        else:
            counted = True
    return counted and _annotation_count(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION) >= \
        int(job["spec"]["backoffLimitPerIndex"])


def _new_index_failure_counts(job: dict, replaced: dict | None) -> tuple[int, int]:
    """``getNewIndexFailureCounts``: the counted and ignored failure counts for the pod replacing ``replaced``."""
    if replaced is None:
        return 0, 0
    counted = _annotation_count(replaced, JOB_INDEX_FAILURE_COUNT_ANNOTATION)
    ignored = _annotation_count(replaced, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION)
    policy = job["spec"].get("podFailurePolicy")
    if policy is None or match_pod_failure_policy(policy, replaced)[1]:
        counted += 1
    else:
        ignored += 1
    return counted, ignored


def _remaining_seconds_for_index(last_failed: dict | None, now_seconds: float) -> float:
    """``getRemainingTimePerIndex``: the back-off of one index, from its last failed pod's annotations."""
    if last_failed is None:
        return 0.0
    record = BackoffRecord(_index_absolute_failure_count(last_failed) + 1, _finished_time(last_failed))
    return remaining_backoff_seconds(record, now_seconds)


class JobController(Controller):
    """``job.Controller``.

    Parameters
    ----------
    ctx : ControllerContext
        Clock, informers, client factory, flags (see :class:`~kubenotes.controllers.reconciler.ControllerContext`).

    Notes
    -----
    Modelled: NonIndexed and Indexed completion modes, parallelism,
    completions, backoffLimit with the pod-failure back-off, restartPolicy
    OnFailure restart counting, activeDeadlineSeconds, suspend/resume,
    adoption by selector, the tracking finalizer with
    ``uncountedTerminatedPods``, ``terminating``, ``ready``, the interim
    conditions (``FailureTarget`` before ``Failed`` and ``SuccessCriteriaMet``
    before ``Complete``, as v1.34 adds them for every Job), podFailurePolicy
    (FailJob, Ignore, Count, FailIndex on exit codes and pod conditions),
    backoffLimitPerIndex with maxFailedIndexes and the per-index back-off,
    successPolicy, and podReplacementPolicy (``Failed``: a replacement only
    once the pod is terminal; ``TerminatingOrFailed``: a deleted pod counts
    as failed and is replaced at once). Feature gates are at v1.34's defaults
    and not consulted (JobPodFailurePolicy, JobBackoffLimitPerIndex,
    JobSuccessPolicy, JobPodReplacementPolicy are GA or locked on).
    Not modelled: ``managedBy`` (a Job for another controller is still
    synced), the ``UnknownCompletionMode`` event, the ``TTLAfterFinished``
    controller and metrics; pods of an Indexed Job are not sorted by index
    before their finalizers are removed (only the order of
    ``uncountedTerminatedPods`` can differ). The API server of the model
    does not generate ``spec.selector`` (``generateSelector``), so a Job
    without one is treated as selecting ``batch.kubernetes.io/controller-uid=<uid>``
    and its pods get the four generated labels. Upstream's separate orphan-pod
    queue (tracking finalizers of pods whose Job is gone or finished) shares
    the one work queue here, under keys prefixed ``orphan-pod:``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/job/job_controller.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    ...         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    >>> job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default"},
    ...        "spec": {"completions": 2, "template": {"metadata": {"annotations": {"kubenotes.io/run-seconds": "5"}},
    ...                 "spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl"}]}}}}
    >>> c = Cluster([node, job], controllers=["job-controller"], authorization=False)
    >>> c.run(until=30)
    >>> st = c.get("jobs", "pi", "default")["status"]
    >>> st["succeeded"], [x["type"] for x in st["conditions"]]
    (2, ['SuccessCriteriaMet', 'Complete'])
    """

    name = "job-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        self.expectations = ControllerExpectations(lambda: float(self.env.now))
        self.finalizer_expectations: dict[str, set[str]] = {}
        self.backoff_store: dict[str, BackoffRecord] = {}
        self.written = WrittenVersions()
        self.jobs = self.informers.informer_for("jobs")
        self.pods = self.informers.informer_for("pods")
        self.jobs.add_event_handler(self._add_job, self._update_job, self._delete_job)
        self.pods.add_event_handler(self._add_pod, self._update_pod, self._delete_pod)

    # ------------------------------------------------------------ event handlers
    def _add_job(self, job: dict) -> None:
        self.enqueue(job)

    def _update_job(self, old: dict, cur: dict) -> None:
        """``updateJob``: a spec change syncs at once, a status-only change after the batch period."""
        if cur["metadata"].get("generation") != old["metadata"].get("generation"):
            self.enqueue(cur)
        else:
            self.enqueue_after(cur, SYNC_JOB_BATCH_PERIOD_SECONDS)
        ads = (cur.get("spec") or {}).get("activeDeadlineSeconds")
        start = (cur.get("status") or {}).get("startTime")
        if ads is not None and start and ads != (old.get("spec") or {}).get("activeDeadlineSeconds"):
            self.enqueue_after(cur, max(parse_timestamp(start) + ads - self.env.now, 0.0))

    def _delete_job(self, obj: Any) -> None:
        """``deleteJob``: sync (to forget it) and release the finalizers of its pods (``cleanupPodFinalizers``)."""
        job = unwrap_deleted(obj)
        self.enqueue(job)
        uid = job["metadata"].get("uid")
        for pod in self.pods.lister.list(job["metadata"].get("namespace")):
            if (get_controller_of(pod) or {}).get("uid") == uid:
                self._enqueue_orphan_if_tracked(pod)

    def _job_key_for_pod(self, pod: dict) -> str | None:
        """The key of the Job controlling ``pod``, or None."""
        job = resolve_controller_ref(self.jobs.lister, pod["metadata"].get("namespace", ""), get_controller_of(pod),
                                     "Job")
        return None if job is None else key_of(job)

    def _enqueue_orphan_if_tracked(self, pod: dict) -> None:
        """``enqueueOrphanPod``: a pod with the tracking finalizer and no live Job gets the finalizer removed."""
        if JOB_TRACKING_FINALIZER in (pod["metadata"].get("finalizers") or []):
            self.enqueue(ORPHAN_KEY_PREFIX + key_of(pod))

    def _add_pod(self, pod: dict) -> None:
        key = self._job_key_for_pod(pod)
        if key is None:
            self._enqueue_orphan_if_tracked(pod)
            return
        if pod["metadata"].get("deletionTimestamp"):
            self.expectations.deletion_observed(key)
        else:
            self.expectations.creation_observed(key)
        self.enqueue_after(key, SYNC_JOB_BATCH_PERIOD_SECONDS)

    def _update_pod(self, old: dict, cur: dict) -> None:
        key = self._job_key_for_pod(cur) or self._job_key_for_pod(old)
        if key is None:
            self._enqueue_orphan_if_tracked(cur)
            return
        if JOB_TRACKING_FINALIZER not in (cur["metadata"].get("finalizers") or []):
            self.finalizer_expectations.get(key, set()).discard(cur["metadata"]["uid"])
        if cur["metadata"].get("deletionTimestamp") and not old["metadata"].get("deletionTimestamp"):
            self.expectations.deletion_observed(key)
        self.enqueue_after(key, SYNC_JOB_BATCH_PERIOD_SECONDS)

    def _delete_pod(self, obj: Any) -> None:
        pod = unwrap_deleted(obj)
        key = self._job_key_for_pod(pod)
        if key is None:
            return
        self.finalizer_expectations.get(key, set()).discard(pod["metadata"]["uid"])
        if not pod["metadata"].get("deletionTimestamp"):
            self.expectations.deletion_observed(key)
        self.enqueue_after(key, SYNC_JOB_BATCH_PERIOD_SECONDS)

    # ------------------------------------------------------------ selectors and pods
    @staticmethod
    def _generated_labels(job: dict) -> dict:
        md = job["metadata"]
        return {CONTROLLER_UID_LABEL: md["uid"], JOB_NAME_LABEL: md["name"],
                _LEGACY_CONTROLLER_UID_LABEL: md["uid"], _LEGACY_JOB_NAME_LABEL: md["name"]}

    def _selector(self, job: dict) -> Any:
        sel = (job.get("spec") or {}).get("selector")
        if sel is None:
            sel = {"matchLabels": {CONTROLLER_UID_LABEL: job["metadata"]["uid"]}}
        return label_selector(sel)

    def _pods_for_job(self, job: dict) -> list[dict]:
        ns = job["metadata"]["namespace"]
        pods = claim_pods(self.client, job, "batch/v1", "Job", self._selector(job), self.pods.lister.list(ns),
                          finalizers=(JOB_TRACKING_FINALIZER,))
        return pods

    # ------------------------------------------------------------ sync
    def _sync_orphan_pod(self, key: str) -> None:
        """``syncOrphanPod``: remove the tracking finalizer unless a live, unfinished Job controls the pod."""
        ns, name = split_key(key)
        pod = self.pods.lister.get(ns, name)
        if pod is None or JOB_TRACKING_FINALIZER not in (pod["metadata"].get("finalizers") or []):
            return
        ref = get_controller_of(pod)
        if ref is not None:
            if ref.get("kind") != "Job" or ref.get("apiVersion") != "batch/v1":
                return
            job = resolve_controller_ref(self.jobs.lister, ns, ref, "Job")
            if job is not None and not is_job_finished(job):
                return
        fins = [f for f in pod["metadata"].get("finalizers") or [] if f != JOB_TRACKING_FINALIZER]
        try:
            self.client.patch("pods", name, {"metadata": {"finalizers": fins}}, ns)
        except ApiError as e:
            if e.code != 404:
                raise

    def reconcile(self, key: str) -> Result | None:
        """``syncJob`` (and ``syncOrphanPod`` for keys from the orphan queue)."""
        if key.startswith(ORPHAN_KEY_PREFIX):
            self._sync_orphan_pod(key[len(ORPHAN_KEY_PREFIX):])
            return None
        ns, name = split_key(key)
        shared = self.jobs.lister.get(ns, name)
        now = float(self.env.now)
        if shared is not None and self.written.is_stale(key, shared):
            return Result(requeue_after_seconds=CACHE_CATCH_UP_SECONDS)
        if shared is None:
            self.written.forget(key)
            self.expectations.delete_expectations(key)
            self.finalizer_expectations.pop(key, None)
            self.backoff_store.pop(key, None)
            return None
        if is_job_finished(shared):
            self.backoff_store.pop(key, None)
            return None
        job = deep_copy(shared)
        spec = job.setdefault("spec", {})
        st = job.setdefault("status", {})
        st.setdefault("uncountedTerminatedPods", {})
        indexed = spec.get("completionMode") == "Indexed"
        completions = spec.get("completions")
        suspended = bool(spec.get("suspend"))

        satisfied = self.expectations.satisfied_expectations(key)
        pods = self._pods_for_job(job)
        active_pods = [p for p in pods if is_pod_active(p)]
        unc = st["uncountedTerminatedPods"]
        ctx = _SyncCtx(job=job, pods=pods, active_pods=active_pods,
                       ready=sum(1 for p in active_pods if is_pod_ready(p)),
                       uncounted_succeeded=set(unc.get("succeeded") or []),
                       uncounted_failed=set(unc.get("failed") or []),
                       expected_rm=set(self.finalizer_expectations.get(key, set())),
                       terminating=sum(1 for p in pods if is_pod_terminating(p)))
        active = len(active_pods)
        new_succeeded, new_failed = self._new_finished_pods(ctx)
        ctx.succeeded = int(st.get("succeeded", 0)) + len(new_succeeded) + len(ctx.uncounted_succeeded)
        ctx.failed = (int(st.get("failed", 0)) + _non_ignored_failed_count(job, new_failed)
                      + len(ctx.uncounted_failed))
        if not st.get("startTime") and not suspended:
            st["startTime"] = self.client.server.timestamp()
        ctx.new_backoff = self._new_backoff_record(key, new_succeeded, new_failed)

        exceeds_backoff_limit = ctx.failed > int(spec.get("backoffLimit", 6))
        ctx.finished_condition = self._find_condition(job, "SuccessCriteriaMet")
        if ctx.finished_condition is None:
            ft = self._find_condition(job, "FailureTarget")
            fail_job_message = None if ft is not None else _fail_job_message(job, pods)
            if ft is not None:
                ctx.finished_condition = self._new_condition("Failed", ft.get("reason", ""), ft.get("message", ""))
            elif fail_job_message is not None:
                # the interim FailureTarget records the message before the finalizers (allowing removal) go
                ctx.finished_condition = self._new_condition("FailureTarget", JOB_REASON_POD_FAILURE_POLICY,
                                                             fail_job_message)
        if ctx.finished_condition is None:
            if exceeds_backoff_limit or past_backoff_limit_on_failure(job, pods):
                ctx.finished_condition = self._new_condition("FailureTarget", JOB_REASON_BACKOFF_LIMIT_EXCEEDED,
                                                             BACKOFF_LIMIT_EXCEEDED_MESSAGE)
            elif self._past_active_deadline(job):
                ctx.finished_condition = self._new_condition("FailureTarget", JOB_REASON_DEADLINE_EXCEEDED,
                                                             DEADLINE_EXCEEDED_MESSAGE)
            elif spec.get("activeDeadlineSeconds") is not None and not suspended:
                left = parse_timestamp(st["startTime"]) + float(spec["activeDeadlineSeconds"]) - now
                self.enqueue_after(key, max(left, 0.0))
        if indexed:
            ctx.prev_succeeded_indexes, ctx.succeeded_indexes = self._succeeded_indexes(job, pods)
            ctx.succeeded = len(ctx.succeeded_indexes)
            if _has_backoff_limit_per_index(job):
                ctx.failed_indexes = self._failed_indexes(job, pods)
                if ctx.finished_condition is None:
                    max_failed = spec.get("maxFailedIndexes")
                    if max_failed is not None and len(ctx.failed_indexes) > int(max_failed):
                        ctx.finished_condition = self._new_condition("FailureTarget",
                                                                     JOB_REASON_MAX_FAILED_INDEXES_EXCEEDED,
                                                                     MAX_FAILED_INDEXES_EXCEEDED_MESSAGE)
                    elif ctx.failed_indexes and \
                            len(ctx.failed_indexes) + len(ctx.succeeded_indexes) >= int(completions):
                        ctx.finished_condition = self._new_condition("FailureTarget", JOB_REASON_FAILED_INDEXES,
                                                                     FAILED_INDEXES_MESSAGE)
                ctx.delayed_deletion = self._pods_with_delayed_deletion_per_index(ctx)
            if ctx.finished_condition is None:
                message, met = match_success_policy(spec.get("successPolicy"), int(completions),
                                                    ctx.succeeded_indexes)
                if met:
                    ctx.finished_condition = self._new_condition("SuccessCriteriaMet", JOB_REASON_SUCCESS_POLICY,
                                                                 message)

        suspend_changed = False
        manage_error: ApiError | None = None
        if ctx.finished_condition is not None:
            deleted_ready, deleted = self._delete_active_pods(job, active_pods)
            if deleted != active or not satisfied:
                ctx.finished_condition = None
            active -= deleted
            ctx.terminating += deleted
            ctx.ready -= deleted_ready
        else:
            manage_called = False
            if satisfied and not job["metadata"].get("deletionTimestamp"):
                try:
                    active = self._manage_job(key, job, ctx)
                except ApiError as e:
                    manage_error = e
                    active = len(ctx.active_pods)
                manage_called = True
            if completions is None:
                complete = ctx.succeeded > 0 and active == 0
            else:
                complete = ctx.succeeded >= int(completions) and active == 0
            if complete:
                ctx.finished_condition = self._new_condition("SuccessCriteriaMet", JOB_REASON_COMPLETIONS_REACHED,
                                                             COMPLETIONS_REACHED_MESSAGE)
            elif manage_called:
                if suspended:
                    suspend_changed = self._ensure_condition(job, "Suspended", "True", "JobSuspended",
                                                             "Job suspended")
                    if suspend_changed:
                        self.event(job, "Normal", "Suspended", "Job suspended")
                elif self._find_condition(job, "Suspended") is not None:
                    suspend_changed = self._ensure_condition(job, "Suspended", "False", "JobResumed", "Job resumed")
                    if suspend_changed:
                        self.event(job, "Normal", "Resumed", "Job resumed")
                        st["startTime"] = self.client.server.timestamp()

        needs_update = suspend_changed or active != int(st.get("active", 0)) or ctx.ready != st.get("ready") \
            or ctx.terminating != st.get("terminating")
        st["active"] = active
        st["ready"] = ctx.ready
        st["terminating"] = ctx.terminating
        self._track_job_status_and_remove_finalizers(key, ctx, needs_update)
        if manage_error is not None:
            raise manage_error
        return None

    # ------------------------------------------------------------ pieces of syncJob
    def _new_finished_pods(self, ctx: "_SyncCtx") -> tuple[list[dict], list[dict]]:
        """``getNewFinishedPods``: finished pods still holding the finalizer and not yet in uncounted."""
        job = ctx.job
        indexed = (job.get("spec") or {}).get("completionMode") == "Indexed"
        completions = (job.get("spec") or {}).get("completions")
        succ, failed = [], []
        for p in ctx.pods:
            uid = p["metadata"]["uid"]
            if JOB_TRACKING_FINALIZER not in (p["metadata"].get("finalizers") or []) or uid in ctx.expected_rm:
                continue
            if indexed:
                ix = _completion_index(p)
                if ix < 0 or (completions is not None and ix >= int(completions)):
                    continue
            if (p.get("status") or {}).get("phase") == "Succeeded" and uid not in ctx.uncounted_succeeded:
                succ.append(p)
            elif _is_pod_failed(p, job) and uid not in ctx.uncounted_failed:
                failed.append(p)
        return succ, failed

    def _new_backoff_record(self, key: str, succeeded: list[dict], failed: list[dict]) -> BackoffRecord:
        """``backoffStore.newBackoffRecord``."""
        cur = self.backoff_store.get(key) or BackoffRecord()
        rec = BackoffRecord(cur.failures_after_last_success, cur.last_failure_time)
        failed_times = sorted(_finished_time(p) for p in failed)
        if not succeeded:
            if not failed:
                return rec
            rec.failures_after_last_success += len(failed)
            rec.last_failure_time = failed_times[-1]
            return rec
        rec.failures_after_last_success, rec.last_failure_time = 0, None
        last_success = max(_finished_time(p) for p in succeeded)
        for t in reversed(failed_times):
            if not t > last_success:
                break
            if rec.last_failure_time is None:
                rec.last_failure_time = t
            rec.failures_after_last_success += 1
        return rec

    def _past_active_deadline(self, job: dict) -> bool:
        spec, st = job.get("spec") or {}, job.get("status") or {}
        if spec.get("activeDeadlineSeconds") is None or not st.get("startTime") or spec.get("suspend"):
            return False
        return self.env.now - parse_timestamp(st["startTime"]) >= float(spec["activeDeadlineSeconds"])

    def _new_condition(self, ctype: str, reason: str, message: str) -> dict:
        now = self.client.server.timestamp()
        return {"type": ctype, "status": "True", "lastProbeTime": now, "lastTransitionTime": now,
                "reason": reason, "message": message}

    @staticmethod
    def _find_condition(job: dict, ctype: str) -> dict | None:
        for c in (job.get("status") or {}).get("conditions") or []:
            if c.get("type") == ctype and c.get("status") == "True":
                return c
        return None

    def _ensure_condition(self, job: dict, ctype: str, status: str, reason: str, message: str) -> bool:
        """``ensureJobConditionStatus``: add or update a condition; whether it changed."""
        conds = job["status"].setdefault("conditions", [])
        now = self.client.server.timestamp()
        for c in conds:
            if c.get("type") == ctype:
                if c.get("status") != status or c.get("reason") != reason or c.get("message") != message:
                    if c.get("status") != status:
                        c["lastTransitionTime"] = now
                    c.update(status=status, reason=reason, message=message, lastProbeTime=now)
                    return True
                return False
        if status == "False":
            return False
        conds.append({"type": ctype, "status": status, "lastProbeTime": now, "lastTransitionTime": now,
                      "reason": reason, "message": message})
        return True

    def _succeeded_indexes(self, job: dict, pods: list[dict]) -> tuple[set[int], set[int]]:
        completions = int((job.get("spec") or {}).get("completions") or 0)
        prev = {i for i in _parse_indexes((job.get("status") or {}).get("completedIndexes", "")) if i < completions}
        cur = set(prev)
        for p in pods:
            ix = _completion_index(p)
            if (p.get("status") or {}).get("phase") == "Succeeded" and 0 <= ix < completions:
                cur.add(ix)
        return prev, cur

    @staticmethod
    def _failed_indexes(job: dict, pods: list[dict]) -> set[int]:
        """``calculateFailedIndexes``: ``status.failedIndexes`` plus indexes whose uncounted pod failed them."""
        completions = int(job["spec"].get("completions") or 0)
        out = _parse_indexes((job.get("status") or {}).get("failedIndexes") or "", completions)
        for p in pods:
            ix = _completion_index(p)
            if 0 <= ix < completions and JOB_TRACKING_FINALIZER in (p["metadata"].get("finalizers") or []) \
                    and _is_index_failed(job, p):
                out.add(ix)
        return out

    @staticmethod
    def _pods_with_delayed_deletion_per_index(ctx: "_SyncCtx") -> dict[int, dict]:
        """``getPodsWithDelayedDeletionPerIndex``: per index, the failed pod kept (finalizer on) until replaced.

        The replacement pod copies its failure counts from this pod, so its
        finalizer stays until the index has an active pod again.
        """
        job = ctx.job
        completions = int(job["spec"].get("completions") or 0)
        active_indexes = {_completion_index(p) for p in ctx.active_pods}
        failed_indexes = ctx.failed_indexes or set()
        out: dict[int, dict] = {}
        for p in ctx.pods:
            uid = p["metadata"]["uid"]
            if JOB_TRACKING_FINALIZER not in (p["metadata"].get("finalizers") or []) or uid in ctx.expected_rm:
                continue
            ix = _completion_index(p)
            if not 0 <= ix < completions or not _is_pod_failed(p, job):
                continue
            if ix in ctx.succeeded_indexes or ix in failed_indexes or ix in active_indexes:
                continue
            last = out.get(ix)
            if last is None or (_index_absolute_failure_count(last) <= _index_absolute_failure_count(p)
                                and not _finished_time(p) < _finished_time(last)):
                out[ix] = p
        return out

    @staticmethod
    def _can_remove_finalizer(ctx: "_SyncCtx", pod: dict, failed: bool) -> bool:
        """``canRemoveFinalizer``: Job deleted or finished, pod succeeded, or failed and not kept for its index."""
        if ctx.job["metadata"].get("deletionTimestamp") or ctx.finished_condition is not None \
                or (pod.get("status") or {}).get("phase") == "Succeeded":
            return True
        if not failed:
            return False
        if _has_backoff_limit_per_index(ctx.job):
            kept = ctx.delayed_deletion.get(_completion_index(pod))
            if kept is not None and kept["metadata"]["uid"] == pod["metadata"]["uid"]:
                return False
        return True

    def _delete_active_pods(self, job: dict, pods: list[dict]) -> tuple[int, int]:
        """``deleteActivePods``: delete keeping finalizers (removed later by status tracking)."""
        deleted = deleted_ready = 0
        for p in pods:
            try:
                delete_pod(self, job, p)
            except ApiError:
                continue
            deleted += 1
            if is_pod_ready(p):
                deleted_ready += 1
        return deleted_ready, deleted

    def _delete_job_pods(self, key: str, job: dict, pods: list[dict], ctx: "_SyncCtx") -> int:
        """``deleteJobPods``: remove the tracking finalizer, then delete."""
        removed = 0
        for p in pods:
            md = p["metadata"]
            try:
                fins = [f for f in md.get("finalizers") or [] if f != JOB_TRACKING_FINALIZER]
                if len(fins) != len(md.get("finalizers") or []):
                    self.client.patch("pods", md["name"], {"metadata": {"finalizers": fins}}, md["namespace"])
                delete_pod(self, job, p)
            except ApiError as e:
                self.expectations.deletion_observed(key)
                if e.code != 404:
                    continue
            removed += 1
            if is_pod_ready(p):
                ctx.ready -= 1
        return removed

    def _manage_job(self, key: str, job: dict, ctx: "_SyncCtx") -> int:
        """``manageJob``: create or delete pods toward ``wantActive``; returns the new active count."""
        spec = job["spec"]
        active = len(ctx.active_pods)
        parallelism = int(spec.get("parallelism", 1))
        completions = spec.get("completions")
        indexed = spec.get("completionMode") == "Indexed"
        now = float(self.env.now)
        if spec.get("suspend"):
            to_delete = sorted(ctx.active_pods, key=active_pods_rank_key)
            self.expectations.expect_deletions(key, len(to_delete))
            removed = self._delete_job_pods(key, job, to_delete, ctx)
            ctx.terminating += removed
            return active - removed
        wanted = want_active(None if completions is None else int(completions), parallelism, ctx.succeeded, active)
        rm_at_least = max(active - wanted, 0)
        to_delete = self._active_pods_for_removal(job, ctx.active_pods, rm_at_least)
        to_delete = to_delete[:MAX_POD_CREATE_DELETE_PER_SYNC]
        if to_delete:
            self.expectations.expect_deletions(key, len(to_delete))
            removed = self._delete_job_pods(key, job, to_delete, ctx)
            ctx.terminating += removed
            return active - removed
        terminating = ctx.terminating if _only_replace_failed_pods(job) else 0
        diff = wanted - terminating - active
        if diff <= 0:
            return active
        per_index = _has_backoff_limit_per_index(job)
        # under backoffLimitPerIndex each index backs off on its own (below), not the Job as a whole
        remaining = 0.0 if per_index else remaining_backoff_seconds(ctx.new_backoff, now)
        if remaining > 0:
            self.enqueue_after(key, max(remaining, SYNC_JOB_BATCH_PERIOD_SECONDS))  # enqueueSyncJobWithDelay
            return 0  # as upstream: the sync reports no active pods while in back-off
        diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
        indexes: list[int] = []
        if indexed:
            indexes = self._first_pending_indexes(ctx, diff, int(completions))
            if per_index:
                # getPodCreationInfoForIndependentIndexes: indexes out of back-off now, else the shortest wait
                waits = {ix: _remaining_seconds_for_index(ctx.delayed_deletion.get(ix), now) for ix in indexes}
                ready = [ix for ix in indexes if waits[ix] == 0]
                if indexes and not ready:
                    self.enqueue_after(key, max(min(waits.values()), SYNC_JOB_BATCH_PERIOD_SECONDS))
                    return 0
                indexes = ready
            diff = len(indexes)
        self.expectations.expect_creations(key, diff)
        template = deep_copy(spec.get("template") or {})
        extra_labels = {} if spec.get("selector") is not None else self._generated_labels(job)
        active += diff
        batch = min(diff, SLOW_START_INITIAL_BATCH_SIZE)
        errors: list[ApiError] = []
        while diff > 0:
            for _ in range(batch):
                ix = indexes.pop(0) if indexes else -1
                pod = self._pod_for(job, template, extra_labels, ix, ctx.delayed_deletion.get(ix))
                try:
                    create_pod(self, job, pod)
                except ApiError as e:
                    errors.append(e)
                    self.expectations.creation_observed(key)
                    active -= 1
            diff -= batch
            if errors:
                for _ in range(diff):
                    self.expectations.creation_observed(key)
                active -= diff
                break
            batch = min(2 * batch, diff)
        if errors:
            raise errors[0]
        return active

    def _pod_for(self, job: dict, template: dict, extra_labels: dict, index: int, replaced: dict | None) -> dict:
        name = job["metadata"]["name"]
        labels = dict(extra_labels)
        generate_name = f"{name}-"
        tmpl = template
        if index >= 0:
            tmpl = deep_copy(template)
            tmd = tmpl.setdefault("metadata", {})
            tmd.setdefault("annotations", {})[JOB_COMPLETION_INDEX_ANNOTATION] = str(index)
            if _has_backoff_limit_per_index(job):  # addIndexFailureCountAnnotation
                counted, ignored = _new_index_failure_counts(job, replaced)
                tmd["annotations"][JOB_INDEX_FAILURE_COUNT_ANNOTATION] = str(counted)
                if ignored > 0:
                    tmd["annotations"][JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = str(ignored)
            labels[JOB_COMPLETION_INDEX_ANNOTATION] = str(index)
            tspec = tmpl.setdefault("spec", {})
            tspec["hostname"] = f"{name}-{index}"
            for c in (tspec.get("initContainers") or []) + (tspec.get("containers") or []):
                env = c.setdefault("env", [])
                if not any(e.get("name") == "JOB_COMPLETION_INDEX" for e in env):
                    env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                        "fieldPath": f"metadata.labels['{JOB_COMPLETION_INDEX_ANNOTATION}']"}}})
            generate_name = f"{name}-{index}-"
        return pod_from_template(tmpl, job, "batch/v1", "Job", generate_name=generate_name, extra_labels=labels,
                                 finalizers=(JOB_TRACKING_FINALIZER,))

    def _first_pending_indexes(self, ctx: "_SyncCtx", count: int, completions: int) -> list[int]:
        """``firstPendingIndexes``: lowest indexes not succeeded, failed, or held by an active pod.

        When only failed pods are replaced, an index whose pod is still terminating is not pending either.
        """
        taken = set(ctx.succeeded_indexes) | {_completion_index(p) for p in ctx.active_pods}
        if _only_replace_failed_pods(ctx.job):
            taken |= {_completion_index(p) for p in ctx.pods if is_pod_terminating(p)}
        taken |= ctx.failed_indexes or set()
        out = []
        for i in range(completions):
            if len(out) >= count:
                break
            if i not in taken:
                out.append(i)
        return out

    def _active_pods_for_removal(self, job: dict, pods: list[dict], rm_at_least: int) -> list[dict]:
        """``activePodsForRemoval``: duplicated/invalid indexes first (Indexed), then by ``ActivePods`` order."""
        rm: list[dict] = []
        left = list(pods)
        if (job.get("spec") or {}).get("completionMode") == "Indexed":
            completions = int(job["spec"].get("completions") or 0)
            seen: set[int] = set()
            left = []
            for p in sorted(pods, key=lambda p: (_completion_index(p), active_pods_rank_key(p))):
                ix = _completion_index(p)
                if ix < 0 or ix >= completions or ix in seen:
                    rm.append(p)
                else:
                    seen.add(ix)
                    left.append(p)
        if len(rm) < rm_at_least:
            left.sort(key=active_pods_rank_key)
            rm.extend(left[:rm_at_least - len(rm)])
        return rm

    # ------------------------------------------------------------ status tracking
    def _track_job_status_and_remove_finalizers(self, key: str, ctx: "_SyncCtx", needs_flush: bool) -> None:
        """``trackJobStatusAndRemoveFinalizers``: uncounted, then finalizers off, counters, terminal condition."""
        job = ctx.job
        st = job["status"]
        unc = st["uncountedTerminatedPods"]
        indexed = (job.get("spec") or {}).get("completionMode") == "Indexed"
        completions = (job.get("spec") or {}).get("completions")
        with_finalizer = {p["metadata"]["uid"] for p in ctx.pods
                          if JOB_TRACKING_FINALIZER in (p["metadata"].get("finalizers") or [])
                          and p["metadata"]["uid"] not in ctx.expected_rm}
        if self._clean_uncounted(st, with_finalizer):
            needs_flush = True
        to_remove: list[dict] = []
        new_indexes: list[int] = []
        reached_max = False
        finished = ctx.finished_condition
        for pod in ctx.pods:
            uid = pod["metadata"]["uid"]
            if JOB_TRACKING_FINALIZER not in (pod["metadata"].get("finalizers") or []) or uid in ctx.expected_rm:
                continue
            failed = _is_pod_failed(pod, job)
            if not self._can_remove_finalizer(ctx, pod, failed):
                continue
            to_remove.append(pod)
            if (pod.get("status") or {}).get("phase") == "Succeeded" and uid not in set(unc.get("failed") or []):
                if indexed:
                    ix = _completion_index(pod)
                    if 0 <= ix < int(completions) and ix not in ctx.prev_succeeded_indexes:
                        new_indexes.append(ix)
                        needs_flush = True
                elif uid not in set(unc.get("succeeded") or []):
                    unc.setdefault("succeeded", []).append(uid)
                    needs_flush = True
            elif failed or (finished is not None and finished["type"] != "SuccessCriteriaMet"):
                ix = _completion_index(pod)
                valid = not indexed or (0 <= ix < int(completions))
                # a pod matching an Ignore rule loses its finalizer without being counted
                if uid not in set(unc.get("failed") or []) and valid and \
                        match_pod_failure_policy(job["spec"].get("podFailurePolicy"), pod)[1]:
                    unc.setdefault("failed", []).append(uid)
                    needs_flush = True
            if len(new_indexes) + len(unc.get("succeeded") or []) + len(unc.get("failed") or []) >= \
                    MAX_UNCOUNTED_PODS:
                reached_max = True
                break
        if indexed:
            ctx.succeeded_indexes = set(ctx.succeeded_indexes) | set(new_indexes)
            text = _format_indexes(ctx.succeeded_indexes)
            if text != st.get("completedIndexes", ""):
                needs_flush = True
            st["succeeded"] = len(ctx.succeeded_indexes)
            st["completedIndexes"] = text
            failed_text = None if ctx.failed_indexes is None else _format_indexes(ctx.failed_indexes)
            if failed_text != st.get("failedIndexes"):
                needs_flush = True
                if failed_text is None:
                    st.pop("failedIndexes", None)
                else:
                    st["failedIndexes"] = failed_text
        if finished is not None and finished["type"] == "FailureTarget":
            st.setdefault("conditions", []).append(finished)
            needs_flush = True
            finished = ctx.finished_condition = self._new_condition("Failed", finished["reason"], finished["message"])
        if finished is not None and finished["type"] == "SuccessCriteriaMet":
            if self._find_condition(job, "SuccessCriteriaMet") is None:
                st.setdefault("conditions", []).append(finished)
                needs_flush = True
            finished = ctx.finished_condition = self._new_condition("Complete", finished["reason"],
                                                                    finished["message"])
        # flushUncountedAndRemoveFinalizers
        if needs_flush:
            job = ctx.job = self._update_status(job)
            st = job["status"]
            self.backoff_store[key] = ctx.new_backoff
            needs_flush = False
        rm_error: ApiError | None = None
        if to_remove:
            exp = self.finalizer_expectations.setdefault(key, set())
            for pod in to_remove:
                md = pod["metadata"]
                exp.add(md["uid"])
                fins = [f for f in md.get("finalizers") or [] if f != JOB_TRACKING_FINALIZER]
                try:
                    self.client.patch("pods", md["name"], {"metadata": {"finalizers": fins}}, md["namespace"])
                except ApiError as e:
                    exp.discard(md["uid"])
                    if e.code != 404:
                        rm_error = e
                        continue
                with_finalizer.discard(md["uid"])
        st.setdefault("uncountedTerminatedPods", {})
        if self._clean_uncounted(st, with_finalizer):
            needs_flush = True
        if rm_error is not None:
            if needs_flush:
                self._update_status(job)
            raise rm_error
        job_finished = not reached_max and self._enact_job_finished(ctx)
        if job_finished:
            needs_flush = True
        if needs_flush:
            ctx.job = self._update_status(ctx.job)
            if job_finished:
                self._record_job_finished(ctx.job, ctx.finished_condition)

    @staticmethod
    def _clean_uncounted(st: dict, with_finalizer: set[str]) -> bool:
        """``cleanUncountedPodsWithoutFinalizers``: count the uncounted pods whose finalizer is gone."""
        unc = st.setdefault("uncountedTerminatedPods", {})
        updated = False
        for field, counter in (("succeeded", "succeeded"), ("failed", "failed")):
            cur = unc.get(field) or []
            keep = [u for u in cur if u in with_finalizer]
            if len(keep) != len(cur):
                updated = True
                st[counter] = int(st.get(counter, 0)) + len(cur) - len(keep)
                if keep:
                    unc[field] = keep
                else:
                    unc.pop(field, None)
        return updated

    def _enact_job_finished(self, ctx: "_SyncCtx") -> bool:
        cond = ctx.finished_condition
        if cond is None:
            return False
        unc = ctx.job["status"].get("uncountedTerminatedPods") or {}
        if len(unc.get("succeeded") or []) + len(unc.get("failed") or []) > 0:
            return False
        if ctx.terminating > 0:
            return False
        self._ensure_condition(ctx.job, cond["type"], cond["status"], cond["reason"], cond["message"])
        if cond["type"] == "Complete":
            ctx.job["status"]["completionTime"] = cond["lastTransitionTime"]
        return True

    def _record_job_finished(self, job: dict, cond: dict) -> None:
        if cond["type"] == "Complete":
            completions = (job.get("spec") or {}).get("completions")
            if completions is not None and int(job["status"].get("succeeded", 0)) > int(completions):
                self.event(job, "Warning", "TooManySucceededPods",
                           "Too many succeeded pods running after completion count reached")
            self.event(job, "Normal", "Completed", "Job completed")
        else:
            self.event(job, "Warning", cond["reason"], cond["message"])

    def _update_status(self, job: dict) -> dict:
        st = job["status"]
        for k in ("active", "succeeded", "failed"):
            if not st.get(k):
                st.pop(k, None)
        out = self.client.update_status("jobs", job, job["metadata"]["namespace"])
        self.written.note(key_of(out), out)
        return out


@dataclass
class _SyncCtx:
    """``syncJobCtx``: what one sync knows about a Job and its pods."""

    job: dict
    pods: list[dict]
    active_pods: list[dict]
    ready: int
    uncounted_succeeded: set[str]
    uncounted_failed: set[str]
    expected_rm: set[str]
    terminating: int
    succeeded: int = 0
    failed: int = 0
    finished_condition: dict | None = None
    new_backoff: BackoffRecord = None  # type: ignore[assignment]
    prev_succeeded_indexes: set[int] = None  # type: ignore[assignment]
    succeeded_indexes: set[int] = None  # type: ignore[assignment]
    #: ``failedIndexes``: None unless the Job has ``backoffLimitPerIndex``.
    failed_indexes: set[int] | None = None
    #: ``podsWithDelayedDeletionPerIndex``: index -> the failed pod whose finalizer waits for its replacement.
    delayed_deletion: dict[int, dict] = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.prev_succeeded_indexes = self.prev_succeeded_indexes or set()
        self.succeeded_indexes = self.succeeded_indexes or set()
        self.delayed_deletion = self.delayed_deletion or {}
