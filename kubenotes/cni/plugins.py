"""The reference plugins as models: ``loopback``, ``bridge``, ``ptp``, ``portmap``, ``bandwidth``.

Each class changes a :class:`kubenotes.cni.netns.Host` as the binary of the same name from
containernetworking/plugins v1.1.1 changes the kernel, and returns the same result JSON:

* ``loopback`` sets ``lo`` up in the pod's namespace (the kernel then gives it
  ``127.0.0.1/8`` and ``::1/128``);
* ``bridge`` ensures the bridge (``cni0`` by default) in the host, creates a veth pair (the
  container end named ``CNI_IFNAME``, the host end ``veth`` + 8 hex digits enslaved to the
  bridge), asks IPAM for addresses, puts them on the container end with the IPAM routes,
  gives the bridge the gateway address (``isGateway``; ``isDefaultGateway`` adds a default
  route), turns on ``net.ipv4.ip_forward`` and, with ``ipMasq``, adds the
  ``CNI-<hash>`` masquerade chain;
* ``ptp`` creates a veth pair without a bridge: the host end gets the gateway as a /32 and a
  /32 route to the pod, the pod gets a link-scope route to the gateway and routes via it;
* ``portmap`` (chained) turns ``runtimeConfig.portMappings`` (the pod's ``hostPort``\\ s)
  into DNAT rules: ``CNI-HOSTPORT-DNAT`` from PREROUTING/OUTPUT for local destinations, a
  per-pod ``CNI-DN-<hash>`` chain, and the hairpin/localhost masquerade marks through
  ``CNI-HOSTPORT-SETMARK``/``CNI-HOSTPORT-MASQ``;
* ``bandwidth`` (chained) turns ``runtimeConfig.bandwidth`` into a ``tbf`` qdisc on the host
  veth (ingress, i.e. traffic towards the pod) and on an ``ifb`` device ``bwp<hash>`` fed by
  a mirred redirect (egress).

Notes
-----
Simplified: rules are stored as the strings upstream passes to iptables (``iptables-save``
may print matches in a normalised order); MAC addresses are seeded rather than kernel
chosen; the bridge's VLAN, MAC spoof check and DAD options, and ``ptp``'s IPv6 specifics
are not modelled. CHECK verifies the interfaces, addresses and rules exist with the
messages upstream uses where it has them.

References
----------
containernetworking/plugins@v1.1.1 plugins/main/loopback/loopback.go
containernetworking/plugins@v1.1.1 plugins/main/bridge/bridge.go
containernetworking/plugins@v1.1.1 plugins/main/ptp/ptp.go
containernetworking/plugins@v1.1.1 plugins/meta/portmap/{main,portmap,chain}.go
containernetworking/plugins@v1.1.1 plugins/meta/bandwidth/{main,ifb_creator}.go
containernetworking/plugins@v1.1.1 pkg/ip/ipmasq_linux.go, pkg/ipam/ipam_linux.go, pkg/utils/utils.go
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from typing import Any

from kubenotes.cni.netns import Host, Interface, NetNS, Route, random_veth_name, seeded_mac
from kubenotes.cni.spec import (
    ERR_INTERNAL,
    CNIError,
    PluginCall,
    register_plugin,
)

__all__ = [
    "PLUGINS_SUPPORTED_VERSIONS",
    "DEFAULT_BRIDGE_NAME",
    "TOP_LEVEL_DNAT_CHAIN_NAME",
    "SET_MARK_CHAIN_NAME",
    "MARK_MASQ_CHAIN_NAME",
    "DEFAULT_MARK_BIT",
    "LATENCY_IN_MILLIS",
    "TICK_IN_USEC",
    "format_chain_name",
    "must_format_hash_with_prefix",
    "format_comment",
    "fill_dnat_rules",
    "ifb_device_name",
    "tbf_parameters",
    "Loopback",
    "Bridge",
    "PTP",
    "PortMap",
    "Bandwidth",
]

#: The cniVersions the reference plugins v1.1.1 (Debian's) accept: ``version.All`` of libcni v1.1 (spec 1.0.0).
PLUGINS_SUPPORTED_VERSIONS: tuple[str, ...] = ("0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0")
#: ``defaultBrName`` of the bridge plugin.
DEFAULT_BRIDGE_NAME = "cni0"
#: portmap's chain names.
TOP_LEVEL_DNAT_CHAIN_NAME = "CNI-HOSTPORT-DNAT"
SET_MARK_CHAIN_NAME = "CNI-HOSTPORT-SETMARK"
MARK_MASQ_CHAIN_NAME = "CNI-HOSTPORT-MASQ"
#: ``DefaultMarkBit``: portmap marks packets to masquerade with 1 << 13 = 0x2000.
DEFAULT_MARK_BIT = 13
#: bandwidth's ``latencyInMillis`` for the tbf limit.
LATENCY_IN_MILLIS = 25
#: netlink's ``TickInUsec()`` on a kernel whose /proc/net/psched reads ``000003e8 00000040 000f4240 3b9aca00``.
TICK_IN_USEC = 1000 / 64
_TIME_UNITS_PER_SEC = 1_000_000
_MAX_CHAIN_LENGTH = 28
_CHAIN_PREFIX = "CNI-"
_MULTICAST_V4, _MULTICAST_V6 = "224.0.0.0/4", "ff00::/8"
_LOOPBACK_MAC = "00:00:00:00:00:00"


def _err(msg: str) -> CNIError:
    return CNIError(ERR_INTERNAL, msg)


def must_format_hash_with_prefix(length: int, prefix: str, to_hash: str) -> str:
    """``prefix`` + hex SHA-512 of ``to_hash``, cut to ``length`` characters (``utils.MustFormatHashWithPrefix``).

    Examples
    --------
    >>> len(must_format_hash_with_prefix(15, "bwp", "cbr0c1"))
    15
    """
    if len(prefix) >= length or length > 128:
        raise ValueError("invalid length")
    return (prefix + hashlib.sha512(to_hash.encode()).hexdigest())[:length]


def format_chain_name(name: str, container_id: str, prefix: str = "") -> str:
    """``CNI-`` [+ prefix] + SHA-512(name + containerID), 28 characters (``utils.FormatChainName``).

    Examples
    --------
    >>> c = format_chain_name("cbr0", "c1"); c.startswith("CNI-"), len(c)
    (True, 28)
    >>> format_chain_name("cbr0", "c1", "DN-")[:7]
    'CNI-DN-'
    """
    return must_format_hash_with_prefix(_MAX_CHAIN_LENGTH, _CHAIN_PREFIX + prefix, name + container_id)


def format_comment(name: str, container_id: str) -> str:
    """The iptables comment ``name: "<net>" id: "<container>"`` (``utils.FormatComment``).

    Examples
    --------
    >>> format_comment("cbr0", "c1")
    'name: "cbr0" id: "c1"'
    """
    return f"name: {json.dumps(name)} id: {json.dumps(container_id)}"


def ifb_device_name(network: str, container_id: str) -> str:
    """The bandwidth plugin's ifb device: ``bwp`` + hash, 15 characters (``getIfbDeviceName``)."""
    return must_format_hash_with_prefix(15, "bwp", network + container_id)


def tbf_parameters(rate_bits: int, burst_bits: int) -> dict:
    """The tbf qdisc the bandwidth plugin installs for a rate and burst (``createTBF``).

    Parameters
    ----------
    rate_bits : int
        Bits per second.
    burst_bits : int
        Bits.

    Returns
    -------
    dict
        ``{"kind": "tbf", "rate_bytes", "buffer_ticks", "limit_bytes", "handle", "parent"}``:
        rate in bytes/s, buffer in scheduler ticks, limit = rate x 25 ms + burst bytes.

    Raises
    ------
    CNIError
        ``invalid rate: 0`` / ``invalid burst: 0``.

    Examples
    --------
    >>> tbf_parameters(1_000_000, 8 * 4294967295)["limit_bytes"]
    4294970420
    """
    if rate_bits <= 0:
        raise _err(f"invalid rate: {rate_bits}")
    if burst_bits <= 0:
        raise _err(f"invalid burst: {burst_bits}")
    rate_bytes, burst_bytes = rate_bits // 8, (burst_bits // 8) & 0xFFFFFFFF
    buffer_ticks = int((int(burst_bytes * _TIME_UNITS_PER_SEC / rate_bytes) & 0xFFFFFFFF) * TICK_IN_USEC) & 0xFFFFFFFF
    latency = _TIME_UNITS_PER_SEC * (LATENCY_IN_MILLIS / 1000.0)
    limit_bytes = int(rate_bytes * latency / _TIME_UNITS_PER_SEC) + burst_bytes
    return {"kind": "tbf", "handle": "1:", "parent": "root", "rate_bytes": rate_bytes,
            "buffer_ticks": buffer_ticks, "limit_bytes": limit_bytes}


# ---------------------------------------------------------------- shared helpers


def _host(call: PluginCall) -> Host:
    if call.host is None:
        raise _err(f"{call.config.get('type', 'plugin')} model: no Host given")
    return call.host


def _netns(call: PluginCall) -> NetNS:
    host = _host(call)
    try:
        return host.netns(call.env.netns)
    except KeyError:
        raise _err(f'failed to open netns "{call.env.netns}": failed to Statfs "{call.env.netns}": '
                   "no such file or directory") from None


def _prev_result(call: PluginCall, required: bool = True) -> dict | None:
    prev = call.config.get("prevResult")
    if prev is None and required:
        raise _err("must be called as chained plugin")
    return prev


def _configure_iface(ns: NetNS, ifname: str, result: dict, iface_index: int) -> None:
    """``ipam.ConfigureIface``: addresses and routes of ``result`` on ``ifname`` (kernel adds the connected routes)."""
    iface = ns.interfaces[ifname]
    iface.up = True
    gateways: dict[int, str] = {}
    for ipc in result.get("ips") or []:
        if ipc.get("interface") not in (None, iface_index):
            continue
        addr = ipaddress.ip_interface(ipc["address"])
        iface.addresses.append(str(addr))
        ns.add_route(Route(str(addr.network), dev=ifname, proto="kernel", scope="link", src=str(addr.ip)))
        if ipc.get("gateway") and addr.version not in gateways:
            gateways[addr.version] = ipc["gateway"]
    for r in result.get("routes") or []:
        version = ipaddress.ip_network(r["dst"], strict=False).version
        gw = r.get("gw") or gateways.get(version)
        ns.add_route(Route(str(ipaddress.ip_network(r["dst"], strict=False)), gw=gw, dev=ifname))


def _setup_ip_masq(host: Host, address: str, chain: str, comment: str) -> None:
    """``ip.SetupIPMasq``: accept traffic to the pod's network, masquerade the rest (not multicast)."""
    addr = ipaddress.ip_interface(address)
    multicast = _MULTICAST_V4 if addr.version == 4 else _MULTICAST_V6
    q = json.dumps(comment)
    host.ensure_chain(chain)
    host.append_rule(chain, f"-d {addr} -j ACCEPT -m comment --comment {q}")
    host.append_rule(chain, f"! -d {multicast} -j MASQUERADE -m comment --comment {q}")
    host.append_rule("POSTROUTING", f"-s {addr.ip} -j {chain} -m comment --comment {q}")


def _teardown_ip_masq(host: Host, chain: str) -> None:
    host.delete_chain(chain)


def _del_container_link(host: Host, netns_path: str, ifname: str) -> list[str]:
    """``ip.DelLinkByNameAddr``: delete the container end (its host peer goes too); return its addresses."""
    ns = host.namespaces.get(netns_path)
    if ns is None or ifname not in ns.interfaces:
        return []
    iface = ns.interfaces.pop(ifname)
    ns.routes = [r for r in ns.routes if r.dev != ifname]
    if iface.peer:
        host.root.interfaces.pop(iface.peer[1], None)
        host.root.routes = [r for r in host.root.routes if r.dev != iface.peer[1]]
    return list(iface.addresses)


def _ordered_result(cni_version: str, interfaces: list | None, ips: list | None, routes: list | None,
                    dns: dict | None) -> dict:
    out: dict[str, Any] = {"cniVersion": cni_version}
    if interfaces:
        out["interfaces"] = interfaces
    if ips:
        out["ips"] = ips
    if routes:
        out["routes"] = routes
    out["dns"] = dns or {}
    return out


# ---------------------------------------------------------------- loopback


class Loopback:
    """``loopback``: bring ``lo`` up in the pod's namespace (CNI_IFNAME is ignored).

    Examples
    --------
    >>> from kubenotes.cni.spec import CNIEnv, run_plugin
    >>> h = Host(); _ = h.add_netns("/var/run/netns/p1")
    >>> out = run_plugin("loopback", CNIEnv("ADD", "c1", "/var/run/netns/p1", "lo", path="/opt/cni/bin"),
    ...                  {"cniVersion": "1.0.0", "name": "lo", "type": "loopback"}, host=h)
    >>> [ip["address"] for ip in out.result["ips"]], h.netns("/var/run/netns/p1").interfaces["lo"].up
    (['127.0.0.1/8', '::1/128'], True)
    """

    supported_versions = PLUGINS_SUPPORTED_VERSIONS

    def add(self, call: PluginCall) -> dict:
        """ADD: set the pod up as described in the class docstring; return the result JSON."""
        ns = _netns(call)
        lo = ns.interfaces.setdefault("lo", Interface("lo", "loopback", mtu=65536))
        lo.up = True
        for a in ("127.0.0.1/8", "::1/128"):
            if a not in lo.addresses:
                lo.addresses.append(a)
        for a in lo.addresses:
            if not ipaddress.ip_interface(a).ip.is_loopback:
                raise _err(f'loopback interface found with non-loopback address "{ipaddress.ip_interface(a).ip}"')
        prev = call.config.get("prevResult")
        if prev is not None:
            return prev
        v4 = next((a for a in lo.addresses if ipaddress.ip_interface(a).version == 4), None)
        v6 = next((a for a in lo.addresses if ipaddress.ip_interface(a).version == 6), None)
        ips = [{"interface": 0, "address": a} for a in (v4, v6) if a]
        return _ordered_result(call.cni_version, [{"name": "lo", "mac": _LOOPBACK_MAC, "sandbox": call.env.netns}],
                               ips, None, {})

    def delete(self, call: PluginCall) -> None:
        """DEL: undo ADD; idempotent (a missing namespace or interface is no error)."""
        if not call.env.netns:
            return
        ns = _host(call).namespaces.get(call.env.netns)
        if ns is not None and "lo" in ns.interfaces:
            ns.interfaces["lo"].up = False

    def check(self, call: PluginCall) -> None:
        """CHECK: raise :class:`CNIError` if the state ADD created is not there."""
        lo = _netns(call).interfaces.get("lo")
        if lo is None or not lo.up:
            raise _err("loopback interface is down")


# ---------------------------------------------------------------- bridge


def _calc_gateway_ip(address: str) -> str:
    """``calcGatewayIP``: the first address of the subnet."""
    return str(ipaddress.ip_interface(address).network.network_address + 1)


class Bridge:
    """``bridge``: a Linux bridge on the host, one veth pair per pod, addresses from IPAM.

    Config keys: ``bridge`` (default ``cni0``), ``isGateway``, ``isDefaultGateway`` (implies
    ``isGateway``), ``forceAddress``, ``ipMasq``, ``mtu`` (1500), ``hairpinMode``,
    ``promiscMode``, ``ipam``, ``dns``.
    """

    supported_versions = PLUGINS_SUPPORTED_VERSIONS

    @staticmethod
    def _conf(call: PluginCall) -> dict:
        c = call.config
        n = {"bridge": c.get("bridge") or DEFAULT_BRIDGE_NAME, "isGateway": bool(c.get("isGateway")),
             "isDefaultGateway": bool(c.get("isDefaultGateway")), "forceAddress": bool(c.get("forceAddress")),
             "ipMasq": bool(c.get("ipMasq")), "mtu": int(c.get("mtu") or 1500),
             "hairpinMode": bool(c.get("hairpinMode")), "promiscMode": bool(c.get("promiscMode")),
             "ipam": c.get("ipam") or {}, "dns": c.get("dns") or {}}
        if n["isDefaultGateway"]:
            n["isGateway"] = True
        return n

    def add(self, call: PluginCall) -> dict:
        """ADD: set the pod up as described in the class docstring; return the result JSON."""
        n = self._conf(call)
        if n["hairpinMode"] and n["promiscMode"]:
            raise _err("cannot set hairpin mode and promiscuous mode at the same time.")
        host = _host(call)
        br = host.root.interfaces.get(n["bridge"])
        if br is None:
            br = Interface(n["bridge"], "bridge", seeded_mac(host.seed, host.name, n["bridge"]), n["mtu"], up=True,
                           promisc=n["promiscMode"])
            host.root.interfaces[n["bridge"]] = br
        elif br.kind != "bridge":
            raise _err(f'failed to create bridge "{n["bridge"]}": "{n["bridge"]}" already exists but is not a bridge')
        ns = _netns(call)
        veth_name = random_veth_name(host.seed, call.env.container_id, call.env.ifname)
        try:
            host_veth, cont = host.create_veth(call.env.netns, call.env.ifname, veth_name, mtu=n["mtu"],
                                               seed_key=call.env.container_id)
        except ValueError as e:
            raise _err(str(e)) from None
        host_veth.master = br.name
        host_veth.hairpin = n["hairpinMode"]
        interfaces = [{"name": br.name, "mac": br.mac}, {"name": host_veth.name, "mac": host_veth.mac},
                      {"name": cont.name, "mac": cont.mac, "sandbox": call.env.netns}]
        ips: list = []
        routes: list = []
        ipam_type = n["ipam"].get("type", "")
        if ipam_type:
            r = call.delegate(ipam_type, "ADD") or {}
            ips = [dict(ip) for ip in r.get("ips") or []]
            routes = [dict(rt) for rt in r.get("routes") or []]
            if not ips:
                call.delegate(ipam_type, "DEL")
                raise _err("IPAM plugin returned missing IP config")
            gws: dict[int, list[str]] = {4: [], 6: []}
            default_found = {4: False, 6: False}
            for ipc in ips:
                ipc.pop("version", None)
                addr = ipaddress.ip_interface(ipc["address"])
                ipc_out = {"interface": 2, "address": ipc["address"]}
                gw = ipc.get("gateway")
                if gw is None and n["isGateway"]:
                    gw = _calc_gateway_ip(ipc["address"])
                if gw is not None:
                    ipc_out["gateway"] = gw
                ipc.clear()
                ipc.update(ipc_out)
                if n["isDefaultGateway"] and not default_found[addr.version]:
                    zero = "0.0.0.0/0" if addr.version == 4 else "::/0"
                    if not any(rt.get("gw") and rt["dst"] == zero for rt in routes):
                        routes.append({"dst": zero, **({"gw": gw} if gw else {})})
                    default_found[addr.version] = True
                if n["isGateway"]:
                    gws[addr.version].append(f"{gw}/{addr.network.prefixlen}")
            result_for_iface = {"ips": ips, "routes": routes}
            _configure_iface(ns, call.env.ifname, result_for_iface, 2)
            if n["isGateway"]:
                for version in (4, 6):
                    for gw in gws[version]:
                        same_family = [a for a in br.addresses if ipaddress.ip_interface(a).version == version]
                        if gw in br.addresses:
                            continue
                        if same_family and not n["forceAddress"]:
                            call.delegate(ipam_type, "DEL")
                            raise _err(f'failed to set bridge addr: "{br.name}" already has an IP address '
                                       f"different from {gw}")
                        br.addresses.append(gw)
                        g = ipaddress.ip_interface(gw)
                        host.root.add_route(Route(str(g.network), dev=br.name, proto="kernel", scope="link",
                                                  src=str(g.ip)))
                    if gws[version]:
                        key = "net.ipv4.ip_forward" if version == 4 else "net.ipv6.conf.all.forwarding"
                        host.root.sysctls[key] = "1"
            if n["ipMasq"]:
                chain = format_chain_name(call.config["name"], call.env.container_id)
                comment = format_comment(call.config["name"], call.env.container_id)
                for ipc in ips:
                    _setup_ip_masq(host, ipc["address"], chain, comment)
        else:
            cont.up = True
        return _ordered_result(call.cni_version, interfaces, ips, routes, n["dns"])

    def delete(self, call: PluginCall) -> None:
        """DEL: undo ADD; idempotent (a missing namespace or interface is no error)."""
        n = self._conf(call)
        ipam_type = n["ipam"].get("type", "")
        if ipam_type:
            call.delegate(ipam_type, "DEL")
        if not call.env.netns or call.host is None:
            return
        addresses = _del_container_link(call.host, call.env.netns, call.env.ifname)
        if ipam_type and n["ipMasq"] and addresses:
            _teardown_ip_masq(call.host, format_chain_name(call.config["name"], call.env.container_id))

    def check(self, call: PluginCall) -> None:
        """CHECK: raise :class:`CNIError` if the state ADD created is not there."""
        n = self._conf(call)
        prev = _prev_result(call)
        host = _host(call)
        if n["ipam"].get("type"):
            call.delegate(n["ipam"]["type"], "CHECK")
        if n["bridge"] not in host.root.interfaces:
            raise _err(f"Interface name {n['bridge']} not found")
        ns = _netns(call)
        for intf in prev.get("interfaces") or []:
            where = ns if intf.get("sandbox") else host.root
            if intf.get("name") not in where.interfaces:
                raise _err(f"Interface name {intf.get('name')} not found")
        cont = ns.interfaces[call.env.ifname]
        for ipc in prev.get("ips") or []:
            if ipc["address"] not in cont.addresses:
                raise _err(f"{call.env.ifname}: Failed to match addr {ipc['address']} on interface")


# ---------------------------------------------------------------- ptp


class PTP:
    """``ptp``: a point-to-point veth pair and host routes, no bridge.

    Config keys: ``ipMasq``, ``mtu``, ``ipam``, ``dns``.
    """

    supported_versions = PLUGINS_SUPPORTED_VERSIONS

    def add(self, call: PluginCall) -> dict:
        """ADD: set the pod up as described in the class docstring; return the result JSON."""
        c = call.config
        ipam_type = (c.get("ipam") or {}).get("type")
        if not ipam_type:
            raise _err("IPAM config missing 'ipam' key")
        host = _host(call)
        ns = _netns(call)
        r = call.delegate(ipam_type, "ADD") or {}
        ips = [{k: v for k, v in ip.items() if k != "version"} for ip in r.get("ips") or []]
        routes = [dict(rt) for rt in r.get("routes") or []]
        if not ips:
            call.delegate(ipam_type, "DEL")
            raise _err("IPAM plugin returned missing IP config")
        for ipc in ips:
            key = "net.ipv4.ip_forward" if ipaddress.ip_interface(ipc["address"]).version == 4 \
                else "net.ipv6.conf.all.forwarding"
            host.root.sysctls[key] = "1"
        veth_name = random_veth_name(host.seed, call.env.container_id, call.env.ifname)
        mtu = int(c.get("mtu") or 1500)
        try:
            host_veth, cont = host.create_veth(call.env.netns, call.env.ifname, veth_name, mtu=mtu,
                                               seed_key=call.env.container_id)
        except ValueError as e:
            call.delegate(ipam_type, "DEL")
            raise _err(str(e)) from None
        for ipc in ips:
            ipc["interface"] = 1
            ipc_sorted = {"interface": 1, "address": ipc["address"]}
            if ipc.get("gateway"):
                ipc_sorted["gateway"] = ipc["gateway"]
            ipc.clear()
            ipc.update(ipc_sorted)
        cont.up = True
        for ipc in ips:
            addr = ipaddress.ip_interface(ipc["address"])
            cont.addresses.append(str(addr))
            gw = ipc.get("gateway")
            if gw:
                # the kernel's connected route is replaced by one via the gateway
                ns.add_route(Route(f"{gw}/{addr.max_prefixlen}", dev=cont.name, scope="link", src=str(addr.ip)))
                ns.add_route(Route(str(addr.network), gw=gw, dev=cont.name, src=str(addr.ip)))
                host_veth.addresses.append(f"{gw}/{addr.max_prefixlen}")
            host.root.add_route(Route(f"{addr.ip}/{addr.max_prefixlen}", dev=host_veth.name, scope="link"))
        gateways = {ipaddress.ip_interface(i["address"]).version: i.get("gateway") for i in reversed(ips)}
        for rt in routes:
            version = ipaddress.ip_network(rt["dst"], strict=False).version
            ns.add_route(Route(str(ipaddress.ip_network(rt["dst"], strict=False)),
                               gw=rt.get("gw") or gateways.get(version), dev=cont.name))
        if c.get("ipMasq"):
            chain = format_chain_name(c["name"], call.env.container_id)
            comment = format_comment(c["name"], call.env.container_id)
            for ipc in ips:
                _setup_ip_masq(host, ipc["address"], chain, comment)
        interfaces = [{"name": host_veth.name, "mac": host_veth.mac},
                      {"name": cont.name, "mac": cont.mac, "sandbox": call.env.netns}]
        return _ordered_result(call.cni_version, interfaces, ips, routes, c.get("dns") or {})

    def delete(self, call: PluginCall) -> None:
        """DEL: undo ADD; idempotent (a missing namespace or interface is no error)."""
        c = call.config
        ipam_type = (c.get("ipam") or {}).get("type")
        if ipam_type:
            call.delegate(ipam_type, "DEL")
        if not call.env.netns or call.host is None:
            return
        addresses = _del_container_link(call.host, call.env.netns, call.env.ifname)
        if c.get("ipMasq") and addresses:
            _teardown_ip_masq(call.host, format_chain_name(c["name"], call.env.container_id))

    def check(self, call: PluginCall) -> None:
        """CHECK: raise :class:`CNIError` if the state ADD created is not there."""
        prev = _prev_result(call)
        ns = _netns(call)
        if call.env.ifname not in ns.interfaces:
            raise _err(f"Interface name {call.env.ifname} not found")
        for ipc in prev.get("ips") or []:
            if ipc["address"] not in ns.interfaces[call.env.ifname].addresses:
                raise _err(f"{call.env.ifname}: Failed to match addr {ipc['address']} on interface")


# ---------------------------------------------------------------- portmap


def fill_dnat_rules(network: str, container_id: str, conf: dict, container_net: str) -> tuple[list[str], list[str]]:
    """The per-pod DNAT chain's entry rules and rules (portmap's ``fillDnatRules``).

    Parameters
    ----------
    network : str
        The network name.
    container_id : str
    conf : dict
        ``{"portMappings", "snat", "externalSetMarkChain", "conditionsV4", "conditionsV6"}``.
    container_net : str
        The pod's address with prefix length (``10.0.0.2/24``), as in the result.

    Returns
    -------
    (list of str, list of str)
        The rules jumping from ``CNI-HOSTPORT-DNAT`` (without the ``-j`` target; one per protocol and
        group of at most 15 ports, protocols sorted) and the chain's rules: per mapping the
        hairpin mark, the localhost mark (IPv4) and the DNAT, in mapping order.

    Examples
    --------
    >>> entry, rules = fill_dnat_rules("cbr0", "c1", {"portMappings": [
    ...     {"hostPort": 8080, "containerPort": 80, "protocol": "tcp"}], "snat": False}, "10.0.0.2/24")
    >>> rules
    ['-p tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80']
    """
    addr = ipaddress.ip_interface(container_net)
    is_v6 = addr.version == 6
    comment = json.dumps(f'dnat name: "{network}" id: "{container_id}"')
    set_mark = conf.get("externalSetMarkChain") or SET_MARK_CHAIN_NAME
    conditions = conf.get("conditionsV6" if is_v6 else "conditionsV4") or []
    by_proto: dict[str, list[int]] = {}
    for pm in conf.get("portMappings") or []:
        by_proto.setdefault(pm.get("protocol") or "tcp", []).append(int(pm["hostPort"]))
    entry = [" ".join([f"-m comment --comment {comment} -m multiport -p {proto} --destination-ports {spec}",
                       *conditions])
             for proto in sorted(by_proto) for spec in _split_port_list(by_proto[proto])]
    rules = []
    for pm in conf.get("portMappings") or []:
        host_ip = pm.get("hostIP") or ""
        base = f"-p {pm.get('protocol') or 'tcp'} --dport {int(pm['hostPort'])}"
        if host_ip:
            hip = ipaddress.ip_address(host_ip)
            if (hip.version == 6) != is_v6:
                continue
            if not hip.is_unspecified:
                base += f" -d {host_ip}"
        if conf.get("snat", True):
            rules.append(f"{base} -s {addr} -j {set_mark}")
            if not is_v6:
                rules.append(f"{base} -s 127.0.0.1 -j {set_mark}")
        dest = f"[{addr.ip}]:{pm['containerPort']}" if is_v6 else f"{addr.ip}:{pm['containerPort']}"
        rules.append(f"{base} -j DNAT --to-destination {dest}")
    return entry, rules


def _container_nets(prev: dict, ifname: str) -> dict[int, str]:
    """The first IPv4 and IPv6 address of the sandbox interface ``ifname`` in ``prevResult`` (portmap's parseConfig)."""
    out: dict[int, str] = {}
    interfaces = prev.get("interfaces") or []
    for ipc in prev.get("ips") or []:
        version = ipaddress.ip_interface(ipc["address"]).version
        if version in out:
            continue
        idx = ipc.get("interface")
        if idx is not None and 0 <= idx < len(interfaces) and (
                interfaces[idx].get("name") != ifname or not interfaces[idx].get("sandbox")):
            continue
        out[version] = ipc["address"]
    return out


def _split_port_list(ports: list[int]) -> list[str]:
    """multiport takes at most 15 ports: split into comma-separated groups."""
    return [",".join(str(p) for p in ports[i:i + 15]) for i in range(0, len(ports), 15)]


class PortMap:
    """``portmap``: hostPort -> pod DNAT rules (chained after the main plugin).

    Examples
    --------
    >>> from kubenotes.cni.spec import CNIEnv
    >>> h = Host()
    >>> prev = {"cniVersion": "1.0.0", "interfaces": [{"name": "eth0", "sandbox": "/ns"}],
    ...         "ips": [{"interface": 0, "address": "10.244.1.5/24"}]}
    >>> call = PluginCall(env=CNIEnv("ADD", "c1", "/ns", "eth0"), config={"name": "cbr0", "cniVersion": "1.0.0", "type": "portmap",
    ...     "prevResult": prev, "runtimeConfig": {"portMappings": [
    ...         {"hostPort": 8080, "containerPort": 80, "protocol": "tcp"}]}}, stdin=b"", host=h)
    >>> _ = PortMap().add(call)
    >>> dn = format_chain_name("cbr0", "c1", "DN-")
    >>> h.nat[dn][-1] == f"-A {dn} -p tcp --dport 8080 -j DNAT --to-destination 10.244.1.5:80"
    True
    """

    supported_versions = PLUGINS_SUPPORTED_VERSIONS

    @staticmethod
    def _conf(call: PluginCall) -> dict:
        c = call.config
        snat = c.get("snat")
        mark_bit = c.get("markMasqBit")
        if mark_bit is not None and c.get("externalSetMarkChain") is not None:
            raise _err("Cannot specify externalSetMarkChain and markMasqBit")
        mark_bit = DEFAULT_MARK_BIT if mark_bit is None else int(mark_bit)
        if not 0 <= mark_bit <= 31:
            raise _err("MasqMarkBit must be between 0 and 31")
        maps = (c.get("runtimeConfig") or {}).get("portMappings") or []
        for pm in maps:
            if not 0 < int(pm.get("containerPort", 0)) <= 65535:
                raise _err(f"Invalid container port number: {pm.get('containerPort', 0)}")
            if not 0 < int(pm.get("hostPort", 0)) <= 65535:
                raise _err(f"Invalid host port number: {pm.get('hostPort', 0)}")
        return {"snat": True if snat is None else bool(snat), "markMasqBit": mark_bit, "portMappings": maps,
                "externalSetMarkChain": c.get("externalSetMarkChain"), "conditionsV4": c.get("conditionsV4"),
                "conditionsV6": c.get("conditionsV6")}

    def _dnat_rules(self, call: PluginCall, n: dict, container_net: str) -> tuple[list[str], list[str]]:
        return fill_dnat_rules(call.config["name"], call.env.container_id, n, container_net)

    def add(self, call: PluginCall) -> dict:
        """ADD: set the pod up as described in the class docstring; return the result JSON."""
        n = self._conf(call)
        prev = _prev_result(call, required=bool(n["portMappings"]))
        if not n["portMappings"]:
            return prev if prev is not None else {"cniVersion": call.cni_version, "dns": {}}
        host = _host(call)
        for version, net in sorted(_container_nets(prev, call.env.ifname).items()):
            if n["snat"] and n["externalSetMarkChain"] is None:
                mark = 1 << n["markMasqBit"]
                markdef = f"{mark:#x}/{mark:#x}"
                host.ensure_chain(SET_MARK_CHAIN_NAME)
                host.append_rule(SET_MARK_CHAIN_NAME, f'-m comment --comment "CNI portfwd masquerade mark" '
                                                      f"-j MARK --set-xmark {markdef}")
                host.ensure_chain(MARK_MASQ_CHAIN_NAME)
                host.append_rule(MARK_MASQ_CHAIN_NAME, f"-m mark --mark {markdef} -j MASQUERADE")
                entry = f'-A POSTROUTING -m comment --comment "CNI portfwd requiring masquerade" ' \
                        f"-j {MARK_MASQ_CHAIN_NAME}"
                if entry not in host.nat["POSTROUTING"]:
                    host.nat["POSTROUTING"].insert(0, entry)
                if version == 4:
                    host.root.sysctls[f"net.ipv4.conf.{call.env.ifname}.route_localnet"] = "1"
            host.ensure_chain(TOP_LEVEL_DNAT_CHAIN_NAME)
            for chain in ("PREROUTING", "OUTPUT"):
                host.append_rule(chain, f"-m addrtype --dst-type LOCAL -j {TOP_LEVEL_DNAT_CHAIN_NAME}")
            dn = format_chain_name(call.config["name"], call.env.container_id, "DN-")
            entry_rules, rules = self._dnat_rules(call, n, net)
            host.ensure_chain(dn)
            for r in rules:
                host.append_rule(dn, r)
            for r in entry_rules:
                host.append_rule(TOP_LEVEL_DNAT_CHAIN_NAME, f"{r} -j {dn}")
        return prev

    def delete(self, call: PluginCall) -> None:
        """DEL: undo ADD; idempotent (a missing namespace or interface is no error)."""
        self._conf(call)
        if call.host is None:
            return
        call.host.delete_chain(format_chain_name(call.config["name"], call.env.container_id, "DN-"))
        call.host.delete_chain(format_chain_name(call.config["name"], call.env.container_id, "SN-"))

    def check(self, call: PluginCall) -> None:
        """CHECK: raise :class:`CNIError` if the state ADD created is not there."""
        n = self._conf(call)
        prev = call.config.get("prevResult")
        if prev is None:
            raise _err("Required prevResult missing")
        if not n["portMappings"]:
            return
        host = _host(call)
        dn = format_chain_name(call.config["name"], call.env.container_id, "DN-")
        for net in _container_nets(prev, call.env.ifname).values():
            _, rules = self._dnat_rules(call, n, net)
            for r in rules:
                if f"-A {dn} {r}" not in host.nat.get(dn, []):
                    raise _err(f"could not find rule {r} in chain {dn}")


# ---------------------------------------------------------------- bandwidth


class Bandwidth:
    """``bandwidth``: token-bucket shaping of a pod's traffic (chained after the main plugin).

    Reads ``runtimeConfig.bandwidth`` (``ingressRate``/``egressRate`` in bits per second,
    ``ingressBurst``/``egressBurst`` in bits) or the same keys at the top level of the config.
    """

    supported_versions = PLUGINS_SUPPORTED_VERSIONS

    @staticmethod
    def _bandwidth(call: PluginCall) -> dict:
        c = call.config
        bw = (c.get("runtimeConfig") or {}).get("bandwidth")
        if bw is None:
            bw = {k: c[k] for k in ("ingressRate", "ingressBurst", "egressRate", "egressBurst") if k in c}
        for direction in ("ingress", "egress"):
            rate, burst = int(bw.get(f"{direction}Rate") or 0), int(bw.get(f"{direction}Burst") or 0)
            if rate and not burst:
                raise _err("if rate is set, burst must also be set")
            if burst and not rate:
                raise _err("if burst is set, rate must also be set")
            if burst // 8 >= 2 ** 32:
                raise _err("burst cannot be more than 4GB")
        return bw

    @staticmethod
    def _host_interface(call: PluginCall, result: dict) -> Interface:
        host = _host(call)
        interfaces = result.get("interfaces") or []
        if not interfaces:
            raise _err("no interfaces provided")
        ns = _netns(call)
        cont = ns.interfaces.get(call.env.ifname)
        if cont is None or not cont.peer:
            raise _err(f"container interface {call.env.ifname} has no veth peer")
        for intf in interfaces:
            if intf.get("name") == cont.peer[1] and not intf.get("sandbox"):
                return host.root.interfaces[cont.peer[1]]
        raise _err("no veth peer of container interface found in host ns")

    def add(self, call: PluginCall) -> dict:
        """ADD: set the pod up as described in the class docstring; return the result JSON."""
        bw = self._bandwidth(call)
        prev = call.config.get("prevResult")
        if not any(int(bw.get(k) or 0) for k in ("ingressRate", "ingressBurst", "egressRate", "egressBurst")):
            return prev if prev is not None else {"cniVersion": call.cni_version, "dns": {}}
        if prev is None:
            raise _err("must be called as chained plugin")
        result = json.loads(json.dumps(prev))
        host = _host(call)
        veth = self._host_interface(call, result)
        if int(bw.get("ingressRate") or 0) > 0 and int(bw.get("ingressBurst") or 0) > 0:
            host.qdiscs[veth.name] = tbf_parameters(int(bw["ingressRate"]), int(bw["ingressBurst"]))
        if int(bw.get("egressRate") or 0) > 0 and int(bw.get("egressBurst") or 0) > 0:
            ifb = ifb_device_name(call.config["name"], call.env.container_id)
            dev = host.root.interfaces.setdefault(
                ifb, Interface(ifb, "ifb", seeded_mac(host.seed, ifb), veth.mtu, up=True))
            result.setdefault("interfaces", []).append({"name": ifb, "mac": dev.mac})
            host.qdiscs[f"{veth.name} ingress"] = {"kind": "ingress", "handle": "ffff:",
                                                   "filter": f"u32 match all action mirred egress redirect dev {ifb}"}
            host.qdiscs[ifb] = tbf_parameters(int(bw["egressRate"]), int(bw["egressBurst"]))
        return result

    def delete(self, call: PluginCall) -> None:
        """DEL: undo ADD; idempotent (a missing namespace or interface is no error)."""
        if call.host is None:
            return
        ifb = ifb_device_name(call.config["name"], call.env.container_id)
        call.host.root.interfaces.pop(ifb, None)
        call.host.qdiscs.pop(ifb, None)
        ns = call.host.namespaces.get(call.env.netns)
        cont = ns.interfaces.get(call.env.ifname) if ns else None
        if cont is not None and cont.peer:
            call.host.qdiscs.pop(cont.peer[1], None)
            call.host.qdiscs.pop(f"{cont.peer[1]} ingress", None)

    def check(self, call: PluginCall) -> None:
        """CHECK: raise :class:`CNIError` if the state ADD created is not there."""
        bw = self._bandwidth(call)
        prev = call.config.get("prevResult")
        if prev is None:
            raise _err("must be called as a chained plugin")
        host = _host(call)
        veth = self._host_interface(call, prev)
        if int(bw.get("ingressRate") or 0) > 0:
            want = tbf_parameters(int(bw["ingressRate"]), int(bw["ingressBurst"]))
            got = host.qdiscs.get(veth.name)
            if got is None:
                raise _err("Failed to find qdisc")
            if got["rate_bytes"] != want["rate_bytes"]:
                raise _err("Rate doesn't match")
            if got["limit_bytes"] != want["limit_bytes"]:
                raise _err("Limit doesn't match")
            if got["buffer_ticks"] != want["buffer_ticks"]:
                raise _err("Buffer doesn't match")


register_plugin("loopback", Loopback())
register_plugin("bridge", Bridge())
register_plugin("ptp", PTP())
register_plugin("portmap", PortMap())
register_plugin("bandwidth", Bandwidth())
