"""The PersistentVolume controller's syncClaim / syncVolume, one sync per row.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/binder_test.go
``TestSync``, each row named as upstream names it ([Unit test set 1] unbound claims, [2] claims
naming a volume, [3] bound claims, [4] volumes, [13] classes). Objects are upstream's
``newVolume``/``newClaim`` (see pv_framework.py); each row stores them through a real API server
and runs one ``syncClaim`` or ``syncVolume`` (upstream's ``testSyncClaim``/``testSyncVolume``).

Where v1.34's pv_controller.go emits an Event that an older table row did not list, the row
expects the Event the code writes (1-16, 2-6: ``VolumeMismatch`` / ``FailedBinding``); 4-10
fails on a GCE PD volume, which has no in-tree deleter left. Rows needing a fake API error
(``testSyncClaimError``, 2-7) or the ``annSkipLocalStore`` cache trick (4-11, 4-12) are not
ported. Also end to end: binding, WaitForFirstConsumer and selected-node, sync period.
"""

from __future__ import annotations

import pytest

from pv_framework import (
    BIND_COMPLETED as BC,
    BOUND_BY_CONTROLLER as BBC,
    CLASS_GOLD,
    CLASS_SILVER,
    CLASS_WAIT,
    NS,
    cluster_with,
    dns,
    new_claim,
    new_volume,
    storage_class,
    summary_claim,
    summary_volume,
    sync_once,
)
from kubenotes.api.storagehelpers import ANN_SELECTED_NODE
from kubenotes.controllers.volume.persistentvolume import (
    DEFAULT_SYNC_PERIOD_SECONDS,
    MSG_WAIT_FOR_FIRST_CONSUMER,
    check_volume_satisfy_claim,
)

LABELS = {"foo": "true", "bar": "false"}
WAIT = [storage_class(CLASS_WAIT, "WaitForFirstConsumer")]


def labelled(v: dict) -> dict:
    v["metadata"]["labels"] = dict(LABELS)
    return v


def selecting(c: dict) -> dict:
    c["spec"]["selector"] = {"matchLabels": dict(LABELS)}
    return c


def rwx(c: dict) -> dict:
    c["spec"]["accessModes"] = ["ReadWriteMany"]
    return c


def selected(c: dict, node: str = "node1") -> dict:
    c["metadata"].setdefault("annotations", {})[ANN_SELECTED_NODE] = node
    return c


A, B, P, L, R, F = "Available", "Bound", "Pending", "Lost", "Released", "Failed"

# name, volumes, claims, test, expected volumes {name: (phase, claim, uid, boundByController)},
# expected claims {name: (phase, volumeName, binding annotations, status capacity)}, events, classes
ROWS = [
    ("1-1 - successful bind",
     [new_volume("volume1-1", "1Gi", "", "", A)], [new_claim("claim1-1", "uid1-1", "1Gi", "", P)], "claim",
     {"volume1-1": (B, "claim1-1", "uid1-1", True)},
     {"claim1-1": (B, "volume1-1", (BC, BBC), "1Gi")}, [], ()),
    ("1-2 - noop",
     [new_volume("volume1-2", "1Gi", "", "", A)], [new_claim("claim1-2", "uid1-2", "10Gi", "", P)], "claim",
     {"volume1-2": (A, "", "", False)}, {"claim1-2": (P, "", (), "")}, ["Normal FailedBinding"], ()),
    ("1-3 - reset to Pending",
     [new_volume("volume1-3", "1Gi", "", "", A)], [new_claim("claim1-3", "uid1-3", "10Gi", "", B)], "claim",
     {"volume1-3": (A, "", "", False)}, {"claim1-3": (P, "", (), "")}, ["Normal FailedBinding"], ()),
    ("1-4 - smallest volume",
     [new_volume("volume1-4_1", "10Gi", "", "", A), new_volume("volume1-4_2", "1Gi", "", "", A)],
     [new_claim("claim1-4", "uid1-4", "1Gi", "", P)], "claim",
     {"volume1-4_1": (A, "", "", False), "volume1-4_2": (B, "claim1-4", "uid1-4", True)},
     {"claim1-4": (B, "volume1-4_2", (BC, BBC), "1Gi")}, [], ()),
    ("1-5 - prebound volume by name - success",
     [new_volume("volume1-5_1", "10Gi", "", "claim1-5", A), new_volume("volume1-5_2", "1Gi", "", "", A)],
     [new_claim("claim1-5", "uid1-5", "1Gi", "", P)], "claim",
     {"volume1-5_1": (B, "claim1-5", "uid1-5", False), "volume1-5_2": (A, "", "", False)},
     {"claim1-5": (B, "volume1-5_1", (BC, BBC), "10Gi")}, [], ()),
    ("1-6 - prebound volume by UID - success",
     [new_volume("volume1-6_1", "10Gi", "uid1-6", "claim1-6", A), new_volume("volume1-6_2", "1Gi", "", "", A)],
     [new_claim("claim1-6", "uid1-6", "1Gi", "", P)], "claim",
     {"volume1-6_1": (B, "claim1-6", "uid1-6", False), "volume1-6_2": (A, "", "", False)},
     {"claim1-6": (B, "volume1-6_1", (BC, BBC), "10Gi")}, [], ()),
    ("1-7 - prebound volume to different claim",
     [new_volume("volume1-7", "10Gi", "uid1-777", "claim1-7", A)], [new_claim("claim1-7", "uid1-7", "1Gi", "", P)],
     "claim", {"volume1-7": (A, "claim1-7", "uid1-777", False)}, {"claim1-7": (P, "", (), "")},
     ["Normal FailedBinding"], ()),
    ("1-8 - complete bind after crash - PV bound",
     [new_volume("volume1-8", "1Gi", "uid1-8", "claim1-8", A, "Retain", "", BBC)],
     [new_claim("claim1-8", "uid1-8", "1Gi", "", P)], "claim",
     {"volume1-8": (B, "claim1-8", "uid1-8", True)}, {"claim1-8": (B, "volume1-8", (BC, BBC), "1Gi")}, [], ()),
    ("1-9 - complete bind after crash - PV status saved",
     [new_volume("volume1-9", "1Gi", "uid1-9", "claim1-9", B, "Retain", "", BBC)],
     [new_claim("claim1-9", "uid1-9", "1Gi", "", P)], "claim",
     {"volume1-9": (B, "claim1-9", "uid1-9", True)}, {"claim1-9": (B, "volume1-9", (BC, BBC), "1Gi")}, [], ()),
    ("1-10 - complete bind after crash - PVC bound",
     [new_volume("volume1-10", "1Gi", "uid1-10", "claim1-10", B, "Retain", "", BBC)],
     [new_claim("claim1-10", "uid1-10", "1Gi", "volume1-10", P, None, BBC, BC)], "claim",
     {"volume1-10": (B, "claim1-10", "uid1-10", True)}, {"claim1-10": (B, "volume1-10", (BC, BBC), "1Gi")}, [], ()),
    ("1-11 - bind when selector matches",
     [labelled(new_volume("volume1-1", "1Gi", "", "", A))], [selecting(new_claim("claim1-1", "uid1-1", "1Gi", "", P))],
     "claim", {"volume1-1": (B, "claim1-1", "uid1-1", True)}, {"claim1-1": (B, "volume1-1", (BC, BBC), "1Gi")},
     [], ()),
    ("1-12 - do not bind when selector does not match",
     [new_volume("volume1-1", "1Gi", "", "", A)], [selecting(new_claim("claim1-1", "uid1-1", "1Gi", "", P))],
     "claim", {"volume1-1": (A, "", "", False)}, {"claim1-1": (P, "", (), "")}, ["Normal FailedBinding"], ()),
    ("1-13 - delayed binding",
     [new_volume("volume1-1", "1Gi", "", "", A, "Retain", CLASS_WAIT)],
     [new_claim("claim1-1", "uid1-1", "1Gi", "", P, CLASS_WAIT)], "claim",
     {"volume1-1": (A, "", "", False)}, {"claim1-1": (P, "", (), "")}, ["Normal WaitForFirstConsumer"], WAIT),
    ("1-14 - successful prebound PV",
     [new_volume("volume1-1", "1Gi", "", "claim1-1", A, "Retain", CLASS_WAIT)],
     [new_claim("claim1-1", "uid1-1", "1Gi", "", P, CLASS_WAIT)], "claim",
     {"volume1-1": (B, "claim1-1", "uid1-1", False)}, {"claim1-1": (B, "volume1-1", (BC, BBC), "1Gi")}, [], WAIT),
    ("1-15 - successful prebound PVC",
     [new_volume("volume1-15_1", "10Gi", "", "", A), new_volume("volume1-15_2", "1Gi", "", "", A)],
     [new_claim("claim1-15", "uid1-15", "1Gi", "volume1-15_1", P)], "claim",
     {"volume1-15_1": (B, "claim1-15", "uid1-15", True), "volume1-15_2": (A, "", "", False)},
     {"claim1-15": (B, "volume1-15_1", (BC,), "10Gi")}, [], ()),
    ("1-16 - successful prebound PVC",  # upstream's name; the PV lacks ReadWriteMany, so nothing binds
     [new_volume("volume1-16", "1Gi", "", "", A)], [rwx(new_claim("claim1-16", "uid1-16", "1Gi", "volume1-16", P))],
     "claim", {"volume1-16": (A, "", "", False)}, {"claim1-16": (P, "volume1-16", (), "")},
     ["Warning VolumeMismatch"], ()),
    ("1-17 - skip non-available PV if it's not pre-bind",
     [new_volume("volume1-17-pending", "1Gi", "", "", P), new_volume("volume1-17-failed", "1Gi", "", "", F),
      new_volume("volume1-17-released", "1Gi", "", "", R), new_volume("volume1-17-empty", "1Gi", "", "", "")],
     [new_claim("claim1-17", "uid1-17", "1Gi", "", P)], "claim",
     {"volume1-17-pending": (P, "", "", False), "volume1-17-failed": (F, "", "", False),
      # a volume stored without a phase reads back Pending (SetDefaults_PersistentVolume)
      "volume1-17-released": (R, "", "", False), "volume1-17-empty": (P, "", "", False)},
     {"claim1-17": (P, "", (), "")}, ["Normal FailedBinding"], ()),
    ("1-18 - successful pre-bound PV to PVC provisioning",
     [new_volume("volume1-18", "1Gi", "uid1-18", "claim1-18", A, "Retain", CLASS_WAIT)],
     [selected(new_claim("claim1-18", "uid1-18", "1Gi", "", P, CLASS_WAIT))], "claim",
     {"volume1-18": (B, "claim1-18", "uid1-18", False)}, {"claim1-18": (B, "volume1-18", (BC, BBC), "1Gi")},
     [], WAIT),
    ("2-1 - claim prebound to non-existing volume - noop",
     [], [new_claim("claim2-1", "uid2-1", "10Gi", "volume2-1", P)], "claim",
     {}, {"claim2-1": (P, "volume2-1", (), "")}, [], ()),
    ("2-2 - claim prebound to non-existing volume - reset status",
     [], [new_claim("claim2-2", "uid2-2", "10Gi", "volume2-2", B)], "claim",
     {}, {"claim2-2": (P, "volume2-2", (), "")}, [], ()),
    ("2-3 - claim prebound to unbound volume",
     [new_volume("volume2-3", "1Gi", "", "", A)], [new_claim("claim2-3", "uid2-3", "1Gi", "volume2-3", P)], "claim",
     {"volume2-3": (B, "claim2-3", "uid2-3", True)}, {"claim2-3": (B, "volume2-3", (BC,), "1Gi")}, [], ()),
    ("2-4 - claim prebound to prebound volume by name",
     [new_volume("volume2-4", "1Gi", "", "claim2-4", A)], [new_claim("claim2-4", "uid2-4", "1Gi", "volume2-4", P)],
     "claim", {"volume2-4": (B, "claim2-4", "uid2-4", False)}, {"claim2-4": (B, "volume2-4", (BC,), "1Gi")}, [], ()),
    ("2-5 - claim prebound to prebound volume by UID",
     [new_volume("volume2-5", "1Gi", "uid2-5", "claim2-5", A)],
     [new_claim("claim2-5", "uid2-5", "1Gi", "volume2-5", P)], "claim",
     {"volume2-5": (B, "claim2-5", "uid2-5", False)}, {"claim2-5": (B, "volume2-5", (BC,), "1Gi")}, [], ()),
    ("2-6 - claim prebound to already bound volume",
     [new_volume("volume2-6", "1Gi", "uid2-6_1", "claim2-6_1", B)],
     [new_claim("claim2-6", "uid2-6", "1Gi", "volume2-6", B)], "claim",
     {"volume2-6": (B, "claim2-6_1", "uid2-6_1", False)}, {"claim2-6": (P, "volume2-6", (), "")},
     ["Warning FailedBinding"], ()),
    ("2-8 - claim prebound to unbound volume that does not match the selector",
     [new_volume("volume2-8", "1Gi", "", "", A)], [selecting(new_claim("claim2-8", "uid2-8", "1Gi", "volume2-8", P))],
     "claim", {"volume2-8": (B, "claim2-8", "uid2-8", True)}, {"claim2-8": (B, "volume2-8", (BC,), "1Gi")}, [], ()),
    ("2-9 - claim prebound to unbound volume that size is smaller than requested",
     [new_volume("volume2-9", "1Gi", "", "", A)], [new_claim("claim2-9", "uid2-9", "2Gi", "volume2-9", B)], "claim",
     {"volume2-9": (A, "", "", False)}, {"claim2-9": (P, "volume2-9", (), "")}, ["Warning VolumeMismatch"], ()),
    ("2-10 - claim prebound to unbound volume that class is different",
     [new_volume("volume2-10", "1Gi", "", "", A, "Retain", CLASS_GOLD)],
     [new_claim("claim2-10", "uid2-10", "1Gi", "volume2-10", B)], "claim",
     {"volume2-10": (A, "", "", False)}, {"claim2-10": (P, "volume2-10", (), "")}, ["Warning VolumeMismatch"], ()),
    ("3-1 - bound claim with missing VolumeName",
     [], [new_claim("claim3-1", "uid3-1", "10Gi", "", B, None, BBC, BC)], "claim",
     {}, {"claim3-1": (L, "", (BC, BBC), "")}, ["Warning ClaimLost"], ()),
    ("3-2 - bound claim with missing volume",
     [], [new_claim("claim3-2", "uid3-2", "10Gi", "volume3-2", B, None, BBC, BC)], "claim",
     {}, {"claim3-2": (L, "volume3-2", (BC, BBC), "")}, ["Warning ClaimLost"], ()),
    ("3-3 - bound claim with unbound volume",
     [new_volume("volume3-3", "10Gi", "", "", A)], [new_claim("claim3-3", "uid3-3", "10Gi", "volume3-3", P, None,
                                                                BBC, BC)], "claim",
     {"volume3-3": (B, "claim3-3", "uid3-3", True)}, {"claim3-3": (B, "volume3-3", (BC, BBC), "10Gi")}, [], ()),
    ("3-4 - bound claim with prebound volume",
     [new_volume("volume3-4", "10Gi", "claim3-4-x", "claim3-4", A)],
     [new_claim("claim3-4", "uid3-4", "10Gi", "volume3-4", P, None, BBC, BC)], "claim",
     {"volume3-4": (A, "claim3-4", "claim3-4-x", False)}, {"claim3-4": (L, "volume3-4", (BC, BBC), "")},
     ["Warning ClaimMisbound"], ()),
    ("3-5 - bound claim with bound volume",
     [new_volume("volume3-5", "10Gi", "uid3-5", "claim3-5", A)],
     [new_claim("claim3-5", "uid3-5", "10Gi", "volume3-5", P, None, BC)], "claim",
     {"volume3-5": (B, "claim3-5", "uid3-5", False)}, {"claim3-5": (B, "volume3-5", (BC,), "10Gi")}, [], ()),
    ("3-6 - bound claim with bound volume",
     [new_volume("volume3-6", "10Gi", "uid3-6-x", "claim3-6-x", A)],
     [new_claim("claim3-6", "uid3-6", "10Gi", "volume3-6", P, None, BC)], "claim",
     {"volume3-6": (A, "claim3-6-x", "uid3-6-x", False)}, {"claim3-6": (L, "volume3-6", (BC,), "")},
     ["Warning ClaimMisbound"], ()),
    ("3-7 - bound claim with unbound volume where selector doesn't match",
     [new_volume("volume3-3", "10Gi", "", "", A)],
     [selecting(new_claim("claim3-3", "uid3-3", "10Gi", "volume3-3", P, None, BBC, BC))], "claim",
     {"volume3-3": (B, "claim3-3", "uid3-3", True)}, {"claim3-3": (B, "volume3-3", (BC, BBC), "10Gi")}, [], ()),
    ("4-1 - pending volume",
     [new_volume("volume4-1", "10Gi", "", "", P)], [], "volume", {"volume4-1": (A, "", "", False)}, {}, [], ()),
    ("4-2 - pending prebound volume",
     [new_volume("volume4-2", "10Gi", "", "claim4-2", P)], [], "volume",
     {"volume4-2": (A, "claim4-2", "", False)}, {}, [], ()),
    ("4-3 - bound volume with missing claim",
     [new_volume("volume4-3", "10Gi", "uid4-3", "claim4-3", B)], [], "volume",
     {"volume4-3": (R, "claim4-3", "uid4-3", False)}, {}, [], ()),
    ("4-4 - volume bound to claim with different UID",
     [new_volume("volume4-4", "10Gi", "uid4-4", "claim4-4", B)],
     [new_claim("claim4-4", "uid4-4-x", "10Gi", "volume4-4", B, None, BC)], "volume",
     {"volume4-4": (R, "claim4-4", "uid4-4", False)}, {"claim4-4": (B, "volume4-4", (BC,), "10Gi")}, [], ()),
    ("4-5 - volume bound by controller to unbound claim",
     [new_volume("volume4-5", "10Gi", "uid4-5", "claim4-5", B, "Retain", "", BBC)],
     [new_claim("claim4-5", "uid4-5", "10Gi", "", P)], "volume",
     {"volume4-5": (B, "claim4-5", "uid4-5", True)}, {"claim4-5": (P, "", (), "")}, [], ()),
    ("4-6 - volume bound by to bound claim",
     [new_volume("volume4-6", "10Gi", "uid4-6", "claim4-6", A)],
     [new_claim("claim4-6", "uid4-6", "10Gi", "volume4-6", B)], "volume",
     {"volume4-6": (B, "claim4-6", "uid4-6", False)}, {"claim4-6": (B, "volume4-6", (), "10Gi")}, [], ()),
    ("4-7 - volume bound by controller to claim bound somewhere else",
     [new_volume("volume4-7", "10Gi", "uid4-7", "claim4-7", B, "Retain", "", BBC)],
     [new_claim("claim4-7", "uid4-7", "10Gi", "volume4-7-x", B)], "volume",
     {"volume4-7": (A, "", "", False)}, {"claim4-7": (B, "volume4-7-x", (), "10Gi")}, [], ()),
    ("4-8 - volume bound by user to claim bound somewhere else",
     [new_volume("volume4-8", "10Gi", "uid4-8", "claim4-8", B)],
     [new_claim("claim4-8", "uid4-8", "10Gi", "volume4-8-x", B)], "volume",
     {"volume4-8": (A, "claim4-8", "", False)}, {"claim4-8": (B, "volume4-8-x", (), "10Gi")}, [], ()),
    ("4-9 - volume bound to bound claim, with PersistentVolumeReclaimDelete",
     [new_volume("volume4-9", "10Gi", "uid4-9", "claim4-9", A, "Delete")],
     [new_claim("claim4-9", "uid4-9", "10Gi", "volume4-9", B)], "volume",
     {"volume4-9": (B, "claim4-9", "uid4-9", False)}, {"claim4-9": (B, "volume4-9", (), "10Gi")}, [], ()),
    ("4-10 - volume bound to missing claim",
     [new_volume("volume4-10", "10Gi", "uid4-10", "claim4-10", A, "Delete")], [], "volume",
     {"volume4-10": (F, "claim4-10", "uid4-10", False)}, {}, ["Warning VolumeFailedDelete"], ()),
    ("13-1 - binding to class",
     [new_volume("volume13-1-1", "1Gi", "", "", A), new_volume("volume13-1-2", "10Gi", "", "", A, "Retain", CLASS_GOLD)],
     [new_claim("claim13-1", "uid13-1", "1Gi", "", P, CLASS_GOLD)], "claim",
     {"volume13-1-1": (A, "", "", False), "volume13-1-2": (B, "claim13-1", "uid13-1", True)},
     {"claim13-1": (B, "volume13-1-2", (BC, BBC), "10Gi")}, [], ()),
    ("13-2 - binding without a class",
     [new_volume("volume13-2-1", "1Gi", "", "", A, "Retain", CLASS_GOLD), new_volume("volume13-2-2", "10Gi", "", "", A)],
     [new_claim("claim13-2", "uid13-2", "1Gi", "", P)], "claim",
     {"volume13-2-1": (A, "", "", False), "volume13-2-2": (B, "claim13-2", "uid13-2", True)},
     {"claim13-2": (B, "volume13-2-2", (BC, BBC), "10Gi")}, [], ()),
    ("13-3 - binding to specific a class",
     [new_volume("volume13-3-1", "1Gi", "", "", A, "Retain", CLASS_SILVER),
      new_volume("volume13-3-2", "10Gi", "", "", A, "Retain", CLASS_GOLD)],
     [new_claim("claim13-3", "uid13-3", "1Gi", "", P, CLASS_GOLD)], "claim",
     {"volume13-3-1": (A, "", "", False), "volume13-3-2": (B, "claim13-3", "uid13-3", True)},
     {"claim13-3": (B, "volume13-3-2", (BC, BBC), "10Gi")}, [], ()),
    ("13-4 - empty class",
     [new_volume("volume13-4", "1Gi", "", "", A)], [new_claim("claim13-4", "uid13-4", "1Gi", "", P, "")], "claim",
     {"volume13-4": (B, "claim13-4", "uid13-4", True)}, {"claim13-4": (B, "volume13-4", (BC, BBC), "1Gi")}, [], ()),
    ("13-5 - nil class",
     [new_volume("volume13-5", "1Gi", "", "", A)], [new_claim("claim13-5", "uid13-5", "1Gi", "", P)], "claim",
     {"volume13-5": (B, "claim13-5", "uid13-5", True)}, {"claim13-5": (B, "volume13-5", (BC, BBC), "1Gi")}, [], ()),
]


@pytest.mark.parametrize("name,volumes,claims,test,want_volumes,want_claims,want_events,classes", ROWS,
                         ids=[r[0] for r in ROWS])
def test_sync(name, volumes, claims, test, want_volumes, want_claims, want_events, classes):
    got_volumes, got_claims, events = sync_once(volumes, claims, test, classes=classes)
    want_volumes = {dns(n): (p, dns(c), u, b) for n, (p, c, u, b) in want_volumes.items()}
    want_claims = {dns(n): (p, dns(v), a, cap) for n, (p, v, a, cap) in want_claims.items()}
    assert {n: summary_volume(v) for n, v in got_volumes.items()} == want_volumes
    assert {n: summary_claim(c) for n, c in got_claims.items()} == want_claims
    assert events == want_events


def test_volume_failed_delete_message_is_upstreams():
    """4-10: the Failed volume carries the deleter error as its status message."""
    vols, _, _ = sync_once([new_volume("volume4-10", "10Gi", "uid4-10", "claim4-10", A, "Delete")], [], "volume")
    assert vols["volume4-10"]["status"]["message"] == \
        'error getting deleter volume plugin for volume "volume4-10": no volume plugin matched'


def test_check_volume_satisfy_claim_reasons():
    """``checkVolumeSatisfyClaim``'s reasons, in its order (size, class, volumeMode, access modes)."""
    pv = new_volume("v", "1Gi", "", "", A, "Retain", CLASS_GOLD)
    claim = new_claim("c", "u", "1Gi", "v", P, CLASS_GOLD)
    assert check_volume_satisfy_claim(pv, claim) is None
    assert check_volume_satisfy_claim(pv, new_claim("c", "u", "2Gi", "v", P, CLASS_GOLD)) == "requested PV is too small"
    assert check_volume_satisfy_claim(pv, new_claim("c", "u", "1Gi", "v", P)) == "storageClassName does not match"
    block = new_claim("c", "u", "1Gi", "v", P, CLASS_GOLD)
    block["spec"]["volumeMode"] = "Block"
    assert check_volume_satisfy_claim(pv, block) == "incompatible volumeMode"
    assert check_volume_satisfy_claim(pv, rwx(new_claim("c", "u", "1Gi", "v", P, CLASS_GOLD))) == "incompatible accessMode"


# --------------------------------------------------------------------------- end to end


def _events(c, reason=None):
    return [(e["reason"], e["message"], e.get("count", 1)) for e in c.list("events", NS)
            if reason is None or e["reason"] == reason]


def test_wait_for_first_consumer_waits_then_binds_once_a_node_is_selected():
    """A WaitForFirstConsumer claim is left to the scheduler (an Event every sync period); once the
    scheduler writes ``volume.kubernetes.io/selected-node`` and the PV is reachable there, it binds."""
    pv = new_volume("local-1", "5Gi", "", "", "", "Retain", CLASS_WAIT)
    del pv["status"]
    pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node1"]}]}]}}
    claim = new_claim("data", "u-data", "1Gi", "", "", CLASS_WAIT)
    c = cluster_with([pv], [claim], WAIT)
    c.run(until=2 * DEFAULT_SYNC_PERIOD_SECONDS + 1)
    got = c.get("persistentvolumeclaims", "data", NS)
    assert got["status"]["phase"] == "Pending" and not got["spec"].get("volumeName")
    # synced when added (already Pending, nothing to write), then at each resync: t=15 and t=30
    assert _events(c, "WaitForFirstConsumer") == [("WaitForFirstConsumer", MSG_WAIT_FOR_FIRST_CONSUMER, 3)]
    assert c.get("persistentvolumes", "local-1")["status"]["phase"] == "Available"
    # what the scheduler's VolumeBinding does in PreBind for a static PV: claimRef on the PV (the PV controller
    # finishes the binding); for a claim to provision, it sets selected-node on the claim instead
    pv_now = c.get("persistentvolumes", "local-1")
    pv_now["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": NS, "name": "data",
                                  "uid": got["metadata"]["uid"]}
    pv_now["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bound-by-controller"] = "yes"
    c.client.update("persistentvolumes", pv_now)
    c.run(until=c.env.now + 1)
    got = c.get("persistentvolumeclaims", "data", NS)
    assert (got["status"]["phase"], got["spec"]["volumeName"]) == ("Bound", "local-1")


def test_immediate_claim_binds_within_a_second_and_pv_goes_released_then_stays_retained():
    pv = new_volume("pv-a", "10Gi", "", "", "")
    del pv["status"]
    claim = new_claim("data", "u1", "1Gi", "", "", "")
    c = cluster_with([pv], [claim], controllers=("persistentvolume-binder-controller",
                                                   "persistentvolumeclaim-protection-controller",
                                                   "persistentvolume-protection-controller"))
    c.run(until=1)
    assert c.get("persistentvolumeclaims", "data", NS)["status"]["phase"] == "Bound"
    assert c.get("persistentvolumes", "pv-a")["status"]["phase"] == "Bound"
    c.client.delete("persistentvolumeclaims", "data", NS)
    c.run(until=3)
    assert c.server.get("persistentvolumeclaims", NS, "data") is None  # no pod uses it: finalizer removed
    pv = c.get("persistentvolumes", "pv-a")
    assert pv["status"]["phase"] == "Released" and pv["spec"]["claimRef"]["name"] == "data"  # Retain
    # a new claim does not get a Released volume
    c.client.create("persistentvolumeclaims", new_claim("again", "", "1Gi", "", "", "") | {
        "metadata": {"name": "again", "namespace": NS}})
    c.run(until=5)
    assert c.get("persistentvolumeclaims", "again", NS)["status"]["phase"] == "Pending"


def test_recycle_is_deprecated_but_scrubs_hostpath_and_fails_elsewhere():
    pvs = [new_volume("rec-host", "1Gi", "gone", "old", B, "Recycle", source={"hostPath": {"path": "/data/x"}}),
           new_volume("rec-gce", "1Gi", "gone", "old2", B, "Recycle")]
    c = cluster_with(pvs, [])
    c.run(until=2)
    host, gce = c.get("persistentvolumes", "rec-host"), c.get("persistentvolumes", "rec-gce")
    assert host["status"]["phase"] == "Available" and "claimRef" in host["spec"] and not host["spec"]["claimRef"].get("uid")
    assert gce["status"]["phase"] == "Failed"
    assert ("VolumeFailedRecycle", "No recycler plugin found for the volume!", 1) in _events(c)
    assert ("VolumeRecycled", "Volume recycled", 1) in _events(c)


def test_unknown_reclaim_policy_fails_the_volume():
    pv = new_volume("odd", "1Gi", "gone", "old", B, "Retain")
    c = cluster_with([pv], [])
    ctrl = c.controllers["persistentvolume-binder-controller"]
    c.run(until=1)
    cur = dict(ctrl.volumes.get("odd"))
    cur["spec"] = dict(cur["spec"], persistentVolumeReclaimPolicy="Shred")  # what an older server stored
    ctrl._reclaim_volume(cur)
    assert c.get("persistentvolumes", "odd")["status"]["phase"] == "Failed"
    assert ("VolumeUnknownReclaimPolicy", "Volume has unrecognized PersistentVolumeReclaimPolicy", 1) in _events(c)
