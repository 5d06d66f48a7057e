"""Tests for kubenotes.scheduler.whatif: the chapter's what-if runs on the sample cluster."""

from __future__ import annotations

import pytest

from kubenotes.api.manifests import load_manifests
from kubenotes.data import sample
from kubenotes.scheduler.testing import make_pod
from kubenotes.scheduler.whatif import enabled_plugins, pod_variant, schedule_pending, schedule_what_if
from kubenotes.scheduler.framework.interface import EXTENSION_POINT_FLOW

CONFIG = sample("scheduling", "scheduler-config.yaml")


@pytest.fixture(scope="module")
def fits():
    m = load_manifests(sample("cluster"), sample("scheduling", "fits.yaml"))
    return m, m.get("Pod", "web-7c9d8f6b5d-x8k2q", namespace="web")


def test_pod_variant_changes_a_copy():
    pod = make_pod("web", requests={"cpu": "500m", "memory": "256Mi"}, limits={"memory": "512Mi"})
    v = pod_variant(pod, cpu_milli=2000, memory_mib=1024, tolerate=[{"key": "k", "value": "", "effect": "NoSchedule"}],
                    node_affinity=("preferred", "topology.kubernetes.io/zone", "z1"))
    c = v.spec.containers[0].resources
    assert c.requests == {"cpu": "2000m", "memory": "1024Mi"} and c.limits == {"memory": "1024Mi"}
    assert v.spec.tolerations[0].operator == "Exists" and v.spec.tolerations[0].value is None
    pref = v.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]
    assert pref.weight == 100 and pref.preference.matchExpressions[0].values == ["z1"]
    assert pod.spec.containers[0].resources.requests == {"cpu": "500m", "memory": "256Mi"}
    with pytest.raises(ValueError):
        pod_variant(pod, node_affinity=("maybe", "k", "v"))


def test_schedule_pending_and_what_if_agree_on_the_default_state(fits):
    m, pod = fits
    [r] = schedule_pending(m, config=CONFIG, seed=0)
    w = schedule_what_if(m, pod, config=CONFIG, seed=0)
    assert r["nodeName"] == w["nodeName"] and r["totalScore"] == w["totalScore"]
    assert set(r) == {"namespace", "name", "nodeName", "qosClass", "priority", "filter", "score", "finalScore",
                      "totalScore", "message", "nominatedNodeName", "victims"}
    big = schedule_what_if(m, pod, config=CONFIG, cpu_milli=8000)
    assert big["nodeName"] is None and big["message"].startswith("0/9 nodes are available")
    tol = schedule_what_if(m, pod, config=CONFIG, cpu_milli=8000,
                           tolerate=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    assert tol["nodeName"] in {"gpu-a-1", "gpu-b-1"}
    zone = schedule_what_if(m, pod, config=CONFIG, node_affinity=("required", "topology.kubernetes.io/zone", "us-central1-a"))
    assert set(zone["totalScore"]) <= {"worker-a-1", "worker-a-2"}


def test_enabled_plugins_lists_every_extension_point_of_the_profile():
    pts = enabled_plugins(CONFIG)
    assert pts["QueueSort"] == ["PrioritySort"] and pts["Bind"] == ["DefaultBinder"]
    assert "NodeResourcesFit" in pts["Filter"] and "DefaultPreemption" in pts["PostFilter"]
    assert set(pts) <= set(EXTENSION_POINT_FLOW)


def test_panel_defaults_come_from_the_pod_the_nodes_and_the_configuration(fits):
    from kubenotes.scheduler.whatif import scoring_strategy, variant_requests, zones_of

    m, pod = fits
    zones = zones_of(m.nodes)
    assert zones == sorted(zones) and zones
    assert zones_of(m.nodes, "no/such-label") == []
    cpu, mem = variant_requests(pod)
    assert variant_requests(pod_variant(pod, cpu_milli=cpu + 100, memory_mib=mem + 64)) == (cpu + 100, mem + 64)
    assert scoring_strategy() == "LeastAllocated"
    most = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
                {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}
    assert scoring_strategy(most) == "MostAllocated"


def test_trace_queries_agree_with_the_filter_verdicts(fits):
    from kubenotes.scheduler.schedule_one import trace_feasible_nodes, trace_nodes, trace_plugins

    m, pod = fits
    r = schedule_what_if(m, pod, config=CONFIG)
    nodes = trace_nodes(r)
    assert set(r["filter"]) <= set(nodes) and len(nodes) == len(set(nodes))
    feasible = trace_feasible_nodes(r)
    assert r["nodeName"] in feasible
    assert all(v == "passed" for n in feasible for v in r["filter"][n].values())
    assert all(any(v != "passed" for v in r["filter"][n].values()) for n in set(r["filter"]) - set(feasible))
    assert set(trace_plugins(r["finalScore"])) == {p for d in r["finalScore"].values() for p in d}
