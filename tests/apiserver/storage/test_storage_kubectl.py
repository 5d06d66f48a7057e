"""The real kubectl against ``serve`` on a real etcd answers as against the default store.

One cluster on each backend from the same manifests and seed, both served;
each kubectl command's exit status, stdout and stderr must be equal.
"""

from __future__ import annotations

import pytest

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

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

COMMANDS = [
    ("get", "pods", "-A"),
    ("create", "configmap", "cm", "--from-literal=k=v"),
    ("delete", "configmap", "cm"),
    ("get", "configmap", "cm"),
]


@pytest.fixture
def etcd(etcd_backend):
    return etcd_backend


def test_kubectl_against_serve_etcd_behaves_as_against_the_default(kubectl_required, etcd):
    default = serve(Cluster.from_manifests(MANIFESTS, controllers=[]), port=0, time_scale=0)
    on_etcd_cluster = Cluster.from_manifests(MANIFESTS, controllers=[], etcd=etcd.url, etcd_prefix=etcd.prefix)
    on_etcd = serve(on_etcd_cluster, port=0, time_scale=0)
    try:
        for args in COMMANDS:
            want, got = default.kubectl(*args), on_etcd.kubectl(*args)
            assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr), args
            if args[0] == "create":  # the object is in etcd under its upstream key
                assert etcd.storage.get("/registry/configmaps/default/cm")["data"] == {"k": "v"}
        assert want.returncode == 1 and 'configmaps "cm" not found' in want.stderr
        assert etcd.storage.get("/registry/configmaps/default/cm") is None
        assert etcd.storage.get("/registry/deployments/default/web")["spec"]["replicas"] == 2
    finally:
        default.stop()
        on_etcd.stop()
