"""Tests of kubenotes.sim.history: a kind's revisions and the objects alive at a point of them.

A history replays the watch cache from resourceVersion 1, as
``staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go`` serves a
watch from an old resourceVersion.
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver.server import AuditEntry
from kubenotes.sim.history import Revision, object_history, objects_at


def _pod(name, rs, rv, ready=False, terminating=False, node=None, phase="Running"):
    md = {"name": name, "namespace": "d", "uid": "pod-" + name, "resourceVersion": rv,
          "ownerReferences": [{"kind": "ReplicaSet", "name": rs, "uid": "rs-" + rs, "controller": True}]}
    if terminating:
        md["deletionTimestamp"] = "2025-08-27T00:00:10Z"
    return {"kind": "Pod", "metadata": md, "spec": {"nodeName": node},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def test_objects_at_replays_adds_and_deletes():
    a = _pod("a", "r", "1")
    h = [Revision(1, "ADDED", a), Revision(3, "DELETED", _pod("a", "r", "2"))]
    assert [o["metadata"]["name"] for o in objects_at(h, "pods", at_seconds=2)] == ["a"]
    assert objects_at(h, "pods", at_seconds=3) == []
    assert [o["metadata"]["name"] for o in objects_at(h, "pods", at_seconds=3, at_resource_version=1)] == ["a"]


def test_an_audit_log_alone_is_refused_with_a_reason():
    log = [AuditEntry(1.0, "kubectl", "create", "Pod", "d", "a", "2")]
    with pytest.raises(TypeError, match="audit log records writes"):
        object_history(log, "pods")
