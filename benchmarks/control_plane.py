"""The running control plane at scale: 1,000 nodes and 10,000 pods from Deployments reaching steady state.

Builds a cluster of identical nodes (4 CPU, 16 GiB, 110 pods) and Deployments of
small pods (50m CPU, 64Mi), runs it on the virtual clock until every Deployment
reports all replicas available (or ``--max-virtual-seconds`` pass), and reports:

* wall time to build the cluster and to reach steady state;
* virtual seconds to steady state;
* API writes (committed by the API server) and writes per wall second;
* peak RSS of the process.

Each configuration runs in its own subprocess so peak RSS is per run.

Usage: python benchmarks/control_plane.py [--nodes 1000] [--deployments 100] [--replicas 100]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def _objects(nodes: int, deployments: int, replicas: int) -> list[dict]:
    objs: list[dict] = []
    for i in range(nodes):
        cap = {"cpu": "4", "memory": "16Gi", "pods": "110"}
        objs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": f"node-{i:04d}",
                                  "labels": {"kubernetes.io/hostname": f"node-{i:04d}",
                                             "topology.kubernetes.io/zone": f"zone-{i % 3}"}},
                     "status": {"capacity": cap, "allocatable": cap,
                                "addresses": [{"type": "InternalIP", "address": f"10.0.{i // 250}.{i % 250 + 1}"}]}})
    for d in range(deployments):
        name = f"app-{d:03d}"
        objs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
                     "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                              "template": {"metadata": {"labels": {"app": name}},
                                           "spec": {"containers": [{
                                               "name": "app", "image": "registry.k8s.io/pause:3.10",
                                               "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}}]}}}})
    return objs


def run(nodes: int, deployments: int, replicas: int, max_virtual_seconds: float) -> dict:
    from kubenotes.sim.cluster import Cluster

    t0 = time.perf_counter()
    # a /14 holds 1,024 node /24s (kind's default 10.244.0.0/16 holds 256)
    # hollow kubelets (kubemark-style): this measures the control plane; benchmarks/kubelet_scale.py the node side
    cluster = Cluster(_objects(nodes, deployments, replicas), seed=0, kubelet="stand-in",
                      options={"cluster-cidr": "10.0.0.0/14"})
    built = time.perf_counter() - t0
    writes0 = len(cluster.audit_log)

    def steady(c: Cluster) -> bool:
        for d in c.server.list("deployments"):
            st = d.get("status") or {}
            if st.get("availableReplicas", 0) != replicas or st.get("updatedReplicas", 0) != replicas:
                return False
        return True

    t1 = time.perf_counter()
    ok = cluster.run_until(steady, timeout_seconds=max_virtual_seconds, poll_seconds=5.0)
    wall = time.perf_counter() - t1
    writes = len(cluster.audit_log) - writes0
    running = sum(1 for p in cluster.server.list("pods") if (p.get("status") or {}).get("phase") == "Running")
    return {"nodes": nodes, "deployments": deployments, "pods": deployments * replicas, "steady": ok,
            "virtual_seconds": round(cluster.now, 1), "build_wall_seconds": round(built, 2),
            "wall_seconds": round(wall, 2), "api_writes": writes,
            "writes_per_wall_second": round(writes / wall) if wall else 0, "running_pods": running,
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--deployments", type=int, default=100)
    ap.add_argument("--replicas", type=int, default=100)
    ap.add_argument("--max-virtual-seconds", type=float, default=1800.0)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(run(a.nodes, a.deployments, a.replicas, a.max_virtual_seconds)))
        return
    out = subprocess.run([sys.executable, __file__, "--child", "--nodes", str(a.nodes), "--deployments",
                          str(a.deployments), "--replicas", str(a.replicas), "--max-virtual-seconds",
                          str(a.max_virtual_seconds)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        sys.exit(out.returncode)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{r['nodes']} nodes, {r['pods']} pods in {r['deployments']} Deployments: "
          f"steady={r['steady']} at virtual {r['virtual_seconds']} s; wall {r['wall_seconds']} s "
          f"(+{r['build_wall_seconds']} s to load); {r['api_writes']} API writes, "
          f"{r['writes_per_wall_second']} writes/s; {r['running_pods']} pods Running; peak RSS {r['peak_rss_mib']} MiB")


if __name__ == "__main__":
    main()
