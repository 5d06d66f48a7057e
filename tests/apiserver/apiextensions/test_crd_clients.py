"""The official ``kubernetes`` client's ApiextensionsV1Api and CustomObjectsApi against a CRD served by ``serve``.

The client reads the kubeconfig ``serve`` writes, creates the CRD, then creates,
reads, lists, patches (a JSON merge patch, what ``patch_namespaced_custom_object``
sends for a dict), updates the status of, scales and deletes a custom object; a
value the schema refuses comes back as the 422 ``Status`` with the field path.
"""

from __future__ import annotations

import copy
import gc
import json

import pytest

kubernetes = pytest.importorskip("kubernetes")

from kubernetes import client as k8s  # noqa: E402
from kubernetes import config as k8s_config  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

from kubenotes.sim.cluster import Cluster  # noqa: E402
from kubenotes.sim.serve import serve  # noqa: E402

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                                    "statusReplicasPath": ".status.replicas"}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {
                                   "colour": {"type": "string"}, "replicas": {"type": "integer"},
                                   "size": {"type": "integer", "default": 1, "maximum": 10}}},
                               "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}}}]},
}


@pytest.fixture
def api():
    s = serve(Cluster.from_manifests("apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n"), port=0,
              time_scale=0)
    a = k8s_config.new_client_from_config(config_file=s.kubeconfig_path)
    try:
        yield a
    finally:
        a.close()
        gc.collect()
        s.stop()


def test_custom_objects_api_against_a_served_crd(api):
    ext, co = k8s.ApiextensionsV1Api(api), k8s.CustomObjectsApi(api)
    ext.create_custom_resource_definition(copy.deepcopy(CRD))
    crd = ext.read_custom_resource_definition("widgets.example.com")
    assert [c.type for c in crd.status.conditions] == ["NamesAccepted", "Established"]
    body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"colour": "red", "replicas": 1}}
    made = co.create_namespaced_custom_object("example.com", "v1", "team", "widgets", body)
    assert made["spec"] == {"colour": "red", "replicas": 1, "size": 1} and made["metadata"]["generation"] == 1
    assert [o["metadata"]["name"] for o in co.list_namespaced_custom_object("example.com", "v1", "team",
                                                                            "widgets")["items"]] == ["w"]
    assert co.list_cluster_custom_object("example.com", "v1", "widgets")["kind"] == "WidgetList"
    patched = co.patch_namespaced_custom_object("example.com", "v1", "team", "widgets", "w", {"spec": {"size": 4}})
    assert patched["spec"]["size"] == 4 and patched["metadata"]["generation"] == 2
    st = co.patch_namespaced_custom_object_status("example.com", "v1", "team", "widgets", "w",
                                                  {"status": {"replicas": 1}})
    assert st["status"] == {"replicas": 1} and st["metadata"]["generation"] == 2
    scale = co.patch_namespaced_custom_object_scale("example.com", "v1", "team", "widgets", "w",
                                                    {"spec": {"replicas": 3}})
    assert scale["spec"] == {"replicas": 3} and scale["status"]["replicas"] == 1
    with pytest.raises(ApiException) as e:
        co.patch_namespaced_custom_object("example.com", "v1", "team", "widgets", "w", {"spec": {"size": 11}})
    status = json.loads(e.value.body)
    assert (e.value.status, status["reason"]) == (422, "Invalid")
    assert status["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.size", "message":
                                            "Invalid value: 11: spec.size in body should be less than or equal "
                                            "to 10"}]
    co.delete_namespaced_custom_object("example.com", "v1", "team", "widgets", "w")
    with pytest.raises(ApiException) as e:
        co.get_namespaced_custom_object("example.com", "v1", "team", "widgets", "w")
    assert e.value.status == 404
