"""Tests for the Job controller's podFailurePolicy, backoffLimitPerIndex, successPolicy and podReplacementPolicy.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/job/job_controller_test.go, each row
named as upstream names it:

- ``TestSyncJobWithJobPodFailurePolicy`` (test_sync_job_with_pod_failure_policy): every row but
  the feature-gate variants; v1.34 has JobPodReplacementPolicy and JobManagedBy on, so the rows
  take their "JobManagedBy enabled" outcome (an interim ``FailureTarget`` always, ``Failed`` only
  once no pod is terminating, ``status.terminating`` reported).
- ``TestSyncJobWithJobSuccessPolicy`` (test_sync_job_with_success_policy): the rows with every
  gate on; where upstream's row leaves JobBackoffLimitPerIndex off although the Job sets
  ``backoffLimitPerIndex``, the v1.34 outcome adds ``failedIndexes: ""``.
- ``TestSyncJobWithJobBackoffLimitPerIndex`` (test_sync_job_with_backoff_limit_per_index): the
  rows with every gate on.

Each row is one sync against a real API server and informers (pods made through the API, the
controller's writes read back), as tests/controllers/test_job.py does for ``TestControllerSyncJob``.
Upstream's pods finished at the zero time, long before the sync; here they finish at t=0 and the
sync runs at t=30, after the first 10 s back-off. Also: the pure matchers
(``pod_failure_policy_test.go`` ``TestMatchPodFailurePolicy`` style and ``success_policy_test.go``
``TestMatchSuccessPolicy`` style rows), the ``kubectl get job`` STATUS column (printers_test.go
``TestPrintJob``), and end to end with the stand-in kubelet: a FailJob exit code, an Ignore rule, a
per-index back-off, a success policy and podReplacementPolicy Failed vs TerminatingOrFailed.
"""

from __future__ import annotations

from typing import Any

import pytest
import simpy

from kubenotes.apiserver.server import APIServer, format_timestamp
from kubenotes.apiserver.tables import _job_status
from kubenotes.client import SharedInformerFactory
from kubenotes.controllers.job import (
    CONTROLLER_UID_LABEL,
    JOB_COMPLETION_INDEX_ANNOTATION,
    JOB_INDEX_FAILURE_COUNT_ANNOTATION,
    JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION,
    JOB_TRACKING_FINALIZER,
    JobController,
    match_pod_failure_policy,
    match_success_policy,
)
from kubenotes.controllers.reconciler import ControllerContext
from kubenotes.sim.cluster import Cluster

MAX_INT32 = 2**31 - 1
BLE = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
CRE = ("CompletionsReached", "Reached expected number of succeeded pods")

# ------------------------------------------------------------------ building blocks


def _harness():
    env = simpy.Environment()
    server = APIServer(env, seed=1)
    admin = server.client("kubectl")
    informers = SharedInformerFactory(server.client("kube-controller-manager"), env)
    ctrl = JobController(ControllerContext(env, server, informers, lambda comp, sa: server.client(comp)))
    informers.start()
    env.run(until=1)
    return env, server, admin, ctrl


def terminated(code: int, name: str = "main-container") -> dict:
    return {"name": name, "state": {"terminated": {"exitCode": code, "finishedAt": format_timestamp(0)}}}


def failed(*containers: dict, conditions: tuple[str, ...] = (), init: tuple[dict, ...] = ()) -> dict:
    st: dict = {"phase": "Failed", "containerStatuses": list(containers) or [terminated(1)]}
    if conditions:
        st["conditions"] = [{"type": t, "status": "True", "lastTransitionTime": format_timestamp(0)}
                            for t in conditions]
    if init:
        st["initContainerStatuses"] = list(init)
    return st


SUCCEEDED = {"phase": "Succeeded", "containerStatuses": [
    {"name": "main-container", "state": {"terminated": {"exitCode": 0, "finishedAt": format_timestamp(0)}}}]}
RUNNING = {"phase": "Running"}
PENDING = {"phase": "Pending"}


def pod(status: dict, index: int | None = None, failure_count: int | None = None, finalizer: bool = True,
        deleted: bool = False) -> dict:
    """A pod row: its status, completion index, index-failure-count annotation; ``deleted`` just before the sync."""
    return {"status": status, "index": index, "failure_count": failure_count, "finalizer": finalizer,
            "deleted": deleted}


def exit_rule(action: str, op: str, *values: int, container: str | None = None) -> dict:
    req: dict = {"operator": op, "values": list(values)}
    if container is not None:
        req["containerName"] = container
    return {"action": action, "onExitCodes": req}


def condition_rule(action: str, ctype: str) -> dict:
    return {"action": action, "onPodConditions": [{"type": ctype, "status": "True"}]}


ON_EXIT_CODE_RULES = [exit_rule("Ignore", "In", 1, 2, 3), exit_rule("FailJob", "In", 5, 6, 7)]


def job_spec(parallelism: int, completions: int | None, backoff_limit: int, indexed: bool = False,
             **extra: Any) -> dict:
    spec: dict = {"parallelism": parallelism, "backoffLimit": backoff_limit, **extra,
                  "template": {"spec": {"restartPolicy": "Never",
                                        "containers": [{"name": "main-container", "image": "foo/bar"}]}}}
    if completions is not None:
        spec["completions"] = completions
    if indexed:
        spec["completionMode"] = "Indexed"
    return spec


def sync_once(spec: dict, pods: list[dict], status: dict | None = None) -> tuple[dict, APIServer, int]:
    """One ``syncJob`` at t=30 of a Job ``default/foobar`` with the given pods; its status, the server, pods created."""
    env, server, admin, ctrl = _harness()
    job = admin.create("jobs", {"apiVersion": "batch/v1", "kind": "Job",
                                "metadata": {"name": "foobar", "namespace": "default"}, "spec": spec}, "default")
    if status:
        job["status"] = status
        job = admin.update_status("jobs", job, "default")
    uid = job["metadata"]["uid"]
    to_delete = []
    for i, row in enumerate(pods):
        ann = {}
        if row["index"] is not None:
            ann[JOB_COMPLETION_INDEX_ANNOTATION] = str(row["index"])
        if row["failure_count"] is not None:
            ann[JOB_INDEX_FAILURE_COUNT_ANNOTATION] = str(row["failure_count"])
        p = admin.create("pods", {"metadata": {
            "name": f"mypod-{i}", "labels": {CONTROLLER_UID_LABEL: uid}, "annotations": ann,
            "finalizers": [JOB_TRACKING_FINALIZER] if row["finalizer"] else [],
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "foobar", "uid": uid,
                                 "controller": True, "blockOwnerDeletion": True}]},
            "spec": {"containers": [{"name": "main-container", "image": "foo/bar"}]}}, "default")
        p["status"] = row["status"]
        admin.update_status("pods", p, "default")
        if row["deleted"]:
            to_delete.append(p["metadata"]["name"])
    env.run(until=29)
    for name in to_delete:
        admin.delete("pods", name, "default")
    env.run(until=30)
    start = len(server.audit_log)
    ctrl.reconcile("default/foobar")
    created = len({e.name for e in server.audit_log[start:]
                   if e.component == "job-controller" and e.kind == "Pod" and e.verb == "create"})
    return server.get("jobs", "default", "foobar")["status"], server, created


def conditions(st: dict) -> list[tuple[str, str, str]]:
    return [(c["type"], c.get("reason", ""), c.get("message", "")) for c in st.get("conditions") or []]


def counts(st: dict) -> tuple[int, int, int, int]:
    """(active, succeeded, failed, terminating)."""
    return st.get("active", 0), st.get("succeeded", 0), st.get("failed", 0), st.get("terminating", 0)


def _msg(container: str, pod_name: str, code: int, rule: int) -> str:
    return (f"Container {container} for pod default/{pod_name} failed with exit code {code} "
            f"matching FailJob rule at index {rule}")


# ------------------------------------------------------------------ TestSyncJobWithJobPodFailurePolicy

FAIL_5 = _msg("main-container", "mypod-0", 5, 1)
PFP = "PodFailurePolicy"
DISRUPTION_MSG = "Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0"

# name, spec, pods, initial conditions, -> conditions, (active, succeeded, failed, terminating)
PFP_CASES = [
    ("default handling for pod failure if the container matching the exit codes does not match the containerName "
     "restriction",
     job_spec(1, 1, 6, podFailurePolicy={"rules": [
         exit_rule("Ignore", "In", 1, 2, 3, container="main-container"),
         exit_rule("FailJob", "In", 5, 6, 7, container="main-container")]}),
     [pod(failed(terminated(5, "monitoring-container"), terminated(42)))], None, [], (1, 0, 1, 0)),
    ("running pod should not result in job fail based on OnExitCodes",
     job_spec(1, 1, 6, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod({"phase": "Running", "containerStatuses": [terminated(5)]})], None, [], (1, 0, 0, 0)),
    ("fail job based on OnExitCodes",
     job_spec(1, 1, 6, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(failed(terminated(5)))], None,
     [("FailureTarget", PFP, FAIL_5), ("Failed", PFP, FAIL_5)], (0, 0, 1, 0)),
    ("job marked already as failure target with failed pod",
     job_spec(1, 1, 6, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(failed(terminated(5)))], [("FailureTarget", PFP, FAIL_5)],
     [("FailureTarget", PFP, FAIL_5), ("Failed", PFP, FAIL_5)], (0, 0, 1, 0)),
    ("job marked already as failure target with failed pod, message based on already deleted pod",
     job_spec(1, 1, 6, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(failed(terminated(5)))], [("FailureTarget", PFP, _msg("main-container", "already-deleted-pod", 5, 1))],
     [("FailureTarget", PFP, _msg("main-container", "already-deleted-pod", 5, 1)),
      ("Failed", PFP, _msg("main-container", "already-deleted-pod", 5, 1))], (0, 0, 1, 0)),
    # v1.34 (JobManagedBy on): the running pod is deleted and counted failed; Failed waits for it to terminate
    ("fail job with multiple pods; JobManagedBy enabled delays setting terminal condition",
     job_spec(2, 2, 6, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(RUNNING), pod(failed(terminated(5)))], None,
     [("FailureTarget", PFP, _msg("main-container", "mypod-1", 5, 1))], (0, 0, 2, 1)),
    ("fail indexed job based on OnExitCodes",
     job_spec(1, 1, 6, indexed=True, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(failed(terminated(5)), index=0)], None,
     [("FailureTarget", PFP, FAIL_5), ("Failed", PFP, FAIL_5)], (0, 0, 1, 0)),
    ("fail job based on OnExitCodes with NotIn operator",
     job_spec(1, 1, 6, podFailurePolicy={"rules": [exit_rule("FailJob", "NotIn", 5, 6, 7)]}),
     [pod(failed(terminated(42)))], None,
     [("FailureTarget", PFP, _msg("main-container", "mypod-0", 42, 0)),
      ("Failed", PFP, _msg("main-container", "mypod-0", 42, 0))], (0, 0, 1, 0)),
    ("default handling job based on OnExitCodes with NotIn operator",
     job_spec(1, 1, 6, podFailurePolicy={"rules": [exit_rule("FailJob", "NotIn", 5, 6, 7)]}),
     [pod(failed(terminated(5)))], None, [], (1, 0, 1, 0)),
    ("fail job based on OnExitCodes for InitContainer",
     job_spec(1, 1, 6, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(failed(terminated(143), init=(terminated(5, "init-container"),)))], None,
     [("FailureTarget", PFP, _msg("init-container", "mypod-0", 5, 1)),
      ("Failed", PFP, _msg("init-container", "mypod-0", 5, 1))], (0, 0, 1, 0)),
    ("ignore pod failure; both rules are matching, the first is executed only",
     job_spec(1, 1, 0, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(failed(terminated(2, "container1"), terminated(6, "container2")))], None, [], (1, 0, 0, 0)),
    ("ignore pod failure based on OnExitCodes",
     job_spec(1, 1, 0, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(failed(terminated(1)))], None, [], (1, 0, 0, 0)),
    ("default job based on OnExitCodes; JobManagedBy enabled triggers adding interim condition",
     job_spec(1, 1, 0, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
     [pod(failed(terminated(10)))], None,
     [("FailureTarget",) + BLE, ("Failed",) + BLE], (0, 0, 1, 0)),
    ("count pod failure based on OnExitCodes; both rules are matching, the first is executed only",
     job_spec(1, 1, 6, podFailurePolicy={"rules": [exit_rule("Count", "In", 1, 2), exit_rule("Ignore", "In", 2, 3)]}),
     [pod(failed(terminated(2)))], None, [], (1, 0, 1, 0)),
    ("count pod failure based on OnPodConditions; both rules are matching, the first is executed only",
     job_spec(1, 1, 6, podFailurePolicy={"rules": [condition_rule("Count", "ResourceLimitExceeded"),
                                                    condition_rule("Ignore", "DisruptionTarget")]}),
     [pod(failed(terminated(0), conditions=("ResourceLimitExceeded", "DisruptionTarget")))], None, [],
     (1, 0, 1, 0)),
    ("ignore pod failure based on OnPodConditions",
     job_spec(1, 1, 0, podFailurePolicy={"rules": [condition_rule("Ignore", "DisruptionTarget")]}),
     [pod(failed(terminated(0), conditions=("DisruptionTarget",)))], None, [], (1, 0, 0, 0)),
    # deleted at t=29 without a finish time: the ignored failure still starts the 10 s back-off
    ("ignore pod failure based on OnPodConditions, ignored failures delays pod recreation",
     job_spec(1, 1, 0, podFailurePolicy={"rules": [condition_rule("Ignore", "DisruptionTarget")]}),
     [pod({"phase": "Failed", "conditions": [{"type": "DisruptionTarget", "status": "True"}]}, deleted=True)],
     None, [], (0, 0, 0, 0)),
    ("fail job based on OnPodConditions",
     job_spec(1, 1, 6, podFailurePolicy={"rules": [condition_rule("FailJob", "DisruptionTarget")]}),
     [pod(failed(terminated(0), conditions=("DisruptionTarget",)))], None,
     [("FailureTarget", PFP, DISRUPTION_MSG), ("Failed", PFP, DISRUPTION_MSG)], (0, 0, 1, 0)),
    # v1.34 reports the terminating pod, and (podReplacementPolicy Failed) does not replace it yet
    ("terminating Pod not considered failed when JobPodFailurePolicy is enabled and used",
     job_spec(1, None, 0, podFailurePolicy={"rules": [condition_rule("Count", "DisruptionTarget")]}),
     [pod(RUNNING, deleted=True)], None, [], (0, 0, 0, 1)),
]


def _status_with(conds: list[tuple[str, str, str]] | None, **extra: Any) -> dict | None:
    if conds is None and not extra:
        return None
    st = dict(extra)
    if conds:
        st["conditions"] = [{"type": t, "status": "True", "reason": r, "message": m,
                             "lastProbeTime": format_timestamp(0), "lastTransitionTime": format_timestamp(0)}
                            for t, r, m in conds]
    return st


@pytest.mark.parametrize("case", PFP_CASES, ids=[c[0] for c in PFP_CASES])
def test_sync_job_with_pod_failure_policy(case):
    _, spec, pods, initial, want_conditions, want_counts = case
    st, _, _ = sync_once(spec, pods, _status_with(initial))
    assert conditions(st) == want_conditions
    assert counts(st) == want_counts


def test_failed_job_terminates_its_pods_and_releases_finalizers():
    """FailJob: the running pod is deleted; finished pods lose the tracking finalizer once counted."""
    st, server, created = sync_once(job_spec(2, 2, 6, podFailurePolicy={"rules": ON_EXIT_CODE_RULES}),
                                    [pod(RUNNING), pod(failed(terminated(5)))])
    assert created == 0
    deleted = {e.name for e in server.audit_log if e.component == "job-controller" and e.verb == "delete"}
    assert deleted == {"mypod-0"}
    # neither pod keeps the tracking finalizer (the unscheduled running pod is then gone at once)
    for p in server.list("pods", "default"):
        assert JOB_TRACKING_FINALIZER not in (p["metadata"].get("finalizers") or [])


# ------------------------------------------------------------------ TestSyncJobWithJobSuccessPolicy

SP = ("SuccessPolicy", "Matched rules at index 0")
SP_RULE_01 = {"rules": [{"succeededIndexes": "0,1", "succeededCount": 1}]}
DISRUPTED = failed(terminated(0), conditions=("DisruptionTarget",))

# name, spec, pods, initial status, -> conditions, (active, succeeded, failed, terminating), completedIndexes,
# failedIndexes (None: absent)
SP_CASES = [
    ("job with successPolicy; jobPodReplacementPolicy feature enabled; job has SuccessCriteriaMet condition if job "
     "meets to successPolicy and some indexes fail",
     job_spec(3, 3, MAX_INT32, indexed=True, successPolicy=SP_RULE_01),
     [pod(failed(), 0), pod(RUNNING, 0), pod(SUCCEEDED, 1), pod(RUNNING, 2)], None,
     [("SuccessCriteriaMet",) + SP], (0, 1, 1, 2), "1", None),
    ("job with podFailurePolicy and successPolicy; jobPodReplacementPolicy feature enabled; job has "
     "SuccessCriteriaMet condition if job meets to successPolicy and doesn't meet to podFailurePolicy",
     job_spec(2, 2, MAX_INT32, indexed=True, successPolicy=SP_RULE_01,
              podFailurePolicy={"rules": [condition_rule("FailJob", "DisruptionTarget")]}),
     [pod(failed(), 0), pod(RUNNING, 0), pod(SUCCEEDED, 1)], None,
     [("SuccessCriteriaMet",) + SP], (0, 1, 1, 1), "1", None),
    ("job with backoffLimitPerIndex and successPolicy; jobPodReplacementPolicy feature enabled; job has "
     "SuccessCriteriaMet condition if job meets to successPolicy and doesn't meet backoffLimitPerIndex",
     job_spec(2, 2, MAX_INT32, indexed=True, successPolicy=SP_RULE_01, backoffLimitPerIndex=2),
     [pod(failed(), 0), pod(RUNNING, 0), pod(SUCCEEDED, 1)], None,
     [("SuccessCriteriaMet",) + SP], (0, 1, 1, 1), "1", ""),
    ("job with successPolicy; jobPodReplacementPolicy feature enabled; job has both Complete and SuccessCriteriaMet "
     "condition when job meets to successPolicy and all pods have been already removed",
     job_spec(2, 2, MAX_INT32, indexed=True, successPolicy=SP_RULE_01, backoffLimitPerIndex=2),
     [pod(failed(), 0), pod(SUCCEEDED, 1)], _status_with([("SuccessCriteriaMet",) + SP]),
     [("SuccessCriteriaMet",) + SP, ("Complete",) + SP], (0, 1, 1, 0), "1", ""),
    ("job with successPolicy; jobPodReplacementPolicy feature enabled; job has SuccessCriteriaMet condition when "
     "job meets to successPolicy and some pods still are running",
     job_spec(3, 3, MAX_INT32, indexed=True, successPolicy=SP_RULE_01, backoffLimitPerIndex=3),
     [pod(failed(), 0), pod(RUNNING, 1), pod(SUCCEEDED, 1), pod(RUNNING, 2)],
     _status_with([("SuccessCriteriaMet",) + SP]),
     [("SuccessCriteriaMet",) + SP], (0, 1, 1, 2), "1", ""),
    ("job with successPolicy and podFailurePolicy; jobPodReplacementPolicy feature enabled; job has a failed "
     "condition when job meets to both successPolicy and podFailurePolicy",
     job_spec(2, 2, MAX_INT32, indexed=True, successPolicy=SP_RULE_01,
              podFailurePolicy={"rules": [condition_rule("FailJob", "DisruptionTarget")]}),
     [pod(DISRUPTED, 0), pod(RUNNING, 0), pod(SUCCEEDED, 1)], None,
     [("FailureTarget", PFP, DISRUPTION_MSG)], (0, 1, 2, 1), "1", None),
    ("job with successPolicy and backoffLimitPerIndex; jobPodReplacementPolicy feature enabled; job has a failed "
     "condition when job meets to both successPolicy and backoffLimitPerIndex",
     job_spec(2, 2, MAX_INT32, indexed=True, successPolicy=SP_RULE_01, backoffLimitPerIndex=1),
     [pod(failed(), 0, failure_count=1), pod(SUCCEEDED, 1)], None,
     [("FailureTarget", "FailedIndexes", "Job has failed indexes"),
      ("Failed", "FailedIndexes", "Job has failed indexes")], (0, 1, 1, 0), "1", "0"),
    ("job with successPolicy and backoffLimit; jobPodReplacementPolicy feature enabled; job has a failed condition "
     "when job meets to both successPolicy and backoffLimit",
     job_spec(2, 2, 1, indexed=True, successPolicy=SP_RULE_01),
     [pod(failed(), 0), pod(failed(), 0), pod(SUCCEEDED, 1)], None,
     [("FailureTarget",) + BLE, ("Failed",) + BLE], (0, 1, 2, 0), "1", None),
    ("job with successPolicy and podFailurePolicy; jobPodReplacementPolicy feature enabled; job with "
     "SuccessCriteriaMet has never been transitioned to FailureTarget and Failed even if job meets podFailurePolicy",
     job_spec(2, 2, MAX_INT32, indexed=True, successPolicy={"rules": [{"succeededCount": 1}]},
              podFailurePolicy={"rules": [condition_rule("FailJob", "DisruptionTarget")]}),
     [pod(DISRUPTED, 0), pod(SUCCEEDED, 1)],
     _status_with([("SuccessCriteriaMet",) + SP], succeeded=1, completedIndexes="1"),
     [("SuccessCriteriaMet",) + SP, ("Complete",) + SP], (0, 1, 1, 0), "1", None),
    ("job with successPolicy and backoffLimitPerIndex; jobPodReplacementPolicy feature enabled; job with "
     "SuccessCriteriaMet has never been transitioned to FailureTarget and Failed even if job meet "
     "backoffLimitPerIndex",
     job_spec(2, 2, MAX_INT32, indexed=True, successPolicy={"rules": [{"succeededIndexes": "1"}]},
              backoffLimitPerIndex=1),
     [pod(failed(), 0, failure_count=1), pod(SUCCEEDED, 1)],
     _status_with([("SuccessCriteriaMet",) + SP], succeeded=1, completedIndexes="1"),
     [("SuccessCriteriaMet",) + SP, ("Complete",) + SP], (0, 1, 1, 0), "1", "0"),
    ("job with successPolicy and backoffLimit; jobPodReplacementPolicy feature enabled; job with SuccessCriteriaMet "
     "has never been transitioned to FailureTarget and Failed even if job meets backoffLimit",
     job_spec(2, 2, 1, indexed=True, successPolicy=SP_RULE_01),
     [pod(failed(), 0), pod(SUCCEEDED, 1)],
     _status_with([("SuccessCriteriaMet",) + SP], succeeded=1, completedIndexes="1"),
     [("SuccessCriteriaMet",) + SP, ("Complete",) + SP], (0, 1, 1, 0), "1", None),
    ("job with successPolicy and podFailureTarget; jobPodReplacementPolicy feature enabled; job with FailureTarget "
     "has never been transitioned to SuccessCriteriaMet even if job meets successPolicy",
     job_spec(2, 2, MAX_INT32, indexed=True, successPolicy=SP_RULE_01,
              podFailurePolicy={"rules": [condition_rule("FailJob", "DisruptionTarget")]}),
     [pod(DISRUPTED, 0, finalizer=False), pod(SUCCEEDED, 1)],
     _status_with([("FailureTarget", PFP, DISRUPTION_MSG)], failed=1, completedIndexes="1"),
     [("FailureTarget", PFP, DISRUPTION_MSG), ("Failed", PFP, DISRUPTION_MSG)], (0, 1, 1, 0), "1", None),
    ("job without successPolicy; jobSuccessPolicy is enabled; job got SuccessCriteriaMet and Completion with "
     "CompletionsReached reason conditions",
     job_spec(1, 1, MAX_INT32, indexed=True), [pod(SUCCEEDED, 0)], None,
     [("SuccessCriteriaMet",) + CRE, ("Complete",) + CRE], (0, 1, 0, 0), "0", None),
]


@pytest.mark.parametrize("case", SP_CASES, ids=[c[0][:90] for c in SP_CASES])
def test_sync_job_with_success_policy(case):
    _, spec, pods, initial, want_conditions, want_counts, completed, failed_indexes = case
    st, _, _ = sync_once(spec, pods, initial)
    assert conditions(st) == want_conditions
    assert counts(st) == want_counts
    assert st.get("completedIndexes") == completed
    assert st.get("failedIndexes") == failed_indexes
    if "Complete" in [c[0] for c in want_conditions]:
        assert st["completionTime"] == format_timestamp(30)


# ------------------------------------------------------------------ TestSyncJobWithJobBackoffLimitPerIndex

FAIL_IX = ("FailureTarget", "FailedIndexes", "Job has failed indexes")

BLPI_CASES = [
    ("successful job after a single failure within index",
     job_spec(2, 2, MAX_INT32, indexed=True, backoffLimitPerIndex=1),
     [pod(failed(), 0, 0), pod(SUCCEEDED, 0, 1), pod(SUCCEEDED, 1, 0)],
     [("SuccessCriteriaMet",) + CRE, ("Complete",) + CRE], (0, 2, 1, 0), "0,1", ""),
    ("single failed pod, not counted as the replacement pod creation is delayed",
     job_spec(2, 2, MAX_INT32, indexed=True, backoffLimitPerIndex=1),
     [pod(failed(), 0, 0)], [], (2, 0, 0, 0), None, ""),
    ("single failed pod replaced already",
     job_spec(2, 2, MAX_INT32, indexed=True, backoffLimitPerIndex=1),
     [pod(failed(), 0, 0), pod(PENDING, 0, 1)], [], (2, 0, 1, 0), None, ""),
    ("single failed index due to exceeding the backoff limit per index, the job continues",
     job_spec(2, 2, MAX_INT32, indexed=True, backoffLimitPerIndex=1),
     [pod(failed(), 0, 1)], [], (1, 0, 1, 0), None, "0"),
    ("single failed index due to FailIndex action, the job continues",
     job_spec(2, 2, MAX_INT32, indexed=True, backoffLimitPerIndex=1,
              podFailurePolicy={"rules": [exit_rule("FailIndex", "In", 3)]}),
     [pod(failed(terminated(3)), 0, 0)], [], (1, 0, 1, 0), None, "0"),
    ("job failed index due to FailJob action",
     job_spec(2, 2, 6, indexed=True, backoffLimitPerIndex=1,
              podFailurePolicy={"rules": [exit_rule("FailJob", "In", 3)]}),
     [pod(failed(terminated(3, "x")), 0, 0)],
     [("FailureTarget", PFP, _msg("x", "mypod-0", 3, 0)), ("Failed", PFP, _msg("x", "mypod-0", 3, 0))],
     (0, 0, 1, 0), None, ""),
    ("job pod failure ignored due to matching Ignore action",
     job_spec(2, 2, 6, indexed=True, backoffLimitPerIndex=1,
              podFailurePolicy={"rules": [exit_rule("Ignore", "In", 3)]}),
     [pod(failed(terminated(3, "x")), 0, 0)], [], (2, 0, 0, 0), None, ""),
    ("job failed due to exceeding backoffLimit before backoffLimitPerIndex",
     job_spec(2, 2, 1, indexed=True, backoffLimitPerIndex=1),
     [pod(failed(), 0, 0), pod(failed(), 1, 0)], [("FailureTarget",) + BLE, ("Failed",) + BLE],
     (0, 0, 2, 0), None, ""),
    ("job failed due to failed indexes",
     job_spec(2, 2, MAX_INT32, indexed=True, backoffLimitPerIndex=1),
     [pod(failed(), 0, 1), pod(SUCCEEDED, 1, 0)], [FAIL_IX, ("Failed",) + FAIL_IX[1:]], (0, 1, 1, 0), "1", "0"),
    ("job failed due to exceeding max failed indexes",
     job_spec(4, 4, MAX_INT32, indexed=True, backoffLimitPerIndex=1, maxFailedIndexes=1),
     [pod(failed(), 0, 1), pod(SUCCEEDED, 1, 0), pod(failed(), 2, 1), pod(RUNNING, 3, 0)],
     [("FailureTarget", "MaxFailedIndexesExceeded", "Job has exceeded the specified maximal number of failed indexes")],
     (0, 1, 3, 1), "1", "0,2"),
]


@pytest.mark.parametrize("case", BLPI_CASES, ids=[c[0] for c in BLPI_CASES])
def test_sync_job_with_backoff_limit_per_index(case):
    _, spec, pods, want_conditions, want_counts, completed, failed_indexes = case
    st, _, _ = sync_once(spec, pods)
    assert conditions(st) == want_conditions
    assert counts(st) == want_counts
    assert st.get("completedIndexes", "") == (completed or "")
    assert st.get("failedIndexes") == failed_indexes


def test_replacement_pod_carries_the_index_failure_counts():
    """addIndexFailureCountAnnotation: the replacement of a failed pod counts its failure; an ignored one apart."""
    _, server, created = sync_once(job_spec(2, 2, MAX_INT32, indexed=True, backoffLimitPerIndex=2),
                                   [pod(failed(), 0, 1)])
    assert created == 2
    new = {p["metadata"]["annotations"][JOB_COMPLETION_INDEX_ANNOTATION]: p["metadata"]["annotations"]
           for p in server.list("pods", "default") if p["metadata"]["name"] != "mypod-0"}
    assert new["0"][JOB_INDEX_FAILURE_COUNT_ANNOTATION] == "2"
    assert new["1"][JOB_INDEX_FAILURE_COUNT_ANNOTATION] == "0"
    assert JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION not in new["0"]
    # the failed pod's finalizer goes once its index has an active pod again (next sync)

    _, server, _ = sync_once(job_spec(1, 1, 6, indexed=True, backoffLimitPerIndex=1,
                                      podFailurePolicy={"rules": [exit_rule("Ignore", "In", 3)]}),
                             [pod(failed(terminated(3)), 0, 0)])
    ann = next(p["metadata"]["annotations"] for p in server.list("pods", "default")
               if p["metadata"]["name"] != "mypod-0")
    assert (ann[JOB_INDEX_FAILURE_COUNT_ANNOTATION], ann[JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION]) == ("0", "1")


def test_index_back_off_delays_only_that_index():
    """getPodCreationInfoForIndependentIndexes: index 0 failed at t=0 twice before (40 s back-off), index 1 is free."""
    _, server, created = sync_once(job_spec(2, 2, MAX_INT32, indexed=True, backoffLimitPerIndex=5),
                                   [pod(failed(), 0, 2)])
    assert created == 1
    indexes = sorted(p["metadata"]["annotations"][JOB_COMPLETION_INDEX_ANNOTATION]
                     for p in server.list("pods", "default") if p["metadata"]["name"] != "mypod-0")
    assert indexes == ["1"]


# ------------------------------------------------------------------ the pure matchers


def _failed_pod(st: dict) -> dict:
    return {"metadata": {"name": "mypod", "namespace": "default"}, "status": st}


@pytest.mark.parametrize("rules,status,expected", [
    # exit code 0 never matches, not even NotIn
    ([exit_rule("FailJob", "NotIn", 5)], failed(terminated(0)), (None, True, None)),
    # a container still running has no exit code to match
    ([exit_rule("FailJob", "In", 5)], failed({"name": "main-container", "state": {"running": {}}}),
     (None, True, None)),
    ([exit_rule("Count", "In", 5)], failed(terminated(5)), (None, True, "Count")),
    ([exit_rule("FailIndex", "In", 5)], failed(terminated(5)), (None, True, "FailIndex")),
    ([exit_rule("Ignore", "In", 5, container="other")], failed(terminated(5)), (None, True, None)),
    # a condition must have the pattern's status
    ([{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "False"}]}],
     failed(terminated(1), conditions=("DisruptionTarget",)), (None, True, None)),
    # an action the model does not know is skipped, the next rule decides
    ([exit_rule("Restart", "In", 5), exit_rule("Ignore", "In", 5)], failed(terminated(5)), (None, False, "Ignore")),
])
def test_match_pod_failure_policy(rules, status, expected):
    assert match_pod_failure_policy({"rules": rules}, _failed_pod(status)) == expected


@pytest.mark.parametrize("rules,completions,succeeded,expected", [
    ([{"succeededIndexes": "0-2"}], 5, {0, 1}, ("", False)),
    ([{"succeededIndexes": "0-2"}], 5, {0, 1, 2, 4}, ("Matched rules at index 0", True)),
    ([{"succeededIndexes": "0,2-4", "succeededCount": 2}], 5, {2, 4}, ("Matched rules at index 0", True)),
    # indexes at or above completions are not required
    ([{"succeededIndexes": "3-9"}], 5, {3, 4}, ("Matched rules at index 0", True)),
    ([{"succeededCount": 3}, {"succeededIndexes": "1"}], 5, {1}, ("Matched rules at index 1", True)),
    ([{"succeededCount": 1}], 5, set(), ("", False)),
])
def test_match_success_policy(rules, completions, succeeded, expected):
    assert match_success_policy({"rules": rules}, completions, succeeded) == expected


# ------------------------------------------------------------------ kubectl get job STATUS (TestPrintJob)


@pytest.mark.parametrize("types,deleting,expected", [
    ([], False, "Running"),
    (["SuccessCriteriaMet", "Complete"], False, "Complete"),
    (["FailureTarget", "Failed"], False, "Failed"),
    (["SuccessCriteriaMet"], False, "SuccessCriteriaMet"),
    (["FailureTarget"], False, "FailureTarget"),
    (["Suspended"], True, "Terminating"),
    (["SuccessCriteriaMet", "Complete"], True, "Complete"),
    (["Suspended", "FailureTarget"], False, "Suspended"),
])
def test_job_status_column(types, deleting, expected):
    job = {"metadata": {"name": "j"}, "status": {"conditions": [{"type": t, "status": "True"} for t in types]}}
    if deleting:
        job["metadata"]["deletionTimestamp"] = format_timestamp(0)
    assert _job_status(job) == expected


# ------------------------------------------------------------------ end to end with the stand-in kubelet


def nodes() -> list[dict]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
             "status": {"allocatable": alloc, "capacity": alloc}} for i in (1, 2)]


def e2e_job(exit_code: int, run_seconds: int = 5, completions: int = 1, parallelism: int = 1, **spec: Any) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default"},
            "spec": {"completions": completions, "parallelism": parallelism, **spec, "template": {
                "metadata": {"annotations": {"kubenotes.io/run-seconds": str(run_seconds),
                                             "kubenotes.io/exit-code": str(exit_code)}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}}}


def run(job: dict, until: float) -> Cluster:
    c = Cluster(nodes() + [job], seed=0, controllers=["job-controller"], authorization=False, kubelet="stand-in")
    c.run(until=until)
    return c


def test_e2e_fail_job_on_exit_code():
    c = run(e2e_job(42, podFailurePolicy={"rules": [exit_rule("Ignore", "In", 1),
                                                     exit_rule("FailJob", "In", 42, container="main")]}), 30)
    st = c.get("jobs", "pi", "default")["status"]
    (pod_name,) = [p["metadata"]["name"] for p in c.list("pods", "default")]
    message = f"Container main for pod default/{pod_name} failed with exit code 42 matching FailJob rule at index 1"
    assert conditions(st) == [("FailureTarget", PFP, message), ("Failed", PFP, message)]
    assert st["failed"] == 1
    events = [(e["type"], e["reason"], e["message"]) for e in c.list("events", "default")
              if e["involvedObject"]["kind"] == "Job"]
    assert ("Warning", PFP, message) in events


def test_e2e_ignored_failures_do_not_count_toward_backoff_limit():
    """backoffLimit 0, every pod exits 1 matching Ignore: replaced after 10 s, 20 s of back-off, never counted."""
    c = run(e2e_job(1, backoffLimit=0, podFailurePolicy={"rules": [exit_rule("Ignore", "In", 1)]}), 60)
    st = c.get("jobs", "pi", "default")["status"]
    assert not st.get("conditions") and st.get("failed", 0) == 0
    created = sorted(p["metadata"]["creationTimestamp"] for p in c.list("pods", "default"))
    assert created == ["2025-08-27T00:00:00Z", "2025-08-27T00:00:17Z", "2025-08-27T00:00:44Z"]


def test_e2e_fail_index_fails_every_index_then_the_job():
    """Every index's pod exits 3, matching a FailIndex rule: each index fails once, then the Job (FailedIndexes)."""
    job = e2e_job(3, completions=3, parallelism=3, completionMode="Indexed", backoffLimitPerIndex=1,
                  podFailurePolicy={"rules": [exit_rule("FailIndex", "In", 3)]})
    c = run(job, 60)
    st = c.get("jobs", "pi", "default")["status"]
    assert st["failedIndexes"] == "0-2" and st["failed"] == 3
    assert conditions(st) == [FAIL_IX, ("Failed",) + FAIL_IX[1:]]
    assert len(c.list("pods", "default")) == 3  # no index retried


def test_e2e_success_policy_completes_early():
    """succeededCount 1 of 3 completions: the first success ends the Job, reason SuccessPolicy."""
    job = e2e_job(0, completions=3, parallelism=1, completionMode="Indexed",
                  successPolicy={"rules": [{"succeededCount": 1}]})
    c = run(job, 60)
    st = c.get("jobs", "pi", "default")["status"]
    assert conditions(st) == [("SuccessCriteriaMet",) + SP, ("Complete",) + SP]
    assert st["succeeded"] == 1 and st["completedIndexes"] == "0"
    assert len(c.list("pods", "default")) == 1


def test_e2e_pod_replacement_policy():
    """A running pod deleted at t=10 (30 s grace, the model kubelet): TerminatingOrFailed counts it failed and
    replaces it after the 10 s back-off while it still terminates; Failed counts nothing until it has failed."""
    def deleted_at_10(policy: str) -> Cluster:
        c = Cluster(nodes() + [e2e_job(0, run_seconds=300, podReplacementPolicy=policy)], seed=0,
                    controllers=["job-controller"], authorization=False, kubelet="model")
        c.run(until=10)
        (first,) = c.list("pods", "default")
        c.client.delete("pods", first["metadata"]["name"], "default")
        c.run(until=25)
        return c

    c = deleted_at_10("TerminatingOrFailed")
    assert counts(c.get("jobs", "pi", "default")["status"]) == (1, 0, 1, 1)
    assert len(c.list("pods", "default")) == 2
    c = deleted_at_10("Failed")
    assert counts(c.get("jobs", "pi", "default")["status"]) == (0, 0, 0, 1)
    assert len(c.list("pods", "default")) == 1
    c.run(until=45)  # it failed at t=40 (end of its grace period): counted now, replaced after the back-off
    assert counts(c.get("jobs", "pi", "default")["status"]) == (0, 0, 1, 0)


def test_scenario_file_fails_the_job_on_exit_code_42(capsys):
    """data/controllers/job-pod-failure-policy.yaml, run as ``python -m kubenotes simulate FILE -o yaml`` runs it."""
    from pathlib import Path

    import yaml

    from kubenotes.cli import main

    path = Path(__file__).resolve().parents[2] / "data" / "controllers" / "job-pod-failure-policy.yaml"
    assert main(["simulate", str(path), "--until", "30", "-o", "yaml"]) == 0
    objects = yaml.safe_load(capsys.readouterr().out)["items"]
    (job,) = [o for o in objects if o["kind"] == "Job"]
    (pod_obj,) = [o for o in objects if o["kind"] == "Pod"]
    message = (f"Container main for pod default/{pod_obj['metadata']['name']} failed with exit code 42 "
               f"matching FailJob rule at index 1")
    assert conditions(job["status"]) == [("FailureTarget", PFP, message), ("Failed", PFP, message)]
    assert job["status"]["failed"] == 1 and pod_obj["status"]["phase"] == "Failed"
