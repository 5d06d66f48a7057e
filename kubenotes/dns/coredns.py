"""Cluster DNS as CoreDNS answers it.

Two ways a pod finds a Service: the environment variables the kubelet adds
at container start (:mod:`kubenotes.kubelet.envvars`), and **cluster DNS**
(集群 DNS). The kubelet writes the pod's ``/etc/resolv.conf``
(:mod:`kubenotes.kubelet.dns`) to point at the cluster DNS Service
(``10.96.0.10``) with the search path ``<ns>.svc.cluster.local
svc.cluster.local cluster.local`` and ``ndots:5``; CoreDNS's ``kubernetes``
plugin answers from the Services, EndpointSlices and pods it watches
(:class:`ClusterDNS`): ``A``/``AAAA`` records for a Service's cluster IPs,
one per ready endpoint for a headless Service, per-endpoint names
(``<hostname>`` or the dashed IP), ``SRV`` records for named ports, a
``CNAME`` for an ExternalName Service and ``1-2-3-4.<ns>.pod.cluster.local``
pod records. DNS follows changes at once (5 s TTL), whatever the pod's start
time.

References
----------
coredns/coredns@v1.12.1 plugin/kubernetes/kubernetes.go (Records, findServices, findPods, endpointHostname)
coredns/coredns@v1.12.1 plugin/kubernetes/parse.go (parseRequest), plugin/backend_lookup.go (A, AAAA, SRV)
https://github.com/kubernetes/dns/blob/master/docs/specification.md
https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from kubenotes.errors import KubenotesError
from kubenotes.kubelet.dns import (
    DEFAULT_CLUSTER_DNS,
    DEFAULT_CLUSTER_DOMAIN,
    DEFAULT_DNS_OPTIONS,
    DNSConfig,
    cluster_first_searches,
    search_names,
)
from kubenotes.api.service import LABEL_SERVICE_NAME

__all__ = [
    "DEFAULT_TTL_SECONDS",
    "DNS_SCHEMA_VERSION",
    "POD_MODES",
    "DNSRecord",
    "DNSAnswer",
    "ClusterDNS",
]

#: CoreDNS kubernetes plugin ``defaultTTL``.
DEFAULT_TTL_SECONDS = 5
#: ``DNSSchemaVersion``: the Kubernetes DNS specification version CoreDNS implements.
DNS_SCHEMA_VERSION = "1.1.0"
#: The kubernetes plugin's ``pods`` option: ``disabled`` (CoreDNS's default), ``insecure`` (kubeadm's Corefile), ``verified``.
POD_MODES = ("disabled", "insecure", "verified")

_SVC, _POD = "svc", "pod"


# --------------------------------------------------------------------------- CoreDNS's kubernetes plugin

@dataclass(frozen=True)
class DNSRecord:
    """One resource record, printed as ``dig`` prints it.

    Attributes
    ----------
    name : str
        Owner name, fully qualified (trailing dot).
    rtype : str
        ``A``, ``AAAA``, ``SRV``, ``CNAME``.
    data : str
        The address, the CNAME target, or ``priority weight port target`` for SRV.
    ttl_seconds : int

    Examples
    --------
    >>> str(DNSRecord("web.shop.svc.cluster.local.", "A", "10.96.7.7"))
    'web.shop.svc.cluster.local.\\t5\\tIN\\tA\\t10.96.7.7'
    """

    name: str
    rtype: str
    data: str
    ttl_seconds: int = DEFAULT_TTL_SECONDS

    def __str__(self) -> str:
        return f"{self.name}\t{self.ttl_seconds}\tIN\t{self.rtype}\t{self.data}"


@dataclass(frozen=True)
class DNSAnswer:
    """CoreDNS's reply to one question.

    Attributes
    ----------
    qname, qtype : str
    rcode : str
        ``NOERROR`` or ``NXDOMAIN``; ``FORWARDED`` for a name outside the
        cluster domain, which CoreDNS's ``forward`` plugin sends upstream (not
        modelled, no records).
    answer, extra : tuple of DNSRecord
    """

    qname: str
    qtype: str
    rcode: str
    answer: tuple[DNSRecord, ...] = ()
    extra: tuple[DNSRecord, ...] = ()


@dataclass(frozen=True)
class _Addr:
    ip: str
    hostname: str
    target_ref_name: str


@dataclass(frozen=True)
class _Backend:
    """A ``msg.Service``: a host (IP or name), a port and the key its SRV target comes from."""

    host: str
    port: int
    target: str


@dataclass
class _Request:
    port: str = ""
    protocol: str = ""
    endpoint: str = ""
    service: str = ""
    namespace: str = ""
    pod_or_svc: str = ""


class _NameError(KubenotesError):
    """``errNoItems`` / ``errInvalidRequest``: NXDOMAIN."""


def _ip_family(ip: str) -> int | None:
    try:
        return ipaddress.ip_address(ip).version
    except ValueError:
        return None


def _endpoint_hostname(addr: _Addr, endpoint_pod_names: bool) -> str:
    """``endpointHostname``: the endpoint's hostname, else (option) the pod's name, else the dashed IP."""
    if addr.hostname:
        return addr.hostname
    if endpoint_pod_names and addr.target_ref_name:
        return addr.target_ref_name
    if "." in addr.ip:
        return addr.ip.replace(".", "-")
    if ":" in addr.ip:
        h = addr.ip.replace(":", "-")
        return h + "0" if h.endswith("-") else h
    return ""


def _match(a: str, b: str) -> bool:
    return a.lower() == b.lower()


class ClusterDNS:
    """CoreDNS's ``kubernetes`` plugin over a set of objects: what a pod's DNS queries return.

    Parameters
    ----------
    objects : iterable of dict
        Services, EndpointSlices, Pods and Namespaces as the API returns them
        (a ``kubectl get -o yaml`` dump works). A Service's endpoints are those
        of its EndpointSlices only; for a plain dump without them,
        :func:`kubenotes.sim.network.add_endpoint_slices` first adds the
        slices the EndpointSlice controller would write.
    cluster_domain : str
        The zone (``cluster.local``).
    pod_mode : str
        The plugin's ``pods`` option; ``insecure`` as in kubeadm's Corefile.
    endpoint_pod_names : bool
        The ``endpoint_pod_names`` option (endpoints named by their pod).
    ttl_seconds : int
        The TTL of every answer, in seconds (the plugin's ``ttl``, 5).

    Returns
    -------
    ClusterDNS
        Holding the zone's ``services`` (``(namespace, name)`` -> Service),
        ``pods`` and ``namespaces``; :meth:`query` answers one question
        (name, type) and :meth:`resolve` a pod's lookup through its search path.

    Raises
    ------
    ValueError
        When ``pod_mode`` is not one of ``disabled``, ``insecure``, ``verified``.

    See Also
    --------
    kubenotes.kubelet.dns.pod_dns_config : the search path a pod's resolver uses.

    Notes
    -----
    Simplified: only the ``kubernetes`` plugin is modelled; names outside the
    zone get ``FORWARDED`` and no records (CoreDNS's ``forward`` plugin would
    ask the node's resolvers), and an ExternalName target outside the zone is
    not resolved further. No SOA/NS/TXT/PTR answers, no ``fallthrough``,
    ``ignore empty_service``, multicluster or wildcard queries. Namespaces
    "exist" when a Namespace object or any namespaced object names them (and
    the four system namespaces).

    References
    ----------
    coredns/coredns@v1.12.1 plugin/kubernetes/kubernetes.go (findServices, findPods)
    coredns/coredns@v1.12.1 plugin/backend_lookup.go (A, SRV: weight 100 / n per priority)
    coredns/coredns@v1.12.1 plugin/kubernetes/object/endpoint.go (only ready endpoints)

    Examples
    --------
    >>> dns = ClusterDNS([
    ...     {"kind": "Service", "metadata": {"name": "web", "namespace": "shop"},
    ...      "spec": {"clusterIP": "10.96.7.7", "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}}])
    >>> [str(r) for r in dns.query("web.shop.svc.cluster.local.", "A").answer]
    ['web.shop.svc.cluster.local.\\t5\\tIN\\tA\\t10.96.7.7']
    >>> [r.data for r in dns.query("_http._tcp.web.shop.svc.cluster.local.", "SRV").answer]
    ['0 100 80 web.shop.svc.cluster.local.']
    >>> [r.name for r in dns.resolve("web", "shop")]
    ['web.shop.svc.cluster.local.']
    """

    def __init__(self, objects: Iterable[Mapping[str, Any]], *, cluster_domain: str = DEFAULT_CLUSTER_DOMAIN,
                 pod_mode: str = "insecure", endpoint_pod_names: bool = False,
                 ttl_seconds: int = DEFAULT_TTL_SECONDS):
        if pod_mode not in POD_MODES:
            raise ValueError(f"pod_mode must be one of {', '.join(POD_MODES)}, not {pod_mode!r}")
        self.cluster_domain = cluster_domain.strip(".")
        self.pod_mode = pod_mode
        self.endpoint_pod_names = endpoint_pod_names
        self.ttl_seconds = ttl_seconds
        objs = [dict(o) for o in objects]
        self.namespaces = {"default", "kube-system", "kube-public", "kube-node-lease"}
        self.services: dict[tuple[str, str], dict] = {}
        self.pods: list[dict] = []
        slices: list[dict] = []
        for o in objs:
            md = o.get("metadata") or {}
            kind = o.get("kind")
            if kind == "Namespace":
                self.namespaces.add(md.get("name", ""))
                continue
            if md.get("namespace"):
                self.namespaces.add(md["namespace"])
            ns = md.get("namespace") or "default"
            if kind == "Service":
                self.services[(ns, md.get("name", ""))] = o
            elif kind == "Pod":
                self.pods.append(o)
            elif kind == "EndpointSlice":
                slices.append(o)
        #: (namespace, service) -> list of (addresses, ports) per slice; addresses only of ready endpoints
        self.endpoints: dict[tuple[str, str], list[tuple[list[_Addr], list[dict]]]] = {}
        for sl in slices:
            md = sl.get("metadata") or {}
            svc = (md.get("labels") or {}).get(LABEL_SERVICE_NAME)
            if svc:
                self.endpoints.setdefault((md.get("namespace") or "default", svc), []).append(
                    self._subset(sl.get("endpoints") or [], sl.get("ports") or []))

    @staticmethod
    def _subset(endpoints: list[dict], ports: list[dict]) -> tuple[list[_Addr], list[dict]]:
        """``EndpointSliceToEndpoints``: ready endpoints' addresses; a sentinel port -1 when there are no ports."""
        addrs = []
        for ep in endpoints:
            if (ep.get("conditions") or {}).get("ready") is False:  # nil means ready
                continue
            ref = (ep.get("targetRef") or {}).get("name") or ""
            for a in ep.get("addresses") or []:
                addrs.append(_Addr(a, ep.get("hostname") or "", ref if len(ref) < 64 else ""))
        plist = [{"port": p.get("port", -1) if p.get("port") is not None else -1, "name": p.get("name") or "",
                  "protocol": p.get("protocol") or ""} for p in ports] or [{"port": -1, "name": "", "protocol": ""}]
        return addrs, plist

    # ------------------------------------------------------------------ parsing and lookup
    def _zone_base(self, qname: str) -> str | None:
        """The part of ``qname`` left of the zone, or None when the name is outside it."""
        q = qname.rstrip(".").lower()
        z = self.cluster_domain.lower()
        if q == z:
            return ""
        if q.endswith("." + z):
            return q[: -len(z) - 1]
        return None

    def _parse(self, base: str) -> _Request:
        """``parseRequest``: ``[_port._proto.|endpoint.]service.namespace.(svc|pod)``."""
        r = _Request()
        if base in ("", _SVC, _POD):
            return r
        segs = base.split(".")
        r.pod_or_svc = segs.pop()
        if r.pod_or_svc not in (_SVC, _POD):
            raise _NameError(base)
        if segs:
            r.namespace = segs.pop()
        if segs:
            r.service = segs.pop()
        if len(segs) == 1:
            r.endpoint = segs[0]
        elif len(segs) == 2:
            r.port, r.protocol = segs[0].removeprefix("_"), segs[1].removeprefix("_")
        elif segs:
            raise _NameError(base)  # too long
        return r

    def _key(self, *labels: str) -> str:
        return ".".join(labels) + f".{self.cluster_domain}."

    def _backends(self, r: _Request) -> list[_Backend]:
        """``Records``: the matching services, endpoints or pod, as backends; _NameError when none."""
        if not r.pod_or_svc:
            return []
        if r.namespace and r.namespace not in self.namespaces:
            raise _NameError(r.namespace)
        if not r.namespace or not r.service:
            return []  # NODATA: an existing namespace, or the svc/pod apex
        if r.pod_or_svc == _POD:
            return self._find_pods(r)
        return self._find_services(r)

    def _find_pods(self, r: _Request) -> list[_Backend]:
        if self.pod_mode == "disabled":
            raise _NameError(r.service)
        name = r.service
        ip = name.replace("-", ".") if name.count("-") == 3 and "--" not in name else name.replace("-", ":")
        if _ip_family(ip) is None:
            raise _NameError(name)
        target = self._key(name, r.namespace, _POD)
        if self.pod_mode == "insecure":
            return [_Backend(str(ipaddress.ip_address(ip)), 0, target)]
        found = [_Backend(ip, 0, target) for p in self.pods
                 if (p.get("status") or {}).get("podIP") == ip and _match(r.namespace, p["metadata"].get("namespace")
                                                                          or "default")]
        if not found:
            raise _NameError(name)
        return found

    def _find_services(self, r: _Request) -> list[_Backend]:
        out: list[_Backend] = []
        hit = False
        for (ns, name), svc in sorted(self.services.items()):
            if not (_match(r.namespace, ns) and _match(r.service, name)):
                continue
            spec = svc.get("spec") or {}
            if spec.get("type") == "ExternalName":
                if r.endpoint or r.port or r.protocol:
                    continue
                target = str(spec.get("externalName") or "")
                if target and _ip_family(target) is None:
                    out.append(_Backend(target, 0, self._key(name, ns, _SVC)))
                    hit = True
                continue
            cluster_ips = list(spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else []))
            headless = cluster_ips == ["None"]
            if headless or r.endpoint:
                for addrs, ports in self.endpoints.get((ns, name), []):
                    for a in addrs:
                        host = _endpoint_hostname(a, self.endpoint_pod_names)
                        if r.endpoint and not _match(r.endpoint, host):
                            continue
                        for p in ports:
                            if (r.port and not _match(r.port, p["name"])) or \
                                    (r.protocol and not _match(r.protocol, p["protocol"])):
                                continue
                            out.append(_Backend(a.ip, int(p["port"]), self._key(host, name, ns, _SVC)))
                            hit = True
                continue
            for p in spec.get("ports") or []:
                if (r.port and not _match(r.port, p.get("name") or "")) or \
                        (r.protocol and not _match(r.protocol, p.get("protocol") or "TCP")):
                    continue
                hit = True
                out += [_Backend(ip, int(p["port"]), self._key(name, ns, _SVC)) for ip in cluster_ips]
        if not hit:
            raise _NameError(r.service)
        return out

    # ------------------------------------------------------------------ answering
    def _address_records(self, qname: str, qtype: str, backends: list[_Backend], depth: int = 0) -> list[DNSRecord]:
        """``plugin.A`` / ``plugin.AAAA``: addresses of the wanted family, deduplicated; CNAMEs followed in-zone."""
        want = 4 if qtype == "A" else 6
        out: list[DNSRecord] = []
        seen: set[str] = set()
        for b in backends:
            fam = _ip_family(b.host)
            if fam is None:
                target = b.host if b.host.endswith(".") else b.host + "."
                if _match(target, qname) or depth > 10:
                    continue
                cname = DNSRecord(qname, "CNAME", target, self.ttl_seconds)
                if self._zone_base(target) is not None:
                    nxt = self.query(target, qtype, _depth=depth + 1)
                    if nxt.answer:
                        out += [cname, *nxt.answer]
                else:
                    out.append(cname)  # the upstream lookup of an outside target is not modelled
            elif fam == want and b.host not in seen:
                seen.add(b.host)
                out.append(DNSRecord(qname, qtype, b.host, self.ttl_seconds))
        return out

    def _srv_records(self, qname: str, backends: list[_Backend]) -> tuple[list[DNSRecord], list[DNSRecord]]:
        """``plugin.SRV``: priority 0, weight ``floor(100 / n)`` (at least 1), targets named by the backend key."""
        backends = [b for b in backends if _ip_family(b.host) is not None]  # no SRV for ExternalName
        n = len(backends)
        weight = max(1, math.floor(100.0 / (100 * n) * 100)) if n else 0
        records: list[DNSRecord] = []
        extra: list[DNSRecord] = []
        dup: set[tuple[str, str, int]] = set()
        for b in backends:
            if b.port == -1:
                continue
            if (b.target, "", b.port) not in dup:
                dup.add((b.target, "", b.port))
                records.append(DNSRecord(qname, "SRV", f"0 {weight} {b.port} {b.target}", self.ttl_seconds))
            if (b.target, b.host, 0) not in dup:
                dup.add((b.target, b.host, 0))
                extra.append(DNSRecord(b.target, "A" if _ip_family(b.host) == 4 else "AAAA", b.host,
                                       self.ttl_seconds))
        return records, extra

    def query(self, qname: str, qtype: str = "A", *, _depth: int = 0) -> DNSAnswer:
        """Answer one question as CoreDNS's ``kubernetes`` plugin does.

        Parameters
        ----------
        qname : str
            A name; a missing final dot is added.
        qtype : str
            ``A``, ``AAAA``, ``SRV`` or ``CNAME`` (any other type gets
            NOERROR/NXDOMAIN with no records, decided as for ``A``).

        Returns
        -------
        DNSAnswer
        """
        qname = qname if qname.endswith(".") else qname + "."
        qtype = qtype.upper()
        base = self._zone_base(qname)
        if base is None:
            return DNSAnswer(qname, qtype, "FORWARDED")
        try:
            backends = self._backends(self._parse(base))
        except _NameError:
            return DNSAnswer(qname, qtype, "NXDOMAIN")
        if qtype in ("A", "AAAA"):
            return DNSAnswer(qname, qtype, "NOERROR", tuple(self._address_records(qname, qtype, backends, _depth)))
        if qtype == "SRV":
            rec, extra = self._srv_records(qname, backends)
            return DNSAnswer(qname, qtype, "NOERROR", tuple(rec), tuple(extra))
        if qtype == "CNAME":
            return DNSAnswer(qname, qtype, "NOERROR", tuple(
                DNSRecord(qname, "CNAME", b.host if b.host.endswith(".") else b.host + ".", self.ttl_seconds)
                for b in backends if _ip_family(b.host) is None))
        return DNSAnswer(qname, qtype, "NOERROR")

    def resolution(self, name: str, pod_namespace: str, qtype: str = "A", *,
                   config: DNSConfig | None = None) -> list[DNSAnswer]:
        """Every question a ClusterFirst pod's resolver asks for ``name``, up to the first with records.

        Parameters
        ----------
        name : str
        pod_namespace : str
        qtype : str
        config : DNSConfig, optional
            The pod's resolver settings (default: ClusterFirst in ``pod_namespace``).

        Returns
        -------
        list of DNSAnswer
            In the order asked; the last one holds the records if any did.
        """
        config = config or DNSConfig(DEFAULT_CLUSTER_DNS, cluster_first_searches(pod_namespace, self.cluster_domain),
                                     DEFAULT_DNS_OPTIONS)
        out = []
        for q in search_names(name, config):
            ans = self.query(q, qtype)
            out.append(ans)
            if ans.answer:
                break
        return out

    def resolve(self, name: str, pod_namespace: str, qtype: str = "A", *,
                config: DNSConfig | None = None) -> list[DNSRecord]:
        """``getaddrinfo`` in a pod: the records of the first search-path name that has any (empty if none).

        Examples
        --------
        >>> dns = ClusterDNS([{"kind": "Service", "metadata": {"name": "db", "namespace": "data"},
        ...                    "spec": {"clusterIP": "10.96.0.42", "ports": [{"port": 5432}]}}])
        >>> dns.resolve("db", "shop"), [r.data for r in dns.resolve("db.data", "shop")]
        ([], ['10.96.0.42'])
        """
        answers = self.resolution(name, pod_namespace, qtype, config=config)
        return list(answers[-1].answer) if answers else []

    def records(self) -> list[DNSRecord]:
        """The zone's records, service by service: A/AAAA, SRV per named port, headless endpoints, CNAMEs, pods.

        Notes
        -----
        CoreDNS also answers endpoint names (``10-244-1-5.web.shop.svc...``)
        for Services with a cluster IP; :meth:`query` does, this listing
        shows them for headless Services only. Pod records are listed for pods
        with an IP unless ``pod_mode`` is ``disabled``.
        """
        out: list[DNSRecord] = []
        for (ns, name), svc in sorted(self.services.items()):
            spec = svc.get("spec") or {}
            qname = self._key(name, ns, _SVC)
            if spec.get("type") == "ExternalName":
                out += self.query(qname, "CNAME").answer
                continue
            out += self.query(qname, "A").answer + self.query(qname, "AAAA").answer
            ports = spec.get("ports") or []
            headless = (spec.get("clusterIP") or "") == "None"
            if headless:
                ports = [p for _, ps in self.endpoints.get((ns, name), []) for p in ps]
            for p in dict.fromkeys((p.get("name") or "", (p.get("protocol") or "TCP").lower()) for p in ports):
                if p[0]:
                    out += self.query(self._key(f"_{p[0]}", f"_{p[1]}", name, ns, _SVC), "SRV").answer
            if headless:
                hosts = dict.fromkeys(_endpoint_hostname(a, self.endpoint_pod_names)
                                      for addrs, _ in self.endpoints.get((ns, name), []) for a in addrs)
                for h in hosts:
                    q = self._key(h, name, ns, _SVC)
                    out += self.query(q, "A").answer + self.query(q, "AAAA").answer
        if self.pod_mode != "disabled":
            for p in sorted(self.pods, key=lambda p: (p["metadata"].get("namespace") or "", p["metadata"]["name"])):
                ip = (p.get("status") or {}).get("podIP")
                if ip:
                    dashed = ip.replace(".", "-") if "." in ip else ip.replace(":", "-")
                    q = self._key(dashed, p["metadata"].get("namespace") or "default", _POD)
                    out += self.query(q, "A" if _ip_family(ip) == 4 else "AAAA").answer
        return out
