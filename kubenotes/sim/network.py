"""The network side of a dump: what the control plane would have written, and a packet's walk over it.

kube-proxy and CoreDNS read Services, EndpointSlices and Nodes only
(:mod:`kubenotes.proxy`), and Calico's packet walk reads the network and what
kube-proxy programmed (:mod:`kubenotes.cni.calico.packet`). A hand-written
manifest or a ``kubectl get nodes,svc,pods -o yaml`` dump lacks part of that
state; this module fills it in with the code of the components that write
it, as they would have in a running cluster:

* :func:`allocate_service_ips`: the API server's ClusterIP and NodePort
  allocators (:mod:`kubenotes.apiserver.ipallocator`) for Services read
  without them;
* :func:`add_endpoint_slices`: the EndpointSlices the EndpointSlice
  controller (:func:`kubenotes.controllers.endpointslice.desired_endpoints`)
  would write for a Service with a selector and none in the input;
* :func:`kube_proxy_objects`: both, keeping the kinds kube-proxy reads;
* :func:`packet_walk`: Calico's network, then kube-proxy's state on every
  node, then the walk (:func:`kubenotes.cni.calico.packet.walk_packet`).

A simulated cluster can also be networked by Flannel (``spec.cluster.network:
{plugin: flannel, backend: vxlan|host-gw|wireguard}``, :func:`install_flannel`),
whose state lives in each node's :class:`~kubenotes.cni.netns.Host`: the
node-network walk (:func:`node_packet_walk`, :mod:`kubenotes.cni.walk`) reads
that state, whatever plugin wrote it (a bridge-only cluster too). The node-network
model's scope: Flannel and the reference plugins write it; Calico's dataplane and
walk still use Calico's own objects (:mod:`kubenotes.cni.calico.packet`), and
kube-proxy's rules are not loaded into the hosts: a Service destination gets the
endpoint kube-proxy would pick, applied as one DNAT where the packet enters the node.

A simulated cluster can be networked by Calico instead (a Scenario's
``spec.cluster.network``, :func:`parse_network`): :func:`install_pod_network`
starts calico-node on every Node and installs Calico's conflist and binaries
in each node's CNI layer, so that the kubelet's ``RunPodSandbox`` makes the
runtime run them and the pods' IPs come from Calico IPAM;
:func:`cluster_packet_walk` then walks the state that run produced.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/ipallocator (allocation of ClusterIPs)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/endpointslice/reconciler.go
kubernetes/kubernetes@v1.34.0 cmd/kube-proxy/app/server.go (the informers kube-proxy starts)
projectcalico/calico@v3.30.0 manifests/calico.yaml (calico-node, install-cni, CALICO_IPV4POOL_CIDR,
CALICO_IPV4POOL_BLOCK_SIZE, CALICO_IPV4POOL_IPIP/VXLAN)
"""

from __future__ import annotations

import random
from typing import Any, Iterable

from kubenotes.api.selectors import LabelSelector
from kubenotes.apiserver.ipallocator import allocate_node_port, allocate_service
from kubenotes.cni.calico.dataplane import (DEFAULT_LINK_MTU, DEFAULT_MODE, MODES, CalicoError, CalicoNetwork,
                                            new_network, program, start_node)
from kubenotes.cni.calico.ipam import DEFAULT_IPV4_POOL_CIDR, IPAMError
from kubenotes.cni.calico.packet import DEFAULT_PACKET_BYTES, default_pool_cidr, network_from_objects, walk_packet
from kubenotes.cni.calico.plugin import calico_conflist, calico_plugins
from kubenotes.cni.flannel import NO_POLICY_NOTE
from kubenotes.cni.flannel.network import FlannelNetwork, new_network as new_flannel_network, node_address
from kubenotes.cni.flannel.network import start_flanneld, sync as flannel_sync
from kubenotes.cni.flannel.plugin import flannel_conflist, flannel_plugins
from kubenotes.cni.manager import CNIManager
from kubenotes.cni.netns import Host, uplink_host
from kubenotes.cni.walk import WalkError, walk_packet as walk_node_network
from kubenotes.api.service import LABEL_SERVICE_NAME
from kubenotes.controllers.endpointslice import CONTROLLER_NAME, LABEL_MANAGED_BY, desired_endpoints
from kubenotes.proxy.endpoints import LABEL_TOPOLOGY_ZONE, proxy_state
from kubenotes.proxy.iptables import service_nat_chains

__all__ = [
    "ALLOCATION_SEED",
    "KUBE_PROXY_KINDS",
    "allocate_service_ips",
    "add_endpoint_slices",
    "kube_proxy_objects",
    "packet_walk",
    "NETWORK_PLUGINS",
    "NETWORK_FIELDS",
    "IP_POOL_FIELDS",
    "parse_network",
    "install_pod_network",
    "cluster_objects",
    "cluster_packet_walk",
    "pod_sandbox_network",
    "FLANNEL_BACKENDS",
    "install_flannel",
    "node_packet_walk",
]

#: Seed of the ClusterIP / NodePort allocation for Services read without them (plain manifests).
ALLOCATION_SEED = 0
#: The kinds kube-proxy watches.
KUBE_PROXY_KINDS = ("Node", "Service", "EndpointSlice")
#: ``spec.cluster.network.plugin`` values: the network add-ons a simulated cluster can run.
NETWORK_PLUGINS = ("calico", "flannel")
#: Keys of ``spec.cluster.network`` (``mode``, ``ipPool``: Calico's; ``backend``: Flannel's).
NETWORK_FIELDS = ("plugin", "mode", "ipPool", "backend")
#: ``spec.cluster.network.backend`` values for Flannel (its ``net-conf.json`` ``Backend.Type``).
FLANNEL_BACKENDS = ("vxlan", "host-gw", "wireguard")
#: Keys each plugin takes.
_PLUGIN_FIELDS = {"calico": ("plugin", "mode", "ipPool"), "flannel": ("plugin", "backend")}
#: Keys of ``spec.cluster.network.ipPool`` (Calico's IPPool ``spec`` names).
IP_POOL_FIELDS = ("cidr", "blockSize")


def _ns(o: dict) -> str:
    return (o.get("metadata") or {}).get("namespace") or "default"


def allocate_service_ips(objects: Iterable[dict]) -> list[dict]:
    """The objects, with each Service read without a cluster IP or node ports given those the API server would.

    Parameters
    ----------
    objects : iterable of dict
        API objects; only Services are looked at.

    Returns
    -------
    list of dict
        The objects in input order; a Service that needed an allocation is
        a copy (its ``spec`` and ports copied), the others are the input's.

    Raises
    ------
    KeyError
        A Service whose port has no ``port``.

    Notes
    -----
    Allocation follows the input order with ``random.Random(ALLOCATION_SEED)``
    over the IPs and ports of the Services allocated so far (and those that
    came with them): a ClusterIP (not for a headless Service), NodePorts for
    a NodePort or LoadBalancer Service, a ``healthCheckNodePort`` for a
    LoadBalancer Service with ``externalTrafficPolicy: Local``. ExternalName
    Services get nothing.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/storage/alloc.go (allocateCreate)

    Examples
    --------
    >>> svc = {"kind": "Service", "metadata": {"name": "web"}, "spec": {"type": "ClusterIP", "ports": [{"port": 80}]}}
    >>> out = allocate_service_ips([svc])
    >>> out[0]["spec"]["clusterIP"] != "", "clusterIP" in svc["spec"]
    (True, False)
    """
    objs = list(objects)
    services = [o for o in objs if o.get("kind") == "Service"]
    done: list[dict] = [s for s in services if ((s.get("spec") or {}).get("clusterIP"))]
    rng = random.Random(ALLOCATION_SEED)
    replaced: dict[int, dict] = {}
    for s in services:
        spec = s.get("spec") or {}
        needs_ports = (spec.get("type") in ("NodePort", "LoadBalancer")
                       and any(not p.get("nodePort") for p in spec.get("ports") or ()))
        needs_hc = (spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"
                    and not spec.get("healthCheckNodePort"))
        if spec.get("type") == "ExternalName" or (spec.get("clusterIP") and not needs_ports and not needs_hc):
            continue
        new = {**s, "spec": {**spec, "ports": [dict(p) for p in spec.get("ports") or ()]}}
        if new["spec"].get("clusterIP") != "None":
            allocate_service(new, done, rng)
        if needs_hc:
            used = {p.get("nodePort") for d in done + [new] for p in (d.get("spec") or {}).get("ports") or ()}
            new["spec"]["healthCheckNodePort"] = allocate_node_port(used, rng)
        done.append(new)
        replaced[id(s)] = new
    return [replaced.get(id(o), o) for o in objs]


def add_endpoint_slices(objects: Iterable[dict]) -> list[dict]:
    """The objects, then the EndpointSlices the EndpointSlice controller would write for Services without any.

    A Service with a selector (not ExternalName) and no EndpointSlice of an IP
    address type labelled ``kubernetes.io/service-name`` with it gets, per set
    of ports, one slice of the endpoints
    :func:`~kubenotes.controllers.endpointslice.desired_endpoints` derives
    from the Pods of its namespace that its selector matches (in name
    order), with the zone of their Node.

    Parameters
    ----------
    objects : iterable of dict
        Services, Pods, Nodes, EndpointSlices (other kinds are passed through).

    Returns
    -------
    list of dict
        The input objects, then the new slices (named ``<service>-<index>``,
        the index five digits wide, in the controller's order of port sets).

    Raises
    ------
    KeyError
        A Pod or Service without ``metadata.name``.

    Notes
    -----
    Simplified: one slice per port set, however many endpoints (the
    controller starts a new slice every 100); no ``ownerReferences``,
    ``generateName`` or resourceVersion. When the input holds two Services
    of the same namespace and name, the last one's selector is used.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/endpointslice/reconciler.go
    kubernetes/kubernetes@v1.34.0 pkg/controller/endpointslice/endpointslice_controller.go (syncService)

    Examples
    --------
    >>> objs = [{"kind": "Service", "metadata": {"name": "web", "namespace": "default"},
    ...          "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "protocol": "TCP"}]}},
    ...         {"kind": "Pod", "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"}},
    ...          "spec": {"nodeName": "n1"}, "status": {"podIP": "10.244.0.5",
    ...                                                 "conditions": [{"type": "Ready", "status": "True"}]}}]
    >>> sl = add_endpoint_slices(objs)[-1]
    >>> sl["metadata"]["name"], sl["endpoints"][0]["addresses"], sl["endpoints"][0]["conditions"]["ready"]
    ('web-00000', ['10.244.0.5'], True)
    """
    objs = list(objects)
    has_slices = {(_ns(o), ((o.get("metadata") or {}).get("labels") or {}).get(LABEL_SERVICE_NAME))
                  for o in objs if o.get("kind") == "EndpointSlice"
                  and (o.get("addressType") or "IPv4") in ("IPv4", "IPv6")}
    services = {(_ns(o), o["metadata"]["name"]): o for o in objs if o.get("kind") == "Service"}
    pods = [o for o in objs if o.get("kind") == "Pod"]
    zones = {o["metadata"]["name"]: ((o["metadata"].get("labels") or {}).get(LABEL_TOPOLOGY_ZONE) or "")
             for o in objs if o.get("kind") == "Node"}
    zones = {n: z for n, z in zones.items() if z}
    out = list(objs)
    for (ns, name), svc in sorted(services.items()):
        spec = svc.get("spec") or {}
        if (ns, name) in has_slices or spec.get("selector") is None or spec.get("type") == "ExternalName":
            continue
        selector = LabelSelector.from_set(spec["selector"])
        selected = sorted((p for p in pods if _ns(p) == ns and selector.matches(p["metadata"].get("labels"))),
                          key=lambda p: p["metadata"]["name"])
        for i, (ports, eps) in enumerate(desired_endpoints(svc, selected, zones).values()):
            out.append({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                        "metadata": {"name": f"{name}-{i:05d}", "namespace": ns,
                                     "labels": {LABEL_SERVICE_NAME: name, LABEL_MANAGED_BY: CONTROLLER_NAME}},
                        "addressType": "IPv4", "endpoints": eps, "ports": ports})
    return out


def kube_proxy_objects(objects: Iterable[dict]) -> list[dict]:
    """What kube-proxy's informers would hold for this input: Nodes, Services (allocated) and EndpointSlices.

    :func:`allocate_service_ips`, then :func:`add_endpoint_slices`, then only
    the :data:`KUBE_PROXY_KINDS`, in input order (the new slices last).

    Parameters
    ----------
    objects : iterable of dict
        API objects, e.g. from :func:`kubenotes.proxy.endpoints.load_proxy_objects`.

    Returns
    -------
    list of dict

    Raises
    ------
    KeyError
        See :func:`allocate_service_ips` and :func:`add_endpoint_slices`.

    See Also
    --------
    kubenotes.proxy.endpoints.proxy_state : reads them.

    Examples
    --------
    >>> objs = [{"kind": "Service", "metadata": {"name": "web", "namespace": "default"},
    ...          "spec": {"type": "ClusterIP", "selector": {"app": "web"}, "ports": [{"port": 80}]}},
    ...         {"kind": "Pod", "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"}},
    ...          "spec": {"nodeName": "n1"}, "status": {"podIP": "10.244.0.5"}}]
    >>> svc, sl = kube_proxy_objects(objs)
    >>> svc["spec"]["clusterIP"].startswith("10."), sl["kind"], sl["endpoints"][0]["addresses"]
    (True, 'EndpointSlice', ['10.244.0.5'])
    """
    return [o for o in add_endpoint_slices(allocate_service_ips(objects)) if o.get("kind") in KUBE_PROXY_KINDS]


def packet_walk(objects: Iterable[dict], src: str, dst: str, *, mode: str = DEFAULT_MODE,
                size_bytes: int = DEFAULT_PACKET_BYTES, seed: int = 0,
                pool_cidr: str | None = DEFAULT_IPV4_POOL_CIDR, link_mtu: int = DEFAULT_LINK_MTU) -> dict:
    """Walk one packet from pod ``src`` to pod or Service ``dst`` through Calico's dataplane and kube-proxy's DNAT.

    Builds Calico's network (:func:`~kubenotes.cni.calico.packet.network_from_objects`:
    the pods get their IPs), then what kube-proxy programs on every node
    (:func:`~kubenotes.proxy.endpoints.proxy_state` over
    :func:`kube_proxy_objects`, and the chain names of
    :func:`~kubenotes.proxy.iptables.service_nat_chains`), and walks the
    packet over them (:func:`~kubenotes.cni.calico.packet.walk_packet`).

    Parameters
    ----------
    objects : iterable of dict
        Nodes, Pods (placed with ``spec.nodeName``), Services, EndpointSlices; NetworkPolicies and
        Namespaces, which Felix enforces (:mod:`kubenotes.cni.calico.policy`).
    src : str
        ``namespace/pod``.
    dst : str
        ``namespace/pod`` (optionally ``:port``; default the pod's first
        ``containerPort``, else 80) or ``namespace/service:port`` (the port's
        number or name).
    mode : str
        A :data:`kubenotes.cni.calico.dataplane.MODES` value.
    size_bytes : int
        Length of the IP packet the source pod sends.
    seed : int
        Picks the source port and a Service's endpoint.
    pool_cidr : str or None
        The IPPool's cidr; None: :func:`~kubenotes.cni.calico.packet.default_pool_cidr` of the input.
    link_mtu : int

    Returns
    -------
    dict
        ``{"hops": [{"at", "action", "headers", "bytes"}], "overheadBytes": int, "mtu": int, "allowed": bool,
        "policy": list}``, as :func:`~kubenotes.cni.calico.packet.walk_packet` returns it.

    Raises
    ------
    CalicoError
        Unknown pod, Service or port; a pod without ``spec.nodeName``; a size
        out of range; bad Calico input.

    Examples
    --------
    >>> from kubenotes.cni.calico.dataplane import IPV4_ADDRESS_ANNOTATION
    >>> nodes = [{"kind": "Node", "metadata": {"name": n, "annotations": {IPV4_ADDRESS_ANNOTATION: ip}}}
    ...          for n, ip in (("node-a", "10.0.0.11/24"), ("node-b", "10.0.0.12/24"))]
    >>> pods = [{"kind": "Pod", "metadata": {"name": p, "namespace": "default"}, "spec": {"nodeName": n}}
    ...         for p, n in (("client", "node-a"), ("server", "node-b"))]
    >>> walk = packet_walk(nodes + pods, "default/client", "default/server", mode="vxlan", size_bytes=1000)
    >>> walk["overheadBytes"], walk["mtu"], [h["bytes"] for h in walk["hops"]]
    (50, 1450, [1000, 1000, 1050, 1050, 1050, 1000, 1000, 1000])
    >>> walk["hops"][2]["at"], walk["hops"][2]["headers"][:3]
    ('node-a/vxlan.calico', ['IPv4 10.0.0.11 > 10.0.0.12 UDP', 'UDP 50918 > 4789', 'VXLAN vni 4096'])
    """
    net, objs = network_from_objects(objects, mode=mode, pool_cidr=pool_cidr, link_mtu=link_mtu)
    return _walk(net, objs, kube_proxy_objects(objs), src, dst, size_bytes, seed)


def _walk(net: CalicoNetwork, objs: list[dict], seen: list[dict], src: str, dst: str, size_bytes: int,
          seed: int) -> dict:
    """kube-proxy's state on every node from what its informers hold (``seen``), then the walk."""
    kube_proxy = {node: proxy_state(seen, node) for node in sorted(net.nodes)}
    nat_chains: dict[Any, tuple[str, dict[str, str]]] = {}
    for state in kube_proxy.values():
        for name, (svc_chain, seps) in service_nat_chains(state).items():
            nat_chains.setdefault(name, (svc_chain, {}))[1].update(seps)
    return walk_packet(net, objs, src, dst, size_bytes=size_bytes, seed=seed, kube_proxy=kube_proxy,
                       nat_chains=nat_chains)


def parse_network(value: Any, fail: Any, field: str = "spec.cluster.network") -> dict:
    """Check a Scenario's ``spec.cluster.network``: which pod network the simulated cluster runs.

    Parameters
    ----------
    value : dict
        ``{"plugin": "calico", "mode": <a MODES value>, "ipPool": {"cidr": str, "blockSize": int}}``
        or ``{"plugin": "flannel", "backend": <a FLANNEL_BACKENDS value, default vxlan>}``;
        only ``plugin`` is required; a key of the other plugin is refused. ``mode`` defaults to calico.yaml's IP-in-IP
        (``ipip``), the pool's ``cidr`` to what calico-node picks for the cluster
        (:func:`~kubenotes.cni.calico.packet.default_pool_cidr`), ``blockSize`` to 26.
    fail : callable
        ``fail(field, message) -> Exception``: makes the one-line error (raised here).
    field : str
        The path of ``value`` in its document, for the messages.

    Returns
    -------
    dict
        ``value``, checked (a copy).

    Raises
    ------
    Exception
        What ``fail`` makes (a :class:`~kubenotes.errors.ManifestError` for a Scenario): not
        a mapping, an unknown key, plugin or mode, a malformed CIDR, a block size out of range.

    References
    ----------
    projectcalico/calico@v3.30.0 api/pkg/apis/projectcalico/v3/ippool.go (cidr, blockSize)

    Examples
    --------
    >>> def fail(f, m): return ValueError(f"{f}: {m}")
    >>> parse_network({"plugin": "calico", "mode": "vxlan", "ipPool": {"cidr": "10.244.0.0/16"}}, fail)["mode"]
    'vxlan'
    >>> parse_network({"plugin": "calico", "mode": "geneve"}, fail)
    Traceback (most recent call last):
    ValueError: spec.cluster.network.mode: Unsupported value: "geneve": supported values: "vxlan", "ipip", "bgp", "vxlan-crosssubnet", "ipip-crosssubnet"
    >>> parse_network({"plugin": "flannel", "backend": "udp"}, fail)
    Traceback (most recent call last):
    ValueError: spec.cluster.network.backend: Unsupported value: "udp": supported values: "vxlan", "host-gw", "wireguard"
    """
    def supported(values: Any) -> str:
        return ", ".join(f'"{v}"' for v in values)

    if not isinstance(value, dict):
        raise fail(field, f"Invalid value: expected a mapping, got {type(value).__name__}")
    for k in value:
        if k not in NETWORK_FIELDS:
            raise fail(f"{field}.{k}", f'Unsupported value: "{k}": supported values: {supported(NETWORK_FIELDS)}')
    if "plugin" not in value:
        raise fail(f"{field}.plugin", f"Required value: one of {supported(NETWORK_PLUGINS)}")
    if value["plugin"] not in NETWORK_PLUGINS:
        raise fail(f"{field}.plugin", f'Unsupported value: "{value["plugin"]}": supported values: '
                   + supported(NETWORK_PLUGINS))
    for k in value:
        if k not in _PLUGIN_FIELDS[value["plugin"]]:
            raise fail(f"{field}.{k}", f'Forbidden: not a {value["plugin"]} setting (it takes '
                       + supported(_PLUGIN_FIELDS[value["plugin"]]) + ")")
    if value["plugin"] == "flannel":
        backend = value.get("backend", "vxlan")
        if backend not in FLANNEL_BACKENDS:
            raise fail(f"{field}.backend", f'Unsupported value: "{backend}": supported values: '
                       + supported(FLANNEL_BACKENDS))
        return dict(value)
    mode = value.get("mode", DEFAULT_MODE)
    if mode not in MODES:
        raise fail(f"{field}.mode", f'Unsupported value: "{mode}": supported values: {supported(MODES)}')
    pool = value.get("ipPool", {})
    if not isinstance(pool, dict):
        raise fail(f"{field}.ipPool", f"Invalid value: expected a mapping, got {type(pool).__name__}")
    for k in pool:
        if k not in IP_POOL_FIELDS:
            raise fail(f"{field}.ipPool.{k}", f'Unsupported value: "{k}": supported values: '
                       + supported(IP_POOL_FIELDS))
    size = pool.get("blockSize")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int)):
        raise fail(f"{field}.ipPool.blockSize", f"Invalid value: {size!r}: must be an integer")
    try:
        new_network(mode, pool_cidr=str(pool.get("cidr", DEFAULT_IPV4_POOL_CIDR)), block_size=size)
    except IPAMError as e:
        if "spec.blockSize: " in str(e):
            why = str(e).split("spec.blockSize: ", 1)[1].replace(" must", ": must", 1)
            raise fail(f"{field}.ipPool.blockSize", f"Invalid value: {why}") from None
        raise fail(f"{field}.ipPool.cidr", f"Invalid value: {str(e).split('spec.cidr: ', 1)[-1]}") from None
    return {**value, **({"ipPool": dict(pool)} if "ipPool" in value else {})}


def install_pod_network(cluster: Any, network: dict) -> CalicoNetwork:
    """Install Calico on a cluster's nodes before they run pods: calico-node and its CNI config.

    What applying calico.yaml does to each node, in the model: calico-node
    starts (:func:`~kubenotes.cni.calico.dataplane.start_node`: the node's
    address, its tunnel address in VXLAN and IP-in-IP modes), its install
    container writes ``10-calico.conflist``
    (:func:`~kubenotes.cni.calico.plugin.calico_conflist`, the pod MTU of the
    mode) and copies ``calico`` and ``calico-ipam`` into ``/opt/cni/bin``
    (:func:`~kubenotes.cni.calico.plugin.calico_plugins`, bound to this
    cluster's datastore), and Felix programs the routes. From then on the
    kubelet's ``RunPodSandbox`` makes the runtime run that chain: the pod's IP
    comes from the node's block and reaches ``status.podIP`` through the CRI.

    Parameters
    ----------
    cluster : kubenotes.sim.cluster.Cluster
        Its Nodes (each needs an IPv4 ``InternalIP`` or calico-node's
        ``projectcalico.org/IPv4Address`` annotation) and their kubelet models.
    network : dict
        ``spec.cluster.network`` (see :func:`parse_network`).

    Returns
    -------
    CalicoNetwork
        The cluster's Calico datastore and every node's dataplane; it changes as
        pods are networked and torn down.

    Raises
    ------
    CalicoError
        A Node without an address, or a kubelet without a CNI layer (the stand-in).

    Notes
    -----
    Simplified: calico-node is not a DaemonSet pod here and writes nothing to
    the API (no ``projectcalico.org/*`` Node annotations, no IPAM CRDs); a Node
    added later gets no calico-node; Felix programs every node at once.

    References
    ----------
    projectcalico/calico@v3.30.0 manifests/calico.yaml (calico-node DaemonSet, install-cni)
    projectcalico/calico@v3.30.0 cni-plugin/pkg/install/install.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    ...         "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.11"}]}}
    >>> c = Cluster([node], network={"plugin": "calico", "mode": "vxlan"})
    >>> c.network.mode, c.network.nodes["n1"].tunnel_ip, [p["type"] for p in c.kubelets["n1"].cni.network.plugins]
    ('vxlan', '192.168.52.128', ['calico', 'portmap', 'bandwidth'])
    """
    if network.get("plugin") == "flannel":
        return install_flannel(cluster, network)
    nodes = cluster.list("nodes")
    pool = network.get("ipPool") or {}
    cidr = pool.get("cidr") or default_pool_cidr(nodes + cluster.list("configmaps", "kube-system"))
    net = new_network(network.get("mode", DEFAULT_MODE), pool_cidr=cidr, block_size=pool.get("blockSize"))
    for node in nodes:
        nn = start_node(net, node)
        kubelet = cluster.kubelets.get(nn.name)
        if kubelet is None or not hasattr(kubelet, "cni"):
            raise CalicoError(f"Node {nn.name}: Calico needs the kubelet model (the stand-in runs no CNI)")
        kubelet.cni = CNIManager(nn.name, calico_conflist(nn.name, mtu=net.mtu), plugins=calico_plugins(net),
                                 host=Host(nn.name, eth0_address=str(nn.interface), mtu=net.link_mtu))
    return program(net)


def cluster_objects(cluster: Any) -> list[dict]:
    """What the walk reads from a running cluster: Nodes, Pods, Services, EndpointSlices, Namespaces, NetworkPolicies.

    Parameters
    ----------
    cluster : kubenotes.sim.cluster.Cluster

    Returns
    -------
    list of dict
        Copies, in that order.

    Raises
    ------
    None
    """
    return [o for r in ("nodes", "pods", "services", "endpointslices", "namespaces", "networkpolicies")
            for o in cluster.list(r)]


def cluster_packet_walk(cluster: Any, src: str, dst: str, *, size_bytes: int = DEFAULT_PACKET_BYTES,
                        seed: int = 0) -> dict:
    """Walk a packet over the state a simulated cluster produced: Calico's dataplane and kube-proxy's view.

    The pods' addresses, veths and every node's routes are those Calico's CNI
    plugin and Felix gave them during the run (``cluster.network``, see
    :func:`install_pod_network`); the Services and EndpointSlices are those the
    API server and the EndpointSlice controller wrote, from which kube-proxy's
    state on each node is read (:func:`~kubenotes.proxy.endpoints.proxy_state`).

    Parameters
    ----------
    cluster : kubenotes.sim.cluster.Cluster
        Run with a ``network`` (``spec.cluster.network``).
    src, dst, size_bytes, seed
        As :func:`packet_walk`.

    Returns
    -------
    dict
        ``{"hops": [{"at", "action", "headers", "bytes"}], "overheadBytes": int, "mtu": int, "allowed": bool,
        "policy": list}``, as :func:`~kubenotes.cni.calico.packet.walk_packet` returns it.

    Raises
    ------
    CalicoError
        The cluster runs no Calico; an unknown pod, Service or port (see
        :func:`~kubenotes.cni.calico.packet.walk_packet`).

    See Also
    --------
    packet_walk : the same walk over manifests, networked on the spot.

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n},
    ...           "status": {"addresses": [{"type": "InternalIP", "address": ip}]}}
    ...          for n, ip in (("n1", "10.0.0.11"), ("n2", "10.0.0.12"))]
    >>> pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": p, "namespace": "default"},
    ...          "spec": {"nodeName": n, "containers": [{"name": "c", "image": "busybox"}]}}
    ...         for p, n in (("a", "n1"), ("b", "n2"))]
    >>> c = Cluster(nodes + pods, network={"plugin": "calico", "mode": "ipip"}); c.run(until=30)
    >>> walk = cluster_packet_walk(c, "default/a", "default/b", size_bytes=1000)
    >>> walk["overheadBytes"], walk["hops"][2]["at"], c.get("pods", "b", "default")["status"]["podIP"]
    (20, 'n1/tunl0', '192.168.52.65')
    """
    net = getattr(cluster, "network", None)
    if isinstance(net, FlannelNetwork):
        return node_packet_walk(cluster, src, dst, size_bytes=size_bytes, seed=seed)
    if net is None:
        raise CalicoError("the cluster runs no Calico network (set spec.cluster.network in its Scenario)")
    objs = cluster_objects(cluster)
    return _walk(net, objs, [o for o in objs if o.get("kind") in KUBE_PROXY_KINDS], src, dst, size_bytes, seed)


def pod_sandbox_network(cluster: Any, namespace: str, name: str) -> dict:
    """What networking one pod's sandbox took in a run: the runtime's CNI calls, their result, the routes left.

    Parameters
    ----------
    cluster : kubenotes.sim.cluster.Cluster
        A run with the kubelet model.
    namespace, name : str
        The pod (bound to a node, its sandbox running).

    Returns
    -------
    dict
        ``node``; ``sandboxId`` (``CNI_CONTAINERID``); ``netns`` (``CNI_NETNS``);
        ``calls``: the CNI layer's plugin calls for this sandbox, in order (the
        :attr:`kubenotes.cni.manager.CNIManager.trace` entries: ``network``,
        ``type``, ``command``, ``env``, ``stdin``, ``stdout``, ``delegated``);
        ``result``: the cached ADD result of ``eth0``; ``podRoutes`` and
        ``hostRoutes``: ``ip route`` in the pod's namespace and on the node;
        ``podIP``: the pod's ``status.podIP``.

    Raises
    ------
    kubenotes.errors.NotFound
        No such pod, or it has no running sandbox on a kubelet model.

    See Also
    --------
    install_pod_network, kubenotes.cni.manager.CNIManager

    Examples
    --------
    >>> from kubenotes.data import sample
    >>> from kubenotes.sim.cli import run
    >>> c = run([sample("network", "calico.yaml")], until=60)
    >>> s = pod_sandbox_network(c, "default", "client")
    >>> [(t["type"], t["command"]) for t in s["calls"]], s["result"]["ips"][0]["address"], s["podIP"]
    ([('loopback', 'ADD'), ('calico', 'ADD'), ('portmap', 'ADD'), ('bandwidth', 'ADD')], '192.168.41.129/32', '192.168.41.129')
    """
    from kubenotes.errors import NotFound

    pod = cluster.get("pods", name, namespace)
    node = ((pod or {}).get("spec") or {}).get("nodeName")
    kubelet = cluster.kubelets.get(node) if node else None
    runtime, cni = getattr(kubelet, "runtime", None), getattr(kubelet, "cni", None)
    sb = next((s for s in (runtime.sandboxes.values() if runtime is not None else ())
               if s.metadata.get("namespace") == namespace and s.metadata.get("name") == name and s.netns), None)
    if pod is None or sb is None or cni is None:
        raise NotFound(f"pod {namespace}/{name} has no networked sandbox on a kubelet model")
    calls = [t for t in cni.trace if t["env"].get("CNI_CONTAINERID") == sb.id]
    netns = cni.host.namespaces.get(sb.netns)
    return {"node": node, "sandboxId": sb.id, "netns": sb.netns, "calls": calls,
            "result": cni.cached_result(sb.id), "podRoutes": netns.ip_route() if netns is not None else [],
            "hostRoutes": cni.host.root.ip_route(), "podIP": (pod.get("status") or {}).get("podIP", "")}


def install_flannel(cluster: Any, network: dict) -> FlannelNetwork:
    """Install Flannel on a cluster's nodes: kube-flannel's CNI config on each node, flanneld once it has a podCIDR.

    What applying kube-flannel.yml does, in the model: the install-cni init
    container writes ``10-flannel.conflist``
    (:func:`~kubenotes.cni.flannel.plugin.flannel_conflist`: ``flannel`` then
    ``portmap``) and copies the ``flannel`` binary
    (:func:`~kubenotes.cni.flannel.plugin.flannel_plugins`) on every node, so the
    kubelet's ``RunPodSandbox`` runs it;
    flanneld (``--ip-masq --kube-subnet-mgr``) waits for the Node's
    ``spec.podCIDR`` (the node IPAM controller assigns it), creates its
    backend's device, writes ``/run/flannel/subnet.env`` and the masquerade
    rules, patches flannel's annotations onto the Node
    (``flannel.alpha.coreos.com/backend-type``, ``backend-data``,
    ``public-ip``, ``kube-subnet-manager``) and every flanneld programs the
    routes (and ARP/FDB entries, WireGuard peers) to the new subnet. Until a
    node's ``subnet.env`` exists, CNI ADD fails there with flannel's
    ``failed to load flannel 'subnet.env' file`` and the kubelet retries.

    Parameters
    ----------
    cluster : kubenotes.sim.cluster.Cluster
        Its Nodes (an IPv4 ``InternalIP`` each, /24 segments) and their kubelet models.
    network : dict
        ``spec.cluster.network``: ``{"plugin": "flannel", "backend": "vxlan"|"host-gw"|"wireguard"}``.

    Returns
    -------
    FlannelNetwork
        Every node's flanneld and network state (``.hosts()``), changing as the run goes.

    Raises
    ------
    kubenotes.cni.flannel.FlannelError
        A Node without an IPv4 InternalIP, a kubelet without a CNI layer, a podCIDR outside ``10.244.0.0/16``.

    Notes
    -----
    Simplified: flanneld is not a DaemonSet pod; it polls its Node every second
    until the podCIDR is there (upstream: a Node informer); the annotations are
    patched on the Node object (upstream patches the ``status`` subresource, which
    carries metadata too); the ``NetworkUnavailable`` condition is not written;
    the network is kube-flannel.yml's ``10.244.0.0/16``.

    References
    ----------
    flannel-io/flannel@v0.28.9 Documentation/kube-flannel.yml

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "spec": {"podCIDR": "10.244.1.0/24"},
    ...         "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.11"}]}}
    >>> c = Cluster([node], network={"plugin": "flannel", "backend": "vxlan"})
    >>> c.network.nodes["n1"].host.files["/run/flannel/subnet.env"].decode().split()[1:3]
    ['FLANNEL_SUBNET=10.244.1.1/24', 'FLANNEL_MTU=1450']
    >>> c.get("nodes", "n1")["metadata"]["annotations"]["flannel.alpha.coreos.com/backend-type"]
    'vxlan'
    """
    from kubenotes.cni.flannel import FlannelError

    net = new_flannel_network(network.get("backend", "vxlan"), seed=getattr(cluster, "seed", 0))
    client = cluster.server.client("flanneld")

    def start(node: dict, host: Host) -> None:
        _, annotations = start_flanneld(net, host, node)
        if annotations:
            client.patch("nodes", node["metadata"]["name"], {"metadata": {"annotations": annotations}})
        flannel_sync(net)

    def wait_for_pod_cidr(name: str, host: Host) -> Any:
        while True:
            node = cluster.server.get("nodes", None, name)
            if node is None:
                return
            if (node.get("spec") or {}).get("podCIDR"):
                start(node, host)
                return
            yield cluster.env.timeout(1.0)

    for node in cluster.list("nodes"):
        name = node["metadata"]["name"]
        kubelet = cluster.kubelets.get(name)
        if kubelet is None or not hasattr(kubelet, "cni"):
            raise FlannelError(f"Node {name}: Flannel needs the kubelet model (the stand-in runs no CNI)")
        host = uplink_host(name, node_address(node), seed=net.seed)
        kubelet.cni = CNIManager(name, flannel_conflist(), host=host, plugins=flannel_plugins())
        if (node.get("spec") or {}).get("podCIDR"):
            start(node, host)
        else:
            cluster.env.process(wait_for_pod_cidr(name, host))
    return net


def _pod_ip_and_port(cluster: Any, ref: str, default_port: int | None) -> tuple[str, int, str]:
    """``namespace/pod[:port]`` -> (pod IP, port, node)."""
    name, _, port = ref.partition(":")
    ns, _, pod_name = name.rpartition("/")
    pod = cluster.get("pods", pod_name, ns or "default")
    if pod is None:
        raise WalkError(f"no Pod or Service {ref!r} (give namespace/pod[:port] or namespace/service:port)")
    ip = (pod.get("status") or {}).get("podIP")
    if not ip:
        raise WalkError(f"pod {name} has no IP yet (its sandbox is not networked)")
    if port:
        number = int(port)
    elif default_port is not None:
        number = default_port
    else:
        number = next((p["containerPort"] for c in (pod.get("spec") or {}).get("containers") or ()
                       for p in c.get("ports") or () if p.get("containerPort")), 80)
    return ip, number, (pod.get("spec") or {}).get("nodeName", "")


def node_packet_walk(cluster: Any, src: str, dst: str, *, size_bytes: int = DEFAULT_PACKET_BYTES,
                     seed: int = 0) -> dict:
    """Walk a packet between two pods over the node-network state a run produced, whatever plugin wrote it.

    Reads every node's :class:`~kubenotes.cni.netns.Host` (the kubelet model's CNI layer) and
    walks it with :func:`kubenotes.cni.walk.walk_packet`: a Flannel cluster (its devices,
    routes, ARP/FDB entries, WireGuard peers) or a cluster networked by the default ``bridge``
    config (pods on other nodes are then unreachable: nothing routes pod subnets between nodes).

    Parameters
    ----------
    cluster : kubenotes.sim.cluster.Cluster
        A run with the kubelet model.
    src, dst : str
        ``namespace/pod``; ``dst`` optionally ``:port`` (default its first ``containerPort``, else 80),
        or ``namespace/service:port`` (number or name): kube-proxy's DNAT on the source's node
        picks the endpoint (with ``seed``), as in the Calico walk, and the walk goes on to it.
    size_bytes, seed
        As :func:`kubenotes.cni.walk.walk_packet`.

    Returns
    -------
    dict
        :func:`kubenotes.cni.walk.walk_packet`'s, with ``policy`` saying that no NetworkPolicy is
        enforced (Flannel's and bridge's case) and naming the cluster's NetworkPolicies left unenforced.

    Raises
    ------
    kubenotes.cni.walk.WalkError
        An unknown pod, a pod without an IP, a Service port unknown or without endpoints, a bad size.

    Examples
    --------
    >>> from kubenotes.data import sample
    >>> from kubenotes.sim.cli import run
    >>> c = run([sample("network", "flannel-vxlan.yaml")], until=60)
    >>> w = node_packet_walk(c, "default/client", "default/web-1-0", size_bytes=1000)
    >>> [h["at"] for h in w["hops"]][2:5], w["overheadBytes"], w["delivered"]
    (['node-0/flannel.1', 'node-0/eth0', 'node-1/flannel.1'], 50, True)
    """
    src_ip, _, src_node = _pod_ip_and_port(cluster, src, 0)
    d_name, _, d_port = dst.partition(":")
    d_ns, _, d_short = d_name.rpartition("/")
    svc = cluster.get("services", d_short, d_ns or "default") if cluster.get("pods", d_short, d_ns or "default") is None \
        else None
    dnat, proto = None, "TCP"
    if svc is not None:
        dst_ip, dport, proto, dnat = _kube_proxy_dnat(cluster, src_node, svc, d_port or "", seed)
        if not dst_ip:
            raise WalkError(dnat["action"])
    else:
        dst_ip, dport, _ = _pod_ip_and_port(cluster, dst, None)
    hosts: dict[str, Host] = {}
    labels: dict[tuple[str, str], str] = {}
    for name, kubelet in sorted(cluster.kubelets.items()):
        cni = getattr(kubelet, "cni", None)
        if cni is None:
            continue
        hosts[name] = cni.host
        runtime = getattr(kubelet, "runtime", None)
        for sb in (runtime.sandboxes.values() if runtime is not None else ()):
            if sb.netns:
                labels[(name, sb.netns)] = f"{sb.metadata.get('namespace')}/{sb.metadata.get('name')}"
    net = getattr(cluster, "network", None)
    who = "Flannel" if isinstance(net, FlannelNetwork) else "the bridge plugin"
    policies = [f"{_ns(p)}/{p['metadata']['name']}" for p in cluster.list("networkpolicies")]
    note = NO_POLICY_NOTE if isinstance(net, FlannelNetwork) else "the bridge plugin enforces no NetworkPolicy"
    policy = [{"enforcedBy": None, "note": note, "notEnforced": policies}]
    table = None
    if dnat is not None:  # the pod addresses the cluster IP; the node's PREROUTING DNAT picks the endpoint
        table = {f"{dnat['cluster_ip']}:{dnat['port']}": (dst_ip, dport, dnat["action"])}
        dst_ip, dport = dnat["cluster_ip"], dnat["port"]
    walk = walk_node_network(hosts, src_ip, dst_ip, size_bytes=size_bytes, protocol=proto, dport=dport, seed=seed,
                             labels=labels, policy=policy, dnat=table)
    walk["network"] = who
    return walk


def _kube_proxy_dnat(cluster: Any, node: str, svc: dict, port: str, seed: int) -> tuple[str, int, str, dict]:
    """kube-proxy's DNAT on ``node`` for a Service port, from what its informers hold (as the Calico walk does)."""
    from types import SimpleNamespace

    from kubenotes.cni.calico.packet import service_dnat

    objs = cluster_objects(cluster)
    seen = [o for o in objs if o.get("kind") in KUBE_PROXY_KINDS]
    state = proxy_state(seen, node)
    chains = {name: chain for name, chain in service_nat_chains(state).items()}
    if not port:
        port = str(((svc.get("spec") or {}).get("ports") or [{}])[0].get("port", ""))
    try:
        ip, number, proto, dnat = service_dnat(SimpleNamespace(node=node), svc, port, random.Random(seed),
                                                {node: state}, chains)
    except CalicoError as e:
        raise WalkError(str(e)) from None
    return ip, number, proto, dnat
