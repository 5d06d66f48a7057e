"""The ``LimitRanger`` admission plugin: LimitRange defaults and bounds, per container and per pod.

A LimitRange holds items of ``type`` ``Container``, ``Pod`` or
``PersistentVolumeClaim`` (the seed notes' first two levels; a
ResourceQuota is the third, the namespace). On pod CREATE:

* mutating phase: every container and init container gets the
  ``Container`` item's ``default`` as limits and ``defaultRequest`` as
  requests for each resource it does not set, and the pod is annotated
  ``kubernetes.io/limit-ranger: LimitRanger plugin set: cpu request for
  container app; ...``;
* validating phase: ``min``, ``max`` and ``maxLimitRequestRatio`` are
  enforced on each container (``Container``), on the pod's summed requests
  and limits (``Pod``; init containers count by their maximum, sidecars
  add up), and ``min``/``max`` on a PVC's requested storage. All
  violations of one LimitRange are reported together, worded as upstream
  (``maximum cpu usage per Container is 1, but limit is 2``).

Pod updates are not checked (a pod's resources are immutable), nor objects
being deleted.

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/limitranger/admission.go
https://kubernetes.io/docs/concepts/policy/limit-range/
"""

from __future__ import annotations

from typing import Any, Mapping

from kubenotes.apiserver.admission.interfaces import CREATE, UPDATE, Plugin, forbidden
from kubenotes.api.quantity import Quantity
from kubenotes.api.resources import aggregate_container_limits, aggregate_container_requests, resource_list
from kubenotes.apiserver.request import Attributes
from kubenotes.apiserver.status import aggregate_causes

__all__ = ["NAME", "LimitRanger", "LIMIT_RANGER_ANNOTATION", "LIMIT_TYPE_CONTAINER", "LIMIT_TYPE_POD",
           "LIMIT_TYPE_PVC", "min_constraint", "max_constraint", "max_request_constraint",
           "limit_request_ratio_constraint", "pod_limit_requests", "pod_limit_limits"]

NAME = "LimitRanger"
LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger"
LIMIT_TYPE_CONTAINER = "Container"
LIMIT_TYPE_POD = "Pod"
LIMIT_TYPE_PVC = "PersistentVolumeClaim"


def _milli(q: Quantity | None) -> int:
    return q.milli_value() if q is not None else 0


def min_constraint(limit_type: str, resource: str, enforced: Quantity, requests: Mapping[str, Quantity],
                   limits: Mapping[str, Quantity]) -> str | None:
    """``minConstraint``: the request (and the limit, if set) must be at least ``enforced``.

    Examples
    --------
    >>> min_constraint("Container", "cpu", Quantity.parse("100m"), {"cpu": Quantity.parse("50m")}, {})
    'minimum cpu usage per Container is 100m, but request is 50m'
    """
    req, lim = requests.get(resource), limits.get(resource)
    if req is None:
        return f"minimum {resource} usage per {limit_type} is {enforced}.  No request is specified"
    if _milli(req) < enforced.milli_value():
        return f"minimum {resource} usage per {limit_type} is {enforced}, but request is {req}"
    if lim is not None and _milli(lim) < enforced.milli_value():
        return f"minimum {resource} usage per {limit_type} is {enforced}, but limit is {lim}"
    return None


def max_constraint(limit_type: str, resource: str, enforced: Quantity, requests: Mapping[str, Quantity],
                   limits: Mapping[str, Quantity]) -> str | None:
    """``maxConstraint``: a limit must be set and at most ``enforced``; so must the request, if set.

    Examples
    --------
    >>> max_constraint("Container", "memory", Quantity.parse("1Gi"), {}, {})
    'maximum memory usage per Container is 1Gi.  No limit is specified'
    """
    req, lim = requests.get(resource), limits.get(resource)
    if lim is None:
        return f"maximum {resource} usage per {limit_type} is {enforced}.  No limit is specified"
    if _milli(lim) > enforced.milli_value():
        return f"maximum {resource} usage per {limit_type} is {enforced}, but limit is {lim}"
    if req is not None and _milli(req) > enforced.milli_value():
        return f"maximum {resource} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def max_request_constraint(limit_type: str, resource: str, enforced: Quantity,
                           requests: Mapping[str, Quantity]) -> str | None:
    """``maxRequestConstraint``: for PVCs, which have requests only."""
    req = requests.get(resource)
    if req is None:
        return f"maximum {resource} usage per {limit_type} is {enforced}.  No request is specified"
    if _milli(req) > enforced.milli_value():
        return f"maximum {resource} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def limit_request_ratio_constraint(limit_type: str, resource: str, enforced: Quantity,
                                   requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> str | None:
    """``limitRequestRatioConstraint``: ``limit / request`` must not exceed ``enforced``.

    Examples
    --------
    >>> limit_request_ratio_constraint("Container", "cpu", Quantity.parse("2"), {"cpu": Quantity.parse("250m")},
    ...                                {"cpu": Quantity.parse("1")})
    'cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000'
    """
    req, lim = requests.get(resource), limits.get(resource)
    if req is None or _milli(req) == 0:
        return (f"{resource} max limit to request ratio per {limit_type} is {enforced}, but no request is specified "
                f"or request is 0")
    if lim is None or _milli(lim) == 0:
        return (f"{resource} max limit to request ratio per {limit_type} is {enforced}, but no limit is specified "
                f"or limit is 0")
    observed = _milli(lim) / _milli(req)
    if observed * 1000 > enforced.milli_value():
        return (f"{resource} max limit to request ratio per {limit_type} is {enforced}, but provided ratio is "
                f"{observed:.6f}")
    return None


def pod_limit_requests(pod: Mapping[str, Any]) -> dict:
    """LimitRanger's ``podRequests``: containers and sidecars summed, max with each init container (no overhead)."""
    return aggregate_container_requests(pod, quantities=True)


def pod_limit_limits(pod: Mapping[str, Any]) -> dict:
    """LimitRanger's ``podLimits``."""
    return aggregate_container_limits(pod, quantities=True)


def _container_checks(item: Mapping[str, Any], limit_type: str, requests: Mapping[str, Quantity],
                      limits: Mapping[str, Quantity]) -> list[str]:
    errs = []
    for k, v in (item.get("min") or {}).items():
        e = min_constraint(limit_type, k, Quantity.parse(v, k), requests, limits)
        if e:
            errs.append(e)
    for k, v in (item.get("max") or {}).items():
        e = max_constraint(limit_type, k, Quantity.parse(v, k), requests, limits)
        if e:
            errs.append(e)
    for k, v in (item.get("maxLimitRequestRatio") or {}).items():
        e = limit_request_ratio_constraint(limit_type, k, Quantity.parse(v, k), requests, limits)
        if e:
            errs.append(e)
    return errs


class LimitRanger(Plugin):
    """Apply LimitRange defaults (mutating) and bounds (validating) to pods and PVCs.

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> class Reader:
    ...     def list(self, resource, namespace=None):
    ...         return [{"metadata": {"name": "lr"}, "spec": {"limits": [
    ...             {"type": "Container", "default": {"cpu": "500m"}, "defaultRequest": {"cpu": "250m"}}]}}]
    >>> pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "app", "image": "x"}]}}
    >>> attrs = Attributes(UserInfo("u"), "create", resource_for("pods"), namespace="ns")
    >>> LimitRanger().admit(attrs, pod, None, Reader())
    >>> pod["spec"]["containers"][0]["resources"]
    {'limits': {'cpu': '500m'}, 'requests': {'cpu': '250m'}}
    >>> pod["metadata"]["annotations"][LIMIT_RANGER_ANNOTATION]
    'LimitRanger plugin set: cpu request for container app; cpu limit for container app'
    """

    name = NAME
    operations = frozenset({CREATE, UPDATE})

    @staticmethod
    def _supports(attrs: Attributes, old: dict | None) -> bool:
        ri = attrs.resource
        if attrs.subresource or ri.group != "":
            return False
        if ri.resource == "pods" and attrs.operation == UPDATE:
            return False
        if ri.resource not in ("pods", "persistentvolumeclaims"):
            return False
        return not (old is not None and (old.get("metadata") or {}).get("deletionTimestamp"))

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        if obj is None or not self._supports(attrs, old) or attrs.resource.resource != "pods":
            return
        for lr in reader.list("limitranges", attrs.namespace):
            self._mutate_pod(lr, obj)

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        if obj is None or not self._supports(attrs, old):
            return
        for lr in reader.list("limitranges", attrs.namespace):
            if attrs.resource.resource == "pods":
                errs = self._validate_pod(lr, obj)
            else:
                errs = self._validate_pvc(lr, obj)
            if errs:
                raise forbidden(attrs, obj, aggregate_causes(errs))

    @staticmethod
    def _mutate_pod(lr: Mapping[str, Any], pod: dict) -> None:
        """``PodMutateLimitFunc``: merge the ``Container`` item's defaults into every container."""
        def_limits: dict = {}
        def_requests: dict = {}
        for item in ((lr.get("spec") or {}).get("limits")) or ():
            if item.get("type") == LIMIT_TYPE_CONTAINER:
                for k, v in (item.get("defaultRequest") or {}).items():
                    def_requests[k] = str(Quantity.parse(v, k))
                def_limits.update({k: str(Quantity.parse(v, k)) for k, v in (item.get("default") or {}).items()})
        notes: list[str] = []
        spec = pod.setdefault("spec", {})
        for key, prefix in (("containers", "container"), ("initContainers", "init container")):
            for c in spec.get(key) or ():
                res = c.get("resources") or {}
                c["resources"] = res
                limits = res["limits"] = res.get("limits") or {}
                requests = res["requests"] = res.get("requests") or {}
                set_limits = sorted(k for k in def_limits if k not in limits)
                set_requests = sorted(k for k in def_requests if k not in requests)
                for k in set_limits:
                    limits[k] = def_limits[k]
                for k in set_requests:
                    requests[k] = def_requests[k]
                if not limits:
                    res.pop("limits")
                if not requests:
                    res.pop("requests")
                if not res:
                    c.pop("resources")
                if set_requests:
                    notes.append(f"{', '.join(set_requests)} request for {prefix} {c.get('name', '')}")
                if set_limits:
                    notes.append(f"{', '.join(set_limits)} limit for {prefix} {c.get('name', '')}")
        if notes:
            md = pod.setdefault("metadata", {})
            ann = md.get("annotations") or {}
            ann[LIMIT_RANGER_ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)
            md["annotations"] = ann

    @staticmethod
    def _validate_pod(lr: Mapping[str, Any], pod: Mapping[str, Any]) -> list[str]:
        """``PodValidateLimitFunc``."""
        errs: list[str] = []
        spec = pod.get("spec") or {}
        for item in ((lr.get("spec") or {}).get("limits")) or ():
            t = item.get("type")
            if t == LIMIT_TYPE_CONTAINER:
                for key in ("containers", "initContainers"):
                    for c in spec.get(key) or ():
                        res = c.get("resources") or {}
                        errs += _container_checks(item, t, resource_list(res.get("requests"), quantities=True),
                                                  resource_list(res.get("limits"), quantities=True))
            elif t == LIMIT_TYPE_POD:
                errs += _container_checks(item, t, pod_limit_requests(pod), pod_limit_limits(pod))
        return errs

    @staticmethod
    def _validate_pvc(lr: Mapping[str, Any], pvc: Mapping[str, Any]) -> list[str]:
        """``PersistentVolumeClaimValidateLimitFunc``: min/max on requested storage."""
        errs: list[str] = []
        requests = resource_list((((pvc.get("spec") or {}).get("resources") or {}).get("requests")), quantities=True)
        for item in ((lr.get("spec") or {}).get("limits")) or ():
            if item.get("type") != LIMIT_TYPE_PVC:
                continue
            for k, v in (item.get("min") or {}).items():
                e = min_constraint(LIMIT_TYPE_PVC, k, Quantity.parse(v, k), requests, {})
                if e:
                    errs.append(e)
            for k, v in (item.get("max") or {}).items():
                e = max_request_constraint(LIMIT_TYPE_PVC, k, Quantity.parse(v, k), requests)
                if e:
                    errs.append(e)
        return errs
