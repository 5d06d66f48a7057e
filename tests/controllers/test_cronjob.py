"""Tests for the CronJob controller (v2).

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/cronjob/utils_test.go: every row of
``TestMostRecentScheduleTime`` (test_most_recent_schedule_time) and of
``TestNextScheduleTimeDuration`` (test_next_schedule_time_duration), and the naming of
``getJobFromTemplate2`` (test_job_name_is_minutes_since_epoch). The ``TestControllerV2SyncCronJob``
behaviours (concurrency policies, suspend, missed deadlines, history limits, events) are checked
end to end in a :class:`~kubenotes.sim.cluster.Cluster` with the Job controller.
"""

from __future__ import annotations

import datetime as dt

import pytest

from kubenotes.controllers.cron import CronError, parse_standard
from kubenotes.controllers.cronjob import (
    CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION,
    FEW_MISSED,
    MANY_MISSED,
    NONE_MISSED,
    TOO_MANY_MISSED_MESSAGE,
    get_job_name,
    most_recent_schedule_time,
    next_schedule_time_duration,
)
from kubenotes.sim.cluster import Cluster

TOP = dt.datetime(2016, 5, 19, 10, tzinfo=dt.timezone.utc)


def after(**kw) -> dt.datetime:
    return TOP + dt.timedelta(**kw)


@pytest.mark.parametrize("name,schedule,created,last,sds,now,earliest,recent,missed", [
    ("now before next schedule", "0 * * * *", TOP, None, None, after(seconds=30), TOP, None, NONE_MISSED),
    ("now just after next schedule", "0 * * * *", TOP, None, None, after(minutes=61), TOP, after(minutes=60),
     NONE_MISSED),
    ("missed 5 schedules", "0 * * * *", after(seconds=10), None, None, after(minutes=301), after(seconds=10),
     after(minutes=300), FEW_MISSED),
    ("complex schedule", "30 6-16/4 * * 1-5", TOP, after(minutes=30), None, after(hours=24, minutes=31),
     after(minutes=30), after(hours=24, minutes=30), FEW_MISSED),
    ("another complex schedule", "30 10,11,12 * * 1-5", TOP, after(minutes=30), None, after(hours=30, minutes=30),
     after(minutes=30), None, FEW_MISSED),
    ("complex schedule with longer diff between executions", "30 6-16/4 * * 1-5", TOP, after(minutes=30), None,
     after(hours=96, minutes=31), after(minutes=30), after(hours=96, minutes=30), FEW_MISSED),
    ("complex schedule with shorter diff between executions", "30 6-16/4 * * 1-5", TOP, None, None,
     after(hours=24, minutes=31), TOP, after(hours=24, minutes=30), FEW_MISSED),
    ("@every schedule", "@every 1h", after(minutes=-59), after(minutes=1), 10, after(hours=7 * 24),
     after(minutes=1), after(hours=6 * 24 + 23, minutes=1), MANY_MISSED),
    ("earliestTime being CreationTimestamp and LastScheduleTime", "0 * * * *", TOP, TOP, None, after(seconds=30),
     TOP, None, NONE_MISSED),
    ("earliestTime being LastScheduleTime", "*/5 * * * *", TOP, after(minutes=30), None, after(minutes=31),
     after(minutes=30), None, NONE_MISSED),
    ("earliestTime being LastScheduleTime (within StartingDeadlineSeconds)", "*/5 * * * *", TOP, after(minutes=30),
     60, after(minutes=31), after(minutes=30), None, NONE_MISSED),
])
def test_most_recent_schedule_time(name, schedule, created, last, sds, now, earliest, recent, missed):
    # upstream's test calls mostRecentScheduleTime with includeStartingDeadlineSeconds=false except in the
    # "outside StartingDeadlineSeconds" row below, so sds is only carried as data here
    got_earliest, got_recent, got_missed = most_recent_schedule_time(last or created, now, parse_standard(schedule))
    assert (got_earliest, got_recent, got_missed) == (earliest, recent, missed), name


def test_most_recent_schedule_time_outside_starting_deadline():
    # "earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)": includeSDS moves earliest to now-60s
    got = most_recent_schedule_time(after(minutes=30), after(minutes=32), parse_standard("*/5 * * * *"), 60)
    assert got == (after(minutes=31), None, NONE_MISSED)


def test_most_recent_schedule_time_rogue_cronjob():
    with pytest.raises(CronError, match="time difference between two schedules is less than 1 second"):
        most_recent_schedule_time(after(seconds=10), after(hours=1), parse_standard("59 23 31 2 *"))


@pytest.mark.parametrize("schedule,last,now,expected", [
    ("30 6-16/4 * * 1-5", after(minutes=30), after(hours=24, minutes=31), dt.timedelta(hours=3, minutes=59)),
    ("30 10,11,12 * * 1-5", after(minutes=30), after(hours=30, minutes=30), dt.timedelta(hours=66)),
    ("0 12 * * 4", after(hours=2), after(hours=19 * 24 + 1, minutes=30), dt.timedelta(hours=48, minutes=30)),
    ("0 12 * * 5", None, after(hours=6), dt.timedelta(hours=20)),
])
def test_next_schedule_time_duration(schedule, last, now, expected):
    got = next_schedule_time_duration(last or TOP, now, parse_standard(schedule))
    assert got == pytest.approx(expected.total_seconds() + 0.1)


def test_job_name_is_minutes_since_epoch():
    assert get_job_name("hello", dt.datetime(2025, 8, 27, 0, 1, tzinfo=dt.timezone.utc)) == "hello-29270881"
    # same minute, same name: the name is the lock against creating a run twice
    assert get_job_name("hello", dt.datetime(2025, 8, 27, 0, 1, 59, tzinfo=dt.timezone.utc)) == "hello-29270881"


# --------------------------------------------------------------------------- end to end


def nodes(n: int = 3) -> list[dict]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
             "status": {"allocatable": alloc, "capacity": alloc}} for i in range(1, n + 1)]


def cronjob(name: str = "hello", schedule: str = "* * * * *", run_seconds: int = 5, exit_code: int = 0,
            **spec) -> dict:
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name, "namespace": "default"},
            "spec": {"schedule": schedule, **spec, "jobTemplate": {"spec": {"backoffLimit": 0, "template": {
                "metadata": {"annotations": {"kubenotes.io/run-seconds": str(run_seconds),
                                             "kubenotes.io/exit-code": str(exit_code)}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}


def run(objs: list[dict], until: float) -> Cluster:
    c = Cluster(nodes() + objs, seed=0, controllers=["job-controller", "cronjob-controller"], authorization=False, kubelet="stand-in")
    c.run(until=until)
    return c


def cj_events(c: Cluster, name: str = "hello") -> list[tuple[str, str, str, int]]:
    return [(e["reason"], e["message"], e["type"], e["count"]) for e in c.list("events", "default")
            if e["involvedObject"]["kind"] == "CronJob" and e["involvedObject"]["name"] == name]


def test_allow_creates_a_job_each_minute_and_keeps_three_successful():
    c = run([cronjob()], until=5 * 60 + 30)
    jobs = sorted(j["metadata"]["name"] for j in c.list("jobs", "default"))
    assert jobs == ["hello-29270883", "hello-29270884", "hello-29270885"]  # 00:03, 00:04, 00:05
    job = c.get("jobs", "hello-29270885", "default")
    assert job["metadata"]["annotations"][CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION] == "2025-08-27T00:05:00Z"
    ref = job["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["controller"]) == ("CronJob", True)
    st = c.get("cronjobs", "hello", "default")["status"]
    assert st["lastScheduleTime"] == "2025-08-27T00:05:00Z"
    assert st["lastSuccessfulTime"] == "2025-08-27T00:05:08Z"  # created 00:05, running +2 s, exits +5 s, sync +1 s
    assert "active" not in st
    ev = cj_events(c)
    assert ("SuccessfulCreate", "Created job hello-29270881", "Normal", 1) in ev
    assert ("SawCompletedJob", "Saw completed job: hello-29270881, status: Complete", "Normal", 1) in ev
    assert ("SuccessfulDelete", "Deleted job hello-29270881", "Normal", 1) in ev
    assert not any(r.startswith("Failed") for r, *_ in ev)


def test_failed_jobs_history_limit_is_one():
    c = run([cronjob(exit_code=1)], until=3 * 60 + 30)
    jobs = [j for j in c.list("jobs", "default")]
    assert [j["metadata"]["name"] for j in jobs] == ["hello-29270883"]
    assert [cd["type"] for cd in jobs[0]["status"]["conditions"]] == ["FailureTarget", "Failed"]
    assert "lastSuccessfulTime" not in c.get("cronjobs", "hello", "default")["status"]


def test_forbid_skips_while_a_run_is_active_then_starts_the_missed_one():
    c = run([cronjob(run_seconds=100, concurrencyPolicy="Forbid")], until=170)
    # run 1 (00:01) ends at 60+2+100=162 s; the 00:02 run waited and started right after
    names = sorted(j["metadata"]["name"] for j in c.list("jobs", "default"))
    assert names == ["hello-29270881", "hello-29270882"]
    assert c.get("jobs", "hello-29270882", "default")["metadata"]["creationTimestamp"] == "2025-08-27T00:02:43Z"
    reasons = [r for r, *_ in cj_events(c)]
    assert "JobAlreadyActive" in reasons
    msg = next(m for r, m, *_ in cj_events(c) if r == "JobAlreadyActive")
    assert msg == "Not starting job because prior execution is running and concurrency policy is Forbid"


def test_replace_deletes_the_running_job():
    c = run([cronjob(run_seconds=100, concurrencyPolicy="Replace")], until=130)
    names = [j["metadata"]["name"] for j in c.list("jobs", "default")]
    assert names == ["hello-29270882"]
    st = c.get("cronjobs", "hello", "default")["status"]
    assert [a["name"] for a in st["active"]] == ["hello-29270882"]
    assert ("SuccessfulDelete", "Deleted job hello-29270881", "Normal", 1) in cj_events(c)


def test_allow_runs_concurrently():
    c = run([cronjob(run_seconds=100)], until=130)
    st = c.get("cronjobs", "hello", "default")["status"]
    assert [a["name"] for a in st["active"]] == ["hello-29270881", "hello-29270882"]


def test_suspend_then_resume_warns_about_too_many_missed_times():
    c = Cluster(nodes() + [cronjob(suspend=True)], seed=0, controllers=["job-controller", "cronjob-controller"],
                authorization=False, kubelet="stand-in")
    c.run(until=102 * 60 + 30)
    assert c.list("jobs", "default") == []
    c.apply({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello", "namespace": "default"},
             "spec": {"suspend": False}})
    c.run_for(5)
    ev = cj_events(c)
    assert ("TooManyMissedTimes", TOO_MANY_MISSED_MESSAGE, "Warning", 1) in ev
    # only the most recent missed time (00:102 = 01:42) is started
    assert [j["metadata"]["name"] for j in c.list("jobs", "default")] == [get_job_name(
        "hello", dt.datetime(2025, 8, 27, 1, 42, tzinfo=dt.timezone.utc))]


def test_starting_deadline_missed_records_miss_schedule():
    # suspended through 00:01; resumed at 00:01:30 with a 10 s starting deadline: too late for 00:01
    c = Cluster(nodes() + [cronjob(suspend=True, startingDeadlineSeconds=10)], seed=0,
                controllers=["job-controller", "cronjob-controller"], authorization=False, kubelet="stand-in")
    c.run(until=90)
    c.apply({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello", "namespace": "default"},
             "spec": {"suspend": False}})
    c.run(until=100)
    assert c.list("jobs", "default") == []
    c.run(until=125)
    assert [j["metadata"]["name"] for j in c.list("jobs", "default")] == ["hello-29270882"]


def test_unparseable_schedule_and_tz_warnings():
    c = run([cronjob(name="bad", schedule="61 * * * *"), cronjob(name="tz", schedule="TZ=UTC 0 * * * *")], until=5)
    assert ("UnparseableSchedule", 'unparseable schedule: "61 * * * *" : end of range (61) above maximum (59): 61',
            "Warning", 1) in cj_events(c, "bad")
    assert any(r == "UnsupportedSchedule" and "CRON_TZ or TZ used in schedule \"TZ=UTC 0 * * * *\"" in m
               for r, m, *_ in cj_events(c, "tz"))


def test_time_zone_field_schedules_in_that_zone():
    # 09:00 in Tokyo is 00:00 UTC; the run of 2025-08-28 09:00 JST happens at virtual 86400 s
    c = run([cronjob(schedule="0 9 * * *", timeZone="Asia/Tokyo")], until=86400 + 30)
    job = c.list("jobs", "default")[0]
    assert job["metadata"]["name"] == get_job_name("hello", dt.datetime(2025, 8, 28, tzinfo=dt.timezone.utc))
    assert job["metadata"]["annotations"][CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION] == "2025-08-28T09:00:00+09:00"
