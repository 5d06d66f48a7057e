"""DefaultPreemption: the PostFilter plugin that evicts lower-priority pods to make room.

Mirrors ``pkg/scheduler/framework/plugins/defaultpreemption`` (the plugin,
in :mod:`.default_preemption`) and ``pkg/scheduler/framework/preemption``
(the generic evaluator, in :mod:`.preemption`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/preemption/preemption.go

Examples
--------
>>> NAME
'DefaultPreemption'
"""

from kubenotes.scheduler.plugins.defaultpreemption.default_preemption import (
    NAME,
    NO_VICTIMS_REASON,
    NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER,
    NOT_ELIGIBLE_TERMINATING_POD,
    DefaultPreemption,
    DefaultPreemptionArgs,
    new,
)
from kubenotes.scheduler.plugins.defaultpreemption.preemption import (
    PREEMPTION_NOT_HELPFUL_MSG,
    Candidate,
    Evaluator,
    PreemptionTrace,
    Victims,
    pick_one_node_for_preemption,
)

__all__ = [
    "NAME",
    "NO_VICTIMS_REASON",
    "NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER",
    "NOT_ELIGIBLE_TERMINATING_POD",
    "PREEMPTION_NOT_HELPFUL_MSG",
    "DefaultPreemption",
    "DefaultPreemptionArgs",
    "Candidate",
    "Victims",
    "Evaluator",
    "PreemptionTrace",
    "pick_one_node_for_preemption",
    "new",
]
