"""data/storage/csi-attach.yaml end to end: the pod's CSI volume attached to its node, detached when it goes."""

from __future__ import annotations

import json

from kubenotes.cli import main
from kubenotes.api.storagehelpers import csi_attachment_name as attachment_name
from kubenotes.data import sample
from kubenotes.sim.cli import build

DRIVER = "hostpath.csi.k8s.io"


def test_attachment_follows_the_pod():
    c = build([sample("storage", "csi-attach.yaml")], kubelet="stand-in")
    c.run(until=20)
    pod = c.get("pods", "csi-app", "default")
    assert pod["status"]["phase"] == "Running"
    node = pod["spec"]["nodeName"]
    (va,) = c.list("volumeattachments")
    assert va["metadata"]["name"] == attachment_name("vol-csi-data", DRIVER, node)
    assert va["status"]["attached"] is True
    assert va["metadata"]["finalizers"] == ["external-attacher/hostpath-csi-k8s-io"]
    assert sorted(d["name"] for n in c.list("csinodes") for d in n["spec"]["drivers"]) == [DRIVER, DRIVER]
    c.run(until=60)  # the scenario deletes the pod at t=30
    assert c.list("volumeattachments") == []
    methods = [e["method"] for e in c.csi[DRIVER].trace if e["service"] == "Controller"]
    assert methods == ["ControllerPublishVolume", "ControllerUnpublishVolume"]


def test_simulate_output_csi(capsys):
    assert main(["simulate", str(sample("storage", "csi-attach.yaml")), "--until", "40", "--kubelet", "stand-in",
                 "-o", "csi"]) == 0
    calls = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # each sidecar (external-attacher, -provisioner, -resizer) asks the driver its name when it starts
    assert [(c["service"], c["method"]) for c in calls] == [
        ("Node", "NodeGetInfo"), ("Node", "NodeGetInfo"), ("Identity", "GetPluginInfo"),
        ("Identity", "GetPluginInfo"), ("Identity", "GetPluginInfo"),
        ("Controller", "ControllerPublishVolume"), ("Controller", "ControllerUnpublishVolume")]
    assert calls[5]["request"]["volume_id"] == "vol-csi-data" and calls[5]["code"] == "OK"
