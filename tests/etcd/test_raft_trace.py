"""The linked trace: a write's Raft index, its revision, the resourceVersion and the watch event that carries it."""

from __future__ import annotations

import pytest

from kubenotes.etcd.cluster import RaftCluster
from kubenotes.etcd.trace import chain, linked_trace

HOPS = [
    {"step": 1, "time": 1.0, "from": "kubectl", "to": "authentication", "request": 0,
     "what": "create pods default/web (as kubernetes-admin)"},
    {"step": 2, "time": 1.0, "from": "validating admission", "to": "etcd", "request": 0,
     "what": "validating admission: none; stored /registry/pods/default/web at resourceVersion 41"},
    {"step": 3, "time": 1.0, "from": "etcd", "to": "kube-scheduler", "request": None,
     "what": "watch: ADDED Pod default/web (resourceVersion 41)"},
    {"step": 4, "time": 1.0, "from": "kube-scheduler", "to": "authentication", "request": 1,
     "what": "create pods/binding default/web (node=n1)"},
    {"step": 5, "time": 1.0, "from": "authentication", "to": "etcd", "request": 1,
     "what": "as system:kube-scheduler: Allow; MODIFIED /registry/pods/default/web at resourceVersion 42"},
]


def test_every_write_gets_a_raft_index_in_order_and_its_watch_event_the_same_one():
    raft = RaftCluster(3, seed=2)
    raft.run(3)
    rows = linked_trace(HOPS, raft)
    writes = [r for r in rows if r["what"].startswith("applied index")]
    assert [r["revision"] for r in writes] == [41, 42]
    assert writes[1]["raft_index"] == writes[0]["raft_index"] + 1 and writes[0]["raft_index"] == 5
    watch = next(r for r in rows if r["what"].startswith("watch:"))
    assert (watch["raft_index"], watch["revision"]) == (writes[0]["raft_index"], 41)
    assert [r["step"] for r in rows] == list(range(1, len(rows) + 1)) and len(rows) == len(HOPS) + 6
    links = [c["link"] for c in chain(rows)]
    assert links == ["kubectl apply", "Raft log index", "committed", "etcd revision", "resourceVersion",
                     "watch event", "informer", "controller"]
    assert chain(rows)[-1]["value"] == "create pods/binding default/web (node=n1)"


def test_without_a_quorum_the_trace_says_the_write_did_not_commit():
    raft = RaftCluster(3, seed=2)
    raft.run(3)
    for n in raft.names:
        if n != raft.leader():
            raft.stop(n)
    with pytest.raises(ValueError, match=r"^the write of /registry/pods/default/web \(resourceVersion 41\) did not "
                                         r"commit within 0.05 s: no quorum$"):
        linked_trace(HOPS, raft)
    with pytest.raises(ValueError, match="no leader"):
        linked_trace(HOPS, RaftCluster(3))
