"""The kubelet model end to end: an APIServer, a CRI runtime and one :class:`Kubelet` on one clock.

The cases are end-to-end versions of upstream unit cases (same situations and expected
actions; upstream asserts on fakes, these on the CRI trace, the events and the API status):

* the pod start timeline and the CRI call order (sandbox, image status, pull,
  image status, create, start): ``pkg/kubelet/kuberuntime/kuberuntime_manager_test.go``
  ``TestSyncPod`` (a new pod gets one sandbox and its containers created and
  started) and ``TestComputePodActions`` ("Start a new pod"), plus the image
  manager's ``TestParallelPuller``/``TestSerializedPuller`` cases for
  ``IfNotPresent`` with the image present (no pull) and ``Never`` with it absent
  (``ErrImageNeverPull``) from ``pkg/kubelet/images/image_manager_test.go``;
* the back-off re-check: v1.34's ``completeWork`` (``pod_workers.go``) requeues every sync error, a
  back-off included, after ``backOffPeriod`` 10 s with 50 % jitter (kubernetes#133066 came after v1.34.0);
* CrashLoopBackOff: ``TestSyncPodBackoff`` (``kuberuntime_manager_test.go``):
  the first restart is not backed off, the next ones wait 10 s, 20 s, 40 s
  after the exit, with the ``back-off 10s restarting failed container=...``
  message and the ``BackOff`` event;
* restart policies: ``TestComputePodActions`` ("restart exited containers if
  RestartPolicy == OnFailure and exit code != 0", "don't restart containers if
  RestartPolicy == Never");
* liveness: ``TestComputePodActions`` ("Kill and recreate the container if the
  liveness check has failed") and the prober's kill message;
* init containers: ``TestComputePodActionsWithInitContainers`` ("initialization
  in progress; do nothing", "Start the next init container"), and a sidecar
  started before the app container (``TestComputePodActionsWithRestartableInitContainers``);
* termination: ``TestKillContainer`` (``kuberuntime_container_test.go``: the
  grace period reaches the runtime), the preStop sleep action
  (``TestLifeCycleHook`` "PreStop-Sleep") and the status manager deleting the
  pod with grace 0 once it is terminated;
* a changed spec: ``TestComputePodActions`` ("Kill and recreate the container
  if the container's spec changed", regardless of the restart policy);
* the node: the Lease renewal interval (``pkg/kubelet/nodelease``), and the PLEG's
  ``Healthy`` threshold turning the node NotReady (``TestHealthy`` in
  ``pleg/generic_test.go``, seen through the Ready condition);
* static pods and mirror pods: ``test/e2e_node/mirror_pod_test.go`` ("MirrorPod": the
  mirror pod runs; "should be updated when static pod updated"; "should be recreated
  when mirror pod gracefully deleted" and "... forcibly deleted"; the manifest's
  deletion makes the mirror pod disappear; "should successfully recreate when file is
  removed and recreated"), the file source's ``fileCheckFrequency`` and skipped files
  (``pkg/kubelet/config/file_linux_test.go``), ``deleteOrphanedMirrorPods``
  (``kubelet_pods.go``), and the same deletion through the real kubectl;
* node-pressure eviction: ``TestMemoryPressure`` (``pkg/kubelet/eviction/eviction_manager_test.go``:
  the BestEffort pod over its request is evicted with the hard threshold's grace period, the
  node reports MemoryPressure, a new BestEffort pod is not admitted, a Burstable one is).
"""

from __future__ import annotations

import re
import time
from types import SimpleNamespace

import pytest
import simpy

from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.server import APIServer
from kubenotes.kubelet.kubelet import Kubelet, KubeletConfiguration, container_hash, image_pull_policy
from kubenotes.kubelet.prober import LIVENESS

LIFECYCLE = ("RunPodSandbox", "ImageStatus", "PullImage", "CreateContainer", "StartContainer", "StopContainer",
             "StopPodSandbox")


class Harness:
    """An API server with namespaces and Node ``n1``, and one kubelet on it."""

    def __init__(self, options: KubeletConfiguration | None = None):
        self.env = simpy.Environment()
        self.server = APIServer(self.env, seed=0)
        self.admin = self.server.client("kubectl", UserInfo("admin", groups=("system:masters",)))
        for ns in ("default", "kube-node-lease"):
            self.admin.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        node = self.admin.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                                           "spec": {"podCIDR": "10.244.1.0/24"}})
        node["status"] = {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                          "addresses": [{"type": "InternalIP", "address": "10.0.0.2"}]}
        self.admin.update_status("nodes", node)
        self.kubelet = Kubelet(SimpleNamespace(env=self.env, server=self.server, seed=0), "n1", options=options)
        self.kubelet.start()

    def pod(self, name: str, containers: list[dict], **spec) -> dict:
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"nodeName": "n1", "containers": containers, **spec}}
        return self.admin.create("pods", body, "default")

    def run(self, until: float) -> None:
        self.env.run(until=until)

    def get(self, name: str) -> dict | None:
        items = self.admin.list("pods", "default")["items"]
        return next((p for p in items if p["metadata"]["name"] == name), None)

    def calls(self, methods=LIFECYCLE) -> list[dict]:
        return [t for t in self.kubelet.runtime.trace if t["method"] in methods]

    def events(self, reason: str | None = None) -> list[dict]:
        return [e for e in self.kubelet.events if reason is None or e["reason"] == reason]

    def starts(self, name: str) -> list[float]:
        """End times of the StartContainer calls for container ``name``."""
        created = {t["response"]["container_id"]: t["request"]["config"]["metadata"]["name"]
                   for t in self.calls(("CreateContainer",)) if t["response"]}
        return [t["time"] + t["duration_seconds"] for t in self.calls(("StartContainer",))
                if created.get(t["request"]["container_id"]) == name]


NGINX = {"name": "web", "image": "nginx:1.27"}


# ---------------------------------------------------------------- a pod's start
def test_a_pod_starts_sandbox_then_pull_then_create_then_start_and_turns_ready():
    h = Harness()
    h.pod("web", [NGINX])
    h.run(30)
    methods = [t["method"] for t in h.calls()]
    assert methods == ["RunPodSandbox", "ImageStatus", "PullImage", "ImageStatus", "CreateContainer",
                       "StartContainer"]
    times = [t["time"] for t in h.calls()]
    assert times == sorted(times)
    # the pull takes the image's size over the link: it dominates the start
    pull = h.calls(("PullImage",))[0]
    assert pull["duration_seconds"] > 1.0
    assert [e["reason"] for e in h.kubelet.events] == ["Pulling", "Pulled", "Created", "Started"]
    assert h.events("Pulling")[0]["message"] == 'Pulling image "nginx:1.27"'
    assert re.fullmatch(r'Successfully pulled image "nginx:1\.27" in [0-9.]+m?s \([0-9.]+m?s including waiting\)\. '
                        r'Image size: \d+ bytes\.', h.events("Pulled")[0]["message"])
    assert h.events("Created")[0]["message"] == "Created container: web"
    assert h.events("Started")[0]["message"] == "Started container web"
    assert h.events("Started")[0]["field_path"] == "spec.containers{web}"
    # the status timeline: ContainerCreating first, then Running and Ready after the PLEG saw the start
    first_t, _, first = h.kubelet.status_log[0]
    assert first["phase"] == "Pending"
    assert first["containerStatuses"][0]["state"] == {"waiting": {"reason": "ContainerCreating"}}
    assert first_t < h.calls(("StartContainer",))[0]["time"]
    pod = h.get("web")
    st = pod["status"]
    assert st["phase"] == "Running"
    assert {c["type"]: c["status"] for c in st["conditions"]} == {
        "PodReadyToStartContainers": "True", "Initialized": "True", "Ready": "True", "ContainersReady": "True",
        "PodScheduled": "True"}
    assert st["podIP"] == "10.244.1.2" and st["hostIP"] == "10.0.0.2"
    cs = st["containerStatuses"][0]
    assert cs["ready"] and cs["started"] and cs["restartCount"] == 0
    assert cs["containerID"].startswith("containerd://")
    ready_at = next(t for t, _, s in h.kubelet.status_log if s["phase"] == "Running")
    assert h.starts("web")[0] <= ready_at <= h.starts("web")[0] + 1.5  # one PLEG relist later
    # the Kubernetes Events went through the API as the kubelet's (source kubelet, host n1)
    events = h.admin.list("events", "default")["items"]
    assert {e["reason"] for e in events} == {"Pulling", "Pulled", "Created", "Started"}
    assert all(e["source"] == {"component": "kubelet", "host": "n1"} for e in events)


def test_cri_requests_carry_the_labels_the_pleg_and_the_runtime_need():
    h = Harness()
    pod = h.pod("web", [NGINX])
    h.run(10)
    uid = pod["metadata"]["uid"]
    sandbox = h.calls(("RunPodSandbox",))[0]["request"]["config"]
    assert sandbox["metadata"] == {"name": "web", "uid": uid, "namespace": "default", "attempt": 0}
    assert sandbox["labels"]["io.kubernetes.pod.uid"] == uid
    create = h.calls(("CreateContainer",))[0]["request"]
    cfg = create["config"]
    assert create["pod_sandbox_id"] == h.calls(("RunPodSandbox",))[0]["response"]["pod_sandbox_id"]
    assert cfg["labels"] == {"io.kubernetes.container.name": "web", "io.kubernetes.pod.name": "web",
                             "io.kubernetes.pod.namespace": "default", "io.kubernetes.pod.uid": uid}
    assert cfg["annotations"]["io.kubernetes.container.hash"] == container_hash(h.get("web")["spec"]["containers"][0])
    assert cfg["annotations"]["io.kubernetes.container.restartCount"] == "0"
    assert cfg["log_path"] == "web/0.log" and cfg["image"] == {"image": "nginx:1.27"}


def test_a_present_image_is_not_pulled_again_and_never_means_never():
    h = Harness()
    h.pod("a", [NGINX])
    h.run(10)
    h.pod("b", [NGINX])
    h.pod("c", [{"name": "x", "image": "redis:7.4", "imagePullPolicy": "Never"}])
    h.run(20)
    assert len(h.calls(("PullImage",))) == 1
    assert any(e["message"] == 'Container image "nginx:1.27" already present on machine' and e["pod"] == "b"
               for e in h.events("Pulled"))
    never = h.events("ErrImageNeverPull")
    assert never and never[0]["message"] == 'Container image "redis:7.4" is not present with pull policy of Never'
    st = h.get("c")["status"]["containerStatuses"][0]["state"]
    assert st == {"waiting": {"reason": "ErrImageNeverPull",
                              "message": 'Container image "redis:7.4" is not present with pull policy of Never'}}


def test_image_pull_policy_defaults_follow_the_tag():
    assert image_pull_policy({"image": "busybox"}) == "Always"
    assert image_pull_policy({"image": "busybox:latest"}) == "Always"
    assert image_pull_policy({"image": "registry:5000/app:v1"}) == "IfNotPresent"


def test_an_unknown_image_fails_to_pull_and_backs_off():
    h = Harness(KubeletConfiguration(unknown_images_exist=False))
    h.pod("bad", [{"name": "x", "image": "nginx:9.9"}])
    h.run(40)
    pulls = [t["time"] for t in h.calls(("PullImage",))]
    assert len(pulls) >= 2
    assert pulls[1] - pulls[0] >= 10.0  # imageBackOffPeriod
    reasons = [e["reason"] for e in h.kubelet.events]
    assert reasons[:3] == ["Pulling", "Failed", "Failed"]
    assert h.events("Failed")[1]["message"] == "Error: ErrImagePull"
    waiting = h.kubelet.status_log[-1][2]["containerStatuses"][0]["state"]["waiting"]
    assert waiting["reason"] in ("ErrImagePull", "ImagePullBackOff")


# ---------------------------------------------------------------- restarts
def test_crash_loop_back_off_restarts_at_once_then_after_10_20_40_seconds():
    h = Harness()
    pod = h.pod("crash", [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", "exit 1"]}])
    h.run(160)
    rt = h.kubelet.runtime
    instances = sorted((c for c in rt.containers.values()), key=lambda c: c.created_at)
    starts = h.starts("c")
    assert len(starts) >= 5
    # finishedAt of each run (the process exits right after starting: a 0 s run)
    delays = [b - a for a, b in zip(starts, starts[1:])]
    assert delays[0] < 1.5                      # the first restart is not backed off (only the PLEG's relist)
    for got, want in zip(delays[1:4], (10, 20, 40)):
        # the first 10-15 s re-check (v1.34's backOffPeriod requeue) after the expiry, on a 1 s tick
        assert want <= got <= want + 15 + 1.5
    messages = [e["message"] for e in h.events("BackOff")]
    uid = pod["metadata"]["uid"]
    assert messages[0] == f"Back-off restarting failed container c in pod crash_default({uid})"
    waiting = [s["containerStatuses"][0]["state"].get("waiting", {}).get("message")
               for _, _, s in h.kubelet.status_log]
    for d in ("10s", "20s", "40s"):
        assert f"back-off {d} restarting failed container=c pod=crash_default({uid})" in waiting
    cs = h.get("crash")["status"]["containerStatuses"][0]
    assert cs["restartCount"] == len(starts) - 1
    assert cs["lastState"]["terminated"]["exitCode"] == 1 and cs["lastState"]["terminated"]["reason"] == "Error"
    assert len(instances) <= 2  # container GC keeps the newest dead instance only


def test_a_backed_off_container_is_rechecked_every_10_to_15_seconds_as_v1_34():
    """v1.34's ``completeWork`` (pkg/kubelet/pod_workers.go) requeues a pod whose sync failed with a back-off
    after ``backOffPeriod`` 10 s with ``workerBackOffPeriodJitterFactor`` 0.5: the pod is re-checked every
    10-15 s (on the 1 s sync tick), and a restart comes at the first re-check after the back-off expires.
    Requeueing at the expiry itself is kubernetes#133066, merged after v1.34.0."""
    h = Harness()
    pod = h.pod("crash", [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", "exit 1"]}])
    h.run(160)
    uid = pod["metadata"]["uid"]
    starts = h.starts("c")
    syncs = [t for t, u, kind in h.kubelet.sync_log if u == uid and kind == "SyncPod"]
    assert len(starts) >= 5
    for exited, restarted, back_off in zip(starts[2:], starts[3:], (20, 40)):
        # each run exits at once: the back-off runs from the start (+ the PLEG's relist)
        rechecks = [t for t in syncs if exited + 1.5 < t < restarted - 0.5]
        assert len(rechecks) >= back_off // 15  # the 40 s back-off is looked at twice or more before it ends
        gaps = [b - a for a, b in zip(rechecks, rechecks[1:] + [restarted])]
        assert all(10 - 1e-6 <= g <= 16 + 1e-6 for g in gaps), gaps
        # the restart is the first re-check after the expiry, so at most one period late
        assert exited + back_off <= restarted <= exited + back_off + 16 + 1.5
        assert all(t < exited + back_off + 1.5 for t in rechecks)


@pytest.mark.parametrize("policy,exit_code,restarts,phase", [
    ("Never", 1, False, "Failed"),
    ("OnFailure", 0, False, "Succeeded"),
    ("OnFailure", 3, True, "Running"),
])
def test_restart_policy_decides_whether_an_exited_container_restarts(policy, exit_code, restarts, phase):
    h = Harness()
    h.pod("p", [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", f"sleep 2; exit {exit_code}"]}],
          restartPolicy=policy)
    h.run(8)
    assert (len(h.starts("c")) > 1) == restarts
    assert h.get("p")["status"]["phase"] == phase
    if not restarts:
        term = h.get("p")["status"]["containerStatuses"][0]["state"]["terminated"]
        assert term["exitCode"] == exit_code
        assert term["reason"] == ("Completed" if exit_code == 0 else "Error")
        assert [t["method"] for t in h.calls(("StopPodSandbox",))] == ["StopPodSandbox"]


def test_a_liveness_failure_kills_and_restarts_the_container():
    def results(uid, container, kind, now):
        return ("failure", "HTTP probe failed with statuscode: 500") if kind == LIVENESS and now > 20 else "success"

    h = Harness(KubeletConfiguration(probe_results=results))
    probe = {"httpGet": {"path": "/healthz", "port": 80}, "periodSeconds": 10, "failureThreshold": 3}
    h.pod("web", [dict(NGINX, livenessProbe=probe)], terminationGracePeriodSeconds=15)
    h.run(70)
    unhealthy = h.events("Unhealthy")
    assert len(unhealthy) >= 3
    assert unhealthy[0]["message"] == "Liveness probe failed: HTTP probe failed with statuscode: 500"
    killing = h.events("Killing")
    assert killing[0]["message"] == "Container web failed liveness probe, will be restarted"
    assert killing[0]["time"] >= unhealthy[2]["time"]  # after failureThreshold failures
    stop = h.calls(("StopContainer",))[0]
    assert stop["request"]["timeout"] == 15  # the pod's terminationGracePeriodSeconds
    starts = h.starts("web")
    assert len(starts) == 2 and starts[1] >= stop["time"]  # killed, then started again at once (no back-off)
    cs = next(s for _, _, st in reversed(h.kubelet.status_log) for s in st["containerStatuses"])
    assert cs["restartCount"] == 1
    assert cs["lastState"]["terminated"]["reason"] in ("Completed", "Error")
    second = [t for t in h.calls(("CreateContainer",))][1]["request"]["config"]
    assert second["metadata"]["attempt"] == 1 and second["log_path"] == "web/1.log"


# ---------------------------------------------------------------- init containers and sidecars
def test_init_containers_run_one_at_a_time_in_order_before_the_app():
    h = Harness()
    inits = [{"name": "init-a", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 3"]},
             {"name": "init-b", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 2"]}]
    h.pod("web", [NGINX], initContainers=inits)
    h.run(40)
    created = [t["request"]["config"]["metadata"]["name"] for t in h.calls(("CreateContainer",))]
    assert created == ["init-a", "init-b", "web"]
    a, b, web = h.starts("init-a")[0], h.starts("init-b")[0], h.starts("web")[0]
    assert b >= a + 3 and web >= b + 2  # each waits for the previous one to exit 0
    pending = [s for _, _, s in h.kubelet.status_log if s["phase"] == "Pending"]
    assert any(s["containerStatuses"][0]["state"] == {"waiting": {"reason": "PodInitializing"}} for s in pending)
    assert any(next(c for c in s["conditions"] if c["type"] == "Initialized")["reason"] == "ContainersNotInitialized"
               for s in pending)
    st = h.get("web")["status"]
    assert st["phase"] == "Running"
    assert [c["state"]["terminated"]["reason"] for c in st["initContainerStatuses"]] == ["Completed", "Completed"]


def test_a_failing_init_container_under_never_fails_the_pod_and_the_app_never_starts():
    h = Harness()
    h.pod("web", [NGINX], restartPolicy="Never",
          initContainers=[{"name": "init", "image": "busybox:1.36", "command": ["sh", "-c", "exit 2"]}])
    h.run(20)
    assert h.starts("web") == []
    assert h.get("web")["status"]["phase"] == "Failed"


def test_a_sidecar_starts_in_its_place_and_keeps_running_beside_the_app():
    h = Harness()
    sidecar = {"name": "proxy", "image": "nginx:1.27-alpine", "restartPolicy": "Always"}
    h.pod("web", [NGINX], initContainers=[sidecar])
    h.run(30)
    created = [t["request"]["config"]["metadata"]["name"] for t in h.calls(("CreateContainer",))]
    assert created == ["proxy", "web"]
    st = h.get("web")["status"]
    assert st["phase"] == "Running"
    assert "running" in st["initContainerStatuses"][0]["state"] and st["initContainerStatuses"][0]["ready"]


# ---------------------------------------------------------------- deletion
def test_deletion_stops_the_container_with_the_grace_period_and_removes_the_pod():
    h = Harness()
    h.pod("web", [NGINX], terminationGracePeriodSeconds=30)
    h.run(10)
    h.admin.delete("pods", "web", "default", grace_period_seconds=30)
    h.run(12)
    assert h.get("web") is None  # nginx exits on its stop signal at once; the kubelet then deletes with grace 0
    assert h.events("Killing")[0]["message"] == "Stopping container web"
    stop = h.calls(("StopContainer",))[0]
    assert stop["request"]["timeout"] == 30
    assert [t["method"] for t in h.calls(("StopContainer", "StopPodSandbox"))] == ["StopContainer", "StopPodSandbox"]
    final = h.kubelet.status_log[-1][2]
    assert "terminated" in final["containerStatuses"][0]["state"]
    assert h.kubelet.runtime.sandboxes == {}  # removed once the pod left the API


def test_the_final_status_of_a_deleted_pod_is_the_status_managers_terminate_pod():
    # SyncTerminatedPod -> statusManager.TerminatePod: a container that never ran (its image cannot be pulled)
    # is reported terminated with ContainerStatusUnknown/137, and the Pending pod ends Failed before its deletion
    h = Harness(KubeletConfiguration(unknown_images_exist=False))
    h.pod("bad", [{"name": "x", "image": "nginx:9.9"}], terminationGracePeriodSeconds=5)
    h.run(15)
    assert h.get("bad")["status"]["phase"] == "Pending"
    h.admin.delete("pods", "bad", "default", grace_period_seconds=5)
    h.run(20)
    assert h.get("bad") is None
    final = h.kubelet.status_log[-1][2]
    assert final["phase"] == "Failed"
    terminated = final["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (137, "ContainerStatusUnknown")
    assert terminated["message"] == "The container could not be located when the pod was terminated"


def test_a_container_ignoring_sigterm_is_killed_when_the_grace_period_ends():
    h = Harness()
    h.pod("web", [NGINX], terminationGracePeriodSeconds=20)
    h.run(10)
    rt = h.kubelet.runtime
    (c,) = [c for c in rt.containers.values()]
    rt.set_stop_behaviour(c.id, None)  # ignores its stop signal
    h.admin.delete("pods", "web", "default", grace_period_seconds=20)
    deleted_at = h.env.now
    h.run(29)
    assert h.get("web") is not None  # still terminating
    h.run(40)
    assert h.get("web") is None
    (sig, t1), (kill, t2) = c.signals
    assert (sig, kill) == ("SIGQUIT", "SIGKILL")  # nginx's StopSignal, then the runtime's SIGKILL
    assert t2 - t1 == pytest.approx(20, abs=0.01) and t1 - deleted_at < 1.0
    assert c.exit_code == 137


def test_a_prestop_sleep_runs_before_the_stop_signal_within_the_grace_period():
    h = Harness()
    h.pod("web", [dict(NGINX, lifecycle={"preStop": {"sleep": {"seconds": 5}}})], terminationGracePeriodSeconds=30)
    h.run(10)
    h.admin.delete("pods", "web", "default", grace_period_seconds=30)
    killing_at = h.env.now
    h.run(30)
    stop = h.calls(("StopContainer",))[0]
    assert stop["time"] - killing_at == pytest.approx(5, abs=0.1)
    assert stop["request"]["timeout"] == 25


# ---------------------------------------------------------------- node
def test_the_node_gets_its_status_and_a_lease_renewed_every_ten_seconds():
    h = Harness()
    h.run(1)
    first = h.admin.get("leases", "n1", "kube-node-lease")["spec"]["renewTime"]
    h.run(11)
    second = h.admin.get("leases", "n1", "kube-node-lease")["spec"]["renewTime"]
    assert (first, second) == ("2025-08-27T00:00:00.000000Z", "2025-08-27T00:00:10.000000Z")
    node = h.admin.get("nodes", "n1")
    ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"]) == ("True", "KubeletReady")
    assert node["status"]["capacity"]["cpu"] == "4" and node["status"]["capacity"]["pods"] == "110"
    assert node["status"]["allocatable"]["memory"] != node["status"]["capacity"]["memory"]  # less evictionHard


def test_logs_of_a_started_container_are_readable_through_the_kubelet():
    h = Harness()
    h.pod("hello", [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", "echo hi; sleep 3600"]}])
    h.run(10)
    reader = h.kubelet.container_log_reader("default", "hello", "c", {})
    assert reader.read() == "hi\n"


def test_a_changed_container_spec_kills_and_recreates_the_container_even_under_never():
    h = Harness()
    h.pod("web", [NGINX], restartPolicy="Never")
    h.run(10)
    h.admin.patch("pods", "web", {"spec": {"containers": [{"name": "web", "image": "nginx:1.27-alpine"}]}},
                  "default", patch_type="application/strategic-merge-patch+json")
    h.run(30)
    assert h.events("Killing")[0]["message"] == "Container web definition changed, will be restarted"
    images = [t["request"]["config"]["image"]["image"] for t in h.calls(("CreateContainer",))]
    assert images == ["nginx:1.27", "nginx:1.27-alpine"]
    assert h.get("web")["status"]["phase"] == "Running"


def test_a_pleg_that_stops_relisting_turns_the_node_not_ready_after_three_minutes():
    h = Harness()
    h.run(5)
    h.kubelet.pleg.stop()
    h.run(180)
    ready = next(c for c in h.admin.get("nodes", "n1")["status"]["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "True"
    h.run(200)
    ready = next(c for c in h.admin.get("nodes", "n1")["status"]["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "False" and ready["reason"] == "KubeletNotReady"
    assert re.search(r"PLEG is not healthy: pleg was last seen active 3m\d+(\.\d+)?s ago; threshold is 3m0s",
                     ready["message"])


def test_node_down_stops_heartbeats_but_not_the_containers():
    h = Harness()
    h.pod("web", [NGINX])
    h.run(10)
    h.kubelet.node_down()
    renew = h.admin.get("leases", "n1", "kube-node-lease")["spec"]["renewTime"]
    h.run(60)
    assert h.admin.get("leases", "n1", "kube-node-lease")["spec"]["renewTime"] == renew
    assert [c.state for c in h.kubelet.runtime.containers.values()] == ["CONTAINER_RUNNING"]
    h.kubelet.node_up()
    h.run(61)
    assert h.admin.get("leases", "n1", "kube-node-lease")["spec"]["renewTime"] != renew



def test_a_stopped_kubelet_does_not_stop_an_evicted_pods_containers_until_it_returns():
    """A kubelet that is down sees no API change: a pod deleted meanwhile (as the taint eviction controller
    deletes it, with its grace period) keeps running on the node, still terminating in the API, and is stopped
    (``Killing``, StopContainer, the grace-0 delete) only once the kubelet is back (#32)."""
    h = Harness()
    h.pod("web", [NGINX])
    h.run(10)
    h.kubelet.node_down()
    h.admin.delete("pods", "web", "default", grace_period_seconds=30)
    h.run(120)
    assert not h.calls(("StopContainer", "StopPodSandbox"))
    assert [c.state for c in h.kubelet.runtime.containers.values()] == ["CONTAINER_RUNNING"]
    assert h.get("web")["metadata"]["deletionTimestamp"] and not h.events("Killing")
    h.kubelet.node_up()
    h.run(150)
    stops = h.calls(("StopContainer",))
    assert stops and all(t["time"] >= 120 for t in stops) and stops[0]["request"]["timeout"] == 30
    assert h.events("Killing")[0]["time"] >= 120
    assert h.get("web") is None


def test_a_stopped_kubelet_does_not_relist_restart_or_sync_and_every_loop_resumes():
    """While down: no PLEG relist, no CRI call, no restart of an exited container; at node_up the node status,
    the Lease and the pods' syncs all resume (each loop waiting for the kubelet wakes)."""
    h = Harness()
    h.pod("crash", [{"name": "c", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 30; exit 1"]}])
    h.run(10)
    starts = len(h.starts("c"))
    h.kubelet.node_down()
    h.run(200)
    assert not [t for t in h.kubelet.runtime.trace if 10 < t["time"] <= 200]
    assert len(h.starts("c")) == starts
    node_before = h.admin.get("nodes", "n1")
    h.kubelet.node_up()
    h.run(215)
    assert len(h.starts("c")) == starts + 1  # the first restart is not backed off
    ready = next(c for c in h.admin.get("nodes", "n1")["status"]["conditions"] if c["type"] == "Ready")
    before = next(c for c in node_before["status"]["conditions"] if c["type"] == "Ready")
    assert ready["lastHeartbeatTime"] != before["lastHeartbeatTime"]
    renew = h.admin.get("leases", "n1", "kube-node-lease")["spec"]["renewTime"]
    h.run(240)
    assert h.admin.get("leases", "n1", "kube-node-lease")["spec"]["renewTime"] != renew

# ---------------------------------------------------------------- static pods and mirror pods
# Cases from test/e2e_node/mirror_pod_test.go ("MirrorPod"): the mirror pod runs; "should be updated when
# static pod updated"; "should be recreated when mirror pod gracefully deleted" / "forcibly deleted";
# "wait for the mirror pod to disappear" after the manifest is deleted; "should successfully recreate when
# file is removed and recreated"; and kubelet_pods.go deleteOrphanedMirrorPods.
def _manifest(image: str = "nginx:1.27", name: str = "web", namespace: str = "default") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"spec:\n  containers:\n  - name: web\n    image: {image}\n")


def _static_harness(manifests) -> Harness:
    return Harness(KubeletConfiguration(static_pod_path=manifests))


def _started(h: Harness, uid: str) -> list[dict]:
    sandboxes = {t["response"]["pod_sandbox_id"]: t["request"]["config"]["metadata"]["uid"]
                 for t in h.calls(("RunPodSandbox",)) if t["response"]}
    created = {t["response"]["container_id"]: t["request"]["pod_sandbox_id"]
               for t in h.calls(("CreateContainer",)) if t["response"]}
    return [t for t in h.calls(("StartContainer",)) if sandboxes.get(created.get(t["request"]["container_id"])) == uid]


def test_a_static_pod_runs_and_appears_in_the_api_as_its_mirror_pod():
    manifests = {"web.yaml": _manifest(), ".web.yaml.swp": "garbage", "broken.yaml": "kind: ["}
    h = _static_harness(manifests)
    h.run(30)
    assert h.get("web") is None
    mirror = h.get("web-n1")
    ann = mirror["metadata"]["annotations"]
    static_uid = ann["kubernetes.io/config.hash"]
    assert ann["kubernetes.io/config.mirror"] == static_uid
    assert ann["kubernetes.io/config.source"] == "file" and "kubernetes.io/config.seen" in ann
    assert mirror["metadata"]["uid"] != static_uid  # the API server gives the mirror its own uid
    node = h.admin.get("nodes", "n1")
    assert mirror["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Node", "name": "n1",
                                                      "uid": node["metadata"]["uid"], "controller": True}]
    assert mirror["spec"]["nodeName"] == "n1"
    assert {"operator": "Exists", "effect": "NoExecute"} in mirror["spec"]["tolerations"]
    # the kubelet runs the static pod (under its own uid) and reports its status on the mirror pod
    assert len(_started(h, static_uid)) == 1
    assert mirror["status"]["phase"] == "Running"
    assert mirror["status"]["containerStatuses"][0]["ready"] is True
    assert not _started(h, mirror["metadata"]["uid"])  # the mirror pod itself is never run
    assert len(h.kubelet.manifest_errors) == 1 and h.kubelet.manifest_errors[0].startswith(
        "/etc/kubernetes/manifests/broken.yaml: couldn't parse as pod(")


def test_the_manifest_directory_is_read_every_file_check_frequency():
    manifests: dict = {}
    h = _static_harness(manifests)
    h.run(25)
    manifests["web.yaml"] = _manifest()
    h.run(39.5)
    assert h.get("web-n1") is None and not h.calls(("RunPodSandbox",))  # read at 0 s and 20 s only
    h.run(45)
    assert h.get("web-n1")["status"]["phase"] == "Running"
    assert h.calls(("RunPodSandbox",))[0]["time"] == pytest.approx(40.0, abs=1.0)


def test_a_real_manifest_directory_works_and_a_pod_object_can_stand_for_a_file(tmp_path):
    (tmp_path / "web.yaml").write_text(_manifest())
    h = _static_harness(str(tmp_path))
    h.run(20)
    assert h.get("web-n1")["status"]["phase"] == "Running"
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "agent"},
           "spec": {"containers": [{"name": "agent", "image": "busybox:1.36", "command": ["sleep", "3600"]}]}}
    h2 = _static_harness({"agent.json": obj})
    h2.run(20)
    assert h2.get("agent-n1")["status"]["phase"] == "Running"


@pytest.mark.parametrize("grace", [30, 0])
def test_a_deleted_mirror_pod_is_recreated_and_the_static_pod_keeps_running(grace):
    h = _static_harness({"web.yaml": _manifest()})
    h.run(20)
    old = h.get("web-n1")
    static_uid = old["metadata"]["annotations"]["kubernetes.io/config.hash"]
    h.admin.delete("pods", "web-n1", "default", grace_period_seconds=grace)  # kubectl delete pod web-n1
    h.run(25)
    new = h.get("web-n1")
    assert new is not None and new["metadata"]["uid"] != old["metadata"]["uid"]
    assert "deletionTimestamp" not in new["metadata"]
    assert new["metadata"]["annotations"]["kubernetes.io/config.mirror"] == static_uid
    assert new["status"]["phase"] == "Running"
    assert len(_started(h, static_uid)) == 1 and not h.calls(("StopContainer",))  # never restarted


def test_an_edited_manifest_replaces_the_pod_and_its_mirror():
    manifests = {"web.yaml": _manifest("nginx:1.27")}
    h = _static_harness(manifests)
    h.run(10)
    old = h.get("web-n1")
    manifests["web.yaml"] = _manifest("nginx:1.28")
    h.run(35)
    new = h.get("web-n1")
    assert new["metadata"]["uid"] != old["metadata"]["uid"]
    assert new["spec"]["containers"][0]["image"] == "nginx:1.28"
    new_hash = new["metadata"]["annotations"]["kubernetes.io/config.hash"]
    assert new_hash != old["metadata"]["annotations"]["kubernetes.io/config.hash"]  # a new static pod uid
    assert new["status"]["phase"] == "Running"
    assert h.events("Killing")[0]["message"] == "Stopping container web"  # the old static pod is stopped
    assert len(_started(h, new_hash)) == 1


def test_removing_the_manifest_stops_the_pod_and_deletes_the_mirror():
    manifests = {"web.yaml": _manifest()}
    h = _static_harness(manifests)
    h.run(10)
    del manifests["web.yaml"]
    h.run(30)
    assert h.get("web-n1") is None
    assert [t["method"] for t in h.calls(("StopContainer", "StopPodSandbox"))] == ["StopContainer", "StopPodSandbox"]
    assert h.calls(("StopContainer",))[0]["request"]["timeout"] == 30
    assert h.kubelet.runtime.sandboxes == {}
    h.run(90)
    assert h.get("web-n1") is None  # and it is not created again


def test_a_manifest_removed_and_added_back_runs_again():
    manifests = {"web.yaml": _manifest()}
    h = _static_harness(manifests)
    h.run(10)
    static_uid = h.get("web-n1")["metadata"]["annotations"]["kubernetes.io/config.hash"]
    del manifests["web.yaml"]
    h.run(30)
    assert h.get("web-n1") is None
    manifests["web.yaml"] = _manifest()
    h.run(50)
    mirror = h.get("web-n1")
    assert mirror["metadata"]["annotations"]["kubernetes.io/config.hash"] == static_uid  # same manifest, same uid
    assert mirror["status"]["phase"] == "Running"
    assert len(_started(h, static_uid)) == 2


def test_an_orphaned_mirror_pod_is_deleted_by_housekeeping_and_never_run():
    h = _static_harness({})
    h.run(5)
    h.admin.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "old-n1", "annotations": {"kubernetes.io/config.mirror": "abc", "kubernetes.io/config.source": "file"}},
        "spec": {"nodeName": "n1", "containers": [NGINX]}}, "default")
    h.run(5.5)
    assert h.get("old-n1") is not None
    h.run(8)
    assert h.get("old-n1") is None
    assert not h.calls(("RunPodSandbox",))


def test_kubectl_delete_of_a_mirror_pod_brings_it_back(kubectl_required):
    """The real kubectl: ``kubectl delete pod web-n1`` returns and a new mirror pod (new uid) is Running."""
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.serve import serve

    node = ('apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: "4", memory: 8Gi, '
            'pods: "110"}, allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}\n')
    c = Cluster.from_manifests(node, kubelet="model",
                               kubelet_options=KubeletConfiguration(static_pod_path={"web.yaml": _manifest()}))
    c.run(until=30)
    old_uid = c.get("pods", "web-n1", "default")["metadata"]["uid"]
    s = serve(c, port=0, time_scale=20)
    try:
        # --wait=false: kubectl's wait for deletion looks the pod up by name, so if the kubelet recreates
        # the mirror between kubectl's GET and its LIST, kubectl waits for a Deleted event that never comes
        r = s.kubectl("delete", "pod", "web-n1", "--wait=false", timeout=30)
        assert (r.returncode, r.stdout.strip()) == (0, 'pod "web-n1" deleted'), r.stderr

        def mirror() -> list[str]:
            r = s.kubectl("get", "pod", "web-n1", "-o", "jsonpath={.metadata.uid} {.status.phase} "
                          "{.metadata.ownerReferences[0].kind}", timeout=30)
            return r.stdout.split()

        end = time.monotonic() + 30
        while time.monotonic() < end and (len(mirror()) != 3 or mirror()[0] == old_uid):
            time.sleep(0.05)
        uid, phase, owner = mirror()
        assert uid != old_uid and (phase, owner) == ("Running", "Node")
    finally:
        s.stop()


def test_a_manifest_written_to_one_node_runs_there_only():
    shared: dict = {}
    h = _static_harness(shared)
    h.run(5)
    h.kubelet.write_static_pod_manifest("agent.yaml", _manifest(name="agent"))
    assert shared == {}  # the cluster-wide mapping is left alone
    h.run(25)
    assert h.get("agent-n1")["status"]["phase"] == "Running"
    h.kubelet.remove_static_pod_manifest("agent.yaml")
    h.run(50)
    assert h.get("agent-n1") is None
    plain = Harness()  # no staticPodPath at all: the first manifest starts the file source
    plain.kubelet.write_static_pod_manifest("agent.yaml", _manifest(name="agent"))
    plain.run(10)
    assert plain.get("agent-n1")["status"]["phase"] == "Running"


def test_liveness_kills_back_off_once_an_earlier_instance_has_exited():
    """doBackOff takes the newest *exited* instance: the first kills restart at once, later ones wait
    (kuberuntime_manager.go doBackOff; the back-off reasons and messages as TestSyncPodBackoff)."""
    def results(uid, container, kind, now):
        return ("failure", "HTTP probe failed with statuscode: 500") if kind == LIVENESS else "success"

    h = Harness(KubeletConfiguration(probe_results=results))
    probe = {"httpGet": {"path": "/healthz", "port": 80}, "periodSeconds": 1, "failureThreshold": 1}
    h.pod("web", [dict(NGINX, livenessProbe=probe)], terminationGracePeriodSeconds=1)
    h.run(120)
    starts = h.starts("web")
    stops = [t["time"] for t in h.calls(("StopContainer",))]
    assert len(starts) >= 4
    assert starts[1] - stops[0] < 2  # the first kill: nothing has exited before, no back-off
    assert starts[2] - stops[1] < 2  # the second: the first exit starts the back-off entry (Next)
    assert starts[3] - stops[2] >= 10 - 1  # the third: in back-off since the second exit (10 s)
    back_off = h.events("BackOff")
    assert back_off and back_off[0]["message"].startswith("Back-off restarting failed container web in pod web")


# ---------------------------------------------------------------- node-pressure eviction
MiB = 2**20


def test_memory_pressure_evicts_the_best_effort_pod_and_keeps_the_guaranteed_one():
    """``TestMemoryPressure`` (``pkg/kubelet/eviction/eviction_manager_test.go``) end to end.

    The default ``memory.available<100Mi`` threshold: with the BestEffort pod's working set
    raised so that 50Mi are left, the node reports MemoryPressure, the BestEffort pod (ranked
    first: usage above requests) is evicted with upstream's message and the Guaranteed pod runs on.
    """
    h = Harness()
    h.pod("best-effort", [{"name": "app", "image": "nginx:1.27"}])
    guaranteed = {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "100m", "memory": "128Mi"}}
    h.pod("guaranteed", [{"name": "db", "image": "nginx:1.27", "resources": guaranteed}])
    h.run(60)
    assert h.get("best-effort")["status"]["phase"] == "Running"
    node = h.admin.get("nodes", "n1")
    assert {c["type"]: c["status"] for c in node["status"]["conditions"]}["MemoryPressure"] == "False"
    assert h.kubelet.eviction_manager.timeline  # the manager runs with the kubelet
    rt = h.kubelet.runtime
    db = h.kubelet.running_container_id("default", "guaranteed", "db")
    app = h.kubelet.running_container_id("default", "best-effort", "app")
    rt.set_container_usage(db.split("://", 1)[-1], memory_bytes=100 * MiB)
    rt.set_container_usage(app.split("://", 1)[-1], memory_bytes=8 * 1024 * MiB - 150 * MiB)
    t0 = h.env.now
    h.run(t0 + 60)
    evicted = h.get("best-effort")
    message = ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. "
               "Container app was using 8042Mi, request is 0, has larger consumption of memory. ")
    assert evicted["status"]["phase"] == "Failed"
    assert evicted["status"]["reason"] == "Evicted"
    assert evicted["status"]["message"] == message
    target = [c for c in evicted["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert target and target[0]["reason"] == "TerminationByKubelet" and target[0]["status"] == "True"
    ev = h.events("Evicted")
    assert len(ev) == 1 and ev[0]["pod"] == "best-effort" and ev[0]["type"] == "Warning"
    assert ev[0]["message"] == message
    assert ev[0]["time"] - t0 <= 10.0  # the next monitoring round
    threshold_met = h.events("EvictionThresholdMet")
    assert threshold_met and threshold_met[0]["message"] == "Attempting to reclaim memory"
    # the container was killed with the hard eviction's grace period (1 s, raised to the 2 s minimum)
    stops = [t for t in h.calls(("StopContainer",)) if t["request"]["container_id"] == app.split("://", 1)[-1]]
    assert stops and stops[0]["request"]["timeout"] == 2
    assert any(e["reason"] == "Killing" and e["pod"] == "best-effort" for e in h.kubelet.events)
    node = h.admin.get("nodes", "n1")
    assert {c["type"]: c["status"] for c in node["status"]["conditions"]}["MemoryPressure"] == "True"
    assert h.get("guaranteed")["status"]["phase"] == "Running"
    assert h.kubelet.running_container_id("default", "guaranteed", "db") == db
    assert [r.evicted for r in h.kubelet.eviction_manager.timeline if r.evicted] == ["default/best-effort"]


def test_under_memory_pressure_a_new_best_effort_pod_is_rejected_and_a_burstable_one_admitted():
    """``TestMemoryPressure``'s admission half (``eviction_manager_test.go``: BestEffort rejected,
    Burstable admitted under MemoryPressure) through the kubelet's ``canAdmitPod``/``rejectPod``."""
    h = Harness()
    h.pod("hog", [{"name": "app", "image": "nginx:1.27"}])
    h.run(30)
    app = h.kubelet.running_container_id("default", "hog", "app")
    h.kubelet.runtime.set_container_usage(app.split("://", 1)[-1], memory_bytes=8 * 1024 * MiB - 50 * MiB)
    h.run(45)
    assert h.kubelet.eviction_manager.is_under_memory_pressure()
    assert h.get("hog")["status"]["reason"] == "Evicted"
    sandboxes_before = len(h.calls(("RunPodSandbox",)))
    h.pod("late", [{"name": "app", "image": "nginx:1.27"}])
    burstable = {"requests": {"memory": "64Mi"}}
    h.pod("burstable", [{"name": "app", "image": "nginx:1.27", "resources": burstable}])
    h.run(90)
    late = h.get("late")
    assert late["status"]["phase"] == "Failed"
    assert late["status"]["reason"] == "Evicted"
    assert late["status"]["message"] == "Pod was rejected: The node had condition: [MemoryPressure]. "
    assert [e["message"] for e in h.events("Evicted") if e["pod"] == "late"] == [
        "The node had condition: [MemoryPressure]. "]
    assert h.get("burstable")["status"]["phase"] == "Running"
    # only the burstable pod got a sandbox: the rejected pod never ran
    assert len(h.calls(("RunPodSandbox",))) == sandboxes_before + 1
