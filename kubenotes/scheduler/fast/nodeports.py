"""Fast forms of NodePorts: nodes without used host ports fit; the others node by node.

kubenotes only (see :mod:`kubenotes.scheduler.fast`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeports/node_ports.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.plugins.nodeports import PRE_FILTER_STATE_KEY, NodePorts, fits_ports

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import PodInfo

__all__ = ["NodePortsForms"]


class NodePortsForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.nodeports.NodePorts`.

    Parameters
    ----------
    plugin : NodePorts

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/nodeports/node_ports.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.cycle_state import CycleState
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> arr = new_snapshot([make_node("n1")], []).arrays()
    >>> NodePortsForms(NodePorts()).filter_batch(CycleState(), PodInfo(make_pod("p")), arr, arr.arange) is None
    True
    """

    plugin_type = NodePorts
    filter_error_free = True  # Filter fails with an Error only without its PreFilter state

    __slots__ = ()

    def filter_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``filter`` over the nodes ``idx`` (see :mod:`kubenotes.scheduler.batch`): nodes without used host ports fit."""
        want = state.get(PRE_FILTER_STATE_KEY)
        if want is None:
            return None
        ok = np.ones(len(idx), dtype=bool)
        infos = arrays.node_infos
        for pos in np.flatnonzero(arrays.num_used_ports[idx]).tolist():
            ok[pos] = fits_ports(want, infos[int(idx[pos])].used_ports)
        return ok
