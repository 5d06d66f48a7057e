"""Write a small SYNTHETIC trace in the schema of Alibaba's GPU cluster trace 2023 ("openb").

Chapter 04.04 replays Alibaba's ``cluster-trace-gpu-v2023`` (Weng et al., USENIX ATC '23). The
project does not ship that trace (its terms allow research or study use; see
``../shared/data/alibaba-gpu-2023/README.md``), so when it is not found the chapter falls back to the
sample this script writes: the same seven CSV files, the same columns in the same order and the same
value conventions, but **invented rows**. Nothing here is read from the real trace: node shapes and
pod shapes are drawn with a seeded ``random.Random`` from the small tables below, whose proportions
only roughly follow the published summary (about 13 % CPU-only pods, 38 % GPU-sharing, the rest
whole-GPU; a few multi-GPU pods; GPU shares 0.25-0.81 of a card).

Files (in ``data/replay/alibaba-gpu-2023-sample/``, a few KB each):

* ``openb_node_list_gpu_node.csv`` (63 GPU nodes, 273 GPUs), ``openb_node_list_all_node.csv`` (the
  same plus 12 CPU-only nodes, numbered from the CPU-only ones as in the real file);
* ``openb_pod_list_default.csv`` (64 pods) and the four variants chapter 04.04 offers, built from it
  the way the real variants were: ``gpushare100`` (every GPU pod shares a card), ``multigpu50`` (about
  half of the GPU demand from multi-GPU pods; only the first five columns, as upstream),
  ``gpuspec33`` (a GPU-model constraint on about a third of the GPU pods) and ``cpu050`` (fewer
  CPU-only pods).

Usage, from the repository root::

    .venv/bin/python tools/gen_alibaba_sample.py            # rewrite the files
    .venv/bin/python tools/gen_alibaba_sample.py --check    # exit 1 if the committed files differ

``tests/replay/test_sample.py`` runs the generator into a temporary folder and compares it with the
committed files byte for byte, and checks the header against the real schema.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

#: The seed of every draw: the same seed, the same files.
SEED = 2023
OUT = Path(__file__).resolve().parents[1] / "data" / "replay" / "alibaba-gpu-2023-sample"

NODE_HEADER = "sn,cpu_milli,memory_mib,gpu,model"
POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"
POD_HEADER_SHORT = "name,cpu_milli,memory_mib,num_gpu,gpu_milli"

#: GPU node shapes: (number of nodes, cpu_milli, memory_mib, GPUs per node, model). Invented; the models
#: are the trace's model names so that ``gpu_spec`` constraints read as in the real files.
GPU_NODE_SHAPES = (
    (18, 96000, 786432, 8, "G2"),
    (6, 96000, 393216, 8, "V100M32"),
    (6, 128000, 786432, 4, "G3"),
    (18, 64000, 262144, 2, "T4"),
    (9, 64000, 262144, 2, "P100"),
    (3, 32000, 131072, 1, "A10"),
    (3, 96000, 393216, 1, "T4"),
)
CPU_NODES = (12, 32000, 262144)
#: Pod kinds and their weights in the default list.
POD_KINDS = (("cpu", 13), ("share", 38), ("whole", 43), ("multi", 6))
CPU_MILLI = (2000, 4000, 6000, 8000, 12000, 16000)
SHARE_MILLI = (250, 320, 470, 470, 500, 650, 810, 810)
MULTI_GPUS = (2, 4, 8)
QOS = (("LS", 57), ("BE", 41), ("Burstable", 2))
PHASES = (("Running", 64), ("Failed", 23), ("Pending", 11), ("Succeeded", 2))
GPU_SPECS = ("G2", "V100M32", "T4|P100", "G2|G3")
#: The span of creation times, in seconds (about 149 days, as the real list).
SPAN_SECONDS = 12_900_000
PODS = 64


def _weighted(rng: random.Random, table) -> str:
    return rng.choices([k for k, _ in table], weights=[w for _, w in table])[0]


def _pod(rng: random.Random, kind: str) -> dict:
    cpu = rng.choice(CPU_MILLI)
    if kind == "cpu":
        num, milli = 0, 0
    elif kind == "share":
        num, milli = 1, rng.choice(SHARE_MILLI)
    elif kind == "whole":
        num, milli = 1, 1000
    else:
        num, milli = rng.choice(MULTI_GPUS), 1000
        cpu *= num // 2
    memory = cpu // 1000 * rng.choice((2048, 4096, 8192))
    return {"cpu_milli": cpu, "memory_mib": memory, "num_gpu": num, "gpu_milli": milli, "gpu_spec": ""}


def _times(rng: random.Random, pods: list[dict]) -> None:
    created = sorted(rng.randrange(SPAN_SECONDS) for _ in pods)
    created[0] = 0  # the real list's times are relative to its earliest creation
    for p, c in zip(pods, created):
        p["qos"] = _weighted(rng, QOS)
        p["pod_phase"] = _weighted(rng, PHASES)
        p["creation_time"] = c
        p["deletion_time"] = c + rng.randrange(600, 2_000_000)
        p["scheduled_time"] = "" if p["pod_phase"] == "Pending" else c + rng.choice((0, 0, 1, 3, 12))


def _pod_lines(pods: list[dict], short: bool = False) -> list[str]:
    lines = [POD_HEADER_SHORT if short else POD_HEADER]
    for i, p in enumerate(pods):
        row = [f"openb-pod-{i:04d}", p["cpu_milli"], p["memory_mib"], p["num_gpu"], p["gpu_milli"]]
        if not short:
            row += [p["gpu_spec"], p["qos"], p["pod_phase"], p["creation_time"], p["deletion_time"], p["scheduled_time"]]
        lines.append(",".join(str(v) for v in row))
    return lines


def generate(seed: int = SEED) -> dict[str, str]:
    """The sample's files: file name -> CSV text (header first, ``\\n`` line ends)."""
    rng = random.Random(seed)
    gpu_nodes = [(cpu, mem, gpu, model) for n, cpu, mem, gpu, model in GPU_NODE_SHAPES for _ in range(n)]
    files = {
        "openb_node_list_gpu_node.csv": [NODE_HEADER] + [
            f"openb-node-{i:04d},{cpu},{mem},{gpu},{model}" for i, (cpu, mem, gpu, model) in enumerate(gpu_nodes)],
        "openb_node_list_all_node.csv": [NODE_HEADER] + [
            f"openb-node-{i:04d},{CPU_NODES[1]},{CPU_NODES[2]},0," for i in range(CPU_NODES[0])] + [
            f"openb-node-{CPU_NODES[0] + i:04d},{cpu},{mem},{gpu},{model}"
            for i, (cpu, mem, gpu, model) in enumerate(gpu_nodes)],
    }
    default = [_pod(rng, _weighted(rng, POD_KINDS)) for _ in range(PODS)]
    _times(rng, default)
    files["openb_pod_list_default.csv"] = _pod_lines(default)

    share = [dict(p, **({"num_gpu": 1, "gpu_milli": rng.choice(SHARE_MILLI)} if p["num_gpu"] else {}))
             for p in default]
    files["openb_pod_list_gpushare100.csv"] = _pod_lines(share)

    multi = [dict(p, **({"num_gpu": rng.choice(MULTI_GPUS), "gpu_milli": 1000} if p["num_gpu"] and rng.random() < 0.2
                        else {})) for p in default]
    files["openb_pod_list_multigpu50.csv"] = _pod_lines(multi, short=True)

    spec = [dict(p, gpu_spec=rng.choice(GPU_SPECS)) if p["num_gpu"] and rng.random() < 0.33 else dict(p)
            for p in default]
    files["openb_pod_list_gpuspec33.csv"] = _pod_lines(spec)

    fewer_cpu = [p for p in default if p["num_gpu"] or rng.random() < 0.35]
    files["openb_pod_list_cpu050.csv"] = _pod_lines(fewer_cpu)
    return {name: "\n".join(lines) + "\n" for name, lines in files.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder to write (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    args = parser.parse_args(argv)
    files = generate(args.seed)
    if args.check:
        stale = [n for n, text in files.items() if not (args.out / n).is_file() or (args.out / n).read_text() != text]
        for n in stale:
            print(f"{args.out / n}: differs from tools/gen_alibaba_sample.py's output", file=sys.stderr)
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for n, text in files.items():
        (args.out / n).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
