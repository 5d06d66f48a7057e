"""ServiceAffinity (legacy): keep a Service's pods on nodes with the same values of some labels.

Mirrors ``pkg/scheduler/framework/plugins/serviceaffinity/service_affinity.go``
(v1.21), the plugin behind the legacy ``CheckServiceAffinity`` predicate and
``ServiceAntiAffinity`` priority.

* Filter (``affinityLabels``): the first pod of a Service may land anywhere; later
  pods of the same Service and namespace must land on nodes whose values for the
  affinity labels equal those of the node running an earlier pod (values fixed
  by the pod's nodeSelector take precedence).
* Score/NormalizeScore (``antiAffinityLabelsPreference``): per label, nodes in a
  label value holding fewer of the Service's pods score higher; nodes without
  the label score 0 for it; the per-label scores are averaged.

Removed upstream in v1.23 with the Policy API; use InterPodAffinity instead.
kubenotes keeps it for teaching.

References
----------
kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/serviceaffinity/service_affinity.go
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.errors import ConfigError, NotFound
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Code, NodeScore, PreFilterResult, Status
from kubenotes.scheduler.plugins.names import SERVICE_AFFINITY as NAME
from kubenotes.scheduler.plugins.podtopologyspread.common import get_pod_services

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["NAME", "PRE_FILTER_STATE_KEY", "ERR_REASON", "ServiceAffinity", "new"]

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
#: Filter reason.
ERR_REASON = "node(s) didn't match service affinity"


def _set_matches(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    """``labels.Set(selector).AsSelector().Matches`` (an empty set matches everything)."""
    return all(labels.get(k) == v for k, v in selector.items())


@dataclass(slots=True)
class _PreFilterState:
    matching_pod_list: list[Any] = field(default_factory=list)
    matching_pod_services: list[Any] = field(default_factory=list)

    def clone(self) -> "_PreFilterState":
        return _PreFilterState(list(self.matching_pod_list), list(self.matching_pod_services))


class ServiceAffinity:
    """Legacy service (anti-)affinity by node label values (PreFilter, Filter, Score, NormalizeScore).

    Parameters
    ----------
    handle : Handle
        ``handle.snapshot`` and ``handle.objects.services``.
    affinity_labels : list[str]
        Node label keys whose values must be equal for all pods of a Service.
    anti_affinity_labels_preference : list[str]
        Node label keys over whose values a Service's pods should spread.

    See Also
    --------
    kubenotes.scheduler.plugins.interpodaffinity.InterPodAffinity : its replacement.

    Notes
    -----
    "The pods of the Service" are approximated, as upstream, by the scheduled pods
    in the same namespace whose labels include all the incoming pod's labels.

    References
    ----------
    kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/serviceaffinity/service_affinity.go

    Examples
    --------
    >>> ServiceAffinity(None, ["region"]).name()
    'ServiceAffinity'
    """

    def __init__(self, handle: Any, affinity_labels: list[str] | None = None, anti_affinity_labels_preference: list[str] | None = None):
        self.handle = handle
        self.affinity_labels = list(affinity_labels or ())
        self.anti_affinity_labels_preference = list(anti_affinity_labels_preference or ())

    def name(self) -> str:
        """``ServiceAffinity``."""
        return NAME

    def _objects(self) -> Any:
        return getattr(self.handle, "objects", None)

    def pre_filter(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> tuple[PreFilterResult | None, Status]:
        """Record the pod's Services and the scheduled pods (same namespace) whose labels include the pod's."""
        services = get_pod_services(self._objects(), pod)
        matching = [p for ni in self.handle.snapshot.list() for p in ni.pods
                    if p.namespace == pod.namespace and _set_matches(pod.labels, p.labels)]
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(matching, services))
        return None, Status()

    def pre_filter_extensions(self) -> "ServiceAffinity":
        return self

    def _state(self, state: "CycleState") -> _PreFilterState | Status:
        try:
            return state.read(PRE_FILTER_STATE_KEY)
        except NotFound:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')

    def add_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_add: "PodInfo", node_info: "NodeInfo") -> Status:
        """Add ``pod_to_add`` to the matching pods when it is in the namespace and matches."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        if pod_to_add.namespace == pod_to_schedule.namespace and _set_matches(pod_to_schedule.labels, pod_to_add.labels):
            s.matching_pod_list.append(pod_to_add)
        return Status()

    def remove_pod(self, state: "CycleState", pod_to_schedule: "PodInfo", pod_to_remove: "PodInfo", node_info: "NodeInfo") -> Status:
        """Drop ``pod_to_remove`` (matched by namespace and name) from the matching pods."""
        s = self._state(state)
        if isinstance(s, Status):
            return s
        if not s.matching_pod_list or pod_to_remove.namespace != s.matching_pod_list[0].namespace:
            return Status()
        for i, p in enumerate(s.matching_pod_list):
            if p.name == pod_to_remove.name and p.namespace == pod_to_remove.namespace:
                del s.matching_pod_list[i]
                break
        return Status()

    @staticmethod
    def _filter_out_pods(node_info: "NodeInfo", pods: list[Any]) -> list[Any]:
        """``NodeInfo.FilterOutPods``: drop pods said to be on this node that the NodeInfo no longer holds."""
        if node_info.node is None:
            return list(pods)
        present = {p.uid for p in node_info.pods}
        return [p for p in pods if p.node_name != node_info.name or p.uid in present]

    def filter(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """The node's affinity-label values must equal those of the Service's first placed pod."""
        if not self.affinity_labels:
            return Status()
        if node_info.node is None:
            return Status.error("node not found")
        s = self._state(state)
        if isinstance(s, Status):
            return s
        filtered = self._filter_out_pods(node_info, s.matching_pod_list)
        node_selector = pod.pod.spec.nodeSelector or {}
        wanted = {k: node_selector[k] for k in self.affinity_labels if k in node_selector}
        if len(self.affinity_labels) > len(wanted) and s.matching_pod_services and filtered:
            other = self.handle.snapshot.get(filtered[0].node_name)
            if other is None:
                return Status.error("node not found")
            for k in self.affinity_labels:
                if k not in wanted and k in other.labels:
                    wanted[k] = other.labels[k]
        if _set_matches(wanted, node_info.labels):
            return Status()
        return Status(Code.UNSCHEDULABLE, [ERR_REASON])

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Pods on the node matching the first Service's selector (namespace-local, non-terminating)."""
        if node_info.node is None:
            return 0, Status.error("node not found")
        services = get_pod_services(self._objects(), pod)
        selector = dict(services[0].spec.selector or {}) if services else {}
        if not node_info.pods or not selector:
            return 0, Status()
        n = sum(1 for p in node_info.pods if p.namespace == pod.namespace and not p.terminating and _set_matches(selector, p.labels))
        return n, Status()

    def score_extensions(self) -> "ServiceAffinity":
        return self

    def normalize_score(self, state: "CycleState", pod: "PodInfo", scores: list[NodeScore]) -> Status:
        """Average over ``antiAffinityLabelsPreference`` of ``100 * (total - pods in the node's label value) / total``."""
        reduce = [0.0] * len(scores)
        snapshot = self.handle.snapshot
        n_labels = len(self.anti_affinity_labels_preference)
        for label in self.anti_affinity_labels_preference:
            total = 0
            pod_counts: dict[str, int] = {}
            value_of: dict[str, str] = {}
            for ns in scores:
                total += ns.score
                ni = snapshot.get(ns.name)
                if ni is None:
                    return Status.error(f'nodeinfo not found for node name "{ns.name}"')
                if label not in ni.labels:
                    continue
                v = ni.labels[label]
                value_of[ns.name] = v
                pod_counts[v] = pod_counts.get(v, 0) + ns.score
            for i, ns in enumerate(scores):
                if ns.name not in value_of:
                    continue
                f = float(MAX_NODE_SCORE)
                if total > 0:
                    f = float(MAX_NODE_SCORE) * (float(total - pod_counts[value_of[ns.name]]) / float(total))
                reduce[i] += f / float(n_labels)
        for i, ns in enumerate(scores):
            ns.score = int(reduce[i])
        return Status()


def new(args: Mapping[str, Any] | None, handle: Any) -> ServiceAffinity:
    """Build ServiceAffinity from raw ``ServiceAffinityArgs`` (``affinityLabels``, ``antiAffinityLabelsPreference``).

    Raises
    ------
    ConfigError
        On unknown keys or non-list values (upstream had no further validation).

    Examples
    --------
    >>> new({"affinityLabels": ["region"]}, None).affinity_labels
    ['region']
    """
    args = dict(args or {})
    keys = ("affinityLabels", "antiAffinityLabelsPreference")
    unknown = sorted(set(args) - set(keys) - {"apiVersion", "kind"})
    if unknown:
        raise ConfigError(f'ServiceAffinityArgs: unknown field "{unknown[0]}"')
    for k in keys:
        v = args.get(k)
        if v is not None and (isinstance(v, (str, bytes)) or not all(isinstance(x, str) for x in v)):
            raise ConfigError(f"ServiceAffinityArgs.{k}: expected a list of strings, got {v!r}")
    return ServiceAffinity(handle, args.get("affinityLabels"), args.get("antiAffinityLabelsPreference"))
