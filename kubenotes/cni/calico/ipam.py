"""Calico IPAM: IPPools cut into blocks, blocks affine to nodes, pod addresses from the node's blocks.

Mirrors ``projectcalico/calico`` ``libcalico-go/lib/ipam`` (``ipam.go``,
``ipam_block.go``, ``ipam_block_reader_writer.go``): an :class:`IPPool`
(``crd.projectcalico.org/v1`` / ``projectcalico.org/v3`` ``IPPool``) is split
into blocks of ``2**(32 - blockSize)`` addresses (a /26, 64 addresses, by
default). A node that needs an address and has no block with a free one
*claims* an unclaimed block (the block's ``affinity`` becomes
``host:<node>``); its pods' addresses come from its own blocks, lowest free
ordinal first. When the pool has no unclaimed block left, a node *borrows* an
address from another node's block (unless ``strictAffinity`` is on). The
tunnel device of each node (``vxlan.calico`` or ``tunl0``) gets its address
from IPAM too, so it usually holds the first address of the node's first block.

Notes
-----
Simplified compared with upstream: there is no datastore and no
compare-and-swap (one process owns every block); blocks are never released
back to the pool (upstream releases an empty block's affinity when asked);
the starting block of a node's search uses the FNV-1 32-bit hash of the node
name directly as the index, where upstream seeds Go's ``math/rand`` with that
hash (``randomBlockGenerator``), so the blocks differ from a real cluster's
but are stable per node name; IPv6 pools, ``nodeSelector``, ``allowedUses``,
reserved addresses (``IPReservation``) and Windows' reserved block addresses
are left out.

References
----------
projectcalico/calico@v3.30.0 libcalico-go/lib/ipam/ipam.go (autoAssign, AssignIP, ReleaseIPs)
projectcalico/calico@v3.30.0 libcalico-go/lib/ipam/ipam_block_reader_writer.go (randomBlockGenerator, claimAffineBlock)
projectcalico/calico@v3.30.0 libcalico-go/lib/ipam/ipam_block.go (newBlock, autoAssign)
projectcalico/calico@v3.30.0 api/pkg/apis/projectcalico/v3/ippool.go (IPPoolSpec, defaults)
https://docs.tigera.io/calico/latest/reference/resources/ippool
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Iterator

from kubenotes.errors import KubenotesError

__all__ = [
    "DEFAULT_IPV4_POOL_CIDR",
    "DEFAULT_IPV4_POOL_NAME",
    "DEFAULT_BLOCK_SIZE",
    "ENCAP_MODES",
    "IPPool",
    "Block",
    "IPAMError",
    "CalicoIPAM",
    "fnv1_32",
    "random_block_generator",
    "vxlan_tunnel_handle",
    "ipip_tunnel_handle",
]

#: ``CALICO_IPV4POOL_CIDR`` default of calico-node (the commented value in calico.yaml).
DEFAULT_IPV4_POOL_CIDR = "192.168.0.0/16"
#: Name calico-node gives the pool it creates at start-up.
DEFAULT_IPV4_POOL_NAME = "default-ipv4-ippool"
#: ``IPPoolSpec.BlockSize`` default for IPv4 (a /26: 64 addresses per block).
DEFAULT_BLOCK_SIZE = 26
#: Accepted values of ``ipipMode`` and ``vxlanMode``.
ENCAP_MODES = ("Always", "CrossSubnet", "Never")


class IPAMError(KubenotesError):
    """An address cannot be assigned (pool exhausted, address outside every pool, already in use)."""


def fnv1_32(data: bytes) -> int:
    """FNV-1 32-bit hash (Go's ``hash/fnv.New32``), the seed upstream derives from a node name.

    Examples
    --------
    >>> hex(fnv1_32(b""))
    '0x811c9dc5'
    >>> hex(fnv1_32(b"a"))
    '0x50c5d7e'
    """
    h = 0x811C9DC5
    for b in data:
        h = (h * 0x01000193) & 0xFFFFFFFF
        h ^= b
    return h


@dataclass(frozen=True)
class IPPool:
    """A Calico ``IPPool`` (``spec`` fields in snake_case).

    Parameters
    ----------
    name : str
    cidr : str
        IPv4 network, e.g. ``192.168.0.0/16``.
    block_size : int
        Prefix length of a block (default 26); 20..32 for IPv4.
    ipip_mode, vxlan_mode : str
        ``Always``, ``CrossSubnet`` or ``Never``; at most one of them not ``Never``.
    nat_outgoing : bool
        Masquerade traffic from pods to destinations outside every pool (default true).
    disabled : bool

    Raises
    ------
    IPAMError
        For a malformed CIDR, a block size out of range, an unknown mode, or
        both encapsulations enabled (upstream's validation refuses that too).

    Examples
    --------
    >>> p = IPPool()
    >>> p.cidr, p.block_size, p.ipip_mode, p.vxlan_mode, p.nat_outgoing, p.block_count
    ('192.168.0.0/16', 26, 'Always', 'Never', True, 1024)
    """

    name: str = DEFAULT_IPV4_POOL_NAME
    cidr: str = DEFAULT_IPV4_POOL_CIDR
    block_size: int = DEFAULT_BLOCK_SIZE
    ipip_mode: str = "Always"
    vxlan_mode: str = "Never"
    nat_outgoing: bool = True
    disabled: bool = False

    def __post_init__(self) -> None:
        try:
            net = ipaddress.IPv4Network(self.cidr, strict=True)
        except ValueError as e:
            raise IPAMError(f"IPPool {self.name}: spec.cidr: invalid IPv4 CIDR {self.cidr!r} ({e})") from None
        if not (20 <= self.block_size <= 32) or self.block_size < net.prefixlen:
            raise IPAMError(f"IPPool {self.name}: spec.blockSize: {self.block_size} must be in "
                            f"[{max(20, net.prefixlen)}, 32] for {self.cidr}")
        for fname, v in (("ipipMode", self.ipip_mode), ("vxlanMode", self.vxlan_mode)):
            if v not in ENCAP_MODES:
                raise IPAMError(f"IPPool {self.name}: spec.{fname}: unsupported value {v!r} "
                                f"(one of {', '.join(ENCAP_MODES)})")
        if self.ipip_mode != "Never" and self.vxlan_mode != "Never":
            raise IPAMError(f"IPPool {self.name}: spec: IPIP and VXLAN cannot both be enabled on one pool")

    @property
    def network(self) -> ipaddress.IPv4Network:
        return ipaddress.IPv4Network(self.cidr)

    @property
    def block_count(self) -> int:
        """Number of blocks in the pool."""
        return 2 ** (self.block_size - self.network.prefixlen)

    def to_manifest(self) -> dict:
        """The pool as ``calicoctl get ippool -o yaml`` prints it (``projectcalico.org/v3``)."""
        return {"apiVersion": "projectcalico.org/v3", "kind": "IPPool", "metadata": {"name": self.name},
                "spec": {"cidr": self.cidr, "blockSize": self.block_size, "ipipMode": self.ipip_mode,
                         "vxlanMode": self.vxlan_mode, "natOutgoing": self.nat_outgoing,
                         "nodeSelector": "all()", "allowedUses": ["Workload", "Tunnel"]}}


def random_block_generator(pool: IPPool, host: str) -> Iterator[ipaddress.IPv4Network]:
    """Every block of ``pool`` once, starting at a place derived from ``host`` and wrapping around.

    Upstream starts each node's search at a different block so that nodes
    starting together do not race for the same one.

    Parameters
    ----------
    pool : IPPool
    host : str
        Node name.

    Yields
    ------
    ipaddress.IPv4Network
        Blocks of ``pool.block_size``.

    Examples
    --------
    >>> blocks = list(random_block_generator(IPPool(cidr="10.10.0.0/24"), "testHost"))
    >>> len(blocks), len(set(blocks)), all(b.prefixlen == 26 for b in blocks)
    (4, 4, True)
    """
    net = pool.network
    n = pool.block_count
    size = 2 ** (32 - pool.block_size)
    start = fnv1_32(host.encode()) % n
    base = int(net.network_address)
    for i in range(n):
        idx = (start + i) % n
        yield ipaddress.IPv4Network((base + idx * size, pool.block_size))


@dataclass
class Block:
    """An allocation block (``AllocationBlock``): its CIDR, the node it is affine to and who holds each address.

    Attributes
    ----------
    cidr : ipaddress.IPv4Network
    affinity : str or None
        ``host:<node>`` once claimed.
    allocations : list of (str or None)
        Ordinal -> handle ID holding the address (``None``: free).
    """

    cidr: ipaddress.IPv4Network
    affinity: str | None = None
    allocations: list = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.allocations:
            self.allocations = [None] * self.cidr.num_addresses

    @property
    def host(self) -> str | None:
        return self.affinity[len("host:"):] if self.affinity and self.affinity.startswith("host:") else None

    def free(self) -> int:
        return sum(1 for a in self.allocations if a is None)

    def address(self, ordinal: int) -> str:
        return str(self.cidr.network_address + ordinal)

    def ordinal(self, ip: str) -> int:
        return int(ipaddress.IPv4Address(ip)) - int(self.cidr.network_address)


def vxlan_tunnel_handle(node: str) -> str:
    """Handle ID of a node's ``vxlan.calico`` address (``vxlan-tunnel-addr-<node>``)."""
    return f"vxlan-tunnel-addr-{node}"


def ipip_tunnel_handle(node: str) -> str:
    """Handle ID of a node's ``tunl0`` address (``ipip-tunnel-addr-<node>``)."""
    return f"ipip-tunnel-addr-{node}"


class CalicoIPAM:
    """Calico's IPAM over one or more pools: ``auto_assign``, ``assign_ip``, ``release_ips``.

    Parameters
    ----------
    pools : sequence of IPPool
        Searched in order (upstream orders pools by name).
    strict_affinity : bool
        ``IPAMConfig.strictAffinity``: never borrow from another node's block.

    Examples
    --------
    >>> ipam = CalicoIPAM([IPPool(cidr="10.244.0.0/16")])
    >>> ipam.auto_assign("node-a", "pod-1"), ipam.auto_assign("node-a", "pod-2")
    ('10.244.61.192', '10.244.61.193')
    >>> [(str(b.cidr), b.affinity) for b in ipam.blocks.values()]
    [('10.244.61.192/26', 'host:node-a')]
    """

    def __init__(self, pools: list[IPPool] | tuple[IPPool, ...] = (IPPool(),), *, strict_affinity: bool = False):
        self.pools = [p for p in pools if not p.disabled]
        self.strict_affinity = strict_affinity
        #: Block CIDR -> :class:`Block`, in the order blocks were claimed.
        self.blocks: dict[ipaddress.IPv4Network, Block] = {}
        #: Handle ID -> addresses it holds.
        self.handles: dict[str, list[str]] = {}
        #: Log of what happened, as upstream's info logs word it, e.g. ``claimed block 10.0.1.0/26 for node-a``.
        self.events: list[str] = []
        self._handle_node: dict[str, str] = {}

    # -- queries -----------------------------------------------------------------
    def pool_for(self, ip: str) -> IPPool | None:
        """The enabled pool containing ``ip`` (``None`` if none)."""
        addr = ipaddress.IPv4Address(ip)
        return next((p for p in self.pools if addr in p.network), None)

    def block_for(self, ip: str) -> Block | None:
        addr = ipaddress.IPv4Address(ip)
        return next((b for b in self.blocks.values() if addr in b.cidr), None)

    def affine_blocks(self, node: str) -> list[Block]:
        """The blocks claimed by ``node``, in claim order."""
        return [b for b in self.blocks.values() if b.host == node]

    def node_of(self, handle: str) -> str | None:
        """The node an address handle was assigned on."""
        return self._handle_node.get(handle)

    def borrowed(self) -> dict[str, str]:
        """Address -> node that borrowed it from a block affine to another node."""
        out = {}
        for h, ips in self.handles.items():
            for ip in ips:
                b = self.block_for(ip)
                owner = self._handle_node.get(h)
                if b is not None and owner is not None and b.host != owner:
                    out[ip] = owner
        return out

    # -- assignment -------------------------------------------------------------------
    def _record(self, handle: str, node: str, ip: str) -> None:
        self.handles.setdefault(handle, []).append(ip)
        self._handle_node[handle] = node

    def _claim(self, node: str, pool: IPPool) -> Block | None:
        for cidr in random_block_generator(pool, node):
            if cidr not in self.blocks:
                b = Block(cidr, f"host:{node}")
                self.blocks[cidr] = b
                self.events.append(f"claimed block {cidr} for {node}")
                return b
        return None

    def auto_assign(self, node: str, handle: str) -> str:
        """Assign the next free address to ``handle`` on ``node`` (``AutoAssign``, one IPv4 address).

        Order: a free address in the node's affine blocks (oldest block first,
        lowest ordinal first); else a newly claimed block; else, without
        strict affinity, a free address in any other node's block (borrowed).

        Returns
        -------
        str
            The address.

        Raises
        ------
        IPAMError
            When every pool is full (upstream: ``no more free affine blocks``
            with strict affinity).
        """
        if not self.pools:
            raise IPAMError("no configured Calico pools for node " + node)
        for b in self.affine_blocks(node):
            if b.free():
                return self._take(b, node, handle)
        for pool in self.pools:
            b = self._claim(node, pool)
            if b is not None:
                return self._take(b, node, handle)
        if self.strict_affinity:
            raise IPAMError(f"cannot assign an address on {node}: no more free affine blocks and strict affinity set")
        for b in self.blocks.values():
            if b.free():
                ip = self._take(b, node, handle)
                self.events.append(f"{node} borrowed {ip} from block {b.cidr} (affine to {b.host})")
                return ip
        raise IPAMError(f"cannot assign an address on {node}: every block of every pool is full")

    def _take(self, b: Block, node: str, handle: str) -> str:
        i = b.allocations.index(None)
        b.allocations[i] = handle
        ip = b.address(i)
        self._record(handle, node, ip)
        return ip

    def assign_ip(self, node: str, handle: str, ip: str) -> str:
        """Assign a given address (``AssignIP``), claiming its block for ``node`` if unclaimed.

        Raises
        ------
        IPAMError
            When ``ip`` is in no enabled pool or already assigned.
        """
        pool = self.pool_for(ip)
        if pool is None:
            raise IPAMError(f"the address {ip} is not in any enabled IPPool "
                            f"({', '.join(p.cidr for p in self.pools) or 'none'})")
        b = self.block_for(ip)
        if b is None:
            net = ipaddress.IPv4Network((ip, pool.block_size), strict=False)
            b = self.blocks[net] = Block(net, f"host:{node}")
            self.events.append(f"claimed block {net} for {node}")
        i = b.ordinal(ip)
        if b.allocations[i] is not None:
            raise IPAMError(f"the address {ip} is already assigned (handle {b.allocations[i]})")
        b.allocations[i] = handle
        self._record(handle, node, ip)
        if b.host != node:
            self.events.append(f"{node} borrowed {ip} from block {b.cidr} (affine to {b.host})")
        return ip

    def release_ips(self, *ips: str) -> list[str]:
        """Free addresses (``ReleaseIPs``); returns those that were assigned. The blocks stay claimed."""
        done = []
        for ip in ips:
            b = self.block_for(ip)
            if b is None or b.allocations[b.ordinal(ip)] is None:
                continue
            h = b.allocations[b.ordinal(ip)]
            b.allocations[b.ordinal(ip)] = None
            self.handles[h].remove(ip)
            if not self.handles[h]:
                del self.handles[h]
            done.append(ip)
        return done

    def release_by_handle(self, handle: str) -> list[str]:
        """Free every address of ``handle`` (``ReleaseByHandle``, what the CNI plugin's DEL does)."""
        return self.release_ips(*list(self.handles.get(handle, ())))
