"""The stand-in kubelet posts a deleted pod's final status before its grace-0 delete, as the kubelet does.

Upstream (v1.34): ``SyncTerminatingPod`` stops the containers and posts
``generateAPIPodStatus(..., podIsTerminal=true)``, whose ``getPhase`` gives
Succeeded when every container exited 0 and Failed otherwise; ``SyncTerminatedPod``
calls the status manager's ``TerminatePod`` (a container with no terminated state
becomes ``ContainerStatusUnknown``/137, a Pending or Running phase Failed); the
status manager deletes the pod (grace 0) only after that status is written (``canBeDeleted``).
"""

from __future__ import annotations

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.history import object_history
from kubenotes.sim.kubelet import KubeletOptions

MANIFESTS = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  addresses: [{type: InternalIP, address: 10.0.0.1}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: c, image: nginx}]
"""


def _last_status_before_deletion(c: Cluster) -> tuple[float, dict, float]:
    revs = [r for r in object_history(c, "pods", "default") if r.object["metadata"]["name"] == "web"]
    assert revs[-1].type == "DELETED"
    return revs[-2].time, revs[-2].object["status"], revs[-1].time


def test_a_running_pod_deleted_gracefully_ends_succeeded_before_it_is_removed():
    c = Cluster.from_manifests(MANIFESTS, kubelet="stand-in")
    c.run(until=5)
    c.client.delete("pods", "web", "default")  # grace 30 s; the stand-in's containers exit on SIGTERM in 1 s
    c.run(until=10)
    assert c.get("pods", "web", "default") is None
    t, st, deleted_at = _last_status_before_deletion(c)
    assert (t, deleted_at) == (6.0, 6.0)
    assert st["phase"] == "Succeeded"
    assert st["hostIP"] == "10.0.0.1" and st["podIP"]
    term = st["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"], term["startedAt"], term["finishedAt"]) == (
        0, "Completed", "2025-08-27T00:00:02Z", "2025-08-27T00:00:06Z")
    conds = {x["type"]: (x["status"], x.get("reason")) for x in st["conditions"]}
    assert conds["Ready"] == ("False", "PodCompleted") and conds["PodReadyToStartContainers"][0] == "False"


def test_a_grace_period_shorter_than_the_containers_need_kills_them_and_the_pod_fails():
    c = Cluster.from_manifests(MANIFESTS, kubelet="stand-in", kubelet_options=KubeletOptions(pod_termination_seconds=5))
    c.run(until=5)
    c.client.delete("pods", "web", "default", grace_period_seconds=2)
    c.run(until=10)
    t, st, _ = _last_status_before_deletion(c)
    assert t == 7.0 and st["phase"] == "Failed"
    term = st["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (137, "Error")


def test_a_pod_deleted_before_its_containers_started_fails_with_unknown_container_status():
    c = Cluster.from_manifests(MANIFESTS, kubelet="stand-in", kubelet_options=KubeletOptions(pod_startup_seconds=3))
    c.run(until=1)
    c.client.delete("pods", "web", "default")
    c.run(until=10)
    _, st, _ = _last_status_before_deletion(c)
    assert st["phase"] == "Failed"
    assert st["containerStatuses"][0]["state"] == {"terminated": {
        "exitCode": 137, "reason": "ContainerStatusUnknown",
        "message": "The container could not be located when the pod was terminated",
        "startedAt": None, "finishedAt": None}}


def test_a_crash_looping_pod_deleted_in_back_off_ends_failed_with_its_last_exit():
    crashing = MANIFESTS.replace("metadata: {name: web, namespace: default}",
                                 "metadata: {name: web, namespace: default, annotations: "
                                 "{kubenotes.io/run-seconds: '3', kubenotes.io/exit-code: '1'}}")
    c = Cluster.from_manifests(crashing, kubelet="stand-in")
    c.run(until=20)  # started at 2, exited at 5, restarted at 15 (back-off 10 s), exited at 18: back-off 20 s
    assert c.get("pods", "web", "default")["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == \
        "CrashLoopBackOff"
    c.client.delete("pods", "web", "default")
    c.run(until=25)
    _, st, _ = _last_status_before_deletion(c)
    assert st["phase"] == "Failed"
    cs = st["containerStatuses"][0]
    assert cs["restartCount"] == 1
    assert (cs["state"]["terminated"]["exitCode"], cs["state"]["terminated"]["reason"],
            cs["state"]["terminated"]["finishedAt"]) == (1, "Error", "2025-08-27T00:00:18Z")
    assert cs["lastState"]["terminated"]["finishedAt"] == "2025-08-27T00:00:05Z"
