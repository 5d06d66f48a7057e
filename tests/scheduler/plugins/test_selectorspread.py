"""SelectorSpread (legacy, v1.22) against upstream's selector_spread_test.go tables.

Upstream cases that rely on Go's empty namespace ("" lists Services of every
namespace) are adapted with explicit namespaces; the expected scores are unchanged.
"""

from __future__ import annotations

import itertools
import types

import pytest
from lightkube.models.meta_v1 import OwnerReference
from lightkube.resources.apps_v1 import ReplicaSet, StatefulSet
from lightkube.resources.core_v1 import ReplicationController, Service

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code, NodeScore
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins import selectorspread as ss
from kubenotes.scheduler.snapshot import ClusterObjects, new_snapshot
from kubenotes.scheduler.testing import make_node, make_pod

L1 = {"foo": "bar", "baz": "blah"}
L2 = {"bar": "foo", "baz": "blah"}
_n = itertools.count()


def pod(node=None, labels=None, ns="default", owner=None, **spec):
    p = make_pod(f"p{next(_n)}", ns, labels=labels, node_name=node, **spec)
    if owner:
        kind, name = owner
        p.metadata.ownerReferences = [OwnerReference(apiVersion="v1" if kind == "ReplicationController" else "apps/v1",
                                                     kind=kind, name=name, uid=f"uid-{name}", controller=True)]
    return p


def svc(selector, ns="default", name="s1"):
    return Service.from_dict({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns},
                              "spec": {"selector": selector}})


def rc(name, selector):
    return ReplicationController.from_dict({"apiVersion": "v1", "kind": "ReplicationController",
                                            "metadata": {"name": name, "namespace": "default"}, "spec": {"selector": selector}})


def _tpl():
    return {"metadata": {}, "spec": {"containers": [{"name": "c"}]}}


def rs(name, match_labels):
    return ReplicaSet.from_dict({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
                                 "spec": {"selector": {"matchLabels": match_labels}, "template": _tpl()}})


def sts(name, match_labels):
    return StatefulSet.from_dict({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name, "namespace": "default"},
                                  "spec": {"selector": {"matchLabels": match_labels}, "template": _tpl(), "serviceName": "x"}})


def node(name, labels=None):
    n = make_node(name)
    n.metadata.labels = dict(labels or {})
    return n


def run(incoming, pods, nodes, objects):
    h = types.SimpleNamespace(snapshot=new_snapshot(nodes, pods), objects=objects)
    pl = ss.new(None, h)
    cs = CycleState()
    pi = PodInfo(incoming)
    assert pl.pre_score(cs, pi, h.snapshot.list()).is_success()
    scores = []
    for n in nodes:
        s, st = pl.score(cs, pi, h.snapshot.get(n.metadata.name))
        assert st.is_success()
        scores.append(NodeScore(n.metadata.name, s))
    assert pl.score_extensions().normalize_score(cs, pi, scores).is_success()
    return {s.name: s.score for s in scores}


TWO = [node("node1"), node("node2")]
SPREAD = [
    ("nothing scheduled", pod(), [], ClusterObjects(), [100, 100]),
    ("no services", pod(labels=L1), [pod("node1")], ClusterObjects(), [100, 100]),
    ("different services", pod(labels=L1), [pod("node1", L2)], ClusterObjects(services=[svc({"key": "value"})]), [100, 100]),
    ("two pods, one service pod", pod(labels=L1), [pod("node1", L2), pod("node2", L1)], ClusterObjects(services=[svc(L1)]), [100, 0]),
    ("five pods, one service pod in other namespaces", pod(labels=L1, ns="ns0"),
     [pod("node1", L2, ns="ns0"), pod("node1", L1), pod("node1", L1, ns="ns1"), pod("node2", L1, ns="ns0"), pod("node2", L2, ns="ns0")],
     ClusterObjects(services=[svc(L1, ns="ns0")]), [100, 0]),
    ("four pods, one service pod in default namespace", pod(labels=L1),
     [pod("node1", L1, ns="other"), pod("node1", L1, ns="ns1"), pod("node2", L1), pod("node2", L2, ns="other")],
     ClusterObjects(services=[svc(L1)]), [100, 0]),
    ("five pods, one service pod in specific namespace", pod(labels=L1, ns="ns1"),
     [pod("node1", L2), pod("node1", L1), pod("node1", L1, ns="ns2"), pod("node2", L1, ns="ns1"), pod("node2", L2)],
     ClusterObjects(services=[svc(L1, ns="ns1")]), [100, 0]),
    ("three pods, two service pods on different nodes", pod(labels=L1), [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(services=[svc(L1)]), [0, 0]),
    ("four pods, three service pods", pod(labels=L1), [pod("node1", L2), pod("node1", L1), pod("node2", L1), pod("node2", L1)],
     ClusterObjects(services=[svc(L1)]), [50, 0]),
    ("service with partial pod label matches", pod(labels=L1), [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(services=[svc({"baz": "blah"})]), [0, 50]),
    ("service with partial pod label matches with service and replication controller",
     pod(labels=L1, owner=("ReplicationController", "rc1")), [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(services=[svc({"baz": "blah"})], replication_controllers=[rc("rc1", {"foo": "bar"}), rc("rc2", {"bar": "foo"})]),
     [0, 0]),
    ("service with partial pod label matches with service and replica set",
     pod(labels=L1, owner=("ReplicaSet", "rs1")), [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(services=[svc({"baz": "blah"})], replica_sets=[rs("rs1", {"foo": "bar"}), rs("rs2", {"bar": "foo"})]), [0, 0]),
    ("service with partial pod label matches with service and statefulset",
     pod(labels=L1, owner=("StatefulSet", "ss1")), [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(services=[svc({"baz": "blah"})], stateful_sets=[sts("ss1", {"foo": "bar"}), sts("ss2", {"bar": "foo"})]), [0, 0]),
    ("disjoined service and replication controller matches no pods",
     pod(labels={"foo": "bar", "bar": "foo"}, owner=("ReplicationController", "rc3")),
     [pod("node1", L2, owner=("ReplicationController", "rc2")), pod("node1", L1, owner=("ReplicationController", "rc1")),
      pod("node2", L1, owner=("ReplicationController", "rc1"))],
     ClusterObjects(services=[svc({"bar": "foo"})], replication_controllers=[rc("rc3", {"foo": "bar"})]), [100, 100]),
    ("disjoined service and replica set matches no pods",
     pod(labels={"foo": "bar", "bar": "foo"}, owner=("ReplicaSet", "rs3")),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(services=[svc({"bar": "foo"})], replica_sets=[rs("rs3", {"foo": "bar"})]), [100, 100]),
    ("disjoined service and stateful set matches no pods",
     pod(labels={"foo": "bar", "bar": "foo"}, owner=("StatefulSet", "ss3")),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(services=[svc({"bar": "foo"})], stateful_sets=[sts("ss3", {"foo": "bar"})]), [100, 100]),
    ("Replication controller with partial pod label matches", pod(labels=L1, owner=("ReplicationController", "rc1")),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(replication_controllers=[rc("rc1", {"foo": "bar"})]), [0, 0]),
    ("Replica set with partial pod label matches", pod(labels=L1, owner=("ReplicaSet", "rs1")),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)], ClusterObjects(replica_sets=[rs("rs1", {"foo": "bar"})]), [0, 0]),
    ("StatefulSet with partial pod label matches", pod(labels=L1, owner=("StatefulSet", "ss1")),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)], ClusterObjects(stateful_sets=[sts("ss1", {"foo": "bar"})]), [0, 0]),
    ("Another replication controller with partial pod label matches", pod(labels=L1, owner=("ReplicationController", "rc3")),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)],
     ClusterObjects(replication_controllers=[rc("rc3", {"baz": "blah"})]), [0, 50]),
    ("Another replication set with partial pod label matches", pod(labels=L1, owner=("ReplicaSet", "rs3")),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)], ClusterObjects(replica_sets=[rs("rs3", {"baz": "blah"})]), [0, 50]),
    ("Another stateful set with partial pod label matches", pod(labels=L1, owner=("StatefulSet", "ss3")),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)], ClusterObjects(stateful_sets=[sts("ss3", {"baz": "blah"})]), [0, 50]),
    ("Another statefulset with TopologySpreadConstraints set in pod",
     pod(labels=L1, owner=("StatefulSet", "ss1"),
         topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "foo", "whenUnsatisfiable": "DoNotSchedule"}]),
     [pod("node1", L2), pod("node1", L1), pod("node2", L1)], ClusterObjects(stateful_sets=[sts("ss1", {"baz": "blah"})]), [0, 0]),
]


@pytest.mark.parametrize("name,incoming,pods,objects,want", SPREAD, ids=[c[0] for c in SPREAD])
def test_selector_spread_score(name, incoming, pods, objects, want):
    assert list(run(incoming, pods, TWO, objects).values()) == want


ZONED = {"node1.zone1": "zone1", "node1.zone2": "zone2", "node2.zone2": "zone2",
         "node1.zone3": "zone3", "node2.zone3": "zone3", "node3.zone3": "zone3"}
ZL1 = {"label1": "l1", "baz": "blah"}
ZL2 = {"label2": "l2", "baz": "blah"}
ZONE_NODES = [node(n, {"topology.kubernetes.io/zone": z}) for n, z in ZONED.items()]
ZONE_ORDER = list(ZONED)

ZONE_SPREAD = [
    ("nothing scheduled", pod(), [], ClusterObjects(), [100] * 6),
    ("no services", pod(labels=ZL1), [pod("node1.zone1")], ClusterObjects(), [100] * 6),
    ("different services", pod(labels=ZL1), [pod("node1.zone1", ZL2)], ClusterObjects(services=[svc({"key": "value"})]), [100] * 6),
    ("two pods, 0 matching", pod(labels=ZL1), [pod("node1.zone1", ZL2), pod("node1.zone2", ZL2)],
     ClusterObjects(services=[svc(ZL1)]), [100] * 6),
    ("two pods, 1 matching (in z2)", pod(labels=ZL1), [pod("node1.zone1", ZL2), pod("node1.zone2", ZL1)],
     ClusterObjects(services=[svc(ZL1)]), [100, 0, 33, 100, 100, 100]),
    ("five pods, 3 matching (z2=2, z3=1)", pod(labels=ZL1),
     [pod("node1.zone1", ZL2), pod("node1.zone2", ZL1), pod("node2.zone2", ZL1), pod("node1.zone3", ZL2), pod("node2.zone3", ZL1)],
     ClusterObjects(services=[svc(ZL1)]), [100, 0, 0, 66, 33, 66]),
    ("four pods, 3 matching (z1=1, z2=1, z3=1)", pod(labels=ZL1),
     [pod("node1.zone1", ZL1), pod("node1.zone2", ZL1), pod("node2.zone2", ZL2), pod("node1.zone3", ZL1)],
     ClusterObjects(services=[svc(ZL1)]), [0, 0, 33, 0, 33, 33]),
    ("five pods, 4 matching (z1=1, z2=2, z3=1)", pod(labels=ZL1),
     [pod("node1.zone1", ZL1), pod("node1.zone2", ZL1), pod("node2.zone2", ZL1), pod("node2.zone2", ZL2), pod("node1.zone3", ZL1)],
     ClusterObjects(services=[svc(ZL1)]), [33, 0, 0, 33, 66, 66]),
    ("Replication controller spreading (z1=0, z2=1, z3=2)", pod(labels=ZL1, owner=("ReplicationController", "rc1")),
     [pod("node1.zone3", ZL1), pod("node1.zone2", ZL1), pod("node1.zone3", ZL1)],
     ClusterObjects(replication_controllers=[rc("rc1", ZL1)]), [100, 50, 66, 0, 33, 33]),
]


@pytest.mark.parametrize("name,incoming,pods,objects,want", ZONE_SPREAD, ids=[c[0] for c in ZONE_SPREAD])
def test_zone_selector_spread_priority(name, incoming, pods, objects, want):
    got = run(incoming, pods, ZONE_NODES, objects)
    assert [got[n] for n in ZONE_ORDER] == want


def test_get_zone_key_prefers_beta_labels():
    assert ss.get_zone_key({"failure-domain.beta.kubernetes.io/zone": "b", "topology.kubernetes.io/zone": "g"}) == ":\x00:b"
    assert ss.get_zone_key({"topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": "z"}) == "r:\x00:z"


def test_terminating_pods_do_not_count():
    p = pod("node1", L1)
    import datetime

    p.metadata.deletionTimestamp = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    assert list(run(pod(labels=L1), [p, pod("node2", L1)], TWO, ClusterObjects(services=[svc(L1)])).values()) == [100, 0]


def test_score_without_pre_score_is_an_error():
    h = types.SimpleNamespace(snapshot=new_snapshot(TWO, []), objects=ClusterObjects())
    s, st = ss.new(None, h).score(CycleState(), PodInfo(pod()), h.snapshot.get("node1"))
    assert st.code == Code.ERROR


def test_factory():
    assert ss.new({}, None).name() == "SelectorSpread"
    with pytest.raises(ConfigError):
        ss.new({"weight": 1}, None)
