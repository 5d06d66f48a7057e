"""Fast forms of NodeUnschedulable: its verdict once per ``spec.unschedulable`` value.

kubenotes only (see :mod:`kubenotes.scheduler.fast`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.plugins.nodeunschedulable import NAME, NodeUnschedulable

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["NodeUnschedulableForms"]


def _unschedulable(node_info: "NodeInfo") -> bool:
    spec = node_info.node.spec if node_info.node is not None else None
    return bool(spec is not None and spec.unschedulable)


class NodeUnschedulableForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.nodeunschedulable.NodeUnschedulable`.

    Parameters
    ----------
    plugin : NodeUnschedulable

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go

    Examples
    --------
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1", unschedulable=True), make_node("n2")], [])
    >>> arr = snap.arrays()
    >>> forms = NodeUnschedulableForms(NodeUnschedulable())
    >>> forms.filter_batch(None, PodInfo(make_pod("p")), arr, arr.arange).tolist()
    [False, True]
    """

    plugin_type = NodeUnschedulable
    filter_ignores_node_pods = True  # the verdict reads the node object and the pod only
    filter_reads_pod_spec = ("tolerations",)  # ... and these fields of the pod's spec only
    filter_error_free = True  # Filter fails with an Error only without its PreFilter state

    __slots__ = ()

    def filter_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``filter`` over the nodes ``idx`` (see :mod:`kubenotes.scheduler.batch`), once per ``spec.unschedulable`` value."""
        pl = self.plugin
        return arrays.filter_by_class(arrays.classes(NAME, _unschedulable), idx, lambda ni: pl.filter(state, pod, ni))

    def filter_status_key_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any,
                                added: Any = None) -> Any:
        """Per node of ``idx``, its ``spec.unschedulable`` class: ``filter`` gives nodes of one class one status."""
        return arrays.classes(NAME, _unschedulable)[0][idx]
