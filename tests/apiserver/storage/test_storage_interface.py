"""storage.Interface on both backends (the embedded store and a real etcd), through one parametrized fixture.

Cases after upstream's storage tests (staging/src/k8s.io/apiserver/pkg/storage/testing/store_tests.go:
RunTestCreate, RunTestGet, RunTestGuaranteedUpdate, RunTestDelete, RunTestList at a revision,
RunTestWatchFromZero / FromNonZero, the compactor's compact_test.go) and etcd's semantics.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.storage import Preconditions, StorageError
from kubenotes.apiserver.storage.compact import compact
from kubenotes.apiserver.storage.interfaces import (
    ERR_COMPACTED,
    ERR_KEY_EXISTS,
    ERR_KEY_NOT_FOUND,
    ERR_RESOURCE_VERSION_CONFLICTS,
)

K = "/registry/pods/default/web"


def _obj(name="web", **extra):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, **extra}


def _rv(o):
    return int(o["metadata"]["resourceVersion"])


def test_create_get_and_resource_version_is_mod_revision(backend):
    s = backend.storage
    made = s.create(K, _obj())
    assert _rv(made) == s.revision
    got = s.get(K)
    assert got == made and got["metadata"]["name"] == "web"
    with pytest.raises(StorageError) as e:
        s.create(K, _obj())
    assert e.value.code == ERR_KEY_EXISTS
    assert s.get("/registry/pods/default/none") is None


def test_stored_value_has_no_resource_version(backend):
    s = backend.storage
    s.create(K, {"metadata": {"name": "web", "resourceVersion": "999"}})
    assert _rv(s.get(K)) != 999


def test_guaranteed_update_bumps_the_revision_and_retries_on_a_stale_cache(backend):
    s = backend.storage
    first = s.create(K, _obj(spec={"n": 0}))
    second = s.guaranteed_update(K, lambda o: {**o, "spec": {"n": o["spec"]["n"] + 1}})
    assert _rv(second) > _rv(first) and second["spec"] == {"n": 1}
    calls = []

    def bump(o):
        calls.append(o["spec"]["n"])
        return {**o, "spec": {"n": o["spec"]["n"] + 1}}

    # a stale cached object: the txn's compare on mod_revision fails once, the update runs again on the fresh one
    third = s.guaranteed_update(K, bump, cached=first)
    assert calls == [0, 1] and third["spec"] == {"n": 2}
    with pytest.raises(StorageError) as e:
        s.guaranteed_update(K, bump, preconditions=Preconditions(resource_version=str(_rv(first))))
    assert e.value.code == ERR_RESOURCE_VERSION_CONFLICTS
    with pytest.raises(StorageError) as e:
        s.guaranteed_update("/registry/pods/default/none", bump)
    assert e.value.code == ERR_KEY_NOT_FOUND


def test_delete_returns_the_last_state_at_the_delete_revision(backend):
    s = backend.storage
    made = s.create(K, _obj())
    with pytest.raises(StorageError) as e:
        s.delete(K, Preconditions(uid="other"))
    assert e.value.code == ERR_RESOURCE_VERSION_CONFLICTS and s.get(K) is not None
    gone = s.delete(K)
    assert gone["metadata"]["name"] == "web" and _rv(gone) == s.revision > _rv(made)
    assert s.get(K) is None and s.count("/registry/pods/") == 0
    with pytest.raises(StorageError) as e:
        s.delete(K)
    assert e.value.code == ERR_KEY_NOT_FOUND


def test_get_list_in_key_order_and_at_an_older_revision(backend):
    s = backend.storage
    s.create("/registry/pods/b/x", _obj("x"))
    at = s.create("/registry/pods/a/y", _obj("y"))
    s.create("/registry/pods/a/z", _obj("z"))
    s.guaranteed_update("/registry/pods/a/y", lambda o: {**o, "spec": {"v": 2}})
    s.create("/registry/configmaps/a/c", _obj("c"))
    now, rev = s.get_list("/registry/pods/")
    assert [o["metadata"]["name"] for o in now] == ["y", "z", "x"] and rev == s.revision
    old, rev_old = s.get_list("/registry/pods/", revision=_rv(at))
    assert rev_old == _rv(at)
    assert [(o["metadata"]["name"], o.get("spec")) for o in old] == [("y", None), ("x", None)]
    assert s.count("/registry/pods/a/") == 2 and s.count("/registry/") == 4
    assert s.keys("/registry/pods/a/") == ["/registry/pods/a/y", "/registry/pods/a/z"]


def test_watch_from_a_revision_replays_then_follows(backend):
    s = backend.storage
    a = s.create("/registry/pods/default/a", _obj("a"))
    s.guaranteed_update("/registry/pods/default/a", lambda o: {**o, "spec": {"v": 1}})
    s.create("/registry/configmaps/default/c", _obj("c"))
    w = s.watch("/registry/pods/", since=_rv(a) - 1)
    try:
        s.delete("/registry/pods/default/a")
        got = [w.next(2.0) for _ in range(3)]
        assert [(e.type, e.key) for e in got] == [("ADDED", "/registry/pods/default/a"),
                                                  ("MODIFIED", "/registry/pods/default/a"),
                                                  ("DELETED", "/registry/pods/default/a")]
        revs = [e.revision for e in got]
        assert revs == sorted(revs) and [_rv(e.object) for e in got] == revs
        assert got[2].object["spec"] == {"v": 1}  # a deleted object is its last state
        assert w.next(0.2) is None
    finally:
        w.stop()


def test_compaction_makes_old_lists_and_watches_fail(backend):
    s = backend.storage
    first = s.create("/registry/pods/default/a", _obj("a"))
    s.guaranteed_update("/registry/pods/default/a", lambda o: {**o, "spec": {"v": 1}})
    last = s.create("/registry/pods/default/b", _obj("b"))
    s.compact(_rv(last))
    with pytest.raises(StorageError) as e:
        s.get_list("/registry/pods/", revision=_rv(first))
    assert e.value.code == ERR_COMPACTED
    with pytest.raises(StorageError) as e:
        s.watch("/registry/pods/", since=_rv(first))
    assert e.value.code == ERR_COMPACTED
    items, _ = s.get_list("/registry/pods/", revision=_rv(last))  # the compacted revision itself still reads
    assert [o["metadata"]["name"] for o in items] == ["a", "b"] and items[0]["spec"] == {"v": 1}


def test_compactor_takes_the_lease_then_compacts_what_it_saw_one_round_earlier(backend):
    s = backend.storage
    t, rev, done = compact(s, 0, 0)
    assert (t, done) == (1, 0) and rev == s.revision  # bootstrap round: no compaction
    s.create("/registry/pods/default/a", _obj("a"))
    t2, rev2, done2 = compact(s, t, rev)
    assert (t2, done2) == (2, rev) and rev2 == s.revision
    # a second API server's compactor with a stale compact time learns it from compact_rev_key and compacts nothing
    assert compact(s, 0, rev2) == (2, s.revision, rev)
