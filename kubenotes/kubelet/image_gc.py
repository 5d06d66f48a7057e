"""The kubelet's image garbage collector over its CRI runtime (``realImageGCManager``).

:class:`~kubenotes.kubelet.eviction_manager.ImageGCManager` holds the policy
(which unused images go first, the thresholds); this module runs it on a
node: it keeps an :class:`~kubenotes.kubelet.eviction_manager.ImageRecord`
per image the runtime holds (``detectImages``: first detection, last use by
any container, running or exited; the pinned sandbox image), removes the
chosen images with ``RemoveImage`` through the runtime, and runs the periodic
pass every ``ImageGCPeriod`` (5 min) from the kubelet's start
(``StartGarbageCollection``): when the image filesystem is at least
``imageGCHighThresholdPercent`` (85 %) full, unused images at least
``imageMinimumGCAge`` (2 min) old are removed, least recently used first, until
usage is down to ``imageGCLowThresholdPercent`` (80 %). Not reaching it records
``FreeDiskSpaceFailed`` on the Node every time, and ``ImageGCFailed`` (the
same message) when the pass failed twice in a row.

The eviction manager's node-level reclaim for ``DiskPressure``
(``DeleteUnusedImages``) uses the same records with no byte target.

Notes
-----
Simplified: ``imageMaximumGCAge`` (off by default) is left out; image records
are refreshed at each pass and each reclaim (upstream also refreshes them
every 5 min and keeps an image cache for the node status). The reclaim the
eviction manager asks for runs inside its synchronous pass, so its
``RemoveImage`` calls are traced at that instant and take no virtual time.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_gc_manager.go (GarbageCollect, DeleteUnusedImages, freeSpace, detectImages)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go (StartGarbageCollection, ImageGCPeriod)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/events/event.go (FreeDiskSpaceFailed, ImageGCFailed, InvalidDiskCapacity)
"""

from __future__ import annotations

from typing import Any, Callable, Generator

from kubenotes.cri.api import CRIError
from kubenotes.kubelet.eviction_manager import (
    FREE_DISK_SPACE_FAILED,
    IMAGE_GC_PERIOD_SECONDS,
    ImageGCManager,
    ImageGCPolicy,
    ImageRecord,
)

__all__ = ["IMAGE_GC_FAILED", "INVALID_DISK_CAPACITY", "INVALID_CAPACITY_MESSAGE", "RealImageGCManager"]

#: ``events.ImageGCFailed``: the periodic pass failed twice in a row.
IMAGE_GC_FAILED = "ImageGCFailed"
#: ``events.InvalidDiskCapacity`` and its message.
INVALID_DISK_CAPACITY = "InvalidDiskCapacity"
INVALID_CAPACITY_MESSAGE = "invalid capacity 0 on image filesystem"


def _drive(gen: Generator) -> Any:
    """Run a runtime RPC generator to its end at once (its latency timeouts are not waited for)."""
    try:
        gen.send(None)
        while True:
            gen.send(None)
    except StopIteration as stop:
        return stop.value


class RealImageGCManager:
    """Image GC of one node's CRI runtime.

    Parameters
    ----------
    env : simpy.Environment
    runtime : ContainerRuntime
        Its ``images`` store is read; images are removed with ``RemoveImage``.
    image_fs : callable() -> (int, int)
        ``(capacityBytes, availableBytes)`` of the image filesystem (the kubelet's stats summary).
    record_event : callable(event_type, reason, message)
        A Node event.
    policy : ImageGCPolicy, optional
        Upstream's defaults (85 %, 80 %, 2 min).

    Attributes
    ----------
    gc : ImageGCManager
        The records (image id -> :class:`ImageRecord`) and the policy.
    passes : list of dict
        Every periodic pass: ``time``, ``usagePercent``, ``amountToFree``, ``freed``, ``error``.
    removed : list of tuple
        ``(time, image reference, size bytes, why)``; why is ``"gc"`` or ``"reclaim"``.

    Examples
    --------
    >>> import simpy
    >>> from kubenotes.cri.runtime import ContainerRuntime
    >>> env = simpy.Environment(); rt = ContainerRuntime(env, "n1")
    >>> for ref in ("busybox:1.36", "nginx:1.27"):
    ...     _ = rt.images.add(ref)
    >>> image_fs = lambda: (200_000_000, 200_000_000 - rt.images.used_bytes())   # 91 % full
    >>> events = []
    >>> gc = RealImageGCManager(env, rt, image_fs, lambda *e: events.append(e[1]))
    >>> env.process(gc.run()) and None
    >>> env.run(until=301)
    >>> [(p["time"], p["usagePercent"], p["freed"] > 0) for p in gc.passes]   # at 0 s the images are too young
    [(0.0, 91, False), (300.0, 91, True)]
    >>> events
    ['FreeDiskSpaceFailed']
    >>> [(t, ref.rsplit("/", 1)[-1], why) for t, ref, _, why in gc.removed]
    [(300.0, 'busybox:1.36', 'gc'), (300.0, 'nginx:1.27', 'gc')]
    """

    def __init__(self, env: Any, runtime: Any, image_fs: Callable[[], tuple[int, int]],
                 record_event: Callable[[str, str, str], None], policy: ImageGCPolicy | None = None) -> None:
        self.env = env
        self.runtime = runtime
        self.image_fs = image_fs
        self.record_event = record_event
        self.gc = ImageGCManager((), policy, self._images_in_use)
        self.gc.on_delete = self._remove
        self.passes: list[dict[str, Any]] = []
        self.removed: list[tuple[float, str, int, str]] = []
        self._why = "gc"
        self._prev_failed = False

    def _images_in_use(self) -> set[str]:
        """Image ids some container (running or exited) was created from."""
        return {c.image.id for c in self.runtime.containers.values() if c.image is not None}

    def detect_images(self, now: float) -> None:
        """``detectImages``: new images recorded at ``now``; images in use get ``last_used = now``; gone ones dropped."""
        store = self.runtime.images
        in_use = self._images_in_use()
        records = self.gc.images
        for image_id in [i for i in records if i not in store.images]:
            del records[image_id]
        for image_id, image in store.images.items():
            rec = records.get(image_id)
            if rec is None:
                rec = records[image_id] = ImageRecord(image_id, image.size_bytes, first_detected=now, last_used=0.0)
            rec.size_bytes = image.size_bytes
            rec.pinned = image_id in store.pinned
            if image_id in in_use:
                rec.last_used = now

    def _remove(self, record: ImageRecord) -> None:
        image = self.runtime.images.images.get(record.name)
        if image is None:
            return
        try:
            _drive(self.runtime.RemoveImage({"image": {"image": image.ref}}))
        except CRIError:
            return
        self.removed.append((float(self.env.now), image.ref, record.size_bytes, self._why))

    def delete_unused_images(self, now: float) -> int:
        """``DeleteUnusedImages`` (the eviction manager's reclaim): every unused image old enough; bytes freed."""
        self.detect_images(now)
        self._why = "reclaim"
        try:
            return self.gc.delete_unused_images(now)
        finally:
            self._why = "gc"

    def garbage_collect(self, now: float) -> str | None:
        """One periodic pass (``GarbageCollect``); returns the error message, or None.

        Records ``InvalidDiskCapacity`` for a zero capacity and
        ``FreeDiskSpaceFailed`` when the low threshold could not be reached.
        """
        capacity, available = self.image_fs()
        if capacity <= 0:
            self.record_event("Warning", INVALID_DISK_CAPACITY, INVALID_CAPACITY_MESSAGE)
            return INVALID_CAPACITY_MESSAGE
        self.detect_images(now)
        available = min(available, capacity)
        usage = 100 - (available * 100 // capacity)
        amount, freed, failure = self.gc.garbage_collect(capacity, available, now)
        self.passes.append({"time": now, "usagePercent": usage, "amountToFree": amount, "freed": freed,
                            "error": failure})
        if failure:
            self.record_event("Warning", FREE_DISK_SPACE_FAILED, failure)
        return failure

    def run(self) -> Generator:
        """``StartGarbageCollection``'s image loop: a pass now and every :data:`IMAGE_GC_PERIOD_SECONDS`."""
        while True:
            failure = self.garbage_collect(float(self.env.now))
            if failure is not None:
                if self._prev_failed:
                    self.record_event("Warning", IMAGE_GC_FAILED, failure)
                self._prev_failed = True
            else:
                self._prev_failed = False
            yield self.env.timeout(IMAGE_GC_PERIOD_SECONDS)
