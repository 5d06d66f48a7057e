"""Chapter 03.01's scenarios: the other controllers, run from ``data/controllers/*.yaml`` with a widget's parameters.

Each function loads one ``kind: Scenario`` file (which ``python -m kubenotes
simulate FILE`` runs unchanged), sets the fields a widget moves, runs a
:class:`~kubenotes.sim.cluster.Cluster` (stand-in kubelets, every
controller but in :func:`simulate_hpa`, RBAC on) and returns the run; the queries below read the API
server's history of a run as plain values:

* :func:`simulate_namespace_deletion` (``namespace-deletion.yaml``): the
  namespace controller empties a Terminating namespace;
* :func:`simulate_service_accounts` (``serviceaccounts.yaml``): the
  ServiceAccount, token and root CA publisher controllers;
* :func:`simulate_node_ipam` (``node-ipam.yaml``): pod CIDRs per node and
  ``CIDRNotAvailable``;
* :func:`simulate_daemonset` (``daemonset.yaml``): one pod per eligible node, a
  rolling update;
* :func:`simulate_statefulset` (``statefulset.yaml``): ordinal names,
  ``OrderedReady`` vs ``Parallel``;
* :func:`simulate_hpa` (``hpa.yaml``): the replica formula, the tolerance,
  the scale-down stabilization;
* :func:`simulate_cronjob` (``cronjob.yaml``): schedule, ``concurrencyPolicy``,
  missed starts;
* :func:`lifelines`, :func:`replica_series`, :func:`node_cidrs` and
  :func:`controller_writes_graph` read the runs.

Runs are deterministic and memoised, as in :mod:`kubenotes.sim.scenarios`; a
returned run is shared, so treat it as read-only.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/deletion/namespaced_resources_deleter.go
kubernetes/kubernetes@v1.34.0 pkg/controller/serviceaccount/serviceaccounts_controller.go, tokens_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/nodeipam/ipam/range_allocator.go
kubernetes/kubernetes@v1.34.0 pkg/controller/daemon/daemon_controller.go, update.go
kubernetes/kubernetes@v1.34.0 pkg/controller/statefulset/stateful_set_control.go
kubernetes/kubernetes@v1.34.0 pkg/controller/podautoscaler/horizontal.go, replica_calculator.go
kubernetes/kubernetes@v1.34.0 pkg/controller/cronjob/cronjob_controllerv2.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cloud-provider/app/controllermanager.go (the cloud-controller-manager)
"""

from __future__ import annotations

import copy
import functools
import ipaddress
from typing import Any, NamedTuple

import networkx as nx

from kubenotes.gcpolicy import fewer_gc_passes
from kubenotes.sim.history import object_history
from kubenotes.sim.scenario import Step
from kubenotes.sim.scenarios import ScenarioRun, load_scenario_file

__all__ = [
    "NAMESPACE_FILE", "SERVICEACCOUNTS_FILE", "NODE_IPAM_FILE", "DAEMONSET_FILE", "STATEFULSET_FILE", "HPA_FILE",
    "CRONJOB_FILE", "HPA_REQUEST_MILLI_CPU", "HPA_CONTROLLERS", "CCM_CONTROLLERS", "INVALID_CLUSTER_CIDR_MESSAGE",
    "simulate_namespace_deletion", "simulate_service_accounts", "simulate_node_ipam", "simulate_daemonset",
    "simulate_statefulset", "simulate_hpa", "simulate_cronjob",
    "lifelines", "lifeline_phases", "Lifeline", "replica_series", "metric_series", "namespace_conditions", "node_cidrs",
    "cidr_capacity",
    "controller_writes_graph", "hpa_recommendations",
]

NAMESPACE_FILE = "controllers/namespace-deletion.yaml"
SERVICEACCOUNTS_FILE = "controllers/serviceaccounts.yaml"
NODE_IPAM_FILE = "controllers/node-ipam.yaml"
DAEMONSET_FILE = "controllers/daemonset.yaml"
STATEFULSET_FILE = "controllers/statefulset.yaml"
HPA_FILE = "controllers/hpa.yaml"
CRONJOB_FILE = "controllers/cronjob.yaml"
#: kube-controller-manager's error when the node mask is shorter than the cluster CIDR's prefix (``node_ipam_controller.go``).
INVALID_CLUSTER_CIDR_MESSAGE = ("Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal "
                                "to --node-cidr-mask-size configured for CIDR family")
#: Each ``web`` pod's CPU request in ``hpa.yaml`` (millicores).
HPA_REQUEST_MILLI_CPU = 200
#: The controllers :func:`simulate_hpa` runs (``--controllers``): the HPA and the two it scales through. The
#: others have nothing to do with its objects (the same replicas, metric and Events; checked in the tests) and took
#: a third of each run (a learner's every new slider position).
HPA_CONTROLLERS = ("deployment-controller", "replicaset-controller", "horizontal-pod-autoscaler-controller")

#: The cloud-controller-manager's controllers (``--controllers`` names of
#: ``k8s.io/cloud-provider/names``) -> (the kind it writes, what it does). None runs in the model: it has no cloud.
CCM_CONTROLLERS: dict[str, tuple[str, str]] = {
    "cloud-node-controller": ("Node", "addresses, providerID, zone and instance-type labels; removes the "
                                      "node.cloudprovider.kubernetes.io/uninitialized taint"),
    "cloud-node-lifecycle-controller": ("Node", "deletes a Node whose machine is gone; taints a shut-down one "
                                                "node.cloudprovider.kubernetes.io/shutdown"),
    "node-route-controller": ("Node", "a cloud route per node's podCIDR; the NetworkUnavailable condition"),
    "service-lb-controller": ("Service", "a cloud load balancer per type: LoadBalancer Service; "
                                         "status.loadBalancer.ingress"),
}


def _find(objects: list[dict], kind: str, name: str | None = None) -> dict:
    return next(o for o in objects if o.get("kind") == kind and (name is None or o["metadata"]["name"] == name))


def _run(objects: list[dict], scenario: Any, seed: int, until: float, **cluster: Any) -> Any:
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.scenario import Scenario, cluster_options, start_scenario

    scenario = Scenario(scenario.name, tuple(scenario.steps), {**scenario.cluster, **cluster})
    with fewer_gc_passes():  # building the cluster allocates as much as a short run (see Cluster.run)
        c = Cluster(objects, seed=seed, **cluster_options([scenario]))
        start_scenario(c, scenario)
    c.run(until=until)
    return c


# --------------------------------------------------------------------------- namespace deletion
@functools.lru_cache(maxsize=32)
def simulate_namespace_deletion(finalizer_removed_at_seconds: int = 80, grace_period_seconds: int = 30, *,
                                at_seconds: float = 20.0, run_seconds: float = 140.0, seed: int = 0) -> ScenarioRun:
    """``namespace-deletion.yaml``: ``kubectl delete namespace shop`` at ``at_seconds``.

    Parameters
    ----------
    finalizer_removed_at_seconds : int
        When the finalizer ``example.com/backup`` of the ConfigMap ``orders-lock`` is
        removed (virtual seconds); 0: the ConfigMap has no finalizer at all.
    grace_period_seconds : int
        The pods' ``terminationGracePeriodSeconds``: how long the controller assumes pods take to go.
    at_seconds, run_seconds : float
        When the namespace is deleted; how long the run lasts in all.
    seed : int

    Returns
    -------
    ScenarioRun
        ``name`` is the namespace (``shop``).

    Notes
    -----
    The stand-in kubelets remove a deleted pod after 1 s whatever its grace
    period; the grace period still sets how long the namespace controller
    waits before it looks again (``estimate / 2 + 1`` s).

    Examples
    --------
    >>> run = simulate_namespace_deletion(0)
    >>> run.cluster.get("namespaces", "shop") is None
    True
    """
    objects, scenario = load_scenario_file(NAMESPACE_FILE)
    _find(objects, "Deployment", "web")["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = \
        int(grace_period_seconds)
    delete, release = scenario.steps
    steps = [Step(float(at_seconds), delete.action, delete.args)]
    if finalizer_removed_at_seconds:
        steps.append(Step(float(max(finalizer_removed_at_seconds, at_seconds)), release.action, release.args))
    else:
        _find(objects, "ConfigMap", "orders-lock")["metadata"].pop("finalizers", None)
    scenario = type(scenario)(scenario.name, tuple(steps), scenario.cluster)
    c = _run(objects, scenario, seed, max(run_seconds, at_seconds + 20))
    return ScenarioRun(c, "shop", "shop", float(at_seconds))


# --------------------------------------------------------------------------- service accounts
@functools.lru_cache(maxsize=8)
def simulate_service_accounts(secret_for: str = "build-robot", *, run_seconds: float = 80.0,
                              seed: int = 0) -> ScenarioRun:
    """``serviceaccounts.yaml``: a new namespace, its ``default`` ServiceAccount, a legacy token Secret.

    Parameters
    ----------
    secret_for : str
        The ServiceAccount the Secret ``build-robot-token`` names in its
        ``kubernetes.io/service-account.name`` annotation (``build-robot`` exists
        from t = 30 s; any other name does not exist).
    run_seconds : float
    seed : int

    Returns
    -------
    ScenarioRun
        ``name`` is the namespace (``team-b``).

    Examples
    --------
    >>> run = simulate_service_accounts("ghost")
    >>> run.cluster.get("secrets", "build-robot-token", "team-b") is None
    True
    """
    objects, scenario = load_scenario_file(SERVICEACCOUNTS_FILE)
    steps = []
    for st in scenario.steps:
        if st.action == "apply" and st.args.get("kind") == "Secret":
            obj = copy.deepcopy(st.args)
            obj["metadata"]["annotations"]["kubernetes.io/service-account.name"] = secret_for
            st = Step(st.at_seconds, st.action, obj)
        steps.append(st)
    scenario = type(scenario)(scenario.name, tuple(steps), scenario.cluster)
    c = _run(objects, scenario, seed, run_seconds)
    return ScenarioRun(c, "team-b", "team-b", 10.0)


# --------------------------------------------------------------------------- node IPAM
def cidr_capacity(cluster_cidr: str, node_cidr_mask_size: int) -> int:
    """How many node blocks of ``/node_cidr_mask_size`` a cluster CIDR holds: ``2 ** (mask - prefix)``.

    Parameters
    ----------
    cluster_cidr : str
        ``--cluster-cidr``.
    node_cidr_mask_size : int
        ``--node-cidr-mask-size``.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        When the node mask is shorter than the cluster CIDR's prefix, or the CIDR is malformed.

    Examples
    --------
    >>> cidr_capacity("10.244.0.0/16", 24), cidr_capacity("10.244.0.0/22", 24)
    (256, 4)
    """
    net = ipaddress.ip_network(cluster_cidr, strict=False)
    if node_cidr_mask_size < net.prefixlen:
        raise ValueError(f"--node-cidr-mask-size {node_cidr_mask_size} is shorter than the cluster CIDR's prefix "
                         f"/{net.prefixlen}")
    return 1 << (node_cidr_mask_size - net.prefixlen)


@functools.lru_cache(maxsize=64)
def simulate_node_ipam(cluster_prefix: int = 22, node_cidr_mask_size: int = 24, nodes: int = 5, *,
                       seed: int = 0) -> ScenarioRun:
    """``node-ipam.yaml`` with ``--cluster-cidr=10.244.0.0/<cluster_prefix>`` and ``nodes`` nodes.

    Parameters
    ----------
    cluster_prefix : int
        The prefix length of ``--cluster-cidr`` (10.244.0.0/``cluster_prefix``).
    node_cidr_mask_size : int
        ``--node-cidr-mask-size``; must not be below ``cluster_prefix``.
    nodes : int
        1 to 5: the first three exist at t = 0, worker-4 joins at t = 30 s, worker-5 at t = 40 s.
    seed : int

    Returns
    -------
    ScenarioRun
        ``error`` holds kube-controller-manager's message (:data:`INVALID_CLUSTER_CIDR_MESSAGE`) when the
        mask is shorter than the prefix; then nothing runs, as upstream does not start the controller.

    Examples
    --------
    >>> run = simulate_node_ipam(22, 24, 5)
    >>> sorted(n for n, c in node_cidrs(run).items() if c is None)
    ['worker-5']
    """
    objects, scenario = load_scenario_file(NODE_IPAM_FILE)
    cidr = f"10.244.0.0/{int(cluster_prefix)}"
    try:
        cidr_capacity(cidr, int(node_cidr_mask_size))
    except ValueError:
        return ScenarioRun(None, "", "", 0.0, INVALID_CLUSTER_CIDR_MESSAGE)
    node_objs = [o for o in objects if o.get("kind") == "Node"]
    n = max(1, min(int(nodes), len(node_objs) + len(scenario.steps)))
    objs = node_objs[:n] + [o for o in objects if o.get("kind") != "Node"]
    steps = list(scenario.steps)[:max(0, n - len(node_objs))]
    flags = {**scenario.cluster.get("controllerManager", {}), "cluster-cidr": cidr,
             "node-cidr-mask-size": int(node_cidr_mask_size)}
    scenario = type(scenario)(scenario.name, tuple(steps), scenario.cluster)
    c = _run(objs, scenario, seed, 60.0, controllerManager=flags)
    return ScenarioRun(c, "", cidr, 30.0)


def node_cidrs(run: ScenarioRun) -> dict[str, str | None]:
    """Each node's ``spec.podCIDR`` at the end of a run (None: none was given).

    Parameters
    ----------
    run : ScenarioRun
        From :func:`simulate_node_ipam`.

    Returns
    -------
    dict[str, str or None]
        Node name -> pod CIDR, by name; empty for a refused run.

    Raises
    ------
    AttributeError
        For an argument that is not a run.

    Examples
    --------
    >>> node_cidrs(simulate_node_ipam(24, 25, 2))
    {'worker-1': '10.244.0.0/25', 'worker-2': '10.244.0.128/25'}
    """
    if run.cluster is None:
        return {}
    return {n["metadata"]["name"]: (n.get("spec") or {}).get("podCIDR")
            for n in sorted(run.cluster.list("nodes"), key=lambda n: n["metadata"]["name"])}


# --------------------------------------------------------------------------- DaemonSet
@functools.lru_cache(maxsize=32)
def simulate_daemonset(max_unavailable: int = 1, tolerate_control_plane: bool = False, *, max_surge: int = 0,
                       seed: int = 0) -> ScenarioRun:
    """``daemonset.yaml``: the DaemonSet ``node-agent``, an image change at t = 30 s, a taint removed at t = 60 s.

    Parameters
    ----------
    max_unavailable, max_surge : int
        ``spec.updateStrategy.rollingUpdate``; both 0 is refused by the API server (``error``).
    tolerate_control_plane : bool
        Add a toleration of ``node-role.kubernetes.io/control-plane:NoSchedule``.
    seed : int

    Returns
    -------
    ScenarioRun
        ``at_seconds`` is the image change.

    Examples
    --------
    >>> run = simulate_daemonset(1, True)
    >>> sorted(p["spec"]["nodeName"] for p in run.cluster.list("pods", "kube-system"))
    ['control-plane-1', 'worker-1', 'worker-2', 'worker-3']
    """
    from kubenotes.apiserver.status import ApiError

    objects, scenario = load_scenario_file(DAEMONSET_FILE)
    ds = _find(objects, "DaemonSet", "node-agent")
    ds["spec"]["updateStrategy"]["rollingUpdate"] = {"maxUnavailable": int(max_unavailable),
                                                      "maxSurge": int(max_surge)}
    if tolerate_control_plane:
        ds["spec"]["template"]["spec"]["tolerations"] = [
            {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"}]
    try:
        c = _run(objects, scenario, seed, 90.0)
    except ApiError as e:
        return ScenarioRun(None, "kube-system", "node-agent", 30.0, str(e))
    return ScenarioRun(c, "kube-system", "node-agent", 30.0)


# --------------------------------------------------------------------------- StatefulSet
@functools.lru_cache(maxsize=32)
def simulate_statefulset(pod_management_policy: str = "OrderedReady", scale_up_to: int = 5, scale_down_to: int = 2, *,
                         seed: int = 0) -> ScenarioRun:
    """``statefulset.yaml``: the StatefulSet ``db`` (3 replicas), scaled at t = 40 s and again at t = 70 s.

    Parameters
    ----------
    pod_management_policy : {"OrderedReady", "Parallel"}
    scale_up_to, scale_down_to : int
        The two ``kubectl scale`` targets.
    seed : int

    Returns
    -------
    ScenarioRun

    Examples
    --------
    >>> run = simulate_statefulset("Parallel", 4, 1)
    >>> sorted(p["metadata"]["name"] for p in run.cluster.list("pods", "default"))
    ['db-0']
    """
    objects, scenario = load_scenario_file(STATEFULSET_FILE)
    _find(objects, "StatefulSet", "db")["spec"]["podManagementPolicy"] = pod_management_policy
    up, down = scenario.steps
    steps = (Step(up.at_seconds, up.action, {**up.args, "replicas": int(scale_up_to)}),
             Step(down.at_seconds, down.action, {**down.args, "replicas": int(scale_down_to)}))
    scenario = type(scenario)(scenario.name, steps, scenario.cluster)
    c = _run(objects, scenario, seed, 100.0)
    return ScenarioRun(c, "default", "db", up.at_seconds)


# --------------------------------------------------------------------------- HPA
def _load_follower(cluster: Any, namespace: str, hpa: str, deployment: str, loads: tuple[tuple[float, int], ...],
                   request_milli_cpu: int, every_seconds: float) -> Any:
    """A SimPy process: the HPA's metric is the load spread over the Deployment's ready pods, in % of their request."""
    from kubenotes.sim.scenario import run_step

    env = cluster.env
    while True:
        now = float(env.now)
        load = 0
        for t, milli in loads:
            if now >= t:
                load = milli
        dep = cluster.get("deployments", deployment, namespace) or {}
        ready = int((dep.get("status") or {}).get("readyReplicas") or 0)
        if ready:
            value = round(100.0 * load / (ready * request_milli_cpu))
            if cluster.metrics.get((namespace, hpa)) != value:  # logged as a scenario's metric step is
                run_step(cluster, Step(now, "metric", {"kind": "HorizontalPodAutoscaler", "namespace": namespace,
                                                       "name": hpa, "value": value}))
        yield env.timeout(every_seconds)


@functools.lru_cache(maxsize=64)
def simulate_hpa(high_load_milli_cpu: int = 1000, target_utilization: int = 80,
                 downscale_stabilization_seconds: int = 300, *, low_load_milli_cpu: int = 200,
                 high_from_seconds: float = 20.0, low_from_seconds: float = 200.0, run_seconds: float = 600.0,
                 seed: int = 0) -> ScenarioRun:
    """``hpa.yaml`` with the metric following a CPU load: ``high_load`` from t = 20 s, ``low_load`` from t = 200 s.

    Every 5 s the metric the HPA reads is set to ``100 * load / (ready pods *
    200m)``: the same load spread over more pods is a lower utilization, as
    metrics-server would report it. Before t = 20 s the load is 300m.

    Parameters
    ----------
    high_load_milli_cpu, low_load_milli_cpu : int
        Total CPU used by the Deployment's pods, millicores.
    target_utilization : int
        ``averageUtilization`` of the HPA's CPU metric (percent of the request).
    downscale_stabilization_seconds : int
        ``--horizontal-pod-autoscaler-downscale-stabilization``.
    high_from_seconds, low_from_seconds, run_seconds : float
    seed : int

    Returns
    -------
    ScenarioRun
        ``name`` is the HPA (and the Deployment), ``at_seconds`` when the load drops.

    Notes
    -----
    The file's own ``metric`` steps are replaced by the load-following
    process; ``simulate data/controllers/hpa.yaml`` replays the values this
    function produces for its defaults. Only :data:`HPA_CONTROLLERS` run
    (``kube-controller-manager --controllers``): the replicas, the metric
    and the HPA's Events are those of a run with every controller.

    Examples
    --------
    >>> run = simulate_hpa(1000, 80, 300, run_seconds=100)
    >>> run.cluster.get("deployments", "web", "default")["spec"]["replicas"]
    7
    """
    objects, scenario = load_scenario_file(HPA_FILE)
    hpa = _find(objects, "HorizontalPodAutoscaler", "web")
    hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] = int(target_utilization)
    flags = {**scenario.cluster.get("controllerManager", {}),
             "horizontal-pod-autoscaler-downscale-stabilization": int(downscale_stabilization_seconds)}
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.scenario import Scenario, cluster_options, start_scenario

    sc = Scenario(scenario.name, (), {**scenario.cluster, "controllerManager": flags,
                                      "controllers": list(HPA_CONTROLLERS)})
    with fewer_gc_passes():
        c = Cluster(objects, seed=seed, **cluster_options([sc]))
        start_scenario(c, sc)
    loads = ((0.0, 300), (float(high_from_seconds), int(high_load_milli_cpu)),
             (float(low_from_seconds), int(low_load_milli_cpu)))
    c.env.process(_load_follower(c, "default", "web", "web", loads, HPA_REQUEST_MILLI_CPU, 5.0))
    c.run(until=run_seconds)
    return ScenarioRun(c, "default", "web", float(low_from_seconds))


# --------------------------------------------------------------------------- CronJob
@functools.lru_cache(maxsize=64)
def simulate_cronjob(concurrency_policy: str = "Forbid", job_run_seconds: int = 90,
                     starting_deadline_seconds: int = 0, *, seed: int = 0) -> ScenarioRun:
    """``cronjob.yaml``: the CronJob ``report`` every minute, suspended from t = 200 s to t = 430 s.

    Parameters
    ----------
    concurrency_policy : {"Allow", "Forbid", "Replace"}
    job_run_seconds : int
        How long each Job's container runs (annotation ``kubenotes.io/run-seconds``).
    starting_deadline_seconds : int
        ``spec.startingDeadlineSeconds``; 0: not set.
    seed : int

    Returns
    -------
    ScenarioRun
        ``at_seconds`` is when ``suspend`` goes back to false.

    Examples
    --------
    >>> run = simulate_cronjob("Allow", 30)
    >>> len(run.cluster.list("jobs", "default")) <= 4   # successfulJobsHistoryLimit 3 (+1 running)
    True
    """
    objects, scenario = load_scenario_file(CRONJOB_FILE)
    cj = _find(objects, "CronJob", "report")
    cj["spec"]["concurrencyPolicy"] = concurrency_policy
    if starting_deadline_seconds:
        cj["spec"]["startingDeadlineSeconds"] = int(starting_deadline_seconds)
    tpl = cj["spec"]["jobTemplate"]["spec"]["template"]
    tpl["metadata"]["annotations"]["kubenotes.io/run-seconds"] = str(int(job_run_seconds))
    tpl["spec"]["containers"][0]["command"] = ["sh", "-c", f"sleep {int(job_run_seconds)}"]
    c = _run(objects, scenario, seed, 600.0)
    return ScenarioRun(c, "default", "report", scenario.steps[-1].at_seconds)


# --------------------------------------------------------------------------- queries
class Lifeline(NamedTuple):
    """One object's life in a run, in virtual seconds (None: did not happen in the run).

    Attributes
    ----------
    kind, name : str
    created : float
    deleting : float or None
        When it got a ``deletionTimestamp`` (or was deleted outright).
    gone : float or None
        When the API server removed it.
    node : str or None
        A pod's ``spec.nodeName``.
    ready : float or None
        A pod's first ``Ready=True`` condition.
    finished : float or None
        A pod's ``Succeeded``/``Failed`` phase, or a Job's ``Complete``/``Failed`` condition.

    Parameters
    ----------
    kind, name, created, deleting, gone, node, ready, finished
        The attributes above, in that order.

    Returns
    -------
    Lifeline
        A named tuple.

    Raises
    ------
    TypeError
        When a required field is missing.

    Examples
    --------
    >>> Lifeline("Pod", "db-0", 0.0, None, None, "worker-1", 5.0).ready
    5.0
    """

    kind: str
    name: str
    created: float
    deleting: float | None
    gone: float | None
    node: str | None = None
    ready: float | None = None
    finished: float | None = None


def _condition_true(obj: dict, types: tuple[str, ...]) -> bool:
    return any(c.get("type") in types and c.get("status") == "True"
               for c in (obj.get("status") or {}).get("conditions") or [])


def lifelines(run: ScenarioRun, resources: tuple[str, ...], namespace: str | None = None) -> list[Lifeline]:
    """Each object's creation, ``deletionTimestamp`` and removal in a run, from the API server's history.

    Parameters
    ----------
    run : ScenarioRun
    resources : tuple of str
        Resource names (``pods``, ``jobs``, ``configmaps``...).
    namespace : str, optional
        Default: the run's namespace.

    Returns
    -------
    list of Lifeline
        In order of creation (then kind, name). ``node`` is a pod's ``spec.nodeName`` when it had one.

    Raises
    ------
    KeyError
        For a resource name the API does not serve.

    Examples
    --------
    >>> rows = lifelines(simulate_statefulset(), ("pods",))
    >>> [r.name for r in rows][:3]
    ['db-0', 'db-1', 'db-2']
    """
    ns = run.namespace if namespace is None else namespace
    out: list[Lifeline] = []
    for res in resources:
        seen: dict[str, dict[str, Any]] = {}
        for rev in object_history(run.cluster, res, ns or None):
            md = rev.object["metadata"]
            key = md.get("uid") or md["name"]
            rec = seen.setdefault(key, {"kind": rev.object.get("kind", res), "name": md["name"], "created": rev.time,
                                        "deleting": None, "gone": None, "node": None, "ready": None,
                                        "finished": None})
            node = (rev.object.get("spec") or {}).get("nodeName")
            if node:
                rec["node"] = node
            if rec["ready"] is None and rec["kind"] == "Pod" and _condition_true(rev.object, ("Ready",)):
                rec["ready"] = rev.time
            if rec["finished"] is None and rev.type != "DELETED" and (
                    (rev.object.get("status") or {}).get("phase") in ("Succeeded", "Failed")
                    or (rec["kind"] == "Job" and _condition_true(rev.object, ("Complete", "Failed")))):
                rec["finished"] = rev.time
            if md.get("deletionTimestamp") and rec["deleting"] is None:
                rec["deleting"] = rev.time
            if rev.type == "DELETED":
                rec["gone"] = rev.time
                if rec["deleting"] is None:
                    rec["deleting"] = rev.time
        out.extend(Lifeline(**r) for r in seen.values())
    return sorted(out, key=lambda r: (r.created, r.kind, r.name))


def lifeline_phases(row: Lifeline, end_seconds: float) -> list[tuple[float, float, str]]:
    """One object's lifeline cut into its phases, as spans of virtual time.

    Parameters
    ----------
    row : Lifeline
        From :func:`lifelines`.
    end_seconds : float
        Where an object still present at the end of the run stops.

    Returns
    -------
    list of (float, float, str)
        ``(start, end, phase)`` in order, phase one of ``pending`` (a pod
        created, not yet Ready), ``running`` (a pod Ready, or any other object
        present), ``finished`` (Succeeded/Failed, or a Job Complete/Failed)
        and ``terminating`` (``deletionTimestamp`` set until it is gone). A
        phase can last 0 s (an object deleted outright).

    Raises
    ------
    TypeError
        When a time of ``row`` is not a number.

    Examples
    --------
    >>> lifeline_phases(Lifeline("Pod", "db-0", 0.0, 10.0, 11.0, "n1", 5.0), 20.0)
    [(0.0, 5.0, 'pending'), (5.0, 10.0, 'running'), (10.0, 11.0, 'terminating')]
    >>> lifeline_phases(Lifeline("Job", "j", 0.0, None, None, None, None, 4.0), 20.0)
    [(0.0, 4.0, 'running'), (4.0, 20.0, 'finished')]
    """
    running = row.ready if row.kind == "Pod" else row.created
    stop = row.gone if row.gone is not None else end_seconds
    phases = []
    if running is None or running > row.created:
        phases.append((row.created, min(x for x in (running, row.finished, row.deleting, stop) if x is not None),
                       "pending"))
    if running is not None:
        phases.append((running, min(x for x in (row.finished, row.deleting, stop) if x is not None), "running"))
    if row.finished is not None:
        phases.append((row.finished, row.deleting if row.deleting is not None else stop, "finished"))
    if row.deleting is not None:
        phases.append((row.deleting, stop, "terminating"))
    return phases


def replica_series(run: ScenarioRun, resource: str = "deployments") -> list[tuple[float, int]]:
    """``spec.replicas`` of the run's workload over time, one point per change.

    Parameters
    ----------
    run : ScenarioRun
    resource : str

    Returns
    -------
    list of (float, int)

    Raises
    ------
    KeyError
        For a resource name the API does not serve.

    Examples
    --------
    >>> replica_series(simulate_hpa(run_seconds=100))[:3]
    [(0.0, 2), (30.0, 4), (45.0, 7)]
    """
    out: list[tuple[float, int]] = []
    for rev in object_history(run.cluster, resource, run.namespace):
        if rev.object["metadata"]["name"] != run.name or rev.type == "DELETED":
            continue
        n = int((rev.object.get("spec") or {}).get("replicas", 1))
        if not out or out[-1][1] != n:
            out.append((rev.time, n))
    return out


_NOT_CONTROLLERS = ("kubectl", "scenario", "kube-apiserver", "default-scheduler")


def controller_writes_graph(runs: Any) -> nx.DiGraph:
    """Which controller wrote which kind in the given runs, beside what the cloud-controller-manager would write.

    Read from each run's audit log: an edge component -> kind for every
    create, update, patch, delete or scale by a kube-controller-manager
    component (Events and Leases left out), with ``writes`` (how many).
    The controllers of :data:`CCM_CONTROLLERS` are added with
    ``modelled=False``: the model has no cloud, so nothing runs them.

    Parameters
    ----------
    runs : iterable of ScenarioRun
        Finished runs (a run without a cluster is skipped).

    Returns
    -------
    networkx.DiGraph
        Nodes have ``kind`` (``controller`` or ``resource``); controllers have
        ``manager`` (``kube-controller-manager`` or ``cloud-controller-manager``)
        and ``modelled``; edges have ``writes`` and ``modelled``.

    Raises
    ------
    AttributeError
        For an item without ``cluster`` (not a run).

    Examples
    --------
    >>> g = controller_writes_graph([simulate_statefulset()])
    >>> g.has_edge("statefulset-controller", "Pod"), g.nodes["service-lb-controller"]["modelled"]
    (True, False)
    """
    g = nx.DiGraph()
    for run in runs:
        if run.cluster is None:
            continue
        for e in run.cluster.audit_log:
            if e.verb not in ("create", "update", "patch", "delete", "scale") or e.kind in ("Event", "Lease"):
                continue
            if e.component in _NOT_CONTROLLERS or e.component.startswith("kubelet/"):
                continue
            g.add_node(e.component, kind="controller", manager="kube-controller-manager", modelled=True)
            g.add_node(e.kind, kind="resource")
            if g.has_edge(e.component, e.kind):
                g.edges[e.component, e.kind]["writes"] += 1
            else:
                g.add_edge(e.component, e.kind, writes=1, modelled=True)
    for name, (kind, _what) in CCM_CONTROLLERS.items():
        g.add_node(name, kind="controller", manager="cloud-controller-manager", modelled=False)
        g.add_node(kind, kind="resource")
        g.add_edge(name, kind, writes=0, modelled=False)
    return g


def metric_series(run: ScenarioRun) -> list[tuple[float, float]]:
    """The HPA metric's values over a run (each ``metric`` step: time, value), from the audit log.

    Parameters
    ----------
    run : ScenarioRun
        From :func:`simulate_hpa` (or any run with ``metric`` steps for ``run.name``).

    Returns
    -------
    list of (float, float)

    Raises
    ------
    AttributeError
        When ``run`` has no cluster (a refused run).

    Examples
    --------
    >>> metric_series(simulate_hpa(run_seconds=100))[:2]
    [(5.0, 75.0), (20.0, 250.0)]
    """
    return [(e.time, float(e.detail.split("=", 1)[1])) for e in run.cluster.audit_log
            if e.component == "scenario" and e.verb == "metric" and e.name == run.name]


def namespace_conditions(run: ScenarioRun) -> list[dict]:
    """Each change of the run's Namespace's status conditions while it terminates, in time order.

    Parameters
    ----------
    run : ScenarioRun
        From :func:`simulate_namespace_deletion`.

    Returns
    -------
    list of dict
        ``time``, ``phase``, then per condition that is ``True`` (a failure: upstream's conditions
        are True when something is wrong) ``type``, ``reason`` and ``message``; one row per condition.

    Raises
    ------
    AttributeError
        When ``run`` has no cluster (a refused run).

    Examples
    --------
    >>> rows = namespace_conditions(simulate_namespace_deletion())
    >>> rows[0]["type"], rows[0]["reason"]
    ('NamespaceContentRemaining', 'SomeResourcesRemain')
    """
    out: list[dict] = []
    last: Any = None
    for rev in object_history(run.cluster, "namespaces"):
        if rev.object["metadata"]["name"] != run.namespace or rev.type == "DELETED":
            continue
        st = rev.object.get("status") or {}
        failing = tuple((c["type"], c.get("reason", ""), c.get("message", ""))
                        for c in st.get("conditions") or [] if c.get("status") == "True")
        if failing == last or not st.get("conditions"):
            continue
        last = failing
        for ctype, reason, message in failing:
            out.append({"time": rev.time, "phase": st.get("phase", ""), "type": ctype, "reason": reason,
                        "message": message})
        if not failing:
            out.append({"time": rev.time, "phase": st.get("phase", ""), "type": "", "reason": "",
                        "message": "no condition is True: all content removed"})
    return out


def hpa_recommendations(cases: Any, tolerance: float | None = None) -> list[dict]:
    """The HPA formula for a few (current replicas, current metric, target) cases, as the controller computes it.

    Each case goes through :func:`kubenotes.controllers.podautoscaler.replicas_for`
    (``ceil(current * metric / target)``, unchanged within the tolerance), the
    function the model's HPA controller calls; this only tabulates it.

    Parameters
    ----------
    cases : iterable of (int, float, float)
        (current replicas, current metric, target), the metric and target in the same units (e.g. % of request).
    tolerance : float, optional
        ``--horizontal-pod-autoscaler-tolerance``; default upstream's 0.1.

    Returns
    -------
    list of dict
        Per case: ``current``, ``metric``, ``target``, ``ratio`` (metric / target, rounded to 2 places),
        ``within_tolerance`` (bool) and ``desired``.

    Raises
    ------
    ZeroDivisionError
        When a target is 0.
    ValueError
        When a case does not have three values.

    Examples
    --------
    >>> [(r["ratio"], r["within_tolerance"], r["desired"]) for r in hpa_recommendations([(2, 250, 80), (4, 86, 80)])]
    [(3.12, False, 7), (1.07, True, 4)]
    """
    from kubenotes.controllers.podautoscaler import DEFAULT_TOLERANCE, replicas_for

    tol = DEFAULT_TOLERANCE if tolerance is None else float(tolerance)
    out = []
    for current, metric, target in cases:
        ratio = metric / target
        out.append({"current": int(current), "metric": metric, "target": target, "ratio": round(ratio, 2),
                    "within_tolerance": abs(1.0 - ratio) <= tol,
                    "desired": replicas_for(int(current), metric, target, tol)})
    return out
