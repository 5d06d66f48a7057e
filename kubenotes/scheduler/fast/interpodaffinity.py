"""Fast forms of InterPodAffinity: Filter, Score and NormalizeScore over label value ids.

kubenotes only (see :mod:`kubenotes.scheduler.fast`). Filter and Score look
a node's labels up in maps PreFilter and PreScore filled; the batch forms
turn each map into a lookup table over the ids of a label's values, so every
node is one array index. Also what preemption's dry run may key remembered
results on (:meth:`InterPodAffinityForms.filter_state_signature`,
:meth:`InterPodAffinityForms.filter_node_signature`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/interpodaffinity/scoring.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Status
from kubenotes.scheduler.plugins.interpodaffinity import InterPodAffinity, _pod_matches_all_terms

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["InterPodAffinityForms"]


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
