"""The virtual clock's anchor: which wall-clock instant is virtual second 0.

Every timestamp the model writes (``creationTimestamp``, conditions, token
``iat``/``exp``) is this epoch plus the SimPy clock's seconds. A cluster may
choose another one (``Cluster(epoch="now")`` for ``kubenotes serve``).
"""

from __future__ import annotations

import datetime as _dt

__all__ = ["DEFAULT_EPOCH"]

#: Wall-clock time of virtual second 0 (the v1.34.0 release day); timestamps in objects count from it.
DEFAULT_EPOCH = _dt.datetime(2025, 8, 27, tzinfo=_dt.timezone.utc)
