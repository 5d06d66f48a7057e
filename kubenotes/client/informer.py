"""List-Watch on the client side: Reflector, DeltaFIFO, Indexer and Lister, shared informers.

Every component of the running cluster sees the API through these, as
client-go's components do:

1. a :class:`Reflector` LISTs a resource, then WATCHes it from the list's
   resourceVersion, and pushes what it learns into a :class:`DeltaFIFO`;
   when the watch ends (its ``timeoutSeconds`` ran out) it watches again
   from the last resourceVersion it saw, and when that is too old
   (410 Gone, "too old resource version") it LISTs again (a *relist*);
2. the informer pops each key's deltas from the FIFO, applies them to its
   :class:`Indexer` (the local cache) and then calls the registered event
   handlers (``OnAdd``, ``OnUpdate``, ``OnDelete``);
3. controllers read the cache through a :class:`Lister` and never ask the
   API server for reads: that is the point of the cache.

A :class:`SharedInformerFactory` gives one informer per resource to every
controller of a process (kube-controller-manager shares one factory), so a
cluster of twenty controllers keeps one watch on pods, not twenty.

Objects in the cache are shared with the watch stream: never mutate them;
copy (:func:`kubenotes.apiserver.store.deep_copy`) before writing.

Notes
-----
Simplified: handlers run synchronously in the informer's process (client-go
gives each handler its own goroutine and buffer); periodic resync delivers
``OnUpdate(obj, obj)`` for every cached object when a handler asks for it;
watch bookmarks are not requested.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go (ListAndWatch, watchHandler, 410 → relist)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/delta_fifo.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/{store.go,index.go,thread_safe_store.go,listers.go}
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/shared_informer.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/informers/factory.go
"""

from __future__ import annotations

import bisect
import random
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterable

import simpy

from kubenotes.apiserver.resources import ResourceInfo, resource_for
from kubenotes.apiserver.status import ApiError

__all__ = ["ADDED", "UPDATED", "DELETED", "REPLACED", "SYNC", "Delta", "DeletedFinalStateUnknown",
           "Indexer", "Lister", "DeltaFIFO", "Reflector", "SharedIndexInformer", "SharedInformerFactory",
           "NAMESPACE_INDEX", "meta_namespace_key", "MIN_WATCH_TIMEOUT_SECONDS"]

#: Delta types (``cache.DeltaType``).
ADDED, UPDATED, DELETED, REPLACED, SYNC = "Added", "Updated", "Deleted", "Replaced", "Sync"

#: The index every informer has (``cache.NamespaceIndex``).
NAMESPACE_INDEX = "namespace"

#: A reflector's watch lasts ``timeoutSeconds`` = this × (1 + rand) (``minWatchTimeout`` = 5 min).
MIN_WATCH_TIMEOUT_SECONDS = 300.0


def meta_namespace_key(obj: Any) -> str:
    """``cache.MetaNamespaceKeyFunc``: ``namespace/name`` (``name`` when cluster-scoped).

    Examples
    --------
    >>> meta_namespace_key({"metadata": {"namespace": "default", "name": "web"}})
    'default/web'
    """
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    md = obj.get("metadata") or {}
    ns = md.get("namespace")
    return f"{ns}/{md['name']}" if ns else md["name"]


@dataclass(frozen=True, slots=True)
class Delta:
    """One change to one object as the FIFO holds it (``cache.Delta``)."""

    type: str
    object: Any


@dataclass(frozen=True, slots=True)
class DeletedFinalStateUnknown:
    """An object deleted while the watch was down: the relist no longer has it (``cache.DeletedFinalStateUnknown``).

    ``obj`` is the last state the cache had.
    """

    key: str
    obj: dict


def _namespace_index(obj: dict) -> list[str]:
    ns = (obj.get("metadata") or {}).get("namespace")
    return [ns or ""]


class Indexer:
    """The informer's local cache: objects by key, plus secondary indices (``cache.Indexer``).

    Parameters
    ----------
    indexers : dict[str, callable(obj) -> list[str]], optional
        Index name → function giving an object's index values. A ``namespace``
        index is always present.

    Notes
    -----
    Lists come back in key order (upstream's come in map order), so runs are
    deterministic. Each index value keeps its keys as a set and, once asked
    for, as a sorted list that adds and deletes keep sorted (``bisect``): a
    controller listing a bucket of 10,000 pods after each event does not sort
    it again each time.

    Examples
    --------
    >>> ix = Indexer()
    >>> ix.add({"metadata": {"namespace": "a", "name": "x"}}); ix.add({"metadata": {"namespace": "b", "name": "y"}})
    >>> ix.list_keys(), ix.index_keys("namespace", "b")
    (['a/x', 'b/y'], ['b/y'])
    >>> ix.add({"metadata": {"namespace": "b", "name": "a"}}); ix.index_keys("namespace", "b")
    ['b/a', 'b/y']
    """

    def __init__(self, indexers: dict[str, Callable[[dict], list[str]]] | None = None):
        self._items: dict[str, dict] = {}
        self._indexers: dict[str, Callable[[dict], list[str]]] = {NAMESPACE_INDEX: _namespace_index}
        self._indices: dict[str, dict[str, set[str]]] = {NAMESPACE_INDEX: {}}
        # (index name, value) -> the value's keys, sorted; built on first read, then kept sorted
        self._sorted: dict[tuple[str, str], list[str]] = {}
        for name, fn in (indexers or {}).items():
            self.add_indexer(name, fn)

    def add_indexer(self, name: str, fn: Callable[[dict], list[str]]) -> None:
        """Add an index (``AddIndexers``); existing objects are indexed at once."""
        self._indexers[name] = fn
        idx = self._indices[name] = {}
        self._sorted = {k: v for k, v in self._sorted.items() if k[0] != name}
        for key, obj in self._items.items():
            for v in fn(obj):
                idx.setdefault(v, set()).add(key)

    def _unindex_value(self, name: str, idx: dict[str, set[str]], v: str, key: str) -> None:
        s = idx.get(v)
        if s is None or key not in s:
            return
        s.discard(key)
        keys = self._sorted.get((name, v))
        if not s:
            del idx[v]
            self._sorted.pop((name, v), None)
        elif keys is not None:
            del keys[bisect.bisect_left(keys, key)]

    def _index_value(self, name: str, idx: dict[str, set[str]], v: str, key: str) -> None:
        s = idx.get(v)
        if s is None:
            idx[v] = {key}
        elif key not in s:
            s.add(key)
            keys = self._sorted.get((name, v))
            if keys is not None:
                bisect.insort(keys, key)

    def _reindex(self, key: str, old: dict | None, obj: dict | None) -> None:
        for name, fn in self._indexers.items():
            idx = self._indices[name]
            old_values = fn(old) if old is not None else ()
            new_values = fn(obj) if obj is not None else ()
            for v in old_values:
                if v not in new_values:
                    self._unindex_value(name, idx, v, key)
            for v in new_values:
                self._index_value(name, idx, v, key)

    def add(self, obj: dict) -> None:
        """Insert or replace ``obj`` under its key."""
        key = meta_namespace_key(obj)
        old = self._items.get(key)
        self._items[key] = obj
        self._reindex(key, old, obj)

    update = add

    def delete(self, obj: Any) -> None:
        key = meta_namespace_key(obj)
        old = self._items.pop(key, None)
        if old is not None:
            self._reindex(key, old, None)

    def replace(self, objs: Iterable[dict]) -> None:
        """Swap the whole content (after a LIST)."""
        self._items = {}
        for name in self._indices:
            self._indices[name] = {}
        self._sorted = {}
        for o in objs:
            self.add(o)

    def get_by_key(self, key: str) -> dict | None:
        return self._items.get(key)

    def list(self) -> list[dict]:
        """Every cached object, in key order."""
        return [self._items[k] for k in sorted(self._items)]

    def list_keys(self) -> list[str]:
        return sorted(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def _sorted_keys(self, index_name: str, value: str) -> list[str]:
        """The kept sorted key list of one index value (shared: callers copy it)."""
        keys = self._sorted.get((index_name, value))
        if keys is None:
            s = self._indices[index_name].get(value)
            if not s:
                return []
            keys = self._sorted[(index_name, value)] = sorted(s)
        return keys

    def index_keys(self, index_name: str, value: str) -> list[str]:
        """Keys whose ``index_name`` values include ``value`` (``IndexKeys``), in key order.

        Raises
        ------
        KeyError
            For an unknown index.
        """
        if index_name not in self._indices:
            raise KeyError(index_name)
        return list(self._sorted_keys(index_name, value))

    def by_index(self, index_name: str, value: str) -> list[dict]:
        """Objects whose ``index_name`` values include ``value`` (``ByIndex``), in key order."""
        if index_name not in self._indices:
            raise KeyError(index_name)
        return list(map(self._items.__getitem__, self._sorted_keys(index_name, value)))


class Lister:
    """Read access to an informer's cache (``listers.GenericLister``); what controllers read instead of the API.

    Returned objects are the cached ones: never mutate them.
    """

    def __init__(self, indexer: Indexer, resource: ResourceInfo):
        self.indexer = indexer
        self.resource = resource

    def list(self, namespace: str | None = None, label_selector: Any = None) -> list[dict]:
        """Cached objects, optionally in one namespace and matching a label selector.

        ``label_selector`` is a selector string (``app=web,tier!=db``), a
        ``{"matchLabels", "matchExpressions"}`` dict, or a
        :class:`~kubenotes.api.selectors.LabelSelector`.
        """
        objs = self.indexer.by_index(NAMESPACE_INDEX, namespace) if namespace else self.indexer.list()
        if label_selector is None or label_selector == "":
            return objs
        from kubenotes.api.selectors import LabelSelector, parse_selector

        if isinstance(label_selector, str):
            sel = parse_selector(label_selector)
        elif isinstance(label_selector, LabelSelector):
            sel = label_selector
        else:
            sel = LabelSelector.from_api(label_selector)
        return [o for o in objs if sel.matches((o.get("metadata") or {}).get("labels") or {})]

    def get(self, namespace: str | None, name: str) -> dict | None:
        """The cached object, or None (``Get``)."""
        key = f"{namespace}/{name}" if namespace and self.resource.namespaced else name
        return self.indexer.get_by_key(key)


class DeltaFIFO:
    """A queue of keys, each with the list of changes seen since it was last popped (``cache.DeltaFIFO``).

    The reflector adds deltas; the informer pops one key at a time with all
    its deltas, so a burst of updates to one object is processed as one
    batch, in order. ``Replace`` (after a LIST) adds ``Replaced`` deltas for
    every listed object and ``Deleted`` deltas carrying
    :class:`DeletedFinalStateUnknown` for cached objects the list no longer has.

    Parameters
    ----------
    env : simpy.Environment
    known_objects : Indexer
        The informer's cache (to find deletions a relist reveals).

    Examples
    --------
    >>> import simpy
    >>> f = DeltaFIFO(simpy.Environment(), Indexer())
    >>> a1 = {"metadata": {"name": "a", "resourceVersion": "2"}}
    >>> a2 = {"metadata": {"name": "a", "resourceVersion": "3"}}
    >>> f.add(a1); f.update(a2); f.keys()
    ['a']
    >>> [d.type for d in f.pop_key()[1]]
    ['Added', 'Updated']
    """

    def __init__(self, env: simpy.Environment, known_objects: Indexer):
        self.env = env
        self.known_objects = known_objects
        self._items: OrderedDict[str, list[Delta]] = OrderedDict()
        self._wakeup: simpy.Event | None = None
        self.populated = False
        self.initial_population_count = 0

    def _queue_action(self, dtype: str, obj: Any) -> None:
        key = meta_namespace_key(obj)
        deltas = self._items.get(key)
        if deltas is None:
            self._items[key] = [Delta(dtype, obj)]
        else:
            # dedupDeltas: two deletions in a row collapse into one
            if dtype == DELETED and deltas[-1].type == DELETED:
                return
            deltas.append(Delta(dtype, obj))
        w = self._wakeup
        if w is not None and not w.triggered:
            w.succeed()

    def add(self, obj: dict) -> None:
        self.populated = True
        self._queue_action(ADDED, obj)

    def update(self, obj: dict) -> None:
        self.populated = True
        self._queue_action(UPDATED, obj)

    def delete(self, obj: dict) -> None:
        self.populated = True
        self._queue_action(DELETED, obj)

    def replace(self, objs: list[dict]) -> None:
        """The result of a LIST: ``Replaced`` for each, ``Deleted`` (final state unknown) for vanished ones."""
        keys = set()
        for o in objs:
            keys.add(meta_namespace_key(o))
            self._queue_action(REPLACED, o)
        for key in self.known_objects.list_keys():
            if key not in keys:
                last = self.known_objects.get_by_key(key)
                self._queue_action(DELETED, DeletedFinalStateUnknown(key, last))
        if not self.populated:
            self.populated = True
            self.initial_population_count = len(self._items)
        w = self._wakeup
        if w is not None and not w.triggered:
            w.succeed()

    def keys(self) -> list[str]:
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def pop_key(self) -> tuple[str, list[Delta]]:
        """Take the oldest key with its deltas. Raises KeyError when empty."""
        key, deltas = self._items.popitem(last=False)
        if self.initial_population_count > 0:
            self.initial_population_count -= 1
        return key, deltas

    def has_synced(self) -> bool:
        """Whether the first LIST has been delivered and popped (``HasSynced``)."""
        return self.populated and self.initial_population_count == 0

    def wait(self) -> simpy.Event:
        """A SimPy event that fires when a key is queued."""
        if self._items:
            ev = self.env.event()
            ev.succeed()
            return ev
        if self._wakeup is None or self._wakeup.triggered:
            self._wakeup = self.env.event()
        return self._wakeup


class Reflector:
    """LIST then WATCH one resource into a :class:`DeltaFIFO`, relisting on 410 Gone (``cache.Reflector``).

    Parameters
    ----------
    client : Client
        The component's API client (its reads pass authorization).
    resource : ResourceInfo
    fifo : DeltaFIFO
    rng : random.Random
        Draws each watch's ``timeoutSeconds``.
    namespace, label_selector, field_selector : str
        Narrow what is listed and watched.

    Attributes
    ----------
    last_sync_resource_version : str
        The resourceVersion of the last LIST or watch event.
    log : list[tuple[float, str, str]]
        ``(time, action, detail)`` for every LIST, WATCH and relist, for the chapters.
    lists, watches : int
        How many LIST and WATCH requests were made.
    """

    def __init__(self, client: Any, resource: ResourceInfo, fifo: DeltaFIFO, rng: random.Random, *,
                 namespace: str = "", label_selector: str = "", field_selector: str = ""):
        self.client = client
        self.resource = resource
        self.fifo = fifo
        self.rng = rng
        self.env = fifo.env
        self.namespace = namespace
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.last_sync_resource_version = ""
        self.log: list[tuple[float, str, str]] = []
        self.lists = 0
        self.watches = 0
        self.watch: Any = None
        self.stopped = False
        self._reconnect_delay_seconds = 0.0

    def _note(self, action: str, detail: str) -> None:
        self.log.append((float(self.env.now), action, detail))

    def list(self) -> None:
        """LIST and hand the result to the FIFO (``Replace``)."""
        srv = self.client.server
        attrs = self.client._attrs("list", self.resource.resource, self.namespace or None)
        out = srv.list_objects(attrs, label_selector=self.label_selector, field_selector=self.field_selector,
                               copy=False)
        self.lists += 1
        self.last_sync_resource_version = out["metadata"]["resourceVersion"]
        self._note("LIST", f"{len(out['items'])} {self.resource.resource} at resourceVersion "
                           f"{self.last_sync_resource_version}")
        self.fifo.replace(out["items"])

    def run(self) -> Generator:
        """The SimPy process: ``ListAndWatch`` forever (until :meth:`stop`)."""
        need_list = True
        while not self.stopped:
            if need_list:
                try:
                    self.list()
                except ApiError as e:
                    self._note("LIST failed", str(e))
                    yield self.env.timeout(1.0)  # the reflector's back-off before retrying
                    continue
                need_list = False
            timeout = MIN_WATCH_TIMEOUT_SECONDS * (1.0 + self.rng.random())
            try:
                w = self.client.watch(self.resource.resource, self.namespace or None,
                                      resource_version=self.last_sync_resource_version,
                                      label_selector=self.label_selector, field_selector=self.field_selector)
            except ApiError as e:
                if e.code == 410:
                    self._note("WATCH 410 Gone", f"{e}; relisting")
                    need_list = True
                    continue
                self._note("WATCH failed", str(e))
                yield self.env.timeout(1.0)
                continue
            self.watches += 1
            self.watch = w
            self._note("WATCH", f"from resourceVersion {self.last_sync_resource_version}, "
                                f"timeoutSeconds {int(timeout)}")
            deadline = self.env.timeout(timeout)
            while not w.stopped and not self.stopped:
                got = w.wait()
                yield got | deadline
                for ev in w.pop_all():
                    self._handle(ev)
                if deadline.processed:  # (a Timeout counts as triggered from the moment it is made)
                    break
            if not w.stopped:
                w.stop()
            for ev in w.pop_all():  # events queued before the stop are still delivered
                self._handle(ev)
            self.watch = None
            if not self.stopped:
                self._note("WATCH ended", f"last resourceVersion {self.last_sync_resource_version}; watching again")
            if self._reconnect_delay_seconds:
                yield self.env.timeout(self._reconnect_delay_seconds)
                self._reconnect_delay_seconds = 0.0

    def _handle(self, ev: Any) -> None:
        t = ev.type
        if t == "BOOKMARK":
            self.last_sync_resource_version = ev.resource_version
            return
        if t == "ADDED":
            self.fifo.add(ev.object)
        elif t == "MODIFIED":
            self.fifo.update(ev.object)
        elif t == "DELETED":
            self.fifo.delete(ev.object)
        self.last_sync_resource_version = ev.resource_version

    def drop_watch(self, reconnect_after_seconds: float = 1.0) -> None:
        """End the current watch as a broken connection would.

        The reflector watches again from its last resourceVersion after
        ``reconnect_after_seconds`` (client-go backs off about 0.8 s); if the
        history has moved past that resourceVersion meanwhile, it gets 410 Gone
        and relists.
        """
        if self.watch is not None:
            self._reconnect_delay_seconds = reconnect_after_seconds
            self.watch.stop()

    def stop(self) -> None:
        self.stopped = True
        self.drop_watch(0.0)


@dataclass
class _Handler:
    on_add: Callable[[dict], None] | None
    on_update: Callable[[dict, dict], None] | None
    on_delete: Callable[[Any], None] | None


class SharedIndexInformer:
    """One resource's Reflector, DeltaFIFO, Indexer and event handlers (``cache.SharedIndexInformer``).

    Parameters
    ----------
    client : Client
    resource : ResourceInfo
    rng : random.Random
    namespace, label_selector, field_selector : str, optional

    Attributes
    ----------
    indexer : Indexer
    lister : Lister
    reflector : Reflector
    fifo : DeltaFIFO
    events_processed : int
        Deltas delivered to handlers.
    """

    def __init__(self, client: Any, resource: ResourceInfo, rng: random.Random, *, namespace: str = "",
                 label_selector: str = "", field_selector: str = ""):
        self.client = client
        self.resource = resource
        self.env: simpy.Environment = client.server.env
        self.indexer = Indexer()
        self.lister = Lister(self.indexer, resource)
        self.fifo = DeltaFIFO(self.env, self.indexer)
        self.reflector = Reflector(client, resource, self.fifo, rng, namespace=namespace,
                                   label_selector=label_selector, field_selector=field_selector)
        self._handlers: list[_Handler] = []
        self.started = False
        self._synced = False
        self.synced_event = self.env.event()
        self.events_processed = 0

    def add_event_handler(self, on_add: Callable[[dict], None] | None = None,
                          on_update: Callable[[dict, dict], None] | None = None,
                          on_delete: Callable[[Any], None] | None = None) -> None:
        """Register handlers (``AddEventHandler``); one added late first gets an add for each cached object.

        ``on_delete`` may receive a :class:`DeletedFinalStateUnknown`.
        """
        h = _Handler(on_add, on_update, on_delete)
        self._handlers.append(h)
        if self._synced and on_add is not None:
            for o in self.indexer.list():
                on_add(o)

    def add_indexers(self, indexers: dict[str, Callable[[dict], list[str]]]) -> None:
        for name, fn in indexers.items():
            self.indexer.add_indexer(name, fn)

    def has_synced(self) -> bool:
        """Whether the first LIST has reached the cache and the handlers."""
        return self._synced

    def start(self) -> None:
        """Start the reflector and the processing loop as SimPy processes (once)."""
        if self.started:
            return
        self.started = True
        self.env.process(self.reflector.run())
        self.env.process(self._process_loop())

    def _process_loop(self) -> Generator:
        fifo = self.fifo
        server = getattr(self.client, "server", None)
        while True:
            while len(fifo):
                _key, deltas = fifo.pop_key()
                self._handle_deltas(deltas)
                if server is not None and server.between_requests is not None:
                    server.yield_point()  # a served clock lets HTTP requests in between two keys
            if not self._synced and fifo.has_synced():
                self._synced = True
                self.synced_event.succeed()
            yield fifo.wait()

    def _handle_deltas(self, deltas: list[Delta]) -> None:
        ix = self.indexer
        for d in deltas:
            self.events_processed += 1
            obj = d.object
            if d.type == DELETED:
                old = ix.get_by_key(meta_namespace_key(obj))
                ix.delete(obj)
                if old is None and isinstance(obj, DeletedFinalStateUnknown):
                    continue
                for h in self._handlers:
                    if h.on_delete is not None:
                        h.on_delete(obj)
                continue
            old = ix.get_by_key(meta_namespace_key(obj))
            ix.update(obj)
            if old is None:
                for h in self._handlers:
                    if h.on_add is not None:
                        h.on_add(obj)
            else:
                if d.type == REPLACED and (old.get("metadata") or {}).get("resourceVersion") == \
                        (obj.get("metadata") or {}).get("resourceVersion"):
                    continue  # a relist returned what the cache has: no update (upstream skips unchanged RVs)
                for h in self._handlers:
                    if h.on_update is not None:
                        h.on_update(old, obj)


class SharedInformerFactory:
    """One informer per resource, shared by every controller of one process (``informers.SharedInformerFactory``).

    Parameters
    ----------
    client : Client
        The process's client (kube-controller-manager's, kube-scheduler's).
    env : simpy.Environment
    seed : int
        Seeds the reflectors' watch timeouts.

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> api = APIServer(seed=0)
    >>> c = api.client("kubectl")
    >>> _ = c.create("configmaps", {"metadata": {"name": "a"}, "data": {"k": "1"}}, "default")
    >>> f = SharedInformerFactory(api.client("controller"), api.env)
    >>> cms = f.informer_for("configmaps")
    >>> seen = []
    >>> cms.add_event_handler(on_add=lambda o: seen.append(("add", o["metadata"]["name"])),
    ...                       on_update=lambda old, new: seen.append(("update", new["data"]["k"])))
    >>> f.start(); api.env.run(until=1)
    >>> _ = c.patch("configmaps", "a", {"data": {"k": "2"}}, "default"); api.env.run(until=2)
    >>> seen, cms.lister.get("default", "a")["data"]
    ([('add', 'a'), ('update', '2')], {'k': '2'})
    """

    def __init__(self, client: Any, env: simpy.Environment, seed: int = 0):
        self.client = client
        self.env = env
        self.rng = random.Random(seed)
        self._informers: dict[ResourceInfo, SharedIndexInformer] = {}
        self.started = False

    def informer_for(self, resource: str) -> SharedIndexInformer:
        """The shared informer of ``resource`` (any name ``kubectl get`` accepts, a served custom resource's
        too), made on first request."""
        try:
            ri = resource_for(resource)
        except ApiError:
            ri = self.client.server.crds.resource_for(resource)
            if ri is None:
                raise
        inf = self._informers.get(ri)
        if inf is None:
            inf = self._informers[ri] = SharedIndexInformer(self.client, ri, self.rng)
            if self.started:
                inf.start()
        return inf

    def forget(self, informer: SharedIndexInformer) -> None:
        """Stop ``informer`` and drop it (a resource no longer served); a later request makes a new one."""
        informer.reflector.stop()
        self._informers = {ri: inf for ri, inf in self._informers.items() if inf is not informer}

    def lister(self, resource: str) -> Lister:
        return self.informer_for(resource).lister

    def informers(self) -> dict[str, SharedIndexInformer]:
        """The informers made so far, by resource name."""
        return {ri.resource: inf for ri, inf in self._informers.items()}

    def start(self) -> None:
        """Start every informer requested so far (and, from now on, each new one at once)."""
        self.started = True
        for inf in list(self._informers.values()):
            inf.start()

    def has_synced(self) -> bool:
        return all(inf.has_synced() for inf in self._informers.values())

    def wait_for_cache_sync(self) -> simpy.Event:
        """A SimPy event that fires once every started informer has synced (``WaitForCacheSync``)."""

        def wait() -> Generator:
            for inf in list(self._informers.values()):
                if not inf.has_synced():
                    yield inf.synced_event

        return self.env.process(wait())
