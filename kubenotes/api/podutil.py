"""Pod helpers over the stored Pod object: conditions, readiness, ports.

Mirrors ``pkg/api/v1/pod`` (util.go): ``GetPodCondition``,
``GetPodReadyCondition``, ``IsPodReady``, ``UpdatePodCondition``,
``FindPort`` and ``IsRestartableInitContainer``. Every component that asks whether a pod is ready (the
controllers, the endpoint controllers, the chapters' views) calls these.
Pods are the JSON-shaped dicts the API server stores.

The time-dependent ``IsPodAvailable`` stays with the controllers
(:mod:`kubenotes.controllers.podutil`), since it reads timestamps on the
API server's virtual clock.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/api/v1/pod/util.go
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["CONTAINER_RESTART_POLICY_ALWAYS", "RESTART_POLICIES", "is_restartable_init_container", "get_pod_condition", "pod_ready_condition", "is_pod_ready", "update_pod_condition", "find_port"]


#: ``v1.ContainerRestartPolicyAlways``: on an init container, it makes a sidecar (KEP-753).
CONTAINER_RESTART_POLICY_ALWAYS = "Always"
#: The ``spec.restartPolicy`` values of a Pod (``v1.RestartPolicyAlways``, ``OnFailure``, ``Never``), as validation
#: lists them.
RESTART_POLICIES = ("Always", "OnFailure", "Never")


def is_restartable_init_container(container: Any) -> bool:
    """True for a sidecar: an init container with ``restartPolicy: Always`` (``IsRestartableInitContainer``).

    Parameters
    ----------
    container : dict or lightkube.models.core_v1.Container
        An entry of ``spec.initContainers``.

    Returns
    -------
    bool

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/api/v1/pod/util.go (IsRestartableInitContainer)
    KEP-753 (sidecar containers)

    Examples
    --------
    >>> is_restartable_init_container({"name": "s", "restartPolicy": "Always"}), is_restartable_init_container({})
    (True, False)
    """
    if isinstance(container, Mapping):
        return container.get("restartPolicy") == CONTAINER_RESTART_POLICY_ALWAYS
    return getattr(container, "restartPolicy", None) == CONTAINER_RESTART_POLICY_ALWAYS


def get_pod_condition(status: dict | None, condition_type: str) -> dict | None:
    """``GetPodCondition``: the condition of ``condition_type`` in a pod status, or None.

    Parameters
    ----------
    status : dict or None
        A pod's ``status``.
    condition_type : str
        ``Ready``, ``PodScheduled``, ``DisruptionTarget``...
    """
    for c in (status or {}).get("conditions") or []:
        if c.get("type") == condition_type:
            return c
    return None


def pod_ready_condition(pod: dict) -> dict | None:
    """``GetPodReadyCondition``: the pod's ``Ready`` condition, or None.

    Parameters
    ----------
    pod : dict

    Returns
    -------
    dict or None
        The condition itself (not a copy).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/api/v1/pod/util.go (GetPodReadyCondition)

    Examples
    --------
    >>> pod_ready_condition({"status": {"conditions": [{"type": "Ready", "status": "False"}]}})
    {'type': 'Ready', 'status': 'False'}
    """
    return get_pod_condition(pod.get("status"), "Ready")


def is_pod_ready(pod: dict) -> bool:
    """``IsPodReady``: the pod's ``Ready`` condition is ``True``.

    Parameters
    ----------
    pod : dict

    Returns
    -------
    bool

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/api/v1/pod/util.go (IsPodReady, IsPodReadyConditionTrue)

    Examples
    --------
    >>> is_pod_ready({"status": {"conditions": [{"type": "Ready", "status": "True"}]}})
    True
    >>> is_pod_ready({"status": {}})
    False
    """
    c = pod_ready_condition(pod)
    return c is not None and c.get("status") == "True"


def update_pod_condition(status: dict, condition: dict, now: str) -> bool:
    """``UpdatePodCondition``: set ``condition`` in ``status``; True when anything changed.

    ``lastTransitionTime`` becomes ``now`` when the status changes (or the
    condition is new), and is kept otherwise.

    Parameters
    ----------
    status : dict
        A pod's ``status``, changed in place.
    condition : dict
        The condition to set (``type``, ``status``, optional ``reason``/``message``).
    now : str
        ``metav1.Now()`` on the virtual clock.

    Examples
    --------
    >>> st = {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "t0"}]}
    >>> update_pod_condition(st, {"type": "Ready", "status": "False"}, "t1"), st["conditions"][0]["lastTransitionTime"]
    (True, 't1')
    >>> update_pod_condition(st, {"type": "Ready", "status": "False"}, "t2")
    False
    """
    conds = status.setdefault("conditions", [])
    new = dict(condition)
    for i, old in enumerate(conds):
        if old.get("type") != new.get("type"):
            continue
        if old.get("status") == new.get("status"):
            new["lastTransitionTime"] = old.get("lastTransitionTime")
        else:
            new.setdefault("lastTransitionTime", now)
        new.setdefault("lastProbeTime", old.get("lastProbeTime"))
        same = all(old.get(k) == new.get(k) for k in ("status", "reason", "message", "lastProbeTime",
                                                       "lastTransitionTime"))
        conds[i] = new
        return not same
    new.setdefault("lastTransitionTime", now)
    new.setdefault("lastProbeTime", None)
    conds.append(new)
    return True


def find_port(pod: dict, service_port: dict) -> int:
    """``FindPort``: the container port a Service port's ``targetPort`` names, or the number itself.

    Parameters
    ----------
    pod : dict
    service_port : dict
        One of the Service's ``spec.ports``.

    Raises
    ------
    ValueError
        When a named port is not among the pod's container ports (upstream's
        ``no suitable port for manifest``).

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "c", "ports": [{"name": "http", "containerPort": 8080}]}]}}
    >>> find_port(pod, {"port": 80, "targetPort": "http"}), find_port(pod, {"port": 80, "targetPort": 9090})
    (8080, 9090)
    >>> find_port(pod, {"port": 80})
    80
    """
    target = service_port.get("targetPort")
    if target is None or target == "":
        target = service_port.get("port")
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    proto = service_port.get("protocol") or "TCP"
    for c in (pod.get("spec") or {}).get("containers") or []:
        for p in c.get("ports") or []:
            if p.get("name") == target and (p.get("protocol") or "TCP") == proto:
                return int(p["containerPort"])
    uid = (pod.get("metadata") or {}).get("uid", "")
    raise ValueError(f"no suitable port for manifest: {uid}")
