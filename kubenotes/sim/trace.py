"""One ``kubectl apply`` through a running cluster: the component graph and the hops the apply caused.

:func:`component_graph` turns a running :class:`~kubenotes.sim.cluster.Cluster`
into a networkx graph of its components (``kubectl``, kube-apiserver's request
path, etcd and the watch cache, every controller of kube-controller-manager,
kube-scheduler, one kubelet per node), and :func:`apply_hops` follows one
apply through it, hop by hop, from the API server's own request traces
(:meth:`~kubenotes.apiserver.server.APIServer.trace_requests`) and its audit
log. Chapter 02.00 draws both with :mod:`kubenotes.viz.controlplane`.

Notes
-----
There is no upstream counterpart: the graph is the architecture drawing of
the Kubernetes documentation ("Kubernetes Components"), built from the
components that actually run, and the hops are what ``kubectl apply -v=8``,
the API server's audit log and each component's ``-v=4`` logs would tell
together. Inside kube-apiserver the stages follow the handler chain
(authentication, authorization, mutating admission, validation, validating
admission, storage); watches are served from the watch cache (the cacher),
which is fed by an etcd watch. Left out: the filters that decide nothing in
this model (API Priority and Fairness, audit, impersonation), decoding and
defaulting between the stages, and the aggregation layer.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go
https://kubernetes.io/docs/concepts/overview/components/
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import networkx as nx

from kubenotes.sim.history import STORAGE_STEP, watch_deliveries

__all__ = [
    "KUBECTL",
    "APISERVER_STAGES",
    "ETCD",
    "WATCH_CACHE",
    "KUBE_SCHEDULER",
    "component_graph",
    "verb_text",
    "apply_hops",
]

#: The client node (``kubectl``, authenticated as the cluster admin).
KUBECTL = "kubectl"
#: kube-apiserver's request path, in the handler chain's order, ending in storage.
APISERVER_STAGES: tuple[str, ...] = ("authentication", "authorization", "mutating admission", "validation",
                                     "validating admission")
#: The storage node: etcd keeps every object under ``/registry/...`` and assigns resourceVersions.
ETCD = "etcd"
#: kube-apiserver's watch cache (the cacher): it watches etcd and serves every client's watch.
WATCH_CACHE = "watch cache"
#: kube-scheduler's node (its component and event source name is ``default-scheduler``).
KUBE_SCHEDULER = "kube-scheduler"

_SCHEDULER_COMPONENT = "default-scheduler"
_READ_VERBS = frozenset({"get", "list", "watch"})


def _controller_names(cluster: Any) -> list[tuple[str, str]]:
    """``(--controllers name, component name)`` of each running controller, in the cluster's order."""
    out = []
    for key, ctrl in getattr(cluster, "controllers", {}).items():
        out.append((key, getattr(ctrl, "name", key)))
    return out


def component_graph(cluster: Any) -> nx.DiGraph:
    """The components of a running cluster as a directed graph, edges labelled with what flows.

    Parameters
    ----------
    cluster : Cluster
        A :class:`~kubenotes.sim.cluster.Cluster` (only its ``controllers``,
        ``scheduler`` and ``kubelets`` are read).

    Returns
    -------
    networkx.DiGraph
        Nodes are upstream names: ``kubectl``; kube-apiserver's stages
        :data:`APISERVER_STAGES` and ``watch cache``; ``etcd``; each controller
        by its ``--controllers`` name (``replicaset-controller``...);
        ``kube-scheduler``; ``kubelet/<node>`` per Node. Node attributes:
        ``kind`` (``client``, ``stage``, ``store``, ``cache``, ``controller``,
        ``scheduler``, ``kubelet``), ``group`` (the process it runs in:
        ``kube-apiserver``, ``kube-controller-manager``, ``kubelet``...),
        ``component`` (the name it writes to the audit log) and ``label``.
        Edge attribute ``flow``: ``write``, ``bind`` and ``status`` (requests
        into ``authentication``), the stage-to-stage hand-overs, ``store``,
        ``events`` (etcd to the watch cache) and ``watch`` (the watch cache to
        each watching component). Insertion order is fixed, so the graph is
        deterministic.

    Raises
    ------
    AttributeError
        When ``cluster.controllers`` is not a mapping (name -> controller).
        Nothing else is required: an object without ``controllers``,
        ``scheduler`` or ``kubelets`` gives just kubectl, kube-apiserver and etcd.

    See Also
    --------
    apply_hops, kubenotes.viz.controlplane.component_figure

    Notes
    -----
    kube-controller-manager and kube-scheduler are single processes upstream,
    each with its own shared informers; the graph draws one ``watch`` edge per
    controller because each one registers its own event handlers.

    References
    ----------
    https://kubernetes.io/docs/concepts/overview/components/
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> c = Cluster.from_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... ''', controllers=["replicaset-controller"])
    >>> g = component_graph(c)
    >>> [v for v in g.successors("watch cache")]
    ['replicaset-controller', 'serviceaccount-controller', 'root-ca-certificate-publisher-controller', 'kube-scheduler', 'kubelet/n1']
    >>> g.edges["kube-scheduler", "authentication"]["flow"], g.nodes["kubelet/n1"]["group"]
    ('bind', 'kubelet')
    """
    g = nx.DiGraph()
    g.add_node(KUBECTL, kind="client", group=KUBECTL, component="kubectl", label="kubectl")
    for s in APISERVER_STAGES:
        g.add_node(s, kind="stage", group="kube-apiserver", component="kube-apiserver", label=s)
    g.add_node(ETCD, kind="store", group=ETCD, component=ETCD, label="etcd")
    g.add_node(WATCH_CACHE, kind="cache", group="kube-apiserver", component="kube-apiserver", label=WATCH_CACHE)
    consumers: list[tuple[str, str]] = []
    for key, component in _controller_names(cluster):
        g.add_node(key, kind="controller", group="kube-controller-manager", component=component, label=key)
        consumers.append((key, "write"))
    if getattr(cluster, "scheduler", None) is not None:
        g.add_node(KUBE_SCHEDULER, kind="scheduler", group=KUBE_SCHEDULER, component=_SCHEDULER_COMPONENT,
                   label="kube-scheduler")
        consumers.append((KUBE_SCHEDULER, "bind"))
    for node in getattr(cluster, "kubelets", {}):
        nid = f"kubelet/{node}"
        g.add_node(nid, kind="kubelet", group="kubelet", component=nid, label=node)
        consumers.append((nid, "status"))

    g.add_edge(KUBECTL, APISERVER_STAGES[0], flow="write")
    hand_over = ("user", "allowed", "object", "valid object", "store")
    chain = [*APISERVER_STAGES, ETCD]
    for (a, b), flow in zip(zip(chain, chain[1:]), hand_over):
        g.add_edge(a, b, flow=flow)
    g.add_edge(ETCD, WATCH_CACHE, flow="events")
    for nid, flow in consumers:
        g.add_edge(nid, APISERVER_STAGES[0], flow=flow)
    for nid, _ in consumers:
        g.add_edge(WATCH_CACHE, nid, flow="watch")
    return g


def _component_nodes(cluster: Any, g: nx.DiGraph) -> tuple[dict[str, str], dict[str, str]]:
    """Audit-log component -> graph node, and graph node -> the watching process's name."""
    node_of: dict[str, str] = {"kubectl": KUBECTL, _SCHEDULER_COMPONENT: KUBE_SCHEDULER}
    process: dict[str, str] = {}
    kcm = getattr(getattr(getattr(cluster, "informers", None), "client", None), "component", "kube-controller-manager")
    sched = getattr(getattr(getattr(cluster, "scheduler_informers", None), "client", None), "component",
                    _SCHEDULER_COMPONENT)
    for v, d in g.nodes(data=True):
        if d.get("kind") == "controller":
            node_of[d.get("component", v)] = v
            node_of[v] = v
            process[v] = kcm
        elif d.get("kind") == "kubelet":
            node_of[v] = v
            process[v] = v
    process[KUBE_SCHEDULER] = sched
    return node_of, process


def verb_text(rec: Mapping[str, Any]) -> str:
    """One request record in a few words: verb, resource and target (``create pods default/web``).

    Parameters
    ----------
    rec : mapping
        A request record of :attr:`APIServer.request_trace
        <kubenotes.apiserver.server.APIServer.request_trace>` (its ``verb``,
        ``resource`` and optional ``name`` and ``namespace`` are read).

    Returns
    -------
    str
        ``"<verb> <resource> <namespace>/<name>"``; without a name, ``"in
        namespace <namespace>"`` stands for the target, and without either the
        target is left out.

    Raises
    ------
    KeyError
        When ``rec`` lacks ``verb`` or ``resource``.

    See Also
    --------
    apply_hops, kubenotes.viz.controlplane.request_trace_table

    Notes
    -----
    Upstream's audit events carry the same fields (``verb`` and ``objectRef``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/apis/audit/types.go

    Examples
    --------
    >>> verb_text({"verb": "create", "resource": "pods", "name": "web", "namespace": "default"})
    'create pods default/web'
    >>> verb_text({"verb": "list", "resource": "nodes"})
    'list nodes'
    """
    res = rec["resource"]
    name = rec.get("name") or ""
    ns = rec.get("namespace") or ""
    target = (f"{ns}/{name}" if ns else name) if name else (f"in namespace {ns}" if ns else "")
    return f"{rec['verb']} {res} {target}".strip()


def apply_hops(cluster: Any, obj: Mapping[str, Any], until_seconds: float, *, graph: nx.DiGraph | None = None,
               status_updates: bool = True) -> list[dict]:
    """Apply ``obj`` with request tracing on, run the clock to ``until_seconds``, and list the hops it caused.

    Parameters
    ----------
    cluster : Cluster
        A running :class:`~kubenotes.sim.cluster.Cluster`; it is changed (the
        object is applied and the clock advanced).
    obj : mapping
        What ``kubectl apply -f`` would send (a Deployment, a ReplicaSet, a Pod...).
    until_seconds : float
        Virtual time to run to (absolute, as :meth:`Cluster.run`).
    graph : networkx.DiGraph, optional
        The component graph hops refer to (default: :func:`component_graph` of ``cluster``).
    status_updates : bool
        Keep the controllers' writes to the status of objects they own
        (``update replicasets/status``...); False keeps only the writes that
        carry the object forward (creates, bindings, the kubelet's pod status).

    Returns
    -------
    list[dict]
        In order, each ``{"step", "time", "from", "to", "what", "request"}``:
        ``step`` counts from 1, ``time`` is virtual seconds, ``from``/``to``
        are nodes of the component graph, ``what`` says what travelled, and
        ``request`` is the index of the request record in
        ``cluster.server.request_trace`` (None for watch hops). ``kubectl``'s
        request is followed stage by stage (authentication, authorization,
        mutating admission, validation, validating admission, etcd); every
        later request is two hops (component -> authentication,
        authentication -> etcd); each component's reaction starts with a
        watch hop etcd -> component (through the watch cache) naming the
        event that woke it.

    Raises
    ------
    ApiError
        When the apply itself is refused (403, 422...): nothing is stored and there is nothing to follow.

    See Also
    --------
    component_graph, kubenotes.viz.controlplane.hops_table, kubenotes.viz.controlplane.hops_figure

    Notes
    -----
    The hops are derived, not guessed: every request record of the trace
    names its user, verb, object and the watchers its event was queued for;
    the audit log gives each created object's controller owner. A write
    belongs to the apply when it touches the applied object or an object
    created, directly or transitively, with an owner reference to it. Its
    trigger (the watch hop) is the latest earlier write by another component,
    delivered to the writing process, of the same object, of one of its
    children, or (for a create) of its owner; a component's further writes
    with the same trigger share one watch hop.
    Events (``kind: Event``) and failed requests are left out.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/config.go (DefaultBuildHandlerChain)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go
    https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> c = Cluster.from_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    ... ''', controllers=[])
    >>> c.run(until=1)  # the components list and start watching
    >>> pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
    ...        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}
    >>> hops = apply_hops(c, pod, until_seconds=5)
    >>> [(h["from"], h["to"]) for h in hops][6:9]
    [('etcd', 'kube-scheduler'), ('kube-scheduler', 'authentication'), ('authentication', 'etcd')]
    >>> hops[7]["what"], hops[-3]["what"].split(" (")[0]
    ('create pods/binding default/web (node=n1)', 'watch: ADDED Pod default/web')
    """
    from kubenotes.apiserver.resources import resource_for_kind

    g = graph if graph is not None else component_graph(cluster)
    server = cluster.server
    was_on = server.request_trace is not None
    trace = server.trace_requests(True)
    start = len(trace)
    audit_start = len(cluster.audit_log)
    try:
        cluster.apply(dict(obj))
        cluster.run(until=until_seconds)
    finally:
        if not was_on:
            server.trace_requests(False)
    audit = {e.resource_version: e for e in cluster.audit_log[audit_start:]}
    node_of, process = _component_nodes(cluster, g)

    ri = resource_for_kind(obj.get("kind", ""), obj.get("apiVersion"))
    md = obj.get("metadata") or {}
    root = (ri.kind, (md.get("namespace") or "default") if ri.namespaced else "", md.get("name", ""))
    related: set[tuple[str, str, str]] = {root}
    owner: dict[tuple, tuple] = {}

    writes: list[dict] = []  # committed, related writes in order
    for idx in range(start, len(trace)):
        rec = trace[idx]
        if rec["verb"] in _READ_VERBS or rec.get("code") != 200:
            continue
        storage = next((s for s in rec["steps"] if s["step"] == "storage"), None)
        if storage is None:
            continue
        m = STORAGE_STEP.match(storage["detail"])
        if m is None:
            continue
        entry = audit.get(m.group(3))
        if entry is None or entry.kind == "Event":
            continue
        key = (entry.kind, entry.namespace, entry.name)
        if key not in related:
            ok = False
            if entry.verb == "create" and entry.detail.startswith("owner="):
                okind, _, oname = entry.detail[len("owner="):].partition("/")
                parent = (okind, entry.namespace, oname)
                if parent in related:
                    owner[key] = parent
                    related.add(key)
                    ok = True
            if not ok:
                continue
        comp = node_of.get(rec["component"], rec["component"] if rec["component"] in g else None)
        if comp is None:
            continue
        watch = next((s for s in rec["steps"] if s["step"] == "watch"), None)
        if not status_updates and rec["resource"].endswith("/status") and comp in process and \
                g.nodes[comp].get("kind") == "controller":
            continue
        writes.append({"index": idx, "rec": rec, "node": comp, "key": key, "event": m.group(1), "rv": m.group(3),
                       "etcd_key": m.group(2), "entry": entry,
                       "delivered": watch_deliveries(watch["detail"]) if watch else {}})

    hops: list[dict] = []

    def hop(t: float, a: str, b: str, what: str, request: int | None) -> None:
        hops.append({"step": len(hops) + 1, "time": float(t), "from": a, "to": b, "what": what, "request": request})

    last_trigger: dict[str, int] = {}  # node -> position in `writes` of the event that last woke it
    for pos_i, w in enumerate(writes):
        rec, node, key = w["rec"], w["node"], w["key"]
        steps = rec["steps"]
        if node == KUBECTL or node not in process:
            # the user's own request: every stage of the handler chain
            hop(rec["time"], node, APISERVER_STAGES[0], f"{verb_text(rec)} (as {rec['user']})", w["index"])
            by = {s["step"]: s["detail"] for s in steps}
            mut = [s["step"].split(": ", 1)[1] for s in steps if s["step"].startswith("mutating admission: ")]
            changed = [s["step"].split(": ", 1)[1] for s in steps if s["step"].startswith("mutating admission: ")
                       and s["detail"] == "changed the object"]
            val = [s["step"].split(": ", 1)[1] for s in steps if s["step"].startswith("validating admission: ")]
            hop(rec["time"], "authentication", "authorization", f"authenticated: {by.get('authentication', '')}",
                w["index"])
            hop(rec["time"], "authorization", "mutating admission",
                f"authorized: {by.get('authorization', 'AlwaysAllow').rstrip(': ')}", w["index"])
            hop(rec["time"], "mutating admission", "validation",
                "mutating admission: " + (", ".join(mut) + " ran; " + (", ".join(changed) + " changed the object"
                                                                       if changed else "none changed the object")
                                          if mut else "no plugin enabled"), w["index"])
            hop(rec["time"], "validation", "validating admission",
                f"validation: {by.get('validation', 'not enabled')}", w["index"])
            hop(rec["time"], "validating admission", ETCD,
                "validating admission: " + (", ".join(val) + " admitted" if val else "no plugin enabled")
                + f"; stored {w['etcd_key']} at resourceVersion {w['rv']}", w["index"])
            continue
        proc = process[node]
        parent = owner.get(key)
        trigger = None
        for j in range(pos_i - 1, -1, -1):
            p = writes[j]
            if proc not in p["delivered"] or p["node"] == node:
                continue
            creates_child = w["entry"].verb == "create" and p["key"] == parent
            if p["key"] == key or creates_child or owner.get(p["key"]) == key:
                trigger = j
                break
        if trigger is not None and trigger != last_trigger.get(node):
            p = writes[trigger]
            kind, ns, name = p["key"]
            when = "" if p["rec"]["time"] == rec["time"] else f", delivered at t={p['rec']['time']:g} s"
            hop(rec["time"], ETCD, node, f"watch: {p['delivered'][proc]} {kind} {ns + '/' if ns else ''}{name} "
                                         f"(resourceVersion {p['rv']}{when})", None)
            last_trigger[node] = trigger
        detail = w["entry"].detail
        hop(rec["time"], node, APISERVER_STAGES[0],
            f"{verb_text(rec)}" + (f" ({detail})" if detail else ""), w["index"])
        authz = next((s["detail"] for s in steps if s["step"] == "authorization"), "AlwaysAllow")
        hop(rec["time"], APISERVER_STAGES[0], ETCD,
            f"as {rec['user']}: {authz.split(':', 1)[0]}; {w['event']} {w['etcd_key']} at resourceVersion {w['rv']}",
            w["index"])
    return hops
