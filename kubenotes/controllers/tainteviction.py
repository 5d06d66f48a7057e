"""The taint eviction controller: deletes pods from nodes with NoExecute taints they do not tolerate.

Since v1.29 (``SeparateTaintEvictionController``, GA in v1.34) this is its
own controller, ``taint-eviction-controller``, no longer part of node
lifecycle. For every pod on a node with ``NoExecute`` taints:

* a taint the pod does not tolerate: the pod is deleted at once;
* every taint tolerated, some toleration with ``tolerationSeconds``: the
  deletion is scheduled for the smallest ``tolerationSeconds`` after the
  controller first saw the pod on the tainted node (a later update keeps the
  earlier start);
* tolerated forever (no ``tolerationSeconds``): nothing, and a scheduled
  deletion is cancelled, as it is when the taints go away.

Before deleting, the pod gets the ``DisruptionTarget`` condition (reason
``DeletionByTaintManager``) and a ``TaintManagerEviction`` Event "Marking for
deletion Pod <ns>/<name>"; a cancelled scheduled deletion records
"Cancelling deletion of Pod <ns>/<name>".

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/tainteviction/taint_eviction.go
kubernetes/kubernetes@v1.34.0 pkg/controller/tainteviction/timed_workers.go
https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-based-evictions
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generator

from kubenotes.api.podutil import update_pod_condition
from kubenotes.api.taints import tolerates
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers import nodelifecycle
from kubenotes.controllers.podutil import PodsByNode, unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result

__all__ = ["TaintEvictionController", "TimedWorkerQueue", "get_no_execute_taints", "get_matching_tolerations",
           "get_min_toleration_time", "EVICTION_REASON", "MARKING_FOR_DELETION_MESSAGE",
           "CANCELLING_DELETION_MESSAGE", "DISRUPTION_TARGET_REASON", "DISRUPTION_TARGET_MESSAGE", "RETRIES",
           "CONTROLLER_POLICY"]

#: Taint eviction runs as ``node-controller``, with the role :mod:`~kubenotes.controllers.nodelifecycle`
#: declares (upstream: ``ClientOrDie("node-controller")``, ``cmd/kube-controller-manager/app/core.go``).
CONTROLLER_POLICY = nodelifecycle.CONTROLLER_POLICY

#: Event reason of both the deletion and the cancellation events.
EVICTION_REASON = "TaintManagerEviction"
MARKING_FOR_DELETION_MESSAGE = "Marking for deletion Pod {}"
CANCELLING_DELETION_MESSAGE = "Cancelling deletion of Pod {}"
DISRUPTION_TARGET_REASON = "DeletionByTaintManager"
DISRUPTION_TARGET_MESSAGE = "Taint manager: deleting due to NoExecute taint"
#: ``retries``: attempts of add-condition-and-delete.
RETRIES = 5


def get_no_execute_taints(taints: list[dict] | None) -> list[dict]:
    """The ``NoExecute`` taints of a taint list.

    Parameters
    ----------
    taints : list of dict or None
    """
    return [t for t in taints or [] if t.get("effect") == "NoExecute"]


def get_matching_tolerations(taints: list[dict], tolerations: list[dict] | None) -> tuple[bool, list[dict]]:
    """``GetMatchingTolerations``: (every taint tolerated, the first toleration matching each taint).

    Parameters
    ----------
    taints : list of dict
        The node's NoExecute taints.
    tolerations : list of dict or None
        The pod's tolerations.

    Examples
    --------
    >>> t = [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]
    >>> get_matching_tolerations(t, [{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
    ...                              "effect": "NoExecute", "tolerationSeconds": 300}])[0]
    True
    >>> get_matching_tolerations(t, [])
    (False, [])
    """
    if not taints:
        return True, []
    if not tolerations:
        return False, []
    used = []
    for taint in taints:
        match = next((tol for tol in tolerations if tolerates(tol, taint)), None)
        if match is None:
            return False, []
        used.append(match)
    return True, used


def get_min_toleration_time(tolerations: list[dict]) -> float:
    """``getMinTolerationTime``: the smallest ``tolerationSeconds`` (seconds), -1 for forever, 0 for none.

    Parameters
    ----------
    tolerations : list of dict
        The tolerations in use (one per taint).

    Examples
    --------
    >>> get_min_toleration_time([{"tolerationSeconds": 300}, {"tolerationSeconds": 60}])
    60.0
    >>> get_min_toleration_time([{"operator": "Exists"}])
    -1.0
    >>> get_min_toleration_time([{"tolerationSeconds": -5}]), get_min_toleration_time([])
    (0.0, 0.0)
    """
    if not tolerations:
        return 0.0
    best = None
    for tol in tolerations:
        s = tol.get("tolerationSeconds")
        if s is None:
            continue
        if s <= 0:
            return 0.0
        best = s if best is None else min(best, s)
    return -1.0 if best is None else float(best)


@dataclass
class _TimedWorker:
    created_at: float
    fire_at: float
    cancelled: bool = False


class TimedWorkerQueue:
    """``TimedWorkerQueue``: per key, one function call at ``fire_at`` on the virtual clock, cancellable.

    Parameters
    ----------
    env : simpy.Environment
    work : callable(key) -> None
        Run when a worker fires (``fire_at <= created_at`` runs it at once).

    Examples
    --------
    >>> import simpy
    >>> env = simpy.Environment(); fired = []
    >>> q = TimedWorkerQueue(env, lambda k: fired.append((env.now, k)))
    >>> q.add_work("default/a", 0, 300); q.add_work("default/b", 0, 10); q.cancel_work("default/b")
    True
    >>> env.run(until=400); fired
    [(300, 'default/a')]
    """

    def __init__(self, env: Any, work: Callable[[str], None]):
        self.env = env
        self.work = work
        self.workers: dict[str, _TimedWorker | None] = {}

    def add_work(self, key: str, created_at: float, fire_at: float) -> None:
        """Schedule ``key`` unless it already is.

        Parameters
        ----------
        key : str
            ``namespace/name`` of the pod.
        created_at, fire_at : float
            Virtual seconds.
        """
        if key in self.workers:
            return
        delay = fire_at - created_at
        if delay <= 0:
            self.workers[key] = None
            try:
                self.work(key)
            finally:
                self.workers.pop(key, None)
            return
        w = _TimedWorker(created_at, fire_at)
        self.workers[key] = w
        self.env.process(self._fire(key, w, delay))

    def _fire(self, key: str, w: _TimedWorker, delay: float) -> Generator:
        yield self.env.timeout(delay)
        if w.cancelled:
            return
        self.workers[key] = None
        try:
            self.work(key)
        finally:
            if self.workers.get(key, w) is None:
                self.workers.pop(key, None)

    def cancel_work(self, key: str) -> bool:
        """Cancel a scheduled call; True when one was pending.

        Parameters
        ----------
        key : str
        """
        if key not in self.workers:
            return False
        w = self.workers.pop(key)
        if w is None:
            return False
        w.cancelled = True
        return True

    def get_worker(self, key: str) -> _TimedWorker | None:
        """``GetWorkerUnsafe``: the pending worker of ``key`` (None: none or already running)."""
        return self.workers.get(key)


class TaintEvictionController(Controller):
    """``tainteviction.Controller``: NoExecute taint-based pod deletion.

    Attributes
    ----------
    tainted_nodes : dict[str, list[dict]]
        Node name -> its NoExecute taints.
    eviction_queue : TimedWorkerQueue

    Notes
    -----
    As upstream in v1.34, ``tolerationSeconds`` count from when the
    controller sees the pod on the tainted node, not from the taint's
    ``timeAdded`` (on the virtual clock the two coincide, since the informer
    delivers the taint at once). Simplified: node and pod updates share one
    workqueue (upstream hashes them to 8 workers and handles a worker's node
    updates before its pod updates); the deletion's 5 retries run back to
    back on the virtual clock.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/tainteviction/taint_eviction.go
    """

    name = "taint-eviction-controller"
    service_account = CONTROLLER_POLICY.service_account  # upstream runs taint eviction with the node-controller role

    def setup(self) -> None:
        """Register the Pod and Node handlers and the ``spec.nodeName`` index."""
        self.tainted_nodes: dict[str, list[dict]] = {}
        self.eviction_queue = TimedWorkerQueue(self.env, self._delete_pod)
        self.pod_informer = self.informers.informer_for("pods")
        self.node_informer = self.informers.informer_for("nodes")
        self.pods_by_node = PodsByNode(self.pod_informer)
        self.pod_informer.add_event_handler(lambda p: self.pod_updated(None, p), self.pod_updated,
                                            lambda p: self.pod_updated(unwrap_deleted(p), None))
        self.node_informer.add_event_handler(lambda n: self.node_updated(None, n), self.node_updated,
                                             lambda n: self.node_updated(unwrap_deleted(n), None))

    # ------------------------------------------------------------ handlers
    def pod_updated(self, old: dict | None, new: dict | None) -> None:
        """``PodUpdated``: queue the pod when it is new, gone, or its tolerations or node changed.

        Parameters
        ----------
        old, new : dict or None
            None for an add (old) or a delete (new).
        """
        if old is None and new is None:
            return
        if old is not None and new is not None:
            if (old.get("spec") or {}).get("tolerations") == (new.get("spec") or {}).get("tolerations") and \
                    (old.get("spec") or {}).get("nodeName") == (new.get("spec") or {}).get("nodeName"):
                return
        md = (new or old)["metadata"]
        self.enqueue(f"pod/{md.get('namespace', '')}/{md['name']}")

    def node_updated(self, old: dict | None, new: dict | None) -> None:
        """``NodeUpdated``: queue the node when it is new, gone, or its NoExecute taints changed.

        Parameters
        ----------
        old, new : dict or None
            None for an add (old) or a delete (new).
        """
        if old is None and new is None:
            return
        if old is not None and new is not None:
            if get_no_execute_taints((old.get("spec") or {}).get("taints")) == \
                    get_no_execute_taints((new.get("spec") or {}).get("taints")):
                return
        self.enqueue("node/" + (new or old)["metadata"]["name"])

    # ------------------------------------------------------------ workers
    def reconcile(self, key: str) -> Result | None:
        """``node/<name>``: ``handleNodeUpdate``; ``pod/<ns>/<name>``: ``handlePodUpdate``."""
        kind, _, rest = key.partition("/")
        if kind == "node":
            self.handle_node_update(rest)
        elif kind == "pod":
            ns, _, name = rest.partition("/")
            self.handle_pod_update(ns, name)
        return None

    def handle_pod_update(self, namespace: str, name: str) -> None:
        """``handlePodUpdate``: re-evaluate one pod against its node's NoExecute taints."""
        pod = self.pod_informer.lister.get(namespace, name)
        key = f"{namespace}/{name}"
        if pod is None:
            self.cancel_work_with_event(key)
            return
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        taints = self.tainted_nodes.get(node_name)
        if taints is None:
            return
        self.process_pod_on_node(key, node_name, (pod.get("spec") or {}).get("tolerations"), taints,
                                 float(self.env.now))

    def handle_node_update(self, node_name: str) -> None:
        """``handleNodeUpdate``: remember the node's NoExecute taints and re-evaluate its pods."""
        node = self.node_informer.lister.get("", node_name)
        if node is None:
            self.tainted_nodes.pop(node_name, None)
            return
        taints = get_no_execute_taints((node.get("spec") or {}).get("taints"))
        if taints:
            self.tainted_nodes[node_name] = taints
        else:
            self.tainted_nodes.pop(node_name, None)
        pods = sorted(self.pods_by_node.pods(node_name), key=lambda p: (p["metadata"]["namespace"],
                                                                        p["metadata"]["name"]))
        if not pods:
            return
        if not taints:
            for p in pods:
                self.cancel_work_with_event(f"{p['metadata']['namespace']}/{p['metadata']['name']}")
            return
        now = float(self.env.now)
        for p in pods:
            self.process_pod_on_node(f"{p['metadata']['namespace']}/{p['metadata']['name']}", node_name,
                                     (p.get("spec") or {}).get("tolerations"), taints, now)

    def process_pod_on_node(self, key: str, node_name: str, tolerations: list[dict] | None, taints: list[dict],
                            now: float) -> None:
        """``processPodOnNode``: delete now, schedule, keep or cancel the pod's deletion.

        Parameters
        ----------
        key : str
            ``namespace/name``.
        node_name : str
        tolerations : list of dict or None
        taints : list of dict
            The node's NoExecute taints.
        now : float
            Virtual seconds.
        """
        if not taints:
            self.cancel_work_with_event(key)
        all_tolerated, used = get_matching_tolerations(taints, tolerations)
        if not all_tolerated:
            self.cancel_work_with_event(key)
            self.eviction_queue.add_work(key, now, now)
            return
        min_seconds = get_min_toleration_time(used)
        if min_seconds < 0:
            self.cancel_work_with_event(key)
            return
        start = now
        trigger = start + min_seconds
        scheduled = self.eviction_queue.get_worker(key)
        if scheduled is not None:
            start = scheduled.created_at
            if start + min_seconds < trigger:
                return
            self.cancel_work_with_event(key)
        self.eviction_queue.add_work(key, start, start + min_seconds)

    def cancel_work_with_event(self, key: str) -> None:
        """``cancelWorkWithEvent``: cancel a pending deletion, recording "Cancelling deletion of Pod ..."."""
        if self.eviction_queue.cancel_work(key):
            self._pod_event(key, CANCELLING_DELETION_MESSAGE.format(key))

    def _pod_event(self, key: str, message: str) -> None:
        ns, _, name = key.partition("/")
        ref = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}}
        self.event(ref, "Normal", EVICTION_REASON, message)

    def _delete_pod(self, key: str) -> None:
        """``deletePodHandler``: event, DisruptionTarget condition, DELETE (5 attempts)."""
        self._pod_event(key, MARKING_FOR_DELETION_MESSAGE.format(key))
        ns, _, name = key.partition("/")
        for _ in range(RETRIES):
            try:
                self._add_condition_and_delete_pod(ns, name)
                return
            except ApiError as e:
                if e.code == 404:
                    return
                self.errors.append((float(self.env.now), key, str(e)))

    def _add_condition_and_delete_pod(self, ns: str, name: str) -> None:
        pod = self.client.get("pods", name, ns)
        st = deep_copy(pod.get("status") or {})
        if update_pod_condition(st, {"type": "DisruptionTarget", "status": "True",
                                     "reason": DISRUPTION_TARGET_REASON, "message": DISRUPTION_TARGET_MESSAGE},
                                self.ctx.server.timestamp()):
            # PatchPodStatus (the role allows patch, not update, of pods/status)
            self.client.patch("pods", name, {"metadata": {"uid": pod["metadata"].get("uid")},
                                             "status": {"conditions": st["conditions"]}}, ns, subresource="status")
        self.client.delete("pods", name, ns)
