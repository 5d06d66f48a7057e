"""Builders for pods and nodes in tests and notebooks (like upstream's ``st.MakePod()``).

Each builder returns a real lightkube object built from a manifest-shaped
dict, so what a test builds is what a YAML file would load.

:class:`FakeExtender` and its predicates and prioritizers mirror upstream's
test extender, for tests and notebooks that need an extender without JSON.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/testing/wrappers.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/testing/framework/fake_extender.go
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from lightkube.resources.core_v1 import Node, Pod

__all__ = ["make_pod", "make_node", "run_decisions", "spy_batch_path", "churn_pods", "FakeExtender",
           "error_predicate_extender", "false_predicate_extender", "true_predicate_extender",
           "node1_predicate_extender", "node2_predicate_extender", "error_prioritizer_extender",
           "node1_prioritizer_extender", "node2_prioritizer_extender"]


def make_pod(
    name: str,
    namespace: str = "default",
    *,
    requests: Mapping[str, Any] | None = None,
    limits: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    node_name: str | None = None,
    priority: int | None = None,
    image: str = "registry.k8s.io/pause:3.10",
    uid: str | None = None,
    creation_timestamp: str | None = None,
    containers: list[dict] | None = None,
    **spec: Any,
) -> Pod:
    """A Pod with one container (or ``containers``) and any extra ``spec`` fields in camelCase.

    Parameters
    ----------
    name, namespace : str
    requests, limits : mapping, optional
        Resource requests/limits of the single container, e.g. ``{"cpu": "500m"}``.
    labels : mapping, optional
    node_name : str, optional
        Bind the pod (``spec.nodeName``).
    priority : int, optional
        ``spec.priority``.
    image : str
    uid : str, optional
        Defaults to ``namespace/name``.
    creation_timestamp : str, optional
        RFC 3339.
    containers : list of dict, optional
        Full container specs, replacing the single container.
    **spec
        Extra PodSpec fields (``tolerations=[...]``, ``affinity={...}``).

    Examples
    --------
    >>> p = make_pod("web", requests={"cpu": "500m"}, tolerations=[{"key": "k", "operator": "Exists"}])
    >>> p.spec.containers[0].resources.requests, p.spec.tolerations[0].key
    ({'cpu': '500m'}, 'k')
    """
    if containers is None:
        c: dict[str, Any] = {"name": "c0", "image": image}
        res = {}
        if requests:
            res["requests"] = dict(requests)
        if limits:
            res["limits"] = dict(limits)
        if res:
            c["resources"] = res
        containers = [c]
    md: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid or f"{namespace}/{name}"}
    if labels:
        md["labels"] = dict(labels)
    if creation_timestamp:
        md["creationTimestamp"] = creation_timestamp
    s: dict[str, Any] = {"containers": containers, **spec}
    if node_name:
        s["nodeName"] = node_name
    if priority is not None:
        s["priority"] = priority
    return Pod.from_dict({"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": s})


def make_node(
    name: str,
    *,
    allocatable: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    taints: list[dict] | None = None,
    unschedulable: bool = False,
    images: list[dict] | None = None,
) -> Node:
    """A Node with ``status.allocatable`` (default 4 CPU, 16Gi, 110 pods) and ``capacity`` equal to it.

    Examples
    --------
    >>> n = make_node("n1", labels={"topology.kubernetes.io/zone": "a"}, taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    >>> n.status.allocatable["cpu"], n.spec.taints[0].effect
    ('4', 'NoSchedule')
    """
    alloc = dict(allocatable) if allocatable is not None else {"cpu": "4", "memory": "16Gi", "pods": "110"}
    md: dict[str, Any] = {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}}
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    status: dict[str, Any] = {"allocatable": alloc, "capacity": dict(alloc)}
    if images:
        status["images"] = images
    return Node.from_dict({"apiVersion": "v1", "kind": "Node", "metadata": md, "spec": spec, "status": status})


def run_decisions(scheduler: Any) -> tuple:
    """Run a scheduler to the end and return what identity tests compare between the traced and untraced paths.

    Returns
    -------
    tuple
        ``(attempts, bindings, deleted, next_start_node_index)``; each attempt is
        ``(pod key, node name, nominated node, victims, FailedScheduling message)``.
    """
    attempts = [(t.key, t.node_name, t.nominated_node_name, tuple(t.victims), t.message) for t in scheduler.run()]
    return attempts, scheduler.bindings, scheduler.deleted, scheduler.next_start_node_index


def spy_batch_path(patch: Any, plugin: str | None = None) -> dict[str, list[bool]]:
    """Record whether each Filter/Score went through the batch path (``filter_nodes_batch``/``score_nodes_batch``).

    Parameters
    ----------
    patch : pytest.MonkeyPatch
        Its ``setattr`` replaces the two functions in ``kubenotes.scheduler.schedule_one``.
    plugin : str, optional
        Count only cycles where this plugin was not skipped at PreFilter/PreScore.

    Returns
    -------
    dict
        ``{"filter": [...], "score": [...]}``: True per batched cycle, False per fallback to the per-node path.
    """
    import kubenotes.scheduler.schedule_one as so

    used: dict[str, list[bool]] = {"filter": [], "score": []}
    real_filter, real_score = so.filter_nodes_batch, so.score_nodes_batch

    def spy_filter(fw: Any, state: Any, pod: Any, *args: Any) -> Any:
        mask = real_filter(fw, state, pod, *args)
        if plugin is None or plugin not in state.skip_filter_plugins:
            used["filter"].append(mask is not None)
        return mask

    def spy_score(fw: Any, state: Any, pod: Any, *args: Any) -> Any:
        totals = real_score(fw, state, pod, *args)
        if plugin is None or plugin not in state.skip_score_plugins:
            used["score"].append(totals is not None)
        return totals

    patch.setattr(so, "filter_nodes_batch", spy_filter)
    patch.setattr(so, "score_nodes_batch", spy_score)
    return used


def churn_pods(rng: Any, snapshot: Any, pending: list[Any], steps: int, add_share: float) -> None:
    """Change a snapshot's pods at random, as the scheduler and evictions would (for tests of per-node indexes).

    Each step places the last of ``pending`` (PodInfos, popped) on a random
    node with probability ``add_share`` while some are left, and otherwise
    removes a random pod of a random node (nothing when that node is empty).
    """
    for _ in range(steps):
        if pending and rng.random() < add_share:
            snapshot.add_pod(pending.pop(), rng.choice(snapshot.list()).name)
        else:
            ni = rng.choice(snapshot.list())
            if ni.pods:
                snapshot.remove_pod(rng.choice(ni.pods), ni.name)


# --------------------------------------------------------------------------- a fake extender
def _status(code: str = "SUCCESS", message: str | None = None) -> Any:
    from kubenotes.scheduler.framework.interface import Code, Status

    return Status(Code[code], [message] if message is not None else [])


def error_predicate_extender(pod: Any, node: Any) -> Any:
    """Always an Error ``some error`` (``ErrorPredicateExtender``)."""
    return _status("ERROR", "some error")


def false_predicate_extender(pod: Any, node: Any) -> Any:
    """Always Unschedulable (``FalsePredicateExtender``)."""
    return _status("UNSCHEDULABLE", f'pod is unschedulable on the node "{node.name}"')


def true_predicate_extender(pod: Any, node: Any) -> Any:
    """Always Success (``TruePredicateExtender``)."""
    return _status()


def node1_predicate_extender(pod: Any, node: Any) -> Any:
    """Success on ``node1`` only (``Node1PredicateExtender``)."""
    return _status() if node.name == "node1" else _status("UNSCHEDULABLE", f'node "{node.name}" is not allowed')


def node2_predicate_extender(pod: Any, node: Any) -> Any:
    """Success on ``node2`` only (``Node2PredicateExtender``)."""
    return _status() if node.name == "node2" else _status("UNSCHEDULABLE", f'node "{node.name}" is not allowed')


def error_prioritizer_extender(pod: Any, nodes: Sequence[Any]) -> tuple[list[tuple[str, int]], Any]:
    """Always an Error ``some error`` (``ErrorPrioritizerExtender``)."""
    return [], _status("ERROR", "some error")


def node1_prioritizer_extender(pod: Any, nodes: Sequence[Any]) -> tuple[list[tuple[str, int]], Any]:
    """10 for ``node1``, 1 for the others (``Node1PrioritizerExtender``)."""
    return [(n.name, 10 if n.name == "node1" else 1) for n in nodes], _status()


def node2_prioritizer_extender(pod: Any, nodes: Sequence[Any]) -> tuple[list[tuple[str, int]], Any]:
    """10 for ``node2``, 1 for the others (``Node2PrioritizerExtender``)."""
    return [(n.name, 10 if n.name == "node2" else 1) for n in nodes], _status()


class FakeExtender:
    """An in-memory extender driven by predicate and prioritizer functions (``FakeExtender``).

    Parameters
    ----------
    name : str
        Its name (``defaultFakeExtender`` when empty).
    predicates : sequence of callable(PodInfo, NodeInfo) -> Status
        A node passes when every predicate succeeds; Unschedulable and
        UnschedulableAndUnresolvable put it in ``FailedNodes`` /
        ``FailedAndUnresolvableNodes``; any other code fails the call.
    prioritizers : sequence of (callable(PodInfo, list[NodeInfo]) -> (list[(str, int)], Status), int)
        Each function's scores times its weight are summed per node (weight 0 skips it).
    weight : int
        Returned with the scores (the extender's configured weight).
    node_cache_capable, uninterested, ignorable : bool
    binder : callable() -> Status, optional
        What ``bind`` returns; without it, bind succeeds only on a node the last filter kept.
    cached_node_name_to_info : mapping of str to NodeInfo, optional
        The extender's own node cache, used by preemption when ``node_cache_capable``.

    Notes
    -----
    Upstream's prioritizer scores come out in Go map order; here, in the order first seen.

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
    >>> ext = FakeExtender("E", predicates=[node1_predicate_extender])
    >>> kept, failed, unresolvable, s = ext.filter(PodInfo(make_pod("p")), [NodeInfo(make_node("node1")), NodeInfo(make_node("node2"))])
    >>> [n.name for n in kept], failed, s.is_success()
    (['node1'], {'node2': 'FakeExtender: node "node2" failed'}, True)
    """

    def __init__(self, name: str = "", *, predicates: Sequence[Callable[..., Any]] = (),
                 prioritizers: Sequence[tuple[Callable[..., Any], int]] = (), weight: int = 0,
                 node_cache_capable: bool = False, uninterested: bool = False, ignorable: bool = False,
                 binder: Callable[[], Any] | None = None, cached_node_name_to_info: Mapping[str, Any] | None = None):
        self.extender_name = name
        self.predicates = list(predicates)
        self.prioritizers = list(prioritizers)
        self.weight = weight
        self.node_cache_capable = node_cache_capable
        self.uninterested = uninterested
        self.ignorable = ignorable
        self.binder = binder
        self.cached_node_name_to_info = dict(cached_node_name_to_info or {})
        self.filtered_nodes: list[Any] = []

    def name(self) -> str:
        return self.extender_name or "defaultFakeExtender"

    def is_ignorable(self) -> bool:
        return self.ignorable

    def supports_preemption(self) -> bool:
        return True

    def is_binder(self) -> bool:
        return True

    def is_prioritizer(self) -> bool:
        return bool(self.prioritizers)

    def is_filter(self) -> bool:
        return bool(self.predicates)

    def is_interested(self, pod: Any) -> bool:
        return not self.uninterested

    def run_predicate(self, pod: Any, node: Any) -> Any:
        """The first failing predicate's status, else Success (``runPredicate``)."""
        for pred in self.predicates:
            s = pred(pod, node)
            if not s.is_success():
                return s
        return _status()

    def filter(self, pod: Any, nodes: Sequence[Any]) -> tuple[list[Any], dict[str, str], dict[str, str], Any]:
        from kubenotes.scheduler.framework.interface import Code, Status

        kept, failed, unresolvable = [], {}, {}
        for n in nodes:
            s = self.run_predicate(pod, n)
            if s.is_success():
                kept.append(n)
            elif s.code == Code.UNSCHEDULABLE:
                failed[n.name] = f'FakeExtender: node "{n.name}" failed'
            elif s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                unresolvable[n.name] = f'FakeExtender: node "{n.name}" failed and unresolvable'
            else:
                return [], {}, {}, Status(Code.ERROR, [s.message()])
        self.filtered_nodes = kept
        return kept, failed, unresolvable, Status()

    def prioritize(self, pod: Any, nodes: Sequence[Any]) -> tuple[list[Any], int, Any]:
        from kubenotes.scheduler.extender import HostPriority

        combined: dict[str, int] = {}
        for fn, weight in self.prioritizers:
            if weight == 0:
                continue
            scores, s = fn(pod, nodes)
            if not s.is_success():
                return [], 0, s
            for host, score in scores:
                combined[host] = combined.get(host, 0) + score * weight
        return [HostPriority(h, sc) for h, sc in combined.items()], self.weight, _status()

    def bind(self, binding: Mapping[str, Any]) -> Any:
        if self.binder is not None:
            return self.binder()
        target = (binding.get("target") or {}).get("name")
        if self.filtered_nodes:
            names = [n.name for n in self.filtered_nodes]
            self.filtered_nodes = []
            if target in names:
                return _status()
            return _status("ERROR", f"Node {target} not in filtered nodes {names}")
        return _status()

    def process_preemption(self, pod: Any, node_name_to_victims: Mapping[str, Any], node_infos: Any
                           ) -> tuple[dict[str, Any], Any]:
        """Keep the candidates on which the pod passes this extender's predicates, adding its own victims."""
        from kubenotes.scheduler.plugins.defaultpreemption.preemption import Victims

        out: dict[str, Any] = {}
        for node_name, victims in node_name_to_victims.items():
            extra, violations, fits, s = self._select_victims_on_node(pod, node_infos.get(node_name))
            if not s.is_success():
                return {}, s
            if fits:
                out[node_name] = Victims(list(victims.pods) + extra, victims.num_pdb_violations + violations)
        return out, _status()

    def _select_victims_on_node(self, pod: Any, node: Any) -> tuple[list[Any], int, bool, Any]:
        from kubenotes.scheduler.plugins.defaultpreemption.preemption import more_important_pod, sort_by_importance

        if not self.node_cache_capable:
            s = self.run_predicate(pod, node)
            if s.is_success():
                return [], 0, True, _status()
            if s.is_rejected():
                return [], 0, False, _status()
            return [], 0, False, _status("ERROR", s.message())
        info = self.cached_node_name_to_info[node.name].clone()
        potential = [p for p in list(info.pods) if p.priority < pod.priority]
        for p in potential:
            info.remove_pod(p)
        sort_by_importance(potential, more_important_pod)
        s = self.run_predicate(pod, info)
        if not s.is_success():
            return ([], 0, False, _status()) if s.is_rejected() else ([], 0, False, _status("ERROR", s.message()))
        victims = []
        for p in potential:
            info.add_pod(p)
            if not self.run_predicate(pod, info).is_success():
                info.remove_pod(p)
                victims.append(p)
        return victims, 0, True, _status()
