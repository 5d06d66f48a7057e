"""The request path's shortcuts for a one-shot load (issue #24: ``schedule`` on 150,000 pods) change no answer.

Each shortcut skips work whose result is already known: a copy of a body the caller hands over
(``APIServer.create(owned=True)``), the gated-field rules on a pod spec that has none of the fields,
checks of strings already found valid, the admission plugins' per-operation list, the PriorityClass
lookup table while no class changes, the uuid module's object for a uid's text. Each test compares
with the long way or shows that a change made after the first request is still seen.
"""

from __future__ import annotations

import copy
import random
import uuid

import pytest

from kubenotes.api.dropdisabled import _uses_no_gated_field, drop_disabled_pod_spec_fields
from kubenotes.api.manifests import load_manifests
from kubenotes.api.validation import is_qualified_name, is_valid_label_value
from kubenotes.apiserver.admission.interfaces import CREATE, AdmissionChain, Plugin
from kubenotes.apiserver.load import (ADMIN, create_objects, load_through_api_server, objects_with_locations,
                                      start_api_server)
from kubenotes.apiserver.request import Attributes, UserInfo
from kubenotes.apiserver.resources import resource_for
from kubenotes.apiserver.server import APIServer, using_epoch
from kubenotes.apiserver.status import ApiError


class _AllOff:
    """Every feature gate off: every rule of ``drop_disabled_pod_spec_fields`` applies."""

    def enabled(self, name: str) -> bool:
        return False


def _c(**fields) -> dict:
    return {"name": "c", "image": "x", **fields}


_TOKEN_VOLUME = {"name": "kube-api-access-abcde", "projected": {"sources": [
    {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}},
    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}}

#: Pod specs, each with one field a gate may drop (the first two with none).
_SPECS = [
    {"containers": [_c(resources={"requests": {"cpu": "1"}}, volumeMounts=[
        {"name": "kube-api-access-abcde", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
        env=[{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}])],
     "volumes": [_TOKEN_VOLUME], "tolerations": [{"operator": "Exists"}],
     "affinity": {"nodeAffinity": {}}, "securityContext": {"runAsUser": 1}},
    {"containers": [_c(securityContext={"procMount": None})]},
    {"containers": [_c(securityContext={"procMount": "Unmasked"})]},
    {"containers": [_c(resources={"claims": [{"name": "gpu"}]})], "resourceClaims": [{"name": "gpu"}]},
    {"containers": [_c(resizePolicy=[{"resourceName": "cpu", "restartPolicy": "NotRequired"}])]},
    {"containers": [_c()], "initContainers": [_c(name="s", restartPolicy="Always")]},
    {"containers": [_c(restartPolicy="Never", restartPolicyRules=[{"action": "Restart"}])]},
    {"containers": [_c(volumeMounts=[{"name": "v", "mountPath": "/v", "recursiveReadOnly": "Enabled"}])],
     "volumes": [{"name": "v", "emptyDir": {}}]},
    {"containers": [_c(env=[{"name": "K", "valueFrom": {"fileKeyRef": {"key": "K"}}}])]},
    {"containers": [_c(lifecycle={"preStop": {"sleep": {"seconds": 1}}, "stopSignal": "SIGUSR1"})]},
    {"containers": [_c(volumeMounts=[{"name": "i", "mountPath": "/i"}])], "volumes": [{"name": "i", "image": {}}]},
    {"containers": [_c()], "volumes": [{"name": "p", "projected": {"sources": [{"clusterTrustBundle": {}}]}}]},
    {"containers": [_c()], "volumes": [{"name": "p", "projected": {"sources": [{"podCertificate": {}}]}}]},
    {"containers": [_c()], "hostnameOverride": "h"},
    {"containers": [_c()], "resources": {"requests": {"cpu": "1"}}},
    {"containers": [_c()], "securityContext": {"hostUsers": False}},
    {"containers": [_c()], "securityContext": {"supplementalGroupsPolicy": "Strict"}},
    {"containers": [_c()], "securityContext": {"seLinuxChangePolicy": "Recursive"}},
    {"containers": [_c()], "topologySpreadConstraints": [{"maxSkew": 1, "matchLabelKeys": ["a"]}]},
    {"containers": [_c()], "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "k", "matchLabelKeys": ["a"]}]}}},
    {"containers": [_c()], "ephemeralContainers": [_c(name="e", securityContext={"procMount": "Unmasked"})]},
]


@pytest.mark.parametrize("spec", _SPECS, ids=range(len(_SPECS)))
def test_gated_field_shortcut_agrees_with_the_rules(spec):
    short, long_way = copy.deepcopy(spec), copy.deepcopy(spec)
    drop_disabled_pod_spec_fields(short, None, _AllOff())  # create: the shortcut may answer
    drop_disabled_pod_spec_fields(long_way, {}, _AllOff())  # an update from an empty spec: every rule runs
    assert short == long_way
    assert _uses_no_gated_field(spec) is (spec in _SPECS[:2])


def test_valid_strings_are_remembered_invalid_ones_checked_each_time():
    assert is_qualified_name("app.kubernetes.io/name") == []
    first = is_qualified_name("app.kubernetes.io/name")
    first.append("changed by a caller")
    assert is_qualified_name("app.kubernetes.io/name") == []  # each call gets a list of its own
    bad = is_qualified_name("-bad-")
    assert bad and is_qualified_name("-bad-") == bad
    assert is_valid_label_value("v1") == [] and is_valid_label_value("v1") == []
    assert is_valid_label_value("-v1") == is_valid_label_value("-v1") != []


def _pod(name: str, cpu: str = "100m", **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}],
                     **spec}}


def test_a_quantity_seen_valid_does_not_hide_a_negative_one():
    c = start_api_server().client("kubectl")
    c.create("pods", _pod("a", "100m"))
    for name in ("b", "c"):  # refused each time
        with pytest.raises(ApiError, match=r"spec.containers\[0\].resources.requests\[cpu\]: Invalid value: "
                                           r'"-100m": must be greater than or equal to 0'):
            c.create("pods", _pod(name, "-100m"))
    with pytest.raises(ApiError, match='invalid quantity "lots"'):
        c.create("pods", _pod("d", "lots"))


class _Recorder(Plugin):
    name = "Recorder"
    operations = frozenset({CREATE})

    def __init__(self):
        self.seen = []

    def admit(self, attrs, obj, old, reader):
        self.seen.append(obj["metadata"]["name"])


def test_admission_chain_runs_plugins_added_after_its_first_request():
    chain = AdmissionChain([])
    attrs = Attributes(UserInfo("u"), "create", resource_for("pods"), namespace="default")
    chain.admit(attrs, {"metadata": {"name": "first"}}, None, None)
    rec = _Recorder()
    chain.plugins.append(rec)
    chain.admit(attrs, {"metadata": {"name": "second"}}, None, None)
    chain.plugins.remove(rec)
    chain.admit(attrs, {"metadata": {"name": "third"}}, None, None)
    assert rec.seen == ["second"]


def test_priority_classes_created_between_pods_are_seen():
    c = start_api_server().client("kubectl")
    assert c.create("pods", _pod("before"))["spec"]["priority"] == 0
    with pytest.raises(ApiError, match="no PriorityClass with name late was found"):
        c.create("pods", _pod("named", priorityClassName="late"))
    c.create("priorityclasses", {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                 "metadata": {"name": "late"}, "value": 7, "globalDefault": True})
    assert c.create("pods", _pod("named", priorityClassName="late"))["spec"]["priority"] == 7
    after = c.create("pods", _pod("after"))["spec"]
    assert (after["priority"], after["priorityClassName"]) == (7, "late")
    late = c.get("priorityclasses", "late")
    late["value"] = 8  # PriorityClass value is immutable: refused, and the table is unchanged
    with pytest.raises(ApiError):
        c.update("priorityclasses", late)
    c.delete("priorityclasses", "late")
    assert c.create("pods", _pod("gone"))["spec"]["priority"] == 0


def test_owned_create_takes_the_body_and_returns_the_stored_object():
    server = start_api_server()
    client = server.client("kubectl", ADMIN)
    attrs = lambda: client._attrs("create", "configmaps", "default")  # noqa: E731
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}}
    kept = copy.deepcopy(body)
    copied = server.create(attrs(), body)
    assert body == kept and copied is not server.store.get(resource_for("configmaps"), "default", "a")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}, "data": {"k": "v"}}
    stored = server.create(attrs(), body, owned=True)
    assert stored is server.store.get(resource_for("configmaps"), "default", "b")
    assert stored == dict(copied, metadata=dict(copied["metadata"], name="b", uid=stored["metadata"]["uid"],
                                                   resourceVersion=stored["metadata"]["resourceVersion"]))


_INPUT = """
apiVersion: v1
kind: Namespace
metadata: {name: web}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: web}
spec: {limits: [{type: Container, defaultRequest: {cpu: 250m}, default: {cpu: 500m}}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: web, labels: {app: web}}
spec:
  priorityClassName: high
  containers: [{name: c, image: nginx, resources: {requests: {memory: 1Gi}}}]
  tolerations: [{key: dedicated, operator: Exists}]
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default, uid: 6a3c2a9e-0000-4000-8000-000000000001}
spec: {nodeName: n1, containers: [{name: c, image: nginx}]}
status: {phase: Running, startTime: "2025-01-01T00:00:00Z"}
"""


def test_load_through_api_server_stores_what_copied_creates_store():
    m = load_manifests(_INPUT, defaults=False)
    loaded = [o.obj.to_dict() for o in load_through_api_server(m, seed=4) if not isinstance(o.obj, dict)]
    server = start_api_server(seed=4)
    with using_epoch(server.epoch):
        created = create_objects(server, server.client("kubectl", ADMIN), objects_with_locations(m))
    by_loc = {id(loc): d for d, loc in created}
    expected = [type(o.obj).from_dict(by_loc[id(o)]).to_dict() for o in m if not isinstance(o.obj, dict)]
    assert len(loaded) == 7 and loaded == expected


def test_uids_are_the_uuid_modules_version_4_text():
    server = APIServer(seed=9)
    bits = random.Random(5)
    want = [str(uuid.UUID(int=bits.getrandbits(128), version=4)) for _ in range(200)]
    rng = random.Random(5)
    assert [server.new_uid(rng) for _ in range(200)] == want
