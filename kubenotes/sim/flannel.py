"""Chapter 06.00's Flannel: a three-node Flannel network per backend, what each subnet manager stores, a pod-to-pod walk.

:func:`example_network` runs flanneld on three Nodes (node-0 and node-1 on one L2 segment,
``10.0.0.0/24``; node-2 behind a router, in ``10.0.1.0/24``) with one backend, then the ``flannel``
CNI plugin adds a ``client`` pod on node-0 and a ``web-<i>-0`` pod on each node;
:func:`backend_walk` walks ``client`` to a web pod over that state with the generic
:func:`kubenotes.cni.walk.walk_packet` and returns node-0's tables beside it (what flanneld
programmed). :func:`subnet_manager_store` lists what flanneld writes where, for each subnet
manager. Everything here calls the Flannel model (:mod:`kubenotes.cni.flannel`); nothing
reimplements it.

Notes
-----
Built with :func:`kubenotes.cni.flannel.network.build_network` (no simulated cluster, no API
server: the Nodes' ``spec.podCIDR`` are given), so a widget answers at once; ``simulate`` on
``data/network/flannel-*.yaml`` runs the same code inside a cluster run
(:func:`kubenotes.sim.network.install_flannel`). Results are cached per argument tuple: treat
them as read-only.

References
----------
flannel-io/flannel@v0.28.9 main.go, pkg/subnet/kube/kube.go, pkg/subnet/etcd/registry.go,
pkg/backend/vxlan/vxlan_network.go, pkg/backend/hostgw/hostgw.go, pkg/backend/wireguard/wireguard_network.go
"""

from __future__ import annotations

from functools import lru_cache

from kubenotes.cni.encap import ENCAP_OVERHEAD_BYTES
from kubenotes.cni.flannel import NO_POLICY_NOTE
from kubenotes.cni.flannel.backend import BACKEND_ENCAP, backend_summary
from kubenotes.cni.flannel.network import FlannelNetwork, build_network, new_network, node_address, start_flanneld
from kubenotes.cni.flannel.plugin import flannel_conflist, flannel_plugins
from kubenotes.cni.flannel.subnet import SUBNET_FILE, FlannelError, MemoryEtcd
from kubenotes.cni.manager import CNIManager, pod_ips
from kubenotes.cni.netns import uplink_host
from kubenotes.cni.walk import walk_packet

__all__ = ["EXAMPLE_NODES", "WALK_BACKENDS", "DESTINATIONS", "example_nodes", "example_network", "backend_walk",
           "subnet_manager_store", "overhead_rows"]

#: The example's Nodes: name -> (InternalIP, spec.podCIDR); node-2 is in another /24, behind the router 10.0.0.1.
EXAMPLE_NODES = {"node-0": ("10.0.0.11", "10.244.0.0/24"), "node-1": ("10.0.0.12", "10.244.1.0/24"),
                 "node-2": ("10.0.1.13", "10.244.2.0/24")}
#: The backends the walk follows (udp's user-space forwarding is not walked).
WALK_BACKENDS = ("vxlan", "host-gw", "wireguard")
#: Where the walk can go from ``default/client`` on node-0: a pod on the same L2 segment, or behind a router.
DESTINATIONS = ("default/web-1-0", "default/web-2-0")


def example_nodes() -> list[dict]:
    """The example's Node objects (see :data:`EXAMPLE_NODES`).

    Examples
    --------
    >>> [(n["metadata"]["name"], n["spec"]["podCIDR"]) for n in example_nodes()][2]
    ('node-2', '10.244.2.0/24')
    """
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": {"podCIDR": cidr},
             "status": {"addresses": [{"type": "InternalIP", "address": ip}]}}
            for name, (ip, cidr) in EXAMPLE_NODES.items()]


@lru_cache(maxsize=8)
def _network(backend: str, seed: int) -> tuple[FlannelNetwork, dict[str, dict]]:
    net = build_network(example_nodes(), backend, seed=seed)
    pods: dict[str, dict] = {}
    for name, fn in net.nodes.items():
        cni = CNIManager(name, flannel_conflist(), host=fn.host, plugins=flannel_plugins())
        i = name.split("-")[1]
        for pod in (["client"] if name == "node-0" else []) + [f"web-{i}-0"]:
            result = cni.setup_pod_network("default", pod, f"sb-{pod}", f"/var/run/netns/{pod}")
            pods[f"default/{pod}"] = {"node": name, "ip": pod_ips(result)[0], "netns": f"/var/run/netns/{pod}"}
    return net, pods


def example_network(backend: str = "vxlan", *, seed: int = 0) -> tuple[FlannelNetwork, dict[str, dict]]:
    """The example's Flannel network with one backend, and its pods.

    Parameters
    ----------
    backend : str
        A Flannel backend type (``vxlan``, ``host-gw``, ``wireguard``, ``udp``).
    seed : int
        Seeds MAC addresses and keys.

    Returns
    -------
    (FlannelNetwork, dict)
        The network (every node's :class:`~kubenotes.cni.netns.Host` after flanneld and the CNI
        ADDs) and ``"namespace/pod" -> {"node", "ip", "netns"}``. Cached: do not modify.

    Raises
    ------
    FlannelError
        An unknown backend.

    Examples
    --------
    >>> net, pods = example_network("host-gw")
    >>> pods["default/web-1-0"], net.nodes["node-0"].errors
    ({'node': 'node-1', 'ip': '10.244.1.2', 'netns': '/var/run/netns/web-1-0'}, ['Error adding route to 10.244.2.0/24 via 10.0.1.13: network is unreachable'])
    """
    return _network(backend, seed)


@lru_cache(maxsize=64)
def _walk(backend: str, dst: str, size_bytes: int, seed: int) -> dict:
    if backend not in WALK_BACKENDS:
        raise FlannelError(f"backend {backend!r} is not walked (one of {', '.join(WALK_BACKENDS)}; udp forwards "
                           "in user space)")
    if dst not in DESTINATIONS:
        raise FlannelError(f"unknown destination {dst!r} (one of {', '.join(DESTINATIONS)})")
    net, pods = example_network(backend, seed=seed)
    labels = {(p["node"], p["netns"]): name for name, p in pods.items()}
    hosts = net.hosts()
    walk = walk_packet(hosts, pods["default/client"]["ip"], pods[dst]["ip"], size_bytes=size_bytes, dport=8080,
                       seed=seed, labels=labels, policy=[{"enforcedBy": None, "note": NO_POLICY_NOTE}])
    root = hosts["node-0"].root
    wg = root.interfaces.get("flannel-wg")
    return {"backend": backend, "to": dst, "toNode": pods[dst]["node"], "walk": walk,
            "routes": root.ip_route(), "neigh": root.ip_neigh(), "fdb": root.bridge_fdb(),
            "wgPeers": [f"peer {p.public_key} endpoint {p.endpoint} allowed-ips {','.join(p.allowed_ips)}"
                        for p in (wg.wg_peers if wg is not None else ())],
            "errors": list(net.nodes["node-0"].errors),
            "subnetEnv": hosts["node-0"].files[SUBNET_FILE].decode().splitlines()}


def backend_walk(backend: str = "vxlan", dst: str = "default/web-1-0", *, size_bytes: int = 1400,
                 seed: int = 0) -> dict:
    """Walk ``default/client`` (node-0) to a web pod on the example network, with node-0's tables.

    Parameters
    ----------
    backend : str
        One of :data:`WALK_BACKENDS`.
    dst : str
        One of :data:`DESTINATIONS`: ``default/web-1-0`` (node-1, same L2 segment) or
        ``default/web-2-0`` (node-2, behind the router ``10.0.0.1``).
    size_bytes : int
        The IP packet's length (at most the pod's MTU: 1450 for vxlan, 1420 for wireguard).
    seed : int

    Returns
    -------
    dict
        ``{"backend", "to", "toNode", "walk"}`` (:func:`kubenotes.cni.walk.walk_packet`'s result, TCP to
        port 8080) and node-0's state as the tools print it: ``routes`` (``ip route``), ``neigh``
        (``ip neigh``), ``fdb`` (``bridge fdb``), ``wgPeers`` (``wg show``), ``errors`` (flanneld's log),
        ``subnetEnv`` (``/run/flannel/subnet.env``). Cached: do not modify.

    Raises
    ------
    FlannelError
        A backend not walked or an unknown destination.
    kubenotes.cni.walk.WalkError
        A size outside 40 .. the pod's MTU.

    Examples
    --------
    >>> r = backend_walk("vxlan", "default/web-2-0", size_bytes=1000)
    >>> r["walk"]["delivered"], r["walk"]["overheadBytes"], r["routes"][3]
    (True, 50, '10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink')
    >>> backend_walk("host-gw", "default/web-2-0")["walk"]["hops"][-1]["action"].endswith(": dropped")
    True
    """
    return _walk(backend, dst, int(size_bytes), seed)


def subnet_manager_store(subnet_manager: str = "kube", backend: str = "vxlan", *, seed: int = 0) -> list[dict]:
    """What flanneld writes where for the example's Nodes, with one subnet manager.

    With ``kube`` (``--kube-subnet-mgr``, kube-flannel.yml's default) the lease is the Node's
    ``spec.podCIDR`` (the node IPAM controller's) and flanneld patches four
    ``flannel.alpha.coreos.com/*`` annotations onto the Node; the config is the ConfigMap's
    ``net-conf.json``. With ``etcd`` the config is the key ``/coreos.com/network/config`` and each
    flanneld creates ``/coreos.com/network/subnets/<ip>-<len>`` bound to an etcd lease of 24 h
    (renewed an hour before it expires).

    Parameters
    ----------
    subnet_manager : str
        ``kube`` or ``etcd``.
    backend : str
        The backend type written into the config and leases.
    seed : int
        Seeds the etcd manager's subnet choice and the VTEP MACs.

    Returns
    -------
    list of dict
        ``{"store", "key", "value", "ttlSeconds"}`` (``ttlSeconds`` None without a TTL), config first.

    Raises
    ------
    FlannelError
        An unknown subnet manager or backend.

    Examples
    --------
    >>> rows = subnet_manager_store("etcd", "host-gw")
    >>> [(r["key"], r["ttlSeconds"]) for r in rows][:2]
    [('/coreos.com/network/config', None), ('/coreos.com/network/subnets/10.244.50.0-24', 86400)]
    >>> [r["key"] for r in subnet_manager_store("kube")][1:5]  # doctest: +NORMALIZE_WHITESPACE
    ['node-0 flannel.alpha.coreos.com/backend-data', 'node-0 flannel.alpha.coreos.com/backend-type',
     'node-0 flannel.alpha.coreos.com/kube-subnet-manager', 'node-0 flannel.alpha.coreos.com/public-ip']
    """
    kv = MemoryEtcd(lambda: 0.0) if subnet_manager == "etcd" else None
    net = new_network(backend, subnet_manager=subnet_manager, kv=kv, seed=seed)
    rows: list[dict] = []
    if kv is None:
        rows.append({"store": "ConfigMap kube-flannel/kube-flannel-cfg", "key": "net-conf.json",
                     "value": net.config.to_json(), "ttlSeconds": None})
    for node in example_nodes():
        host = uplink_host(node["metadata"]["name"], node_address(node), seed=seed)
        _, annotations = start_flanneld(net, host, node)
        for key, value in sorted((annotations or {}).items()):
            rows.append({"store": f"Node {node['metadata']['name']} (metadata.annotations; spec.podCIDR "
                                  f"{node['spec']['podCIDR']})", "key": f"{node['metadata']['name']} {key}",
                         "value": value, "ttlSeconds": None})
    if kv is not None:
        for key, value, lease_id in kv.range("/coreos.com/network/"):
            rows.append({"store": "etcd", "key": key, "value": value,
                         "ttlSeconds": None if lease_id is None else kv.time_to_live(lease_id)})
    return rows


def overhead_rows(link_mtu: int = 1500) -> list[dict]:
    """Flannel's backends and Calico's modes side by side, from the one overhead table.

    Parameters
    ----------
    link_mtu : int
        The nodes' ``eth0`` MTU.

    Returns
    -------
    list of dict
        ``{"plugin", "mode", "encap", "overheadBytes", "mtu"}``: Flannel's four backends
        (:func:`kubenotes.cni.flannel.backend.backend_summary`, the MTU flanneld sets), then
        Calico's VXLAN, IP-in-IP, WireGuard and BGP (the link MTU minus the overhead).

    Raises
    ------
    kubenotes.cni.encap.EncapError or KeyError
        :data:`~kubenotes.cni.encap.ENCAP_OVERHEAD_BYTES` lacks an encapsulation a backend or mode needs (never
        with the shipped table).

    Examples
    --------
    >>> [(r["plugin"], r["mode"], r["overheadBytes"], r["mtu"]) for r in overhead_rows()][::2]
    [('Flannel', 'vxlan', 50, 1450), ('Flannel', 'wireguard', 60, 1420), ('Calico', 'vxlan', 50, 1450), ('Calico', 'wireguard', 60, 1440)]
    """
    rows = [{"plugin": "Flannel", "mode": r["backend"], "encap": BACKEND_ENCAP[r["backend"]],
             "overheadBytes": r["overheadBytes"], "mtu": r["mtu"]} for r in backend_summary(link_mtu)]
    for mode, encap in (("vxlan", "vxlan"), ("ipip", "ipip"), ("wireguard", "wireguard"), ("bgp", "none")):
        rows.append({"plugin": "Calico", "mode": mode, "encap": encap, "overheadBytes": ENCAP_OVERHEAD_BYTES[encap],
                     "mtu": link_mtu - ENCAP_OVERHEAD_BYTES[encap]})
    return rows
