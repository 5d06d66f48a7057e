"""flanneld's subnet side: the network config, leases, the Kubernetes and the etcd subnet managers, ``subnet.env``.

Every node running flanneld holds one *lease*: a subnet of the cluster's network
(``10.244.1.0/24`` of ``10.244.0.0/16``) with the node's public IP and its
backend's data (the VTEP MAC for vxlan, the public key for wireguard). Two
managers store them:

* the **Kubernetes subnet manager** (``--kube-subnet-mgr``, what kube-flannel.yml
  runs): the subnet is the Node's ``spec.podCIDR`` (assigned by the node IPAM
  controller); flanneld writes the rest as Node annotations
  (``flannel.alpha.coreos.com/backend-type``, ``backend-data``, ``public-ip``,
  ``kube-subnet-manager: "true"``), and every flanneld watches the Nodes;
* the **etcd subnet manager** (flanneld without ``--kube-subnet-mgr``): the
  network config is the key ``/coreos.com/network/config``, each lease the key
  ``/coreos.com/network/subnets/<ip>-<len>`` (``10.244.7.0-24``) whose value is
  the lease attributes, attached to an etcd lease with a 24 h TTL that flanneld
  renews; a node that stops renewing loses its subnet when the TTL runs out.
  flanneld picks a free subnet at random among the first 100 free ones.

Then flanneld writes ``/run/flannel/subnet.env`` for the CNI plugin
(:mod:`kubenotes.cni.flannel.plugin`).

Notes
-----
Simplified: IPv4 only (no ``EnableIPv6``/``IPv6Network``); the etcd registry is
:class:`MemoryEtcd` (keys, leases with a TTL on a given clock, a
create-if-absent transaction) or a real etcd through :class:`GatewayEtcd`
(its JSON gateway, not gRPC; no watch: leases are listed); the random subnet pick uses
a seeded ``random.Random``; a lease's ``Expiration`` is the model's clock.

References
----------
flannel-io/flannel@v0.28.9 pkg/subnet/config.go (ParseConfig, CheckNetworkConfig, parseBackendType)
flannel-io/flannel@v0.28.9 pkg/subnet/subnet.go (MakeSubnetKey, WriteSubnetFile)
flannel-io/flannel@v0.28.9 pkg/subnet/kube/kube.go, annotations.go (AcquireLease, the annotations)
flannel-io/flannel@v0.28.9 pkg/subnet/etcd/registry.go, local_manager.go (keys, subnetTTL, allocateSubnet)
flannel-io/flannel@v0.28.9 pkg/lease/lease.go (LeaseAttrs)
flannel-io/flannel@v0.28.9 Documentation/kube-flannel.yml (net-conf.json)
"""

from __future__ import annotations

import ipaddress
import json
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from kubenotes.errors import KubenotesError

__all__ = [
    "FlannelError",
    "DEFAULT_NETWORK",
    "BACKEND_TYPES",
    "ETCD_PREFIX",
    "CONFIG_KEY",
    "SUBNET_TTL_SECONDS",
    "ANNOTATION_PREFIX",
    "BACKEND_TYPE_ANNOTATION",
    "BACKEND_DATA_ANNOTATION",
    "PUBLIC_IP_ANNOTATION",
    "KUBE_SUBNET_MANAGER_ANNOTATION",
    "SUBNET_FILE",
    "NetConfig",
    "parse_net_config",
    "Lease",
    "KubeSubnetManager",
    "MemoryEtcd",
    "GatewayEtcd",
    "EtcdSubnetManager",
    "subnet_key",
    "subnet_env",
    "parse_subnet_env",
]

#: kube-flannel.yml's ``net-conf.json`` ``Network``.
DEFAULT_NETWORK = "10.244.0.0/16"
#: Backends the model knows (``Backend.Type``); ``udp`` is flannel's default when ``Backend`` is absent.
BACKEND_TYPES = ("vxlan", "host-gw", "wireguard", "udp")
#: flanneld's ``--etcd-prefix`` default.
ETCD_PREFIX = "/coreos.com/network"
#: The etcd key of the network config.
CONFIG_KEY = ETCD_PREFIX + "/config"
#: ``subnetTTL``: an etcd lease on a subnet lives 24 hours unless renewed.
SUBNET_TTL_SECONDS = 24 * 3600
#: ``--kube-annotation-prefix`` default.
ANNOTATION_PREFIX = "flannel.alpha.coreos.com"
BACKEND_TYPE_ANNOTATION = ANNOTATION_PREFIX + "/backend-type"
BACKEND_DATA_ANNOTATION = ANNOTATION_PREFIX + "/backend-data"
PUBLIC_IP_ANNOTATION = ANNOTATION_PREFIX + "/public-ip"
KUBE_SUBNET_MANAGER_ANNOTATION = ANNOTATION_PREFIX + "/kube-subnet-manager"
#: ``--subnet-file`` default, read by the flannel CNI plugin.
SUBNET_FILE = "/run/flannel/subnet.env"


class FlannelError(KubenotesError):
    """Bad Flannel input (net-conf.json, a Node without podCIDR, a missing subnet.env) or no free subnet."""


@dataclass(frozen=True)
class NetConfig:
    """``net-conf.json`` after flannel's defaults: the network, per-node subnet size and range, the backend.

    Attributes
    ----------
    network : str
        ``Network`` (the cluster's pod network).
    subnet_len : int
        ``SubnetLen``: 24 unless the network is smaller than /22 (then network + 2).
    subnet_min, subnet_max : str
        The first and last subnet an etcd-managed node may get (the network's first
        and last subnet are skipped).
    backend : dict
        ``Backend`` as given (``{"Type": "vxlan"}``).
    backend_type : str
        ``Backend.Type`` (``udp`` when ``Backend`` is absent).
    """

    network: str
    subnet_len: int
    subnet_min: str
    subnet_max: str
    backend: dict = field(default_factory=dict)
    backend_type: str = "udp"

    def to_json(self) -> str:
        """The config as flanneld reads it (``Network``, ``SubnetLen``, ``Backend``)."""
        return json.dumps({"Network": self.network, "SubnetLen": self.subnet_len, "Backend": self.backend})


def parse_net_config(value: str | Mapping[str, Any]) -> NetConfig:
    """Parse ``net-conf.json`` (or the etcd config key's value) and apply flannel's defaults and checks.

    Parameters
    ----------
    value : str or mapping
        JSON text or its decoded form.

    Returns
    -------
    NetConfig

    Raises
    ------
    FlannelError
        Invalid JSON, no ``Network``, a ``Backend`` without a string ``Type``, an unknown
        backend, a ``SubnetLen`` out of range, ``SubnetMin``/``SubnetMax`` outside the network.

    References
    ----------
    flannel-io/flannel@v0.28.9 pkg/subnet/config.go (ParseConfig, CheckNetworkConfig)

    Examples
    --------
    >>> c = parse_net_config('{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}')
    >>> c.subnet_len, c.subnet_min, c.subnet_max, c.backend_type
    (24, '10.244.1.0', '10.244.254.0', 'vxlan')
    >>> parse_net_config({"Network": "10.244.0.0/16"}).backend_type
    'udp'
    >>> parse_net_config({"Network": "10.1.0.0/24"}).subnet_len
    26
    """
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as e:
            raise FlannelError(f"error decoding network config: {e}") from None
    if not isinstance(value, Mapping):
        raise FlannelError("error decoding network config: expected a JSON object")
    if not value.get("Network"):
        raise FlannelError("please define a correct Network parameter in the flannel config")
    try:
        net = ipaddress.IPv4Network(str(value["Network"]), strict=False)
    except ValueError as e:
        raise FlannelError(f"error decoding network config: Network: {e}") from None
    backend = value.get("Backend")
    if backend is None:
        backend_type = "udp"
        backend = {}
    else:
        if not isinstance(backend, Mapping) or not isinstance(backend.get("Type", ""), str):
            raise FlannelError("error decoding Backend property of config: Type must be a string")
        backend_type = backend.get("Type") or "udp"
    if backend_type not in BACKEND_TYPES:
        raise FlannelError(f'Backend.Type: unknown backend type: "{backend_type}" (one of {", ".join(BACKEND_TYPES)})')
    subnet_len = int(value.get("SubnetLen") or 0)
    if subnet_len:
        if subnet_len > 30:
            raise FlannelError("SubnetLen must be less than /31")
        if subnet_len < net.prefixlen + 2:
            raise FlannelError("Network must be able to accommodate at least four subnets")
    else:
        if net.prefixlen > 28:
            raise FlannelError("Network is too small. Minimum useful network prefix is /28")
        subnet_len = 24 if net.prefixlen <= 22 else net.prefixlen + 2
    size = 1 << (32 - subnet_len)
    first = int(net.network_address)
    lo = ipaddress.IPv4Address(value["SubnetMin"]) if value.get("SubnetMin") else ipaddress.IPv4Address(first + size)
    hi = (ipaddress.IPv4Address(value["SubnetMax"]) if value.get("SubnetMax")
          else ipaddress.IPv4Address(int(net.broadcast_address) + 1 - 2 * size))
    for name, addr in (("SubnetMin", lo), ("SubnetMax", hi)):
        if addr not in net:
            raise FlannelError(f"{name} is not in the range of the Network")
        if int(addr) % size:
            raise FlannelError(f"{name} is not on a SubnetLen boundary: {addr}")
    return NetConfig(str(net), subnet_len, str(lo), str(hi), dict(backend), backend_type)


@dataclass
class Lease:
    """One node's lease: its subnet and ``LeaseAttrs`` (public IP, backend type and data), with an expiry.

    Attributes
    ----------
    subnet : str
        ``10.244.1.0/24``.
    public_ip : str
    backend_type : str
    backend_data : dict
        vxlan: ``{"VNI": 1, "VtepMAC": "..."}``; wireguard: ``{"PublicKey": ..., "Port": 51820}``; else ``{}``.
    expiration : float or None
        Model seconds when the lease ends (etcd's TTL; the Kubernetes manager's nominal 24 h).
    """

    subnet: str
    public_ip: str
    backend_type: str
    backend_data: dict = field(default_factory=dict)
    expiration: float | None = None

    def attrs_json(self) -> str:
        """``LeaseAttrs`` as flanneld marshals it into etcd (Go field order, empty fields omitted).

        Examples
        --------
        >>> Lease("10.244.1.0/24", "10.0.0.11", "vxlan", {"VNI": 1, "VtepMAC": "66:00:00:00:00:01"}).attrs_json()
        '{"PublicIP":"10.0.0.11","PublicIPv6":null,"BackendType":"vxlan","BackendData":{"VNI":1,"VtepMAC":"66:00:00:00:00:01"}}'
        """
        out: dict[str, Any] = {"PublicIP": self.public_ip, "PublicIPv6": None, "BackendType": self.backend_type}
        if self.backend_data:
            out["BackendData"] = self.backend_data
        return json.dumps(out, separators=(",", ":"))


def subnet_key(subnet: str) -> str:
    """``MakeSubnetKey``: ``10.244.1.0/24`` -> ``10.244.1.0-24`` (the last part of the etcd key).

    Examples
    --------
    >>> subnet_key("10.244.1.0/24")
    '10.244.1.0-24'
    """
    return subnet.replace("/", "-")


class KubeSubnetManager:
    """The Kubernetes subnet manager: leases are Nodes' ``spec.podCIDR`` plus flannel's annotations.

    Parameters
    ----------
    config : NetConfig
        ``net-conf.json`` (kube-flannel's ConfigMap).

    Examples
    --------
    >>> m = KubeSubnetManager(parse_net_config({"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}}))
    >>> node = {"metadata": {"name": "n1"}, "spec": {"podCIDR": "10.244.1.0/24"}}
    >>> lease, ann = m.acquire_lease(node, "10.0.0.11", "host-gw", {})
    >>> lease.subnet, ann[PUBLIC_IP_ANNOTATION], ann[KUBE_SUBNET_MANAGER_ANNOTATION]
    ('10.244.1.0/24', '10.0.0.11', 'true')
    """

    def __init__(self, config: NetConfig):
        self.config = config

    def acquire_lease(self, node: Mapping[str, Any], public_ip: str, backend_type: str, backend_data: Mapping,
                      now: float = 0.0) -> tuple[Lease, dict]:
        """``AcquireLease``: the node's podCIDR as the subnet, and the annotations flanneld patches onto the Node.

        Returns
        -------
        (Lease, dict)
            The lease and the annotations to write (``backend-data`` is JSON text; ``null`` without data).

        Raises
        ------
        FlannelError
            ``node "X" pod cidr not assigned``, or a podCIDR outside the config's network.
        """
        name = (node.get("metadata") or {}).get("name", "")
        cidr = (node.get("spec") or {}).get("podCIDR")
        if not cidr:
            raise FlannelError(f'node "{name}" pod cidr not assigned')
        sn = ipaddress.IPv4Network(cidr, strict=False)
        net = ipaddress.IPv4Network(self.config.network)
        if not sn.subnet_of(net):
            raise FlannelError(f'subnet "{net}" specified in the flannel net config doesn\'t contain "{sn}" '
                               f'PodCIDR of the "{name}" node')
        data = json.dumps(dict(backend_data), separators=(",", ":")) if backend_data else "null"
        annotations = {BACKEND_DATA_ANNOTATION: data, BACKEND_TYPE_ANNOTATION: backend_type,
                       KUBE_SUBNET_MANAGER_ANNOTATION: "true", PUBLIC_IP_ANNOTATION: public_ip}
        return Lease(str(sn), public_ip, backend_type, dict(backend_data), now + SUBNET_TTL_SECONDS), annotations

    @staticmethod
    def leases(nodes: list[Mapping[str, Any]]) -> list[Lease]:
        """The leases every flanneld sees: Nodes annotated ``kube-subnet-manager: "true"`` with a podCIDR."""
        out = []
        for n in nodes:
            ann = (n.get("metadata") or {}).get("annotations") or {}
            cidr = (n.get("spec") or {}).get("podCIDR")
            if ann.get(KUBE_SUBNET_MANAGER_ANNOTATION) != "true" or not cidr:
                continue
            data = json.loads(ann.get(BACKEND_DATA_ANNOTATION) or "null") or {}
            out.append(Lease(str(ipaddress.IPv4Network(cidr, strict=False)), ann.get(PUBLIC_IP_ANNOTATION, ""),
                             ann.get(BACKEND_TYPE_ANNOTATION, ""), data))
        return out


class MemoryEtcd:
    """A tiny etcd v3 keyspace with leases, on a caller's clock: what flannel's etcd registry uses of it.

    Parameters
    ----------
    now : callable
        Returns the current time in seconds (the SimPy clock, or a test's).

    Examples
    --------
    >>> t = [0.0]; kv = MemoryEtcd(lambda: t[0])
    >>> lid = kv.grant(10); kv.create("/k", "v", lid)
    True
    >>> kv.create("/k", "w"), kv.time_to_live(lid)
    (False, 10)
    >>> t[0] = 11.0; kv.get("/k") is None
    True
    """

    def __init__(self, now: Callable[[], float]):
        self.now = now
        self.data: dict[str, tuple[str, int | None]] = {}
        self.leases: dict[int, float] = {}
        self.revision = 0
        self._next_lease = 1

    def _expire(self) -> None:
        t = self.now()
        dead = {lid for lid, until in self.leases.items() if until <= t}
        for lid in dead:
            del self.leases[lid]
        for k in [k for k, (_, lid) in self.data.items() if lid in dead]:
            del self.data[k]
            self.revision += 1

    def grant(self, ttl_seconds: int) -> int:
        """``LeaseGrant``: a new lease id living ``ttl_seconds``."""
        lid = self._next_lease
        self._next_lease += 1
        self.leases[lid] = self.now() + ttl_seconds
        return lid

    def time_to_live(self, lease_id: int) -> int:
        """``LeaseTimeToLive``: whole seconds left (-1 once expired)."""
        self._expire()
        return int(self.leases[lease_id] - self.now()) if lease_id in self.leases else -1

    def put(self, key: str, value: str, lease_id: int | None = None) -> None:
        """``Put`` (attached to ``lease_id`` when given)."""
        self._expire()
        self.data[key] = (value, lease_id)
        self.revision += 1

    def create(self, key: str, value: str, lease_id: int | None = None) -> bool:
        """``Txn(If(Version(key) = 0), Then(Put))``: False when the key exists."""
        self._expire()
        if key in self.data:
            return False
        self.put(key, value, lease_id)
        return True

    def get(self, key: str) -> str | None:
        """The value at ``key`` or None."""
        self._expire()
        v = self.data.get(key)
        return v[0] if v else None

    def range(self, prefix: str) -> list[tuple[str, str, int | None]]:
        """``Range`` over a prefix: ``(key, value, lease id)`` in key order."""
        self._expire()
        return [(k, v, lid) for k, (v, lid) in sorted(self.data.items()) if k.startswith(prefix)]

    def delete(self, key: str) -> None:
        """``DeleteRange`` of one key."""
        self._expire()
        if self.data.pop(key, None) is not None:
            self.revision += 1


class GatewayEtcd:
    """The same calls as :class:`MemoryEtcd` on a real etcd v3, through its JSON gateway (``/v3/kv``, ``/v3/lease``).

    Parameters
    ----------
    url : str
        A member's client URL (``http://127.0.0.1:2379``).
    timeout_seconds : float

    Raises
    ------
    FlannelError
        From any call, when etcd answers with an error or cannot be reached (its message).

    Notes
    -----
    ``now`` is the wall clock here (etcd's TTLs run on it), unlike the model's store.

    References
    ----------
    https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/
    """

    def __init__(self, url: str, timeout_seconds: float = 5.0):
        import time

        self.url = url
        self.timeout_seconds = timeout_seconds
        self.now: Callable[[], float] = time.time

    def _post(self, path: str, body: dict) -> dict:
        from kubenotes.etcd.client import gateway_call

        got = gateway_call(self.url, path, body, self.timeout_seconds)
        if got.get("error") or got.get("http_status") != 200:
            raise FlannelError(f"etcd {path}: {got.get('message') or got.get('error') or got.get('http_status')}")
        return got

    @staticmethod
    def _b64(text: str) -> str:
        import base64

        return base64.b64encode(text.encode()).decode()

    @staticmethod
    def _unb64(text: str) -> str:
        import base64

        return base64.b64decode(text).decode()

    def grant(self, ttl_seconds: int) -> int:
        """``LeaseGrant``."""
        return int(self._post("/v3/lease/grant", {"TTL": ttl_seconds})["ID"])

    def time_to_live(self, lease_id: int) -> int:
        """``LeaseTimeToLive`` (-1 once expired)."""
        return int(self._post("/v3/lease/timetolive", {"ID": lease_id}).get("TTL", -1))

    def _put_op(self, key: str, value: str, lease_id: int | None) -> dict:
        op = {"key": self._b64(key), "value": self._b64(value)}
        if lease_id is not None:
            op["lease"] = lease_id
        return op

    def put(self, key: str, value: str, lease_id: int | None = None) -> None:
        """``Put``."""
        self._post("/v3/kv/put", self._put_op(key, value, lease_id))

    def create(self, key: str, value: str, lease_id: int | None = None) -> bool:
        """``Txn(If(Version(key) = 0), Then(Put))``."""
        got = self._post("/v3/kv/txn", {
            "compare": [{"key": self._b64(key), "target": "VERSION", "result": "EQUAL", "version": 0}],
            "success": [{"request_put": self._put_op(key, value, lease_id)}]})
        return bool(got.get("succeeded"))

    def get(self, key: str) -> str | None:
        """The value at ``key`` or None."""
        kvs = self._post("/v3/kv/range", {"key": self._b64(key)}).get("kvs") or []
        return self._unb64(kvs[0].get("value", "")) if kvs else None

    def range(self, prefix: str) -> list[tuple[str, str, int | None]]:
        """``(key, value, lease id)`` under ``prefix``, in key order."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        kvs = self._post("/v3/kv/range", {"key": self._b64(prefix), "range_end": self._b64(end)}).get("kvs") or []
        return [(self._unb64(kv["key"]), self._unb64(kv.get("value", "")),
                 int(kv["lease"]) if kv.get("lease") else None) for kv in kvs]

    def delete(self, key: str) -> None:
        """``DeleteRange`` of one key."""
        self._post("/v3/kv/deleterange", {"key": self._b64(key)})


class EtcdSubnetManager:
    """The etcd subnet manager (flanneld's ``LocalManager`` over its etcd registry).

    Parameters
    ----------
    kv : MemoryEtcd or GatewayEtcd
        The store: the model's, or a real etcd.
    prefix : str
        ``--etcd-prefix``.
    seed : int
        Seeds the random pick among free subnets.

    Examples
    --------
    >>> t = [0.0]; kv = MemoryEtcd(lambda: t[0])
    >>> kv.put(CONFIG_KEY, '{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}')
    >>> m = EtcdSubnetManager(kv)
    >>> lease = m.acquire_lease("10.0.0.11", "vxlan", {"VNI": 1, "VtepMAC": "66:00:00:00:00:01"})
    >>> key = f"{ETCD_PREFIX}/subnets/{subnet_key(lease.subnet)}"
    >>> kv.get(key) == lease.attrs_json(), lease.expiration
    (True, 86400.0)
    >>> m.acquire_lease("10.0.0.11", "vxlan", {}).subnet == lease.subnet  # same public IP: reused
    True
    >>> t[0] = 86400.0; kv.get(key) is None  # not renewed: gone when the TTL runs out
    True
    """

    def __init__(self, kv: MemoryEtcd, prefix: str = ETCD_PREFIX, seed: int = 0):
        self.kv = kv
        self.prefix = prefix
        self.rng = random.Random(seed)

    def get_network_config(self) -> NetConfig:
        """The config key, parsed.

        Raises
        ------
        FlannelError
            No config key (flannel's ``errConfigNotFound`` text) or a bad config.
        """
        raw = self.kv.get(f"{self.prefix}/config")
        if raw is None:
            raise FlannelError("flannel config not found in etcd store. Did you create your config using etcdv3 API?")
        return parse_net_config(raw)

    def leases(self) -> list[Lease]:
        """Every lease under ``<prefix>/subnets/``, with its expiry from the etcd lease's TTL."""
        out = []
        for key, value, lid in self.kv.range(f"{self.prefix}/subnets/"):
            attrs = json.loads(value)
            ttl = self.kv.time_to_live(lid) if lid is not None else None
            out.append(Lease(key.rsplit("/", 1)[1].replace("-", "/"), attrs.get("PublicIP", ""),
                             attrs.get("BackendType", ""), attrs.get("BackendData") or {},
                             None if ttl is None else self.kv.now() + ttl))
        return out

    def acquire_lease(self, public_ip: str, backend_type: str, backend_data: Mapping) -> Lease:
        """``tryAcquireLease``: reuse the lease of this public IP (renewing its TTL), else take a free subnet.

        Raises
        ------
        FlannelError
            No config, or ``out of subnets``.
        """
        config = self.get_network_config()
        lease = Lease("", public_ip, backend_type, dict(backend_data))
        existing = next((l for l in self.leases() if l.public_ip == public_ip), None)
        if existing is not None:
            lease.subnet = existing.subnet
        else:
            taken = [ipaddress.IPv4Network(l.subnet) for l in self.leases()]
            size = 1 << (32 - config.subnet_len)
            free = []
            at = int(ipaddress.IPv4Address(config.subnet_min))
            while at <= int(ipaddress.IPv4Address(config.subnet_max)) and len(free) < 100:
                sn = ipaddress.IPv4Network((at, config.subnet_len))
                if not any(sn.overlaps(t) for t in taken):
                    free.append(sn)
                at += size
            if not free:
                raise FlannelError("out of subnets")
            lease.subnet = str(free[self.rng.randrange(len(free))])
        lid = self.kv.grant(SUBNET_TTL_SECONDS)
        self.kv.put(f"{self.prefix}/subnets/{subnet_key(lease.subnet)}", lease.attrs_json(), lid)
        lease.expiration = self.kv.now() + SUBNET_TTL_SECONDS
        return lease

    def renew_lease(self, lease: Lease) -> Lease:
        """``RenewLease``: put the attributes again under a fresh 24 h etcd lease."""
        lid = self.kv.grant(SUBNET_TTL_SECONDS)
        self.kv.put(f"{self.prefix}/subnets/{subnet_key(lease.subnet)}", lease.attrs_json(), lid)
        lease.expiration = self.kv.now() + SUBNET_TTL_SECONDS
        return lease


def subnet_env(config: NetConfig, subnet: str, mtu: int, ip_masq: bool) -> str:
    """``WriteSubnetFile``: the text of ``/run/flannel/subnet.env`` (the subnet's first address, not its network).

    Examples
    --------
    >>> print(subnet_env(parse_net_config({"Network": "10.244.0.0/16"}), "10.244.1.0/24", 1450, True), end="")
    FLANNEL_NETWORK=10.244.0.0/16
    FLANNEL_SUBNET=10.244.1.1/24
    FLANNEL_MTU=1450
    FLANNEL_IPMASQ=true
    """
    sn = ipaddress.IPv4Network(subnet)
    return (f"FLANNEL_NETWORK={config.network}\nFLANNEL_SUBNET={sn.network_address + 1}/{sn.prefixlen}\n"
            f"FLANNEL_MTU={mtu}\nFLANNEL_IPMASQ={'true' if ip_masq else 'false'}\n")


def parse_subnet_env(text: str, path: str = SUBNET_FILE) -> dict:
    """``loadFlannelSubnetEnv`` (flannel-io/cni-plugin): networks, subnet (as a network), MTU, ipMasq.

    Returns
    -------
    dict
        ``{"networks": [str], "subnet": str, "mtu": int, "ipMasq": bool}``.

    Raises
    ------
    FlannelError
        ``<path> is missing FLANNEL_...`` for an absent variable, or a malformed value.

    Examples
    --------
    >>> parse_subnet_env("FLANNEL_NETWORK=10.244.0.0/16\\nFLANNEL_SUBNET=10.244.1.1/24\\nFLANNEL_MTU=1450\\n"
    ...                  "FLANNEL_IPMASQ=true\\n")
    {'networks': ['10.244.0.0/16'], 'subnet': '10.244.1.0/24', 'mtu': 1450, 'ipMasq': True}
    >>> parse_subnet_env("FLANNEL_MTU=1450\\n")
    Traceback (most recent call last):
    kubenotes.cni.flannel.subnet.FlannelError: /run/flannel/subnet.env is missing FLANNEL_NETWORK, FLANNEL_IPV6_NETWORK, FLANNEL_SUBNET, FLANNEL_IPV6_SUBNET, FLANNEL_IPMASQ
    """
    out: dict[str, Any] = {"networks": []}
    try:
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if key == "FLANNEL_NETWORK":
                for c in value.split(","):
                    n = str(ipaddress.IPv4Network(c, strict=False))
                    if n not in out["networks"]:
                        out["networks"].append(n)
            elif key == "FLANNEL_SUBNET":
                out["subnet"] = str(ipaddress.IPv4Network(value, strict=False))
            elif key == "FLANNEL_MTU":
                out["mtu"] = int(value)
            elif key == "FLANNEL_IPMASQ":
                out["ipMasq"] = value == "true"
    except ValueError as e:
        raise FlannelError(f"{path}: {e}") from None
    missing = []
    if not out["networks"]:
        missing += ["FLANNEL_NETWORK", "FLANNEL_IPV6_NETWORK"]
    if "subnet" not in out:
        missing += ["FLANNEL_SUBNET", "FLANNEL_IPV6_SUBNET"]
    if "mtu" not in out:
        missing.append("FLANNEL_MTU")
    if "ipMasq" not in out:
        missing.append("FLANNEL_IPMASQ")
    if missing:
        raise FlannelError(f"{path} is missing {', '.join(missing)}")
    return {k: out[k] for k in ("networks", "subnet", "mtu", "ipMasq")}
