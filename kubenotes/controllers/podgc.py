"""The pod garbage collector (PodGC): force-deletes pods nobody else will clean up.

Every 20 s (``gcCheckPeriod``) the controller reads all pods and nodes from
its informers and, in this order:

1. **terminated pods above the threshold** (``--terminated-pod-gc-threshold``,
   12500 by default; 0 turns it off): pods in phase Succeeded or Failed beyond
   the threshold are deleted, evicted ones first, then the oldest
   (``byEvictionAndCreationTimestamp``);
2. **terminating pods on out-of-service nodes**: a pod being deleted on a node
   that is not Ready and carries the ``node.kubernetes.io/out-of-service``
   taint;
3. **orphaned pods**: pods bound to a node the informer does not know are
   kept in quarantine for 40 s (``quarantineTime``); if a GET of the node
   still answers 404 afterwards, each such pod gets the ``DisruptionTarget``
   condition (reason ``DeletionByPodGC``, message ``PodGC: node no longer
   exists``);
4. **unscheduled terminating pods**: a pod with a ``deletionTimestamp`` and
   no ``spec.nodeName``.

Each deletion first patches the pod's status to phase Failed (unless it is
already Succeeded or Failed), with the condition where there is one, then
deletes it with a grace period of 0 (``markFailedAndDeletePodWithCondition``).

Notes
-----
Simplified: deletions run one after another (upstream deletes a batch in
parallel goroutines); no metrics (``pod_gc_collector_force_delete_pods_total``).
The orphan quarantine is upstream's delaying queue reduced to "ready at"
times per node name.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/podgc/gc_controller.go
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
    (``system:controller:pod-garbage-collector``)
kubernetes/kubernetes@v1.34.0 pkg/controller/podgc/config/v1alpha1/defaults.go (TerminatedPodGCThreshold 12500)
https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-garbage-collection
"""

from __future__ import annotations

from typing import Any, Generator

from kubenotes.api.podutil import update_pod_condition
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, ControllerPolicy, policy_rule
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.podutil import get_node_condition
from kubenotes.controllers.reconciler import Controller, Result

__all__ = ["PodGCController", "NAME", "CONTROLLER_POLICY", "GC_CHECK_PERIOD_SECONDS", "QUARANTINE_SECONDS",
           "DEFAULT_TERMINATED_POD_GC_THRESHOLD", "TAINT_NODE_OUT_OF_SERVICE", "DELETION_BY_POD_GC_REASON",
           "ORPHANED_MESSAGE", "pods_to_delete_above_threshold"]

#: ``names.PodGarbageCollectorController``.
NAME = "pod-garbage-collector-controller"
#: ``system:controller:pod-garbage-collector``: list/watch/delete pods, get/list nodes, patch pods/status (no events).
CONTROLLER_POLICY = ControllerPolicy("pod-garbage-collector", (
    policy_rule(("list", "watch", "delete"), (LEGACY_GROUP,), ("pods",)),
    policy_rule(("get", "list"), (LEGACY_GROUP,), ("nodes",)),
    policy_rule(("patch",), (LEGACY_GROUP,), ("pods/status",)),
))

#: ``gcCheckPeriod``.
GC_CHECK_PERIOD_SECONDS = 20.0
#: ``quarantineTime``: how long a missing node may take to show up in the informer before a GET decides.
QUARANTINE_SECONDS = 40.0
#: ``--terminated-pod-gc-threshold`` default.
DEFAULT_TERMINATED_POD_GC_THRESHOLD = 12500
#: ``v1.TaintNodeOutOfService``.
TAINT_NODE_OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
#: The DisruptionTarget condition's reason and message for an orphaned pod.
DELETION_BY_POD_GC_REASON = "DeletionByPodGC"
ORPHANED_MESSAGE = "PodGC: node no longer exists"


def _is_terminated(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") not in ("Pending", "Running", "Unknown")


def _is_evicted(pod: dict) -> bool:
    # eviction.PodIsEvicted
    st = pod.get("status") or {}
    return st.get("phase") == "Failed" and st.get("reason") == "Evicted"


def _eviction_and_creation_key(pod: dict) -> tuple:
    md = pod["metadata"]
    return (not _is_evicted(pod), md.get("creationTimestamp") or "", md["name"])


def pods_to_delete_above_threshold(pods: list[dict], threshold: int) -> list[dict]:
    """The terminated pods ``gcTerminated`` deletes: those beyond ``threshold``, evicted first, then the oldest.

    Parameters
    ----------
    pods : list of dict
        All pods.
    threshold : int
        ``--terminated-pod-gc-threshold``; 0 or less deletes nothing.

    Returns
    -------
    list of dict
        In deletion order.

    Examples
    --------
    >>> def pod(name, t, phase="Succeeded", reason=None):
    ...     return {"metadata": {"name": name, "creationTimestamp": t}, "status": {"phase": phase, "reason": reason}}
    >>> pods = [pod("old", "2026-01-01T00:00:00Z"), pod("new", "2026-01-02T00:00:00Z"),
    ...         pod("evicted", "2026-01-03T00:00:00Z", "Failed", "Evicted"), pod("up", "2025-01-01T00:00:00Z", "Running")]
    >>> [p["metadata"]["name"] for p in pods_to_delete_above_threshold(pods, 1)]
    ['evicted', 'old']
    """
    if threshold <= 0:
        return []
    terminated = [p for p in pods if _is_terminated(p)]
    excess = len(terminated) - threshold
    if excess <= 0:
        return []
    return sorted(terminated, key=_eviction_and_creation_key)[:excess]


def _node_ready(node: dict) -> bool:
    c = get_node_condition(node.get("status"), "Ready")
    return c is not None and c.get("status") == "True"


class PodGCController(Controller):
    """``PodGCController``: the four collections of :mod:`~kubenotes.controllers.podgc` every 20 s.

    Options: ``terminated-pod-gc-threshold`` (default 12500).

    Attributes
    ----------
    quarantine : dict[str, float]
        Node name -> virtual time its quarantine ends (the ``orphaned_pods_nodes`` delaying queue).
    deleted : list[tuple[float, str, str]]
        ``(time, namespace/name, which collection)`` of each force deletion, for learners and tests.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/podgc/gc_controller.go
    """

    name = NAME
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        """Take the pod and node informers (``NewPodGC``); no event handlers: the loop reads the listers."""
        self.threshold = int(self.option("terminated-pod-gc-threshold", DEFAULT_TERMINATED_POD_GC_THRESHOLD))
        self.pod_informer = self.informers.informer_for("pods")
        self.node_informer = self.informers.informer_for("nodes")
        self.quarantine: dict[str, float] = {}
        self.deleted: list[tuple[float, str, str]] = []

    def start(self) -> None:
        """Run :meth:`gc` after the caches sync, then every :data:`GC_CHECK_PERIOD_SECONDS` (``wait.Until``)."""
        self.env.process(self._run())

    def _run(self) -> Generator:
        yield self.informers.wait_for_cache_sync()
        while True:
            self.gc()
            yield self.env.timeout(GC_CHECK_PERIOD_SECONDS)

    def reconcile(self, key: str) -> Result | None:
        """PodGC has no workqueue of keys; everything happens in :meth:`gc`."""
        return None

    def gc(self) -> None:
        """One pass: terminated above the threshold, terminating out-of-service, orphaned, unscheduled terminating."""
        pods = self.pod_informer.lister.list()
        nodes = self.node_informer.lister.list()
        if self.threshold > 0:
            for pod in pods_to_delete_above_threshold(pods, self.threshold):
                self._delete(pod, None, "terminated")
        self._gc_terminating(pods)
        self._gc_orphaned(pods, nodes)
        for pod in pods:
            if pod["metadata"].get("deletionTimestamp") and not (pod.get("spec") or {}).get("nodeName"):
                self._delete(pod, None, "unscheduled-terminating")

    def _gc_terminating(self, pods: list[dict]) -> None:
        found = []
        for pod in pods:
            if not pod["metadata"].get("deletionTimestamp"):
                continue
            node = self.node_informer.lister.get(None, (pod.get("spec") or {}).get("nodeName") or "")
            if node is None:
                continue
            taints = (node.get("spec") or {}).get("taints") or []
            if not _node_ready(node) and any(t.get("key") == TAINT_NODE_OUT_OF_SERVICE for t in taints):
                found.append(pod)
        for pod in sorted(found, key=_eviction_and_creation_key):
            self._delete(pod, None, "terminating-out-of-service")

    def _gc_orphaned(self, pods: list[dict], nodes: list[dict]) -> None:
        existing = {n["metadata"]["name"] for n in nodes}
        now = float(self.env.now)
        for pod in pods:
            node = (pod.get("spec") or {}).get("nodeName")
            if node and node not in existing:
                # AddAfter: an item already waiting keeps its earlier ready time
                self.quarantine.setdefault(node, now + QUARANTINE_SECONDS)
        deleted_nodes = set()
        for node, ready_at in list(self.quarantine.items()):
            if ready_at > now:
                continue
            del self.quarantine[node]
            if node in existing:
                continue
            try:
                self.client.get("nodes", node)
            except ApiError as e:
                if e.code == 404:
                    deleted_nodes.add(node)
                # another error: the node is queued again on a later pass if still needed
        for pod in pods:
            if (pod.get("spec") or {}).get("nodeName") in deleted_nodes:
                condition = {"type": "DisruptionTarget", "status": "True", "reason": DELETION_BY_POD_GC_REASON,
                             "message": ORPHANED_MESSAGE}
                self._delete(pod, condition, "orphaned")

    def _delete(self, pod: dict, condition: dict | None, why: str) -> None:
        """``markFailedAndDeletePodWithCondition``: status to Failed (with ``condition``), then DELETE with grace 0."""
        md = pod["metadata"]
        ns, name = md.get("namespace"), md["name"]
        try:
            st = pod.get("status") or {}
            if st.get("phase") not in ("Succeeded", "Failed"):
                new = deep_copy(st)
                new["phase"] = "Failed"
                if condition is not None:
                    update_pod_condition(new, condition, self.ctx.server.timestamp())
                patch: dict[str, Any] = {"metadata": {"uid": md.get("uid")}, "status": {"phase": "Failed"}}
                if condition is not None:
                    patch["status"]["conditions"] = new["conditions"]
                self.client.patch("pods", name, patch, ns, subresource="status")
            self.client.delete("pods", name, ns, grace_period_seconds=0)
        except ApiError as e:
            if e.code != 404:
                self.errors.append((float(self.env.now), f"{ns}/{name}", str(e)))
            return
        self.deleted.append((float(self.env.now), f"{ns}/{name}", why))
