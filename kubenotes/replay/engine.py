"""Replay a GPU cluster trace the way the *Beware of Fragmentation* simulator does.

The experiment of Weng et al. (USENIX ATC '23, section 6), step by step:

1. **Order.** The pod list, sorted by name, is shuffled with the run's seed.
2. **Inflation.** Pods drawn at random (with replacement) from the original
   list are appended until the next draw would push the requested GPUs over
   ``tuning_ratio`` (1.3) times the cluster's GPU capacity
   (``TunePodsByNodeTotalResource``/``tuneUpPods``).
3. **Placement.** Pods arrive one at a time and never leave. Each one is
   filtered (CPU, memory, pod slots, GPU fit per card, GPU model), scored by
   one policy (:mod:`kubenotes.replay.policies`), placed on a best-scoring
   node (ties go to the node whose seeded, randomly prefixed name sorts
   first; see :func:`replay`), and given GPU cards by the policy's GPU
   selection. A pod that fits nowhere fails and is dropped.
4. **Measurement.** After every pod the simulator logs the cluster's
   allocated GPU, its expected fragmentation (against the typical pods of the
   original workload) and the GPU requested so far ("arrived workload"). The
   paper plots, per arrived-workload percentage ``x`` (requested GPU /
   capacity, rounded to a whole percent), the mean over the events in bucket
   ``x`` of the **GPU allocation ratio** (allocated / capacity, figure 9) and
   of the **fragmentation rate** (fragmented / idle GPU, figure 7b), then the
   mean (or median) over seeds.

Cluster state is kept per node and per GPU card in numpy arrays
(:class:`ClusterState`), so a whole run (about 10,800 pods on 1,213 nodes)
takes seconds.

Notes
-----
* Randomness: the simulator seeds Go's global ``math/rand`` with the run's
  seed (42-51 in the paper) and draws the shuffle, the inflation, the node
  name prefixes and the Random policy's choices from it. kubenotes draws the
  same things, in the same order, from one :func:`numpy.random.default_rng`;
  the per-seed runs therefore differ from the paper's while every
  distribution is the same, and results are compared as means over seeds.
* Tie-breaking decides the results of the policies whose scores often tie
  (FGD, GpuPacking, GpuClustering): see the Notes of :func:`replay`.
* Filtering is the part of kube-scheduler v1.20's default filters that
  matters for these objects (``NodeResourcesFit`` on cpu, memory and pods)
  plus the simulator's ``Open-Gpu-Share`` filter (a card with enough free
  GPU for a sharing pod, enough free cards for a whole-GPU pod, the allowed
  card model).
* The simulator logs after failed pods too; so does kubenotes (a failed pod
  adds to the arrived workload and changes nothing else).

References
----------
hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/core.go (Simulate), simulator.go (SortClusterPods, tuneUpPods, SchedulePods), analysis.go (ClusterGpuFragReport)
hkust-adsl/kubernetes-scheduler-simulator experiments/analysis/merge_alloc_discrete_0920.py, merge_frag_ratio_discrete_0928.py
hkust-adsl/kubernetes-scheduler-simulator experiments/run_scripts/generate_run_scripts.py (seeds 42-51, ratio 1.3)
kubernetes/kubernetes@v1.20.5 pkg/scheduler/core/generic_scheduler.go (selectHost)
Q. Weng et al., "Beware of Fragmentation", USENIX ATC 2023, section 6 and figures 7 and 9.

Examples
--------
A two-node toy cluster: FGD puts the second half-GPU pod on the card the
first one half uses, and the whole-GPU pod on the other card of the same
node, so node ``n2`` stays untouched.

>>> from kubenotes.datasets.alibaba import NodeRow, PodRow, TraceArrays
>>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4"), NodeRow("n2", 32000, 1 << 20, 2, "T4")],
...                           [PodRow("a", 1000, 1024, 1, 500), PodRow("b", 1000, 1024, 1, 500),
...                            PodRow("c", 1000, 1024, 1, 1000)])
>>> r = replay(t, "FGD", seed=1, tuning_ratio=0, order=[0, 1, 2])
>>> r.node_index.tolist(), r.gpu_cards[1] == r.gpu_cards[0], r.allocation_percent.tolist()
([0, 0, 0], True, [12.5, 25.0, 50.0])
"""

from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from kubenotes.datasets.alibaba import MAX_PODS_PER_NODE, MILLI_PER_GPU, TraceArrays
from kubenotes.errors import KubenotesError
from kubenotes.replay.policies import (
    POLICY_NAMES,
    Fragmentation,
    PodRequest,
    TypicalPods,
    registry,
    typical_pods,
)

__all__ = [
    "DEFAULT_SEEDS",
    "DEFAULT_TUNING_RATIO",
    "PAPER_ALLOCATION_PERCENT",
    "UnknownPolicy",
    "StateTable",
    "ClusterState",
    "ReplayResult",
    "pod_requests",
    "workload_order",
    "new_policy",
    "replay",
    "replay_seeds",
    "bucket_mean",
]

#: The paper's ten seeds.
DEFAULT_SEEDS = tuple(range(42, 52))
#: Published GPU allocation ratio (percent of capacity) at 100% and 130% arrived workload,
#: default trace, mean over seeds 42-51: ``experiments/analysis/expected_results/analysis_allo_discrete.csv``
#: of hkust-adsl/kubernetes-scheduler-simulator (the data behind the paper's figure 9a).
PAPER_ALLOCATION_PERCENT = {
    "Random": (86.30, 87.47),
    "DotProd": (90.62, 90.85),
    "GpuClustering": (91.65, 91.88),
    "GpuPacking": (91.78, 92.00),
    "BestFit": (92.86, 93.08),
    "FGD": (95.23, 95.39),
}
#: Inflate the workload to 130% of the cluster's GPU capacity.
DEFAULT_TUNING_RATIO = 1.3


class UnknownPolicy(KubenotesError):
    """A policy name that is not one of :data:`~kubenotes.replay.policies.POLICY_NAMES`."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(f'unknown policy "{name}": valid policies are {", ".join(POLICY_NAMES)}')


class StateTable:
    """Distinct node states with integer ids: ``(model, milli_cpu_left, card frees sorted descending)``.

    Policies that only depend on a node's state (FGD) cache their scores per
    state id; two nodes in the same state share an id.

    Parameters
    ----------
    max_cards : int
        Width of the card arrays.

    Attributes
    ----------
    count : int
        States known so far; ids are ``0 .. count-1``.
    milli_cpu_left : numpy.ndarray of int64, shape (capacity,)
    gpu_left : numpy.ndarray of int64, shape (capacity, max_cards)
        Free thousandths per card, sorted descending, zero-padded.
    model : numpy.ndarray of int64, shape (capacity,)
        Model index (-1: no GPU).

    Examples
    --------
    >>> s = StateTable(2)
    >>> s.id_of(0, 8000, (1000, 500)), s.id_of(0, 8000, (1000, 500)), s.id_of(0, 7000, (1000, 500)), s.count
    (0, 0, 1, 2)
    """

    def __init__(self, max_cards: int, capacity: int = 4096):
        self.max_cards = max_cards
        self.count = 0
        self._ids: dict[tuple, int] = {}
        self.milli_cpu_left = np.zeros(capacity, dtype=np.int64)
        self.gpu_left = np.zeros((capacity, max_cards), dtype=np.int64)
        self.model = np.zeros(capacity, dtype=np.int64)

    @property
    def capacity(self) -> int:
        """Rows allocated (grows by doubling)."""
        return len(self.model)

    def id_of(self, model: int, milli_cpu_left: int, sorted_left: tuple[int, ...]) -> int:
        """The id of a state, adding it when new.

        Parameters
        ----------
        model : int
        milli_cpu_left : int
        sorted_left : tuple[int, ...]
            Free thousandths of each card, sorted descending.

        Returns
        -------
        int
        """
        key = (model, milli_cpu_left, sorted_left)
        sid = self._ids.get(key)
        if sid is not None:
            return sid
        sid = self.count
        if sid >= self.capacity:
            cap = 2 * self.capacity
            self.milli_cpu_left = np.resize(self.milli_cpu_left, cap)
            g = np.zeros((cap, self.max_cards), dtype=np.int64)
            g[: sid] = self.gpu_left[: sid]
            self.gpu_left = g
            self.model = np.resize(self.model, cap)
        self.milli_cpu_left[sid] = milli_cpu_left
        self.gpu_left[sid] = 0
        self.gpu_left[sid, : len(sorted_left)] = sorted_left
        self.model[sid] = model
        self._ids[key] = sid
        self.count = sid + 1
        return sid


class ClusterState:
    """Per-node and per-card resources of a trace cluster, as numpy arrays.

    Parameters
    ----------
    trace : TraceArrays
    rng : numpy.random.Generator, optional
        Random source for policies that draw (Random).

    Attributes
    ----------
    models : list[str]
    max_cards : int
        Most cards on one node (``C``).
    milli_cpu_capacity, milli_cpu_left : numpy.ndarray of int64, shape (N,)
        Millicores.
    memory_capacity, memory_left : numpy.ndarray of int64, shape (N,)
        Bytes.
    pods_left : numpy.ndarray of int64, shape (N,)
        Free pod slots (1001 per node).
    gpu_count : numpy.ndarray of int64, shape (N,)
    all_nodes_have_gpus : bool
        Every node has at least one card (lets policies skip per-node checks).
    node_model : numpy.ndarray of int64, shape (N,)
        Model index (-1: no GPU).
    gpu_left : numpy.ndarray of int64, shape (N, C)
        Free thousandths of a GPU per card (0 for cards a node lacks).
    total_gpu_left, free_cards, max_gpu_left : numpy.ndarray of int64, shape (N,)
        Row sum, count of untouched cards, row max of :attr:`gpu_left`.
    affinity : numpy.ndarray of int64, shape (N, A)
        Pods per GPU-shape tag (columns in :attr:`affinity_tags`).
    affinity_tags : dict[str, int]
        ``share-gpu``, ``1-gpu``, ``2-gpu``... -> column.
    affinity_kinds : numpy.ndarray of int64, shape (N,)
        Columns of :attr:`affinity` above zero per node: how many GPU shapes it runs.
    states : StateTable
    state_id : numpy.ndarray of int64, shape (N,)
        Each node's state id.
    allocated_gpu_milli : int
        Thousandths of a GPU assigned to pods.

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n", 8000, 1 << 30, 2, "T4")], [PodRow("p", 1000, 0, 1, 300)])
    >>> c = ClusterState(t)
    >>> req = pod_requests(t)[0]
    >>> c.feasible(req).tolist()
    [0]
    >>> c.place(0, req, [1]); c.gpu_left.tolist(), int(c.milli_cpu_left[0]), int(c.allocated_gpu_milli)
    ([[1000, 700]], 7000, 300)
    """

    def __init__(self, trace: TraceArrays, *, rng: np.random.Generator | None = None):
        n = trace.num_nodes
        self.trace = trace
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.models = list(trace.models)
        self.max_cards = max(1, int(trace.node_gpu_count.max()) if n else 1)
        self.milli_cpu_capacity = trace.node_milli_cpu.copy()
        self.milli_cpu_left = trace.node_milli_cpu.copy()
        self.memory_capacity = trace.node_memory_bytes.copy()
        self.memory_left = trace.node_memory_bytes.copy()
        self.pods_left = np.full(n, MAX_PODS_PER_NODE, dtype=np.int64)
        self.gpu_count = trace.node_gpu_count.copy()
        self.all_nodes_have_gpus = bool(n) and bool((self.gpu_count > 0).all())
        self.node_model = trace.node_model.copy()
        card = np.arange(self.max_cards)[None, :] < self.gpu_count[:, None]
        self.gpu_left = np.where(card, MILLI_PER_GPU, 0).astype(np.int64)
        self.total_gpu_left = self.gpu_count * MILLI_PER_GPU
        self.free_cards = self.gpu_count.copy()
        self.max_gpu_left = np.where(self.gpu_count > 0, MILLI_PER_GPU, 0).astype(np.int64)
        tags = ["share-gpu"] + [f"{k}-gpu" for k in sorted(set(trace.pod_num_gpu[trace.pod_gpu_milli >= MILLI_PER_GPU].tolist()))]
        self.affinity_tags = {t: i for i, t in enumerate(tags)}
        self.affinity = np.zeros((n, len(tags)), dtype=np.int64)
        self.affinity_kinds = np.zeros(n, dtype=np.int64)
        self.allocated_gpu_milli = 0
        self.states = StateTable(self.max_cards)
        self.state_id = np.array([self._state_of(i) for i in range(n)], dtype=np.int64)
        self._model_masks: dict[bytes, np.ndarray] = {}
        # per-node constants as Python lists (place reads one item per pod: a list item is ~10x cheaper)
        self._gpu_count = self.gpu_count.tolist()
        self._node_model = self.node_model.tolist()
        # A placement took some node's last pod slot (until then replay's Filter skips the pod-count check: no node
        # can fail it); kept by place and place_recorded, so valid while only they change the cluster.
        self._any_node_full = not bool((self.pods_left > 0).all())

    @property
    def num_nodes(self) -> int:
        """``N``."""
        return len(self.gpu_count)

    @property
    def total_gpu_milli(self) -> int:
        """Cluster GPU capacity, thousandths."""
        return int(self.gpu_count.sum()) * MILLI_PER_GPU

    def _state_of(self, i: int) -> int:
        left = self.gpu_left[i, : self.gpu_count[i]].tolist()
        left.sort(reverse=True)
        return self.states.id_of(int(self.node_model[i]), int(self.milli_cpu_left[i]), tuple(left))

    def node_fragmentation(self, fragmentation: Fragmentation) -> np.ndarray:
        """Expected fragmentation of every node now, thousandths, shape ``(N,)``.

        Parameters
        ----------
        fragmentation : Fragmentation

        Returns
        -------
        numpy.ndarray of float64
        """
        st = self.states
        per_state = fragmentation.amount(st.milli_cpu_left[: st.count], st.gpu_left[: st.count], st.model[: st.count])
        return per_state[self.state_id]

    def feasible(self, pod: PodRequest) -> np.ndarray:
        """Indices of the nodes where ``pod`` fits (the Filter phase).

        Parameters
        ----------
        pod : PodRequest
            With ``allowed_models`` set when the pod has a GPU model constraint.

        Returns
        -------
        numpy.ndarray of int64
            Ascending node indices.
        """
        return self._filter(pod, True)

    def _filter(self, pod: PodRequest, check_pods: bool) -> np.ndarray:
        # feasible; replay passes check_pods=self._any_node_full (it changes the cluster only through place)
        ok = self.milli_cpu_left >= pod.milli_cpu
        ok &= self.memory_left >= pod.memory_bytes
        if check_pods:
            ok &= self.pods_left > 0
        if pod.num_gpu > 0:
            if pod.gpu_milli >= MILLI_PER_GPU:
                ok &= self.free_cards >= pod.num_gpu
            else:
                ok &= self.max_gpu_left >= pod.gpu_milli
            if pod.allowed_models is not None:
                ok &= self._model_mask(pod.allowed_models)
        return ok.nonzero()[0]

    def _model_mask(self, allowed_models: np.ndarray) -> np.ndarray:
        # allowed_models[node_model] per node, kept per distinct allowed-models row (few in a trace)
        key = allowed_models.tobytes()
        mask = self._model_masks.get(key)
        if mask is None:
            mask = self._model_masks[key] = allowed_models[self.node_model]
        return mask

    #: Arrays :meth:`place` changes (copied by :meth:`copy`).
    _MUTABLE_ARRAYS = ("milli_cpu_left", "memory_left", "pods_left", "gpu_left", "total_gpu_left", "free_cards",
                       "max_gpu_left", "affinity", "affinity_kinds", "state_id")

    def copy(self) -> "ClusterState":
        """A copy that placements do not share: the mutable arrays and the random generator are copied.

        The trace, capacities and the table of node-state ids (a memo that
        only grows) are shared.

        Returns
        -------
        ClusterState
        """
        c = _copy.copy(self)
        for name in self._MUTABLE_ARRAYS:
            setattr(c, name, getattr(self, name).copy())
        c.rng = _copy.deepcopy(self.rng)
        return c

    def place(self, node: int, pod: PodRequest, cards: Sequence[int]) -> None:
        """Bind ``pod`` to ``node`` and take ``gpu_milli`` from each of ``cards``.

        Parameters
        ----------
        node : int
        pod : PodRequest
        cards : sequence of int
            ``num_gpu`` card indices on that node.

        Raises
        ------
        KubenotesError
            When the cards do not match the request or lack free GPU (a policy bug).
        """
        count = self._gpu_count[node]
        # one row as a Python list: for a handful of cards, list operations beat numpy calls
        left = self.gpu_left[node].tolist()
        num_gpu, gpu_milli = pod.num_gpu, pod.gpu_milli
        if len(cards) != num_gpu or len(set(cards)) != len(cards) \
                or any(not 0 <= c < count or left[c] < gpu_milli for c in cards):
            raise KubenotesError(f"cannot place a pod asking {num_gpu} x {gpu_milli} milli-GPU "
                                 f"on cards {list(cards)} of node {self.trace.node_names[node]}")
        milli_cpu_left = int(self.milli_cpu_left[node]) - pod.milli_cpu
        self.milli_cpu_left[node] = milli_cpu_left
        self.memory_left[node] -= pod.memory_bytes
        pods_left = int(self.pods_left[node]) - 1
        self.pods_left[node] = pods_left
        if pods_left <= 0:
            self._any_node_full = True
        if num_gpu:
            for c in cards:
                left[c] -= gpu_milli
            self.gpu_left[node] = left
            total = num_gpu * gpu_milli
            self.total_gpu_left[node] -= total
            self.free_cards[node] = left.count(MILLI_PER_GPU)
            self.max_gpu_left[node] = max(left)
            tag = self.affinity_tags[pod.affinity_tag]
            before = int(self.affinity[node, tag])
            self.affinity[node, tag] = before + 1
            if not before:
                self.affinity_kinds[node] += 1
            self.allocated_gpu_milli += total
        card_left = left[:count]
        card_left.sort(reverse=True)
        self.state_id[node] = self.states.id_of(self._node_model[node], milli_cpu_left, tuple(card_left))


    def place_recorded(self, node_index: np.ndarray, pods: Sequence[PodRequest],
                       gpu_cards: Sequence[Sequence[int]]) -> None:
        """:meth:`place` for a run of recorded events at once: the same final state, with array operations.

        Parameters
        ----------
        node_index : numpy.ndarray of int64, shape (E,)
            Node per event (-1: the pod failed and nothing is placed).
        pods : sequence of PodRequest, length E
        gpu_cards : sequence of sequence of int, length E
            Card indices per event, as :meth:`place` takes them.

        Raises
        ------
        KubenotesError
            When an event's cards do not match its request or the cards
            would go below zero (a record that is not a replay's), before
            anything is changed.

        Notes
        -----
        Only the final states are registered in :attr:`states`: the
        per-event states :meth:`place` would visit are skipped, so state ids
        may be numbered differently, each still naming its state.
        """
        node_index = np.asarray(node_index, dtype=np.int64)
        placed = (node_index >= 0).nonzero()[0].tolist()
        if not placed:
            return
        nodes = node_index[placed]
        reqs = [pods[e] for e in placed]
        gpu_events = [k for k, r in enumerate(reqs) if r.num_gpu]
        card_lists = [gpu_cards[placed[k]] for k in gpu_events]
        num_gpu = np.array([reqs[k].num_gpu for k in gpu_events], dtype=np.int64)
        if any(len(cards) != n or len(set(cards)) != n for cards, n in zip(card_lists, num_gpu.tolist())):
            raise KubenotesError("cannot place recorded events: an event's cards do not match its GPU count")
        card_nodes = np.repeat(nodes[gpu_events], num_gpu)
        cards = np.fromiter((c for cs in card_lists for c in cs), dtype=np.int64, count=int(num_gpu.sum()))
        if ((cards < 0) | (cards >= self.gpu_count[card_nodes])).any():
            raise KubenotesError("cannot place recorded events: a card index is beyond its node's cards")
        gpu_left = self.gpu_left.copy()
        gpu_milli = np.array([reqs[k].gpu_milli for k in gpu_events], dtype=np.int64)
        np.subtract.at(gpu_left, (card_nodes, cards), np.repeat(gpu_milli, num_gpu))
        if (gpu_left < 0).any():
            raise KubenotesError("cannot place recorded events: a card would be left with less than no GPU")
        self.gpu_left = gpu_left
        np.subtract.at(self.milli_cpu_left, nodes, np.array([r.milli_cpu for r in reqs], dtype=np.int64))
        np.subtract.at(self.memory_left, nodes, np.array([r.memory_bytes for r in reqs], dtype=np.int64))
        np.subtract.at(self.pods_left, nodes, 1)
        self._any_node_full = self._any_node_full or bool((self.pods_left[nodes] <= 0).any())
        if gpu_events:
            gpu_nodes = nodes[gpu_events]
            total = gpu_milli * num_gpu
            np.subtract.at(self.total_gpu_left, gpu_nodes, total)
            np.add.at(self.affinity, (gpu_nodes, [self.affinity_tags[reqs[k].affinity_tag] for k in gpu_events]), 1)
            self.allocated_gpu_milli += int(total.sum())
            touched = np.unique(gpu_nodes)
            self.affinity_kinds[touched] = (self.affinity[touched] > 0).sum(axis=1)
            rows = self.gpu_left[touched]
            self.free_cards[touched] = (rows == MILLI_PER_GPU).sum(axis=1)
            self.max_gpu_left[touched] = rows.max(axis=1)
        for node in np.unique(nodes).tolist():
            self.state_id[node] = self._state_of(node)

def pod_requests(trace: TraceArrays) -> list[PodRequest]:
    """One :class:`~kubenotes.replay.policies.PodRequest` per trace pod.

    Parameters
    ----------
    trace : TraceArrays

    Returns
    -------
    list[PodRequest]
        With ``allowed_models`` of shape ``(M + 1,)`` (last entry: nodes
        without GPU, never allowed for GPU pods).
    """
    out = []
    no_gpu = np.zeros((trace.num_pods, 1), dtype=bool)
    allowed = np.concatenate([trace.pod_allowed_models, no_gpu], axis=1)
    for i in range(trace.num_pods):
        out.append(PodRequest(int(trace.pod_milli_cpu[i]), int(trace.pod_memory_bytes[i]), int(trace.pod_num_gpu[i]),
                              int(trace.pod_gpu_milli[i]), trace.pod_gpu_spec[i] if trace.pod_gpu_spec else "",
                              allowed[i]))
    return out


def workload_order(trace: TraceArrays, rng: np.random.Generator, tuning_ratio: float = DEFAULT_TUNING_RATIO) -> np.ndarray:
    """Arrival order: the shuffled pod list, then inflation pods (``SortClusterPods`` + ``TunePodsByNodeTotalResource``).

    Parameters
    ----------
    trace : TraceArrays
    rng : numpy.random.Generator
    tuning_ratio : float
        Target total GPU request as a multiple of cluster GPU capacity; ``<= 0``
        keeps the list as it is.

    Returns
    -------
    numpy.ndarray of int64
        Pod indices (repeats are inflation copies).

    Notes
    -----
    Like the simulator, a draw is rejected (and inflation stops) when the
    total so far plus the candidate's *per-GPU* share exceeds the target;
    the accepted pod then adds its whole request. When the list already asks
    for more than the target, random pods are removed until it does not
    (``tuneDownPods``).

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n", 8000, 1 << 30, 1, "T4")],
    ...                           [PodRow("b", 1000, 0, 1, 400), PodRow("a", 1000, 0, 1, 400)])
    >>> o = workload_order(t, np.random.default_rng(0), 2.0)
    >>> len(o), int(t.pod_total_gpu_milli[o].sum())
    (5, 2000)
    """
    n = trace.num_pods
    names = np.array(trace.pod_names, dtype=object)
    base = np.argsort(names, kind="stable").astype(np.int64)
    order = base[rng.permutation(n)]
    if tuning_ratio <= 0 or n == 0:
        return order
    tot = trace.pod_total_gpu_milli
    per = trace.pod_gpu_milli
    total = int(tot.sum())
    target = tuning_ratio * float(trace.total_gpu_milli)
    if float(total) == target:
        return order
    if float(total) > target:
        lst = order.tolist()
        while float(total) > target and lst:
            idx = int(rng.integers(len(lst)))
            total -= int(tot[lst.pop(idx)])
        return np.array(lst, dtype=np.int64)
    extra = []
    chunk = max(64, n // 4)
    while True:
        draws = base[rng.integers(n, size=chunk)]
        before = total + np.cumsum(tot[draws]) - tot[draws]
        over = (before + per[draws]).astype(np.float64) > target
        if over.any():
            k = int(np.argmax(over))
            extra.append(draws[:k])
            break
        extra.append(draws)
        total = int(before[-1] + tot[draws[-1]])
    return np.concatenate([order] + extra)


def new_policy(name: str, *, typical: TypicalPods | None = None, handle: Any = None):
    """Instantiate a policy plugin through the plugin :class:`~kubenotes.scheduler.framework.runtime.Registry`.

    Parameters
    ----------
    name : str
        One of :data:`~kubenotes.replay.policies.POLICY_NAMES`.
    typical : TypicalPods, optional
        Passed to FGD as ``{"typicalPods": ...}``.
    handle : Handle, optional

    Returns
    -------
    object
        The plugin.

    Raises
    ------
    UnknownPolicy
        When ``name`` is not a policy.
    """
    reg = registry()
    if name not in reg:
        raise UnknownPolicy(name)
    args = {"typicalPods": typical.to_args()} if (name == "FGD" and typical is not None) else None
    return reg[name](args, handle)


def bucket_mean(arrived_percent: np.ndarray, values: np.ndarray, x: int) -> float:
    """Mean of ``values`` over events whose arrived workload rounds to ``x`` percent.

    The simulator's analysis (``merge_alloc_discrete``): events with
    ``round(arrived) == x``; if there are none, events with
    ``x - 1 <= round(arrived) <= x + 1``; NaN if still none.

    Parameters
    ----------
    arrived_percent : numpy.ndarray of float64, shape (E,)
    values : numpy.ndarray of float64, shape (E,)
    x : int
        Arrived-workload percentage.

    Returns
    -------
    float

    Examples
    --------
    >>> bucket_mean(np.array([99.6, 100.2, 101.0]), np.array([1.0, 3.0, 8.0]), 100)
    2.0
    >>> bucket_mean(np.array([98.0, 99.0, 101.0]), np.array([1.0, 3.0, 5.0]), 100)
    4.0
    """
    r = np.round(arrived_percent)
    sel = values[r == x]
    if len(sel) == 0:
        sel = values[(r >= x - 1) & (r <= x + 1)]
    return float(np.mean(sel)) if len(sel) else float("nan")


def bucket_means(arrived_percent: np.ndarray, values: np.ndarray, xs: Sequence[int]) -> np.ndarray:
    """:func:`bucket_mean` at each of ``xs``, sorting the events once.

    Parameters
    ----------
    arrived_percent, values : numpy.ndarray of float64, shape (E,)
    xs : sequence of int
        Arrived-workload percentages.

    Returns
    -------
    numpy.ndarray of float64, shape (len(xs),)
        Equal to ``[bucket_mean(arrived_percent, values, x) for x in xs]``
        (each mean is taken over the same values in the same order).

    Examples
    --------
    >>> bucket_means(np.array([98.0, 99.0, 101.0]), np.array([1.0, 3.0, 5.0]), [99, 100, 105]).tolist()
    [3.0, 4.0, nan]
    """
    r = np.round(arrived_percent)
    order = np.argsort(r, kind="stable")
    sorted_r, sorted_values = r[order], values[order]
    xs_arr = np.asarray(xs, dtype=np.float64)
    lo = np.searchsorted(sorted_r, xs_arr, side="left").tolist()
    hi = np.searchsorted(sorted_r, xs_arr, side="right").tolist()
    out = np.empty(len(xs_arr))
    for k, (a, b) in enumerate(zip(lo, hi)):
        out[k] = np.mean(sorted_values[a:b]) if b > a else bucket_mean(arrived_percent, values, int(xs_arr[k]))
    return out

@dataclass
class ReplayResult:
    """What a replay recorded after every pod, as arrays for plotting.

    Attributes
    ----------
    policy : str
    seed : int
    pods_file : str
    total_gpu_milli : int
        Cluster GPU capacity, thousandths.
    pod_index : numpy.ndarray of int64, shape (E,)
        Trace pod of each event (arrival order).
    node_index : numpy.ndarray of int64, shape (E,)
        Node it was placed on, -1 when it failed.
    gpu_cards : list[list[int]]
        Cards it got on that node.
    arrived_gpu_milli : numpy.ndarray of int64, shape (E,)
        GPU requested by the pods arrived so far (this one included), thousandths.
    allocated_gpu_milli : numpy.ndarray of int64, shape (E,)
        GPU assigned after the event, thousandths.
    frag_gpu_milli : numpy.ndarray of float64, shape (E,)
        Expected fragmentation after the event, thousandths.
    cluster : ClusterState
        The final state.

    Examples
    --------
    >>> r = ReplayResult("X", 0, "", 1000, np.array([0, 1]), np.array([0, -1]), [[0], []],
    ...                  np.array([500, 1000]), np.array([500, 500]), np.array([0.0, 0.0]))
    >>> r.allocation_percent.tolist(), r.failed_pods, r.at("allocation", 100)
    ([50.0, 50.0], 1, 50.0)
    """

    policy: str
    seed: int
    pods_file: str
    total_gpu_milli: int
    pod_index: np.ndarray
    node_index: np.ndarray
    gpu_cards: list
    arrived_gpu_milli: np.ndarray
    allocated_gpu_milli: np.ndarray
    frag_gpu_milli: np.ndarray
    cluster: Any = field(default=None, repr=False)

    @property
    def arrived_percent(self) -> np.ndarray:
        """Arrived workload, percent of GPU capacity, shape ``(E,)``."""
        return 100.0 * self.arrived_gpu_milli / self.total_gpu_milli

    @property
    def allocation_percent(self) -> np.ndarray:
        """GPU allocation ratio, percent of GPU capacity, shape ``(E,)``."""
        return 100.0 * self.allocated_gpu_milli / self.total_gpu_milli

    @property
    def fragmentation_percent(self) -> np.ndarray:
        """Fragmentation rate: fragmented / idle GPU, percent, shape ``(E,)`` (NaN when nothing is idle)."""
        idle = (self.total_gpu_milli - self.allocated_gpu_milli).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(idle > 0, 100.0 * self.frag_gpu_milli / idle, np.nan)

    @property
    def fragment_amount_percent(self) -> np.ndarray:
        """Fragmented GPU, percent of GPU capacity, shape ``(E,)`` (figure 7a)."""
        return 100.0 * self.frag_gpu_milli / self.total_gpu_milli

    @property
    def failed_pods(self) -> int:
        """Pods that fitted nowhere."""
        return int((self.node_index < 0).sum())

    def _rounded(self, metric: str) -> np.ndarray:
        """Per-event values of ``metric`` rounded to 2 decimals (as the simulator logs them)."""
        values = {"allocation": self.allocation_percent, "fragmentation": self.fragmentation_percent,
                  "fragment_amount": self.fragment_amount_percent}.get(metric)
        if values is None:
            raise ValueError(f"unknown metric {metric!r}: use allocation, fragmentation or fragment_amount")
        return np.round(values, 2)

    def at(self, metric: str, arrived_percent: int) -> float:
        """The simulator's per-bucket mean of ``metric`` at an arrived-workload percentage.

        Parameters
        ----------
        metric : {"allocation", "fragmentation", "fragment_amount"}
            Allocation ratio (figure 9a), fragmentation rate (figure 7b) or
            fragment amount (figure 7a). Like the simulator's logs, per-event
            values are rounded to 2 decimals first.
        arrived_percent : int

        Returns
        -------
        float
            Percent (NaN when no event is near that bucket).

        Raises
        ------
        ValueError
            On an unknown metric.
        """
        return bucket_mean(self.arrived_percent, self._rounded(metric), arrived_percent)

    def curve(self, metric: str, arrived: Iterable[int] = range(0, 131)) -> np.ndarray:
        """:meth:`at` for each arrived-workload percentage (default 0-130), for plotting.

        Parameters
        ----------
        metric : {"allocation", "fragmentation", "fragment_amount"}
        arrived : iterable of int

        Returns
        -------
        numpy.ndarray of float64
        """
        return bucket_means(self.arrived_percent, self._rounded(metric), [int(x) for x in arrived])


def replay(trace: TraceArrays, policy: str = "FGD", *, seed: int = 42, tuning_ratio: float = DEFAULT_TUNING_RATIO,
           tie_break: str = "name", typical: TypicalPods | None = None, order: Sequence[int] | None = None,
           requests: Sequence[PodRequest] | None = None) -> ReplayResult:
    """Replay a trace with one policy and one seed.

    Parameters
    ----------
    trace : TraceArrays
    policy : str
        One of :data:`~kubenotes.replay.policies.POLICY_NAMES`.
    seed : int
        Seeds the one random source: shuffle, inflation, node-name order,
        then the policy's draws (Random) in that order, as the simulator does.
    tuning_ratio : float
        Inflate the workload to this multiple of the GPU capacity (1.3 in the
        paper); ``<= 0`` replays the pod list as it is.
    tie_break : {"name", "random"}
        Among the best-scoring nodes, take the one whose name sorts first,
        names carrying a random per-seed prefix (``"name"``, the simulator;
        see Notes), or one uniformly at random (``"random"``, upstream
        kube-scheduler's ``selectHost``).
    typical : TypicalPods, optional
        Target workload for FGD and for the fragmentation measure; default
        :func:`~kubenotes.replay.policies.typical_pods` of the whole pod list.
    order : sequence of int, optional
        Arrival order (pod indices); default :func:`workload_order`.
    requests : sequence of PodRequest, optional
        Precomputed :func:`pod_requests` (saves time over many runs).

    Returns
    -------
    ReplayResult

    Raises
    ------
    UnknownPolicy
        When ``policy`` is unknown.
    ValueError
        When ``tie_break`` is neither ``"name"`` nor ``"random"``.

    Notes
    -----
    The simulator renames every node ``NNNN-<name>`` with ``NNNN`` from a
    seeded random permutation (``syncClusterResourceList``) and runs a fork of
    kube-scheduler v1.20 (``mental2008/kubernetes v1.20.5-minor``, whose
    source kubenotes could not read). Upstream v1.20 breaks score ties
    uniformly at random; the paper's published numbers are reproduced only
    when ties go to the first node in name order, i.e. to a random node
    priority fixed for the whole run, so that is the default here. It matters
    most for policies with many ties (FGD, GpuPacking, GpuClustering), which
    then pack instead of spreading.
    """
    if policy not in POLICY_NAMES:
        raise UnknownPolicy(policy)
    if tie_break not in ("name", "random"):
        raise ValueError(f'tie_break must be "name" or "random", not {tie_break!r}')
    rng = np.random.default_rng(seed)
    order_arr = workload_order(trace, rng, tuning_ratio) if order is None else np.asarray(order, dtype=np.int64)
    # rand.Perm over the nodes sorted by name: node i gets prefix perm[rank of its name]
    by_name = np.argsort(np.array(trace.node_names, dtype=object), kind="stable")
    node_rank = np.empty(trace.num_nodes, dtype=np.int64)
    node_rank[by_name] = rng.permutation(trace.num_nodes)
    typ = typical if typical is not None else typical_pods(trace)
    plugin = new_policy(policy, typical=typ)
    cluster = ClusterState(trace, rng=rng)
    reqs = requests if requests is not None else pod_requests(trace)
    tot = trace.pod_total_gpu_milli
    e_n = len(order_arr)
    node_of = np.full(e_n, -1, dtype=np.int64)
    cards_of: list[list[int]] = [[] for _ in range(e_n)]
    state_before = np.zeros(e_n, dtype=np.int64)
    state_after = np.zeros(e_n, dtype=np.int64)
    allocated = np.zeros(e_n, dtype=np.int64)
    initial_states = cluster.state_id.copy()
    by_rank = tie_break == "name"
    # "highest score, then lowest rank" as one number per node, so that one argmax picks the node
    rank_key = np.int64(trace.num_nodes)
    score_nodes, normalize, select = plugin.score_nodes, plugin.normalize_scores, plugin.select_gpus
    # Pods never leave, so free resources only shrink: a request that fitted nowhere never fits again.
    # Its later copies (inflation repeats, identical pods) are failed without filtering the nodes again.
    shape_of: dict[int, tuple] = {}
    unplaceable: set[tuple] = set()
    for e, p in enumerate(order_arr.tolist()):
        req = reqs[p]
        shape = shape_of.get(p)
        if shape is None:
            allowed = req.allowed_models
            shape = shape_of[p] = (req.milli_cpu, req.memory_bytes, req.num_gpu, req.gpu_milli,
                                   None if allowed is None else allowed.tobytes())
        if shape in unplaceable:
            allocated[e] = cluster.allocated_gpu_milli
            continue
        nodes = cluster._filter(req, cluster._any_node_full)
        if not len(nodes):
            unplaceable.add(shape)
        else:
            s = normalize(score_nodes(req, cluster, nodes))
            if by_rank:
                node = int(nodes[(s * rank_key - node_rank.take(nodes)).argmax()])
            else:
                best = nodes[s == s.max()]
                node = int(best[0]) if len(best) == 1 else int(best[int(rng.integers(len(best)))])
            cards = select(req, cluster, node)
            state_before[e] = cluster.state_id[node]
            cluster.place(node, req, cards)
            state_after[e] = cluster.state_id[node]
            node_of[e] = node
            cards_of[e] = cards
        allocated[e] = cluster.allocated_gpu_milli
    # fragmentation after every event, from the states the placements went through (one batch)
    frag = Fragmentation(typ, trace.models, cluster.max_cards)
    st = cluster.states
    per_state = frag.amount(st.milli_cpu_left[: st.count], st.gpu_left[: st.count], st.model[: st.count])
    delta = np.where(node_of >= 0, per_state[state_after] - per_state[state_before], 0.0)
    fragv = float(per_state[initial_states].sum()) + np.cumsum(delta)
    arrived = np.cumsum(tot[order_arr]) if e_n else np.zeros(0, dtype=np.int64)
    return ReplayResult(policy, seed, trace.pods_file, trace.total_gpu_milli, order_arr, node_of, cards_of,
                        arrived, allocated, fragv, cluster)


def replay_seeds(trace: TraceArrays, policy: str, seeds: Iterable[int] = DEFAULT_SEEDS, **kwargs: Any) -> list[ReplayResult]:
    """:func:`replay` once per seed, sharing the typical pods and pod requests.

    Parameters
    ----------
    trace : TraceArrays
    policy : str
    seeds : iterable of int
        Default the paper's 42-51.
    **kwargs
        Passed to :func:`replay` (``tuning_ratio``...).

    Returns
    -------
    list[ReplayResult]

    Raises
    ------
    UnknownPolicy
        When ``policy`` is unknown.
    """
    kwargs.setdefault("typical", typical_pods(trace))
    kwargs.setdefault("requests", pod_requests(trace))
    return [replay(trace, policy, seed=s, **kwargs) for s in seeds]
