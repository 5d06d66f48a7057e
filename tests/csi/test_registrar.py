"""node-driver-registrar writes the node's CSINode driver entry from NodeGetInfo."""

from __future__ import annotations

from kubenotes.csi.hostpath import TOPOLOGY_KEY, HostPathDriver
from kubenotes.csi.registrar import register_driver, unregister_driver
from kubenotes.sim.cluster import Cluster

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "2", "memory": "2Gi", "pods": "10"}}}


def test_register_creates_csinode_owned_by_the_node_then_replaces_its_entry():
    c = Cluster([NODE], controllers=[], scheduler=False, kubelet="stand-in")
    d = HostPathDriver(max_volumes_per_node=8)
    register_driver(c.client, d.node("n1"), d.name, "n1")
    cs = c.get("csinodes", "n1")
    assert cs["spec"]["drivers"] == [{"name": "hostpath.csi.k8s.io", "nodeID": "n1", "topologyKeys": [TOPOLOGY_KEY],
                                      "allocatable": {"count": 8}}]
    assert cs["metadata"]["ownerReferences"][0]["kind"] == "Node"
    d.max_volumes_per_node = 0
    register_driver(c.client, d.node("n1"), d.name, "n1")
    drivers = c.get("csinodes", "n1")["spec"]["drivers"]
    assert len(drivers) == 1 and "allocatable" not in drivers[0]
    assert [e["method"] for e in d.trace] == ["NodeGetInfo", "NodeGetInfo"]
    unregister_driver(c.client, d.name, "n1")
    assert c.get("csinodes", "n1")["spec"]["drivers"] == []
