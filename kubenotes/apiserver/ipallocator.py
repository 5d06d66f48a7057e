"""Service ClusterIP and NodePort allocation, as the API server's Service REST storage does on create.

A Service created without ``spec.clusterIP`` gets one from the service CIDR
(``--service-cluster-ip-range``; kubeadm's default ``10.96.0.0/12``, where
kube-dns is ``10.96.0.10``), ``clusterIPs`` with it, and the single-stack IP
family fields. ``clusterIP: None`` is a headless Service: nothing is
allocated. Each port of a ``NodePort`` or ``LoadBalancer`` Service without a
``nodePort`` gets one from ``--service-node-port-range`` (30000-32767).

Dynamic allocation is random and prefers the *upper band* of the range, so
that the lower band stays free for addresses and ports users pick
themselves (KEP-3070 and KEP-3668): the first ``offset`` values (for a range
of ``size``: ``size / 16`` clamped to [16, 256] for IPs, ``size / 32``
clamped to [16, 128] for ports) are used only once the rest is full.

Each ClusterIP a Service is given is also a ``networking.k8s.io/v1`` IPAddress object named by the
address (MultiCIDRServiceAllocator, GA and locked on since v1.33): kube-apiserver creates it through its
loopback client when it allocates the address (:func:`create_ip_addresses`, the ``kubernetes`` Service's
``10.96.0.1`` included) and deletes it when the Service is deleted (:func:`release_ip_addresses`). An address
an IPAddress already holds, whoever made it, is taken: a Service asking for it is refused with
``provided IP is already allocated``, and dynamic allocation skips it.

Notes
-----
Simplified from upstream: one IPv4 service CIDR (:data:`SERVICE_IP_FAMILIES`; a Service asking for IPv6 or
RequireDualStack is refused as upstream's ``initIPFamilyFields`` refuses it on such a cluster; no dual stack).
Addresses come from ``--service-cluster-ip-range`` alone: further ServiceCIDR objects are stored but nothing
is allocated from them, and the default one's Ready condition is not consulted. The used set is the
IPAddress objects' names together with the stored Services' ClusterIPs (so a Service restored from a dump
that carries no IPAddress still holds its address; upstream's repair controller would recreate the
object, here it is created when the Service is restored); no repair loop, no events
``ClusterIPNotAllocated``. A Service update that changes its type to or from ExternalName neither
allocates nor releases. The random source is the model's seeded one.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/storage/alloc.go (allocClusterIPs, initIPFamilyFields, allocNodePorts)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/ipallocator/ipallocator.go (calculateRangeOffset,
allocateNextService, createIPAddress, Release)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/ipallocator/cidrallocator.go (MetaAllocator)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/storage/storage.go (beginCreate, afterDelete)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/portallocator/allocator.go (calculateRangeOffset)
KEP-1880 Multiple Service CIDRs: https://github.com/kubernetes/enhancements/tree/master/keps/sig-network/1880-multiple-service-cidrs
"""

from __future__ import annotations

import ipaddress
import random
from typing import Any, Iterable

__all__ = ["DEFAULT_SERVICE_CIDR", "DEFAULT_NODE_PORT_RANGE", "SERVICE_IP_FAMILIES", "CONTROLLER_NAME",
           "LABEL_IP_ADDRESS_FAMILY", "LABEL_MANAGED_BY", "ip_family_errors", "ip_range_offset", "port_range_offset",
           "allocate_cluster_ip", "allocate_node_port", "allocate_service", "service_allocation_errors",
           "service_ips", "ip_address_object", "create_ip_addresses", "release_ip_addresses"]

DEFAULT_SERVICE_CIDR = "10.96.0.0/12"
DEFAULT_NODE_PORT_RANGE = (30000, 32767)
#: The IP families of the cluster's service ranges, primary first (``--service-cluster-ip-range``: IPv4 only).
SERVICE_IP_FAMILIES = ("IPv4",)
#: ``ipallocator.ControllerName``: the ``managed-by`` label of the IPAddress objects kube-apiserver creates.
CONTROLLER_NAME = "ipallocator.k8s.io"
#: ``networkingv1.LabelIPAddressFamily``.
LABEL_IP_ADDRESS_FAMILY = "ipaddress.kubernetes.io/ip-family"
#: ``networkingv1.LabelManagedBy``.
LABEL_MANAGED_BY = "ipaddress.kubernetes.io/managed-by"
#: Upstream's ``ErrAllocated``.
ERR_ALLOCATED = "provided IP is already allocated"


def _family(ip: str) -> str | None:
    try:
        return "IPv6" if ipaddress.ip_address(ip).version == 6 else "IPv4"
    except ValueError:
        return None


def ip_family_errors(service: dict, families: tuple[str, ...] = SERVICE_IP_FAMILIES) -> list[tuple[str, str]]:
    """``initIPFamilyFields``' refusals of a new Service whose IP families the cluster does not serve.

    Parameters
    ----------
    service : dict
        The Service being created.
    families : tuple of str
        The cluster's service IP families (:data:`SERVICE_IP_FAMILIES`).

    Returns
    -------
    list of (str, str)
        ``(field path, full message)`` pairs, as :func:`service_allocation_errors`; empty when the families fit.

    Notes
    -----
    Checked, in upstream's order: ``SingleStack`` with two cluster IPs or two families; a requested cluster IP
    of a family the cluster lacks; then (headless Services without a selector excepted) ``RequireDualStack`` on a
    single-stack cluster and each requested family the cluster lacks. ExternalName Services are not checked.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/storage/alloc.go (initIPFamilyFields)

    Examples
    --------
    >>> ip_family_errors({"spec": {"ipFamilies": ["IPv6"], "ports": [{"port": 80}]}})
    [('spec.ipFamilies[0]', 'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster')]
    >>> ip_family_errors({"spec": {"ipFamilyPolicy": "RequireDualStack", "ports": [{"port": 80}]}})
    [('spec.ipFamilyPolicy', 'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services')]
    """
    spec = service.get("spec") or {}
    if spec.get("type") == "ExternalName":
        return []
    policy = spec.get("ipFamilyPolicy")
    policy_text = f'"{policy}"' if policy is not None else "null"
    requested = list(spec.get("ipFamilies") or ())
    cluster_ips = list(spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else []))
    errors: list[tuple[str, str]] = []
    if (policy or "SingleStack") == "SingleStack":
        for what, n in (("cluster IPs", len(cluster_ips)), ("IP families", len(requested))):
            if n == 2:
                errors.append(("spec.ipFamilyPolicy", f"spec.ipFamilyPolicy: Invalid value: {policy_text}: must be "
                                                      f"RequireDualStack or PreferDualStack when multiple {what} are "
                                                      "specified"))
    for i, ip in enumerate(cluster_ips):
        if ip == "None":
            break
        fam = _family(ip)
        if fam is None or i < len(requested):
            continue
        if fam not in families:
            errors.append((f"spec.clusterIPs[{i}]", f"spec.clusterIPs[{i}]: Invalid value: "
                                                    f"{_go_string_slice(cluster_ips)}: {fam} is not configured on "
                                                    "this cluster"))
        else:
            requested.append(fam)
    if errors:
        return errors
    if spec.get("clusterIP") == "None" and not spec.get("selector"):
        return []  # headless and selectorless: any families, nothing is allocated
    if policy == "RequireDualStack" and len(families) < 2:
        errors.append(("spec.ipFamilyPolicy", f"spec.ipFamilyPolicy: Invalid value: {policy_text}: this cluster is "
                                              "not configured for dual-stack services"))
    for i, fam in enumerate(spec.get("ipFamilies") or ()):
        if fam not in families:
            errors.append((f"spec.ipFamilies[{i}]", f'spec.ipFamilies[{i}]: Invalid value: "{fam}": not configured '
                                                    "on this cluster"))
    return errors


def ip_range_offset(cidr: str) -> int:
    """How many addresses at the bottom of a service CIDR dynamic allocation leaves for last.

    Examples
    --------
    >>> ip_range_offset("10.96.0.0/12"), ip_range_offset("10.0.0.0/24"), ip_range_offset("10.0.0.0/28")
    (256, 16, 0)
    """
    size = ipaddress.ip_network(cidr).num_addresses
    if size <= 16:
        return 0
    return min(max(16, size // 16), 256)


def port_range_offset(low: int, high: int) -> int:
    """The same for a node-port range (``size / 32`` clamped to [16, 128]).

    Examples
    --------
    >>> port_range_offset(30000, 32767)
    86
    """
    size = high - low + 1
    if size <= 16:
        return 0
    return min(max(16, size // 32), 128)


def _pick(rng: random.Random, low: int, high: int, offset: int, used: set[int]) -> int | None:
    """A random free value of [low, high], trying [low+offset, high] first, then [low, low+offset)."""
    for a, b in ((low + offset, high), (low, low + offset - 1)):
        if a > b:
            continue
        free = (b - a + 1) - sum(1 for u in used if a <= u <= b)
        if free <= 0:
            continue
        start = rng.randint(a, b)  # scan on from a random start, as upstream's random-scan strategy
        for i in range(b - a + 1):
            v = a + (start - a + i) % (b - a + 1)
            if v not in used:
                return v
    return None


def allocate_cluster_ip(used: Iterable[str], rng: random.Random, cidr: str = DEFAULT_SERVICE_CIDR) -> str | None:
    """A free ClusterIP of ``cidr`` (network and broadcast addresses excluded), or None when it is full.

    Examples
    --------
    >>> ip = allocate_cluster_ip({"10.96.0.10"}, random.Random(0))
    >>> ipaddress.ip_address(ip) in ipaddress.ip_network("10.96.0.0/12"), int(ip.split(".")[2]) >= 1
    (True, True)
    """
    net = ipaddress.ip_network(cidr)
    base = int(net.network_address)
    taken = {int(ipaddress.ip_address(u)) - base for u in used if _in(u, net)}
    v = _pick(rng, 1, net.num_addresses - 2, ip_range_offset(cidr), taken)
    return None if v is None else str(ipaddress.ip_address(base + v))


def _in(ip: str, net: ipaddress.IPv4Network | ipaddress.IPv6Network) -> bool:
    try:
        return ipaddress.ip_address(ip) in net
    except ValueError:
        return False


def allocate_node_port(used: Iterable[int], rng: random.Random,
                       port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE) -> int | None:
    """A free node port of ``port_range``, or None when it is full.

    Examples
    --------
    >>> 30000 + port_range_offset(30000, 32767) <= allocate_node_port(set(), random.Random(1)) <= 32767
    True
    """
    low, high = port_range
    return _pick(rng, low, high, port_range_offset(low, high), set(used))


def _go_string_slice(items: Iterable[str]) -> str:
    """Go's ``%#v`` of a ``[]string``: ``[]string{"10.0.0.1"}``."""
    return "[]string{" + ", ".join(f'"{i}"' for i in items) + "}"


def service_allocation_errors(service: dict, existing: Iterable[dict], cidr: str = DEFAULT_SERVICE_CIDR,
                              port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE,
                              held: Iterable[str] = ()) -> list[tuple[str, str]]:
    """The allocators' refusals of a new Service's requested ClusterIPs and node ports, as field errors.

    A requested ``clusterIP`` outside the service range or already taken (by a
    stored Service or an IPAddress object of ``held``), a requested ``nodePort``
    outside the node-port range or already taken: each is ``(field path, full
    message)`` in upstream's words, which the API server returns as 422 Invalid.

    Parameters
    ----------
    service : dict
        The Service being created.
    existing : iterable of dict
        The stored Services.
    cidr : str
        ``--service-cluster-ip-range``.
    port_range : tuple of int
        ``--service-node-port-range`` (low, high), both included.
    held : iterable of str
        The names of the stored IPAddress objects (each an address already taken).

    Returns
    -------
    list of (str, str)
        ``(field path, full message)`` pairs; empty when everything requested is free.

    Examples
    --------
    >>> service_allocation_errors({"spec": {"clusterIP": "192.168.1.1", "ports": [{"port": 80}]}}, [])
    [('spec.clusterIPs', 'spec.clusterIPs: Invalid value: []string{"192.168.1.1"}: failed to allocate IP 192.168.1.1: provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12')]
    >>> service_allocation_errors({"spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": 8080}]}}, [])
    [('spec.ports[0].nodePort', 'spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767')]
    >>> taken = {"spec": {"clusterIP": "10.96.0.50", "ports": [{"port": 80}]}}
    >>> service_allocation_errors(taken, [], held=["10.96.0.50"])
    [('spec.clusterIPs', 'spec.clusterIPs: Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated')]
    """
    spec = service.get("spec") or {}
    if spec.get("type") == "ExternalName":
        return []
    family_errors = ip_family_errors(service)
    if family_errors:
        return family_errors  # upstream bails out before allocating
    existing = list(existing)
    errors: list[tuple[str, str]] = []
    requested = [i for i in (spec.get("clusterIPs") or [spec.get("clusterIP") or ""]) if i and i != "None"]
    if requested:
        net = ipaddress.ip_network(cidr, strict=False)
        used = set(held) | set(service_ips(existing))
        for ip in requested:
            head = f"spec.clusterIPs: Invalid value: {_go_string_slice(requested)}: failed to allocate IP {ip}: "
            try:
                inside = _in(ip, net) and ipaddress.ip_address(ip) not in (net.network_address, net.broadcast_address)
            except ValueError:
                continue  # validation reports a malformed address
            if not inside:
                errors.append(("spec.clusterIPs", head + f"provided IP is not in the valid range. "
                                                         f"The range of valid IPs is {cidr}"))
            elif ip in used:
                errors.append(("spec.clusterIPs", head + ERR_ALLOCATED))
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        low, high = port_range
        used_ports = {p.get("nodePort") for s in existing for p in (s.get("spec") or {}).get("ports") or ()
                      if p.get("nodePort")}
        for i, p in enumerate(spec.get("ports") or ()):
            port = p.get("nodePort")
            if not port:
                continue
            path = f"spec.ports[{i}].nodePort"
            if not low <= int(port) <= high:
                errors.append((path, f"{path}: Invalid value: {port}: provided port is not in the valid range. "
                                     f"The range of valid ports is {low}-{high}"))
            elif port in used_ports:
                errors.append((path, f"{path}: Invalid value: {port}: provided port is already allocated"))
    return errors


def allocate_service(service: dict, existing: Iterable[dict], rng: random.Random,
                     cidr: str = DEFAULT_SERVICE_CIDR, port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE,
                     held: Iterable[str] = ()) -> None:
    """Fill a new Service's ClusterIP(s), IP family fields and node ports in place.

    Parameters
    ----------
    service : dict
        The Service being created (defaulted: ``spec.type`` set).
    existing : iterable of dict
        The stored Services (their IPs and node ports are taken).
    rng : random.Random
    cidr : str
        ``--service-cluster-ip-range``.
    port_range : tuple of int
        ``--service-node-port-range``.
    held : iterable of str
        The names of the stored IPAddress objects: addresses skipped, as upstream's ``allocateFromRange``
        skips every address its IPAddress lister has.

    Returns
    -------
    None
        ``spec.clusterIP`` is left empty when the range is full.

    See Also
    --------
    create_ip_addresses : the IPAddress objects of the addresses filled in here.

    Examples
    --------
    >>> svc = {"spec": {"type": "NodePort", "ports": [{"port": 80, "protocol": "TCP"}]}}
    >>> allocate_service(svc, [], random.Random(0))
    >>> svc["spec"]["clusterIPs"] == [svc["spec"]["clusterIP"]], svc["spec"]["ipFamilies"]
    (True, ['IPv4'])
    >>> 30000 <= svc["spec"]["ports"][0]["nodePort"] <= 32767
    True
    """
    spec = service.setdefault("spec", {})
    if spec.get("type") == "ExternalName":
        return
    existing = list(existing)
    ip = spec.get("clusterIP") or ""
    if not ip:
        ip = allocate_cluster_ip(set(held) | set(service_ips(existing)), rng, cidr) or ""
        spec["clusterIP"] = ip
    if ip and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [ip]
    spec.setdefault("ipFamilyPolicy", "SingleStack")
    spec.setdefault("ipFamilies", ["IPv4"])
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        used_ports = {p.get("nodePort") for s in existing for p in (s.get("spec") or {}).get("ports") or ()
                      if p.get("nodePort")}
        for p in spec.get("ports") or ():
            if not p.get("nodePort"):
                port = allocate_node_port(used_ports, rng, port_range)
                if port is not None:
                    p["nodePort"] = port
                    used_ports.add(port)


def service_ips(services: Iterable[dict]) -> list[str]:
    """The ClusterIPs of ``services`` (``clusterIPs``, else ``clusterIP``; ``None`` and empty left out).

    Examples
    --------
    >>> service_ips([{"spec": {"clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"]}},
    ...              {"spec": {"clusterIP": "None"}}, {"spec": {"type": "ExternalName"}}])
    ['10.96.0.10']
    """
    out = []
    for s in services:
        spec = s.get("spec") or {}
        out.extend(i for i in (spec.get("clusterIPs") or [spec.get("clusterIP") or ""]) if i and i != "None")
    return out


def ip_address_object(ip: str, service: dict) -> dict:
    """The IPAddress object kube-apiserver creates for one of a Service's ClusterIPs (``createIPAddress``).

    Parameters
    ----------
    ip : str
        The address; it is the object's name.
    service : dict
        The Service it is allocated to (its namespace and name make ``spec.parentRef``).

    Returns
    -------
    dict
        A ``networking.k8s.io/v1`` IPAddress with the ``ip-family`` and ``managed-by`` labels; the
        parentRef's empty ``group`` (the core group) is left out, as its ``omitempty`` leaves it out of JSON.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/ipallocator/ipallocator.go (createIPAddress, serviceToRef)

    Examples
    --------
    >>> a = ip_address_object("10.96.0.1", {"metadata": {"name": "kubernetes", "namespace": "default"}})
    >>> a["metadata"]["labels"]
    {'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io'}
    >>> a["spec"]
    {'parentRef': {'resource': 'services', 'namespace': 'default', 'name': 'kubernetes'}}
    """
    md = service.get("metadata") or {}
    return {"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
            "metadata": {"name": ip, "labels": {LABEL_IP_ADDRESS_FAMILY: _family(ip) or "IPv4",
                                                LABEL_MANAGED_BY: CONTROLLER_NAME}},
            "spec": {"parentRef": {"resource": "services", "namespace": md.get("namespace", "") or "",
                                   "name": md.get("name", "")}}}


def create_ip_addresses(client: Any, service: dict, requested: Iterable[str] = (),
                        restoring: bool = False) -> list[str]:
    """Create the IPAddress objects of a new Service's ClusterIPs, as the allocator does when it allocates them.

    Parameters
    ----------
    client : kubenotes.apiserver.server.Client
        kube-apiserver's loopback client (the objects pass the request path: authorization, admission,
        validation).
    service : dict
        The Service, its ClusterIPs filled in (:func:`allocate_service`).
    requested : iterable of str
        The addresses the Service asked for (a refusal of one of them is 422 Invalid; of an address the
        allocator chose, 500).
    restoring : bool
        The Service is restored from a dump: an address whose IPAddress already exists is left as it is.

    Returns
    -------
    list of str
        The addresses whose IPAddress objects were created (what :func:`release_ip_addresses` reverts).

    Raises
    ------
    ApiError
        422 Invalid ``failed to allocate IP <ip>: <error>`` for a requested address whose IPAddress could not
        be created (``provided IP is already allocated`` when it exists), 500 ``failed to allocate a
        serviceIP: <error>`` for an allocated one; the objects created before it are deleted first.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/ipallocator/ipallocator.go (allocateService, createIPAddress)
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/storage/alloc.go (allocIPs, txnAllocClusterIPs)

    See Also
    --------
    allocate_service : fills in the addresses first.
    release_ip_addresses : deletes them again.

    Examples
    --------
    >>> from kubenotes.apiserver.load import start_api_server
    >>> api = start_api_server()
    >>> [a["metadata"]["name"] for a in api.list("ipaddresses")]   # the kubernetes Service's, at start
    ['10.96.0.1']
    """
    from kubenotes.apiserver.status import ApiError, field_cause, new_internal_error, new_invalid

    requested = set(requested)
    md = service.get("metadata") or {}
    done: list[str] = []
    for ip in service_ips([service]):
        if restoring and client.server.get("ipaddresses", None, ip) is not None:
            continue
        try:
            client.create("ipaddresses", ip_address_object(ip, service))
        except ApiError as e:
            release_ip_addresses(client, done)
            text = ERR_ALLOCATED if e.reason == "AlreadyExists" else str(e)
            if ip in requested:
                ips = (service.get("spec") or {}).get("clusterIPs") or [ip]
                raise new_invalid("", "Service", md.get("name", ""), [field_cause(
                    "spec.clusterIPs", f"spec.clusterIPs: Invalid value: {_go_string_slice(ips)}: "
                                       f"failed to allocate IP {ip}: {text}")]) from None
            raise new_internal_error(f"failed to allocate a serviceIP: {text}") from None
        done.append(ip)
    return done


def release_ip_addresses(client: Any, ips: Iterable[str]) -> None:
    """Delete the IPAddress objects of ``ips`` (``Release``): a deleted Service's, or a failed create's.

    Parameters
    ----------
    client : kubenotes.apiserver.server.Client
        kube-apiserver's loopback client.
    ips : iterable of str
        The addresses; one with no IPAddress, or that cannot be deleted, is passed over, as upstream
        ignores the error.

    Returns
    -------
    None

    See Also
    --------
    create_ip_addresses : what this undoes.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/ipallocator/ipallocator.go (Release)
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/service/storage/storage.go (afterDelete)

    Examples
    --------
    >>> from kubenotes.apiserver.load import start_api_server
    >>> api = start_api_server()
    >>> release_ip_addresses(api.client("kube-apiserver"), ["10.96.0.1", "10.96.0.99"])
    >>> api.list("ipaddresses")
    []
    """
    from kubenotes.apiserver.status import ApiError

    for ip in ips:
        try:
            client.delete("ipaddresses", ip)
        except ApiError:
            pass
