"""Tests for the StatefulSet controller.

Ported from kubernetes/kubernetes@v1.34.0 pkg/controller/statefulset: stateful_set_utils_test.go
``TestGetParentNameAndOrdinal`` (test_get_ordinal), ``TestIdentityMatches``/``TestUpdateIdentity`` and
``TestStorageMatches``/``TestUpdateStorage`` (test_new_stateful_set_pod_identity_and_storage),
``TestIsRunningAndReady``-style health (test_is_healthy); stateful_set_control_test.go
``TestStatefulSetControl`` "CreatesPods" / "ScalesUp" / "ScalesDown" with ``assertMonotonicInvariants``
(test_ordered_ready_creates_in_order, test_scale_down_from_the_highest_ordinal), the Parallel
variants (test_parallel_creates_all_at_once), "RecreatesFailedPod" (test_recreates_failed_pod),
``TestStatefulSetControlRollingUpdateWithPartition`` (test_rolling_update_with_partition),
``TestStatefulSetControlOnDeleteUpdate`` (test_on_delete), and ``TestStatefulSetStartOrdinal``
(test_start_ordinal), run in a Cluster with the stand-in kubelets.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubenotes.controllers.statefulset import (
    POD_INDEX_LABEL,
    STATEFULSET_POD_NAME_LABEL,
    get_ordinal,
    get_persistent_volume_claim_name,
    is_healthy,
    new_stateful_set_pod,
)
from kubenotes.sim.cluster import Cluster


@pytest.mark.parametrize("name,expected", [
    ("web-0", ("web", 0)), ("web-10", ("web", 10)), ("my-set-3", ("my-set", 3)), ("web", ("", -1)),
    ("web-", ("", -1)), ("web-x", ("", -1)),
])
def test_get_ordinal(name, expected):
    assert get_ordinal(name) == expected


def _sts(replicas: int = 3, claims: bool = True, **spec: Any) -> dict:
    s: dict = {"serviceName": "nginx", "replicas": replicas, "selector": {"matchLabels": {"app": "nginx"}},
               "template": {"metadata": {"labels": {"app": "nginx"}},
                            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}, **spec}
    if claims:
        s["volumeClaimTemplates"] = [{"metadata": {"name": "www"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web", "namespace": "default"},
            "spec": s}


def test_new_stateful_set_pod_identity_and_storage():
    sts = _sts()
    sts["metadata"]["uid"] = "uid-1"
    sts["spec"]["template"]["spec"]["volumes"] = [{"name": "www", "emptyDir": {}}, {"name": "cfg", "emptyDir": {}}]
    pod = new_stateful_set_pod(sts, 2, "web-abc")
    md = pod["metadata"]
    assert md["name"] == "web-2"
    assert md["labels"] == {"app": "nginx", STATEFULSET_POD_NAME_LABEL: "web-2", POD_INDEX_LABEL: "2",
                            "controller-revision-hash": "web-abc"}
    assert md["ownerReferences"][0] == {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
                                        "uid": "uid-1", "controller": True, "blockOwnerDeletion": True}
    assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("web-2", "nginx")
    # the template's volume named like the claim is replaced by the claim
    assert pod["spec"]["volumes"] == [{"name": "cfg", "emptyDir": {}},
                                      {"name": "www", "persistentVolumeClaim": {"claimName": "www-web-2"}}]
    assert get_persistent_volume_claim_name("web", "www", 2) == "www-web-2"


def test_is_healthy():
    ready = {"type": "Ready", "status": "True"}
    assert is_healthy({"metadata": {}, "status": {"phase": "Running", "conditions": [ready]}})
    assert not is_healthy({"metadata": {}, "status": {"phase": "Pending", "conditions": [ready]}})
    assert not is_healthy({"metadata": {"deletionTimestamp": "x"}, "status": {"phase": "Running",
                                                                              "conditions": [ready]}})


# --------------------------------------------------------------------------- end to end


def nodes(n: int = 3) -> list[dict]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
             "status": {"allocatable": alloc, "capacity": alloc}} for i in range(1, n + 1)]


def cluster(sts: dict) -> Cluster:
    return Cluster(nodes() + [sts], seed=0, controllers=["statefulset-controller"], authorization=False, kubelet="stand-in")


def created(c: Cluster) -> list[tuple[str, str]]:
    return sorted((p["metadata"]["creationTimestamp"], p["metadata"]["name"]) for p in c.list("pods", "default"))


def sts_events(c: Cluster) -> list[tuple[str, str, int]]:
    return [(e["reason"], e["message"], e["count"]) for e in sorted(
        c.list("events", "default"), key=lambda e: (e["firstTimestamp"], e["metadata"]["name"]))
        if e["involvedObject"]["kind"] == "StatefulSet"]


def test_ordered_ready_creates_in_order():
    c = cluster(_sts(claims=False))
    c.run(until=3)
    assert [n for _, n in created(c)] == ["web-0", "web-1"]   # web-1 waits until web-0 is Running and Ready
    c.run(until=10)
    # each pod is created once its predecessor is Running and Ready (2 s with the stand-in kubelet)
    assert created(c) == [("2025-08-27T00:00:00Z", "web-0"), ("2025-08-27T00:00:02Z", "web-1"),
                          ("2025-08-27T00:00:04Z", "web-2")]
    st = c.get("statefulsets", "web", "default")["status"]
    assert (st["replicas"], st["readyReplicas"], st["availableReplicas"], st["currentReplicas"],
            st["updatedReplicas"]) == (3, 3, 3, 3, 3)
    assert st["currentRevision"] == st["updateRevision"] and st["observedGeneration"] == 1
    rev = c.list("controllerrevisions", "default")[0]
    assert rev["metadata"]["name"] == st["updateRevision"] and rev["revision"] == 1
    assert rev["metadata"]["labels"]["controller.kubernetes.io/hash"] == st["updateRevision"][len("web-"):]
    for p in c.list("pods", "default"):
        assert p["metadata"]["labels"]["controller-revision-hash"] == st["updateRevision"]
    assert ("SuccessfulCreate", "create Pod web-1 in StatefulSet web successful", 1) in sts_events(c)


def test_parallel_creates_all_at_once():
    c = cluster(_sts(claims=False, podManagementPolicy="Parallel"))
    c.run(until=1)
    assert [n for _, n in created(c)] == ["web-0", "web-1", "web-2"]


def test_claims_are_created_before_pods_and_kept():
    sts = _sts()
    sts["spec"]["template"]["spec"]["nodeName"] = "node-1"  # the model's scheduler does not bind claims
    c = cluster(sts)
    c.run(until=10)
    claims = {p["metadata"]["name"]: p for p in c.list("pvc", "default")}
    assert sorted(claims) == ["www-web-0", "www-web-1", "www-web-2"]
    assert claims["www-web-0"]["metadata"]["labels"] == {"app": "nginx"}
    assert "ownerReferences" not in claims["www-web-0"]["metadata"]  # whenDeleted/whenScaled: Retain
    ev = sts_events(c)
    assert ev[0] == ("SuccessfulCreate", "create Claim www-web-0 Pod web-0 in StatefulSet web success", 1)
    assert ev[1] == ("SuccessfulCreate", "create Pod web-0 in StatefulSet web successful", 1)
    c.apply({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web", "namespace": "default"},
             "spec": {"replicas": 1}})
    c.run(until=30)
    assert [n for _, n in created(c)] == ["web-0"]
    assert len(c.list("pvc", "default")) == 3  # Retain


def test_scale_down_from_the_highest_ordinal():
    c = cluster(_sts(claims=False))
    c.run(until=10)
    c.apply({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web", "namespace": "default"},
             "spec": {"replicas": 1}})
    c.run(until=10.5)
    deleting = [p["metadata"]["name"] for p in c.list("pods", "default") if p["metadata"].get("deletionTimestamp")]
    assert deleting == ["web-2"]  # one at a time, highest first
    deletes = [e.name for e in c.audit_log if e.kind == "Pod" and e.verb == "delete"
               and e.component == "statefulset-controller"]
    c.run(until=20)
    deletes = [e.name for e in c.audit_log if e.kind == "Pod" and e.verb == "delete"
               and e.component == "statefulset-controller"]
    assert deletes == ["web-2", "web-1"]
    assert [n for _, n in created(c)] == ["web-0"]
    assert c.get("statefulsets", "web", "default")["status"]["replicas"] == 1


def test_recreates_failed_pod():
    c = cluster(_sts(claims=False, replicas=1))
    c.run(until=5)
    pod = c.get("pods", "web-0", "default")
    pod["status"]["phase"] = "Failed"   # as a kubelet reports a pod it rejected or that exited
    c.client.update_status("pods", pod, "default")
    c.run(until=12)
    creates = [e.name for e in c.audit_log if e.kind == "Pod" and e.verb == "create"]
    assert creates == ["web-0", "web-0"]
    assert ("SuccessfulDelete", "delete Pod web-0 in StatefulSet web successful", 1) in sts_events(c)
    assert c.get("pods", "web-0", "default")["status"]["phase"] == "Running"


def _set_image(c: Cluster, image: str, **extra: Any) -> None:
    c.apply({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web", "namespace": "default"},
             "spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": image}]}}, **extra}})


def _images(c: Cluster) -> dict[str, str]:
    return {p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in c.list("pods", "default")
            if not p["metadata"].get("deletionTimestamp")}


def test_rolling_update_highest_ordinal_first():
    c = cluster(_sts(claims=False))
    c.run(until=10)
    _set_image(c, "nginx:1.28")
    order = []
    for t in range(11, 40):
        c.run(until=t)
        for name, image in sorted(_images(c).items()):
            if image == "nginx:1.28" and name not in order:
                order.append(name)
    assert order == ["web-2", "web-1", "web-0"]
    st = c.get("statefulsets", "web", "default")["status"]
    assert st["currentRevision"] == st["updateRevision"]
    assert (st["updatedReplicas"], st["currentReplicas"], st["readyReplicas"]) == (3, 3, 3)


def test_rolling_update_with_partition():
    c = cluster(_sts(claims=False, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}))
    c.run(until=10)
    _set_image(c, "nginx:1.28")
    c.run(until=40)
    assert _images(c) == {"web-0": "nginx:1.27", "web-1": "nginx:1.27", "web-2": "nginx:1.28"}
    st = c.get("statefulsets", "web", "default")["status"]
    assert st["currentRevision"] != st["updateRevision"]
    assert (st["updatedReplicas"], st["currentReplicas"]) == (1, 2)
    # a pod below the partition that is deleted comes back at the current revision
    c.client.delete("pods", "web-0", "default")
    c.run(until=60)
    assert _images(c)["web-0"] == "nginx:1.27"


def test_on_delete():
    c = cluster(_sts(claims=False, updateStrategy={"type": "OnDelete"}))
    c.run(until=10)
    _set_image(c, "nginx:1.28")
    c.run(until=30)
    assert set(_images(c).values()) == {"nginx:1.27"}
    c.client.delete("pods", "web-1", "default")
    c.run(until=40)
    assert _images(c) == {"web-0": "nginx:1.27", "web-1": "nginx:1.28", "web-2": "nginx:1.27"}


def test_start_ordinal():
    c = cluster(_sts(claims=False, replicas=2, ordinals={"start": 5}))
    c.run(until=10)
    assert [n for _, n in created(c)] == ["web-5", "web-6"]
    pod = c.get("pods", "web-5", "default")
    assert pod["metadata"]["labels"][POD_INDEX_LABEL] == "5"
