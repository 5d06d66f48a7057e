"""Fast forms of PodTopologySpread: Filter, Score and NormalizeScore over label value ids.

kubenotes only (see :mod:`kubenotes.scheduler.fast`). Filter and Score look
a node's domain up in the counts PreFilter and PreScore made; the batch
forms turn them into lookup tables over the ids of a topology key's values,
so every node is one array index; hostname counts come from the per-node
matching pod counts.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/filtering.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/scoring.go
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Hashable

import numpy as np

from kubenotes.scheduler.arrays import PodMemo, pod_spec_key
from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Status
from kubenotes.scheduler.plugins.podtopologyspread.common import (
    LABEL_HOSTNAME,
    NODE_INCLUSION_POLICY_HONOR,
    TopologySpreadConstraint,
    _get,
    has_untolerated_do_not_schedule_taint,
    label_selector,
    required_node_affinity,
)
from kubenotes.scheduler.plugins.podtopologyspread.filtering import CriticalPaths, PreFilterState
from kubenotes.scheduler.plugins.podtopologyspread.plugin import PodTopologySpread
from kubenotes.scheduler.plugins.podtopologyspread.scoring import PreScoreState, topology_normalizing_weight

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = [
    "PodTopologySpreadForms",
    "PodTopologySpreadCounts",
    "MatchingPodCounts",
    "count_pods_match_selector_per_node",
    "selector_key",
    "node_inclusion_key",
    "node_inclusion_mask",
    "cal_pre_filter_state_batch",
    "pre_score_state_batch",
]


class PodTopologySpreadForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.podtopologyspread.plugin.PodTopologySpread`.

    Parameters
    ----------
    plugin : PodTopologySpread

    Notes
    -----
    :meth:`score_batch` remembers which of its nodes PreScore ignored, for
    :meth:`normalize_score_batch` of the same cycle (the same forms object).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/plugin.go

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> zone = "topology.kubernetes.io/zone"
    >>> web = make_pod("web", labels={"app": "web"}, node_name="n1")
    >>> snap = new_snapshot([make_node("n1", labels={zone: "a"}), make_node("n2", labels={zone: "b"})], [web])
    >>> spread = [{"maxSkew": 1, "topologyKey": zone, "whenUnsatisfiable": "DoNotSchedule",
    ...            "labelSelector": {"matchLabels": {"app": "web"}}}]
    >>> pl, state = PodTopologySpread(SimpleNamespace(snapshot=snap, objects=None), [], False), CycleState()
    >>> pod = PodInfo(make_pod("p", labels={"app": "web"}, topologySpreadConstraints=spread))
    >>> _ = pl.pre_filter(state, pod, snap.list())
    >>> arr = snap.arrays()
    >>> PodTopologySpreadForms(pl).filter_batch(state, pod, arr, arr.arange).tolist()
    [False, True]
    """

    plugin_type = PodTopologySpread
    add_pod_error_free = True  # AddPod fails only without its PreFilter state

    __slots__ = ("_ignored",)

    def __init__(self, plugin: PodTopologySpread):
        super().__init__(plugin)
        self._ignored: tuple[Any, Any] = (None, None)  # (PreScoreState, which nodes of the last score_batch it ignored)

    def filter_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``filter`` over the nodes ``idx``: domain counts looked up through label value ids."""
        s = self.plugin._state(state)
        if isinstance(s, Status):
            return None
        ok = np.ones(len(idx), dtype=bool)
        for i, c in enumerate(s.constraints):
            ids_all, vocab = arrays.label_values(c.topology_key)
            ids = ids_all[idx]
            lut = np.zeros(len(vocab) + 1, dtype=np.int64)
            for value, n in s.tp_value_to_match_num[i].items():
                j = vocab.get(value)
                if j is not None:
                    lut[j + 1] = n
            min_match = s.min_match_num(i, c.min_domains)
            self_match = 1 if c.selector.matches(pod.labels) else 0
            ok &= (ids >= 0) & (lut[ids + 1] + self_match - min_match <= c.max_skew)
        return ok

    def score_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``score`` over the nodes ``idx`` (same float64 sums, same rounding).

        Domain counts are looked up through the label value ids of each
        topology key; hostname counts come from the per-node matching pod
        counts. Ignored nodes score 0 and are remembered for
        :meth:`normalize_score_batch`.
        """
        s = self.plugin._score_state(state)
        if isinstance(s, Status):
            return None
        total = None
        for i, c in enumerate(s.constraints):
            ids_all, vocab = arrays.label_values(c.topology_key)
            weight, extra = s.topology_normalizing_weight[i], c.max_skew - 1
            # float64 as in score(): count * weight + (maxSkew - 1), skipped without the key.
            ids = None
            if c.topology_key == LABEL_HOSTNAME:
                # PreScore's table, when nothing was placed since (the usual case), else counted again.
                tables = s.host_tables
                counts = tables[i][0].current(tables[i][1]) if tables and tables[i] else None
                if counts is None:
                    counts = count_pods_match_selector_per_node(arrays, c.selector, pod.namespace)
                part = counts[idx] * weight + extra
            else:
                # Per domain first (the same float64 operations on the same counts, here in Python: a few
                # domains), then gathered per node.
                lut = [0 * weight + extra] * (len(vocab) + 1)
                for value, n in s.topology_value_to_pod_counts[i].items():
                    j = vocab.get(value)
                    if j is not None:
                        lut[j + 1] = n * weight + extra
                ids = ids_all[idx]
                part = np.array(lut, dtype=np.float64)[ids + 1]
            if not arrays.label_on_every_node(c.topology_key):
                part = np.where((ids_all[idx] if ids is None else ids) >= 0, part, 0.0)
            if total is None:
                total = part
            else:
                total += part
        if total is None:
            total = np.zeros(len(idx), dtype=np.float64)
        if all(c.max_skew >= 1 for c in s.constraints):  # every part is >= 0: Go's Round is floor(x + 0.5)
            out = np.floor(total + 0.5).astype(np.int64)
        else:
            out = np.where(total >= 0, np.floor(total + 0.5), -np.floor(-total + 0.5)).astype(np.int64)
        self._ignored = (None, None)
        if s.ignored_nodes:
            infos, ignored = arrays.node_infos, s.ignored_nodes
            mask = np.fromiter((infos[i].name in ignored for i in idx.tolist()), dtype=bool, count=len(idx))
            out[mask] = 0
            self._ignored = (s, mask)
        return out

    def normalize_score_batch(self, state: "CycleState", pod: "PodInfo", scores: Any) -> Any:
        """``normalize_score`` over the int64 array :meth:`score_batch` returned."""
        s = self.plugin._score_state(state)
        if isinstance(s, Status):
            return None
        valid = None
        if s.ignored_nodes:
            of, ignored = self._ignored
            if of is not s or ignored is None or len(ignored) != len(scores):
                return None
            valid = ~ignored
        considered = scores if valid is None else scores[valid]
        if not len(considered):
            return np.zeros(len(scores), dtype=np.int64)
        min_score = int(considered.min())
        max_score = max(0, int(considered.max()))
        if max_score == 0:
            out = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
        else:
            # Non-negative operands: floor division is Go's truncation.
            out = MAX_NODE_SCORE * (max_score + min_score - scores) // max_score
        return out if valid is None else np.where(valid, out, 0)


# --------------------------------------------------------------------------- whole-snapshot counts
# The same counts and predicates over numpy arrays of every snapshot node, so PreFilter/PreScore need not walk
# every pod of every node for every pod scheduled (PodTopologySpreadCounts below).


def selector_key(selector: Any) -> tuple[Any, ...]:
    """A hashable key equal for selectors that select the same pods (their requirements).

    Examples
    --------
    >>> a = label_selector({"matchLabels": {"app": "web"}})
    >>> selector_key(a) == selector_key(label_selector({"matchLabels": {"app": "web"}}))
    True
    >>> selector_key(label_selector(None)) == selector_key(label_selector({}))
    False
    """
    return (selector.is_nothing(), selector.requirements)


def count_pods_match_selector_per_node(arrays: Any, selector: Any, namespace: str) -> Any:
    """:func:`count_pods_match_selector` of every snapshot node, as an int64 array.

    Parameters
    ----------
    arrays : SnapshotArrays
    selector : LabelSelector
    namespace : str

    Returns
    -------
    numpy.ndarray
        Shape (n,), in snapshot order; kept up to date incrementally
        (:class:`MatchingPodCounts`), so do not modify it.

    Examples
    --------
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1"), make_node("n2")],
    ...                     [make_pod("a", labels={"app": "x"}, node_name="n2"), make_pod("b", node_name="n2")])
    >>> count_pods_match_selector_per_node(snap.arrays(), label_selector({"matchLabels": {"app": "x"}}), "default").tolist()
    [0, 1]
    """
    if selector.is_empty():
        return np.zeros(len(arrays), dtype=np.int64)
    return MatchingPodCounts.of(arrays).counts(namespace, selector)


class MatchingPodCounts:
    """Per-node counts of the pods matching PodTopologySpread selectors, kept by replaying pod changes.

    kubenotes only (upstream counts in PreFilter/PreScore over every node, in
    16 goroutines). What decides whether a pod matches a constraint's
    selector is its *class*: namespace, terminating or not, and labels. This
    index keeps, per snapshot node, how many pods of each class it holds and,
    whenever a node's pods change (``SnapshotArrays.rows_changed_since``), logs
    the per-class differences as ``(node, class, delta)`` rows. A selector's
    table is brought up to date by adding the logged rows since its last use
    whose class matches it, in numpy; whether a class matches is evaluated
    once per selector and class. So scheduling the pods of many workloads
    interleaved costs one row per pod placed, not a recount of every node
    that changed.

    Parameters
    ----------
    arrays : SnapshotArrays

    Notes
    -----
    The counts equal :func:`count_pods_match_selector` of every node's pods
    (the log sums to each node's current classes). Selector tables are kept
    within :attr:`TABLE_BUDGET_BYTES` (and :attr:`MAX_TABLES`), least
    recently used first out; a table made again replays the whole log. The
    log is rebuilt from the nodes' current classes when it grows to several
    times their size.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/common.go (countPodsMatchSelector)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (calPreFilterState)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/scoring.go (PreScore)

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1"), make_node("n2")], [make_pod("a", labels={"app": "x"}, node_name="n2")])
    >>> idx = MatchingPodCounts.of(snap.arrays())
    >>> sel = label_selector({"matchLabels": {"app": "x"}})
    >>> idx.counts("default", sel).tolist()
    [0, 1]
    >>> snap.add_pod(PodInfo(make_pod("b", labels={"app": "x"}, node_name="n1")), "n1")
    >>> idx.counts("default", sel).tolist(), idx.counts("other", sel).tolist()
    ([1, 1], [0, 0])
    """

    #: How many selector tables are kept at most (also at most :attr:`TABLE_BUDGET_BYTES` of them).
    MAX_TABLES = 16384
    #: Memory for selector tables (8 bytes per node each); at least 256 tables are kept.
    TABLE_BUDGET_BYTES = 64 << 20
    #: The log is rebuilt once it exceeds four times the live (node, class) rows plus this.
    LOG_SLACK_ROWS = 4096
    _BY_ARRAYS: "weakref.WeakKeyDictionary[Any, MatchingPodCounts]" = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, arrays: Any) -> "MatchingPodCounts":
        """The index of ``arrays`` (made on first use)."""
        got = cls._BY_ARRAYS.get(arrays)
        if got is None:
            got = cls._BY_ARRAYS[arrays] = cls(arrays)
        return got

    def __init__(self, arrays: Any):
        # A proxy: the index lives in a WeakKeyDictionary keyed by the arrays and must not keep them alive.
        self.arrays = weakref.proxy(arrays)
        self._arrays_ref = weakref.ref(arrays)
        n = len(arrays)
        self._seen = np.full(n, -1, dtype=np.int64)
        self._changes_seen: int | None = None  # SnapshotArrays.changes at the last _sync
        self._node_classes: list[dict[int, int]] = [{} for _ in range(n)]
        self._counted: list[tuple[int, int]] = [(0, -1)] * n  # node -> (pods counted, NodeInfo.generation then)
        self._class_ids: dict[tuple[Any, ...], int] = {}
        self._class_facts: list[tuple[str, bool, Mapping[str, str]]] = []
        self._classes_with: dict[tuple[str, str], list[int]] = {}  # (label key, value) -> class ids, ascending
        self._pod_class = PodMemo()
        self._log = np.zeros((3, 1024), dtype=np.int64)  # node, class, delta
        self._log_len = 0
        self._live = 0  # rows the log would have if rebuilt now
        self._tables: dict[tuple[Any, ...], list[Any]] = {}
        self._domain_tables: dict[tuple[Any, ...], list[Any]] = {}  # see domain_counts
        self._max_tables = min(self.MAX_TABLES, max(256, self.TABLE_BUDGET_BYTES // (8 * max(n, 1))))

    def _class_of(self, p: Any) -> int:
        got = self._pod_class.get(p)
        if got is not None:
            return got
        labels = p.labels
        key = (p.namespace, p.terminating, tuple(sorted(labels.items())))
        c = self._class_ids.get(key)
        if c is None:
            c = self._class_ids[key] = len(self._class_facts)
            self._class_facts.append((p.namespace, p.terminating, dict(labels)))
            with_label = self._classes_with
            for pair in labels.items():
                got = with_label.get(pair)
                if got is None:
                    with_label[pair] = [c]
                else:
                    got.append(c)
        self._pod_class.put(p, c)
        return c

    def _append(self, rows: list[int]) -> None:
        k = len(rows) // 3
        n = self._log_len
        if n + k > self._log.shape[1]:
            grown = np.zeros((3, max(2 * self._log.shape[1], n + k)), dtype=np.int64)
            grown[:, :n] = self._log[:, :n]
            self._log = grown
        log = self._log
        if k <= 4:  # the usual case, one pod placed: skip building an array
            for j in range(k):
                log[0, n + j], log[1, n + j], log[2, n + j] = rows[3 * j:3 * j + 3]
        else:
            log[:, n:n + k] = np.array(rows, dtype=np.int64).reshape(k, 3).T
        self._log_len = n + k

    def _sync(self) -> None:
        """Log the class changes of every node whose pods changed since the last call."""
        stale, self._changes_seen = self.arrays.changed_rows(self._changes_seen, self._seen)
        if not len(stale):
            return
        if self._log_len > 4 * self._live + self.LOG_SLACK_ROWS:
            self._compact()
        infos = self.arrays.node_infos
        class_of, memo = self._class_of, self._pod_class.get
        rows: list[int] = []
        for i in stale.tolist():
            ni = infos[i]
            pods = ni.pods
            counted, generation = self._counted[i]
            self._counted[i] = (len(pods), ni.generation)
            if 0 < counted and ni.generation - generation == len(pods) - counted > 0:
                # Only appended since the last count (every add or remove bumps NodeInfo.generation: as
                # many changes as new pods means no removal): log the new pods alone.
                before = self._node_classes[i]
                added: dict[int, int] = {}
                for p in pods[counted:]:
                    c = memo(p)
                    if c is None:
                        c = class_of(p)
                    added[c] = added.get(c, 0) + 1
                for c, d in added.items():
                    rows += (i, c, d)
                    if c not in before:
                        self._live += 1
                    before[c] = before.get(c, 0) + d
                continue
            now: dict[int, int] = {}
            for p in pods:
                c = memo(p)
                if c is None:
                    c = class_of(p)
                now[c] = now.get(c, 0) + 1
            before = self._node_classes[i]
            if now != before:
                for c, k in now.items():
                    d = k - before.get(c, 0)
                    if d:
                        rows += (i, c, d)
                for c, k in before.items():
                    if c not in now:
                        rows += (i, c, -k)
                self._live += len(now) - len(before)
                self._node_classes[i] = now
        if rows:
            self._append(rows)
        self._pod_class.trim(self.arrays.total_pods)  # forget pods that left

    def _compact(self) -> None:
        """Rebuild the log from the nodes' classes; tables already up to date stay, the others go."""
        old_len = self._log_len
        rows: list[int] = []
        for i, classes in enumerate(self._node_classes):
            for c, k in classes.items():
                rows += (i, c, k)
        self._log_len = 0
        self._live = len(rows) // 3
        if rows:
            self._append(rows)
        for tables in (self._tables, self._domain_tables):
            for key in [k for k, t in tables.items() if t[1] != old_len]:
                del tables[key]
            for t in tables.values():
                t[1] = self._log_len

    def table(self, namespace: str, selector: Any) -> tuple[Any, ...]:
        """A handle on the selector's table, up to date now, for :meth:`count_on`.

        Returns
        -------
        tuple
            Opaque; valid while the table is kept and the log is not rebuilt.
        """
        counts = self.counts(namespace, selector)
        key = (namespace, selector_key(selector))
        return (key, self._tables[key], counts)

    def current(self, handle: tuple[Any, ...]) -> Any:
        """The counts of a :meth:`table` handle if nothing was placed or removed since, else None.

        Returns
        -------
        numpy.ndarray or None
            int64 of shape (n,), as :meth:`counts`; read-only for the caller.
        """
        self._sync()
        return handle[2] if self._has_every_change(handle) else None

    def _has_every_change(self, handle: tuple[Any, ...]) -> bool:
        # The handle's table is still kept and has every logged change.
        key, table, _counts = handle
        return self._tables.get(key) is table and table[1] == self._log_len

    def count_on(self, handle: tuple[Any, ...], node_info: Any) -> int | None:
        """The table's count for ``node_info`` if it is still exact, else None.

        Exact when ``node_info`` is a node of these arrays, its pods have not
        changed since the last sync, and the table has every logged change
        (nothing was placed or removed since :meth:`table`).
        """
        hook = getattr(node_info, "batch_hook", None)
        if hook is None or hook[0] is not self._arrays_ref():
            return None
        arrays, j = hook
        if not self._has_every_change(handle) or self._seen[j] != arrays.pod_generation[j]:
            return None
        return int(handle[2][j])

    def _match_classes(self, namespace: str, selector: Any, start: int) -> Any:
        """Whether ``selector`` (in ``namespace``, not terminating) matches each class from ``start`` on.

        Only the classes carrying one of the values the selector requires of
        some label (:meth:`LabelSelector.required_values`) are tested; the
        others cannot match. Without such a label, every class is.
        """
        facts = self._class_facts
        matches = selector.matches
        required = selector.required_values()
        if required is None:
            return np.fromiter((not term and ns == namespace and matches(labels) for ns, term, labels in facts[start:]),
                               dtype=bool, count=len(facts) - start)
        out = np.zeros(len(facts) - start, dtype=bool)
        key, values = required
        with_label = self._classes_with
        for value in values:
            ids = with_label.get((key, value))
            if not ids:
                continue
            for c in ids[bisect.bisect_left(ids, start):]:
                ns, term, labels = facts[c]
                if not term and ns == namespace and matches(labels):
                    out[c - start] = True
        return out

    def counts(self, namespace: str, selector: Any) -> Any:
        """Per node, its pods in ``namespace``, not terminating, whose labels ``selector`` matches.

        Returns
        -------
        numpy.ndarray
            int64 of shape (n,); read-only for the caller.
        """
        self._sync()
        key = (namespace, selector_key(selector))
        tables = self._tables
        table = tables.pop(key, None)
        if table is None:
            if len(tables) >= self._max_tables:
                del tables[next(iter(tables))]
            table = [np.zeros(len(self.arrays), dtype=np.int64), 0, np.zeros(0, dtype=bool)]
        tables[key] = table  # most recently used last
        counts, pos, match = table
        end = self._log_len
        if pos < end:
            if len(match) < len(self._class_facts):
                match = table[2] = np.concatenate([match, self._match_classes(namespace, selector, len(match))])
            if end - pos <= 8:  # a few pods placed since: row by row
                log = self._log
                for j in range(pos, end):
                    if match[log[1, j]]:
                        counts[log[0, j]] += log[2, j]
                table[1] = end
                return counts
            nodes, classes, deltas = self._log[:, pos:end]
            hit = np.flatnonzero(match[classes])
            if len(hit) > len(counts) // 8:
                # Integer sums well below 2**53: float64 bincount is exact.
                counts += np.bincount(nodes[hit], weights=deltas[hit], minlength=len(counts)).astype(np.int64)
            elif len(hit):
                np.add.at(counts, nodes[hit], deltas[hit])
            table[1] = end
        return counts

    #: How many :meth:`domain_counts` tables are kept (all dropped when full).
    MAX_DOMAIN_TABLES = 4096

    def domain_counts(self, namespace: str, selector: Any, topology_key: str, eligible: Any,
                      eligible_key: Hashable | None) -> Any:
        """Matching pods (as :meth:`counts`) summed per domain of ``topology_key`` over the ``eligible`` nodes.

        Parameters
        ----------
        namespace, selector
            As for :meth:`counts`.
        topology_key : str
            A node label key; domains are its value ids (``SnapshotArrays.label_values``).
        eligible : numpy.ndarray
            bool of shape (n,): the nodes counted.
        eligible_key : hashable or None
            Names ``eligible``: the sums are then kept under it and brought
            up to date from the log, like the per-node tables; None: summed afresh.

        Returns
        -------
        numpy.ndarray
            int64 of shape (values + 1,): entry ``id + 1`` per value id, entry
            0 for nodes without the label. Read-only for the caller.
        """
        counts = self.counts(namespace, selector)
        ids, vocab = self.arrays.label_values(topology_key)
        tkey = (namespace, selector_key(selector))
        key = (tkey, topology_key, eligible_key)
        got = self._domain_tables.get(key) if eligible_key is not None else None
        end = self._log_len
        if got is None:
            sel = eligible & (counts > 0)
            # Integer sums well below 2**53: float64 bincount is exact.
            sums = np.bincount(ids[sel] + 1, weights=counts[sel], minlength=len(vocab) + 1).astype(np.int64)
            if eligible_key is not None:
                if len(self._domain_tables) >= self.MAX_DOMAIN_TABLES:
                    self._domain_tables.clear()
                self._domain_tables[key] = [sums, end]
            return sums
        sums, pos = got
        if pos < end:
            # The log rows counts() just added to the per-node table, on eligible nodes, by domain.
            match = self._tables[tkey][2]
            if end - pos <= 8:
                log = self._log
                for j in range(pos, end):
                    node = log[0, j]
                    if match[log[1, j]] and eligible[node]:
                        sums[ids[node] + 1] += log[2, j]
            else:
                nodes, classes, deltas = self._log[:, pos:end]
                hit = np.flatnonzero(match[classes] & eligible[nodes])
                if len(hit):
                    np.add.at(sums, ids[nodes[hit]] + 1, deltas[hit])
            got[1] = end
        return sums


def _taints_key(node_info: Any) -> str:
    node = node_info.node
    spec = node.spec if node is not None else None
    return repr(spec.taints if spec is not None else None)


def _affinity_keys(spec: Any) -> tuple[tuple[str, ...], bool]:
    """Node label keys read by a pod's nodeSelector and required node affinity, and whether it reads fields."""
    keys = set(spec.nodeSelector or ())
    by_name = False
    na = _get(spec.affinity, "nodeAffinity")
    required = _get(na, "requiredDuringSchedulingIgnoredDuringExecution")
    for t in _get(required, "nodeSelectorTerms") or ():
        for e in _get(t, "matchExpressions") or ():
            keys.add(_get(e, "key"))
        if _get(t, "matchFields"):
            by_name = True
    return tuple(sorted(keys, key=str)), by_name


def node_inclusion_mask(arrays: Any, pod_info: Any, constraint: TopologySpreadConstraint, required: Any) -> Any:
    """Per snapshot node: it has a Node object and passes ``constraint``'s inclusion policies.

    The same predicate as ``node_info.node is not None and
    constraint.match_node_inclusion_policies(pod_info, node_info.node, required)``,
    evaluated once per class of nodes that agree on everything it reads (the
    label values the pod's node affinity names, the name when it uses
    ``matchFields``, the taints when ``nodeTaintsPolicy`` is Honor).

    Returns
    -------
    numpy.ndarray
        bool of shape (n,).
    """
    honor_affinity = constraint.node_affinity_policy == NODE_INCLUSION_POLICY_HONOR and (
        required.label_selector is not None or required.node_selector is not None
        or required.added_node_selector is not None)
    honor_taints = constraint.node_taints_policy == NODE_INCLUSION_POLICY_HONOR
    keys, by_name = _affinity_keys(pod_info.pod.spec) if honor_affinity else ((), False)
    if required.added_node_selector is not None and honor_affinity:
        by_name = True  # the added affinity's keys are not listed: one class per node
    classes = arrays.classes(
        ("PodTopologySpread/inclusion", keys, by_name, honor_taints),
        lambda ni: (ni.node is None, tuple(ni.labels.get(k) for k in keys),
                    ni.name if by_name else "", _taints_key(ni) if honor_taints else ""))

    def included(ni: Any) -> bool:
        if ni.node is None:
            return False
        if honor_affinity and not required.match(ni.node):
            return False
        if honor_taints and has_untolerated_do_not_schedule_taint(ni.node, pod_info.pod):
            return False
        return True

    return arrays.mask_by_class(classes, included, node_inclusion_key(pod_info, constraint, required))


def node_inclusion_key(pod_info: Any, constraint: TopologySpreadConstraint, required: Any) -> Hashable | None:
    """A key equal for pods and constraints with equal :func:`node_inclusion_mask` (None: no such key).

    It names the policies and the pod's fields the predicate reads (its
    node selector and affinity when the affinity policy is Honor, its
    tolerations when the taints policy is); None when the profile adds a
    node affinity of its own.
    """
    if required.added_node_selector is not None:
        return None
    honor_affinity = constraint.node_affinity_policy == NODE_INCLUSION_POLICY_HONOR and (
        required.label_selector is not None or required.node_selector is not None)
    honor_taints = constraint.node_taints_policy == NODE_INCLUSION_POLICY_HONOR
    fields = (("nodeSelector", "affinity") if honor_affinity else ()) + (("tolerations",) if honor_taints else ())
    return ("PodTopologySpread/inclusion", honor_affinity, honor_taints, pod_spec_key(pod_info, fields))


def cal_pre_filter_state_batch(pod: "PodInfo", constraints: list[TopologySpreadConstraint], arrays: Any) -> PreFilterState:
    """:func:`~kubenotes.scheduler.plugins.podtopologyspread.filtering.cal_pre_filter_state` over every node of a snapshot's arrays (kubenotes only; same result).

    Parameters
    ----------
    pod : PodInfo
    constraints : list[TopologySpreadConstraint]
    arrays : SnapshotArrays
        Of the snapshot whose nodes PreFilter was given (all of them, in order).

    Notes
    -----
    Matching pods per node come from
    :func:`count_pods_match_selector_per_node`
    and are summed per label value id over the eligible nodes; domains enter
    ``tp_value_to_match_num`` in the order of their first eligible node, as
    in the per-node loop, so the critical paths break ties the same way.
    """
    if not constraints:
        return PreFilterState()
    s = PreFilterState(constraints=constraints, critical_paths=[], tp_value_to_match_num=[])
    required = required_node_affinity(pod)
    label_ids = [arrays.label_values(c.topology_key) for c in constraints]
    has_all = np.ones(len(arrays), dtype=bool)
    for ids, _vocab in label_ids:
        has_all &= ids >= 0
    for i, c in enumerate(constraints):
        ids, vocab = label_ids[i]
        eligible = np.flatnonzero(has_all & node_inclusion_mask(arrays, pod, c, required))
        m: dict[str, int] = {}
        if len(eligible):
            vals = ids[eligible]
            per_node = count_pods_match_selector_per_node(arrays, c.selector, pod.namespace)[eligible]
            sums = np.bincount(vals, weights=per_node, minlength=len(vocab)).astype(np.int64)
            uniq, first = np.unique(vals, return_index=True)
            values = list(vocab)
            for u in uniq[np.argsort(first, kind="stable")].tolist():
                m[values[u]] = int(sums[u])
        s.tp_value_to_match_num.append(m)
    for i in range(len(constraints)):
        paths = CriticalPaths()
        for value, num in s.tp_value_to_match_num[i].items():
            paths.update(value, num)
        s.critical_paths.append(paths)
    return s


def pre_score_state_batch(pod: "PodInfo", constraints: list[TopologySpreadConstraint], require_all: bool,
                          nodes: list["NodeInfo"], arrays: Any, fidx: Any) -> PreScoreState:
    """:func:`~kubenotes.scheduler.plugins.podtopologyspread.scoring.pre_score_state` over the snapshot's arrays (kubenotes only; same result).

    Parameters
    ----------
    arrays : SnapshotArrays
        Of the snapshot whose nodes are counted.
    fidx : numpy.ndarray
        Snapshot index of each of ``nodes``.

    Notes
    -----
    Domains come from the label value ids of the feasible nodes; matching pods
    per node come from :func:`count_pods_match_selector_per_node`
    (kept between cycles) and are summed per domain over the nodes passing
    the inclusion policies. A node without the key counts in the ``""``
    domain, as ``labels.get(key, "")`` does in the per-node code.
    """
    s = PreScoreState()
    s.constraints = constraints
    s.topology_value_to_pod_counts = [{} for _ in constraints]
    label_ids = [arrays.label_values(c.topology_key) for c in constraints]
    keep = fidx
    has_all = None
    if require_all:
        has_all = np.ones(len(arrays), dtype=bool)
        for ids, _vocab in label_ids:
            has_all &= ids >= 0
        miss = ~has_all[fidx]
        if miss.any():
            s.ignored_nodes = {nodes[k].name for k in np.flatnonzero(miss).tolist()}
            keep = fidx[~miss]
    for i, c in enumerate(constraints):
        if c.topology_key == LABEL_HOSTNAME:
            size = len(nodes) - len(s.ignored_nodes)
            if not c.selector.is_empty():
                if s.host_tables is None:
                    s.host_tables = [None] * len(constraints)
                index = MatchingPodCounts.of(arrays)
                s.host_tables[i] = (index, index.table(pod.namespace, c.selector))
        else:
            ids, vocab = label_ids[i]
            values = list(vocab)
            counts = s.topology_value_to_pod_counts[i]
            present = np.flatnonzero(np.bincount(ids[keep] + 1, minlength=len(vocab) + 1)) - 1
            for u in present.tolist():
                counts[values[u] if u >= 0 else ""] = 0
            size = len(counts)
        s.topology_normalizing_weight.append(topology_normalizing_weight(size))

    required = None
    for i, c in enumerate(constraints):
        counts = s.topology_value_to_pod_counts[i]
        if c.topology_key == LABEL_HOSTNAME or not counts:
            continue
        if c.selector.is_empty():
            continue  # matches no pod (countPodsMatchSelector)
        if required is None:
            required = required_node_affinity(pod)
        eligible = node_inclusion_mask(arrays, pod, c, required)
        eligible_key = node_inclusion_key(pod, c, required)
        if has_all is not None:
            eligible = eligible & has_all
            if eligible_key is not None:
                eligible_key = (eligible_key, tuple(k.topology_key for k in constraints))
        sums = MatchingPodCounts.of(arrays).domain_counts(pod.namespace, c.selector, c.topology_key, eligible,
                                                          eligible_key)
        ids, vocab = label_ids[i]
        for value in counts:
            j = vocab.get(value)
            n = int(sums[j + 1]) if j is not None else 0
            if value == "":
                n += int(sums[0])  # nodes without the key
            counts[value] += n
    return s


class PodTopologySpreadCounts:
    """What PodTopologySpread's PreFilter and PreScore count over a snapshot's arrays (``SNAPSHOT_COUNTS``).

    The plugin asks :meth:`SnapshotArrays.counts_of <kubenotes.scheduler.arrays.SnapshotArrays.counts_of>`
    for these when the nodes it was given are the snapshot's; the states
    equal the per-node loops' (tests/scheduler/plugins/test_pts_batch.py).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (calPreFilterState)
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread/scoring.go (PreScore)

    Examples
    --------
    >>> PodTopologySpreadCounts.pre_filter_state is cal_pre_filter_state_batch
    True
    """

    pre_filter_state = staticmethod(cal_pre_filter_state_batch)
    pre_score_state = staticmethod(pre_score_state_batch)
