"""Fast facts of VolumeRestrictions: what the batch path may rely on (it has no batch forms).

kubenotes only (see :mod:`kubenotes.scheduler.fast`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go
"""

from __future__ import annotations

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.plugins.volumerestrictions import VolumeRestrictions

__all__ = ["VolumeRestrictionsForms"]


class VolumeRestrictionsForms(FastForms):
    """What the batch path may rely on about :class:`~kubenotes.scheduler.plugins.volumerestrictions.VolumeRestrictions`.

    Its PreFilter extension's AddPod fails only without its PreFilter state,
    so NodeResourcesFit's rejection with nominated pods added may settle
    ``RunFilterPluginsWithNominatedPods``' first pass (see
    :func:`kubenotes.scheduler.batch.filter_nodes_batch`).

    Parameters
    ----------
    plugin : VolumeRestrictions

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go

    Examples
    --------
    >>> VolumeRestrictionsForms.add_pod_error_free, VolumeRestrictionsForms.filter_batch is None
    (True, True)
    """

    plugin_type = VolumeRestrictions
    add_pod_error_free = True  # AddPod fails only without its PreFilter state

    __slots__ = ()
