"""Watch events and the per-client watch channel (``watch.Interface``) on the virtual clock.

A :class:`Watch` is what ``GET /api/v1/pods?watch=1`` hands a client: a
stream of :class:`WatchEvent` in resourceVersion order. On the model's SimPy
clock a watch is a queue plus a wake-up event: the API server appends events
when it commits a write, and a client process ``yield watch.wait()`` and then
takes everything queued with :meth:`Watch.pop_all`.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/watch/watch.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import simpy

__all__ = ["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR", "WatchEvent", "Watch"]

ADDED, MODIFIED, DELETED, BOOKMARK, ERROR = "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """One watch event (``watch.Event``).

    Attributes
    ----------
    type : str
        ``ADDED``, ``MODIFIED``, ``DELETED``, ``BOOKMARK`` or ``ERROR``.
    object : dict
        The object after the change (for ``DELETED``: its last state, with the
        deletion's resourceVersion); a ``Status`` dict for ``ERROR``. Shared
        with the store and every other watcher: never mutate it.
    """

    type: str
    object: dict

    @property
    def resource_version(self) -> str:
        return self.object.get("metadata", {}).get("resourceVersion", "")


class Watch:
    """A client's watch: queued events, a wake-up event, and ``stop``.

    Parameters
    ----------
    env : simpy.Environment
    on_stop : callable, optional
        Called once when the watch stops (the server unregisters it).

    Examples
    --------
    >>> import simpy
    >>> env = simpy.Environment()
    >>> w = Watch(env)
    >>> w.push(WatchEvent(ADDED, {"metadata": {"name": "a", "resourceVersion": "2"}}))
    >>> [e.type for e in w.pop_all()], w.pending()
    (['ADDED'], False)
    """

    __slots__ = ("env", "_events", "_wakeup", "stopped", "_on_stop", "resource", "filter", "owner")

    def __init__(self, env: simpy.Environment, on_stop: Callable[["Watch"], None] | None = None):
        self.env = env
        self._events: deque[WatchEvent] = deque()
        self._wakeup: simpy.Event | None = None
        self.stopped = False
        self._on_stop = on_stop
        self.resource: Any = None
        self.filter: Any = None
        self.owner = ""  # the watching component's name

    def push(self, event: WatchEvent) -> None:
        """Queue an event (the server calls this) and wake the waiting client."""
        if self.stopped:
            return
        self._events.append(event)
        w = self._wakeup
        if w is not None and not w.triggered:
            w.succeed()

    def pending(self) -> bool:
        """Whether events are queued."""
        return bool(self._events)

    def pop_all(self) -> list[WatchEvent]:
        """Take every queued event, oldest first."""
        out = list(self._events)
        self._events.clear()
        return out

    def wait(self) -> simpy.Event:
        """A SimPy event that fires when at least one event is queued or the watch has stopped."""
        if self._events or self.stopped:
            ev = self.env.event()
            ev.succeed()
            return ev
        if self._wakeup is None or self._wakeup.triggered:
            self._wakeup = self.env.event()
        return self._wakeup

    def stop(self) -> None:
        """End the watch (``watch.Interface.Stop``); queued events stay readable."""
        if self.stopped:
            return
        self.stopped = True
        if self._on_stop is not None:
            self._on_stop(self)
        w = self._wakeup
        if w is not None and not w.triggered:
            w.succeed()

    def __repr__(self) -> str:
        return f"Watch({self.resource}, queued={len(self._events)}, stopped={self.stopped})"
