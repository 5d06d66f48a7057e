"""``schedule -o table`` and ``-o summary`` run the untraced scheduler; their decisions equal the traced path's.

The workload is benchmarks/schedule_at_scale.py's generator at a small size:
ReplicaSet pods (PodTopologySpread's system defaults), zone node affinity,
hostname anti-affinity, four PriorityClasses and running low-priority pods
that the last pods preempt.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib

import pytest

import kubenotes.scheduler.schedule_one as so
from kubenotes.cli import main
from kubenotes.scheduler import cli

_BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "schedule_at_scale.py"


def _generator():
    spec = importlib.util.spec_from_file_location("schedule_at_scale", _BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.cluster_manifests


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A 30-node cluster with 400 pending pods (and an unschedulable and a gated one) as a JSON v1 List."""
    docs = _generator()(30, 400, seed=3, overcommit=0.02)
    docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "huge", "namespace": "default"},
                 "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "64"}}}]}})
    docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gated", "namespace": "default"},
                 "spec": {"schedulingGates": [{"name": "example.com/wait"}], "containers": [{"name": "c", "image": "x"}]}})
    f = tmp_path_factory.mktemp("fast") / "mixed.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    return str(f)


_TRACED: dict[str, list] = {}


def _traced(path: str) -> list:
    """The traced scheduler's attempts on ``path`` (computed once per module)."""
    if path not in _TRACED:
        _TRACED[path] = cli.run_schedule([path], trace=True)[1]
    return _TRACED[path]


def _run(capsys, *argv):
    rc = main(["schedule", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _spy_trace(monkeypatch):
    seen = []
    real = so.new_scheduler

    def spy(*a, **kw):
        seen.append(kw.get("trace", True))
        return real(*a, **kw)

    monkeypatch.setattr(so, "new_scheduler", spy)
    return seen


def test_table_takes_the_untraced_path_with_the_traced_paths_rows(capsys, monkeypatch, mixed):
    """``-o table`` runs trace=False and prints exactly the rows the traced scheduler gives."""
    seen = _spy_trace(monkeypatch)
    rc, fast, err = _run(capsys, mixed, "-o", "table")
    assert seen == [False]
    traces = _traced(mixed)
    assert fast == cli.format_table(traces) + "\n"
    assert rc == 1 and err == ""  # "huge" fits nowhere
    assert sum(1 for t in traces if t.victims) > 0, "the workload preempts"
    assert any(t.node_name is None and t.attempt for t in traces)
    assert "gated" in fast and "huge" in fast


def test_json_and_kss_keep_the_traced_path(capsys, monkeypatch, mixed):
    """``-o json`` (and ``-o kss``) still build per-plugin results, with the same bindings as the table."""
    seen = _spy_trace(monkeypatch)
    _rc, out, _err = _run(capsys, mixed, "-o", "json")
    assert seen == [True]
    pods = json.loads(out)["pods"]
    assert any(p["filter"] for p in pods) and any(p["score"] for p in pods)
    _sched, fast = cli.run_schedule([mixed], trace=False)
    assert [(p["namespace"], p["name"], p["nodeName"], p["nominatedNodeName"], p["victims"], p["message"])
            for p in pods] == [(t.namespace, t.name, t.node_name, t.nominated_node_name, t.victims, t.message)
                               for t in fast]
    assert all(not t.filter and not t.score for t in fast)
    _rc, _out, _err = _run(capsys, mixed, "-o", "kss")
    assert seen == [True, False, True]


def test_summary_counts_agree_with_the_table(capsys, mixed):
    """``-o summary`` totals equal the per-pod table's final rows; reasons lose their node counts."""
    rc, out, err = _run(capsys, mixed, "-o", "summary", "--top", "3")
    assert rc == 1 and err == ""
    traces = _traced(mixed)
    final = {t.key: t for t in traces}
    blocks = out.rstrip("\n").split("\n\n")
    head = blocks[0].splitlines()
    assert head[0].split() == ["PODS", "SCHEDULED", "UNSCHEDULABLE", "GATED", "ATTEMPTS", "PREEMPTING", "VICTIMS"]
    scheduled = sum(1 for t in final.values() if t.node_name)
    gated = sum(1 for t in final.values() if not t.attempt)
    assert head[1].split() == [str(len(final)), str(scheduled), str(len(final) - scheduled - gated), str(gated),
                               str(sum(1 for t in traces if t.attempt)), str(sum(1 for t in traces if t.victims)),
                               str(sum(len(t.victims) for t in traces))]
    reasons = blocks[1].splitlines()
    assert reasons[0].split() == ["UNSCHEDULABLE", "REASON"]
    assert any(r.split(None, 1)[1] == "Insufficient cpu" for r in reasons[1:])
    nodes = blocks[2].splitlines()
    assert nodes[0].split() == ["NODE", "PODS"] and len(nodes) == 4
    counts = {}
    for t in final.values():
        if t.node_name:
            counts[t.node_name] = counts.get(t.node_name, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert [line.split() for line in nodes[1:]] == [[n, str(c)] for n, c in top]


@pytest.mark.parametrize("message,want", [
    ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}. "
     "no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
     ["Insufficient cpu", "node(s) had untolerated taint {dedicated: gpu}"]),
    ("0/5 nodes are available: 5 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.",
     ["node(s) had untolerated taint {node.kubernetes.io/not-ready: }"]),
    ("skip schedule deleting pod: default/p", ["skip schedule deleting pod: default/p"]),
])
def test_reasons_drop_node_counts(message, want):
    assert cli._reasons(message) == want
