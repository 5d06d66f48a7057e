"""ImageLocality: prefer nodes that already hold the pod's container images.

Mirrors ``pkg/scheduler/framework/plugins/imagelocality/image_locality.go``.
Each image present on the node contributes its size scaled by how widely it
has spread (``nodes holding it / all nodes``, so an image everywhere does not
pull pods to one node); the sum is clamped between 23 MiB and
1000 MiB × number of containers and mapped linearly onto 0-100.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/imagelocality/image_locality.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, Status
from kubenotes.scheduler.plugins.helper import go_div
from kubenotes.scheduler.plugins.names import IMAGE_LOCALITY

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import ImageStateSummary, NodeInfo, PodInfo

__all__ = [
    "NAME",
    "MB",
    "MIN_THRESHOLD_BYTES",
    "MAX_CONTAINER_THRESHOLD_BYTES",
    "normalized_image_name",
    "scaled_image_score",
    "sum_image_scores",
    "calculate_priority",
    "ImageLocality",
    "new",
]

NAME = IMAGE_LOCALITY
#: One mebibyte (upstream's ``mb``).
MB = 1024 * 1024
#: Below this (23 MiB) an image's contribution counts as nothing.
MIN_THRESHOLD_BYTES = 23 * MB
#: Per container, contributions above this (1000 MiB) all score the maximum.
MAX_CONTAINER_THRESHOLD_BYTES = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Add ``:latest`` when the image reference has no tag (``normalizedImageName``).

    Examples
    --------
    >>> normalized_image_name("gcr.io:5000/root"), normalized_image_name("root:tag")
    ('gcr.io:5000/root:latest', 'root:tag')
    """
    if name.rfind(":") <= name.rfind("/"):
        name = name + ":latest"
    return name


def scaled_image_score(image_state: "ImageStateSummary", total_num_nodes: int) -> int:
    """Image size times its spread ``num_nodes / total_num_nodes`` (``scaledImageScore``), in bytes.

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import ImageStateSummary
    >>> scaled_image_score(ImageStateSummary(250 * MB, 1), 2) == 125 * MB
    True
    """
    spread = float(image_state.num_nodes) / float(total_num_nodes)
    return int(float(image_state.size_bytes) * spread)


def sum_image_scores(node_info: "NodeInfo", pod: Any, total_num_nodes: int) -> int:
    """Sum of :func:`scaled_image_score` over the pod's init and regular container images on the node (``sumImageScores``)."""
    states = node_info.image_states
    total = 0
    spec = pod.spec
    for c in list(spec.initContainers or ()) + list(spec.containers or ()):
        st = states.get(normalized_image_name(c.image or ""))
        if st is not None:
            total += scaled_image_score(st, total_num_nodes)
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """Map the clamped image sum onto 0-100 (``calculatePriority``).

    Parameters
    ----------
    sum_scores : int
        From :func:`sum_image_scores`, bytes.
    num_containers : int
        Init plus regular containers; the upper threshold is 1000 MiB each.

    Returns
    -------
    int

    Examples
    --------
    >>> calculate_priority(125 * MB, 2)   # 100 * (125 - 23) // (2000 - 23)
    5
    """
    max_threshold = MAX_CONTAINER_THRESHOLD_BYTES * num_containers
    if sum_scores < MIN_THRESHOLD_BYTES:
        sum_scores = MIN_THRESHOLD_BYTES
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD_BYTES), max_threshold - MIN_THRESHOLD_BYTES)


class ImageLocality:
    """The ImageLocality Score plugin.

    Parameters
    ----------
    handle : Handle
        Its ``snapshot.num_nodes()`` gives the cluster size for the spread factor.

    See Also
    --------
    kubenotes.scheduler.snapshot.new_snapshot : fills ``NodeInfo.image_states`` from ``status.images``.

    Notes
    -----
    Image names are matched literally after adding ``:latest``, as upstream
    (``docker.io/library/x`` and ``x`` are different names).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/imagelocality/image_locality.go

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1", images=[{"names": ["nginx:latest"], "sizeBytes": 500 * MB}]),
    ...                      make_node("n2")], [])
    >>> pl = ImageLocality(SimpleNamespace(snapshot=snap))
    >>> pod = PodInfo(make_pod("p", image="nginx"))
    >>> [pl.score(None, pod, n)[0] for n in snap.list()]   # 100 * (250 - 23) // (1000 - 23)
    [23, 0]
    """

    __slots__ = ("handle",)

    def __init__(self, handle: Any):
        self.handle = handle

    def name(self) -> str:
        """``"ImageLocality"``."""
        return NAME

    def score(self, state: "CycleState", pod: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status]:
        """Score in [0, 100] from the images already on ``node_info``."""
        total_num_nodes = self.handle.snapshot.num_nodes()
        spec = pod.pod.spec
        num_containers = len(spec.initContainers or ()) + len(spec.containers or ())
        return calculate_priority(sum_image_scores(node_info, pod.pod, total_num_nodes), num_containers), Status()

    def score_extensions(self) -> None:
        """None: scores are already on 0-100."""
        return None


def new(args: Mapping[str, Any] | None = None, handle: Any = None) -> ImageLocality:
    """Factory (``imagelocality.New``); the plugin takes no args."""
    return ImageLocality(handle)
