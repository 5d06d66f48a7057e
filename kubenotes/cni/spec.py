"""The CNI specification as data and logic: commands, environment, configs, results, errors, plugins.

Mirrors the Container Network Interface specification v1.1 (``SPEC.md``) and the Go library
that implements it (``containernetworking/cni``: ``pkg/skel`` for the plugin side,
``pkg/types`` for results and errors, ``pkg/utils`` for name validation, ``libcni`` for
the runtime side's config lists). A CNI plugin is a program the container runtime executes
with the parameters in environment variables (``CNI_COMMAND``, ``CNI_CONTAINERID``,
``CNI_NETNS``, ``CNI_IFNAME``, ``CNI_ARGS``, ``CNI_PATH``) and one network configuration
as JSON on stdin; it prints a result (ADD) or an error as JSON on stdout.

In kubenotes a plugin is a Python object registered under its ``type`` with
:func:`register_plugin`; :func:`run_plugin` plays the part of ``skel.PluginMain``
(validate the environment and the config, check the version, dispatch the command, turn
exceptions into the error JSON) so a model plugin behaves, input for input, as the binary
in ``/usr/lib/cni/<type>`` does.

The plugin protocol (:class:`CNIPlugin`) -- what helper modules such as
``kubenotes.cni.calico`` implement::

    class MyPlugin:
        supported_versions = SUPPORTED_VERSIONS      # tuple of cniVersion strings
        def add(self, call: PluginCall) -> dict: ...       # the result JSON (a dict)
        def delete(self, call: PluginCall) -> None: ...    # DEL: idempotent, no output
        def check(self, call: PluginCall) -> None: ...     # CHECK: raise CNIError if wrong
        def status(self, call: PluginCall) -> None: ...    # STATUS (optional method)
        def gc(self, call: PluginCall) -> None: ...        # GC (optional method)

    register_plugin("my-plugin", MyPlugin())

Each method receives a :class:`PluginCall`: the parsed environment (``call.env``), the
config dict (``call.config``, with ``prevResult`` and ``runtimeConfig`` when the runtime
injected them), the raw stdin bytes, the modelled host (``call.host``, a
:class:`kubenotes.cni.netns.Host`) and :meth:`PluginCall.delegate` to run an IPAM plugin
with the same stdin as ``invoke.DelegateAdd`` does. Failures are raised as
:class:`CNIError` (code, msg, details); any other exception becomes code 999 as skel
wraps it.

References
----------
containernetworking/cni@v1.3.0 SPEC.md
containernetworking/cni@v1.3.0 pkg/skel/skel.go
containernetworking/cni@v1.3.0 pkg/types/types.go, pkg/types/100/types.go
containernetworking/cni@v1.3.0 pkg/utils/utils.go
containernetworking/cni@v1.3.0 pkg/version/reconcile.go
containernetworking/cni@v1.3.0 libcni/conf.go, libcni/api.go
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable

from kubenotes.errors import KubenotesError

__all__ = [
    "SPEC_VERSION",
    "SUPPORTED_VERSIONS",
    "COMMANDS",
    "ADD",
    "DEL",
    "CHECK",
    "STATUS",
    "VERSION",
    "GC",
    "ERR_UNKNOWN",
    "ERR_INCOMPATIBLE_CNI_VERSION",
    "ERR_UNSUPPORTED_FIELD",
    "ERR_UNKNOWN_CONTAINER",
    "ERR_INVALID_ENVIRONMENT_VARIABLES",
    "ERR_IO_FAILURE",
    "ERR_DECODING_FAILURE",
    "ERR_INVALID_NETWORK_CONFIG",
    "ERR_INVALID_NETNS",
    "ERR_TRY_AGAIN_LATER",
    "ERR_PLUGIN_NOT_AVAILABLE",
    "ERR_LIMITED_CONNECTIVITY",
    "ERR_INTERNAL",
    "ERROR_CODE_MEANINGS",
    "CNIError",
    "CNIEnv",
    "validate_container_id",
    "validate_network_name",
    "validate_interface_name",
    "parse_cni_args",
    "decode_config",
    "NetworkConfigList",
    "parse_config_list",
    "build_one_config",
    "version_supports",
    "convert_result",
    "validate_result",
    "PluginCall",
    "CNIPlugin",
    "PluginOutput",
    "register_plugin",
    "unregister_plugin",
    "lookup_plugin",
    "registered_plugins",
    "run_plugin",
    "format_json",
]

#: The spec version this module follows.
SPEC_VERSION = "1.1.0"
#: Every cniVersion the model plugins accept (``version.All`` of libcni v1.3).
SUPPORTED_VERSIONS: tuple[str, ...] = ("0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0")

ADD, DEL, CHECK, STATUS, VERSION, GC = "ADD", "DEL", "CHECK", "STATUS", "VERSION", "GC"
#: The values of ``CNI_COMMAND`` the spec defines.
COMMANDS: tuple[str, ...] = (ADD, DEL, CHECK, STATUS, VERSION, GC)

# ---- error codes (pkg/types/types.go "Well known error codes", SPEC.md "Error") ----
ERR_UNKNOWN = 0
ERR_INCOMPATIBLE_CNI_VERSION = 1
ERR_UNSUPPORTED_FIELD = 2
ERR_UNKNOWN_CONTAINER = 3
ERR_INVALID_ENVIRONMENT_VARIABLES = 4
ERR_IO_FAILURE = 5
ERR_DECODING_FAILURE = 6
ERR_INVALID_NETWORK_CONFIG = 7
ERR_INVALID_NETNS = 8
ERR_TRY_AGAIN_LATER = 11
ERR_PLUGIN_NOT_AVAILABLE = 50
ERR_LIMITED_CONNECTIVITY = 51
ERR_INTERNAL = 999

#: The spec's table of well-known error codes.
ERROR_CODE_MEANINGS: dict[int, str] = {
    1: "Incompatible CNI version",
    2: "Unsupported field in network configuration.",
    3: "Container unknown or does not exist.",
    4: "Invalid necessary environment variables, like CNI_COMMAND, CNI_CONTAINERID, etc.",
    5: "I/O failure.",
    6: "Failed to decode content.",
    7: "Invalid network config.",
    11: "Try again later.",
    50: "The plugin is not available (i.e. cannot service ADD requests)",
    51: "The plugin is not available, and existing containers in the network may have limited connectivity.",
}

# ---- message strings (pkg/skel/skel.go, pkg/utils/utils.go) ----
MSG_MISSING_ENV = "required env variables [{}] missing"
MSG_UNKNOWN_COMMAND = "unknown CNI_COMMAND: {}"
MSG_INCOMPATIBLE = "incompatible CNI versions"
MSG_MISSING_NAME = "missing network name"
MSG_UNMARSHAL = "error unmarshall network config: {}"

_CNI_VALID_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.\-]*$")
MAX_INTERFACE_NAME_LENGTH = 15


class CNIError(KubenotesError):
    """A CNI error result: what a plugin prints (and exits non-zero with) when it fails.

    Parameters
    ----------
    code : int
        One of the ``ERR_*`` codes (0-99 reserved by the spec, 100+ plugin-specific, 999 internal).
    msg : str
        A short message, exactly as upstream words it.
    details : str, optional
        A longer message (``omitempty``).

    Notes
    -----
    The spec shows ``cniVersion`` in the error object; the Go ``types.Error`` the reference
    plugins print has only ``code``, ``msg`` and ``details``. :meth:`to_dict` gives what
    the binaries print; :meth:`to_spec_dict` adds ``cniVersion`` as the spec does.

    Examples
    --------
    >>> e = CNIError(ERR_TRY_AGAIN_LATER, "busy")
    >>> e.to_dict()
    {'code': 11, 'msg': 'busy'}
    >>> e.to_spec_dict("1.1.0")
    {'cniVersion': '1.1.0', 'code': 11, 'msg': 'busy'}
    >>> str(CNIError(1, "incompatible CNI versions", "config is x"))
    'incompatible CNI versions; config is x'
    """

    def __init__(self, code: int, msg: str, details: str = ""):
        self.code = int(code)
        self.msg = msg
        self.details = details
        # args are the constructor's, so a copy (SimPy re-raising a process's error, pickling) is the same error
        super().__init__(self.code, msg, details)

    def __str__(self) -> str:
        return f"{self.msg}; {self.details}" if self.details else self.msg

    def to_dict(self) -> dict:
        """The error JSON as the reference plugins print it (``types.Error``)."""
        out: dict[str, Any] = {"code": self.code, "msg": self.msg}
        if self.details:
            out["details"] = self.details
        return out

    def to_spec_dict(self, cni_version: str) -> dict:
        """The error JSON in the spec's shape, with ``cniVersion`` first."""
        return {"cniVersion": cni_version, **self.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "CNIError":
        """Rebuild the exception from a printed error JSON."""
        return cls(int(data.get("code", 0)), str(data.get("msg", "")), str(data.get("details", "") or ""))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CNIError) and self.to_dict() == other.to_dict()

    __hash__ = Exception.__hash__


def validate_container_id(container_id: str) -> None:
    """Reject an empty container ID or one with characters outside ``[a-zA-Z0-9_.-]``.

    Raises
    ------
    CNIError
        Code 3 ``missing containerID`` or code 4 ``invalid characters in containerID``.

    References
    ----------
    containernetworking/cni@v1.3.0 pkg/utils/utils.go (ValidateContainerID)

    Examples
    --------
    >>> validate_container_id("abc-1")
    >>> validate_container_id("a b")
    Traceback (most recent call last):
    ...
    kubenotes.cni.spec.CNIError: invalid characters in containerID; a b
    """
    if container_id == "":
        raise CNIError(ERR_UNKNOWN_CONTAINER, "missing containerID")
    if not _CNI_VALID_NAME.match(container_id):
        raise CNIError(ERR_INVALID_ENVIRONMENT_VARIABLES, "invalid characters in containerID", container_id)


def validate_network_name(name: str) -> None:
    """Reject an empty network name or one with invalid characters (code 7).

    Examples
    --------
    >>> validate_network_name("cbr0")
    >>> validate_network_name("my net")
    Traceback (most recent call last):
    ...
    kubenotes.cni.spec.CNIError: invalid characters found in network name; my net
    """
    if name == "":
        raise CNIError(ERR_INVALID_NETWORK_CONFIG, "missing network name:")
    if not _CNI_VALID_NAME.match(name):
        raise CNIError(ERR_INVALID_NETWORK_CONFIG, "invalid characters found in network name", name)


def validate_interface_name(ifname: str) -> None:
    """Apply the kernel's interface-name rules (code 4): non-empty, <= 15 chars, not ``.``/``..``, no ``/ :`` or spaces.

    Examples
    --------
    >>> validate_interface_name("eth0")
    >>> validate_interface_name("a-very-long-ifname")
    Traceback (most recent call last):
    ...
    kubenotes.cni.spec.CNIError: interface name is too long; interface name should be less than 16 characters
    """
    if len(ifname) == 0:
        raise CNIError(ERR_INVALID_ENVIRONMENT_VARIABLES, "interface name is empty")
    if len(ifname.encode()) > MAX_INTERFACE_NAME_LENGTH:
        raise CNIError(ERR_INVALID_ENVIRONMENT_VARIABLES, "interface name is too long",
                       f"interface name should be less than {MAX_INTERFACE_NAME_LENGTH + 1} characters")
    if ifname in (".", ".."):
        raise CNIError(ERR_INVALID_ENVIRONMENT_VARIABLES, "interface name is . or ..")
    if any(c in "/:" or c.isspace() for c in ifname):
        raise CNIError(ERR_INVALID_ENVIRONMENT_VARIABLES,
                       "interface name contains / or : or whitespace characters")


def parse_cni_args(args: str) -> dict[str, str]:
    """Split ``CNI_ARGS`` (``K=V;K2=V2``) into a dict, as ``types.LoadArgs`` reads it.

    Raises
    ------
    CNIError
        Code 999 ``ARGS: invalid pair "..."`` for a pair without ``=``.

    Examples
    --------
    >>> parse_cni_args("IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web")
    {'IgnoreUnknown': '1', 'K8S_POD_NAMESPACE': 'default', 'K8S_POD_NAME': 'web'}
    """
    out: dict[str, str] = {}
    for pair in filter(None, args.split(";")):
        key, sep, value = pair.partition("=")
        if not sep:
            raise CNIError(ERR_INTERNAL, f'ARGS: invalid pair "{pair}"')
        out[key] = value
    return out


@dataclass(frozen=True)
class CNIEnv:
    """The CNI parameters a runtime passes in environment variables.

    Attributes
    ----------
    command : str
        ``CNI_COMMAND``: ADD, DEL, CHECK, STATUS, VERSION or GC.
    container_id : str
        ``CNI_CONTAINERID``: the sandbox's ID.
    netns : str
        ``CNI_NETNS``: path of the network namespace (``/var/run/netns/<name>``).
    ifname : str
        ``CNI_IFNAME``: name of the interface to create inside the namespace (``eth0``).
    args : str
        ``CNI_ARGS``: extra ``K=V;...`` pairs (the kubelet's ``K8S_POD_NAME`` etc.).
    path : str
        ``CNI_PATH``: where to find plugin binaries (colon-separated).

    Examples
    --------
    >>> env = CNIEnv.from_environ({"CNI_COMMAND": "ADD", "CNI_CONTAINERID": "c1",
    ...                            "CNI_NETNS": "/var/run/netns/c1", "CNI_IFNAME": "eth0",
    ...                            "CNI_PATH": "/opt/cni/bin"})
    >>> env.to_environ()["CNI_IFNAME"], env.args_dict()
    ('eth0', {})
    """

    command: str
    container_id: str = ""
    netns: str = ""
    ifname: str = ""
    args: str = ""
    path: str = ""

    _VARS = (("command", "CNI_COMMAND"), ("container_id", "CNI_CONTAINERID"), ("netns", "CNI_NETNS"),
             ("ifname", "CNI_IFNAME"), ("args", "CNI_ARGS"), ("path", "CNI_PATH"))

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> "CNIEnv":
        """Read the six variables from a mapping (``os.environ``); missing ones become ``""``."""
        return cls(**{attr: environ.get(var, "") for attr, var in cls._VARS})

    def to_environ(self) -> dict[str, str]:
        """The variables to set for a plugin process (empty values left out, as runtimes do)."""
        return {var: getattr(self, attr) for attr, var in self._VARS if getattr(self, attr)}

    def args_dict(self) -> dict[str, str]:
        """``CNI_ARGS`` as a dict (see :func:`parse_cni_args`)."""
        return parse_cni_args(self.args)

    def validate(self) -> None:
        """Check the variables the command requires, as ``skel`` does before reading stdin.

        Raises
        ------
        CNIError
            Code 4 ``required env variables [A,B] missing`` (in skel's order), the container-ID
            and interface-name checks of :func:`validate_container_id` /
            :func:`validate_interface_name`, or code 4 ``unknown CNI_COMMAND: X``.

        Examples
        --------
        >>> CNIEnv("ADD", container_id="c1").validate()
        Traceback (most recent call last):
        ...
        kubenotes.cni.spec.CNIError: required env variables [CNI_NETNS,CNI_IFNAME,CNI_PATH] missing
        """
        required = {
            "command": COMMANDS,
            "container_id": (ADD, CHECK, DEL),
            "netns": (ADD, CHECK),
            "ifname": (ADD, CHECK, DEL),
            "path": (ADD, CHECK, DEL, GC, STATUS),
        }
        validators: dict[str, Callable[[str], None]] = {
            "container_id": validate_container_id, "ifname": validate_interface_name}
        missing = []
        for attr, var in self._VARS:
            value = getattr(self, attr)
            needed = self.command in required.get(attr, ())
            if value == "":
                if needed or attr == "command":
                    missing.append(var)
            elif needed and attr in validators:
                validators[attr](value)
        if missing:
            raise CNIError(ERR_INVALID_ENVIRONMENT_VARIABLES, MSG_MISSING_ENV.format(",".join(missing)))
        if self.command not in COMMANDS:
            raise CNIError(ERR_INVALID_ENVIRONMENT_VARIABLES, MSG_UNKNOWN_COMMAND.format(self.command))


def _go_json_error(err: json.JSONDecodeError | TypeError | ValueError, text: str) -> str:
    """A message in the shape of Go's encoding/json syntax errors (best effort)."""
    if isinstance(err, json.JSONDecodeError):
        if err.pos >= len(text.rstrip()):
            return "unexpected end of JSON input"
        return f"invalid character {text[err.pos]!r} looking for beginning of value"
    return str(err)


def decode_config(stdin: bytes | str | Mapping[str, Any]) -> dict:
    """Decode one network configuration and check its name, as skel's ``validateConfig``.

    Parameters
    ----------
    stdin : bytes, str or mapping
        The JSON a plugin reads on stdin (a mapping is taken as already decoded).

    Returns
    -------
    dict
        The decoded config; ``cniVersion`` defaults to ``"0.1.0"`` when absent (as
        ``version.ConfigDecoder``).

    Raises
    ------
    CNIError
        Code 6 ``error unmarshall network config: ...`` for bad JSON or a non-object,
        code 7 ``missing network name`` or an invalid name.

    Examples
    --------
    >>> decode_config('{"cniVersion": "1.0.0", "name": "cbr0", "type": "bridge"}')["type"]
    'bridge'
    >>> decode_config('{"type": "bridge"}')
    Traceback (most recent call last):
    ...
    kubenotes.cni.spec.CNIError: missing network name
    """
    if isinstance(stdin, Mapping):
        conf = dict(stdin)
    else:
        text = stdin.decode() if isinstance(stdin, bytes) else stdin
        try:
            conf = json.loads(text)
        except json.JSONDecodeError as err:
            raise CNIError(ERR_DECODING_FAILURE, MSG_UNMARSHAL.format(_go_json_error(err, text))) from None
        if not isinstance(conf, dict):
            raise CNIError(ERR_DECODING_FAILURE, MSG_UNMARSHAL.format(
                f"json: cannot unmarshal {type(conf).__name__} into Go value of type struct"))
    name = conf.get("name", "")
    if not isinstance(name, str):
        raise CNIError(ERR_DECODING_FAILURE, MSG_UNMARSHAL.format("json: cannot unmarshal name"))
    if name == "":
        raise CNIError(ERR_INVALID_NETWORK_CONFIG, MSG_MISSING_NAME)
    validate_network_name(name)
    return conf


def _parse_version(v: str) -> tuple[int, int, int]:
    parts = v.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise CNIError(ERR_DECODING_FAILURE, f'invalid version "{v}": must be in the form of major.minor.patch')
    return int(parts[0]), int(parts[1]), int(parts[2])


def version_supports(cni_version: str, command: str) -> bool:
    """Whether a config version allows a command (CHECK from 0.4.0, STATUS and GC from 1.1.0).

    Examples
    --------
    >>> version_supports("0.3.1", "CHECK"), version_supports("1.0.0", "STATUS"), version_supports("1.1.0", "GC")
    (False, False, True)
    """
    v = _parse_version(cni_version)
    if command == CHECK:
        return v >= (0, 4, 0)
    if command in (STATUS, GC):
        return v >= (1, 1, 0)
    return True


@dataclass(frozen=True)
class NetworkConfigList:
    """A network configuration list (a ``.conflist`` file): a name, a version and plugins run in order.

    Attributes
    ----------
    name : str
        The network's name, shared by every plugin in the list.
    cni_version : str
        ``cniVersion`` of the list, injected into each plugin's config.
    plugins : tuple of dict
        Each plugin's own config (``type`` plus plugin-specific keys).
    disable_check : bool
        ``disableCheck``: the runtime skips CHECK.
    disable_gc : bool
        ``disableGC`` (spec 1.1).
    raw : dict
        The parsed JSON as read.
    """

    name: str
    cni_version: str
    plugins: tuple[dict, ...]
    disable_check: bool = False
    disable_gc: bool = False
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    def capabilities(self) -> set[str]:
        """The capabilities enabled by any plugin (``portMappings``, ``bandwidth``, ``ips``...)."""
        return {c for p in self.plugins for c, on in (p.get("capabilities") or {}).items() if on}


def _parse_bool(conf: Mapping[str, Any], key: str) -> bool:
    raw = conf.get(key, False)
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        if raw.lower() in ("true", "1"):
            return True
        if raw.lower() in ("false", "0"):
            return False
        raise CNIError(ERR_INVALID_NETWORK_CONFIG,
                       f'error parsing configuration list: invalid value "{raw}" for {key}')
    raise CNIError(ERR_INVALID_NETWORK_CONFIG,
                   f"error parsing configuration list: invalid type {type(raw).__name__} for {key}")


def parse_config_list(data: bytes | str | Mapping[str, Any]) -> NetworkConfigList:
    """Parse and validate a network configuration list, as libcni's ``ConfListFromBytes``.

    Parameters
    ----------
    data : bytes, str or mapping
        The conflist JSON.

    Returns
    -------
    NetworkConfigList

    Raises
    ------
    CNIError
        Code 6 for invalid JSON, code 7 with libcni's messages (``error parsing
        configuration list: no name``, ``... no 'plugins' key``, ``... no plugins in list``,
        ``error parsing configuration: missing 'type'``), code 1 for a cniVersion
        libcni does not know.

    Notes
    -----
    libcni returns plain Go errors here; the model gives them the spec's code 7 (invalid
    network config) so a learner sees a code. ``cniVersions`` (1.1's list) picks the highest
    supported version.

    Examples
    --------
    >>> cl = parse_config_list({"cniVersion": "1.0.0", "name": "cbr0",
    ...     "plugins": [{"type": "bridge"}, {"type": "portmap", "capabilities": {"portMappings": True}}]})
    >>> [p["type"] for p in cl.plugins], sorted(cl.capabilities())
    (['bridge', 'portmap'], ['portMappings'])
    """
    if isinstance(data, Mapping):
        raw = dict(data)
    else:
        text = data.decode() if isinstance(data, bytes) else data
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as err:
            raise CNIError(ERR_DECODING_FAILURE,
                           f"error parsing configuration list: {_go_json_error(err, text)}") from None
        if not isinstance(raw, dict):
            raise CNIError(ERR_DECODING_FAILURE, "error parsing configuration list: not a JSON object")
    name = raw.get("name")
    if name is None:
        raise CNIError(ERR_INVALID_NETWORK_CONFIG, "error parsing configuration list: no name")
    if not isinstance(name, str):
        raise CNIError(ERR_INVALID_NETWORK_CONFIG,
                       f"error parsing configuration list: invalid name type {type(name).__name__}")
    version = raw.get("cniVersion", "")
    if not isinstance(version, str):
        raise CNIError(ERR_INVALID_NETWORK_CONFIG,
                       f"error parsing configuration list: invalid cniVersion type {type(version).__name__}")
    versions = raw.get("cniVersions")
    if versions is not None:
        if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
            raise CNIError(ERR_INVALID_NETWORK_CONFIG,
                           "error parsing configuration list: invalid type for cniVersions")
        known = [v for v in versions if v in SUPPORTED_VERSIONS]
        if known:
            version = max(known, key=_parse_version)
    if version and version not in SUPPORTED_VERSIONS:
        _parse_version(version)
        raise CNIError(ERR_INCOMPATIBLE_CNI_VERSION, MSG_INCOMPATIBLE,
                       f'config is "{version}", plugin supports {_go_quote_list(SUPPORTED_VERSIONS)}')
    plugins = raw.get("plugins")
    if plugins is None:
        raise CNIError(ERR_INVALID_NETWORK_CONFIG, "error parsing configuration list: no 'plugins' key")
    if not isinstance(plugins, list):
        raise CNIError(ERR_INVALID_NETWORK_CONFIG,
                       f"error parsing configuration list: invalid 'plugins' type {type(plugins).__name__}")
    if not plugins:
        raise CNIError(ERR_INVALID_NETWORK_CONFIG, "error parsing configuration list: no plugins in list")
    for i, p in enumerate(plugins):
        if not isinstance(p, dict):
            raise CNIError(ERR_INVALID_NETWORK_CONFIG, f"failed to parse plugin config {i}: not an object")
        if not p.get("type"):
            raise CNIError(ERR_INVALID_NETWORK_CONFIG, "error parsing configuration: missing 'type'")
    return NetworkConfigList(name=name, cni_version=version, plugins=tuple(dict(p) for p in plugins),
                             disable_check=_parse_bool(raw, "disableCheck"),
                             disable_gc=_parse_bool(raw, "disableGC"), raw=raw)


def _go_quote_list(items) -> str:
    """Go's ``%q`` of a string slice: ``["a" "b"]``."""
    return "[" + " ".join(json.dumps(i) for i in items) + "]"


def build_one_config(conflist: NetworkConfigList, index: int, *, prev_result: dict | None = None,
                     capability_args: Mapping[str, Any] | None = None) -> dict:
    """The stdin of the ``index``-th plugin of a list, as libcni's ``buildOneConfig`` assembles it.

    The list's ``name`` and ``cniVersion`` are injected into the plugin's config, then
    ``prevResult`` (the previous plugin's result, on ADD; the cached result on DEL and
    CHECK), then ``runtimeConfig`` holding only the capability arguments the plugin
    declares in ``capabilities``.

    Parameters
    ----------
    conflist : NetworkConfigList
    index : int
        Position of the plugin in ``conflist.plugins``.
    prev_result : dict, optional
    capability_args : mapping, optional
        The runtime's capability arguments (``portMappings``, ``bandwidth``, ``ips``, ...).

    Returns
    -------
    dict

    Examples
    --------
    >>> cl = parse_config_list({"cniVersion": "1.0.0", "name": "cbr0", "plugins": [
    ...     {"type": "bridge"}, {"type": "portmap", "capabilities": {"portMappings": True}}]})
    >>> build_one_config(cl, 1, prev_result={"cniVersion": "1.0.0"},
    ...                  capability_args={"portMappings": [], "bandwidth": {}})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'type': 'portmap', 'capabilities': {'portMappings': True}, 'name': 'cbr0', 'cniVersion': '1.0.0',
     'prevResult': {'cniVersion': '1.0.0'}, 'runtimeConfig': {'portMappings': []}}
    """
    conf = json.loads(json.dumps(conflist.plugins[index]))
    conf["name"] = conflist.name
    conf["cniVersion"] = conflist.cni_version
    if prev_result is not None:
        conf["prevResult"] = json.loads(json.dumps(prev_result))
    rc = {cap: (capability_args or {})[cap] for cap, on in (conf.get("capabilities") or {}).items()
          if on and cap in (capability_args or {})}
    if rc:
        conf["runtimeConfig"] = json.loads(json.dumps(rc))
    return conf


def validate_result(result: Mapping[str, Any]) -> None:
    """Check a result's structure: interface indexes in range, CIDR addresses, version present.

    Raises
    ------
    CNIError
        Code 7 naming the offending field.

    Examples
    --------
    >>> validate_result({"cniVersion": "1.0.0", "interfaces": [{"name": "eth0"}],
    ...                  "ips": [{"address": "10.1.0.5/24", "interface": 1}]})
    Traceback (most recent call last):
    ...
    kubenotes.cni.spec.CNIError: ips[0].interface: index 1 out of range (1 interfaces)
    """
    import ipaddress

    if not result.get("cniVersion"):
        raise CNIError(ERR_INVALID_NETWORK_CONFIG, "cniVersion: missing")
    n = len(result.get("interfaces") or [])
    for i, ip in enumerate(result.get("ips") or []):
        try:
            if "/" not in ip["address"]:
                raise ValueError(ip["address"])
            ipaddress.ip_interface(ip["address"])
        except (KeyError, ValueError):
            raise CNIError(ERR_INVALID_NETWORK_CONFIG, f"ips[{i}].address: invalid CIDR") from None
        idx = ip.get("interface")
        if idx is not None and not 0 <= idx < n:
            raise CNIError(ERR_INVALID_NETWORK_CONFIG,
                           f"ips[{i}].interface: index {idx} out of range ({n} interfaces)")
    for i, r in enumerate(result.get("routes") or []):
        try:
            ipaddress.ip_network(r["dst"])
        except (KeyError, ValueError):
            raise CNIError(ERR_INVALID_NETWORK_CONFIG, f"routes[{i}].dst: invalid CIDR") from None


def convert_result(result: Mapping[str, Any], to_version: str) -> dict:
    """Convert a 1.x result to another version's shape, as ``types/100`` ``GetAsVersion`` does.

    0.3.x/0.4.0 results carry ``"version": "4"|"6"`` in each IP; 1.x drop it; 0.1.0/0.2.0
    results have one ``ip4`` and one ``ip6`` object (the first address of each family), each
    with the routes of its family.

    Raises
    ------
    CNIError
        Code 999 ``cannot convert: no valid IP addresses`` for a 0.2.0 result without addresses.

    Examples
    --------
    >>> convert_result({"cniVersion": "1.0.0", "ips": [{"address": "10.0.0.2/24"}]}, "0.4.0")
    {'cniVersion': '0.4.0', 'ips': [{'version': '4', 'address': '10.0.0.2/24'}]}
    >>> convert_result({"cniVersion": "1.0.0", "ips": [{"address": "10.0.0.2/24", "gateway": "10.0.0.1"}],
    ...                 "routes": [{"dst": "0.0.0.0/0"}], "dns": {}}, "0.2.0")
    {'cniVersion': '0.2.0', 'ip4': {'ip': '10.0.0.2/24', 'gateway': '10.0.0.1', 'routes': [{'dst': '0.0.0.0/0'}]}, 'dns': {}}
    """
    import ipaddress

    out = json.loads(json.dumps(dict(result)))
    v = _parse_version(to_version)
    if v < (0, 3, 0):
        families: dict[int, dict] = {}
        for ip in out.get("ips") or []:
            fam = ipaddress.ip_interface(ip["address"]).version
            if fam not in families:
                families[fam] = {"ip": ip["address"], **({"gateway": ip["gateway"]} if ip.get("gateway") else {})}
        if not families:
            raise CNIError(ERR_INTERNAL, "cannot convert: no valid IP addresses")
        for r in out.get("routes") or []:
            fam = ipaddress.ip_network(r["dst"], strict=False).version
            if fam in families:
                families[fam].setdefault("routes", []).append(r)
        old: dict[str, Any] = {"cniVersion": to_version}
        if 4 in families:
            old["ip4"] = families[4]
        if 6 in families:
            old["ip6"] = families[6]
        old["dns"] = out.get("dns") or {}
        return old
    out["cniVersion"] = to_version
    ips = []
    for ip in out.get("ips") or []:
        ip = {k: val for k, val in ip.items() if k != "version"}
        if v < (1, 0, 0):
            ver = "4" if ipaddress.ip_interface(ip["address"]).version == 4 else "6"
            ip = {"version": ver, **ip}
        ips.append(ip)
    if "ips" in out:
        out["ips"] = ips
    return out


# ---------------------------------------------------------------- plugins and their registry


@dataclass
class PluginCall:
    """One invocation of a plugin: what the binary would find in its environment and on stdin.

    Attributes
    ----------
    env : CNIEnv
    config : dict
        The decoded stdin (``prevResult``/``runtimeConfig`` included when present).
    stdin : bytes
        The raw stdin, passed unchanged to delegated (IPAM) plugins.
    host : object
        The modelled host (:class:`kubenotes.cni.netns.Host`), or ``None``.
    trace : list of dict
        Delegated calls are appended here (``{"type", "command", "stdout"}``).
    plugins : mapping of str to plugin, optional
        The node's own binaries (see :func:`run_plugin`), also searched for delegated plugins.
    """

    env: CNIEnv
    config: dict
    stdin: bytes
    host: Any = None
    trace: list = field(default_factory=list)
    plugins: Mapping[str, Any] | None = None

    @property
    def cni_version(self) -> str:
        """The config's ``cniVersion`` (``0.1.0`` when absent, as the decoder defaults)."""
        return self.config.get("cniVersion") or "0.1.0"

    def delegate(self, plugin_type: str, command: str | None = None) -> dict | None:
        """Run another plugin (IPAM) with the same stdin and env, as ``invoke.DelegateAdd``/``DelegateDel``.

        Parameters
        ----------
        plugin_type : str
            The delegate's ``type`` (``host-local``, ``calico-ipam``).
        command : str, optional
            Defaults to this call's command.

        Returns
        -------
        dict or None
            The delegate's result (ADD), else ``None``.

        Raises
        ------
        CNIError
            The delegate's error, unchanged.
        """
        env = CNIEnv(command or self.env.command, self.env.container_id, self.env.netns, self.env.ifname,
                     self.env.args, self.env.path)
        out = run_plugin(plugin_type, env, self.stdin, host=self.host, plugins=self.plugins)
        self.trace.append({"type": plugin_type, "command": env.command, "stdout": out.stdout})
        if out.error is not None:
            raise out.error
        return out.result


@runtime_checkable
class CNIPlugin(Protocol):
    """What a model plugin implements (see the module docstring)."""

    supported_versions: tuple[str, ...]

    def add(self, call: PluginCall) -> dict: ...

    def delete(self, call: PluginCall) -> None: ...

    def check(self, call: PluginCall) -> None: ...


_REGISTRY: dict[str, Any] = {}


def register_plugin(type_name: str, plugin: Any) -> None:
    """Make ``plugin`` the model of the binary named ``type_name`` (replacing any earlier one).

    Parameters
    ----------
    type_name : str
        The ``type`` used in network configs (``bridge``, ``host-local``, ``calico``).
    plugin : CNIPlugin
        An object with ``supported_versions``, ``add``, ``delete``, ``check`` (and optionally
        ``status``, ``gc``).

    Returns
    -------
    None
        The plugin is in the process-wide registry: :func:`run_plugin` and
        :class:`~kubenotes.cni.manager.CNIManager` find it by ``type_name``.

    Raises
    ------
    TypeError
        If ``plugin`` lacks one of the required members.

    See Also
    --------
    unregister_plugin, lookup_plugin, registered_plugins

    Notes
    -----
    Upstream, libcni finds an executable named ``type_name`` in ``CNI_PATH``
    (``/opt/cni/bin``) and runs it; here a registered Python object stands
    in for the binary, and "installing" one is this call.

    References
    ----------
    containernetworking/cni@v1.3.0 pkg/invoke/find.go (FindInPath)
    containernetworking/cni@v1.3.0 pkg/skel/skel.go (PluginMain)

    Examples
    --------
    >>> class Static:
    ...     supported_versions = ("1.0.0",)
    ...     def add(self, call):
    ...         return {"cniVersion": call.cni_version, "ips": [{"address": "10.1.0.5/32"}]}
    ...     def delete(self, call): pass
    ...     def check(self, call): pass
    >>> register_plugin("static-demo", Static())
    >>> run_plugin("static-demo", CNIEnv("ADD", "c1", "/ns", "eth0", path="/opt/cni/bin"),
    ...            {"cniVersion": "1.0.0", "name": "demo", "type": "static-demo"}).result
    {'cniVersion': '1.0.0', 'ips': [{'address': '10.1.0.5/32'}]}
    >>> unregister_plugin("static-demo")
    >>> register_plugin("broken", object())
    Traceback (most recent call last):
    ...
    TypeError: plugin 'broken' must have supported_versions, add, delete and check
    """
    if not isinstance(plugin, CNIPlugin):
        raise TypeError(f"plugin {type_name!r} must have supported_versions, add, delete and check")
    _REGISTRY[type_name] = plugin


def unregister_plugin(type_name: str) -> None:
    """Remove a registered plugin (tests use it to clean up)."""
    _REGISTRY.pop(type_name, None)


def lookup_plugin(type_name: str, plugins: Mapping[str, Any] | None = None) -> Any:
    """The model of the binary ``type_name``: the node's own ``plugins`` first, then the registered ones.

    Parameters
    ----------
    type_name : str
        The config's ``type``.
    plugins : mapping of str to plugin, optional
        Binaries a network add-on installed into this node's ``CNI_PATH`` (calico-node's
        install container copies ``calico`` and ``calico-ipam`` there), bound to that
        cluster's state; the registry holds the rest (containernetworking-plugins).

    Returns
    -------
    object
        A :class:`CNIPlugin`.

    Raises
    ------
    CNIError
        Code 999 ``failed to find plugin "X" in path [...]`` as libcni's ``FindInPath`` reports a
        missing binary.
    """
    if plugins and type_name in plugins:
        return plugins[type_name]
    try:
        return _REGISTRY[type_name]
    except KeyError:
        raise CNIError(ERR_INTERNAL, f'failed to find plugin "{type_name}" in path [/opt/cni/bin]') from None


def registered_plugins() -> list[str]:
    """Sorted names of every registered plugin type (the built-ins register when ``kubenotes.cni`` is imported)."""
    return sorted(_REGISTRY)


@dataclass(frozen=True)
class PluginOutput:
    """What a plugin run produced: exit code, stdout text and the parsed result or error."""

    exit_code: int
    stdout: str
    result: dict | None = None
    error: CNIError | None = None

    def as_json(self) -> dict | None:
        """The printed JSON, parsed (``None`` when nothing was printed)."""
        return json.loads(self.stdout) if self.stdout.strip() else None


def format_json(obj: Any) -> str:
    """JSON as the Go plugins print it (``json.MarshalIndent`` with four spaces, no trailing newline).

    Examples
    --------
    >>> print(format_json({"code": 7, "msg": "missing network name"}))
    {
        "code": 7,
        "msg": "missing network name"
    }
    """
    text = json.dumps(obj, indent=4, ensure_ascii=False)
    # Go's encoder escapes HTML-significant characters inside strings
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def run_plugin(plugin_type: str, env: CNIEnv, stdin: bytes | str | Mapping[str, Any], *,
               host: Any = None, trace: list | None = None,
               plugins: Mapping[str, Any] | None = None) -> PluginOutput:
    """Run a model plugin as ``skel.PluginMain`` runs the binary's command functions.

    Steps, as upstream: validate the environment (code 4), read and validate the config (code
    6/7), VERSION prints the supported versions, check the config's ``cniVersion`` against the
    plugin's (code 1 ``incompatible CNI versions``), refuse CHECK/STATUS/GC for older config
    versions, call the plugin, print the result converted to the config's version, or the error.

    Parameters
    ----------
    plugin_type : str
        Registered type name.
    env : CNIEnv
    stdin : bytes, str or mapping
        The network config (a mapping is serialised first).
    host : kubenotes.cni.netns.Host, optional
        The host the plugin changes.
    trace : list, optional
        Delegated calls are appended here.
    plugins : mapping of str to plugin, optional
        The node's own binaries, found before the registered ones (:func:`lookup_plugin`).

    Returns
    -------
    PluginOutput
        Exit code 0 with the result (ADD) or empty stdout; exit code 1 with the error JSON.

    Examples
    --------
    >>> out = run_plugin("loopback", CNIEnv("VERSION"), b"")
    >>> out.as_json()["supportedVersions"][-1]
    '1.0.0'
    >>> run_plugin("loopback", CNIEnv("ADD", "c1", "/ns", "lo", path="/opt/cni/bin"), b"{}").error.msg
    'missing network name'
    """
    if isinstance(stdin, Mapping):
        stdin = json.dumps(stdin)
    stdin_bytes = stdin.encode() if isinstance(stdin, str) else bytes(stdin)
    try:
        plugin = lookup_plugin(plugin_type, plugins)
        env.validate()
        versions = tuple(plugin.supported_versions)
        if env.command == VERSION:
            # version.PluginInfo.Encode: the plugin's current version and all it supports
            info = {"cniVersion": max(versions, key=_parse_version), "supportedVersions": list(versions)}
            return PluginOutput(0, json.dumps(info, separators=(",", ":")) + "\n", result=info)
        conf = decode_config(stdin_bytes)
        config_version = conf.get("cniVersion") or "0.1.0"
        _parse_version(config_version)
        if env.command in (CHECK, STATUS, GC):
            if not version_supports(config_version, env.command):
                raise CNIError(ERR_INCOMPATIBLE_CNI_VERSION, f"config version does not allow {env.command}")
            if not any(version_supports(v, env.command) for v in versions):
                raise CNIError(ERR_INCOMPATIBLE_CNI_VERSION, f"plugin version does not allow {env.command}")
        if config_version not in versions:
            raise CNIError(ERR_INCOMPATIBLE_CNI_VERSION, MSG_INCOMPATIBLE,
                           f'config is "{config_version}", plugin supports {_go_quote_list(versions)}')
        call = PluginCall(env=env, config=conf, stdin=stdin_bytes, host=host,
                          trace=trace if trace is not None else [], plugins=plugins)
        if env.command == ADD:
            result = plugin.add(call)
            result = convert_result(result, config_version) if _parse_version(config_version) < (1, 0, 0) else result
            return PluginOutput(0, format_json(result), result=result)
        method = {DEL: "delete", CHECK: "check", STATUS: "status", GC: "gc"}[env.command]
        fn = getattr(plugin, method, None)
        if fn is not None:
            fn(call)
        return PluginOutput(0, "")
    except CNIError as err:
        return PluginOutput(1, format_json(err.to_dict()), error=err)
