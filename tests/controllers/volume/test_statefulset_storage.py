"""data/storage/statefulset.yaml end to end: claims per ordinal, bound by the PV controller, kept by the set.

The StatefulSet controller creates ``data-web-<ordinal>`` before each pod; DefaultStorageClass admission
gives each the default class; the PV controller binds each to the smallest matching Available NFS volume;
the pods run. A deleted pod comes back with the same claim; a scale-down keeps claims under the default
``persistentVolumeClaimRetentionPolicy`` (Retain) and deletes them under ``whenScaled: Delete`` (their
ownerReference to the pod, for the garbage collector), and the volumes of deleted claims go Released.

The scheduler runs its default profile: VolumeBinding, NodeVolumeLimits and VolumeZone pass each pod once
the PV controller has bound its claim (until then: "pod has unbound immediate PersistentVolumeClaims").
"""

from __future__ import annotations

import pathlib

import pytest

from kubenotes.sim.cluster import Cluster

DATA = pathlib.Path(__file__).resolve().parents[3] / "data" / "storage" / "statefulset.yaml"
NS = "default"


@pytest.fixture()
def cluster():
    c = Cluster.from_manifests(str(DATA), kubelet="stand-in")
    c.run(until=30)  # a pod waits for its claim's binding (its first attempt: unbound immediate claims), then runs
    return c


def _bindings(c):
    return {x["metadata"]["name"]: (x["status"]["phase"], x["spec"].get("volumeName"), x["spec"]["storageClassName"])
            for x in c.list("persistentvolumeclaims", NS)}


def test_claims_bind_smallest_first_and_pods_run(cluster):
    assert _bindings(cluster) == {"data-web-0": ("Bound", "nfs-1g-a", "standard"),
                                  "data-web-1": ("Bound", "nfs-1g-b", "standard"),
                                  "data-web-2": ("Bound", "nfs-5g", "standard")}
    assert {p["metadata"]["name"]: p["status"]["phase"] for p in cluster.list("pods", NS)} == {
        "web-0": "Running", "web-1": "Running", "web-2": "Running"}
    for pvc in cluster.list("persistentvolumeclaims", NS):
        assert pvc["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]


def test_a_deleted_pod_gets_its_claim_back(cluster):
    uid = cluster.get("persistentvolumeclaims", "data-web-1", NS)["metadata"]["uid"]
    cluster.client.delete("pods", "web-1", NS, grace_period_seconds=0)
    cluster.run(until=cluster.env.now + 30)
    pod = cluster.get("pods", "web-1", NS)
    assert pod["status"]["phase"] == "Running"
    assert [v["persistentVolumeClaim"]["claimName"] for v in pod["spec"]["volumes"] if "persistentVolumeClaim" in v] \
        == ["data-web-1"]
    claim = cluster.get("persistentvolumeclaims", "data-web-1", NS)
    assert claim["metadata"]["uid"] == uid and claim["spec"]["volumeName"] == "nfs-1g-b"


def test_scale_down_retains_claims_by_default_and_deletes_them_when_scaled_with_delete(cluster):
    cluster.client.scale("statefulsets", "web", 1, NS)
    cluster.run(until=cluster.env.now + 40)
    assert sorted(_bindings(cluster)) == ["data-web-0", "data-web-1", "data-web-2"]  # Retain
    sts = cluster.get("statefulsets", "web", NS)
    sts["spec"]["persistentVolumeClaimRetentionPolicy"] = {"whenDeleted": "Retain", "whenScaled": "Delete"}
    sts["spec"]["replicas"] = 3
    cluster.client.update("statefulsets", sts, NS)
    cluster.run(until=cluster.env.now + 40)
    cluster.client.scale("statefulsets", "web", 1, NS)
    cluster.run(until=cluster.env.now + 60)
    assert sorted(_bindings(cluster)) == ["data-web-0"]
    phases = {v["metadata"]["name"]: v["status"]["phase"] for v in cluster.list("persistentvolumes")}
    assert phases == {"nfs-1g-a": "Bound", "nfs-1g-b": "Released", "nfs-5g": "Released"}  # reclaim policy Retain


def test_real_kubectl_get_pv_pvc_sc_and_describe_pvc(kubectl_required, cluster):
    """The real kubectl against the served model: upstream's server-side columns and ``describe pvc``."""
    from kubenotes.sim.serve import serve

    s = serve(cluster, port=0, time_scale=0)
    try:
        r = s.kubectl("get", "pv,pvc,sc")
        assert r.returncode == 0, r.stderr
        lines = [ln.split() for ln in r.stdout.splitlines() if ln.strip()]
        assert lines[0] == ["NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS", "CLAIM",
                            "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"]
        assert lines[1][:7] == ["persistentvolume/nfs-1g-a", "1Gi", "RWO,RWX", "Retain", "Bound",
                                "default/data-web-0", "standard"]
        assert ["persistentvolumeclaim/data-web-2", "Bound", "nfs-5g", "5Gi", "RWO,RWX", "standard"] in [
            ln[:6] for ln in lines]
        assert ["storageclass.storage.k8s.io/standard", "(default)", "kubernetes.io/no-provisioner", "Retain",
                "Immediate", "false"] in [ln[:6] for ln in lines]
        r = s.kubectl("describe", "pvc", "data-web-0")
        assert r.returncode == 0, r.stderr
        assert "Status:        Bound" in r.stdout and "Volume:        nfs-1g-a" in r.stdout
        assert "Used By:       web-0" in r.stdout
    finally:
        s.stop()
