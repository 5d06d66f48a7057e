"""Node-pressure eviction: signals, thresholds, node conditions and which pod goes first.

Mirrors ``pkg/kubelet/eviction`` (helpers.go, eviction_manager.go, api/types.go,
defaults_linux.go). Every ``evictionMonitoringPeriod`` (10 s) the kubelet's
eviction manager

1. observes **signals** from the stats summary: ``memory.available``
   (capacity minus working set), ``nodefs.available``, ``nodefs.inodesFree``,
   ``imagefs.available``, ``imagefs.inodesFree``, ``pid.available``...;
2. compares them with **thresholds** (``evictionHard``, default
   ``memory.available<100Mi``, ``nodefs.available<10%``,
   ``nodefs.inodesFree<5%``, ``imagefs.available<15%``; ``evictionSoft`` with
   a grace period each): a threshold is *met* when available < threshold;
3. reports a **node condition** per met signal (MemoryPressure,
   DiskPressure, PIDPressure), kept for ``evictionPressureTransitionPeriod``
   (5 min) after the signal recovers; the node lifecycle controller turns
   them into ``node.kubernetes.io/*-pressure:NoSchedule`` taints;
4. once a threshold has been met for its grace period, tries node-level
   reclaim (image and container GC for disk signals), then **ranks** the
   active pods and evicts the first one that is not critical:
   memory: usage above requests first, then lower priority, then the larger
   ``usage - requests``; disk: the same with ephemeral storage (or inodes);
   PIDs: lower priority, then more processes.

The evicted pod ends ``Failed`` with reason ``Evicted`` and a message such as
``The node was low on resource: memory. Threshold quantity: 100Mi, available:
50Mi. Container app was using 300Mi, request is 100Mi, has larger
consumption of memory.``

Pod stats use the kubelet Summary API's JSON shape (``/stats/summary``):
``{"containers": [{"name", "memory": {"workingSetBytes"}, "rootfs":
{"usedBytes", "inodesUsed"}, "logs": {...}}], "volume": [{"name",
"usedBytes", "inodesUsed"}], "process_stats": {"process_count"}}``, keyed by
pod UID.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/api/types.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/defaults_linux.go
kubernetes/kubernetes@v1.34.0 pkg/api/v1/resource/helpers.go (GetResourceRequestQuantity)
https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/
"""

from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Iterable, Mapping, Sequence

from kubenotes.api.duration import parse_go_duration
from kubenotes.api.quantity import BINARY_SI, DECIMAL_SI, Quantity
from kubenotes.api.resources import aggregate_container_requests, resource_list
from kubenotes.errors import KubenotesError
from kubenotes.kubelet.qos import is_critical_pod

__all__ = [
    "SIGNAL_MEMORY_AVAILABLE",
    "SIGNAL_NODE_FS_AVAILABLE",
    "SIGNAL_NODE_FS_INODES_FREE",
    "SIGNAL_IMAGE_FS_AVAILABLE",
    "SIGNAL_IMAGE_FS_INODES_FREE",
    "SIGNAL_CONTAINER_FS_AVAILABLE",
    "SIGNAL_CONTAINER_FS_INODES_FREE",
    "SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE",
    "SIGNAL_PID_AVAILABLE",
    "OP_LESS_THAN",
    "OP_FOR_SIGNAL",
    "NODE_MEMORY_PRESSURE",
    "NODE_DISK_PRESSURE",
    "NODE_PID_PRESSURE",
    "SIGNAL_TO_NODE_CONDITION",
    "SIGNAL_TO_RESOURCE",
    "NODE_CONDITION_TO_TAINT_KEY",
    "RESOURCE_INODES",
    "RESOURCE_PIDS",
    "FS_STATS_ROOT",
    "FS_STATS_LOGS",
    "FS_STATS_LOCAL_VOLUME_SOURCE",
    "DEFAULT_EVICTION_HARD",
    "DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD_SECONDS",
    "EVICTION_MONITORING_PERIOD_SECONDS",
    "IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS",
    "NODE_ALLOCATABLE_ENFORCEMENT_KEY",
    "REASON",
    "NODE_LOW_MESSAGE_FMT",
    "NODE_CONDITION_MESSAGE_FMT",
    "THRESHOLD_MET_MESSAGE_FMT",
    "CONTAINER_MESSAGE_FMT",
    "OFFENDING_CONTAINERS_KEY",
    "OFFENDING_CONTAINERS_USAGE_KEY",
    "STARVED_RESOURCE_KEY",
    "DISRUPTION_TARGET",
    "POD_REASON_TERMINATION_BY_KUBELET",
    "EvictionConfigError",
    "ThresholdValue",
    "Threshold",
    "SignalObservation",
    "parse_duration_seconds",
    "parse_threshold_config",
    "is_hard_eviction_threshold",
    "float32",
    "get_threshold_quantity",
    "make_signal_observations",
    "thresholds_met",
    "thresholds_first_observed_at",
    "thresholds_met_grace_period",
    "merge_thresholds",
    "node_conditions",
    "node_conditions_last_observed_at",
    "node_conditions_observed_since",
    "has_node_condition",
    "node_condition_taints",
    "sort_by_eviction_priority",
    "get_reclaimable_threshold",
    "get_resource_request_quantity",
    "pod_request",
    "rank_memory_pressure",
    "rank_pid_pressure",
    "rank_disk_pressure",
    "signal_to_rank_func",
    "eviction_message",
    "evicted_pod_status",
    "eviction_grace_period_override",
    "can_evict",
    "admit_pod",
]

# --- signals (api/types.go) -----------------------------------------------------------------------------

#: Memory available on the node: capacity minus working set.
SIGNAL_MEMORY_AVAILABLE = "memory.available"
#: Bytes available on the node's root filesystem (kubelet dir, logs, emptyDirs).
SIGNAL_NODE_FS_AVAILABLE = "nodefs.available"
#: Inodes free on the node's root filesystem.
SIGNAL_NODE_FS_INODES_FREE = "nodefs.inodesFree"
#: Bytes available on the runtime's image filesystem.
SIGNAL_IMAGE_FS_AVAILABLE = "imagefs.available"
#: Inodes free on the runtime's image filesystem.
SIGNAL_IMAGE_FS_INODES_FREE = "imagefs.inodesFree"
#: Bytes available on a separate writable-layer filesystem (KubeletSeparateDiskGC).
SIGNAL_CONTAINER_FS_AVAILABLE = "containerfs.available"
#: Inodes free on a separate writable-layer filesystem.
SIGNAL_CONTAINER_FS_INODES_FREE = "containerfs.inodesFree"
#: Memory available to pods: the ``kubepods`` cgroup's limit minus its working set.
SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE = "allocatableMemory.available"
#: Process IDs available: ``pid_max`` minus running processes.
SIGNAL_PID_AVAILABLE = "pid.available"

#: ``evictionapi.OpLessThan``: the only operator.
OP_LESS_THAN = "LessThan"

#: ``v1.NodeMemoryPressure``.
NODE_MEMORY_PRESSURE = "MemoryPressure"
#: ``v1.NodeDiskPressure``.
NODE_DISK_PRESSURE = "DiskPressure"
#: ``v1.NodePIDPressure``.
NODE_PID_PRESSURE = "PIDPressure"

#: Internal resource names of the eviction package.
RESOURCE_INODES = "inodes"
RESOURCE_PIDS = "pids"

#: ``signalToNodeCondition``.
SIGNAL_TO_NODE_CONDITION: dict[str, str] = {
    SIGNAL_MEMORY_AVAILABLE: NODE_MEMORY_PRESSURE,
    SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE: NODE_MEMORY_PRESSURE,
    SIGNAL_IMAGE_FS_AVAILABLE: NODE_DISK_PRESSURE,
    SIGNAL_CONTAINER_FS_AVAILABLE: NODE_DISK_PRESSURE,
    SIGNAL_NODE_FS_AVAILABLE: NODE_DISK_PRESSURE,
    SIGNAL_IMAGE_FS_INODES_FREE: NODE_DISK_PRESSURE,
    SIGNAL_NODE_FS_INODES_FREE: NODE_DISK_PRESSURE,
    SIGNAL_CONTAINER_FS_INODES_FREE: NODE_DISK_PRESSURE,
    SIGNAL_PID_AVAILABLE: NODE_PID_PRESSURE,
}

#: ``signalToResource``: what the kubelet reclaims for each signal.
SIGNAL_TO_RESOURCE: dict[str, str] = {
    SIGNAL_MEMORY_AVAILABLE: "memory",
    SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE: "memory",
    SIGNAL_IMAGE_FS_AVAILABLE: "ephemeral-storage",
    SIGNAL_IMAGE_FS_INODES_FREE: RESOURCE_INODES,
    SIGNAL_CONTAINER_FS_AVAILABLE: "ephemeral-storage",
    SIGNAL_CONTAINER_FS_INODES_FREE: RESOURCE_INODES,
    SIGNAL_NODE_FS_AVAILABLE: "ephemeral-storage",
    SIGNAL_NODE_FS_INODES_FREE: RESOURCE_INODES,
    SIGNAL_PID_AVAILABLE: RESOURCE_PIDS,
}

#: ``evictionapi.OpForSignal``.
OP_FOR_SIGNAL: dict[str, str] = {s: OP_LESS_THAN for s in SIGNAL_TO_RESOURCE}

#: The taint the node lifecycle controller adds for each pressure condition (effect NoSchedule).
NODE_CONDITION_TO_TAINT_KEY: dict[str, str] = {
    NODE_MEMORY_PRESSURE: "node.kubernetes.io/memory-pressure",
    NODE_DISK_PRESSURE: "node.kubernetes.io/disk-pressure",
    NODE_PID_PRESSURE: "node.kubernetes.io/pid-pressure",
}

#: ``fsStatsType`` values: which filesystem usage a disk ranking measures.
FS_STATS_ROOT = "root"
FS_STATS_LOGS = "logs"
FS_STATS_LOCAL_VOLUME_SOURCE = "localVolumeSource"

#: ``DefaultEvictionHard`` on Linux (the kubelet's ``evictionHard`` default).
DEFAULT_EVICTION_HARD: dict[str, str] = {
    SIGNAL_MEMORY_AVAILABLE: "100Mi",
    SIGNAL_NODE_FS_AVAILABLE: "10%",
    SIGNAL_NODE_FS_INODES_FREE: "5%",
    SIGNAL_IMAGE_FS_AVAILABLE: "15%",
}
#: ``evictionPressureTransitionPeriod`` default: how long a pressure condition outlives its signal.
DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD_SECONDS = 300.0
#: ``evictionMonitoringPeriod`` in kubelet.go: the eviction manager's loop.
EVICTION_MONITORING_PERIOD_SECONDS = 10.0
#: ``immediateEvictionGracePeriodSeconds``: the termination grace period for hard evictions.
IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1
#: ``kubetypes.NodeAllocatableEnforcementKey``: ``pods`` in ``enforceNodeAllocatable``.
NODE_ALLOCATABLE_ENFORCEMENT_KEY = "pods"

#: ``eviction.Reason``: ``status.reason`` of an evicted pod and the Event reason.
REASON = "Evicted"
#: ``nodeLowMessageFmt``.
NODE_LOW_MESSAGE_FMT = "The node was low on resource: {}. "
#: ``nodeConditionMessageFmt`` (admission rejections under pressure).
NODE_CONDITION_MESSAGE_FMT = "The node had condition: {}. "
#: ``thresholdMetMessageFmt``.
THRESHOLD_MET_MESSAGE_FMT = "Threshold quantity: {}, available: {}. "
#: ``containerMessageFmt``.
CONTAINER_MESSAGE_FMT = "Container {} was using {}, request is {}, has larger consumption of {}. "
#: Event annotation keys.
OFFENDING_CONTAINERS_KEY = "offending_containers"
OFFENDING_CONTAINERS_USAGE_KEY = "offending_containers_usage"
STARVED_RESOURCE_KEY = "starved_resource"
#: ``v1.DisruptionTarget`` pod condition and the kubelet's reason for it.
DISRUPTION_TARGET = "DisruptionTarget"
POD_REASON_TERMINATION_BY_KUBELET = "TerminationByKubelet"

_UNSUPPORTED_EVICTION_SIGNAL = "unsupported eviction signal {}"


class EvictionConfigError(KubenotesError, ValueError):
    """An ``evictionHard``/``evictionSoft``/grace-period/min-reclaim entry was rejected (upstream's wording)."""


# --- thresholds -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdValue:
    """A threshold amount: a quantity, or a fraction of capacity (``evictionapi.ThresholdValue``).

    Attributes
    ----------
    quantity : Quantity or None
        Absolute amount (bytes, inodes or PIDs).
    percentage : float
        Fraction of capacity (``0.1`` for ``10%``), used when ``quantity`` is None.
    """

    quantity: Quantity | None = None
    percentage: float = 0.0

    def __str__(self) -> str:
        if self.quantity is not None:
            return str(self.quantity)
        return f"{float(f'{self.percentage:.7g}') * 100:f}%"  # the float32 as written (7 significant digits)


@dataclass(frozen=True)
class Threshold:
    """One eviction threshold (``evictionapi.Threshold``).

    Attributes
    ----------
    signal : str
        ``memory.available``, ``nodefs.available``...
    operator : str
        Always ``LessThan``.
    value : ThresholdValue
    grace_period_seconds : float
        0 for hard thresholds.
    min_reclaim : ThresholdValue or None
        ``evictionMinimumReclaim``: how far past the threshold to reclaim.
    """

    signal: str
    operator: str
    value: ThresholdValue
    grace_period_seconds: float = 0.0
    min_reclaim: ThresholdValue | None = None


def parse_duration_seconds(text: str) -> float:
    """Go's ``time.ParseDuration`` in seconds (``"1m30s"`` -> 90.0): :func:`kubenotes.api.duration.parse_go_duration`.

    Raises
    ------
    EvictionConfigError
        With Go's ``time: invalid duration "..."`` message.

    Examples
    --------
    >>> parse_duration_seconds("1m30s"), parse_duration_seconds("-2s"), parse_duration_seconds("0")
    (90.0, -2.0, 0.0)
    """
    try:
        return parse_go_duration(text.strip())
    except ValueError as e:
        raise EvictionConfigError(str(e)) from None


def _valid_signal(signal: str) -> bool:
    return signal in SIGNAL_TO_RESOURCE


def _parse_percentage(text: str) -> float:
    """``parsePercentage``: the number parsed as a Go ``float32``, divided by 100 in ``float32``."""
    number = text.rstrip("%")
    try:
        return float32(float32(float(number)) / 100)
    except ValueError:
        raise EvictionConfigError(f'strconv.ParseFloat: parsing "{number}": invalid syntax') from None
    except OverflowError:
        raise EvictionConfigError(f'strconv.ParseFloat: parsing "{number}": value out of range') from None


def _parse_threshold_statement(signal: str, val: str) -> Threshold | None:
    if not _valid_signal(signal):
        raise EvictionConfigError(_UNSUPPORTED_EVICTION_SIGNAL.format(signal))
    operator = OP_FOR_SIGNAL[signal]
    if val.endswith("%"):
        if val in ("0%", "100%"):
            return None
        percentage = _parse_percentage(val)
        if percentage < 0:
            raise EvictionConfigError(f"eviction percentage threshold {signal} must be >= 0%: {val}")
        if percentage > 100:
            raise EvictionConfigError(f"eviction percentage threshold {signal} must be <= 100%: {val}")
        return Threshold(signal, operator, ThresholdValue(percentage=percentage))
    quantity = Quantity.parse(val, signal)
    if quantity.sign() <= 0:
        raise EvictionConfigError(f"eviction threshold {signal} must be positive: {quantity}")
    return Threshold(signal, operator, ThresholdValue(quantity=quantity))


def _parse_min_reclaim(signal: str, val: str) -> ThresholdValue:
    if not _valid_signal(signal):
        raise EvictionConfigError(_UNSUPPORTED_EVICTION_SIGNAL.format(signal))
    if val.endswith("%"):
        percentage = _parse_percentage(val)
        if percentage <= 0:
            raise EvictionConfigError(f"eviction percentage minimum reclaim {signal} must be positive: {val}")
        return ThresholdValue(percentage=percentage)
    quantity = Quantity.parse(val, signal)
    if quantity.sign() < 0:
        raise EvictionConfigError(f"negative eviction minimum reclaim specified for {signal}")
    return ThresholdValue(quantity=quantity)


def is_hard_eviction_threshold(threshold: Threshold) -> bool:
    """True when eviction happens as soon as the threshold is met (grace period 0)."""
    return threshold.grace_period_seconds == 0


def parse_threshold_config(
    allocatable_config: Iterable[str] = (),
    eviction_hard: Mapping[str, str] | None = None,
    eviction_soft: Mapping[str, str] | None = None,
    eviction_soft_grace_period: Mapping[str, str] | None = None,
    eviction_minimum_reclaim: Mapping[str, str] | None = None,
) -> list[Threshold]:
    """The kubelet's thresholds from its configuration (``ParseThresholdConfig``).

    Parameters
    ----------
    allocatable_config : iterable of str
        ``enforceNodeAllocatable``; with ``pods`` in it, every hard
        ``memory.available`` threshold is copied to
        ``allocatableMemory.available``.
    eviction_hard, eviction_soft : dict[str, str]
        Signal -> ``"100Mi"`` or ``"10%"``; ``"0%"`` and ``"100%"`` disable a signal.
    eviction_soft_grace_period : dict[str, str]
        Signal -> Go duration (``"1m30s"``); required for every soft threshold.
    eviction_minimum_reclaim : dict[str, str]
        Signal -> quantity or percentage.

    Returns
    -------
    list of Threshold
        Hard thresholds, then soft ones, then the allocatable copies, each in
        the order given.

    Raises
    ------
    EvictionConfigError
        With upstream's message: ``unsupported eviction signal ...``,
        ``eviction threshold memory.available must be positive: 0``,
        ``grace period must be specified for the soft eviction threshold ...``...
    InvalidQuantity
        When a quantity does not parse.

    Notes
    -----
    Go iterates the maps in random order; here the input order is kept. The
    kubelet's configuration defaulting (``evictionHard`` is replaced by
    :data:`DEFAULT_EVICTION_HARD` only when left empty) happens before this call.
    Upstream checks ``percentage > 100`` on the fraction, so only values above
    10000% are rejected as too large; that quirk is kept.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go (ParseThresholdConfig)

    Examples
    --------
    >>> [(t.signal, str(t.value)) for t in parse_threshold_config(eviction_hard=DEFAULT_EVICTION_HARD)]
    [('memory.available', '100Mi'), ('nodefs.available', '10.000000%'), ('nodefs.inodesFree', '5.000000%'), ('imagefs.available', '15.000000%')]
    >>> t, = parse_threshold_config(eviction_soft={"memory.available": "1.5Gi"},
    ...                             eviction_soft_grace_period={"memory.available": "1m30s"})
    >>> t.grace_period_seconds
    90.0
    """
    results: list[Threshold] = []
    for signal, val in (eviction_hard or {}).items():
        t = _parse_threshold_statement(signal, val)
        if t is not None:
            results.append(t)
    soft: list[Threshold] = []
    for signal, val in (eviction_soft or {}).items():
        t = _parse_threshold_statement(signal, val)
        if t is not None:
            soft.append(t)
    grace: dict[str, float] = {}
    for signal, val in (eviction_soft_grace_period or {}).items():
        if not _valid_signal(signal):
            raise EvictionConfigError(_UNSUPPORTED_EVICTION_SIGNAL.format(signal))
        seconds = parse_duration_seconds(val)
        if seconds < 0:
            raise EvictionConfigError(
                f"invalid eviction grace period specified: {val}, must be a positive value")
        grace[signal] = seconds
    min_reclaims = {s: _parse_min_reclaim(s, v) for s, v in (eviction_minimum_reclaim or {}).items()}
    for i, t in enumerate(soft):
        if t.signal not in grace:
            raise EvictionConfigError(f"grace period must be specified for the soft eviction threshold {t.signal}")
        soft[i] = Threshold(t.signal, t.operator, t.value, grace[t.signal])
    results.extend(soft)
    results = [
        Threshold(t.signal, t.operator, t.value, t.grace_period_seconds, min_reclaims[t.signal])
        if t.signal in min_reclaims else t
        for t in results
    ]
    if NODE_ALLOCATABLE_ENFORCEMENT_KEY in list(allocatable_config):
        results = results + [
            Threshold(SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE, t.operator, t.value, 0.0, t.min_reclaim)
            for t in results
            if t.signal == SIGNAL_MEMORY_AVAILABLE and is_hard_eviction_threshold(t)
        ]
    return results


def float32(x: float) -> float:
    """``x`` rounded to a Go ``float32`` (``ThresholdValue.Percentage`` is a ``float32`` upstream).

    Parameters
    ----------
    x : float

    Returns
    -------
    float
        The nearest ``float32`` value, as a Python float.

    Raises
    ------
    OverflowError
        When ``x`` is beyond ``float32``'s range (about 3.4e38).

    Examples
    --------
    >>> float32(0.1), float32(0.5)
    (0.10000000149011612, 0.5)
    """
    return struct.unpack("f", struct.pack("f", x))[0]


def get_threshold_quantity(value: ThresholdValue, capacity: Quantity | int) -> Quantity:
    """The threshold as an amount (``GetThresholdQuantity``).

    A quantity is returned as it is; a percentage is multiplied, as a
    ``float32`` widened to ``float64``, by the capacity's integer value
    (rounded up, ``Quantity.Value()``) and truncated to an integer, in BinarySI.

    Parameters
    ----------
    value : ThresholdValue
    capacity : Quantity or int
        The signal's capacity (bytes, inodes or PIDs).

    Returns
    -------
    Quantity

    Raises
    ------
    OverflowError
        For a percentage beyond ``float32``'s range (never one parsed by
        :func:`parse_threshold_config`).

    Notes
    -----
    The ``float32`` percentage makes ``10%`` of 10Gi 1073741840 bytes, not
    1Gi: ``float32(0.1)`` is slightly above 0.1, as on a real kubelet.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/api/types.go (GetThresholdQuantity)

    Examples
    --------
    >>> str(get_threshold_quantity(ThresholdValue(percentage=0.05), Quantity.parse("10Gi")))
    '536870920'
    >>> str(get_threshold_quantity(ThresholdValue(percentage=0.5), 10 * 2**30))
    '5Gi'
    """
    if value.quantity is not None:
        return value.quantity
    cap = capacity.int_value() if isinstance(capacity, Quantity) else int(capacity)
    return Quantity(Decimal(int(float32(value.percentage) * float(cap))), BINARY_SI)


# --- observations -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignalObservation:
    """An observed signal (``signalObservation``).

    Attributes
    ----------
    available : Quantity
    capacity : Quantity
    time : float
        Virtual-clock seconds of the observation.
    """

    available: Quantity
    capacity: Quantity
    time: float = 0.0


def _q(n: int, fmt: str) -> Quantity:
    return Quantity(Decimal(int(n)), fmt)


def make_signal_observations(node_stats: Mapping[str, Any], now: float = 0.0) -> dict[str, SignalObservation]:
    """Signals from the Summary API's node stats (``makeSignalObservations``).

    Parameters
    ----------
    node_stats : dict
        ``summary.node``: ``memory`` {``availableBytes``, ``workingSetBytes``},
        ``fs`` {``availableBytes``, ``capacityBytes``, ``inodesFree``,
        ``inodes``}, ``runtime.imageFs`` / ``runtime.containerFs`` (same
        fields), ``rlimit`` {``maxpid``, ``curproc``}, and
        ``systemContainers`` (the ``pods`` entry gives
        ``allocatableMemory.available``).
    now : float
        Observation time (seconds).

    Returns
    -------
    dict[str, SignalObservation]

    Notes
    -----
    ``memory.available`` capacity is ``availableBytes + workingSetBytes``.
    Observation times come from ``now`` rather than each stat's timestamp.
    ``containerfs`` signals are only observed when ``runtime.containerFs`` is given.

    Examples
    --------
    >>> obs = make_signal_observations({"memory": {"availableBytes": 50 * 2**20, "workingSetBytes": 974 * 2**20},
    ...                                 "rlimit": {"maxpid": 32768, "curproc": 300}})
    >>> str(obs["memory.available"].available), str(obs["memory.available"].capacity), str(obs["pid.available"].available)
    ('50Mi', '1Gi', '32468')
    """
    result: dict[str, SignalObservation] = {}
    memory = node_stats.get("memory") or {}
    if memory.get("availableBytes") is not None and memory.get("workingSetBytes") is not None:
        result[SIGNAL_MEMORY_AVAILABLE] = SignalObservation(
            _q(memory["availableBytes"], BINARY_SI),
            _q(memory["availableBytes"] + memory["workingSetBytes"], BINARY_SI), now)
    for sc in node_stats.get("systemContainers") or ():
        if sc.get("name") == "pods":
            m = sc.get("memory") or {}
            if m.get("availableBytes") is not None and m.get("workingSetBytes") is not None:
                result[SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE] = SignalObservation(
                    _q(m["availableBytes"], BINARY_SI), _q(m["availableBytes"] + m["workingSetBytes"], BINARY_SI), now)

    def fs_signals(fs: Mapping[str, Any], avail_sig: str, inodes_sig: str) -> None:
        if fs.get("availableBytes") is not None and fs.get("capacityBytes") is not None:
            result[avail_sig] = SignalObservation(
                _q(fs["availableBytes"], BINARY_SI), _q(fs["capacityBytes"], BINARY_SI), now)
        if fs.get("inodesFree") is not None and fs.get("inodes") is not None:
            result[inodes_sig] = SignalObservation(_q(fs["inodesFree"], DECIMAL_SI), _q(fs["inodes"], DECIMAL_SI), now)

    if node_stats.get("fs"):
        fs_signals(node_stats["fs"], SIGNAL_NODE_FS_AVAILABLE, SIGNAL_NODE_FS_INODES_FREE)
    runtime = node_stats.get("runtime") or {}
    if runtime.get("imageFs"):
        fs_signals(runtime["imageFs"], SIGNAL_IMAGE_FS_AVAILABLE, SIGNAL_IMAGE_FS_INODES_FREE)
    if runtime.get("containerFs"):
        fs_signals(runtime["containerFs"], SIGNAL_CONTAINER_FS_AVAILABLE, SIGNAL_CONTAINER_FS_INODES_FREE)
    rlimit = node_stats.get("rlimit") or {}
    if rlimit.get("maxpid") is not None and rlimit.get("curproc") is not None:
        result[SIGNAL_PID_AVAILABLE] = SignalObservation(
            _q(rlimit["maxpid"] - rlimit["curproc"], DECIMAL_SI), _q(rlimit["maxpid"], DECIMAL_SI), now)
    return result


def thresholds_met(
    thresholds: Iterable[Threshold],
    observations: Mapping[str, SignalObservation],
    enforce_min_reclaim: bool = False,
) -> list[Threshold]:
    """Thresholds whose signal is below the threshold amount, ignoring grace periods (``thresholdsMet``).

    With ``enforce_min_reclaim`` the amount is raised by the minimum reclaim
    (used after node-level reclaim to decide whether pods must still go).
    Signals without an observation are skipped.

    Examples
    --------
    >>> ts = parse_threshold_config(eviction_hard={"memory.available": "100Mi"})
    >>> obs = make_signal_observations({"memory": {"availableBytes": 50 * 2**20, "workingSetBytes": 2**30}})
    >>> [t.signal for t in thresholds_met(ts, obs)]
    ['memory.available']
    """
    results = []
    for t in thresholds:
        observed = observations.get(t.signal)
        if observed is None:
            continue
        quantity = get_threshold_quantity(t.value, observed.capacity)
        if enforce_min_reclaim and t.min_reclaim is not None:
            quantity = quantity + get_threshold_quantity(t.min_reclaim, observed.capacity)
        if t.operator == OP_LESS_THAN and quantity.cmp(observed.available) > 0:
            results.append(t)
    return results


def thresholds_first_observed_at(
    thresholds: Iterable[Threshold], last_observed_at: Mapping[Threshold, float], now: float
) -> dict[Threshold, float]:
    """When each currently met threshold was first seen met (``thresholdsFirstObservedAt``).

    Examples
    --------
    >>> t = Threshold("memory.available", "LessThan", ThresholdValue(percentage=0.1), 60.0)
    >>> thresholds_first_observed_at([t], {t: 10.0}, 40.0)[t], thresholds_first_observed_at([t], {}, 40.0)[t]
    (10.0, 40.0)
    """
    return {t: last_observed_at.get(t, now) for t in thresholds}


def thresholds_met_grace_period(observed_at: Mapping[Threshold, float], now: float) -> list[Threshold]:
    """Thresholds met for at least their grace period (``thresholdsMetGracePeriod``).

    Examples
    --------
    >>> t = Threshold("memory.available", "LessThan", ThresholdValue(percentage=0.1), 60.0)
    >>> thresholds_met_grace_period({t: 0.0}, 59.0), len(thresholds_met_grace_period({t: 0.0}, 60.0))
    ([], 1)
    """
    return [t for t, at in observed_at.items() if now - at >= t.grace_period_seconds]


def merge_thresholds(a: Iterable[Threshold], b: Iterable[Threshold]) -> list[Threshold]:
    """``a`` then the thresholds of ``b`` not already in it (``mergeThresholds``)."""
    out = list(a)
    for t in b:
        if t not in out:
            out.append(t)
    return out


def node_conditions(thresholds: Iterable[Threshold]) -> list[str]:
    """The node conditions the met thresholds imply, without duplicates (``nodeConditions``).

    Examples
    --------
    >>> ts = parse_threshold_config(eviction_hard={"nodefs.available": "10%", "imagefs.available": "15%",
    ...                                            "pid.available": "1000"})
    >>> node_conditions(ts)
    ['DiskPressure', 'PIDPressure']
    """
    out: list[str] = []
    for t in thresholds:
        cond = SIGNAL_TO_NODE_CONDITION.get(t.signal)
        if cond is not None and cond not in out:
            out.append(cond)
    return out


def node_conditions_last_observed_at(
    conditions: Iterable[str], last_observed_at: Mapping[str, float], now: float
) -> dict[str, float]:
    """Record ``now`` for the conditions seen this round, keep older ones (``nodeConditionsLastObservedAt``)."""
    out = dict(last_observed_at)
    for c in conditions:
        out[c] = now
    return out


def node_conditions_observed_since(observed_at: Mapping[str, float], period_seconds: float, now: float) -> list[str]:
    """Conditions seen within the last ``period_seconds`` (``nodeConditionsObservedSince``).

    This is what keeps ``MemoryPressure`` true for
    ``evictionPressureTransitionPeriod`` (5 min) after memory recovers.

    Examples
    --------
    >>> node_conditions_observed_since({"MemoryPressure": 100.0}, 300.0, 399.0)
    ['MemoryPressure']
    >>> node_conditions_observed_since({"MemoryPressure": 100.0}, 300.0, 400.0)
    []
    """
    return [c for c, at in observed_at.items() if now - at < period_seconds]


def has_node_condition(conditions: Iterable[str], item: str) -> bool:
    """``hasNodeCondition``."""
    return item in list(conditions)


def node_condition_taints(conditions: Iterable[str]) -> list[dict[str, str]]:
    """The NoSchedule taints the node lifecycle controller adds for pressure conditions (TaintNodesByCondition).

    Examples
    --------
    >>> node_condition_taints(["MemoryPressure"])
    [{'key': 'node.kubernetes.io/memory-pressure', 'effect': 'NoSchedule'}]
    """
    return [{"key": NODE_CONDITION_TO_TAINT_KEY[c], "effect": "NoSchedule"}
            for c in conditions if c in NODE_CONDITION_TO_TAINT_KEY]


def sort_by_eviction_priority(thresholds: Iterable[Threshold]) -> list[Threshold]:
    """Memory thresholds first, thresholds without a reclaimable resource last (``byEvictionPriority``).

    Examples
    --------
    >>> ts = parse_threshold_config(eviction_hard={"nodefs.available": "10%", "memory.available": "100Mi"})
    >>> [t.signal for t in sort_by_eviction_priority(ts)]
    ['memory.available', 'nodefs.available']
    """
    def rank(t: Threshold) -> int:
        if t.signal in (SIGNAL_MEMORY_AVAILABLE, SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE):
            return 0
        return 1 if t.signal in SIGNAL_TO_RESOURCE else 2

    return sorted(thresholds, key=rank)


def get_reclaimable_threshold(thresholds: Iterable[Threshold]) -> tuple[Threshold, str] | None:
    """The first threshold with a resource to reclaim, and that resource (``getReclaimableThreshold``)."""
    for t in thresholds:
        if t.signal in SIGNAL_TO_RESOURCE:
            return t, SIGNAL_TO_RESOURCE[t.signal]
    return None


# --- requests and usage -----------------------------------------------------------------------------------


def _uid(pod: Mapping[str, Any]) -> str:
    return (pod.get("metadata") or {}).get("uid") or ""


def _req(c: Mapping[str, Any], name: str) -> Quantity | None:
    q = ((c.get("resources") or {}).get("requests") or {}).get(name)
    return Quantity.parse(q, name) if q is not None else None


def get_resource_request_quantity(pod: Mapping[str, Any], resource_name: str) -> Quantity:
    """A pod's effective request for one resource, as eviction compares usage with it (``GetResourceRequestQuantity``).

    The sidecar-aware container aggregate, replaced by the pod-level request
    (cpu, memory) when the pod sets pod-level resources, plus the pod overhead
    when the total is non-zero.

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "a", "resources": {"requests": {"memory": "100Mi"}}}],
    ...        "initContainers": [{"name": "s", "restartPolicy": "Always",
    ...                            "resources": {"requests": {"memory": "50Mi"}}}],
    ...        "overhead": {"memory": "10Mi"}}}
    >>> str(get_resource_request_quantity(pod, "memory"))
    '160Mi'
    """
    spec = pod.get("spec") or {}
    fmt = DECIMAL_SI if resource_name == "cpu" else (
        BINARY_SI if resource_name in ("memory", "storage", "ephemeral-storage") else DECIMAL_SI)
    total = Quantity.zero(fmt)
    reqs = aggregate_container_requests(pod, quantities=True)
    pod_res = spec.get("resources") or {}
    if resource_name in ("cpu", "memory") and (
        any(k in ("cpu", "memory") for k in (pod_res.get("requests") or {}))
        or any(k in ("cpu", "memory") for k in (pod_res.get("limits") or {}))
    ):
        pod_reqs = resource_list(pod_res.get("requests"), quantities=True)
        if resource_name in pod_reqs:
            reqs[resource_name] = pod_reqs[resource_name]
    if resource_name in reqs:
        total = total + reqs[resource_name]
    overhead = resource_list(spec.get("overhead"), quantities=True)
    if resource_name in overhead and total.value != 0:
        total = total + overhead[resource_name]
    return total


def pod_request(pod: Mapping[str, Any], resource_name: str) -> Quantity:
    """``max(sum of containers, largest init container)`` for memory or ephemeral storage (eviction's ``podRequest``).

    Kept for completeness: unlike :func:`get_resource_request_quantity` it
    treats sidecars like other init containers and ignores overhead; other
    resources give 0.

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "a", "resources": {"requests": {"ephemeral-storage": "1Gi"}}}],
    ...        "initContainers": [{"name": "i", "resources": {"requests": {"ephemeral-storage": "2Gi"}}}]}}
    >>> str(pod_request(pod, "ephemeral-storage"))
    '2Gi'
    """
    spec = pod.get("spec") or {}
    container_value = Quantity.zero(BINARY_SI)
    if resource_name not in ("memory", "ephemeral-storage"):
        return container_value
    for c in spec.get("containers") or ():
        q = _req(c, resource_name)
        if q is not None:
            container_value = container_value + q
    init_value = Quantity.zero(BINARY_SI)
    for c in spec.get("initContainers") or ():
        q = _req(c, resource_name)
        if q is not None and init_value.cmp(q) < 0:
            init_value = q
    return container_value if container_value.cmp(init_value) > 0 else init_value


def _stats_for(pod: Mapping[str, Any], stats: Mapping[str, Any] | Callable[[Mapping[str, Any]], Any]) -> Any:
    if callable(stats):
        return stats(pod)
    return stats.get(_uid(pod))


def _memory_usage(pod_stats: Mapping[str, Any]) -> Quantity:
    total = 0
    for c in pod_stats.get("containers") or ():
        ws = (c.get("memory") or {}).get("workingSetBytes")
        if ws is not None:
            total += ws
    return _q(total, BINARY_SI)


def _local_volume_names(pod: Mapping[str, Any]) -> list[str]:
    out = []
    for v in (pod.get("spec") or {}).get("volumes") or ():
        empty_dir = v.get("emptyDir")
        if ("hostPath" in v or (empty_dir is not None and empty_dir.get("medium") != "Memory")
                or "configMap" in v or "gitRepo" in v):
            out.append(v.get("name"))
    return out


def _pod_disk_usage(pod_stats: Mapping[str, Any], pod: Mapping[str, Any], fs_stats_to_measure: Sequence[str]) -> dict[str, Quantity]:
    disk = 0
    inodes = 0
    for c in pod_stats.get("containers") or ():
        parts = []
        if FS_STATS_ROOT in fs_stats_to_measure:
            parts.append(c.get("rootfs") or {})
        if FS_STATS_LOGS in fs_stats_to_measure:
            parts.append(c.get("logs") or {})
        for fs in parts:
            disk += fs.get("usedBytes") or 0
            inodes += fs.get("inodesUsed") or 0
    if FS_STATS_LOCAL_VOLUME_SOURCE in fs_stats_to_measure:
        volumes = {v.get("name"): v for v in pod_stats.get("volume") or ()}
        for name in _local_volume_names(pod):
            v = volumes.get(name)
            if v is not None:
                disk += v.get("usedBytes") or 0
                inodes += v.get("inodesUsed") or 0
    return {"ephemeral-storage": _q(disk, BINARY_SI), RESOURCE_INODES: _q(inodes, DECIMAL_SI)}


def _cmp_bool(a: bool, b: bool) -> int:
    """``cmpBool``: true sorts before false."""
    if a == b:
        return 0
    return -1 if not b else 1


def _priority(p1: Mapping[str, Any], p2: Mapping[str, Any]) -> int:
    a = int((p1.get("spec") or {}).get("priority") or 0)
    b = int((p2.get("spec") or {}).get("priority") or 0)
    return (a > b) - (a < b)


def _order(pods: Iterable[Mapping[str, Any]], cmps: Sequence[Callable[[Any, Any], int]]) -> list[Mapping[str, Any]]:
    def compare(p1: Any, p2: Any) -> int:
        for c in cmps:
            r = c(p1, p2)
            if r:
                return r
        return 0

    return sorted(pods, key=functools.cmp_to_key(compare))


def _with_stats(stats: Any, fn: Callable[[Any, Any, Any, Any], int]) -> Callable[[Any, Any], int]:
    def cmp(p1: Any, p2: Any) -> int:
        s1, s2 = _stats_for(p1, stats), _stats_for(p2, stats)
        if s1 is None or s2 is None:
            return _cmp_bool(s1 is None, s2 is None)
        return fn(p1, p2, s1, s2)

    return cmp


def rank_memory_pressure(pods: Iterable[Mapping[str, Any]], stats: Mapping[str, Any] | Callable) -> list[Mapping[str, Any]]:
    """Pods in the order the kubelet evicts them for memory (``rankMemoryPressure``).

    1. pods without stats, then pods whose working set exceeds their memory request;
    2. lower ``spec.priority`` first;
    3. larger ``usage - request`` first.

    Parameters
    ----------
    pods : iterable of dict
        Active pods (JSON-shaped, with ``metadata.uid``).
    stats : dict or callable
        Pod UID -> Summary API PodStats, or a function of the pod.

    Returns
    -------
    list of dict
        First victim first.

    Notes
    -----
    QoS class is not a key: a BestEffort pod (request 0) usually ranks first
    because any usage exceeds its request, and a Guaranteed pod never
    exceeds. Ties keep input order (Go's ``sort.Sort`` is not stable).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go (rankMemoryPressure, exceedMemoryRequests, priority, memory)

    Examples
    --------
    >>> def pod(uid, request=None, priority=0):
    ...     res = {"requests": {"memory": request}} if request else {}
    ...     return {"metadata": {"uid": uid, "name": uid}, "spec": {"priority": priority,
    ...             "containers": [{"name": "c", "resources": res}]}}
    >>> def usage(mi):
    ...     return {"containers": [{"name": "c", "memory": {"workingSetBytes": mi * 2**20}}]}
    >>> pods = [pod("guaranteed", "500Mi"), pod("besteffort"), pod("burstable", "100Mi")]
    >>> stats = {"guaranteed": usage(400), "besteffort": usage(50), "burstable": usage(300)}
    >>> [p["metadata"]["uid"] for p in rank_memory_pressure(pods, stats)]
    ['burstable', 'besteffort', 'guaranteed']
    """
    def exceed(p1: Any, p2: Any, s1: Any, s2: Any) -> int:
        e1 = _memory_usage(s1).cmp(get_resource_request_quantity(p1, "memory")) == 1
        e2 = _memory_usage(s2).cmp(get_resource_request_quantity(p2, "memory")) == 1
        return _cmp_bool(e1, e2)

    def memory(p1: Any, p2: Any, s1: Any, s2: Any) -> int:
        m1 = _memory_usage(s1) - get_resource_request_quantity(p1, "memory")
        m2 = _memory_usage(s2) - get_resource_request_quantity(p2, "memory")
        return m2.cmp(m1)

    return _order(pods, [_with_stats(stats, exceed), _priority, _with_stats(stats, memory)])


def rank_pid_pressure(pods: Iterable[Mapping[str, Any]], stats: Mapping[str, Any] | Callable) -> list[Mapping[str, Any]]:
    """Pods in eviction order under PID pressure: lower priority, then more processes (``rankPIDPressure``).

    Examples
    --------
    >>> pods = [{"metadata": {"uid": u}, "spec": {"priority": p}} for u, p in (("a", 0), ("b", 0), ("c", -5))]
    >>> stats = {"a": {"process_stats": {"process_count": 10}}, "b": {"process_stats": {"process_count": 90}},
    ...          "c": {"process_stats": {"process_count": 1}}}
    >>> [p["metadata"]["uid"] for p in rank_pid_pressure(pods, stats)]
    ['c', 'b', 'a']
    """
    def process(p1: Any, p2: Any, s1: Any, s2: Any) -> int:
        c1 = (s1.get("process_stats") or {}).get("process_count") or 0
        c2 = (s2.get("process_stats") or {}).get("process_count") or 0
        return (c2 > c1) - (c2 < c1)

    return _order(pods, [_priority, _with_stats(stats, process)])


def rank_disk_pressure(
    pods: Iterable[Mapping[str, Any]],
    stats: Mapping[str, Any] | Callable,
    fs_stats_to_measure: Sequence[str] = (FS_STATS_ROOT, FS_STATS_LOGS, FS_STATS_LOCAL_VOLUME_SOURCE),
    disk_resource: str = "ephemeral-storage",
) -> list[Mapping[str, Any]]:
    """Pods in eviction order under disk pressure (``rankDiskPressureFunc``).

    Usage above the ephemeral-storage request first, then lower priority,
    then larger ``usage - request``. ``disk_resource`` is
    ``ephemeral-storage`` (bytes) or ``inodes``.

    Examples
    --------
    >>> pods = [{"metadata": {"uid": u}, "spec": {"containers": [{"name": "c", "resources": {
    ...     "requests": {"ephemeral-storage": r}}}]}} for u, r in (("a", "1Gi"), ("b", "100Mi"))]
    >>> stats = {u: {"containers": [{"name": "c", "rootfs": {"usedBytes": n * 2**20}}]} for u, n in (("a", 900), ("b", 200))}
    >>> [p["metadata"]["uid"] for p in rank_disk_pressure(pods, stats)]
    ['b', 'a']
    """
    def exceed(p1: Any, p2: Any, s1: Any, s2: Any) -> int:
        d1 = _pod_disk_usage(s1, p1, fs_stats_to_measure)[disk_resource]
        d2 = _pod_disk_usage(s2, p2, fs_stats_to_measure)[disk_resource]
        e1 = d1.cmp(get_resource_request_quantity(p1, disk_resource)) == 1
        e2 = d2.cmp(get_resource_request_quantity(p2, disk_resource)) == 1
        return _cmp_bool(e1, e2)

    def disk(p1: Any, p2: Any, s1: Any, s2: Any) -> int:
        d1 = _pod_disk_usage(s1, p1, fs_stats_to_measure)[disk_resource] - get_resource_request_quantity(p1, "ephemeral-storage")
        d2 = _pod_disk_usage(s2, p2, fs_stats_to_measure)[disk_resource] - get_resource_request_quantity(p2, "ephemeral-storage")
        return d2.cmp(d1)

    return _order(pods, [_with_stats(stats, exceed), _priority, _with_stats(stats, disk)])


def signal_to_rank_func(signal: str, with_image_fs: bool = False) -> Callable[[Iterable[Mapping[str, Any]], Any], list]:
    """The ranking used for a signal (``buildSignalToRankFunc``).

    Without a dedicated image filesystem every disk signal measures container
    root filesystems, logs and local volumes; with one, nodefs signals
    measure logs and local volumes and imagefs signals measure the
    containers' writable layers.

    Raises
    ------
    KeyError
        For a signal without a ranking.

    Examples
    --------
    >>> signal_to_rank_func("memory.available") is rank_memory_pressure
    True
    """
    if signal in (SIGNAL_MEMORY_AVAILABLE, SIGNAL_ALLOCATABLE_MEMORY_AVAILABLE):
        return rank_memory_pressure
    if signal == SIGNAL_PID_AVAILABLE:
        return rank_pid_pressure
    all_fs = (FS_STATS_ROOT, FS_STATS_LOGS, FS_STATS_LOCAL_VOLUME_SOURCE)
    table = {
        SIGNAL_NODE_FS_AVAILABLE: ((FS_STATS_LOGS, FS_STATS_LOCAL_VOLUME_SOURCE) if with_image_fs else all_fs, "ephemeral-storage"),
        SIGNAL_NODE_FS_INODES_FREE: ((FS_STATS_LOGS, FS_STATS_LOCAL_VOLUME_SOURCE) if with_image_fs else all_fs, RESOURCE_INODES),
        SIGNAL_IMAGE_FS_AVAILABLE: ((FS_STATS_ROOT,) if with_image_fs else all_fs, "ephemeral-storage"),
        SIGNAL_IMAGE_FS_INODES_FREE: ((FS_STATS_ROOT,) if with_image_fs else all_fs, RESOURCE_INODES),
    }
    fs, resource = table[signal]
    return functools.partial(rank_disk_pressure, fs_stats_to_measure=fs, disk_resource=resource)


# --- eviction ---------------------------------------------------------------------------------------------


def _threshold_met_info(resource: str, thresholds: Iterable[Threshold],
                        observations: Mapping[str, SignalObservation]) -> tuple[Quantity, Quantity] | None:
    for t in thresholds:
        if SIGNAL_TO_RESOURCE.get(t.signal) == resource:
            observed = observations.get(t.signal)
            if observed is not None:
                return get_threshold_quantity(t.value, observed.capacity), observed.available
    return None


def eviction_message(
    resource_to_reclaim: str,
    pod: Mapping[str, Any],
    stats: Mapping[str, Any] | Callable,
    thresholds: Iterable[Threshold] = (),
    observations: Mapping[str, SignalObservation] | None = None,
) -> tuple[str, dict[str, str]]:
    """The Evicted message and Event annotations for a pod (``evictionMessage``).

    Parameters
    ----------
    resource_to_reclaim : str
        ``memory``, ``ephemeral-storage``, ``inodes`` or ``pids``.
    pod : dict
    stats : dict or callable
        Pod UID -> PodStats.
    thresholds : iterable of Threshold
        The thresholds met; the first one for the resource with an
        observation supplies "Threshold quantity ..., available ...".
    observations : dict[str, SignalObservation]

    Returns
    -------
    (str, dict[str, str])
        The message (with upstream's trailing space) and the annotations
        ``offending_containers``, ``offending_containers_usage`` and
        ``starved_resource``.

    Notes
    -----
    Per-container usage is reported for ``memory`` (working set) and
    ``ephemeral-storage`` (rootfs + logs) when it exceeds the container's
    request; with a container status carrying ``allocatedResources`` the
    allocated memory request is used (InPlacePodVerticalScaling).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go (evictionMessage)

    Examples
    --------
    >>> pod = {"metadata": {"uid": "u"}, "spec": {"containers": [
    ...     {"name": "app", "resources": {"requests": {"memory": "100Mi"}}}]}}
    >>> stats = {"u": {"containers": [{"name": "app", "memory": {"workingSetBytes": 300 * 2**20}}]}}
    >>> ts = parse_threshold_config(eviction_hard={"memory.available": "100Mi"})
    >>> obs = make_signal_observations({"memory": {"availableBytes": 50 * 2**20, "workingSetBytes": 2**30}})
    >>> eviction_message("memory", pod, stats, ts, obs)[0]
    'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container app was using 300Mi, request is 100Mi, has larger consumption of memory. '
    """
    annotations: dict[str, str] = {}
    message = NODE_LOW_MESSAGE_FMT.format(resource_to_reclaim)
    info = _threshold_met_info(resource_to_reclaim, thresholds, observations or {})
    if info is not None:
        message += THRESHOLD_MET_MESSAGE_FMT.format(info[0], info[1])
    containers: list[str] = []
    usages: list[str] = []
    pod_stats = _stats_for(pod, stats)
    if pod_stats is None:
        return message, annotations
    spec_containers = {c.get("name"): c for c in (pod.get("spec") or {}).get("containers") or ()}
    statuses = {cs.get("name"): cs for cs in (pod.get("status") or {}).get("containerStatuses") or ()}
    for cstats in pod_stats.get("containers") or ():
        container = spec_containers.get(cstats.get("name"))
        if container is None:
            continue
        request = _req(container, resource_to_reclaim) or Quantity.zero()
        cs = statuses.get(container.get("name"))
        if resource_to_reclaim in ("memory", "cpu") and cs is not None and "allocatedResources" in cs:
            alloc = (cs.get("allocatedResources") or {}).get(resource_to_reclaim)
            request = Quantity.parse(alloc) if alloc is not None else Quantity.zero()
        usage = None
        if resource_to_reclaim == "ephemeral-storage":
            rootfs, logs = cstats.get("rootfs") or {}, cstats.get("logs") or {}
            if rootfs.get("usedBytes") is not None and logs.get("usedBytes") is not None:
                usage = _q(rootfs["usedBytes"] + logs["usedBytes"], BINARY_SI)
        elif resource_to_reclaim == "memory":
            ws = (cstats.get("memory") or {}).get("workingSetBytes")
            if ws is not None:
                usage = _q(ws, BINARY_SI)
        if usage is not None and usage.cmp(request) > 0:
            message += CONTAINER_MESSAGE_FMT.format(container.get("name"), usage, request, resource_to_reclaim)
            containers.append(container.get("name"))
            usages.append(str(usage))
    annotations[OFFENDING_CONTAINERS_KEY] = ",".join(containers)
    annotations[OFFENDING_CONTAINERS_USAGE_KEY] = ",".join(usages)
    annotations[STARVED_RESOURCE_KEY] = resource_to_reclaim
    return message, annotations


def evicted_pod_status(message: str) -> dict[str, Any]:
    """The status fields the kubelet sets on the pod it evicts (``evictPod`` / ``killPodFunc``).

    Phase ``Failed``, reason ``Evicted``, the message, and a
    ``DisruptionTarget`` condition with reason ``TerminationByKubelet``.

    Examples
    --------
    >>> s = evicted_pod_status("The node was low on resource: memory. ")
    >>> s["phase"], s["reason"], s["conditions"][0]["reason"]
    ('Failed', 'Evicted', 'TerminationByKubelet')
    """
    return {
        "phase": "Failed",
        "reason": REASON,
        "message": message,
        "conditions": [{
            "type": DISRUPTION_TARGET,
            "status": "True",
            "reason": POD_REASON_TERMINATION_BY_KUBELET,
            "message": message,
        }],
    }


def eviction_grace_period_override(threshold: Threshold, pod: Mapping[str, Any], max_pod_grace_period_seconds: int = 0) -> int:
    """The termination grace period the eviction uses, in seconds.

    Hard thresholds: 1 s (``immediateEvictionGracePeriodSeconds``). Soft
    thresholds: ``evictionMaxPodGracePeriod``, or the pod's
    ``terminationGracePeriodSeconds`` if smaller.

    Examples
    --------
    >>> hard, = parse_threshold_config(eviction_hard={"memory.available": "100Mi"})
    >>> eviction_grace_period_override(hard, {"spec": {}})
    1
    >>> soft = Threshold("memory.available", "LessThan", hard.value, 60.0)
    >>> eviction_grace_period_override(soft, {"spec": {"terminationGracePeriodSeconds": 30}}, 90)
    30
    """
    if is_hard_eviction_threshold(threshold):
        return IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS
    override = max_pod_grace_period_seconds
    tgps = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
    if tgps is not None:
        override = min(override, int(tgps))
    return override


def can_evict(pod: Mapping[str, Any]) -> bool:
    """False for critical pods (static, mirror, priority >= 2000000000), which the kubelet never evicts.

    Examples
    --------
    >>> can_evict({"spec": {"priority": 2000001000}}), can_evict({"spec": {}})
    (False, True)
    """
    return not is_critical_pod(pod)


def admit_pod(pod: Mapping[str, Any], conditions: Sequence[str]) -> tuple[bool, str, str]:
    """Whether the eviction manager admits a new pod under pressure (``managerImpl.Admit``).

    No pressure, or a critical pod: admitted. Only MemoryPressure: admitted
    unless BestEffort, and a BestEffort pod is admitted if it tolerates the
    memory-pressure taint. Any other pressure: rejected.

    Returns
    -------
    (bool, str, str)
        ``(admit, reason, message)``; rejections carry ``Evicted`` and
        ``The node had condition: [DiskPressure]. ``.

    Examples
    --------
    >>> admit_pod({"spec": {"containers": [{"name": "c"}]}}, ["MemoryPressure"])
    (False, 'Evicted', 'The node had condition: [MemoryPressure]. ')
    >>> admit_pod({"spec": {"containers": [{"name": "c"}], "tolerations": [
    ...     {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"}]}},
    ...     ["MemoryPressure"])[0]
    True
    """
    from kubenotes.api.qos import BEST_EFFORT, pod_qos_class
    from kubenotes.api.taints import tolerations_tolerate_taint

    conditions = list(conditions)
    if not conditions or is_critical_pod(pod):
        return True, "", ""
    if conditions == [NODE_MEMORY_PRESSURE]:
        if pod_qos_class(pod) != BEST_EFFORT:
            return True, "", ""
        taint = {"key": NODE_CONDITION_TO_TAINT_KEY[NODE_MEMORY_PRESSURE], "effect": "NoSchedule"}
        if tolerations_tolerate_taint((pod.get("spec") or {}).get("tolerations"), taint):
            return True, "", ""
    return False, REASON, NODE_CONDITION_MESSAGE_FMT.format("[" + " ".join(conditions) + "]")
