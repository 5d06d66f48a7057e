"""VolumeBinding: the scheduler's PersistentVolumeClaim binding (``pkg/scheduler/framework/plugins/volumebinding``).

The plugin is in :mod:`.volume_binding`, the binder (claim matching,
provisioning checks, assume cache, API writes) in :mod:`.binder`, the
capacity Score in :mod:`.scorer`, as upstream splits its package.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/
"""

from kubenotes.scheduler.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
)
from kubenotes.scheduler.plugins.volumebinding.volume_binding import (
    DEFAULT_BIND_TIMEOUT_SECONDS,
    ERR_REASON_UNBOUND_IMMEDIATE,
    NAME,
    VolumeBinding,
    new,
)

__all__ = ["NAME", "ERR_REASON_BIND_CONFLICT", "ERR_REASON_NODE_CONFLICT", "ERR_REASON_NOT_ENOUGH_SPACE",
           "ERR_REASON_PV_NOT_EXIST", "ERR_REASON_UNBOUND_IMMEDIATE", "DEFAULT_BIND_TIMEOUT_SECONDS",
           "VolumeBinding", "new"]
