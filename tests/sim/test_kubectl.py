"""kubenotes.sim.kubectl: each kubectl command's HTTP requests, as the served model recorded them.

What is checked against upstream behaviour:

* ``kubectl get`` asks for a server-side Table with the Accept header of
  ``transformRequests`` (kubectl ``pkg/cmd/get/get.go``), and ``get -w`` is a
  LIST followed by a WATCH from the list's resourceVersion (``watch`` in the
  same file): every event after the list, in order, none twice.
* ``kubectl scale`` PATCHes the ``scale`` subresource (``pkg/cmd/scale``).
* The errors keep upstream's texts: 401 ``You must be logged in to the
  server (Unauthorized)`` (kubectl ``cmd/util/helpers.go``), 403 as
  ``responsewriters/errors.go`` words it, 404 and 422 from
  ``apimachinery/pkg/api/errors``.

The httpx fallback runs everywhere; the real-kubectl tests skip (or, in CI,
fail) without a kubectl binary, as ``tests/sim/test_serve.py`` does.
"""

from __future__ import annotations

import pytest

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.kubectl import kubectl_apply_hops, kubectl_session

NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}, capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}, capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
"""

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: "nginx:1.27", resources: {requests: {cpu: 100m, memory: 64Mi}}}]
"""


@pytest.fixture()
def served():
    c = Cluster.from_manifests(NODES, seed=0, controllers=["deployment-controller", "replicaset-controller"])
    c.run(until=2)
    s = c.serve(port=0, time_scale=0)
    try:
        yield s
    finally:
        s.stop()


# --- the httpx fallback: runs everywhere ---------------------------------------------------------


def test_fallback_get_is_one_list_as_a_table(served):
    r = kubectl_session(served, "kubectl get nodes", fallback=True)
    assert r.via == "httpx" and r.returncode == 0 and r.stderr == ""
    assert r.lines() == ["GET /api/v1/nodes?limit=500 -> 200"]
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert [ln.split()[0] for ln in lines[1:]] == ["n1", "n2"]
    rec = r.requests[0]
    assert (rec["verb"], rec["resource"], rec["user"]) == ("list", "nodes", "kubernetes-admin")
    assert r.writes == [] and r.watch_events == []


def test_fallback_scale_patches_the_scale_subresource(served):
    kubectl_session(served, "kubectl apply -f -", input=DEPLOYMENT, fallback=True)
    r = kubectl_session(served, "kubectl scale deploy/web --replicas=2", fallback=True)
    assert r.stdout == "deployment.apps/web scaled\n"
    assert [e["method"] for e in r.http] == ["GET", "PATCH"] and r.http[1]["url"].endswith("/deployments/web/scale")
    assert r.requests[1]["resource"] == "deployments/scale"
    assert served.cluster.get("deployments", "web", "default")["spec"]["replicas"] == 2


def test_fallback_watch_replays_every_event_after_the_list(served):
    kubectl_session(served, "kubectl apply -f -", input=DEPLOYMENT.replace("replicas: 4", "replicas: 1"),
                       fallback=True)
    served.run_for(5)
    r = kubectl_session(served, "kubectl get pods -l app=web -w", fallback=True,
                           during=lambda: (served.cluster.client.patch("deployments", "web", {"spec": {"replicas": 2}},
                                                                       "default"), served.run_for(5)))
    list_req, watch_req = r.http
    assert watch_req["watch"] and not list_req["watch"]
    assert "resourceVersion=" in watch_req["url"]
    rv_list = int(watch_req["url"].split("resourceVersion=")[1].split("&")[0])
    # created, bound, ContainerCreating (the kubelet's first status), Running and Ready
    assert [e["type"] for e in r.watch_events] == ["ADDED", "MODIFIED", "MODIFIED", "MODIFIED"]
    rvs = [int(e["resourceVersion"]) for e in r.watch_events]
    assert rvs == sorted(set(rvs)) and rvs[0] > rv_list
    new_pod = r.watch_events[0]["key"].rsplit("/", 1)[1]
    out = r.stdout.splitlines()
    assert len(out) == 1 + 1 + 4 and out[-1].split()[0] == new_pod and out[-1].split()[2] == "Running"
    assert [ln.split()[2] for ln in out if ln.startswith(new_pod)] == ["Pending", "Pending", "ContainerCreating", "Running"]


def test_fallback_errors_keep_upstream_texts(served):
    served.cluster.apply({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "viewer",
                                                                                     "namespace": "default"}})
    token = kubectl_session(served, "kubectl create token viewer", fallback=True).stdout.strip()
    assert token.count(".") == 2
    unauth = kubectl_session(served, "kubectl --token=nope get pods", fallback=True)
    assert unauth.codes == [401] and unauth.stderr == "error: You must be logged in to the server (Unauthorized)\n"
    forbidden = kubectl_session(served, f"kubectl --token={token} create configmap probe", fallback=True)
    assert forbidden.codes == [403] and forbidden.returncode == 1
    assert forbidden.stderr == ('Error from server (Forbidden): configmaps is forbidden: User '
                                '"system:serviceaccount:default:viewer" cannot create resource "configmaps" in API '
                                'group "" in the namespace "default"\n')
    assert forbidden.command.startswith("kubectl --token=") and token not in forbidden.command  # masked
    can_i = kubectl_session(served, f"kubectl --token={token} auth can-i create configmaps", fallback=True)
    assert (can_i.stdout, can_i.returncode) == ("no\n", 1)
    missing = kubectl_session(served, "kubectl get deploy nope", fallback=True)
    assert missing.stderr == 'Error from server (NotFound): deployments.apps "nope" not found\n'
    invalid = kubectl_session(served, "kubectl create configmap Bad_Name", fallback=True)
    assert invalid.codes == [422] and 'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value' in invalid.stderr
    assert served.cluster.get("configmaps", "probe", "default") is None


def test_fallback_refuses_a_command_it_cannot_translate(served):
    with pytest.raises(ValueError, match="fallback cannot translate `kubectl drain n1`"):
        kubectl_session(served, "kubectl drain n1", fallback=True)


def test_fallback_apply_is_get_404_then_post_and_its_hops_reach_the_kubelets(served):
    r, hops = kubectl_apply_hops(served, DEPLOYMENT, until_seconds=10, fallback=True)
    assert r.stdout == "deployment.apps/web created\n"
    assert [(e["method"], e["code"]) for e in r.http] == [("GET", 404), ("POST", 201)]
    assert "fieldManager=kubectl-client-side-apply" in r.http[1]["url"]
    assert [(w["type"], w["key"], w["watchers"]) for w in r.writes] == [
        ("ADDED", "/registry/deployments/default/web", {"kube-controller-manager": "ADDED"})]
    stored = served.cluster.get("deployments", "web", "default")
    assert "kubectl.kubernetes.io/last-applied-configuration" in stored["metadata"]["annotations"]
    assert [h["to"] for h in hops[:6]] == ["authentication", "authorization", "mutating admission", "validation",
                                          "validating admission", "etcd"]
    assert hops[6]["from"] == "etcd" and hops[6]["to"] == "deployment-controller"
    assert sum(1 for h in hops if h["what"].startswith("create pods/binding")) == 4
    assert any(h["from"].startswith("kubelet/") for h in hops)


# --- the real kubectl ------------------------------------------------------------------------------


def test_real_kubectl_discovers_then_lists_a_table(served, kubectl_required):
    r = kubectl_session(served, "kubectl get nodes")
    assert r.via == "kubectl" and r.returncode == 0, r.stderr
    assert [e["url"].split("?")[0] for e in r.http] == ["/api", "/apis", "/api/v1/nodes"]
    assert r.stdout.splitlines()[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    again = kubectl_session(served, "kubectl get nodes")
    assert [e["url"].split("?")[0] for e in again.http] == ["/api/v1/nodes"]  # discovery came from the cache


def test_real_kubectl_apply_and_watch(served, kubectl_required):
    r, hops = kubectl_apply_hops(served, DEPLOYMENT.replace("replicas: 4", "replicas: 1"), until_seconds=10)
    assert r.stdout == "deployment.apps/web created\n"
    post = next(e for e in r.http if e["method"] == "POST")
    assert post["code"] == 201 and "fieldManager=kubectl-client-side-apply" in post["url"]
    assert any(e["url"].startswith("/openapi/v3") for e in r.http)
    assert hops[0]["from"] == "kubectl" and hops[6]["to"] == "deployment-controller"
    kubectl_session(served, "kubectl scale deploy/web --replicas=2")
    w = kubectl_session(served, "kubectl get pods -l app=web -w", during=lambda: served.run_for(5))
    assert "--request-timeout=2s" in w.command  # added so that kubectl returns
    assert [e["watch"] for e in w.http] == [False, True]
    assert [e["type"] for e in w.watch_events] == ["ADDED", "MODIFIED", "MODIFIED", "MODIFIED"]
    new_pod = w.watch_events[0]["key"].rsplit("/", 1)[1]
    assert w.stdout.count(new_pod) == 4
