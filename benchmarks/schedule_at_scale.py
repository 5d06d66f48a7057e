"""``python -m kubenotes schedule`` at Kubernetes' documented limits: 5,000 nodes, 150,000 pending pods.

Generates a cluster shaped like a real one and times the command's fast path
(``-o summary``: the untraced, batch scheduler) phase by phase, with peak
memory:

* nodes: 16 CPU / 64Gi / 110 pods, three zones, a hostname label, an
  instance type; 2% carry a ``dedicated=gpu:NoSchedule`` taint;
* pending pods: Deployments' ReplicaSets (owner references, so
  PodTopologySpread's system default constraints apply to every pod) of
  1-300 replicas; 10% of the ReplicaSets require two of the three zones
  (node affinity), 10% have a required pod anti-affinity to their own
  replicas per hostname; four PriorityClasses (critical, high, normal as
  globalDefault, batch);
* running pods: low-priority ("idle") batch pods already bound, sized so the
  pending pods ask for a little more CPU than is free (``--overcommit``): the
  last pods preempt some of them.

Every phase runs what the command runs (``load_manifests``, the API server's
request path ``load_through_api_server``, ``new_scheduler``,
``Scheduler.run``, ``format_summary``, with the cyclic garbage collector off
as the command keeps it), in a subprocess per size so peak RSS is per run.
Then the command itself, ``python -m kubenotes schedule -o summary``, is
timed from start to exit ("command s": imports and the end of the process
included). Beside the wall figures, the CPU seconds of each phase (wall is
inflated when other work shares the cores) and a decision hash
(:func:`decision_hash`: every attempt's pod, node, nominated node, victims and
message): equal hashes before and after a change mean the same decisions. ``--trace`` times the traced path instead (what ``-o table`` did
before issue #11), ``--walk`` disables InterPodAffinity's whole-snapshot index
(its PreFilter/PreScore walk every pod, as before); both skip the command.

Usage: python benchmarks/schedule_at_scale.py [--nodes 500 --pods 15000] [--seed 0] [--keep FILE] [--no-command]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

ZONES = ["zone-a", "zone-b", "zone-c"]
PRIORITY_CLASSES = [  # name, value, globalDefault, share of ReplicaSets
    ("critical", 100000, False, 0.02),
    ("high", 10000, False, 0.10),
    ("normal", 1000, True, 0.70),
    ("batch", 100, False, 0.18),
]
SIZES = [1, 2, 3, 5, 10, 20, 50, 100, 300]
SIZE_WEIGHTS = [10, 12, 14, 14, 14, 12, 12, 8, 4]
CPU_MILLI = [50, 100, 200, 250, 500, 1000]
NODE_CPU_MILLI = 16000
#: Namespaces the generated objects live in besides ``default`` (created as Namespace objects, as a cluster has them).
NAMESPACES = ["shop", "payments", "search", "platform", "batch"]


def cluster_manifests(num_nodes: int, num_pods: int, seed: int = 0, overcommit: float = 0.01) -> list[dict]:
    """The generated cluster as a list of manifests (dicts): nodes, PriorityClasses, ReplicaSets, pods.

    Parameters
    ----------
    num_nodes, num_pods : int
        Nodes, and pending pods (running "idle" pods come on top).
    seed : int
    overcommit : float
        Pending CPU minus free CPU, as a share of the cluster's CPU.
    """
    rng = random.Random(seed)
    docs: list[dict] = []
    for name, value, default, _share in PRIORITY_CLASSES + [("idle", 10, False, 0)]:
        docs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                     "value": value, "globalDefault": default})
    for ns in NAMESPACES:  # `default` exists at start; the others must be created before their pods (NamespaceLifecycle)
        docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    for i in range(num_nodes):
        name = f"node-{i:05d}"
        labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": ZONES[i % 3],
                  "topology.kubernetes.io/region": "region-1",
                  "node.kubernetes.io/instance-type": rng.choice(["m5.4xlarge", "m6i.4xlarge"])}
        spec: dict = {}
        if i % 50 == 49:
            spec["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
        alloc = {"cpu": str(NODE_CPU_MILLI // 1000), "memory": "64Gi", "pods": "110"}
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec,
                     "status": {"allocatable": alloc, "capacity": alloc}})
    pending_cpu = 0
    made = 0
    r = 0
    while made < num_pods:
        size = min(rng.choices(SIZES, SIZE_WEIGHTS)[0], num_pods - made)
        app = f"app-{r:05d}"
        ns = rng.choice(["default", "shop", "payments", "search", "platform"])
        pc = rng.choices([p[0] for p in PRIORITY_CLASSES], [p[3] for p in PRIORITY_CLASSES])[0]
        cpu = rng.choice(CPU_MILLI)
        tmpl_hash = f"{rng.getrandbits(32):08x}"[:10]
        labels = {"app": app, "pod-template-hash": tmpl_hash}
        rs_name = f"{app}-{tmpl_hash}"
        affinity: dict = {}
        roll = rng.random()
        if roll < 0.10:
            affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                       "values": rng.sample(ZONES, 2)}]}]}}
        elif roll < 0.20 and size <= num_nodes // 2:
            affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}
        docs.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                     "metadata": {"name": rs_name, "namespace": ns, "uid": f"uid-{rs_name}",
                                  "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app,
                                                       "uid": f"uid-{app}", "controller": True}]},
                     "spec": {"replicas": size, "selector": {"matchLabels": labels},
                              "template": {"metadata": {"labels": labels}, "spec": {"containers": [
                                  {"name": "app", "image": f"registry.example.com/{app}:1.0"}]}}}})
        stamp = f"2025-01-01T{(r // 3600) % 24:02d}:{(r // 60) % 60:02d}:{r % 60:02d}Z"
        for k in range(size):
            spec = {"priorityClassName": pc, "containers": [{
                "name": "app", "image": f"registry.example.com/{app}:1.0",
                "resources": {"requests": {"cpu": f"{cpu}m", "memory": f"{cpu * 2}Mi"}}}]}
            if affinity:
                spec["affinity"] = affinity
            docs.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"{rs_name}-{k:05x}", "namespace": ns, "labels": labels,
                                      "creationTimestamp": stamp,
                                      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                           "name": rs_name, "uid": f"uid-{rs_name}",
                                                           "controller": True}]},
                         "spec": spec})
            pending_cpu += cpu
        made += size
        r += 1
    # Idle batch pods already running fill what the pending pods leave free, minus the overcommit.
    total = NODE_CPU_MILLI * num_nodes
    idle_cpu = max(0, int(total * (1 + overcommit)) - pending_cpu)
    idle_each = 2000
    for j in range(idle_cpu // idle_each):
        node = f"node-{(j * 7919) % num_nodes:05d}"
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"idle-{j:06d}", "namespace": "batch", "labels": {"app": "idle"},
                                  "creationTimestamp": "2024-12-31T00:00:00Z"},
                     "spec": {"nodeName": node, "priorityClassName": "idle", "containers": [{
                         "name": "work", "image": "registry.example.com/idle:1.0",
                         "resources": {"requests": {"cpu": f"{idle_each}m", "memory": "1Gi"}}}]}})
    return docs


def decision_hash(traces: list) -> str:
    """sha256 (first 16 hex digits) of every attempt's outcome, in order: pod, node, nominated node, victims, message.

    Equal hashes mean the same decisions (compare runs before and after a change).
    """
    import hashlib

    h = hashlib.sha256()
    for t in traces:
        h.update(f"{t.namespace}/{t.name} {t.node_name} {t.nominated_node_name} {','.join(t.victims)} {t.message}\n"
                 .encode())
    return h.hexdigest()[:16]


def run_child(path: str, trace: bool, walk: bool) -> dict:
    """Time the command's phases on the manifests at ``path``; returns seconds per phase and peak RSS."""
    from kubenotes.api.manifests import load_manifests
    from kubenotes.apiserver.load import load_through_api_server
    from kubenotes.gcpolicy import no_gc_passes
    from kubenotes.scheduler.cli import format_summary
    from kubenotes.scheduler.schedule_one import new_scheduler
    from kubenotes.scheduler.snapshot import cluster_objects_from_manifests

    if walk:
        import kubenotes.scheduler.plugins.interpodaffinity as ipa

        ipa.snapshot_arrays = lambda *_a: None
    cpu = [time.process_time()]  # CPU seconds at each phase's end (wall figures are inflated by other load)
    t0 = time.perf_counter()
    with no_gc_passes():  # as run_schedule
        m = load_manifests(path, defaults=False)
        t01 = time.perf_counter()
        cpu.append(time.process_time())
        m = load_through_api_server(m)  # the request path, as every command loads
        t1 = time.perf_counter()
        cpu.append(time.process_time())
        sched = new_scheduler(m.nodes, m.pods, objects=cluster_objects_from_manifests(m), seed=0, trace=trace)
        t2 = time.perf_counter()
        cpu.append(time.process_time())
        traces = sched.run()
        traces.extend(sched.gated_traces())
        t3 = time.perf_counter()
        cpu.append(time.process_time())
        summary = format_summary(traces, 5)
        t4 = time.perf_counter()
        cpu.append(time.process_time())
    final = {t.key: t for t in traces}
    return {"load_s": round(t01 - t0, 2), "request_path_s": round(t1 - t01, 2), "build_s": round(t2 - t1, 2), "schedule_s": round(t3 - t2, 2),
            "summary_s": round(t4 - t3, 2), "total_s": round(t4 - t0, 2),
            "attempts": len(traces), "pods": len(final),
            "bound": sum(1 for t in final.values() if t.node_name),
            "preempting": sum(1 for t in traces if t.victims), "victims": sum(len(t.victims) for t in traces),
            "pods_per_s": round(len(traces) / (t3 - t2), 1),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "cpu_s": [round(b - a, 2) for a, b in zip(cpu, cpu[1:])] + [round(cpu[-1] - cpu[0], 2)],
            "decisions": decision_hash(traces), "summary": summary}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=15000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--overcommit", type=float, default=0.01)
    ap.add_argument("--trace", action="store_true", help="time the traced path (-o json/kss; -o table before #11)")
    ap.add_argument("--walk", action="store_true", help="InterPodAffinity without its whole-snapshot index")
    ap.add_argument("--keep", metavar="FILE", help="write the generated manifests (JSON v1 List) here")
    ap.add_argument("--no-command", action="store_true", help="do not time the command itself")
    ap.add_argument("--child", nargs=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_child(args.child[0], args.trace, args.walk)))
        return
    t0 = time.perf_counter()
    docs = cluster_manifests(args.nodes, args.pods, args.seed, args.overcommit)
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": docs}, f)
    if args.keep:
        os.replace(path, args.keep)
        path = args.keep
    gen_s = time.perf_counter() - t0
    try:
        cmd = [sys.executable, __file__, "--child", path] + ["--trace"] * args.trace + ["--walk"] * args.walk
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            sys.exit(out.stderr)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        r["command_s"] = "-"
        if not (args.no_command or args.trace or args.walk):
            t0 = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "kubenotes", "schedule", "-o", "summary", path],
                                  capture_output=True, text=True)
            r["command_s"] = round(time.perf_counter() - t0, 2)
            if done.returncode not in (0, 1):
                sys.exit(done.stderr)
    finally:
        if not args.keep:
            os.unlink(path)
    mode = "traced" if args.trace else "fast (untraced, batch)"
    print(f"{args.nodes} nodes, {args.pods} pending pods, seed {args.seed}, {mode}"
          f"{', InterPodAffinity walk' if args.walk else ''}; manifests generated in {gen_s:.1f} s")
    print(f"{'load':>7} {'request':>8} {'build':>7} {'schedule':>9} {'summary':>8} {'total':>7} {'command':>8} {'attempts':>9} "
          f"{'bound':>7} {'preempt':>8} {'victims':>8} {'pods/s':>8} {'peak MiB':>9}")
    print(f"{r['load_s']:>7} {r['request_path_s']:>8} {r['build_s']:>7} {r['schedule_s']:>9} {r['summary_s']:>8} {r['total_s']:>7} "
          f"{r['command_s']:>8} {r['attempts']:>9} {r['bound']:>7} {r['preempting']:>8} {r['victims']:>8} "
          f"{r['pods_per_s']:>8} {r['peak_rss_mib']:>9}")
    cpu = r["cpu_s"]
    print(f"CPU s: load {cpu[0]}, request {cpu[1]}, build {cpu[2]}, schedule {cpu[3]}, summary {cpu[4]}, "
          f"total {cpu[5]}; decisions {r['decisions']}")
    print()
    print(r["summary"])


if __name__ == "__main__":
    main()
