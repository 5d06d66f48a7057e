"""``kubenotes serve`` under load: 20 watchers and 200 writes per second over HTTPS, without losing an event.

Issue #8 asks that the HTTP server "hold 20 concurrent watchers and 200
requests per second from a test client without losing an event (every
watcher sees every resourceVersion in order)". This benchmark serves a small
cluster (clock paused) in a child process, opens ``--watchers`` watches of
ConfigMaps in one namespace (``GET ...?watch=1`` streams read line by line with
httpx), then ``--writers`` client threads create, update and delete
ConfigMaps (``--objects`` of them: three writes each), first paced at
``--rate`` requests per second, then as fast as they can (``unpaced``).

For each run it prints:

* achieved write requests per second and their latency (p50/p95/p99, ms);
* events delivered to each watcher (min and max over the watchers) and the
  events expected (one per write);
* lost events (resourceVersions a write produced that a watcher never got),
  duplicated and out-of-order events, summed over watchers (all must be 0);
* watch lag (p50/p95, ms): from a write's response to its event reaching a watcher;
* failed writes (non-2xx answers).

The server runs in its own process so the load generator does not share its
interpreter lock (``--in-process`` runs both in one process).

Usage: python benchmarks/serve_load.py [--watchers 20] [--rate 200] [--objects 300] [--writers 4] [--mode both]
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import subprocess
import sys
import threading
import time
from typing import Any

NAMESPACE = "load"


def _https(ca: str, token: str, **kwargs: Any) -> Any:
    """An httpx client that trusts the server's certificate and sends the bearer token."""
    import httpx

    return httpx.Client(verify=ssl.create_default_context(cafile=ca), headers={"Authorization": f"Bearer {token}"},
                        **kwargs)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q / 100.0 * (len(s) - 1)))))]


def _connection(kubeconfig: str) -> tuple[str, str, str]:
    """(server URL, bearer token, CA file) from the kubeconfig ``serve`` wrote."""
    import base64
    import tempfile

    import yaml

    with open(kubeconfig) as f:
        cfg = yaml.safe_load(f)
    cluster = cfg["clusters"][0]["cluster"]
    token = cfg["users"][0]["user"]["token"]
    fd, ca = tempfile.mkstemp(prefix="kubenotes-load-ca-", suffix=".crt")
    with os.fdopen(fd, "wb") as f:
        f.write(base64.b64decode(cluster["certificate-authority-data"]))
    return cluster["server"], token, ca


class Watcher(threading.Thread):
    """One watch stream: records (type, name, resourceVersion, wall time received) until told to stop."""

    def __init__(self, url: str, token: str, ca: str, resource_version: str, expected: int):
        super().__init__(daemon=True)
        self.url, self.token, self.ca = url, token, ca
        self.resource_version = resource_version
        self.expected = expected
        self.events: list[tuple[str, str, int, float]] = []
        self.open = threading.Event()
        self.done = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        import httpx

        params = {"watch": "1", "resourceVersion": self.resource_version, "timeoutSeconds": "120"}
        try:
            with _https(self.ca, self.token, timeout=httpx.Timeout(10.0, read=60.0)) as c:
                with c.stream("GET", f"{self.url}/api/v1/namespaces/{NAMESPACE}/configmaps", params=params) as r:
                    if r.status_code != 200:
                        self.error = f"watch answered {r.status_code}"
                        return
                    self.open.set()
                    for line in r.iter_lines():
                        if not line:
                            continue
                        ev = json.loads(line)
                        md = ev["object"]["metadata"]
                        self.events.append((ev["type"], md["name"], int(md["resourceVersion"]), time.perf_counter()))
                        if len(self.events) >= self.expected:
                            return
        except Exception as e:  # noqa: BLE001 - reported in the table
            self.error = f"{type(e).__name__}: {e}"
        finally:
            self.open.set()
            self.done.set()


class Pacer:
    """Hands out send times ``t0 + n / rate`` (rate 0: now, unpaced)."""

    def __init__(self, rate: float):
        self.rate = rate
        self.n = 0
        self.lock = threading.Lock()
        self.t0 = time.perf_counter()

    def wait(self) -> None:
        if self.rate <= 0:
            return
        with self.lock:
            at = self.t0 + self.n / self.rate
            self.n += 1
        delay = at - time.perf_counter()
        if delay > 0:
            time.sleep(delay)


def _writer(url: str, token: str, ca: str, names: list[str], pacer: Pacer, out: list[dict]) -> None:
    """Create, then update, then delete each of ``names`` (three phases, so writes of a thread interleave)."""
    base = f"{url}/api/v1/namespaces/{NAMESPACE}/configmaps"
    with _https(ca, token, timeout=30.0) as c:
        def send(op: str, name: str, method: str, path: str, body: Any = None, ctype: str = "application/json"):
            pacer.wait()
            t = time.perf_counter()
            r = c.request(method, path, content=None if body is None else json.dumps(body),
                          headers={"Content-Type": ctype})
            done = time.perf_counter()
            rv = None
            if r.status_code < 300 and op != "delete":
                rv = int(r.json()["metadata"]["resourceVersion"])
            out.append({"op": op, "name": name, "code": r.status_code, "sent": t, "done": done, "rv": rv})

        for n in names:
            send("create", n, "POST", base, {"apiVersion": "v1", "kind": "ConfigMap",
                                             "metadata": {"name": n, "labels": {"bench": "load"}},
                                             "data": {"v": "0"}})
        for n in names:
            send("update", n, "PATCH", f"{base}/{n}", {"data": {"v": "1"}}, "application/merge-patch+json")
        for n in names:
            send("delete", n, "DELETE", f"{base}/{n}")


def run_load(url: str, token: str, ca: str, *, watchers: int, rate: float, objects: int, writers: int,
             prefix: str) -> dict:
    """Open the watchers, run the writes, and check every watcher saw every write's event once, in order."""
    with _https(ca, token) as c:
        rv = c.get(f"{url}/api/v1/namespaces/{NAMESPACE}/configmaps").json()["metadata"]["resourceVersion"]
    expected = 3 * objects
    ws = [Watcher(url, token, ca, rv, expected) for _ in range(watchers)]
    for w in ws:
        w.start()
    for w in ws:
        w.open.wait(30)
    names = [f"{prefix}-{i:05d}" for i in range(objects)]
    results: list[dict] = []
    pacer = Pacer(rate)
    threads = [threading.Thread(target=_writer, args=(url, token, ca, names[k::writers], pacer, results), daemon=True)
               for k in range(writers)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    for w in ws:
        w.done.wait(60)

    ok = [r for r in results if r["code"] < 300]
    failed = len(results) - len(ok)
    written = {r["rv"]: r for r in ok if r["rv"] is not None}
    lost = dup = disorder = 0
    lags: list[float] = []
    counts = []
    for w in ws:
        rvs = [e[2] for e in w.events]
        counts.append(len(rvs))
        seen = set(rvs)
        lost += len(set(written) - seen) + max(0, expected - len(seen))
        dup += len(rvs) - len(seen)
        disorder += sum(1 for a, b in zip(rvs, rvs[1:]) if b <= a)
        for _, _, r, at in w.events:
            if r in written:
                lags.append((at - written[r]["done"]) * 1000.0)
    lat = [(r["done"] - r["sent"]) * 1000.0 for r in results]
    return {"mode": "paced" if rate > 0 else "unpaced", "target_rps": rate, "watchers": watchers,
            "writes": len(results), "failed": failed, "wall_seconds": wall,
            "achieved_rps": len(results) / wall if wall else 0.0,
            "p50_ms": _percentile(lat, 50), "p95_ms": _percentile(lat, 95), "p99_ms": _percentile(lat, 99),
            "events_expected": expected, "events_min": min(counts), "events_max": max(counts),
            "lost": lost, "duplicated": dup, "out_of_order": disorder,
            "lag_p50_ms": _percentile([x for x in lags if x >= 0] or lags, 50),
            "lag_p95_ms": _percentile([x for x in lags if x >= 0] or lags, 95),
            "watch_errors": [w.error for w in ws if w.error]}


def _serve_child(kubeconfig: str) -> None:
    """Serve a small cluster (clock paused) until stdin closes; print "ready" when listening."""
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.serve import serve

    c = Cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}],
                controllers=[], scheduler=False)
    s = serve(c, port=0, time_scale=0, kubeconfig=kubeconfig)
    print("ready", flush=True)
    try:
        sys.stdin.read()
    finally:
        s.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--watchers", type=int, default=20)
    ap.add_argument("--rate", type=float, default=200.0, help="paced requests per second")
    ap.add_argument("--objects", type=int, default=300, help="ConfigMaps per run (three writes each)")
    ap.add_argument("--writers", type=int, default=4, help="client threads")
    ap.add_argument("--mode", choices=("paced", "unpaced", "both"), default="both")
    ap.add_argument("--in-process", action="store_true", help="serve in this process (shares the GIL)")
    ap.add_argument("--serve-child", metavar="KUBECONFIG", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve_child:
        _serve_child(a.serve_child)
        return

    import tempfile

    tmp = tempfile.mkdtemp(prefix="kubenotes-load-")
    kubeconfig = os.path.join(tmp, "kubeconfig")
    child = served = None
    if a.in_process:
        from kubenotes.sim.cluster import Cluster
        from kubenotes.sim.serve import serve

        served = serve(Cluster([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}],
                               controllers=[], scheduler=False), port=0, time_scale=0, kubeconfig=kubeconfig)
    else:
        child = subprocess.Popen([sys.executable, __file__, "--serve-child", kubeconfig], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        if child.stdout.readline().strip() != "ready":
            sys.exit("the server did not start")
    url, token, ca = _connection(kubeconfig)
    rows = []
    try:
        modes = ["paced", "unpaced"] if a.mode == "both" else [a.mode]
        for m in modes:
            rows.append(run_load(url, token, ca, watchers=a.watchers, rate=a.rate if m == "paced" else 0.0,
                                 objects=a.objects, writers=a.writers, prefix=m))
    finally:
        if child is not None:
            child.stdin.close()
            child.wait(30)
        if served is not None:
            served.stop()
        os.unlink(ca)

    where = "one process" if a.in_process else "server in a child process"
    print(f"kubenotes serve: {a.watchers} ConfigMap watchers, {a.writers} writer threads, "
          f"{a.objects} ConfigMaps x (create, patch, delete); {where}")
    head = (f"{'mode':<8} {'target/s':>8} {'writes':>6} {'failed':>6} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
            f"{'p99 ms':>7} {'events/watcher':>15} {'lost':>5} {'dup':>4} {'order':>5} {'lag p50':>8} {'lag p95':>8}")
    print(head)
    print("-" * len(head))
    for r in rows:
        ev = f"{r['events_min']}-{r['events_max']}/{r['events_expected']}"
        print(f"{r['mode']:<8} {r['target_rps'] or '-':>8} {r['writes']:>6} {r['failed']:>6} {r['achieved_rps']:>7.1f} "
              f"{r['p50_ms']:>7.1f} {r['p95_ms']:>7.1f} {r['p99_ms']:>7.1f} {ev:>15} {r['lost']:>5} "
              f"{r['duplicated']:>4} {r['out_of_order']:>5} {r['lag_p50_ms']:>8.1f} {r['lag_p95_ms']:>8.1f}")
        for e in r["watch_errors"]:
            print(f"  watcher error: {e}")
    if any(r["lost"] or r["duplicated"] or r["out_of_order"] or r["failed"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
