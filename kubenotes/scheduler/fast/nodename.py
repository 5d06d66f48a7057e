"""Fast forms of NodeName: the node whose name the pod asks for, by index.

kubenotes only (see :mod:`kubenotes.scheduler.fast`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodename/node_name.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.plugins.nodename import NodeName

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import PodInfo

__all__ = ["NodeNameForms"]


class NodeNameForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.nodename.NodeName`.

    Parameters
    ----------
    plugin : NodeName

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodename/node_name.go

    Examples
    --------
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> arr = new_snapshot([make_node("n1"), make_node("n2")], []).arrays()
    >>> NodeNameForms(NodeName()).filter_batch(None, PodInfo(make_pod("p", node_name="n2")), arr, arr.arange).tolist()
    [False, True]
    """

    plugin_type = NodeName
    filter_ignores_node_pods = True  # the verdict reads the node object and the pod only
    filter_reads_pod_spec = ("nodeName",)  # ... and these fields of the pod's spec only
    filter_error_free = True  # Filter fails with an Error only without its PreFilter state

    __slots__ = ()

    def filter_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``filter`` over the nodes ``idx`` (see :mod:`kubenotes.scheduler.batch`)."""
        wanted = pod.pod.spec.nodeName
        if not wanted:
            return np.ones(len(idx), dtype=bool)
        return idx == arrays.index.get(wanted, -1)
