"""host-local IPAM: the model against Debian's real ``/usr/lib/cni/host-local``, and upstream's allocator cases.

The comparison tests feed the same config (the same ``dataDir`` string: the model keeps its
files in memory, so both sides can name the real temporary directory) and the same sequence
of container IDs to the binary and to :mod:`kubenotes.cni.ipam`, and require identical exit
codes, stdout JSON (addresses, gateways, routes, error code/msg/details) and identical files
in the data directory after every step.

Model-only cases are ported from containernetworking/plugins@v1.1.1:
``plugins/ipam/host-local/backend/allocator/allocator_test.go`` ("RangeIter should loop
correctly from the beginning/end/middle", "should allocate ips in round robin" table,
"should not allocate the broadcast address", "should allocate in a round-robin fashion",
"when requesting a specific IP", "when out of ips returns a meaningful error"),
``range_test.go`` ("should reject a network that's too small", "should reject invalid
RangeStart and RangeEnd", "should reject a network with host bits set") and
``host_local_test.go`` ("allocates and releases addresses with ADD/DEL", "repeat allocating
addresses on specific interface for same container ID with ADD", "verifies ADD with
routes", "requests a specific IP via CNI_ARGS / runtimeConfig").
"""

from __future__ import annotations

import ipaddress
import json
import os

import pytest

from kubenotes.cni.exec import exec_model, exec_real, find_plugin_binary, model_data_dir, read_data_dir
from kubenotes.cni.ipam import FileStore, IPAllocator, Range, RangeIter, RangeSet, load_ipam_config
from kubenotes.cni.netns import Host
from kubenotes.cni.spec import CNIEnv, CNIError

_NO_HOST_LOCAL = "no /usr/lib/cni/host-local (apt-get install containernetworking-plugins)"


@pytest.fixture
def host_local_binary() -> str:
    """The real host-local: skip without it, fail when ``CI`` is set (CI installs it)."""
    path = find_plugin_binary("host-local")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {_NO_HOST_LOCAL}")
        pytest.skip(_NO_HOST_LOCAL)
    return path


class Twin:
    """Runs each step on the real binary and on the model and asserts they agree."""

    def __init__(self, binary: str, data_dir: str, conf: dict):
        self.binary = binary
        self.data_dir = data_dir
        self.conf = conf
        self.host = Host("node-1")

    def run(self, command: str, container_id: str, ifname: str = "eth0", *, args: str = "",
            conf: dict | None = None, env: CNIEnv | None = None):
        env = env or CNIEnv(command, container_id, f"/var/run/netns/{container_id}", ifname, args, "/usr/lib/cni")
        stdin = json.dumps(conf or self.conf)
        real = exec_real("host-local", env, stdin, binary=self.binary)
        model = exec_model("host-local", env, stdin, host=self.host)
        assert (model.exit_code == 0) == (real.exit_code == 0), (real.stdout, model.stdout)
        assert model.as_json() == real.as_json()
        assert model.stdout == real.stdout
        assert model_data_dir(self.host.files, self.data_dir) == read_data_dir(self.data_dir)
        return model

    def add(self, container_id: str, ifname: str = "eth0", **kw) -> str | CNIError:
        out = self.run("ADD", container_id, ifname, **kw)
        return out.error if out.error else out.result["ips"][0]["address"]


def _conf(data_dir, ipam: dict, version: str = "1.0.0") -> dict:
    return {"cniVersion": version, "name": "cbr0",
            "ipam": {"type": "host-local", "dataDir": str(data_dir), **ipam}}


def test_small_range_allocates_exhausts_and_reuses_round_robin(host_local_binary, tmp_path):
    t = Twin(host_local_binary, str(tmp_path), _conf(tmp_path, {"ranges": [[{"subnet": "10.0.0.0/29"}]]}))
    assert [t.add(f"c{i}") for i in range(1, 6)] == [f"10.0.0.{i}/29" for i in range(2, 7)]
    err = t.add("c6")
    assert isinstance(err, CNIError) and err.code == 999
    assert err.msg == "failed to allocate for range 0: no IP addresses available in range set: 10.0.0.1-10.0.0.6"
    t.run("DEL", "c4")  # frees .5
    t.run("DEL", "c2")  # frees .3
    t.run("DEL", "c2")  # DEL is idempotent
    t.run("DEL", "never-added")
    # the cursor is at .6: the walk wraps to the start and finds .3 before .5
    assert [t.add("c7"), t.add("c8")] == ["10.0.0.3/29", "10.0.0.5/29"]
    t.run("DEL", "c1")  # frees .2; the cursor is at .5, so .6... are full and .2 comes next
    assert t.add("c9") == "10.0.0.2/29"


def test_range_start_end_and_gateway_inside_the_range(host_local_binary, tmp_path):
    ipam = {"ranges": [[{"subnet": "10.1.0.0/24", "rangeStart": "10.1.0.10", "rangeEnd": "10.1.0.14",
                         "gateway": "10.1.0.12"}]],
            "routes": [{"dst": "0.0.0.0/0"}, {"dst": "192.168.0.0/16", "gw": "10.1.0.12"}]}
    t = Twin(host_local_binary, str(tmp_path), _conf(tmp_path, ipam))
    got = [t.add(f"p{i}") for i in range(5)]
    assert got[:4] == ["10.1.0.10/24", "10.1.0.11/24", "10.1.0.13/24", "10.1.0.14/24"]
    assert isinstance(got[4], CNIError)
    assert t.run("ADD", "q").error.msg.endswith("range set: 10.1.0.10-10.1.0.14")
    t.run("DEL", "p1")
    assert t.add("p5") == "10.1.0.11/24"


def test_multiple_ranges_in_a_set_wrap_and_dual_stack(host_local_binary, tmp_path):
    ipam = {"ranges": [[{"subnet": "10.0.0.0/30"}, {"subnet": "10.0.1.0/30"}],
                       [{"subnet": "fd00:10::/125"}]]}
    t = Twin(host_local_binary, str(tmp_path), _conf(tmp_path, ipam))
    outs = [t.run("ADD", f"d{i}") for i in range(3)]
    assert [[ip["address"] for ip in o.result["ips"]] for o in outs[:2]] == [
        ["10.0.0.2/30", "fd00:10::2/125"], ["10.0.1.2/30", "fd00:10::3/125"]]
    assert outs[2].error.msg.startswith("failed to allocate for range 0: no IP addresses available")
    t.run("DEL", "d0")
    assert [ip["address"] for ip in t.run("ADD", "d3").result["ips"]] == ["10.0.0.2/30", "fd00:10::4/125"]


def test_same_container_two_interfaces_and_duplicate_add(host_local_binary, tmp_path):
    t = Twin(host_local_binary, str(tmp_path), _conf(tmp_path, {"subnet": "10.2.0.0/28"}))
    assert t.add("c1", "eth0") == "10.2.0.2/28"
    assert t.add("c1", "net1") == "10.2.0.3/28"
    dup = t.add("c1", "eth0")
    assert dup.msg == ("failed to allocate for range 0: 10.2.0.2 has been allocated to c1, "
                       "duplicate allocation is not allowed")
    t.run("DEL", "c1", "net1")
    t.run("CHECK", "c1", "eth0")
    assert t.run("CHECK", "c9", "eth0").error.msg == "host-local: Failed to find address added by container c9"


def test_requested_ips_via_cni_args_and_runtime_config(host_local_binary, tmp_path):
    conf = _conf(tmp_path, {"ranges": [[{"subnet": "10.3.0.0/24"}]]})
    t = Twin(host_local_binary, str(tmp_path), conf)
    assert t.add("a", args="IgnoreUnknown=1;K8S_POD_NAME=web;IP=10.3.0.50") == "10.3.0.50/24"
    assert t.add("b") == "10.3.0.51/24"  # the cursor moved to the requested address
    rc = dict(conf, capabilities={"ips": True}, runtimeConfig={"ips": ["10.3.0.7/24"]})
    assert t.add("c", conf=rc) == "10.3.0.7/24"
    assert t.add("d", args="IgnoreUnknown=1;IP=10.3.0.1").msg == (
        "failed to allocate for range 0: requested ip 10.3.0.1 is subnet's gateway")
    assert t.add("e", args="IgnoreUnknown=1;IP=10.3.0.50").msg == (
        "failed to allocate for range 0: requested IP address 10.3.0.50 is not available in range set "
        "10.3.0.1-10.3.0.254")
    assert t.add("f", args="IgnoreUnknown=1;IP=10.9.0.5").msg == "failed to allocate all requested IPs: 10.9.0.5"


@pytest.mark.parametrize("ipam", [
    {"ranges": [[{"subnet": "10.0.0.0/31"}]]},
    {"ranges": [[{"subnet": "10.0.0.5/24"}]]},
    {"ranges": [[{"subnet": "10.0.0.0/24", "rangeStart": "10.0.1.5"}]]},
    {"ranges": [[{"subnet": "10.0.0.0/24", "rangeEnd": "10.0.1.5"}]]},
    {"ranges": [[{"subnet": "10.0.0.0/24"}], [{"subnet": "10.0.0.0/25"}]]},
    {"ranges": [[{"subnet": "10.0.0.0/24"}, {"subnet": "fd00::/120"}]]},
    {"ranges": []},
])
def test_config_errors_match(host_local_binary, tmp_path, ipam):
    t = Twin(host_local_binary, str(tmp_path), _conf(tmp_path, ipam))
    out = t.run("ADD", "c1")
    assert out.error is not None and out.error.code == 999


def test_missing_ipam_key_env_and_version_errors_match(host_local_binary, tmp_path):
    t = Twin(host_local_binary, str(tmp_path), _conf(tmp_path, {"subnet": "10.0.0.0/24"}))
    assert t.run("ADD", "c1", conf={"cniVersion": "1.0.0", "name": "n"}).error.msg == "IPAM config missing 'ipam' key"
    assert t.run("ADD", "c1", env=CNIEnv("ADD", "c1")).error.code == 4
    assert t.run("ADD", "c 1").error.msg == "invalid characters in containerID"
    err = t.run("ADD", "c1", conf=_conf(tmp_path, {"subnet": "10.0.0.0/24"}, version="1.1.0")).error
    assert (err.code, err.msg) == (1, "incompatible CNI versions")
    assert t.run("ADD", "c1", conf={"cniVersion": "1.0.0", "ipam": {}}).error.code == 7


@pytest.mark.parametrize("version", ["0.3.1", "0.4.0", "1.0.0"])
def test_result_shape_per_cni_version(host_local_binary, tmp_path, version):
    conf = _conf(tmp_path, {"subnet": "10.4.0.0/24", "routes": [{"dst": "0.0.0.0/0"}]}, version=version)
    out = Twin(host_local_binary, str(tmp_path), conf).run("ADD", "c1")
    assert out.result["cniVersion"] == version
    assert ("version" in out.result["ips"][0]) == (version != "1.0.0")


# ---------------------------------------------------------------- model-only, ported from allocator_test.go


def _alloc(subnets, ipmap=(), last_ip=None):
    files: dict[str, bytes] = {}
    rs = RangeSet(Range(ipaddress.ip_interface(s)) for s in subnets)
    rs.canonicalize()
    store = FileStore(files, "net", "/d")
    for ip in ipmap:
        files[f"/d/net/{ip}"] = b"id"
    if last_ip:
        files["/d/net/last_reserved_ip.0"] = last_ip.encode()
    return IPAllocator(rs, store, 0)


def _walk(alloc):
    it = RangeIter(alloc.rangeset, alloc.store.last_reserved_ip("0"))
    out = []
    while (nxt := it.next()) is not None:
        out.append(str(nxt[0]))
    return out


@pytest.mark.parametrize("last_ip, expected", [
    (None, ["192.168.1.2", "192.168.1.3", "192.168.1.4", "192.168.1.5", "192.168.1.6"]),   # from the beginning
    ("192.168.1.6", ["192.168.1.2", "192.168.1.3", "192.168.1.4", "192.168.1.5", "192.168.1.6"]),  # from the end
    ("192.168.1.3", ["192.168.1.4", "192.168.1.5", "192.168.1.6", "192.168.1.2", "192.168.1.3"]),  # from the middle
])
def test_range_iter_loops(last_ip, expected):
    assert _walk(_alloc(["192.168.1.0/29"], last_ip=last_ip)) == expected


@pytest.mark.parametrize("subnets, ipmap, last_ip, expected", [
    (["10.0.0.0/29"], [], None, "10.0.0.2"),
    (["2001:db8:1::0/64"], [], None, "2001:db8:1::2"),
    (["10.0.0.0/30"], [], None, "10.0.0.2"),
    (["10.0.0.0/29"], ["10.0.0.2"], None, "10.0.0.3"),
    (["10.0.0.0/29"], [], "10.0.0.5", "10.0.0.6"),
    (["10.0.0.0/29"], ["10.0.0.4", "10.0.0.5"], "10.0.0.3", "10.0.0.6"),
    (["10.0.0.0/29"], ["10.0.0.6"], "10.0.0.5", "10.0.0.2"),
    (["10.0.0.0/29"], ["10.0.0.2"], "10.0.0.128", "10.0.0.3"),
    (["10.0.0.0/29"], ["10.0.0.2", "10.0.0.4", "10.0.0.5", "10.0.0.6"], "10.0.0.3", "10.0.0.3"),
    (["10.0.0.0/30", "10.0.1.0/30"], [], None, "10.0.0.2"),
    (["10.0.0.0/30", "10.0.1.0/30"], [], "10.0.0.2", "10.0.1.2"),
    (["10.0.0.0/30", "10.0.1.0/30", "10.0.2.0/30"], [], "10.0.2.2", "10.0.0.2"),
])
def test_allocates_round_robin(subnets, ipmap, last_ip, expected):
    got = _alloc(subnets, ipmap, last_ip).get("ID", "eth0")
    assert got["address"].split("/")[0] == expected


@pytest.mark.parametrize("subnets, ipmap", [
    (["10.0.0.0/30"], ["10.0.0.2"]),
    (["10.0.0.0/29"], ["10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"]),
    (["10.0.0.0/30", "10.0.1.0/30"], ["10.0.0.2", "10.0.1.2"]),
])
def test_out_of_ips_meaningful_error(subnets, ipmap):
    with pytest.raises(CNIError, match="^no IP addresses available in range set"):
        _alloc(subnets, ipmap).get("ID", "eth0")


def test_no_broadcast_and_round_robin_after_release():
    alloc = _alloc(["192.168.1.0/29"])
    assert [alloc.get(f"ID{i}", "eth0")["address"] for i in range(2, 7)] == [
        f"192.168.1.{i}/29" for i in range(2, 7)]
    with pytest.raises(CNIError):
        alloc.get("ID8", "eth0")
    alloc = _alloc(["192.168.1.0/29"])
    assert alloc.get("ID", "eth0")["address"] == "192.168.1.2/29"
    alloc.release("ID", "eth0")
    assert alloc.get("ID", "eth0")["address"] == "192.168.1.3/29"


def test_requested_ip_allocated_twice_and_outside_start_end():
    alloc = _alloc(["192.168.1.0/29"])
    assert alloc.get("ID", "eth0", ipaddress.ip_address("192.168.1.5"))["address"] == "192.168.1.5/29"
    with pytest.raises(CNIError, match="^requested IP address 192.168.1.5 is not available in range set "
                                       "192.168.1.1-192.168.1.6$"):
        alloc.get("ID", "eth0", ipaddress.ip_address("192.168.1.5"))
    alloc.rangeset[0].range_end = ipaddress.ip_address("192.168.1.4")
    with pytest.raises(CNIError):
        alloc.get("ID2", "eth0", ipaddress.ip_address("192.168.1.5"))


@pytest.mark.parametrize("rng, message", [
    ({"subnet": "192.0.2.0/31"}, "Network 192.0.2.0/31 too small to allocate from"),
    ({"subnet": "192.0.2.0/32"}, "Network 192.0.2.0/32 too small to allocate from"),
    ({"subnet": "2001:db8::/127"}, "Network 2001:db8::/127 too small to allocate from"),
    ({"subnet": "192.0.2.2/24"},
     "Network has host bits set. For a subnet mask of length 24 the network address is 192.0.2.0"),
    ({"subnet": "192.0.2.0/24", "rangeStart": "192.0.3.0"}, "RangeStart 192.0.3.0 not in network 192.0.2.0/24"),
    ({"subnet": "192.0.2.0/24", "rangeEnd": "192.0.4.0"}, "RangeEnd 192.0.4.0 not in network 192.0.2.0/24"),
])
def test_range_canonicalize_rejects(rng, message):
    with pytest.raises(CNIError) as info:
        Range.from_dict(rng).canonicalize()
    assert info.value.msg == message


def test_range_defaults_ipv6_end_is_last_address():
    r = Range.from_dict({"subnet": "2001:db8:1::/64"})
    r.canonicalize()
    assert (str(r.range_start), str(r.range_end), str(r.gateway)) == (
        "2001:db8:1::1", "2001:db8:1:0:ffff:ffff:ffff:ffff", "2001:db8:1::1")


def test_load_config_prepends_old_style_range_and_runtime_ranges():
    ipam, _ = load_ipam_config({"name": "n", "cniVersion": "1.0.0",
                                "runtimeConfig": {"ipRanges": [[{"subnet": "10.9.0.0/24"}]]},
                                "ipam": {"type": "host-local", "subnet": "10.1.0.0/24",
                                         "ranges": [[{"subnet": "10.2.0.0/24"}]]}})
    assert [str(rs[0].network) for rs in ipam.ranges] == ["10.9.0.0/24", "10.1.0.0/24", "10.2.0.0/24"]


def test_args_resolv_conf_routes_and_old_versions_match(host_local_binary, tmp_path):
    resolv = tmp_path / "resolv.conf"
    resolv.write_bytes(b"nameserver 10.96.0.10\nsearch default.svc.cluster.local svc.cluster.local\n"
                       b"options ndots:5\ndomain example.com\n")
    data = tmp_path / "data"
    t = Twin(host_local_binary, str(data), _conf(data, {"subnet": "10.5.0.0/24"}))
    t.host.files[str(resolv)] = resolv.read_bytes()
    assert t.add("a", args="K8S_POD_NAME=web;FOO=1").msg == 'ARGS: unknown args ["K8S_POD_NAME=web" "FOO=1"]'
    assert t.add("b", args="IP=nope").msg == 'ARGS: error parsing value of pair "IP=nope": invalid IP address nope'
    out = t.run("ADD", "c", conf=_conf(data, {"subnet": "10.5.0.0/24", "resolvConf": str(resolv)}))
    assert out.result["dns"] == {"nameservers": ["10.96.0.10"], "domain": "example.com",
                                 "search": ["default.svc.cluster.local", "svc.cluster.local"], "options": ["ndots:5"]}
    assert t.run("ADD", "d", conf=_conf(data, {"subnet": "10.5.0.0/24", "resolvConf": str(tmp_path / "no")})
                 ).error.msg == f"open {tmp_path / 'no'}: no such file or directory"
    routes = [{"dst": "192.168.0.0/16", "gw": "10.5.0.254"}, {"dst": "10.9.0.5/8"}]
    assert t.run("ADD", "e", conf=_conf(data, {"subnet": "10.5.0.0/24", "routes": routes})).result["routes"] == routes
    old = t.run("ADD", "f", conf=_conf(data, {"subnet": "10.5.0.0/24", "routes": routes}, version="0.2.0"))
    assert set(old.result) == {"cniVersion", "ip4", "dns"}
    assert t.run("ADD", "g", conf=_conf(data, {"ranges": [[{"subnet": "10.5.0.0/24"}], [{"subnet": "10.6.0.0/24"}]]},
                                        version="0.2.0")).error.msg == \
        "CNI version 0.2.0 does not support more than 1 address per family"
    assert t.add("h", conf={**_conf(data, {"subnet": "10.5.0.0/24"}), "args": {"cni": {"ips": ["10.5.0.77"]}}}) \
        == "10.5.0.77/24"


def test_version_and_escaped_error_output_are_byte_identical(host_local_binary, tmp_path):
    t = Twin(host_local_binary, str(tmp_path), _conf(tmp_path, {"subnet": "10.0.0.0/24"}))
    assert t.run("VERSION", "", env=CNIEnv("VERSION")).stdout.endswith("\n")
    bad = {**_conf(tmp_path, {"subnet": "10.0.0.0/24"}), "name": "n<&"}
    assert t.run("ADD", "c1", conf=bad).error.details == "n<&"
