"""The official ``kubernetes`` Python client and lightkube's clients against a served cluster (``kubenotes serve``).

Each test serves its own cluster on a free loopback port with the clock
paused (``time_scale=0``) and steps it with ``served.run_for``, so what the
clients see is deterministic. The clients are used as a user would: they
read the kubeconfig :func:`kubenotes.sim.serve.serve` writes (server URL,
certificate authority, bearer token) and nothing else.

Expected texts are upstream's:

* NotFound / AlreadyExists / Conflict / Invalid / Forbidden / Unauthorized
  ``Status`` bodies from staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go
  (``NewNotFound``, ``NewAlreadyExists``, ``NewConflict`` with
  ``OptimisticLockErrorMsg``, ``NewInvalid``, ``NewForbidden``, ``NewUnauthorized``),
  the authorizer's denial text from ``forbiddenMessage`` in
  staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go;
* the ``spec.replicas`` check from pkg/apis/apps/validation/validation.go
  (``ValidateDeploymentSpec`` -> ``ValidateNonnegativeField``: ``must be greater than or equal to 0``);
* the scale subresource's shape (``autoscaling/v1`` Scale with ``status.selector``) from
  pkg/registry/apps/deployment/storage/storage.go (``ScaleREST``), as test/integration/scale/scale_test.go
  (``TestScaleSubresources``) checks it;
* the strategic-merge case (two containers, a patch naming one by ``name``) is the
  ``mergingList`` merge-by-key case of
  staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go, on Deployment containers.
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time

import pytest

kubernetes = pytest.importorskip("kubernetes")
lightkube = pytest.importorskip("lightkube")

from kubernetes import client as k8s  # noqa: E402
from kubernetes import watch as k8s_watch  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402
from lightkube import ApiError, AsyncClient, Client, KubeConfig, codecs  # noqa: E402
from lightkube.models.meta_v1 import ObjectMeta  # noqa: E402
from lightkube.resources.apps_v1 import Deployment  # noqa: E402
from lightkube.resources.core_v1 import ConfigMap, Node, Pod  # noqa: E402
from lightkube.types import PatchType  # noqa: E402

from kubenotes.sim.cluster import Cluster  # noqa: E402
from kubenotes.sim.serve import kubeconfig_text, serve  # noqa: E402

MANIFESTS = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: team, labels: {app: solo}}
spec: {containers: [{name: c, image: "busybox:1.37"}]}
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

#: ``OptimisticLockErrorMsg`` (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go).
OPTIMISTIC_LOCK_ERROR_MSG = ("the object has been modified; please apply your changes to the latest version and "
                             "try again")


def _deployment(name: str, replicas: int = 1, containers: list[dict] | None = None) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": containers or [{"name": "app", "image": "nginx:1.27"}]}}}}


def _service(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": name}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}}


def _until(pred, timeout_seconds: float = 10.0) -> bool:
    """Poll ``pred`` every 20 ms for at most ``timeout_seconds`` wall seconds."""
    end = time.monotonic() + timeout_seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return bool(pred())


@pytest.fixture
def served():
    c = Cluster.from_manifests(MANIFESTS)
    c.run(until=10)
    s = serve(c, port=0, time_scale=0)
    try:
        yield s
    finally:
        gc.collect()  # close the sockets of responses the clients dropped unread, so the server stops at once
        s.stop()


def _kubeconfig_with_token(served, tmp_path, token: str) -> str:
    """A kubeconfig like the served one but with another bearer token (a ServiceAccount's, or a wrong one)."""
    with open(served.ca_path, "rb") as f:
        ca = f.read()
    path = tmp_path / f"kubeconfig-{abs(hash(token))}"
    path.write_text(kubeconfig_text(served.url, token, ca))
    return str(path)


def _api_client(kubeconfig: str) -> "k8s.ApiClient":
    cfg = k8s.Configuration()
    kubernetes.config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
    return k8s.ApiClient(cfg)


@pytest.fixture
def api(served):
    a = _api_client(served.kubeconfig_path)
    try:
        yield a
    finally:
        a.close()


def _status(e: ApiException) -> dict:
    return json.loads(e.body)


# =============================================================== the official kubernetes client
def test_k8s_lists_nodes_and_pods_across_namespaces(served, api):
    core = k8s.CoreV1Api(api)
    nodes = core.list_node()
    assert [n.metadata.name for n in nodes.items] == ["n1"]
    assert nodes.items[0].status.allocatable["cpu"] == "4"
    pods = core.list_pod_for_all_namespaces()
    by_ns = sorted((p.metadata.namespace, p.metadata.name.split("-")[0]) for p in pods.items)
    assert by_ns == [("default", "web"), ("default", "web"), ("team", "solo")]
    assert all(p.spec.node_name == "n1" and p.status.phase == "Running" for p in pods.items)
    assert int(pods.metadata.resource_version) >= max(int(p.metadata.resource_version) for p in pods.items)
    assert [p.metadata.name for p in core.list_namespaced_pod("team").items] == ["solo"]
    web = core.list_pod_for_all_namespaces(label_selector="app=web")
    assert len(web.items) == 2 and {p.metadata.labels["app"] for p in web.items} == {"web"}
    assert core.list_pod_for_all_namespaces(field_selector="metadata.namespace=team").items[0].metadata.name == "solo"
    page = core.list_pod_for_all_namespaces(limit=2)
    assert len(page.items) == 2 and page.metadata._continue
    rest = core.list_pod_for_all_namespaces(limit=2, _continue=page.metadata._continue)
    assert len(rest.items) == 1 and not rest.metadata._continue


def test_k8s_creates_and_reads_back_a_deployment_and_a_service(served, api):
    apps, core = k8s.AppsV1Api(api), k8s.CoreV1Api(api)
    created = apps.create_namespaced_deployment("default", _deployment("api", replicas=3))
    assert (created.kind, created.metadata.name, created.metadata.namespace) == ("Deployment", "api", "default")
    assert created.metadata.uid and created.metadata.generation == 1
    # creationTimestamp is the virtual clock (10 s after the model's epoch), parsed by the client as a datetime
    assert created.metadata.creation_timestamp.isoformat() == "2025-08-27T00:00:10+00:00"
    got = apps.read_namespaced_deployment("api", "default")
    assert got.metadata.uid == created.metadata.uid and got.spec.replicas == 3
    assert got.spec.selector.match_labels == {"app": "api"}
    # defaults the API server fills in, as upstream's SetDefaults_Deployment
    assert got.spec.strategy.type == "RollingUpdate"
    assert (got.spec.strategy.rolling_update.max_surge, got.spec.strategy.rolling_update.max_unavailable) == \
        ("25%", "25%")
    assert (got.spec.revision_history_limit, got.spec.progress_deadline_seconds) == (10, 600)
    svc = core.create_namespaced_service("default", _service("api"))
    assert svc.metadata.name == "api" and svc.spec.ports[0].port == 80
    back = core.read_namespaced_service("api", "default")
    assert back.spec.selector == {"app": "api"} and back.spec.ports[0].target_port == 8080
    served.run_for(10)
    assert apps.read_namespaced_deployment_status("api", "default").status.ready_replicas == 3


def test_k8s_service_gets_defaults_and_a_cluster_ip(served, api):
    svc = k8s.CoreV1Api(api).create_namespaced_service("default", _service("api"))
    assert (svc.spec.type, svc.spec.session_affinity, svc.spec.ports[0].protocol) == ("ClusterIP", "None", "TCP")
    assert svc.spec.cluster_ip and svc.spec.cluster_ip == svc.spec.cluster_ips[0]


@pytest.fixture
def sent(monkeypatch):
    """(method, url, Content-Type) of every request the official client sends."""
    from kubernetes.client import rest

    out: list[tuple[str, str, str]] = []
    orig = rest.RESTClientObject.request

    def request(self, method, url, headers=None, *args, **kwargs):
        headers = headers if headers is not None else {}
        try:
            return orig(self, method, url, headers, *args, **kwargs)
        finally:  # read after the call: the client rewrites Content-Type in place for dict PATCH bodies
            out.append((method, url, headers.get("Content-Type", "")))

    monkeypatch.setattr(rest.RESTClientObject, "request", request)
    return out


def test_k8s_patch_of_replicas_is_a_strategic_merge_patch(served, api, sent):
    apps = k8s.AppsV1Api(api)
    before = apps.read_namespaced_deployment("web", "default")
    out = apps.patch_namespaced_deployment("web", "default", {"spec": {"replicas": 3}})
    method, url, ctype = sent[-1]
    assert (method, ctype) == ("PATCH", "application/strategic-merge-patch+json")
    assert url.endswith("/apis/apps/v1/namespaces/default/deployments/web")
    assert out.spec.replicas == 3 and out.metadata.generation == before.metadata.generation + 1
    assert int(out.metadata.resource_version) > int(before.metadata.resource_version)
    # the same change as a JSON merge patch and as a JSON patch
    out = apps.patch_namespaced_deployment("web", "default", {"spec": {"replicas": 4}},
                                           _content_type="application/merge-patch+json")
    assert sent[-1][2] == "application/merge-patch+json" and out.spec.replicas == 4
    out = apps.patch_namespaced_deployment("web", "default", [{"op": "replace", "path": "/spec/replicas", "value": 1}])
    assert sent[-1][2] == "application/json-patch+json" and out.spec.replicas == 1
    served.run_for(10)
    pods = k8s.CoreV1Api(api).list_namespaced_pod("default", label_selector="app=web").items
    assert len([p for p in pods if p.metadata.deletion_timestamp is None]) == 1


def test_k8s_strategic_merge_patch_merges_containers_by_name(served, api):
    apps = k8s.AppsV1Api(api)
    apps.create_namespaced_deployment("default", _deployment("two", containers=[
        {"name": "a", "image": "nginx:1.27"}, {"name": "b", "image": "busybox:1.36"}]))
    out = apps.patch_namespaced_deployment("two", "default", {"spec": {"template": {"spec": {"containers": [
        {"name": "b", "image": "busybox:1.37"}]}}}})
    assert [(c.name, c.image) for c in out.spec.template.spec.containers] == [("a", "nginx:1.27"),
                                                                               ("b", "busybox:1.37")]


def test_k8s_scale_subresource(served, api):
    apps = k8s.AppsV1Api(api)
    sc = apps.read_namespaced_deployment_scale("web", "default")
    assert (sc.api_version, sc.kind, sc.metadata.name) == ("autoscaling/v1", "Scale", "web")
    assert (sc.spec.replicas, sc.status.replicas, sc.status.selector) == (2, 2, "app=web")
    sc = apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 4}})
    assert sc.spec.replicas == 4 and apps.read_namespaced_deployment("web", "default").spec.replicas == 4
    served.run_for(10)
    assert apps.read_namespaced_deployment_scale("web", "default").status.replicas == 4
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 1}}
    assert apps.replace_namespaced_deployment_scale("web", "default", body).spec.replicas == 1
    served.run_for(10)
    assert apps.read_namespaced_deployment("web", "default").status.replicas == 1
    with pytest.raises(ApiException) as ei:
        apps.read_namespaced_deployment_scale("nope", "default")
    assert ei.value.status == 404 and _status(ei.value)["message"] == 'deployments.apps "nope" not found'


def test_k8s_deletes_cascade_and_pods_go_gracefully(served, api):
    core, apps = k8s.CoreV1Api(api), k8s.AppsV1Api(api)
    # foreground cascading deletion: the Deployment stays, with the finalizer, until its dependents are gone
    out = apps.delete_namespaced_deployment("web", "default", propagation_policy="Foreground")
    assert out["kind"] == "Deployment" and out["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert apps.read_namespaced_deployment("web", "default").metadata.deletion_timestamp is not None
    served.run_for(30)
    with pytest.raises(ApiException) as ei:
        apps.read_namespaced_deployment("web", "default")
    assert ei.value.status == 404
    assert apps.list_namespaced_replica_set("default").items == []
    assert core.list_namespaced_pod("default").items == []
    # a pod's deletion is graceful: deletionTimestamp = now + terminationGracePeriodSeconds (30 s by default)
    pod = core.delete_namespaced_pod("solo", "team")
    assert pod.kind == "Pod" and pod.metadata.deletion_grace_period_seconds == 30
    assert pod.metadata.creation_timestamp.isoformat() == "2025-08-27T00:00:00+00:00"  # made at virtual t=0
    assert (pod.metadata.deletion_timestamp - pod.metadata.creation_timestamp).total_seconds() == served.now + 30
    served.run_for(31)
    assert core.list_namespaced_pod("team").items == []
    # a ConfigMap goes at once and the answer is a Success Status
    core.create_namespaced_config_map("default", {"metadata": {"name": "x"}})
    st = core.delete_namespaced_config_map("x", "default")
    assert (st["kind"], st["status"], st["details"]["name"], st["details"]["kind"]) == ("Status", "Success", "x",
                                                                                      "configmaps")
    # dryRun=All answers as if created but stores nothing
    dry = core.create_namespaced_config_map("default", {"metadata": {"name": "dry"}, "data": {"a": "b"}},
                                            dry_run="All")
    assert dry.metadata.name == "dry" and dry.data == {"a": "b"}
    assert core.list_namespaced_config_map("default", field_selector="metadata.name=dry").items == []


def test_k8s_watch_sees_new_pods_added_then_modified_as_the_clock_runs(served, api):
    core, apps = k8s.CoreV1Api(api), k8s.AppsV1Api(api)
    rv = core.list_namespaced_pod("default").metadata.resource_version
    events: list[tuple[str, str, str, int]] = []
    w = k8s_watch.Watch()
    done = threading.Event()

    def run() -> None:
        try:
            for ev in w.stream(core.list_namespaced_pod, "default", label_selector="app=api", resource_version=rv,
                               timeout_seconds=10):
                o = ev["object"]
                events.append((ev["type"], o.metadata.name, o.status.phase, int(o.metadata.resource_version)))
                if sum(1 for e in events if e[2] == "Running") == 2:
                    w.stop()
        finally:
            done.set()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    apps.create_namespaced_deployment("default", _deployment("api", replicas=2))
    served.run_for(10)
    assert done.wait(10), events
    t.join(5)
    names = sorted({e[1] for e in events})
    assert len(names) == 2 and all(n.startswith("api-") for n in names)
    for n in names:
        mine = [e for e in events if e[1] == n]
        assert mine[0][:1] == ("ADDED",) and mine[0][2] == "Pending"
        assert all(e[0] == "MODIFIED" for e in mine[1:]) and mine[-1][2] == "Running"
    rvs = [e[3] for e in events]
    assert rvs == sorted(rvs) and len(set(rvs)) == len(rvs) and rvs[0] > int(rv)


def test_k8s_errors_are_upstream_status_objects(served, api, tmp_path):
    core, apps = k8s.CoreV1Api(api), k8s.AppsV1Api(api)
    with pytest.raises(ApiException) as ei:
        core.read_namespaced_pod("nope", "default")
    e = ei.value
    assert (e.status, e.reason) == (404, "Not Found")
    st = _status(e)
    assert (st["kind"], st["status"], st["reason"], st["message"]) == ("Status", "Failure", "NotFound",
                                                                      'pods "nope" not found')
    assert st["details"] == {"name": "nope", "kind": "pods"} and st["code"] == 404

    with pytest.raises(ApiException) as ei:
        apps.create_namespaced_deployment("default", _deployment("web"))
    st = _status(ei.value)
    assert (ei.value.status, st["reason"], st["message"]) == (409, "AlreadyExists",
                                                              'deployments.apps "web" already exists')
    assert st["details"] == {"name": "web", "group": "apps", "kind": "deployments"}

    stale = apps.read_namespaced_deployment("web", "default")
    apps.patch_namespaced_deployment("web", "default", {"metadata": {"labels": {"touched": "yes"}}})
    stale.spec.replicas = 5
    with pytest.raises(ApiException) as ei:
        apps.replace_namespaced_deployment("web", "default", stale)
    st = _status(ei.value)
    assert (ei.value.status, st["reason"]) == (409, "Conflict")
    assert st["message"] == f'Operation cannot be fulfilled on deployments.apps "web": {OPTIMISTIC_LOCK_ERROR_MSG}'

    with pytest.raises(ApiException) as ei:
        apps.create_namespaced_deployment("default", _deployment("bad", replicas=-1))
    st = _status(ei.value)
    assert (ei.value.status, st["reason"]) == (422, "Invalid")
    assert st["message"] == ('Deployment.apps "bad" is invalid: spec.replicas: Invalid value: -1: '
                             'must be greater than or equal to 0')
    assert [(c["reason"], c["field"]) for c in st["details"]["causes"]] == [("FieldValueInvalid", "spec.replicas")]
    assert (st["details"]["name"], st["details"]["group"], st["details"]["kind"]) == ("bad", "apps", "Deployment")
    assert apps.list_namespaced_deployment("default", field_selector="metadata.name=bad").items == []

    # a ServiceAccount's token: authenticated, but RBAC grants it nothing
    core.create_namespaced_service_account("default", {"metadata": {"name": "viewer"}})
    tr = core.create_namespaced_service_account_token("viewer", "default", {"spec": {"expirationSeconds": 3600}})
    assert tr.status.token.count(".") == 2
    sa_api = _api_client(_kubeconfig_with_token(served, tmp_path, tr.status.token))
    try:
        who = k8s.AuthenticationV1Api(sa_api).create_self_subject_review(
            {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
        assert who.status.user_info.username == "system:serviceaccount:default:viewer"
        with pytest.raises(ApiException) as ei:
            k8s.CoreV1Api(sa_api).create_namespaced_pod("default", {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
        st = _status(ei.value)
        assert (ei.value.status, st["reason"], st["details"]) == (403, "Forbidden", {"kind": "pods"})
        assert st["message"] == ('pods is forbidden: User "system:serviceaccount:default:viewer" cannot create '
                                 'resource "pods" in API group "" in the namespace "default"')
        with pytest.raises(ApiException) as ei:
            k8s.AppsV1Api(sa_api).list_deployment_for_all_namespaces()
        assert _status(ei.value)["message"] == ('deployments.apps is forbidden: User '
                                                '"system:serviceaccount:default:viewer" cannot list resource '
                                                '"deployments" in API group "apps" at the cluster scope')
    finally:
        sa_api.close()
    assert served.cluster.get("pods", "x", "default") is None

    bad = _api_client(_kubeconfig_with_token(served, tmp_path, "not-a-token"))
    try:
        with pytest.raises(ApiException) as ei:
            k8s.CoreV1Api(bad).list_node()
    finally:
        bad.close()
    st = _status(ei.value)
    assert (ei.value.status, ei.value.reason, st["reason"], st["message"]) == (401, "Unauthorized", "Unauthorized",
                                                                              "Unauthorized")


def test_k8s_invalid_cause_message_is_the_error_body(served, api):
    with pytest.raises(ApiException) as ei:
        k8s.AppsV1Api(api).create_namespaced_deployment("default", _deployment("bad", replicas=-1))
    assert _status(ei.value)["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "spec.replicas",
        "message": "Invalid value: -1: must be greater than or equal to 0"}]


# =============================================================== lightkube
@pytest.fixture
def lk(served):
    c = Client(config=KubeConfig.from_file(served.kubeconfig_path), field_manager="kubenotes-test")
    try:
        yield c
    finally:
        c.close()


def test_lightkube_get_list_create_patch_delete(served, lk):
    assert [n.metadata.name for n in lk.list(Node, labels={"zone": "a"})] == ["n1"]
    assert list(lk.list(Node, labels={"zone": "b"})) == []
    # the kubelet posts allocatable = capacity - the memory.available<100Mi hard eviction threshold
    assert lk.get(Node, "n1").status.allocatable["memory"] == "8092Mi"
    pods = list(lk.list(Pod, namespace="*"))
    assert sorted(p.metadata.namespace for p in pods) == ["default", "default", "team"]
    paged = list(lk.list(Pod, namespace="*", chunk_size=1))  # limit=1 and three continue tokens
    assert sorted(p.metadata.name for p in paged) == sorted(p.metadata.name for p in pods)
    assert [p.metadata.name for p in lk.list(Pod, namespace="team", labels={"app": "solo"})] == ["solo"]

    cm = lk.create(ConfigMap(metadata=ObjectMeta(name="cm1", labels={"tier": "x"}), data={"k": "v"}))
    assert (cm.metadata.namespace, cm.data) == ("default", {"k": "v"}) and cm.metadata.uid
    assert lk.get(ConfigMap, "cm1").metadata.resourceVersion == cm.metadata.resourceVersion
    assert [c.metadata.name for c in lk.list(ConfigMap, labels={"tier": "x"})] == ["cm1"]
    out = lk.patch(ConfigMap, "cm1", {"data": {"k2": "v2"}}, patch_type=PatchType.MERGE)
    assert out.data == {"k": "v", "k2": "v2"}
    out = lk.patch(ConfigMap, "cm1", {"data": {"k": None}}, patch_type=PatchType.STRATEGIC)
    assert out.data == {"k2": "v2"}
    out = lk.patch(ConfigMap, "cm1", [{"op": "add", "path": "/data/k3", "value": "v3"}], patch_type=PatchType.JSON)
    assert out.data == {"k2": "v2", "k3": "v3"}
    assert int(out.metadata.resourceVersion) > int(cm.metadata.resourceVersion)

    dep = lk.create(codecs.from_dict(_deployment("api", replicas=2)))
    assert isinstance(dep, Deployment) and dep.spec.replicas == 2
    dep = lk.patch(Deployment, "api", {"spec": {"replicas": 3}}, patch_type=PatchType.STRATEGIC)
    assert dep.spec.replicas == 3
    served.run_for(10)
    assert len(list(lk.list(Pod, labels={"app": "api"}))) == 3
    assert lk.get(Deployment, "api").status.availableReplicas == 3

    lk.delete(ConfigMap, "cm1")
    with pytest.raises(ApiError) as ei:
        lk.get(ConfigMap, "cm1")
    st = ei.value.status
    assert (st.code, st.reason, st.message) == (404, "NotFound", 'configmaps "cm1" not found')
    assert (st.details.name, st.details.kind) == ("cm1", "configmaps")
    lk.create(ConfigMap(metadata=ObjectMeta(name="dup"), data={}))
    with pytest.raises(ApiError) as ei:
        lk.create(ConfigMap(metadata=ObjectMeta(name="dup"), data={}))
    assert (ei.value.status.code, ei.value.status.reason) == (409, "AlreadyExists")
    assert ei.value.status.message == 'configmaps "dup" already exists'
    with pytest.raises(ApiError) as ei:
        lk.create(ConfigMap(metadata=ObjectMeta(name="Not_A_Name"), data={}))
    st = ei.value.status
    assert (st.code, st.reason) == (422, "Invalid")
    assert st.message.startswith('ConfigMap "Not_A_Name" is invalid: metadata.name: Invalid value: "Not_A_Name": '
                                 'a lowercase RFC 1123 subdomain must consist of')
    assert [c.field for c in st.details.causes] == ["metadata.name"]


def test_lightkube_server_side_apply_creates_updates_and_reports_conflicts(served, lk):
    """lightkube's ``apply`` is server-side apply (``application/apply-patch+yaml``, ``fieldManager``)."""
    out = lk.apply(ConfigMap(metadata=ObjectMeta(name="applied"), data={"a": "b", "c": "d"}), field_manager="team-a")
    assert out.data == {"a": "b", "c": "d"}
    managers = [(m.manager, m.operation) for m in out.metadata.managedFields]
    assert managers == [("team-a", "Apply")]
    # team-a stops applying "c": the field it alone owned goes
    out = lk.apply(ConfigMap(metadata=ObjectMeta(name="applied"), data={"a": "b"}), field_manager="team-a")
    assert out.data == {"a": "b"}
    # team-b sets "a" to another value: conflict, then force takes it over
    with pytest.raises(ApiError) as ei:
        lk.apply(ConfigMap(metadata=ObjectMeta(name="applied"), data={"a": "z"}), field_manager="team-b")
    st = ei.value.status
    assert (st.code, st.reason) == (409, "Conflict")
    assert st.message == 'Apply failed with 1 conflict: conflict with "team-a": .data.a'
    out = lk.apply(ConfigMap(metadata=ObjectMeta(name="applied"), data={"a": "z"}), field_manager="team-b",
                   force=True)
    assert out.data == {"a": "z"}
    assert served.cluster.get("configmaps", "applied", "default")["data"] == {"a": "z"}


def test_lightkube_watch_sees_every_change_in_order(served, lk):
    listing = lk.list(ConfigMap, namespace="default")
    assert "w1" not in [c.metadata.name for c in listing]
    start_rv = int(listing.resourceVersion)
    got: list[tuple[str, str, int]] = []
    ready = threading.Event()

    def run() -> None:
        ready.set()
        for op, obj in lk.watch(ConfigMap, namespace="default", labels={"w": "1"}, server_timeout=5,
                                resource_version=str(start_rv)):
            got.append((op, obj.metadata.name, int(obj.metadata.resourceVersion)))
            if op == "DELETED":
                return

    t = threading.Thread(target=run, daemon=True)
    t.start()
    ready.wait(5)
    lk.create(ConfigMap(metadata=ObjectMeta(name="w1", labels={"w": "1"}), data={"n": "0"}))
    lk.create(ConfigMap(metadata=ObjectMeta(name="other"), data={}))  # not selected
    lk.patch(ConfigMap, "w1", {"data": {"n": "1"}}, patch_type=PatchType.MERGE)
    lk.delete(ConfigMap, "w1")
    t.join(10)
    assert not t.is_alive()
    assert [(op, name) for op, name, _ in got] == [("ADDED", "w1"), ("MODIFIED", "w1"), ("DELETED", "w1")]
    rvs = [r for _, _, r in got]
    assert rvs == sorted(rvs) and len(set(rvs)) == 3


def test_lightkube_async_client(served):
    async def scenario() -> dict:
        ac = AsyncClient(config=KubeConfig.from_file(served.kubeconfig_path))
        try:
            out: dict = {}
            cm = await ac.create(ConfigMap(metadata=ObjectMeta(name="a1", labels={"x": "y"}), data={"n": "0"}))
            out["created"] = cm.metadata.name
            out["got"] = (await ac.get(ConfigMap, "a1")).data
            out["listed"] = [c.metadata.name async for c in ac.list(ConfigMap, labels={"x": "y"})]
            out["patched"] = (await ac.patch(ConfigMap, "a1", {"data": {"n": "1"}},
                                             patch_type=PatchType.MERGE)).data
            events = []
            async for op, obj in ac.watch(ConfigMap, labels={"x": "y"}, server_timeout=5):
                events.append((op, obj.metadata.name, obj.data))
                break  # a watch without resourceVersion starts with the current objects as ADDED
            out["watched"] = events
            await ac.delete(ConfigMap, "a1")
            try:
                await ac.get(ConfigMap, "a1")
            except ApiError as e:
                out["error"] = (e.status.code, e.status.reason, e.status.message)
            return out
        finally:
            await ac.close()

    out = asyncio.run(scenario())
    assert out["created"] == "a1" and out["got"] == {"n": "0"} and out["listed"] == ["a1"]
    assert out["patched"] == {"n": "1"}
    assert out["watched"] == [("ADDED", "a1", {"n": "1"})]
    assert out["error"] == (404, "NotFound", 'configmaps "a1" not found')
