"""History and run queries behind the controllers' and kubelet's chapters: timelines as plain values.

Nothing here draws. The controllers' queries read a running cluster's stored
history (:func:`kubenotes.sim.history.object_history`: the watch cache replayed
from resourceVersion 1, timed by the audit log), the way ``kubectl get -w``
shows it; the kubelet's read the traces of one pod run of
:mod:`kubenotes.sim.scenarios` (the CRI call trace, the kubelet's events, its
status writes and its probe runs). :mod:`kubenotes.viz.controllers` and
:mod:`kubenotes.viz.kubelet` draw the results.

* :func:`rollout_timeline` (a :class:`RolloutTimeline`): a Deployment's
  ReplicaSets and pods over virtual time, with the ``maxSurge`` /
  ``maxUnavailable`` fences resolved as the deployment controller resolves them;
  :func:`series_value_at` and :func:`series_extremes` read its step series,
  :func:`rollout_done_at` finds when it completed;
* :func:`cascade_writes`: the writes of a cascading delete, in commit order;
  :func:`events_by_time` and :func:`audit_entries`: a cluster's Events by
  last seen and its API writes in a window;
* :func:`node_timeline`, :func:`pods_per_node_timeline`, :func:`job_attempts`
  and :func:`rc_sizes`: a node's conditions and taints, pods per node, a Job's
  attempts and ReplicationControllers' sizes over time;
* :func:`start_timeline`, :func:`status_history`, :func:`restart_history`,
  :func:`restart_counts` and :func:`pod_events`: one pod's start, its status
  writes, its restarts and back-off, and the kubelet's events about it;
* :func:`static_pod_merges` and :func:`mirror_pod_history`: the kubelet's
  merge of a static manifest directory, and the API writes on the mirror pod.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/util/deployment_util.go (MaxSurge, MaxUnavailable, ResolveFenceposts)
kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle/node_lifecycle_controller.go (monitorNodeHealth)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go (the history)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (SyncPod, doBackOff)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/status/status_manager.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/config.go (podStorage.merge)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from kubenotes.api.meta import get_controller_of as _controller_ref  # one home: metav1.GetControllerOf
from kubenotes.api.podutil import is_pod_ready as _pod_ready  # one home: pkg/api/v1/pod
from kubenotes.apiserver.server import parse_timestamp
from kubenotes.kubelet.config import (CONFIG_FIRST_SEEN_ANNOTATION_KEY, CONFIG_HASH_ANNOTATION_KEY,
                                       CONFIG_MIRROR_ANNOTATION_KEY, CONFIG_SOURCE_ANNOTATION_KEY, PodStorage,
                                       extract_from_dir, is_mirror_pod_of, mirror_pod)
from kubenotes.sim.history import is_cluster as _is_cluster
from kubenotes.sim.history import object_history
from kubenotes.sim.history import resource_version as _rv

if TYPE_CHECKING:
    from kubenotes.apiserver.server import AuditEntry
    from kubenotes.sim.scenarios import PodRun, ScenarioRun, StaticPodRun

__all__ = [
    "RolloutTimeline",
    "rollout_timeline",
    "series_value_at",
    "series_extremes",
    "rollout_done_at",
    "series_held_seconds",
    "node_failure_milestones",
    "cascade_writes",
    "events_by_time",
    "audit_entries",
    "node_timeline",
    "pods_per_node_timeline",
    "job_attempts",
    "rc_sizes",
    "LIFECYCLE_METHODS",
    "container_names",
    "running_spans",
    "start_timeline",
    "status_history",
    "restart_history",
    "restart_counts",
    "pod_events",
    "static_pod_merges",
    "mirror_pod_history",
    "STATIC_MANIFEST",
    "static_pod_fields",
]


# ---------------------------------------------------------------------------
# the controllers: a cluster's history


class RolloutTimeline(dict):
    """A Deployment's rollout over time: series name -> ``[(seconds, value), ...]`` steps.

    Keys
    ----
    ``replicas``
        The Deployment's ``spec.replicas``.
    ``surge_bound``
        ``spec.replicas + MaxSurge``: the most pods the rollout may run.
    ``min_available``
        ``spec.replicas - MaxUnavailable``: the fewest available pods it may leave.
    ``spec_total``
        Σ ``spec.replicas`` of the Deployment's ReplicaSets (what the deployment controller counts).
    ``pods``
        The ReplicaSets' pods that are not terminating (no ``deletionTimestamp``).
    ``ready``
        Of those, the pods whose ``Ready`` condition is True.
    ``available``
        Σ ``status.availableReplicas`` of the ReplicaSets (ready for ``minReadySeconds``).
    ``rs:<name>``, ``rs:<name>:ready``, ``rs:<name>:available``
        One ReplicaSet's ``spec.replicas``, ``status.readyReplicas`` and ``status.availableReplicas``.

    Each series holds a point whenever its value changed (several points may
    share a time: every write at one instant is a state the store held).

    Attributes
    ----------
    deployment : str
        ``namespace/name``.
    replica_sets : list of str
        ReplicaSet names, oldest first.
    revisions : dict[str, int]
        ReplicaSet name -> ``deployment.kubernetes.io/revision``.
    changes : list of tuple(float, str)
        When the Deployment's spec changed and how (``image nginx:1.28.0``, ``replicas 4->6``...).
    end_seconds : float
        The time the timeline reaches (the cluster's clock, or the last revision).
    """

    def __init__(self, deployment: str = ""):
        super().__init__()
        self.deployment = deployment
        self.replica_sets: list[str] = []
        self.revisions: dict[str, int] = {}
        self.changes: list[tuple[float, str]] = []
        self.end_seconds = 0.0

    @property
    def new_replica_set(self) -> str | None:
        """The ReplicaSet with the highest revision (the rollout's target), or None."""
        if not self.replica_sets:
            return None
        return max(self.replica_sets, key=lambda n: (self.revisions.get(n, 0), self.replica_sets.index(n)))


_FIXED_SERIES = ("replicas", "surge_bound", "min_available", "spec_total", "pods", "ready", "available")


def _fenceposts(dep: Mapping[str, Any]) -> tuple[int, int]:
    """(MaxSurge, MaxUnavailable) as the deployment controller resolves them (25%/25% when unset)."""
    from kubenotes.controllers.deployment_util import max_surge_and_unavailable

    spec = dict(dep.get("spec") or {})
    strategy = dict(spec.get("strategy") or {})
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        ru = dict(strategy.get("rollingUpdate") or {})
        ru.setdefault("maxSurge", "25%")
        ru.setdefault("maxUnavailable", "25%")
        strategy["rollingUpdate"] = ru
    spec["strategy"] = strategy
    spec.setdefault("replicas", 1)
    return max_surge_and_unavailable({"spec": spec})


def _images(dep: Mapping[str, Any]) -> list[str]:
    pod_spec = (((dep.get("spec") or {}).get("template") or {}).get("spec") or {})
    return [str(c.get("image")) for c in pod_spec.get("containers") or ()]


def _describe_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    parts = []
    os_, ns_ = old.get("spec") or {}, new.get("spec") or {}
    if os_.get("replicas") != ns_.get("replicas"):
        parts.append(f"replicas {os_.get('replicas')}->{ns_.get('replicas')}")
    if _images(old) != _images(new):
        parts.append("image " + ", ".join(i.rsplit("/", 1)[-1] for i in _images(new)))
    elif os_.get("template") != ns_.get("template"):
        parts.append("pod template")
    if os_.get("strategy") != ns_.get("strategy"):
        parts.append("strategy")
    if bool(os_.get("paused")) != bool(ns_.get("paused")):
        parts.append("paused" if ns_.get("paused") else "resumed")
    return ", ".join(parts)


def rollout_timeline(source: Any, namespace: str, deployment: str) -> RolloutTimeline:
    """Old and new ReplicaSet sizes of a Deployment over virtual time.

    Parameters
    ----------
    source : Cluster or iterable of Revision
        A running cluster (its stored history is replayed) or revisions of
        Deployments, ReplicaSets and Pods.
    namespace : str
    deployment : str
        The Deployment's name. Its ReplicaSets are those whose controller
        ``ownerReference`` has the Deployment's uid; their pods those whose
        controller reference has a ReplicaSet's uid.

    Returns
    -------
    RolloutTimeline
        Series name -> ``[(seconds, value), ...]``, see :class:`RolloutTimeline`.

    Raises
    ------
    ApiError
        As :func:`object_history`.

    See Also
    --------
    kubenotes.viz.controllers.rollout_figure, series_extremes, simulate_rollout

    Notes
    -----
    The fences are recomputed from the Deployment's spec at each revision
    with :func:`kubenotes.controllers.deployment_util.max_surge_and_unavailable`
    (``maxSurge`` rounded up, ``maxUnavailable`` down, 25%/25% when unset).

    Examples
    --------
    >>> dep = {"kind": "Deployment", "metadata": {"name": "web", "namespace": "d", "uid": "D"},
    ...        "spec": {"replicas": 2, "strategy": {"type": "RollingUpdate",
    ...                 "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}}}
    >>> def rs(n, replicas, avail):
    ...     return {"kind": "ReplicaSet", "metadata": {"name": n, "namespace": "d", "uid": n,
    ...             "ownerReferences": [{"kind": "Deployment", "name": "web", "uid": "D", "controller": True}]},
    ...             "spec": {"replicas": replicas}, "status": {"availableReplicas": avail}}
    >>> from kubenotes.sim.history import Revision
    >>> h = [Revision(0, "ADDED", dep), Revision(1, "ADDED", rs("old", 2, 2)),
    ...      Revision(10, "ADDED", rs("new", 1, 0)), Revision(12, "MODIFIED", rs("new", 1, 1)),
    ...      Revision(12, "MODIFIED", rs("old", 1, 1))]
    >>> t = rollout_timeline(h, "d", "web")
    >>> t["spec_total"], t["surge_bound"], t.replica_sets, t["rs:new"]
    ([(0, 0), (1, 2), (10, 3), (12, 2)], [(0, 3)], ['old', 'new'], [(10, 1)])
    >>> series_extremes(t["available"], since=10)
    (2, 3)
    """
    hist = (object_history(source, "deployments", namespace) + object_history(source, "replicasets", namespace)
            + object_history(source, "pods", namespace))
    hist.sort(key=lambda r: (r.time, _rv(r.object)))
    out = RolloutTimeline(f"{namespace}/{deployment}")
    for k in _FIXED_SERIES:
        out[k] = []
    dep: dict | None = None
    dep_uid: str | None = None
    rss: dict[str, dict] = {}  # uid -> last RS object
    rs_names: dict[str, str] = {}
    pods: dict[str, tuple[str, bool, bool]] = {}  # pod uid -> (rs uid, terminating, ready)

    def owned_by_dep(obj: Mapping[str, Any]) -> bool:
        ref = _controller_ref(obj)
        if ref is None or ref.get("kind") != "Deployment":
            return False
        return ref.get("uid") == dep_uid if dep_uid and ref.get("uid") else ref.get("name") == deployment

    def put(key: str, t: float, v: int) -> None:
        s = out.setdefault(key, [])
        if not s or s[-1][1] != v:
            s.append((t, v))

    for rev in hist:
        o = rev.object
        md = o.get("metadata") or {}
        kind = o.get("kind")
        uid = md.get("uid") or md.get("name")
        if kind == "Deployment":
            if md.get("name") != deployment:
                continue
            if rev.type == "DELETED":
                dep = None
            else:
                if dep is not None and dep.get("spec") != o.get("spec"):
                    what = _describe_change(dep, o)
                    if what:
                        out.changes.append((rev.time, what))
                dep, dep_uid = o, md.get("uid") or dep_uid
        elif kind == "ReplicaSet":
            if uid not in rss and not owned_by_dep(o):
                continue
            if rev.type == "DELETED":
                rss.pop(uid, None)
            else:
                rss[uid] = o
                if uid not in rs_names:
                    rs_names[uid] = md["name"]
                    out.replica_sets.append(md["name"])
                ann = md.get("annotations") or {}
                try:
                    out.revisions[md["name"]] = int(ann.get("deployment.kubernetes.io/revision", 0))
                except ValueError:
                    pass
        elif kind == "Pod":
            ref = _controller_ref(o)
            owner = ref.get("uid") or ref.get("name") if ref and ref.get("kind") == "ReplicaSet" else None
            if owner not in rs_names and uid not in pods:
                continue
            if rev.type == "DELETED" or owner not in rs_names:
                pods.pop(uid, None)
            else:
                pods[uid] = (owner, bool(md.get("deletionTimestamp")), _pod_ready(o))
        else:
            continue
        t = rev.time
        if dep is not None:
            replicas = int((dep.get("spec") or {}).get("replicas", 1))
            surge, unavailable = _fenceposts(dep)
            put("replicas", t, replicas)
            put("surge_bound", t, replicas + surge)
            put("min_available", t, replicas - unavailable)
        live = [p for p in pods.values() if not p[1]]
        put("pods", t, len(live))
        put("ready", t, sum(1 for p in live if p[2]))
        total = avail = 0
        for rs_uid, rs in rss.items():
            name = rs_names[rs_uid]
            n = int((rs.get("spec") or {}).get("replicas", 1))
            st = rs.get("status") or {}
            total += n
            avail += int(st.get("availableReplicas") or 0)
            put(f"rs:{name}", t, n)
            put(f"rs:{name}:ready", t, int(st.get("readyReplicas") or 0))
            put(f"rs:{name}:available", t, int(st.get("availableReplicas") or 0))
        for rs_uid, name in rs_names.items():
            if rs_uid not in rss:
                put(f"rs:{name}", t, 0)
        put("spec_total", t, total)
        put("available", t, avail)
    last = hist[-1].time if hist else 0.0
    out.end_seconds = max(float(source.now), last) if _is_cluster(source) else float(last)
    return out


def series_value_at(series: Sequence[tuple[float, int]], t: float, default: int = 0) -> int:
    """The value of a step series at time ``t`` (after every change at ``t``).

    Parameters
    ----------
    series : sequence of tuple(float, int)
        ``(virtual seconds, value)`` steps in time order, e.g. a :class:`RolloutTimeline` series.
    t : float
        Virtual seconds.
    default : int
        The value before the first point.

    Returns
    -------
    int
        The value of the last point at or before ``t``; ``default`` when there is none.

    Raises
    ------
    TypeError
        When a point is not a ``(time, value)`` pair of numbers.

    See Also
    --------
    series_extremes

    Examples
    --------
    >>> s = [(0, 1), (5, 3), (5, 2)]
    >>> series_value_at(s, -1), series_value_at(s, 4.9), series_value_at(s, 5)
    (0, 1, 2)
    """
    v = default
    for x, y in series:
        if x > t:
            break
        v = y
    return v


def series_extremes(series: Sequence[tuple[float, int]], since: float = 0.0,
                    until: float | None = None) -> tuple[int, int]:
    """(minimum, maximum) a step series takes in ``[since, until]``, counting every intermediate state.

    Parameters
    ----------
    series : sequence of tuple(float, int)
        ``(virtual seconds, value)`` steps in time order; several points may share a time.
    since : float
        Window start (virtual seconds); the value held at ``since`` counts.
    until : float, optional
        Window end (inclusive); None for the end of the series.

    Returns
    -------
    tuple(int, int)
        (minimum, maximum) over the window; the first value when the series starts after it.

    Raises
    ------
    ValueError
        For an empty series.

    Examples
    --------
    >>> series_extremes([(0, 4), (10, 5), (10, 3), (20, 4)], since=10)
    (3, 5)
    """
    if not series:
        raise ValueError("empty series")
    before = [y for x, y in series if x < since]
    vals = before[-1:] + [y for x, y in series if x >= since and (until is None or x <= until)]
    if not vals:  # the series starts after the window
        vals = [series[0][1]]
    return min(vals), max(vals)


def series_held_seconds(series: Sequence[tuple[float, int]], value: int, since: float,
                        end: float) -> tuple[float, float]:
    """How long a step series holds ``value`` within ``[since, end]``, and when it first takes it there.

    A value set and replaced at the same virtual instant (4 -> 8 -> 7 in one reconcile) is held 0 s.

    Parameters
    ----------
    series : sequence of tuple(float, int)
        ``(virtual seconds, value)`` steps in time order; several points may share a time.
    value : int
    since, end : float
        The window (virtual seconds).

    Returns
    -------
    tuple(float, float)
        Seconds held in the window, and the first time it is taken there (``since`` when never).

    Raises
    ------
    TypeError
        For points that are not ``(time, value)`` pairs.

    See Also
    --------
    series_extremes

    Examples
    --------
    >>> series_held_seconds([(0, 4), (20, 8), (20, 7), (31, 4)], 8, 0, 60)
    (0.0, 20)
    >>> series_held_seconds([(0, 4), (20, 5), (31, 4)], 5, 0, 60)
    (11.0, 20)
    """
    held, first = 0.0, None
    prev_x, prev_y = since, series_value_at(series, since) if series and series[0][0] <= since else None
    if prev_y == value:
        first = since
    for x, y in series:
        if x <= since:
            if x == since and y == value and first is None:
                first = since  # taken at the window's first instant
            continue
        if prev_y == value:
            held += max(0.0, min(x, end) - prev_x)
        if y == value and first is None and x <= end:
            first = x
        prev_x, prev_y = x, y
    if prev_y == value and end > prev_x:
        held += end - prev_x
    return held, first if first is not None else since


def rollout_done_at(timeline: RolloutTimeline, since: float) -> float | None:
    """The first time from ``since`` on when the new ReplicaSet has every replica available and the old ones none.

    Parameters
    ----------
    timeline : RolloutTimeline
        From :func:`rollout_timeline`.
    since : float
        Virtual seconds: the rollout's start (times before it are not looked at).

    Returns
    -------
    float or None
        Virtual seconds; None when the timeline has no new ReplicaSet, only
        one ReplicaSet, or never reaches that state by its end.

    Raises
    ------
    KeyError
        When ``timeline`` lacks the ``replicas``, ``pods`` or a ReplicaSet's
        series (a dict not made by :func:`rollout_timeline`).

    See Also
    --------
    rollout_timeline, series_value_at

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/deployment/util/deployment_util.go (DeploymentComplete)

    Examples
    --------
    >>> t = RolloutTimeline("default/web")
    >>> t.update({"replicas": [(0, 2)], "pods": [(0, 2), (5, 3), (8, 2)], "rs:a": [(0, 2), (8, 0)],
    ...           "rs:b": [(5, 1), (7, 2)], "rs:b:available": [(6, 1), (8, 2)]})
    >>> t.replica_sets, t.revisions, t.end_seconds = ["a", "b"], {"a": 1, "b": 2}, 10.0
    >>> rollout_done_at(t, 5)
    8
    """
    new = timeline.new_replica_set
    if new is None or len(timeline.replica_sets) < 2:
        return None
    times = sorted({x for s in timeline.values() for x, _ in s if x >= since})
    want = series_value_at(timeline["replicas"], timeline.end_seconds)
    for x in times:
        if (series_value_at(timeline[f"rs:{new}:available"], x) == want and series_value_at(timeline["pods"], x) == want
                and all(series_value_at(timeline[f"rs:{o}"], x) == 0 for o in timeline.replica_sets if o != new)):
            return x
    return None


def cascade_writes(run: ScenarioRun) -> list[AuditEntry]:
    """The writes to Deployments, ReplicaSets and Pods from the delete on, without status updates.

    Parameters
    ----------
    run : ScenarioRun
        From :func:`kubenotes.sim.scenarios.simulate_cascade`; ``run.at_seconds`` is the delete's time.

    Returns
    -------
    list of AuditEntry
        In commit order; the first is the delete itself (``kubectl``).

    Raises
    ------
    AttributeError
        When ``run`` has no ``cluster.audit_log`` or ``at_seconds``.

    See Also
    --------
    kubenotes.sim.ownership.ownership_graph, kubenotes.viz.controllers.cascade_panel

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem)

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_cascade
    >>> w = cascade_writes(simulate_cascade("Background"))
    >>> len(w), (w[0].component, w[0].verb, w[0].kind, w[0].name)
    (10, ('kubectl', 'delete', 'Deployment', 'web'))
    """
    return [e for e in run.cluster.audit_log if e.time >= run.at_seconds and e.resource_version
            and e.kind in ("Deployment", "ReplicaSet", "Pod") and not e.detail.startswith("status")]


def _event_seconds(ts: str | None) -> float | None:
    if not ts:
        return None
    try:
        return parse_timestamp(ts)
    except ValueError:
        return None


def events_by_time(source: Any, namespace: str | None = None, *, reasons: Iterable[str] | None = None,
                   kinds: Iterable[str] | None = None, limit: int | None = 30) -> list[tuple[float | None, dict]]:
    """Kubernetes Events as ``kubectl get events --sort-by=.lastTimestamp`` lists them, with their times.

    Parameters
    ----------
    source : Cluster or iterable of dict
        A cluster (its ``events``) or Event objects.
    namespace : str, optional
    reasons, kinds : iterable of str, optional
        Keep only these reasons / ``involvedObject`` kinds.
    limit : int, optional
        The last ``limit`` Events (by last seen); None for all.

    Returns
    -------
    list of (float or None, dict)
        ``(last seen, Event)`` sorted by last seen (virtual seconds of
        ``lastTimestamp``, else ``eventTime``, else ``firstTimestamp``; None,
        sorted first, when none parses), then by name.

    Raises
    ------
    KeyError
        For an Event without ``metadata.name``.
    AttributeError
        For an item of ``source`` that is not a dict.

    See Also
    --------
    audit_entries, kubenotes.viz.controllers.events_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/events/events.go (sorted by last seen)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/record/events_cache.go (count, lastTimestamp)

    Examples
    --------
    >>> ev = [{"kind": "Event", "metadata": {"name": f"web.{i}", "namespace": "d"}, "reason": r,
    ...        "involvedObject": {"kind": "ReplicaSet", "name": "web"}, "lastTimestamp": f"2025-08-27T00:00:0{9 - i}Z"}
    ...       for i, r in enumerate(["SuccessfulCreate", "SuccessfulDelete"])]
    >>> [(t is not None, e["reason"]) for t, e in events_by_time(ev, reasons=["SuccessfulCreate", "SuccessfulDelete"])]
    [(True, 'SuccessfulDelete'), (True, 'SuccessfulCreate')]
    """
    events = source.list("events", namespace) if _is_cluster(source) else [
        e for e in source if namespace is None or (e.get("metadata") or {}).get("namespace") == namespace]
    reasons = set(reasons) if reasons is not None else None
    kinds = set(kinds) if kinds is not None else None
    rows = []
    for e in events:
        io = e.get("involvedObject") or {}
        if reasons is not None and e.get("reason") not in reasons:
            continue
        if kinds is not None and io.get("kind") not in kinds:
            continue
        t = _event_seconds(e.get("lastTimestamp") or e.get("eventTime") or e.get("firstTimestamp"))
        rows.append((t if t is not None else -1.0, e["metadata"]["name"], e))
    rows.sort(key=lambda r: (r[0], r[1]))
    if limit is not None:
        rows = rows[-limit:]
    return [(t if t >= 0 else None, e) for t, _, e in rows]


def audit_entries(source: Any, *, since: float | None = None, until: float | None = None,
                  kinds: Iterable[str] | None = None, components: Iterable[str] | None = None,
                  exclude_kinds: Iterable[str] = ("Lease",), limit: int | None = 40) -> list[AuditEntry]:
    """API writes in commit order (``simulate -o events``), in a time window, of some kinds and components.

    Parameters
    ----------
    source : Cluster or iterable of AuditEntry
        A cluster (its :attr:`~kubenotes.sim.cluster.Cluster.audit_log`) or entries.
    since, until : float, optional
        Virtual-time window (inclusive).
    kinds, components : iterable of str, optional
        Keep only these.
    exclude_kinds : iterable of str
        Leave these out (the kubelets' Lease renewals by default).
    limit : int, optional
        The first ``limit`` entries of the window; None for all.

    Returns
    -------
    list of AuditEntry

    Raises
    ------
    AttributeError
        For an entry without the :class:`~kubenotes.apiserver.server.AuditEntry` fields.

    See Also
    --------
    events_by_time, cascade_writes, kubenotes.viz.controllers.audit_table

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/audit/request.go

    Examples
    --------
    >>> from kubenotes.apiserver.server import AuditEntry
    >>> log = [AuditEntry(1.0, "kubectl", "patch", "ReplicaSet", "d", "web", "7", "replicas 4->6"),
    ...        AuditEntry(1.0, "kubelet/n1", "update", "Lease", "kube-node-lease", "n1", "8")]
    >>> [e.kind for e in audit_entries(log)], [e.kind for e in audit_entries(log, exclude_kinds=())]
    (['ReplicaSet'], ['ReplicaSet', 'Lease'])
    """
    log = source.audit_log if _is_cluster(source) else list(source)
    kinds = set(kinds) if kinds is not None else None
    components = set(components) if components is not None else None
    exclude = set(exclude_kinds)
    out = []
    for e in log:
        if since is not None and e.time < since or until is not None and e.time > until:
            continue
        if e.kind in exclude or kinds is not None and e.kind not in kinds:
            continue
        if components is not None and e.component not in components:
            continue
        out.append(e)
    return out[:limit] if limit is not None else out


def _taint_text(t: Mapping[str, Any]) -> str:
    kv = t.get("key", "") if not t.get("value") else f"{t['key']}={t['value']}"
    return f"{kv}:{t.get('effect', '')}"


def node_timeline(source: Any, node: str) -> list[dict]:
    """A node's ``Ready`` condition and taints each time either changed.

    Parameters
    ----------
    source : Cluster or iterable of Revision
    node : str

    Returns
    -------
    list of dict
        ``{"time", "ready" ("True"/"False"/"Unknown"), "reason", "message", "taints" (list of
        ``key=value:Effect``), "component"}``, oldest first; a row only when
        the Ready status, its reason or the taints changed.

    Raises
    ------
    ApiError, TypeError
        As :func:`kubenotes.sim.history.object_history`.
    KeyError
        For a Node revision without ``metadata.name``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle/node_lifecycle_controller.go

    Examples
    --------
    >>> def n(status, taints=()):
    ...     return {"kind": "Node", "metadata": {"name": "n1"}, "spec": {"taints": list(taints)},
    ...             "status": {"conditions": [{"type": "Ready", "status": status, "reason": "r"}]}}
    >>> from kubenotes.sim.history import Revision
    >>> h = [Revision(0, "ADDED", n("True")), Revision(10, "MODIFIED", n("True")),
    ...      Revision(60, "MODIFIED", n("Unknown", [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]))]
    >>> [(r["time"], r["ready"], r["taints"]) for r in node_timeline(h, "n1")]
    [(0, 'True', []), (60, 'Unknown', ['node.kubernetes.io/unreachable:NoExecute'])]
    """
    rows: list[dict] = []
    comp = {}
    if _is_cluster(source):
        comp = {int(e.resource_version): e.component for e in source.audit_log if e.resource_version and e.kind == "Node"}
    last = None
    for r in object_history(source, "nodes"):
        o = r.object
        if o["metadata"]["name"] != node or r.type == "DELETED":
            continue
        ready = next((c for c in (o.get("status") or {}).get("conditions") or () if c.get("type") == "Ready"), {})
        taints = [_taint_text(t) for t in (o.get("spec") or {}).get("taints") or ()]
        key = (ready.get("status"), ready.get("reason"), tuple(taints))
        if key != last and (ready or taints):
            rows.append({"time": r.time, "ready": ready.get("status", ""), "reason": ready.get("reason", ""),
                         "message": ready.get("message", ""), "taints": taints,
                         "component": comp.get(_rv(o), "")})
            last = key
    return rows


def node_failure_milestones(run: ScenarioRun,
                            rows: Sequence[Mapping[str, Any]] | None = None) -> list[tuple[float, str]]:
    """When a node failure's milestones happened: heartbeats stop, Ready=Unknown with the taint, first eviction.

    Parameters
    ----------
    run : ScenarioRun
        From :func:`~kubenotes.sim.scenarios.simulate_node_failure` (``name`` is the node).
    rows : sequence of dict, optional
        :func:`node_timeline` of the node, when already computed.

    Returns
    -------
    list of tuple(float, str)
        ``(virtual seconds, what)`` in time order; the later two only when they happened.

    Raises
    ------
    AttributeError
        For a ``run`` that is not a :class:`~kubenotes.sim.scenarios.ScenarioRun`.

    See Also
    --------
    node_timeline, audit_entries

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/nodelifecycle/node_lifecycle_controller.go (monitorNodeHealth)
    kubernetes/kubernetes@v1.34.0 pkg/controller/tainteviction/taint_eviction.go

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_node_failure
    >>> run = simulate_node_failure(0, 20, replicas=2, after_eviction_seconds=10)
    >>> [what for _t, what in node_failure_milestones(run)]
    ['heartbeats stop', 'Ready=Unknown + unreachable taint', 'pods evicted']
    """
    rows = node_timeline(run.cluster, run.name) if rows is None else rows
    marks = [(run.at_seconds, "heartbeats stop")]
    unknown = next((r["time"] for r in rows if r["ready"] == "Unknown"), None)
    if unknown is not None:
        marks.append((unknown, "Ready=Unknown + unreachable taint"))
    evicted = [e.time for e in audit_entries(run.cluster, kinds=("Pod",), components=("taint-eviction-controller",),
                                             limit=None) if e.verb == "delete"]
    if evicted:
        marks.append((min(evicted), "pods evicted"))
    return marks

def pods_per_node_timeline(source: Any, namespace: str | None = None) -> dict[str, list[tuple[float, int]]]:
    """Pods bound to each node and not terminating, over virtual time.

    Returns
    -------
    dict[str, list of (float, int)]
        Node name -> step series, nodes sorted by name.

    Examples
    --------
    >>> p = lambda n, node, rv, dt=None: {"kind": "Pod", "metadata": {"name": n, "uid": n, "resourceVersion": rv,
    ...     **({"deletionTimestamp": dt} if dt else {})}, "spec": {"nodeName": node}}
    >>> from kubenotes.sim.history import Revision
    >>> h = [Revision(0, "ADDED", p("a", "n1", "1")), Revision(5, "MODIFIED", p("a", "n1", "2", "x"))]
    >>> pods_per_node_timeline(h)
    {'n1': [(0, 1), (5, 0)]}
    """
    where: dict[str, str] = {}
    out: dict[str, list[tuple[float, int]]] = {}
    for r in object_history(source, "pods", namespace):
        md = r.object["metadata"]
        uid = md.get("uid") or md["name"]
        node = (r.object.get("spec") or {}).get("nodeName")
        before = where.pop(uid, None)
        if r.type != "DELETED" and node and not md.get("deletionTimestamp"):
            where[uid] = node
        for n in {before, where.get(uid)} - {None}:
            count = sum(1 for v in where.values() if v == n)
            s = out.setdefault(n, [])
            if not s or s[-1][1] != count:
                s.append((r.time, count))
    return dict(sorted(out.items()))


def job_attempts(source: Any, namespace: str, job: str) -> list[dict]:
    """Each pod a Job created: when it was created, started and finished, and how.

    Parameters
    ----------
    source : Cluster or iterable of Revision
        A cluster (its pod history is replayed) or pod revisions.
    namespace : str
    job : str
        The Job's name; its pods are those whose controller ownerReference names it.

    Returns
    -------
    list of dict
        ``{"pod", "created", "running", "finished" (virtual s or None), "phase", "exit_code",
        "wait_before"}`` in creation order; ``wait_before`` is the time from the
        previous pod's end to this pod's creation (the controller's back-off).

    Raises
    ------
    ApiError, TypeError
        As :func:`kubenotes.sim.history.object_history`.
    KeyError
        For a pod revision without ``metadata.name``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/job/job_controller.go

    Examples
    --------
    >>> def p(phase, rv):
    ...     return {"kind": "Pod", "metadata": {"name": "j-1", "uid": "u", "namespace": "d", "resourceVersion": rv,
    ...             "ownerReferences": [{"kind": "Job", "name": "j", "controller": True}]}, "status": {"phase": phase}}
    >>> from kubenotes.sim.history import Revision
    >>> h = [Revision(1, "ADDED", p("Pending", "1")), Revision(3, "MODIFIED", p("Running", "2")),
    ...      Revision(5, "MODIFIED", p("Failed", "3"))]
    >>> [(a["created"], a["running"], a["finished"], a["phase"]) for a in job_attempts(h, "d", "j")]
    [(1, 3, 5, 'Failed')]
    """
    rows: dict[str, dict] = {}
    for r in object_history(source, "pods", namespace):
        o = r.object
        md = o["metadata"]
        ref = _controller_ref(o)
        if not ref or ref.get("kind") != "Job" or ref.get("name") != job:
            continue
        uid = md.get("uid") or md["name"]
        row = rows.setdefault(uid, {"pod": md["name"], "created": r.time, "running": None, "finished": None,
                                    "phase": "Pending", "exit_code": None, "wait_before": None})
        if r.type == "DELETED":
            continue
        phase = (o.get("status") or {}).get("phase") or "Pending"
        if phase == "Running" and row["running"] is None:
            row["running"] = r.time
        if phase in ("Succeeded", "Failed") and row["finished"] is None:
            row["finished"] = r.time
        row["phase"] = phase
        for cs in (o.get("status") or {}).get("containerStatuses") or ():
            term = (cs.get("state") or {}).get("terminated")
            if term:
                row["exit_code"] = term.get("exitCode")
    out = sorted(rows.values(), key=lambda a: (a["created"], a["pod"]))
    for prev, cur in zip(out, out[1:]):
        if prev["finished"] is not None:
            cur["wait_before"] = round(cur["created"] - prev["finished"], 3)
    return out


def rc_sizes(source: Any, namespace: str, names: Sequence[str]) -> dict[str, list[tuple[float, int]]]:
    """Each ReplicationController's ``status.readyReplicas`` over time, from the API server's history.

    Parameters
    ----------
    source : Cluster or iterable of Revision
        A cluster (its history is replayed) or ReplicationController revisions.
    namespace : str
    names : sequence of str
        The RCs to follow; others are ignored.

    Returns
    -------
    dict[str, list[tuple[float, int]]]
        RC name -> ``(virtual seconds, ready replicas)`` steps; 0 after it is deleted.

    Raises
    ------
    ApiError, TypeError
        As :func:`kubenotes.sim.history.object_history`.

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_rc_rolling_update
    >>> run = simulate_rc_rolling_update(2, 5.0)
    >>> sizes = rc_sizes(run.cluster, "default", ["web-v1", "web-v2"])
    >>> sizes["web-v1"][-1][1], sizes["web-v2"][-1][1]
    (0, 2)
    """
    out: dict[str, list[tuple[float, int]]] = {n: [] for n in names}
    for rev in object_history(source, "replicationcontrollers", namespace):
        name = rev.object["metadata"]["name"]
        if name not in out:
            continue
        ready = 0 if rev.type == "DELETED" else int((rev.object.get("status") or {}).get("readyReplicas") or 0)
        series = out[name]
        if series and series[-1][0] == rev.time:
            series[-1] = (rev.time, ready)
        elif not series or series[-1][1] != ready:
            series.append((rev.time, ready))
    return out



# ---------------------------------------------------------------------------
# the kubelet: one pod run

#: The CRI calls a timeline shows (the PLEG's and the status manager's inspection calls are left out).
LIFECYCLE_METHODS = ("RunPodSandbox", "PullImage", "CreateContainer", "StartContainer", "StopContainer",
                     "StopPodSandbox")


def container_names(run: PodRun) -> dict[str, str]:
    """Container ID -> container name, from the runtime's CreateContainer calls.

    Parameters
    ----------
    run : PodRun
        A pod run, e.g. :func:`kubenotes.sim.scenarios.simulate_pod_start`.

    Returns
    -------
    dict[str, str]
        The CRI container ID -> the container's name, for every CreateContainer call that answered.

    Raises
    ------
    AttributeError
        When ``run`` has no ``kubelet.runtime.trace`` (not a :class:`~kubenotes.sim.scenarios.PodRun`).

    See Also
    --------
    start_timeline

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto (``CreateContainer``)

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> sorted(container_names(simulate_pod_start()).values())
    ['init-db', 'web']
    """
    return {t["response"]["container_id"]: t["request"]["config"]["metadata"]["name"]
            for t in run.kubelet.runtime.trace if t["method"] == "CreateContainer" and t.get("response")}


def running_spans(run: PodRun) -> list[tuple[str, float, float]]:
    """When each of the pod's containers ran: ``(name, started, stopped)``, a run still going ending at ``until_seconds``.

    Parameters
    ----------
    run : PodRun
        A pod run, e.g. :func:`kubenotes.sim.scenarios.simulate_pod_start`.

    Returns
    -------
    list of (str, float, float)
        One entry per run of a container the runtime created (matched by
        container ID), in :func:`container_names` order, then start order.

    Raises
    ------
    AttributeError
        When ``run`` is not a :class:`~kubenotes.sim.scenarios.PodRun`.

    See Also
    --------
    container_names, restart_history

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> [(n, round(a, 2)) for n, a, _ in running_spans(simulate_pod_start())]
    [('init-db', 1.74), ('web', 8.2)]
    """
    spans = []
    for cid, name in container_names(run).items():
        for r in (run.kubelet.runs.get(run.uid) or {}).get(name, []):
            if r.container_id.split("://")[-1] != cid.split("://")[-1]:
                continue
            spans.append((name, r.started_seconds,
                          r.finished_seconds if r.finished_seconds is not None else run.until_seconds))
    return spans


def start_timeline(run: PodRun, *, until_seconds: float | None = None) -> list[dict]:
    """The pod's start as rows: volume mounts, CRI calls, kubelet events, probe runs and Ready flips, by time.

    Parameters
    ----------
    run : PodRun
    until_seconds : float, optional
        Leave out what happened later.

    Returns
    -------
    list of dict
        ``time`` (s), ``source`` (``volume``, ``CRI``, ``event``, ``probe``, ``status``),
        ``what`` (volume operation, CRI method, event reason, probe kind, condition), ``container``,
        ``detail``, ``duration_seconds`` (CRI calls; 0 otherwise). Sorted by time.

    Raises
    ------
    AttributeError
        When ``run`` is not a :class:`~kubenotes.sim.scenarios.PodRun` (no ``kubelet`` with its traces).

    See Also
    --------
    start_timeline_table, start_timeline_figure

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (``SyncPod``)

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> rows = start_timeline(simulate_pod_start())
    >>> [(r["source"], r["what"]) for r in rows][:5]   # doctest: +NORMALIZE_WHITESPACE
    [('status', 'Ready'), ('volume', 'TokenRequest'), ('volume', 'MountVolume.SetUp'),
     ('volume', 'WaitForAttachAndMount'), ('CRI', 'RunPodSandbox')]
    """
    names = container_names(run)
    rows = []
    seen_wait = False
    for t, op, pod, volume, outcome in run.kubelet.volume_manager.trace:
        if pod != f"{run.pod['metadata'].get('namespace', 'default')}/{run.pod_name}" or outcome == "remounted":
            continue
        if op == "WaitForAttachAndMount":
            if seen_wait:
                continue  # every later sync checks again at once
            seen_wait = True
        rows.append({"time": float(t), "source": "volume", "what": op, "container": "",
                     "detail": f"{volume}: {outcome}", "duration_seconds": 0.0})
    for t in run.kubelet.runtime.trace:
        if t["method"] not in LIFECYCLE_METHODS:
            continue
        req = t["request"]
        if t["method"] == "RunPodSandbox":
            container, detail = "", f"sandbox {req['config']['metadata']['name']} (pause image)"
        elif t["method"] == "PullImage":
            container, detail = "", req["image"]["image"]
        elif t["method"] == "CreateContainer":
            container = req["config"]["metadata"]["name"]
            detail = f"attempt {req['config']['metadata'].get('attempt', 0)}, image {req['config']['image']['image']}"
        else:
            container, detail = names.get(req.get("container_id", ""), ""), ""
        rows.append({"time": float(t["time"]), "source": "CRI", "what": t["method"], "container": container,
                     "detail": detail, "duration_seconds": float(t["duration_seconds"])})
    for e in run.kubelet.events:
        if e.get("pod") != run.pod_name:
            continue
        fp = e.get("field_path") or ""
        container = fp[fp.find("{") + 1:-1] if "{" in fp else ""
        rows.append({"time": float(e["time"]), "source": "event", "what": e["reason"], "container": container,
                     "detail": e["message"], "duration_seconds": 0.0})
    for p in run.probes:
        rows.append({"time": p["time"], "source": "probe", "what": p["kind"], "container": p["container"],
                     "detail": p["result"], "duration_seconds": 0.0})
    ready = None
    for t, uid, st in run.kubelet.status_log:
        if uid != run.uid:
            continue
        cond = {c["type"]: c["status"] for c in st.get("conditions") or []}
        if cond.get("Ready") != ready:
            ready = cond.get("Ready")
            rows.append({"time": float(t), "source": "status", "what": "Ready", "container": "",
                         "detail": f"Ready={ready}, phase {st.get('phase')}", "duration_seconds": 0.0})
    rank = {"volume": 0, "CRI": 1}  # at one instant: the mount wait ends, then the CRI call, then its events
    rows.sort(key=lambda r: (r["time"], rank.get(r["source"], 2)))
    if until_seconds is not None:
        rows = [r for r in rows if r["time"] <= until_seconds]
    return rows


def _state(cs: Mapping[str, Any]) -> str:
    for key in ("waiting", "running", "terminated"):
        if key in (cs.get("state") or {}):
            detail = cs["state"][key]
            reason = detail.get("reason", "")
            if key == "terminated":
                reason = f"{reason} exitCode={detail.get('exitCode')}"
            return f"{key}{': ' + reason if reason else ''}"
    return "-"


def status_history(run: PodRun) -> list[dict]:
    """Every status the kubelet wrote for the pod: phase, conditions, containers' state, lastState, restarts.

    Parameters
    ----------
    run : PodRun
        A pod run, e.g. :func:`kubenotes.sim.scenarios.simulate_pod_start`.

    Returns
    -------
    list of dict
        ``time``, ``phase``, ``conditions`` (``{type: status}``), ``containers``
        (``{name: state text}``, init containers first), ``last_state``
        (``{name: lastState text}``), ``restart_count`` (``{name: int}``), ``ready`` (``{name: bool}``).

    Raises
    ------
    AttributeError
        When ``run`` has no ``kubelet.status_log`` (not a :class:`~kubenotes.sim.scenarios.PodRun`).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/status/status_manager.go

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> h = status_history(simulate_pod_start())
    >>> h[0]["phase"], h[0]["containers"]["web"]
    ('Pending', 'waiting: PodInitializing')
    """
    out = []
    for t, uid, st in run.kubelet.status_log:
        if uid != run.uid:
            continue
        statuses = list(st.get("initContainerStatuses") or []) + list(st.get("containerStatuses") or [])
        out.append({
            "time": float(t), "phase": st.get("phase"),
            "conditions": {c["type"]: c["status"] for c in st.get("conditions") or []},
            "containers": {c["name"]: _state(c) for c in statuses},
            "last_state": {c["name"]: _state({"state": c.get("lastState") or {}}) for c in statuses},
            "restart_count": {c["name"]: int(c.get("restartCount", 0)) for c in statuses},
            "ready": {c["name"]: bool(c.get("ready")) for c in statuses},
        })
    return out


def restart_history(run: PodRun, container: str = "app") -> list[dict]:
    """Each run of the container: when it started and stopped, why, and how long the kubelet waited before it.

    Parameters
    ----------
    run : PodRun
        E.g. :func:`kubenotes.sim.scenarios.simulate_restarts`.
    container : str
        The container's name (``app`` in the restarts scenario).

    Returns
    -------
    list of dict
        ``attempt`` (0 = first start), ``started``, ``finished`` (None while
        running), ``killed_by`` (the ``Killing`` message, or ""), ``gap_seconds``
        (start minus the previous run's finish; None for the first),
        ``back_off`` (the back-off the kubelet reported before this start, e.g. ``"10s"``, or "").
        An unknown container gives an empty list.

    Raises
    ------
    AttributeError
        When ``run`` is not a :class:`~kubenotes.sim.scenarios.PodRun`.

    Notes
    -----
    The back-off doubles from 10 s up to 300 s (``MaxContainerBackOff``), as upstream.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (``doBackOff``)

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_restarts
    >>> h = restart_history(simulate_restarts(cause="exits with code 1", until_seconds=90))
    >>> [r["back_off"] for r in h][:4]
    ['', '', '10s', '20s']
    """
    runs = sorted((run.kubelet.runs.get(run.uid) or {}).get(container, []), key=lambda r: r.started_seconds)
    kills = pod_events(run, ("Killing",))
    waiting = []
    for t, uid, st in run.kubelet.status_log:
        if uid != run.uid:
            continue
        for cs in st.get("containerStatuses") or []:
            msg = ((cs.get("state") or {}).get("waiting") or {}).get("message", "")
            if cs["name"] == container and msg.startswith("back-off "):
                waiting.append((float(t), msg.split()[1]))
    out = []
    for i, r in enumerate(runs):
        prev = runs[i - 1] if i else None
        killed = next((k["message"] for k in kills if k.get("field_path", "").endswith(f"{{{container}}}")
                       and r.started_seconds <= k["time"] <= (r.finished_seconds or run.until_seconds) + 1e-6), "")
        back = ""
        if prev is not None and prev.finished_seconds is not None:
            back = next((d for t, d in waiting if prev.finished_seconds <= t <= r.started_seconds), "")
        out.append({"attempt": i, "started": r.started_seconds, "finished": r.finished_seconds, "killed_by": killed,
                    "gap_seconds": (r.started_seconds - prev.finished_seconds)
                    if prev is not None and prev.finished_seconds is not None else None,
                    "back_off": back})
    return out


def restart_counts(run: PodRun, container: str = "app") -> list[tuple[float, int]]:
    """The container's ``restartCount`` in each pod status the kubelet wrote that lists it.

    Parameters
    ----------
    run : PodRun
        E.g. :func:`kubenotes.sim.scenarios.simulate_restarts`.
    container : str
        A regular container's name.

    Returns
    -------
    list of (float, int)
        ``(seconds, restartCount)`` per status write, in write order; empty
        for a container no status lists.

    Raises
    ------
    AttributeError
        When ``run`` has no ``kubelet.status_log`` (not a :class:`~kubenotes.sim.scenarios.PodRun`).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (convertToAPIContainerStatuses: RestartCount)

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_restarts
    >>> counts = restart_counts(simulate_restarts(cause="exits with code 1", until_seconds=60))
    >>> counts[0][1], counts[-1][1] > 0
    (0, True)
    """
    out = []
    for t, uid, st in run.kubelet.status_log:
        if uid != run.uid:
            continue
        cs = next((c for c in st.get("containerStatuses") or [] if c["name"] == container), None)
        if cs is not None:
            out.append((float(t), int(cs.get("restartCount", 0))))
    return out


def pod_events(run: PodRun, reasons: Sequence[str] | None = None) -> list[dict]:
    """The events the kubelet recorded about the run's pod, in the order it recorded them.

    Parameters
    ----------
    run : PodRun
        A pod run, e.g. :func:`kubenotes.sim.scenarios.simulate_pod_start`.
    reasons : sequence of str, optional
        Keep only events with these reasons (``Killing``, ``BackOff``...); None keeps all.

    Returns
    -------
    list of dict
        The kubelet's event records: ``time``, ``type``, ``reason``,
        ``message``, ``pod`` and, for a container's events, ``field_path``.

    Raises
    ------
    AttributeError
        When ``run`` has no ``kubelet.events`` (not a :class:`~kubenotes.sim.scenarios.PodRun`).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/events/event.go

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_pod_start
    >>> [e["reason"] for e in pod_events(simulate_pod_start(), ["Started"])]
    ['Started', 'Started']
    """
    keep = set(reasons) if reasons is not None else None
    return [e for e in run.kubelet.events if e.get("pod") == run.pod_name and (keep is None or e["reason"] in keep)]


def static_pod_merges(steps: Sequence[Mapping[str, str]], node_name: str = "worker-1",
                      file_check_frequency_seconds: float = 20.0) -> list[dict]:
    """Read a manifest directory every ``fileCheckFrequency`` and merge each read as the kubelet's config does.

    Parameters
    ----------
    steps : sequence of dict[str, str]
        The directory's contents at each read (t = 0, 20, 40 ... s).
    node_name : str
    file_check_frequency_seconds : float

    Returns
    -------
    list of dict
        ``time``, ``op`` (``ADD``/``UPDATE``/``REMOVE``...), ``pods`` (names), ``uids`` (the config hashes).

    Raises
    ------
    TypeError
        When a step is not a mapping of file name to content; a file that does not parse is skipped.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/config.go (``podStorage.merge``)

    Examples
    --------
    >>> manifest = ("apiVersion: v1\\nkind: Pod\\nmetadata: {name: etcd, namespace: kube-system}\\n"
    ...             "spec: {containers: [{name: etcd, image: 'registry.k8s.io/etcd:3.6.4-0'}]}\\n")
    >>> [(m["time"], m["op"]) for m in static_pod_merges([{"etcd.yaml": manifest},
    ...     {"etcd.yaml": manifest}, {}])][:1]
    [(0.0, 'ADD')]
    """
    store = PodStorage()
    out = []
    for i, files in enumerate(steps):
        now = i * file_check_frequency_seconds
        for u in store.merge(extract_from_dir(dict(files), node_name), now=now):
            out.append({"time": float(now), "op": u.op, "pods": [p["metadata"]["name"] for p in u.pods],
                        "uids": [p["metadata"].get("uid", "") for p in u.pods]})
    return out


def mirror_pod_history(run: StaticPodRun) -> list[dict]:
    """Every API write on the mirror pod (from the audit log) and the kubelet's events about it, by time.

    Parameters
    ----------
    run : StaticPodRun
        From :func:`kubenotes.sim.scenarios.simulate_static_pod`.

    Returns
    -------
    list of dict
        ``time``, ``component`` (who wrote or recorded it), ``what`` (``create
        pod``, ``event Started``...), ``detail``; audit entries before events
        at the same time.

    Raises
    ------
    AttributeError
        When ``run`` is not a :class:`~kubenotes.sim.scenarios.StaticPodRun`.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/pod/mirror_client.go

    Examples
    --------
    >>> from kubenotes.sim.scenarios import simulate_static_pod
    >>> [h["what"] for h in mirror_pod_history(simulate_static_pod(None, None, until_seconds=5))][:1]
    ['create pod']
    """
    rows = []
    for a in run.cluster.server.audit_log:
        if a.kind == "Pod" and a.name == run.name and a.namespace == run.namespace:
            rows.append({"time": a.time, "component": a.component, "what": f"{a.verb} pod", "detail": a.detail})
    for e in run.kubelet.events:
        if e.get("pod") == run.name:
            rows.append({"time": e["time"], "component": run.kubelet.component, "what": f"event {e['reason']}",
                         "detail": e["message"]})
    rows.sort(key=lambda r: r["time"])
    return rows


#: The static pod manifest chapter 05.00 drops into ``/etc/kubernetes/manifests`` (as kubeadm writes etcd's).
STATIC_MANIFEST = """apiVersion: v1
kind: Pod
metadata:
  name: etcd
  namespace: kube-system
  labels: {component: etcd, tier: control-plane}
spec:
  priorityClassName: system-node-critical
  hostNetwork: true
  containers:
  - name: etcd
    image: registry.k8s.io/etcd:3.6.4-0
    command: [etcd, --data-dir=/var/lib/etcd]
"""


def static_pod_fields(files: Mapping[str, str] | None = None, node_name: str = "worker-1",
                      node_uid: str = "3f6c2d9e-node-uid") -> list[tuple[str, Any, Any]]:
    """The static pods a manifest directory gives, field by field next to the mirror pods the kubelet creates.

    Parameters
    ----------
    files : dict[str, str], optional
        File name -> content of ``/etc/kubernetes/manifests`` (default: ``etcd.yaml`` with :data:`STATIC_MANIFEST`).
    node_name, node_uid : str
        The node the kubelet runs on (the mirror pod's owner).

    Returns
    -------
    list of (str, any, any)
        ``(field, static pod value, mirror pod value)``: name, namespace,
        uid, the four ``kubernetes.io/config.*`` annotations,
        ``ownerReferences``, ``spec.nodeName``, ``spec.tolerations`` and
        whether :func:`~kubenotes.kubelet.config.is_mirror_pod_of` holds, per
        static pod; then one ``("error", message, "")`` per file that did not parse.

    Raises
    ------
    TypeError, ValueError
        When ``files`` is not a mapping (or pairs) of file name to content.
    AttributeError
        When a file's content is not a str.

    See Also
    --------
    mirror_pod_history, kubenotes.kubelet.config.mirror_pod

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/file.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/pod/mirror_client.go

    Examples
    --------
    >>> rows = static_pod_fields()
    >>> rows[0], rows[-1]
    (('metadata.name', 'etcd-worker-1', 'etcd-worker-1'), ('is_mirror_pod_of(mirror, static)', '', True))
    >>> static_pod_fields({"bad.yaml": "kind: ["})[-1][0]
    'error'
    """
    files = dict(files or {"etcd.yaml": STATIC_MANIFEST})
    errors: list[str] = []
    update = extract_from_dir(files, node_name, errors=errors)
    rows: list[tuple[str, Any, Any]] = []
    for sp in update.pods:
        mp = mirror_pod(sp, node_name, node_uid)
        sm, mm = sp["metadata"], mp["metadata"]
        sa, ma = sm.get("annotations") or {}, mm.get("annotations") or {}
        owner = mm.get("ownerReferences") or [{}]
        for label, a, b in [
            ("metadata.name", sm["name"], mm["name"]),
            ("metadata.namespace", sm.get("namespace"), mm.get("namespace")),
            ("metadata.uid", sm.get("uid"), "(assigned by the API server)"),
            (CONFIG_HASH_ANNOTATION_KEY, sa.get(CONFIG_HASH_ANNOTATION_KEY), ma.get(CONFIG_HASH_ANNOTATION_KEY)),
            (CONFIG_SOURCE_ANNOTATION_KEY, sa.get(CONFIG_SOURCE_ANNOTATION_KEY), ma.get(CONFIG_SOURCE_ANNOTATION_KEY)),
            (CONFIG_MIRROR_ANNOTATION_KEY, sa.get(CONFIG_MIRROR_ANNOTATION_KEY, "-"), ma.get(CONFIG_MIRROR_ANNOTATION_KEY)),
            (CONFIG_FIRST_SEEN_ANNOTATION_KEY, sa.get(CONFIG_FIRST_SEEN_ANNOTATION_KEY, "-"),
             ma.get(CONFIG_FIRST_SEEN_ANNOTATION_KEY, "-")),
            ("ownerReferences", "-", f"{owner[0].get('kind')}/{owner[0].get('name')} (controller)"),
            ("spec.nodeName", sp["spec"].get("nodeName"), mp["spec"].get("nodeName")),
            ("spec.tolerations", sp["spec"].get("tolerations"), mp["spec"].get("tolerations")),
            ("is_mirror_pod_of(mirror, static)", "", is_mirror_pod_of(mp, sp)),
        ]:
            rows.append((label, a, b))
    for e in errors:
        rows.append(("error", e, ""))
    return rows
