"""Flannel as models: flanneld's subnet managers and backends, and the ``flannel`` CNI plugin.

Modules
-------
subnet
    ``net-conf.json``, leases, the Kubernetes subnet manager (Node ``spec.podCIDR`` and the
    ``flannel.alpha.coreos.com/*`` annotations), the etcd subnet manager (``/coreos.com/network/config``,
    ``/coreos.com/network/subnets/<ip>-<len>`` with a 24 h TTL), ``/run/flannel/subnet.env``.
backend
    vxlan (``flannel.1``), host-gw, wireguard (``flannel-wg``) and udp (``flannel0``): the device, the
    routes, ARP and FDB entries flanneld programs on each node's :class:`kubenotes.cni.netns.Host`.
plugin
    The ``flannel`` CNI plugin: ``subnet.env`` -> a ``bridge`` + ``host-local`` delegate config.

Flannel enforces no NetworkPolicy (its README: "the ``flanneld`` binary does not natively
enforce Network Policies"; pair it with a policy controller such as Calico or
kube-network-policies). A packet's walk over a Flannel network is the generic one,
:func:`kubenotes.cni.walk.walk_packet`, over the Host state these modules write.

References
----------
flannel-io/flannel@v0.28.9; flannel-io/cni-plugin@v1.9.1-flannel1
"""

from kubenotes.cni.flannel.subnet import (BACKEND_TYPES, FlannelError, KubeSubnetManager, EtcdSubnetManager, Lease,
                                          NetConfig, parse_net_config)

#: What the walk reports for policy on a Flannel network.
NO_POLICY_NOTE = ("Flannel enforces no NetworkPolicy (flanneld does not natively enforce Network Policies; "
                  "pair it with a policy controller such as Calico or kube-network-policies)")

__all__ = ["BACKEND_TYPES", "FlannelError", "KubeSubnetManager", "EtcdSubnetManager", "Lease", "NetConfig",
           "parse_net_config", "NO_POLICY_NOTE"]
