"""Feature gates at v1.34's defaults, ``--feature-gates`` with kube-apiserver's texts, and what the gates change."""

from __future__ import annotations

import pytest

from kubenotes.cli import main
from kubenotes.errors import ConfigError
from kubenotes.features import ALPHA, BETA, DEFAULT_FEATURE_GATES, DEPRECATED, GA, FeatureGate, feature_gates


@pytest.mark.parametrize(("name", "default", "stage", "locked"), [
    ("EnvFiles", False, ALPHA, False),                 # alpha in v1.34
    ("ImageVolume", False, BETA, False),               # beta, off by default in v1.34 (on in v1.35)
    ("PodLevelResources", True, BETA, False),          # beta and on in v1.34
    ("DynamicResourceAllocation", True, GA, False),    # GA in v1.34, not locked yet
    ("SidecarContainers", True, GA, True),             # GA in v1.33, locked
    ("JobPodReplacementPolicy", True, GA, True),       # GA in v1.34
    ("ContainerStopSignals", False, ALPHA, False),
    ("MaxUnavailableStatefulSet", False, ALPHA, False),  # beta only from v1.35
    ("KubeletRegistrationGetOnExistsOnly", False, DEPRECATED, False),
])
def test_v1_34_defaults(name, default, stage, locked):
    spec = DEFAULT_FEATURE_GATES[name]
    assert (spec.default, spec.pre_release, spec.lock_to_default) == (default, stage, locked)
    assert FeatureGate().enabled(name) is default


def test_gates_of_later_releases_are_unknown():
    for later in ("GangScheduling", "ImageVolumeWithDigest", "OpportunisticBatching"):  # added in v1.35
        assert later not in DEFAULT_FEATURE_GATES


@pytest.mark.parametrize(("value", "message"), [
    ("Foo=true", "unrecognized feature gate: Foo"),
    ("SidecarContainers=false", "cannot set feature gate SidecarContainers to false, feature is locked to true"),
    ("EnvFiles", "missing bool value for EnvFiles"),
    ("EnvFiles=yes", 'invalid value of EnvFiles=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'),
    ("SidecarContainers=false,NodeSwap=false",
     "[cannot set feature gate SidecarContainers to false, feature is locked to true, "
     "cannot set feature gate NodeSwap to false, feature is locked to true]"),
])
def test_flag_errors_have_kube_apiservers_text(value, message):
    with pytest.raises(ConfigError) as ei:
        FeatureGate.parse(value)
    assert str(ei.value) == f'invalid argument "{value}" for "--feature-gates" flag: {message}'


def test_flag_syntax_and_all_alpha():
    g = FeatureGate.parse(" EnvFiles = T ,, ImageVolume=1,PodLevelResources=false")
    assert (g.enabled("EnvFiles"), g.enabled("ImageVolume"), g.enabled("PodLevelResources")) == (True, True, False)
    g = feature_gates({"AllAlpha": True, "ContainerStopSignals": False})
    assert g.enabled("HostnameOverride") and not g.enabled("ContainerStopSignals") and not g.enabled("ImageVolume")
    assert feature_gates("AllBeta=true").enabled("ImageVolume")


IMAGE_VOLUME_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: iv}
spec:
  containers:
  - name: a
    image: nginx
    volumeMounts: [{name: data, mountPath: /data}]
    lifecycle: {stopSignal: SIGUSR1}
  volumes:
  - name: data
    image: {reference: "quay.io/data:1"}
"""


def test_cluster_drops_the_fields_of_disabled_gates_as_the_api_server_does():
    from kubenotes.sim.cluster import Cluster

    c = Cluster.from_manifests(IMAGE_VOLUME_POD, controllers=[], scheduler=False)
    spec = c.get("pods", "iv", "default")["spec"]
    assert [v["name"] for v in spec["volumes"]] == [v["name"] for v in spec["volumes"] if v["name"] != "data"]
    assert "volumeMounts" not in spec["containers"][0] or all(
        m["name"] != "data" for m in spec["containers"][0]["volumeMounts"])
    assert "lifecycle" not in spec["containers"][0]
    c = Cluster.from_manifests(IMAGE_VOLUME_POD, controllers=[], scheduler=False,
                               feature_gates={"ImageVolume": True, "ContainerStopSignals": True})
    spec = c.get("pods", "iv", "default")["spec"]
    assert {"name": "data", "image": {"reference": "quay.io/data:1"}} in spec["volumes"]
    assert spec["containers"][0]["lifecycle"] == {"stopSignal": "SIGUSR1"}


def test_update_keeps_a_field_already_in_use():
    from kubenotes.apiserver.server import APIServer

    api = APIServer(seed=1, feature_gates="ImageVolume=true")
    c = api.client()
    pod = c.create("pods", {"metadata": {"name": "w"}, "spec": {
        "containers": [{"name": "a", "image": "x"}],
        "volumes": [{"name": "d", "image": {"reference": "r:1"}}]}}, "default")
    api.feature_gates = feature_gates(None)  # the gate turned off after the pod was stored
    pod["metadata"]["labels"] = {"k": "v"}
    assert c.update("pods", pod, "default")["spec"]["volumes"] == [{"name": "d", "image": {"reference": "r:1"}}]


@pytest.mark.parametrize("command", ["validate", "schedule", "simulate", "serve"])
def test_commands_take_the_flag_and_refuse_a_bad_one(command, tmp_path, capsys):
    f = tmp_path / "p.yaml"
    f.write_text(IMAGE_VOLUME_POD)
    assert main([command, str(f), "--feature-gates", "NoSuchGate=true"]) == 2
    assert capsys.readouterr().err.strip() == (
        'invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate')


def test_validate_with_gates(tmp_path, capsys):
    f = tmp_path / "p.yaml"
    f.write_text(IMAGE_VOLUME_POD)
    assert main(["validate", str(f), "--feature-gates", "ImageVolume=true,ContainerStopSignals=true"]) == 0
    assert "1 objects valid (1 Pod)" in capsys.readouterr().out
