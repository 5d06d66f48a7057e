"""Service environment variables: what the kubelet adds to every container's environment.

When the kubelet starts a container it adds, for every Service with a
cluster IP in the pod's namespace (and always for the ``kubernetes`` Service
of ``default``), the ``<NAME>_SERVICE_HOST`` / ``_SERVICE_PORT`` variables
and the docker-link ones (``<NAME>_PORT=tcp://10.96.0.1:443``...). They are
computed once, at container start: a Service created later is invisible to
a running pod, which is why the Service must exist before the pod
(:func:`service_env_vars`, upstream ``getServiceEnvVarMap`` and
``envvars.FromServices``).

Mirrors ``pkg/kubelet/envvars`` (and the kubelet's ``getServiceEnvVarMap``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/envvars/envvars.go (FromServices, makeLinkVariables)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (getServiceEnvVarMap, makeEnvironmentVariables)
https://kubernetes.io/docs/concepts/services-networking/service/#environment-variables
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kubenotes.api.service import is_service_ip_set

__all__ = [
    "MASTER_SERVICE_NAMESPACE",
    "MASTER_SERVICES",
    "make_env_variable_name",
    "from_services",
    "service_env_vars",
]

#: The namespace whose master services every pod sees (the kubelet uses ``metav1.NamespaceDefault``).
MASTER_SERVICE_NAMESPACE = "default"
#: ``masterServices``: the API server's Service, injected even with ``enableServiceLinks: false``.
MASTER_SERVICES = ("kubernetes",)


def make_env_variable_name(name: str) -> str:
    """``makeEnvVariableName``: upper case, dashes to underscores.

    Examples
    --------
    >>> make_env_variable_name("redis-master"), make_env_variable_name("t-c-p")
    ('REDIS_MASTER', 'T_C_P')
    """
    return name.replace("-", "_").upper()


def _host_port(ip: str, port: int) -> str:
    """``net.JoinHostPort``: IPv6 addresses in brackets."""
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _link_variables(service: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``makeLinkVariables``: the docker-link variables of every port (the first one also as ``<NAME>_PORT``)."""
    prefix = make_env_variable_name(service["metadata"]["name"])
    ip = service["spec"]["clusterIP"]
    out: list[tuple[str, str]] = []
    for i, sp in enumerate(service["spec"].get("ports") or []):
        protocol = sp.get("protocol") or "TCP"
        url = f"{protocol.lower()}://{_host_port(ip, int(sp['port']))}"
        if i == 0:
            out.append((f"{prefix}_PORT", url))  # docker special-cases the first port
        port_prefix = f"{prefix}_PORT_{int(sp['port'])}_{protocol.upper()}"
        out += [(port_prefix, url), (f"{port_prefix}_PROTO", protocol.lower()),
                (f"{port_prefix}_PORT", str(int(sp["port"]))), (f"{port_prefix}_ADDR", ip)]
    return out


def from_services(services: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """``envvars.FromServices``: the variables for these Services, in upstream's order.

    Per Service with a cluster IP: ``<NAME>_SERVICE_HOST``, ``<NAME>_SERVICE_PORT``
    (the first port), ``<NAME>_SERVICE_PORT_<PORTNAME>`` for each named port,
    then the docker-link variables ``<NAME>_PORT``, and per port
    ``<NAME>_PORT_<port>_<PROTO>`` with ``_PROTO``, ``_PORT``, ``_ADDR``.

    Parameters
    ----------
    services : iterable of dict
        Service objects; those without a cluster IP (headless, ExternalName) are skipped.

    Returns
    -------
    list of (str, str)
        ``(name, value)`` pairs.

    Examples
    --------
    >>> svc = {"metadata": {"name": "redis-master"},
    ...        "spec": {"clusterIP": "10.0.0.11", "ports": [{"port": 6379, "protocol": "TCP"}]}}
    >>> for k, v in from_services([svc]): print(f"{k}={v}")
    REDIS_MASTER_SERVICE_HOST=10.0.0.11
    REDIS_MASTER_SERVICE_PORT=6379
    REDIS_MASTER_PORT=tcp://10.0.0.11:6379
    REDIS_MASTER_PORT_6379_TCP=tcp://10.0.0.11:6379
    REDIS_MASTER_PORT_6379_TCP_PROTO=tcp
    REDIS_MASTER_PORT_6379_TCP_PORT=6379
    REDIS_MASTER_PORT_6379_TCP_ADDR=10.0.0.11
    """
    out: list[tuple[str, str]] = []
    for svc in services:
        if not is_service_ip_set(svc):
            continue
        prefix = make_env_variable_name(svc["metadata"]["name"])
        ports = svc["spec"].get("ports") or []
        out.append((f"{prefix}_SERVICE_HOST", svc["spec"]["clusterIP"]))
        if ports:
            out.append((f"{prefix}_SERVICE_PORT", str(int(ports[0]["port"]))))
        for sp in ports:
            if sp.get("name"):
                out.append((f"{prefix}_SERVICE_PORT_{make_env_variable_name(sp['name'])}", str(int(sp["port"]))))
        out += _link_variables(svc)
    return out


def service_env_vars(services: Iterable[Mapping[str, Any]], namespace: str, *,
                     enable_service_links: bool = True) -> dict[str, str]:
    """``getServiceEnvVarMap``: the Service variables a container of a pod in ``namespace`` starts with.

    The Services of the pod's own namespace (when ``enableServiceLinks``, the
    default) and, always, the master Service ``kubernetes`` of ``default``; a
    Service of the pod's namespace named ``kubernetes`` wins over the master
    one. Only Services with a cluster IP count.

    Parameters
    ----------
    services : iterable of dict
        Every Service the kubelet's informer holds (all namespaces).
    namespace : str
        The pod's namespace.
    enable_service_links : bool
        The pod's ``spec.enableServiceLinks`` (defaulted to true by the API server).

    Returns
    -------
    dict[str, str]
        Variable -> value, Services in name order, each in :func:`from_services` order.

    Raises
    ------
    KeyError
        When a chosen Service with a cluster IP has a port without ``port``
        (the API server never stores one).
    AttributeError
        When a Service is not a mapping.

    See Also
    --------
    from_services : the variables of each Service.
    kubenotes.kubelet.dns.pod_dns_config : the other way a pod finds Services.

    Notes
    -----
    Upstream collects the Services in a Go map, so its order is not fixed;
    here they are sorted by name. Upstream then lets the container's own
    ``env`` override these and appends the rest after them
    (``makeEnvironmentVariables``); that merge is the kubelet model's.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go getServiceEnvVarMap

    Examples
    --------
    >>> kube = {"metadata": {"name": "kubernetes", "namespace": "default"},
    ...         "spec": {"clusterIP": "10.96.0.1", "ports": [{"name": "https", "port": 443, "protocol": "TCP"}]}}
    >>> web = {"metadata": {"name": "web", "namespace": "shop"},
    ...        "spec": {"clusterIP": "10.96.7.7", "ports": [{"port": 80}]}}
    >>> sorted(k for k in service_env_vars([kube, web], "shop") if k.endswith("_SERVICE_HOST"))
    ['KUBERNETES_SERVICE_HOST', 'WEB_SERVICE_HOST']
    >>> sorted(k for k in service_env_vars([kube, web], "shop", enable_service_links=False) if k.endswith("_HOST"))
    ['KUBERNETES_SERVICE_HOST']
    """
    chosen: dict[str, Mapping[str, Any]] = {}
    for svc in services:
        if not is_service_ip_set(svc):
            continue
        md = svc.get("metadata") or {}
        name, ns = md.get("name", ""), md.get("namespace") or "default"
        if ns == MASTER_SERVICE_NAMESPACE and name in MASTER_SERVICES:
            chosen.setdefault(name, svc)
        elif ns == namespace and enable_service_links:
            chosen[name] = svc
    return dict(from_services(chosen[k] for k in sorted(chosen)))
