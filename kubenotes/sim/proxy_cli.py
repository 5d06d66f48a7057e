"""``kubenotes kube-proxy``: print what kube-proxy v1.34 programs on one node.

``python -m kubenotes kube-proxy MANIFEST... --node NODE [--mode iptables|ipvs|nftables] [--cluster-cidr CIDR]``

* MANIFEST is a YAML/JSON file (several documents and ``kind: List`` dumps
  allowed), a directory, or ``-`` for stdin: Nodes, Services, EndpointSlices
  and Pods. kube-proxy reads only the Nodes, Services and EndpointSlices;
  before it does, :func:`kubenotes.sim.network.kube_proxy_objects` gives a
  Service with no EndpointSlice in the input the slices the EndpointSlice
  controller would derive from the Pods it selects (and a Service without a
  cluster IP the one the API server would allocate), so a plain
  ``kubectl get nodes,svc,pods -A -o yaml`` dump works.
* ``--mode iptables`` (the default, as in kube-proxy) prints the ``filter``
  and ``nat`` tables in ``iptables-save`` format
  (:func:`kubenotes.proxy.iptables.iptables_save`); ``--mode nftables`` the
  ``nft list table ip kube-proxy`` text; ``--mode ipvs`` the virtual and real
  servers as ``ipvsadm -Ln`` lists them.
* ``--cluster-cidr`` is kube-proxy's ``clusterCIDR``: traffic to a cluster IP
  from outside it is masqueraded (without it, none is, as with upstream's
  no-op local traffic detector).

The command lives in ``sim/`` rather than ``proxy/`` because it runs, before
kube-proxy reads the objects, the API server's and the EndpointSlice
controller's code (as ``cmd/kube-proxy`` sits apart from ``pkg/proxy``
upstream); :mod:`kubenotes.proxy` itself imports neither.

Exit status: 0, or 2 for bad input (one line on stderr naming the file,
document, object and field, or the unknown node).

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-proxy/app/server.go (--proxy-mode, --cluster-cidr, --masquerade-all)
kubernetes/kubernetes@v1.34.0 pkg/proxy/apis/config/validation/validation.go (ClusterCIDR messages)
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from typing import Any, Sequence

from kubenotes.errors import KubenotesError, ManifestError
from kubenotes.proxy.endpoints import load_proxy_objects, proxy_state
from kubenotes.proxy.iptables import iptables_save
from kubenotes.proxy.ipvs import ipvsadm_ln
from kubenotes.proxy.nftables import nft_list_table
from kubenotes.sim.network import kube_proxy_objects

__all__ = ["register", "run_kube_proxy", "validate_cluster_cidr", "MODES", "PROG"]

PROG = "kubenotes kube-proxy"
#: ``--proxy-mode`` values kubenotes renders (kube-proxy's default on Linux is iptables).
MODES = ("iptables", "ipvs", "nftables")

_CIDR_EXAMPLE = "(e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)"


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``kube-proxy`` parser (called by :func:`kubenotes.cli.build_parser`).

    Parameters
    ----------
    subparsers : argparse._SubParsersAction

    Returns
    -------
    argparse.ArgumentParser
        The ``kube-proxy`` parser, with ``func`` set.
    """
    p = subparsers.add_parser(
        "kube-proxy", help="print the rules kube-proxy programs on a node (iptables, ipvs or nftables)",
        description="Print what kube-proxy v1.34 programs on NODE for the Services, EndpointSlices and Pods "
                    "of the manifests: iptables-save text, ipvsadm -Ln or nft list table ip kube-proxy.")
    p.add_argument("manifests", nargs="+", metavar="MANIFEST", help="YAML/JSON file, directory, or - for stdin")
    p.add_argument("--node", required=True, help="the node kube-proxy runs on (must be in the manifests)")
    p.add_argument("--mode", choices=MODES, default="iptables", help="proxy mode (default iptables)")
    p.add_argument("--cluster-cidr", metavar="CIDR", default=None,
                   help="kube-proxy's clusterCIDR (pod network; traffic from outside it is masqueraded)")
    p.add_argument("--masquerade-all", action="store_true",
                   help="iptables: SNAT all traffic sent via Service cluster IPs")
    p.add_argument("--full", action="store_true",
                   help="iptables: whole tables as iptables-save lists them (built-in chains, jump rules, "
                        "KUBE-PROXY-CANARY)")
    p.set_defaults(func=_cmd)
    return p


def validate_cluster_cidr(value: str) -> None:
    """kube-proxy's ``ClusterCIDR`` validation: one CIDR, or an IPv4/IPv6 pair.

    Raises
    ------
    KubenotesError
        With upstream's field error, e.g. ``KubeProxyConfiguration.ClusterCIDR: Invalid value:
        "10.0.0.0": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)``.

    Examples
    --------
    >>> validate_cluster_cidr("10.244.0.0/16,fd00:10::/64")
    >>> validate_cluster_cidr("192.168.59.0")
    Traceback (most recent call last):
    ...
    kubenotes.errors.KubenotesError: KubeProxyConfiguration.ClusterCIDR: Invalid value: "192.168.59.0": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)
    """
    def invalid(detail: str) -> KubenotesError:
        return KubenotesError(f'KubeProxyConfiguration.ClusterCIDR: Invalid value: "{value}": {detail}')

    cidrs = value.split(",")
    if len(cidrs) > 2:
        raise invalid("only one CIDR allowed or a valid DualStack CIDR (e.g. 10.100.0.0/16,fde4:8dba:82e1::/48)")
    nets = []
    for c in cidrs:
        try:
            if "/" not in c:
                raise ValueError(c)
            nets.append(ipaddress.ip_network(c, strict=False))
        except ValueError:
            if len(cidrs) == 2:
                raise invalid("must be a valid DualStack CIDR (e.g. 10.100.0.0/16,fde4:8dba:82e1::/48)") from None
            raise invalid(f"must be a valid CIDR block {_CIDR_EXAMPLE}") from None
    if len(nets) == 2 and nets[0].version == nets[1].version:
        raise invalid("must be a valid DualStack CIDR (e.g. 10.100.0.0/16,fde4:8dba:82e1::/48)")


def run_kube_proxy(manifests: Sequence[str], node: str, *, mode: str = "iptables", cluster_cidr: str | None = None,
                   masquerade_all: bool = False, full: bool = False) -> str:
    """Load the manifests and render what kube-proxy in ``mode`` programs on ``node``.

    Parameters
    ----------
    manifests : sequence of str
        Paths (files, directories, ``-``) or YAML text.
    node : str
        The Node kube-proxy runs on.
    mode : {"iptables", "ipvs", "nftables"}
    cluster_cidr : str, optional
        kube-proxy's ``clusterCIDR``.
    masquerade_all, full : bool
        iptables mode only: ``--masquerade-all``; whole tables (see :func:`~kubenotes.proxy.iptables.iptables_save`).

    Returns
    -------
    str
        The text the real tool prints.

    Raises
    ------
    ManifestError
        Bad manifest (one line: file, document, object, field).
    KubenotesError
        Unknown node, invalid ``cluster_cidr``.

    Examples
    --------
    >>> text = run_kube_proxy(['''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... status: {addresses: [{type: InternalIP, address: 192.168.0.2}]}
    ... ---
    ... apiVersion: v1
    ... kind: Service
    ... metadata: {name: web, namespace: default}
    ... spec: {clusterIP: 10.96.0.20, ports: [{name: http, port: 80}]}
    ... '''], "n1")
    >>> [line for line in text.splitlines() if "web" in line]
    ['-A KUBE-SERVICES -m comment --comment "default/web:http has no endpoints" -m tcp -p tcp -d 10.96.0.20 --dport 80 -j REJECT']
    """
    if mode not in MODES:
        raise KubenotesError(f"{PROG}: unknown --mode {mode!r} (one of {', '.join(MODES)})")
    if cluster_cidr:
        validate_cluster_cidr(cluster_cidr)
    objects = kube_proxy_objects(load_proxy_objects(list(manifests)))
    state = proxy_state(objects, node, cluster_cidr=cluster_cidr or None)
    if mode == "iptables":
        return iptables_save(state, masquerade_all=masquerade_all, full=full)
    if mode == "nftables":
        return nft_list_table(state)
    return ipvsadm_ln(state)


def _cmd(args: argparse.Namespace) -> int:
    try:
        text = run_kube_proxy(args.manifests, args.node, mode=args.mode, cluster_cidr=args.cluster_cidr,
                              masquerade_all=args.masquerade_all, full=args.full)
    except KubenotesError as e:
        msg = str(e)
        if not isinstance(e, ManifestError) and not msg.startswith(PROG):
            msg = f"{PROG}: {msg}"
        print(msg, file=sys.stderr)
        return 2
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0
