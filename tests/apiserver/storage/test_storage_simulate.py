"""``simulate --etcd``: the same run on a real etcd as on the default store, resourceVersions shifted by etcd's start.

The run's committed writes (``-o events``) must be the same writes, at the same
virtual times, in the same order; each resourceVersion is etcd's revision, which
on etcd starts where that etcd's revision stood, so it differs from the default
store's by one constant.
"""

from __future__ import annotations


from kubenotes.sim.cli import node_events, run

MANIFESTS = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
"""


def test_simulate_on_etcd_writes_what_the_default_store_writes(etcd_backend):
    backend = etcd_backend
    default = run([MANIFESTS], until=30)
    on_etcd = run([MANIFESTS], until=30, etcd={"etcd": backend.url, "etcd_prefix": backend.prefix})
    want, got = node_events(default), node_events(on_etcd)
    assert len(got) == len(want) > 100
    shift = {int(g["resourceVersion"]) - int(w["resourceVersion"]) for g, w in zip(got, want) if w["resourceVersion"]}
    assert len(shift) == 1  # one constant: etcd's revision when the run started, minus the default store's 1
    strip = [{k: v for k, v in e.items() if k != "resourceVersion"} for e in (*want, *got)]
    assert strip[len(want):] == strip[:len(want)]
    assert sorted(on_etcd.server.store.keys()) == sorted(default.server.store.keys())
    pods = backend.storage.get_list("/registry/pods/default/")[0]
    assert sorted(p["status"]["phase"] for p in pods) == ["Running", "Running"]
