"""The node side at scale: 100 nodes running the kubelet model and 3,000 probed pods for 1 hour of virtual time.

Builds a cluster with ``kubelet="model"`` (every node runs
:class:`kubenotes.kubelet.kubelet.Kubelet` over its own CRI runtime, with the
runtime's call trace off), identical nodes (4 CPU, 16 GiB, 110 pods) and
Deployments of small nginx pods with an HTTP liveness probe (every 10 s) and
an HTTP readiness probe (every 5 s), runs ``--seconds`` of virtual time, and
reports:

* wall time to build the cluster and to run it, and the virtual/wall ratio;
* API writes (committed by the API server) per wall second;
* kubelet events per wall second: the Events the kubelets recorded (Pulled,
  Created, Started...), the pod syncs, and the SimPy events the whole
  simulation processed (PLEG relists, probes, heartbeats, controllers);
* CRI calls (every RuntimeService/ImageService call of every node);
* peak RSS of the process (``resource.getrusage``);
* Python's garbage collector: its generation-0 threshold and how many full
  collections ran (Cluster.run raises the threshold to 50,000 while the clock runs; ``--gc-threshold N`` sets
  it before building).

Each configuration runs in its own subprocess so peak RSS is per run;
``--profile`` prints the top of a cProfile of the run instead (in process).

Usage: python benchmarks/kubelet_scale.py [--nodes 100] [--pods 3000] [--seconds 3600] [--gc-threshold N] [--profile]
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import re
import resource
import subprocess
import sys
import time
from collections import deque
from _cluster import node_manifests  # benchmarks/_cluster.py, beside this script

#: Deployments of at most this many replicas each.
REPLICAS_PER_DEPLOYMENT = 100
#: Rows kept of each kubelet's PLEG relist log, sync log and status log.
LOG_TAIL = 1000

CRI_METHODS = ("Version", "RunPodSandbox", "StopPodSandbox", "RemovePodSandbox", "PodSandboxStatus",
               "ListPodSandbox", "CreateContainer", "StartContainer", "StopContainer", "RemoveContainer",
               "ListContainers", "ContainerStatus", "UpdateContainerResources", "ExecSync", "ContainerStats",
               "ListImages", "ImageStatus", "PullImage", "RemoveImage", "ImageFsInfo")


def _objects(nodes: int, pods: int) -> list[dict]:
    objs: list[dict] = []
    objs.extend(node_manifests(nodes, {"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"}))
    d = 0
    left = pods
    while left > 0:
        replicas = min(REPLICAS_PER_DEPLOYMENT, left)
        left -= replicas
        name = f"app-{d:03d}"
        d += 1
        container = {"name": "app", "image": "nginx:1.27", "ports": [{"containerPort": 80}],
                     "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}},
                     "livenessProbe": {"httpGet": {"path": "/healthz", "port": 80}, "periodSeconds": 10},
                     "readinessProbe": {"httpGet": {"path": "/ready", "port": 80}, "periodSeconds": 5}}
        objs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
                     "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                              "template": {"metadata": {"labels": {"app": name}},
                                           "spec": {"containers": [container]}}}})
    return objs


class _Tail(deque):
    """A log keeping its last rows and counting every row appended."""

    def __init__(self, rows, maxlen: int):
        super().__init__(rows, maxlen=maxlen)
        self.total = len(self)

    def append(self, row) -> None:
        self.total += 1
        super().append(row)


def _count_cri_calls(runtime, counter: dict) -> None:
    """Wrap the runtime's RPCs on the instance (the kubelet and its PLEG call through it) to count calls."""
    for name in CRI_METHODS:
        fn = getattr(runtime, name, None)
        if fn is None:
            continue

        def counted(request=None, _fn=fn, _name=name):
            counter[_name] = counter.get(_name, 0) + 1
            return _fn(request)

        setattr(runtime, name, functools.wraps(fn)(counted))


def _simpy_events(env) -> int:
    """How many events the environment has scheduled (its event-id counter; reading it costs nothing)."""
    m = re.search(r"\d+", repr(env._eid))
    return int(m.group()) if m else 0


def build(nodes: int, pods: int):
    from kubenotes.sim.cluster import Cluster

    cluster = Cluster(_objects(nodes, pods), seed=0, kubelet="model", options={"cluster-cidr": "10.0.0.0/14"})
    counter: dict = {}
    for k in cluster.kubelets.values():
        k.runtime.trace_enabled = False  # no per-call trace (the chapters' call sequences need it; an hour does not)
        # the logs a notebook reads grow by a row per relist/sync: keep their tails (memory stays flat)
        k.pleg.relists = _Tail(k.pleg.relists, LOG_TAIL)
        k.sync_log = _Tail(k.sync_log, LOG_TAIL)
        k.status_log = _Tail(k.status_log, LOG_TAIL)
        _count_cri_calls(k.runtime, counter)
    return cluster, counter


def run(nodes: int, pods: int, seconds: float, gc_threshold: int = 0) -> dict:
    if gc_threshold:
        gc.set_threshold(gc_threshold, 20, 10)
    t0 = time.perf_counter()
    cluster, counter = build(nodes, pods)
    built = time.perf_counter() - t0
    writes0 = len(cluster.audit_log)
    ev0 = _simpy_events(cluster.env)
    t1 = time.perf_counter()
    cluster.run(until=cluster.env.now + seconds)  # Cluster.run: its epoch and GC settings
    wall = time.perf_counter() - t1
    writes = len(cluster.audit_log) - writes0
    sim_events = _simpy_events(cluster.env) - ev0
    kubelet_events = sum(len(k.events) for k in cluster.kubelets.values())
    syncs = sum(k.sync_log.total for k in cluster.kubelets.values())
    relists = sum(k.pleg.relists.total for k in cluster.kubelets.values())
    probes = sum(len(k.prober.results_log) for k in cluster.kubelets.values())
    listed = cluster.server.list("pods")
    running = sum(1 for p in listed if (p.get("status") or {}).get("phase") == "Running")
    ready = sum(1 for p in listed if any(c.get("type") == "Ready" and c.get("status") == "True"
                                         for c in (p.get("status") or {}).get("conditions") or []))
    per_wall = (lambda n: round(n / wall) if wall else 0)
    return {"nodes": nodes, "pods": pods, "virtual_seconds": seconds, "gc_threshold": gc.get_threshold()[0],
            "gc_full_collections": gc.get_stats()[2]["collections"], "build_wall_seconds": round(built, 2),
            "wall_seconds": round(wall, 2), "virtual_per_wall": round(seconds / wall, 2) if wall else 0,
            "api_writes": writes, "api_writes_per_second": per_wall(writes),
            "kubelet_events": kubelet_events, "kubelet_events_per_second": per_wall(kubelet_events),
            "pod_syncs": syncs, "pleg_relists": relists, "probe_result_changes": probes, "sim_events": sim_events,
            "sim_events_per_second": per_wall(sim_events), "cri_calls": sum(counter.values()),
            "cri_calls_per_second": per_wall(sum(counter.values())),
            "cri_top": sorted(counter.items(), key=lambda kv: -kv[1])[:4],
            "running_pods": running, "ready_pods": ready,
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def profile(nodes: int, pods: int, seconds: float, top: int) -> None:
    import cProfile
    import pstats

    cluster, _ = build(nodes, pods)
    prof = cProfile.Profile()
    prof.enable()
    cluster.run(until=cluster.env.now + seconds)  # Cluster.run: its epoch and GC settings
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def _table(r: dict) -> str:
    rows = [("nodes / pods", f"{r['nodes']} / {r['pods']} ({r['running_pods']} Running, {r['ready_pods']} Ready)"),
            ("virtual seconds", f"{r['virtual_seconds']:g}"),
            ("wall seconds", f"{r['wall_seconds']} (+{r['build_wall_seconds']} to build)"),
            ("gc", f"threshold {r['gc_threshold']}, {r['gc_full_collections']} full collections"),
            ("virtual / wall", f"{r['virtual_per_wall']}x"),
            ("API writes", f"{r['api_writes']} ({r['api_writes_per_second']}/s)"),
            ("kubelet Events", f"{r['kubelet_events']} ({r['kubelet_events_per_second']}/s)"),
            ("pod syncs / PLEG relists", f"{r['pod_syncs']} / {r['pleg_relists']}"),
            ("probe result changes", f"{r['probe_result_changes']}"),
            ("SimPy events", f"{r['sim_events']} ({r['sim_events_per_second']}/s)"),
            ("CRI calls", f"{r['cri_calls']} ({r['cri_calls_per_second']}/s; "
                          + ", ".join(f"{m} {n}" for m, n in r["cri_top"]) + ")"),
            ("peak RSS", f"{r['peak_rss_mib']} MiB")]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--pods", type=int, default=3000)
    ap.add_argument("--seconds", type=float, default=3600.0)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the run (in process)")
    ap.add_argument("--top", type=int, default=30, help="rows of the profile")
    ap.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    ap.add_argument("--gc-threshold", type=int, default=0,
                    help="gc.set_threshold(N, 20, 10) before building (Python's default 700: full collections "
                         "over a large heap take a third or more of the wall time)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.profile:
        profile(a.nodes, a.pods, a.seconds, a.top)
        return
    if a.child:
        print(json.dumps(run(a.nodes, a.pods, a.seconds, a.gc_threshold)))
        return
    out = subprocess.run([sys.executable, __file__, "--child", "--nodes", str(a.nodes), "--pods", str(a.pods),
                          "--seconds", str(a.seconds), "--gc-threshold", str(a.gc_threshold)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        sys.exit(out.returncode)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(json.dumps(r) if a.json else _table(r))


if __name__ == "__main__":
    main()
