"""A packet's walk over the node-network model: routes, bridges, veths, neighbours, FDB, tunnels, the underlay.

The walk reads only :class:`kubenotes.cni.netns.Host` state (what the CNI
plugins and a network daemon wrote through CNI ADD and netlink), never a
plugin's own objects, so any plugin that writes Host state gets walks: the
reference ``bridge``/``ptp`` plugins, Flannel (:mod:`kubenotes.cni.flannel`),
a new one. At each namespace the kernel's decisions are applied in order:

1. the destination is one of the namespace's addresses: delivered;
2. the longest-prefix route (``ip route``), then by the output device's kind:

   * ``veth``: the frame appears on the peer end; a peer enslaved to a bridge
     is switched (to the bridge itself when the next hop is its address, else
     to the port whose pod owns the destination), else routed in the peer's
     namespace;
   * ``bridge``: switched to the port whose pod owns the destination;
   * ``vxlan``: the next hop's neighbour entry gives the remote VTEP MAC, the
     FDB entry of that MAC the remote VTEP's IP; the packet is wrapped (outer
     IPv4, UDP to the device's port, VXLAN with its VNI, inner Ethernet) and the
     outer packet is routed; the node owning that IP hands it to its vxlan
     device of the same VNI and port, which unwraps it;
   * ``wireguard``: the peer whose allowed IPs hold the destination gives the
     endpoint; the packet is encrypted into UDP and unwrapped by the endpoint
     node's WireGuard device listening on that port;
   * ``device`` (``eth0``): onto the underlay towards the next hop (the
     route's gateway, else the destination): a node whose ``eth0`` has that
     address on the same segment takes it and routes it on; any other gateway
     is the segment's router, which forwards packets addressed to a node and
     drops the rest (it has no routes for pod subnets);

3. leaving a device larger than its MTU drops the packet (DF set); a host
   that forwards (a packet from elsewhere leaving again) needs
   ``net.ipv4.ip_forward=1``.

Encapsulation sizes come from :data:`kubenotes.cni.encap.ENCAP_OVERHEAD_BYTES`.

Notes
-----
Scope, honestly: IPv4, one packet one way. NAT is applied only as the
caller's ``dnat`` table or hook (kube-proxy's choice of a Service endpoint, given by
:func:`kubenotes.sim.network.node_packet_walk` or
:func:`kubenotes.cni.calico.packet.service_dnat_hook`), not read from the hosts'
iptables rules; masquerading is not applied (pod-to-pod traffic inside the pod
network is not masqueraded by bridge with ``ipMasq: false``, by Flannel's
``FLANNEL-POSTRTG`` nor by Calico's ``natOutgoing``, so the walk is exact for it).
NetworkPolicy is not read from the hosts' filter rules either: the caller's
``policy_hook`` gives the verdicts (Felix's, :func:`kubenotes.cni.calico.packet.felix_policy_hook`),
asked at the source's egress and the destination's ingress where a pod's veth meets
the host's routing. The user-space forwarding of Flannel's udp
backend (``tun`` devices) is not followed. Calico's walk
(:func:`kubenotes.cni.calico.packet.walk_packet`) is this walk over the Host state Calico
writes (:func:`kubenotes.cni.calico.dataplane.node_hosts`), worded its own way from ``trace``.

Also followed: ``ipip`` devices (``tunl0``: the route's gateway is the remote end, one outer
IPv4 header, protocol 4; any ``ipip`` device of the node owning that address unwraps it),
proxy ARP (a pod's next hop no interface has, answered by the host end of its veth when
``net.ipv4.conf.<veth>.proxy_arp`` is 1, as for Calico's ``169.254.1.1``; without it the
host end must have the address, as ptp's does) and ``blackhole`` routes (dropped).

References
----------
torvalds/linux net/ipv4/fib_trie.c (longest-prefix match), drivers/net/vxlan (FDB lookup, encapsulation),
net/ipv4/ipip.c (IP-in-IP), net/ipv4/arp.c (arp_fwd_proxy: proxy_arp)
https://datatracker.ietf.org/doc/html/rfc7348 (VXLAN); https://datatracker.ietf.org/doc/html/rfc2003 (IP in IP); https://www.wireguard.com/protocol/
"""

from __future__ import annotations

import hashlib
import ipaddress
from typing import Any, Callable, Mapping, Union

from kubenotes.cni.encap import overhead_bytes
from kubenotes.cni.netns import HOST_NETNS, Host, Interface, NetNS, Route
from kubenotes.errors import KubenotesError

__all__ = ["WalkError", "DEFAULT_PACKET_BYTES", "EGRESS", "INGRESS", "PolicyHook", "DnatHook", "lookup_route",
           "find_address", "walk_packet"]

#: Default size of the IP packet the source sends (fits a 1450-byte overlay MTU).
DEFAULT_PACKET_BYTES = 1400
_MAX_HOPS = 64


#: Directions a :data:`PolicyHook` is asked about (NetworkPolicy's ``policyTypes`` spelling).
EGRESS = "Egress"
INGRESS = "Ingress"
#: ``hook(direction, src_ip, dst_ip, protocol, dport) -> verdict`` (a dict with at least ``allowed``; Calico's is
#: :meth:`kubenotes.cni.calico.policy.Verdict.to_dict`), or None when nothing enforces policy at that end.
PolicyHook = Callable[[str, str, str, str, int], Union[dict, None]]
#: ``hook(host, dst_ip, dport) -> (new ip, new port, why)`` or None: destination NAT where the packet enters a host's
#: namespace (kube-proxy's ``nat PREROUTING``); a new ip of ``""`` rejects the packet (a Service without endpoints).
DnatHook = Callable[[str, str, int], Union[tuple, None]]


class WalkError(KubenotesError):
    """Bad walk input: an address no namespace has, a size out of range."""


def lookup_route(ns: NetNS, dst: str) -> Route | None:
    """The route the kernel picks for ``dst`` in ``ns``: longest prefix first, the first of equal ones.

    Examples
    --------
    >>> ns = NetNS("/x", routes=[Route("0.0.0.0/0", gw="10.0.0.1", dev="eth0"), Route("10.0.0.0/24", dev="eth0")])
    >>> str(lookup_route(ns, "10.0.0.7")), str(lookup_route(ns, "8.8.8.8"))
    ('10.0.0.0/24 dev eth0', 'default via 10.0.0.1 dev eth0')
    """
    ip = ipaddress.ip_address(dst)
    best: Route | None = None
    best_len = -1
    for r in ns.routes:
        net = ipaddress.ip_network(r.dst, strict=False)
        if net.version == ip.version and ip in net and net.prefixlen > best_len:
            best, best_len = r, net.prefixlen
    return best


def _has_address(iface: Interface, ip: str) -> bool:
    return any(str(ipaddress.ip_interface(a).ip) == ip for a in iface.addresses)


def find_address(hosts: Mapping[str, Host], ip: str) -> tuple[str, str, str] | None:
    """``(host name, netns path, interface)`` of the first namespace with address ``ip`` (pod namespaces first).

    Examples
    --------
    >>> h = Host("n1", eth0_address="10.0.0.11/24")
    >>> find_address({"n1": h}, "10.0.0.11")
    ('n1', '/proc/1/ns/net', 'eth0')
    """
    for name, host in hosts.items():
        for ns in [*host.namespaces.values(), host.root]:
            for iface in ns.interfaces.values():
                if iface.kind != "loopback" and _has_address(iface, ip):
                    return name, ns.path, iface.name
    return None


def _eth0_ip(host: Host) -> str | None:
    eth0 = host.root.interfaces.get("eth0")
    return str(ipaddress.ip_interface(eth0.addresses[0]).ip) if eth0 is not None and eth0.addresses else None


def _port(*parts: Any) -> int:
    h = int.from_bytes(hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()[:4], "big")
    return 32768 + h % (61000 - 32768)


def walk_packet(hosts: Mapping[str, Host], src_ip: str, dst_ip: str, *, size_bytes: int = DEFAULT_PACKET_BYTES,
                protocol: str = "TCP", dport: int = 80, seed: int = 0, labels: Mapping[tuple[str, str], str] | None = None,
                policy: list | None = None, dnat: Mapping[str, tuple[str, int, str]] | DnatHook | None = None,
                policy_hook: PolicyHook | None = None, sport: int | None = None,
                trace: list | None = None) -> dict:
    """Walk one IPv4 packet from the namespace holding ``src_ip`` to ``dst_ip`` over the hosts' network state.

    Parameters
    ----------
    hosts : mapping of str to Host
        Every node's state, by node name.
    src_ip, dst_ip : str
        Source (an address of some namespace, normally a pod's ``eth0``) and destination.
    size_bytes : int
        Length of the IP packet sent.
    protocol : str
        ``TCP``, ``UDP`` or ``SCTP`` (for the header lines).
    dport : int
        Destination port; the source port is drawn from ``seed``.
    seed : int
    labels : mapping, optional
        ``(host, netns path) -> name`` shown in hops (``default/client``); the path otherwise.
    policy : list, optional
        Notes on what the network enforces, reported as is (first in the result's ``policy``).
    dnat : mapping or callable, optional
        ``"<ip>:<port>" -> (new ip, new port, why)``: destination NAT applied (once) where the packet
        enters a host's namespace (PREROUTING), e.g. kube-proxy's choice for a Service port; or a
        :data:`DnatHook` asked there (:func:`kubenotes.cni.calico.packet.service_dnat` behind it).
    policy_hook : callable, optional
        A :data:`PolicyHook` asked at the source's egress (the packet has left the source pod's veth
        into the host's namespace, after DNAT) and at the destination's ingress (before the host
        routes it into the destination pod's veth); its verdicts are appended to ``policy`` and a
        verdict with ``allowed`` False drops the packet there (Felix's ``cali-fw-``/``cali-tw-``
        chains). Asked only where a pod's veth meets the host's routing (routed pods: Calico, ptp);
        bridged ports are not asked.
    sport : int, optional
        The source port (default: drawn from ``seed``).
    trace : list, optional
        Filled with one record per hop: ``step`` (``send``, ``veth-out``, ``dnat``, ``reject``,
        ``policy``, ``veth-in``, ``encap``, ``underlay``, ``decap``, ``direct``, ``received``,
        ``router-forward``, ``router-drop``, ``deliver`` or a drop), ``host``, and the step's
        objects (``route``, ``out_route``, ``verdict``, ``remote``, ``to``, ``encap``...), for a
        caller that words the hops its own way (:func:`kubenotes.cni.calico.packet.walk_packet`).

    Returns
    -------
    dict
        ``{"hops": [{"at", "action", "headers", "bytes"}], "overheadBytes": int, "mtu": int,
        "delivered": bool, "allowed": bool, "policy": list}`` (``allowed``: no verdict dropped it); ``at`` is ``<host>/<interface>`` or
        ``<host>/<label>:<interface>`` in a pod's namespace; a dropped packet's last hop says why.

    Raises
    ------
    WalkError
        No namespace has ``src_ip``; a size below the headers or above the source's MTU.

    Examples
    --------
    Two pods on one bridge (the reference ``bridge`` plugin's state; no encapsulation):

    >>> from kubenotes.cni.manager import CNIManager, default_conflist, pod_ips
    >>> m = CNIManager("n1", default_conflist("10.244.1.0/24"))
    >>> a = pod_ips(m.setup_pod_network("default", "a", "sa", "/var/run/netns/a"))[0]
    >>> b = pod_ips(m.setup_pod_network("default", "b", "sb", "/var/run/netns/b"))[0]
    >>> w = walk_packet({"n1": m.host}, a, b, size_bytes=1000)
    >>> [h["at"] for h in w["hops"]], w["delivered"], w["overheadBytes"]
    (['n1//var/run/netns/a:eth0', 'n1/cni0', 'n1//var/run/netns/b:eth0'], True, 0)
    """
    labels = dict(labels or {})
    start = find_address(hosts, src_ip)
    if start is None:
        raise WalkError(f"no network namespace has the address {src_ip}")
    host_name, path, src_if = start
    src_ns_path = (host_name, path)
    ns = hosts[host_name].netns(path)
    mtu = ns.interfaces[src_if].mtu
    l4 = {"TCP": 20, "UDP": 8, "SCTP": 12}.get(protocol, 8)
    if not 20 + l4 <= size_bytes <= mtu:
        raise WalkError(f"size_bytes must be between {20 + l4} and the source's MTU {mtu}, got {size_bytes}")
    sport = _port(seed, src_ip, dst_ip, dport) if sport is None else sport
    inner = [f"IPv4 {src_ip} > {dst_ip} {protocol}", f"{protocol} {sport} > {dport}"]
    hops: list[dict] = []
    state = {"overhead": 0, "delivered": False}

    def where(h: str, p: str, iface: str) -> str:
        return f"{h}/{iface}" if p == HOST_NETNS else f"{h}/{labels.get((h, p), p)}:{iface}"

    def hop(at: str, action: str, headers: list[str], n: int, step: str = "drop", **info: Any) -> None:
        hops.append({"at": at, "action": action, "headers": list(headers), "bytes": n})
        if trace is not None:
            trace.append({"step": step, "host": at.split("/", 1)[0], "at": at, "headers": list(headers), "bytes": n,
                          **info})

    verdicts: list[dict] = []

    def result() -> dict:
        return {"hops": hops, "overheadBytes": state["overhead"], "mtu": mtu, "delivered": state["delivered"],
                "allowed": all(v.get("allowed", True) for v in verdicts), "policy": list(policy or []) + verdicts}

    def judge(direction: str, at: str, prefix: str, **info: Any) -> bool:
        """Ask the policy hook; record its verdict and the hop; False when it drops the packet."""
        v = policy_hook(direction, src_ip, dst_ip, protocol, dport) if policy_hook is not None else None
        if v is None:
            return True
        verdicts.append(v)
        ok = bool(v.get("allowed", True))
        where_ = v.get("chain") or f"{direction.lower()} policy"
        hop(at, f"{prefix}{where_}: " + (v.get("reason") or "allowed" if ok else
                                          f"dropped: {v.get('reason') or 'denied'}"), wire, n, "policy",
            direction=direction, verdict=v, **info)
        return ok

    def pod_on_bridge(h: str, bridge: str, ip: str) -> tuple[str, str, str] | None:
        host = hosts[h]
        for port in host.root.interfaces.values():
            if port.master == bridge and port.peer:
                pns = host.namespaces.get(port.peer[0])
                if pns is not None and any(_has_address(i, ip) for i in pns.interfaces.values()):
                    return port.name, port.peer[0], port.peer[1]
        return None

    def underlay(h: str, next_hop: str, outer_dst: str) -> str | None:
        """The host that takes a frame sent out of ``h``'s eth0 towards ``next_hop`` (the router forwards to nodes)."""
        for name, host in hosts.items():
            if _eth0_ip(host) == next_hop:
                return name
        for name, host in hosts.items():
            if _eth0_ip(host) == outer_dst:
                return name
        return None

    n = size_bytes
    wire = inner
    arrived_from_elsewhere = False
    first = True
    if callable(dnat):
        dnat_hook = dnat
    else:
        table = dict(dnat or {})

        def dnat_hook(_host: str, ip: str, port: int) -> tuple | None:
            return table.pop(f"{ip}:{port}", None)
    pending_egress: str | None = None
    for _ in range(_MAX_HOPS):
        host = hosts[host_name]
        hit = dnat_hook(host_name, dst_ip, dport) if ns.path == HOST_NETNS and arrived_from_elsewhere else None
        if hit is not None:
            new_ip, new_port, why = hit
            if not new_ip:
                hop(hops[-1]["at"], why, wire, n, "reject")
                return result()
            inner = [f"IPv4 {src_ip} > {new_ip} {protocol}", f"{protocol} {sport} > {new_port}"]
            wire = inner
            hop(hops[-1]["at"], why, wire, n, "dnat", dst=new_ip, dport=new_port)
            dst_ip, dport = new_ip, new_port
        if pending_egress is not None:
            if not judge(EGRESS, f"{host_name}/{pending_egress}", ""):
                return result()
            pending_egress = None
        local = next((i for i in ns.interfaces.values() if _has_address(i, dst_ip)), None)
        if local is not None and not first:
            state["delivered"] = True
            hop(where(host_name, ns.path, local.name), f"{dst_ip} is an address of this namespace: delivered", wire, n,
                "deliver")
            return result()
        route = lookup_route(ns, dst_ip)
        if route is not None and route.blackhole:
            hop(where(host_name, ns.path, "-"), f"route '{route}': dropped (a blackhole: the block is this node's "
                f"and no interface has {dst_ip})", wire, n, "blackhole", route=route)
            return result()
        if route is None or route.dev not in ns.interfaces:
            hop(where(host_name, ns.path, src_if if first else "-"), f"no route to {dst_ip}: dropped (ENETUNREACH)",
                wire, n)
            return result()
        dev = ns.interfaces[route.dev]
        if ns.path == HOST_NETNS and arrived_from_elsewhere and host.root.sysctls.get("net.ipv4.ip_forward") != "1":
            hop(f"{host_name}/{dev.name}", "net.ipv4.ip_forward is 0: the kernel drops the forwarded packet", wire, n)
            return result()
        if n > dev.mtu:
            hop(f"{host_name}/{dev.name}", f"{n} bytes exceed {dev.name}'s MTU {dev.mtu}: dropped (DF set; "
                "ICMP fragmentation needed back to the sender)", wire, n)
            return result()
        next_hop = route.gw or dst_ip
        if first:
            hop(where(host_name, ns.path, src_if), f"sends {protocol} {src_ip}:{sport} > {dst_ip}:{dport}; route "
                f"'{route}'", wire, n, "send", route=route)
            first = False
        if dev.kind == "veth" and dev.peer:
            peer_path, peer_name = dev.peer
            peer_ns = host.netns(peer_path)
            peer = peer_ns.interfaces.get(peer_name)
            if peer is None:
                hop(where(host_name, ns.path, dev.name), "the veth has no peer: dropped", wire, n)
                return result()
            if peer.master:
                bridge = host.root.interfaces[peer.master]
                if _has_address(bridge, next_hop):
                    hop(f"{host_name}/{peer.name}", f"out of the veth into bridge port {peer.name}; the frame is "
                        f"for the gateway {next_hop}, {bridge.name}'s own address: up to the host's routing", wire, n)
                    ns, arrived_from_elsewhere = host.root, True
                    continue
                port = pod_on_bridge(host_name, bridge.name, next_hop)
                if port is None:
                    hop(f"{host_name}/{bridge.name}", f"no port of {bridge.name} answers ARP for {next_hop}: dropped",
                        wire, n)
                    return result()
                hop(f"{host_name}/{bridge.name}", f"switched by {bridge.name} from {peer.name} to port {port[0]} "
                    f"(same L2 segment, no routing)", wire, n)
                ns = host.netns(port[1])
                continue
            if peer_path == HOST_NETNS:
                proxy_arp = host.root.sysctls.get(f"net.ipv4.conf.{peer.name}.proxy_arp") == "1"
                if _has_address(peer, next_hop):
                    hop(f"{host_name}/{peer.name}", "out of the veth into the host's namespace: routed there", wire,
                        n, "veth-out", dev=peer.name, proxy_arp=False)
                elif not proxy_arp:
                    hop(where(host_name, ns.path, dev.name), f"route '{route}': no interface on the link answers ARP "
                        f"for {next_hop} ({peer.name} lacks the address and proxy_arp is off): dropped", wire, n)
                    return result()
                else:
                    hop(f"{host_name}/{peer.name}", f"out of the veth into the host's namespace: {peer.name} "
                        f"answered the ARP for {next_hop}, an address no interface has, with its own MAC {peer.mac} "
                        f"(proxy_arp=1); routed there", wire, n, "veth-out", dev=peer.name, proxy_arp=True)
                if src_ns_path == (host_name, ns.path):
                    pending_egress = peer.name
            else:
                if policy_hook is not None and not judge(INGRESS, f"{host_name}/{dev.name}", f"route '{route}'; ",
                                                         route=route, dev=dev.name):
                    return result()
                hop(f"{host_name}/{dev.name}", f"route '{route}': into the veth, whose peer {peer.name} is in "
                    f"{labels.get((host_name, peer_path), peer_path)}", wire, n, "veth-in", dev=dev.name, route=route)
            ns, arrived_from_elsewhere = peer_ns, peer_path == HOST_NETNS
            continue
        if dev.kind == "bridge":
            port = pod_on_bridge(host_name, dev.name, next_hop)
            if port is None:
                hop(f"{host_name}/{dev.name}", f"route '{route}'; no port of {dev.name} answers ARP for {next_hop}: "
                    "dropped", wire, n)
                return result()
            hop(f"{host_name}/{dev.name}", f"route '{route}': {dev.name} switches it to port {port[0]}", wire, n)
            ns = host.netns(port[1])
            continue
        if dev.kind in ("vxlan", "wireguard", "ipip"):
            local_ip = dev.local or _eth0_ip(host) or ""
            if dev.kind == "vxlan":
                neigh = next((x for x in ns.neighbours if x.dev == dev.name and x.ip == next_hop), None)
                fdb = next((f for f in ns.fdb if neigh and f.dev == dev.name and f.mac == neigh.lladdr), None)
                if neigh is None or fdb is None:
                    hop(f"{host_name}/{dev.name}", f"route '{route}'; no {'neighbour' if neigh is None else 'FDB'} "
                        f"entry for {next_hop if neigh is None else neigh.lladdr} on {dev.name}: dropped", wire, n)
                    return result()
                remote, encap = fdb.dst, "vxlan"
                outer = [f"IPv4 {local_ip} > {remote} UDP", f"UDP {_port(src_ip, dst_ip, sport)} > {dev.port}",
                         f"VXLAN vni {dev.vni}", f"Ethernet {dev.mac} > {neigh.lladdr}"]
                why = (f"route '{route}'; neighbour {neigh.ip} lladdr {neigh.lladdr}, FDB {neigh.lladdr} dst {remote}: "
                       f"the kernel's vxlan driver wraps it (inner Ethernet 14 + VXLAN 8 + UDP 8 + outer IPv4 20)")
            elif dev.kind == "ipip":
                if route.gw is None:
                    hop(f"{host_name}/{dev.name}", f"route '{route}' names no remote endpoint (an ipip route needs "
                        "'via <node>'): dropped", wire, n)
                    return result()
                remote, encap, port_s = route.gw, "ipip", ""
                outer = [f"IPv4 {local_ip} > {remote} IPIP (protocol 4)"]
                why = (f"route '{route}': the kernel's ipip driver pushes an outer IPv4 header {local_ip} > {remote}, "
                       f"protocol 4 (outer IPv4 20)")
            else:
                peer = next((p for p in dev.wg_peers
                             if any(ipaddress.ip_address(dst_ip) in ipaddress.ip_network(a) for a in p.allowed_ips)),
                            None)
                if peer is None:
                    hop(f"{host_name}/{dev.name}", f"route '{route}'; no WireGuard peer allows {dst_ip}: dropped "
                        "(ENOKEY)", wire, n)
                    return result()
                remote, port_s = peer.endpoint.rsplit(":", 1)
                encap = "wireguard"
                outer = [f"IPv4 {local_ip} > {remote} UDP", f"UDP {dev.port} > {port_s}",
                         "WireGuard transport data (the inner packet encrypted)"]
                why = (f"route '{route}'; peer {peer.public_key[:8]}... allowed-ips {', '.join(peer.allowed_ips)} "
                       f"endpoint {peer.endpoint}: encrypted and wrapped (outer IPv4 20 + UDP 8 + WireGuard 16 + "
                       f"tag 16)")
            added = overhead_bytes(encap)
            state["overhead"] = max(state["overhead"], added)
            wire = outer + inner
            hop(f"{host_name}/{dev.name}", why, wire, n + added, "encap", dev=dev.name, route=route, encap=encap,
                remote=remote)
            out_route = lookup_route(host.root, remote)
            if out_route is None:
                hop(f"{host_name}/eth0", f"no route to {remote}: dropped", wire, n + added)
                return result()
            to = underlay(host_name, out_route.gw or remote, remote)
            hop(f"{host_name}/{out_route.dev}", f"route '{out_route}': transmitted encapsulated to {remote}"
                + (f" ({to})" if to else ""), wire, n + added, "underlay", out_route=out_route, to=to)
            if to is None:
                hop(f"{host_name}/{out_route.dev}", f"no node has the address {remote}: lost", wire, n + added)
                return result()
            rhost = hosts[to]

            def takes(i: Interface) -> bool:
                if i.kind != dev.kind:
                    return False
                if dev.kind == "vxlan":
                    return i.port == dev.port and i.vni == dev.vni
                return dev.kind == "ipip" or i.port == int(port_s)
            rdev = next((i for i in rhost.root.interfaces.values() if takes(i)), None)
            if rdev is None:
                what = "takes IP protocol 4" if dev.kind == "ipip" else f"listens on UDP {outer[1].split()[-1]}"
                hop(f"{to}/eth0", f"nothing {what} for a {dev.kind} device: dropped", wire, n + added)
                return result()
            how = "IP protocol 4" if dev.kind == "ipip" else f"UDP to port {rdev.port}"
            hop(f"{to}/{rdev.name}", f"{how}: the kernel's {dev.kind} device {rdev.name} unwraps "
                "it; the inner packet is routed on this node", inner, n, "decap", dev=rdev.name, encap=encap)
            host_name, ns, wire, arrived_from_elsewhere = to, rhost.root, inner, True
            continue
        if dev.kind == "device":
            on_link = any(ipaddress.ip_address(next_hop) in ipaddress.ip_interface(a).network for a in dev.addresses)
            to = None
            for name, h in hosts.items():
                if name != host_name and _eth0_ip(h) == next_hop:
                    to = name
            if to is not None and (on_link or route.onlink):
                hop(f"{host_name}/{dev.name}", f"route '{route}': sent as is (no encapsulation) to {next_hop} on the "
                    "same L2 segment", wire, n, "direct", route=route, to=to)
                host_name, ns, arrived_from_elsewhere = to, hosts[to].root, True
                hop(f"{to}/eth0", "received on eth0 (its MAC): routed on this node", wire, n, "received")
                continue
            owner = next((name for name, h in hosts.items() if _eth0_ip(h) == dst_ip), None)
            if owner is not None:
                hop(f"{host_name}/{dev.name}", f"route '{route}': to the router {next_hop}, which forwards it to "
                    f"{owner}", wire, n, "router-forward", route=route, to=owner)
                host_name, ns, arrived_from_elsewhere = owner, hosts[owner].root, True
                continue
            hop(f"{host_name}/{dev.name}", f"route '{route}': to the router {next_hop}, which has no route for the pod "
                f"address {dst_ip} (pod subnets live only in the nodes' tables): dropped", wire, n, "router-drop",
                route=route)
            return result()
        hop(f"{host_name}/{dev.name}", f"route '{route}': a {dev.kind} device, not followed by this walk "
            "(user-space forwarding)", wire, n)
        return result()
    raise WalkError("routing loop: more than 64 hops")  # pragma: no cover
