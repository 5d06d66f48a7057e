"""kubenotes.kubelet.status.terminate_pod against the status manager's TerminatePod (status_manager.go).

Cases after upstream's status_manager_test.go TestTerminatePod, TestTerminatePodWaiting and
TestTerminatePod_DefaultUnknownStatus, reduced to what the function decides: which container states
become ContainerStatusUnknown/137 and which phases become Failed.
"""

from __future__ import annotations

import pytest

from kubenotes.kubelet.status import has_pod_initialized, terminate_pod

UNKNOWN = {"terminated": {"exitCode": 137, "reason": "ContainerStatusUnknown",
                          "message": "The container could not be located when the pod was terminated",
                          "startedAt": None, "finishedAt": None}}
RUNNING = {"running": {"startedAt": "2025-08-27T00:00:02Z"}}
WAITING = {"waiting": {"reason": "PodInitializing"}}
DONE = {"terminated": {"exitCode": 0, "reason": "Completed"}}


def _pod(init=(), containers=("a",), status=None, annotations=None):
    return {"metadata": {"name": "p", "namespace": "default", "annotations": annotations or {}},
            "spec": {"initContainers": [{"name": n} for n in init], "containers": [{"name": n} for n in containers]},
            "status": status or {}}


def test_running_containers_become_unknown_and_a_running_pod_fails():
    pod = _pod(containers=("a", "b"))
    st = terminate_pod(pod, {"phase": "Running", "containerStatuses": [{"name": "a", "state": RUNNING},
                                                                       {"name": "b", "state": DONE}]})
    assert st["phase"] == "Failed"
    assert [c["state"] for c in st["containerStatuses"]] == [UNKNOWN, DONE]


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_a_terminal_phase_is_kept(phase):
    st = terminate_pod(_pod(), {"phase": phase, "containerStatuses": [{"name": "a", "state": DONE}]})
    assert st["phase"] == phase


def test_a_static_pod_keeps_its_phase():
    pod = _pod(annotations={"kubernetes.io/config.source": "file"})
    assert terminate_pod(pod, {"phase": "Running", "containerStatuses": [{"name": "a", "state": RUNNING}]})[
        "phase"] == "Running"


def test_an_uninitialized_pod_keeps_waiting_regular_containers_and_fails_the_first_waiting_init_container():
    # TestTerminatePodWaiting: init containers i1 done, i2 and i3 waiting; regular containers waiting
    status = {"phase": "Pending",
              "initContainerStatuses": [{"name": "i1", "state": DONE}, {"name": "i2", "state": WAITING},
                                        {"name": "i3", "state": WAITING}],
              "containerStatuses": [{"name": "a", "state": WAITING}]}
    pod = _pod(init=("i1", "i2", "i3"), status=status)
    assert not has_pod_initialized(pod)
    st = terminate_pod(pod, status)
    assert [c["state"] for c in st["initContainerStatuses"]] == [DONE, WAITING, WAITING]
    assert st["containerStatuses"][0]["state"] == WAITING and st["phase"] == "Failed"
    # nothing tried to start: the first init container is the one reported failed
    status0 = dict(status, initContainerStatuses=[{"name": n, "state": WAITING} for n in ("i1", "i2", "i3")])
    st0 = terminate_pod(_pod(init=("i1", "i2", "i3"), status=status0), status0)
    assert [c["state"] for c in st0["initContainerStatuses"]] == [UNKNOWN, WAITING, WAITING]


def test_a_pod_whose_last_init_container_completed_has_initialized():
    status = {"initContainerStatuses": [{"name": "i1", "state": DONE}],
              "containerStatuses": [{"name": "a", "state": WAITING}]}
    pod = _pod(init=("i1",), status=status)
    assert has_pod_initialized(pod)
    assert terminate_pod(pod, status)["containerStatuses"][0]["state"] == UNKNOWN
