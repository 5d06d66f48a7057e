"""The node lifecycle controller: node health from Leases and NodeStatus, taints that follow it.

Every ``node-monitor-period`` (5 s) the controller looks at each Node's
``Ready`` condition and its Lease in ``kube-node-lease``. When neither has
moved for ``node-monitor-grace-period`` (50 s since v1.32; 60 s
``node-startup-grace-period`` for a node that never posted status), it
writes ``Ready`` (and ``MemoryPressure``, ``DiskPressure``, ``PIDPressure``)
as ``Unknown`` with reason ``NodeStatusUnknown`` and message "Kubelet
stopped posting node status.", records a ``NodeNotReady`` event on the Node
and marks the node's pods not Ready. A node whose ``Ready`` is ``False`` or
``Unknown`` is queued, per zone and rate limited (``node-eviction-rate``
0.1 nodes/s, ``secondary-node-eviction-rate`` 0.01 in a partially disrupted
large zone, none in a small one or when every zone is down), for the
``NoExecute`` taint ``node.kubernetes.io/not-ready`` or
``node.kubernetes.io/unreachable`` (in the pass that marks the node ``Unknown``,
as v1.34 does; the tainting loop takes the queue within 100 ms); the taint eviction controller then
deletes the pods that do not tolerate it. Independently, every Node change
recomputes the ``NoSchedule`` taints from conditions
(``TaintNodesByCondition``) and ``spec.unschedulable``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle/node_lifecycle_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go
kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle/config/v1alpha1/defaults.go
kubernetes/kubernetes#126287 (node-monitor-grace-period 40 s -> 50 s, v1.32)
kubernetes/kubernetes#120816 (the NoExecute taint in the same pass as Ready=Unknown, CHANGELOG-1.34)
https://kubernetes.io/docs/concepts/architecture/nodes/#node-controller
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Generator

from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.podutil import (
    PodsByNode,
    duration_seconds,
    get_node_condition,
    get_zone_key,
    mark_pods_not_ready,
    record_node_event,
    record_node_status_change,
    remove_taint_off_node,
    swap_node_controller_taint,
    taint_exists,
    timestamp_seconds,
    unwrap_deleted,
)
from kubenotes.controllers.reconciler import Controller, Result

__all__ = [
    "NodeLifecycleController", "RateLimitedTimedQueue", "TokenBucket", "compute_zone_state",
    "taints_for_conditions", "STATE_INITIAL", "STATE_NORMAL", "STATE_FULL_DISRUPTION",
    "STATE_PARTIAL_DISRUPTION", "TAINT_NODE_NOT_READY", "TAINT_NODE_UNREACHABLE", "TAINT_NODE_UNSCHEDULABLE",
    "TAINT_NODE_MEMORY_PRESSURE", "TAINT_NODE_DISK_PRESSURE", "TAINT_NODE_PID_PRESSURE",
    "TAINT_NODE_NETWORK_UNAVAILABLE", "NODE_STATUS_UNKNOWN_REASON", "NODE_STATUS_UNKNOWN_MESSAGE",
    "NODE_STATUS_NEVER_UPDATED_REASON", "NODE_STATUS_NEVER_UPDATED_MESSAGE", "NODE_LEASE_NAMESPACE",
    "DEFAULT_NODE_MONITOR_PERIOD_SECONDS", "DEFAULT_NODE_MONITOR_GRACE_PERIOD_SECONDS",
    "DEFAULT_NODE_STARTUP_GRACE_PERIOD_SECONDS", "DEFAULT_NODE_EVICTION_RATE", "DEFAULT_SECONDARY_NODE_EVICTION_RATE",
    "DEFAULT_LARGE_CLUSTER_SIZE_THRESHOLD", "DEFAULT_UNHEALTHY_ZONE_THRESHOLD", "NODE_EVICTION_PERIOD_SECONDS",
    "LABEL_NODE_DISRUPTION_EXCLUSION",
    "CONTROLLER_POLICY",
]

#: Upstream's ``system:controller:node-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("node-controller")``, ``cmd/kube-controller-manager/app/core.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
#: Node-lifecycle, node-ipam and taint-eviction controllers all use this one.
CONTROLLER_POLICY = ControllerPolicy("node-controller", (
    policy_rule(("get", "list", "watch", "update", "delete", "patch"), (LEGACY_GROUP,), ("nodes",)),
    policy_rule(("patch", "update"), (LEGACY_GROUP,), ("nodes/status",)),
    # used for pod deletion
    policy_rule(("patch", "update"), (LEGACY_GROUP,), ("pods/status",)),
    policy_rule(("list", "watch", "get", "delete"), (LEGACY_GROUP,), ("pods",)),
    events_rule(),
))

TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"

NODE_STATUS_UNKNOWN_REASON = "NodeStatusUnknown"
NODE_STATUS_UNKNOWN_MESSAGE = "Kubelet stopped posting node status."
NODE_STATUS_NEVER_UPDATED_REASON = "NodeStatusNeverUpdated"
NODE_STATUS_NEVER_UPDATED_MESSAGE = "Kubelet never posted node status."
NODE_LEASE_NAMESPACE = "kube-node-lease"
#: Nodes with this label are left out of the zone disruption counts.
LABEL_NODE_DISRUPTION_EXCLUSION = "node.kubernetes.io/exclude-disruption"

STATE_INITIAL = "Initial"
STATE_NORMAL = "Normal"
STATE_FULL_DISRUPTION = "FullDisruption"
STATE_PARTIAL_DISRUPTION = "PartialDisruption"

DEFAULT_NODE_MONITOR_PERIOD_SECONDS = 5.0
DEFAULT_NODE_MONITOR_GRACE_PERIOD_SECONDS = 50.0
DEFAULT_NODE_STARTUP_GRACE_PERIOD_SECONDS = 60.0
DEFAULT_NODE_EVICTION_RATE = 0.1
DEFAULT_SECONDARY_NODE_EVICTION_RATE = 0.01
DEFAULT_LARGE_CLUSTER_SIZE_THRESHOLD = 50
DEFAULT_UNHEALTHY_ZONE_THRESHOLD = 0.55
#: ``scheduler.NodeEvictionPeriod``: how often the NoExecute tainting pass runs (100 ms).
NODE_EVICTION_PERIOD_SECONDS = 0.1
#: ``scheduler.NodeHealthUpdateRetry``.
NODE_HEALTH_UPDATE_RETRY = 5
#: ``scheduler.EvictionRateLimiterBurst``.
EVICTION_RATE_LIMITER_BURST = 1

NOT_READY_TAINT = {"key": TAINT_NODE_NOT_READY, "effect": "NoExecute"}
UNREACHABLE_TAINT = {"key": TAINT_NODE_UNREACHABLE, "effect": "NoExecute"}

#: ``nodeConditionToTaintKeyStatusMap``: condition type -> status -> taint key (NoSchedule).
NODE_CONDITION_TO_TAINT_KEY = {
    "Ready": {"False": TAINT_NODE_NOT_READY, "Unknown": TAINT_NODE_UNREACHABLE},
    "MemoryPressure": {"True": TAINT_NODE_MEMORY_PRESSURE},
    "DiskPressure": {"True": TAINT_NODE_DISK_PRESSURE},
    "NetworkUnavailable": {"True": TAINT_NODE_NETWORK_UNAVAILABLE},
    "PIDPressure": {"True": TAINT_NODE_PID_PRESSURE},
}
_CONDITION_TAINT_KEYS = frozenset(k for m in NODE_CONDITION_TO_TAINT_KEY.values() for k in m.values())

#: Beta labels kept equal to their GA label (``labelReconcileInfo``): primary -> secondary.
LABEL_RECONCILE = (("kubernetes.io/os", "beta.kubernetes.io/os"), ("kubernetes.io/arch", "beta.kubernetes.io/arch"))


def taints_for_conditions(node: dict) -> list[dict]:
    """The NoSchedule taints a Node should carry (``doNoScheduleTaintingPass``), in condition order.

    Parameters
    ----------
    node : dict

    Examples
    --------
    >>> node = {"spec": {"unschedulable": True}, "status": {"conditions": [
    ...     {"type": "Ready", "status": "Unknown"}, {"type": "DiskPressure", "status": "True"}]}}
    >>> [t["key"] for t in taints_for_conditions(node)]
    ['node.kubernetes.io/unreachable', 'node.kubernetes.io/disk-pressure', 'node.kubernetes.io/unschedulable']
    """
    out = []
    for c in (node.get("status") or {}).get("conditions") or []:
        key = NODE_CONDITION_TO_TAINT_KEY.get(c.get("type"), {}).get(c.get("status"))
        if key:
            out.append({"key": key, "effect": "NoSchedule"})
    if (node.get("spec") or {}).get("unschedulable"):
        out.append({"key": TAINT_NODE_UNSCHEDULABLE, "effect": "NoSchedule"})
    return out


def compute_zone_state(ready_statuses: list[str | None], unhealthy_zone_threshold: float =
                       DEFAULT_UNHEALTHY_ZONE_THRESHOLD) -> tuple[int, str]:
    """``ComputeZoneState``: (not-ready count, zone state) from the nodes' Ready statuses.

    Full disruption when no node is Ready; partial when more than 2 nodes and
    at least ``unhealthy_zone_threshold`` of them are not Ready; else normal.

    Parameters
    ----------
    ready_statuses : list of str or None
        Each node's Ready status (None: no Ready condition).
    unhealthy_zone_threshold : float
        ``--unhealthy-zone-threshold`` (0.55).

    Examples
    --------
    >>> compute_zone_state(["True", "False"])
    (1, 'Normal')
    >>> compute_zone_state(["Unknown", "Unknown"])
    (2, 'FullDisruption')
    >>> compute_zone_state(["True", "False", "False", "Unknown"])
    (3, 'PartialDisruption')
    """
    ready = sum(1 for s in ready_statuses if s == "True")
    not_ready = len(ready_statuses) - ready
    if ready == 0 and not_ready > 0:
        return not_ready, STATE_FULL_DISRUPTION
    if not_ready > 2 and not_ready / (not_ready + ready) >= unhealthy_zone_threshold:
        return not_ready, STATE_PARTIAL_DISRUPTION
    return not_ready, STATE_NORMAL


class TokenBucket:
    """``flowcontrol.NewTokenBucketRateLimiter`` on the virtual clock (starts full); qps 0 never accepts.

    Examples
    --------
    >>> t = [0.0]
    >>> b = TokenBucket(0.1, 1, lambda: t[0])
    >>> b.try_accept(), b.try_accept()
    (True, False)
    >>> t[0] = 10.0; b.try_accept()
    True
    """

    def __init__(self, qps: float, burst: int, now: Callable[[], float]):
        self.qps = float(qps)
        self.burst = burst
        self._now = now
        self._tokens = float(burst)
        self._last = now()

    def try_accept(self) -> bool:
        """``TryAccept``: take a token if one is there."""
        if self.qps <= 0:
            return False
        t = self._now()
        self._tokens = min(float(self.burst), self._tokens + (t - self._last) * self.qps)
        self._last = t
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


@dataclass(order=True)
class _TimedValue:
    process_at: float
    seq: int
    value: str = field(compare=False)
    uid: str = field(compare=False, default="")
    added_at: float = field(compare=False, default=0.0)


class RateLimitedTimedQueue:
    """``RateLimitedTimedQueue``: a unique, time-ordered queue of node names drained through a rate limiter.

    A value stays "seen" after it is processed, so it is processed once until
    :meth:`remove` is called (as when the node becomes Ready again).

    Parameters
    ----------
    qps : float
        Tokens per second (0: nothing is processed).
    now : callable returning float
        The virtual clock.
    """

    def __init__(self, qps: float, now: Callable[[], float]):
        self._now = now
        self.limiter = TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, now)
        self._heap: list[_TimedValue] = []
        self._set: set[str] = set()
        self._queued: dict[str, _TimedValue] = {}
        self._seq = itertools.count()

    def __len__(self) -> int:
        return len(self._queued)

    def add(self, value: str, uid: str = "") -> bool:
        """Queue ``value`` to be processed now; False when it was already added and not removed.

        Parameters
        ----------
        value : str
            A node name.
        uid : str
            The node's uid.
        """
        if value in self._set:
            return False
        t = self._now()
        tv = _TimedValue(t, next(self._seq), value, uid, t)
        self._set.add(value)
        self._queued[value] = tv
        heapq.heappush(self._heap, tv)
        return True

    def remove(self, value: str) -> bool:
        """Forget ``value`` (it can be added again); True when it was known.

        Parameters
        ----------
        value : str
        """
        known = value in self._set
        self._set.discard(value)
        self._queued.pop(value, None)
        return known

    def _head(self) -> _TimedValue | None:
        while self._heap and self._queued.get(self._heap[0].value) is not self._heap[0]:
            heapq.heappop(self._heap)
        return self._heap[0] if self._heap else None

    def try_(self, fn: Callable[[_TimedValue], tuple[bool, float]]) -> None:
        """``Try``: process values whose time has come while the limiter accepts (one token per attempt).

        Parameters
        ----------
        fn : callable(value) -> (bool, float)
            Returns whether the value is done, and else the seconds to wait before retrying it.
        """
        val = self._head()
        while val is not None:
            if not self.limiter.try_accept():
                break
            now = self._now()
            if now < val.process_at:
                break
            ok, wait = fn(val)
            heapq.heappop(self._heap)
            if not ok:
                nv = _TimedValue(now + wait + 1e-9, next(self._seq), val.value, val.uid, val.added_at)
                self._queued[val.value] = nv
                heapq.heappush(self._heap, nv)
            else:
                self._queued.pop(val.value, None)  # stays in the set: processed once
            val = self._head()

    def swap_limiter(self, qps: float) -> None:
        """``SwapLimiter``: a new bucket at ``qps`` (drained when the old one was empty).

        Parameters
        ----------
        qps : float
        """
        if self.limiter.qps == qps:
            return
        new = TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, self._now)
        if qps > 0 and not self.limiter.try_accept():
            new.try_accept()
        self.limiter = new


@dataclass
class _NodeHealth:
    probe_timestamp: float
    ready_transition_timestamp: float
    status: dict
    lease_renew_time: str | None = None


class NodeLifecycleController(Controller):
    """``nodelifecycle.Controller``: node health, zone disruption, NoExecute and NoSchedule taints.

    Options (kube-controller-manager flags): ``node-monitor-period`` (5),
    ``node-monitor-grace-period`` (50), ``node-startup-grace-period`` (60),
    ``node-eviction-rate`` (0.1), ``secondary-node-eviction-rate`` (0.01),
    ``large-cluster-size-threshold`` (50), ``unhealthy-zone-threshold`` (0.55).

    Attributes
    ----------
    zone_states : dict[str, str]
        Zone key -> ``Initial``/``Normal``/``PartialDisruption``/``FullDisruption``.
    zone_no_execute_tainter : dict[str, RateLimitedTimedQueue]

    Notes
    -----
    Simplified: the per-node health updates of one pass run one after the
    other (upstream runs 8 in parallel); the NoExecute tainting pass runs every
    100 ms only while some zone queue holds a node; Events are written through
    the model's recorder without upstream's spam filter.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle/node_lifecycle_controller.go
    """

    name = "node-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        """Read the flags and register the Node, Pod and Lease handlers."""
        opt = self.option
        self.node_monitor_period_seconds = duration_seconds(
            opt("node-monitor-period", DEFAULT_NODE_MONITOR_PERIOD_SECONDS))
        self.node_monitor_grace_period_seconds = duration_seconds(
            opt("node-monitor-grace-period", DEFAULT_NODE_MONITOR_GRACE_PERIOD_SECONDS))
        self.node_startup_grace_period_seconds = duration_seconds(
            opt("node-startup-grace-period", DEFAULT_NODE_STARTUP_GRACE_PERIOD_SECONDS))
        self.eviction_limiter_qps = float(self.option("node-eviction-rate", DEFAULT_NODE_EVICTION_RATE))
        self.secondary_eviction_limiter_qps = float(self.option("secondary-node-eviction-rate",
                                                                DEFAULT_SECONDARY_NODE_EVICTION_RATE))
        self.large_cluster_threshold = int(self.option("large-cluster-size-threshold",
                                                       DEFAULT_LARGE_CLUSTER_SIZE_THRESHOLD))
        self.unhealthy_zone_threshold = float(self.option("unhealthy-zone-threshold",
                                                          DEFAULT_UNHEALTHY_ZONE_THRESHOLD))
        self.known_node_set: dict[str, dict] = {}
        self.node_health: dict[str, _NodeHealth] = {}
        self.zone_states: dict[str, str] = {}
        self.zone_no_execute_tainter: dict[str, RateLimitedTimedQueue] = {}
        self.nodes_to_retry: set[str] = set()
        self._wake: Any = None

        self.node_informer = self.informers.informer_for("nodes")
        self.pod_informer = self.informers.informer_for("pods")
        self.lease_informer = self.informers.informer_for("leases")
        self.pods_by_node = PodsByNode(self.pod_informer)
        self.pod_informer.add_event_handler(lambda p: self._pod_updated(None, p), self._pod_updated,
                                            lambda p: None)
        self.node_informer.add_event_handler(lambda n: self.enqueue("node/" + n["metadata"]["name"]),
                                             lambda o, n: self.enqueue("node/" + n["metadata"]["name"]),
                                             self._node_deleted)

    def start(self) -> None:
        """Start the worker, ``monitorNodeHealth`` every ``node-monitor-period`` and the tainting pass."""
        super().start()
        self.every(self.node_monitor_period_seconds, self.monitor_node_health)
        self.env.process(self._no_execute_tainting_loop())

    # ------------------------------------------------------------ handlers
    def _pod_updated(self, old: dict | None, new: dict | None) -> None:
        if new is None:
            return
        node = (new.get("spec") or {}).get("nodeName")
        if node and (old is None or node != (old.get("spec") or {}).get("nodeName")):
            md = new["metadata"]
            self.enqueue(f"pod/{md['namespace']}/{md['name']}")

    def _node_deleted(self, obj: Any) -> None:
        node = unwrap_deleted(obj)
        if node is not None:
            self.nodes_to_retry.discard(node["metadata"]["name"])

    def _synced(self) -> bool:
        return all(i.has_synced() for i in (self.node_informer, self.pod_informer, self.lease_informer))

    # ------------------------------------------------------------ workqueue
    def reconcile(self, key: str) -> Result | None:
        """``node/<name>``: NoSchedule taints and labels; ``pod/<ns>/<name>``: ``processPod``."""
        kind, _, rest = key.partition("/")
        if kind == "node":
            self.do_no_schedule_tainting_pass(rest)
            self.reconcile_node_labels(rest)
            return None
        if kind == "pod":
            ns, _, name = rest.partition("/")
            return self.process_pod(ns, name)
        return None

    def do_no_schedule_tainting_pass(self, node_name: str) -> None:
        """Make the node's condition and unschedulable NoSchedule taints match its status.

        Parameters
        ----------
        node_name : str
        """
        node = self.node_informer.lister.get("", node_name)
        if node is None:
            return
        want = taints_for_conditions(node)
        have = [t for t in (node.get("spec") or {}).get("taints") or []
                if t.get("effect") == "NoSchedule"
                and (t.get("key") == TAINT_NODE_UNSCHEDULABLE or t.get("key") in _CONDITION_TAINT_KEYS)]
        to_add = [t for t in want if not taint_exists(have, t)]
        to_del = [t for t in have if not taint_exists(want, t)]
        if not to_add and not to_del:
            return
        if not swap_node_controller_taint(self.client, to_add, to_del, node, self.ctx.server.timestamp()):
            raise ApiError({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 500,
                            "reason": "InternalError", "message": f"failed to swap taints of node {node_name}"})

    def reconcile_node_labels(self, node_name: str) -> None:
        """Keep the beta OS/arch labels equal to the GA ones.

        Parameters
        ----------
        node_name : str
        """
        node = self.node_informer.lister.get("", node_name)
        labels = ((node or {}).get("metadata") or {}).get("labels")
        if not labels:
            return
        update = {}
        for primary, secondary in LABEL_RECONCILE:
            if primary in labels and labels.get(secondary) != labels[primary]:
                update[secondary] = labels[primary]
        if update:
            self.client.patch("nodes", node_name, {"metadata": {"labels": update}})

    def process_pod(self, namespace: str, name: str) -> Result | None:
        """A pod newly bound to a not-Ready node is marked not Ready too.

        Parameters
        ----------
        namespace, name : str
        """
        pod = self.pod_informer.lister.get(namespace, name)
        if pod is None:
            return None
        node_name = (pod.get("spec") or {}).get("nodeName")
        health = self.node_health.get(node_name)
        if health is None:
            return None
        if self.node_informer.lister.get("", node_name) is None:
            return Result(requeue=True)
        cond = get_node_condition(health.status, "Ready")
        if cond is None:
            return None
        if cond.get("status") != "True":
            if mark_pods_not_ready(self.client, self.recorder, [pod], node_name, self.ctx.server.timestamp()):
                return Result(requeue=True)
        return None

    # ------------------------------------------------------------ monitorNodeHealth
    def monitor_node_health(self) -> None:
        """One pass over every node: health, Ready=Unknown, taint queueing, pods not Ready, zone states."""
        if not self._synced():
            return
        nodes = sorted(self.node_informer.lister.list(), key=lambda n: n["metadata"]["name"])
        added, deleted, new_zone_reps = self._classify_nodes(nodes)
        for n in new_zone_reps:
            self._add_pod_evictor_for_new_zone(n)
        for n in added:
            md = n["metadata"]
            record_node_event(self.recorder, md["name"], md.get("uid", ""), "Normal", "RegisteredNode",
                              f"Registered Node {md['name']} in Controller")
            self.known_node_set[md["name"]] = n
            self._add_pod_evictor_for_new_zone(n)
            self.mark_node_as_reachable(n)
        for n in deleted:
            md = n["metadata"]
            record_node_event(self.recorder, md["name"], md.get("uid", ""), "Normal", "RemovingNode",
                              f"Removing Node {md['name']} from Controller")
            self.known_node_set.pop(md["name"], None)
            self.node_health.pop(md["name"], None)

        zone_to_ready: dict[str, list[str | None]] = {}
        for cached in nodes:
            node = cached  # copied by try_update_node_health only when it writes
            name = node["metadata"]["name"]
            result = None
            for _ in range(NODE_HEALTH_UPDATE_RETRY):
                try:
                    result = self.try_update_node_health(node)
                    break
                except ApiError:
                    try:
                        node = self.client.get("nodes", name)
                    except ApiError:
                        break
            if result is None:
                continue
            observed, current, node = result
            labels = node["metadata"].get("labels") or {}
            if LABEL_NODE_DISRUPTION_EXCLUSION not in labels:
                zone_to_ready.setdefault(get_zone_key(node), []).append(
                    current.get("status") if current else None)
            if current is not None:
                pods = self.pods_by_node.pods(name)
                # v1.34 passes the Ready condition as this pass left it (kubernetes#120816): a node
                # made Unknown just now is queued for its NoExecute taint in this same pass.
                self.process_taint_base_eviction(node, current)
                needs_retry = name in self.nodes_to_retry
                mark = False
                if current.get("status") != "True" and observed.get("status") == "True":
                    record_node_status_change(self.recorder, node, "NodeNotReady")
                    mark = True
                elif needs_retry and observed.get("status") != "True":
                    mark = True
                if mark and mark_pods_not_ready(self.client, self.recorder, pods, name,
                                                self.ctx.server.timestamp()):
                    self.nodes_to_retry.add(name)
                    continue
            self.nodes_to_retry.discard(name)
        self.handle_disruption(zone_to_ready, nodes)

    def _classify_nodes(self, nodes: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
        added, reps = [], []
        names = set()
        for n in nodes:
            name = n["metadata"]["name"]
            names.add(name)
            if name not in self.known_node_set:
                added.append(n)
            elif get_zone_key(n) not in self.zone_states:
                reps.append(n)
        deleted = [v for k, v in sorted(self.known_node_set.items()) if k not in names]
        return added, deleted, reps

    def _add_pod_evictor_for_new_zone(self, node: dict) -> None:
        zone = get_zone_key(node)
        if zone not in self.zone_states:
            self.zone_states[zone] = STATE_INITIAL
            self.zone_no_execute_tainter[zone] = RateLimitedTimedQueue(self.eviction_limiter_qps,
                                                                       lambda: float(self.env.now))

    def try_update_node_health(self, node: dict) -> tuple[dict, dict | None, dict]:
        """``tryUpdateNodeHealth``: (observed Ready, current Ready, the node as now known), writing Unknown when stale.

        ``node`` may be the shared cached object: it is copied before its
        status is changed (when the grace period has passed).

        Parameters
        ----------
        node : dict

        Raises
        ------
        ApiError
            When the status write fails (the caller re-reads the node and retries).
        """
        now = float(self.env.now)
        server = self.ctx.server
        md = node["metadata"]
        name = md["name"]
        created = timestamp_seconds(md["creationTimestamp"]) if md.get("creationTimestamp") else 0.0
        status = node.get("status") or {}
        health = self.node_health.get(name)
        current = get_node_condition(status, "Ready")
        if current is None:
            observed = {"type": "Ready", "status": "Unknown", "lastHeartbeatTime": md.get("creationTimestamp"),
                        "lastTransitionTime": md.get("creationTimestamp")}
            grace = self.node_startup_grace_period_seconds
            if health is not None:
                health.status = status
            else:
                health = _NodeHealth(created, created, status)
        else:
            observed = dict(current)
            grace = self.node_monitor_grace_period_seconds
        saved = get_node_condition(health.status, "Ready") if health is not None else None
        saved_lease = health.lease_renew_time if health is not None else None
        if health is None:
            health = _NodeHealth(now, now, status)
        elif saved is None and current is not None:
            health = _NodeHealth(now, now, status, saved_lease)
        elif saved is not None and current is None:
            health = _NodeHealth(now, now, status, saved_lease)
        elif saved is not None and current is not None and \
                saved.get("lastHeartbeatTime") != current.get("lastHeartbeatTime"):
            transition = now if saved.get("lastTransitionTime") != current.get("lastTransitionTime") \
                else health.ready_transition_timestamp
            health = _NodeHealth(now, transition, status, saved_lease)
        lease = self.lease_informer.lister.get(NODE_LEASE_NAMESPACE, name)
        renew = ((lease or {}).get("spec") or {}).get("renewTime")
        if renew and (saved_lease is None or saved_lease < renew):
            health.lease_renew_time = renew
            health.probe_timestamp = now
        self.node_health[name] = health

        if now > health.probe_timestamp + grace:
            node = deep_copy(node)
            md = node["metadata"]
            status = node.setdefault("status", {})
            ts = server.timestamp()
            for ctype in ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure"):
                c = get_node_condition(status, ctype)
                if c is None:
                    status.setdefault("conditions", []).append({
                        "type": ctype, "status": "Unknown", "lastHeartbeatTime": md.get("creationTimestamp"),
                        "lastTransitionTime": ts, "reason": NODE_STATUS_NEVER_UPDATED_REASON,
                        "message": NODE_STATUS_NEVER_UPDATED_MESSAGE})
                elif c.get("status") != "Unknown":
                    c["status"] = "Unknown"
                    c["reason"] = NODE_STATUS_UNKNOWN_REASON
                    c["message"] = NODE_STATUS_UNKNOWN_MESSAGE
                    c["lastTransitionTime"] = ts
            current = get_node_condition(status, "Ready")
            if current != observed:
                out = self.client.update_status("nodes", node)
                node["metadata"] = out["metadata"]
                self.node_health[name] = _NodeHealth(health.probe_timestamp, now, status,
                                                     health.lease_renew_time)
        return observed, current, node

    def process_taint_base_eviction(self, node: dict, observed: dict) -> None:
        """Queue a not-Ready/unreachable node for its NoExecute taint, swap it at once, or untaint a Ready node.

        Parameters
        ----------
        node : dict
        observed : dict
            The Ready condition as this pass left it (``currentReadyCondition``): since
            kubernetes/kubernetes#120816 (v1.34) a node this pass marked Unknown is tainted at
            once, not one ``node-monitor-period`` later.
        """
        taints = (node.get("spec") or {}).get("taints") or []
        status = observed.get("status")
        now = self.ctx.server.timestamp()
        if status == "False":
            if taint_exists(taints, UNREACHABLE_TAINT):
                swap_node_controller_taint(self.client, [NOT_READY_TAINT], [UNREACHABLE_TAINT], node, now)
            else:
                self._mark_node_for_tainting(node, "False")
        elif status == "Unknown":
            if taint_exists(taints, NOT_READY_TAINT):
                swap_node_controller_taint(self.client, [UNREACHABLE_TAINT], [NOT_READY_TAINT], node, now)
            else:
                self._mark_node_for_tainting(node, "Unknown")
        elif status == "True":
            try:
                self.mark_node_as_reachable(node)
            except ApiError:
                pass

    def _mark_node_for_tainting(self, node: dict, status: str) -> bool:
        q = self.zone_no_execute_tainter[get_zone_key(node)]
        taints = (node.get("spec") or {}).get("taints") or []
        name = node["metadata"]["name"]
        if status == "False" and not taint_exists(taints, NOT_READY_TAINT):
            q.remove(name)
        if status == "Unknown" and not taint_exists(taints, UNREACHABLE_TAINT):
            q.remove(name)
        added = q.add(name, node["metadata"].get("uid", ""))
        if added and self._wake is not None and not self._wake.triggered:
            self._wake.succeed()
        return added

    def mark_node_as_reachable(self, node: dict) -> bool:
        """Remove both NoExecute taints and forget the node in its zone queue.

        Parameters
        ----------
        node : dict
        """
        name = node["metadata"]["name"]
        remove_taint_off_node(self.client, name, [UNREACHABLE_TAINT], node)
        remove_taint_off_node(self.client, name, [NOT_READY_TAINT], node)
        q = self.zone_no_execute_tainter.get(get_zone_key(node))
        return q.remove(name) if q is not None else False

    # ------------------------------------------------------------ disruption
    def reduced_qps(self, zone_size: int) -> float:
        """``ReducedQPSFunc``: the secondary rate in a large zone, 0 (stop) in a small one.

        Parameters
        ----------
        zone_size : int
            Nodes in the zone.
        """
        return self.secondary_eviction_limiter_qps if zone_size > self.large_cluster_threshold else 0.0

    def healthy_qps(self, zone_size: int) -> float:
        """``HealthyQPSFunc``: the normal eviction rate.

        Parameters
        ----------
        zone_size : int
            Nodes in the zone (unused, as upstream).
        """
        return self.eviction_limiter_qps

    def _set_limiter_in_zone(self, zone: str, zone_size: int, state: str) -> None:
        q = self.zone_no_execute_tainter[zone]
        if state == STATE_NORMAL:
            q.swap_limiter(self.eviction_limiter_qps)
        elif state == STATE_PARTIAL_DISRUPTION:
            q.swap_limiter(self.reduced_qps(zone_size))
        elif state == STATE_FULL_DISRUPTION:
            q.swap_limiter(self.healthy_qps(zone_size))

    def handle_disruption(self, zone_to_ready: dict[str, list[str | None]], nodes: list[dict]) -> None:
        """``handleDisruption``: new zone states and their eviction rates; stop all when every zone is down.

        Parameters
        ----------
        zone_to_ready : dict[str, list]
            Zone key -> Ready status of each node in it.
        nodes : list of dict
            Every node of this pass.
        """
        new_states: dict[str, str] = {}
        all_are_fully_disrupted = True
        for zone, statuses in zone_to_ready.items():
            _, state = compute_zone_state(statuses, self.unhealthy_zone_threshold)
            if state != STATE_FULL_DISRUPTION:
                all_are_fully_disrupted = False
            new_states[zone] = state
            self.zone_states.setdefault(zone, STATE_INITIAL)
        all_was_fully_disrupted = True
        for zone in list(self.zone_states):
            if zone not in zone_to_ready:
                del self.zone_states[zone]
                continue
            if self.zone_states[zone] != STATE_FULL_DISRUPTION:
                all_was_fully_disrupted = False
                break
        if all_are_fully_disrupted and all_was_fully_disrupted:
            return
        if all_are_fully_disrupted:
            for n in nodes:
                try:
                    self.mark_node_as_reachable(n)
                except ApiError:
                    pass
            for zone in self.zone_states:
                self.zone_no_execute_tainter[zone].swap_limiter(0.0)
                self.zone_states[zone] = STATE_FULL_DISRUPTION
            return
        if all_was_fully_disrupted:
            now = float(self.env.now)
            for n in nodes:
                h = self.node_health.get(n["metadata"]["name"])
                if h is not None:
                    h.probe_timestamp = now
                    h.ready_transition_timestamp = now
            for zone in self.zone_states:
                self._set_limiter_in_zone(zone, len(zone_to_ready.get(zone, [])), new_states[zone])
                self.zone_states[zone] = new_states[zone]
            return
        for zone, state in list(self.zone_states.items()):
            new = new_states.get(zone, state)
            if state == new:
                continue
            self._set_limiter_in_zone(zone, len(zone_to_ready.get(zone, [])), new)
            self.zone_states[zone] = new

    # ------------------------------------------------------------ NoExecute tainting
    def _no_execute_tainting_loop(self) -> Generator:
        while True:
            if not any(len(q) for q in self.zone_no_execute_tainter.values()):
                self._wake = self.env.event()
                yield self._wake
                self._wake = None
                # upstream's pass runs on a 100 ms tick (wait.Until): the first tick after the
                # queueing, when the informer already holds the status this monitor pass wrote
                yield self.env.timeout(NODE_EVICTION_PERIOD_SECONDS)
            self.do_no_execute_tainting_pass()
            yield self.env.timeout(NODE_EVICTION_PERIOD_SECONDS)

    def do_no_execute_tainting_pass(self) -> None:
        """``doNoExecuteTaintingPass``: taint queued nodes, as fast as each zone's limiter allows."""
        for zone in list(self.zone_no_execute_tainter):
            self.zone_no_execute_tainter[zone].try_(self._taint_one)

    def _taint_one(self, value: _TimedValue) -> tuple[bool, float]:
        node = self.node_informer.lister.get("", value.value)
        if node is None:
            return True, 0.0
        cond = get_node_condition(node.get("status"), "Ready")
        if cond is None:
            return False, 0.05
        if cond.get("status") == "False":
            add, opposite = NOT_READY_TAINT, UNREACHABLE_TAINT
        elif cond.get("status") == "Unknown":
            add, opposite = UNREACHABLE_TAINT, NOT_READY_TAINT
        else:
            return True, 0.0
        return swap_node_controller_taint(self.client, [add], [opposite], node, self.ctx.server.timestamp()), 0.0
