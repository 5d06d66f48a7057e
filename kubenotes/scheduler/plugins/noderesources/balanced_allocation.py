"""NodeResourcesBalancedAllocation: prefer nodes whose resources would be used evenly.

Mirrors ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go``
(v1.34). For every configured resource the node has, the fraction
``min(1, requested / allocatable)`` is computed *with* the incoming pod, using
actual requests (not the 100m/200Mi non-zero defaults); the score is
``int((1 - std) * 100)`` where ``std`` is the standard deviation of the
fractions (``|f1 - f2| / 2`` for two resources). PreScore returns ``Skip``
for a pod that requests none of the resources (best-effort pods), since
upstream v1.33, so such pods are not piled onto one node.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesBalancedAllocationArgs)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/validation/validation_pluginargs.go
kubernetes/kubernetes#129138 (best-effort pods skipped)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Status
from kubenotes.scheduler.plugins.helper import aggregate_errors, field_duplicate, field_invalid
from kubenotes.scheduler.plugins.names import NODE_RESOURCES_BALANCED_ALLOCATION
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
    "PRE_SCORE_STATE_KEY",
    "NodeResourcesBalancedAllocationArgs",
    "validate_node_resources_balanced_allocation_args",
    "balanced_resource_scorer",
    "BalancedAllocation",
    "new",
]

NAME = NODE_RESOURCES_BALANCED_ALLOCATION
#: CycleState key of the pod's request list computed at PreScore.
PRE_SCORE_STATE_KEY = "PreScore" + NAME


@dataclass
class NodeResourcesBalancedAllocationArgs:
    """``NodeResourcesBalancedAllocationArgs``: the resources to balance (weights must be 1).

    Attributes
    ----------
    resources : list[ResourceSpec]

    Examples
    --------
    >>> NodeResourcesBalancedAllocationArgs.from_config({"resources": [{"name": "nvidia.com/gpu"}]}).resources
    [ResourceSpec(name='nvidia.com/gpu', weight=1)]
    """

    resources: list[ResourceSpec] = field(default_factory=lambda: list(DEFAULT_RESOURCES))

    @classmethod
    def from_config(cls, raw: Mapping[str, Any] | None) -> "NodeResourcesBalancedAllocationArgs":
        """Parse raw pluginConfig args and apply v1 defaults.

        No resources means cpu and memory; a weight of 0 (or missing) becomes 1.

        Raises
        ------
        ConfigError
            For an unknown field or malformed entries.
        """
        raw = dict(raw or {})
        raw.pop("apiVersion", None)
        raw.pop("kind", None)
        unknown = set(raw) - {"resources"}
        if unknown:
            raise ConfigError(f'unknown field "{sorted(unknown)[0]}"')
        resources = resource_specs_from_config(raw.get("resources"), "resources")
        if not resources:
            return cls(list(DEFAULT_RESOURCES))
        return cls([r if r.weight != 0 else ResourceSpec(r.name, 1) for r in resources])


def validate_node_resources_balanced_allocation_args(args: NodeResourcesBalancedAllocationArgs) -> list[str]:
    """``ValidateNodeResourcesBalancedAllocationArgs``: no duplicate names, every weight exactly 1.

    Examples
    --------
    >>> validate_node_resources_balanced_allocation_args(NodeResourcesBalancedAllocationArgs(
    ...     [ResourceSpec("cpu", 1), ResourceSpec("cpu", 2)]))
    ['resources[1].name: Duplicate value: "cpu"', 'resources[1].weight: Invalid value: 2: must be 1']
    """
    errs: list[str] = []
    seen: set[str] = set()
    for i, r in enumerate(args.resources):
        if r.name in seen:
            errs.append(field_duplicate(f"resources[{i}].name", r.name))
        else:
            seen.add(r.name)
        if r.weight != 1:
            errs.append(field_invalid(f"resources[{i}].weight", r.weight, "must be 1"))
    return errs


def balanced_resource_scorer(requested: list[int], allocatable: list[int]) -> int:
    """``int((1 - std) * 100)`` over the fractions of resources the node has (``balancedResourceScorer``).

    Parameters
    ----------
    requested, allocatable : list[int]
        Per resource, with the incoming pod included; entries with 0
        allocatable are skipped.

    Returns
    -------
    int
        100 for perfectly even use (or fewer than two resources), lower as
        the fractions spread. Fractions are capped at 1.

    Notes
    -----
    Float arithmetic in upstream's order, so results match Go bit for bit.

    Examples
    --------
    >>> balanced_resource_scorer([3000, 5000], [4000, 10000])   # std = (0.75 - 0.5) / 2
    87
    """
    fractions: list[float] = []
    total = 0.0
    for i, cap in enumerate(allocatable):
        if cap == 0:
            continue
        f = float(requested[i]) / float(cap)
        if f > 1:
            f = 1.0
        total += f
        fractions.append(f)
    std = 0.0
    n = len(fractions)
    if n == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif n > 2:
        mean = total / float(n)
        s = 0.0
        for f in fractions:
            s = s + (f - mean) * (f - mean)
        std = math.sqrt(s / float(n))
    return int((1 - std) * float(MAX_NODE_SCORE))


class BalancedAllocation:
    """The NodeResourcesBalancedAllocation plugin: PreScore and Score (``noderesources.BalancedAllocation``).

    Parameters
    ----------
    args : NodeResourcesBalancedAllocationArgs
        Internal (already defaulted) arguments.
    handle : Handle, optional
        Unused (Score receives the NodeInfo).

    Raises
    ------
    ConfigError
        When ``args`` fail upstream's validation.

    See Also
    --------
    kubenotes.scheduler.plugins.noderesources.fit.Fit : Filter and the least/most-allocated strategies.

    Notes
    -----
    Uses the pod's and the node's actual requests (``useRequested``), unlike
    NodeResourcesFit's scoring. DRA extended resources (alpha in v1.34) are
    not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> pl, state = new(None), CycleState()
    >>> pl.pre_score(state, PodInfo(make_pod("be")), []).is_skip()       # best effort: Skip
    True
    >>> pod = PodInfo(make_pod("p", requests={"cpu": "2", "memory": "4Gi"}))
    >>> pl.pre_score(state, pod, []).is_success()
    True
    >>> pl.score(state, pod, NodeInfo(make_node("n1")))[0]   # cpu 50%, memory 25%
    87
    """

    __slots__ = ("args", "handle", "scorer")

    def __init__(self, args: NodeResourcesBalancedAllocationArgs, handle: Any = None):
        errs = validate_node_resources_balanced_allocation_args(args)
        if errs:
            raise ConfigError(aggregate_errors(errs))
        self.args = args
        self.handle = handle
        self.scorer = ResourceAllocationScorer(NAME, balanced_resource_scorer, args.resources, use_requested=True)

    def name(self) -> str:
        """``"NodeResourcesBalancedAllocation"``."""
        return NAME

    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Store the pod's requests; ``Skip`` when it requests none of the resources.

        Returns
        -------
        Status
            ``Skip`` for best-effort pods, ``Success`` otherwise.
        """
        reqs = self.scorer.calculate_pod_resource_request_list(pod)
        if self.scorer.is_best_effort_pod(reqs):
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, tuple(reqs))
        return Status()

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Balance score in [0, 100]; 0 for a best-effort pod when PreScore did not run."""
        reqs = state.get(PRE_SCORE_STATE_KEY)
        if reqs is None:
            reqs = self.scorer.calculate_pod_resource_request_list(pod)
            if self.scorer.is_best_effort_pod(reqs):
                return 0, Status()
        return self.scorer.score(pod, node_info, reqs)

    def score_extensions(self) -> None:
        """None: scores are already on 0-100."""
        return None


def new(args: Mapping[str, Any] | None, handle: Any = None) -> BalancedAllocation:
    """Factory from raw pluginConfig args (``NewBalancedAllocation``), with v1 defaults applied.

    Raises
    ------
    ConfigError
        For malformed args or upstream's validation failures.

    Examples
    --------
    >>> new({"resources": [{"name": "cpu", "weight": 2}]})
    Traceback (most recent call last):
    ...
    kubenotes.errors.ConfigError: resources[0].weight: Invalid value: 2: must be 1
    """
    return BalancedAllocation(NodeResourcesBalancedAllocationArgs.from_config(args), handle)
