"""Tests for ``python -m kubenotes replay`` (kubenotes.replay.cli)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubenotes.cli import main
from kubenotes.datasets import alibaba as ab
from kubenotes.replay.policies import POLICY_NAMES

REPO = Path(__file__).resolve().parents[2]

NODES = "sn,cpu_milli,memory_mib,gpu,model\n" + "".join(
    f"n{i},{32000 + 8000 * (i % 3)},262144,{(1, 2, 4, 8)[i % 4]},{('T4', 'G2')[i % 2]}\n" for i in range(12))
PODS = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n" + "".join(
    f"p{i:03d},{1000 * (1 + i % 7)},{1024 * (i % 5)},{(0, 1, 1, 1, 2)[i % 5]},"
    f"{(0, 300, 500, 1000, 1000)[i % 5]},\n" for i in range(60))


def _real_trace() -> Path:
    env = os.environ.get(ab.ENV_VAR)
    p = Path(env) if env else REPO.parent / "shared" / "data" / "alibaba-gpu-2023"
    if not p.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"Alibaba trace missing at {p} (required in CI)")
        pytest.skip(f"Alibaba trace not found at {p}; set {ab.ENV_VAR} to run these tests")
    return p


@pytest.fixture
def tiny(tmp_path):
    (tmp_path / ab.GPU_NODES_FILE).write_text(NODES)
    (tmp_path / ab.DEFAULT_PODS_FILE).write_text(PODS)
    return tmp_path


def _one_line_error(capsys, argv, expected):
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.strip() == expected
    return err


def test_json_on_the_real_trace(capsys):
    rc = main(["replay", "--trace", str(_real_trace()), "--policy", "FGD", "--seeds", "1", "-o", "json",
               "--no-progress"])
    out, err = capsys.readouterr()
    assert rc == 0 and err == ""
    doc = json.loads(out)
    assert list(doc) == ["pods", "seeds", "policies"]
    assert doc["pods"] == "openb_pod_list_default.csv" and doc["seeds"] == 1
    fgd = doc["policies"]["FGD"]
    assert fgd == {"allocationPercent": {"100": fgd["allocationPercent"]["100"],
                                         "130": fgd["allocationPercent"]["130"]},
                   "fragmentationPercent": {"90": fgd["fragmentationPercent"]["90"]}}
    assert fgd["allocationPercent"]["130"] == pytest.approx(95.4, abs=0.5)
    assert fgd["allocationPercent"]["100"] == pytest.approx(95.2, abs=0.5)
    assert 30 < fgd["fragmentationPercent"]["90"] < 70


def test_all_policies_as_a_table(tiny, capsys):
    rc = main(["replay", "--trace", str(tiny), "--policy", "all", "--seeds", "2", "--no-progress"])
    out, err = capsys.readouterr()
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("# openb_pod_list_default.csv, 2 seed(s) 42-43")
    assert lines[1].split() == ["POLICY", "ALLOC@100%", "ALLOC@130%", "FRAG@90%"]
    assert [ln.split()[0] for ln in lines[2:]] == list(POLICY_NAMES)
    for ln in lines[2:]:
        assert all(x == "-" or 0 <= float(x) <= 100 for x in ln.split()[1:])


def test_json_lists_every_policy_with_all(tiny, capsys):
    assert main(["replay", "--trace", str(tiny), "--policy", "Random,FGD", "--seeds", "1", "-o", "json",
                 "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["policies"]) == ["Random", "FGD"]


def test_progress_bar_goes_to_stderr(tiny, capsys):
    assert main(["replay", "--trace", str(tiny), "--policy", "BestFit", "--seeds", "1", "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["seeds"] == 1
    assert "replay" in err and "run" in err


def test_env_var_is_the_default_trace(tiny, capsys, monkeypatch):
    monkeypatch.setenv(ab.ENV_VAR, str(tiny))
    assert main(["replay", "--policy", "GpuPacking", "--seeds", "1", "-o", "json", "--no-progress"]) == 0
    assert "GpuPacking" in json.loads(capsys.readouterr().out)["policies"]


def test_missing_directory(capsys, tmp_path):
    _one_line_error(capsys, ["replay", "--trace", str(tmp_path / "nope"), "--policy", "FGD"],
                    f"trace directory not found: {tmp_path / 'nope'}")


def test_no_directory_at_all(capsys, monkeypatch):
    monkeypatch.delenv(ab.ENV_VAR, raising=False)
    monkeypatch.setattr(ab, "_TRACE_FOLDER", ("no-such-folder",))
    rc = main(["replay", "--policy", "FGD"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("Alibaba GPU trace not found: KUBENOTES_ALIBABA_TRACE is not set and ")
    assert "no-such-folder" in err and "research or study use only" in err


def test_unknown_policy_lists_the_valid_ones(tiny, capsys):
    _one_line_error(capsys, ["replay", "--trace", str(tiny), "--policy", "Tetris"],
                    'unknown policy "Tetris": valid policies are ' + ", ".join(POLICY_NAMES))


def test_malformed_csv_row(tiny, capsys):
    lines = PODS.splitlines()
    lines[17] = "p016,4000,1024,x,0,"
    (tiny / ab.DEFAULT_PODS_FILE).write_text("\n".join(lines) + "\n")
    _one_line_error(capsys, ["replay", "--trace", str(tiny), "--policy", "FGD"],
                    'openb_pod_list_default.csv row 17: num_gpu: invalid integer "x"')


def test_missing_pod_file(tiny, capsys):
    _one_line_error(capsys, ["replay", "--trace", str(tiny), "--pods", "nope.csv", "--policy", "FGD"],
                    f"trace file not found: {tiny / 'nope.csv'}")


@pytest.mark.parametrize("args, expected", [
    (["--seeds", "ten"], 'kubenotes replay: --seeds: invalid integer "ten"'),
    (["--seeds", "0"], "kubenotes replay: --seeds: 0 must be at least 1"),
    (["--tuning-ratio", "x"], 'kubenotes replay: --tuning-ratio: invalid number "x"'),
    (["--tie-break", "first"], 'kubenotes replay: --tie-break: "first" is not one of name, random'),
    (["-o", "yaml"], 'kubenotes replay: -o: "yaml" is not one of table, json'),
])
def test_bad_option_values(tiny, capsys, args, expected):
    _one_line_error(capsys, ["replay", "--trace", str(tiny), "--policy", "FGD"] + args, expected)


def test_python_dash_m_entry_point(tiny):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    ok = subprocess.run([sys.executable, "-m", "kubenotes", "replay", "--trace", str(tiny), "--policy", "DotProd",
                         "--seeds", "1", "-o", "json"], capture_output=True, text=True, cwd=REPO, env=env, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["policies"]["DotProd"]["allocationPercent"].keys() == {"100", "130"}
    bad = subprocess.run([sys.executable, "-m", "kubenotes", "replay", "--trace", str(tiny / "x"), "--policy", "FGD"],
                         capture_output=True, text=True, cwd=REPO, env=env, timeout=300)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1
