"""Chapter 02.02's kubectl view: each command's HTTP requests, as the served model recorded them.

What is checked against upstream behaviour:

* ``kubectl get`` asks for a server-side Table with the Accept header of
  ``transformRequests`` (kubectl ``pkg/cmd/get/get.go``), and ``get -w`` is a
  LIST followed by a WATCH from the list's resourceVersion (``watch`` in the
  same file): every event after the list, in order, none twice.
* ``kubectl apply`` of a new object is a GET (404) and a POST with
  ``fieldManager=kubectl-client-side-apply`` (``pkg/cmd/apply/apply.go``);
  ``kubectl scale`` PATCHes the ``scale`` subresource (``pkg/cmd/scale``).
* The errors keep upstream's texts: 401 ``You must be logged in to the
  server (Unauthorized)`` (kubectl ``cmd/util/helpers.go``), 403 as
  ``responsewriters/errors.go`` words it, 404 and 422 from
  ``apimachinery/pkg/api/errors``.
* A RollingUpdate never has more than ``replicas + maxSurge`` pods nor fewer
  than ``replicas - maxUnavailable`` available, the bounds
  ``TestDeploymentController_reconcileNewReplicaSet`` /
  ``reconcileOldReplicaSets`` cases in ``pkg/controller/deployment/rolling_test.go``
  exercise.

The httpx fallback runs everywhere; the real-kubectl tests skip (or, in CI,
fail) without a kubectl binary, as ``tests/sim/test_serve.py`` does.
"""

from __future__ import annotations

import contextlib
import io

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from kubenotes.sim.cluster import Cluster  # noqa: E402
from kubenotes.sim.kubectl import KubectlResult, kubectl_session, record_rollout  # noqa: E402
from kubenotes.viz import kubectl as kv  # noqa: E402

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

IMAGE_PATCH = '[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "nginx:1.28"}]'


def quiet(fn, *args, **kwargs):
    """Build a widget outside Jupyter, where its Output would print to stdout."""
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


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


def test_record_rollout_stays_within_max_surge_and_max_unavailable(served):
    kubectl_session(served, "kubectl apply -f -", input=DEPLOYMENT, fallback=True)
    served.run_for(10)
    rec = record_rollout(served, f"kubectl patch deploy web --type=json -p '{IMAGE_PATCH}'", namespace="default",
                            selector="app=web", seconds=10, fallback=True)
    frames = rec["frames"]
    assert [f["seconds"] for f in frames] == [float(s) for s in range(11)]
    assert frames[0]["writes"][0].component == "kubectl" and frames[0]["writes"][0].kind == "Deployment"
    old, new = frames[-1]["replicasets"]
    assert (old["desired"], new["desired"], new["ready"]) == (0, 4, 4) and new["revision"] == "2"
    for f in frames:
        live = [p for p in f["pods"] if not p["terminating"]]
        assert len(live) <= 4 + 1 and sum(p["ready"] for p in live) >= 4 - 1
    assert any(len([p for p in f["pods"] if not p["terminating"]]) == 5 for f in frames)  # the surge was used
    assert all(p["replicaset"] == new["name"] for p in frames[-1]["pods"])
    # the Deployment has no app=web label (only its template does), so `get deploy,rs,pods -l app=web` starts at rs
    assert frames[-1]["output"].splitlines()[0].split()[:3] == ["NAME", "DESIRED", "CURRENT"]
    html = kv.rollout_frame(rec, 10)
    assert f"{new['name']}" in html and "4/4 ready" in html and "0/0 ready" in html
    assert kv.rollout_frame(rec, 0) != kv.rollout_frame(rec, 3)
    fig = kv.rollout_figure(rec)
    labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert labels == [f"{old['name']} desired", f"{old['name']} ready", f"{new['name']} desired",
                      f"{new['name']} ready", "pods (incl. terminating)"]
    panel = quiet(kv.rollout_panel, rec)
    slider = panel.children[0].children[0]
    assert (slider.value, slider.max) == (0, 10) and "kubenotes-control" in slider._dom_classes
    assert "kubenotes-live-output" in panel.children[-1]._dom_classes
    seen = []
    real = kv.rollout_frame
    try:
        kv.rollout_frame = lambda r, s: seen.append(s) or real(r, s)
        quiet(setattr, slider, "value", 3)
    finally:
        kv.rollout_frame = real
    assert seen == [3]


# --- tables and figures from recorded entries --------------------------------------------------

WRITE = {"time": 5.0, "method": "POST", "url": "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create",
         "user_agent": "kubectl", "code": 201, "watch": False, "requests": [
             {"time": 5.0, "verb": "create", "resource": "configmaps", "namespace": "default", "name": "c",
              "user": "kubernetes-admin", "component": "kubectl", "code": 200, "steps": [
                  {"step": "authentication", "detail": "user 'kubernetes-admin'"},
                  {"step": "authorization", "detail": "Allow: "},
                  {"step": "mutating admission: ServiceAccount", "detail": "no change"},
                  {"step": "validation", "detail": "valid"},
                  {"step": "validating admission: ResourceQuota", "detail": "admitted"},
                  {"step": "storage", "detail": "ADDED /registry/configmaps/default/c at resourceVersion 42"},
                  {"step": "watch", "detail": "event queued for kube-controller-manager (ADDED), "
                                              "kubelet/n1 (ADDED)"}]}]}
DENIED = {"time": 5.0, "method": "POST", "url": "/api/v1/namespaces/default/pods", "user_agent": "kubectl",
          "code": 403, "watch": False, "requests": [
              {"time": 5.0, "verb": "create", "resource": "pods", "namespace": "default", "name": "",
               "user": "jane", "component": "kubectl", "code": 403, "steps": [
                   {"step": "authentication", "detail": "user 'jane'"},
                   {"step": "authorization", "detail": "NoOpinion: "},
                   {"step": "response", "detail": "403 Forbidden: pods is forbidden"}]}]}


def test_writes_and_tables_come_from_the_steps():
    r = KubectlResult("kubectl create configmap c", 0, "configmap/c created\n", "", [WRITE, DENIED])
    assert r.writes == [{"type": "ADDED", "key": "/registry/configmaps/default/c", "resourceVersion": "42",
                         "watchers": {"kube-controller-manager": "ADDED", "kubelet/n1": "ADDED"}}]
    assert r.codes == [201, 403]
    t = kv.requests_table(r)
    assert t.count("<tr>") == 1 + 2
    assert "/registry/configmaps/default/c" in t and "kubelet/n1 (ADDED)" in t and "1 mutating" in t
    assert "403 Forbidden: pods is forbidden" in t and "authz NoOpinion" in t
    panel = kv.kubectl_panel(r)
    assert "$ kubectl create configmap c" in panel and "2 HTTP requests at t=0 s" in panel and "1 store write" in panel
    assert r._repr_html_() == str(panel)
    s = kv.summary_table([r])
    assert "configmap/c created" in s and "&rarr; <b" in s


def test_sequence_figure_has_a_lifeline_per_watcher_and_an_arrow_per_message():
    r = KubectlResult("kubectl create configmap c", 0, "", "", [WRITE])
    fig = kv.sequence_figure(r)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts[:5] == ["kubectl", "kube-apiserver", "etcd", "kube-controller-manager", "kubelet/n1"]
    assert any(t.startswith("POST /api/v1/namespaces/default/configmaps") for t in texts)
    assert "ADDED /registry/configmaps/default/c  rv 42" in texts and "201" in texts
    assert texts.count("watch: ADDED") == 2
    # request, store write, two events and the response: five arrows
    assert len(fig.axes[0].patches) == 5


def test_sequence_figure_fits_a_1000px_column():
    import matplotlib.pyplot as plt

    from kubenotes.viz.graphs import MAX_INLINE_WIDTH_PX, inline_png_size

    # five lifelines (kubectl, kube-apiserver, etcd, two watchers), six requests
    r = KubectlResult("kubectl apply -f -", 0, "", "", [WRITE] * 6)
    fig = kv.sequence_figure(r, title="kubectl apply -f api.yaml: the HTTP requests, the write and its watcher")
    width, _ = inline_png_size(fig)
    assert 700 < width <= MAX_INLINE_WIDTH_PX  # was 1,294 px in chapter 02.02
    plt.close(fig)


def test_terminal_and_tables_stack_instead_of_squeezing():
    """In a ~1,000 px column the terminal and the tables must not shrink into scroll boxes (issue #26: kubectl's AGE
    column and the handler chain were cut off); checked in Chromium by hand, here by the layout's rules."""
    import re

    r = KubectlResult("kubectl create configmap c", 0, "configmap/c created\n", "", [WRITE, DENIED])
    rec = {"command": r, "get": "kubectl get rs", "frames": [{"seconds": 0.0, "time": 5.0, "output": "NAME ...",
           "replicasets": [{"name": "web-1", "desired": 2, "ready": 1, "revision": "1"}], "pods": [], "writes": []}]}
    for html in (str(kv.kubectl_panel(r)), str(kv.rollout_frame(rec, 0))):
        outer, left, right = re.findall(r'<div style="([^"]*)"', html)[:3]
        assert "flex-wrap:wrap" in outer
        assert "flex:0 0 auto" in left  # the terminal keeps its width: no AGE column behind a scroll bar
        assert "min-width:min-content" in right  # the other side wraps under it rather than shrink
    # the requests table fits a 1,000 px column once alone on its line
    mins = [int(m) for m in re.findall(r"min-width:(\d+)px", str(kv.requests_table([WRITE])))]  # one row
    assert sum(mins) + 8 * 12 + 120 <= 1000  # eight cells' padding; "#", method and code
