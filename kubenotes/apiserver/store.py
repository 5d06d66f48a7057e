"""The storage layer under the API server: an etcd-shaped key space with one revision and a watch history.

Objects live under upstream's keys (``/registry/pods/<namespace>/<name>``).
Every committed write bumps one global revision, which becomes the object's
``metadata.resourceVersion`` (etcd's ``mod_revision``), is appended to a
bounded event history (the watch cache) and is fanned out to the watchers
whose namespace, label and field selectors match, with upstream's
transitions: an object that starts matching arrives as ``ADDED``, one that
stops matching as ``DELETED``.

A resource served in more than one version (autoscaling/v1 and v2
HorizontalPodAutoscalers; core and events.k8s.io Events) has one key space,
in its storage version: reads, writes and watches through another served
version are converted (:mod:`kubenotes.apiserver.conversion`), as the
storage codec converts to and from the storage version upstream.

With a real etcd behind it (``--etcd``) this store is kube-apiserver's
watch cache: it follows etcd's watch on ``/registry/`` (see
:class:`ObjectStore`, Notes), so a change written to etcd by anyone (``etcdctl
put``, a second API server on the same etcd) reaches the model's watchers.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go (history, too old resource
version, processEvent, Replace, waitUntilFreshAndBlock)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (filtered fan-out,
startCaching, terminateAllWatchers)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/reflector.go (the cacher's list and watch)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/etcd3/watcher.go (watch from
resourceVersion + 1 with prev_kv)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/interfaces.go (the backend behind it, when
one is given: :mod:`kubenotes.apiserver.storage`)
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any, Iterator

import simpy

from kubenotes.api.selectors import LabelSelector
from kubenotes.apiserver.conversion import convert
from kubenotes.apiserver.fields import FieldSelector
from kubenotes.apiserver.resources import ResourceInfo, etcd_key, resource_for_kind, storage_resource
from kubenotes.apiserver.status import new_conflict, new_resource_expired
from kubenotes.apiserver.storage.compact import DEFAULT_COMPACTION_INTERVAL_SECONDS, Compactor
from kubenotes.apiserver.storage.errors import interpret_error
from kubenotes.apiserver.storage.interfaces import (
    ERR_COMPACTED,
    ERR_RESOURCE_VERSION_CONFLICTS,
    ERR_SERVER,
    ERR_UNREACHABLE,
    Event,
    Interface,
    StorageError,
    StorageWatch,
)
from kubenotes.apiserver.watch import ADDED, BOOKMARK, DELETED, MODIFIED, Watch, WatchEvent
from kubenotes.errors import ConfigError, KubenotesError

__all__ = ["ObjectStore", "DEFAULT_HISTORY_CAPACITY", "FEED_SYNC_INTERVAL_SECONDS", "deep_copy"]

#: With a storage: how often (virtual seconds) the cache takes in what etcd's watch delivered when no request
#: came (a model choice: upstream the watch goroutine applies each event as it arrives).
FEED_SYNC_INTERVAL_SECONDS = 1.0

#: Events the store keeps for watches that resume from an older resourceVersion
#: (upstream's watch cache grows from 100 up to 100,000 events a resource, sized by age; one fixed bound here).
DEFAULT_HISTORY_CAPACITY = 100_000


def deep_copy(o: Any) -> Any:
    """Copy a JSON-shaped value (dicts, lists, scalars): what a decode from the wire would give.

    Examples
    --------
    >>> a = {"x": [1, {"y": 2}]}
    >>> b = deep_copy(a); b["x"][1]["y"] = 3; a["x"][1]["y"]
    2
    """
    # Scalars are recognised by exact type (one set lookup); anything else goes through the isinstance tests,
    # so dict and list subclasses still come back as plain dicts and lists and other values are shared.
    if type(o) is dict or isinstance(o, dict):
        return {k: (v if type(v) in _SCALARS else deep_copy(v)) for k, v in o.items()}
    if type(o) is list or isinstance(o, list):
        return [v if type(v) in _SCALARS else deep_copy(v) for v in o]
    return o


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _labels(o: dict) -> dict:
    return o.get("metadata", {}).get("labels") or {}


#: Field selectors the cacher indexes watchers by (``pkg/registry/core/pod/storage``: ``NodeNameTriggerFunc``).
_TRIGGER_FIELDS = {"pods": "spec.nodeName"}


def _trigger_value(resource: str, o: dict | None) -> str | None:
    if o is None or resource != "pods":
        return None
    return (o.get("spec") or {}).get("nodeName") or ""


class _Filter:
    __slots__ = ("namespace", "labels", "fields", "trigger", "convert_to")

    def __init__(self, namespace: str | None, labels: LabelSelector | None, fields: FieldSelector | None,
                 resource: str = ""):
        self.namespace = namespace or None
        self.labels = labels if labels is not None and not labels.is_empty() else None
        self.fields = fields if fields is not None and not fields.empty() else None
        self.trigger: str | None = None
        self.convert_to: str | None = None  # the apiVersion a watch through another served version wants
        tf = _TRIGGER_FIELDS.get(resource)
        if tf and self.fields is not None:
            for f, op, v in self.fields.terms:
                if f == tf and op == "=":
                    self.trigger = v

    def matches(self, o: dict | None) -> bool:
        if o is None:
            return False
        if self.namespace is not None and o.get("metadata", {}).get("namespace") != self.namespace:
            return False
        if self.labels is not None and not self.labels.matches(_labels(o)):
            return False
        if self.fields is not None and not self.fields.matches(o):
            return False
        return True


class ObjectStore:
    """Objects by key, one revision counter, a bounded event history and the open watches.

    Parameters
    ----------
    env : simpy.Environment
        The clock watches wake clients on.
    history_capacity : int
        How many events the history keeps; a watch from an older
        resourceVersion gets 410 Expired.

    storage : Interface, optional
        A storage backend (:class:`~kubenotes.apiserver.storage.etcd3.EtcdStorage`)
        every write goes through first: a create is a transaction on
        ``mod_revision == 0``, an update or delete one on the ``mod_revision``
        this store holds (retried as ``GuaranteedUpdate`` does), and the
        revision etcd answers becomes the resourceVersion. What fails there
        changes nothing here. The cache then follows etcd's watch (Notes).
        Without one (the default) this object is the store.
    compaction_interval_seconds : float
        ``--etcd-compaction-interval`` for ``storage``'s compactor (default 300; 0: none).

    Attributes
    ----------
    revision : int
        The last committed revision (etcd's header revision); starts at 1.
        With a ``storage``: the revision of the last change the cache applied.
    relists : int
        With a ``storage``: how many times the cache relisted (its feed's revision was compacted).
    feed_skipped : list[tuple[str, str]]
        With a ``storage``: ``(key, why)`` of watched changes the cache left out.

    Raises
    ------
    ConfigError
        When ``storage`` already holds keys under ``/registry/``.

    Notes
    -----
    With a ``storage``, this object plays kube-apiserver's watch cache
    (``cacher.go``, ``watch_cache.go``): watches, field-indexed lists and the
    server's own reads are answered here, while clients' GETs and LISTs
    (:meth:`read`, :meth:`read_list`) are reads from etcd. As upstream, the
    cache follows etcd's watch (the *feed*): the cacher's reflector lists
    ``/registry/`` at a revision (empty here: the model starts on an empty
    prefix) and watches from the next revision with ``prev_kv``; every event
    becomes the cache's change at etcd's revision, so its resourceVersion is
    etcd's ``mod_revision``, ``ADDED`` when etcd says the key was created.
    Where the model differs from upstream:

    - Upstream the watch goroutine applies events as they come. Here the
      feed's thread only queues them; :meth:`sync` applies them at the start
      of each request the store serves and every
      :data:`FEED_SYNC_INTERVAL_SECONDS` of the virtual clock, so a
      request never sees the cache move under it and a run without other
      writers is as deterministic as on the embedded store.
    - Upstream a write's response does not wait for the cache. Here
      :meth:`commit` waits (up to the storage's timeout) until the feed
      brings the write's own revision: other writers' earlier changes are
      applied first, then the write (once; the feed's copy is dropped), so
      the model's code reads its own writes, and every watcher sees the
      events in revision order.
    - A feed that ends (etcd restarted, connection dropped) is opened again
      from the cache's revision; when etcd compacted it, the cache relists
      as ``startCaching`` does after "too old resource version": every watch
      ends (``terminateAllWatchers``), the cache is refilled from one list
      (``watchCache.Replace``) and a watch from an older resourceVersion
      gets 410 ``too old resource version``. After a request etcd did not
      answer, one range read is compared with the cache instead
      (:meth:`_catch_up`, delivering the differences), and the feed restarts
      from it.
    - An update worked out on an object another writer has changed since
      fails with 409 Conflict (upstream's ``GuaranteedUpdate`` would run the
      update again on the new object when the request carried no
      resourceVersion). Values that are no object of a known kind, or whose
      name is not their key's, are left out (:attr:`feed_skipped`); upstream
      the watch reports a decode error.
    - etcd's progress notifications are not used: :meth:`wait_until_fresh`
      waits for an event at the revision asked for.
    """

    def __init__(self, env: simpy.Environment, history_capacity: int = DEFAULT_HISTORY_CAPACITY,
                 storage: Interface | None = None,
                 compaction_interval_seconds: float = DEFAULT_COMPACTION_INTERVAL_SECONDS):
        self.env = env
        self.revision = 1
        #: The backend every write goes through first (None: this object is the embedded store, as by default).
        self.storage = storage
        #: kube-apiserver's compactor of ``storage`` (None without one).
        self.compactor: Compactor | None = None
        self._behind = False  # a storage request went unanswered: etcd may hold writes the cache has not seen
        self._feed: StorageWatch | None = None  # etcd's watch on /registry/ that feeds the cache (with a storage)
        self._held: Event | None = None  # an event read past the revision a write waited for
        #: How many times the feed relisted (etcd had compacted the revision it was to resume from).
        self.relists = 0
        #: ``(key, why)`` of the watched changes the cache left out (a value that is no object of a known kind).
        self.feed_skipped: list[tuple[str, str]] = []
        if storage is not None:
            held = storage.count("/registry/")
            if held:
                raise ConfigError(f"--etcd {storage.url}: already holds {held} keys under /registry/; "
                                  "the model starts an empty cluster (use an empty etcd or another key prefix)")
            self.revision = storage.revision
            self.compactor = Compactor(env, storage, compaction_interval_seconds)
        self._by_resource: dict[ResourceInfo, dict[str, dict]] = {}
        self._history: deque[tuple[int, ResourceInfo, WatchEvent, dict | None]] = deque(maxlen=history_capacity)
        self._compacted = False  # whether events have fallen out of the history
        self._list_revision = 0  # the watch cache's last full list (replace_watch_cache); 0: never relisted
        self._watchers: dict[ResourceInfo, list[Watch]] = {}
        #: Record which watches each commit reached in :attr:`last_delivered` (for request traces).
        self.track_deliveries = False
        self.last_delivered: list[str] = []
        # watchers whose field selector pins the trigger field (spec.nodeName=X), by X
        self._indexed: dict[ResourceInfo, dict[str, list[Watch]]] = {}
        # pods by spec.nodeName ("" for unbound), for lists with that field selector (every kubelet's first list)
        self._by_trigger: dict[ResourceInfo, dict[str, set[str]]] = {}
        if storage is not None:  # the cacher's reflector: list (empty, checked above), then watch from there
            self._feed = storage.watch("/registry/", self.revision)
            env.process(self._feed_ticks())

    def _feed_ticks(self) -> Iterator:
        """Every :data:`FEED_SYNC_INTERVAL_SECONDS` of the clock, :meth:`sync` (a clock step between requests)."""
        while True:
            yield self.env.timeout(FEED_SYNC_INTERVAL_SECONDS)
            self.sync()

    # ------------------------------------------------------------------ reads
    def get(self, ri: ResourceInfo, namespace: str | None, name: str) -> dict | None:
        """The stored object (shared: do not mutate), or None; in ``ri``'s version."""
        sri = storage_resource(ri)
        obj = self._by_resource.get(sri, {}).get(etcd_key(sri, namespace, name))
        return obj if obj is None or sri is ri else convert(obj, ri.api_version)

    def list(self, ri: ResourceInfo, namespace: str | None = None) -> list[dict]:
        """Objects of ``ri`` (in ``namespace`` when given), in key order as etcd returns a range."""
        sri = storage_resource(ri)
        objs = self._by_resource.get(sri)
        if not objs:
            return []
        if namespace and ri.namespaced:
            prefix = f"/registry/{ri.prefix}/{namespace}/"
            out = [objs[k] for k in sorted(objs) if k.startswith(prefix)]
        else:
            out = [objs[k] for k in sorted(objs)]
        return out if sri is ri else [convert(o, ri.api_version) for o in out]

    def list_at(self, ri: ResourceInfo, namespace: str | None, revision: int) -> list[tuple[str, dict]] | None:
        """``(key, object)`` of ``ri`` as they were at ``revision``, in key order; None once the history is gone.

        The current objects with the history's later events undone, newest
        first: what etcd's range read ``WithRev(revision)`` answers, so every
        page of a chunked list comes from one snapshot. None when an event
        after ``revision`` has fallen out of the history (etcd's
        ``ErrCompacted``).

        Examples
        --------
        >>> import simpy
        >>> from kubenotes.apiserver.resources import resource_for
        >>> s, cms = ObjectStore(simpy.Environment()), resource_for("configmaps")
        >>> _ = s.commit(cms, "ADDED", {"metadata": {"name": "a", "namespace": "d"}})
        >>> at = s.revision
        >>> _ = s.commit(cms, "ADDED", {"metadata": {"name": "b", "namespace": "d"}})
        >>> [k for k, _ in s.list_at(cms, "d", at)], len(s.list(cms, "d"))
        (['/registry/configmaps/d/a'], 2)
        """
        sri = storage_resource(ri)
        objs = dict(self._by_resource.get(sri, {}))
        if revision < self.revision:
            if self._compacted and (not self._history or self._history[0][0] > revision + 1):
                return None
            for rev, eri, ev, old in reversed(self._history):
                if rev <= revision:
                    break
                if eri is not sri:
                    continue
                md = ev.object["metadata"]
                key = etcd_key(sri, md.get("namespace"), md["name"])
                if ev.type == ADDED:
                    objs.pop(key, None)
                elif old is not None or ev.type == DELETED:
                    objs[key] = old if old is not None else ev.object
                else:
                    return None  # a modification whose previous version was not kept
        prefix = f"/registry/{sri.prefix}/{namespace}/" if namespace and ri.namespaced else f"/registry/{sri.prefix}/"
        out = [(k, objs[k]) for k in sorted(objs) if k.startswith(prefix)]
        return out if sri is ri else [(k, convert(o, ri.api_version)) for k, o in out]

    def list_by_trigger(self, ri: ResourceInfo, value: str, namespace: str | None = None) -> list[dict] | None:
        """Objects whose trigger field (a pod's ``spec.nodeName``) is ``value``, in key order; None when ``ri`` has none.

        The cacher indexes pods by node name so that each kubelet's list is not a scan of every pod.
        """
        if ri.resource not in _TRIGGER_FIELDS:
            return None
        if self.storage is not None:
            self.sync()
        objs = self._by_resource.get(ri, {})
        keys = sorted(self._by_trigger.get(ri, {}).get(value, ()))
        if namespace and ri.namespaced:
            prefix = f"/registry/{ri.prefix}/{namespace}/"
            keys = [k for k in keys if k.startswith(prefix)]
        return [objs[k] for k in keys if k in objs]

    def count(self, ri: ResourceInfo) -> int:
        return len(self._by_resource.get(storage_resource(ri), ()))

    def keys(self) -> Iterator[str]:
        """Every key in the store, sorted (``etcdctl get --prefix /registry --keys-only``)."""
        if self.storage is not None:
            return iter(self.storage.keys("/registry/"))
        all_keys = [k for objs in self._by_resource.values() for k in objs]
        return iter(sorted(all_keys))

    # ------------------------------------------------------------------ writes
    def commit(self, ri: ResourceInfo, event_type: str, obj: dict, old: dict | None = None) -> dict:
        """Store (``ADDED``/``MODIFIED``) or remove (``DELETED``) ``obj`` at a new revision.

        ``obj`` becomes the stored object: the caller hands it over and must
        not change it afterwards. Its ``metadata.resourceVersion`` is set here.
        ``obj`` and ``old`` are in ``ri``'s version; another served version
        than the storage one is converted (``obj`` keeps the request's form).

        Returns
        -------
        dict
            ``obj``.
        """
        self.last_delivered = []
        md = obj.setdefault("metadata", {})
        if self.storage is not None:
            return self._commit_through(ri, event_type, obj, old, md)
        self.revision += 1
        md["resourceVersion"] = str(self.revision)
        return self._apply(ri, event_type, obj, old)

    def _commit_through(self, ri: ResourceInfo, event_type: str, obj: dict, old: dict | None, md: dict) -> dict:
        """:meth:`commit` with a storage: write to etcd, then take the feed up to that revision and apply it.

        An update worked out on an object that another writer changed in etcd
        meanwhile (its change reached the cache here, or etcd's compare finds
        it) fails with 409 Conflict, as ``GuaranteedUpdate`` fails a request
        whose resourceVersion is no longer the stored one.
        """
        sri = storage_resource(ri)
        before = self._by_resource.get(sri, {}).get(etcd_key(sri, md.get("namespace"), md["name"]))
        self.sync(raise_errors=True)
        if event_type == MODIFIED and self._by_resource.get(sri, {}).get(
                etcd_key(sri, md.get("namespace"), md["name"])) is not before:
            raise new_conflict(ri.group, ri.resource, md["name"])
        rev = self._write_through(ri, event_type, obj, md)
        md["resourceVersion"] = str(rev)
        try:
            self._drain(until=rev)  # every other writer's change before this one, in revision order
        except StorageError:  # the feed could not be opened again: the write stands, the next request catches up
            self._close_feed()
            self._behind = True
        self.revision = max(self.revision, rev)
        self.last_delivered = []
        return self._apply(ri, event_type, obj, old)

    def _apply(self, ri: ResourceInfo, event_type: str, obj: dict, old: dict | None) -> dict:
        """Put a committed change (at :attr:`revision`) into the cache, its history and its watchers."""
        md = obj["metadata"]
        given = obj
        sri = storage_resource(ri)
        if sri is not ri:
            obj = convert(obj, sri.api_version)
            old = convert(old, sri.api_version) if old is not None else None
            ri = sri
        key = etcd_key(ri, md.get("namespace"), md["name"])
        objs = self._by_resource.setdefault(ri, {})
        if ri.resource in _TRIGGER_FIELDS:
            idx = self._by_trigger.setdefault(ri, {})
            prev = objs.get(key)
            if prev is not None:
                idx.get(_trigger_value(ri.resource, prev), set()).discard(key)
            if event_type != DELETED:
                idx.setdefault(_trigger_value(ri.resource, obj), set()).add(key)
        if event_type == DELETED:
            objs.pop(key, None)
        else:
            objs[key] = obj
        ev = WatchEvent(event_type, obj)
        if len(self._history) == self._history.maxlen:
            self._compacted = True
        self._history.append((self.revision, ri, ev, old))
        for w in self._watchers.get(ri, ()):
            self._dispatch(w, ev, old)
        idx = self._indexed.get(ri)
        if idx:
            new_v = _trigger_value(ri.resource, obj)
            old_v = _trigger_value(ri.resource, old)
            for v in {new_v, old_v}:
                for w in idx.get(v, ()) if v is not None else ():
                    self._dispatch(w, ev, old)
        return given

    def _write_through(self, ri: ResourceInfo, event_type: str, obj: dict, md: dict) -> int:
        """Commit ``obj`` to :attr:`storage` first; its revision. Raises the API error a failure maps to."""
        assert self.storage is not None
        sri = storage_resource(ri)
        stored = convert(obj, sri.api_version) if sri is not ri else obj
        key = etcd_key(sri, md.get("namespace"), md["name"])
        cached = self._by_resource.get(sri, {}).get(key)
        verb = {ADDED: "create", DELETED: "delete"}.get(event_type, "update")
        try:
            if event_type == ADDED:
                got = self.storage.create(key, stored)
            elif event_type == DELETED:
                got = self.storage.delete(key, cached=cached)
            else:
                seen = cached["metadata"].get("resourceVersion") if cached is not None else None

                def try_update(current: dict) -> dict:
                    # the update was worked out on the cache's object: another writer's newer one is a conflict
                    if seen is not None and current.get("metadata", {}).get("resourceVersion") != seen:
                        raise StorageError(ERR_RESOURCE_VERSION_CONFLICTS, key)
                    return stored

                got = self.storage.guaranteed_update(key, try_update, cached=cached)
        except StorageError as e:
            self._note_failure(e)
            raise interpret_error(e, ri.group, ri.resource, md["name"], verb) from None
        return int(got["metadata"]["resourceVersion"])

    def _note_failure(self, e: StorageError) -> None:
        if e.code in (ERR_UNREACHABLE, ERR_SERVER):
            self._behind = True  # etcd may yet apply what it did not answer: read it back before going on

    # ------------------------------------------------------------------ the feed: etcd's watch into the cache
    def sync(self, raise_errors: bool = False) -> int:
        """Apply what etcd's watch delivered since the last call: the cache follows etcd (with a storage).

        The feed's thread only queues etcd's events; they change the cache,
        its history and its watchers here, on the caller's thread: at the
        start of each request the store serves (:meth:`read`,
        :meth:`read_list`, :meth:`watch`, :meth:`list_by_trigger`,
        :meth:`commit`), at each bookmark tick (:meth:`bookmark_all`) and
        every :data:`FEED_SYNC_INTERVAL_SECONDS` of the clock, never in the
        middle of a request. A feed that ended
        (etcd restarted, the connection dropped) is opened again from
        :attr:`revision`; when etcd has compacted that revision the cache
        relists (:meth:`_relist`). After a request etcd did not answer, one
        range read brings the cache up to etcd first (:meth:`_catch_up`).

        Parameters
        ----------
        raise_errors : bool
            Raise what an etcd failure met here maps to (a request about to
            use etcd); else leave it for the next call (a watch is served from
            the cache while etcd is away, as the cacher serves it).

        Returns
        -------
        int
            How many events were applied (0 without a storage).

        Raises
        ------
        ApiError
            With ``raise_errors``: 504 Timeout when etcd does not answer.

        References
        ----------
        kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go (processEvent)
        kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (startCaching)

        Examples
        --------
        Another writer's change (here straight into the backend) reaches the
        watchers at the next sync, with the backend's revision:

        >>> from kubenotes.apiserver.resources import resource_for
        >>> from kubenotes.apiserver.storage import MemoryStorage
        >>> etcd = MemoryStorage()
        >>> s = ObjectStore(simpy.Environment(), storage=etcd, compaction_interval_seconds=0)
        >>> w = s.watch(resource_for("configmaps"), 0)
        >>> made = etcd.create("/registry/configmaps/d/a", {"apiVersion": "v1", "kind": "ConfigMap",
        ...                                                  "metadata": {"name": "a", "namespace": "d"}})
        >>> w.pending(), s.sync(), [(e.type, e.resource_version) for e in w.pop_all()]
        (False, 1, [('ADDED', '2')])
        >>> s.revision, made["metadata"]["resourceVersion"]
        (2, '2')
        """
        if self.storage is None:
            return 0
        try:
            if self._behind:
                self._catch_up()
                self._behind = False
            return self._drain()
        except StorageError as e:
            if raise_errors:
                raise interpret_error(e, "", "", "", "list") from None
            return 0

    def wait_until_fresh(self, revision: int, timeout_seconds: float = 3.0) -> bool:
        """Wait for etcd's watch to bring the cache to ``revision`` (a change under ``/registry/`` made there).

        Upstream's ``waitUntilFreshAndBlock`` (a read at a resourceVersion
        newer than the watch cache waits up to 3 s for it). The only call of
        the store that blocks on the feed's thread for a change the model did
        not make; tests and notebooks use it after writing to etcd directly.

        Parameters
        ----------
        revision : int
            The etcd revision of a change under the storage's ``/registry/``
            (one made elsewhere never comes: the call then waits the whole timeout).
        timeout_seconds : float
            Wall seconds to wait at most.

        Returns
        -------
        bool
            Whether :attr:`revision` reached ``revision`` in time (True at once without a storage).

        References
        ----------
        kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go
        (waitUntilFreshAndBlock)
        """
        if self.storage is None or self.revision >= revision:
            return True
        self.sync()
        try:
            self._drain(until=revision, timeout_seconds=timeout_seconds, own=False)
        except StorageError:
            return False
        return self.revision >= revision

    def close(self) -> None:
        """Stop etcd's watch that feeds the cache (nothing to do without a storage)."""
        self._close_feed()

    def _close_feed(self) -> None:
        if self._feed is not None:
            self._feed.stop()
        self._feed, self._held = None, None

    def _open_feed(self) -> None:
        """Watch ``/registry/`` from the revision after :attr:`revision`; relist when etcd compacted it."""
        assert self.storage is not None
        try:
            self._feed = self.storage.watch("/registry/", self.revision)
        except StorageError as e:
            if e.code != ERR_COMPACTED:
                raise
            self._relist()

    def _drain(self, until: int = 0, timeout_seconds: float | None = None, own: bool = True) -> int:
        """Apply the feed's queued events; with ``until``, wait (up to the storage's timeout) for that revision.

        With ``until`` and ``own`` (the model's own write at ``until``), the
        events before it are applied and the feed's own copy of that write is
        taken off (:meth:`commit` applies the object it wrote); when the feed
        does not bring it in time, the write is applied all the same and the
        next call catches up by a range read. Without ``own``, the events up
        to ``until`` are applied.
        """
        assert self.storage is not None
        if self._feed is None:
            self._open_feed()
        feed = self._feed
        assert feed is not None
        n = 0
        deadline = None
        if until:
            wait = timeout_seconds if timeout_seconds is not None else getattr(self.storage, "timeout_seconds", 2.0)
            deadline = time.monotonic() + wait
        while True:
            if self._held is not None:
                ev, self._held = self._held, None
            else:
                remaining = 0.0
                if until and self.revision < until and deadline is not None:
                    remaining = max(deadline - time.monotonic(), 0.0)
                try:
                    ev = feed.next(remaining) if remaining > 0 else feed.next(0)
                except StorageError:  # the watch ended: etcd compacted its revision, went away, or closed it
                    self._close_feed()
                    if own and until:
                        self._behind = True
                        return n
                    self._open_feed()  # resume from the cache's revision (or relist)
                    feed = self._feed
                    assert feed is not None
                    continue
            if ev is None:
                if until and self.revision < until and (deadline is None or time.monotonic() < deadline):
                    continue
                if own and until:  # the write's own event did not come in time
                    self._close_feed()
                    self._behind = True
                return n
            if own and until and ev.revision >= until:
                if ev.revision > until:
                    self._held = ev
                return n
            if self._apply_event(ev):
                n += 1
            if until and not own and self.revision >= until:
                return n

    def _apply_event(self, ev: Event) -> bool:
        """Put one event of etcd's watch into the cache (``watchCache.processEvent``); False when left out."""
        sri = self._resource_of(ev)
        if sri is None:
            return False
        cached = self._by_resource.get(sri, {}).get(ev.key)
        if ev.revision < self.revision or (ev.revision == self.revision and (
                cached is None if ev.type == DELETED
                else cached is not None and cached["metadata"].get("resourceVersion") == str(ev.revision))):
            return False  # already in the cache
        if ev.type == DELETED:
            if cached is None:
                return False  # the deletion of a key the cache never held
            obj = deep_copy(cached) if not ev.object.get("kind") else ev.object
            obj.setdefault("metadata", {})["resourceVersion"] = str(ev.revision)
        else:
            obj = ev.object
        self.revision = ev.revision
        self.last_delivered = []
        # etcd's type (ADDED when create_revision == mod_revision); a change to a key the cache lacks is an ADDED
        self._apply(sri, ADDED if cached is None and ev.type != DELETED else ev.type, obj, cached)
        self.last_delivered = []
        return True

    def _resource_of(self, ev: Event) -> ResourceInfo | None:
        """The storage resource ``ev``'s key belongs to (None, recorded in :attr:`feed_skipped`, when none)."""
        o = ev.object
        md = o.get("metadata") or {}
        sri = self._resource_for(o)
        if sri is None:  # a deletion etcd sent without the previous value: the resource the cache holds it under
            sri = next((r for r, objs in self._by_resource.items() if ev.key in objs), None)
            if sri is not None and not o.get("kind"):
                return sri
            self.feed_skipped.append((ev.key, f"no resource serves kind {o.get('kind')!r}"))
            return None
        if etcd_key(sri, md.get("namespace"), md.get("name", "")) != ev.key:
            self.feed_skipped.append((ev.key, "the object's kind, namespace and name give another key"))
            return None
        return sri

    def _resource_for(self, o: dict) -> ResourceInfo | None:
        """The storage resource of an object read from etcd: a built-in kind, or a custom resource the cache knows.

        A custom resource is known once the cache holds one of its objects or
        a client watches it (the store does not see the CRD registry).
        """
        kind, api_version = o.get("kind"), o.get("apiVersion")
        if not kind:
            return None
        try:
            return storage_resource(resource_for_kind(kind, api_version))
        except KubenotesError:
            for r in (*self._by_resource, *self._watchers, *self._indexed):
                if r.kind == kind and r.api_version == api_version:
                    return r
            return None

    def _relist(self) -> None:
        """The cacher's relist: end every watch, refill the cache from one list, and watch from its revision.

        Upstream, when the reflector's watch of etcd fails with "too old
        resource version", ``startCaching`` runs again: it terminates all
        watchers and ``watchCache.Replace`` starts the history over at the
        list's revision, so a client watching from an older resourceVersion
        gets 410 Expired and relists too.
        """
        assert self.storage is not None
        items, at = self.storage.get_list("/registry/")
        for ws in [*self._watchers.values(), *(w for idx in self._indexed.values() for w in idx.values())]:
            for w in list(ws):
                w.stop()
        self._watchers, self._indexed = {}, {}
        held = {r: {} for r in self._by_resource}  # custom resources are found by the resources the cache held
        self._by_resource, self._by_trigger = held, {}
        for o in items:
            md = o.get("metadata") or {}
            sri = self._resource_for(o)
            if sri is None:
                continue
            key = etcd_key(sri, md.get("namespace"), md.get("name", ""))
            self._by_resource.setdefault(sri, {})[key] = o
            if sri.resource in _TRIGGER_FIELDS:
                self._by_trigger.setdefault(sri, {}).setdefault(_trigger_value(sri.resource, o), set()).add(key)
        self._history.clear()
        self._compacted = False
        self.revision = max(self.revision, at)
        self._list_revision = self.revision
        self.relists += 1
        self._feed = self.storage.watch("/registry/", at)

    def _catch_up(self) -> None:
        """Bring the cache (and its watchers) up to what etcd holds, after a request etcd did not answer.

        A write that timed out may still be applied once etcd answers again
        (kube-apiserver's 504 says the request "may still be processing").
        Upstream the cacher learns it from its etcd watch; here one range read
        of ``/registry/`` is compared with the cache, and each difference is
        delivered as the event the watch would have carried (in revision
        order; deletions at the revision read).
        """
        assert self.storage is not None
        self._close_feed()  # what it still holds is in the range read below
        items, at = self.storage.get_list("/registry/")
        fresh: dict[ResourceInfo, dict[str, dict]] = {}
        for o in items:
            sri = self._resource_for(o)  # (a custom resource too: before, its objects counted as deleted)
            if sri is None:
                continue
            md = o["metadata"]
            fresh.setdefault(sri, {})[etcd_key(sri, md.get("namespace"), md["name"])] = o
        changes: list[tuple[int, str, ResourceInfo, str, dict, dict | None]] = []
        for sri in set(fresh) | set(self._by_resource):
            now, cached = fresh.get(sri, {}), self._by_resource.get(sri, {})
            for key in set(now) | set(cached):
                new, cur = now.get(key), cached.get(key)
                if new is None:
                    assert cur is not None
                    gone = deep_copy(cur)
                    gone["metadata"]["resourceVersion"] = str(at)
                    changes.append((at, key, sri, DELETED, gone, cur))
                elif cur is None or cur["metadata"].get("resourceVersion") != new["metadata"]["resourceVersion"]:
                    changes.append((int(new["metadata"]["resourceVersion"]), key, sri,
                                    ADDED if cur is None else MODIFIED, new, cur))
        for rev, _key, sri, event_type, obj, old in sorted(changes, key=lambda c: (c[0], c[1])):
            self.revision = rev
            self.last_delivered = []
            self._apply(sri, event_type, obj, old)
        self.revision = max(self.revision, at)
        self.last_delivered = []
        self._feed = self.storage.watch("/registry/", at)

    def read(self, ri: ResourceInfo, namespace: str | None, name: str) -> dict | None:
        """A client's GET: from :attr:`storage` (a linearizable read) when there is one, else :meth:`get`.

        Raises
        ------
        ApiError
            What a storage failure maps to (504 Timeout when etcd does not answer).
        """
        if self.storage is None:
            return self.get(ri, namespace, name)
        self.sync(raise_errors=True)
        sri = storage_resource(ri)
        try:
            obj = self.storage.get(etcd_key(sri, namespace, name))
        except StorageError as e:
            self._note_failure(e)
            raise interpret_error(e, ri.group, ri.resource, name, "get") from None
        return obj if obj is None or sri is ri else convert(obj, ri.api_version)

    def read_list(self, ri: ResourceInfo, namespace: str | None = None) -> list[dict]:
        """A client's LIST: a range read from :attr:`storage` when there is one, else :meth:`list`."""
        if self.storage is None:
            return self.list(ri, namespace)
        sri = storage_resource(ri)
        prefix = (f"/registry/{sri.prefix}/{namespace}/" if namespace and ri.namespaced
                  else f"/registry/{sri.prefix}/")
        self.sync(raise_errors=True)
        try:
            items, _rev = self.storage.get_list(prefix)
        except StorageError as e:
            self._note_failure(e)
            raise interpret_error(e, ri.group, ri.resource, "", "list") from None
        return items if sri is ri else [convert(o, ri.api_version) for o in items]

    def _dispatch(self, w: Watch, ev: WatchEvent, old: dict | None) -> None:
        f: _Filter = w.filter
        if f.convert_to is not None:  # a watch through another served version than the storage one
            ev = WatchEvent(ev.type, convert(ev.object, f.convert_to))
            old = convert(old, f.convert_to) if old is not None else None
        new_match = f.matches(ev.object)
        if ev.type == ADDED:
            out = ev if new_match else None
        elif ev.type == DELETED:
            out = ev if new_match or f.matches(old) else None
        else:
            old_match = f.matches(old) if old is not None else new_match
            if new_match and old_match:
                out = ev
            elif new_match:
                out = WatchEvent(ADDED, ev.object)
            elif old_match:
                out = WatchEvent(DELETED, ev.object)
            else:
                out = None
        if out is not None:
            w.push(out)
            if self.track_deliveries:
                self.last_delivered.append(f"{w.owner or 'a client'} ({out.type})")

    # ------------------------------------------------------------------ watch
    def watch(self, ri: ResourceInfo, since: int, namespace: str | None = None,
              labels: LabelSelector | None = None, fields: FieldSelector | None = None) -> Watch:
        """Open a watch on ``ri`` delivering every matching event after revision ``since``.

        Parameters
        ----------
        since : int
            The resourceVersion the client last saw (0: from now).

        Raises
        ------
        ApiError
            410 Expired, ``too old resource version: 5 (10)``, when events after
            ``since`` have fallen out of the history.
        """
        if self.storage is not None:
            self.sync()
        oldest = self.oldest_revision
        if since and since < oldest - 1:
            raise new_resource_expired(f"too old resource version: {since} ({oldest - 1})")
        w = Watch(self.env, on_stop=self._unregister)
        w.resource = ri
        w.filter = _Filter(namespace, labels, fields, ri.resource)
        if storage_resource(ri) is not ri:
            w.filter.convert_to = ri.api_version
            ri = storage_resource(ri)
        if since:
            # replay what came after `since`: scan back from the newest entry (revisions are consecutive)
            replay = []
            for entry in reversed(self._history):
                if entry[0] <= since:
                    break
                if entry[1] is ri:
                    replay.append(entry)
            for _rev, _r, ev, old in reversed(replay):
                self._dispatch(w, ev, old)
        if w.filter.trigger is not None:
            self._indexed.setdefault(ri, {}).setdefault(w.filter.trigger, []).append(w)
        else:
            self._watchers.setdefault(ri, []).append(w)
        return w

    def bookmark(self, ri: ResourceInfo) -> None:
        """Send a BOOKMARK with the current revision to every watcher of ``ri``."""
        ri = storage_resource(ri)
        events: dict[int, WatchEvent] = {}

        def event(w: Watch) -> WatchEvent:  # one event per served version watched
            r = w.resource
            if id(r) not in events:
                events[id(r)] = WatchEvent(BOOKMARK, {"kind": r.kind, "apiVersion": r.api_version,
                                                      "metadata": {"resourceVersion": str(self.revision)}})
            return events[id(r)]

        for w in self._watchers.get(ri, ()):
            w.push(event(w))
        for ws in self._indexed.get(ri, {}).values():
            for w in ws:
                w.push(event(w))

    def bookmark_all(self) -> int:
        """Send a BOOKMARK to every open watch (the watch cache's periodic bookmarks); returns how many resources."""
        if self.storage is not None:
            self.sync()
        resources = sorted(set(self._watchers) | set(self._indexed), key=lambda r: (r.group, r.resource))
        for ri in resources:
            self.bookmark(ri)
        return len(resources)

    def _unregister(self, w: Watch) -> None:
        sri = storage_resource(w.resource)
        if w.filter.trigger is not None:
            lst = self._indexed.get(sri, {}).get(w.filter.trigger)
        else:
            lst = self._watchers.get(sri)
        if lst and w in lst:
            lst.remove(w)

    def watcher_count(self, ri: ResourceInfo | None = None) -> int:
        def n(r: ResourceInfo) -> int:
            return len(self._watchers.get(r, ())) + sum(len(v) for v in self._indexed.get(r, {}).values())

        if ri is None:
            return sum(n(r) for r in set(self._watchers) | set(self._indexed))
        return n(storage_resource(ri))

    @property
    def oldest_revision(self) -> int:
        """The revision of the oldest event a watch can be given (1 while nothing has fallen out).

        A watch from ``since >= oldest_revision - 1`` can resume. After
        :meth:`replace_watch_cache` it is never older than that list's revision + 1.
        """
        oldest = 1 if not self._compacted or not self._history else self._history[0][0]
        return max(oldest, self._list_revision + 1)

    def replace_watch_cache(self) -> int:
        """The watch cache starts over from a full list at the current revision, as when kube-apiserver starts.

        The cacher of a kube-apiserver that (re)starts fills its watch cache
        with one LIST (``watchCache.Replace``): it holds no event before that
        list's revision, so a watch from an older resourceVersion gets 410
        ``too old resource version: <rv> (<list revision>)`` (the client
        relists) instead of events it cannot have. ``serve`` calls it when
        the server starts.

        Returns
        -------
        int
            The list's revision.

        Examples
        --------
        >>> from kubenotes.apiserver.resources import resource_for
        >>> s, cms = ObjectStore(simpy.Environment()), resource_for("configmaps")
        >>> _ = s.commit(cms, "ADDED", {"metadata": {"name": "a", "namespace": "d"}})
        >>> s.replace_watch_cache(), s.oldest_revision
        (2, 3)
        >>> s.watch(cms, 1)
        Traceback (most recent call last):
        ...
        kubenotes.apiserver.status.ApiError: too old resource version: 1 (2)
        """
        self._list_revision = self.revision
        return self._list_revision
