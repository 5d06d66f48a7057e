"""Per-cycle scratch space shared by a profile's plugins (``framework.CycleState``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/cycle_state.go
"""

from __future__ import annotations

import copy
from typing import Any

from kubenotes.errors import NotFound

__all__ = ["CycleState"]


class CycleState:
    """Key/value store for one scheduling cycle.

    Keys are plugin-prefixed strings (``"PreFilterNodeResourcesFit"``), values
    any object with an optional ``clone()`` method (used when preemption
    copies the state to simulate removing victims).

    Attributes
    ----------
    skip_filter_plugins : set[str]
        Plugins whose PreFilter returned Skip.
    skip_score_plugins : set[str]
        Plugins whose PreScore returned Skip.

    Examples
    --------
    >>> s = CycleState(); s.write("PreFilterX", {"n": 1}); s.read("PreFilterX")
    {'n': 1}
    """

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins", "record_plugin_metrics")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        self.record_plugin_metrics = False

    def read(self, key: str) -> Any:
        """Return the value under ``key``.

        Raises
        ------
        NotFound
            When nothing was written under ``key`` (upstream: ``ErrNotFound``).
        """
        try:
            return self._data[key]
        except KeyError:
            raise NotFound(f"{key!r} not found in CycleState") from None

    def get(self, key: str, default: Any = None) -> Any:
        """Value under ``key`` or ``default``."""
        return self._data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``."""
        self._data[key] = value

    def delete(self, key: str) -> None:
        """Remove ``key`` if present."""
        self._data.pop(key, None)

    def clone(self) -> "CycleState":
        """Copy: values with ``clone()`` are cloned, others deep-copied."""
        c = CycleState()
        for k, v in self._data.items():
            c._data[k] = v.clone() if hasattr(v, "clone") else copy.deepcopy(v)
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        return c
