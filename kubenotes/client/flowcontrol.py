"""client-go's client-side rate limiter on the virtual clock (``k8s.io/client-go/util/flowcontrol``).

Every client-go clientset throttles its own requests with a token bucket
(:class:`TokenBucketRateLimiter`, ``flowcontrol.NewTokenBucketRateLimiter(qps,
burst)``, built on ``golang.org/x/time/rate``): the bucket holds up to
``burst`` tokens, starts full, refills at ``qps`` tokens a second, and each
request takes one, waiting for it when the bucket is empty. The rest client
calls ``Wait`` before every request (``request.go``, ``tryThrottle``) and logs
"Waited for ... due to client-side throttling, not priority and fairness"
when that wait passed :data:`LONG_THROTTLE_LATENCY_SECONDS`.

The model's components are synchronous Python code (a controller's
Reconcile calls the API and reads the answer at once), while waiting must
happen on the SimPy clock. :func:`run_blocking` bridges the two: it runs
such code in a helper thread, strictly one at a time with the simulation,
and each :func:`sleep` inside it becomes a ``yield env.timeout(...)`` of the
SimPy process that drives it. Runs stay deterministic: exactly one thread
runs at any moment, and the order is the SimPy schedule's.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/flowcontrol/throttle.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/rest/config.go (DefaultQPS 5, DefaultBurst 10)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/rest/request.go (tryThrottle, longThrottleLatency)
golang.org/x/time/rate rate.go (Limiter.reserveN, advance)
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any, Callable, Generator

__all__ = ["DEFAULT_QPS", "DEFAULT_BURST", "LONG_THROTTLE_LATENCY_SECONDS", "TokenBucketRateLimiter",
           "run_blocking", "sleep", "in_blocking_task"]

#: client-go's ``rest.DefaultQPS``: a clientset built with QPS 0 gets 5 requests a second ...
DEFAULT_QPS = 5.0
#: ... and ``rest.DefaultBurst`` 10.
DEFAULT_BURST = 10
#: ``request.go``'s ``longThrottleLatency``: a wait longer than this is logged (and counted here).
LONG_THROTTLE_LATENCY_SECONDS = 1.0


class TokenBucketRateLimiter:
    """``flowcontrol.NewTokenBucketRateLimiter(qps, burst)`` with a virtual clock.

    Parameters
    ----------
    qps : float
        Tokens added per second (``rest.Config.QPS``); must be > 0.
    burst : int
        The bucket's size (``rest.Config.Burst``); the bucket starts full. Must be >= 1.

    Attributes
    ----------
    waits : list of float
        The delay each :meth:`reserve` handed out, in order (0 for a token taken at once).
    long_throttles : int
        How many of those waits exceeded :data:`LONG_THROTTLE_LATENCY_SECONDS`
        (each a "Waited for ... due to client-side throttling" log line upstream).

    Raises
    ------
    ValueError
        For ``qps <= 0`` or ``burst < 1`` (client-go's ``NewTokenBucketRateLimiter``
        wants both positive; a QPS of 0 in ``rest.Config`` means "use the defaults",
        and a negative one turns throttling off, which here is "no limiter at all").

    Notes
    -----
    The arithmetic is ``rate.Limiter``'s ``reserveN`` for one token: add
    ``elapsed * qps`` tokens (capped at ``burst``), take one, and if the count
    went negative the caller waits ``-tokens / qps`` seconds. Tokens may go
    negative, so concurrent callers queue up one ``1/qps`` apart. Cancelling a
    reservation (a context deadline) is not modelled: the model's requests
    have no timeout.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/flowcontrol/throttle.go
    golang.org/x/time/rate rate.go

    Examples
    --------
    >>> rl = TokenBucketRateLimiter(qps=20, burst=30)
    >>> [rl.reserve(0.0) for _ in range(30)][-1], round(rl.reserve(0.0), 3), round(rl.reserve(0.0), 3)
    (0.0, 0.05, 0.1)
    >>> rl.try_accept(0.0), rl.try_accept(10.0)
    (False, True)
    """

    def __init__(self, qps: float, burst: int):
        if isinstance(qps, bool) or not isinstance(qps, (int, float)) or qps <= 0:
            raise ValueError(f"qps must be a number > 0, got {qps!r}")
        if isinstance(burst, bool) or not isinstance(burst, int) or burst < 1:
            raise ValueError(f"burst must be an integer >= 1, got {burst!r}")
        self._qps = float(qps)
        self.burst = burst
        self._tokens = float(burst)
        self._last = 0.0
        self.waits: list[float] = []
        self.long_throttles = 0

    def qps(self) -> float:
        """``QPS()``: the refill rate."""
        return self._qps

    def _advance(self, now: float) -> float:
        """``rate.Limiter.advance``: the tokens at ``now`` (refilled since the last update, capped at burst)."""
        last = min(self._last, now)
        return min(float(self.burst), self._tokens + (now - last) * self._qps)

    def tokens(self, now: float) -> float:
        """The tokens in the bucket at virtual time ``now`` (negative: callers are queued)."""
        return self._advance(now)

    def reserve(self, now: float) -> float:
        """Take one token at ``now``; the seconds the caller must wait before it may send (``Reserve().Delay()``)."""
        tokens = self._advance(now) - 1.0
        wait = -tokens / self._qps if tokens < 0 else 0.0
        self._tokens, self._last = tokens, max(now, self._last)
        self.waits.append(wait)
        if wait > LONG_THROTTLE_LATENCY_SECONDS:
            self.long_throttles += 1
        return wait

    def try_accept(self, now: float) -> bool:
        """``TryAccept()``: take a token only if one is there now."""
        tokens = self._advance(now)
        if tokens < 1.0:
            return False
        self._tokens, self._last = tokens - 1.0, max(now, self._last)
        return True

    def wait(self, env: Any) -> float:
        """``Wait(ctx)``: reserve a token at ``env.now`` and :func:`sleep` until it is due; returns the wait."""
        delay = self.reserve(float(env.now))
        if delay > 0:
            sleep(delay)
        return delay

    def __repr__(self) -> str:
        return f"TokenBucketRateLimiter(qps={self._qps:g}, burst={self.burst})"


# ---------------------------------------------------------------- blocking code on the SimPy clock
_LOCAL = threading.local()


class _Task:
    """One call of synchronous code, run in a helper thread that hands control back and forth with SimPy."""

    def __init__(self, fn: Callable[..., Any], args: tuple):
        self.to_task = threading.Semaphore(0)
        self.to_sim = threading.Semaphore(0)
        self.message: tuple[str, Any] = ("", None)
        self.cancelled = False
        ctx = contextvars.copy_context()  # the epoch and anything else set around the clock
        self.thread = threading.Thread(target=self._main, args=(ctx, fn, args), daemon=True,
                                       name="kubenotes-blocking-task")

    def _main(self, ctx: contextvars.Context, fn: Callable[..., Any], args: tuple) -> None:
        _LOCAL.task = self
        try:
            self.message = ("done", ctx.run(fn, *args))
        except BaseException as e:  # handed to the driving process, which raises it
            self.message = ("error", e)
        finally:
            _LOCAL.task = None
            self.to_sim.release()

    def sleep(self, seconds: float) -> None:
        self.message = ("sleep", seconds)
        self.to_sim.release()
        self.to_task.acquire()
        if self.cancelled:  # the driving process was closed: unwind this thread as a closed generator unwinds
            raise GeneratorExit("the SimPy process driving this task was closed")


def in_blocking_task() -> bool:
    """Whether the calling code runs under :func:`run_blocking` (so :func:`sleep` can wait)."""
    return getattr(_LOCAL, "task", None) is not None


def sleep(seconds: float) -> bool:
    """Wait ``seconds`` on the virtual clock, from code running under :func:`run_blocking`.

    Returns
    -------
    bool
        True when it waited; False when the caller is not in a blocking task
        (code driven directly by SimPy, which cannot block): nothing happens.
    """
    task = getattr(_LOCAL, "task", None)
    if task is None or seconds <= 0:
        return False
    task.sleep(float(seconds))
    return True


def run_blocking(env: Any, fn: Callable[..., Any], *args: Any) -> Generator[Any, Any, Any]:
    """Drive ``fn(*args)`` from a SimPy process, turning each :func:`sleep` inside it into virtual time.

    Use as ``result = yield from run_blocking(env, fn, *args)``.

    Parameters
    ----------
    env : simpy.Environment
    fn : callable
        Synchronous code (a Reconcile, a scheduling cycle) that may call :func:`sleep`.

    Returns
    -------
    Any
        What ``fn`` returned.

    Raises
    ------
    Exception
        Whatever ``fn`` raised, re-raised in the driving process.

    Notes
    -----
    While ``fn`` sleeps other SimPy processes run (informers deliver events,
    other controllers work), as goroutines do while a request waits. Only one
    thread runs at any moment: SimPy waits while ``fn`` runs, and ``fn`` waits
    while SimPy runs.

    Examples
    --------
    >>> import simpy
    >>> env = simpy.Environment()
    >>> def work():
    ...     sleep(1.5)
    ...     return env.now
    >>> def proc():
    ...     t = yield from run_blocking(env, work)
    ...     out.append((t, env.now))
    >>> out = []
    >>> _ = env.process(proc()); env.run()
    >>> out
    [(1.5, 1.5)]
    """
    task = _Task(fn, args)
    task.thread.start()
    while True:
        task.to_sim.acquire()
        kind, value = task.message
        if kind == "sleep":
            try:
                yield env.timeout(value)
            except GeneratorExit:  # the process is closed (its simulation dropped): end the thread too
                task.cancelled = True
                task.to_task.release()
                task.to_sim.acquire()
                task.thread.join()
                raise
            task.to_task.release()
            continue
        task.thread.join()
        if kind == "error":
            raise value
        return value
