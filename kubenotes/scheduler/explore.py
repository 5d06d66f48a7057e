"""What-ifs for chapter 04.00's later sections: inter-pod affinity, preemption controls and an extender.

Mirrors no single upstream package: each function changes one input the
user controls (a pod's ``spec.affinity``, its ``spec.priority``, a
PodDisruptionBudget, an extender's configuration) and runs the library's
scheduler (``kubenotes.scheduler.schedule_one``, as
``pkg/scheduler/schedule_one.go``) once for one pod on a running cluster.
The plugins involved are ``interpodaffinity``, ``imagelocality``,
``defaultpreemption`` and the ``HTTPExtender`` of ``pkg/scheduler/extender.go``.

Notes
-----
Only inputs change; every decision is the scheduler's own. The PDB added by
:func:`preemption_what_if` has no status, so its ``disruptionsAllowed`` is
computed from its spec (as the disruption controller would), see
:func:`~kubenotes.scheduler.plugins.defaultpreemption.disruptions_allowed_from_spec`.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/preemption/preemption.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/extender.go
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from kubenotes.scheduler.config import as_config_dict, load_config
from kubenotes.scheduler.extender import DemoExtender
from kubenotes.scheduler.schedule_one import new_scheduler
from kubenotes.scheduler.whatif import _running_cluster

__all__ = ["pod_affinity_variant", "preemption_what_if", "extender_what_if", "AFFINITY_KINDS", "AFFINITY_MODES"]

#: ``spec.affinity`` fields a pod-affinity term goes under.
AFFINITY_KINDS = ("podAffinity", "podAntiAffinity")
#: Required (a Filter) or preferred (a Score) terms.
AFFINITY_MODES = ("required", "preferred")


def pod_affinity_variant(
    pod: Any,
    *,
    kind: str = "podAffinity",
    mode: str = "required",
    topology_key: str = "kubernetes.io/hostname",
    match_labels: Mapping[str, str] | None = None,
    weight: int = 100,
    image: str | None = None,
) -> Any:
    """A copy of a pending pod with one inter-pod (anti-)affinity term, and optionally another image.

    Parameters
    ----------
    pod : lightkube Pod
    kind : {"podAffinity", "podAntiAffinity"}
    mode : {"required", "preferred"}
        ``requiredDuringSchedulingIgnoredDuringExecution`` (a Filter: nodes
        breaking it are rejected) or ``preferredDuringSchedulingIgnoredDuringExecution``
        (a Score, with ``weight``).
    topology_key : str
        The node label whose value defines a topology domain
        (``kubernetes.io/hostname``: a node; ``topology.kubernetes.io/zone``: a zone).
    match_labels : mapping of str to str, optional
        The term's ``labelSelector.matchLabels``; None: no term at all (the
        pod's own affinity is removed).
    weight : int
        A preferred term's weight, 1-100.
    image : str, optional
        New image of the first container (for ImageLocality).

    Returns
    -------
    lightkube Pod
        A new object; ``pod`` is unchanged. The term selects pods in the pod's
        own namespace (no ``namespaces``/``namespaceSelector``), as upstream defaults it.

    Raises
    ------
    ValueError
        When ``kind`` or ``mode`` is not one of the values above.

    See Also
    --------
    kubenotes.scheduler.whatif.schedule_what_if : schedules the variant.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/api/core/v1/types.go (PodAffinityTerm, WeightedPodAffinityTerm)

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> p = pod_affinity_variant(make_pod("web"), kind="podAntiAffinity", mode="preferred",
    ...                          topology_key="topology.kubernetes.io/zone", match_labels={"app": "web"}, weight=50)
    >>> t = p.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]
    >>> t.weight, t.podAffinityTerm.topologyKey, t.podAffinityTerm.labelSelector.matchLabels
    (50, 'topology.kubernetes.io/zone', {'app': 'web'})
    >>> pod_affinity_variant(make_pod("web"), kind="nodeAffinity")
    Traceback (most recent call last):
    ValueError: kind must be one of ('podAffinity', 'podAntiAffinity'), not 'nodeAffinity'
    """
    if kind not in AFFINITY_KINDS:
        raise ValueError(f"kind must be one of {AFFINITY_KINDS}, not {kind!r}")
    if mode not in AFFINITY_MODES:
        raise ValueError(f"mode must be one of {AFFINITY_MODES}, not {mode!r}")
    d = pod.to_dict()
    spec = d.setdefault("spec", {})
    if image is not None:
        spec["containers"][0]["image"] = image
    aff = dict(spec.get("affinity") or {})
    aff.pop("podAffinity", None)
    aff.pop("podAntiAffinity", None)
    if match_labels is not None:
        term = {"labelSelector": {"matchLabels": dict(match_labels)}, "topologyKey": topology_key}
        if mode == "required":
            aff[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
        else:
            aff[kind] = {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": int(weight), "podAffinityTerm": term}]}
    if aff:
        spec["affinity"] = aff
    else:
        spec.pop("affinity", None)
    return type(pod).from_dict(d)


def _with_priority(pod: Any, priority: int) -> Any:
    d = pod.to_dict()
    d["spec"]["priority"] = int(priority)
    return type(pod).from_dict(d)


def _pdb(namespace: str, match_labels: Mapping[str, str], max_unavailable: int) -> Any:
    from lightkube.resources.policy_v1 import PodDisruptionBudget

    return PodDisruptionBudget.from_dict({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "what-if", "namespace": namespace},
        "spec": {"maxUnavailable": int(max_unavailable), "selector": {"matchLabels": dict(match_labels)}},
    })


def preemption_what_if(
    manifests: Any,
    pod: Any,
    *,
    priority: int | None = None,
    pdb: tuple[str, Mapping[str, str], int] | None = None,
    config: Any = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Schedule one pod once with another priority and an extra PodDisruptionBudget; show preemption's reasoning.

    Parameters
    ----------
    manifests : Manifests
        The running cluster (its pending pods are ignored).
    pod : lightkube Pod
        The preemptor.
    priority : int, optional
        Its ``spec.priority`` (what Priority admission copies from the
        PriorityClass); None keeps the pod's.
    pdb : tuple of (str, mapping, int), optional
        ``(namespace, matchLabels, maxUnavailable)`` of a PodDisruptionBudget
        added to the cluster's.
    config : any, optional
        See :func:`~kubenotes.scheduler.config.as_config_dict`.
    seed : int

    Returns
    -------
    dict
        The attempt's trace (CLI JSON record: ``nodeName``, ``nominatedNodeName``,
        ``victims``, ``message`` ...) plus ``"candidates"``: one row per node
        the preemption dry run evaluated (``node``, ``victims``,
        ``pdb_violations``, ``status``, ``selected``), in visiting order; empty
        when the pod fitted or was not eligible to preempt.

    Raises
    ------
    ConfigError
        When ``config`` is invalid.

    See Also
    --------
    kubenotes.scheduler.plugins.defaultpreemption.PreemptionTrace

    Notes
    -----
    Among candidates, upstream's ``pickOneNodeForPreemption`` picks the node
    with the fewest PDB violations, then the lowest highest-victim priority,
    the smallest sum of victim priorities, the fewest victims, the latest
    start time of the highest-priority victims; the model follows it.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/preemption/preemption.go (pickOneNodeForPreemption)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (SelectVictimsOnNode)

    Examples
    --------
    >>> from kubenotes.api.manifests import load_manifests
    >>> from kubenotes.scheduler.testing import make_pod
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ---
    ... apiVersion: v1
    ... kind: Pod
    ... metadata: {name: low, namespace: default, labels: {app: low}}
    ... spec: {nodeName: n1, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}
    ... ''')
    >>> big = make_pod("big", requests={"cpu": "2"})
    >>> r = preemption_what_if(m, big, priority=10)
    >>> r["nominatedNodeName"], r["victims"], r["candidates"][0]["pdb_violations"]
    ('n1', ['default/low'], 0)
    >>> preemption_what_if(m, big, priority=10, pdb=("default", {"app": "low"}, 0))["candidates"][0]["pdb_violations"]
    1
    >>> r = preemption_what_if(m, big, priority=0)   # equal priority: nothing to evict
    >>> r["victims"], r["candidates"][0]["status"]
    ([], 'UnschedulableAndUnresolvable: No preemption victims found for incoming pod')
    """
    cfg = load_config(as_config_dict(config))
    nodes, running, objects = _running_cluster(manifests)
    if pdb is not None:
        ns, labels, max_unavailable = pdb
        objects = dataclasses.replace(objects, pod_disruption_budgets=[*objects.pod_disruption_budgets,
                                                                       _pdb(ns, labels, max_unavailable)])
    preemptor = _with_priority(pod, priority) if priority is not None else pod
    sched = new_scheduler(nodes, [*running, preemptor], config=cfg, objects=objects, seed=seed)
    out = sched.run(max_attempts=1)[0].to_dict()
    trace = None
    for pl in sched.framework.post_filter_plugins:
        ev = getattr(pl, "evaluator", None)
        if ev is not None and ev.last_trace is not None:
            trace = ev.last_trace
    out["candidates"] = trace.rows() if trace is not None else []
    return out


def extender_what_if(
    manifests: Any,
    pod: Any,
    *,
    config: Any,
    avoid_zones: tuple[str, ...] = (),
    prefer_zone: str | None = None,
    weight: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Schedule one pod with the configuration's first extender answered in-process by a :class:`DemoExtender`.

    Parameters
    ----------
    manifests : Manifests
        The running cluster (its pending pods are ignored).
    pod : lightkube Pod
    config : any
        A configuration with at least one ``extenders`` entry (e.g.
        ``data/extenders/scheduler-config.yaml``); see
        :func:`~kubenotes.scheduler.config.as_config_dict`.
    avoid_zones, prefer_zone
        The demo extender's behaviour (see :class:`DemoExtender`).
    weight : int, optional
        Overrides the first extender's ``weight`` (1 or more).
    seed : int

    Returns
    -------
    dict
        The attempt's trace (CLI JSON record; the extender appears as a
        Filter and Score column named by its ``urlPrefix``) plus
        ``"exchanges"``: ``(verb, request, status code, response)`` of each
        call, in order, the JSON on the wire.

    Raises
    ------
    ValueError
        When the configuration has no extender.
    ConfigError
        When the configuration (with the new weight) is invalid.

    See Also
    --------
    kubenotes.scheduler.extender.HTTPExtender, kubenotes.scheduler.extender.ExtenderServer

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/extender.go
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (findNodesThatPassExtenders, prioritizeNodes)

    Examples
    --------
    >>> from kubenotes.api.manifests import load_manifests
    >>> from kubenotes.scheduler.testing import make_pod
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: a1, labels: {topology.kubernetes.io/zone: a}}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ---
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: b1, labels: {topology.kubernetes.io/zone: b}}
    ... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
    ... ''')
    >>> cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    ...        "extenders": [{"urlPrefix": "http://x/s", "filterVerb": "filter", "prioritizeVerb": "prioritize",
    ...                        "weight": 1}]}
    >>> r = extender_what_if(m, make_pod("p"), config=cfg, prefer_zone="b", weight=3)
    >>> r["nodeName"], r["finalScore"]["b1"]["http://x/s"], [e[0] for e in r["exchanges"]]   # 10 * 3 * 10
    ('b1', 300, ['filter', 'prioritize'])
    >>> r = extender_what_if(m, make_pod("p"), config=cfg, avoid_zones=("b",))   # one node left: no prioritize
    >>> r["nodeName"], r["filter"]["b1"]["http://x/s"], [e[0] for e in r["exchanges"]]
    ('a1', 'zone b is avoided by the extender', ['filter'])
    >>> extender_what_if(m, make_pod("p"), config=None)
    Traceback (most recent call last):
    ValueError: the configuration has no extenders
    """
    d = as_config_dict(config)
    exts = [dict(e) for e in (d.get("extenders") or [])]
    if not exts:
        raise ValueError("the configuration has no extenders")
    if weight is not None:
        exts[0]["weight"] = int(weight)
    d = {**d, "extenders": exts}
    cfg = load_config(d)
    nodes, running, objects = _running_cluster(manifests)
    demo = DemoExtender(avoid_zones=avoid_zones, prefer_zone=prefer_zone, nodes=nodes)
    sched = new_scheduler(nodes, [*running, pod], config=cfg, objects=objects, seed=seed,
                          extender_services={exts[0]["urlPrefix"]: demo})
    out = sched.run(max_attempts=1)[0].to_dict()
    out["exchanges"] = [x for e in sched.extenders for x in getattr(e, "exchanges", ())]
    return out
