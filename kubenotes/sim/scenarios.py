"""The chapters' scenarios, run from their ``kind: Scenario`` files in ``data/`` with a widget's parameters applied.

Each chapter scenario is a file of manifests and one ``kind: Scenario``
document that ``python -m kubenotes simulate FILE`` runs unchanged (see
:mod:`kubenotes.sim.scenario`). The functions here load such a file, set the
fields a widget moves (``maxSurge``, ``replicas``, ``backoffLimit``, a probe's
``periodSeconds``, when a step happens ...), run the
:class:`~kubenotes.sim.cluster.Cluster` and return what the chapter reads:

* chapter 03.00 (``data/controllers/``): :func:`simulate_scale`,
  :func:`simulate_rollout`, :func:`simulate_rc_rolling_update`,
  :func:`simulate_node_failure`, :func:`simulate_cascade`,
  :func:`simulate_quota`, :func:`simulate_job` (stand-in kubelets, every
  controller, RBAC on);
* chapter 05.00 (``data/kubelet/``): :func:`simulate_pod_start`,
  :func:`simulate_restarts`, :func:`simulate_static_pod` (the kubelet model on
  one node, no controllers);
* chapter 05.01 (``data/kubelet/cri-pod-start.yaml``):
  :func:`simulate_cri_pod_start` (a pod's CRI calls on a fresh node, then
  with its images cached);
* chapter 05.02 (``data/qos/``): :func:`simulate_memory_pressure` (with
  ``data/qos/soft-threshold.yaml`` for a soft threshold) and
  :func:`simulate_disk_pressure` (the kubelet model on one node, its
  eviction manager reading the stats summary) and what the chapter reads
  from a run: :func:`evictions`, :func:`first_eviction`,
  :func:`pressure_intervals`, :func:`kill_orders`, :func:`eviction_events`;
* chapter 06.01 (``data/network/``): :func:`simulate_readiness_drain`.

Runs are deterministic and memoised (:func:`functools.lru_cache` keyed by the
arguments), so a widget re-renders a position it has seen at once; a returned
run is shared, so treat it as read-only.

References
----------
kubernetes/kubernetes@v1.34.0 test/e2e/apps/deployment.go, test/e2e/apimachinery/garbage_collector.go (the scenarios' e2e counterparts)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/worker.go (probe results)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager.go (the memory-pressure run)
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from kubenotes.gcpolicy import fewer_gc_passes
from kubenotes.sim.scenario import Scenario, Step, cluster_options, parse_scenario, run_step, start_scenario

__all__ = [
    "CLUSTER_CIDR",
    "QUOTA_NAMESPACE",
    "CAUSES",
    "FAIL_FROM_SECONDS",
    "FAIL_UNTIL_SECONDS",
    "load_scenario_file",
    "available_controllers",
    "ScenarioRun",
    "RollingUpdateRun",
    "PodRun",
    "StaticPodRun",
    "DrainRun",
    "simulate_scale",
    "simulate_rollout",
    "simulate_rc_rolling_update",
    "simulate_node_failure",
    "simulate_cascade",
    "simulate_quota",
    "simulate_job",
    "simulate_pod_start",
    "CRI_POD_START_FILE",
    "POD_START_METHODS",
    "CriStartRun",
    "simulate_cri_pod_start",
    "simulate_restarts",
    "simulate_static_pod",
    "simulate_readiness_drain",
    "MEMORY_PRESSURE_FILE",
    "SYSTEM_MEMORY_BYTES",
    "EVICTION_HARD_MI",
    "EVICTION_MAX_POD_GRACE_PERIOD_SECONDS",
    "memory_pressure_usage_mi",
    "SOFT_THRESHOLD_FILE",
    "DISK_PRESSURE_FILE",
    "USAGE_FROM_SECONDS",
    "USAGE_EVERY_SECONDS",
    "FILE_BATCH_GROWTH_MI_PER_MINUTE",
    "PressureScenario",
    "single_container_pod",
    "memory_pressure_pods",
    "simulate_memory_pressure",
    "simulate_disk_pressure",
    "eviction_events",
    "evictions",
    "first_eviction",
    "eviction_rounds",
    "pressure_intervals",
    "kill_orders",
]

#: kube-proxy's ``clusterCIDR`` in chapter 06.01 (kubeadm's ``podSubnet``).
CLUSTER_CIDR = "10.244.0.0/16"
#: The namespace of the quota scenario (``data/controllers/quota.yaml``).
QUOTA_NAMESPACE = "team-a"


# --------------------------------------------------------------------------- loading
@functools.lru_cache(maxsize=32)
def _load(path: str) -> tuple[tuple[dict, ...], Scenario]:
    from kubenotes.api.manifests import load_manifests
    from kubenotes.sim.cluster import to_dicts

    m = load_manifests(path, defaults=False)
    scenarios = [parse_scenario(o.obj, o.source, o.doc) for o in m if o.kind == "Scenario"]
    if len(scenarios) != 1:
        raise ValueError(f"{path}: expected one kind: Scenario document, found {len(scenarios)}")
    return tuple(to_dicts([o for o in m if o.kind != "Scenario"])), scenarios[0]


def load_scenario_file(name: str | Path) -> tuple[list[dict], Scenario]:
    """A chapter's scenario file: its objects (fresh copies, as the cluster would be given them) and its Scenario.

    Parameters
    ----------
    name : str or Path
        A path, or a path under the sample data (:func:`kubenotes.data.sample`), e.g. ``"controllers/rollout.yaml"``.

    Returns
    -------
    (list of dict, Scenario)
        The objects as JSON-shaped dicts, in file order, and the one ``kind: Scenario`` document.

    Raises
    ------
    ManifestError
        For a malformed manifest or scenario.
    NotFound
        When there is no such file.
    ValueError
        When the file does not hold exactly one Scenario.

    Examples
    --------
    >>> objects, scenario = load_scenario_file("controllers/scale.yaml")
    >>> [o["kind"] for o in objects], scenario.steps[0].action, scenario.cluster["kubelet"]
    (['Node', 'Node', 'Node', 'ReplicaSet'], 'scale', 'stand-in')
    """
    from kubenotes.data import sample

    p = Path(name)
    if not p.exists():
        p = sample(*p.parts)
    objects, scenario = _load(str(p))
    return copy.deepcopy(list(objects)), scenario


def _with(scenario: Scenario, steps: Any = None, **cluster: Any) -> Scenario:
    """``scenario`` with other steps and ``spec.cluster`` fields."""
    return Scenario(scenario.name, tuple(scenario.steps if steps is None else steps), {**scenario.cluster, **cluster})


def _step(step: Step, at_seconds: float | None = None, **args: Any) -> Step:
    return Step(step.at_seconds if at_seconds is None else float(at_seconds), step.action, {**step.args, **args})


def _find(objects: list[dict], kind: str, name: str | None = None) -> dict:
    return next(o for o in objects if o.get("kind") == kind and (name is None or o["metadata"]["name"] == name))


def _cluster(objects: list[dict], scenario: Scenario, seed: int, **kwargs: Any) -> Any:
    """The Cluster the scenario's ``spec.cluster`` describes (``kwargs`` win), with the scenario started."""
    from kubenotes.sim.cluster import Cluster

    with fewer_gc_passes():  # building the cluster allocates as much as a short run (see Cluster.run)
        c = Cluster(objects, seed=seed, **{**cluster_options([scenario]), **kwargs})
        start_scenario(c, scenario)
    return c


def _first_failure(cluster: Any, action: str) -> str | None:
    """The API's message of the scenario's first refused ``action`` (its ``failed`` log line), or None."""
    prefix = f"{action}: "
    for e in cluster.audit_log:
        if e.component == "scenario" and e.verb == "failed" and e.detail.startswith(prefix):
            return e.detail[len(prefix):]
    return None


@functools.lru_cache(maxsize=1)
def available_controllers() -> tuple[str, ...]:
    """The controllers of :data:`kubenotes.controllers.CONTROLLERS` whose modules import (all of them).

    Returns
    -------
    tuple of str
        Controller names (``--controllers``), in :data:`~kubenotes.controllers.CONTROLLERS` order.

    Examples
    --------
    >>> "replicaset-controller" in available_controllers()
    True
    """
    from kubenotes.controllers import CONTROLLERS, load_controller

    out = []
    for name in CONTROLLERS:
        try:
            load_controller(name)
        except (ImportError, AttributeError):
            continue
        out.append(name)
    return tuple(out)


# --------------------------------------------------------------------------- chapter 03.00: controllers
class ScenarioRun(NamedTuple):
    """A finished small scenario: the cluster (stopped at ``end_seconds``) and what the chapter reads from it.

    Attributes
    ----------
    cluster : Cluster
    namespace : str
    name : str
        The workload the scenario is about (the node, for a node failure).
    at_seconds : float
        When the scenario's action happened (the scale, the image change, the node going down, the delete).
    error : str or None
        The API's message when the action was refused (e.g. 422 for maxSurge = maxUnavailable = 0).
    """

    cluster: Any
    namespace: str
    name: str
    at_seconds: float
    error: str | None = None

    @property
    def end_seconds(self) -> float:
        """Virtual seconds at which the run stopped."""
        return float(self.cluster.now)


@functools.lru_cache(maxsize=64)
def simulate_scale(replicas: int = 6, start_replicas: int = 4, *, at_seconds: float = 20.0,
                   run_seconds: float = 20.0, seed: int = 0) -> ScenarioRun:
    """``data/controllers/scale.yaml``: a ReplicaSet ``web`` of ``start_replicas`` pods scaled to ``replicas``.

    Parameters
    ----------
    replicas : int
        The ``kubectl scale rs web --replicas`` value, at ``at_seconds``.
    start_replicas : int
        The ReplicaSet's ``spec.replicas`` at creation.
    at_seconds, run_seconds : float
        When the scale happens; how long to run after it.
    seed : int

    Returns
    -------
    ScenarioRun
        Stopped ``run_seconds`` after the scale.

    Examples
    --------
    >>> run = simulate_scale(2, 4)
    >>> len(run.cluster.list("pods", "default")), run.cluster.get("replicasets", "web", "default")["status"]["replicas"]
    (2, 2)
    """
    objects, scenario = load_scenario_file("controllers/scale.yaml")
    _find(objects, "ReplicaSet", "web")["spec"]["replicas"] = start_replicas
    scenario = _with(scenario, [_step(scenario.steps[0], at_seconds, replicas=replicas)])
    c = _cluster(objects, scenario, seed)
    c.run(until=at_seconds + run_seconds)
    return ScenarioRun(c, "default", "web", at_seconds, _first_failure(c, "scale"))


@functools.lru_cache(maxsize=64)
def simulate_rollout(max_surge: int | str = 1, max_unavailable: int | str = 1, replicas: int = 4, *,
                     min_ready_seconds: int = 5, pod_startup_seconds: float = 5.0, at_seconds: float = 20.0,
                     run_seconds: float = 100.0, image: str = "docker.io/library/nginx:1.28.0",
                     seed: int = 0) -> ScenarioRun:
    """``data/controllers/rollout.yaml``: a Deployment ``web`` rolled to a new image (``kubectl set image``).

    Parameters
    ----------
    max_surge, max_unavailable : int or str
        ``spec.strategy.rollingUpdate`` (absolute or ``"N%"``).
    replicas : int
    min_ready_seconds : int
        ``spec.minReadySeconds``: a ready pod counts as available after this long.
    pod_startup_seconds : float
        The stand-in kubelet's binding -> Ready delay (``spec.cluster.podStartupSeconds``).
    at_seconds, run_seconds : float
        When the image changes; how long to run after it.
    image : str
    seed : int

    Returns
    -------
    ScenarioRun
        ``error`` holds the API's message when the Deployment is refused (both
        fences 0 is invalid); then nothing runs.

    Notes
    -----
    Pods run on stand-in kubelets (:mod:`kubenotes.sim.kubelet`): Ready
    ``pod_startup_seconds`` after binding, no image pulls or probes. Memoised
    (64 runs, about 1.5 MB each).

    Examples
    --------
    >>> run = simulate_rollout(1, 0, replicas=2, run_seconds=60)
    >>> len(run.cluster.list("replicasets", "default")), run.error
    (2, None)
    >>> simulate_rollout(0, 0).error.endswith("maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0")
    True
    """
    from kubenotes.apiserver.status import ApiError

    objects, scenario = load_scenario_file("controllers/rollout.yaml")
    dep = _find(objects, "Deployment", "web")
    dep["spec"]["replicas"] = replicas
    dep["spec"]["strategy"]["rollingUpdate"] = {"maxSurge": max_surge, "maxUnavailable": max_unavailable}
    if min_ready_seconds:
        dep["spec"]["minReadySeconds"] = min_ready_seconds
    else:
        dep["spec"].pop("minReadySeconds", None)
    scenario = _with(scenario, [_step(scenario.steps[0], at_seconds, image=image)],
                     podStartupSeconds=pod_startup_seconds)
    try:
        c = _cluster(objects, scenario, seed)
    except ApiError as e:  # the Deployment refused: the cluster without it, not run
        return ScenarioRun(_cluster([o for o in objects if o is not dep], _with(scenario, []), seed), "default",
                           "web", at_seconds, str(e))
    c.run(until=at_seconds + run_seconds)
    return ScenarioRun(c, "default", "web", at_seconds, _first_failure(c, "setImage"))


class RollingUpdateRun(NamedTuple):
    """A finished ``kubectl rolling-update``: the cluster, when it started and what kubectl printed."""

    cluster: Any
    at_seconds: float
    lines: tuple[str, ...]


@functools.lru_cache(maxsize=16)
def simulate_rc_rolling_update(replicas: int = 4, update_period_seconds: float = 10.0, *, at_seconds: float = 20.0,
                               run_seconds: float = 150.0, pod_startup_seconds: float = 5.0,
                               seed: int = 0) -> RollingUpdateRun:
    """``data/controllers/rolling-update.yaml``: ``kubectl rolling-update web-v1 -f web-v2.yaml`` on three nodes.

    The client, not a controller, does the rollout (the Scenario action
    ``rollingUpdate``): it creates ``web-v2`` at 0 replicas, then one pod at a
    time scales ``web-v2`` up, waits for it to be ready, scales ``web-v1`` down,
    and sleeps ``update_period_seconds``
    (:func:`kubenotes.controllers.replication.rolling_update`).

    Parameters
    ----------
    replicas : int
        Both ReplicationControllers' ``spec.replicas``.
    update_period_seconds : float
        ``--update-period``.
    at_seconds, run_seconds, pod_startup_seconds : float
    seed : int

    Returns
    -------
    RollingUpdateRun
        ``lines`` are what kubectl printed (the scenario's ``rollingUpdate`` log lines).

    Examples
    --------
    >>> run = simulate_rc_rolling_update(2, 5.0)
    >>> run.lines[-1], run.cluster.get("replicationcontrollers", "web-v1", "default") is None
    ('replicationcontroller/web-v1 rolling updated to "web-v2"', True)
    """
    objects, scenario = load_scenario_file("controllers/rolling-update.yaml")
    _find(objects, "ReplicationController", "web-v1")["spec"]["replicas"] = replicas
    step = scenario.steps[0]
    new = copy.deepcopy(step.args["object"])
    new["spec"]["replicas"] = replicas
    scenario = _with(scenario, [_step(step, at_seconds, object=new, updatePeriodSeconds=update_period_seconds)],
                     podStartupSeconds=pod_startup_seconds)
    c = _cluster(objects, scenario, seed)
    c.run(until=at_seconds + run_seconds)
    lines = tuple(e.detail for e in c.audit_log if e.component == "scenario" and e.verb == "rollingUpdate")
    return RollingUpdateRun(c, at_seconds, lines)


@functools.lru_cache(maxsize=32)
def simulate_node_failure(toleration_seconds: int | None = None, node_monitor_grace_period_seconds: int = 50, *,
                          replicas: int = 6, node: str = "worker-1", at_seconds: float = 20.0,
                          after_eviction_seconds: float = 40.0, seed: int = 0) -> ScenarioRun:
    """``data/controllers/node-failure.yaml``: ``node``'s kubelet stops at ``at_seconds``; a Deployment runs on three nodes.

    Parameters
    ----------
    toleration_seconds : int, optional
        The pods' own ``tolerationSeconds`` for ``node.kubernetes.io/unreachable:NoExecute``
        (and ``not-ready``); None leaves it to DefaultTolerationSeconds admission (300 s).
    node_monitor_grace_period_seconds : int
        kube-controller-manager ``--node-monitor-grace-period``.
    replicas : int
    node : str
    at_seconds : float
    after_eviction_seconds : float
        Run this long past the expected eviction time (down + grace + toleration).
    seed : int

    Returns
    -------
    ScenarioRun
        ``name`` is the node.

    Notes
    -----
    ``nodeDown`` stops the stand-in kubelet's Lease renewals and status posts;
    its pods keep their last status, and deleted pods stay ``Terminating``
    (nobody confirms their end), as on a real unreachable node.

    Examples
    --------
    >>> run = simulate_node_failure(0, 20, replicas=2, after_eviction_seconds=10)
    >>> sorted({p["spec"]["nodeName"] for p in run.cluster.list("pods", "default")} - {"worker-1"})
    ['worker-2', 'worker-3']
    """
    objects, scenario = load_scenario_file("controllers/node-failure.yaml")
    dep = _find(objects, "Deployment", "web")
    dep["spec"]["replicas"] = replicas
    if toleration_seconds is not None:
        dep["spec"]["template"]["spec"]["tolerations"] = [
            {"key": k, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": int(toleration_seconds)}
            for k in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")]
    flags = {**scenario.cluster.get("controllerManager", {}),
             "node-monitor-grace-period": node_monitor_grace_period_seconds}
    scenario = _with(scenario, [_step(scenario.steps[0], at_seconds, name=node)], controllerManager=flags)
    c = _cluster(objects, scenario, seed)
    wait = 300 if toleration_seconds is None else int(toleration_seconds)
    c.run(until=at_seconds + node_monitor_grace_period_seconds + wait + after_eviction_seconds)
    return ScenarioRun(c, "default", node, at_seconds, None)


@functools.lru_cache(maxsize=16)
def simulate_cascade(propagation_policy: str = "Background", *, replicas: int = 4, at_seconds: float = 20.0,
                     run_seconds: float = 20.0, seed: int = 0) -> ScenarioRun:
    """``data/controllers/cascade.yaml``: delete the Deployment ``web`` with a propagationPolicy (``--cascade=...``).

    Parameters
    ----------
    propagation_policy : {"Background", "Foreground", "Orphan"}
        ``kubectl delete --cascade=background|foreground|orphan``.
    replicas : int
    at_seconds, run_seconds : float
    seed : int

    Returns
    -------
    ScenarioRun

    Notes
    -----
    Pods go 1 s after their deletion (the stand-in kubelet's
    ``pod_termination_seconds``), so a whole cascade fits in a couple of seconds.

    Examples
    --------
    >>> run = simulate_cascade("Orphan", replicas=2)
    >>> len(run.cluster.list("pods", "default")), run.cluster.list("deployments", "default")
    (2, [])
    """
    objects, scenario = load_scenario_file("controllers/cascade.yaml")
    _find(objects, "Deployment", "web")["spec"]["replicas"] = replicas
    scenario = _with(scenario, [_step(scenario.steps[0], at_seconds, propagationPolicy=propagation_policy)])
    c = _cluster(objects, scenario, seed)
    c.run(until=at_seconds + run_seconds)
    return ScenarioRun(c, "default", "web", at_seconds, _first_failure(c, "delete"))


@functools.lru_cache(maxsize=4)
def simulate_quota(pods_hard: int = 3, replicas: int = 5, *, run_seconds: float = 30.0, seed: int = 0) -> ScenarioRun:
    """``data/controllers/quota.yaml``: a ResourceQuota ``compute`` in ``team-a`` and a ReplicaSet that wants more.

    Parameters
    ----------
    pods_hard : int
        The quota's ``hard.pods``.
    replicas : int
        The ReplicaSet's ``spec.replicas`` (created at t = 5 s).
    run_seconds : float
    seed : int

    Returns
    -------
    ScenarioRun
        The ReplicaSet ``web`` gets ``pods_hard`` pods; its other creates are
        refused (``FailedCreate`` events carry the quota message).

    Examples
    --------
    >>> len(simulate_quota(2, 3, run_seconds=5).cluster.list("pods", QUOTA_NAMESPACE))
    2
    """
    objects, scenario = load_scenario_file("controllers/quota.yaml")
    _find(objects, "ResourceQuota", "compute")["spec"]["hard"]["pods"] = str(pods_hard)
    step = scenario.steps[0]
    rs = copy.deepcopy(step.args)
    rs["spec"]["replicas"] = replicas
    scenario = _with(scenario, [Step(step.at_seconds, step.action, rs)])
    c = _cluster(objects, scenario, seed)
    c.run(until=step.at_seconds + run_seconds)
    return ScenarioRun(c, QUOTA_NAMESPACE, "web", step.at_seconds, _first_failure(c, "apply"))


@functools.lru_cache(maxsize=8)
def simulate_job(backoff_limit: int = 3, *, exit_code: int = 1, container_run_seconds: float = 3.0,
                 run_seconds: float = 200.0, seed: int = 0) -> ScenarioRun:
    """``data/controllers/job.yaml``: a Job ``migrate`` whose container exits with ``exit_code`` (restartPolicy Never).

    The stand-in kubelet runs the container for ``container_run_seconds``
    (annotations ``kubenotes.io/run-seconds`` and ``kubenotes.io/exit-code``).

    Parameters
    ----------
    backoff_limit : int
        ``spec.backoffLimit``.
    exit_code : int
    container_run_seconds : float
    run_seconds : float
    seed : int

    Returns
    -------
    ScenarioRun

    Examples
    --------
    >>> simulate_job(0, run_seconds=10).cluster.get("jobs", "migrate", "default")["status"]["failed"]
    1
    """
    from kubenotes.sim.kubelet import EXIT_CODE_ANNOTATION, RUN_SECONDS_ANNOTATION

    objects, scenario = load_scenario_file("controllers/job.yaml")
    job = _find(objects, "Job", "migrate")
    job["spec"]["backoffLimit"] = backoff_limit
    job["spec"]["template"]["metadata"]["annotations"] = {RUN_SECONDS_ANNOTATION: f"{container_run_seconds:g}",
                                                          EXIT_CODE_ANNOTATION: str(exit_code)}
    c = _cluster(objects, scenario, seed)
    c.run(until=run_seconds)
    return ScenarioRun(c, "default", "migrate", 0.0, None)


# --------------------------------------------------------------------------- chapter 05.00: the kubelet
@dataclass
class PodRun:
    """One pod's run on one kubelet model: the cluster, the node's kubelet, the pod and every probe the kubelet ran.

    Attributes
    ----------
    cluster : Cluster
    kubelet : Kubelet
    pod_name : str
    namespace : str
    uid : str
    probes : list of dict
        Every probe run: ``time``, ``container``, ``kind`` (``Liveness``...), ``result`` (``success``/``failure``).
    until_seconds : float
    """

    cluster: Any
    kubelet: Any
    pod_name: str
    namespace: str
    uid: str
    probes: list = field(default_factory=list)
    until_seconds: float = 0.0

    @property
    def pod(self) -> dict:
        """The pod as the API shows it at the end of the run."""
        return self.cluster.get("pods", self.pod_name, self.namespace)


def _probe_timeline(scenario: Scenario) -> dict[tuple[str, str], list[tuple[float, Any]]]:
    """The scenario's ``probe`` steps: (container, prober kind) -> [(from seconds, outcome)], in time order."""
    from kubenotes.kubelet.prober import LIVENESS, READINESS, STARTUP

    kinds = {"liveness": LIVENESS, "readiness": READINESS, "startup": STARTUP}
    out: dict[tuple[str, str], list[tuple[float, Any]]] = {}
    for s in scenario.steps:
        if s.action == "probe":
            a = s.args
            outcome = (a["result"], str(a["output"])) if a.get("output") else a["result"]
            out.setdefault((a["container"], kinds[a["probe"]]), []).append((s.at_seconds, outcome))
    return out


def _run_pod(objects: list[dict], scenario: Scenario, until_seconds: float, seed: int) -> PodRun:
    """Run one pod on one kubelet model, recording every probe.

    The scenario's ``probe`` steps become the kubelet's probe results source
    (``probe_results``: from a step's time on, that probe answers so), which
    records each probe as it runs; the other steps run as the scenario's.
    """
    from kubenotes.kubelet.kubelet import KubeletConfiguration

    timeline = _probe_timeline(scenario)
    probes: list[dict] = []

    def source(pod_uid: str, container: str, kind: str, now: float) -> Any:
        value: Any = "success"
        for at, outcome in timeline.get((container, kind), ()):
            if at <= now:
                value = outcome
        probes.append({"time": float(now), "container": container, "kind": kind,
                       "result": value[0] if isinstance(value, tuple) else value})
        return value

    rest = _with(scenario, [s for s in scenario.steps if s.action != "probe"])
    cluster = _cluster(objects, rest, seed, kubelet_options=KubeletConfiguration(probe_results=source))
    cluster.run(until=until_seconds)
    pod = next(p for p in cluster.list("pods") if p["metadata"].get("namespace") == "default")
    return PodRun(cluster, cluster.kubelets[pod["spec"]["nodeName"]], pod["metadata"]["name"], "default",
                  pod["metadata"]["uid"], probes, float(until_seconds))


@functools.lru_cache(maxsize=32)
def simulate_pod_start(success_threshold: int = 2, period_seconds: int = 5, initial_delay_seconds: int = 2,
                       init_seconds: int = 3, until_seconds: float = 40.0, seed: int = 0) -> PodRun:
    """``data/kubelet/pod-start.yaml``: one pod started by the kubelet model on a one-node cluster; every probe succeeds.

    Parameters
    ----------
    success_threshold, period_seconds, initial_delay_seconds : int
        The readiness probe's settings.
    init_seconds : int
        How long the init container ``init-db`` sleeps.
    until_seconds : float
    seed : int

    Returns
    -------
    PodRun

    Examples
    --------
    >>> run = simulate_pod_start()
    >>> lifecycle = ("RunPodSandbox", "PullImage", "CreateContainer", "StartContainer")
    >>> run.pod["status"]["phase"], [t["method"] for t in run.kubelet.runtime.trace if t["method"] in lifecycle][:2]
    ('Running', ['RunPodSandbox', 'PullImage'])
    """
    objects, scenario = load_scenario_file("kubelet/pod-start.yaml")
    spec = _find(objects, "Pod", "web")["spec"]
    spec["initContainers"][0]["command"] = ["sh", "-c", f"sleep {init_seconds}"]
    spec["containers"][0]["readinessProbe"].update(initialDelaySeconds=initial_delay_seconds,
                                                   periodSeconds=period_seconds, successThreshold=success_threshold)
    return _run_pod(objects, scenario, until_seconds, seed)


# --------------------------------------------------------------------------- chapter 05.01: the CRI
#: Chapter 05.01's file: shop/web started on a fresh node, then the same pod (web-2) with its images cached.
CRI_POD_START_FILE = "kubelet/cri-pod-start.yaml"
#: The CRI calls a pod start makes (the PLEG's List* relists and ContainerStatus calls are left out).
POD_START_METHODS = ("RunPodSandbox", "PodSandboxStatus", "ImageStatus", "PullImage", "CreateContainer",
                     "StartContainer")


@dataclass
class CriStartRun:
    """A run of :func:`simulate_cri_pod_start`: the cluster and its one node's kubelet model.

    Attributes
    ----------
    cluster : Cluster
    kubelet : Kubelet
    namespace : str
        The pods' namespace (``shop``).
    """

    cluster: Any
    kubelet: Any
    namespace: str = "shop"

    @property
    def runtime(self) -> Any:
        """The node's :class:`~kubenotes.cri.runtime.ContainerRuntime` (``trace``, ``events``, ``sandboxes``...)."""
        return self.kubelet.runtime

    def pod(self, name: str) -> dict:
        """The pod as the API shows it at the end of the run."""
        return self.cluster.get("pods", name, self.namespace)

    def pod_calls(self, name: str) -> list[dict]:
        """The CRI calls of one pod's start, from its ``RunPodSandbox`` to its last app container's ``StartContainer``.

        Parameters
        ----------
        name : str
            The pod's name.

        Returns
        -------
        list of dict
            Entries of the runtime's ``trace`` (``time``, ``method``, ``request``, ``response``,
            ``duration_seconds``...) whose method is in :data:`POD_START_METHODS`: the pod's
            sandbox and container calls (by sandbox and container ID) and the image calls made
            meanwhile (image requests name no pod; no other pod starts in that window here).

        Raises
        ------
        StopIteration
            When no sandbox of that pod was started.

        Examples
        --------
        >>> run = simulate_cri_pod_start()
        >>> [e["method"] for e in run.pod_calls("web-2")][:4]
        ['RunPodSandbox', 'ImageStatus', 'CreateContainer', 'StartContainer']
        """
        trace = list(self.runtime.trace)
        first = next(i for i, e in enumerate(trace) if e["method"] == "RunPodSandbox"
                     and e["request"]["config"]["metadata"]["name"] == name
                     and e["request"]["config"]["metadata"]["namespace"] == self.namespace)
        sandbox = trace[first]["response"]["pod_sandbox_id"]
        ids = {e["response"]["container_id"] for e in trace[first:] if e["method"] == "CreateContainer"
               and e["request"]["pod_sandbox_id"] == sandbox and e.get("response")}
        last = max(i for i, e in enumerate(trace) if e["method"] == "StartContainer"
                   and e["request"]["container_id"] in ids)
        out = []
        for e in trace[first:last + 1]:
            req = e["request"]
            if e["method"] not in POD_START_METHODS:
                continue
            if e["method"] in ("ImageStatus", "PullImage") or req.get("pod_sandbox_id") == sandbox \
                    or req.get("container_id") in ids or e is trace[first]:
                out.append(e)
        return out

    def started_seconds(self, name: str) -> float:
        """Seconds from the pod's ``RunPodSandbox`` to the end of its last app container's ``StartContainer``.

        Examples
        --------
        >>> run = simulate_cri_pod_start()
        >>> run.started_seconds("web") > run.started_seconds("web-2")
        True
        """
        calls = self.pod_calls(name)
        return calls[-1]["time"] + calls[-1]["duration_seconds"] - calls[0]["time"]

    def pod_events(self, name: str) -> list[dict]:
        """The runtime's own events (``events``) while the pod started: pause image pull, shim, task exits."""
        calls = self.pod_calls(name)
        start, end = calls[0]["time"], calls[-1]["time"] + calls[-1]["duration_seconds"]
        return [ev for ev in self.runtime.events if start <= ev["time"] <= end]


@functools.lru_cache(maxsize=4)
def simulate_cri_pod_start(until_seconds: float = 45.0, seed: int = 0) -> CriStartRun:
    """``data/kubelet/cri-pod-start.yaml`` run as ``python -m kubenotes simulate`` runs it.

    ``shop/web`` (an init container and two app containers, Guaranteed)
    starts on a fresh node: nothing is pulled, not even the pause image. At
    30 s the same pod, ``web-2``, starts with every image on the node.
    ``simulate ... -o cri`` prints the same calls (:func:`kubenotes.sim.cli.cri_calls`).

    Parameters
    ----------
    until_seconds : float
    seed : int

    Returns
    -------
    CriStartRun

    Raises
    ------
    ManifestError, NotFound
        As :func:`load_scenario_file`.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (SyncPod)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_manager.go (EnsureImageExists)

    Examples
    --------
    >>> run = simulate_cri_pod_start()
    >>> [e["request"]["image"]["image"] for e in run.pod_calls("web") if e["method"] == "PullImage"]
    ['busybox:1.36', 'nginx:1.27', 'redis:7.4']
    >>> [e for e in run.pod_calls("web-2") if e["method"] == "PullImage"]
    []
    """
    objects, scenario = load_scenario_file(CRI_POD_START_FILE)
    c = _cluster(objects, scenario, seed)
    c.run(until=until_seconds)
    return CriStartRun(c, c.kubelets[_find(objects, "Node")["metadata"]["name"]])


#: Why the restart scenario's container stops: its liveness probe fails, or its process exits by itself.
CAUSES = ("liveness probe fails", "exits with code 1", "exits with code 0")
#: The liveness endpoint of ``data/kubelet/restarts.yaml`` answers 500 from this virtual time (s) ...
FAIL_FROM_SECONDS = 20.0
#: ... until this one (the app's wedged dependency recovers): the file's two ``probe`` steps.
FAIL_UNTIL_SECONDS = 60.0


@functools.lru_cache(maxsize=128)
def simulate_restarts(failure_threshold: int = 3, period_seconds: int = 5, restart_policy: str = "Always",
                      cause: str = CAUSES[0], until_seconds: float = 200.0, seed: int = 0) -> PodRun:
    """``data/kubelet/restarts.yaml``: a liveness endpoint fails for a while, or the process exits by itself.

    Under ``liveness probe fails`` the scenario's ``probe`` steps make every
    liveness probe from :data:`FAIL_FROM_SECONDS` (20 s) to :data:`FAIL_UNTIL_SECONDS` (60 s) answer ``HTTP probe failed with
    statuscode: 500`` (the app is wedged; a restart does not cure it until the
    dependency recovers); otherwise every probe succeeds and the process exits
    after 5 s of running with the cause's code (annotations
    ``kubenotes.io/run-seconds`` and ``kubenotes.io/exit-code``).

    Parameters
    ----------
    failure_threshold, period_seconds : int
        The liveness probe's settings.
    restart_policy : {"Always", "OnFailure", "Never"}
    cause : str
        One of :data:`CAUSES`.
    until_seconds : float
    seed : int

    Returns
    -------
    PodRun

    Raises
    ------
    ValueError
        For a ``cause`` not in :data:`CAUSES`.

    Examples
    --------
    >>> run = simulate_restarts(cause="exits with code 1", restart_policy="Never", until_seconds=30)
    >>> run.pod["status"]["phase"]
    'Failed'
    """
    from kubenotes.kubelet.kubelet import EXIT_CODE_ANNOTATION, RUN_SECONDS_ANNOTATION

    if cause not in CAUSES:
        raise ValueError(f"cause must be one of {CAUSES}, not {cause!r}")
    objects, scenario = load_scenario_file("kubelet/restarts.yaml")
    pod = _find(objects, "Pod", "app")
    pod["spec"]["restartPolicy"] = restart_policy
    pod["spec"]["containers"][0]["livenessProbe"].update(periodSeconds=period_seconds,
                                                         failureThreshold=failure_threshold)
    if cause != CAUSES[0]:
        pod["metadata"]["annotations"] = {RUN_SECONDS_ANNOTATION: "5",
                                          EXIT_CODE_ANNOTATION: "1" if cause == CAUSES[1] else "0"}
        scenario = _with(scenario, [])
    return _run_pod(objects, scenario, until_seconds, seed)


@dataclass
class StaticPodRun:
    """A run of the kubelet model with a static manifest directory.

    Attributes
    ----------
    cluster : Cluster
    kubelet : Kubelet
    files : dict
        The manifest directory (``staticPodPath``) at the end of the run: file name -> manifest.
    name, namespace : str
        The mirror pod's name and namespace.
    """

    cluster: Any
    kubelet: Any
    files: dict
    name: str
    namespace: str


def simulate_static_pod(delete_mirror_at_seconds: float | None = 10.0, edit_at_seconds: float | None = 30.0,
                        until_seconds: float = 60.0, seed: int = 0) -> StaticPodRun:
    """``data/kubelet/static-pod.yaml``: ``etcd.yaml`` in worker-1's ``staticPodPath``; no pod in the API.

    At ``delete_mirror_at_seconds`` the admin deletes the mirror pod (``kubectl delete pod etcd-worker-1
    -n kube-system``); at ``edit_at_seconds`` the manifest's image changes to ``etcd:3.6.5-0`` (the
    kubelet sees it at its next read, every ``fileCheckFrequency`` = 20 s).

    Parameters
    ----------
    delete_mirror_at_seconds, edit_at_seconds : float, optional
        None leaves that step out.
    until_seconds : float
    seed : int

    Returns
    -------
    StaticPodRun
        The cluster, worker-1's kubelet, its static pod files, and the mirror
        pod's name (``etcd-worker-1``) and namespace.

    Raises
    ------
    ManifestError, NotFound
        As :func:`load_scenario_file`, when ``data/kubelet/static-pod.yaml`` is malformed or missing.
    ValueError
        When that file's Scenario no longer has exactly its three steps (write, delete, edit).

    Notes
    -----
    A step the API refuses is logged in the audit log (``scenario`` ``failed``), not raised.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/file.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/pod/mirror_client.go

    Examples
    --------
    >>> run = simulate_static_pod(None, None, until_seconds=5)
    >>> mirror = run.cluster.get("pods", "etcd-worker-1", "kube-system")
    >>> mirror["metadata"]["ownerReferences"][0]["kind"], mirror["status"]["phase"]
    ('Node', 'Running')
    """
    objects, scenario = load_scenario_file("kubelet/static-pod.yaml")
    write, delete, edit = scenario.steps
    steps = [write]
    if delete_mirror_at_seconds is not None:
        steps.append(_step(delete, delete_mirror_at_seconds))
    if edit_at_seconds is not None:
        steps.append(_step(edit, edit_at_seconds))
    # The later steps run at the start of their instant, before what else is due then (a notebook's order:
    # run to the time, act, run on); `simulate` runs them after what was already due at that instant.
    cluster = _cluster(objects, _with(scenario, steps[:1]), seed)
    for step in sorted(steps[1:], key=lambda s: s.at_seconds):
        cluster.run(until=step.at_seconds)
        run_step(cluster, step)
    cluster.run(until=until_seconds)
    node = write.args["node"]
    kubelet = cluster.kubelets[node]
    md = write.args["object"]["metadata"]
    return StaticPodRun(cluster, kubelet, dict(kubelet.options.static_pod_path or {}), f"{md['name']}-{node}",
                        md.get("namespace") or "default")


# --------------------------------------------------------------------------- chapter 06.01: Services
@dataclass
class DrainRun:
    """A readiness failure on a running cluster: the objects before and after, and the failing pod.

    Attributes
    ----------
    cluster : Cluster
    failed_pod : str
    failed_ip : str
    fail_at_seconds, until_seconds : float
    before, after : list of dict
        Nodes, Services, EndpointSlices and Pods as the API returned them.
    node_name : str
        The node whose kube-proxy :meth:`state` shows.
    """

    cluster: Any
    failed_pod: str
    failed_ip: str
    fail_at_seconds: float
    until_seconds: float
    before: list
    after: list
    node_name: str = "worker-1"

    def state(self, which: str = "after") -> Any:
        """kube-proxy's state (:class:`~kubenotes.proxy.endpoints.ProxyState`) on the node, ``before`` or ``after``."""
        from kubenotes.proxy.endpoints import proxy_state

        return proxy_state(self.before if which == "before" else self.after, self.node_name,
                           cluster_cidr=CLUSTER_CIDR)

    def slices(self, which: str = "after") -> list[dict]:
        """The EndpointSlices ``before`` or ``after``."""
        return [o for o in (self.before if which == "before" else self.after) if o.get("kind") == "EndpointSlice"]


def _snapshot(cluster: Any) -> list[dict]:
    out = []
    for resource, kind in (("nodes", "Node"), ("services", "Service"),
                           ("endpointslices.discovery.k8s.io", "EndpointSlice"), ("pods", "Pod")):
        for o in cluster.list(resource):
            o.setdefault("kind", kind)
            out.append(o)
    return out


@functools.lru_cache(maxsize=4)
def simulate_readiness_drain(seed: int = 0, fail_at_seconds: float = 60.0, until_seconds: float = 90.0) -> DrainRun:
    """``data/network/readiness-drain.yaml``: a 3-replica Deployment behind ``web``; one pod's readiness fails.

    The scenario's ``probe`` step makes the readiness probe of the pod with the
    lowest IP fail from ``fail_at_seconds`` (the file names that pod as seed 0
    names it; another seed's run picks its own lowest-IP pod); after
    ``failureThreshold`` (3) failures 5 s apart the kubelet marks it not
    Ready, the EndpointSlice controller flips the endpoint's ``ready``
    condition, and kube-proxy drops its KUBE-SEP chain.

    Parameters
    ----------
    seed : int
    fail_at_seconds, until_seconds : float
        ``before`` is read one second before the failure, ``after`` at the end.

    Returns
    -------
    DrainRun

    Examples
    --------
    >>> run = simulate_readiness_drain()
    >>> run.failed_pod, [e["conditions"]["ready"] for s in run.slices() for e in s["endpoints"]
    ...                  if e["addresses"] == [run.failed_ip]]
    ('web-67db7b98b8-xmgkl', [False])
    """
    objects, scenario = load_scenario_file("network/readiness-drain.yaml")
    node_name = _find(objects, "Node")["metadata"]["name"]
    cluster = _cluster(objects, _with(scenario, []), seed)
    cluster.run(until=fail_at_seconds - 1)
    before = _snapshot(cluster)
    pods = sorted((p for p in before if p["kind"] == "Pod"), key=lambda p: p["status"].get("podIP", ""))
    victim = pods[0]
    start_scenario(cluster, _with(scenario, [_step(scenario.steps[0], fail_at_seconds,
                                                   name=victim["metadata"]["name"])]))
    cluster.run(until=until_seconds)
    return DrainRun(cluster, victim["metadata"]["name"], victim["status"]["podIP"], fail_at_seconds, until_seconds,
                    before, _snapshot(cluster), node_name)


# --------------------------------------------------------------------------- chapter 05.02: QoS and eviction
_MI = 2**20

#: The chapter's scenario file: worker-1 (4Gi), the pods db, web and batch, and their usage once a minute.
MEMORY_PRESSURE_FILE = "qos/memory-pressure.yaml"
#: Memory the memory-pressure file gives system daemons (the OS, the kubelet, the runtime; its ``systemUsage``), bytes.
SYSTEM_MEMORY_BYTES = 512 * _MI
#: The run's ``evictionHard`` on ``memory.available``, MiB (the kubelet's default, 100Mi).
EVICTION_HARD_MI = 100
#: ``evictionMaxPodGracePeriod`` of the run, seconds: a soft eviction's grace period.
EVICTION_MAX_POD_GRACE_PERIOD_SECONDS = 30


def memory_pressure_usage_mi(batch_growth_mi_per_minute: float = 180) -> dict[str, tuple[float, float, float]]:
    """The working-set growth of the memory-pressure pods: pod name -> (start MiB, MiB per second, cap MiB).

    ``db`` holds 900Mi; ``web`` starts at 300Mi and grows 90Mi a minute up to
    its 1.5Gi limit; ``batch`` starts at 100Mi and grows
    ``batch_growth_mi_per_minute`` without a cap. The ``usage`` steps of
    ``data/qos/memory-pressure.yaml`` sample these curves (at 180Mi a minute)
    every 10 s from 20 s on.

    Parameters
    ----------
    batch_growth_mi_per_minute : float
        Growth of ``batch``, MiB per minute.

    Returns
    -------
    dict[str, tuple[float, float, float]]
        Pod name -> (working set at 0 s in MiB, growth in MiB per second, cap in MiB).

    Raises
    ------
    TypeError
        ``batch_growth_mi_per_minute`` is not a number.

    Examples
    --------
    >>> memory_pressure_usage_mi(120)["batch"]
    (100.0, 2.0, 1000000000.0)
    """
    return {"db": (900.0, 0.0, 900.0), "web": (300.0, 1.5, 1536.0),
            "batch": (100.0, batch_growth_mi_per_minute / 60.0, 1e9)}


def _usage_bytes_at(usage_mi: Any, t: float) -> dict[str, int]:
    return {n: int(min(start + rate * t, cap) * _MI) for n, (start, rate, cap) in usage_mi.items()}


#: The soft-threshold file: the memory-pressure file whose ``spec.cluster.kubeletConfiguration`` adds ``evictionSoft``.
SOFT_THRESHOLD_FILE = "qos/soft-threshold.yaml"
#: The disk-pressure file: images of deleted pods, then a pod filling the node filesystem.
DISK_PRESSURE_FILE = "qos/disk-pressure.yaml"
#: When the memory-pressure file's usage steps start (s): the pods run from about 2 s.
USAGE_FROM_SECONDS = 20
#: How often its usage steps set the working sets (s): the eviction manager's monitoring period.
USAGE_EVERY_SECONDS = 10
#: ``batch``'s growth in the file, MiB per minute.
FILE_BATCH_GROWTH_MI_PER_MINUTE = 180


@dataclass
class PressureScenario:
    """A run of :func:`simulate_memory_pressure` or :func:`simulate_disk_pressure`: a Scenario file run as ``simulate`` runs it.

    Attributes
    ----------
    cluster : Cluster
        Stopped at ``until_seconds``.
    kubelet : Kubelet
        The node's kubelet model; its eviction manager's ``timeline`` holds every round.
    pods : list of dict
        The pods as the API shows them at the end (evicted ones with ``status.reason: Evicted``).
    usage_steps : dict[str, list[tuple[float, int]]]
        Pod name -> the working sets its ``usage`` steps set, ``(at seconds, bytes)`` in time order.
    hard_mi, soft_mi : int
        Thresholds on ``memory.available``, MiB (soft 0 = none).
    memory_capacity_bytes : int
    """

    cluster: Any
    kubelet: Any
    pods: list[dict[str, Any]]
    usage_steps: dict[str, list[tuple[float, int]]]
    hard_mi: int
    soft_mi: int
    memory_capacity_bytes: int

    @property
    def manager(self) -> Any:
        """The node's :class:`~kubenotes.kubelet.eviction_manager.EvictionManager` (its ``timeline``)."""
        return self.kubelet.eviction_manager

    def usage_bytes_at(self, t: float) -> dict[str, int]:
        """Each pod's working set as the scenario's ``usage`` steps had set it by virtual time ``t``.

        Parameters
        ----------
        t : float
            Virtual time, seconds.

        Returns
        -------
        dict[str, int]
            Pod name -> working set, bytes (an evicted pod keeps its last value; 0 before its first step).

        Examples
        --------
        >>> simulate_memory_pressure().usage_bytes_at(60)["web"] // 2**20
        390
        """
        return {name: next((b for at, b in reversed(steps) if at <= t), 0) for name, steps in self.usage_steps.items()}


def single_container_pod(
    name: str = "app",
    cpu_request_milli: int = 0,
    cpu_limit_milli: int = 0,
    memory_request_mi: int = 0,
    memory_limit_mi: int = 0,
    *,
    priority: int = 0,
    uid: str | None = None,
) -> dict[str, Any]:
    """A JSON-shaped pod with one container; 0 leaves a request or limit unset.

    As the API server's defaulting does, a limit without a request makes the
    request equal to the limit.

    Parameters
    ----------
    name : str
        Pod and container name (namespace ``default``).
    cpu_request_milli, cpu_limit_milli : int
        CPU request and limit, millicores (0: unset).
    memory_request_mi, memory_limit_mi : int
        Memory request and limit, MiB (0: unset).
    priority : int
        ``spec.priority`` (what the Priority admission plugin would fill in).
    uid : str, optional
        ``metadata.uid``; defaults to ``name`` (the pod cgroup is ``pod<uid>``).

    Returns
    -------
    dict
        A Pod dict (``apiVersion``, ``kind``, ``metadata``, ``spec``) with one
        ``pause`` container whose ``resources`` holds only what is set.

    Raises
    ------
    kubenotes.errors.InvalidQuantity
        Not here: amounts are formatted as given, so a non-numeric one fails
        later, when the pod's quantities are parsed (e.g. by :func:`qos_values`).

    Notes
    -----
    Only the request-from-limit default is applied; the rest of the API
    server's defaulting (``restartPolicy``, ``dnsPolicy``, ...) is not.

    Examples
    --------
    >>> single_container_pod("web", 250, 500, 256, 0)["spec"]["containers"][0]["resources"]
    {'requests': {'cpu': '250m', 'memory': '256Mi'}, 'limits': {'cpu': '500m'}}
    >>> single_container_pod("db", 0, 1000, 0, 1024)["spec"]["containers"][0]["resources"]["requests"]
    {'cpu': '1000m', 'memory': '1024Mi'}
    """
    requests: dict[str, str] = {}
    limits: dict[str, str] = {}
    if cpu_limit_milli:
        limits["cpu"] = f"{cpu_limit_milli}m"
    if memory_limit_mi:
        limits["memory"] = f"{memory_limit_mi}Mi"
    if cpu_request_milli or cpu_limit_milli:
        requests["cpu"] = f"{cpu_request_milli or cpu_limit_milli}m"
    if memory_request_mi or memory_limit_mi:
        requests["memory"] = f"{memory_request_mi or memory_limit_mi}Mi"
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": uid or name},
        "spec": {"priority": priority, "containers": [{"name": name, "image": "registry.k8s.io/pause:3.10",
                                                        "resources": resources}]},
    }


def memory_pressure_pods(best_effort_priority: int = 0) -> list[dict[str, Any]]:
    """The pods of ``data/qos/memory-pressure.yaml``: ``db`` (Guaranteed), ``web`` (Burstable), ``batch`` (BestEffort).

    Parameters
    ----------
    best_effort_priority : int
        ``spec.priority`` of ``batch``; the others get 0, as the Priority
        admission plugin gives a pod without a ``priorityClassName``.

    Returns
    -------
    list of dict
        Pod dicts, in file order: ``db`` (500m/500m, 1024Mi/1024Mi), ``web``
        (250m/1000m, 512Mi/1536Mi), ``batch`` (none); each container's
        ``resources`` lists ``requests`` before ``limits``, as the file does.

    Raises
    ------
    ManifestError, NotFound
        As :func:`load_scenario_file`, when the file is malformed or missing.

    Examples
    --------
    >>> from kubenotes.api.qos import pod_qos_class
    >>> [pod_qos_class(p) for p in memory_pressure_pods()]
    ['Guaranteed', 'Burstable', 'BestEffort']
    """
    objects, _ = load_scenario_file(MEMORY_PRESSURE_FILE)
    pods = [o for o in objects if o.get("kind") == "Pod"]
    for p in pods:
        for c in p["spec"]["containers"]:
            r = c.get("resources") or {}
            c["resources"] = {k: r[k] for k in ("requests", "limits", *r) if k in r}
        # spec.priority as the Priority admission plugin fills it in (no priorityClassName, no global default: 0)
        p["spec"]["priority"] = best_effort_priority if p["metadata"]["name"] == "batch" else 0
    return pods


def _usage_steps(scenario: Scenario) -> dict[str, list[tuple[float, int]]]:
    out: dict[str, list[tuple[float, int]]] = {}
    for st in scenario.steps:
        if st.action == "usage" and st.args.get("memoryBytes") is not None:
            out.setdefault(st.args["name"], []).append((st.at_seconds, int(st.args["memoryBytes"])))
    return out


def _pressure_run(objects: list[dict], scenario: Scenario, until_seconds: float, seed: int, hard_mi: int,
                  soft_mi: int) -> PressureScenario:
    """Run the scenario as ``simulate`` does and keep what the chapter reads."""
    from kubenotes.api.quantity import memory_bytes

    node_obj = _find(objects, "Node")
    c = _cluster(objects, scenario, seed)
    for kubelet in c.kubelets.values():
        kubelet.runtime.trace_enabled = False  # a record only (-o cri): the runs are the same, a quarter faster
    c.run(until=until_seconds)
    order = [o["metadata"]["name"] for o in objects if o.get("kind") == "Pod"]
    pods = sorted((p for p in c.list("pods") if p["metadata"].get("namespace") == "default"),
                  key=lambda p: order.index(p["metadata"]["name"]) if p["metadata"]["name"] in order else len(order))
    return PressureScenario(c, c.kubelets[node_obj["metadata"]["name"]], pods, _usage_steps(scenario), hard_mi,
                            soft_mi, memory_bytes(node_obj["status"]["capacity"]["memory"]))


def simulate_memory_pressure(
    batch_growth_mi_per_minute: int = FILE_BATCH_GROWTH_MI_PER_MINUTE,
    soft_threshold_mi: int = 0,
    soft_grace_seconds: int = 60,
    best_effort_priority: int = 0,
    until_seconds: int = 900,
    seed: int = 0,
) -> PressureScenario:
    """``data/qos/memory-pressure.yaml`` run as ``python -m kubenotes simulate`` runs it, with a widget's parameters.

    The node (the file's ``worker-1``) has 4Gi of memory, 512Mi used by
    system daemons (the file's ``systemUsage`` step), and the kubelet's
    default ``evictionHard`` (``memory.available<100Mi``). Working sets follow
    :func:`memory_pressure_usage_mi`, set by ``usage`` steps every 10 s from
    20 s on: ``db`` holds 900Mi; ``web`` starts at 300Mi and grows 90Mi a
    minute up to its 1.5Gi limit; ``batch`` starts at 100Mi and grows
    ``batch_growth_mi_per_minute``. The kubelet model's eviction manager
    reads them from its stats summary every 10 s and evicts through the pod worker.

    Parameters
    ----------
    batch_growth_mi_per_minute : int
        180 runs the file's steps; another rate replaces ``batch``'s steps
        with the same curve at that rate (every 10 s until ``until_seconds``).
    soft_threshold_mi : int
        ``evictionSoft memory.available`` in Mi (0: none); with one,
        ``data/qos/soft-threshold.yaml`` runs (the same node, pods and steps;
        1Gi for 1 min, ``evictionMaxPodGracePeriod`` 30 s) with this
        threshold and grace period.
    soft_grace_seconds : int
        ``evictionSoftGracePeriod``, seconds; read only with a soft threshold
        (without one, every value gives the same, memoised run).
    best_effort_priority : int
        ``batch``'s priority: not 0 adds a PriorityClass ``batch-priority`` of
        that value and names it in ``batch``'s ``priorityClassName``.
    until_seconds : int
    seed : int

    Returns
    -------
    PressureScenario

    Raises
    ------
    ManifestError, NotFound
        As :func:`load_scenario_file`, when a file is malformed or missing.

    Notes
    -----
    With the defaults this is ``python -m kubenotes simulate
    data/qos/memory-pressure.yaml --until 900``; with ``soft_threshold_mi=1024,
    soft_grace_seconds=60`` it is ``... data/qos/soft-threshold.yaml``: the
    same cluster, the same evictions.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/eviction_manager.go
    https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/

    Examples
    --------
    >>> s = simulate_memory_pressure()
    >>> first_eviction(s).evicted, first_eviction(s).time
    ('default/batch', 490.0)
    """
    # without a soft threshold the grace period is not part of the run: one memo entry for all its values
    return _simulate_memory_pressure(int(batch_growth_mi_per_minute), int(soft_threshold_mi),
                                     int(soft_grace_seconds) if soft_threshold_mi else 0,
                                     int(best_effort_priority), int(until_seconds), int(seed))


@functools.lru_cache(maxsize=64)
def _simulate_memory_pressure(batch_growth_mi_per_minute: int, soft_threshold_mi: int, soft_grace_seconds: int,
                              best_effort_priority: int, until_seconds: int, seed: int) -> PressureScenario:
    """:func:`simulate_memory_pressure`, memoised on all its arguments however they were passed."""
    from kubenotes.kubelet.eviction import SIGNAL_MEMORY_AVAILABLE

    objects, scenario = load_scenario_file(SOFT_THRESHOLD_FILE if soft_threshold_mi else MEMORY_PRESSURE_FILE)
    steps = list(scenario.steps)
    if batch_growth_mi_per_minute != FILE_BATCH_GROWTH_MI_PER_MINUTE:
        usage = memory_pressure_usage_mi(batch_growth_mi_per_minute)
        steps = [st for st in steps if not (st.action == "usage" and st.args["name"] == "batch")]
        steps += [Step(float(t), "usage", {"name": "batch", "container": "batch",
                                           "memoryBytes": _usage_bytes_at(usage, float(t))["batch"]})
                  for t in range(USAGE_FROM_SECONDS, int(until_seconds) + 1, USAGE_EVERY_SECONDS)]
        steps.sort(key=lambda st: st.at_seconds)
    cluster = dict(scenario.cluster)
    if soft_threshold_mi:
        cluster["kubeletConfiguration"] = {**cluster["kubeletConfiguration"],
                                           "evictionSoft": {SIGNAL_MEMORY_AVAILABLE: f"{soft_threshold_mi}Mi"},
                                           "evictionSoftGracePeriod": {SIGNAL_MEMORY_AVAILABLE: f"{soft_grace_seconds}s"}}
    if best_effort_priority:
        objects.insert(0, {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                        "metadata": {"name": "batch-priority"}, "value": int(best_effort_priority)})
        # as the Priority admission plugin resolves it (the cluster stores its initial objects as given)
        _find(objects, "Pod", "batch")["spec"].update(priorityClassName="batch-priority",
                                                      priority=int(best_effort_priority))
    scenario = Scenario(scenario.name, tuple(steps), cluster)
    return _pressure_run(objects, scenario, float(until_seconds), seed, EVICTION_HARD_MI, soft_threshold_mi)


@functools.lru_cache(maxsize=4)
def simulate_disk_pressure(until_seconds: int = 560, seed: int = 0) -> PressureScenario:
    """``data/qos/disk-pressure.yaml`` run as ``python -m kubenotes simulate`` runs it.

    Parameters
    ----------
    until_seconds : int
    seed : int

    Returns
    -------
    PressureScenario
        Its eviction manager's rounds show the node-level reclaim (``reclaimed``).

    Raises
    ------
    ManifestError, NotFound
        As :func:`load_scenario_file`.

    Examples
    --------
    >>> r = next(r for r in simulate_disk_pressure().manager.timeline if r.reclaimed)
    >>> r.time, r.reclaim_sufficient, r.evicted
    (440.0, True, None)
    """
    objects, scenario = load_scenario_file(DISK_PRESSURE_FILE)
    return _pressure_run(objects, scenario, float(until_seconds), seed, EVICTION_HARD_MI, 0)


def eviction_events(scenario: PressureScenario) -> list[tuple[float, str, str, str, str]]:
    """The kubelet's eviction Events of a run: ``EvictionThresholdMet`` on the node, ``Evicted`` on the pod.

    Parameters
    ----------
    scenario : PressureScenario

    Returns
    -------
    list of tuple
        ``(time, involved object, type, reason, message)`` in time order;
        the involved object is ``Node/<name>`` or ``<namespace>/<pod>``.

    Raises
    ------
    AttributeError
        ``scenario`` has no ``kubelet``.

    Examples
    --------
    >>> [(t, who, reason) for t, who, _, reason, _ in eviction_events(simulate_memory_pressure())]
    [(490.0, 'Node/worker-1', 'EvictionThresholdMet'), (490.0, 'default/batch', 'Evicted')]
    """
    from kubenotes.kubelet.eviction import REASON
    from kubenotes.kubelet.eviction_manager import EVICTION_THRESHOLD_MET

    out = []
    for e in scenario.kubelet.events:
        if e["reason"] in (EVICTION_THRESHOLD_MET, REASON):
            who = f"{e['namespace']}/{e['pod']}" if e.get("pod") else f"Node/{e['node']}"
            out.append((e["time"], who, e["type"], e["reason"], e["message"]))
    return out


def evictions(scenario: PressureScenario) -> list[Any]:
    """The rounds that evicted a pod, in time order.

    Parameters
    ----------
    scenario : PressureScenario
        A :func:`simulate_memory_pressure` run.

    Returns
    -------
    list of kubenotes.kubelet.eviction_manager.SyncResult
        The rounds whose ``evicted`` is set (at most one pod per round, as
        the kubelet evicts one pod per synchronize).

    Raises
    ------
    AttributeError
        ``scenario`` has no ``manager.timeline``.

    See Also
    --------
    first_eviction

    Examples
    --------
    >>> [(r.time, r.evicted) for r in evictions(simulate_memory_pressure())]
    [(490.0, 'default/batch')]
    """
    return [r for r in scenario.manager.timeline if r.evicted]


def first_eviction(scenario: PressureScenario) -> Any:
    """The first round that evicted a pod, or None.

    Parameters
    ----------
    scenario : PressureScenario
        A :func:`simulate_memory_pressure` run.

    Returns
    -------
    kubenotes.kubelet.eviction_manager.SyncResult or None
        The earliest evicting round; None when nothing was evicted.

    Raises
    ------
    AttributeError
        ``scenario`` has no ``manager.timeline``.

    Examples
    --------
    >>> r = first_eviction(simulate_memory_pressure())
    >>> r.time, r.evicted, r.ranking
    (490.0, 'default/batch', ['batch', 'web', 'db'])
    >>> first_eviction(simulate_memory_pressure(until_seconds=200)) is None
    True
    """
    found = evictions(scenario)
    return found[0] if found else None


def eviction_rounds(scenario: PressureScenario, *, changes_only: bool = True) -> list[Any]:
    """The eviction manager's rounds, or only those where something changed.

    Parameters
    ----------
    scenario : PressureScenario
        A :func:`simulate_memory_pressure` run.
    changes_only : bool
        Keep only the rounds whose thresholds met, thresholds past their
        grace period, node conditions or eviction differ from the previous
        kept round, and every evicting round (False: every round).

    Returns
    -------
    list of kubenotes.kubelet.eviction_manager.SyncResult
        In time order.

    Raises
    ------
    AttributeError
        ``scenario`` has no ``manager.timeline``.

    See Also
    --------
    evictions, pressure_intervals

    Examples
    --------
    >>> s = simulate_memory_pressure()
    >>> [r.time for r in eviction_rounds(s)], len(eviction_rounds(s, changes_only=False)) > 4
    ([0, 490.0, 491.0, 791.0], True)
    """
    rounds = []
    last = None
    for r in scenario.manager.timeline:
        key = (tuple(r.thresholds_met), tuple(r.thresholds_grace_met), tuple(r.node_conditions), r.evicted)
        if changes_only and key == last and not r.evicted:
            continue
        last = key
        rounds.append(r)
    return rounds


def pressure_intervals(timeline: Any, condition: str = "MemoryPressure") -> list[tuple[float, float]]:
    """``(from, to)`` virtual-time spans during which ``condition`` was reported (``to`` is the first round without it).

    Parameters
    ----------
    timeline : sequence of SyncResult
        Eviction manager rounds in time order (``time``, ``node_conditions``).
    condition : str
        A node condition type.

    Returns
    -------
    list of tuple(float, float)
        Spans in seconds; a span still open at the end closes at the last
        round's time.

    Raises
    ------
    AttributeError
        A round has no ``node_conditions`` or ``time``.

    Examples
    --------
    >>> from kubenotes.kubelet.eviction_manager import SyncResult
    >>> rounds = [SyncResult(0), SyncResult(10, node_conditions=["MemoryPressure"]), SyncResult(20)]
    >>> pressure_intervals(rounds)
    [(10, 20)]
    """
    spans: list[tuple[float, float]] = []
    start = None
    for r in timeline:
        on = condition in r.node_conditions
        if on and start is None:
            start = r.time
        elif not on and start is not None:
            spans.append((start, r.time))
            start = None
    if start is not None:
        spans.append((start, timeline[-1].time))
    return spans


def kill_orders(scenario: PressureScenario, t: float | None = None) -> dict[str, list[tuple[str, int]]]:
    """The kubelet's eviction order and the kernel OOM killer's order for the same pods at time ``t``.

    Parameters
    ----------
    scenario : PressureScenario
        A :func:`simulate_memory_pressure` run.
    t : float, optional
        Default: the time of the first eviction.

    Returns
    -------
    dict
        ``{"kubelet": [(pod, usage - request in bytes)], "kernel": [(pod,
        badness in bytes)], "oom_score_adj": [(pod, adj)]}``, first victim first.

    Raises
    ------
    IndexError
        ``t`` is None, nothing was evicted and the timeline is empty.

    See Also
    --------
    kubenotes.kubelet.eviction.rank_memory_pressure, kubenotes.kubelet.qos.oom_kill_order

    Notes
    -----
    Working sets are what the scenario's ``usage`` steps set by ``t`` (an
    evicted pod counts with its last one); the kernel's badness is a model of
    ``oom_badness`` (RSS plus ``oom_score_adj`` × total memory / 1000, at
    least 1).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy.go

    Examples
    --------
    >>> orders = kill_orders(simulate_memory_pressure())
    >>> [n for n, _ in orders["kubelet"]], [n for n, _ in orders["kernel"]]
    (['batch', 'web', 'db'], ['batch', 'web', 'db'])
    """
    from kubenotes.kubelet.eviction import get_resource_request_quantity, rank_memory_pressure
    from kubenotes.kubelet.qos import container_oom_score_adjust, oom_kill_order

    if t is None:
        ev = first_eviction(scenario)
        t = ev.time if ev is not None else scenario.manager.timeline[-1].time
    usage = scenario.usage_bytes_at(t)
    stats = {p["metadata"]["uid"]: {"containers": [{"name": p["metadata"]["name"],
                                                    "memory": {"workingSetBytes": usage[p["metadata"]["name"]]}}]}
             for p in scenario.pods}
    ranked = rank_memory_pressure(scenario.pods, stats)
    kubelet = [(p["metadata"]["name"],
                usage[p["metadata"]["name"]] - int(get_resource_request_quantity(p, "memory").value)) for p in ranked]
    adj = [(p["metadata"]["name"], container_oom_score_adjust(p, p["metadata"]["name"], scenario.memory_capacity_bytes))
           for p in scenario.pods]
    kernel = oom_kill_order([(n, usage[n], a) for n, a in adj], scenario.memory_capacity_bytes)
    return {"kubelet": kubelet, "kernel": kernel, "oom_score_adj": adj}
