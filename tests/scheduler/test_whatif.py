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
