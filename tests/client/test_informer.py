"""Reflector, DeltaFIFO, Indexer and shared informers against the model's API server.

Cases follow client-go's tests: delta_fifo_test.go (TestDeltaFIFO_ReplaceMakesDeletions,
TestDeltaFIFO_addUpdate, dedupDeltas of two deletions), reflector_test.go (TestReflectorListAndWatch:
list then watch from the list's resourceVersion; TestReflectorListAndWatchWithErrors/410 Gone: relist),
index_test.go (namespace index), shared_informer_test.go (a handler added late gets the cache as adds).
"""

from __future__ import annotations

import simpy

from kubenotes.apiserver.server import APIServer
from kubenotes.client.informer import (
    DeletedFinalStateUnknown,
    DeltaFIFO,
    Indexer,
    SharedInformerFactory,
)


def _cm(name, ns="default", v="1"):
    return {"metadata": {"name": name, "namespace": ns}, "data": {"v": v}}


def test_replace_makes_deletions_for_objects_the_list_no_longer_has():
    ix = Indexer()
    ix.add({"metadata": {"name": "foo", "resourceVersion": "1"}})
    ix.add({"metadata": {"name": "bar", "resourceVersion": "1"}})
    f = DeltaFIFO(simpy.Environment(), ix)
    f.replace([{"metadata": {"name": "foo", "resourceVersion": "2"}}])
    got = {}
    while len(f):
        k, deltas = f.pop_key()
        got[k] = [d.type for d in deltas]
    assert got == {"foo": ["Replaced"], "bar": ["Deleted"]}
    assert f.has_synced()


def test_two_deletions_in_a_row_collapse():
    f = DeltaFIFO(simpy.Environment(), Indexer())
    o = {"metadata": {"name": "a"}}
    f.add(o); f.delete(o); f.delete(o)
    assert [d.type for d in f.pop_key()[1]] == ["Added", "Deleted"]


def test_lister_namespace_and_label_selector():
    ix = Indexer()
    ix.add({"metadata": {"name": "a", "namespace": "x", "labels": {"app": "web"}}})
    ix.add({"metadata": {"name": "b", "namespace": "x", "labels": {"app": "db"}}})
    ix.add({"metadata": {"name": "c", "namespace": "y", "labels": {"app": "web"}}})
    from kubenotes.apiserver.resources import resource_for
    from kubenotes.client.informer import Lister

    ls = Lister(ix, resource_for("pods"))
    assert [o["metadata"]["name"] for o in ls.list("x")] == ["a", "b"]
    assert [o["metadata"]["name"] for o in ls.list(None, "app=web")] == ["a", "c"]
    assert [o["metadata"]["name"] for o in ls.list("x", {"matchLabels": {"app": "db"}})] == ["b"]
    assert ls.get("y", "c")["metadata"]["name"] == "c" and ls.get("x", "c") is None


def test_informer_lists_then_watches_from_the_lists_resource_version():
    api = APIServer(seed=0)
    c = api.client("kubectl")
    c.create("configmaps", _cm("a"), "default")
    f = SharedInformerFactory(api.client("controller"), api.env)
    inf = f.informer_for("cm")
    events = []
    inf.add_event_handler(lambda o: events.append(("add", o["metadata"]["name"])),
                          lambda old, new: events.append(("update", new["data"]["v"])),
                          lambda o: events.append(("delete", o["metadata"]["name"])))
    f.start()
    api.env.run(until=1)
    assert inf.has_synced()
    list_rv = inf.reflector.log[0][2].split()[-1]
    assert inf.reflector.log[1][1] == "WATCH" and f"from resourceVersion {list_rv}" in inf.reflector.log[1][2]
    c.patch("configmaps", "a", {"data": {"v": "2"}}, "default")
    c.create("configmaps", _cm("b"), "default")
    c.delete("configmaps", "a", "default")
    api.env.run(until=2)
    # the FIFO hands over one key at a time with all its deltas: a's update and deletion, then b
    assert events == [("add", "a"), ("update", "2"), ("delete", "a"), ("add", "b")]
    assert [o["metadata"]["name"] for o in inf.lister.list()] == ["b"]
    assert inf.reflector.lists == 1  # no relist: one LIST, then the watch


def test_a_watch_from_a_compacted_revision_gets_410_and_the_reflector_relists():
    api = APIServer(seed=0, history_capacity=5)
    c = api.client("kubectl")
    c.create("configmaps", _cm("a"), "default")
    f = SharedInformerFactory(api.client("controller"), api.env)
    inf = f.informer_for("configmaps")
    deleted = []
    inf.add_event_handler(on_delete=deleted.append)
    f.start()
    api.env.run(until=1)
    inf.reflector.drop_watch(reconnect_after_seconds=1.0)  # the connection breaks ...
    api.env.run(until=1.5)
    for i in range(10):  # ... while more than the history holds is written
        c.create("configmaps", _cm(f"n{i}"), "default")
    c.delete("configmaps", "a", "default")
    api.env.run(until=3)
    actions = [a for _, a, _ in inf.reflector.log]
    assert "WATCH 410 Gone" in actions and actions.count("LIST") == 2
    assert "too old resource version" in next(d for _, a, d in inf.reflector.log if a == "WATCH 410 Gone")
    assert len(inf.lister.list()) == 10
    # "a" was deleted while the watch was down: the handler hears of it with its last known state
    assert len(deleted) == 1 and isinstance(deleted[0], DeletedFinalStateUnknown) and deleted[0].key == "default/a"


def test_a_handler_added_after_sync_first_gets_the_cache_as_adds():
    api = APIServer(seed=0)
    c = api.client("kubectl")
    for n in ("a", "b"):
        c.create("configmaps", _cm(n), "default")
    f = SharedInformerFactory(api.client("controller"), api.env)
    inf = f.informer_for("configmaps")
    f.start()
    api.env.run(until=1)
    late = []
    inf.add_event_handler(on_add=lambda o: late.append(o["metadata"]["name"]))
    assert late == ["default/a".split("/")[1], "b"]


def test_one_watch_per_resource_however_many_controllers_share_it():
    api = APIServer(seed=0)
    f = SharedInformerFactory(api.client("kube-controller-manager"), api.env)
    a, b = f.informer_for("pods"), f.informer_for("po")
    assert a is b
    f.informer_for("nodes")
    f.start()
    api.env.run(until=1)
    assert api.store.watcher_count() == 2
    done = f.wait_for_cache_sync()
    api.env.run(until=2)
    assert done.triggered


def test_a_bookmark_moves_the_reflectors_resource_version_without_an_event():
    from kubenotes.sim.cluster import BOOKMARK_INTERVAL_SECONDS, Cluster

    c = Cluster(seed=0, controllers=[], scheduler=False)
    inf = c.informers.informer_for("configmaps")
    c.run(until=1)
    c.client.create("secrets", {"metadata": {"name": "s"}, "type": "Opaque"}, "default")  # not a configmap
    before = inf.reflector.last_sync_resource_version
    c.run(until=BOOKMARK_INTERVAL_SECONDS + 1)
    assert int(inf.reflector.last_sync_resource_version) > int(before)
    assert inf.events_processed == 0
