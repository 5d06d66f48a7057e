"""The pvc-protection and pv-protection controllers.

After kubernetes/kubernetes@v1.34.0 pkg/controller/volume/pvcprotection/pvc_protection_controller_test.go
(``TestPVCProtectionController``: "PVC without finalizer -> finalizer is added", "deleted PVC with
finalizer + pod with the PVC exists -> finalizer is not removed", "deleted PVC with finalizer + pod with
the PVC finished -> finalizer is removed", "deleted PVC with finalizer + pod not scheduled -> finalizer is
removed") and pvprotection/pv_protection_controller_test.go (``TestPVProtectionController``: "PV without
finalizer -> finalizer is added", "deleted PV with finalizer + PV is bound -> finalizer is not removed",
"deleted PV with finalizer + PV is not bound -> finalizer is removed"), each against a running cluster.
"""

from __future__ import annotations

from pv_framework import NS, cluster_with, new_claim, new_volume
from kubenotes.api.storagehelpers import PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER
from kubenotes.controllers.volume.protection import is_deletion_candidate, need_to_add_finalizer

PROTECTION = ("persistentvolumeclaim-protection-controller", "persistentvolume-protection-controller")


def _pod(name: str, claim: str, node: str = "", phase: str = "") -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS},
           "spec": {"containers": [{"name": "c", "image": "nginx"}],
                    "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": claim}}]}}
    if node:
        pod["spec"]["nodeName"] = node
    return pod


def _finalizers(c, resource, name, ns=None):
    obj = c.server.get(resource, ns, name)
    return None if obj is None else obj["metadata"].get("finalizers")


def test_pvc_without_finalizer_gets_it():
    c = cluster_with([], [new_claim("c", "u", "1Gi", "", "")], controllers=PROTECTION)
    c.run(until=1)
    assert _finalizers(c, "persistentvolumeclaims", "c", NS) == [PVC_PROTECTION_FINALIZER]


def test_deleted_pvc_used_by_a_scheduled_pod_keeps_its_finalizer_until_the_pod_finishes():
    c = cluster_with([], [new_claim("c", "u", "1Gi", "", "")], others=[_pod("p", "c", node="n1")],
                     controllers=PROTECTION)
    c.run(until=1)
    c.client.delete("persistentvolumeclaims", "c", NS)
    c.run(until=3)
    claim = c.server.get("persistentvolumeclaims", NS, "c")
    assert claim is not None and claim["metadata"]["deletionTimestamp"]  # Terminating
    assert claim["metadata"]["finalizers"] == [PVC_PROTECTION_FINALIZER]
    pod = c.get("pods", "p", NS)
    pod["status"] = {"phase": "Succeeded"}
    c.client.update_status("pods", pod, NS)
    c.run(until=5)
    assert c.server.get("persistentvolumeclaims", NS, "c") is None


def test_deleted_pvc_used_only_by_an_unscheduled_pod_goes():
    c = cluster_with([], [new_claim("c", "u", "1Gi", "", "")], others=[_pod("p", "c")], controllers=PROTECTION)
    c.run(until=1)
    c.client.delete("persistentvolumeclaims", "c", NS)
    c.run(until=3)
    assert c.server.get("persistentvolumeclaims", NS, "c") is None


def test_pv_protection():
    bound = new_volume("bound", "1Gi", "u", "c", "Bound")
    free = new_volume("free", "1Gi", "", "", "Available")
    c = cluster_with([bound, free], [], controllers=PROTECTION)
    c.run(until=1)
    assert _finalizers(c, "persistentvolumes", "bound") == [PV_PROTECTION_FINALIZER]
    for name in ("bound", "free"):
        c.client.delete("persistentvolumes", name)
    c.run(until=3)
    assert _finalizers(c, "persistentvolumes", "bound") == [PV_PROTECTION_FINALIZER]  # Bound: kept
    assert c.server.get("persistentvolumes", None, "free") is None


def test_protectionutil_helpers():
    md = {"metadata": {"finalizers": [PVC_PROTECTION_FINALIZER]}}
    assert not is_deletion_candidate(md, PVC_PROTECTION_FINALIZER)
    assert not need_to_add_finalizer(md, PVC_PROTECTION_FINALIZER)
    assert need_to_add_finalizer({"metadata": {}}, PVC_PROTECTION_FINALIZER)
    assert not need_to_add_finalizer({"metadata": {"deletionTimestamp": "t"}}, PVC_PROTECTION_FINALIZER)
