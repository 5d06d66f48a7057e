"""Loaders for real cluster data: a path in, lightkube Nodes and Pods (and numpy arrays) out.

Nothing here downloads anything; the data stays where the user put it.

* :mod:`kubenotes.datasets.alibaba`: the Alibaba GPU cluster trace 2023
  ("openb") released with Weng et al., *Beware of Fragmentation*, USENIX ATC '23
  (research/study use with attribution).
"""

from kubenotes.datasets.alibaba import (
    ENV_VAR,
    TraceArrays,
    TraceError,
    TraceFormatError,
    TraceNotFound,
    load_arrays,
    load_nodes,
    load_pods,
    trace_arrays,
)

__all__ = [
    "ENV_VAR",
    "TraceArrays",
    "TraceError",
    "TraceFormatError",
    "TraceNotFound",
    "load_arrays",
    "load_nodes",
    "load_pods",
    "trace_arrays",
]
