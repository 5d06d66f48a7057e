"""The eviction manager over time (kubenotes.kubelet.eviction_manager).

Ported from kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager_test.go:

* ``test_memory_pressure`` <- TestMemoryPressure (soft threshold with grace
  period, then hard threshold, transition period, admission of BestEffort
  vs Burstable pods, grace period override MaxPodGracePeriodSeconds / 1);
* ``test_disk_pressure_node_fs`` <- TestDiskPressureNodeFs (no dedicated
  imagefs: rootfs + logs + local volumes, ranking by usage above requests);
* ``test_min_reclaim`` <- TestMinReclaim (a threshold stays met until the
  minimum reclaim is also satisfied);
* ``test_node_reclaim_funcs`` <- TestNodeReclaimFuncs (container and image GC
  first; no pod evicted when they suffice, one evicted when they do not);
* ``test_critical_pod_not_evicted`` <- TestCriticalPodsAreNotEvicted;
* ``test_pid_pressure`` <- TestPIDPressure (lower priority, more processes).

From pkg/kubelet/images/image_gc_manager_test.go: ``test_image_gc_*`` <-
TestGarbageCollectBelowLowThreshold, TestGarbageCollectNotEnoughFreed,
TestGarbageCollectBelowSuccess (thresholds 85/80, LRU order, minimum age).
The SimPy loop tests check the Start loop: one pod per round, the cleanup
wait, and the pressure transition period.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubenotes.kubelet.eviction import Threshold, ThresholdValue, parse_threshold_config
from kubenotes.api.quantity import Quantity
from kubenotes.kubelet.eviction_manager import (
    CONTAINER_GC,
    EVICTION_THRESHOLD_MET,
    IMAGE_GC,
    EvictionConfig,
    EvictionManager,
    ImageGCManager,
    ImageRecord,
    NodeUsage,
    run_eviction_scenario,
    thresholds_updated_stats,
)

Mi = 2**20
Gi = 2**30
MINUTE = 60.0

LOW, DEFAULT, HIGH = -1, 0, 1


def q(text: str) -> int:
    return int(Quantity.parse(text).value)


def new_pod(name: str, priority: int, requests: dict[str, str] | None = None,
            limits: dict[str, str] | None = None, volumes: list | None = None) -> dict[str, Any]:
    res: dict[str, Any] = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    spec: dict[str, Any] = {"priority": priority, "containers": [{"name": name, "resources": res}]}
    if volumes:
        spec["volumes"] = volumes
    return {"metadata": {"name": name, "namespace": "default", "uid": name}, "spec": spec}


def rl(cpu: str = "", memory: str = "", storage: str = "") -> dict[str, str]:
    out = {}
    if cpu:
        out["cpu"] = cpu
    if memory:
        out["memory"] = memory
    if storage:
        out["ephemeral-storage"] = storage
    return out


class FakeAdapter:
    """The upstream test's mocks in one: fakeSummaryProvider, mockPodKiller, mockDiskGC."""

    def __init__(self, pods, pod_stats, dedicated_image_fs=False):
        self.pods = pods
        self.pod_stats = pod_stats
        self.node_stats: dict[str, Any] = {}
        self.dedicated = dedicated_image_fs
        self.killed: dict[str, Any] | None = None
        self.grace: int | None = None
        self.status: dict[str, Any] | None = None
        self.image_gc_invoked = False
        self.container_gc_invoked = False
        self.node_stats_after_gc: dict[str, Any] | None = None
        self.events: list[tuple] = []

    def active_pods(self, now):
        return list(self.pods)

    def summary(self, now):
        return {"time": now, "node": self.node_stats,
                "pods": [dict(s, podRef={"uid": p["metadata"]["uid"]}) for p, s in zip(self.pods, self.pod_stats)]}

    def has_dedicated_image_fs(self):
        return self.dedicated

    def delete_all_unused_containers(self, now):
        self.container_gc_invoked = True
        return 0

    def delete_unused_images(self, now):
        self.image_gc_invoked = True
        if self.node_stats_after_gc is not None:
            self.node_stats = self.node_stats_after_gc
        return 0

    def terminate_pod(self, pod, grace_period_seconds, status, now):
        self.killed, self.grace, self.status = pod, grace_period_seconds, status

    def pod_cleaned_up(self, pod, now):
        return True

    def record_event(self, involved, event_type, reason, message, annotations=None):
        self.events.append((involved, event_type, reason, message))

    def reset(self):
        self.killed = self.grace = self.status = None
        self.image_gc_invoked = self.container_gc_invoked = False


def memory_stats(name: str, working_set: str) -> dict[str, Any]:
    return {"containers": [{"name": name, "memory": {"workingSetBytes": q(working_set)}}]}


def memory_node(available: str) -> dict[str, Any]:
    v = q(available)
    return {"memory": {"availableBytes": v, "workingSetBytes": v}}


def mem_threshold(value: str, grace: float = 0.0, min_reclaim: str | None = None) -> Threshold:
    return Threshold("memory.available", "LessThan", ThresholdValue(Quantity.parse(value)), grace,
                     ThresholdValue(Quantity.parse(min_reclaim)) if min_reclaim else None)


def memory_pods():
    spec = [
        ("guaranteed-low-priority-high-usage", LOW, rl("100m", "1Gi"), rl("100m", "1Gi"), "900Mi"),
        ("burstable-below-requests", DEFAULT, rl("100m", "100Mi"), rl("200m", "1Gi"), "50Mi"),
        ("burstable-above-requests", DEFAULT, rl("100m", "100Mi"), rl("200m", "1Gi"), "400Mi"),
        ("best-effort-high-priority-high-usage", HIGH, None, None, "400Mi"),
        ("best-effort-low-priority-low-usage", LOW, None, None, "100Mi"),
    ]
    pods = [new_pod(n, p, r, lim) for n, p, r, lim, _ in spec]
    stats = [memory_stats(n, ws) for n, _, _, _, ws in spec]
    return pods, stats


def test_memory_pressure():
    pods, stats = memory_pods()
    pod_to_evict = pods[4]
    adapter = FakeAdapter(pods, stats)
    config = EvictionConfig((mem_threshold("1Gi"), mem_threshold("2Gi", 2 * MINUTE)),
                            pressure_transition_period_seconds=5 * MINUTE, max_pod_grace_period_seconds=5)
    m = EvictionManager(config, adapter, "test")
    best_effort_to_admit = new_pod("best-admit", DEFAULT)
    burstable_to_admit = new_pod("burst-admit", DEFAULT, rl("100m", "100Mi"), rl("200m", "200Mi"))
    now = 0.0

    adapter.node_stats = memory_node("2Gi")
    m.synchronize(now)
    assert not m.is_under_memory_pressure()
    assert [m.admit(p)[0] for p in (best_effort_to_admit, burstable_to_admit)] == [True, True]

    # induce soft threshold
    now += MINUTE
    adapter.node_stats = memory_node("1500Mi")
    m.synchronize(now)
    assert m.is_under_memory_pressure()
    assert adapter.killed is None  # grace period not yet passed

    # step forward past the grace period
    now += 3 * MINUTE
    r = m.synchronize(now)
    assert m.is_under_memory_pressure()
    assert adapter.killed is pod_to_evict
    assert adapter.grace == 5  # MaxPodGracePeriodSeconds for a soft threshold
    assert adapter.status["reason"] == "Evicted" and adapter.status["phase"] == "Failed"
    assert adapter.status["conditions"][0]["type"] == "DisruptionTarget"
    assert r.message.startswith("The node was low on resource: memory. Threshold quantity: 2Gi, available: 1500Mi. ")
    assert r.message.endswith("Container best-effort-low-priority-low-usage was using 100Mi, request is 0, "
                              "has larger consumption of memory. ")
    assert ("Node/test", "Warning", EVICTION_THRESHOLD_MET, "Attempting to reclaim memory") in adapter.events
    adapter.reset()

    # remove memory pressure
    now += 20 * MINUTE
    adapter.node_stats = memory_node("3Gi")
    m.synchronize(now)
    assert not m.is_under_memory_pressure()

    # induce memory pressure (hard threshold)
    now += MINUTE
    adapter.node_stats = memory_node("500Mi")
    m.synchronize(now)
    assert m.is_under_memory_pressure()
    assert adapter.killed is pod_to_evict
    assert adapter.grace == 1  # immediateEvictionGracePeriodSeconds
    assert [m.admit(p)[0] for p in (best_effort_to_admit, burstable_to_admit)] == [False, True]
    assert m.admit(best_effort_to_admit)[2] == "The node had condition: [MemoryPressure]. "

    # reduce memory pressure: still reported (transition period), nobody killed
    now += MINUTE
    adapter.node_stats = memory_node("2Gi")
    adapter.reset()
    m.synchronize(now)
    assert m.is_under_memory_pressure()
    assert adapter.killed is None
    assert [m.admit(p)[0] for p in (best_effort_to_admit, burstable_to_admit)] == [False, True]

    # move past the transition period
    now += 5 * MINUTE
    m.synchronize(now)
    assert not m.is_under_memory_pressure()
    assert adapter.killed is None
    assert [m.admit(p)[0] for p in (best_effort_to_admit, burstable_to_admit)] == [True, True]


def disk_stats(name: str, rootfs: str = "", logs: str = "", volume: str = "") -> dict[str, Any]:
    def b(s):
        return q(s) if s else 0
    return {"containers": [{"name": name, "rootfs": {"usedBytes": b(rootfs), "inodesUsed": 0},
                            "logs": {"usedBytes": b(logs), "inodesUsed": 0}}],
            "volume": [{"name": "local-volume", "usedBytes": b(volume), "inodesUsed": 0}]}


def disk_node(root_available: str, image_available: str = "200Gi") -> dict[str, Any]:
    r, i = q(root_available), q(image_available)
    return {"fs": {"availableBytes": r, "capacityBytes": 2 * r},
            "runtime": {"imageFs": {"availableBytes": i, "capacityBytes": 2 * i}}}


def disk_pods():
    local = [{"name": "local-volume", "emptyDir": {}}]
    spec = [
        ("low-priority-high-usage", LOW, None, {"rootfs": "900Mi"}),
        ("below-requests", DEFAULT, rl(storage="1Gi"), {"logs": "900Mi"}),
        ("above-requests", DEFAULT, rl(storage="100Mi"), {"rootfs": "700Mi"}),
        ("high-priority-high-usage", HIGH, None, {"volume": "800Mi"}),
        ("low-priority-low-usage", LOW, None, {"rootfs": "200Mi"}),
    ]
    pods = [new_pod(n, p, r, volumes=local) for n, p, r, _ in spec]
    stats = [disk_stats(n, **u) for n, _, _, u in spec]
    return pods, stats


def test_disk_pressure_node_fs():
    pods, stats = disk_pods()
    pod_to_evict = pods[0]
    adapter = FakeAdapter(pods, stats)
    nodefs = lambda v, g=0.0: Threshold("nodefs.available", "LessThan", ThresholdValue(Quantity.parse(v)), g)  # noqa: E731
    config = EvictionConfig((nodefs("1Gi"), nodefs("2Gi", 2 * MINUTE)), 5 * MINUTE, 5)
    m = EvictionManager(config, adapter)
    pod_to_admit = new_pod("pod-to-admit", DEFAULT)
    now = 0.0

    adapter.node_stats = disk_node("16Gi")
    m.synchronize(now)
    assert not m.is_under_disk_pressure()
    assert m.admit(pod_to_admit)[0]

    now += MINUTE
    adapter.node_stats = disk_node("1.5Gi")
    m.synchronize(now)
    assert m.is_under_disk_pressure()
    assert adapter.killed is None
    assert not m.admit(pod_to_admit)[0]  # disk pressure rejects every pod

    now += 3 * MINUTE
    r = m.synchronize(now)
    assert adapter.killed is pod_to_evict and adapter.grace == 5
    assert r.ranking[0] == "low-priority-high-usage"
    assert adapter.container_gc_invoked and adapter.image_gc_invoked  # node-level reclaim tried first
    adapter.reset()

    now += 20 * MINUTE
    adapter.node_stats = disk_node("16Gi")
    m.synchronize(now)
    assert not m.is_under_disk_pressure()

    now += MINUTE
    adapter.node_stats = disk_node("500Mi")
    m.synchronize(now)
    assert m.is_under_disk_pressure()
    assert adapter.killed is pod_to_evict and adapter.grace == 1
    adapter.reset()

    now += MINUTE
    adapter.node_stats = disk_node("16Gi")
    m.synchronize(now)
    assert m.is_under_disk_pressure() and adapter.killed is None

    now += 5 * MINUTE
    m.synchronize(now)
    assert not m.is_under_disk_pressure() and adapter.killed is None
    assert m.admit(pod_to_admit)[0]


def test_min_reclaim():
    pods, stats = memory_pods()
    pod_to_evict = pods[4]
    adapter = FakeAdapter(pods, stats)
    config = EvictionConfig((mem_threshold("1Gi", min_reclaim="500Mi"),), 5 * MINUTE, 5)
    m = EvictionManager(config, adapter)
    now = 0.0
    adapter.node_stats = memory_node("2Gi")
    m.synchronize(now)
    assert not m.is_under_memory_pressure()

    now += MINUTE
    adapter.node_stats = memory_node("500Mi")
    m.synchronize(now)
    assert m.is_under_memory_pressure() and adapter.killed is pod_to_evict and adapter.grace == 1
    adapter.reset()

    # 1.2Gi is above the threshold but below threshold + minReclaim (1.5Gi): evict again
    now += MINUTE
    adapter.node_stats = memory_node("1.2Gi")
    r = m.synchronize(now)
    assert m.is_under_memory_pressure() and adapter.killed is pod_to_evict
    assert r.thresholds_met == ["memory.available<1Gi"]
    adapter.reset()

    now += MINUTE
    adapter.node_stats = memory_node("2Gi")
    m.synchronize(now)
    assert m.is_under_memory_pressure() and adapter.killed is None

    now += 5 * MINUTE
    m.synchronize(now)
    assert not m.is_under_memory_pressure() and adapter.killed is None


def test_node_reclaim_funcs():
    pods, stats = disk_pods()
    adapter = FakeAdapter(pods, stats)
    t = Threshold("nodefs.available", "LessThan", ThresholdValue(Quantity.parse("1Gi")), 0.0,
                  ThresholdValue(Quantity.parse("500Mi")))
    m = EvictionManager(EvictionConfig((t,), 5 * MINUTE, 5), adapter)
    now = 0.0
    adapter.node_stats = disk_node("16Gi")
    m.synchronize(now)
    assert not m.is_under_disk_pressure()

    # induce hard threshold; GC brings disk back
    now += MINUTE
    adapter.node_stats = disk_node(".9Gi")
    adapter.node_stats_after_gc = disk_node("16Gi")
    r = m.synchronize(now)
    assert m.is_under_disk_pressure()
    assert adapter.container_gc_invoked and adapter.image_gc_invoked
    assert [name for name, _ in r.reclaimed] == [CONTAINER_GC, IMAGE_GC] and r.reclaim_sufficient
    assert adapter.killed is None
    adapter.reset()

    # GC not enough (1.1Gi < 1Gi + 500Mi): evict
    now += MINUTE
    adapter.node_stats = disk_node("400Mi")
    adapter.node_stats_after_gc = disk_node("1.1Gi")
    r = m.synchronize(now)
    assert adapter.image_gc_invoked and adapter.killed is pods[0] and not r.reclaim_sufficient
    adapter.reset()

    # pressure held by the transition period, then gone
    now += MINUTE
    adapter.node_stats = disk_node("16Gi")
    adapter.node_stats_after_gc = None
    m.synchronize(now)
    assert m.is_under_disk_pressure() and adapter.killed is None and not adapter.image_gc_invoked
    now += 5 * MINUTE
    m.synchronize(now)
    assert not m.is_under_disk_pressure()


def test_dedicated_image_fs_nodefs_has_no_node_reclaim():
    pods, stats = disk_pods()
    adapter = FakeAdapter(pods, stats, dedicated_image_fs=True)
    t, = parse_threshold_config(eviction_hard={"nodefs.available": "1Gi"})
    m = EvictionManager(EvictionConfig((t,)), adapter)
    adapter.node_stats = disk_node("500Mi")
    r = m.synchronize(0.0)
    assert r.reclaimed == [] and not adapter.image_gc_invoked
    # with imagefs, nodefs measures logs and local volumes only: only the 800Mi volume exceeds a request
    assert r.ranking[0] == "high-priority-high-usage" and adapter.killed is pods[3]


def test_critical_pod_not_evicted():
    critical = new_pod("critical", 2000001000)
    critical["metadata"]["annotations"] = {"kubernetes.io/config.source": "file"}
    other = new_pod("other", DEFAULT, rl("100m", "1Gi"), rl("100m", "1Gi"))
    adapter = FakeAdapter([critical, other], [memory_stats("critical", "800Mi"), memory_stats("other", "100Mi")])
    m = EvictionManager(EvictionConfig((mem_threshold("1Gi"),)), adapter)
    adapter.node_stats = memory_node("500Mi")
    r = m.synchronize(0.0)
    assert r.ranking == ["critical", "other"]
    assert adapter.killed is other  # the critical one ranks first but is skipped


def test_pid_pressure():
    pods = [new_pod("a", DEFAULT), new_pod("b", DEFAULT), new_pod("c", HIGH)]
    stats = [{"process_stats": {"process_count": n}} for n in (10, 400, 900)]
    adapter = FakeAdapter(pods, stats)
    t, = parse_threshold_config(eviction_hard={"pid.available": "1200"})
    m = EvictionManager(EvictionConfig((t,)), adapter)
    adapter.node_stats = {"rlimit": {"maxpid": 3000, "curproc": 2000}}
    r = m.synchronize(0.0)
    assert m.is_under_pid_pressure() and not m.is_under_memory_pressure()
    assert r.ranking == ["b", "a", "c"] and adapter.killed is pods[1]
    assert r.message == "The node was low on resource: pids. Threshold quantity: 1200, available: 1k. "  # DecimalSI prints 1000 as 1k


def test_no_thresholds_does_nothing():
    adapter = FakeAdapter([], [])
    r = EvictionManager(EvictionConfig(()), adapter).synchronize(0.0)
    assert r.observations == {} and r.node_conditions == []


def test_thresholds_updated_stats_drops_stale_observations():
    t = mem_threshold("1Gi")
    adapter = FakeAdapter(*memory_pods())
    adapter.node_stats = memory_node("500Mi")
    m = EvictionManager(EvictionConfig((t,)), adapter)
    adapter.summary = lambda now: {"time": 5.0, "node": adapter.node_stats, "pods": []}  # never refreshed
    m.synchronize(10.0)
    adapter.summary = lambda now: {"time": 5.0, "node": adapter.node_stats,
                                   "pods": [dict(s, podRef={"uid": p["metadata"]["uid"]})
                                            for p, s in zip(adapter.pods, adapter.pod_stats)]}
    adapter.reset()
    r = m.synchronize(20.0)
    assert m.is_under_memory_pressure() and adapter.killed is None and r.evicted is None
    assert thresholds_updated_stats([t], {}, {}) == []


# --- image GC ---------------------------------------------------------------------------------------------


def test_image_gc_below_high_threshold_does_nothing():
    gc = ImageGCManager([ImageRecord("a", 450, 0, 0)])
    assert gc.garbage_collect(1000, 500, now=1000.0) == (0, 0, None)  # 50 % used
    assert gc.garbage_collect(1000, 160, now=1000.0) == (0, 0, None)  # 84 % used
    assert gc.garbage_collect(1000, 151, now=1000.0)[0] == 49  # 100 - int(15.1) = 85 %: collect
    assert "a" not in gc.images


def test_image_gc_frees_lru_down_to_low_threshold():
    images = [ImageRecord("recent", 100, 0, 900), ImageRecord("old", 100, 0, 100),
              ImageRecord("oldest", 100, 0, 50), ImageRecord("used", 300, 0, 0), ImageRecord("pause", 50, 0, 0, pinned=True)]
    gc = ImageGCManager(images, in_use=lambda: {"used"})
    # 90 % used: free 1000 * 20 / 100 - 100 = 100 bytes: the least recently used unused image
    assert gc.garbage_collect(1000, 100, now=1000.0) == (100, 100, None)
    assert [d[1] for d in gc.deleted] == ["oldest"]
    assert gc.delete_unused_images(now=1000.0) == 200
    assert set(gc.images) == {"used", "pause"}


def test_image_gc_not_enough_freed_and_min_age():
    gc = ImageGCManager([ImageRecord("young", 500, 950, 950), ImageRecord("small", 50, 0, 0)])
    amount, freed, failure = gc.garbage_collect(1000, 50, now=1000.0)
    assert (amount, freed) == (150, 50) and "young" in gc.images  # younger than imageMinimumGCAge (2m)
    assert failure == ("Failed to garbage collect required amount of images. "
                       "Attempted to free 150 bytes, but only found 50 bytes eligible to free.")


# --- the loop on the SimPy clock --------------------------------------------------------------------------


def qos_node() -> NodeUsage:
    node = NodeUsage(memory_capacity_bytes=4 * Gi, system_memory_bytes=512 * Mi)
    node.add_pod(new_pod("guaranteed", DEFAULT, rl("500m", "1Gi"), rl("500m", "1Gi")))
    node.add_pod(new_pod("burstable", DEFAULT, rl("250m", "512Mi"), rl("1", "2Gi")))
    node.add_pod(new_pod("besteffort", DEFAULT))
    for name, used in (("guaranteed", 800 * Mi), ("burstable", 400 * Mi), ("besteffort", 200 * Mi)):
        node.set_usage(name, name, memory_bytes=used)
    return node


def test_loop_evicts_one_pod_per_round_and_waits_for_cleanup():
    node = qos_node()
    config = EvictionConfig(tuple(parse_threshold_config(eviction_hard={"memory.available": "1.5Gi"})),
                            max_pod_grace_period_seconds=30)
    actions = [{"at": 60, "name": "besteffort", "container": "besteffort", "memoryBytes": 1200 * Mi},
               {"at": 60, "name": "burstable", "container": "burstable", "memoryBytes": 1600 * Mi}]
    m = run_eviction_scenario(node, config, actions, until_seconds=400)
    evictions = [(r.time, r.evicted) for r in m.timeline if r.evicted]
    # 512 + 800 + 1600 + 1200 Mi > 4Gi: nothing available. BestEffort is 1200Mi above its request (0),
    # Burstable 1088Mi above its 512Mi: same priority, so the larger excess goes first
    assert evictions[0] == (60.0, "default/besteffort")
    assert next(r for r in m.timeline if r.evicted).ranking == [
        "besteffort", "burstable", "guaranteed"]
    # hard threshold: grace 1 s; the loop polls every second and synchronizes again at once
    assert evictions[1][0] == 61.0 and evictions[1][1] == "default/burstable"
    assert len(evictions) == 2  # 4096 - 512 - 800 = 2784Mi available: pressure over
    assert node.pods["besteffort"]["status"]["reason"] == "Evicted"
    conditions = {r.time: r.node_conditions for r in m.timeline}
    assert conditions[50.0] == [] and conditions[60.0] == ["MemoryPressure"]
    # MemoryPressure held for evictionPressureTransitionPeriod after the last sighting (t = 61)
    held = [t for t, c in conditions.items() if c == ["MemoryPressure"]]
    assert max(held) < 61 + 300 and min(t for t, c in conditions.items() if t > 61 and not c) >= 361


def test_loop_soft_threshold_waits_for_grace_period():
    node = qos_node()
    config = EvictionConfig(tuple(parse_threshold_config(
        eviction_soft={"memory.available": "2Gi"}, eviction_soft_grace_period={"memory.available": "1m30s"})),
        max_pod_grace_period_seconds=10)
    actions = [{"at": 15, "name": "besteffort", "container": "besteffort", "memoryBytes": 700 * Mi}]
    m = run_eviction_scenario(node, config, actions, until_seconds=200)
    first_pressure = next(r.time for r in m.timeline if r.node_conditions)
    eviction = next(r for r in m.timeline if r.evicted)
    assert first_pressure == 20.0
    assert eviction.time == 110.0 and eviction.evicted == "default/besteffort" and eviction.grace_period_seconds == 10
    # after the 10 s grace period the loop sees the pod cleaned up at t = 120 and synchronizes at once
    assert [r.time for r in m.timeline if 110 < r.time <= 130] == [120.0, 130.0]


def test_disk_scenario_image_gc_before_eviction():
    images = [ImageRecord(f"img-{i}", 2 * Gi, 0, i) for i in range(4)]
    node = NodeUsage(memory_capacity_bytes=8 * Gi, node_fs_capacity_bytes=20 * Gi, system_disk_bytes=6 * Gi,
                     images=images, dead_container_bytes=Gi)
    node.add_pod(new_pod("writer", DEFAULT))
    config = EvictionConfig(tuple(parse_threshold_config(eviction_hard={"nodefs.available": "10%"})))
    actions = [{"at": 200, "name": "writer", "container": "writer", "diskBytes": 4 * Gi}]
    m = run_eviction_scenario(node, config, actions, until_seconds=320)
    # 6 + 8 + 1 + 4 = 19Gi used of 20Gi: 1Gi < 2Gi -> reclaim: container GC (1Gi) and all unused images (8Gi)
    r = next(r for r in m.timeline if r.reclaimed)
    assert r.time == 200.0 and r.reclaimed == [(CONTAINER_GC, Gi), (IMAGE_GC, 8 * Gi)] and r.reclaim_sufficient
    assert not any(r.evicted for r in m.timeline)
    assert node.pods["writer"].get("status") is None


def test_periodic_image_gc_high_low():
    images = [ImageRecord(f"img-{i}", Gi, 0, i) for i in range(10)]
    node = NodeUsage(memory_capacity_bytes=8 * Gi, node_fs_capacity_bytes=20 * Gi, system_disk_bytes=8 * Gi,
                     images=images)
    m = run_eviction_scenario(node, EvictionConfig(()), [], until_seconds=310)
    # 18Gi of 20Gi = 90 % >= 85 %: free 20Gi * 20 % - 2Gi = 2Gi -> the two least recently used images
    assert [d[1] for d in node.image_gc.deleted] == ["img-0", "img-1"]
    assert node.image_gc.deleted[0][0] == 300.0
    assert m.timeline and all(not r.node_conditions for r in m.timeline)


def test_set_usage_unknown_pod_raises():
    with pytest.raises(KeyError):
        NodeUsage(memory_capacity_bytes=1).set_usage("nope", "c", memory_bytes=1)


def test_default_thresholds_shared_disk_imagefs_signal_reclaims_images():
    """Without a dedicated imagefs, imagefs.available<15% (a default) is met first and runs image GC too."""
    from kubenotes.kubelet.eviction import DEFAULT_EVICTION_HARD

    def node_and_manager(system_disk_bytes):
        node = NodeUsage(memory_capacity_bytes=8 * Gi, node_fs_capacity_bytes=20 * Gi,
                         system_disk_bytes=system_disk_bytes, images=[ImageRecord("old", 2 * Gi, 0, 0)])
        return node, EvictionManager(EvictionConfig(tuple(parse_threshold_config(
            eviction_hard=DEFAULT_EVICTION_HARD))), node)

    node, m = node_and_manager(15 * Gi)
    r = m.synchronize(200.0)   # 17Gi of 20Gi used: 3Gi left is below float32(0.15) * 20Gi = 3221225600 bytes
    assert r.thresholds_met == ["imagefs.available<3221225600"] and r.node_conditions == ["DiskPressure"]
    node, m = node_and_manager(15 * Gi - 256 * 2**20)
    r = m.synchronize(200.0)   # 3.25Gi left: not < 15 %... one more GiB
    assert r.node_conditions == []
    node.system_disk_bytes = 16 * Gi - 256 * 2**20
    r = m.synchronize(210.0)   # 2.25Gi left: < 15 % (3221225600) but not < 10 % (2147483680)
    assert r.thresholds_met == ["imagefs.available<3221225600"] and r.node_conditions == ["DiskPressure"]
    assert r.resource_to_reclaim == "ephemeral-storage"
    assert r.reclaimed == [(CONTAINER_GC, 0), (IMAGE_GC, 2 * Gi)] and r.reclaim_sufficient
