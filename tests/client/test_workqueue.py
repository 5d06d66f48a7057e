"""Work queue and rate limiters, cases ported from client-go.

- queue_test.go: TestBasic (no key held twice), TestAddWhileProcessing (re-queued after Done), TestLen.
- delaying_queue_test.go: TestSimpleQueue, TestAddTwoFireEarly (the earlier ready time wins).
- default_rate_limiters_test.go: TestItemExponentialFailureRateLimiter (1ms base, 1s cap: 1,2,4,8,16 ms),
  TestItemExponentialFailureRateLimiterOverFlow, TestMaxOfRateLimiter, bucket limiter delays.
"""

from __future__ import annotations

import simpy

from kubenotes.client.workqueue import (
    SHUTDOWN,
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    Queue,
    RateLimitingQueue,
    default_controller_rate_limiter,
)


def test_a_key_is_never_held_by_two_workers_and_is_requeued_after_done():
    env = simpy.Environment()
    q = Queue(env)
    held: list[tuple[float, str, str]] = []

    def worker(name):
        while True:
            k = yield q.get()
            if k is SHUTDOWN:
                return
            held.append((env.now, name, k))
            q.add(k)  # an event arrives for the key while it is processed
            yield env.timeout(1)
            q.done(k)
            if len(held) >= 4:
                q.shut_down()

    q.add("a")
    env.process(worker("w1"))
    env.process(worker("w2"))
    env.run(until=10)
    # "a" is processed again only after done(), never concurrently
    times = [t for t, _, k in held if k == "a"]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert [k for _, _, k in held] == ["a"] * len(held)


def test_add_deduplicates_waiting_keys():
    q = Queue(simpy.Environment())
    for k in ("foo", "bar", "foo", "foo"):
        q.add(k)
    assert len(q) == 2 and q.queued() == ["foo", "bar"]


def test_add_after_earlier_time_wins_and_fires_once():
    env = simpy.Environment()
    q = RateLimitingQueue(env, default_controller_rate_limiter())
    q.add_after("foo", 1.0)
    q.add_after("bar", 0.5)
    q.add_after("foo", 0.25)
    env.run(until=0.3)
    assert q.queued() == ["foo"]
    env.run(until=2)
    assert q.queued() == ["foo", "bar"]
    assert q.waiting() == {}


def test_item_exponential_failure_rate_limiter_as_upstream():
    r = ItemExponentialFailureRateLimiter(0.001, 1.0)
    assert [r.when("one", 0) for _ in range(5)] == [0.001, 0.002, 0.004, 0.008, 0.016]
    assert r.num_requeues("one") == 5
    assert [r.when("two", 0) for _ in range(2)] == [0.001, 0.002]
    r.forget("one")
    assert r.num_requeues("one") == 0 and r.when("one", 0) == 0.001
    for _ in range(100):
        r.when("overflow", 0)
    assert r.when("overflow", 0) == 1.0


def test_bucket_allows_burst_then_paces_at_qps():
    b = BucketRateLimiter(qps=10, burst=100)
    delays = [b.when(i, 0.0) for i in range(102)]
    assert delays[:100] == [0.0] * 100
    assert abs(delays[100] - 0.1) < 1e-9 and abs(delays[101] - 0.2) < 1e-9
    assert b.when("late", 100.0) == 0.0  # the bucket refilled


def test_max_of_takes_the_longest_delay():
    r = MaxOfRateLimiter(ItemExponentialFailureRateLimiter(0.001, 1.0), ItemExponentialFailureRateLimiter(0.002, 1.0))
    assert r.when("one", 0) == 0.002 and r.when("one", 0) == 0.004
    assert r.num_requeues("one") == 2
    r.forget("one")
    assert r.num_requeues("one") == 0


def test_default_controller_rate_limiter_backs_off_a_failing_key():
    env = simpy.Environment()
    q = RateLimitingQueue(env, default_controller_rate_limiter())
    fired: list[float] = []

    def worker():
        while True:
            k = yield q.get()
            fired.append(env.now)
            q.add_rate_limited(k)  # always fails
            q.done(k)

    q.add("k")
    env.process(worker())
    env.run(until=1.0)
    gaps = [round(b - a, 6) for a, b in zip(fired, fired[1:])]
    assert gaps[:4] == [0.005, 0.01, 0.02, 0.04]


def test_adds_before_the_woken_worker_runs_fold_into_the_queued_key():
    # client-go: Add signals a waiting worker, which takes the head only when it runs; until then the key
    # stays queued (dirty, not processing), so more adds of it at that instant are no-ops
    env = simpy.Environment()
    q = Queue(env)
    got: list[tuple[float, str]] = []

    def worker():
        while True:
            k = yield q.get()
            if k is SHUTDOWN:
                return
            got.append((env.now, k))
            q.done(k)

    env.process(worker())
    env.run(until=1)  # the worker waits on an empty queue
    for k in ("a", "a", "b", "a"):
        q.add(k)
    assert q.queued() == ["a", "b"] and q.processing() == [] and q.adds == 2
    env.run(until=2)
    assert got == [(1, "a"), (1, "b")]


def test_a_worker_that_calls_get_does_not_take_the_key_kept_for_a_woken_one():
    env = simpy.Environment()
    q = Queue(env)
    waiting = q.get()  # a worker waits
    q.add("a")  # ... and is woken for "a"
    other = q.get()  # another worker asks before the first one runs: nothing is left for it
    env.run(until=1)
    assert waiting.value == "a" and not other.triggered
    q.add("b")
    env.run(until=2)
    assert other.value == "b"
    q.shut_down()
    last = q.get()
    env.run(until=3)
    assert last.value is SHUTDOWN
