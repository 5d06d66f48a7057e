"""NodeResourcesFit: does the node have room for the pod's requests, and how full would it be?

Mirrors ``pkg/scheduler/framework/plugins/noderesources/fit.go``:

* **PreFilter** computes the pod's effective request once
  (``computePodResourceRequest``: containers summed, init containers as a
  running maximum, sidecars counted, pod-level resources and overhead added)
  and stores it in the CycleState under ``"PreFilterNodeResourcesFit"``.
* **Filter** (``fitsRequest``) compares it with ``allocatable - requested`` on
  the node and reports every shortage with upstream's reason strings:
  ``"Too many pods"`` and ``"Insufficient <resource>"``. The status is
  ``UnschedulableAndUnresolvable`` when a request exceeds the node's whole
  allocatable (preemption cannot help), ``Unschedulable`` otherwise.
* **PreScore**/**Score** rate the node with the configured scoring strategy
  (``LeastAllocated`` by default, ``MostAllocated``,
  ``RequestedToCapacityRatio``) through
  :class:`~kubenotes.scheduler.plugins.noderesources.resource_allocation.ResourceAllocationScorer`.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/fit.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesFitArgs)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidateNodeResourcesFitArgs)
https://kubernetes.io/docs/concepts/scheduling-eviction/resource-bin-packing/
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubenotes.api.podutil import is_restartable_init_container
from kubenotes.api.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Resource
from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import ADD, UPDATE_NODE_ALLOCATABLE, Code, PreFilterResult, Status
from kubenotes.scheduler.plugins.helper import (
    aggregate_errors,
    field_forbidden,
    field_invalid,
    field_not_supported,
    field_required,
    is_extended_resource_name,
    is_scalar_resource_name,
    validate_label_name,
)
from kubenotes.scheduler.plugins.names import NODE_RESOURCES_FIT
from kubenotes.scheduler.plugins.noderesources.least_allocated import LEAST_ALLOCATED, least_resource_scorer
from kubenotes.scheduler.plugins.noderesources.most_allocated import MOST_ALLOCATED, most_resource_scorer
from kubenotes.scheduler.plugins.noderesources.requested_to_capacity_ratio import (
    MAX_CUSTOM_PRIORITY_SCORE,
    REQUESTED_TO_CAPACITY_RATIO,
    UtilizationShapePoint,
    requested_to_capacity_ratio_scorer,
    shape_from_config,
)
from kubenotes.scheduler.plugins.noderesources.resource_allocation import (
    DEFAULT_RESOURCES,
    ResourceAllocationScorer,
    ResourceSpec,
    resource_specs_from_config,
)

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
    "NODE_EVENTS",
    "is_schedulable_after_node_change",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "ERR_REASON_TOO_MANY_PODS",
    "ERR_REASON_INSUFFICIENT_CPU",
    "ERR_REASON_INSUFFICIENT_MEMORY",
    "ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE",
    "ERR_REASON_RESTARTABLE_INIT_CONTAINER",
    "SUPPORTED_SCORING_STRATEGY_TYPES",
    "insufficient_reason",
    "ScoringStrategy",
    "NodeResourcesFitArgs",
    "validate_node_resources_fit_args",
    "InsufficientResource",
    "compute_pod_resource_request",
    "has_restartable_init_container",
    "fits_request",
    "fits",
    "Fit",
    "new",
]

NAME = NODE_RESOURCES_FIT
#: CycleState key of the pod's request computed at PreFilter.
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
#: CycleState key of the per-resource request list computed at PreScore.
PRE_SCORE_STATE_KEY = "PreScore" + NAME

#: The node already runs ``allocatable.pods`` pods.
ERR_REASON_TOO_MANY_PODS = "Too many pods"
ERR_REASON_INSUFFICIENT_CPU = "Insufficient cpu"
ERR_REASON_INSUFFICIENT_MEMORY = "Insufficient memory"
ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE = "Insufficient ephemeral-storage"
#: PreFilter rejection when the SidecarContainers feature is off.
ERR_REASON_RESTARTABLE_INIT_CONTAINER = ("Pod has a restartable init container and the SidecarContainers "
                                         "feature is disabled")

#: Valid ``scoringStrategy.type`` values, sorted as upstream lists them.
SUPPORTED_SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


def insufficient_reason(resource: str) -> str:
    """``"Insufficient <resource>"``, the Filter reason for any resource (``fmt.Sprintf("Insufficient %v")``).

    Examples
    --------
    >>> insufficient_reason("nvidia.com/gpu")
    'Insufficient nvidia.com/gpu'
    """
    return f"Insufficient {resource}"


# ---------------------------------------------------------------------------
# Args: v1 defaults and validation
# ---------------------------------------------------------------------------


@dataclass
class ScoringStrategy:
    """``config.ScoringStrategy``: how NodeResourcesFit scores nodes.

    Attributes
    ----------
    type : str
        ``"LeastAllocated"``, ``"MostAllocated"`` or ``"RequestedToCapacityRatio"``.
    resources : list[ResourceSpec]
        Resources and weights (1-100).
    requested_to_capacity_ratio : list[UtilizationShapePoint] or None
        ``requestedToCapacityRatio.shape``; required for, and only allowed
        with, ``RequestedToCapacityRatio``. ``None`` means the field is absent.
    """

    type: str = LEAST_ALLOCATED
    resources: list[ResourceSpec] = field(default_factory=lambda: list(DEFAULT_RESOURCES))
    requested_to_capacity_ratio: list[UtilizationShapePoint] | None = None


@dataclass
class NodeResourcesFitArgs:
    """``NodeResourcesFitArgs`` (internal config): what the plugin ignores and how it scores.

    Attributes
    ----------
    ignored_resources : list[str]
        Extended resources Filter does not check (``ignoredResources``).
    ignored_resource_groups : list[str]
        Extended-resource domains Filter does not check, e.g. ``example.com``
        ignores ``example.com/aaa`` (``ignoredResourceGroups``).
    scoring_strategy : ScoringStrategy or None

    Examples
    --------
    >>> a = NodeResourcesFitArgs.from_config({"scoringStrategy": {"type": "MostAllocated"}})
    >>> a.scoring_strategy.type, [(r.name, r.weight) for r in a.scoring_strategy.resources]
    ('MostAllocated', [('cpu', 1), ('memory', 1)])
    """

    ignored_resources: list[str] = field(default_factory=list)
    ignored_resource_groups: list[str] = field(default_factory=list)
    scoring_strategy: ScoringStrategy | None = field(default_factory=ScoringStrategy)

    @classmethod
    def from_config(cls, raw: Mapping[str, Any] | None) -> "NodeResourcesFitArgs":
        """Parse raw pluginConfig args (camelCase) and apply upstream's v1 defaults.

        Defaults (``SetDefaults_NodeResourcesFitArgs``): no ``scoringStrategy``
        means ``LeastAllocated`` over cpu and memory; an empty resource list
        means cpu and memory; a weight of 0 (or missing) becomes 1.

        Parameters
        ----------
        raw : mapping or None
            E.g. ``{"ignoredResources": [...], "scoringStrategy": {"type":
            "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}}``.
            ``apiVersion`` and ``kind`` are accepted and ignored.

        Returns
        -------
        NodeResourcesFitArgs

        Raises
        ------
        ConfigError
            For an unknown field or a value of the wrong type (upstream's strict decoding).
        """
        raw = dict(raw or {})
        raw.pop("apiVersion", None)
        raw.pop("kind", None)
        unknown = set(raw) - {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"}
        if unknown:
            raise ConfigError(f'unknown field "{sorted(unknown)[0]}"')
        args = cls(
            ignored_resources=_str_list(raw.get("ignoredResources"), "ignoredResources"),
            ignored_resource_groups=_str_list(raw.get("ignoredResourceGroups"), "ignoredResourceGroups"),
            scoring_strategy=None,
        )
        ss = raw.get("scoringStrategy")
        if ss is None:
            args.scoring_strategy = ScoringStrategy(LEAST_ALLOCATED, list(DEFAULT_RESOURCES))
            return args
        if not isinstance(ss, Mapping):
            raise ConfigError("scoringStrategy: expected an object")
        unknown = set(ss) - {"type", "resources", "requestedToCapacityRatio"}
        if unknown:
            raise ConfigError(f'unknown field "scoringStrategy.{sorted(unknown)[0]}"')
        resources = resource_specs_from_config(ss.get("resources"), "scoringStrategy.resources")
        if not resources:
            resources = list(DEFAULT_RESOURCES)
        resources = [r if r.weight != 0 else ResourceSpec(r.name, 1) for r in resources]
        shape = None
        rtcr = ss.get("requestedToCapacityRatio")
        if rtcr is not None:
            if not isinstance(rtcr, Mapping):
                raise ConfigError("scoringStrategy.requestedToCapacityRatio: expected an object")
            shape = shape_from_config(rtcr.get("shape"), "scoringStrategy.requestedToCapacityRatio.shape")
        args.scoring_strategy = ScoringStrategy(str(ss.get("type") or ""), resources, shape)
        return args


def _str_list(v: Any, path: str) -> list[str]:
    if v is None:
        return []
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
        raise ConfigError(f"{path}: expected a list of strings")
    return list(v)


def _validate_function_shape(shape: list[UtilizationShapePoint], path: str) -> list[str]:
    errs: list[str] = []
    if not shape:
        return [field_required(path, "at least one point must be specified")]
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(field_invalid(f"{path}[{i}].utilization", shape[i].utilization,
                                      "values must be sorted in increasing order"))
            break
    for i, p in enumerate(shape):
        if p.utilization < 0 or p.utilization > 100:
            errs.append(field_invalid(f"{path}[{i}].utilization", p.utilization, "not in valid range [0, 100]"))
        if p.score < 0 or p.score > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(field_invalid(f"{path}[{i}].score", p.score,
                                      f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


def _validate_resources(resources: list[ResourceSpec], path: str) -> list[str]:
    return [field_invalid(f"{path}[{i}].weight", r.weight, f"resource weight of {r.name} not in valid range (0, 100]")
            for i, r in enumerate(resources) if r.weight <= 0 or r.weight > 100]


def validate_node_resources_fit_args(args: NodeResourcesFitArgs) -> list[str]:
    """Upstream's ``ValidateNodeResourcesFitArgs`` messages for ``args`` (empty when valid).

    Parameters
    ----------
    args : NodeResourcesFitArgs

    Returns
    -------
    list[str]
        ``field.Error`` messages in upstream's order, e.g.
        ``scoringStrategy.resources[0].weight: Invalid value: 0: resource
        weight of cpu not in valid range (0, 100]``.

    Examples
    --------
    >>> validate_node_resources_fit_args(NodeResourcesFitArgs(ignored_resource_groups=["example.com/aaa"]))
    ['ignoredResourceGroups[0]: Invalid value: "example.com/aaa": resource group name can\\'t contain \\'/\\'']
    """
    errs: list[str] = []
    for i, res in enumerate(args.ignored_resources):
        errs += validate_label_name(res, f"ignoredResources[{i}]")
    for i, group in enumerate(args.ignored_resource_groups):
        p = f"ignoredResourceGroups[{i}]"
        if "/" in group:
            errs.append(field_invalid(p, group, "resource group name can't contain '/'"))
        errs += validate_label_name(group, p)
    ss = args.scoring_strategy
    if ss is None:
        errs.append(field_required("scoringStrategy", "ScoringStrategy field is required"))
        return errs
    if ss.type not in SUPPORTED_SCORING_STRATEGY_TYPES:
        errs.append(field_not_supported("scoringStrategy.type", ss.type, SUPPORTED_SCORING_STRATEGY_TYPES))
    errs += _validate_resources(ss.resources, "scoringStrategy.resources")
    if ss.type == REQUESTED_TO_CAPACITY_RATIO:
        if ss.requested_to_capacity_ratio is None:
            errs.append(field_required("scoringStrategy.requestedToCapacityRatio",
                                       "must be specified when type is RequestedToCapacityRatio"))
        else:
            errs += _validate_function_shape(ss.requested_to_capacity_ratio,
                                             "scoringStrategy.requestedToCapacityRatio.shape")
    elif ss.requested_to_capacity_ratio is not None:
        errs.append(field_forbidden("scoringStrategy.requestedToCapacityRatio",
                                    "must be nil when type is not RequestedToCapacityRatio"))
    return errs


def _make_scorer(ss: ScoringStrategy) -> ResourceAllocationScorer:
    if ss.type == LEAST_ALLOCATED:
        fn = least_resource_scorer(ss.resources)
    elif ss.type == MOST_ALLOCATED:
        fn = most_resource_scorer(ss.resources)
    elif ss.type == REQUESTED_TO_CAPACITY_RATIO:
        fn = requested_to_capacity_ratio_scorer(ss.resources, ss.requested_to_capacity_ratio or [])
    else:  # pragma: no cover - validation rejects it first
        raise ConfigError(f"scoring strategy {ss.type} is not supported")
    return ResourceAllocationScorer(ss.type, fn, ss.resources, use_requested=False)


# ---------------------------------------------------------------------------
# Filter
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class InsufficientResource:
    """A resource the node lacks for the pod (``noderesources.InsufficientResource``).

    Attributes
    ----------
    resource_name : str
    reason : str
        ``"Too many pods"`` or ``"Insufficient <resource>"``.
    requested : int
        The pod's request (1 for pods).
    used : int
        Already requested on the node.
    capacity : int
        Node allocatable.
    unresolvable : bool
        The request exceeds the whole allocatable, so evicting pods cannot help.
    """

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


def compute_pod_resource_request(pod: "PodInfo") -> Resource:
    """The request Filter checks, as ``computePodResourceRequest``.

    ``resource.PodRequests`` (already in ``pod.requests``: containers summed,
    init containers as a running maximum with sidecars, pod-level requests,
    overhead) folded into a :class:`Resource` with ``SetMaxResource``
    semantics: cpu, memory, ephemeral-storage and scalar resources; other
    names (``pods``, ``storage``) are dropped.

    Parameters
    ----------
    pod : PodInfo

    Returns
    -------
    Resource
        CPU in millicores, memory and storage in bytes.

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_pod
    >>> pod = make_pod("p", containers=[
    ...     {"name": "a", "resources": {"requests": {"cpu": "2", "memory": "1G"}}},
    ...     {"name": "b", "resources": {"requests": {"cpu": "1", "memory": "1G"}}}],
    ...     initContainers=[{"name": "i1", "resources": {"requests": {"cpu": "2", "memory": "1G"}}},
    ...                     {"name": "i2", "resources": {"requests": {"cpu": "2", "memory": "3G"}}}])
    >>> r = compute_pod_resource_request(PodInfo(pod)); r.milli_cpu, r.memory_bytes
    (3000, 3000000000)
    """
    req = pod.requests
    return Resource(
        milli_cpu=req.milli_cpu,
        memory_bytes=req.memory_bytes,
        ephemeral_storage_bytes=req.ephemeral_storage_bytes,
        scalar_resources={k: v for k, v in req.scalar_resources.items() if is_scalar_resource_name(k)},
    )


def has_restartable_init_container(pod: Any) -> bool:
    """True when the pod has a sidecar (an init container with ``restartPolicy: Always``)."""
    return any(is_restartable_init_container(c) for c in pod.spec.initContainers or ())


def fits_request(
    pod_request: Resource,
    node_info: "NodeInfo",
    ignored_extended_resources: frozenset[str] | set[str] = frozenset(),
    ignored_resource_groups: frozenset[str] | set[str] = frozenset(),
) -> list[InsufficientResource]:
    """Every resource the node cannot supply (``fitsRequest``).

    Parameters
    ----------
    pod_request : Resource
        From :func:`compute_pod_resource_request`.
    node_info : NodeInfo
    ignored_extended_resources : set of str
        Extended resources not checked.
    ignored_resource_groups : set of str
        Domains (text before ``/``) of extended resources not checked.

    Returns
    -------
    list[InsufficientResource]
        In upstream's order: pods, cpu, memory, ephemeral-storage, then scalar
        resources (in the pod's request order; Go iterates a map). Empty when
        the pod fits.

    Notes
    -----
    A request of 0 for a resource is never reported. DRA-backed extended
    resources (``DRAExtendedResource``, alpha, off in v1.34) are not modelled.
    """
    out: list[InsufficientResource] = []
    alloc = node_info.allocatable
    used = node_info.requested
    allowed = alloc.allowed_pod_number
    n_pods = len(node_info.pods)
    if n_pods + 1 > allowed:
        out.append(InsufficientResource(PODS, ERR_REASON_TOO_MANY_PODS, 1, n_pods, allowed))
    scalars = pod_request.scalar_resources
    if (pod_request.milli_cpu == 0 and pod_request.memory_bytes == 0
            and pod_request.ephemeral_storage_bytes == 0 and not scalars):
        return out
    r = pod_request.milli_cpu
    if r > 0 and r > alloc.milli_cpu - used.milli_cpu:
        out.append(InsufficientResource(CPU, ERR_REASON_INSUFFICIENT_CPU, r, used.milli_cpu, alloc.milli_cpu,
                                        r > alloc.milli_cpu))
    r = pod_request.memory_bytes
    if r > 0 and r > alloc.memory_bytes - used.memory_bytes:
        out.append(InsufficientResource(MEMORY, ERR_REASON_INSUFFICIENT_MEMORY, r, used.memory_bytes,
                                        alloc.memory_bytes, r > alloc.memory_bytes))
    r = pod_request.ephemeral_storage_bytes
    if r > 0 and r > alloc.ephemeral_storage_bytes - used.ephemeral_storage_bytes:
        out.append(InsufficientResource(EPHEMERAL_STORAGE, ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE, r,
                                        used.ephemeral_storage_bytes, alloc.ephemeral_storage_bytes,
                                        r > alloc.ephemeral_storage_bytes))
    for name, q in scalars.items():
        if q == 0:
            continue
        if is_extended_resource_name(name):
            prefix = name.split("/", 1)[0] if ignored_resource_groups else ""
            if name in ignored_extended_resources or prefix in ignored_resource_groups:
                continue
        cap = alloc.scalar_resources.get(name, 0)
        u = used.scalar_resources.get(name, 0)
        if q > cap - u:
            out.append(InsufficientResource(name, insufficient_reason(name), q, u, cap, q > cap))
    return out


def fits(pod: "PodInfo", node_info: "NodeInfo") -> list[InsufficientResource]:
    """Shortages of ``node_info`` for ``pod`` with nothing ignored (``noderesources.Fits``).

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> [r.reason for r in fits(PodInfo(make_pod("p", requests={"cpu": "5"})), NodeInfo(make_node("n")))]
    ['Insufficient cpu']
    """
    return fits_request(compute_pod_resource_request(pod), node_info)


# ---------------------------------------------------------------------------
# Queueing hint (EventsToRegister)
# ---------------------------------------------------------------------------

#: The Node events ``EventsToRegister`` names with queueing hints on (locked on in v1.34): ``Add`` and
#: ``UpdateNodeAllocatable`` only (the extra ``UpdateNodeTaint``/``UpdateNodeLabel`` were for the pre-check
#: path without hints).
NODE_EVENTS = frozenset({ADD, UPDATE_NODE_ALLOCATABLE})


def is_schedulable_after_node_change(pod: "PodInfo", old_node: Any, new_node: Any) -> bool:
    """Whether a Node add or update may make ``pod`` fit (``isSchedulableAfterNodeChange``): True is ``Queue``.

    Skipped (False) when the pod would not fit even on the empty new node
    (``isFit``); a new node that could hold it is worth a retry; an updated one
    only when some resource the pod requests, or the pod count, grew
    (``haveAnyRequestedResourcesIncreased``).

    Parameters
    ----------
    pod : PodInfo
        The pod NodeResourcesFit rejected.
    old_node : lightkube.resources.core_v1.Node or None
        The node before the event (None for an add).
    new_node : lightkube.resources.core_v1.Node
        The node after it.

    Returns
    -------
    bool

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/fit.go
    (EventsToRegister, isSchedulableAfterNodeChange, isFit, haveAnyRequestedResourcesIncreased)

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> pod = PodInfo(make_pod("p", requests={"cpu": "3"}))
    >>> small, big = (make_node("n", allocatable={"cpu": c, "pods": "110"}) for c in ("2", "4"))
    >>> is_schedulable_after_node_change(pod, None, small), is_schedulable_after_node_change(pod, None, big)
    (False, True)
    >>> is_schedulable_after_node_change(pod, small, big), is_schedulable_after_node_change(pod, big, big)
    (True, False)
    """
    from kubenotes.scheduler.framework.node_info import NodeInfo

    request = compute_pod_resource_request(pod)
    modified = NodeInfo(new_node)
    if fits_request(request, modified):
        return False
    if old_node is None:
        return True
    before, after = NodeInfo(old_node).allocatable, modified.allocatable
    if after.allowed_pod_number > before.allowed_pod_number:
        return True
    for name in (CPU, MEMORY, EPHEMERAL_STORAGE):
        if request.get(name) > 0 and after.get(name) > before.get(name):
            return True
    return any(q > 0 and after.get(name) > before.get(name) for name, q in request.scalar_resources.items())


# ---------------------------------------------------------------------------
# Plugin
# ---------------------------------------------------------------------------


class Fit:
    """The NodeResourcesFit plugin: PreFilter, Filter, PreScore and Score (``noderesources.Fit``).

    Parameters
    ----------
    args : NodeResourcesFitArgs
        Internal (already defaulted) arguments.
    handle : Handle, optional
        Framework handle (unused: Score receives the NodeInfo).
    enable_sidecar_containers : bool
        Feature gate ``SidecarContainers`` (GA and on in v1.34). When off,
        PreFilter rejects pods with restartable init containers.

    Raises
    ------
    ConfigError
        When ``args`` fail upstream's validation; the message is upstream's
        aggregate of ``field.Error`` messages.

    See Also
    --------
    kubenotes.scheduler.plugins.noderesources.balanced_allocation.BalancedAllocation : the other resource scorer.
    kubenotes.scheduler.plugins.noderesources.resource_allocation.ResourceAllocationScorer : shared scoring.

    Notes
    -----
    ``PodLevelResources`` (beta, on in v1.34) is always on: pod-level
    requests replace container sums. DRA extended resources are not modelled.
    Queueing hints (``EventsToRegister``) are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/fit.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> pl, state = new(None, None), CycleState()
    >>> pod = PodInfo(make_pod("p", requests={"cpu": "3", "memory": "20Gi"}))
    >>> pl.pre_filter(state, pod, [])[1].is_success()
    True
    >>> st = pl.filter(state, pod, NodeInfo(make_node("n1")))
    >>> str(st.code), st.reasons
    ('UnschedulableAndUnresolvable', ['Insufficient memory'])
    """

    __slots__ = ("args", "handle", "ignored_resources", "ignored_resource_groups", "scorer",
                 "enable_sidecar_containers")

    def __init__(self, args: NodeResourcesFitArgs, handle: Any = None, *, enable_sidecar_containers: bool = True):
        errs = validate_node_resources_fit_args(args)
        if errs:
            raise ConfigError(aggregate_errors(errs))
        if args.scoring_strategy is None:  # pragma: no cover - validation rejects it
            raise ConfigError("scoring strategy not specified")
        self.args = args
        self.handle = handle
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        self.scorer = _make_scorer(args.scoring_strategy)
        self.enable_sidecar_containers = enable_sidecar_containers

    def name(self) -> str:
        """``"NodeResourcesFit"``."""
        return NAME

    # PreFilter / Filter -----------------------------------------------------

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]:
        """Store the pod's request under ``"PreFilterNodeResourcesFit"``.

        Returns
        -------
        tuple[None, Status]
            ``Success``, or ``UnschedulableAndUnresolvable`` with
            :data:`ERR_REASON_RESTARTABLE_INIT_CONTAINER` when sidecars are
            disabled and the pod has one.
        """
        if not self.enable_sidecar_containers and has_restartable_init_container(pod.pod):
            return None, Status.unschedulable(ERR_REASON_RESTARTABLE_INIT_CONTAINER, unresolvable=True)
        state.write(PRE_FILTER_STATE_KEY, compute_pod_resource_request(pod))
        return None, Status()

    def pre_filter_extensions(self) -> None:
        """None: the state does not depend on other pods."""
        return None

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Reject the node when any requested resource does not fit.

        Returns
        -------
        Status
            ``Success``; ``Unschedulable`` (or ``UnschedulableAndUnresolvable``
            when some request exceeds the node's allocatable) with every
            shortage's reason; ``Error`` when PreFilter did not run.
        """
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        insufficient = fits_request(s, node_info, self.ignored_resources, self.ignored_resource_groups)
        if not insufficient:
            return Status()
        code = Code.UNSCHEDULABLE
        for r in insufficient:
            if r.unresolvable:
                code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
                break
        return Status(code, [r.reason for r in insufficient])

    # PreScore / Score ---------------------------------------------------------

    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Store the pod's per-resource requests (non-zero CPU/memory) under ``"PreScoreNodeResourcesFit"``."""
        state.write(PRE_SCORE_STATE_KEY, tuple(self.scorer.calculate_pod_resource_request_list(pod)))
        return Status()

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Score the node with the configured strategy (0-100); computes the requests if PreScore did not run."""
        reqs = state.get(PRE_SCORE_STATE_KEY)
        if reqs is None:
            reqs = self.scorer.calculate_pod_resource_request_list(pod)
        return self.scorer.score(pod, node_info, reqs)

    def score_extensions(self) -> None:
        """None: scores are already on 0-100."""
        return None


def new(args: Mapping[str, Any] | None, handle: Any = None) -> Fit:
    """Factory from raw pluginConfig args (``NewFit``), with v1 defaults applied.

    Parameters
    ----------
    args : mapping or None
        camelCase args as in a KubeSchedulerConfiguration.
    handle : Handle, optional

    Returns
    -------
    Fit

    Raises
    ------
    ConfigError
        For malformed args or upstream's validation failures.

    Examples
    --------
    >>> new({"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 0}]}}).scorer.name
    'MostAllocated'
    >>> new({"scoringStrategy": {"type": "Packed"}})
    Traceback (most recent call last):
    ...
    kubenotes.errors.ConfigError: scoringStrategy.type: Unsupported value: "Packed": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"
    """
    return Fit(NodeResourcesFitArgs.from_config(args), handle)
