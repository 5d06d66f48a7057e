"""NodePreferAvoidPods (legacy): honour the node annotation ``scheduler.alpha.kubernetes.io/preferAvoidPods``.

Mirrors ``pkg/scheduler/framework/plugins/nodepreferavoidpods/node_prefer_avoid_pods.go``
(v1.21). A node annotated with a list of pod controllers (kind + UID) scores 0
for pods controlled by one of them; every other node scores 100. Only
ReplicationController and ReplicaSet controllers are considered. In the
default profiles up to v1.22 it had weight 10000, so an avoided node lost
almost whatever else it scored.

Removed upstream in v1.23 (deprecated in v1beta2; use taints instead).
kubenotes keeps it for teaching; it is never in the default profile.

References
----------
kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/nodepreferavoidpods/node_prefer_avoid_pods.go
kubernetes/kubernetes@v1.21.0 staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go (GetAvoidPodsFromNodeAnnotations)
"""

from __future__ import annotations

from kubenotes.api.meta import get_controller_of
from kubenotes.scheduler.plugins.helper import reject_args

import json
from typing import TYPE_CHECKING, Any

from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Status
from kubenotes.scheduler.plugins.names import NODE_PREFER_AVOID_PODS as NAME

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["NAME", "PREFER_AVOID_PODS_ANNOTATION_KEY", "avoided_controllers", "NodePreferAvoidPods", "new"]

#: ``v1.PreferAvoidPodsAnnotationKey``.
PREFER_AVOID_PODS_ANNOTATION_KEY = "scheduler.alpha.kubernetes.io/preferAvoidPods"


def avoided_controllers(annotations: Any) -> list[tuple[str, str]] | None:
    """``(kind, uid)`` of every ``podController`` in the annotation; ``None`` if it is not valid JSON.

    Examples
    --------
    >>> avoided_controllers({PREFER_AVOID_PODS_ANNOTATION_KEY:
    ...     '{"preferAvoidPods": [{"podSignature": {"podController": {"kind": "ReplicaSet", "name": "a", "uid": "u1"}}}]}'})
    [('ReplicaSet', 'u1')]
    >>> avoided_controllers({}), avoided_controllers({PREFER_AVOID_PODS_ANNOTATION_KEY: "{"})
    ([], None)
    """
    raw = (annotations or {}).get(PREFER_AVOID_PODS_ANNOTATION_KEY)
    if raw is None:
        return []
    try:
        doc = json.loads(raw)
        out = []
        for avoid in doc.get("preferAvoidPods") or ():
            ctrl = (avoid.get("podSignature") or {}).get("podController") or {}
            out.append((ctrl.get("kind", ""), ctrl.get("uid", "")))
        return out
    except (ValueError, AttributeError, TypeError):
        return None


class NodePreferAvoidPods:
    """Score 0 on nodes that ask to avoid the pod's ReplicationController/ReplicaSet, else 100.

    See Also
    --------
    kubenotes.scheduler.plugins.tainttoleration : what to use instead (PreferNoSchedule taints).

    Notes
    -----
    No NormalizeScore; a malformed annotation counts as "not avoided", as upstream.

    References
    ----------
    kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/nodepreferavoidpods/node_prefer_avoid_pods.go

    Examples
    --------
    >>> NodePreferAvoidPods(None).name()
    'NodePreferAvoidPods'
    """

    def __init__(self, handle: Any):
        self.handle = handle

    def name(self) -> str:
        """``NodePreferAvoidPods``."""
        return NAME

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """0 when the node's annotation lists the pod's controller, else ``MAX_NODE_SCORE``."""
        node = node_info.node
        if node is None:
            return 0, Status.error("node not found")
        ref = get_controller_of(pod.pod)
        if ref is None or ref.kind not in ("ReplicationController", "ReplicaSet"):
            return MAX_NODE_SCORE, Status()
        avoids = avoided_controllers(node.metadata.annotations)
        if avoids is None:
            return MAX_NODE_SCORE, Status()
        for kind, uid in avoids:
            if kind == ref.kind and uid == ref.uid:
                return 0, Status()
        return MAX_NODE_SCORE, Status()

    def score_extensions(self) -> None:
        return None


def new(args: Any, handle: Any) -> NodePreferAvoidPods:
    """Build NodePreferAvoidPods (it takes no arguments).

    Raises
    ------
    ConfigError
        When ``args`` holds a field.

    Examples
    --------
    >>> new(None, None).name()
    'NodePreferAvoidPods'
    """
    reject_args(NAME, args)
    return NodePreferAvoidPods(handle)
