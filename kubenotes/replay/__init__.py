"""Replay production traces through scheduling policies (Weng et al., *Beware of Fragmentation*, ATC '23).

* :mod:`kubenotes.replay.policies`: the policies as out-of-tree Score plugins
  (``LeastAllocated``, ``MostAllocated``, ``BalancedAllocation``, ``Random``,
  ``DotProd``, ``GpuClustering``, ``GpuPacking``, ``BestFit``, ``FGD``).
* :mod:`kubenotes.replay.engine`: the paper's experiment (shuffle, inflation
  to 130% of GPU capacity, one-by-one placement, allocation and
  fragmentation curves) on numpy arrays.
* :mod:`kubenotes.replay.cache`: replays computed once per policy, variant and
  seed, and the cluster at any point of a replay (kept checkpoints).
* :mod:`kubenotes.replay.explain`: FGD's decision for one pod, in numbers.
* :mod:`kubenotes.replay.cli`: ``python -m kubenotes replay``.
* :mod:`kubenotes.replay.sample`: Alibaba's trace when it is found, else the synthetic
  sample in ``data/replay/`` (chapter 04.04 always runs).
"""

from kubenotes.replay.engine import (
    DEFAULT_SEEDS,
    DEFAULT_TUNING_RATIO,
    PAPER_ALLOCATION_PERCENT,
    ClusterState,
    ReplayResult,
    UnknownPolicy,
    replay,
    replay_seeds,
    workload_order,
)
from kubenotes.replay.policies import POLICY_NAMES, PAPER_POLICY_NAMES, TypicalPods, registry, typical_pods

__all__ = [
    "DEFAULT_SEEDS",
    "DEFAULT_TUNING_RATIO",
    "PAPER_ALLOCATION_PERCENT",
    "POLICY_NAMES",
    "PAPER_POLICY_NAMES",
    "ClusterState",
    "ReplayResult",
    "TypicalPods",
    "UnknownPolicy",
    "registry",
    "replay",
    "replay_seeds",
    "typical_pods",
    "workload_order",
]
