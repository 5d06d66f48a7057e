"""ServiceAffinity (legacy, v1.21) against upstream's service_affinity_test.go tables.

Upstream pods and Services without a namespace are in "default" here; pods that
upstream put in "" next to a "default" pod are in "other".
"""

from __future__ import annotations

import itertools
import types

import pytest
from lightkube.resources.core_v1 import Service

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code, NodeScore
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins import serviceaffinity as sa
from kubenotes.scheduler.snapshot import ClusterObjects, new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

_n = itertools.count()
SELECTOR = {"foo": "bar"}


def node(name, labels):
    n = make_node(name)
    n.metadata.labels = dict(labels)
    return n


def pod(node_name=None, labels=None, ns="default", **spec):
    return make_pod(f"p{next(_n)}", ns, labels=labels, node_name=node_name, **spec)


def svc(selector, ns="default"):
    return Service.from_dict({"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"s{next(_n)}", "namespace": ns},
                              "spec": {"selector": selector}})


NODES = [node("machine1", {"region": "r1", "zone": "z11"}), node("machine2", {"region": "r1", "zone": "z12"}),
         node("machine3", {"region": "r2", "zone": "z21"}), node("machine4", {"region": "r2", "zone": "z22"}),
         node("machine5", {"region": "r2", "zone": "z22"})]

FILTER = [
    ("nothing scheduled", pod(), [], [], "machine1", ["region"], Code.SUCCESS),
    ("pod with region label match", pod(nodeSelector={"region": "r1"}), [], [], "machine1", ["region"], Code.SUCCESS),
    ("pod with region label mismatch", pod(nodeSelector={"region": "r2"}), [], [], "machine1", ["region"], Code.UNSCHEDULABLE),
    ("service pod on same node", pod(labels=SELECTOR), [pod("machine1", SELECTOR)], [svc(SELECTOR)], "machine1", ["region"],
     Code.SUCCESS),
    ("service pod on different node, region match", pod(labels=SELECTOR), [pod("machine2", SELECTOR)], [svc(SELECTOR)], "machine1",
     ["region"], Code.SUCCESS),
    ("service pod on different node, region mismatch", pod(labels=SELECTOR), [pod("machine3", SELECTOR)], [svc(SELECTOR)],
     "machine1", ["region"], Code.UNSCHEDULABLE),
    ("service in different namespace, region mismatch", pod(labels=SELECTOR, ns="ns1"), [pod("machine3", SELECTOR, ns="ns1")],
     [svc(SELECTOR, ns="ns2")], "machine1", ["region"], Code.SUCCESS),
    ("pod in different namespace, region mismatch", pod(labels=SELECTOR, ns="ns1"), [pod("machine3", SELECTOR, ns="ns2")],
     [svc(SELECTOR, ns="ns1")], "machine1", ["region"], Code.SUCCESS),
    ("service and pod in same namespace, region mismatch", pod(labels=SELECTOR, ns="ns1"), [pod("machine3", SELECTOR, ns="ns1")],
     [svc(SELECTOR, ns="ns1")], "machine1", ["region"], Code.UNSCHEDULABLE),
    ("service pod on different node, multiple labels, not all match", pod(labels=SELECTOR), [pod("machine2", SELECTOR)],
     [svc(SELECTOR)], "machine1", ["region", "zone"], Code.UNSCHEDULABLE),
    ("service pod on different node, multiple labels, all match", pod(labels=SELECTOR), [pod("machine5", SELECTOR)],
     [svc(SELECTOR)], "machine4", ["region", "zone"], Code.SUCCESS),
]


@pytest.mark.parametrize("name,incoming,pods,services,node_name,labels,want", FILTER, ids=[c[0] for c in FILTER])
def test_service_affinity(name, incoming, pods, services, node_name, labels, want):
    h = types.SimpleNamespace(snapshot=new_snapshot(NODES, pods), objects=ClusterObjects(services=services))
    pl = sa.new({"affinityLabels": labels}, h)
    cs = CycleState()
    pi = PodInfo(incoming)
    assert pl.pre_filter(cs, pi, h.snapshot.list())[1].is_success()
    st = pl.filter(cs, pi, h.snapshot.get(node_name))
    assert st.code == want
    if want == Code.UNSCHEDULABLE:
        assert st.reasons == ["node(s) didn't match service affinity"] == [sa.ERR_REASON]


def test_preemption_removing_the_only_service_pod_frees_the_region():
    h = types.SimpleNamespace(snapshot=new_snapshot(NODES, [pod("machine3", SELECTOR)]), objects=ClusterObjects(services=[svc(SELECTOR)]))
    pl = sa.new({"affinityLabels": ["region"]}, h)
    cs = CycleState()
    pi = PodInfo(pod(labels=SELECTOR))
    pl.pre_filter(cs, pi, h.snapshot.list())
    victim = h.snapshot.get("machine3").pods[0]
    assert pl.filter(cs, pi, h.snapshot.get("machine1")).code == Code.UNSCHEDULABLE
    pl.pre_filter_extensions().remove_pod(cs, pi, victim, h.snapshot.get("machine3"))
    assert pl.filter(cs, pi, h.snapshot.get("machine1")).is_success()
    pl.add_pod(cs, pi, victim, h.snapshot.get("machine3"))
    assert pl.filter(cs, pi, h.snapshot.get("machine1")).code == Code.UNSCHEDULABLE


L1 = {"foo": "bar", "baz": "blah"}
L2 = {"bar": "foo", "baz": "blah"}
ZONE1, ZONE2, NOZONE = {"zone": "zone1"}, {"zone": "zone2"}, {"name": "value"}
LABELED = {"machine01": NOZONE, "machine02": NOZONE, "machine11": ZONE1, "machine12": ZONE1, "machine21": ZONE2, "machine22": ZONE2}
RACKED = {"machine01": NOZONE, "machine02": NOZONE, "machine11": {"zone": "zone1", "rack": "rack1"},
          "machine12": {"zone": "zone1", "rack": "rack2"}, "machine21": {"zone": "zone2", "rack": "rack1"},
          "machine22": {"zone": "zone2", "rack": "rack1"}}
ORDER = ["machine11", "machine12", "machine21", "machine22", "machine01", "machine02"]

SCORE = [
    ("nothing scheduled", pod(), [], LABELED, [], ["zone"], [100, 100, 100, 100, 0, 0]),
    ("no services", pod(labels=L1), [pod("machine11")], LABELED, [], ["zone"], [100, 100, 100, 100, 0, 0]),
    ("different services", pod(labels=L1), [pod("machine11", L2)], LABELED, [svc({"key": "value"})], ["zone"],
     [100, 100, 100, 100, 0, 0]),
    ("three pods, one service pod", pod(labels=L1), [pod("machine01", L2), pod("machine11", L2), pod("machine21", L1)], LABELED,
     [svc(L1)], ["zone"], [100, 100, 0, 0, 0, 0]),
    ("three pods, two service pods on different machines", pod(labels=L1),
     [pod("machine11", L2), pod("machine11", L1), pod("machine21", L1)], LABELED, [svc(L1)], ["zone"], [50, 50, 50, 50, 0, 0]),
    ("three service label match pods in different namespaces", pod(labels=L1),
     [pod("machine11", L1, ns="other"), pod("machine11", L1), pod("machine21", L1, ns="other"), pod("machine21", L1, ns="ns1")],
     LABELED, [svc(L1)], ["zone"], [0, 0, 100, 100, 0, 0]),
    ("four pods, three service pods", pod(labels=L1),
     [pod("machine11", L2), pod("machine11", L1), pod("machine21", L1), pod("machine21", L1)], LABELED, [svc(L1)], ["zone"],
     [66, 66, 33, 33, 0, 0]),
    ("service with partial pod label matches", pod(labels=L1), [pod("machine11", L2), pod("machine11", L1), pod("machine21", L1)],
     LABELED, [svc({"baz": "blah"})], ["zone"], [33, 33, 66, 66, 0, 0]),
    ("service pod on non-zoned node", pod(labels=L1),
     [pod("machine01", L1), pod("machine11", L1), pod("machine21", L1), pod("machine21", L1)], LABELED, [svc(L1)], ["zone"],
     [75, 75, 50, 50, 0, 0]),
    ("three pods, two service pods, with rack label", pod(labels=L1),
     [pod("machine01", L2), pod("machine11", L1), pod("machine21", L1)], RACKED, [svc(L1)], ["zone", "rack"],
     [25, 75, 25, 25, 0, 0]),
]


@pytest.mark.parametrize("name,incoming,pods,nodes,services,labels,want", SCORE, ids=[c[0] for c in SCORE])
def test_service_affinity_score(name, incoming, pods, nodes, services, labels, want):
    node_list = [node(n, l) for n, l in nodes.items()]
    h = types.SimpleNamespace(snapshot=new_snapshot(node_list, pods), objects=ClusterObjects(services=services))
    pl = sa.new({"antiAffinityLabelsPreference": labels}, h)
    cs = CycleState()
    pi = PodInfo(incoming)
    scores = []
    for n in node_list:
        s, st = pl.score(cs, pi, h.snapshot.get(n.metadata.name))
        assert st.is_success()
        scores.append(NodeScore(n.metadata.name, s))
    assert pl.score_extensions().normalize_score(cs, pi, scores).is_success()
    got = {s.name: s.score for s in scores}
    assert [got[n] for n in ORDER] == want


def test_factory():
    pl = sa.new(None, None)
    assert pl.name() == "ServiceAffinity" and pl.affinity_labels == [] and pl.anti_affinity_labels_preference == []
    with pytest.raises(ConfigError):
        sa.new({"labels": ["x"]}, None)
    with pytest.raises(ConfigError):
        sa.new({"affinityLabels": "region"}, None)
