"""The Container Runtime Interface and the runtimes behind it.

Mirrors ``k8s.io/cri-api`` (``runtime.v1``: RuntimeService and ImageService)
and the runtimes a v1.34 node runs behind it: containerd with its CRI plugin
and ``containerd-shim-runc-v2``, or CRI-O with ``conmon``, both over runc.

* :mod:`kubenotes.cri.api`: enum names, gRPC codes, :class:`CRIError`, message strings;
* :mod:`kubenotes.cri.runtime`: :class:`ContainerRuntime`, the RPCs as SimPy generator methods;
* :mod:`kubenotes.cri.images`: the node's image store, shared layer cache, pull times;
* :mod:`kubenotes.cri.oci`: the OCI bundle ``config.json`` runc receives, from the CRI configs;
* :mod:`kubenotes.cri.stack`: the runtime stack (kubelet -> runtime -> shim -> runc -> process) as a graph.

The runtimes only read what the kubelet decided and sent in the CRI messages
(cgroup parent, resources, ``oom_score_adj``, DNS config); the kubelet's side
is :mod:`kubenotes.kubelet.kuberuntime`. Nothing here imports the kubelet.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto
https://kubernetes.io/docs/concepts/architecture/cri/
"""

from kubenotes.cri.api import (
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_RUNNING,
    CONTAINER_UNKNOWN,
    SANDBOX_NOTREADY,
    SANDBOX_READY,
    CRIError,
)
from kubenotes.cri.images import PAUSE_IMAGE, Image, ImageCatalogue, ImageStore, Layer, default_catalogue
from kubenotes.cri.oci import oci_config_from_cri
from kubenotes.cri.runtime import ContainerRuntime
from kubenotes.cri.stack import runtime_stack_graph_from_cri

__all__ = [
    "CRIError",
    "ContainerRuntime",
    "ImageStore",
    "ImageCatalogue",
    "Image",
    "Layer",
    "default_catalogue",
    "PAUSE_IMAGE",
    "oci_config_from_cri",
    "runtime_stack_graph_from_cri",
    "SANDBOX_READY",
    "SANDBOX_NOTREADY",
    "CONTAINER_CREATED",
    "CONTAINER_RUNNING",
    "CONTAINER_EXITED",
    "CONTAINER_UNKNOWN",
]
