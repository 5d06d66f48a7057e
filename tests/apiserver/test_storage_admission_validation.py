"""PersistentVolume / PersistentVolumeClaim / StorageClass through the API server: defaults, admission, 422s.

After kubernetes/kubernetes@v1.34.0:

- plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go ``TestAdmission``: "no default,
  no modification of PVCs", "one default, modify PVC with class=nil", "one default, no modification of PVC
  with class=''", "one default, no modification of PVC with class='foo'", "two defaults, the newest one
  wins" (v1.26+), "one default, no modification of PVC with the beta class annotation".
- plugin/pkg/admission/storage/persistentvolume/resize/admission_test.go ``TestPVCResizeAdmission``:
  growing an unbound claim, a class without ``allowVolumeExpansion``, one with it, shrinking.
- pkg/apis/core/validation/validation_test.go ``TestValidatePersistentVolumes``,
  ``TestValidatePersistentVolumeClaim``, ``TestValidatePersistentVolumeClaimUpdate``,
  ``TestValidatePersistentVolumeSourceUpdate``: the field errors as the 422 names them.
- pkg/apis/storage/v1/defaults_test.go and core/v1/defaults_test.go: reclaim policies, binding mode,
  volumeMode; pkg/printers/internalversion/printers_test.go ``TestPrintPersistentVolume[Claim]`` columns.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.status import ApiError
from kubenotes.sim.cluster import Cluster

NS = "default"


def _claim(name="data", cls=..., size="1Gi", modes=("ReadWriteOnce",), annotations=None):
    c = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": NS},
         "spec": {"accessModes": list(modes), "resources": {"requests": {"storage": size}}}}
    if cls is not ...:
        c["spec"]["storageClassName"] = cls
    if annotations:
        c["metadata"]["annotations"] = annotations
    return c


def _sc(name, default=False, **kw):
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
          "provisioner": "example.com/x", **kw}
    if default:
        sc["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    return sc


def _pv(name="pv1", **spec):
    base = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data/x"}}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": base}


def _cluster(objs=()):
    return Cluster(list(objs), controllers=[], kubelet="stand-in", scheduler=False)


def _create_err(c, resource, obj, ns=None) -> ApiError:
    with pytest.raises(ApiError) as e:
        c.client.create(resource, obj, ns)
    return e.value


def _messages(e: ApiError) -> list[str]:
    return [f"{x['field']}: {x['message']}" for x in e.causes]


# --------------------------------------------------------------------------- DefaultStorageClass


@pytest.mark.parametrize("name,classes,claim,want", [
    ("no default, no modification of PVCs", [_sc("foo")], _claim(), None),
    ("one default, modify PVC with class=nil", [_sc("foo"), _sc("std", True)], _claim(), "std"),
    ("one default, no modification of PVC with class=''", [_sc("std", True)], _claim(cls=""), ""),
    ("one default, no modification of PVC with class='foo'", [_sc("std", True), _sc("foo")], _claim(cls="foo"), "foo"),
    ("one default, no modification of PVC with the beta class annotation", [_sc("std", True)],
     _claim(annotations={"volume.beta.kubernetes.io/storage-class": "foo"}), None),
])
def test_default_storage_class_admission(name, classes, claim, want):
    c = _cluster(classes)
    got = c.client.create("persistentvolumeclaims", claim, NS)
    assert got["spec"].get("storageClassName") == want


def test_two_defaults_the_newest_wins():
    c = _cluster([_sc("old", True)])
    c.run(until=5)
    c.client.create("storageclasses", _sc("new", True))
    assert c.client.create("persistentvolumeclaims", _claim(), NS)["spec"]["storageClassName"] == "new"


# --------------------------------------------------------------------------- PersistentVolumeClaimResize


def _bound_claim_cluster(cls_kw):
    c = _cluster([_sc("cls", **cls_kw), _claim(cls="cls")])
    cur = c.get("persistentvolumeclaims", "data", NS)
    cur["status"] = {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}
    cur["spec"]["volumeName"] = "pv1"
    c.client.update("persistentvolumeclaims", {**cur, "status": {}}, NS)
    c.client.update_status("persistentvolumeclaims", c.get("persistentvolumeclaims", "data", NS) | {
        "status": cur["status"]}, NS)
    return c


def _resize(c, size):
    cur = c.get("persistentvolumeclaims", "data", NS)
    cur["spec"]["resources"]["requests"]["storage"] = size
    return c.client.update("persistentvolumeclaims", cur, NS)


def test_resize_refused_for_unbound_claim():
    """Validation runs before validating admission: an unbound claim's size is simply immutable (422)."""
    c = _cluster([_sc("cls", allowVolumeExpansion=True), _claim(cls="cls")])
    with pytest.raises(ApiError) as e:
        _resize(c, "2Gi")
    assert e.value.code == 422 and _messages(e.value)[0].startswith("spec: Forbidden: spec is immutable")
    from kubenotes.apiserver.admission.persistentvolumeclaimresize import NOT_BOUND_MESSAGE

    assert NOT_BOUND_MESSAGE == "Only bound persistent volume claims can be expanded"


def test_resize_refused_without_allow_volume_expansion():
    c = _bound_claim_cluster({})
    with pytest.raises(ApiError) as e:
        _resize(c, "2Gi")
    assert e.value.code == 403
    assert str(e.value) == ('persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be '
                            'resized and the storageclass that provisions the pvc must support resize')


def test_resize_allowed_with_allow_volume_expansion_and_shrink_below_capacity_refused():
    c = _bound_claim_cluster({"allowVolumeExpansion": True})
    assert _resize(c, "2Gi")["spec"]["resources"]["requests"]["storage"] == "2Gi"
    with pytest.raises(ApiError) as e:
        _resize(c, "1Gi")  # status.capacity is still 1Gi
    assert e.value.code == 422
    assert _messages(e.value) == ["spec.resources.requests.storage: Forbidden: field can not be less than "
                                  "status.capacity"]


# --------------------------------------------------------------------------- validation (422)


def test_claim_with_unknown_access_mode_and_zero_size():
    e = _create_err(_cluster(), "persistentvolumeclaims", _claim(modes=("ReadWriteSometimes",), size="0"), NS)
    assert e.code == 422
    assert _messages(e) == [
        'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", '
        '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
        'spec.resources[storage]: Invalid value: "0": must be greater than zero']


def test_claim_without_access_modes_or_storage_and_rwop_mixed():
    claim = _claim(modes=())
    del claim["spec"]["resources"]
    assert _messages(_create_err(_cluster(), "persistentvolumeclaims", claim, NS)) == [
        "spec.accessModes: Required value: at least 1 access mode is required",
        "spec.resources[storage]: Required value"]
    mixed = _claim(modes=("ReadWriteOncePod", "ReadWriteOnce"))
    assert _messages(_create_err(_cluster(), "persistentvolumeclaims", mixed, NS)) == [
        "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"]


def test_claim_spec_is_immutable_except_storage_of_bound_claims():
    c = _cluster([_claim(cls="")])
    cur = c.get("persistentvolumeclaims", "data", NS)
    cur["spec"]["accessModes"] = ["ReadWriteMany"]
    with pytest.raises(ApiError) as e:
        c.client.update("persistentvolumeclaims", cur, NS)
    msg = _messages(e.value)[0]
    assert msg.startswith("spec: Forbidden: spec is immutable after creation except resources.requests and "
                          "volumeAttributesClassName for bound claims\n")
    # volumeName may be set once (the PV controller's bind)
    cur = c.get("persistentvolumeclaims", "data", NS)
    cur["spec"]["volumeName"] = "pv1"
    assert c.client.update("persistentvolumeclaims", cur, NS)["spec"]["volumeName"] == "pv1"
    cur = c.get("persistentvolumeclaims", "data", NS)
    cur["spec"]["volumeName"] = "pv2"
    with pytest.raises(ApiError):
        c.client.update("persistentvolumeclaims", cur, NS)


def test_volume_needs_one_source_and_known_modes():
    pv = _pv(accessModes=["ReadWriteSometimes"], persistentVolumeReclaimPolicy="Shred")
    del pv["spec"]["hostPath"]
    assert _messages(_create_err(_cluster(), "persistentvolumes", pv)) == [
        'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", '
        '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
        'spec.persistentVolumeReclaimPolicy: Unsupported value: "Shred": supported values: "Delete", "Recycle", '
        '"Retain"',
        "spec: Required value: must specify a volume type"]
    two = _pv(nfs={"server": "s", "path": "/p"})
    assert _messages(_create_err(_cluster(), "persistentvolumes", two)) == [
        "spec.nfs: Forbidden: may not specify more than 1 volume type"]
    local = _pv(local={"path": "/mnt/d"})
    del local["spec"]["hostPath"]
    assert _messages(_create_err(_cluster(), "persistentvolumes", local)) == [
        "spec.nodeAffinity: Required value: Local volume requires node affinity"]
    no_cap = _pv(capacity={})
    assert _messages(_create_err(_cluster(), "persistentvolumes", no_cap))[0] == "spec.capacity: Required value"


def test_volume_source_and_mode_are_immutable_but_claim_ref_is_not():
    c = _cluster([_pv()])
    cur = c.get("persistentvolumes", "pv1")
    cur["spec"]["hostPath"] = {"path": "/elsewhere"}
    with pytest.raises(ApiError) as e:
        c.client.update("persistentvolumes", cur)
    assert _messages(e.value)[0].startswith(
        "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n")
    cur = c.get("persistentvolumes", "pv1")
    cur["spec"]["volumeMode"] = "Block"
    with pytest.raises(ApiError) as e:
        c.client.update("persistentvolumes", cur)
    assert _messages(e.value) == ['volumeMode: Invalid value: "Block": field is immutable']
    # v1.34 does not check claimRef changes on update (the PV controller rebinds through it)
    cur = c.get("persistentvolumes", "pv1")
    cur["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": NS, "name": "other", "uid": "u2"}
    assert c.client.update("persistentvolumes", cur)["spec"]["claimRef"]["name"] == "other"


# --------------------------------------------------------------------------- defaults and columns


def test_defaults():
    c = _cluster([_sc("s"), _pv(), _claim(cls="")])
    sc, pv, pvc = c.get("storageclasses", "s"), c.get("persistentvolumes", "pv1"), \
        c.get("persistentvolumeclaims", "data", NS)
    assert (sc["reclaimPolicy"], sc["volumeBindingMode"]) == ("Delete", "Immediate")
    assert (pv["spec"]["persistentVolumeReclaimPolicy"], pv["spec"]["volumeMode"], pv["status"]["phase"]) == (
        "Retain", "Filesystem", "Pending")
    assert pv["status"]["lastPhaseTransitionTime"] == "2025-08-27T00:00:00Z"
    assert (pvc["spec"]["volumeMode"], pvc["status"]["phase"]) == ("Filesystem", "Pending")


def test_kubectl_get_pv_pvc_sc_columns():
    from kubenotes.apiserver.tables import _pv_row, _pvc_row, _storage_class_row

    pv = _pv(persistentVolumeReclaimPolicy="Retain", storageClassName="fast",
             claimRef={"namespace": NS, "name": "data"}, accessModes=["ReadWriteMany", "ReadWriteOnce"])
    pv["metadata"]["annotations"] = {"volume.beta.kubernetes.io/storage-class": "beta"}
    pv["status"] = {"phase": "Bound"}
    row = _pv_row(pv, 0.0)
    assert row[:8] == ["pv1", "1Gi", "RWO,RWX", "Retain", "Bound", "default/data", "beta", "<unset>"]
    claim = _claim(cls="fast")
    claim["spec"]["volumeName"] = "pv1"
    claim["status"] = {"phase": "Bound", "accessModes": ["ReadWriteOnce"]}
    assert _pvc_row(claim, 0.0)[:7] == ["data", "Bound", "pv1", "0", "RWO", "fast", "<unset>"]
    assert _storage_class_row(_sc("std", True, allowVolumeExpansion=True), 0.0)[:5] == [
        "std (default)", "example.com/x", "Delete", "Immediate", "true"]


def test_recycle_policy_warns_as_deprecated():
    """``GetWarningsForPersistentVolume``: a create with Recycle answers with a ``Warning:`` (kubectl prints it)."""
    from kubenotes.apiserver.server import RESPONSE_WARNINGS

    c = _cluster()
    token = RESPONSE_WARNINGS.set([])
    try:
        c.client.create("persistentvolumes", _pv(persistentVolumeReclaimPolicy="Recycle"))
        assert RESPONSE_WARNINGS.get() == ["spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is "
                                           "deprecated. Instead, the recommended approach is to use dynamic "
                                           "provisioning."]
        RESPONSE_WARNINGS.set([])
        c.client.create("persistentvolumes", _pv("pv2"))
        assert RESPONSE_WARNINGS.get() == []
    finally:
        RESPONSE_WARNINGS.reset(token)


def test_a_restored_dump_keeps_bound_volumes_and_claims_without_their_namespace():
    """data/cluster/storage.yaml alone (its namespace ``data`` is in another file): restored as from etcd,
    without admission, status included."""
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "data" / "cluster" / "storage.yaml"
    c = Cluster.from_manifests(str(path), controllers=[], kubelet="stand-in", scheduler=False)
    assert {v["status"]["phase"] for v in c.list("persistentvolumes")} == {"Bound"}
    assert {x["status"]["phase"] for x in c.list("persistentvolumeclaims", "data")} == {"Bound"}
