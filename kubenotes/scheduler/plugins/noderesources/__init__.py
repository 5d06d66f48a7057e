"""NodeResourcesFit and NodeResourcesBalancedAllocation, the resource-aware plugins.

Mirrors ``pkg/scheduler/framework/plugins/noderesources``: :mod:`.fit`
(Filter on requests vs allocatable, scoring strategies), :mod:`.balanced_allocation`,
the shared :mod:`.resource_allocation` scorer and the strategies
:mod:`.least_allocated`, :mod:`.most_allocated`, :mod:`.requested_to_capacity_ratio`.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/noderesources

Examples
--------
>>> FIT_NAME, BALANCED_ALLOCATION_NAME
('NodeResourcesFit', 'NodeResourcesBalancedAllocation')
"""

from __future__ import annotations

from kubenotes.scheduler.plugins.noderesources.balanced_allocation import NAME as BALANCED_ALLOCATION_NAME
from kubenotes.scheduler.plugins.noderesources.balanced_allocation import BalancedAllocation
from kubenotes.scheduler.plugins.noderesources.balanced_allocation import new as new_balanced_allocation
from kubenotes.scheduler.plugins.noderesources.fit import NAME as FIT_NAME
from kubenotes.scheduler.plugins.noderesources.fit import Fit, InsufficientResource, fits
from kubenotes.scheduler.plugins.noderesources.fit import new as new_fit

__all__ = [
    "FIT_NAME",
    "BALANCED_ALLOCATION_NAME",
    "Fit",
    "BalancedAllocation",
    "InsufficientResource",
    "fits",
    "new_fit",
    "new_balanced_allocation",
]
