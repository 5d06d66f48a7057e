"""Builders for pods and nodes in tests and notebooks (like upstream's ``st.MakePod()``).

Each builder returns a real lightkube object built from a manifest-shaped
dict, so what a test builds is what a YAML file would load.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/testing/wrappers.go
"""

from __future__ import annotations

from typing import Any, Mapping

from lightkube.resources.core_v1 import Node, Pod

__all__ = ["make_pod", "make_node", "run_decisions", "spy_batch_path", "churn_pods"]


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
