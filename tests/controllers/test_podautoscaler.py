"""Tests for the HorizontalPodAutoscaler controller.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/podautoscaler/replica_calculator_test.go:
``TestReplicaCalcScaleUp``, ``TestReplicaCalcScaleDown``, ``TestReplicaCalcTolerance``,
``TestReplicaCalcScaleUpUnreadyLessScale``, ``TestReplicaCalcScaleUpUnreadyNoScale``,
``TestReplicaCalcScaleDownIgnoresUnreadyPods`` (test_replica_calc: the same pods' usage and requests
reduced to the average utilization the model's metric is); horizontal_test.go
``TestConvertDesiredReplicasWithRules`` (test_convert_desired_replicas_with_rules),
``TestCalculateScaleUpLimitWithScalingRules`` / ``TestCalculateScaleDownLimitWithBehaviors``
(test_scale_limits), and end to end in a Cluster the behaviours of ``TestScaleUp``, ``TestMinReplicas``
/ ``TestMaxReplicas`` (conditions TooFewReplicas / TooManyReplicas), ``TestUpscaleCap`` (ScaleUpLimit
without behavior), ``TestScaleDownStabilizeInitialSize``-style stabilization (300 s window) and
``TestNormalizeDesiredReplicasWithBehavior`` (policies and windows from ``behavior``).
"""

from __future__ import annotations

import pytest

from kubenotes.controllers.podautoscaler import (
    ScaleEvent,
    calculate_scale_down_limit_with_behaviors,
    calculate_scale_up_limit_with_scaling_rules,
    convert_desired_replicas_with_rules,
    default_behavior,
    replicas_for,
    usage_ratio_replicas,
)
from kubenotes.sim.cluster import Cluster


def _avg_utilization(usage_milli: list[int], requests_milli: list[int]) -> float:
    return 100.0 * sum(usage_milli) / sum(requests_milli)


@pytest.mark.parametrize("name,ready,usage,requests,target,expected", [
    ("TestReplicaCalcScaleUp", [True] * 3, [300, 500, 700], [1000] * 3, 30, 5),
    ("TestReplicaCalcScaleDown", [True] * 5, [100, 300, 500, 250, 250], [1000] * 5, 50, 3),
    ("TestReplicaCalcTolerance", [True] * 3, [1010, 1030, 1020], [900, 1000, 1100], 100, 3),
    ("TestReplicaCalcScaleUpUnreadyLessScale", [False, True, True], [300, 500, 700], [1000] * 3, 30, 4),
    ("TestReplicaCalcScaleUpUnreadyNoScale", [True, False, False], [400, 500, 700], [1000] * 3, 30, 3),
    ("TestReplicaCalcScaleDownIgnoresUnreadyPods", [True, True, True, False, False], [100, 300, 500, 250, 250],
     [1000] * 5, 50, 2),
])
def test_replica_calc(name, ready, usage, requests, target, expected):
    r_usage = [u for u, ok in zip(usage, ready) if ok]
    r_req = [q for q, ok in zip(requests, ready) if ok]
    ratio = _avg_utilization(r_usage, r_req) / target
    got = usage_ratio_replicas(len(r_usage), ratio, 0.1, unready_pods=len(ready) - len(r_usage),
                               current_replicas=len(ready))
    assert got == expected, name


def test_replicas_for_formula_and_tolerance():
    assert replicas_for(3, 90, 50) == 6             # ceil(3 * 1.8) = 6
    assert replicas_for(4, 54, 50) == 4             # ratio 1.08: within the 10 % tolerance
    assert replicas_for(4, 56, 50) == 5             # ratio 1.12: ceil(4.48)
    assert replicas_for(4, 46, 50) == 4             # ratio 0.92: within tolerance
    assert replicas_for(4, 44, 50) == 4             # ratio 0.88: ceil(3.52) = 4
    assert replicas_for(10, 44, 50) == 9
    assert replicas_for(4, 56, 50, tolerance=0.2) == 4


@pytest.mark.parametrize("current,desired,lo,hi,expected", [
    (5, 7, 1, 10, (7, "DesiredWithinRange", "the desired count is within the acceptable range")),
    (5, 20, 1, 30, (10, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")),
    (1, 20, 1, 30, (4, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")),
    (5, 20, 1, 8, (8, "TooManyReplicas", "the desired replica count is more than the maximum replica count")),
    (5, 1, 3, 10, (3, "TooFewReplicas", "the desired replica count is less than the minimum replica count")),
    (5, 0, 0, 10, (1, "TooFewReplicas", "the desired replica count is less than the minimum replica count")),
])
def test_convert_desired_replicas_with_rules(current, desired, lo, hi, expected):
    assert convert_desired_replicas_with_rules(current, desired, lo, hi) == expected


def test_scale_limits():
    up = default_behavior()["scaleUp"]
    down = default_behavior()["scaleDown"]
    assert calculate_scale_up_limit_with_scaling_rules(1, [], up, 100.0) == 5      # max(1+4, 1*2)
    assert calculate_scale_up_limit_with_scaling_rules(10, [], up, 100.0) == 20    # max(10+4, 20)
    # 6 added 10 s ago (within the 15 s periods): the period started at 4 replicas
    assert calculate_scale_up_limit_with_scaling_rules(10, [ScaleEvent(6, 90.0)], up, 100.0) == 8
    assert calculate_scale_up_limit_with_scaling_rules(10, [ScaleEvent(6, 80.0)], up, 100.0) == 20
    assert calculate_scale_down_limit_with_behaviors(10, [], down, 100.0) == 0
    pods_down = {"selectPolicy": "Max", "policies": [{"type": "Pods", "value": 2, "periodSeconds": 60},
                                                     {"type": "Percent", "value": 10, "periodSeconds": 60}]}
    assert calculate_scale_down_limit_with_behaviors(10, [], pods_down, 0.0) == 8   # Max: the bigger change
    pods_down["selectPolicy"] = "Min"
    assert calculate_scale_down_limit_with_behaviors(10, [], pods_down, 0.0) == 9
    pods_down["selectPolicy"] = "Disabled"
    assert calculate_scale_down_limit_with_behaviors(10, [], pods_down, 0.0) == 10


def test_default_behavior():
    b = default_behavior({"scaleDown": {"stabilizationWindowSeconds": 60}})
    assert b["scaleUp"] == {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]}
    assert b["scaleDown"] == {"stabilizationWindowSeconds": 60, "selectPolicy": "Max",
                              "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


# --------------------------------------------------------------------------- end to end


def nodes(n: int = 3) -> list[dict]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
             "status": {"allocatable": alloc, "capacity": alloc}} for i in range(1, n + 1)]


def rs(replicas: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]}}}}


def hpa(lo: int = 1, hi: int = 10, target: int = 50, behavior: dict | None = None) -> dict:
    spec: dict = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web"},
                  "minReplicas": lo, "maxReplicas": hi,
                  "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                      "type": "Utilization", "averageUtilization": target}}}]}
    if behavior is not None:
        spec["behavior"] = behavior
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "default"}, "spec": spec}


def cluster(replicas: int, h: dict, metric: float | None) -> Cluster:
    c = Cluster(nodes() + [rs(replicas), h], seed=0,
                controllers=["replicaset-controller", "horizontal-pod-autoscaler-controller"], authorization=False, kubelet="stand-in")
    if metric is not None:
        c.metrics[("default", "web")] = metric
    return c


def size(c: Cluster) -> int:
    return c.get("replicasets", "web", "default")["spec"]["replicas"]


def conditions(c: Cluster) -> dict[str, tuple[str, str, str]]:
    st = c.get("horizontalpodautoscalers", "web", "default")["status"]
    return {x["type"]: (x["status"], x["reason"], x["message"]) for x in st["conditions"]}


def rescales(c: Cluster) -> list[str]:
    return [e["message"] for e in sorted(c.list("events", "default"), key=lambda e: e["firstTimestamp"])
            if e["reason"] == "SuccessfulRescale"]


def test_scale_up_on_the_15_second_sync():
    c = cluster(3, hpa(), metric=90.0)
    c.run(until=14)
    assert size(c) == 3  # the first sync is one sync period after the HPA is seen
    c.run(until=16)
    assert size(c) == 6
    assert rescales(c) == ["New size: 6; reason: cpu resource utilization (percentage of request) above target"]
    conds = conditions(c)
    assert conds["AbleToScale"] == ("True", "SucceededRescale",
                                    "the HPA controller was able to update the target scale to 6")
    assert conds["ScalingActive"] == ("True", "ValidMetricFound", "the HPA was able to successfully calculate a "
                                      "replica count from cpu resource utilization (percentage of request)")
    assert conds["ScalingLimited"] == ("False", "DesiredWithinRange",
                                       "the desired count is within the acceptable range")
    st = c.get("horizontalpodautoscalers", "web", "default")["status"]
    assert (st["currentReplicas"], st["desiredReplicas"], st["lastScaleTime"]) == (3, 6, "2025-08-27T00:00:15Z")
    assert st["currentMetrics"] == [{"type": "Resource", "resource": {"name": "cpu",
                                                                      "current": {"averageUtilization": 90}}}]


def test_upscale_cap_without_behavior():
    c = cluster(2, hpa(hi=20), metric=500.0)   # wants ceil(2 * 10) = 20, allowed max(2*2, 4) = 4
    c.run(until=16)
    assert size(c) == 4
    assert conditions(c)["ScalingLimited"] == ("True", "ScaleUpLimit", "the desired replica count is increasing "
                                               "faster than the maximum scale rate")


def test_min_and_max_replicas_clamp():
    c = cluster(3, hpa(lo=2, hi=5), metric=5.0)
    c.run(until=16)
    assert size(c) == 2
    assert conditions(c)["ScalingLimited"][:2] == ("True", "TooFewReplicas")
    assert rescales(c) == ["New size: 2; reason: All metrics below target"]
    c = cluster(4, hpa(lo=2, hi=5), metric=100.0)
    c.run(until=16)
    assert size(c) == 5
    assert conditions(c)["ScalingLimited"][:2] == ("True", "TooManyReplicas")


def test_scale_down_waits_for_the_stabilization_window():
    c = cluster(4, hpa(), metric=50.0)
    c.run(until=20)
    assert size(c) == 4
    c.metrics[("default", "web")] = 10.0  # wants ceil(4 * 0.2) = 1
    c.run(until=300)
    assert size(c) == 4
    assert conditions(c)["AbleToScale"] == ("True", "ScaleDownStabilized", "recent recommendations were higher than "
                                            "current one, applying the highest recent recommendation")
    c.run(until=329)  # the recommendation of 4 made at 15 s is in the window until the sync at 330 s
    assert size(c) == 4
    c.run(until=331)
    assert size(c) == 1
    assert rescales(c) == ["New size: 1; reason: All metrics below target"]


def test_behavior_windows_and_policies():
    b = {"scaleDown": {"stabilizationWindowSeconds": 30,
                       "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}
    c = cluster(4, hpa(behavior=b), metric=10.0)   # wants 1; no higher recommendation in the window
    c.run(until=16)
    assert size(c) == 3  # at most one pod per 60 s
    assert conditions(c)["ScalingLimited"] == ("True", "ScaleDownLimit", "the desired replica count is decreasing "
                                               "faster than the maximum scale rate")
    c.run(until=74)
    assert size(c) == 3
    c.run(until=76)      # the change at 15 s left the 60 s period at the 75 s sync
    assert size(c) == 2
    # a scale-up policy: default 4 pods or 100 % per 15 s, whichever is more
    c.metrics[("default", "web")] = 1000.0
    c.run(until=91)
    assert size(c) == 6  # max(2 + 4, 2 * 2)
    assert conditions(c)["ScalingLimited"][:2] == ("True", "ScaleUpLimit")


def test_missing_metric_and_zero_replicas():
    c = cluster(3, hpa(), metric=None)
    c.run(until=16)
    assert size(c) == 3
    assert conditions(c)["ScalingActive"][:2] == ("False", "FailedGetResourceMetric")
    c = cluster(0, hpa(), metric=90.0)
    c.run(until=16)
    assert size(c) == 0
    assert conditions(c)["ScalingActive"] == ("False", "ScalingDisabled",
                                              "scaling is disabled since the replica count of the target is zero")
