"""Cluster DNS: the add-on (CoreDNS and its ``kubernetes`` plugin) that answers pods' queries for Services and pods.

Not part of kube-proxy: CoreDNS runs as a Deployment in ``kube-system`` and watches Services and EndpointSlices
itself. The pod's side, the ``resolv.conf`` the kubelet writes (servers, search path, ``ndots``), lives in
:mod:`kubenotes.kubelet.dns`; :class:`~kubenotes.dns.coredns.ClusterDNS` reads it to expand a short name the way the
pod's resolver does.

References
----------
coredns/coredns@v1.12.1 plugin/kubernetes/
https://github.com/kubernetes/dns/blob/master/docs/specification.md
"""

from kubenotes.dns.coredns import ClusterDNS, DNSAnswer, DNSRecord

__all__ = ["ClusterDNS", "DNSAnswer", "DNSRecord"]
