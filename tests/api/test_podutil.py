"""kubenotes.api.podutil: the one home of pkg/api/v1/pod's condition and readiness helpers."""

import pytest

from kubenotes.api import podutil
from kubenotes.api.podutil import find_port, get_pod_condition, is_pod_ready, pod_ready_condition, update_pod_condition


def _pod(*conditions):
    return {"metadata": {"name": "p"}, "status": {"conditions": list(conditions)}}


# Cases after upstream's util_test.go (TestGetPodCondition, TestIsPodReady).
@pytest.mark.parametrize("conditions, want", [
    ([], False),
    ([{"type": "Ready", "status": "True"}], True),
    ([{"type": "Ready", "status": "False"}], False),
    ([{"type": "Ready", "status": "Unknown"}], False),
    ([{"type": "PodScheduled", "status": "True"}], False),
    ([{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}], True),
])
def test_is_pod_ready(conditions, want):
    assert is_pod_ready(_pod(*conditions)) is want


def test_is_pod_ready_without_status():
    assert not is_pod_ready({"metadata": {"name": "p"}})
    assert not is_pod_ready({"status": None})


def test_get_pod_condition_returns_the_condition_itself():
    ready = {"type": "Ready", "status": "True"}
    status = {"conditions": [{"type": "PodScheduled", "status": "True"}, ready]}
    assert get_pod_condition(status, "Ready") is ready
    assert get_pod_condition(status, "DisruptionTarget") is None
    assert get_pod_condition(None, "Ready") is None
    assert pod_ready_condition({"status": status}) is ready


def test_first_condition_of_a_type_wins():
    pod = _pod({"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"})
    assert not is_pod_ready(pod)


def test_update_pod_condition_keeps_transition_time_when_status_unchanged():
    st = {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "t0"}]}
    assert update_pod_condition(st, {"type": "Ready", "status": "True", "reason": "R"}, "t1")
    assert st["conditions"][0]["lastTransitionTime"] == "t0"
    assert not update_pod_condition(st, {"type": "Ready", "status": "True", "reason": "R"}, "t2")
    assert update_pod_condition(st, {"type": "ContainersReady", "status": "False"}, "t3")
    assert st["conditions"][1] == {"type": "ContainersReady", "status": "False", "lastTransitionTime": "t3",
                                   "lastProbeTime": None}


def test_find_port():
    pod = {"metadata": {"uid": "u"}, "spec": {"containers": [{"name": "c", "ports": [
        {"name": "dns", "containerPort": 53, "protocol": "UDP"}, {"name": "http", "containerPort": 8080}]}]}}
    assert find_port(pod, {"port": 80, "targetPort": "http"}) == 8080
    assert find_port(pod, {"port": 53, "targetPort": "dns", "protocol": "UDP"}) == 53
    assert find_port(pod, {"port": 80, "targetPort": "8081"}) == 8081
    with pytest.raises(ValueError, match="no suitable port for manifest: u"):
        find_port(pod, {"port": 53, "targetPort": "dns"})


def test_components_call_the_one_home():
    """The controllers and the chapters' timelines use api.podutil's functions, not copies."""
    from kubenotes.controllers import controller_utils, endpoints, endpointslice, podutil as ctl_podutil
    from kubenotes.sim import timelines

    assert controller_utils.is_pod_ready is podutil.is_pod_ready
    assert controller_utils.pod_ready_condition is podutil.pod_ready_condition
    assert ctl_podutil.is_pod_ready is podutil.is_pod_ready
    assert endpoints.find_port is podutil.find_port
    assert endpointslice.is_pod_ready is podutil.is_pod_ready
    assert timelines._pod_ready is podutil.is_pod_ready
    for name in ("get_pod_condition", "update_pod_condition", "find_port"):
        assert not hasattr(ctl_podutil, name) or getattr(ctl_podutil, name) is getattr(podutil, name)
