"""Tests for kubenotes.kubelet.qos (oom_score_adj), ported from upstream's TestGetContainerOOMScoreAdjust.

Upstream source:
kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy_test.go (TestGetContainerOOMScoreAdjust:
every case except the DRA ones, which belong to a later release; the pod
fixtures keep upstream's names and quantities)

The file is named test_kubelet_qos.py because tests/api/test_qos.py already
exists and the test tree has no packages (equal basenames would clash).
"""

from __future__ import annotations

import pytest

from kubenotes.api.qos import pod_qos_class
from kubenotes.kubelet.qos import (
    BEST_EFFORT_OOM_SCORE_ADJ,
    GUARANTEED_OOM_SCORE_ADJ,
    container_oom_score_adjust,
    is_critical_pod,
    is_node_critical_pod,
    min_regular_container_memory,
    oom_badness,
    oom_kill_order,
    remaining_pod_mem_req_per_container,
)

STANDARD = 8000000000
SYSTEM_CRITICAL = 2000000000

MEM_REQ = str(STANDARD // 8)
MEM_LIM = str(1000 + STANDARD // 8)
POD_MEM_REQ = str(STANDARD // 4)
POD_MEM_LIM = str(1000 + STANDARD // 4)


def c(name, requests=None, limits=None, restart_policy=None):
    out = {"name": name, "resources": {}}
    if requests is not None:
        out["resources"]["requests"] = requests
    if limits is not None:
        out["resources"]["limits"] = limits
    if restart_policy:
        out["restartPolicy"] = restart_policy
    return out


def pod(containers, init=None, pod_resources=None, **spec):
    s = {"containers": containers, **spec}
    if init:
        s["initContainers"] = init
    if pod_resources is not None:
        s["resources"] = pod_resources
    return {"metadata": {"name": "p", "uid": "u"}, "spec": s}


SAMPLE = c("main-1", {"memory": MEM_REQ}, {"memory": MEM_LIM})
SAMPLE_INIT = c("init-container", {"memory": MEM_REQ}, {"memory": MEM_LIM})
SAMPLE_SIDECAR = c("sidecar-container", {"memory": MEM_REQ}, {"memory": MEM_LIM}, "Always")
SMALL_SIDECAR = c("sidecar-small-container", {"memory": str(STANDARD // 20)}, {"memory": MEM_LIM}, "Always")
BIG_SIDECAR = c("sidecar-big-container", {"memory": str(STANDARD // 2)}, {"memory": MEM_LIM}, "Always")

G5 = {"cpu": "5m", "memory": MEM_REQ}
POD_GUARANTEED = {"requests": {"cpu": "5m", "memory": POD_MEM_REQ}, "limits": {"cpu": "5m", "memory": POD_MEM_REQ}}
POD_BURSTABLE = {"requests": {"cpu": "5m", "memory": POD_MEM_REQ}, "limits": {"cpu": "5m", "memory": POD_MEM_LIM}}

CASES = {
    "cpu-limit": (pod([c("cpu-limit", limits={"cpu": "10"})]), 4000000000, {"cpu-limit": (999, 999)}),
    "memory-limit-cpu-request": (
        pod([c("memory-limit-cpu-request", {"cpu": "0"}, {"memory": "10G"})]), 8000000000,
        {"memory-limit-cpu-request": (999, 999)}),
    "zero-memory-limit": (pod([c("zero-memory-limit", limits={"memory": "0"})]), 7230457451,
                          {"zero-memory-limit": (1000, 1000)}),
    "no-request-limit": (pod([c("no-request-limit")]), 4000000000, {"no-request-limit": (1000, 1000)}),
    "equal-request-limit-cpu-memory": (
        pod([c("equal-request-limit-cpu-memory", {"memory": "10G", "cpu": "5m"}, {"cpu": "5m", "memory": "10G"})]),
        123456789, {"equal-request-limit-cpu-memory": (-997, -997)}),
    "cpu-unlimited-memory-limited-with-requests": (
        pod([c("cpu-unlimited-memory-limited-with-requests", {"memory": str(STANDARD // 2), "cpu": "5m"},
               {"memory": "10G"})]), STANDARD, {"cpu-unlimited-memory-limited-with-requests": (495, 505)}),
    "request-no-limit": (pod([c("request-no-limit", {"memory": str(STANDARD - 1), "cpu": "5m"})]), STANDARD,
                         {"request-no-limit": (3, 3)}),
    "cluster-critical": (
        pod([c("cluster-critical")], priorityClassName="system-cluster-critical", priority=SYSTEM_CRITICAL),
        4000000000, {"cluster-critical": (1000, 1000)}),
    "node-critical": (
        pod([c("node-critical")], priorityClassName="system-node-critical", priority=SYSTEM_CRITICAL + 1000),
        4000000000, {"node-critical": (-997, -997)}),
    "burstable-unique-container-pod": (
        pod([c("burstable-unique-container", {"memory": MEM_REQ}, {"memory": MEM_LIM})]), STANDARD,
        {"burstable-unique-container": (875, 880)}),
    "burstable-mixed-unique-main-container-pod": (
        pod([SAMPLE], init=[SAMPLE_INIT]), STANDARD, {"init-container": (875, 880), "main-1": (875, 880)}),
    "burstable-mixed-multi-container-small-sidecar-pod": (
        pod([SAMPLE], init=[SAMPLE_INIT, SMALL_SIDECAR]), STANDARD,
        {"init-container": (875, 880), "sidecar-small-container": (875, 875), "main-1": (875, 875)}),
    "burstable-mixed-multi-container-sample-request-pod": (
        pod([SAMPLE], init=[SAMPLE_INIT, SAMPLE_SIDECAR]), STANDARD,
        {"init-container": (875, 880), "sidecar-container": (875, 875), "main-1": (875, 875)}),
    "burstable-mixed-multi-container-big-sidecar-container-pod": (
        pod([SAMPLE], init=[SAMPLE_INIT, BIG_SIDECAR]), STANDARD,
        {"init-container": (875, 880), "sidecar-big-container": (500, 500), "main-1": (875, 875)}),
    "guaranteed-pod-resources-no-container-resources": (
        pod([c("no-request-limit-1"), c("no-request-limit-2")], pod_resources=POD_GUARANTEED), 4000000000,
        {"no-request-limit-1": (-997, -997), "no-request-limit-2": (-997, -997)}),
    "guaranteed-pod-resources-equal-container-resources": (
        pod([c("guaranteed-container-1", G5, G5), c("guaranteed-container-2", G5, G5)],
            pod_resources=POD_GUARANTEED), 4000000000,
        {"guaranteed-container-1": (-997, -997), "guaranteed-container-2": (-997, -997)}),
    "guaranteed-pod-resources-unequal-container-requests": (
        pod([c("burstable-container", {"cpu": "3m", "memory": MEM_REQ}, {"cpu": "5m", "memory": MEM_LIM}),
             c("best-effort-container")], pod_resources=POD_GUARANTEED), 4000000000,
        {"burstable-container": (-997, -997), "best-effort-container": (-997, -997)}),
    "burstable-pod-resources-no-container-resources": (
        pod([c("no-request-limit-1"), c("no-request-limit-2")], pod_resources=POD_BURSTABLE), 4000000000,
        {"no-request-limit-1": (750, 750), "no-request-limit-2": (750, 750)}),
    "burstable-pod-resources-equal-container-requests": (
        pod([c("guaranteed-container-1", G5, G5), c("guaranteed-container-2", G5, G5)],
            pod_resources=POD_BURSTABLE), 4000000000,
        {"guaranteed-container-1": (750, 750), "guaranteed-container-2": (750, 750)}),
    "burstable-pod-resources-unequal-container-requests": (
        pod([c("burstable-container", {"cpu": "3m", "memory": MEM_REQ}, {"cpu": "5m", "memory": MEM_REQ}),
             c("best-effort-container")], pod_resources=POD_BURSTABLE), 4000000000,
        {"burstable-container": (625, 625), "best-effort-container": (875, 875)}),
    "burstable-pod-resources-no-container-resources-with-sidecar": (
        pod([c("no-request-limit")], init=[c("no-request-limit-sidecar", restart_policy="Always")],
            pod_resources=POD_BURSTABLE), 4000000000,
        {"no-request-limit": (750, 750), "no-request-limit-sidecar": (750, 750)}),
    "burstable-pod-resources-equal-container-requests-with-sidecar": (
        pod([c("burstable-container", G5, {"cpu": "5m", "memory": MEM_LIM})],
            init=[c("burstable-sidecar", G5, {"cpu": "5m", "memory": MEM_LIM}, "Always")],
            pod_resources=POD_BURSTABLE), 4000000000,
        {"burstable-container": (750, 750), "burstable-sidecar": (750, 750)}),
    "burstable-pod-resources-unequal-container-requests-with-sidecar": (
        pod([c("burstable-container-1", {"cpu": "5m", "memory": "1000000000"}, {"cpu": "5m", "memory": POD_MEM_LIM}),
             c("burstable-container-2", {"cpu": "5m", "memory": "500000000"}, {"cpu": "5m", "memory": POD_MEM_LIM})],
            init=[c("burstable-sidecar", {"cpu": "5m", "memory": "200000000"}, {"cpu": "5m", "memory": POD_MEM_LIM},
                    "Always")],
            pod_resources={"requests": {"cpu": "5m", "memory": "2000000000"},
                           "limits": {"cpu": "5m", "memory": POD_MEM_LIM}}), 4000000000,
        {"burstable-container-1": (725, 725), "burstable-container-2": (850, 850), "burstable-sidecar": (850, 850)}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_get_container_oom_score_adjust(name):
    p, capacity, expected = CASES[name]
    for container, (low, high) in expected.items():
        got = container_oom_score_adjust(p, container, capacity)
        assert low <= got <= high, (name, container, got)


def test_burstable_clamps_between_guaranteed_and_best_effort():
    # Requesting the whole node would give 0; the floor is -997 + 1000 = 3.
    p = pod([c("big", {"memory": "8G"})])
    assert container_oom_score_adjust(p, "big", STANDARD) == 3
    # A tiny request gives 1000 - 0 = 1000, which is BestEffort's value: lowered to 999.
    tiny = pod([c("tiny", {"memory": "1"})])
    assert container_oom_score_adjust(tiny, "tiny", STANDARD) == 999


def test_pod_level_resources_gate_off_ignores_pod_requests():
    p = CASES["burstable-pod-resources-unequal-container-requests"][0]
    # Without the gate the pod is Burstable through its containers and only container requests count.
    got = container_oom_score_adjust(p, "best-effort-container", 4000000000, pod_level_resources=False)
    assert got == 999


def test_stored_qos_class_wins():
    p = pod([c("a", {"memory": "1Gi"})])
    p["status"] = {"qosClass": "BestEffort"}
    assert pod_qos_class(p) == "BestEffort"
    assert container_oom_score_adjust(p, "a", STANDARD) == BEST_EFFORT_OOM_SCORE_ADJ


def test_static_and_mirror_node_critical_pods():
    base = pod([c("c")], priorityClassName="system-node-critical")
    assert not is_node_critical_pod(base)  # no priority resolved and not static
    static = {**base, "metadata": {"annotations": {"kubernetes.io/config.source": "file"}}}
    mirror = {**base, "metadata": {"annotations": {"kubernetes.io/config.mirror": "hash"}}}
    api = {**base, "metadata": {"annotations": {"kubernetes.io/config.source": "api"}}}
    assert is_critical_pod(static) and is_critical_pod(mirror) and not is_critical_pod(api)
    assert container_oom_score_adjust(static, "c", STANDARD) == GUARANTEED_OOM_SCORE_ADJ
    assert container_oom_score_adjust(api, "c", STANDARD) == BEST_EFFORT_OOM_SCORE_ADJ


def test_helpers():
    p = CASES["burstable-pod-resources-unequal-container-requests-with-sidecar"][0]
    assert min_regular_container_memory(p) == 500000000
    # (2e9 - (1e9 + 5e8 + 2e8)) / 3 containers
    assert remaining_pod_mem_req_per_container(p) == 100000000


def test_unknown_container_and_bad_capacity():
    p = pod([c("a")])
    with pytest.raises(KeyError):
        container_oom_score_adjust(p, "nope", STANDARD)
    with pytest.raises(ValueError):
        container_oom_score_adjust(p, "a", 0)


def test_kernel_oom_order_follows_adjustment_and_usage():
    gi = 1 << 30
    total = 8 * gi
    assert oom_badness(gi, -1000, total) is None
    assert oom_badness(0, -997, total) == 1  # floored at 1 for an eligible process
    order = oom_kill_order([("g", 4 * gi, -997), ("be", 10 << 20, 1000), ("b", gi, 875), ("k", gi, -1000)], total)
    assert [n for n, _ in order] == ["be", "b", "g"]
