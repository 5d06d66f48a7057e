"""The HTTP server under load: 20 watchers and 600+ paced writes, with no event lost, duplicated or reordered.

Issue #8: "The HTTP server must hold 20 concurrent watchers and 200 requests
per second from a test client without losing an event (every watcher sees
every resourceVersion in order)." This checks the behaviour, not the speed:
the writes are paced at 200 per second from several client threads, but no
assertion depends on wall time (``benchmarks/serve_load.py`` measures it).

The guarantee is upstream's watch contract (staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go
and the ``RunTestWatch*`` cases of staging/src/k8s.io/apiserver/pkg/storage/testing/watcher_tests.go):
a watch started at resourceVersion R delivers every change after R exactly
once, in increasing resourceVersion order, to every watcher alike.
"""

from __future__ import annotations

import json
import ssl
import threading
import time

import pytest

httpx = pytest.importorskip("httpx")

from kubenotes.sim.cluster import Cluster  # noqa: E402
from kubenotes.sim.serve import serve  # noqa: E402

NAMESPACE = "load"
WATCHERS = 20
OBJECTS = 210  # three writes each: 630 writes
WRITERS = 8
RATE_PER_SECOND = 200.0


@pytest.fixture
def served():
    c = Cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}],
                controllers=[], scheduler=False)
    s = serve(c, port=0, time_scale=0)
    try:
        yield s
    finally:
        s.stop()


def _client(s) -> "httpx.Client":
    return httpx.Client(verify=ssl.create_default_context(cafile=s.ca_path),
                        headers={"Authorization": f"Bearer {s.token}"}, timeout=httpx.Timeout(10.0, read=30.0))


def _watch(s, rv: str, expected: int, events: list, opened: threading.Event, errors: list) -> None:
    """Read one watch stream until ``expected`` events came (or it ends)."""
    try:
        with _client(s) as c:
            with c.stream("GET", f"{s.url}/api/v1/namespaces/{NAMESPACE}/configmaps",
                          params={"watch": "1", "resourceVersion": rv, "timeoutSeconds": "30"}) as r:
                opened.set()
                if r.status_code != 200:
                    errors.append(r.status_code)
                    return
                for line in r.iter_lines():
                    if line:
                        ev = json.loads(line)
                        events.append((ev["type"], ev["object"]["metadata"]["name"],
                                       int(ev["object"]["metadata"]["resourceVersion"])))
                        if len(events) >= expected:
                            return
    except Exception as e:  # noqa: BLE001 - the test reports it
        errors.append(repr(e))
    finally:
        opened.set()


def _write(s, names: list[str], slots: "Slots", results: list) -> None:
    """Create, patch and delete each ConfigMap of ``names``, each request at its paced slot."""
    base = f"{s.url}/api/v1/namespaces/{NAMESPACE}/configmaps"
    with _client(s) as c:
        def send(op: str, name: str, method: str, url: str, body: dict | None, ctype: str = "application/json"):
            slots.wait()
            r = c.request(method, url, content=None if body is None else json.dumps(body),
                          headers={"Content-Type": ctype})
            rv = int(r.json()["metadata"]["resourceVersion"]) if r.status_code < 300 and op != "delete" else None
            results.append((op, name, r.status_code, rv))

        for n in names:
            send("create", n, "POST", base, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n},
                                             "data": {"v": "0"}})
        for n in names:
            send("update", n, "PATCH", f"{base}/{n}", {"data": {"v": "1"}}, "application/merge-patch+json")
        for n in names:
            send("delete", n, "DELETE", f"{base}/{n}", None)


class Slots:
    """Send times ``t0 + n / rate`` shared by the writer threads (pacing only; nothing asserts on time)."""

    def __init__(self, rate: float):
        self.rate, self.n, self.lock, self.t0 = rate, 0, threading.Lock(), time.monotonic()

    def wait(self) -> None:
        with self.lock:
            at = self.t0 + self.n / self.rate
            self.n += 1
        delay = at - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def test_twenty_watchers_see_every_resource_version_once_in_order(served):
    with _client(served) as c:
        listing = c.get(f"{served.url}/api/v1/namespaces/{NAMESPACE}/configmaps")
    assert listing.status_code == 200 and listing.json()["items"] == []
    rv = listing.json()["metadata"]["resourceVersion"]
    expected = 3 * OBJECTS

    streams = [([], threading.Event(), []) for _ in range(WATCHERS)]
    watchers = [threading.Thread(target=_watch, args=(served, rv, expected, ev, op, err), daemon=True)
                for ev, op, err in streams]
    for t in watchers:
        t.start()
    assert all(op.wait(10) for _, op, _ in streams)
    assert [err for _, _, err in streams if err] == []

    names = [f"cm-{i:04d}" for i in range(OBJECTS)]
    results: list[tuple[str, str, int, int | None]] = []
    slots = Slots(RATE_PER_SECOND)
    writers = [threading.Thread(target=_write, args=(served, names[k::WRITERS], slots, results), daemon=True)
               for k in range(WRITERS)]
    for t in writers:
        t.start()
    for t in writers:
        t.join(60)
    assert not any(t.is_alive() for t in writers)
    for t in watchers:
        t.join(30)
    assert not any(t.is_alive() for t in watchers)

    # every write succeeded: 201 for creates, 200 for patches and deletes
    assert len(results) == expected
    assert sorted({(op, code) for op, _, code, _ in results}) == [("create", 201), ("delete", 200), ("update", 200)]
    written = {rv for *_, rv in results if rv is not None}
    assert len(written) == 2 * OBJECTS  # creates and patches each made a distinct resourceVersion

    first = streams[0][0]
    for events, _, errors in streams:
        assert errors == []
        rvs = [r for _, _, r in events]
        assert len(rvs) == expected  # nothing lost...
        assert len(set(rvs)) == expected  # ...nothing twice...
        assert rvs == sorted(rvs) and rvs[0] > int(rv)  # ...in increasing resourceVersion order
        assert written <= set(rvs)  # every write's resourceVersion was delivered
        assert events == first  # every watcher saw the same stream
    per_name: dict[str, list[str]] = {}
    for etype, name, _ in first:
        per_name.setdefault(name, []).append(etype)
    assert sorted(per_name) == names
    assert all(seq == ["ADDED", "MODIFIED", "DELETED"] for seq in per_name.values())
    with served.lock:
        assert served.cluster.server.list("configmaps", NAMESPACE) == []
