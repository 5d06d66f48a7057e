"""Fast forms of ImageLocality: its score once per distinct set of images on a node.

kubenotes only (see :mod:`kubenotes.scheduler.fast`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/imagelocality/image_locality.go
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE
from kubenotes.scheduler.plugins.imagelocality import NAME, ImageLocality

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.cycle_state import CycleState
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["ImageLocalityForms"]


def _image_key(node_info: "NodeInfo") -> tuple:
    return tuple(sorted((k, v.size_bytes, v.num_nodes) for k, v in node_info.image_states.items()))


class ImageLocalityForms(FastForms):
    """Batch forms of :class:`~kubenotes.scheduler.plugins.imagelocality.ImageLocality`.

    Parameters
    ----------
    plugin : ImageLocality

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/imagelocality/image_locality.go

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1", images=[{"names": ["nginx:latest"], "sizeBytes": 500 * 1024 * 1024}]),
    ...                      make_node("n2")], [])
    >>> forms = ImageLocalityForms(ImageLocality(SimpleNamespace(snapshot=snap)))
    >>> arr = snap.arrays()
    >>> forms.score_batch(None, PodInfo(make_pod("p", image="nginx")), arr, arr.arange).tolist()
    [23, 0]
    """

    plugin_type = ImageLocality

    __slots__ = ("_score_key",)

    def __init__(self, plugin: ImageLocality):
        super().__init__(plugin)
        self._score_key: tuple[Any, Any] = (None, None)  # (PodInfo, its Score memo key): asked twice a cycle

    def score_batch(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> Any:
        """``score`` over the nodes ``idx`` (see :mod:`kubenotes.scheduler.batch`), once per distinct image set.

        The scores are kept per list of the pod's container images (all
        ``score`` reads of the pod) and number of nodes.
        """
        pl = self.plugin
        return arrays.score_by_class(arrays.classes(NAME, _image_key), idx, lambda ni: pl.score(state, pod, ni),
                                     self._memo_key(pod))

    def score_batch_uniform(self, state: "CycleState", pod: "PodInfo", arrays: Any, idx: Any) -> bool:
        """True when every node scores the same for the pod's images (no node has any of them, say)."""
        pl = self.plugin
        got = arrays.uniform_by_class(arrays.classes(NAME, _image_key), lambda ni: pl.score(state, pod, ni),
                                      self._memo_key(pod))
        return got is not None and MIN_NODE_SCORE <= got <= MAX_NODE_SCORE

    def _memo_key(self, pod: "PodInfo") -> tuple[Any, ...]:
        # The Score reads the pod's container images and the number of nodes.
        num_nodes = self.plugin.handle.snapshot.num_nodes()
        got = self._score_key[1]
        if self._score_key[0] is not pod or got[3] != num_nodes:
            spec = pod.pod.spec
            images = tuple(c.image for c in (spec.initContainers or ())) + tuple(c.image for c in (spec.containers or ()))
            got = (NAME, "Score", images, num_nodes)
            self._score_key = (pod, got)
        return got
