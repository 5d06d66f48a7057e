"""The synthetic trace sample in data/replay/: what the generator writes, the real schema, and the fallback."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from kubenotes.datasets.alibaba import ENV_VAR, load_arrays, load_nodes, load_pods
from kubenotes.replay.cache import TRACE_VARIANTS, cached_replay
from kubenotes.replay.sample import TRACE_URL, sample_trace_dir, trace_or_sample

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "replay" / "alibaba-gpu-2023-sample"
#: The headers of the real files (cluster-trace-gpu-v2023/csv, see ../shared/data/alibaba-gpu-2023/README.md).
POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"
HEADERS = {
    "openb_node_list_all_node.csv": "sn,cpu_milli,memory_mib,gpu,model",
    "openb_node_list_gpu_node.csv": "sn,cpu_milli,memory_mib,gpu,model",
    "openb_pod_list_default.csv": POD_HEADER,
    "openb_pod_list_gpushare100.csv": POD_HEADER,
    "openb_pod_list_gpuspec33.csv": POD_HEADER,
    "openb_pod_list_cpu050.csv": POD_HEADER,
    "openb_pod_list_multigpu50.csv": "name,cpu_milli,memory_mib,num_gpu,gpu_milli",
}


def _generator():
    spec = importlib.util.spec_from_file_location("gen_alibaba_sample", ROOT / "tools" / "gen_alibaba_sample.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_sample_is_the_generators_output():
    files = _generator().generate()
    assert sorted(files) == sorted(p.name for p in SAMPLE.glob("*.csv"))
    for name, text in files.items():
        assert (SAMPLE / name).read_text() == text, name


def test_sample_has_the_real_schema_and_is_small():
    for name, header in HEADERS.items():
        assert (SAMPLE / name).read_text().splitlines()[0] == header, name
    assert sum(p.stat().st_size for p in SAMPLE.iterdir()) < 40_000


def test_generator_check_mode_catches_a_changed_file(tmp_path):
    gen = _generator()
    assert gen.main(["--out", str(tmp_path)]) == 0
    assert gen.main(["--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "openb_pod_list_default.csv").write_text(POD_HEADER + "\n")
    assert gen.main(["--out", str(tmp_path), "--check"]) == 1


def test_every_variant_loads_and_replays():
    for variant, name in TRACE_VARIANTS.items():
        t = load_arrays(SAMPLE, name)
        assert t.num_pods > 30 and t.num_nodes == 63
    assert len(load_nodes(SAMPLE, gpu_only=False)) == 75 and len(load_pods(SAMPLE)) == 64
    r = cached_replay("FGD", "default", 42, SAMPLE)
    assert r.at("allocation", 90) == r.at("allocation", 90)  # a number, not NaN: the sample fills every bucket
    assert r.at("fragmentation", 90) == r.at("fragmentation", 90) and 0 < r.at("allocation", 130) <= 100


def test_fallback_to_the_sample_when_the_trace_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    src = trace_or_sample()
    assert src.synthetic and src.path == sample_trace_dir() == SAMPLE
    assert src.note.startswith("SYNTHETIC SAMPLE, not the Alibaba trace:") and str(tmp_path) in src.note
    assert TRACE_URL in src.note and "../shared/data/alibaba-gpu-2023" in src.note and ENV_VAR in src.note


def test_the_real_trace_wins_when_found(monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(SAMPLE))  # any folder with the trace's files counts as "the trace"
    src = trace_or_sample()
    assert not src.synthetic and src.path == SAMPLE and "SYNTHETIC" not in src.note
    assert trace_or_sample(SAMPLE).synthetic is False
    with pytest.raises(Exception, match="trace directory not found"):
        trace_or_sample(ROOT / "no-such-trace")
