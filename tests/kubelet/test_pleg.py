"""Tests for kubenotes.kubelet.pleg.

Upstream sources the cases come from
(kubernetes/kubernetes@v1.34.0 pkg/kubelet/pleg/generic_test.go):

* TestRelisting (first relist reports running/exited containers, a second
  unchanged relist reports nothing, removals and transitions afterwards);
* TestEventChannelFull (capacity 4: the fifth event of a relist is dropped);
* TestDetectingContainerDeaths (running -> gone gives Died + Removed,
  exited -> gone gives Removed only, running -> exited gives Died);
* TestRelistingWithSandboxes (sandboxes are diffed like containers);
* TestRelistWithCache / TestRemoveCacheEntry (the pod cache is written by the
  inspection and deleted when the pod disappears);
* TestRelistWithReinspection (a failed inspection sends nothing, keeps the
  old record and reinspects at the next relist);
* TestHealthy (unhealthy before the first relist, healthy within, unhealthy
  past the 3 minute threshold) and the message of Healthy();
* model-only: the relist loop's period and duration on the SimPy clock, and
  the pure relist_seconds curve.
"""

from __future__ import annotations

import simpy

from kubenotes.kubelet.pleg import (
    CONTAINER_DIED,
    CONTAINER_REMOVED,
    CONTAINER_STARTED,
    EVENT_CHANNEL_FULL_MESSAGE,
    GenericPLEG,
    PodLifecycleEvent,
    RelistCost,
    max_pods_within_period,
    pleg_not_healthy_message,
    relist_seconds,
)

RUNNING, EXITED, UNKNOWN, CREATED = "CONTAINER_RUNNING", "CONTAINER_EXITED", "CONTAINER_UNKNOWN", "CONTAINER_CREATED"


class CRIError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class FakeRuntime:
    """A minimal CRI runtime following kubenotes' CRI contract (generator RPCs, proto dicts)."""

    def __init__(self, env, latency=0.0):
        self.env = env
        self.latency = latency
        self.sandboxes = []
        self.containers = []
        self.trace = []
        self.fail_status = set()
        self.fail_list = False

    def set_pods(self, pods, sandboxes=None):
        """pods: {uid: [(cid, state)]} as containers; sandboxes: {uid: [(sid, state)]}."""
        self.containers = [
            {"id": cid, "pod_sandbox_id": "", "metadata": {"name": cid, "attempt": 0}, "state": state,
             "labels": {"io.kubernetes.pod.uid": uid}}
            for uid, cs in pods.items() for cid, state in cs
        ]
        self.sandboxes = [
            {"id": sid, "metadata": {"name": "p", "uid": uid, "namespace": "default", "attempt": 0}, "state": state}
            for uid, ss in (sandboxes or {}).items() for sid, state in ss
        ]

    def _rpc(self, method, request, response):
        if self.latency:
            yield self.env.timeout(self.latency)
        self.trace.append({"time": self.env.now, "method": method, "request": request})
        return response

    @staticmethod
    def _uid_filter(request):
        return ((request.get("filter") or {}).get("label_selector") or {}).get("io.kubernetes.pod.uid")

    def ListPodSandbox(self, request):
        if self.fail_list:
            raise CRIError("Unavailable", "runtime down")
        uid = self._uid_filter(request)
        items = [s for s in self.sandboxes if uid is None or s["metadata"]["uid"] == uid]
        return (yield from self._rpc("ListPodSandbox", request, {"items": items}))

    def ListContainers(self, request):
        uid = self._uid_filter(request)
        cs = [c for c in self.containers if uid is None or c["labels"]["io.kubernetes.pod.uid"] == uid]
        return (yield from self._rpc("ListContainers", request, {"containers": cs}))

    def PodSandboxStatus(self, request):
        s = next(s for s in self.sandboxes if s["id"] == request["pod_sandbox_id"])
        return (yield from self._rpc("PodSandboxStatus", request, {"status": dict(s)}))

    def ContainerStatus(self, request):
        cid = request["container_id"]
        if cid in self.fail_status:
            yield from self._rpc("ContainerStatus", request, None)
            raise CRIError("Unknown", "inspection error")
        c = next(c for c in self.containers if c["id"] == cid)
        return (yield from self._rpc("ContainerStatus", request, {"status": dict(c)}))


def new_pleg(capacity=1000, latency=0.0, cost=RelistCost(0, 0, 0)):
    env = simpy.Environment()
    rt = FakeRuntime(env, latency)
    return env, rt, GenericPLEG(env, rt, channel_capacity=capacity, cost=cost)


def relist(env, pleg):
    env.run(until=env.process(pleg.relist()))


def drain(pleg):
    items = list(pleg.event_channel.items)
    pleg.event_channel.items.clear()
    return sorted(items)


E = PodLifecycleEvent
FIRST = {"1234": [("c1", EXITED), ("c2", RUNNING), ("c3", UNKNOWN)], "4567": [("c1", EXITED)]}
SECOND = {"1234": [("c2", EXITED), ("c3", RUNNING)], "4567": [("c4", RUNNING)]}
FIRST_EVENTS = sorted([E("1234", CONTAINER_STARTED, "c2"), E("4567", CONTAINER_DIED, "c1"), E("1234", CONTAINER_DIED, "c1")])
SECOND_EVENTS = sorted([
    E("1234", CONTAINER_REMOVED, "c1"), E("1234", CONTAINER_DIED, "c2"), E("1234", CONTAINER_STARTED, "c3"),
    E("4567", CONTAINER_REMOVED, "c1"), E("4567", CONTAINER_STARTED, "c4"),
])


def test_relisting():
    env, rt, pleg = new_pleg()
    rt.set_pods(FIRST)
    relist(env, pleg)
    assert drain(pleg) == FIRST_EVENTS  # running/exited containers seen for the first time
    relist(env, pleg)
    assert drain(pleg) == []  # nothing changed
    rt.set_pods(SECOND)
    relist(env, pleg)
    assert drain(pleg) == SECOND_EVENTS


def test_relisting_with_sandboxes():
    env, rt, pleg = new_pleg()
    rt.set_pods({}, sandboxes=FIRST_SANDBOXES)
    relist(env, pleg)
    assert drain(pleg) == FIRST_EVENTS
    relist(env, pleg)
    assert drain(pleg) == []
    rt.set_pods({}, sandboxes=SECOND_SANDBOXES)
    relist(env, pleg)
    assert drain(pleg) == SECOND_EVENTS


# CRI sandboxes are READY or NOTREADY only, so upstream's "unknown" c3 is left out here
FIRST_SANDBOXES = {"1234": [("c1", "SANDBOX_NOTREADY"), ("c2", "SANDBOX_READY")],
                   "4567": [("c1", "SANDBOX_NOTREADY")]}
SECOND_SANDBOXES = {"1234": [("c2", "SANDBOX_NOTREADY"), ("c3", "SANDBOX_READY")], "4567": [("c4", "SANDBOX_READY")]}


def test_relisting_with_sandboxes_not_ready_first_seen():
    # upstream's c3 is "unknown"; a NOTREADY sandbox is "exited": first seen -> ContainerDied
    env, rt, pleg = new_pleg()
    rt.set_pods({}, sandboxes={"p": [("s", "SANDBOX_NOTREADY")]})
    relist(env, pleg)
    assert drain(pleg) == [E("p", CONTAINER_DIED, "s")]


def test_event_channel_full():
    env, rt, pleg = new_pleg(capacity=4)
    rt.set_pods(FIRST)
    relist(env, pleg)
    assert drain(pleg) == FIRST_EVENTS
    rt.set_pods(SECOND)
    relist(env, pleg)
    actual = drain(pleg)
    assert len(actual) == 4 and set(actual) <= set(SECOND_EVENTS)
    assert pleg.discarded == 1
    assert pleg.log[-1][1] == EVENT_CHANNEL_FULL_MESSAGE


def test_detecting_container_deaths():
    cases = [
        (RUNNING, None, [CONTAINER_DIED, CONTAINER_REMOVED]),  # running -> gone
        (EXITED, None, [CONTAINER_REMOVED]),  # exited -> gone
        (RUNNING, EXITED, [CONTAINER_DIED]),
        (CREATED, RUNNING, [CONTAINER_STARTED]),
        (RUNNING, UNKNOWN, []),  # ContainerChanged is computed but not sent
    ]
    for before, after, expected in cases:
        env, rt, pleg = new_pleg()
        rt.set_pods({"p": [("c1", before), ("c2", RUNNING)]})
        relist(env, pleg)
        drain(pleg)
        rt.set_pods({"p": [("c2", RUNNING)] + ([("c1", after)] if after else [])})
        relist(env, pleg)
        assert [e.type for e in drain(pleg)] == sorted(expected), (before, after)


def test_relist_with_cache_and_remove_cache_entry():
    env, rt, pleg = new_pleg()
    rt.set_pods({"p1": [("c1", RUNNING)]}, sandboxes={"p1": [("s1", "SANDBOX_READY")]})
    relist(env, pleg)
    entry = pleg.cache["p1"]
    assert entry["error"] is None
    assert [c["id"] for c in entry["status"]["container_statuses"]] == ["c1"]
    assert [s["id"] for s in entry["status"]["sandbox_statuses"]] == ["s1"]
    methods = [t["method"] for t in rt.trace]
    assert methods == ["ListPodSandbox", "ListContainers",  # GetPods
                       "ListPodSandbox", "PodSandboxStatus", "ListContainers", "ContainerStatus"]  # GetPodStatus
    rt.set_pods({})
    relist(env, pleg)
    assert "p1" not in pleg.cache and "p1" not in pleg.pod_records


def test_relist_with_reinspection():
    env, rt, pleg = new_pleg()
    rt.set_pods({"pod": [("infra", RUNNING)]})
    relist(env, pleg)
    assert drain(pleg) == [E("pod", CONTAINER_STARTED, "infra")]
    assert pleg.cache["pod"]["error"] is None
    # listing 2: a transient container whose inspection fails
    rt.set_pods({"pod": [("infra", RUNNING), ("transient", UNKNOWN)]})
    rt.fail_status = {"transient"}
    relist(env, pleg)
    assert drain(pleg) == []
    assert pleg.cache["pod"]["error"] == "inspection error"
    assert "pod" in pleg.pods_to_reinspect
    # listing 3: the transient container is gone; the pod is reinspected, no events
    rt.set_pods({"pod": [("infra", RUNNING)]})
    rt.fail_status = set()
    relist(env, pleg)
    assert drain(pleg) == []
    assert pleg.cache["pod"]["error"] is None
    assert pleg.pods_to_reinspect == {}


def test_healthy():
    env, rt, pleg = new_pleg()
    pleg_ok, msg = pleg.healthy()
    assert not pleg_ok and msg == "pleg has yet to be successful"
    env.run(until=600)  # 10 minutes without relisting
    assert not pleg.healthy()[0]
    relist(env, pleg)
    env.run(until=env.now + 60)
    assert pleg.healthy() == (True, "")
    env.run(until=env.now + 180)
    pleg_ok, msg = pleg.healthy()
    assert not pleg_ok
    assert msg == "pleg was last seen active 4m0s ago; threshold is 3m0s"
    assert pleg_not_healthy_message(pleg.healthy(now=pleg.relist_time + 180.1)[1]) == (
        "PLEG is not healthy: pleg was last seen active 3m0.1s ago; threshold is 3m0s")


def test_failed_list_does_not_update_relist_time():
    env, rt, pleg = new_pleg()
    relist(env, pleg)
    t0 = pleg.relist_time
    env.run(until=10)
    rt.fail_list = True
    relist(env, pleg)
    assert pleg.relist_time == t0 and pleg.relists[-1]["error"] == "runtime down"
    assert pleg.log[-1][1].startswith("GenericPLEG: Unable to retrieve pods")


def test_relist_loop_period_and_duration_on_the_clock():
    env = simpy.Environment()
    rt = FakeRuntime(env, latency=0.1)
    pleg = GenericPLEG(env, rt, cost=RelistCost(per_pod_seconds=0.01, per_container_seconds=0.0, per_status_seconds=0.0))
    rt.set_pods({"a": [("c1", RUNNING)], "b": [("c2", RUNNING)]})
    pleg.start()
    env.run(until=5)
    starts = [r["start"] for r in pleg.relists]
    # first relist: 2 lists (0.2) + 2 pods (0.02) + 2 inspections of 3 RPCs (0.6) = 0.82 s
    assert abs(pleg.relists[0]["duration_seconds"] - 0.82) < 1e-9
    # unchanged relists: 0.22 s, then the 1 s pause (wait.Until)
    assert abs(pleg.relists[1]["duration_seconds"] - 0.22) < 1e-9
    assert abs(starts[1] - 1.82) < 1e-9 and abs(starts[2] - starts[1] - 1.22) < 1e-9
    seen = [(round(t, 2), e.type) for t, e in pleg.sent]
    assert seen == [(0.52, CONTAINER_STARTED), (0.82, CONTAINER_STARTED)]
    pleg.stop()
    n = len(pleg.relists)
    env.run(until=20)
    assert len(pleg.relists) == n
    assert not pleg.healthy(now=pleg.relist_time + 181)[0]


def test_slow_runtime_makes_pleg_unhealthy():
    env = simpy.Environment()
    rt = FakeRuntime(env, latency=200.0)  # each CRI call takes 200 s
    pleg = GenericPLEG(env, rt)
    pleg.start()
    env.run(until=450)
    # relists start at 0 and 401 (two 200 s lists + 1 s pause); at 400 the last one began 400 s ago
    assert pleg.healthy(now=400)[0] is False


def test_relist_seconds_curve():
    curve = [relist_seconds(n, 2) for n in (10, 50, 110, 250)]
    assert curve == sorted(curve)
    assert abs(relist_seconds(110, 2) - 1.0) < 0.01
    assert relist_seconds(110, 2, changed_pods=0) < 0.1 < relist_seconds(110, 2, changed_pods=10)
    assert relist_seconds(110, 4) > relist_seconds(110, 2)
    assert max_pods_within_period(2) == 110
    assert max_pods_within_period(4) < 110
