"""The API server's cache fed by etcd's watch (issue #27): changes made in etcd by anyone reach the model.

Upstream the cacher (staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go, watch_cache.go, v1.34) is
fed only by etcd's watch: list at a revision, watch from the next one with prev_kv, relist when etcd has
compacted the revision to resume from. These tests write to a real etcd behind the model's back (``etcdctl``,
a second model API server on the same key prefix) and check what the model's watchers, LIST and GET see.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time

import pytest

from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError


def _etcdctl(url: str, *args: str, stdin: str | None = None) -> dict:
    etcdctl = shutil.which("etcdctl") or "/usr/bin/etcdctl"
    r = subprocess.run([etcdctl, "--endpoints", url, "-w", "json", *args], capture_output=True, text=True,
                       timeout=20, input=stdin, env={"ETCDCTL_API": "3", "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout) if r.stdout.startswith("{") else {}


def _put(etcd, key: str, value: str) -> int:
    """``etcdctl put`` under the test's prefix; the revision etcd answered."""
    return int(_etcdctl(etcd.url, "put", etcd.prefix + key, "--", value)["header"]["revision"])


def _del(etcd, key: str) -> int:
    return int(_etcdctl(etcd.url, "del", etcd.prefix + key)["header"]["revision"])


def _cm(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": dict(data)}


def _poll(c, until, seconds: float = 5.0) -> None:
    """Make requests (each one a point where the cache takes in etcd's watch) until ``until()`` holds."""
    end = time.monotonic() + seconds
    while not until():
        assert time.monotonic() < end, "etcd's change never reached the model"
        c.list("namespaces")
        time.sleep(0.02)


def _events(w) -> list[tuple[str, str, str]]:
    return [(ev.type, ev.object["metadata"]["name"], ev.object["metadata"]["resourceVersion"]) for ev in w.pop_all()]


@pytest.fixture
def etcd(etcd_backend):
    return etcd_backend


@pytest.fixture
def api(etcd):
    api = APIServer(storage=etcd.storage, etcd_compaction_interval_seconds=0)
    yield api
    api.store.close()


def test_keys_put_and_deleted_with_etcdctl_reach_the_model_s_watchers_list_and_get(etcd, api):
    c = api.client()
    own = c.create("configmaps", _cm("own"), "default")
    w = c.watch("configmaps", "default", resource_version=own["metadata"]["resourceVersion"])
    added = _put(etcd, "/registry/configmaps/default/b", json.dumps(_cm("b", k="1")))
    _poll(c, w.pending)
    assert _events(w) == [("ADDED", "b", str(added))]
    modified = _put(etcd, "/registry/configmaps/default/b", json.dumps(_cm("b", k="2")))
    _poll(c, w.pending)
    assert _events(w) == [("MODIFIED", "b", str(modified))]
    got = c.get("configmaps", "b", "default")
    assert got["data"] == {"k": "2"} and got["metadata"]["resourceVersion"] == str(modified)
    assert api.get("configmaps", "default", "b") == got  # the cache the server's own reads use
    listed = c.list("configmaps", "default")
    assert [o["metadata"]["name"] for o in listed["items"]] == ["b", "own"]
    assert listed["metadata"]["resourceVersion"] == str(modified)
    deleted = _del(etcd, "/registry/configmaps/default/b")
    _poll(c, w.pending)
    assert _events(w) == [("DELETED", "b", str(deleted))]
    assert api.get("configmaps", "default", "b") is None and api.store.revision == deleted


def test_etcd_s_events_change_the_cache_only_at_a_request_never_from_the_watch_thread(etcd, api):
    c = api.client()
    w = c.watch("configmaps", "default")
    rev = _put(etcd, "/registry/configmaps/default/x", json.dumps(_cm("x")))
    feed = api.store._feed
    end = time.monotonic() + 5
    while feed._events.empty():  # the feed's thread has queued etcd's event ...
        assert time.monotonic() < end
        time.sleep(0.01)
    time.sleep(0.05)
    # ... and nothing in the model moved: no request came
    assert api.get("configmaps", "default", "x") is None and not w.pending() and api.store.revision < rev
    c.list("namespaces")  # any request the store serves takes it in first
    assert api.get("configmaps", "default", "x") is not None and _events(w) == [("ADDED", "x", str(rev))]
    assert api.store.wait_until_fresh(rev) and api.store.revision == rev


def test_a_value_that_is_no_object_is_left_out_and_the_feed_goes_on(etcd, api):
    c = api.client()
    w = c.watch("configmaps", "default")
    _put(etcd, "/registry/configmaps/default/bad", "not json")
    _put(etcd, "/registry/configmaps/default/other", json.dumps(_cm("named-otherwise")))
    rev = _put(etcd, "/registry/configmaps/default/good", json.dumps(_cm("good")))
    _poll(c, w.pending)
    assert _events(w) == [("ADDED", "good", str(rev))]
    assert [k for k, _ in api.store._feed.skipped] == ["/registry/configmaps/default/bad"]
    assert [k for k, _ in api.store.feed_skipped] == ["/registry/configmaps/default/other"]


def test_two_api_servers_on_one_prefix_see_each_other_s_writes_once_and_in_revision_order(etcd):
    from kubenotes.apiserver.storage.etcd3 import EtcdStorage

    other = EtcdStorage(etcd.url, prefix=etcd.prefix)
    a = APIServer(storage=etcd.storage, etcd_compaction_interval_seconds=0)
    b = APIServer(storage=other, etcd_compaction_interval_seconds=0)  # an HA pair: both start on the empty prefix
    try:
        ca, cb = a.client(), b.client()
        wa, wb = ca.watch("configmaps", "default"), cb.watch("configmaps", "default")
        made = []
        for i in range(6):
            made.append((ca if i % 2 == 0 else cb).create("configmaps", _cm(f"cm{i}"), "default"))
        want = [("ADDED", m["metadata"]["name"], m["metadata"]["resourceVersion"]) for m in made]
        for client, w in ((ca, wa), (cb, wb)):  # every write once (the server's own too), by revision
            got: list = []
            _poll(client, lambda: got.extend(_events(w)) or len(got) >= len(want))
            time.sleep(0.05)
            client.list("namespaces")
            assert got + _events(w) == want
        assert [int(r) for _t, _n, r in want] == sorted(int(r) for _t, _n, r in want)
        for server in (a, b):
            assert [o["metadata"]["name"] for o in server.list("configmaps", "default")] == [f"cm{i}" for i in range(6)]
        # b changes cm0 behind a's back; a's update of the version it had is a conflict, not a lost write
        stale = ca.get("configmaps", "cm0", "default")
        changed = cb.update("configmaps", {**made[0], "data": {"by": "b"}}, "default")
        with pytest.raises(ApiError) as e:
            ca.update("configmaps", {**stale, "data": {"by": "a"}}, "default")
        assert e.value.code == 409 and "the object has been modified" in str(e.value)
        assert other.get("/registry/configmaps/default/cm0")["data"] == {"by": "b"}
        _poll(ca, wa.pending)  # (etcd's compare may have found b's change before a's cache took it in)
        assert _events(wa) == [("MODIFIED", "cm0", changed["metadata"]["resourceVersion"])]
    finally:
        a.store.close()
        b.store.close()
        other.close()


def _drop_connection(feed) -> None:
    """Cut the feed's stream as a dropped TCP connection would (the watch is not stopped by the model)."""
    s = socket.fromfd(feed._resp.raw._fp.fileno(), socket.AF_INET, socket.SOCK_STREAM)
    s.shutdown(socket.SHUT_RDWR)
    s.close()
    feed._thread.join(5)
    assert not feed._thread.is_alive()


def test_a_dropped_feed_resumes_from_its_revision_without_a_relist(etcd, api):
    c = api.client()
    made = c.create("configmaps", _cm("a"), "default")
    w = c.watch("configmaps", "default", resource_version=made["metadata"]["resourceVersion"])
    _drop_connection(api.store._feed)
    rev = _put(etcd, "/registry/configmaps/default/b", json.dumps(_cm("b")))
    _poll(c, w.pending)
    assert _events(w) == [("ADDED", "b", str(rev))] and api.store.relists == 0 and not w.stopped


def test_compaction_of_the_revision_the_feed_resumes_from_relists_and_older_watches_get_410(etcd, api):
    c = api.client()
    a = c.create("configmaps", _cm("a"), "default")
    rv_a = a["metadata"]["resourceVersion"]
    w = c.watch("configmaps", "default", resource_version=rv_a)
    _drop_connection(api.store._feed)
    _put(etcd, "/registry/configmaps/default/b", json.dumps(_cm("b")))
    rev = _del(etcd, "/registry/configmaps/default/a")
    _etcdctl(etcd.url, "compact", str(rev))
    c.list("namespaces")  # the next request finds the feed ended and its revision compacted: the cacher relists
    assert api.store.relists == 1 and w.stopped  # terminateAllWatchers
    assert [o["metadata"]["name"] for o in api.list("configmaps", "default")] == ["b"]  # watchCache.Replace
    assert api.store.revision >= rev
    with pytest.raises(ApiError) as e:
        c.watch("configmaps", "default", resource_version=rv_a)
    assert (e.value.code, e.value.reason) == (410, "Expired")
    assert str(e.value) == f"too old resource version: {rv_a} ({api.store.revision})"
    listed = c.list("configmaps", "default")  # a client relists, then watches from the list's resourceVersion
    w2 = c.watch("configmaps", "default", resource_version=listed["metadata"]["resourceVersion"])
    later = _put(etcd, "/registry/configmaps/default/c", json.dumps(_cm("c")))
    _poll(c, w2.pending)
    assert _events(w2) == [("ADDED", "c", str(later))]


def test_a_custom_resource_put_in_etcd_reaches_its_watchers(etcd, api):
    import copy
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "_crd_cases", Path(__file__).parents[1] / "apiextensions" / "test_crd_served.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    c = api.client()
    c.create("customresourcedefinitions", copy.deepcopy(cases.CRD))
    w = c.watch("widgets", "default")
    widget = {**cases._widget("w1"), "metadata": {"name": "w1", "namespace": "default"}}
    rev = _put(etcd, "/registry/example.com/widgets/default/w1", json.dumps(widget))
    _poll(c, w.pending)
    assert _events(w) == [("ADDED", "w1", str(rev))]
    assert c.get("widgets", "w1", "default")["spec"] == {"colour": "red"}


def test_a_pod_put_with_etcdctl_into_a_simulated_cluster_is_scheduled_and_runs(etcd):
    from kubenotes.sim.cli import run

    node = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
    prefix = etcd.prefix + "-sim"
    cluster = run([node], until=5, etcd={"etcd": etcd.url, "etcd_prefix": prefix})
    try:
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "from-etcdctl", "namespace": "default",
                            "uid": "1e7c0d2a-0000-4000-8000-000000000001", "creationTimestamp": "2024-01-01T00:00:05Z"},
               "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}], "schedulerName": "default-scheduler"},
               "status": {"phase": "Pending"}}
        _etcdctl(etcd.url, "put", prefix + "/registry/pods/default/from-etcdctl", "--", json.dumps(pod))
        feed, end = getattr(cluster.server.store, "_feed", None), time.monotonic() + 5
        while feed is not None and feed._events.empty():  # queued by the feed's thread: the clock's next tick takes it
            assert time.monotonic() < end
            time.sleep(0.01)
        cluster.run(until=30)
        got = cluster.server.get("pods", "default", "from-etcdctl")
        assert got is not None and got["spec"].get("nodeName") == "n1" and got["status"]["phase"] == "Running"
    finally:
        cluster.server.store.close()
