"""The model's reading of commands and scripts, and the kubelet's environment (makeEnvironmentVariables)."""

from __future__ import annotations

import math

import pytest

from kubenotes.cri.runtime import RUNS_FOREVER, command_outcome, default_process_model
from kubenotes.kubelet.envvars import make_environment_variables
from kubenotes.kubelet.process_model import exec_probe_outcome, file_timeline, is_batch_pod, run_outcome

LIVENESS_ARGV = ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"]


@pytest.mark.parametrize("argv,expected", [
    (["sleep", "infinity"], RUNS_FOREVER),
    (["sh", "-c", "tail -f /dev/null"], RUNS_FOREVER),
    (["sh", "-c", "while true; do echo hello; sleep 10; done"], RUNS_FOREVER),
    (["sh", "-c", "while true; do sleep 1; break; done"], None),
    (LIVENESS_ARGV, (630.0, 0)),
    (["perl", "-e", "print 1"], None),
    ([], None),
])
def test_command_outcome_tells_forever_from_unreadable(argv, expected):
    assert command_outcome(argv) == expected
    assert default_process_model(argv) == (expected if isinstance(expected, tuple) else None)


def test_batch_pods_and_init_containers_get_the_assumed_run_time_sidecars_and_servers_do_not():
    pod = {"spec": {"restartPolicy": "Always",
                    "initContainers": [{"name": "init"}, {"name": "side", "restartPolicy": "Always"}],
                    "containers": [{"name": "app"}]}}
    assert run_outcome(pod, "init", ["flyway", "migrate"], 7) == ((7, 0), True)
    assert run_outcome(pod, "side", ["fluent-bit"], 7) == (None, False)
    assert run_outcome(pod, "app", ["server"], 7) == (None, False)
    assert run_outcome(pod, "app", ["sleep", "infinity"], 7) == (None, False)
    for policy in ("Never", "OnFailure"):
        batch = {"spec": dict(pod["spec"], restartPolicy=policy)}
        assert is_batch_pod(batch)
        assert run_outcome(batch, "app", ["server"], 7) == ((7, 0), True)
        assert run_outcome(batch, "app", ["sleep", "infinity"], 7) == (None, False)
        assert run_outcome(batch, "app", ["sh", "-c", "exit 4"], 7) == ((0.0, 4), False)
        assert run_outcome(batch, "side", ["fluent-bit"], 7) == (None, False)


def test_file_timeline_and_exec_probes_on_the_scripts_files():
    changes, known = file_timeline(LIVENESS_ARGV)
    assert changes == {"/tmp/healthy": [(0.0, True), (30.0, False)]} and math.isinf(known)
    probe = {"exec": {"command": ["cat", "/tmp/healthy"]}}
    assert exec_probe_outcome(probe, LIVENESS_ARGV, "busybox", 29.9) == ("success", "")
    assert exec_probe_outcome(probe, LIVENESS_ARGV, "debian:12", 31) == (
        "failure", "cat: /tmp/healthy: No such file or directory")
    test_probe = {"exec": {"command": ["sh", "-c", "test -e /tmp/healthy"]}}
    assert exec_probe_outcome(test_probe, LIVENESS_ARGV, "busybox", 31) == ("failure", "")
    # a file the script never names, a probe on two files, a script the model stops reading
    assert exec_probe_outcome({"exec": {"command": ["cat", "/etc/ready"]}}, LIVENESS_ARGV, "busybox", 1) is None
    assert exec_probe_outcome({"exec": {"command": ["cat", "/a", "/b"]}}, LIVENESS_ARGV, "busybox", 1) is None
    loop = ["sh", "-c", "touch /tmp/ok; myserver --port 80"]
    assert exec_probe_outcome(probe | {"exec": {"command": ["cat", "/tmp/ok"]}}, loop, "busybox", 0) == ("success", "")
    assert exec_probe_outcome({"exec": {"command": ["cat", "/tmp/ok"]}}, loop, "busybox", 5) is None


def test_environment_order_prefix_and_precedence_follow_make_environment_variables():
    pod = {"metadata": {"name": "p", "namespace": "shop", "uid": "u1", "labels": {"app": "web"}},
           "spec": {"nodeName": "n1"}, "status": {"hostIP": "10.0.0.2"}}
    config = {"data": {"A": "from-cm", "B": "b"}}
    container = {"name": "c",
                 "envFrom": [{"configMapRef": {"name": "cm"}, "prefix": "CM_"}, {"configMapRef": {"name": "cm"}}],
                 "env": [{"name": "A", "value": "literal $(B) $(KUBERNETES_SERVICE_HOST) $(NOPE)"},
                         {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                         {"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
                         {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                         {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory"}}}]}
    got = make_environment_variables(pod, container, {"KUBERNETES_SERVICE_HOST": "10.96.0.1", "A": "svc"},
                                     lambda ns, name: config if (ns, name) == ("shop", "cm") else None,
                                     lambda ns, name: None, pod_ip="10.244.1.5")
    assert got.ok and got.unknown == frozenset({"MEM"})
    assert got.variables == [("CM_A", "from-cm"), ("CM_B", "b"), ("A", "literal b 10.96.0.1 $(NOPE)"), ("B", "b"),
                             ("POD", "p"), ("APP", "web"), ("IP", "10.244.1.5"), ("MEM", ""),
                             ("KUBERNETES_SERVICE_HOST", "10.96.0.1")]
    missing = make_environment_variables(pod, {"name": "c", "envFrom": [{"secretRef": {"name": "s"}}]}, {},
                                         lambda ns, name: None, lambda ns, name: None)
    assert not missing.ok and missing.error == 'secret "s" not found'
