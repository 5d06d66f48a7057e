"""The CronJob controller (v2): create a Job at each scheduled time, honouring concurrency and history limits.

On each sync the controller lists the Jobs a CronJob owns, drops finished
ones from ``status.active`` (``SawCompletedJob``), deletes the oldest
finished Jobs beyond ``successfulJobsHistoryLimit`` (3) and
``failedJobsHistoryLimit`` (1), works out the most recent unmet schedule
time, and, unless it is too late (``startingDeadlineSeconds``), already
handled, suspended or forbidden by ``concurrencyPolicy``, creates the Job
``<cronjob>-<scheduled time in minutes since the Unix epoch>``. It then asks
to be woken at the next schedule time (plus 100 ms). More than 100 missed
times give the ``TooManyMissedTimes`` warning.

Times: the virtual clock's second 0 is ``server.epoch``
(2025-08-27T00:00:00Z), so schedules fire at real calendar times.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/cronjob/cronjob_controllerv2.go (sync, syncCronJob, cleanupFinishedJobs)
kubernetes/kubernetes@v1.34.0 pkg/controller/cronjob/utils.go (mostRecentScheduleTime, nextScheduleTimeDuration, getJobFromTemplate2)
https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from kubenotes.apiserver.bootstrap_policy import BATCH_GROUP, LEGACY_GROUP, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.server import format_timestamp, parse_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.cron import CronError, parse_standard
from kubenotes.api.meta import get_controller_of, new_controller_ref
from kubenotes.controllers.controller_utils import resolve_controller_ref
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, split_key
from kubenotes.controllers.workload_util import CACHE_CATCH_UP_SECONDS, WrittenVersions

__all__ = ["CronJobController", "most_recent_schedule_time", "next_schedule_time_duration", "get_job_name",
           "format_schedule", "NONE_MISSED", "FEW_MISSED", "MANY_MISSED", "NEXT_SCHEDULE_DELTA_SECONDS",
           "TOO_MANY_MISSED_MESSAGE", "CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:cronjob-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("cronjob-controller")``, ``cmd/kube-controller-manager/app/batch.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("cronjob-controller", (
    policy_rule(("get", "list", "watch", "update"), (BATCH_GROUP,), ("cronjobs",)),
    policy_rule(("get", "list", "watch", "create", "update", "delete", "patch"), (BATCH_GROUP,), ("jobs",)),
    policy_rule(("update",), (BATCH_GROUP,), ("cronjobs/status",)),
    policy_rule(("update",), (BATCH_GROUP,), ("cronjobs/finalizers",)),
    policy_rule(("list", "watch", "delete"), (LEGACY_GROUP,), ("pods",)),
    events_rule(),
))

NONE_MISSED, FEW_MISSED, MANY_MISSED = "none", "few", "many"
#: ``nextScheduleDelta``: requeue padding after the next schedule time.
NEXT_SCHEDULE_DELTA_SECONDS = 0.1
TOO_MANY_MISSED_MESSAGE = ("too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check "
                           "clock skew")
#: ``batchv1.CronJobScheduledTimestampAnnotation`` (CronJobsScheduledAnnotation, beta and on in v1.34).
CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"

_UTC = _dt.timezone.utc


def most_recent_schedule_time(earliest_time: _dt.datetime, now: _dt.datetime, schedule: Any,
                              starting_deadline_seconds: int | None = None
                              ) -> tuple[_dt.datetime, _dt.datetime | None, str]:
    """``mostRecentScheduleTime``: the latest schedule time in (earliest, now] and how many were missed.

    Parameters
    ----------
    earliest_time : datetime
        ``status.lastScheduleTime``, else the CronJob's creationTimestamp.
    now : datetime
    schedule : SpecSchedule or ConstantDelaySchedule
    starting_deadline_seconds : int, optional
        When given (``includeStartingDeadlineSeconds``), nothing older than
        ``now - startingDeadlineSeconds`` is considered.

    Returns
    -------
    (earliest, most_recent, missed)
        ``most_recent`` is None when no schedule time has passed;
        ``missed`` is :data:`NONE_MISSED`, :data:`FEW_MISSED` or :data:`MANY_MISSED` (> 100).

    Raises
    ------
    CronError
        ``time difference between two schedules is less than 1 second`` for
        a schedule that never fires (``59 23 31 2 *``).

    Examples
    --------
    >>> import datetime as dt
    >>> top = dt.datetime(2016, 5, 19, 10, tzinfo=dt.timezone.utc)
    >>> _, t, missed = most_recent_schedule_time(top, top + dt.timedelta(minutes=61), parse_standard("0 * * * *"))
    >>> t.isoformat(), missed
    ('2016-05-19T11:00:00+00:00', 'none')
    """
    earliest = earliest_time
    missed = NONE_MISSED
    if starting_deadline_seconds is not None:
        deadline = now - _dt.timedelta(seconds=int(starting_deadline_seconds))
        if deadline > earliest:
            earliest = deadline
    t1 = schedule.next(earliest)
    t2 = schedule.next(t1) if t1 is not None else None
    if t1 is not None and now < t1:
        return earliest, None, missed
    if t2 is not None and now < t2:
        return earliest, t1, missed
    if t1 is None or t2 is None or round((t2 - t1).total_seconds()) < 1:
        raise CronError("time difference between two schedules is less than 1 second")
    between = int(round((t2 - t1).total_seconds()))
    elapsed = int((now - t1).total_seconds())
    n_missed = elapsed // between + 1
    potential_earliest = t1 + _dt.timedelta(seconds=(n_missed - 2) * between)
    most_recent = None
    t = schedule.next(potential_earliest)
    while t is not None and not t > now:
        most_recent = t
        t = schedule.next(t)
    if n_missed > 100:
        missed = MANY_MISSED
    elif n_missed > 0:
        missed = FEW_MISSED
    return earliest, most_recent, missed


def next_schedule_time_duration(earliest_time: _dt.datetime, now: _dt.datetime, schedule: Any) -> float:
    """``nextScheduleTimeDuration``: seconds until the next schedule time after the most recent one, plus 100 ms.

    Examples
    --------
    >>> import datetime as dt
    >>> top = dt.datetime(2016, 5, 19, 10, tzinfo=dt.timezone.utc)   # a Thursday
    >>> round(next_schedule_time_duration(top, top + dt.timedelta(hours=6), parse_standard("0 12 * * 5")), 1)
    72000.1
    """
    try:
        earliest, most_recent, missed = most_recent_schedule_time(earliest_time, now, schedule)
    except CronError:
        most_recent = now
    else:
        if most_recent is None:
            most_recent = earliest if missed == NONE_MISSED else now
    nxt = schedule.next(most_recent)
    if nxt is None:
        return float("inf")
    return (nxt - now).total_seconds() + NEXT_SCHEDULE_DELTA_SECONDS


def get_job_name(cronjob_name: str, scheduled_time: _dt.datetime) -> str:
    """``getJobName``: ``<cronjob>-<minutes since the Unix epoch>``.

    Examples
    --------
    >>> import datetime as dt
    >>> get_job_name("hello", dt.datetime(2025, 8, 27, 0, 5, tzinfo=dt.timezone.utc))
    'hello-29270885'
    """
    return f"{cronjob_name}-{int(scheduled_time.timestamp()) // 60}"


def format_schedule(cronjob: dict) -> tuple[str, bool]:
    """``formatSchedule``: the schedule to parse, and whether it carries an unsupported ``TZ``.

    A ``spec.timeZone`` becomes a ``TZ=<zone>`` prefix; a schedule that
    already contains ``TZ`` is used as is (and warned about).
    """
    spec = cronjob.get("spec") or {}
    schedule = spec.get("schedule", "")
    if "TZ" in schedule:
        return schedule, True
    tz = spec.get("timeZone")
    if tz:
        return f"TZ={tz} {schedule}", False
    return schedule, False


def _is_finished(job: dict) -> tuple[bool, str]:
    for c in (job.get("status") or {}).get("conditions") or []:
        if c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return True, c["type"]
    return False, ""


def _job_start_sort_key(job: dict) -> tuple:
    st = (job.get("status") or {}).get("startTime")
    return (0 if st else 1, parse_timestamp(st) if st else 0.0, job["metadata"]["name"])


class CronJobController(Controller):
    """``cronjob.ControllerV2``.

    Parameters
    ----------
    ctx : ControllerContext
        Clock, informers, client factory, flags (see :class:`~kubenotes.controllers.reconciler.ControllerContext`).

    Notes
    -----
    The controller's "local" time zone is UTC. Not modelled: the job
    creation-skew metric and the ``spec.jobTemplate`` label-change cleanup
    (also absent upstream). Time zones come from Python's ``zoneinfo``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/cronjob/cronjob_controllerv2.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    ...         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    >>> cj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello", "namespace": "default"},
    ...       "spec": {"schedule": "*/2 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
    ...           "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}
    >>> c = Cluster([node, cj], controllers=["cronjob-controller"], authorization=False)
    >>> c.run(until=130)
    >>> [j["metadata"]["name"] for j in c.list("jobs", "default")]
    ['hello-29270882']
    """

    name = "cronjob-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        self.written = WrittenVersions()
        self.deleted_jobs: set[str] = set()
        self.cronjobs = self.informers.informer_for("cronjobs")
        self.jobs = self.informers.informer_for("jobs")
        self.cronjobs.add_event_handler(self._add_cronjob, self._update_cronjob,
                                        lambda o: self.enqueue(unwrap_deleted(o)))
        self.jobs.add_event_handler(self._job_changed, lambda old, cur: self._job_changed(cur), self._job_deleted)

    def _job_deleted(self, obj: Any) -> None:
        job = unwrap_deleted(obj)
        self.deleted_jobs.discard(job["metadata"].get("uid", ""))
        self._job_changed(job)

    # ------------------------------------------------------------ time
    def _to_dt(self, seconds: float) -> _dt.datetime:
        return self.client.server.epoch + _dt.timedelta(seconds=seconds)

    def _from_dt(self, t: _dt.datetime) -> float:
        return (t - self.client.server.epoch).total_seconds()

    def _now(self) -> _dt.datetime:
        return self._to_dt(float(self.env.now))

    def _ts(self, t: _dt.datetime) -> str:
        return format_timestamp(self._from_dt(t), self.client.server.epoch)

    def _parse_ts(self, text: str) -> _dt.datetime:
        return self._to_dt(parse_timestamp(text, self.client.server.epoch))

    # ------------------------------------------------------------ handlers
    def _add_cronjob(self, cj: dict) -> None:
        self.enqueue(cj)

    def _update_cronjob(self, old: dict, cur: dict) -> None:
        ospec, spec = old.get("spec") or {}, cur.get("spec") or {}
        if ospec.get("schedule") != spec.get("schedule") or ospec.get("timeZone") != spec.get("timeZone"):
            text, _ = format_schedule(cur)
            try:
                sched = parse_standard(text)
            except CronError:
                self.event(cur, "Warning", "UnParseableCronJobSchedule",
                           f"unparseable schedule for cronjob: {spec.get('schedule', '')}")
                return
            self.enqueue_after(cur, next_schedule_time_duration(self._earliest(cur), self._now(), sched))
            return
        self.enqueue(cur)

    def _job_changed(self, job: dict) -> None:
        cj = resolve_controller_ref(self.cronjobs.lister, job["metadata"].get("namespace", ""), get_controller_of(job),
                                    "CronJob")
        if cj is not None:
            self.enqueue(cj)

    def _earliest(self, cj: dict) -> _dt.datetime:
        last = (cj.get("status") or {}).get("lastScheduleTime")
        return self._parse_ts(last or cj["metadata"]["creationTimestamp"])

    # ------------------------------------------------------------ sync
    def reconcile(self, key: str) -> Result | None:
        """``sync``: clean up finished Jobs, maybe start one, update status, requeue at the next time."""
        ns, name = split_key(key)
        shared = self.cronjobs.lister.get(ns, name)
        if shared is None:
            self.written.forget(key)
            return None
        if self.written.is_stale(key, shared):
            return Result(requeue_after_seconds=CACHE_CATCH_UP_SECONDS)
        uid = shared["metadata"]["uid"]
        jobs = [j for j in self.jobs.lister.list(ns)
                if (get_controller_of(j) or {}).get("uid") == uid and j["metadata"]["uid"] not in self.deleted_jobs]
        cj = deep_copy(shared)
        cj.setdefault("status", {})
        update_after_cleanup = self._cleanup_finished_jobs(cj, jobs)
        requeue_after, update_after_sync, err = self._sync_cronjob(cj, jobs)
        if update_after_cleanup or update_after_sync:
            if not cj["status"].get("active"):
                cj["status"].pop("active", None)
            self.written.note(key, self.client.update_status("cronjobs", cj, ns))
        if requeue_after is not None and requeue_after != float("inf"):
            return Result(requeue_after_seconds=max(requeue_after, 1e-3))
        if err is not None:
            raise err
        return None

    def _sync_cronjob(self, cj: dict, jobs: list[dict]) -> tuple[float | None, bool, ApiError | None]:
        """``syncCronJob``: returns (requeue after seconds, status changed, error)."""
        st = cj["status"]
        spec = cj.get("spec") or {}
        update = False
        children = set()
        for j in jobs:
            juid = j["metadata"]["uid"]
            children.add(juid)
            found = any(a.get("uid") == juid for a in st.get("active") or [])
            finished, ctype = _is_finished(j)
            if not found and not finished:
                self.event(cj, "Warning", "UnexpectedJob",
                           f"Saw a job that the controller did not create or forgot: {j['metadata']['name']}")
            elif found and finished:
                st["active"] = [a for a in st.get("active") or [] if a.get("uid") != juid]
                self.event(cj, "Normal", "SawCompletedJob",
                           f"Saw completed job: {j['metadata']['name']}, status: {ctype}")
                update = True
            elif finished and ctype == "Complete":
                ct = (j.get("status") or {}).get("completionTime")
                last = st.get("lastSuccessfulTime")
                if ct and (last is None or parse_timestamp(ct) > parse_timestamp(last)):
                    st["lastSuccessfulTime"] = ct
                    update = True
        for a in list(st.get("active") or []):
            if a.get("uid") in children:
                continue
            try:
                self.client.get("jobs", a.get("name", ""), a.get("namespace"))
            except ApiError as e:
                if e.code != 404:
                    return None, update, e
                self.event(cj, "Normal", "MissingJob", f"Active job went missing: {a.get('name')}")
                st["active"] = [x for x in st.get("active") or [] if x.get("uid") != a.get("uid")]
                update = True
        if cj["metadata"].get("deletionTimestamp"):
            return None, update, None
        if spec.get("timeZone"):
            try:
                from zoneinfo import ZoneInfo

                ZoneInfo(spec["timeZone"])
            except Exception:
                self.event(cj, "Warning", "UnknownTimeZone",
                           f'invalid timeZone: "{spec["timeZone"]}": unknown time zone {spec["timeZone"]}')
                return None, update, None
        if spec.get("suspend"):
            return None, update, None
        text, has_tz = format_schedule(cj)
        if has_tz:
            self.event(cj, "Warning", "UnsupportedSchedule",
                       f'CRON_TZ or TZ used in schedule "{spec.get("schedule", "")}" is not officially supported, see '
                       f"https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")
        try:
            sched = parse_standard(text)
        except CronError as e:
            self.event(cj, "Warning", "UnparseableSchedule",
                       f'unparseable schedule: "{spec.get("schedule", "")}" : {e}')
            return None, update, None
        now = self._now()
        earliest = self._earliest(cj)
        try:
            _, scheduled, missed = most_recent_schedule_time(earliest, now, sched, spec.get("startingDeadlineSeconds"))
        except CronError as e:
            self.event(cj, "Warning", "InvalidSchedule", f"invalid schedule: {spec.get('schedule', '')} : {e}")
            return None, update, None
        if scheduled is not None and missed == MANY_MISSED:
            self.event(cj, "Warning", "TooManyMissedTimes", TOO_MANY_MISSED_MESSAGE)
        nxt = lambda: next_schedule_time_duration(self._earliest(cj), now, sched)  # noqa: E731
        if scheduled is None:
            return nxt(), update, None
        sds = spec.get("startingDeadlineSeconds")
        if sds is not None and scheduled + _dt.timedelta(seconds=int(sds)) < now:
            self.event(cj, "Warning", "MissSchedule", "Missed scheduled time to start a job: "
                       + scheduled.astimezone(_UTC).strftime("%a, %d %b %Y %H:%M:%S +0000"))
            return nxt(), update, None
        job_name = get_job_name(cj["metadata"]["name"], scheduled)
        if any(a.get("name") == job_name for a in st.get("active") or []) or \
                st.get("lastScheduleTime") == self._ts(scheduled):
            return nxt(), update, None
        if spec.get("concurrencyPolicy") == "Forbid" and st.get("active"):
            self.event(cj, "Normal", "JobAlreadyActive",
                       "Not starting job because prior execution is running and concurrency policy is Forbid")
            return nxt(), update, None
        if spec.get("concurrencyPolicy") == "Replace":
            for a in list(st.get("active") or []):
                try:
                    job = self.client.get("jobs", a.get("name", ""), a.get("namespace"))
                except ApiError as e:
                    self.event(cj, "Warning", "FailedGet", f"Get job: {e}")
                    return None, update, e
                if not self._delete_job(cj, job):
                    return None, update, None
                update = True
        job_req = self._job_from_template(cj, scheduled)
        already = False
        try:
            job = self.client.create("jobs", job_req, cj["metadata"]["namespace"])
        except ApiError as e:
            if e.code == 409 and e.reason == "AlreadyExists":
                already = True
                job = self.client.get("jobs", job_name, cj["metadata"]["namespace"])
                if (get_controller_of(job) or {}).get("uid") != cj["metadata"]["uid"]:
                    return None, update, None
                if any(a.get("uid") == job["metadata"]["uid"] for a in st.get("active") or []):
                    return None, update, None
            else:
                self.event(cj, "Warning", "FailedCreate", f"Error creating job: {e}")
                return None, update, e
        if not already:
            self.event(cj, "Normal", "SuccessfulCreate", f"Created job {job['metadata']['name']}")
        st.setdefault("active", []).append({"kind": "Job", "namespace": job["metadata"]["namespace"],
                                            "name": job["metadata"]["name"], "uid": job["metadata"]["uid"],
                                            "apiVersion": "batch/v1",
                                            "resourceVersion": job["metadata"].get("resourceVersion", "")})
        st["lastScheduleTime"] = self._ts(scheduled)
        return nxt(), True, None

    def _job_from_template(self, cj: dict, scheduled: _dt.datetime) -> dict:
        """``getJobFromTemplate2``."""
        tmpl = (cj.get("spec") or {}).get("jobTemplate") or {}
        tmd = tmpl.get("metadata") or {}
        annotations = dict(tmd.get("annotations") or {})
        tz = (cj.get("spec") or {}).get("timeZone")
        when = scheduled
        if tz:
            try:
                from zoneinfo import ZoneInfo

                when = scheduled.astimezone(ZoneInfo(tz))
            except Exception:
                pass
        annotations[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION] = when.replace(microsecond=0).isoformat().replace(
            "+00:00", "Z")
        md: dict = {"name": get_job_name(cj["metadata"]["name"], scheduled), "namespace": cj["metadata"]["namespace"],
                    "labels": dict(tmd.get("labels") or {}), "annotations": annotations,
                    "ownerReferences": [new_controller_ref(cj, "batch/v1", "CronJob")]}
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": md, "spec": deep_copy(tmpl.get("spec") or {})}

    def _cleanup_finished_jobs(self, cj: dict, jobs: list[dict]) -> bool:
        """``cleanupFinishedJobs``: delete the oldest finished Jobs beyond the history limits."""
        spec = cj.get("spec") or {}
        if spec.get("failedJobsHistoryLimit") is None and spec.get("successfulJobsHistoryLimit") is None:
            return False
        succeeded, failed = [], []
        for j in jobs:
            finished, ctype = _is_finished(j)
            if finished and ctype == "Complete":
                succeeded.append(j)
            elif finished and ctype == "Failed":
                failed.append(j)
        update = False
        for group, limit in ((succeeded, spec.get("successfulJobsHistoryLimit")),
                             (failed, spec.get("failedJobsHistoryLimit"))):
            if limit is None:
                continue
            n = len(group) - int(limit)
            if n <= 0:
                continue
            for j in sorted(group, key=_job_start_sort_key)[:n]:
                if self._delete_job(cj, j):
                    update = True
        return update

    def _delete_job(self, cj: dict, job: dict) -> bool:
        """``deleteJob``: delete (background propagation) and drop it from ``status.active``."""
        try:
            self.client.delete("jobs", job["metadata"]["name"], job["metadata"]["namespace"],
                               propagation_policy="Background")
        except ApiError as e:
            self.event(cj, "Warning", "FailedDelete", f"Deleted job: {e}")
            return False
        self.deleted_jobs.add(job["metadata"]["uid"])
        st = cj.setdefault("status", {})
        st["active"] = [a for a in st.get("active") or [] if a.get("uid") != job["metadata"]["uid"]]
        self.event(cj, "Normal", "SuccessfulDelete", f"Deleted job {job['metadata']['name']}")
        return True
