"""A CSI driver after kubernetes-csi's csi-driver-host-path: the Identity, Controller and Node services.

:class:`HostPathDriver` is one driver deployment: the Identity and Controller
services (what the external-provisioner, -attacher and -resizer sidecars call)
and, through :meth:`HostPathDriver.node`, each node's Node service (what the
kubelet and node-driver-registrar call). The volumes are directories under
``/csi-data-dir/<volume id>`` on the node of their topology segment
``topology.hostpath.csi/node``; the model keeps their bookkeeping only.

Cases and codes, as the CSI spec's error scheme defines them:

* ``CreateVolume`` is idempotent by name: the same name and size returns the
  existing volume; the same name with another size is ``ALREADY_EXISTS``; a
  size above the driver's maximum is ``OUT_OF_RANGE``; no room left on the
  node is ``RESOURCE_EXHAUSTED``.
* ``DeleteVolume`` of an unknown volume succeeds (idempotent); of a volume
  still published or staged it is ``FAILED_PRECONDITION``.
* ``ControllerPublishVolume``: unknown volume or node ``NOT_FOUND``; already
  published to this node returns again (idempotent); a single-node volume
  published to another node ``FAILED_PRECONDITION``; the node's
  ``max_volumes_per_node`` reached ``RESOURCE_EXHAUSTED``.
* ``ControllerUnpublishVolume`` of an unknown or unpublished volume succeeds.
* Node RPCs: unknown volume ``NOT_FOUND``; ``NodePublishVolume`` with no
  ``staging_target_path`` (the driver has ``STAGE_UNSTAGE_VOLUME``) or one not
  staged ``FAILED_PRECONDITION``; repeated stage/publish to the same path
  succeeds; unstage/unpublish of a path not there succeeds.

Notes
-----
No filesystem, no block devices, no snapshots, no ephemeral inline volumes,
no ``ListVolumes``. The hostpath driver keeps every volume on the node the
controller runs on; this model places a volume on the node named in its
``accessibility_requirements`` (first preferred, else first requisite
segment), else on the first registered node, so a multi-node cluster has
volumes on each node. Messages paraphrase the hostpath driver's.

References
----------
kubernetes-csi/csi-driver-host-path@v1.17.0 pkg/hostpath/controllerserver.go, nodeserver.go, identityserver.go
container-storage-interface/spec@v1.11.0 spec.md (CreateVolume ... NodeGetInfo errors)
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any, Callable

from kubenotes.csi.spec import (
    ALREADY_EXISTS,
    CONTROLLER_SERVICE,
    CREATE_DELETE_VOLUME,
    EXPAND_VOLUME,
    FAILED_PRECONDITION,
    GET_CAPACITY,
    INVALID_ARGUMENT,
    MULTI_NODE_MULTI_WRITER,
    MULTI_NODE_READER_ONLY,
    MULTI_NODE_SINGLE_WRITER,
    NOT_FOUND,
    OUT_OF_RANGE,
    PUBLISH_UNPUBLISH_VOLUME,
    RESOURCE_EXHAUSTED,
    STAGE_UNSTAGE_VOLUME,
    VOLUME_ACCESSIBILITY_CONSTRAINTS,
    CSIError,
    rpc,
)

__all__ = ["HostPathDriver", "HostPathNode", "DRIVER_NAME", "TOPOLOGY_KEY", "DATA_ROOT", "MAX_VOLUME_SIZE_BYTES"]

#: The driver's name (``--drivername``), which CSIDriver, StorageClass ``provisioner`` and PV ``spec.csi.driver`` use.
DRIVER_NAME = "hostpath.csi.k8s.io"
#: The driver's version (``GetPluginInfo.vendor_version``).
VENDOR_VERSION = "v1.17.0"
#: Topology segment key of each node (``TopologyKeyNode``).
TOPOLOGY_KEY = "topology.hostpath.csi/node"
#: Where the volumes live on a node (``--statedir``'s data directory).
DATA_ROOT = "/csi-data-dir"
#: ``--max-volume-size`` default: 1 TiB.
MAX_VOLUME_SIZE_BYTES = 1 << 40
_MULTI_NODE = (MULTI_NODE_READER_ONLY, MULTI_NODE_SINGLE_WRITER, MULTI_NODE_MULTI_WRITER)


def _volume_id(name: str) -> str:
    """A deterministic UUID for a volume name (the driver draws a random one)."""
    return str(uuid.UUID(hashlib.sha256(name.encode()).hexdigest()[:32]))


def _require(request: dict, *fields: str) -> None:
    for f in fields:
        if not request.get(f):
            raise CSIError(INVALID_ARGUMENT, f"{f} missing in request")


class HostPathDriver:
    """One csi-hostpath driver deployment: Identity and Controller services, and each node's Node service.

    Parameters
    ----------
    name : str
        The driver name (default :data:`DRIVER_NAME`).
    clock : callable() -> float, optional
        The virtual clock for the trace (``env.now``); default: always 0.
    capacity_bytes : int or None
        Each node's room for volumes (``--capacity``); None: unlimited.
    max_volumes_per_node : int
        ``NodeGetInfo.max_volumes_per_node`` (``--max-volumes-per-node``, 0: no limit)
        and the limit ``ControllerPublishVolume`` enforces.

    Attributes
    ----------
    volumes : dict of str to dict
        Volume id -> ``{"name", "capacity_bytes", "node", "path", "access_mode", "published_to",
        "staged", "published"}`` (``published_to``: node ids; ``staged``/``published``: paths).
    trace : list of dict
        Every call, as :func:`kubenotes.csi.spec.rpc` records it (controller and nodes together).

    Examples
    --------
    >>> d = HostPathDriver()
    >>> n1 = d.node("n1")
    >>> n1.NodeGetInfo()["accessible_topology"]
    {'segments': {'topology.hostpath.csi/node': 'n1'}}
    >>> cap = {"access_mode": {"mode": "SINGLE_NODE_WRITER"}, "mount": {}}
    >>> vol = d.CreateVolume({"name": "pvc-1", "capacity_range": {"required_bytes": 2**30},
    ...                       "volume_capabilities": [cap]})["volume"]
    >>> d.ControllerPublishVolume({"volume_id": vol["volume_id"], "node_id": "n1", "volume_capability": cap})
    {'publish_context': {}}
    >>> d.node("n2").NodeGetInfo()["node_id"]
    'n2'
    >>> d.ControllerPublishVolume({"volume_id": vol["volume_id"], "node_id": "n2", "volume_capability": cap})
    Traceback (most recent call last):
    ...
    kubenotes.csi.spec.CSIError: rpc error: code = FailedPrecondition desc = volume ... is already published to node n1
    >>> [e["method"] for e in d.trace][-2:], d.trace[-1]["code"]
    (['NodeGetInfo', 'ControllerPublishVolume'], 'FailedPrecondition')
    """

    def __init__(self, name: str = DRIVER_NAME, *, clock: Callable[[], float] | None = None,
                 capacity_bytes: int | None = None, max_volumes_per_node: int = 0):
        self.name = name
        self.clock = clock or (lambda: 0.0)
        self.capacity_bytes = capacity_bytes
        self.max_volumes_per_node = max_volumes_per_node
        self.volumes: dict[str, dict[str, Any]] = {}
        self.nodes: dict[str, HostPathNode] = {}
        self.trace: list[dict[str, Any]] = []
        self.node_id = ""

    def node(self, node_id: str) -> "HostPathNode":
        """The Node service of the driver's pod on ``node_id`` (started on first use)."""
        if node_id not in self.nodes:
            self.nodes[node_id] = HostPathNode(self, node_id)
        return self.nodes[node_id]

    def add_volume(self, volume_id: str, capacity_bytes: int, node: str = "", access_mode: str = "") -> dict:
        """Record a volume made outside the CSI calls (what an administrator pre-provisions for a static PV).

        Not an RPC and not traced. Returns the volume's bookkeeping entry.

        Examples
        --------
        >>> HostPathDriver().add_volume("vol-a", 2**30, "n1")["path"]
        '/csi-data-dir/vol-a'
        """
        return self.volumes.setdefault(volume_id, {
            "name": volume_id, "capacity_bytes": int(capacity_bytes), "node": node,
            "path": f"{DATA_ROOT}/{volume_id}", "access_mode": access_mode,
            "published_to": [], "staged": [], "published": []})

    def _get(self, volume_id: str) -> dict:
        vol = self.volumes.get(volume_id)
        if vol is None:
            raise CSIError(NOT_FOUND, f"volume id {volume_id} does not exist in the volumes list")
        return vol

    def _used_bytes(self, node: str) -> int:
        return sum(v["capacity_bytes"] for v in self.volumes.values() if v["node"] == node)

    # ------------------------------------------------------------ Identity
    @rpc("Identity")
    def GetPluginInfo(self, request: dict) -> dict:  # noqa: N802 - proto method name
        return {"name": self.name, "vendor_version": VENDOR_VERSION}

    @rpc("Identity")
    def Probe(self, request: dict) -> dict:  # noqa: N802
        return {"ready": {"value": True}}

    @rpc("Identity")
    def GetPluginCapabilities(self, request: dict) -> dict:  # noqa: N802
        return {"capabilities": [{"service": {"type": CONTROLLER_SERVICE}},
                                 {"service": {"type": VOLUME_ACCESSIBILITY_CONSTRAINTS}}]}

    # ------------------------------------------------------------ Controller
    @rpc("Controller")
    def ControllerGetCapabilities(self, request: dict) -> dict:  # noqa: N802
        return {"capabilities": [{"rpc": {"type": t}} for t in
                                 (CREATE_DELETE_VOLUME, PUBLISH_UNPUBLISH_VOLUME, GET_CAPACITY, EXPAND_VOLUME)]}

    def _placement(self, request: dict) -> str:
        topo = request.get("accessibility_requirements") or {}
        for t in list(topo.get("preferred") or []) + list(topo.get("requisite") or []):
            node = (t.get("segments") or {}).get(TOPOLOGY_KEY)
            if node:
                return node
        return next(iter(self.nodes), "")

    @rpc("Controller")
    def CreateVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "name")
        caps = request.get("volume_capabilities") or []
        if not caps:
            raise CSIError(INVALID_ARGUMENT, "volume_capabilities missing in request")
        size = int((request.get("capacity_range") or {}).get("required_bytes") or 0)
        vid = _volume_id(request["name"])
        existing = self.volumes.get(vid)
        if existing is not None:
            if existing["capacity_bytes"] != size:
                raise CSIError(ALREADY_EXISTS, f"Volume with the same name: {request['name']} but with "
                                               "different size already exist")
            return {"volume": self._volume_message(vid)}
        if size > MAX_VOLUME_SIZE_BYTES:
            raise CSIError(OUT_OF_RANGE, f"Requested capacity {size} exceeds maximum allowed "
                                         f"{MAX_VOLUME_SIZE_BYTES}")
        node = self._placement(request)
        if self.capacity_bytes is not None and self._used_bytes(node) + size > self.capacity_bytes:
            raise CSIError(RESOURCE_EXHAUSTED, f"requested capacity {size} exceeds the available capacity "
                                               f"{self.capacity_bytes - self._used_bytes(node)} on node {node}")
        self.volumes[vid] = {"name": request["name"], "capacity_bytes": size, "node": node,
                             "path": f"{DATA_ROOT}/{vid}",
                             "access_mode": (caps[0].get("access_mode") or {}).get("mode", ""),
                             "published_to": [], "staged": [], "published": []}
        return {"volume": self._volume_message(vid)}

    def _volume_message(self, vid: str) -> dict:
        vol = self.volumes[vid]
        return {"volume_id": vid, "capacity_bytes": vol["capacity_bytes"], "volume_context": {},
                "accessible_topology": [{"segments": {TOPOLOGY_KEY: vol["node"]}}] if vol["node"] else []}

    @rpc("Controller")
    def DeleteVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id")
        vol = self.volumes.get(request["volume_id"])
        if vol is None:
            return {}
        if vol["published_to"] or vol["staged"] or vol["published"]:
            raise CSIError(FAILED_PRECONDITION, f"volume {request['volume_id']} is still used (attached: "
                                                f"{vol['published_to']}, staged: {vol['staged']}, "
                                                f"published: {vol['published']})")
        del self.volumes[request["volume_id"]]
        return {}

    @rpc("Controller")
    def ControllerPublishVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id", "node_id", "volume_capability")
        vol = self._get(request["volume_id"])
        node = request["node_id"]
        if node not in self.nodes:
            raise CSIError(NOT_FOUND, f"Not matching Node ID {node} to hostpath Node ID")
        if node in vol["published_to"]:
            return {"publish_context": {}}
        mode = ((request.get("volume_capability") or {}).get("access_mode") or {}).get("mode", "")
        if vol["published_to"] and mode not in _MULTI_NODE:
            raise CSIError(FAILED_PRECONDITION, f"volume {request['volume_id']} is already published to node "
                                                f"{vol['published_to'][0]}")
        attached = sum(1 for v in self.volumes.values() if node in v["published_to"])
        if self.max_volumes_per_node and attached >= self.max_volumes_per_node:
            raise CSIError(RESOURCE_EXHAUSTED, f"Cannot attach any more volumes to this node ('{node}')")
        vol["published_to"].append(node)
        return {"publish_context": {}}

    @rpc("Controller")
    def ControllerUnpublishVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id")
        vol = self.volumes.get(request["volume_id"])
        node = request.get("node_id", "")
        if vol is not None:
            vol["published_to"] = [n for n in vol["published_to"] if node and n != node]
        return {}

    @rpc("Controller")
    def ControllerExpandVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id")
        vol = self._get(request["volume_id"])
        size = int((request.get("capacity_range") or {}).get("required_bytes") or 0)
        if size > MAX_VOLUME_SIZE_BYTES:
            raise CSIError(OUT_OF_RANGE, f"Requested capacity {size} exceeds maximum allowed "
                                         f"{MAX_VOLUME_SIZE_BYTES}")
        if self.capacity_bytes is not None and (self._used_bytes(vol["node"]) - vol["capacity_bytes"] + size
                                                > self.capacity_bytes):
            raise CSIError(RESOURCE_EXHAUSTED, f"requested capacity {size} exceeds the available capacity "
                                               f"on node {vol['node']}")
        vol["capacity_bytes"] = max(vol["capacity_bytes"], size)
        return {"capacity_bytes": vol["capacity_bytes"], "node_expansion_required": True}

    @rpc("Controller")
    def GetCapacity(self, request: dict) -> dict:  # noqa: N802
        node = ((request.get("accessible_topology") or {}).get("segments") or {}).get(TOPOLOGY_KEY, "")
        if self.capacity_bytes is None:
            return {"available_capacity": MAX_VOLUME_SIZE_BYTES, "maximum_volume_size": MAX_VOLUME_SIZE_BYTES}
        free = max(0, self.capacity_bytes - self._used_bytes(node))
        return {"available_capacity": free, "maximum_volume_size": min(free, MAX_VOLUME_SIZE_BYTES)}


class HostPathNode:
    """The Node service of the driver's pod on one node (what the kubelet and node-driver-registrar call).

    Parameters
    ----------
    driver : HostPathDriver
        The deployment whose volumes it stages and publishes.
    node_id : str
        The node's id for the driver (the hostpath driver uses the node name).
    """

    def __init__(self, driver: HostPathDriver, node_id: str):
        self.driver = driver
        self.node_id = node_id
        self.clock = driver.clock
        self.trace = driver.trace

    def _local(self, volume_id: str) -> dict:
        vol = self.driver._get(volume_id)
        return vol

    @rpc("Node")
    def NodeGetInfo(self, request: dict) -> dict:  # noqa: N802
        return {"node_id": self.node_id, "max_volumes_per_node": self.driver.max_volumes_per_node,
                "accessible_topology": {"segments": {TOPOLOGY_KEY: self.node_id}}}

    @rpc("Node")
    def NodeGetCapabilities(self, request: dict) -> dict:  # noqa: N802
        return {"capabilities": [{"rpc": {"type": STAGE_UNSTAGE_VOLUME}}, {"rpc": {"type": EXPAND_VOLUME}}]}

    @rpc("Node")
    def NodeStageVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id", "staging_target_path", "volume_capability")
        vol = self._local(request["volume_id"])
        if request["staging_target_path"] not in vol["staged"]:
            vol["staged"].append(request["staging_target_path"])
        return {}

    @rpc("Node")
    def NodeUnstageVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id", "staging_target_path")
        vol = self._local(request["volume_id"])
        vol["staged"] = [p for p in vol["staged"] if p != request["staging_target_path"]]
        return {}

    @rpc("Node")
    def NodePublishVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id", "target_path", "volume_capability")
        vol = self._local(request["volume_id"])
        staging = request.get("staging_target_path")
        if not staging or staging not in vol["staged"]:
            raise CSIError(FAILED_PRECONDITION, f"volume {request['volume_id']} has not been staged at "
                                                f"{staging!r}")
        if request["target_path"] not in vol["published"]:
            vol["published"].append(request["target_path"])
        return {}

    @rpc("Node")
    def NodeUnpublishVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id", "target_path")
        vol = self._local(request["volume_id"])
        vol["published"] = [p for p in vol["published"] if p != request["target_path"]]
        return {}

    @rpc("Node")
    def NodeExpandVolume(self, request: dict) -> dict:  # noqa: N802
        _require(request, "volume_id", "volume_path")
        vol = self._local(request["volume_id"])
        return {"capacity_bytes": vol["capacity_bytes"]}
