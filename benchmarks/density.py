"""Density: the pod startup latency SLI with client rate limits on, beside the scalability SLO (p99 <= 5 s).

Builds ``--nodes`` identical nodes and Deployments of ``--pods-per-node`` small
stateless pods per node (the classic density load: 30 pods a node), runs the
cluster on the virtual clock with request costs on
(:class:`kubenotes.sim.costs.RequestCosts`: every component's upstream client
QPS/burst, the API server's latency) and once instant, and reports:

* the pod startup latency SLI as SIG Scalability defines it: for each
  stateless pod, from its creation to the API write that reports it Running
  (what a watcher observes), minus the time it spent pulling images (from its
  first ``Pulling`` to its last ``Pulled`` Event, as the kubelet's
  ``pod_start_sli_duration_seconds`` excludes it); p50, p90, p99, beside the
  SLO's p99 <= 5 s;
* the same measured with costs off (``--instant``), to show what the costs add;
* time until every Deployment is fully available, wall time, API writes, and how
  long each client waited for its rate limiter.

``--deployment-replicas N`` runs one Deployment of N replicas instead (e.g.
10,000 on 100 nodes): the time to fully available is then set by the
ReplicaSet controller's 20 QPS (about N / 20 seconds).

Each configuration runs in its own subprocess.

Usage: python benchmarks/density.py [--nodes 50] [--pods-per-node 30] [--kubelet model|stand-in]
       [--deployment-replicas N] [--kube-api-qps 20] [--kube-api-burst 30] [--max-virtual-seconds 1800]

References
----------
https://github.com/kubernetes/community/blob/master/sig-scalability/slos/pod_startup_latency.md
https://github.com/kubernetes/community/blob/master/sig-scalability/slos/slos.md
kubernetes/kubernetes@v1.34.0 pkg/kubelet/util/pod_startup_latency_tracker.go (image pulling excluded)
https://github.com/kubernetes/perf-tests/tree/master/clusterloader2/testing/load (ClusterLoader2's load/density tests)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from _cluster import node_manifests  # benchmarks/_cluster.py, beside this script

#: The SLO: p99 of the pod startup latency SLI, stateless pods, in a cluster within the scalability envelope.
SLO_P99_SECONDS = 5.0
REPLICAS_PER_DEPLOYMENT = 100


def _objects(nodes: int, pods: int, replicas_per_deployment: int) -> list[dict]:
    objs: list[dict] = []
    objs.extend(node_manifests(nodes, {"cpu": "32", "memory": "128Gi", "pods": "110"}))
    d = 0
    while pods > 0:
        n = min(replicas_per_deployment, pods)
        name = f"density-{d:03d}"
        objs.append({"apiVersion": "apps/v1", "kind": "Deployment",
                     "metadata": {"name": name, "namespace": "default"},
                     "spec": {"replicas": n, "selector": {"matchLabels": {"app": name}},
                              "template": {"metadata": {"labels": {"app": name}},
                                           "spec": {"containers": [{
                                               "name": "pause", "image": "registry.k8s.io/pause:3.10",
                                               "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}}})
        pods -= n
        d += 1
    return objs


def _percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (what ClusterLoader2's latency summaries report)."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return s[k]


def startup_latencies(audit_log: list) -> list[float]:
    """The pod startup SLI of each pod in an audit log: creation -> Running written, minus image pulling."""
    created: dict[str, float] = {}
    running: dict[str, float] = {}
    pulling: dict[str, float] = {}
    pulled: dict[str, float] = {}
    for e in audit_log:
        if e.kind == "Pod" and e.verb == "create" and e.name not in created:
            created[e.name] = e.time
        elif e.kind == "Pod" and e.verb == "update" and "->Running" in e.detail and e.name not in running:
            running[e.name] = e.time
        elif e.kind == "Event" and e.component.startswith("kubelet/"):
            pod = e.name.rsplit(".", 1)[0]
            if e.detail.startswith("Pulling:"):
                pulling.setdefault(pod, e.time)
            elif e.detail.startswith("Pulled:"):
                pulled[pod] = e.time
    out = []
    for name, t0 in created.items():
        if name in running:
            pull = pulled[name] - pulling[name] if name in pulling and name in pulled else 0.0
            out.append(running[name] - t0 - pull)
    return out


def run(nodes: int, pods: int, replicas_per_deployment: int, kubelet: str, costs_on: bool,
        max_virtual_seconds: float, kcm_qps: float = 20.0, kcm_burst: int = 30) -> dict:
    from kubenotes.sim.cluster import Cluster
    from kubenotes.sim.costs import RequestCosts

    t0 = time.perf_counter()
    costs = RequestCosts(rate_limits={"kube-controller-manager": (kcm_qps, kcm_burst)}) if costs_on else None
    cluster = Cluster(_objects(nodes, pods, replicas_per_deployment), seed=0, kubelet=kubelet,
                      controllers=["deployment-controller", "replicaset-controller"], request_costs=costs)
    built = time.perf_counter() - t0

    def available(c: Cluster) -> bool:
        for d in c.server.list("deployments"):
            if (d.get("status") or {}).get("availableReplicas", 0) != d["spec"]["replicas"]:
                return False
        return True

    t1 = time.perf_counter()
    ok = cluster.run_until(available, timeout_seconds=max_virtual_seconds, poll_seconds=0.5)
    wall = time.perf_counter() - t1
    lat = startup_latencies(cluster.audit_log)
    creates = [e.time for e in cluster.audit_log if e.kind == "Pod" and e.verb == "create"]
    return {
        "costs": "on" if costs_on else "instant", "kubelet": kubelet, "nodes": nodes, "pods": pods,
        "kube_api_qps": kcm_qps, "kube_api_burst": kcm_burst,
        "all_available": ok, "virtual_seconds_to_available": round(cluster.now, 1),
        "last_pod_created_at": round(max(creates), 2) if creates else None,
        "pods_measured": len(lat),
        "sli_p50_s": round(_percentile(lat, 50), 3), "sli_p90_s": round(_percentile(lat, 90), 3),
        "sli_p99_s": round(_percentile(lat, 99), 3), "slo_p99_s": SLO_P99_SECONDS,
        "slo_met": _percentile(lat, 99) <= SLO_P99_SECONDS,
        "api_writes": len(cluster.audit_log),
        "throttled_seconds": {k: round(v, 1) for k, v in sorted((costs.throttled_seconds if costs else {}).items())},
        "build_wall_s": round(built, 2), "run_wall_s": round(wall, 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=50)
    p.add_argument("--pods-per-node", type=int, default=30)
    p.add_argument("--deployment-replicas", type=int, default=0,
                   help="one Deployment of this many replicas instead of 100-replica Deployments")
    p.add_argument("--kubelet", choices=("model", "stand-in"), default="model")
    p.add_argument("--max-virtual-seconds", type=float, default=1800.0)
    p.add_argument("--kube-api-qps", type=float, default=20.0, help="kube-controller-manager's (default 20)")
    p.add_argument("--kube-api-burst", type=int, default=30, help="kube-controller-manager's (default 30)")
    p.add_argument("--one", choices=("on", "instant"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    pods = args.deployment_replicas or args.nodes * args.pods_per_node
    per = args.deployment_replicas or REPLICAS_PER_DEPLOYMENT
    if args.one:
        print(json.dumps(run(args.nodes, pods, per, args.kubelet, args.one == "on", args.max_virtual_seconds,
                             args.kube_api_qps, args.kube_api_burst)))
        return 0
    rows = []
    for mode in ("on", "instant"):
        cmd = [sys.executable, __file__, "--nodes", str(args.nodes), "--pods-per-node", str(args.pods_per_node),
               "--deployment-replicas", str(args.deployment_replicas), "--kubelet", args.kubelet,
               "--max-virtual-seconds", str(args.max_virtual_seconds), "--kube-api-qps", str(args.kube_api_qps),
               "--kube-api-burst", str(args.kube_api_burst), "--one", mode]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout))
        print(json.dumps(rows[-1]))
    on, instant = rows
    print(f"pod startup latency SLI ({on['kubelet']} kubelet, {on['nodes']} nodes, {on['pods']} pods, image pulls "
          f"excluded), costs on: p50 {on['sli_p50_s']} s, p90 {on['sli_p90_s']} s, p99 {on['sli_p99_s']} s "
          f"(SLO p99 <= {SLO_P99_SECONDS:g} s: {'met' if on['slo_met'] else 'MISSED'}); instant: "
          f"p99 {instant['sli_p99_s']} s. Fully available after {on['virtual_seconds_to_available']} s "
          f"(instant {instant['virtual_seconds_to_available']} s).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
