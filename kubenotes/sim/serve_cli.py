"""``kubenotes serve``: run a cluster from manifests behind the Kubernetes API on 127.0.0.1, for the real kubectl.

``python -m kubenotes serve [MANIFEST...] [--port 6443] [--kubeconfig FILE] [--time-scale X] [--seed N] [--epoch T]
[--etcd URL]``
loads the manifests into a :class:`~kubenotes.sim.cluster.Cluster`, serves it
with :func:`kubenotes.sim.serve.serve`, writes a kubeconfig (a cluster with
the server's self-signed certificate, the admin user's bearer token, a
context) and prints its path and the ``export KUBECONFIG=...`` line on
stderr. The virtual clock runs at ``--time-scale`` virtual seconds per wall
second (0 pauses it). Ctrl-C stops the server cleanly (exit status 0).

The cluster's virtual second 0 is the wall-clock time the server starts
(``--epoch now``, the default), because kubectl computes the ages it shows
in ``describe`` and ``events`` from the wall clock; ``--epoch default`` keeps
the reproducible 2025-08-27 epoch of ``simulate`` and the tests, and an ISO
8601 time sets another.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-apiserver/app/options (--secure-port, --bind-address)
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import Any

from kubenotes.apiserver.storage.options import add_etcd_flags, etcd_options
from kubenotes.features import add_feature_gates_flag

__all__ = ["register", "run", "DEFAULT_PORT"]

#: kube-apiserver's default ``--secure-port``.
DEFAULT_PORT = 6443


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``serve`` parser (called by :func:`kubenotes.cli.build_parser`)."""
    p = subparsers.add_parser(
        "serve", help="serve a simulated cluster on 127.0.0.1 for the real kubectl",
        description="Load manifests into a simulated cluster and serve the Kubernetes API on 127.0.0.1 "
                    "(HTTPS, self-signed), so kubectl works against it. Ctrl-C stops it.")
    p.add_argument("manifests", nargs="*", metavar="MANIFEST", help="YAML files or directories to load")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="TCP port on 127.0.0.1 (default 6443; 0: any free one)")
    p.add_argument("--kubeconfig", metavar="FILE", default=None,
                   help="where to write the kubeconfig (default: a temporary file, removed on exit)")
    p.add_argument("--time-scale", type=float, default=1.0, metavar="X",
                   help="virtual seconds per wall second (default 1; 0 pauses the clock)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    p.add_argument("--epoch", default="now", metavar="T",
                   help="wall-clock time of virtual second 0: 'now' (default; kubectl's ages then read right), "
                        "'default' (2025-08-27, reproducible) or an ISO 8601 time")
    add_feature_gates_flag(p)
    add_etcd_flags(p)
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace, *, ready: threading.Event | None = None,
        stop: threading.Event | None = None) -> int:
    """Serve until Ctrl-C (or until ``stop`` is set, for tests); return the exit status.

    Raises
    ------
    ManifestError
        For bad manifests (the CLI prints its one line, exit status 2).
    ConfigError
        For a wrong, unreachable or non-empty ``--etcd`` URL (one line, exit status 2), before anything is served.
    """
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.serve import serve

    if args.time_scale < 0:
        print(f"kubenotes serve: --time-scale must be >= 0, got {args.time_scale}", file=sys.stderr)
        return 2
    from kubenotes.apiserver.server import resolve_epoch

    raw_epoch = getattr(args, "epoch", "now")
    try:
        epoch = resolve_epoch(None if raw_epoch == "default" else raw_epoch)
    except ValueError:
        print(f"kubenotes serve: --epoch must be 'now', 'default' or an ISO 8601 time, got {raw_epoch!r}",
              file=sys.stderr)
        return 2
    etcd = etcd_options(args)  # a wrong or unreachable --etcd fails here, one line, before anything is served
    if args.manifests:
        cluster = Cluster.from_manifests(*args.manifests, seed=args.seed, epoch=epoch,
                                         feature_gates=getattr(args, "feature_gates", None), **etcd)
    else:
        cluster = Cluster(seed=args.seed, epoch=epoch, feature_gates=getattr(args, "feature_gates", None), **etcd)
    kubeconfig = os.path.abspath(args.kubeconfig) if args.kubeconfig else None
    served = serve(cluster, port=args.port, time_scale=args.time_scale, kubeconfig=kubeconfig)
    stop = stop if stop is not None else threading.Event()
    try:
        print(f"kubenotes: serving the Kubernetes API on {served.url} (time scale {args.time_scale:g})",
              file=sys.stderr)
        print(f"kubenotes: kubeconfig written to {served.kubeconfig_path}", file=sys.stderr)
        print(f"export KUBECONFIG={served.kubeconfig_path}", file=sys.stderr)
        sys.stderr.flush()
        if ready is not None:
            ready.served = served  # type: ignore[attr-defined]
            ready.set()
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            print("kubenotes: stopping", file=sys.stderr)
    finally:
        served.stop()
    return 0
