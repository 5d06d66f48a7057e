"""The ``calico`` and ``calico-ipam`` CNI plugins as models, registered in :mod:`kubenotes.cni.spec`.

What the runtime gets when the node's conflist is Calico's (the
``10-calico.conflist`` that calico-node's install container writes from
``cni_network_config``): ``calico`` creates the pod's veth pair (host end
``cali`` + 11 hex digits of SHA-1 of ``namespace.pod``, MAC
``ee:ee:ee:ee:ee:ee``, ``proxy_arp`` on), delegates addresses to
``calico-ipam`` (a /32 from the node's affine block, handle
``k8s-pod-network.<container id>``), gives the pod ``<ip>/32`` with the
routes ``169.254.1.1 dev eth0 scope link`` and ``default via 169.254.1.1``,
and adds the host route ``<ip> dev cali... scope link``. DEL releases the
address and removes the veth.

Notes
-----
Simplified: no WorkloadEndpoint is written to a datastore (Felix's view is
:mod:`kubenotes.cni.calico.dataplane`); the plugins share one
:class:`~kubenotes.cni.calico.ipam.CalicoIPAM` per process
(:data:`DEFAULT_IPAM`, replaceable); the pod identity comes from ``CNI_ARGS``
(``K8S_POD_NAMESPACE``, ``K8S_POD_NAME``) and the node from the config's
``nodename`` or the host model's name; the result lists the host veth and
the pod's interface; IPv6, ``policy`` and ``ipam.assign_ipv4`` options are
ignored.

References
----------
projectcalico/calico@v3.30.0 cni-plugin/pkg/k8s/k8s.go (CmdAddK8s)
projectcalico/calico@v3.30.0 cni-plugin/internal/pkg/utils/network_linux.go (DoNetworking)
projectcalico/calico@v3.30.0 cni-plugin/pkg/ipamplugin/ipam_plugin.go (cmdAdd, cmdDel)
projectcalico/calico@v3.30.0 manifests/calico.yaml (cni_network_config)
"""

from __future__ import annotations

from typing import Any

from kubenotes.cni.calico.dataplane import (DEFAULT_LINK_MTU, POD_GATEWAY, VETH_HOST_MAC, CalicoNetwork,
                                            add_workload, remove_workload, veth_name_for_workload)
from kubenotes.cni.calico.ipam import CalicoIPAM, IPAMError, IPPool
from kubenotes.cni.netns import Route
from kubenotes.cni.spec import ERR_INTERNAL, SUPPORTED_VERSIONS, CNIError, PluginCall, register_plugin

__all__ = ["DEFAULT_IPAM", "CALICO_NETWORK_NAME", "calico_conflist", "calico_plugins", "CalicoIPAMPlugin",
           "CalicoPlugin"]

#: The IPAM state both plugins use unless given another.
DEFAULT_IPAM = CalicoIPAM([IPPool()])
#: ``name`` of Calico's network config (calico.yaml).
CALICO_NETWORK_NAME = "k8s-pod-network"


def calico_conflist(nodename: str, *, mtu: int = DEFAULT_LINK_MTU - 20) -> dict:
    """The conflist calico-node installs on a node (``/etc/cni/net.d/10-calico.conflist``).

    ``calico`` (with ``calico-ipam`` and the ``k8s`` policy), then ``portmap``
    (host ports) and ``bandwidth`` (traffic shaping), as calico.yaml's
    ``cni_network_config`` lists them.

    Parameters
    ----------
    nodename : str
        The node's name (``__KUBERNETES_NODE_NAME__`` in the template).
    mtu : int
        The pods' MTU in bytes (default: 1500 − 20, IP-in-IP's); see
        :func:`kubenotes.cni.calico.dataplane.pod_mtu`.

    Returns
    -------
    dict
        A conflist: ``{"name": "k8s-pod-network", "cniVersion": "0.3.1", "plugins": [...]}``,
        ready for :class:`kubenotes.cni.manager.CNIManager`.

    Raises
    ------
    None
        Nothing is checked: any ``nodename`` and ``mtu`` are written as given.

    See Also
    --------
    CalicoPlugin, CalicoIPAMPlugin : the models of the binaries it names.

    Notes
    -----
    On a node, calico-node's install container fills the template's
    placeholders (``__KUBERNETES_NODE_NAME__``, ``__CNI_MTU__``, the
    kubeconfig's path); here they are arguments, and the MTU defaults to
    IP-in-IP's on a 1500-byte link instead of an auto-detected value.

    References
    ----------
    projectcalico/calico@v3.30.0 manifests/calico.yaml (cni_network_config)

    Examples
    --------
    >>> [p["type"] for p in calico_conflist("node-a")["plugins"]]
    ['calico', 'portmap', 'bandwidth']
    """
    return {"name": CALICO_NETWORK_NAME, "cniVersion": "0.3.1", "plugins": [
        {"type": "calico", "log_level": "info", "log_file_path": "/var/log/calico/cni/cni.log",
         "datastore_type": "kubernetes", "nodename": nodename, "mtu": mtu,
         "ipam": {"type": "calico-ipam"}, "policy": {"type": "k8s"},
         "kubernetes": {"kubeconfig": "/etc/cni/net.d/calico-kubeconfig"}},
        {"type": "portmap", "snat": True, "capabilities": {"portMappings": True}},
        {"type": "bandwidth", "capabilities": {"bandwidth": True}},
    ]}


def _node(call: PluginCall) -> str:
    return call.config.get("nodename") or getattr(call.host, "name", None) or "node"


def _handle(call: PluginCall) -> str:
    return f"{call.config.get('name') or CALICO_NETWORK_NAME}.{call.env.container_id}"


class CalicoIPAMPlugin:
    """``calico-ipam``: one IPv4 /32 per ADD from the node's blocks; DEL releases the handle.

    The handle is ``<network name>.<container id>``, so a retried ADD gets the
    same address; the node is the config's ``nodename`` (else the host's name).

    Parameters
    ----------
    ipam : CalicoIPAM, optional
        The IPAM state (pools, blocks, handles); default :data:`DEFAULT_IPAM`,
        shared with :class:`CalicoPlugin`.

    Returns
    -------
    CalicoIPAMPlugin
        A :class:`~kubenotes.cni.spec.CNIPlugin` holding ``ipam``; register it
        with :func:`~kubenotes.cni.spec.register_plugin`. ``add`` returns
        ``{"cniVersion", "ips": [{"address": "<ip>/32"}]}``.

    Raises
    ------
    CNIError
        Not from the constructor: ``add`` raises code 999 (``ERR_INTERNAL``)
        when the node's blocks and the pool are exhausted, ``check`` when the
        container's handle has no address.

    Notes
    -----
    IPv4 only; ``assign_ipv4``/``assign_ipv6``, pool selection by annotation
    and IPAM's datastore are not modelled.

    References
    ----------
    projectcalico/calico@v3.30.0 cni-plugin/pkg/ipamplugin/ipam_plugin.go (cmdAdd, cmdDel)

    Examples
    --------
    >>> from kubenotes.cni.spec import CNIEnv, run_plugin
    >>> plugin = CalicoIPAMPlugin(CalicoIPAM([IPPool(cidr="10.10.0.0/24")]))
    >>> register_plugin("calico-ipam", plugin)
    >>> conf = {"cniVersion": "1.0.0", "name": "k8s-pod-network", "nodename": "n1", "ipam": {"type": "calico-ipam"}}
    >>> run_plugin("calico-ipam", CNIEnv("ADD", "c1", "/ns", "eth0", path="/opt/cni/bin"), conf).result["ips"]
    [{'address': '10.10.0.128/32'}]
    >>> register_plugin("calico-ipam", CalicoIPAMPlugin())
    """

    supported_versions = SUPPORTED_VERSIONS

    def __init__(self, ipam: CalicoIPAM | None = None):
        self.ipam = ipam if ipam is not None else DEFAULT_IPAM

    def add(self, call: PluginCall) -> dict:
        handle = _handle(call)
        if handle in self.ipam.handles:  # a retried ADD gets the same address
            ip = self.ipam.handles[handle][0]
        else:
            try:
                ip = self.ipam.auto_assign(_node(call), handle)
            except IPAMError as e:
                raise CNIError(ERR_INTERNAL, str(e)) from None
        return {"cniVersion": call.cni_version, "ips": [{"address": f"{ip}/32"}]}

    def delete(self, call: PluginCall) -> None:
        self.ipam.release_by_handle(_handle(call))

    def check(self, call: PluginCall) -> None:
        if _handle(call) not in self.ipam.handles:
            raise CNIError(ERR_INTERNAL, f"no address assigned to handle {_handle(call)}")


class CalicoPlugin:
    """``calico``: the veth pair, the pod's /32 and its 169.254.1.1 routes, the host route.

    Parameters
    ----------
    network : CalicoNetwork, optional
        The cluster's Calico datastore: ADD writes the pod's workload endpoint
        into it (:func:`~kubenotes.cni.calico.dataplane.add_workload`, after which
        Felix programs every node's routes), DEL removes it. Without one, only the
        node's :class:`~kubenotes.cni.netns.Host` changes.

    Examples
    --------
    >>> from kubenotes.cni.netns import Host
    >>> from kubenotes.cni.spec import CNIEnv, run_plugin
    >>> register_plugin("calico-ipam", CalicoIPAMPlugin(CalicoIPAM([IPPool(cidr="10.10.0.0/24")])))
    >>> h = Host("n1")
    >>> ns = h.add_netns("/var/run/netns/cni-1")
    >>> env = CNIEnv("ADD", "c1", ns.path, "eth0", "K8S_POD_NAMESPACE=default;K8S_POD_NAME=web", "/opt/cni/bin")
    >>> out = run_plugin("calico", env, calico_conflist("n1")["plugins"][0] | {"cniVersion": "1.0.0", "name": "k8s-pod-network"}, host=h)
    >>> out.result["ips"], ns.ip_route()
    ([{'address': '10.10.0.128/32', 'interface': 1}], ['169.254.1.1 dev eth0 scope link', 'default via 169.254.1.1 dev eth0'])
    >>> h.root.ip_route()
    ['10.10.0.128 dev cali68caf03a5f4 scope link']
    >>> register_plugin("calico-ipam", CalicoIPAMPlugin())
    """

    supported_versions = SUPPORTED_VERSIONS

    def __init__(self, network: CalicoNetwork | None = None):
        self.network = network

    @staticmethod
    def _veth(call: PluginCall) -> str:
        a = call.env.args_dict()
        if a.get("K8S_POD_NAMESPACE") and a.get("K8S_POD_NAME"):
            return veth_name_for_workload(a["K8S_POD_NAMESPACE"], a["K8S_POD_NAME"])
        return veth_name_for_workload("", call.env.container_id)

    def add(self, call: PluginCall) -> dict:
        host = call.host
        if host is None:
            raise CNIError(ERR_INTERNAL, "calico model: no Host given")
        try:
            ns = host.netns(call.env.netns)
        except KeyError:
            raise CNIError(ERR_INTERNAL, f'failed to open netns "{call.env.netns}"') from None
        ipam_type = (call.config.get("ipam") or {}).get("type") or "calico-ipam"
        r = call.delegate(ipam_type, "ADD") or {}
        ips = r.get("ips") or []
        if not ips:
            raise CNIError(ERR_INTERNAL, "IPAM plugin returned missing IP config")
        mtu = int(call.config.get("mtu") or DEFAULT_LINK_MTU)
        veth = self._veth(call)
        try:
            hv, cont = host.create_veth(call.env.netns, call.env.ifname, veth, mtu=mtu,
                                        seed_key=call.env.container_id)
        except ValueError as e:
            call.delegate(ipam_type, "DEL")
            raise CNIError(ERR_INTERNAL, str(e)) from None
        hv.mac = VETH_HOST_MAC
        out_ips = []
        for ipc in ips:
            addr = ipc["address"]
            cont.addresses.append(addr)
            out_ips.append({"address": addr, "interface": 1})
            host.root.add_route(Route(addr.split("/")[0], dev=veth, scope="link"))
        ns.add_route(Route(POD_GATEWAY, dev=call.env.ifname, scope="link"))
        ns.add_route(Route("0.0.0.0/0", gw=POD_GATEWAY, dev=call.env.ifname))
        host.root.sysctls[f"net.ipv4.conf.{veth}.proxy_arp"] = "1"
        host.root.sysctls[f"net.ipv4.neigh.{veth}.proxy_delay"] = "0"
        host.root.sysctls[f"net.ipv4.conf.{veth}.forwarding"] = "1"
        host.root.sysctls["net.ipv4.ip_forward"] = "1"
        result: dict[str, Any] = {"cniVersion": call.cni_version,
                                  "interfaces": [{"name": veth, "mac": VETH_HOST_MAC},
                                                 {"name": call.env.ifname, "mac": cont.mac, "sandbox": call.env.netns}],
                                  "ips": out_ips, "dns": {}}
        self._write_endpoint(call, ips[0]["address"].split("/")[0], veth, cont.mac)
        return result

    def _write_endpoint(self, call: PluginCall, ip: str, veth: str, mac: str) -> None:
        """The WorkloadEndpoint (``CmdAddK8s``): the datastore learns the pod's address, node and veth."""
        a = call.env.args_dict()
        if self.network is None or not a.get("K8S_POD_NAME"):
            return
        node = _node(call)
        if node not in self.network.nodes:
            raise CNIError(ERR_INTERNAL, f"calico node {node!r} is not running (no calico-node)")
        add_workload(self.network, a.get("K8S_POD_NAMESPACE") or "default", a["K8S_POD_NAME"], node, ip,
                     veth=veth, mac=mac)

    def delete(self, call: PluginCall) -> None:
        ipam_type = (call.config.get("ipam") or {}).get("type") or "calico-ipam"
        call.delegate(ipam_type, "DEL")
        a = call.env.args_dict()
        if self.network is not None and a.get("K8S_POD_NAME"):
            remove_workload(self.network, a.get("K8S_POD_NAMESPACE") or "default", a["K8S_POD_NAME"])
        host = call.host
        if host is None:
            return
        veth = self._veth(call)
        host.root.interfaces.pop(veth, None)
        host.root.routes = [r for r in host.root.routes if r.dev != veth]
        ns = host.namespaces.get(call.env.netns)
        if ns is not None:
            ns.interfaces.pop(call.env.ifname, None)
            ns.routes = [r for r in ns.routes if r.dev != call.env.ifname]

    def check(self, call: PluginCall) -> None:
        host = call.host
        if host is not None and self._veth(call) not in host.root.interfaces:
            raise CNIError(ERR_INTERNAL, f"host veth {self._veth(call)} not found")


def calico_plugins(network: CalicoNetwork) -> dict[str, Any]:
    """The binaries calico-node's install container copies into a node's ``/opt/cni/bin``, bound to one cluster.

    Parameters
    ----------
    network : CalicoNetwork
        The cluster's Calico datastore (IPAM, nodes, workload endpoints).

    Returns
    -------
    dict of str to plugin
        ``{"calico": CalicoPlugin(network), "calico-ipam": CalicoIPAMPlugin(network.ipam)}``, for
        :class:`kubenotes.cni.manager.CNIManager`'s ``plugins``: they are found before the
        process-wide registered ones, so two clusters never share an IPAM.

    Raises
    ------
    None

    See Also
    --------
    calico_conflist : the network config that names them.

    References
    ----------
    projectcalico/calico@v3.30.0 cni-plugin/pkg/install/install.go (copies the binaries)

    Examples
    --------
    >>> from kubenotes.cni.calico.dataplane import new_network
    >>> net = new_network("vxlan")
    >>> p = calico_plugins(net)
    >>> sorted(p), p["calico"].network is net, p["calico-ipam"].ipam is net.ipam
    (['calico', 'calico-ipam'], True, True)
    """
    return {"calico": CalicoPlugin(network), "calico-ipam": CalicoIPAMPlugin(network.ipam)}


register_plugin("calico-ipam", CalicoIPAMPlugin())
register_plugin("calico", CalicoPlugin())
