"""The scheduler's compact records: ``PodInfo``, ``NodeInfo`` and their parts.

Built once from lightkube objects; plugins read them on the hot path.
Mirrors ``pkg/scheduler/framework/types.go`` (``PodInfo``, ``NodeInfo``,
``AffinityTerm``, ``HostPortInfo``, ``ImageStateSummary``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/types.go
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Mapping

from kubenotes.api.podutil import is_restartable_init_container
from kubenotes.api.resources import Resource, pod_non_zero_requests, pod_requests, resource_list
from kubenotes.api.selectors import LabelSelector, RequiredNodeAffinity

__all__ = [
    "DEFAULT_BIND_ALL_HOST_IP",
    "AffinityTerm",
    "WeightedAffinityTerm",
    "HostPortInfo",
    "ImageStateSummary",
    "PodInfo",
    "NodeInfo",
    "RequestsLedger",
    "host_ports_of",
]

#: ``0.0.0.0``: a host port bound on every address conflicts with any address.
DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


@dataclass(slots=True)
class AffinityTerm:
    """A parsed ``PodAffinityTerm`` (``framework.AffinityTerm``).

    Attributes
    ----------
    namespaces : frozenset[str]
        Namespaces named by the term, or the pod's own when neither
        ``namespaces`` nor ``namespaceSelector`` is given.
    selector : LabelSelector
        Label selector over pods (nil selector matches nothing).
    topology_key : str
        Node label key defining the topology domain.
    namespace_selector : LabelSelector
        Selector over namespace labels (nil matches nothing, ``{}`` everything).
    """

    namespaces: frozenset[str]
    selector: Any
    topology_key: str
    namespace_selector: Any

    def matches(self, pod: "PodInfo", ns_labels: Mapping[str, str] | None) -> bool:
        """True when ``pod`` is in the term's namespaces and matches its selector (``AffinityTerm.Matches``)."""
        if pod.namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod.labels)
        return False


@dataclass(slots=True)
class WeightedAffinityTerm:
    """A preferred affinity term with its weight (1-100)."""

    term: AffinityTerm
    weight: int


def _affinity_term(pod_ns: str, t: Any) -> AffinityTerm:
    namespaces = frozenset(t.namespaces or ())
    if not namespaces and t.namespaceSelector is None:
        namespaces = frozenset((pod_ns,))
    return AffinityTerm(
        namespaces=namespaces,
        selector=LabelSelector.from_api(t.labelSelector),
        topology_key=t.topologyKey,
        namespace_selector=LabelSelector.from_api(t.namespaceSelector),
    )


@dataclass(slots=True)
class HostPortInfo:
    """Host ports in use on a node: ip -> {(protocol, port)} (``framework.HostPortInfo``).

    Examples
    --------
    >>> h = HostPortInfo(); h.add("", "TCP", 80)
    >>> h.check_conflict("10.0.0.1", "TCP", 80), h.check_conflict("", "UDP", 80)
    (True, False)
    """

    ports: dict[str, set[tuple[str, int]]] = field(default_factory=dict)

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP"

    def add(self, ip: str, protocol: str, port: int) -> None:
        """Record a used port; port 0 (no host port) is ignored."""
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self.ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        """Forget a used port."""
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        s = self.ports.get(ip)
        if s is not None:
            s.discard((protocol, port))
            if not s:
                del self.ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """True when ``(ip, protocol, port)`` clashes with a used port (0.0.0.0 clashes with every ip)."""
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in s for s in self.ports.values())
        return pp in self.ports.get(ip, ()) or pp in self.ports.get(DEFAULT_BIND_ALL_HOST_IP, ())

    def __len__(self) -> int:
        return sum(len(s) for s in self.ports.values())

    def clone(self) -> "HostPortInfo":
        return HostPortInfo({k: set(v) for k, v in self.ports.items()})


@dataclass(slots=True)
class ImageStateSummary:
    """An image present on a node: size and how many nodes hold it."""

    size_bytes: int
    num_nodes: int


def host_ports_of(pod: Any) -> list[tuple[str, str, int]]:
    """``(hostIP, protocol, hostPort)`` of the ports a pod holds on its node.

    Ports of app containers and of restartable (sidecar) init containers, as
    ``NodeInfo.updateUsedPorts`` counts them; ordinary init containers have
    finished before the pod runs and hold no port.
    """
    out = []
    spec = pod.spec
    containers = list(spec.containers or ()) + [c for c in spec.initContainers or () if is_restartable_init_container(c)]
    for c in containers:
        for p in c.ports or ():
            if p.hostPort:
                out.append((p.hostIP or "", p.protocol or "TCP", int(p.hostPort)))
    return out


def _timestamp_seconds(ts: Any) -> float:
    if ts is None:
        return 0.0
    if isinstance(ts, datetime):
        return ts.timestamp()
    return datetime.fromisoformat(str(ts).replace("Z", "+00:00")).timestamp()


class PodInfo:
    """A pod with what the scheduler precomputes once (``framework.PodInfo``).

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod
        The pod, with API defaults and Priority admission already applied.

    Attributes
    ----------
    pod : Pod
        The lightkube object.
    name, namespace, uid : str
    labels : dict[str, str]
    priority : int
        ``spec.priority`` (0 when unset).
    creation_seconds : float
        ``metadata.creationTimestamp`` as POSIX seconds (0 when unset).
    node_name : str
        ``spec.nodeName`` ("" when pending).
    requests : Resource
        Effective request (``PodRequests``): CPU in millicores, memory in bytes.
    non_zero_milli_cpu, non_zero_memory_bytes : int
        Requests with the scheduler's defaults for containers that request nothing.
    host_ports : list[tuple[str, str, int]]
        ``(hostIP, protocol, hostPort)``.
    required_affinity_terms, required_anti_affinity_terms : list[AffinityTerm]
    preferred_affinity_terms, preferred_anti_affinity_terms : list[WeightedAffinityTerm]
    terminating : bool
        ``metadata.deletionTimestamp`` is set.

    Raises
    ------
    FieldError
        When a quantity or selector in the pod is malformed.
    """

    __slots__ = (
        "pod", "name", "namespace", "uid", "labels", "priority", "creation_seconds", "node_name",
        "requests", "non_zero_milli_cpu", "non_zero_memory_bytes", "host_ports",
        "required_affinity_terms", "required_anti_affinity_terms",
        "preferred_affinity_terms", "preferred_anti_affinity_terms", "terminating", "_required_node_affinity",
        "__weakref__",
    )

    def __init__(self, pod: Any):
        self.pod = pod
        md = pod.metadata
        self.name = md.name or ""
        self.namespace = md.namespace or "default"
        self.uid = md.uid or f"{self.namespace}/{self.name}"
        self.labels = dict(md.labels or {})
        self.creation_seconds = _timestamp_seconds(md.creationTimestamp)
        self.terminating = md.deletionTimestamp is not None
        spec = pod.spec
        self.priority = int(spec.priority or 0)
        self.node_name = spec.nodeName or ""
        self.requests = Resource.from_resource_list(pod_requests(pod))
        self.non_zero_milli_cpu, self.non_zero_memory_bytes = pod_non_zero_requests(pod)
        self.host_ports = host_ports_of(pod)
        self._required_node_affinity: Any = None
        self.required_affinity_terms: list[AffinityTerm] = []
        self.required_anti_affinity_terms: list[AffinityTerm] = []
        self.preferred_affinity_terms: list[WeightedAffinityTerm] = []
        self.preferred_anti_affinity_terms: list[WeightedAffinityTerm] = []
        aff = spec.affinity
        if aff is not None:
            ns = self.namespace
            if aff.podAffinity is not None:
                pa = aff.podAffinity
                self.required_affinity_terms = [_affinity_term(ns, t) for t in pa.requiredDuringSchedulingIgnoredDuringExecution or ()]
                self.preferred_affinity_terms = [
                    WeightedAffinityTerm(_affinity_term(ns, w.podAffinityTerm), int(w.weight))
                    for w in pa.preferredDuringSchedulingIgnoredDuringExecution or ()
                ]
            if aff.podAntiAffinity is not None:
                pa = aff.podAntiAffinity
                self.required_anti_affinity_terms = [_affinity_term(ns, t) for t in pa.requiredDuringSchedulingIgnoredDuringExecution or ()]
                self.preferred_anti_affinity_terms = [
                    WeightedAffinityTerm(_affinity_term(ns, w.podAffinityTerm), int(w.weight))
                    for w in pa.preferredDuringSchedulingIgnoredDuringExecution or ()
                ]

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    def __copy__(self) -> "PodInfo":
        # copy.copy: the same parsed fields, slot by slot (the generic copy of a slotted object is slower)
        new = object.__new__(type(self))
        for name in _POD_INFO_FIELDS:
            setattr(new, name, getattr(self, name))
        return new

    def required_node_affinity(self) -> Any:
        """The pod's nodeSelector and required node affinity (``nodeaffinity.GetRequiredNodeAffinity``), parsed once.

        Returns
        -------
        kubenotes.api.selectors.RequiredNodeAffinity
            The same object on every call (the pod's spec does not change
            while it is scheduled); a malformed term matches no node, as
            upstream's ``LazyErrorNodeSelector``.
        """
        got = self._required_node_affinity
        if got is None:
            got = self._required_node_affinity = RequiredNodeAffinity.from_pod(self.pod)
        return got

    def has_affinity(self) -> bool:
        """True when the pod declares any pod affinity or anti-affinity term."""
        return bool(self.required_affinity_terms or self.required_anti_affinity_terms
                    or self.preferred_affinity_terms or self.preferred_anti_affinity_terms)

    def __repr__(self) -> str:
        return f"PodInfo({self.key}, node={self.node_name or '-'})"


_POD_INFO_FIELDS = tuple(f for f in PodInfo.__slots__ if f != "__weakref__")


class NodeInfo:
    """A node and what runs on it (``framework.NodeInfo``).

    Parameters
    ----------
    node : lightkube.resources.core_v1.Node or None
        The node; ``None`` for a node the scheduler knows only from its pods.

    Attributes
    ----------
    node : Node
    name : str
    labels : dict[str, str]
    pods : list[PodInfo]
    pods_with_affinity : list[PodInfo]
        Pods with any pod affinity or anti-affinity term.
    pods_with_required_anti_affinity : list[PodInfo]
    used_ports : HostPortInfo
    requested : Resource
        Sum of the pods' effective requests.
    non_zero_requested : Resource
        Same, with defaults for containers that request nothing (CPU, memory only).
    allocatable : Resource
        ``status.allocatable`` (``pods`` in ``allowed_pod_number``).
    image_states : dict[str, ImageStateSummary]
        Image name -> size and number of nodes holding it (filled by the snapshot).
    generation : int
        Bumped on every change.
    batch_hook : tuple[SnapshotArrays, int] or None
        Set on a snapshot's nodes once the untraced scheduler builds
        :class:`~kubenotes.scheduler.arrays.SnapshotArrays`; every change
        refreshes the node's row there (clones have none).

    Raises
    ------
    FieldError
        When an allocatable quantity is malformed.
    """

    __slots__ = (
        "node", "name", "labels", "pods", "pods_with_affinity", "pods_with_required_anti_affinity",
        "used_ports", "requested", "non_zero_requested", "allocatable", "image_states",
        "pvc_ref_counts", "generation", "batch_hook", "__weakref__",
    )

    def __init__(self, node: Any = None, pods: Iterable[PodInfo] = ()):
        self.node = node
        self.name = node.metadata.name if node is not None else ""
        self.labels = dict(node.metadata.labels or {}) if node is not None else {}
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports = HostPortInfo()
        self.requested = Resource()
        self.non_zero_requested = Resource()
        alloc = node.status.allocatable if node is not None and node.status is not None else None
        self.allocatable = Resource.from_resource_list(resource_list(alloc, "status.allocatable"))
        self.image_states: dict[str, ImageStateSummary] = {}
        self.pvc_ref_counts: dict[str, int] = {}
        self.generation = 0
        self.batch_hook: tuple[Any, int] | None = None
        for p in pods:
            self.add_pod(p)

    def add_pod(self, p: PodInfo) -> None:
        """Account for a pod placed on this node (``NodeInfo.AddPodInfo``)."""
        self.pods.append(p)
        if p.has_affinity():
            self.pods_with_affinity.append(p)
        if p.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity.append(p)
        self._update(p, 1)

    def remove_pod(self, p: PodInfo) -> None:
        """Forget a pod (``NodeInfo.RemovePod``), matched by uid.

        Raises
        ------
        NotFound
            When the pod is not on this node.
        """
        from kubenotes.errors import NotFound

        for lst in (self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, q in enumerate(lst):
                if q.uid == p.uid:
                    del lst[i]
                    break
        for i, q in enumerate(self.pods):
            if q.uid == p.uid:
                del self.pods[i]
                self._update(q, -1)
                return
        raise NotFound(f"no corresponding pod {p.key} in pods of node {self.name}")

    def _update(self, p: PodInfo, sign: int) -> None:
        self.requested.add_resource(p.requests, sign)
        self.non_zero_requested.milli_cpu += sign * p.non_zero_milli_cpu
        self.non_zero_requested.memory_bytes += sign * p.non_zero_memory_bytes
        for ip, proto, port in p.host_ports:
            (self.used_ports.add if sign > 0 else self.used_ports.remove)(ip, proto, port)
        for v in p.pod.spec.volumes or ():
            pvc = v.persistentVolumeClaim
            if pvc is not None:
                k = f"{p.namespace}/{pvc.claimName}"
                self.pvc_ref_counts[k] = self.pvc_ref_counts.get(k, 0) + sign
                if self.pvc_ref_counts[k] <= 0:
                    del self.pvc_ref_counts[k]
        self.generation += 1
        if self.batch_hook is not None:
            arrays, i = self.batch_hook
            arrays.refresh(i)

    def clone(self) -> "NodeInfo":
        """Copy whose pod lists and totals can change independently (pods themselves are shared)."""
        c = NodeInfo.__new__(NodeInfo)
        c.node, c.name, c.labels = self.node, self.name, self.labels
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.used_ports = self.used_ports.clone()
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.allocatable = self.allocatable
        c.image_states = self.image_states
        c.pvc_ref_counts = dict(self.pvc_ref_counts)
        c.generation = self.generation
        c.batch_hook = None
        return c

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={len(self.pods)})"


class RequestsLedger:
    """A :class:`NodeInfo` stand-in that keeps only resource totals and a pod count (preemption's dry run, batch Filter).

    Adding or removing a pod changes ``requested`` and the count, as
    :meth:`NodeInfo.add_pod` and :meth:`NodeInfo.remove_pod` do; every other
    attribute (the node, its labels, allocatable...) is the wrapped node's.
    Filter plugins that declare ``filter_ignores_node_pods`` or
    ``filter_reads_requests_only`` give on it the verdict they give on the
    node with the same pods.

    Parameters
    ----------
    node_info : NodeInfo
        Not modified.

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> info = NodeInfo(make_node("n"))
    >>> p = PodInfo(make_pod("p", requests={"cpu": "500m"}))
    >>> info.add_pod(p)
    >>> ledger = RequestsLedger(info)
    >>> ledger.remove_pod(p); ledger.requested.milli_cpu, len(ledger.pods), info.requested.milli_cpu, ledger.name
    (0, 0, 500, 'n')
    """

    __slots__ = ("_node_info", "requested", "pods")

    def __init__(self, node_info: NodeInfo | "RequestsLedger", requested: Any = None, pod_count: int | None = None):
        self._node_info = node_info._node_info if isinstance(node_info, RequestsLedger) else node_info
        self.requested = (requested if requested is not None else node_info.requested).clone()
        self.pods = range(pod_count if pod_count is not None else len(node_info.pods))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node_info, name)

    def add_pod(self, p: PodInfo) -> None:
        """Count ``p`` on the node: its requests and one pod slot."""
        self.requested.add_resource(p.requests, 1)
        self.pods = range(len(self.pods) + 1)

    def remove_pod(self, p: PodInfo) -> None:
        """Forget ``p``: its requests and one pod slot (it must be one of the node's pods)."""
        self.requested.add_resource(p.requests, -1)
        self.pods = range(len(self.pods) - 1)

    def clone(self) -> "RequestsLedger":
        """A copy that later adds and removes do not share."""
        return RequestsLedger(self, self.requested, len(self.pods))
