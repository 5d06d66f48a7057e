"""EqualPriority (legacy): every feasible node gets the same score, 1.

Models the pre-framework priority ``EqualPriorityMap`` of
``pkg/scheduler/core/generic_scheduler.go`` (v1.17 and earlier), which gave
each node ``HostPriority{Score: 1}``; the old scheduler also used it when no
priority was configured. From v1.18 to v1.22 the legacy Policy translation
skipped an ``EqualPriority`` entry ("Skip registering priority") and no plugin
replaced it; the Policy API itself was removed in v1.23. kubenotes ships it as
a score plugin only to show that a constant score changes nothing: ties are
then broken by the other plugins (or at random).

References
----------
kubernetes/kubernetes@v1.17.0 pkg/scheduler/core/generic_scheduler.go (EqualPriorityMap)
kubernetes/kubernetes@v1.21.0 pkg/scheduler/factory.go (EqualPriority skipped)
"""

from __future__ import annotations

from kubenotes.scheduler.plugins.helper import reject_args

from typing import TYPE_CHECKING, Any

from kubenotes.scheduler.framework.interface import Status
from kubenotes.scheduler.plugins.names import EQUAL_PRIORITY as NAME

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["NAME", "EQUAL_SCORE", "EqualPriority", "new"]

#: The score every node receives.
EQUAL_SCORE = 1


class EqualPriority:
    """Score every node ``EQUAL_SCORE`` (1); no NormalizeScore.

    See Also
    --------
    kubenotes.scheduler.legacy.legacy_table : where EqualPriority sits among the legacy priorities.

    Notes
    -----
    Upstream's priority failed with "node not found" for a NodeInfo without a node;
    so does this plugin (``Error`` status).

    References
    ----------
    kubernetes/kubernetes@v1.17.0 pkg/scheduler/core/generic_scheduler.go

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import NodeInfo
    >>> from kubenotes.scheduler.testing import make_node
    >>> EqualPriority().score(None, None, NodeInfo(make_node("n1")))
    (1, Status(code=<Code.SUCCESS: 0>, reasons=[], plugin=''))
    """

    def name(self) -> str:
        """``EqualPriority``."""
        return NAME

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """``EQUAL_SCORE`` for any node."""
        if node_info.node is None:
            return 0, Status.error("node not found")
        return EQUAL_SCORE, Status()

    def score_extensions(self) -> None:
        return None


def new(args: Any, handle: Any) -> EqualPriority:
    """Build EqualPriority (it takes no arguments).

    Raises
    ------
    ConfigError
        When ``args`` holds a field.

    Examples
    --------
    >>> new(None, None).name()
    'EqualPriority'
    """
    reject_args(NAME, args)
    return EqualPriority()
