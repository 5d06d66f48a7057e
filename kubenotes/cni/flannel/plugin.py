"""The ``flannel`` CNI plugin: read ``subnet.env``, write a ``bridge`` config with ``host-local`` IPAM, delegate to it.

flannel's plugin does no networking itself. On ADD it reads
``/run/flannel/subnet.env`` (what flanneld wrote), fills the ``delegate``
dictionary of its config (kube-flannel.yml gives ``hairpinMode`` and
``isDefaultGateway``):

* ``name`` = the network's name, ``type`` = ``bridge`` unless given;
* ``ipMasq`` = the opposite of ``FLANNEL_IPMASQ`` (flanneld masquerades already);
* ``mtu`` = ``FLANNEL_MTU``; ``isGateway`` = true for a bridge; the config's ``cniVersion``;
* ``ipam``: ``host-local`` with one range, the node's subnet, and a route to each
  ``FLANNEL_NETWORK``;

saves that JSON (as Go marshals a map: keys sorted, no spaces) to
``/var/lib/cni/flannel/<container ID>`` and runs the delegate with it. DEL reads
the saved file back and delegates DEL with it. The bridge then writes the
node's state: ``cni0`` with the subnet's first address, the veth pair, the
pod's address and routes (:class:`kubenotes.cni.plugins.Bridge`).

References
----------
flannel-io/cni-plugin@v1.9.1-flannel1 flannel.go (loadFlannelSubnetEnv, cmdAdd, saveScratchNetConf, delegateAdd)
flannel-io/cni-plugin@v1.9.1-flannel1 flannel_linux.go (doCmdAdd, getDelegateIPAM, doCmdDel)
flannel-io/flannel@v0.28.9 Documentation/kube-flannel.yml (cni-conf.json)
"""

from __future__ import annotations

import json
from typing import Any

from kubenotes.cni.flannel.subnet import SUBNET_FILE, FlannelError, parse_subnet_env
from kubenotes.cni.spec import CNIError, CNIEnv, PluginCall, run_plugin

__all__ = ["DATA_DIR", "CONFLIST_NAME", "flannel_conflist", "delegate_config", "Flannel", "flannel_plugins"]

#: ``dataDir`` default: where the delegate configs are kept for DEL.
DATA_DIR = "/var/lib/cni/flannel"
#: The file kube-flannel's install-cni init container writes.
CONFLIST_NAME = "10-flannel.conflist"
_SUPPORTED = ("0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0")


def flannel_conflist() -> dict:
    """kube-flannel.yml's ``cni-conf.json``: ``flannel`` (delegate hairpinMode, isDefaultGateway) then ``portmap``.

    Examples
    --------
    >>> c = flannel_conflist(); c["name"], [p["type"] for p in c["plugins"]]
    ('cbr0', ['flannel', 'portmap'])
    """
    return {"name": "cbr0", "cniVersion": "0.3.1",
            "plugins": [{"type": "flannel", "delegate": {"hairpinMode": True, "isDefaultGateway": True}},
                        {"type": "portmap", "capabilities": {"portMappings": True}}]}


def _err(msg: str) -> CNIError:
    return CNIError(999, msg)


def delegate_config(conf: dict, subnet_env_text: str, path: str = SUBNET_FILE) -> dict:
    """The delegate config flannel writes for one ADD (``doCmdAdd`` + ``getDelegateIPAM``).

    Parameters
    ----------
    conf : dict
        The flannel plugin's network config (``name``, ``cniVersion``, ``delegate``, ``ipam``).
    subnet_env_text : str
        ``subnet.env``'s text.
    path : str
        Its path, for messages.

    Returns
    -------
    dict

    Raises
    ------
    FlannelError
        A malformed ``subnet.env`` or ``delegate`` dictionary (upstream's messages).

    Examples
    --------
    >>> env = "FLANNEL_NETWORK=10.244.0.0/16\\nFLANNEL_SUBNET=10.244.1.1/24\\nFLANNEL_MTU=1450\\nFLANNEL_IPMASQ=true\\n"
    >>> conf = {"name": "cbr0", "cniVersion": "0.3.1", "type": "flannel",
    ...         "delegate": {"hairpinMode": True, "isDefaultGateway": True}}
    >>> json.dumps(delegate_config(conf, env), sort_keys=True, separators=(",", ":"))
    '{"cniVersion":"0.3.1","hairpinMode":true,"ipMasq":false,"ipam":{"ranges":[[{"subnet":"10.244.1.0/24"}]],"routes":[{"dst":"10.244.0.0/16"}],"type":"host-local"},"isDefaultGateway":true,"isGateway":true,"mtu":1450,"name":"cbr0","type":"bridge"}'
    """
    fenv = parse_subnet_env(subnet_env_text, path)
    delegate = dict(conf.get("delegate") or {})
    if "type" in delegate and not isinstance(delegate["type"], str):
        raise FlannelError("'delegate' dictionary, if present, must have (string) 'type' field")
    if "name" in delegate:
        raise FlannelError("'delegate' dictionary must not have 'name' field, it'll be set by flannel")
    if "ipam" in delegate:
        raise FlannelError("'delegate' dictionary must not have 'ipam' field, it'll be set by flannel")
    delegate["name"] = conf.get("name", "")
    delegate.setdefault("type", "bridge")
    delegate.setdefault("ipMasq", not fenv["ipMasq"])
    delegate.setdefault("mtu", fenv["mtu"])
    if delegate["type"] == "bridge":
        delegate.setdefault("isGateway", True)
    if conf.get("cniVersion"):
        delegate["cniVersion"] = conf["cniVersion"]
    ipam = dict(conf.get("ipam") or {})
    ipam.setdefault("type", "host-local")
    ipam["ranges"] = [[{"subnet": fenv["subnet"]}]]
    ipam["routes"] = list(ipam.get("routes") or []) + [{"dst": n} for n in fenv["networks"]]
    delegate["ipam"] = ipam
    return delegate


class Flannel:
    """``flannel``: the CNI plugin model (see the module docstring); state goes to the node's :class:`Host`.

    Examples
    --------
    >>> from kubenotes.cni.netns import Host
    >>> h = Host("n1"); _ = h.add_netns("/var/run/netns/p1")
    >>> h.files[SUBNET_FILE] = (b"FLANNEL_NETWORK=10.244.0.0/16\\nFLANNEL_SUBNET=10.244.1.1/24\\n"
    ...                         b"FLANNEL_MTU=1450\\nFLANNEL_IPMASQ=true\\n")
    >>> conf = {**flannel_conflist()["plugins"][0], "name": "cbr0", "cniVersion": "0.3.1"}
    >>> out = run_plugin("flannel", CNIEnv("ADD", "c1", "/var/run/netns/p1", "eth0", path="/opt/cni/bin"), conf, host=h,
    ...                  plugins=flannel_plugins())
    >>> out.result["ips"][0]["address"], h.netns("/var/run/netns/p1").ip_route()
    ('10.244.1.2/24', ['10.244.1.0/24 dev eth0 proto kernel scope link src 10.244.1.2', '10.244.0.0/16 via 10.244.1.1 dev eth0', 'default via 10.244.1.1 dev eth0'])
    >>> h.root.interfaces["cni0"].addresses, h.root.interfaces["cni0"].mtu, f"{DATA_DIR}/c1" in h.files
    (['10.244.1.1/24'], 1450, True)
    """

    supported_versions = _SUPPORTED

    def _host(self, call: PluginCall) -> Any:
        if call.host is None:
            raise _err("flannel model: no Host given")
        return call.host

    def add(self, call: PluginCall) -> dict:
        """ADD: build the delegate config, save it, delegate ADD; the delegate's result."""
        host = self._host(call)
        path = call.config.get("subnetFile") or SUBNET_FILE
        raw = host.files.get(path)
        if raw is None:
            raise _err(f"failed to load flannel 'subnet.env' file: open {path}: no such file or directory. "
                       "Check the flannel pod log for this node.")
        try:
            delegate = delegate_config(call.config, raw.decode(), path)
        except FlannelError as e:
            msg = str(e)
            if msg.startswith("'delegate'"):
                raise _err(msg) from None
            raise _err(f"failed to load flannel 'subnet.env' file: {msg}. Check the flannel pod log for this node."
                       ) from None
        data = json.dumps(delegate, sort_keys=True, separators=(",", ":"))
        host.files[f"{call.config.get('dataDir') or DATA_DIR}/{call.env.container_id}"] = data.encode()
        out = run_plugin(delegate["type"], call.env, data, host=host, plugins=call.plugins)
        call.trace.append({"type": delegate["type"], "command": call.env.command, "stdin": delegate,
                           "stdout": out.stdout})
        if out.error is not None:
            raise _err(f"failed to delegate add: {out.error.msg}")
        return out.result or {}

    def delete(self, call: PluginCall) -> None:
        """DEL: delegate DEL with the saved config; nothing saved is no error (per the spec)."""
        if call.host is None:
            return
        key = f"{call.config.get('dataDir') or DATA_DIR}/{call.env.container_id}"
        raw = call.host.files.get(key)
        if raw is None:
            return
        conf = json.loads(raw.decode())
        env = CNIEnv("DEL", call.env.container_id, call.env.netns, call.env.ifname, call.env.args, call.env.path)
        out = run_plugin(conf.get("type", "bridge"), env, raw, host=call.host, plugins=call.plugins)
        call.trace.append({"type": conf.get("type"), "command": "DEL", "stdin": conf, "stdout": out.stdout})
        if out.error is not None:
            raise out.error
        del call.host.files[key]

    def check(self, call: PluginCall) -> None:
        """CHECK: nothing (upstream's ``cmdCheck`` is a TODO returning nil)."""


def flannel_plugins() -> dict:
    """What kube-flannel's ``install-cni-plugin`` init container copies into a node's ``/opt/cni/bin``: ``flannel``.

    The binary is not one of containernetworking-plugins (it moved out in v1.0), so it is
    not in the process-wide registry; a node gets it when Flannel is installed
    (``CNIManager(..., plugins=flannel_plugins())``).

    Examples
    --------
    >>> sorted(flannel_plugins())
    ['flannel']
    """
    return {"flannel": Flannel()}
