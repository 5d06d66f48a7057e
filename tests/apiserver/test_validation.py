"""Object validation (422 Invalid) with upstream's field error texts.

Cases are ported from upstream's tests:

* staging/src/k8s.io/apimachinery/pkg/util/validation/validation_test.go: TestIsDNS1123Label,
  TestIsDNS1123Subdomain, TestIsDNS1035Label (valid and invalid names);
* staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta_test.go: TestValidateObjectMetaNamespaces,
  TestValidateObjectMetaOwnerReferences, TestValidateFinalizersUpdate,
  TestValidateFinalizersPreventConflictingFinalizers, TestValidateAnnotations (invalid keys, total size);
* pkg/apis/core/validation/validation_test.go: TestValidatePodCreate-style names (UPPER_case),
  TestValidateContainers (duplicate and invalid names, missing image), TestValidateRestartPolicy,
  TestValidateTolerations, TestValidatePodUpdate (image, activeDeadlineSeconds and toleration rules, the
  Forbidden text), TestValidateService (names, ports, types), TestValidateNamespace, TestValidateNodeUpdate
  (podCIDRs), TestValidateResourceQuota, TestValidateLimitRange, TestValidateConfigMap keys;
* pkg/apis/apps/validation/validation_test.go: TestValidateDeployment (selector/labels mismatch, maxSurge and
  maxUnavailable both 0, percent over 100%, invalid percent), TestValidateReplicaSet, TestValidateDaemonSet
  (rolling update rules), TestValidateStatefulSetUpdate (forbidden fields), selector immutability;
* pkg/apis/batch/validation/validation_test.go: TestValidateJob (restartPolicy, negative parallelism,
  Indexed completions), TestValidateCronJob (name length, schedule);
* pkg/apis/policy/validation/validation_test.go: TestValidateMinAvailablePodDisruptionBudgetSpec,
  TestValidatePodDisruptionBudgetSpec (both set).
"""

from __future__ import annotations

import copy

import pytest

from kubenotes.apiserver import validation
from kubenotes.apiserver.admission import default_admission_chain
from kubenotes.apiserver.resources import resource_for
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.validation import validate_create, validate_update

SUBDOMAIN_ERR = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL_ERR = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
             "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
DNS1035_ERR = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
               "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
               "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


@pytest.fixture
def api():
    a = APIServer(seed=0)
    a.admission = default_admission_chain(0)
    a.validator = validation
    a.client("kubectl").create("namespaces", {"metadata": {"name": "default"}})
    return a


@pytest.fixture
def c(api):
    return api.client("kubectl")


def _pod(name="web", **spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}], **spec}}


def _msgs(kind, obj, old=None):
    ri = resource_for(kind)
    obj = copy.deepcopy(obj)
    md = obj.setdefault("metadata", {})
    if ri.namespaced:
        md.setdefault("namespace", "default")
    causes = validate_create(ri, obj) if old is None else validate_update(ri, obj, old)
    return [x["message"] for x in causes]


def _deploy(selector=None, labels=None, **spec):
    return {"metadata": {"name": "web"}, "spec": {
        "replicas": 1, "selector": {"matchLabels": {"app": "web"}} if selector is None else selector,
        "template": {"metadata": {"labels": {"app": "web"} if labels is None else labels},
                     "spec": {"containers": [{"name": "c", "image": "nginx"}]}}, **spec}}


# ---------------------------------------------------------------------------------------------- names

def test_upper_case_pod_name_is_422_with_upstream_text_and_nothing_is_stored(api, c):
    rev = api.store.revision
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("UPPER_case"), "default")
    err = e.value
    assert (err.code, err.reason) == (422, "Invalid")
    assert str(err) == f'Pod "UPPER_case" is invalid: metadata.name: Invalid value: "UPPER_case": {SUBDOMAIN_ERR}'
    assert err.causes == [{"reason": "FieldValueInvalid", "field": "metadata.name",
                           "message": f'Invalid value: "UPPER_case": {SUBDOMAIN_ERR}'}]  # the body (NewInvalid)
    assert err.status["details"]["kind"] == "Pod" and err.status["details"]["name"] == "UPPER_case"
    assert api.store.revision == rev and c.list("pods", "default")["items"] == []


@pytest.mark.parametrize("name", ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a",
                                  "a.a", "ab.a", "a.b.c", "a" * 63, "x" * 253])
def test_valid_pod_names(name):
    assert _msgs("pods", _pod(name)) == []


@pytest.mark.parametrize("name", ["", "A", "ABC", "aBc", "A1", "a_b", "a@b", "a,b", "-1", "1-", ".a", "a.", "a..b",
                                  "a_b.c", "x" * 254])
def test_invalid_pod_names(name):
    msgs = _msgs("pods", _pod(name))
    if name == "":
        assert msgs == ["metadata.name: Required value: name or generateName is required"]
    elif len(name) > 253:
        assert msgs == [f'metadata.name: Invalid value: "{name}": must be no more than 253 characters']
    else:
        assert msgs == [f'metadata.name: Invalid value: "{name}": {SUBDOMAIN_ERR}']


def test_namespace_names_are_dns_labels(c):
    assert _msgs("namespaces", {"metadata": {"name": "abc-123"}}) == []
    assert _msgs("namespaces", {"metadata": {"name": "foo.bar"}}) == [
        'metadata.name: Invalid value: "foo.bar": must not contain dots']
    with pytest.raises(ApiError) as e:
        c.create("namespaces", {"metadata": {"name": "Team_A"}})
    assert str(e.value) == f'Namespace "Team_A" is invalid: metadata.name: Invalid value: "Team_A": {LABEL_ERR}'


def test_service_names_are_dns1035_labels():
    svc = {"metadata": {"name": "1-web"}, "spec": {"ports": [{"port": 80}]}}
    assert _msgs("services", svc) == [f'metadata.name: Invalid value: "1-web": {DNS1035_ERR}']


def test_generate_name_prefix_may_end_with_a_dash(c):
    p = c.create("pods", {"metadata": {"generateName": "web-"}, "spec": _pod()["spec"]}, "default")
    assert p["metadata"]["name"].startswith("web-")
    msgs = _msgs("pods", {"metadata": {"generateName": "Web-", "name": "web-abcde"}, "spec": _pod()["spec"]})
    assert msgs == [f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN_ERR}']


def test_rbac_names_are_path_segments():
    assert _msgs("clusterroles", {"metadata": {"name": "system:controller:x"}, "rules": []}) == []
    assert _msgs("clusterroles", {"metadata": {"name": "a/b"}}) == [
        "metadata.name: Invalid value: \"a/b\": may not contain '/'"]


# ---------------------------------------------------------------------------------------------- metadata

def test_namespace_forbidden_on_cluster_scoped_and_required_on_namespaced():
    ri = resource_for("nodes")
    assert [x["message"] for x in validate_create(ri, {"metadata": {"name": "n", "namespace": "x"}})] == [
        "metadata.namespace: Forbidden: not allowed on this type"]
    ri = resource_for("configmaps")
    assert [x["message"] for x in validate_create(ri, {"metadata": {"name": "cm"}})] == [
        "metadata.namespace: Required value"]


def test_labels_and_annotations():
    msgs = _msgs("configmaps", {"metadata": {"name": "cm", "labels": {"app": "-bad-", "a/b/c": "x"},
                                             "annotations": {"nospecialchars^=@": "v"}}})
    assert msgs[0].startswith('metadata.labels: Invalid value: "-bad-": a valid label must be an empty string')
    assert msgs[1].startswith('metadata.labels: Invalid value: "a/b/c": a qualified name must consist of')
    assert msgs[2].startswith('metadata.annotations: Invalid value: "nospecialchars^=@": name part must consist of')
    big = {"metadata": {"name": "cm", "annotations": {"a": "x" * (256 * 1024)}}}
    assert _msgs("configmaps", big) == ["metadata.annotations: Too long: may not be more than 262144 bytes"]


def test_owner_references():
    refs = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "1", "controller": True},
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "2", "controller": True},
            {"apiVersion": "", "kind": "", "name": "c", "uid": "3"}]
    msgs = _msgs("pods", {"metadata": {"name": "p", "ownerReferences": refs}, "spec": _pod()["spec"]})
    assert msgs[0].startswith('metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet",'
                              '"name":"a","uid":"1","controller":true},')
    assert msgs[0].endswith('Only one reference can have Controller set to true. Found "true" in references for '
                            'ReplicaSet/a and ReplicaSet/b')
    assert msgs[1:] == ['metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
                        'metadata.ownerReferences.kind: Invalid value: "": must not be empty']


def test_finalizers():
    msgs = _msgs("configmaps", {"metadata": {"name": "cm", "finalizers": ["orphan", "foregroundDeletion"]}})
    assert msgs == ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and '
                    'foregroundDeletion cannot be both set']
    assert _msgs("configmaps", {"metadata": {"name": "cm", "finalizers": ["custom"]}}) == [
        'metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully '
        'qualified']
    old = {"metadata": {"name": "cm", "namespace": "default", "deletionTimestamp": "2025-08-27T00:00:00Z",
                        "finalizers": ["a.io/x"]}}
    new = copy.deepcopy(old)
    new["metadata"]["finalizers"] = ["a.io/x", "b.io/y"]
    assert _msgs("configmaps", new, old) == [
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new '
        'finalizers []string{"b.io/y"}']


# ---------------------------------------------------------------------------------------------- pods

def test_containers_required_unique_named_and_with_images():
    assert _msgs("pods", {"metadata": {"name": "p"}, "spec": {"containers": []}}) == ["spec.containers: Required value"]
    spec = {"containers": [{"name": "app", "image": "x"}, {"name": "app", "image": ""}, {"name": "Bad_Name",
                                                                                        "image": "y"}]}
    assert _msgs("pods", {"metadata": {"name": "p"}, "spec": spec}) == [
        'spec.containers[1].name: Duplicate value: "app"',
        "spec.containers[1].image: Required value",
        f'spec.containers[2].name: Invalid value: "Bad_Name": {LABEL_ERR}']
    spec = {"initContainers": [{"name": "app", "image": "x"}], "containers": [{"name": "app", "image": "x"}]}
    assert _msgs("pods", {"metadata": {"name": "p"}, "spec": spec}) == [
        'spec.containers[0].name: Duplicate value: "app"']


def test_restart_policy_and_other_enums(c):
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod(restartPolicy="Sometimes"), "default")
    assert str(e.value) == ('Pod "web" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported '
                            'values: "Always", "OnFailure", "Never"')
    assert _msgs("pods", _pod(dnsPolicy="Cluster")) == [
        'spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", '
        '"Default", "None"']
    assert _msgs("pods", _pod(activeDeadlineSeconds=0)) == [
        "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"]


def test_requests_above_limits_use_the_shared_rule(c):
    spec = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "2"},
                                                                     "limits": {"cpu": "1"}}}]}
    with pytest.raises(ApiError) as e:
        c.create("pods", {"metadata": {"name": "p"}, "spec": spec}, "default")
    assert str(e.value) == ('Pod "p" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "2": '
                            'must be less than or equal to cpu limit of 1')
    spec["containers"][0]["resources"] = {"limits": {"memory": "-1"}}
    assert _msgs("pods", {"metadata": {"name": "p"}, "spec": spec}) == [
        'spec.containers[0].resources.limits[memory]: Invalid value: "-1": must be greater than or equal to 0']


def test_ports_and_volume_mounts():
    spec = {"containers": [{"name": "c", "image": "x", "ports": [{"containerPort": 70000}, {"name": "HTTP",
                                                                                          "containerPort": 80}],
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}
    assert _msgs("pods", {"metadata": {"name": "p"}, "spec": spec}) == [
        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
        'spec.containers[0].ports[1].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, '
        '0-9), and hyphens (-)',
        'spec.containers[0].ports[1].name: Invalid value: "HTTP": must contain at least one letter (a-z)',
        'spec.containers[0].volumeMounts[0].name: Not found: "data"']


def test_tolerations():
    tol = [{"key": "", "operator": "Equal", "value": "x"},
           {"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 10},
           {"key": "k", "operator": "Less"}]
    assert _msgs("pods", _pod(tolerations=tol)) == [
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which '
        'means "match all values and all keys"',
        "spec.tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
        "`tolerationSeconds` is set",
        'spec.tolerations[2].operator: Unsupported value: "Less": supported values: "Equal", "Exists"']


def test_pod_update_may_change_only_images_deadline_and_add_tolerations(c):
    pod = c.create("pods", _pod(), "default")
    pod["spec"]["containers"][0]["image"] = "nginx:1.28"
    pod["spec"]["activeDeadlineSeconds"] = 600
    pod["spec"]["tolerations"].append({"key": "gpu", "operator": "Exists", "effect": "NoSchedule"})
    out = c.update("pods", pod)
    assert out["spec"]["containers"][0]["image"] == "nginx:1.28" and out["metadata"]["generation"] == 2

    bad = copy.deepcopy(out)
    bad["spec"]["restartPolicy"] = "Never"
    rev = c.server.store.revision
    with pytest.raises(ApiError) as e:
        c.update("pods", bad)
    msg = str(e.value)
    assert msg.startswith('Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than '
                          "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
                          "`spec.tolerations` (only additions to existing tolerations),"
                          "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "
                          "negative)\n")
    assert '- \trestartPolicy: "Always",' in msg and '+ \trestartPolicy: "Never",' in msg
    assert e.value.causes[0]["reason"] == "FieldValueForbidden" and c.server.store.revision == rev

    bad = copy.deepcopy(out)
    bad["spec"]["containers"].append({"name": "sidecar", "image": "x"})
    with pytest.raises(ApiError) as e:
        c.update("pods", bad)
    assert str(e.value) == 'Pod "web" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers'

    bad = copy.deepcopy(out)
    bad["spec"]["tolerations"][0]["operator"] = "Equal"
    with pytest.raises(ApiError) as e:
        c.update("pods", bad)
    assert "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds" \
        in str(e.value)

    bad = copy.deepcopy(out)
    bad["spec"]["activeDeadlineSeconds"] = 900
    with pytest.raises(ApiError) as e:
        c.update("pods", bad)
    assert str(e.value) == ('Pod "web" is invalid: spec.activeDeadlineSeconds: Invalid value: 900: must be less than '
                            'or equal to previous value')
    bad["spec"].pop("activeDeadlineSeconds")
    with pytest.raises(ApiError) as e:
        c.update("pods", bad)
    assert "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value" \
        in str(e.value)


def test_binding_and_status_updates_are_not_pod_spec_updates(c):
    c.create("pods", _pod(), "default")
    c.bind("default", "web", "node-1")
    pod = c.get("pods", "web", "default")
    pod["status"]["phase"] = "Running"
    c.update_status("pods", pod)
    pod = c.get("pods", "web", "default")
    pod["metadata"]["labels"] = {"app": "web"}
    c.update("pods", pod)
    assert c.get("pods", "web", "default")["spec"]["nodeName"] == "node-1"


# ---------------------------------------------------------------------------------------------- workloads

def test_deployment_selector_must_match_template_labels(c):
    with pytest.raises(ApiError) as e:
        c.create("deployments", _deploy(labels={"app": "api"}), "default")
    assert str(e.value) == ('Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
                            '{"app":"api"}: `selector` does not match template `labels`')
    assert _msgs("deployments", _deploy(selector={})) == [
        "spec.selector: Invalid value: {}: empty selector is invalid for deployment"]
    d = _deploy()
    del d["spec"]["selector"]
    assert _msgs("deployments", d) == ["spec.selector: Required value",
                                       'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does '
                                       'not match template `labels`']


def test_deployment_replicas_strategy_and_template(c):
    assert _msgs("deployments", _deploy(replicas=-1)) == [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0"]
    both_zero = _deploy(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}})
    with pytest.raises(ApiError) as e:
        c.create("deployments", both_zero, "default")
    assert str(e.value) == ('Deployment.apps "web" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid '
                            'value: 0: may not be 0 when `maxSurge` is 0')
    pct = _deploy(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "20Percent",
                                                                         "maxUnavailable": "110%"}})
    assert _msgs("deployments", pct) == [
        "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"20Percent\": a valid percent string must be a numeric "
        "string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%']
    never = _deploy()
    never["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    assert _msgs("deployments", never) == [
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']
    noimage = _deploy()
    noimage["spec"]["template"]["spec"]["containers"][0]["image"] = ""
    assert _msgs("deployments", noimage) == ["spec.template.spec.containers[0].image: Required value"]


def test_apps_v1_selector_is_immutable(c):
    c.create("deployments", _deploy(), "default")
    d = c.get("deployments", "web", "default")
    d["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "fe"}}
    d["spec"]["template"]["metadata"]["labels"]["tier"] = "fe"
    with pytest.raises(ApiError) as e:
        c.update("deployments", d)
    assert str(e.value) == ('Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":'
                            '"web","tier":"fe"}}: field is immutable')
    d = c.get("deployments", "web", "default")
    d["spec"]["replicas"] = 5
    assert c.update("deployments", d)["spec"]["replicas"] == 5


def test_replicaset_and_replication_controller(c):
    rs = _deploy(labels={"app": "other"})
    assert _msgs("replicasets", rs) == [
        'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`']
    rc = {"metadata": {"name": "rc"}, "spec": {"replicas": 1, "selector": {"app": "a"}, "template": {
        "metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    assert _msgs("replicationcontrollers", rc) == [
        'spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`']


def test_daemonset_rolling_update_rules():
    ds = _deploy()
    del ds["spec"]["replicas"]
    ds["spec"]["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}}
    assert _msgs("daemonsets", ds) == [
        "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"]
    ds["spec"]["updateStrategy"]["rollingUpdate"] = {"maxUnavailable": 0, "maxSurge": 0}
    assert _msgs("daemonsets", ds) == [
        "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"]


def test_statefulset_update_may_change_only_its_updatable_fields():
    sts = _deploy(serviceName="web", podManagementPolicy="OrderedReady",
                  updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    sts["metadata"]["namespace"] = "default"
    assert _msgs("statefulsets", sts) == []
    new = copy.deepcopy(sts)
    new["spec"]["replicas"] = 3
    assert _msgs("statefulsets", new, sts) == []
    new["spec"]["podManagementPolicy"] = "Parallel"
    assert _msgs("statefulsets", new, sts) == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]


def _job(restart="Never", **spec):
    return {"metadata": {"name": "pi"}, "spec": {"template": {"spec": {
        "restartPolicy": restart, "containers": [{"name": "pi", "image": "perl"}]}}, **spec}}


def test_job_restart_policy_and_counts(c):
    with pytest.raises(ApiError) as e:
        c.create("jobs", _job("Always"), "default")
    assert str(e.value) == ('Job.batch "pi" is invalid: spec.template.spec.restartPolicy: Required value: valid '
                            'values: "OnFailure", "Never"')
    assert _msgs("jobs", _job(parallelism=-1, completions=-2)) == [
        "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        "spec.completions: Invalid value: -2: must be greater than or equal to 0"]
    assert _msgs("jobs", _job(completionMode="Indexed")) == [
        "spec.completions: Required value: when completion mode is Indexed"]
    c.create("jobs", _job("OnFailure"), "default")


def test_cronjob_name_and_schedule():
    cj = {"metadata": {"name": "x" * 53}, "spec": {"jobTemplate": {"spec": _job()["spec"]}}}
    assert _msgs("cronjobs", cj) == [f'metadata.name: Invalid value: "{"x" * 53}": must be no more than 52 characters',
                                     "spec.schedule: Required value"]


# ---------------------------------------------------------------------------------------------- other kinds

def test_service_ports_and_type(c):
    svc = {"metadata": {"name": "web"}, "spec": {"type": "Internal", "ports": [{"port": 80}, {"name": "b",
                                                                                            "port": 0}]}}
    assert _msgs("services", svc) == [
        "spec.ports[0].name: Required value",
        "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", '
        '"NodePort"']
    assert _msgs("services", {"metadata": {"name": "web"}, "spec": {}}) == ["spec.ports: Required value"]
    assert _msgs("services", {"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80, "nodePort": 30080}]}}) == [
        "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]
    c.create("services", {"metadata": {"name": "ok"}, "spec": {"ports": [{"port": 80, "targetPort": "http"}]}},
             "default")


def test_node_taints_and_pod_cidrs():
    node = {"metadata": {"name": "n1"}, "spec": {"taints": [{"key": "a", "effect": "NoSchedule"},
                                                            {"key": "a", "effect": "NoSchedule"},
                                                            {"key": "b", "effect": "Sometimes"}]}}
    assert _msgs("nodes", node) == [
        'spec.taints[1]: Duplicate value: {"Key":"a","Value":"","Effect":"NoSchedule","TimeAdded":null}: taints must '
        'be unique by key and effect pair',
        'spec.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", '
        '"NoExecute"']
    old = {"metadata": {"name": "n1"}, "spec": {"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.1.0/24"]}}
    new = {"metadata": {"name": "n1"}, "spec": {"podCIDR": "10.0.2.0/24", "podCIDRs": ["10.0.2.0/24"]}}
    assert _msgs("nodes", new, old) == [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']
    assert _msgs("nodes", old, {"metadata": {"name": "n1"}, "spec": {}}) == []


def test_resource_quota_and_limit_range():
    rq = {"metadata": {"name": "q"}, "spec": {"hard": {"pods": "1500m", "cpu": "-1", "nvidia": "1"}}}
    assert _msgs("resourcequotas", rq) == [
        'spec.hard[pods]: Invalid value: "1500m": must be an integer',
        'spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0',
        'spec.hard[nvidia]: Invalid value: "nvidia": must be a standard resource for quota']
    lr = {"metadata": {"name": "lr"}, "spec": {"limits": [
        {"type": "Container", "min": {"cpu": "1"}, "max": {"cpu": "100m"}},
        {"type": "Pod", "default": {"cpu": "1"}},
        {"type": "Container", "defaultRequest": {"memory": "2Gi"}, "default": {"memory": "1Gi"}},
        {"type": "Pod", "maxLimitRequestRatio": {"cpu": "500m"}}]}}
    assert _msgs("limitranges", lr) == [
        'spec.limits[0].min[cpu]: Invalid value: "1": min value 1 is greater than max value 100m',
        "spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'",
        'spec.limits[2].type: Duplicate value: "Container"',
        'spec.limits[2].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi is greater than '
        'default limit value 1Gi',
        'spec.limits[3].type: Duplicate value: "Pod"',
        'spec.limits[3].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1']


def test_pdb_min_available_and_max_unavailable_are_exclusive(c):
    pdb = {"metadata": {"name": "web"}, "spec": {"minAvailable": 1, "maxUnavailable": "10%",
                                                 "selector": {"matchLabels": {"app": "web"}}}}
    with pytest.raises(ApiError) as e:
        c.create("poddisruptionbudgets", pdb, "default")
    assert str(e.value) == ('PodDisruptionBudget.policy "web" is invalid: spec: Invalid value: {"MinAvailable":1,'
                            '"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":"10%",'
                            '"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set')
    assert _msgs("poddisruptionbudgets", {"metadata": {"name": "w"}, "spec": {"minAvailable": "120%"}}) == [
        'spec.minAvailable: Invalid value: "120%": must not be greater than 100%']


def test_config_map_keys_and_priority_classes():
    assert _msgs("configmaps", {"metadata": {"name": "cm"}, "data": {"a b": "x", "ok.key": "y"}}) == [
        "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or "
        "'.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]
    assert _msgs("priorityclasses", {"metadata": {"name": "system-mine"}, "value": 5}) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: name system-mine is not a known system priority class"]
    assert _msgs("priorityclasses", {"metadata": {"name": "huge"}, "value": 2_000_000_000}) == [
        "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
    old = {"metadata": {"name": "p"}, "value": 1}
    assert _msgs("priorityclasses", {"metadata": {"name": "p"}, "value": 2}, old) == [
        "value: Forbidden: may not be changed in an update."]


def test_several_errors_aggregate_in_the_message(c):
    bad = {"metadata": {"name": "Bad"}, "spec": {"containers": [{"name": "c", "image": ""}]}}
    with pytest.raises(ApiError) as e:
        c.create("pods", bad, "default")
    assert str(e.value) == (f'Pod "Bad" is invalid: [metadata.name: Invalid value: "Bad": {SUBDOMAIN_ERR}, '
                            'spec.containers[0].image: Required value]')
    assert [x["field"] for x in e.value.causes] == ["metadata.name", "spec.containers[0].image"]


# ---------------------------------------------------------------------------------------------- one selector home

_BAD_SELECTOR = {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "Foo"}]}
_BAD_SELECTOR_JSON = '{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"Foo"}]}'
_OP_ERR = 'spec.selector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator'


def _workload(kind_resource, restart="Always"):
    spec = {"selector": _BAD_SELECTOR, "template": {"metadata": {"labels": {"app": "db"}}, "spec": {
        "containers": [{"name": "c", "image": "x"}], "restartPolicy": restart}}}
    return resource_for(kind_resource), {"metadata": {"name": "x", "namespace": "default"}, "spec": spec}


@pytest.mark.parametrize("resource", ["deploy", "rs"])
def test_invalid_selector_is_refused_as_a_whole_and_the_template_is_not_matched(resource):
    # LabelSelectorAsSelector refuses the selector: upstream adds "invalid label selector" and skips the template
    # (the copy this replaced ignored the unknown operator and reported a label mismatch instead)
    msgs = [c["message"] for c in validate_create(*_workload(resource))]
    assert msgs == [_OP_ERR, f"spec.selector: Invalid value: {_BAD_SELECTOR_JSON}: invalid label selector"]


def test_statefulset_invalid_selector_has_an_empty_detail():
    msgs = [c["message"] for c in validate_create(*_workload("sts"))]
    assert msgs == [_OP_ERR, f"spec.selector: Invalid value: {_BAD_SELECTOR_JSON}"]


@pytest.mark.parametrize(("resource", "restart"), [("ds", "Always"), ("jobs", "Never")])
def test_daemonset_and_job_skip_the_label_match_when_the_selector_does_not_compile(resource, restart):
    msgs = [c["message"] for c in validate_create(*_workload(resource, restart))]
    assert msgs == [_OP_ERR]


def test_valid_selector_still_checks_the_template_labels():
    ri, obj = _workload("deploy")
    obj["spec"]["selector"] = {"matchLabels": {"app": "web"},
                               "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]}
    msgs = [c["message"] for c in validate_create(ri, obj)]
    assert msgs == ['spec.template.metadata.labels: Invalid value: {"app":"db"}: `selector` does not match '
                    'template `labels`']


# ---------------------------------------------------------------------------------------------- issue #25 gaps

def _ri(kind, namespaced=True):
    from kubenotes.apiserver.resources import ResourceInfo

    return ResourceInfo("g", "v1", kind.lower() + "s", kind, namespaced, (), (), ("create",), ())


def test_statefulset_names_are_dns_labels_and_csr_names_are_free():
    sts = {"metadata": {"name": "db.v1", "namespace": "default"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
                                                            "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    msgs = [c["message"] for c in validate_create(resource_for("sts"), sts)]
    assert msgs == ['metadata.name: Invalid value: "db.v1": must not contain dots']  # a subdomain, not a label
    assert validation.NAME_VALIDATION_BY_KIND["CertificateSigningRequest"]("Any Name!", False) == []
    assert validate_create(_ri("CertificateSigningRequest", False), {"metadata": {"name": "Any_Name"}}) == []
    # a kind not in the table (every other v1.34 built-in kind) is a DNS-1123 subdomain
    assert [c["message"] for c in validate_create(_ri("IngressClass", False), {"metadata": {"name": "A"}, "spec": {
        "controller": "example.com/ingress"}})] == [
        f'metadata.name: Invalid value: "A": {SUBDOMAIN_ERR}']


def test_pod_level_resources_are_only_cpu_and_memory():
    pod = {"metadata": {"name": "p", "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "image": "x"}],
        "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}, "limits": {"ephemeral-storage": "1Gi"}}}}
    msgs = [c["message"] for c in validate_create(resource_for("pods"), pod)]
    assert msgs == [
        'spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": supported values: '
        '"cpu", "memory"',
        'spec.resources.requests[nvidia.com/gpu]: Unsupported value: "nvidia.com/gpu": supported values: '
        '"cpu", "memory"']


@pytest.mark.parametrize(("ref", "expected"), [
    ({"name": "p", "parameterNotFoundAction": "Deny"}, []),
    ({"name": "p"}, ["spec.paramRef.parameterNotFoundAction: Required value"]),
    ({"name": "p", "parameterNotFoundAction": "Ignore"},
     ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"']),
    ({"parameterNotFoundAction": "Allow"},
     ["spec.paramRef: Required value: one of name or selector must be specified"]),
    ({"name": "p", "selector": {}, "parameterNotFoundAction": "Allow"},
     ["spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
      "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive"]),
])
def test_validating_admission_policy_binding_param_ref(ref, expected):
    obj = {"metadata": {"name": "b"}, "spec": {"policyName": "pol", "paramRef": ref,
                                               "validationActions": ["Deny"]}}
    assert [c["message"] for c in validate_create(_ri("ValidatingAdmissionPolicyBinding", False), obj)] == expected


def test_secret_data_that_is_not_base64_is_a_decode_error(api, c):
    rev = api.store.revision
    with pytest.raises(ApiError) as e:
        c.create("secrets", {"metadata": {"name": "s"}, "data": {"password": "hunter2"}}, "default")
    assert (e.value.code, str(e.value)) == (400, 'Secret in version "v1" cannot be handled as a Secret: illegal '
                                                 'base64 data at input byte 4')
    assert api.store.revision == rev
    c.create("secrets", {"metadata": {"name": "s"}, "data": {"password": "aHVudGVyMg=="},
                         "stringData": {"user": "not base64!"}}, "default")
    with pytest.raises(ApiError) as e:
        c.create("configmaps", {"metadata": {"name": "m"}, "binaryData": {"b": "YQ="}}, "default")
    assert str(e.value).endswith("cannot be handled as a ConfigMap: illegal base64 data at input byte 3")


@pytest.mark.parametrize(("spec", "message"), [
    ({"ipFamilies": ["IPv6"]}, 'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster'),
    ({"ipFamilyPolicy": "RequireDualStack"},
     'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services'),
    ({"clusterIP": "fd00::10"},
     'spec.clusterIPs[0]: Invalid value: []string{"fd00::10"}: IPv6 is not configured on this cluster'),
    ({"ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4", "IPv6"]},
     'spec.ipFamilyPolicy: Invalid value: "SingleStack": must be RequireDualStack or PreferDualStack when multiple '
     'IP families are specified'),
])
def test_service_ip_families_must_be_the_clusters(api, c, spec, message):
    rev = api.store.revision
    with pytest.raises(ApiError) as e:
        c.create("services", {"metadata": {"name": "v6"}, "spec": {"ports": [{"port": 80}], **spec}}, "default")
    assert (e.value.code, str(e.value)) == (422, f'Service "v6" is invalid: {message}')
    assert api.store.revision == rev  # refused, not given an IPv4 clusterIP


def test_ipv4_and_prefer_dual_stack_services_get_an_ipv4_cluster_ip(c):
    for name, spec in (("v4", {"ipFamilies": ["IPv4"]}), ("pref", {"ipFamilyPolicy": "PreferDualStack"})):
        svc = c.create("services", {"metadata": {"name": name}, "spec": {"ports": [{"port": 80}], **spec}}, "default")
        assert svc["spec"]["ipFamilies"] == ["IPv4"] and "." in svc["spec"]["clusterIP"]


def test_daemonset_template_is_validated_as_a_pod_template():
    ds = {"metadata": {"name": "agent", "namespace": "default"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {
            "activeDeadlineSeconds": 5,
            "containers": [{"name": "c", "image": "x", "volumeMounts": [{"name": "logs", "mountPath": "/l"}]}]}}}}
    msgs = [c["message"] for c in validate_create(resource_for("ds"), ds)]
    assert msgs == ['spec.template.spec.containers[0].volumeMounts[0].name: Not found: "logs"',
                    "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not "
                    "Supported"]


# ------------------------------------------------------------------- env and envFrom (TestValidateEnv, TestValidateEnvFrom)

ENV_FIELD_PATHS = ('"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", '
                   '"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"')


def _env_msgs(env=None, env_from=None):
    c = {"name": "c", "image": "x"}
    if env is not None:
        c["env"] = env
    if env_from is not None:
        c["envFrom"] = env_from
    return [m.removeprefix("spec.containers[0].") for m in _msgs("pods", {"metadata": {"name": "p"},
                                                                           "spec": {"containers": [c]}})]


@pytest.mark.parametrize("env", [
    [{"name": "abc", "value": "value"}],
    [{"name": "ABC", "value": "value"}],
    [{"name": "AbC_123", "value": "value"}],
    [{"name": "abc", "value": ""}],
    [{"name": "a.b.c", "value": "value"}],
    [{"name": "a-b-c", "value": "value"}],
    [{"name": "1abc", "value": "value"}],  # allowed since the relaxed rule (GA in v1.34)
    [{"name": "abc def!", "value": "value"}],
    [{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.annotations['key']"}}}],
    [{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels['key']"}}}],
    [{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIPs"}}}],
    [{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.host"}}}],
    [{"name": "abc", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}}],
    [{"name": "abc", "valueFrom": {"resourceFieldRef": {"resource": "requests.hugepages-2Mi"}}}],
    [{"name": "abc", "valueFrom": {"configMapKeyRef": {"name": "some-config-map", "key": "some-key"}}}],
    [{"name": "abc", "valueFrom": {"secretKeyRef": {"name": "some-secret", "key": "secret-key"}}}],
])
def test_valid_env(env):
    assert _env_msgs(env) == []


@pytest.mark.parametrize("env, expected", [
    ([{"name": ""}], "env[0].name: Required value"),
    ([{"name": "a=b"}], 'env[0].name: Invalid value: "a=b": a valid environment variable name must consist only '
                        "of printable ASCII characters other than '='"),
    ([{"name": "abc", "valueFrom": {}}],
     'env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` '
     "or `secretKeyRef`"),
    ([{"name": "abc", "value": "foo", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
     'env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty'),
    ([{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"},
                                    "secretKeyRef": {"name": "a-secret", "key": "a-key"}}}],
     'env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time'),
    ([{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1"}}}],
     "env[0].valueFrom.fieldRef.fieldPath: Required value"),
    ([{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.whoops"}}}],
     'env[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.whoops": error converting fieldPath: '
     "field label not supported: metadata.whoops"),
    ([{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name['key']"}}}],
     'env[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.name[\'key\']": error converting fieldPath: '
     "field label does not support subscript: metadata.name['key']"),
    ([{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}}}],
     f'env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: {ENV_FIELD_PATHS}'),
    ([{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.phase"}}}],
     f'env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: {ENV_FIELD_PATHS}'),
    ([{"name": "abc", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                 "fieldPath": "metadata.labels['Www.k8s.io/test']"}}}],
     'env[0].valueFrom.fieldRef: Invalid value: "Www.k8s.io/test": prefix part a lowercase RFC 1123 subdomain must '
     "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
     "character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    ([{"name": "abc", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "2"}}}],
     'env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor\'s values 1m and 1 are '
     "supported with the cpu resource"),
    ([{"name": "abc", "valueFrom": {"configMapKeyRef": {"name": "some-config-map"}}}],
     "env[0].valueFrom.configMapKeyRef.key: Required value"),
    ([{"name": "abc", "valueFrom": {"secretKeyRef": {"name": "a-secret", "key": "a$b"}}}],
     'env[0].valueFrom.secretKeyRef.key: Invalid value: "a$b": a valid config key must consist of alphanumeric '
     "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
     "'[-._a-zA-Z0-9]+')"),
])
def test_invalid_env_has_upstream_text(env, expected):
    assert _env_msgs(env) == [expected]


def test_env_from_needs_one_source_and_a_valid_prefix():
    assert _env_msgs(env_from=[{"prefix": "a=b", "configMapRef": {"name": "cm"}}]) == [
        'envFrom[0].prefix: Invalid value: "a=b": a valid environment variable name must consist only of printable '
        "ASCII characters other than '='"]
    assert _env_msgs(env_from=[{"prefix": "p_"}]) == [
        'envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`']
    assert _env_msgs(env_from=[{"configMapRef": {"name": "cm"}, "secretRef": {"name": "s"}}]) == [
        'envFrom: Invalid value: "": may not have more than one field specified at a time']
    assert _env_msgs(env_from=[{"secretRef": {"name": ""}}]) == ["envFrom[0].secretRef.name: Required value"]


def test_file_key_ref_dropped_with_the_envfiles_gate_off_leaves_an_empty_value_from(tmp_path, capsys):
    # EnvFiles is alpha in v1.34: the API server drops fileKeyRef, and the valueFrom left has no source.
    from kubenotes.cli import main
    f = tmp_path / "pod.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
                 "    env:\n    - name: A\n      valueFrom:\n        fileKeyRef: {volumeName: v, path: a.env, key: A}\n"
                 "  volumes:\n  - name: v\n    emptyDir: {}\n")
    assert main(["validate", str(f)]) == 2
    assert ('Pod "p" is invalid: spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: '
            "`fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`") in capsys.readouterr().err
    assert main(["validate", "--feature-gates", "EnvFiles=true", str(f)]) == 0
