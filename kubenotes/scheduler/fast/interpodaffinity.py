"""Fast forms of InterPodAffinity: Filter, Score and NormalizeScore over label value ids.

kubenotes only (see :mod:`kubenotes.scheduler.fast`). Filter and Score look
a node's labels up in maps PreFilter and PreScore filled; the batch forms
turn each map into a lookup table over the ids of a label's values, so every
node is one array index. The counters PreFilter and PreScore need come
from a whole-snapshot index (:class:`InterPodAffinityCounts`). Also what
preemption's dry run may key remembered results on (:meth:`InterPodAffinityForms.filter_state_signature`,
:meth:`InterPodAffinityForms.filter_node_signature`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/scoring.go
"""

from __future__ import annotations

import bisect
import weakref
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from kubenotes.scheduler.arrays import PodMemo
from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Status
from kubenotes.scheduler.framework.node_info import AffinityTerm, WeightedAffinityTerm
from kubenotes.scheduler.plugins.interpodaffinity import (
    InterPodAffinity,
    PreFilterState,
    TopologyPair,
    _pod_matches_all_terms,
)

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["InterPodAffinityForms", "InterPodAffinityCounts"]


class InterPodAffinityForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.interpodaffinity.InterPodAffinity`.

    Parameters
    ----------
    plugin : InterPodAffinity

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/plugin.go

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
    >>> anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    ...     {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": zone}]}}
    >>> pl, state = InterPodAffinity(SimpleNamespace(snapshot=snap, objects=None)), CycleState()
    >>> pod = PodInfo(make_pod("p", affinity=anti))
    >>> _ = pl.pre_filter(state, pod, snap.list())
    >>> arr = snap.arrays()
    >>> InterPodAffinityForms(pl).filter_batch(state, pod, arr, arr.arange).tolist()
    [False, True]
    """

    plugin_type = InterPodAffinity
    add_pod_error_free = True  # AddPod fails only without its PreFilter state

    __slots__ = ()

    # -- what preemption's dry run may key its results on (DefaultPreemption.select_victims_on_copy) ----
    def filter_state_signature(self, state: "CycleState", pod: "PodInfo") -> Any:
        """What Filter, AddPod and RemovePod read of the PreFilter state besides the counters: the namespaces the
        incoming pod's terms were resolved to and its namespace's labels (the terms themselves are the pod's).

        kubenotes only. None without the state.
        """
        s = self.plugin._pre_filter_state(state)
        if isinstance(s, Status):
            return None
        return (tuple(t.namespaces for t in s.affinity_terms), tuple(t.namespaces for t in s.anti_affinity_terms),
                tuple(sorted(s.namespace_labels.items())))

    def filter_node_signature(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> Any:
        """What Filter reads of the PreFilter state for ``node_info``, beyond :meth:`filter_state_signature`.

        The counters at the node's topology pairs (AddPod and RemovePod of the
        node's own pods change only those), and whether the affinity counter
        holds entries at other pairs (Filter asks whether it is empty). With
        the node's pods and the incoming pod, they decide every Filter verdict
        on the node while pods are removed from it and added back.

        kubenotes only. None without the state.
        """
        s = self.plugin._pre_filter_state(state)
        if isinstance(s, Status):
            return None
        labels = node_info.labels
        affinity = s.affinity_counts
        pairs = {(t.topology_key, labels[t.topology_key]) for t in s.affinity_terms if t.topology_key in labels}
        elsewhere = len(affinity) > sum(1 for pair in pairs if pair in affinity)
        anti = s.anti_affinity_counts
        existing = s.existing_anti_affinity_counts
        return (tuple(affinity.get(pair) for pair in sorted(pairs)), elsewhere,
                tuple(anti.get((t.topology_key, labels.get(t.topology_key))) for t in s.anti_affinity_terms),
                tuple(existing.get(pair) for pair in labels.items()) if existing else ())

    # -- batch forms (see kubenotes.scheduler.batch) -----------------------
    def filter_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``filter`` over the nodes ``idx``: the counters looked up through per-key label value ids."""
        s = self.plugin._pre_filter_state(state)
        if isinstance(s, Status):
            return None
        ok = np.ones(len(idx), dtype=bool)
        if s.affinity_terms:
            all_keys = np.ones(len(idx), dtype=bool)
            all_exist = np.ones(len(idx), dtype=bool)
            for t in s.affinity_terms:
                v = _value_ids(arrays, t.topology_key, idx)
                all_keys &= v > 0
                all_exist &= _positive_lut(arrays, s.affinity_counts, t.topology_key)[v]
            first_of_group = not s.affinity_counts and _pod_matches_all_terms(s.affinity_terms, s.pod_info)
            ok &= all_keys & (all_exist | first_of_group)
        if s.anti_affinity_counts:
            for t in s.anti_affinity_terms:
                ok &= ~_positive_lut(arrays, s.anti_affinity_counts, t.topology_key)[_value_ids(arrays, t.topology_key, idx)]
        if s.existing_anti_affinity_counts:
            for key in {k for (k, _v), c in s.existing_anti_affinity_counts.items() if c > 0}:
                ok &= ~_positive_lut(arrays, s.existing_anti_affinity_counts, key)[_value_ids(arrays, key, idx)]
        return ok

    def score_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``score`` over the nodes ``idx``."""
        s = self.plugin._pre_score_state(state)
        if isinstance(s, Status):
            return None
        total = np.zeros(len(idx), dtype=np.int64)
        for key, vals in s.topology_score.items():
            _ids, vocab = arrays.label_values(key)
            lut = np.zeros(len(vocab) + 1, dtype=np.int64)
            for v, w in vals.items():
                j = vocab.get(v)
                if j is not None:
                    lut[j + 1] = w
            total += lut[_value_ids(arrays, key, idx)]
        return total

    def normalize_score_batch(self, state: "CycleState", pod: "PodInfo", scores: Any) -> Any:
        """``normalize_score`` over an int64 array (same float arithmetic, truncated)."""
        s = self.plugin._pre_score_state(state)
        if isinstance(s, Status):
            return None
        if not s.topology_score or not len(scores):
            return scores
        lo = int(scores.min())
        diff = int(scores.max()) - lo
        if diff <= 0:
            return np.zeros(len(scores), dtype=np.int64)
        return np.trunc(float(MAX_NODE_SCORE) * ((scores - lo) / diff)).astype(np.int64)


def _value_ids(arrays: Any, key: str, idx: Any) -> Any:
    """1 + the id of each node's value for label ``key`` (0 when the node lacks the label)."""
    ids, _vocab = arrays.label_values(key)
    return ids[idx] + 1


def _positive_lut(arrays: Any, counts: Mapping[tuple[str, str], int], key: str) -> Any:
    """Lookup table over :func:`_value_ids`: True where ``counts[(key, value)] > 0``."""
    _ids, vocab = arrays.label_values(key)
    lut = np.zeros(len(vocab) + 1, dtype=bool)
    for (k, v), c in counts.items():
        if k == key and c > 0:
            j = vocab.get(v)
            if j is not None:
                lut[j + 1] = True
    return lut


# --------------------------------------------------------------------------- whole-snapshot index
# kubenotes only (upstream walks every pod in 16 goroutines): PreFilter and
# PreScore read the pods of the whole cluster for every pod scheduled. The
# index below groups the snapshot's pods into *label classes* (namespace and
# labels: all replicas of a ReplicaSet are one class) and the existing pods'
# affinity terms into *entries* (kind, term, weight), keeps per class and per
# entry how many pods of each node have it, and recounts only the nodes whose
# pods changed since the last pod (``SnapshotArrays.rows_changed_since``). A term
# is then matched once per class, not once per pod, and the counters are
# summed over the nodes that hold matching pods.

_ANTI_REQUIRED, _AFFINITY_REQUIRED, _AFFINITY_PREFERRED, _ANTI_PREFERRED = range(4)


def _term_key(t: AffinityTerm) -> tuple[Any, ...]:
    """What :meth:`AffinityTerm.matches` depends on (the topology key does not matter)."""
    return (t.namespaces, t.selector, t.namespace_selector)


def _entry_buckets(t: AffinityTerm) -> list[tuple[Any, Any]]:
    """Where :meth:`_PodIndex.entries_matching` files a term, and where :meth:`_PodIndex.classes_matching` looks.

    ``(namespace, (label, value))`` pairs.

    A pod can match the term only if its namespace is one of the term's
    (``None``: the namespace selector may admit any) and, when the selector
    requires one of a few values of a label (``LabelSelector.required_values``),
    it carries one of them (``None``: no such label).
    """
    spaces: list[Any] = [None] if not t.namespace_selector.is_nothing() else sorted(t.namespaces)
    required = t.selector.required_values()
    pairs: list[Any] = [None] if required is None else [(required[0], v) for v in required[1]]
    return [(ns, kv) for ns in spaces for kv in pairs]


def _pod_buckets(pod: "PodInfo") -> list[tuple[Any, Any]]:
    """The :func:`_entry_buckets` under which a term that ``pod`` can match is filed.

    Its namespace or any (``None``), with one of its labels or none.
    """
    pairs: list[Any] = [None, *pod.labels.items()]
    return [(ns, kv) for ns in (pod.namespace, None) for kv in pairs]


class _PodIndex:
    """Per-node counts of label classes and of existing pods' affinity terms, kept in step with a snapshot.

    Parameters
    ----------
    arrays : SnapshotArrays
        The snapshot's arrays; they say which nodes to recount (``rows_changed_since``).

    Notes
    -----
    kubenotes only. :meth:`pre_filter_counts` and :meth:`pre_score_weights`
    give exactly what :meth:`~kubenotes.scheduler.plugins.interpodaffinity.InterPodAffinity._pre_filter_counts` and
    :meth:`~kubenotes.scheduler.plugins.interpodaffinity.InterPodAffinity._pre_score_weights` give over every node
    (tests/scheduler/plugins/test_ipa_batch.py holds them to it).
    """

    def __init__(self, arrays: Any):
        # A proxy: the index is kept in a WeakKeyDictionary keyed by the arrays and must not keep them alive.
        self.arrays = weakref.proxy(arrays)
        n = len(arrays)
        self.seen = np.full(n, -1, dtype=np.int64)
        self._changes_seen: int | None = None  # SnapshotArrays.changes at the last sync
        self.node_classes: list[dict[int, int]] = [{} for _ in range(n)]
        self.node_entries: list[dict[int, int]] = [{} for _ in range(n)]
        self.class_ids: dict[tuple[str, frozenset], int] = {}
        self.class_reps: list["PodInfo"] = []          # one pod per class, to match terms against
        self.class_nodes: list[dict[int, int]] = []    # class -> node index -> pods
        self.entry_ids: dict[tuple[Any, ...], int] = {}
        self.entries: list[tuple[int, AffinityTerm, int]] = []  # (kind, term, weight)
        self.entry_nodes: list[dict[int, int]] = []    # entry -> node index -> pods
        self._term_classes: dict[tuple[Any, ...], list[Any]] = {}   # term -> [classes checked, matching]
        self._pod_entries: dict[tuple[Any, ...], list[Any]] = {}    # incoming class -> [entries checked, matching]
        self._entries_in: dict[tuple[Any, Any], list[int]] = {}     # _entry_buckets -> entry ids, ascending
        self._classes_in: dict[tuple[Any, Any], list[int]] = {}     # (namespace or None, label or None) -> classes
        self._pod_class = PodMemo()                                 # PodInfo -> its class
        self._counted: list[tuple[int, int]] = [(0, -1)] * n       # node -> (pods counted, NodeInfo.generation then)

    # -- upkeep ------------------------------------------------------------
    def sync(self) -> None:
        """Recount the nodes whose pods changed since the last call."""
        stale, self._changes_seen = self.arrays.changed_rows(self._changes_seen, self.seen)
        if len(stale):
            for i in stale.tolist():
                self._recount(i)
            self._pod_class.trim(self.arrays.total_pods)  # forget pods that left

    def _class(self, p: "PodInfo") -> int:
        known = self._pod_class.get(p)
        if known is not None:
            return known
        k = (p.namespace, frozenset(p.labels.items()))
        c = self.class_ids.get(k)
        if c is None:
            c = self.class_ids[k] = len(self.class_reps)
            self.class_reps.append(p)
            self.class_nodes.append({})
            buckets = self._classes_in
            for bucket in _pod_buckets(p):
                buckets.setdefault(bucket, []).append(c)
        self._pod_class.put(p, c)
        return c

    def _entry(self, kind: int, t: AffinityTerm, weight: int) -> int:
        k = (kind, _term_key(t), t.topology_key, weight)
        e = self.entry_ids.get(k)
        if e is None:
            e = self.entry_ids[k] = len(self.entries)
            self.entries.append((kind, t, weight))
            self.entry_nodes.append({})
            for bucket in _entry_buckets(t):
                self._entries_in.setdefault(bucket, []).append(e)
        return e

    def _recount(self, i: int) -> None:
        ni = self.arrays.node_infos[i]
        pods = ni.pods
        counted, generation = self._counted[i]
        self._counted[i] = (len(pods), ni.generation)
        if ni.node is not None and 0 < counted and ni.generation - generation == len(pods) - counted > 0:
            # Only appended since the last count: every add or remove bumps NodeInfo.generation, so as many
            # changes as new pods means no removal. NodeInfo.add_pod appends: count the new pods alone.
            classes, class_nodes = self.node_classes[i], self.class_nodes
            for p in pods[counted:]:
                c = self._class(p)
                class_nodes[c][i] = classes[c] = classes.get(c, 0) + 1
                if p.has_affinity():  # as NodeInfo.add_pod files it under pods_with_affinity
                    entries, entry_nodes = self.node_entries[i], self.entry_nodes
                    for e in self._entries_of(p):
                        entry_nodes[e][i] = entries[e] = entries.get(e, 0) + 1
            return
        classes: dict[int, int] = {}
        entries: dict[int, int] = {}
        if ni.node is not None:
            for p in pods:
                c = self._class(p)
                classes[c] = classes.get(c, 0) + 1
            for p in ni.pods_with_affinity:
                for e in self._entries_of(p):
                    entries[e] = entries.get(e, 0) + 1
        _replace_row(self.node_classes, self.class_nodes, i, classes)
        _replace_row(self.node_entries, self.entry_nodes, i, entries)

    def _entries_of(self, p: "PodInfo") -> list[int]:
        """Entry ids of ``p``'s affinity and anti-affinity terms (required, then preferred)."""
        found = [self._entry(_ANTI_REQUIRED, t, 1) for t in p.required_anti_affinity_terms]
        found += [self._entry(_AFFINITY_REQUIRED, t, 1) for t in p.required_affinity_terms]
        found += [self._entry(_AFFINITY_PREFERRED, w.term, w.weight) for w in p.preferred_affinity_terms]
        found += [self._entry(_ANTI_PREFERRED, w.term, w.weight) for w in p.preferred_anti_affinity_terms]
        return found

    # -- matching ----------------------------------------------------------
    def classes_matching(self, t: AffinityTerm) -> list[int]:
        """Label classes whose pods match ``t`` (``t.matches(pod, None)``), in class order."""
        got = self._term_classes.get(k := _term_key(t))
        if got is None:
            got = self._term_classes[k] = [0, []]
        reps = self.class_reps
        start = got[0]
        if start < len(reps):
            # Only the classes filed under one of the term's buckets (_entry_buckets) can match it.
            candidates: set[int] = set()
            buckets = self._classes_in
            for bucket in _entry_buckets(t):
                ids = buckets.get(bucket)
                if ids:
                    candidates.update(ids[bisect.bisect_left(ids, start):])
            got[1].extend(c for c in sorted(candidates) if t.matches(reps[c], None))
            got[0] = len(reps)
        return got[1]

    def entries_matching(self, pod: "PodInfo", ns_labels: Mapping[str, str]) -> list[int]:
        """Existing pods' terms that match ``pod`` (``term.matches(pod, ns_labels)``), in entry order."""
        k = (pod.namespace, frozenset(pod.labels.items()), frozenset(ns_labels.items()))
        got = self._pod_entries.get(k)
        if got is None:
            got = self._pod_entries[k] = [0, []]
        entries = self.entries
        start = got[0]
        if start < len(entries):
            # Only the entries filed under the pod's namespace or any namespace, and under one of its labels or
            # none (_entry_buckets), can match it.
            candidates: set[int] = set()
            buckets = self._entries_in
            for bucket in _pod_buckets(pod):
                ids = buckets.get(bucket)
                if ids:
                    candidates.update(ids[bisect.bisect_left(ids, start):])
            got[1].extend(e for e in sorted(candidates) if entries[e][1].matches(pod, ns_labels))
            got[0] = len(entries)
        return got[1]

    # -- PreFilter / PreScore ------------------------------------------------
    def pre_filter_counts(self, s: PreFilterState, pod: "PodInfo") -> None:
        """Fill the three counters of ``s`` (same maps as the walk over every pod)."""
        infos = self.arrays.node_infos
        for e in self.entries_matching(pod, s.namespace_labels):
            kind, t, _w = self.entries[e]
            if kind == _ANTI_REQUIRED:
                _add_rows(s.existing_anti_affinity_counts, infos, self.entry_nodes[e], t.topology_key)
        if s.affinity_terms:
            matched = set(self.classes_matching(s.affinity_terms[0]))
            for t in s.affinity_terms[1:]:
                matched.intersection_update(self.classes_matching(t))
            for c in sorted(matched):
                for t in s.affinity_terms:
                    _add_rows(s.affinity_counts, infos, self.class_nodes[c], t.topology_key)
        for t in s.anti_affinity_terms:
            for c in self.classes_matching(t):
                _add_rows(s.anti_affinity_counts, infos, self.class_nodes[c], t.topology_key)

    def pre_score_weights(self, topology_score: dict[str, dict[str, int]], pod: "PodInfo",
                          ns_labels: Mapping[str, str], affinity: list[WeightedAffinityTerm],
                          anti: list[WeightedAffinityTerm], hard_weight: int) -> bool:
        """Fill ``topology_score`` as PreScore's walk does; True when some term contributed."""
        infos = self.arrays.node_infos
        contributed = False
        for terms, sign in ((affinity, 1), (anti, -1)):
            for wt in terms:
                for c in self.classes_matching(wt.term):
                    contributed |= _weigh_rows(topology_score, infos, self.class_nodes[c],
                                               wt.term.topology_key, sign * wt.weight)
        for e in self.entries_matching(pod, ns_labels):
            kind, t, w = self.entries[e]
            if kind == _AFFINITY_REQUIRED:
                if hard_weight <= 0:
                    continue
                w = hard_weight
            elif kind == _ANTI_PREFERRED:
                w = -w
            elif kind != _AFFINITY_PREFERRED:
                continue
            contributed |= _weigh_rows(topology_score, infos, self.entry_nodes[e], t.topology_key, w)
        return contributed


def _replace_row(per_node: list[dict[int, int]], per_key: list[dict[int, int]], i: int, new: dict[int, int]) -> None:
    """Set node ``i``'s counts to ``new`` in both the per-node and the per-key tables."""
    for k in per_node[i]:
        if k not in new:
            del per_key[k][i]
    for k, c in new.items():
        per_key[k][i] = c
    per_node[i] = new


def _add_rows(m: dict[TopologyPair, int], infos: list["NodeInfo"], rows: Mapping[int, int], key: str) -> None:
    """``m[(key, value)] += count`` for every node (index -> pod count) labelled with ``key``."""
    for i, c in rows.items():
        labels = infos[i].labels
        if key in labels:
            pair = (key, labels[key])
            m[pair] = m.get(pair, 0) + c


def _weigh_rows(m: dict[str, dict[str, int]], infos: list["NodeInfo"], rows: Mapping[int, int],
                key: str, weight: int) -> bool:
    """``m[key][value] += weight * count`` over the nodes labelled with ``key``; True if any was."""
    hit = False
    for i, c in rows.items():
        labels = infos[i].labels
        if key in labels:
            vals = m.setdefault(key, {})
            v = labels[key]
            vals[v] = vals.get(v, 0) + weight * c
            hit = True
    return hit


class InterPodAffinityCounts:
    """What InterPodAffinity's PreFilter and PreScore count over a snapshot's arrays (``SNAPSHOT_COUNTS``).

    The plugin asks :meth:`SnapshotArrays.counts_of <kubenotes.scheduler.arrays.SnapshotArrays.counts_of>`
    for these when the nodes it was given are the snapshot's; one
    :class:`_PodIndex` per arrays, brought up to date at each call.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/scoring.go

    Examples
    --------
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.testing import make_node
    >>> arr = new_snapshot([make_node("n1")], []).arrays()
    >>> InterPodAffinityCounts.pod_index(arr) is InterPodAffinityCounts.pod_index(arr)
    True
    """

    _BY_ARRAYS: "weakref.WeakKeyDictionary[Any, _PodIndex]" = weakref.WeakKeyDictionary()

    @classmethod
    def pod_index(cls, arrays: Any) -> "_PodIndex":
        """The :class:`_PodIndex` of ``arrays`` (made on first use), brought up to date."""
        ix = cls._BY_ARRAYS.get(arrays)
        if ix is None:
            ix = cls._BY_ARRAYS[arrays] = _PodIndex(arrays)
        ix.sync()
        return ix

    @classmethod
    def pre_filter_counts(cls, arrays: Any, s: PreFilterState, pod: "PodInfo") -> None:
        """Fill the three counters of ``s`` (see :meth:`_PodIndex.pre_filter_counts`)."""
        cls.pod_index(arrays).pre_filter_counts(s, pod)

    @classmethod
    def pre_score_weights(cls, arrays: Any, topology_score: dict[str, dict[str, int]], pod: "PodInfo",
                          ns_labels: Mapping[str, str], affinity: list[WeightedAffinityTerm],
                          anti: list[WeightedAffinityTerm], hard_weight: int) -> bool:
        """Fill ``topology_score`` as PreScore's walk does (see :meth:`_PodIndex.pre_score_weights`)."""
        return cls.pod_index(arrays).pre_score_weights(topology_score, pod, ns_labels, affinity, anti, hard_weight)
