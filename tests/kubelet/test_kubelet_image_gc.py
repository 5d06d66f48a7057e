"""Image garbage collection on the kubelet model (``pkg/kubelet/images/image_gc_manager.go`` v1.34).

* the periodic pass every 5 min: above ``imageGCHighThresholdPercent`` (85 %) unused images at least
  ``imageMinimumGCAge`` (2 min) old go, least recently used first, down to the low threshold (80 %); an image
  first seen less than 2 min ago is kept and the pass records ``FreeDiskSpaceFailed`` with upstream's message
  (``TestGarbageCollectBelowLowThreshold`` / ``TestGarbageCollectNotEnoughFreed`` /
  ``TestFreeSpaceImagesAlsoDoesLookupByRepoTags``-style cases of ``image_gc_manager_test.go``: in-use and pinned
  images are never removed);
* the eviction manager's node-level reclaim under DiskPressure (``DeleteUnusedImages``) frees the disk without
  evicting a pod (``TestNodeReclaimFuncs`` of ``eviction_manager_test.go``, end to end).
"""

from __future__ import annotations

from types import SimpleNamespace

import simpy

from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.server import APIServer
from kubenotes.kubelet.kubelet import Kubelet, KubeletConfiguration

MiB = 2**20


def _kubelet(options: KubeletConfiguration, storage: str = "140Mi"):
    env = simpy.Environment()
    server = APIServer(env, seed=0)
    admin = server.client("kubectl", UserInfo("admin", groups=("system:masters",)))
    for ns in ("default", "kube-node-lease"):
        admin.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    node = admin.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                                  "spec": {"podCIDR": "10.244.1.0/24"}})
    node["status"] = {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": storage}}
    admin.update_status("nodes", node)
    kubelet = Kubelet(SimpleNamespace(env=env, server=server, seed=0), "n1", options=options)
    kubelet.start()
    return env, admin, kubelet


def _pod(admin, name: str, image: str) -> None:
    admin.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                          "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": image}]}}, "default")


def _images(kubelet) -> set[str]:
    return {i.ref.rsplit("/", 1)[-1] for i in kubelet.runtime.images.images.values()}


def test_the_periodic_pass_removes_an_unused_image_once_it_is_two_minutes_old():
    # only the memory threshold: the disk is left to the image GC alone
    env, admin, kubelet = _kubelet(KubeletConfiguration(eviction_hard={"memory.available": "100Mi"}))
    _pod(admin, "old", "nginx:1.27")
    env.run(until=20)
    admin.delete("pods", "old", "default", grace_period_seconds=0)
    _pod(admin, "new", "httpd:2.4")
    env.run(until=299)
    assert _images(kubelet) == {"pause:3.10", "nginx:1.27", "httpd:2.4"}   # 121.7 MiB of 140: 87 % used
    env.run(until=301)
    first = kubelet.image_gc.passes[-1]
    assert (first["time"], first["usagePercent"], first["freed"]) == (300.0, 87, 0)  # nginx first seen now
    capacity = 140 * MiB
    used = sum(i.size_bytes for i in kubelet.runtime.images.images.values())
    amount = capacity * 20 // 100 - (capacity - used)
    failed = [e for e in kubelet.events if e["reason"] == "FreeDiskSpaceFailed"]
    assert [e["message"] for e in failed] == [
        f"Failed to garbage collect required amount of images. Attempted to free {amount} bytes, "
        f"but only found 0 bytes eligible to free."]
    env.run(until=601)
    assert _images(kubelet) == {"pause:3.10", "httpd:2.4"}     # in use and pinned images stay
    assert [(t, ref, why) for t, ref, _, why in kubelet.image_gc.removed] == [
        (600.0, "docker.io/library/nginx:1.27", "gc")]
    removes = [t for t in kubelet.runtime.trace if t["method"] == "RemoveImage"]
    assert [t["request"]["image"]["image"] for t in removes] == ["docker.io/library/nginx:1.27"]
    assert kubelet.image_gc.passes[-1]["error"] is None
    assert admin.get("pods", "new", "default")["status"]["phase"] == "Running"


def test_below_the_high_threshold_nothing_is_removed():
    env, admin, kubelet = _kubelet(KubeletConfiguration(eviction_hard={"memory.available": "100Mi"}),
                                   storage="1Gi")
    _pod(admin, "old", "nginx:1.27")
    env.run(until=20)
    admin.delete("pods", "old", "default", grace_period_seconds=0)
    env.run(until=1201)
    assert "nginx:1.27" in _images(kubelet)
    assert all(p["amountToFree"] == 0 and p["freed"] == 0 for p in kubelet.image_gc.passes)
    assert len(kubelet.image_gc.passes) == 5   # at 0, 300, 600, 900 and 1200 s


def test_disk_pressure_reclaims_unused_images_before_evicting_a_pod():
    env, admin, kubelet = _kubelet(KubeletConfiguration())
    _pod(admin, "old", "nginx:1.27")
    env.run(until=450)                      # nginx first detected by the pass at 300 s
    admin.delete("pods", "old", "default", grace_period_seconds=0)
    _pod(admin, "new", "httpd:2.4")         # 87 % used: imagefs.available < 15 %
    env.run(until=500)
    reclaimed = [r for r in kubelet.image_gc.removed if r[3] == "reclaim"]
    assert [r[1] for r in reclaimed] == ["docker.io/library/nginx:1.27"]
    met = [e["message"] for e in kubelet.events if e["reason"] == "EvictionThresholdMet"]
    assert met and met[0] == "Attempting to reclaim ephemeral-storage"
    assert not [e for e in kubelet.events if e["reason"] == "Evicted"]
    assert admin.get("pods", "new", "default")["status"]["phase"] == "Running"


def test_without_old_unused_images_disk_pressure_evicts_a_pod():
    env, admin, kubelet = _kubelet(KubeletConfiguration())
    _pod(admin, "a", "nginx:1.27")
    _pod(admin, "b", "httpd:2.4")           # both in use: nothing to reclaim
    env.run(until=120)
    assert not kubelet.image_gc.removed
    evicted = [e for e in kubelet.events if e["reason"] == "Evicted"]
    # evicting does not free image bytes (the exited containers still hold their images): both pods go
    assert [e["pod"] for e in evicted] == ["a", "b"] or [e["pod"] for e in evicted] == ["b", "a"]
    assert evicted[0]["time"] == 10.0
    assert evicted[0]["message"].startswith("The node was low on resource: ephemeral-storage. "
                                            "Threshold quantity: 21Mi, available: ")
