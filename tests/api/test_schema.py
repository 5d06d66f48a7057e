"""The schema is v1.34's: model classes pinned to lightkube-models 1.34, later fields unknown, required defaults."""

from __future__ import annotations

import pytest

from kubenotes.api.manifests import load_manifests
from kubenotes.api.schema import SCHEMA_SERIES, fill_required_defaults, models_version
from kubenotes.apiserver.fieldvalidation import check_fields
from kubenotes.apiserver.status import ApiError
from kubenotes.errors import ManifestError

POD_WITH_EMPTYDIR_MODE = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
    "spec": {"containers": [{"name": "a", "image": "x"}], "volumes": [{"name": "v", "emptyDir": {"mode": "0700"}}]}}


def test_model_classes_are_the_1_34_series():
    assert SCHEMA_SERIES == "1.34" and models_version().startswith("1.34.")


def test_a_field_added_after_v1_34_is_an_unknown_field():
    with pytest.raises(ApiError) as ei:
        check_fields(dict(POD_WITH_EMPTYDIR_MODE), "Strict")
    assert str(ei.value) == ('Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
                             'unknown field "spec.volumes[0].emptyDir.mode"')
    warned = {**POD_WITH_EMPTYDIR_MODE, "spec": {**POD_WITH_EMPTYDIR_MODE["spec"],
                                                 "volumes": [{"name": "v", "emptyDir": {"mode": "0700"}}]}}
    assert check_fields(warned, "Warn") == ['unknown field "spec.volumes[0].emptyDir.mode"']
    assert warned["spec"]["volumes"] == [{"name": "v", "emptyDir": {}}]
    with pytest.raises(ManifestError, match=r'Pod default/p: unknown field "spec.volumes\[0\].emptyDir.mode"$'):
        load_manifests("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: x}]\n"
                       "  volumes: [{name: v, emptyDir: {mode: \"0700\"}}]\n", defaults=False)


JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget}]
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


def test_a_required_field_upstream_defaults_is_defaulted():
    job = load_manifests(JOB).of_kind("Job")[0]
    assert job.spec.podFailurePolicy.rules[0].onPodConditions[0].status == "True"  # SetDefaults_Job


def test_zero_valued_fields_the_classes_require():
    pc = load_manifests("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\n",
                        defaults=False).priority_classes[0]
    assert pc.value == 0
    pdb = load_manifests("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n"
                         "spec: {minAvailable: 1}\nstatus: {disruptionsAllowed: 1}\n", defaults=False)
    st = pdb.of_kind("PodDisruptionBudget")[0].status
    assert (st.disruptionsAllowed, st.currentHealthy, st.desiredHealthy, st.expectedPods) == (1, 0, 0, 0)


def test_a_field_validation_requires_stays_required():
    with pytest.raises(ManifestError, match=r"spec.containers\[0\].name: Required value$"):
        load_manifests("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{image: x}]}\n",
                       defaults=False)


def test_the_api_server_defaults_before_decoding_too():
    from kubenotes.apiserver.server import APIServer
    import yaml

    c = APIServer(seed=1).client()
    job = c.create("jobs", yaml.safe_load(JOB), "default")
    assert job["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"] == [
        {"type": "DisruptionTarget", "status": "True"}]


def test_fill_leaves_given_values_and_other_types_alone():
    from lightkube.resources.batch_v1 import Job

    d = {"spec": {"podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [
        {"type": "Ready", "status": "False"}]}]}}}
    assert fill_required_defaults(d, Job)["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"][0][
        "status"] == "False"
    assert fill_required_defaults("text", Job) == "text"
