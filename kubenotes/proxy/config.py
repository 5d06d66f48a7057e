"""kube-proxy's configuration: a ``kubeproxy.config.k8s.io/v1alpha1`` KubeProxyConfiguration, as v1.34 reads it.

``kube-proxy --config FILE`` decodes the file (:func:`load_kube_proxy_configuration`),
applies the v1alpha1 defaults (:func:`set_defaults`) and the Linux platform defaults
(:func:`platform_apply_defaults`: mode ``iptables``, ``detectLocalMode: ClusterCIDR``,
``nodePortAddresses: [primary]`` in nftables mode), then validates it
(:func:`validate`, upstream's field paths and messages). :func:`from_flags` builds
the same object from command-line flags when no file is given: as upstream, a config
file replaces the flags (only ``--hostname-override``, here ``--node``, still applies).

:func:`proxier_settings` turns the result into what one single-stack proxier of the
node's primary family needs (:class:`ProxierSettings`: masquerade-all, the mark, the
local-traffic detector, the node-port addresses, localhost NodePorts), and
:func:`conntrack_sysctls` into the sysctls kube-proxy writes at start
(``nf_conntrack_max`` from ``maxPerCore`` and ``min``, the TCP and UDP timeouts).
:func:`service_cidrs_of` reads the service CIDRs from ServiceCIDR objects.

Decoding follows ``cmd/kube-proxy/app/server.go`` ``loadConfig``: a strict decode
first; if it fails only because of unknown or duplicate fields, kube-proxy decodes
leniently, logs ``"Using lenient decoding as strict decoding failed"`` and goes on,
so such a field is a warning naming the file and the field, not an error. A wrong
type, a wrong ``apiVersion``/``kind`` or an invalid value is one error line.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-proxy/app/options.go (loadConfig, Complete, processV1Alpha1Flags)
kubernetes/kubernetes@v1.34.0 cmd/kube-proxy/app/server_linux.go (platformApplyDefaults, setupConntrack, getConntrackMax)
kubernetes/kubernetes@v1.34.0 pkg/proxy/apis/config/types.go
kubernetes/kubernetes@v1.34.0 pkg/proxy/apis/config/v1alpha1/defaults.go, conversion.go
kubernetes/kubernetes@v1.34.0 pkg/proxy/apis/config/validation/validation.go
kubernetes/kubernetes@v1.34.0 pkg/proxy/util/localdetector.go (GetLocalTrafficDetectors)
kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go (NewProxier: sysctls, strictARP, timeouts, scheduler)
https://kubernetes.io/docs/reference/config-api/kube-proxy-config.v1alpha1/
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from kubenotes.api.duration import parse_go_duration
from kubenotes.api.schema import go_json_kind
from kubenotes.errors import KubenotesError
from kubenotes.proxy.util import NODE_PORT_ADDRESSES_PRIMARY, LocalTrafficDetector, parse_cidr_sloppy, parse_ip_sloppy

__all__ = [
    "API_VERSION",
    "KIND",
    "PROXY_MODES",
    "LOCAL_MODES",
    "KubeProxyConfigError",
    "ProxierSettings",
    "decode_kube_proxy_configuration",
    "load_kube_proxy_configuration",
    "from_flags",
    "set_defaults",
    "platform_apply_defaults",
    "validate",
    "proxier_settings",
    "conntrack_sysctls",
    "service_cidrs_of",
    "parse_duration_seconds",
    "ipvs_timeouts",
]

API_VERSION = "kubeproxy.config.k8s.io/v1alpha1"
KIND = "KubeProxyConfiguration"
#: Linux proxy modes v1.34 accepts (``validateProxyModeLinux``; nftables is GA since v1.33).
PROXY_MODES = ("iptables", "ipvs", "nftables")
#: ``LocalMode`` values (``validateDetectLocalMode``), "" included.
LOCAL_MODES = ("ClusterCIDR", "NodeCIDR", "BridgeInterface", "InterfaceNamePrefix", "")


class KubeProxyConfigError(KubenotesError):
    """A KubeProxyConfiguration kube-proxy refuses: one line naming the file and the field."""


# ---------------------------------------------------------------------------
# The v1alpha1 schema (field -> type); "duration" is a metav1.Duration string.

_DUR, _STR, _BOOL, _I32, _STRS = "duration", "string", "bool", "int32", "[]string"
_SCHEMA: dict[str, Any] = {
    "apiVersion": _STR, "kind": _STR,
    "featureGates": ("map", _BOOL),
    "clientConnection": {"kubeconfig": _STR, "acceptContentTypes": _STR, "contentType": _STR,
                         "qps": "float32", "burst": _I32},
    "logging": "any",
    "hostnameOverride": _STR, "bindAddress": _STR, "healthzBindAddress": _STR, "metricsBindAddress": _STR,
    "bindAddressHardFail": _BOOL, "enableProfiling": _BOOL, "showHiddenMetricsForVersion": _STR,
    "mode": _STR,
    "iptables": {"masqueradeBit": _I32, "masqueradeAll": _BOOL, "localhostNodePorts": _BOOL,
                 "syncPeriod": _DUR, "minSyncPeriod": _DUR},
    "ipvs": {"syncPeriod": _DUR, "minSyncPeriod": _DUR, "scheduler": _STR, "excludeCIDRs": _STRS,
             "strictARP": _BOOL, "tcpTimeout": _DUR, "tcpFinTimeout": _DUR, "udpTimeout": _DUR},
    "nftables": {"masqueradeBit": _I32, "masqueradeAll": _BOOL, "syncPeriod": _DUR, "minSyncPeriod": _DUR},
    "winkernel": {"networkName": _STR, "sourceVip": _STR, "enableDSR": _BOOL, "rootHnsEndpointName": _STR,
                  "forwardHealthCheckVip": _BOOL},
    "detectLocalMode": _STR,
    "detectLocal": {"bridgeInterface": _STR, "interfaceNamePrefix": _STR},
    "clusterCIDR": _STR,
    "nodePortAddresses": _STRS,
    "oomScoreAdj": _I32,
    "conntrack": {"maxPerCore": _I32, "min": _I32, "tcpEstablishedTimeout": _DUR, "tcpCloseWaitTimeout": _DUR,
                  "tcpBeLiberal": _BOOL, "udpTimeout": _DUR, "udpStreamTimeout": _DUR},
    "configSyncPeriod": _DUR,
    "portRange": _STR,
    "windowsRunAsService": _BOOL,
}

#: Go's ``time.ParseDuration`` (as ``metav1.Duration`` reads JSON): one home, in :mod:`kubenotes.api.duration`.
parse_duration_seconds = parse_go_duration
_type_name = go_json_kind  # encoding/json's name of a value's JSON type, as in its UnmarshalTypeError


def _decode(schema: Any, value: Any, path: str, unknown: list[str]) -> Any:
    """Check ``value`` against ``schema`` as encoding/json would; collect unknown field paths."""
    if value is None:
        return None
    if schema == "any":
        return value
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            raise ValueError(f"{path}: expected object, got {_type_name(value)}")
        out = {}
        for k, v in value.items():
            sub = f"{path}.{k}" if path else k
            if k not in schema:
                unknown.append(sub)
                continue
            out[k] = _decode(schema[k], v, sub, unknown)
        return out
    if isinstance(schema, tuple):  # ("map", element)
        if not isinstance(value, dict):
            raise ValueError(f"{path}: expected object, got {_type_name(value)}")
        return {k: _decode(schema[1], v, f"{path}.{k}", unknown) for k, v in value.items()}
    if schema == _STRS:
        if not isinstance(value, list):
            raise ValueError(f"{path}: expected array of strings, got {_type_name(value)}")
        return [_decode(_STR, v, f"{path}[{i}]", unknown) for i, v in enumerate(value)]
    if schema in (_STR, _DUR):
        if not isinstance(value, str):
            raise ValueError(f"{path}: expected string, got {_type_name(value)} {value!r}")
        if schema == _DUR:
            try:
                parse_duration_seconds(value)
            except ValueError as e:
                raise ValueError(f"{path}: {e}") from None
        return value
    if schema == _BOOL:
        if not isinstance(value, bool):
            raise ValueError(f"{path}: expected bool, got {_type_name(value)} {value!r}")
        return value
    if schema == _I32:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value:
            raise ValueError(f"{path}: expected int32, got {_type_name(value)} {value!r}")
        if not -2**31 <= int(value) < 2**31:
            raise ValueError(f"{path}: {value} overflows int32")
        return int(value)
    if schema == "float32":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{path}: expected number, got {_type_name(value)} {value!r}")
        return value
    raise AssertionError(schema)


def decode_kube_proxy_configuration(data: Any, source: str = "<config>") -> tuple[dict, list[str]]:
    """``loadConfig``: check one decoded document as kube-proxy's codecs do.

    Parameters
    ----------
    data : dict
        The document (YAML or JSON already parsed).
    source : str
        File name for messages.

    Returns
    -------
    config : dict
        The v1alpha1 object as written (unknown fields dropped), not defaulted.
    warnings : list of str
        One line per unknown field: upstream's strict decoding error, which kube-proxy
        logs before it continues with the lenient decoding.

    Raises
    ------
    KubeProxyConfigError
        Not a ``kubeproxy.config.k8s.io/v1alpha1`` KubeProxyConfiguration, or a field of
        the wrong type: ``FILE: failed to decode: FIELD: ...``.

    Examples
    --------
    >>> cfg, warnings = decode_kube_proxy_configuration(
    ...     {"apiVersion": API_VERSION, "kind": KIND, "mode": "nftables", "udpIdleTimeout": "250ms"}, "kp.yaml")
    >>> cfg["mode"], warnings
    ('nftables', ['kp.yaml: Using lenient decoding as strict decoding failed: strict decoding error: unknown field "udpIdleTimeout"'])
    >>> decode_kube_proxy_configuration({"apiVersion": API_VERSION, "kind": KIND, "conntrack": {"min": "lots"}},
    ...                                 "kp.yaml")
    Traceback (most recent call last):
    ...
    kubenotes.proxy.config.KubeProxyConfigError: kp.yaml: failed to decode: conntrack.min: expected int32, got string 'lots'
    """
    if not isinstance(data, dict):
        raise KubeProxyConfigError(f"{source}: failed to decode: expected a KubeProxyConfiguration object, "
                                   f"got {_type_name(data)}")
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not api_version or not kind:
        missing = "kind" if api_version else "apiVersion"
        raise KubeProxyConfigError(f"{source}: failed to decode: Object '{missing}' is missing in the config")
    if (api_version, kind) != (API_VERSION, KIND):
        group_version = api_version
        raise KubeProxyConfigError(f'{source}: failed to decode: no kind "{kind}" is registered for version '
                                   f'"{group_version}" in scheme "pkg/proxy/apis/config/scheme/scheme.go:28"')
    unknown: list[str] = []
    try:
        cfg = _decode(_SCHEMA, data, "", unknown)
    except ValueError as e:
        raise KubeProxyConfigError(f"{source}: failed to decode: {e}") from None
    if not unknown:
        return cfg, []
    detail = ", ".join(f'unknown field "{u}"' for u in unknown)
    return cfg, [f"{source}: Using lenient decoding as strict decoding failed: strict decoding error: {detail}"]


def load_kube_proxy_configuration(path: str) -> tuple[dict, list[str]]:
    """Read ``--config FILE``: YAML or JSON, one document, decoded by :func:`decode_kube_proxy_configuration`.

    Parameters
    ----------
    path : str

    Returns
    -------
    config : dict
        Not yet defaulted (see :func:`set_defaults`).
    warnings : list of str

    Raises
    ------
    KubeProxyConfigError
        Unreadable file, bad YAML, or as :func:`decode_kube_proxy_configuration`.
    """
    from kubenotes.api.yamlutil import YAMLError, load_documents

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise KubeProxyConfigError(f"{path}: {(e.strerror or str(e)).lower()}") from None
    try:
        docs = [d for _, d in load_documents(text) if d is not None]
    except YAMLError as e:
        raise KubeProxyConfigError(f"{path}: failed to decode: {e}") from None
    if len(docs) != 1:
        raise KubeProxyConfigError(f"{path}: failed to decode: expected one KubeProxyConfiguration document, "
                                   f"got {len(docs)}")
    return decode_kube_proxy_configuration(docs[0], path)


# ---------------------------------------------------------------------------
# Defaults


def set_defaults(cfg: dict) -> dict:
    """``SetDefaults_KubeProxyConfiguration`` (v1alpha1): a defaulted copy.

    Examples
    --------
    >>> d = set_defaults({"apiVersion": API_VERSION, "kind": KIND})
    >>> d["conntrack"], d["iptables"]["masqueradeBit"], d["iptables"]["localhostNodePorts"]
    ({'maxPerCore': 32768, 'min': 131072, 'tcpEstablishedTimeout': '24h0m0s', 'tcpCloseWaitTimeout': '1h0m0s', 'tcpBeLiberal': False, 'udpTimeout': '0s', 'udpStreamTimeout': '0s'}, 14, True)
    """
    out = copy.deepcopy(cfg)
    out.setdefault("apiVersion", API_VERSION)
    out.setdefault("kind", KIND)
    out.setdefault("featureGates", {})
    if not out.get("bindAddress"):
        out["bindAddress"] = "0.0.0.0"
    if not out.get("healthzBindAddress"):
        out["healthzBindAddress"] = "0.0.0.0:10256"
    if not out.get("metricsBindAddress"):
        out["metricsBindAddress"] = "127.0.0.1:10249"
    cc = out.setdefault("clientConnection", {})
    cc.setdefault("contentType", "application/vnd.kubernetes.protobuf")
    if not cc.get("qps"):
        cc["qps"] = 5
    if not cc.get("burst"):
        cc["burst"] = 10
    for mode, bit in (("iptables", True), ("ipvs", False), ("nftables", True)):
        sec = out.setdefault(mode, {})
        if not sec.get("syncPeriod") or parse_duration_seconds(sec["syncPeriod"]) == 0:
            sec["syncPeriod"] = "30s"
        if mode != "ipvs" and not sec.get("minSyncPeriod"):
            sec["minSyncPeriod"] = "1s"
        sec.setdefault("minSyncPeriod", "0s")
        if bit and sec.get("masqueradeBit") is None:
            sec["masqueradeBit"] = 14
        if mode != "ipvs":
            sec.setdefault("masqueradeAll", False)
    if out["iptables"].get("localhostNodePorts") is None:
        out["iptables"]["localhostNodePorts"] = True
    out.setdefault("detectLocal", {})
    if out.get("oomScoreAdj") is None:
        out["oomScoreAdj"] = -999
    ct = out.setdefault("conntrack", {})
    if ct.get("maxPerCore") is None:
        ct["maxPerCore"] = 32 * 1024
    if ct.get("min") is None:
        ct["min"] = 128 * 1024
    if ct.get("tcpEstablishedTimeout") is None:
        ct["tcpEstablishedTimeout"] = "24h0m0s"
    if ct.get("tcpCloseWaitTimeout") is None:
        ct["tcpCloseWaitTimeout"] = "1h0m0s"
    ct.setdefault("tcpBeLiberal", False)
    ct.setdefault("udpTimeout", "0s")
    ct.setdefault("udpStreamTimeout", "0s")
    if not out.get("configSyncPeriod") or parse_duration_seconds(out["configSyncPeriod"]) == 0:
        out["configSyncPeriod"] = "15m0s"
    out.setdefault("nodePortAddresses", [])
    out.setdefault("clusterCIDR", "")
    out.setdefault("mode", "")
    out.setdefault("detectLocalMode", "")
    return out


def platform_apply_defaults(cfg: dict) -> dict:
    """``platformApplyDefaults`` (Linux): mode iptables, nftables' ``primary`` node ports, ClusterCIDR detection.

    Examples
    --------
    >>> d = platform_apply_defaults(set_defaults({"mode": "nftables"}))
    >>> d["nodePortAddresses"], d["detectLocalMode"]
    (['primary'], 'ClusterCIDR')
    >>> platform_apply_defaults(set_defaults({}))["mode"], platform_apply_defaults(set_defaults({}))["nodePortAddresses"]
    ('iptables', [])
    """
    out = copy.deepcopy(cfg)
    if not out.get("mode"):
        out["mode"] = "iptables"
    if out["mode"] == "nftables" and not out.get("nodePortAddresses"):
        out["nodePortAddresses"] = [NODE_PORT_ADDRESSES_PRIMARY]
    if not out.get("detectLocalMode"):
        out["detectLocalMode"] = "ClusterCIDR"
    return out


def from_flags(*, mode: str | None = None, cluster_cidr: str | None = None, masquerade_all: bool = False,
               nodeport_addresses: Sequence[str] | None = None, detect_local_mode: str | None = None,
               pod_bridge_interface: str | None = None, pod_interface_name_prefix: str | None = None,
               iptables_localhost_nodeports: bool | None = None, masquerade_bit: int | None = None,
               conntrack_max_per_core: int | None = None, conntrack_min: int | None = None,
               conntrack_tcp_timeout_established: str | None = None,
               conntrack_tcp_timeout_close_wait: str | None = None, ipvs_scheduler: str | None = None,
               ipvs_strict_arp: bool | None = None, ipvs_exclude_cidrs: Sequence[str] | str | None = None,
               ipvs_tcp_timeout: str | None = None, ipvs_tcpfin_timeout: str | None = None,
               ipvs_udp_timeout: str | None = None) -> dict:
    """The configuration kube-proxy builds from its flags when there is no ``--config`` (not yet defaulted).

    Each flag sets its v1alpha1 field (``--masquerade-all`` both ``iptables.masqueradeAll`` and
    ``nftables.masqueradeAll``: internally there is one ``Linux.MasqueradeAll``); the ``--ipvs-*``
    flags (``--ipvs-scheduler``, ``--ipvs-strict-arp``, ``--ipvs-exclude-cidrs`` as a comma-separated
    list, ``--ipvs-tcp-timeout``, ``--ipvs-tcpfin-timeout``, ``--ipvs-udp-timeout``) the ``ipvs`` section.

    Examples
    --------
    >>> c = from_flags(mode="nftables", cluster_cidr="10.244.0.0/16", masquerade_all=True)
    >>> c["mode"], c["clusterCIDR"], c["nftables"]["masqueradeAll"]
    ('nftables', '10.244.0.0/16', True)
    >>> from_flags(mode="ipvs", ipvs_scheduler="lc", ipvs_exclude_cidrs="10.0.0.0/24,10.1.0.0/24")["ipvs"]
    {'scheduler': 'lc', 'excludeCIDRs': ['10.0.0.0/24', '10.1.0.0/24']}
    """
    cfg: dict[str, Any] = {"apiVersion": API_VERSION, "kind": KIND, "iptables": {}, "nftables": {},
                           "ipvs": {}, "conntrack": {}, "detectLocal": {}}
    if mode:
        cfg["mode"] = mode
    if cluster_cidr:
        cfg["clusterCIDR"] = cluster_cidr
    if masquerade_all:
        cfg["iptables"]["masqueradeAll"] = cfg["nftables"]["masqueradeAll"] = True
    if masquerade_bit is not None:
        cfg["iptables"]["masqueradeBit"] = cfg["nftables"]["masqueradeBit"] = masquerade_bit
    if nodeport_addresses:
        cfg["nodePortAddresses"] = list(nodeport_addresses)
    if detect_local_mode is not None:
        cfg["detectLocalMode"] = detect_local_mode
    if pod_bridge_interface:
        cfg["detectLocal"]["bridgeInterface"] = pod_bridge_interface
    if pod_interface_name_prefix:
        cfg["detectLocal"]["interfaceNamePrefix"] = pod_interface_name_prefix
    if iptables_localhost_nodeports is not None:
        cfg["iptables"]["localhostNodePorts"] = iptables_localhost_nodeports
    for key, value in (("maxPerCore", conntrack_max_per_core), ("min", conntrack_min),
                       ("tcpEstablishedTimeout", conntrack_tcp_timeout_established),
                       ("tcpCloseWaitTimeout", conntrack_tcp_timeout_close_wait)):
        if value is not None:
            cfg["conntrack"][key] = value
    if isinstance(ipvs_exclude_cidrs, str):
        ipvs_exclude_cidrs = [c for c in ipvs_exclude_cidrs.split(",") if c]
    for key, value in (("scheduler", ipvs_scheduler), ("strictARP", ipvs_strict_arp),
                       ("excludeCIDRs", list(ipvs_exclude_cidrs) if ipvs_exclude_cidrs else None),
                       ("tcpTimeout", ipvs_tcp_timeout), ("tcpFinTimeout", ipvs_tcpfin_timeout),
                       ("udpTimeout", ipvs_udp_timeout)):
        if value is not None:
            cfg["ipvs"][key] = value
    return cfg


# ---------------------------------------------------------------------------
# Validation


_PATH = "KubeProxyConfiguration"


def _show(value: Any) -> str:
    """``field.Error`` value formatting: strings quoted, numbers and bools bare, lists as Go's ``%#v``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[]string{" + ", ".join(_show(v) for v in value) + "}"
    return str(value)


def _invalid(path: str, value: Any, detail: str) -> str:
    return f"{path}: Invalid value: {_show(value)}: {detail}"


def _validate_dual_stack_cidrs(cidrs: list[str], path: str) -> list[str]:
    errs = []
    pair_msg = "must be a either a single CIDR or dual-stack pair of CIDRs (e.g. [10.100.0.0/16, fde4:8dba:82e1::/48]"
    if not cidrs:
        return [_invalid(path, cidrs, "must contain at least one CIDR")]
    if len(cidrs) > 2:
        return [_invalid(path, cidrs, pair_msg)]
    nets = []
    for i, c in enumerate(cidrs):
        net = parse_cidr_sloppy(c) if c == c.strip() else None
        if net is None:
            errs.append(_invalid(f"{path}[{i}]", c, "must be a valid CIDR block (e.g. 10.100.0.0/16 or "
                                                   "fde4:8dba:82e1::/48)"))
        nets.append(net)
    if len(cidrs) == 2 and None not in nets and nets[0].version == nets[1].version:
        errs.append(_invalid(path, cidrs, pair_msg))
    return errs


def validate(cfg: dict) -> list[str]:
    """``validation.Validate`` over the fields the model uses: upstream's field paths and messages.

    Parameters
    ----------
    cfg : dict
        A defaulted v1alpha1 configuration (:func:`set_defaults`, :func:`platform_apply_defaults`).

    Returns
    -------
    list of str
        One ``field.Error`` text per problem (empty when valid); paths are those of the
        internal type (``KubeProxyConfiguration.DetectLocalConfiguration.ClusterCIDRs[0]``).

    Notes
    -----
    Checked: mode, detectLocalMode and its interface names, clusterCIDR (as
    ``DetectLocal.ClusterCIDRs``), nodePortAddresses, the masquerade bits, the conntrack
    settings, oomScoreAdj, the sync periods, bindAddress, and in ipvs mode the IPVS
    timeouts and ``excludeCIDRs`` (v1.34 no longer validates ``ipvs.scheduler``: an
    unknown one fails when the kernel refuses the virtual server). Not checked: feature gates,
    logging, the client connection and the metrics/healthz addresses' ports beyond their form.

    Examples
    --------
    >>> validate(platform_apply_defaults(set_defaults({"mode": "userspace"})))
    ['KubeProxyConfiguration.Mode.ProxyMode: Invalid value: "userspace": must be iptables, ipvs, nftables or blank (blank means the best-available proxy [currently iptables])']
    >>> validate(platform_apply_defaults(set_defaults({"clusterCIDR": "10.0.0.0"})))
    ['KubeProxyConfiguration.DetectLocalConfiguration.ClusterCIDRs[0]: Invalid value: "10.0.0.0": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)']
    >>> validate(platform_apply_defaults(set_defaults({"nodePortAddresses": ["primary"]})))
    []
    >>> validate(platform_apply_defaults(set_defaults({"nodePortAddresses": ["10.0.0.0/8", "primary"]})))
    ['KubeProxyConfiguration.NodePortAddresses[1]: Invalid value: "primary": can\\'t use both \\'primary\\' and CIDRs']
    >>> validate(platform_apply_defaults(set_defaults({"mode": "ipvs", "ipvs": {"excludeCIDRs": ["10.0.0.0/33"],
    ...                                                                         "udpTimeout": "-1s"}})))
    ['KubeProxyConfiguration.KubeProxyIPVSConfiguration.UDPTimeout: Invalid value: -1s: must be greater than or equal to 0', 'KubeProxyConfiguration.KubeProxyIPVSConfiguration.ExcludeCidrs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR']
    """
    errs: list[str] = []
    mode = cfg.get("mode") or ""
    ipt, nft, ct = cfg.get("iptables") or {}, cfg.get("nftables") or {}, cfg.get("conntrack") or {}
    bit = ipt.get("masqueradeBit")
    if bit is not None and not 0 <= bit <= 31:
        errs.append(_invalid(f"{_PATH}.KubeProxyIPTablesConfiguration.MasqueradeBit", bit,
                             "must be within the range [0, 31]"))
    if mode == "nftables" and nft.get("masqueradeBit") is not None and not 0 <= nft["masqueradeBit"] <= 31:
        errs.append(_invalid(f"{_PATH}.KubeProxyNFTablesConfiguration.MasqueradeBit", nft["masqueradeBit"],
                             "must be within the range [0, 31]"))
    if mode == "ipvs":  # validateKubeProxyIPVSConfiguration: validateIPVSTimeout, validateIPVSExcludeCIDRs
        ipvs = cfg.get("ipvs") or {}
        ivp = f"{_PATH}.KubeProxyIPVSConfiguration"
        for key, name in (("tcpTimeout", "TCPTimeout"), ("tcpFinTimeout", "TCPFinTimeout"),
                          ("udpTimeout", "UDPTimeout")):
            if ipvs.get(key) and parse_duration_seconds(ipvs[key]) < 0:
                errs.append(f"{ivp}.{name}: Invalid value: {ipvs[key]}: must be greater than or equal to 0")
        for i, c in enumerate(ipvs.get("excludeCIDRs") or ()):
            if parse_cidr_sloppy(c) is None or c != c.strip():
                errs.append(_invalid(f"{ivp}.ExcludeCidrs[{i}]", c, "must be a valid CIDR"))
    lin = f"{_PATH}.KubeProxyLinuxConfiguration"
    ctp = f"{lin}.KubeProxyConntrackConfiguration"
    for key, name in (("maxPerCore", "MaxPerCore"), ("min", "Min")):
        if ct.get(key) is not None and ct[key] < 0:
            errs.append(_invalid(f"{ctp}.{name}", ct[key], "must be greater than or equal to 0"))
    for key, name in (("tcpEstablishedTimeout", "TCPEstablishedTimeout"), ("tcpCloseWaitTimeout",
                                                                           "TCPCloseWaitTimeout"),
                      ("udpTimeout", "UDPTimeout"), ("udpStreamTimeout", "UDPStreamTimeout")):
        if ct.get(key) and parse_duration_seconds(ct[key]) < 0:
            errs.append(f"{ctp}.{name}: Invalid value: {ct[key]}: must be greater than or equal to 0")
    oom = cfg.get("oomScoreAdj")
    if oom is not None and not -1000 <= oom <= 1000:
        errs.append(_invalid(f"{lin}.OOMScoreAdj", oom, "must be within the range [-1000, 1000]"))
    if mode not in PROXY_MODES and mode != "":
        errs.append(_invalid(f"{_PATH}.Mode.ProxyMode", mode, "must be iptables, ipvs, nftables or blank "
                                                              "(blank means the best-available proxy "
                                                              "[currently iptables])"))
    sync = {"ipvs": cfg.get("ipvs") or {}, "nftables": nft}.get(mode, ipt)
    sync_s, min_s = parse_duration_seconds(sync.get("syncPeriod") or "0s"), \
        parse_duration_seconds(sync.get("minSyncPeriod") or "0s")
    if sync_s <= 0:
        errs.append(f"{_PATH}.SyncPeriod: Invalid value: {sync.get('syncPeriod')}: must be greater than 0")
    if min_s < 0:
        errs.append(f"{_PATH}.MinSyncPeriod: Invalid value: {sync.get('minSyncPeriod')}: "
                    "must be greater than or equal to 0")
    if min_s > sync_s:
        errs.append(f"{_PATH}.SyncPeriod: Invalid value: {sync.get('minSyncPeriod')}: "
                    f"must be greater than or equal to {_PATH}.MinSyncPeriod")
    bind = cfg.get("bindAddress") or ""
    if parse_ip_sloppy(bind) is None or bind != bind.strip():
        errs.append(_invalid(f"{_PATH}.BindAddress", bind, "not a valid textual representation of an IP address"))
    addrs = list(cfg.get("nodePortAddresses") or [])
    for i, a in enumerate(addrs):
        if a == NODE_PORT_ADDRESSES_PRIMARY:
            if i != 0 or len(addrs) != 1:
                errs.append(_invalid(f"{_PATH}.NodePortAddresses[{i}]", a, "can't use both 'primary' and CIDRs"))
            break
        if parse_cidr_sloppy(a) is None or a != a.strip():
            errs.append(_invalid(f"{_PATH}.NodePortAddresses[{i}]", a, "must be a valid CIDR"))
    local_mode = cfg.get("detectLocalMode") or ""
    if local_mode not in LOCAL_MODES:
        supported = ", ".join(_show(m) for m in LOCAL_MODES)
        errs.append(f"{_PATH}.DetectLocalMode: Unsupported value: {_show(local_mode)}: "
                    f"supported values: {supported}")
    det = cfg.get("detectLocal") or {}
    dlp = f"{_PATH}.DetectLocalConfiguration"
    if local_mode == "BridgeInterface" and not det.get("bridgeInterface"):
        errs.append(_invalid(f"{dlp}.InterfaceName", "", "must not be empty"))
    if local_mode == "InterfaceNamePrefix" and not det.get("interfaceNamePrefix"):
        errs.append(_invalid(f"{dlp}.InterfacePrefix", "", "must not be empty"))
    if local_mode == "ClusterCIDR" and cfg.get("clusterCIDR"):
        errs.extend(_validate_dual_stack_cidrs(cfg["clusterCIDR"].split(","), f"{dlp}.ClusterCIDRs"))
    return errs


# ---------------------------------------------------------------------------
# What the proxier gets


@dataclass(frozen=True)
class ProxierSettings:
    """What ``NewProxier`` of one IP family gets from the configuration.

    Attributes
    ----------
    mode : str
    masquerade_all : bool
        ``Linux.MasqueradeAll`` (``nftables.masqueradeAll`` in nftables mode, else ``iptables.masqueradeAll``).
    masquerade_bit : int
        ``nftables.masqueradeBit`` in nftables mode, else ``iptables.masqueradeBit`` (ipvs uses the latter).
    local_detector : LocalTrafficDetector
    node_port_addresses : tuple[str, ...]
        ``nodePortAddresses`` after the platform defaults (``("primary",)`` in nftables mode
        when unset; ``()`` means every local address).
    localhost_node_ports : bool
        ``iptables.localhostNodePorts`` (iptables mode, IPv4 only), false when the
        node-port addresses leave out 127.0.0.1 (``ContainsIPv4Loopback``).
    detect_local_mode : str
    ipvs_scheduler : str
        ``ipvs.scheduler``, ``rr`` when empty (``NewProxier``).
    ipvs_strict_arp : bool
        ``ipvs.strictARP``: kube-proxy sets ``arp_ignore=1`` and ``arp_announce=2``.
    ipvs_exclude_cidrs : tuple[str, ...]
        ``ipvs.excludeCIDRs`` of the proxier's family (``filterCIDRs``).

    Examples
    --------
    >>> s = proxier_settings(platform_apply_defaults(set_defaults({"mode": "nftables", "clusterCIDR": "10.0.0.0/8"})),
    ...                      version=4)
    >>> s.node_port_addresses, " ".join(s.local_detector.if_not_local_nft), s.masquerade_bit
    (('primary',), 'ip saddr != 10.0.0.0/8', 14)
    """

    mode: str
    masquerade_all: bool
    masquerade_bit: int
    local_detector: LocalTrafficDetector
    node_port_addresses: tuple[str, ...]
    localhost_node_ports: bool
    detect_local_mode: str = "ClusterCIDR"
    ipvs_scheduler: str = "rr"
    ipvs_strict_arp: bool = False
    ipvs_exclude_cidrs: tuple[str, ...] = ()


def _contains_ipv4_loopback(addresses: Sequence[str]) -> bool:
    if not addresses:
        return True  # MatchAll
    if list(addresses) == [NODE_PORT_ADDRESSES_PRIMARY]:
        return False
    for a in addresses:
        net = parse_cidr_sloppy(a)
        if net is not None and net.version == 4 and parse_ip_sloppy("127.0.0.1") in net:
            return True
    return False


def proxier_settings(cfg: dict, *, version: int = 4, node_pod_cidrs: Iterable[str] = ()) -> ProxierSettings:
    """The settings a single-stack proxier of IP ``version`` runs with (``newProxyServer`` / ``createProxier``).

    Parameters
    ----------
    cfg : dict
        Defaulted and validated (see :func:`validate`).
    version : {4, 6}
        The proxier's family (the node's primary one).
    node_pod_cidrs : iterable of str
        The Node's ``spec.podCIDRs`` (``detectLocalMode: NodeCIDR``).

    Returns
    -------
    ProxierSettings
    """
    mode = cfg.get("mode") or "iptables"
    section = (cfg.get("nftables") if mode == "nftables" else cfg.get("iptables")) or {}
    det = cfg.get("detectLocal") or {}
    detector = LocalTrafficDetector.for_family(
        cfg.get("detectLocalMode") or "ClusterCIDR", version,
        cluster_cidrs=(cfg.get("clusterCIDR") or "").split(","), node_pod_cidrs=node_pod_cidrs,
        bridge_interface=det.get("bridgeInterface") or "", interface_name_prefix=det.get("interfaceNamePrefix") or "")
    npa = tuple(cfg.get("nodePortAddresses") or ())
    localhost = bool((cfg.get("iptables") or {}).get("localhostNodePorts", True)) and _contains_ipv4_loopback(npa)
    bit = section.get("masqueradeBit")
    ipvs = cfg.get("ipvs") or {}
    exclude = tuple(c for c in ipvs.get("excludeCIDRs") or ()
                    if (n := parse_cidr_sloppy(c)) is not None and n.version == version)
    return ProxierSettings(mode=mode, masquerade_all=bool(section.get("masqueradeAll")),
                           masquerade_bit=14 if bit is None else int(bit), local_detector=detector,
                           node_port_addresses=npa, localhost_node_ports=localhost,
                           detect_local_mode=cfg.get("detectLocalMode") or "ClusterCIDR",
                           ipvs_scheduler=ipvs.get("scheduler") or "rr", ipvs_strict_arp=bool(ipvs.get("strictARP")),
                           ipvs_exclude_cidrs=exclude)


def conntrack_sysctls(cfg: dict, num_cpus: int, *, mode: str | None = None) -> dict[str, int]:
    """The sysctls kube-proxy sets at start (``setupConntrack``, and route_localnet for localhost NodePorts).

    Parameters
    ----------
    cfg : dict
        Defaulted configuration.
    num_cpus : int
        The node's CPUs (``runtime.NumCPU``): ``nf_conntrack_max`` is
        ``max(maxPerCore * num_cpus, min)``, unless ``maxPerCore`` is 0 (left as is).
    mode : str, optional
        Overrides ``cfg["mode"]`` (``route_localnet`` is set by the iptables proxier only; the
        IPVS proxier sets ``net.ipv4.vs.conntrack``, ``expire_nodest_conn``,
        ``expire_quiescent_template``, ``ip_forward`` and, with ``ipvs.strictARP``,
        ``arp_ignore=1`` / ``arp_announce=2``).

    Returns
    -------
    dict[str, int]
        sysctl name (dotted) -> value; the module parameter ``hashsize`` appears as
        ``/sys/module/nf_conntrack/parameters/hashsize`` (``max / 4``), as ``SetMax`` writes it.
        Timeouts in seconds; zero durations are left out (kube-proxy leaves those as they are).

    Examples
    --------
    >>> s = conntrack_sysctls(set_defaults({}), num_cpus=2)
    >>> s["net.netfilter.nf_conntrack_max"], s["net.netfilter.nf_conntrack_tcp_timeout_established"]
    (131072, 86400)
    >>> conntrack_sysctls(set_defaults({}), num_cpus=8)["net.netfilter.nf_conntrack_max"]
    262144
    """
    ct = cfg.get("conntrack") or {}
    out: dict[str, int] = {}
    per_core = ct.get("maxPerCore")
    if per_core:
        floor = int(ct.get("min") or 0)
        scaled = int(per_core) * max(1, int(num_cpus))
        maximum = scaled if scaled > floor else floor
        if maximum > 0:
            out["net.netfilter.nf_conntrack_max"] = maximum
            out["/sys/module/nf_conntrack/parameters/hashsize"] = maximum // 4
    for key, name in (("tcpEstablishedTimeout", "nf_conntrack_tcp_timeout_established"),
                      ("tcpCloseWaitTimeout", "nf_conntrack_tcp_timeout_close_wait"),
                      ("udpTimeout", "nf_conntrack_udp_timeout"),
                      ("udpStreamTimeout", "nf_conntrack_udp_timeout_stream")):
        seconds = int(parse_duration_seconds(ct.get(key) or "0s"))
        if seconds > 0:
            out[f"net.netfilter.{name}"] = seconds
    if ct.get("tcpBeLiberal"):
        out["net.netfilter.nf_conntrack_tcp_be_liberal"] = 1
    mode = mode or cfg.get("mode") or "iptables"
    if mode == "iptables" and proxier_settings(cfg).localhost_node_ports:
        out["net.ipv4.conf.all.route_localnet"] = 1
    if mode == "ipvs":  # the IPVS proxier's NewProxier (conn_reuse_mode is left as is on kernels >= 5.9)
        out["net.ipv4.vs.conntrack"] = 1
        out["net.ipv4.vs.expire_nodest_conn"] = 1
        out["net.ipv4.vs.expire_quiescent_template"] = 1
        out["net.ipv4.ip_forward"] = 1
        if (cfg.get("ipvs") or {}).get("strictARP"):
            out["net.ipv4.conf.all.arp_ignore"] = 1
            out["net.ipv4.conf.all.arp_announce"] = 2
    return out


def ipvs_timeouts(cfg: dict) -> tuple[int, int, int] | None:
    """The IPVS connection timeouts kube-proxy sets at start (``ipvsadm --set TCP TCPFIN UDP``), or None.

    ``NewProxier`` calls ``ConfigureTimeouts`` only when one of ``ipvs.tcpTimeout``,
    ``tcpFinTimeout``, ``udpTimeout`` is above zero; a zero one keeps the kernel's value
    (as ``ipvsadm --set`` does with 0).

    Parameters
    ----------
    cfg : dict
        Defaulted configuration.

    Returns
    -------
    tuple of int or None
        (tcp, tcpfin, udp) in whole seconds.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/proxy/ipvs/proxier.go (NewProxier), pkg/proxy/ipvs/util/ipvs_linux.go
    (ConfigureTimeouts)

    Examples
    --------
    >>> ipvs_timeouts(set_defaults({"ipvs": {"tcpTimeout": "15m", "udpTimeout": "5m"}}))
    (900, 0, 300)
    >>> ipvs_timeouts(set_defaults({})) is None
    True
    """
    ipvs = cfg.get("ipvs") or {}
    values = tuple(int(parse_duration_seconds(ipvs.get(k) or "0s")) for k in ("tcpTimeout", "tcpFinTimeout",
                                                                               "udpTimeout"))
    return values if any(v > 0 for v in values) else None


def service_cidrs_of(objects: Iterable[dict]) -> list[str] | None:
    """The service CIDRs kube-proxy learns from ServiceCIDR objects (``OnServiceCIDRsChanged``), None if there are none.

    ServiceCIDRs are ``networking.k8s.io/v1`` (GA in v1.33); the API server creates the one
    named ``kubernetes`` from ``--service-cluster-ip-range``. Objects are read in name order.

    Examples
    --------
    >>> service_cidrs_of([{"kind": "ServiceCIDR", "metadata": {"name": "kubernetes"},
    ...                    "spec": {"cidrs": ["10.96.0.0/12", "fd00:10:96::/112"]}},
    ...                   {"kind": "ServiceCIDR", "metadata": {"name": "extra"}, "spec": {"cidrs": ["10.100.0.0/16"]}}])
    ['10.100.0.0/16', '10.96.0.0/12', 'fd00:10:96::/112']
    >>> service_cidrs_of([]) is None
    True
    """
    found = sorted((o for o in objects if o.get("kind") == "ServiceCIDR"),
                   key=lambda o: (o.get("metadata") or {}).get("name") or "")
    if not found:
        return None
    out = []
    for o in found:
        for c in (o.get("spec") or {}).get("cidrs") or ():
            net = parse_cidr_sloppy(c)
            if net is not None:
                out.append(str(net))
    return out

