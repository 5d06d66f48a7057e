"""Fast facts of ServiceAffinity: what the batch path may rely on (it has no batch forms).

kubenotes only (see :mod:`kubenotes.scheduler.fast`).

References
----------
kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/serviceaffinity/service_affinity.go
"""

from __future__ import annotations

from kubenotes.scheduler.fast.forms import FastForms
from kubenotes.scheduler.plugins.serviceaffinity import ServiceAffinity

__all__ = ["ServiceAffinityForms"]


class ServiceAffinityForms(FastForms):
    """What the batch path may rely on about :class:`~kubenotes.scheduler.plugins.serviceaffinity.ServiceAffinity`.

    Its PreFilter extension's AddPod fails only without its PreFilter state,
    so NodeResourcesFit's rejection with nominated pods added may settle
    ``RunFilterPluginsWithNominatedPods``' first pass (see
    :func:`kubenotes.scheduler.batch.filter_nodes_batch`).

    Parameters
    ----------
    plugin : ServiceAffinity

    References
    ----------
    kubernetes/kubernetes@v1.21.0 pkg/scheduler/framework/plugins/serviceaffinity/service_affinity.go

    Examples
    --------
    >>> ServiceAffinityForms.add_pod_error_free, ServiceAffinityForms.filter_batch is None
    (True, True)
    """

    plugin_type = ServiceAffinity
    add_pod_error_free = True  # AddPod fails only without its PreFilter state

    __slots__ = ()
