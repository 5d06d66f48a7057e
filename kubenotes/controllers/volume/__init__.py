"""kube-controller-manager's volume controllers, after upstream's ``pkg/controller/volume``.

* :mod:`~kubenotes.controllers.volume.persistentvolume`: the PersistentVolume
  controller (``persistentvolume-binder-controller``): binding, provisioning
  hand-off, phases, reclaim policies; its volume index in
  :mod:`~kubenotes.controllers.volume.index`.
* :mod:`~kubenotes.controllers.volume.protection`: the pvc-protection and
  pv-protection controllers and their finalizers.
* :mod:`~kubenotes.controllers.volume.provisioner`: a model of an external
  provisioner (sig-storage-lib-external-provisioner with a hostPath-like
  driver), which is no part of kube-controller-manager.
* :mod:`~kubenotes.controllers.volume.attachdetach`: the attach/detach
  controller (VolumeAttachments for CSI volumes, Multi-Attach, force detach).
* :mod:`~kubenotes.controllers.volume.external_attacher`: kubernetes-csi's
  external-attacher sidecar (ControllerPublish/UnpublishVolume), no part of
  kube-controller-manager either; likewise the external-provisioner
  (:mod:`~kubenotes.controllers.volume.external_provisioner`), its capacity
  controller (:mod:`~kubenotes.controllers.volume.capacity`: CSIStorageCapacity
  objects) and the external-resizer (:mod:`~kubenotes.controllers.volume.external_resizer`).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/
"""
