"""A packet's walk between two pods (or a pod and a Service) through Calico's dataplane, hop by hop.

Each hop names where the packet is (``node/interface``; a pod's interface is
``node/namespace/pod:eth0``), what happens there (a route lookup, kube-proxy's
DNAT, a header pushed or popped), the header stack afterwards, outermost
first, and the packet's length in bytes (the IP datagram: what an MTU limits;
the link's own Ethernet header is not counted). The result has exactly the
keys ``hops``, ``overheadBytes`` (bytes the encapsulation adds on this path:
VXLAN 50, IP-in-IP 20, none 0), ``mtu`` (the pod's MTU in this mode),
``allowed`` (whether NetworkPolicy lets the flow through) and ``policy``
(Felix's verdict at each end it reached: egress at the source pod's
``cali-fw-`` chain, ingress at the destination pod's ``cali-tw-`` chain,
:meth:`kubenotes.cni.calico.policy.Verdict.to_dict`).

The walk follows what a Linux node with Calico does: the pod's default route
to ``169.254.1.1`` and proxy ARP on the ``cali`` veth; for a Service
destination, kube-proxy's iptables DNAT in ``nat PREROUTING``
(``KUBE-SERVICES`` → ``KUBE-SVC-*`` → ``KUBE-SEP-*``, read from the state
kube-proxy produced on the node and the chain names its iptables mode gave
them, both handed in by the caller); the node's route to the
destination block (:mod:`kubenotes.cni.calico.dataplane`); the VXLAN or
IP-in-IP encapsulation and its removal on the other node; the underlay
router when the nodes are in different subnets; delivery through the
destination pod's veth. NetworkPolicies in the input are enforced as Felix
does (:mod:`kubenotes.cni.calico.policy`): a flow a policy does not allow is
dropped at the chain that refused it, and the walk ends there.

:func:`example_cluster` builds the chapter's small cluster as API dicts to walk
through, and :func:`mode_summary` what one mode costs (pod MTU, overhead,
fragments, BGP sessions).

Notes
-----
Simplified: the endpoint a Service connection reaches is drawn uniformly
from the ready endpoints with ``random.Random(seed)`` (what the iptables
``statistic --probability`` chain does, probability 1/(n−i) for endpoint i of
n); session affinity, ``externalTrafficPolicy`` and the reply path (conntrack
reverses the DNAT) are not walked; only Kubernetes NetworkPolicies are
enforced (see :mod:`kubenotes.cni.calico.policy` for what is left out);
a packet larger than the pod MTU is shown as its first fragment.

References
----------
projectcalico/calico@v3.30.0 felix/dataplane/linux/vxlan_mgr.go, route_mgr.go
projectcalico/calico@v3.30.0 felix/rules/endpoints.go (cali-fw-*, cali-tw-* and the policy chains)
kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (KUBE-SERVICES, KUBE-SVC-*, KUBE-SEP-*)
https://datatracker.ietf.org/doc/html/rfc7348 (VXLAN), https://datatracker.ietf.org/doc/html/rfc2003 (IP in IP)
"""

from __future__ import annotations

import copy
import hashlib
import math
import random
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from kubenotes.cni.calico.bgp import bgp_session_count, bgp_sessions
from kubenotes.cni.calico.dataplane import (DEFAULT_LINK_MTU, DEFAULT_MODE, IPIP_DEVICE, IPIP_OVERHEAD_BYTES,
                                            IPV4_ADDRESS_ANNOTATION, POD_GATEWAY, VETH_HOST_MAC, VXLAN_DEVICE,
                                            VXLAN_OVERHEAD_BYTES, VXLAN_PORT, VXLAN_VNI, CalicoError, CalicoNetwork,
                                            PodNet, build_network, encap_overhead_bytes, node_hosts, pod_mtu)
from kubenotes.cni.calico.ipam import DEFAULT_IPV4_POOL_CIDR
from kubenotes.cni.calico.policy import EGRESS, INGRESS, Endpoint, PolicySet
from kubenotes.cni.walk import walk_packet as walk_node_network

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

__all__ = [
    "default_pool_cidr",
    "DEFAULT_PACKET_BYTES",
    "IPV4_HEADER_BYTES",
    "HEADER_BYTES",
    "cluster_graph",
    "network_from_objects",
    "walk_packet",
    "walk_table",
    "service_dnat",
    "felix_policy_hook",
    "service_dnat_hook",
    "example_cluster",
    "mode_summary",
]

#: Default ``--size``: an IP packet that fits every mode's pod MTU.
DEFAULT_PACKET_BYTES = 1400
IPV4_HEADER_BYTES = 20
_L4_BYTES = {"TCP": 20, "UDP": 8, "SCTP": 12}
#: Bytes of each header a walk's hops list (IPv4 and L4 without options; VXLAN's 8; an untagged Ethernet frame's 14):
#: ``VXLAN_OVERHEAD_BYTES`` is Ethernet + IPv4 + UDP + VXLAN.
HEADER_BYTES = {"IPv4": IPV4_HEADER_BYTES, **_L4_BYTES, "VXLAN": 8, "Ethernet": 14}


def _kind(o: dict) -> str:
    return o.get("kind") or ""


def default_pool_cidr(objects: Iterable[dict]) -> str:
    """The IPPool cidr calico-node creates when none is configured, for this input.

    calico-node (``CALICO_IPV4POOL_CIDR`` unset) takes kubeadm's pod subnet: the
    ``podSubnet`` of the ``kubeadm-config`` ConfigMap's ClusterConfiguration. A dump
    without it still shows the cluster's pod network in the Nodes' ``spec.podCIDR``:
    the smallest network holding them all is used. Without either,
    :data:`~kubenotes.cni.calico.ipam.DEFAULT_IPV4_POOL_CIDR` (``192.168.0.0/16``).

    Examples
    --------
    >>> default_pool_cidr([{"kind": "Node", "spec": {"podCIDR": "10.244.1.0/24"}},
    ...                    {"kind": "Node", "spec": {"podCIDR": "10.244.2.0/24"}}])
    '10.244.0.0/22'
    >>> default_pool_cidr([{"kind": "ConfigMap", "metadata": {"name": "kubeadm-config", "namespace": "kube-system"},
    ...                     "data": {"ClusterConfiguration": "networking:\\n  podSubnet: 10.32.0.0/12\\n"}}])
    '10.32.0.0/12'
    >>> default_pool_cidr([])
    '192.168.0.0/16'
    """
    import ipaddress

    from kubenotes.api.yamlutil import load as load_yaml

    objects = list(objects)
    for o in objects:
        md = o.get("metadata") or {}
        if _kind(o) == "ConfigMap" and md.get("name") == "kubeadm-config" and md.get("namespace") == "kube-system":
            try:
                cfg = load_yaml((o.get("data") or {}).get("ClusterConfiguration") or "") or {}  # as kubeadm reads it
                subnet = str(((cfg.get("networking") or {}).get("podSubnet")) or "").split(",")[0].strip()
                if subnet:
                    return str(ipaddress.ip_network(subnet, strict=False))
            except (ValueError, AttributeError):  # YAMLError is a ValueError
                pass
    nets = []
    for o in objects:
        if _kind(o) == "Node" and (o.get("spec") or {}).get("podCIDR"):
            try:
                net = ipaddress.ip_network(o["spec"]["podCIDR"], strict=False)
            except ValueError:
                continue
            if net.version == 4:
                nets.append(net)
    if not nets:
        return DEFAULT_IPV4_POOL_CIDR
    supernet = nets[0]
    while not all(n.subnet_of(supernet) for n in nets):
        supernet = supernet.supernet()
    return str(supernet)


def network_from_objects(objects: Iterable[dict], *, mode: str = DEFAULT_MODE,
                         pool_cidr: str | None = DEFAULT_IPV4_POOL_CIDR,
                         link_mtu: int = DEFAULT_LINK_MTU) -> tuple[CalicoNetwork, list[dict]]:
    """Build the Calico network of the input's Nodes and placed Pods.

    Parameters
    ----------
    objects : iterable of dict
        API objects with ``kind`` (a ``kubectl get -o yaml`` dump or a
        manifest list); only Nodes and Pods are read, the rest is passed
        through. Not changed: deep copies are returned.
    mode : str
        One of :data:`~kubenotes.cni.calico.dataplane.MODES` (``ipip``).
    pool_cidr : str or None
        The IPPool's cidr; None takes the cluster's pod network
        (:func:`default_pool_cidr`).
    link_mtu : int
        MTU of the nodes' ``eth0`` in bytes.

    Returns
    -------
    (CalicoNetwork, list of dict)
        The network, and the objects with every networked pod's
        ``status.podIP``/``podIPs`` filled in; a pod read without a pod IP
        and without conditions (a manifest, not a dump: the API defaults its
        phase to ``Pending``) is taken as ``Running`` and ``Ready``, so that
        its Services have endpoints.

    Raises
    ------
    CalicoError
        See :func:`kubenotes.cni.calico.dataplane.build_network`.

    See Also
    --------
    kubenotes.cni.calico.dataplane.build_network : the network from Nodes and Pods alone.

    Notes
    -----
    Upstream, the kubelet writes ``status.podIP`` from the CRI's sandbox
    status after Calico's CNI ADD; here it is written straight from the
    model's IPAM, and readiness is assumed for manifests.

    References
    ----------
    projectcalico/calico@v3.30.0 cni-plugin/pkg/k8s/k8s.go (CmdAddK8s)

    Examples
    --------
    >>> from kubenotes.cni.calico.dataplane import IPV4_ADDRESS_ANNOTATION
    >>> objs = [{"kind": "Node", "metadata": {"name": "n1", "annotations": {IPV4_ADDRESS_ANNOTATION: "10.0.0.11/24"}}},
    ...         {"kind": "Pod", "metadata": {"name": "web", "namespace": "default"}, "spec": {"nodeName": "n1"}}]
    >>> net, out = network_from_objects(objs, mode="bgp")
    >>> net.mode, sorted(net.pods), out[1]["status"]["podIP"], out[1]["status"]["phase"]
    ('bgp', ['default/web'], '192.168.52.128', 'Running')
    >>> "status" in objs[1]
    False
    """
    objects = [copy.deepcopy(o) for o in objects]
    nodes = [o for o in objects if _kind(o) == "Node"]
    pods = [o for o in objects if _kind(o) == "Pod"]
    if pool_cidr is None:
        pool_cidr = default_pool_cidr(objects)
    net = build_network(nodes, pods, mode=mode, pool_cidr=pool_cidr, link_mtu=link_mtu)
    for pod in pods:
        md = pod.get("metadata") or {}
        p = net.pods.get(f"{md.get('namespace') or 'default'}/{md.get('name')}")
        if p is None:
            continue
        st = pod.setdefault("status", {})
        fresh = not st.get("podIP") and not st.get("conditions")
        st["podIP"], st["podIPs"] = p.ip, [{"ip": p.ip}]
        if fresh:
            st["phase"] = "Running"
            st["conditions"] = [{"type": "Ready", "status": "True"}]
    return net, objects


def _split_ref(ref: str, flag: str) -> tuple[str, str, str | None]:
    name, _, port = ref.partition(":")
    ns, sep, pod = name.partition("/")
    if not sep or not ns or not pod:
        raise CalicoError(f"{flag} {ref}: expected NAMESPACE/NAME" + ("[:PORT]" if flag == "--to" else ""))
    return ns, pod, (port or None)


def _find(objects: Sequence[dict], kind: str, ns: str, name: str) -> dict | None:
    return next((o for o in objects if _kind(o) == kind and (o.get("metadata") or {}).get("name") == name
                 and ((o.get("metadata") or {}).get("namespace") or "default") == ns), None)


def _container_port(pod: dict) -> int | None:
    for c in (pod.get("spec") or {}).get("containers") or []:
        for p in c.get("ports") or []:
            if p.get("containerPort"):
                return int(p["containerPort"])
    return None


def _ip_header(src: str, dst: str, proto: str) -> str:
    return f"IPv4 {src} > {dst} {proto}"


def _l4_header(proto: str, sport: int, dport: int) -> str:
    return f"{proto} {sport} > {dport}"


def walk_packet(net: CalicoNetwork, objects: Sequence[dict], src: str, dst: str, *,
                size_bytes: int = DEFAULT_PACKET_BYTES, seed: int = 0,
                kube_proxy: Mapping[str, Any] | None = None,
                nat_chains: Mapping[Any, tuple[str, Mapping[str, str]]] | None = None) -> dict:
    """Walk one packet from pod ``src`` to pod or Service ``dst`` through the state the components produced.

    The walk reads Calico's network (:func:`network_from_objects`) and, for
    a Service destination, what kube-proxy programmed on the source pod's
    node; it computes neither. :func:`kubenotes.sim.network.packet_walk`
    builds both from manifests and calls it.

    The path is decided by the one node-network walker,
    :func:`kubenotes.cni.walk.walk_packet`, over the Host state Calico writes
    (:func:`kubenotes.cni.calico.dataplane.node_hosts`), with Felix's verdicts
    (:func:`felix_policy_hook`) and kube-proxy's DNAT (:func:`service_dnat_hook`)
    as its hooks; this function checks the input, draws the endpoint and the
    source port, and words the walker's trace as Calico's hops.

    Parameters
    ----------
    net : CalicoNetwork
        The nodes' and pods' network, as :func:`network_from_objects` builds it.
    objects : sequence of dict
        The objects :func:`network_from_objects` returned (pods with their IPs), for the Pods and Services named.
    src : str
        ``namespace/pod``.
    dst : str
        ``namespace/pod`` (optionally ``:port``; default the pod's first
        ``containerPort``, else 80) or ``namespace/service:port`` (the port's
        number or name).
    size_bytes : int
        Length of the IP packet the source pod sends.
    seed : int
        Picks the source port and a Service's endpoint.
    kube_proxy : mapping of str to ProxyState, optional
        Node name -> kube-proxy's state on that node
        (:func:`kubenotes.proxy.endpoints.proxy_state`); needed for a Service destination.
    nat_chains : mapping, optional
        Service port name (``ServicePortName``) -> (its ``KUBE-SVC-*`` chain,
        endpoint ``ip:port`` -> its ``KUBE-SEP-*`` chain), as kube-proxy's
        iptables mode names them (:func:`kubenotes.proxy.iptables.service_nat_chains`).

    Returns
    -------
    dict
        ``{"hops": [{"at", "action", "headers", "bytes"}], "overheadBytes": int, "mtu": int,
        "allowed": bool, "policy": [verdict, ...]}``: ``allowed`` is False when a
        NetworkPolicy verdict dropped the flow (the hops end at that chain);
        ``policy`` holds the egress verdict and, if the packet got that far,
        the ingress one (:meth:`kubenotes.cni.calico.policy.Verdict.to_dict`).

    Raises
    ------
    CalicoError
        Unknown pod, Service or port; a pod without ``spec.nodeName``; a size
        out of range; a Service destination without kube-proxy's state for the source node.
    kubenotes.errors.FieldError
        A NetworkPolicy selector the API server would have refused.

    See Also
    --------
    kubenotes.sim.network.packet_walk : the same walk from manifests.

    Examples
    --------
    >>> from kubenotes.cni.calico.dataplane import IPV4_ADDRESS_ANNOTATION
    >>> nodes = [{"kind": "Node", "metadata": {"name": n, "annotations": {IPV4_ADDRESS_ANNOTATION: ip}}}
    ...          for n, ip in (("node-a", "10.0.0.11/24"), ("node-b", "10.0.0.12/24"))]
    >>> pods = [{"kind": "Pod", "metadata": {"name": p, "namespace": "default"}, "spec": {"nodeName": n}}
    ...         for p, n in (("client", "node-a"), ("server", "node-b"))]
    >>> net, objs = network_from_objects(nodes + pods, mode="ipip")
    >>> walk = walk_packet(net, objs, "default/client", "default/server", size_bytes=1000)
    >>> walk["overheadBytes"], walk["mtu"], [h["at"] for h in walk["hops"]][2]
    (20, 1480, 'node-a/tunl0')
    """
    objs = list(objects)
    rng = random.Random(seed)
    s_ns, s_name, _ = _split_ref(src, "--from")
    if _find(objs, "Pod", s_ns, s_name) is None:
        raise CalicoError(f"--from {src}: no Pod {s_ns}/{s_name} in the input")
    sp = net.pods.get(f"{s_ns}/{s_name}")
    if sp is None:
        raise CalicoError(f"--from {src}: Pod {s_ns}/{s_name} has no spec.nodeName (or uses hostNetwork): "
                          "the walk needs the node it runs on")
    d_ns, d_name, d_port = _split_ref(dst, "--to")
    svc = _find(objs, "Service", d_ns, d_name) if d_port is not None else None
    mtu = net.mtu
    if svc is not None:
        dest_ip, dport, proto, dnat = service_dnat(sp, svc, d_port, rng, kube_proxy, nat_chains)
    else:
        dpod_obj = _find(objs, "Pod", d_ns, d_name)
        if dpod_obj is None:
            raise CalicoError(f"--to {dst}: no Pod or Service {d_ns}/{d_name} in the input")
        if f"{d_ns}/{d_name}" not in net.pods:
            raise CalicoError(f"--to {dst}: Pod {d_ns}/{d_name} has no spec.nodeName (or uses hostNetwork)")
        try:
            dport = int(d_port) if d_port is not None else (_container_port(dpod_obj) or 80)
        except ValueError:
            raise CalicoError(f"--to {dst}: port {d_port!r} must be a number for a Pod") from None
        dest_ip, proto, dnat = net.pods[f"{d_ns}/{d_name}"].ip, "TCP", None
    l4 = _L4_BYTES.get(proto, 20)
    if not (IPV4_HEADER_BYTES + l4 <= size_bytes <= 65535):
        raise CalicoError(f"--size {size_bytes}: must be between {IPV4_HEADER_BYTES + l4} "
                          f"(IPv4 + {proto} headers) and 65535")
    sport = rng.randint(32768, 60999)  # net.ipv4.ip_local_port_range
    first_dst = dnat["cluster_ip"] if dnat else dest_ip
    first_port = dnat["port"] if dnat else dport
    inner = [_ip_header(sp.ip, first_dst, proto), _l4_header(proto, sport, first_port)]
    n = size_bytes
    action = (f"{sp.key} sends {proto} {sp.ip}:{sport} > {first_dst}:{first_port}; its route "
              f"'default via {POD_GATEWAY} dev eth0' and proxy ARP (the host veth answers for {POD_GATEWAY} "
              f"with {VETH_HOST_MAC}) hand it to the node")
    if n > mtu:
        frag_payload = (mtu - IPV4_HEADER_BYTES) // 8 * 8
        count = math.ceil((n - IPV4_HEADER_BYTES) / frag_payload)
        n = IPV4_HEADER_BYTES + frag_payload
        action += (f"; {size_bytes} bytes exceed eth0's MTU {mtu}: the kernel sends {count} fragments "
                   f"(shown: the first, {n} bytes; TCP would keep segments under MSS {mtu - 40} instead)")
    if dnat is None or dnat["endpoint"] is not None:
        if net.pod_by_ip(dest_ip) is None:
            raise CalicoError(f"--to {dst}: endpoint {dest_ip} is not a pod in the input")
    # The one walker decides; this function words its hops as Calico's chapter does.
    hosts, labels = node_hosts(net)
    trace: list[dict] = []
    walk_node_network(hosts, sp.ip, first_dst, size_bytes=n, protocol=proto, dport=first_port, sport=sport,
                      labels=labels, dnat=service_dnat_hook(sp.node, dnat, dest_ip, dport) if dnat else None,
                      policy_hook=felix_policy_hook(net, objs), trace=trace)
    return _calico_hops(net, sp, trace, inner, n, action, proto, sport, dest_ip, dport, dnat)


def _calico_hops(net: CalicoNetwork, sp: PodNet, trace: list[dict], inner: list[str], n: int, action: str,
                 proto: str, sport: int, dest_ip: str, dport: int, dnat: dict | None) -> dict:
    """Calico's wording of a node-network walk's trace (:func:`kubenotes.cni.walk.walk_packet`)."""
    mtu = net.mtu
    hops: list[dict] = []
    overhead = 0
    verdicts = [t["verdict"] for t in trace if t["step"] == "policy"]

    def hop(at: str, action: str, headers: list[str], n: int) -> None:
        hops.append({"at": at, "action": action, "headers": list(headers), "bytes": n})

    def result(overhead: int) -> dict:
        return {"hops": hops, "overheadBytes": overhead, "mtu": mtu,
                "allowed": all(v["allowed"] for v in verdicts), "policy": verdicts}

    def step(name: str, host: str | None = None) -> dict | None:
        return next((t for t in trace if t["step"] == name and (host is None or t["host"] == host)), None)

    def verdict(direction: str) -> dict | None:
        return next((v for v in verdicts if v["direction"] == direction), None)

    def felix(v: dict) -> str:
        side = "from" if v["direction"] == EGRESS else "to"
        return (f"Felix's chain {v['chain']} (policy {side} the workload): "
                + (v["reason"] if v["allowed"] else f"dropped: {v['reason']}"))

    hop(f"{sp.node}/{sp.key}:eth0", action, inner, n)
    egress = verdict(EGRESS)
    if dnat is None:
        hop(f"{sp.node}/{sp.veth}", "arrives on the host end of the veth; " + felix(egress), inner, n)
    else:
        hop(f"{sp.node}/{sp.veth}", "arrives on the host end of the veth (kube-proxy's nat PREROUTING runs "
            "before Felix's filter chains)", inner, n)
        if step("reject") is not None:
            hop(f"{sp.node}/{sp.veth}", dnat["action"], inner, n)
            return result(0)
        inner = [_ip_header(sp.ip, dest_ip, proto), _l4_header(proto, sport, dport)]
        hop(f"{sp.node}/{sp.veth}", dnat["action"] + "; then " + felix(egress), inner, n)
    if not egress["allowed"]:
        return result(0)
    dpod = net.pod_by_ip(dest_ip)
    node = net.nodes[sp.node]
    ingress = verdict(INGRESS)
    local = next((t for t in trace if t["host"] == sp.node and (t["step"] == "veth-in" or (
        t["step"] == "policy" and t["direction"] == INGRESS))), None)
    if local is not None:
        hop(f"{sp.node}/{dpod.veth}", f"route '{local['route']}': forwarded to the destination pod's veth on the same "
            f"node; " + felix(ingress), inner, n)
        if not ingress["allowed"]:
            return result(0)
    else:
        remote = net.nodes[dpod.node]
        enc = step("encap")
        if enc is not None and enc["encap"] == "vxlan":
            overhead = VXLAN_OVERHEAD_BYTES
            usport = 32768 + int.from_bytes(hashlib.sha256(f"{sp.ip}{dest_ip}{sport}{dport}".encode())
                                            .digest()[:4], "big") % (61000 - 32768)
            outer = [_ip_header(node.ip, remote.ip, "UDP"), _l4_header("UDP", usport, VXLAN_PORT),
                     f"VXLAN vni {VXLAN_VNI}", f"Ethernet {node.vtep_mac} > {remote.vtep_mac}"]
            wire = outer + inner
            hop(f"{sp.node}/{VXLAN_DEVICE}",
                f"route '{enc['route']}'; neighbour {remote.tunnel_ip} lladdr {remote.vtep_mac} and FDB entry "
                f"{remote.vtep_mac} dst {remote.ip} (both from Felix): the kernel's vxlan driver pushes inner "
                f"Ethernet 14 + VXLAN 8 + UDP 8 + outer IPv4 20 = {overhead} bytes", wire, n + overhead)
        elif enc is not None:
            overhead = IPIP_OVERHEAD_BYTES
            wire = [_ip_header(node.ip, remote.ip, "IPIP (protocol 4)")] + inner
            hop(f"{sp.node}/{IPIP_DEVICE}", f"route '{enc['route']}': push an outer IPv4 header "
                f"{node.ip} > {remote.ip}, protocol 4 ({overhead} bytes)", wire, n + overhead)
        else:
            wire = inner
        sent = step("underlay") if enc is not None else next(
            t for t in trace if t["step"] in ("direct", "router-forward", "router-drop"))
        out_route = sent["out_route"] if enc is not None else sent["route"]
        hop(f"{sp.node}/eth0", f"route '{out_route}': transmitted "
            + ("encapsulated" if enc else "as is, no encapsulation") + f" towards {remote.name} ({remote.ip})",
            wire, n + overhead)
        if sent["step"] == "router-drop":
            hop(f"router/{node.gateway}", f"dropped: the underlay router between {node.subnet} and "
                f"{remote.subnet} has no route to {dest_ip} (pod addresses are only known to the nodes' "
                "BIRD; peer it with the fabric via a BGPPeer, or use an encapsulating mode)", wire, n)
            return result(0)
        if enc is not None and out_route.gw is not None:
            hop(f"router/{node.gateway}", f"the underlay routes {node.subnet} > {remote.subnet} by the outer "
                f"header; it never sees the pod addresses", wire, n + overhead)
        route_there = (step("policy", remote.name) or step("veth-in", remote.name) or {}).get("route")
        if enc is not None and enc["encap"] == "vxlan":
            hop(f"{remote.name}/eth0", f"UDP to {remote.ip} port {VXLAN_PORT}, the port the kernel's vxlan "
                f"driver listens on for {VXLAN_DEVICE} (no user-space process): the driver takes the datagram",
                wire, n + overhead)
            hop(f"{remote.name}/{VXLAN_DEVICE}", f"the kernel's vxlan driver decapsulates: pops outer IPv4, UDP, "
                f"VXLAN and inner Ethernet ({overhead} bytes, VNI {VXLAN_VNI}); route '{route_there}'",
                inner, n)
        elif enc is not None:
            hop(f"{remote.name}/eth0", f"IP protocol 4 to {remote.ip}: handed to {IPIP_DEVICE}", wire,
                n + overhead)
            hop(f"{remote.name}/{IPIP_DEVICE}", f"pop the outer IPv4 header ({overhead} bytes); "
                f"route '{route_there}'", inner, n)
        else:
            hop(f"{remote.name}/eth0", f"{dest_ip} is not local: forwarded by route "
                f"'{route_there}'", inner, n)
        hop(f"{remote.name}/{dpod.veth}", felix(ingress) + ("; into the pod's network namespace"
                                                             if ingress["allowed"] else ""), inner, n)
        if not ingress["allowed"]:
            return result(overhead)
    hop(f"{dpod.node}/{dpod.key}:eth0", f"delivered to {dpod.key} ({dest_ip}:{dport})", inner, n)
    return result(overhead)


def service_dnat(sp: PodNet, svc: dict, port: str, rng: random.Random, kube_proxy: Mapping[str, Any] | None,
                  nat_chains: Mapping[Any, tuple[str, Mapping[str, str]]] | None) -> tuple[str, int, str, dict]:
    """kube-proxy's DNAT on the source pod's node: the chosen endpoint and the hop's text.

    One home for the choice both packet walks use (Calico's and :mod:`kubenotes.cni.walk`'s): the Service port
    is looked up in the node's kube-proxy state, then an endpoint is drawn as the ``statistic --mode random``
    rules draw it (ready endpoints; local ones only for ``internalTrafficPolicy: Local``; serving-terminating
    ones when none is ready).

    Parameters
    ----------
    sp : PodNet
        The source; only its ``node`` is read.
    svc : dict
        The Service object.
    port : str
        The Service port's number or name.
    rng : random.Random
        Draws the endpoint.
    kube_proxy : mapping of str to ProxyState
        Node name to that node's kube-proxy state.
    nat_chains : mapping
        ServicePortName to (``KUBE-SVC-...`` chain, endpoint to ``KUBE-SEP-...`` chain).

    Returns
    -------
    tuple of (str, int, str, dict)
        Endpoint IP ("" when the Service has no endpoints), endpoint port, protocol, and the hop's record
        (``cluster_ip``, ``port``, ``endpoint``, ``action``).

    Raises
    ------
    CalicoError
        No kube-proxy state for the node, a Service kube-proxy ignores, or a port the Service lacks.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/iptables/proxier.go (writeServiceToEndpointRules)
    """
    md = svc.get("metadata") or {}
    ns, name = md.get("namespace") or "default", md.get("name")
    state = (kube_proxy or {}).get(sp.node)
    if state is None or nat_chains is None:
        raise CalicoError(f"--to {ns}/{name}:{port}: no kube-proxy state for node {sp.node} was given")
    infos = [i for k, i in state.services.items() if k.namespace == ns and k.name == name]
    if not infos:
        raise CalicoError(f"--to {ns}/{name}:{port}: kube-proxy ignores this Service "
                          "(ExternalName, headless or without a cluster IP)")
    info = next((i for i in infos if str(i.port) == port or i.name.port == port), None)
    if info is None:
        have = ", ".join(sorted(f"{i.port}" + (f" ({i.name.port})" if i.name.port else "") for i in infos))
        raise CalicoError(f"--to {ns}/{name}:{port}: the Service has no port {port} (ports: {have})")
    spn, proto = str(info.name), info.protocol
    svc_chain, sep_chains = nat_chains[info.name]
    eps = list(state.endpoints.get(info.name, ()))
    ready = [e for e in eps if e.ready]
    if info.internal_policy_local:
        ready = [e for e in ready if e.is_local]
    if not ready:
        ready = [e for e in eps if e.serving and e.terminating]
    base = {"cluster_ip": info.cluster_ip, "port": info.port}
    if not ready:
        return "", 0, proto, {**base, "endpoint": None, "action": (
            f"kube-proxy: {info.cluster_ip}:{info.port} has no endpoints: the filter rule in KUBE-SERVICES "
            f"REJECTs it (\"{spn} has no endpoints\", icmp-port-unreachable)")}
    i = rng.randrange(len(ready))
    ep = ready[i]
    sep = sep_chains[ep.endpoint()]
    action = (f"kube-proxy's iptables nat PREROUTING: KUBE-SERVICES matches {info.cluster_ip}:{info.port} "
              f"> {svc_chain} > {sep} (endpoint {i + 1} of {len(ready)}, each chosen with equal chance by "
              f"'statistic --mode random --probability'): DNAT {info.cluster_ip}:{info.port} > {ep.endpoint()}")
    return ep.ip, ep.port, proto, {**base, "endpoint": ep.endpoint(), "action": action}


def felix_policy_hook(net: CalicoNetwork, objects: Sequence[dict]) -> Any:
    """Felix's NetworkPolicy verdicts as a :data:`kubenotes.cni.walk.PolicyHook` for the node-network walk.

    The hook answers for a flow between two pods of ``net`` (by address) the verdict Felix's
    ``cali-fw-`` (egress, at the source's veth) or ``cali-tw-`` (ingress, at the destination's
    veth) chain gives, as :func:`walk_packet` judges it; None for an address that is not a pod's.

    Parameters
    ----------
    net : CalicoNetwork
    objects : sequence of dict
        Pods, Namespaces and NetworkPolicies (:func:`network_from_objects`'s output).

    Returns
    -------
    callable
        ``hook(direction, src_ip, dst_ip, protocol, dport) -> dict or None``
        (:meth:`kubenotes.cni.calico.policy.Verdict.to_dict`).

    Raises
    ------
    kubenotes.errors.FieldError
        A NetworkPolicy selector the API server would have refused.

    References
    ----------
    projectcalico/calico@v3.30.0 felix/rules/endpoints.go (cali-fw-*, cali-tw-*)

    Examples
    --------
    >>> net, objs = network_from_objects(example_cluster(2), mode="bgp")
    >>> hook = felix_policy_hook(net, objs)
    >>> v = hook("Egress", net.pods["default/client"].ip, net.pods["default/web-1-0"].ip, "TCP", 8080)
    >>> v["allowed"], v["chain"][:8]
    (True, 'cali-fw-')
    """
    objs = list(objects)
    policies = PolicySet(objs)

    def endpoint(p: PodNet) -> Endpoint:
        obj = _find(objs, "Pod", p.namespace, p.name) or {"metadata": {"namespace": p.namespace, "name": p.name}}
        return Endpoint.from_pod(obj, p.ip, p.veth)

    def hook(direction: str, src_ip: str, dst_ip: str, protocol: str, dport: int) -> dict | None:
        sp, dp = net.pod_by_ip(src_ip), net.pod_by_ip(dst_ip)
        if sp is None or dp is None:
            return None
        return policies.evaluate(endpoint(sp), endpoint(dp), protocol, dport, direction).to_dict()

    return hook


def service_dnat_hook(node: str, dnat: Mapping[str, Any], endpoint_ip: str, endpoint_port: int) -> Any:
    """kube-proxy's DNAT that :func:`service_dnat` chose, as a :data:`kubenotes.cni.walk.DnatHook`.

    It applies once, on ``node`` (the source pod's: the connection's first packet passes
    ``nat PREROUTING`` there), to packets for the Service's cluster IP and port; a Service without
    endpoints (``endpoint_ip`` empty) rejects them.

    Parameters
    ----------
    node : str
    dnat : mapping
        :func:`service_dnat`'s record (``cluster_ip``, ``port``, ``action``).
    endpoint_ip : str
    endpoint_port : int

    Returns
    -------
    callable
        ``hook(host, dst_ip, dport) -> (ip, port, why) or None``.

    Raises
    ------
    None

    Examples
    --------
    >>> hook = service_dnat_hook("n1", {"cluster_ip": "10.96.0.80", "port": 80, "action": "DNAT"}, "192.168.0.5", 8080)
    >>> hook("n2", "10.96.0.80", 80), hook("n1", "10.96.0.80", 80), hook("n1", "10.96.0.80", 80)
    (None, ('192.168.0.5', 8080, 'DNAT'), None)
    """
    done: list[bool] = []

    def hook(host: str, dst_ip: str, dport: int) -> tuple | None:
        if done or host != node or (dst_ip, dport) != (dnat["cluster_ip"], dnat["port"]):
            return None
        done.append(True)
        return endpoint_ip, endpoint_port, dnat["action"]

    return hook


def walk_table(walk: dict) -> str:
    """The walk as a text table (``-o table``): HOP, AT, BYTES, HEADERS (outermost first), ACTION.

    After the table: the overhead and pod MTU, then one line per NetworkPolicy
    verdict of the walk (``policy``) at an end some policy selects.

    Examples
    --------
    >>> print(walk_table({"hops": [{"at": "n/eth0", "action": "sent", "headers": ["IPv4 a > b TCP"],
    ...                              "bytes": 60}], "overheadBytes": 0, "mtu": 1500}))
    HOP   AT       BYTES   HEADERS          ACTION
    1     n/eth0   60      IPv4 a > b TCP   sent
    overhead 0 bytes, pod MTU 1500
    """
    rows = [("HOP", "AT", "BYTES", "HEADERS", "ACTION")]
    for i, h in enumerate(walk["hops"], 1):
        rows.append((str(i), h["at"], str(h["bytes"]), " | ".join(h["headers"]), h["action"]))
    widths = [max(len(r[c]) for r in rows) for c in range(4)]
    lines = ["   ".join(r[c].ljust(widths[c]) for c in range(4)) + "   " + r[4] for r in rows]
    lines.append(f"overhead {walk['overheadBytes']} bytes, pod MTU {walk['mtu']}")
    for v in walk.get("policy") or ():
        if v.get("note"):  # a network that enforces no policy (the node-network walk: Flannel, bridge)
            lines.append(v["note"] + (f"; not enforced: {', '.join(v['notEnforced'])}" if v.get("notEnforced") else ""))
            continue
        if not v["selectedBy"]:
            continue  # no NetworkPolicy isolates this end: nothing to say
        lines.append(f"{v['direction'].lower()} at {v['endpoint']} ({v['chain']}): "
                     + ("allowed" if v["allowed"] else "DROPPED") + f": {v['reason']}")
    return "\n".join(lines)


def example_cluster(node_count: int = 3, pods_per_node: int = 1, *, subnets: int = 1,
                    service: bool = True) -> list[dict]:
    """A small cluster as API dicts: ``node-0``.. with addresses, ``web-*`` pods and a ``web`` Service.

    Node *i* is ``10.0.<i mod subnets>.<11 + i>/24`` (the ``projectcalico.org/IPv4Address``
    annotation calico-node writes); pod ``web-<i>-<j>`` runs on node *i*
    (label ``app: web``, port 8080) and ``client`` on ``node-0``. The Service
    ``web`` maps port 80 to 8080 with a fixed cluster IP ``10.96.0.80``.

    Parameters
    ----------
    node_count : int
        Nodes ``node-0`` .. ``node-<node_count - 1>``.
    pods_per_node : int
        ``web`` pods on each node (``client`` comes on top, on ``node-0``).
    subnets : int
        Node subnets ``10.0.0.0/24`` .. ``10.0.<subnets - 1>.0/24``; node *i*
        is in subnet *i* mod ``subnets`` (2 makes neighbours cross a router,
        what the CrossSubnet modes look at).
    service : bool
        Add the ``web`` Service.

    Returns
    -------
    list of dict
        Nodes first, then ``client``, then the ``web`` pods (already bound:
        ``spec.nodeName`` set), then the Service; plain API dicts, as
        :func:`kubenotes.cni.calico.packet.network_from_objects` and
        :func:`kubenotes.sim.network.packet_walk` read them.

    Raises
    ------
    ZeroDivisionError
        ``subnets`` is 0 and there is at least one node.

    See Also
    --------
    network_from_objects, kubenotes.sim.network.packet_walk, kubenotes.viz.network.mode_panel

    Notes
    -----
    No upstream counterpart: a fixture of the chapter's cluster, with the
    node address annotation calico-node would write.

    References
    ----------
    https://docs.tigera.io/calico/latest/reference/resources/node

    Examples
    --------
    >>> [o["kind"] for o in example_cluster(2)]
    ['Node', 'Node', 'Pod', 'Pod', 'Pod', 'Service']
    """
    objs: list[dict] = []
    for i in range(node_count):
        objs.append({"apiVersion": "v1", "kind": "Node", "metadata": {
            "name": f"node-{i}", "annotations": {IPV4_ADDRESS_ANNOTATION: f"10.0.{i % subnets}.{11 + i}/24"}},
            "status": {"addresses": [{"type": "InternalIP", "address": f"10.0.{i % subnets}.{11 + i}"}]}})
    objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "client", "namespace": "default"},
                 "spec": {"nodeName": "node-0", "containers": [{"name": "c", "image": "busybox"}]}})
    for i in range(node_count):
        for j in range(pods_per_node):
            objs.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"web-{i}-{j}", "namespace": "default", "labels": {"app": "web"}},
                         "spec": {"nodeName": f"node-{i}", "containers": [
                             {"name": "web", "image": "nginx", "ports": [{"containerPort": 8080}]}]}})
    if service:
        objs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                     "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.80", "clusterIPs": ["10.96.0.80"],
                              "selector": {"app": "web"},
                              "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}})
    return objs


def mode_summary(node_count: int = 3, size_bytes: int = 1400, mode: str = "vxlan", reflectors: int = 0) -> dict:
    """What one mode costs: pod MTU, overhead, bytes on the wire, whether ``size_bytes`` fits, BGP sessions.

    Parameters
    ----------
    node_count : int
        Nodes in the BGP mesh.
    size_bytes : int
        IP packet size a pod sends, bytes.
    mode : str
        One of :data:`kubenotes.cni.calico.dataplane.MODES`.
    reflectors : int
        Route reflectors (0: full mesh).

    Returns
    -------
    dict
        ``mode``; ``mtu`` (pod MTU, bytes); ``overheadBytes``; ``wireBytes``
        (the largest packet on the wire: min(size, MTU) + overhead);
        ``fits`` (bool); ``fragments`` (IP fragments at the pod MTU);
        ``bgpSessions`` (0 for VXLAN modes, which run no BGP).

    Raises
    ------
    kubenotes.cni.calico.dataplane.CalicoError
        ``mode`` is not a Calico mode.

    See Also
    --------
    kubenotes.cni.calico.dataplane.pod_mtu, kubenotes.cni.calico.bgp.bgp_session_count

    Notes
    -----
    The link MTU is 1500; fragment counts assume a 20-byte IPv4 header.

    References
    ----------
    https://docs.tigera.io/calico/latest/networking/configuring/mtu
    https://docs.tigera.io/calico/latest/networking/configuring/bgp

    Examples
    --------
    >>> s = mode_summary(10, 1400, "vxlan")
    >>> s["mtu"], s["overheadBytes"], s["wireBytes"], s["fits"], s["bgpSessions"]
    (1450, 50, 1450, True, 0)
    >>> mode_summary(10, 1400, "bgp")["bgpSessions"]
    45
    """
    bgp = mode.split("-")[0] != "vxlan"
    mtu = pod_mtu(mode)
    overhead = encap_overhead_bytes(mode)
    return {"mode": mode, "mtu": mtu, "overheadBytes": overhead, "wireBytes": min(size_bytes, mtu) + overhead,
            "fits": size_bytes <= mtu, "fragments": -(-(size_bytes - 20) // ((mtu - 20) // 8 * 8)),
            "bgpSessions": bgp_session_count(node_count, reflectors) if bgp else 0}


def cluster_graph(net: CalicoNetwork, reflectors: Sequence[str] = ()) -> nx.Graph:
    """Pods, veths, node devices and BGP sessions of ``net`` as a graph.

    Parameters
    ----------
    net : CalicoNetwork
        The network (:func:`network_from_objects`).
    reflectors : sequence of str
        Route-reflector node names (none: a full mesh), as for
        :func:`~kubenotes.cni.calico.bgp.bgp_sessions`.

    Returns
    -------
    networkx.Graph
        Vertices have ``kind`` (``host``, ``eth0``, ``vxlan``, ``ipip``, ``veth``,
    ``pod``), ``node`` and ``label``; edges have ``kind`` (``veth`` pair,
    ``device`` on a host, ``bgp`` session, ``tunnel`` between tunnel devices:
        one per pair of nodes whose traffic is encapsulated).

    Raises
    ------
    CalicoError
        When a reflector is not a node of ``net``.

    See Also
    --------
    kubenotes.viz.network.cluster_figure : draws it.

    References
    ----------
    projectcalico/calico (v3.30) felix/dataplane/linux (the veth, vxlan.calico and tunl0 devices)

    Examples
    --------
    >>> g = cluster_graph(network_from_objects(example_cluster(3), mode="ipip")[0])
    >>> sum(1 for *_, k in g.edges(data="kind") if k == "bgp"), sum(1 for _, k in g.nodes(data="kind") if k == "veth")
    (3, 4)
    """
    import networkx as nx

    g = nx.Graph()
    for name, nn in net.nodes.items():
        g.add_node(name, kind="host", node=name, label=name)
        g.add_node(f"{name}/eth0", kind="eth0", node=name, label=f"eth0\n{nn.ip}")
        g.add_edge(name, f"{name}/eth0", kind="device")
        for i in nn.interfaces:
            if i.kind in ("vxlan", "ipip"):
                g.add_node(f"{name}/{i.name}", kind=i.kind, node=name, label=f"{i.name}\n{nn.tunnel_ip}\nMTU {i.mtu}")
                g.add_edge(name, f"{name}/{i.name}", kind="device")
    for p in net.pods.values():
        g.add_node(f"{p.node}/{p.veth}", kind="veth", node=p.node, label=p.veth)
        g.add_node(p.key, kind="pod", node=p.node, label=f"{p.name}\n{p.ip}")
        g.add_edge(p.key, f"{p.node}/{p.veth}", kind="veth")
        g.add_edge(f"{p.node}/{p.veth}", p.node, kind="device")
    for a, b in bgp_sessions(net, reflectors):
        g.add_edge(a, b, kind="bgp")
    enc = net.encapsulation
    if enc:
        names = list(net.nodes)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if net.encapsulates(a, b):
                    dev = VXLAN_DEVICE if enc == "vxlan" else IPIP_DEVICE
                    g.add_edge(f"{a}/{dev}", f"{b}/{dev}", kind="tunnel")
    return g
