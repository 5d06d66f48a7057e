"""The running control plane at scale: 1,000 nodes and 10,000 pods from Deployments reaching steady state.

Builds a cluster of identical nodes (4 CPU, 16 GiB, 110 pods) and Deployments of
small pods (50m CPU, 64Mi), runs it on the virtual clock until every Deployment
reports all replicas available (or ``--max-virtual-seconds`` pass), and reports:

* wall time to build the cluster and to reach steady state, and the CPU time (user + sys) of the run;
* virtual seconds to steady state;
* API writes (committed by the API server) and writes per wall second;
* peak RSS of the process;
* what the control plane decided: pods bound per node, and a digest of every pod -> node binding.

Each configuration runs in its own subprocess so peak RSS is per run.

Backends (issue #27): the API server's default in-memory store, or a real etcd 3.4 (``--etcd``: every write a
transaction through etcd's v3 JSON gateway, resourceVersion = the key's mod_revision). ``--etcd`` alone starts
one local member on loopback with its data on tmpfs (``/dev/shm``) through
:class:`kubenotes.etcd.members.EtcdCluster`, and stops it and removes its data at the end; ``--etcd URL`` uses
that (empty) etcd instead. ``--both`` runs the in-memory store and then a local etcd member, one after the
other in one run, and prints them side by side, with the etcd process's own CPU time and peak RSS and whether
the two runs bound the same pods to the same nodes. The virtual clock does not charge for a write, so both
backends reach steady state at the same virtual second: what differs is wall and CPU time.

Usage: python benchmarks/control_plane.py [--nodes 1000] [--deployments 100] [--replicas 100] [--etcd [URL] | --both]

Measured 2026-12-07, ``--both`` at full size (1,000 nodes, 10,000 pods in 100 Deployments; hollow kubelets;
instant request costs; one etcd 3.4.x member on tmpfs), on a shared 2-core machine whose load average was 2 to 7
from other jobs, so wall times are inflated and CPU times are the steadier figures::

                                  memory   etcd (tmpfs)
    steady / virtual s to steady  True 5.0     True 5.0
    load: wall s / CPU s         1.1 / 1.1      4.7 / 2.4
    run: wall s                       42.0          229.3
    run: CPU s (model)                16.6           71.8
    CPU s (etcd, load + run)             -           46.7
    API writes                       53871          53871
    writes / wall s                   1283            235
    pods Running                     10000          10000
    peak RSS MiB (model)               450            461
    peak RSS MiB (etcd)                  -            355
    same pods bound per node: True; same pod -> node bindings: True (sha256 b59d3296ccc2333f on both)

The whole run took 4 min 53 s wall and 147 s CPU (user 131.9 + sys 15.0, etcd's included). On etcd every
write costs the model about 1.0 ms more CPU (JSON, base64 and an HTTP round trip to the gateway: 55 s over
53,871 writes) and etcd about 0.9 ms (46.7 s), so the same work runs about 4 to 6 times slower; the decisions
and the virtual timeline are the same, since the virtual clock charges nothing for a write here
(``--realistic`` is what charges one, see kubenotes/sim/costs.py).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from _cluster import node_manifests  # benchmarks/_cluster.py, beside this script


def _objects(nodes: int, deployments: int, replicas: int) -> list[dict]:
    objs: list[dict] = []
    objs.extend(node_manifests(nodes, {"cpu": "4", "memory": "16Gi", "pods": "110"}, zones=3))
    for d in range(deployments):
        name = f"app-{d:03d}"
        objs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
                     "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                              "template": {"metadata": {"labels": {"app": name}},
                                           "spec": {"containers": [{
                                               "name": "app", "image": "registry.k8s.io/pause:3.10",
                                               "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}}]}}}})
    return objs


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run(nodes: int, deployments: int, replicas: int, max_virtual_seconds: float, etcd: str | None = None,
        etcd_prefix: str = "") -> dict:
    """One run in this process: the figures above as a dict (``etcd``: a real etcd's URL, else the memory store)."""
    from kubenotes.sim.cluster import Cluster

    cpu0 = _cpu_seconds()
    t0 = time.perf_counter()
    # a /14 holds 1,024 node /24s (kind's default 10.244.0.0/16 holds 256)
    # hollow kubelets (kubemark-style): this measures the control plane; benchmarks/kubelet_scale.py the node side
    cluster = Cluster(_objects(nodes, deployments, replicas), seed=0, kubelet="stand-in",
                      options={"cluster-cidr": "10.0.0.0/14"}, etcd=etcd, etcd_prefix=etcd_prefix)
    built = time.perf_counter() - t0
    writes0 = len(cluster.audit_log)

    def steady(c: Cluster) -> bool:
        for d in c.server.list("deployments"):
            st = d.get("status") or {}
            if st.get("availableReplicas", 0) != replicas or st.get("updatedReplicas", 0) != replicas:
                return False
        return True

    cpu1 = _cpu_seconds()
    t1 = time.perf_counter()
    ok = cluster.run_until(steady, timeout_seconds=max_virtual_seconds, poll_seconds=5.0)
    wall = time.perf_counter() - t1
    cpu = _cpu_seconds() - cpu1
    writes = len(cluster.audit_log) - writes0
    pods = cluster.server.list("pods")
    running = sum(1 for p in pods if (p.get("status") or {}).get("phase") == "Running")
    bindings = sorted(f"{p['metadata']['namespace']}/{p['metadata']['name']}={p['spec'].get('nodeName', '')}"
                      for p in pods)
    per_node = collections.Counter(p["spec"].get("nodeName", "") for p in pods)
    return {"backend": "memory" if etcd is None else "etcd", "nodes": nodes, "deployments": deployments,
            "pods": deployments * replicas, "steady": ok,
            "virtual_seconds": round(cluster.now, 1), "build_wall_seconds": round(built, 2),
            "build_cpu_seconds": round(cpu1 - cpu0, 2), "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "api_writes": writes, "writes_per_wall_second": round(writes / wall) if wall else 0,
            "running_pods": running, "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "pods_per_node": dict(sorted(per_node.items())),
            "bindings_sha256": hashlib.sha256("\n".join(bindings).encode()).hexdigest()[:16]}


def _proc_usage(pid: int) -> tuple[float, int]:
    """CPU seconds (user + sys) and peak RSS (MiB) of a running process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) // 1024
    return cpu, hwm


def _child(a: argparse.Namespace, etcd: str | None) -> dict:
    cmd = [sys.executable, __file__, "--child", "--nodes", str(a.nodes), "--deployments", str(a.deployments),
           "--replicas", str(a.replicas), "--max-virtual-seconds", str(a.max_virtual_seconds)]
    if etcd is not None:
        cmd += ["--etcd", etcd]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        sys.exit(out.returncode)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _run_on_local_etcd(a: argparse.Namespace) -> dict:
    """One run against a fresh local etcd member on tmpfs, stopped and removed afterwards."""
    from kubenotes.etcd.members import EtcdCluster

    saved = tempfile.tempdir
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        tempfile.tempdir = "/dev/shm"  # no disk behind etcd's fsync: what is measured is the model and the gateway
    try:
        member = EtcdCluster(1).start()
    finally:
        tempfile.tempdir = saved
    try:
        r = _child(a, member.endpoints[0])
        pid = member.members[0].process.pid
        r["etcd_cpu_seconds"], r["etcd_peak_rss_mib"] = _proc_usage(pid)
        r["etcd_data"] = "tmpfs" if member.root and member.root.startswith("/dev/shm") else "disk"
    finally:
        member.stop()
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--deployments", type=int, default=100)
    ap.add_argument("--replicas", type=int, default=100)
    ap.add_argument("--max-virtual-seconds", type=float, default=1800.0)
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--etcd", nargs="?", const="", default=None, metavar="URL",
                       help="a real etcd: this (empty) one, or without URL a local member on tmpfs, removed after")
    which.add_argument("--both", action="store_true", help="the in-memory store, then a local etcd, side by side")
    ap.add_argument("--json", action="store_true", help="print each run's figures as one JSON line as well")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        from kubenotes.errors import KubenotesError

        try:
            print(json.dumps(run(a.nodes, a.deployments, a.replicas, a.max_virtual_seconds, a.etcd or None)))
        except KubenotesError as e:  # a wrong, unreachable or non-empty --etcd: one line
            sys.stderr.write(f"control_plane: {e}\n")
            sys.exit(2)
        return
    if a.both:
        results = [_child(a, None), _run_on_local_etcd(a)]
    elif a.etcd == "":
        results = [_run_on_local_etcd(a)]
    else:
        results = [_child(a, a.etcd)]
    for r in results:
        if a.json:  # pods_per_node in short: its extremes (the table compares it whole)
            per_node = r["pods_per_node"].values()
            print(json.dumps({**{k: v for k, v in r.items() if k != "pods_per_node"},
                              "pods_per_node_min_max": [min(per_node, default=0), max(per_node, default=0)]}))
        print(f"{r['backend']}: {r['nodes']} nodes, {r['pods']} pods in {r['deployments']} Deployments: "
              f"steady={r['steady']} at virtual {r['virtual_seconds']} s; wall {r['wall_seconds']} s, CPU "
              f"{r['cpu_seconds']} s (+{r['build_wall_seconds']} s wall to load); {r['api_writes']} API writes, "
              f"{r['writes_per_wall_second']} writes/s; {r['running_pods']} pods Running; "
              f"peak RSS {r['peak_rss_mib']} MiB")
    if len(results) > 1:
        print(_table(results))


def _table(results: list[dict]) -> str:
    """The runs side by side, one column per backend, and whether they decided the same."""
    def etcd_cell(r: dict, key: str) -> str:
        return str(r[key]) if key in r else "-"

    rows = [("steady", lambda r: str(r["steady"])),
            ("virtual seconds to steady", lambda r: str(r["virtual_seconds"])),
            ("load: wall s / CPU s", lambda r: f"{r['build_wall_seconds']} / {r['build_cpu_seconds']}"),
            ("run: wall s", lambda r: str(r["wall_seconds"])),
            ("run: CPU s (model)", lambda r: str(r["cpu_seconds"])),
            ("CPU s (etcd, load + run)", lambda r: etcd_cell(r, "etcd_cpu_seconds")),
            ("API writes", lambda r: str(r["api_writes"])),
            ("writes / wall s", lambda r: str(r["writes_per_wall_second"])),
            ("pods Running", lambda r: str(r["running_pods"])),
            ("peak RSS MiB (model)", lambda r: str(r["peak_rss_mib"])),
            ("peak RSS MiB (etcd)", lambda r: etcd_cell(r, "etcd_peak_rss_mib")),
            ("pod -> node digest", lambda r: r["bindings_sha256"])]
    names = [r["backend"] + (f" ({r['etcd_data']})" if "etcd_data" in r else "") for r in results]
    width = max(len(n) for n in names) + 2
    lines = [f"{'':<28}" + "".join(f"{n:>{max(width, 18)}}" for n in names)]
    for label, cell in rows:
        lines.append(f"{label:<28}" + "".join(f"{cell(r):>{max(width, 18)}}" for r in results))
    same_nodes = all(r["pods_per_node"] == results[0]["pods_per_node"] for r in results)
    same_bindings = all(r["bindings_sha256"] == results[0]["bindings_sha256"] for r in results)
    lines.append(f"same pods bound per node: {same_nodes}; same pod -> node bindings: {same_bindings}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
