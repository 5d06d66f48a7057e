"""The default admission chain, driven through the real API server.

Cases are ported from upstream's tests:

* plugin/pkg/admission/limitranger/admission_test.go: TestDefaultContainerResourceRequirements,
  TestMergePodResourceRequirements (annotation texts), TestPodLimitFunc (success and error cases,
  including the restartable-init-container case), TestLimitRangerIgnoresSubresource,
  TestPersistentVolumeClaimLimitFunc;
* plugin/pkg/admission/resourcequota/admission_test.go (now in staging/src/k8s.io/apiserver/pkg/admission/plugin/
  resourcequota): TestAdmissionIgnoresDelete, TestAdmissionIgnoresSubresources, TestAdmitBelowQuotaLimit,
  TestAdmitExceedQuotaLimit, TestAdmitEnforceQuotaConstraints, TestAdmitPodInNamespaceWithoutQuota,
  TestAdmitBelowTerminatingQuotaLimit, TestAdmitBelowBestEffortQuotaLimit, TestAdmissionSetsMissingNamespace-style
  object counts (TestAdmitLimitedResourceNoQuota is not modelled: no LimitedResources config), TestServiceQuota;
* plugin/pkg/admission/defaulttolerationseconds/admission_test.go: TestForgivenessAdmission;
* plugin/pkg/admission/priority/admission_test.go: TestPodAdmission, TestPriorityClassAdmission;
* staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission_test.go:
  TestAdmissionNamespaceDoesNotExist, TestAdmissionNamespaceActive, TestAdmissionNamespaceTerminating,
  TestAdmissionNamespaceDeletion (immortal namespaces);
* plugin/pkg/admission/serviceaccount/admission_test.go: TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens,
  TestDeniesInvalidServiceAccount, TestAutomountsAPIToken, TestRespectsExistingMount, TestAutomountServiceAccount
  (pod and ServiceAccount preferences), TestAddImagePullSecrets, TestRejectsMirrorPodWithServiceAccount,
  TestAllowsReferencedSecret / TestRejectsUnreferencedSecretVolumes (enforce-mountable-secrets).
"""

from __future__ import annotations

import copy

import pytest

from kubenotes.api.quantity import Quantity
from kubenotes.apiserver import validation
from kubenotes.apiserver.admission import (
    AdmissionChain, DefaultTolerationSeconds, LimitRanger, Plugin, ServiceAccount, default_admission_chain)
from kubenotes.apiserver.admission.limitranger import LIMIT_RANGER_ANNOTATION
from kubenotes.apiserver.admission.quota import format_resource_list, pod_usage
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError


@pytest.fixture
def api():
    a = APIServer(seed=0)
    a.admission = default_admission_chain(0)
    a.validator = validation
    c = a.client("kubectl")
    for ns in ("default", "test"):
        c.create("namespaces", {"metadata": {"name": ns}})
    return a


@pytest.fixture
def c(api):
    return api.client("kubectl")


def _rr(cpu_req="", mem_req="", cpu_lim="", mem_lim="", res="memory"):
    req, lim = {}, {}
    if cpu_req:
        req["cpu"] = cpu_req
    if mem_req:
        req[res] = mem_req
    if cpu_lim:
        lim["cpu"] = cpu_lim
    if mem_lim:
        lim[res] = mem_lim
    out = {}
    if req:
        out["requests"] = req
    if lim:
        out["limits"] = lim
    return out


def _pod(name, n=1, resources=None, init=(), **spec):
    """upstream's validPod/validPodInit: ``n`` containers foo-0..foo-(n-1) sharing ``resources``."""
    containers = [{"name": f"foo-{i}", "image": f"foo:V{i}", "resources": copy.deepcopy(resources or {})}
                  for i in range(n)]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": containers, **spec}}
    if init:
        pod["spec"]["initContainers"] = [{"name": f"init-{i}", "image": f"foo:V{i}", "resources": copy.deepcopy(r)}
                                         for i, r in enumerate(init)]
    return pod


def _lr(type_, mn=None, mx=None, default=None, default_request=None, ratio=None, name="abc"):
    item = {"type": type_}
    for k, v in (("min", mn), ("max", mx), ("default", default), ("defaultRequest", default_request),
                 ("maxLimitRequestRatio", ratio)):
        if v:
            item[k] = v
    return {"metadata": {"name": name}, "spec": {"limits": [item]}}


def _valid_lr():
    return {"metadata": {"name": "abc"}, "spec": {"limits": [
        {"type": "Pod", "max": {"cpu": "200m", "memory": "4Gi"}, "min": {"cpu": "50m", "memory": "2Mi"}},
        {"type": "Container", "max": {"cpu": "100m", "memory": "2Gi"}, "min": {"cpu": "25m", "memory": "1Mi"},
         "default": {"cpu": "75m", "memory": "10Mi"}, "defaultRequest": {"cpu": "50m", "memory": "5Mi"}}]}}


# ---------------------------------------------------------------------------------------------- the chain

def test_default_chain_runs_upstream_plugins_in_all_ordered_plugins_order():
    chain = default_admission_chain(3)
    assert chain.names() == ["NamespaceLifecycle", "LimitRanger", "ServiceAccount", "Priority",
                             "DefaultTolerationSeconds", "DefaultStorageClass", "PersistentVolumeClaimResize",
                             "DefaultIngressClass", "MutatingAdmissionPolicy", "MutatingAdmissionWebhook",
                             "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota"]
    ops = {p.name: p.operations for p in chain.plugins}
    assert ops["NamespaceLifecycle"] == {"CREATE", "UPDATE", "DELETE"}
    assert ops["ResourceQuota"] == {"CREATE", "UPDATE"}


def test_server_skips_phases_a_plugin_does_not_override(api, c):
    api.trace_requests()
    c.create("configmaps", {"metadata": {"name": "cm"}}, "default")
    steps = [s["step"] for s in api.request_trace[-1]["steps"]]
    assert "mutating admission: NamespaceLifecycle" in steps
    assert "validating admission: ResourceQuota" in steps
    assert "validating admission: NamespaceLifecycle" not in steps  # Admit only
    assert "mutating admission: ResourceQuota" not in steps  # Validate only
    assert steps.index("mutating admission: DefaultTolerationSeconds") < steps.index("validation") \
        < steps.index("validating admission: LimitRanger")


def test_plugin_base_class_phases_are_no_ops():
    class Only(Plugin):
        name, operations = "Only", frozenset({"CREATE"})

    p = Only()
    assert p.admit(None, {}, None, None) is None and p.validate(None, {}, None, None) is None
    assert AdmissionChain([p]).plugin("Only") is p


# ------------------------------------------------------------------------------------ NamespaceLifecycle

def test_create_in_missing_namespace_is_not_found_and_stores_nothing(api, c):
    rev = api.store.revision
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("web"), "nowhere")
    assert (e.value.code, e.value.reason, str(e.value)) == (404, "NotFound", 'namespaces "nowhere" not found')
    assert api.store.revision == rev


def test_terminating_namespace_refuses_creates_but_allows_updates_and_deletes(api, c):
    c.create("namespaces", {"metadata": {"name": "doomed"}})
    c.create("configmaps", {"metadata": {"name": "keep"}}, "doomed")
    c.delete("namespaces", "doomed")
    assert c.get("namespaces", "doomed")["status"]["phase"] == "Terminating"
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("web"), "doomed")
    assert e.value.code == 403 and e.value.reason == "Forbidden"
    assert str(e.value) == ('pods "web" is forbidden: unable to create new content in namespace doomed because it '
                            'is being terminated')
    assert e.value.causes == [{"reason": "NamespaceTerminating", "message": "namespace doomed is being terminated",
                               "field": "metadata.namespace"}]
    cm = c.get("configmaps", "keep", "doomed")
    cm["data"] = {"k": "v"}
    c.update("configmaps", cm)  # updates are admitted
    c.delete("configmaps", "keep", "doomed")  # and deletes


def test_generate_name_is_named_in_the_terminating_message(c):
    c.create("namespaces", {"metadata": {"name": "doomed"}})
    c.delete("namespaces", "doomed")
    with pytest.raises(ApiError) as e:
        c.create("pods", {"metadata": {"generateName": "web-"}, "spec": _pod("x")["spec"]}, "doomed")
    assert str(e.value).startswith('pods "web-" is forbidden: unable to create new content')


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_immortal_namespaces_cannot_be_deleted(api, c, name):
    if name != "default":
        c.create("namespaces", {"metadata": {"name": name}})
    with pytest.raises(ApiError) as e:
        c.delete("namespaces", name)
    assert (e.value.code, str(e.value)) == (403, f'namespaces "{name}" is forbidden: this namespace may not be deleted')
    assert c.get("namespaces", name)["status"]["phase"] == "Active"


def test_cluster_scoped_objects_ignore_namespaces(c):
    c.create("nodes", {"metadata": {"name": "n1"}})
    c.create("namespaces", {"metadata": {"name": "fresh"}})


# ------------------------------------------------------------------------------------------ LimitRanger

def test_default_container_resource_requirements_and_annotations():
    lr = _valid_lr()
    pod = _pod("empty-resources")
    LimitRanger._mutate_pod(lr, pod)
    assert pod["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "75m", "memory": "10Mi"},
                                                         "requests": {"cpu": "50m", "memory": "5Mi"}}
    assert pod["metadata"]["annotations"][LIMIT_RANGER_ANNOTATION] == (
        "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0")

    # upstream shares one ResourceList between the container and the init container, so only the container's
    # defaults show in its annotation; with separate lists both are defaulted and both are annotated
    some = _rr(mem_req="512Mi")
    pod = _pod("limit-memory", 1, some, init=[some])
    pod["spec"]["initContainers"][0]["name"] = "foo-0"
    LimitRanger._mutate_pod(lr, pod)
    expected = {"limits": {"cpu": "75m", "memory": "10Mi"}, "requests": {"memory": "512Mi", "cpu": "50m"}}
    assert pod["spec"]["containers"][0]["resources"] == expected
    assert pod["spec"]["initContainers"][0]["resources"] == expected
    assert pod["metadata"]["annotations"][LIMIT_RANGER_ANNOTATION] == (
        "LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for container foo-0; "
        "cpu request for init container foo-0; cpu, memory limit for init container foo-0")

    full = _rr("100m", "512Mi", "200m", "1G")
    pod = _pod("limit-memory", 1, full, init=[_rr("200m", "1G", "400m", "2G")])
    LimitRanger._mutate_pod(lr, pod)
    assert pod["spec"]["containers"][0]["resources"] == full
    assert "annotations" not in pod["metadata"]


POD_LIMIT_SUCCESS = [
    ("ctr-min-cpu-request", _pod("p", 1, _rr("100m")), _lr("Container", mn={"cpu": "50m"})),
    ("ctr-min-cpu-request-limit", _pod("p", 1, _rr("100m", cpu_lim="200m")), _lr("Container", mn={"cpu": "50m"})),
    ("ctr-min-memory-request-limit", _pod("p", 1, _rr(mem_req="60Mi", mem_lim="100Mi")),
     _lr("Container", mn={"memory": "50Mi"})),
    ("ctr-max-cpu-request-limit", _pod("p", 1, _rr("500m", cpu_lim="1")), _lr("Container", mx={"cpu": "2"})),
    ("ctr-max-cpu-ratio", _pod("p", 1, _rr("500m", cpu_lim="750m")), _lr("Container", ratio={"cpu": "1.5"})),
    ("pod-min-cpu-request", _pod("p", 2, _rr("75m")), _lr("Pod", mn={"cpu": "100m"})),
    ("pod-init-min-memory-request", _pod("p", 2, _rr(mem_req="60Mi"), init=[_rr(mem_req="100Mi")]),
     _lr("Pod", mn={"memory": "100Mi"})),
    ("pod-init-max-cpu-request-limit", _pod("p", 2, _rr("500m", cpu_lim="1"),
                                            init=[_rr("1", cpu_lim="2"), _rr("1", cpu_lim="1")]),
     _lr("Pod", mx={"cpu": "2"})),
    ("pod-max-local-ephemeral-storage-ratio", _pod("p", 3, _rr(mem_req="300Mi", mem_lim="450Mi",
                                                               res="ephemeral-storage")),
     _lr("Pod", mx={"ephemeral-storage": "2Gi"}, ratio={"ephemeral-storage": "1.5"})),
]

POD_LIMIT_ERRORS = [
    ("ctr-min-cpu-request", _pod("p", 1, _rr("40m")), _lr("Container", mn={"cpu": "50m"}),
     "minimum cpu usage per Container is 50m, but request is 40m"),
    ("ctr-min-cpu-no-request-limit", _pod("p", 1, {}), _lr("Container", mn={"cpu": "50m"}),
     "minimum cpu usage per Container is 50m.  No request is specified"),
    ("ctr-min-memory-request-limit", _pod("p", 1, _rr(mem_req="40Mi", mem_lim="100Mi")),
     _lr("Container", mn={"memory": "50Mi"}), "minimum memory usage per Container is 50Mi, but request is 40Mi"),
    ("ctr-max-cpu-request-limit", _pod("p", 1, _rr("500m", cpu_lim="2500m")), _lr("Container", mx={"cpu": "2"}),
     "maximum cpu usage per Container is 2, but limit is 2500m"),
    ("ctr-max-cpu-no-request-limit", _pod("p", 1, {}), _lr("Container", mx={"cpu": "2"}),
     "maximum cpu usage per Container is 2.  No limit is specified"),
    ("ctr-max-cpu-ratio", _pod("p", 1, _rr("1250m", cpu_lim="2500m")), _lr("Container", ratio={"cpu": "1"}),
     "cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000"),
    ("ctr-max-mem-limit", _pod("p", 1, _rr(mem_lim="2Gi")), _lr("Container", mx={"memory": "1Gi"}),
     "maximum memory usage per Container is 1Gi, but limit is 2Gi"),
    ("pod-min-cpu-request", _pod("p", 1, _rr("75m")), _lr("Pod", mn={"cpu": "100m"}),
     "minimum cpu usage per Pod is 100m, but request is 75m"),
    ("pod-max-cpu-request-limit", _pod("p", 3, _rr("500m", cpu_lim="1")), _lr("Pod", mx={"cpu": "2"}),
     "maximum cpu usage per Pod is 2, but limit is 3"),
    ("pod-init-max-mem-limit", _pod("p", 1, _rr(mem_lim="500Mi"), init=[_rr(mem_lim="1.5Gi")]),
     _lr("Pod", mx={"memory": "1Gi"}), "maximum memory usage per Pod is 1Gi, but limit is 1536Mi"),
    ("pod-max-mem-ratio", _pod("p", 3, _rr(mem_req="250Mi", mem_lim="500Mi")),
     _lr("Pod", mx={"memory": "2Gi"}, ratio={"memory": "1.5"}),
     "memory max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000"),
]


@pytest.mark.parametrize("name,pod,lr", POD_LIMIT_SUCCESS, ids=[x[0] for x in POD_LIMIT_SUCCESS])
def test_pod_limit_func_success_cases(name, pod, lr):
    LimitRanger._mutate_pod(lr, pod)
    assert LimitRanger._validate_pod(lr, pod) == []


@pytest.mark.parametrize("name,pod,lr,message", POD_LIMIT_ERRORS, ids=[x[0] for x in POD_LIMIT_ERRORS])
def test_pod_limit_func_error_cases(name, pod, lr, message):
    LimitRanger._mutate_pod(lr, pod)
    assert message in LimitRanger._validate_pod(lr, pod)


def test_restartable_init_container_counts_toward_pod_max():
    pod = _pod("ctr-max-cpu-limit-restartable-init-container", 1, _rr("1000m", cpu_lim="1500m"))
    pod["spec"]["initContainers"] = [{"name": "sidecar", "image": "x", "restartPolicy": "Always",
                                      "resources": {"requests": {"cpu": "1500m"}}}]
    assert LimitRanger._validate_pod(_lr("Pod", mx={"cpu": "2"}), pod) == [
        "maximum cpu usage per Pod is 2, but request is 2500m"]


def test_limit_range_defaults_appear_in_the_stored_pod_and_set_qos(c):
    c.create("limitranges", _lr("Container", default={"cpu": "500m", "memory": "256Mi"},
                                default_request={"cpu": "250m", "memory": "128Mi"}), "default")
    pod = c.create("pods", _pod("web", 1, {}), "default")
    stored = c.get("pods", "web", "default")
    assert stored == pod
    assert stored["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "500m", "memory": "256Mi"},
                                                            "requests": {"cpu": "250m", "memory": "128Mi"}}
    assert stored["status"]["qosClass"] == "Burstable"
    assert stored["metadata"]["annotations"][LIMIT_RANGER_ANNOTATION].startswith("LimitRanger plugin set: cpu, memory")


def test_limit_range_violation_is_forbidden_with_all_errors_and_stores_nothing(api, c):
    c.create("limitranges", _valid_lr(), "test")
    rev = api.store.revision
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("big", 1, _rr("150m", "3Gi", "150m", "3Gi")), "test")
    assert e.value.code == 403
    assert str(e.value) == ('pods "big" is forbidden: [maximum cpu usage per Container is 100m, but limit is 150m, '
                            'maximum memory usage per Container is 2Gi, but limit is 3Gi]')
    assert api.store.revision == rev


def test_limit_ranger_ignores_subresources_and_pod_updates(api, c):
    pod = c.create("pods", _pod("web", 1, {}), "default")
    c.create("limitranges", _lr("Container", mn={"cpu": "50m"}), "default")
    pod["metadata"]["labels"] = {"app": "web"}
    c.update("pods", pod)  # no request, but updates are not checked
    pod = c.get("pods", "web", "default")
    pod["status"]["phase"] = "Running"
    c.update_status("pods", pod)


def test_pvc_storage_limits(c):
    c.create("limitranges", _lr("PersistentVolumeClaim", mn={"storage": "1Gi"}, mx={"storage": "10Gi"}), "default")

    def pvc(name, size):
        return {"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                     "resources": {"requests": {"storage": size}}}}
    c.create("persistentvolumeclaims", pvc("ok", "5Gi"), "default")
    with pytest.raises(ApiError) as e:
        c.create("persistentvolumeclaims", pvc("huge", "20Gi"), "default")
    assert str(e.value) == ('persistentvolumeclaims "huge" is forbidden: maximum storage usage per '
                            'PersistentVolumeClaim is 10Gi, but request is 20Gi')


# -------------------------------------------------------------------------------------------- ResourceQuota

def _quota(c, name, hard, used, ns="test", spec=None):
    q = c.create("resourcequotas", {"metadata": {"name": name}, "spec": {"hard": dict(hard), **(spec or {})}}, ns)
    q["status"] = {"hard": dict(hard), "used": dict(used)}
    return c.update_status("resourcequotas", q, ns)


def test_admit_below_quota_limit_charges_status_used(api, c):
    _quota(c, "quota", {"cpu": "3", "memory": "100Gi", "pods": "5"}, {"cpu": "1", "memory": "50Gi", "pods": "3"})
    c.create("pods", _pod("allowed-pod", 1, _rr("100m", "2Gi")), "test")
    q = c.get("resourcequotas", "quota", "test")
    assert q["status"]["used"] == {"cpu": "1100m", "memory": "52Gi", "pods": "4"}
    writes = [e for e in api.audit_log if e.kind == "ResourceQuota"]
    assert writes[-1].component == "kube-apiserver" and writes[-1].detail.startswith("status")


def test_admit_exceed_quota_limit_is_forbidden_with_upstream_message(api, c):
    _quota(c, "quota", {"cpu": "3", "memory": "100Gi", "pods": "5"}, {"cpu": "1", "memory": "50Gi", "pods": "3"})
    rev = api.store.revision
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("not-allowed-pod", 1, _rr("3", "2Gi")), "test")
    assert (e.value.code, e.value.reason) == (403, "Forbidden")
    assert str(e.value) == ('pods "not-allowed-pod" is forbidden: exceeded quota: quota, requested: cpu=3, used: '
                            'cpu=1, limited: cpu=3')
    assert api.store.revision == rev
    assert c.get("resourcequotas", "quota", "test")["status"]["used"]["cpu"] == "1"


def test_exceeded_message_lists_every_exceeded_resource_sorted(c):
    _quota(c, "compute", {"requests.cpu": "2", "requests.memory": "1Gi"},
           {"requests.cpu": "1500m", "requests.memory": "768Mi"})
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("p", 1, _rr("500m", "512Mi"), ), "test")
    assert str(e.value).endswith("exceeded quota: compute, requested: requests.memory=512Mi, used: "
                                 "requests.memory=768Mi, limited: requests.memory=1Gi")
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("p", 1, _rr("1", "512Mi")), "test")
    assert str(e.value).endswith("exceeded quota: compute, requested: requests.cpu=1,requests.memory=512Mi, used: "
                                 "requests.cpu=1500m,requests.memory=768Mi, limited: requests.cpu=2,"
                                 "requests.memory=1Gi")


def test_admit_enforce_quota_constraints(c):
    _quota(c, "quota", {"cpu": "3", "memory": "100Gi", "limits.memory": "200Gi", "pods": "5"},
           {"cpu": "1", "memory": "50Gi", "limits.memory": "100Gi", "pods": "3"})
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("not-allowed-pod", 1, _rr("100m", "2Gi")), "test")
    assert str(e.value) == ('pods "not-allowed-pod" is forbidden: failed quota: quota: must specify limits.memory '
                            'for: foo-0')
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("two", 2, {}), "test")
    assert str(e.value).endswith("failed quota: quota: must specify cpu for: foo-0,foo-1; limits.memory for: "
                                 "foo-0,foo-1; memory for: foo-0,foo-1")


def test_status_unknown_when_the_controller_has_not_counted_a_resource(c):
    q = c.create("resourcequotas", {"metadata": {"name": "quota"}, "spec": {"hard": {"pods": "5", "cpu": "1"}}}, "test")
    q["status"] = {"hard": {"pods": "5", "cpu": "1"}, "used": {"pods": "0"}}
    c.update_status("resourcequotas", q, "test")
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("p", 1, _rr("100m")), "test")
    assert str(e.value) == 'pods "p" is forbidden: status unknown for quota: quota, resources: cpu,pods'


def test_unsynced_quota_without_status_does_not_limit(c):
    c.create("resourcequotas", {"metadata": {"name": "quota"}, "spec": {"hard": {"pods": "0"}}}, "test")
    c.create("pods", _pod("p", 1, {}), "test")


def test_admit_pod_in_namespace_without_quota(c):
    _quota(c, "quota", {"pods": "1"}, {"pods": "1"}, ns="default")
    c.create("pods", _pod("p", 1, {}), "test")


def test_quota_ignores_deletes_subresources_and_unchanged_updates(c):
    _quota(c, "quota", {"pods": "1", "count/pods": "1"}, {"pods": "0", "count/pods": "0"})
    pod = c.create("pods", _pod("p", 1, {}), "test")
    assert c.get("resourcequotas", "quota", "test")["status"]["used"] == {"pods": "1", "count/pods": "1"}
    pod["metadata"]["labels"] = {"x": "y"}
    c.update("pods", pod)
    pod = c.get("pods", "p", "test")
    pod["status"]["phase"] = "Running"
    c.update_status("pods", pod)
    c.delete("pods", "p", "test")
    assert c.get("resourcequotas", "quota", "test")["status"]["used"] == {"pods": "1", "count/pods": "1"}


def test_terminating_and_best_effort_scopes(c):
    _quota(c, "terminating", {"pods": "1"}, {"pods": "1"}, spec={"scopes": ["Terminating"]})
    _quota(c, "besteffort", {"pods": "1"}, {"pods": "0"}, spec={"scopes": ["BestEffort"]})
    c.create("pods", _pod("long-running", 1, _rr("100m")), "test")  # neither scope
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("batch", 1, _rr("100m"), activeDeadlineSeconds=60), "test")
    assert "exceeded quota: terminating, requested: pods=1, used: pods=1, limited: pods=1" in str(e.value)
    c.create("pods", _pod("be", 1, {}), "test")
    assert c.get("resourcequotas", "besteffort", "test")["status"]["used"] == {"pods": "1"}
    assert c.get("resourcequotas", "terminating", "test")["status"]["used"] == {"pods": "1"}


def test_priority_class_scope_selector(c):
    c.create("priorityclasses", {"metadata": {"name": "high"}, "value": 1000})
    _quota(c, "high-only", {"pods": "0"}, {"pods": "0"},
           spec={"scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In",
                                                          "values": ["high"]}]}})
    c.create("pods", _pod("normal", 1, {}), "test")
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("vip", 1, {}, priorityClassName="high"), "test")
    assert "exceeded quota: high-only" in str(e.value)


def test_object_counts_and_legacy_aliases(c):
    _quota(c, "objects", {"configmaps": "1", "count/deployments.apps": "0", "services.nodeports": "1"},
           {"configmaps": "0", "count/deployments.apps": "0", "services.nodeports": "0"})
    c.create("configmaps", {"metadata": {"name": "a"}}, "test")
    with pytest.raises(ApiError) as e:
        c.create("configmaps", {"metadata": {"name": "b"}}, "test")
    assert str(e.value) == ('configmaps "b" is forbidden: exceeded quota: objects, requested: configmaps=1, used: '
                            'configmaps=1, limited: configmaps=1')
    dep = {"metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
        "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    with pytest.raises(ApiError) as e:
        c.create("deployments", dep, "test")
    assert str(e.value).startswith('deployments.apps "web" is forbidden: exceeded quota: objects, requested: '
                                   'count/deployments.apps=1')
    svc = {"metadata": {"name": "np"}, "spec": {"type": "NodePort", "ports": [{"name": "a", "port": 80},
                                                                            {"name": "b", "port": 81}]}}
    with pytest.raises(ApiError) as e:
        c.create("services", svc, "test")
    assert "requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1" in str(e.value)


def test_pod_usage_follows_the_quota_evaluator():
    pod = {"spec": {"containers": [{"resources": {"requests": {"cpu": "100m", "memory": "1Gi"},
                                                  "limits": {"cpu": "200m", "memory": "1Gi"}}}],
                    "initContainers": [{"resources": {"requests": {"cpu": "500m"}}}],
                    "overhead": {"cpu": "10m", "memory": "5Mi"}}}
    assert format_resource_list(pod_usage(pod)) == {
        "count/pods": "1", "pods": "1", "cpu": "510m", "requests.cpu": "510m", "limits.cpu": "210m",
        "memory": "1029Mi", "requests.memory": "1029Mi", "limits.memory": "1029Mi"}
    assert format_resource_list(pod_usage({**pod, "status": {"phase": "Failed"}})) == {"count/pods": "1"}


def test_pod_requests_agree_with_kubenotes_api_resources():
    from lightkube.resources.core_v1 import Pod

    from kubenotes.api.resources import pod_requests

    d = {"metadata": {"name": "p"}, "spec": {
        "initContainers": [{"name": "s", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
                           {"name": "m", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "64Mi"}}}],
        "overhead": {"cpu": "50m"}}}
    ours = {k: (v.milli_value() if k == "cpu" else v.int_value()) for k, v in pod_requests(d, quantities=True).items()}
    assert ours == pod_requests(Pod.from_dict(d))


def test_quantity_strings_follow_upstream_canonical_form():
    assert [str(Quantity.parse(x)) for x in ("1024Mi", "0.5", "1500m", "2000", "1e3", "1.5Gi", "100")] == [
        "1Gi", "500m", "1500m", "2k", "1e3", "1536Mi", "100"]


# ---------------------------------------------------------------------------------- DefaultTolerationSeconds

NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
               "tolerationSeconds": 300}
FORGIVENESS = [
    ("pod has no tolerations, expect add tolerations for not-ready:NoExecute and unreachable:NoExecute",
     [], [NOT_READY, UNREACHABLE]),
    ("pod has tolerations, but none is for taint not-ready:NoExecute or unreachable:NoExecute",
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule", "tolerationSeconds": 700}],
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule", "tolerationSeconds": 700},
      NOT_READY, UNREACHABLE]),
    ("pod specified a toleration for taint not-ready:NoExecute, expect add toleration for unreachable:NoExecute",
     [{**NOT_READY, "tolerationSeconds": 700}], [{**NOT_READY, "tolerationSeconds": 700}, UNREACHABLE]),
    ("pod specified a toleration for taint unreachable:NoExecute, expect add toleration for not-ready:NoExecute",
     [{**UNREACHABLE, "tolerationSeconds": 700}], [{**UNREACHABLE, "tolerationSeconds": 700}, NOT_READY]),
    ("pod specified tolerations for both taints, expect no change",
     [{**NOT_READY, "tolerationSeconds": 700}, {**UNREACHABLE, "tolerationSeconds": 700}],
     [{**NOT_READY, "tolerationSeconds": 700}, {**UNREACHABLE, "tolerationSeconds": 700}]),
    ("pod specified toleration for taint unreachable with no effect, expect add toleration for not-ready",
     [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 700}],
     [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 700}, NOT_READY]),
    ("pod specified toleration with wildcard key, expect no change",
     [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700}],
     [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700}]),
    ("pod specified a NoSchedule toleration for not-ready, expect both added",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}, NOT_READY,
      UNREACHABLE]),
]


@pytest.mark.parametrize("desc,given,expected", FORGIVENESS, ids=[f[0][:60] for f in FORGIVENESS])
def test_forgiveness_admission(desc, given, expected):
    from kubenotes.apiserver.request import Attributes, UserInfo
    from kubenotes.apiserver.resources import resource_for

    pod = _pod("p", 1, {}, tolerations=copy.deepcopy(given))
    DefaultTolerationSeconds().admit(Attributes(UserInfo("u"), "create", resource_for("pods"), namespace="default"),
                                     pod, None, None)
    assert pod["spec"]["tolerations"] == expected


def test_stored_pods_get_default_tolerations_and_invalid_ones_are_refused(c):
    pod = c.create("pods", _pod("p", 1, {}, tolerations=[{**NOT_READY, "tolerationSeconds": 700}]), "default")
    assert pod["spec"]["tolerations"] == [{**NOT_READY, "tolerationSeconds": 700}, UNREACHABLE]
    with pytest.raises(ApiError) as e:  # upstream's case 2 toleration is itself invalid: validation catches it
        c.create("pods", _pod("q", 1, {}, tolerations=FORGIVENESS[1][1]), "default")
    assert str(e.value) == ("Pod \"q\" is invalid: spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect "
                            "must be 'NoExecute' when `tolerationSeconds` is set")


def test_default_toleration_seconds_flags():
    p = DefaultTolerationSeconds(not_ready_toleration_seconds=60, unreachable_toleration_seconds=120)
    chain = AdmissionChain([p])
    api = APIServer(seed=0, admission=chain)
    pod = api.client().create("pods", _pod("p", 1, {}), "default")
    assert [t["tolerationSeconds"] for t in pod["spec"]["tolerations"]] == [60, 120]


# ---------------------------------------------------------------------------------------------- Priority

def test_pod_priority_resolution(c):
    c.create("priorityclasses", {"metadata": {"name": "default1"}, "value": 1000, "globalDefault": True})
    c.create("priorityclasses", {"metadata": {"name": "batch"}, "value": -5, "preemptionPolicy": "Never"})
    p = c.create("pods", _pod("no-class", 1, {}), "default")
    assert (p["spec"]["priorityClassName"], p["spec"]["priority"], p["spec"]["preemptionPolicy"]) == (
        "default1", 1000, "PreemptLowerPriority")
    p = c.create("pods", _pod("batch", 1, {}, priorityClassName="batch"), "default")
    assert (p["spec"]["priority"], p["spec"]["preemptionPolicy"]) == (-5, "Never")
    p = c.create("pods", _pod("critical", 1, {}, priorityClassName="system-cluster-critical"), "default")
    assert p["spec"]["priority"] == 2000000000
    p = c.create("pods", _pod("same-value", 1, {}, priorityClassName="batch", priority=-5), "default")
    assert p["spec"]["priority"] == -5


def test_pod_priority_errors(c):
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("p", 1, {}, priorityClassName="nonexistent"), "default")
    assert (e.value.code, str(e.value)) == (403, 'pods "p" is forbidden: no PriorityClass with name nonexistent '
                                                 'was found')
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("p", 1, {}, priority=7), "default")
    assert str(e.value) == ('pods "p" is forbidden: the integer value of priority (7) must not be provided in pod '
                            'spec; priority admission controller computed 0 from the given PriorityClass name')
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("p", 1, {}, preemptionPolicy="Never"), "default")
    assert "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission " \
           "controller computed PreemptLowerPriority from the given PriorityClass name" in str(e.value)


def test_priority_kept_on_update_when_omitted(c):
    c.create("priorityclasses", {"metadata": {"name": "high"}, "value": 10})
    p = c.create("pods", _pod("p", 1, {}, priorityClassName="high"), "default")
    del p["spec"]["priority"], p["spec"]["preemptionPolicy"]
    p["metadata"]["labels"] = {"a": "b"}
    out = c.update("pods", p)
    assert out["spec"]["priority"] == 10 and out["spec"]["preemptionPolicy"] == "PreemptLowerPriority"


def test_only_one_default_priority_class(c):
    c.create("priorityclasses", {"metadata": {"name": "d1"}, "value": 1, "globalDefault": True})
    with pytest.raises(ApiError) as e:
        c.create("priorityclasses", {"metadata": {"name": "d2"}, "value": 2, "globalDefault": True})
    assert str(e.value) == ('priorityclasses.scheduling.k8s.io "d2" is forbidden: PriorityClass d1 is already '
                            'marked as default. Only one default can exist')
    pc = c.get("priorityclasses", "d1")
    pc["description"] = "still the default"
    c.update("priorityclasses", pc)  # the default itself may be updated


# ---------------------------------------------------------------------------------------------- ServiceAccount

def test_assigns_default_service_account_and_bound_token_volume(c):
    p = c.create("pods", _pod("p", 2, {}, initContainers=[{"name": "init", "image": "x"}]), "default")
    spec = p["spec"]
    assert spec["serviceAccountName"] == "default"
    vol = spec["volumes"][-1]
    assert vol["name"].startswith("kube-api-access-") and len(vol["name"]) == len("kube-api-access-") + 5
    assert set(vol["name"][-5:]) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert vol["projected"]["defaultMode"] == 420
    assert vol["projected"]["sources"][0] == {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}
    mount = {"name": vol["name"], "readOnly": True, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    for ctr in spec["containers"] + spec["initContainers"]:
        assert ctr["volumeMounts"] == [mount]


def test_volume_names_follow_the_seed():
    def name(seed):
        api = APIServer(seed=0, admission=default_admission_chain(seed))
        api.client().create("namespaces", {"metadata": {"name": "default"}})
        return api.client().create("pods", _pod("p", 1, {}), "default")["spec"]["volumes"][0]["name"]

    assert name(4) == name(4) and name(4) != name(5)


def test_denies_a_missing_service_account(api, c):
    rev = api.store.revision
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("p", 1, {}, serviceAccountName="builder"), "default")
    assert (e.value.code, str(e.value)) == (403, 'pods "p" is forbidden: error looking up service account '
                                                 'default/builder: serviceaccount "builder" not found')
    assert api.store.revision == rev


def test_strict_mode_requires_the_default_service_account_too():
    api = APIServer(seed=0, admission=AdmissionChain([ServiceAccount(0, wait_for_default=False)]))
    with pytest.raises(ApiError) as e:
        api.client().create("pods", _pod("p", 1, {}), "default")
    assert 'serviceaccount "default" not found' in str(e.value)


def test_respects_existing_mount_and_automount_preferences(c):
    mount = {"name": "my-token", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    p = c.create("pods", {"metadata": {"name": "m"}, "spec": {
        "volumes": [{"name": "my-token", "emptyDir": {}}],
        "containers": [{"name": "c", "image": "x", "volumeMounts": [mount]}]}}, "default")
    assert p["spec"]["containers"][0]["volumeMounts"] == [mount] and len(p["spec"]["volumes"]) == 1

    c.create("serviceaccounts", {"metadata": {"name": "quiet"}, "automountServiceAccountToken": False}, "default")
    p = c.create("pods", _pod("q", 1, {}, serviceAccountName="quiet"), "default")
    assert "volumes" not in p["spec"]
    p = c.create("pods", _pod("r", 1, {}, serviceAccountName="quiet", automountServiceAccountToken=True), "default")
    assert p["spec"]["volumes"][0]["name"].startswith("kube-api-access-")
    p = c.create("pods", _pod("s", 1, {}, automountServiceAccountToken=False), "default")
    assert "volumes" not in p["spec"]


def test_adds_image_pull_secrets_from_the_service_account(c):
    c.create("serviceaccounts", {"metadata": {"name": "puller"}, "imagePullSecrets": [{"name": "regcred"}]}, "default")
    p = c.create("pods", _pod("p", 1, {}, serviceAccountName="puller"), "default")
    assert p["spec"]["imagePullSecrets"] == [{"name": "regcred"}]
    p = c.create("pods", _pod("q", 1, {}, serviceAccountName="puller", imagePullSecrets=[{"name": "mine"}]),
                 "default")
    assert p["spec"]["imagePullSecrets"] == [{"name": "mine"}]


def test_enforce_mountable_secrets(c):
    c.create("serviceaccounts", {"metadata": {"name": "strict", "annotations": {
        "kubernetes.io/enforce-mountable-secrets": "true"}}, "secrets": [{"name": "allowed"}]}, "default")
    ok = {"name": "v", "secret": {"secretName": "allowed"}}
    c.create("pods", _pod("ok", 1, {}, serviceAccountName="strict", volumes=[ok]), "default")
    bad = {"name": "v", "secret": {"secretName": "other"}}
    with pytest.raises(ApiError) as e:
        c.create("pods", _pod("bad", 1, {}, serviceAccountName="strict", volumes=[bad]), "default")
    assert str(e.value) == ('pods "bad" is forbidden: volume with secret.secretName="other" is not allowed because '
                            'service account strict does not reference that secret')


def test_rejects_mirror_pod_with_service_account(c):
    pod = _pod("mirror", 1, {}, serviceAccountName="default")
    pod["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "hash"}
    with pytest.raises(ApiError) as e:
        c.create("pods", pod, "default")
    assert str(e.value) == 'pods "mirror" is forbidden: a mirror pod may not reference service accounts'
    pod["spec"].pop("serviceAccountName")
    p = c.create("pods", pod, "default")
    assert "serviceAccountName" not in p["spec"] and "volumes" not in p["spec"]


# ---------------------------------------------------------------------------------------------- end to end

def test_cluster_wires_the_default_chain_and_validation():
    from kubenotes.sim.cluster import Cluster

    cl = Cluster([], seed=2, controllers=[], scheduler=False, authorization=False)
    assert cl.server.admission.names() == default_admission_chain().names()
    assert cl.server.validator is validation
    with pytest.raises(ApiError) as e:
        cl.client.create("pods", _pod("UPPER_case", 1, {}), "default")
    assert e.value.code == 422


# ---------------------------------------------------------------------------------------------- one helper home

def test_best_effort_scope_reads_the_stored_qos_class_as_get_pod_qos():
    from kubenotes.apiserver.admission.quota import PodEvaluator

    ev = PodEvaluator()
    pod = _pod("p", 1, {})
    assert ev.matches_scope({"scopeName": "BestEffort"}, pod)
    # GetPodQOS prefers status.qosClass (fixed at creation); the copy this replaced looked at the spec only
    pod["status"] = {"qosClass": "Burstable"}
    assert not ev.matches_scope({"scopeName": "BestEffort"}, pod)
    assert ev.matches_scope({"scopeName": "NotBestEffort"}, pod)


def test_best_effort_scope_uses_pod_level_resources_when_set():
    from kubenotes.apiserver.admission.quota import is_best_effort

    # pod-level resources decide alone (ComputePodQOS): a container request does not count then
    pod = _pod("p", 1, _rr("100m"))
    pod["spec"]["resources"] = {"limits": {"hugepages-2Mi": "0"}}
    assert is_best_effort(pod)
    assert not is_best_effort(_pod("p", 1, _rr("100m")))


def test_extended_resource_usage_needs_a_qualified_quota_name():
    # v1helper.IsExtendedResourceName: "requests." + name must be a qualified name; the copy this replaced
    # charged any non-native name
    usage = pod_usage(_pod("p", 1, {"requests": {"example.com/gpu": "1", "example.com/-bad": "1"}}))
    assert "requests.example.com/gpu" in usage
    assert "requests.example.com/-bad" not in usage
