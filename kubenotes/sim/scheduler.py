"""kube-scheduler as one component of the running cluster: informers in, bindings out.

The scheduling itself is chapter 04's :class:`~kubenotes.scheduler.schedule_one.Scheduler`
(the same framework, plugins, queue and preemption, untouched). This module
gives it what ``cmd/kube-scheduler`` gives ``pkg/scheduler``: event handlers
on the pod and node informers that feed its queue and cache
(``eventhandlers.go``), a loop that runs ``ScheduleOne`` on the virtual clock
while the active queue has pods (honouring each pod's back-off), and writes
through the API: the ``pods/binding`` subresource for DefaultBinder, the
``Scheduled`` and ``FailedScheduling`` Events, the ``PodScheduled=False``
condition with the FailedScheduling message, ``status.nominatedNodeName``,
and preemption victims' deletion.

Notes
-----
Simplified: the scheduler cache is rebuilt from the informer caches when the
set of nodes or a node's scheduling-relevant fields change (labels, taints,
allocatable, unschedulable), instead of being updated incrementally; pods the
scheduler assumed stay assumed until their bound update arrives, as upstream.
Across a rebuild, a pod in the unschedulable pool stays there unless one of the
Node events since the last rebuild is worth requeuing it
(:func:`~kubenotes.scheduler.queue.is_pod_worth_requeuing_after_node_event`,
v1.34's queueing hints); the others are queued afresh.
The other objects plugins read (claims, volumes, classes, CSI objects,
Services, workload owners, PDBs) are kept as upstream's informer-backed
listers are: each watch event names its key, and at the top of the next
cycle only those keys are read again from the informer's cache
(:class:`~kubenotes.scheduler.snapshot.TypedIndex`), so a cycle costs what
changed, not how many objects exist; the lists and the volume plugins' maps
are replaced, not mutated, so a cycle in flight keeps its view.
Scheduling takes no virtual time. Pod updates of pending pods other than
deletion are not re-queued. A change of a PV, claim, StorageClass, CSINode,
CSIDriver, CSIStorageCapacity or VolumeAttachment moves the pods a volume plugin rejected
straight to activeQ (upstream: the plugins' queueing hints, then activeQ or
backoffQ). VolumeBinding's PreBind wait (``binder.go`` BindPodVolumes) runs
as a process on the clock; the pod's Bind follows it, or the binding cycle
fails as ``handleBindingCycleError`` does and the pod is queued again at once
(upstream: backoffQ).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/eventhandlers.go (addAllEventHandlers)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go (listers read the indexer)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (handleSchedulingFailure: FailedScheduling, PodScheduled condition)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/defaultbinder/default_binder.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/internal/queue/scheduling_queue.go (flushBackoffQCompleted every 1 s,
    flushUnschedulablePodsLeftover every 30 s after podMaxInUnschedulablePodsDuration 5 min)
"""

from __future__ import annotations

from typing import Any, Generator

from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.client.flowcontrol import run_blocking

__all__ = ["KubeScheduler", "SCHEDULER_NAME", "POD_MAX_IN_UNSCHEDULABLE_PODS_SECONDS"]

SCHEDULER_NAME = "default-scheduler"

#: ClusterObjects attribute -> the resource its informer watches (``eventhandlers.go`` registers the same kinds).
_OBJECT_RESOURCES = {"namespaces": "namespaces", "services": "services",
                     "replication_controllers": "replicationcontrollers", "replica_sets": "replicasets",
                     "stateful_sets": "statefulsets", "persistent_volume_claims": "persistentvolumeclaims",
                     "persistent_volumes": "persistentvolumes", "storage_classes": "storageclasses",
                     "csi_nodes": "csinodes", "csi_drivers": "csidrivers",
                     "csi_storage_capacities": "csistoragecapacities",
                     "volume_attachments": "volumeattachments",
                     "pod_disruption_budgets": "poddisruptionbudgets"}
# (no PriorityClasses: kube-scheduler reads spec.priority, which Priority admission has set)
#: Kinds whose changes the volume plugins register for, and those plugins.
_STORAGE_KINDS = frozenset({"PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode", "CSIDriver",
                            "CSIStorageCapacity", "VolumeAttachment"})
_VOLUME_PLUGINS = frozenset({"VolumeBinding", "VolumeZone", "VolumeRestrictions", "NodeVolumeLimits"})
#: podMaxInUnschedulablePodsDuration: a pod parked this long is retried even without a matching event.
POD_MAX_IN_UNSCHEDULABLE_PODS_SECONDS = 300.0


def _node_key(n: dict) -> tuple:
    spec, st = n.get("spec") or {}, n.get("status") or {}
    md = n.get("metadata", {})
    return (md.get("name"), tuple(sorted((md.get("labels") or {}).items())),
            repr(spec.get("taints")), bool(spec.get("unschedulable")), repr(st.get("allocatable")),
            repr(st.get("images")))


class KubeScheduler:
    """The running scheduler: informer handlers, the ScheduleOne loop, API writes.

    Parameters
    ----------
    cluster : Cluster
    config : KubeSchedulerConfiguration, optional
    seed : int
    trace : bool
        Keep chapter 04's per-node traces of every attempt (slower; the
        decisions and messages are the same either way).

    Attributes
    ----------
    scheduler : Scheduler
        Chapter 04's scheduler over the current cache (rebuilt when nodes change).
    traces : list[AttemptTrace]
        Every attempt, in order, across rebuilds.
    """

    component = SCHEDULER_NAME

    def __init__(self, cluster: Any, config: Any = None, seed: int = 0, trace: bool = False):
        from kubenotes.apiserver.request import UserInfo
        from kubenotes.client.record import EventRecorder

        self.cluster = cluster
        self.env = cluster.env
        self.config = config
        self.seed = seed
        self.trace = trace
        self.client = cluster.server.client(self.component, UserInfo("system:kube-scheduler",
                                                                    groups=("system:authenticated",)))
        self.recorder = EventRecorder(self.client, self.component)
        inf = cluster.scheduler_informers
        self.pod_informer = inf.informer_for("pods")
        self.node_informer = inf.informer_for("nodes")
        self.pod_informer.add_event_handler(self._on_pod_add, self._on_pod_update, self._on_pod_delete)
        self.node_informer.add_event_handler(lambda new: self._on_node_change(new, None),
                                             lambda old, new: self._on_node_change(new, old),
                                             lambda old: self._on_node_change(old, None, deleted=True))
        self.scheduler = None
        self.traces: list = []
        self._node_keys: dict[str, tuple] | None = None  # node name -> the fields the scheduler reads
        self._dirty = True
        self._wake = None
        #: Node events since the last rebuild: (action type, old node, new node), as stored dicts.
        self._node_events: list[tuple[str, dict | None, dict | None]] = []
        self._pending: dict[str, dict] = {}  # uid -> pending pod dict
        # The other objects plugins read (ClusterObjects), from the scheduler's own informers: one instance whose
        # lists (and the volume plugins' maps) are TypedIndexes kept from the watch events, updated at the top of
        # each cycle with only the keys that changed since the last one.
        from kubenotes.scheduler.snapshot import ClusterObjects, ObjectListers, TypedIndex

        self._indexes = {attr: TypedIndex(attr, with_dicts=attr in ObjectListers.ATTRS)
                         for attr in _OBJECT_RESOURCES if attr != "namespaces"}
        self.objects = ClusterObjects(informed=self._indexes)
        #: ClusterObjects attribute -> informer keys changed since the last refresh (None: all, at start).
        self._changed: dict[str, dict[str, None]] | None = None
        for attr, resource in _OBJECT_RESOURCES.items():
            inf.informer_for(resource).add_event_handler(
                lambda obj, attr=attr: self._on_object_change(attr, obj),
                lambda old, new, attr=attr: self._on_object_change(attr, new),
                lambda obj, attr=attr: self._on_object_change(attr, obj))
        self._assumed: set[str] = set()
        self._volume_waits: dict[str, tuple] = {}  # pod uid -> VolumeBinding's PreBind wait (binding deferred)
        self._waiting_uids: set[str] = set()  # pods whose binding cycle waits for their volumes

    # ------------------------------------------------------------ handlers
    def _responsible(self, pod: dict) -> bool:
        return ((pod.get("spec") or {}).get("schedulerName") or SCHEDULER_NAME) == SCHEDULER_NAME

    def _kick(self) -> None:
        if self._wake is not None and not self._wake.triggered:
            self._wake.succeed()

    def _on_pod_add(self, pod: dict) -> None:
        spec = pod.get("spec") or {}
        uid = pod["metadata"]["uid"]
        if spec.get("nodeName"):
            if uid in self._assumed:
                self._assumed.discard(uid)
                return
            if self.scheduler is not None:
                self._add_bound(pod)
            return
        if not self._responsible(pod) or pod["metadata"].get("deletionTimestamp"):
            return
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            return
        self._pending[uid] = pod
        if self.scheduler is not None:
            self._queue(pod)
        self._kick()

    def _on_pod_update(self, old: dict, new: dict) -> None:
        uid = new["metadata"]["uid"]
        was_bound = bool((old.get("spec") or {}).get("nodeName"))
        if not was_bound and (new.get("spec") or {}).get("nodeName"):
            self._pending.pop(uid, None)
            self._on_pod_add(new)
            return
        if not was_bound and new["metadata"].get("deletionTimestamp") and uid in self._pending:
            self._on_pod_delete(new)
            return
        if uid in self._pending:
            self._pending[uid] = new

    def _on_pod_delete(self, pod: Any) -> None:
        from kubenotes.scheduler.queue import ASSIGNED_POD_DELETE

        pod = getattr(pod, "obj", pod)  # DeletedFinalStateUnknown
        uid = pod["metadata"]["uid"]
        self._assumed.discard(uid)
        s = self.scheduler
        if uid in self._pending:
            del self._pending[uid]
            if s is not None:
                pi = s.pod_lister.pods.pop(f"{pod['metadata']['namespace']}/{pod['metadata']['name']}", None)
                if pi is not None:
                    s.queue.delete(pi)
            return
        node = (pod.get("spec") or {}).get("nodeName")
        if s is None or not node:
            return
        ni = s.snapshot.get(node)
        key = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
        pi = s.pod_lister.pods.pop(key, None)
        if ni is not None and pi is not None and any(p.uid == pi.uid for p in ni.pods):
            s.snapshot.remove_pod(pi, node)
        s.queue.now = float(self.env.now)
        s.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, pi)
        self._kick()

    def _on_node_change(self, node: Any, old: dict | None, deleted: bool = False) -> None:
        from kubenotes.scheduler.queue import node_scheduling_properties_change

        node = getattr(node, "obj", node)  # DeletedFinalStateUnknown
        name = (node.get("metadata") or {}).get("name")
        if not deleted:
            # updateNodeInCache / addNodeToCache: one queue move per action type (no Node-delete hint in-tree)
            self._node_events.extend((a, old, node) for a in node_scheduling_properties_change(node, old))
        if self._node_keys is not None and self._node_keys.get(name) == _node_key(node) and \
                self.node_informer.lister.get(None, name) is not None:
            return  # a heartbeat or a field the scheduler does not read: nothing to rebuild
        self._dirty = True
        self._kick()

    # ------------------------------------------------------------ cache
    def _add_bound(self, pod: dict) -> None:
        from kubenotes.scheduler.framework.node_info import PodInfo
        from kubenotes.scheduler.snapshot import typed
        from kubenotes.scheduler.queue import ASSIGNED_POD_ADD

        s = self.scheduler
        node = pod["spec"]["nodeName"]
        if s.snapshot.get(node) is None:
            return
        pi = PodInfo(typed(pod))
        s.snapshot.add_pod(pi, node)
        s.pod_lister.pods[pi.key] = pi
        s.queue.now = float(self.env.now)
        s.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_ADD, pi)

    def _queue(self, pod: dict) -> None:
        from kubenotes.scheduler.framework.node_info import PodInfo
        from kubenotes.scheduler.snapshot import typed

        s = self.scheduler
        pi = PodInfo(typed(pod))
        s.pod_lister.pods[pi.key] = pi
        if (pod.get("status") or {}).get("nominatedNodeName"):
            s.nominator.add_nominated_pod(pi)
        s.queue.now = float(self.env.now)
        s.queue.add(pi, timestamp=float(self.env.now))

    def _rebuild(self) -> None:
        """Build a new scheduler over the informer caches (nodes, bound pods, pending pods)."""
        from kubenotes.scheduler.schedule_one import Scheduler
        from kubenotes.scheduler.snapshot import new_snapshot

        nodes = self.node_informer.lister.list()
        keys = {n["metadata"]["name"]: _node_key(n) for n in nodes}
        if self.scheduler is not None and keys == self._node_keys:
            self._dirty = False
            return
        pods = self.pod_informer.lister.list()
        bound = [p for p in pods if (p.get("spec") or {}).get("nodeName")]
        snap = new_snapshot(nodes, bound)  # the scheduler's edge converts the stored dicts
        parked = self._still_unschedulable()
        self.scheduler = Scheduler(snap, config=self.config, objects=self._cluster_objects(), seed=self.seed,
                                   trace=self.trace)
        s = self.scheduler
        s.queue.max_attempts_per_pod = 10**9  # a running scheduler retries forever
        s.framework.binder = self._bind
        s.framework.pod_deleter = self._delete_victim
        s.framework.volume_client = self  # VolumeBinding's PreBind writes PVs and claims through update()
        s.framework.volume_bind_waiter = self._volume_bind_waiter
        self._node_keys = keys
        self._dirty = False
        for uid, pod in list(self._pending.items()):
            if uid in self._waiting_uids:  # its binding cycle waits for its volumes
                continue
            q = parked.get(uid)
            if q is None:
                self._queue(pod)
                continue
            s.pod_lister.pods[q.pod_info.key] = q.pod_info  # stays in the pool, with its attempts and timestamp
            q.events_seen = 0
            s.queue.unschedulable_pods[uid] = q

    def _still_unschedulable(self) -> dict[str, Any]:
        """Pooled pods that no Node event since the last rebuild is worth requeuing (``isPodWorthRequeuing``)."""
        from kubenotes.scheduler.queue import is_pod_worth_requeuing_after_node_event
        from kubenotes.scheduler.snapshot import typed

        events, self._node_events = self._node_events, []
        if self.scheduler is None:
            return {}
        typed_events = [(a, typed(old) if old is not None else None, typed(new)) for a, old, new in events]
        out = {}
        for uid, q in self.scheduler.queue.unschedulable_pods.items():
            if uid not in self._pending or q.gated():
                continue
            if not any(is_pod_worth_requeuing_after_node_event(q, a, old, new) for a, old, new in typed_events):
                out[uid] = q
        return out

    def _on_object_change(self, attr: str, obj: Any) -> None:
        from kubenotes.client.informer import meta_namespace_key

        if self._changed is not None:
            self._changed.setdefault(attr, {})[meta_namespace_key(obj)] = None
        obj = getattr(obj, "obj", obj)  # DeletedFinalStateUnknown
        s = self.scheduler
        if s is None or (obj or {}).get("kind") not in _STORAGE_KINDS:
            return
        # the volume plugins' EventsToRegister (PV, PVC, StorageClass, CSINode, CSIDriver, CSIStorageCapacity,
        # VolumeAttachment for NodeVolumeLimits):
        # pods they rejected are tried again
        retry = [q.pod_info for q in s.queue.unschedulable_pods.values()
                 if (q.unschedulable_plugins | q.pending_plugins) & _VOLUME_PLUGINS]
        if retry:
            s.queue.activate(retry)
            self._kick()

    def _cluster_objects(self) -> Any:
        """Refresh :attr:`objects` in place with the objects whose watch events arrived since the last refresh.

        Each changed key is read again from its informer's cache (the object
        as it is now, or gone), so the lists equal a full re-list of the
        informers; unchanged objects are not looked at. The first call takes
        every cached key.
        """
        changed, self._changed = self._changed, {}
        if changed is not None and not changed:
            return self.objects
        inf = self.cluster.scheduler_informers
        for attr, resource in _OBJECT_RESOURCES.items():
            if changed is not None and attr not in changed:
                continue
            indexer = inf.informer_for(resource).indexer
            if attr == "namespaces":
                self.objects.namespaces = {o["metadata"]["name"]: dict(o["metadata"].get("labels") or {})
                                           for o in indexer.list()}
                continue
            keys = indexer.list_keys() if changed is None else changed[attr]
            ix = self._indexes[attr]
            if ix.apply((k, indexer.get_by_key(k)) for k in keys) or changed is None:
                setattr(self.objects, attr, ix.objects)
        return self.objects

    # ------------------------------------------------------------ API writes (framework handle)
    def _bind(self, pod: Any, node_name: str) -> None:
        wait = self._volume_waits.pop(pod.uid, None)
        if wait is not None:  # VolumeBinding's PreBind waits: the rest of the binding cycle runs after it
            self._waiting_uids.add(pod.uid)
            self.env.process(self._bind_after_volumes(pod, node_name, *wait))
            return
        self._bind_now(pod, node_name)

    def _bind_now(self, pod: Any, node_name: str) -> None:
        self._assumed.add(pod.uid)
        self._pending.pop(pod.uid, None)
        try:
            self.client.bind(pod.namespace, pod.name, node_name)
        except ApiError:
            self._assumed.discard(pod.uid)
            raise
        cur = self.cluster.server.get("pods", pod.namespace, pod.name)
        if cur is not None:
            self.recorder.event(cur, "Normal", "Scheduled",
                                f"Successfully assigned {pod.namespace}/{pod.name} to {node_name}")

    # ------------------------------------------------------------ VolumeBinding's PreBind (binder.go BindPodVolumes)
    def update(self, resource: str, obj: dict) -> dict:
        """Write a PV or claim for VolumeBinding (``kubeClient.CoreV1().…Update``); the stored object."""
        return self.client.update(resource, obj, (obj.get("metadata") or {}).get("namespace"))

    def _volume_bind_waiter(self, pod: Any, node_name: str, check: Any, timeout_seconds: float,
                            interval_seconds: float, state: Any) -> None:
        self._volume_waits[pod.uid] = (check, timeout_seconds, interval_seconds, state, self.scheduler)

    def _bind_after_volumes(self, pod: Any, node_name: str, check: Any, timeout_seconds: float,
                            interval_seconds: float, state: Any, sched: Any) -> Generator:
        """Poll ``check`` every ``interval_seconds`` until done, an error or ``timeout_seconds``; then bind or fail.

        ``wait.PollUntilContextTimeout(ctx, 1s, bindTimeout, false, ...)``: the first check is one interval in.
        A failure is the binding cycle's (``handleBindingCycleError``): Unreserve, forget the assumed pod,
        FailedScheduling ``running PreBind plugin "VolumeBinding": binding volumes: …``, the pod queued again.
        """
        from kubenotes.scheduler.plugins.volumebinding.binder import VolumeBindingError

        start, err = float(self.env.now), None
        while True:
            remaining = start + timeout_seconds - float(self.env.now)
            if remaining <= interval_seconds + 1e-9:
                yield self.env.timeout(max(remaining, 0.0))
                err = "context deadline exceeded"
                break
            yield self.env.timeout(interval_seconds)
            self._cluster_objects()
            try:
                if check():
                    break
            except VolumeBindingError as e:
                err = str(e)
                break
        self._waiting_uids.discard(pod.uid)
        if err is None:
            try:
                self._bind_now(pod, node_name)
                return
            except ApiError as e:
                msg = f'running Bind plugin "DefaultBinder": {e}'
        else:
            msg = f'running PreBind plugin "VolumeBinding": binding volumes: {err}'
        self._binding_failed(sched, state, pod, node_name, msg)

    def _binding_failed(self, sched: Any, state: Any, pod: Any, node_name: str, msg: str) -> None:
        from types import SimpleNamespace

        from kubenotes.scheduler.queue import ASSIGNED_POD_DELETE

        sched.framework.run_reserve_plugins_unreserve(state, pod, node_name)
        if sched.snapshot.get(node_name) is not None and any(p.uid == pod.uid for p in sched.snapshot.get(node_name).pods):
            sched._forget(pod, node_name)
        self._record_failure(SimpleNamespace(namespace=pod.namespace, name=pod.name, message=msg,
                                             nominated_node_name=None))
        s = self.scheduler
        cur = self.pod_informer.lister.get(pod.namespace, pod.name)
        if s is None or cur is None or (cur.get("spec") or {}).get("nodeName"):
            return
        self._pending[pod.uid] = cur
        s.queue.now = float(self.env.now)
        s.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, pod)
        self._queue(cur)
        self._kick()

    def _delete_victim(self, pod: Any) -> None:
        cur = self.cluster.server.get("pods", pod.namespace, pod.name)
        if cur is not None:
            # pkg/scheduler/framework/preemption/preemption.go prepareCandidate
            self.recorder.event(cur, "Normal", "Preempted",
                                f"Preempted by pod {self._preemptor_uid} on node {pod.node_name}")
        try:
            self.client.delete("pods", pod.name, pod.namespace)
        except ApiError:
            pass

    _preemptor_uid = ""

    def _record_failure(self, tr: Any) -> None:
        cur = self.cluster.server.get("pods", tr.namespace, tr.name)
        if cur is None or (cur.get("spec") or {}).get("nodeName"):
            return
        msg = tr.message or ""
        self.recorder.event(cur, "Warning", "FailedScheduling", msg)
        new = deep_copy(cur)
        st = new.setdefault("status", {})
        conds = [c for c in st.get("conditions") or [] if c.get("type") != "PodScheduled"]
        old_c = next((c for c in cur.get("status", {}).get("conditions") or [] if c.get("type") == "PodScheduled"),
                     None)
        reason = "SchedulerError" if msg.startswith("running") else "Unschedulable"
        transition = (old_c or {}).get("lastTransitionTime") if old_c and old_c.get("status") == "False" \
            else self.cluster.server.timestamp()
        conds.append({"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                      "lastTransitionTime": transition, "reason": reason, "message": msg})
        st["conditions"] = conds
        if tr.nominated_node_name:
            st["nominatedNodeName"] = tr.nominated_node_name
        try:
            self.client.update_status("pods", new, tr.namespace)
        except ApiError:
            pass

    # ------------------------------------------------------------ the loop
    def start(self) -> None:
        self.env.process(self._run())

    def _flush_backoff(self) -> float | None:
        """Move pods whose back-off is over to activeQ; returns the next expiry (or None)."""
        s = self.scheduler
        now = float(self.env.now)
        nxt = None
        while True:
            q = s.queue.backoff_q.peek()
            if q is None:
                break
            if q.backoff_expiration <= now + 1e-9:
                s.queue.backoff_q.pop()
                s.queue.active_q.push(q)
            else:
                nxt = q.backoff_expiration
                break
        for uid, q in list(s.queue.unschedulable_pods.items()):
            if q.gated():
                continue
            # the same sum as the wake-up time below: `now - timestamp` can round below the limit at that very time
            # (1310.1 - 1010.1 < 300), and the loop would then wake at `now` for ever
            if q.timestamp + POD_MAX_IN_UNSCHEDULABLE_PODS_SECONDS <= now + 1e-9:
                del s.queue.unschedulable_pods[uid]
                s.queue.active_q.push(q)
            else:
                t = q.timestamp + POD_MAX_IN_UNSCHEDULABLE_PODS_SECONDS
                nxt = t if nxt is None else min(nxt, t)
        return nxt

    def _run(self) -> Generator:
        yield self.cluster.scheduler_informers.wait_for_cache_sync()
        while True:
            if self._dirty or self.scheduler is None:
                self._rebuild()
            s = self.scheduler
            self._cluster_objects()
            s.queue.now = float(self.env.now)
            nxt = self._flush_backoff()
            if len(s.queue.active_q):
                q = s.queue.active_q.peek()
                self._preemptor_uid = q.pod_info.uid if q else ""
                if self.cluster.server.request_costs is None:
                    tr = s.schedule_one()
                else:  # the bind waits for the scheduler's rate limiter and takes its latency
                    tr = yield from run_blocking(self.env, s.schedule_one)
                if tr is not None:
                    self.traces.append(tr)
                    if tr.node_name is None and tr.message and not tr.message.startswith("skip schedule"):
                        self._record_failure(tr)
                    # one pod per virtual instant keeps other processes (watch delivery) interleaved
                yield self.env.timeout(0)
                continue
            self._wake = self.env.event()
            waits = [self._wake]
            if nxt is not None:
                waits.append(self.env.timeout(max(nxt - self.env.now, 0.0)))
            yield self.env.any_of(waits)
            self._wake = None
