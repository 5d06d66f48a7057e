"""The ``--etcd`` flags of ``simulate`` and ``serve``, after kube-apiserver's ``EtcdOptions``.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/server/options/etcd.go (``--etcd-servers``,
``--etcd-compaction-interval`` default 5m0s)
"""

from __future__ import annotations

import argparse
from typing import Any

from kubenotes.api.duration import parse_go_duration
from kubenotes.apiserver.storage.compact import DEFAULT_COMPACTION_INTERVAL_SECONDS
from kubenotes.errors import ConfigError

__all__ = ["add_etcd_flags", "etcd_options"]


def add_etcd_flags(p: argparse.ArgumentParser) -> None:
    """Add ``--etcd URL`` and ``--etcd-compaction-interval DURATION`` to a subcommand's parser."""
    p.add_argument("--etcd", metavar="URL", default=None,
                   help="keep the API server's objects in this real etcd (http://HOST:PORT, etcd 3.4+, empty under "
                        "/registry/), as kube-apiserver's --etcd-servers; default: the embedded store")
    p.add_argument("--etcd-compaction-interval", metavar="DURATION", default="5m0s",
                   help="with --etcd: how often the compactor runs, on the virtual clock (default 5m0s; 0 turns it off)")


def etcd_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`~kubenotes.sim.cluster.Cluster` keywords the flags give (``{}`` without ``--etcd``).

    Raises
    ------
    ConfigError
        For an interval that is no Go duration or is negative (one line).

    Examples
    --------
    >>> etcd_options(argparse.Namespace(etcd="http://127.0.0.1:2379", etcd_compaction_interval="1m"))
    {'etcd': 'http://127.0.0.1:2379', 'etcd_compaction_interval_seconds': 60.0}
    >>> etcd_options(argparse.Namespace(etcd=None, etcd_compaction_interval="5m0s"))
    {}
    """
    url = getattr(args, "etcd", None)
    if url is None:
        return {}
    text = getattr(args, "etcd_compaction_interval", "5m0s")
    try:
        seconds = parse_go_duration(text) if text else DEFAULT_COMPACTION_INTERVAL_SECONDS
    except ValueError as e:
        raise ConfigError(f"--etcd-compaction-interval: {e}") from None
    if seconds < 0:
        raise ConfigError(f"--etcd-compaction-interval: must not be negative, got {text!r}")
    return {"etcd": url, "etcd_compaction_interval_seconds": seconds}
