"""The external-provisioner's capacity controller: one CSIStorageCapacity per topology segment and class.

With ``--enable-capacity`` (and a CSIDriver saying ``storageCapacity: true``,
which makes the scheduler read the objects), the external-provisioner of a
driver publishes how much storage each topology segment has left:

* **topology segments** (``pkg/capacity/topology/nodes.go``): for every CSINode
  listing the driver, the node's labels for the driver's ``topologyKeys``
  (nodes lacking one of those labels are skipped); equal segments count once;
* **work items**: each segment with each StorageClass whose ``provisioner`` is
  the driver, except classes with ``volumeBindingMode: Immediate`` (the
  scheduler reads capacity only for claims that wait for their first consumer;
  ``--capacity-for-immediate-binding`` is off);
* **sync** (``syncCapacity``): ``GetCapacity`` with the class's ``parameters``,
  one mount capability of access mode ``UNKNOWN`` and the segment as
  ``accessible_topology``; the answer's ``available_capacity`` and
  ``maximum_volume_size`` become ``capacity`` and ``maximumVolumeSize`` of a
  CSIStorageCapacity in the provisioner's namespace: created with
  ``generateName: csisc-``, labels ``csi.storage.k8s.io/drivername: <driver>``
  and ``csi.storage.k8s.io/managed-by: external-provisioner``,
  ``storageClassName`` and ``nodeTopology.matchLabels`` the segment; updated
  only when a value changed;
* objects with those labels that no work item wants (a class or a node gone, a
  duplicate) are deleted; objects without them (made by hand) are left alone;
* refreshed every ``--capacity-poll-interval`` (1 min), at once when classes,
  CSINodes or Nodes change, and when a PersistentVolume of the driver comes or
  goes (the volume took or freed room).

Notes
-----
One work key (``sync``) carries every item: each pass calls ``GetCapacity``
for all of them (upstream queues items one by one and polls them all anyway).
Not modelled: the owner reference (``--capacity-ownerref-level``), distributed
provisioning (``external-provisioner-<node>``), leader election, ``GetCapacity``
time-outs.

References
----------
kubernetes-csi/external-provisioner@v5.3 pkg/capacity/capacity.go (Controller, syncCapacity, onTopologyChanges,
onSCAddOrUpdate, isManaged, DriverNameLabel, ManagedByLabel)
kubernetes-csi/external-provisioner@v5.3 pkg/capacity/topology/nodes.go (segments from CSINode topologyKeys)
kubernetes-csi/external-provisioner@v5.3 deploy/kubernetes/rbac.yaml (Role external-provisioner-cfg)
https://kubernetes.io/docs/concepts/storage/storage-capacity/
https://github.com/kubernetes/enhancements/tree/master/keps/sig-storage/1472-storage-capacity-tracking
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.quantity import format_quantity
from kubenotes.api.quantity import value as quantity_value
from kubenotes.api.storagehelpers import VOLUME_BINDING_IMMEDIATE
from kubenotes.apiserver.bootstrap_policy import STORAGE_GROUP, policy_rule
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.reconciler import Controller, Result
from kubenotes.controllers.volume.external_provisioner import PROVISIONER_CLUSTER_ROLE, _install_sidecar_rbac

__all__ = ["CapacityController", "topology_segments", "DRIVER_NAME_LABEL", "MANAGED_BY_LABEL", "MANAGED_BY",
           "CAPACITY_POLL_INTERVAL_SECONDS", "CAPACITY_NAMESPACE", "PROVISIONER_CFG_ROLE"]

#: ``DriverNameLabel`` and ``ManagedByLabel`` of the objects the controller owns.
DRIVER_NAME_LABEL = "csi.storage.k8s.io/drivername"
MANAGED_BY_LABEL = "csi.storage.k8s.io/managed-by"
#: ``managed-by`` of a central (not per-node) provisioner.
MANAGED_BY = "external-provisioner"
#: ``--capacity-poll-interval`` default.
CAPACITY_POLL_INTERVAL_SECONDS = 60.0
#: The provisioner's namespace (``NAMESPACE``), where its CSIStorageCapacity objects live.
CAPACITY_NAMESPACE = "kube-system"
_SYNC = "sync"
#: ``rbac.yaml``'s Role in the provisioner's namespace, bound to ``csi-provisioner``.
PROVISIONER_CFG_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
    "metadata": {"name": "external-provisioner-cfg", "namespace": CAPACITY_NAMESPACE},
    "rules": [policy_rule(("get", "list", "watch", "create", "update", "patch", "delete"), (STORAGE_GROUP,),
                          ("csistoragecapacities",))],
}


def topology_segments(driver_name: str, csinodes: list[dict], nodes: dict[str, dict]) -> list[dict[str, str]]:
    """The driver's topology segments: each node's labels for the ``topologyKeys`` its CSINode lists.

    Parameters
    ----------
    driver_name : str
    csinodes : list of dict
        CSINode objects (named after their Node).
    nodes : dict of str to dict
        Node name -> Node.

    Returns
    -------
    list of dict of str to str
        Distinct segments (label key -> value), sorted; a node without one of the keys is left out.

    Examples
    --------
    >>> csn = [{"metadata": {"name": n}, "spec": {"drivers": [{"name": "d", "topologyKeys": ["zone"]}]}}
    ...        for n in ("a", "b", "c")]
    >>> nodes = {"a": {"metadata": {"labels": {"zone": "z1"}}}, "b": {"metadata": {"labels": {"zone": "z1"}}},
    ...          "c": {"metadata": {"labels": {}}}}
    >>> topology_segments("d", csn, nodes)
    [{'zone': 'z1'}]
    """
    out: set[tuple[tuple[str, str], ...]] = set()
    for csn in csinodes:
        entry = next((d for d in (csn.get("spec") or {}).get("drivers") or () if d.get("name") == driver_name), None)
        node = nodes.get((csn.get("metadata") or {}).get("name", ""))
        if entry is None or node is None:
            continue
        labels = (node.get("metadata") or {}).get("labels") or {}
        keys = entry.get("topologyKeys") or ()
        if keys and all(k in labels for k in keys):
            out.add(tuple(sorted((k, labels[k]) for k in keys)))
    return [dict(s) for s in sorted(out)]


def _install_cfg_role(ctx: Any) -> None:
    """The Role ``external-provisioner-cfg`` and its RoleBinding to ``kube-system/csi-provisioner`` (if absent)."""
    from kubenotes.apiserver.request import UserInfo

    admin = ctx.server.client("kube-apiserver", UserInfo("kubernetes-admin", groups=("system:masters",)))
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "csi-provisioner-role-cfg", "namespace": CAPACITY_NAMESPACE},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                           "name": PROVISIONER_CFG_ROLE["metadata"]["name"]},
               "subjects": [{"kind": "ServiceAccount", "name": "csi-provisioner", "namespace": CAPACITY_NAMESPACE}]}
    for resource, obj in (("roles", PROVISIONER_CFG_ROLE), ("rolebindings", binding)):
        if ctx.server.get(resource, CAPACITY_NAMESPACE, obj["metadata"]["name"]) is None:
            admin.create(resource, deep_copy(obj), CAPACITY_NAMESPACE)


class CapacityController(Controller):
    """The external-provisioner's capacity controller for one CSI driver (see the module docstring).

    Attributes
    ----------
    driver : object
        The driver's Identity and Controller services (``GetPluginInfo``, ``GetCapacity``); set with
        :meth:`configured`.

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    >>> drv = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "hostpath.csi.k8s.io",
    ...        "annotations": {"kubenotes.io/hostpath-capacity": "10Gi"}}, "spec": {"storageCapacity": True}}
    >>> sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "csi"},
    ...       "provisioner": "hostpath.csi.k8s.io", "volumeBindingMode": "WaitForFirstConsumer"}
    >>> c = Cluster([node, drv, sc], controllers=[], scheduler=False, kubelet="stand-in")
    >>> c.run(until=1)
    >>> [(x["storageClassName"], x["nodeTopology"]["matchLabels"], x["capacity"], x["maximumVolumeSize"])
    ...  for x in c.list("csistoragecapacities", "kube-system")]
    [('csi', {'topology.hostpath.csi/node': 'n1'}, '10Gi', '10Gi')]
    """

    name = "csi-provisioner"
    service_account = "csi-provisioner"
    driver: Any = None

    def __init__(self, ctx: Any):
        if self.driver is None:
            raise ValueError("CapacityController needs a driver: CapacityController.configured(driver=...)")
        _install_sidecar_rbac(ctx, PROVISIONER_CLUSTER_ROLE, "csi-provisioner")
        _install_cfg_role(ctx)
        super().__init__(ctx)

    def setup(self) -> None:
        self.driver_name = self.driver.GetPluginInfo({})["name"]
        self._created: dict[str, dict] = {}  # name -> created, not yet in the informer
        self.classes = self.informers.informer_for("storageclasses")
        self.csinodes = self.informers.informer_for("csinodes")
        self.nodes = self.informers.informer_for("nodes")
        self.capacities = self.informers.informer_for("csistoragecapacities")
        volumes = self.informers.informer_for("persistentvolumes")
        sync = lambda *objs: self.enqueue(_SYNC)  # noqa: E731 - every change resyncs the one key
        for inf in (self.classes, self.csinodes, self.nodes):
            inf.add_event_handler(sync, sync, sync)
        ours = lambda *objs: self.enqueue(_SYNC) if any(  # noqa: E731
            ((o.get("spec") or {}).get("csi") or {}).get("driver") == self.driver_name for o in objs) else None
        volumes.add_event_handler(ours, None, ours)
        self.enqueue(_SYNC)
        self.every(CAPACITY_POLL_INTERVAL_SECONDS, lambda: self.enqueue(_SYNC))  # pollCapacities

    def _work_items(self) -> list[tuple[dict[str, str], str, dict]]:
        """(segment, class name, class) for each segment and each class of the driver not bound Immediate."""
        classes = sorted((c for c in self.classes.lister.list() if c.get("provisioner") == self.driver_name
                          and c.get("volumeBindingMode", VOLUME_BINDING_IMMEDIATE) != VOLUME_BINDING_IMMEDIATE),
                         key=lambda c: c["metadata"]["name"])
        nodes = {n["metadata"]["name"]: n for n in self.nodes.lister.list()}
        segments = topology_segments(self.driver_name, self.csinodes.lister.list(), nodes)
        return [(seg, c["metadata"]["name"], c) for seg in segments for c in classes]

    def _managed(self) -> list[dict]:
        """``isManaged``: this driver's objects made by a central external-provisioner, oldest first.

        Objects this controller created that its informer has not delivered yet count too (upstream
        creates a duplicate then, and deletes it once it sees both)."""
        listed = {c["metadata"]["name"]: c for c in self.capacities.lister.list()
                  if ((c.get("metadata") or {}).get("labels") or {}).get(DRIVER_NAME_LABEL) == self.driver_name
                  and c["metadata"]["labels"].get(MANAGED_BY_LABEL) == MANAGED_BY}
        for name in [n for n in self._created if n in listed]:
            del self._created[name]
        return sorted([*listed.values(), *self._created.values()],
                      key=lambda c: (c["metadata"].get("creationTimestamp") or "", c["metadata"]["name"]))

    def reconcile(self, key: str) -> Result | None:
        existing = self._managed()
        used: set[str] = set()
        for segment, class_name, sc in self._work_items():
            match = next((c for c in existing if c["metadata"]["name"] not in used
                          and c.get("storageClassName") == class_name
                          and (c.get("nodeTopology") or {}).get("matchLabels") == segment), None)
            if match is not None:
                used.add(match["metadata"]["name"])
            self._sync_capacity(segment, class_name, sc, match)
        for c in existing:  # obsolete or duplicate
            if c["metadata"]["name"] not in used:
                self._created.pop(c["metadata"]["name"], None)
                self.client.delete("csistoragecapacities", c["metadata"]["name"], c["metadata"]["namespace"])
        return None

    def _sync_capacity(self, segment: dict[str, str], class_name: str, sc: dict, capacity: dict | None) -> None:
        """``syncCapacity``: ``GetCapacity``, then create the object or update it when a value changed."""
        resp = self.driver.GetCapacity({
            "parameters": dict(sc.get("parameters") or {}),
            "volume_capabilities": [{"mount": {}, "access_mode": {"mode": "UNKNOWN"}}],
            "accessible_topology": {"segments": dict(segment)}})
        available = format_quantity(int(resp.get("available_capacity") or 0), "storage")
        maximum = resp.get("maximum_volume_size")
        maximum = None if maximum is None else format_quantity(int(maximum), "storage")
        if capacity is None:
            obj = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                   "metadata": {"generateName": "csisc-", "namespace": CAPACITY_NAMESPACE,
                                "labels": {DRIVER_NAME_LABEL: self.driver_name, MANAGED_BY_LABEL: MANAGED_BY}},
                   "storageClassName": class_name, "nodeTopology": {"matchLabels": dict(segment)},
                   "capacity": available}
            if maximum is not None:
                obj["maximumVolumeSize"] = maximum
            created = self.client.create("csistoragecapacities", obj, CAPACITY_NAMESPACE)
            self._created[created["metadata"]["name"]] = created
            return
        old_max = capacity.get("maximumVolumeSize")
        if (quantity_value(capacity.get("capacity") or "0") == quantity_value(available)
                and (old_max is None) == (maximum is None)
                and (maximum is None or quantity_value(old_max) == quantity_value(maximum))):
            return
        new = deep_copy(capacity)
        new["capacity"] = available
        if maximum is None:
            new.pop("maximumVolumeSize", None)
        else:
            new["maximumVolumeSize"] = maximum
        self.client.update("csistoragecapacities", new, CAPACITY_NAMESPACE)
