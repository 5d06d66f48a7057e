"""SelectorSpread (legacy): spread pods of the same Service/controller across nodes and zones.

Mirrors ``pkg/scheduler/framework/plugins/selectorspread/selector_spread.go`` of
kube-scheduler v1.22, the plugin behind the legacy ``SelectorSpreadPriority``.
Score counts, on each node, the pods in the incoming pod's namespace matching
the selector of its Services and controller; NormalizeScore turns fewer
matches into a higher score and, when nodes carry zone labels, blends in zone
spreading with weight 2/3.

Removed upstream: disabled by default since v1.20 (replaced by PodTopologySpread
system default constraints), dropped from the v1 config API in v1.25 and deleted
in v1.29. kubenotes keeps it for teaching; it is never in the default profile.

References
----------
kubernetes/kubernetes@v1.22.0 pkg/scheduler/framework/plugins/selectorspread/selector_spread.go
kubernetes/kubernetes@v1.22.0 pkg/util/node/node.go (GetZoneKey)
KEP-1258 (default pod topology spread)
"""

from __future__ import annotations

from kubenotes.scheduler.plugins.helper import reject_args

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.errors import NotFound
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, NodeScore, Status
from kubenotes.scheduler.plugins.names import SELECTOR_SPREAD as NAME
from kubenotes.scheduler.plugins.podtopologyspread.common import default_selector

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "NAME",
    "PRE_SCORE_STATE_KEY",
    "ZONE_WEIGHTING",
    "get_zone_key",
    "count_matching_pods",
    "SelectorSpread",
    "new",
]

PRE_SCORE_STATE_KEY = "PreScore" + NAME
#: Share of the score given to zone spreading when nodes have zone labels.
ZONE_WEIGHTING = 2.0 / 3.0

_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
_GA_ZONE = "topology.kubernetes.io/zone"
_GA_REGION = "topology.kubernetes.io/region"


def get_zone_key(labels: Mapping[str, str] | None) -> str:
    """Region and zone of a node joined as ``region + ":\\x00:" + zone`` (``utilnode.GetZoneKey``).

    Beta labels win over GA ones; "" when the node has neither zone nor region.

    Examples
    --------
    >>> get_zone_key({"topology.kubernetes.io/zone": "z1"})
    ':\\x00:z1'
    >>> get_zone_key({})
    ''
    """
    if not labels:
        return ""
    zone = labels[_BETA_ZONE] if _BETA_ZONE in labels else labels.get(_GA_ZONE, "")
    region = labels[_BETA_REGION] if _BETA_REGION in labels else labels.get(_GA_REGION, "")
    if not region and not zone:
        return ""
    return region + ":\x00:" + zone


def count_matching_pods(namespace: str, selector: Any, node_info: "NodeInfo") -> int:
    """Non-terminating pods on the node in ``namespace`` matching ``selector`` (an empty selector counts 0)."""
    if not node_info.pods or selector.is_empty():
        return 0
    return sum(1 for p in node_info.pods if p.namespace == namespace and not p.terminating and selector.matches(p.labels))


def _skip(pod: "PodInfo") -> bool:
    """Pods with their own topologySpreadConstraints are left to PodTopologySpread."""
    return bool(pod.pod.spec.topologySpreadConstraints)


@dataclass(slots=True)
class _PreScoreState:
    selector: Any

    def clone(self) -> "_PreScoreState":
        return self


class SelectorSpread:
    """Legacy spreading by Service/ReplicationController/ReplicaSet/StatefulSet selectors (PreScore, Score).

    Parameters
    ----------
    handle : Handle
        ``handle.snapshot`` and ``handle.objects`` (Services and controllers).

    See Also
    --------
    kubenotes.scheduler.plugins.podtopologyspread.PodTopologySpread : its replacement (system default constraints).
    kubenotes.scheduler.plugins.podtopologyspread.common.default_selector : the selector it spreads.

    Notes
    -----
    Faithful to v1.22, including ``int()`` truncation of the blended score.

    References
    ----------
    kubernetes/kubernetes@v1.22.0 pkg/scheduler/framework/plugins/selectorspread/selector_spread.go

    Examples
    --------
    >>> SelectorSpread(None).name()
    'SelectorSpread'
    """

    def __init__(self, handle: Any):
        self.handle = handle

    def name(self) -> str:
        """``SelectorSpread``."""
        return NAME

    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Compute the pod's default selector (nothing for pods with topologySpreadConstraints)."""
        if _skip(pod):
            return Status()
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(default_selector(pod, getattr(self.handle, "objects", None))))
        return Status()

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Number of matching pods on the node (normalized later)."""
        if _skip(pod):
            return 0, Status()
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except NotFound:
            return 0, Status.error(f'reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return count_matching_pods(pod.namespace, s.selector, node_info), Status()

    def score_extensions(self) -> "SelectorSpread":
        return self

    def normalize_score(self, state: "CycleState", pod: "PodInfo", scores: list[NodeScore]) -> Status:
        """Fewer matching pods -> higher score; with zones, ``1/3 node + 2/3 zone``."""
        if _skip(pod):
            return Status()
        snapshot = self.handle.snapshot
        counts_by_zone: dict[str, int] = {}
        max_by_node = 0
        zone_of: dict[str, str] = {}
        for ns in scores:
            max_by_node = max(max_by_node, ns.score)
            ni = snapshot.get(ns.name)
            if ni is None:
                return Status.error(f'getting node "{ns.name}" from Snapshot: nodeinfo not found for node name "{ns.name}"')
            zone = get_zone_key(ni.labels)
            zone_of[ns.name] = zone
            if zone:
                counts_by_zone[zone] = counts_by_zone.get(zone, 0) + ns.score
        max_by_zone = max(counts_by_zone.values(), default=0)
        have_zones = bool(counts_by_zone)
        mx = float(MAX_NODE_SCORE)
        for ns in scores:
            f = mx
            if max_by_node > 0:
                f = mx * (float(max_by_node - ns.score) / float(max_by_node))
            if have_zones:
                zone = zone_of[ns.name]
                if zone:
                    zone_score = mx
                    if max_by_zone > 0:
                        zone_score = mx * (float(max_by_zone - counts_by_zone[zone]) / float(max_by_zone))
                    f = f * (1.0 - ZONE_WEIGHTING) + ZONE_WEIGHTING * zone_score
            ns.score = int(f)
        return Status()


def new(args: Any, handle: Any) -> SelectorSpread:
    """Build SelectorSpread (it takes no arguments).

    Raises
    ------
    ConfigError
        When ``args`` holds a field.

    Examples
    --------
    >>> new(None, None).name()
    'SelectorSpread'
    """
    reject_args(NAME, args)
    return SelectorSpread(handle)
