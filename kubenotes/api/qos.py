"""Pod quality-of-service classes: Guaranteed, Burstable, BestEffort.

Mirrors ``pkg/apis/core/v1/helper/qos`` (qos.go). Only ``cpu`` and
``memory`` count, and a zero quantity counts as not set. With pod-level
resources (``spec.resources``, the PodLevelResources feature, beta and on in
v1.34) the pod's own requests and limits decide; otherwise regular and init
containers (sidecars included) are summed:

* **BestEffort**: no positive cpu/memory request or limit anywhere;
* **Guaranteed**: every container sets positive cpu *and* memory limits, and
  the summed requests equal the summed limits for both resources;
* **Burstable**: anything else.

The API server stores the result in ``status.qosClass`` when the pod is
created; :func:`pod_qos_class` reads that first (``GetPodQOS``), and
:func:`compute_pod_qos` always evaluates the spec (``ComputePodQOS``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/qos/qos.go
https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/
KEP-2837 (pod-level resources)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kubenotes.api.quantity import milli_value

__all__ = ["GUARANTEED", "BURSTABLE", "BEST_EFFORT", "compute_pod_qos", "pod_qos_class"]

#: ``v1.PodQOSGuaranteed``.
GUARANTEED = "Guaranteed"
#: ``v1.PodQOSBurstable``.
BURSTABLE = "Burstable"
#: ``v1.PodQOSBestEffort``.
BEST_EFFORT = "BestEffort"

_QOS_RESOURCES = ("cpu", "memory")


def _positive(rl: Mapping[str, Any] | None, path: str) -> dict[str, int]:
    """cpu/memory entries of a ResourceList with a positive value, in thousandths (rounded up)."""
    out: dict[str, int] = {}
    if not rl:
        return out
    for name in _QOS_RESOURCES:
        q = rl.get(name)
        if q is None:
            continue
        m = milli_value(q, f"{path}.{name}")
        if m > 0:
            out[name] = m
    return out


def _add(into: dict[str, int], rl: Mapping[str, int]) -> None:
    for k, v in rl.items():
        into[k] = into.get(k, 0) + v


def _field(obj: Any, name: str) -> Any:
    """``obj[name]`` of a stored (dict) object, ``obj.name`` of a lightkube model; None when absent."""
    if isinstance(obj, dict):
        return obj.get(name)
    return None if obj is None else getattr(obj, name, None)


def _containers(spec: Any, stored: bool) -> Iterable[tuple[str, Any]]:
    for i, c in enumerate((spec.get("containers") if stored else spec.containers) or ()):
        yield f"spec.containers[{i}]", c
    for i, c in enumerate((spec.get("initContainers") if stored else spec.initContainers) or ()):
        yield f"spec.initContainers[{i}]", c


def compute_pod_qos(pod: Any) -> str:
    """Evaluate a pod's QoS class from its spec (``ComputePodQOS``).

    Parameters
    ----------
    pod : dict or lightkube.resources.core_v1.Pod
        The stored (JSON-shaped) pod or a lightkube model of it. Usually
        after :func:`kubenotes.api.defaults.apply_defaults`, which
        copies limits into missing requests (a container with only limits is
        then Guaranteed, as on a real cluster).

    Returns
    -------
    str
        ``"Guaranteed"``, ``"Burstable"`` or ``"BestEffort"``.

    Raises
    ------
    InvalidQuantity
        When a cpu or memory quantity does not parse.

    Notes
    -----
    Quantities are compared in thousandths rounded up, matching the API
    server's defaulting, which rounds every quantity up to milli precision
    before the class is computed. Ephemeral containers never count.

    See Also
    --------
    pod_qos_class : prefer the class stored in ``status.qosClass``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/qos/qos.go

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> def pod(*resources, pod_level=None):
    ...     spec = {"containers": [{"name": f"c{i}", "resources": r} for i, r in enumerate(resources)]}
    ...     if pod_level is not None:
    ...         spec["resources"] = pod_level
    ...     return Pod.from_dict({"metadata": {"name": "p"}, "spec": spec})
    >>> both = {"cpu": "100m", "memory": "100Mi"}
    >>> compute_pod_qos(pod({"requests": both, "limits": both}))
    'Guaranteed'
    >>> compute_pod_qos(pod({"requests": both, "limits": both}, {}))
    'Burstable'
    >>> compute_pod_qos(pod({}))
    'BestEffort'
    >>> compute_pod_qos(pod({}, pod_level={"requests": both, "limits": both}))
    'Guaranteed'
    >>> compute_pod_qos({"spec": {"containers": [{"name": "c", "resources": {"requests": both, "limits": both}}]}})
    'Guaranteed'
    """
    spec = pod.get("spec") if isinstance(pod, dict) else pod.spec
    if spec is None:
        return BEST_EFFORT
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    stored = isinstance(spec, dict)
    pod_res = spec.get("resources") if stored else getattr(spec, "resources", None)
    if pod_res is not None:
        pod_requests, pod_limits = _field(pod_res, "requests"), _field(pod_res, "limits")
        if pod_requests:
            _add(requests, _positive(pod_requests, "spec.resources.requests"))
        if pod_limits:
            lim = _positive(pod_limits, "spec.resources.limits")
            _add(limits, lim)
            if len(lim) < len(_QOS_RESOURCES):
                guaranteed = False
    else:
        for path, c in _containers(spec, stored):
            res = c.get("resources") if stored else c.resources
            if res is None:
                raw_requests = raw_limits = None
            elif stored:
                raw_requests, raw_limits = res.get("requests"), res.get("limits")
            else:
                raw_requests, raw_limits = res.requests, res.limits
            _add(requests, _positive(raw_requests, f"{path}.resources.requests"))
            lim = _positive(raw_limits, f"{path}.resources.limits")
            _add(limits, lim)
            if len(lim) < len(_QOS_RESOURCES):
                guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed:
        for name, req in requests.items():
            if limits.get(name) != req:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE


def pod_qos_class(pod: Any) -> str:
    """A pod's QoS class: ``status.qosClass`` when set, else :func:`compute_pod_qos` (``GetPodQOS``).

    Parameters
    ----------
    pod : dict or lightkube.resources.core_v1.Pod
        The stored (JSON-shaped) pod or a lightkube model of it.

    Returns
    -------
    str
        ``"Guaranteed"``, ``"Burstable"`` or ``"BestEffort"``.

    Raises
    ------
    InvalidQuantity
        When the class has to be computed and a quantity does not parse.

    Notes
    -----
    The API server fixes ``status.qosClass`` at creation; later in-place
    resizes do not change it, which is why upstream prefers the stored value.

    See Also
    --------
    compute_pod_qos : evaluate the spec.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/helper/qos/qos.go (GetPodQOS)

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> p = Pod.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]},
    ...                    "status": {"qosClass": "Burstable"}})
    >>> pod_qos_class(p), compute_pod_qos(p)
    ('Burstable', 'BestEffort')
    >>> pod_qos_class({"spec": {"containers": [{"name": "c"}]}})
    'BestEffort'
    """
    if isinstance(pod, dict):
        stored = (pod.get("status") or {}).get("qosClass")
    else:
        status = getattr(pod, "status", None)
        stored = status.qosClass if status is not None else None
    if stored:
        return stored
    return compute_pod_qos(pod)
