"""PodTopologySpread: spread pods across topology domains (zones, hosts, racks).

Mirrors the upstream package ``pkg/scheduler/framework/plugins/podtopologyspread``:
``common`` (constraints and default selectors), ``filtering`` (PreFilter/Filter,
``DoNotSchedule``), ``scoring`` (PreScore/Score/NormalizeScore, ``ScheduleAnyway``)
and ``plugin`` (the plugin class and its factory).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/podtopologyspread
https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/

Examples
--------
>>> NAME
'PodTopologySpread'
"""

from kubenotes.scheduler.plugins.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
)
from kubenotes.scheduler.plugins.podtopologyspread.plugin import NAME, PodTopologySpread, new

__all__ = [
    "NAME",
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "PodTopologySpread",
    "new",
]
