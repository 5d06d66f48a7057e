"""The CNI spec model: environment, configs, errors, results, the registry and chaining.

Cases come from containernetworking/cni@v1.3.0:
``SPEC.md`` (the ``dbnet`` example configuration and its "Appendix: Examples" ADD / CHECK /
DEL walk-through with ``bridge``, ``tuning`` and ``portmap``; the "Error" example JSON and
the error-code table; "Deriving runtimeConfig"), ``pkg/skel/skel_test.go`` ("when a required
env var is missing ... returns error code 4", "when CNI_COMMAND is unrecognized", "when
stdin is empty / the network name is missing", "VERSION"), ``pkg/utils/utils_test.go``
(ValidateContainerID, ValidateNetworkName, ValidateInterfaceName tables),
``pkg/version/reconcile_test.go`` (incompatible versions message) and
``libcni/conf_test.go`` (ConfListFromBytes errors, disableCheck parsing).
"""

from __future__ import annotations

import json
import re

import pytest

from kubenotes.cni.manager import CNIManager
from kubenotes.cni.netns import Host
from kubenotes.cni.spec import (
    ERROR_CODE_MEANINGS,
    CNIEnv,
    CNIError,
    PluginCall,
    build_one_config,
    convert_result,
    decode_config,
    lookup_plugin,
    parse_cni_args,
    parse_config_list,
    register_plugin,
    registered_plugins,
    run_plugin,
    unregister_plugin,
    validate_container_id,
    validate_interface_name,
    validate_network_name,
    validate_result,
    version_supports,
)

#: SPEC.md "Example configuration" (jsonc; comments stripped before parsing).
SPEC_DBNET = """
{
  "cniVersion": "1.1.0",
  "cniVersions": ["0.3.1", "0.4.0", "1.0.0", "1.1.0"],
  "name": "dbnet",
  "plugins": [
    {
      "type": "bridge",
      // plugin specific parameters
      "bridge": "cni0",
      "keyA": ["some more", "plugin specific", "configuration"],

      "ipam": {
        "type": "host-local",
        // ipam specific
        "subnet": "10.1.0.0/16",
        "gateway": "10.1.0.1",
        "routes": [
            {"dst": "0.0.0.0/0"}
        ]
      },
      "dns": {
        "nameservers": [ "10.1.0.1" ]
      }
    },
    {
      "type": "tuning",
      "capabilities": {
        "mac": true
      },
      "sysctl": {
        "net.core.somaxconn": "500"
      }
    },
    {
        "type": "portmap",
        "capabilities": {"portMappings": true}
    }
  ]
}
"""


def _strip_jsonc(text: str) -> str:
    return re.sub(r"^\s*//.*$", "", text, flags=re.M)


class Tuning:
    """A test-only ``tuning`` plugin (sets the container interface's MAC from ``runtimeConfig.mac``).

    It also shows the plugin protocol other modules (Calico) implement.
    """

    supported_versions = ("1.0.0", "1.1.0")

    def add(self, call: PluginCall) -> dict:
        result = json.loads(json.dumps(call.config["prevResult"]))
        mac = (call.config.get("runtimeConfig") or {}).get("mac")
        if mac:
            ns = call.host.netns(call.env.netns)
            ns.interfaces[call.env.ifname].mac = mac
            for intf in result["interfaces"]:
                if intf.get("sandbox") and intf["name"] == call.env.ifname:
                    intf["mac"] = mac
        return result

    def delete(self, call: PluginCall) -> None:
        pass

    def check(self, call: PluginCall) -> None:
        mac = (call.config.get("runtimeConfig") or {}).get("mac")
        if mac and call.host.netns(call.env.netns).interfaces[call.env.ifname].mac != mac:
            raise CNIError(999, "mac mismatch")


@pytest.fixture
def tuning():
    register_plugin("tuning", Tuning())
    yield
    unregister_plugin("tuning")


# ---------------------------------------------------------------- spec examples


def test_spec_example_config_list_parses():
    cl = parse_config_list(_strip_jsonc(SPEC_DBNET))
    assert (cl.name, cl.cni_version, [p["type"] for p in cl.plugins]) == ("dbnet", "1.1.0",
                                                                          ["bridge", "tuning", "portmap"])
    assert cl.capabilities() == {"mac", "portMappings"}
    assert cl.disable_check is False


def test_spec_example_deriving_runtime_config():
    cl = parse_config_list(_strip_jsonc(SPEC_DBNET))
    caps = {"portMappings": [{"hostPort": 8080, "containerPort": 80, "protocol": "tcp"}],
            "mac": "00:11:22:33:44:66"}
    conf = build_one_config(cl, 2, capability_args=caps)
    assert conf["runtimeConfig"] == {"portMappings": [{"hostPort": 8080, "containerPort": 80, "protocol": "tcp"}]}
    assert build_one_config(cl, 1, capability_args=caps)["runtimeConfig"] == {"mac": "00:11:22:33:44:66"}
    assert "runtimeConfig" not in build_one_config(cl, 0, capability_args=caps)
    assert (conf["name"], conf["cniVersion"]) == ("dbnet", "1.1.0")


def test_spec_appendix_add_check_del_walkthrough(tuning):
    # the reference plugins modelled (v1.1.1, Debian's) implement spec 1.0.0, so run the example at 1.0.0
    conf = json.loads(_strip_jsonc(SPEC_DBNET))
    conf["cniVersion"], conf["cniVersions"] = "1.0.0", ["0.3.1", "0.4.0", "1.0.0"]
    m = CNIManager("node-1", conf, loopback=False)
    caps_mac = "00:11:22:33:44:66"
    pm = [{"hostPort": 8080, "containerPort": 80, "protocol": "tcp"}]
    m.loopback = None
    # the runtime passes the mac capability argument too: inject it like go-cni's WithCapability
    orig = m._invoke

    def invoke(net, index, command, env, *, prev_result, capability_args):
        return orig(net, index, command, env, prev_result=prev_result,
                    capability_args={**capability_args, "mac": caps_mac})

    m._invoke = invoke
    result = m.setup_pod_network("default", "db", "blue", "/var/run/netns/blue", port_mappings=pm)
    add = [t for t in m.trace if t["command"] == "ADD"]
    assert [t["type"] for t in add] == ["bridge", "tuning", "portmap"]
    # 1) bridge delegated to host-local with the exact same stdin
    assert add[0]["delegated"][0]["type"] == "host-local"
    ipam_result = json.loads(add[0]["delegated"][0]["stdout"])
    assert ipam_result["ips"] == [{"address": "10.1.0.2/16", "gateway": "10.1.0.1"}]
    assert ipam_result["routes"] == [{"dst": "0.0.0.0/0"}]
    bridge_result = json.loads(add[0]["stdout"])
    assert bridge_result["ips"] == [{"interface": 2, "address": "10.1.0.2/16", "gateway": "10.1.0.1"}]
    assert [i["name"] for i in bridge_result["interfaces"]][::2] == ["cni0", "eth0"]
    assert bridge_result["interfaces"][2]["sandbox"] == "/var/run/netns/blue"
    assert bridge_result["dns"] == {"nameservers": ["10.1.0.1"]}
    # 2) tuning gets prevResult = bridge's result and the mac capability; the mac changes
    assert add[1]["stdin"]["prevResult"] == bridge_result
    assert add[1]["stdin"]["runtimeConfig"] == {"mac": caps_mac}
    tuning_result = json.loads(add[1]["stdout"])
    assert tuning_result["interfaces"][2]["mac"] == caps_mac
    # 3) portmap gets tuning's result and returns it unchanged
    assert add[2]["stdin"]["prevResult"] == tuning_result
    assert add[2]["stdin"]["runtimeConfig"] == {"portMappings": pm}
    assert json.loads(add[2]["stdout"]) == tuning_result == result
    # CHECK: in order, each with the final ADD result as prevResult, no output
    n = len(m.trace)
    m.check_pod_network("default", "db", "blue", "/var/run/netns/blue")
    check = m.trace[n:]
    assert [(t["type"], t["stdout"]) for t in check] == [("bridge", ""), ("tuning", ""), ("portmap", "")]
    assert all(t["stdin"]["prevResult"] == result for t in check)
    assert [d["command"] for d in check[0]["delegated"]] == ["CHECK"]
    # DEL: reverse order, with the cached result
    n = len(m.trace)
    m.teardown_pod_network("default", "db", "blue", "/var/run/netns/blue", port_mappings=pm)
    dels = m.trace[n:]
    assert [t["type"] for t in dels] == ["portmap", "tuning", "bridge"]
    assert all(t["stdin"]["prevResult"] == result for t in dels)
    assert m.host.nat.get("CNI-HOSTPORT-DNAT") == []
    assert "eth0" not in m.host.netns("/var/run/netns/blue").interfaces


def test_spec_error_example_json_shape():
    e = CNIError(7, "Invalid Configuration", "Network 192.168.0.0/31 too small to allocate from.")
    assert e.to_spec_dict("1.1.0") == {"cniVersion": "1.1.0", "code": 7, "msg": "Invalid Configuration",
                                       "details": "Network 192.168.0.0/31 too small to allocate from."}
    assert CNIError.from_dict(e.to_dict()) == e
    assert sorted(ERROR_CODE_MEANINGS) == [1, 2, 3, 4, 5, 6, 7, 11, 50, 51]


# ---------------------------------------------------------------- skel (plugin side)


@pytest.mark.parametrize("env, missing", [
    (CNIEnv("ADD", "c1", "", "eth0", path="/opt/cni/bin"), "CNI_NETNS"),
    (CNIEnv("ADD", "", "/ns", "eth0", path="/opt/cni/bin"), "CNI_CONTAINERID"),
    (CNIEnv("DEL", "c1", "", "", path="/opt/cni/bin"), "CNI_IFNAME"),
    (CNIEnv("ADD", "c1", "/ns", "eth0"), "CNI_PATH"),
    (CNIEnv(""), "CNI_COMMAND"),
])
def test_skel_missing_env_var_is_code_4(env, missing):
    out = run_plugin("host-local", env, {"cniVersion": "1.0.0", "name": "n"})
    assert out.exit_code == 1 and out.error.code == 4
    assert out.error.msg.startswith("required env variables [") and missing in out.error.msg


def test_skel_del_without_netns_is_allowed_and_unknown_command_rejected():
    h = Host()
    conf = {"cniVersion": "1.0.0", "name": "n", "ipam": {"type": "host-local", "subnet": "10.0.0.0/24"}}
    assert run_plugin("host-local", CNIEnv("DEL", "c1", "", "eth0", path="/p"), conf, host=h).exit_code == 0
    out = run_plugin("host-local", CNIEnv("NOPE", "c1", "/ns", "eth0", path="/p"), conf, host=h)
    assert (out.error.code, out.error.msg) == (4, "unknown CNI_COMMAND: NOPE")


def test_skel_stdin_errors_and_version():
    env = CNIEnv("ADD", "c1", "/ns", "eth0", path="/p")
    assert run_plugin("loopback", env, b"").error.to_dict() == {
        "code": 6, "msg": "error unmarshall network config: unexpected end of JSON input"}
    assert run_plugin("loopback", env, b"{}").error.to_dict() == {"code": 7, "msg": "missing network name"}
    out = run_plugin("host-local", CNIEnv("VERSION"), b"")
    assert out.as_json() == {"cniVersion": "1.0.0",
                             "supportedVersions": ["0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0"]}
    err = run_plugin("host-local", env, {"cniVersion": "1.1.0", "name": "n"}).error
    assert err.to_dict() == {"code": 1, "msg": "incompatible CNI versions", "details":
                             'config is "1.1.0", plugin supports ["0.1.0" "0.2.0" "0.3.0" "0.3.1" "0.4.0" "1.0.0"]'}


def test_check_and_status_need_new_enough_config_versions(tuning):
    env = CNIEnv("CHECK", "c1", "/ns", "eth0", path="/p")
    assert run_plugin("loopback", env, {"cniVersion": "0.3.1", "name": "n"}).error.msg == \
        "config version does not allow CHECK"
    status = CNIEnv("STATUS", path="/p")
    assert run_plugin("tuning", status, {"cniVersion": "1.0.0", "name": "n"}).error.msg == \
        "config version does not allow STATUS"
    assert run_plugin("tuning", status, {"cniVersion": "1.1.0", "name": "n"}).exit_code == 0
    assert run_plugin("loopback", status, {"cniVersion": "1.1.0", "name": "n"}).error.msg == \
        "plugin version does not allow STATUS"
    assert [version_supports(v, "CHECK") for v in ("0.3.1", "0.4.0", "1.0.0")] == [False, True, True]


# ---------------------------------------------------------------- utils


@pytest.mark.parametrize("cid, code", [("", 3), ("a" * 64, None), ("_bad", 4), ("ok.id-1_x", None),
                                       ("has space", 4), ("semi;colon", 4)])
def test_validate_container_id(cid, code):
    if code is None:
        validate_container_id(cid)
    else:
        with pytest.raises(CNIError) as e:
            validate_container_id(cid)
        assert e.value.code == code


@pytest.mark.parametrize("name, ok", [("dbnet", True), ("my-net.1", True), ("", False), ("a/b", False),
                                      (".hidden", False)])
def test_validate_network_name(name, ok):
    if ok:
        validate_network_name(name)
    else:
        with pytest.raises(CNIError) as e:
            validate_network_name(name)
        assert e.value.code == 7


@pytest.mark.parametrize("ifname, msg", [
    ("eth0", None), ("", "interface name is empty"), ("1234567890123456", "interface name is too long"),
    (".", "interface name is . or .."), ("..", "interface name is . or .."),
    ("eth/0", "interface name contains / or : or whitespace characters"),
    ("eth 0", "interface name contains / or : or whitespace characters"),
    ("123456789012345", None),
])
def test_validate_interface_name(ifname, msg):
    if msg is None:
        validate_interface_name(ifname)
    else:
        with pytest.raises(CNIError) as e:
            validate_interface_name(ifname)
        assert (e.value.code, e.value.msg) == (4, msg)


def test_cni_args_parsing():
    assert parse_cni_args("") == {}
    assert parse_cni_args("A=1;B=x=y") == {"A": "1", "B": "x=y"}
    with pytest.raises(CNIError, match='ARGS: invalid pair "junk"'):
        parse_cni_args("A=1;junk")


# ---------------------------------------------------------------- libcni config lists


@pytest.mark.parametrize("data, msg", [
    ({"cniVersion": "1.0.0", "plugins": [{"type": "bridge"}]}, "error parsing configuration list: no name"),
    ({"name": 5, "plugins": []}, "error parsing configuration list: invalid name type int"),
    ({"name": "n", "cniVersion": "1.0.0"}, "error parsing configuration list: no 'plugins' key"),
    ({"name": "n", "cniVersion": "1.0.0", "plugins": []}, "error parsing configuration list: no plugins in list"),
    ({"name": "n", "cniVersion": "1.0.0", "plugins": [{}]}, "error parsing configuration: missing 'type'"),
    ({"name": "n", "cniVersion": "1.0.0", "disableCheck": "maybe", "plugins": [{"type": "x"}]},
     'error parsing configuration list: invalid value "maybe" for disableCheck'),
])
def test_config_list_errors(data, msg):
    with pytest.raises(CNIError) as e:
        parse_config_list(data)
    assert e.value.msg == msg


def test_config_list_disable_check_string_and_versions():
    cl = parse_config_list({"name": "n", "cniVersion": "1.0.0", "disableCheck": "true", "plugins": [{"type": "x"}]})
    assert cl.disable_check is True
    cl = parse_config_list({"name": "n", "cniVersion": "0.4.0", "cniVersions": ["0.4.0", "1.0.0", "9.9.9"],
                            "plugins": [{"type": "x"}]})
    assert cl.cni_version == "1.0.0"
    assert parse_config_list('{"name":"n","plugins":[{"type":"x"}]}').cni_version == ""
    with pytest.raises(CNIError) as e:
        parse_config_list("{nope")
    assert e.value.code == 6


def test_decode_config_rejects_non_objects():
    with pytest.raises(CNIError) as e:
        decode_config("[1, 2]")
    assert e.value.code == 6


# ---------------------------------------------------------------- results, registry


def test_result_validation_and_conversion():
    good = {"cniVersion": "1.0.0", "interfaces": [{"name": "eth0", "sandbox": "/ns"}],
            "ips": [{"interface": 0, "address": "10.0.0.2/24", "gateway": "10.0.0.1"}],
            "routes": [{"dst": "0.0.0.0/0"}], "dns": {}}
    validate_result(good)
    with pytest.raises(CNIError, match="routes\\[0\\].dst"):
        validate_result({**good, "routes": [{"dst": "nope"}]})
    with pytest.raises(CNIError, match="ips\\[0\\].address"):
        validate_result({**good, "ips": [{"address": "10.0.0.2"}]})
    old = convert_result(good, "0.3.1")
    assert old["ips"][0]["version"] == "4" and old["cniVersion"] == "0.3.1"
    assert convert_result(old, "1.0.0")["ips"][0] == good["ips"][0]
    assert convert_result(good, "0.2.0") == {"cniVersion": "0.2.0", "ip4": {
        "ip": "10.0.0.2/24", "gateway": "10.0.0.1", "routes": [{"dst": "0.0.0.0/0"}]}, "dns": {}}
    with pytest.raises(CNIError, match="no valid IP addresses"):
        convert_result({"cniVersion": "1.0.0"}, "0.2.0")


def test_registry_lists_builtin_plugins_and_rejects_incomplete_ones():
    assert {"bridge", "host-local", "loopback", "portmap", "ptp", "bandwidth"} <= set(registered_plugins())
    with pytest.raises(TypeError):
        register_plugin("broken", object())
    with pytest.raises(CNIError) as e:
        lookup_plugin("no-such-plugin")
    assert e.value.msg.startswith('failed to find plugin "no-such-plugin"')
    out = run_plugin("no-such-plugin", CNIEnv("ADD", "c", "/ns", "eth0", path="/p"), {"name": "n"})
    assert out.exit_code == 1 and out.error.code == 999


def test_env_round_trip():
    env = CNIEnv("ADD", "c1", "/var/run/netns/x", "eth0", "K8S_POD_NAME=web", "/opt/cni/bin")
    assert CNIEnv.from_environ(env.to_environ()) == env
    assert CNIEnv.from_environ({"CNI_COMMAND": "VERSION"}).to_environ() == {"CNI_COMMAND": "VERSION"}
