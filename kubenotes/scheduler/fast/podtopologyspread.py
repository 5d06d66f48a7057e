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

from typing import TYPE_CHECKING, Any

import numpy as np

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Status
from kubenotes.scheduler.plugins.podtopologyspread.common import LABEL_HOSTNAME, count_pods_match_selector_per_node
from kubenotes.scheduler.plugins.podtopologyspread.plugin import PodTopologySpread

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import PodInfo

__all__ = ["PodTopologySpreadForms"]


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
