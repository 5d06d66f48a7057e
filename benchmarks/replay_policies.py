"""Time the Alibaba-trace replay per policy, and optionally reproduce the paper's table.

Usage::

    python benchmarks/replay_policies.py [--trace DIR] [--pods FILE] [--seeds N] [--policy NAME ...]

With the default ``--seeds 1`` it replays the full default trace (8,152 pods
plus inflation to 130% of the GPU capacity, about 10,800 placements onto
1,213 nodes) once per policy with seed 42 and prints wall-clock seconds and
pods per second (wall clock, and the process's CPU seconds, which stay
meaningful on a busy machine). With ``--seeds 10`` it also prints the mean GPU allocation
ratio at 100% and 130% arrived workload over seeds 42-51 next to the
numbers published with the paper (``experiments/analysis/expected_results/
analysis_allo_discrete.csv`` of hkust-adsl/kubernetes-scheduler-simulator,
mean of the ten seeds), and the fragmentation rate at 90%.

The trace directory defaults to ``$KUBENOTES_ALIBABA_TRACE``, then to
``../shared/data/alibaba-gpu-2023`` next to the repository.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from kubenotes.datasets.alibaba import DEFAULT_PODS_FILE, ENV_VAR, TraceNotFound, default_trace_dir, load_arrays
from kubenotes.replay.engine import PAPER_ALLOCATION_PERCENT, pod_requests, replay
from kubenotes.replay.policies import POLICY_NAMES, typical_pods


def _default_trace() -> str | None:
    try:
        return str(default_trace_dir())
    except TraceNotFound:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=_default_trace())
    ap.add_argument("--pods", default=DEFAULT_PODS_FILE)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--tie-break", default="name", choices=("name", "random"))
    ap.add_argument("--policy", nargs="*", default=list(POLICY_NAMES))
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    trace = load_arrays(args.trace, args.pods)
    typical = typical_pods(trace)
    requests = pod_requests(trace)
    print(f"loaded {trace.num_nodes} nodes, {trace.num_pods} pods from {args.pods} "
          f"in {time.perf_counter() - t0:.2f} s; {len(typical)} typical pod shapes")
    seeds = list(range(42, 42 + args.seeds))
    header = f"{'policy':<20}{'seconds':>9}{'cpu s':>8}{'pods/s':>9}{'events':>8}"
    if args.seeds > 1:
        header += f"{'alloc@100':>11}{'paper':>8}{'alloc@130':>11}{'paper':>8}{'frag@90':>9}"
    print(header)
    for name in args.policy:
        secs, cpu, events, a100, a130, f90 = [], [], 0, [], [], []
        for seed in seeds:
            t, c = time.perf_counter(), time.process_time()
            r = replay(trace, name, seed=seed, tie_break=args.tie_break, typical=typical, requests=requests)
            secs.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            events = len(r.pod_index)
            a100.append(r.at("allocation", 100))
            a130.append(r.at("allocation", 130))
            f90.append(r.at("fragmentation", 90))
        line = f"{name:<20}{np.mean(secs):>9.2f}{np.mean(cpu):>8.2f}{events / np.mean(secs):>9.0f}{events:>8}"
        if args.seeds > 1:
            p100, p130 = PAPER_ALLOCATION_PERCENT.get(name, (float("nan"), float("nan")))
            line += f"{np.mean(a100):>11.2f}{p100:>8.2f}{np.mean(a130):>11.2f}{p130:>8.2f}{np.mean(f90):>9.2f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
