"""NodePreferAvoidPods (legacy, v1.21) against upstream's node_prefer_avoid_pods_test.go table."""

from __future__ import annotations

import json

import pytest
from lightkube.models.meta_v1 import OwnerReference

from kubenotes.errors import ConfigError
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo
from kubenotes.scheduler.plugins import nodepreferavoidpods as npap
from kubenotes.scheduler.testing import make_node, make_pod


def annotation(kind, uid):
    return {npap.PREFER_AVOID_PODS_ANNOTATION_KEY: json.dumps({"preferAvoidPods": [{
        "podSignature": {"podController": {"apiVersion": "v1", "kind": kind, "name": "foo", "uid": uid, "controller": True}},
        "reason": "some reason", "message": "some message"}]})}


def node(name, annotations=None):
    n = make_node(name)
    n.metadata.annotations = annotations
    return NodeInfo(n)


NODES = [node("machine1", annotation("ReplicationController", "abcdef123456")),
         node("machine2", annotation("ReplicaSet", "qwert12345")), node("machine3")]


def pod(kind, uid, controller=True):
    p = make_pod("p")
    p.metadata.ownerReferences = [OwnerReference(apiVersion="v1", kind=kind, name="foo", uid=uid, controller=controller or None)]
    return PodInfo(p)


CASES = [
    ("pod managed by ReplicationController should avoid a node, this node get lowest priority score",
     pod("ReplicationController", "abcdef123456"), [0, 100, 100]),
    ("ownership by random controller should be ignored", pod("RandomController", "abcdef123456"), [100, 100, 100]),
    ("owner without Controller field set should be ignored", pod("ReplicationController", "abcdef123456", controller=False),
     [100, 100, 100]),
    ("pod managed by ReplicaSet should avoid a node, this node get lowest priority score", pod("ReplicaSet", "qwert12345"),
     [100, 0, 100]),
]


@pytest.mark.parametrize("name,incoming,want", CASES, ids=[c[0] for c in CASES])
def test_node_prefer_avoid_pods(name, incoming, want):
    pl = npap.new(None, None)
    got = []
    for ni in NODES:
        score, st = pl.score(None, incoming, ni)
        assert st.is_success()
        got.append(score)
    assert got == want


def test_malformed_annotation_is_not_avoided():
    bad = node("bad", {npap.PREFER_AVOID_PODS_ANNOTATION_KEY: "{not json"})
    assert npap.new(None, None).score(None, pod("ReplicaSet", "qwert12345"), bad)[0] == 100


def test_pod_without_controller_scores_max():
    assert npap.new(None, None).score(None, PodInfo(make_pod("p")), NODES[0])[0] == 100


def test_missing_node_is_an_error():
    assert npap.new(None, None).score(None, PodInfo(make_pod("p")), NodeInfo())[1].code == Code.ERROR


def test_factory():
    pl = npap.new(None, None)
    assert pl.name() == "NodePreferAvoidPods" and pl.score_extensions() is None
    with pytest.raises(ConfigError):
        npap.new({"weight": 10000}, None)
