"""client-go for the model: informers (List-Watch, DeltaFIFO, caches), work queues, event recording.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/workqueue
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/record
"""

from kubenotes.client.informer import (
    DeletedFinalStateUnknown,
    DeltaFIFO,
    Indexer,
    Lister,
    Reflector,
    SharedIndexInformer,
    SharedInformerFactory,
)
from kubenotes.client.record import EventRecorder
from kubenotes.client.workqueue import RateLimitingQueue, default_controller_rate_limiter

__all__ = ["DeletedFinalStateUnknown", "DeltaFIFO", "Indexer", "Lister", "Reflector", "SharedIndexInformer",
           "SharedInformerFactory", "EventRecorder", "RateLimitingQueue", "default_controller_rate_limiter"]
