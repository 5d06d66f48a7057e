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
added and remaining pods are deleted, then ``Failed``. Success is recorded
as ``SuccessCriteriaMet`` then ``Complete`` (reason ``CompletionsReached``)
once no pod is terminating.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/job/job_controller.go (syncJob, manageJob, trackJobStatusAndRemoveFinalizers)
kubernetes/kubernetes@v1.34.0 pkg/controller/job/backoff_utils.go (backoffRecord, getRemainingTimeForFailuresCount)
kubernetes/kubernetes@v1.34.0 pkg/controller/job/indexed_job_utils.go (completion indexes)
kubernetes/kubernetes@v1.34.0 pkg/registry/batch/job/strategy.go (generateSelector: the labels pods get)
https://kubernetes.io/docs/concepts/workloads/controllers/job/
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
           "JOB_COMPLETION_INDEX_ANNOTATION", "JOB_NAME_LABEL", "CONTROLLER_UID_LABEL", "CONTROLLER_POLICY"]

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

#: ``batch.JobCompletionIndexAnnotation`` (also the PodIndexLabel label key).
JOB_COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
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


def _parse_indexes(text: str) -> set[int]:
    out: set[int] = set()
    for part in (text or "").split(","):
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return out


def _format_indexes(ix: set[int]) -> str:
    """``orderedIntervals.String``: ``"0-2,5"``."""
    out, run = [], []
    for i in sorted(ix):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [i]
    if run:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(out)


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
    ``uncountedTerminatedPods``, ``terminating``, ``ready``, and the
    interim conditions. Not modelled: podFailurePolicy, successPolicy,
    backoffLimitPerIndex/maxFailedIndexes, managedBy, the
    ``TTLAfterFinished`` controller and metrics. The API server of the model
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
        ctx.failed = int(st.get("failed", 0)) + len(new_failed) + len(ctx.uncounted_failed)
        if not st.get("startTime") and not suspended:
            st["startTime"] = self.client.server.timestamp()
        ctx.new_backoff = self._new_backoff_record(key, new_succeeded, new_failed)

        exceeds_backoff_limit = ctx.failed > int(spec.get("backoffLimit", 6))
        ctx.finished_condition = self._find_condition(job, "SuccessCriteriaMet")
        if ctx.finished_condition is None:
            ft = self._find_condition(job, "FailureTarget")
            if ft is not None:
                ctx.finished_condition = self._new_condition("Failed", ft.get("reason", ""), ft.get("message", ""))
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
    def _is_pod_failed(self, pod: dict, job: dict) -> bool:
        """``isPodFailed``: Failed, or (under podReplacementPolicy TerminatingOrFailed) deleted before succeeding."""
        phase = (pod.get("status") or {}).get("phase")
        if phase == "Failed":
            return True
        if (job.get("spec") or {}).get("podReplacementPolicy") == "Failed" or \
                (job.get("spec") or {}).get("podFailurePolicy") is not None:
            return False
        return bool(pod["metadata"].get("deletionTimestamp")) and phase != "Succeeded"

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
            elif self._is_pod_failed(p, job) and uid not in ctx.uncounted_failed:
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
        terminating = ctx.terminating if (spec.get("podReplacementPolicy") == "Failed"
                                          or spec.get("podFailurePolicy") is not None) else 0
        diff = wanted - terminating - active
        if diff <= 0:
            return active
        remaining = remaining_backoff_seconds(ctx.new_backoff, now)
        if remaining > 0:
            self.enqueue_after(key, remaining)
            return 0  # as upstream: the sync reports no active pods while in back-off
        diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
        indexes: list[int] = []
        if indexed:
            indexes = self._first_pending_indexes(ctx, diff, int(completions))
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
                pod = self._pod_for(job, template, extra_labels, ix)
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

    def _pod_for(self, job: dict, template: dict, extra_labels: dict, index: int) -> dict:
        name = job["metadata"]["name"]
        labels = dict(extra_labels)
        generate_name = f"{name}-"
        tmpl = template
        if index >= 0:
            tmpl = deep_copy(template)
            tmd = tmpl.setdefault("metadata", {})
            tmd.setdefault("annotations", {})[JOB_COMPLETION_INDEX_ANNOTATION] = str(index)
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
        """``firstPendingIndexes``: lowest indexes neither succeeded nor held by an active pod."""
        taken = set(ctx.succeeded_indexes) | {_completion_index(p) for p in ctx.active_pods}
        if (ctx.job.get("spec") or {}).get("podReplacementPolicy") == "Failed":
            taken |= {_completion_index(p) for p in ctx.pods if is_pod_terminating(p)}
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
            failed = self._is_pod_failed(pod, job)
            if not (job["metadata"].get("deletionTimestamp") or finished is not None
                    or (pod.get("status") or {}).get("phase") == "Succeeded" or failed):
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
                if uid not in set(unc.get("failed") or []) and valid:
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

    def __post_init__(self) -> None:
        self.prev_succeeded_indexes = self.prev_succeeded_indexes or set()
        self.succeeded_indexes = self.succeeded_indexes or set()
