"""A watch outage: the reflector resumes or relists (:mod:`kubenotes.sim.listwatch`).

The resume-or-relist boundary of :func:`watch_outage` follows upstream's watch
cache rule (``staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go``,
``getAllEventsSinceLocked``: a resourceVersion older than the oldest event
kept is "too old"), as ``TestWatchCacheBasic``/``TestEvents`` in
``watch_cache_test.go`` exercise it; the reflector's relist on 410 is the
behaviour ``TestReflectorListAndWatchWithErrors``-style cases check in
client-go's ``reflector_test.go``.
"""

from __future__ import annotations

import pytest

from kubenotes.sim import listwatch


@pytest.mark.parametrize("capacity", [1, 5, 10])
def test_watch_outage_boundary(capacity):
    """Every missed event still in the history: resume; one more write: 410 and a relist."""
    kept = listwatch.watch_outage(capacity, history_capacity=capacity)
    lost = listwatch.watch_outage(capacity + 1, history_capacity=capacity)
    assert not kept["relisted"] and kept["lists"] == 1 and kept["watches"] >= 2
    assert "WATCH 410 Gone" not in [a for _, a, _ in kept["log"]]
    assert (2.0, "WATCH", f"from resourceVersion {kept['last_seen']}") in [(t, a, d.split(",")[0])
                                                                           for t, a, d in kept["log"]]
    assert lost["relisted"] and lost["lists"] == 2
    assert [a for _, a, _ in lost["log"]].count("WATCH 410 Gone") == 1
    gone = next(d for _, a, d in lost["log"] if a == "WATCH 410 Gone")
    assert gone.startswith(f"too old resource version: {lost['last_seen']} (")
    # either way the cache ends with the last write
    assert kept["cache"] == {"version": str(capacity)} and lost["cache"] == {"version": str(capacity + 1)}


def test_watch_outage_rejects_bad_arguments():
    with pytest.raises(ValueError):
        listwatch.watch_outage(-1)
    with pytest.raises(ValueError):
        listwatch.watch_outage(1, history_capacity=0)
