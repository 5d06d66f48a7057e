"""Tests for kubenotes.kubelet.status (the kubelet's pod status).

Cases ported from kubernetes/kubernetes@v1.34.0:

* pkg/kubelet/kubelet_pods_test.go: TestPodPhaseWithRestartAlways,
  TestPodPhaseWithRestartNever, TestPodPhaseWithRestartOnFailure,
  TestPodPhaseWithRestartAlwaysInitContainers,
  TestPodPhaseWithRestartNeverInitContainers,
  TestPodPhaseWithRestartAlwaysRestartableInitContainers,
  TestPodPhaseWithRestartNeverRestartableInitContainers,
  TestPodPhaseWithRestartAlwaysAndPodHasRun (the helpers
  runningState / succeededState / failedState / waitingState /
  waitingStateWithLastTermination / startedState are rebuilt below);
  TestConvertToAPIContainerStatuses (default waiting reasons, the
  ContainerStatusUnknown last state) and TestGenerateAPIPodStatusWithReasonCache
  (a reason-cache entry turns a restartable container Waiting).
* pkg/kubelet/status/generate_test.go: TestGenerateContainersReadyCondition,
  TestGeneratePodReadyCondition, TestGeneratePodInitializedCondition.
"""

from __future__ import annotations

import pytest

from kubenotes.kubelet.backoff import do_back_off, new_crash_loop_back_off
from kubenotes.kubelet.status import (
    CONTAINER_CREATING,
    POD_INITIALIZING,
    RuntimeContainerStatus,
    RuntimePodStatus,
    convert_to_api_container_statuses,
    generate_api_pod_status,
    generate_containers_ready_condition,
    generate_pod_initialized_condition,
    generate_pod_ready_condition,
    get_phase,
    update_probe_status,
)


# --- helpers as in kubelet_pods_test.go -------------------------------------------------------------------
def running(name):
    return {"name": name, "state": {"running": {}}}


def started(name):
    return {"name": name, "state": {"running": {}}, "started": True}


def succeeded(name):
    return {"name": name, "state": {"terminated": {"exitCode": 0}}}


def failed(name):
    return {"name": name, "state": {"terminated": {"exitCode": -1}}}


def waiting(name):
    return {"name": name, "state": {"waiting": {}}}


def waiting_with_last_termination(name, exit_code=0):
    return {"name": name, "state": {"waiting": {}}, "lastState": {"terminated": {"exitCode": exit_code}}}


def waiting_with_last_termination_non_zero(name):
    return waiting_with_last_termination(name, exit_code=1)


def pod(policy, containers=("containerA", "containerB"), init=(), sidecars=()):
    spec = {"restartPolicy": policy, "containers": [{"name": n} for n in containers]}
    inits = [{"name": n} for n in init] + [{"name": n, "restartPolicy": "Always"} for n in sidecars]
    if inits:
        spec["initContainers"] = inits
    return {"metadata": {"name": "p", "namespace": "default", "uid": "u"}, "spec": spec}


# --- getPhase ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("statuses, terminal, expected", [
    ([running("containerA"), running("containerB")], False, "Running"),                 # all running
    ([succeeded("containerA"), succeeded("containerB")], False, "Running"),             # all stopped
    ([succeeded("containerA"), succeeded("containerB")], True, "Succeeded"),            # all succeeded, terminal
    ([succeeded("containerA"), failed("containerB")], True, "Failed"),                  # terminal with a failure
    ([running("containerA"), failed("containerB")], False, "Running"),                  # mixed #1
    ([running("containerA")], False, "Pending"),                                        # mixed #2: B unknown
    ([running("containerA"), waiting("containerB")], False, "Pending"),                 # mixed #3
    ([running("containerA"), waiting_with_last_termination("containerB")], False, "Running"),  # backoff crashloop
])
def test_pod_phase_with_restart_always(statuses, terminal, expected):
    assert get_phase(pod("Always"), statuses, terminal) == expected


@pytest.mark.parametrize("statuses, expected", [
    ([running("containerA"), running("containerB")], "Running"),
    ([succeeded("containerA"), succeeded("containerB")], "Succeeded"),
    ([failed("containerA"), failed("containerB")], "Failed"),
    ([running("containerA"), succeeded("containerB")], "Running"),
    ([running("containerA")], "Pending"),
    ([running("containerA"), waiting("containerB")], "Pending"),
])
def test_pod_phase_with_restart_never(statuses, expected):
    assert get_phase(pod("Never"), statuses, False) == expected


@pytest.mark.parametrize("statuses, expected", [
    ([running("containerA"), running("containerB")], "Running"),
    ([succeeded("containerA"), succeeded("containerB")], "Succeeded"),
    ([failed("containerA"), failed("containerB")], "Running"),          # restarting after failure
    ([running("containerA"), succeeded("containerB")], "Running"),
    ([running("containerA")], "Pending"),
    ([running("containerA"), waiting("containerB")], "Pending"),
    ([running("containerA"), waiting_with_last_termination_non_zero("containerB")], "Running"),  # backoff
])
def test_pod_phase_with_restart_on_failure(statuses, expected):
    assert get_phase(pod("OnFailure"), statuses, False) == expected


@pytest.mark.parametrize("init_status, containers, expected", [
    (waiting("containerX"), [waiting("containerA"), waiting("containerB")], "Pending"),   # init waiting
    (running("containerX"), [waiting("containerA"), waiting("containerB")], "Pending"),   # init running
    (failed("containerX"), [waiting("containerA"), waiting("containerB")], "Pending"),    # init failed, retried
    (waiting_with_last_termination_non_zero("containerX"), [waiting("containerA"), waiting("containerB")],
     "Pending"),                                                                          # init backoff
    (succeeded("containerX"), [running("containerA"), running("containerB")], "Running"),  # init done
])
def test_pod_phase_with_restart_always_init_containers(init_status, containers, expected):
    assert get_phase(pod("Always", init=("containerX",)), [init_status] + containers) == expected


@pytest.mark.parametrize("init_status, expected", [
    (failed("containerX"), "Failed"),
    (waiting_with_last_termination_non_zero("containerX"), "Failed"),
    (running("containerX"), "Pending"),
])
def test_pod_phase_with_restart_never_init_containers(init_status, expected):
    p = pod("Never", init=("containerX",))
    assert get_phase(p, [init_status, waiting("containerA"), waiting("containerB")]) == expected


def stopped(name):
    return {"name": name, "state": {"terminated": {}}}


X, A, B = "containerX", "containerA", "containerB"


# (init statuses, regular statuses, podIsTerminal, podHasInitialized, expected). podHasInitialized is v1.34's
# extra argument: True where a regular container has run, so a not-yet-started sidecar keeps the pod Running.
@pytest.mark.parametrize("inits, regular, terminal, initialized, expected", [
    ([], [], False, False, "Pending"),                                                   # empty, waiting
    ([running(X)], [], False, False, "Pending"),                                         # sidecar running
    ([stopped(X)], [], False, False, "Pending"),                                         # sidecar stopped
    ([waiting_with_last_termination(X)], [], False, False, "Pending"),
    ([waiting_with_last_termination_non_zero(X)], [], False, False, "Pending"),
    ([waiting(X)], [], False, False, "Pending"),
    ([started(X)], [running(A)], False, True, "Pending"),                                # 1/2 regular running
    ([started(X)], [running(A), running(B)], False, True, "Running"),
    ([running(X)], [running(A), running(B)], False, True, "Running"),
    ([running(X)], [running(A), running(B)], False, False, "Pending"),                   # sidecar not started yet
    ([stopped(X)], [running(A), running(B)], False, True, "Running"),
    ([waiting_with_last_termination(X)], [running(A), running(B)], False, True, "Running"),  # sidecar crashloop
    ([failed(X)], [succeeded(A), succeeded(B)], True, True, "Succeeded"),                # terminal pod
    ([succeeded(X)], [succeeded(A), succeeded(B)], True, True, "Succeeded"),
])
def test_pod_phase_with_restart_always_restartable_init_containers(inits, regular, terminal, initialized, expected):
    p = pod("Always", sidecars=(X,))
    assert get_phase(p, inits + regular, terminal, initialized) == expected


@pytest.mark.parametrize("inits, regular, initialized, expected", [
    ([], [], False, "Pending"),
    ([running(X)], [], False, "Pending"),
    ([stopped(X)], [], False, "Pending"),
    ([waiting_with_last_termination_non_zero(X)], [], False, "Pending"),
    ([started(X)], [running(A)], True, "Pending"),
    ([started(X)], [succeeded(A), succeeded(B)], True, "Running"),     # sidecar still running
    ([running(X)], [succeeded(A), succeeded(B)], True, "Running"),
    ([succeeded(X)], [succeeded(A), succeeded(B)], True, "Succeeded"),
    ([failed(X)], [succeeded(A), succeeded(B)], True, "Succeeded"),    # a stopped sidecar does not count
    ([waiting_with_last_termination(X)], [succeeded(A), succeeded(B)], True, "Succeeded"),
    ([waiting_with_last_termination_non_zero(X)], [succeeded(A), succeeded(B)], True, "Succeeded"),
])
def test_pod_phase_with_restart_never_restartable_init_containers(inits, regular, initialized, expected):
    p = pod("Never", sidecars=(X,))
    assert get_phase(p, inits + regular, False, initialized) == expected


@pytest.mark.parametrize("inits, regular, expected", [
    ([running(X), running("containerY")], [running(A)], "Pending"),
    ([running(X), running("containerY")], [stopped(A)], "Pending"),
    ([succeeded(X), running("containerY")], [stopped(A)], "Running"),
    ([succeeded(X), running("containerY")], [running(A)], "Running"),
])
def test_pod_phase_with_restart_always_and_pod_has_run(inits, regular, expected):
    p = {"spec": {"restartPolicy": "Always", "initContainers": [{"name": X},
                                                               {"name": "containerY", "restartPolicy": "Always"}],
                  "containers": [{"name": A}]}}
    assert get_phase(p, inits + regular, False, True) == expected


def test_static_pod_never_gets_terminal_phase_from_pod_is_terminal():
    p = pod("Always")
    p["metadata"]["annotations"] = {"kubernetes.io/config.source": "file"}
    assert get_phase(p, [succeeded(A), succeeded(B)], True) == "Running"   # upstream TODO(#116484)
    assert get_phase(pod("Always"), [succeeded(A), succeeded(B)], True) == "Succeeded"


# --- conditions (generate_test.go) -------------------------------------------------------------------------
def spec_pod(containers=(), init=(), sidecars=(), gates=()):
    spec = {"containers": [{"name": n} for n in containers]}
    inits = [{"name": n} for n in init] + [{"name": n, "restartPolicy": "Always"} for n in sidecars]
    if inits:
        spec["initContainers"] = inits
    if gates:
        spec["readinessGates"] = [{"conditionType": g} for g in gates]
    return {"spec": spec}


def ready(name, is_ready=True):
    return {"name": name, "ready": is_ready}


@pytest.mark.parametrize("p, statuses, phase, expected", [
    (spec_pod(), None, "Running", ("False", "UnknownContainerStatuses", None)),
    (spec_pod(), [], "Running", ("True", None, None)),
    (spec_pod(["1234"]), [], "Running",
     ("False", "ContainersNotReady", "containers with unknown status: [1234]")),
    (spec_pod(["1234", "5678"]), [ready("1234"), ready("5678")], "Running", ("True", None, None)),
    (spec_pod(["1234", "5678"]), [ready("1234")], "Running",
     ("False", "ContainersNotReady", "containers with unknown status: [5678]")),
    (spec_pod(["1234", "5678"]), [ready("1234"), ready("5678", False)], "Running",
     ("False", "ContainersNotReady", "containers with unready status: [5678]")),
    (spec_pod(["1234"]), [ready("1234", False)], "Succeeded", ("False", "PodCompleted", None)),
    (spec_pod(["1234"]), [ready("1234", False)], "Failed", ("False", "PodFailed", None)),
    (spec_pod(["1234"], sidecars=["s"]), [ready("1234"), ready("s", False)], "Running",
     ("False", "ContainersNotReady", "containers with unready status: [s]")),
    (spec_pod(["1234"], init=["i"]), [ready("1234"), ready("i", False)], "Running", ("True", None, None)),
    (spec_pod(["a", "b", "c"]), [ready("b", False), ready("c", False)], "Running",
     ("False", "ContainersNotReady", "containers with unknown status: [a], containers with unready status: [b c]")),
])
def test_generate_containers_ready_condition(p, statuses, phase, expected):
    c = generate_containers_ready_condition(p, statuses, phase)
    assert c["type"] == "ContainersReady"
    assert (c["status"], c.get("reason"), c.get("message")) == expected


@pytest.mark.parametrize("p, conditions, statuses, expected", [
    (spec_pod(), [], None, ("False", "UnknownContainerStatuses", None)),
    (spec_pod(), [], [], ("True", None, None)),
    (spec_pod(["1234"]), [], [ready("1234", False)],
     ("False", "ContainersNotReady", "containers with unready status: [1234]")),
    (spec_pod(["1234"], gates=["gate1"]), [], [ready("1234")],
     ("False", "ReadinessGatesNotReady", 'corresponding condition of pod readiness gate "gate1" does not exist.')),
    (spec_pod(["1234"], gates=["gate1"]), [{"type": "gate1", "status": "False"}], [ready("1234")],
     ("False", "ReadinessGatesNotReady", 'the status of pod readiness gate "gate1" is not "True", but False')),
    (spec_pod(["1234"], gates=["gate1"]), [{"type": "gate1", "status": "True"}], [ready("1234")],
     ("True", None, None)),
    (spec_pod(["1234"], gates=["gate1", "gate2"]), [{"type": "gate1", "status": "True"}], [ready("1234")],
     ("False", "ReadinessGatesNotReady", 'corresponding condition of pod readiness gate "gate2" does not exist.')),
])
def test_generate_pod_ready_condition(p, conditions, statuses, expected):
    c = generate_pod_ready_condition(p, conditions, statuses, "Running")
    assert c["type"] == "Ready"
    assert (c["status"], c.get("reason"), c.get("message")) == expected


def init_status(name, is_ready=False, is_started=False, state=None):
    return {"name": name, "ready": is_ready, "started": is_started, "state": state or {"waiting": {}}}


@pytest.mark.parametrize("p, statuses, phase, expected", [
    (spec_pod(["a"]), None, "Pending", ("True", None, None)),                      # no init containers
    (spec_pod(["a"], init=["i"]), None, "Pending", ("False", "UnknownContainerStatuses", None)),
    (spec_pod(["a"], init=["i1", "i2"]), [init_status("i1", True), init_status("i2", True)], "Pending",
     ("True", None, None)),
    (spec_pod(["a"], init=["i1", "i2"]), [init_status("i1", True)], "Pending",
     ("False", "ContainersNotInitialized", "containers with unknown status: [i2]")),
    (spec_pod(["a"], init=["i1", "i2", "i3"]), [init_status("i1", True), init_status("i2"), init_status("i3")],
     "Pending", ("False", "ContainersNotInitialized", "containers with incomplete status: [i2 i3]")),
    (spec_pod(["a"], init=["i1", "i2"]), [init_status("i1")], "Pending",
     ("False", "ContainersNotInitialized",
      "containers with unknown status: [i2], containers with incomplete status: [i1]")),
    (spec_pod(["a"], init=["i1"]), [init_status("i1")], "Succeeded", ("True", "PodCompleted", None)),
    (spec_pod(["a"], sidecars=["s"]), [init_status("s", is_started=True)], "Pending", ("True", None, None)),
    (spec_pod(["a"], sidecars=["s"]), [init_status("s", is_ready=True)], "Pending",
     ("False", "ContainersNotInitialized", "containers with incomplete status: [s]")),
    # a regular container has run: initialized even though the sidecar is restarting
    (spec_pod(["a"], sidecars=["s"]), [init_status("s"), {"name": "a", "ready": False, "state": {"running": {}}}],
     "Running", ("True", None, None)),
])
def test_generate_pod_initialized_condition(p, statuses, phase, expected):
    c = generate_pod_initialized_condition(p, statuses, phase)
    assert c["type"] == "Initialized"
    assert (c["status"], c.get("reason"), c.get("message")) == expected


# --- container statuses ------------------------------------------------------------------------------------
def fmt(seconds):
    return f"t{int(seconds)}"


def test_default_waiting_reasons():
    p = pod("Always", containers=("b", "a"))
    sts = convert_to_api_container_statuses(p, RuntimePodStatus(), None, p["spec"]["containers"], False, False)
    assert [s["name"] for s in sts] == ["a", "b"]  # sorted by name
    assert all(s["state"] == {"waiting": {"reason": CONTAINER_CREATING}} for s in sts)
    p = pod("Always", containers=("a",), init=("i",))
    sts = convert_to_api_container_statuses(p, RuntimePodStatus(), None, p["spec"]["containers"], True, False)
    assert sts[0]["state"] == {"waiting": {"reason": POD_INITIALIZING}}


def test_running_and_previous_instance_give_state_and_last_state():
    p = pod("Always", containers=("a",))
    rt = RuntimePodStatus(container_statuses=[
        RuntimeContainerStatus("a", "exited", id="containerd://old", created_at_seconds=1, started_at_seconds=2,
                               finished_at_seconds=7, exit_code=1, reason="Error", restart_count=0),
        RuntimeContainerStatus("a", "running", id="containerd://new", created_at_seconds=20, started_at_seconds=21,
                               restart_count=1, image="nginx", image_ref="docker.io/library/nginx@sha256:x"),
    ])
    (st,) = convert_to_api_container_statuses(p, rt, None, p["spec"]["containers"], False, False, format_time=fmt)
    assert st["state"] == {"running": {"startedAt": "t21"}}
    assert st["lastState"] == {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": "t2",
                                              "finishedAt": "t7", "containerID": "containerd://old"}}
    assert st["restartCount"] == 1 and st["containerID"] == "containerd://new"
    assert st["imageID"] == "docker.io/library/nginx@sha256:x"


def test_reason_cache_turns_exited_container_into_crash_loop_back_off():
    p = pod("Always", containers=("a",))
    rt = RuntimePodStatus(container_statuses=[
        RuntimeContainerStatus("a", "exited", id="containerd://1", created_at_seconds=1, started_at_seconds=2,
                               finished_at_seconds=3, exit_code=2, reason="Error", restart_count=3)])
    class Clock:
        now = 0.0
    back_off = new_crash_loop_back_off(Clock())
    do_back_off(back_off, p, "a", 1, finished_at=0.0)       # first exit: restarted at once
    result = do_back_off(back_off, p, "a", 1, finished_at=0.0)
    reason_cache = {"a": (result.reason, result.message)}
    (st,) = convert_to_api_container_statuses(p, rt, None, p["spec"]["containers"], False, False,
                                              reason_cache, fmt)
    assert st["state"] == {"waiting": {"reason": "CrashLoopBackOff",
                                       "message": "back-off 10s restarting failed container=a pod=p_default(u)"}}
    assert st["lastState"]["terminated"]["exitCode"] == 2
    assert st["restartCount"] == 3
    # restartPolicy Never: the container will not be restarted, so it stays Terminated
    p = pod("Never", containers=("a",))
    (st,) = convert_to_api_container_statuses(p, rt, None, p["spec"]["containers"], False, False,
                                              reason_cache, fmt)
    assert "terminated" in st["state"]


def test_container_lost_by_runtime_after_running_shows_status_unknown():
    p = pod("Always", containers=("a",))
    old = [{"name": "a", "state": {"running": {"startedAt": "t1"}}, "lastState": {}, "restartCount": 2}]
    (st,) = convert_to_api_container_statuses(p, RuntimePodStatus(), old, p["spec"]["containers"], False, False)
    assert st["lastState"]["terminated"]["reason"] == "ContainerStatusUnknown"
    assert st["lastState"]["terminated"]["exitCode"] == 137
    assert st["restartCount"] == 3
    assert get_phase(p, [st]) == "Running"  # stopped rather than waiting: not back to Pending


def test_init_container_exited_zero_is_ready_and_not_waiting():
    p = pod("Always", containers=("a",), init=("i",))
    rt = RuntimePodStatus(container_statuses=[
        RuntimeContainerStatus("i", "exited", created_at_seconds=1, started_at_seconds=1, finished_at_seconds=2,
                               exit_code=0, reason="Completed")])
    sts = {"initContainerStatuses": convert_to_api_container_statuses(
        p, rt, None, p["spec"]["initContainers"], True, True, {"i": ("CrashLoopBackOff", "x")}, fmt)}
    update_probe_status(p, sts)
    (st,) = sts["initContainerStatuses"]
    assert st["state"]["terminated"]["reason"] == "Completed"
    assert st["ready"] is True and st["started"] is False


def test_probes_drive_started_and_ready():
    p = {"spec": {"containers": [{"name": "a", "startupProbe": {}, "readinessProbe": {}}]}}
    st = {"containerStatuses": [{"name": "a", "state": {"running": {}}}]}
    update_probe_status(p, st)
    assert (st["containerStatuses"][0]["started"], st["containerStatuses"][0]["ready"]) == (False, False)
    update_probe_status(p, st, readiness_results={"a": True}, startup_results={"a": False})
    assert (st["containerStatuses"][0]["started"], st["containerStatuses"][0]["ready"]) == (False, False)
    update_probe_status(p, st, readiness_results={"a": True}, startup_results={"a": True})
    assert (st["containerStatuses"][0]["started"], st["containerStatuses"][0]["ready"]) == (True, True)
    update_probe_status(p, st, readiness_results={"a": "failure"}, startup_results={"a": "success"})
    assert (st["containerStatuses"][0]["started"], st["containerStatuses"][0]["ready"]) == (True, False)
    st = {"containerStatuses": [{"name": "a", "state": {"terminated": {"exitCode": 0}}}]}
    update_probe_status(p, st, readiness_results={"a": True}, startup_results={"a": True})
    assert (st["containerStatuses"][0]["started"], st["containerStatuses"][0]["ready"]) == (False, False)


# --- generateAPIPodStatus ----------------------------------------------------------------------------------
def web_pod():
    return {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
            "spec": {"restartPolicy": "Always",
                     "initContainers": [{"name": "init", "image": "busybox"}],
                     "containers": [{"name": "app", "image": "nginx", "readinessProbe": {"httpGet": {"port": 80}},
                                     "resources": {"requests": {"cpu": "100m"}}}]},
            "status": {"phase": "Pending",
                       "conditions": [{"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                                       "lastTransitionTime": "t0"}]}}


def test_pod_start_timeline():
    p = web_pod()
    # 1. sandbox not ready yet
    st = generate_api_pod_status(p, RuntimePodStatus(), now=1, host_ips=["10.0.0.2"], start_time=1, format_time=fmt)
    conds = {c["type"]: c for c in st["conditions"]}
    assert st["phase"] == "Pending"
    assert conds["PodReadyToStartContainers"]["status"] == "False"
    assert conds["Initialized"]["message"] == "containers with incomplete status: [init]"
    assert conds["Ready"]["message"] == "containers with unready status: [app]"
    assert conds["PodScheduled"]["lastTransitionTime"] == "t0"
    assert st["startTime"] == "t1" and st["hostIP"] == "10.0.0.2" and st["qosClass"] == "Burstable"
    assert st["containerStatuses"][0]["state"] == {"waiting": {"reason": "PodInitializing"}}
    # 2. init done, app running, readiness probe not passed yet
    p["status"] = st
    rt = RuntimePodStatus(ips=["10.244.1.7"], sandbox_ready=True, container_statuses=[
        RuntimeContainerStatus("init", "exited", id="containerd://i", created_at_seconds=2, started_at_seconds=2,
                               finished_at_seconds=3, exit_code=0, reason="Completed"),
        RuntimeContainerStatus("app", "running", id="containerd://a", created_at_seconds=4, started_at_seconds=4)])
    st2 = generate_api_pod_status(p, rt, now=5, host_ips=["10.0.0.2"], format_time=fmt)
    conds = {c["type"]: c for c in st2["conditions"]}
    assert st2["phase"] == "Running" and st2["podIP"] == "10.244.1.7"
    assert conds["Initialized"]["status"] == "True" and conds["Initialized"]["lastTransitionTime"] == "t5"
    assert conds["Ready"]["status"] == "False" and conds["ContainersReady"]["reason"] == "ContainersNotReady"
    app = st2["containerStatuses"][0]
    assert (app["started"], app["ready"]) == (True, False)
    assert app["allocatedResources"] == {"cpu": "100m"}
    assert st2["startTime"] == "t1"
    # 3. readiness succeeds
    p["status"] = st2
    st3 = generate_api_pod_status(p, rt, now=9, host_ips=["10.0.0.2"], readiness_results={"app": True},
                                  format_time=fmt)
    conds = {c["type"]: c for c in st3["conditions"]}
    assert conds["Ready"]["status"] == "True" and conds["Ready"]["lastTransitionTime"] == "t9"
    assert conds["Initialized"]["lastTransitionTime"] == "t5"  # unchanged status keeps its transition time


def test_terminal_phase_is_sticky_and_reason_kept():
    p = pod("Never", containers=("a",))
    p["status"] = {"phase": "Failed", "reason": "Evicted", "message": "The node was low on resource: memory. "}
    rt = RuntimePodStatus(container_statuses=[RuntimeContainerStatus("a", "running", started_at_seconds=1)])
    st = generate_api_pod_status(p, rt, now=2, format_time=fmt)
    assert st["phase"] == "Failed" and st["reason"] == "Evicted"
    conds = {c["type"]: c for c in st["conditions"]}
    assert conds["Ready"]["reason"] == "PodFailed"


def test_never_pod_completes():
    p = pod("Never", containers=("a",))
    rt = RuntimePodStatus(sandbox_ready=True, container_statuses=[
        RuntimeContainerStatus("a", "exited", started_at_seconds=1, finished_at_seconds=3, exit_code=0,
                               reason="Completed")])
    st = generate_api_pod_status(p, rt, now=4, format_time=fmt)
    conds = {c["type"]: c for c in st["conditions"]}
    assert st["phase"] == "Succeeded"
    assert conds["Ready"]["reason"] == "PodCompleted" and conds["Initialized"]["status"] == "True"


def test_host_network_pod_gets_node_ips():
    p = pod("Always", containers=("a",))
    p["spec"]["hostNetwork"] = True
    st = generate_api_pod_status(p, RuntimePodStatus(), now=0, host_ips=["10.0.0.2"], format_time=fmt)
    assert st["podIP"] == "10.0.0.2" and st["podIPs"] == [{"ip": "10.0.0.2"}]
