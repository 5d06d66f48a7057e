"""Tests for kubenotes.apiserver.tables: server-side Table columns and cells.

Cases ported from upstream's pkg/printers/internalversion/printers_test.go
(kubernetes/kubernetes@v1.34.0): ``TestPrintEvent`` (wide and default cells,
``eventTime``-only singletons counted as 1, ``series``),
``TestPrintControllerRevision`` (``daemonset.apps/foo`` or ``<none>``),
``TestPrintRoleBinding``/``TestPrintClusterRoleBinding`` (``ClusterRole/name``
and the wide subject columns), ``TestPrintStorageClass`` (``(default)``
suffix), ``TestPrintPersistentVolumeClaim`` (access modes and capacity only
once bound), ``TestPrintPod``/``TestPrintPodWithRestartableInitContainer`` (READY,
STATUS and RESTARTS from container statuses: waiting/terminated reasons,
``ExitCode:N``, ``Signal:N``, ``Init:i/n``, ``Init:<reason>``, Completed with a
running container, sidecars, Terminating/Unknown). The metadata case follows staging/src/k8s.io/apiserver/pkg/
endpoints/handlers/response.go ``asTable`` (``AsPartialObjectMetadata``).
"""

from __future__ import annotations

from kubenotes.apiserver.server import format_timestamp
from kubenotes.apiserver.tables import format_table, partial_object_metadata, table_for

DAY = 86400


def _cells(resource: str, obj: dict, now: float, wide: bool = True) -> list:
    return table_for(resource, [obj], now, wide=wide)["rows"][0]["cells"]


def _names(resource: str, wide: bool) -> list[str]:
    return [c["name"] for c in table_for(resource, [], 0, wide=wide)["columnDefinitions"]]


def test_event_columns_interleave_the_wide_ones_as_upstream():
    assert _names("events", False) == ["Last Seen", "Type", "Reason", "Object", "Message"]
    assert _names("events", True) == ["Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message",
                                      "First Seen", "Count", "Name"]
    prios = [c["priority"] for c in table_for("events", [], 0, wide=True)["columnDefinitions"]]
    assert prios == [0, 0, 0, 0, 1, 1, 0, 1, 1, 1]


def test_event_cells():
    now = 10 * DAY
    ev = {"metadata": {"name": "event1", "namespace": "default"},
          "source": {"component": "kubelet", "host": "Node1"},
          "involvedObject": {"kind": "Deployment", "name": "Deployment Name", "fieldPath": "spec.containers{foo}"},
          "reason": "Event Reason", "message": "Message Data ", "type": "Normal", "count": 6,
          "firstTimestamp": format_timestamp(now - 3 * DAY), "lastTimestamp": format_timestamp(now - 2 * DAY)}
    assert _cells("events", ev, now, wide=False) == ["2d", "Normal", "Event Reason", "deployment/Deployment Name",
                                                      "Message Data"]
    assert _cells("events", ev, now) == ["2d", "Normal", "Event Reason", "deployment/Deployment Name",
                                         "spec.containers{foo}", "kubelet, Node1", "Message Data", "3d", 6, "event1"]
    # events.k8s.io-style singleton: eventTime only, no count, the reporting controller as source
    ev2 = {"metadata": {"name": "event2"}, "involvedObject": {"kind": "Node"}, "reason": "R", "type": "Warning",
           "reportingComponent": "default-scheduler", "eventTime": format_timestamp(now - 3 * DAY - 1)[:-1] + ".250000Z",
           "message": "m"}
    assert _cells("events", ev2, now) == ["3d", "Warning", "R", "node", "", "default-scheduler", "m", "3d", 1,
                                          "event2"]
    # a series: its last observation and count win
    ev3 = dict(ev2, series={"count": 4, "lastObservedTime": format_timestamp(now - DAY)})
    cells = _cells("events", ev3, now)
    assert (cells[0], cells[8]) == ("24h", 4)


def test_controller_revision_names_its_controller_with_kind_and_group():
    md = {"name": "test1", "creationTimestamp": format_timestamp(0),
          "ownerReferences": [{"controller": True, "apiVersion": "apps/v1", "kind": "DaemonSet", "name": "foo"}]}
    assert _cells("controllerrevisions", {"metadata": md, "revision": 1}, 0) == ["test1", "daemonset.apps/foo", 1,
                                                                                  "0s"]
    not_controller = dict(md, ownerReferences=[dict(md["ownerReferences"][0], controller=False)])
    assert _cells("controllerrevisions", {"metadata": not_controller, "revision": 2}, 0)[1] == "<none>"
    assert _cells("controllerrevisions", {"metadata": {"name": "t3"}, "revision": 3}, 0)[1:3] == ["<none>", 3]
    core = dict(md, ownerReferences=[{"controller": True, "apiVersion": "v1", "kind": "Pod", "name": "p"}])
    assert _cells("controllerrevisions", {"metadata": core, "revision": 1}, 0)[1] == "pod/p"


def test_bindings_show_the_role_and_subjects_when_wide():
    b = {"metadata": {"name": "binding1", "creationTimestamp": format_timestamp(0)},
         "roleRef": {"kind": "ClusterRole", "name": "role"},
         "subjects": [{"kind": "User", "name": "system:kube-controller-manager"},
                      {"kind": "Group", "name": "system:masters"},
                      {"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"},
                      {"kind": "ServiceAccount", "name": "bare"}]}
    for resource in ("rolebindings", "clusterrolebindings"):
        assert _names(resource, False) == ["Name", "Role", "Age"]
        assert _cells(resource, b, 90) == ["binding1", "ClusterRole/role", "90s", "system:kube-controller-manager",
                                           "system:masters", "kube-system/default, bare"]


def test_roles_and_limit_ranges_show_created_at():
    r = {"metadata": {"name": "view", "creationTimestamp": "2025-08-27T00:00:00Z"}}
    for resource in ("roles", "clusterroles", "limitranges"):
        t = table_for(resource, [r], 3 * DAY)
        assert format_table(t).splitlines() == ["NAME   CREATED AT", "view   2025-08-27T00:00:00Z"]
        assert t["columnDefinitions"][1]["type"] == "date"


def test_storage_class_marks_the_default():
    sc = {"metadata": {"name": "standard", "creationTimestamp": format_timestamp(0),
                       "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
          "provisioner": "kubernetes.io/glusterfs"}
    assert _cells("storageclasses", sc, 0) == ["standard (default)", "kubernetes.io/glusterfs", "Delete",
                                               "Immediate", "false", "0s"]
    sc["metadata"]["annotations"] = {}
    sc.update(reclaimPolicy="Retain", volumeBindingMode="WaitForFirstConsumer", allowVolumeExpansion=True)
    assert _cells("storageclasses", sc, 0)[:5] == ["standard", "kubernetes.io/glusterfs", "Retain",
                                                   "WaitForFirstConsumer", "true"]


def test_persistent_volume_claim_shows_capacity_once_bound():
    pvc = {"metadata": {"name": "test1", "creationTimestamp": format_timestamp(0)},
           "spec": {"volumeName": "my-volume", "storageClassName": "fast", "volumeMode": "Filesystem"},
           "status": {"phase": "Bound", "accessModes": ["ReadOnlyMany", "ReadWriteOnce"],
                      "capacity": {"storage": "4Gi"}}}
    assert _cells("persistentvolumeclaims", pvc, 5) == ["test1", "Bound", "my-volume", "4Gi", "RWO,ROX", "fast",
                                                        "<unset>", "5s", "Filesystem"]
    pending = {"metadata": {"name": "test2", "creationTimestamp": format_timestamp(0)}, "spec": {},
               "status": {"phase": "Pending", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "4Gi"}}}
    assert _cells("persistentvolumeclaims", pending, 5, wide=False) == ["test2", "Pending", "", "", "", "",
                                                                        "<unset>", "5s"]


def test_persistent_volume_names_its_claim():
    pv = {"metadata": {"name": "pv1", "creationTimestamp": format_timestamp(0)},
          "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteMany"],
                   "persistentVolumeReclaimPolicy": "Retain", "claimRef": {"namespace": "default", "name": "data"},
                   "storageClassName": "manual"},
          "status": {"phase": "Bound"}}
    assert _cells("persistentvolumes", pv, 60, wide=False) == ["pv1", "10Gi", "RWX", "Retain", "Bound",
                                                               "default/data", "manual", "<unset>", "", "60s"]


def test_rows_carry_the_whole_metadata_for_labels_columns():
    pod = {"metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"},
                        "annotations": {"a": "b"}, "creationTimestamp": format_timestamp(0),
                        "managedFields": [{"manager": "kubectl"}]},
           "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Pending"}}
    obj = table_for("pods", [pod], 1)["rows"][0]["object"]
    assert obj["kind"] == "PartialObjectMetadata" and obj["apiVersion"] == "meta.k8s.io/v1"
    assert obj["metadata"]["labels"] == {"app": "web"} and obj["metadata"]["annotations"] == {"a": "b"}
    assert "managedFields" not in obj["metadata"]
    obj["metadata"]["labels"]["app"] = "changed"
    assert pod["metadata"]["labels"] == {"app": "web"}  # a copy, not the stored object
    assert partial_object_metadata({})["metadata"] == {}


def test_pod_columns_keep_the_wide_ones_last():
    assert _names("pods", False) == ["Name", "Ready", "Status", "Restarts", "Age"]
    assert _names("pods", True)[5:] == ["IP", "Node", "Nominated Node", "Readiness Gates"]


# ------------------------------------------------------------------ pods (printPod), after TestPrintPod* upstream


def _pod(status: dict, *, containers=("c1", "c2"), init=(), deleting: bool = False) -> dict:
    md = {"name": "test1", "creationTimestamp": format_timestamp(0)}
    if deleting:
        md["deletionTimestamp"] = format_timestamp(50)
    spec = {"containers": [{"name": n} for n in containers]}
    if init:
        spec["initContainers"] = [dict(c) for c in init]
    return {"metadata": md, "spec": spec, "status": status}


def _row(pod: dict, now: float = 600) -> list:
    return _cells("pods", pod, now, wide=False)


def test_pod_ready_and_restarts_sum_the_containers():
    pod = _pod({"phase": "podPhase", "containerStatuses": [
        {"name": "c1", "ready": True, "restartCount": 3, "state": {"running": {}}},
        {"name": "c2", "restartCount": 3, "state": {"running": {}}}]})
    assert _row(pod) == ["test1", "1/2", "podPhase", "6", "10m"]


def test_pod_status_takes_the_first_containers_waiting_or_terminated_reason():
    def status(*states):
        return {"phase": "Running", "containerStatuses": [{"name": f"c{i}", "state": s}
                                                          for i, s in enumerate(states, 1)]}

    assert _row(_pod(status({"waiting": {"reason": "ContainerWaitingReason"}}, {"running": {}})))[2] == \
        "ContainerWaitingReason"
    assert _row(_pod(status({"running": {}}, {"terminated": {"reason": "ContainerTerminatedReason"}})))[2] == \
        "ContainerTerminatedReason"
    # the first container wins: statuses are walked from the last to the first
    assert _row(_pod(status({"waiting": {"reason": "ErrImagePull"}}, {"waiting": {"reason": "Other"}})))[2] == \
        "ErrImagePull"
    assert _row(_pod(status({"terminated": {"exitCode": 1}}, {"running": {}})))[2] == "ExitCode:1"
    assert _row(_pod(status({"terminated": {"exitCode": 137, "signal": 9}}, {"running": {}})))[2] == "Signal:9"


def test_completed_with_a_container_still_running_is_running_or_not_ready():
    states = [{"name": "c1", "ready": True, "state": {"running": {}}},
              {"name": "c2", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]
    ready = _pod({"phase": "Running", "containerStatuses": states,
                  "conditions": [{"type": "Ready", "status": "True"}]})
    assert _row(ready)[1:3] == ["1/2", "Running"]
    not_ready = _pod({"phase": "Running", "containerStatuses": states,
                      "conditions": [{"type": "Ready", "status": "False"}]})
    assert _row(not_ready)[1:3] == ["1/2", "NotReady"]


def test_init_containers_show_progress_and_their_restarts():
    init = ({"name": "i1"}, {"name": "i2"})
    done = {"name": "i1", "restartCount": 0, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
    waiting = {"name": "i2", "restartCount": 4, "state": {"waiting": {"reason": "PodInitializing"}}}
    pod = _pod({"phase": "Pending", "initContainerStatuses": [done, waiting],
                "containerStatuses": [{"name": "c1", "state": {"waiting": {"reason": "PodInitializing"}}}]},
               containers=("c1",), init=init)
    assert _row(pod) == ["test1", "0/1", "Init:1/2", "4", "10m"]
    crash = dict(waiting, state={"waiting": {"reason": "CrashLoopBackOff"}})
    pod["status"]["initContainerStatuses"] = [done, crash]
    assert _row(pod)[2] == "Init:CrashLoopBackOff"
    failed = dict(waiting, state={"terminated": {"exitCode": 1, "reason": "Error"}})
    pod["status"]["initContainerStatuses"] = [done, failed]
    assert _row(pod)[2] == "Init:Error"
    pod["status"]["initContainerStatuses"] = [done, dict(waiting, state={"terminated": {"exitCode": 2}})]
    assert _row(pod)[2] == "Init:ExitCode:2"


def test_a_started_sidecar_counts_in_ready_and_restarts():
    init = ({"name": "sidecar", "restartPolicy": "Always"},)
    pod = _pod({"phase": "Running", "conditions": [{"type": "Initialized", "status": "True"}],
                "initContainerStatuses": [{"name": "sidecar", "started": True, "ready": True, "restartCount": 2,
                                           "state": {"running": {}}}],
                "containerStatuses": [{"name": "c1", "ready": True, "restartCount": 1, "state": {"running": {}},
                                       "lastState": {"terminated": {"finishedAt": format_timestamp(300)}}}]},
               containers=("c1",), init=init)
    assert _row(pod) == ["test1", "2/2", "Running", "3 (5m ago)", "10m"]


def test_a_pod_being_deleted_is_terminating_unless_it_finished_or_its_node_was_lost():
    running = {"phase": "Running", "containerStatuses": [{"name": "c1", "ready": True, "state": {"running": {}}}]}
    assert _row(_pod(running, containers=("c1",), deleting=True))[2] == "Terminating"
    done = {"phase": "Succeeded",
            "containerStatuses": [{"name": "c1", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}
    assert _row(_pod(done, containers=("c1",), deleting=True))[2] == "Completed"
    lost = dict(running, reason="NodeLost")
    assert _row(_pod(lost, containers=("c1",), deleting=True))[2] == "Unknown"
    gated = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                  "reason": "SchedulingGated"}]}
    assert _row(_pod(gated, containers=("c1",)))[1:3] == ["0/1", "SchedulingGated"]
