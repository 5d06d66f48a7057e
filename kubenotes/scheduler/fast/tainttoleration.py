"""Fast forms of TaintToleration: its verdicts and scores once per distinct taint list.

kubenotes only (see :mod:`kubenotes.scheduler.fast`). Filter and Score read
the node's taints and the pod's tolerations alone, so nodes with equal taint
lists get equal results, kept per tolerations between cycles.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubenotes.scheduler.arrays import pod_spec_key
from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.fast.helper import default_normalize_score_batch
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE
from kubenotes.scheduler.plugins.tainttoleration import NAME, TaintToleration

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["TaintTolerationForms"]


def _taint_key(node_info: "NodeInfo") -> str:
    node = node_info.node
    spec = node.spec if node is not None else None
    return repr(spec.taints if spec is not None else None)


class TaintTolerationForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.tainttoleration.TaintToleration`.

    Parameters
    ----------
    plugin : TaintToleration

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go

    Examples
    --------
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1", taints=[{"key": "k", "effect": "NoSchedule"}]), make_node("n2")], [])
    >>> arr = snap.arrays()
    >>> TaintTolerationForms(TaintToleration()).filter_batch(None, PodInfo(make_pod("p")), arr, arr.arange).tolist()
    [False, True]
    """

    plugin_type = TaintToleration
    filter_ignores_node_pods = True  # the verdict reads the node object and the pod only
    filter_reads_pod_spec = ("tolerations",)  # ... and these fields of the pod's spec only
    filter_error_free = True  # Filter fails with an Error only without its PreFilter state

    __slots__ = ("_score_key",)

    def __init__(self, plugin: TaintToleration):
        super().__init__(plugin)
        self._score_key: tuple[Any, Any] = (None, None)  # (PodInfo, its Score memo key): asked twice a cycle

    def filter_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``filter`` over the nodes ``idx``, once per distinct taint list and kept per tolerations."""
        pl = self.plugin
        return arrays.filter_by_class(arrays.classes(NAME, _taint_key), idx, lambda ni: pl.filter(state, pod, ni),
                                      (NAME, "Filter", pod_spec_key(pod, self.filter_reads_pod_spec)))

    def filter_status_key_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any,
                                added: Any = None) -> Any:
        """Per node of ``idx``, the class of its taint list: ``filter`` gives nodes of one class one status.

        ``added`` (nominated pods) is ignored: the Filter does not look at pods.
        """
        return arrays.classes(NAME, _taint_key)[0][idx]

    def score_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``score`` over the nodes ``idx``, once per distinct taint list and kept per tolerations.

        The score reads PreScore's PreferNoSchedule tolerations, which come
        from the pod's tolerations alone.
        """
        pl = self.plugin
        return arrays.score_by_class(arrays.classes(NAME, _taint_key), idx, lambda ni: pl.score(state, pod, ni),
                                     self._score_memo_key(pod))

    def score_batch_uniform(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> bool:
        """True when every node gets the same intolerable-taint count, hence the same normalized score.

        (Counts are never negative; equal counts normalize to 100, or to 0.)
        """
        pl = self.plugin
        return arrays.uniform_by_class(arrays.classes(NAME, _taint_key), lambda ni: pl.score(state, pod, ni),
                                       self._score_memo_key(pod)) is not None

    def _score_memo_key(self, pod: "PodInfo") -> tuple[Any, ...]:
        # The Score reads the pod's tolerations only (through PreScore).
        if self._score_key[0] is not pod:
            self._score_key = (pod, (NAME, "Score", pod_spec_key(pod, self.filter_reads_pod_spec)))
        return self._score_key[1]

    def normalize_score_batch(self, state: "CycleState", pod: "PodInfo", scores: Any) -> Any:
        """``normalize_score`` over an int64 array."""
        return default_normalize_score_batch(MAX_NODE_SCORE, True, scores)
