"""kube-apiserver's storage layer: one interface (``storage.Interface``), an embedded backend and etcd.

See :mod:`kubenotes.apiserver.storage.interfaces` for the interface,
:mod:`~kubenotes.apiserver.storage.memory` and :mod:`~kubenotes.apiserver.storage.etcd3`
for the backends, :mod:`~kubenotes.apiserver.storage.compact` for the compactor and
:mod:`~kubenotes.apiserver.storage.errors` for how storage errors become API errors.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage
"""

from kubenotes.apiserver.storage.interfaces import Event, Interface, Preconditions, StorageError, StorageWatch
from kubenotes.apiserver.storage.memory import MemoryStorage

__all__ = ["Event", "Interface", "Preconditions", "StorageError", "StorageWatch", "MemoryStorage"]
