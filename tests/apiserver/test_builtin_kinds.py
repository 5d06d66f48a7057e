"""Every built-in kind of v1.34's default API served: the resource table, conversion, tables, and the real kubectl.

Expected values are upstream's:

* short names, categories, scope and kinds: what ``kubectl api-resources`` prints against a v1.34
  cluster (pkg/registry/*/*/storage/storage.go: ``ShortNames``, ``Categories``);
* etcd keys: kubernetes/kubernetes@v1.34.0 test/integration/etcd/data.go (``ExpectedEtcdPath``, and
  ``ExpectedGVK`` for the versions stored as another: autoscaling/v1 HPAs as autoscaling/v2,
  events.k8s.io/v1 Events as core v1 Events);
* conversion: pkg/apis/autoscaling/v1/conversion.go and pkg/apis/events/v1/conversion.go;
* table columns: pkg/printers/internalversion/printers.go (and the aggregator's and apiextensions'
  own table convertors for APIServices and CRDs);
* CSR requester and approval: pkg/registry/certificates/certificates/strategy.go.
"""

from __future__ import annotations

import queue
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest
import yaml

from kubenotes.apiserver.conversion import convert
from kubenotes.apiserver.discovery import aggregated_discovery, api_resource_list
from kubenotes.apiserver.resources import (RESOURCES, SERVED_RESOURCES, STORED_ONLY, etcd_key, resource_for,
                                           resource_for_kind, storage_resource, stored_only_table)
from kubenotes.apiserver.tables import table_for
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

ROOT = Path(__file__).resolve().parents[2]

#: ``kubectl api-resources`` of a v1.34 cluster (NAME, SHORTNAMES, APIVERSION, NAMESPACED, KIND), for the kinds
#: this round adds and the ones whose versions changed.
API_RESOURCES = """
componentstatuses cs v1 false ComponentStatus
podtemplates - v1 true PodTemplate
mutatingwebhookconfigurations - admissionregistration.k8s.io/v1 false MutatingWebhookConfiguration
validatingadmissionpolicies - admissionregistration.k8s.io/v1 false ValidatingAdmissionPolicy
validatingadmissionpolicybindings - admissionregistration.k8s.io/v1 false ValidatingAdmissionPolicyBinding
validatingwebhookconfigurations - admissionregistration.k8s.io/v1 false ValidatingWebhookConfiguration
customresourcedefinitions crd,crds apiextensions.k8s.io/v1 false CustomResourceDefinition
apiservices - apiregistration.k8s.io/v1 false APIService
localsubjectaccessreviews - authorization.k8s.io/v1 true LocalSubjectAccessReview
horizontalpodautoscalers hpa autoscaling/v2 true HorizontalPodAutoscaler
certificatesigningrequests csr certificates.k8s.io/v1 false CertificateSigningRequest
events ev events.k8s.io/v1 true Event
flowschemas - flowcontrol.apiserver.k8s.io/v1 false FlowSchema
prioritylevelconfigurations - flowcontrol.apiserver.k8s.io/v1 false PriorityLevelConfiguration
ingressclasses - networking.k8s.io/v1 false IngressClass
ingresses ing networking.k8s.io/v1 true Ingress
ipaddresses ip networking.k8s.io/v1 false IPAddress
networkpolicies netpol networking.k8s.io/v1 true NetworkPolicy
servicecidrs - networking.k8s.io/v1 false ServiceCIDR
runtimeclasses - node.k8s.io/v1 false RuntimeClass
deviceclasses - resource.k8s.io/v1 false DeviceClass
resourceclaims - resource.k8s.io/v1 true ResourceClaim
resourceclaimtemplates - resource.k8s.io/v1 true ResourceClaimTemplate
resourceslices - resource.k8s.io/v1 false ResourceSlice
csidrivers - storage.k8s.io/v1 false CSIDriver
csinodes - storage.k8s.io/v1 false CSINode
csistoragecapacities - storage.k8s.io/v1 true CSIStorageCapacity
volumeattachments - storage.k8s.io/v1 false VolumeAttachment
volumeattributesclasses vac storage.k8s.io/v1 false VolumeAttributesClass
"""

#: test/integration/etcd/data.go: (group, version, resource) -> ExpectedEtcdPath for an object named ``x`` in
#: namespace ``ns`` (the GA entries of v1.34).
ETCD_KEYS = {
    ("", "v1", "podtemplates"): "/registry/podtemplates/ns/x",
    ("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"):
        "/registry/mutatingwebhookconfigurations/x",
    ("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"):
        "/registry/validatingwebhookconfigurations/x",
    ("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies"): "/registry/validatingadmissionpolicies/x",
    ("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings"):
        "/registry/validatingadmissionpolicybindings/x",
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions"):
        "/registry/apiextensions.k8s.io/customresourcedefinitions/x",
    ("apiregistration.k8s.io", "v1", "apiservices"): "/registry/apiregistration.k8s.io/apiservices/x",
    ("autoscaling", "v1", "horizontalpodautoscalers"): "/registry/horizontalpodautoscalers/ns/x",
    ("autoscaling", "v2", "horizontalpodautoscalers"): "/registry/horizontalpodautoscalers/ns/x",
    ("certificates.k8s.io", "v1", "certificatesigningrequests"): "/registry/certificatesigningrequests/x",
    ("events.k8s.io", "v1", "events"): "/registry/events/ns/x",
    ("flowcontrol.apiserver.k8s.io", "v1", "flowschemas"): "/registry/flowschemas/x",
    ("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations"): "/registry/prioritylevelconfigurations/x",
    ("networking.k8s.io", "v1", "ingresses"): "/registry/ingress/ns/x",
    ("networking.k8s.io", "v1", "ingressclasses"): "/registry/ingressclasses/x",
    ("networking.k8s.io", "v1", "networkpolicies"): "/registry/networkpolicies/ns/x",
    ("networking.k8s.io", "v1", "ipaddresses"): "/registry/ipaddresses/x",
    ("networking.k8s.io", "v1", "servicecidrs"): "/registry/servicecidrs/x",
    ("node.k8s.io", "v1", "runtimeclasses"): "/registry/runtimeclasses/x",
    ("resource.k8s.io", "v1", "deviceclasses"): "/registry/deviceclasses/x",
    ("resource.k8s.io", "v1", "resourceclaims"): "/registry/resourceclaims/ns/x",
    ("resource.k8s.io", "v1", "resourceclaimtemplates"): "/registry/resourceclaimtemplates/ns/x",
    ("resource.k8s.io", "v1", "resourceslices"): "/registry/resourceslices/x",
    ("storage.k8s.io", "v1", "csidrivers"): "/registry/csidrivers/x",
    ("storage.k8s.io", "v1", "csinodes"): "/registry/csinodes/x",
    ("storage.k8s.io", "v1", "csistoragecapacities"): "/registry/csistoragecapacities/ns/x",
    ("storage.k8s.io", "v1", "volumeattachments"): "/registry/volumeattachments/x",
    ("storage.k8s.io", "v1", "volumeattributesclasses"): "/registry/volumeattributesclasses/x",
}

#: A real PKCS#10 request (ed25519, CN=alice, O=dev), base64 as ``spec.request`` holds it: kubectl describe
#: parses it.
CSR_REQUEST = ("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlHZE1GRUNBUUF3SGpFT01Bd0dBMVVFQXd3RllXeHBZMlV4RERB"
               "S0JnTlZCQW9NQTJSbGRqQXFNQVVHQXl0bApjQU1oQU1VNzQwMnlTSWluWlRMZnZ1Tm1NdzVNNmlqQUFEZ1hhcWNwUVRtYTFYUzhv"
               "QUF3QlFZREsyVndBMEVBCjZyTWNzZjYzc3pzWWJ6Tm9qZ2xadG1aUlZKWXlncjhjUlhtbHZwbE1PdDF5ZHIxaUFYbWVnRjU5dmdK"
               "amNpU2QKUitCRzlYVnY0TWlOWnhSbVFTRE1CQT09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=")

#: One object of each kind this round serves (the stubs of upstream's etcd test data, made realistic).
SAMPLES = """apiVersion: v1
kind: PodTemplate
metadata: {name: tmpl}
template:
  metadata: {labels: {app: web}}
  spec:
    containers: [{name: nginx, image: "nginx:1.27"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mutate}
webhooks:
- name: mutate.example.com
  clientConfig: {service: {namespace: default, name: hook}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: validate}
webhooks:
- name: validate.example.com
  clientConfig: {service: {namespace: default, name: hook}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 5"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [Deny]}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object}}}}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  service: {namespace: kube-system, name: metrics-server}
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  targetCPUUtilizationPercentage: 60
---
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: alice}
spec:
  request: CSR_REQUEST
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: hello}
eventTime: "2025-08-27T00:00:01.000000Z"
reportingController: example.com/ctrl
reportingInstance: ctrl-1
action: Greet
reason: Hello
type: Normal
note: hello from events.k8s.io
regarding: {kind: Pod, name: web, namespace: default}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: batch}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10
    limitResponse: {type: Queue, queuing: {queues: 16, handSize: 4, queueLengthLimit: 50}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: batch}
spec:
  priorityLevelConfiguration: {name: batch}
  matchingPrecedence: 1000
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: Group, group: {name: "system:authenticated"}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  rules:
  - host: web.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress]
---
apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: extra}
spec: {cidrs: [10.97.0.0/24]}
---
apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: 10.97.0.10}
spec: {parentRef: {group: "", resource: services, namespace: default, name: web}}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: hostpath.csi.k8s.io}
spec:
  attachRequired: false
  podInfoOnMount: true
  volumeLifecycleModes: [Persistent, Ephemeral]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers: [{name: hostpath.csi.k8s.io, nodeID: n1}]
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: n1-standard}
storageClassName: standard
capacity: 100Gi
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec:
  attacher: hostpath.csi.k8s.io
  nodeName: n1
  source: {persistentVolumeName: pv-1}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: gold}
driverName: hostpath.csi.k8s.io
parameters: {iops: "5000"}
""".replace("CSR_REQUEST", CSR_REQUEST)

NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


# ---------------------------------------------------------------- the resource table

def test_every_default_group_version_of_v1_34_is_served():
    gvs = {(r.group, r.version) for r in SERVED_RESOURCES}
    assert gvs == {("", "v1"), ("admissionregistration.k8s.io", "v1"), ("apiextensions.k8s.io", "v1"),
                   ("apiregistration.k8s.io", "v1"), ("apps", "v1"), ("authentication.k8s.io", "v1"),
                   ("authorization.k8s.io", "v1"), ("autoscaling", "v1"), ("autoscaling", "v2"), ("batch", "v1"),
                   ("certificates.k8s.io", "v1"), ("coordination.k8s.io", "v1"), ("discovery.k8s.io", "v1"),
                   ("events.k8s.io", "v1"), ("flowcontrol.apiserver.k8s.io", "v1"), ("networking.k8s.io", "v1"),
                   ("node.k8s.io", "v1"), ("policy", "v1"), ("rbac.authorization.k8s.io", "v1"),
                   ("resource.k8s.io", "v1"), ("scheduling.k8s.io", "v1"), ("storage.k8s.io", "v1")}
    # beta APIs are off by default (KEP-3136): no LeaseCandidate, ClusterTrustBundle or MutatingAdmissionPolicy
    kinds = {r.kind for r in SERVED_RESOURCES}
    assert not kinds & {"LeaseCandidate", "ClusterTrustBundle", "MutatingAdmissionPolicy", "DeviceTaintRule"}


@pytest.mark.parametrize("line", [ln for ln in API_RESOURCES.strip().splitlines()])
def test_names_scope_and_kind_as_kubectl_api_resources_prints_them(line):
    name, short, api_version, namespaced, kind = line.split()
    ri = resource_for_kind(kind, api_version)
    assert (ri.resource, ri.namespaced, ri.api_version) == (name, namespaced == "true", api_version)
    assert (",".join(ri.short_names) or "-") == short
    assert ri.singular == kind.lower()


@pytest.mark.parametrize("gvr,key", sorted(ETCD_KEYS.items()))
def test_etcd_keys_as_upstreams_etcd_test_data(gvr, key):
    ri = next(r for r in SERVED_RESOURCES if (r.group, r.version, r.resource) == gvr)
    assert etcd_key(storage_resource(ri), "ns" if ri.namespaced else None, "x") == key


def test_categories_and_subresources():
    assert resource_for("crd").categories == ("api-extensions",)
    assert resource_for("apiservices").categories == ("api-extensions",)
    assert resource_for("validatingadmissionpolicies").categories == ("api-extensions",)
    assert resource_for("ingresses").categories == ()
    assert sorted(resource_for("csr").subresources) == ["approval", "status"]
    assert resource_for("componentstatuses").verbs == ("get", "list")
    assert resource_for("localsubjectaccessreviews").verbs == ("create",)
    approval = next(e for e in api_resource_list("certificates.k8s.io", "v1")["resources"]
                    if e["name"] == "certificatesigningrequests/approval")
    assert (approval["kind"], approval["verbs"]) == ("CertificateSigningRequest", ["get", "patch", "update"])


def test_autoscaling_serves_v2_first_and_v1():
    doc = aggregated_discovery("/apis")
    autoscaling = next(i for i in doc["items"] if i["metadata"]["name"] == "autoscaling")
    assert [v["version"] for v in autoscaling["versions"]] == ["v2", "v1"]
    assert resource_for("hpa").api_version == "autoscaling/v2"
    assert resource_for("ev").api_version == "v1"
    assert resource_for("events.events.k8s.io").api_version == "events.k8s.io/v1"


def test_garbage_collector_and_namespace_deleter_walk_each_storage_once():
    # ServerPreferredResources: one entry per group-resource, so autoscaling/v1 is not walked twice
    assert [r.api_version for r in RESOURCES if r.resource == "horizontalpodautoscalers"] == ["autoscaling/v2"]
    assert all(storage_resource(r) is r for r in RESOURCES)


# ---------------------------------------------------------------- conversion

def test_hpa_v2_metrics_v1_cannot_express_travel_in_annotations():
    v2 = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
          "spec": {"maxReplicas": 5, "metrics": [
              {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue",
                                                                             "averageValue": "10"}}},
              {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                          "averageUtilization": 70}}}],
              "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}},
          "status": {"currentReplicas": 2, "desiredReplicas": 2, "conditions": [
              {"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale"}]}}
    v1 = convert(v2, "autoscaling/v1")
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 70 and "metrics" not in v1["spec"]
    anns = v1["metadata"]["annotations"]
    assert yaml.safe_load(anns["autoscaling.alpha.kubernetes.io/metrics"]) == [
        {"type": "Pods", "pods": {"metricName": "qps", "targetAverageValue": "10"}}]
    assert "autoscaling.alpha.kubernetes.io/behavior" in anns and "autoscaling.alpha.kubernetes.io/conditions" in anns
    back = convert(v1, "autoscaling/v2")
    # upstream puts the annotation's metrics first and the CPU target last
    assert [m["type"] for m in back["spec"]["metrics"]] == ["Pods", "Resource"]
    assert back["spec"]["behavior"] == v2["spec"]["behavior"]
    assert back["status"]["conditions"] == v2["status"]["conditions"]
    assert "annotations" not in back["metadata"]


def _cluster() -> Cluster:
    c = Cluster.from_manifests(NODE, kubelet="stand-in")
    c.run(until=10)
    return c


def test_v1_hpa_is_stored_as_v2_and_read_back_as_v1():
    c = _cluster()
    client = c.server.client("kubectl")
    client.create("horizontalpodautoscalers.v1.autoscaling", yaml.safe_load(SAMPLES.split("---")[7]), "default")
    stored = c.server.get("horizontalpodautoscalers", "default", "web")
    assert stored["apiVersion"] == "autoscaling/v2"
    assert stored["spec"]["metrics"] == [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 60}}}]
    v1 = client.get("horizontalpodautoscalers.v1.autoscaling", "web", "default")
    assert v1["apiVersion"] == "autoscaling/v1" and v1["spec"]["targetCPUUtilizationPercentage"] == 60
    assert list(c.server.store.keys()).count("/registry/horizontalpodautoscalers/default/web") == 1


def test_events_k8s_io_events_share_the_core_events_storage():
    c = _cluster()
    client = c.server.client("kubectl")
    w = client.watch("events.events.k8s.io", "default")
    client.create("events.events.k8s.io", yaml.safe_load(SAMPLES.split("---")[9]), "default")
    core = c.server.get("events", "default", "hello")
    assert (core["apiVersion"], core["message"], core["involvedObject"]["name"], core["reportingComponent"]) == (
        "v1", "hello from events.k8s.io", "web", "example.com/ctrl")
    ev = client.get("events.events.k8s.io", "hello", "default")
    assert (ev["apiVersion"], ev["note"], ev["regarding"]["name"]) == ("events.k8s.io/v1", "hello from events.k8s.io",
                                                                       "web")
    got = [e for e in w.pop_all() if e.object["metadata"]["name"] == "hello"]
    assert [(e.type, e.object["apiVersion"], e.object["note"]) for e in got] == [
        ("ADDED", "events.k8s.io/v1", "hello from events.k8s.io")]


def test_ingress_generation_and_status_subresource_as_its_strategy():
    # pkg/registry/networking/ingress/strategy.go: Generation = 1 at create, +1 when the spec changes; create and
    # update cannot set status, only the status subresource can
    c = _cluster()
    client = c.server.client("kubectl")
    body = yaml.safe_load(SAMPLES.split("---")[13])
    body["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}
    ing = client.create("ingresses", body, "default")
    assert ing["metadata"]["generation"] == 1 and "status" not in ing
    ing["spec"]["rules"][0]["host"] = "www.example.com"
    ing = client.update("ingresses", ing, "default")
    assert ing["metadata"]["generation"] == 2
    ing["status"] = {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}
    ing = client.update_status("ingresses", ing, "default")
    assert ing["metadata"]["generation"] == 2 and ing["status"]["loadBalancer"]["ingress"] == [{"ip": "192.0.2.1"}]
    assert table_for("ingresses", [ing], c.now)["rows"][0]["cells"][3] == "192.0.2.1"


def test_csr_approval_subresource_changes_only_the_conditions():
    c = _cluster()
    client = c.server.client("kubectl")
    csr = client.create("certificatesigningrequests", yaml.safe_load(SAMPLES.split("---")[8]))
    assert csr["spec"]["username"] == "kubernetes-admin" and "status" not in csr
    csr["spec"]["signerName"] = "example.com/other"  # ignored: approval only takes status.conditions
    csr["status"] = {"conditions": [{"type": "Approved", "status": "True", "reason": "KubectlApprove"}],
                     "certificate": "Y2VydA=="}
    out = client.update("certificatesigningrequests", csr, subresource="approval")
    assert out["spec"]["signerName"] == "kubernetes.io/kube-apiserver-client"
    assert out["status"] == {"conditions": [{"type": "Approved", "status": "True", "reason": "KubectlApprove"}]}


def test_subject_access_reviews_answer_for_the_spec_user_and_are_not_stored():
    # pkg/registry/authorization/{subjectaccessreview,localsubjectaccessreview}/rest.go
    from kubenotes.apiserver.status import ApiError

    c = _cluster()
    client = c.server.client("kubectl")
    keys = set(c.server.store.keys())
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
              "spec": {"user": "jane", "resourceAttributes": {"namespace": "default", "verb": "list",
                                                              "resource": "pods"}}}
    out = client.create("localsubjectaccessreviews", review, "default")
    assert out["status"]["allowed"] is False and out["metadata"]["namespace"] == "default"
    admin = client.create("subjectaccessreviews", {"apiVersion": "authorization.k8s.io/v1",
                                                   "kind": "SubjectAccessReview",
                                                   "spec": {"groups": ["system:masters"], "resourceAttributes": {
                                                       "verb": "delete", "resource": "nodes"}}})
    assert admin["status"]["allowed"] is True
    assert set(c.server.store.keys()) == keys  # nothing stored
    review["spec"]["resourceAttributes"]["namespace"] = "kube-system"
    with pytest.raises(ApiError) as e:
        client.create("localsubjectaccessreviews", review, "default")
    assert e.value.status["message"] == "spec.resourceAttributes.namespace must match namespace: default"
    with pytest.raises(ApiError) as e:
        client.create("subjectaccessreviews", {"spec": {"resourceAttributes": {"verb": "get", "resource": "pods"}}})
    assert e.value.status["code"] == 422
    assert "spec.user: Invalid value: \"\": at least one of user or group must be specified" in \
        e.value.status["message"]


# ---------------------------------------------------------------- tables

def test_table_columns_of_printers_go():
    def cells(resource, obj):
        return table_for(resource, [obj], 60, wide=True)["rows"][0]["cells"]

    md = {"name": "x", "creationTimestamp": "2025-08-27T00:00:00Z"}
    ing = {"metadata": md, "spec": {"rules": [{"host": f"h{i}"} for i in range(5)], "tls": [{}]}}
    assert cells("ingresses", ing) == ["x", "<none>", "h0,h1,h2 + 2 more...", "", "80, 443", "60s"]
    csr = {"metadata": md, "spec": {"signerName": "s", "username": "alice"},
           "status": {"conditions": [{"type": "Approved"}], "certificate": "Y2VydA=="}}
    assert cells("certificatesigningrequests", csr) == ["x", "60s", "s", "alice", "<none>", "Approved,Issued"]
    claim = {"metadata": md, "status": {"allocation": {}, "reservedFor": [{"name": "pod"}]}}
    assert cells("resourceclaims", claim) == ["x", "allocated,reserved", "60s"]
    ip = {"metadata": md, "spec": {"parentRef": {"group": "", "resource": "services", "namespace": "ns",
                                                 "name": "web"}}}
    assert cells("ipaddresses", ip) == ["x", "services/ns/web"]
    vapb = {"metadata": md, "spec": {"policyName": "p", "paramRef": {"name": "limits"}}}
    assert cells("validatingadmissionpolicybindings", vapb) == ["x", "p", "*/limits", "60s"]
    # an events.k8s.io Event prints as the core Event it is stored as
    ev = convert({"apiVersion": "v1", "kind": "Event", "metadata": md, "message": "m", "reason": "R",
                  "type": "Normal", "involvedObject": {"kind": "Pod", "name": "web"}, "count": 2,
                  "firstTimestamp": "2025-08-27T00:00:00Z", "lastTimestamp": "2025-08-27T00:00:30Z"},
                 "events.k8s.io/v1")
    assert cells("events", ev)[:4] == ["30s", "Normal", "R", "pod/web"]


def test_readme_table_of_stored_only_kinds_is_generated():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- stored-only kinds: generated -->\n(.*?)<!-- end of stored-only kinds -->", readme, re.S)
    assert m and m.group(1) == stored_only_table()
    for key in STORED_ONLY:
        assert resource_for(key).resource == key.split(".")[0]


# ---------------------------------------------------------------- the real kubectl

#: ``kubectl get RESOURCE -o wide``: the header and the sample's row, as against a v1.34 cluster.
GET_WIDE = {
    "podtemplates": ("NAME CONTAINERS IMAGES POD LABELS", "tmpl nginx nginx:1.27 app=web"),
    "mutatingwebhookconfigurations": ("NAME WEBHOOKS AGE", "mutate 1 0s"),
    "validatingwebhookconfigurations": ("NAME WEBHOOKS AGE", "validate 1 0s"),
    "validatingadmissionpolicies": ("NAME VALIDATIONS PARAMKIND AGE", "replicas 1 <unset> 0s"),
    "validatingadmissionpolicybindings": ("NAME POLICYNAME PARAMREF AGE", "replicas replicas <unset> 0s"),
    "customresourcedefinitions": ("NAME CREATED AT", "crontabs.stable.example.com 2025-08-27T00:00:10Z"),
    "apiservices": ("NAME SERVICE AVAILABLE AGE", "v1beta1.metrics.k8s.io kube-system/metrics-server Unknown 0s"),
    "horizontalpodautoscalers": ("NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE",
                                 "web Deployment/web cpu: <unknown>/60% 1 5 0 0s"),
    "certificatesigningrequests": ("NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION",
                                   "alice 0s kubernetes.io/kube-apiserver-client kubernetes-admin 24h Pending"),
    "prioritylevelconfigurations": ("NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE",
                                    "batch Limited 10 16 4 50 0s"),
    "flowschemas": ("NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL",
                    "batch batch 1000 ByUser 0s ?"),
    "ingressclasses": ("NAME CONTROLLER PARAMETERS AGE", "nginx k8s.io/ingress-nginx <none> 0s"),
    "ingresses": ("NAME CLASS HOSTS ADDRESS PORTS AGE", "web nginx web.example.com 80 0s"),
    "networkpolicies": ("NAME POD-SELECTOR AGE", "deny app=web 0s"),
    "servicecidrs": ("NAME CIDRS AGE", "extra 10.97.0.0/24 0s"),
    "ipaddresses": ("NAME PARENTREF", "10.97.0.10 services/default/web"),
    "runtimeclasses": ("NAME HANDLER AGE", "gvisor runsc 0s"),
    "deviceclasses": ("NAME AGE", "gpu.example.com 0s"),
    "resourceclaims": ("NAME STATE AGE", "gpu pending 0s"),
    "resourceclaimtemplates": ("NAME AGE", "gpu 0s"),
    "resourceslices": ("NAME NODE DRIVER POOL AGE", "n1-gpu n1 gpu.example.com n1 0s"),
    "csidrivers": ("NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE",
                   "hostpath.csi.k8s.io false true false <unset> false Persistent,Ephemeral 0s"),
    "csinodes": ("NAME DRIVERS AGE", "n1 1 0s"),
    "csistoragecapacities": ("NAME STORAGECLASSNAME CAPACITY", "n1-standard standard 100Gi"),
    "volumeattachments": ("NAME ATTACHER PV NODE ATTACHED AGE", "va-1 hostpath.csi.k8s.io pv-1 n1 false 0s"),
    "volumeattributesclasses": ("NAME DRIVERNAME AGE", "gold hostpath.csi.k8s.io 0s"),
}


@pytest.fixture(scope="module")
def served():
    s = serve(_cluster(), port=0, time_scale=0)
    yield s
    s.stop()


def _ok(r):
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r.stdout


def test_kubectl_api_resources_lists_every_kind(kubectl_required, served):
    out = _ok(served.kubectl("api-resources"))
    rows = {" ".join(ln.split()) for ln in out.splitlines()[1:]}
    for line in API_RESOURCES.strip().splitlines():
        name, short, api_version, namespaced, kind = line.split()
        want = " ".join(p for p in (name, "" if short == "-" else short, api_version, namespaced, kind) if p)
        assert want in rows, (want, out)
    assert len(rows) == len(RESOURCES) + 1  # + events.k8s.io/v1 events; autoscaling/v1 is not the preferred version
    ext = _ok(served.kubectl("api-resources", "--categories=api-extensions", "-o", "name")).split()
    assert ext == ["mutatingwebhookconfigurations.admissionregistration.k8s.io",
                   "validatingadmissionpolicies.admissionregistration.k8s.io",
                   "validatingadmissionpolicybindings.admissionregistration.k8s.io",
                   "validatingwebhookconfigurations.admissionregistration.k8s.io",
                   "customresourcedefinitions.apiextensions.k8s.io", "apiservices.apiregistration.k8s.io"]


def test_kubectl_apply_get_wide_and_delete_every_new_kind(kubectl_required, served):
    out = _ok(served.kubectl("apply", "-f", "-", input=SAMPLES))
    assert len(out.splitlines()) == len(SAMPLES.split("\n---\n")) and all(ln.endswith(" created")
                                                                            for ln in out.splitlines())
    for resource, (header, row) in GET_WIDE.items():
        table = _ok(served.kubectl("get", resource, "-o", "wide", "-A" if resource_for(resource).namespaced else
                                   "--ignore-not-found=false")).splitlines()
        lines = [" ".join(ln.split()) for ln in table]
        if resource_for(resource).namespaced:
            assert lines[0] == "NAMESPACE " + header, table
            assert "default " + row in lines[1:], table
        else:
            assert lines[0] == header, table
            assert row in lines[1:], table
    # re-applying the same file changes nothing; deleting it removes every object
    again = _ok(served.kubectl("apply", "-f", "-", input=SAMPLES))
    assert all(ln.endswith(" unchanged") for ln in again.splitlines()), again
    gone = _ok(served.kubectl("delete", "-f", "-", input=SAMPLES))
    assert all(ln.endswith(" deleted") for ln in gone.splitlines()), gone
    assert _ok(served.kubectl("get", "ingresses,csidrivers,resourceclaims", "-A")) == ""


def test_kubectl_certificate_approve_sets_the_condition(kubectl_required, served):
    csr = SAMPLES.split("---")[8]
    _ok(served.kubectl("create", "-f", "-", input=csr))
    out = _ok(served.kubectl("certificate", "approve", "alice"))
    assert out.strip() == "certificatesigningrequest.certificates.k8s.io/alice approved"
    row = " ".join(_ok(served.kubectl("get", "csr", "alice")).splitlines()[1].split())
    assert row.endswith("kubernetes-admin 24h Approved")
    described = _ok(served.kubectl("describe", "csr", "alice"))  # kubectl's describer parses spec.request
    assert re.search(r"Requesting User:\s+kubernetes-admin", described), described
    assert re.search(r"Status:\s+Approved", described), described
    assert re.search(r"Common Name:\s+alice", described), described
    _ok(served.kubectl("delete", "csr", "alice"))


def test_kubectl_get_componentstatuses(kubectl_required, served):
    out = _ok(served.kubectl("get", "componentstatuses"))
    assert [" ".join(ln.split()) for ln in out.splitlines()] == [
        "NAME STATUS MESSAGE ERROR", "controller-manager Healthy ok", "etcd-0 Healthy ok", "scheduler Healthy ok"]


def test_kubectl_reads_an_hpa_in_both_versions(kubectl_required, served):
    _ok(served.kubectl("apply", "-f", "-", input=SAMPLES.split("---")[7]))
    v1 = yaml.safe_load(_ok(served.kubectl("get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "yaml")))
    v2 = yaml.safe_load(_ok(served.kubectl("get", "hpa", "web", "-o", "yaml")))
    assert v1["apiVersion"] == "autoscaling/v1" and v1["spec"]["targetCPUUtilizationPercentage"] == 60
    assert v2["apiVersion"] == "autoscaling/v2"
    assert v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 60
    _ok(served.kubectl("delete", "hpa", "web"))


def test_kubectl_get_w_on_a_new_kind_and_through_autoscaling_v1(kubectl_required, served):
    # a watch through a version other than the storage one gets the objects converted to it
    columns = "custom-columns=V:.apiVersion,N:.metadata.name,APP:.spec.podSelector.matchLabels.app," \
              "CPU:.spec.targetCPUUtilizationPercentage"
    procs = [subprocess.Popen([kubectl_required, "--kubeconfig", served.kubeconfig_path, "get", resource, "-w",
                               "--no-headers", "-o", columns],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for resource in ("networkpolicies", "horizontalpodautoscalers.v1.autoscaling")]
    outs: list[queue.Queue] = [queue.Queue(), queue.Queue()]
    for proc, q in zip(procs, outs):
        threading.Thread(target=lambda proc=proc, q=q: [q.put(" ".join(ln.split())) for ln in proc.stdout],
                         daemon=True).start()
    seen: list[list[str]] = [[], []]

    def saw(i: int, text: str) -> bool:
        while not outs[i].empty():
            seen[i].append(outs[i].get())
        return text in seen[i]

    try:
        time.sleep(2)  # both watches open (the list is empty)
        docs = SAMPLES.split("---")
        _ok(served.kubectl("apply", "-f", "-", input="---".join([docs[7], docs[14]])))
        end = time.monotonic() + 20
        while time.monotonic() < end and not (saw(0, "networking.k8s.io/v1 deny web <none>")
                                              and saw(1, "autoscaling/v1 web <none> 60")):
            time.sleep(0.05)
        assert "networking.k8s.io/v1 deny web <none>" in seen[0], seen
        assert "autoscaling/v1 web <none> 60" in seen[1], seen
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(timeout=10)
        served.kubectl("delete", "networkpolicy", "deny", "--ignore-not-found")
        served.kubectl("delete", "hpa", "web", "--ignore-not-found")
