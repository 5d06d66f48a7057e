"""Tests for the Job controller.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/job/job_controller_test.go
``TestControllerSyncJob``: the rows "job start", "WQ job start", "pending pods", "correct # of
pods", "too few active pods", "too many active pods", "failed + succeed pods: reset backoff delay",
"new failed pod", "job finish", "WQ job finishing", "WQ job all finished", "WQ job all finished
despite one failure", "more active pods than parallelism", "more active pods than remaining
completions", "status change", "too many job failures", "suspending a job with satisfied
expectations" and "resuming a suspended job" (test_controller_sync_job: one sync against a real API
server and informers, counting the pod creates/deletes the controller sends, as upstream counts
FakePodControl calls); backoff_utils_test.go ``TestGetRemainingBackoffTime`` style delays
(test_remaining_backoff_seconds) and ``TestNewBackoffRecord`` (test_new_backoff_record);
``TestPastDeadlineJobFinished`` (test_active_deadline_fails_the_job) and the
pastBackoffLimitOnFailure rows of ``TestJobBackoffForOnFailure`` (test_past_backoff_limit_on_failure).
End to end (Cluster): a Job with completions 3 / parallelism 2 completes; a failing Job retries
with the 10 s, 20 s, 40 s back-off and fails with BackoffLimitExceeded; an Indexed Job.
"""

from __future__ import annotations

from typing import Any

import pytest
import simpy

from kubenotes.apiserver.server import APIServer, format_timestamp
from kubenotes.client import SharedInformerFactory
from kubenotes.controllers.job import (
    BACKOFF_LIMIT_EXCEEDED_MESSAGE,
    COMPLETIONS_REACHED_MESSAGE,
    CONTROLLER_UID_LABEL,
    DEADLINE_EXCEEDED_MESSAGE,
    JOB_COMPLETION_INDEX_ANNOTATION,
    JOB_TRACKING_FINALIZER,
    BackoffRecord,
    JobController,
    past_backoff_limit_on_failure,
    remaining_backoff_seconds,
)
from kubenotes.controllers.reconciler import ControllerContext
from kubenotes.sim.cluster import Cluster


# --------------------------------------------------------------------------- pure functions


@pytest.mark.parametrize("failures,last,now,expected", [
    (0, None, 100.0, 0.0),
    (1, 100.0, 100.0, 10.0),
    (1, 100.0, 105.0, 5.0),
    (1, 100.0, 111.0, 0.0),
    (3, 100.0, 100.0, 40.0),
    (6, 100.0, 100.0, 320.0),
    (7, 100.0, 100.0, 600.0),   # capped at MaxJobPodFailureBackOff (10 min in v1.34)
    (20, 100.0, 400.0, 300.0),
])
def test_remaining_backoff_seconds(failures, last, now, expected):
    assert remaining_backoff_seconds(BackoffRecord(failures, last), now) == expected


def test_past_backoff_limit_on_failure():
    def job(limit: int, policy: str = "OnFailure") -> dict:
        return {"spec": {"backoffLimit": limit, "template": {"spec": {"restartPolicy": policy}}}}

    def pod(phase: str, *restarts: int) -> dict:
        return {"status": {"phase": phase, "containerStatuses": [{"restartCount": r} for r in restarts]}}

    assert past_backoff_limit_on_failure(job(0), [pod("Running", 1)])
    assert not past_backoff_limit_on_failure(job(0), [pod("Running", 0)])
    assert past_backoff_limit_on_failure(job(2), [pod("Running", 1), pod("Pending", 1)])
    assert not past_backoff_limit_on_failure(job(2), [pod("Running", 1), pod("Succeeded", 5)])
    assert not past_backoff_limit_on_failure(job(1, "Never"), [pod("Running", 3)])


# --------------------------------------------------------------------------- one sync against a real API server


def _harness():
    env = simpy.Environment()
    server = APIServer(env, seed=1)
    admin = server.client("kubectl")
    informers = SharedInformerFactory(server.client("kube-controller-manager"), env)
    ctrl = JobController(ControllerContext(env, server, informers, lambda comp, sa: server.client(comp)))
    informers.start()
    env.run(until=1)
    return env, server, admin, ctrl


def _job(parallelism: int, completions: int | None, backoff_limit: int = 6, suspend: bool = False) -> dict:
    spec: dict = {"parallelism": parallelism, "backoffLimit": backoff_limit, "suspend": suspend,
                  "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "foo"}]}}}
    if completions is not None:
        spec["completions"] = completions
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "foobar", "namespace": "default"},
            "spec": spec}


def _pod(admin: Any, job: dict, name: str, phase: str, ready: bool = False) -> dict:
    uid = job["metadata"]["uid"]
    pod = admin.create("pods", {"metadata": {
        "name": name, "labels": {CONTROLLER_UID_LABEL: uid}, "finalizers": [JOB_TRACKING_FINALIZER],
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "foobar", "uid": uid,
                             "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"containers": [{"name": "c", "image": "foo"}]}}, "default")
    st: dict = {"phase": phase}
    if ready:
        st["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": format_timestamp(0)}]
    if phase in ("Succeeded", "Failed"):
        st["containerStatuses"] = [{"name": "c", "state": {"terminated": {
            "exitCode": 0 if phase == "Succeeded" else 1, "finishedAt": format_timestamp(0)}}}]
    pod["status"] = st
    return admin.update_status("pods", pod, "default")


def _writes(server: APIServer, verb: str, start: int) -> int:
    """Pods the controller created / deleted (a delete that finishes when a finalizer goes is one pod)."""
    return len({e.name for e in server.audit_log[start:]
                if e.component == "job-controller" and e.kind == "Pod" and e.verb == verb})


# name, parallelism, completions, backoffLimit, suspend, pending, active, ready, succeeded, failed,
# -> creations, deletions, status.active, status.ready, status.succeeded, status.failed, conditions
SYNC_CASES = [
    ("job start", 2, 5, 6, False, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, []),
    ("WQ job start", 2, None, 6, False, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, []),
    ("pending pods", 2, 5, 6, False, 2, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, []),
    ("correct # of pods", 3, 5, 6, False, 0, 3, 2, 0, 0, 0, 0, 3, 2, 0, 0, []),
    ("too few active pods", 2, 5, 6, False, 0, 1, 0, 1, 0, 1, 0, 2, 0, 1, 0, []),
    ("too many active pods", 2, 5, 6, False, 0, 3, 0, 0, 0, 0, 1, 2, 0, 0, 0, []),
    ("failed + succeed pods: reset backoff delay", 2, 5, 6, False, 0, 1, 0, 1, 1, 1, 0, 2, 0, 1, 1, []),
    ("job finish", 2, 5, 6, False, 0, 0, 0, 5, 0, 0, 0, 0, 0, 5, 0, ["SuccessCriteriaMet", "Complete"]),
    ("WQ job finishing", 2, None, 6, False, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, []),
    ("WQ job all finished", 2, None, 6, False, 0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 0, ["SuccessCriteriaMet", "Complete"]),
    ("WQ job all finished despite one failure", 2, None, 6, False, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1,
     ["SuccessCriteriaMet", "Complete"]),
    ("more active pods than parallelism", 2, 5, 6, False, 0, 10, 0, 0, 0, 0, 8, 2, 0, 0, 0, []),
    ("more active pods than remaining completions", 3, 4, 6, False, 0, 3, 0, 2, 0, 0, 1, 2, 0, 2, 0, []),
    ("status change", 2, 5, 6, False, 0, 2, 0, 2, 0, 0, 0, 2, 0, 2, 0, []),
    ("too many job failures", 2, 5, 0, False, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, ["FailureTarget", "Failed"]),
    # the running pod is deleted and, the Job being finished, counted as failed; Failed waits for it to go
    ("too many job failures with an active pod", 2, 5, 0, False, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 2,
     ["FailureTarget"]),
    ("suspending a job with satisfied expectations", 2, 4, 6, True, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, ["Suspended"]),
]


@pytest.mark.parametrize("case", SYNC_CASES, ids=[c[0] for c in SYNC_CASES])
def test_controller_sync_job(case):
    (_, parallelism, completions, backoff_limit, suspend, pending, active, ready, succeeded, failed,
     want_creates, want_deletes, want_active, want_ready, want_succeeded, want_failed, want_conditions) = case
    env, server, admin, ctrl = _harness()
    job = admin.create("jobs", _job(parallelism, completions, backoff_limit, suspend), "default")
    n = 0
    for phase, count in (("Pending", pending), ("Running", active), ("Succeeded", succeeded), ("Failed", failed)):
        for i in range(count):
            _pod(admin, job, f"p{n}", phase, ready=phase == "Running" and i < ready)
            n += 1
    env.run(until=2)
    start = len(server.audit_log)
    ctrl.reconcile("default/foobar")
    assert _writes(server, "create", start) == want_creates
    assert _writes(server, "delete", start) == want_deletes
    st = server.get("jobs", "default", "foobar")["status"]
    assert st.get("active", 0) == want_active
    assert st.get("ready") == want_ready
    assert st.get("succeeded", 0) == want_succeeded
    assert st.get("failed", 0) == want_failed
    assert [c["type"] for c in st.get("conditions") or []] == want_conditions
    assert st["startTime"] if not suspend else "startTime" not in st
    if "FailureTarget" in want_conditions:
        c = st["conditions"][0]
        assert (c["reason"], c["message"]) == ("BackoffLimitExceeded", BACKOFF_LIMIT_EXCEEDED_MESSAGE)
    if "Complete" in want_conditions:
        for c in st["conditions"]:
            assert (c["reason"], c["message"]) == ("CompletionsReached", COMPLETIONS_REACHED_MESSAGE)
        assert st["completionTime"] == st["conditions"][1]["lastTransitionTime"]
    if suspend:
        c = st["conditions"][0]
        assert (c["status"], c["reason"], c["message"]) == ("True", "JobSuspended", "Job suspended")
    # finished pods are counted once: their finalizers are gone and uncountedTerminatedPods is empty
    assert not (st.get("uncountedTerminatedPods") or {}).get("succeeded")
    for p in server.list("pods", "default"):
        if p["status"]["phase"] in ("Succeeded", "Failed"):
            assert JOB_TRACKING_FINALIZER not in (p["metadata"].get("finalizers") or [])


def test_resuming_a_suspended_job():
    env, server, admin, ctrl = _harness()
    job = admin.create("jobs", _job(2, 4, suspend=True), "default")
    env.run(until=2)
    ctrl.reconcile("default/foobar")
    env.run(until=3)
    job = admin.get("jobs", "foobar", "default")
    job["spec"]["suspend"] = False
    admin.update("jobs", job, "default")
    env.run(until=4)
    start = len(server.audit_log)
    ctrl.reconcile("default/foobar")
    assert _writes(server, "create", start) == 2
    st = server.get("jobs", "default", "foobar")["status"]
    c = st["conditions"][0]
    assert (c["type"], c["status"], c["reason"], c["message"]) == ("Suspended", "False", "JobResumed", "Job resumed")
    assert st["active"] == 2 and st["startTime"] == format_timestamp(4)


def test_new_backoff_record():
    env, server, admin, ctrl = _harness()
    job = admin.create("jobs", _job(1, 3), "default")
    f1 = _pod(admin, job, "f1", "Failed")
    rec = ctrl._new_backoff_record("default/foobar", [], [f1])
    assert (rec.failures_after_last_success, rec.last_failure_time) == (1, 0.0)
    ctrl.backoff_store["default/foobar"] = rec
    rec = ctrl._new_backoff_record("default/foobar", [], [f1, f1])
    assert rec.failures_after_last_success == 3
    # a success resets; failures finishing after it still count
    s = _pod(admin, job, "s1", "Succeeded")
    assert ctrl._new_backoff_record("default/foobar", [s], []).failures_after_last_success == 0
    late = dict(f1)
    late["status"] = {"phase": "Failed", "containerStatuses": [{"state": {"terminated": {
        "finishedAt": format_timestamp(30)}}}]}
    rec = ctrl._new_backoff_record("default/foobar", [s], [late])
    assert (rec.failures_after_last_success, rec.last_failure_time) == (1, 30.0)


# --------------------------------------------------------------------------- end to end


def nodes(n: int = 3) -> list[dict]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
             "status": {"allocatable": alloc, "capacity": alloc}} for i in range(1, n + 1)]


def job_manifest(completions: int | None = 3, parallelism: int = 2, exit_code: int = 0, run_seconds: int = 5,
                 **spec: Any) -> dict:
    s: dict = {"parallelism": parallelism, **spec, "template": {
        "metadata": {"annotations": {"kubenotes.io/run-seconds": str(run_seconds),
                                     "kubenotes.io/exit-code": str(exit_code)}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl:5.34"}]}}}
    if completions is not None:
        s["completions"] = completions
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default"}, "spec": s}


def run(job: dict, until: float) -> Cluster:
    c = Cluster(nodes() + [job], seed=0, controllers=["job-controller"], authorization=False, kubelet="stand-in")
    c.run(until=until)
    return c


def job_events(c: Cluster) -> list[tuple[str, str]]:
    return [(e["reason"], e["message"]) for e in sorted(c.list("events", "default"),
                                                        key=lambda e: (e["firstTimestamp"], e["metadata"]["name"]))
            if e["involvedObject"]["kind"] == "Job"]


def test_job_with_completions_3_parallelism_2_completes():
    c = run(job_manifest(), until=60)
    job = c.get("jobs", "pi", "default")
    st = job["status"]
    assert st["succeeded"] == 3 and "active" not in st and "failed" not in st
    assert [x["type"] for x in st["conditions"]] == ["SuccessCriteriaMet", "Complete"]
    # two pods run 2+5 s, the third starts after the batch period: 0 -> 7 -> 8 (sync) -> 15 -> 16
    assert st["completionTime"] == "2025-08-27T00:00:16Z"
    pods = c.list("pods", "default")
    assert len(pods) == 3
    for p in pods:
        assert p["metadata"]["name"].startswith("pi-") and len(p["metadata"]["name"]) == len("pi-") + 5
        labels = p["metadata"]["labels"]
        uid = job["metadata"]["uid"]
        assert labels == {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "pi",
                          "controller-uid": uid, "job-name": "pi"}
        assert p["metadata"].get("finalizers") in (None, [])  # tracking finalizer removed once counted
    ev = job_events(c)
    assert sum(1 for r, _ in ev if r == "SuccessfulCreate") == 3
    assert ev[-1] == ("Completed", "Job completed")


def test_failing_job_backs_off_and_hits_backoff_limit():
    c = run(job_manifest(completions=1, parallelism=1, exit_code=1, backoffLimit=3), until=200)
    st = c.get("jobs", "pi", "default")["status"]
    assert st["failed"] == 4
    assert [x["type"] for x in st["conditions"]] == ["FailureTarget", "Failed"]
    assert all(x["reason"] == "BackoffLimitExceeded" for x in st["conditions"])
    created = sorted(p["metadata"]["creationTimestamp"] for p in c.list("pods", "default"))
    # fails 7 s after creation (2 s start + 5 s run); replacements after 10, 20, 40 s of back-off
    assert created == ["2025-08-27T00:00:00Z", "2025-08-27T00:00:17Z", "2025-08-27T00:00:44Z",
                       "2025-08-27T00:01:31Z"]
    ev = job_events(c)
    assert ev[-1] == ("BackoffLimitExceeded", BACKOFF_LIMIT_EXCEEDED_MESSAGE)
    assert sum(1 for r, _ in ev if r == "SuccessfulCreate") == 4


def test_active_deadline_fails_the_job():
    c = run(job_manifest(completions=1, parallelism=1, run_seconds=100, activeDeadlineSeconds=10), until=30)
    st = c.get("jobs", "pi", "default")["status"]
    assert [x["type"] for x in st["conditions"]] == ["FailureTarget", "Failed"]
    assert st["conditions"][0]["reason"] == "DeadlineExceeded"
    assert st["conditions"][0]["message"] == DEADLINE_EXCEEDED_MESSAGE
    assert st["conditions"][0]["lastTransitionTime"] == "2025-08-27T00:00:10Z"
    # the running pod was deleted and counted as failed once it was gone
    assert st["failed"] == 1 and c.list("pods", "default") == []
    assert ("DeadlineExceeded", DEADLINE_EXCEEDED_MESSAGE) in job_events(c)


def test_indexed_job_gets_one_pod_per_index():
    c = run(job_manifest(completions=3, parallelism=3, completionMode="Indexed"), until=30)
    st = c.get("jobs", "pi", "default")["status"]
    assert st["completedIndexes"] == "0-2" and st["succeeded"] == 3
    pods = sorted(c.list("pods", "default"),
                  key=lambda p: p["metadata"]["annotations"][JOB_COMPLETION_INDEX_ANNOTATION])
    assert [p["metadata"]["annotations"][JOB_COMPLETION_INDEX_ANNOTATION] for p in pods] == ["0", "1", "2"]
    assert [p["spec"]["hostname"] for p in pods] == ["pi-0", "pi-1", "pi-2"]
    assert all(p["metadata"]["name"].startswith(f"pi-{i}-") for i, p in enumerate(pods))
    assert pods[0]["metadata"]["labels"][JOB_COMPLETION_INDEX_ANNOTATION] == "0"


def test_work_queue_job_without_completions():
    c = run(job_manifest(completions=None, parallelism=2), until=30)
    st = c.get("jobs", "pi", "default")["status"]
    assert st["succeeded"] == 2
    assert [x["type"] for x in st["conditions"]] == ["SuccessCriteriaMet", "Complete"]


def test_deleted_job_releases_its_pods_finalizers():
    c = Cluster(nodes() + [job_manifest(completions=2, parallelism=2, run_seconds=100)], seed=0,
                controllers=["job-controller", "garbage-collector-controller"], authorization=False, kubelet="stand-in")
    c.run(until=10)
    assert all(JOB_TRACKING_FINALIZER in p["metadata"]["finalizers"] for p in c.list("pods", "default"))
    c.client.delete("jobs", "pi", "default", propagation_policy="Background")
    c.run(until=30)
    # the garbage collector deletes the pods; the Job controller removes the finalizers of the orphans
    assert c.list("pods", "default") == []
