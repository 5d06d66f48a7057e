"""The kubelet's eviction manager as a loop on the virtual clock, and the image GC that frees disk first.

Mirrors ``pkg/kubelet/eviction`` (eviction_manager.go ``managerImpl``:
``synchronize``, ``reclaimNodeLevelResources``, ``evictPod``, ``Start``,
``waitForPodsCleanup``) and the part of ``pkg/kubelet/images``
(image_gc_manager.go) the eviction manager calls. The helpers it composes
(signals, thresholds, node conditions, rankings, the Evicted message) live in
:mod:`kubenotes.kubelet.eviction`; this module adds the *state over time*:

* every ``evictionMonitoringPeriod`` (10 s) :meth:`EvictionManager.synchronize`
  observes the signals from a Summary-API-shaped usage source, decides which
  thresholds are met (soft ones only after their grace period), keeps a
  pressure condition for ``evictionPressureTransitionPeriod`` (5 min) after
  its last sighting, first tries node-level reclaim (container GC, then
  ``DeleteUnusedImages``) for disk signals, and otherwise evicts **at most one
  pod** per round, the first that upstream's ranking puts first and that is
  not critical;
* after an eviction the loop does not sleep: it polls every second (up to
  30 s) until the pod is cleaned up, then synchronizes again at once;
* :class:`ImageGCManager` is the kubelet's periodic image garbage collector
  (every 5 min: above ``imageGCHighThresholdPercent`` 85 % it frees the least
  recently used unused images down to ``imageGCLowThresholdPercent`` 80 %).

The manager talks to the rest of the kubelet only through
:class:`EvictionAdapter` (active pods, the stats summary, node-level reclaim,
pod termination, events). The kubelet model drives it
(:class:`kubenotes.kubelet.kubelet.KubeletEvictionAdapter`): that is the one
path ``python -m kubenotes simulate`` and the chapters' ``data/qos/`` runs take.
:class:`NodeUsage` and :func:`run_eviction_scenario` are a self-contained
adapter and clock for testing the manager alone, in the role of upstream's
``eviction_manager_test.go`` fakes.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go (thresholdsUpdatedStats, buildSignalToNodeReclaimFuncs)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager_test.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_gc_manager.go (GarbageCollect, DeleteUnusedImages, freeSpace)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/apis/config/v1beta1/defaults.go (imageGC*, evictionPressureTransitionPeriod)
https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from kubenotes.kubelet.eviction import (
    DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD_SECONDS,
    EVICTION_MONITORING_PERIOD_SECONDS,
    IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
    NODE_DISK_PRESSURE,
    NODE_MEMORY_PRESSURE,
    NODE_PID_PRESSURE,
    REASON,
    SIGNAL_IMAGE_FS_AVAILABLE,
    SIGNAL_IMAGE_FS_INODES_FREE,
    SIGNAL_NODE_FS_AVAILABLE,
    SIGNAL_NODE_FS_INODES_FREE,
    SignalObservation,
    Threshold,
    admit_pod,
    can_evict,
    eviction_message,
    evicted_pod_status,
    get_reclaimable_threshold,
    get_threshold_quantity,
    has_node_condition,
    is_hard_eviction_threshold,
    make_signal_observations,
    merge_thresholds,
    node_conditions,
    node_conditions_last_observed_at,
    node_conditions_observed_since,
    signal_to_rank_func,
    sort_by_eviction_priority,
    thresholds_first_observed_at,
    thresholds_met,
    thresholds_met_grace_period,
)

__all__ = [
    "POD_CLEANUP_TIMEOUT_SECONDS",
    "POD_CLEANUP_POLL_FREQ_SECONDS",
    "IMAGE_GC_HIGH_THRESHOLD_PERCENT",
    "IMAGE_GC_LOW_THRESHOLD_PERCENT",
    "IMAGE_MINIMUM_GC_AGE_SECONDS",
    "IMAGE_GC_PERIOD_SECONDS",
    "EVICTION_THRESHOLD_MET",
    "ATTEMPTING_TO_RECLAIM_FMT",
    "FREE_DISK_SPACE_FAILED",
    "FREE_DISK_SPACE_FAILED_FMT",
    "CONTAINER_GC",
    "IMAGE_GC",
    "EvictionConfig",
    "EvictionAdapter",
    "SyncResult",
    "EvictionManager",
    "thresholds_updated_stats",
    "build_signal_to_node_reclaim_funcs",
    "ImageRecord",
    "ImageGCPolicy",
    "ImageGCManager",
    "NodeUsage",
    "apply_usage_action",
    "run_eviction_scenario",
]

#: ``podCleanupTimeout``: how long the loop waits for an evicted pod to be cleaned up.
POD_CLEANUP_TIMEOUT_SECONDS = 30.0
#: ``podCleanupPollFreq``.
POD_CLEANUP_POLL_FREQ_SECONDS = 1.0
#: ``imageGCHighThresholdPercent`` default: image GC starts at this disk usage.
IMAGE_GC_HIGH_THRESHOLD_PERCENT = 85
#: ``imageGCLowThresholdPercent`` default: image GC frees down to this disk usage.
IMAGE_GC_LOW_THRESHOLD_PERCENT = 80
#: ``imageMinimumGCAge`` default (2m): younger unused images are kept.
IMAGE_MINIMUM_GC_AGE_SECONDS = 120.0
#: ``ImageGCPeriod`` in kubelet.go: how often the image GC runs on its own.
IMAGE_GC_PERIOD_SECONDS = 300.0
#: Node Event reason when a threshold drives eviction (eviction_manager.go).
EVICTION_THRESHOLD_MET = "EvictionThresholdMet"
#: Its message.
ATTEMPTING_TO_RECLAIM_FMT = "Attempting to reclaim {}"
#: ``events.FreeDiskSpaceFailed``: image GC could not reach the low threshold.
FREE_DISK_SPACE_FAILED = "FreeDiskSpaceFailed"
#: Its message (image_gc_manager.go ``GarbageCollect``).
FREE_DISK_SPACE_FAILED_FMT = (
    "Failed to garbage collect required amount of images. "
    "Attempted to free {} bytes, but only found {} bytes eligible to free."
)
#: Names of the node-level reclaim functions in traces.
CONTAINER_GC = "DeleteAllUnusedContainers"
IMAGE_GC = "DeleteUnusedImages"


@dataclass(frozen=True)
class EvictionConfig:
    """The eviction manager's configuration (``eviction.Config``).

    Parameters
    ----------
    thresholds : tuple of Threshold
        From :func:`~kubenotes.kubelet.eviction.parse_threshold_config`
        (empty: the manager never evicts).
    pressure_transition_period_seconds : float
        ``evictionPressureTransitionPeriod`` (default 300 s).
    max_pod_grace_period_seconds : int
        ``evictionMaxPodGracePeriod``: the grace period of soft evictions, in seconds.
    monitoring_interval_seconds : float
        ``evictionMonitoringPeriod`` (10 s; the kubelet's housekeeping).

    Returns
    -------
    EvictionConfig
        A frozen record holding these four fields as attributes of the same names.

    Raises
    ------
    TypeError
        For an unknown keyword (the dataclass constructor); the values are not
        checked. Assigning to a field raises ``dataclasses.FrozenInstanceError``.

    See Also
    --------
    run_eviction_scenario : runs a manager with it.
    kubenotes.kubelet.kubelet.KubeletConfiguration : where the kubelet's values come from.

    Notes
    -----
    Upstream's ``Config`` also carries ``PodCgroupRoot`` and
    ``KernelMemcgNotification``; the model has no memcg notifications (it
    only polls every ``monitoring_interval_seconds``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/types.go (Config)

    Examples
    --------
    >>> from kubenotes.kubelet.eviction import parse_threshold_config
    >>> cfg = EvictionConfig(tuple(parse_threshold_config(eviction_hard={"memory.available": "500Mi"})))
    >>> [(t.signal, t.operator, str(t.value.quantity)) for t in cfg.thresholds]
    [('memory.available', 'LessThan', '500Mi')]
    >>> cfg.pressure_transition_period_seconds, cfg.monitoring_interval_seconds
    (300.0, 10.0)
    """

    thresholds: tuple[Threshold, ...] = ()
    pressure_transition_period_seconds: float = DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD_SECONDS
    max_pod_grace_period_seconds: int = 0
    monitoring_interval_seconds: float = EVICTION_MONITORING_PERIOD_SECONDS


class EvictionAdapter(Protocol):
    """What the eviction manager needs from the kubelet (upstream's injected interfaces).

    ``ActivePodsFunc``, ``stats.SummaryProvider``, ``DiskInfoProvider``,
    ``ImageGC``/``ContainerGC``, ``PodTerminator``, ``PodCleanedUpFunc`` and
    the node's ``EventRecorder``, as methods of one object.
    """

    def active_pods(self, now: float) -> list[dict[str, Any]]:
        """Pods admitted and not terminated (JSON-shaped, with ``metadata.uid``)."""

    def summary(self, now: float) -> dict[str, Any]:
        """``/stats/summary``: ``{"node": NodeStats, "pods": [PodStats with "podRef": {"uid"}]}``."""

    def has_dedicated_image_fs(self) -> bool:
        """Whether images live on their own filesystem."""

    def delete_all_unused_containers(self, now: float) -> int:
        """Container GC; returns bytes freed."""

    def delete_unused_images(self, now: float) -> int:
        """Image GC of every unused image; returns bytes freed."""

    def terminate_pod(self, pod: Mapping[str, Any], grace_period_seconds: int, status: Mapping[str, Any], now: float) -> None:
        """``TerminatePodAbnormallyAndWait``: stop the pod and set its status."""

    def pod_cleaned_up(self, pod: Mapping[str, Any], now: float) -> bool:
        """Whether the pod's containers and volumes are gone."""

    def record_event(self, involved: str, event_type: str, reason: str, message: str,
                     annotations: Mapping[str, str] | None = None) -> None:
        """Record an Event about the node (``Node/<name>``) or a pod (``ns/name``)."""


@dataclass
class SyncResult:
    """One round of :meth:`EvictionManager.synchronize`, as a timeline entry.

    Attributes
    ----------
    time : float
        Virtual seconds.
    observations : dict[str, tuple[int, int]]
        Signal -> ``(available, capacity)`` as integers (bytes, inodes, PIDs).
    thresholds_met : list of str
        ``signal<value`` of every threshold met ignoring grace periods (or not
        yet resolved by its minimum reclaim).
    thresholds_grace_met : list of str
        The ones whose grace period has passed: these drive reclaim.
    node_conditions : list of str
        Pressure conditions reported (held for the transition period).
    resource_to_reclaim : str or None
    reclaimed : list of (str, int)
        Node-level reclaim functions run and the bytes each freed.
    reclaim_sufficient : bool
        Node-level reclaim brought every threshold (plus min-reclaim) back.
    ranking : list of str
        Pod names in eviction order (first is the candidate).
    evicted : str or None
        ``namespace/name`` of the pod evicted this round.
    message : str
        Its Evicted message.
    grace_period_seconds : int or None
        The termination grace period used.
    pod_memory_bytes : dict[str, int]
        Pod name -> working set in the summary of this round (a trace for
        plots; upstream only logs it).
    """

    time: float
    observations: dict[str, tuple[int, int]] = field(default_factory=dict)
    thresholds_met: list[str] = field(default_factory=list)
    thresholds_grace_met: list[str] = field(default_factory=list)
    node_conditions: list[str] = field(default_factory=list)
    resource_to_reclaim: str | None = None
    reclaimed: list[tuple[str, int]] = field(default_factory=list)
    reclaim_sufficient: bool = False
    ranking: list[str] = field(default_factory=list)
    evicted: str | None = None
    message: str = ""
    grace_period_seconds: int | None = None
    pod_memory_bytes: dict[str, int] = field(default_factory=dict)


def thresholds_updated_stats(
    thresholds: Iterable[Threshold],
    observations: Mapping[str, SignalObservation],
    last_observations: Mapping[str, SignalObservation],
) -> list[Threshold]:
    """Thresholds whose signal was observed anew since the last round (``thresholdsUpdatedStats``).

    A threshold without an observation is dropped; one whose stats are no
    newer than the last round's (same observation time) is dropped too, so a
    stale summary cannot evict twice for the same data.

    Examples
    --------
    >>> from kubenotes.kubelet.eviction import parse_threshold_config
    >>> t, = parse_threshold_config(eviction_hard={"memory.available": "100Mi"})
    >>> obs = make_signal_observations({"memory": {"availableBytes": 1, "workingSetBytes": 1}}, now=10.0)
    >>> len(thresholds_updated_stats([t], obs, {})), len(thresholds_updated_stats([t], obs, obs))
    (1, 0)
    """
    out = []
    for t in thresholds:
        observed = observations.get(t.signal)
        if observed is None:
            continue
        last = last_observations.get(t.signal)
        if last is None or observed.time > last.time:
            out.append(t)
    return out


def build_signal_to_node_reclaim_funcs(with_image_fs: bool) -> dict[str, list[str]]:
    """Which node-level reclaim runs for each disk signal (``buildSignalToNodeReclaimFuncs``).

    Without a dedicated image filesystem nodefs and imagefs signals (one
    device) run container GC then image GC; with one, nodefs has nothing to reclaim at node level and the
    imagefs signals run both. Memory and PID signals have none.

    Examples
    --------
    >>> build_signal_to_node_reclaim_funcs(False)["nodefs.available"]
    ['DeleteAllUnusedContainers', 'DeleteUnusedImages']
    >>> build_signal_to_node_reclaim_funcs(False)["imagefs.available"]
    ['DeleteAllUnusedContainers', 'DeleteUnusedImages']
    >>> build_signal_to_node_reclaim_funcs(True)["nodefs.available"], build_signal_to_node_reclaim_funcs(True)["imagefs.available"]
    ([], ['DeleteAllUnusedContainers', 'DeleteUnusedImages'])
    """
    both = [CONTAINER_GC, IMAGE_GC]
    if with_image_fs:
        return {
            SIGNAL_NODE_FS_AVAILABLE: [], SIGNAL_NODE_FS_INODES_FREE: [],
            SIGNAL_IMAGE_FS_AVAILABLE: list(both), SIGNAL_IMAGE_FS_INODES_FREE: list(both),
        }
    # one device: nodefs and imagefs signals share the reclaim functions
    return {s: list(both) for s in (SIGNAL_NODE_FS_AVAILABLE, SIGNAL_NODE_FS_INODES_FREE,
                                    SIGNAL_IMAGE_FS_AVAILABLE, SIGNAL_IMAGE_FS_INODES_FREE)}


def _threshold_text(t: Threshold, observations: Mapping[str, SignalObservation]) -> str:
    obs = observations.get(t.signal)
    amount = get_threshold_quantity(t.value, obs.capacity) if obs is not None else t.value
    text = f"{t.signal}<{amount}"
    if not is_hard_eviction_threshold(t):
        text += f" (soft, {t.grace_period_seconds:g}s)"
    return text


def _pod_key(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _stats_func(summary: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], Any]:
    by_uid = {((p.get("podRef") or {}).get("uid")): p for p in summary.get("pods") or ()}
    return lambda pod: by_uid.get((pod.get("metadata") or {}).get("uid"))


class EvictionManager:
    """The kubelet's eviction manager (``managerImpl``) with its state between rounds.

    Parameters
    ----------
    config : EvictionConfig
    adapter : EvictionAdapter
        The kubelet side: pods, stats, reclaim, termination, events.
    node_name : str
        For the node's Events (``Node/<name>``).

    Attributes
    ----------
    node_conditions : list of str
        Conditions reported now (``MemoryPressure``...).
    timeline : list of SyncResult
        Every round so far.

    Notes
    -----
    Simplified: no kernel memcg threshold notifiers (the loop's 10 s period is
    the only trigger), no local-storage limit evictions (emptyDir
    ``sizeLimit``, container ephemeral-storage limits), no split
    containerfs, and the grace period of a soft eviction is
    ``evictionMaxPodGracePeriod`` as the manager passes it (the pod workers'
    further capping by the pod's own grace period is not modelled).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager.go

    Examples
    --------
    >>> from kubenotes.kubelet.eviction import parse_threshold_config
    >>> node = NodeUsage(memory_capacity_bytes=4 * 2**30)
    >>> pod = {"metadata": {"name": "be", "uid": "be"}, "spec": {"containers": [{"name": "c"}]}}
    >>> node.add_pod(pod)
    >>> manager = EvictionManager(EvictionConfig(tuple(parse_threshold_config(
    ...     eviction_hard={"memory.available": "1Gi"}))), node)
    >>> manager.synchronize(0.0).node_conditions
    []
    >>> node.set_usage("be", "c", memory_bytes=3584 * 2**20)
    >>> r = manager.synchronize(10.0)
    >>> r.node_conditions, r.evicted
    (['MemoryPressure'], 'default/be')
    """

    def __init__(self, config: EvictionConfig, adapter: EvictionAdapter, node_name: str = "node") -> None:
        self.config = config
        self.adapter = adapter
        self.node_name = node_name
        self.thresholds: list[Threshold] = list(config.thresholds)
        self.node_conditions: list[str] = []
        self.node_conditions_last_observed_at: dict[str, float] = {}
        self.thresholds_first_observed_at: dict[Threshold, float] = {}
        self.thresholds_met: list[Threshold] = []
        self.last_observations: dict[str, SignalObservation] = {}
        self.dedicated_image_fs: bool | None = None
        self.signal_to_node_reclaim_funcs: dict[str, list[str]] = {}
        self.timeline: list[SyncResult] = []
        self._last_evicted_pod: Mapping[str, Any] | None = None

    # --- the Manager interface ---------------------------------------------------------------------

    def is_under_memory_pressure(self) -> bool:
        """``IsUnderMemoryPressure``."""
        return has_node_condition(self.node_conditions, NODE_MEMORY_PRESSURE)

    def is_under_disk_pressure(self) -> bool:
        """``IsUnderDiskPressure``."""
        return has_node_condition(self.node_conditions, NODE_DISK_PRESSURE)

    def is_under_pid_pressure(self) -> bool:
        """``IsUnderPIDPressure``."""
        return has_node_condition(self.node_conditions, NODE_PID_PRESSURE)

    def admit(self, pod: Mapping[str, Any]) -> tuple[bool, str, str]:
        """``Admit``: ``(admit, reason, message)`` for a new pod under the current conditions."""
        return admit_pod(pod, self.node_conditions)

    # --- one round ---------------------------------------------------------------------------------

    def synchronize(self, now: float) -> SyncResult:
        """One round of the control loop at virtual time ``now`` (``synchronize``).

        Returns
        -------
        SyncResult
            Also appended to :attr:`timeline`.
        """
        result = SyncResult(time=now)
        self.timeline.append(result)
        if not self.thresholds:
            return result
        if self.dedicated_image_fs is None:
            self.dedicated_image_fs = bool(self.adapter.has_dedicated_image_fs())
            self.signal_to_node_reclaim_funcs = build_signal_to_node_reclaim_funcs(self.dedicated_image_fs)
        active_pods = list(self.adapter.active_pods(now))
        summary = self.adapter.summary(now)
        observations = make_signal_observations(summary.get("node") or {}, summary.get("time", now))
        stats = _stats_func(summary)
        result.observations = {s: (int(o.available.value), int(o.capacity.value)) for s, o in observations.items()}
        result.pod_memory_bytes = {
            (ps.get("podRef") or {}).get("name") or (ps.get("podRef") or {}).get("uid"):
                sum(((c.get("memory") or {}).get("workingSetBytes") or 0) for c in ps.get("containers") or ())
            for ps in summary.get("pods") or ()}

        met = thresholds_met(self.thresholds, observations, False)
        if self.thresholds_met:
            met = merge_thresholds(met, thresholds_met(self.thresholds_met, observations, True))
        result.thresholds_met = [_threshold_text(t, observations) for t in met]
        first_observed = thresholds_first_observed_at(met, self.thresholds_first_observed_at, now)
        conditions = node_conditions(met)
        last_observed = node_conditions_last_observed_at(conditions, self.node_conditions_last_observed_at, now)
        conditions = node_conditions_observed_since(
            last_observed, self.config.pressure_transition_period_seconds, now)
        grace_met = thresholds_met_grace_period(first_observed, now)

        self.node_conditions = conditions
        self.thresholds_first_observed_at = first_observed
        self.node_conditions_last_observed_at = last_observed
        self.thresholds_met = grace_met
        result.node_conditions = list(conditions)
        result.thresholds_grace_met = [_threshold_text(t, observations) for t in grace_met]

        updated = thresholds_updated_stats(grace_met, observations, self.last_observations)
        self.last_observations = observations
        if not updated:
            return result
        found = get_reclaimable_threshold(sort_by_eviction_priority(updated))
        if found is None:
            return result
        threshold, resource = found
        result.resource_to_reclaim = resource
        self.adapter.record_event(f"Node/{self.node_name}", "Warning", EVICTION_THRESHOLD_MET,
                                  ATTEMPTING_TO_RECLAIM_FMT.format(resource))
        if self._reclaim_node_level_resources(threshold.signal, now, result):
            result.reclaim_sufficient = True
            return result
        if not active_pods:
            return result
        rank = signal_to_rank_func(threshold.signal, self.dedicated_image_fs)
        ranked = rank(active_pods, stats)
        result.ranking = [(p.get("metadata") or {}).get("name") for p in ranked]
        grace = IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS
        if not is_hard_eviction_threshold(threshold):
            grace = int(self.config.max_pod_grace_period_seconds)
        for pod in ranked:
            message, annotations = eviction_message(resource, pod, stats, updated, observations)
            if self._evict_pod(pod, grace, message, annotations, now):
                result.evicted = _pod_key(pod)
                self._last_evicted_pod = pod
                result.message = message
                result.grace_period_seconds = grace
                return result
        return result

    def _reclaim_node_level_resources(self, signal: str, now: float, result: SyncResult) -> bool:
        funcs = self.signal_to_node_reclaim_funcs.get(signal) or []
        for name in funcs:
            freed = (self.adapter.delete_all_unused_containers(now) if name == CONTAINER_GC
                     else self.adapter.delete_unused_images(now))
            result.reclaimed.append((name, int(freed)))
        if not funcs:
            return False
        summary = self.adapter.summary(now)
        observations = make_signal_observations(summary.get("node") or {}, summary.get("time", now))
        return not thresholds_met(self.thresholds, observations, True)

    def _evict_pod(self, pod: Mapping[str, Any], grace_period_seconds: int, message: str,
                   annotations: Mapping[str, str], now: float) -> bool:
        if not can_evict(pod):
            return False
        self.adapter.record_event(_pod_key(pod), "Warning", REASON, message, annotations)
        status = evicted_pod_status(message)
        self.adapter.terminate_pod(pod, grace_period_seconds, status, now)
        return True

    # --- the SimPy process -------------------------------------------------------------------------

    def run(self, env: Any, until: float | None = None):
        """The monitoring loop as a SimPy process (``Start``).

        After a round that evicted a pod it polls every
        :data:`POD_CLEANUP_POLL_FREQ_SECONDS` until the pod is cleaned up (at
        most :data:`POD_CLEANUP_TIMEOUT_SECONDS`) and synchronizes again at
        once; otherwise it sleeps ``monitoring_interval_seconds``.

        Parameters
        ----------
        env : simpy.Environment
        until : float, optional
            Stop after this virtual time.

        Yields
        ------
        simpy.events.Timeout
        """
        while until is None or env.now <= until:
            result = self.synchronize(env.now)
            if result.evicted is not None:
                evicted_pod = self._last_evicted_pod
                deadline = env.now + POD_CLEANUP_TIMEOUT_SECONDS
                while env.now < deadline:
                    yield env.timeout(POD_CLEANUP_POLL_FREQ_SECONDS)
                    if evicted_pod is None or self.adapter.pod_cleaned_up(evicted_pod, env.now):
                        break
            else:
                yield env.timeout(self.config.monitoring_interval_seconds)


# --- image garbage collection -----------------------------------------------------------------------------


@dataclass
class ImageRecord:
    """An image on the image filesystem (``imageRecord``).

    Parameters
    ----------
    name : str
        The image reference (``nginx:1.27``).
    size_bytes : int
    first_detected : float
        Virtual seconds when the kubelet first saw it.
    last_used : float
        Last time a container used it, in virtual seconds.
    pinned : bool
        Pinned images (the sandbox image) are never collected.

    Returns
    -------
    ImageRecord
        A mutable record with these fields as attributes (the image GC
        updates ``last_used``).

    Raises
    ------
    TypeError
        For a missing ``name``/``size_bytes`` or an unknown keyword (the
        dataclass constructor); values are not checked.

    See Also
    --------
    ImageGCManager : orders and deletes them.
    NodeUsage : counts their bytes on ``imagefs``/``nodefs``.

    Notes
    -----
    Upstream's record is keyed by image ID and also keeps the runtime
    handler; here the name is the key.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_gc_manager.go (imageRecord)

    Examples
    --------
    >>> r = ImageRecord("nginx:1.27", 70 * 2**20, first_detected=5.0)
    >>> r.size_bytes, r.last_used, r.pinned
    (73400320, 0.0, False)
    """

    name: str
    size_bytes: int
    first_detected: float = 0.0
    last_used: float = 0.0
    pinned: bool = False


@dataclass(frozen=True)
class ImageGCPolicy:
    """``ImageGCPolicy``: thresholds in percent of the image filesystem, and the minimum age."""

    high_threshold_percent: int = IMAGE_GC_HIGH_THRESHOLD_PERCENT
    low_threshold_percent: int = IMAGE_GC_LOW_THRESHOLD_PERCENT
    min_age_seconds: float = IMAGE_MINIMUM_GC_AGE_SECONDS


class ImageGCManager:
    """The kubelet's image garbage collector (``realImageGCManager``).

    Parameters
    ----------
    images : iterable of ImageRecord
    policy : ImageGCPolicy
    in_use : callable() -> set of str
        Image names used by some container now.

    Notes
    -----
    Images are ordered by last use, then first detection, as ``freeSpace``
    does; ``imageMaximumGCAge`` and the per-image runtime calls are left out.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_gc_manager.go

    Examples
    --------
    >>> gc = ImageGCManager([ImageRecord("old", 300, 0, 0), ImageRecord("new", 500, 0, 50)],
    ...                     in_use=lambda: set())
    >>> gc.free_space(400, now=1000.0)
    800
    >>> gc.free_space(1, now=1000.0)
    0
    """

    def __init__(self, images: Iterable[ImageRecord] = (), policy: ImageGCPolicy | None = None,
                 in_use: Callable[[], set[str]] | None = None) -> None:
        self.images: dict[str, ImageRecord] = {i.name: i for i in images}
        self.policy = policy or ImageGCPolicy()
        self.in_use = in_use or (lambda: set())
        self.deleted: list[tuple[float, str, int]] = []
        #: Called with each record chosen for deletion (the node's ``RemoveImage``), before it is forgotten.
        self.on_delete: Callable[[ImageRecord], None] | None = None

    def used_bytes(self) -> int:
        """Bytes all images take."""
        return sum(i.size_bytes for i in self.images.values())

    def free_space(self, bytes_to_free: int, now: float) -> int:
        """Delete unused images, least recently used first, until ``bytes_to_free`` are freed (``freeSpace``).

        Returns
        -------
        int
            Bytes freed (may be less than asked, or more: whole images go).
        """
        in_use = self.in_use()
        candidates = sorted(
            (i for i in self.images.values() if i.name not in in_use and not i.pinned),
            key=lambda i: (i.last_used, i.first_detected))
        freed = 0
        for image in candidates:
            if image.last_used >= now or now - image.first_detected < self.policy.min_age_seconds:
                continue  # used at this very pass, or too young
            if self.on_delete is not None:
                self.on_delete(image)
            del self.images[image.name]
            self.deleted.append((now, image.name, image.size_bytes))
            freed += image.size_bytes
            if freed >= bytes_to_free:
                break
        return freed

    def delete_unused_images(self, now: float) -> int:
        """``DeleteUnusedImages``: every unused image old enough (what the eviction manager calls)."""
        return self.free_space(2**63 - 1, now)

    def garbage_collect(self, capacity_bytes: int, available_bytes: int, now: float) -> tuple[int, int, str | None]:
        """The periodic pass (``GarbageCollect``): above the high threshold, free down to the low one.

        Parameters
        ----------
        capacity_bytes, available_bytes : int
            The image filesystem.
        now : float

        Returns
        -------
        (int, int, str or None)
            ``(amount_to_free, freed, failure_message)``; ``(0, 0, None)``
            below the high threshold.

        Examples
        --------
        >>> gc = ImageGCManager([ImageRecord("a", 60, 0, 0)])
        >>> gc.garbage_collect(1000, 100, now=500.0)   # 90 % used: free 1000*20/100 - 100 = 100
        (100, 60, 'Failed to garbage collect required amount of images. Attempted to free 100 bytes, but only found 60 bytes eligible to free.')
        """
        available_bytes = min(available_bytes, capacity_bytes)
        usage_percent = 100 - (available_bytes * 100 // capacity_bytes)
        if usage_percent < self.policy.high_threshold_percent:
            return 0, 0, None
        amount_to_free = capacity_bytes * (100 - self.policy.low_threshold_percent) // 100 - available_bytes
        freed = self.free_space(amount_to_free, now)
        if freed < amount_to_free:
            return amount_to_free, freed, FREE_DISK_SPACE_FAILED_FMT.format(amount_to_free, freed)
        return amount_to_free, freed, None


# --- a node whose usage a scenario sets -------------------------------------------------------------------


def _uid(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return meta.get("uid") or meta.get("name")


class NodeUsage:
    """A node's resources and its pods' usage over time: an :class:`EvictionAdapter` for scenarios.

    Memory: ``memory.available = capacity - system - sum of pod working sets``.
    Disk (one filesystem unless ``image_fs_capacity_bytes`` is given):
    ``nodefs`` holds the system's bytes, the pods' writable layers, logs and
    local volumes, the dead containers' bytes, and the images unless they
    have their own ``imagefs``. PIDs: ``pid_max`` minus system and pod processes.

    Parameters
    ----------
    memory_capacity_bytes : int
    node_fs_capacity_bytes : int
    image_fs_capacity_bytes : int, optional
        A dedicated image filesystem.
    pid_max : int
    system_memory_bytes, system_disk_bytes, system_processes : int
        What runs outside pods (the OS, the kubelet, the runtime).
    images : iterable of ImageRecord
    image_gc_policy : ImageGCPolicy, optional
    dead_container_bytes : int
        Exited containers' layers and logs that container GC can remove.

    Attributes
    ----------
    pods : dict[str, dict]
        UID -> pod (its ``status`` updated when evicted).
    events : list of tuple
        ``(time, involved, type, reason, message)``.
    image_gc : ImageGCManager

    Returns
    -------
    NodeUsage
        A node with no pods and no usage at virtual time 0; add pods with
        :meth:`add_pod` and usage with :meth:`set_usage`, read the kubelet's
        ``/stats/summary`` with :meth:`summary`.

    Raises
    ------
    TypeError
        From the constructor only for a wrong argument; it checks no value.
        Later, :meth:`set_usage` and the other per-pod methods raise
        ``KeyError`` for a pod that is not on the node.

    See Also
    --------
    run_eviction_scenario, EvictionConfig

    Notes
    -----
    Stands in for cAdvisor and the CRI stats the summary API reads: usage is
    what a scenario sets, not measured; the summary reports no inode use
    (``inodesUsed`` 0).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/server/stats/summary.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go (makeSignalObservations)

    Examples
    --------
    >>> node = NodeUsage(memory_capacity_bytes=1000, system_memory_bytes=100)
    >>> node.add_pod({"metadata": {"name": "a", "uid": "a"}, "spec": {"containers": [{"name": "c"}]}})
    >>> node.set_usage("a", "c", memory_bytes=300)
    >>> node.summary(0.0)["node"]["memory"]
    {'availableBytes': 600, 'workingSetBytes': 400}
    """

    def __init__(
        self,
        memory_capacity_bytes: int,
        node_fs_capacity_bytes: int = 100 * 2**30,
        image_fs_capacity_bytes: int | None = None,
        pid_max: int = 4194304,
        system_memory_bytes: int = 0,
        system_disk_bytes: int = 0,
        system_processes: int = 0,
        images: Iterable[ImageRecord] = (),
        image_gc_policy: ImageGCPolicy | None = None,
        dead_container_bytes: int = 0,
    ) -> None:
        self.memory_capacity_bytes = memory_capacity_bytes
        self.node_fs_capacity_bytes = node_fs_capacity_bytes
        self.image_fs_capacity_bytes = image_fs_capacity_bytes
        self.pid_max = pid_max
        self.system_memory_bytes = system_memory_bytes
        self.system_disk_bytes = system_disk_bytes
        self.system_processes = system_processes
        self.dead_container_bytes = dead_container_bytes
        self.pods: dict[str, dict[str, Any]] = {}
        self.usage: dict[str, dict[str, dict[str, int]]] = {}
        self.volume_usage: dict[str, dict[str, int]] = {}
        self.terminated_at: dict[str, float] = {}
        self.events: list[tuple[float, str, str, str, str]] = []
        self.now = 0.0
        self.image_gc = ImageGCManager(images, image_gc_policy, self._images_in_use)

    # --- scenario side -----------------------------------------------------------------------------

    def add_pod(self, pod: dict[str, Any]) -> None:
        """Admit a running pod (its ``metadata.uid`` defaults to its name)."""
        pod.setdefault("metadata", {}).setdefault("uid", pod["metadata"].get("name"))
        self.pods[_uid(pod)] = pod
        self.usage.setdefault(_uid(pod), {})

    def _find(self, name_or_uid: str) -> str:
        if name_or_uid in self.pods:
            return name_or_uid
        for uid, pod in self.pods.items():
            if (pod.get("metadata") or {}).get("name") == name_or_uid:
                return uid
        raise KeyError(f"no pod {name_or_uid!r} on the node")

    def set_usage(self, pod: str, container: str, *, memory_bytes: int | None = None,
                  disk_bytes: int | None = None, logs_bytes: int | None = None,
                  processes: int | None = None) -> None:
        """Set one container's working set, writable-layer bytes, log bytes or process count.

        Raises
        ------
        KeyError
            For an unknown pod.
        """
        c = self.usage[self._find(pod)].setdefault(container, {})
        for key, v in (("memory", memory_bytes), ("rootfs", disk_bytes), ("logs", logs_bytes), ("processes", processes)):
            if v is not None:
                c[key] = int(v)

    def set_volume_usage(self, pod: str, volume: str, used_bytes: int) -> None:
        """Set the bytes a pod's local volume (emptyDir, hostPath...) holds."""
        self.volume_usage.setdefault(self._find(pod), {})[volume] = int(used_bytes)

    def _images_in_use(self) -> set[str]:
        used = set()
        for uid, pod in self.pods.items():
            if self._running(uid, self.now):
                for c in (pod.get("spec") or {}).get("containers") or ():
                    if c.get("image"):
                        used.add(c["image"])
        return used

    def _running(self, uid: str, now: float) -> bool:
        return uid not in self.terminated_at or now < self.terminated_at[uid]

    # --- EvictionAdapter ---------------------------------------------------------------------------

    def active_pods(self, now: float) -> list[dict[str, Any]]:
        """Pods not yet told to terminate."""
        return [p for uid, p in self.pods.items() if uid not in self.terminated_at]

    def _pod_bytes(self, uid: str) -> int:
        disk = sum(c.get("rootfs", 0) + c.get("logs", 0) for c in self.usage.get(uid, {}).values())
        return disk + sum(self.volume_usage.get(uid, {}).values())

    def summary(self, now: float) -> dict[str, Any]:
        """The Summary API view at ``now``: terminated pods' usage is gone once their grace period ends."""
        self.now = now
        running = [uid for uid in self.pods if self._running(uid, now)]
        pod_memory = sum(c.get("memory", 0) for uid in running for c in self.usage.get(uid, {}).values())
        pod_disk = sum(self._pod_bytes(uid) for uid in running)
        pod_procs = sum(c.get("processes", 0) for uid in running for c in self.usage.get(uid, {}).values())
        working_set = self.system_memory_bytes + pod_memory
        node_used = self.system_disk_bytes + pod_disk + self.dead_container_bytes
        images = self.image_gc.used_bytes()
        node: dict[str, Any] = {
            "memory": {"availableBytes": max(self.memory_capacity_bytes - working_set, 0),
                       "workingSetBytes": working_set},
            "rlimit": {"maxpid": self.pid_max, "curproc": self.system_processes + pod_procs},
        }
        if self.image_fs_capacity_bytes is None:
            node_used += images
        else:
            node["runtime"] = {"imageFs": {"capacityBytes": self.image_fs_capacity_bytes,
                                           "availableBytes": max(self.image_fs_capacity_bytes - images, 0)}}
        node["fs"] = {"capacityBytes": self.node_fs_capacity_bytes,
                      "availableBytes": max(self.node_fs_capacity_bytes - node_used, 0)}
        if self.image_fs_capacity_bytes is None:
            node["runtime"] = {"imageFs": dict(node["fs"])}
        pods = []
        for uid in running:
            pod = self.pods[uid]
            containers = []
            for name, c in self.usage.get(uid, {}).items():
                containers.append({"name": name, "memory": {"workingSetBytes": c.get("memory", 0)},
                                   "rootfs": {"usedBytes": c.get("rootfs", 0), "inodesUsed": 0},
                                   "logs": {"usedBytes": c.get("logs", 0), "inodesUsed": 0}})
            pods.append({
                "podRef": {"name": pod["metadata"].get("name"), "namespace": pod["metadata"].get("namespace", "default"),
                           "uid": uid},
                "containers": containers,
                "volume": [{"name": v, "usedBytes": b, "inodesUsed": 0} for v, b in self.volume_usage.get(uid, {}).items()],
                "process_stats": {"process_count": sum(c.get("processes", 0) for c in self.usage.get(uid, {}).values())},
            })
        return {"time": now, "node": node, "pods": pods}

    def has_dedicated_image_fs(self) -> bool:
        """True when an image filesystem capacity was given."""
        return self.image_fs_capacity_bytes is not None

    def delete_all_unused_containers(self, now: float) -> int:
        """Remove every dead container's bytes."""
        freed, self.dead_container_bytes = self.dead_container_bytes, 0
        return freed

    def delete_unused_images(self, now: float) -> int:
        """Delegate to :meth:`ImageGCManager.delete_unused_images`."""
        self.now = now
        return self.image_gc.delete_unused_images(now)

    def terminate_pod(self, pod: Mapping[str, Any], grace_period_seconds: int, status: Mapping[str, Any], now: float) -> None:
        """Mark the pod Failed/Evicted; its usage stays until the grace period has passed."""
        uid = _uid(pod)
        self.terminated_at[uid] = now + grace_period_seconds
        self.pods[uid]["status"] = {**(self.pods[uid].get("status") or {}), **dict(status)}

    def pod_cleaned_up(self, pod: Mapping[str, Any], now: float) -> bool:
        """True once the pod's grace period has passed."""
        uid = _uid(pod)
        return uid in self.terminated_at and now >= self.terminated_at[uid]

    def record_event(self, involved: str, event_type: str, reason: str, message: str,
                     annotations: Mapping[str, str] | None = None) -> None:
        """Append ``(time, involved, type, reason, message)`` to :attr:`events`."""
        self.events.append((self.now, involved, event_type, reason, message))

    # --- the periodic image GC ---------------------------------------------------------------------

    def image_gc_loop(self, env: Any, until: float | None = None):
        """The kubelet's image GC every :data:`IMAGE_GC_PERIOD_SECONDS` as a SimPy process (``StartGarbageCollection``).

        Yields
        ------
        simpy.events.Timeout
        """
        while until is None or env.now <= until:
            yield env.timeout(IMAGE_GC_PERIOD_SECONDS)
            fs = self.summary(env.now)["node"]["runtime"]["imageFs"]
            _, _, failure = self.image_gc.garbage_collect(fs["capacityBytes"], fs["availableBytes"], env.now)
            if failure:
                self.record_event(f"Node/{getattr(self, 'node_name', 'node')}", "Warning", FREE_DISK_SPACE_FAILED, failure)


def apply_usage_action(node: NodeUsage, action: Mapping[str, Any]) -> None:
    """Apply one Scenario ``usage`` action (``{name, container, memoryBytes, diskBytes, processes}``).

    Examples
    --------
    >>> node = NodeUsage(memory_capacity_bytes=100)
    >>> node.add_pod({"metadata": {"name": "a"}, "spec": {"containers": [{"name": "c"}]}})
    >>> apply_usage_action(node, {"name": "a", "container": "c", "memoryBytes": 40})
    >>> node.summary(0.0)["node"]["memory"]["availableBytes"]
    60
    """
    node.set_usage(action["name"], action["container"], memory_bytes=action.get("memoryBytes"),
                   disk_bytes=action.get("diskBytes"), logs_bytes=action.get("logsBytes"),
                   processes=action.get("processes"))


def run_eviction_scenario(
    node: NodeUsage,
    config: EvictionConfig,
    actions: Sequence[Mapping[str, Any]] = (),
    until_seconds: float = 600.0,
    node_name: str = "node",
) -> EvictionManager:
    """Run the eviction manager (and the image GC) on a SimPy clock while ``actions`` change usage.

    Parameters
    ----------
    node : NodeUsage
        Pods already added.
    config : EvictionConfig
    actions : sequence of dict
        Scenario ``usage`` actions, each with ``at`` (virtual seconds).
    until_seconds : float
    node_name : str

    Returns
    -------
    EvictionManager
        Its :attr:`~EvictionManager.timeline` holds every round.

    Raises
    ------
    KeyError
        When an action has no ``at``, or names a pod (``name``) that is not
        on ``node``.

    See Also
    --------
    NodeUsage, EvictionConfig

    Notes
    -----
    The image GC runs on its own loop beside the manager, as the kubelet's
    ``StartGarbageCollection`` does; no kubelet, API server or pod restarts
    take part, so evicted pods simply stop using resources.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager.go (Start, synchronize)

    Examples
    --------
    >>> from kubenotes.kubelet.eviction import parse_threshold_config
    >>> node = NodeUsage(memory_capacity_bytes=4 * 2**30)
    >>> node.add_pod({"metadata": {"name": "be"}, "spec": {"containers": [{"name": "c"}]}})
    >>> cfg = EvictionConfig(tuple(parse_threshold_config(eviction_hard={"memory.available": "1Gi"})))
    >>> m = run_eviction_scenario(node, cfg, [{"at": 25, "name": "be", "container": "c", "memoryBytes": 3.5 * 2**30}], 60)
    >>> [(r.time, r.evicted) for r in m.timeline if r.evicted]
    [(30.0, 'default/be')]
    """
    import simpy

    env = simpy.Environment()
    node.node_name = node_name  # type: ignore[attr-defined]
    manager = EvictionManager(config, node, node_name)

    def driver():
        for action in sorted(actions, key=lambda a: a["at"]):
            if action["at"] > env.now:
                yield env.timeout(action["at"] - env.now)
            apply_usage_action(node, action)

    env.process(driver())
    env.process(manager.run(env, until_seconds))
    env.process(node.image_gc_loop(env, until_seconds))
    env.run(until=until_seconds + 1e-9)
    return manager
