"""``kubenotes serve`` stays up while its clock runs a big rollout: GET latency during a 5,000-replica Deployment.

Issue #31: "The clock advances in bounded slices and requests interleave
between them, so no request waits behind a whole simulation step: GET /version
and a GET of one object answer within 100 ms at p99 while a 5,000-replica
Deployment rolls out with the clock running."

A child process builds a cluster of ``--nodes`` nodes (4 CPU, 16 GiB, 110 pods)
with stand-in kubelets and serves it with the clock running at
``--time-scale``. The parent (its own interpreter, so it does not share the
server's interpreter lock) creates a Deployment of ``--replicas`` small pods
over HTTPS, then every ``--interval-ms`` sends ``GET /version`` and a GET of
the Deployment, until the Deployment reports every replica updated and
available (or ``--max-wall-seconds`` pass). It prints:

* latency of each GET (p50/p95/p99/max, ms; samples counted);
* the rollout's wall time and its virtual time (the server's clock from the
  create to full availability);
* the server process's CPU time over the rollout (the machine may be shared:
  the wall figures are inflated by load, the CPU figure less so).

Measured on a shared 2-core machine (main 412afbf, where the clock held the lock for
``cluster.run`` of a whole tick, against this branch; 5,000 replicas, 100 nodes, time scale 1):

* before: GET /version p99 25,179 ms (one request waited 25 s behind a simulation step; 45
  samples in 29.5 s), GET deployment p99 7.6 ms; server CPU 13.6 s, rollout 2.3 virtual s;
* after, load average 5.7: GET /version p50 5.1, p95 15.9, p99 25.5, max 61.0 ms; GET
  deployment p50 9.7, p95 25.3, p99 38.5, max 73.0 ms (1,128 samples); server CPU 13.3 s,
  rollout 2.2 virtual s in 28.2 s wall;
* after, load average 11: p99 52.4 ms (/version) and 79.9 ms (deployment), max 129 ms.

Usage: python benchmarks/serve_clock.py [--replicas 5000] [--nodes 100] [--time-scale 1] [--interval-ms 20]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from serve_load import _connection, _https, _percentile  # noqa: E402 - the same HTTPS client and percentile
from _cluster import node_manifests  # noqa: E402 - benchmarks/_cluster.py, beside this script


def _nodes(n: int) -> list[dict]:
    return node_manifests(n, {"cpu": "4", "memory": "16Gi", "pods": "110"})


def _deployment(replicas: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "big", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "big"}},
                     "template": {"metadata": {"labels": {"app": "big"}},
                                  "spec": {"containers": [{
                                      "name": "app", "image": "registry.k8s.io/pause:3.10",
                                      "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}}]}}}}


def child(nodes: int, time_scale: float) -> None:
    """Serve the cluster; answer ``now`` and ``cpu`` lines on stdin; stop at EOF."""
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.serve import serve

    cluster = Cluster(_nodes(nodes), seed=0, kubelet="stand-in", options={"cluster-cidr": "10.0.0.0/14"})
    served = serve(cluster, port=0, time_scale=time_scale)
    print(json.dumps({"kubeconfig": served.kubeconfig_path}), flush=True)
    for line in sys.stdin:
        if line.strip() == "now":
            print(json.dumps({"now": served.now, "cpu": time.process_time()}), flush=True)
    served.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicas", type=int, default=5000)
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--time-scale", type=float, default=1.0)
    ap.add_argument("--interval-ms", type=float, default=20.0)
    ap.add_argument("--max-wall-seconds", type=float, default=900.0)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.nodes, a.time_scale)
        return
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, __file__, "--child", "--nodes", str(a.nodes),
                             "--time-scale", str(a.time_scale)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    try:
        report(proc, a)
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(30)


def _ask(proc: Any) -> dict:
    proc.stdin.write("now\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def report(proc: Any, a: argparse.Namespace) -> None:
    started = json.loads(proc.stdout.readline())
    url, token, ca = _connection(started["kubeconfig"])
    lat: dict[str, list[float]] = {"GET /version": [], "GET deployment": []}
    errors = 0
    path = f"{url}/apis/apps/v1/namespaces/default/deployments/big"
    with _https(ca, token, timeout=60.0) as c:
        before = _ask(proc)
        t0 = time.perf_counter()
        r = c.post(f"{url}/apis/apps/v1/namespaces/default/deployments", json=_deployment(a.replicas))
        if r.status_code != 201:
            raise SystemExit(f"create answered {r.status_code}: {r.text[:200]}")
        done = False
        status: dict = {}
        while not done and time.perf_counter() - t0 < a.max_wall_seconds:
            tick = time.perf_counter()
            for name, target in (("GET /version", f"{url}/version"), ("GET deployment", path)):
                s = time.perf_counter()
                r = c.get(target)
                lat[name].append((time.perf_counter() - s) * 1000.0)
                if r.status_code != 200:
                    errors += 1
                elif name == "GET deployment":
                    status = r.json().get("status") or {}
                    done = (status.get("availableReplicas", 0) == a.replicas
                            and status.get("updatedReplicas", 0) == a.replicas)
            delay = a.interval_ms / 1000.0 - (time.perf_counter() - tick)
            if delay > 0:
                time.sleep(delay)
        wall = time.perf_counter() - t0
        after = _ask(proc)
    print(f"{a.replicas} replicas on {a.nodes} nodes, time scale {a.time_scale:g}: "
          f"{'available' if done else 'NOT available'} after {wall:.1f} s wall, "
          f"{after['now'] - before['now']:.1f} s virtual; server CPU {after['cpu'] - before['cpu']:.1f} s; "
          f"status {json.dumps({k: status.get(k) for k in ('replicas', 'updatedReplicas', 'availableReplicas')})}")
    for name, xs in lat.items():
        print(f"  {name}: n={len(xs)} p50 {_percentile(xs, 50):.1f} ms, p95 {_percentile(xs, 95):.1f} ms, "
              f"p99 {_percentile(xs, 99):.1f} ms, max {max(xs) if xs else float('nan'):.1f} ms")
    if errors:
        print(f"  non-200 answers: {errors}")


if __name__ == "__main__":
    main()
