"""``kubenotes calico rules``: the iptables-restore (or nft) text Felix programs for NetworkPolicy on a node.

``python -m kubenotes calico rules MANIFEST... [--node NODE] [--dataplane iptables|nftables]
[-o iptables|ipset|nft|summary] [--calico-mode MODE] [--check]``

The manifests go through the API server's request path first (defaulting and
validation, as ``validate`` loads them), so a NetworkPolicy v1.34 refuses (a
bad CIDR, ``endPort`` below ``port``, an unknown protocol) is one line naming
the file and field, exit status 2, and no rule is printed. Pods get their
address from Calico's IPAM when the input has Nodes and the pods a
``spec.nodeName`` (:func:`kubenotes.cni.calico.iptables.cluster_felix_rules`),
else from ``status.podIP``; a pod with neither has no workload endpoint yet and
gets no chains.

Output: ``iptables`` (default) the filter table as ``iptables-restore`` input
(:meth:`kubenotes.cni.calico.iptables.FelixRules.iptables_restore`); ``ipset``
the IP sets as ``ipset restore`` input; ``summary`` one JSON object with the
counts. ``--check`` also feeds the text to the real ``iptables-restore
--noflush --test`` (IP sets created in a throwaway network namespace) and
exits 1, with its message on stderr, when it refuses the text.

``--dataplane nftables`` is Felix with ``nftablesMode: Enabled``
(FelixConfiguration; ``FELIX_NFTABLESMODE=Enabled``): the same rules as the
``ip calico`` table, printed as ``nft -f`` input
(:meth:`kubenotes.cni.calico.nftables.NftRules.nft_transaction`; ``-o nft``,
the default there; the IP sets are nft sets inside it, so ``-o ipset`` and
``-o iptables`` are refused with one line); ``--check`` then runs the real
``nft -c -f -`` in a throwaway network namespace.

References
----------
projectcalico/calico@v3.30.0 felix/rules (what the text mirrors; see :mod:`kubenotes.cni.calico.iptables`)
projectcalico/calico@v3.30.0 felix/nftables (the nft form; see :mod:`kubenotes.cni.calico.nftables`),
felix/config/config_params.go (NFTablesMode)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kubenotes.cni.calico.dataplane import DEFAULT_MODE, MODES, CalicoError
from kubenotes.cni.calico.iptables import check_iptables_restore, cluster_felix_rules

__all__ = ["register", "run_rules"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``calico`` parser and its ``rules`` subcommand (called by :func:`kubenotes.cli.build_parser`)."""
    p = subparsers.add_parser("calico", help="print what Calico's Felix programs for NetworkPolicy (iptables text)",
                              description="Calico's node agent as text: the rules Felix writes.")
    sub = p.add_subparsers(dest="calico_command", metavar="WHAT", required=True)
    r = sub.add_parser("rules", help="the filter table Felix programs for NetworkPolicy, as iptables-restore input",
                       description="Print Felix's policy chains (cali-FORWARD, dispatch, cali-tw-/cali-fw-, cali-pi-/"
                                   "cali-po-, profiles) for the pods of the manifests, and the IP sets they use.")
    r.add_argument("manifests", nargs="+", metavar="MANIFEST", help="YAML/JSON file, directory, or - for stdin")
    r.add_argument("--node", default=None, metavar="NODE",
                   help="render the workload endpoints of this node only (default: every pod)")
    r.add_argument("--dataplane", choices=("iptables", "nftables"), default="iptables",
                   help="Felix's dataplane: iptables (default) or nftables (nftablesMode: Enabled)")
    r.add_argument("-o", "--output", choices=("iptables", "ipset", "nft", "summary"), default=None,
                   help="iptables-restore text (the iptables default), ipset restore text, nft -f text (the "
                        "nftables default), or a JSON summary")
    r.add_argument("--calico-mode", choices=MODES, default=DEFAULT_MODE,
                   help=f"IPPool encapsulation used to address pods from the Nodes (default {DEFAULT_MODE})")
    r.add_argument("--check", action="store_true",
                   help="also run the real iptables-restore --noflush --test (nftables: nft -c -f) on the text "
                        "(exit 1 if refused)")
    r.set_defaults(func=run_rules)
    return p


def _load(paths: list[str]) -> list[dict]:
    from kubenotes.api.manifests import load_manifests
    from kubenotes.apiserver.load import load_through_api_server

    m = load_through_api_server(load_manifests(*paths, defaults=False))
    return [o.obj if isinstance(o.obj, dict) else o.obj.to_dict() for o in m]


def run_rules(args: argparse.Namespace) -> int:
    """Load, render, print; return the exit status.

    Raises
    ------
    ManifestError, CalicoError
        Bad input (the CLI prints the one line, exit status 2).
    """
    objects = _load(args.manifests)
    if args.node is not None and not any(o.get("kind") == "Node" and (o.get("metadata") or {}).get("name") == args.node
                                         for o in objects):
        raise CalicoError(f"--node {args.node}: no Node {args.node} in the input")
    if args.dataplane == "nftables":
        return _run_nft(args, objects)
    if args.output == "nft":
        raise CalicoError("-o nft: the iptables dataplane writes no nft text (use --dataplane nftables)")
    fr = cluster_felix_rules(objects, args.node, mode=args.calico_mode)
    if args.output == "ipset":
        sys.stdout.write(fr.ipset_restore())
    elif args.output == "summary":
        print(json.dumps({"chains": len(fr.chains), "rules": fr.rule_count, "ipsets": len(fr.ipsets),
                          "ipsetMembers": sum(len(m) for _, m in fr.ipsets.values()),
                          "policyChains": sum(c.name.startswith(("cali-pi-", "cali-po-")) for c in fr.chains),
                          "endpointChains": sum(c.name.startswith(("cali-tw-", "cali-fw-")) for c in fr.chains)},
                         indent=2))
    else:
        sys.stdout.write(fr.iptables_restore())
    if args.check:
        r = check_iptables_restore(fr)
        if r.returncode != 0:
            print(f"iptables-restore --test refused the rules: {r.stderr.strip()}", file=sys.stderr)
            return 1
    return 0


def _run_nft(args: argparse.Namespace, objects: list[dict]) -> int:
    """``--dataplane nftables``: the ``ip calico`` table as ``nft -f`` text, a summary, ``nft -c``."""
    from kubenotes.cni.calico.nftables import check_nft, cluster_felix_nft_rules

    if args.output in ("iptables", "ipset"):
        raise CalicoError(f"-o {args.output}: the nftables dataplane writes one nft table (use -o nft or summary)")
    nr = cluster_felix_nft_rules(objects, args.node, mode=args.calico_mode)
    if args.output == "summary":
        print(json.dumps({"chains": len(nr.chains) + 1, "rules": nr.rule_count, "sets": len(nr.sets),
                          "setMembers": sum(len(m) for _, _, m in nr.sets.values()),
                          "maps": len(nr.maps), "mapElements": sum(len(m) for m in nr.maps.values()),
                          "policyChains": sum(n.startswith(("filter-cali-pi-", "filter-cali-po-")) for n in nr.chains),
                          "endpointChains": sum(n.startswith(("filter-cali-tw-", "filter-cali-fw-"))
                                                for n in nr.chains)}, indent=2))
    else:
        sys.stdout.write(nr.nft_transaction())
    if args.check:
        r = check_nft(nr)
        if r.returncode != 0:
            print(f"nft -c refused the rules: {r.stderr.strip()}", file=sys.stderr)
            return 1
    return 0
