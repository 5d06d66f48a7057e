"""A real operator framework, kopf (from PyPI), reconciling a custom resource served by ``serve``.

The operator is a handler module written by the test and run as ``python -m kopf run --standalone``
(no peering) in a subprocess whose ``KUBECONFIG`` names the served cluster. On create of a ``Widget``
it creates a ConfigMap owned by the Widget (``kopf.adopt``) and returns a value kopf merge-patches
into the Widget's ``/status``; on an update of ``spec.colour`` it patches the status again; its
delete handler makes kopf put its finalizer on the object (a JSON patch with a ``test`` of
``metadata.resourceVersion``) and take it off when the Widget is deleted. Along the way kopf lists,
watches with ``allowWatchBookmarks`` and a one-second ``timeoutSeconds`` (so it re-watches from its
last resourceVersion several times), merge-patches its ``last-handled-configuration`` annotation and
posts an Event; when its watch's resourceVersion has left the API server's history it gets the
410 ``Expired`` ERROR event and relists. Once the Widget is gone the garbage collector deletes the
ConfigMap it owned. The test drives the Widget with the official client's CustomObjectsApi and asserts
what the operator left in the store.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import yaml

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

if os.environ.get("CI"):  # installed through the ``test`` extra: in CI a missing kopf fails, never skips
    import kopf  # noqa: F401
    import kubernetes
else:
    pytest.importorskip("kopf")
    kubernetes = pytest.importorskip("kubernetes")

CRD = yaml.safe_load("""
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [colour]
            properties:
              colour: {type: string, enum: [red, blue]}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
""")

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""

OPERATOR = '''
import kopf
import kubernetes

kubernetes.config.load_kube_config()
CORE = kubernetes.client.CoreV1Api()


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.watching.server_timeout = 1
    settings.persistence.finalizer = "example.com/widget"


@kopf.on.create("example.com", "v1", "widgets")
def make_configmap(spec, name, namespace, body, **_):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name + "-colour"},
          "data": {"colour": spec["colour"]}}
    kopf.adopt(cm, owner=body)
    CORE.create_namespaced_config_map(namespace, cm)
    kopf.info(body, reason="Made", message="ConfigMap " + name + "-colour")
    return {"configMap": name + "-colour"}


@kopf.on.update("example.com", "v1", "widgets", field="spec.colour")
def recolour(new, patch, **_):
    patch.status["colour"] = new


@kopf.on.delete("example.com", "v1", "widgets")
def goodbye(**_):
    pass
'''


def _until(predicate, what: str, seconds: float = 60.0):
    """Poll ``predicate`` until it returns something truthy (and return it), or fail naming ``what``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def test_kopf_operator_reconciles_a_widget_through_serve(tmp_path):
    handlers = tmp_path / "operator.py"
    handlers.write_text(OPERATOR)
    c = Cluster.from_manifests(NODE, history_capacity=16)
    s = serve(c, port=0, time_scale=0)
    env = dict(os.environ, KUBECONFIG=s.kubeconfig_path)
    log = open(tmp_path / "kopf.log", "w+")
    op = None
    try:
        # kopf starts (and imports) while the CRD is created: it begins watching Widgets once they are served
        op = subprocess.Popen([sys.executable, "-m", "kopf", "run", "--standalone", "--all-namespaces",
                               "--verbose", str(handlers)], env=env, stdout=log, stderr=subprocess.STDOUT)
        api = kubernetes.config.new_client_from_config(config_file=s.kubeconfig_path)
        kubernetes.client.ApiextensionsV1Api(api).create_custom_resource_definition(CRD)
        crs = kubernetes.client.CustomObjectsApi(api)

        def get(resource: str, name: str):
            with s.lock:
                return c.get(resource, name, "default")

        def logged() -> str:
            log.flush()
            log.seek(0)
            return log.read()

        _until(lambda: "Starting the watch-stream for widgets.v1.example.com" in logged(), "kopf's watch")
        w = crs.create_namespaced_custom_object("example.com", "v1", "default", "widgets", {
            "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"},
            "spec": {"colour": "red"}})
        uid = w["metadata"]["uid"]

        cm = _until(lambda: get("configmaps", "w1-colour"), "the ConfigMap")
        assert cm["data"] == {"colour": "red"}
        assert cm["metadata"]["ownerReferences"] == [{
            "apiVersion": "example.com/v1", "kind": "Widget", "name": "w1", "uid": uid,
            "controller": True, "blockOwnerDeletion": True}]
        def widget_with_status(key: str) -> dict | None:
            o = get("widgets.example.com", "w1")
            return o if o and key in o.get("status", {}) else None

        w = _until(lambda: widget_with_status("make_configmap"), "the status patch")
        assert w["status"] == {"make_configmap": {"configMap": "w1-colour"}}
        assert w["metadata"]["finalizers"] == ["example.com/widget"]
        assert "kopf.zalando.org/last-handled-configuration" in w["metadata"]["annotations"]

        # 20 writes push the Widget watch's last resourceVersion out of the 16-event history: kopf's next
        # re-watch gets the 410 Expired ERROR event and relists, and goes on reconciling
        core = kubernetes.client.CoreV1Api(api)
        for i in range(20):
            core.create_namespaced_config_map("default", {"metadata": {"name": f"filler-{i}"}})
        _until(lambda: "Restarting the watch-stream for widgets.v1.example.com" in logged(), "kopf's relist")

        crs.patch_namespaced_custom_object("example.com", "v1", "default", "widgets", "w1",
                                           {"spec": {"colour": "blue"}})
        w = _until(lambda: widget_with_status("colour"), "the update handler's status patch")
        assert w["status"] == {"make_configmap": {"configMap": "w1-colour"}, "colour": "blue"}

        with s.lock:
            events = c.list("events", "default")
        assert [(e["reason"], e["message"], e["involvedObject"]["uid"]) for e in events] == [
            ("Made", "ConfigMap w1-colour", uid)]

        s.run_for(31)  # the garbage collector's monitors follow discovery every 30 s: Widgets are watched now
        crs.delete_namespaced_custom_object("example.com", "v1", "default", "widgets", "w1")
        _until(lambda: get("widgets.example.com", "w1") is None, "kopf to remove its finalizer")
        s.run_for(2)
        assert get("configmaps", "w1-colour") is None  # collected: its owner is gone
        assert "Handler 'goodbye' succeeded." in logged()
        assert "Traceback" not in logged() and "ERROR" not in logged(), logged()
    finally:
        if op is not None:
            op.kill()  # nothing of kopf's own shutdown is under test
            op.wait(10)
        log.close()
        s.stop()
