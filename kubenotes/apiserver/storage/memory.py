"""An embedded MVCC key space with etcd's semantics, behind :class:`~kubenotes.apiserver.storage.Interface`.

Keys keep every version since the last compaction: a list at an older
revision and a watch from one are answered from them, and both fail with
etcd's ``required revision has been compacted`` once :meth:`MemoryStorage.compact`
has passed that revision. A fresh store is at revision 1, as a new etcd is.

References
----------
etcd-io/etcd@v3.4 mvcc/kvstore.go (revisions, compaction), mvcc/watchable_store.go (watch from a revision)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (what the API server asks)
"""

from __future__ import annotations

import bisect
from collections import deque
from typing import Any

from kubenotes.apiserver.storage.interfaces import (
    ERR_COMPACTED,
    ERR_FUTURE_REVISION,
    ERR_KEY_EXISTS,
    Event,
    Interface,
    StorageError,
    StorageWatch,
    decode,
    encode,
)

__all__ = ["MemoryStorage"]


class _Version:
    __slots__ = ("value", "create_revision", "mod_revision", "version")

    def __init__(self, value: str | None, create_revision: int, mod_revision: int, version: int):
        self.value = value  # None: a tombstone (the key deleted at mod_revision)
        self.create_revision = create_revision
        self.mod_revision = mod_revision
        self.version = version


class _MemoryWatch(StorageWatch):
    def __init__(self, owner: "MemoryStorage", prefix: str):
        self._owner = owner
        self.prefix = prefix
        self.events: deque[Event] = deque()
        self.stopped = False

    def next(self, timeout_seconds: float = 1.0) -> Event | None:
        return self.events.popleft() if self.events else None

    def stop(self) -> None:
        self.stopped = True
        if self in self._owner._watches:
            self._owner._watches.remove(self)


class MemoryStorage(Interface):
    """Keys and their versions in memory; one revision counter; compaction; watches fed as writes commit.

    Examples
    --------
    >>> s = MemoryStorage()
    >>> s.create("/registry/pods/default/web", {"metadata": {"name": "web"}})["metadata"]["resourceVersion"]
    '2'
    >>> s.guaranteed_update("/registry/pods/default/web", lambda o: {**o, "spec": {}})["metadata"]["resourceVersion"]
    '3'
    >>> [o["metadata"]["resourceVersion"] for o in s.get_list("/registry/pods/", revision=2)[0]]
    ['2']
    >>> s.compact(3); s.get_list("/registry/pods/", revision=2)
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.storage.interfaces.StorageError: etcdserver: mvcc: required revision has been compacted
    """

    url = "memory"

    def __init__(self) -> None:
        self._revision = 1
        self._compacted = 0
        self._versions: dict[str, list[_Version]] = {}
        self._sorted_keys: list[str] = []
        self._watches: list[_MemoryWatch] = []

    # ------------------------------------------------------------------ reads
    @property
    def revision(self) -> int:
        return self._revision

    @property
    def compacted_revision(self) -> int:
        return self._compacted

    def _at(self, key: str, revision: int) -> _Version | None:
        vs = self._versions.get(key)
        if not vs:
            return None
        for v in reversed(vs):
            if v.mod_revision <= revision:
                return v if v.value is not None else None
        return None

    def _check_revision(self, revision: int) -> None:
        if revision and revision < self._compacted:
            raise StorageError(ERR_COMPACTED)
        if revision > self._revision:
            raise StorageError(ERR_FUTURE_REVISION)

    def get(self, key: str) -> dict | None:
        v = self._at(key, self._revision)
        return decode(v.value, v.mod_revision) if v is not None else None  # type: ignore[arg-type]

    def _range(self, prefix: str) -> list[str]:
        i = bisect.bisect_left(self._sorted_keys, prefix)
        out = []
        while i < len(self._sorted_keys) and self._sorted_keys[i].startswith(prefix):
            out.append(self._sorted_keys[i])
            i += 1
        return out

    def get_list(self, prefix: str, revision: int = 0) -> tuple[list[dict], int]:
        self._check_revision(revision)
        at = revision or self._revision
        out = []
        for k in self._range(prefix):
            v = self._at(k, at)
            if v is not None:
                out.append(decode(v.value, v.mod_revision))  # type: ignore[arg-type]
        return out, at

    def count(self, prefix: str) -> int:
        return sum(1 for k in self._range(prefix) if self._at(k, self._revision) is not None)

    def keys(self, prefix: str = "") -> list[str]:
        return [k for k in self._range(prefix) if self._at(k, self._revision) is not None]

    # ------------------------------------------------------------------ writes
    def _commit(self, key: str, value: str | None) -> tuple[_Version, _Version | None]:
        prev = self._at(key, self._revision)
        self._revision += 1
        if value is None:
            assert prev is not None
            new = _Version(None, prev.create_revision, self._revision, 0)
        elif prev is None:
            new = _Version(value, self._revision, self._revision, 1)
        else:
            new = _Version(value, prev.create_revision, self._revision, prev.version + 1)
        if key not in self._versions:
            bisect.insort(self._sorted_keys, key)
            self._versions[key] = []
        self._versions[key].append(new)
        self._notify(key, new, prev)
        return new, prev

    def _notify(self, key: str, new: _Version, prev: _Version | None) -> None:
        for w in self._watches:
            if key.startswith(w.prefix):
                w.events.append(self._event(key, new, prev))

    @staticmethod
    def _event(key: str, new: _Version, prev: _Version | None) -> Event:
        if new.value is None:
            assert prev is not None and prev.value is not None
            return Event("DELETED", key, decode(prev.value, new.mod_revision), new.mod_revision)
        kind = "ADDED" if new.create_revision == new.mod_revision else "MODIFIED"
        return Event(kind, key, decode(new.value, new.mod_revision), new.mod_revision)

    def create(self, key: str, obj: dict) -> dict:
        if self._at(key, self._revision) is not None:
            raise StorageError(ERR_KEY_EXISTS, key)
        value = encode(obj)
        new, _ = self._commit(key, value)
        return decode(value, new.mod_revision)

    def _txn_put(self, key: str, expected_mod_revision: int, obj: dict | None) -> tuple[bool, dict | None, int]:
        cur = self._at(key, self._revision)
        cur_mod = cur.mod_revision if cur is not None else 0
        if cur_mod != expected_mod_revision:
            return False, (decode(cur.value, cur.mod_revision) if cur is not None else None), self._revision  # type: ignore[arg-type]
        if obj is None:
            if cur is None:
                return True, None, self._revision
            new, prev = self._commit(key, None)
            return True, decode(prev.value, new.mod_revision), self._revision  # type: ignore[union-attr,arg-type]
        value = encode(obj)
        new, _ = self._commit(key, value)
        return True, decode(value, new.mod_revision), self._revision

    def compare_version_and_put(self, key: str, expect_version: int, value: str) -> tuple[bool, int, int, str]:
        cur = self._at(key, self._revision)
        version = cur.version if cur is not None else 0
        if version != expect_version:
            return False, self._revision, version, cur.value if cur is not None else ""  # type: ignore[return-value]
        self._commit(key, value)
        return True, self._revision, version + 1, value

    # ------------------------------------------------------------------ watch and compaction
    def watch(self, prefix: str, since: int = 0) -> StorageWatch:
        start = since + 1 if since else self._revision + 1
        if start < self._compacted:
            raise StorageError(ERR_COMPACTED)
        w = _MemoryWatch(self, prefix)
        if since:
            replay: list[tuple[int, str, _Version, _Version | None]] = []
            for k in self._range(prefix):
                vs = self._versions[k]
                for i, v in enumerate(vs):
                    if v.mod_revision >= start:
                        prev = vs[i - 1] if i else None
                        replay.append((v.mod_revision, k, v, prev if prev is not None and prev.value is not None
                                       else None))
            for _rev, k, v, prev in sorted(replay, key=lambda e: e[0]):
                w.events.append(self._event(k, v, prev))
        self._watches.append(w)
        return w

    def compact(self, revision: int) -> None:
        """Drop the versions every read at ``revision`` or later no longer needs.

        Raises
        ------
        StorageError
            ``ERR_COMPACTED`` when ``revision`` is not newer than the last compaction,
            ``ERR_FUTURE_REVISION`` when it is newer than the store.
        """
        if revision <= self._compacted:
            raise StorageError(ERR_COMPACTED)
        if revision > self._revision:
            raise StorageError(ERR_FUTURE_REVISION)
        self._compacted = revision
        for k in list(self._versions):
            vs = self._versions[k]
            keep_from = 0
            for i, v in enumerate(vs):
                if v.mod_revision <= revision:
                    keep_from = i
            kept = vs[keep_from:]
            if kept and kept[0].value is None and kept[0].mod_revision <= revision:
                kept = kept[1:]
            if kept:
                self._versions[k] = kept
            else:
                del self._versions[k]
                self._sorted_keys.remove(k)

    def stats(self) -> dict[str, Any]:
        """``{"revision", "compacted", "keys", "versions"}``: how much history is kept."""
        return {"revision": self._revision, "compacted": self._compacted, "keys": len(self._versions),
                "versions": sum(len(v) for v in self._versions.values())}
