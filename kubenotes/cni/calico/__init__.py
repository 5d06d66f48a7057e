"""Calico as models: IPAM blocks, each node's dataplane per mode, BGP sessions, a packet's walk.

Modules
-------
ipam
    IPPools, /26 blocks affine to nodes, pod and tunnel addresses (``libcalico-go/lib/ipam``).
dataplane
    Interfaces (``cali`` veths, ``vxlan.calico``, ``tunl0``) and routes Felix and BIRD program, per mode.
bgp
    Full mesh vs route reflectors, and a node failure withdrawing its routes.
plugin
    The ``calico`` and ``calico-ipam`` CNI plugins; :func:`~kubenotes.cni.calico.plugin.calico_plugins` binds
    them to one cluster's datastore (what a node's ``/opt/cni/bin`` holds once calico-node installed them).
policy
    Kubernetes NetworkPolicy as Felix enforces it: ``cali-pi-``/``cali-po-`` policy chains, ``cali-tw-``/``cali-fw-``
    endpoint chains, the policy and rule that allowed a flow or the default deny.
rules
    Calico's rule model of a NetworkPolicy (one rule per protocol and peer, ``cali40s:`` selector IP sets, CIDRs,
    ports, named-port sets): what the verdicts and the iptables text both read.
iptables
    Felix's filter table for a node as ``iptables-restore`` text and its IP sets as ``ipset restore`` text
    (:func:`~kubenotes.cni.calico.iptables.cluster_felix_rules`); ``kubenotes calico rules`` prints them (``cli``).
packet
    A packet's hop-by-hop walk over the network and, for a Service, the DNAT
    kube-proxy programmed (given by the caller: :func:`kubenotes.sim.network.packet_walk`).

References
----------
projectcalico/calico@v3.30.0 (libcalico-go/lib/ipam, felix/dataplane/linux, confd templates, cni-plugin)
https://docs.tigera.io/calico/latest/networking/
"""

from kubenotes.cni.calico.dataplane import MODES, CalicoNetwork, build_network, pod_mtu
from kubenotes.cni.calico.ipam import CalicoIPAM, IPPool
from kubenotes.cni.calico.packet import walk_packet
from kubenotes.cni.calico import plugin as _plugin  # noqa: F401  registers "calico" and "calico-ipam"

__all__ = ["MODES", "CalicoNetwork", "CalicoIPAM", "IPPool", "build_network", "pod_mtu", "walk_packet"]
