"""Tests for kubenotes.kubelet.prober.

Upstream sources the cases come from (kubernetes/kubernetes@v1.34.0):

* pkg/kubelet/prober/worker_test.go: TestDoProbe (no status, pod failed, pod
  deletion, no container status, container waiting, container terminated,
  probe successful, initial delay passed), TestInitialDelay,
  TestFailureThreshold, TestSuccessThreshold, TestCleanUp (results removed on
  stop), TestOnHoldOnLivenessOrStartupCheckFailure,
  TestResultRunOnLivenessCheckFailure, TestResultRunOnStartupCheckFailure,
  TestLivenessProbeDisabledByStarted, TestStartupProbeDisabledByStarted;
* pkg/kubelet/prober/prober_manager_test.go: TestAddRemovePods (which
  workers exist, sidecars included), TestUpdatePodStatus (ready flags),
  TestUpdateReadiness (end to end, readiness follows the probe);
* pkg/kubelet/prober/prober_test.go TestProbe-style event wording
  (``Liveness probe failed: ...``) and kuberuntime_manager_test.go
  TestComputePodActions's liveness-kill message;
* model-only cases: seeded first-probe jitter, manual trigger on start,
  probe timeout taking ``timeoutSeconds``.
"""

from __future__ import annotations

import random

import pytest
import simpy

from kubenotes.kubelet.prober import (
    FAILURE,
    LIVENESS,
    READINESS,
    STARTUP,
    SUCCESS,
    UNKNOWN,
    ProberManager,
    Worker,
    kill_message,
    timeout_output,
)

UID = "pod-uid"
CNAME = "test_container"
CID = "test://test_container_id"
KINDS = (LIVENESS, READINESS, STARTUP)
FIELD = {LIVENESS: "livenessProbe", READINESS: "readinessProbe", STARTUP: "startupProbe"}


class Outcomes:
    """A mutable results source (the fake exec prober)."""

    def __init__(self, value="success"):
        self.value = value

    def __call__(self, pod_uid, container, kind, now):
        return self.value


def make_pod(probes=None, restart_policy="Always", uid=UID, init_containers=None):
    c = {"name": CNAME, "image": "busybox"}
    c.update(probes or {})
    spec = {"containers": [c], "restartPolicy": restart_policy}
    if init_containers:
        spec["initContainers"] = init_containers
    return {"metadata": {"name": "test_pod", "namespace": "default", "uid": uid}, "spec": spec, "status": {"phase": "Running"}}


def setup(kind, probe, restart_policy="Always", outcome="success", env_start=1000.0, extra_workers=()):
    env = simpy.Environment(initial_time=env_start)
    src = Outcomes(outcome)
    m = ProberManager(env, random.Random(0), src)
    probe = {"exec": {"command": ["true"]}, **probe}
    probes = {FIELD[kind]: probe}
    for k in extra_workers:
        probes[FIELD[k]] = {"exec": {"command": ["true"]}}
    pod = make_pod(probes, restart_policy)
    m.update_pod(pod)
    w = Worker(m, kind, pod, pod["spec"]["containers"][0])
    m.workers[(UID, CNAME, kind)] = w  # a worker whose loop is not running: tests call do_probe
    for k in extra_workers:
        m.workers[(UID, CNAME, k)] = Worker(m, k, pod, pod["spec"]["containers"][0])
    return env, m, w, src, pod


def do_probe(env, w):
    p = env.process(w.do_probe())
    return env.run(until=p)


def result(m, kind):
    st = m.containers.get((UID, CNAME))
    return m.results[kind].get(st.container_id) if st else None


def running(m, cid=CID, started_ago=0.0):
    m.containers.pop((UID, CNAME), None)
    m.container_started(UID, CNAME, cid, started_at=m.env.now - started_ago)


# ---------------------------------------------------------------- worker_test.go


@pytest.mark.parametrize("kind", KINDS)
def test_do_probe_no_status(kind):
    env, m, w, _, _ = setup(kind, {})
    assert do_probe(env, w) is True
    assert m.results[kind] == {}


@pytest.mark.parametrize("kind", KINDS)
def test_do_probe_pod_failed_stops(kind):
    env, m, w, _, pod = setup(kind, {})
    running(m)
    m.update_pod({**pod, "status": {"phase": "Failed"}})
    assert do_probe(env, w) is False


@pytest.mark.parametrize("kind,keep_going", [(LIVENESS, False), (READINESS, True), (STARTUP, False)])
def test_do_probe_pod_deletion(kind, keep_going):
    env, m, w, _, pod = setup(kind, {})
    running(m)
    m.update_pod({**pod, "metadata": {**pod["metadata"], "deletionTimestamp": "2025-01-01T00:00:00Z"}})
    assert do_probe(env, w) is keep_going
    assert result(m, kind) == SUCCESS


@pytest.mark.parametrize("kind", KINDS)
def test_do_probe_no_container_status(kind):
    env, m, w, _, _ = setup(kind, {})
    m.container_started(UID, "other", "test://other", started_at=env.now)  # only another container has a status
    assert do_probe(env, w) is True
    assert m.results[kind] == {}


@pytest.mark.parametrize("kind", KINDS)
def test_do_probe_container_waiting(kind):
    env, m, w, _, _ = setup(kind, {})
    running(m)
    m.container_waiting(UID, CNAME)
    assert do_probe(env, w) is True
    assert result(m, kind) == FAILURE


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("policy,keep_going", [("Always", True), ("OnFailure", True), ("Never", False)])
def test_do_probe_container_terminated(kind, policy, keep_going):
    env, m, w, _, _ = setup(kind, {}, restart_policy=policy)
    running(m)
    m.container_exited(UID, CNAME, CID, exit_code=1)
    assert do_probe(env, w) is keep_going
    assert result(m, kind) == FAILURE


@pytest.mark.parametrize("kind", KINDS)
def test_do_probe_successful(kind):
    env, m, w, _, _ = setup(kind, {})
    running(m)
    assert do_probe(env, w) is True
    assert result(m, kind) == SUCCESS


@pytest.mark.parametrize("kind", KINDS)
def test_do_probe_initial_delay_passed(kind):
    env, m, w, _, _ = setup(kind, {"initialDelaySeconds": -100})
    running(m)
    assert do_probe(env, w) is True
    assert result(m, kind) == SUCCESS


@pytest.mark.parametrize("kind,initial", [(LIVENESS, SUCCESS), (READINESS, FAILURE), (STARTUP, UNKNOWN)])
def test_initial_delay(kind, initial):
    env, m, w, _, _ = setup(kind, {"initialDelaySeconds": 10})
    running(m)
    assert do_probe(env, w) is True
    assert result(m, kind) == initial  # still in the initial delay: the initial value
    assert w.probes == []
    running(m, started_ago=100)  # same container ID, started long ago
    assert do_probe(env, w) is True
    assert result(m, kind) == SUCCESS


def test_initial_delay_truncates_seconds():
    env, m, w, _, _ = setup(LIVENESS, {"initialDelaySeconds": 10})
    running(m, started_ago=9.99)
    do_probe(env, w)
    assert w.probes == []  # int(9.99) = 9 < 10
    running(m, started_ago=10.0)
    do_probe(env, w)
    assert len(w.probes) == 1


def test_failure_threshold():
    env, m, w, src, _ = setup(READINESS, {"successThreshold": 1, "failureThreshold": 3})
    running(m)
    for _ in range(2):
        src.value = "success"
        for _ in range(3):
            assert do_probe(env, w)
            assert result(m, READINESS) == SUCCESS
        src.value = "failure"
        for _ in range(2):  # next 2 probes: still success
            assert do_probe(env, w)
            assert result(m, READINESS) == SUCCESS
        for _ in range(3):  # third and following: failure
            assert do_probe(env, w)
            assert result(m, READINESS) == FAILURE


def test_success_threshold():
    env, m, w, src, _ = setup(READINESS, {"successThreshold": 3, "failureThreshold": 1})
    running(m)
    src.value = "failure"
    for _ in range(2):
        for _ in range(5):
            assert do_probe(env, w)
            assert result(m, READINESS) == FAILURE
        src.value = "success"
        for _ in range(2):
            assert do_probe(env, w)
            assert result(m, READINESS) == FAILURE
        for _ in range(3):
            assert do_probe(env, w)
            assert result(m, READINESS) == SUCCESS
        src.value = "failure"


@pytest.mark.parametrize("kind", KINDS)
def test_clean_up(kind):
    env = simpy.Environment()
    m = ProberManager(env, random.Random(0))
    pod = make_pod({FIELD[kind]: {"exec": {"command": ["true"]}}})
    m.add_pod(pod)
    m.container_started(UID, CNAME, CID, started_at=0)
    env.run(until=30)
    assert CID in m.results[kind]
    m.remove_pod(pod)
    env.run(until=31)
    assert m.workers == {}
    assert CID not in m.results[kind]


@pytest.mark.parametrize("kind", [LIVENESS, STARTUP])
def test_on_hold_on_liveness_or_startup_check_failure(kind):
    env, m, w, src, _ = setup(kind, {"successThreshold": 1, "failureThreshold": 1})
    running(m)
    src.value = "failure"
    assert do_probe(env, w)
    assert result(m, kind) == FAILURE and w.on_hold
    src.value = "success"  # on hold: not probed, stays failure
    assert do_probe(env, w)
    assert result(m, kind) == FAILURE and w.on_hold
    running(m, cid="test://newCont_ID")  # a new container lifts the hold
    assert do_probe(env, w)
    assert result(m, kind) == SUCCESS
    if kind == LIVENESS:
        assert not w.on_hold
    else:
        assert w.on_hold  # startup holds after success too (#117153)


def test_result_run_on_liveness_check_failure():
    env, m, w, src, _ = setup(LIVENESS, {"successThreshold": 1, "failureThreshold": 3})
    running(m)
    do_probe(env, w)
    assert (result(m, LIVENESS), w.result_run) == (SUCCESS, 1)
    src.value = "failure"
    do_probe(env, w)
    assert (result(m, LIVENESS), w.result_run) == (SUCCESS, 1)
    do_probe(env, w)
    assert (result(m, LIVENESS), w.result_run) == (SUCCESS, 2)
    do_probe(env, w)
    # exceeding failureThreshold resets resultRun so the restarted container gets 3 tries too
    assert (result(m, LIVENESS), w.result_run) == (FAILURE, 0)


def test_result_run_on_startup_check_failure():
    env, m, w, src, _ = setup(STARTUP, {"successThreshold": 1, "failureThreshold": 3})
    running(m)
    src.value = "failure"
    do_probe(env, w)
    assert (result(m, STARTUP), w.result_run) == (UNKNOWN, 1)
    do_probe(env, w)
    assert (result(m, STARTUP), w.result_run) == (UNKNOWN, 2)
    do_probe(env, w)
    assert (result(m, STARTUP), w.result_run) == (FAILURE, 0)


def test_liveness_probe_disabled_by_started():
    env, m, w, src, _ = setup(LIVENESS, {"successThreshold": 1, "failureThreshold": 1}, extra_workers=(STARTUP,))
    running(m)
    src.value = "failure"
    assert do_probe(env, w)
    assert result(m, LIVENESS) == SUCCESS  # not started: liveness is not run
    assert w.probes == []
    m.results[STARTUP][CID] = SUCCESS  # started
    assert do_probe(env, w)
    assert result(m, LIVENESS) == FAILURE


def test_startup_probe_disabled_by_started():
    env, m, w, src, _ = setup(STARTUP, {"successThreshold": 1, "failureThreshold": 2})
    running(m)
    src.value = "failure"
    do_probe(env, w)
    assert result(m, STARTUP) == UNKNOWN
    src.value = "success"
    do_probe(env, w)
    assert result(m, STARTUP) == SUCCESS
    assert m.is_container_started(UID, CNAME)
    src.value = "failure"
    do_probe(env, w)
    assert result(m, STARTUP) == SUCCESS


# ---------------------------------------------------------------- prober_manager_test.go


def test_add_remove_pods():
    env = simpy.Environment()
    m = ProberManager(env, random.Random(0))
    probe = {"exec": {"command": ["true"]}}
    pod = {
        "metadata": {"uid": "p1", "name": "p", "namespace": "default"},
        "spec": {
            "initContainers": [
                {"name": "init", "readinessProbe": probe},  # not a sidecar: no worker
                {"name": "sidecar", "restartPolicy": "Always", "livenessProbe": probe},
            ],
            "containers": [
                {"name": "no_probe1"},
                {"name": "readiness", "readinessProbe": probe},
                {"name": "liveness", "livenessProbe": probe},
                {"name": "startup", "startupProbe": probe},
                {"name": "all", "readinessProbe": probe, "livenessProbe": probe, "startupProbe": probe},
            ],
        },
    }
    m.add_pod(pod)
    assert set(m.workers) == {
        ("p1", "readiness", READINESS), ("p1", "liveness", LIVENESS), ("p1", "startup", STARTUP),
        ("p1", "all", READINESS), ("p1", "all", LIVENESS), ("p1", "all", STARTUP), ("p1", "sidecar", LIVENESS),
    }
    before = dict(m.workers)
    m.add_pod(pod)  # adding again keeps the same workers
    assert m.workers == before
    env.run(until=1)
    m.remove_pod(pod)
    env.run(until=2)
    assert m.workers == {}


def test_update_pod_status_ready_flags():
    env = simpy.Environment()
    m = ProberManager(env, random.Random(0))
    probe = {"exec": {"command": ["true"]}}
    pod = {"metadata": {"uid": "p1"}, "spec": {"containers": [
        {"name": "unprobed"}, {"name": "ready", "readinessProbe": probe},
        {"name": "pending", "readinessProbe": probe}, {"name": "unready", "readinessProbe": probe},
        {"name": "terminated", "readinessProbe": probe}]}}
    m.add_pod(pod)
    for i, n in enumerate(["unprobed", "ready", "pending", "unready", "terminated"]):
        m.container_started("p1", n, f"c{i}", started_at=0)
    m.results[READINESS]["c1"] = SUCCESS
    m.results[READINESS]["c3"] = FAILURE
    m.results[READINESS]["c4"] = SUCCESS
    m.container_exited("p1", "terminated", "c4", exit_code=0)
    got = {n: m.container_ready("p1", n) for n in ["unprobed", "ready", "pending", "unready", "terminated"]}
    assert got == {"unprobed": True, "ready": True, "pending": False, "unready": False, "terminated": False}


def test_update_readiness_end_to_end():
    env = simpy.Environment()
    src = Outcomes("success")
    m = ProberManager(env, random.Random(0), src)
    pod = make_pod({"readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 1}})
    env.run(until=5)
    m.add_pod(pod)
    m.container_started(UID, CNAME, CID, started_at=5)
    env.run(until=7)
    assert m.readiness(UID, CNAME) == SUCCESS and m.container_ready(UID, CNAME)
    src.value = "failure"
    env.run(until=12)
    assert m.readiness(UID, CNAME) == FAILURE and not m.container_ready(UID, CNAME)


# ---------------------------------------------------------------- timelines (model)


def test_liveness_failure_timeline_events_and_restart():
    env = simpy.Environment()
    table = {}
    changes = []
    m = ProberManager(env, random.Random(3), table, on_result=lambda *a: changes.append((env.now,) + a))
    probe = {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10, "failureThreshold": 3}
    pod = make_pod({"livenessProbe": probe})
    env.run(until=100)
    m.add_pod(pod)
    m.container_started(UID, CNAME, "c1", started_at=100)
    env.run(until=125)
    table[(UID, CNAME, LIVENESS)] = ("failure", "HTTP probe failed with statuscode: 500")
    env.run(until=200)
    # probes at 100, 110, 120 succeed; failures at 130, 140, 150 -> Failure at 150
    assert changes[-1] == (150, UID, CNAME, LIVENESS, FAILURE,
                           "Container test_container failed liveness probe, will be restarted")
    unhealthy = [e for e in m.events if e["reason"] == "Unhealthy"]
    assert [e["time"] for e in unhealthy] == [130, 140, 150]
    assert unhealthy[0]["message"] == "Liveness probe failed: HTTP probe failed with statuscode: 500"
    assert unhealthy[0]["type"] == "Warning"
    # on hold: no probes until the kubelet restarts the container
    w = m.worker(UID, CNAME, LIVENESS)
    assert w.on_hold and max(t for t, *_ in w.probes) == 150
    table.clear()
    m.container_exited(UID, CNAME, "c1", exit_code=137)
    m.container_started(UID, CNAME, "c2", started_at=env.now)
    env.run(until=215)
    assert m.liveness(UID, CNAME) == SUCCESS and not w.on_hold and w.result_run >= 1


def test_startup_gates_liveness_and_startup_failure_kills():
    env = simpy.Environment()
    table = {(UID, CNAME, STARTUP): "failure"}
    changes = []
    m = ProberManager(env, random.Random(3), table, on_result=lambda *a: changes.append(a))
    pod = make_pod({
        "startupProbe": {"exec": {"command": ["check"]}, "periodSeconds": 5, "failureThreshold": 2},
        "livenessProbe": {"exec": {"command": ["check"]}, "periodSeconds": 5, "failureThreshold": 1},
    }, restart_policy="Never")
    table[(UID, CNAME, LIVENESS)] = "failure"
    env.run(until=50)
    m.add_pod(pod)
    m.container_started(UID, CNAME, "c1", started_at=50)
    env.run(until=70)
    assert m.worker(UID, CNAME, LIVENESS).probes == []  # never run before startup succeeded
    assert (UID, CNAME, STARTUP, FAILURE, "Container test_container failed startup probe") in changes
    assert m.liveness(UID, CNAME) == SUCCESS


def test_readiness_triggered_on_container_start():
    env = simpy.Environment()
    m = ProberManager(env, random.Random(0))
    pod = make_pod({"readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 10}})
    env.run(until=100)
    m.add_pod(pod)  # probes at 100: no container yet; next tick would be 110
    env.run(until=103)
    m.container_started(UID, CNAME, "c1", started_at=103)
    env.run(until=104)
    assert m.readiness(UID, CNAME) == SUCCESS
    assert [t for t, *_ in m.worker(UID, CNAME, READINESS).probes] == [103]
    env.run(until=125)
    # the manual run reset the ticker: 113, 123
    assert [t for t, *_ in m.worker(UID, CNAME, READINESS).probes] == [103, 113, 123]


def test_first_probe_jitter_is_seeded_and_only_after_kubelet_start():
    def first_probe_times(seed, add_at):
        env = simpy.Environment()
        m = ProberManager(env, random.Random(seed))
        pod = make_pod({"livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 10}})
        if add_at:
            env.run(until=add_at)
        m.add_pod(pod)
        m.container_started(UID, CNAME, "c1", started_at=add_at)
        env.run(until=add_at + 25)
        return [t for t, *_ in m.worker(UID, CNAME, LIVENESS).probes]

    a = first_probe_times(1, 0)
    assert a == first_probe_times(1, 0)
    assert a != first_probe_times(2, 0)
    assert 0 <= a[0] < 10 and a[1] - a[0] == 10
    assert first_probe_times(1, 50)[0] == 50  # kubelet up for longer than a period: no jitter


def test_probe_timeout_takes_timeout_seconds():
    env = simpy.Environment()
    m = ProberManager(env, random.Random(0), {(UID, CNAME, LIVENESS): "timeout"})
    pod = make_pod({"livenessProbe": {"exec": {"command": ["sleep", "10"]}, "timeoutSeconds": 3,
                                      "periodSeconds": 10, "failureThreshold": 1}})
    env.run(until=20)
    m.add_pod(pod)
    m.container_started(UID, CNAME, "c1", started_at=20)
    env.run(until=40)
    assert m.events[0]["time"] == 23
    assert m.events[0]["message"] == 'Liveness probe failed: command "sleep 10" timed out'
    assert m.liveness(UID, CNAME) == FAILURE


def test_messages():
    assert kill_message("app", LIVENESS, "OnFailure") == "Container app failed liveness probe, will be restarted"
    assert kill_message("app", LIVENESS, "Never") == "Container app failed liveness probe"
    assert timeout_output({"httpGet": {"path": "healthz", "port": "http"}}, "10.1.0.7",
                          {"ports": [{"name": "http", "containerPort": 8080}]}) == (
        'Get "http://10.1.0.7:8080/healthz": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)")


def test_grpc_timeout_output():
    assert timeout_output({"grpc": {"port": 9090}, "timeoutSeconds": 2}, "10.0.0.1") == (
        'timeout: failed to connect service "10.0.0.1:9090" within 2s: context deadline exceeded')


def test_remove_pod_before_the_worker_ran():
    env = simpy.Environment()
    m = ProberManager(env, random.Random(0))
    pod = make_pod({"livenessProbe": {"exec": {"command": ["true"]}}})
    m.add_pod(pod)
    m.remove_pod(pod)
    env.run(until=5)
    assert m.workers == {} and m.results[LIVENESS] == {}
