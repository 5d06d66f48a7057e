"""HTTPExtender, its JSON and the extender configuration (ports of extender_test.go and validation_test.go cases).

Each case names its upstream source (kubernetes/kubernetes@v1.34.0).
"""

from __future__ import annotations

import pytest

from kubenotes.errors import ConfigError
from kubenotes.scheduler.config import API_VERSION, KIND, load_config
from kubenotes.scheduler.extender import (
    DEFAULT_EXTENDER_TIMEOUT_SECONDS,
    DemoExtender,
    ExtenderArgs,
    ExtenderFilterResult,
    HostPriority,
    HTTPExtender,
    MetaPod,
    MetaVictims,
    build_extenders,
    convert_to_meta_victims,
)
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins.defaultpreemption.preemption import Victims
from kubenotes.scheduler.snapshot import new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

URL = "http://extender.example:8888/scheduler"


def nodes(*names, **kw):
    return [NodeInfo(make_node(n, **kw)) for n in names]


class Recorder:
    """An in-process extender service answering canned JSON and keeping the requests."""

    def __init__(self, **answers):
        self.answers = answers
        self.requests: list[tuple[str, object]] = []

    def __getattr__(self, verb):
        if verb not in self.answers:
            raise AttributeError(verb)

        def call(request):
            self.requests.append((verb, request))
            a = self.answers[verb]
            if isinstance(a, Exception):
                raise a
            return a(request) if callable(a) else a
        return call


def ext(service=None, **config):
    return HTTPExtender({"urlPrefix": URL, **config}, service=service)


# --------------------------------------------------------------------------- TestIsInterested
@pytest.mark.parametrize("label, managed, pod, want", [
    ("Empty managed resources", [], make_pod("p"), True),
    ("Managed memory, empty resources", ["memory"], make_pod("p"), False),
    ("Managed memory, container memory with Requests", ["memory"], make_pod("p", requests={"memory": "0"}), True),
    ("Managed memory, container memory with Limits", ["memory"], make_pod("p", limits={"memory": "0"}), True),
    ("Managed memory, init container memory", ["memory"],
     make_pod("p", initContainers=[{"name": "i", "image": "x", "resources": {"requests": {"memory": "0"}}}]), True),
])
def test_is_interested(label, managed, pod, want):
    # pkg/scheduler/extender_test.go TestIsInterested
    e = ext(managedResources=[{"name": m} for m in managed])
    assert e.is_interested(pod) is want
    assert e.is_interested(PodInfo(pod)) is want


# --------------------------------------------------------------------------- TestConvertToMetaVictims / TestConvertToVictims
def _pod(name, uid):
    return PodInfo(make_pod(name, uid=uid))


def test_convert_to_meta_victims_keeps_pdb_violations():
    # pkg/scheduler/extender_test.go TestConvertToMetaVictims
    got = convert_to_meta_victims({
        "node1": Victims([_pod("pod1", "uid1"), _pod("pod3", "uid3")], 1),
        "node2": Victims([_pod("pod2", "uid2"), _pod("pod4", "uid4")], 2),
    })
    assert got == {"node1": MetaVictims([MetaPod("uid1"), MetaPod("uid3")], 1),
                   "node2": MetaVictims([MetaPod("uid2"), MetaPod("uid4")], 2)}


def _two_node_snapshot():
    pods = [make_pod(f"pod{i}", uid=f"uid{i}", node_name=f"node{1 if i % 2 else 2}") for i in (1, 2, 3, 4)]
    return new_snapshot([make_node("node1"), make_node("node2")], pods)


def test_convert_to_victims_finds_pods_by_uid_and_keeps_pdb_violations():
    # pkg/scheduler/extender_test.go TestConvertToVictims
    meta = {"node1": MetaVictims([MetaPod("uid1"), MetaPod("uid3")], 1),
            "node2": MetaVictims([MetaPod("uid2"), MetaPod("uid4")], 2)}
    got, s = ext().convert_to_victims(meta, _two_node_snapshot())
    assert s.is_success()
    assert {n: ([p.name for p in v.pods], v.num_pdb_violations) for n, v in got.items()} == {
        "node1": (["pod1", "pod3"], 1), "node2": (["pod2", "pod4"], 2)}


def test_convert_to_victims_errors_for_a_pod_not_on_its_node_and_an_unknown_node():
    _, s = ext().convert_to_victims({"node1": MetaVictims([MetaPod("uid2")], 0)}, _two_node_snapshot())
    assert (s.code, s.message()) == (Code.ERROR, f"extender: {URL} claims to preempt pod (UID: &{{uid2}}) on node: "
                                                 "node1, but the pod is not found on that node")
    _, s = ext().convert_to_victims({"node9": MetaVictims([], 0)}, _two_node_snapshot())
    assert s.message() == 'nodeinfo not found for node name "node9"'


# --------------------------------------------------------------------------- Filter
def test_filter_sends_full_nodes_or_names_as_configured():
    # pkg/scheduler/extender.go Filter: Nodes unless nodeCacheCapable, then NodeNames
    svc = Recorder(filter={"NodeNames": ["b"], "FailedNodes": {"a": "no"}, "Error": ""})
    kept, failed, unresolvable, s = ext(svc, filterVerb="filter", nodeCacheCapable=True).filter(
        PodInfo(make_pod("p")), nodes("a", "b"))
    assert s.is_success() and [n.name for n in kept] == ["b"] and failed == {"a": "no"} and unresolvable == {}
    (verb, req), = svc.requests
    assert verb == "filter" and req["NodeNames"] == ["a", "b"] and req["Nodes"] is None
    assert req["Pod"]["metadata"]["name"] == "p"

    svc = Recorder(filter=lambda r: {"Nodes": {"items": r["Nodes"]["items"][1:]}, "FailedAndUnresolvableNodes": {"a": "x"}})
    kept, failed, unresolvable, s = ext(svc, filterVerb="filter").filter(PodInfo(make_pod("p")), nodes("a", "b"))
    (verb, req), = svc.requests
    assert req["NodeNames"] is None and [n["metadata"]["name"] for n in req["Nodes"]["items"]] == ["a", "b"]
    assert req["Nodes"]["metadata"] == {}
    assert [n.name for n in kept] == ["b"] and unresolvable == {"a": "x"}


def test_filter_with_full_nodes_returns_new_node_infos_without_pods():
    # v1.34: a Nodes result is wrapped in new NodeInfos (kubernetes/kubernetes#141781)
    ni = NodeInfo(make_node("a"))
    ni.add_pod(PodInfo(make_pod("running", requests={"cpu": "1"}, node_name="a")))
    svc = Recorder(filter=lambda r: {"Nodes": r["Nodes"]})
    kept, _, _, s = ext(svc, filterVerb="filter").filter(PodInfo(make_pod("p")), [ni])
    assert kept[0] is not ni and kept[0].name == "a" and kept[0].pods == [] and kept[0].requested.milli_cpu == 0
    svc = Recorder(filter={"NodeNames": ["a"]})
    kept, _, _, s = ext(svc, filterVerb="filter", nodeCacheCapable=True).filter(PodInfo(make_pod("p")), [ni])
    assert kept[0] is ni


def test_filter_without_a_verb_keeps_every_node_and_calls_nothing():
    svc = Recorder()
    kept, failed, unresolvable, s = ext(svc).filter(PodInfo(make_pod("p")), nodes("a"))
    assert [n.name for n in kept] == ["a"] and s.is_success() and svc.requests == []


@pytest.mark.parametrize("answer, message", [
    ({"Error": "out of licences"}, "out of licences"),
    ({"NodeNames": ["zz"]}, f'extender "{URL}" claims a filtered node "zz" which is not found in the input node list'),
    (RuntimeError("boom"), f"failed filter with extender at URL {URL}/filter, code 500"),
])
def test_filter_errors(answer, message):
    e = ext(Recorder(filter=answer), filterVerb="filter", nodeCacheCapable=True)
    kept, _, _, s = e.filter(PodInfo(make_pod("p")), nodes("a"))
    assert (kept, s.code, s.message()) == ([], Code.ERROR, message)


def test_a_verb_the_service_does_not_serve_answers_404():
    e = ext(Recorder(), filterVerb="filter")
    _, _, _, s = e.filter(PodInfo(make_pod("p")), nodes("a"))
    assert s.message() == f"failed filter with extender at URL {URL}/filter, code 404"
    verb, request, code, response = e.exchanges[-1]
    assert (verb, code, response) == ("filter", 404, None)


def test_trailing_slash_of_url_prefix_is_trimmed():
    e = HTTPExtender({"urlPrefix": URL + "/", "filterVerb": "filter"}, service=Recorder())
    _, _, _, s = e.filter(PodInfo(make_pod("p")), nodes("a"))
    assert s.message() == f"failed filter with extender at URL {URL}/filter, code 404"


# --------------------------------------------------------------------------- Prioritize, Bind
def test_prioritize_returns_host_priorities_and_the_weight():
    svc = Recorder(prioritize=[{"Host": "a", "Score": 3}, {"host": "b", "score": 7}])  # Go decodes keys in any case
    hosts, weight, s = ext(svc, prioritizeVerb="prio", weight=4).prioritize(PodInfo(make_pod("p")), nodes("a", "b"))
    assert (hosts, weight, s.is_success()) == ([HostPriority("a", 3), HostPriority("b", 7)], 4, True)
    hosts, weight, s = ext(Recorder(prioritize=[{"Host": "a", "Score": "high"}]), prioritizeVerb="prioritize",
                           weight=1).prioritize(PodInfo(make_pod("p")), nodes("a"))
    assert s.message() == "json: cannot unmarshal string into Go struct field HostPriority.Score of type int64"


def test_prioritize_without_a_verb_scores_zero_with_weight_zero():
    hosts, weight, s = ext(weight=3).prioritize(PodInfo(make_pod("p")), nodes("a", "b"))
    assert (hosts, weight) == ([HostPriority("a", 0), HostPriority("b", 0)], 0)


def test_bind_sends_binding_args_and_reads_error():
    svc = Recorder(bind={"Error": ""})
    e = ext(svc, bindVerb="bind")
    s = e.bind({"metadata": {"namespace": "ns", "name": "p", "uid": "u1"}, "target": {"kind": "Node", "name": "a"}})
    assert s.is_success()
    assert svc.requests == [("bind", {"PodName": "p", "PodNamespace": "ns", "PodUID": "u1", "Node": "a"})]
    s = ext(Recorder(bind={"Error": "node is full"}), bindVerb="bind").bind({"metadata": {}, "target": {}})
    assert (s.code, s.message()) == (Code.ERROR, "node is full")
    assert ext().bind({}).message() == "unexpected empty bindVerb in extender"


# --------------------------------------------------------------------------- ProcessPreemption
def test_process_preemption_sends_victims_as_configured_and_restores_pods():
    snap = _two_node_snapshot()
    victims = {"node1": Victims([p for p in snap.get("node1").pods], 0),
               "node2": Victims([p for p in snap.get("node2").pods], 1)}
    svc = Recorder(preempt={"NodeNameToMetaVictims": {"node2": {"Pods": [{"UID": "uid2"}], "NumPDBViolations": 1}}})
    got, s = ext(svc, preemptVerb="preempt", nodeCacheCapable=True).process_preemption(
        PodInfo(make_pod("high")), victims, snap)
    assert s.is_success() and list(got) == ["node2"] and [p.name for p in got["node2"].pods] == ["pod2"]
    (_, req), = svc.requests
    assert req["NodeNameToVictims"] is None
    assert req["NodeNameToMetaVictims"]["node1"] == {"Pods": [{"UID": "uid1"}, {"UID": "uid3"}], "NumPDBViolations": 0}

    svc = Recorder(preempt={"NodeNameToMetaVictims": {}})
    got, s = ext(svc, preemptVerb="preempt").process_preemption(PodInfo(make_pod("high")), victims, snap)
    (_, req), = svc.requests
    assert req["NodeNameToMetaVictims"] is None
    assert [p["metadata"]["uid"] for p in req["NodeNameToVictims"]["node2"]["Pods"]] == ["uid2", "uid4"]
    assert got == {} and s.is_success()


# --------------------------------------------------------------------------- building, wire types
def test_build_extenders_puts_ignorable_ones_last_and_defaults_the_timeout():
    # pkg/scheduler/scheduler.go buildExtenders; pkg/scheduler/extender.go NewHTTPExtender (5 s)
    built = build_extenders([{"urlPrefix": "a", "ignorable": True}, {"urlPrefix": "b", "httpTimeout": "1m30s"},
                             {"urlPrefix": "c"}])
    assert [(e.name(), e.timeout_seconds) for e in built] == [("b", 90.0), ("c", DEFAULT_EXTENDER_TIMEOUT_SECONDS),
                                                              ("a", DEFAULT_EXTENDER_TIMEOUT_SECONDS)]


def test_wire_types_round_trip_with_go_field_names():
    args = ExtenderArgs({"metadata": {"name": "p"}}, None, ["a"])
    assert args.to_dict() == {"Pod": {"metadata": {"name": "p"}}, "Nodes": None, "NodeNames": ["a"]}
    assert ExtenderArgs.from_dict(args.to_dict()) == args
    r = ExtenderFilterResult.from_dict({"nodenames": ["a"], "failedNodes": {"b": "x"}})
    assert (r.node_names, r.failed_nodes, r.nodes, r.error) == (["a"], {"b": "x"}, None, "")


def test_demo_extender_answers_names_when_sent_names():
    demo = DemoExtender(avoid_zones=["z2"], prefer_zone="z1",
                        nodes=[make_node("a", labels={"topology.kubernetes.io/zone": "z1"}),
                               make_node("b", labels={"topology.kubernetes.io/zone": "z2"}), make_node("c")])
    r = demo.filter({"Pod": {}, "Nodes": None, "NodeNames": ["a", "b", "c"]})
    assert r["NodeNames"] == ["a"] and r["Nodes"] is None
    assert r["FailedNodes"] == {"b": "zone z2 is avoided by the extender"}
    assert r["FailedAndUnresolvableNodes"] == {"c": "node has no topology.kubernetes.io/zone label"}


# --------------------------------------------------------------------------- configuration (validation_test.go)
def _config(*extenders):
    return {"apiVersion": API_VERSION, "kind": KIND, "extenders": list(extenders)}


VALID = {"urlPrefix": "http://e", "prioritizeVerb": "prioritize", "weight": 1}


@pytest.mark.parametrize("name, extenders, message", [
    ("extenderNegativeWeight", [{**VALID, "weight": -1}],
     "extenders[0].weight: Invalid value: -1: must have a positive weight applied to it"),
    ("extenderDuplicateManagedResource", [{**VALID, "managedResources": [{"name": "example.com/foo"},
                                                                          {"name": "example.com/foo"}]}],
     'extenders[0].managedResources[1].name: Invalid value: "example.com/foo": duplicate extender managed resource name'),
    ("extenderDuplicateBind", [{**VALID, "bindVerb": "foo"}, {"prioritizeVerb": "prioritize", "bindVerb": "bar", "weight": 1}],
     'extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind'),
    ("not an extended resource", [{"urlPrefix": "u", "managedResources": [{"name": "cpu"}]}],
     'extenders[0].managedResources[0].name: Invalid value: "cpu": is an invalid extended resource name'),
    ("unknown field", [{"urlPrefix": "u", "filterverb": "f"}], 'strict decoding error: unknown field "extenders[0].filterverb"'),
    ("bad timeout", [{"urlPrefix": "u", "httpTimeout": "5"}], 'extenders[0].httpTimeout: time: missing unit in duration "5"'),
    ("weight type", [{"urlPrefix": "u", "weight": "2"}],
     "json: cannot unmarshal string into Go struct field extenders[0].weight of type int64"),
])
def test_validate_extenders(name, extenders, message):
    # pkg/scheduler/apis/config/validation/validation_test.go TestValidateKubeSchedulerConfigurationV1 (extender cases)
    with pytest.raises(ConfigError) as e:
        load_config(_config(*extenders))
    assert str(e.value) == message


def test_a_valid_extender_configuration_loads_and_dumps_unchanged():
    e = {**VALID, "filterVerb": "filter", "bindVerb": "bind", "nodeCacheCapable": True, "ignorable": True,
         "httpTimeout": "2s", "managedResources": [{"name": "example.com/gpu", "ignoredByScheduler": True}],
         "tlsConfig": {"insecure": True}}
    cfg = load_config(_config(e))
    assert cfg.extenders == [e] and cfg.to_dict()["extenders"] == [e]


def test_an_answer_of_the_wrong_json_type_is_refused_as_go_refuses_it():
    _, _, _, s = ext(Recorder(filter=["a"]), filterVerb="filter").filter(PodInfo(make_pod("p")), nodes("a"))
    assert s.message() == "json: cannot unmarshal array into Go value of type v1.ExtenderFilterResult"
    s = ext(Recorder(bind="ok"), bindVerb="bind").bind({"metadata": {}, "target": {}})
    assert s.message() == "json: cannot unmarshal string into Go value of type v1.ExtenderBindingResult"
    _, _, _, s = ext(Recorder(filter=lambda r: object()), filterVerb="filter").filter(PodInfo(make_pod("p")), nodes("a"))
    assert s.message() == f"failed filter with extender at URL {URL}/filter, code 500"
