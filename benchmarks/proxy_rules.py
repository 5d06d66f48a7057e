"""kube-proxy's rules at scale: 10,000 Services with 250 endpoints each, as seen from one node.

Builds one Node, ``--services`` ClusterIP Services (one TCP port each) and, for
each, EndpointSlices of at most 100 endpoints (the controller's
``max-endpoints-per-slice``) holding ``--endpoints`` ready endpoints spread
over 100 other nodes, then times:

* ``proxy_state``: Services and EndpointSlices to kube-proxy's service/endpoint maps;
* ``iptables_save``: the ``filter`` and ``nat`` tables the iptables proxier restores
  (above 1,000 endpoints it is in "large cluster mode": no per-endpoint comments);
* ``nft_list_table``: the ``kube-proxy`` nftables table (v1.34's layout);
* with ``--configured``, both again as a KubeProxyConfiguration other than the
  defaults sets them up (``detectLocalMode: InterfaceNamePrefix``, ``masqueradeAll``,
  ``nodePortAddresses`` CIDRs), to show the configurations cost the same;

and reports wall seconds, output size in bytes and lines, and the peak RSS.
Upstream's own numbers for comparison: kube-proxy's iptables mode is known
to need minutes per full sync at this size (KEP-3866 motivates the
nftables mode with it); this measures only text generation.

Usage: python benchmarks/proxy_rules.py [--services 10000] [--endpoints 250] [--configured]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

NODE = "node-0"
_SLICE_SIZE = 100


def _ip(k: int, first: int) -> str:
    return f"{first}.{(k >> 16) & 255}.{(k >> 8) & 255}.{k & 255}"


def objects(services: int, endpoints: int) -> list[dict]:
    """The Node, Services and EndpointSlices of the benchmark cluster."""
    objs: list[dict] = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": NODE},
                         "spec": {"podCIDR": "10.0.0.0/24"},
                         "status": {"addresses": [{"type": "InternalIP", "address": "192.168.0.10"}]}}]
    for i in range(services):
        name = f"svc-{i:05d}"
        objs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": "bench", "name": name},
                     "spec": {"type": "ClusterIP", "clusterIP": _ip(i, 172), "clusterIPs": [_ip(i, 172)],
                              "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}})
        for s in range(0, endpoints, _SLICE_SIZE):
            eps = [{"addresses": [_ip(i * endpoints + j + 1, 10)], "conditions": {"ready": True},
                    "nodeName": f"node-{(j % 100) + 1}"} for j in range(s, min(s + _SLICE_SIZE, endpoints))]
            objs.append({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                         "metadata": {"namespace": "bench", "name": f"{name}-{s // _SLICE_SIZE}",
                                      "labels": {"kubernetes.io/service-name": name}},
                         "addressType": "IPv4", "endpoints": eps,
                         "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]})
    return objs


def run(services: int, endpoints: int, configured: bool = False) -> list[tuple[str, float, int | None, int | None]]:
    """Rows of (step, seconds, output bytes, output lines)."""
    from kubenotes.proxy.endpoints import proxy_state
    from kubenotes.proxy.iptables import iptables_save

    rows: list[tuple[str, float, int | None, int | None]] = []
    t0 = time.perf_counter()
    objs = objects(services, endpoints)
    rows.append(("build objects", time.perf_counter() - t0, None, None))

    t0 = time.perf_counter()
    state = proxy_state(objs, NODE, cluster_cidr="10.0.0.0/8")
    rows.append(("proxy_state", time.perf_counter() - t0, None, None))
    del objs

    t0 = time.perf_counter()
    text = iptables_save(state)
    rows.append(("iptables_save", time.perf_counter() - t0, len(text.encode()), text.count("\n")))
    del text

    try:
        from kubenotes.proxy.nftables import nft_list_table
    except ImportError:
        rows.append(("nft_list_table (not available)", 0.0, None, None))
    else:
        t0 = time.perf_counter()
        text = nft_list_table(state)
        rows.append(("nft_list_table", time.perf_counter() - t0, len(text.encode()), text.count("\n")))
        del text
    if configured:
        from kubenotes.proxy.util import LocalTrafficDetector

        detector = LocalTrafficDetector.by_interface_name_prefix("veth")
        kw = {"masquerade_all": True, "local_detector": detector, "nodeport_addresses": ["192.168.0.0/16"]}
        t0 = time.perf_counter()
        text = iptables_save(state, **kw)
        rows.append(("iptables_save (configured)", time.perf_counter() - t0, len(text.encode()), text.count("\n")))
        del text
        t0 = time.perf_counter()
        text = nft_list_table(state, **kw)
        rows.append(("nft_list_table (configured)", time.perf_counter() - t0, len(text.encode()),
                     text.count("\n")))
    return rows


def format_rows(rows: list[tuple[str, float, int | None, int | None]]) -> str:
    """A small fixed-width table."""
    out = [f"{'step':<32}{'seconds':>10}{'bytes':>16}{'lines':>12}"]
    for step, secs, size, lines in rows:
        out.append(f"{step:<32}{secs:>10.2f}{'' if size is None else f'{size:,}':>16}"
                   f"{'' if lines is None else f'{lines:,}':>12}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--services", type=int, default=10000, help="number of Services (default 10000)")
    p.add_argument("--endpoints", type=int, default=250, help="endpoints per Service (default 250)")
    p.add_argument("--configured", action="store_true",
                   help="also render with a non-default KubeProxyConfiguration (interface-prefix detector, "
                        "masqueradeAll, nodePortAddresses)")
    args = p.parse_args(argv)
    if args.services < 1 or args.endpoints < 0:
        print("proxy_rules: --services must be >= 1 and --endpoints >= 0", file=sys.stderr)
        return 2
    print(f"{args.services:,} Services x {args.endpoints:,} endpoints = "
          f"{args.services * args.endpoints:,} endpoints, one node")
    rows = run(args.services, args.endpoints, args.configured)
    print(format_rows(rows))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:,.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
