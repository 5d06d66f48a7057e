"""GPU-cluster scheduling policies as out-of-tree Score plugins.

Nine Score plugins, each registered in a :class:`~kubenotes.scheduler.framework.runtime.Registry`
the way a user registers their own plugin (``registry.register(name, new)``,
``new(args, handle)``):

* the three resource strategies of upstream kube-scheduler, applied to cpu,
  memory and the extended resource ``alibabacloud.com/gpu-milli``:
  ``LeastAllocated`` and ``MostAllocated`` (``NodeResourcesFit``'s scoring
  strategies) and ``BalancedAllocation`` (``NodeResourcesBalancedAllocation``);
* the six policies compared in Weng et al., *Beware of Fragmentation* (USENIX
  ATC '23), ported from the paper's simulator: ``Random``, ``DotProd``
  (Tetris), ``GpuClustering``, ``GpuPacking``, ``BestFit`` and ``FGD``
  (Fragmentation Gradient Descent).

Every plugin has two faces that compute the same integer scores:

* the framework face, ``score(state, pod_info, node_info) -> (int, Status)``
  and ``score_extensions()``, reading one :class:`NodeInfo` (the per-card GPU
  state comes from the ``alibabacloud.com/gpu-index`` annotations of the pods
  on the node, as the simulator's Open-Gpu-Share plugin keeps it); it follows
  the simulator's Go code line by line;
* the vectorized face used by :mod:`kubenotes.replay.engine`:
  ``score_nodes(pod, cluster, nodes) -> numpy.ndarray`` over many nodes of a
  :class:`~kubenotes.replay.engine.ClusterState`, ``normalize_scores`` and
  ``select_gpus`` (which cards of the chosen node a pod gets; the simulator's
  ``gpuSelMethod``).

A test checks that both faces agree on random cluster states.

The fragmentation measure
-------------------------
For a node with ``cpu`` millicores left, cards with ``L_1..L_G`` thousandths
of a GPU left and a card model, and a *target workload* of typical pod shapes
``p`` with popularity ``f_p`` (:func:`typical_pods`), the expected
fragmentation is ``F = sum_p f_p * F_p`` where ``F_p`` is all the idle GPU
``T = sum_i L_i`` when ``p`` cannot run on the node (it asks for no GPU, or
its model is not the node's, or CPU or GPU is short), and otherwise only the
idle GPU on cards too small for it, ``sum_{L_i < gpu_milli_p} L_i``.
Equivalently ``F = T - sum_{p fits} f_p * sum_{L_i >= gpu_milli_p} L_i``;
:class:`Fragmentation` evaluates that form with a precomputed table, for
thousands of node states at once. FGD scores a placement by how much it lowers
``F``: ``int(100 * sigmoid((F_before - F_after) / 1000))``.

Notes
-----
* The paper's simulator runs kube-scheduler v1.20 with every default Score
  plugin disabled (``NodeResourcesLeastAllocated`` and
  ``NodeResourcesBalancedAllocation`` included), one policy plugin with weight
  1000, ``percentageOfNodesToScore: 100`` and ties broken uniformly at random
  (``selectHost``). The three upstream strategies are therefore *not* part of
  the paper's comparison; here they use the v1.34 arithmetic with resources
  ``cpu``, ``memory`` and ``alibabacloud.com/gpu-milli`` at weight 1, and
  best-fit GPU selection (the simulator's default ``gpuSelMethod``).
* GPU selection, per the paper's run scripts: ``Random`` picks a random card
  that fits, ``FGD`` the card whose use lowers fragmentation most, every other
  policy the best-fit card (the fullest card that still fits). Whole-GPU pods
  always take the lowest-numbered free cards.
* CPU requests in the simulator's ``PodResource`` use the scheduler's non-zero
  defaults; every trace pod requests CPU, so plain requests are used.

References
----------
hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/{random_score,dot_product_score,gpu_clustering_score,gpu_packing_score,best_fit_score,fgd_score,open_gpu_share,plugin_utils}.go
hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go (NodeGpuShareFragAmount, GetTypicalPods), pkg/utils/utils.go
hkust-adsl/kubernetes-scheduler-simulator pkg/type/resource.go (NodeResource.Sub, AllocateExclusiveGpuId)
hkust-adsl/kubernetes-scheduler-simulator scripts/generate_config_and_run.py, experiments/run_scripts/generate_run_scripts.py
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/{least_allocated,most_allocated,balanced_allocation,resource_allocation}.go
Q. Weng et al., "Beware of Fragmentation", USENIX ATC 2023, sections 4-5.

Examples
--------
>>> reg = registry()
>>> sorted(reg) == sorted(POLICY_NAMES)
True
>>> reg["GpuPacking"](None, None).name()
'GpuPacking'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Sequence

import numpy as np

from kubenotes.datasets.alibaba import GPU_COUNT, GPU_INDEX, GPU_MODEL, MILLI_PER_GPU
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore, Status

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.datasets.alibaba import TraceArrays
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo


class ClusterView(Protocol):
    """What a policy reads of the replayed cluster (:class:`~kubenotes.replay.engine.ClusterState` is one).

    Arrays have one entry per node (``(n,)``), ``gpu_left`` one per card
    (``(n, max_cards)``, milli-GPUs); defined here so that the policies do not
    import the engine that imports them.
    """

    rng: np.random.Generator
    models: list[str]
    max_cards: int
    milli_cpu_capacity: np.ndarray
    milli_cpu_left: np.ndarray
    memory_capacity: np.ndarray
    memory_left: np.ndarray
    gpu_count: np.ndarray
    all_nodes_have_gpus: bool
    gpu_left: np.ndarray
    total_gpu_left: np.ndarray
    free_cards: np.ndarray
    affinity_tags: dict[str, int]
    affinity: np.ndarray
    affinity_kinds: np.ndarray
    states: Any
    state_id: np.ndarray

__all__ = [
    "POLICY_NAMES",
    "PAPER_POLICY_NAMES",
    "MAX_SPEC_MILLI_CPU",
    "MAX_SPEC_GPU_MILLI",
    "PodRequest",
    "NodeView",
    "TypicalPods",
    "Fragmentation",
    "typical_pods",
    "pod_request",
    "node_view",
    "frag_amount",
    "LeastAllocated",
    "MostAllocated",
    "BalancedAllocation",
    "Random",
    "DotProd",
    "GpuClustering",
    "GpuPacking",
    "BestFit",
    "FGD",
    "registry",
]

#: Every policy, in the order tables list them.
POLICY_NAMES = ("LeastAllocated", "MostAllocated", "BalancedAllocation",
                "Random", "DotProd", "GpuClustering", "GpuPacking", "BestFit", "FGD")
#: The six policies of the paper's figures 7 and 9.
PAPER_POLICY_NAMES = ("Random", "DotProd", "GpuClustering", "GpuPacking", "BestFit", "FGD")
#: The simulator's normalisation constants (``MaxSpecCpu``, ``MaxSpecGpu``): 128 vCPU, 8 GPUs.
MAX_SPEC_MILLI_CPU = 128000
MAX_SPEC_GPU_MILLI = 8000

_SHARE_TAG = "share-gpu"
_NO_GPU_TAG = "no-gpu"


# ---------------------------------------------------------------------------
# records


@dataclass(frozen=True, slots=True)
class PodRequest:
    """What a policy needs to know about the pod being placed.

    Attributes
    ----------
    milli_cpu : int
        CPU request, millicores.
    memory_bytes : int
        Memory request, bytes.
    num_gpu : int
        GPUs requested (0: CPU-only pod).
    gpu_milli : int
        Share of each GPU, thousandths (1-1000; 0 for a CPU-only pod).
    gpu_type : str
        Allowed card models, ``|``-separated (``""``: any).
    allowed_models : numpy.ndarray of bool, optional
        Shape ``(M + 1,)``: entry ``m`` says whether model ``m`` of the
        cluster's model list is allowed, the last entry (index -1) is for
        nodes without GPUs. Only the engine's filter reads it.
    """

    milli_cpu: int
    memory_bytes: int
    num_gpu: int
    gpu_milli: int
    gpu_type: str = ""
    allowed_models: Any = None

    @property
    def total_gpu_milli(self) -> int:
        """``num_gpu * gpu_milli``."""
        return self.num_gpu * self.gpu_milli

    @property
    def is_gpu_share(self) -> bool:
        """A single-GPU pod asking for part of a card (``PodResource.IsGpuShare``)."""
        return self.num_gpu == 1 and self.gpu_milli < MILLI_PER_GPU

    @property
    def affinity_tag(self) -> str:
        """``no-gpu``, ``share-gpu`` or ``<n>-gpu`` (``GetGpuAffinityFromPodAnnotation``)."""
        if self.num_gpu == 0:
            return _NO_GPU_TAG
        return _SHARE_TAG if self.is_gpu_share else f"{self.num_gpu}-gpu"

    @property
    def key(self) -> tuple[int, int, int]:
        """``(milli_cpu, gpu_milli, num_gpu)``: everything FGD's score depends on."""
        return (self.milli_cpu, self.gpu_milli, self.num_gpu)


@dataclass(slots=True)
class NodeView:
    """One node as the simulator's ``NodeResource`` sees it.

    Attributes
    ----------
    name : str
    milli_cpu_left, milli_cpu_capacity : int
        Millicores free and allocatable.
    memory_left, memory_capacity : int
        Bytes free and allocatable.
    gpu_left : list[int]
        Thousandths of a GPU free on each card, in card order.
    model : str
        Card model (``""`` without GPUs).
    affinity : dict[str, int]
        Count of pods on the node per affinity tag (``share-gpu``, ``2-gpu``...).
    """

    name: str
    milli_cpu_left: int
    milli_cpu_capacity: int
    memory_left: int
    memory_capacity: int
    gpu_left: list[int]
    model: str
    affinity: dict[str, int] = field(default_factory=dict)

    @property
    def gpu_count(self) -> int:
        """Number of cards."""
        return len(self.gpu_left)

    @property
    def total_gpu_left(self) -> int:
        """Thousandths of a GPU free on the node."""
        return sum(self.gpu_left)

    @property
    def free_cards(self) -> int:
        """Cards with nothing on them (``GetFullyFreeGpuNum``)."""
        return sum(1 for x in self.gpu_left if x == MILLI_PER_GPU)


def pod_request(pod_info: "PodInfo") -> PodRequest:
    """The :class:`PodRequest` of a framework pod.

    Parameters
    ----------
    pod_info : PodInfo

    Returns
    -------
    PodRequest

    Raises
    ------
    TraceError
        When a GPU annotation is not an integer.
    """
    from kubenotes.datasets.alibaba import pod_gpu_request

    num, milli, models = pod_gpu_request(pod_info.pod)
    return PodRequest(pod_info.requests.milli_cpu, pod_info.requests.memory_bytes, num, milli, "|".join(models))


def node_view(node_info: "NodeInfo") -> NodeView:
    """The :class:`NodeView` of a framework node, rebuilt from its pods' GPU annotations.

    Parameters
    ----------
    node_info : NodeInfo

    Returns
    -------
    NodeView

    Raises
    ------
    TraceError
        When a pod's ``alibabacloud.com/gpu-index`` names a card the node does not have.

    Notes
    -----
    The simulator keeps the per-card state in a node annotation written by its
    Reserve; kubenotes derives it from each pod's ``gpu-index`` annotation,
    which carries the same information.
    """
    from kubenotes.datasets.alibaba import TraceError, pod_gpu_request

    alloc = node_info.allocatable
    count = int(alloc.scalar_resources.get(GPU_COUNT, 0))
    left = [MILLI_PER_GPU] * count
    affinity: dict[str, int] = {}
    for p in node_info.pods:
        num, milli, _ = pod_gpu_request(p.pod)
        if num == 0:
            continue
        tag = _SHARE_TAG if (num == 1 and milli < MILLI_PER_GPU) else f"{num}-gpu"
        affinity[tag] = affinity.get(tag, 0) + 1
        idx = (p.pod.metadata.annotations or {}).get(GPU_INDEX, "")
        for s in idx.split("-") if idx else ():
            i = int(s)
            if not 0 <= i < count:
                raise TraceError(f"pod {p.key}: {GPU_INDEX} {idx!r} names a card node {node_info.name} does not have")
            left[i] -= milli
    model = node_info.labels.get(GPU_MODEL, "") if count > 0 else ""
    return NodeView(node_info.name, alloc.milli_cpu - node_info.requested.milli_cpu, alloc.milli_cpu,
                    alloc.memory_bytes - node_info.requested.memory_bytes, alloc.memory_bytes, left, model, affinity)


# ---------------------------------------------------------------------------
# typical pods and fragmentation


@dataclass
class TypicalPods:
    """The target workload's pod shapes and their popularity (``simontype.TargetPodList``).

    Attributes
    ----------
    milli_cpu, gpu_milli, num_gpu : numpy.ndarray of int64, shape (K,)
        Shape of each typical pod (``gpu_milli`` per GPU).
    gpu_type : list[str]
        Allowed models, ``|``-separated (``""``: any).
    percentage : numpy.ndarray of float64, shape (K,)
        Popularity, summing to 1.

    Examples
    --------
    >>> t = TypicalPods.from_args([{"milliCpu": 4000, "milliGpu": 500, "gpuNumber": 1, "percentage": 1.0}])
    >>> t.to_args()
    [{'milliCpu': 4000, 'milliGpu': 500, 'gpuNumber': 1, 'gpuType': '', 'percentage': 1.0}]
    """

    milli_cpu: np.ndarray
    gpu_milli: np.ndarray
    num_gpu: np.ndarray
    gpu_type: list[str]
    percentage: np.ndarray

    def __len__(self) -> int:
        return len(self.gpu_type)

    def to_args(self) -> list[dict[str, Any]]:
        """As a ``pluginConfig`` list (camelCase keys)."""
        return [{"milliCpu": int(c), "milliGpu": int(g), "gpuNumber": int(n), "gpuType": t, "percentage": float(f)}
                for c, g, n, t, f in zip(self.milli_cpu, self.gpu_milli, self.num_gpu, self.gpu_type, self.percentage)]

    @classmethod
    def from_args(cls, items: Sequence[Mapping[str, Any]]) -> "TypicalPods":
        """From a ``pluginConfig`` list (see :meth:`to_args`)."""
        return cls(np.array([int(x["milliCpu"]) for x in items], dtype=np.int64),
                   np.array([int(x.get("milliGpu", 0)) for x in items], dtype=np.int64),
                   np.array([int(x.get("gpuNumber", 0)) for x in items], dtype=np.int64),
                   [str(x.get("gpuType", "")) for x in items],
                   np.array([float(x["percentage"]) for x in items], dtype=np.float64))


def typical_pods(trace: "TraceArrays", *, popularity_threshold_percent: int = 95, include_cpu_pods: bool = True,
                 increase_step: int = 1, pods: Sequence[int] | None = None) -> TypicalPods:
    """The most popular pod shapes of a workload (``utils.GetTypicalPods``).

    Pod shapes ``(milli_cpu, gpu_milli, num_gpu, gpu_spec)`` are counted, sorted
    by decreasing count (ties: larger shape first), and the most popular ones
    are kept until they cover ``popularity_threshold_percent`` of the pods;
    their counts are then renormalised to sum to 1.

    Parameters
    ----------
    trace : TraceArrays
    popularity_threshold_percent : int
        The paper's runs use 95.
    include_cpu_pods : bool
        Count CPU-only pods (the paper's runs do).
    increase_step : int
        Shapes added per round (the paper's runs use 1).
    pods : sequence of int, optional
        Pod indices forming the workload; default every pod of the list (the
        simulator uses the original workload, before inflation).

    Returns
    -------
    TypicalPods
        The kept shapes, most popular first, with their renormalised shares
        (``percentage``, summing to 1); empty for an empty workload.

    Raises
    ------
    IndexError
        An index in ``pods`` is out of range.

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go (GetTypicalPods); scripts/generate_config_and_run.py (typicalPodsConfig)

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow, TraceArrays
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")],
    ...                           [PodRow("a", 1000, 1024, 1, 500), PodRow("b", 1000, 1024, 1, 500),
    ...                            PodRow("c", 4000, 1024, 0, 0)])
    >>> [(d["milliCpu"], d["milliGpu"], round(d["percentage"], 3)) for d in typical_pods(t).to_args()]
    [(1000, 500, 0.667), (4000, 0, 0.333)]
    >>> typical_pods(t, popularity_threshold_percent=50).to_args()[0]["percentage"]
    1.0
    """
    idx = range(trace.num_pods) if pods is None else pods
    counts: dict[tuple[int, int, int, str], float] = {}
    total = 0.0
    for i in idx:
        num = int(trace.pod_num_gpu[i])
        if not include_cpu_pods and num == 0:
            continue
        k = (int(trace.pod_milli_cpu[i]), int(trace.pod_gpu_milli[i]), num, trace.pod_gpu_spec[i])
        counts[k] = counts.get(k, 0.0) + 1.0
        total += 1.0
    # sort.Reverse(TargetPodList): larger count first, ties broken by the larger PodResource.
    items = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    expected = popularity_threshold_percent * total / 100.0
    i, n, cum = 0, 0, 0.0
    step = increase_step if increase_step > 0 else 10
    while cum < expected:
        n += step
        while i < n and i < len(items):
            cum += items[i][1]
            i += 1
        if i >= len(items):
            break
    chosen = items[:i]
    if i >= len(items):
        pct = [c / total for _, c in chosen]
    else:
        pct = [(c / total) / (cum / total) for _, c in chosen]
    return TypicalPods(np.array([k[0] for k, _ in chosen], dtype=np.int64),
                       np.array([k[1] for k, _ in chosen], dtype=np.int64),
                       np.array([k[2] for k, _ in chosen], dtype=np.int64),
                       [k[3] for k, _ in chosen], np.array(pct, dtype=np.float64))


def _accessible(node_model: str, pod_type: str) -> bool:
    # utils.IsNodeAccessibleToPodByType
    if not pod_type:
        return True
    if not node_model:
        return False
    names = [t for t in pod_type.split("|") if t]
    return node_model in names if names else True


def frag_amount(view: NodeView, typical: TypicalPods) -> float:
    """Expected GPU fragmentation of one node, thousandths of a GPU (``NodeGpuShareFragAmount``, all but Q3).

    A literal port of the simulator, one typical pod at a time; the
    vectorized :class:`Fragmentation` computes the same value.

    Parameters
    ----------
    view : NodeView
    typical : TypicalPods

    Returns
    -------
    float
        ``sum_p f_p * F_p`` (see the module docstring).

    Examples
    --------
    A node with one card 600 free and one 1000 free; half the workload asks
    for 0.5 GPU, half for a whole GPU, both with 2 vCPU: for the 0.5-GPU pods
    nothing is stranded, for whole-GPU pods the 600 are.

    >>> t = TypicalPods.from_args([{"milliCpu": 2000, "milliGpu": 500, "gpuNumber": 1, "percentage": 0.5},
    ...                            {"milliCpu": 2000, "milliGpu": 1000, "gpuNumber": 1, "percentage": 0.5}])
    >>> frag_amount(NodeView("n", 8000, 8000, 0, 0, [600, 1000], "T4"), t)
    300.0
    """
    total = sum(view.gpu_left)
    # FragRatioDataMap order: q1_lack_both, q2_lack_gpu, q3_satisfied, q4_lack_cpu, xl_satisfied, xr_lack_cpu, no_access
    data = [0.0] * 7
    for c, m, n, t, f in zip(typical.milli_cpu, typical.gpu_milli, typical.num_gpu, typical.gpu_type, typical.percentage):
        c, m, n, f = int(c), int(m), int(n), float(f)
        cpu_ok = view.milli_cpu_left >= c
        if m == 0:
            data[4 if cpu_ok else 5] += f * total
            continue
        if not _accessible(view.model, t):
            data[6] += f * total
            continue
        need = n
        fits = False
        for x in view.gpu_left:
            if x >= m:
                need -= 1
                if need <= 0:
                    fits = True
                    break
        if fits and cpu_ok:
            small = sum(x for x in view.gpu_left if x < m)
            data[1] += f * small
            data[2] += f * (total - small)
        elif fits:
            data[3] += f * total
        else:
            data[1 if cpu_ok else 0] += f * total
    return sum(v for i, v in enumerate(data) if i != 2)


class Fragmentation:
    """Vectorized fragmentation of many node states against one target workload.

    Uses ``F = T - sum_k G_k(cpu, count_k, model) * big_k`` where ``k`` runs
    over the distinct GPU shares ``m_k`` of the typical pods, ``count_k`` is
    the number of cards with at least ``m_k`` free, ``big_k`` their free
    total, and ``G_k`` the popularity of typical pods asking ``m_k`` that fit
    a node with that CPU, that many such cards and that model (a table
    computed once).

    Parameters
    ----------
    typical : TypicalPods
    models : sequence of str
        The cluster's card models; node states give a model as an index into
        it (-1: no GPU).
    max_cards : int
        Most cards on one node.

    Examples
    --------
    >>> t = TypicalPods.from_args([{"milliCpu": 2000, "milliGpu": 500, "gpuNumber": 1, "percentage": 0.5},
    ...                            {"milliCpu": 2000, "milliGpu": 1000, "gpuNumber": 1, "percentage": 0.5}])
    >>> fr = Fragmentation(t, ["T4"], max_cards=2)
    >>> fr.amount(np.array([8000, 1000]), np.array([[600, 1000], [600, 1000]]), np.array([0, 0])).tolist()
    [300.0, 1600.0]
    """

    def __init__(self, typical: TypicalPods, models: Sequence[str], max_cards: int = 8):
        self.typical = typical
        self.models = list(models)
        self.max_cards = max(1, int(max_cards))
        gpu = typical.gpu_milli > 0
        self.thresholds = np.unique(typical.gpu_milli[gpu]).astype(np.int64)
        self.cpu_breaks = np.unique(typical.milli_cpu[gpu]).astype(np.int64)
        k_n, b_n, m_n, c_n = len(self.thresholds), len(self.cpu_breaks) + 1, len(self.models) + 1, self.max_cards + 1
        table = np.zeros((k_n, m_n, b_n, c_n), dtype=np.float64)
        for c, m, n, t, f in zip(typical.milli_cpu, typical.gpu_milli, typical.num_gpu, typical.gpu_type,
                                 typical.percentage):
            if m <= 0 or n > self.max_cards:
                continue
            k = int(np.searchsorted(self.thresholds, m))
            b0 = int(np.searchsorted(self.cpu_breaks, c)) + 1
            for mi in range(m_n):
                model = self.models[mi] if mi < len(self.models) else ""
                if _accessible(model, t):
                    table[k, mi, b0:, int(n):] += f
        # model index -1 (no GPU) is stored last so that table[:, -1] works directly
        self.table = table
        #: Sum of the popularities (1 for :func:`typical_pods`): every idle milli-GPU counts this much at most.
        self.share = float(typical.percentage.sum())
        self._k = np.arange(k_n)

    def amount(self, milli_cpu_left: np.ndarray, gpu_left: np.ndarray, model: np.ndarray) -> np.ndarray:
        """Fragmentation of node states, thousandths of a GPU.

        Parameters
        ----------
        milli_cpu_left : numpy.ndarray of int, shape (B,)
        gpu_left : numpy.ndarray of int, shape (B, C)
            Free thousandths per card; cards a node does not have are 0.
        model : numpy.ndarray of int, shape (B,)
            Model index, -1 without GPU.

        Returns
        -------
        numpy.ndarray of float64, shape (B,)
        """
        L = np.asarray(gpu_left)
        total = L.sum(axis=-1) * self.share
        if len(self.thresholds) == 0:
            return total.astype(np.float64)
        ge = L[:, None, :] >= self.thresholds[None, :, None]
        cnt = ge.sum(axis=-1)
        big = np.where(ge, L[:, None, :], 0).sum(axis=-1)
        b = np.searchsorted(self.cpu_breaks, milli_cpu_left, side="right")
        g = self.table[self._k[None, :], np.asarray(model)[:, None], b[:, None], cnt]
        return total - (g * big).sum(axis=-1)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ---------------------------------------------------------------------------
# GPU selection (Open-Gpu-Share's gpuSelMethod)


def _exclusive_cards(gpu_left: Sequence[int], count: int, num: int) -> list[int]:
    # simontype.AllocateExclusiveGpuId: the lowest-numbered fully free cards.
    out = []
    for i in range(count):
        if len(out) >= num:
            break
        if gpu_left[i] == MILLI_PER_GPU:
            out.append(i)
    return out


def _best_fit_cards(gpu_left: Sequence[int], count: int, pod: PodRequest) -> list[int]:
    # allocateGpuIdBasedOnBestFit: the fullest card that still fits (first on ties).
    if pod.num_gpu == 0:
        return []
    if pod.gpu_milli < MILLI_PER_GPU:
        best = -1
        for i in range(count):
            if gpu_left[i] >= pod.gpu_milli and (best < 0 or gpu_left[i] < gpu_left[best]):
                best = i
        return [best] if best >= 0 else []
    return _exclusive_cards(gpu_left, count, pod.num_gpu)


class _Policy:
    """Shared plumbing: name, no ScoreExtensions, best-fit GPU selection."""

    NAME = ""

    def __init__(self, args: Any = None, handle: Any = None):
        self.args = args
        self.handle = handle

    def name(self) -> str:
        """The plugin's name."""
        return self.NAME

    def score_extensions(self):
        """No NormalizeScore."""
        return None

    def normalize_scores(self, scores: np.ndarray) -> np.ndarray:
        """Vectorized NormalizeScore (identity unless the plugin has ScoreExtensions)."""
        return scores

    def select_gpus(self, pod: PodRequest, cluster: "ClusterView", node: int) -> list[int]:
        """Cards of ``node`` the pod gets (best fit; whole GPUs: lowest-numbered free cards).

        Parameters
        ----------
        pod : PodRequest
        cluster : ClusterView
        node : int
            Node index.

        Returns
        -------
        list[int]
            ``num_gpu`` card indices (empty for a CPU-only pod).
        """
        return _best_fit_cards(cluster.gpu_left[node].tolist(), int(cluster.gpu_count[node]), pod)

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Framework Score of one node (the framework face).

        Parameters
        ----------
        state : CycleState
            The cycle's state (only Random reads it).
        pod : PodInfo
            The pod; its GPU demand comes from its annotations.
        node_info : NodeInfo
            The node and its pods; per-card GPU use comes from the pods'
            ``alibabacloud.com/gpu-index`` annotations.

        Returns
        -------
        tuple[int, Status]
            The score (0-100 except BestFit, which NormalizeScore rescales)
            and ``Success``.

        Raises
        ------
        TraceError
            When a GPU annotation is malformed.

        See Also
        --------
        score_nodes : the same scores for many nodes at once.
        """
        return self.node_score(pod_request(pod), node_view(node_info)), Status()

    def node_score(self, pod: PodRequest, node: NodeView) -> int:  # pragma: no cover - abstract
        """The score of ``node`` for ``pod``, a literal port of the simulator's Go code.

        Parameters
        ----------
        pod : PodRequest
        node : NodeView

        Returns
        -------
        int
        """
        raise NotImplementedError

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:  # pragma: no cover
        """The scores of many nodes of a :class:`~kubenotes.replay.engine.ClusterState` at once (the vectorized face).

        Parameters
        ----------
        pod : PodRequest
        cluster : ClusterView
        nodes : numpy.ndarray of int64, shape (F,)
            Indices of the feasible nodes.

        Returns
        -------
        numpy.ndarray of int64, shape (F,)
            Equal to :meth:`score` on each node (before :meth:`normalize_scores`).
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


# ---------------------------------------------------------------------------
# upstream strategies


def _node_requested(node: NodeView) -> tuple[list[int], list[int]]:
    gpu_alloc = node.gpu_count * MILLI_PER_GPU
    return ([node.milli_cpu_capacity, node.memory_capacity, gpu_alloc],
            [node.milli_cpu_capacity - node.milli_cpu_left, node.memory_capacity - node.memory_left,
             gpu_alloc - node.total_gpu_left])


class _ResourceStrategy(_Policy):
    """``resourceAllocationScorer`` over cpu, memory and ``alibabacloud.com/gpu-milli`` (weights 1)."""

    def node_score(self, pod: PodRequest, node: NodeView) -> int:
        alloc, used = _node_requested(node)
        req = [used[0] + pod.milli_cpu, used[1] + pod.memory_bytes, used[2] + pod.total_gpu_milli]
        return self._scorer(req, alloc)

    def _scorer(self, requested: list[int], allocatable: list[int]) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _arrays(pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray):
        alloc = (cluster.milli_cpu_capacity[nodes], cluster.memory_capacity[nodes], cluster.gpu_count[nodes] * MILLI_PER_GPU)
        req = (alloc[0] - cluster.milli_cpu_left[nodes] + pod.milli_cpu,
               alloc[1] - cluster.memory_left[nodes] + pod.memory_bytes,
               alloc[2] - cluster.total_gpu_left[nodes] + pod.total_gpu_milli)
        return req, alloc


class LeastAllocated(_ResourceStrategy):
    """``NodeResourcesFit`` with the ``LeastAllocated`` strategy: favour emptier nodes.

    ``score = sum_r w_r * (alloc_r - req_r) * 100 // alloc_r / sum_r w_r`` over
    resources the node has (cpu, memory, ``alibabacloud.com/gpu-milli``),
    ``req_r`` including the incoming pod.

    Notes
    -----
    Upstream scores cpu and memory by default; GPU milli is added here (weight
    1) so the strategy sees GPUs. Not used in the paper's runs.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/least_allocated.go

    Examples
    --------
    >>> n = NodeView("n", 6000, 8000, 4 << 30, 8 << 30, [1000, 1000], "T4")
    >>> LeastAllocated().node_score(PodRequest(2000, 0, 1, 1000), n)
    50
    """

    NAME = "LeastAllocated"

    def _scorer(self, requested, allocatable):
        score = weights = 0
        for r, a in zip(requested, allocatable):
            if a == 0:
                continue
            score += 0 if r > a else (a - r) * MAX_NODE_SCORE // a
            weights += 1
        return score // weights if weights else 0

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Vectorized :meth:`score` over ``nodes`` (int64 scores)."""
        req, alloc = self._arrays(pod, cluster, nodes)
        if cluster.all_nodes_have_gpus:
            score = sum(np.where(r > a, 0, (a - r) * MAX_NODE_SCORE // a) for r, a in zip(req, alloc))
            return score // 3
        score = np.zeros(len(nodes), dtype=np.int64)
        weights = np.zeros(len(nodes), dtype=np.int64)
        for r, a in zip(req, alloc):
            has = a > 0
            s = np.where(r > a, 0, (a - r) * MAX_NODE_SCORE // np.where(has, a, 1))
            score += np.where(has, s, 0)
            weights += has
        return np.where(weights > 0, score // np.maximum(weights, 1), 0)


class MostAllocated(_ResourceStrategy):
    """``NodeResourcesFit`` with the ``MostAllocated`` strategy: favour fuller nodes (bin packing).

    ``score = sum_r w_r * min(req_r, alloc_r) * 100 // alloc_r / sum_r w_r``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/most_allocated.go

    Examples
    --------
    >>> n = NodeView("n", 6000, 8000, 4 << 30, 8 << 30, [1000, 1000], "T4")
    >>> MostAllocated().node_score(PodRequest(2000, 0, 1, 1000), n)
    50
    """

    NAME = "MostAllocated"

    def _scorer(self, requested, allocatable):
        score = weights = 0
        for r, a in zip(requested, allocatable):
            if a == 0:
                continue
            score += min(r, a) * MAX_NODE_SCORE // a
            weights += 1
        return score // weights if weights else 0

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Vectorized :meth:`score` over ``nodes`` (int64 scores)."""
        req, alloc = self._arrays(pod, cluster, nodes)
        if cluster.all_nodes_have_gpus:
            return sum(np.minimum(r, a) * MAX_NODE_SCORE // a for r, a in zip(req, alloc)) // 3
        score = np.zeros(len(nodes), dtype=np.int64)
        weights = np.zeros(len(nodes), dtype=np.int64)
        for r, a in zip(req, alloc):
            has = a > 0
            score += np.where(has, np.minimum(r, a) * MAX_NODE_SCORE // np.where(has, a, 1), 0)
            weights += has
        return np.where(weights > 0, score // np.maximum(weights, 1), 0)


class BalancedAllocation(_ResourceStrategy):
    """``NodeResourcesBalancedAllocation``: favour nodes whose resource fractions stay equal.

    ``score = int((1 - std(f_r)) * 100)`` with ``f_r = min(req_r / alloc_r, 1)``
    over resources the node has; pods requesting none of them are not scored
    (PreScore ``Skip``: every node gets 0).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go

    Examples
    --------
    >>> n = NodeView("n", 8000, 8000, 8 << 30, 8 << 30, [1000, 1000], "T4")
    >>> BalancedAllocation().node_score(PodRequest(4000, 4 << 30, 1, 1000), n)
    100
    """

    NAME = "BalancedAllocation"

    def node_score(self, pod: PodRequest, node: NodeView) -> int:
        if pod.milli_cpu == 0 and pod.memory_bytes == 0 and pod.total_gpu_milli == 0:
            return 0
        return super().node_score(pod, node)

    def _scorer(self, requested, allocatable):
        fr = []
        total = 0.0
        for r, a in zip(requested, allocatable):
            if a == 0:
                continue
            f = float(r) / float(a)
            if f > 1:
                f = 1.0
            total += f
            fr.append(f)
        std = 0.0
        if len(fr) == 2:
            std = abs((fr[0] - fr[1]) / 2)
        elif len(fr) > 2:
            mean = total / len(fr)
            s = 0.0
            for f in fr:
                s = s + (f - mean) * (f - mean)
            std = math.sqrt(s / len(fr))
        return int((1 - std) * MAX_NODE_SCORE)

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Vectorized :meth:`score` over ``nodes`` (int64 scores)."""
        if pod.milli_cpu == 0 and pod.memory_bytes == 0 and pod.total_gpu_milli == 0:
            return np.zeros(len(nodes), dtype=np.int64)
        req, alloc = self._arrays(pod, cluster, nodes)
        if cluster.all_nodes_have_gpus:
            f = [np.minimum(r / a, 1.0) for r, a in zip(req, alloc)]
            total = f[0] + f[1] + f[2]
            mean = total / 3
            sq = (f[0] - mean) * (f[0] - mean)
            sq = sq + (f[1] - mean) * (f[1] - mean)
            sq = sq + (f[2] - mean) * (f[2] - mean)
            return ((1 - np.sqrt(sq / 3)) * MAX_NODE_SCORE).astype(np.int64)
        fs, has = [], []
        total = np.zeros(len(nodes))
        n = np.zeros(len(nodes), dtype=np.int64)
        for r, a in zip(req, alloc):
            h = a > 0
            f = np.minimum(r.astype(np.float64) / np.where(h, a, 1).astype(np.float64), 1.0)
            f = np.where(h, f, 0.0)
            total = np.where(h, total + f, total)
            fs.append(f)
            has.append(h)
            n += h
        # two resources: |f0 - f1| / 2 over the two present ones
        first = np.where(has[0], fs[0], np.where(has[1], fs[1], fs[2]))
        second = np.where(has[0] & has[1], fs[1], fs[2])
        std2 = np.abs((first - second) / 2)
        mean = total / np.maximum(n, 1)
        s = np.zeros(len(nodes))
        for f, h in zip(fs, has):
            s = np.where(h, s + (f - mean) * (f - mean), s)
        std3 = np.sqrt(s / np.maximum(n, 1))
        std = np.where(n == 2, std2, np.where(n > 2, std3, 0.0))
        return ((1 - std) * MAX_NODE_SCORE).astype(np.int64)


# ---------------------------------------------------------------------------
# the paper's baselines


class Random(_Policy):
    """Random-fit: one feasible node, chosen uniformly at PreScore, gets 100; GPU cards chosen at random.

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/random_score.go, open_gpu_share.go (allocateGpuIdBasedOnRandomFit)

    Examples
    --------
    >>> import random
    >>> from types import SimpleNamespace
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> p = Random(None, SimpleNamespace(rng=random.Random(1)))
    >>> s = CycleState(); _ = p.pre_score(s, None, [SimpleNamespace(name="a"), SimpleNamespace(name="b")])
    >>> sorted(p.score(s, None, SimpleNamespace(name=n))[0] for n in "ab")
    [0, 100]
    """

    NAME = "Random"
    STATE_KEY = "PreScoreRandom"

    def pre_score(self, state: "CycleState", pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        """Pick the winner among ``nodes`` with the handle's seeded ``rng`` (upstream ``rand.Intn``)."""
        if nodes:
            state.write(self.STATE_KEY, nodes[self.handle.rng.randrange(len(nodes))].name)
        return Status()

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """100 for the node picked at PreScore, 0 otherwise."""
        chosen = state.get(self.STATE_KEY)
        if chosen is None:
            return 0, Status.error(f"reading {self.STATE_KEY!r} from cycleState: not found")
        return (MAX_NODE_SCORE if node_info.name == chosen else MIN_NODE_SCORE), Status()

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """100 for one node of ``nodes`` drawn with ``cluster.rng``, 0 for the others."""
        s = np.zeros(len(nodes), dtype=np.int64)
        if len(nodes):
            s[int(cluster.rng.integers(len(nodes)))] = MAX_NODE_SCORE
        return s

    def select_gpus(self, pod: PodRequest, cluster: "ClusterView", node: int) -> list[int]:
        """A uniformly random card that fits (sharing pods); the lowest free cards otherwise."""
        count = int(cluster.gpu_count[node])
        left = cluster.gpu_left[node].tolist()
        if pod.num_gpu == 0:
            return []
        if pod.gpu_milli < MILLI_PER_GPU:
            fit = [i for i in range(count) if left[i] >= pod.gpu_milli]
            return [fit[int(cluster.rng.integers(len(fit)))]] if fit else []
        return _exclusive_cards(left, count, pod.num_gpu)


class DotProd(_Policy):
    """Tetris's dot product, GPU dimensions merged and normalised by the largest node spec.

    ``score = int(100 * (1 - (cpu_free/128000 * cpu_req/128000 + gpu_free/8000 * gpu_req/8000) / 2))``:
    the smaller the alignment between free and requested resources, the
    higher the score (the paper's ``DotProd`` with ``-dimext merge -norm max``).

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/dot_product_score.go, pkg/utils/utils.go (GenerateSchedulingMatchGroups)
    R. Grandl et al., "Multi-resource packing for cluster schedulers" (Tetris), SIGCOMM 2014.

    Examples
    --------
    >>> n = NodeView("n", 64000, 96000, 0, 0, [1000] * 8, "G2")
    >>> DotProd().node_score(PodRequest(8000, 0, 1, 500), n)
    95
    """

    NAME = "DotProd"

    def node_score(self, pod: PodRequest, node: NodeView) -> int:
        if node.milli_cpu_left < pod.milli_cpu:
            return MIN_NODE_SCORE
        n0, n1 = node.milli_cpu_left / MAX_SPEC_MILLI_CPU, node.total_gpu_left / MAX_SPEC_GPU_MILLI
        p0, p1 = pod.milli_cpu / MAX_SPEC_MILLI_CPU, pod.total_gpu_milli / MAX_SPEC_GPU_MILLI
        dot = 0.0
        dot += n0 * p0
        dot += n1 * p1
        return int(float(MAX_NODE_SCORE) * (1 - dot / 2.0))

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Vectorized :meth:`score` over ``nodes`` (int64 scores)."""
        cl = cluster.milli_cpu_left[nodes]
        n0 = cl / MAX_SPEC_MILLI_CPU
        n1 = cluster.total_gpu_left[nodes] / MAX_SPEC_GPU_MILLI
        p0, p1 = pod.milli_cpu / MAX_SPEC_MILLI_CPU, pod.total_gpu_milli / MAX_SPEC_GPU_MILLI
        dot = n0 * p0 + n1 * p1
        s = (float(MAX_NODE_SCORE) * (1 - dot / 2.0)).astype(np.int64)
        return np.where(cl < pod.milli_cpu, MIN_NODE_SCORE, s)


class GpuClustering(_Policy):
    """Keep pods of the same GPU shape together (Gandiva-like affinity).

    ``25 * (8000 - gpu_free) // 8000`` plus 75 on a node holding only pods of
    the pod's shape (``share-gpu``, ``1-gpu``, ``2-gpu``...), 50 on a node
    holding that shape among others, 25 on an empty node, 0 otherwise;
    CPU-only pods score 0 everywhere.

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/gpu_clustering_score.go

    Examples
    --------
    >>> n = NodeView("n", 8000, 8000, 0, 0, [500, 1000], "T4", {"share-gpu": 1})
    >>> GpuClustering().node_score(PodRequest(1000, 0, 1, 300), n), GpuClustering().node_score(PodRequest(1000, 0, 1, 1000), n)
    (95, 20)
    """

    NAME = "GpuClustering"

    def node_score(self, pod: PodRequest, node: NodeView) -> int:
        tag = pod.affinity_tag
        if tag == _NO_GPU_TAG:
            return MIN_NODE_SCORE
        base = MAX_NODE_SCORE // 4 * (MAX_SPEC_GPU_MILLI - node.total_gpu_left) // MAX_SPEC_GPU_MILLI
        tags = {k for k, v in node.affinity.items() if v > 0}
        if node.affinity.get(tag, 0) > 0:
            return base + (MAX_NODE_SCORE * 3 // 4 if len(tags) == 1 else MAX_NODE_SCORE * 2 // 4)
        return base + (MAX_NODE_SCORE // 4 if len(tags) == 0 else 0)

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Vectorized :meth:`score` over ``nodes`` (int64 scores)."""
        tag = pod.affinity_tag
        if tag == _NO_GPU_TAG:
            return np.zeros(len(nodes), dtype=np.int64)
        base = MAX_NODE_SCORE // 4 * (MAX_SPEC_GPU_MILLI - cluster.total_gpu_left[nodes]) // MAX_SPEC_GPU_MILLI
        ntags = cluster.affinity_kinds[nodes]
        col = cluster.affinity_tags.get(tag)
        mine = cluster.affinity[:, col].take(nodes) > 0 if col is not None else np.zeros(len(nodes), dtype=bool)
        bonus = np.where(mine, np.where(ntags == 1, MAX_NODE_SCORE * 3 // 4, MAX_NODE_SCORE * 2 // 4),
                         np.where(ntags == 0, MAX_NODE_SCORE // 4, 0))
        return (base + bonus).astype(np.int64)


class GpuPacking(_Policy):
    """Prefer partly used cards, then free cards on used nodes, then free nodes.

    Case 1 (only partly used cards needed): ``max(100 - sum(free*100//1000)//10, 50)``;
    case 2 (free cards on a used node): ``max(50 - free_cards_used, 33)``;
    case 3 (an untouched node): ``max(33 - free_cards, free_cards)``.
    CPU-only pods score 0 everywhere.

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/gpu_packing_score.go

    Examples
    --------
    >>> n = NodeView("n", 8000, 8000, 0, 0, [500, 1000], "T4", {"share-gpu": 1})
    >>> GpuPacking().node_score(PodRequest(1000, 0, 1, 300), n), GpuPacking().node_score(PodRequest(1000, 0, 1, 1000), n)
    (95, 49)
    """

    NAME = "GpuPacking"

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        self._memo_owner: Any = None
        self._memo: dict[int, np.ndarray] = {}

    def node_score(self, pod: PodRequest, node: NodeView) -> int:
        if pod.gpu_milli <= 0:
            return MIN_NODE_SCORE
        free = node.free_cards
        if free == node.gpu_count:
            return max(MAX_NODE_SCORE // 3 - free, free)
        order = sorted(range(node.gpu_count), key=lambda i: node.gpu_left[i])  # stable, smallest first
        need, free_used, used = pod.num_gpu, 0, []
        for i in order:
            if need == 0:
                break
            if pod.gpu_milli <= node.gpu_left[i]:
                need -= 1
                used.append(i)
                if node.gpu_left[i] == MILLI_PER_GPU:
                    free_used += 1
        if need != 0:
            return MIN_NODE_SCORE
        if free_used > 0:
            return max(MAX_NODE_SCORE // 2 - free_used, MAX_NODE_SCORE // 3)
        ratio = sum(node.gpu_left[i] * 100 // MILLI_PER_GPU for i in used)
        return max(MAX_NODE_SCORE - ratio // 10, MAX_NODE_SCORE // 2)

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Vectorized :meth:`score` over ``nodes`` (int64 scores)."""
        if pod.gpu_milli <= 0:
            return np.zeros(len(nodes), dtype=np.int64)
        free = cluster.free_cards[nodes]
        count = cluster.gpu_count[nodes]
        case3 = np.maximum(MAX_NODE_SCORE // 3 - free, free)
        if pod.gpu_milli >= MILLI_PER_GPU:
            # whole GPUs: only free cards fit, so the used ones are all free
            other = np.maximum(MAX_NODE_SCORE // 2 - pod.num_gpu, MAX_NODE_SCORE // 3)
        else:
            smallest = self._smallest_fit(pod.gpu_milli, cluster, nodes)
            case2 = np.maximum(MAX_NODE_SCORE // 2 - 1, MAX_NODE_SCORE // 3)
            case1 = np.maximum(MAX_NODE_SCORE - (smallest * 100 // MILLI_PER_GPU) // 10, MAX_NODE_SCORE // 2)
            other = np.where(smallest == MILLI_PER_GPU, case2, case1)
        return np.where(free == count, case3, other).astype(np.int64)

    def _smallest_fit(self, gpu_milli: int, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Per node of ``nodes``, the least free GPU among its cards with at least ``gpu_milli`` (int64 max: none).

        Kept per node state (:attr:`ClusterState.states`: the same cards, sorted) and request, as FGD keeps its
        scores: a node's entry changes only when a pod lands on it.
        """
        states = cluster.states
        if self._memo_owner is not states:
            self._memo_owner, self._memo = states, {}
        memo = self._memo.get(gpu_milli)
        if memo is None or len(memo) < states.capacity:
            grown = np.full(states.capacity, -1, dtype=np.int64)
            if memo is not None:
                grown[: len(memo)] = memo
            memo = self._memo[gpu_milli] = grown
        sids = cluster.state_id[nodes]
        vals = memo[sids]
        miss = vals < 0
        if miss.any():
            todo = np.unique(sids[miss])
            rows = states.gpu_left[todo]
            memo[todo] = np.where(rows >= gpu_milli, rows, np.iinfo(np.int64).max).min(axis=1)
            vals = memo[sids]
        return vals


class BestFit(_Policy):
    """Best fit: the node left with the least free CPU and GPU after placement, min-max normalised.

    ``raw = int(100 * (1 - 0.5 * (cpu_free - cpu_req) / 128000 - 0.5 * (gpu_free - gpu_req) / 8000))``,
    then NormalizeScore maps the feasible nodes' raw scores linearly onto
    0-100 (all 0 when they are equal).

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/best_fit_score.go, plugin_utils.go (NormalizeScore)

    Examples
    --------
    >>> n = NodeView("n", 64000, 96000, 0, 0, [1000] * 8, "G2")
    >>> BestFit().node_score(PodRequest(8000, 0, 1, 1000), n)
    34
    >>> BestFit().normalize_scores(np.array([34, 50, 90])).tolist()
    [0, 28, 100]
    """

    NAME = "BestFit"

    def node_score(self, pod: PodRequest, node: NodeView) -> int:
        free = (float(node.milli_cpu_left), float(node.total_gpu_left))
        req = (float(pod.milli_cpu), float(pod.total_gpu_milli))
        score = 0.0
        for f, r, m in zip(free, req, (float(MAX_SPEC_MILLI_CPU), float(MAX_SPEC_GPU_MILLI))):
            if f < r:
                return MIN_NODE_SCORE
            score += (f - r) / m * 0.5
        return int((1.0 - score) * float(MAX_NODE_SCORE))

    def score_extensions(self):
        """NormalizeScore: min-max onto 0-100."""
        return self

    def normalize_score(self, state: "CycleState", pod: "PodInfo", scores: list[NodeScore]) -> Status:
        """Rescale ``scores`` in place (``plugin.NormalizeScore``)."""
        new = self.normalize_scores(np.array([s.score for s in scores], dtype=np.int64))
        for s, v in zip(scores, new.tolist()):
            s.score = v
        return Status()

    def normalize_scores(self, scores: np.ndarray) -> np.ndarray:
        """``(s - lo) * 100 // (hi - lo)``, or all 0 when ``hi == lo``."""
        if len(scores) == 0:
            return scores
        lo, hi = int(scores.min()), int(scores.max())
        if hi == lo:
            return np.full(len(scores), MIN_NODE_SCORE, dtype=np.int64)
        return (scores - lo) * (MAX_NODE_SCORE - MIN_NODE_SCORE) // (hi - lo) + MIN_NODE_SCORE

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Vectorized raw :meth:`score` over ``nodes`` (int64, before :meth:`normalize_scores`)."""
        f0 = cluster.milli_cpu_left[nodes].astype(np.float64)
        f1 = cluster.total_gpu_left[nodes].astype(np.float64)
        r0, r1 = float(pod.milli_cpu), float(pod.total_gpu_milli)
        score = (f0 - r0) / float(MAX_SPEC_MILLI_CPU) * 0.5
        score = score + (f1 - r1) / float(MAX_SPEC_GPU_MILLI) * 0.5
        s = ((1.0 - score) * float(MAX_NODE_SCORE)).astype(np.int64)
        return np.where((f0 < r0) | (f1 < r1), MIN_NODE_SCORE, s)


# ---------------------------------------------------------------------------
# FGD


class FGD(_Policy):
    """Fragmentation Gradient Descent: place the pod where expected GPU fragmentation grows least.

    For each feasible node, ``int(100 * sigmoid((F_before - F_after) / 1000))``
    with ``F`` the node's fragmentation against the typical pods
    (:func:`frag_amount`). A GPU-sharing pod is tried on every card that fits
    and the node keeps its best card's score; that card is the one the pod
    gets (the first one on ties).

    Parameters
    ----------
    args : mapping, optional
        ``{"typicalPods": [...]}`` (see :meth:`TypicalPods.to_args`); the
        replay engine passes the typical pods of the original workload.
    handle : Handle, optional

    Notes
    -----
    The vectorized path caches each node state's score per pod shape
    (``(milli_cpu, gpu_milli, num_gpu)``), since node states and pod shapes
    repeat; a node's cache entry changes only when a pod lands on it.

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/fgd_score.go, pkg/utils/frag.go
    Q. Weng et al., "Beware of Fragmentation", USENIX ATC 2023, section 5 (Algorithm 1).

    Examples
    --------
    A node with one card half used and one free card; the target workload is
    half 0.5-GPU pods and half whole-GPU pods, so the node's fragmentation is
    250 (the half card is useless to the whole-GPU half). A 0.5-GPU pod on
    the half-used card removes that fragment (250 -> 0, score 56); on the free
    card it leaves no whole card (250 -> 500, score 43). FGD picks card 0.

    >>> t = [{"milliCpu": 1000, "milliGpu": 500, "gpuNumber": 1, "percentage": 0.5},
    ...      {"milliCpu": 1000, "milliGpu": 1000, "gpuNumber": 1, "percentage": 0.5}]
    >>> fgd = FGD({"typicalPods": t})
    >>> n = NodeView("n", 8000, 8000, 0, 0, [500, 1000], "T4")
    >>> fgd.card_scores(PodRequest(1000, 0, 1, 500), n)
    {0: 56, 1: 43}
    """

    NAME = "FGD"

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        items = (args or {}).get("typicalPods") if isinstance(args, Mapping) else None
        self.typical = TypicalPods.from_args(items) if items else None
        self._frag: Fragmentation | None = None
        self._frag_key: Any = None
        self._memo_owner: Any = None
        self._memo: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = {}

    # -- framework face -----------------------------------------------------
    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Framework Score (``FGDScorePlugin.Score``)."""
        if self.typical is None:
            return MIN_NODE_SCORE, Status.error("typical pods are not set")
        req = pod_request(pod)
        view = node_view(node_info)
        if not _accessible(view.model, req.gpu_type):
            return MIN_NODE_SCORE, Status.error(f"node ({view.name}) does not match GPU type request of pod")
        return self.node_score(req, view), Status()

    def card_scores(self, pod: PodRequest, node: NodeView) -> dict[int, int]:
        """Score of putting a GPU-sharing pod on each card that fits (``calculateGpuShareFragExtendScore``).

        Parameters
        ----------
        pod : PodRequest
            A GPU-sharing pod.
        node : NodeView

        Returns
        -------
        dict[int, int]
            Card index -> score, for cards with enough free GPU.

        Raises
        ------
        ValueError
            When the pod does not share a GPU or typical pods are not set.
        """
        if self.typical is None or not pod.is_gpu_share:
            raise ValueError("card_scores needs typical pods and a GPU-sharing pod")
        before = frag_amount(node, self.typical)
        out = {}
        for i, x in enumerate(node.gpu_left):
            if x >= pod.gpu_milli:
                left = list(node.gpu_left)
                left[i] -= pod.gpu_milli
                after = frag_amount(NodeView(node.name, node.milli_cpu_left - pod.milli_cpu, node.milli_cpu_capacity,
                                             node.memory_left, node.memory_capacity, left, node.model), self.typical)
                out[i] = int(_sigmoid((before - after) / 1000.0) * float(MAX_NODE_SCORE))
        return out

    def node_score(self, pod: PodRequest, node: NodeView) -> int:
        if self.typical is None:
            raise ValueError("typical pods are not set")
        if pod.is_gpu_share:
            cards = self.card_scores(pod, node)
            best, best_i = 0, -1
            for i, s in cards.items():
                if best_i < 0 or s > best:
                    best, best_i = s, i
            return best
        before = frag_amount(node, self.typical)
        left = list(node.gpu_left)
        if pod.num_gpu > 0:
            # NodeResource.Sub: take the fullest cards that fit, smallest free first
            need = pod.num_gpu
            for i in sorted(range(len(left)), key=lambda j: left[j]):
                if need <= 0:
                    break
                if pod.gpu_milli <= left[i]:
                    left[i] -= pod.gpu_milli
                    need -= 1
        after = frag_amount(NodeView(node.name, node.milli_cpu_left - pod.milli_cpu, node.milli_cpu_capacity,
                                     node.memory_left, node.memory_capacity, left, node.model), self.typical)
        return int(_sigmoid((before - after) / 1000.0) * float(MAX_NODE_SCORE))

    # -- vectorized face ----------------------------------------------------
    def fragmentation(self, cluster: "ClusterView") -> Fragmentation:
        """The :class:`Fragmentation` of this plugin's typical pods over ``cluster``'s models."""
        if self.typical is None:
            raise ValueError("typical pods are not set")
        key = (tuple(cluster.models), cluster.max_cards)
        if self._frag is None or self._frag_key != key:
            self._frag = Fragmentation(self.typical, cluster.models, cluster.max_cards)
            self._frag_key = key
        return self._frag

    def _memo_for(self, pod: PodRequest, cluster: "ClusterView") -> tuple[np.ndarray, np.ndarray]:
        states = cluster.states
        if self._memo_owner is not states:
            self._memo_owner, self._memo = states, {}
        entry = self._memo.get(pod.key)
        cap = states.capacity
        if entry is None or len(entry[0]) < cap:
            score = np.full(cap, -1, dtype=np.int16)
            best = np.zeros(cap, dtype=np.int16)
            if entry is not None:
                score[: len(entry[0])] = entry[0]
                best[: len(entry[1])] = entry[1]
            entry = self._memo[pod.key] = (score, best)
        return entry

    def _state_scores(self, pod: PodRequest, cluster: "ClusterView", sids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scores of node states ``sids`` for ``pod``'s shape, and which card positions reach them.

        Works on the canonical state (cards sorted by free GPU, descending)
        and on per-threshold features: placing the pod changes one card (a
        sharing pod), takes ``num_gpu`` free cards (a whole-GPU pod) or only
        CPU, so the card counts and sums behind :class:`Fragmentation` change
        by simple deltas.

        Returns
        -------
        tuple[numpy.ndarray, numpy.ndarray]
            Scores (int64, shape ``(U,)``) and a bit mask (shape ``(U,)``) of
            the canonical card positions reaching the score (sharing pods).
        """
        st, fr = cluster.states, self.fragmentation(cluster)
        L = st.gpu_left[sids]
        model = st.model[sids][:, None]
        cpu = st.milli_cpu_left[sids]
        kk = fr._k[None, :]
        ge = L[:, :, None] >= fr.thresholds
        cnt = ge.sum(axis=1)
        big = (L[:, :, None] * ge).sum(axis=1)
        total = L.sum(axis=1) * fr.share
        b0 = np.searchsorted(fr.cpu_breaks, cpu, side="right")[:, None]
        b1 = np.searchsorted(fr.cpu_breaks, cpu - pod.milli_cpu, side="right")[:, None]
        before = total - (fr.table[kk, model, b0, cnt] * big).sum(axis=1)
        zero = np.zeros(len(sids), dtype=np.int16)
        if pod.num_gpu == 0:
            after = total - (fr.table[kk, model, b1, cnt] * big).sum(axis=1)
        elif not pod.is_gpu_share:
            # the cards taken are untouched ones: every threshold (<= 1000) counted them
            taken = pod.num_gpu * pod.gpu_milli
            big2 = big - taken
            after = (total - taken * fr.share) - (fr.table[kk, model, b1, cnt - pod.num_gpu] * big2).sum(axis=1)
        else:
            m = pod.gpu_milli
            y = L - m
            ge2 = y[:, :, None] >= fr.thresholds
            cnt2 = cnt[:, None, :] - ge + ge2
            big2 = big[:, None, :] - L[:, :, None] * ge + y[:, :, None] * ge2
            g = fr.table[kk[:, None, :], model[:, :, None], b1[:, :, None], cnt2]
            aft = (total - m * fr.share)[:, None] - (g * big2).sum(axis=2)
            sc = (_sigmoid((before[:, None] - aft) / 1000.0) * float(MAX_NODE_SCORE)).astype(np.int64)
            sc = np.where(L >= m, sc, -1)
            top = sc.max(axis=1)
            bits = ((sc == top[:, None]) * (1 << np.arange(L.shape[1]))).sum(axis=1)
            return top, bits.astype(np.int16)
        return (_sigmoid((before - after) / 1000.0) * float(MAX_NODE_SCORE)).astype(np.int64), zero

    def score_nodes(self, pod: PodRequest, cluster: "ClusterView", nodes: np.ndarray) -> np.ndarray:
        """Vectorized :meth:`score` over ``nodes`` (int64 scores), cached per node state and pod shape."""
        memo, best = self._memo_for(pod, cluster)
        sids = cluster.state_id[nodes]
        vals = memo[sids]
        miss = vals < 0
        if miss.any():
            todo = np.array(sorted(set(sids[miss].tolist())), dtype=np.int64)
            memo[todo], best[todo] = self._state_scores(pod, cluster, todo)
            vals = memo[sids]
        return vals.astype(np.int64)

    def select_gpus(self, pod: PodRequest, cluster: "ClusterView", node: int) -> list[int]:
        """The card lowering fragmentation most (first on ties); whole GPUs: the lowest free cards."""
        count = int(cluster.gpu_count[node])
        left = cluster.gpu_left[node, :count].tolist()
        if pod.num_gpu == 0:
            return []
        if not pod.is_gpu_share:
            return _exclusive_cards(left, count, pod.num_gpu)
        memo, best = self._memo_for(pod, cluster)
        sid = int(cluster.state_id[node])
        if memo[sid] < 0:
            memo[sid:sid + 1], best[sid:sid + 1] = self._state_scores(pod, cluster, np.array([sid]))
        canon = cluster.states.gpu_left[sid]
        bits = int(best[sid]) & 0xFFFF
        good = {int(canon[j]) for j in range(len(canon)) if bits >> j & 1}
        for i, x in enumerate(left):
            if x in good and x >= pod.gpu_milli:
                return [i]
        return []


# ---------------------------------------------------------------------------
# registry

_CLASSES = {c.NAME: c for c in (LeastAllocated, MostAllocated, BalancedAllocation, Random, DotProd,
                                 GpuClustering, GpuPacking, BestFit, FGD)}


def _factory(cls):
    def new(args: Any, handle: Any):
        return cls(args, handle)

    new.__name__ = f"new_{cls.NAME}"
    new.__doc__ = f"Plugin factory of {cls.NAME}: ``new(args, handle)``."
    return new


def registry(into: Any = None):
    """Register every policy plugin, as a user registers an out-of-tree plugin.

    Parameters
    ----------
    into : Registry, optional
        Registry to add to (e.g. the in-tree one); a new
        :class:`~kubenotes.scheduler.framework.runtime.Registry` by default.

    Returns
    -------
    Registry
        Name -> factory ``new(args, handle)`` for each of :data:`POLICY_NAMES`.

    Raises
    ------
    AlreadyExists
        When ``into`` already has one of the names.

    Examples
    --------
    >>> r = registry()
    >>> r["FGD"]({"typicalPods": [{"milliCpu": 1000, "milliGpu": 500, "gpuNumber": 1, "percentage": 1.0}]}, None).name()
    'FGD'
    """
    from kubenotes.scheduler.framework.runtime import Registry

    r = Registry() if into is None else into
    for name in POLICY_NAMES:
        r.register(name, _factory(_CLASSES[name]))
    return r
