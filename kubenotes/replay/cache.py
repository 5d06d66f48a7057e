"""Replays computed once, and the cluster at any point of a replay: what chapter 04.04's widgets read.

The engine (:func:`kubenotes.replay.engine.replay`) replays a trace once per
call. A notebook asks for the same replay many times (a slider, a dropdown),
so this module keeps:

* the pod-list variants of the trace (:data:`TRACE_VARIANTS`,
  :func:`trace_variant`), each loaded once per directory;
* replays per ``(policy, variant, seed)`` (:func:`cached_replay`,
  :func:`replay_policies`, :func:`replay_variants`; :func:`replay_many` runs
  the new ones of a batch in parallel processes, :func:`replay_in_background`
  starts them there and returns at once) and their CPU cost
  (:func:`replay_timings`);
* data derived once per trace (:func:`per_trace`, :func:`typical_of`,
  :func:`requests_of`, :func:`fragmentation_of`);
* a replay's allocation and fragmentation curves sampled for plotting
  (:func:`curves`), and its headline numbers averaged over seeds
  (:func:`seed_means`);
* the cluster after any number of placements, rebuilt from a replay's record
  and continued from a few kept checkpoints (:func:`events_at`,
  :func:`cluster_at`), one of its nodes as the simulator's ``NodeResource``
  (:func:`node_view_of`), its GPU allocation and fragmentation then
  (:func:`gpu_rates_at`), a node worth explaining (:func:`fragmented_node`)
  and a few nodes' cards and pods as a graph (:func:`placement_graph`).

Caches are module-level: per trace and per result they are keyed by ``id()``
and dropped with the object (``weakref.finalize``); replays by an LRU of 128.

Notes
-----
The paper's simulator has no cache: each experiment is a separate run. The
caches change no result; they only avoid computing one twice.

References
----------
hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/simulator.go (the replay loop)
hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go (NodeResource)
"""

from __future__ import annotations

import atexit
import collections
import concurrent.futures
import functools
import gc
import multiprocessing
import os
import time
import warnings
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from kubenotes.datasets.alibaba import (
    DEFAULT_PODS_FILE,
    MILLI_PER_GPU,
    TraceArrays,
    default_trace_dir,
    load_arrays,
)
from kubenotes.replay.engine import ClusterState, ReplayResult, UnknownPolicy, pod_requests, replay
from kubenotes.replay.policies import (
    PAPER_POLICY_NAMES,
    POLICY_NAMES,
    Fragmentation,
    NodeView,
    PodRequest,
    TypicalPods,
    typical_pods,
)

if TYPE_CHECKING:  # pragma: no cover - imported by placement_graph (networkx takes ~0.5 s to import)
    import networkx as nx

__all__ = [
    "TRACE_VARIANTS",
    "DEFAULT_SEED",
    "trace_variant",
    "cached_replay",
    "replay_many",
    "replay_in_background",
    "replay_policies",
    "replay_variants",
    "replay_timings",
    "per_trace",
    "typical_of",
    "requests_of",
    "fragmentation_of",
    "trace_of",
    "events_at",
    "cluster_at",
    "node_view_of",
    "fragmented_node",
    "seed_means",
    "gpu_rates_at",
    "placement_graph",
    "ARRIVED_PERCENT",
    "curves",
]

#: Pod-list variants of the trace the chapter offers: name -> file in the trace directory.
TRACE_VARIANTS: dict[str, str] = {
    "default": DEFAULT_PODS_FILE,
    "gpushare100": "openb_pod_list_gpushare100.csv",
    "multigpu50": "openb_pod_list_multigpu50.csv",
    "gpuspec33": "openb_pod_list_gpuspec33.csv",
    "cpu050": "openb_pod_list_cpu050.csv",
}
#: The paper's first seed; the chapter's curves use it.
DEFAULT_SEED = 42


def _dir_key(trace_dir: str | os.PathLike[str] | None) -> str:
    return str(Path(trace_dir) if trace_dir is not None else default_trace_dir())


def _variant_file(variant: str) -> str:
    if variant not in TRACE_VARIANTS:
        raise ValueError(f"unknown trace variant {variant!r}: one of {', '.join(TRACE_VARIANTS)}")
    return TRACE_VARIANTS[variant]


@functools.lru_cache(maxsize=8)
def _prepared(variant: str, directory: str) -> tuple[TraceArrays, TypicalPods, list[PodRequest]]:
    trace = load_arrays(directory, _variant_file(variant))
    return trace, typical_of(trace), requests_of(trace)


# Per-trace derived data, keyed by id() (TraceArrays is unhashable); entries die with the trace.
_PER_TRACE: dict[int, dict[str, Any]] = {}


def per_trace(trace: TraceArrays) -> dict[str, Any]:
    """A dict kept for one trace, for data derived from it (typical pods, requests, a figure's layout).

    Parameters
    ----------
    trace : TraceArrays

    Returns
    -------
    dict[str, Any]
        The same dict for the same trace object; it is dropped when the trace
        is garbage-collected (the trace's ``id()`` is the key: TraceArrays is
        unhashable).

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> per_trace(t) is per_trace(t)
    True
    """
    d = _PER_TRACE.get(id(trace))
    if d is None:
        d = _PER_TRACE[id(trace)] = {}
        weakref.finalize(trace, _PER_TRACE.pop, id(trace), None)
    return d


def typical_of(trace: TraceArrays) -> TypicalPods:
    """:func:`~kubenotes.replay.policies.typical_pods` of a trace, computed once per trace.

    Parameters
    ----------
    trace : TraceArrays

    Returns
    -------
    TypicalPods
        Shared between callers: do not modify it.

    See Also
    --------
    per_trace : where it is kept.

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> typical_of(t) is typical_of(t)
    True
    """
    d = per_trace(trace)
    if "typical" not in d:
        d["typical"] = typical_pods(trace)
    return d["typical"]


def requests_of(trace: TraceArrays) -> list[PodRequest]:
    """:func:`~kubenotes.replay.engine.pod_requests` of a trace (a :class:`PodRequest` per pod), computed once per trace.

    Parameters
    ----------
    trace : TraceArrays

    Returns
    -------
    list of PodRequest
        In the trace's pod order; shared between callers: do not modify it.

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> [r.gpu_milli for r in requests_of(t)], requests_of(t) is requests_of(t)
    ([500], True)
    """
    d = per_trace(trace)
    if "requests" not in d:
        d["requests"] = pod_requests(trace)
    return d["requests"]


def fragmentation_of(trace: TraceArrays, max_cards: int) -> Fragmentation:
    """The :class:`~kubenotes.replay.policies.Fragmentation` measure of a trace's typical pods, computed once per trace.

    Parameters
    ----------
    trace : TraceArrays
    max_cards : int
        Cards per node of the cluster measured (:attr:`ClusterState.max_cards`).

    Returns
    -------
    Fragmentation
        Shared between callers.

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> fragmentation_of(t, 2) is fragmentation_of(t, 2)
    True
    """
    d = per_trace(trace)
    key = ("fragmentation", max_cards)
    if key not in d:
        d[key] = Fragmentation(typical_of(trace), trace.models, max_cards)
    return d[key]


def trace_variant(variant: str = "default", trace_dir: str | os.PathLike[str] | None = None) -> TraceArrays:
    """The GPU nodes and one pod-list variant as :class:`~kubenotes.datasets.alibaba.TraceArrays` (cached).

    Parameters
    ----------
    variant : str
        A key of :data:`TRACE_VARIANTS`.
    trace_dir : str or path-like, optional
        Default :func:`default_trace_dir`.

    Returns
    -------
    TraceArrays
        The same object on every call with the same arguments.

    Raises
    ------
    ValueError
        On an unknown variant.
    TraceNotFound
        When the directory or a file is missing.
    TraceFormatError
        On a malformed row.

    See Also
    --------
    kubenotes.datasets.alibaba.load_arrays

    Examples
    --------
    A tiny synthetic trace directory (the real one is the Alibaba trace):

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "openb_node_list_gpu_node.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\\nn0,64000,262144,2,T4\\n")
    >>> _ = (d / "openb_pod_list_default.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np0,4000,1024,1,500\\n")
    >>> t = trace_variant(trace_dir=d)
    >>> t is trace_variant("default", d), t.num_nodes, t.num_pods, t.node_names
    (True, 1, 1, ['n0'])
    >>> trace_variant("gpushare50", d)
    Traceback (most recent call last):
    ...
    ValueError: unknown trace variant 'gpushare50': one of default, gpushare100, multigpu50, gpuspec33, cpu050
    """
    return _prepared(variant, _dir_key(trace_dir))[0]


_TIMINGS: dict[tuple[str, str, int, str], float] = {}
# Replays by (policy, variant, seed, directory), least recently used first; at most _MAX_REPLAYS kept.
_REPLAYS: collections.OrderedDict[tuple[str, str, int, str], ReplayResult] = collections.OrderedDict()
_MAX_REPLAYS = 128


def _replay_job(key: tuple[str, str, int, str]) -> tuple[ReplayResult, float]:
    """One replay of ``key`` and its CPU seconds (run in this process or in a worker of :func:`replay_many`)."""
    policy, variant, seed, directory = key
    trace, typical, requests = _prepared(variant, directory)
    t0 = time.thread_time()
    r = replay(trace, policy, seed=seed, typical=typical, requests=requests)
    return r, time.thread_time() - t0


def _worker_job(key: tuple[str, str, int, str]) -> tuple[ReplayResult, float]:
    """:func:`_replay_job` in a worker: the result travels back without its trace (the parent's is put back)."""
    r, seconds = _replay_job(key)
    r.cluster.trace = None
    return r, seconds


def _keep(key: tuple[str, str, int, str], result: ReplayResult, seconds: float) -> None:
    _TIMINGS[key] = seconds
    _REPLAYS[key] = result
    while len(_REPLAYS) > _MAX_REPLAYS:
        _REPLAYS.popitem(last=False)


def _cached_replay(policy: str, variant: str, seed: int, directory: str) -> ReplayResult:
    key = (policy, variant, seed, directory)
    r = _REPLAYS.get(key)
    if r is not None:
        _REPLAYS.move_to_end(key)
        return r
    if key in _PENDING:
        return _collect(key)
    r, seconds = _replay_job(key)
    _keep(key, r, seconds)
    return r


# Replays handed to worker processes and not collected yet (key -> future), and the pool running them; the pool is
# shut down once nothing is pending.
_PENDING: dict[tuple[str, str, int, str], concurrent.futures.Future] = {}
_POOL: concurrent.futures.ProcessPoolExecutor | None = None


def _submit(todo: Sequence[tuple[str, str, int, str]], workers: int) -> None:
    """Hand ``todo`` (keys neither cached nor pending) to the pool, started with ``workers`` forked processes if none runs."""
    global _POOL
    new = _POOL is None
    if new:
        _POOL = concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                                       initializer=_lower_priority)
        gc.freeze()  # the workers' collector then skips the objects they inherit (no copy-on-write of the heap)
    try:
        with warnings.catch_warnings():
            # Python >= 3.12 warns when a process with threads (a Jupyter kernel) forks: a lock another thread
            # holds stays held in the child. The workers only replay and send their result back.
            warnings.filterwarnings("ignore", message=".*fork", category=DeprecationWarning)
            for key in todo:  # the fork context starts every worker at the first submit
                _PENDING[key] = _POOL.submit(_worker_job, key)
    finally:
        if new:
            gc.unfreeze()


#: How much lower the workers' CPU priority is than this process's (``nice``).
WORKER_NICENESS = 10


def _lower_priority() -> None:
    """Run in each worker: replays in the background yield the CPU to the process that started them."""
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # pragma: no cover - not permitted here: same priority
        pass


def _forget(key: tuple[str, str, int, str]) -> None:
    _PENDING.pop(key, None)
    if not _PENDING:
        _stop_pool(wait=False)  # its workers are idle: they exit, the pool's thread reaps them


@atexit.register
def _stop_pool(wait: bool = True) -> None:
    """Shut the background pool down (at exit: cancel what has not started and wait for the workers)."""
    global _POOL
    if _POOL is not None:
        pool, _POOL = _POOL, None
        pool.shutdown(wait=wait, cancel_futures=wait)


def _collect(key: tuple[str, str, int, str]) -> ReplayResult:
    """Wait for a pending replay, keep it in the cache and return it (the result carries this process's trace)."""
    fut = _PENDING[key]
    try:
        r, seconds = fut.result()
    except BaseException:
        if fut.done():  # the replay failed or its worker died: forget it (an interrupt leaves it pending)
            _forget(key)
        raise
    _forget(key)
    r.cluster.trace = _prepared(key[1], key[3])[0]
    _keep(key, r, seconds)
    return r


def _workers(jobs: int, workers: int | None) -> int:
    if workers is None:
        try:
            workers = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            workers = os.cpu_count() or 1
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(int(workers), jobs))


def replay_many(specs: Iterable[tuple[str, str, int]], trace_dir: str | os.PathLike[str] | None = None, *,
                workers: int | None = None) -> dict[tuple[str, str, int], ReplayResult]:
    """:func:`cached_replay` of many independent ``(policy, variant, seed)`` runs, the new ones in parallel.

    Parameters
    ----------
    specs : iterable of (str, str, int)
        ``(policy, variant, seed)`` per replay; repeats are computed once.
    trace_dir : str or path-like, optional
        Default :func:`default_trace_dir`.
    workers : int, optional
        Processes to run the replays not cached yet in; default the CPU cores
        this process may use. 1 (or a single replay to compute, or a platform
        without ``fork``) replays them here, one after the other. Replays
        :func:`replay_in_background` started are waited for, and while its
        workers run they take the new ones too.

    Returns
    -------
    dict[tuple[str, str, int], ReplayResult]
        Spec -> result, in the order of ``specs``; each result is the one
        :func:`cached_replay` returns afterwards, and its records equal those
        of a replay in this process (each run depends only on its own seed).

    Raises
    ------
    UnknownPolicy, ValueError, TraceNotFound
        As :func:`cached_replay`, before any replay runs.

    See Also
    --------
    cached_replay, replay_policies, replay_variants, replay_in_background

    Notes
    -----
    The paper's simulator runs its experiments as separate processes too
    (one per policy and seed). The workers are forked
    (:class:`concurrent.futures.ProcessPoolExecutor` with the ``fork``
    context), so they start with the traces this process has read; a
    result comes back without its trace, and this process's own trace
    object is put back (the per-trace caches are keyed by it).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "openb_node_list_gpu_node.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\\nn0,64000,262144,2,T4\\n")
    >>> _ = (d / "openb_pod_list_default.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np0,4000,1024,1,500\\n")
    >>> runs = replay_many([("BestFit", "default", 42), ("DotProd", "default", 43)], d, workers=2)
    >>> list(runs), runs["BestFit", "default", 42] is cached_replay("BestFit", "default", 42, d)
    ([('BestFit', 'default', 42), ('DotProd', 'default', 43)], True)
    >>> trace_of(runs["DotProd", "default", 43]) is trace_variant("default", d)
    True
    """
    directory = _dir_key(trace_dir)
    keys = {(p, v, int(s), directory): (p, v, s) for p, v, s in specs}
    todo = _new_keys(keys, directory)
    n = _workers(len(todo), workers)
    if n > 1:
        _submit(todo, n)
    return {(p, v, s): _cached_replay(p, v, s, d) for (p, v, s, d) in keys}


def _new_keys(keys: Iterable[tuple[str, str, int, str]], directory: str) -> list[tuple[str, str, int, str]]:
    """Check every key's policy and variant (reading each variant here, for the workers to inherit); the keys to compute."""
    for p, v, _s, _d in keys:
        _prepared(v, directory)
        if p not in POLICY_NAMES:
            raise UnknownPolicy(p)
    return [k for k in keys if k not in _REPLAYS and k not in _PENDING]


def replay_in_background(specs: Iterable[tuple[str, str, int]], trace_dir: str | os.PathLike[str] | None = None, *,
                         workers: int | None = None) -> int:
    """Start :func:`cached_replay` of many ``(policy, variant, seed)`` runs in worker processes, and return at once.

    A notebook calls it in its setup cell with every replay it will show: the
    replays then compute while the cells before the first one that needs them
    run (and draw), and :func:`cached_replay`, :func:`replay_many`,
    :func:`replay_policies` and :func:`replay_variants` wait for a replay
    still running instead of computing it again.

    Parameters
    ----------
    specs : iterable of (str, str, int)
        ``(policy, variant, seed)`` per replay, in the order they are wanted
        (the workers take them in this order); repeats and replays already
        cached or running are skipped.
    trace_dir : str or path-like, optional
        Default :func:`default_trace_dir`.
    workers : int, optional
        Processes; default the CPU cores this process may use. Ignored when
        replays started earlier are still running (their pool takes the new
        ones too).

    Returns
    -------
    int
        How many replays were started. 0 when all were cached or running,
        and on a platform without ``fork`` or a single core (each replay is
        then computed when first asked for).

    Raises
    ------
    UnknownPolicy, ValueError, TraceNotFound
        As :func:`cached_replay`, before any replay starts.

    See Also
    --------
    replay_many : the same, waiting for the results.

    Notes
    -----
    The results are those of :func:`replay_many`, record for record; only
    the moment they are computed changes. The workers run at a lower CPU
    priority (``nice`` +:data:`WORKER_NICENESS`), so the cells running
    meanwhile (imports, drawing) are not slowed down: the workers get the
    cores this process leaves idle. The pool's processes exit once every
    replay handed to them has been collected.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "openb_node_list_gpu_node.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\\nn0,64000,262144,2,T4\\n")
    >>> _ = (d / "openb_pod_list_default.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np0,4000,1024,1,500\\n")
    >>> replay_in_background([("FGD", "default", 42), ("Random", "default", 42), ("FGD", "default", 42)], d, workers=2)
    2
    >>> r = cached_replay("FGD", "default", 42, d)  # waits for the worker's result
    >>> r.allocation_percent.tolist(), replay_in_background([("FGD", "default", 42)], d, workers=2)
    ([25.0, 50.0, 75.0, 100.0, 100.0], 0)
    >>> _ = cached_replay("Random", "default", 42, d)  # collect the other one too: nothing is left running
    """
    directory = _dir_key(trace_dir)
    todo = _new_keys(dict.fromkeys((p, v, int(s), directory) for p, v, s in specs), directory)
    one_core = workers is None and _workers(2, None) < 2
    if not todo or one_core or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    _submit(todo, _workers(len(todo), workers))
    return len(todo)


def cached_replay(policy: str, variant: str = "default", seed: int = DEFAULT_SEED,
                  trace_dir: str | os.PathLike[str] | None = None) -> ReplayResult:
    """:func:`kubenotes.replay.engine.replay` of one policy on one variant, computed once per ``(policy, variant, seed)``.

    Parameters
    ----------
    policy : str
        One of :data:`~kubenotes.replay.policies.POLICY_NAMES`.
    variant : str
        A key of :data:`TRACE_VARIANTS`.
    seed : int
    trace_dir : str or path-like, optional
        Default :func:`default_trace_dir`.

    Returns
    -------
    ReplayResult
        Shared between callers: do not modify it.

    Raises
    ------
    UnknownPolicy
        On an unknown policy.
    ValueError
        On an unknown variant.
    TraceNotFound
        When the trace is missing.

    See Also
    --------
    replay_policies, replay_timings

    Notes
    -----
    The paper's setting: inflation to 130% of GPU capacity, name-order tie
    break, typical pods of the whole variant.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "openb_node_list_gpu_node.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\\nn0,64000,262144,2,T4\\n")
    >>> _ = (d / "openb_pod_list_default.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np0,4000,1024,1,500\\n")
    >>> r = cached_replay("FGD", trace_dir=d)
    >>> r is cached_replay("FGD", trace_dir=d), r.policy, r.allocation_percent.tolist()
    (True, 'FGD', [25.0, 50.0, 75.0, 100.0, 100.0])
    """
    return _cached_replay(policy, variant, int(seed), _dir_key(trace_dir))


def replay_policies(policies: Iterable[str] = POLICY_NAMES, variant: str = "default", seed: int = DEFAULT_SEED,
                    trace_dir: str | os.PathLike[str] | None = None) -> dict[str, ReplayResult]:
    """:func:`cached_replay` for each policy.

    Parameters
    ----------
    policies : iterable of str
        Default all nine, in :data:`~kubenotes.replay.policies.POLICY_NAMES` order.
    variant : str
    seed : int
    trace_dir : str or path-like, optional

    Returns
    -------
    dict[str, ReplayResult]
        Policy -> result, in the given order.

    Raises
    ------
    UnknownPolicy, ValueError, TraceNotFound
        As :func:`cached_replay`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "openb_node_list_gpu_node.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\\nn0,64000,262144,2,T4\\n")
    >>> _ = (d / "openb_pod_list_default.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np0,4000,1024,1,500\\n")
    >>> res = replay_policies(["Random", "FGD"], trace_dir=d)
    >>> list(res), res["FGD"] is cached_replay("FGD", trace_dir=d)
    (['Random', 'FGD'], True)
    >>> sorted(k for k in replay_timings() if k[0] in res and k[1:] == ("default", 42))
    [('FGD', 'default', 42), ('Random', 'default', 42)]
    """
    runs = replay_many([(p, variant, seed) for p in policies], trace_dir)
    return {p: runs[p, variant, seed] for p in policies}


def replay_timings() -> dict[tuple[str, str, int], float]:
    """CPU seconds of every replay :func:`cached_replay` has computed so far (cache hits cost nothing).

    Parameters
    ----------
    None
        It reads the module's record of :func:`cached_replay` computations.

    Returns
    -------
    dict[tuple[str, str, int], float]
        ``(policy, variant, seed)`` -> seconds (the last directory wins when
        several trace directories were replayed); a new dict on each call.
        A replay runs on one core, so this is what it costs there, also when
        it ran in a worker process beside other work.

    Raises
    ------
    None
        Reading the record cannot fail: before any replay it is an empty dict.

    See Also
    --------
    replay_policies, cached_replay

    Notes
    -----
    CPU time of the replaying thread (``time.thread_time``): unlike wall-clock
    time, other processes sharing the cores do not inflate it. It still
    differs a little from run to run; compare policies within one run only.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "openb_node_list_gpu_node.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\\nn0,64000,262144,2,T4\\n")
    >>> _ = (d / "openb_pod_list_default.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np0,4000,1024,1,500\\n")
    >>> _ = cached_replay("BestFit", trace_dir=d)
    >>> seconds = replay_timings()[("BestFit", "default", 42)]
    >>> isinstance(seconds, float) and seconds >= 0
    True
    """
    return {(p, v, s): t for (p, v, s, _), t in _TIMINGS.items()}


# ---------------------------------------------------------------------------
# the cluster at a point of the replay


def events_at(result: ReplayResult, arrived_percent: float) -> int:
    """How many pods had arrived when the arrived workload reached ``arrived_percent``.

    Parameters
    ----------
    result : ReplayResult
    arrived_percent : float
        Requested GPU so far, percent of the cluster's GPU capacity.

    Returns
    -------
    int
        The number of events whose arrived workload is at most that much.

    Raises
    ------
    AttributeError
        ``result`` is not a ReplayResult (no ``arrived_gpu_milli``).

    Examples
    --------
    >>> r = ReplayResult("X", 0, "", 1000, np.array([0, 1, 2]), np.array([0, 0, -1]), [[0], [0], []],
    ...                  np.array([300, 600, 1100]), np.array([300, 600, 600]), np.zeros(3))
    >>> events_at(r, 0), events_at(r, 60), events_at(r, 109), events_at(r, 130)
    (0, 2, 2, 3)
    """
    return int(np.searchsorted(result.arrived_gpu_milli * 100.0, arrived_percent * result.total_gpu_milli,
                               side="right"))


def trace_of(result: ReplayResult) -> TraceArrays:
    """The trace a replay ran on (its final cluster's).

    Parameters
    ----------
    result : ReplayResult

    Returns
    -------
    TraceArrays

    Raises
    ------
    ValueError
        When the result carries no cluster (one not made by
        :func:`~kubenotes.replay.engine.replay`).

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> trace_of(replay(t, "BestFit", tuning_ratio=0)) is t
    True
    """
    if result.cluster is None:
        raise ValueError("the result has no cluster (and so no trace): use a result of kubenotes.replay.engine.replay")
    return result.cluster.trace


def cluster_at(result: ReplayResult, events: int) -> ClusterState:
    """The cluster after the first ``events`` placements of a replay, rebuilt from its record.

    Parameters
    ----------
    result : ReplayResult
        A result of :func:`~kubenotes.replay.engine.replay` (its ``cluster``
        gives the trace).
    events : int
        0 gives the empty cluster; ``len(result.pod_index)`` the final one.

    Returns
    -------
    ClusterState
        A new object (the result's final ``cluster`` is left alone).

    Raises
    ------
    ValueError
        When ``events`` is out of range or the result carries no cluster.

    Notes
    -----
    The engine keeps only the final state; this applies the recorded
    placements (node and cards per event) with
    :meth:`~kubenotes.replay.engine.ClusterState.place_recorded`, the
    array form of :meth:`~kubenotes.replay.engine.ClusterState.place`. The last few clusters built per
    result are kept, and a later call continues from the latest one at or
    before ``events`` (a slider moving up places only the new events, the
    same value asked twice places none).

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")],
    ...                           [PodRow("a", 1000, 1024, 1, 500), PodRow("b", 1000, 1024, 1, 1000)])
    >>> r = replay(t, "BestFit", tuning_ratio=0, order=[0, 1])
    >>> cluster_at(r, 1).gpu_left.tolist(), cluster_at(r, 2).gpu_left.tolist()
    ([[500, 1000]], [[500, 0]])
    """
    trace = trace_of(result)
    n = len(result.pod_index)
    if not 0 <= events <= n:
        raise ValueError(f"events must be between 0 and {n}, not {events}")
    reqs = requests_of(trace)
    kept = _CHECKPOINTS.get(id(result))
    if kept is None:
        kept = _CHECKPOINTS[id(result)] = {}
        weakref.finalize(result, _CHECKPOINTS.pop, id(result), None)
    start = max((e for e in kept if e <= events), default=None)
    c = kept[start].copy() if start is not None else ClusterState(trace)
    first = start or 0
    c.place_recorded(result.node_index[first:events], [reqs[i] for i in result.pod_index[first:events].tolist()],
                     result.gpu_cards[first:events])
    if events not in kept:
        if len(kept) >= _MAX_CHECKPOINTS:
            kept.pop(next(iter(kept)))
        kept[events] = c.copy()
    return c


# Per result (by id(); entries die with it), a few clusters cluster_at built (events -> state), to continue from.
_CHECKPOINTS: dict[int, dict[int, ClusterState]] = {}
_MAX_CHECKPOINTS = 8


def node_view_of(cluster: ClusterState, node: int | str) -> NodeView:
    """One node of a :class:`~kubenotes.replay.engine.ClusterState` as the simulator's ``NodeResource`` (a :class:`NodeView`).

    Parameters
    ----------
    cluster : ClusterState
    node : int or str
        Node index or name.

    Returns
    -------
    NodeView
        Free CPU, memory and per-card GPU, card model.

    Raises
    ------
    ValueError
        When no node has that name.
    IndexError
        When a node index is out of range.

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> c = ClusterState(t); c.place(0, pod_requests(t)[0], [1])
    >>> v = node_view_of(c, "n1"); v.gpu_left, v.milli_cpu_left, v.model
    ([1000, 500], 31000, 'T4')
    """
    names = cluster.trace.node_names
    i = names.index(node) if isinstance(node, str) else int(node)
    count = int(cluster.gpu_count[i])
    model = cluster.models[int(cluster.node_model[i])] if count > 0 else ""
    return NodeView(names[i], int(cluster.milli_cpu_left[i]), int(cluster.milli_cpu_capacity[i]),
                    int(cluster.memory_left[i]), int(cluster.memory_capacity[i]),
                    [int(x) for x in cluster.gpu_left[i, :count]], model)


def fragmented_node(cluster: ClusterState) -> str:
    """A node worth explaining: an idle, a partly used and a full card, and some typical pods still fit.

    Parameters
    ----------
    cluster : ClusterState

    Returns
    -------
    str
        The most fragmented node (thousandths of a GPU) that has an idle, a
        partly used and a full card and less than 90% of its idle GPU
        fragmented; without one, the most fragmented node with such cards,
        then with a partly used card, then the first GPU node.

    Raises
    ------
    AttributeError
        ``cluster`` is not a ClusterState. (With no GPU node at all, the
        first node's name is returned.)

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("a", 32000, 1 << 20, 2, "T4"), NodeRow("b", 32000, 1 << 20, 4, "T4")],
    ...                           [PodRow("p", 1000, 1024, 1, 500), PodRow("q", 1000, 1024, 1, 1000)])
    >>> c = ClusterState(t); r = pod_requests(t); c.place(1, r[0], [0]); c.place(1, r[1], [1])
    >>> fragmented_node(c)
    'b'
    """
    left = cluster.gpu_left
    has = np.arange(cluster.max_cards)[None, :] < cluster.gpu_count[:, None]
    partial = ((left > 0) & (left < MILLI_PER_GPU) & has).any(axis=1)
    idle = ((left == MILLI_PER_GPU) & has).any(axis=1)
    full = ((left == 0) & has).any(axis=1)
    frag = cluster.node_fragmentation(fragmentation_of(cluster.trace, cluster.max_cards))
    some_fit = frag < 0.9 * cluster.total_gpu_left
    for mask in (partial & idle & full & some_fit, partial & idle & full, partial):
        if mask.any():
            idx = np.nonzero(mask)[0]
            return cluster.trace.node_names[int(idx[np.argmax(frag[idx])])]
    return cluster.trace.node_names[int(np.argmax(cluster.gpu_count > 0))]


def seed_means(results: Mapping[str, ReplayResult | Iterable[ReplayResult]]) -> dict[str, dict[str, float]]:
    """Per policy, the chapter's headline numbers averaged over seeds.

    Parameters
    ----------
    results : mapping of str to ReplayResult or iterable of ReplayResult
        Policy -> one result, or one per seed.

    Returns
    -------
    dict[str, dict[str, float]]
        Policy -> ``seeds`` (how many results), ``allocation_100`` and
        ``allocation_130`` (GPU allocation ratio at 100% and 130% arrived
        workload), ``fragmentation_90`` (fragmentation rate at 90%), each the
        mean of :meth:`ReplayResult.at` over the seeds that have a value (NaN
        when none has), and ``failed_pods`` (mean over all seeds).

    Raises
    ------
    TypeError
        A value of ``results`` is neither a ReplayResult nor an iterable of them.

    See Also
    --------
    kubenotes.replay.cli.summarize : the same points as JSON, rounded to 2 decimals.
    kubenotes.viz.replay.results_table

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator experiments/plot/plot_openb_alloc.py, plot_openb_frag_ratio.py (means over seeds)

    Examples
    --------
    >>> r = ReplayResult("FGD", 42, "", 1000, np.array([0, 1]), np.array([0, -1]), [[0], []],
    ...                  np.array([1000, 1300]), np.array([950, 950]), np.array([10.0, 10.0]))
    >>> m = seed_means({"FGD": r})["FGD"]
    >>> m["seeds"], round(m["allocation_100"], 2), round(m["allocation_130"], 2), m["failed_pods"]
    (1, 95.0, 95.0, 1.0)
    """
    def mean(values: list[float]) -> float:
        v = np.asarray(values, dtype=np.float64)
        v = v[np.isfinite(v)]
        return float(v.mean()) if len(v) else float("nan")

    out = {}
    for name, rs in results.items():
        lst = [rs] if isinstance(rs, ReplayResult) else list(rs)
        out[name] = {"seeds": len(lst), "allocation_100": mean([r.at("allocation", 100) for r in lst]),
                     "allocation_130": mean([r.at("allocation", 130) for r in lst]),
                     "fragmentation_90": mean([r.at("fragmentation", 90) for r in lst]),
                     "failed_pods": float(np.mean([r.failed_pods for r in lst]))}
    return out


def gpu_rates_at(result: ReplayResult, events: int) -> tuple[float, float]:
    """The GPU allocation ratio and fragmentation rate of a replay right after its first ``events`` placements.

    Parameters
    ----------
    result : ReplayResult
    events : int
        Placements done (``0``: the empty cluster); e.g. :func:`events_at`.

    Returns
    -------
    tuple of (float, float)
        Percent of the cluster's GPU allocated, and percent of the idle GPU
        fragmented (NaN when no GPU is idle). These are the replay's own
        per-event values, not the per-bucket means of :meth:`ReplayResult.at`.
        Before any placement: ``0.0`` and the empty cluster's fragmentation
        (:func:`fragmentation_of`) over its GPU.

    Raises
    ------
    IndexError
        When ``events`` is larger than the replay's number of events.
    ValueError
        With ``events`` 0, when ``result`` carries no cluster (as :func:`cluster_at`).

    See Also
    --------
    events_at, curves, kubenotes.viz.replay.occupancy_figure

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/simulator.go (the allocation and fragmentation it reports)

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> r = replay(t, "BestFit", tuning_ratio=0)
    >>> gpu_rates_at(r, 1)[0], gpu_rates_at(r, 0)[0]
    (25.0, 0.0)
    """
    if events:
        alloc = 100 * result.allocated_gpu_milli[events - 1] / result.total_gpu_milli
        idle = result.total_gpu_milli - result.allocated_gpu_milli[events - 1]
        rate = 100 * result.frag_gpu_milli[events - 1] / idle if idle > 0 else float("nan")
        return float(alloc), float(rate)
    cluster = cluster_at(result, 0)
    return 0.0, float(100 * cluster.node_fragmentation(
        fragmentation_of(trace_of(result), cluster.max_cards)).sum() / max(result.total_gpu_milli, 1))


def placement_graph(result: ReplayResult, arrived_percent: float | None, nodes: Sequence[str], *,
                    events: int | None = None) -> nx.DiGraph:
    """Nodes -> GPU cards -> pods for a few nodes at one arrived workload.

    Parameters
    ----------
    result : ReplayResult
    arrived_percent : float or None
        The moment to show (see :func:`events_at`).
    nodes : sequence of str
        Node names.
    events : int, optional
        Show the cluster after this many events instead (e.g. ``event + 1``
        of :func:`fgd_explain`, to include the pod it explains).

    Returns
    -------
    networkx.DiGraph
        Graph nodes ``node/<name>`` (``kind="node"``, ``model``),
        ``card/<name>/<i>`` (``kind="card"``, ``index``, ``free`` in
        thousandths), ``pod/<event>`` (``kind="pod"``, ``name``, ``num_gpu``,
        ``gpu_milli`` per card, ``milli_cpu``); edges node -> card and card ->
        pod (``gpu_milli``). CPU-only pods hang off the node.

    Raises
    ------
    ValueError
        When a name is not a node of the trace, when both ``arrived_percent``
        and ``events`` are None, or when ``result`` carries no cluster.

    See Also
    --------
    cluster_at, kubenotes.viz.replay.placement_figure

    References
    ----------
    hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go (NodeResource: free GPU per card)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/types.go (NodeInfo: the pods of a node)

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow, TraceArrays
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")],
    ...                           [PodRow("a", 1000, 1024, 1, 500), PodRow("b", 1000, 1024, 1, 300)])
    >>> g = placement_graph(replay(t, "BestFit", tuning_ratio=0, order=[0, 1]), 100, ["n1"])
    >>> sorted(g.successors("card/n1/0")), g.nodes["card/n1/0"]["free"]
    (['pod/0', 'pod/1'], 200)
    """
    trace = trace_of(result)
    idx = {n: trace.node_names.index(n) for n in nodes}
    if events is None and arrived_percent is None:
        raise ValueError("give arrived_percent or events")
    e = events_at(result, arrived_percent) if events is None else int(events)
    cluster = cluster_at(result, e)
    import networkx as nx

    g = nx.DiGraph()
    for name, i in idx.items():
        count = int(cluster.gpu_count[i])
        g.add_node(f"node/{name}", kind="node", name=name, model=trace.models[int(trace.node_model[i])] if count else "")
        for c in range(count):
            g.add_node(f"card/{name}/{c}", kind="card", node=name, index=c, free=int(cluster.gpu_left[i, c]))
            g.add_edge(f"node/{name}", f"card/{name}/{c}")
    where = {i: n for n, i in idx.items()}
    for ev in range(e):
        i = int(result.node_index[ev])
        if i not in where:
            continue
        p = int(result.pod_index[ev])
        pid = f"pod/{ev}"
        g.add_node(pid, kind="pod", name=trace.pod_names[p], num_gpu=int(trace.pod_num_gpu[p]),
                   gpu_milli=int(trace.pod_gpu_milli[p]), milli_cpu=int(trace.pod_milli_cpu[p]))
        cards = result.gpu_cards[ev]
        if not cards:
            g.add_edge(f"node/{where[i]}", pid, gpu_milli=0)
        for c in cards:
            g.add_edge(f"card/{where[i]}/{c}", pid, gpu_milli=int(trace.pod_gpu_milli[p]))
    return g


def replay_variants(policies: Iterable[str] = PAPER_POLICY_NAMES, variants: Iterable[str] = TRACE_VARIANTS,
                    seed: int = DEFAULT_SEED, trace_dir: str | os.PathLike[str] | None = None,
                    ) -> dict[str, dict[str, ReplayResult]]:
    """:func:`replay_policies` on each pod-list variant: variant -> policy -> result (cached).

    Parameters
    ----------
    policies : iterable of str
        Default: the six policies the paper compares.
    variants : iterable of str
        Keys of :data:`TRACE_VARIANTS` (default: all five).
    seed : int
    trace_dir : str or path-like, optional

    Returns
    -------
    dict of str to dict of str to ReplayResult

    Raises
    ------
    UnknownPolicy, ValueError, TraceNotFound
        As :func:`cached_replay`; a variant file missing from the trace
        directory raises TraceNotFound.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "openb_node_list_gpu_node.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\\nn0,64000,262144,2,T4\\n")
    >>> _ = (d / "openb_pod_list_default.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np0,4000,1024,1,500\\n")
    >>> _ = (d / "openb_pod_list_cpu050.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\\np0,4000,1024,1,1000\\n")
    >>> by = replay_variants(["BestFit", "FGD"], ["default", "cpu050"], trace_dir=d)
    >>> [(v, list(rs)) for v, rs in by.items()]
    [('default', ['BestFit', 'FGD']), ('cpu050', ['BestFit', 'FGD'])]
    >>> by["default"]["FGD"].allocation_percent.tolist(), by["cpu050"]["FGD"].allocation_percent.tolist()
    ([25.0, 50.0, 75.0, 100.0, 100.0], [50.0, 100.0])
    """
    policies, variants = list(policies), list(variants)
    runs = replay_many([(p, v, seed) for v in variants for p in policies], trace_dir)
    return {v: {p: runs[p, v, seed] for p in policies} for v in variants}


#: The arrived-workload percentages the chapter's curves are sampled at (0-130).
ARRIVED_PERCENT = np.arange(0, 131)

# Per result (by id(); entries die with it), its sampled curves.
_CURVE_CACHE: dict[int, dict[str, np.ndarray]] = {}


def curves(result: ReplayResult) -> dict[str, np.ndarray]:
    """A replay's allocation and fragmentation curves at :data:`ARRIVED_PERCENT`, computed once per result.

    Parameters
    ----------
    result : ReplayResult

    Returns
    -------
    dict[str, numpy.ndarray]
        ``"allocation"`` and ``"fragmentation"`` -> :meth:`ReplayResult.curve`
        of that metric (float64, one value per percentage). Shared: do not
        modify.

    Examples
    --------
    >>> from kubenotes.datasets.alibaba import NodeRow, PodRow
    >>> t = TraceArrays.from_rows([NodeRow("n1", 32000, 1 << 20, 2, "T4")], [PodRow("a", 1000, 1024, 1, 500)])
    >>> r = replay(t, "BestFit", tuning_ratio=0)
    >>> c = curves(r); sorted(c), len(c["allocation"]), curves(r) is c
    (['allocation', 'fragmentation'], 131, True)
    """
    c = _CURVE_CACHE.get(id(result))
    if c is None:
        c = _CURVE_CACHE[id(result)] = {m: result.curve(m, ARRIVED_PERCENT)
                                        for m in ("allocation", "fragmentation")}
        weakref.finalize(result, _CURVE_CACHE.pop, id(result), None)
    return c
