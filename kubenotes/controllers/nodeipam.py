"""The node IPAM controller: each Node gets a pod CIDR (``spec.podCIDR``) carved from the cluster CIDR.

With ``--allocate-node-cidrs`` and the ``RangeAllocator`` (the default
``--cidr-allocator-type``), kube-controller-manager splits ``--cluster-cidr``
into blocks of ``--node-cidr-mask-size`` (24 for IPv4) and gives each node
without one the next free block, writing ``spec.podCIDR`` and
``spec.podCIDRs``. Blocks nodes already carry are marked used at start; a
deleted node's block is released. When the range is exhausted the node gets
a ``CIDRNotAvailable`` event ("Node <name> status is now: CIDRNotAvailable")
from the ``cidrAllocator`` component.

Upstream's flags default to ``allocate-node-cidrs=false`` and no cluster
CIDR; this model defaults to what kubeadm with a pod subnet and kind set up:
``allocate-node-cidrs=true`` and ``cluster-cidr=10.244.0.0/16`` (kind's
default ``podSubnet``, also flannel's).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/nodeipam/ipam/range_allocator.go
kubernetes/kubernetes@v1.34.0 pkg/controller/nodeipam/ipam/cidrset/cidr_set.go
kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/app/core.go (startNodeIpamController, default mask sizes)
https://kind.sigs.k8s.io/docs/user/configuration/#pod-subnet
"""

from __future__ import annotations

import ipaddress
from typing import Any

from kubenotes.apiserver.status import ApiError
from kubenotes.client.record import EventRecorder
from kubenotes.controllers import nodelifecycle
from kubenotes.controllers.podutil import record_node_status_change, unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result
from kubenotes.errors import KubenotesError

__all__ = ["NodeIpamController", "CIDRSet", "CIDRRangeExhausted", "DEFAULT_CLUSTER_CIDR",
           "DEFAULT_NODE_CIDR_MASK_SIZE_IPV4", "DEFAULT_NODE_CIDR_MASK_SIZE_IPV6", "CIDR_ALLOCATOR_COMPONENT",
           "CIDR_UPDATE_RETRIES", "CONTROLLER_POLICY"]

#: Node-ipam runs as ``node-controller``, with the role :mod:`~kubenotes.controllers.nodelifecycle`
#: declares (upstream: ``ClientOrDie("node-controller")``, ``cmd/kube-controller-manager/app/core.go``).
CONTROLLER_POLICY = nodelifecycle.CONTROLLER_POLICY

#: kind's default ``podSubnet`` (and kubeadm's usual ``--pod-network-cidr`` for flannel).
DEFAULT_CLUSTER_CIDR = "10.244.0.0/16"
DEFAULT_NODE_CIDR_MASK_SIZE_IPV4 = 24
DEFAULT_NODE_CIDR_MASK_SIZE_IPV6 = 64
#: The event source of the range allocator's events.
CIDR_ALLOCATOR_COMPONENT = "cidrAllocator"
#: ``cidrUpdateRetries``.
CIDR_UPDATE_RETRIES = 3


class CIDRRangeExhausted(KubenotesError):
    """``cidrset.ErrCIDRRangeNoCIDRsRemaining``."""

    def __init__(self) -> None:
        super().__init__("CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted "
                         "range")


class CIDRSet:
    """``cidrset.CidrSet``: the sub-blocks of a cluster CIDR, allocated round-robin from the last one given.

    Parameters
    ----------
    cluster_cidr : str
    node_mask_size : int

    Examples
    --------
    >>> s = CIDRSet("10.244.0.0/16", 24)
    >>> s.allocate_next(), s.allocate_next()
    ('10.244.0.0/24', '10.244.1.0/24')
    >>> s.release("10.244.0.0/24"); s.allocate_next()
    '10.244.2.0/24'
    """

    def __init__(self, cluster_cidr: str, node_mask_size: int):
        self.cluster = ipaddress.ip_network(cluster_cidr, strict=False)
        if node_mask_size < self.cluster.prefixlen:
            raise ValueError(f"node mask size {node_mask_size} is smaller than the cluster CIDR's "
                             f"{self.cluster.prefixlen}")
        self.node_mask_size = node_mask_size
        self.max_cidrs = 1 << (node_mask_size - self.cluster.prefixlen)
        self.used: set[int] = set()
        self.next_candidate = 0
        self._step = 1 << (self.cluster.max_prefixlen - node_mask_size)

    def _cidr(self, index: int) -> str:
        base = int(self.cluster.network_address) + index * self._step
        return str(ipaddress.ip_network((base, self.node_mask_size)))

    def _index(self, cidr: str) -> int:
        net = ipaddress.ip_network(cidr, strict=False)
        if not net.subnet_of(self.cluster) and not self.cluster.subnet_of(net):  # type: ignore[arg-type]
            raise ValueError(f"cidr {cidr} is out of the range of cluster cidr {self.cluster}")
        return (int(net.network_address) - int(self.cluster.network_address)) // self._step

    def allocate_next(self) -> str:
        """``AllocateNext``: the first free block from ``next_candidate`` on, wrapping around.

        Raises
        ------
        CIDRRangeExhausted
        """
        for i in range(self.max_cidrs):
            candidate = (self.next_candidate + i) % self.max_cidrs
            if candidate not in self.used:
                self.used.add(candidate)
                self.next_candidate = (candidate + 1) % self.max_cidrs
                return self._cidr(candidate)
        raise CIDRRangeExhausted()

    def occupy(self, cidr: str) -> None:
        """``Occupy``: mark the blocks ``cidr`` covers as used.

        Parameters
        ----------
        cidr : str
            A block inside the cluster CIDR (any size).
        """
        net = ipaddress.ip_network(cidr, strict=False)
        if net.prefixlen >= self.node_mask_size:
            self.used.add(self._index(cidr))
            return
        first = self._index(str(net))
        for i in range(1 << (self.node_mask_size - net.prefixlen)):
            if 0 <= first + i < self.max_cidrs:
                self.used.add(first + i)

    def release(self, cidr: str) -> None:
        """``Release``: the block is free again (``next_candidate`` is not moved back).

        Parameters
        ----------
        cidr : str
        """
        self.used.discard(self._index(cidr))


class NodeIpamController(Controller):
    """``nodeipam.Controller`` with the ``RangeAllocator``.

    Options: ``allocate-node-cidrs`` (True here), ``cluster-cidr``
    (``10.244.0.0/16``, several comma-separated for dual stack),
    ``node-cidr-mask-size-ipv4`` (24) / ``node-cidr-mask-size-ipv6`` (64), or
    ``node-cidr-mask-size`` for single stack.

    Attributes
    ----------
    cidr_sets : list[CIDRSet]

    Notes
    -----
    Simplified: the service range is not filtered out of the cluster CIDR;
    assignments are written from the workqueue worker (upstream hands them to
    30 update workers over a channel).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/nodeipam/ipam/range_allocator.go
    """

    name = "node-ipam-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        """Read the flags, build the CIDR sets and register the Node handlers."""
        self.enabled = bool(self.option("allocate-node-cidrs", True))
        cidrs = [c.strip() for c in str(self.option("cluster-cidr", DEFAULT_CLUSTER_CIDR)).split(",") if c.strip()]
        self.cidr_sets: list[CIDRSet] = []
        single = self.option("node-cidr-mask-size", None)
        for c in cidrs:
            v6 = ipaddress.ip_network(c, strict=False).version == 6
            if single is not None and len(cidrs) == 1:
                mask = int(single)
            elif v6:
                mask = int(self.option("node-cidr-mask-size-ipv6", DEFAULT_NODE_CIDR_MASK_SIZE_IPV6))
            else:
                mask = int(self.option("node-cidr-mask-size-ipv4", DEFAULT_NODE_CIDR_MASK_SIZE_IPV4))
            self.cidr_sets.append(CIDRSet(c, mask))
        self.cidr_recorder = EventRecorder(self.client, CIDR_ALLOCATOR_COMPONENT)
        self.nodes_in_processing: set[str] = set()
        self._occupied_at_start = False
        self.node_informer = self.informers.informer_for("nodes")
        if not self.enabled:
            return
        self.node_informer.add_event_handler(self._on_add, self._on_update, self._on_delete)

    def _on_add(self, node: dict) -> None:
        self.enqueue(node["metadata"]["name"])

    def _on_update(self, old: dict, new: dict) -> None:
        if not (new.get("spec") or {}).get("podCIDRs"):
            self.enqueue(new["metadata"]["name"])
        else:
            self.nodes_in_processing.discard(new["metadata"]["name"])

    def _on_delete(self, obj: Any) -> None:
        node = unwrap_deleted(obj)
        if node is not None:
            self.nodes_in_processing.discard(node["metadata"]["name"])
            self.release_cidr(node)

    def _occupy_existing(self) -> None:
        # NewCIDRRangeAllocator: mark the CIDRs of nodes listed at start as used.
        self._occupied_at_start = True
        for node in sorted(self.node_informer.lister.list(), key=lambda n: n["metadata"]["name"]):
            self._occupy_cidrs(node)

    def _occupy_cidrs(self, node: dict) -> None:
        for idx, cidr in enumerate((node.get("spec") or {}).get("podCIDRs") or []):
            if idx < len(self.cidr_sets):
                try:
                    self.cidr_sets[idx].occupy(cidr)
                except ValueError:
                    pass

    def release_cidr(self, node: dict) -> None:
        """``ReleaseCIDR``: a deleted node's blocks become free.

        Parameters
        ----------
        node : dict
            The deleted node.
        """
        for idx, cidr in enumerate((node.get("spec") or {}).get("podCIDRs") or []):
            if idx < len(self.cidr_sets):
                try:
                    self.cidr_sets[idx].release(cidr)
                except ValueError:
                    pass

    def reconcile(self, key: str) -> Result | None:
        """``AllocateOrOccupyCIDR`` then ``updateCIDRsAllocation`` for one node."""
        if not self._occupied_at_start:
            self._occupy_existing()
        node = self.node_informer.lister.get("", key)
        if node is None:
            return None
        if (node.get("spec") or {}).get("podCIDRs"):
            self._occupy_cidrs(node)
            return None
        if key in self.nodes_in_processing:  # insertNodeToProcessing: an assignment is on its way
            return None
        allocated = []
        for s in self.cidr_sets:
            try:
                allocated.append(s.allocate_next())
            except CIDRRangeExhausted:
                for i, c in enumerate(allocated):
                    self.cidr_sets[i].release(c)
                record_node_status_change(self.cidr_recorder, node, "CIDRNotAvailable")
                return None
        return self._update_cidrs_allocation(key, allocated)

    def _update_cidrs_allocation(self, name: str, cidrs: list[str]) -> Result | None:
        node = self.node_informer.lister.get("", name)
        if node is None:
            for i, c in enumerate(cidrs):
                self.cidr_sets[i].release(c)
            return None
        have = (node.get("spec") or {}).get("podCIDRs") or []
        if have == cidrs:
            return None
        if have:
            for i, c in enumerate(cidrs):
                self.cidr_sets[i].release(c)
            return None
        err: ApiError | None = None
        for _ in range(CIDR_UPDATE_RETRIES):
            try:
                self.client.patch("nodes", name, {"spec": {"podCIDR": cidrs[0], "podCIDRs": cidrs}})
                self.nodes_in_processing.add(name)
                return None
            except ApiError as e:
                err = e
        record_node_status_change(self.cidr_recorder, node, "CIDRAssignmentFailed")
        for i, c in enumerate(cidrs):
            self.cidr_sets[i].release(c)
        if err is not None:
            raise err
        return None
