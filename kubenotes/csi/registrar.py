"""node-driver-registrar and the kubelet's CSINode bookkeeping: a driver's entry in ``CSINode.spec.drivers``.

On each node, the node-driver-registrar sidecar tells the kubelet (plugin
registration socket) that a CSI driver runs there; the kubelet's CSI plugin
then calls the driver's ``NodeGetInfo`` and its node info manager writes the
node's ``CSINode`` (named after the Node, owned by it): a ``drivers[]`` entry
with the driver's ``name``, ``nodeID``, ``topologyKeys`` (the keys of
``accessible_topology.segments``) and, when the driver reports
``max_volumes_per_node`` > 0, ``allocatable.count``. Registering again
replaces the entry; unregistering removes it.

Notes
-----
The registration socket, the Node's ``csi.volume.kubernetes.io/nodeid``
annotation and the Node's topology labels are not modelled: only the CSINode
is written.

References
----------
kubernetes-csi/node-driver-registrar@v2.14 cmd/csi-node-driver-registrar/node_register.go
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/csi_plugin.go (RegistrationHandler.RegisterPlugin)
kubernetes/kubernetes@v1.34.0 pkg/volume/csi/nodeinfomanager/nodeinfomanager.go (installDriverToCSINode)
"""

from __future__ import annotations

from typing import Any

from kubenotes.apiserver.status import ApiError

__all__ = ["register_driver", "unregister_driver", "csinode_driver_entry"]


def csinode_driver_entry(driver_name: str, node_info: dict) -> dict:
    """The ``CSINode.spec.drivers[]`` entry for a driver from its ``NodeGetInfo`` response.

    Parameters
    ----------
    driver_name : str
        The CSI driver's name (``GetPluginInfo.name``).
    node_info : dict
        ``NodeGetInfo`` response: ``node_id``, ``max_volumes_per_node``, ``accessible_topology``.

    Returns
    -------
    dict
        ``{"name", "nodeID", "topologyKeys"[, "allocatable": {"count"}]}``; topology keys sorted.

    Examples
    --------
    >>> e = csinode_driver_entry("hostpath.csi.k8s.io", {"node_id": "n1", "max_volumes_per_node": 8,
    ...     "accessible_topology": {"segments": {"topology.hostpath.csi/node": "n1"}}})
    >>> e["nodeID"], e["topologyKeys"], e["allocatable"]
    ('n1', ['topology.hostpath.csi/node'], {'count': 8})
    """
    entry: dict[str, Any] = {"name": driver_name, "nodeID": node_info["node_id"],
                             "topologyKeys": sorted(((node_info.get("accessible_topology") or {})
                                                     .get("segments") or {}))}
    if int(node_info.get("max_volumes_per_node") or 0) > 0:
        entry["allocatable"] = {"count": int(node_info["max_volumes_per_node"])}
    return entry


def register_driver(client: Any, node_plugin: Any, driver_name: str, node_name: str) -> dict:
    """Register a driver on a node: ``NodeGetInfo``, then create or update the node's CSINode.

    Parameters
    ----------
    client : Client
        The kubelet's client (``system:node:<node>`` may get/create/update csinodes).
    node_plugin : object
        The driver's Node service on that node (has ``NodeGetInfo``), e.g.
        :class:`~kubenotes.csi.hostpath.HostPathNode`.
    driver_name : str
        The driver's name.
    node_name : str
        The Node's name (the CSINode's name).

    Returns
    -------
    dict
        The CSINode as stored.

    Raises
    ------
    ApiError
        When the API server refuses the write (other than a missing CSINode, which is created).

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> from kubenotes.csi.hostpath import HostPathDriver
    >>> c = Cluster([], controllers=[])
    >>> d = HostPathDriver(max_volumes_per_node=4)
    >>> register_driver(c.client, d.node("n1"), d.name, "n1")["spec"]["drivers"][0]["allocatable"]
    {'count': 4}
    """
    entry = csinode_driver_entry(driver_name, node_plugin.NodeGetInfo({}))
    try:
        csinode = client.get("csinodes", node_name)
    except ApiError as e:
        if e.code != 404:
            raise
        body = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": node_name},
                "spec": {"drivers": [entry]}}
        node = client.server.get("nodes", None, node_name)
        if node is not None:
            body["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node_name,
                                                    "uid": node["metadata"]["uid"]}]
        return client.create("csinodes", body)
    drivers = [d for d in (csinode.get("spec") or {}).get("drivers") or [] if d.get("name") != driver_name]
    csinode.setdefault("spec", {})["drivers"] = drivers + [entry]
    return client.update("csinodes", csinode)


def unregister_driver(client: Any, driver_name: str, node_name: str) -> dict | None:
    """Remove a driver's entry from the node's CSINode (the plugin's socket went away).

    Returns
    -------
    dict or None
        The CSINode as stored, or None when the node has none.
    """
    try:
        csinode = client.get("csinodes", node_name)
    except ApiError as e:
        if e.code == 404:
            return None
        raise
    csinode["spec"]["drivers"] = [d for d in csinode["spec"].get("drivers") or [] if d.get("name") != driver_name]
    return client.update("csinodes", csinode)
