"""``kubenotes serve``: run a cluster from manifests behind the Kubernetes API on 127.0.0.1, for the real kubectl.

``python -m kubenotes serve [MANIFEST...] [--port 6443] [--kubeconfig FILE] [--time-scale X] [--seed N] [--epoch T]
[--etcd URL] [--service-account-signing-key-file PEM]``
loads the manifests into a :class:`~kubenotes.sim.cluster.Cluster` (and starts
the ``kind: Scenario`` documents among them on its clock, as ``simulate`` does:
a scripted ``nodeDown`` at 20 s happens 20 virtual seconds after the server
starts, for the real kubectl to watch; :func:`kubenotes.sim.cli.build`), serves it
with :func:`kubenotes.sim.serve.serve`, writes a kubeconfig (a cluster with
the server's self-signed certificate, the admin user's bearer token, a
context) and prints its path and the ``export KUBECONFIG=...`` line on
stderr. The virtual clock runs at ``--time-scale`` virtual seconds per wall
second (0 pauses it). Ctrl-C or SIGTERM stops the server cleanly (exit
status 0) and removes the kubeconfig and the keys it wrote.

State lives in the process's memory (or, with ``--etcd``, in that etcd,
which must be empty at start): a restart starts a fresh cluster with a new
serving CA, a new service-account signing key (unless
``--service-account-signing-key-file`` names one) and a new random admin
token, so a kubeconfig or a service-account token from an earlier run no
longer works. The banner says so.

The cluster's virtual second 0 is the wall-clock time the server starts
(``--epoch now``, the default), because kubectl computes the ages it shows
in ``describe`` and ``events`` from the wall clock; ``--epoch default`` keeps
the reproducible 2025-08-27 epoch of ``simulate`` and the tests, and an ISO
8601 time sets another.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-apiserver/app/options (--secure-port, --bind-address)
kubernetes/kubernetes@v1.34.0 pkg/kubeapiserver/options/authentication.go (--service-account-signing-key-file)
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import Any

from kubenotes.apiserver.resources import parse_runtime_config
from kubenotes.apiserver.storage.options import add_etcd_flags, etcd_options
from kubenotes.features import add_feature_gates_flag

__all__ = ["register", "run", "state_banner", "DEFAULT_PORT"]

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
                   help="where to write the kubeconfig (0600; default: a temporary file; removed on exit, as its "
                        "token dies with the server)")
    p.add_argument("--time-scale", type=float, default=1.0, metavar="X",
                   help="virtual seconds per wall second (default 1; 0 pauses the clock)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    p.add_argument("--epoch", default="now", metavar="T",
                   help="wall-clock time of virtual second 0: 'now' (default; kubectl's ages then read right), "
                        "'default' (2025-08-27, reproducible) or an ISO 8601 time")
    p.add_argument("--service-account-signing-key-file", metavar="PEM", default=None,
                   help="private key (PEM, RSA or ECDSA) that signs service-account tokens; default: a random RSA "
                        "key made at start")
    add_feature_gates_flag(p)
    p.add_argument("--runtime-config", type=parse_runtime_config, default=None, metavar="GROUP/VERSION=true",
                   help="off-by-default APIs to serve, as kube-apiserver's flag: admissionregistration.k8s.io/v1beta1"
                        "=true with --feature-gates MutatingAdmissionPolicy=true serves MutatingAdmissionPolicies")
    add_etcd_flags(p)
    p.set_defaults(func=run)
    return p


def state_banner(etcd_url: str | None) -> str:
    """The banner line saying where the cluster's state lives and what a restart does.

    Examples
    --------
    >>> print(state_banner(None))
    kubenotes: state lives in this process's memory and is lost on exit; a restart starts a fresh cluster with a new CA, service-account signing key and admin token
    >>> "etcd at http://127.0.0.1:2379" in state_banner("http://127.0.0.1:2379")
    True
    """
    fresh = "a restart starts a fresh cluster with a new CA, service-account signing key and admin token"
    if etcd_url:
        return (f"kubenotes: state lives in etcd at {etcd_url} (empty at start); {fresh} and needs an empty etcd "
                "again")
    return f"kubenotes: state lives in this process's memory and is lost on exit; {fresh}"


def _on_sigterm(signum: int, frame: Any) -> None:
    """SIGTERM stops the server as Ctrl-C does: the same exception, raised in the main thread."""
    raise KeyboardInterrupt()


def run(args: argparse.Namespace, *, ready: threading.Event | None = None,
        stop: threading.Event | None = None) -> int:
    """Serve until Ctrl-C (or until ``stop`` is set, for tests); return the exit status.

    Raises
    ------
    ManifestError
        For bad manifests (the CLI prints its one line, exit status 2).
    ConfigError
        For a wrong, unreachable or non-empty ``--etcd`` URL (one line, exit status 2), before anything is served,
        or an unreadable ``--service-account-signing-key-file``.

    Notes
    -----
    In the main thread, SIGTERM is handled as Ctrl-C: the server stops and
    removes its kubeconfig and keys (a ``kill`` or a container runtime's stop
    leaves no admin credentials behind).
    """
    from kubenotes.sim.cluster import Cluster

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
    if getattr(args, "runtime_config", None):
        etcd = {**etcd, "runtime_config": args.runtime_config}
    if args.manifests:
        from kubenotes.sim.cli import build

        cluster = build(args.manifests, seed=args.seed, feature_gates=getattr(args, "feature_gates", None),
                        epoch=epoch, **etcd)
    else:
        cluster = Cluster(seed=args.seed, epoch=epoch, feature_gates=getattr(args, "feature_gates", None), **etcd)
    kubeconfig = os.path.abspath(args.kubeconfig) if args.kubeconfig else None
    key_file = getattr(args, "service_account_signing_key_file", None)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if main_thread else None
    try:
        return _serve_until_stopped(args, cluster, kubeconfig, key_file, etcd.get("etcd"), ready, stop)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


def _serve_until_stopped(args: argparse.Namespace, cluster: Any, kubeconfig: str | None, key_file: str | None,
                         etcd_url: str | None, ready: threading.Event | None, stop: threading.Event | None) -> int:
    from kubenotes.sim.serve import serve

    served = None
    try:
        served = serve(cluster, port=args.port, time_scale=args.time_scale, kubeconfig=kubeconfig,
                       service_account_signing_key_file=key_file)
        return _wait(args, cluster, served, etcd_url, ready, stop)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM while starting
        print("kubenotes: stopping", file=sys.stderr)
        return 0
    finally:
        if served is not None:
            served.stop()


def _wait(args: argparse.Namespace, cluster: Any, served: Any, etcd_url: str | None,
          ready: threading.Event | None, stop: threading.Event | None) -> int:
    stop = stop if stop is not None else threading.Event()
    print(f"kubenotes: serving the Kubernetes API on {served.url} (time scale {args.time_scale:g})",
          file=sys.stderr)
    print(f"kubenotes: kubeconfig written to {served.kubeconfig_path}", file=sys.stderr)
    print(f"export KUBECONFIG={served.kubeconfig_path}", file=sys.stderr)
    print(f"kubenotes: service-account tokens are signed with {served.signing_key_path}; issuer discovery at "
          f"{served.url}/.well-known/openid-configuration", file=sys.stderr)
    print(state_banner(etcd_url), file=sys.stderr)
    for sc in getattr(cluster, "scenarios", ()):
        last = max((st.at_seconds for st in sc.steps), default=0.0)
        print(f"kubenotes: scenario {sc.name}: {len(sc.steps)} step(s) until {last:g} s on the virtual clock",
              file=sys.stderr)
    sys.stderr.flush()
    if ready is not None:
        ready.served = served  # type: ignore[attr-defined]
        ready.set()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        print("kubenotes: stopping", file=sys.stderr)
    return 0
