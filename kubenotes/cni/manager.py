"""The container runtime's CNI layer: read ``/etc/cni/net.d``, run the plugin chain per pod sandbox.

Mirrors what containerd's CRI plugin does through go-cni and libcni when the kubelet calls
``RunPodSandbox`` / ``StopPodSandbox``:

* the network config is the first file (lexical order) in ``/etc/cni/net.d`` ending in
  ``.conflist``, ``.conf`` or ``.json``; a single ``.conf`` becomes a one-plugin list;
* go-cni first attaches the loopback network (``cni-loopback``: one ``loopback`` plugin,
  interface ``lo``), then the default network on ``eth0``;
* ``CNI_ARGS`` carries ``IgnoreUnknown=1``, ``K8S_POD_NAMESPACE``, ``K8S_POD_NAME``,
  ``K8S_POD_INFRA_CONTAINER_ID`` and ``K8S_POD_UID``; the capability arguments
  ``portMappings`` (the pod's ``hostPort``\\ s) and ``bandwidth`` (from the
  ``kubernetes.io/ingress-bandwidth`` / ``egress-bandwidth`` annotations) reach only the
  plugins that declare the capability;
* libcni's ``AddNetworkList`` runs the plugins in order, each getting the previous
  plugin's result as ``prevResult``, and caches the final result in
  ``/var/lib/cni/results/<network>-<containerID>-<ifname>``; ``DelNetworkList`` runs them
  in *reverse* order with the cached result as ``prevResult``; ``CheckNetworkList`` runs
  them in order with the cached result (skipped with ``disableCheck``);
* a failed ADD makes the runtime tear the sandbox's network down again.

Every plugin call is recorded in :attr:`CNIManager.trace` (network, plugin type, command,
environment, stdin, stdout, exit code) so a notebook can show the conversation.

References
----------
containerd/containerd@v2.1.0 internal/cri/server/sandbox_run.go (setupPodNetwork, toCNILabels,
toCNIBandWidth, toCNIPortMappings), containerd/go-cni@v1.1.12 cni.go, namespace.go, opts.go
containernetworking/cni@v1.3.0 libcni/api.go (AddNetworkList, DelNetworkList, CheckNetworkList,
GetStatusNetworkList, buildOneConfig, cachedInfo), libcni/conf.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/network/... (bandwidth annotations, as vendored by containerd)
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from kubenotes.api.quantity import value as quantity_value
from kubenotes.cni.netns import Host
from kubenotes.cni.spec import (
    ADD,
    CHECK,
    DEL,
    GC,
    STATUS,
    CNIEnv,
    CNIError,
    NetworkConfigList,
    build_one_config,
    lookup_plugin,
    parse_config_list,
    run_plugin,
    version_supports,
)
from kubenotes.errors import ConfigError

__all__ = [
    "DEFAULT_NET_DIR",
    "DEFAULT_BIN_DIR",
    "RESULT_CACHE_DIR",
    "LOOPBACK_CONFLIST",
    "INGRESS_BANDWIDTH_ANNOTATION",
    "EGRESS_BANDWIDTH_ANNOTATION",
    "MSG_CNI_NOT_INITIALIZED",
    "default_conflist",
    "load_conflist_dir",
    "cni_labels",
    "bandwidth_from_annotations",
    "port_mappings_from_pod",
    "pod_ips",
    "port_mappings_from_cri",
    "CNIManager",
]

#: Where the runtime looks for network configs.
DEFAULT_NET_DIR = "/etc/cni/net.d"
#: Where the plugin binaries live (``CNI_PATH``).
DEFAULT_BIN_DIR = "/opt/cni/bin"
#: libcni's result cache directory.
RESULT_CACHE_DIR = "/var/lib/cni/results"
#: go-cni's loopback network (``WithLoNetwork``).
LOOPBACK_CONFLIST: dict = {"cniVersion": "0.3.1", "name": "cni-loopback", "plugins": [{"type": "loopback"}]}
INGRESS_BANDWIDTH_ANNOTATION = "kubernetes.io/ingress-bandwidth"
EGRESS_BANDWIDTH_ANNOTATION = "kubernetes.io/egress-bandwidth"
#: go-cni's ``ErrCNINotInitialized`` text, which the kubelet shows in the node's Ready condition.
MSG_CNI_NOT_INITIALIZED = "cni plugin not initialized"
_MAX_UINT32 = 2 ** 32 - 1


def default_conflist(pod_cidr: str, *, name: str = "cbr0", mtu: int = 1500) -> dict:
    """A typical bridge + host-local + portmap + bandwidth conflist for a node's podCIDR.

    The shape of containerd's ``10-containerd-net.conflist`` example (``isGateway``,
    ``ipMasq``, ``promiscMode``, ``host-local`` ranges with a default route, ``portmap``
    with the ``portMappings`` capability) plus ``bandwidth``; go-cni adds the loopback
    network itself (:data:`LOOPBACK_CONFLIST`).

    Parameters
    ----------
    pod_cidr : str
        The node's ``spec.podCIDR`` (``10.244.1.0/24``); an IPv6 CIDR gets ``::/0``.
    name : str
        The network name (also host-local's directory under ``/var/lib/cni/networks``).
    mtu : int
        Bytes, for the bridge and veths.

    Returns
    -------
    dict
        A conflist (``cniVersion`` 1.0.0): ``bridge`` with ``host-local``
        IPAM, ``portmap``, ``bandwidth``.

    Raises
    ------
    TypeError
        When ``pod_cidr`` is not a string (it is searched for ``:``); the
        CIDR itself is not checked here (``host-local`` rejects a bad one at ADD).

    See Also
    --------
    CNIManager : runs the chain this describes.
    kubenotes.cni.calico.plugin.calico_conflist : Calico's instead.

    Notes
    -----
    The kubelet no longer writes a CNI config (kubenet is gone); a cluster's
    network add-on or the node's installer does. This one stands in for a
    node set up with containerd's example config.

    References
    ----------
    containerd/containerd@v2.1.0 script/setup/install-cni (10-containerd-net.conflist)

    Examples
    --------
    >>> c = default_conflist("10.244.1.0/24")
    >>> [p["type"] for p in c["plugins"]], c["plugins"][0]["ipam"]["ranges"]
    (['bridge', 'portmap', 'bandwidth'], [[{'subnet': '10.244.1.0/24'}]])
    """
    default = "::/0" if ":" in pod_cidr else "0.0.0.0/0"
    return {
        "cniVersion": "1.0.0",
        "name": name,
        "plugins": [
            {"type": "bridge", "bridge": "cni0", "isGateway": True, "ipMasq": True, "promiscMode": True,
             "mtu": mtu,
             "ipam": {"type": "host-local", "ranges": [[{"subnet": pod_cidr}]], "routes": [{"dst": default}]}},
            {"type": "portmap", "capabilities": {"portMappings": True}},
            {"type": "bandwidth", "capabilities": {"bandwidth": True}},
        ],
    }


def load_conflist_dir(net_dir: str | os.PathLike = DEFAULT_NET_DIR) -> NetworkConfigList:
    """The network config the runtime uses: the first ``.conflist``/``.conf``/``.json`` in ``net_dir``.

    Raises
    ------
    kubenotes.errors.ConfigError
        One line naming the file: no config found, invalid JSON, or libcni's validation message.
    """
    files = sorted(p for p in Path(net_dir).glob("*") if p.suffix in (".conflist", ".conf", ".json"))
    if not files:
        raise ConfigError(f"{net_dir}: no network config found in {net_dir}")
    path = files[0]
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: invalid JSON: {e.msg} (line {e.lineno})") from None
    if path.suffix != ".conflist" and "plugins" not in data:
        if not data.get("type"):
            raise ConfigError(f"{path}: error parsing configuration: missing 'type'")
        data = {"cniVersion": data.get("cniVersion", ""), "name": data.get("name", ""), "plugins": [data]}
    try:
        return parse_config_list(data)
    except CNIError as e:
        raise ConfigError(f"{path}: {e}") from None


def cni_labels(sandbox_id: str, name: str, namespace: str, uid: str = "") -> list[tuple[str, str]]:
    """The ``CNI_ARGS`` pairs containerd passes (``toCNILabels``), in a fixed (sorted) order.

    Examples
    --------
    >>> ";".join(f"{k}={v}" for k, v in cni_labels("abc", "web", "default", "u1"))
    'IgnoreUnknown=1;K8S_POD_INFRA_CONTAINER_ID=abc;K8S_POD_NAME=web;K8S_POD_NAMESPACE=default;K8S_POD_UID=u1'
    """
    labels = {"K8S_POD_NAMESPACE": namespace, "K8S_POD_NAME": name, "K8S_POD_INFRA_CONTAINER_ID": sandbox_id,
              "K8S_POD_UID": uid, "IgnoreUnknown": "1"}
    return sorted(labels.items())


def _reasonable(annotation: str, raw: str) -> int:
    try:
        v = quantity_value(raw, f"metadata.annotations[{annotation}]")
    except Exception as e:  # kubenotes.errors.InvalidQuantity
        raise ConfigError(f"reading pod bandwidth annotations: {e}") from None
    if v < 1000:
        raise ConfigError("reading pod bandwidth annotations: resource is unreasonably small (< 1kbit)")
    if v > 10 ** 15:
        raise ConfigError("reading pod bandwidth annotations: resource is unreasonably large (> 1Pbit)")
    return v


def bandwidth_from_annotations(annotations: Mapping[str, str] | None) -> dict | None:
    """The ``bandwidth`` capability argument from a pod's annotations (containerd's ``toCNIBandWidth``).

    Rates are the annotation quantities in bits per second; bursts are ``math.MaxUint32`` bits.

    Raises
    ------
    kubenotes.errors.ConfigError
        ``reading pod bandwidth annotations: resource is unreasonably small (< 1kbit)`` (or large,
        > 1Pbit), or an invalid quantity.

    Examples
    --------
    >>> bandwidth_from_annotations({"kubernetes.io/ingress-bandwidth": "10M"})
    {'ingressRate': 10000000, 'ingressBurst': 4294967295}
    >>> bandwidth_from_annotations({}) is None
    True
    """
    annotations = annotations or {}
    out: dict[str, int] = {}
    if INGRESS_BANDWIDTH_ANNOTATION in annotations:
        out["ingressRate"] = _reasonable(INGRESS_BANDWIDTH_ANNOTATION, annotations[INGRESS_BANDWIDTH_ANNOTATION])
        out["ingressBurst"] = _MAX_UINT32
    if EGRESS_BANDWIDTH_ANNOTATION in annotations:
        out["egressRate"] = _reasonable(EGRESS_BANDWIDTH_ANNOTATION, annotations[EGRESS_BANDWIDTH_ANNOTATION])
        out["egressBurst"] = _MAX_UINT32
    return out or None


def port_mappings_from_pod(pod: Mapping[str, Any]) -> list[dict]:
    """The ``portMappings`` capability argument: every container port with a ``hostPort`` (``toCNIPortMappings``).

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"ports": [{"containerPort": 80, "hostPort": 8080},
    ...                                           {"containerPort": 53, "protocol": "UDP"}]}]}}
    >>> port_mappings_from_pod(pod)
    [{'hostPort': 8080, 'containerPort': 80, 'protocol': 'tcp', 'hostIP': ''}]
    """
    out = []
    for c in (pod.get("spec") or {}).get("containers") or []:
        for p in c.get("ports") or []:
            if int(p.get("hostPort") or 0) <= 0:
                continue
            out.append({"hostPort": int(p["hostPort"]), "containerPort": int(p["containerPort"]),
                        "protocol": (p.get("protocol") or "TCP").lower(), "hostIP": p.get("hostIP", "")})
    return out


def port_mappings_from_cri(config: Mapping[str, Any]) -> list[dict]:
    """``portMappings`` from a CRI ``PodSandboxConfig`` (``port_mappings``: protocol, container_port, host_port, host_ip).

    Mappings without a host port are skipped and the protocol lower-cased, as containerd's
    ``toCNIPortMappings`` does.

    Examples
    --------
    >>> port_mappings_from_cri({"port_mappings": [{"protocol": "TCP", "container_port": 80, "host_port": 8080},
    ...                                           {"protocol": "UDP", "container_port": 53}]})
    [{'hostPort': 8080, 'containerPort': 80, 'protocol': 'tcp', 'hostIP': ''}]
    """
    out = []
    for p in config.get("port_mappings") or []:
        if int(p.get("host_port") or 0) <= 0:
            continue
        out.append({"hostPort": int(p["host_port"]), "containerPort": int(p.get("container_port") or 0),
                    "protocol": str(p.get("protocol") or "TCP").lower(), "hostIP": p.get("host_ip", "")})
    return out


def pod_ips(result: Mapping[str, Any]) -> list[str]:
    """The pod's addresses (without prefix length) from a CNI result, as the runtime reports them.

    Parameters
    ----------
    result : dict
        A CNI result (``{"ips": [{"address": "10.244.1.2/24", ...}], ...}``),
        e.g. what :meth:`CNIManager.setup_pod_network` returns.

    Returns
    -------
    list of str
        The addresses in result order (the first is the pod's ``status.podIP``);
        empty when the result has no ``ips``.

    Raises
    ------
    KeyError
        When an ``ips`` entry has no ``address``.

    Notes
    -----
    containerd takes the IPs of the result's ``eth0`` interface and orders
    them by its ``ip_pref`` setting (IPv4 first by default) before the
    kubelet reports them as ``podIPs``; here the result's order is kept and
    no interface is filtered out.

    References
    ----------
    containerd/containerd@v2.1.0 internal/cri/server/sandbox_run.go (selectPodIPs)

    Examples
    --------
    >>> pod_ips({"ips": [{"address": "10.244.1.2/24"}, {"address": "fd00::2/64"}]})
    ['10.244.1.2', 'fd00::2']
    """
    return [ip["address"].split("/")[0] for ip in result.get("ips") or []]


def _runtime_capabilities(port_mappings: Iterable[Mapping[str, Any]], bandwidth: Mapping[str, Any] | None) -> dict:
    """The ``runtimeConfig`` capabilities a pod brings (libcni's ``CapabilityArgs``): port mappings, bandwidth."""
    caps: dict[str, Any] = {}
    pms = [dict(p) for p in port_mappings]
    if pms:
        caps["portMappings"] = pms
    if bandwidth:
        caps["bandwidth"] = dict(bandwidth)
    return caps


class CNIManager:
    """A node's runtime-side CNI: set up and tear down pod networks by running the plugin chain.

    Parameters
    ----------
    node_name : str
    conflist : dict, str or NetworkConfigList
        The default network (e.g. :func:`default_conflist`).
    host : kubenotes.cni.netns.Host, optional
        The node's network state (a new one by default).
    bin_dir : str
        ``CNI_PATH``.
    loopback : bool
        Attach go-cni's loopback network first (as containerd does).
    plugins : mapping of str to plugin, optional
        Binaries a network add-on installed in this node's ``CNI_PATH``, found before the
        registered ones (:func:`kubenotes.cni.spec.lookup_plugin`); e.g.
        :func:`kubenotes.cni.calico.plugin.calico_plugins` for a cluster's Calico.

    Attributes
    ----------
    trace : list of dict
        Every plugin call: ``{"network", "type", "command", "env", "stdin", "stdout", "exitCode"}``.

    Returns
    -------
    CNIManager
        Holding the parsed ``network`` (a :class:`NetworkConfigList`, or None:
        every call then fails with ``cni plugin not initialized``), the
        ``host`` and the ``trace``.

    Raises
    ------
    CNIError
        From the constructor, when ``conflist`` does not parse (see
        :func:`kubenotes.cni.spec.parse_config_list`: invalid JSON, no name,
        no ``plugins``). Later, the plugins' errors propagate from
        :meth:`setup_pod_network`, after the network is torn down again.

    See Also
    --------
    default_conflist, pod_ips
    kubenotes.cni.spec.register_plugin : how a plugin type becomes runnable.

    Notes
    -----
    The config is given, not read from ``/etc/cni/net.d`` (no file watch, no
    reload); plugins are Python models run in-process, each call recorded
    with the environment and stdin a binary would get.

    References
    ----------
    containerd/go-cni@v1.1.12 cni.go (Setup, Remove)
    containernetworking/cni@v1.3.0 libcni/api.go (AddNetworkList, DelNetworkList)

    Examples
    --------
    >>> m = CNIManager("node-1", default_conflist("10.244.1.0/24"))
    >>> r = m.setup_pod_network("default", "web", "sb1", "/var/run/netns/cni-1")
    >>> pod_ips(r), [(t["type"], t["command"]) for t in m.trace]
    (['10.244.1.2'], [('loopback', 'ADD'), ('bridge', 'ADD'), ('portmap', 'ADD'), ('bandwidth', 'ADD')])
    >>> m.teardown_pod_network("default", "web", "sb1", "/var/run/netns/cni-1")
    >>> [t["type"] for t in m.trace[4:]]
    ['bandwidth', 'portmap', 'bridge', 'loopback']
    """

    def __init__(self, node_name: str, conflist: Mapping[str, Any] | str | NetworkConfigList | None, *,
                 host: Host | None = None, bin_dir: str = DEFAULT_BIN_DIR, loopback: bool = True,
                 plugins: Mapping[str, Any] | None = None):
        self.node_name = node_name
        self.plugins = dict(plugins or {})
        self.host = host if host is not None else Host(node_name)
        self.bin_dir = bin_dir
        self.network: NetworkConfigList | None = (
            conflist if isinstance(conflist, NetworkConfigList) or conflist is None else parse_config_list(conflist))
        self.loopback = parse_config_list(LOOPBACK_CONFLIST) if loopback else None
        self.trace: list[dict] = []

    # -------------------------------------------------------------- helpers

    def _networks(self) -> list[tuple[NetworkConfigList, str]]:
        if self.network is None:
            raise CNIError(0, MSG_CNI_NOT_INITIALIZED)
        nets = [(self.loopback, "lo")] if self.loopback is not None else []
        return nets + [(self.network, "eth0")]

    def _cache_path(self, net: NetworkConfigList, sandbox_id: str, ifname: str) -> str:
        return f"{RESULT_CACHE_DIR}/{net.name}-{sandbox_id}-{ifname}"

    def _invoke(self, net: NetworkConfigList, index: int, command: str, env: CNIEnv, *,
                prev_result: dict | None, capability_args: Mapping[str, Any]) -> dict | None:
        conf = build_one_config(net, index, prev_result=prev_result, capability_args=capability_args)
        plugin_type = conf["type"]
        stdin = json.dumps(conf)
        delegated: list = []
        out = run_plugin(plugin_type, CNIEnv(command, env.container_id, env.netns, env.ifname, env.args, env.path),
                         stdin, host=self.host, trace=delegated, plugins=self.plugins)
        self.trace.append({"network": net.name, "type": plugin_type, "command": command,
                           "env": CNIEnv(command, env.container_id, env.netns, env.ifname, env.args,
                                         env.path).to_environ(),
                           "stdin": conf, "stdout": out.stdout, "exitCode": out.exit_code,
                           "delegated": delegated})
        if out.error is not None:
            verb = {ADD: "add", DEL: "delete", CHECK: "check", STATUS: "status", GC: "gc"}.get(command, command.lower())
            raise CNIError(out.error.code,
                           f'plugin type="{plugin_type}" name="{net.name}" failed ({verb}): {out.error.msg}',
                           out.error.details)
        return out.result

    def _env(self, namespace: str, name: str, sandbox_id: str, netns_path: str, ifname: str,
             uid: str = "") -> CNIEnv:
        args = ";".join(f"{k}={v}" for k, v in cni_labels(sandbox_id, name, namespace, uid))
        return CNIEnv(ADD, sandbox_id, netns_path, ifname, args, self.bin_dir)

    # -------------------------------------------------------------- the runtime's operations

    def setup_pod_network(self, namespace: str, name: str, sandbox_id: str, netns_path: str, *,
                          port_mappings: Iterable[Mapping[str, Any]] = (), bandwidth: Mapping[str, int] | None = None,
                          uid: str = "") -> dict:
        """Attach a sandbox to the networks (go-cni ``Setup``): loopback on ``lo``, the default network on ``eth0``.

        Parameters
        ----------
        namespace, name : str
            The pod's namespace and name (for ``CNI_ARGS``).
        sandbox_id : str
            ``CNI_CONTAINERID``.
        netns_path : str
            ``CNI_NETNS``; created in :attr:`host` if missing (the runtime creates it before CNI).
        port_mappings : iterable of dict
            ``{"hostPort", "containerPort", "protocol", "hostIP"}`` (see :func:`port_mappings_from_pod`).
        bandwidth : dict, optional
            ``{"ingressRate", "ingressBurst", "egressRate", "egressBurst"}`` (see
            :func:`bandwidth_from_annotations`).
        uid : str
            The pod's UID.

        Returns
        -------
        dict
            The default network's CNI result (the last plugin's output).

        Raises
        ------
        CNIError
            ``plugin type="X" name="N" failed (add): ...`` with the plugin's code; the sandbox's
            network has been torn down again (as containerd's deferred cleanup does).
        """
        if netns_path not in self.host.namespaces:
            self.host.add_netns(netns_path)
        caps = _runtime_capabilities(port_mappings, bandwidth)
        result: dict = {}
        try:
            for net, ifname in self._networks():
                env = self._env(namespace, name, sandbox_id, netns_path, ifname, uid)
                prev = None
                for i in range(len(net.plugins)):
                    prev = self._invoke(net, i, ADD, env, prev_result=prev, capability_args=caps)
                result = prev or {}
                self._cache(net, env, result, caps)
        except CNIError:
            self.teardown_pod_network(namespace, name, sandbox_id, netns_path,
                                      port_mappings=caps.get("portMappings", ()), bandwidth=bandwidth, uid=uid,
                                      ignore_errors=True)
            raise
        return result

    def _cache(self, net: NetworkConfigList, env: CNIEnv, result: dict, caps: Mapping[str, Any]) -> None:
        """Write libcni's ``cachedInfo`` (kind ``cniCacheV1``)."""
        info = {"kind": "cniCacheV1", "containerId": env.container_id,
                "config": base64.b64encode(json.dumps(net.raw).encode()).decode(), "ifName": env.ifname,
                "networkName": net.name, "netns": env.netns,
                "cniArgs": [p.split("=", 1) for p in env.args.split(";") if p],
                **({"capabilityArgs": dict(caps)} if caps else {}), "result": result}
        self.host.files[self._cache_path(net, env.container_id, env.ifname)] = json.dumps(info).encode()

    def cached_result(self, sandbox_id: str, ifname: str = "eth0", network: str | None = None) -> dict | None:
        """The cached result of a sandbox's attachment, or None."""
        name = network or (self.network.name if self.network else "")
        data = self.host.files.get(f"{RESULT_CACHE_DIR}/{name}-{sandbox_id}-{ifname}")
        return json.loads(data)["result"] if data else None

    def teardown_pod_network(self, namespace: str, name: str, sandbox_id: str, netns_path: str, *,
                             port_mappings: Iterable[Mapping[str, Any]] = (),
                             bandwidth: Mapping[str, int] | None = None, uid: str = "",
                             ignore_errors: bool = False) -> None:
        """Detach a sandbox (go-cni ``Remove``): networks in reverse, each list's plugins in reverse order.

        The cached ADD result is passed as ``prevResult`` (libcni does so for cniVersion >= 0.4.0)
        and the cache entry removed. DEL is idempotent: tearing down twice is fine.

        Raises
        ------
        CNIError
            ``plugin type="X" name="N" failed (delete): ...`` unless ``ignore_errors``.
        """
        caps = _runtime_capabilities(port_mappings, bandwidth)
        for net, ifname in reversed(self._networks()):
            env = self._env(namespace, name, sandbox_id, netns_path, ifname, uid)
            path = self._cache_path(net, sandbox_id, ifname)
            cached = json.loads(self.host.files[path])["result"] if path in self.host.files else None
            prev = cached if version_supports(net.cni_version or "0.1.0", CHECK) else None
            for i in reversed(range(len(net.plugins))):
                try:
                    self._invoke(net, i, DEL, env, prev_result=prev, capability_args=caps)
                except CNIError:
                    if not ignore_errors:
                        raise
            self.host.files.pop(path, None)

    def gc(self, valid_sandbox_ids: Iterable[str]) -> list[str]:
        """libcni ``GCNetworkList``: delete cached attachments of sandboxes no longer valid, then GC the plugins.

        Stale attachments (a result cached under ``/var/lib/cni/results`` for a sandbox not in
        ``valid_sandbox_ids``) are DELeted with their cached netns, CNI_ARGS and capability
        arguments. For cniVersion >= 1.1.0 each plugin then gets ``CNI_COMMAND=GC`` with
        ``cni.dev/valid-attachments``.

        Returns
        -------
        list of str
            ``failed to delete stale attachment <id> <ifname>: ...`` messages (empty on success).
        """
        valid = set(valid_sandbox_ids)
        errors: list[str] = []
        for net, ifname in reversed(self._networks()):
            prefix = f"{RESULT_CACHE_DIR}/{net.name}-"
            for path in sorted(p for p in self.host.files if p.startswith(prefix) and p.endswith(f"-{ifname}")):
                info = json.loads(self.host.files[path])
                if info["containerId"] in valid:
                    continue
                args = ";".join("=".join(pair) for pair in info.get("cniArgs") or [])
                env = CNIEnv(DEL, info["containerId"], info.get("netns", ""), ifname, args, self.bin_dir)
                prev = info.get("result") if version_supports(net.cni_version or "0.1.0", CHECK) else None
                try:
                    for i in reversed(range(len(net.plugins))):
                        self._invoke(net, i, DEL, env, prev_result=prev,
                                     capability_args=info.get("capabilityArgs") or {})
                    self.host.files.pop(path, None)
                except CNIError as e:
                    errors.append(f"failed to delete stale attachment {info['containerId']} {ifname}: {e}")
            if version_supports(net.cni_version or "0.1.0", GC):
                attachments = [{"containerID": sid, "ifname": ifname} for sid in sorted(valid)]
                for i in range(len(net.plugins)):
                    conf_net = NetworkConfigList(net.name, net.cni_version, tuple(
                        {**p, "cni.dev/valid-attachments": attachments} if j == i else p
                        for j, p in enumerate(net.plugins)), net.disable_check, net.disable_gc, net.raw)
                    try:
                        self._invoke(conf_net, i, GC, CNIEnv(GC, path=self.bin_dir), prev_result=None,
                                     capability_args={})
                    except CNIError as e:
                        errors.append(f"failed to GC plugin {net.plugins[i]['type']}: {e}")
        return errors

    def check_pod_network(self, namespace: str, name: str, sandbox_id: str, netns_path: str, *, uid: str = "") -> None:
        """libcni ``CheckNetworkList`` on the default network with the cached result (skipped with ``disableCheck``).

        Raises
        ------
        CNIError
            ``configuration version "X" does not support the CHECK command`` (below 0.4.0), a missing
            cache entry, or a plugin's CHECK failure.
        """
        net = self._networks()[-1][0]
        if net.disable_check:
            return
        if not version_supports(net.cni_version or "0.1.0", CHECK):
            raise CNIError(1, f'configuration version "{net.cni_version}" does not support the CHECK command')
        env = self._env(namespace, name, sandbox_id, netns_path, "eth0", uid)
        cached = self.cached_result(sandbox_id, "eth0", net.name)
        if cached is None:
            raise CNIError(3, f'failed to get network "{net.name}" cached result: no cached result')
        for i in range(len(net.plugins)):
            self._invoke(net, i, CHECK, env, prev_result=cached, capability_args={})

    def status(self) -> dict:
        """Whether the network is ready (go-cni ``Status`` + libcni ``GetStatusNetworkList``).

        Returns
        -------
        dict
            ``{"ready": bool, "message": str}``: not ready with ``cni plugin not initialized`` when
            no config is loaded or a plugin is unknown; for cniVersion >= 1.1.0 each plugin's
            STATUS is asked and its error (code 50/51) reported.

        Examples
        --------
        >>> CNIManager("n", None).status()
        {'ready': False, 'message': 'cni plugin not initialized'}
        """
        if self.network is None:
            return {"ready": False, "message": MSG_CNI_NOT_INITIALIZED}
        try:
            for p in self.network.plugins:
                lookup_plugin(p["type"], self.plugins)
            if version_supports(self.network.cni_version or "0.1.0", STATUS):
                env = CNIEnv(STATUS, path=self.bin_dir)
                for i in range(len(self.network.plugins)):
                    self._invoke(self.network, i, STATUS, env, prev_result=None, capability_args={})
        except CNIError as e:
            return {"ready": False, "message": f"{MSG_CNI_NOT_INITIALIZED}: {e}" if e.code == 999 else str(e)}
        return {"ready": True, "message": ""}

    def cri_hooks(self) -> tuple:
        """``(network_setup, network_teardown)`` callables for a CRI runtime model.

        Each takes a sandbox object with ``id``, ``netns`` and ``config`` (the CRI
        ``PodSandboxConfig`` dict: ``metadata`` {name, namespace, uid}, ``port_mappings``,
        ``annotations``); ``network_setup`` returns the pod's first IP, as containerd records it.

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> setup, teardown = CNIManager("node-1", default_conflist("10.244.1.0/24")).cri_hooks()
        >>> sb = SimpleNamespace(id="sb1", netns="/var/run/netns/cni-1", config={
        ...     "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
        ...     "annotations": {"kubernetes.io/ingress-bandwidth": "10M"}})
        >>> setup(sb)
        '10.244.1.2'
        >>> teardown(sb)
        """

        def _args(sb: Any) -> tuple[dict, dict]:
            config = getattr(sb, "config", None) or {}
            meta = config.get("metadata") or {}
            kw = {"port_mappings": port_mappings_from_cri(config),
                  "bandwidth": bandwidth_from_annotations(config.get("annotations")), "uid": meta.get("uid", "")}
            return meta, kw

        def network_setup(sb: Any) -> str:
            meta, kw = _args(sb)
            result = self.setup_pod_network(meta.get("namespace", ""), meta.get("name", ""), sb.id, sb.netns, **kw)
            ips = pod_ips(result)
            return ips[0] if ips else ""

        def network_teardown(sb: Any) -> None:
            meta, kw = _args(sb)
            self.teardown_pod_network(meta.get("namespace", ""), meta.get("name", ""), sb.id, sb.netns, **kw)

        return network_setup, network_teardown
