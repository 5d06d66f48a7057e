"""Plugin ``NAME`` -> its fast forms and whole-snapshot counts, and the lookup the batch path and preemption use.

kubenotes only (see :mod:`kubenotes.scheduler.fast`). Every in-tree plugin
with fast forms is imported here statically, as
:mod:`kubenotes.scheduler.plugins.registry` imports the plugins.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/registry.go (the registry this one stands beside)
"""

from __future__ import annotations

from typing import Any

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.fast.imagelocality import ImageLocalityForms
from kubenotes.scheduler.fast.interpodaffinity import InterPodAffinityCounts, InterPodAffinityForms
from kubenotes.scheduler.fast.nodeaffinity import NodeAffinityForms
from kubenotes.scheduler.fast.nodename import NodeNameForms
from kubenotes.scheduler.fast.nodeports import NodePortsForms
from kubenotes.scheduler.fast.noderesources import BalancedAllocationForms, FitForms
from kubenotes.scheduler.fast.nodeunschedulable import NodeUnschedulableForms
from kubenotes.scheduler.fast.podtopologyspread import PodTopologySpreadCounts, PodTopologySpreadForms
from kubenotes.scheduler.fast.serviceaffinity import ServiceAffinityForms
from kubenotes.scheduler.fast.tainttoleration import TaintTolerationForms
from kubenotes.scheduler.fast.volumerestrictions import VolumeRestrictionsForms
from kubenotes.scheduler.plugins import names

__all__ = ["FAST_FORMS", "SNAPSHOT_COUNTS", "fast_forms"]

#: Plugin ``NAME`` -> the :class:`FastForms` subclass for that in-tree plugin.
FAST_FORMS: dict[str, type[FastForms]] = {
    names.IMAGE_LOCALITY: ImageLocalityForms,
    names.INTER_POD_AFFINITY: InterPodAffinityForms,
    names.NODE_AFFINITY: NodeAffinityForms,
    names.NODE_NAME: NodeNameForms,
    names.NODE_PORTS: NodePortsForms,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: BalancedAllocationForms,
    names.NODE_RESOURCES_FIT: FitForms,
    names.NODE_UNSCHEDULABLE: NodeUnschedulableForms,
    names.POD_TOPOLOGY_SPREAD: PodTopologySpreadForms,
    names.SERVICE_AFFINITY: ServiceAffinityForms,
    names.TAINT_TOLERATION: TaintTolerationForms,
    names.VOLUME_RESTRICTIONS: VolumeRestrictionsForms,
}

#: Plugin ``NAME`` -> what its PreFilter and PreScore count over a snapshot's arrays instead of walking every pod
#: (handed to :class:`~kubenotes.scheduler.arrays.SnapshotArrays` by the snapshot; see ``counts_of``).
SNAPSHOT_COUNTS: dict[str, Any] = {
    names.INTER_POD_AFFINITY: InterPodAffinityCounts,
    names.POD_TOPOLOGY_SPREAD: PodTopologySpreadCounts,
}


def fast_forms(plugin: Any, fw: Any = None) -> Any:
    """The fast forms of ``plugin``: its :class:`FastForms` when in-tree, else the plugin itself.

    A plugin of the class registered under its name gets that class's forms,
    bound to it. Any other plugin (out-of-tree, or an in-tree plugin without
    fast forms) is its own answer: the batch path reads ``filter_batch``,
    ``filter_ignores_node_pods``... off it, finds them absent and keeps the
    per-node path, as for every plugin that declares none.

    Parameters
    ----------
    plugin : object
        A plugin (``name()`` gives its NAME).
    fw : Framework, optional
        Where the bound forms are kept, one per plugin, so the memo keys they
        remember last from one call to the next; without it the forms are
        made afresh.

    Returns
    -------
    FastForms or object
        Read only through ``getattr(forms, name, default)``.

    Examples
    --------
    >>> from kubenotes.scheduler.plugins.tainttoleration import TaintToleration
    >>> type(fast_forms(TaintToleration())).__name__
    'TaintTolerationForms'
    >>> class MyFilter:
    ...     def name(self):
    ...         return "TaintToleration"
    >>> mine = MyFilter()
    >>> fast_forms(mine) is mine
    True
    """
    kept = getattr(fw, "_fast_forms", None) if fw is not None else None
    if kept is not None:
        got = kept.get(id(plugin))
        if got is not None and got[0] is plugin:
            return got[1]
    cls = FAST_FORMS.get(plugin.name())
    forms = cls(plugin) if cls is not None and isinstance(plugin, cls.plugin_type) else plugin
    if fw is not None:
        if kept is None:
            kept = {}
            try:
                fw._fast_forms = kept
            except AttributeError:  # a framework stand-in without attributes: nothing kept
                return forms
        kept[id(plugin)] = (plugin, forms)
    return forms
