"""Tests of kubenotes.sim.timelines: rollout, node and Job timelines from a cluster's history; one pod's start and restarts.

The rollout invariants (never more than ``replicas + maxSurge`` pods, never fewer
than ``replicas - maxUnavailable`` available) are the ones upstream's
``test/e2e/apps/deployment.go`` checks in ``testRollingUpdateDeployment`` /
``testDeploymentProportionalScaling`` and that ``TestReconcileOldReplicaSets`` in
``pkg/controller/deployment/rolling_test.go`` states per step; the fence values
come from ``TestResolveFenceposts`` (``pkg/controller/deployment/util/deployment_util_test.go``).
The Job back-off (10 s doubling) is ``TestJobBackoff`` / ``getFinishedTime`` in
``pkg/controller/job/job_controller_test.go``.

The kubelet's expectations are upstream's, ported from: the start order
(``pkg/kubelet/kuberuntime/kuberuntime_manager_test.go`` ``TestSyncPod``,
``TestComputePodActionsWithInitContainers``); readiness after ``successThreshold``
successes and liveness after ``failureThreshold`` failures
(``pkg/kubelet/prober/worker_test.go`` ``TestSuccessThreshold``, ``TestFailureThreshold``);
the CrashLoopBackOff 10 s, 20 s, 40 s (``TestSyncPodBackoff``); restart policies
against exit codes (``pkg/kubelet/kubelet_pods_test.go`` ``TestGetPhase``).
"""

from __future__ import annotations

import pytest

from kubenotes.sim import scenarios as sc
from kubenotes.sim import timelines as st
from kubenotes.sim.history import Revision

# ----------------------------------------------------------------------------- synthetic histories


def _dep(replicas=4, surge="25%", unavailable="25%", uid="D", image="nginx:1.27", rv="1"):
    return {"kind": "Deployment", "metadata": {"name": "web", "namespace": "d", "uid": uid, "resourceVersion": rv},
            "spec": {"replicas": replicas, "strategy": {"type": "RollingUpdate", "rollingUpdate": {
                "maxSurge": surge, "maxUnavailable": unavailable}},
                "template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}


def _rs(name, replicas, owner_uid="D", available=0, ready=0, rv="2", revision=None):
    md = {"name": name, "namespace": "d", "uid": "rs-" + name, "resourceVersion": rv,
          "ownerReferences": [{"kind": "Deployment", "name": "web", "uid": owner_uid, "controller": True}]}
    if revision is not None:
        md["annotations"] = {"deployment.kubernetes.io/revision": str(revision)}
    return {"kind": "ReplicaSet", "metadata": md, "spec": {"replicas": replicas},
            "status": {"availableReplicas": available, "readyReplicas": ready}}


def _pod(name, rs, rv, ready=False, terminating=False, node=None, phase="Running"):
    md = {"name": name, "namespace": "d", "uid": "pod-" + name, "resourceVersion": rv,
          "ownerReferences": [{"kind": "ReplicaSet", "name": rs, "uid": "rs-" + rs, "controller": True}]}
    if terminating:
        md["deletionTimestamp"] = "2025-08-27T00:00:10Z"
    return {"kind": "Pod", "metadata": md, "spec": {"nodeName": node},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def test_fences_follow_resolve_fenceposts():
    # TestResolveFenceposts: 25%/25% of 4 -> (1, 1); of 10 -> (3, 2) (surge rounds up, unavailable down)
    for replicas, surge, unavailable in ((4, 1, 1), (10, 3, 2), (1, 1, 0)):
        t = st.rollout_timeline([Revision(0, "ADDED", _dep(replicas))], "d", "web")
        assert t["surge_bound"] == [(0, replicas + surge)]
        assert t["min_available"] == [(0, replicas - unavailable)]


def test_timeline_follows_only_the_deployments_own_replicasets_by_uid():
    h = [Revision(0, "ADDED", _dep()),
         Revision(1, "ADDED", _rs("web-a", 4, available=4, rv="2", revision=1)),
         Revision(1, "ADDED", _rs("stranger", 7, owner_uid="OTHER", rv="3")),  # same owner name, other uid
         Revision(5, "ADDED", _rs("web-b", 1, rv="4", revision=2)),
         Revision(6, "MODIFIED", _rs("web-a", 3, available=3, rv="5", revision=1))]
    t = st.rollout_timeline(h, "d", "web")
    assert t.replica_sets == ["web-a", "web-b"]
    assert t.new_replica_set == "web-b"
    assert t["spec_total"][-3:] == [(1, 4), (5, 5), (6, 4)]
    assert "rs:stranger" not in t
    assert t["rs:web-a:available"] == [(1, 4), (6, 3)]


def test_terminating_pods_leave_the_pod_count_and_unready_pods_the_ready_count():
    h = [Revision(0, "ADDED", _dep()), Revision(1, "ADDED", _rs("web-a", 2, rv="2")),
         Revision(2, "ADDED", _pod("p1", "web-a", "3", ready=True)),
         Revision(2, "ADDED", _pod("p2", "web-a", "4")),
         Revision(8, "MODIFIED", _pod("p1", "web-a", "5", ready=True, terminating=True)),
         Revision(9, "DELETED", _pod("p1", "web-a", "6", ready=True, terminating=True))]
    t = st.rollout_timeline(h, "d", "web")
    assert st.series_value_at(t["pods"], 2) == 2 and st.series_value_at(t["ready"], 2) == 1
    assert st.series_value_at(t["pods"], 8) == 1 and st.series_value_at(t["ready"], 8) == 0
    assert st.series_value_at(t["pods"], 9) == 1


def test_spec_changes_are_listed_with_their_time():
    h = [Revision(0, "ADDED", _dep()), Revision(30, "MODIFIED", _dep(image="nginx:1.28", rv="9")),
         Revision(40, "MODIFIED", _dep(replicas=6, image="nginx:1.28", rv="10"))]
    t = st.rollout_timeline(h, "d", "web")
    assert t.changes == [(30, "image nginx:1.28"), (40, "replicas 4->6")]
    assert t["surge_bound"] == [(0, 5), (40, 8)]  # 25% of 6 rounds up to 2


def test_series_helpers_count_every_state_at_one_instant():
    s = [(0, 4), (10, 5), (10, 3), (20, 4)]
    assert st.series_value_at(s, 10) == 3
    assert st.series_extremes(s, since=10) == (3, 5)
    assert st.series_extremes(s, since=11, until=19) == (3, 3)
    with pytest.raises(ValueError):
        st.series_extremes([])


def test_pods_per_node_counts_moves_and_terminations():
    h = [Revision(0, "ADDED", _pod("a", "r", "1", node="n1")), Revision(0, "ADDED", _pod("b", "r", "2", node="n1")),
         Revision(5, "MODIFIED", _pod("a", "r", "3", node="n1", terminating=True)),
         Revision(6, "ADDED", _pod("c", "r", "4", node="n2"))]
    assert st.pods_per_node_timeline(h) == {"n1": [(0, 1), (0, 2), (5, 1)], "n2": [(6, 1)]}


def test_job_attempts_measure_the_wait_between_failures():
    def p(name, phase, rv):
        return {"kind": "Pod", "metadata": {"name": name, "uid": name, "namespace": "d", "resourceVersion": rv,
                "ownerReferences": [{"kind": "Job", "name": "j", "controller": True}]},
                "status": {"phase": phase, "containerStatuses": [{"state": {"terminated": {"exitCode": 1}}}]
                           if phase == "Failed" else []}}
    h = [Revision(0, "ADDED", p("j-1", "Pending", "1")), Revision(5, "MODIFIED", p("j-1", "Failed", "2")),
         Revision(15, "ADDED", p("j-2", "Pending", "3")), Revision(20, "MODIFIED", p("j-2", "Failed", "4")),
         Revision(40, "ADDED", p("j-3", "Pending", "5"))]
    rows = st.job_attempts(h, "d", "j")
    assert [r["wait_before"] for r in rows] == [None, 10, 20]
    assert rows[0]["exit_code"] == 1 and rows[2]["phase"] == "Pending"
    assert st.job_attempts(h, "d", "other") == []


@pytest.mark.parametrize("surge,unavailable,replicas", [(1, 1, 4), (1, 0, 4), (0, 1, 4), (3, 0, 6), (2, 2, 5)])
def test_rollout_respects_max_surge_and_max_unavailable(surge, unavailable, replicas):
    run = sc.simulate_rollout(surge, unavailable, replicas)
    assert run.error is None
    t = st.rollout_timeline(run.cluster, run.namespace, run.name)
    since = run.at_seconds
    assert st.series_extremes(t["spec_total"], since)[1] <= replicas + surge
    assert st.series_extremes(t["pods"], since)[1] <= replicas + surge
    assert st.series_extremes(t["available"], since)[0] >= replicas - unavailable
    new = t.new_replica_set
    old = [n for n in t.replica_sets if n != new]
    assert len(old) == 1 and t.revisions[new] == 2
    assert st.series_value_at(t[f"rs:{new}:available"], t.end_seconds) == replicas
    assert st.series_value_at(t[f"rs:{old[0]}"], t.end_seconds) == 0
    assert t.changes == [(run.at_seconds, "image nginx:1.28.0")]


def test_node_failure_unknown_taint_and_eviction_times():
    grace, tol = 50, 120
    run = sc.simulate_node_failure(tol, grace)
    rows = st.node_timeline(run.cluster, "worker-1")
    unknown = next(r for r in rows if r["ready"] == "Unknown")
    assert unknown["time"] == pytest.approx(run.at_seconds + grace, abs=5.1)
    assert unknown["reason"] == "NodeStatusUnknown" and unknown["message"] == "Kubelet stopped posting node status."
    tainted = next(r for r in rows if "node.kubernetes.io/unreachable:NoExecute" in r["taints"])
    evicted = [e.time for e in run.cluster.audit_log
               if e.kind == "Pod" and e.verb == "delete" and e.component == "taint-eviction-controller"]
    assert evicted and min(evicted) == pytest.approx(tainted["time"] + tol, abs=1.0)
    per_node = st.pods_per_node_timeline(run.cluster, "default")
    assert st.series_value_at(per_node["worker-1"], run.end_seconds) == 0
    assert sum(st.series_value_at(s, run.end_seconds) for s in per_node.values()) == 6


def test_job_retries_with_doubling_backoff_until_the_limit():
    run = sc.simulate_job(3)
    rows = st.job_attempts(run.cluster, "default", "migrate")
    assert [r["phase"] for r in rows] == ["Failed"] * 4
    assert [r["wait_before"] for r in rows] == [None, 10, 20, 40]
    job = run.cluster.get("jobs", "migrate", "default")
    assert job["status"]["failed"] == 4
    assert any(c["type"] == "Failed" and c["reason"] == "BackoffLimitExceeded" for c in job["status"]["conditions"])


# ----------------------------------------------------------------------------- the kubelet: one pod run


def _cri(rows):
    return [(r["what"], r["container"] or r["detail"]) for r in rows if r["source"] == "CRI"]


def test_the_pod_starts_with_the_sandbox_then_the_init_container_then_the_app():
    run = sc.simulate_pod_start()
    assert _cri(st.start_timeline(run)) == [
        ("RunPodSandbox", "sandbox web (pause image)"), ("PullImage", "busybox:1.36"),
        ("CreateContainer", "init-db"), ("StartContainer", "init-db"), ("PullImage", "nginx:1.27"),
        ("CreateContainer", "web"), ("StartContainer", "web")]
    init = run.kubelet.runs[run.uid]["init-db"][0]
    create_web = next(r for r in st.start_timeline(run) if r["what"] == "CreateContainer" and r["container"] == "web")
    assert init.finished_seconds - init.started_seconds == pytest.approx(3, abs=0.01)  # sleep 3
    assert init.finished_seconds <= create_web["time"] <= init.finished_seconds + 1.5 + 3.1  # a relist, then the pull
    reasons = [r["what"] for r in st.start_timeline(run) if r["source"] == "event"]
    assert reasons == ["Pulling", "Pulled", "Created", "Started"] * 2


@pytest.mark.parametrize("threshold", [1, 2, 3])
def test_ready_comes_with_the_success_threshold_th_successful_probe(threshold):
    run = sc.simulate_pod_start(success_threshold=threshold, period_seconds=5)
    history = st.status_history(run)
    ready_at = next(h["time"] for h in history if h["conditions"]["Ready"] == "True")
    ok = [p["time"] for p in run.probes if p["kind"] == "Readiness" and p["result"] == "success"]
    assert ok[threshold - 1] <= ready_at < ok[threshold - 1] + 1
    if threshold > 1:
        assert ready_at > ok[threshold - 2] + 4
    started = run.kubelet.runs[run.uid]["web"][0].started_seconds
    assert ok[0] - started >= 2  # initialDelaySeconds: no probe before


def test_crash_loop_back_off_waits_10_20_40_seconds_after_the_first_restart():
    run = sc.simulate_restarts(cause="exits with code 1")
    h = st.restart_history(run)
    assert [r["back_off"] for r in h[:5]] == ["", "", "10s", "20s", "40s"]
    assert h[1]["gap_seconds"] < 1.5
    for r, want in zip(h[2:5], (10, 20, 40)):
        # v1.34: at the first 10-15 s re-check (backOffPeriod, pod_workers.go completeWork) after the expiry
        assert want <= r["gap_seconds"] <= want + 15 + 1.5
    assert all(r["killed_by"] == "" for r in h)
    messages = [e["message"] for e in run.kubelet.events if e["reason"] == "BackOff"]
    assert messages[0] == f"Back-off restarting failed container app in pod app_default({run.uid})"
    cs = run.pod["status"]["containerStatuses"][0]
    assert cs["restartCount"] == len(h) - 1 and cs["lastState"]["terminated"]["exitCode"] == 1


@pytest.mark.parametrize("threshold,period", [(3, 5), (2, 10), (1, 20)])
def test_liveness_kills_after_failure_threshold_failures_period_seconds_apart(threshold, period):
    run = sc.simulate_restarts(failure_threshold=threshold, period_seconds=period)
    events = [e for e in run.kubelet.events if e["pod"] == "app"]
    killing = [e for e in events if e["reason"] == "Killing"]
    assert killing and killing[0]["message"] == "Container app failed liveness probe, will be restarted"
    failed = [e["time"] for e in events if e["reason"] == "Unhealthy" and e["time"] <= killing[0]["time"]]
    assert len(failed) == threshold
    assert all(abs((b - a) - period) < 0.01 for a, b in zip(failed, failed[1:]))
    assert failed[0] >= sc.FAIL_FROM_SECONDS
    h = st.restart_history(run)
    assert h[0]["killed_by"] == killing[0]["message"] and h[1]["gap_seconds"] < 1.5


def test_liveness_outage_at_the_defaults_kills_twice_then_the_container_stays():
    run = sc.simulate_restarts()
    h = st.restart_history(run)
    assert len(h) == 3 and h[-1]["finished"] is None
    assert run.pod["status"]["containerStatuses"][0]["restartCount"] == 2
    assert run.pod["status"]["phase"] == "Running"


@pytest.mark.parametrize("policy,cause,phase,restarted", [
    ("Never", "liveness probe fails", "Succeeded", False),   # nginx exits 0 on SIGTERM; nobody restarts it
    ("Never", "exits with code 1", "Failed", False),
    ("OnFailure", "exits with code 1", "Running", True),
    ("OnFailure", "exits with code 0", "Succeeded", False),
    ("Always", "exits with code 0", "Running", True),
    ("OnFailure", "liveness probe fails", "Running", True),  # a liveness kill restarts unless Never
])
def test_restart_policy_decides_what_follows_an_exit(policy, cause, phase, restarted):
    run = sc.simulate_restarts(restart_policy=policy, cause=cause, until_seconds=60)
    assert run.pod["status"]["phase"] == phase
    assert (len(st.restart_history(run)) > 1) == restarted


def test_restart_counts_and_events_follow_the_crash_loop():
    run = sc.simulate_restarts(cause="exits with code 1", until_seconds=60)
    counts = st.restart_counts(run)
    assert counts[0][1] == 0 and [n for _, n in counts] == sorted(n for _, n in counts)  # restartCount never drops
    assert counts[-1][1] == run.pod["status"]["containerStatuses"][0]["restartCount"] == len(st.restart_history(run)) - 1
    assert st.restart_counts(run, "no-such-container") == []
    back_offs = st.pod_events(run, ["BackOff"])
    assert back_offs and {e["reason"] for e in back_offs} == {"BackOff"}
    assert [e for e in st.pod_events(run) if e["reason"] == "BackOff"] == back_offs


def test_mirror_pod_history_merges_the_audit_log_and_the_kubelets_events_by_time():
    run = sc.simulate_static_pod(delete_mirror_at_seconds=10, edit_at_seconds=30, until_seconds=60)
    h = st.mirror_pod_history(run)
    assert [r["time"] for r in h] == sorted(r["time"] for r in h)
    assert ("kubectl", "delete pod") in {(r["component"], r["what"]) for r in h}
    assert any(r["what"] == "event Killing" and r["component"] == "kubelet/worker-1" for r in h)
