"""The scheduler's informer-backed storage listers (snapshot.TypedIndex, ObjectListers, sim KubeScheduler).

Identity: lists and maps kept from watch events equal a full rebuild from the
informer caches after any sequence of adds, updates and deletes; a change
whose event is not applied is seen as a difference.
"""

from __future__ import annotations

import copy
import random
from types import SimpleNamespace

from kubenotes.client.informer import Indexer, meta_namespace_key
from kubenotes.scheduler.snapshot import ClusterObjects, ObjectListers, TypedIndex, typed
from kubenotes.sim.cluster import Cluster


def _claim(i: int, rv: int, ns: str = "default") -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": f"c{i:03d}", "namespace": ns, "uid": f"uid-c{i}-{rv}", "resourceVersion": str(rv)},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": f"{i + 1}Gi"}}}}


def _pv(i: int, rv: int) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": f"pv-{(i * 7919) % 1000:03d}", "uid": f"uid-pv{i}-{rv}", "resourceVersion": str(rv)},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/x"}}}


def _full(attr: str, indexer: Indexer) -> tuple[list[dict], dict[str, dict]]:
    """What a full re-list gives: typed objects in key order, and ObjectListers' map over them."""
    objs = [typed(o) for o in indexer.list()]
    listers = ObjectListers(SimpleNamespace(objects=ClusterObjects(**{attr: objs})))
    listers.refresh()
    return [o.to_dict() for o in objs], listers.of(attr)


def _random_changes(rng: random.Random, make, indexer: Indexer, rv: list[int], n: int) -> dict[str, None]:
    """Apply ``n`` random adds/updates/deletes to ``indexer``; the keys the watch events named."""
    changed: dict[str, None] = {}
    for _ in range(n):
        rv[0] += 1
        keys = indexer.list_keys()
        op = rng.random()
        if keys and op < 0.25:  # delete
            obj = indexer.get_by_key(rng.choice(keys))
            indexer.delete(obj)
        elif keys and op < 0.6:  # update: a new resourceVersion (and a changed field)
            obj = copy.deepcopy(indexer.get_by_key(rng.choice(keys)))
            obj["metadata"]["resourceVersion"] = str(rv[0])
            obj["metadata"].setdefault("annotations", {})["step"] = str(rv[0])
            indexer.update(obj)
        else:  # add (a name may come back after its delete, with a new uid)
            obj = make(rng.randrange(60), rv[0])
            indexer.add(obj)
        changed[meta_namespace_key(obj)] = None
    return changed


def test_incremental_index_equals_a_full_rebuild_after_adds_updates_and_deletes():
    rng = random.Random(7)
    for attr, make in (("persistent_volume_claims", _claim), ("persistent_volumes", _pv)):
        indexer, ix, rv = Indexer(), TypedIndex(attr, with_dicts=True), [0]
        listers = ObjectListers(SimpleNamespace(objects=ClusterObjects(informed={a: ix if a == attr else
                                                                                 TypedIndex(a, True)
                                                                                 for a in ObjectListers.ATTRS})))
        for _ in range(40):
            changed = _random_changes(rng, make, indexer, rv, rng.randrange(1, 8))
            before = (ix.objects, ix.by_key)
            ix.apply((k, indexer.get_by_key(k)) for k in changed)
            listers.refresh()
            objs, by_key = _full(attr, indexer)
            assert [o.to_dict() for o in ix.objects] == objs
            assert list(ix.by_key.items()) == list(by_key.items())  # same keys, same order, same objects
            assert list(listers.of(attr).items()) == list(by_key.items())
            if before[0] is not ix.objects:  # copy on write: what a running cycle holds did not move
                assert before[1] is not ix.by_key


def test_a_missed_update_is_a_difference():
    indexer, ix = Indexer(), TypedIndex("persistent_volume_claims", with_dicts=True)
    for i in range(3):
        indexer.add(_claim(i, i + 1))
    ix.apply((k, indexer.get_by_key(k)) for k in indexer.list_keys())
    newer = _claim(1, 9)
    newer["spec"]["volumeName"] = "pv-1"
    indexer.update(newer)
    ix.apply([])  # the event is lost
    assert ix.by_key != _full("persistent_volume_claims", indexer)[1]
    assert ix.apply([("default/c001", newer)]) is True
    assert ix.by_key == _full("persistent_volume_claims", indexer)[1]
    assert ix.by_key["default/c001"]["spec"]["volumeName"] == "pv-1"


def test_unchanged_resource_version_converts_nothing_and_keeps_the_maps():
    indexer, ix = Indexer(), TypedIndex("persistent_volumes", with_dicts=True)
    indexer.add(_pv(1, 1))
    ix.apply([("pv-007", indexer.get_by_key("pv-007"))])
    objects, by_key, version = ix.objects, ix.by_key, ix.version
    assert ix.apply([("pv-007", copy.deepcopy(indexer.get_by_key("pv-007"))), ("gone", None)]) is False
    assert ix.objects is objects and ix.by_key is by_key and ix.version == version


STORAGE = [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
     "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
     "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"},
] + [{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": f"d{i}", "namespace": "default"},
      "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
               "resources": {"requests": {"storage": "1Gi"}}}} for i in range(4)]


def test_running_scheduler_lists_equal_a_full_relist_of_its_informers():
    c = Cluster(STORAGE, seed=0, controllers=())
    c.run(until=2)
    ks = c.scheduler

    def same_as_relist():
        objects = ks._cluster_objects()
        inf = c.scheduler_informers
        for attr, resource in (("persistent_volume_claims", "persistentvolumeclaims"),
                               ("persistent_volumes", "persistentvolumes"), ("storage_classes", "storageclasses")):
            objs, by_key = _full(attr, inf.informer_for(resource).indexer)
            assert [o.to_dict() for o in getattr(objects, attr)] == objs, attr
            listers = ObjectListers(SimpleNamespace(objects=objects))
            listers.refresh()
            assert list(listers.of(attr).items()) == list(by_key.items()), attr

    same_as_relist()
    c.client.delete("persistentvolumeclaims", "d1", "default")
    pvc = copy.deepcopy(c.server.get("persistentvolumeclaims", "default", "d2"))
    pvc["metadata"]["labels"] = {"changed": "yes"}
    c.client.update("persistentvolumeclaims", pvc, "default")
    c.client.create("persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-a"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                 "hostPath": {"path": "/a"}}})
    c.run(until=4)
    claims = {o.metadata.name: o for o in ks._cluster_objects().persistent_volume_claims}
    assert claims["d2"].metadata.labels == {"changed": "yes"}
    assert "d1" not in claims or claims["d1"].metadata.deletionTimestamp  # gone, or held by its finalizer
    assert [o.metadata.name for o in ks.objects.persistent_volumes] == ["pv-a"]
    same_as_relist()
