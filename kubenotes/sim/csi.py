"""A CSI driver installed in a simulated cluster: the driver, its sidecars, and the attach/detach controller.

A cluster whose objects include a ``CSIDriver`` named after a driver the model
has (:data:`MODELLED_DRIVERS`: ``hostpath.csi.k8s.io``) gets what installing
that driver's manifests and running kube-controller-manager would give it:

* the driver (:class:`kubenotes.csi.hostpath.HostPathDriver`) on the
  cluster's clock, its calls traced in ``cluster.csi[<driver>].trace``;
* node-driver-registrar on every Node: the Node's ``CSINode`` gets the
  driver's entry (:func:`kubenotes.csi.registrar.register_driver`);
* the volumes of the PersistentVolumes already naming the driver
  (``spec.csi.driver``), as an administrator pre-provisions them for static
  PVs (:meth:`~kubenotes.csi.hostpath.HostPathDriver.add_volume`);
* the topology labels of each Node (the keys of the driver's
  ``NodeGetInfo.accessible_topology``), as the kubelet's CSI plugin
  registration adds them (``nodeinfomanager``), so that the node affinity of
  provisioned volumes matches;
* the external-attacher sidecar (:class:`~kubenotes.controllers.volume.external_attacher.ExternalAttacher`)
  as controller ``csi-attacher/<driver>``, the external-provisioner
  (:class:`~kubenotes.controllers.volume.external_provisioner.ExternalProvisioner`) as
  ``csi-provisioner/<driver>`` and the external-resizer
  (:class:`~kubenotes.controllers.volume.external_resizer.ExternalResizer`) as ``csi-resizer/<driver>``;
* when the CSIDriver has ``storageCapacity: true``, the external-provisioner's capacity controller
  (:class:`~kubenotes.controllers.volume.capacity.CapacityController`, ``--enable-capacity``) as
  ``csi-capacity/<driver>``: CSIStorageCapacity objects the scheduler's VolumeBinding reads; the annotation
  ``kubenotes.io/hostpath-capacity`` on the CSIDriver (a quantity) gives the driver its ``--capacity`` per node;
* kube-controller-manager's attach/detach controller
  (:class:`~kubenotes.controllers.volume.attachdetach.AttachDetachController`) as
  ``attachdetach-controller``, with its bootstrap ClusterRole
  ``system:controller:attachdetach-controller`` and binding.

A cluster with no such CSIDriver is left as it was: nothing is created and
no controller is added.

Notes
-----
Upstream runs the attach/detach controller in every kube-controller-manager;
here it starts with a CSI driver only, so that clusters without one (every
scenario before CSI) keep their objects and outputs. The driver's pods
(controller Deployment/StatefulSet, node DaemonSet) are not created as Pods.
Drivers are installed when the cluster is built, not when a CSIDriver is
applied later.

References
----------
kubernetes-csi/csi-driver-host-path@v1.17.0 deploy/kubernetes-1.30/hostpath/csi-hostpath-plugin.yaml
kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/app/core.go (startAttachDetachController)
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.quantity import value as quantity_value
from kubenotes.api.storagehelpers import storage_capacity_bytes
from kubenotes.apiserver.bootstrap_policy import controller_role_bindings, controller_roles
from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.volume.attachdetach import CONTROLLER_POLICY, AttachDetachController
from kubenotes.controllers.volume.capacity import CapacityController
from kubenotes.controllers.volume.external_attacher import ExternalAttacher
from kubenotes.controllers.volume.external_provisioner import ExternalProvisioner
from kubenotes.controllers.volume.external_resizer import ExternalResizer
from kubenotes.csi.hostpath import DRIVER_NAME, HostPathDriver
from kubenotes.csi.registrar import register_driver

__all__ = ["install_csi_drivers", "csi_calls", "MODELLED_DRIVERS", "HOSTPATH_CAPACITY_ANNOTATION"]

#: CSIDriver names the model has a driver for.
MODELLED_DRIVERS = (DRIVER_NAME,)
#: A model knob on the CSIDriver: the hostpath driver's ``--capacity`` (room per node, a quantity); absent: unlimited.
HOSTPATH_CAPACITY_ANNOTATION = "kubenotes.io/hostpath-capacity"


def _install_controller_rbac(server: Any) -> None:
    """The attach/detach controller's bootstrap ClusterRole and binding (absent from clusters without CSI)."""
    admin = server.client("kube-apiserver", UserInfo("kubernetes-admin", groups=("system:masters",)))
    for resource, objs in (("clusterroles", controller_roles([CONTROLLER_POLICY])),
                           ("clusterrolebindings", controller_role_bindings([CONTROLLER_POLICY]))):
        for obj in objs:
            if server.get(resource, None, obj["metadata"]["name"]) is None:
                admin.create(resource, deep_copy(obj))


def _label_topology(kubelet: Any, node_name: str, node_info: dict) -> None:
    """The Node gets the driver's topology segments as labels (kubelet ``nodeinfomanager``), if it lacks them."""
    segments = (node_info.get("accessible_topology") or {}).get("segments") or {}
    node = kubelet.server.get("nodes", None, node_name)
    labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    if node is None or all(labels.get(k) == v for k, v in segments.items()):
        return
    node = deep_copy(node)
    node["metadata"].setdefault("labels", {}).update(segments)
    kubelet.update("nodes", node)


def install_csi_drivers(cluster: Any, ctx: Any) -> dict[str, HostPathDriver]:
    """Install every modelled CSI driver the cluster has a CSIDriver for (see the module docstring).

    Parameters
    ----------
    cluster : Cluster
        Being built: its objects are loaded, its controllers made but not started.
    ctx : ControllerContext
        What its controllers were given.

    Returns
    -------
    dict of str to HostPathDriver
        Driver name -> the driver (empty when the cluster has no modelled CSIDriver).

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    >>> drv = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "hostpath.csi.k8s.io"},
    ...        "spec": {"attachRequired": True}}
    >>> c = Cluster([node, drv], controllers=[], kubelet="stand-in", scheduler=False)
    >>> sorted(c.csi), "attachdetach-controller" in c.controllers
    (['hostpath.csi.k8s.io'], True)
    >>> c.get("csinodes", "n1")["spec"]["drivers"][0]["nodeID"]
    'n1'
    >>> Cluster([node], controllers=[], kubelet="stand-in", scheduler=False).csi
    {}
    """
    drivers: dict[str, HostPathDriver] = {}
    server = cluster.server
    for obj in server.list("csidrivers"):
        name = obj["metadata"]["name"]
        if name not in MODELLED_DRIVERS:
            continue
        capacity = ((obj.get("metadata") or {}).get("annotations") or {}).get(HOSTPATH_CAPACITY_ANNOTATION)
        driver = HostPathDriver(name, clock=lambda: float(cluster.env.now),
                                capacity_bytes=None if capacity is None else quantity_value(capacity))
        for node in server.list("nodes"):
            node_name = node["metadata"]["name"]
            kubelet = server.client(f"kubelet/{node_name}", UserInfo(
                f"system:node:{node_name}", groups=("system:nodes", "system:authenticated")))
            register_driver(kubelet, driver.node(node_name), name, node_name)
            info = next((t["response"] for t in reversed(driver.trace) if t["method"] == "NodeGetInfo"
                         and t["node"] == node_name), None)  # the registration's answer, not a second call
            _label_topology(kubelet, node_name, info or {})
        for pv in server.list("persistentvolumes"):
            csi = (pv.get("spec") or {}).get("csi") or {}
            if csi.get("driver") == name and csi.get("volumeHandle"):
                driver.add_volume(csi["volumeHandle"], storage_capacity_bytes(pv))
        cluster.controllers[f"csi-attacher/{name}"] = ExternalAttacher.configured(driver=driver)(ctx)
        cluster.controllers[f"csi-provisioner/{name}"] = ExternalProvisioner.configured(driver=driver)(ctx)
        cluster.controllers[f"csi-resizer/{name}"] = ExternalResizer.configured(driver=driver)(ctx)
        if (obj.get("spec") or {}).get("storageCapacity"):  # --enable-capacity: the scheduler reads them
            cluster.controllers[f"csi-capacity/{name}"] = CapacityController.configured(driver=driver)(ctx)
        drivers[name] = driver
    if drivers and "attachdetach-controller" not in cluster.controllers:
        _install_controller_rbac(server)
        cluster.controllers["attachdetach-controller"] = AttachDetachController(ctx)
    return drivers


def csi_calls(cluster: Any) -> list[dict]:
    """Every call made to the cluster's CSI driver models, in time order (``simulate -o csi``).

    Parameters
    ----------
    cluster : Cluster
        A run cluster (its ``csi`` drivers; none: no calls).

    Returns
    -------
    list of dict
        ``time``, ``driver``, ``service`` (``Identity``, ``Controller``, ``Node``), ``method`` (the CSI
        spec's RPC name), ``node`` ("" for the controller service), ``code`` (gRPC code name, ``OK`` on
        success), ``request``, ``response``, ``error``.

    Examples
    --------
    >>> from kubenotes.data import sample
    >>> from kubenotes.sim.cli import run
    >>> calls = csi_calls(run([sample("storage", "csi-attach.yaml")], until=40, kubelet="stand-in"))
    >>> [(c["method"], c["code"]) for c in calls if c["service"] == "Controller"]
    [('ControllerPublishVolume', 'OK'), ('ControllerUnpublishVolume', 'OK')]
    """
    out = []
    for name, driver in sorted((getattr(cluster, "csi", None) or {}).items()):
        for t in driver.trace:
            out.append({"time": t["time"], "driver": name, "service": t["service"], "method": t["method"],
                        "node": t["node"], "code": t.get("code", ""), "request": t["request"],
                        "response": t["response"], "error": t["error"]})
    return sorted(out, key=lambda c: c["time"])
