"""Resource arithmetic: a pod's effective requests and limits, and the scheduler's ``Resource`` record.

Mirrors ``k8s.io/component-helpers/resource`` (``PodRequests``,
``PodLimits``, ``AggregateContainerRequests``/``Limits``: sidecar-aware
init-container maximum, pod-level resources, pod overhead), the one copy
the scheduler, quota, LimitRanger and the kubelet use, on the stored dicts
or on lightkube models, in integers or in exact quantities; and the
scheduler's ``framework.Resource`` (``pkg/scheduler/framework/types.go``).
Inside the model CPU is integer millicores and every other resource an
integer count of base units (bytes for memory and storage).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/types.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/util/pod_resources.go
KEP-753 (sidecar containers), KEP-2837 (pod-level resources), KEP-688 (pod overhead)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from kubenotes.api.podutil import CONTAINER_RESTART_POLICY_ALWAYS, is_restartable_init_container
from kubenotes.api.quantity import Quantity, format_quantity, milli_value, string_quantity_values, value
from kubenotes.api.validation import is_qualified_name
from kubenotes.errors import FieldError

__all__ = [
    "CPU",
    "MEMORY",
    "EPHEMERAL_STORAGE",
    "PODS",
    "DEFAULT_MILLI_CPU_REQUEST",
    "DEFAULT_MEMORY_REQUEST_BYTES",
    "Resource",
    "resource_list",
    "CONTAINERS",
    "INIT_CONTAINERS",
    "aggregate_container_requests",
    "aggregate_container_limits",
    "pod_requests",
    "pod_limits",
    "pod_non_zero_requests",
    "is_scalar_resource",
    "RESOURCE_DEFAULT_NAMESPACE_PREFIX",
    "DEFAULT_RESOURCE_REQUESTS_PREFIX",
    "HUGEPAGES_PREFIX",
    "ATTACHABLE_VOLUMES_PREFIX",
    "is_native_resource",
    "is_extended_resource_name",
    "is_hugepage_resource_name",
    "is_attachable_volume_resource_name",
    "is_scalar_resource_name",
    "validate_resource_requirements",
    "resource_requirements_errors",
    "pod_resource_requirements_errors",
    "request_breakdown",
]

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

#: Scheduler default for a container that requests no CPU (``pkg/scheduler/util/pod_resources.go``).
DEFAULT_MILLI_CPU_REQUEST = 100
#: Scheduler default for a container that requests no memory: 200 MiB.
DEFAULT_MEMORY_REQUEST_BYTES = 200 * 1024 * 1024

_POD_LEVEL = (CPU, MEMORY)

#: ``resourcehelper.Containers`` and ``InitContainers``: what a ``container_fn`` is told it sees.
CONTAINERS = "Containers"
INIT_CONTAINERS = "InitContainers"
_HUGEPAGES = "hugepages-"



# Resource names (``pkg/apis/core/v1/helper`` v1helper, ``schedutil.IsScalarResourceName``)

#: Resources in this namespace are native (``v1.ResourceDefaultNamespacePrefix``).
RESOURCE_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
#: Quota prefix; extended resource names must stay qualified names behind it.
DEFAULT_RESOURCE_REQUESTS_PREFIX = "requests."
#: ``v1.ResourceHugePagesPrefix``.
HUGEPAGES_PREFIX = "hugepages-"
#: ``v1.ResourceAttachableVolumesPrefix``.
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"


def is_native_resource(name: str) -> bool:
    """True for names without a domain or in ``kubernetes.io/`` (``v1helper.IsNativeResource``).

    Examples
    --------
    >>> is_native_resource("cpu"), is_native_resource("kubernetes.io/x"), is_native_resource("example.com/x")
    (True, True, False)
    """
    return "/" not in name or RESOURCE_DEFAULT_NAMESPACE_PREFIX in name


def is_extended_resource_name(name: str) -> bool:
    """True for a resource outside ``kubernetes.io/`` with a valid qualified name (``IsExtendedResourceName``).

    Examples
    --------
    >>> is_extended_resource_name("nvidia.com/gpu"), is_extended_resource_name("hugepages-2Mi")
    (True, False)
    """
    if is_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return not is_qualified_name(DEFAULT_RESOURCE_REQUESTS_PREFIX + name)


def is_hugepage_resource_name(name: str) -> bool:
    """True for ``hugepages-<size>`` (``IsHugePageResourceName``)."""
    return name.startswith(HUGEPAGES_PREFIX)


def is_attachable_volume_resource_name(name: str) -> bool:
    """True for ``attachable-volumes-*`` (``IsAttachableVolumeResourceName``)."""
    return name.startswith(ATTACHABLE_VOLUMES_PREFIX)


def is_scalar_resource_name(name: str) -> bool:
    """True for resources the scheduler keeps in ``Resource.ScalarResources`` (``schedutil.IsScalarResourceName``).

    Extended resources, hugepages, ``kubernetes.io/``-prefixed native
    resources and attachable volumes; ``pods`` or ``storage`` are not scalar.

    Examples
    --------
    >>> [is_scalar_resource_name(n) for n in ("example.com/aaa", "hugepages-2Mi", "kubernetes.io/x", "pods", "storage")]
    [True, True, True, False, False]
    """
    return (is_extended_resource_name(name) or is_hugepage_resource_name(name)
            or ("/" in name and RESOURCE_DEFAULT_NAMESPACE_PREFIX in name)
            or is_attachable_volume_resource_name(name))


def resource_list(rl: Mapping[str, Any] | None, field_path: str = "", *, quantities: bool = False) -> dict[str, Any]:
    """Convert a manifest ``ResourceList`` into integers (or exact quantities).

    Parameters
    ----------
    rl : mapping of str to quantity, or None
        E.g. ``{"cpu": "500m", "memory": "1Gi"}``.
    field_path : str
        Path of ``rl`` in its object, used in errors.
    quantities : bool
        Return :class:`~kubenotes.api.quantity.Quantity` values (exact, keeping
        the format they were written in, as quota and LimitRanger quote them).

    Returns
    -------
    dict[str, int] or dict[str, Quantity]
        ``cpu`` in millicores, everything else in base units.

    Raises
    ------
    InvalidQuantity
        When a value is not a quantity; the field names the resource.

    Examples
    --------
    >>> resource_list({"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": 1})
    {'cpu': 500, 'memory': 1073741824, 'nvidia.com/gpu': 1}
    >>> resource_list({"cpu": "500m", "memory": "1024Mi"}, quantities=True)
    {'cpu': Quantity('500m'), 'memory': Quantity('1Gi')}
    """
    out: dict[str, Any] = {}
    if not rl:
        return out
    if quantities:
        for name, q in rl.items():
            out[name] = Quantity.parse(q, f"{field_path}.{name}" if field_path else name)
        return out
    for name, q in rl.items():
        if type(q) is str:  # the usual case: the integers of a (cached) string, no path needed
            got = string_quantity_values(q)
            if got is not None:
                out[name] = got[1] if name == CPU else got[0]
                continue
        path = f"{field_path}.{name}" if field_path else name
        out[name] = milli_value(q, path) if name == CPU else value(q, path)
    return out


def _overcommit_allowed(name: str) -> bool:
    """Native, non-hugepages resources may request less than their limit (``IsOvercommitAllowed``)."""
    native = "/" not in name or "kubernetes.io/" in name
    return native and not name.startswith(_HUGEPAGES)


def resource_requirements_errors(requests: Mapping[str, Any] | None, limits: Mapping[str, Any] | None,
                                 field_path: str) -> list[FieldError]:
    """Every request above its limit, as ``ValidateResourceRequirements`` reports them (in manifest order).

    See :func:`validate_resource_requirements` for the messages; this returns
    all of them instead of raising the first.

    Examples
    --------
    >>> [str(e) for e in resource_requirements_errors({"cpu": "2", "memory": "1Gi"}, {"cpu": "1", "memory": "512Mi"}, "r")]
    ['r.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1', 'r.requests[memory]: Invalid value: "1Gi": must be less than or equal to memory limit of 512Mi']
    """
    errs: list[FieldError] = []
    if not requests or not limits:
        return errs
    req = resource_list(requests, f"{field_path}.requests")
    lim = resource_list(limits, f"{field_path}.limits")
    for name, amount in req.items():
        if name not in lim:
            continue
        limit = lim[name]
        if not _overcommit_allowed(name) and amount != limit:
            rule = "must be equal to"
        elif amount > limit:
            rule = "must be less than or equal to"
        else:
            continue
        errs.append(FieldError(f"{field_path}.requests[{name}]",
                               f'Invalid value: "{format_quantity(amount, name)}": {rule} {name} limit of {format_quantity(limit, name)}'))
    return errs


def pod_resource_requirements_errors(pod: Any) -> list[FieldError]:
    """Every request above its limit in a pod's init containers and containers, in that order.

    :func:`resource_requirements_errors` for each container's ``resources``
    with its field path (``spec.initContainers[0].resources``,
    ``spec.containers[1].resources``...), as the API server's pod validation
    walks them (``validateInitContainers``, then ``validateContainers``).

    Parameters
    ----------
    pod : dict or lightkube.resources.core_v1.Pod

    Returns
    -------
    list[FieldError]
        Empty when every request fits its limit.

    Raises
    ------
    InvalidQuantity
        When a request or limit is not a quantity.

    See Also
    --------
    resource_requirements_errors : the rule for one container.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/validation/validation.go (validateContainerCommon, ValidateResourceRequirements)

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]}}
    >>> [str(e) for e in pod_resource_requirements_errors(pod)]
    ['spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1']
    """
    errs: list[FieldError] = []
    spec = _field(pod, "spec")
    for kind in ("initContainers", "containers"):
        for i, c in enumerate(_field(spec, kind) or ()):
            res = _field(c, "resources")
            if res is None:
                continue
            errs += resource_requirements_errors(_field(res, "requests"), _field(res, "limits"),
                                                 f"spec.{kind}[{i}].resources")
    return errs


def validate_resource_requirements(requests: Mapping[str, Any] | None, limits: Mapping[str, Any] | None,
                                   field_path: str) -> None:
    """Reject a request above its limit, as the API server's ``ValidateResourceRequirements`` does.

    Parameters
    ----------
    requests, limits : mapping of str to quantity, or None
        A container's (or the pod-level) ``resources.requests`` and ``resources.limits``.
    field_path : str
        Path of the ``resources`` field, e.g. ``spec.containers[0].resources``.

    Raises
    ------
    FieldError
        ``<path>.requests[<name>]: Invalid value: "<request>": must be less than or equal to <name> limit of <limit>``;
        for resources that cannot be overcommitted (extended resources, hugepages):
        ``... must be equal to <name> limit of <limit>``.
    InvalidQuantity
        When a quantity does not parse.

    Notes
    -----
    Only the request/limit comparison of upstream's validation is modelled;
    upstream reports every violation, this raises the first in manifest order.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/validation/validation.go (ValidateResourceRequirements)

    Examples
    --------
    >>> validate_resource_requirements({"cpu": "1200m"}, {"cpu": "1"}, "spec.containers[0].resources")
    Traceback (most recent call last):
    ...
    kubenotes.errors.FieldError: spec.containers[0].resources.requests[cpu]: Invalid value: "1200m": must be less than or equal to cpu limit of 1
    """
    errs = resource_requirements_errors(requests, limits, field_path)
    if errs:
        raise errs[0]


def _sum_into(into: dict[str, Any], rl: Mapping[str, Any]) -> None:
    """``addResourceList``: add ``rl`` into ``into`` (a sum keeps the first term's format)."""
    for k, v in rl.items():
        into[k] = into[k] + v if k in into else v


def _max_into(into: dict[str, Any], rl: Mapping[str, Any], quantities: bool) -> None:
    """``maxResourceList``: the larger of each pair; a tie keeps what ``into`` holds."""
    for k, v in rl.items():
        if k not in into:
            into[k] = v
        elif (v.cmp(into[k]) > 0) if quantities else (v > into[k]):
            into[k] = v


def _field(obj: Any, name: str) -> Any:
    """``obj[name]`` of a stored (dict) object, ``obj.name`` of a lightkube model; None when absent."""
    if isinstance(obj, dict):
        return obj.get(name)
    return None if obj is None else getattr(obj, name, None)


def _aggregate(spec: Any, which: str, non_missing: Mapping[str, Any] | None, quantities: bool,
               container_fn: Callable[[dict[str, Any], str], None] | None = None) -> dict[str, Any]:
    """``AggregateContainerRequests``/``AggregateContainerLimits`` over ``resources.<which>`` of every container."""
    total: dict[str, Any] = {}
    if spec is None:
        return total
    stored = isinstance(spec, dict)
    if stored:
        containers, inits = spec.get("containers") or (), spec.get("initContainers") or ()
    else:
        containers, inits = spec.containers or (), spec.initContainers or ()
    for i, c in enumerate(containers):
        res = c.get("resources") if stored else c.resources
        raw = None if res is None else (res.get(which) if stored else getattr(res, which))
        rl = resource_list(raw, quantities=True) if quantities else resource_list(
            raw, f"spec.containers[{i}].resources.{which}")
        if non_missing:
            for k, v in non_missing.items():
                if k not in rl:
                    rl[k] = v
        _sum_into(total, rl)
        if container_fn is not None:
            container_fn(rl, CONTAINERS)
    if not inits:
        return total
    sidecars: dict[str, Any] = {}
    init_max: dict[str, Any] = {}
    for i, c in enumerate(inits):
        res = c.get("resources") if stored else c.resources
        raw = None if res is None else (res.get(which) if stored else getattr(res, which))
        rl = resource_list(raw, quantities=True) if quantities else resource_list(
            raw, f"spec.initContainers[{i}].resources.{which}")
        if non_missing:
            for k, v in non_missing.items():
                if k not in rl:
                    rl[k] = v
        policy = c.get("restartPolicy") if stored else getattr(c, "restartPolicy", None)
        if policy == CONTAINER_RESTART_POLICY_ALWAYS:
            _sum_into(total, rl)
            _sum_into(sidecars, rl)
            use = dict(sidecars)
        else:
            use = rl
            _sum_into(use, sidecars)
        if container_fn is not None:
            container_fn(use, INIT_CONTAINERS)
        _max_into(init_max, use, quantities)
    _max_into(total, init_max, quantities)
    return total


def _pod_level(spec: Any, which: str, quantities: bool) -> dict[str, Any]:
    """The supported entries (cpu, memory, hugepages) of ``spec.resources.<which>`` (``IsSupportedPodLevelResource``)."""
    res = _field(spec, "resources")
    raw = None if res is None else _field(res, which)
    if not raw:
        return {}
    rl = resource_list(raw, quantities=True) if quantities else resource_list(raw, f"spec.resources.{which}")
    return {k: v for k, v in rl.items() if k in _POD_LEVEL or k.startswith(_HUGEPAGES)}


def _overhead(spec: Any, quantities: bool) -> dict[str, Any]:
    raw = _field(spec, "overhead")
    if not raw:
        return {}
    return resource_list(raw, quantities=True) if quantities else resource_list(raw, "spec.overhead")


def aggregate_container_requests(pod: Any, *, non_missing: Mapping[str, int] | None = None,
                                 quantities: bool = False,
                                 container_fn: Callable[[dict[str, Any], str], None] | None = None) -> dict[str, Any]:
    """The containers' share of a pod's request, as ``resourcehelper.AggregateContainerRequests``.

    ``max(sum(containers) + sum(sidecars), max_i(init_i + sidecars before i))``:
    regular containers and sidecars (init containers with ``restartPolicy:
    Always``, KEP-753) run together; each other init container runs alone
    beside the sidecars started before it. No pod-level resources, no overhead.

    Parameters
    ----------
    pod : dict or lightkube.resources.core_v1.Pod
        The stored (JSON-shaped) pod, or a lightkube model of it.
    non_missing : mapping of str to int, optional
        Values used for a container that does not request that resource at all.
    quantities : bool
        Return :class:`~kubenotes.api.quantity.Quantity` values (exact, keeping
        the format they were written in, for messages) instead of integers
        (millicores for ``cpu``, base units otherwise).
    container_fn : callable, optional
        ``ContainerFn``: called with each regular container's requests and
        ``"Containers"``, then with each init step's requests (an init
        container plus the sidecars started before it, or the sidecars so
        far) and ``"InitContainers"``, as in :func:`aggregate_container_limits`.

    Returns
    -------
    dict[str, int] or dict[str, Quantity]
        Resource name to amount.

    Raises
    ------
    InvalidQuantity
        When a request is not a quantity.

    See Also
    --------
    pod_requests : adds pod-level resources and the pod overhead.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (AggregateContainerRequests)

    Examples
    --------
    >>> pod = {"spec": {"initContainers": [{"name": "big", "resources": {"requests": {"memory": "1Gi"}}}],
    ...                 "containers": [{"name": "app", "resources": {"requests": {"memory": "256Mi"}}}]}}
    >>> aggregate_container_requests(pod), {k: str(v) for k, v in aggregate_container_requests(pod, quantities=True).items()}
    ({'memory': 1073741824}, {'memory': '1Gi'})
    """
    return _aggregate(_field(pod, "spec"), "requests", non_missing, quantities, container_fn)


def aggregate_container_limits(pod: Any, *, quantities: bool = False,
                               container_fn: Callable[[dict[str, Any], str], None] | None = None) -> dict[str, Any]:
    """The containers' share of a pod's limits, as ``resourcehelper.AggregateContainerLimits``.

    The same rule as :func:`aggregate_container_requests`, over ``resources.limits``.

    Parameters
    ----------
    pod : dict or lightkube.resources.core_v1.Pod
    quantities : bool
        Return :class:`~kubenotes.api.quantity.Quantity` values instead of integers.
    container_fn : callable, optional
        ``ContainerFn``: called with each regular container's limits and
        ``"Containers"``, then with each init step's limits (an init container
        plus the sidecars started before it, or the sidecars so far) and
        ``"InitContainers"``; the kubelet uses it to see whether every step
        declares a cpu and memory limit.

    Returns
    -------
    dict[str, int] or dict[str, Quantity]

    Raises
    ------
    InvalidQuantity
        When a limit is not a quantity.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (AggregateContainerLimits)

    Examples
    --------
    >>> aggregate_container_limits({"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}},
    ...                                                     {"name": "b", "resources": {"limits": {"cpu": "500m"}}}]}})
    {'cpu': 1500}
    """
    return _aggregate(_field(pod, "spec"), "limits", None, quantities, container_fn)


def pod_requests(
    pod: Any,
    *,
    non_missing: Mapping[str, int] | None = None,
    exclude_overhead: bool = False,
    skip_pod_level_resources: bool = False,
    quantities: bool = False,
) -> dict[str, Any]:
    """A pod's effective resource request, as ``resourcehelper.PodRequests``.

    :func:`aggregate_container_requests`, then pod-level
    ``spec.resources.requests`` (cpu, memory, hugepages) replace the container
    aggregate, then ``spec.overhead`` is added. The scheduler, quota, LimitRanger
    and the kubelet all count a pod this way.

    Parameters
    ----------
    pod : dict or lightkube.resources.core_v1.Pod
        The stored (JSON-shaped) pod or a lightkube model of it (defaults already applied).
    non_missing : mapping of str to int, optional
        Values used for a container that does not request that resource at
        all (the scheduler passes 100m CPU and 200Mi memory for its non-zero view).
    exclude_overhead : bool
        Leave ``spec.overhead`` out.
    skip_pod_level_resources : bool
        Ignore ``spec.resources``.
    quantities : bool
        Return :class:`~kubenotes.api.quantity.Quantity` values (exact, keeping
        their format, as quota and the kubelet quote them) instead of integers.

    Returns
    -------
    dict[str, int] or dict[str, Quantity]
        Resource name to amount; integers are millicores for ``cpu`` and base
        units for everything else.

    Raises
    ------
    InvalidQuantity
        When a request is not a quantity.

    See Also
    --------
    pod_limits : the same for limits.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests)

    Examples
    --------
    >>> pod = {"metadata": {"name": "p"}, "spec": {
    ...     "initContainers": [
    ...         {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
    ...         {"name": "migrate", "resources": {"requests": {"cpu": "1"}}}],
    ...     "containers": [{"name": "app", "resources": {"requests": {"cpu": "500m"}}}],
    ...     "overhead": {"cpu": "50m"}}}
    >>> pod_requests(pod), {k: str(v) for k, v in pod_requests(pod, quantities=True).items()}
    ({'cpu': 1150}, {'cpu': '1150m'})
    >>> from lightkube.resources.core_v1 import Pod
    >>> pod_requests(Pod.from_dict(pod))
    {'cpu': 1150}
    """
    spec = _field(pod, "spec")
    reqs = _aggregate(spec, "requests", non_missing, quantities)
    if not skip_pod_level_resources:
        reqs.update(_pod_level(spec, "requests", quantities))
    if not exclude_overhead:
        _sum_into(reqs, _overhead(spec, quantities))
    return reqs


def pod_limits(
    pod: Any,
    *,
    exclude_overhead: bool = False,
    skip_pod_level_resources: bool = False,
    quantities: bool = False,
    container_fn: Callable[[dict[str, Any], str], None] | None = None,
) -> dict[str, Any]:
    """A pod's effective limits, as ``resourcehelper.PodLimits``.

    :func:`aggregate_container_limits`, then pod-level ``spec.resources.limits``
    (cpu, memory, hugepages) replace the aggregate; ``spec.overhead`` is added
    only to limits that are set (an unset limit stays unlimited).

    Parameters
    ----------
    pod : dict or lightkube.resources.core_v1.Pod
    exclude_overhead : bool
        Leave ``spec.overhead`` out.
    skip_pod_level_resources : bool
        Ignore ``spec.resources``.
    quantities : bool
        Return :class:`~kubenotes.api.quantity.Quantity` values instead of integers.
    container_fn : callable, optional
        ``ContainerFn``, as in :func:`aggregate_container_limits`.

    Returns
    -------
    dict[str, int] or dict[str, Quantity]

    Raises
    ------
    InvalidQuantity
        When a limit is not a quantity.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (PodLimits)

    Examples
    --------
    >>> pod_limits({"spec": {"containers": [{"name": "a", "resources": {"limits": {"memory": "1Gi"}}}],
    ...                      "overhead": {"cpu": "100m", "memory": "64Mi"}}})
    {'memory': 1140850688}
    """
    spec = _field(pod, "spec")
    lims = _aggregate(spec, "limits", None, quantities, container_fn)
    if not skip_pod_level_resources:
        lims.update(_pod_level(spec, "limits", quantities))
    if not exclude_overhead:
        for k, v in _overhead(spec, quantities).items():
            if k in lims:
                lims[k] = lims[k] + v
    return lims


def pod_non_zero_requests(pod: Any) -> tuple[int, int]:
    """CPU and memory the scheduler counts for spreading, with defaults for missing requests.

    Returns
    -------
    tuple[int, int]
        ``(milli_cpu, memory_bytes)``; a container that requests no CPU counts
        100m and one that requests no memory counts 200Mi
        (``NonMissingContainerRequests``), explicit zeros stay zero.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/types.go (calculateResource)

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Pod
    >>> pod_non_zero_requests(Pod.from_dict({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}]}}))
    (100, 209715200)
    """
    reqs = pod_requests(pod, non_missing={CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST_BYTES})
    return reqs.get(CPU, 0), reqs.get(MEMORY, 0)


def request_breakdown(pod: Any, resource: str = CPU, *, non_zero: bool = False) -> dict[str, int]:
    """The parts of ``PodRequests`` for one resource: each phase of the pod, the overhead, the result.

    The parts are what :func:`aggregate_container_requests` hands its
    ``container_fn`` (each regular container, then each init step), so they
    add up exactly as :func:`pod_requests` counts.

    Parameters
    ----------
    pod : dict or lightkube.resources.core_v1.Pod
    resource : str
        ``cpu`` (millicores) or any other resource (base units; bytes for memory).
    non_zero : bool
        Use the scheduler's defaults (100m CPU, 200Mi memory) for containers
        that do not request the resource at all
        (``NonMissingContainerRequests``), as its scoring does.

    Returns
    -------
    dict[str, int]
        ``containers`` (sum of the regular containers), ``sidecars`` (sum of
        the restartable init containers), ``running`` (the two together: what
        runs once the Pod is up), ``init peak`` (the largest init-phase
        total: an init container plus the sidecars started before it),
        ``init peak sidecars`` (the sidecar part of that peak), ``overhead``
        (``spec.overhead``), ``effective`` (what :func:`pod_requests`
        returns, the number the scheduler uses) and, only when the Pod sets
        pod-level ``spec.resources.requests`` for ``resource``, ``pod-level``.

    Raises
    ------
    InvalidQuantity
        When a quantity does not parse.

    See Also
    --------
    pod_requests, aggregate_container_requests

    Notes
    -----
    Without pod-level resources ``effective == max(running, init peak) +
    overhead``; with them, ``pod-level + overhead``. Of init steps with the
    same total, the first is the peak.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests)

    Examples
    --------
    >>> pod = {"spec": {"initContainers": [
    ...     {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "200m"}}},
    ...     {"name": "migrate", "resources": {"requests": {"cpu": "1"}}}],
    ...     "containers": [{"name": "app", "resources": {"requests": {"cpu": "500m"}}}], "overhead": {"cpu": "250m"}}}
    >>> b = request_breakdown(pod)
    >>> b["running"], b["init peak"], b["init peak sidecars"], b["overhead"], b["effective"]
    (700, 1200, 200, 250, 1450)
    """
    spec = _field(pod, "spec")
    non_missing = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST_BYTES} if non_zero else None
    sidecar_steps = iter([is_restartable_init_container(c) for c in _field(spec, "initContainers") or ()])
    parts = {"containers": 0, "sidecars": 0, "init peak": 0, "init peak sidecars": 0}

    def step(requests: dict[str, Any], container_type: str) -> None:
        amount = requests.get(resource, 0)
        if container_type == CONTAINERS:
            parts["containers"] += amount
            return
        if next(sidecar_steps):  # a sidecar's step is every sidecar started so far
            parts["sidecars"] = amount
        if amount > parts["init peak"]:
            parts["init peak"], parts["init peak sidecars"] = amount, parts["sidecars"]

    aggregate_container_requests(pod, non_missing=non_missing, container_fn=step)
    out = {"containers": parts["containers"], "sidecars": parts["sidecars"],
           "running": parts["containers"] + parts["sidecars"], "init peak": parts["init peak"],
           "init peak sidecars": parts["init peak sidecars"], "overhead": _overhead(spec, False).get(resource, 0),
           "effective": pod_requests(pod, non_missing=non_missing).get(resource, 0)}
    res = _field(spec, "resources")
    pod_level = None if res is None else _field(res, "requests")
    if pod_level and resource in pod_level:
        out["pod-level"] = resource_list(pod_level, "spec.resources.requests")[resource]
    return out


@functools.lru_cache(maxsize=1024)
def is_scalar_resource(name: str) -> bool:
    """True for resources kept in ``Resource.scalar_resources`` (``schedutil.IsScalarResourceName``).

    Extended resources (``nvidia.com/gpu``), hugepages, ``kubernetes.io/``-prefixed
    native resources and attachable volumes; ``storage`` or ``pods`` are not.

    Examples
    --------
    >>> is_scalar_resource("nvidia.com/gpu"), is_scalar_resource("hugepages-2Mi"), is_scalar_resource("storage")
    (True, True, False)
    """
    return is_scalar_resource_name(name)


@dataclass(slots=True)
class Resource:
    """Amounts of compute resources, as the scheduler's ``framework.Resource``.

    Attributes
    ----------
    milli_cpu : int
        CPU in millicores.
    memory_bytes : int
        Memory in bytes.
    ephemeral_storage_bytes : int
        Local ephemeral storage in bytes.
    allowed_pod_number : int
        Pod count (only meaningful for allocatable).
    scalar_resources : dict[str, int]
        Extended resources (``nvidia.com/gpu``), hugepages, attachable volumes.

    Examples
    --------
    >>> r = Resource.from_resource_list({"cpu": 2000, "memory": 4096, "pods": 110, "nvidia.com/gpu": 4})
    >>> r.milli_cpu, r.allowed_pod_number, r.scalar_resources
    (2000, 110, {'nvidia.com/gpu': 4})
    """

    milli_cpu: int = 0
    memory_bytes: int = 0
    ephemeral_storage_bytes: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_resource_list(cls, rl: Mapping[str, int]) -> "Resource":
        """Build from an integer resource list (see :func:`resource_list`)."""
        r = cls()
        r.add(rl)
        return r

    def add(self, rl: Mapping[str, int]) -> None:
        """Add an integer resource list in place."""
        for name, amount in rl.items():
            if name == CPU:
                self.milli_cpu += amount
            elif name == MEMORY:
                self.memory_bytes += amount
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage_bytes += amount
            elif name == PODS:
                self.allowed_pod_number += amount
            elif is_scalar_resource(name):
                self.scalar_resources[name] = self.scalar_resources.get(name, 0) + amount

    def add_resource(self, other: "Resource", sign: int = 1) -> None:
        """Add (``sign=1``) or subtract (``sign=-1``) another ``Resource`` in place."""
        self.milli_cpu += sign * other.milli_cpu
        self.memory_bytes += sign * other.memory_bytes
        self.ephemeral_storage_bytes += sign * other.ephemeral_storage_bytes
        self.allowed_pod_number += sign * other.allowed_pod_number
        for k, v in other.scalar_resources.items():
            self.scalar_resources[k] = self.scalar_resources.get(k, 0) + sign * v

    def get(self, name: str) -> int:
        """Amount of one resource by its Kubernetes name (``cpu`` in millicores)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory_bytes
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage_bytes
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)

    def clone(self) -> "Resource":
        """Deep copy."""
        return Resource(self.milli_cpu, self.memory_bytes, self.ephemeral_storage_bytes,
                        self.allowed_pod_number, dict(self.scalar_resources))

    def names(self) -> Iterable[str]:
        """Resource names with a value set (cpu, memory, ephemeral-storage, pods, then scalars)."""
        yield from (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)
        yield from self.scalar_resources
