"""The scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation (``resourceAllocationScorer``).

Mirrors ``pkg/scheduler/framework/plugins/noderesources/resource_allocation.go``:
for each configured resource it works out the node's allocatable amount and
what would be requested on the node if the pod landed there, then hands the
two lists to a strategy function (least/most allocated, requested-to-capacity
ratio, balanced allocation).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/resource_allocation.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/types_pluginargs.go (ResourceSpec)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from kubenotes.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY
from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import Status
from kubenotes.scheduler.plugins.helper import is_scalar_resource_name

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "ResourceSpec",
    "DEFAULT_RESOURCES",
    "ResourceAllocationScorer",
    "resource_specs_from_config",
]


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    """A resource to score and its weight (``config.ResourceSpec``).

    Attributes
    ----------
    name : str
        Resource name (``cpu``, ``memory``, ``nvidia.com/gpu``...).
    weight : int
        Relative weight, 1-100 for NodeResourcesFit, exactly 1 for
        NodeResourcesBalancedAllocation.
    """

    name: str
    weight: int = 1


#: v1 default resources: cpu and memory, weight 1 (``defaultResourceSpec`` in ``v1/defaults.go``).
DEFAULT_RESOURCES: tuple[ResourceSpec, ...] = (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))


def resource_specs_from_config(raw: Any, path: str) -> list[ResourceSpec]:
    """Parse a YAML ``resources`` list (``[{name: cpu, weight: 1}]``) without defaulting.

    Parameters
    ----------
    raw : list of dict or None
        The camelCase list from a plugin's args.
    path : str
        Field path used in error messages (``scoringStrategy.resources``).

    Returns
    -------
    list[ResourceSpec]
        Missing weights are 0 (defaulting turns them into 1).

    Raises
    ------
    ConfigError
        When the list or an entry has the wrong shape.

    Examples
    --------
    >>> resource_specs_from_config([{"name": "cpu", "weight": 2}, {"name": "memory"}], "resources")
    [ResourceSpec(name='cpu', weight=2), ResourceSpec(name='memory', weight=0)]
    """
    if raw is None:
        return []
    if not isinstance(raw, (list, tuple)):
        raise ConfigError(f"{path}: expected a list, got {type(raw).__name__}")
    out = []
    for i, r in enumerate(raw):
        if isinstance(r, ResourceSpec):
            out.append(r)
            continue
        if not isinstance(r, Mapping):
            raise ConfigError(f"{path}[{i}]: expected an object with name and weight")
        unknown = set(r) - {"name", "weight"}
        if unknown:
            raise ConfigError(f'{path}[{i}]: unknown field "{sorted(unknown)[0]}"')
        weight = r.get("weight", 0)
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise ConfigError(f"{path}[{i}].weight: expected an integer, got {weight!r}")
        out.append(ResourceSpec(str(r.get("name", "")), weight))
    return out


# How calculate_resource_allocatable_request reads one resource, decided once per scorer.
_CPU, _MEMORY, _EPHEMERAL, _SCALAR, _IGNORED = range(5)


def _kind(name: str) -> int:
    if name == CPU:
        return _CPU
    if name == MEMORY:
        return _MEMORY
    if name == EPHEMERAL_STORAGE:
        return _EPHEMERAL
    if is_scalar_resource_name(name):
        return _SCALAR
    # Not a scalar: upstream looks it up in ScalarResources, where it never is.
    return _IGNORED


class ResourceAllocationScorer:
    """Score a node from per-resource (requested, allocatable) pairs (``resourceAllocationScorer``).

    Parameters
    ----------
    name : str
        Name shown in traces (the strategy, e.g. ``"LeastAllocated"``).
    scorer : callable(list[int], list[int]) -> int
        Strategy: ``scorer(requested, allocatable)`` over the configured
        resources, same order; an entry whose allocatable is 0 is skipped.
    resources : sequence of ResourceSpec
        Resources to score, in order.
    use_requested : bool
        ``False`` (NodeResourcesFit) counts CPU/memory with the scheduler's
        non-zero defaults (100m, 200Mi per container that requests nothing);
        ``True`` (BalancedAllocation) uses the actual requests.

    See Also
    --------
    kubenotes.scheduler.plugins.noderesources.least_allocated.least_resource_scorer
    kubenotes.scheduler.plugins.noderesources.most_allocated.most_resource_scorer
    kubenotes.scheduler.plugins.noderesources.requested_to_capacity_ratio.requested_to_capacity_ratio_scorer
    kubenotes.scheduler.plugins.noderesources.balanced_allocation.balanced_resource_scorer

    Notes
    -----
    DRA-backed extended resources (feature gate ``DRAExtendedResource``,
    alpha and off in v1.34) are not modelled. ``InPlacePodVerticalScaling``
    status resources do not matter for a pod that is not yet scheduled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/resource_allocation.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> s = ResourceAllocationScorer("sum", lambda req, alloc: sum(req), DEFAULT_RESOURCES, use_requested=False)
    >>> pod = PodInfo(make_pod("p", requests={"cpu": "500m"}))
    >>> s.calculate_pod_resource_request_list(pod)
    [500, 209715200]
    >>> s.calculate_resource_allocatable_request(NodeInfo(make_node("n1")), "cpu", 500)
    (4000, 500)
    """

    __slots__ = ("name", "scorer", "resources", "use_requested", "_kinds")

    def __init__(
        self,
        name: str,
        scorer: Callable[[list[int], list[int]], int],
        resources: Sequence[ResourceSpec],
        *,
        use_requested: bool = False,
    ):
        self.name = name
        self.scorer = scorer
        self.resources = tuple(resources)
        self.use_requested = use_requested
        self._kinds = tuple(_kind(r.name) for r in self.resources)

    def calculate_pod_resource_request(self, pod: "PodInfo", resource: str) -> int:
        """The pod's request for one resource (``calculatePodResourceRequest``).

        Parameters
        ----------
        pod : PodInfo
        resource : str

        Returns
        -------
        int
            Millicores for ``cpu``, base units otherwise; includes pod
            overhead and pod-level resources. CPU and memory use the non-zero
            defaults unless ``use_requested``.
        """
        if resource == CPU:
            return pod.requests.milli_cpu if self.use_requested else pod.non_zero_milli_cpu
        if resource == MEMORY:
            return pod.requests.memory_bytes if self.use_requested else pod.non_zero_memory_bytes
        return pod.requests.get(resource)

    def calculate_pod_resource_request_list(self, pod: "PodInfo") -> list[int]:
        """:meth:`calculate_pod_resource_request` for every configured resource, in order."""
        return [self.calculate_pod_resource_request(pod, r.name) for r in self.resources]

    @staticmethod
    def is_best_effort_pod(pod_requests: Sequence[int]) -> bool:
        """True when the pod requests none of the configured resources (``isBestEffortPod``)."""
        return not any(pod_requests)

    def calculate_resource_allocatable_request(self, node_info: "NodeInfo", resource: str, pod_request: int,
                                              kind: int | None = None) -> tuple[int, int]:
        """``(allocatable, requested_on_node + pod_request)`` for one resource (``calculateResourceAllocatableRequest``).

        Parameters
        ----------
        node_info : NodeInfo
        resource : str
        pod_request : int
            The pod's own request for ``resource`` (same units).
        kind : int, optional
            Precomputed classification of ``resource`` (internal fast path).

        Returns
        -------
        tuple[int, int]
            ``(0, 0)`` for a scalar resource the pod does not request, for a
            resource the node does not have, and for names the scheduler does
            not track (``pods``, ``storage``).
        """
        if kind is None:
            kind = _kind(resource)
        if kind == _CPU:
            req = node_info.requested if self.use_requested else node_info.non_zero_requested
            return node_info.allocatable.milli_cpu, req.milli_cpu + pod_request
        if kind == _MEMORY:
            req = node_info.requested if self.use_requested else node_info.non_zero_requested
            return node_info.allocatable.memory_bytes, req.memory_bytes + pod_request
        if kind == _EPHEMERAL:
            return (node_info.allocatable.ephemeral_storage_bytes,
                    node_info.requested.ephemeral_storage_bytes + pod_request)
        if kind == _SCALAR and pod_request != 0:
            alloc = node_info.allocatable.scalar_resources
            if resource in alloc:
                return alloc[resource], node_info.requested.scalar_resources.get(resource, 0) + pod_request
        return 0, 0

    def score(self, pod: "PodInfo", node_info: "NodeInfo", pod_requests: Sequence[int]) -> tuple[int, Status]:
        """Score ``node_info`` for ``pod`` with the strategy (``resourceAllocationScorer.score``).

        Parameters
        ----------
        pod : PodInfo
        node_info : NodeInfo
        pod_requests : sequence of int
            :meth:`calculate_pod_resource_request_list` of the pod.

        Returns
        -------
        tuple[int, Status]
            The score and ``Success``; ``(0, Error "resources not found")``
            when no resources are configured.
        """
        if not self.resources:
            return 0, Status.error("resources not found")
        return self._score_of(node_info, pod_requests), Status()

    def _score_of(self, node_info: "NodeInfo", pod_requests: Sequence[int]) -> int:
        # score() of a scorer with resources, without its Status.
        n = len(self.resources)
        requested = [0] * n
        allocatable = [0] * n
        kinds = self._kinds
        for i in range(n):
            alloc, req = self.calculate_resource_allocatable_request(
                node_info, self.resources[i].name, pod_requests[i], kinds[i])
            if alloc == 0:
                continue
            allocatable[i] = alloc
            requested[i] = req
        return self.scorer(requested, allocatable)
