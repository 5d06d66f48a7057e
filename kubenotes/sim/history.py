"""History queries over a running cluster: every revision of a kind, and the objects alive at a given time.

The **history** of a kind is the API server's watch cache replayed from
resourceVersion 1 (every committed revision of every object), timed by the
audit log (:attr:`Cluster.audit_log <kubenotes.sim.cluster.Cluster.audit_log>`,
one entry per committed write with its virtual time and resourceVersion).
:func:`object_history` returns it as :class:`Revision` records and
:func:`objects_at` replays it up to a virtual time or a resourceVersion, the
way ``kubectl get -w`` from the beginning and a store as of that write would
show it. :data:`STORAGE_STEP` and :func:`watch_deliveries` read the two steps
of a request record (:attr:`APIServer.request_trace
<kubenotes.apiserver.server.APIServer.request_trace>`) that say which write a
request made and which watchers its event was queued for. The chapters'
timelines and ownership graphs (:mod:`kubenotes.viz.controllers`) are drawn
from these queries.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go (the history)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (Watch from a resourceVersion)
https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes
"""

from __future__ import annotations

import re
from typing import Any, Mapping, NamedTuple

from kubenotes.apiserver.resources import resource_for

__all__ = [
    "Revision",
    "resource_version",
    "is_cluster",
    "object_history",
    "objects_at",
    "STORAGE_STEP",
    "watch_deliveries",
]


class Revision(NamedTuple):
    """One committed revision of one object, as a watch from resourceVersion 1 replays it.

    Attributes
    ----------
    time : float
        Virtual seconds of the write (from the audit log).
    type : str
        ``ADDED``, ``MODIFIED`` or ``DELETED``.
    object : dict
        The object after the write (for ``DELETED`` its last state). Shared: do not mutate.

    Examples
    --------
    >>> Revision(1.5, "ADDED", {"kind": "Pod"}).type
    'ADDED'
    """

    time: float
    type: str
    object: dict


def resource_version(obj: Mapping[str, Any]) -> int:
    """The object's ``metadata.resourceVersion`` as an integer (0 when missing or not a number).

    Parameters
    ----------
    obj : Mapping[str, Any]
        An object as the API server stores it.

    Returns
    -------
    int
        The model's resourceVersions are decimal counters; 0 orders an
        object without one first.

    Notes
    -----
    Upstream treats resourceVersions as opaque strings; the model (like
    etcd) numbers them, so they order writes.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/api_object_versioner.go (ParseResourceVersion)

    Examples
    --------
    >>> resource_version({"metadata": {"resourceVersion": "42"}}), resource_version({})
    (42, 0)
    """
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0)
    except ValueError:
        return 0


def is_cluster(source: Any) -> bool:
    """Whether ``source`` is a running cluster (it has a client and an audit log) rather than collected revisions.

    Parameters
    ----------
    source : Any
        A :class:`~kubenotes.sim.cluster.Cluster`, or an iterable of
        :class:`Revision` (or of audit entries).

    Returns
    -------
    bool

    Examples
    --------
    >>> is_cluster([Revision(0.0, "ADDED", {})])
    False
    """
    return hasattr(source, "client") and hasattr(source, "audit_log")


def _rv_times(cluster: Any) -> dict[int, float]:
    out: dict[int, float] = {}
    for e in cluster.audit_log:
        if e.resource_version:
            out[int(e.resource_version)] = e.time
    return out


def object_history(source: Any, resource: str, namespace: str | None = None) -> list[Revision]:
    """Every stored revision of the objects of one resource, oldest first.

    Parameters
    ----------
    source : Cluster or iterable of Revision
        A running cluster (its watch cache is replayed from resourceVersion 1
        through the admin client and timed with :attr:`Cluster.audit_log`),
        or revisions already collected (filtered here by kind and namespace).
    resource : str
        A resource name ``resource_for`` accepts (``"replicasets"``, ``"pods"``...).
    namespace : str, optional
        Only this namespace (all when None).

    Returns
    -------
    list of Revision
        Ordered by (time, resourceVersion).

    Raises
    ------
    ApiError
        410 Expired when the cluster's watch history no longer reaches
        resourceVersion 1 (more than ``history_capacity`` writes); 404 for an
        unknown resource.
    TypeError
        For an audit log (``cluster.audit_log``): it has the time and the
        writer of each revision but not the object.

    See Also
    --------
    objects_at : the objects alive at one point of this history.

    Notes
    -----
    Upstream's watch cache keeps a sliding window of events; the model keeps
    the last 100,000, which covers the chapter's scenarios from the start.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go

    Examples
    --------
    >>> pod = {"kind": "Pod", "metadata": {"name": "a", "namespace": "default", "resourceVersion": "5"}}
    >>> rs = {"kind": "ReplicaSet", "metadata": {"name": "r", "namespace": "default", "resourceVersion": "4"}}
    >>> [r.object["metadata"]["name"] for r in object_history([Revision(1.0, "ADDED", pod),
    ...                                                        Revision(0.5, "ADDED", rs)], "pods")]
    ['a']
    """
    if is_cluster(source):
        w = source.client.watch(resource, namespace, resource_version="1")
        events = w.pop_all()
        w.stop()
        times = _rv_times(source)
        out = [Revision(times.get(resource_version(ev.object), 0.0), ev.type, ev.object) for ev in events
               if ev.type in ("ADDED", "MODIFIED", "DELETED")]
    else:
        source = list(source)
        if source and hasattr(source[0], "resource_version") and hasattr(source[0], "verb"):
            raise TypeError("an audit log records writes, not the objects written: pass the Cluster, whose "
                            "watch history holds every revision")
        kind = resource_for(resource).kind
        out = [Revision(*r) for r in source if r[2].get("kind") == kind and
               (namespace is None or (r[2].get("metadata") or {}).get("namespace") == namespace)]
    out.sort(key=lambda r: (r.time, resource_version(r.object)))
    return out


def objects_at(source: Any, resource: str, namespace: str | None = None,
               at_seconds: float | None = None, *, at_resource_version: int | None = None) -> list[dict]:
    """The objects that existed at virtual time ``at_seconds`` (after every write at that time).

    Parameters
    ----------
    source : Cluster or iterable of Revision
        As :func:`object_history`.
    resource : str
        A resource name ``resource_for`` accepts (``"pods"``...).
    namespace : str, optional
        Only this namespace (all when None).
    at_seconds : float, optional
        Virtual seconds; None: now (for a cluster, its stored objects).
    at_resource_version : int, optional
        Also stop after this revision (the store as it was right after that write).

    Returns
    -------
    list of dict
        Sorted by (namespace, name); shared with the history (do not mutate).

    Raises
    ------
    ApiError, TypeError
        As :func:`object_history`.

    See Also
    --------
    object_history

    Notes
    -----
    Upstream serves a list "as of" a resourceVersion from the watch cache
    (``resourceVersionMatch=Exact``); the model replays its history instead.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go (listing at a resourceVersion)

    Examples
    --------
    >>> a = {"kind": "Pod", "metadata": {"name": "a", "uid": "u1", "resourceVersion": "2"}}
    >>> gone = {"kind": "Pod", "metadata": {"name": "a", "uid": "u1", "resourceVersion": "3"}}
    >>> h = [Revision(1.0, "ADDED", a), Revision(5.0, "DELETED", gone)]
    >>> [len(objects_at(h, "pods", at_seconds=t)) for t in (0.0, 1.0, 4.9, 5.0)]
    [0, 1, 1, 0]
    """
    if at_seconds is None and at_resource_version is None and is_cluster(source):
        return source.list(resource, namespace)
    last: dict[str, Revision] = {}
    for r in object_history(source, resource, namespace):
        if at_seconds is not None and r.time > at_seconds:
            break
        if at_resource_version is not None and resource_version(r.object) > at_resource_version:
            break
        md = r.object.get("metadata") or {}
        last[md.get("uid") or f'{md.get("namespace")}/{md.get("name")}'] = r
    alive = [r.object for r in last.values() if r.type != "DELETED"]
    return sorted(alive, key=lambda o: (o["metadata"].get("namespace") or "", o["metadata"]["name"]))


#: A request record's ``storage`` step: ``"ADDED /registry/pods/default/web-1 at resourceVersion 42"``
#: (groups: event type, etcd key, resourceVersion).
STORAGE_STEP = re.compile(r"^(ADDED|MODIFIED|DELETED) (\S+) at resourceVersion (\d+)$")

_DELIVERY = re.compile(r"\s*(.+?) \((ADDED|MODIFIED|DELETED|BOOKMARK)\)\s*$")


def watch_deliveries(detail: str) -> dict[str, str]:
    """The watchers a request record's ``watch`` step names, each with the event type it was queued.

    Parameters
    ----------
    detail : str
        The step's detail, ``"event queued for a (ADDED), b (MODIFIED)"`` or
        ``"event queued for no watcher"``.

    Returns
    -------
    dict[str, str]
        Watcher -> event type, in the order named (the first type when a
        watcher is named twice).

    Notes
    -----
    Upstream's cacher dispatches each event to every matching watcher
    (``dispatchEvent``); the model's API server names them in the request's trace.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (dispatchEvent)

    Examples
    --------
    >>> watch_deliveries("event queued for a (ADDED), b (MODIFIED)")
    {'a': 'ADDED', 'b': 'MODIFIED'}
    >>> watch_deliveries("event queued for no watcher")
    {}
    """
    text = detail.removeprefix("event queued for ")
    out: dict[str, str] = {}
    if text == "no watcher":
        return out
    for part in text.split(", "):
        m = _DELIVERY.match(part)
        if m:
            out.setdefault(m.group(1), m.group(2))
    return out
