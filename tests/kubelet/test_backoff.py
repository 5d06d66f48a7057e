"""Tests for kubenotes.kubelet.backoff.

Upstream sources the cases come from:

* kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/flowcontrol/backoff_test.go:
  TestSlowBackoff, TestBackoffReset, TestBackoffHighWaterMark, TestBackoffGC,
  TestIsInBackOffSinceUpdate, TestBackoffWithJitter (bounds only, seeded rng);
* pkg/kubelet/kuberuntime/kuberuntime_manager_test.go TestDoBackOff (first exit
  restarts at once, a second exit inside the window is backed off with
  reason CrashLoopBackOff, outside the window it restarts) and the
  ``back-off 40s restarting failed container=...`` message;
* pkg/kubelet/kubelet.go crashLoopBackOff.HasExpiredFunc (reset after 600 s);
* pkg/kubelet/images/image_manager_test.go TestParallelPuller/TestSerializedPuller
  "image pull failure then back-off" shape (ErrImagePull, then ImagePullBackOff,
  then a retry once the window passed) and evalCRIPullErr cases.
"""

from __future__ import annotations

import random

import pytest

from kubenotes.kubelet.backoff import (
    CRASH_LOOP_BACK_OFF,
    ERR_IMAGE_PULL,
    IMAGE_PULL_BACK_OFF,
    Backoff,
    ImagePullBackOff,
    do_back_off,
    eval_cri_pull_err,
    get_backoff_key,
    go_duration,
    new_crash_loop_back_off,
)


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def step(self, seconds: float) -> None:
        self.now += seconds


POD = {"metadata": {"name": "web", "namespace": "default", "uid": "u-1"}}


def test_slow_backoff():
    tc = FakeClock()
    step = 1.0
    b = Backoff(tc, step, 50 * step)
    for expected in [0, 1, 2, 4, 8, 16, 32, 50, 50, 50]:
        tc.step(step)
        assert b.get("_idSlow") == expected * step
        b.next("_idSlow", tc.now)
    b.next("_idSlow", tc.now)
    b.reset("_idSlow")
    assert b.get("_idSlow") == 0


def test_backoff_reset():
    tc = FakeClock()
    step, max_d = 1.0, 5.0
    b = Backoff(tc, step, max_d)
    b.next("id", tc.now)
    tc.step(step)
    assert b.get("id") == step
    for _ in range(int(max_d / step) + 1):
        tc.step(step)
        b.next("id", tc.now)
    assert b.is_in_back_off_since("id", tc.now)
    last_update = tc.now
    tc.step(2 * max_d + step)  # time skip
    assert not b.is_in_back_off_since("id", last_update)


def test_backoff_high_water_mark():
    tc = FakeClock()
    step, max_d = 1.0, 5.0
    b = Backoff(tc, step, max_d)
    for _ in range(int(max_d / step) + 1):
        tc.step(step)
        b.next("id", tc.now)
    tc.step(max_d + step)  # not yet 2x max: the high watermark stays
    b.next("id", tc.now)
    assert b.get("id") == max_d


def test_backoff_gc():
    tc = FakeClock()
    step, max_d = 1.0, 5.0
    b = Backoff(tc, step, max_d)
    for _ in range(int(max_d / step) + 1):
        tc.step(step)
        b.next("id", tc.now)
    tc.step(max_d + step)
    b.gc()
    assert "id" in b.per_item_backoff
    tc.step(max_d + step)
    b.gc()
    assert "id" not in b.per_item_backoff


@pytest.mark.parametrize(
    "cases",
    [
        [
            (0, False, 0), (1, False, 1), (2, True, 2), (3, False, 2), (4, True, 4), (5, True, 4),
            (6, True, 4), (7, False, 4), (8, True, 8), (9, True, 8), (10, True, 8), (11, True, 8),
            (12, True, 8), (13, True, 8), (14, True, 8), (15, False, 8), (16, True, 10), (20, True, 10),
            (24, True, 10), (25, False, 10), (26, True, 10),
        ]
    ],
)
def test_is_in_back_off_since_update(cases):
    start = 1000.0
    tc = FakeClock(start)
    b = Backoff(tc, 1.0, 10.0)
    for tick, in_back_off, value in cases:
        tc.now = start + tick
        assert b.is_in_back_off_since_update("id", tc.now) is in_back_off, tick
        if in_back_off:
            assert b.get("id") == value, tick
        else:
            b.next("id", tc.now)


def test_backoff_with_jitter_stays_in_bounds_and_is_seeded():
    def delays(seed):
        tc = FakeClock()
        b = Backoff(tc, 1.0, 100.0, max_jitter_factor=0.5, rng=random.Random(seed))
        out = []
        for _ in range(6):
            prev = b.get("id")
            b.next("id", tc.now)
            d = b.get("id")
            lo = 1.0 if prev == 0 else min(prev * 2, 100.0)
            hi = 1.5 if prev == 0 else min(prev * 2 + 0.5 * prev, 100.0)
            assert lo <= d <= hi
            out.append(d)
        return out

    assert delays(7) == delays(7)
    assert delays(7) != delays(8)
    with pytest.raises(ValueError):
        Backoff(FakeClock(), 1, 2, max_jitter_factor=0.1)


def test_go_duration():
    assert [go_duration(s) for s in (10, 20, 40, 80, 160, 300, 180.1)] == [
        "10s", "20s", "40s", "1m20s", "2m40s", "5m0s", "3m0.1s"]


def _crash_loop(clock, b, run_seconds, restarts):
    """Run a container that exits after run_seconds; return the back-off waits."""
    waits = []
    key_hash = 7
    do_back_off(b, POD, "app", key_hash, None)
    for _ in range(restarts):
        clock.step(run_seconds)
        finished = clock.now
        wait = 0.0
        while do_back_off(b, POD, "app", key_hash, finished).in_back_off:
            clock.step(1.0)
            wait += 1.0
        waits.append(wait)
    return waits


def test_crash_loop_back_off_doubles_to_five_minutes():
    clock = FakeClock()
    b = new_crash_loop_back_off(clock)
    waits = _crash_loop(clock, b, run_seconds=1.0, restarts=8)
    # the first exit restarts at once, then 10 s doubling to the 300 s cap
    assert waits == [0, 10, 20, 40, 80, 160, 300, 300]


def test_do_back_off_message_reason_and_event():
    clock = FakeClock()
    b = new_crash_loop_back_off(clock)
    assert _crash_loop(clock, b, run_seconds=1.0, restarts=3) == [0, 10, 20]  # window now 40 s
    clock.step(1.0)
    finished = clock.now
    clock.step(1)
    r = do_back_off(b, POD, "app", 7, finished)
    assert r.in_back_off and r.reason == CRASH_LOOP_BACK_OFF
    assert r.message == "back-off 40s restarting failed container=app pod=web_default(u-1)"
    assert r.event == {
        "type": "Warning",
        "reason": "BackOff",
        "message": "Back-off restarting failed container app in pod web_default(u-1)",
    }


def test_do_back_off_no_exited_container_is_never_backed_off():
    b = new_crash_loop_back_off(FakeClock())
    assert do_back_off(b, POD, "app", 1, None).in_back_off is False
    assert b.per_item_backoff == {}


def test_crash_loop_back_off_resets_after_ten_minutes_of_running():
    clock = FakeClock()
    b = new_crash_loop_back_off(clock)
    _crash_loop(clock, b, run_seconds=1.0, restarts=6)
    key = get_backoff_key(POD, "app", 7)
    assert b.get(key) == 300
    # runs 601 s after its last start: the entry expires and starts over at 10 s
    clock.step(601)
    finished = clock.now
    assert not do_back_off(b, POD, "app", 7, finished).in_back_off
    assert b.get(key) == 10
    # ... while a run of exactly 600 s keeps the 5 minute window (strictly greater)
    clock2 = FakeClock()
    b2 = new_crash_loop_back_off(clock2)
    _crash_loop(clock2, b2, run_seconds=1.0, restarts=6)
    clock2.step(600)
    do_back_off(b2, POD, "app", 7, clock2.now)
    assert b2.get(key) == 300


def test_changed_container_hash_starts_a_fresh_back_off():
    clock = FakeClock()
    b = new_crash_loop_back_off(clock)
    _crash_loop(clock, b, run_seconds=1.0, restarts=4)
    clock.step(1)
    assert do_back_off(b, POD, "app", 7, clock.now).in_back_off
    assert not do_back_off(b, POD, "app", 8, clock.now).in_back_off
    assert get_backoff_key(POD, "app", 8) == "web_default_u-1_app_8"


def test_image_pull_back_off_sequence():
    clock = FakeClock()
    m = ImagePullBackOff(clock)
    image = "nginx:doesnotexist"
    err = 'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:doesnotexist"'
    attempts = []
    for _ in range(120):
        r = m.before_pull("u-1", image)
        if r.pull:
            assert r.events[0]["reason"] == "Pulling"
            assert r.events[0]["message"] == 'Pulling image "nginx:doesnotexist"'
            f = m.pull_failed("u-1", image, err)
            assert f.reason == ERR_IMAGE_PULL and f.message == err
            assert f.events[0] == {"type": "Warning", "reason": "Failed",
                                   "message": f'Failed to pull image "nginx:doesnotexist": {err}'}
            attempts.append(clock.now)
        else:
            assert r.reason == IMAGE_PULL_BACK_OFF
            assert r.message == f'Back-off pulling image "nginx:doesnotexist": ErrImagePull: {err}'
            assert r.events[0]["reason"] == "BackOff" and r.events[0]["type"] == "Normal"
        clock.step(1)
    gaps = [b - a for a, b in zip(attempts, attempts[1:])]
    assert gaps == [10, 20, 40]
    # another pod pulling the same image is not held back
    assert m.before_pull("u-2", image).pull


def test_image_pull_success_gc():
    clock = FakeClock()
    m = ImagePullBackOff(clock)
    m.before_pull("u-1", "a:1")
    m.pull_failed("u-1", "a:1", "boom")
    clock.step(601)
    m.pull_succeeded()
    assert m.back_off.per_item_backoff == {}


def test_eval_cri_pull_err():
    assert eval_cri_pull_err("x:1", "SignatureValidationFailed: bad sig") == (
        "image pull failed for x:1 because the signature validation failed: bad sig",
        "SignatureValidationFailed",
    )
    assert eval_cri_pull_err("x:1", "RegistryUnavailable")[0] == (
        "image pull failed for x:1 because the registry is unavailable")
