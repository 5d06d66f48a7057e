"""The real kubectl against MutatingAdmissionPolicy served by ``serve`` (gate and --runtime-config on).

kubectl lists the kinds, creates a policy that adds a label to new pods and its
binding (validated client-side against the served OpenAPI v3 document), explains a
field, then creates a pod, which is stored mutated (that the API is not served
without the gate is tested in-process). Expected lines are kubectl's own.
"""

from __future__ import annotations

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

POLICY_YAML = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: add-team-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"team": "blue"}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: add-team-label}
spec: {policyName: add-team-label}
"""


def test_kubectl_creates_a_policy_and_its_binding_and_a_pod_is_mutated(kubectl_required, tmp_path):
    f = tmp_path / "map.yaml"
    f.write_text(POLICY_YAML)
    c = Cluster(feature_gates={"MutatingAdmissionPolicy": True},
                runtime_config="admissionregistration.k8s.io/v1beta1=true")
    s = serve(c, port=0, time_scale=0)
    try:
        r = s.kubectl("api-resources", "--api-group=admissionregistration.k8s.io")
        assert ["mutatingadmissionpolicies", "admissionregistration.k8s.io/v1beta1", "false",
                "MutatingAdmissionPolicy"] in [ln.split() for ln in r.stdout.splitlines()], r.stdout + r.stderr
        r = s.kubectl("create", "-f", str(f))
        assert (r.returncode, r.stdout.splitlines()) == (0, [
            "mutatingadmissionpolicy.admissionregistration.k8s.io/add-team-label created",
            "mutatingadmissionpolicybinding.admissionregistration.k8s.io/add-team-label created"]), r.stderr
        r = s.kubectl("explain", "mutatingadmissionpolicy.spec.reinvocationPolicy")
        assert r.returncode == 0 and "KIND:       MutatingAdmissionPolicy" in r.stdout, r.stdout + r.stderr
        assert "VERSION:    v1beta1" in r.stdout and "FIELD: reinvocationPolicy" in r.stdout
        r = s.kubectl("run", "web", "--image=nginx")
        assert (r.returncode, r.stdout.strip()) == (0, "pod/web created"), r.stderr
        r = s.kubectl("get", "pod", "web", "-o", "jsonpath={.metadata.labels.team}")
        assert (r.returncode, r.stdout) == (0, "blue"), r.stderr
    finally:
        s.stop()
