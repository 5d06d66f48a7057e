"""client-go's pieces between the API server and a controller's Reconcile, as data: who feeds whom, and with what.

Two descriptions of the same machinery, as networkx graphs (nothing here runs
it: :mod:`kubenotes.client.informer` and :mod:`kubenotes.client.workqueue` do):

* :func:`informer_graph`: one shared informer up close (Reflector, DeltaFIFO,
  Indexer, event handlers, Lister) and the controller's workqueue and
  Reconcile, named as client-go names the types;
* :func:`reconcile_loop_graph` (:data:`RECONCILE_LOOP`): the loop every
  controller runs, from the API server through its informer and workqueue to
  Reconcile and back to the API server.

:mod:`kubenotes.viz.controlplane` and :mod:`kubenotes.viz.controllers` lay
them out and draw them.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/delta_fifo.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/workqueue/rate_limiting_queue.go
https://github.com/kubernetes/sample-controller/blob/master/docs/controller-client-go.md
"""

from __future__ import annotations

import networkx as nx

__all__ = ["INFORMER_NODES", "INFORMER_EDGES", "informer_graph", "RECONCILE_LOOP", "reconcile_loop_graph"]

#: client-go's pieces between the API server and a controller's Reconcile, as (name, kind): ``server``, the
#: shared ``informer``'s parts, or the ``controller``'s own.
INFORMER_NODES: tuple[tuple[str, str], ...] = (
    ("kube-apiserver", "server"),
    ("Reflector", "informer"),
    ("DeltaFIFO", "informer"),
    ("Indexer", "informer"),
    ("event handlers", "informer"),
    ("Lister", "informer"),
    ("workqueue", "controller"),
    ("Reconcile", "controller"),
)
#: What flows between them, as (from, to, flow).
INFORMER_EDGES: tuple[tuple[str, str, str], ...] = (
    ("kube-apiserver", "Reflector", "LIST, then WATCH"),
    ("Reflector", "DeltaFIFO", "deltas"),
    ("DeltaFIFO", "Indexer", "Pop: store"),
    ("DeltaFIFO", "event handlers", "Pop: notify"),
    ("Indexer", "Lister", "cached objects"),
    ("event handlers", "workqueue", "enqueue key"),
    ("workqueue", "Reconcile", "next key"),
    ("Lister", "Reconcile", "reads (no API call)"),
    ("Reconcile", "kube-apiserver", "writes"),
)


def informer_graph() -> nx.DiGraph:
    """client-go's List-Watch machinery as a graph: API server -> Reflector -> DeltaFIFO -> cache and handlers -> Reconcile.

    Returns
    -------
    networkx.DiGraph
        Nodes named as client-go names the types (``Reflector``,
        ``DeltaFIFO``, ``Indexer``, ``Lister``, the workqueue) with attribute
        ``kind`` (``server``, ``informer``, ``controller``), in the order of
        :data:`INFORMER_NODES`; edges with ``flow``.

    Raises
    ------
    None
        It builds the same graph every time.

    See Also
    --------
    reconcile_loop_graph, kubenotes.viz.controlplane.informer_figure

    Notes
    -----
    One informer per resource is shared by every controller of a process
    (:class:`~kubenotes.client.informer.SharedInformerFactory`); each
    controller has its own handlers, workqueue and workers.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/{reflector.go,delta_fifo.go,shared_informer.go}
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/workqueue/rate_limiting_queue.go
    https://github.com/kubernetes/sample-controller/blob/master/docs/controller-client-go.md

    Examples
    --------
    >>> g = informer_graph()
    >>> nx.shortest_path(g, "kube-apiserver", "workqueue")
    ['kube-apiserver', 'Reflector', 'DeltaFIFO', 'event handlers', 'workqueue']
    >>> g.edges["Lister", "Reconcile"]["flow"], g.nodes["Lister"]["kind"]
    ('reads (no API call)', 'informer')
    """
    g = nx.DiGraph()
    for name, kind in INFORMER_NODES:
        g.add_node(name, kind=kind)
    for a, b, flow in INFORMER_EDGES:
        g.add_edge(a, b, flow=flow)
    return g


#: The loop every controller runs, as (from, to, what travels) in order.
RECONCILE_LOOP: tuple[tuple[str, str, str], ...] = (
    ("kube-apiserver", "Reflector", "LIST, then WATCH from its resourceVersion"),
    ("Reflector", "DeltaFIFO", "Added / Updated / Deleted deltas"),
    ("DeltaFIFO", "Indexer (cache)", "store the object"),
    ("DeltaFIFO", "event handlers", "OnAdd / OnUpdate / OnDelete"),
    ("event handlers", "workqueue", "enqueue key namespace/name"),
    ("workqueue", "Reconcile (syncHandler)", "a worker pops one key"),
    ("Indexer (cache)", "Reconcile (syncHandler)", "Lister: read desired and current state"),
    ("Reconcile (syncHandler)", "kube-apiserver", "create / update / delete, Events"),
)

#: Which side of the loop a node is on; the rest are client-go's.
_LOOP_SIDE = {"kube-apiserver": "server", "Reconcile (syncHandler)": "controller", "event handlers": "controller"}


def reconcile_loop_graph(controller: str = "replicaset-controller", resource: str = "replicasets") -> nx.DiGraph:
    """The informer → workqueue → Reconcile → API loop of one controller as a directed graph.

    Parameters
    ----------
    controller : str
        The controller whose Reconcile it is (``replicaset-controller``...),
        kept as the graph attribute ``controller``.
    resource : str
        What its informer lists and watches (graph attribute ``resource``).

    Returns
    -------
    networkx.DiGraph
        The nodes of :data:`RECONCILE_LOOP` in order of appearance, with
        attribute ``side`` (``server``, ``client-go`` or ``controller``);
        edges carry ``label``.

    Raises
    ------
    None
        Any strings are accepted.

    See Also
    --------
    informer_graph, kubenotes.viz.controllers.reconcile_loop_figure

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go
    kubernetes/kubernetes@v1.34.0 pkg/controller/replicaset/replica_set.go (worker, processNextWorkItem, syncHandler)

    Examples
    --------
    >>> g = reconcile_loop_graph()
    >>> nx.has_path(g, "kube-apiserver", "Reconcile (syncHandler)"), g.has_edge("Reconcile (syncHandler)", "kube-apiserver")
    (True, True)
    >>> g.graph["controller"], g.nodes["DeltaFIFO"]["side"]
    ('replicaset-controller', 'client-go')
    """
    g = nx.DiGraph(controller=controller, resource=resource)
    for a, b, label in RECONCILE_LOOP:
        for v in (a, b):
            if v not in g:
                g.add_node(v, side=_LOOP_SIDE.get(v, "client-go"))
        g.add_edge(a, b, label=label)
    return g
