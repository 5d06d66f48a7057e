"""kube-proxy: how a Service's virtual IP reaches a pod, in each proxy mode.

:mod:`kubenotes.proxy.endpoints` builds one node's :class:`ProxyState` (service
ports and endpoints, upstream ``pkg/proxy``); the renderers print what each
mode programs from it: :mod:`kubenotes.proxy.iptables` (``iptables-save``),
:mod:`kubenotes.proxy.nftables` (``nft list table ip kube-proxy``),
:mod:`kubenotes.proxy.ipvs` (``ipvsadm -Ln``), and the historic
:mod:`kubenotes.proxy.userspace` mode (removed in v1.26).
:mod:`kubenotes.proxy.config` reads, defaults and validates a
KubeProxyConfiguration (``cmd/kube-proxy``'s ``--config``) and turns it into
the settings a proxier runs with; :mod:`kubenotes.proxy.util` holds the small
helpers they share (``ParseIPSloppy``, the local-traffic detectors,
``nodePortAddresses``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/proxy
kubernetes/kubernetes@v1.34.0 cmd/kube-proxy/app
"""

from kubenotes.proxy.endpoints import (
    EndpointInfo,
    ProxyState,
    ServicePortInfo,
    ServicePortName,
    categorize_endpoints,
    load_proxy_objects,
    proxy_state,
)

__all__ = [
    "EndpointInfo",
    "ProxyState",
    "ServicePortInfo",
    "ServicePortName",
    "categorize_endpoints",
    "load_proxy_objects",
    "proxy_state",
]
