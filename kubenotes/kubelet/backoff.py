"""Per-key exponential back-off: CrashLoopBackOff and ImagePullBackOff.

Mirrors client-go's ``util/flowcontrol`` ``Backoff`` and the two places the
kubelet uses it:

* **CrashLoopBackOff** (``kuberuntime_manager.go`` ``doBackOff``): before it
  restarts an exited container the kubelet asks whether ``now - finishedAt``
  of the last exit is still inside the container's back-off window. If so the
  container stays ``Waiting`` with reason ``CrashLoopBackOff`` and message
  ``back-off 40s restarting failed container=app pod=web_default(uid)``, and
  a ``BackOff`` Warning event is recorded; if not, the window moves to its
  next mark (``Next``: 10 s, 20 s, 40s ... capped at 300 s) and the container
  starts. The kubelet's ``HasExpiredFunc`` resets an entry when the exit came
  more than **600 s** after the last ``Next`` (a container that ran for 10
  minutes starts over at 10 s).
* **ImagePullBackOff** (``images/image_manager.go`` ``EnsureImageExists``):
  keyed ``<podUID>_<image>``; a failed pull calls ``Next`` and returns reason
  ``ErrImagePull``; while ``now - lastUpdate`` is inside the window the pull
  is not even tried and the reason is ``ImagePullBackOff`` with message
  ``Back-off pulling image "nginx:bad": ErrImagePull: <last pull error>``.

Everything runs on a clock object with a ``now`` attribute in seconds (the
SimPy environment).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/flowcontrol/backoff.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go (initialCrashLoopBackOff, MaxCrashLoopBackOff,
imageBackOffPeriod, MaxImageBackOff, crashLoopBackOff.HasExpiredFunc)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (doBackOff, GetBackoffKey)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_manager.go (EnsureImageExists, evalCRIPullErr)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/types.go (ErrImagePull, ErrImagePullBackOff)
https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-restarts
KEP-4603 (tune CrashLoopBackOff)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from kubenotes.apiserver.protobuf import format_go_duration

__all__ = [
    "INITIAL_CRASH_LOOP_BACK_OFF_SECONDS",
    "MAX_CRASH_LOOP_BACK_OFF_SECONDS",
    "CRASH_LOOP_BACK_OFF_RESET_SECONDS",
    "IMAGE_BACK_OFF_PERIOD_SECONDS",
    "MAX_IMAGE_BACK_OFF_SECONDS",
    "CRASH_LOOP_BACK_OFF",
    "ERR_IMAGE_PULL",
    "IMAGE_PULL_BACK_OFF",
    "ERR_REGISTRY_UNAVAILABLE",
    "ERR_SIGNATURE_VALIDATION_FAILED",
    "BACK_OFF_START_CONTAINER",
    "BACK_OFF_PULL_IMAGE",
    "FAILED_TO_PULL_IMAGE",
    "PULLING_IMAGE",
    "EVENT_TYPE_NORMAL",
    "EVENT_TYPE_WARNING",
    "Backoff",
    "new_crash_loop_back_off",
    "new_image_back_off",
    "go_duration",
    "format_pod",
    "get_backoff_key",
    "BackOffResult",
    "do_back_off",
    "ImagePullResult",
    "ImagePullBackOff",
    "eval_cri_pull_err",
]

#: ``initialCrashLoopBackOff``: the first restart delay.
INITIAL_CRASH_LOOP_BACK_OFF_SECONDS = 10.0
#: ``MaxCrashLoopBackOff`` (``v1beta1.MaxContainerBackOff``): the cap.
MAX_CRASH_LOOP_BACK_OFF_SECONDS = 300.0
#: The kubelet's ``crashLoopBackOff.HasExpiredFunc``: an entry older than this restarts at 10 s.
CRASH_LOOP_BACK_OFF_RESET_SECONDS = 600.0
#: ``imageBackOffPeriod``.
IMAGE_BACK_OFF_PERIOD_SECONDS = 10.0
#: ``MaxImageBackOff``.
MAX_IMAGE_BACK_OFF_SECONDS = 300.0

#: ``kubecontainer.ErrCrashLoopBackOff``: the Waiting reason.
CRASH_LOOP_BACK_OFF = "CrashLoopBackOff"
#: ``images.ErrImagePull``: the Waiting reason after a failed pull.
ERR_IMAGE_PULL = "ErrImagePull"
#: ``images.ErrImagePullBackOff``: the Waiting reason while the pull is backed off.
IMAGE_PULL_BACK_OFF = "ImagePullBackOff"
#: ``crierrors.ErrRegistryUnavailable``.
ERR_REGISTRY_UNAVAILABLE = "RegistryUnavailable"
#: ``crierrors.ErrSignatureValidationFailed``.
ERR_SIGNATURE_VALIDATION_FAILED = "SignatureValidationFailed"

#: ``events.BackOffStartContainer``.
BACK_OFF_START_CONTAINER = "BackOff"
#: ``events.BackOffPullImage``.
BACK_OFF_PULL_IMAGE = "BackOff"
#: ``events.FailedToPullImage``.
FAILED_TO_PULL_IMAGE = "Failed"
#: ``events.PullingImage``.
PULLING_IMAGE = "Pulling"
#: ``v1.EventTypeNormal``.
EVENT_TYPE_NORMAL = "Normal"
#: ``v1.EventTypeWarning``.
EVENT_TYPE_WARNING = "Warning"


@dataclass
class _BackoffEntry:
    backoff_seconds: float
    last_update: float


class Backoff:
    """client-go's ``flowcontrol.Backoff``: one doubling delay per key.

    Parameters
    ----------
    clock : object
        Anything with a ``now`` attribute in seconds (a ``simpy.Environment``).
    initial_seconds, max_seconds : float
        ``defaultDuration`` (first delay) and ``maxDuration`` (cap).
    has_expired_func : callable, optional
        ``(event_time, last_update, max_seconds) -> bool``; when true the key
        starts over. Default: ``event_time - last_update > 2 * max_seconds``.
    max_jitter_factor : float
        ``NewBackOffWithJitter``: each ``next`` adds ``rng.random() *
        max_jitter_factor * delay``. 0 (the kubelet's choice) adds none.
    rng : random.Random, optional
        The seeded generator for the jitter (needed only when the factor > 0).

    Notes
    -----
    Same arithmetic as upstream; durations are float seconds instead of Go
    ``time.Duration`` nanoseconds, and there is no lock (SimPy is single-threaded).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/flowcontrol/backoff.go

    Examples
    --------
    >>> class Clock: now = 0.0
    >>> clock = Clock()
    >>> b = Backoff(clock, 10, 300)
    >>> delays = []
    >>> for _ in range(7):
    ...     b.next("k", clock.now)
    ...     delays.append(b.get("k"))
    >>> delays
    [10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0]
    """

    def __init__(
        self,
        clock: Any,
        initial_seconds: float,
        max_seconds: float,
        *,
        has_expired_func: Callable[[float, float, float], bool] | None = None,
        max_jitter_factor: float = 0.0,
        rng: Any = None,
    ) -> None:
        if max_jitter_factor < 0:
            raise ValueError("max_jitter_factor must be >= 0")
        if max_jitter_factor > 0 and rng is None:
            raise ValueError("a seeded rng is needed when max_jitter_factor > 0")
        self.clock = clock
        self.default_duration_seconds = float(initial_seconds)
        self.max_duration_seconds = float(max_seconds)
        self.has_expired_func = has_expired_func
        self.max_jitter_factor = float(max_jitter_factor)
        self.rng = rng
        self.per_item_backoff: dict[str, _BackoffEntry] = {}

    def _now(self) -> float:
        return float(self.clock.now)

    def _jitter(self, delay: float) -> float:
        if self.max_jitter_factor <= 0:
            return 0.0
        return self.rng.random() * self.max_jitter_factor * delay

    def _has_expired(self, event_time: float, last_update: float) -> bool:
        if self.has_expired_func is not None:
            return bool(self.has_expired_func(event_time, last_update, self.max_duration_seconds))
        return event_time - last_update > self.max_duration_seconds * 2

    def get(self, id: str) -> float:
        """The key's current delay in seconds (0 for an unknown key)."""
        entry = self.per_item_backoff.get(id)
        return entry.backoff_seconds if entry else 0.0

    def next(self, id: str, event_time: float) -> None:
        """Move the key to its next mark: start at the initial delay or double, capped.

        Parameters
        ----------
        id : str
            The key.
        event_time : float
            When the event happened (the exit's ``finishedAt`` or now); an
            entry whose ``last_update`` is expired relative to it starts over.
        """
        entry = self.per_item_backoff.get(id)
        if entry is None or self._has_expired(event_time, entry.last_update):
            entry = _BackoffEntry(self.default_duration_seconds, 0.0)
            self.per_item_backoff[id] = entry
            entry.backoff_seconds += self._jitter(entry.backoff_seconds)
        else:
            delay = entry.backoff_seconds * 2 + self._jitter(entry.backoff_seconds)
            entry.backoff_seconds = min(delay, self.max_duration_seconds)
        entry.last_update = self._now()

    def reset(self, id: str) -> None:
        """Forget the key (``Reset``)."""
        self.per_item_backoff.pop(id, None)

    delete_entry = reset

    def is_in_back_off_since(self, id: str, event_time: float) -> bool:
        """True while ``now - event_time`` is inside the key's window (CrashLoopBackOff)."""
        entry = self.per_item_backoff.get(id)
        if entry is None or self._has_expired(event_time, entry.last_update):
            return False
        return self._now() - event_time < entry.backoff_seconds

    def is_in_back_off_since_update(self, id: str, event_time: float) -> bool:
        """True while ``event_time - last_update`` is inside the window (image pulls)."""
        entry = self.per_item_backoff.get(id)
        if entry is None or self._has_expired(event_time, entry.last_update):
            return False
        return event_time - entry.last_update < entry.backoff_seconds

    def gc(self) -> None:
        """Drop entries not updated for 2x the max delay (``GC``)."""
        now = self._now()
        for id in [k for k, e in self.per_item_backoff.items() if now - e.last_update > self.max_duration_seconds * 2]:
            del self.per_item_backoff[id]


def new_crash_loop_back_off(clock: Any) -> Backoff:
    """The kubelet's container-restart back-off: 10 s doubling to 300 s, reset after 600 s.

    Examples
    --------
    >>> class Clock: now = 0.0
    >>> b = new_crash_loop_back_off(Clock())
    >>> b.has_expired_func(700.0, 0.0, 300.0), b.has_expired_func(600.0, 0.0, 300.0)
    (True, False)
    """
    return Backoff(
        clock,
        INITIAL_CRASH_LOOP_BACK_OFF_SECONDS,
        MAX_CRASH_LOOP_BACK_OFF_SECONDS,
        has_expired_func=lambda event_time, last_update, _max: event_time - last_update > CRASH_LOOP_BACK_OFF_RESET_SECONDS,
    )


def new_image_back_off(clock: Any) -> Backoff:
    """The kubelet's image-pull back-off: 10 s doubling to 300 s (default expiry 2x max)."""
    return Backoff(clock, IMAGE_BACK_OFF_PERIOD_SECONDS, MAX_IMAGE_BACK_OFF_SECONDS)


def go_duration(seconds: float) -> str:
    """Seconds as Go's ``time.Duration.String()`` (``40s``, ``5m0s``, ``3m0.1s``).

    Examples
    --------
    >>> go_duration(40), go_duration(300), go_duration(180.1), go_duration(0)
    ('40s', '5m0s', '3m0.1s', '0s')
    """
    return format_go_duration(round(seconds * 10**9))


def _meta(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return pod.get("metadata") or {}


def format_pod(pod: Mapping[str, Any]) -> str:
    """``format.Pod``: ``<name>_<namespace>(<uid>)``.

    Examples
    --------
    >>> format_pod({"metadata": {"name": "web", "namespace": "default", "uid": "u1"}})
    'web_default(u1)'
    """
    m = _meta(pod)
    return f"{m.get('name', '')}_{m.get('namespace', '')}({m.get('uid', '')})"


def get_backoff_key(pod: Mapping[str, Any], container_name: str, container_hash: Any) -> str:
    """``GetBackoffKey``: ``<pod name>_<namespace>_<uid>_<container>_<hash>``.

    A changed container spec (new hash) starts a fresh back-off.

    Examples
    --------
    >>> get_backoff_key({"metadata": {"name": "web", "namespace": "default", "uid": "u1"}}, "app", 42)
    'web_default_u1_app_42'
    """
    m = _meta(pod)
    return f"{m.get('name', '')}_{m.get('namespace', '')}_{m.get('uid', '')}_{container_name}_{container_hash}"


@dataclass(frozen=True)
class BackOffResult:
    """What ``doBackOff`` decided.

    Attributes
    ----------
    in_back_off : bool
        True: do not start the container now.
    message : str
        The Waiting message (``back-off 20s restarting failed container=...``) or "".
    reason : str or None
        ``CrashLoopBackOff`` when backed off.
    event : dict or None
        ``{"type": "Warning", "reason": "BackOff", "message": ...}`` to record on the container.
    """

    in_back_off: bool
    message: str = ""
    reason: str | None = None
    event: dict | None = None


def do_back_off(
    back_off: Backoff,
    pod: Mapping[str, Any],
    container_name: str,
    container_hash: Any,
    finished_at: float | None,
) -> BackOffResult:
    """Decide whether an exited container may be restarted now (``doBackOff``).

    Parameters
    ----------
    back_off : Backoff
        The kubelet's crash-loop back-off (:func:`new_crash_loop_back_off`).
    pod : dict
        The JSON-shaped pod (name, namespace, uid are read).
    container_name : str
    container_hash : Any
        The container spec's hash (part of the key).
    finished_at : float or None
        ``finishedAt`` of the container's latest exited instance, seconds on
        the clock; None when no instance has exited (never backed off).

    Returns
    -------
    BackOffResult
        Backed off (with message, reason and event) or not; when not, the key
        has been moved to its next mark, so the *next* exit waits longer.

    Notes
    -----
    Upstream's ``GenerateContainerRef`` and klog lines are left out.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (doBackOff)

    Examples
    --------
    >>> class Clock: now = 0.0
    >>> clock = Clock(); b = new_crash_loop_back_off(clock)
    >>> pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"}}
    >>> do_back_off(b, pod, "app", 1, finished_at=0.0).in_back_off   # first exit: restart now
    False
    >>> clock.now = 1.0   # the container crashed again at t=1
    >>> r = do_back_off(b, pod, "app", 1, finished_at=1.0)
    >>> r.in_back_off, r.reason, r.message
    (True, 'CrashLoopBackOff', 'back-off 10s restarting failed container=app pod=web_default(u1)')
    """
    if finished_at is None:
        return BackOffResult(False)
    key = get_backoff_key(pod, container_name, container_hash)
    if back_off.is_in_back_off_since(key, finished_at):
        pod_text = format_pod(pod)
        event = {
            "type": EVENT_TYPE_WARNING,
            "reason": BACK_OFF_START_CONTAINER,
            "message": f"Back-off restarting failed container {container_name} in pod {pod_text}",
        }
        message = f"back-off {go_duration(back_off.get(key))} restarting failed container={container_name} pod={pod_text}"
        return BackOffResult(True, message, CRASH_LOOP_BACK_OFF, event)
    back_off.next(key, finished_at)
    return BackOffResult(False)


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def eval_cri_pull_err(image: str, error: str) -> tuple[str, str]:
    """``evalCRIPullErr``: the Waiting (message, reason) for a failed pull.

    Parameters
    ----------
    image : str
        The image reference.
    error : str
        The runtime's error text.

    Returns
    -------
    tuple of (str, str)

    Examples
    --------
    >>> eval_cri_pull_err("nginx:bad", "rpc error: code = NotFound desc = not found")
    ('rpc error: code = NotFound desc = not found', 'ErrImagePull')
    >>> eval_cri_pull_err("nginx:1", "RegistryUnavailable: no route to host")
    ('image pull failed for nginx:1 because the registry is unavailable: no route to host', 'RegistryUnavailable')
    """
    if error.startswith(ERR_REGISTRY_UNAVAILABLE):
        rest = error[len(ERR_REGISTRY_UNAVAILABLE):]
        return f"image pull failed for {image} because the registry is unavailable{rest}", ERR_REGISTRY_UNAVAILABLE
    if error.startswith(ERR_SIGNATURE_VALIDATION_FAILED):
        rest = error[len(ERR_SIGNATURE_VALIDATION_FAILED):]
        return (
            f"image pull failed for {image} because the signature validation failed{rest}",
            ERR_SIGNATURE_VALIDATION_FAILED,
        )
    return error, ERR_IMAGE_PULL


@dataclass
class ImagePullResult:
    """One step of ``EnsureImageExists``'s back-off logic.

    Attributes
    ----------
    pull : bool
        True: go ahead and pull (call the runtime's ``PullImage``).
    message, reason : str
        The Waiting message and reason ("" when nothing to report).
    events : list of dict
        Events to record on the container (``type``, ``reason``, ``message``).
    """

    pull: bool
    message: str = ""
    reason: str = ""
    events: list = field(default_factory=list)


class ImagePullBackOff:
    """The image manager's pull back-off, keyed ``<podUID>_<image>``.

    Call :meth:`before_pull` before pulling; when it says pull, call the
    runtime, then :meth:`pull_failed` or :meth:`pull_succeeded`.

    Parameters
    ----------
    clock : object
        Anything with ``now`` in seconds.
    back_off : Backoff, optional
        Defaults to :func:`new_image_back_off`.

    Notes
    -----
    The pull policy, credentials and "already present" paths of
    ``EnsureImageExists`` belong to the kubelet model; only the back-off part is here.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_manager.go

    Examples
    --------
    >>> class Clock: now = 0.0
    >>> clock = Clock(); m = ImagePullBackOff(clock)
    >>> m.before_pull("u1", "nginx:bad").pull
    True
    >>> r = m.pull_failed("u1", "nginx:bad", "rpc error: code = NotFound desc = not found")
    >>> r.reason
    'ErrImagePull'
    >>> clock.now = 5.0
    >>> r = m.before_pull("u1", "nginx:bad")
    >>> r.pull, r.reason, r.message
    (False, 'ImagePullBackOff', 'Back-off pulling image "nginx:bad": ErrImagePull: rpc error: code = NotFound desc = not found')
    >>> clock.now = 10.0
    >>> m.before_pull("u1", "nginx:bad").pull
    True
    """

    def __init__(self, clock: Any, back_off: Backoff | None = None) -> None:
        self.clock = clock
        self.back_off = back_off or new_image_back_off(clock)
        self.prev_pull_err_msg: dict[str, str] = {}

    @staticmethod
    def key(pod_uid: str, image: str) -> str:
        """``<podUID>_<image>``."""
        return f"{pod_uid}_{image}"

    def before_pull(self, pod_uid: str, image: str) -> ImagePullResult:
        """Backed off (reason ``ImagePullBackOff``) or go ahead (a ``Pulling`` event)."""
        key = self.key(pod_uid, image)
        if self.back_off.is_in_back_off_since_update(key, self.clock.now):
            msg = f"Back-off pulling image {_go_quote(image)}"
            event = {"type": EVENT_TYPE_NORMAL, "reason": BACK_OFF_PULL_IMAGE, "message": msg}
            prev = self.prev_pull_err_msg.get(key)
            if prev is not None:
                msg = f"{msg}: {prev}"
            return ImagePullResult(False, msg, IMAGE_PULL_BACK_OFF, [event])
        self.prev_pull_err_msg.pop(key, None)
        event = {"type": EVENT_TYPE_NORMAL, "reason": PULLING_IMAGE, "message": f"Pulling image {_go_quote(image)}"}
        return ImagePullResult(True, "", "", [event])

    def pull_failed(self, pod_uid: str, image: str, error: str) -> ImagePullResult:
        """Record a failed pull: ``Failed`` event, ``Next``, reason ``ErrImagePull`` (or the CRI error)."""
        key = self.key(pod_uid, image)
        event = {
            "type": EVENT_TYPE_WARNING,
            "reason": FAILED_TO_PULL_IMAGE,
            "message": f"Failed to pull image {_go_quote(image)}: {error}",
        }
        self.back_off.next(key, self.clock.now)
        msg, reason = eval_cri_pull_err(image, error)
        self.prev_pull_err_msg[key] = f"{reason}: {msg}"
        return ImagePullResult(False, msg, reason, [event])

    def pull_succeeded(self) -> None:
        """A pull succeeded: garbage-collect old entries (``backOff.GC``)."""
        self.back_off.gc()
