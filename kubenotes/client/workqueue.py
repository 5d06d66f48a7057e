"""Work queues on the virtual clock: the de-duplicating queue, delays, and upstream's rate limiters.

A controller's event handlers only *add keys*; its workers take keys one at
a time. The queue has client-go's three guarantees: a key is never held by
two workers at once, a key added while queued is not queued twice, and a key
added while being processed is queued again once the worker calls
:meth:`Queue.done`. :class:`RateLimitingQueue` adds ``add_after`` and
``add_rate_limited`` with the limiter kube-controller-manager gives every
controller (:func:`default_controller_rate_limiter`).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/workqueue/queue.go (dirty, processing)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/workqueue/delaying_queue.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go
"""

from __future__ import annotations

from collections import deque
from typing import Any, Hashable

import simpy

__all__ = ["Queue", "RateLimitingQueue", "ItemExponentialFailureRateLimiter", "BucketRateLimiter",
           "MaxOfRateLimiter", "default_controller_rate_limiter", "SHUTDOWN"]


class _Shutdown:
    def __repr__(self) -> str:
        return "SHUTDOWN"


#: What :meth:`Queue.get` gives once the queue is shut down.
SHUTDOWN = _Shutdown()


class ItemExponentialFailureRateLimiter:
    """Per-item back-off: ``base × 2^failures``, capped (``workqueue.NewItemExponentialFailureRateLimiter``).

    Parameters
    ----------
    base_delay_seconds : float
        The first retry's delay (5 ms for controllers).
    max_delay_seconds : float
        The cap (1000 s for controllers).

    Examples
    --------
    >>> r = ItemExponentialFailureRateLimiter(0.005, 1000.0)
    >>> [r.when("k", 0.0) for _ in range(4)], r.num_requeues("k")
    ([0.005, 0.01, 0.02, 0.04], 4)
    >>> r.forget("k"); r.when("k", 0.0)
    0.005
    """

    def __init__(self, base_delay_seconds: float = 0.005, max_delay_seconds: float = 1000.0):
        self.base_delay_seconds = base_delay_seconds
        self.max_delay_seconds = max_delay_seconds
        self._failures: dict[Hashable, int] = {}

    def when(self, item: Hashable, now: float) -> float:
        """Delay in seconds before ``item`` is retried; counts one more failure."""
        n = self._failures.get(item, 0)
        self._failures[item] = n + 1
        if n > 60:  # 2^60 overflows any cap; upstream returns maxDelay past int64 overflow
            return self.max_delay_seconds
        return min(self.base_delay_seconds * (2 ** n), self.max_delay_seconds)

    def num_requeues(self, item: Hashable) -> int:
        return self._failures.get(item, 0)

    def forget(self, item: Hashable) -> None:
        self._failures.pop(item, None)


class BucketRateLimiter:
    """An overall token bucket: ``qps`` tokens a second, ``burst`` at most (``workqueue.BucketRateLimiter``).

    Each :meth:`when` reserves one token and returns how long to wait for it,
    on the virtual clock (``rate.Limiter.Reserve().Delay()``).

    Examples
    --------
    >>> b = BucketRateLimiter(qps=10, burst=2)
    >>> [round(b.when(i, 0.0), 3) for i in range(4)]
    [0.0, 0.0, 0.1, 0.2]
    """

    def __init__(self, qps: float = 10.0, burst: int = 100):
        self.qps = float(qps)
        self.burst = int(burst)
        self._tokens = float(burst)
        self._last = 0.0

    def when(self, item: Hashable, now: float) -> float:
        elapsed = max(0.0, now - self._last)
        self._tokens = min(float(self.burst), self._tokens + elapsed * self.qps)
        self._last = max(self._last, now)
        self._tokens -= 1.0
        if self._tokens >= 0:
            return 0.0
        return -self._tokens / self.qps

    def num_requeues(self, item: Hashable) -> int:
        return 0

    def forget(self, item: Hashable) -> None:
        pass


class MaxOfRateLimiter:
    """The longest delay any of several limiters asks for (``workqueue.NewMaxOfRateLimiter``)."""

    def __init__(self, *limiters: Any):
        self.limiters = limiters

    def when(self, item: Hashable, now: float) -> float:
        return max(lim.when(item, now) for lim in self.limiters)

    def num_requeues(self, item: Hashable) -> int:
        return max(lim.num_requeues(item) for lim in self.limiters)

    def forget(self, item: Hashable) -> None:
        for lim in self.limiters:
            lim.forget(item)


def default_controller_rate_limiter() -> MaxOfRateLimiter:
    """``workqueue.DefaultTypedControllerRateLimiter``: per-item 5 ms doubling to 1000 s, and 10 qps with a burst of 100.

    Examples
    --------
    >>> r = default_controller_rate_limiter()
    >>> r.when("a", 0.0), r.when("a", 0.0), r.num_requeues("a")
    (0.005, 0.01, 2)
    """
    return MaxOfRateLimiter(ItemExponentialFailureRateLimiter(0.005, 1000.0), BucketRateLimiter(10.0, 100))


class _GetEvent(simpy.Event):
    """A worker's pending :meth:`Queue.get`: its value is the key the worker takes when it resumes."""

    def __init__(self, queue: "Queue"):
        super().__init__(queue.env)
        self.callbacks.append(self._take)  # runs before the waiting process resumes (it adds its callback later)
        self._queue = queue

    def _take(self, _ev: simpy.Event) -> None:
        if self._value is not SHUTDOWN:  # woken by an add, not by shut_down
            self._value = self._queue._take_woken()


class Queue:
    """A FIFO of keys with client-go's de-duplication (``workqueue.Type``) on a SimPy clock.

    Parameters
    ----------
    env : simpy.Environment
    name : str
        For displays (the controller's name).

    Attributes
    ----------
    adds : int
        Keys added that were not already queued (``workqueue_adds_total``).

    Examples
    --------
    >>> import simpy
    >>> env = simpy.Environment()
    >>> q = Queue(env)
    >>> q.add("a"); q.add("b"); q.add("a"); len(q)
    2
    >>> got = q.get(); env.run(); got.value
    'a'
    >>> q.add("a"); len(q)   # "a" is being processed: it is marked dirty, queued again at done()
    1
    >>> q.done("a"); len(q), list(q.queued())
    (2, ['b', 'a'])
    """

    SHUTDOWN = SHUTDOWN

    def __init__(self, env: simpy.Environment, name: str = ""):
        self.env = env
        self.name = name
        self._queue: deque[Hashable] = deque()
        self._dirty: set[Hashable] = set()
        self._processing: set[Hashable] = set()
        self._getters: deque[simpy.Event] = deque()
        self._woken = 0  # workers woken by an add that have not run yet: each takes one queued key
        self._shutting_down = False
        self.adds = 0

    def __len__(self) -> int:
        """Keys waiting (``Len``), not counting those being processed."""
        return len(self._queue)

    def queued(self) -> list[Hashable]:
        """The waiting keys, in order."""
        return list(self._queue)

    def processing(self) -> list[Hashable]:
        """Keys a worker holds now."""
        return sorted(self._processing, key=str)

    def add(self, item: Hashable) -> None:
        """Queue ``item`` unless it is already waiting; if a worker holds it, queue it again after ``done``."""
        if self._shutting_down or item in self._dirty:
            return
        self.adds += 1
        self._dirty.add(item)
        if item in self._processing:
            return
        self._push(item)

    def _push(self, item: Hashable) -> None:
        self._queue.append(item)
        while self._getters:
            g = self._getters.popleft()
            if not g.triggered:
                self._woken += 1
                g.succeed()  # cond.Signal: the worker takes the head of the queue when it runs
                return

    def _take(self) -> Hashable:
        """Pop the head of the queue for a worker: it leaves ``dirty`` and is now being processed."""
        item = self._queue.popleft()
        self._dirty.discard(item)
        self._processing.add(item)
        return item

    def _take_woken(self) -> Hashable:
        """A woken worker now runs and takes the head (kept for it: ``len(queue) >= woken``)."""
        self._woken -= 1
        return self._take()

    def get(self) -> simpy.Event:
        """A SimPy event whose value is the next key (or :data:`SHUTDOWN`); the worker then holds the key.

        A worker waiting on an empty queue is woken by :meth:`add` and takes
        the head of the queue only when it runs (client-go's ``Get`` after
        ``cond.Wait``): adds of that key made in between, at the same virtual
        instant, find it still queued and fold into it.
        """
        if len(self._queue) > self._woken:  # a key no woken worker will take
            ev = self.env.event()
            ev.succeed(self._take())
            return ev
        if self._shutting_down:
            ev = self.env.event()
            ev.succeed(SHUTDOWN)
            return ev
        ev = _GetEvent(self)
        self._getters.append(ev)
        return ev

    def done(self, item: Hashable) -> None:
        """The worker is finished with ``item``; if it was added meanwhile, it is queued again."""
        self._processing.discard(item)
        if item in self._dirty:
            self._push(item)

    def shut_down(self) -> None:
        """Stop accepting keys; waiting workers get :data:`SHUTDOWN`."""
        self._shutting_down = True
        while self._getters:
            g = self._getters.popleft()
            if not g.triggered:
                g.succeed(SHUTDOWN)


class RateLimitingQueue(Queue):
    """:class:`Queue` plus delayed adds and rate-limited retries (``workqueue.RateLimitingInterface``).

    Parameters
    ----------
    env : simpy.Environment
    rate_limiter : object with ``when(item, now)``, ``num_requeues(item)``, ``forget(item)``
        :func:`default_controller_rate_limiter` for controllers.
    name : str

    Examples
    --------
    >>> import simpy
    >>> env = simpy.Environment()
    >>> q = RateLimitingQueue(env, default_controller_rate_limiter())
    >>> q.add_after("a", 2.0); q.add_after("a", 1.0)   # the earlier time wins
    >>> env.run(until=1.5); q.queued()
    ['a']
    """

    def __init__(self, env: simpy.Environment, rate_limiter: Any, name: str = ""):
        super().__init__(env, name)
        self.rate_limiter = rate_limiter
        self._waiting: dict[Hashable, float] = {}

    def add_after(self, item: Hashable, seconds: float) -> None:
        """Add ``item`` after ``seconds`` of virtual time (at once when ``seconds <= 0``)."""
        if self._shutting_down:
            return
        if seconds <= 0:
            self.add(item)
            return
        ready = self.env.now + seconds
        cur = self._waiting.get(item)
        if cur is not None and cur <= ready:
            return
        self._waiting[item] = ready
        t = self.env.timeout(seconds)
        t.callbacks.append(lambda _ev, item=item, ready=ready: self._ready(item, ready))

    def _ready(self, item: Hashable, ready: float) -> None:
        if self._waiting.get(item) != ready:
            return  # superseded by an earlier add_after
        del self._waiting[item]
        self.add(item)

    def waiting(self) -> dict[Hashable, float]:
        """Keys waiting for a delay, with the virtual time they become ready."""
        return dict(self._waiting)

    def add_rate_limited(self, item: Hashable) -> None:
        """Add ``item`` when the rate limiter allows (a retry after a failure)."""
        self.add_after(item, self.rate_limiter.when(item, float(self.env.now)))

    def forget(self, item: Hashable) -> None:
        """Clear ``item``'s failure count (after a successful sync)."""
        self.rate_limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return self.rate_limiter.num_requeues(item)
