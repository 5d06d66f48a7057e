"""Tests for kubenotes.kubelet.eviction.

Upstream sources the cases come from
(kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers_test.go unless noted):

* TestParseThresholdConfig: "no values", "all memory eviction values",
  "all memory eviction values in percentages", "disk eviction values",
  "inode flag values", "disable via 0%", "disable via 100%", "invalid-signal",
  "hard-signal-negative", "hard-signal-negative-percentage",
  "soft-signal-negative", "valid-and-invalid-signal", "soft-no-grace-period",
  "soft-negative-grace-period", "invalid-reclaim"/"negative reclaim";
* TestMakeSignalObservations (memory, nodefs, imagefs, pid observations);
* TestThresholdsMet (met, not met, with and without min-reclaim);
* TestThresholdsFirstObservedAt, TestThresholdsMetGracePeriod;
* TestNodeConditions, TestNodeConditionsLastObservedAt, TestNodeConditionsObservedSince;
* TestOrderedByExceedsRequestMemory, TestOrderedByPriority, TestOrderedByMemory,
  TestOrderedbyDisk-style disk ranking, TestOrderedByPIDPressure-style;
* TestEvictionMessage (message and annotations);
* eviction_manager_test.go TestAdmitUnderNodeConditions (BestEffort under
  MemoryPressure, toleration, DiskPressure) and the default thresholds of
  defaults_linux.go.
"""

from __future__ import annotations

import pytest

from kubenotes.api.quantity import Quantity
from kubenotes.errors import InvalidQuantity
from kubenotes.kubelet.eviction import (
    DEFAULT_EVICTION_HARD,
    EvictionConfigError,
    Threshold,
    ThresholdValue,
    admit_pod,
    can_evict,
    evicted_pod_status,
    eviction_grace_period_override,
    eviction_message,
    get_reclaimable_threshold,
    get_resource_request_quantity,
    make_signal_observations,
    merge_thresholds,
    node_condition_taints,
    node_conditions,
    node_conditions_last_observed_at,
    node_conditions_observed_since,
    parse_duration_seconds,
    parse_threshold_config,
    rank_disk_pressure,
    rank_memory_pressure,
    rank_pid_pressure,
    signal_to_rank_func,
    sort_by_eviction_priority,
    thresholds_first_observed_at,
    thresholds_met,
    thresholds_met_grace_period,
)

MI = 1 << 20
GI = 1 << 30


def q(text):
    return ThresholdValue(quantity=Quantity.parse(text))


def pct(p):
    return ThresholdValue(percentage=p)


def th(signal, value, grace=0.0, min_reclaim=None):
    return Threshold(signal, "LessThan", value, grace, min_reclaim)


# --- ParseThresholdConfig ----------------------------------------------------------------------------------


def as_set(ts):
    return {(t.signal, str(t.value), t.grace_period_seconds, str(t.min_reclaim) if t.min_reclaim else None)
            for t in ts}


def test_parse_no_values():
    assert parse_threshold_config() == []


def test_parse_all_memory_eviction_values():
    ts = parse_threshold_config(["pods"], {"memory.available": "150Mi"}, {"memory.available": "300Mi"},
                                {"memory.available": "30s"}, {"memory.available": "0"})
    assert as_set(ts) == {
        ("memory.available", "150Mi", 0.0, "0"),
        ("allocatableMemory.available", "150Mi", 0.0, "0"),
        ("memory.available", "300Mi", 30.0, "0"),
    }


def test_parse_memory_percentages():
    ts = parse_threshold_config(["pods"], {"memory.available": "10%"}, {"memory.available": "30%"},
                                {"memory.available": "30s"}, {"memory.available": "5%"})
    got = {(t.signal, round(t.value.percentage, 6), t.grace_period_seconds, round(t.min_reclaim.percentage, 6))
           for t in ts}
    assert got == {("memory.available", 0.1, 0.0, 0.05), ("allocatableMemory.available", 0.1, 0.0, 0.05),
                   ("memory.available", 0.3, 30.0, 0.05)}


def test_parse_disk_eviction_values():
    ts = parse_threshold_config(
        [], {"imagefs.available": "150Mi", "nodefs.available": "100Mi"},
        {"imagefs.available": "300Mi", "nodefs.available": "200Mi"},
        {"imagefs.available": "30s", "nodefs.available": "30s"},
        {"imagefs.available": "2Gi", "nodefs.available": "1Gi"})
    assert as_set(ts) == {
        ("imagefs.available", "150Mi", 0.0, "2Gi"), ("nodefs.available", "100Mi", 0.0, "1Gi"),
        ("imagefs.available", "300Mi", 30.0, "2Gi"), ("nodefs.available", "200Mi", 30.0, "1Gi"),
    }


def test_parse_inode_flag_values():
    ts = parse_threshold_config(
        [], {"imagefs.inodesFree": "150Mi", "nodefs.inodesFree": "100Mi"},
        {"imagefs.inodesFree": "300Mi", "nodefs.inodesFree": "200Mi"},
        {"imagefs.inodesFree": "30s", "nodefs.inodesFree": "30s"},
        {"imagefs.inodesFree": "2Gi", "nodefs.inodesFree": "1Gi"})
    assert len(ts) == 4 and {t.signal for t in ts} == {"imagefs.inodesFree", "nodefs.inodesFree"}


@pytest.mark.parametrize("disabled", ["0%", "100%"])
def test_parse_disable_via_percentage(disabled):
    ts = parse_threshold_config([], {"memory.available": disabled}, {"memory.available": disabled},
                                {"memory.available": "30s"})
    assert ts == []


@pytest.mark.parametrize("kwargs,message", [
    ({"eviction_hard": {"mem.available": "150Mi"}}, "unsupported eviction signal mem.available"),
    ({"eviction_hard": {"memory.available": "-150Mi"}}, "eviction threshold memory.available must be positive: -150Mi"),
    ({"eviction_hard": {"memory.available": "0"}}, "eviction threshold memory.available must be positive: 0"),
    ({"eviction_hard": {"memory.available": "-15%"}}, "eviction percentage threshold memory.available must be >= 0%: -15%"),
    ({"eviction_soft": {"memory.available": "-150Mi"}, "eviction_soft_grace_period": {"memory.available": "30s"}},
     "eviction threshold memory.available must be positive: -150Mi"),
    ({"eviction_hard": {"memory.available": "150Mi", "mem.available": "150Mi"}}, "unsupported eviction signal mem.available"),
    ({"eviction_soft": {"memory.available": "150Mi"}},
     "grace period must be specified for the soft eviction threshold memory.available"),
    ({"eviction_soft": {"memory.available": "150Mi"}, "eviction_soft_grace_period": {"memory.available": "-30s"}},
     "invalid eviction grace period specified: -30s, must be a positive value"),
    ({"eviction_minimum_reclaim": {"memory.available": "-300Mi"}},
     "negative eviction minimum reclaim specified for memory.available"),
    ({"eviction_minimum_reclaim": {"memory.available": "0%"}},
     "eviction percentage minimum reclaim memory.available must be positive: 0%"),
    ({"eviction_soft_grace_period": {"mem.available": "30s"}}, "unsupported eviction signal mem.available"),
])
def test_parse_errors(kwargs, message):
    with pytest.raises(EvictionConfigError) as e:
        parse_threshold_config(**kwargs)
    assert str(e.value) == message


def test_parse_bad_quantity_and_duration():
    with pytest.raises(InvalidQuantity):
        parse_threshold_config(eviction_hard={"memory.available": "lots"})
    with pytest.raises(EvictionConfigError, match='time: invalid duration "soon"'):
        parse_duration_seconds("soon")
    assert parse_duration_seconds("1h2m3.5s") == 3723.5
    assert parse_duration_seconds("250ms") == 0.25


def test_default_eviction_hard():
    ts = parse_threshold_config(["pods"], DEFAULT_EVICTION_HARD)
    assert [t.signal for t in ts] == ["memory.available", "nodefs.available", "nodefs.inodesFree",
                                      "imagefs.available", "allocatableMemory.available"]
    assert ts[0].value.quantity == Quantity.parse("100Mi")
    assert [round(t.value.percentage, 6) for t in ts[1:4]] == [0.1, 0.05, 0.15]


# --- observations and thresholds ---------------------------------------------------------------------------


def summary_node():
    return {
        "memory": {"availableBytes": 1 * GI, "workingSetBytes": 1 * GI},
        "fs": {"availableBytes": 2 * GI, "capacityBytes": 10 * GI, "inodesFree": 200, "inodes": 2000},
        "runtime": {"imageFs": {"availableBytes": 3 * GI, "capacityBytes": 20 * GI, "inodesFree": 300, "inodes": 3000}},
        "rlimit": {"maxpid": 32768, "curproc": 32000},
        "systemContainers": [{"name": "pods", "memory": {"availableBytes": 512 * MI, "workingSetBytes": 512 * MI}}],
    }


def test_make_signal_observations():
    obs = make_signal_observations(summary_node(), now=5.0)
    assert {k: (str(v.available), str(v.capacity)) for k, v in obs.items()} == {
        "memory.available": ("1Gi", "2Gi"),
        "allocatableMemory.available": ("512Mi", "1Gi"),
        "nodefs.available": ("2Gi", "10Gi"),
        "nodefs.inodesFree": ("200", "2k"),
        "imagefs.available": ("3Gi", "20Gi"),
        "imagefs.inodesFree": ("300", "3k"),
        "pid.available": ("768", "32768"),
    }
    assert all(v.time == 5.0 for v in obs.values())
    assert make_signal_observations({}) == {}


def memory_obs(available, capacity="3Gi"):
    cap = Quantity.parse(capacity)
    avail = Quantity.parse(available)
    return make_signal_observations({"memory": {"availableBytes": avail.int_value(),
                                                "workingSetBytes": cap.int_value() - avail.int_value()}})


@pytest.mark.parametrize("threshold,available,enforce,met", [
    (th("memory.available", q("1Gi")), "500Mi", False, True),
    (th("memory.available", q("1Gi")), "2Gi", False, False),
    (th("memory.available", q("1Gi")), "1Gi", False, False),  # strictly less than
    (th("memory.available", q("1Gi"), min_reclaim=q("500Mi")), "1Gi", True, True),
    (th("memory.available", q("1Gi"), min_reclaim=q("500Mi")), "2Gi", True, False),
    (th("memory.available", q("1Gi"), min_reclaim=q("500Mi")), "1Gi", False, False),
    (th("memory.available", pct(0.5)), "1Gi", False, True),  # 50% of 3Gi = 1.5Gi
    (th("memory.available", pct(0.5), min_reclaim=pct(0.1)), "1600Mi", True, True),
])
def test_thresholds_met(threshold, available, enforce, met):
    assert (thresholds_met([threshold], memory_obs(available), enforce) == [threshold]) is met


def test_thresholds_met_skips_unobserved_signals():
    assert thresholds_met([th("nodefs.available", q("1Gi"))], memory_obs("1Mi")) == []


def test_grace_periods():
    hard = th("memory.available", q("1Gi"))
    soft = th("memory.available", q("2Gi"), grace=60.0)
    first = thresholds_first_observed_at([hard, soft], {}, 100.0)
    assert first == {hard: 100.0, soft: 100.0}
    # A threshold no longer met is dropped; one still met keeps its first time.
    later = thresholds_first_observed_at([soft], first, 130.0)
    assert later == {soft: 100.0}
    assert thresholds_met_grace_period(first, 100.0) == [hard]
    assert thresholds_met_grace_period(later, 159.0) == []
    assert thresholds_met_grace_period(later, 160.0) == [soft]
    assert merge_thresholds([hard], [hard, soft]) == [hard, soft]


def test_node_conditions_and_transition_period():
    ts = [th("memory.available", q("1Gi")), th("allocatableMemory.available", q("1Gi")),
          th("imagefs.inodesFree", pct(0.05)), th("pid.available", q("100"))]
    conds = node_conditions(ts)
    assert conds == ["MemoryPressure", "DiskPressure", "PIDPressure"]
    seen = node_conditions_last_observed_at(["MemoryPressure"], {"DiskPressure": 10.0}, 50.0)
    assert seen == {"DiskPressure": 10.0, "MemoryPressure": 50.0}
    assert node_conditions_observed_since(seen, 60.0, 69.0) == ["DiskPressure", "MemoryPressure"]
    assert node_conditions_observed_since(seen, 60.0, 70.0) == ["MemoryPressure"]
    assert node_conditions_observed_since(seen, 60.0, 111.0) == []
    assert [t["key"] for t in node_condition_taints(conds)] == [
        "node.kubernetes.io/memory-pressure", "node.kubernetes.io/disk-pressure", "node.kubernetes.io/pid-pressure"]


def test_eviction_priority_and_reclaimable_threshold():
    ts = [th("nodefs.available", q("1Gi")), th("pid.available", q("10")), th("allocatableMemory.available", q("1Gi"))]
    ordered = sort_by_eviction_priority(ts)
    assert ordered[0].signal == "allocatableMemory.available"
    t, resource = get_reclaimable_threshold(ordered)
    assert (t.signal, resource) == ("allocatableMemory.available", "memory")
    assert get_reclaimable_threshold([]) is None


# --- ranking ------------------------------------------------------------------------------------------------


def new_pod(name, priority=0, requests=None, limits=None, volumes=None, init=None, **spec):
    res = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    s = {"priority": priority, "containers": [{"name": name, "resources": res}], **spec}
    if volumes:
        s["volumes"] = volumes
    if init:
        s["initContainers"] = init
    return {"metadata": {"name": name, "uid": name}, "spec": s}


def mem_stats(pod, working_set):
    return {"containers": [{"name": pod["spec"]["containers"][0]["name"],
                            "memory": {"workingSetBytes": Quantity.parse(working_set).int_value()}}]}


def names(pods):
    return [p["metadata"]["name"] for p in pods]


def test_ordered_by_exceeds_request_memory():
    below = new_pod("below-requests", requests={"memory": "200Mi"})
    exceeds = new_pod("above-requests", requests={"memory": "200Mi"})
    stats = {"below-requests": mem_stats(below, "199Mi"), "above-requests": mem_stats(exceeds, "201Mi")}
    assert names(rank_memory_pressure([below, exceeds], stats)) == ["above-requests", "below-requests"]


def test_ordered_by_priority():
    low, medium, high = new_pod("low", 1), new_pod("medium", 2), new_pod("high", 3)
    stats = {p["metadata"]["uid"]: mem_stats(p, "0") for p in (low, medium, high)}
    assert names(rank_memory_pressure([high, medium, low], stats)) == ["low", "medium", "high"]
    assert names(rank_pid_pressure([high, medium, low], stats)) == ["low", "medium", "high"]


def test_ordered_by_memory():
    pods = [
        new_pod("best-effort-high"), new_pod("best-effort-low"),
        new_pod("burstable-high", requests={"memory": "100Mi"}, limits={"memory": "1Gi"}),
        new_pod("burstable-low", requests={"memory": "100Mi"}, limits={"memory": "1Gi"}),
        new_pod("guaranteed-high", requests={"memory": "1Gi"}, limits={"memory": "1Gi"}),
        new_pod("guaranteed-low", requests={"memory": "1Gi"}, limits={"memory": "1Gi"}),
    ]
    usage = {"best-effort-high": "500Mi", "best-effort-low": "300Mi", "burstable-high": "800Mi",
             "burstable-low": "300Mi", "guaranteed-high": "800Mi", "guaranteed-low": "200Mi"}
    stats = {p["metadata"]["uid"]: mem_stats(p, usage[p["metadata"]["uid"]]) for p in pods}
    assert names(rank_memory_pressure(pods, stats)) == [
        "burstable-high", "best-effort-high", "best-effort-low", "burstable-low", "guaranteed-high", "guaranteed-low"]


def test_exceeding_requests_beats_priority_and_missing_stats_go_first():
    important = new_pod("important-but-over", 1000, requests={"memory": "100Mi"})
    cheap = new_pod("cheap-within", 0, requests={"memory": "1Gi"})
    unknown = new_pod("no-stats", 1000, requests={"memory": "1Gi"})
    stats = {"important-but-over": mem_stats(important, "200Mi"), "cheap-within": mem_stats(cheap, "500Mi")}
    assert names(rank_memory_pressure([cheap, important, unknown], stats)) == [
        "no-stats", "important-but-over", "cheap-within"]


def test_memory_request_counts_sidecars_and_overhead():
    p = new_pod("app", requests={"memory": "100Mi"},
                init=[{"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"memory": "50Mi"}}}],
                overhead={"memory": "10Mi"})
    assert get_resource_request_quantity(p, "memory") == Quantity.parse("160Mi")
    assert get_resource_request_quantity(new_pod("be"), "memory").value == 0
    # Overhead is only added to a non-zero request.
    assert get_resource_request_quantity(new_pod("be", overhead={"memory": "10Mi"}), "memory").value == 0
    pod_level = new_pod("pl", requests={"memory": "100Mi"}, resources={"requests": {"memory": "1Gi"}})
    assert get_resource_request_quantity(pod_level, "memory") == Quantity.parse("1Gi")


def disk_stats(pod, rootfs_mi, logs_mi=0, volumes=None, inodes=0):
    return {"containers": [{"name": pod["spec"]["containers"][0]["name"],
                            "rootfs": {"usedBytes": rootfs_mi * MI, "inodesUsed": inodes},
                            "logs": {"usedBytes": logs_mi * MI, "inodesUsed": 0}}],
            "volume": [{"name": n, "usedBytes": mi * MI, "inodesUsed": 0} for n, mi in (volumes or {}).items()]}


def test_ordered_by_disk_and_inodes():
    vols = [{"name": "scratch", "emptyDir": {}}, {"name": "ram", "emptyDir": {"medium": "Memory"}}]
    a = new_pod("a", requests={"ephemeral-storage": "1Gi"}, volumes=vols)
    b = new_pod("b", requests={"ephemeral-storage": "100Mi"})
    c = new_pod("c", volumes=vols)
    stats = {"a": disk_stats(a, 100, 100, {"scratch": 900, "ram": 5000}), "b": disk_stats(b, 150),
             "c": disk_stats(c, 10, inodes=50)}
    # a: 1100Mi > 1Gi (the memory-backed emptyDir does not count), exceeds by 76Mi;
    # b exceeds by 50Mi; c (no request) exceeds by 10Mi.
    assert names(rank_disk_pressure([c, b, a], stats)) == ["a", "b", "c"]
    # Measuring only logs and local volumes (nodefs with a dedicated imagefs) nobody exceeds its request;
    # usage minus request decides: c 0Mi, a 1000-1024 = -24Mi, b 0-100 = -100Mi.
    nodefs = signal_to_rank_func("nodefs.available", with_image_fs=True)
    assert names(nodefs([a, b, c], stats)) == ["c", "a", "b"]
    inodes = signal_to_rank_func("nodefs.inodesFree")
    assert names(inodes([a, b, c], stats))[0] == "c"


def test_pid_pressure_ranking():
    a, b = new_pod("a"), new_pod("b")
    stats = {"a": {"process_stats": {"process_count": 5}}, "b": {"process_stats": {"process_count": 50}}}
    assert names(rank_pid_pressure([a, b], stats)) == ["b", "a"]
    assert signal_to_rank_func("pid.available") is rank_pid_pressure
    with pytest.raises(KeyError):
        signal_to_rank_func("cpu.available")


# --- messages, status, admission --------------------------------------------------------------------------


def test_eviction_message_memory():
    p = {"metadata": {"uid": "u"}, "spec": {"containers": [
        {"name": "app", "resources": {"requests": {"memory": "100Mi"}}},
        {"name": "quiet", "resources": {"requests": {"memory": "1Gi"}}},
        {"name": "nostats"}]}}
    stats = {"u": {"containers": [{"name": "app", "memory": {"workingSetBytes": 300 * MI}},
                                  {"name": "quiet", "memory": {"workingSetBytes": 10 * MI}}]}}
    obs = make_signal_observations({"memory": {"availableBytes": 50 * MI, "workingSetBytes": 974 * MI}})
    msg, ann = eviction_message("memory", p, stats, [th("memory.available", q("100Mi"))], obs)
    assert msg == ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. "
                   "Container app was using 300Mi, request is 100Mi, has larger consumption of memory. ")
    assert ann == {"offending_containers": "app", "offending_containers_usage": "300Mi", "starved_resource": "memory"}


def test_eviction_message_percentage_threshold_and_no_request():
    p = {"metadata": {"uid": "u"}, "spec": {"containers": [{"name": "c"}]}}
    stats = {"u": {"containers": [{"name": "c", "rootfs": {"usedBytes": 2 * GI}, "logs": {"usedBytes": 0}}]}}
    obs = make_signal_observations({"fs": {"availableBytes": GI // 2, "capacityBytes": 10 * GI}})
    msg, _ = eviction_message("ephemeral-storage", p, stats, [th("nodefs.available", pct(0.1))], obs)
    # GetThresholdQuantity: float64(10Gi) * float64(float32(0.1)) = 1073741840, not 1Gi
    assert msg == ("The node was low on resource: ephemeral-storage. Threshold quantity: 1073741840, available: 512Mi. "
                   "Container c was using 2Gi, request is 0, has larger consumption of ephemeral-storage. ")


def test_eviction_message_without_stats_or_thresholds():
    p = {"metadata": {"uid": "u"}, "spec": {"containers": [{"name": "c"}]}}
    assert eviction_message("pids", p, {}) == ("The node was low on resource: pids. ", {})


def test_eviction_message_uses_allocated_resources():
    p = {"metadata": {"uid": "u"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"memory": "100Mi"}}}]},
         "status": {"containerStatuses": [{"name": "c", "allocatedResources": {"memory": "400Mi"}}]}}
    stats = {"u": {"containers": [{"name": "c", "memory": {"workingSetBytes": 300 * MI}}]}}
    msg, ann = eviction_message("memory", p, stats)
    assert ann["offending_containers"] == "" and "Container" not in msg


def test_evicted_status_grace_and_criticality():
    status = evicted_pod_status("m")
    assert status["phase"] == "Failed" and status["reason"] == "Evicted" and status["message"] == "m"
    assert status["conditions"] == [{"type": "DisruptionTarget", "status": "True",
                                     "reason": "TerminationByKubelet", "message": "m"}]
    soft = th("memory.available", q("1Gi"), grace=30.0)
    assert eviction_grace_period_override(soft, {"spec": {}}, 60) == 60
    assert eviction_grace_period_override(soft, {"spec": {"terminationGracePeriodSeconds": 10}}, 60) == 10
    assert eviction_grace_period_override(th("memory.available", q("1Gi")), {"spec": {}}, 60) == 1
    assert not can_evict({"metadata": {"annotations": {"kubernetes.io/config.source": "file"}}, "spec": {}})
    assert can_evict({"metadata": {}, "spec": {"priority": 1000}})


def test_admit_under_node_conditions():
    best_effort = new_pod("be")
    burstable = new_pod("bu", requests={"memory": "1Mi"})
    critical = new_pod("crit", 2000000000)
    assert admit_pod(best_effort, []) == (True, "", "")
    assert admit_pod(burstable, ["MemoryPressure"])[0]
    assert admit_pod(best_effort, ["MemoryPressure"]) == (False, "Evicted", "The node had condition: [MemoryPressure]. ")
    tolerant = new_pod("tol", tolerations=[{"key": "node.kubernetes.io/memory-pressure", "operator": "Exists",
                                            "effect": "NoSchedule"}])
    assert admit_pod(tolerant, ["MemoryPressure"])[0]
    assert admit_pod(burstable, ["MemoryPressure", "DiskPressure"]) == (
        False, "Evicted", "The node had condition: [MemoryPressure DiskPressure]. ")
    assert admit_pod(critical, ["DiskPressure"])[0]


def test_get_threshold_quantity_is_upstreams_float32_arithmetic():
    """One home (api/types.go GetThresholdQuantity): float32 percentage widened, times Value(), truncated."""
    from kubenotes.kubelet import node_status
    from kubenotes.kubelet.eviction import ThresholdValue, get_threshold_quantity

    # float64(10737418240) * float64(float32(0.05)) = 536870920.0 on a real kubelet (not 536870912)
    assert get_threshold_quantity(ThresholdValue(percentage=0.05), Quantity.parse("10Gi")).int_value() == 536870920
    t, = parse_threshold_config(eviction_hard={"nodefs.available": "5%"})
    assert get_threshold_quantity(t.value, 10 * GI).int_value() == 536870920
    assert str(t.value) == "5.000000%"
    assert node_status.get_threshold_quantity is get_threshold_quantity
    assert not hasattr(node_status, "float32")
