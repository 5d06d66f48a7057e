"""The shared scorer against upstream's resource_allocation_test.go
(TestResourceAllocationScorerCalculateRequests and the device-plugin rows of
TestCalculateResourceAllocatableRequest).

kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/resource_allocation_test.go
"""

from __future__ import annotations

import pytest

from kubenotes.api.resources import DEFAULT_MEMORY_REQUEST_BYTES as DEF_MEM
from kubenotes.api.resources import DEFAULT_MILLI_CPU_REQUEST as DEF_CPU
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins.noderesources.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceAllocationScorer,
    ResourceSpec,
)
from kubenotes.scheduler.testing import make_node, make_pod

ONE_MI = 1048576


def c(requests=None, name="c"):
    out = {"name": name, "image": "img"}
    if requests:
        out["resources"] = {"requests": requests}
    return out


def p(containers=(), init=(), overhead=None):
    spec = {"initContainers": [c(r, f"i{i}") for i, r in enumerate(init)]} if init else {}
    if overhead:
        spec["overhead"] = overhead
    return PodInfo(make_pod("p", containers=[c(r, f"c{i}") for i, r in enumerate(containers)], **spec))


ONE = {"cpu": "1", "memory": "1Mi"}

CALCULATE_REQUESTS = [
    ("overhead only", lambda: p(overhead=ONE), 1000, ONE_MI),
    ("1x requestless container", lambda: p([None]), DEF_CPU, DEF_MEM),
    ("2x requestless container", lambda: p([None, None]), 2 * DEF_CPU, 2 * DEF_MEM),
    ("request container + requestless container", lambda: p([ONE, None]), 1000 + DEF_CPU, ONE_MI + DEF_MEM),
    ("container + requestless container + overhead", lambda: p([ONE, None], overhead=ONE),
     2000 + DEF_CPU, 2 * ONE_MI + DEF_MEM),
    ("init container + container + requestless container + overhead",
     lambda: p([ONE, None], init=[{"cpu": "3"}], overhead=ONE), 4000, 2 * ONE_MI + DEF_MEM),
    ("requestless init container + small init container + small container ",
     lambda: p([{"cpu": "3m", "memory": "3"}], init=[None, {"cpu": "1m", "memory": "1"}]), DEF_CPU, DEF_MEM),
    ("requestless init container + small init container + small container + requestless container ",
     lambda: p([{"cpu": "3m", "memory": "3"}, None], init=[None, {"cpu": "1m", "memory": "1"}]),
     3 + DEF_CPU, 3 + DEF_MEM),
]


@pytest.mark.parametrize("name,make,cpu,memory", CALCULATE_REQUESTS, ids=[x[0] for x in CALCULATE_REQUESTS])
def test_resource_allocation_scorer_calculate_requests(name, make, cpu, memory):
    scorer = ResourceAllocationScorer("test", lambda r, a: 0, DEFAULT_RESOURCES)  # zero value: non-zero requests
    pod = make()
    assert scorer.calculate_pod_resource_request(pod, "cpu") == cpu
    assert scorer.calculate_pod_resource_request(pod, "memory") == memory


EXPLICIT = "extended.resource.dra.io/something"


@pytest.mark.parametrize("name", ["device-plugin-resource-feature-disabled", "device-plugin-resource-feature-enabled"])
def test_calculate_resource_allocatable_request_device_plugin(name):
    node = NodeInfo(make_node("resource-node", allocatable={"pods": "32", EXPLICIT: "4"}))
    scorer = ResourceAllocationScorer("test", lambda r, a: 0, [ResourceSpec(EXPLICIT, 1)])
    assert scorer.calculate_resource_allocatable_request(node, EXPLICIT, 1) == (4, 1)


def test_calculate_resource_allocatable_request_rules():
    node = NodeInfo(make_node("n", allocatable={"cpu": "2", "memory": "1Gi", "pods": "32", "ephemeral-storage": "10Gi",
                                                "example.com/gpu": "4"}),
                    [p([None])])
    fit_like = ResourceAllocationScorer("fit", lambda r, a: 0, DEFAULT_RESOURCES)
    balanced_like = ResourceAllocationScorer("ba", lambda r, a: 0, DEFAULT_RESOURCES, use_requested=True)
    # Non-zero requests for cpu/memory in Fit's view, actual (zero) requests in BalancedAllocation's.
    assert fit_like.calculate_resource_allocatable_request(node, "cpu", 0) == (2000, DEF_CPU)
    assert balanced_like.calculate_resource_allocatable_request(node, "cpu", 0) == (2000, 0)
    # A scalar resource the pod does not request is bypassed; one the node lacks too.
    assert fit_like.calculate_resource_allocatable_request(node, "example.com/gpu", 0) == (0, 0)
    assert fit_like.calculate_resource_allocatable_request(node, "example.com/gpu", 1) == (4, 1)
    assert fit_like.calculate_resource_allocatable_request(node, "example.com/fpga", 1) == (0, 0)
    # "pods" and "storage" are not tracked as scalar resources: always omitted.
    assert fit_like.calculate_resource_allocatable_request(node, "pods", 1) == (0, 0)
    assert fit_like.calculate_resource_allocatable_request(node, "ephemeral-storage", 5) == (10 * 1024**3, 5)


def test_score_without_resources_is_an_error():
    scorer = ResourceAllocationScorer("test", lambda r, a: 42, [])
    score, st = scorer.score(p([None]), NodeInfo(make_node("n")), [])
    assert (score, st.code, st.reasons) == (0, Code.ERROR, ["resources not found"])


def test_entries_with_zero_allocatable_are_zeroed():
    seen = []
    scorer = ResourceAllocationScorer("test", lambda r, a: seen.append((r, a)) or 7,
                                      [ResourceSpec("cpu", 1), ResourceSpec("example.com/gpu", 1)])
    node = NodeInfo(make_node("n", allocatable={"cpu": "1", "pods": "1"}))
    assert scorer.score(p([{"cpu": "500m", "example.com/gpu": "1"}]), node, [500, 1])[0] == 7
    assert seen == [([500, 0], [1000, 0])]
