"""Pod and Node helpers the cluster-plumbing controllers share.

The time-dependent pod helpers mirror ``IsPodAvailable`` of
``pkg/api/v1/pod/util.go`` (the readiness and condition helpers themselves
live in :mod:`kubenotes.api.podutil`, ``controller_utils`` re-exports the
readiness ones); the node helpers
mirror ``pkg/controller/util/node/controller_utils.go`` (``GetNodeCondition``,
``RecordNodeEvent``, ``RecordNodeStatusChange``, ``MarkPodsNotReady``,
``SwapNodeControllerTaint``) and the taint parts of
``pkg/controller/controller_utils.go`` (``AddOrUpdateTaintOnNode``,
``RemoveTaintOffNode``). :class:`PodsByNode` is the ``spec.nodeName`` pod
index the node lifecycle and taint eviction controllers add to the pod
informer.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/api/v1/pod/util.go
kubernetes/kubernetes@v1.34.0 pkg/controller/util/node/controller_utils.go
kubernetes/kubernetes@v1.34.0 pkg/controller/controller_utils.go (AddOrUpdateTaintOnNode, RemoveTaintOffNode)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/node/topology/helpers.go (GetZoneKey)
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

from kubenotes.api.duration import parse_go_duration
from kubenotes.api.podutil import get_pod_condition, is_pod_ready, pod_ready_condition, update_pod_condition
from kubenotes.api.taints import match_taint
from kubenotes.apiserver.server import current_epoch, parse_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy

__all__ = [
    "unwrap_deleted", "duration_seconds", "timestamp_seconds",
    "pod_ready_since_seconds", "is_pod_available", "is_pod_available_inclusive",
    "should_pod_be_in_endpoints", "pod_endpoints_changed", "get_node_condition", "get_zone_key", "record_node_event",
    "record_node_status_change", "mark_pods_not_ready", "taint_exists", "add_or_update_taint_on_node",
    "remove_taint_off_node", "swap_node_controller_taint", "PodsByNode", "NODE_NOT_READY_POD_MESSAGE",
    "UPDATE_TAINT_RETRIES",
]

#: ``MarkPodsNotReady``'s Warning event message on each pod (reason ``NodeNotReady``).
NODE_NOT_READY_POD_MESSAGE = "Node is not ready"
#: ``UpdateTaintBackoff.Steps``: how often a taint write is retried on conflict.
UPDATE_TAINT_RETRIES = 5

_ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
_REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")


def unwrap_deleted(obj: Any) -> dict | None:
    """The object of a delete notification (``cache.DeletedFinalStateUnknown`` carries it in ``.obj``).

    Parameters
    ----------
    obj : dict or DeletedFinalStateUnknown
        What an informer's delete handler received.
    """
    if isinstance(obj, dict):
        return obj
    inner = getattr(obj, "obj", None)
    return inner if isinstance(inner, dict) else None


def duration_seconds(value: Any) -> float:
    """A flag value as seconds: a number, or a Go duration string (``"40s"``, ``"5m0s"``, ``"1h"``, ``"100ms"``).

    Parameters
    ----------
    value : int, float or str
        A flag value (``50``, ``"40s"``, ``"5m0s"``).

    Raises
    ------
    ValueError
        For text that is not a duration (:func:`kubenotes.api.duration.parse_go_duration`).

    Examples
    --------
    >>> duration_seconds(50), duration_seconds("40s"), duration_seconds("5m0s"), duration_seconds("100ms")
    (50.0, 40.0, 300.0, 0.1)
    """
    if isinstance(value, (int, float)):
        return float(value)
    import re

    text = str(value).strip()
    if re.fullmatch(r"-?\d+(\.\d+)?", text):
        return float(text)
    return parse_go_duration(text)


# ---------------------------------------------------------------- pods
def timestamp_seconds(text: str | None) -> float | None:
    """Virtual seconds of an API timestamp, or None for a missing one (Go's zero ``metav1.Time``).

    :func:`~kubenotes.apiserver.server.parse_timestamp` against the epoch in
    effect, memoised per (timestamp, epoch): controllers read the same few
    timestamps over and over.

    Examples
    --------
    >>> timestamp_seconds("2025-08-27T00:00:10Z"), timestamp_seconds(None)
    (10.0, None)
    """
    if not text:
        return None
    return _seconds_at(text, current_epoch())


@functools.lru_cache(maxsize=8192)
def _seconds_at(text: str, epoch: Any) -> float:
    return parse_timestamp(text, epoch)


def pod_ready_since_seconds(pod: dict) -> float | None:
    """Virtual seconds of the ``Ready`` condition's ``lastTransitionTime`` while it is ``True``.

    Parameters
    ----------
    pod : dict

    Returns
    -------
    float or None
        None when the pod is not ready or the time is missing (Go's zero
        ``metav1.Time``).

    Notes
    -----
    Not an upstream function: upstream reads ``LastTransitionTime`` off the
    condition inline (``IsPodAvailable``, ``ActivePods.Less``).

    Examples
    --------
    >>> pod_ready_since_seconds({"status": {"conditions": [{"type": "Ready", "status": "True",
    ...                                                      "lastTransitionTime": "2025-08-27T00:00:10Z"}]}})
    10.0
    >>> pod_ready_since_seconds({"status": {"conditions": [{"type": "Ready", "status": "False"}]}}) is None
    True
    """
    c = pod_ready_condition(pod)
    if c is None or c.get("status") != "True" or not c.get("lastTransitionTime"):
        return None
    return timestamp_seconds(c["lastTransitionTime"])


def is_pod_available(pod: dict, min_ready_seconds: int | float, now_seconds: float) -> bool:
    """``IsPodAvailable``: ready, and ready for more than ``min_ready_seconds`` (strictly, as ``Before``).

    Parameters
    ----------
    pod : dict
    min_ready_seconds : int or float
        ``spec.minReadySeconds`` of the owner; 0 means available as soon as ready.
    now_seconds : float
        Virtual time (``env.now``).

    Returns
    -------
    bool

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/api/v1/pod/util.go (IsPodAvailable)

    Examples
    --------
    >>> p = {"status": {"conditions": [{"type": "Ready", "status": "True",
    ...                                  "lastTransitionTime": "2025-08-27T00:00:10Z"}]}}
    >>> is_pod_available(p, 0, 10), is_pod_available(p, 5, 15), is_pod_available(p, 5, 15.5)
    (True, False, True)
    """
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds == 0:
        return True
    t = pod_ready_since_seconds(pod)
    return t is not None and t + min_ready_seconds < now_seconds


def is_pod_available_inclusive(pod: dict, min_ready_seconds: float, now_seconds: float) -> bool:
    """Whether a pod is available, counting a pod ready for exactly ``min_ready_seconds`` as available.

    The DaemonSet and StatefulSet controllers use this boundary-inclusive
    check where upstream calls ``podutil.IsPodAvailable`` (strict ``Before``,
    :func:`is_pod_available`).

    Parameters
    ----------
    pod : dict
    min_ready_seconds : float
        The owner's ``spec.minReadySeconds``; 0 or less means available as soon as ready.
    now_seconds : float
        Virtual time (``env.now``).

    Returns
    -------
    bool

    Notes
    -----
    Simplified from upstream: on the virtual clock a resync scheduled exactly
    ``minReadySeconds`` after a pod became ready (as the StatefulSet
    controller schedules it) runs at the boundary instant, where upstream's
    strict comparison would still say "not available"; on a real clock some
    nanoseconds have always passed. The ReplicaSet and Deployment
    controllers instead keep the strict check and resync after
    ``minReadySeconds + 1`` s.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/api/v1/pod/util.go (IsPodAvailable)

    Examples
    --------
    >>> p = {"metadata": {}, "status": {"conditions": [{"type": "Ready", "status": "True",
    ...      "lastTransitionTime": "2025-08-27T00:00:10Z"}]}}
    >>> is_pod_available_inclusive(p, 0, 10), is_pod_available_inclusive(p, 5, 12), is_pod_available_inclusive(p, 5, 15)
    (True, False, True)
    """
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds <= 0:
        return True
    since = pod_ready_since_seconds(pod)
    return since is not None and since + min_ready_seconds <= now_seconds


def should_pod_be_in_endpoints(pod: dict, include_terminating: bool) -> bool:
    """``ShouldPodBeInEndpoints``: not terminal, has an IP, and (unless included) not terminating.

    Parameters
    ----------
    pod : dict
    include_terminating : bool
        Keep pods with a ``deletionTimestamp``.

    Examples
    --------
    >>> should_pod_be_in_endpoints({"status": {"phase": "Running", "podIP": "10.244.0.2"}}, False)
    True
    >>> should_pod_be_in_endpoints({"status": {"phase": "Succeeded", "podIP": "10.244.0.2"}}, True)
    False
    """
    st = pod.get("status") or {}
    if st.get("phase") in ("Succeeded", "Failed"):
        return False
    if not st.get("podIP"):
        return False
    if not include_terminating and (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    return True


def pod_endpoints_changed(old: dict, new: dict) -> tuple[bool, bool]:
    """``podEndpointsChanged``: (the pod's endpoint changed, its labels/hostname changed).

    Only deletion, readiness and IPs change an endpoint (name, namespace, uid
    and nodeName are fixed by the time a pod has an IP), so other status
    updates do not resync Services.

    Parameters
    ----------
    old, new : dict
        The pod before and after an update.

    Examples
    --------
    >>> a = {"metadata": {"labels": {"app": "web"}}, "spec": {}, "status": {"podIPs": [{"ip": "10.0.0.1"}]}}
    >>> b = {"metadata": {"labels": {"app": "web"}}, "spec": {},
    ...      "status": {"podIPs": [{"ip": "10.0.0.1"}], "containerStatuses": [{"restartCount": 1}]}}
    >>> pod_endpoints_changed(a, b)
    (False, False)
    """
    omd, nmd = old.get("metadata") or {}, new.get("metadata") or {}
    ospec, nspec = old.get("spec") or {}, new.get("spec") or {}
    labels_changed = (omd.get("labels") or {}) != (nmd.get("labels") or {}) or \
        (ospec.get("hostname"), ospec.get("subdomain")) != (nspec.get("hostname"), nspec.get("subdomain"))
    if omd.get("deletionTimestamp") != nmd.get("deletionTimestamp"):
        return True, labels_changed
    if is_pod_ready(old) != is_pod_ready(new):
        return True, labels_changed
    oips = [p.get("ip") for p in (old.get("status") or {}).get("podIPs") or []]
    nips = [p.get("ip") for p in (new.get("status") or {}).get("podIPs") or []]
    if oips != nips or (old.get("status") or {}).get("podIP") != (new.get("status") or {}).get("podIP"):
        return True, labels_changed
    return False, labels_changed


# ---------------------------------------------------------------- nodes
def get_node_condition(status: dict | None, condition_type: str) -> dict | None:
    """``GetNodeCondition``: the node condition of ``condition_type``, or None.

    Parameters
    ----------
    status : dict or None
        A node's ``status``.
    condition_type : str
        ``Ready``, ``MemoryPressure``...
    """
    for c in (status or {}).get("conditions") or []:
        if c.get("type") == condition_type:
            return c
    return None


def get_zone_key(node: dict) -> str:
    """``topology.GetZoneKey``: ``region:\\x00:zone`` from the node's labels, ``""`` when it has neither.

    Parameters
    ----------
    node : dict

    Examples
    --------
    >>> get_zone_key({"metadata": {"labels": {"topology.kubernetes.io/zone": "a"}}})
    ':\\x00:a'
    >>> get_zone_key({"metadata": {}})
    ''
    """
    labels = (node.get("metadata") or {}).get("labels")
    if not labels:
        return ""
    zone = region = ""
    for k in _ZONE_LABELS:  # the GA label first, then the deprecated beta one
        if labels.get(k):
            zone = labels[k]
            break
    for k in _REGION_LABELS:
        if labels.get(k):
            region = labels[k]
            break
    if not zone and not region:
        return ""
    return f"{region}:\x00:{zone}"


def _node_ref(node_name: str, uid: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node_name, "uid": uid}}


def record_node_event(recorder: Any, node_name: str, node_uid: str, event_type: str, reason: str,
                      event: str) -> None:
    """``RecordNodeEvent``: message ``Node <name> event: <event>`` on the Node.

    Parameters
    ----------
    recorder : EventRecorder
    node_name, node_uid : str
    event_type : str
        ``Normal`` or ``Warning``.
    reason : str
        ``RegisteredNode``, ``RemovingNode``...
    event : str
        The text after ``Node <name> event: ``.
    """
    recorder.event(_node_ref(node_name, node_uid), event_type, reason, f"Node {node_name} event: {event}")


def record_node_status_change(recorder: Any, node: dict, new_status: str) -> None:
    """``RecordNodeStatusChange``: a Normal event ``Node <name> status is now: <status>`` with reason ``<status>``.

    Parameters
    ----------
    recorder : EventRecorder
    node : dict
    new_status : str
        Reason and status word (``NodeNotReady``, ``CIDRNotAvailable``).
    """
    md = node.get("metadata") or {}
    recorder.event(_node_ref(md["name"], md.get("uid", "")), "Normal", new_status,
                   f"Node {md['name']} status is now: {new_status}")


def mark_pods_not_ready(client: Any, recorder: Any, pods: Iterable[dict], node_name: str, now: str) -> list[ApiError]:
    """``MarkPodsNotReady``: set each pod's ``Ready`` condition False (status write) and record ``NodeNotReady``.

    Parameters
    ----------
    client : Client
        The controller's client (writes ``pods/status``).
    recorder : EventRecorder
    pods : iterable of dict
        The node's pods (cache objects; copied before writing).
    node_name : str
    now : str
        ``metav1.Now()`` on the virtual clock.

    Returns
    -------
    list of ApiError
        Failures other than NotFound (the caller retries the node).
    """
    errs: list[ApiError] = []
    for p in pods:
        if (p.get("spec") or {}).get("nodeName") != node_name:
            continue
        pod = deep_copy(p)
        st = pod.setdefault("status", {})
        cond = get_pod_condition(st, "Ready")
        if cond is None:
            continue
        new = dict(cond, status="False")
        if not update_pod_condition(st, new, now):
            continue
        try:
            client.update_status("pods", pod, pod["metadata"]["namespace"])
        except ApiError as e:
            if e.code == 404:
                continue
            errs.append(e)
        recorder.event(pod, "Warning", "NodeNotReady", NODE_NOT_READY_POD_MESSAGE)
    return errs


def taint_exists(taints: Iterable[dict] | None, taint: dict) -> bool:
    """``TaintExists``: a taint with the same key and effect is present (``MatchTaint``).

    Parameters
    ----------
    taints : iterable of dict or None
    taint : dict
        Compared by ``key`` and ``effect``.
    """
    return any(match_taint(t, taint) for t in taints or ())


def _write_taints(client: Any, node_name: str, mutate: Callable[[list[dict]], list[dict] | None],
                  node: dict | None = None) -> None:
    """GET (first from ``node``), mutate ``spec.taints``, PUT; retried on conflict (``UpdateTaintBackoff``)."""
    last: ApiError | None = None
    for attempt in range(UPDATE_TAINT_RETRIES):
        cur = deep_copy(node) if attempt == 0 and node is not None else client.get("nodes", node_name)
        taints = list((cur.get("spec") or {}).get("taints") or [])
        new = mutate(taints)
        if new is None:
            return
        spec = cur.setdefault("spec", {})
        if new:
            spec["taints"] = new
        else:
            spec.pop("taints", None)
        try:
            client.update("nodes", cur)
            return
        except ApiError as e:
            if e.code != 409:
                raise
            last = e
    if last is not None:
        raise last


def add_or_update_taint_on_node(client: Any, node_name: str, taints: list[dict], node: dict | None = None) -> None:
    """``AddOrUpdateTaintOnNode``: add ``taints`` (replacing one with the same key and effect).

    Parameters
    ----------
    client : Client
    node_name : str
    taints : list of dict
        Taints to add (``key``, ``value``, ``effect``, ``timeAdded``).
    node : dict, optional
        The cached node, used for the first attempt instead of a GET.

    Raises
    ------
    ApiError
        When the write fails for a reason other than a conflict, or keeps conflicting.
    """
    if not taints:
        return

    def mutate(cur: list[dict]) -> list[dict] | None:
        out = list(cur)
        changed = False
        for t in taints:
            idx = next((i for i, o in enumerate(out) if match_taint(o, t)), None)
            if idx is None:
                out.append(dict(t))
                changed = True
            elif out[idx].get("value") != t.get("value"):
                out[idx] = dict(t)
                changed = True
        return out if changed else None

    _write_taints(client, node_name, mutate, node)


def remove_taint_off_node(client: Any, node_name: str, taints: list[dict], node: dict | None = None) -> None:
    """``RemoveTaintOffNode``: remove taints matching ``taints`` by key and effect (no write when none is there).

    Parameters
    ----------
    client : Client
    node_name : str
    taints : list of dict
        Removed by ``key`` and ``effect``.
    node : dict, optional
        The cached node: no write when it has none of ``taints``.
    """
    if not taints:
        return
    if node is not None and not any(taint_exists((node.get("spec") or {}).get("taints"), t) for t in taints):
        return

    def mutate(cur: list[dict]) -> list[dict] | None:
        out = [o for o in cur if not taint_exists(taints, o)]
        return out if len(out) != len(cur) else None

    _write_taints(client, node_name, mutate, node)


def swap_node_controller_taint(client: Any, to_add: list[dict], to_remove: list[dict], node: dict,
                               now: str) -> bool:
    """``SwapNodeControllerTaint``: add ``to_add`` (stamped ``timeAdded = now``), then remove ``to_remove``.

    Parameters
    ----------
    client : Client
    to_add, to_remove : list of dict
    node : dict
    now : str
        ``timeAdded`` of the added taints.

    Returns
    -------
    bool
        Whether both writes succeeded.
    """
    name = node["metadata"]["name"]
    stamped = [dict(t, timeAdded=now) for t in to_add]
    try:
        add_or_update_taint_on_node(client, name, stamped, node)
        remove_taint_off_node(client, name, to_remove)
    except ApiError:
        return False
    return True


class PodsByNode:
    """The ``spec.nodeName`` index the node controllers add to the pod informer: node -> pod key -> pod.

    Parameters
    ----------
    pod_informer : SharedInformer
        Handlers are registered on it.

    Examples
    --------
    >>> idx = PodsByNode(None)
    >>> idx.on_add({"metadata": {"namespace": "default", "name": "a"}, "spec": {"nodeName": "n1"}})
    >>> [p["metadata"]["name"] for p in idx.pods("n1")]
    ['a']
    """

    def __init__(self, pod_informer: Any):
        self._by_node: dict[str, dict[str, dict]] = {}
        self._node_of: dict[str, str] = {}
        if pod_informer is not None:
            pod_informer.add_event_handler(self.on_add, self.on_update, self.on_delete)

    @staticmethod
    def _key(pod: dict) -> str:
        md = pod["metadata"]
        return f"{md.get('namespace', '')}/{md['name']}"

    def on_add(self, pod: dict) -> None:
        """Index an added (or updated) pod under its node."""
        key = self._key(pod)
        node = (pod.get("spec") or {}).get("nodeName") or ""
        old = self._node_of.get(key)
        if old is not None and old != node:
            self._by_node.get(old, {}).pop(key, None)
        if node:
            self._by_node.setdefault(node, {})[key] = pod
            self._node_of[key] = node
        else:
            self._node_of.pop(key, None)

    def on_update(self, old: dict, new: dict) -> None:
        """Re-index a pod (its node may have been set)."""
        self.on_add(new)

    def on_delete(self, obj: Any) -> None:
        """Drop a deleted pod from the index."""
        pod = unwrap_deleted(obj)
        if pod is None:
            return
        key = self._key(pod)
        node = self._node_of.pop(key, None)
        if node is not None:
            self._by_node.get(node, {}).pop(key, None)

    def pods(self, node_name: str) -> list[dict]:
        """Pods assigned to ``node_name`` (shared cache objects: do not mutate).

        Parameters
        ----------
        node_name : str
        """
        return list(self._by_node.get(node_name, {}).values())
