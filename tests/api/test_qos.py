"""Tests for kubenotes.api.qos, ported from upstream's TestComputePodQOS table.

Upstream source:
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/qos/qos_test.go
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lightkube.resources.core_v1 import Pod

from kubenotes.api.defaults import apply_defaults
from kubenotes.api.qos import BEST_EFFORT, BURSTABLE, GUARANTEED, compute_pod_qos, pod_qos_class
from kubenotes.errors import InvalidQuantity


def rl(cpu="", memory="", **extra):
    out = {}
    if cpu:
        out["cpu"] = cpu
    if memory:
        out["memory"] = memory
    out.update({k.replace("_", "-"): v for k, v in extra.items()})
    return out


def ctr(name, requests, limits):
    return {"name": name, "resources": {"requests": requests, "limits": limits}}


def new_pod(name, containers, init_containers=None, pod_resources=None):
    spec = {"containers": containers}
    if init_containers:
        spec["initContainers"] = init_containers
    if pod_resources is not None:
        spec["resources"] = pod_resources
    return Pod.from_dict({"metadata": {"name": name}, "spec": spec})


@pytest.mark.parametrize(
    "pod, expected",
    [
        (new_pod("guaranteed", [ctr("guaranteed", rl("100m", "100Mi"), rl("100m", "100Mi"))]), GUARANTEED),
        (new_pod("guaranteed-guaranteed", [ctr("a", rl("100m", "100Mi"), rl("100m", "100Mi")),
                                           ctr("b", rl("100m", "100Mi"), rl("100m", "100Mi"))]), GUARANTEED),
        (new_pod("best-effort-best-effort", [ctr("a", rl(), rl()), ctr("b", rl(), rl())]), BEST_EFFORT),
        (new_pod("best-effort", [ctr("best-effort", rl(), rl())]), BEST_EFFORT),
        (new_pod("best-effort-burstable", [ctr("a", rl(), rl()), ctr("b", rl("1"), rl("2"))]), BURSTABLE),
        (new_pod("best-effort-guaranteed", [ctr("a", rl(), rl()), ctr("b", rl("10m", "100Mi"), rl("10m", "100Mi"))]),
         BURSTABLE),
        (new_pod("burstable-cpu-guaranteed-memory", [ctr("a", rl("", "100Mi"), rl("", "100Mi"))]), BURSTABLE),
        (new_pod("burstable-no-limits", [ctr("a", rl("100m", "100Mi"), rl())]), BURSTABLE),
        (new_pod("burstable-guaranteed", [ctr("a", rl("1", "100Mi"), rl("2", "100Mi")),
                                          ctr("b", rl("100m", "100Mi"), rl("100m", "100Mi"))]), BURSTABLE),
        (new_pod("burstable-unbounded-but-requests-match-limits",
                 [ctr("a", rl("100m", "100Mi"), rl("200m", "200Mi")), ctr("b", rl("100m", "100Mi"), rl())]), BURSTABLE),
        (new_pod("burstable-1", [ctr("a", rl("10m", "100Mi"), rl("100m", "200Mi"))]), BURSTABLE),
        (new_pod("burstable-2", [ctr("a", rl("0", "0"), rl("100m", "200Mi"))]), BURSTABLE),
        (new_pod("best-effort-hugepages", [ctr("a", rl("0", "0", hugepages_2Mi="1Gi"), rl("0", "0", hugepages_2Mi="1Gi"))]),
         BEST_EFFORT),
        (new_pod("init-container", [ctr("a", rl(), rl())], [ctr("init", rl("10m", "100Mi"), rl("100m", "200Mi"))]),
         BURSTABLE),
        (new_pod("guaranteed-with-pod-level-resources", [ctr("a", rl(), rl())],
                 pod_resources={"requests": rl("10m", "100Mi"), "limits": rl("10m", "100Mi")}), GUARANTEED),
        (new_pod("guaranteed-with-pod-and-container-level-resources", [ctr("a", rl("3m", "10Mi"), rl("5m", "20Mi"))],
                 pod_resources={"requests": rl("10m", "100Mi"), "limits": rl("10m", "100Mi")}), GUARANTEED),
        (new_pod("burstable-with-pod-level-resources", [ctr("a", rl(), rl())],
                 pod_resources={"requests": rl("10m", "10Mi"), "limits": rl("20m", "50Mi")}), BURSTABLE),
        (new_pod("burstable-with-pod-and-container-level-resources", [ctr("a", rl("5m", "10Mi"), rl("5m", "10Mi"))],
                 pod_resources={"requests": rl("10m", "10Mi"), "limits": rl("20m", "50Mi")}), BURSTABLE),
        (new_pod("burstable-with-pod-and-container-level-requests", [ctr("a", rl("5m", "10Mi"), rl())],
                 pod_resources={"requests": rl("10m", "10Mi"), "limits": rl()}), BURSTABLE),
        (new_pod("burstable-with-pod-and-container-level-resources-2",
                 [ctr("a", rl("5m", "10Mi"), rl()), ctr("b", rl("5m", "10Mi"), rl("5m", "10Mi"))],
                 pod_resources={"requests": rl("10m", "10Mi"), "limits": rl("5m")}), BURSTABLE),
    ],
    ids=lambda v: v.metadata.name if isinstance(v, Pod) else v,
)
def test_compute_pod_qos(pod, expected):
    assert compute_pod_qos(pod) == expected


# TestCollectPodLevelResources / TestCollectContainerLevelResources, seen through the class they imply.


@pytest.mark.parametrize(
    "requests, limits, expected",
    [
        (rl("100m", "128Mi"), rl("750m", "512Mi"), BURSTABLE),  # cpu+mem limits present but unequal
        (rl("100m", "128Mi"), rl("750m"), BURSTABLE),  # only cpu limit
        (rl("100m", "128Mi"), rl("", "512Mi"), BURSTABLE),  # only memory limit
        (rl("100m", "128Mi"), rl(), BURSTABLE),  # no limits
        (rl("750m", "512Mi"), rl("750m", "512Mi"), GUARANTEED),
        (rl(), rl(), BEST_EFFORT),  # pod-level resources decide even when empty
    ],
)
def test_pod_level_resources(requests, limits, expected):
    pod = new_pod("p", [ctr("a", rl("1", "1Gi"), rl("1", "1Gi"))], pod_resources={"requests": requests, "limits": limits})
    assert compute_pod_qos(pod) == expected


def test_container_level_sums_include_init_containers():
    # Requests 450m/550Mi vs limits 1100m/1300Mi: every container has both limits, but sums differ.
    pod = new_pod("p", [ctr("c1", rl("100m", "100Mi"), rl("200m", "200Mi")),
                        ctr("c2", rl("300m", "400Mi"), rl("800m", "1000Mi"))],
                  [ctr("init", rl("50m", "50Mi"), rl("100m", "100Mi"))])
    assert compute_pod_qos(pod) == BURSTABLE
    # An init container missing its cpu limit makes the pod not Guaranteed even if sums matched.
    pod = new_pod("p", [ctr("c1", rl("100m", "100Mi"), rl("100m", "100Mi"))], [ctr("init", rl("", "50Mi"), rl("", "50Mi"))])
    assert compute_pod_qos(pod) == BURSTABLE
    # Guaranteed init and sidecar containers keep the pod Guaranteed.
    sidecar = {**ctr("sidecar", rl("50m", "50Mi"), rl("50m", "50Mi")), "restartPolicy": "Always"}
    pod = new_pod("p", [ctr("c1", rl("100m", "100Mi"), rl("100m", "100Mi"))], [sidecar])
    assert compute_pod_qos(pod) == GUARANTEED


def test_only_cpu_and_memory_count():
    pod = new_pod("p", [ctr("a", rl(ephemeral_storage="1Gi", nvidia_com_gpu="1"), rl(nvidia_com_gpu="1"))])
    assert compute_pod_qos(pod) == BEST_EFFORT


def test_quantities_compare_by_value_and_milli_rounding():
    # 0.5 == 500m, 1Gi == 1024Mi
    pod = new_pod("p", [ctr("a", rl("0.5", "1Gi"), rl("500m", "1024Mi"))])
    assert compute_pod_qos(pod) == GUARANTEED
    # The API server rounds quantities up to milli precision before computing the class.
    pod = new_pod("p", [ctr("a", rl("0.0001", "1Gi"), rl("0.0002", "1Gi"))])
    assert compute_pod_qos(pod) == GUARANTEED


def test_limits_only_container_is_guaranteed_after_defaulting():
    pod = new_pod("p", [{"name": "a", "resources": {"limits": rl("1", "1Gi")}}])
    assert compute_pod_qos(pod) == BURSTABLE  # before defaulting: limits without requests
    apply_defaults(pod)
    assert compute_pod_qos(pod) == GUARANTEED


def test_get_pod_qos_prefers_status():
    pod = new_pod("p", [ctr("a", rl("1", "1Gi"), rl("1", "1Gi"))])
    assert pod_qos_class(pod) == GUARANTEED
    pod = Pod.from_dict({**pod.to_dict(), "status": {"qosClass": "BestEffort"}})
    assert pod_qos_class(pod) == BEST_EFFORT
    assert compute_pod_qos(pod) == GUARANTEED


def test_bad_quantity_names_the_field():
    with pytest.raises(InvalidQuantity) as e:
        compute_pod_qos(new_pod("p", [ctr("a", rl("lots"), rl())]))
    assert e.value.field == "spec.containers[0].resources.requests.cpu"


_q = st.sampled_from(["", "0", "100m", "1", "128Mi", "1Gi"])


@settings(deadline=None, derandomize=True, database=None)
@given(st.lists(st.tuples(_q, _q, _q, _q), min_size=1, max_size=3))
def test_qos_class_properties(resources):
    containers = [ctr(f"c{i}", rl(rc, rm), rl(lc, lm)) for i, (rc, rm, lc, lm) in enumerate(resources)]
    qos = compute_pod_qos(new_pod("p", containers))

    def pos(q):
        return q not in ("", "0")

    anything = any(pos(q) for r in resources for q in r)
    assert (qos == BEST_EFFORT) == (not anything)
    if qos == GUARANTEED:
        assert all(pos(lc) and pos(lm) for _, _, lc, lm in resources)


# One object form: the stored (JSON-shaped) pod gives the same class as its lightkube model.


@settings(deadline=None, derandomize=True, database=None)
@given(st.lists(st.tuples(_q, _q, _q, _q), min_size=1, max_size=3), st.booleans(),
       st.sampled_from([None, {}, {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
                        {"requests": {"memory": "1Gi"}}]))
def test_stored_dict_and_model_agree(resources, as_init, pod_resources):
    containers = [ctr(f"c{i}", rl(rc, rm), rl(lc, lm)) for i, (rc, rm, lc, lm) in enumerate(resources)]
    model = new_pod("p", containers[:1], containers[1:] if as_init else None, pod_resources)
    if not as_init:
        model = new_pod("p", containers, None, pod_resources)
    stored = model.to_dict()
    assert compute_pod_qos(stored) == compute_pod_qos(model)
    assert pod_qos_class(stored) == pod_qos_class(model)
    stored["status"] = {"qosClass": "Burstable"}
    assert pod_qos_class(stored) == BURSTABLE


def test_stored_dict_without_spec_is_best_effort():
    assert compute_pod_qos({"metadata": {"name": "p"}}) == BEST_EFFORT
    assert pod_qos_class({"spec": {"containers": []}, "status": {}}) == BEST_EFFORT


def test_components_call_the_one_home():
    """The kubelet and the chapters read the class through api.qos, not a copy (the runtime is handed its values)."""
    from kubenotes.api import qos
    from kubenotes.kubelet import cgroups, kuberuntime, status
    from kubenotes.kubelet import qos as kubelet_qos
    from kubenotes.viz import cri as viz_cri
    from kubenotes.viz import qos as viz_qos

    for module in (kuberuntime, cgroups, status, kubelet_qos, viz_cri, viz_qos):
        assert module.pod_qos_class is qos.pod_qos_class
        assert not hasattr(module, "pod_qos")
