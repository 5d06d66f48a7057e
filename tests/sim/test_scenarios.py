"""The chapters' scenario files in ``data/``: each runs unchanged from the command line and shows what its chapter
teaches; :mod:`kubenotes.sim.scenarios` runs the same files with a widget's parameters applied.

The outcomes are the ones the chapters' check-yourself cells assert (03.00, 05.00, 05.01, 05.02, 06.01), read here from
``python -m kubenotes simulate FILE`` output instead of from a notebook. Chapter 05.02's runs
(:func:`kubenotes.sim.scenarios.simulate_memory_pressure`, :func:`~kubenotes.sim.scenarios.simulate_disk_pressure`)
are its ``data/qos/`` files run as ``simulate`` runs them: both show the same evictions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kubenotes.cli import main
from kubenotes.sim import scenarios as sc

DATA = Path(__file__).resolve().parents[2] / "data"


def _events(capsys, name: str, until: float) -> list[dict]:
    assert main(["simulate", str(DATA / name), "--until", str(until)]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _objects(capsys, name: str, until: float) -> list[dict]:
    assert main(["simulate", str(DATA / name), "--until", str(until), "-o", "yaml"]) == 0
    return yaml.safe_load(capsys.readouterr().out)["items"]


def _event_reasons(events: list[dict], reason: str) -> list[dict]:
    return [e for e in events if e["kind"] == "Event" and e["detail"].startswith(reason + ":")]


def _model_log(run) -> list[dict]:
    return [e.to_dict() for e in run.cluster.audit_log]


# ----------------------------------------------------------------------------- data/controllers (chapter 03.00)
def test_scale_file_adds_two_pods_and_the_model_run_is_the_files_run(capsys):
    events = _events(capsys, "controllers/scale.yaml", 40)
    created = [e for e in _event_reasons(events, "SuccessfulCreate") if e["time"] >= 20]
    assert len(created) == 2
    assert events == _model_log(sc.simulate_scale(6, 4))   # the notebook's run is the file's, write for write
    pods = [o for o in _objects(capsys, "controllers/scale.yaml", 40) if o["kind"] == "Pod"]
    assert len(pods) == 6 and {p["status"]["phase"] for p in pods} == {"Running"}


def test_rollout_file_stays_within_max_surge_and_max_unavailable(capsys):
    events = _events(capsys, "controllers/rollout.yaml", 120)
    assert events == _model_log(sc.simulate_rollout(1, 1, 4))
    live, peak = set(), 0
    for e in events:
        if e["kind"] == "Pod" and e["verb"] == "create":
            live.add(e["name"])
        elif e["kind"] == "Pod" and e["verb"] == "delete":
            live.discard(e["name"])  # terminating pods leave the count, as in rollout_timeline
        peak = max(peak, len(live))
    assert peak == 5                                        # replicas + maxSurge, reached
    objects = _objects(capsys, "controllers/rollout.yaml", 120)
    rs = {o["spec"]["template"]["spec"]["containers"][0]["image"]: o for o in objects if o["kind"] == "ReplicaSet"}
    assert rs["docker.io/library/nginx:1.28.0"]["status"]["availableReplicas"] == 4
    assert rs["docker.io/library/nginx:1.27.3"]["spec"]["replicas"] == 0


def test_rolling_update_file_prints_kubectls_lines_and_replaces_the_rc(capsys):
    events = _events(capsys, "controllers/rolling-update.yaml", 170)
    lines = [e["detail"] for e in events if e["component"] == "scenario" and e["verb"] == "rollingUpdate"]
    assert lines[0] == "Created web-v2" and lines[-1] == 'replicationcontroller/web-v1 rolling updated to "web-v2"'
    assert tuple(lines) == sc.simulate_rc_rolling_update(4, 10).lines
    rcs = {o["metadata"]["name"]: o for o in _objects(capsys, "controllers/rolling-update.yaml", 170)
           if o["kind"] == "ReplicationController"}
    assert list(rcs) == ["web-v2"] and rcs["web-v2"]["status"]["readyReplicas"] == 4


def test_node_failure_file_taints_after_the_grace_period_and_evicts_after_the_toleration(capsys):
    events = _events(capsys, "controllers/node-failure.yaml", 410)
    evicted = [e["time"] for e in events if e["kind"] == "Pod" and e["verb"] == "delete"
               and e["component"] == "taint-eviction-controller"]
    assert evicted and min(evicted) == pytest.approx(20 + 50 + 300, abs=6)
    objects = _objects(capsys, "controllers/node-failure.yaml", 410)
    pods = [o for o in objects if o["kind"] == "Pod" and not o["metadata"].get("deletionTimestamp")]
    assert len(pods) == 6 and "worker-1" not in {p["spec"]["nodeName"] for p in pods}
    node = next(o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == "worker-1")
    assert ("node.kubernetes.io/unreachable", "NoExecute") in {(t["key"], t["effect"]) for t in node["spec"]["taints"]}


def test_cascade_file_deletes_the_owner_first_then_its_dependents(capsys):
    events = _events(capsys, "controllers/cascade.yaml", 40)
    assert events == _model_log(sc.simulate_cascade("Background"))
    first = {}
    for e in events:
        if e["verb"] == "delete" and e["kind"] in ("Deployment", "ReplicaSet", "Pod"):
            first.setdefault(e["kind"], int(e["resourceVersion"]))
    assert first["Deployment"] < first["ReplicaSet"] < first["Pod"]
    left = [o for o in _objects(capsys, "controllers/cascade.yaml", 40)
            if o["kind"] in ("Deployment", "ReplicaSet", "Pod")]
    assert left == []


def test_quota_file_lets_three_pods_in(capsys):
    events = _events(capsys, "controllers/quota.yaml", 35)
    failed = {e["detail"].split('" is forbidden: ', 1)[1] for e in _event_reasons(events, "FailedCreate")}
    assert failed == {"exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3"}
    pods = [o for o in _objects(capsys, "controllers/quota.yaml", 35) if o["kind"] == "Pod"]
    assert len(pods) == 3 and {p["metadata"]["namespace"] for p in pods} == {sc.QUOTA_NAMESPACE}


def test_job_file_backs_off_until_the_limit(capsys):
    job = next(o for o in _objects(capsys, "controllers/job.yaml", 200) if o["kind"] == "Job")
    assert job["status"]["failed"] == 4
    assert any(c["type"] == "Failed" and c["reason"] == "BackoffLimitExceeded" for c in job["status"]["conditions"])


# ----------------------------------------------------------------------------- data/kubelet (chapter 05.00)
def test_pod_start_file_runs_the_init_container_then_turns_ready(capsys):
    events = _events(capsys, "kubelet/pod-start.yaml", 40)
    cri = [e["verb"] for e in events if e["component"] == "cri/worker-1"]
    assert cri.index("SandboxStarted") < cri.index("ContainerCreated")   # the pause sandbox before any container
    pod = next(o for o in _objects(capsys, "kubelet/pod-start.yaml", 40) if o["kind"] == "Pod")
    assert pod["status"]["phase"] == "Running"
    assert {c["type"]: c["status"] for c in pod["status"]["conditions"]}["Ready"] == "True"
    assert pod["status"]["initContainerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"


def test_restarts_file_kills_after_failure_threshold_failures(capsys):
    events = _events(capsys, "kubelet/restarts.yaml", 200)
    killing = _event_reasons(events, "Killing")
    assert killing[0]["detail"] == "Killing: Container app failed liveness probe, will be restarted"
    unhealthy = _event_reasons(events, "Unhealthy")
    assert unhealthy[0]["detail"] == "Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 500"
    assert 20 <= unhealthy[0]["time"] < 25                   # the first probe after the endpoint breaks at t=20
    assert killing[0]["time"] - unhealthy[0]["time"] == pytest.approx(10, abs=0.01)  # 3 failures, 5 s apart
    pod = next(o for o in _objects(capsys, "kubelet/restarts.yaml", 200) if o["kind"] == "Pod")
    assert pod["status"]["containerStatuses"][0]["restartCount"] == 2


def test_static_pod_file_keeps_the_mirror_pod_and_follows_the_edit(capsys):
    events = _events(capsys, "kubelet/static-pod.yaml", 60)
    writes = [(e["component"], e["verb"], round(e["time"])) for e in events
              if e["kind"] == "Pod" and e["name"] == "etcd-worker-1" and e["verb"] != "update"]
    assert writes == [("kubelet/worker-1", "create", 0), ("kubectl", "delete", 10), ("kubelet/worker-1", "delete", 10),
                      ("kubelet/worker-1", "create", 10), ("kubelet/worker-1", "delete", 40),
                      ("kubelet/worker-1", "create", 40)]
    mirror = next(o for o in _objects(capsys, "kubelet/static-pod.yaml", 60) if o["kind"] == "Pod")
    assert mirror["spec"]["containers"][0]["image"] == "registry.k8s.io/etcd:3.6.5-0"


# ----------------------------------------------------------------------------- data/network (chapter 06.01)
def test_readiness_drain_file_marks_the_endpoint_not_ready(capsys):
    assert main(["simulate", str(DATA / "network/readiness-drain.yaml"), "--until", "90", "-o", "yaml"]) == 0
    capsys.readouterr()
    run = sc.simulate_readiness_drain()
    assert (run.failed_pod, run.failed_ip) == ("web-67db7b98b8-xmgkl", "10.244.1.2")  # the pod the file names
    eps = {e["addresses"][0]: e["conditions"]["ready"] for s in run.slices("after") for e in s["endpoints"]}
    assert eps == {"10.244.1.2": False, **{ip: True for ip in eps if ip != "10.244.1.2"}} and len(eps) == 3
    assert run.cluster.get("pods", run.failed_pod, "default")["status"]["phase"] == "Running"
    pods = [o for o in _objects(capsys, "network/readiness-drain.yaml", 90) if o["kind"] == "Pod"]
    ready = {p["metadata"]["name"]: {c["type"]: c["status"] for c in p["status"]["conditions"]}["Ready"] for p in pods}
    assert ready.pop("web-67db7b98b8-xmgkl") == "False" and set(ready.values()) == {"True"}


# ----------------------------------------------------------------------------- data/kubelet (chapter 05.01)
def test_cri_pod_start_file_prints_the_chapters_cri_calls(capsys):
    assert main(["simulate", str(DATA / "kubelet/cri-pod-start.yaml"), "--until", "45", "-o", "cri"]) == 0
    calls = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {c["node"] for c in calls} == {"worker-1"} and [c["time"] for c in calls] == sorted(c["time"] for c in calls)
    run = sc.simulate_cri_pod_start()
    # the chapter's pod-start calls are these lines, as printed (same method, time, request and response)
    printed = [(c["time"], c["method"], c["request"], c["response"]) for c in calls]
    for name in ("web", "web-2"):
        for e in run.pod_calls(name):
            assert (e["time"], e["method"], json.loads(json.dumps(e["request"], default=str)),
                    json.loads(json.dumps(e["response"], default=str))) in printed
    sandboxes = [c for c in calls if c["method"] == "RunPodSandbox"]
    assert [c["request"]["config"]["metadata"]["name"] for c in sandboxes] == ["web", "web-2"]
    pulls = [c["request"]["image"]["image"] for c in calls if c["method"] == "PullImage"]
    assert pulls == ["busybox:1.36", "nginx:1.27", "redis:7.4"]  # web-2 at 30 s finds every image cached
    assert all(c["time"] < 30 for c in calls if c["method"] == "PullImage")
    assert round(run.started_seconds("web"), 3) == 8.162 and round(run.started_seconds("web-2"), 3) == 3.077
    web = run.pod_calls("web")
    seq = [e["method"] for e in web if e["method"] != "PodSandboxStatus"]
    assert seq[:6] == ["RunPodSandbox", "ImageStatus", "PullImage", "ImageStatus", "CreateContainer", "StartContainer"]


def test_cri_output_is_only_on_request(capsys):
    assert main(["simulate", str(DATA / "kubelet/cri-pod-start.yaml"), "--until", "5"]) == 0
    assert all(json.loads(line)["component"] != "cri" for line in capsys.readouterr().out.splitlines())
    assert main(["simulate", str(DATA / "kubelet/cri-pod-start.yaml"), "--until", "5", "--kubelet", "stand-in",
                 "-o", "cri"]) == 0
    assert capsys.readouterr().out == ""   # hollow kubelets have no runtime


# ----------------------------------------------------------------------------- data/qos (chapter 05.02)
def test_memory_pressure_file_evicts_the_best_effort_pod_on_the_kubelet_model(capsys):
    events = _events(capsys, "qos/memory-pressure.yaml", 900)
    evicted = _event_reasons(events, "Evicted")
    # the chapter's run (simulate_memory_pressure) is this file: the same eviction, at the same time
    assert [(e["name"].split(".")[0], e["time"]) for e in evicted] == [("batch", 490.0)]
    assert evicted[0]["detail"].startswith("Evicted: The node was low on resource: memory. Threshold quantity: 100Mi")
    assert evicted[0]["detail"] == "Evicted: " + sc.first_eviction(sc.simulate_memory_pressure()).message
    assert [e["time"] for e in _event_reasons(events, "EvictionThresholdMet")] == [490.0]
    pods = {o["metadata"]["name"]: o for o in _objects(capsys, "qos/memory-pressure.yaml", 900) if o["kind"] == "Pod"}
    assert (pods["batch"]["status"]["phase"], pods["batch"]["status"]["reason"]) == ("Failed", "Evicted")
    assert {pods[n]["status"]["phase"] for n in ("db", "web")} == {"Running"}


def test_memory_pressure_files_usage_steps_follow_the_runs_growth_curves():
    objects, scenario = sc.load_scenario_file(sc.MEMORY_PRESSURE_FILE)
    usage = sc.memory_pressure_usage_mi()
    assert scenario.steps and {s.action for s in scenario.steps} == {"usage", "systemUsage"}
    assert [s.args["memoryBytes"] for s in scenario.steps if s.action == "systemUsage"] == [sc.SYSTEM_MEMORY_BYTES]
    for s in scenario.steps:
        if s.action != "usage":
            continue
        start, rate, cap = usage[s.args["name"]]
        assert s.args["memoryBytes"] == int(min(start + rate * s.at_seconds, cap) * 2**20), s
    pods = sc.memory_pressure_pods(best_effort_priority=7)
    assert [p["metadata"]["name"] for p in pods] == [o["metadata"]["name"] for o in objects if o["kind"] == "Pod"]
    assert [p["spec"]["priority"] for p in pods] == [0, 0, 7]
    assert list(pods[1]["spec"]["containers"][0]["resources"]) == ["requests", "limits"]


def test_memory_pressure_default_scenario():
    s = sc.simulate_memory_pressure()
    ev = sc.first_eviction(s)
    # 4096 - 512 - 900 - (300 + 1.5 t) - (100 + 3 t) < 100  <=>  t > 485.3: the round at 490 s
    assert ev.time == 490.0 and ev.evicted == "default/batch" and ev.grace_period_seconds == 1
    assert ev.message.startswith("The node was low on resource: memory. Threshold quantity: 100Mi, available: 79Mi. ")
    assert "Container batch was using 1570Mi, request is 0, has larger consumption of memory." in ev.message
    assert [r.evicted for r in sc.evictions(s)] == ["default/batch"]
    assert sc.pressure_intervals(s.manager.timeline) == [(490.0, 791.0)]  # held 300 s after the last sighting
    assert {p["metadata"]["name"]: p["status"].get("reason") for p in s.pods}["batch"] == "Evicted"


def test_soft_threshold_waits_and_uses_max_pod_grace_period():
    s = sc.simulate_memory_pressure(soft_threshold_mi=1024, soft_grace_seconds=60)
    ev = sc.first_eviction(s)
    start = sc.pressure_intervals(s.manager.timeline)[0][0]
    assert start == 290.0 and ev.time == start + 60 and ev.grace_period_seconds == 30
    assert "Threshold quantity: 1Gi" in ev.message


def test_grace_period_without_soft_threshold_is_the_same_run():
    # no evictionSoft: the memory-pressure file runs and no grace period is read, so one run serves every value
    off = sc.simulate_memory_pressure(soft_threshold_mi=0, soft_grace_seconds=120)
    assert off is sc.simulate_memory_pressure(soft_threshold_mi=0, soft_grace_seconds=30)
    assert off is sc.simulate_memory_pressure()
    # with one, the grace period is the run's evictionSoftGracePeriod
    on = sc.simulate_memory_pressure(soft_threshold_mi=1024, soft_grace_seconds=30)
    assert on is not sc.simulate_memory_pressure(soft_threshold_mi=1024, soft_grace_seconds=60)
    assert sc.first_eviction(on).time == sc.pressure_intervals(on.manager.timeline)[0][0] + 30


def test_soft_threshold_file_is_the_chapters_soft_run(capsys):
    events = _events(capsys, "qos/soft-threshold.yaml", 900)
    evicted = _event_reasons(events, "Evicted")
    ev = sc.first_eviction(sc.simulate_memory_pressure(soft_threshold_mi=1024, soft_grace_seconds=60))
    assert [(e["name"].split(".")[0], e["time"]) for e in evicted] == [("batch", 350.0)] and ev.time == 350.0
    assert evicted[0]["detail"] == "Evicted: " + ev.message


def test_disk_pressure_file_reclaims_images_and_evicts_no_pod(capsys):
    events = _events(capsys, "qos/disk-pressure.yaml", 560)
    assert not _event_reasons(events, "Evicted")
    assert [e["detail"] for e in _event_reasons(events, "EvictionThresholdMet")] == [
        "EvictionThresholdMet: Attempting to reclaim ephemeral-storage"]
    s = sc.simulate_disk_pressure()
    r = next(r for r in s.manager.timeline if r.reclaimed)
    # 20Gi - 16.5Gi - 1400Mi - images < float32(0.1) * 20Gi = 2147483680: container GC frees nothing here,
    # DeleteUnusedImages the three images of the deleted pods (postgres:16, nginx:1.27, redis:7.4)
    assert r.time == 440.0 and r.thresholds_met == ["nodefs.available<2147483680"]
    assert r.reclaimed == [("DeleteAllUnusedContainers", 0), ("DeleteUnusedImages", 267602882)] and r.reclaim_sufficient
    assert not any(x.evicted for x in s.manager.timeline) and sc.pressure_intervals(s.manager.timeline, "DiskPressure")[0][0] == 440.0
    assert sorted(ref.rsplit("/", 1)[-1] for _, ref, _, why in s.kubelet.image_gc.removed if why == "reclaim") == [
        "nginx:1.27", "postgres:16", "redis:7.4"]


def test_kill_orders_agree_without_priorities_and_differ_with_them():
    orders = sc.kill_orders(sc.simulate_memory_pressure())
    assert [n for n, _ in orders["kubelet"]] == ["batch", "web", "db"]
    assert [n for n, _ in orders["kernel"]] == ["batch", "web", "db"]
    assert dict(orders["oom_score_adj"]) == {"db": -997, "web": 875, "batch": 1000}
    prio = sc.simulate_memory_pressure(best_effort_priority=1000)
    o = sc.kill_orders(prio)
    assert [n for n, _ in o["kubelet"]][0] == "web" and [n for n, _ in o["kernel"]][0] == "batch"
    assert sc.first_eviction(prio).evicted == "default/web"


# ----------------------------------------------------------------------------- the runs with parameters
def test_simulations_are_memoised():
    assert sc.simulate_rollout(1, 1, 4) is sc.simulate_rollout(1, 1, 4)
    assert sc.simulate_scale(6) is sc.simulate_scale(6)


def test_quota_rejects_the_replicasets_extra_pods():
    run = sc.simulate_quota(3, 5)
    assert len(run.cluster.list("pods", run.namespace)) == 3
    msgs = {e["message"].split('" is forbidden: ', 1)[1] for e in run.cluster.list("events", run.namespace)
            if e["reason"] == "FailedCreate"}
    assert msgs == {"exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3"}


def test_unknown_cause_is_refused_and_runs_are_memoised():
    with pytest.raises(ValueError, match="cause must be one of"):
        sc.simulate_restarts(cause="explodes")
    assert sc.simulate_restarts() is sc.simulate_restarts()


def test_parameters_override_the_files_fields():
    objects, scenario = sc.load_scenario_file("controllers/rollout.yaml")
    dep = next(o for o in objects if o["kind"] == "Deployment")
    assert dep["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 1, "maxUnavailable": 1}
    run = sc.simulate_rollout(2, 0, 3, min_ready_seconds=0)
    stored = run.cluster.get("deployments", "web", "default")
    assert stored["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 2, "maxUnavailable": 0}
    assert stored["spec"]["replicas"] == 3 and stored["spec"].get("minReadySeconds", 0) == 0
    objects[0]["metadata"]["name"] = "changed"  # callers get copies
    assert sc.load_scenario_file("controllers/rollout.yaml")[0][0]["metadata"]["name"] == "worker-1"
    job = sc.simulate_job(1, run_seconds=60).cluster.get("jobs", "migrate", "default")
    assert job["spec"]["backoffLimit"] == 1 and job["status"]["failed"] == 2


def test_the_restart_files_probe_steps_are_the_failure_window():
    _, scenario = sc.load_scenario_file("kubelet/restarts.yaml")
    assert [(s.at_seconds, s.args["result"]) for s in scenario.steps] == [
        (sc.FAIL_FROM_SECONDS, "failure"), (sc.FAIL_UNTIL_SECONDS, "success")]
    failures = [p["time"] for p in sc.simulate_restarts().probes if p["result"] == "failure"]
    assert failures and sc.FAIL_FROM_SECONDS <= min(failures) and max(failures) < sc.FAIL_UNTIL_SECONDS


def test_every_data_scenario_file_parses_with_one_scenario():
    for path in sorted(DATA.glob("*/*.yaml")):
        text = path.read_text()
        if "kind: Scenario" in text and path.parent.name in ("controllers", "kubelet", "network", "qos"):
            objects, scenario = sc.load_scenario_file(path)
            assert objects and scenario.name, path
