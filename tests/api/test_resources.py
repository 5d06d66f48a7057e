"""kubenotes.api.resources: the one home of component-helpers/resource (PodRequests, PodLimits, Aggregate*).

Cases after upstream's helpers_test.go (TestPodRequestsAndLimits, sidecar and pod-level cases); each is checked on
the stored dict, on the lightkube model, and in both the integer and the exact-quantity form.
"""

import pytest
from lightkube.resources.core_v1 import Pod

from kubenotes.api import resources
from kubenotes.api.quantity import Quantity
from kubenotes.api.resources import (
    aggregate_container_limits,
    aggregate_container_requests,
    pod_limits,
    pod_requests,
    request_breakdown,
    resource_list,
)
from kubenotes.errors import InvalidQuantity
from kubenotes.scheduler.testing import make_pod

GI = 2**30
MI = 2**20


def _c(name, requests=None, limits=None, restart_policy=None):
    c = {"name": name, "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


def _pod(containers, init_containers=(), overhead=None, pod_resources=None):
    spec = {"containers": list(containers)}
    if init_containers:
        spec["initContainers"] = list(init_containers)
    if overhead:
        spec["overhead"] = overhead
    if pod_resources is not None:
        spec["resources"] = pod_resources
    return {"metadata": {"name": "p"}, "spec": spec}


def _ints(rl):
    return {k: (v.milli_value() if k == "cpu" else v.int_value()) for k, v in rl.items()}


CASES = [
    # (name, pod, requests, limits)
    ("containers are summed",
     _pod([_c("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "2Gi"}),
           _c("b", {"cpu": "500m"}, {"memory": "1Gi"})]),
     {"cpu": 1500, "memory": GI}, {"cpu": 2000, "memory": 3 * GI}),
    ("a larger init container wins",
     _pod([_c("a", {"cpu": "1"})], [_c("init", {"cpu": "2", "memory": "1Gi"})]),
     {"cpu": 2000, "memory": GI}, {}),
    ("sidecars run beside the containers and later init containers",
     _pod([_c("a", {"cpu": "1"})],
          [_c("sidecar", {"cpu": "1"}, {"cpu": "1"}, "Always"), _c("init", {"cpu": "2"}, {"cpu": "3"})]),
     {"cpu": 3000}, {"cpu": 4000}),
    ("an init container before a sidecar does not see it",
     _pod([_c("a", {"cpu": "1"})],
          [_c("init", {"cpu": "2500m"}), _c("sidecar", {"cpu": "1"}, None, "Always")]),
     {"cpu": 2500}, {}),
    ("overhead is added to requests, and only to limits that are set",
     _pod([_c("a", {"cpu": "1", "memory": "1Gi"}, {"memory": "2Gi"})], overhead={"cpu": "100m", "memory": "64Mi"}),
     {"cpu": 1100, "memory": GI + 64 * MI}, {"memory": 2 * GI + 64 * MI}),
    ("pod-level resources replace the aggregate for cpu, memory and hugepages",
     _pod([_c("a", {"cpu": "1", "example.com/gpu": "1"})],
          pod_resources={"requests": {"cpu": "4", "memory": "8Gi", "hugepages-2Mi": "2Mi"},
                         "limits": {"cpu": "8"}}),
     {"cpu": 4000, "memory": 8 * GI, "hugepages-2Mi": 2 * MI, "example.com/gpu": 1}, {"cpu": 8000}),
    ("no containers",
     _pod([]), {}, {}),
]


@pytest.mark.parametrize("name, pod, want_requests, want_limits", CASES, ids=[c[0] for c in CASES])
def test_pod_requests_and_limits_in_every_form(name, pod, want_requests, want_limits):
    model = Pod.from_dict(pod)
    assert pod_requests(pod) == want_requests
    assert pod_requests(model) == want_requests
    assert _ints(pod_requests(pod, quantities=True)) == want_requests
    assert pod_limits(pod) == want_limits
    assert pod_limits(model) == want_limits
    assert _ints(pod_limits(pod, quantities=True)) == want_limits


def test_options():
    pod = _pod([_c("a", {"cpu": "1"}), _c("b")], overhead={"cpu": "100m"},
               pod_resources={"requests": {"cpu": "3"}})
    assert pod_requests(pod) == {"cpu": 3100}
    assert pod_requests(pod, exclude_overhead=True) == {"cpu": 3000}
    assert pod_requests(pod, skip_pod_level_resources=True) == {"cpu": 1100}
    assert aggregate_container_requests(pod) == {"cpu": 1000}
    assert pod_requests(pod, skip_pod_level_resources=True, exclude_overhead=True,
                        non_missing={"cpu": 100, "memory": 200 * MI}) == {"cpu": 1100, "memory": 400 * MI}


def test_quantities_keep_their_format():
    pod = _pod([_c("a", {"memory": "512Mi", "cpu": "0.5"}), _c("b", {"memory": "512Mi"})],
               overhead={"memory": "64Mi"})
    got = {k: str(v) for k, v in pod_requests(pod, quantities=True).items()}
    assert got == {"memory": "1088Mi", "cpu": "500m"}
    # a tie keeps the value seen first (and so its format), as maxResourceList does
    tie = _pod([_c("a", {"memory": "1Gi"})], [_c("i", {"memory": "1073741824"})])
    assert str(aggregate_container_requests(tie, quantities=True)["memory"]) == "1Gi"


def test_container_fn_sees_every_container_and_init_step():
    pod = _pod([_c("a", limits={"cpu": "1"})],
               [_c("s", limits={"memory": "1Gi"}, restart_policy="Always"), _c("i", limits={"cpu": "2"})])
    seen = []
    aggregate_container_limits(pod, container_fn=lambda rl, kind: seen.append((kind, dict(rl))))
    assert seen == [("Containers", {"cpu": 1000}), ("InitContainers", {"memory": GI}),
                    ("InitContainers", {"cpu": 2000, "memory": GI})]


def test_resource_list_forms():
    assert resource_list({"cpu": "1.5", "memory": "1Ki"}) == {"cpu": 1500, "memory": 1024}
    assert resource_list({"cpu": "1.5"}, quantities=True) == {"cpu": Quantity.parse("1.5")}
    assert resource_list(None) == {} and resource_list(None, quantities=True) == {}


def test_components_call_the_one_home():
    """Quota, LimitRanger, the kubelet and the scheduler use these functions, not copies of them."""
    from kubenotes.apiserver.admission import limitranger, quota
    from kubenotes.kubelet import cgroups, eviction, qos
    from kubenotes.scheduler.framework import node_info

    assert quota.pod_requests is resources.pod_requests and quota.pod_limits is resources.pod_limits
    assert limitranger.aggregate_container_requests is resources.aggregate_container_requests
    assert limitranger.aggregate_container_limits is resources.aggregate_container_limits
    assert cgroups.pod_requests is resources.pod_requests and cgroups.pod_limits is resources.pod_limits
    assert eviction.aggregate_container_requests is resources.aggregate_container_requests
    assert qos.aggregate_container_requests is resources.aggregate_container_requests
    assert node_info.pod_requests is resources.pod_requests
    for module in (quota, limitranger, cgroups, eviction, qos):
        assert not hasattr(module, "aggregate_container_resources")
        assert not hasattr(module, "parse_resource_list")


# --- request_breakdown: the parts of PodRequests the objects chapter shows ---------------------------------


def test_sidecar_started_after_the_init_container_does_not_add_to_its_peak():
    def pod(order):
        init = {"migrate": {"name": "migrate", "resources": {"requests": {"cpu": "1"}}},
                "proxy": {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "300m"}}}}
        return make_pod("p", requests={"cpu": "100m"}, initContainers=[init[n] for n in order])

    before = request_breakdown(pod(["proxy", "migrate"]))
    after = request_breakdown(pod(["migrate", "proxy"]))
    assert (before["init peak"], before["init peak sidecars"], before["effective"]) == (1300, 300, 1300)
    assert (after["init peak"], after["init peak sidecars"], after["effective"]) == (1000, 0, 1000)


def test_non_zero_defaults_and_explicit_zero():
    idle = make_pod("idle")
    assert request_breakdown(idle)["effective"] == 0
    assert request_breakdown(idle, non_zero=True)["effective"] == 100
    assert request_breakdown(idle, "memory", non_zero=True)["effective"] == 200 * MI
    zero = make_pod("zero", requests={"cpu": "0"})
    assert request_breakdown(zero, non_zero=True)["effective"] == 0  # explicit zeros stay zero


def test_bad_quantity_names_the_field():
    pod = make_pod("p", requests={"cpu": "lots"})
    with pytest.raises(InvalidQuantity, match=r'spec.containers\[0\].resources.requests.cpu: invalid quantity "lots"'):
        request_breakdown(pod)


def test_breakdown_reads_the_stored_dict_as_the_model():
    pod = {"metadata": {"name": "p"}, "spec": {
        "initContainers": [_c("proxy", {"cpu": "300m"}, restart_policy="Always"), _c("migrate", {"cpu": "1"})],
        "containers": [_c("app", {"cpu": "100m"})], "overhead": {"cpu": "50m"}}}
    assert request_breakdown(pod) == request_breakdown(Pod.from_dict(pod)) == {
        "containers": 100, "sidecars": 300, "running": 400, "init peak": 1300, "init peak sidecars": 300,
        "overhead": 50, "effective": 1350}
