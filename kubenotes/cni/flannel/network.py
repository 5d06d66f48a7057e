"""flanneld on every node of a cluster: one lease each, then every node programmed for every other lease.

:func:`build_network` is what applying kube-flannel.yml does to a set of nodes in
the model: each node's flanneld (a DaemonSet pod upstream) registers its
backend's device, acquires a lease from the subnet manager (the Kubernetes one
by default: the Node's ``spec.podCIDR``; or the etcd one), writes
``subnet.env`` and its masquerade rules; then each flanneld handles the other
nodes' leases (:func:`sync`). The state lives in each node's
:class:`~kubenotes.cni.netns.Host`, which the ``flannel`` CNI plugin then
changes pod by pod; :func:`kubenotes.cni.walk.walk_packet` walks it.

Notes
-----
Simplified: flanneld is started in node order and the lease watch is one
:func:`sync` call (upstream: a watch per node, events applied as they come);
Nodes get flannel's annotations through the returned patches (the caller
writes them to the API).

References
----------
flannel-io/flannel@v0.28.9 main.go (run: backend, lease, WriteSubnetFile, setupIPMasq, network.Run)
flannel-io/flannel@v0.28.9 Documentation/kube-flannel.yml (--ip-masq --kube-subnet-mgr)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any, Iterable

from kubenotes.cni.flannel.backend import FlannelNode, complete_lease, handle_subnet_events, register_network
from kubenotes.cni.flannel.subnet import (CONFIG_KEY, DEFAULT_NETWORK, EtcdSubnetManager, FlannelError,
                                          KubeSubnetManager, Lease, MemoryEtcd, NetConfig, parse_net_config)
from kubenotes.cni.netns import Host, uplink_host

__all__ = ["SUBNET_MANAGERS", "FlannelNetwork", "node_address", "new_network", "start_flanneld", "sync",
           "build_network"]

#: ``kube`` (``--kube-subnet-mgr``) or ``etcd``.
SUBNET_MANAGERS = ("kube", "etcd")


@dataclass
class FlannelNetwork:
    """A cluster's Flannel: the config, the subnet manager, every node's flanneld.

    Attributes
    ----------
    config : NetConfig
    manager : KubeSubnetManager or EtcdSubnetManager
    nodes : dict of str to FlannelNode
    ip_masq : bool
    seed : int
    """

    config: NetConfig
    manager: Any
    nodes: dict[str, FlannelNode] = field(default_factory=dict)
    ip_masq: bool = True
    seed: int = 0

    @property
    def backend_type(self) -> str:
        """``Backend.Type``."""
        return self.config.backend_type

    def hosts(self) -> dict[str, Host]:
        """Every node's network state, by node name."""
        return {name: fn.host for name, fn in self.nodes.items()}

    def leases(self) -> list[Lease]:
        """The leases of the running flanneld instances (node order)."""
        return [fn.lease for fn in self.nodes.values() if fn.lease is not None]


def node_address(node: dict) -> str:
    """A Node's ``InternalIP`` with a /24 prefix (its L2 segment in the model).

    Raises
    ------
    FlannelError
        A Node without an IPv4 InternalIP.

    Examples
    --------
    >>> node_address({"metadata": {"name": "n"}, "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.11"}]}})
    '10.0.0.11/24'
    """
    for a in (node.get("status") or {}).get("addresses") or ():
        if a.get("type") == "InternalIP":
            try:
                return str(ipaddress.IPv4Interface(f"{a['address']}/24"))
            except ValueError:
                continue
    raise FlannelError(f"Node {(node.get('metadata') or {}).get('name', '')}: no IPv4 InternalIP "
                       "(flanneld's public IP)")


def new_network(backend: str = "vxlan", *, network: str = DEFAULT_NETWORK, subnet_manager: str = "kube",
                kv: MemoryEtcd | None = None, ip_masq: bool = True, seed: int = 0) -> FlannelNetwork:
    """A Flannel network with no node yet: the config (in etcd for the etcd manager) and the manager.

    Raises
    ------
    FlannelError
        An unknown backend or subnet manager, a bad network.

    Examples
    --------
    >>> new_network("host-gw").config.backend_type, new_network(subnet_manager="etcd").manager.kv.get(CONFIG_KEY)
    ('host-gw', '{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}')
    """
    if subnet_manager not in SUBNET_MANAGERS:
        raise FlannelError(f"unknown subnet manager {subnet_manager!r} (one of {', '.join(SUBNET_MANAGERS)})")
    conf_json = {"Network": network, "Backend": {"Type": backend}}
    config = parse_net_config(conf_json)
    if subnet_manager == "kube":
        manager: Any = KubeSubnetManager(config)
    else:
        kv = kv if kv is not None else MemoryEtcd(lambda: 0.0)
        import json

        kv.put(CONFIG_KEY, json.dumps(conf_json))
        manager = EtcdSubnetManager(kv, seed=seed)
    return FlannelNetwork(config, manager, ip_masq=ip_masq, seed=seed)


def start_flanneld(net: FlannelNetwork, host: Host, node: dict | None = None) -> tuple[FlannelNode, dict | None]:
    """One node's flanneld up to its lease: device, lease, ``subnet.env``, masquerade rules.

    Parameters
    ----------
    net : FlannelNetwork
    host : Host
        The node's state (``eth0`` addressed).
    node : dict, optional
        The Node object (required by the Kubernetes subnet manager: its ``spec.podCIDR``).

    Returns
    -------
    (FlannelNode, dict or None)
        The node's flanneld and, with the Kubernetes manager, the annotations to patch onto the Node.

    Raises
    ------
    FlannelError
        No podCIDR (``node "X" pod cidr not assigned``), a podCIDR outside the network, out of subnets.
    """
    fn = register_network(host, net.config, seed=net.seed)
    annotations = None
    if isinstance(net.manager, KubeSubnetManager):
        if node is None:
            raise FlannelError(f'node "{host.name}": the Kubernetes subnet manager needs the Node object')
        lease, annotations = net.manager.acquire_lease(node, fn.public_ip, fn.backend_type, fn.backend_data)
    else:
        lease = net.manager.acquire_lease(fn.public_ip, fn.backend_type, fn.backend_data)
    complete_lease(fn, lease, net.config, ip_masq=net.ip_masq)
    net.nodes[host.name] = fn
    return fn, annotations


def sync(net: FlannelNetwork) -> dict[str, list[str]]:
    """Every flanneld handles every other node's lease (``EventAdded``); node -> what it programmed."""
    leases = net.leases()
    return {name: handle_subnet_events(fn, leases) for name, fn in net.nodes.items()}


def build_network(nodes: Iterable[dict], backend: str = "vxlan", *, network: str = DEFAULT_NETWORK,
                  subnet_manager: str = "kube", link_mtu: int = 1500, seed: int = 0) -> FlannelNetwork:
    """Flannel on a set of Nodes, from scratch: each node's uplink, flanneld, then the lease sync.

    Parameters
    ----------
    nodes : iterable of dict
        Nodes with an IPv4 ``InternalIP`` (and ``spec.podCIDR`` for the Kubernetes manager).
    backend : str
        A :data:`~kubenotes.cni.flannel.subnet.BACKEND_TYPES` value.
    network, subnet_manager, link_mtu, seed
        See :func:`new_network`; ``link_mtu`` is every ``eth0``'s MTU.

    Returns
    -------
    FlannelNetwork

    Raises
    ------
    FlannelError
        See :func:`new_network`, :func:`node_address` and :func:`start_flanneld`.

    Examples
    --------
    >>> nodes = [{"metadata": {"name": f"n{i}"}, "spec": {"podCIDR": f"10.244.{i}.0/24"},
    ...           "status": {"addresses": [{"type": "InternalIP", "address": f"10.0.0.1{i}"}]}} for i in (1, 2)]
    >>> net = build_network(nodes, "vxlan")
    >>> net.nodes["n1"].host.root.ip_route()[-1], net.nodes["n1"].host.root.ip_neigh()
    ('10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink', ['10.244.2.0 dev flannel.1 lladdr 5e:d3:53:39:43:96 PERMANENT'])
    """
    net = new_network(backend, network=network, subnet_manager=subnet_manager, seed=seed)
    for node in nodes:
        name = node["metadata"]["name"]
        start_flanneld(net, uplink_host(name, node_address(node), mtu=link_mtu, seed=seed), node)
    sync(net)
    return net
