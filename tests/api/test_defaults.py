"""Tests for kubenotes.api.defaults, following upstream's defaulting and pod-strategy tests.

Upstream sources:
kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/defaults_test.go (TestPodDefaults, TestWorkloadDefaults,
    TestSetDefaultRequestsPod, TestSetDefaultPodSpecHostNetwork, pod-level resources)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy_test.go (matchLabelKeys / mismatchLabelKeys)
kubernetes/kubernetes@v1.34.0 pkg/apis/apps/v1/defaults_test.go, pkg/apis/batch/v1/defaults_test.go
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lightkube.resources.apps_v1 import DaemonSet, Deployment, ReplicaSet, StatefulSet
from lightkube.resources.batch_v1 import CronJob, Job
from lightkube.resources.core_v1 import ConfigMap, Node, Pod, PodTemplate, ReplicationController

from kubenotes.api.defaults import apply_defaults, prepare_pod_for_create, set_defaults_pod
from kubenotes.api.resources import pod_requests
from kubenotes.api.selectors import LabelSelector


def make_pod(spec=None, metadata=None, status=None):
    d = {"metadata": {"name": "p", **(metadata or {})}, "spec": {"containers": [{"name": "c"}], **(spec or {})}}
    if status is not None:
        d["status"] = status
    return Pod.from_dict(d)


# --- TestPodDefaults (the fields a bare pod gets) ----------------------------------------------------


def test_pod_defaults():
    pod = apply_defaults(make_pod({
        "containers": [{"name": "c", "ports": [{"containerPort": 80}]}],
        "initContainers": [{"name": "i", "ports": [{"containerPort": 81}]}],
    }))
    d = pod.to_dict()
    spec = d["spec"]
    assert d["metadata"]["namespace"] == "default"
    for c in (spec["containers"][0], spec["initContainers"][0]):
        assert c["imagePullPolicy"] == "IfNotPresent"  # empty image: no tag to parse
        assert c["ports"][0]["protocol"] == "TCP"
        assert c["terminationMessagePath"] == "/dev/termination-log"
        assert c["terminationMessagePolicy"] == "File"
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["enableServiceLinks"] is True
    assert spec["restartPolicy"] == "Always"
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["securityContext"] == {}
    assert spec["terminationGracePeriodSeconds"] == 30
    assert "priority" not in spec and "preemptionPolicy" not in spec  # left for Priority admission
    assert d["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_explicit_values_are_kept():
    pod = apply_defaults(make_pod({
        "schedulerName": "my-scheduler", "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Never",
                        "ports": [{"containerPort": 53, "protocol": "UDP"}]}]}, {"namespace": "prod"}))
    assert pod.metadata.namespace == "prod"
    assert (pod.spec.schedulerName, pod.spec.restartPolicy, pod.spec.terminationGracePeriodSeconds) == (
        "my-scheduler", "Never", 0)
    assert pod.spec.containers[0].imagePullPolicy == "Never"
    assert pod.spec.containers[0].ports[0].protocol == "UDP"


@pytest.mark.parametrize(
    "image, policy",
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("registry.example.com:5000/team/app", "Always"),
        ("registry.example.com:5000/team/app:v2", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
        ("", "IfNotPresent"),
    ],
)
def test_image_pull_policy(image, policy):
    pod = apply_defaults(make_pod({"containers": [{"name": "c", "image": image}]}))
    assert pod.spec.containers[0].imagePullPolicy == policy


# --- TestSetDefaultRequestsPod ------------------------------------------------------------------------


def test_requests_default_from_limits_and_zero_request_is_kept():
    pod = apply_defaults(make_pod({"containers": [{"name": "c", "resources": {
        "requests": {"memory": "0"}, "limits": {"cpu": "100m", "memory": "1Gi"}}}]}))
    assert pod.spec.containers[0].resources.requests == {"memory": "0", "cpu": "100m"}


def test_no_limits_no_requests():
    pod = apply_defaults(make_pod())
    assert pod.spec.containers[0].resources is None
    pod = apply_defaults(make_pod({"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}))
    assert pod.spec.containers[0].resources.requests == {"cpu": "1"}


def test_init_container_requests_default_from_limits():
    pod = apply_defaults(make_pod({"initContainers": [
        {"name": "i", "resources": {"limits": {"cpu": "2", "example.com/foo": "1"}}}]}))
    assert pod.spec.initContainers[0].resources.requests == {"cpu": "2", "example.com/foo": "1"}


def test_pod_template_requests_are_not_defaulted_from_limits():
    # "we only want this defaulting semantic to take place on a v1.Pod and not a v1.PodTemplate"
    d = apply_defaults(Deployment.from_dict({"metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
            {"name": "c", "image": "nginx", "resources": {"limits": {"cpu": "1"}}}]}}}}))
    c = d.spec.template.spec.containers[0]
    assert c.resources.requests is None
    assert c.imagePullPolicy == "Always" and d.spec.template.spec.schedulerName == "default-scheduler"


# --- TestSetDefaultPodSpecHostNetwork ----------------------------------------------------------------


def test_host_network_ports():
    pod = apply_defaults(make_pod({"hostNetwork": True, "containers": [
        {"name": "c", "ports": [{"containerPort": 12345}, {"containerPort": 80, "hostPort": 8080}]}],
        "initContainers": [{"name": "i", "ports": [{"containerPort": 12346}]}]}))
    assert [p.hostPort for p in pod.spec.containers[0].ports] == [12345, 8080]
    assert pod.spec.initContainers[0].ports[0].hostPort == 12346
    pod = apply_defaults(make_pod({"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}))
    assert pod.spec.containers[0].ports[0].hostPort is None


# --- pod-level resources (defaultPodRequests, defaultHugePagePodLimits) -------------------------------


def pl_pod(pod_resources, containers, init_containers=None):
    spec = {"containers": containers, "resources": pod_resources}
    if init_containers:
        spec["initContainers"] = init_containers
    return make_pod(spec)


def c(name, requests=None, limits=None, **extra):
    res = {}
    if requests is not None:
        res["requests"] = requests
    if limits is not None:
        res["limits"] = limits
    return {"name": name, "resources": res, **extra}


@pytest.mark.parametrize(
    "pod_resources, containers, init_containers, want_requests, want_limits",
    [
        # pod limits, containers with requests: pod requests = aggregated container requests
        ({"limits": {"cpu": "4", "memory": "4Gi"}},
         [c("a", {"cpu": "1", "memory": "1Gi"}), c("b", {"cpu": "500m", "memory": "512Mi"})], None,
         {"cpu": "1500m", "memory": "1536Mi"}, {"cpu": "4", "memory": "4Gi"}),
        # pod limits, containers without requests: pod requests = pod limits
        ({"limits": {"cpu": "4", "memory": "4Gi"}}, [c("a"), c("b")], None,
         {"cpu": "4", "memory": "4Gi"}, {"cpu": "4", "memory": "4Gi"}),
        # mixed: memory from the containers, cpu from the pod limit
        ({"limits": {"cpu": "2", "memory": "2Gi"}}, [c("a", {"memory": "256Mi"})], None,
         {"memory": "256Mi", "cpu": "2"}, {"cpu": "2", "memory": "2Gi"}),
        # explicit pod requests win
        ({"requests": {"cpu": "3"}, "limits": {"cpu": "4", "memory": "4Gi"}}, [c("a", {"cpu": "1", "memory": "1Gi"})],
         None, {"cpu": "3", "memory": "1Gi"}, {"cpu": "4", "memory": "4Gi"}),
        # pod requests only: nothing to default
        ({"requests": {"cpu": "1"}}, [c("a", {"cpu": "1", "memory": "1Gi"})], None, {"cpu": "1"}, None),
        # container limits count once defaulted to requests
        ({"limits": {"cpu": "4"}}, [c("a", limits={"cpu": "1", "memory": "1Gi"})], None,
         {"cpu": "1", "memory": "1Gi"}, {"cpu": "4"}),
        # init containers: max(sum(containers), init) and sidecars are added
        ({"limits": {"cpu": "8"}}, [c("a", {"cpu": "1"})],
         [c("sidecar", {"cpu": "500m"}, restartPolicy="Always"), c("init", {"cpu": "3"})],
         {"cpu": "3500m"}, {"cpu": "8"}),
        # extended resources are not pod-level resources
        ({"limits": {"cpu": "2"}}, [c("a", {"example.com/gpu": "1"}, {"example.com/gpu": "1"})], None,
         {"cpu": "2"}, {"cpu": "2"}),
        # hugepages: pod limit defaulted from containers, then the pod request from that limit
        ({"requests": {"cpu": "1"}}, [c("a", {"hugepages-2Mi": "10Mi"}, {"hugepages-2Mi": "10Mi"})], None,
         {"cpu": "1", "hugepages-2Mi": "10Mi"}, {"hugepages-2Mi": "10Mi"}),
        # hugepages: no limit defaulting when the pod already requests that size
        ({"requests": {"hugepages-2Mi": "4Mi"}}, [c("a", {"hugepages-2Mi": "10Mi"}, {"hugepages-2Mi": "10Mi"})], None,
         {"hugepages-2Mi": "4Mi"}, None),
    ],
)
def test_pod_level_resources_defaults(pod_resources, containers, init_containers, want_requests, want_limits):
    pod = pl_pod(pod_resources, containers, init_containers)
    set_defaults_pod(pod)
    assert pod.spec.resources.requests == want_requests
    assert pod.spec.resources.limits == want_limits


def test_no_pod_level_resources_means_no_pod_level_defaults():
    pod = apply_defaults(make_pod({"containers": [c("a", {"cpu": "1"})]}))
    assert pod.spec.resources is None


def test_pod_level_requests_drive_pod_requests():
    pod = apply_defaults(pl_pod({"limits": {"cpu": "4", "memory": "4Gi"}}, [c("a", {"cpu": "1"})]))
    assert pod_requests(pod) == {"cpu": 1000, "memory": 4 * 2**30}


# --- matchLabelKeys / mismatchLabelKeys (pod strategy) -------------------------------------------------


def affinity_pod(term, kind="podAffinity", preferred=False, labels=None):
    terms = {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": term}]} if preferred \
        else {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    return make_pod({"affinity": {kind: terms}}, {"labels": labels if labels is not None else {"country": "Japan",
                                                                                                "city": "Kyoto"}})


def _term(pod, kind="podAffinity", preferred=False):
    group = getattr(pod.spec.affinity, kind)
    if preferred:
        return group.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm
    return group.requiredDuringSchedulingIgnoredDuringExecution[0]


@pytest.mark.parametrize("kind", ["podAffinity", "podAntiAffinity"])
@pytest.mark.parametrize("preferred", [False, True])
def test_match_label_keys_and_mismatch_label_keys_are_merged(kind, preferred):
    term = {"topologyKey": "zone", "labelSelector": {"matchExpressions": [
        {"key": "foo", "operator": "In", "values": ["bar"]}]},
        "matchLabelKeys": ["country"], "mismatchLabelKeys": ["city"]}
    pod = apply_defaults(affinity_pod(term, kind, preferred))
    got = _term(pod, kind, preferred)
    assert [e.to_dict() for e in got.labelSelector.matchExpressions] == [
        {"key": "foo", "operator": "In", "values": ["bar"]},
        {"key": "country", "operator": "In", "values": ["Japan"]},
        {"key": "city", "operator": "NotIn", "values": ["Kyoto"]},
    ]
    assert got.matchLabelKeys == ["country"] and got.mismatchLabelKeys == ["city"]  # the keys stay
    sel = LabelSelector.from_api(got.labelSelector)
    assert sel.matches({"foo": "bar", "country": "Japan", "city": "Osaka"})
    assert not sel.matches({"foo": "bar", "country": "Japan", "city": "Kyoto"})


def test_match_label_keys_missing_from_pod_labels_are_ignored():
    term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"a": "b"}}, "matchLabelKeys": ["missing"]}
    pod = apply_defaults(affinity_pod(term))
    assert not _term(pod).labelSelector.matchExpressions


def test_match_label_keys_with_nil_label_selector_are_ignored():
    pod = apply_defaults(affinity_pod({"topologyKey": "zone", "matchLabelKeys": ["country"]}))
    assert _term(pod).labelSelector is None  # a nil selector matches nothing; nothing to merge into


def test_match_label_keys_merge_is_idempotent():
    term = {"topologyKey": "zone", "labelSelector": {}, "matchLabelKeys": ["country"]}
    pod = apply_defaults(affinity_pod(term))
    apply_defaults(pod)
    prepare_pod_for_create(pod)
    assert len(_term(pod).labelSelector.matchExpressions) == 1


def test_topology_spread_match_label_keys_are_merged():
    pod = apply_defaults(make_pod({"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["pod-template-hash", "absent"]},
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "matchLabelKeys": ["app"]},
    ]}, {"labels": {"app": "web", "pod-template-hash": "5d8"}}))
    tsc = pod.spec.topologySpreadConstraints
    assert [e.to_dict() for e in tsc[0].labelSelector.matchExpressions] == [
        {"key": "pod-template-hash", "operator": "In", "values": ["5d8"]}]
    assert tsc[1].labelSelector is None


# --- status on create ---------------------------------------------------------------------------------


def test_scheduling_gated_condition():
    pod = apply_defaults(make_pod({"schedulingGates": [{"name": "example.com/gate"}]}))
    (cond,) = pod.status.conditions
    assert (cond.type, cond.status, cond.reason, cond.message) == (
        "PodScheduled", "False", "SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates")
    apply_defaults(pod)
    assert len(pod.status.conditions) == 1


def test_existing_status_is_kept():
    pod = apply_defaults(make_pod({"nodeName": "n1"}, status={"phase": "Running", "qosClass": "Burstable"}))
    assert (pod.status.phase, pod.status.qosClass) == ("Running", "Burstable")
    pod = apply_defaults(make_pod(status={"phase": "Running"}))
    assert (pod.status.phase, pod.status.qosClass) == ("Running", "BestEffort")


# --- namespaces -------------------------------------------------------------------------------------


def test_namespace_defaults_only_for_namespaced_kinds():
    assert apply_defaults(ConfigMap.from_dict({"metadata": {"name": "cm"}})).metadata.namespace == "default"
    assert apply_defaults(Node.from_dict({"metadata": {"name": "n"}})).metadata.namespace is None


# --- workloads (apps/v1, batch/v1) ----------------------------------------------------------------------

_TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}


def test_deployment_defaults():
    d = apply_defaults(Deployment.from_dict({"metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"app": "x"}}, "template": _TEMPLATE}}))
    s = d.spec
    assert (s.replicas, s.strategy.type, s.strategy.rollingUpdate.maxUnavailable, s.strategy.rollingUpdate.maxSurge,
            s.revisionHistoryLimit, s.progressDeadlineSeconds) == (1, "RollingUpdate", "25%", "25%", 10, 600)
    assert d.metadata.namespace == "default"
    assert s.template.spec.containers[0].imagePullPolicy == "IfNotPresent"
    d = apply_defaults(Deployment.from_dict({"metadata": {"name": "d"}, "spec": {
        "replicas": 0, "strategy": {"type": "Recreate"}, "selector": {}, "template": _TEMPLATE}}))
    assert (d.spec.replicas, d.spec.strategy.type, d.spec.strategy.rollingUpdate) == (0, "Recreate", None)


def test_replicaset_and_rc_defaults():
    rs = apply_defaults(ReplicaSet.from_dict({"metadata": {"name": "r"}, "spec": {"selector": {}, "template": _TEMPLATE}}))
    assert rs.spec.replicas == 1 and rs.spec.template.spec.schedulerName == "default-scheduler"
    rc = apply_defaults(ReplicationController.from_dict({"metadata": {"name": "r"}, "spec": {"template": _TEMPLATE}}))
    assert (rc.spec.replicas, rc.spec.selector, rc.metadata.labels) == (1, {"app": "x"}, {"app": "x"})


def test_statefulset_defaults():
    s = apply_defaults(StatefulSet.from_dict({"metadata": {"name": "s"}, "spec": {
        "selector": {}, "serviceName": "s", "template": _TEMPLATE}})).spec
    assert (s.replicas, s.podManagementPolicy, s.updateStrategy.type, s.updateStrategy.rollingUpdate.partition,
            s.revisionHistoryLimit) == (1, "OrderedReady", "RollingUpdate", 0, 10)
    assert (s.persistentVolumeClaimRetentionPolicy.whenDeleted, s.persistentVolumeClaimRetentionPolicy.whenScaled) == (
        "Retain", "Retain")
    s = apply_defaults(StatefulSet.from_dict({"metadata": {"name": "s"}, "spec": {
        "selector": {}, "serviceName": "s", "template": _TEMPLATE, "updateStrategy": {"type": "OnDelete"}}})).spec
    assert s.updateStrategy.rollingUpdate is None


def test_daemonset_defaults():
    s = apply_defaults(DaemonSet.from_dict({"metadata": {"name": "ds"}, "spec": {"selector": {}, "template": _TEMPLATE}})).spec
    assert (s.updateStrategy.type, s.updateStrategy.rollingUpdate.maxUnavailable, s.updateStrategy.rollingUpdate.maxSurge,
            s.revisionHistoryLimit) == ("RollingUpdate", 1, 0, 10)


@pytest.mark.parametrize(
    "spec, completions, parallelism, backoff, replacement",
    [
        ({}, 1, 1, 6, "TerminatingOrFailed"),
        ({"completions": 5}, 5, 1, 6, "TerminatingOrFailed"),
        ({"parallelism": 3}, None, 3, 6, "TerminatingOrFailed"),
        ({"completions": 4, "completionMode": "Indexed", "backoffLimitPerIndex": 1}, 4, 1, 2**31 - 1,
         "TerminatingOrFailed"),
        ({"podFailurePolicy": {"rules": []}}, 1, 1, 6, "Failed"),
    ],
)
def test_job_defaults(spec, completions, parallelism, backoff, replacement):
    job = apply_defaults(Job.from_dict({"metadata": {"name": "j"}, "spec": {**spec, "template": {
        **_TEMPLATE, "spec": {**_TEMPLATE["spec"], "restartPolicy": "Never"}}}}))
    s = job.spec
    assert (s.completions, s.parallelism, s.backoffLimit, s.podReplacementPolicy) == (
        completions, parallelism, backoff, replacement)
    assert s.suspend is False and s.manualSelector is False
    assert s.completionMode == spec.get("completionMode", "NonIndexed")
    assert job.metadata.labels == {"app": "x"}  # copied from the template
    assert s.template.spec.restartPolicy == "Never"


def test_cronjob_defaults():
    cj = apply_defaults(CronJob.from_dict({"metadata": {"name": "cj"}, "spec": {
        "schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": _TEMPLATE}}}}))
    s = cj.spec
    assert (s.concurrencyPolicy, s.suspend, s.successfulJobsHistoryLimit, s.failedJobsHistoryLimit) == (
        "Allow", False, 3, 1)
    assert s.jobTemplate.spec.template.spec.schedulerName == "default-scheduler"
    assert s.jobTemplate.spec.parallelism is None  # a JobTemplateSpec is not a Job


def test_pod_template_defaults():
    pt = apply_defaults(PodTemplate.from_dict({"metadata": {"name": "pt"}, "template": _TEMPLATE}))
    assert pt.template.spec.dnsPolicy == "ClusterFirst" and pt.metadata.namespace == "default"


# --- properties --------------------------------------------------------------------------------------

_qty = st.sampled_from(["100m", "1", "2", "128Mi", "1Gi"])


@settings(deadline=None, derandomize=True, database=None)
@given(st.lists(st.tuples(st.dictionaries(st.sampled_from(["cpu", "memory"]), _qty),
                          st.dictionaries(st.sampled_from(["cpu", "memory"]), _qty)), min_size=1, max_size=3))
def test_defaulting_is_idempotent_and_requests_cover_limits(containers):
    pod = make_pod({"containers": [
        {"name": f"c{i}", "resources": {"requests": dict(r), "limits": dict(lim)}} for i, (r, lim) in enumerate(containers)]})
    once = apply_defaults(pod).to_dict()
    assert apply_defaults(pod).to_dict() == once
    for (r, lim), ctr in zip(containers, pod.spec.containers):
        assert set(lim) <= set(ctr.resources.requests)
        assert all(ctr.resources.requests[k] == v for k, v in r.items())
