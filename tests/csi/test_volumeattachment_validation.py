"""The API server validates VolumeAttachments as v1.34's storage validation and registry strategy do."""

from __future__ import annotations

import pytest

from kubenotes.apiserver.status import ApiError
from kubenotes.sim.cluster import Cluster


def _va(**spec):
    base = {"attacher": "hostpath.csi.k8s.io", "nodeName": "n1", "source": {"persistentVolumeName": "pv-1"}}
    base.update(spec)
    return {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "csi-abc"},
            "spec": base}


@pytest.fixture(scope="module")
def cluster():
    return Cluster([], controllers=[], scheduler=False, kubelet="stand-in")


def _causes(cluster, obj):
    with pytest.raises(ApiError) as e:
        cluster.client.create("volumeattachments", obj)
    assert e.value.code == 422
    return [f'{c["field"]}: {c["message"]}' for c in e.value.status["details"]["causes"]]


def test_valid_attachment_is_stored_with_attached_false(cluster):
    va = cluster.client.create("volumeattachments", _va())
    assert va["spec"]["source"] == {"persistentVolumeName": "pv-1"}
    cluster.client.delete("volumeattachments", "csi-abc")


def test_source_needs_exactly_one_of_pv_and_inline(cluster):
    assert "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName" \
        in _causes(cluster, _va(source={}))
    inline = {"csi": {"driver": "d", "volumeHandle": "h"}}
    both = _va(source={"persistentVolumeName": "pv-1", "inlineVolumeSpec": inline})
    assert "spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName" \
        in _causes(cluster, both)


def test_attacher_and_node_name(cluster):
    msgs = _causes(cluster, _va(attacher="", nodeName="Bad_Node"))
    assert msgs.count("spec.attacher: Required value") == 2  # ValidateVolumeAttachment and ...V1 both say so
    assert any(m.startswith('spec.nodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain') for m in msgs)


def test_spec_is_immutable_on_update(cluster):
    cluster.client.create("volumeattachments", _va())
    va = cluster.client.get("volumeattachments", "csi-abc")
    va["spec"]["nodeName"] = "n2"
    with pytest.raises(ApiError) as e:
        cluster.client.update("volumeattachments", va)
    assert e.value.code == 422
    cause = e.value.status["details"]["causes"][0]
    assert cause["field"] == "spec" and cause["message"].startswith('Invalid value: {"attacher":')
    assert cause["message"].endswith(": field is immutable")
    va = cluster.client.get("volumeattachments", "csi-abc")
    va["status"] = {"attached": True, "attachmentMetadata": {"devicePath": "/dev/x"}}
    assert cluster.client.update_status("volumeattachments", va)["status"]["attached"] is True
    cluster.client.delete("volumeattachments", "csi-abc")
