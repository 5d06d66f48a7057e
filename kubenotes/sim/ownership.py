"""The ownership graph of a cluster's objects: who owns whom by ``metadata.ownerReferences``, and what a change did to it.

The garbage collector keeps the same graph (its ``GraphBuilder``'s
``uidToNode``: one node per object uid, linked to its owners by the uids of
their ownerReferences) to find the dependents of a deleted owner. Here the
graph is a query over a running cluster's history
(:func:`kubenotes.sim.history.objects_at`) or over a list of objects, as a
networkx graph: :func:`ownership_graph` builds it (Deployment -> ReplicaSet ->
Pod, CronJob -> Job -> Pod, ...) and :func:`graph_diff` merges a before and an
after, marking what a scale or a cascading delete created, deleted or
orphaned. :mod:`kubenotes.viz.controllers` lays them out and draws them.

Notes
-----
Upstream's graph is kept live from informers' events and holds "virtual"
nodes for owners it has not observed yet; here an owner named by an
ownerReference but absent from the objects read is added with ``missing``
set, which plays the same part.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/graph_builder.go (GraphBuilder, uidToNode)
kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/graph.go (node, owners, dependents)
https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from kubenotes.sim.history import is_cluster as _is_cluster
from kubenotes.sim.history import objects_at

__all__ = ["OWNERSHIP_RESOURCES", "ownership_graph", "graph_diff"]


#: Resources whose objects the ownership graph reads (owners and dependents of the workload controllers).
OWNERSHIP_RESOURCES: tuple[str, ...] = ("deployments", "replicasets", "replicationcontrollers", "statefulsets",
                                        "daemonsets", "cronjobs", "jobs", "controllerrevisions", "pods")

_KIND_RANK = {"CronJob": 0, "Deployment": 1, "StatefulSet": 1, "DaemonSet": 1, "ReplicationController": 1,
              "Job": 2, "ReplicaSet": 2, "ControllerRevision": 3, "Pod": 4}


def _collect(source: Any, namespace: str | None, at_seconds: float | None, at_rv: int | None = None) -> list[dict]:
    if not _is_cluster(source):
        objs = [o for o in source if namespace is None or (o.get("metadata") or {}).get("namespace") == namespace]
        return objs
    out: list[dict] = []
    for r in OWNERSHIP_RESOURCES:
        try:
            out += objects_at(source, r, namespace, at_seconds, at_resource_version=at_rv)
        except Exception as e:  # a resource the server does not serve
            if getattr(e, "code", None) != 404:
                raise
    return out


def ownership_graph(source: Any, namespace: str | None = None, *, at_seconds: float | None = None,
                    at_resource_version: int | None = None) -> nx.DiGraph:
    """Owner -> dependent graph from ``metadata.ownerReferences`` (matched by uid), e.g. Deployment -> ReplicaSet -> Pod.

    Parameters
    ----------
    source : Cluster or iterable of dict
        A cluster (reads :data:`OWNERSHIP_RESOURCES`) or objects.
    namespace : str, optional
    at_seconds : float, optional
        For a cluster: the objects as they were at that virtual time (from its history).
    at_resource_version : int, optional
        For a cluster: the objects as they were right after that write.

    Returns
    -------
    networkx.DiGraph
        Graph nodes are uids with attributes ``kind``, ``name``, ``namespace``,
        ``terminating`` (has ``deletionTimestamp``), ``finalizers`` (list),
        ``phase`` and ``node`` (pods), ``replicas`` (``spec.replicas`` of the
        others, None when unset), ``missing`` (True for an owner that an
        ownerReference names but that does not exist: the garbage collector
        will delete its dependents). Edges owner -> dependent carry
        ``controller`` and ``block_owner_deletion`` (bool). Insertion order is
        sorted by kind (owners first) and name.

    Raises
    ------
    KeyError
        For an object without ``metadata.name``.
    ApiError
        For a cluster, as :func:`kubenotes.sim.history.objects_at` (a 404 for
        a resource the server does not serve is skipped).

    See Also
    --------
    graph_diff, kubenotes.viz.controllers.ownership_figure

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/graph_builder.go (processGraphChanges)

    Examples
    --------
    >>> dep = {"kind": "Deployment", "metadata": {"name": "web", "uid": "d1"}}
    >>> rs = {"kind": "ReplicaSet", "metadata": {"name": "web-5d", "uid": "r1", "ownerReferences": [
    ...       {"kind": "Deployment", "name": "web", "uid": "d1", "controller": True, "blockOwnerDeletion": True}]}}
    >>> pod = {"kind": "Pod", "metadata": {"name": "web-5d-x", "uid": "p1", "ownerReferences": [
    ...        {"kind": "ReplicaSet", "name": "web-5d", "uid": "r1", "controller": True}]}}
    >>> g = ownership_graph([pod, rs, dep])
    >>> [g.nodes[u]["name"] for u in g], list(g.edges())
    (['web', 'web-5d', 'web-5d-x'], [('d1', 'r1'), ('r1', 'p1')])
    """
    objs = _collect(source, namespace, at_seconds, at_resource_version)
    objs = sorted(objs, key=lambda o: (_KIND_RANK.get(o.get("kind", ""), 5), o["metadata"]["name"]))
    g = nx.DiGraph()
    for o in objs:
        md = o["metadata"]
        st = o.get("status") or {}
        g.add_node(md.get("uid") or md["name"], kind=o.get("kind", ""), name=md["name"],
                   namespace=md.get("namespace") or "", terminating=bool(md.get("deletionTimestamp")),
                   finalizers=list(md.get("finalizers") or ()), phase=st.get("phase") if o.get("kind") == "Pod" else None,
                   node=(o.get("spec") or {}).get("nodeName") if o.get("kind") == "Pod" else None, missing=False,
                   replicas=(o.get("spec") or {}).get("replicas") if o.get("kind") != "Pod" else None)
    for o in objs:
        md = o["metadata"]
        for ref in md.get("ownerReferences") or ():
            owner = ref.get("uid") or ref.get("name")
            if owner not in g:
                g.add_node(owner, kind=ref.get("kind", ""), name=ref.get("name", ""), namespace=md.get("namespace") or "",
                           terminating=False, finalizers=[], phase=None, node=None, missing=True, replicas=None)
            g.add_edge(owner, md.get("uid") or md["name"], controller=bool(ref.get("controller")),
                       block_owner_deletion=bool(ref.get("blockOwnerDeletion")))
    return g


def graph_diff(before: nx.DiGraph, after: nx.DiGraph) -> nx.DiGraph:
    """Merge two ownership graphs, marking what changed: the cascade of a delete, or a scale's new and removed pods.

    Parameters
    ----------
    before, after : networkx.DiGraph
        Two graphs of :func:`ownership_graph` (any graphs: nodes and edges are
        compared by identity, attributes copied).

    Returns
    -------
    networkx.DiGraph
        Every node and edge of both. Node attribute ``change`` is
        ``"deleted"`` (only before), ``"created"`` (only after) or ``""``;
        the attributes are the latest known. Edge attribute ``change`` is
        ``"removed"`` for an ownerReference that is gone while both objects
        remain (the dependent was *orphaned*), ``"deleted"``/``"created"`` with
        its objects, else ``""``.

    Raises
    ------
    TypeError
        When a node of ``before`` or ``after`` already has a ``change``
        attribute (it is passed twice to ``add_node``).

    See Also
    --------
    ownership_graph, kubenotes.viz.controllers.ownership_figure

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem, orphanDependents)

    Examples
    --------
    >>> b = nx.DiGraph([("rs", "p1"), ("rs", "p2")]); a = nx.DiGraph([("rs", "p2")]); a.add_node("p3")
    >>> d = graph_diff(b, a)
    >>> {v: d.nodes[v]["change"] for v in d}, d.edges["rs", "p1"]["change"]
    ({'rs': '', 'p1': 'deleted', 'p2': '', 'p3': 'created'}, 'deleted')
    """
    g = nx.DiGraph()
    for v, d in before.nodes(data=True):
        g.add_node(v, **d, change="" if v in after else "deleted")
    for v, d in after.nodes(data=True):
        if v in g:
            g.nodes[v].update(d)
            g.nodes[v]["change"] = ""
        else:
            g.add_node(v, **d, change="created")
    for u, v, d in before.edges(data=True):
        if after.has_edge(u, v):
            ch = ""
        elif u in after and v in after:
            ch = "removed"
        else:
            ch = "deleted"
        g.add_edge(u, v, **d, change=ch)
    for u, v, d in after.edges(data=True):
        if not g.has_edge(u, v):
            g.add_edge(u, v, **d, change="created")
    return g
