"""What-if scheduling: run the scheduler on a cluster's manifests, or on one changed pod, and return its traces.

The kube-scheduler-simulator lets a user edit the scheduler's configuration or
a pod and read, from the pod's annotations, every plugin's Filter and Score
result. This module does the same over :mod:`kubenotes.scheduler`: it loads a
configuration (:func:`~kubenotes.scheduler.config.config_with`), changes a
pending pod (:func:`pod_variant`), builds the scheduler on the manifests'
nodes and running pods (:func:`~kubenotes.scheduler.schedule_one.new_scheduler`)
and returns each attempt's trace as the mapping ``python -m kubenotes schedule
-o json`` prints.

Notes
-----
One scheduler per call, with no informers or API server: the cluster is the
manifests as given. The simulator runs the real kube-scheduler against a
kube-apiserver and etcd, and restarts it when its configuration is edited.

References
----------
https://github.com/kubernetes-sigs/kube-scheduler-simulator
kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any, Iterable

from kubenotes.api.quantity import milli_value, value
from kubenotes.scheduler.config import KubeSchedulerConfiguration, as_config_dict, config_with, load_config
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.framework.runtime import Framework
from kubenotes.scheduler.plugins.registry import in_tree_registry
from kubenotes.scheduler.schedule_one import new_scheduler
from kubenotes.scheduler.snapshot import cluster_objects_from_manifests

__all__ = [
    "score_weights",
    "enabled_plugins",
    "pod_variant",
    "taints_of",
    "zones_of",
    "scoring_strategy",
    "variant_requests",
    "schedule_pending",
    "schedule_what_if",
    "compare_placements",
]


def score_weights(config: Any = None) -> dict[str, int]:
    """Score plugin -> weight of the first profile, in the framework's Score order.

    Parameters
    ----------
    config : any, optional
        See :func:`~kubenotes.scheduler.config.as_config_dict`; a loaded configuration is used as is.

    Returns
    -------
    dict[str, int]
        As the framework sees it (a weight of 0 or none counts as 1).

    Raises
    ------
    ConfigError
        When the configuration is invalid (e.g. an unknown plugin name).
    ManifestError
        When ``config`` is a path that cannot be read.
    ValueError
        When a path or Manifests holds no KubeSchedulerConfiguration.
    AttributeError
        When ``config`` is of none of the accepted types (it has no ``to_dict``).

    See Also
    --------
    kubenotes.scheduler.config.config_with, enabled_plugins

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go (scorePluginWeight)
    https://kubernetes.io/docs/reference/scheduling/config/

    Examples
    --------
    >>> w = score_weights()
    >>> w["TaintToleration"], w["NodeResourcesFit"]
    (3, 1)
    """
    cfg = config if isinstance(config, KubeSchedulerConfiguration) else load_config(as_config_dict(config))
    fw = Framework(in_tree_registry(), cfg.profiles[0])
    return dict(fw.score_plugin_weight)


def enabled_plugins(config: Any = None) -> dict[str, list[str]]:
    """Extension point -> enabled plugins of the first profile, in run order (``Framework.list_plugins()``).

    Parameters
    ----------
    config : any, optional
        See :func:`~kubenotes.scheduler.config.as_config_dict`; a loaded configuration is used as is.

    Returns
    -------
    dict[str, list[str]]
        Empty extension points left out.

    Raises
    ------
    ConfigError
        When the configuration is invalid.

    See Also
    --------
    score_weights, kubenotes.scheduler.framework.interface.extension_points_graph

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go (ListPlugins)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/default_plugins.go

    Examples
    --------
    >>> enabled_plugins()["QueueSort"], enabled_plugins()["PostFilter"]
    (['PrioritySort'], ['DynamicResources', 'DefaultPreemption'])
    """
    cfg = config if isinstance(config, KubeSchedulerConfiguration) else load_config(as_config_dict(config))
    return Framework(in_tree_registry(), cfg.profiles[0]).list_plugins()


def pod_variant(
    pod: Any,
    *,
    cpu_milli: int | None = None,
    memory_mib: int | None = None,
    tolerate: Iterable[Mapping[str, str]] = (),
    node_affinity: tuple[str, str, str] | None = None,
) -> Any:
    """A copy of a pending pod with other requests, extra tolerations or a node affinity to a label value.

    Parameters
    ----------
    pod : lightkube Pod
    cpu_milli : int, optional
        New CPU request of the first container, millicores.
    memory_mib : int, optional
        New memory request of the first container, MiB. A memory limit lower
        than the new request is raised to it (the API server rejects
        request > limit).
    tolerate : iterable of mapping
        Taints (``{"key", "value", "effect"}``) to add a toleration for
        (``operator: Equal``, or ``Exists`` when the taint has no value).
    node_affinity : tuple of (str, str, str), optional
        ``("required" | "preferred", label key, value)``: replaces
        ``spec.affinity.nodeAffinity`` with one ``In`` term (preferred: weight 100).

    Returns
    -------
    lightkube Pod
        A new object; ``pod`` is unchanged.

    Raises
    ------
    ValueError
        When the kind of ``node_affinity`` is neither ``"required"`` nor ``"preferred"``.

    See Also
    --------
    schedule_what_if

    Notes
    -----
    The CPU limit is left alone: a request above it shows up as a higher
    request, as if the manifest had been edited without validation.

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> p = pod_variant(make_pod("web", requests={"cpu": "500m"}), cpu_milli=1500,
    ...                 tolerate=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
    ...                 node_affinity=("required", "topology.kubernetes.io/zone", "us-central1-b"))
    >>> p.spec.containers[0].resources.requests["cpu"], p.spec.tolerations[0].operator
    ('1500m', 'Equal')
    >>> p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values
    ['us-central1-b']
    """
    d = pod.to_dict()
    spec = d.setdefault("spec", {})
    c0 = spec["containers"][0]
    res = c0.setdefault("resources", {})
    req = res.setdefault("requests", {})
    if cpu_milli is not None:
        req["cpu"] = f"{int(cpu_milli)}m"
    if memory_mib is not None:
        req["memory"] = f"{int(memory_mib)}Mi"
        lim = res.get("limits") or {}
        if "memory" in lim:
            if value(lim["memory"]) < int(memory_mib) * 1024 * 1024:
                lim["memory"] = f"{int(memory_mib)}Mi"
    tols = list(spec.get("tolerations") or [])
    for t in tolerate:
        tol = {"key": t["key"], "effect": t.get("effect")}
        if t.get("value"):
            tol.update(operator="Equal", value=t["value"])
        else:
            tol["operator"] = "Exists"
        tols.append({k: v for k, v in tol.items() if v is not None})
    if tols:
        spec["tolerations"] = tols
    if node_affinity is not None:
        kind, key, val = node_affinity
        term = {"matchExpressions": [{"key": key, "operator": "In", "values": [val]}]}
        aff = spec.get("affinity") or {}
        if kind == "required":
            aff["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
        elif kind == "preferred":
            aff["nodeAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "preference": term}]}
        else:
            raise ValueError(f"node_affinity kind must be 'required' or 'preferred', not {kind!r}")
        spec["affinity"] = aff
    return type(pod).from_dict(d)


def _cluster_parts(manifests: Any) -> tuple[list[Any], list[Any], Any]:
    return manifests.nodes, manifests.pods, cluster_objects_from_manifests(manifests)


# id(manifests) -> (weak reference, object count, nodes, running PodInfos, ClusterObjects).
# Building PodInfos parses every quantity; a widget re-schedules the same cluster many times.
_RUNNING_CACHE: dict[int, tuple[Any, int, list[Any], list[Any], Any]] = {}


def _running_cluster(manifests: Any) -> tuple[list[Any], list[Any], Any]:
    """Nodes, PodInfos of the running pods and ClusterObjects of ``manifests``, built once per object."""
    hit = _RUNNING_CACHE.get(id(manifests))
    if hit is not None and hit[0]() is manifests and hit[1] == len(manifests):
        return hit[2], hit[3], hit[4]
    nodes, pods, objects = _cluster_parts(manifests)
    running = [PodInfo(p) for p in pods if p.spec is not None and p.spec.nodeName]
    try:
        ref = weakref.ref(manifests)
    except TypeError:  # not weak-referenceable: do not cache
        return nodes, running, objects
    _RUNNING_CACHE[id(manifests)] = (ref, len(manifests), nodes, running, objects)
    return nodes, running, objects


def schedule_pending(manifests: Any, *, config: Any = None, seed: int = 0) -> list[dict[str, Any]]:
    """Run the scheduler over every pending pod of ``manifests``; one trace dict per attempt.

    Parameters
    ----------
    manifests : Manifests
        Nodes, running pods (``spec.nodeName`` set), pending pods and the
        other objects plugins read (PriorityClasses, PDBs, Services ...).
    config : any, optional
        See :func:`~kubenotes.scheduler.config.as_config_dict`; default: the manifests' own
        KubeSchedulerConfiguration if any, else the default one.
    seed : int
        Seed of the scheduler's random source (tie breaks).

    Returns
    -------
    list[dict]
        ``AttemptTrace.to_dict()`` of each attempt, in order, then one record
        per pod still held by a scheduling gate: exactly the ``pods`` of
        ``python -m kubenotes schedule ... -o json``. A pod that preempts
        appears twice (nominated, then bound).

    Raises
    ------
    ConfigError
        When ``config`` (or the manifests' own configuration) is invalid.
    ValueError
        When ``config`` is a path or Manifests with no KubeSchedulerConfiguration.
    AttributeError
        When ``manifests`` is not a :class:`~kubenotes.api.manifests.Manifests`
        (it has no ``nodes``).

    See Also
    --------
    kubenotes.scheduler.schedule_one.new_scheduler, kubenotes.scheduler.cli.run_schedule

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go

    Examples
    --------
    >>> from kubenotes.api.manifests import load_manifests
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ---
    ... apiVersion: v1
    ... kind: Pod
    ... metadata: {name: web}
    ... spec: {containers: [{name: c, image: "nginx:1.27"}]}
    ... ''')
    >>> [(r["name"], r["nodeName"]) for r in schedule_pending(m)]
    [('web', 'n1')]
    """
    if config is None and getattr(manifests, "scheduler_configs", None):
        config = manifests.scheduler_configs[0]
    cfg = config if isinstance(config, KubeSchedulerConfiguration) else load_config(as_config_dict(config))
    nodes, pods, objects = _cluster_parts(manifests)
    sched = new_scheduler(nodes, pods, config=cfg, objects=objects, seed=seed)
    traces = sched.run()
    return [t.to_dict() for t in [*traces, *sched.gated_traces()]]


def schedule_what_if(
    manifests: Any,
    pod: Any,
    *,
    config: Any = None,
    weights: Mapping[str, int] | None = None,
    strategy: str | None = None,
    cpu_milli: int | None = None,
    memory_mib: int | None = None,
    tolerate: Iterable[Mapping[str, str]] = (),
    node_affinity: tuple[str, str, str] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Schedule one pod, changed by :func:`pod_variant`, under :func:`~kubenotes.scheduler.config.config_with`, on the running cluster.

    Parameters
    ----------
    manifests : Manifests
        The cluster: its nodes, its running pods and other objects. Its
        pending pods are ignored.
    pod : lightkube Pod
        The pending pod to try.
    config, weights, strategy
        See :func:`~kubenotes.scheduler.config.config_with`.
    cpu_milli, memory_mib, tolerate, node_affinity
        See :func:`pod_variant`.
    seed : int

    Returns
    -------
    dict
        The trace of the pod's first attempt (CLI JSON record).

    Raises
    ------
    ConfigError
        When the overridden configuration is invalid.

    See Also
    --------
    pod_variant, kubenotes.scheduler.config.config_with, schedule_pending, kubenotes.viz.scheduler.scheduling_panel

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go

    Examples
    --------
    >>> from kubenotes.api.manifests import load_manifests
    >>> from kubenotes.scheduler.testing import make_pod
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ''')
    >>> r = schedule_what_if(m, make_pod("web"), cpu_milli=3000)
    >>> r["nodeName"], r["filter"]["n1"]["NodeResourcesFit"]
    (None, 'Insufficient cpu')
    """
    cfg = config_with(config, weights=weights, strategy=strategy)
    variant = pod_variant(pod, cpu_milli=cpu_milli, memory_mib=memory_mib, tolerate=tolerate, node_affinity=node_affinity)
    nodes, running, objects = _running_cluster(manifests)
    sched = new_scheduler(nodes, [*running, variant], config=cfg, objects=objects, seed=seed)
    return sched.run(max_attempts=1)[0].to_dict()


def taints_of(nodes: Iterable[Any]) -> list[dict[str, str]]:
    """The distinct NoSchedule and NoExecute taints of ``nodes``: what a pod may need to tolerate.

    Parameters
    ----------
    nodes : iterable of lightkube Node

    Returns
    -------
    list[dict[str, str]]
        ``{"key", "value", "effect"}`` per distinct taint (``value`` "" when
        unset), in the order first met; PreferNoSchedule taints are left out,
        as they never filter a node. Each fits ``tolerate`` of
        :func:`pod_variant`.

    Raises
    ------
    AttributeError
        When an item has no ``spec`` (not a Node).

    See Also
    --------
    pod_variant, kubenotes.viz.scheduler.scheduling_panel

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node
    >>> n = make_node("n1", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
    ...                             {"key": "spot", "effect": "PreferNoSchedule"}])
    >>> taints_of([n, n])
    [{'key': 'dedicated', 'value': 'gpu', 'effect': 'NoSchedule'}]
    """
    seen: dict[tuple, dict[str, str]] = {}
    for n in nodes:
        for t in (n.spec.taints if n.spec is not None else None) or ():
            if t.effect in ("NoSchedule", "NoExecute"):
                seen.setdefault((t.key, t.value or "", t.effect), {"key": t.key, "value": t.value or "", "effect": t.effect})
    return list(seen.values())


def zones_of(nodes: Iterable[Any], zone_label: str = "topology.kubernetes.io/zone") -> list[str]:
    """The distinct values of ``zone_label`` on ``nodes``, sorted: the zones a node affinity may name.

    Parameters
    ----------
    nodes : iterable of lightkube Node
    zone_label : str
        The node label read (upstream's well-known ``topology.kubernetes.io/zone`` by default).

    Returns
    -------
    list of str
        Nodes without the label add nothing.

    Raises
    ------
    AttributeError
        When an item has no ``metadata`` (not a Node).

    See Also
    --------
    taints_of, pod_variant

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_node
    >>> zones_of([make_node("b1", labels={"topology.kubernetes.io/zone": "b"}),
    ...           make_node("a1", labels={"topology.kubernetes.io/zone": "a"}), make_node("x")])
    ['a', 'b']
    """
    return sorted({(n.metadata.labels or {}).get(zone_label) for n in nodes} - {None})


def scoring_strategy(config: Any = None) -> str:
    """The ``scoringStrategy.type`` of NodeResourcesFit in the first profile (default ``LeastAllocated``).

    Parameters
    ----------
    config : any, optional
        See :func:`~kubenotes.scheduler.config.as_config_dict`; a loaded configuration is used as is.

    Returns
    -------
    str
        One of :data:`~kubenotes.scheduler.config.SCORING_STRATEGIES`.

    Raises
    ------
    ConfigError
        When ``config`` is invalid.

    See Also
    --------
    score_weights

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesFitArgs)

    Examples
    --------
    >>> scoring_strategy()
    'LeastAllocated'
    """
    cfg = config if isinstance(config, KubeSchedulerConfiguration) else config_with(as_config_dict(config))
    fit_args = cfg.profiles[0].args_for("NodeResourcesFit") or {}
    return (fit_args.get("scoringStrategy") or {}).get("type") or "LeastAllocated"


def variant_requests(pod: Any) -> tuple[int, int]:
    """The first container's CPU (millicores) and memory (MiB) requests, as :func:`pod_variant` takes them.

    Parameters
    ----------
    pod : lightkube Pod

    Returns
    -------
    tuple of (int, int)
        ``(cpu_milli, memory_mib)``; 100 and 200 stand in for a request not written.

    Raises
    ------
    IndexError
        When the pod has no container.

    See Also
    --------
    pod_variant

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> variant_requests(make_pod("web", requests={"cpu": "1500m", "memory": "1Gi"})), variant_requests(make_pod("p"))
    ((1500, 1024), (100, 200))
    """
    c0 = pod.spec.containers[0]
    req = dict((c0.resources.requests if c0.resources is not None else None) or {})
    cpu = milli_value(req["cpu"]) if "cpu" in req else 100
    mem = value(req["memory"]) // (1024 * 1024) if "memory" in req else 200
    return cpu, mem


def compare_placements(runs: Mapping[str, Iterable[Any]], nodes: Iterable[Any] = ()) -> dict[str, Any]:
    """Where each pod went under several scheduler configurations, and how the runs differ.

    Parameters
    ----------
    runs : mapping of str to iterable of AttemptTrace or dict
        Label -> the attempts of ``Scheduler.run()`` (or their ``to_dict()``),
        in order; a pod's last attempt counts.
    nodes : iterable of lightkube Node, optional
        The cluster's nodes, to count those no pod landed on.

    Returns
    -------
    dict
        ``placed``: label -> pod key (``namespace/name``, namespace ``default``
        when unset) -> ``nodeName`` (None: Pending); ``pods``: every pod key,
        in the order first seen; ``summary``: label -> ``{"bound", "nodes_used",
        "nodes_left_empty", "moved"}`` (pods with a node, distinct nodes used,
        nodes of ``nodes`` no pod landed on or None without ``nodes``, pods
        whose node differs from the first run's).

    Raises
    ------
    KeyError
        An attempt has no ``name``.
    AttributeError
        An attempt is neither a mapping nor has ``to_dict()``.

    See Also
    --------
    schedule_pending, kubenotes.viz.replay.schedule_comparison

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (ScheduleOne: one attempt, its node or the failure)

    Examples
    --------
    >>> a = [{"namespace": "ns", "name": "p", "nodeName": "n1"}, {"namespace": "ns", "name": "q", "nodeName": None},
    ...      {"namespace": "ns", "name": "q", "nodeName": "n2"}]
    >>> b = [{"namespace": "ns", "name": "p", "nodeName": "n1"}, {"namespace": "ns", "name": "q", "nodeName": "n1"}]
    >>> c = compare_placements({"default": a, "mine": b})
    >>> c["pods"], c["summary"]["default"], c["summary"]["mine"]
    (['ns/p', 'ns/q'], {'bound': 2, 'nodes_used': 2, 'nodes_left_empty': None, 'moved': 0}, {'bound': 2, 'nodes_used': 1, 'nodes_left_empty': None, 'moved': 1})
    """
    def last(run: Iterable[Any]) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for t in run:
            d = t if isinstance(t, Mapping) else t.to_dict()
            out[f"{d.get('namespace') or 'default'}/{d['name']}"] = d.get("nodeName")
        return out

    placed = {k: last(v) for k, v in runs.items()}
    labels = list(placed)
    keys = list(dict.fromkeys(k for v in placed.values() for k in v))
    first = placed[labels[0]] if labels else {}
    names = {n.metadata.name for n in nodes}
    summary = {}
    for lab in labels:
        got = placed[lab]
        used = {n for n in got.values() if n}
        summary[lab] = {"bound": sum(1 for n in got.values() if n), "nodes_used": len(used),
                        "nodes_left_empty": len(names - used) if names else None,
                        "moved": sum(1 for k in keys if got.get(k) != first.get(k))}
    return {"placed": placed, "pods": keys, "summary": summary}
