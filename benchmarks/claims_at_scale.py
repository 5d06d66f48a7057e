"""Claims at scale: 10,000 WaitForFirstConsumer claims bound through scheduling on 1,000 nodes.

Builds ``--nodes`` identical nodes (4 CPU, 16 GiB, 110 pods), one StorageClass
``local-wffc`` (``volumeBindingMode: WaitForFirstConsumer``, ``reclaimPolicy:
Delete``) served by the model's external provisioner
(:class:`kubenotes.controllers.volume.provisioner.HostPathProvisioner`,
``k8s.io/minikube-hostpath``), and ``--claims`` PersistentVolumeClaims of 1Gi,
each used by one plain Pod. It runs the cluster on the virtual clock (the
default kube-controller-manager controllers, the scheduler with its
VolumeBinding plugin, hollow kubelets) until every claim is Bound and every
pod Running, or ``--max-virtual-seconds`` pass, and reports:

* wall and CPU time (user + sys of the process) to load the cluster and to
  bind and start everything; the virtual time of the last claim's Bound and
  the last pod's Running write;
* API writes (committed by the API server) by verb and resource, and in all;
* peak RSS of the process.

Why plain pods and not a StatefulSet: the path measured is the storage one
(the PersistentVolume controller waits, the scheduler's VolumeBinding picks a
node and writes ``volume.kubernetes.io/selected-node``, the provisioner
creates a volume with node affinity, the controller binds, PreBind sees the
binding and the pod is bound). A StatefulSet reaches the same path through
its ``volumeClaimTemplates`` but paces it with its own controller (one pod at a
time with ``OrderedReady``); plain pods make the claim path, not the
StatefulSet controller, the part under load. Claims and pods exist at time
0, as ``kubectl apply`` of both would make them.

Each configuration runs in its own subprocess so peak RSS is per run.

Measured (2 shared cores, hollow kubelets; CPU = user + sys of the run):
10,000 claims on 1,000 nodes: all Bound and Running within 5 virtual s,
149 CPU s, 173,008 API writes, peak RSS 1.67 GiB (447 CPU s and 1.72 GiB
before issue #28, same writes). Earlier smaller runs: 500/50
2.4 CPU s, 1,000/100 7.6 s, 2,000/200 21.8 s. Before the PV controller's
index stopped scanning bound volumes, 2,000/200 took 102.8 CPU s (half of
it, 61 of 122 profiled s, in ``find_by_claim``). The scheduler then re-listed
the storage objects each cycle (4,000/400 under cProfile: 173 of 217 s;
``ObjectListers.of`` rebuilding the claim and volume maps 64 s,
``_cluster_objects`` 22 s, ``ObjectListers.refresh`` 18 s); since its listers
are kept from watch events (issue #28), 2,000/200 runs in 10.4 CPU s (was
15.7) and 4,000/400 in 36.3 (was 60.5), with the same API writes; those
three now take 3 of 84 profiled s at 2,000/200. What grows with claims times
nodes is the volume plugins' per-node Filter work, and VolumeZone's and
VolumeRestrictions' scans of every claim per pod.

Usage: python benchmarks/claims_at_scale.py [--claims 10000] [--nodes 1000] [--max-virtual-seconds 3600]
       [--kubelet stand-in|model] [--profile FILE]

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/persistentvolume/pv_controller.go
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/volumebinding/binder.go
kubernetes-sigs/sig-storage-lib-external-provisioner@v11 controller/controller.go
https://github.com/kubernetes/perf-tests/tree/master/clusterloader2/testing/experimental/storage (storage load tests)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import time
from _cluster import node_manifests  # benchmarks/_cluster.py, beside this script

CLASS_NAME = "local-wffc"
NAMESPACE = "default"


def _objects(nodes: int, claims: int) -> list[dict]:
    from kubenotes.controllers.volume.provisioner import PROVISIONER_NAME

    objs: list[dict] = []
    objs.extend(node_manifests(nodes, {"cpu": "4", "memory": "16Gi", "pods": "110"}, zones=3))
    objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": CLASS_NAME},
                 "provisioner": PROVISIONER_NAME, "reclaimPolicy": "Delete",
                 "volumeBindingMode": "WaitForFirstConsumer"})
    for c in range(claims):
        name = f"data-{c:05d}"
        objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                     "metadata": {"name": name, "namespace": NAMESPACE},
                     "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": CLASS_NAME,
                              "resources": {"requests": {"storage": "1Gi"}}}})
        objs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"db-{c:05d}", "namespace": NAMESPACE, "labels": {"app": "db"}},
                     "spec": {"containers": [{"name": "db", "image": "registry.k8s.io/pause:3.10",
                                              "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}},
                                              "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
                              "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": name}}]}})
    return objs


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def writes_by_verb_and_resource(audit_log: list) -> dict[str, int]:
    """``verb resource`` -> number of committed writes (a status write counts as ``update <resource>/status``)."""
    from kubenotes.apiserver.resources import resource_for_kind

    plural: dict[str, str] = {}
    out: collections.Counter = collections.Counter()
    for e in audit_log:
        if e.kind not in plural:
            try:
                plural[e.kind] = resource_for_kind(e.kind).resource
            except Exception:  # a kind the table does not know: keep its name
                plural[e.kind] = e.kind
        res = plural[e.kind] + ("/status" if e.verb == "update" and e.detail.startswith("status") else "")
        out[f"{e.verb} {res}"] += 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def run(nodes: int, claims: int, kubelet: str, max_virtual_seconds: float, poll_seconds: float) -> dict:
    from kubenotes.controllers.volume.provisioner import HostPathProvisioner
    from kubenotes.sim.cluster import Cluster

    objs = _objects(nodes, claims)
    t0, c0 = time.perf_counter(), _cpu_seconds()
    # a /14 holds 1,024 node /24s; hollow kubelets (kubemark-style) unless --kubelet model
    cluster = Cluster(objs, seed=0, kubelet=kubelet, options={"cluster-cidr": "10.0.0.0/14"},
                      extra_controllers={"storage-provisioner": HostPathProvisioner})
    built_wall, built_cpu = time.perf_counter() - t0, _cpu_seconds() - c0
    writes0 = len(cluster.audit_log)
    server = cluster.server

    def done(c: Cluster) -> bool:
        if sum(1 for p in server.list("persistentvolumeclaims", NAMESPACE)
               if (p.get("status") or {}).get("phase") == "Bound") < claims:
            return False
        return sum(1 for p in server.list("pods", NAMESPACE)
                   if (p.get("status") or {}).get("phase") == "Running") >= claims

    t1, c1 = time.perf_counter(), _cpu_seconds()
    ok = cluster.run_until(done, timeout_seconds=max_virtual_seconds, poll_seconds=poll_seconds)
    wall, cpu = time.perf_counter() - t1, _cpu_seconds() - c1
    log = cluster.audit_log[writes0:]
    bound = sum(1 for p in server.list("persistentvolumeclaims", NAMESPACE)
                if (p.get("status") or {}).get("phase") == "Bound")
    running = sum(1 for p in server.list("pods", NAMESPACE) if (p.get("status") or {}).get("phase") == "Running")
    last_bound = max((e.time for e in log if e.kind == "PersistentVolumeClaim" and e.detail.startswith("status")),
                     default=0.0)
    last_running = max((e.time for e in log if e.kind == "Pod" and "->Running" in e.detail), default=0.0)
    return {"nodes": nodes, "claims": claims, "kubelet": kubelet, "done": ok, "poll_seconds": poll_seconds,
            "claims_bound": bound, "pods_running": running,
            "persistent_volumes": len(server.list("persistentvolumes")),
            "virtual_seconds": round(cluster.now, 1), "last_claim_bound_at": round(last_bound, 1),
            "last_pod_running_at": round(last_running, 1),
            "build_wall_s": round(built_wall, 2), "build_cpu_s": round(built_cpu, 2),
            "run_wall_s": round(wall, 2), "run_cpu_s": round(cpu, 2),
            "api_writes": len(log), "api_writes_by_verb_resource": writes_by_verb_and_resource(log),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def _table(r: dict) -> str:
    rows = [("nodes", r["nodes"]), ("claims (1 pod each)", r["claims"]), ("kubelet", r["kubelet"]),
            ("all Bound and Running", r["done"]), ("claims Bound", r["claims_bound"]),
            ("pods Running", r["pods_running"]), ("PersistentVolumes", r["persistent_volumes"]),
            ("virtual s: last claim Bound / last pod Running",
             f"{r['last_claim_bound_at']} / {r['last_pod_running_at']}"),
            (f"virtual s run (checked every {r['poll_seconds']:g} s)", r["virtual_seconds"]),
            ("load: wall / CPU s", f"{r['build_wall_s']} / {r['build_cpu_s']}"),
            ("run: wall / CPU s", f"{r['run_wall_s']} / {r['run_cpu_s']}"),
            ("API writes", r["api_writes"]), ("peak RSS MiB", r["peak_rss_mib"])]
    rows += [(f"  {k}", v) for k, v in r["api_writes_by_verb_resource"].items()]
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}}  {v}" for k, v in rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--claims", type=int, default=10000)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--kubelet", choices=("stand-in", "model"), default="stand-in")
    ap.add_argument("--max-virtual-seconds", type=float, default=3600.0)
    ap.add_argument("--poll-seconds", type=float, default=5.0, help="how often (virtual) the end is checked")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile of the run (child process) to FILE")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON line only")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.claims < 1 or a.nodes < 1:
        ap.error("--claims and --nodes must be at least 1")
    if a.child:
        if a.profile:
            import cProfile

            prof = cProfile.Profile()
            r = prof.runcall(run, a.nodes, a.claims, a.kubelet, a.max_virtual_seconds, a.poll_seconds)
            prof.dump_stats(a.profile)
        else:
            r = run(a.nodes, a.claims, a.kubelet, a.max_virtual_seconds, a.poll_seconds)
        print(json.dumps(r))
        return 0
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--claims", str(a.claims), "--nodes", str(a.nodes),
           "--kubelet", a.kubelet, "--max-virtual-seconds", str(a.max_virtual_seconds),
           "--poll-seconds", str(a.poll_seconds)] + (["--profile", a.profile] if a.profile else [])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        return out.returncode
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(json.dumps(r) if a.json else _table(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
