"""The kubelet's HTTP pod source (``staticPodURL``; ``pkg/kubelet/config/http.go`` v1.34).

Cases after ``http_test.go``: ``TestExtractFromHTTP`` (a single Pod and a PodList become static pods named
``<name>-<node>`` with the ``http`` source), ``TestExtractInvalidPods``/``TestURLErrorNotFoundNoUpdate`` (a
404 or an unparsable body leaves the pods as they were), ``TestExtractFromEmptyHTTP`` (an empty body removes
them); and the poll every ``httpCheckFrequency`` (20 s) against a real HTTP server on loopback.
"""

from __future__ import annotations

import http.server
import json
import threading
from types import SimpleNamespace

import pytest
import simpy

from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.server import APIServer
from kubenotes.kubelet.kubelet import Kubelet, KubeletConfiguration


def _pod(name: str, image: str = "busybox:1.36") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": image}]}}


class Site:
    """The manifest server: what a GET of the URL answers now."""

    def __init__(self, body: str = "", status: int = 200):
        self.body, self.status, self.requests = body, status, []

    def get(self, url: str, headers: dict) -> tuple[int, str, str]:
        self.requests.append((url, headers))
        return self.status, {200: "200 OK", 404: "404 Not Found"}[self.status], self.body


def _kubelet(url: str = "http://10.0.0.1:8080/pods", **options):
    env = simpy.Environment()
    server = APIServer(env, seed=0)
    admin = server.client("kubectl", UserInfo("admin", groups=("system:masters",)))
    for ns in ("default", "kube-node-lease"):
        admin.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    admin.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    k = Kubelet(SimpleNamespace(env=env, server=server, seed=0), "n1",
                options=KubeletConfiguration(static_pod_url=url, **options))
    k.start()
    return env, admin, k


def _mirrors(admin) -> dict[str, dict]:
    return {p["metadata"]["name"]: p for p in admin.list("pods", "default")["items"]}


def test_a_pod_and_a_pod_list_from_the_url_run_as_static_pods_with_mirrors():
    site = Site(json.dumps(_pod("agent")))
    env, admin, k = _kubelet(http_get=site.get, static_pod_url_header={"X-Node": "n1"})
    env.run(until=5)
    mirror = _mirrors(admin)["agent-n1"]
    ann = mirror["metadata"]["annotations"]
    assert ann["kubernetes.io/config.source"] == "http"
    assert ann["kubernetes.io/config.mirror"] == ann["kubernetes.io/config.hash"]
    assert mirror["status"]["phase"] == "Running"
    assert site.requests[0] == ("http://10.0.0.1:8080/pods", {"X-Node": ["n1"]})
    site.body = json.dumps({"apiVersion": "v1", "kind": "PodList", "items": [_pod("agent"), _pod("logger")]})
    env.run(until=25)                                 # the next poll, 20 s later
    assert sorted(_mirrors(admin)) == ["agent-n1", "logger-n1"]
    assert len(site.requests) == 2   # at 0 s and 20 s


@pytest.mark.parametrize("status, body, error", [
    (404, "", "http://10.0.0.1:8080/pods: 404 Not Found"),
    (200, "not a pod", "http://10.0.0.1:8080/pods: received 'not a pod', but couldn't parse as single"),
])
def test_a_failed_fetch_keeps_the_pods(status, body, error):
    site = Site(json.dumps(_pod("agent")))
    env, admin, k = _kubelet(http_get=site.get)
    env.run(until=5)
    site.status, site.body = status, body
    assert k.read_http_manifests() == []
    assert k.manifest_url_errors[0].startswith(error)
    env.run(until=50)
    assert _mirrors(admin)["agent-n1"]["status"]["phase"] == "Running"


def test_an_empty_body_removes_the_pods():
    site = Site(json.dumps(_pod("agent")))
    env, admin, k = _kubelet(http_get=site.get)
    env.run(until=5)
    site.body = ""
    env.run(until=60)
    assert "agent-n1" not in _mirrors(admin)
    assert k.manifest_url_errors == ["zero-length data received from http://10.0.0.1:8080/pods"]
    assert not [c for c in k.runtime.containers.values() if c.state == "CONTAINER_RUNNING"]


def test_a_real_http_server_serves_the_manifests():
    body = {"text": "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: web, image: nginx:1.27}]}\n"}
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            seen.append(self.headers.get("X-Cluster"))
            data = body["text"].encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/manifests"
        env, admin, _ = _kubelet(url, static_pod_url_header={"X-Cluster": ["lab"]})
        env.run(until=10)
        assert admin.get("pods", "web-n1", "default")["status"]["phase"] == "Running"
        assert seen == ["lab"]
    finally:
        httpd.shutdown()
        httpd.server_close()
