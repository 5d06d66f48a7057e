"""The pod's DNS configuration: the resolv.conf the kubelet asks the runtime to write.

The kubelet decides each pod's DNS servers, search path and options from its
``dnsPolicy`` (:func:`pod_dns_config`, upstream ``GetPodDNS``) and hands
them to the runtime in the CRI ``PodSandboxConfig.dns_config``; the runtime
writes them as the sandbox's ``/etc/resolv.conf`` (:func:`resolv_conf`).
With ``ClusterFirst`` (the default) that points at the cluster DNS Service
(``10.96.0.10``) with the search path ``<ns>.svc.cluster.local
svc.cluster.local cluster.local`` and ``ndots:5``; :func:`search_names`
shows the names a resolver then asks for.

Mirrors ``pkg/kubelet/network/dns``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/network/dns/dns.go (GetPodDNS, generateSearchesForDNSClusterFirst)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto (DNSConfig)
https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

__all__ = [
    "DEFAULT_CLUSTER_DOMAIN",
    "DEFAULT_CLUSTER_DNS",
    "DEFAULT_DNS_OPTIONS",
    "MISSING_CLUSTER_DNS_MESSAGE",
    "DNSConfig",
    "cluster_first_searches",
    "pod_dns_config",
    "resolv_conf",
    "search_names",
]

#: The kubelet's ``clusterDomain`` as kubeadm sets it.
DEFAULT_CLUSTER_DOMAIN = "cluster.local"
#: The kubelet's ``clusterDNS`` as kubeadm sets it: the tenth address of the default service CIDR 10.96.0.0/12.
DEFAULT_CLUSTER_DNS = ("10.96.0.10",)
#: ``defaultDNSOptions`` of pkg/kubelet/network/dns.
DEFAULT_DNS_OPTIONS = ("ndots:5",)
#: The Warning event (reason ``MissingClusterDNS``) when the kubelet has no clusterDNS; %s are the two policies.
MISSING_CLUSTER_DNS_MESSAGE = ("kubelet does not have ClusterDNS IP configured and cannot create Pod using %q policy. "
                               "Falling back to %q policy.")


@dataclass(frozen=True)
class DNSConfig:
    """The CRI ``DNSConfig`` the kubelet hands the runtime, which writes it as ``/etc/resolv.conf``.

    Attributes
    ----------
    servers : tuple of str
    searches : tuple of str
    options : tuple of str
        ``ndots:5`` style.
    """

    servers: tuple[str, ...] = ()
    searches: tuple[str, ...] = ()
    options: tuple[str, ...] = ()

    @property
    def ndots(self) -> int:
        """The ``ndots`` option (the resolver's default 1 when absent)."""
        for o in self.options:
            if o.startswith("ndots:"):
                return int(o.split(":", 1)[1])
        return 1


def _omit_duplicates(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def cluster_first_searches(namespace: str, cluster_domain: str = DEFAULT_CLUSTER_DOMAIN,
                           host_searches: Sequence[str] = ()) -> tuple[str, ...]:
    """``generateSearchesForDNSClusterFirst``: ``<ns>.svc.<domain> svc.<domain> <domain>`` then the host's.

    Examples
    --------
    >>> cluster_first_searches("shop", host_searches=["corp.example", "cluster.local"])
    ('shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example')
    """
    if not cluster_domain:
        return tuple(host_searches)
    return _omit_duplicates([f"{namespace}.svc.{cluster_domain}", f"svc.{cluster_domain}", cluster_domain,
                             *host_searches])


def _merge_dns_options(existing: Sequence[str], extra: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    opts: dict[str, str] = {}
    for o in existing:
        k, _, v = o.partition(":")
        opts[k] = v
    for o in extra:
        opts[o["name"]] = str(o.get("value") or "")
    return tuple(f"{k}:{v}" if v else k for k, v in opts.items())


def pod_dns_config(pod: Mapping[str, Any], *, cluster_dns: Sequence[str] = DEFAULT_CLUSTER_DNS,
                   cluster_domain: str = DEFAULT_CLUSTER_DOMAIN, host_dns: DNSConfig | None = None) -> DNSConfig:
    """``GetPodDNS``: the pod's DNS servers, search path and options by ``dnsPolicy``.

    ``ClusterFirst`` (the default; ``Default`` for a hostNetwork pod) and
    ``ClusterFirstWithHostNet`` use the cluster DNS servers, the cluster
    search path then the host's, and ``ndots:5``; ``Default`` uses the node's
    resolv.conf (``host_dns``); ``None`` starts empty. ``spec.dnsConfig`` is
    then appended (duplicates dropped, options merged by name).

    Parameters
    ----------
    pod : dict
    cluster_dns : sequence of str
        The kubelet's ``clusterDNS``; empty makes ClusterFirst fall back to Default.
    cluster_domain : str
    host_dns : DNSConfig, optional
        The node's ``/etc/resolv.conf`` (default: empty).

    Returns
    -------
    DNSConfig
        ``servers``, ``searches`` and ``options`` (``name[:value]``) as tuples.

    Raises
    ------
    AttributeError
        When ``pod`` or ``spec.dnsConfig`` is not a mapping; a ``dnsConfig``
        option without ``name`` gives ``KeyError``.

    See Also
    --------
    resolv_conf : the file this becomes.
    kubenotes.dns.coredns.ClusterDNS : what the cluster DNS server answers.

    Notes
    -----
    Upstream also trims the search path to the resolver's limits (32
    domains, 2048 characters) and records an event when it does; no limit is
    applied here.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/network/dns/dns.go (GetPodDNS, appendDNSConfig)

    Examples
    --------
    >>> pod_dns_config({"metadata": {"namespace": "shop"}, "spec": {}})
    DNSConfig(servers=('10.96.0.10',), searches=('shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local'), options=('ndots:5',))
    >>> pod_dns_config({"metadata": {"namespace": "shop"}, "spec": {"dnsPolicy": "None",
    ...     "dnsConfig": {"nameservers": ["1.1.1.1"], "options": [{"name": "ndots", "value": "2"}]}}})
    DNSConfig(servers=('1.1.1.1',), searches=(), options=('ndots:2',))
    """
    spec = pod.get("spec") or {}
    host = host_dns or DNSConfig()
    policy = spec.get("dnsPolicy") or "ClusterFirst"
    if policy == "None":
        cfg = DNSConfig()
    elif policy == "Default" or (policy == "ClusterFirst" and spec.get("hostNetwork")) or not cluster_dns:
        cfg = host
    else:
        ns = (pod.get("metadata") or {}).get("namespace") or "default"
        cfg = DNSConfig(tuple(cluster_dns), cluster_first_searches(ns, cluster_domain, host.searches),
                        DEFAULT_DNS_OPTIONS)
    extra = spec.get("dnsConfig")
    if extra:
        cfg = DNSConfig(_omit_duplicates([*cfg.servers, *(extra.get("nameservers") or [])]),
                        _omit_duplicates([*cfg.searches, *(extra.get("searches") or [])]),
                        _merge_dns_options(cfg.options, extra.get("options") or []))
    return cfg


def resolv_conf(config: DNSConfig) -> str:
    """The ``/etc/resolv.conf`` text the runtime writes (containerd's order: search, nameserver, options).

    Parameters
    ----------
    config : DNSConfig
        The pod's DNS config (:func:`pod_dns_config`).

    Returns
    -------
    str
        One line per non-empty part, each ending in a newline; ``""`` for an
        empty config.

    Raises
    ------
    AttributeError
        When ``config`` has no ``searches``/``servers``/``options``.

    See Also
    --------
    pod_dns_config

    Notes
    -----
    containerd writes every server on its own ``nameserver`` line, as here;
    for a sandbox without a DNS config it copies the node's
    ``/etc/resolv.conf`` instead, where an empty config gives ``""`` here.

    References
    ----------
    containerd/containerd@v2.1.0 internal/cri/server/podsandbox/sandbox_run_linux.go (parseDNSOptions)

    Examples
    --------
    >>> print(resolv_conf(pod_dns_config({"metadata": {"namespace": "default"}, "spec": {}})), end="")
    search default.svc.cluster.local svc.cluster.local cluster.local
    nameserver 10.96.0.10
    options ndots:5
    >>> resolv_conf(DNSConfig())
    ''
    """
    lines = []
    if config.searches:
        lines.append("search " + " ".join(config.searches))
    lines += [f"nameserver {s}" for s in config.servers]
    if config.options:
        lines.append("options " + " ".join(config.options))
    return "".join(f"{ln}\n" for ln in lines)


def search_names(name: str, config: DNSConfig) -> list[str]:
    """The names a glibc resolver asks for, in order, for ``name`` (``res_nsearch``).

    A name ending in a dot is asked as is, only. A name with at least
    ``ndots`` dots is asked as is first, then with each search domain;
    otherwise each search domain first, then as is.

    Examples
    --------
    >>> cfg = pod_dns_config({"metadata": {"namespace": "shop"}, "spec": {}})
    >>> search_names("web", cfg)
    ['web.shop.svc.cluster.local.', 'web.svc.cluster.local.', 'web.cluster.local.', 'web.']
    >>> search_names("web.shop.svc.cluster.local.", cfg)
    ['web.shop.svc.cluster.local.']
    """
    if name.endswith("."):
        return [name]
    dots = name.count(".")
    searched = [f"{name}.{d.rstrip('.')}." for d in config.searches]
    return [f"{name}.", *searched] if dots >= config.ndots else [*searched, f"{name}."]
