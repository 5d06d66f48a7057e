"""kube-proxy's view of the cluster: service ports, their endpoints, and which endpoints a node uses.

Every kube-proxy mode (iptables, nftables, ipvs, and the historic userspace
mode) programs the same input: for each port of each Service a
:class:`ServicePortInfo` (upstream ``BaseServicePortInfo``), and for each
such port the endpoints read from the Service's EndpointSlices
(:class:`EndpointInfo`, upstream ``BaseEndpointInfo``). :func:`proxy_state`
builds that input for one node from plain API objects; the renderers
(:mod:`kubenotes.proxy.iptables`, :mod:`kubenotes.proxy.nftables`,
:mod:`kubenotes.proxy.ipvs`) are pure functions of the resulting
:class:`ProxyState`. :func:`categorize_endpoints` is upstream's
``CategorizeEndpoints``: which endpoints serve cluster-policy traffic and
which serve local-policy traffic, with the fallback to serving-and-terminating
endpoints when none is ready.

Mirrors ``k8s.io/kubernetes/pkg/proxy`` (types.go, serviceport.go,
endpoint.go, servicechangetracker.go, endpointslicecache.go, topology.go).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/proxy/types.go (ServicePortName)
kubernetes/kubernetes@v1.34.0 pkg/proxy/serviceport.go (BaseServicePortInfo, newBaseServiceInfo)
kubernetes/kubernetes@v1.34.0 pkg/proxy/endpoint.go (BaseEndpointInfo)
kubernetes/kubernetes@v1.34.0 pkg/proxy/servicechangetracker.go (serviceToServiceMap)
kubernetes/kubernetes@v1.34.0 pkg/proxy/endpointslicecache.go (newEndpointSliceInfo, addEndpoints)
kubernetes/kubernetes@v1.34.0 pkg/proxy/topology.go (CategorizeEndpoints)
kubernetes/kubernetes@v1.34.0 pkg/proxy/util/utils.go (ShouldSkipService)
kubernetes/kubernetes@v1.34.0 pkg/api/v1/service/util.go (ExternallyAccessible, ExternalPolicyLocal, NeedsHealthCheck)
https://kubernetes.io/docs/reference/networking/virtual-ips/
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from kubenotes.api.service import LABEL_SERVICE_NAME, is_service_ip_set
from kubenotes.errors import KubenotesError, ManifestError
from kubenotes.proxy.util import normalize_ip, parse_cidr_sloppy

__all__ = [
    "ServicePortName",
    "ServicePortInfo",
    "EndpointInfo",
    "ProxyState",
    "proxy_state",
    "categorize_endpoints",
    "load_proxy_objects",
    "DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS",
   
    "LABEL_TOPOLOGY_ZONE",
    "TOPOLOGY_MODE_PREFER_SAME_ZONE",
]

#: ``v1.DefaultClientIPServiceAffinitySeconds``: three hours.
DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS = 10800
#: ``v1.LabelTopologyZone``.
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
#: ``v1.ServiceTrafficDistributionPreferSameZone``: the topology mode of zone hints.
TOPOLOGY_MODE_PREFER_SAME_ZONE = "PreferSameZone"

@dataclass(frozen=True, order=True)
class ServicePortName:
    """``proxy.ServicePortName``: one port of one Service, named ``namespace/name:port``.

    Attributes
    ----------
    namespace, name : str
        The Service.
    port : str
        ``ServicePort.name`` ("" when the port is unnamed, as a Service with
        a single port may leave it).

    Notes
    -----
    Upstream's key also carries the protocol; port names are unique within a
    Service, so the protocol lives in :class:`ServicePortInfo` here.

    Examples
    --------
    >>> str(ServicePortName("ns1", "svc1", "p80")), str(ServicePortName("default", "web", ""))
    ('ns1/svc1:p80', 'default/web')
    """

    namespace: str
    name: str
    port: str

    def __str__(self) -> str:
        base = f"{self.namespace}/{self.name}"
        return f"{base}:{self.port}" if self.port else base


@dataclass(frozen=True)
class ServicePortInfo:
    """``BaseServicePortInfo``: what kube-proxy needs to know about one Service port.

    Attributes
    ----------
    name : ServicePortName
    protocol : str
        ``TCP``, ``UDP`` or ``SCTP``.
    port : int
        The Service port (on the cluster IP, external IPs and load-balancer IPs).
    cluster_ips : tuple[str, ...]
        ``spec.clusterIPs`` of the proxier's IP family (one address).
    node_port : int
        ``nodePort``, 0 when none.
    target_port : int or str
        ``targetPort`` (a number or a container port name).
    session_affinity_timeout_seconds : int or None
        ``sessionAffinityConfig.clientIP.timeoutSeconds`` for
        ``sessionAffinity: ClientIP`` (default 10800); None without affinity.
    external_ips : tuple[str, ...]
        ``spec.externalIPs`` of the proxier's IP family.
    load_balancer_ips : tuple[str, ...]
        ``status.loadBalancer.ingress[].ip`` in VIP mode (``ipMode`` not ``Proxy``).
    load_balancer_source_ranges : tuple[str, ...]
        ``spec.loadBalancerSourceRanges`` of the family, whitespace trimmed.
    external_policy_local : bool
        ``externalTrafficPolicy: Local`` on an externally accessible Service.
    internal_policy_local : bool
        ``internalTrafficPolicy: Local``.
    health_check_node_port : int
        ``spec.healthCheckNodePort`` of a LoadBalancer Service with external
        policy Local; 0 otherwise.
    type : str
        ``ClusterIP``, ``NodePort`` or ``LoadBalancer``.

    Examples
    --------
    >>> info = ServicePortInfo(ServicePortName("ns1", "svc1", "p80"), "TCP", 80, ("172.30.0.41",), 0, 80,
    ...                        None, (), (), (), False, False, 0, "ClusterIP")
    >>> str(info), info.cluster_ip, info.externally_accessible
    ('172.30.0.41:80/TCP', '172.30.0.41', False)
    >>> info.uses_cluster_endpoints, info.uses_local_endpoints
    (True, False)
    """

    name: ServicePortName
    protocol: str
    port: int
    cluster_ips: tuple[str, ...]
    node_port: int
    target_port: int | str
    session_affinity_timeout_seconds: int | None
    external_ips: tuple[str, ...]
    load_balancer_ips: tuple[str, ...]
    load_balancer_source_ranges: tuple[str, ...]
    external_policy_local: bool
    internal_policy_local: bool
    health_check_node_port: int
    type: str

    def __str__(self) -> str:
        return f"{self.cluster_ip}:{self.port}/{self.protocol}"

    @property
    def cluster_ip(self) -> str:
        """The (first) cluster IP, "" when none."""
        return self.cluster_ips[0] if self.cluster_ips else ""

    @property
    def session_affinity_client_ip(self) -> bool:
        """Whether ``sessionAffinity`` is ``ClientIP``."""
        return self.session_affinity_timeout_seconds is not None

    @property
    def externally_accessible(self) -> bool:
        """``ExternallyAccessible``: reachable other than by the cluster IP (node port, external or LB IP)."""
        return self.node_port != 0 or bool(self.load_balancer_ips) or bool(self.external_ips)

    @property
    def uses_cluster_endpoints(self) -> bool:
        """``UsesClusterEndpoints``: internal policy Cluster, or any external access (for short-circuiting)."""
        return not self.internal_policy_local or self.externally_accessible

    @property
    def uses_local_endpoints(self) -> bool:
        """``UsesLocalEndpoints``: internal policy Local, or external policy Local on an external port."""
        return self.internal_policy_local or (self.external_policy_local and self.externally_accessible)


@dataclass(frozen=True)
class EndpointInfo:
    """``BaseEndpointInfo``: one endpoint (address and port) of one service port.

    Attributes
    ----------
    ip : str
    port : int
    ready : bool
        ``conditions.ready`` (unset means true).
    serving : bool
        ``conditions.serving`` (unset means true).
    terminating : bool
        ``conditions.terminating`` (unset means false).
    is_local : bool
        The endpoint's ``nodeName`` is this proxy's node.
    zone_hints : frozenset[str]
        ``hints.forZones[].name``.
    node_name : str
        ``nodeName`` ("" when unset); an addition to upstream's fields for the packet walk.
    zone : str
        ``zone`` ("" when unset).

    Examples
    --------
    >>> EndpointInfo("10.180.0.1", 80, True, True, False, False, frozenset()).endpoint()
    '10.180.0.1:80'
    >>> str(EndpointInfo("fd00::1", 80, True, True, False, True, frozenset()))
    '[fd00::1]:80'
    """

    ip: str
    port: int
    ready: bool
    serving: bool
    terminating: bool
    is_local: bool
    zone_hints: frozenset[str] = frozenset()
    node_name: str = ""
    zone: str = ""

    def endpoint(self) -> str:
        """``String()``: ``ip:port``, the IPv6 address in brackets (``net.JoinHostPort``)."""
        return f"[{self.ip}]:{self.port}" if ":" in self.ip else f"{self.ip}:{self.port}"

    def __str__(self) -> str:
        return self.endpoint()


@dataclass(frozen=True)
class ProxyState:
    """Everything one node's kube-proxy programs: its node, the service ports and their endpoints.

    Attributes
    ----------
    node_name : str
    node_ips : tuple[str, ...]
        The node's ``InternalIP`` addresses of the proxier's IP family.
    pod_cidr : str or None
        ``spec.podCIDR`` of the node.
    cluster_cidr : str or None
        kube-proxy's ``--cluster-cidr`` (``clusterCIDR``), None when unset.
    services : dict[ServicePortName, ServicePortInfo]
        Sorted by namespace and name, ports in the Service's order.
    endpoints : dict[ServicePortName, tuple[EndpointInfo, ...]]
        An entry (possibly empty) for every key of ``services``; endpoints
        sorted by their ``ip:port`` string as upstream sorts them.
    node_zone : str
        The node's ``topology.kubernetes.io/zone`` label ("" when unset).

    See Also
    --------
    proxy_state : builds one from API objects.

    Examples
    --------
    >>> spn = ServicePortName("default", "web", "")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("10.96.0.20",), 0, 8080, None, (), (), (), False, False, 0,
    ...                        "ClusterIP")
    >>> st = ProxyState("n1", ("192.168.0.2",), "10.244.0.0/24", None, {spn: info},
    ...                 {spn: (EndpointInfo("10.244.0.5", 8080, True, True, False, True),)})
    >>> [str(e) for e in st.endpoints[spn]], st.node_zone
    (['10.244.0.5:8080'], '')
    """

    node_name: str
    node_ips: tuple[str, ...]
    pod_cidr: str | None
    cluster_cidr: str | None
    services: dict[ServicePortName, ServicePortInfo]
    endpoints: dict[ServicePortName, tuple[EndpointInfo, ...]]
    node_zone: str = field(default="")


# ---------------------------------------------------------------------------
# Building the state


def _plain(o: Any) -> dict:
    if isinstance(o, dict):
        return o
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if hasattr(o, "obj"):  # a LoadedObject
        return _plain(o.obj)
    raise TypeError(f"not an API object: {type(o).__name__}")


def _family(ip: str) -> int | None:
    """The IP version of an address read as ``ParseIPSloppy`` reads it (leading zeros allowed)."""
    text = normalize_ip(ip.strip()) if ip else None
    return None if text is None else (6 if ":" in text else 4)


def _family_ips(values: Iterable[str], family: int) -> tuple[str, ...]:
    """The addresses of one family, normalised as kube-proxy writes them (``010.000.000.001`` -> ``10.0.0.1``)."""
    out = []
    for v in values:
        text = normalize_ip(v.strip()) if v else None
        if text is not None and (6 if ":" in text else 4) == family:
            out.append(text)
    return tuple(out)


def _ref(o: dict) -> str:
    md = o.get("metadata") or {}
    return f"{o.get('kind')} {md.get('namespace') or 'default'}/{md.get('name')}"


def _should_skip_service(svc: dict) -> bool:
    """``ShouldSkipService``: no cluster IP (headless or unset) or ExternalName."""
    return (svc.get("spec") or {}).get("type") == "ExternalName" or not is_service_ip_set(svc)


def _externally_accessible(spec: dict) -> bool:
    t = spec.get("type") or "ClusterIP"
    return t in ("LoadBalancer", "NodePort") or (t == "ClusterIP" and bool(spec.get("externalIPs")))


def _service_port_infos(svc: dict, family: int) -> list[ServicePortInfo]:
    md, spec = svc["metadata"], svc.get("spec") or {}
    ns, name = md.get("namespace") or "default", md["name"]
    cluster_ips = _family_ips((ip for ip in (spec.get("clusterIPs") or [spec.get("clusterIP")]) if ip), family)
    if not cluster_ips:
        return []  # a single-stack Service of the other family
    affinity = None
    if spec.get("sessionAffinity") == "ClientIP":
        cfg = ((spec.get("sessionAffinityConfig") or {}).get("clientIP") or {})
        affinity = int(cfg.get("timeoutSeconds") or DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS)
    ext_local = _externally_accessible(spec) and spec.get("externalTrafficPolicy") == "Local"
    int_local = spec.get("internalTrafficPolicy") == "Local"
    external_ips = _family_ips(spec.get("externalIPs") or (), family)
    ranges = tuple(str(n) for r in spec.get("loadBalancerSourceRanges") or ()
                   if (n := parse_cidr_sloppy(r.strip())) is not None and n.version == family)
    lb_ips = _family_ips((ing["ip"] for ing in ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress")
                          or () if ing.get("ip") and ing.get("ipMode") != "Proxy"), family)
    needs_hc = spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"
    hc = int(spec.get("healthCheckNodePort") or 0) if needs_hc else 0
    out = []
    for p in spec.get("ports") or ():
        out.append(ServicePortInfo(
            name=ServicePortName(ns, name, p.get("name") or ""), protocol=p.get("protocol") or "TCP",
            port=int(p["port"]), cluster_ips=cluster_ips, node_port=int(p.get("nodePort") or 0),
            target_port=p.get("targetPort") if p.get("targetPort") not in (None, 0, "") else int(p["port"]),
            session_affinity_timeout_seconds=affinity, external_ips=external_ips, load_balancer_ips=lb_ips,
            load_balancer_source_ranges=ranges, external_policy_local=ext_local, internal_policy_local=int_local,
            health_check_node_port=hc, type=spec.get("type") or "ClusterIP"))
    return out


def _add_endpoints(acc: dict[str, dict[str, EndpointInfo]], ports_by_name: dict[str, int], sl: dict,
                   node_name: str, family: int) -> None:
    """``endpointInfoByServicePort`` / ``addEndpoints`` for one slice."""
    for port in sl.get("ports") or ():
        pname = port.get("name") or ""
        num = port.get("port")
        if not num or pname not in ports_by_name:
            continue
        bucket = acc.setdefault(pname, {})
        for ep in sl.get("endpoints") or ():
            addrs = _family_ips((ep.get("addresses") or [])[:1], family)
            if not addrs:
                continue
            cond = ep.get("conditions") or {}
            hints = frozenset(z.get("name") for z in ((ep.get("hints") or {}).get("forZones") or ()) if z.get("name"))
            is_local = bool(node_name) and ep.get("nodeName") == node_name
            info = EndpointInfo(ip=addrs[0], port=int(num), ready=cond.get("ready") is not False,
                                serving=cond.get("serving") is not False, terminating=cond.get("terminating") is True,
                                is_local=is_local, zone_hints=hints, node_name=ep.get("nodeName") or "",
                                zone=ep.get("zone") or "")
            if info.endpoint() not in bucket or is_local:
                bucket[info.endpoint()] = info


def proxy_state(objects: Iterable[Any], node_name: str, *, cluster_cidr: str | None = None) -> ProxyState:
    """Build what kube-proxy on ``node_name`` programs from a set of API objects.

    Parameters
    ----------
    objects : iterable of dict (or lightkube objects)
        Nodes, Services and EndpointSlices (other kinds, Pods included, are
        ignored), e.g. a ``kubectl get -o yaml`` dump.
    node_name : str
        The node kube-proxy runs on (``--hostname-override``); its Node must be in ``objects``.
    cluster_cidr : str, optional
        kube-proxy's ``clusterCIDR`` (used by the masquerade rules).

    Returns
    -------
    ProxyState
        For the node's primary IP family (that of its first ``InternalIP``; IPv4 when it has none).

    Raises
    ------
    KubenotesError
        When no Node named ``node_name`` is among the objects.

    See Also
    --------
    kubenotes.sim.network.kube_proxy_objects : completes a plain dump (cluster IPs, node ports,
        EndpointSlices) as the API server and the EndpointSlice controller would.

    Notes
    -----
    Services that kube-proxy skips (``ExternalName``, headless, no cluster IP)
    are left out. Addresses stored before validation refused legacy spellings
    (IPv4 octets with leading zeros, ``010.000.000.001``) are read with
    ``ParseIPSloppy`` and written normalised (``10.0.0.1``), as kube-proxy does,
    rather than dropped; ``loadBalancerSourceRanges`` likewise with ``ParseCIDRSloppy``. A Service's endpoints come only from the EndpointSlices
    labelled ``kubernetes.io/service-name`` with it, as kube-proxy reads them:
    a Service without any has no endpoints. Simplified: one IP family
    (upstream runs a proxier per family); topology hints by zone only (no
    ``forNodes`` hints).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/servicechangetracker.go
    kubernetes/kubernetes@v1.34.0 pkg/proxy/endpointslicecache.go

    Examples
    --------
    >>> objs = [
    ...  {"kind": "Node", "metadata": {"name": "n1"}, "spec": {"podCIDR": "10.244.0.0/24"},
    ...   "status": {"addresses": [{"type": "InternalIP", "address": "192.168.0.2"}]}},
    ...  {"kind": "Service", "metadata": {"name": "web", "namespace": "default"},
    ...   "spec": {"clusterIP": "10.96.0.20", "selector": {"app": "web"},
    ...            "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}},
    ...  {"kind": "EndpointSlice", "metadata": {"name": "web-abcde", "namespace": "default",
    ...                                         "labels": {"kubernetes.io/service-name": "web"}},
    ...   "addressType": "IPv4", "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
    ...   "endpoints": [{"addresses": ["10.244.0.5"], "conditions": {"ready": True}, "nodeName": "n1"}]}]
    >>> st = proxy_state(objs, "n1")
    >>> spn = ServicePortName("default", "web", "http")
    >>> str(st.services[spn]), [str(e) for e in st.endpoints[spn]], st.endpoints[spn][0].is_local
    ('10.96.0.20:80/TCP', ['10.244.0.5:8080'], True)
    >>> proxy_state(objs, "n9")
    Traceback (most recent call last):
    ...
    kubenotes.errors.KubenotesError: nodes "n9" not found (the input has nodes: n1)
    """
    objs = [_plain(o) for o in objects]
    nodes = {o["metadata"]["name"]: o for o in objs if o.get("kind") == "Node"}
    node = nodes.get(node_name)
    if node is None:
        have = ", ".join(sorted(nodes)) or "none"
        raise KubenotesError(f'nodes "{node_name}" not found (the input has nodes: {have})')
    internal = [a.get("address") or "" for a in (node.get("status") or {}).get("addresses") or ()
                if a.get("type") == "InternalIP"]
    family = next((_family(a) for a in internal if _family(a)), 4) or 4
    node_ips = _family_ips(internal, family)
    zones = {n: ((o["metadata"].get("labels") or {}).get(LABEL_TOPOLOGY_ZONE) or "") for n, o in nodes.items()}
    zones = {n: z for n, z in zones.items() if z}

    services = sorted((o for o in objs if o.get("kind") == "Service"),
                      key=lambda s: (s["metadata"].get("namespace") or "default", s["metadata"]["name"]))
    slices_of: dict[tuple[str, str], list[dict]] = {}
    for o in objs:
        if o.get("kind") != "EndpointSlice":
            continue
        svc_name = (o["metadata"].get("labels") or {}).get(LABEL_SERVICE_NAME)
        if svc_name and (o.get("addressType") or "IPv4") in ("IPv4", "IPv6"):
            slices_of.setdefault((o["metadata"].get("namespace") or "default", svc_name), []).append(o)

    svc_map: dict[ServicePortName, ServicePortInfo] = {}
    ep_map: dict[ServicePortName, tuple[EndpointInfo, ...]] = {}
    for svc in services:
        if _should_skip_service(svc):
            continue
        infos = _service_port_infos(svc, family)
        if not infos:
            continue
        key = (svc["metadata"].get("namespace") or "default", svc["metadata"]["name"])
        slices = slices_of.get(key, [])
        by_port: dict[str, dict[str, EndpointInfo]] = {}
        ports_by_name = {i.name.port: i.port for i in infos}
        for sl in sorted(slices, key=lambda s: (s.get("metadata") or {}).get("name") or ""):
            _add_endpoints(by_port, ports_by_name, sl, node_name, family)
        for info in infos:
            svc_map[info.name] = info
            eps = by_port.get(info.name.port, {})
            ep_map[info.name] = tuple(eps[k] for k in sorted(eps))
    return ProxyState(node_name=node_name, node_ips=node_ips, pod_cidr=(node.get("spec") or {}).get("podCIDR"),
                      cluster_cidr=cluster_cidr, services=svc_map, endpoints=ep_map,
                      node_zone=zones.get(node_name, ""))


# ---------------------------------------------------------------------------
# Categorizing endpoints


def _topology_mode_from_hints(endpoints: Sequence[EndpointInfo], zone: str) -> str:
    """``topologyModeFromHints`` (zone hints only): PreferSameZone when every ready endpoint is hinted."""
    ready = [e for e in endpoints if e.ready]
    if not ready or not zone:
        return ""
    if all(e.zone_hints for e in ready) and any(zone in e.zone_hints for e in ready):
        return TOPOLOGY_MODE_PREFER_SAME_ZONE
    return ""


def categorize_endpoints(endpoints: Sequence[EndpointInfo], svc_info: ServicePortInfo, node_name: str,
                         zone: str = "") -> tuple[list[EndpointInfo] | None, list[EndpointInfo] | None,
                                                  list[EndpointInfo] | None, bool]:
    """``CategorizeEndpoints``: the endpoints a service port uses on this node.

    Parameters
    ----------
    endpoints : sequence of EndpointInfo
        All endpoints of the service port (``ProxyState.endpoints[name]``).
    svc_info : ServicePortInfo
    node_name : str
        This node (``is_local`` was already computed from it; kept for upstream's signature).
    zone : str
        This node's ``topology.kubernetes.io/zone``, for zone topology hints.

    Returns
    -------
    cluster_endpoints : list of EndpointInfo or None
        Usable endpoints for ``Cluster`` policy: the ready ones (restricted to
        this zone when every ready endpoint carries zone hints and one names
        it), else the serving-and-terminating ones. None when the port never
        uses cluster policy.
    local_endpoints : list of EndpointInfo or None
        Usable local endpoints for ``Local`` policy: ready local ones, else
        serving-and-terminating local ones. None when the port never uses
        local policy (or none exists).
    all_reachable : list of EndpointInfo or None
        The union of the two, in input order.
    has_any_endpoints : bool
        Whether a usable endpoint exists anywhere in the cluster (even when none is local).

    Notes
    -----
    Upstream returns nil slices where this returns None; the
    ``PreferSameNode`` topology mode (``forNodes`` hints) is not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/topology.go

    Examples
    --------
    >>> e = lambda ip, local, ready=True, serving=True, term=False: EndpointInfo(ip, 80, ready, serving, term, local)
    >>> info = ServicePortInfo(ServicePortName("ns", "s", ""), "TCP", 80, ("10.96.0.1",), 30080, 80, None,
    ...                        (), (), (), True, False, 0, "NodePort")
    >>> c, l, a, any_ = categorize_endpoints([e("10.0.0.1", False), e("10.0.0.2", True, ready=False, term=True)],
    ...                                      info, "n1")
    >>> [str(x) for x in c], [str(x) for x in l], [str(x) for x in a], any_
    (['10.0.0.1:80'], ['10.0.0.2:80'], ['10.0.0.1:80', '10.0.0.2:80'], True)
    """
    cluster: list[EndpointInfo] | None = None
    local: list[EndpointInfo] | None = None
    if not endpoints:
        return None, None, None, False
    has_any = False
    mode = ""
    use_serving_terminating = False
    if svc_info.uses_cluster_endpoints:
        mode = _topology_mode_from_hints(endpoints, zone)
        cluster = [e for e in endpoints if e.ready and (mode == "" or zone in e.zone_hints)]
        if not cluster:
            cluster = [e for e in endpoints if e.serving and e.terminating]
        has_any = bool(cluster)
    if not svc_info.uses_local_endpoints:
        return cluster, local, cluster, has_any
    local_ready = local_st = False
    for e in endpoints:
        if e.ready:
            has_any = True
            local_ready = local_ready or e.is_local
        elif e.serving and e.terminating:
            has_any = True
            local_st = local_st or e.is_local
    if local_ready:
        local = [e for e in endpoints if e.is_local and e.ready]
    elif local_st:
        use_serving_terminating = True
        local = [e for e in endpoints if e.is_local and e.serving and e.terminating]
    if not svc_info.uses_cluster_endpoints:
        return cluster, local, local, has_any
    if mode == "" and not use_serving_terminating:
        return cluster, local, cluster, has_any
    merged: dict[str, EndpointInfo] = {}
    for e in (cluster or []) + (local or []):
        merged.setdefault(e.endpoint(), e)
    order = {e.endpoint(): i for i, e in enumerate(endpoints)}
    return cluster, local, sorted(merged.values(), key=lambda e: order.get(e.endpoint(), 0)), has_any


# ---------------------------------------------------------------------------
# Reading input


def load_proxy_objects(paths: Sequence[str]) -> list[dict]:
    """Read manifests (files, directories, ``-``, ``kind: List`` dumps) as plain API dicts, defaults applied.

    Parameters
    ----------
    paths : sequence of str
        As given on the command line.

    Returns
    -------
    list of dict
        Every object, in input order.

    Raises
    ------
    ManifestError
        One line naming file, document, object and field, e.g.
        ``svc.yaml doc 1 Service default/web: spec.ports[0].port: expected int, got str "http"``;
        also for a Service port that is not in 1-65535.

    See Also
    --------
    kubenotes.api.manifests.load_manifests : the loader underneath.

    Examples
    --------
    >>> objs = load_proxy_objects(['''
    ... apiVersion: v1
    ... kind: Service
    ... metadata: {name: web}
    ... spec: {selector: {app: web}, ports: [{port: 80}]}
    ... '''])
    >>> objs[0]["spec"]["ports"], objs[0]["spec"]["type"]
    ([{'port': 80, 'protocol': 'TCP', 'targetPort': 80}], 'ClusterIP')
    """
    from kubenotes.api.manifests import load_manifests

    m = load_manifests(*paths)
    out = []
    for lo in m:
        d = _plain(lo.obj)
        if lo.kind == "Service":
            for i, p in enumerate((d.get("spec") or {}).get("ports") or ()):
                if not isinstance(p.get("port"), int) or not 1 <= p["port"] <= 65535:
                    raise ManifestError(lo.source, lo.doc, lo.ref,
                                        f"spec.ports[{i}].port: Invalid value: {p.get('port')}: "
                                        "must be between 1 and 65535, inclusive")
        out.append(d)
    return out
