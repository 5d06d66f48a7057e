"""Container Network Interface: the spec, the reference plugins and the runtime's CNI layer, as models.

Modules
-------
spec
    The CNI spec (commands, environment, configs, results, errors) and the plugin registry.
netns
    A host and its network namespaces: interfaces, routes, sysctls, NAT rules, qdiscs, files.
ipam
    The ``host-local`` IPAM plugin, allocating as the real binary does.
plugins
    ``loopback``, ``bridge``, ``ptp``, ``portmap``, ``bandwidth``.
exec
    Run a real plugin binary or the model with the same inputs.
manager
    What the container runtime does with ``/etc/cni/net.d`` (containerd's go-cni / libcni).
encap
    The one table of encapsulation overheads (VXLAN 50, IP-in-IP 20, WireGuard 60/80, udp 28, none 0).
walk
    A packet's walk over any plugin's :class:`~kubenotes.cni.netns.Host` state (routes, neighbours, FDB, tunnels).
flannel
    flanneld (subnet managers, backends) and the ``flannel`` CNI plugin; calico: Calico.

References
----------
containernetworking/cni@v1.3.0 SPEC.md; containernetworking/plugins@v1.1.1
"""

from kubenotes.cni.spec import CNIError, CNIEnv, register_plugin, run_plugin

# the built-in models register their plugin types on import
from kubenotes.cni import ipam as _ipam  # noqa: E402,F401
from kubenotes.cni import plugins as _plugins  # noqa: E402,F401

__all__ = ["CNIError", "CNIEnv", "register_plugin", "run_plugin"]
