"""PrioritySort: the default QueueSort plugin.

Mirrors ``pkg/scheduler/framework/plugins/queuesort``: the active queue pops
the pod with the highest ``spec.priority`` first and, among equal priorities,
the one queued earliest.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/queuesort/priority_sort.go

Examples
--------
>>> from kubenotes.scheduler.testing import make_pod
>>> from kubenotes.scheduler.framework.node_info import PodInfo
>>> pl = new(None, None)
>>> hi, lo = PodInfo(make_pod("hi", priority=10)), PodInfo(make_pod("lo", priority=1))
>>> pl.less(hi, lo), pl.less(lo, hi)
(True, False)
"""

from __future__ import annotations

from typing import Any

from kubenotes.scheduler.plugins.names import PRIORITY_SORT

__all__ = ["NAME", "PrioritySort", "new"]

NAME = PRIORITY_SORT


def _priority_and_timestamp(q: Any) -> tuple[int, float]:
    pi = getattr(q, "pod_info", q)
    ts = getattr(q, "timestamp", None)
    if ts is None:
        ts = pi.creation_seconds
    return pi.priority, ts


class PrioritySort:
    """Order pods by priority (descending), then by queue timestamp (ascending).

    Notes
    -----
    ``less`` accepts a :class:`~kubenotes.scheduler.queue.QueuedPodInfo`
    (``pod_info`` and ``timestamp`` in seconds) or a bare ``PodInfo``, whose
    creation time then stands in for the queue timestamp.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/queuesort/priority_sort.go
    """

    def name(self) -> str:
        """``"PrioritySort"``."""
        return NAME

    def less(self, a: Any, b: Any) -> bool:
        """True when ``a`` should be popped before ``b``.

        Parameters
        ----------
        a, b : QueuedPodInfo or PodInfo

        Returns
        -------
        bool
            ``p(a) > p(b) or (p(a) == p(b) and timestamp(a) < timestamp(b))``.
        """
        p1, t1 = _priority_and_timestamp(a)
        p2, t2 = _priority_and_timestamp(b)
        return p1 > p2 or (p1 == p2 and t1 < t2)

    def sort_key(self, q: Any) -> tuple[int, float]:
        """``(-priority, timestamp)``: ``less(a, b)`` exactly when ``sort_key(a) < sort_key(b)`` (kubenotes only).

        Examples
        --------
        >>> from kubenotes.scheduler.framework.node_info import PodInfo
        >>> from kubenotes.scheduler.testing import make_pod
        >>> a, b = PodInfo(make_pod("a", priority=5)), PodInfo(make_pod("b", priority=1))
        >>> PrioritySort().sort_key(a) < PrioritySort().sort_key(b), PrioritySort().less(a, b)
        (True, True)
        """
        p, t = _priority_and_timestamp(q)
        return -p, t


def new(args: dict | None, handle: Any) -> PrioritySort:
    """Build PrioritySort; it takes no args.

    Parameters
    ----------
    args : dict or None
        Ignored.
    handle : Framework
        Ignored.

    Returns
    -------
    PrioritySort
    """
    return PrioritySort()
