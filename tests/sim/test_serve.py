"""The real kubectl against a served cluster (kubenotes.sim.serve), and ``kubenotes serve``.

Each test starts its own server on a free loopback port and stops it.
kubectl tests skip with a reason when no kubectl is installed, and fail
instead when the ``CI`` environment variable is set (CI machines have it).
Expected outputs are kubectl's own texts (the NotFound line comes from
staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go ``StandardErrorMessage``;
the table headers from pkg/printers/internalversion/printers.go).
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time

import pytest
import yaml

from kubenotes.kubelet.logs import format_log_timestamp
from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

MANIFESTS = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
"""




def _until(pred, timeout_seconds: float = 10.0) -> bool:
    """Poll ``pred`` every 20 ms for at most ``timeout_seconds`` wall seconds."""
    end = time.monotonic() + timeout_seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return bool(pred())


def _running_cluster() -> Cluster:
    c = Cluster.from_manifests(MANIFESTS)
    c.run(until=10)
    return c


def test_kubectl_reads(kubectl_required):
    s = serve(_running_cluster(), port=0, time_scale=0)
    try:
        r = s.kubectl("version")
        assert r.returncode == 0 and "Server Version: v1.33" in r.stdout, r.stderr
        r = s.kubectl("get", "nodes")
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
        assert lines[1].split()[:4] == ["n1", "Ready", "<none>", "10s"]
        r = s.kubectl("get", "pods", "-A")
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0].split() == ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]
        assert len(lines) == 3 and all(ln.split()[0] == "default" and ln.split()[1].startswith("web-")
                                       and ln.split()[3] == "Running" for ln in lines[1:])
        r = s.kubectl("get", "pods", "-A", "-o", "wide")
        assert r.returncode == 0, r.stderr
        head = r.stdout.splitlines()[0]
        assert head.split()[:6] == ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]
        assert "NODE" in head and "NOMINATED NODE" in head and "READINESS GATES" in head
        assert all(" n1 " in ln for ln in r.stdout.splitlines()[1:])
        pod = lines[1].split()[1]
        r = s.kubectl("get", "pod", pod, "-o", "yaml")
        assert r.returncode == 0, r.stderr
        obj = yaml.safe_load(r.stdout)
        assert (obj["kind"], obj["metadata"]["name"], obj["spec"]["nodeName"]) == ("Pod", pod, "n1")
        r = s.kubectl("get", "pod", "nope")
        assert r.returncode == 1
        assert r.stderr.strip() == 'Error from server (NotFound): pods "nope" not found'
        r = s.kubectl("api-resources")
        assert r.returncode == 0, r.stderr
        rows = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines()[1:]}
        assert rows["deployments"][1:3] == ["deploy", "apps/v1"] and rows["pods"][1] == "po"
        r = s.kubectl("get", "pods", "--sort-by=.metadata.name", "-o", "custom-columns=N:.metadata.name,NODE:.spec.nodeName")
        assert r.returncode == 0 and [ln.split()[1] for ln in r.stdout.splitlines()] == ["NODE", "n1", "n1"], r.stderr
        r = s.kubectl("get", "pods", "-l", "app=web", "-o", "name")
        assert r.returncode == 0 and len(r.stdout.split()) == 2 and r.stdout.startswith("pod/web-")
        r = s.kubectl("get", "pods", "--field-selector", "spec.nodeName=n2", "-o", "name")
        assert r.returncode == 0 and r.stdout == ""
        if os.path.exists("/usr/bin/kubectl"):  # the dispatcher picks kubectl.1.33 from our /version
            r = s.kubectl("get", "nodes", "-o", "name", kubectl="/usr/bin/kubectl")
            assert (r.returncode, r.stdout.strip()) == (0, "node/n1"), r.stderr
    finally:
        s.stop()


def test_kubectl_writes(kubectl_required):
    c = _running_cluster()
    s = serve(c, port=0, time_scale=50)  # the namespace controller must finish the namespace's deletion
    try:
        r = s.kubectl("create", "namespace", "x")
        assert (r.returncode, r.stdout.strip()) == (0, "namespace/x created"), r.stderr
        with s.lock:
            assert c.get("namespaces", "x")["status"]["phase"] == "Active"
        r = s.kubectl("delete", "namespace", "x", timeout=30)
        assert (r.returncode, r.stdout.strip()) == (0, 'namespace "x" deleted'), r.stderr
        with s.lock:
            assert c.get("namespaces", "x") is None
        r = s.kubectl("scale", "deployment", "web", "--replicas=3")
        assert (r.returncode, r.stdout.strip()) == (0, "deployment.apps/web scaled"), r.stderr
        with s.lock:
            assert c.get("deployments", "web", "default")["spec"]["replicas"] == 3
        assert _until(lambda: len(s.kubectl("get", "pods", "-l", "app=web", "-o", "name").stdout.split()) == 3)
        r = s.kubectl("label", "deployment", "web", "team=blue")
        assert (r.returncode, r.stdout.strip()) == (0, "deployment.apps/web labeled"), r.stderr
        r = s.kubectl("annotate", "deployment", "web", "owner=alice")
        assert (r.returncode, r.stdout.strip()) == (0, "deployment.apps/web annotated"), r.stderr
        with s.lock:
            md = c.get("deployments", "web", "default")["metadata"]
        assert md["labels"]["team"] == "blue" and md["annotations"]["owner"] == "alice"
        r = s.kubectl("create", "namespace", "default")
        assert r.returncode == 1
        assert r.stderr.strip() == 'Error from server (AlreadyExists): namespaces "default" already exists'
    finally:
        s.stop()


def test_kubectl_typed_commands_send_protobuf_we_decode(kubectl_required):
    """``create sa|token|quota|secret|configmap`` and ``drain`` send protobuf bodies (typed clients)."""
    c = _running_cluster()
    s = serve(c, port=0, time_scale=20)
    try:
        assert s.kubectl("create", "serviceaccount", "bot").stdout.strip() == "serviceaccount/bot created"
        r = s.kubectl("create", "token", "bot", "--duration=10m")
        assert r.returncode == 0 and r.stdout.count(".") == 2, r.stderr
        from kubenotes.apiserver.authn import decode_token

        claims = decode_token(r.stdout.strip())
        assert claims["sub"] == "system:serviceaccount:default:bot" and claims["exp"] - claims["iat"] == 600
        assert s.kubectl("create", "quota", "q", "--hard=cpu=8,pods=50").returncode == 0
        r = s.kubectl("create", "secret", "generic", "s1", "--from-literal=a=b")
        assert r.stdout.strip() == "secret/s1 created", r.stderr
        assert s.kubectl("create", "configmap", "cm1", "--from-literal=x=y").returncode == 0
        with s.lock:
            assert c.get("resourcequotas", "q", "default")["spec"]["hard"] == {"cpu": "8", "pods": "50"}
            assert c.get("secrets", "s1", "default")["data"] == {"a": "Yg=="}
            assert c.get("configmaps", "cm1", "default")["data"] == {"x": "y"}
        r = s.kubectl("drain", "n1", "--ignore-daemonsets", "--timeout=20s", timeout=40)
        assert r.returncode == 0, r.stderr
        assert "evicting pod default/web-" in r.stdout and r.stdout.strip().endswith("node/n1 drained")
        with s.lock:
            assert c.get("nodes", "n1")["spec"]["unschedulable"] is True
    finally:
        s.stop()


def test_kubectl_get_watch_sees_a_change(kubectl_required):
    c = _running_cluster()
    s = serve(c, port=0, time_scale=0)
    proc = subprocess.Popen([kubectl_required, "--kubeconfig", s.kubeconfig_path, "get", "pods", "-w"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout], daemon=True)
    reader.start()
    try:
        seen: list[str] = []

        def saw(text: str) -> bool:
            while not lines.empty():
                seen.append(lines.get())
            return any(text in ln for ln in seen)

        assert _until(lambda: saw("Running"), 20), (seen, proc.poll())
        with s.lock:
            c.client.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late"},
                                     "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}, "default")
        assert _until(lambda: saw("late"), 20), seen
        assert any(ln.split()[:3] == ["late", "0/1", "Pending"] for ln in seen), seen
    finally:
        proc.kill()
        proc.wait(timeout=10)
        s.stop()


def test_kubectl_with_a_wrong_token_is_unauthorized(kubectl_required, tmp_path):
    s = serve(Cluster(controllers=[], scheduler=False), port=0, time_scale=0)
    try:
        cfg = yaml.safe_load(open(s.kubeconfig_path))
        cfg["users"][0]["user"]["token"] = "wrong"
        bad = tmp_path / "bad-kubeconfig"
        bad.write_text(yaml.safe_dump(cfg))
        r = subprocess.run([kubectl_required, "--kubeconfig", str(bad), "get", "namespaces"], capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 1
        assert "You must be logged in to the server" in r.stderr
    finally:
        s.stop()


def test_clock_runs_at_the_time_scale_and_pauses_at_zero():
    c = Cluster(controllers=[], scheduler=False)
    s = serve(c, port=0, time_scale=100)
    try:
        assert _until(lambda: s.now >= 5, 10)
    finally:
        s.stop()
    c2 = Cluster(controllers=[], scheduler=False)
    s2 = serve(c2, port=0, time_scale=0)
    try:
        assert len(s2._threads) == 1 and s2.now == 0  # no clock thread at all when paused
        s2.run_for(7)
        assert s2.now == 7
    finally:
        s2.stop()
    assert s2.stopped and not os.path.exists(s2.kubeconfig_path)


def test_serve_subcommand_writes_a_kubeconfig_and_stops(tmp_path, capsys):
    from kubenotes.cli import build_parser
    from kubenotes.sim import serve_cli

    manifest = tmp_path / "node.yaml"
    manifest.write_text(MANIFESTS)
    kubeconfig = tmp_path / "kubeconfig"
    args = build_parser(load=["serve"]).parse_args(
        ["serve", str(manifest), "--port", "0", "--kubeconfig", str(kubeconfig), "--time-scale", "0",
         "--seed", "3"])
    assert args.func is serve_cli.run
    ready, stop = threading.Event(), threading.Event()
    result: list[int] = []
    t = threading.Thread(target=lambda: result.append(serve_cli.run(args, ready=ready, stop=stop)), daemon=True)
    t.start()
    try:
        assert ready.wait(20)
        served = ready.served
        cfg = yaml.safe_load(kubeconfig.read_text())
        assert cfg["clusters"][0]["cluster"]["server"] == served.url
        assert cfg["users"][0]["user"]["token"] == served.token and len(served.token) >= 32  # random per start
        assert os.stat(kubeconfig).st_mode & 0o777 == 0o600
        assert served.url.startswith("https://127.0.0.1:")
        with served.lock:
            assert served.cluster.get("nodes", "n1") is not None
        # virtual second 0 is the wall-clock start (the default --epoch now), so kubectl's ages read right
        import datetime as dt

        assert abs((dt.datetime.now(dt.timezone.utc) - served.cluster.epoch).total_seconds()) < 60
    finally:
        stop.set()
        t.join(15)
    assert result == [0]
    err = capsys.readouterr().err
    assert f"export KUBECONFIG={kubeconfig}" in err
    assert ("kubenotes: state lives in this process's memory and is lost on exit; a restart starts a fresh cluster "
            "with a new CA, service-account signing key and admin token") in err
    assert not kubeconfig.exists()  # the admin token died with the server: its kubeconfig goes too


SCENARIO = """
---
apiVersion: kubenotes.io/v1
kind: Scenario
metadata: {name: scale-then-fail}
spec:
  cluster: {kubelet: stand-in}
  steps:
  - at: 5
    scale: {kind: Deployment, namespace: default, name: web, replicas: 3}
  - at: 8
    nodeDown: {name: n1}
"""


def _serve_scenario(tmp_path, capsys):
    from kubenotes.cli import build_parser
    from kubenotes.sim import serve_cli

    manifest = tmp_path / "cluster.yaml"
    manifest.write_text(MANIFESTS + SCENARIO)
    args = build_parser(load=["serve"]).parse_args(["serve", str(manifest), "--port", "0", "--time-scale", "0"])
    ready, stop = threading.Event(), threading.Event()
    result: list[int] = []
    t = threading.Thread(target=lambda: result.append(serve_cli.run(args, ready=ready, stop=stop)), daemon=True)
    t.start()
    assert ready.wait(20)
    return ready.served, stop, t, result


def test_serve_runs_scenarios_on_its_clock_as_simulate_does(tmp_path, capsys):
    """``kind: Scenario`` documents among serve's manifests run on the served clock (#32): the steps happen at
    their virtual times, ``spec.cluster`` picks the kubelet, and the state matches ``simulate``'s at that time."""
    from kubenotes.sim.cli import run as simulate
    from kubenotes.sim.kubelet import StandInKubelet

    served, stop, t, result = _serve_scenario(tmp_path, capsys)
    try:
        with served.lock:
            c = served.cluster
            assert all(isinstance(k, StandInKubelet) for k in c.kubelets.values())
            assert c.get("deployments", "web", "default")["spec"]["replicas"] == 2
        served.run_for(6)
        with served.lock:
            assert c.get("deployments", "web", "default")["spec"]["replicas"] == 3
            assert c.kubelets["n1"].up
        served.run_for(4)
        with served.lock:
            assert not c.kubelets["n1"].up
            served_log = [(e.time, e.component, e.verb, e.kind, e.name) for e in c.audit_log
                          if e.component == "scenario"]
    finally:
        stop.set()
        t.join(15)
    assert result == [0]
    assert "kubenotes: scenario scale-then-fail: 2 step(s) until 8 s on the virtual clock" in capsys.readouterr().err
    sim = simulate([str(tmp_path / "cluster.yaml")], until=10)
    assert served_log == [(e.time, e.component, e.verb, e.kind, e.name) for e in sim.audit_log
                          if e.component == "scenario"]


def test_kubectl_watches_a_served_scenario(kubectl_required, tmp_path, capsys):
    served, stop, t, result = _serve_scenario(tmp_path, capsys)
    try:
        served.run_for(6)
        r = served.kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}")
        assert r.returncode == 0 and r.stdout == "3"
    finally:
        stop.set()
        t.join(15)
    assert result == [0]

def test_serve_epoch_flag():
    from kubenotes.cli import build_parser
    from kubenotes.apiserver.server import DEFAULT_EPOCH
    from kubenotes.sim import serve_cli

    for flag, want in (("default", DEFAULT_EPOCH), ("2030-01-01T00:00:00Z", "2030-01-01T00:00:00+00:00")):
        args = build_parser(load=["serve"]).parse_args(["serve", "--port", "0", "--time-scale", "0", "--epoch", flag])
        ready, stop = threading.Event(), threading.Event()
        stop.set()  # serve, report ready, stop at once
        assert serve_cli.run(args, ready=ready, stop=stop) == 0
        epoch = ready.served.cluster.epoch
        assert epoch == want if flag == "default" else epoch.isoformat() == want
    args = build_parser(load=["serve"]).parse_args(["serve", "--epoch", "yesterday"])
    assert serve_cli.run(args) == 2


def test_serve_rejects_a_negative_time_scale():
    with pytest.raises(ValueError):
        serve(Cluster(controllers=[], scheduler=False), time_scale=-1)


def test_kubectl_auth_can_i_and_whoami_with_impersonation(kubectl_required):
    """SelfSubjectAccessReview and SelfSubjectReview are answered, not stored; ``--as`` impersonates (admin only)."""
    c = _running_cluster()
    s = serve(c, port=0, time_scale=0)
    try:
        assert s.kubectl("auth", "can-i", "create", "pods").stdout.strip() == "yes"
        with s.lock:
            c.client.create("rolebindings", {
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "viewer-view", "namespace": "default"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                "subjects": [{"kind": "ServiceAccount", "name": "viewer", "namespace": "default"}]}, "default")
        viewer = "--as=system:serviceaccount:default:viewer"
        assert s.kubectl("auth", "can-i", "list", "pods", viewer).stdout.strip() == "yes"
        r = s.kubectl("auth", "can-i", "create", "pods", viewer)
        assert r.stdout.strip() == "no" and r.returncode == 1
        r = s.kubectl("auth", "whoami", "--as=jane", "--as-group=devs")
        assert r.returncode == 0 and "jane" in r.stdout and "devs" in r.stdout, r.stderr
        r = s.kubectl("get", "pods", viewer, "-o", "name")
        assert r.returncode == 0 and r.stdout.strip(), r.stderr
        r = s.kubectl("delete", "pod", "--all", viewer)
        assert r.returncode != 0 and 'User "system:serviceaccount:default:viewer" cannot delete resource' in r.stderr
    finally:
        s.stop()


LOG_MANIFESTS = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: hello}
spec:
  containers:
  - {name: c, image: busybox, command: ["sh", "-c", "echo hello; sleep 3; echo world; sleep 3600"]}
---
apiVersion: v1
kind: Pod
metadata: {name: two}
spec:
  containers:
  - {name: a, image: nginx}
  - {name: b, image: busybox, command: ["echo", "from b"]}
---
apiVersion: v1
kind: Pod
metadata: {name: job, annotations: {kubenotes.io/run-seconds: "12"}}
spec:
  restartPolicy: Never
  containers:
  - {name: c, image: busybox, command: ["sh", "-c", "echo step 1; sleep 4; echo step 2; sleep 10; echo never"]}
"""


def test_kubectl_logs(kubectl_required):
    c = Cluster.from_manifests(LOG_MANIFESTS, controllers=[])
    s = serve(c, port=0, time_scale=0)
    try:
        s.run_for(1)  # bound, not started
        r = s.kubectl("logs", "hello")
        assert r.returncode == 1
        assert 'Error from server (BadRequest): container "c" in pod "hello" is waiting to start: ' \
               'ContainerCreating' in r.stderr
        s.run_for(9)
        r = s.kubectl("logs", "hello")
        assert (r.returncode, r.stdout) == (0, "hello\nworld\n"), r.stderr
        assert s.kubectl("logs", "hello", "--tail=1").stdout == "world\n"
        r = s.kubectl("logs", "hello", "--timestamps")
        kubelet = c.kubelets["n1"]
        run = kubelet.runs[c.get("pods", "hello", "default")["metadata"]["uid"]]["c"][-1]
        assert r.stdout.splitlines()[0] == format_log_timestamp(run.started_seconds, c.server.epoch) + " hello"
        r = s.kubectl("logs", "hello", "-p")
        assert r.returncode == 1
        assert 'previous terminated container "c" in pod "hello" not found' in r.stderr
        r = s.kubectl("logs", "two")  # kubectl picks the first container itself and says so
        assert (r.returncode, r.stdout) == (0, "") and 'Defaulted container "a" out of: a, b' in r.stderr
        assert s.kubectl("logs", "two", "-c", "b").stdout == "from b\n"
        r = s.kubectl("logs", "two", "--all-containers", "--prefix")
        assert r.stdout == "[pod/two/b] from b\n", r.stderr
        # -f streams until the container exits (run-seconds 12: started at 2, exits at 14, before "never" at 16)
        proc = subprocess.Popen([kubectl_required, "--kubeconfig", s.kubeconfig_path, "logs", "-f", "job"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            first = proc.stdout.readline()  # t=10: "step 1" (at ~1.7) and "step 2" (~5.7) are out, it still runs
            assert not _until(lambda: proc.poll() is not None, 1.0)  # following: it waits for more
            s.run_for(10)
            assert proc.wait(timeout=20) == 0, proc.stderr.read()  # the stream ended with the container
            assert first + proc.stdout.read() == "step 1\nstep 2\n"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
    finally:
        s.stop()


def test_kubectl_commands_the_model_cannot_run_fail_fast_with_a_reason(kubectl_required):
    c = Cluster.from_manifests(LOG_MANIFESTS, controllers=[])
    s = serve(c, port=0, time_scale=0)
    try:
        s.run_for(5)
        no_process = "the model runs no container processes"
        for args, expected in [
            (("exec", "hello", "--", "ls"), 'Error from server (BadRequest): kubenotes cannot exec into container "c"'),
            (("exec", "-it", "hello", "--", "sh"), no_process),
            (("attach", "hello"), 'kubenotes cannot attach to container "c" of pod "hello"'),
            (("cp", "hello:/etc/hosts", "/tmp/kubenotes-cp-test"), no_process),
            (("port-forward", "hello", "18080:80"), 'kubenotes cannot forward ports of pod "hello"'),
            (("top", "pod"), "error: Metrics API not available"),
            (("top", "node"), "error: Metrics API not available"),
            (("get", "--raw", "/metrics"), "Error from server (NotFound): the kubenotes API server serves no /metrics"),
        ]:
            r = s.kubectl(*args, timeout=30)  # subprocess.TimeoutExpired would mean a hang
            assert r.returncode != 0, (args, r.stdout)
            assert expected in r.stderr, (args, r.stderr)
    finally:
        s.stop()


def test_kubectl_ages_read_in_seconds_when_the_epoch_is_now_and_events_watch_streams(kubectl_required):
    c = Cluster.from_manifests(MANIFESTS.split("---")[0], epoch="now")
    s = serve(c, port=0, time_scale=1)
    procs = [subprocess.Popen([kubectl_required, "--kubeconfig", s.kubeconfig_path, *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for args in (("events", "--watch"), ("get", "events", "-w"))]
    outs: list[queue.Queue] = [queue.Queue(), queue.Queue()]
    for p, q in zip(procs, outs):
        threading.Thread(target=lambda p=p, q=q: [q.put(ln) for ln in p.stdout], daemon=True).start()
    seen: list[list[str]] = [[], []]

    def saw(i: int, text: str) -> bool:
        while not outs[i].empty():
            seen[i].append(outs[i].get())
        return any(text in ln for ln in seen[i])

    try:
        assert _until(lambda: saw(0, "LAST SEEN") and saw(1, "LAST SEEN"), 20), seen
        with s.lock:
            c.client.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late"},
                                     "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}, "default")
        for i in (0, 1):
            assert _until(lambda: saw(i, "Successfully assigned default/late to n1"), 20), seen
        line = next(ln for ln in seen[0] if "default/late" in ln)
        assert line.split()[0].endswith("s"), line  # LAST SEEN in seconds, not "454d"
        assert _until(lambda: s.kubectl("get", "pod", "late").stdout.count("Running") == 1, 20)
        r = s.kubectl("describe", "pod", "late")
        events = r.stdout.split("Events:")[1]
        row = next(ln for ln in events.splitlines() if "Scheduled" in ln)
        age = row.split()[2]
        assert age.endswith("s") and int(age[:-1]) < 60, row
        start = next(ln for ln in r.stdout.splitlines() if ln.startswith("Start Time:"))
        assert c.epoch.strftime("%d %b %Y") in start, start  # the wall-clock day, not 2025-08-27
    finally:
        for p in procs:
            p.kill()
            p.wait(timeout=10)
        s.stop()


_API = """apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - {name: c, image: "nginx:1.27", ports: [{containerPort: 80}], env: [{name: A, value: "1"}]}
"""


def test_kubectl_apply_edit_apply_diff_and_server_side_apply(kubectl_required, tmp_path):
    """Client-side apply twice (a strategic merge patch with $setElementOrder), diff (a dry-run patch),
    server-side apply with a conflict after kubectl scale, and fieldValidation=Strict's refusal."""
    s = serve(_running_cluster(), port=0, time_scale=0)
    f = tmp_path / "api.yaml"
    try:
        f.write_text(_API)
        r = s.kubectl("apply", "-f", str(f))
        assert (r.returncode, r.stdout.strip()) == (0, "deployment.apps/api created"), r.stderr
        s.run_for(30)
        f.write_text(_API.replace("nginx:1.27", "nginx:1.28"))
        r = s.kubectl("diff", "-f", str(f))
        assert r.returncode == 1, r.stderr  # 1: differences found
        changed = [ln for ln in r.stdout.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
        assert [ln.split() for ln in changed if "image:" in ln] == [["-", "image:", "nginx:1.27"],
                                                                  ["+", "image:", "nginx:1.28"]], r.stdout
        assert not any("resourceVersion" in ln for ln in changed), r.stdout
        r = s.kubectl("apply", "-f", str(f))
        assert (r.returncode, r.stdout.strip()) == (0, "deployment.apps/api configured"), r.stderr
        c = s.cluster.get("deployments", "api", "default")["spec"]["template"]["spec"]["containers"][0]
        assert (c["image"], c["ports"][0]["containerPort"], c["env"]) == ("nginx:1.28", 80, [{"name": "A",
                                                                                             "value": "1"}])
        s.run_for(120)
        r = s.kubectl("rollout", "status", "deploy/api", "--timeout=10s")
        assert 'deployment "api" successfully rolled out' in r.stdout, r.stderr
        r = s.kubectl("diff", "-f", str(f))
        assert (r.returncode, r.stdout) == (0, ""), r.stderr
        # server-side apply: kubectl scale then re-apply -> conflict with the scale subresource's manager
        r = s.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(f))
        assert r.stdout.strip() == "deployment.apps/api serverside-applied", r.stderr
        assert s.kubectl("scale", "deploy/api", "--replicas=4").returncode == 0
        r = s.kubectl("apply", "--server-side", "-f", str(f))
        assert r.returncode == 1
        assert ('Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: '
                '.spec.replicas') in r.stderr, r.stderr
        # fieldValidation=Strict (kubectl's default) refuses a misspelt field; nothing is written
        f.write_text(_API.replace("  replicas: 2", "  replicas: 2\n  replicass: 3"))
        r = s.kubectl("apply", "-f", str(f))
        assert r.returncode == 1 and 'strict decoding error: unknown field "spec.replicass"' in r.stderr, r.stderr
        r = s.kubectl("apply", "--validate=warn", "-f", str(f))
        assert r.returncode == 0 and 'Warning: unknown field "spec.replicass"' in r.stderr, r.stderr
    finally:
        s.stop()
