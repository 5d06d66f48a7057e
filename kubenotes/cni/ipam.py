"""The ``host-local`` IPAM plugin: addresses handed out from ranges, recorded as one file per IP.

Mirrors ``plugins/ipam/host-local`` of containernetworking/plugins v1.1.1 (the version
Debian ships in ``/usr/lib/cni/host-local``), allocation for allocation:

* the config's ``ipam`` holds ``ranges`` (a list of *range sets*, each a list of ranges with
  ``subnet``, optional ``rangeStart``/``rangeEnd``/``gateway``) or the old single-range form
  (``subnet`` etc. directly under ``ipam``, prepended to ``ranges``); a range's gateway
  defaults to the subnet's first address, ``rangeStart`` to the first address and
  ``rangeEnd`` to the last one before broadcast (IPv4) or the very last (IPv6);
* one address per range set per ADD: the allocator starts *after* the address in
  ``last_reserved_ip.<rangeset index>`` (round robin), walks to ``rangeEnd``, wraps to the
  next range (and from the last range back to the first) and gives up where it started,
  skipping the gateway and addresses already taken (a file named after the IP exists); the
  first allocation, with no such file, starts at ``rangeStart``;
* a reservation writes ``<dataDir>/<network>/<ip>`` containing ``containerID\\r\\nifname``
  and rewrites ``last_reserved_ip.<index>``; the directory also holds an empty ``lock``;
* DEL removes every file whose content is ``containerID\\r\\nifname`` (or the bare
  container ID written by old versions); an already deleted container is no error;
* requested addresses come from ``CNI_ARGS`` ``IP=``, ``args.cni.ips`` and
  ``runtimeConfig.ips``; ``runtimeConfig.ipRanges`` are prepended to the ranges.

Errors are plain Go errors, which the skeleton prints with code 999 (``ERR_INTERNAL``).

The files live in :attr:`kubenotes.cni.netns.Host.files` (path -> bytes), so the model never
touches the disk; :mod:`kubenotes.cni.exec` writes/compares them against a real directory.

References
----------
containernetworking/plugins@v1.1.1 plugins/ipam/host-local/main.go
containernetworking/plugins@v1.1.1 plugins/ipam/host-local/backend/allocator/{allocator,config,range,range_set}.go
containernetworking/plugins@v1.1.1 plugins/ipam/host-local/backend/disk/backend.go
containernetworking/plugins@v1.1.1 plugins/ipam/host-local/dns.go
"""

from __future__ import annotations

import ipaddress
import posixpath
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from kubenotes.cni.spec import (
    ERR_INTERNAL,
    CNIError,
    PluginCall,
    register_plugin,
)

__all__ = [
    "DEFAULT_DATA_DIR",
    "LAST_IP_FILE_PREFIX",
    "LINE_BREAK",
    "Range",
    "RangeSet",
    "IPAMConfig",
    "load_ipam_config",
    "FileStore",
    "IPAllocator",
    "RangeIter",
    "HostLocal",
    "parse_resolv_conf",
]

#: ``defaultDataDir`` of the disk backend.
DEFAULT_DATA_DIR = "/var/lib/cni/networks"
#: ``lastIPFilePrefix``: ``last_reserved_ip.<range set index>`` holds the round-robin cursor.
LAST_IP_FILE_PREFIX = "last_reserved_ip."
#: ``LineBreak`` between the container ID and the interface name in a reservation file.
LINE_BREAK = "\r\n"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _err(msg: str) -> CNIError:
    return CNIError(ERR_INTERNAL, msg)


def _parse_ip(text: Any, what: str = "IP address") -> IPAddress:
    """``net.ParseIP`` + ``canonicalizeIP``: IPv4-mapped IPv6 addresses become IPv4."""
    try:
        addr = ipaddress.ip_address(str(text))
    except ValueError:
        raise _err(f"invalid {what}: {text}") from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def _parse_cidr(text: Any) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    """``types.ParseCIDR``: the address keeps its host bits."""
    try:
        return ipaddress.ip_interface(str(text))
    except ValueError:
        raise _err(f"invalid CIDR address: {text}") from None


@dataclass
class Range:
    """One range of a range set: a subnet and the inclusive ``[range_start, range_end]`` to allocate from.

    Examples
    --------
    >>> r = Range.from_dict({"subnet": "10.244.1.0/24"}); r.canonicalize(); str(r), str(r.gateway)
    ('10.244.1.1-10.244.1.254', '10.244.1.1')
    >>> r = Range.from_dict({"subnet": "10.0.0.0/31"}); r.canonicalize()
    Traceback (most recent call last):
    ...
    kubenotes.cni.spec.CNIError: Network 10.0.0.0/31 too small to allocate from
    """

    subnet: ipaddress.IPv4Interface | ipaddress.IPv6Interface
    range_start: IPAddress | None = None
    range_end: IPAddress | None = None
    gateway: IPAddress | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Range":
        """Read ``{"subnet", "rangeStart", "rangeEnd", "gateway"}``."""
        if not d.get("subnet"):
            raise _err("invalid CIDR address: ")
        return cls(_parse_cidr(d["subnet"]),
                   _parse_ip(d["rangeStart"]) if d.get("rangeStart") else None,
                   _parse_ip(d["rangeEnd"]) if d.get("rangeEnd") else None,
                   _parse_ip(d["gateway"]) if d.get("gateway") else None)

    @property
    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        return self.subnet.network

    def canonicalize(self) -> None:
        """Validate the subnet and fill the defaults, as ``Range.Canonicalize``.

        Raises
        ------
        CNIError
            (code 999) ``Network X too small to allocate from``, ``Network has host bits
            set...``, ``RangeStart X not in network Y``, ``RangeEnd X not in network Y``.
        """
        net = self.network
        ones, bits = net.prefixlen, net.max_prefixlen
        if ones > bits - 2:
            raise _err(f"Network {self.subnet} too small to allocate from")
        if self.subnet.ip != net.network_address:
            raise _err(f"Network has host bits set. For a subnet mask of length {ones} the network "
                       f"address is {net.network_address}")
        if self.gateway is None:
            self.gateway = net.network_address + 1
        if self.range_start is not None:
            if not self.contains(self.range_start):
                raise _err(f"RangeStart {self.range_start} not in network {self.subnet}")
        else:
            self.range_start = net.network_address + 1
        if self.range_end is not None:
            if not self.contains(self.range_end):
                raise _err(f"RangeEnd {self.range_end} not in network {self.subnet}")
        else:
            self.range_end = net.broadcast_address - 1 if net.version == 4 else net.broadcast_address

    def contains(self, addr: IPAddress) -> bool:
        """Whether ``addr`` is in the subnet and within the start/end bounds that are set."""
        if addr.version != self.network.version or addr not in self.network:
            return False
        if self.range_start is not None and addr < self.range_start:
            return False
        if self.range_end is not None and addr > self.range_end:
            return False
        return True

    def overlaps(self, other: "Range") -> bool:
        """Whether two canonical ranges share an address."""
        if self.network.version != other.network.version:
            return False
        return (self.contains(other.range_start) or self.contains(other.range_end)
                or other.contains(self.range_start) or other.contains(self.range_end))

    def __str__(self) -> str:
        return f"{self.range_start}-{self.range_end}"


class RangeSet(list):
    """A list of :class:`Range`; one address is allocated per range set."""

    def canonicalize(self) -> None:
        """Canonicalize each range; reject an empty set, mixed families and overlaps."""
        if not self:
            raise _err("empty range set")
        family = None
        for i, r in enumerate(self):
            r.canonicalize()
            if i == 0:
                family = r.network.version
            elif r.network.version != family:
                raise _err("mixed address families")
        for i, r1 in enumerate(self[:-1]):
            for r2 in self[i + 1:]:
                if r1.overlaps(r2):
                    raise _err(f"subnets {r1} and {r2} overlap")

    def range_for(self, addr: IPAddress) -> Range:
        """The range containing ``addr``.

        Raises
        ------
        CNIError
            ``X not in range set Y``.
        """
        for r in self:
            if r.contains(addr):
                return r
        raise _err(f"{addr} not in range set {self}")

    def contains(self, addr: IPAddress) -> bool:
        return any(r.contains(addr) for r in self)

    def overlaps(self, other: "RangeSet") -> bool:
        return any(r.overlaps(r1) for r in self for r1 in other)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self)


@dataclass
class IPAMConfig:
    """The ``ipam`` section after ``LoadIPAMConfig``: ranges canonicalized, requested IPs collected."""

    name: str
    type: str
    ranges: list[RangeSet]
    routes: list[dict] = field(default_factory=list)
    data_dir: str = ""
    resolv_conf: str = ""
    ip_args: list[IPAddress] = field(default_factory=list)


def _load_args(env_args: str) -> IPAddress | None:
    """``types.LoadArgs`` into ``IPAMEnvArgs`` (``IgnoreUnknown`` and ``IP``)."""
    pairs = []
    for pair in filter(None, env_args.split(";")):
        key, sep, value = pair.partition("=")
        if not sep:
            raise _err(f'ARGS: invalid pair "{pair}"')
        pairs.append((key, value))
    ignore_unknown = any(k == "IgnoreUnknown" and v.lower() in ("1", "true") for k, v in pairs)
    unknown, ip = [], None
    for key, value in pairs:
        if key == "IP":
            try:
                ip = _parse_ip(value) if value else None
            except CNIError:
                raise _err(f'ARGS: error parsing value of pair "{key}={value}": invalid IP address {value}') from None
        elif key != "IgnoreUnknown":
            unknown.append(f"{key}={value}")
    if unknown and not ignore_unknown:
        raise _err("ARGS: unknown args [" + " ".join(f'"{k}"' for k in unknown) + "]")
    return ip


def load_ipam_config(conf: Mapping[str, Any], env_args: str = "") -> tuple[IPAMConfig, str]:
    """Read and validate the IPAM part of a network config, as ``allocator.LoadIPAMConfig``.

    Parameters
    ----------
    conf : mapping
        The whole network config (``name``, ``cniVersion``, ``ipam``, ``runtimeConfig``, ``args``).
    env_args : str
        ``CNI_ARGS``.

    Returns
    -------
    (IPAMConfig, str)
        The config and the ``cniVersion``.

    Raises
    ------
    CNIError
        Code 999 with upstream's messages (``IPAM config missing 'ipam' key``, ``no IP ranges
        specified``, ``invalid range set N: ...``, ``range set I overlaps with J``).

    Examples
    --------
    >>> ipam, v = load_ipam_config({"name": "cbr0", "cniVersion": "1.0.0",
    ...     "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.244.1.0/24"}]]}})
    >>> [str(rs) for rs in ipam.ranges], v
    (['10.244.1.1-10.244.1.254'], '1.0.0')
    """
    ipam = conf.get("ipam")
    if not ipam:
        raise _err("IPAM config missing 'ipam' key")
    ip_args: list[IPAddress] = []
    if env_args:
        ip = _load_args(env_args)
        if ip is not None:
            ip_args = [ip]
    args_ips = ((conf.get("args") or {}).get("cni") or {}).get("ips") or []
    ip_args += [_parse_ip(i.split("/")[0]) for i in args_ips]
    runtime = conf.get("runtimeConfig") or {}
    ip_args += [_parse_ip(str(i).split("/")[0]) for i in runtime.get("ips") or []]
    ranges = [RangeSet(Range.from_dict(r) for r in rs) for rs in ipam.get("ranges") or []]
    if ipam.get("subnet"):
        ranges.insert(0, RangeSet([Range.from_dict(ipam)]))
    if runtime.get("ipRanges"):
        ranges = [RangeSet(Range.from_dict(r) for r in rs) for rs in runtime["ipRanges"]] + ranges
    if not ranges:
        raise _err("no IP ranges specified")
    v4 = v6 = 0
    for i, rs in enumerate(ranges):
        try:
            rs.canonicalize()
        except CNIError as e:
            raise _err(f"invalid range set {i}: {e.msg}") from None
        if rs[0].network.version == 4:
            v4 += 1
        else:
            v6 += 1
    version = conf.get("cniVersion", "")
    if (v4 > 1 or v6 > 1) and not _version_at_least(version, (0, 3, 0)):
        raise _err(f"CNI version {version} does not support more than 1 address per family")
    for i, p1 in enumerate(ranges[:-1]):
        for j, p2 in enumerate(ranges[i + 1:]):
            if p1.overlaps(p2):
                raise _err(f"range set {i} overlaps with {i + j + 1}")
    routes = []
    for r in ipam.get("routes") or []:
        route = {"dst": str(_parse_cidr(r.get("dst", "")))}
        if r.get("gw"):
            route["gw"] = str(_parse_ip(r["gw"]))
        routes.append(route)
    return IPAMConfig(name=conf.get("name", ""), type=ipam.get("type", ""), ranges=ranges, routes=routes,
                      data_dir=ipam.get("dataDir", ""), resolv_conf=ipam.get("resolvConf", ""),
                      ip_args=ip_args), version


def _version_at_least(version: str, floor: tuple[int, int, int]) -> bool:
    try:
        return tuple(int(p) for p in version.split(".")) >= floor
    except ValueError:
        return False


class FileStore:
    """The disk backend over a path -> bytes mapping (``Host.files``).

    Parameters
    ----------
    files : dict of str to bytes
    network : str
        The network name: the directory under ``data_dir``.
    data_dir : str
        ``ipam.dataDir`` (default :data:`DEFAULT_DATA_DIR`).

    Examples
    --------
    >>> files = {}
    >>> s = FileStore(files, "cbr0", "/tmp/d")
    >>> s.reserve("c1", "eth0", ipaddress.ip_address("10.0.0.2"), "0")
    True
    >>> sorted(files), files["/tmp/d/cbr0/10.0.0.2"]
    (['/tmp/d/cbr0/10.0.0.2', '/tmp/d/cbr0/last_reserved_ip.0', '/tmp/d/cbr0/lock'], b'c1\\r\\neth0')
    """

    def __init__(self, files: dict[str, bytes], network: str, data_dir: str = ""):
        self.files = files
        self.dir = posixpath.join(data_dir or DEFAULT_DATA_DIR, network)
        files.setdefault(posixpath.join(self.dir, "lock"), b"")

    def _path(self, name: str) -> str:
        return posixpath.join(self.dir, name)

    def _walk(self) -> Iterator[tuple[str, bytes]]:
        """Files of the directory in lexical order, as ``filepath.Walk`` visits them."""
        prefix = self.dir + "/"
        for path in sorted(p for p in self.files if p.startswith(prefix) and "/" not in p[len(prefix):]):
            yield path, self.files[path]

    def reserve(self, container_id: str, ifname: str, ip: IPAddress, range_id: str) -> bool:
        """Create the IP's file (``O_EXCL``); False if it exists. Updates ``last_reserved_ip.<id>``."""
        path = self._path(str(ip))
        if path in self.files:
            return False
        self.files[path] = (container_id.strip() + LINE_BREAK + ifname).encode()
        self.files[self._path(LAST_IP_FILE_PREFIX + range_id)] = str(ip).encode()
        return True

    def last_reserved_ip(self, range_id: str) -> IPAddress | None:
        """The round-robin cursor of range set ``range_id`` (None if no file or unparsable)."""
        data = self.files.get(self._path(LAST_IP_FILE_PREFIX + range_id))
        if data is None:
            return None
        try:
            return _parse_ip(data.decode())
        except CNIError:
            return None

    def _matching(self, match: str) -> list[str]:
        return [p for p, data in self._walk() if data.decode(errors="replace").strip() == match]

    def find_by_id(self, container_id: str, ifname: str) -> bool:
        """Whether any file belongs to ``container_id``/``ifname`` (or the bare ID, old format)."""
        return bool(self._matching(container_id.strip() + LINE_BREAK + ifname)
                    or self._matching(container_id.strip()))

    def release_by_id(self, container_id: str, ifname: str) -> None:
        """Remove the files of ``container_id``/``ifname``; if none, those holding the bare ID."""
        paths = self._matching(container_id.strip() + LINE_BREAK + ifname)
        if not paths:
            paths = self._matching(container_id.strip())
        for p in paths:
            del self.files[p]

    def get_by_id(self, container_id: str, ifname: str) -> list[IPAddress]:
        """IPs (file names) held by ``container_id``/``ifname`` or the bare ID, in walk order."""
        match, old = container_id.strip() + LINE_BREAK + ifname, container_id.strip()
        out = []
        for path, data in self._walk():
            if data.decode(errors="replace").strip() in (match, old):
                try:
                    out.append(ipaddress.ip_address(posixpath.basename(path)))
                except ValueError:
                    pass
        return out


class RangeIter:
    """Round-robin iterator over a range set, as ``allocator.RangeIter``: yields ``(ip, range)``."""

    def __init__(self, rangeset: RangeSet, last_reserved: IPAddress | None):
        self.rangeset = rangeset
        self.range_idx = 0
        self.cur: IPAddress | None = None
        self.start_ip: IPAddress | None = None
        if last_reserved is not None and rangeset.contains(last_reserved):
            for i, r in enumerate(rangeset):
                if r.contains(last_reserved):
                    self.range_idx = i
                    self.cur = last_reserved  # the first next() returns last_reserved + 1
                    break
        else:
            self.start_ip = rangeset[0].range_start

    def next(self) -> tuple[IPAddress, Range] | None:
        """The next candidate, or None once the walk is back where it started."""
        while True:
            r = self.rangeset[self.range_idx]
            if self.cur is None:
                self.cur = r.range_start
                self.start_ip = self.cur
                if self.cur == r.gateway:
                    continue
                return self.cur, r
            if self.cur == r.range_end:
                self.range_idx = (self.range_idx + 1) % len(self.rangeset)
                r = self.rangeset[self.range_idx]
                self.cur = r.range_start
            else:
                self.cur = self.cur + 1
            if self.start_ip is None:
                self.start_ip = self.cur
            elif self.cur == self.start_ip:
                return None
            if self.cur == r.gateway:
                continue
            return self.cur, r


class IPAllocator:
    """Allocates one address from one range set (``allocator.IPAllocator``); ``range_id`` is its index."""

    def __init__(self, rangeset: RangeSet, store: FileStore, range_id: int):
        self.rangeset = rangeset
        self.store = store
        self.range_id = str(range_id)

    def get(self, container_id: str, ifname: str, requested: IPAddress | None = None) -> dict:
        """Reserve an address; return the result's IP config ``{"address", "gateway"}``.

        Raises
        ------
        CNIError
            ``requested ip X is subnet's gateway``, ``requested IP address X is not available in
            range set Y``, ``X has been allocated to ID, duplicate allocation is not allowed``,
            ``no IP addresses available in range set: Y``.
        """
        if requested is not None:
            r = self.rangeset.range_for(requested)
            if requested == r.gateway:
                raise _err(f"requested ip {requested} is subnet's gateway")
            if not self.store.reserve(container_id, ifname, requested, self.range_id):
                raise _err(f"requested IP address {requested} is not available in range set {self.rangeset}")
            reserved, rng = requested, r
        else:
            for allocated in self.store.get_by_id(container_id, ifname):
                if self.rangeset.contains(allocated):
                    raise _err(f"{allocated} has been allocated to {container_id}, "
                               "duplicate allocation is not allowed")
            it = RangeIter(self.rangeset, self.store.last_reserved_ip(self.range_id))
            reserved = rng = None
            while (nxt := it.next()) is not None:
                if self.store.reserve(container_id, ifname, nxt[0], self.range_id):
                    reserved, rng = nxt
                    break
            if reserved is None:
                raise _err(f"no IP addresses available in range set: {self.rangeset}")
        return {"address": f"{reserved}/{rng.network.prefixlen}", "gateway": str(rng.gateway)}

    def release(self, container_id: str, ifname: str) -> None:
        """Release every address of ``container_id``/``ifname``."""
        self.store.release_by_id(container_id, ifname)


def parse_resolv_conf(text: str) -> dict:
    """The ``dns`` of a result from a resolv.conf text (``nameserver``, ``domain``, ``search``, ``options``).

    Examples
    --------
    >>> parse_resolv_conf("nameserver 10.96.0.10\\nsearch default.svc.cluster.local\\noptions ndots:5\\n")
    {'nameservers': ['10.96.0.10'], 'search': ['default.svc.cluster.local'], 'options': ['ndots:5']}
    """
    found: dict[str, Any] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        key, rest = fields[0], fields[1:]
        if key == "nameserver" and rest:
            found.setdefault("nameservers", []).append(rest[0])
        elif key == "domain" and rest:
            found["domain"] = rest[0]
        elif key == "search":
            found["search"] = rest
        elif key == "options":
            found.setdefault("options", []).extend(rest)
    # types.DNS field order
    return {k: found[k] for k in ("nameservers", "domain", "search", "options") if k in found}


class HostLocal:
    """The ``host-local`` plugin (register type ``host-local``).

    The files go to ``call.host.files``; a call without a host is an error.

    Examples
    --------
    >>> from kubenotes.cni.netns import Host
    >>> from kubenotes.cni.spec import CNIEnv, run_plugin
    >>> h = Host()
    >>> conf = {"cniVersion": "1.0.0", "name": "n", "ipam": {"type": "host-local", "subnet": "10.0.0.0/29"}}
    >>> env = CNIEnv("ADD", "c1", "/var/run/netns/c1", "eth0", path="/opt/cni/bin")
    >>> run_plugin("host-local", env, conf, host=h).result["ips"]
    [{'address': '10.0.0.2/29', 'gateway': '10.0.0.1'}]
    """

    #: as the Debian binary (plugins v1.1.1): spec versions up to 1.0.0
    supported_versions = ("0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0")

    def _store(self, call: PluginCall, ipam: IPAMConfig) -> FileStore:
        if call.host is None:
            raise _err("host-local model: no Host given for the data directory")
        return FileStore(call.host.files, ipam.name, ipam.data_dir)

    def add(self, call: PluginCall) -> dict:
        """ADD: set the pod up as described in the class docstring; return the result JSON."""
        ipam, _ = load_ipam_config(call.config, call.env.args)
        result: dict[str, Any] = {"cniVersion": "1.0.0"}
        dns: dict = {}
        if ipam.resolv_conf:
            data = call.host.files.get(ipam.resolv_conf) if call.host is not None else None
            if data is None:
                raise _err(f"open {ipam.resolv_conf}: no such file or directory")
            dns = parse_resolv_conf(data.decode())
        store = self._store(call, ipam)
        requested = list(dict.fromkeys(ipam.ip_args))
        allocs: list[IPAllocator] = []
        ips = []
        for idx, rs in enumerate(ipam.ranges):
            alloc = IPAllocator(rs, store, idx)
            req = next((ip for ip in requested if rs.contains(ip)), None)
            if req is not None:
                requested.remove(req)
            try:
                ips.append(alloc.get(call.env.container_id, call.env.ifname, req))
            except CNIError as e:
                for a in allocs:
                    a.release(call.env.container_id, call.env.ifname)
                raise _err(f"failed to allocate for range {idx}: {e.msg}") from None
            allocs.append(alloc)
        if requested:
            for a in allocs:
                a.release(call.env.container_id, call.env.ifname)
            raise _err("failed to allocate all requested IPs: " + " ".join(str(i) for i in requested))
        if ips:
            result["ips"] = ips
        if ipam.routes:
            result["routes"] = ipam.routes
        result["dns"] = dns
        return result

    def delete(self, call: PluginCall) -> None:
        """DEL: undo ADD; idempotent (a missing namespace or interface is no error)."""
        ipam, _ = load_ipam_config(call.config, call.env.args)
        store = self._store(call, ipam)
        for idx, rs in enumerate(ipam.ranges):
            IPAllocator(rs, store, idx).release(call.env.container_id, call.env.ifname)

    def check(self, call: PluginCall) -> None:
        """CHECK: raise :class:`CNIError` if the state ADD created is not there."""
        ipam, _ = load_ipam_config(call.config, call.env.args)
        store = self._store(call, ipam)
        if not store.find_by_id(call.env.container_id, call.env.ifname):
            raise _err(f"host-local: Failed to find address added by container {call.env.container_id}")


register_plugin("host-local", HostLocal())
