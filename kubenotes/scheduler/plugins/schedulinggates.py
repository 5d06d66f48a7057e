"""SchedulingGates: keep pods with ``spec.schedulingGates`` out of the active queue.

Mirrors ``pkg/scheduler/framework/plugins/schedulinggates`` (KEP-3521, pod
scheduling readiness). The PreEnqueue check runs when a pod is added to the
queue; a gated pod waits in the unschedulable pool until its gates are removed.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go
KEP-3521 (pod scheduling readiness)

Examples
--------
>>> from kubenotes.scheduler.testing import make_pod
>>> from kubenotes.scheduler.framework.node_info import PodInfo
>>> pod = PodInfo(make_pod("p", schedulingGates=[{"name": "foo"}, {"name": "bar"}]))
>>> s = new(None, None).pre_enqueue(pod)
>>> str(s.code), s.message()
('UnschedulableAndUnresolvable', 'waiting for scheduling gates: [foo bar]')
"""

from __future__ import annotations

from typing import Any

from kubenotes.scheduler.framework.interface import Code, Status
from kubenotes.scheduler.plugins.names import SCHEDULING_GATES

__all__ = ["NAME", "ERR_REASON_WAITING_FOR_GATES", "SchedulingGates", "new"]

NAME = SCHEDULING_GATES
#: Format of the PreEnqueue message; the gate names are printed like Go's ``%v`` of a string slice.
ERR_REASON_WAITING_FOR_GATES = "waiting for scheduling gates: [{gates}]"


class SchedulingGates:
    """PreEnqueue plugin rejecting pods that still carry scheduling gates.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go
    """

    def name(self) -> str:
        """``"SchedulingGates"``."""
        return NAME

    def pre_enqueue(self, pod: Any) -> Status:
        """Success when ``spec.schedulingGates`` is empty.

        Parameters
        ----------
        pod : PodInfo

        Returns
        -------
        Status
            Success, or UnschedulableAndUnresolvable ``waiting for scheduling gates: [a b]``.
        """
        gates = pod.pod.spec.schedulingGates or []
        if not gates:
            return Status()
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                      [ERR_REASON_WAITING_FOR_GATES.format(gates=" ".join(g.name for g in gates))])


def new(args: dict | None, handle: Any) -> SchedulingGates:
    """Build SchedulingGates; it takes no args."""
    return SchedulingGates()
