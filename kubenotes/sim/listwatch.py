"""List-Watch up close: an informer's cache against the store, and a watch outage that resumes or relists.

:func:`compare_cache_with_store` puts each object's resourceVersion in an
informer's cache beside the store's; :func:`watch_outage` breaks an
informer's watch, writes while it is down, and reports whether its reflector
resumed from the API server's history or had to relist after 410 Gone.
Chapter 02.01 lays both out with :mod:`kubenotes.viz.controlplane`.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "IN_SYNC",
    "STALE",
    "NOT_YET_IN_CACHE",
    "DELETED_CACHE_STILL_HAS_IT",
    "compare_cache_with_store",
    "watch_outage",
]

#: Cache and store hold the same resourceVersion.
IN_SYNC = "in sync"
#: The cache holds an older resourceVersion than the store.
STALE = "stale (cache behind)"
#: The store has the object, the cache not yet.
NOT_YET_IN_CACHE = "not yet in cache"
#: The store no longer has the object, the cache still does.
DELETED_CACHE_STILL_HAS_IT = "deleted, cache still has it"


def compare_cache_with_store(informer: Any, server: Any, resource: str, namespace: str | None = None, *,
                             label_selector: str = "") -> list[dict]:
    """Compare an informer's cache with the store: each object's resourceVersion in both, and whether they agree.

    Parameters
    ----------
    informer : SharedIndexInformer
        Its ``indexer`` is read (never changed).
    server : APIServer
        Its store is read directly (no request, no authorization).
    resource : str
        Any name ``kubectl get`` accepts (``pods``, ``deploy``...).
    namespace : str, optional
        Only this namespace.
    label_selector : str, optional
        Only objects whose labels match (``app=web``), in either.

    Returns
    -------
    list[dict]
        One per ``namespace/name`` key in either, sorted by key:
        ``{"key", "cache_resource_version", "store_resource_version",
        "verdict"}``; a missing side's resourceVersion is ``""``, and
        ``verdict`` is :data:`IN_SYNC`, :data:`STALE`,
        :data:`NOT_YET_IN_CACHE` or :data:`DELETED_CACHE_STILL_HAS_IT`.

    Raises
    ------
    ApiError
        When ``resource`` is not a resource the API server knows.
    FieldError
        When ``label_selector`` does not parse.

    See Also
    --------
    kubenotes.viz.controlplane.cache_vs_store : the same comparison as a table.

    Notes
    -----
    The store is read in process. Upstream no client sees etcd: the
    comparison would be between the informer's cache and a LIST from the API
    server.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/thread_safe_store.go

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> from kubenotes.client import SharedInformerFactory
    >>> api = APIServer(seed=0)
    >>> f = SharedInformerFactory(api.client("kube-controller-manager"), api.env)
    >>> inf = f.informer_for("configmaps"); f.start(); api.env.run(until=1)
    >>> _ = api.client().create("configmaps", {"metadata": {"name": "a"}}, "default")
    >>> [r["verdict"] for r in compare_cache_with_store(inf, api, "configmaps")]
    ['not yet in cache']
    >>> api.env.run(until=2); compare_cache_with_store(inf, api, "configmaps")[0]["verdict"]
    'in sync'
    """
    from kubenotes.client.informer import meta_namespace_key

    cached = {meta_namespace_key(o): o for o in informer.indexer.list()}
    stored = {meta_namespace_key(o): o for o in server.list(resource, namespace)}
    if namespace:
        cached = {k: o for k, o in cached.items() if (o.get("metadata") or {}).get("namespace") == namespace}
    if label_selector:
        from kubenotes.api.selectors import parse_selector

        sel = parse_selector(label_selector)
        keep = {k for d in (cached, stored) for k, o in d.items()
                if sel.matches((o.get("metadata") or {}).get("labels") or {})}
        cached = {k: o for k, o in cached.items() if k in keep}
        stored = {k: o for k, o in stored.items() if k in keep}
    out = []
    for key in sorted(set(cached) | set(stored)):
        c, s = cached.get(key), stored.get(key)
        crv = (c or {}).get("metadata", {}).get("resourceVersion", "")
        srv = (s or {}).get("metadata", {}).get("resourceVersion", "")
        if c is None:
            verdict = NOT_YET_IN_CACHE
        elif s is None:
            verdict = DELETED_CACHE_STILL_HAS_IT
        elif crv == srv:
            verdict = IN_SYNC
        else:
            verdict = STALE
        out.append({"key": key, "cache_resource_version": crv, "store_resource_version": srv, "verdict": verdict})
    return out


def watch_outage(writes_while_down: int, history_capacity: int = 10, *, objects: int = 3,
                 seed: int = 0) -> dict:
    """Break an informer's watch, write while it is down, and see whether the reflector resumes or relists.

    An :class:`~kubenotes.apiserver.server.APIServer` with a watch history of
    ``history_capacity`` events holds ``objects`` ConfigMaps; an informer
    (kube-controller-manager's) lists and watches them. At t=1 s its watch
    connection breaks (:meth:`Reflector.drop_watch`, reconnecting after 1 s);
    meanwhile another client patches ConfigMap ``cm-0`` ``writes_while_down``
    times. At t=2 s the reflector watches again from the last
    resourceVersion it saw: if the history still holds every event after it,
    the watch replays them (resume); otherwise the API server answers 410
    Gone and the reflector LISTs again (relist).

    Parameters
    ----------
    writes_while_down : int
        Patches made while the watch is down (>= 0).
    history_capacity : int
        Events the API server keeps for resuming watches (>= 1).
    objects : int
        ConfigMaps created before the informer starts.
    seed : int

    Returns
    -------
    dict
        ``relisted`` (bool), ``lists`` and ``watches`` (request counts),
        ``last_seen`` (the resourceVersion the reflector resumed from),
        ``oldest`` (the oldest resourceVersion still in the history when it
        reconnected), ``revision`` (the store's), ``log`` (the reflector's
        ``(time, action, detail)``), ``cache`` (``cm-0``'s data in the cache
        at the end), plus ``informer`` and ``server`` for further tables.

    Raises
    ------
    ValueError
        For a negative ``writes_while_down`` or a ``history_capacity`` below 1.

    See Also
    --------
    kubenotes.viz.controlplane.outage_table, kubenotes.viz.controlplane.outage_panel,
    kubenotes.viz.controlplane.reflector_log_table

    Notes
    -----
    Upstream's watch cache keeps between 100 and 102,400 (100 × 1024) events
    per resource, resized to hold about ``eventFreshDuration`` (75 s) of
    history; here it is one fixed capacity, so that a handful of writes is
    enough to see a 410. The 410 itself is upstream's: reason ``Expired``,
    ``too old resource version: <asked> (<oldest servable>)``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go
    https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes

    Examples
    --------
    >>> watch_outage(2, history_capacity=10)["relisted"], watch_outage(12, history_capacity=10)["relisted"]
    (False, True)
    """
    if writes_while_down < 0 or history_capacity < 1:
        raise ValueError("writes_while_down must be >= 0 and history_capacity >= 1")
    from kubenotes.apiserver.server import APIServer
    from kubenotes.client import SharedInformerFactory

    api = APIServer(seed=seed, history_capacity=history_capacity)
    writer = api.client("kubectl")
    for i in range(objects):
        writer.create("configmaps", {"metadata": {"name": f"cm-{i}"}, "data": {"version": "0"}}, "default")
    factory = SharedInformerFactory(api.client("kube-controller-manager"), api.env, seed=seed)
    inf = factory.informer_for("configmaps")
    factory.start()
    api.env.run(until=1)
    reflector = inf.reflector
    last_seen = reflector.last_sync_resource_version
    reflector.drop_watch(reconnect_after_seconds=1.0)
    for i in range(writes_while_down):
        writer.patch("configmaps", "cm-0", {"data": {"version": str(i + 1)}}, "default")
    oldest = api.store.oldest_revision
    api.env.run(until=3)
    return {"relisted": reflector.lists > 1, "lists": reflector.lists, "watches": reflector.watches,
            "last_seen": last_seen, "oldest": oldest, "revision": api.store.revision, "log": list(reflector.log),
            "cache": dict((inf.lister.get("default", "cm-0") or {}).get("data") or {}),
            "informer": inf, "server": api}
