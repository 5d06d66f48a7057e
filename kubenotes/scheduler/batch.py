"""Vectorised Filter and Score over many nodes at once, for the untraced scheduler.

kube-scheduler runs Filter and Score over nodes in 16 goroutines
(``pkg/scheduler/framework/parallelize``); kubenotes' traced path runs the
plugins node after node in Python. With ``trace=False`` the scheduler instead
asks each plugin's fast forms for a whole batch of nodes at once, over the
numpy arrays of :class:`~kubenotes.scheduler.arrays.SnapshotArrays`:

* the fast forms of a plugin are looked up by its ``NAME``
  (:func:`~kubenotes.scheduler.fast.registry.fast_forms`); the plugin
  modules hold none of this. They may define
  ``filter_batch(state, pod, arrays, idx) -> bool array`` and
  ``score_batch(state, pod, arrays, idx) -> int64 array`` (and, for a plugin
  with score extensions, ``normalize_score_batch(state, pod, scores) -> int64
  array``), where ``idx`` are snapshot node indices; returning ``None`` means
  "not for this pod" and the scheduler falls back to the per-node path. A
  plugin without fast forms (out-of-tree ones) always takes the per-node path;
* the fast forms may declare facts the batch relies on to skip per-node work:
  ``filter_ignores_node_pods`` (its Filter reads the node object and the pod
  only, never the node's pods), ``filter_reads_requests_only`` (its Filter
  reads only the node's allocatable, requested and number of pods, so a
  :class:`~kubenotes.scheduler.framework.node_info.RequestsLedger` stands in
  for the node, and its ``filter_batch`` takes the nominated pods' totals as
  a fifth argument: NodeResourcesFit), ``filter_error_free`` (its Filter
  returns an Error only without its PreFilter state) and
  ``add_pod_error_free`` (the same for its PreFilter extension's AddPod);
  undeclared means no; ``filter_reads_pod_spec`` names the ``spec`` fields
  a node-object Filter reads of the pod (preemption's dry run remembers
  victims per node for pods equal in those). They may also say which
  nodes get equal Filter statuses (``filter_status_key_batch``);
* :func:`filter_nodes_batch`, :func:`score_nodes_batch` and
  :func:`select_host_index` combine them exactly as ``RunFilterPlugins``,
  ``RunScorePlugins`` and ``selectHost`` do.

Decisions are identical to the per-node path: a batch method computes the
same predicate or score with the same integer (and, for
BalancedAllocation, float) arithmetic, plugins skipped at PreFilter/PreScore
are skipped, a node with nominated pods that the batch passes also runs the
per-node pass with those pods added (``RunFilterPluginsWithNominatedPods``'
first pass; the batch is its second), a pod that fits nowhere gets each
node's status from the first plugin that rejects it
(:func:`filter_statuses_batch`), and anything unusual (an Error status, a
score out of range, a plugin without a batch method) sends the scheduler
back to the per-node code.

Notes
-----
This module has no upstream counterpart: it stands for Go's parallelism.
Only the untraced scheduler uses it; traces always come from the per-node path.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/schedule_one.go (findNodesThatPassFilters, prioritizeNodes, selectHost)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/runtime/framework.go (RunFilterPlugins, RunScorePlugins)
"""

from __future__ import annotations

import bisect
import random
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from kubenotes.scheduler.arrays import SnapshotArrays, pod_spec_key
from kubenotes.scheduler.fast.registry import fast_forms
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, Code, Status
from kubenotes.scheduler.framework.node_info import RequestsLedger

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "filter_nodes_batch",
    "filter_statuses_batch",
    "ge_nominated_positions",
    "score_nodes_batch",
    "select_host_index",
    "plugin_plan",
    "requests_decide",
]

_I64 = np.int64


# --------------------------------------------------------------------------- framework
def filter_nodes_batch(fw: Any, state: "CycleState", pod: "PodInfo", arrays: SnapshotArrays,
                       idx: np.ndarray, first_rejecting: list[tuple[list[Any], np.ndarray]] | None = None
                       ) -> np.ndarray | None:
    """Which of the nodes ``idx`` pass every Filter plugin (``RunFilterPluginsWithNominatedPods``, batched).

    Parameters
    ----------
    fw : Framework
    state : CycleState
    pod : PodInfo
    arrays : SnapshotArrays
    idx : numpy.ndarray
        Snapshot node indices, int64.
    first_rejecting : list, optional
        Receives ``(plugins, first)``: the Filter plugins that ran and, per
        node of ``idx``, the index of the first that rejects it without the
        nominated pods (-1: none); for :func:`filter_statuses_batch`.

    Returns
    -------
    numpy.ndarray or None
        Boolean mask aligned with ``idx``; None when some enabled, non-skipped
        Filter plugin has no batch method, declines this pod, or a node's
        Filter would return an Error (the caller then uses the per-node path).

    Notes
    -----
    A node with pods of equal or higher priority nominated to it, which the
    batch lets through, is filtered again by the per-node
    ``run_filter_plugins_with_nominated_pods``: the pod must also fit beside
    them. A node the batch rejects stays rejected (upstream's second pass, without
    the nominated pods, would reject it), and one whose nominated pods all have
    a lower priority is not affected by them. NodeResourcesFit with the
    nominated pods' totals added settles the node when it rejects there, and
    also when it passes there if :func:`requests_decide` (no other Filter
    that runs reads the node's pods).
    """
    got = _first_rejecting_plugin(fw, state, pod, arrays, idx)
    if got is None:
        return None
    plugins, first = got
    if first_rejecting is not None:
        first_rejecting.append(got)
    mask = first < 0
    recheck = ge_nominated_positions(fw, pod, arrays, idx)
    if len(recheck):
        # The batch is the second pass (without the nominated pods); only the first remains.
        # Rejected without them: the second pass rejects it whatever the first says.
        fit = _fit_decides_first_pass(fw, state, plugins)
        recheck = recheck[mask[recheck]]
        if fit is not None and len(recheck):
            fits = fast_forms(fit, fw).filter_batch(state, pod, arrays, idx[recheck], ge_nominated_totals(fw, pod, arrays))
            if fits is None:
                return None
            mask[recheck[~fits]] = False
            recheck = recheck[fits]
            if len(recheck) and _filter_plan(fw, state)[4]:
                # Every other Filter reads the node object only (passed above) and no AddPod runs: the first
                # pass passes where Fit passes with the nominated pods added.
                recheck = recheck[:0]
        for pos in recheck.tolist():
            ni = arrays.node_infos[int(idx[pos])]
            s = _with_nominated_pods_pass(fw, state, pod, ni)
            if s is None:
                continue
            if not s.is_rejected():
                return None
            mask[pos] = False
    return mask


def _fit_decides_first_pass(fw: Any, state: "CycleState", plugins: list[Any]) -> Any:
    """The first plugin declaring ``filter_reads_requests_only`` (NodeResourcesFit, "Fit" below) when its rejection
    alone settles the first pass of ``RunFilterPluginsWithNominatedPods``.

    That pass fails on a node once Fit rejects it with the nominated pods
    added, provided nothing before Fit can turn the pass into an Error
    instead: every plugin running before Fit declares ``filter_error_free``,
    and every PreFilter extension that would see the added pods declares
    ``add_pod_error_free`` (see the module docstring). None otherwise.
    """
    for pl in plugins:
        forms = fast_forms(pl, fw)
        if getattr(forms, "filter_reads_requests_only", False):
            break
        if not getattr(forms, "filter_error_free", False):
            return None
    else:
        return None
    skip = state.skip_filter_plugins
    for ext_pl in fw.pre_filter_plugins:
        if ext_pl.pre_filter_extensions() is not None and ext_pl.name() not in skip \
                and not getattr(fast_forms(ext_pl, fw), "add_pod_error_free", False):
            return None
    return pl


def _fit_status_with_nominated_pods(fit: Any, fw: Any, state: "CycleState", pod: "PodInfo",
                                    node_info: "NodeInfo") -> Status | None:
    """NodeResourcesFit's rejection of ``node_info`` with the nominated pods of at least ``pod``'s priority added.

    None when Fit passes there, nothing is added, or an added pod has host
    ports (NodePorts, which runs before Fit, could then reject first).
    """
    added = fw.ge_nominated_pods(pod, node_info.name)
    if not added or any(p.host_ports for p in added):
        return None
    totals = RequestsLedger(node_info)
    for p in added:
        totals.add_pod(p)
    s = fit.filter(state, pod, totals)
    if s is None or s.code == Code.SUCCESS or not s.is_rejected():
        return None
    s.plugin = fit.name()
    return s


def plugin_plan(fw: Any, name: str, skip: set[str], build: Callable[[Any, Any], Any], state: Any) -> Any:
    """What ``build(fw, state)`` derives from ``fw``'s plugin lists, made once per ``name`` and set ``skip``.

    kubenotes only. A framework's plugin lists do not change once it is
    built, so what the batch paths and preemption's dry run read off them
    (which plugins run, their batch methods, which path applies) depends
    only on the plugins a cycle skips; it is kept on the framework.

    Parameters
    ----------
    fw : Framework
    name : str
        Names the derivation.
    skip : set of str
        The skipped plugins ``build`` reads from ``state`` (the key).
    build : callable(fw, state)
        Reads nothing of ``state`` but ``skip``.
    state : CycleState
    """
    plans = getattr(fw, "_batch_plans", None)
    if plans is None:
        plans = fw._batch_plans = {}
    key = (name, frozenset(skip))
    if key in plans:
        return plans[key]
    got = plans[key] = build(fw, state)
    return got


def requests_decide(fw: Any, state: "CycleState | None") -> bool:
    """Whether resource totals decide every Filter this cycle runs, with no PreFilter extension to tell.

    True when each Filter plugin not skipped in ``state`` declares
    ``filter_ignores_node_pods`` (its verdict reads the node object and the
    pod) or ``filter_reads_requests_only`` (NodeResourcesFit), and every
    PreFilter plugin with extensions is skipped (so ``AddPod``/``RemovePod``
    would do nothing). Then pods added to or removed from a node change a
    Filter's verdict only through the node's resource totals and pod count.
    """
    filters, pre_filters = getattr(fw, "filter_plugins", None), getattr(fw, "pre_filter_plugins", None)
    if state is None or filters is None or pre_filters is None:
        return False
    skip = state.skip_filter_plugins
    for pl in filters:
        forms = fast_forms(pl, fw)
        if not (getattr(forms, "filter_ignores_node_pods", False) or getattr(forms, "filter_reads_requests_only", False)
                or pl.name() in skip):
            return False
    return all(pl.pre_filter_extensions() is None or pl.name() in skip for pl in pre_filters)


def _filter_plan(fw: Any, state: "CycleState") -> tuple[list[Any], int, tuple[str, ...], list[str], bool] | None:
    """The Filter plugins that run when ``state.skip_filter_plugins`` are skipped, how many lead (read only the
    node object and declared ``spec`` fields), their names, the fields, and whether :func:`requests_decide`; None
    when one of them has no batch form (:func:`plugin_plan`)."""
    return plugin_plan(fw, "batch filters", state.skip_filter_plugins, _build_filter_plan, state)


def _build_filter_plan(fw: Any, state: "CycleState") -> tuple[list[Any], int, tuple[str, ...], list[str], bool] | None:
    skip = state.skip_filter_plugins
    plugins = [pl for pl in fw.filter_plugins if not (skip and pl.name() in skip)]
    forms = [fast_forms(pl, fw) for pl in plugins]
    plan = None
    if all(getattr(f, "filter_batch", None) is not None for f in forms):
        # The leading Filters that read only the node object and declared spec fields of the pod: their first
        # rejection per node is kept for every snapshot node, per plugins and fields.
        lead, fields = 0, []
        for f in forms:
            declared = getattr(f, "filter_reads_pod_spec", None)
            if declared is None or not getattr(f, "filter_ignores_node_pods", False):
                break
            fields.extend(x for x in declared if x not in fields)
            lead += 1
        plan = (plugins, lead, tuple(pl.name() for pl in plugins[:lead]), fields, requests_decide(fw, state),
                [f.filter_batch for f in forms])
    return plan


def _first_rejecting_plugin(fw: Any, state: "CycleState", pod: "PodInfo", arrays: SnapshotArrays,
                            idx: np.ndarray) -> tuple[list[Any], np.ndarray] | None:
    """The Filter plugins that run for ``pod`` and, per node of ``idx``, the index of the first rejecting one (-1: none).

    Each plugin's ``filter_batch`` sees only the nodes every earlier plugin
    passed, as ``RunFilterPlugins`` stops at the first rejection. None when
    some plugin has no batch form or declines.
    """
    plan = _filter_plan(fw, state)
    if plan is None:
        return None
    plugins, lead, lead_names, fields, _requests, batches = plan
    if lead:
        key = ("first rejecting", lead_names, pod_spec_key(pod, fields))
        every = arrays.node_object_memo(key, lambda: _first_rejections(batches[:lead], 0, state, pod, arrays,
                                                                         arrays.arange))
        if every is None:
            return None
        first = every[idx]
        sel = np.flatnonzero(first < 0)
        first = _first_rejections(batches, lead, state, pod, arrays, idx[sel], first, sel)
    else:
        first = _first_rejections(batches, 0, state, pod, arrays, idx)
    return None if first is None else (plugins, first)


def _first_rejections(batches: list[Any], start: int, state: "CycleState", pod: "PodInfo", arrays: SnapshotArrays,
                      cur: np.ndarray, first: np.ndarray | None = None, sel: np.ndarray | None = None
                      ) -> np.ndarray | None:
    # The Filter plugins' filter_batch forms batches[start:] over the nodes ``cur``, which are ``idx[sel]`` of the
    # caller's ``first`` (all of a new one).
    if first is None:
        first = np.full(len(cur), -1, dtype=_I64)
        sel = np.arange(len(cur), dtype=_I64)
    for k in range(start, len(batches)):
        if not len(cur):
            break
        ok = batches[k](state, pod, arrays, cur)
        if ok is None:
            return None
        if not ok.all():
            first[sel[~ok]] = k
            sel = sel[ok]
            cur = cur[ok]
    return first


def _with_nominated_pods_pass(fw: Any, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Status | None:
    """The first pass of ``RunFilterPluginsWithNominatedPods`` (nominated pods added); None when it passes."""
    added, state_to_use, info_to_use, err = fw._add_ge_nominated_pods(pod, state, node_info)
    if err is not None:
        return err
    if not added:
        return None
    s = fw.run_filter_plugins(state_to_use, pod, info_to_use)
    return None if s.code == Code.SUCCESS else s


def ge_nominated_positions(fw: Any, pod: "PodInfo", arrays: SnapshotArrays, idx: np.ndarray) -> np.ndarray:
    """Positions in ``idx`` of nodes with another pod of at least ``pod``'s priority nominated to them.

    Only on those nodes does ``RunFilterPluginsWithNominatedPods`` run the
    Filters twice (``addGENominatedPods`` adds nothing elsewhere). The
    per-node flags are cached per priority until the nominations change
    (``PodNominator.version``).

    Returns
    -------
    numpy.ndarray
        int64 positions, ascending.
    """
    nominated = getattr(fw.nominator, "nominated_pods", None)
    if not nominated:
        return _NO_POSITIONS
    cache = _nominated_cache(fw, pod, arrays)
    flag = cache.get(("flags", pod.priority)) if cache is not None else None
    if flag is None:
        t = _nominated_table(fw, arrays)
        flag = np.zeros(len(arrays.node_infos), dtype=bool)
        flag[t.rows[t.others_at_least(pod)]] = True
        if cache is not None:
            cache[("flags", pod.priority)] = flag
    return np.flatnonzero(flag[idx])


def _nominated_cache(fw: Any, pod: "PodInfo", arrays: SnapshotArrays) -> dict[Any, Any] | None:
    """``arrays.nominated_flags`` emptied when the nominations changed (``PodNominator.version``), for per-priority
    entries; None when nothing may be cached for ``pod`` (it is nominated itself, or the nominator has no version)."""
    nom = fw.nominator
    version = getattr(nom, "version", None)
    if version is None or pod.uid in getattr(nom, "nominated_pod_to_node", ()):
        return None
    return _nominated_entries(nom, arrays)


def _nominated_entries(nom: Any, arrays: SnapshotArrays) -> dict[Any, Any]:
    # arrays.nominated_flags, emptied when the nominator or its version changed.
    cache = arrays.nominated_flags
    if cache.get("version") != nom.version or cache.get("nominator") is not nom:
        last = cache.get("table", cache.get("previous table")) if cache.get("nominator") is nom else None
        cache.clear()
        cache.update(version=nom.version, nominator=nom)
        if last is not None:
            cache["previous table"] = last  # brought up to date by the next _nominated_table
    return cache


class _NominatedTable:
    """Every nominated pod on a snapshot node, one row each (kubenotes only): its node row, priority, requests
    and whether it has host ports, as arrays.

    Kept from one version of the nominations to the next: :meth:`update`
    redoes only the rows of the pods the nominator's change log names
    (``PodNominator.changed_uids``). A pod whose nomination went keeps a dead
    row (the lowest priority, so no pod counts it) until the table is built
    afresh.
    """

    __slots__ = ("index", "rows", "priority", "milli_cpu", "memory_bytes", "ephemeral_storage_bytes", "host_ports",
                 "scalars", "_cols", "_present", "_pos", "_n", "_dead", "_applied")

    #: Priority of a dead row: below any pod's.
    DEAD = np.iinfo(_I64).min

    def __init__(self, nom: Any, index: dict[str, int]):
        self.index = index
        self._cols = np.zeros((6, 64), dtype=_I64)  # node row, priority, cpu, memory, ephemeral storage, host ports
        self._present: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # scalar name -> (requested, present)
        self._pos: dict[str, int] = {}  # uid -> row
        self._n = self._dead = 0
        for name, pods in getattr(nom, "nominated_pods", {}).items():
            for p in pods:
                self._append(name, p)
        log = getattr(nom, "changed_uids", None)
        self._applied = None if log is None else nom.changes_base + len(log)
        self._views()

    def _append(self, node: str, p: "PodInfo") -> None:
        i = self.index.get(node)
        if i is None:
            return
        n = self._n
        if n == self._cols.shape[1]:
            self._cols = np.concatenate([self._cols, np.zeros_like(self._cols)], axis=1)
            for name, (values, present) in self._present.items():
                self._present[name] = (np.concatenate([values, np.zeros_like(values)]),
                                       np.concatenate([present, np.zeros_like(present)]))
        r = p.requests
        self._cols[:, n] = (i, p.priority, r.milli_cpu, r.memory_bytes, r.ephemeral_storage_bytes, bool(p.host_ports))
        for name, v in r.scalar_resources.items():
            if name not in self._present:
                cap = self._cols.shape[1]
                self._present[name] = (np.zeros(cap, dtype=_I64), np.zeros(cap, dtype=bool))
            values, present = self._present[name]
            values[n], present[n] = v, True
        self._pos[p.uid] = n
        self._n = n + 1

    def _kill(self, uid: str) -> None:
        n = self._pos.pop(uid, None)
        if n is not None:
            self._cols[1:, n] = 0
            self._cols[1, n] = self.DEAD
            for values, present in self._present.values():
                values[n], present[n] = 0, False
            self._dead += 1

    def _views(self) -> None:
        n = self._n
        self.rows, self.priority, self.milli_cpu, self.memory_bytes, self.ephemeral_storage_bytes = self._cols[:5, :n]
        self.host_ports = self._cols[5, :n].astype(bool)
        self.scalars = {name: (values[:n], present[:n]) for name, (values, present) in self._present.items()}

    def update(self, nom: Any) -> bool:
        """Redo the rows of the pods whose nomination changed since; False (nothing done) when the nominator's
        log no longer reaches back, or dead rows outnumber the live ones (build a new table then)."""
        log = getattr(nom, "changed_uids", None)
        if log is None or self._applied is None or self._dead > self._n - self._dead + 64:
            return False
        start = self._applied - nom.changes_base
        if start < 0:
            return False
        where, pods = nom.nominated_pod_to_node, nom.nominated_pods
        for uid in dict.fromkeys(log[start:]):  # each pod once: its row is redone from its nomination now
            self._kill(uid)
            node = where.get(uid)
            if node is not None:
                for p in pods.get(node, ()):
                    if p.uid == uid:
                        self._append(node, p)
                        break
        self._applied = nom.changes_base + len(log)
        self._views()
        return True

    def others_at_least(self, pod: "PodInfo") -> np.ndarray:
        """Rows of pods other than ``pod`` with at least its priority (``addGENominatedPods``' choice), as a mask."""
        mask = self.priority >= pod.priority
        n = self._pos.get(pod.uid)
        if n is not None:
            mask[n] = False
        return mask


def _nominated_table(fw: Any, arrays: SnapshotArrays) -> _NominatedTable:
    """The :class:`_NominatedTable` of the current nominations, brought up to date when they change
    (``PodNominator.version``)."""
    nom = fw.nominator
    if getattr(nom, "version", None) is None:
        return _NominatedTable(nom, arrays.index)
    cache = _nominated_entries(nom, arrays)
    got = cache.get("table")
    if got is None:
        kept = cache.pop("previous table", None)
        if kept is not None and kept.index is arrays.index and kept.update(nom):
            got = kept
        else:
            got = _NominatedTable(nom, arrays.index)
        cache["table"] = got
    return got


class NominatedTotals:
    """Per snapshot node, what the pods ``RunFilterPluginsWithNominatedPods`` adds for one pod request in all.

    Attributes
    ----------
    num_pods, milli_cpu, memory_bytes, ephemeral_storage_bytes : numpy.ndarray of int64, shape (N,)
    scalars : dict of str to numpy.ndarray of int64, shape (N,)
        Only resources some added pod requests.
    host_ports : numpy.ndarray of bool, shape (N,)
        Some added pod has host ports (NodePorts, before NodeResourcesFit, may then reject first).
    """

    __slots__ = ("num_pods", "milli_cpu", "memory_bytes", "ephemeral_storage_bytes", "scalars", "host_ports")

    def __init__(self, n: int):
        self.num_pods, self.milli_cpu, self.memory_bytes, self.ephemeral_storage_bytes = (
            np.zeros(n, dtype=_I64) for _ in range(4))
        self.scalars: dict[str, np.ndarray] = {}
        self.host_ports = np.zeros(n, dtype=bool)


def ge_nominated_totals(fw: Any, pod: "PodInfo", arrays: SnapshotArrays) -> NominatedTotals:
    """The requests of the pods nominated to each node with at least ``pod``'s priority (not ``pod``), summed.

    Cached like :func:`ge_nominated_positions`, per priority until the
    nominations change.
    """
    cache = _nominated_cache(fw, pod, arrays)
    got = cache.get(("totals", pod.priority)) if cache is not None else None
    if got is not None:
        return got
    n = len(arrays.node_infos)
    got = NominatedTotals(n)
    t = _nominated_table(fw, arrays)
    mask = t.others_at_least(pod)
    rows = t.rows[mask]
    got.num_pods += np.bincount(rows, minlength=n)
    for name in ("milli_cpu", "memory_bytes", "ephemeral_storage_bytes"):
        np.add.at(getattr(got, name), rows, getattr(t, name)[mask])
    got.host_ports[rows[t.host_ports[mask]]] = True
    for name, (values, present) in t.scalars.items():
        if present[mask].any():
            got.scalars[name] = np.zeros(n, dtype=_I64)
            np.add.at(got.scalars[name], rows, values[mask])
    if cache is not None:
        cache[("totals", pod.priority)] = got
    return got


_NO_POSITIONS = np.zeros(0, dtype=_I64)


def filter_statuses_batch(fw: Any, state: "CycleState", pod: "PodInfo", arrays: SnapshotArrays,
                          idx: np.ndarray, first_rejecting: tuple[list[Any], np.ndarray] | None = None
                          ) -> list[Status] | None:
    """The rejecting Status of each node in ``idx``, when none of them passes the Filters.

    What the per-node ``RunFilterPluginsWithNominatedPods`` returns for each
    node, without running every Filter on every node: the batch Filters
    find the first plugin that rejects each node, and only that plugin's
    per-node ``filter`` runs to build the node's status (``plugin`` set, as
    ``RunFilterPlugins`` sets it), once per set of nodes its
    ``filter_status_key_batch`` says get equal statuses. On a node with
    nominated pods of at least the pod's priority the status comes from the
    pass with those pods added: the same plugin's when it never looks at the
    node's pods (and everything before it neither), NodeResourcesFit's when
    that rejects there and nothing before it can tell the two passes apart,
    else the per-node path.

    Parameters
    ----------
    fw : Framework
    state : CycleState
    pod : PodInfo
    arrays : SnapshotArrays
    idx : numpy.ndarray
        Snapshot node indices, int64.
    first_rejecting : (list, numpy.ndarray), optional
        What :func:`filter_nodes_batch` found for the same nodes (its
        ``first_rejecting`` list, joined), so the Filters need not run again.

    Returns
    -------
    list[Status] or None
        One rejected status per entry of ``idx``; nodes of one kind share one
        Status object. None when a plugin has no batch form, a node passes,
        or a Filter returns an Error (the per-node path then builds the
        diagnosis and the exact error).
    """
    got = first_rejecting if first_rejecting is not None else _first_rejecting_plugin(fw, state, pod, arrays, idx)
    if got is None:
        return None
    plugins, first = got
    independent_until = 0  # plugins[:independent_until] never look at the node's pods
    while independent_until < len(plugins) \
            and getattr(fast_forms(plugins[independent_until], fw), "filter_ignores_node_pods", False):
        independent_until += 1
    # Nodes decided by the pass with the nominated pods added.
    nominated = ge_nominated_positions(fw, pod, arrays, idx)
    if len(nominated):
        k_nom = first[nominated]
        nominated = nominated[~((k_nom >= 0) & (k_nom < independent_until))]
    by_pass = np.ones(len(idx), dtype=bool)
    by_pass[nominated] = False
    if (first[by_pass] < 0).any():
        return None  # a node passes
    infos = arrays.node_infos
    out: list[Status | None] = [None] * len(idx)
    for k in np.unique(first[by_pass]).tolist():
        pl = plugins[k]
        name = pl.name()
        pos = np.flatnonzero(by_pass & (first == k))
        key_fn = getattr(fast_forms(pl, fw), "filter_status_key_batch", None)
        keys = key_fn(state, pod, arrays, idx[pos]) if key_fn is not None else None
        # One status per node, or per kind of node when the plugin says which get equal ones.
        if keys is None:
            built, kind_of = [pl.filter(state, pod, infos[i]) for i in idx[pos].tolist()], range(len(pos))
        else:
            _kinds, rep, kind_of = np.unique(keys, return_index=True, return_inverse=True)
            built, kind_of = [pl.filter(state, pod, infos[i]) for i in idx[pos[rep]].tolist()], kind_of.tolist()
        for st in built:
            if st is None or not st.is_rejected():
                return None
            st.plugin = name
        for p, kind in zip(pos.tolist(), kind_of):
            out[p] = built[kind]
    if len(nominated) and not _nominated_statuses(fw, state, pod, arrays, idx, plugins, first, nominated, out):
        return None
    return out  # type: ignore[return-value]


def _nominated_statuses(fw: Any, state: "CycleState", pod: "PodInfo", arrays: SnapshotArrays, idx: np.ndarray,
                        plugins: list[Any], first: np.ndarray, positions: np.ndarray, out: list[Any]) -> bool:
    """Fill ``out`` at ``positions`` (nodes with nominated pods) with the status of the pass with those pods added.

    NodeResourcesFit's status, once per kind of its ``filter_status_key_batch``
    with the nominated pods' totals added, where Fit rejects there, nothing
    before it can tell the two passes apart (:func:`_fit_decides_first_pass`)
    and no added pod has host ports; the per-node
    ``run_filter_plugins_with_nominated_pods`` elsewhere. False when a node
    passes or a status is not a rejection.
    """
    fit = _fit_decides_first_pass(fw, state, plugins)
    grouped = np.zeros(0, dtype=_I64)
    if fit is not None:
        fit_at = plugins.index(fit)
        k = first[positions]
        grouped = positions[(k < 0) | (k >= fit_at)]
        key_fn = getattr(fast_forms(fit, fw), "filter_status_key_batch", None)
        added = ge_nominated_totals(fw, pod, arrays)
        keys = key_fn(state, pod, arrays, idx[grouped], added) if key_fn is not None and len(grouped) else None
        if keys is None:
            grouped = grouped[:0]
        else:
            keep = (keys != 0) & ~added.host_ports[idx[grouped]]
            grouped, keys = grouped[keep], keys[keep]
    infos = arrays.node_infos
    kinds: dict[int, Status] = {}
    if len(grouped):
        for p, key in zip(grouped.tolist(), keys.tolist()):
            st = kinds.get(key)
            if st is None:
                st = _fit_status_with_nominated_pods(fit, fw, state, pod, infos[int(idx[p])])
                if st is None:
                    return False
                kinds[key] = st
            out[p] = st
    for p in np.setdiff1d(positions, grouped, assume_unique=True).tolist():
        st = fw.run_filter_plugins_with_nominated_pods(state, pod, infos[int(idx[p])])
        if not st.is_rejected():
            return False
        out[p] = st
    return True


def score_nodes_batch(fw: Any, state: "CycleState", pod: "PodInfo", arrays: SnapshotArrays,
                      idx: np.ndarray) -> np.ndarray | None:
    """Total weighted score of each node in ``idx`` (``RunScorePlugins`` after PreScore, batched), for selectHost.

    A plugin may say that it gives every node of ``idx`` the same score, in
    [0, 100] (``score_batch_uniform(state, pod, arrays, idx) -> bool``); it is
    then left out, as the same amount added to every total changes neither
    which nodes score best nor any draw of :func:`select_host_index`.

    Returns
    -------
    numpy.ndarray or None
        int64 totals aligned with ``idx``, less the uniform plugins' share;
        None when some Score plugin (not skipped at PreScore) or its
        NormalizeScore has no batch method or declines, or a normalized score
        leaves [0, 100] (the per-node path then reports the error exactly).
    """
    plan = _score_plan(fw, state)
    if plan is None:
        return None
    total = np.zeros(len(idx), dtype=_I64)
    for uniform, score_batch, norm, weight in plan:
        if uniform is not None and uniform(state, pod, arrays, idx):
            continue
        raw = score_batch(state, pod, arrays, idx)
        if raw is None:
            return None
        if norm is not None:
            raw = norm(state, pod, raw)
            if raw is None:
                return None
        if len(raw):
            if raw.dtype == _I64:  # one reduction for both bounds: as uint64 a negative score is above 2**63
                if raw.view(np.uint64).max() > MAX_NODE_SCORE:
                    return None
            elif raw.min() < MIN_NODE_SCORE or raw.max() > MAX_NODE_SCORE:
                return None
        total += raw * weight
    return total


def _score_plan(fw: Any, state: "CycleState") -> list[tuple[Any, Any, Any, int]] | None:
    """Per Score plugin not in ``state.skip_score_plugins``: its ``score_batch_uniform`` (or None),
    ``score_batch``, its extensions' ``normalize_score_batch`` (None without extensions) and weight; None when one
    lacks a batch form (:func:`plugin_plan`)."""
    return plugin_plan(fw, "batch scores", state.skip_score_plugins, _build_score_plan, state)


def _build_score_plan(fw: Any, state: "CycleState") -> list[tuple[Any, Any, Any, int]] | None:
    skip = state.skip_score_plugins
    plan: list[tuple[Any, Any, Any, int]] | None = []
    for pl in fw.score_plugins:
        if pl.name() in skip:
            continue
        forms = fast_forms(pl, fw)
        score_batch = getattr(forms, "score_batch", None)
        ext = pl.score_extensions()
        norm = getattr(forms if ext is pl else ext, "normalize_score_batch", None) if ext is not None else None
        if score_batch is None or (ext is not None and norm is None):
            plan = None
            break
        plan.append((getattr(forms, "score_batch_uniform", None), score_batch, norm, fw.score_plugin_weight[pl.name()]))
    return plan


# --------------------------------------------------------------------------- selectHost
def select_host_index(totals: np.ndarray, rng: random.Random) -> int:
    """Index of the node ``select_host`` picks from these totals, drawing from ``rng`` exactly as it does.

    ``select_host`` pops a Go ``container/heap`` of the scores: all nodes
    tied with the best score come out first (one ``rng.randrange(k)`` draw
    for the k-th of them, k >= 2) and the reservoir keeps the one drawn last
    with 0, the ``selected``-th popped. Which node that is follows from
    which heap slots hold a best score (moves among the other entries never
    change that), and in the common case without replaying the heap:

    * ``heap.Init`` and a ``heap.Pop`` whose last entry is not a best one
      sift an entry down through best children, the left one first. Popping
      then yields the best entries in preorder of their slots in the
      complete binary tree of the input order (slot 0, its left subtree, its
      right subtree), so the pick is the ``selected``-th best slot in
      preorder;
    * a pop whose last slot still holds a best entry moves that entry to the
      root, so it comes out next instead. Only leaves are ever last, and a
      leaf's entry is still in place when no sift-down reached the leaf; the
      pulls into each subtree are counted from the root (``_tail_survives``).

    When the popped tail reaches above the leaves (``selected`` greater than
    half the nodes), or holds many best entries (dense ties), the heap is
    replayed instead.

    Parameters
    ----------
    totals : numpy.ndarray
        Total score per feasible node (at least one), in the order given to ``select_host``.
    rng : random.Random

    Returns
    -------
    int

    Examples
    --------
    >>> from kubenotes.scheduler.framework.runtime import NodePluginScores
    >>> from kubenotes.scheduler.schedule_one import select_host
    >>> t = [5, 9, 9, 1, 9]
    >>> a, b = random.Random(3), random.Random(3)
    >>> "n%d" % select_host_index(np.array(t), a) == select_host(
    ...     [NodePluginScores(f"n{i}", [], s) for i, s in enumerate(t)], 3, b)[0], a.random() == b.random()
    (True, True)
    """
    is_best = totals == totals.max()
    tied = np.flatnonzero(is_best)
    ties = len(tied)
    if ties == 1:
        return int(tied[0])
    selected = _reservoir_index(ties, rng)
    n = len(totals)
    rank = _preorder_rank(n)
    first = n - selected  # the pops take their last entry from slots n-1 down to ``first``
    in_tail = int(np.count_nonzero(is_best[first:])) if selected else 0
    if not in_tail:
        return int(tied[np.argpartition(rank[tied], selected)[selected]])
    if first < n // 2 or in_tail > _TAIL_CHECKS:
        return _replay_heap(n, tied, selected)
    best = tied.tolist()
    best_set = set(best)
    cum = [0]
    cum.extend(np.cumsum(is_best).tolist())
    jumped_slots: list[int] = []  # ascending; cum still counts them
    # State after the pops so far: ``pulls`` entries of the preorder have risen to the root (the root holds the
    # next one), unless a best entry taken from the last slot sits there (``jumped``).
    pulls, jumped, q = 0, -1, 0
    for s in reversed(best):
        if s < first:
            break
        at = n - 1 - s  # the pop that takes its last entry from slot s
        if at > q:
            pulls, jumped, q = pulls + at - q, -1, at
        if _tail_survives(s, pulls, best_set, cum, jumped_slots, n):
            best_set.discard(s)
            best.remove(s)
            jumped_slots.insert(0, s)
            jumped = s
        else:
            pulls, jumped = pulls + 1, -1
        q += 1
    if q < selected:
        pulls, jumped = pulls + selected - q, -1
    if jumped >= 0:
        return jumped
    left = np.array(best, dtype=_I64)
    return int(left[np.argpartition(rank[left], pulls)[pulls]])


def _reservoir_index(ties: int, rng: random.Random) -> int:
    # ``rng.randrange(cnt)`` for cnt = 2..ties, unrolled: CPython's randrange(n) is _randbelow(n), which draws
    # getrandbits(n.bit_length()) until the value is below n (test_batch checks the two agree).
    selected = 0
    getrandbits = rng.getrandbits
    for cnt in range(2, ties + 1):
        k = cnt.bit_length()
        r = getrandbits(k)
        while r >= cnt:
            r = getrandbits(k)
        if not r:
            selected = cnt - 1
    return selected


#: Up to this many best entries among the slots the pops take their last entry from, select_host_index walks
#: the tree for each (a few microseconds apiece); with more, replaying the heap is cheaper.
_TAIL_CHECKS = 32

_PREORDER_RANK = np.zeros(0, dtype=_I64)


def _preorder_rank(n: int) -> np.ndarray:
    # Each heap slot's place in the preorder of a complete binary tree of at least n slots: a slot's path from
    # the root, padded to the deepest level, then its depth, sorts in preorder. The slots below n are closed
    # under parents, so the same ranks order them for a heap of n entries.
    global _PREORDER_RANK
    if len(_PREORDER_RANK) < n:
        size = (1 << n.bit_length()) - 1
        slots = np.arange(size, dtype=_I64)
        depth = np.array([s.bit_length() - 1 for s in range(1, size + 1)], dtype=_I64)
        deepest = size.bit_length() - 1
        key = ((slots + 1 - (1 << depth)) << (deepest - depth)) * (deepest + 1) + depth
        rank = np.empty(size, dtype=_I64)
        rank[np.argsort(key, kind="stable")] = slots
        _PREORDER_RANK = rank
    return _PREORDER_RANK


def _tail_survives(s: int, pulls: int, best: set[int], cum: list[int], gone: list[int], n: int) -> bool:
    # Whether leaf slot s (holding a best entry at the start) still holds it after heap.Init and ``pulls`` pops
    # that sifted down from the root. Walking from the root: ``d`` entries have been pulled up out of the current
    # subtree; a slot that started with an other entry pulled one more out of its children (heap.Init's down),
    # and the children give them left first, as many as the left subtree holds. The leaf kept its entry iff
    # nothing was pulled out of it. Best slots below a slot are counted level by level in ``cum`` (the running
    # count of best slots), less those in ``gone`` (ascending: best entries that left their leaf for the root).
    if (s - 1) >> 1 not in best and (s & 1 or (s - 1 not in best and 2 * s - 1 >= n)):
        return False  # the parent's own sift-down took it (the left sibling, a leaf too, had no best entry)
    v = s + 1
    d, w = pulls, 0
    for k in range(v.bit_length() - 2, -1, -1):
        x = d + (w not in best)
        left = 2 * w + 1
        if (v >> k) & 1:
            d = 0
            if x:
                # entries in the left subtree (best slots, counted level by level), enough to compare with x
                c, lo, hi = 0, left, left + 1
                while lo < n and c < x:
                    c += cum[min(hi, n)] - cum[lo]
                    if gone:
                        c -= bisect.bisect_left(gone, hi) - bisect.bisect_left(gone, lo)
                    lo, hi = 2 * lo + 1, 2 * hi + 1
                d = max(0, x - c)
            w = left + 1
        else:
            d, w = x, left
    return d == 0


def _replay_heap(n: int, tied: np.ndarray, selected: int) -> int:
    # The heap replayed on ids of best-score entries (-1 for the others).
    h = np.full(n, -1, dtype=_I64)
    h[tied] = tied
    # heap.Init: down(i) for i = n/2-1 .. 0. Slot i is still as initialised when its turn comes (earlier calls
    # only touch slots below higher ones), down from a best entry moves nothing, and neither does down from a
    # slot with no best entry below it (swaps keep each subtree's entries): only those "other" slots sift.
    if len(tied) <= _WALK_UP_TIES:  # the slots above the best entries, walked up in Python
        above: set[int] = set()
        for t in tied.tolist():
            i = (t - 1) // 2 if t else -1
            while i >= 0 and i not in above:
                above.add(i)
                i = (i - 1) // 2 if i else -1
        h = h.tolist()
        others = sorted((i for i in above if h[i] < 0), reverse=True)
    else:
        others = np.flatnonzero(h[: n // 2] < 0)[::-1].tolist()
        h = h.tolist()
    for i in others:
        _down01(h, i, n)
    # heap.Pop ``selected`` times (the root leaves, the last entry takes its place and goes down); the root is
    # then the entry popped next.
    m = n
    for _ in range(selected):
        m -= 1
        h[0] = h[m]
        _down01(h, 0, m)
    return h[0]


#: Up to this many best entries, _replay_heap finds the heap slots above them by walking up.
_WALK_UP_TIES = 64


def _down01(h: list[int], i: int, n: int) -> None:
    # Go's heap.down with less(a, b) = score(a) > score(b), on a best (>= 0) / other (-1) view:
    # moves among "other" entries never change which slots hold a best entry, so they are not replayed.
    # An other entry at i moves down, each best child it passes (the left one first) moving up a slot.
    x = h[i]
    if x >= 0:
        return
    j = 2 * i + 1
    while j < n:
        c = h[j]
        if c < 0:
            j += 1
            if j >= n:
                break
            c = h[j]
            if c < 0:
                break
        h[i] = c
        i = j
        j = 2 * i + 1
    h[i] = x
