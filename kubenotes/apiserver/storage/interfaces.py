"""The storage interface under the API server's registry, after kube-apiserver's ``storage.Interface``.

Objects are JSON-shaped dicts stored under keys such as
``/registry/pods/default/web``. Every write is one transaction and moves the
store's single revision on; an object's ``metadata.resourceVersion`` is the
revision that last modified its key (etcd's ``mod_revision``), and is never
part of the stored value (upstream's versioner clears it before encoding).

Two backends implement :class:`Interface`:
:class:`~kubenotes.apiserver.storage.memory.MemoryStorage` (an embedded
MVCC key space, the model's default) and
:class:`~kubenotes.apiserver.storage.etcd3.EtcdStorage` (a real etcd through
its v3 JSON gateway).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/interfaces.go (Interface, Preconditions,
UpdateFunc)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/errors.go (StorageError and its codes)
"""

from __future__ import annotations

import abc
import json
from dataclasses import dataclass
from typing import Callable

from kubenotes.errors import KubenotesError

__all__ = ["Interface", "StorageError", "Event", "StorageWatch", "Preconditions", "encode", "decode",
           "ERR_KEY_NOT_FOUND", "ERR_KEY_EXISTS", "ERR_RESOURCE_VERSION_CONFLICTS", "ERR_UNREACHABLE",
           "ERR_COMPACTED", "ERR_FUTURE_REVISION", "ERR_SERVER", "COMPACT_REV_KEY"]

#: ``storage.ErrCodeKeyNotFound`` ...: the codes of :class:`StorageError`, with upstream's messages.
ERR_KEY_NOT_FOUND = "key not found"
ERR_KEY_EXISTS = "key exists"
ERR_RESOURCE_VERSION_CONFLICTS = "resource version conflicts"
ERR_UNREACHABLE = "server unreachable"
#: etcd's ``mvcc: required revision has been compacted`` (``rpctypes.ErrCompacted``).
ERR_COMPACTED = "etcdserver: mvcc: required revision has been compacted"
#: etcd's ``mvcc: required revision is a future revision``.
ERR_FUTURE_REVISION = "etcdserver: mvcc: required revision is a future revision"
#: Any other error etcd answers with (``etcdserver: request timed out``, ``etcdserver: no leader`` ...).
ERR_SERVER = "etcd error"

#: The key kube-apiserver's compactor keeps its compaction time (version) and last revision in.
COMPACT_REV_KEY = "compact_rev_key"


class StorageError(KubenotesError):
    """A storage operation that failed (``storage.StorageError``).

    Parameters
    ----------
    code : str
        One of the ``ERR_*`` constants.
    key : str
        The key concerned ("" for a range).
    message : str, optional
        etcd's own text, for ``ERR_SERVER`` and ``ERR_UNREACHABLE``.
    current : dict, optional
        For ``ERR_RESOURCE_VERSION_CONFLICTS``: the object as stored now.
    """

    def __init__(self, code: str, key: str = "", message: str = "", current: dict | None = None):
        self.code = code
        self.key = key
        self.message = message or code
        self.current = current
        super().__init__(message or (f"{code}: {key}" if key else code))


@dataclass(frozen=True)
class Preconditions:
    """``storage.Preconditions``: what must hold of the stored object for a delete or update to proceed.

    Attributes
    ----------
    uid : str or None
    resource_version : str or None
    """

    uid: str | None = None
    resource_version: str | None = None

    def check(self, key: str, obj: dict) -> None:
        """Raise :class:`StorageError` (``ERR_RESOURCE_VERSION_CONFLICTS``) unless ``obj`` satisfies them.

        Examples
        --------
        >>> Preconditions(resource_version="5").check("/k", {"metadata": {"resourceVersion": "5"}})
        >>> Preconditions(uid="a").check("/k", {"metadata": {"uid": "b"}})
        Traceback (most recent call last):
        ...
        kubenotes.apiserver.storage.interfaces.StorageError: Precondition failed: UID in precondition: a, UID in object meta: b
        """
        md = obj.get("metadata") or {}
        if self.uid is not None and self.uid != md.get("uid"):
            raise StorageError(ERR_RESOURCE_VERSION_CONFLICTS, key,
                               f"Precondition failed: UID in precondition: {self.uid}, "
                               f"UID in object meta: {md.get('uid')}", obj)
        if self.resource_version is not None and self.resource_version != md.get("resourceVersion"):
            raise StorageError(ERR_RESOURCE_VERSION_CONFLICTS, key,
                               f"Precondition failed: ResourceVersion in precondition: {self.resource_version}, "
                               f"ResourceVersion in meta: {md.get('resourceVersion')}", obj)


@dataclass(frozen=True)
class Event:
    """One watch event: ``type`` is ``ADDED``, ``MODIFIED`` or ``DELETED``; ``object`` carries ``revision``.

    A deleted object is its last stored state with the deleting revision as
    resourceVersion, as etcd3's watcher sends it.
    """

    type: str
    key: str
    object: dict
    revision: int


def encode(obj: dict) -> str:
    """The stored value: compact JSON without ``metadata.resourceVersion`` (kube-apiserver stores protobuf).

    Examples
    --------
    >>> encode({"metadata": {"name": "a", "resourceVersion": "7"}})
    '{"metadata":{"name":"a"}}'
    """
    md = obj.get("metadata")
    if md is not None and "resourceVersion" in md:
        obj = dict(obj)
        obj["metadata"] = {k: v for k, v in md.items() if k != "resourceVersion"}
    return json.dumps(obj, separators=(",", ":"))


def decode(value: str | bytes, mod_revision: int) -> dict:
    """The object a stored value holds, with ``metadata.resourceVersion`` set to ``mod_revision``.

    Examples
    --------
    >>> decode('{"metadata":{"name":"a"}}', 9)
    {'metadata': {'name': 'a', 'resourceVersion': '9'}}
    """
    obj = json.loads(value)
    obj.setdefault("metadata", {})["resourceVersion"] = str(mod_revision)
    return obj


class StorageWatch(abc.ABC):
    """A watch on a key prefix: the events after the revision it started from, in revision order."""

    @abc.abstractmethod
    def next(self, timeout_seconds: float = 1.0) -> Event | None:
        """The next event, or None when none arrives within ``timeout_seconds``."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop watching (``watch.Interface.Stop``)."""


#: ``storage.UpdateFunc``: the current object in, the object to store out.
UpdateFunc = Callable[[dict], dict]


class Interface(abc.ABC):
    """``storage.Interface``: keyed JSON objects, one revision, optimistic concurrency on ``mod_revision``.

    Notes
    -----
    Upstream's methods take a context, a destination object and list options;
    here they return new dicts. ``get_list`` takes the revision to read at (0:
    the newest) instead of ``ListOptions`` with its resourceVersion match rules.
    ``Stats``, ``ReadinessCheck``, ``RequestWatchProgress`` and
    ``GetCurrentResourceVersion`` are left out except :attr:`revision`.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/interfaces.go
    """

    #: Where the backend keeps the objects (``--etcd-servers`` for etcd, ``memory`` otherwise).
    url: str = "memory"

    @property
    @abc.abstractmethod
    def revision(self) -> int:
        """The newest revision this client has seen committed (etcd's header revision)."""

    @abc.abstractmethod
    def get(self, key: str) -> dict | None:
        """The object at ``key`` (a linearizable read), or None."""

    @abc.abstractmethod
    def get_list(self, prefix: str, revision: int = 0) -> tuple[list[dict], int]:
        """Every object under ``prefix`` at ``revision`` (0: now), in key order, and the revision read at.

        Raises
        ------
        StorageError
            ``ERR_COMPACTED`` for a revision older than the last compaction,
            ``ERR_FUTURE_REVISION`` for one not yet written.
        """

    @abc.abstractmethod
    def count(self, prefix: str) -> int:
        """How many keys are under ``prefix`` (``Count``; a count-only range in etcd)."""

    @abc.abstractmethod
    def create(self, key: str, obj: dict) -> dict:
        """Store ``obj`` at ``key`` if nothing is there (a txn on ``mod_revision == 0``); the stored object.

        Raises
        ------
        StorageError
            ``ERR_KEY_EXISTS``.
        """

    @abc.abstractmethod
    def _txn_put(self, key: str, expected_mod_revision: int, obj: dict | None) -> tuple[bool, dict | None, int]:
        """One transaction: if ``key``'s mod_revision is ``expected_mod_revision``, put ``obj`` (None: delete).

        Returns ``(succeeded, the object now stored (after a put, or as found when the compare failed; the
        deleted object after a delete), header revision)``.
        """

    def delete(self, key: str, preconditions: Preconditions | None = None, cached: dict | None = None) -> dict:
        """Delete ``key`` (a txn on its ``mod_revision``, retried on a race); the deleted object.

        Parameters
        ----------
        cached : dict, optional
            The object as the caller last saw it (``cachedExistingObject``):
            tried first; a stale one costs one failed compare and a re-read.

        Raises
        ------
        StorageError
            ``ERR_KEY_NOT_FOUND``; ``ERR_RESOURCE_VERSION_CONFLICTS`` when ``preconditions`` fail.
        """
        cur = cached if cached is not None else self.get(key)
        while True:
            if cur is None:
                raise StorageError(ERR_KEY_NOT_FOUND, key)
            if preconditions is not None:
                preconditions.check(key, cur)
            ok, got, _rev = self._txn_put(key, int(cur["metadata"]["resourceVersion"]), None)
            if ok:
                assert got is not None
                return got
            cur = got

    def guaranteed_update(self, key: str, try_update: UpdateFunc, *, ignore_not_found: bool = False,
                          preconditions: Preconditions | None = None, cached: dict | None = None) -> dict:
        """``GuaranteedUpdate``: read, ``try_update``, write if ``mod_revision`` is unchanged, else again.

        Parameters
        ----------
        try_update : callable
            Given a copy of the current object (``{}`` when missing and
            ``ignore_not_found``), returns the object to store.
        cached : dict, optional
            The object as the caller last saw it, tried before a read.

        Returns
        -------
        dict
            The stored object, resourceVersion set.

        Raises
        ------
        StorageError
            ``ERR_KEY_NOT_FOUND``; ``ERR_RESOURCE_VERSION_CONFLICTS`` when ``preconditions`` fail.
        """
        cur = cached if cached is not None else self.get(key)
        while True:
            if cur is None and not ignore_not_found:
                raise StorageError(ERR_KEY_NOT_FOUND, key)
            if cur is not None and preconditions is not None:
                preconditions.check(key, cur)
            new = try_update(json.loads(json.dumps(cur)) if cur is not None else {})
            expected = int(cur["metadata"]["resourceVersion"]) if cur is not None else 0
            ok, got, rev = self._txn_put(key, expected, new)
            if ok:
                assert got is not None
                return got
            cur = got

    @abc.abstractmethod
    def watch(self, prefix: str, since: int = 0) -> StorageWatch:
        """Watch the keys under ``prefix`` for every change after revision ``since`` (0: from now).

        Raises
        ------
        StorageError
            ``ERR_COMPACTED`` when revisions after ``since`` have been compacted.
        """

    @abc.abstractmethod
    def compact(self, revision: int) -> None:
        """Discard every version older than ``revision`` but the newest of each key (etcd's ``Compact``)."""

    @property
    @abc.abstractmethod
    def compacted_revision(self) -> int:
        """The revision of the last compaction this backend knows of (0: none)."""

    @abc.abstractmethod
    def compare_version_and_put(self, key: str, expect_version: int, value: str) -> tuple[bool, int, int, str]:
        """The compactor's transaction: if ``key``'s version is ``expect_version``, put ``value``, else get it.

        Returns ``(succeeded, header revision, key's version now, key's value now)``; the last two only
        when the compare failed.
        """

    @abc.abstractmethod
    def keys(self, prefix: str = "") -> list[str]:
        """Every key under ``prefix``, sorted (``etcdctl get --prefix --keys-only``)."""

    def close(self) -> None:
        """Release connections (no-op by default)."""
