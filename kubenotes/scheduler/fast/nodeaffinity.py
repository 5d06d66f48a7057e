"""Fast forms of NodeAffinity: verdicts and scores once per combination of the node labels a pod names.

kubenotes only (see :mod:`kubenotes.scheduler.fast`). Filter and Score read
the node's labels (and, for ``matchFields``, its name) that the pod's
nodeSelector and node affinity name, so nodes equal in those get equal
results, kept per node selector and affinity between cycles.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubenotes.scheduler.arrays import pod_spec_key
from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.fast.helper import default_normalize_score_batch
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE
from kubenotes.scheduler.plugins.nodeaffinity import NAME, NodeAffinity, _get

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import PodInfo

__all__ = ["NodeAffinityForms"]


def _referenced_node_keys(spec: Any) -> tuple[tuple[str, ...], bool]:
    """Node label keys a pod's nodeSelector and node affinity read, and whether a term reads node fields."""
    keys = set(spec.nodeSelector or ())
    by_name = False
    na = _get(spec.affinity, "nodeAffinity")
    required = _get(na, "requiredDuringSchedulingIgnoredDuringExecution")
    terms = list(_get(required, "nodeSelectorTerms") or ())
    terms += [_get(p, "preference") for p in _get(na, "preferredDuringSchedulingIgnoredDuringExecution") or ()]
    for t in terms:
        for e in _get(t, "matchExpressions") or ():
            keys.add(_get(e, "key"))
        if _get(t, "matchFields"):
            by_name = True
    return tuple(sorted(keys, key=str)), by_name


class NodeAffinityForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.nodeaffinity.NodeAffinity`.

    Parameters
    ----------
    plugin : NodeAffinity

    Notes
    -----
    With an ``addedAffinity`` in the plugin's args there are no classes and
    the batch path declines (the per-node path runs).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> arr = new_snapshot([make_node("n1", labels={"disk": "ssd"}), make_node("n2")], []).arrays()
    >>> pl, state, pod = NodeAffinity(), CycleState(), PodInfo(make_pod("p", nodeSelector={"disk": "ssd"}))
    >>> _ = pl.pre_filter(state, pod, arr.node_infos)
    >>> NodeAffinityForms(pl).filter_batch(state, pod, arr, arr.arange).tolist()
    [True, False]
    """

    plugin_type = NodeAffinity
    filter_ignores_node_pods = True  # the verdict reads the node object and the pod only
    filter_reads_pod_spec = ("nodeSelector", "affinity")  # ... and these fields of the pod's spec only
    filter_error_free = True  # Filter fails with an Error only without its PreFilter state

    __slots__ = ()

    def _classes(self, pod: "PodInfo", arrays: Any) -> Any:
        """The node classes for ``pod`` (by the label values it names) and the key its verdicts are kept under."""
        pl = self.plugin
        if pl.added_node_selector is not None or pl.added_pref_sched_terms is not None:
            return None, None
        keys, by_name = _referenced_node_keys(pod.pod.spec)
        classes = arrays.classes((NAME, keys, by_name), lambda ni: (
            tuple(ni.labels.get(k) for k in keys), ni.name if by_name else ""))
        return classes, (keys, by_name, pod_spec_key(pod, self.filter_reads_pod_spec))

    def filter_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``filter`` over the nodes ``idx``, once per combination of the label values the pod names.

        Verdicts are kept per node selector and affinity (all Filter reads of the pod).
        """
        classes, key = self._classes(pod, arrays)
        if classes is None:
            return None
        pl = self.plugin
        return arrays.filter_by_class(classes, idx, lambda ni: pl.filter(state, pod, ni), (NAME, "Filter", key))

    def filter_status_key_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any,
                                added: Any = None) -> Any:
        """Per node of ``idx``, its class: ``filter`` gives nodes of one class one status.

        ``added`` (nominated pods) is ignored: the Filter does not look at pods.
        None with an added affinity (no classes).
        """
        classes, _key = self._classes(pod, arrays)
        return None if classes is None else classes[0][idx]

    def score_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``score`` over the nodes ``idx``, once per combination of the label values the pod names.

        Scores are kept per node selector and affinity: PreScore's preferred
        terms come from the pod's affinity alone.
        """
        classes, key = self._classes(pod, arrays)
        if classes is None:
            return None
        pl = self.plugin
        return arrays.score_by_class(classes, idx, lambda ni: pl.score(state, pod, ni), (NAME, "Score", key))

    def normalize_score_batch(self, state: "CycleState", pod: "PodInfo", scores: Any) -> Any:
        """``normalize_score`` over an int64 array."""
        return default_normalize_score_batch(MAX_NODE_SCORE, False, scores)
