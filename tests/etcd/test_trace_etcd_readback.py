"""The linked trace on a real etcd: every write's revision read back from etcd equals the model's resourceVersion."""

from __future__ import annotations

from kubenotes.apiserver.storage.interfaces import ERR_UNREACHABLE, StorageError
from kubenotes.apiserver.storage.memory import MemoryStorage
from kubenotes.etcd.cluster import RaftCluster
from kubenotes.etcd.trace import chain, linked_trace
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.trace import apply_hops

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api", "namespace": "default"},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "api"}},
                       "template": {"metadata": {"labels": {"app": "api"}},
                                    "spec": {"containers": [{"name": "api", "image": "nginx:1.27"}]}}}}


def _raft() -> RaftCluster:
    raft = RaftCluster(3, seed=0)
    raft.run(3)
    return raft


def test_on_a_real_etcd_every_write_read_back_has_the_model_resource_version(etcd_backend):
    cluster = Cluster.from_manifests(NODE, seed=0, controllers=["deployment-controller", "replicaset-controller"],
                                     etcd=etcd_backend.url, etcd_prefix=etcd_backend.prefix)
    cluster.run(until=1)
    hops = apply_hops(cluster, DEPLOYMENT, until_seconds=4, status_updates=False)
    # read back through a second client of the same etcd and prefix, not the API server's own
    rows = linked_trace(hops, _raft(), etcd=etcd_backend.storage)
    writes = [r for r in rows if r["to"] == "etcd" and r["revision"] is not None
              and not r["what"].startswith("applied")]
    assert len(writes) >= 4  # the Deployment, its ReplicaSet, the Pod, the binding (and the kubelet's status)
    assert [r["etcd_revision"] for r in writes] == [r["revision"] for r in writes]
    assert all(r["etcd_read"] == f"read back from {etcd_backend.url}: mod_revision {r['revision']}" for r in writes)
    applied = [r for r in rows if r["what"].startswith("applied index")]
    assert [r["etcd_revision"] for r in applied] == [r["revision"] for r in writes]
    assert applied[0]["what"].endswith(f"; read back from {etcd_backend.url}: mod_revision {writes[0]['revision']}")
    # the revisions are etcd's: the Deployment's key holds that mod_revision in etcd itself
    key = "/registry/deployments/default/api"
    objs, _ = etcd_backend.storage.get_list(key, revision=writes[0]["revision"])
    assert [o["metadata"]["resourceVersion"] for o in objs] == [str(writes[0]["revision"])]
    links = {x["link"]: x["value"] for x in chain(rows)}
    rv = str(writes[0]["revision"])
    assert links["etcd revision"] == links["etcd mod_revision"] == links["resourceVersion"] == rv


def test_a_delete_reads_back_as_absent_at_its_revision_and_a_wrong_revision_is_not_confirmed():
    store = MemoryStorage()
    store.create("/registry/pods/default/web", {"metadata": {"name": "web", "namespace": "default"}})
    web2 = store.create("/registry/pods/default/web-2", {"metadata": {"name": "web-2", "namespace": "default"}})
    gone = int(store.delete("/registry/pods/default/web")["metadata"]["resourceVersion"])
    hops = [{"step": 1, "time": 0.0, "from": "pod-garbage-collector", "to": "etcd", "request": 0,
             "what": f"as x: Allow; DELETED /registry/pods/default/web at resourceVersion {gone}"},
            {"step": 2, "time": 0.0, "from": "kubectl", "to": "etcd", "request": 1,
             "what": f"stored /registry/pods/default/web-2 at resourceVersion {gone}"}]
    rows = linked_trace(hops, _raft(), etcd=store)
    writes = [r for r in rows if r["to"] == "etcd" and not r["what"].startswith("applied")]
    assert writes[0]["etcd_revision"] == gone
    assert writes[0]["etcd_read"] == f"read back from memory: absent at revision {gone}, present at {gone - 1}"
    # web-2 was written before the revision the hop claims: the read back shows its real mod_revision
    assert writes[1]["etcd_revision"] == int(web2["metadata"]["resourceVersion"]) == gone - 1 != writes[1]["revision"]


def test_without_etcd_nothing_is_read_and_a_failed_read_is_said_not_raised():
    hops = [{"step": 1, "time": 0.0, "from": "kubectl", "to": "etcd", "request": 0,
             "what": "stored /registry/pods/default/web at resourceVersion 5"}]
    rows = linked_trace(hops, _raft())
    assert {(r["etcd_revision"], r["etcd_read"]) for r in rows} == {(None, None)}
    assert "etcd mod_revision" not in [x["link"] for x in chain(rows)]

    class Down:
        url = "http://127.0.0.1:9"

        def get_list(self, prefix, revision=0):
            raise StorageError(ERR_UNREACHABLE, prefix, "connection refused")

    rows = linked_trace(hops, _raft(), etcd=Down())
    assert rows[0]["etcd_revision"] is None
    assert rows[0]["etcd_read"].startswith("read back from http://127.0.0.1:9 failed: ")
    link = next(x for x in chain(rows) if x["link"] == "etcd mod_revision")
    assert link == {"link": "etcd mod_revision", "value": "-", "where": rows[0]["etcd_read"]}
