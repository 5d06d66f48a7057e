"""The ``kubenotes`` command line, run as a user runs it: ``python -m kubenotes ...`` in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"

POD = """apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: nginx
    image: docker.io/library/nginx:1.27.3
    resources:
      requests: {cpu: 500m, memory: 256Mi}
"""


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "kubenotes", *args], input=stdin, capture_output=True,
                          text=True, cwd=cwd or ROOT, env=env, timeout=120)


def assert_one_line_error(r: subprocess.CompletedProcess, expected: str) -> None:
    assert r.returncode == 2, r.stderr
    assert r.stderr == expected + "\n"
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_help_lists_the_commands():
    r = run("--help")
    assert r.returncode == 0
    for cmd in ("validate", "schedule", "replay"):
        assert cmd in r.stdout


def test_no_command_is_a_usage_error():
    r = run()
    assert r.returncode == 2 and "usage: kubenotes" in r.stderr and "Traceback" not in r.stderr


def test_validate_help():
    r = run("validate", "--help")
    assert r.returncode == 0 and "PATH" in r.stdout and "--no-defaults" in r.stdout


def test_validate_prints_one_line_per_object(tmp_path):
    (tmp_path / "pod.yaml").write_text(POD)
    r = run("validate", "pod.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "pod.yaml doc 1 Pod default/web: requests cpu=500m memory=256Mi, qos Burstable, priority 0, pending",
        "1 objects valid (1 Pod)",
    ]
    assert r.stderr == ""


def test_validate_sample_directory_summaries():
    r = run("validate", "data/cluster")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert ("data/cluster/nodes.yaml doc 1 Node worker-a-1: zone us-central1-a, allocatable cpu=7910m "
            "memory=29027352Ki ephemeral-storage=91287864Ki pods=110") in lines
    assert ("data/cluster/nodes.yaml doc 1 Node gpu-a-1: zone us-central1-a, allocatable cpu=47810m "
            "memory=336817052Ki ephemeral-storage=182750904Ki pods=110 nvidia.com/gpu=4, "
            "taints dedicated=gpu:NoSchedule") in lines
    assert ("data/cluster/running-pods.yaml doc 1 Pod data/postgres-0: requests cpu=2 memory=8Gi, qos Burstable, "
            "priority 1000 (default-priority), node worker-a-1") in lines
    assert "data/cluster/priorityclasses.yaml doc 2 PriorityClass ml-training: value 10000, preemptionPolicy Never" in lines
    assert lines[-1].startswith(f"{len(lines) - 1} objects valid (")


def test_validate_stdin_kind_list_and_quiet():
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + POD.replace("name: web", f"name: web-{i}").replace("\n", "\n  ").rstrip() + "\n" for i in range(3))
    r = run("validate", "-", stdin=text)
    assert r.returncode == 0, r.stderr
    assert [line.split(":")[0] for line in r.stdout.splitlines()[:3]] == [
        "<stdin> doc 1 Pod default/web-0", "<stdin> doc 1 Pod default/web-1", "<stdin> doc 1 Pod default/web-2"]
    r = run("validate", "-q", "-", stdin=text)
    assert r.stdout == "3 objects valid (3 Pod)\n"


def test_validate_scheduler_config():
    r = run("validate", "data/scheduling/scheduler-config.yaml")
    assert r.stdout.splitlines()[0] == \
        "data/scheduling/scheduler-config.yaml doc 1 KubeSchedulerConfiguration: profiles default-scheduler"


@pytest.mark.parametrize(("files", "args", "expected"), [
    pytest.param({}, ["nope.yaml"], "nope.yaml: no such file", id="missing-file"),
    pytest.param({"pods.yaml": "# two pods\n" + POD + "---\n" + POD.replace("500m", "lots")}, ["pods.yaml"],
                 'pods.yaml doc 2 Pod default/web: spec.containers[0].resources.requests.cpu: invalid quantity "lots"',
                 id="bad-quantity"),
    pytest.param({"d/a.yaml": POD, "d/b.yaml": POD}, ["d"],
                 'd/b.yaml doc 1 Pod default/web: pods "web" already exists (first in d/a.yaml doc 1)',
                 id="duplicate-in-directory"),
    pytest.param({"x.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web\n"}, ["x.yaml"],
                 "x.yaml doc 1: yaml: line 4, column 1: did not find expected ',' or '}'", id="yaml-syntax"),
    pytest.param({"x.yaml": POD.replace("containers:", "priorityClassName: gold\n  containers:")}, ["x.yaml"],
                 # upstream's Priority admission plugin answers 403 (admission.NewForbidden), as serve does
                 'x.yaml doc 1 Pod default/web: pods "web" is forbidden: no PriorityClass with name gold was found',
                 id="priority-admission"),
])
def test_validate_errors_are_one_line_exit_2(tmp_path, files, args, expected):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert_one_line_error(run("validate", *args, cwd=tmp_path), expected)


def test_validate_stdin_error():
    assert_one_line_error(run("validate", "-", stdin="apiVersion: v1\nkind: Pod\n"),
                          "<stdin> doc 1 Pod: metadata.name: Required value: name or generateName is required")


def test_no_defaults_skips_admission(tmp_path):
    (tmp_path / "x.yaml").write_text(POD.replace("containers:", "priorityClassName: gold\n  containers:"))
    r = run("validate", "--no-defaults", "x.yaml", cwd=tmp_path)
    assert r.returncode == 0 and "priority 0 (gold)" in r.stdout


def test_placeholder_or_real_subcommands_never_trace():
    for cmd in ("schedule", "replay"):
        r = run(cmd, "--help")
        assert "Traceback" not in r.stderr
        assert r.returncode in (0, 2)
        if r.returncode == 2:
            assert r.stderr == f"kubenotes {cmd}: not available (no module kubenotes.{'scheduler' if cmd == 'schedule' else 'replay'}.cli)\n"


def test_keyboard_interrupt_is_not_a_traceback():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # A shell's background job starts with SIGINT ignored, and Python keeps that: give the child the default.
    p = subprocess.Popen([sys.executable, "-m", "kubenotes", "validate", "-"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)  # let it start, import and block on stdin
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert "Traceback" not in err and err.strip() == "kubenotes: interrupted"


def test_main_in_process_returns_exit_codes(tmp_path, capsys):
    from kubenotes.__main__ import main

    (tmp_path / "pod.yaml").write_text(POD)
    assert main(["validate", "-q", str(tmp_path / "pod.yaml")]) == 0
    assert capsys.readouterr().out == "1 objects valid (1 Pod)\n"
    assert main(["validate", str(tmp_path / "missing.yaml")]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'missing.yaml'}: no such file\n"
