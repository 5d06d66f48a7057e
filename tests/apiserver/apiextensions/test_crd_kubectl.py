"""The real kubectl against a CustomResourceDefinition served live through ``serve``.

kubectl applies a CRD, lists the new kind by its short name, applies a custom
resource (client-side apply: a JSON merge patch, as kubectl sends for kinds its
scheme does not know), prints the printer columns, scales it through the scale
subresource, explains its schema from OpenAPI v3, is refused a value the schema
forbids, then deletes the CRD and with it the objects. Expected lines are
kubectl's own (staging/src/k8s.io/kubectl/pkg/cmd/...).
"""

from __future__ import annotations

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

CRD_YAML = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Colour, type: string, jsonPath: .spec.colour}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [colour]
            properties:
              colour: {type: string, enum: [red, blue], description: The widget's colour.}
              size: {type: integer, default: 1, maximum: 10}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
"""

WIDGET_YAML = """
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
spec: {colour: red, replicas: 1}
"""

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def test_kubectl_applies_gets_scales_explains_and_deletes_a_custom_resource(kubectl_required, tmp_path):
    crd, widget = tmp_path / "crd.yaml", tmp_path / "w.yaml"
    crd.write_text(CRD_YAML)
    widget.write_text(WIDGET_YAML)
    c = Cluster.from_manifests(NODE)
    s = serve(c, port=0, time_scale=0)
    try:
        r = s.kubectl("apply", "-f", str(crd))
        assert (r.returncode, r.stdout.strip()) == (
            0, "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created"), r.stderr
        r = s.kubectl("api-resources", "--api-group=example.com")
        assert r.stdout.splitlines()[1].split() == ["widgets", "wd", "example.com/v1", "true", "Widget"], r.stderr
        r = s.kubectl("apply", "-f", str(widget))
        assert (r.returncode, r.stdout.strip()) == (0, "widget.example.com/w1 created"), r.stderr
        r = s.kubectl("get", "wd")
        assert [ln.split() for ln in r.stdout.splitlines()] == [["NAME", "COLOUR", "REPLICAS"], ["w1", "red", "1"]]
        r = s.kubectl("scale", "widget", "w1", "--replicas=3")
        assert (r.returncode, r.stdout.strip()) == (0, "widget.example.com/w1 scaled"), r.stderr
        with s.lock:
            w = c.get("widgets.example.com", "w1", "default")
        assert w["spec"] == {"colour": "red", "replicas": 3, "size": 1} and w["metadata"]["generation"] == 2
        r = s.kubectl("explain", "widget.spec.colour")
        assert r.returncode == 0 and "The widget's colour." in r.stdout and "KIND:       Widget" in r.stdout, r.stderr
        r = s.kubectl("patch", "widget", "w1", "--type=merge", "-p", '{"spec":{"size":20}}')
        assert r.returncode == 1
        assert r.stderr.strip() == ('The Widget "w1" is invalid: spec.size: Invalid value: 20: spec.size in body '
                                    'should be less than or equal to 10')
        r = s.kubectl("delete", "crd", "widgets.example.com")
        assert (r.returncode, r.stdout.strip()) == (0, 'customresourcedefinition.apiextensions.k8s.io '
                                                       '"widgets.example.com" deleted'), r.stderr
        with s.lock:
            assert not [k for k in c.server.store.keys() if "example.com" in k]
    finally:
        s.stop()
