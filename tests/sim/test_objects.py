"""The objects chapter's example Pod (kubenotes.sim.objects): as created, and its request breakdown adding up."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubenotes.api.qos import compute_pod_qos
from kubenotes.api.resources import pod_non_zero_requests, pod_requests, request_breakdown
from kubenotes.sim.objects import SIDECAR_EXAMPLE, pod_with_sidecar

MIB = 2**20


def test_sidecar_example_numbers():
    pod = pod_with_sidecar()
    assert request_breakdown(pod) == {
        "containers": 500, "sidecars": 200, "running": 700, "init peak": 1200, "init peak sidecars": 200,
        "overhead": 250, "effective": 1450}
    mem = request_breakdown(pod, "memory")
    assert (mem["running"], mem["init peak"], mem["overhead"], mem["effective"]) == (
        384 * MIB, 192 * MIB, 120 * MIB, 504 * MIB)
    assert pod_requests(pod) == {"cpu": 1450, "memory": 504 * MIB}
    assert pod.status.qosClass == "Burstable"
    assert pod_with_sidecar() is not pod  # a fresh object each time
    assert pod_with_sidecar(**SIDECAR_EXAMPLE).to_dict() == pod.to_dict()


def test_zero_leaves_fields_out_and_limits_default_requests():
    pod = pod_with_sidecar(app_cpu_milli=0, app_cpu_limit_milli=800, overhead_cpu_milli=0, overhead_memory_mib=0)
    assert pod.spec.containers[0].resources.requests == {"cpu": "800m", "memory": "256Mi"}  # SetDefaults_Pod
    assert pod.spec.overhead is None
    raw = pod_with_sidecar(app_cpu_milli=0, app_cpu_limit_milli=0, defaults=False)
    assert "cpu" not in raw.spec.containers[0].resources.requests and "cpu" not in raw.spec.containers[0].resources.limits
    assert raw.status is None


def test_qos_classes_reachable_from_the_widget_parameters():
    assert pod_with_sidecar(app_cpu_limit_milli=500, app_memory_limit_mib=256).status.qosClass == "Guaranteed"
    # a sidecar without a CPU limit breaks Guaranteed: every container needs both limits
    assert pod_with_sidecar(app_cpu_limit_milli=500, app_memory_limit_mib=256,
                               sidecar_cpu_milli=0).status.qosClass == "Burstable"
    none = pod_with_sidecar(0, 0, 0, 0, 0, 0, 0, sidecar_memory_mib=0, init_memory_mib=0)
    assert none.status.qosClass == "BestEffort" == compute_pod_qos(none)


@settings(max_examples=60, deadline=None)
@given(app=st.integers(0, 4000), sidecar=st.integers(0, 2000), init=st.integers(0, 4000), overhead=st.integers(0, 1000),
       mem=st.integers(0, 4096))
def test_breakdown_adds_up_to_pod_requests(app, sidecar, init, overhead, mem):
    pod = pod_with_sidecar(app, 0, sidecar, init, overhead, mem, 0)
    for resource in ("cpu", "memory"):
        b = request_breakdown(pod, resource)
        assert b["effective"] == pod_requests(pod).get(resource, 0)
        assert b["effective"] == max(b["running"], b["init peak"]) + b["overhead"]
        assert b["running"] == b["containers"] + b["sidecars"]
        assert 0 <= b["init peak sidecars"] <= b["init peak"]
        nz = request_breakdown(pod, resource, non_zero=True)
        assert nz["effective"] == pod_non_zero_requests(pod)[0 if resource == "cpu" else 1]
