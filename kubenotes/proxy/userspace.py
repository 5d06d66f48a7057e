"""kube-proxy's historic userspace mode: a proxy process per service port, reached through iptables redirects.

The first kube-proxy (and ``--proxy-mode=userspace`` until it was removed in
v1.26) did the load balancing in its own process. For every service port it
opened a listening socket on a random local port (the *proxy port*), and
wrote iptables rules that send traffic for the service to it: in the nat
table, ``KUBE-PORTALS-CONTAINER`` (from PREROUTING: pods) REDIRECTs the
cluster IP and port to the proxy port, ``KUBE-PORTALS-HOST`` (from OUTPUT: the
node itself) DNATs it to the node IP and proxy port, and ``KUBE-NODEPORT-*``
do the same for node ports. Each accepted connection was copied byte by byte
to an endpoint chosen by :class:`LoadBalancerRR`: plain round robin over the
endpoints (shuffled whenever they change), or, with ``sessionAffinity:
ClientIP``, the endpoint the client IP used last while that is younger than
the affinity timeout.

Mirrors ``k8s.io/kubernetes/pkg/proxy/userspace`` as of its last release.

References
----------
kubernetes/kubernetes@v1.25.16 pkg/proxy/userspace/proxier.go (openOnePortal, openNodePort, iptablesInit, iptables*PortalArgs)
kubernetes/kubernetes@v1.25.16 pkg/proxy/userspace/roundrobin.go (LoadBalancerRR)
kubernetes/kubernetes@v1.25.16 pkg/proxy/userspace/roundrobin_test.go
kubernetes/kubernetes PR 112133 (removed the userspace proxy in v1.26)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence

from kubenotes.errors import KubenotesError
from kubenotes.proxy.endpoints import DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS, ProxyState, ServicePortName

__all__ = [
    "ERR_MISSING_SERVICE_ENTRY",
    "ERR_MISSING_ENDPOINTS",
    "LoadBalancerError",
    "LoadBalancerRR",
    "UserspaceServiceInfo",
    "userspace_services",
    "userspace_iptables_save",
    "load_balancer_for",
    "EPHEMERAL_PORT_RANGE",
]

#: ``ErrMissingServiceEntry``.
ERR_MISSING_SERVICE_ENTRY = "missing service entry"
#: ``ErrMissingEndpoints``.
ERR_MISSING_ENDPOINTS = "missing endpoints"
#: Linux's default ``net.ipv4.ip_local_port_range``: where a proxy port lands without ``--proxy-port-range``.
EPHEMERAL_PORT_RANGE = (32768, 60999)

KUBE_PORTALS_CONTAINER = "KUBE-PORTALS-CONTAINER"
KUBE_PORTALS_HOST = "KUBE-PORTALS-HOST"
KUBE_NODEPORT_CONTAINER = "KUBE-NODEPORT-CONTAINER"
KUBE_NODEPORT_HOST = "KUBE-NODEPORT-HOST"
KUBE_NODEPORT_NON_LOCAL = "KUBE-NODEPORT-NON-LOCAL"
PORTALS_COMMENT = "handle ClusterIPs; NOTE: this must be before the NodePort rules"
NODEPORTS_COMMENT = "handle service NodePorts; NOTE: this must be the last rule in the chain"
NON_LOCAL_COMMENT = "Ensure that non-local NodePort traffic can flow"


class LoadBalancerError(KubenotesError):
    """``NextEndpoint`` could not pick an endpoint.

    The message is :data:`ERR_MISSING_SERVICE_ENTRY` or :data:`ERR_MISSING_ENDPOINTS`.
    """


@dataclass
class _AffinityState:
    client_ip: str
    endpoint: str
    last_used_seconds: float


@dataclass
class _BalancerState:
    endpoints: list[str] = field(default_factory=list)
    index: int = 0
    affinity_type: str = ""
    ttl_seconds: int = DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS
    affinity_map: dict[str, _AffinityState] = field(default_factory=dict)


class LoadBalancerRR:
    """``LoadBalancerRR``: round robin over a service port's endpoints, with optional ClientIP affinity.

    Parameters
    ----------
    rng : random.Random, optional
        Shuffles the endpoints whenever they are set (upstream uses
        ``util.ShuffleStrings``); seeded ``random.Random(0)`` by default.

    Notes
    -----
    Time is the caller's simulated clock (``now_seconds``) instead of
    ``time.Now()``. Endpoints are set per service port with
    :meth:`set_endpoints` (upstream derives them from Endpoints objects in
    ``OnEndpointsAdd``/``OnEndpointsUpdate``/``OnEndpointsDelete``).

    References
    ----------
    kubernetes/kubernetes@v1.25.16 pkg/proxy/userspace/roundrobin.go

    Examples
    --------
    >>> lb = LoadBalancerRR()
    >>> spn = ServicePortName("default", "web", "")
    >>> lb.new_service(spn, "ClientIP", 10800)
    >>> lb.set_endpoints(spn, ["10.0.0.1:80", "10.0.0.2:80"])
    >>> a = lb.next_endpoint(spn, "10.1.0.5:41000")
    >>> b = lb.next_endpoint(spn, "10.1.0.6:41000")
    >>> a != b, lb.next_endpoint(spn, "10.1.0.5:52000", now_seconds=60) == a
    (True, True)
    """

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng if rng is not None else random.Random(0)
        self.services: dict[ServicePortName, _BalancerState] = {}

    def _new_service_internal(self, spn: ServicePortName, affinity_type: str, ttl_seconds: int) -> _BalancerState:
        if ttl_seconds == 0:
            ttl_seconds = DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS
        state = self.services.get(spn)
        if state is None:
            state = self.services[spn] = _BalancerState(affinity_type=affinity_type, ttl_seconds=ttl_seconds)
        elif affinity_type:
            state.affinity_type = affinity_type
        return state

    def new_service(self, spn: ServicePortName, affinity_type: str = "None", ttl_seconds: int = 0) -> None:
        """``NewService``: register a service port (``affinity_type`` ``None`` or ``ClientIP``; ttl 0 means 10800 s)."""
        self._new_service_internal(spn, affinity_type, ttl_seconds)

    def delete_service(self, spn: ServicePortName) -> None:
        """``DeleteService``."""
        self.services.pop(spn, None)

    def service_has_endpoints(self, spn: ServicePortName) -> bool:
        """``ServiceHasEndpoints``."""
        state = self.services.get(spn)
        return state is not None and len(state.endpoints) > 0

    def endpoints(self, spn: ServicePortName) -> list[str]:
        """The endpoints in their (shuffled) round-robin order."""
        state = self.services.get(spn)
        return list(state.endpoints) if state else []

    def next_endpoint(self, spn: ServicePortName, src_addr: str, session_affinity_reset: bool = False,
                      now_seconds: float = 0.0) -> str:
        """``NextEndpoint``: the endpoint for a new connection from ``src_addr`` (``ip:port``).

        Parameters
        ----------
        spn : ServicePortName
        src_addr : str
            The client's address and port.
        session_affinity_reset : bool
            Ignore the recorded affinity (the proxy retries a failed endpoint this way).
        now_seconds : float
            Simulated time.

        Returns
        -------
        str
            ``ip:port`` of the endpoint.

        Raises
        ------
        LoadBalancerError
            ``missing service entry`` for an unknown service port,
            ``missing endpoints`` when it has none.
        """
        state = self.services.get(spn)
        if state is None:
            raise LoadBalancerError(ERR_MISSING_SERVICE_ENTRY)
        if not state.endpoints:
            raise LoadBalancerError(ERR_MISSING_ENDPOINTS)
        affinity = state.affinity_type not in ("", "None")
        ip = src_addr.rsplit(":", 1)[0].strip("[]") if affinity else ""
        if affinity and not session_affinity_reset:
            rec = state.affinity_map.get(ip)
            if rec is not None and int(now_seconds - rec.last_used_seconds) < state.ttl_seconds:
                rec.last_used_seconds = now_seconds
                return rec.endpoint
        endpoint = state.endpoints[state.index]
        state.index = (state.index + 1) % len(state.endpoints)
        if affinity:
            rec = state.affinity_map.get(ip)
            if rec is None:
                rec = state.affinity_map[ip] = _AffinityState(ip, endpoint, now_seconds)
            rec.last_used_seconds, rec.endpoint, rec.client_ip = now_seconds, endpoint, ip
        return endpoint

    def set_endpoints(self, spn: ServicePortName, endpoints: Sequence[str]) -> None:
        """``OnEndpointsUpdate`` for one port: when the set changed, drop stale affinity, shuffle, reset the index."""
        state = self.services.get(spn)
        current = state.endpoints if state else []
        if state is not None and sorted(current) == sorted(endpoints):
            return
        if state is not None:
            gone = set(current) - set(endpoints)
            for client, rec in list(state.affinity_map.items()):
                if rec.endpoint in gone:
                    del state.affinity_map[client]
        state = self._new_service_internal(spn, "", 0)
        shuffled = list(endpoints)
        self.rng.shuffle(shuffled)
        state.endpoints = shuffled
        state.index = 0

    def remove_endpoints(self, spn: ServicePortName) -> None:
        """``resetService`` (``OnEndpointsDelete``): no endpoints, index 0, affinity forgotten."""
        state = self.services.get(spn)
        if state is not None:
            state.endpoints = []
            state.index = 0
            state.affinity_map = {}

    def cleanup_stale_sticky_sessions(self, spn: ServicePortName, now_seconds: float) -> None:
        """``CleanupStaleStickySessions``: forget clients idle for at least the affinity timeout."""
        state = self.services.get(spn)
        if state is None:
            return
        for client, rec in list(state.affinity_map.items()):
            if int(now_seconds - rec.last_used_seconds) >= state.ttl_seconds:
                del state.affinity_map[client]


@dataclass(frozen=True)
class UserspaceServiceInfo:
    """``ServiceInfo`` of the userspace proxier: one service port and the local port its proxy listens on.

    Attributes
    ----------
    name : ServicePortName
    protocol : str
    cluster_ip : str
    port : int
    proxy_port : int
        The proxy's listening port on the node (random, as the kernel picks it).
    node_port : int
    external_ips, load_balancer_ips : tuple[str, ...]
    session_affinity_type : str
        ``None`` or ``ClientIP``.
    sticky_max_age_seconds : int

    Examples
    --------
    >>> spn = ServicePortName("default", "web", "")
    >>> UserspaceServiceInfo(spn, "TCP", "10.0.0.10", 80, 40000, 0, (), (), "None", 0).proxy_port
    40000
    """

    name: ServicePortName
    protocol: str
    cluster_ip: str
    port: int
    proxy_port: int
    node_port: int
    external_ips: tuple[str, ...]
    load_balancer_ips: tuple[str, ...]
    session_affinity_type: str
    sticky_max_age_seconds: int


def userspace_services(state: ProxyState, *, seed: int = 0) -> dict[ServicePortName, UserspaceServiceInfo]:
    """The proxier's service ports with the proxy port each listens on.

    Parameters
    ----------
    state : ProxyState
    seed : int
        Seeds the proxy-port choice (the kernel's ephemeral port range,
        32768-60999, as without ``--proxy-port-range``).

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ServicePortInfo
    >>> spn = ServicePortName("default", "web", "")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("10.0.0.10",), 0, 8080, None, (), (), (), False, False, 0, "ClusterIP")
    >>> svc = userspace_services(ProxyState("n1", ("192.168.0.2",), None, None, {spn: info}, {spn: ()}))[spn]
    >>> 32768 <= svc.proxy_port <= 60999, svc.session_affinity_type
    (True, 'None')
    """
    rng = random.Random(seed)
    used: set[int] = set()
    out = {}
    for spn, info in state.services.items():
        port = rng.randint(*EPHEMERAL_PORT_RANGE)
        while port in used:
            port = rng.randint(*EPHEMERAL_PORT_RANGE)
        used.add(port)
        out[spn] = UserspaceServiceInfo(
            name=spn, protocol=info.protocol, cluster_ip=info.cluster_ip, port=info.port, proxy_port=port,
            node_port=info.node_port, external_ips=info.external_ips, load_balancer_ips=info.load_balancer_ips,
            session_affinity_type="ClientIP" if info.session_affinity_client_ip else "None",
            sticky_max_age_seconds=info.session_affinity_timeout_seconds or 0)
    return out


def load_balancer_for(state: ProxyState, *, seed: int = 0) -> LoadBalancerRR:
    """A :class:`LoadBalancerRR` with every service port of ``state`` and its ready endpoints set.

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ServicePortInfo, EndpointInfo
    >>> spn = ServicePortName("default", "web", "")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("10.0.0.10",), 0, 80, None, (), (), (), False, False, 0, "ClusterIP")
    >>> eps = (EndpointInfo("10.1.0.1", 80, True, True, False, False),
    ...        EndpointInfo("10.1.0.2", 80, False, False, False, False))
    >>> load_balancer_for(ProxyState("n1", (), None, None, {spn: info}, {spn: eps})).endpoints(spn)
    ['10.1.0.1:80']
    """
    lb = LoadBalancerRR(random.Random(seed))
    for spn, info in state.services.items():
        lb.new_service(spn, "ClientIP" if info.session_affinity_client_ip else "None",
                       info.session_affinity_timeout_seconds or 0)
        lb.set_endpoints(spn, [e.endpoint() for e in state.endpoints.get(spn, ()) if e.ready])
    return lb


def _quote(comment: str) -> str:
    """iptables-save quotes a comment holding anything but letters, digits, ``_`` and ``-``."""
    ok = all(c.isalnum() or c in "_-" for c in comment) and comment
    return comment if ok else '"' + comment.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _common(dest_ip: str | None, port: int, proto: str, comment: str, physdev: bool = False,
            dst_local: bool = False) -> str:
    """``iptablesCommonPortalArgs`` as iptables-save orders them (address and protocol first, then the matches)."""
    p = proto.lower()
    head = f"-d {dest_ip}/32 " if dest_ip else ""
    out = f"{head}-p {p} -m comment --comment {_quote(comment)} -m {p} --dport {port}"
    if physdev:
        out += " -m physdev ! --physdev-is-in"
    if dst_local:
        out += " -m addrtype --dst-type LOCAL"
    return out


def userspace_iptables_save(state: ProxyState, *, seed: int = 0, listen_ip: str = "0.0.0.0") -> str:
    """The iptables rules the userspace proxier writes, in ``iptables-save`` format (nat and filter tables).

    Parameters
    ----------
    state : ProxyState
    seed : int
        As :func:`userspace_services`.
    listen_ip : str
        ``--bind-address``: with ``0.0.0.0`` pod traffic is REDIRECTed to the
        proxy port; with a specific address it is DNATed to it.

    Returns
    -------
    str

    Notes
    -----
    Only IPv4 is modelled (the userspace proxier never supported IPv6
    redirects). Host rules DNAT to the node's first IP (``hostIP``).

    References
    ----------
    kubernetes/kubernetes@v1.25.16 pkg/proxy/userspace/proxier.go

    Examples
    --------
    >>> from kubenotes.proxy.endpoints import ServicePortInfo
    >>> spn = ServicePortName("default", "web", "http")
    >>> info = ServicePortInfo(spn, "TCP", 80, ("10.0.0.10",), 0, 80, None, (), (), (), False, False, 0, "ClusterIP")
    >>> st = ProxyState("n1", ("192.168.0.2",), None, None, {spn: info}, {spn: ()})
    >>> port = userspace_services(st)[spn].proxy_port
    >>> [l.replace(str(port), "PORT") for l in userspace_iptables_save(st).splitlines() if l.startswith("-A KUBE-")]
    ['-A KUBE-PORTALS-CONTAINER -d 10.0.0.10/32 -p tcp -m comment --comment "default/web:http" -m tcp --dport 80 -j REDIRECT --to-ports PORT', '-A KUBE-PORTALS-HOST -d 10.0.0.10/32 -p tcp -m comment --comment "default/web:http" -m tcp --dport 80 -j DNAT --to-destination 192.168.0.2:PORT']
    """
    host_ip = state.node_ips[0] if state.node_ips else "127.0.0.1"
    redirect = listen_ip in ("0.0.0.0", "::")

    def container_target(proxy_port: int) -> str:
        if redirect:
            return f"-j REDIRECT --to-ports {proxy_port}"
        return f"-j DNAT --to-destination {listen_ip}:{proxy_port}"

    host_dnat_ip = host_ip if redirect else listen_ip
    nat = {KUBE_PORTALS_CONTAINER: [], KUBE_PORTALS_HOST: [], KUBE_NODEPORT_CONTAINER: [], KUBE_NODEPORT_HOST: []}
    filt: list[str] = []
    for spn, svc in userspace_services(state, seed=seed).items():
        name = str(spn)
        pp = svc.proxy_port
        portals = [(svc.cluster_ip, False)] + [(ip, True) for ip in svc.external_ips] + \
                  [(ip, False) for ip in svc.load_balancer_ips]
        for ip, external in portals:
            nat[KUBE_PORTALS_CONTAINER].append(
                f"{_common(ip, svc.port, svc.protocol, name, physdev=external)} {container_target(pp)}")
            if external:
                nat[KUBE_PORTALS_CONTAINER].append(
                    f"{_common(ip, svc.port, svc.protocol, name, dst_local=True)} {container_target(pp)}")
                nat[KUBE_PORTALS_HOST].append(f"{_common(ip, svc.port, svc.protocol, name, dst_local=True)} "
                                              f"-j DNAT --to-destination {host_dnat_ip}:{pp}")
            else:
                nat[KUBE_PORTALS_HOST].append(f"{_common(ip, svc.port, svc.protocol, name)} "
                                              f"-j DNAT --to-destination {host_dnat_ip}:{pp}")
        if svc.node_port:
            nat[KUBE_NODEPORT_CONTAINER].append(f"{_common(None, svc.node_port, svc.protocol, name)} "
                                                f"{container_target(pp)}")
            nat[KUBE_NODEPORT_HOST].append(f"{_common(None, svc.node_port, svc.protocol, name)} "
                                           f"-j DNAT --to-destination {host_dnat_ip}:{pp}")
            filt.append(f"{_common(None, pp, svc.protocol, name)} -m state --state NEW -j ACCEPT")

    lines = ["*nat", ":PREROUTING ACCEPT [0:0]", ":INPUT ACCEPT [0:0]", ":OUTPUT ACCEPT [0:0]",
             ":POSTROUTING ACCEPT [0:0]"]
    lines += [f":{c} - [0:0]" for c in nat]
    lines += [f'-A PREROUTING -m comment --comment "{PORTALS_COMMENT}" -j {KUBE_PORTALS_CONTAINER}',
              f'-A PREROUTING -m addrtype --dst-type LOCAL -m comment --comment "{NODEPORTS_COMMENT}" '
              f"-j {KUBE_NODEPORT_CONTAINER}",
              f'-A OUTPUT -m comment --comment "{PORTALS_COMMENT}" -j {KUBE_PORTALS_HOST}',
              f'-A OUTPUT -m addrtype --dst-type LOCAL -m comment --comment "{NODEPORTS_COMMENT}" '
              f"-j {KUBE_NODEPORT_HOST}"]
    for chain, rules in nat.items():
        lines += [f"-A {chain} {r}" for r in rules]
    lines += ["COMMIT", "*filter", ":INPUT ACCEPT [0:0]", ":FORWARD ACCEPT [0:0]", ":OUTPUT ACCEPT [0:0]",
              f":{KUBE_NODEPORT_NON_LOCAL} - [0:0]",
              f'-A INPUT -m comment --comment "{NON_LOCAL_COMMENT}" -j {KUBE_NODEPORT_NON_LOCAL}']
    lines += [f"-A {KUBE_NODEPORT_NON_LOCAL} {r}" for r in filt]
    lines.append("COMMIT")
    return "\n".join(lines) + "\n"
