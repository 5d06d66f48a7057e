"""kube-apiserver's etcd compactor: every interval, compact to the revision seen one interval earlier.

The compactors of several API servers agree through one key,
``compact_rev_key``: its *version* is the logical compaction time and its
value the last compacted revision. Each round is one transaction: if the
key's version is the one this compactor last saw, put the revision it saw
last round (which bumps the version) and compact to it; else learn the
version and revision another API server wrote and try again next round. The
first successful round compacts nothing (there is no earlier revision yet).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go (compact, runCompactLoop)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/options/etcd.go
(``--etcd-compaction-interval``, default 5m0s)
"""

from __future__ import annotations

from typing import Iterator

from kubenotes.apiserver.storage.interfaces import COMPACT_REV_KEY, Interface, StorageError

__all__ = ["compact", "Compactor", "DEFAULT_COMPACTION_INTERVAL_SECONDS"]

#: ``--etcd-compaction-interval`` (5 minutes).
DEFAULT_COMPACTION_INTERVAL_SECONDS = 300.0


def compact(storage: Interface, expect_version: int, rev: int) -> tuple[int, int, int]:
    """One compaction round; returns ``(compact time now, current revision, revision compacted to or 0)``.

    Parameters
    ----------
    expect_version : int
        ``compact_rev_key``'s version this compactor last saw (0 at start).
    rev : int
        The revision it saw last round (0 at start: nothing is compacted).

    Raises
    ------
    StorageError
        When etcd is unreachable or refuses the compaction.

    Examples
    --------
    >>> from kubenotes.apiserver.storage.memory import MemoryStorage
    >>> s = MemoryStorage(); _ = s.create("/registry/a", {})
    >>> t, rev, done = compact(s, 0, 0); (t, rev, done)        # first round: take the lease, compact nothing
    (1, 3, 0)
    >>> compact(s, t, rev)                                      # next round: compact to what round one saw
    (2, 4, 3)
    >>> compact(s, 0, 4)                                        # a stale compactor learns time and revision
    (2, 4, 3)
    """
    ok, cur_rev, version, value = storage.compare_version_and_put(COMPACT_REV_KEY, expect_version, str(rev))
    if not ok:
        try:
            return version, cur_rev, int(value)
        except ValueError:
            return version, cur_rev, 0
    if rev == 0:
        return expect_version + 1, cur_rev, 0
    storage.compact(rev)
    return expect_version + 1, cur_rev, rev


class Compactor:
    """``runCompactLoop`` on the virtual clock: :func:`compact` every ``interval_seconds``.

    Parameters
    ----------
    env : simpy.Environment
    storage : Interface
    interval_seconds : float
        ``--etcd-compaction-interval`` (default 300; 0 turns compaction off).

    Attributes
    ----------
    compact_revision : int
        The last revision compacted to (by this or another compactor).
    log : list[str]
        One line per failed round (upstream logs ``compact failed`` and goes on).
    """

    def __init__(self, env, storage: Interface, interval_seconds: float = DEFAULT_COMPACTION_INTERVAL_SECONDS):
        self.env = env
        self.storage = storage
        self.interval_seconds = interval_seconds
        self.compact_time = 0
        self.rev = 0
        self.compact_revision = 0
        self.log: list[str] = []
        if interval_seconds:
            env.process(self._loop())

    def _loop(self) -> Iterator:
        while True:
            yield self.env.timeout(self.interval_seconds)
            self.round()

    def round(self) -> int:
        """Run one round now; returns the revision compacted to (0: none)."""
        try:
            self.compact_time, self.rev, compacted = compact(self.storage, self.compact_time, self.rev)
        except StorageError as e:
            self.log.append(f"etcd: endpoint ({self.storage.url}) compact failed: {e}")
            return 0
        if compacted:
            self.compact_revision = compacted
        return compacted
