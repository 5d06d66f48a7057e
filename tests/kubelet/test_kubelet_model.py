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
  ``pleg/generic_test.go``, seen through the Ready condition).
"""

from __future__ import annotations

import re
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
        # requeued at the back-off's expiry, stretched by the pod worker's jitter (<= 50 %), on a 1 s tick
        assert want <= got <= 1.5 * want + 1.5
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
