"""Workloads that real manifests run, on the kubelet model (issue #25), from the tutorials' manifests in data/kubelet/.

Each file is a kubernetes.io tutorial's manifest rewritten (``configmap-env``: "Configure a Pod to Use a
ConfigMap"; ``liveness-exec``: "Configure Liveness, Readiness and Startup Probes"; ``job-sidecar``: "Sidecar
Containers"; ``crashloop``: a container that keeps failing). The texts asserted are upstream's:

* ``CreateContainerConfigError`` and the messages of ``makeEnvironmentVariables``
  (``pkg/kubelet/kubelet_pods.go``), the ``Failed`` event ``Error: ...`` of ``startContainer``
  (``pkg/kubelet/kuberuntime/kuberuntime_container.go``);
* ``CrashLoopBackOff`` with ``back-off 10s restarting failed container=app pod=crash_default(<uid>)``
  (``doBackOff``, ``kuberuntime_manager.go``) and ``kubectl get``'s STATUS and RESTARTS columns (``printPod``);
* sidecars killed once no regular container is left to run (``computePodActions``: ``KillPod`` when nothing is
  kept or started), in reverse order after the regular containers (``newTerminationOrdering``), and the phase
  ``getPhase`` computes without them;
* ``Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory`` (busybox's ``cat``) and
  ``Container liveness failed liveness probe, will be restarted``.

The model's own assumptions (a command it cannot read in a batch pod exits 0 after ``default_run_seconds``; a
probe it cannot answer succeeds) are said in ``ModelAssumption`` events, asserted here too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from kubenotes.cli import main
from kubenotes.kubelet.kubelet import KubeletConfiguration
from kubenotes.kubelet.process_model import DEFAULT_RUN_SECONDS, MODEL_ASSUMPTION
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.scenario import cluster_options, parse_scenario, start_scenario

DATA = Path(__file__).resolve().parents[2] / "data" / "kubelet"

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker-1"},
        "spec": {"podCIDR": "10.244.1.0/24"},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "addresses": [{"type": "InternalIP", "address": "10.0.0.11"}]}}


def _cluster(objects: list[dict], until: float, **kwargs) -> Cluster:
    scenarios = [parse_scenario(o) for o in objects if o.get("kind") == "Scenario"]
    c = Cluster([o for o in objects if o.get("kind") != "Scenario"], seed=0,
                **{**cluster_options(scenarios), **kwargs})
    for s in scenarios:
        start_scenario(c, s)
    c.run(until=until)
    return c


def _run(name: str, until: float, **kwargs) -> Cluster:
    return _cluster([d for d in yaml.safe_load_all((DATA / name).read_text()) if d], until, **kwargs)


def _kubelet(c: Cluster):
    return c.kubelets["worker-1"]


def _pod(c: Cluster, prefix: str) -> dict:
    return next(p for p in c.list("pods") if p["metadata"]["name"].startswith(prefix))


def _events(c: Cluster, reason: str) -> list[dict]:
    return [e for e in _kubelet(c).events if e["reason"] == reason]


def _statuses(c: Cluster, container: str) -> list[tuple[float, dict]]:
    """Every container status the kubelet wrote for ``container``: (time, status)."""
    out = []
    for t, _, st in _kubelet(c).status_log:
        for cs in (st.get("initContainerStatuses") or []) + (st.get("containerStatuses") or []):
            if cs["name"] == container:
                out.append((t, cs))
    return out


def _table(capsys, name: str, until: float) -> str:
    assert main(["simulate", str(DATA / name), "--until", str(until), "-o", "table"]) == 0
    return capsys.readouterr().out


# ----------------------------------------------------------------------------- 1. CreateContainerConfigError
def test_a_missing_configmap_keeps_the_container_waiting_with_create_container_config_error_until_it_appears():
    c = _run("configmap-env.yaml", 25)
    waiting = (_pod(c, "dapi-test-pod")["status"]["containerStatuses"][0]["state"]).get("waiting")
    assert waiting == {"reason": "CreateContainerConfigError", "message": 'configmap "special-config" not found'}
    assert _pod(c, "dapi-test-pod")["status"]["phase"] == "Pending"
    failed = _events(c, "Failed")
    assert failed and {e["message"] for e in failed} == {'Error: configmap "special-config" not found'}
    assert {e["field_path"] for e in failed} == {"spec.containers{test-container}"}
    assert len(failed) >= 2  # retried on the pod worker's backOffPeriod (10 s, jittered), not once
    assert not _events(c, "Created")


def test_a_missing_key_is_reported_with_its_configmap_and_the_container_starts_once_the_key_exists():
    c = _run("configmap-env.yaml", 120)
    messages = [e["message"] for e in _events(c, "Failed")]
    assert "Error: couldn't find key special.how in ConfigMap default/special-config" in messages
    reasons = [(cs["state"].get("waiting") or {}).get("message") for _, cs in _statuses(c, "test-container")]
    assert "couldn't find key special.how in ConfigMap default/special-config" in reasons
    created = _events(c, "Created")
    assert len(created) == 1 and 60 <= created[0]["time"] <= 60 + 15 + 1  # the next retry after the key appears
    pod = _pod(c, "dapi-test-pod")
    assert pod["status"]["phase"] == "Succeeded"
    # the container's environment holds the ConfigMap's values: the model prints what echo prints
    reader = _kubelet(c).container_log_reader("default", "dapi-test-pod", "test-container", {})
    assert reader.read() == "very charm\n"


def test_secret_and_optional_references_follow_make_environment_variables():
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "default"},
              "data": {"user": "YWRtaW4="}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app", "namespace": "default"},
           "spec": {"restartPolicy": "Never", "containers": [{
               "name": "app", "image": "busybox:1.36", "command": ["sh", "-c", "echo $DB_USER $TIER; sleep 60"],
               "envFrom": [{"configMapRef": {"name": "absent", "optional": True}}],
               "env": [{"name": "DB_USER", "valueFrom": {"secretKeyRef": {"name": "db", "key": "user"}}},
                       {"name": "TIER", "value": "gold"},
                       {"name": "X", "valueFrom": {"secretKeyRef": {"name": "db", "key": "x", "optional": True}}}]}]}}
    c = _cluster([NODE, secret, pod], 10)
    assert _kubelet(c).container_log_reader("default", "app", "app", {}).read() == "admin gold\n"
    missing = dict(pod, metadata={"name": "app2", "namespace": "default"})
    missing["spec"] = dict(pod["spec"], containers=[dict(pod["spec"]["containers"][0], env=[
        {"name": "P", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}])])
    c = _cluster([NODE, secret, missing], 10)
    assert _pod(c, "app2")["status"]["containerStatuses"][0]["state"]["waiting"] == {
        "reason": "CreateContainerConfigError", "message": "couldn't find key password in Secret default/db"}
    c = _cluster([NODE, missing], 10)
    assert _pod(c, "app2")["status"]["containerStatuses"][0]["state"]["waiting"]["message"] == 'secret "db" not found'


def test_get_shows_create_container_config_error_in_the_status_column(capsys):
    out = _table(capsys, "configmap-env.yaml", 25)
    row = next(line for line in out.splitlines() if "dapi-test-pod" in line and "pod/" not in line)
    assert row.split()[3] == "CreateContainerConfigError"
    assert 'Error: configmap "special-config" not found' in out


# ----------------------------------------------------------------------------- 2. sidecars
def test_a_jobs_sidecar_starts_first_runs_beside_the_main_container_and_is_stopped_after_it():
    c = _run("job-sidecar.yaml", 60)
    k = _kubelet(c)
    started = {e["field_path"]: e["time"] for e in _events(c, "Started")}
    assert started["spec.initContainers{logshipper}"] < started["spec.containers{myjob}"]
    killing = _events(c, "Killing")
    assert [(e["message"], e["field_path"]) for e in killing] == [
        ("Stopping container logshipper", "spec.initContainers{logshipper}")]
    main_done = next(t for t, cs in _statuses(c, "myjob") if "terminated" in cs["state"])
    assert killing[0]["time"] >= main_done
    # while the main container ran, the sidecar ran too and the pod was Running
    during = [st for t, _, st in k.status_log if started["spec.containers{myjob}"] < t < main_done]
    assert during and {st["phase"] for st in during} == {"Running"}
    pod = _pod(c, "myjob")
    assert pod["status"]["phase"] == "Succeeded"
    sidecar = pod["status"]["initContainerStatuses"][0]
    assert sidecar["name"] == "logshipper" and sidecar["state"]["terminated"]["exitCode"] == 137  # PID 1, SIGKILL
    assert pod["status"]["containerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"
    job = next(j for j in c.list("jobs") if j["metadata"]["name"] == "myjob")
    assert job["status"].get("succeeded") == 1


def test_sidecars_are_stopped_in_reverse_order_after_the_regular_containers():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"restartPolicy": "OnFailure", "terminationGracePeriodSeconds": 5,
                    "initContainers": [{"name": f"side-{i}", "image": "busybox:1.36", "restartPolicy": "Always",
                                        "command": ["sh", "-c", "sleep infinity"]} for i in (1, 2)],
                    "containers": [{"name": "main", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 3"]}]}}
    c = _cluster([NODE, pod], 60)
    k = _kubelet(c)
    stops = [t for t in k.runtime.trace if t["method"] == "StopContainer"]
    names = {t["response"]["container_id"]: t["request"]["config"]["metadata"]["name"]
             for t in k.runtime.trace if t["method"] == "CreateContainer" and t["response"]}
    order = [names[s["request"]["container_id"]] for s in sorted(stops, key=lambda s: s["time"])]
    assert order == ["side-2", "side-1"]
    exits = {cs["name"]: cs["state"]["terminated"]["finishedAt"] for cs in _pod(c, "p")["status"]["initContainerStatuses"]}
    assert exits["side-2"] <= exits["side-1"]
    assert _pod(c, "p")["status"]["phase"] == "Succeeded"


# ----------------------------------------------------------------------------- 3. CrashLoopBackOff
def test_crash_loop_back_off_shows_waiting_with_upstreams_message_and_the_last_exit_during_the_back_off():
    c = _run("crashloop.yaml", 120)
    uid = _pod(c, "crash")["metadata"]["uid"]
    backed_off = [(t, cs) for t, cs in _statuses(c, "app")
                  if (cs["state"].get("waiting") or {}).get("reason") == "CrashLoopBackOff"]
    assert backed_off
    t, cs = backed_off[0]
    assert cs["state"]["waiting"]["message"] == f"back-off 10s restarting failed container=app pod=crash_default({uid})"
    assert cs["lastState"]["terminated"]["exitCode"] == 1 and cs["lastState"]["terminated"]["reason"] == "Error"
    # written as soon as the kubelet backs off: at the exit, not at the restart 10 s later
    exit_time = max(t2 for t2, cs2 in _statuses(c, "app") if "terminated" in cs2["state"] and t2 <= t)
    assert t - exit_time < 2
    messages = [cs["state"]["waiting"]["message"].split(" restarting")[0] for _, cs in backed_off]
    assert messages[:3] == ["back-off 10s", "back-off 20s", "back-off 40s"]
    # the API object between the restarts
    api = _pod(c, "crash")["status"]["containerStatuses"][0]
    assert api["state"]["waiting"]["reason"] == "CrashLoopBackOff" and api["lastState"]["terminated"]["exitCode"] == 1
    assert [e["message"] for e in _events(c, "BackOff")][0] == (
        f"Back-off restarting failed container app in pod crash_default({uid})")


def test_get_shows_crash_loop_back_off_with_the_restart_count_and_age(capsys):
    out = _table(capsys, "crashloop.yaml", 120)
    row = next(line for line in out.splitlines() if line.startswith("default     crash"))
    assert row.split()[3] == "CrashLoopBackOff"
    assert "4 (23s ago)" in row  # the 4th restart at 97 s: v1.34 re-checks a backed-off pod every 10-15 s


# ----------------------------------------------------------------------------- 4. the default run time
def test_a_job_whose_command_the_model_cannot_read_completes_after_the_default_run_time():
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default"},
           "spec": {"backoffLimit": 4, "template": {"spec": {"restartPolicy": "Never", "containers": [{
               "name": "pi", "image": "perl:5.34.0", "command": ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"]}]}}}}
    c = _cluster([NODE, job], 40)
    pod = _pod(c, "pi-")
    term = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert term["exitCode"] == 0 and term["reason"] == "Completed" and pod["status"]["phase"] == "Succeeded"
    started = _events(c, "Started")[0]["time"]
    run = [cs for t, cs in _statuses(c, "pi") if "terminated" in cs["state"]][0]["state"]["terminated"]
    assert run["finishedAt"] > run["startedAt"]
    assumption = _events(c, MODEL_ASSUMPTION)
    assert len(assumption) == 1 and assumption[0]["time"] == started
    assert assumption[0]["message"] == (
        "kubenotes cannot tell when \"perl -Mbignum=bpi -wle 'print bpi(2000)'\" (container pi) ends: it is assumed "
        "to exit 0 after 10s (KubeletConfiguration.default_run_seconds; the pod annotations kubenotes.io/run-seconds "
        "and kubenotes.io/exit-code set both)")
    assert DEFAULT_RUN_SECONDS == 10.0
    assert next(j for j in c.list("jobs"))["status"].get("succeeded") == 1


def test_the_default_run_time_is_a_kubelet_setting_and_long_running_pods_keep_running():
    job_pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "batch", "namespace": "default"},
               "spec": {"restartPolicy": "OnFailure", "initContainers": [
                   {"name": "migrate", "image": "flyway/flyway:10", "args": ["migrate"]}],
                   "containers": [{"name": "work", "image": "acme/worker:1"}]}}
    server = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "server", "namespace": "default"},
              "spec": {"containers": [{"name": "api", "image": "acme/api:1"}]}}
    nginx_never = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
                   "spec": {"restartPolicy": "Never", "containers": [{"name": "web", "image": "nginx:1.27"}]}}
    annotated = {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "annotated", "namespace": "default",
        "annotations": {"kubenotes.io/run-seconds": "4", "kubenotes.io/exit-code": "3"}},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "acme/worker:1"}]}}
    c = _cluster([NODE, job_pod, server, nginx_never, annotated], 100,
                 kubelet_options=KubeletConfiguration(default_run_seconds=30))
    batch = _pod(c, "batch")["status"]
    assert batch["initContainerStatuses"][0]["state"]["terminated"]["exitCode"] == 0
    assert batch["phase"] == "Succeeded"
    init_run = batch["initContainerStatuses"][0]["state"]["terminated"]
    assert init_run["startedAt"] < init_run["finishedAt"]
    assert _pod(c, "server")["status"]["phase"] == "Running"      # a long-running pod: no assumption
    assert _pod(c, "web")["status"]["phase"] == "Running"         # nginx's own command: a known server
    ann = _pod(c, "annotated")["status"]
    assert ann["phase"] == "Failed" and ann["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 3
    told = {e["pod"] for e in _events(c, MODEL_ASSUMPTION)}
    assert told == {"batch"}
    assert all("after 30s" in e["message"] for e in _events(c, MODEL_ASSUMPTION))


# ----------------------------------------------------------------------------- 5. liveness probes
def test_the_liveness_tutorials_exec_probe_fails_once_the_script_removed_the_file():
    c = _run("liveness-exec.yaml", 100)
    unhealthy = _events(c, "Unhealthy")
    assert unhealthy and {e["message"] for e in unhealthy} == {
        "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory"}
    started = _events(c, "Started")[0]["time"]
    assert 30 <= unhealthy[0]["time"] - started <= 30 + 5 + 1   # the first probe after the rm at 30 s
    killing = _events(c, "Killing")
    assert killing[0]["message"] == "Container liveness failed liveness probe, will be restarted"
    assert len(_events(c, "Started")) >= 2
    assert _pod(c, "liveness-exec")["status"]["containerStatuses"][0]["restartCount"] >= 1
    assert not _events(c, MODEL_ASSUMPTION)   # the model knew the answer


def test_a_liveness_probe_the_model_cannot_answer_succeeds_and_the_kubelet_says_so_once():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "livenessProbe": {
               "httpGet": {"path": "/healthz", "port": 80}, "periodSeconds": 5}}]}}
    c = _cluster([NODE, pod], 60)
    told = _events(c, MODEL_ASSUMPTION)
    assert [e["message"] for e in told] == [
        "kubenotes cannot tell what the liveness probe (httpGet :80/healthz) of container web answers: it is "
        "assumed to succeed (a Scenario probe step sets its result)"]
    assert not _events(c, "Killing") and _pod(c, "web")["status"]["phase"] == "Running"


def test_simulate_prints_the_liveness_tutorials_events(capsys):
    assert main(["simulate", str(DATA / "liveness-exec.yaml"), "--until", "60"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    details = [e["detail"] for e in events if e["kind"] == "Event"]
    assert "Unhealthy: Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory" in details
    assert "Killing: Container liveness failed liveness probe, will be restarted" in details


# ----------------------------------------------------------------------------- sidecar restarts; describe
def test_a_sidecar_that_exits_is_restarted_while_the_main_container_runs():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"restartPolicy": "Never",
                    "initContainers": [{"name": "side", "image": "busybox:1.36", "restartPolicy": "Always",
                                        "command": ["sh", "-c", "sleep 5; exit 1"]}],
                    "containers": [{"name": "main", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 40"]}]}}
    c = _cluster([NODE, pod], 30)
    starts = [e for e in _events(c, "Started") if e["field_path"] == "spec.initContainers{side}"]
    assert len(starts) >= 2  # restarted under its own restartPolicy: Always, though the pod's is Never
    st = _pod(c, "p")["status"]
    assert st["phase"] == "Running" and st["initContainerStatuses"][0]["restartCount"] >= 1


def test_kubectl_describe_shows_the_waiting_reasons_and_the_last_state(kubectl_required):
    from kubenotes.sim.serve import serve

    docs = [d for d in yaml.safe_load_all((DATA / "crashloop.yaml").read_text()) if d]
    docs += [d for d in yaml.safe_load_all((DATA / "configmap-env.yaml").read_text())
             if d and d["kind"] == "Pod"]
    c = Cluster(docs, seed=0)
    c.run(until=60)
    s = serve(c, port=0, time_scale=0)
    try:
        crash = s.kubectl("describe", "pod", "crash")
        assert crash.returncode == 0, crash.stderr
        assert re.search(r"^\s+State:\s+Waiting\n\s+Reason:\s+CrashLoopBackOff$", crash.stdout, re.M)
        assert re.search(r"^\s+Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+1$", crash.stdout, re.M)
        assert re.search(r"Warning\s+BackOff\s+.*Back-off restarting failed container app in pod crash_default",
                         crash.stdout)
        cm = s.kubectl("describe", "pod", "dapi-test-pod")
        assert cm.returncode == 0, cm.stderr
        assert re.search(r"^\s+State:\s+Waiting\n\s+Reason:\s+CreateContainerConfigError$", cm.stdout, re.M)
        assert re.search(r'Warning\s+Failed\s+.*Error: configmap "special-config" not found', cm.stdout)
    finally:
        s.stop()
