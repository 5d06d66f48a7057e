"""``kind: Scenario`` documents: parsing, one-line errors naming file, document, object and field."""

from __future__ import annotations

import pytest

from kubenotes.api.manifests import load_manifests
from kubenotes.errors import ManifestError
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.scenario import parse_scenario, start_scenario

HEAD = "apiVersion: kubenotes.io/v1\nkind: Scenario\nmetadata: {name: s}\n"


def _parse(text: str):
    m = load_manifests(text, defaults=False)
    (o,) = [o for o in m if o.kind == "Scenario"]
    return parse_scenario(o.obj, o.source, o.doc)


def test_steps_are_sorted_by_time_and_keep_their_order_for_equal_times():
    s = _parse(HEAD + """spec:
  steps:
  - {at: 30, scale: {kind: Deployment, namespace: web, name: web, replicas: 6}}
  - {at: 10, nodeDown: {name: n1}}
  - {at: 30, nodeUp: {name: n1}}
""")
    assert [(st.at_seconds, st.action) for st in s.steps] == [(10.0, "nodeDown"), (30.0, "scale"), (30.0, "nodeUp")]


@pytest.mark.parametrize("steps, message", [
    ("[{at: 5}]", "spec.steps[0]: Required value: one action of apply, delete, scale, setImage, patch, "
                  "nodeDown, nodeUp, metric, containerExit, probe, usage, staticPod, rollingUpdate, systemUsage"),
    ("[{at: -1, nodeUp: {name: n}}]", "spec.steps[0].at: Invalid value: -1: must be greater than or equal to 0"),
    ("[{at: x, nodeUp: {name: n}}]", "spec.steps[0].at: Required value: seconds (a number)"),
    ("[{at: 1, reboot: {name: n}}]", 'spec.steps[0].reboot: Unsupported value: "reboot": supported values: '
                                      '"apply", "delete", "scale", "setImage", "patch", "nodeDown", "nodeUp", "metric", '
                                      '"containerExit", "probe", "usage", "staticPod", "rollingUpdate", "systemUsage"'),
    ("[{at: 1, probe: {name: p, container: c, probe: sniff, result: failure}}]",
     'spec.steps[0].probe.probe: Unsupported value: "sniff": supported values: "liveness", "readiness", "startup"'),
    ("[{at: 1, containerExit: {name: p, container: c, exitCode: x}}]",
     "spec.steps[0].containerExit.exitCode: Invalid value: 'x': must be an integer"),
    ("[{at: 1, scale: {kind: Deployment, name: web}}]", "spec.steps[0].scale.replicas: Required value"),
    ("[{at: 1, scale: {kind: Deployment, name: web, replicas: -2}}]",
     "spec.steps[0].scale.replicas: Invalid value: -2: must be a whole number >= 0"),
    ("[{at: 1, delete: {kind: Widget, name: w}}]", 'spec.steps[0].delete.kind: Unsupported value: "Widget"'),
    ("[{at: 1, nodeUp: {name: a}, nodeDown: {name: a}}]",
     "spec.steps[0]: Invalid value: more than one action of apply, delete, scale, setImage, patch, nodeDown, "
     "nodeUp, metric, containerExit, probe, usage, staticPod, rollingUpdate, systemUsage"),
])
def test_a_malformed_scenario_is_one_line_naming_the_field(steps, message):
    with pytest.raises(ManifestError) as e:
        _parse(HEAD + f"spec:\n  steps: {steps}\n")
    assert str(e.value) == f"<string> doc 1 Scenario s: {message}"


RC = "{apiVersion: v1, kind: ReplicationController, metadata: {name: web-v2}, spec: {replicas: 1}}"


@pytest.mark.parametrize("spec, message", [
    ("{cluster: {kubelet: hollow}, steps: []}",
     'spec.cluster.kubelet: Unsupported value: "hollow": supported values: "model", "stand-in"'),
    ("{cluster: {nodes: 3}, steps: []}",
     'spec.cluster.nodes: Unsupported value: "nodes": supported values: "kubelet", "podStartupSeconds", '
     '"controllers", "controllerManager", "kubeletConfiguration", "network", "requestCosts", "operators"'),
    ("{cluster: {operators: [rook-ceph-operator, etcd-operator]}, steps: []}",
     'spec.cluster.operators[1]: Unsupported value: "etcd-operator": not an operator of kubenotes.operators'),
    ("{cluster: {operators: rook-ceph-operator}, steps: []}",
     "spec.cluster.operators: Invalid value: expected a list of operator names"),
    ("{cluster: {podStartupSeconds: -1}, steps: []}",
     "spec.cluster.podStartupSeconds: Invalid value: -1: must be a number >= 0"),
    ("{cluster: {controllers: [replicaset-controller, shepherd]}, steps: []}",
     'spec.cluster.controllers[1]: Unsupported value: "shepherd": not a controller of kubenotes.controllers'),
    ("{cluster: {controllerManager: [a]}, steps: []}",
     "spec.cluster.controllerManager: Invalid value: expected a mapping of kube-controller-manager flags"),
    ("{cluster: [a], steps: []}", "spec.cluster: Invalid value: expected a mapping, got list"),
    ("{cluster: {kubeletConfiguration: {evictionHard: {memory.free: 1Gi}}}, steps: []}",
     "spec.cluster.kubeletConfiguration.evictionHard: Invalid value: unsupported eviction signal memory.free"),
    ("{cluster: {kubeletConfiguration: {evictionSoft: {memory.available: 1Gi}}}, steps: []}",
     "spec.cluster.kubeletConfiguration.evictionSoft: Invalid value: grace period must be specified for the soft "
     "eviction threshold memory.available"),
    ("{cluster: {kubeletConfiguration: {evictionPressureTransitionPeriod: soon}}, steps: []}",
     'spec.cluster.kubeletConfiguration.evictionPressureTransitionPeriod: Invalid value: time: invalid duration "soon"'),
    ("{cluster: {kubeletConfiguration: {evictionMaxPodGracePeriod: -3}}, steps: []}",
     "spec.cluster.kubeletConfiguration.evictionMaxPodGracePeriod: Invalid value: -3: must be a whole number >= 0"),
    ("{cluster: {kubeletConfiguration: {maxPods: 10}}, steps: []}",
     'spec.cluster.kubeletConfiguration.maxPods: Unsupported value: "maxPods": supported values: "evictionHard", '
     '"evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim", "evictionMaxPodGracePeriod", '
     '"evictionPressureTransitionPeriod", "imageGCHighThresholdPercent", "imageGCLowThresholdPercent", '
     '"imageMinimumGCAge"'),
    ("{steps: [{at: 1, systemUsage: {node: n1, memoryBytes: 1.5}}]}",
     "spec.steps[0].systemUsage.memoryBytes: Invalid value: 1.5: must be a whole number >= 0"),
    ("{steps: [{at: 1, systemUsage: {memoryBytes: 1}}]}", "spec.steps[0].systemUsage.node: Required value"),
    ("{steps: [{at: 1, rollingUpdate: {kind: ReplicationController, name: web-v1}}]}",
     "spec.steps[0].rollingUpdate.object: Required value"),
    ("{steps: [{at: 1, rollingUpdate: {kind: Deployment, name: web, object: %s}}]}" % RC,
     'spec.steps[0].rollingUpdate.kind: Unsupported value: "Deployment": supported values: "ReplicationController"'),
    ("{steps: [{at: 1, rollingUpdate: {kind: ReplicationController, name: web-v1, object: {kind: Pod}}}]}",
     "spec.steps[0].rollingUpdate.object.metadata.name: Required value"),
    ("{steps: [{at: 1, rollingUpdate: {kind: ReplicationController, name: web-v1, object: %s, "
     "updatePeriodSeconds: soon}}]}" % RC,
     "spec.steps[0].rollingUpdate.updatePeriodSeconds: Invalid value: 'soon': must be a number >= 0"),
])
def test_a_malformed_cluster_section_or_rolling_update_is_one_line(spec, message):
    with pytest.raises(ManifestError) as e:
        _parse(HEAD + f"spec: {spec}\n")
    assert str(e.value) == f"<string> doc 1 Scenario s: {message}"


def test_kubelet_configuration_reaches_the_kubelet_model_and_system_usage_its_stats():
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.scenario import cluster_options, start_scenario

    s = _parse(HEAD + """spec:
  cluster:
    kubeletConfiguration:
      evictionHard: {memory.available: 200Mi}
      evictionSoft: {memory.available: 1Gi}
      evictionSoftGracePeriod: {memory.available: 1m30s}
      evictionMaxPodGracePeriod: 20
      evictionPressureTransitionPeriod: 1m
  steps:
  - {at: 5, systemUsage: {node: n1, memoryBytes: 268435456, diskBytes: 1073741824}}
""")
    opts = cluster_options([s])
    cfg = opts["kubelet_options"]
    assert (cfg.eviction_hard, cfg.eviction_soft_grace_period, cfg.eviction_max_pod_grace_period_seconds,
            cfg.eviction_pressure_transition_period_seconds) == (
        {"memory.available": "200Mi"}, {"memory.available": "1m30s"}, 20, 60.0)
    assert "kubelet_options" not in cluster_options([s], kubelet="stand-in")
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"capacity": {"cpu": "2", "memory": "1Gi", "pods": "110", "ephemeral-storage": "10Gi"}}}
    c = Cluster([node], controllers=[], **{k: v for k, v in opts.items() if k != "controllers"})
    start_scenario(c, s)
    c.run(until=11)
    kubelet = c.kubelets["n1"]
    assert [(str(t.value), t.grace_period_seconds) for t in kubelet.eviction_manager.thresholds] == [
        ("200Mi", 0.0), ("1Gi", 90.0)]
    r = kubelet.eviction_manager.timeline[-1]
    assert r.time == 10.0 and r.observations["memory.available"] == (768 * 2**20, 2**30)
    assert r.observations["nodefs.available"][0] <= 9 * 2**30
    log = [e for e in c.audit_log if e.component == "scenario"]
    assert [(e.verb, e.kind, e.name, e.detail) for e in log] == [
        ("systemUsage", "Node", "n1", "memoryBytes=268435456, diskBytes=1073741824")]


def test_the_cluster_section_gives_the_clusters_options_and_the_command_line_wins():
    from kubenotes.sim.scenario import cluster_options

    s = _parse(HEAD + """spec:
  cluster: {kubelet: stand-in, podStartupSeconds: 5, controllers: [], controllerManager: {node-monitor-grace-period: 20}}
  steps: []
""")
    opts = cluster_options([s])
    assert opts["kubelet"] == "stand-in" and opts["kubelet_options"].pod_startup_seconds == 5.0
    assert opts["controllers"] == [] and opts["options"] == {"node-monitor-grace-period": 20}
    model = cluster_options([s], kubelet="model")
    assert model["kubelet"] == "model" and "kubelet_options" not in model
    from kubenotes.sim.costs import RequestCosts

    assert cluster_options([]) == {"kubelet": "model", "request_costs": RequestCosts()}  # realistic by default


def test_delete_step_force_and_selector_as_kubectl_delete():
    """kubectl delete: --grace-period=0 without --force becomes 1; --force alone is 0; a field selector picks pods."""
    from kubenotes.sim.scenario import _delete_grace_period

    assert _delete_grace_period({"gracePeriodSeconds": 0}) == 1
    assert _delete_grace_period({"gracePeriodSeconds": 0, "force": True}) == 0
    assert _delete_grace_period({"force": True}) == 0
    assert _delete_grace_period({"gracePeriodSeconds": 5}) == 5 and _delete_grace_period({}) is None
    base = {"apiVersion": "kubenotes.io/v1", "kind": "Scenario", "metadata": {"name": "s"}}
    for delete, field in (({"kind": "Pod"}, "delete.name"), ({"kind": "Pod", "name": "p", "gracePeriodSeconds": -1},
                                                             "delete.gracePeriodSeconds"),
                          ({"kind": "Pod", "name": "p", "force": "yes"}, "delete.force")):
        with pytest.raises(ManifestError, match=rf"spec\.steps\[0\]\.{field}"):
            parse_scenario({**base, "spec": {"steps": [{"at": 1, "delete": delete}]}})
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "default"},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]}}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    scenario = parse_scenario({**base, "spec": {"steps": [{"at": 1, "delete": {
        "kind": "Pod", "namespace": "default", "fieldSelector": "spec.nodeName=n1", "force": True}}]}})
    c = Cluster([node, pod, {**pod, "metadata": {"name": "b", "namespace": "default"}}],
                controllers=[], kubelet="stand-in", scheduler=False)
    c.run(until=0.5)
    start_scenario(c, scenario)
    c.run(until=1.5)
    assert c.list("pods") == []  # gone at once: no kubelet had to confirm
    assert [(a.name, a.verb) for a in c.audit_log if a.component == "kubectl" and a.kind == "Pod"][-2:] == [
        ("a", "delete"), ("b", "delete")]
