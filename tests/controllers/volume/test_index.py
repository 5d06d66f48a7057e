"""The PV controller's volume index: access-mode sets fewest first, smallest matching volume, pre-binding.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/index_test.go:
``TestMatchVolume`` (its scenarios by name, over ``createTestVolumes``), ``TestMatchingWithBoundVolumes``,
``TestListByAccessModes``, ``TestAllPossibleAccessModes``, ``TestFindingVolumeWithDifferentAccessModes``,
``TestFindingPreboundVolumes``, ``TestBestMatchDelayed`` and ``TestVolumeModeCheck``-style rows. Volumes
are named by upstream's UIDs (``gce-pd-10``), all ``Available`` as in v1.34's fixture.
"""

from __future__ import annotations

import pytest

from kubenotes.api.storagehelpers import (
    check_node_affinity,
    find_matching_volume,
    get_access_modes_as_string,
)
from kubenotes.controllers.volume.index import PersistentVolumeOrderedIndex

RWO, ROX, RWX = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"


def pv(name: str, size: str, modes: list[str], *, bound_uid: str | None = None, labels: dict | None = None,
       cls: str = "", claim_ref: dict | None = None) -> dict:
    v = {"metadata": {"name": name, **({"labels": labels} if labels else {})},
         "spec": {"capacity": {"storage": size}, "accessModes": modes, "gcePersistentDisk": {},
                  **({"storageClassName": cls} if cls else {})},
         "status": {"phase": "Available"}}
    if bound_uid is not None:
        v["spec"]["claimRef"] = {"uid": bound_uid}
    if claim_ref is not None:
        v["spec"]["claimRef"] = claim_ref
    return v


def create_test_volumes() -> list[dict]:
    """``createTestVolumes``, deliberately out of order."""
    return [
        pv("gce-pd-10", "10G", [RWO, ROX]),
        pv("gce-pd-20", "20G", [RWO, ROX], bound_uid="def456"),
        pv("nfs-5", "5G", [RWO, ROX, RWX]),
        pv("gce-pd-1", "1G", [RWO, ROX], bound_uid="abc123"),
        pv("nfs-10", "10G", [RWO, ROX, RWX]),
        pv("gce-pd-5", "5G", [RWO, ROX]),
        pv("nfs-1", "1G", [RWO, ROX, RWX]),
        pv("gce-pd-2", "20000G", [RWO], labels={"should-exist": "true"}),
        pv("gce-pd-silver1", "10000G", [RWO], labels={"should-exist": "true"}, cls="silver"),
        pv("gce-pd-silver2", "100G", [RWO], cls="silver"),
        pv("gce-pd-gold", "50G", [RWO], cls="gold"),
    ]


def make_pvc(size: str, modes: list[str] | None = None, selector: dict | None = None, cls: str | None = None) -> dict:
    """``makePVC``."""
    c = {"metadata": {"name": "claim01", "namespace": "myns"},
         "spec": {"accessModes": modes or [ROX, RWO], "resources": {"requests": {"storage": size}}}}
    if selector:
        c["spec"]["selector"] = {"matchLabels": selector}
    if cls is not None:
        c["spec"]["storageClassName"] = cls
    return c


def index_of(volumes: list[dict]) -> PersistentVolumeOrderedIndex:
    idx = PersistentVolumeOrderedIndex()
    for v in volumes:
        idx.add(v)
    return idx


MATCH_SCENARIOS = {
    "successful-match-gce-10": ("gce-pd-10", make_pvc("8G")),
    "successful-match-nfs-5": ("nfs-5", make_pvc("5G", [ROX, RWO, RWX])),
    "successful-skip-1g-bound-volume": ("gce-pd-5", make_pvc("1G")),
    "successful-no-match": ("", make_pvc("999G")),
    "successful-no-match-due-to-label": ("", make_pvc("999G", selector={"should-not-exist": "true"})),
    "successful-no-match-due-to-size-constraint-with-label-selector":
        ("", make_pvc("20000G", [ROX, RWO], selector={"should-exist": "true"})),
    "successful-match-due-with-constraint-and-label-selector":
        ("gce-pd-2", make_pvc("20000G", [RWO], selector={"should-exist": "true"})),
    "successful-match-with-class": ("gce-pd-silver1", make_pvc("1G", [RWO], {"should-exist": "true"}, "silver")),
    "successful-match-with-class-and-labels": ("gce-pd-silver2", make_pvc("1G", [RWO], cls="silver")),
}


@pytest.mark.parametrize("name", sorted(MATCH_SCENARIOS))
def test_match_volume(name):
    want, claim = MATCH_SCENARIOS[name]
    got = index_of(create_test_volumes()).find_by_claim(claim)
    assert (got["metadata"]["name"] if got else "") == want


def test_matching_with_bound_volumes():
    idx = index_of([pv("gce001", "1G", [RWO, ROX], bound_uid="abc123"), pv("gce002", "1G", [RWO, ROX])])
    assert idx.find_by_claim(make_pvc("1G"))["metadata"]["name"] == "gce002"


def test_list_by_access_modes():
    idx = index_of(create_test_volumes())
    by_size = lambda vols: [v["metadata"]["name"] for v in sorted(  # noqa: E731
        vols, key=lambda v: int(v["spec"]["capacity"]["storage"][:-1]))]
    assert by_size(idx.list_by_access_modes([RWO, ROX])) == ["gce-pd-1", "gce-pd-5", "gce-pd-10", "gce-pd-20"]
    assert by_size(idx.list_by_access_modes([RWO, ROX, RWX])) == ["nfs-1", "nfs-5", "nfs-10"]


def test_all_possible_access_modes():
    idx = index_of(create_test_volumes())
    # the fixture has RWO, RWO+ROX and RWO+ROX+RWX volumes
    rwo = idx.all_possible_matching_access_modes([RWO])
    assert [get_access_modes_as_string(m) for m in rwo] == ["RWO", "RWO,ROX", "RWO,ROX,RWX"]
    assert [get_access_modes_as_string(m) for m in idx.all_possible_matching_access_modes([RWX])] == ["RWO,ROX,RWX"]


def test_finding_volume_with_different_access_modes():
    gce, ebs, nfs = pv("gce", "10G", [RWO, ROX]), pv("ebs", "10G", [RWO]), pv("nfs", "10G", [RWO, ROX, RWX])
    idx = index_of([gce, ebs, nfs])
    find = lambda modes: idx.find_by_claim(make_pvc("1G", modes))["metadata"]["name"]  # noqa: E731
    assert find([RWO]) == "ebs"
    assert find([RWO, ROX]) == "gce"
    assert find([RWX, RWO, ROX]) == "nfs"  # order of the requested modes does not matter
    assert find([RWX]) == "nfs"  # fewer modes requested still match
    ebs["spec"]["claimRef"] = {}  # the exact match is taken: next level of modes
    idx.add(ebs)
    assert find([RWO]) == "gce"
    gce["spec"]["claimRef"] = {}
    idx.add(gce)
    assert find([RWO]) == "nfs"
    del gce["spec"]["claimRef"]
    idx.add(gce)
    assert find([ROX]) == "gce"  # partial mode request


def test_finding_prebound_volumes():
    claim = {"metadata": {"name": "claim01", "namespace": "myns", "uid": "claim-uid"},
             "spec": {"accessModes": [RWO], "resources": {"requests": {"storage": "1Gi"}}}}
    ref = {"kind": "PersistentVolumeClaim", "namespace": "myns", "name": "claim01", "uid": "claim-uid"}
    vols = {n: pv(n, s, [RWO]) for n, s in (("pv1", "1Gi"), ("pv5", "5Gi"), ("pv8", "8Gi"), ("pvBadSize", "1Mi"),
                                            ("pvBadMode", "1Gi"))}
    vols["pvBadMode"]["spec"]["accessModes"] = [ROX]

    def best(**refs):
        for v in vols.values():
            v["spec"].pop("claimRef", None)
        for n, r in refs.items():
            vols[n]["spec"]["claimRef"] = r
        return index_of(list(vols.values())).find_by_claim(claim)["metadata"]["name"]

    assert best() == "pv1"  # exact match on size
    assert best(pv1={"name": "foo", "namespace": "bar"}) == "pv5"  # pre-bound elsewhere: next size up
    assert best(pv8=ref) == "pv8"  # the largest is pre-bound to the claim
    assert best(pvBadSize=ref) == "pv1"  # pre-bound but too small: the exact match
    assert best(pvBadMode=ref) == "pv1"  # pre-bound without the access mode: the exact match


def test_best_match_delayed():
    """``TestBestMatchDelayed``: with delayed binding the PV controller binds only pre-bound volumes."""
    idx = index_of(create_test_volumes())
    assert idx.find_by_claim(make_pvc("8G"), delay_binding=True) is None


def test_volume_mode_and_node_affinity():
    """``TestVolumeModeCheck`` / ``TestFilteringVolumeModes``: a Block claim never gets a Filesystem volume;
    on the scheduler's path a volume must be reachable from the node (``CheckNodeAffinity``)."""
    fs, block = pv("fs", "1G", [RWO]), pv("block", "1G", [RWO])
    block["spec"]["volumeMode"] = "Block"
    claim = make_pvc("1G", [RWO])
    claim["spec"]["volumeMode"] = "Block"
    assert index_of([fs, block]).find_by_claim(claim)["metadata"]["name"] == "block"
    assert index_of([fs]).find_by_claim(claim) is None
    local = pv("local", "1G", [RWO])
    local["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}]}]}}
    node = lambda name: {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}  # noqa: E731
    assert find_matching_volume(make_pvc("1G", [RWO]), [local], node("node-a"))["metadata"]["name"] == "local"
    assert find_matching_volume(make_pvc("1G", [RWO]), [local], node("node-b")) is None
    assert check_node_affinity(local, {"kubernetes.io/hostname": "node-b"}, "node-b") == "no matching NodeSelectorTerms"


def test_storage_object_in_use_protection_filtering():
    """``TestStorageObjectInUseProtectionFiltering``: a volume being deleted is never matched."""
    v = pv("deleting", "1G", [RWO, ROX])
    v["metadata"]["deletionTimestamp"] = "2025-08-27T00:00:00Z"
    assert index_of([v]).find_by_claim(make_pvc("1G")) is None


def test_lookup_reads_only_free_and_own_volumes(monkeypatch):
    """``findMatchingVolume`` skips a volume bound to another claim; the index does not even hand those over, so a
    claim sync costs the free volumes, not every bound one (benchmarks/claims_at_scale.py: 10,000 bound volumes
    were scanned and sorted on each sync of each claim)."""
    import kubenotes.controllers.volume.index as index_module

    bound = [pv(f"bound-{i:04d}", "1G", [RWO], claim_ref={"namespace": "myns", "name": f"other-{i}", "uid": f"u{i}"})
             for i in range(2000)]
    free = pv("free", "5G", [RWO])
    own = pv("own", "10G", [RWO], claim_ref={"namespace": "myns", "name": "claim01"})
    idx = index_of(bound + [free, own])
    seen: list[list[str]] = []
    real = index_module.find_matching_volume

    def spy(claim, volumes, *args):
        volumes = list(volumes)
        seen.append([v["metadata"]["name"] for v in volumes])
        return real(claim, volumes, *args)

    monkeypatch.setattr(index_module, "find_matching_volume", spy)
    assert idx.find_by_claim(make_pvc("1G", [RWO]))["metadata"]["name"] == "own"  # pre-bound wins over smaller
    assert seen == [["free", "own"]]
    assert len(idx.list_by_access_modes([RWO])) == 2002  # listByAccessModes still lists the whole set


def test_index_follows_claim_ref_changes():
    """A volume re-added with another claimRef moves within the index: bound, it is no candidate for other
    claims; released (claimRef removed), it is one again; deleted, it is gone from every set."""
    idx = index_of([pv("v", "1G", [RWO])])
    claim = make_pvc("1G", [RWO])
    assert idx.find_by_claim(claim)["metadata"]["name"] == "v"
    idx.add(pv("v", "1G", [RWO], claim_ref={"namespace": "myns", "name": "someone-else", "uid": "x"}))
    assert idx.find_by_claim(claim) is None
    idx.add(pv("v", "1G", [RWO]))
    assert idx.find_by_claim(claim)["metadata"]["name"] == "v"
    idx.add(pv("v", "1G", [RWO, RWX]))  # its access modes changed: indexed under the new set only
    assert [m for m in idx.all_possible_matching_access_modes([RWO])] == [[RWO, RWX]]
    idx.delete("v")
    assert idx.find_by_claim(claim) is None and idx.all_possible_matching_access_modes([RWO]) == []
    idx.delete("v")  # deleting an absent volume is a no-op


def test_bound_elsewhere_skipped_before_node_affinity(monkeypatch):
    """Upstream's ``FindMatchingVolume`` order: a volume whose claimRef names another claim is skipped before the
    node affinity ("the most expensive call in this loop") is evaluated, on the scheduler's path too."""
    import kubenotes.api.storagehelpers as sh

    calls = []
    real = sh.check_node_affinity
    monkeypatch.setattr(sh, "check_node_affinity", lambda *a: calls.append(a[0]["metadata"]["name"]) or real(*a))
    affinity = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}]}]}}
    vols = []
    for i in range(50):
        v = pv(f"bound-{i}", "1G", [RWO], claim_ref={"namespace": "myns", "name": f"other-{i}", "uid": f"u{i}"})
        v["spec"]["nodeAffinity"] = affinity
        vols.append(v)
    free = pv("free", "1G", [RWO])
    free["spec"]["nodeAffinity"] = affinity
    node = {"metadata": {"name": "node-a", "labels": {"kubernetes.io/hostname": "node-a"}}}
    assert find_matching_volume(make_pvc("1G", [RWO]), vols + [free], node, (), True)["metadata"]["name"] == "free"
    assert calls == ["free"]
