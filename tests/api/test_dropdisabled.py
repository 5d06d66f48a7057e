"""``dropDisabled...Fields``: the fields of v1.34's disabled gates are dropped on create, kept on update when in use."""

from __future__ import annotations

import copy

import pytest

from kubenotes.api.dropdisabled import drop_disabled_fields
from kubenotes.features import FeatureGate


def pod(**spec) -> dict:
    base = {"containers": [{"name": "a", "image": "x"}]}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": base}


def container(**fields) -> dict:
    return {"name": "a", "image": "x", **fields}


@pytest.mark.parametrize(("gate", "spec", "dropped"), [
    ("EnvFiles", {"containers": [container(env=[{"name": "K", "valueFrom": {"fileKeyRef": {
        "volumeName": "v", "path": "a.env", "key": "K"}}}])]},
     {"containers": [container(env=[{"name": "K", "valueFrom": {}}])]}),
    ("ImageVolume", {"containers": [container(volumeMounts=[{"name": "i", "mountPath": "/i"},
                                                            {"name": "e", "mountPath": "/e"}])],
                     "volumes": [{"name": "i", "image": {"reference": "r"}}, {"name": "e", "emptyDir": {}}]},
     {"containers": [container(volumeMounts=[{"name": "e", "mountPath": "/e"}])],
      "volumes": [{"name": "e", "emptyDir": {}}]}),
    ("ContainerStopSignals", {"containers": [container(lifecycle={"stopSignal": "SIGUSR1",
                                                                 "preStop": {"sleep": {"seconds": 1}}})]},
     {"containers": [container(lifecycle={"preStop": {"sleep": {"seconds": 1}}})]}),
    ("ContainerRestartRules", {"containers": [container(restartPolicy="Never", restartPolicyRules=[
        {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}])],
        "initContainers": [container(name="s", restartPolicy="Always")]},
     {"containers": [container()], "initContainers": [container(name="s", restartPolicy="Always")]}),
    ("HostnameOverride", {"hostnameOverride": "h"}, {}),
    ("ClusterTrustBundleProjection", {"volumes": [{"name": "p", "projected": {"sources": [
        {"clusterTrustBundle": {"name": "b", "path": "b.pem"}}, {"configMap": {"name": "c"}}]}}]},
     {"volumes": [{"name": "p", "projected": {"sources": [{}, {"configMap": {"name": "c"}}]}}]}),
])
def test_fields_of_gates_off_in_v1_34_are_dropped_on_create(gate, spec, dropped):
    obj = pod(**spec)
    drop_disabled_fields("Pod", obj)
    assert obj["spec"] == pod(**dropped)["spec"]
    kept = pod(**spec)
    drop_disabled_fields("Pod", kept, gates=FeatureGate({gate: True}))
    assert kept["spec"] == pod(**spec)["spec"]


@pytest.mark.parametrize(("gate", "spec", "dropped"), [
    ("PodLevelResources", {"resources": {"requests": {"cpu": "1"}}}, {}),
    ("InPlacePodVerticalScaling", {"containers": [container(resizePolicy=[
        {"resourceName": "cpu", "restartPolicy": "NotRequired"}])]}, {"containers": [container()]}),
    ("UserNamespacesSupport", {"securityContext": {"hostUsers": False, "runAsUser": 1}},
     {"securityContext": {"runAsUser": 1}}),
    ("ProcMountType", {"containers": [container(securityContext={"procMount": "Unmasked"})]},
     {"containers": [container(securityContext={"procMount": "Default"})]}),
    ("MatchLabelKeysInPodTopologySpread", {"topologySpreadConstraints": [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "matchLabelKeys": ["app"]}]},
     {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}),
    ("DynamicResourceAllocation", {"containers": [container(resources={"claims": [{"name": "gpu"}]})],
                                   "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}]},
     {"containers": [container(resources={})]}),
])
def test_fields_of_gates_on_in_v1_34_are_kept_unless_turned_off(gate, spec, dropped):
    obj = pod(**spec)
    drop_disabled_fields("Pod", obj)
    assert obj["spec"] == pod(**spec)["spec"]
    off = pod(**spec)
    drop_disabled_fields("Pod", off, gates={gate: False})
    assert off["spec"] == pod(**dropped)["spec"]


def test_in_use_on_the_stored_object_is_kept_on_update():
    spec = {"hostnameOverride": "h", "volumes": [{"name": "i", "image": {"reference": "r"}}]}
    old = pod(**spec)
    new = copy.deepcopy(old)
    drop_disabled_fields("Pod", new, old)
    assert new == old


def test_pod_templates_and_other_kinds():
    dep = {"kind": "Deployment", "spec": {"template": {"spec": {"hostnameOverride": "h", "containers": []}}}}
    drop_disabled_fields("Deployment", dep)
    assert dep["spec"]["template"]["spec"] == {"containers": []}
    cj = {"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"hostnameOverride": "h"}}}}}}
    drop_disabled_fields("CronJob", cj)
    assert cj["spec"]["jobTemplate"]["spec"]["template"]["spec"] == {}
    sts = {"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0,
                                                                                  "maxUnavailable": 2}}}}
    drop_disabled_fields("StatefulSet", sts)  # MaxUnavailableStatefulSet: alpha in v1.34
    assert sts["spec"]["updateStrategy"]["rollingUpdate"] == {"partition": 0}
    hpa = {"spec": {"behavior": {"scaleUp": {"tolerance": "0.05", "policies": []}}}}
    drop_disabled_fields("HorizontalPodAutoscaler", hpa)  # HPAConfigurableTolerance: alpha in v1.34
    assert hpa["spec"]["behavior"]["scaleUp"] == {"policies": []}
    job = {"spec": {"managedBy": "kueue.x-k8s.io/multikueue", "template": {"spec": {}}}}
    drop_disabled_fields("Job", job)  # JobManagedBy: beta and on
    assert job["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue"
    pvc = {"spec": {"dataSourceRef": {"kind": "VolumeSnapshot", "name": "s", "namespace": "other"}}}
    drop_disabled_fields("PersistentVolumeClaim", pvc)  # CrossNamespaceVolumeDataSource: alpha
    assert pvc["spec"]["dataSourceRef"] == {"kind": "VolumeSnapshot", "name": "s"}


def test_malformed_input_is_left_for_validation():
    for spec in ({"containers": "nope"}, {"volumes": 3, "topologySpreadConstraints": "x"}, "text"):
        obj = {"spec": spec}
        drop_disabled_fields("Pod", obj)
        assert obj == {"spec": spec}
