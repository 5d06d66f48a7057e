"""Tests for kubenotes.api.priority, ported from the Priority admission plugin's tests.

Upstream source:
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission_test.go
"""

from __future__ import annotations

import copy

import pytest
from lightkube.resources.core_v1 import Pod
from lightkube.resources.scheduling_v1 import PriorityClass

from kubenotes.api.priority import (
    DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS,
    HIGHEST_USER_DEFINABLE_PRIORITY,
    PREEMPT_LOWER_PRIORITY,
    PREEMPT_NEVER,
    SYSTEM_CLUSTER_CRITICAL,
    SYSTEM_CRITICAL_PRIORITY,
    SYSTEM_NODE_CRITICAL,
    apply_priority_admission,
    default_priority,
    pod_priority,
    resolve_priority,
    system_priority_classes,
)
from kubenotes.errors import FieldError


def pc(name, value, global_default=False, preemption_policy=None, description=None):
    d = {"metadata": {"name": name}, "value": value, "globalDefault": global_default}
    if preemption_policy:
        d["preemptionPolicy"] = preemption_policy
    if description:
        d["description"] = description
    return PriorityClass.from_dict(d)


default_class1 = pc("default1", 1000, True)
default_class2 = pc("default2", 2000, True)
nondefault_class1 = pc("nondefault1", 2000, description="Just a test priority class")
system_cluster_critical = pc(SYSTEM_CLUSTER_CRITICAL, SYSTEM_CRITICAL_PRIORITY, True)
never_preemption_policy_class = pc("nopreemptionpolicy", 2000, True, PREEMPT_NEVER)
preemption_policy_class = pc("nopreemptionpolicy", 2000, True, PREEMPT_LOWER_PRIORITY)


def pod(name, namespace="namespace", class_name=None, priority=None, preemption_policy=None, annotations=None):
    spec = {"containers": [{"name": "container"}]}
    if class_name is not None:
        spec["priorityClassName"] = class_name
    if priority is not None:
        spec["priority"] = priority
    if preemption_policy is not None:
        spec["preemptionPolicy"] = preemption_policy
    md = {"name": name, "namespace": namespace}
    if annotations:
        md["annotations"] = annotations
    return Pod.from_dict({"metadata": md, "spec": spec})


def test_constants():
    assert HIGHEST_USER_DEFINABLE_PRIORITY == 1_000_000_000
    assert SYSTEM_CRITICAL_PRIORITY == 2_000_000_000
    assert (SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL) == ("system-cluster-critical", "system-node-critical")
    assert {p.metadata.name: p.value for p in system_priority_classes()} == {
        "system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}
    assert all(not p.globalDefault and p.preemptionPolicy == PREEMPT_LOWER_PRIORITY for p in system_priority_classes())


# --- TestDefaultPriority --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, classes, want_value, want_name",
    [
        ("simple resolution with a default class", [default_class1], 1000, "default1"),
        ("no default class", [nondefault_class1], DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, ""),
        ("add a default class", [nondefault_class1, default_class1], 1000, "default1"),
        ("multiple default classes resolve to the minimum value among them", [default_class1, default_class2],
         1000, "default1"),
        ("multiple default classes, in the other order", [default_class2, default_class1], 1000, "default1"),
        ("after deleting default1", [default_class2], 2000, "default2"),
        ("delete default priority class", [], DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, ""),
        ("update default class and remove its global default", [pc("default1", 1000, False)],
         DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, ""),
    ],
)
def test_default_priority(name, classes, want_value, want_name):
    got_name, got_value, policy = default_priority(classes)
    assert (got_name, got_value) == (want_name, want_value), name
    assert policy == PREEMPT_LOWER_PRIORITY


# --- TestPodAdmission ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, classes, the_pod, want_priority, want_error, want_policy",
    [
        ("Pod with priority class", [default_class1, nondefault_class1], pod("pod-w-priorityclass", class_name="default1"),
         1000, False, None),
        ("Pod without priority class", [default_class1], pod("pod-wo-priorityclass"), 1000, False, None),
        ("pod without priority class and no existing priority class", [], pod("pod-wo-priorityclass"),
         DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, False, None),
        ("pod without priority class and no default class", [nondefault_class1], pod("pod-wo-priorityclass"),
         DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, False, None),
        ("pod with a system priority class", [system_cluster_critical],
         pod("pod-w-system-priority", "kube-system", SYSTEM_CLUSTER_CRITICAL), SYSTEM_CRITICAL_PRIORITY, False, None),
        ("Pod with non-existing priority class", [default_class1, nondefault_class1],
         pod("pod-w-non-existing-priorityclass", class_name="non-existing"), 0, True, None),
        ("pod with integer priority", [], pod("pod-w-integer-priority", class_name="default1", priority=1000),
         0, True, None),
        ("mirror pod with system priority class", [system_cluster_critical],
         pod("mirror-pod-w-system-priority", "kube-system", "system-cluster-critical",
             annotations={"kubernetes.io/config.mirror": ""}), SYSTEM_CRITICAL_PRIORITY, False, None),
        ("mirror pod with integer priority", [],
         pod("mirror-pod-w-integer-priority", class_name="default1", priority=1000,
             annotations={"kubernetes.io/config.mirror": ""}), 0, True, None),
        ("pod with system critical priority in non-system namespace", [system_cluster_critical],
         pod("pod-w-system-priority-in-nonsystem-namespace", "non-system-namespace", SYSTEM_CLUSTER_CRITICAL),
         SYSTEM_CRITICAL_PRIORITY, False, None),
        ("pod with priority that matches computed priority", [nondefault_class1],
         pod("pod-w-zero-priority-in-nonsystem-namespace", "non-system-namespace", priority=0), 0, False, None),
        ("pod with priority that matches default priority", [default_class2],
         pod("pod-w-priority-matching-default-priority", "non-system-namespace", priority=2000), 2000, False, None),
        ("pod with priority that matches resolved priority", [system_cluster_critical],
         pod("pod-w-priority-matching-resolved-default-priority", "kube-system", SYSTEM_CLUSTER_CRITICAL,
             SYSTEM_CRITICAL_PRIORITY), SYSTEM_CRITICAL_PRIORITY, False, None),
        ("pod with nil preemption policy", [preemption_policy_class],
         pod("pod-never-preemption-policy-matching-resolved-preemption-policy", "kube-system",
             never_preemption_policy_class.metadata.name, 2000), 2000, False, PREEMPT_LOWER_PRIORITY),
        ("pod with preemption policy that matches resolved preemption policy", [preemption_policy_class],
         pod("pod-preemption-policy-matching-resolved-preemption-policy", "kube-system", "nopreemptionpolicy", 2000,
             PREEMPT_LOWER_PRIORITY), 2000, False, PREEMPT_LOWER_PRIORITY),
        ("pod with preemption policy that doesn't match resolved preemption policy", [preemption_policy_class],
         pod("pod-preemption-policy-not-matching-resolved-preemption-policy", "kube-system", "nopreemptionpolicy", 2000,
             PREEMPT_NEVER), 2000, True, None),
    ],
)
def test_pod_admission(name, classes, the_pod, want_priority, want_error, want_policy):
    before = copy.deepcopy(the_pod.to_dict())
    if want_error:
        with pytest.raises(FieldError):
            apply_priority_admission(the_pod, classes)
        assert the_pod.to_dict() == before, "a rejected pod is not modified"
        return
    apply_priority_admission(the_pod, classes)
    assert the_pod.spec.priority == want_priority, name
    if want_policy is not None:
        assert the_pod.spec.preemptionPolicy == want_policy
    # Admission is idempotent (upstream runs it with reinvocation testing).
    apply_priority_admission(the_pod, classes)
    assert the_pod.spec.priority == want_priority


def test_error_messages():
    with pytest.raises(FieldError) as e:
        apply_priority_admission(pod("p", class_name="non-existing"), [default_class1])
    assert str(e.value) == "spec.priorityClassName: no PriorityClass with name non-existing was found"
    with pytest.raises(FieldError) as e:
        apply_priority_admission(pod("p", class_name="default1", priority=5), [default_class1])
    assert str(e.value) == ("spec.priority: the integer value of priority (5) must not be provided in pod spec; "
                            "priority admission controller computed 1000 from the given PriorityClass name")
    with pytest.raises(FieldError) as e:
        apply_priority_admission(pod("p", class_name="nopreemptionpolicy", preemption_policy=PREEMPT_LOWER_PRIORITY),
                                 [never_preemption_policy_class])
    assert str(e.value) == ("spec.preemptionPolicy: the string value of PreemptionPolicy (PreemptLowerPriority) must "
                            "not be provided in pod spec; priority admission controller computed Never from the given "
                            "PriorityClass name")


def test_default_class_name_and_policy_are_recorded():
    p = pod("p")
    apply_priority_admission(p, [never_preemption_policy_class])
    assert (p.spec.priorityClassName, p.spec.priority, p.spec.preemptionPolicy) == ("nopreemptionpolicy", 2000, "Never")
    p = pod("p")
    apply_priority_admission(p, [])
    assert (p.spec.priorityClassName, p.spec.priority, p.spec.preemptionPolicy) == (None, 0, "PreemptLowerPriority")


def test_system_classes_exist_without_being_listed():
    p = pod("p", "kube-system", SYSTEM_NODE_CRITICAL)
    apply_priority_admission(p, [])
    assert p.spec.priority == SYSTEM_CRITICAL_PRIORITY + 1000
    with pytest.raises(FieldError):
        apply_priority_admission(pod("p", class_name=SYSTEM_NODE_CRITICAL), [], include_system_classes=False)


def test_classes_as_mapping_and_dicts():
    classes = {"high": {"metadata": {"name": "high"}, "value": 100}}
    assert resolve_priority("high", classes) == ("high", 100, PREEMPT_LOWER_PRIORITY)


def test_pod_priority():
    assert pod_priority(pod("p")) == 0
    assert pod_priority(pod("p", priority=20)) == 20
