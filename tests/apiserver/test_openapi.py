"""Tests for kubenotes.apiserver.openapi (and the real kubectl reading both discovery and OpenAPI).

The shape checks follow upstream's api/openapi-spec/v3/api__v1_openapi.json and
apis__apps__v1_openapi.json (kubernetes/kubernetes@v1.34.0): schema names, ``allOf``-wrapped refs,
``x-kubernetes-group-version-kind`` on kinds and operations, list-merge extensions on
PodSpec.containers / Container.ports / ServiceSpec.ports (and, for every property, the same
extensions as kubenotes.apiserver.patch_meta, generated from upstream's swagger.json). No upstream
*_test.go covers these documents directly; the kubectl tests replay what kubectl api-resources /
explain request (see /work/shared/notes/kubectl-protocol.md), and record the PATCH bodies the real
kubectl computes from our documents (apply, set image, cordon, taint, label) to apply them with
kubenotes.apiserver.patch.strategic_merge_patch as the API server would.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from kubenotes.apiserver import discovery, openapi
from kubenotes.apiserver.resources import RESOURCES, SERVED_RESOURCES

_REF = "#/components/schemas/"


def _refs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                yield v
            else:
                yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


def test_index_lists_every_group_version():
    idx = openapi.openapi_v3_index()["paths"]
    expected = {f"apis/{r.group}/{r.version}" if r.group else f"api/{r.version}" for r in SERVED_RESOURCES}
    assert set(idx) == expected
    for key, entry in idx.items():
        url = entry["serverRelativeURL"]
        assert url == f"/openapi/v3/{key}?hash={openapi.document_hash(key)}"
        assert len(url.rsplit("=", 1)[1]) == 128


@pytest.mark.parametrize("key", sorted(openapi.openapi_v3_index()["paths"]))
def test_every_ref_resolves(key):
    doc = openapi.openapi_v3_document(key)
    assert doc["openapi"] == "3.0.0"
    schemas = doc["components"]["schemas"]
    refs = set(_refs(doc))
    assert refs, key
    for ref in refs:
        assert ref.startswith(_REF)
        assert ref[len(_REF):] in schemas, ref


def test_pod_schema_names_refs_and_merge_keys():
    s = openapi.openapi_v3_document("api/v1")["components"]["schemas"]
    pod = s["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["spec"]["allOf"] == [{"$ref": _REF + "io.k8s.api.core.v1.PodSpec"}]
    assert pod["properties"]["metadata"]["allOf"] == [
        {"$ref": _REF + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]
    containers = s["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["type"] == "array"
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert containers["x-kubernetes-list-type"] == "map"
    assert containers["x-kubernetes-list-map-keys"] == ["name"]
    assert containers["items"]["allOf"] == [{"$ref": _REF + "io.k8s.api.core.v1.Container"}]
    assert "containers" in s["io.k8s.api.core.v1.PodSpec"]["required"]
    ports = s["io.k8s.api.core.v1.Container"]["properties"]["ports"]
    assert ports["x-kubernetes-list-map-keys"] == ["containerPort", "protocol"]
    assert s["io.k8s.api.core.v1.PodSpec"]["properties"]["volumes"]["x-kubernetes-patch-strategy"] == "merge,retainKeys"
    assert s["io.k8s.api.core.v1.Container"]["required"] == ["name"]
    assert s["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"] == "int-or-string"
    assert s["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["labels"] == {
        "description": s["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["labels"]["description"],
        "type": "object", "additionalProperties": {"type": "string", "default": ""}}
    assert s["io.k8s.api.core.v1.Pod"]["description"].startswith("Pod is a collection of containers")
    limits = s["io.k8s.api.core.v1.ResourceRequirements"]["properties"]["limits"]
    assert limits["additionalProperties"] == {"$ref": _REF + "io.k8s.apimachinery.pkg.api.resource.Quantity"}
    # pointer-ish optional struct: no default; required string: default ""; Time: allOf without default
    assert "default" not in s["io.k8s.api.core.v1.PodSpec"]["properties"]["affinity"]
    assert s["io.k8s.api.core.v1.Container"]["properties"]["name"]["default"] == ""
    assert s["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]["creationTimestamp"]["allOf"] == [
        {"$ref": _REF + "io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]


def test_list_and_patch_extensions_come_from_patch_meta():
    """Every property carries exactly upstream's four list/patch extensions (and no others)."""
    from kubenotes.apiserver.patch_meta import DEFINITIONS, field_extensions

    schemas = openapi.component_schemas()
    ext_names = ("x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-list-type",
                 "x-kubernetes-list-map-keys")
    seen = 0
    for name, schema in schemas.items():
        for field, prop in schema.get("properties", {}).items():
            ours = {k: v for k, v in prop.items() if k in ext_names}
            assert ours == field_extensions(name, field), (name, field)
            seen += bool(ours)
    assert seen > 150
    meta = schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]
    assert meta["finalizers"]["x-kubernetes-patch-strategy"] == "merge"
    assert meta["finalizers"]["x-kubernetes-list-type"] == "set"
    strategy = schemas["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"]
    assert strategy["x-kubernetes-patch-strategy"] == "retainKeys"
    assert "x-kubernetes-list-type" not in strategy
    assert set(DEFINITIONS["io.k8s.api.core.v1.Container"]) >= {"env", "ports", "volumeMounts"}


def test_deployment_paths_and_scale():
    doc = openapi.openapi_v3_document("apis/apps/v1")
    item = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]
    assert item["patch"]["x-kubernetes-action"] == "patch"
    assert item["patch"]["x-kubernetes-group-version-kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    # kubectl's QueryParamVerifierV3 looks for these on the PATCH operation of the kind
    names = {p["name"] for p in item["patch"]["parameters"] if p["in"] == "query"}
    assert {"fieldValidation", "dryRun", "fieldManager"} <= names
    scale = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]
    assert scale["get"]["x-kubernetes-group-version-kind"] == {"group": "autoscaling", "version": "v1",
                                                                "kind": "Scale"}
    assert "io.k8s.api.autoscaling.v1.Scale" in doc["components"]["schemas"]
    assert "/apis/apps/v1/deployments" in doc["paths"]  # all namespaces
    replicas = doc["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["replicas"]
    assert replicas["type"] == "integer" and "desired pods" in replicas["description"]


def test_cluster_scoped_paths_have_no_namespace():
    doc = openapi.openapi_v3_document("api/v1")
    assert "/api/v1/nodes/{name}" in doc["paths"]
    assert "/api/v1/namespaces/{namespace}/nodes" not in doc["paths"]
    assert "/api/v1/nodes/{name}/status" in doc["paths"]


def test_core_subresource_paths_and_keyword_fields():
    doc = openapi.openapi_v3_document("api/v1")
    ev = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]["post"]
    assert ev["x-kubernetes-action"] == "post"
    assert ev["x-kubernetes-group-version-kind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}
    assert ev["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": _REF + "io.k8s.api.policy.v1.Eviction"}
    lst = doc["paths"]["/api/v1/namespaces/{namespace}/pods"]["get"]
    assert lst["x-kubernetes-action"] == "list"
    assert {"labelSelector", "fieldSelector", "limit", "continue", "watch"} <= {p["name"] for p in lst["parameters"]}
    # lightkube's ``continue_`` is served under its wire name
    assert "continue" in doc["components"]["schemas"]["io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"]["properties"]


def test_unknown_group_version():
    with pytest.raises(KeyError):
        openapi.openapi_v3_document("apis/nope/v1")


def test_documents_are_fresh_copies():
    a = openapi.openapi_v3_document("api/v1")
    a["paths"].clear()
    assert openapi.openapi_v3_document("api/v1")["paths"]


# --- real kubectl against the documents -------------------------------------------------------

KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"


class _Handler(BaseHTTPRequestHandler):
    """Serves discovery and OpenAPI, plus canned objects (``objects``) and records PATCH bodies (``patches``)."""

    objects: dict = {}
    patches: list = []

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        url = urlsplit(self.path)
        path = url.path.rstrip("/") or "/"
        accept = self.headers.get("Accept", "")
        try:
            if path == "/version":
                body = discovery.version_info()
            elif path in ("/api", "/apis"):
                if "as=APIGroupDiscoveryList" in accept and "v=v2;" in accept:
                    body = discovery.aggregated_discovery(path)
                    ctype = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
                    return self._send(200, body, ctype)
                body = discovery.api_versions() if path == "/api" else discovery.api_group_list()
            elif path == "/api/v1":
                body = discovery.api_resource_list("", "v1")
            elif path.startswith("/apis/") and path.count("/") == 3:
                _, _, g, v = path.split("/")
                body = discovery.api_resource_list(g, v)
            elif path in _Handler.objects:
                body = _Handler.objects[path]
            elif path == "/openapi/v3":
                body = openapi.openapi_v3_index()
            elif path.startswith("/openapi/v3/"):
                body = openapi.openapi_v3_document(path[len("/openapi/v3/"):])
            else:
                raise KeyError(path)
        except KeyError:
            return self._send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                    "reason": "NotFound", "code": 404, "message": "the server could not find the "
                                    "requested resource"})
        self._send(200, body)

    def do_PATCH(self):
        path = urlsplit(self.path).path
        data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        _Handler.patches.append((path, self.headers.get("Content-Type"), json.loads(data)))
        if path not in _Handler.objects:
            return self._send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                    "reason": "NotFound", "code": 404, "message": "not found"})
        self._send(200, _Handler.objects[path])

    def _send(self, code, body, ctype="application/json"):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def kubeconfig(tmp_path_factory):
    if not os.path.exists(KUBECTL):
        if os.environ.get("CI"):
            pytest.fail(f"{KUBECTL} is required in CI")
        pytest.skip(f"{KUBECTL} not installed")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    d = tmp_path_factory.mktemp("kube")
    cfg = d / "config"
    cfg.write_text(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster:\n    server: http://127.0.0.1:%d\n"
        "users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n"
        "current-context: c\n" % port)
    yield {"KUBECONFIG": str(cfg), "HOME": str(d), "PATH": os.environ.get("PATH", "")}
    server.shutdown()
    server.server_close()


def _kubectl(env, *args):
    return subprocess.run([KUBECTL, *args], env=env, capture_output=True, text=True, timeout=20)


def test_kubectl_api_resources(kubeconfig):
    out = _kubectl(kubeconfig, "api-resources")
    assert out.returncode == 0, out.stderr
    lines = {line.split()[0]: line.split() for line in out.stdout.splitlines()[1:]}
    assert lines["pods"] == ["pods", "po", "v1", "true", "Pod"]
    assert lines["deployments"] == ["deployments", "deploy", "apps/v1", "true", "Deployment"]
    assert lines["nodes"] == ["nodes", "no", "v1", "false", "Node"]
    assert len(lines) == len(RESOURCES)


def test_kubectl_explain(kubeconfig):
    out = _kubectl(kubeconfig, "explain", "deployment.spec.replicas")
    assert out.returncode == 0, out.stderr
    assert "GROUP:      apps" in out.stdout and "KIND:       Deployment" in out.stdout
    assert "FIELD: replicas <integer>" in out.stdout
    out = _kubectl(kubeconfig, "explain", "pod.spec.containers")
    assert out.returncode == 0, out.stderr
    assert "containers <[]Container>" in out.stdout


_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: IMAGE
        ports:
        - containerPort: 80
"""


def test_kubectl_apply_uses_patch_merge_keys(kubeconfig, tmp_path):
    """A second ``kubectl apply`` sends a strategic merge patch keyed by the schema's merge keys."""
    import yaml

    old = yaml.safe_load(_DEPLOYMENT.replace("IMAGE", "nginx:1.26"))
    live = json.loads(json.dumps(old))
    live["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(old)}
    live["metadata"]["resourceVersion"] = "7"
    path = "/apis/apps/v1/namespaces/default/deployments/web"
    _Handler.objects[path] = live
    _Handler.patches.clear()
    manifest = tmp_path / "dep.yaml"
    manifest.write_text(_DEPLOYMENT.replace("IMAGE", "nginx:1.27"))
    try:
        out = _kubectl(kubeconfig, "apply", "-f", str(manifest))
    finally:
        del _Handler.objects[path]
    assert out.returncode == 0, out.stderr
    assert "deployment.apps/web configured" in out.stdout
    [(patched, ctype, body)] = _Handler.patches
    assert patched == path
    assert ctype == "application/strategic-merge-patch+json"
    spec = body["spec"]["template"]["spec"]
    assert spec["$setElementOrder/containers"] == [{"name": "web"}]
    assert spec["containers"] == [{"image": "nginx:1.27", "name": "web"}]


# --- what the real kubectl sends, applied as the API server applies it ------------------------------------

def _record_patches(env, objects, *args):
    """Run kubectl against canned ``objects`` (path -> object); the PATCH requests it sent."""
    _Handler.objects.update(objects)
    _Handler.patches.clear()
    try:
        out = _kubectl(env, *args)
    finally:
        for path in objects:
            _Handler.objects.pop(path, None)
    assert out.returncode == 0, out.stderr
    return list(_Handler.patches)


_DEP_PATH = "/apis/apps/v1/namespaces/default/deployments/web"


def _live_deployment(manifest, **extra_spec):
    """A live Deployment as the server would hold it after ``kubectl apply -f manifest`` (with server defaults)."""
    import yaml

    applied = yaml.safe_load(manifest)
    live = json.loads(json.dumps(applied))
    live["metadata"].update({"resourceVersion": "7", "uid": "u-1", "annotations": {
        "kubectl.kubernetes.io/last-applied-configuration": json.dumps(applied)}})
    live["spec"].setdefault("strategy", {"type": "RollingUpdate",
                                         "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
    for c in live["spec"]["template"]["spec"]["containers"]:
        c.update({"imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log",
                  "resources": {}})
        for p in c.get("ports", []):
            p.setdefault("protocol", "TCP")
    live["spec"].update(extra_spec)
    return live


def test_kubectl_apply_patches_apply_as_upstream(kubeconfig, tmp_path):
    """Re-apply after an image edit, after removing a container, and after switching to Recreate."""
    from kubenotes.apiserver.patch import strategic_merge_patch
    from kubenotes.apiserver.patch_meta import meta_for

    two = _DEPLOYMENT.replace("IMAGE", "nginx:1.26") + "      - name: log\n        image: busybox\n"
    live = _live_deployment(two)
    meta = meta_for("apps/v1", "Deployment")
    manifest = tmp_path / "dep.yaml"

    manifest.write_text(two.replace("nginx:1.26", "nginx:1.27"))
    [(_, ctype, body)] = _record_patches(kubeconfig, {_DEP_PATH: live}, "apply", "-f", str(manifest))
    assert ctype == "application/strategic-merge-patch+json"
    got = strategic_merge_patch(live, body, meta)
    containers = got["spec"]["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [("web", "nginx:1.27"), ("log", "busybox")]
    assert containers[0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]  # kept: merged by name
    assert containers[0]["imagePullPolicy"] == "IfNotPresent"

    manifest.write_text(_DEPLOYMENT.replace("IMAGE", "nginx:1.26"))  # the log container removed
    [(_, _, body)] = _record_patches(kubeconfig, {_DEP_PATH: live}, "apply", "-f", str(manifest))
    assert {"$patch": "delete", "name": "log"} in body["spec"]["template"]["spec"]["containers"]
    got = strategic_merge_patch(live, body, meta)
    assert [c["name"] for c in got["spec"]["template"]["spec"]["containers"]] == ["web"]

    manifest.write_text(two.replace("  replicas: 2\n", "  replicas: 2\n  strategy:\n    type: Recreate\n"))
    [(_, _, body)] = _record_patches(kubeconfig, {_DEP_PATH: live}, "apply", "-f", str(manifest))
    assert body["spec"]["strategy"]["$retainKeys"] == ["type"]
    got = strategic_merge_patch(live, body, meta)
    assert got["spec"]["strategy"] == {"type": "Recreate"}  # the defaulted rollingUpdate is cleared


def test_kubectl_set_image_cordon_taint_and_label_patches(kubeconfig):
    from kubenotes.apiserver.patch import merge_patch, strategic_merge_patch
    from kubenotes.apiserver.patch_meta import meta_for

    two = _DEPLOYMENT.replace("IMAGE", "nginx:1.26") + "      - name: log\n        image: busybox\n"
    live = _live_deployment(two)
    [(_, ctype, body)] = _record_patches(kubeconfig, {_DEP_PATH: live}, "set", "image", "deployment/web",
                                         "log=busybox:1.36")
    assert ctype == "application/strategic-merge-patch+json"
    got = strategic_merge_patch(live, body, meta_for("apps/v1", "Deployment"))
    assert [(c["name"], c["image"]) for c in got["spec"]["template"]["spec"]["containers"]] == [
        ("web", "nginx:1.26"), ("log", "busybox:1.36")]
    assert got["spec"]["template"]["spec"]["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]

    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "resourceVersion": "3",
                                                             "labels": {"kubernetes.io/hostname": "n1"}},
            "spec": {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24"]}}
    meta = meta_for("v1", "Node")
    [(_, ctype, body)] = _record_patches(kubeconfig, {"/api/v1/nodes/n1": node}, "cordon", "n1")
    assert ctype == "application/strategic-merge-patch+json"
    got = strategic_merge_patch(node, body, meta)
    assert got["spec"] == dict(node["spec"], unschedulable=True)
    node["spec"]["taints"] = [{"key": "old", "effect": "NoExecute"}]
    [(_, ctype, body)] = _record_patches(kubeconfig, {"/api/v1/nodes/n1": node}, "taint", "node", "n1", "k=v:NoSchedule")
    assert ctype == "application/strategic-merge-patch+json"
    got = strategic_merge_patch(node, body, meta)  # taints are atomic: kubectl sends the whole new list
    assert got["spec"]["taints"] == body["spec"]["taints"]
    assert got["spec"]["taints"] == [{"effect": "NoSchedule", "key": "k", "value": "v"}, {"key": "old", "effect": "NoExecute"}]
    # kubectl label (and annotate) send a JSON merge patch, not a strategic one
    [(_, ctype, body)] = _record_patches(kubeconfig, {"/api/v1/nodes/n1": node}, "label", "node", "n1", "zone=a")
    assert ctype == "application/merge-patch+json"
    assert merge_patch(node, body)["metadata"]["labels"] == {"kubernetes.io/hostname": "n1", "zone": "a"}
