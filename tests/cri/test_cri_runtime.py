"""Tests for kubenotes.cri.runtime (the CRI RuntimeService and its state machines).

Where the cases come from:

* kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_sandbox_test.go
  (TestCreatePodSandbox: a sandbox is READY with the pod's metadata;
  TestGeneratePodSandboxConfig's metadata/log directory) and
  kuberuntime_container_test.go (TestRemoveContainer: removal after stop;
  TestKillContainer / TestLifeCycleHook: stop with a grace period);
* cri-api fake_runtime_service.go: ListContainers / ListPodSandbox filters
  (id, state, pod_sandbox_id, label_selector);
* kubernetes-sigs/cri-tools pkg/validate/container.go and pod.go (critest):
  "runtime should support starting/stopping/removing container", "should
  support execSync", "should support listing container by state / label",
  "RemovePodSandbox must be idempotent", timestamps set once per transition;
* containerd internal/cri/server container_start.go / container_remove.go
  message texts (state errors), container_status.go reasons
  (Completed / Error / OOMKilled).
"""

from __future__ import annotations

import pytest
import simpy

from kubenotes.cri import CRIError, ContainerRuntime
from kubenotes.cri.api import (
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    SANDBOX_NOTREADY,
    SANDBOX_READY,
)
from kubenotes.cri.images import PAUSE_IMAGE
from kubenotes.cri.runtime import DEFAULT_LATENCIES

LAT = DEFAULT_LATENCIES["containerd"]


def sandbox_config(name="web", uid="u1", labels=None, **ns):
    cfg = {"metadata": {"name": name, "namespace": "default", "uid": uid, "attempt": 0},
           "log_directory": f"/var/log/pods/default_{name}_{uid}", "hostname": name,
           "labels": labels or {"app": name}}
    if ns:
        cfg["linux"] = {"security_context": {"namespace_options": ns}}
    return cfg


def container_config(name="app", image="nginx:1.27", **kw):
    cfg = {"metadata": {"name": name, "attempt": 0}, "image": {"image": image},
           "labels": {"io.kubernetes.container.name": name}, "log_path": f"{name}/0.log"}
    cfg.update(kw)
    return cfg


def run(env, gen):
    """Run one generator as a SimPy process to completion and return its value (or raise)."""
    proc = env.process(gen)
    env.run(until=proc)
    return proc.value


@pytest.fixture
def env():
    return simpy.Environment()


@pytest.fixture
def rt(env):
    runtime = ContainerRuntime(env, "node-1")
    runtime.images.add("nginx:1.27")
    runtime.images.add("busybox:1.36")
    return runtime


def start_pod(rt, *containers, name="web", uid="u1", labels=None):
    """RunPodSandbox, then create and start each (name, config-kwargs) container; returns (sandbox_id, ids)."""
    def gen():
        sb = (yield from rt.RunPodSandbox({"config": sandbox_config(name, uid, labels)}))["pod_sandbox_id"]
        ids = []
        for cname, kw in containers:
            cid = (yield from rt.CreateContainer({"pod_sandbox_id": sb, "config": container_config(cname, **kw),
                                                   "sandbox_config": sandbox_config(name, uid, labels)}))["container_id"]
            yield from rt.StartContainer({"container_id": cid})
            ids.append(cid)
        return sb, ids
    return run(rt.env, gen())


def status(rt, cid):
    return run(rt.env, rt.ContainerStatus({"container_id": cid}))["status"]


# --- sandboxes ----------------------------------------------------------------------------------


def test_run_pod_sandbox_ready_with_metadata_and_pause_pulled_once(env, rt):
    assert rt.images.lookup(PAUSE_IMAGE) is None
    sb, _ = start_pod(rt)
    st = run(env, rt.PodSandboxStatus({"pod_sandbox_id": sb}))["status"]
    assert st["state"] == SANDBOX_READY
    assert st["metadata"] == {"name": "web", "namespace": "default", "uid": "u1", "attempt": 0}
    pause = rt.images.lookup(PAUSE_IMAGE)
    assert pause is not None and pause.id in rt.images.pinned
    # created_at is the end of the call, in ns: pull of pause + sandbox start latency
    pull = rt.trace[0]["duration_seconds"]
    assert st["created_at"] == int(round(pull * 1e9))
    t = env.now
    start_pod(rt, name="other", uid="u2")
    assert env.now - t == pytest.approx(LAT["run_pod_sandbox"])  # pause already present


def test_sandbox_name_reserved_while_sandbox_exists(env, rt):
    start_pod(rt)
    with pytest.raises(CRIError) as e:
        start_pod(rt)
    assert e.value.code == "Unknown"
    assert e.value.message.startswith('failed to reserve sandbox name "k8s_POD_web_default_u1_0": name '
                                      '"k8s_POD_web_default_u1_0" is reserved for "')


def test_stop_pod_sandbox_kills_containers_and_is_notready(env, rt):
    sb, (cid,) = start_pod(rt, ("app", {}))
    run(env, rt.StopPodSandbox({"pod_sandbox_id": sb}))
    st = run(env, rt.PodSandboxStatus({"pod_sandbox_id": sb}))["status"]
    assert st["state"] == SANDBOX_NOTREADY
    cs = status(rt, cid)
    assert (cs["state"], cs["exit_code"], cs["reason"]) == (CONTAINER_EXITED, 137, "Error")
    # a container of a stopped sandbox cannot start
    def create_and_start():
        c2 = (yield from rt.CreateContainer({"pod_sandbox_id": sb, "config": container_config("late")}))["container_id"]
        yield from rt.StartContainer({"container_id": c2})
    with pytest.raises(CRIError) as e:
        run(env, create_and_start())
    assert e.value.message == f'sandbox container "{sb}" is not running'


def test_remove_pod_sandbox_removes_containers_and_is_idempotent(env, rt):
    sb, (cid,) = start_pod(rt, ("app", {}))
    run(env, rt.RemovePodSandbox({"pod_sandbox_id": sb}))
    assert sb not in rt.sandboxes and cid not in rt.containers
    run(env, rt.RemovePodSandbox({"pod_sandbox_id": sb}))  # idempotent
    assert rt.trace[-1]["error"] is None
    with pytest.raises(CRIError) as e:
        run(env, rt.PodSandboxStatus({"pod_sandbox_id": sb}))
    assert e.value.code == "NotFound"
    assert e.value.message == f'an error occurred when try to find sandbox "{sb}": not found'
    start_pod(rt)  # the name is free again


def test_list_pod_sandbox_filters(env, rt):
    a, _ = start_pod(rt, name="a", uid="ua", labels={"tier": "web"})
    b, _ = start_pod(rt, name="b", uid="ub", labels={"tier": "db"})
    run(env, rt.StopPodSandbox({"pod_sandbox_id": b}))

    def ids(flt):
        return [i["id"] for i in run(env, rt.ListPodSandbox({"filter": flt}))["items"]]
    assert ids({}) == [a, b]
    assert ids({"state": {"state": SANDBOX_READY}}) == [a]
    assert ids({"label_selector": {"tier": "db"}}) == [b]
    assert ids({"id": a[:12]}) == [a]


def test_network_setup_hook_takes_time_and_gives_ip(env):
    calls = []

    def cni(sandbox):
        calls.append(sandbox.netns)
        yield env.timeout(0.5)
        return "10.244.1.7"
    rt = ContainerRuntime(env, "n", network_setup=cni)
    rt.images.add(PAUSE_IMAGE)
    sb, _ = start_pod(rt)
    assert env.now == pytest.approx(0.5 + LAT["run_pod_sandbox"])
    st = run(env, rt.PodSandboxStatus({"pod_sandbox_id": sb}))["status"]
    assert st["network"]["ip"] == "10.244.1.7"
    assert calls == [rt.sandboxes[sb].netns] and calls[0].startswith("/var/run/netns/cni-")


def test_network_setup_failure_releases_the_name(env):
    fail = [True]

    def cni(sandbox):
        if fail[0]:
            raise RuntimeError("plugin type=\"bridge\" failed (add): no IP addresses available")
        return "10.0.0.2"
    rt = ContainerRuntime(env, "n", network_setup=cni)
    rt.images.add(PAUSE_IMAGE)
    with pytest.raises(CRIError) as e:
        start_pod(rt)
    assert e.value.code == "Unknown" and e.value.message.startswith('failed to setup network for sandbox "')
    assert not rt.sandboxes
    fail[0] = False
    sb, _ = start_pod(rt)
    assert rt.sandboxes[sb].ip == "10.0.0.2"


def test_host_network_sandbox_skips_network_setup(env):
    called = []
    rt = ContainerRuntime(env, "n", network_setup=lambda s: called.append(s) or "1.2.3.4")
    rt.images.add(PAUSE_IMAGE)
    sb = run(env, rt.RunPodSandbox({"config": sandbox_config(network="NODE")}))["pod_sandbox_id"]
    assert called == [] and rt.sandboxes[sb].netns == "" and rt.sandboxes[sb].ip == ""


# --- containers ---------------------------------------------------------------------------------


def test_container_lifecycle_created_running_exited_with_timestamps(env, rt):
    sb = run(env, rt.RunPodSandbox({"config": sandbox_config()}))["pod_sandbox_id"]
    cid = run(env, rt.CreateContainer({"pod_sandbox_id": sb, "config": container_config()}))["container_id"]
    st = status(rt, cid)
    assert st["state"] == CONTAINER_CREATED and st["started_at"] == 0 and st["finished_at"] == 0
    created = st["created_at"]
    run(env, rt.StartContainer({"container_id": cid}))
    st = status(rt, cid)
    assert st["state"] == CONTAINER_RUNNING and st["started_at"] > created and st["created_at"] == created
    t_exit = env.now
    rt.exit_container(cid, 0)
    st = status(rt, cid)
    assert st["state"] == CONTAINER_EXITED
    assert (st["exit_code"], st["reason"]) == (0, "Completed")
    assert st["finished_at"] == int(round(t_exit * 1e9))
    assert st["log_path"] == "/var/log/pods/default_web_u1/app/0.log"
    assert st["image"]["image"] == "docker.io/library/nginx:1.27"
    assert st["image_ref"].startswith("docker.io/library/nginx@sha256:")


def test_start_twice_fails_with_state_message(env, rt):
    _, (cid,) = start_pod(rt, ("app", {}))
    with pytest.raises(CRIError) as e:
        run(env, rt.StartContainer({"container_id": cid}))
    assert e.value.code == "Unknown"
    assert e.value.message == (f'failed to set starting state for container "{cid}": '
                               "container is in CONTAINER_RUNNING state")
    assert rt.trace[-1]["error"] == str(e.value)


def test_remove_running_container_refused_then_allowed_after_stop(env, rt):
    _, (cid,) = start_pod(rt, ("app", {}))
    with pytest.raises(CRIError) as e:
        run(env, rt.RemoveContainer({"container_id": cid}))
    assert e.value.message == (f'failed to set removing state for container "{cid}": '
                               "container is still running, to stop first")
    run(env, rt.StopContainer({"container_id": cid, "timeout": 30}))
    run(env, rt.RemoveContainer({"container_id": cid}))
    assert cid not in rt.containers
    run(env, rt.RemoveContainer({"container_id": cid}))  # idempotent
    with pytest.raises(CRIError) as e:
        status(rt, cid)
    assert str(e.value) == (f'rpc error: code = NotFound desc = an error occurred when try to find '
                            f'container "{cid}": not found')


def test_stop_graceful_process_exits_on_its_stop_signal(env, rt):
    _, (cid,) = start_pod(rt, ("app", {}))  # nginx: exits 0.1 s after SIGQUIT
    t0 = env.now
    run(env, rt.StopContainer({"container_id": cid, "timeout": 30}))
    st = status(rt, cid)
    assert (st["exit_code"], st["reason"]) == (0, "Completed")
    assert [s for s, _ in rt.containers[cid].signals] == ["SIGQUIT"]
    assert st["finished_at"] == int(round((t0 + LAT["stop_container"] + 0.1) * 1e9))


def test_stop_process_ignoring_sigterm_is_killed_after_timeout(env, rt):
    _, (cid,) = start_pod(rt, ("sleeper", {"image": "busybox:1.36", "command": ["sleep", "3600"]}))
    t0 = env.now
    run(env, rt.StopContainer({"container_id": cid, "timeout": 30}))
    assert env.now - t0 == pytest.approx(LAT["stop_container"] + 30)
    st = status(rt, cid)
    assert (st["exit_code"], st["reason"]) == (137, "Error")
    assert [s for s, _ in rt.containers[cid].signals] == ["SIGTERM", "SIGKILL"]


def test_stop_with_zero_timeout_kills_at_once(env, rt):
    _, (cid,) = start_pod(rt, ("app", {}))
    run(env, rt.StopContainer({"container_id": cid, "timeout": 0}))
    assert [s for s, _ in rt.containers[cid].signals] == ["SIGKILL"]
    assert status(rt, cid)["exit_code"] == 137
    run(env, rt.StopContainer({"container_id": cid, "timeout": 10}))  # already exited: no-op
    assert [s for s, _ in rt.containers[cid].signals] == ["SIGKILL"]


def test_process_exits_before_grace_period_ends(env, rt):
    _, (cid,) = start_pod(rt, ("job", {"image": "busybox:1.36", "command": ["sh", "-c", "sleep 5; exit 3"]}))
    t0 = env.now
    run(env, rt.StopContainer({"container_id": cid, "timeout": 30}))  # busybox ignores SIGTERM
    assert env.now - t0 == pytest.approx(5)  # the script's own end, long before the 30 s grace period
    st = status(rt, cid)
    assert (st["exit_code"], st["reason"]) == (3, "Error")
    assert [s for s, _ in rt.containers[cid].signals] == ["SIGTERM"]


def test_default_process_model_ends_short_lived_commands(env, rt):
    _, ids = start_pod(rt, ("init", {"image": "busybox:1.36", "command": ["sh", "-c", "echo hi; sleep 2"]}),
                       ("shell", {"image": "busybox:1.36"}))
    started = rt.containers[ids[0]].started_at
    assert status(rt, ids[1])["state"] == CONTAINER_EXITED  # bare `sh` has no stdin and exits
    env.run(until=env.now + 3)
    st = status(rt, ids[0])
    assert (st["state"], st["exit_code"], st["reason"]) == (CONTAINER_EXITED, 0, "Completed")
    assert st["finished_at"] - started == 2_000_000_000


def test_oom_kill_when_usage_exceeds_limit(env, rt):
    cfg = {"linux": {"resources": {"memory_limit_in_bytes": 128 << 20, "oom_score_adj": 900}}}
    _, (cid,) = start_pod(rt, ("app", cfg))
    rt.set_container_usage(cid, memory_bytes=100 << 20)
    assert status(rt, cid)["state"] == CONTAINER_RUNNING
    rt.set_container_usage(cid, memory_bytes=129 << 20)
    st = status(rt, cid)
    assert (st["state"], st["exit_code"], st["reason"]) == (CONTAINER_EXITED, 137, "OOMKilled")
    _, (c2,) = start_pod(rt, ("app", {}), name="b", uid="ub")
    rt.exit_container(c2, 137, reason="OOMKilled")
    assert status(rt, c2)["reason"] == "OOMKilled"


def test_create_container_errors(env, rt):
    sb, _ = start_pod(rt)
    with pytest.raises(CRIError) as e:
        run(env, rt.CreateContainer({"pod_sandbox_id": "nope", "config": container_config()}))
    assert (e.value.code, e.value.message) == ("NotFound", 'failed to find sandbox id "nope": not found')
    with pytest.raises(CRIError) as e:
        run(env, rt.CreateContainer({"pod_sandbox_id": sb, "config": container_config(image="redis:7.4")}))
    assert e.value.code == "NotFound" and e.value.message == 'failed to resolve image "redis:7.4": not found'
    run(env, rt.CreateContainer({"pod_sandbox_id": sb, "config": container_config()}))
    with pytest.raises(CRIError) as e:
        run(env, rt.CreateContainer({"pod_sandbox_id": sb, "config": container_config()}))
    assert e.value.message.startswith('failed to reserve container name "k8s_app_web_default_u1_0"')


def test_list_containers_filters(env, rt):
    sa, (a1, a2) = start_pod(rt, ("app", {}), ("side", {}), name="a", uid="ua")
    sb, (b1,) = start_pod(rt, ("app", {}), name="b", uid="ub")
    rt.exit_container(a2, 1)

    def ids(flt):
        return [c["id"] for c in run(env, rt.ListContainers({"filter": flt}))["containers"]]
    assert ids({}) == [a1, a2, b1]
    assert ids({"pod_sandbox_id": sa}) == [a1, a2]
    assert ids({"state": {"state": CONTAINER_EXITED}}) == [a2]
    assert ids({"label_selector": {"io.kubernetes.container.name": "app"}}) == [a1, b1]
    assert ids({"id": b1[:10], "pod_sandbox_id": sb}) == [b1]


def test_exec_sync_scripted_results(env, rt):
    _, (cid,) = start_pod(rt, ("app", {}))
    resp = run(env, rt.ExecSync({"container_id": cid, "cmd": ["cat", "/tmp/healthy"], "timeout": 1}))
    assert resp == {"stdout": b"", "stderr": b"", "exit_code": 0}
    rt.set_exec_result(cid, ["cat", "/tmp/healthy"], exit_code=1, stderr="cat: can't open '/tmp/healthy'")
    resp = run(env, rt.ExecSync({"container_id": cid, "cmd": ["cat", "/tmp/healthy"], "timeout": 1}))
    assert resp["exit_code"] == 1 and resp["stderr"] == b"cat: can't open '/tmp/healthy'"
    rt.set_exec_result(cid, None, duration_seconds=5)
    t0 = env.now
    with pytest.raises(CRIError) as e:
        run(env, rt.ExecSync({"container_id": cid, "cmd": ["slow"], "timeout": 1}))
    assert e.value.code == "DeadlineExceeded"
    assert env.now - t0 == pytest.approx(1 + LAT["exec_sync"])
    rt.exit_container(cid, 0)
    with pytest.raises(CRIError) as e:
        run(env, rt.ExecSync({"container_id": cid, "cmd": ["ls"]}))
    assert e.value.message == f'container "{cid}" is in CONTAINER_EXITED state'


def test_container_stats_integrates_cpu(env, rt):
    _, (cid,) = start_pod(rt, ("app", {}))
    rt.set_container_usage(cid, memory_bytes=50 << 20, milli_cpu=500, disk_bytes=10 << 20, disk_inodes=7)
    env.run(until=env.now + 10)
    stats = run(env, rt.ContainerStats({"container_id": cid}))["stats"]
    assert stats["memory"]["working_set_bytes"]["value"] == 50 << 20
    assert stats["cpu"]["usage_nano_cores"]["value"] == 500_000_000
    assert stats["cpu"]["usage_core_nano_seconds"]["value"] == pytest.approx(0.5 * (10 + LAT["container_stats"]) * 1e9, rel=1e-6)
    assert stats["writable_layer"]["used_bytes"]["value"] == 10 << 20
    assert stats["attributes"]["id"] == cid
    fs = run(env, rt.ImageFsInfo({}))["image_filesystems"][0]
    assert fs["used_bytes"]["value"] == rt.images.used_bytes() and rt.images.writable_bytes == 10 << 20


def test_update_container_resources_rewrites_spec(env, rt):
    cfg = {"linux": {"resources": {"cpu_shares": 256, "cpu_quota": 50000, "cpu_period": 100000}}}
    _, (cid,) = start_pod(rt, ("app", cfg))
    run(env, rt.UpdateContainerResources({"container_id": cid, "linux": {"cpu_quota": 100000,
                                                                          "memory_limit_in_bytes": 256 << 20}}))
    spec = run(env, rt.ContainerStatus({"container_id": cid, "verbose": True}))["info"]["runtimeSpec"]
    assert spec["linux"]["resources"]["cpu"] == {"shares": 256, "quota": 100000, "period": 100000}
    assert spec["linux"]["resources"]["memory"]["limit"] == 256 << 20
    assert status(rt, cid)["resources"]["linux"]["memory_limit_in_bytes"] == 256 << 20


# --- runtimes, latencies, trace ----------------------------------------------------------------


def test_version_names_the_runtime(env):
    for kind, name in (("containerd", "containerd"), ("cri-o", "cri-o")):
        rt = ContainerRuntime(env, "n", kind=kind)
        v = run(env, rt.Version({}))
        assert v["runtime_name"] == name and v["runtime_api_version"] == "v1"


def test_crio_drops_infra_container_unless_pid_shared(env):
    rt = ContainerRuntime(env, "n", kind="cri-o")
    sb = run(env, rt.RunPodSandbox({"config": sandbox_config()}))["pod_sandbox_id"]
    assert rt.sandboxes[sb].pid is None and rt.images.lookup(PAUSE_IMAGE) is None
    sb2 = run(env, rt.RunPodSandbox({"config": sandbox_config("shared", "u2", pid="POD")}))["pod_sandbox_id"]
    assert rt.sandboxes[sb2].pid is not None and rt.images.lookup(PAUSE_IMAGE) is not None
    rt.images.add("nginx:1.27")
    cid = run(env, rt.CreateContainer({"pod_sandbox_id": sb, "config": container_config()}))["container_id"]
    assert rt.containers[cid].conmon_pid is not None
    assert rt.containers[cid].spec["linux"]["cgroupsPath"].endswith(cid)


def test_start_latency_depends_on_runtime_and_low_level(env):
    def pod_start_seconds(kind, low_level):
        e = simpy.Environment()
        rt = ContainerRuntime(e, "n", kind=kind, low_level=low_level)
        rt.images.add(PAUSE_IMAGE)
        rt.images.add("nginx:1.27")
        start_pod(rt, ("app", {}))
        return e.now
    containerd_runc = pod_start_seconds("containerd", "runc")
    lat = DEFAULT_LATENCIES["containerd"]
    assert containerd_runc == pytest.approx(lat["run_pod_sandbox"] + lat["create_container"] + lat["start_container"])
    assert pod_start_seconds("containerd", "crun") < containerd_runc
    assert pod_start_seconds("cri-o", "runc") != containerd_runc


def test_trace_records_every_call(env, rt):
    sb, (cid,) = start_pod(rt, ("app", {}))
    with pytest.raises(CRIError):
        run(env, rt.StartContainer({"container_id": cid}))
    methods = [e["method"] for e in rt.trace]
    # the pause image pull happens inside RunPodSandbox (the runtime pulls it, not the kubelet)
    assert methods == ["RunPodSandbox", "CreateContainer", "StartContainer", "StartContainer"]
    first = rt.trace[0]
    assert set(first) == {"time", "service", "method", "request", "response", "error", "duration_seconds", "node"}
    assert first["service"] == "RuntimeService" and first["node"] == "node-1"
    assert first["response"] == {"pod_sandbox_id": sb} and first["error"] is None
    assert rt.trace[2]["duration_seconds"] == pytest.approx(LAT["start_container"])
    assert rt.trace[-1]["error"].startswith("rpc error: code = Unknown desc = failed to set starting state")
    assert rt.trace[-1]["response"] is None
    # the request is a copy: mutating the caller's dict does not change the record
    req = {"container_id": cid}
    run(env, rt.ContainerStatus(req))
    req["container_id"] = "x"
    assert rt.trace[-1]["request"] == {"container_id": cid}
    assert any(e["event"] == "ImagePulled" and e["component"] == "cri/node-1" for e in rt.events)


def test_pod_start_calls_sequence_with_init_container_and_pulls():
    from kubenotes.kubelet.kuberuntime import pod_start_calls

    pod = {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
           "spec": {"initContainers": [{"name": "init", "image": "busybox:1.36",
                                        "command": ["sh", "-c", "sleep 2"]}],
                    "containers": [{"name": "app", "image": "nginx:1.27"}]}}
    out = pod_start_calls(pod, preloaded_images=(PAUSE_IMAGE,), network_setup_seconds=0.3)
    calls = [(e["method"], (e["request"].get("config") or {}).get("metadata", {}).get("name")) for e in out["trace"]]
    assert [m for m, _ in calls] == ["RunPodSandbox", "PodSandboxStatus",
                                     "ImageStatus", "PullImage", "CreateContainer", "StartContainer",
                                     "ImageStatus", "PullImage", "CreateContainer", "StartContainer"]
    assert calls[4][1] == "init" and calls[8][1] == "app"
    rt = out["runtime"]
    init_start = next(e for e in out["trace"] if e["method"] == "StartContainer")
    app_create = [e for e in out["trace"] if e["method"] == "CreateContainer"][1]
    # the app is created only after the init container's 2 s and nginx's pull
    app_pull = [e for e in out["trace"] if e["method"] == "PullImage"][1]
    assert app_pull["time"] == pytest.approx(init_start["time"] + init_start["duration_seconds"] + 2
                                             + LAT["image_status"])
    assert app_create["time"] == pytest.approx(app_pull["time"] + app_pull["duration_seconds"])
    assert out["started_seconds"] == pytest.approx(app_create["time"] + LAT["create_container"] + LAT["start_container"])
    assert app_pull["duration_seconds"] == pytest.approx(
        rt.images.resolve_seconds
        + rt.images.catalogue.get("nginx:1.27").size_bytes / rt.images.bandwidth_bytes_per_second
        + rt.images.per_layer_overhead_seconds * len(rt.images.catalogue.get("nginx:1.27").layers))
    faster = pod_start_calls(pod, preloaded_images=(PAUSE_IMAGE,), network_setup_seconds=0.3,
                             bandwidth_bytes_per_second=500 * 2**20)
    assert faster["started_seconds"] < out["started_seconds"]
