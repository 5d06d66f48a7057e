"""The served clock lets requests in while it runs (issue #31), without changing the order of events.

``kubenotes.sim.serve._Clock`` runs the model one SimPy event at a time and,
after a slice of wall time, hands its lock to the requests waiting: between
two events of one virtual instant, and inside one event between two of the
model's own API requests. These tests check the structure (who gets the lock
when), not latencies: ``benchmarks/serve_clock.py`` measures those.
"""

from __future__ import annotations

import threading
import time

import pytest

from kubenotes.sim import serve as serve_mod
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import ServeLock, _Clock

INSTANT = 0.5
MAX_EVENTS = 2000


def _clock(cluster: Cluster) -> tuple[_Clock, ServeLock]:
    lock = ServeLock()
    return _Clock(cluster, lock, threading.Lock(), 1.0, threading.Event()), lock


def _advance_in_thread(clock: _Clock, target: float) -> threading.Thread:
    def run() -> None:
        clock.ident = threading.get_ident()
        clock.advance(target)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _request(lock: ServeLock, started: threading.Event, seen: dict, read) -> threading.Thread:
    """A request thread: once the instant started, take the lock and record what it sees."""
    def run() -> None:
        started.wait(10)
        with lock:
            seen.update(read())

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_a_request_gets_the_lock_between_events_of_one_virtual_instant():
    cluster = Cluster(controllers=[], scheduler=False)
    env = cluster.env
    started, seen, done = threading.Event(), {}, []

    def burst():
        yield env.timeout(INSTANT)
        started.set()
        while not seen and len(done) < MAX_EVENTS:  # events of one instant, each a little work, until a request got in
            time.sleep(0.001)
            done.append(env.now)
            yield env.timeout(0)
        done.append("end")

    env.process(burst())
    clock, lock = _clock(cluster)
    req = _request(lock, started, seen, lambda: {"now": env.now, "events": len(done), "ended": "end" in done})
    t = _advance_in_thread(clock, 1.0)
    t.join(30)
    req.join(5)
    assert seen, "the request never got the lock"
    assert seen["now"] == INSTANT and not seen["ended"]  # inside the instant, before its last event
    assert 0 < seen["events"] < MAX_EVENTS
    assert clock.handoffs > 0
    assert env.now == 1.0 and done[-1] == "end" and set(done[:-1]) == {INSTANT}


def test_a_request_gets_the_lock_between_api_requests_of_one_event():
    cluster = Cluster(controllers=[], scheduler=False)
    env = cluster.env
    started, seen, made = threading.Event(), {}, []

    def one_event():  # one SimPy event that makes many API requests without yielding to SimPy
        yield env.timeout(INSTANT)
        for i in range(MAX_EVENTS):
            cluster.client.create("configmaps", {"metadata": {"name": f"cm-{i}", "namespace": "default"}})
            made.append(i)
            started.set()
            if seen:
                break
            time.sleep(0.001)
        made.append("end")

    env.process(one_event())
    clock, lock = _clock(cluster)
    req = _request(lock, started, seen, lambda: {"configmaps": len(cluster.list("configmaps", "default")),
                                                 "ended": "end" in made})
    t = _advance_in_thread(clock, 1.0)
    t.join(30)
    req.join(5)
    assert seen and not seen["ended"]  # the event was still running
    assert 0 < seen["configmaps"] < MAX_EVENTS
    assert made[-1] == "end" and cluster.server.between_requests is None  # the hook is gone after the slice


def test_the_sliced_clock_keeps_the_order_of_events(monkeypatch):
    manifests = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                    "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}},
    ]

    def writes(c: Cluster) -> list[tuple]:
        return [(a.time, a.component, a.verb, a.kind, a.name, a.resource_version) for a in c.audit_log if a.time < 7]

    whole = Cluster(manifests, seed=3)
    whole.run(until=8)
    sliced = Cluster(manifests, seed=3)
    monkeypatch.setattr(serve_mod, "CLOCK_SLICE_SECONDS", 0.0)  # hand the lock over at every chance
    clock, _ = _clock(sliced)
    clock.ident = threading.get_ident()
    target = 0.0
    while target < 8:
        target = round(target + 0.37, 2)
        clock.advance(min(target, 8.0))
    assert clock.handoffs > 50
    assert writes(sliced) == writes(whole) and len(writes(whole)) > 10


@pytest.mark.parametrize("depth", [1, 2])
def test_handoff_lets_a_waiting_thread_in_and_takes_the_lock_back_at_its_depth(depth):
    lock = ServeLock()
    for _ in range(depth):
        lock.acquire()
    got = threading.Event()

    def waiter() -> None:
        with lock:
            got.set()

    t = threading.Thread(target=waiter, daemon=True)
    t.start()
    deadline = time.monotonic() + 5
    while not lock.waiting and time.monotonic() < deadline:
        time.sleep(0.001)
    assert lock.waiting == 1
    lock.handoff(max_wait_seconds=5)
    assert got.is_set() and lock.waiting == 0
    for _ in range(depth):
        lock.release()
    with pytest.raises(RuntimeError):
        lock.release()  # released exactly as often as taken
