"""The base of every plugin's fast forms, and the lookup that binds them to a plugin.

kubenotes only (see :mod:`kubenotes.scheduler.fast`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go (the extension points the fast forms stand for)
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["FastForms"]


class FastForms:
    """What the batch path may ask of one plugin beyond its extension points; by default nothing.

    A subclass per in-tree plugin (``kubenotes.scheduler.fast.<package>``)
    names the plugin class it serves and overrides what that plugin offers.
    Every form reads the plugin through :attr:`plugin`.

    Parameters
    ----------
    plugin : object
        The plugin instance (of :attr:`plugin_type`).

    Attributes
    ----------
    plugin_type : type
        The plugin class these forms serve (a plugin of another class under
        the same name gets none).
    filter_ignores_node_pods : bool
        Its Filter reads the node object and the pod only, never the node's pods.
    filter_reads_requests_only : bool
        Its Filter reads only the node's allocatable, requested and number of
        pods (a :class:`~kubenotes.scheduler.framework.node_info.RequestsLedger`
        may stand in for the node), and ``filter_batch`` takes the nominated
        pods' totals as a fifth argument (NodeResourcesFit).
    filter_error_free : bool
        Its Filter returns an Error only without its PreFilter state.
    add_pod_error_free : bool
        Its PreFilter extension's AddPod fails only without its PreFilter state.
    filter_reads_pod_spec : tuple of str or None
        The ``spec`` fields of the pod a node-object Filter reads (None: undeclared).
    filter_batch, filter_status_key_batch, score_batch, score_batch_uniform, normalize_score_batch : callable or None
        The batch forms (see :mod:`kubenotes.scheduler.batch`); None when the plugin has none.
    filter_state_signature, filter_node_signature : callable or None
        What preemption's dry run may key remembered results on (InterPodAffinity).

    Notes
    -----
    The per-node path never reads these: the traced scheduler and every
    trace stay the plugins' own.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/interface.go

    Examples
    --------
    >>> forms = FastForms(object())
    >>> forms.filter_batch is None, forms.filter_ignores_node_pods
    (True, False)
    """

    plugin_type: ClassVar[type] = object
    filter_ignores_node_pods: ClassVar[bool] = False
    filter_reads_requests_only: ClassVar[bool] = False
    filter_error_free: ClassVar[bool] = False
    add_pod_error_free: ClassVar[bool] = False
    filter_reads_pod_spec: ClassVar[tuple[str, ...] | None] = None
    filter_batch: Any = None
    filter_status_key_batch: Any = None
    score_batch: Any = None
    score_batch_uniform: Any = None
    normalize_score_batch: Any = None
    filter_state_signature: Any = None
    filter_node_signature: Any = None

    __slots__ = ("plugin",)

    def __init__(self, plugin: Any):
        self.plugin = plugin
