"""One huge Deployment, instant mode: wall time to full availability and the ReplicaSet controller's cost per sync.

Builds ``--nodes`` identical nodes (4 CPU, 16 GiB, 110 pods; by default enough for
the replicas at 50 pods a node) and one Deployment of ``--replicas`` small pods
(50m CPU, 64Mi), runs the cluster with stand-in kubelets and zero-cost requests
(``simulate --instant``) until the Deployment reports every replica updated and
available, and reports:

* wall time to build the cluster and to reach full availability, and the virtual
  seconds it took;
* the CPU time of that run (the machine may be shared: CPU time is the steadier figure);
* syncs of the ReplicaSet and Deployment controllers and their mean CPU cost per
  sync (milliseconds), and the ReplicaSet controller's ``ClaimObject`` calls;
* API writes.

Each replica count runs in its own subprocess, stopped after ``--max-wall-seconds``.

Usage: python benchmarks/big_deployment.py [--replicas 1000 2000 10000] [--nodes N] [--max-wall-seconds 1800]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from _cluster import node_manifests  # benchmarks/_cluster.py, beside this script

PODS_PER_NODE = 50


def _objects(nodes: int, replicas: int) -> list[dict]:
    objs: list[dict] = []
    objs.extend(node_manifests(nodes, {"cpu": "4", "memory": "16Gi", "pods": "110"}))
    objs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "big", "namespace": "default"},
                 "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "big"}},
                          "template": {"metadata": {"labels": {"app": "big"}},
                                       "spec": {"containers": [{
                                           "name": "app", "image": "registry.k8s.io/pause:3.10",
                                           "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}}]}}}})
    return objs


def _timed(controller, totals: dict) -> None:
    """Wrap ``controller.reconcile`` to add its CPU time to ``totals``."""
    inner = controller.reconcile

    def reconcile(key):
        t = time.process_time()
        try:
            return inner(key)
        finally:
            totals["seconds"] += time.process_time() - t
            totals["syncs"] += 1

    controller.reconcile = reconcile


def run(replicas: int, nodes: int, max_virtual_seconds: float) -> dict:
    from kubenotes.controllers import controller_utils
    from kubenotes.sim.cluster import Cluster

    t0 = time.perf_counter()
    cluster = Cluster(_objects(nodes, replicas), seed=0, kubelet="stand-in", options={"cluster-cidr": "10.0.0.0/14"})
    built = time.perf_counter() - t0
    writes0 = len(cluster.audit_log)
    rs_cost = {"seconds": 0.0, "syncs": 0}
    dep_cost = {"seconds": 0.0, "syncs": 0}
    _timed(cluster.controllers["replicaset-controller"], rs_cost)
    _timed(cluster.controllers["deployment-controller"], dep_cost)
    claims = {"n": 0}
    claim_object = controller_utils.ControllerRefManager.claim_object

    def counted(self, obj, match):
        claims["n"] += 1
        return claim_object(self, obj, match)

    controller_utils.ControllerRefManager.claim_object = counted

    def available(c: Cluster) -> bool:
        d = c.get("deployments", "big", "default")
        st = d.get("status") or {}
        return st.get("availableReplicas", 0) == replicas and st.get("updatedReplicas", 0) == replicas

    t1, c1 = time.perf_counter(), time.process_time()
    ok = cluster.run_until(available, timeout_seconds=max_virtual_seconds, poll_seconds=1.0)
    wall, cpu = time.perf_counter() - t1, time.process_time() - c1
    return {"replicas": replicas, "nodes": nodes, "available": ok, "virtual_seconds": round(cluster.now, 1),
            "build_wall_seconds": round(built, 2), "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "rs_syncs": rs_cost["syncs"],
            "rs_ms_per_sync": round(1000 * rs_cost["seconds"] / max(1, rs_cost["syncs"]), 2),
            "rs_seconds": round(rs_cost["seconds"], 2),
            "deployment_syncs": dep_cost["syncs"],
            "deployment_ms_per_sync": round(1000 * dep_cost["seconds"] / max(1, dep_cost["syncs"]), 2),
            "claim_object_calls": claims["n"], "api_writes": len(cluster.audit_log) - writes0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicas", type=int, nargs="+", default=[1000, 2000, 10000])
    ap.add_argument("--nodes", type=int, default=0, help=f"default: replicas / {PODS_PER_NODE}, rounded up")
    ap.add_argument("--max-virtual-seconds", type=float, default=1800.0)
    ap.add_argument("--max-wall-seconds", type=float, default=1800.0)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        r = a.replicas[0]
        print(json.dumps(run(r, a.nodes or math.ceil(r / PODS_PER_NODE), a.max_virtual_seconds)))
        return
    for r in a.replicas:
        cmd = [sys.executable, __file__, "--child", "--replicas", str(r), "--nodes", str(a.nodes),
               "--max-virtual-seconds", str(a.max_virtual_seconds)]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=a.max_wall_seconds)
        except subprocess.TimeoutExpired:
            print(f"{r} replicas: not available after {a.max_wall_seconds:.0f} s wall (stopped)", flush=True)
            continue
        if out.returncode != 0:
            sys.stderr.write(out.stderr)
            sys.exit(out.returncode)
        s = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{s['replicas']} replicas on {s['nodes']} nodes: available={s['available']} at virtual "
              f"{s['virtual_seconds']} s; wall {s['wall_seconds']} s, CPU {s['cpu_seconds']} s "
              f"(+{s['build_wall_seconds']} s wall to build); "
              f"ReplicaSet syncs {s['rs_syncs']} at {s['rs_ms_per_sync']} ms ({s['rs_seconds']} s), "
              f"ClaimObject calls {s['claim_object_calls']}; Deployment syncs {s['deployment_syncs']} at "
              f"{s['deployment_ms_per_sync']} ms; {s['api_writes']} API writes", flush=True)


if __name__ == "__main__":
    main()
