"""Quota evaluators: what each object charges against a ResourceQuota.

One evaluator per group/resource, as ``pkg/quota/v1/evaluator/core`` and
``staging/src/k8s.io/apiserver/pkg/quota/v1/generic`` define them:

* **pods**: ``count/pods`` always; while the pod is not terminal (and not
  stuck terminating past its grace period) also ``pods``, ``requests.cpu``
  (alias ``cpu``), ``limits.cpu``, ``requests.memory`` (alias ``memory``),
  ``limits.memory``, ``ephemeral-storage`` likewise, hugepages, and
  ``requests.<extended>``. Requests and limits are the pod's effective ones
  (:func:`kubenotes.api.resources.pod_requests`/``pod_limits``, upstream's
  ``resourcehelper.PodRequests``/``PodLimits``: containers plus sidecars,
  the largest init container, pod-level resources, pod overhead).
* **services**: ``services``, ``count/services``, ``services.nodeports``,
  ``services.loadbalancers``.
* **persistentvolumeclaims**: ``persistentvolumeclaims``,
  ``count/persistentvolumeclaims``, ``requests.storage`` and the
  per-StorageClass forms.
* anything else: ``count/<resource>[.<group>]``, plus the legacy names
  ``configmaps``, ``secrets``, ``replicationcontrollers``, ``resourcequotas``.

The ResourceQuota controller sums the same usage over a namespace (see
:func:`usage`), so admission and the controller agree.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/quota/v1/evaluator/core/pods.go
kubernetes/kubernetes@v1.34.0 pkg/quota/v1/evaluator/core/services.go
kubernetes/kubernetes@v1.34.0 pkg/quota/v1/evaluator/core/persistent_volume_claims.go
kubernetes/kubernetes@v1.34.0 pkg/quota/v1/evaluator/core/registry.go (legacy object count aliases)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests, PodLimits)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kubenotes.apiserver.admission.interfaces import CREATE, UPDATE
from kubenotes.api.quantity import Quantity
from kubenotes.api.qos import BEST_EFFORT, pod_qos_class
from kubenotes.api.resources import (is_extended_resource_name, is_native_resource, pod_limits, pod_requests,
                                     resource_list)
from kubenotes.apiserver.resources import ResourceInfo

__all__ = [
    "ResourceList",
    "Evaluator",
    "PodEvaluator",
    "ServiceEvaluator",
    "PersistentVolumeClaimEvaluator",
    "ObjectCountEvaluator",
    "evaluator_for",
    "object_count_name",
    "usage",
    "pod_usage",
    "quota_v1_pod",
    "is_terminating",
    "is_best_effort",
    "format_resource_list",
    "add",
    "subtract_non_negative",
    "mask",
    "less_than_or_equal",
    "is_zero",
    "is_negative",
    "pretty_print",
    "IGNORED_RESOURCES",
    "scope_selectors",
]

#: ``corev1.ResourceList``: resource name -> quantity.
ResourceList = dict

#: Resources quota admission never looks at (``install.DefaultIgnoredResources`` plus non-persisted reviews).
IGNORED_RESOURCES = frozenset({
    ("", "events"), ("", "bindings"), ("authentication.k8s.io", "tokenreviews"),
    ("authentication.k8s.io", "selfsubjectreviews"), ("authorization.k8s.io", "subjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"), ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
})

_REQUESTS_PREFIX = "requests."
_LIMITS_PREFIX = "limits."
_HUGEPAGES = "hugepages-"
_LEGACY_ALIASES = {"configmaps": "configmaps", "resourcequotas": "resourcequotas",
                   "replicationcontrollers": "replicationcontrollers", "secrets": "secrets"}


# --- ResourceList arithmetic (staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go) ---------------------


def format_resource_list(rl: Mapping[str, Quantity]) -> dict[str, str]:
    """The manifest form, each quantity canonicalized (``Quantity.String()``)."""
    return {k: str(v) for k, v in rl.items()}


def add(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    """``quota.Add``: keys of both, summed where both have them."""
    out = dict(a)
    for k, v in b.items():
        out[k] = out[k] + v if k in out else v
    return out


def subtract_non_negative(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    """``quota.SubtractWithNonNegativeResult``: ``a - b`` per key of ``a``, floored at zero."""
    out = {}
    for k, v in a.items():
        d = v - b[k] if k in b else v
        out[k] = d if d.sign() >= 0 else Quantity.zero(v.format)
    return out


def mask(rl: Mapping[str, Quantity], names: Iterable[str]) -> ResourceList:
    """``quota.Mask``: only the named resources."""
    keep = set(names)
    return {k: v for k, v in rl.items() if k in keep}


def less_than_or_equal(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> tuple[bool, list[str]]:
    """``quota.LessThanOrEqual``: whether every ``a[k] <= b[k]`` (keys missing from ``b`` pass), and which fail."""
    exceeded = [k for k, v in a.items() if k in b and v.cmp(b[k]) > 0]
    return not exceeded, exceeded


def is_zero(rl: Mapping[str, Quantity]) -> bool:
    return all(v.value == 0 for v in rl.values())


def is_negative(rl: Mapping[str, Quantity]) -> list[str]:
    return [k for k, v in rl.items() if v.sign() < 0]


def pretty_print(rl: Mapping[str, Quantity]) -> str:
    """``prettyPrint``: ``name=quantity`` pairs sorted by name, comma-separated.

    Examples
    --------
    >>> pretty_print({"requests.memory": Quantity.parse("1Gi"), "requests.cpu": Quantity.parse("500m")})
    'requests.cpu=500m,requests.memory=1Gi'
    """
    return ",".join(f"{k}={rl[k]}" for k in sorted(rl))


# --- pods ----------------------------------------------------------------------------------------------


def _resources(c: Mapping[str, Any], which: str) -> ResourceList:
    return resource_list(((c.get("resources") or {}).get(which)), quantities=True)


def _compute_usage(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> ResourceList:
    """``podComputeUsageHelper``."""
    out: dict = {"pods": Quantity.of_int(1)}
    for res in ("cpu", "memory", "ephemeral-storage"):
        if res in requests:
            out[res] = requests[res]
            out[_REQUESTS_PREFIX + res] = requests[res]
        if res in limits:
            out[_LIMITS_PREFIX + res] = limits[res]
    for res, q in requests.items():
        if res.startswith(_HUGEPAGES):
            out[res] = q
            out[_REQUESTS_PREFIX + res] = q
        if is_extended_resource_name(res):
            out[_REQUESTS_PREFIX + res] = q
    return out


def is_terminating(pod: Mapping[str, Any]) -> bool:
    """``IsTerminating``: the pod has ``activeDeadlineSeconds >= 0`` (the ``Terminating`` quota scope)."""
    ads = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    return ads is not None and int(ads) >= 0


def is_best_effort(pod: Mapping[str, Any]) -> bool:
    """``isBestEffort``: the pod's QoS class (``GetPodQOS``: ``status.qosClass`` first) is ``BestEffort``.

    Examples
    --------
    >>> is_best_effort({"spec": {"containers": [{"name": "c"}]}})
    True
    >>> is_best_effort({"spec": {"containers": [{"name": "c"}]}, "status": {"qosClass": "Burstable"}})
    False
    """
    return pod_qos_class(pod) == BEST_EFFORT


def quota_v1_pod(pod: Mapping[str, Any], now_seconds: float | None = None) -> bool:
    """``QuotaV1Pod``: whether a pod still charges compute quota.

    Terminal pods (``Succeeded``/``Failed``) do not, nor pods whose
    deletion grace period has run out (stuck terminating on a lost node).

    Parameters
    ----------
    now_seconds : float, optional
        The virtual clock; without it the grace-period rule is skipped.
    """
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed"):
        return False
    md = pod.get("metadata") or {}
    ts, grace = md.get("deletionTimestamp"), md.get("deletionGracePeriodSeconds")
    if ts and grace is not None and now_seconds is not None:
        from kubenotes.apiserver.server import parse_timestamp

        if now_seconds > parse_timestamp(ts) + int(grace):
            return False
    return True


def pod_usage(pod: Mapping[str, Any], now_seconds: float | None = None) -> ResourceList:
    """``PodUsageFunc``: what one pod charges.

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}}]},
    ...        "status": {"phase": "Running"}}
    >>> pretty_print(pod_usage(pod))
    'count/pods=1,cpu=500m,limits.cpu=1,pods=1,requests.cpu=500m'
    >>> pretty_print(pod_usage({**pod, "status": {"phase": "Succeeded"}}))
    'count/pods=1'
    """
    out: dict = {"count/pods": Quantity.of_int(1)}
    if not quota_v1_pod(pod, now_seconds):
        return out
    return add(out, _compute_usage(pod_requests(pod, quantities=True), pod_limits(pod, quantities=True)))


# --- evaluators ----------------------------------------------------------------------------------------


def object_count_name(group: str, resource: str) -> str:
    """``generic.ObjectCountQuotaResourceNameFor``: ``count/pods``, ``count/deployments.apps``."""
    return f"count/{resource}.{group}" if group else f"count/{resource}"


class Evaluator:
    """``quota.Evaluator``: usage, matching and constraints of one group/resource.

    Attributes
    ----------
    group, resource : str
    """

    group = ""
    resource = ""

    def handles(self, operation: str, obj: dict | None, old: dict | None) -> bool:
        """Whether this operation can change quota usage (``Handles``)."""
        return operation == CREATE

    def matching_resources(self, names: Iterable[str]) -> list[str]:
        """The quota resource names this evaluator charges, among ``names`` (``MatchingResources``)."""
        return []

    def matches_scope(self, scope: Mapping[str, Any], obj: dict) -> bool:
        """``MatchesScopeFunc``; objects other than pods match no scope."""
        return False

    def constraints(self, required: Iterable[str], obj: dict) -> str | None:
        """An error message when ``obj`` lacks something the quota requires (``Constraints``)."""
        return None

    def usage(self, obj: dict, now_seconds: float | None = None) -> ResourceList:
        """What ``obj`` charges (``Usage``)."""
        return {}

    def matches(self, quota: Mapping[str, Any], obj: dict) -> bool:
        """``generic.Matches``: the quota tracks one of our resources and every scope selector matches."""
        hard = ((quota.get("status") or {}).get("hard")) or {}
        if not self.matching_resources(hard):
            return False
        return all(self.matches_scope(s, obj) for s in scope_selectors(quota))


class PodEvaluator(Evaluator):
    """Pods (``podEvaluator``)."""

    resource = "pods"
    _NAMES = ("count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
              "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods")
    #: Resources every container must request or limit when a quota tracks them (``validationSet``).
    VALIDATION_SET = ("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory")

    def handles(self, operation: str, obj: dict | None, old: dict | None) -> bool:
        if operation == UPDATE and obj is not None and old is not None:
            return is_terminating(obj) != is_terminating(old)
        return operation == CREATE

    def matching_resources(self, names: Iterable[str]) -> list[str]:
        out = []
        for n in names:
            if n in self._NAMES or n.startswith((_HUGEPAGES, _REQUESTS_PREFIX + _HUGEPAGES)):
                out.append(n)
            elif n.startswith(_REQUESTS_PREFIX) and not is_native_resource(n):  # isExtendedResourceNameForQuota
                out.append(n)
        return out

    def matches_scope(self, scope: Mapping[str, Any], obj: dict) -> bool:
        name = scope.get("scopeName")
        if name == "Terminating":
            return is_terminating(obj)
        if name == "NotTerminating":
            return not is_terminating(obj)
        if name == "BestEffort":
            return is_best_effort(obj)
        if name == "NotBestEffort":
            return not is_best_effort(obj)
        if name == "PriorityClass":
            pc = (obj.get("spec") or {}).get("priorityClassName") or ""
            op, values = scope.get("operator"), scope.get("values") or []
            if op == "Exists":
                return bool(pc)
            if op == "DoesNotExist":
                return not pc
            if op == "In":
                return bool(pc) and pc in values
            if op == "NotIn":
                return not pc or pc not in values
            return False
        if name == "CrossNamespacePodAffinity":
            return _uses_cross_namespace_affinity(obj)
        return False

    def constraints(self, required: Iterable[str], obj: dict) -> str | None:
        spec = obj.get("spec") or {}
        if ((spec.get("resources") or {}).get("requests")) or ((spec.get("resources") or {}).get("limits")):
            return None  # pod-level resources set: containers need not (PodLevelResources)
        need = set(required) & set(self.VALIDATION_SET)
        missing: dict[str, set[str]] = {}
        for c in list(spec.get("containers") or ()) + list(spec.get("initContainers") or ()):
            have = set(_compute_usage(_resources(c, "requests"), _resources(c, "limits")))
            for r in need - have:
                missing.setdefault(r, set()).add(c.get("name", ""))
        if not missing:
            return None
        parts = [f"{r} for: {','.join(sorted(missing[r]))}" for r in sorted(missing)]
        return "must specify " + "; ".join(parts)

    def usage(self, obj: dict, now_seconds: float | None = None) -> ResourceList:
        return pod_usage(obj, now_seconds)


def _uses_cross_namespace_affinity(pod: Mapping[str, Any]) -> bool:
    aff = (pod.get("spec") or {}).get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        a = aff.get(kind) or {}
        terms = list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or ())
        preferred = a.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        terms += [t.get("podAffinityTerm") or {} for t in preferred]
        if any(t.get("namespaces") or t.get("namespaceSelector") is not None for t in terms):
            return True
    return False


class ServiceEvaluator(Evaluator):
    """Services (``serviceEvaluator``): a type change can change usage, so updates are charged too."""

    resource = "services"
    _NAMES = ("count/services", "services", "services.nodeports", "services.loadbalancers")

    def handles(self, operation: str, obj: dict | None, old: dict | None) -> bool:
        return operation in (CREATE, UPDATE)

    def matching_resources(self, names: Iterable[str]) -> list[str]:
        return [n for n in names if n in self._NAMES]

    def usage(self, obj: dict, now_seconds: float | None = None) -> ResourceList:
        spec = obj.get("spec") or {}
        ports = spec.get("ports") or []
        out = {"count/services": Quantity.of_int(1), "services": Quantity.of_int(1),
               "services.loadbalancers": Quantity.zero(), "services.nodeports": Quantity.zero()}
        t = spec.get("type") or "ClusterIP"
        if t == "NodePort":
            out["services.nodeports"] = Quantity.of_int(len(ports))
        elif t == "LoadBalancer":
            if spec.get("allocateLoadBalancerNodePorts") is False:
                out["services.nodeports"] = Quantity.of_int(sum(1 for p in ports if p.get("nodePort")))
            else:
                out["services.nodeports"] = Quantity.of_int(len(ports))
            out["services.loadbalancers"] = Quantity.of_int(1)
        return out


class PersistentVolumeClaimEvaluator(Evaluator):
    """PersistentVolumeClaims (``pvcEvaluator``): count and requested storage, also per StorageClass."""

    resource = "persistentvolumeclaims"
    _SC_SUFFIX = ".storageclass.storage.k8s.io/"

    def handles(self, operation: str, obj: dict | None, old: dict | None) -> bool:
        if operation == UPDATE and obj is not None and old is not None:
            return self._storage(obj) != self._storage(old)  # a resize
        return operation == CREATE

    @staticmethod
    def _storage(obj: dict) -> Any:
        return (((obj.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")

    def matching_resources(self, names: Iterable[str]) -> list[str]:
        base = ("persistentvolumeclaims", "count/persistentvolumeclaims", "requests.storage")
        return [n for n in names if n in base or (self._SC_SUFFIX in n and n.split("/", 1)[1] in
                                                   ("requests.storage", "persistentvolumeclaims"))]

    def usage(self, obj: dict, now_seconds: float | None = None) -> ResourceList:
        out = {"count/persistentvolumeclaims": Quantity.of_int(1), "persistentvolumeclaims": Quantity.of_int(1)}
        sc = (obj.get("spec") or {}).get("storageClassName")
        if sc:
            out[f"{sc}{self._SC_SUFFIX}persistentvolumeclaims"] = Quantity.of_int(1)
        st = self._storage(obj)
        if st is not None:
            q = Quantity.parse(st, "storage")
            out["requests.storage"] = q
            if sc:
                out[f"{sc}{self._SC_SUFFIX}requests.storage"] = q
        return out


class ObjectCountEvaluator(Evaluator):
    """``generic.NewObjectCountEvaluator``: ``count/<resource>.<group>`` (and a legacy alias) on create."""

    def __init__(self, group: str, resource: str, alias: str = ""):
        self.group, self.resource, self.alias = group, resource, alias
        self.count_name = object_count_name(group, resource)

    def matching_resources(self, names: Iterable[str]) -> list[str]:
        return [n for n in names if n == self.count_name or (self.alias and n == self.alias)]

    def usage(self, obj: dict, now_seconds: float | None = None) -> ResourceList:
        out = {self.count_name: Quantity.of_int(1)}
        if self.alias:
            out[self.alias] = Quantity.of_int(1)
        return out


def evaluator_for(ri: ResourceInfo) -> Evaluator | None:
    """The evaluator quota uses for ``ri`` (``None`` for ignored resources).

    Examples
    --------
    >>> from kubenotes.apiserver.resources import resource_for
    >>> type(evaluator_for(resource_for("pods"))).__name__, evaluator_for(resource_for("deploy")).count_name
    ('PodEvaluator', 'count/deployments.apps')
    """
    if (ri.group, ri.resource) in IGNORED_RESOURCES:
        return None
    if ri.group == "":
        if ri.resource == "pods":
            return PodEvaluator()
        if ri.resource == "services":
            return ServiceEvaluator()
        if ri.resource == "persistentvolumeclaims":
            return PersistentVolumeClaimEvaluator()
        return ObjectCountEvaluator("", ri.resource, _LEGACY_ALIASES.get(ri.resource, ""))
    return ObjectCountEvaluator(ri.group, ri.resource)


def scope_selectors(quota: Mapping[str, Any]) -> list[dict]:
    """``getScopeSelectorsFromQuota``: ``spec.scopes`` as ``Exists`` selectors, then ``spec.scopeSelector``."""
    spec = quota.get("spec") or {}
    out = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or ()]
    out += list(((spec.get("scopeSelector") or {}).get("matchExpressions")) or ())
    return out


def usage(ri: ResourceInfo, obj: dict, now_seconds: float | None = None) -> ResourceList:
    """What one object of resource ``ri`` charges (empty for ignored resources).

    Examples
    --------
    >>> from kubenotes.apiserver.resources import resource_for
    >>> pretty_print(usage(resource_for("configmaps"), {"metadata": {"name": "x"}}))
    'configmaps=1,count/configmaps=1'
    """
    ev = evaluator_for(ri)
    return ev.usage(obj, now_seconds) if ev is not None else {}
