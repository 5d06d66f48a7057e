"""Tests for kubenotes.datasets.alibaba: the Alibaba GPU trace as lightkube objects and arrays."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from lightkube.resources.core_v1 import Node, Pod

from kubenotes.datasets import alibaba as ab
from kubenotes.errors import KubenotesError
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

REPO = Path(__file__).resolve().parents[2]


def _trace_dir() -> Path:
    env = os.environ.get(ab.ENV_VAR)
    p = Path(env) if env else REPO.parent / "shared" / "data" / "alibaba-gpu-2023"
    if not p.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"Alibaba trace missing at {p} (required in CI)")
        pytest.skip(f"Alibaba trace not found at {p}; set {ab.ENV_VAR} to run these tests")
    return p


@pytest.fixture(scope="module")
def trace_dir() -> Path:
    return _trace_dir()


def _write(tmp: Path, name: str, text: str) -> Path:
    (tmp / name).write_text(text)
    return tmp


NODES_CSV = "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,8000,32768,0,\n"
PODS_CSV = ("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
            "p0,12000,16384,1,1000,,LS,Running,0,1,0\n"
            "p1,6000,12288,1,460,V100M16|V100M32,LS,Running,0,1,0\n"
            "p2,4000,0,0,0,,BE,Failed,0,1,0\n"
            "p3,32000,65536,8,1000,,LS,Running,0,1,0\n")


# ---------------------------------------------------------------------------
# real trace


def test_gpu_nodes_match_the_readme_summary(trace_dir):
    nodes = ab.load_nodes(trace_dir)
    assert len(nodes) == 1213 and all(isinstance(n, Node) for n in nodes)
    gpus = sum(int(n.status.allocatable[ab.GPU_COUNT]) for n in nodes)
    assert gpus == 6212
    cpu = sum(int(n.status.allocatable["cpu"][:-1]) for n in nodes)
    assert cpu == 107_018_000
    models = {}
    for n in nodes:
        m = n.metadata.labels[ab.GPU_MODEL]
        models[m] = models.get(m, 0) + int(n.status.allocatable[ab.GPU_COUNT])
    assert models == {"G2": 4392, "T4": 842, "G3": 312, "P100": 265, "V100M32": 204, "V100M16": 195, "A10": 2}
    first = nodes[0]
    assert first.metadata.name == "openb-node-0000"
    assert first.status.capacity == {"cpu": "64000m", "memory": "262144Mi", "pods": "1001",
                                     ab.GPU_COUNT: "2", ab.GPU_MILLI: "2000"}


def test_all_nodes_include_cpu_only_nodes(trace_dir):
    nodes = ab.load_nodes(trace_dir, gpu_only=False)
    assert len(nodes) == 1523
    cpu_only = [n for n in nodes if ab.GPU_COUNT not in n.status.allocatable]
    assert len(cpu_only) == 310
    assert all(ab.GPU_MODEL not in n.metadata.labels for n in cpu_only)


def test_default_pods_match_the_readme_summary(trace_dir):
    pods = ab.load_pods(trace_dir)
    assert len(pods) == 8152 and all(isinstance(p, Pod) for p in pods)
    kinds = {"cpu": 0, "share": 0, "whole": 0}
    for p in pods:
        num, milli, models = ab.pod_gpu_request(p)
        assert models == ()
        kinds["cpu" if num == 0 else ("share" if milli < 1000 else "whole")] += 1
    assert kinds == {"cpu": 1088, "share": 3078, "whole": 3986}
    p = pods[1]
    assert p.metadata.namespace == ab.NAMESPACE
    assert p.metadata.annotations == {ab.GPU_MILLI: "460", ab.GPU_COUNT: "1"}
    assert p.spec.containers[0].resources.requests == {"cpu": "6000m", "memory": "12288Mi", ab.GPU_MILLI: "460"}
    assert p.spec.containers[0].resources.limits == p.spec.containers[0].resources.requests


def test_gpuspec_becomes_annotation_and_required_node_affinity(trace_dir):
    pods = ab.load_pods(trace_dir, "openb_pod_list_gpuspec33.csv")
    constrained = [p for p in pods if ab.GPU_MODEL in (p.metadata.annotations or {})]
    assert len(constrained) == 2388
    p = constrained[0]
    models = p.metadata.annotations[ab.GPU_MODEL].split("|")
    term = p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
    expr = term.matchExpressions[0]
    assert (expr.key, expr.operator, expr.values) == (ab.GPU_MODEL, "In", models)


def test_arrays_from_csv_equal_arrays_from_objects(trace_dir):
    direct = ab.load_arrays(trace_dir, "openb_pod_list_gpuspec33.csv")
    via = ab.trace_arrays(ab.load_nodes(trace_dir), ab.load_pods(trace_dir, "openb_pod_list_gpuspec33.csv"))
    for f in ("node_milli_cpu", "node_memory_bytes", "node_gpu_count", "node_model", "pod_milli_cpu",
              "pod_memory_bytes", "pod_num_gpu", "pod_gpu_milli", "pod_allowed_models"):
        assert np.array_equal(getattr(direct, f), getattr(via, f)), f
    assert direct.models == via.models and direct.pod_names == via.pod_names
    assert direct.total_gpu_milli == 6_212_000
    assert int(direct.pod_total_gpu_milli.sum()) > 0
    # a pod restricted to some models is allowed exactly those
    i = next(k for k, s in enumerate(direct.pod_gpu_spec) if s)
    allowed = {direct.models[m] for m in np.flatnonzero(direct.pod_allowed_models[i])}
    assert allowed == set(direct.pod_gpu_spec[i].split("|"))


@pytest.mark.parametrize("pods", ["openb_pod_list_default.csv", "openb_pod_list_cpu050.csv",
                                  "openb_pod_list_gpushare100.csv", "openb_pod_list_multigpu50.csv"])
def test_every_shipped_pod_list_loads(trace_dir, pods):
    t = ab.load_arrays(trace_dir, pods)
    assert t.num_pods > 7000 and t.pods_file == pods
    assert ((t.pod_num_gpu == 0) == (t.pod_gpu_milli == 0)).all()


def test_env_var_locates_the_trace(trace_dir, monkeypatch):
    monkeypatch.setenv(ab.ENV_VAR, str(trace_dir))
    assert ab.trace_dir() == trace_dir
    assert len(ab.load_arrays().pod_names) == 8152


def test_objects_feed_the_scheduler_records(trace_dir):
    node = ab.load_nodes(trace_dir)[0]
    pod = ab.load_pods(trace_dir)[1]
    ni = NodeInfo(node)
    assert ni.allocatable.milli_cpu == 64000 and ni.allocatable.scalar_resources[ab.GPU_COUNT] == 2
    pi = PodInfo(pod)
    assert pi.requests.milli_cpu == 6000 and pi.requests.scalar_resources[ab.GPU_MILLI] == 460
    ni.add_pod(pi)
    assert ni.requested.scalar_resources[ab.GPU_MILLI] == 460


# ---------------------------------------------------------------------------
# synthetic files and errors


def test_synthetic_files_round_trip(tmp_path):
    _write(tmp_path, "nodes.csv", NODES_CSV)
    _write(tmp_path, "pods.csv", PODS_CSV)
    nodes = ab.load_nodes(tmp_path, gpu_only=False, nodes="nodes.csv")
    assert [n.metadata.name for n in nodes] == ["n0", "n1"]
    assert ab.load_nodes(tmp_path, nodes="nodes.csv")[0].metadata.name == "n0"
    pods = ab.load_pods(tmp_path, "pods.csv")
    assert [ab.pod_gpu_request(p) for p in pods] == [(1, 1000, ()), (1, 460, ("V100M16", "V100M32")),
                                                     (0, 0, ()), (8, 1000, ())]
    assert pods[2].metadata.annotations is None
    assert pods[2].spec.containers[0].resources.requests == {"cpu": "4000m", "memory": "0Mi"}
    assert pods[3].spec.containers[0].resources.requests[ab.GPU_MILLI] == "8000"
    t = ab.load_arrays(tmp_path, "pods.csv", gpu_only=False, nodes="nodes.csv")
    assert t.node_model.tolist() == [0, -1]
    assert t.models == ["P100", "V100M16", "V100M32"]
    assert t.pod_allowed_models.tolist() == [[True] * 3, [False, True, True], [True] * 3, [True] * 3]


def test_bound_pod_carries_gpu_index():
    p = ab.pod_object(ab.PodRow("p", 1000, 10, 2, 1000), node_name="n0", gpu_index=[0, 3])
    assert p.spec.nodeName == "n0" and p.metadata.annotations[ab.GPU_INDEX] == "0-3"


@pytest.mark.parametrize("row, message", [
    ("p,1000,10,x,0", 'pods.csv row 2: num_gpu: invalid integer "x"'),
    ("p,1000,10,1,", 'pods.csv row 2: gpu_milli: invalid integer ""'),
    ("p,-5,10,0,0", "pods.csv row 2: cpu_milli: -5 must be at least 0"),
    ("p,1000,10,1,1500", "pods.csv row 2: gpu_milli: 1500 must be between 0 and 1000"),
    ("p,1000,10,0,300", "pods.csv row 2: gpu_milli: 300 for a pod with num_gpu 0"),
    ("p,1000,10,1,0", "pods.csv row 2: gpu_milli: 0 for a pod with num_gpu 1"),
    ("p,1000,10,2,500", "pods.csv row 2: gpu_milli: 500 asks for part of each of 2 GPUs (only single-GPU pods may share a GPU)"),
    (",1000,10,0,0", "pods.csv row 2: name: empty pod name"),
])
def test_malformed_pod_row_names_file_and_row(tmp_path, row, message):
    _write(tmp_path, "pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nok,1000,10,0,0\n" + row + "\n")
    with pytest.raises(ab.TraceFormatError) as ei:
        ab.load_pods(tmp_path, "pods.csv")
    assert str(ei.value) == message
    assert isinstance(ei.value, KubenotesError) and ei.value.row == 2 and ei.value.source == "pods.csv"


@pytest.mark.parametrize("text, message", [
    ("sn,cpu_milli,memory_mib,gpu,model\nn,64000,1,2,\n", "nodes.csv row 1: model: empty for a node with 2 GPUs"),
    ("sn,cpu_milli,memory_mib,gpu,model\nn,lots,1,2,T4\n", 'nodes.csv row 1: cpu_milli: invalid integer "lots"'),
    ("sn,cpu_milli,memory_mib,model\nn,1,1,T4\n", 'nodes.csv header: missing column "gpu"'),
])
def test_malformed_node_file(tmp_path, text, message):
    _write(tmp_path, "nodes.csv", text)
    with pytest.raises(ab.TraceFormatError, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$"):
        ab.load_nodes(tmp_path, nodes="nodes.csv")


def test_missing_directory_file_and_env(tmp_path, monkeypatch):
    monkeypatch.delenv(ab.ENV_VAR, raising=False)
    monkeypatch.setattr(ab, "_TRACE_FOLDER", ("no-such-folder",))
    with pytest.raises(ab.TraceNotFound, match="KUBENOTES_ALIBABA_TRACE is not set and .*no-such-folder has no"):
        ab.load_nodes()
    with pytest.raises(ab.TraceNotFound, match="trace directory not found"):
        ab.load_pods(tmp_path / "nope")
    with pytest.raises(ab.TraceNotFound, match="trace file not found: .*openb_pod_list_default.csv"):
        ab.load_pods(tmp_path)
