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

The rest of a container's environment (``envFrom``, ``env`` with ``valueFrom``
from ConfigMaps, Secrets and the pod's fields) is made by
:func:`make_environment_variables`, which also says when it cannot be made
(a missing ConfigMap, Secret or key: ``CreateContainerConfigError``).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kubenotes.api.service import is_service_ip_set

__all__ = [
    "MASTER_SERVICE_NAMESPACE",
    "MASTER_SERVICES",
    "make_env_variable_name",
    "from_services",
    "service_env_vars",
    "CREATE_CONTAINER_CONFIG_ERROR",
    "ContainerEnvironment",
    "make_environment_variables",
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


#: The Waiting reason of a container whose environment cannot be made (``kuberuntime.ErrCreateContainerConfig``).
CREATE_CONTAINER_CONFIG_ERROR = "CreateContainerConfigError"


@dataclass(frozen=True)
class ContainerEnvironment:
    """What ``makeEnvironmentVariables`` returned: the variables, or why they could not be made.

    Attributes
    ----------
    variables : list of tuple of (str, str)
        ``(name, value)`` in the order the container's ``ContainerConfig.envs`` lists them.
    error : str
        Upstream's error text (``configmap "x" not found``, ``couldn't find key k in
        ConfigMap default/x``...); "" when the environment was made.
    unknown : frozenset of str
        Names whose values the model does not know (``resourceFieldRef``,
        ``fileKeyRef``, a ``fieldRef`` path it does not read): they are ""
        in ``variables``, and the modelled container output stops at them.
    """

    variables: list[tuple[str, str]] = field(default_factory=list)
    error: str = ""
    unknown: frozenset = frozenset()

    @property
    def ok(self) -> bool:
        """True when the environment was made (no error)."""
        return not self.error


def _field_ref(pod: Mapping[str, Any], path: str, pod_ip: str) -> str | None:
    """``podFieldSelectorRuntimeValue`` for the paths a container's env may name (None: not read here)."""
    md, spec, st = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    simple = {"metadata.name": md.get("name", ""), "metadata.namespace": md.get("namespace", ""),
              "metadata.uid": md.get("uid", ""), "spec.nodeName": spec.get("nodeName", ""),
              "spec.serviceAccountName": spec.get("serviceAccountName", ""),
              "status.hostIP": st.get("hostIP", ""), "status.podIP": pod_ip or st.get("podIP", ""),
              "status.hostIPs": ",".join(i.get("ip", "") for i in st.get("hostIPs") or []),
              "status.podIPs": pod_ip or ",".join(i.get("ip", "") for i in st.get("podIPs") or [])}
    if path in simple:
        return str(simple[path])
    for prefix, field_name in (("metadata.labels", "labels"), ("metadata.annotations", "annotations")):
        if path.startswith(prefix + "['") and path.endswith("']"):
            return str((md.get(field_name) or {}).get(path[len(prefix) + 2:-2], ""))
    return None


def _not_found(kind: str, name: str) -> str:
    """The watch-based object managers' NotFound (``apierrors.NewNotFound``) text."""
    return f'{kind} "{name}" not found'


def make_environment_variables(
    pod: Mapping[str, Any],
    container: Mapping[str, Any],
    service_env: Mapping[str, str] | None,
    get_config_map: Any,
    get_secret: Any,
    pod_ip: str = "",
) -> ContainerEnvironment:
    """The container's environment as the kubelet makes it (``makeEnvironmentVariables``).

    ``envFrom`` first (ConfigMap or Secret keys, with ``prefix``), then
    ``env`` in order (``$(VAR)`` expanded over what is defined so far and the
    Service variables; ``valueFrom`` resolved), then the Service variables the
    container does not define. A ConfigMap or Secret that does not exist, or a
    key it does not have, fails the whole environment with upstream's words
    unless the reference is ``optional: true`` (then it is skipped): the
    kubelet then does not create the container and it waits with
    :data:`CREATE_CONTAINER_CONFIG_ERROR`.

    Parameters
    ----------
    pod : dict
        The pod (namespace, metadata and status for ``fieldRef``).
    container : dict
        The container spec.
    service_env : dict, optional
        :func:`service_env_vars` of the pod.
    get_config_map, get_secret : callable
        ``(namespace, name) -> object or None`` (None: it does not exist).
    pod_ip : str
        The sandbox's IP, for ``status.podIP``.

    Returns
    -------
    ContainerEnvironment

    Raises
    ------
    binascii.Error
        When a Secret's ``data`` value is not base64 (the API server refuses such Secrets).

    Notes
    -----
    ``resourceFieldRef`` and ``fileKeyRef`` (EnvFiles, alpha and off) give "";
    upstream lists the variables from a Go map (no fixed order), here in the
    order they were defined. Names of ``envFrom`` keys are not checked
    (RelaxedEnvironmentVariableValidation accepts any printable name but ``=``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (makeEnvironmentVariables, podFieldSelectorRuntimeValue)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/util/manager/watch_based_manager.go (NotFound)
    https://kubernetes.io/docs/tasks/configure-pod-container/configure-pod-configmap/

    Examples
    --------
    >>> pod = {"metadata": {"name": "dapi-test-pod", "namespace": "default"}, "spec": {}}
    >>> c = {"name": "test", "env": [{"name": "SPECIAL_LEVEL_KEY", "valueFrom": {
    ...     "configMapKeyRef": {"name": "special-config", "key": "special.how"}}}]}
    >>> none = lambda ns, name: None
    >>> make_environment_variables(pod, c, {}, none, none).error
    'configmap "special-config" not found'
    >>> cm = lambda ns, name: {"data": {"special.type": "charm"}}
    >>> make_environment_variables(pod, c, {}, cm, none).error
    "couldn't find key special.how in ConfigMap default/special-config"
    >>> cm = lambda ns, name: {"data": {"special.how": "very"}}
    >>> make_environment_variables(pod, c, {}, cm, none).variables
    [('SPECIAL_LEVEL_KEY', 'very')]
    """
    from kubenotes.kubelet.logs import expand_kubernetes_vars

    namespace = (pod.get("metadata") or {}).get("namespace") or "default"
    service_env = dict(service_env or {})
    config_maps: dict[str, Mapping[str, Any] | None] = {}
    secrets: dict[str, Mapping[str, Any] | None] = {}

    def config_map(name: str) -> Mapping[str, Any] | None:
        if name not in config_maps:
            config_maps[name] = get_config_map(namespace, name)
        return config_maps[name]

    def secret(name: str) -> Mapping[str, Any] | None:
        if name not in secrets:
            secrets[name] = get_secret(namespace, name)
        return secrets[name]

    def secret_data(obj: Mapping[str, Any]) -> dict[str, str]:
        data = {k: base64.b64decode(v).decode("utf-8", "replace") for k, v in (obj.get("data") or {}).items()}
        data.update(obj.get("stringData") or {})  # an object not yet through the API server's conversion
        return data

    env: dict[str, str] = {}
    unknown: set[str] = set()
    for source in container.get("envFrom") or ():
        prefix = source.get("prefix") or ""
        ref = source.get("configMapRef") or source.get("secretRef")
        if ref is None:
            continue
        is_cm = source.get("configMapRef") is not None
        obj = config_map(ref.get("name", "")) if is_cm else secret(ref.get("name", ""))
        if obj is None:
            if ref.get("optional"):
                continue
            return ContainerEnvironment(error=_not_found("configmap" if is_cm else "secret", ref.get("name", "")))
        data = dict(obj.get("data") or {}) if is_cm else secret_data(obj)
        for k, v in data.items():
            env[prefix + k] = str(v)

    for e in container.get("env") or ():
        name = e.get("name")
        if not name:
            continue
        value = e.get("value")
        source = e.get("valueFrom")
        unknown.discard(name)
        if value not in (None, ""):
            env[name] = expand_kubernetes_vars(str(value), {**service_env, **env})
            continue
        if not source:
            env[name] = ""
            continue
        if source.get("fieldRef") is not None:
            known = _field_ref(pod, (source["fieldRef"] or {}).get("fieldPath", ""), pod_ip)
            env[name] = known or ""
            if known is None:
                unknown.add(name)
        elif source.get("configMapKeyRef") is not None or source.get("secretKeyRef") is not None:
            is_cm = source.get("configMapKeyRef") is not None
            ref = source["configMapKeyRef"] if is_cm else source["secretKeyRef"]
            obj_name, key, optional = ref.get("name", ""), ref.get("key", ""), bool(ref.get("optional"))
            obj = config_map(obj_name) if is_cm else secret(obj_name)
            if obj is None:
                if optional:
                    continue
                return ContainerEnvironment(error=_not_found("configmap" if is_cm else "secret", obj_name))
            data = dict(obj.get("data") or {}) if is_cm else secret_data(obj)
            if key not in data:
                if optional:
                    continue
                kind = "ConfigMap" if is_cm else "Secret"
                return ContainerEnvironment(error=f"couldn't find key {key} in {kind} {namespace}/{obj_name}")
            env[name] = str(data[key])
        else:
            env[name] = ""  # resourceFieldRef, fileKeyRef: not modelled
            unknown.add(name)
    variables = list(env.items())
    variables += [(k, str(service_env[k])) for k in sorted(service_env) if k not in env]
    return ContainerEnvironment(variables, unknown=frozenset(unknown))
