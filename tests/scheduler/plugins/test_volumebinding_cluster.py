"""VolumeBinding in the running cluster: PreBind's API writes and its wait (binder.go BindPodVolumes).

No PV controller runs here (it is another component's work): a test process
plays its part where a case needs the binding completed, writing only what
upstream's controller writes (the claim's ``volumeName`` and
``pv.kubernetes.io/bind-completed``).
"""

from __future__ import annotations

import copy

from kubenotes.sim.cluster import Cluster

NODES = [{"apiVersion": "v1", "kind": "Node",
          "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
          "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                     "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                     "addresses": [{"type": "InternalIP", "address": f"192.168.0.{10 + i}"}]}} for i in range(2)]


def _objects(provisioner="kubernetes.io/no-provisioner", with_pv=True):
    out = NODES + [
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
         "provisioner": provisioner, "volumeBindingMode": "WaitForFirstConsumer"},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
         "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                  "resources": {"requests": {"storage": "5Gi"}}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}],
                  "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}},
    ]
    if with_pv:
        out.append({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-n1"},
                    "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                             "storageClassName": "local", "local": {"path": "/mnt/disks/d1"},
                             "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                                 {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}}}})
    return out


def _available(c):
    """The PV controller's first write: a new PV turns ``Available`` (syncVolume)."""
    pv = copy.deepcopy(c.server.get("persistentvolumes", None, "pv-n1"))
    pv["status"] = {"phase": "Available"}
    c.client.update("persistentvolumes", pv, None, subresource="status")


def _pv_controller_stand_in(c, delay=2.0):
    """Complete the claim side of a PV the scheduler bound (what syncVolume/bindClaimToVolume write)."""
    def run():
        while True:
            yield c.env.timeout(delay)
            pv = c.server.get("persistentvolumes", None, "pv-n1")
            pvc = copy.deepcopy(c.server.get("persistentvolumeclaims", "default", "data"))
            ref = (pv.get("spec") or {}).get("claimRef")
            if ref and not (pvc.get("spec") or {}).get("volumeName"):
                pvc["spec"]["volumeName"] = "pv-n1"
                pvc["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bind-completed"] = "yes"
                c.client.update("persistentvolumeclaims", pvc, "default")
                return
    c.env.process(run())


def _events(c, reason):
    return [e for e in c.server.list("events", "default") if e.get("reason") == reason]


def test_prebind_binds_the_pv_then_waits_for_the_pv_controller():
    c = Cluster(_objects(), seed=0, controllers=())
    c.run(until=10)  # the PV is not Available yet: no node has a volume to bind
    assert [e["message"] for e in _events(c, "FailedScheduling")] == [
        "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind. no new claims to "
        "deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."]
    _available(c)  # the PV's update brings the pod back at once (not after the 5-minute unschedulable flush)
    _pv_controller_stand_in(c)
    c.run(until=20)
    pv = c.server.get("persistentvolumes", None, "pv-n1")
    pod = c.server.get("pods", "default", "db")
    assert pv["spec"]["claimRef"]["name"] == "data" and pv["spec"]["claimRef"]["uid"]
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    assert pod["spec"]["nodeName"] == "n1"  # the only node the local PV reaches
    assert len(_events(c, "FailedScheduling")) == 1  # the one before the PV was Available
    assert [e["message"] for e in _events(c, "Scheduled")] == ["Successfully assigned default/db to n1"]


def test_prebind_times_out_after_bind_timeout_seconds():
    c = Cluster(_objects(), seed=0, controllers=())
    _available(c)
    c.run(until=599)
    assert not (c.server.get("pods", "default", "db")["spec"].get("nodeName"))
    assert not _events(c, "FailedScheduling")  # still waiting: the binding cycle has not failed yet
    c.run(until=605)
    msgs = [e["message"] for e in _events(c, "FailedScheduling")]
    assert msgs[:1] == ['running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded']
    pod = c.server.get("pods", "default", "db")
    assert not pod["spec"].get("nodeName")
    cond = next(x for x in pod["status"]["conditions"] if x["type"] == "PodScheduled")
    assert (cond["status"], cond["reason"]) == ("False", "SchedulerError")


def test_delayed_provisioning_writes_selected_node():
    c = Cluster(_objects(provisioner="example.com/csi", with_pv=False), seed=0, controllers=())
    c.run(until=5)
    pvc = c.server.get("persistentvolumeclaims", "default", "data")
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] in ("n0", "n1")
    assert not c.server.get("pods", "default", "db")["spec"].get("nodeName")  # waits for the provisioner


def test_provisioning_failure_signalled_by_the_claim_fails_the_binding_cycle():
    c = Cluster(_objects(provisioner="example.com/csi", with_pv=False), seed=0, controllers=())
    c.run(until=3)
    pvc = copy.deepcopy(c.server.get("persistentvolumeclaims", "default", "data"))
    del pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"]  # the provisioner gave up
    c.client.update("persistentvolumeclaims", pvc, "default")
    c.run(until=6)
    msgs = [e["message"] for e in _events(c, "FailedScheduling")]
    assert msgs and msgs[0].startswith('running PreBind plugin "VolumeBinding": binding volumes: ')
    assert "selectedNode annotation reset" in msgs[0] or "provisioning failed" in msgs[0]
