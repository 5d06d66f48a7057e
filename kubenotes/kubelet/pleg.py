"""The generic Pod Lifecycle Event Generator (PLEG): relisting the runtime.

Mirrors ``pkg/kubelet/pleg`` (generic.go, pleg.go). The kubelet does not
watch the container runtime; every ``relist_period_seconds`` (1 s) the
generic PLEG

1. lists every sandbox and container through CRI (``ListPodSandbox`` and
   ``ListContainers``, the runtime's ``GetPods``) and groups them by pod UID;
2. compares each container's (and sandbox's) state with the previous relist:
   running -> ``ContainerStarted``, exited -> ``ContainerDied``, gone ->
   ``ContainerRemoved`` (preceded by ``ContainerDied`` if it was not already
   exited), created/unknown -> ``ContainerChanged`` (computed but never sent);
3. for every pod with events, inspects it (``GetPodStatus``: a filtered
   ``ListPodSandbox``, ``PodSandboxStatus`` per sandbox, a filtered
   ``ListContainers``, ``ContainerStatus`` per container), writes the pod
   cache and sends the events to the kubelet's sync loop through a channel of
   1000 (a full channel drops events: "Event channel is full, discard this
   relist() cycle event"); a pod whose inspection fails keeps its old record
   and is reinspected at the next relist.

The relist timestamp is taken when a relist starts and stored once the lists
succeeded; ``Healthy`` fails when it is older than 3 minutes, which turns the
node ``NotReady`` with ``PLEG is not healthy: pleg was last seen active
3m0.1s ago; threshold is 3m0s``. A relist's duration grows with the number
of pods and containers, and with how many of them changed — the reason the
kubelet's ``maxPods`` default stayed at 110 (:func:`relist_seconds`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/pleg/generic.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/pleg/pleg.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go (genericPlegRelistPeriod, genericPlegRelistThreshold,
plegChannelCapacity)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/runtime.go (runtimeState: "%s is not healthy: %v")
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (GetPods, GetPodStatus)
https://github.com/kubernetes/community/blob/master/contributors/design-proposals/node/pod-lifecycle-event-generator.md
https://kubernetes.io/blog/2016/11/visualize-kubelet-performance-with-node-dashboard/ (PLEG relist latency)
"""

from __future__ import annotations

import collections

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

import simpy

from kubenotes.kubelet.backoff import go_duration

__all__ = [
    "CONTAINER_STARTED",
    "CONTAINER_DIED",
    "CONTAINER_REMOVED",
    "POD_SYNC",
    "CONTAINER_CHANGED",
    "RELIST_PERIOD_SECONDS",
    "RELIST_THRESHOLD_SECONDS",
    "PLEG_CHANNEL_CAPACITY",
    "POD_UID_LABEL",
    "EVENT_CHANNEL_FULL_MESSAGE",
    "PodLifecycleEvent",
    "RelistCost",
    "GenericPLEG",
    "generate_events",
    "pleg_not_healthy_message",
    "relist_seconds",
    "max_pods_within_period",
]

#: The most recent relists, sent events and log lines a PLEG keeps (one hour of relists at 1 s).
HISTORY_ROWS = 3600

#: ``PodLifeCycleEventType`` values.
CONTAINER_STARTED = "ContainerStarted"
CONTAINER_DIED = "ContainerDied"
CONTAINER_REMOVED = "ContainerRemoved"
POD_SYNC = "PodSync"
CONTAINER_CHANGED = "ContainerChanged"

#: ``genericPlegRelistPeriod``.
RELIST_PERIOD_SECONDS = 1.0
#: ``genericPlegRelistThreshold`` (3 minutes).
RELIST_THRESHOLD_SECONDS = 180.0
#: ``plegChannelCapacity``.
PLEG_CHANNEL_CAPACITY = 1000
#: ``types.KubernetesPodUIDLabel``: the label the kubelet puts on sandboxes and containers.
POD_UID_LABEL = "io.kubernetes.pod.uid"
#: The log line of a dropped event.
EVENT_CHANNEL_FULL_MESSAGE = "Event channel is full, discard this relist() cycle event"

_RUNNING, _EXITED, _UNKNOWN, _NON_EXISTENT = "running", "exited", "unknown", "non-existent"


class PodLifecycleEvent(NamedTuple):
    """``PodLifecycleEvent``: pod UID, event type, and the container (or sandbox) ID."""

    id: str
    type: str
    data: Any


def generate_events(pod_id: str, cid: str, old_state: str, new_state: str) -> list[PodLifecycleEvent]:
    """``generateEvents``: the events for one container's state change.

    Parameters
    ----------
    pod_id, cid : str
        Pod UID and container ID.
    old_state, new_state : str
        ``running``, ``exited``, ``unknown`` or ``non-existent``.

    Returns
    -------
    list of PodLifecycleEvent

    Examples
    --------
    >>> [e.type for e in generate_events("p", "c", "running", "non-existent")]
    ['ContainerDied', 'ContainerRemoved']
    >>> [e.type for e in generate_events("p", "c", "exited", "non-existent")]
    ['ContainerRemoved']
    >>> generate_events("p", "c", "running", "running")
    []
    """
    if new_state == old_state:
        return []
    if new_state == _RUNNING:
        return [PodLifecycleEvent(pod_id, CONTAINER_STARTED, cid)]
    if new_state == _EXITED:
        return [PodLifecycleEvent(pod_id, CONTAINER_DIED, cid)]
    if new_state == _UNKNOWN:
        return [PodLifecycleEvent(pod_id, CONTAINER_CHANGED, cid)]
    if old_state == _EXITED:
        return [PodLifecycleEvent(pod_id, CONTAINER_REMOVED, cid)]
    return [PodLifecycleEvent(pod_id, CONTAINER_DIED, cid), PodLifecycleEvent(pod_id, CONTAINER_REMOVED, cid)]


def _container_state(cri_state: str) -> str:
    # kubelet does not use the "created" state yet: it becomes "unknown" (convertState)
    return {"CONTAINER_RUNNING": _RUNNING, "CONTAINER_EXITED": _EXITED}.get(cri_state, _UNKNOWN)


def _sandbox_state(cri_state: str) -> str:
    return _RUNNING if cri_state == "SANDBOX_READY" else _EXITED


def pleg_not_healthy_message(healthy_message: str) -> str:
    """The runtime-state error the node's Ready condition shows (``PLEG is not healthy: ...``).

    Examples
    --------
    >>> pleg_not_healthy_message("pleg has yet to be successful")
    'PLEG is not healthy: pleg has yet to be successful'
    """
    return f"PLEG is not healthy: {healthy_message}"


@dataclass(frozen=True)
class RelistCost:
    """Kubelet-side processing time of a relist (illustrative values).

    Attributes
    ----------
    per_pod_seconds : float
        Grouping and diffing one pod's record.
    per_container_seconds : float
        Converting and diffing one container or sandbox.
    per_status_seconds : float
        Building one pod's status from the inspection answers.

    Notes
    -----
    Upstream has no such constants: the real cost is Go CPU time plus the
    runtime's answer latency. These are chosen only so the curve has a
    plausible shape; the CRI latencies themselves come from the runtime model.
    """

    per_pod_seconds: float = 0.0001
    per_container_seconds: float = 0.00005
    per_status_seconds: float = 0.0002


class _KubePod(dict):
    """A ``kubecontainer.Pod`` from the relist: id, name, namespace, containers, sandboxes."""


def _is_cri_error(err: BaseException) -> bool:
    return type(err).__name__ == "CRIError"


class GenericPLEG:
    """The generic PLEG (``GenericPLEG``) as a SimPy process over a CRI runtime.

    Parameters
    ----------
    env : simpy.Environment
    runtime : object
        A CRI runtime following kubenotes' CRI contract: generator methods
        ``ListPodSandbox``, ``ListContainers``, ``PodSandboxStatus``,
        ``ContainerStatus`` taking and returning proto-shaped dicts and
        raising ``CRIError``.
    relist_period_seconds : float
        Pause between the end of one relist and the start of the next (1 s,
        ``wait.Until``).
    relist_threshold_seconds : float
        ``Healthy`` fails when the last relist started longer ago (3 min).
    channel_capacity : int
        Size of the event channel (1000); extra events are dropped.
    cost : RelistCost
        Kubelet-side processing time per pod/container (illustrative).
    on_event : callable, optional
        ``on_event(event)`` for every event put on the channel (how the
        kubelet model can react without reading the channel).

    Attributes
    ----------
    event_channel : simpy.Store
        The channel (``Watch()``); consumers ``yield event_channel.get()``.
    relist_time : float or None
        Start time of the last successful relist.
    cache : dict
        pod UID -> ``{"status", "error", "timestamp"}`` written by inspections.
    relists : list of dict
        One row per relist: ``start``, ``end``, ``duration_seconds``, ``pods``,
        ``containers``, ``events``, ``error``.
    sent : list of tuple
        ``(time, PodLifecycleEvent)`` for every event sent.
    discarded : int
        Events dropped because the channel was full.
    log : list of tuple
        ``(time, message)`` of the lines upstream logs at error level.

    Notes
    -----
    Simplified: the per-pod on-demand relist and the evented PLEG are left
    out; the generic PLEG of v1.34 does not emit ``PodSync`` (the evented
    PLEG does), so the constant is defined but not produced here. Pods are
    visited in the order the runtime lists them (upstream: Go map order).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/pleg/generic.go

    Examples
    --------
    >>> import simpy
    >>> class Runtime:
    ...     def __init__(self, env): self.env, self.items = env, []
    ...     def ListPodSandbox(self, req):
    ...         yield self.env.timeout(0.01); return {"items": self.items}
    ...     def ListContainers(self, req):
    ...         yield self.env.timeout(0.01); return {"containers": []}
    ...     def PodSandboxStatus(self, req):
    ...         yield self.env.timeout(0.01); return {"status": {"id": req["pod_sandbox_id"]}}
    >>> env = simpy.Environment(); rt = Runtime(env)
    >>> pleg = GenericPLEG(env, rt); _ = pleg.start()
    >>> rt.items = [{"id": "s1", "metadata": {"uid": "u1", "name": "web", "namespace": "default"},
    ...              "state": "SANDBOX_READY"}]
    >>> env.run(until=5)
    >>> [(round(t, 2), e.type, e.data) for t, e in pleg.sent]
    [(0.05, 'ContainerStarted', 's1')]
    >>> pleg.healthy(), pleg.healthy(now=pleg.relist_time + 180.5)[1]
    ((True, ''), 'pleg was last seen active 3m0.5s ago; threshold is 3m0s')
    """

    def __init__(
        self,
        env: simpy.Environment,
        runtime: Any,
        *,
        relist_period_seconds: float = RELIST_PERIOD_SECONDS,
        relist_threshold_seconds: float = RELIST_THRESHOLD_SECONDS,
        channel_capacity: int = PLEG_CHANNEL_CAPACITY,
        cost: RelistCost | None = None,
        on_event: Callable[[PodLifecycleEvent], Any] | None = None,
    ) -> None:
        self.env = env
        self.runtime = runtime
        self.relist_period_seconds = float(relist_period_seconds)
        self.relist_threshold_seconds = float(relist_threshold_seconds)
        self.channel_capacity = int(channel_capacity)
        self.cost = cost or RelistCost()
        self.on_event = on_event
        self.event_channel = simpy.Store(env)
        self.pod_records: dict[str, dict[str, Any]] = {}
        self.pods_to_reinspect: dict[str, Any] = {}
        self.cache: dict[str, dict[str, Any]] = {}
        self.cache_timestamp: float | None = None
        self.relist_time: float | None = None
        # Bounded: a node relists every second for as long as it runs (an hour at 100 nodes is 360,000 rows).
        self.relists: collections.deque[dict] = collections.deque(maxlen=HISTORY_ROWS)
        self.sent: collections.deque[tuple[float, PodLifecycleEvent]] = collections.deque(maxlen=HISTORY_ROWS)
        self.discarded = 0
        self.log: collections.deque[tuple[float, str]] = collections.deque(maxlen=HISTORY_ROWS)
        self._process: simpy.Process | None = None
        self._running = False

    # --- lifecycle --------------------------------------------------------
    def start(self) -> simpy.Process:
        """Start relisting: at once, then ``relist_period_seconds`` after each relist ends."""
        if self._process is None or not self._process.is_alive:
            self._running = True
            self._process = self.env.process(self._loop())
        return self._process

    def stop(self) -> None:
        """Stop relisting (the current relist, if any, is abandoned)."""
        self._running = False
        if self._process is not None and self._process.is_alive and self._process is not self.env.active_process:
            self._process.interrupt("stop")

    def _loop(self):
        try:
            while self._running:
                yield from self.relist()
                yield self.env.timeout(self.relist_period_seconds)
        except simpy.Interrupt:
            pass

    def watch(self) -> simpy.Store:
        """The event channel (``Watch``)."""
        return self.event_channel

    def healthy(self, now: float | None = None) -> tuple[bool, str]:
        """``Healthy``: (ok, message); not ok before the first relist or past the threshold.

        Parameters
        ----------
        now : float, optional
            Defaults to ``env.now``.
        """
        if self.relist_time is None:
            return False, "pleg has yet to be successful"
        now = self.env.now if now is None else float(now)
        elapsed = now - self.relist_time
        if elapsed > self.relist_threshold_seconds:
            return False, (f"pleg was last seen active {go_duration(elapsed)} ago; "
                           f"threshold is {go_duration(self.relist_threshold_seconds)}")
        return True, ""

    def request_reinspect(self, pod_uid: str) -> None:
        """Ask for the pod to be inspected at the next relist even without events."""
        rec = self.pod_records.get(pod_uid) or {}
        self.pods_to_reinspect[pod_uid] = rec.get("current")

    # --- relist -----------------------------------------------------------
    def _get_pods(self):
        """``runtime.GetPods(all=true)``: two list RPCs grouped by pod UID."""
        sandboxes = (yield from self.runtime.ListPodSandbox({})).get("items") or []
        containers = (yield from self.runtime.ListContainers({})).get("containers") or []
        pods: dict[str, _KubePod] = {}
        sandbox_pod: dict[str, str] = {}

        def pod_for(uid: str, meta: dict) -> _KubePod:
            if uid not in pods:
                pods[uid] = _KubePod(id=uid, name=meta.get("name", ""), namespace=meta.get("namespace", ""),
                                     containers={}, sandboxes={})
            return pods[uid]

        for s in sandboxes:
            meta = s.get("metadata") or {}
            uid = _sandbox_uid(s)
            sandbox_pod[s.get("id", "")] = uid
            pod_for(uid, meta)["sandboxes"][s.get("id", "")] = _sandbox_state(s.get("state", ""))
        for c in containers:
            labels = c.get("labels") or {}
            uid = labels.get(POD_UID_LABEL) or sandbox_pod.get(c.get("pod_sandbox_id", ""), "")
            meta = {"name": labels.get("io.kubernetes.pod.name", ""), "namespace": labels.get("io.kubernetes.pod.namespace", "")}
            pod_for(uid, meta)["containers"][c.get("id", "")] = _container_state(c.get("state", ""))
        return pods, len(sandboxes) + len(containers)

    def _update_cache(self, pod: _KubePod | None, pid: str):
        """``updateCache``: inspect the pod (``GetPodStatus``) and store its status."""
        if pod is None:
            self.cache.pop(pid, None)
            return None
        selector = {"filter": {"label_selector": {POD_UID_LABEL: pid}}}
        status: dict[str, Any] = {"id": pid, "sandbox_statuses": [], "container_statuses": []}
        try:
            items = (yield from self.runtime.ListPodSandbox(selector)).get("items") or []
            items = [x for x in items if _sandbox_uid(x) == pid]
            sandbox_ids = {x.get("id") for x in items}
            for x in items:
                resp = yield from self.runtime.PodSandboxStatus({"pod_sandbox_id": x.get("id"), "verbose": False})
                status["sandbox_statuses"].append(resp.get("status", resp))
            listed = (yield from self.runtime.ListContainers(selector)).get("containers") or []
            for c in listed:
                if (c.get("labels") or {}).get(POD_UID_LABEL) != pid and c.get("pod_sandbox_id") not in sandbox_ids:
                    continue
                resp = yield from self.runtime.ContainerStatus({"container_id": c.get("id"), "verbose": False})
                status["container_statuses"].append(resp.get("status", resp))
            if self.cost.per_status_seconds:
                yield self.env.timeout(self.cost.per_status_seconds)
        except Exception as err:  # noqa: BLE001 - only CRI errors are expected
            if not _is_cri_error(err):
                raise
            self.cache[pid] = {"status": status, "error": str(err), "timestamp": self.env.now}
            return str(err)
        self.cache[pid] = {"status": status, "error": None, "timestamp": self.env.now}
        return None

    def relist(self):
        """One relist (``Relist``): a generator taking the CRI and processing time.

        Yields
        ------
        simpy events (the RPCs' and the processing's virtual time).
        """
        timestamp = self.env.now
        row = {"start": timestamp, "end": None, "duration_seconds": None, "pods": 0, "containers": 0,
               "events": 0, "error": None}
        self.relists.append(row)
        try:
            pods, n_items = yield from self._get_pods()
        except Exception as err:  # noqa: BLE001
            if not _is_cri_error(err):
                raise
            row.update(end=self.env.now, duration_seconds=self.env.now - timestamp, error=str(err))
            self.log.append((self.env.now, f"GenericPLEG: Unable to retrieve pods: {err}"))
            return
        self.relist_time = timestamp
        row["pods"], row["containers"] = len(pods), n_items
        work = self.cost.per_pod_seconds * len(pods) + self.cost.per_container_seconds * n_items
        if work > 0:
            yield self.env.timeout(work)

        # setCurrent
        for rec in self.pod_records.values():
            rec["current"] = None
        for pid, pod in pods.items():
            self.pod_records.setdefault(pid, {"old": None, "current": None})["current"] = pod

        events_by_pod: dict[str, list[PodLifecycleEvent]] = {}
        for pid, rec in self.pod_records.items():
            old, new = rec["old"], rec["current"]
            if old is not None and new is not None and old["containers"] == new["containers"] \
                    and old["sandboxes"] == new["sandboxes"]:
                continue  # every container and sandbox in the same state: no events (most relists)
            for cid in _container_ids(old, new):
                for e in generate_events(pid, cid, _state(old, cid), _state(new, cid)):
                    events_by_pod.setdefault(pid, []).append(e)

        needs_reinspection: dict[str, Any] = {}
        for pid, events in events_by_pod.items():
            pod = self.pod_records[pid]["current"]
            err = yield from self._update_cache(pod, pid)
            if err is not None:
                needs_reinspection[pid] = pod
                continue
            self.pods_to_reinspect.pop(pid, None)
            # update the record and send the events
            rec = self.pod_records[pid]
            rec["old"] = rec["current"]
            if rec["current"] is None:
                del self.pod_records[pid]
            for e in events:
                if e.type == CONTAINER_CHANGED:
                    continue  # not reliable, nobody uses it
                if len(self.event_channel.items) >= self.channel_capacity:
                    self.discarded += 1
                    self.log.append((self.env.now, EVENT_CHANNEL_FULL_MESSAGE))
                    continue
                self.event_channel.put(e)
                self.sent.append((self.env.now, e))
                row["events"] += 1
                if self.on_event is not None:
                    self.on_event(e)

        for pid, pod in list(self.pods_to_reinspect.items()):
            err = yield from self._update_cache(pod, pid)
            if err is not None:
                needs_reinspection[pid] = pod
        self.cache_timestamp = timestamp
        self.pods_to_reinspect = needs_reinspection
        row.update(end=self.env.now, duration_seconds=self.env.now - timestamp)


def _sandbox_uid(sandbox: dict) -> str:
    return (sandbox.get("metadata") or {}).get("uid") or (sandbox.get("labels") or {}).get(POD_UID_LABEL, "")


def _container_ids(*pods: _KubePod | None) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for p in pods:
        if p is None:
            continue
        for cid in list(p["containers"]) + list(p["sandboxes"]):
            if cid not in seen:
                seen.add(cid)
                out.append(cid)
    return out


def _state(pod: _KubePod | None, cid: str) -> str:
    if pod is None:
        return _NON_EXISTENT
    if cid in pod["containers"]:
        return pod["containers"][cid]
    return pod["sandboxes"].get(cid, _NON_EXISTENT)


def relist_seconds(
    pods: int,
    containers_per_pod: float,
    *,
    changed_pods: int | None = None,
    rpc_seconds: float = 0.001,
    rpc_per_item_seconds: float = 0.0002,
    status_rpc_seconds: float = 0.0018,
    cost: RelistCost | None = None,
) -> float:
    """Estimated duration of one relist (pure function for the PLEG-cost curve).

    Parameters
    ----------
    pods : int
        Pods on the node (one sandbox each).
    containers_per_pod : float
        Containers per pod.
    changed_pods : int, optional
        Pods with a container state change since the last relist, each
        inspected with ``GetPodStatus``; default all of them (a node coming
        back, or a mass restart).
    rpc_seconds : float
        Fixed latency of one CRI call (illustrative).
    rpc_per_item_seconds : float
        Extra latency per sandbox/container a list call returns (illustrative).
    status_rpc_seconds : float
        Latency of one ``PodSandboxStatus``/``ContainerStatus`` call (illustrative).
    cost : RelistCost, optional
        Kubelet-side processing costs.

    Returns
    -------
    float
        Seconds.

    Raises
    ------
    TypeError
        For non-numeric arguments; nothing of its own (negative counts give
        a meaningless duration, not an error).

    Notes
    -----
    Illustrative parameters, chosen so that a relist in which every one of
    110 two-container pods changed takes about the 1 s relist period. The
    110 default of ``maxPods`` comes from the kubelet's scalability tests of
    2015-2016, when PLEG relist latency under churn was the limit (the SLO
    was about keeping relists within their period); the curve shows that
    shape, not a measurement.

    See Also
    --------
    max_pods_within_period

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/pleg/generic.go (Relist, updateCache)

    Examples
    --------
    >>> round(relist_seconds(110, 2), 2)
    1.0
    >>> relist_seconds(110, 2, changed_pods=0) < 0.1
    True
    """
    c = cost or RelistCost()
    items = pods * (1 + containers_per_pod)
    changed = pods if changed_pods is None else min(changed_pods, pods)
    lists = 2 * rpc_seconds + rpc_per_item_seconds * items
    processing = c.per_pod_seconds * pods + c.per_container_seconds * items
    per_changed = (2 * rpc_seconds + rpc_per_item_seconds * (1 + containers_per_pod)
                   + status_rpc_seconds * (1 + containers_per_pod) + c.per_status_seconds)
    return lists + processing + changed * per_changed


def max_pods_within_period(containers_per_pod: float, period_seconds: float = RELIST_PERIOD_SECONDS, **kwargs: Any) -> int:
    """The largest pod count whose relist (:func:`relist_seconds`) fits in the period.

    Parameters
    ----------
    containers_per_pod : float
        Containers per pod.
    period_seconds : float
        The relist period (``RELIST_PERIOD_SECONDS``, 1 s).
    **kwargs
        Passed to :func:`relist_seconds` (``changed_pods``, the RPC
        latencies, ``cost``).

    Returns
    -------
    int
        Pods; 0 when even one pod does not fit, at most 100001 (the search stops there).

    Raises
    ------
    TypeError
        For a keyword :func:`relist_seconds` does not take, or non-numeric values.

    See Also
    --------
    relist_seconds

    Notes
    -----
    A linear search over the illustrative cost model, not a measurement: it
    shows why a per-node pod limit follows from a relist period.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/pleg/generic.go (relistPeriod)
    https://kubernetes.io/docs/setup/best-practices/cluster-large/ (110 pods per node)

    Examples
    --------
    >>> max_pods_within_period(2)
    110
    >>> max_pods_within_period(2, 0.5), max_pods_within_period(4)
    (55, 73)
    """
    n = 0
    while relist_seconds(n + 1, containers_per_pod, **kwargs) <= period_seconds:
        n += 1
        if n > 100000:
            break
    return n
