"""client-go's token bucket (util/flowcontrol/throttle.go) on the virtual clock, and blocking work on SimPy."""

from __future__ import annotations

import simpy
import pytest

from kubenotes.client.flowcontrol import (DEFAULT_BURST, DEFAULT_QPS, LONG_THROTTLE_LATENCY_SECONDS,
                                          TokenBucketRateLimiter, in_blocking_task, run_blocking, sleep)


def test_client_go_defaults_are_5_qps_burst_10():
    assert (DEFAULT_QPS, DEFAULT_BURST) == (5.0, 10)
    assert LONG_THROTTLE_LATENCY_SECONDS == 1.0


def test_bucket_starts_full_then_hands_out_one_token_per_1_over_qps():
    rl = TokenBucketRateLimiter(qps=20, burst=30)
    waits = [rl.reserve(0.0) for _ in range(34)]
    assert waits[:30] == [0.0] * 30
    assert waits[30:] == pytest.approx([0.05, 0.10, 0.15, 0.20])


def test_refill_is_capped_at_burst():
    rl = TokenBucketRateLimiter(qps=5, burst=10)
    for _ in range(10):
        rl.reserve(0.0)
    assert rl.tokens(1.0) == pytest.approx(5.0)
    assert rl.tokens(100.0) == 10.0  # not 500: the bucket holds at most burst
    waits = [rl.reserve(100.0) for _ in range(11)]
    assert waits[-1] == pytest.approx(0.2)


def test_try_accept_takes_only_an_available_token():
    rl = TokenBucketRateLimiter(qps=1, burst=1)
    assert rl.try_accept(0.0) is True
    assert rl.try_accept(0.5) is False
    assert rl.try_accept(1.0) is True


def test_long_throttles_are_counted_as_client_go_logs_them():
    rl = TokenBucketRateLimiter(qps=1, burst=1)
    waits = [rl.reserve(0.0) for _ in range(4)]
    assert waits == [0.0, 1.0, 2.0, 3.0]
    assert rl.long_throttles == 2  # 2 s and 3 s exceed longThrottleLatency (1 s); 1 s does not


@pytest.mark.parametrize("qps,burst", [(0, 10), (-1, 10), (5, 0), (5, 1.5), (True, 3)])
def test_bad_parameters_are_refused(qps, burst):
    with pytest.raises(ValueError):
        TokenBucketRateLimiter(qps, burst)


def test_sustained_rate_is_qps_on_the_virtual_clock():
    env = simpy.Environment()
    rl = TokenBucketRateLimiter(qps=20, burst=30)
    sent: list[float] = []

    def work():
        for _ in range(130):
            rl.wait(env)
            sent.append(env.now)

    def proc():
        yield from run_blocking(env, work)

    env.process(proc())
    env.run()
    assert sent[29] == 0.0 and sent[30] == pytest.approx(0.05)
    assert sent[-1] == pytest.approx(100 / 20)  # 100 tokens beyond the burst at 20 per second


def test_run_blocking_interleaves_with_other_processes_and_returns_the_result():
    env = simpy.Environment()
    log: list[tuple[float, str]] = []

    def work():
        assert in_blocking_task()
        log.append((env.now, "a1"))
        sleep(2.0)
        log.append((env.now, "a2"))
        return "done"

    def driver():
        result = yield from run_blocking(env, work)
        log.append((env.now, result))

    def other():
        yield env.timeout(1.0)
        log.append((env.now, "b"))

    env.process(driver())
    env.process(other())
    env.run()
    assert log == [(0, "a1"), (1.0, "b"), (2.0, "a2"), (2.0, "done")]
    assert not in_blocking_task()


def test_run_blocking_reraises_and_sleep_outside_a_task_does_nothing():
    env = simpy.Environment()
    assert sleep(1.0) is False

    def boom():
        sleep(0.5)
        raise KeyError("x")

    seen = []

    def driver():
        try:
            yield from run_blocking(env, boom)
        except KeyError as e:
            seen.append((env.now, e.args[0]))

    env.process(driver())
    env.run()
    assert seen == [(0.5, "x")]


def test_a_dropped_simulation_ends_its_sleeping_thread():
    import gc
    import threading

    env = simpy.Environment()
    after = []

    def work():
        sleep(10.0)
        after.append("resumed")

    def driver():
        yield from run_blocking(env, work)

    proc = env.process(driver())
    env.run(until=1.0)
    before = threading.active_count()
    proc._generator.close()  # what collecting a dropped simulation does to its processes
    gc.collect()
    assert threading.active_count() == before - 1
    assert after == []
