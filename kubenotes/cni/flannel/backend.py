"""flanneld's backends: the device each creates on a node and the routes, neighbours and FDB entries it programs.

flanneld, once per node: pick the external interface (``eth0``) and its address
(the *public IP*), let the backend create its device, acquire a lease
(:mod:`kubenotes.cni.flannel.subnet`), write ``/run/flannel/subnet.env``, add the
``--ip-masq`` rules, then, for every other node's lease, program what the
backend needs to reach that node's subnet:

===========  ================  =====  ===================================================================
backend      device            MTU    per remote lease
===========  ================  =====  ===================================================================
vxlan        ``flannel.1``     1450   ARP ``<subnet>.0 lladdr <VTEP MAC> dev flannel.1``, FDB ``<VTEP MAC>
             (VNI 1, UDP              dev flannel.1 dst <public IP>``, route ``<subnet> via <subnet>.0
             8472)                    dev flannel.1 onlink``
host-gw      none (``eth0``)   1500   route ``<subnet> via <public IP> dev eth0``: the peer must be on the
                                      same L2 segment (its public IP on-link)
wireguard    ``flannel-wg``    1420   a WireGuard peer (public key, endpoint ``<public IP>:51820``,
             (UDP 51820)              allowed IPs ``<subnet>``); one route ``<network> dev flannel-wg``
udp          ``flannel0``      1472   nothing in the kernel: flanneld itself reads each packet from the
             (TUN, UDP 8285)          TUN device and sends it in a UDP datagram to the peer's flanneld
===========  ================  =====  ===================================================================

The MTUs are the link's 1500 minus :data:`kubenotes.cni.encap.ENCAP_OVERHEAD_BYTES`
(Flannel takes WireGuard's IPv6 figure, 80, whatever the underlay).

**host-gw without L2 adjacency.** host-gw routes a remote subnet *via the peer's
IP on eth0*; the kernel accepts that only if the gateway is on-link. A peer in
another subnet (behind a router) gives ``Error adding route to ...: network is
unreachable`` in flanneld's log and no route: pod traffic for that node follows
the default route to the router, which knows nothing of pod subnets and drops it
(or, in a cloud, the VPC drops it for failing its source/destination check).
:func:`handle_subnet_events` records the error and programs nothing, so the walk
shows the drop. VXLAN (or vxlan's ``DirectRouting``, which uses host-gw's route
only for peers on the same subnet) works across routers.

**Why udp was slow.** Every packet crosses the kernel/user boundary twice per
node: the kernel routes it to the ``flannel0`` TUN device, flanneld ``read()``\\ s
it, looks up the lease of the destination subnet, and ``sendto()``\\ s it in a UDP
datagram (port 8285); the receiving flanneld ``recvfrom()``\\ s it and ``write()``\\ s
it to its TUN device. Four system calls and two copies per packet, in one
thread, against VXLAN's in-kernel encapsulation: the docs keep it for debugging
only.

Notes
-----
Simplified: IPv4 only; vxlan's ``DirectRouting``, ``GBP``, ``Learning`` and
a configured ``Port``/``VNI`` beyond the defaults are not modelled; WireGuard
keys are derived from a hash of the node name (no cryptography), no PSK;
lease removal (a node leaving) is not handled; the udp backend creates its
device and routes but the packet walk does not follow flanneld's user-space
forwarding.

References
----------
flannel-io/flannel@v0.28.9 pkg/backend/vxlan/vxlan.go, vxlan_network.go, device.go
flannel-io/flannel@v0.28.9 pkg/backend/hostgw/hostgw.go, pkg/backend/route_network.go
flannel-io/flannel@v0.28.9 pkg/backend/wireguard/wireguard.go, wireguard_network.go, device.go
flannel-io/flannel@v0.28.9 pkg/backend/udp/udp_network_amd64.go, udp_amd64.go
flannel-io/flannel@v0.28.9 pkg/trafficmngr/iptables/iptables.go (masqRules)
flannel-io/flannel@v0.28.9 Documentation/backends.md
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
from dataclasses import dataclass, field
from typing import Mapping

from kubenotes.cni.encap import inner_mtu
from kubenotes.cni.flannel.subnet import SUBNET_FILE, Lease, NetConfig, subnet_env
from kubenotes.cni.netns import FdbEntry, Host, Interface, Neighbour, Route, WireGuardPeer, seeded_mac

__all__ = [
    "VXLAN_VNI",
    "VXLAN_PORT",
    "WIREGUARD_DEVICE",
    "WIREGUARD_PORT",
    "UDP_DEVICE",
    "UDP_PORT",
    "BACKEND_ENCAP",
    "BACKEND_MTU_ENCAP",
    "KUBE_PROXY_MARK",
    "FlannelNode",
    "vxlan_device_name",
    "backend_mtu",
    "register_network",
    "complete_lease",
    "masq_rules",
    "handle_subnet_events",
    "backend_summary",
]

#: vxlan ``defaultVNI`` and the kernel's default VXLAN port (flannel passes none).
VXLAN_VNI = 1
VXLAN_PORT = 8472
WIREGUARD_DEVICE = "flannel-wg"
WIREGUARD_PORT = 51820
UDP_DEVICE = "flannel0"
UDP_PORT = 8285
#: Backend -> what a packet to a remote node is wrapped in (a key of ENCAP_OVERHEAD_BYTES), over IPv4.
BACKEND_ENCAP = {"vxlan": "vxlan", "host-gw": "none", "wireguard": "wireguard", "udp": "udp"}
#: Backend -> the overhead its MTU subtracts (Flannel's WireGuard sizes for the IPv6 worst case).
BACKEND_MTU_ENCAP = {**BACKEND_ENCAP, "wireguard": "wireguard-ipv6"}
#: kube-proxy's masquerade mark, which FLANNEL-POSTRTG returns early for.
KUBE_PROXY_MARK = "0x4000/0x4000"


def vxlan_device_name(vni: int = VXLAN_VNI) -> str:
    """``flannel.<VNI>``.

    Examples
    --------
    >>> vxlan_device_name()
    'flannel.1'
    """
    return f"flannel.{vni}"


def backend_mtu(backend_type: str, link_mtu: int = 1500) -> int:
    """The MTU flanneld writes as ``FLANNEL_MTU`` (and gives its device): link MTU minus the backend's overhead.

    Examples
    --------
    >>> [backend_mtu(b) for b in ("vxlan", "host-gw", "wireguard", "udp")]
    [1450, 1500, 1420, 1472]
    """
    return inner_mtu(link_mtu, BACKEND_MTU_ENCAP[backend_type])


@dataclass
class FlannelNode:
    """One node's flanneld: its host state, backend, device and lease, and what it logged.

    Attributes
    ----------
    name : str
    host : Host
        The node's network state, which flanneld and the CNI plugins change.
    public_ip : str
    backend_type : str
    device : str or None
        ``flannel.1``, ``flannel-wg``, ``flannel0``; None for host-gw.
    mtu : int
        ``FLANNEL_MTU``.
    backend_data : dict
        The lease's ``BackendData``.
    lease : Lease or None
    errors : list of str
        flanneld's error log lines (a route it could not add).
    """

    name: str
    host: Host
    public_ip: str
    backend_type: str
    device: str | None
    mtu: int
    backend_data: dict = field(default_factory=dict)
    lease: Lease | None = None
    errors: list[str] = field(default_factory=list)


def _wg_key(*parts: str) -> str:
    return base64.b64encode(hashlib.sha256("\x00".join(("wg",) + parts).encode()).digest()).decode()


def register_network(host: Host, config: NetConfig, *, seed: int = 0) -> FlannelNode:
    """``Backend.RegisterNetwork`` before the lease: the backend's device on ``host`` and the lease's backend data.

    Parameters
    ----------
    host : Host
        The node's state; its ``eth0`` needs an IPv4 address (the public IP).
    config : NetConfig
    seed : int
        Seeds the VTEP MAC and the WireGuard key.

    Returns
    -------
    FlannelNode
        Without a lease yet.

    Raises
    ------
    ValueError
        When ``eth0`` has no address.

    Examples
    --------
    >>> from kubenotes.cni.flannel.subnet import parse_net_config
    >>> h = Host("n1", eth0_address="10.0.0.11/24")
    >>> fn = register_network(h, parse_net_config({"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}))
    >>> d = h.root.interfaces["flannel.1"]
    >>> d.kind, d.vni, d.port, d.mtu, d.local, fn.backend_data["VtepMAC"] == d.mac
    ('vxlan', 1, 8472, 1450, '10.0.0.11', True)
    """
    eth0 = host.root.interfaces["eth0"]
    if not eth0.addresses:
        raise ValueError(f"node {host.name}: eth0 has no address (flanneld's public IP)")
    public_ip = str(ipaddress.ip_interface(eth0.addresses[0]).ip)
    bt = config.backend_type
    mtu = backend_mtu(bt, eth0.mtu)
    data: dict = {}
    device: str | None = None
    if bt == "vxlan":
        device = vxlan_device_name()
        mac = seeded_mac(seed, host.name, device)
        host.root.interfaces[device] = Interface(device, "vxlan", mac, mtu, up=True, vni=VXLAN_VNI, port=VXLAN_PORT,
                                                 local=public_ip)
        data = {"VNI": VXLAN_VNI, "VtepMAC": mac}
    elif bt == "wireguard":
        device = WIREGUARD_DEVICE
        host.root.interfaces[device] = Interface(device, "wireguard", mtu=mtu, up=True, port=WIREGUARD_PORT)
        data = {"PublicKey": _wg_key(str(seed), host.name), "Port": WIREGUARD_PORT}
    elif bt == "udp":
        device = UDP_DEVICE
        host.root.interfaces[device] = Interface(device, "tun", mtu=mtu, up=True, port=UDP_PORT)
    return FlannelNode(host.name, host, public_ip, bt, device, mtu, data)


def masq_rules(cluster_cidr: str, pod_cidr: str) -> list[tuple[str, str]]:
    """``--ip-masq``: flanneld's NAT rules as ``(chain, rule)`` (iptables with ``--random-fully``).

    Pod traffic leaving the pod network is masqueraded; traffic within it is not.

    Examples
    --------
    >>> [c for c, _ in masq_rules("10.244.0.0/16", "10.244.1.0/24")][:2]
    ['POSTROUTING', 'FLANNEL-POSTRTG']
    >>> masq_rules("10.244.0.0/16", "10.244.1.0/24")[5][1]
    '-s 10.244.0.0/16 ! -d 224.0.0.0/4 -m comment --comment "flanneld masq" -j MASQUERADE --random-fully'
    """
    c = '-m comment --comment "flanneld masq"'
    return [("POSTROUTING", f"{c} -j FLANNEL-POSTRTG"),
            ("FLANNEL-POSTRTG", f"-m mark --mark {KUBE_PROXY_MARK} {c} -j RETURN"),
            ("FLANNEL-POSTRTG", f"-s {pod_cidr} -d {cluster_cidr} {c} -j RETURN"),
            ("FLANNEL-POSTRTG", f"-s {cluster_cidr} -d {pod_cidr} {c} -j RETURN"),
            ("FLANNEL-POSTRTG", f"! -s {cluster_cidr} -d {pod_cidr} {c} -j RETURN"),
            ("FLANNEL-POSTRTG", f"-s {cluster_cidr} ! -d 224.0.0.0/4 {c} -j MASQUERADE --random-fully"),
            ("FLANNEL-POSTRTG", f"! -s {cluster_cidr} -d {cluster_cidr} {c} -j MASQUERADE --random-fully")]


def complete_lease(node: FlannelNode, lease: Lease, config: NetConfig, *, ip_masq: bool = True) -> None:
    """After ``AcquireLease``: the device's /32 address, WireGuard's network route, ``subnet.env``, the masq rules.

    Parameters
    ----------
    node : FlannelNode
    lease : Lease
    config : NetConfig
    ip_masq : bool
        flanneld's ``--ip-masq`` (kube-flannel.yml sets it; ``FLANNEL_IPMASQ``).

    Returns
    -------
    None
        ``node.lease`` is set and ``node.host`` changed.

    Raises
    ------
    None
    """
    node.lease = lease
    root = node.host.root
    first = str(ipaddress.IPv4Network(lease.subnet).network_address)
    if node.device in (vxlan_device_name(), WIREGUARD_DEVICE):
        dev = root.interfaces[node.device]
        if f"{first}/32" not in dev.addresses:
            dev.addresses.append(f"{first}/32")
        if node.device == WIREGUARD_DEVICE:
            root.replace_route(Route(config.network, dev=WIREGUARD_DEVICE, scope="link"))
    elif node.device == UDP_DEVICE:
        root.interfaces[UDP_DEVICE].addresses.append(f"{first}/{ipaddress.IPv4Network(config.network).prefixlen}")
        root.replace_route(Route(config.network, dev=UDP_DEVICE, proto="kernel", scope="link", src=first))
    node.host.files[SUBNET_FILE] = subnet_env(config, lease.subnet, node.mtu, ip_masq).encode()
    if ip_masq:
        for chain, rule in masq_rules(config.network, lease.subnet):
            node.host.append_rule(chain, rule)


def _on_link(host: Host, ip: str) -> bool:
    eth0 = host.root.interfaces["eth0"]
    return any(ipaddress.IPv4Address(ip) in ipaddress.ip_interface(a).network for a in eth0.addresses)


def handle_subnet_events(node: FlannelNode, leases: list[Lease] | Mapping[str, Lease]) -> list[str]:
    """Program what the backend needs for each other node's lease (``EventAdded``); return what was done.

    Parameters
    ----------
    node : FlannelNode
        With its own lease (other leases of its public IP are skipped).
    leases : list of Lease
        Every lease the subnet manager holds.

    Returns
    -------
    list of str
        One line per change (``ip route``/``ip neigh``/``bridge fdb``/``wg`` forms), or the error
        flanneld logged (host-gw's unreachable gateway; a lease of another backend type).

    Examples
    --------
    >>> from kubenotes.cni.flannel.subnet import parse_net_config
    >>> cfg = parse_net_config({"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}})
    >>> a = register_network(Host("a", eth0_address="10.0.0.11/24"), cfg)
    >>> complete_lease(a, Lease("10.244.1.0/24", "10.0.0.11", "host-gw"), cfg)
    >>> handle_subnet_events(a, [Lease("10.244.2.0/24", "10.0.0.12", "host-gw"),
    ...                          Lease("10.244.3.0/24", "10.0.1.13", "host-gw")])
    ['10.244.2.0/24 via 10.0.0.12 dev eth0', 'Error adding route to 10.244.3.0/24 via 10.0.1.13: network is unreachable']
    """
    done: list[str] = []
    root = node.host.root
    for lease in (leases.values() if isinstance(leases, Mapping) else leases):
        if lease.public_ip == node.public_ip:
            continue
        if lease.backend_type != node.backend_type:
            done.append(f"ignoring non-{node.backend_type} subnet({lease.subnet}): type={lease.backend_type}")
            node.errors.append(done[-1])
            continue
        sn = ipaddress.IPv4Network(lease.subnet)
        if node.backend_type == "vxlan":
            mac = lease.backend_data.get("VtepMAC", "")
            neigh = Neighbour(str(sn.network_address), mac, node.device or "")
            fdb = FdbEntry(mac, node.device or "", lease.public_ip)
            route = Route(str(sn), gw=str(sn.network_address), dev=node.device, onlink=True)
            root.set_neighbour(neigh)
            root.set_fdb(fdb)
            root.replace_route(route)
            done += [str(neigh), str(fdb), str(route)]
        elif node.backend_type == "host-gw":
            if not _on_link(node.host, lease.public_ip):
                done.append(f"Error adding route to {sn} via {lease.public_ip}: network is unreachable")
                node.errors.append(done[-1])
                continue
            route = Route(str(sn), gw=lease.public_ip, dev="eth0")
            root.replace_route(route)
            done.append(str(route))
        elif node.backend_type == "wireguard":
            dev = root.interfaces[WIREGUARD_DEVICE]
            port = int(lease.backend_data.get("Port") or WIREGUARD_PORT)
            peer = WireGuardPeer(lease.backend_data.get("PublicKey", ""), f"{lease.public_ip}:{port}", (str(sn),))
            dev.wg_peers = [p for p in dev.wg_peers if p.public_key != peer.public_key] + [peer]
            done.append(f"wg set {WIREGUARD_DEVICE} peer {peer.public_key} endpoint {peer.endpoint} "
                        f"allowed-ips {sn}")
    return done


def backend_summary(link_mtu: int = 1500) -> list[dict]:
    """One row per backend, for a comparison table: device, ports, MTU, bytes added between nodes, L2 need, in kernel.

    Parameters
    ----------
    link_mtu : int
        The nodes' ``eth0`` MTU.

    Returns
    -------
    list of dict
        ``{"backend", "device", "udpPort", "mtu", "overheadBytes", "needsL2Adjacency", "inKernel", "encrypted"}``;
        ``overheadBytes`` over an IPv4 underlay (:data:`BACKEND_ENCAP`), the MTU as flanneld sets it.

    Examples
    --------
    >>> [(r["backend"], r["mtu"], r["overheadBytes"], r["needsL2Adjacency"]) for r in backend_summary()]
    [('vxlan', 1450, 50, False), ('host-gw', 1500, 0, True), ('wireguard', 1420, 60, False), ('udp', 1472, 28, False)]
    """
    from kubenotes.cni.encap import overhead_bytes

    devices = {"vxlan": (vxlan_device_name(), VXLAN_PORT), "host-gw": ("eth0", None),
               "wireguard": (WIREGUARD_DEVICE, WIREGUARD_PORT), "udp": (UDP_DEVICE, UDP_PORT)}
    return [{"backend": b, "device": devices[b][0], "udpPort": devices[b][1], "mtu": backend_mtu(b, link_mtu),
             "overheadBytes": overhead_bytes(BACKEND_ENCAP[b]), "needsL2Adjacency": b == "host-gw",
             "inKernel": b != "udp", "encrypted": b == "wireguard"} for b in BACKEND_ENCAP]
