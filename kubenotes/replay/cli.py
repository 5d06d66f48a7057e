"""``python -m kubenotes replay``: the *Beware of Fragmentation* experiment from the command line.

Replays the Alibaba GPU trace (:mod:`kubenotes.datasets.alibaba`) with one or
every policy of :mod:`kubenotes.replay.policies`, over several seeds, and
prints per policy the mean GPU allocation ratio at 100% and 130% arrived
workload and the mean fragmentation rate at 90% arrived workload::

    python -m kubenotes replay --trace DIR [--pods openb_pod_list_default.csv]
        [--policy NAME|all] [--seeds 10] [--tuning-ratio 1.3]
        [--tie-break name|random] [-o table|json]

``-o json`` prints exactly::

    {"pods": FILE, "seeds": N, "policies": {NAME: {"allocationPercent": {"100": x, "130": y},
                                                   "fragmentationPercent": {"90": z}}}}

Definitions (the simulator's analysis scripts): the arrived workload is the
GPU requested by the pods arrived so far, in percent of the cluster's GPU
capacity, rounded to a whole percent; the allocation ratio is the GPU
assigned to pods, in percent of capacity (the paper's figure 9a); the
fragmentation rate is the expected fragmented GPU in percent of the idle GPU
(figure 7b). Each value is the mean over the events in that arrived-workload
bucket, then the mean over seeds 42, 43, ... (the paper's ten runs use 42-51).
The 90% point sits where the fragmentation-rate curves of figure 7b are far
apart, before every policy saturates near 100% (past about 95% arrived); in
the published runs FGD is at about 50% there and the other policies at
roughly 70-97%.

A progress bar goes to stderr. Bad input (missing directory or file,
unknown policy, malformed CSV row, bad option value) prints one line on
stderr and exits with status 2.

References
----------
hkust-adsl/kubernetes-scheduler-simulator experiments/analysis/merge_alloc_discrete_0920.py, merge_frag_ratio_discrete_0928.py
hkust-adsl/kubernetes-scheduler-simulator experiments/plot/plot_openb_alloc.py, plot_openb_frag_ratio.py
Q. Weng et al., "Beware of Fragmentation", USENIX ATC 2023, figures 7 and 9.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["ALLOCATION_POINTS", "FRAGMENTATION_POINTS", "register", "run", "summarize"]

#: Arrived-workload percentages at which allocation is reported.
ALLOCATION_POINTS = (100, 130)
#: Arrived-workload percentages at which the fragmentation rate is reported.
FRAGMENTATION_POINTS = (90,)


def _usage_error(message: str):
    from kubenotes.errors import KubenotesError

    return KubenotesError(f"kubenotes replay: {message}")


def summarize(results: dict[str, list[Any]]) -> dict[str, dict[str, dict[str, float | None]]]:
    """Mean over seeds of each policy's reported points.

    Parameters
    ----------
    results : dict[str, list[ReplayResult]]
        Policy name -> one result per seed.

    Returns
    -------
    dict[str, dict[str, dict[str, float]]]
        policy -> ``allocationPercent``/``fragmentationPercent`` -> arrived
        percentage (as a string) -> mean percent over the seeds that have
        events near that percentage, rounded to 2 decimals (None when no seed
        has: e.g. a small workload that never reaches 130%).

    Examples
    --------
    >>> import numpy as np
    >>> from kubenotes.replay.engine import ReplayResult
    >>> r = ReplayResult("X", 42, "p.csv", 1000, np.arange(3), np.array([0, 0, -1]), [[], [], []],
    ...                  np.array([900, 1000, 1300]), np.array([900, 950, 950]), np.array([10.0, 5.0, 5.0]))
    >>> summarize({"X": [r]})
    {'X': {'allocationPercent': {'100': 95.0, '130': 95.0}, 'fragmentationPercent': {'90': 10.0}}}
    """
    import numpy as np

    def mean(runs: list[Any], metric: str, x: int) -> float | None:
        v = [r.at(metric, x) for r in runs]
        v = [a for a in v if a == a]
        return round(float(np.mean(v)), 2) if v else None

    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for name, runs in results.items():
        alloc = {str(x): mean(runs, "allocation", x) for x in ALLOCATION_POINTS}
        frag = {str(x): mean(runs, "fragmentation", x) for x in FRAGMENTATION_POINTS}
        out[name] = {"allocationPercent": alloc, "fragmentationPercent": frag}
    return out


def run(trace_dir: str | None, pods: str, policies: list[str], seeds: list[int], *, tuning_ratio: float = 1.3,
        tie_break: str = "name", progress: bool = True) -> dict[str, list[Any]]:
    """Replay ``policies`` x ``seeds`` on a trace.

    Parameters
    ----------
    trace_dir : str or None
        Trace directory (None: ``$KUBENOTES_ALIBABA_TRACE``).
    pods : str
        Pod list file name.
    policies : list[str]
    seeds : list[int]
    tuning_ratio : float
    tie_break : {"name", "random"}
    progress : bool
        Show a tqdm bar on stderr.

    Returns
    -------
    dict[str, list[ReplayResult]]

    Raises
    ------
    TraceNotFound, TraceFormatError
        On a missing or malformed trace.
    UnknownPolicy
        On a policy name that does not exist.
    """
    from tqdm import tqdm

    from kubenotes.datasets.alibaba import load_arrays
    from kubenotes.replay.engine import UnknownPolicy, pod_requests, replay
    from kubenotes.replay.policies import POLICY_NAMES, typical_pods

    for name in policies:
        if name not in POLICY_NAMES:
            raise UnknownPolicy(name)
    trace = load_arrays(trace_dir, pods)
    typical = typical_pods(trace)
    requests = pod_requests(trace)
    out: dict[str, list[Any]] = {}
    with tqdm(total=len(policies) * len(seeds), desc="replay", unit="run", file=sys.stderr,
              disable=not progress, leave=False) as bar:
        for name in policies:
            runs = []
            for seed in seeds:
                bar.set_postfix_str(f"{name} seed {seed}")
                runs.append(replay(trace, name, seed=seed, tuning_ratio=tuning_ratio, tie_break=tie_break,
                                   typical=typical, requests=requests))
                bar.update(1)
            out[name] = runs
    return out


def _table(pods: str, seeds: list[int], summary: dict[str, dict[str, dict[str, float]]]) -> str:
    cols = [f"ALLOC@{x}%" for x in ALLOCATION_POINTS] + [f"FRAG@{x}%" for x in FRAGMENTATION_POINTS]
    lines = [f"# {pods}, {len(seeds)} seed(s) {seeds[0]}-{seeds[-1]}, mean over seeds; "
             "ALLOC = allocated GPU / capacity, FRAG = fragmented / idle GPU, at arrived workload x% of capacity",
             f"{'POLICY':<20}" + "".join(f"{c:>12}" for c in cols)]
    for name, v in summary.items():
        vals = [v["allocationPercent"][str(x)] for x in ALLOCATION_POINTS] + \
               [v["fragmentationPercent"][str(x)] for x in FRAGMENTATION_POINTS]
        lines.append(f"{name:<20}" + "".join(f"{x:>12.2f}" if x is not None else f"{'-':>12}" for x in vals))
    return "\n".join(lines)


def _cmd(args: argparse.Namespace) -> int:
    from kubenotes.replay.engine import UnknownPolicy
    from kubenotes.replay.policies import POLICY_NAMES

    try:
        n = int(args.seeds)
    except ValueError:
        raise _usage_error(f'--seeds: invalid integer "{args.seeds}"') from None
    if n < 1:
        raise _usage_error(f"--seeds: {n} must be at least 1")
    try:
        ratio = float(args.tuning_ratio)
    except ValueError:
        raise _usage_error(f'--tuning-ratio: invalid number "{args.tuning_ratio}"') from None
    if args.tie_break not in ("name", "random"):
        raise _usage_error(f'--tie-break: "{args.tie_break}" is not one of name, random')
    if args.output not in ("table", "json"):
        raise _usage_error(f'-o: "{args.output}" is not one of table, json')
    if args.policy == "all":
        policies = list(POLICY_NAMES)
    else:
        policies = [p.strip() for p in args.policy.split(",") if p.strip()]
        for p in policies:
            if p not in POLICY_NAMES:
                raise UnknownPolicy(p)
    try:
        start = int(args.seed_start)
    except ValueError:
        raise _usage_error(f'--seed-start: invalid integer "{args.seed_start}"') from None
    seeds = list(range(start, start + n))
    results = run(args.trace, args.pods, policies, seeds, tuning_ratio=ratio, tie_break=args.tie_break,
                  progress=not args.no_progress)
    summary = summarize(results)
    if args.output == "json":
        print(json.dumps({"pods": args.pods, "seeds": n, "policies": summary}))
    else:
        print(_table(args.pods, seeds, summary))
    return 0


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` subcommand.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``ArgumentParser.add_subparsers``.

    Returns
    -------
    argparse.ArgumentParser
        The ``replay`` parser (``func`` set to the command).

    Examples
    --------
    >>> p = argparse.ArgumentParser(); sub = p.add_subparsers()
    >>> a = register(sub).parse_args(["--policy", "FGD", "-o", "json"])
    >>> a.policy, a.seeds, a.output, a.pods
    ('FGD', '10', 'json', 'openb_pod_list_default.csv')
    """
    from kubenotes.datasets.alibaba import DEFAULT_PODS_FILE, ENV_VAR

    p = subparsers.add_parser(
        "replay",
        help="replay the Alibaba GPU trace with scheduling policies (Beware of Fragmentation, ATC '23)",
        description="Replay the Alibaba GPU cluster trace 2023 as the paper's simulator does (seeded shuffle, "
                    "inflation to 130%% of GPU capacity, one pod at a time, none leaving) and print, per policy, "
                    "the mean GPU allocation ratio at 100%% and 130%% arrived workload and the fragmentation rate "
                    "at 90%%.",
    )
    p.add_argument("--trace", metavar="DIR", default=None,
                   help=f"directory holding the openb_*.csv files (default ${ENV_VAR})")
    p.add_argument("--pods", metavar="FILE", default=DEFAULT_PODS_FILE,
                   help="pod list inside DIR (default %(default)s)")
    p.add_argument("--policy", metavar="NAME", default="all",
                   help="policy name, comma-separated names, or all (default %(default)s)")
    p.add_argument("--seeds", metavar="N", default="10", help="number of seeds (default %(default)s)")
    p.add_argument("--seed-start", metavar="S", default="42", help="first seed (default %(default)s)")
    p.add_argument("--tuning-ratio", metavar="R", default="1.3",
                   help="inflate the workload to R x GPU capacity (default %(default)s)")
    p.add_argument("--tie-break", metavar="MODE", default="name",
                   help="name (the simulator: first node by seeded name order) or random (upstream)")
    p.add_argument("-o", "--output", metavar="FORMAT", default="table", help="table or json (default %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=_cmd)
    return p
