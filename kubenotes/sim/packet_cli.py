"""``kubenotes packet``: walk a packet between pods (or to a Service) through Calico's dataplane.

``python -m kubenotes packet MANIFEST... --from NS/POD --to NS/POD|NS/SERVICE:PORT
[--calico-mode vxlan|ipip|bgp|vxlan-crosssubnet|ipip-crosssubnet] [--size BYTES] [--until SECONDS] [-o json|table]``

When the manifests hold a ``kind: Scenario`` document (``data/network/calico.yaml``),
the cluster is simulated first, exactly as ``simulate`` runs it, for ``--until``
virtual seconds (default 60), with ``--seed``; the walk then reads the state that
run produced (:func:`kubenotes.sim.network.cluster_packet_walk`): the pod IPs Calico
IPAM gave through the CRI and CNI, every node's routes, the Services and
EndpointSlices the control plane wrote. ``--calico-mode`` and ``--pool-cidr``, when
given, win over the scenario's ``spec.cluster.network``; without any, the run is
networked by Calico in its default mode; a Scenario networked by Flannel keeps
its network (unless ``--calico-mode``/``--pool-cidr`` is given) and is walked over
the nodes' network state (:func:`kubenotes.sim.network.node_packet_walk`), which
reports that Flannel enforces no NetworkPolicy. Without a Scenario, the manifests are
networked on the spot (:func:`kubenotes.sim.network.packet_walk`).

The manifests (files, directories, ``-``, ``kubectl get -o yaml`` dumps) give
the Nodes (their InternalIP, or calico-node's ``projectcalico.org/IPv4Address``
annotation with the prefix), the Pods placed with ``spec.nodeName``, and the
Services and EndpointSlices kube-proxy reads, and the NetworkPolicies (with
the Namespaces their selectors read) Felix enforces. Output (``-o json``, the
default) is exactly ``{"hops": [{"at", "action", "headers", "bytes"}],
"overheadBytes": N, "mtu": N, "allowed": bool, "policy": [...]}`` (Felix's
NetworkPolicy verdict at each end reached, :mod:`kubenotes.cni.calico.policy`);
``-o table`` prints the same as columns.
Exit status 0, or 2 with one line on stderr for bad input. The command lives
in ``sim/`` because it composes two components' state (Calico's network,
kube-proxy's rules) that :mod:`kubenotes.cni` does not compute itself.

References
----------
kubenotes.sim.network.packet_walk (Calico's network and kube-proxy's state on every node, then
kubenotes.cni.calico.packet.walk_packet: the model)
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from kubenotes.cni.calico.dataplane import DEFAULT_LINK_MTU, DEFAULT_MODE, MODES, CalicoError
from kubenotes.cni.calico.ipam import DEFAULT_IPV4_POOL_CIDR
from kubenotes.cni.calico.packet import DEFAULT_PACKET_BYTES, walk_table
from kubenotes.proxy.endpoints import load_proxy_objects
from kubenotes.sim.network import cluster_packet_walk, packet_walk

__all__ = ["register", "run"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``packet`` parser (called by :func:`kubenotes.cli.build_parser`)."""
    p = subparsers.add_parser(
        "packet", help="walk a packet between pods or to a Service through Calico's dataplane",
        description="Print a packet's path hop by hop (interfaces, routes, kube-proxy DNAT, VXLAN/IP-in-IP "
                    "headers pushed and popped) between two pods of the manifests, in a Calico mode.")
    p.add_argument("manifests", nargs="+", metavar="MANIFEST", help="YAML/JSON file, directory, or - for stdin")
    p.add_argument("--from", dest="src", required=True, metavar="NS/POD", help="source pod")
    p.add_argument("--to", dest="dst", required=True, metavar="NS/POD|NS/SERVICE:PORT",
                   help="destination pod (optionally :PORT) or Service port (number or name)")
    p.add_argument("--calico-mode", choices=MODES, default=None,
                   help=f"IPPool encapsulation (default {DEFAULT_MODE}: calico.yaml's ipipMode Always; with a Scenario, "
                        "its spec.cluster.network.mode)")
    p.add_argument("--size", type=int, default=DEFAULT_PACKET_BYTES, metavar="BYTES",
                   help=f"IP packet length the source pod sends (default {DEFAULT_PACKET_BYTES})")
    p.add_argument("--pool-cidr", default=None, metavar="CIDR",
                   help="the IPPool's cidr (default as calico-node picks it: kubeadm's podSubnet, else the range "
                        f"of the Nodes' podCIDRs, else {DEFAULT_IPV4_POOL_CIDR}; with a Scenario, its "
                        "spec.cluster.network.ipPool.cidr)")
    p.add_argument("--link-mtu", type=int, default=None, metavar="BYTES",
                   help=f"MTU of the nodes' eth0 (default {DEFAULT_LINK_MTU}; not with a Scenario)")
    p.add_argument("--until", type=float, default=60.0, metavar="SECONDS",
                   help="with a Scenario among the manifests: virtual seconds to simulate before the walk (default 60)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of the source port and of the Service endpoint choice (default 0)")
    p.add_argument("-o", "--output", choices=("json", "table"), default="json", help="output format (default json)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Load the manifests, walk the packet, print it; return the exit status.

    Raises
    ------
    ManifestError, CalicoError
        Bad input (the CLI prints the one line, exit status 2).
    """
    objects = load_proxy_objects(args.manifests)
    if any(o.get("kind") == "Scenario" for o in objects):
        walk = _walk_run(args)
    else:
        walk = packet_walk(objects, args.src, args.dst, mode=args.calico_mode or DEFAULT_MODE, size_bytes=args.size,
                           seed=args.seed, pool_cidr=args.pool_cidr,
                           link_mtu=DEFAULT_LINK_MTU if args.link_mtu is None else args.link_mtu)
    print(walk_table(walk) if args.output == "table" else json.dumps(walk, indent=2))
    return 0


def _walk_run(args: argparse.Namespace) -> dict:
    """Simulate the manifests and their Scenario as ``simulate`` does, then walk the run's state."""
    from kubenotes.sim.cli import run as simulate

    if args.link_mtu is not None:
        raise CalicoError("--link-mtu: not supported with a Scenario (its nodes' links are 1500 bytes)")
    if args.until < 0:
        raise CalicoError(f"--until must be >= 0, got {args.until}")
    override: dict = {"plugin": "calico"}
    if args.calico_mode is not None:
        override["mode"] = args.calico_mode
    if args.pool_cidr is not None:
        override["ipPool"] = {"cidr": args.pool_cidr}
    scenario = next((o for o in load_proxy_objects(args.manifests) if o.get("kind") == "Scenario"), {})
    plugin = (((scenario.get("spec") or {}).get("cluster") or {}).get("network") or {}).get("plugin")
    flannel = plugin == "flannel" and args.calico_mode is None and args.pool_cidr is None
    # a Flannel Scenario keeps its own network, walked over the node-network state (kubenotes.cni.walk)
    cluster = simulate(args.manifests, until=args.until, seed=args.seed, network=None if flannel else override)
    return cluster_packet_walk(cluster, args.src, args.dst, size_bytes=args.size, seed=args.seed)
