"""The Container Storage Interface: a driver model after csi-driver-host-path, and node registration.

Mirrors the CSI specification (container-storage-interface/spec v1.11) and the
kubernetes-csi pieces that are not sidecars of the control plane:

* :mod:`kubenotes.csi.spec`: gRPC code names, enum names, :class:`CSIError`, the call trace;
* :mod:`kubenotes.csi.hostpath`: :class:`HostPathDriver` (Identity, Controller) and its per-node
  :class:`HostPathNode` (Node service), after kubernetes-csi/csi-driver-host-path;
* :mod:`kubenotes.csi.registrar`: node-driver-registrar and the kubelet's CSINode entry.

The control-plane sidecar that calls the Controller service, the
external-attacher, is a controller (:mod:`kubenotes.controllers.volume.external_attacher`),
handed a driver by whoever wires the cluster (:mod:`kubenotes.sim.csi`); nothing
here imports the controllers or the kubelet. The kubelet's side (its CSI volume plugin:
``WaitForAttach``, ``NodeStageVolume``/``NodePublishVolume`` and back) is
:mod:`kubenotes.kubelet.csi`; the CSI calls of a run are ``simulate -o csi``
(:func:`kubenotes.sim.csi.csi_calls`).

References
----------
container-storage-interface/spec@v1.11.0 spec.md, csi.proto
kubernetes-csi/csi-driver-host-path@v1.17.0 pkg/hostpath
kubernetes-csi/node-driver-registrar@v2.14
"""

from kubenotes.csi.hostpath import DRIVER_NAME, HostPathDriver, HostPathNode
from kubenotes.csi.registrar import register_driver, unregister_driver
from kubenotes.csi.spec import CSIError

__all__ = ["CSIError", "HostPathDriver", "HostPathNode", "DRIVER_NAME", "register_driver", "unregister_driver"]
