"""``kubenotes kube-proxy``: print what kube-proxy v1.34 programs on one node.

``python -m kubenotes kube-proxy MANIFEST... --node NODE [--config FILE] [--mode iptables|ipvs|nftables]
[--cluster-cidr CIDR] [--masquerade-all] [--nodeport-addresses CIDRS|primary] [--detect-local-mode MODE]
[--iptables-localhost-nodeports BOOL] [--conntrack-... VALUE] [--ipvs-... VALUE] [--sysctls]``

* MANIFEST is a YAML/JSON file (several documents and ``kind: List`` dumps
  allowed), a directory, or ``-`` for stdin: Nodes, Services, EndpointSlices,
  ServiceCIDRs and Pods. kube-proxy reads only the Nodes, Services,
  EndpointSlices and ServiceCIDRs; before it does,
  :func:`kubenotes.sim.network.kube_proxy_objects` gives a Service with no
  EndpointSlice in the input the slices the EndpointSlice controller would
  derive from the Pods it selects (and a Service without a cluster IP the one
  the API server would allocate), so a plain ``kubectl get nodes,svc,pods -A -o
  yaml`` dump works.
* ``--config FILE`` is a ``kubeproxy.config.k8s.io/v1alpha1``
  KubeProxyConfiguration (:mod:`kubenotes.proxy.config`): defaulted, validated
  with upstream's messages; as in kube-proxy, a config file replaces the
  flags (the others are ignored, and a note on stderr says which), and an
  unknown field is logged (one line on stderr naming the file and the field)
  while the rest is used, as kube-proxy's lenient v1alpha1 decoding does.
  Without it the flags build the configuration.
* ``--mode iptables`` (the default, as in kube-proxy) prints the ``filter``
  and ``nat`` tables in ``iptables-save`` format
  (:func:`kubenotes.proxy.iptables.iptables_save`); ``--mode nftables`` the
  ``nft list table ip kube-proxy`` text in v1.34's layout; ``--mode ipvs`` the
  virtual and real servers as ``ipvsadm -Ln`` lists them, with the config's
  ``ipvs.scheduler`` and ``nodePortAddresses`` (the masquerading and detector
  settings show in the iptables and nftables output only: of the ipvs mode's
  own iptables rules only the cluster-IP masquerade rule is modelled, by
  :func:`kubenotes.proxy.ipvs.cluster_ip_masquerade_rule`).
* ``--cluster-cidr`` is kube-proxy's ``clusterCIDR`` (the ``ClusterCIDR``
  local-traffic detector: traffic to a cluster IP from outside it is
  masqueraded); ``--detect-local-mode`` picks another detector (``NodeCIDR``:
  the Node's ``spec.podCIDRs``; ``BridgeInterface`` / ``InterfaceNamePrefix``
  with ``--pod-bridge-interface`` / ``--pod-interface-name-prefix``).
* The nftables drop rule for unallocated cluster IPs uses the ServiceCIDR
  objects of the input, or the one the API server creates from
  ``--service-cluster-ip-range`` (kubeadm's 10.96.0.0/12) when there are none.
* ``--sysctls`` prints, instead of the rules, the sysctls kube-proxy sets at
  start (conntrack table size from ``maxPerCore`` x the Node's CPUs and
  ``min``, the conntrack timeouts, ``route_localnet`` for localhost NodePorts).

The command lives in ``sim/`` rather than ``proxy/`` because it runs, before
kube-proxy reads the objects, the API server's and the EndpointSlice
controller's code (as ``cmd/kube-proxy`` sits apart from ``pkg/proxy``
upstream); :mod:`kubenotes.proxy` itself imports neither.

Exit status: 0, or 2 for bad input (one line on stderr naming the file,
document, object and field, the config file and field, or the unknown node);
no partial rules are printed.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-proxy/app/options.go (flags, --config, Complete)
kubernetes/kubernetes@v1.34.0 cmd/kube-proxy/app/server_linux.go (platformApplyDefaults, setupConntrack)
kubernetes/kubernetes@v1.34.0 pkg/proxy/apis/config/validation/validation.go
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from kubenotes.api.quantity import milli_cpu
from kubenotes.errors import KubenotesError, ManifestError
from kubenotes.proxy import config as kpconfig
from kubenotes.proxy.endpoints import load_proxy_objects, proxy_state
from kubenotes.proxy.iptables import iptables_save
from kubenotes.proxy.ipvs import ipvsadm_ln
from kubenotes.proxy.nftables import nft_list_table
from kubenotes.sim.network import kube_proxy_objects

__all__ = ["register", "run_kube_proxy", "validate_cluster_cidr", "MODES", "PROG"]

PROG = "kubenotes kube-proxy"
#: ``--proxy-mode`` values kubenotes renders (kube-proxy's default on Linux is iptables).
MODES = kpconfig.PROXY_MODES
#: Flags a config file replaces (``This parameter is ignored if a config file is specified by --config``).
_CONFIG_FLAGS = ("mode", "cluster_cidr", "masquerade_all", "nodeport_addresses", "detect_local_mode",
                 "pod_bridge_interface", "pod_interface_name_prefix", "iptables_localhost_nodeports",
                 "conntrack_max_per_core", "conntrack_min", "conntrack_tcp_timeout_established",
                 "conntrack_tcp_timeout_close_wait", "ipvs_scheduler", "ipvs_strict_arp", "ipvs_exclude_cidrs",
                 "ipvs_tcp_timeout", "ipvs_tcpfin_timeout", "ipvs_udp_timeout")


def _bool(text: str) -> bool:
    if text.lower() in ("true", "1", "t"):
        return True
    if text.lower() in ("false", "0", "f"):
        return False
    raise argparse.ArgumentTypeError(f"invalid boolean {text!r} (true or false)")


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
    p.add_argument("--node", required=True, help="the node kube-proxy runs on (--hostname-override; must be in "
                                                 "the manifests)")
    p.add_argument("--config", metavar="FILE", default=None,
                   help="a kubeproxy.config.k8s.io/v1alpha1 KubeProxyConfiguration; the flags below are then "
                        "ignored, as kube-proxy ignores them")
    p.add_argument("--mode", choices=MODES, default=None,
                   help="kube-proxy's --proxy-mode (default iptables)")
    p.add_argument("--cluster-cidr", metavar="CIDR", default=None,
                   help="kube-proxy's clusterCIDR (pod network; traffic from outside it is masqueraded)")
    p.add_argument("--masquerade-all", action="store_true", default=None,
                   help="SNAT all traffic sent via Service cluster IPs")
    p.add_argument("--nodeport-addresses", metavar="CIDRS", default=None,
                   help="comma-separated CIDRs, or 'primary': the node IPs accepting NodePorts "
                        "(default: all local IPs; nftables: primary)")
    p.add_argument("--detect-local-mode", metavar="MODE", default=None,
                   help="ClusterCIDR (default), NodeCIDR, BridgeInterface or InterfaceNamePrefix")
    p.add_argument("--pod-bridge-interface", metavar="IFACE", default=None,
                   help="the bridge for --detect-local-mode BridgeInterface")
    p.add_argument("--pod-interface-name-prefix", metavar="PREFIX", default=None,
                   help="the prefix for --detect-local-mode InterfaceNamePrefix")
    p.add_argument("--iptables-localhost-nodeports", metavar="BOOL", type=_bool, default=None,
                   help="iptables: accept NodePorts on 127.0.0.1 (default true)")
    p.add_argument("--conntrack-max-per-core", metavar="N", type=int, default=None,
                   help="conntrack entries per CPU (default 32768; 0 leaves the limit as is)")
    p.add_argument("--conntrack-min", metavar="N", type=int, default=None,
                   help="conntrack entries at least (default 131072)")
    p.add_argument("--conntrack-tcp-timeout-established", metavar="DURATION", default=None,
                   help="idle timeout of established TCP connections (default 24h0m0s)")
    p.add_argument("--conntrack-tcp-timeout-close-wait", metavar="DURATION", default=None,
                   help="timeout of TCP connections in CLOSE_WAIT (default 1h0m0s)")
    p.add_argument("--ipvs-scheduler", metavar="NAME", default=None,
                   help="ipvs: the IPVS scheduler (default rr; lc, wrr, sh, mh...)")
    p.add_argument("--ipvs-strict-arp", metavar="BOOL", type=_bool, default=None,
                   help="ipvs: set arp_ignore=1 and arp_announce=2 (see --sysctls)")
    p.add_argument("--ipvs-exclude-cidrs", metavar="CIDRS", default=None,
                   help="ipvs: comma-separated CIDRs whose virtual servers kube-proxy leaves alone")
    p.add_argument("--ipvs-tcp-timeout", metavar="DURATION", default=None,
                   help="ipvs: idle timeout of IPVS TCP connections (0: the kernel's)")
    p.add_argument("--ipvs-tcpfin-timeout", metavar="DURATION", default=None,
                   help="ipvs: timeout of IPVS TCP connections after FIN (0: the kernel's)")
    p.add_argument("--ipvs-udp-timeout", metavar="DURATION", default=None,
                   help="ipvs: timeout of IPVS UDP packets (0: the kernel's)")
    p.add_argument("--sysctls", action="store_true",
                   help="print the sysctls kube-proxy sets at start instead of the rules")
    p.add_argument("--full", action="store_true",
                   help="iptables: whole tables as iptables-save lists them (built-in chains, jump rules, "
                        "KUBE-PROXY-CANARY)")
    p.set_defaults(func=_cmd)
    return p


def validate_cluster_cidr(value: str) -> None:
    """kube-proxy's ``clusterCIDR`` validation (``DetectLocal.ClusterCIDRs``): one CIDR, or an IPv4/IPv6 pair.

    Raises
    ------
    KubenotesError
        With upstream's field error, e.g. ``KubeProxyConfiguration.DetectLocalConfiguration.ClusterCIDRs[0]:
        Invalid value: "10.0.0.0": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)``.

    Examples
    --------
    >>> validate_cluster_cidr("10.244.0.0/16,fd00:10::/64")
    >>> validate_cluster_cidr("192.168.59.0")
    Traceback (most recent call last):
    ...
    kubenotes.proxy.config.KubeProxyConfigError: KubeProxyConfiguration.DetectLocalConfiguration.ClusterCIDRs[0]: Invalid value: "192.168.59.0": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)
    """
    cfg = kpconfig.platform_apply_defaults(kpconfig.set_defaults(kpconfig.from_flags(cluster_cidr=value)))
    errs = [e for e in kpconfig.validate(cfg) if ".ClusterCIDRs" in e]
    if errs:
        raise kpconfig.KubeProxyConfigError(_aggregate(errs))


def _aggregate(errs: list[str]) -> str:
    """``ErrorList.ToAggregate().Error()``: one error as is, several as ``[a, b]``."""
    return errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"


def resolve_configuration(config_file: str | None = None, warn: Any = None, **flags: Any) -> dict:
    """kube-proxy's ``Options.Complete`` and ``Validate``: the file or the flags, defaulted and validated.

    Parameters
    ----------
    config_file : str, optional
        ``--config``; when given the flags are ignored.
    warn : callable, optional
        Receives each warning line (unknown fields, ignored flags).
    **flags
        :func:`kubenotes.proxy.config.from_flags` keywords; None means "not given".

    Returns
    -------
    dict
        The defaulted v1alpha1 configuration.

    Raises
    ------
    KubeProxyConfigError
        Undecodable file, or invalid values (upstream's aggregate of field errors, prefixed
        with the file name when there is one).
    """
    given = {k: v for k, v in flags.items() if v is not None}
    if config_file:
        cfg, warnings = kpconfig.load_kube_proxy_configuration(config_file)
        ignored = [k for k in _CONFIG_FLAGS if k in given]
        if ignored:
            names = ", ".join("--" + k.replace("_", "-") for k in ignored)
            warnings.append(f"{PROG}: {names} ignored: a config file is specified by --config")
    else:
        if isinstance(given.get("nodeport_addresses"), str):
            given["nodeport_addresses"] = [a for a in given["nodeport_addresses"].split(",") if a]
        cfg, warnings = kpconfig.from_flags(**given), []
    for w in warnings:
        if warn is not None:
            warn(w)
    cfg = kpconfig.platform_apply_defaults(kpconfig.set_defaults(cfg))
    errs = kpconfig.validate(cfg)
    if errs:
        prefix = f"{config_file}: " if config_file else ""
        raise kpconfig.KubeProxyConfigError(prefix + _aggregate(errs))
    return cfg


def _node_of(objects: list[dict], node: str) -> dict | None:
    return next((o for o in objects if o.get("kind") == "Node" and (o.get("metadata") or {}).get("name") == node),
                None)


def _num_cpus(node: dict | None) -> int:
    """``runtime.NumCPU()`` on the node, read from its ``status.capacity.cpu`` (1 when unknown)."""
    cpu = (((node or {}).get("status") or {}).get("capacity") or {}).get("cpu")
    try:
        return max(1, milli_cpu(cpu) // 1000) if cpu is not None else 1
    except KubenotesError:
        return 1


def run_kube_proxy(manifests: Sequence[str], node: str, *, mode: str | None = None, cluster_cidr: str | None = None,
                   masquerade_all: bool | None = None, full: bool = False, config_file: str | None = None,
                   sysctls: bool = False, warn: Any = None, **flags: Any) -> str:
    """Load the manifests and render what kube-proxy, configured as given, programs on ``node``.

    Parameters
    ----------
    manifests : sequence of str
        Paths (files, directories, ``-``) or YAML text.
    node : str
        The Node kube-proxy runs on.
    mode : {"iptables", "ipvs", "nftables"}, optional
        ``--proxy-mode`` (default iptables).
    cluster_cidr : str, optional
        kube-proxy's ``clusterCIDR``.
    masquerade_all : bool, optional
        ``--masquerade-all``.
    full : bool
        iptables mode only: whole tables (see :func:`~kubenotes.proxy.iptables.iptables_save`).
    config_file : str, optional
        ``--config FILE``: a KubeProxyConfiguration that replaces the flags.
    sysctls : bool
        Return the sysctls kube-proxy sets (``name = value`` lines) instead of the rules.
    warn : callable, optional
        Receives warning lines (unknown config fields, ignored flags).
    **flags
        The other flags of :func:`kubenotes.proxy.config.from_flags` (``nodeport_addresses``,
        ``detect_local_mode``, ``pod_bridge_interface``, ``pod_interface_name_prefix``,
        ``iptables_localhost_nodeports``, ``conntrack_*``).

    Returns
    -------
    str
        The text the real tool prints.

    Raises
    ------
    ManifestError
        Bad manifest (one line: file, document, object, field).
    KubenotesError
        Unknown node, bad configuration (:class:`~kubenotes.proxy.config.KubeProxyConfigError`).

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
    cfg = resolve_configuration(config_file, warn=warn, mode=mode, cluster_cidr=cluster_cidr,
                                masquerade_all=masquerade_all, **flags)
    loaded = load_proxy_objects(list(manifests))
    service_cidrs = kpconfig.service_cidrs_of(loaded)
    objects = kube_proxy_objects(loaded)
    node_obj = _node_of(objects, node)
    pod_cidrs = list(((node_obj or {}).get("spec") or {}).get("podCIDRs")
                     or [((node_obj or {}).get("spec") or {}).get("podCIDR") or ""])
    state = proxy_state(objects, node, cluster_cidr=cfg.get("clusterCIDR") or None)
    version = 6 if state.node_ips and ":" in state.node_ips[0] else 4
    settings = kpconfig.proxier_settings(cfg, version=version, node_pod_cidrs=pod_cidrs)
    if sysctls:
        values = kpconfig.conntrack_sysctls(cfg, _num_cpus(node_obj))
        if version == 6:
            values.pop("net.ipv4.conf.all.route_localnet", None)
        return "".join(f"{k} = {v}\n" for k, v in values.items())
    if settings.mode == "iptables":
        return iptables_save(state, masquerade_all=settings.masquerade_all, masquerade_bit=settings.masquerade_bit,
                             localhost_node_ports=settings.localhost_node_ports,
                             local_detector=settings.local_detector,
                             nodeport_addresses=settings.node_port_addresses, full=full)
    if settings.mode == "nftables":
        return nft_list_table(state, masquerade_all=settings.masquerade_all, masquerade_bit=settings.masquerade_bit,
                              local_detector=settings.local_detector,
                              nodeport_addresses=settings.node_port_addresses,
                              service_cidrs=service_cidrs)
    return ipvsadm_ln(state, scheduler=settings.ipvs_scheduler, nodeport_addresses=settings.node_port_addresses)


def _cmd(args: argparse.Namespace) -> int:
    flags = {k: getattr(args, k) for k in _CONFIG_FLAGS if k not in ("mode", "cluster_cidr", "masquerade_all")}
    try:
        text = run_kube_proxy(args.manifests, args.node, mode=args.mode, cluster_cidr=args.cluster_cidr,
                              masquerade_all=args.masquerade_all, full=args.full, config_file=args.config,
                              sysctls=args.sysctls, warn=lambda line: print(line, file=sys.stderr), **flags)
    except KubenotesError as e:
        msg = str(e)
        if not isinstance(e, (ManifestError, kpconfig.KubeProxyConfigError)) and not msg.startswith(PROG):
            msg = f"{PROG}: {msg}"
        elif isinstance(e, kpconfig.KubeProxyConfigError) and not args.config:
            msg = f"{PROG}: {msg}"
        print(msg, file=sys.stderr)
        return 2
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0
