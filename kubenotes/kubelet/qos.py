"""oom_score_adj per container, and the kernel OOM killer's order it produces.

Mirrors ``pkg/kubelet/qos`` (policy.go, helpers.go) and the criticality
helpers of ``pkg/kubelet/types`` (pod_update.go). The kubelet cannot stop the
kernel from killing processes when the node runs out of memory, but it biases
the kernel's choice through each container's ``oom_score_adj`` (a value in
[-1000, 1000] added, in thousandths of the machine's memory, to the process's
own memory footprint):

* node-critical pods (``priorityClassName: system-node-critical`` on a
  critical pod: static, mirror, or priority >= 2000000000) get **-997**;
* Guaranteed pods get **-997**; BestEffort pods get **1000**;
* Burstable containers get ``1000 - 1000 * memoryRequest / memoryCapacity``
  (integer division), clamped to **[3, 999]**: never below a Guaranteed
  pod's *effective* score (-997 + 1000 = 3), never equal to BestEffort's;
* a sidecar (init container with ``restartPolicy: Always``) gets at most the
  score of the pod's regular container with the smallest memory request, so
  it is not killed before the app it serves;
* with pod-level requests (``spec.resources.requests``, PodLevelResources,
  beta and on in v1.34) the part of the pod's memory request not claimed by
  any container is shared equally by all containers (regular and init) before
  the formula is applied.

The QoS class itself comes from :mod:`kubenotes.api.qos` (``status.qosClass``
first, as ``GetPodQOS``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/helpers.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/types/pod_update.go (IsCriticalPod, IsNodeCriticalPod)
https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/#node-out-of-memory-behavior
KEP-2837 (pod-level resources, "OOM score adjustment"); KEP-753 (sidecar containers)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kubenotes.api.priority import SYSTEM_CRITICAL_PRIORITY, SYSTEM_NODE_CRITICAL
from kubenotes.api.qos import BEST_EFFORT, GUARANTEED, pod_qos_class
from kubenotes.api.quantity import value
from kubenotes.api.resources import aggregate_container_requests

__all__ = [
    "KUBELET_OOM_SCORE_ADJ",
    "KUBE_PROXY_OOM_SCORE_ADJ",
    "GUARANTEED_OOM_SCORE_ADJ",
    "BEST_EFFORT_OOM_SCORE_ADJ",
    "OOM_SCORE_ADJ_MIN",
    "OOM_SCORE_ADJ_MAX",
    "CONFIG_SOURCE_ANNOTATION_KEY",
    "CONFIG_MIRROR_ANNOTATION_KEY",
    "API_SERVER_SOURCE",
    "is_static_pod",
    "is_mirror_pod",
    "is_critical_pod",
    "is_node_critical_pod",
    "is_sidecar_container",
    "is_pod_level_requests_set",
    "min_regular_container_memory",
    "remaining_pod_mem_req_per_container",
    "container_oom_score_adjust",
    "oom_badness",
    "oom_kill_order",
]

#: ``qos.KubeletOOMScoreAdj``: the kubelet process itself.
KUBELET_OOM_SCORE_ADJ = -999
#: ``qos.KubeProxyOOMScoreAdj``: kube-proxy (its ``--oom-score-adj`` default).
KUBE_PROXY_OOM_SCORE_ADJ = -999
#: ``guaranteedOOMScoreAdj``: Guaranteed and node-critical pods.
GUARANTEED_OOM_SCORE_ADJ = -997
#: ``besteffortOOMScoreAdj``: BestEffort pods, the kernel's first victims.
BEST_EFFORT_OOM_SCORE_ADJ = 1000
#: The kernel's ``OOM_SCORE_ADJ_MIN``: a process with this value is never chosen.
OOM_SCORE_ADJ_MIN = -1000
#: The kernel's ``OOM_SCORE_ADJ_MAX``.
OOM_SCORE_ADJ_MAX = 1000

#: ``kubetypes.ConfigSourceAnnotationKey``: where the kubelet got the pod (file, http, api).
CONFIG_SOURCE_ANNOTATION_KEY = "kubernetes.io/config.source"
#: ``kubetypes.ConfigMirrorAnnotationKey``: set on the mirror pod of a static pod.
CONFIG_MIRROR_ANNOTATION_KEY = "kubernetes.io/config.mirror"
#: ``kubetypes.ApiserverSource``.
API_SERVER_SOURCE = "api"

_RESTART_POLICY_ALWAYS = "Always"
_POD_LEVEL_RESOURCES = ("cpu", "memory")


def _go_div(a: int, b: int) -> int:
    """Go's int64 division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _spec(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return pod.get("spec") or {}


def _annotations(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return (pod.get("metadata") or {}).get("annotations") or {}


def _memory_request_bytes(container: Mapping[str, Any]) -> int:
    q = ((container.get("resources") or {}).get("requests") or {}).get("memory")
    return value(q, "resources.requests.memory") if q is not None else 0


def is_static_pod(pod: Mapping[str, Any]) -> bool:
    """True when the pod came from a manifest file or URL, not the API (``IsStaticPod``).

    The kubelet records the source in the ``kubernetes.io/config.source``
    annotation (``file``, ``http`` or ``api``).

    Examples
    --------
    >>> is_static_pod({"metadata": {"annotations": {"kubernetes.io/config.source": "file"}}})
    True
    >>> is_static_pod({"metadata": {}})
    False
    """
    source = _annotations(pod).get(CONFIG_SOURCE_ANNOTATION_KEY)
    return source is not None and source != API_SERVER_SOURCE


def is_mirror_pod(pod: Mapping[str, Any]) -> bool:
    """True for the API's mirror of a static pod (``IsMirrorPod``).

    Examples
    --------
    >>> is_mirror_pod({"metadata": {"annotations": {"kubernetes.io/config.mirror": "abc"}}})
    True
    """
    return CONFIG_MIRROR_ANNOTATION_KEY in _annotations(pod)


def is_critical_pod(pod: Mapping[str, Any]) -> bool:
    """Static, mirror, or ``spec.priority >= 2000000000`` (``IsCriticalPod``).

    Examples
    --------
    >>> is_critical_pod({"spec": {"priority": 2000000000}}), is_critical_pod({"spec": {"priority": 10}})
    (True, False)
    """
    if is_static_pod(pod) or is_mirror_pod(pod):
        return True
    priority = _spec(pod).get("priority")
    return priority is not None and int(priority) >= SYSTEM_CRITICAL_PRIORITY


def is_node_critical_pod(pod: Mapping[str, Any]) -> bool:
    """A critical pod whose ``priorityClassName`` is ``system-node-critical`` (``IsNodeCriticalPod``).

    Examples
    --------
    >>> is_node_critical_pod({"spec": {"priority": 2000001000, "priorityClassName": "system-node-critical"}})
    True
    >>> is_node_critical_pod({"spec": {"priority": 2000000000, "priorityClassName": "system-cluster-critical"}})
    False
    """
    return is_critical_pod(pod) and _spec(pod).get("priorityClassName") == SYSTEM_NODE_CRITICAL


def is_sidecar_container(pod: Mapping[str, Any], container: Mapping[str, Any]) -> bool:
    """True for an init container with ``restartPolicy: Always`` (policy.go ``isSidecarContainer``).

    The container counts only if an init container of that name exists in the pod.

    Examples
    --------
    >>> sc = {"name": "proxy", "restartPolicy": "Always"}
    >>> is_sidecar_container({"spec": {"initContainers": [sc], "containers": []}}, sc)
    True
    """
    if container.get("restartPolicy") != _RESTART_POLICY_ALWAYS:
        return False
    return any(c.get("name") == container.get("name") for c in _spec(pod).get("initContainers") or ())


def is_pod_level_requests_set(pod: Mapping[str, Any]) -> bool:
    """True when ``spec.resources.requests`` names cpu or memory (``IsPodLevelRequestsSet``).

    Examples
    --------
    >>> is_pod_level_requests_set({"spec": {"resources": {"requests": {"memory": "1Gi"}}}})
    True
    >>> is_pod_level_requests_set({"spec": {"resources": {"limits": {"memory": "1Gi"}}}})
    False
    """
    requests = (_spec(pod).get("resources") or {}).get("requests") or {}
    return any(name in _POD_LEVEL_RESOURCES for name in requests)


def min_regular_container_memory(pod: Mapping[str, Any]) -> int:
    """Smallest memory request, in bytes, among ``spec.containers`` (``minRegularContainerMemory``).

    Init containers, sidecars included, are not considered. A container with
    no memory request counts 0.

    Examples
    --------
    >>> min_regular_container_memory({"spec": {"containers": [
    ...     {"name": "a", "resources": {"requests": {"memory": "1Gi"}}},
    ...     {"name": "b", "resources": {"requests": {"memory": "256Mi"}}}]}})
    268435456
    """
    values = [_memory_request_bytes(c) for c in _spec(pod).get("containers") or ()]
    return min(values) if values else 0


def remaining_pod_mem_req_per_container(pod: Mapping[str, Any]) -> int:
    """Pod-level memory request not claimed by containers, per container (``remainingPodMemReqPerContainer``).

    ``(spec.resources.requests.memory - aggregated container requests) /
    (len(containers) + len(initContainers))``, in bytes, where the aggregate
    is the sidecar-aware sum used everywhere else
    (``resourcehelper.AggregateContainerRequests``: regular containers plus
    sidecars, or the largest init container if bigger).

    Returns
    -------
    int
        Bytes; 0 when the pod sets no (or a zero) pod-level memory request.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/helpers.go

    Examples
    --------
    >>> remaining_pod_mem_req_per_container({"spec": {"resources": {"requests": {"memory": "2000000000"}},
    ...     "containers": [{"name": "a", "resources": {"requests": {"memory": "1000000000"}}}, {"name": "b"}]}})
    500000000
    """
    spec = _spec(pod)
    q = ((spec.get("resources") or {}).get("requests") or {}).get("memory")
    if q is None:
        return 0
    pod_memory = value(q, "spec.resources.requests.memory")
    if pod_memory == 0:
        return 0
    num_containers = len(spec.get("containers") or ()) + len(spec.get("initContainers") or ())
    aggregate = aggregate_container_requests(pod, quantities=True).get("memory")
    aggregate_bytes = aggregate.int_value() if aggregate is not None else 0
    return _go_div(pod_memory - aggregate_bytes, num_containers)


def _find_container(pod: Mapping[str, Any], container_name: str) -> Mapping[str, Any]:
    spec = _spec(pod)
    for c in list(spec.get("containers") or ()) + list(spec.get("initContainers") or ()):
        if c.get("name") == container_name:
            return c
    raise KeyError(f"container {container_name!r} not found in pod")


def container_oom_score_adjust(
    pod: Mapping[str, Any],
    container_name: str,
    memory_capacity_bytes: int,
    *,
    pod_level_resources: bool = True,
) -> int:
    """The ``oom_score_adj`` the kubelet gives a container (``GetContainerOOMScoreAdjust``).

    Parameters
    ----------
    pod : dict
        A JSON-shaped Pod (its allocated resources are its spec here).
    container_name : str
        A regular or init container of the pod.
    memory_capacity_bytes : int
        The node's memory capacity (cAdvisor's ``MemoryCapacity``), > 0.
    pod_level_resources : bool
        The PodLevelResources feature gate (on by default in v1.34).

    Returns
    -------
    int
        -997 (node-critical or Guaranteed), 1000 (BestEffort), else a value
        in [3, 999] for Burstable containers.

    Raises
    ------
    KeyError
        When the pod has no container of that name.
    ValueError
        When ``memory_capacity_bytes`` is not positive.
    InvalidQuantity
        When a memory quantity does not parse.

    Notes
    -----
    Simplified: no DRA memory allocations (later releases), and requests are
    read from the spec (the kubelet passes the pod with its *allocated*
    resources, which equal the spec unless an in-place resize is pending).

    See Also
    --------
    oom_kill_order : what the kernel then does with the values.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy_test.go

    Examples
    --------
    Requesting 1/8 of the node's memory leaves 1000 - 125 = 875:

    >>> pod = {"spec": {"containers": [{"name": "app", "resources": {
    ...     "requests": {"memory": "1000000000"}, "limits": {"memory": "2000000000"}}}]}}
    >>> container_oom_score_adjust(pod, "app", 8000000000)
    875
    >>> guaranteed = {"spec": {"containers": [{"name": "db", "resources": {
    ...     "requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}]}}
    >>> container_oom_score_adjust(guaranteed, "db", 8000000000)
    -997
    """
    if memory_capacity_bytes <= 0:
        raise ValueError("memory_capacity_bytes must be positive")
    container = _find_container(pod, container_name)
    if is_node_critical_pod(pod):
        return GUARANTEED_OOM_SCORE_ADJ
    qos_class = pod_qos_class(pod)
    if qos_class == GUARANTEED:
        return GUARANTEED_OOM_SCORE_ADJ
    if qos_class == BEST_EFFORT:
        return BEST_EFFORT_OOM_SCORE_ADJ

    container_mem_req = _memory_request_bytes(container)
    pod_level = pod_level_resources and is_pod_level_requests_set(pod)
    remaining = remaining_pod_mem_req_per_container(pod) if pod_level else 0
    oom_score_adjust = 1000 - _go_div(1000 * (container_mem_req + remaining), memory_capacity_bytes)

    if is_sidecar_container(pod, container):
        min_memory_request = min_regular_container_memory(pod) + remaining
        min_memory_oom_score_adjust = 1000 - _go_div(1000 * min_memory_request, memory_capacity_bytes)
        oom_score_adjust = min(oom_score_adjust, min_memory_oom_score_adjust)

    if oom_score_adjust < 1000 + GUARANTEED_OOM_SCORE_ADJ:
        return 1000 + GUARANTEED_OOM_SCORE_ADJ
    if oom_score_adjust == BEST_EFFORT_OOM_SCORE_ADJ:
        return oom_score_adjust - 1
    return oom_score_adjust


def oom_badness(usage_bytes: int, oom_score_adj: int, total_bytes: int) -> int | None:
    """The kernel's badness of a process when the machine runs out of memory.

    ``usage + oom_score_adj * total / 1000``, floored at 1 for an eligible
    process, or ``None`` when ``oom_score_adj`` is -1000 (never killed).

    Parameters
    ----------
    usage_bytes : int
        Resident memory (plus swap and page tables) of the process.
    oom_score_adj : int
        In [-1000, 1000].
    total_bytes : int
        RAM plus swap the OOM killer considers (the node's memory for a
        system-wide OOM).

    Returns
    -------
    int or None
        Badness in bytes; the kernel kills the process with the highest.

    Raises
    ------
    TypeError
        For non-integer arguments; nothing of its own (``oom_score_adj``
        outside [-1000, 1000] is not checked).

    Notes
    -----
    The kernel counts pages rather than bytes and gives no root bonus any
    more; the ordering is the same. Kernels since 5.9 show
    ``1000 + badness * 1000 / total`` in ``/proc/<pid>/oom_score``.

    References
    ----------
    torvalds/linux mm/oom_kill.c (oom_badness)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy.go (the comment on GetContainerOOMScoreAdjust)

    Examples
    --------
    >>> gi = 1 << 30
    >>> oom_badness(2 * gi, 1000, 8 * gi) > oom_badness(6 * gi, -997, 8 * gi)
    True
    >>> oom_badness(gi, -1000, 8 * gi) is None
    True
    """
    if oom_score_adj <= OOM_SCORE_ADJ_MIN:
        return None
    points = usage_bytes + _go_div(oom_score_adj * total_bytes, 1000)
    return points if points > 0 else 1


def oom_kill_order(
    processes: Iterable[tuple[str, int, int]], total_bytes: int
) -> list[tuple[str, int]]:
    """The order in which the kernel OOM killer would pick processes.

    Parameters
    ----------
    processes : iterable of (str, int, int)
        ``(name, usage_bytes, oom_score_adj)`` per process (one per container).
    total_bytes : int
        Memory the OOM killer considers.

    Returns
    -------
    list of (str, int)
        ``(name, badness)`` from first to last victim; unkillable processes
        (``oom_score_adj == -1000``) are left out. Ties keep input order.

    Notes
    -----
    The kernel kills one process per OOM and re-evaluates; the list shows the
    order if the same usage persisted.

    Examples
    --------
    >>> gi = 1 << 30
    >>> [name for name, _ in oom_kill_order([("guaranteed", 3 * gi, -997), ("besteffort", gi // 2, 1000),
    ...                                      ("burstable", gi, 875)], 8 * gi)]
    ['besteffort', 'burstable', 'guaranteed']

    A Burstable container (1Gi request on 8Gi, adj 875) that uses 2Gi goes first:

    >>> oom_kill_order([("besteffort", gi // 2, 1000), ("burstable", 2 * gi, 875)], 8 * gi)[0][0]
    'burstable'
    """
    scored = []
    for name, usage, adj in processes:
        badness = oom_badness(usage, adj, total_bytes)
        if badness is not None:
            scored.append((name, badness))
    return sorted(scored, key=lambda item: -item[1])
