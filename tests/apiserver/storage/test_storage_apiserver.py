"""The API server on both storage backends: a slice of its own tests, etcd's keys, faults, compaction, kubectl.

The first tests are tests/apiserver/test_server.py's, collected again here with
``api`` built on the ``backend`` fixture (the embedded store, then a real etcd).
The others check what only a real etcd shows: ``etcdctl`` lists the keys the
model wrote, a stopped etcd fails requests with kube-apiserver's 504 Timeout and
changes nothing, the compactor runs on the virtual clock, and the real kubectl
answers the same against ``serve --etcd`` as against the default.
"""

from __future__ import annotations

import http.server
import importlib.util
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from kubenotes.apiserver.resources import resource_for
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.storage import StorageError
from kubenotes.apiserver.storage.errors import DEADLINE_EXCEEDED, LIST_EXPIRED, interpret_error
from kubenotes.errors import ConfigError

_spec = importlib.util.spec_from_file_location("_server_cases", Path(__file__).parents[1] / "test_server.py")
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
_pod = _cases._pod

# test_server.py's tests that use its `api`/`c` fixtures: collected here over both backends
for _name in ("test_every_write_bumps_one_global_resource_version", "test_create_rejected_changes_nothing",
              "test_generate_name_and_system_fields", "test_stale_resource_version_conflicts_with_upstream_message",
              "test_identical_update_is_not_written", "test_generation_bumps_on_spec_change_only",
              "test_watch_from_resource_version_replays_and_filters", "test_watch_resource_versions_arrive_in_order",
              "test_node_name_watch_is_indexed", "test_binding_sets_node_and_condition_and_refuses_a_second_bind",
              "test_graceful_pod_deletion", "test_finalizers_hold_deletion_until_removed",
              "test_propagation_policies_add_gc_finalizers", "test_namespace_deletion_terminates_until_finalized",
              "test_eviction_honours_pod_disruption_budget", "test_scale_subresource", "test_patches",
              "test_dry_run_writes_nothing", "test_list_pagination", "test_list_by_node_name_uses_the_index_and_follows_binding",
              "test_a_job_gets_a_generated_selector_and_template_labels",
              "test_a_daemonset_template_change_bumps_its_template_generation"):
    globals()[_name] = getattr(_cases, _name)


@pytest.fixture
def api(backend):
    return APIServer(seed=3, storage=backend.api_storage)


@pytest.fixture
def c(api):
    return api.client("kubectl")


def test_objects_read_back_from_the_backend_as_written(backend, c):
    made = c.create("pods", _pod("a", {"app": "web"}), "default")
    dep = c.create("deployments", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                                   "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
                                            "template": {"metadata": {"labels": {"app": "d"}},
                                                         "spec": {"containers": [{"name": "c", "image": "x"}]}}}},
                   "default")
    assert c.get("pods", "a", "default") == made
    stored = backend.storage.get("/registry/pods/default/a")
    if backend.name == "etcd":  # the object is etcd's value, its resourceVersion etcd's mod_revision
        assert stored == made
    assert backend.storage.get("/registry/deployments/default/d") == (dep if backend.name == "etcd" else None)


def test_watch_from_a_revision_the_watch_cache_no_longer_holds_is_expired(backend):
    api = APIServer(history_capacity=3, storage=backend.api_storage)
    c = api.client()
    made = [c.create("pods", _pod(f"p{i}"), "default") for i in range(6)]
    with pytest.raises(ApiError) as e:
        c.watch("pods", resource_version=made[0]["metadata"]["resourceVersion"])
    assert (e.value.code, e.value.reason) == (410, "Expired")
    assert str(e.value).startswith(f"too old resource version: {made[0]['metadata']['resourceVersion']} (")
    w = c.watch("pods", resource_version=made[2]["metadata"]["resourceVersion"])
    assert [ev.object["metadata"]["name"] for ev in w.pop_all()] == ["p3", "p4", "p5"]


def test_compactor_runs_every_interval_on_the_virtual_clock(backend):
    api = APIServer(storage=backend.storage, etcd_compaction_interval_seconds=300)
    c = api.client()
    first = c.create("pods", _pod("a"), "default")
    api.env.run(until=301)  # round 1 takes compact_rev_key (version 1) and remembers the revision
    seen = api.store.compactor.rev
    assert api.store.compactor.compact_revision == 0 and api.store.compactor.compact_time == 1
    c.create("pods", _pod("b"), "default")
    api.env.run(until=601)  # round 2 compacts to what round 1 saw
    assert api.store.compactor.compact_revision == seen and api.store.compactor.log == []
    with pytest.raises(StorageError) as e:
        backend.storage.get_list("/registry/pods/", revision=int(first["metadata"]["resourceVersion"]))
    err = interpret_error(e.value, "", "pods", "", "list")
    assert (err.code, err.reason, err.message) == (410, "Expired", LIST_EXPIRED)
    assert [p["metadata"]["name"] for p in c.list("pods")["items"]] == ["a", "b"]


def test_a_non_empty_etcd_is_refused(backend):
    backend.storage.create("/registry/pods/default/left-over", {"metadata": {"name": "left-over"}})
    with pytest.raises(ConfigError, match=r"already holds 1 keys under /registry/"):
        APIServer(storage=backend.storage)


# ----------------------------------------------------------------------------- real etcd only

@pytest.fixture
def etcd(etcd_backend):
    return etcd_backend


def _etcdctl(url: str, *args: str) -> subprocess.CompletedProcess:
    etcdctl = shutil.which("etcdctl") or "/usr/bin/etcdctl"
    return subprocess.run([etcdctl, "--endpoints", url, *args], capture_output=True, text=True, timeout=20,
                          env={"ETCDCTL_API": "3", "PATH": "/usr/bin:/bin"})


def test_etcdctl_lists_the_keys_the_model_wrote(etcd):
    from kubenotes.apiserver.storage.etcd3 import EtcdStorage

    storage = EtcdStorage(etcd.url)  # no prefix: the keys exactly as kube-apiserver writes them
    try:
        api = APIServer(storage=storage)
        c = api.client()
        c.create("namespaces", {"metadata": {"name": "shop"}})
        c.create("pods", _pod("web"), "shop")
        c.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
        c.create("services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                              "spec": {"ports": [{"port": 80}], "selector": {"app": "web"}}}, "shop")
        r = _etcdctl(etcd.url, "get", "--prefix", "--keys-only", "/registry/")
        assert r.returncode == 0, r.stderr
        listed = [ln for ln in r.stdout.splitlines() if ln]
        ip = c.get("services", "web", "shop")["spec"]["clusterIP"]
        assert listed == list(api.store.keys()) == [
            f"/registry/ipaddresses/{ip}", "/registry/minions/n1", "/registry/namespaces/shop",
            "/registry/pods/shop/web", "/registry/services/specs/shop/web"]
        r = _etcdctl(etcd.url, "get", "/registry/pods/shop/web", "-w", "json")
        kv = __import__("json").loads(r.stdout)["kvs"][0]
        assert str(kv["mod_revision"]) == c.get("pods", "web", "shop")["metadata"]["resourceVersion"]
    finally:
        _etcdctl(etcd.url, "del", "--prefix", "/registry/")
        storage.close()


def _timeout(e):
    return (e.value.code, e.value.reason, str(e.value)) == (504, "Timeout", f"Timeout: {DEADLINE_EXCEEDED}")


def test_a_stopped_etcd_fails_requests_with_a_timeout_and_nothing_is_half_written(etcd, etcd_member):
    from kubenotes.apiserver.storage.etcd3 import EtcdStorage

    storage = EtcdStorage(etcd.url, prefix=etcd.prefix + "-stop", timeout_seconds=0.5)
    api = APIServer(storage=storage)
    c = api.client()
    c.create("pods", _pod("a"), "default")
    rev = api.store.revision
    member = etcd_member.members[0]
    member.stop()  # nothing listens: every request fails at once, and nothing reaches etcd
    try:
        for call in (lambda: c.create("pods", _pod("b"), "default"), lambda: c.get("pods", "a", "default"),
                     lambda: c.list("pods"), lambda: c.delete("pods", "a", "default")):
            with pytest.raises(ApiError) as e:
                call()
            assert _timeout(e)
        assert api.store.revision == rev and api.store.get(resource_for("pods"), "default", "b") is None
        assert api.store.get(resource_for("pods"), "default", "a") is not None
    finally:
        member.start()
        etcd_member.wait_healthy()
    assert storage.keys("/registry/") == ["/registry/pods/default/a"]  # etcd on its data dir: nothing half-written
    b = c.create("pods", _pod("b"), "default")  # service resumes
    assert int(b["metadata"]["resourceVersion"]) > rev
    assert [p["metadata"]["name"] for p in c.list("pods")["items"]] == ["a", "b"]


def test_a_hung_etcd_times_out_and_the_model_then_catches_up_with_what_etcd_applied(etcd, etcd_member):
    from kubenotes.apiserver.storage.etcd3 import EtcdStorage

    storage = EtcdStorage(etcd.url, prefix=etcd.prefix + "-hung", timeout_seconds=0.5)
    api = APIServer(storage=storage)
    c = api.client()
    c.create("pods", _pod("a"), "default")
    w = c.watch("pods", resource_version=api.store.revision)
    member = etcd_member.members[0]
    member.pause()  # SIGSTOP: etcd takes the request in but answers nothing
    try:
        with pytest.raises(ApiError) as e:
            c.create("pods", _pod("b"), "default")
        assert _timeout(e)
        assert api.store.get(resource_for("pods"), "default", "b") is None
    finally:
        member.resume()
    etcd_member.wait_healthy()
    settled = storage.keys("/registry/pods/")  # the request etcd took in while frozen may land just after it thaws
    for _ in range(20):
        time.sleep(0.05)
        now = storage.keys("/registry/pods/")
        if now == settled:
            break
        settled = now
    # the timed-out create may still be applied (as kube-apiserver's 504 warns); the next request reads etcd
    # back first, so the model and its watchers end up with exactly what etcd holds
    names = [p["metadata"]["name"] for p in c.list("pods")["items"]]
    assert names == [k.rsplit("/", 1)[1] for k in settled]
    assert [(ev.type, ev.object["metadata"]["name"]) for ev in w.pop_all()] == [("ADDED", n) for n in names[1:]]
    c.create("pods", _pod("c"), "default")
    assert [p["metadata"]["name"] for p in c.list("pods")["items"]] == names + ["c"]


class _NotEtcd(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_wrong_or_unreachable_etcd_url_is_one_line_and_exit_2(capsys):
    from kubenotes.cli import main
    from kubenotes.etcd.members import _free_port

    dead = f"http://127.0.0.1:{_free_port()}"
    server = http.server.HTTPServer(("127.0.0.1", 0), _NotEtcd)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    wrong = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        cases = [(["simulate", "data/cluster", "--etcd", dead], f"--etcd {dead}: etcd unreachable"),
                 (["serve", "--port", "0", "--etcd", wrong], f"--etcd {wrong}: not etcd (GET /version answered HTTP 404"),
                 (["simulate", "data/cluster", "--etcd", "localhost:2379"],
                  "--etcd localhost:2379: not an etcd client URL (want http://HOST:PORT)")]
        for argv, start in cases:
            assert main(argv) == 2
            out, err = capsys.readouterr()
            assert out == "" and len(err.splitlines()) == 1 and err.startswith(start), err
        with pytest.raises(ConfigError, match="etcd unreachable"):
            from kubenotes.sim.cluster import Cluster

            Cluster(etcd=dead)
    finally:
        server.shutdown()
