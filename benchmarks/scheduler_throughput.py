"""Scheduler throughput on scheduler_perf-shaped workloads (pods/s and peak memory).

Mirrors test cases of upstream's scheduler_perf
(test/integration/scheduler_perf/*/performance-config.yaml, v1.34):

* SchedulingBasic: identical nodes, identical pods requesting 100m CPU / 500Mi.
* SchedulingNodeAffinity: nodes labelled with a zone; pods require it (required node affinity).
* SchedulingPodAntiAffinity: pods with a required anti-affinity to each other per hostname.
* TopologySpreading: nodes in three zones (moon-1..3); the measured pods
  (color=blue) spread over them with a DoNotSchedule constraint, maxSkew 5
  (templates/pod-with-topology-spreading.yaml).
* PreferredTopologySpreading: the same with ScheduleAnyway (scored, not filtered).
* PreemptionBasic (default_preemption/performance-config.yaml): 4 low-priority pods per node
  (900m CPU, 500Mi each; priority 0), then high-priority pods (priority 10, 3 CPU) that each
  preempt three of a node's four. Upstream runs it at 1,000 nodes (its 5,000-node workload is
  commented out: it fails upstream, kubernetes/kubernetes#108308), so ``--nodes 5000`` runs 1,000.

Each case runs in its own subprocess (peak RSS is per process) with the fast,
untraced path (``trace=False``); decisions are the same as the traced path
(tests/scheduler/test_schedule_one.py holds the two to the same placements).
Upstream's thresholds at 5,000 nodes: SchedulingBasic 810, SchedulingNodeAffinity 220,
SchedulingPodAntiAffinity 60 pods/s; TopologySpreading 460 and PreferredTopologySpreading 340 for
their 5000Nodes_5000Pods workloads (topology_spreading/performance-config.yaml), which the
5,000-node rows here run (5,000 init pods, 5,000 measured). PreemptionBasic has none.

Usage: python benchmarks/scheduler_throughput.py [--nodes 500 5000] [--case NAME]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

CASES = {
    # name: (init pods per node count, measured pods), as in performance-config.yaml
    "SchedulingBasic": {500: (500, 1000), 5000: (5000, 1000)},
    "SchedulingNodeAffinity": {500: (500, 1000), 5000: (5000, 1000)},
    "SchedulingPodAntiAffinity": {500: (100, 400), 5000: (1000, 1000)},
    "TopologySpreading": {500: (1000, 1000), 5000: (5000, 5000)},
    "PreferredTopologySpreading": {500: (1000, 1000), 5000: (5000, 5000)},
    # (init pods, measured pods, nodes actually built): 4 low-priority pods per node, a quarter as many preemptors
    "PreemptionBasic": {500: (2000, 500), 5000: (4000, 1000)},
}
#: PreemptionBasic's node count for each --nodes value (upstream's workload is 1000Nodes).
PREEMPTION_NODES = {500: 500, 5000: 1000}
SPREADING = {"TopologySpreading": "DoNotSchedule", "PreferredTopologySpreading": "ScheduleAnyway"}
THRESHOLDS_5000 = {"SchedulingBasic": 810, "SchedulingNodeAffinity": 220, "SchedulingPodAntiAffinity": 60,
                   "TopologySpreading": 460, "PreferredTopologySpreading": 340}


def _node(i: int, case: str):
    from kubenotes.scheduler.testing import make_node

    labels = {"topology.kubernetes.io/zone": "zone1"} if case == "SchedulingNodeAffinity" else {}
    if case in SPREADING:
        labels = {"topology.kubernetes.io/zone": f"moon-{i % 3 + 1}"}
    return make_node(f"scheduler-perf-{i}", allocatable={"cpu": "4", "memory": "32Gi", "pods": "110"}, labels=labels)


def _pod(i: int, case: str, prefix: str):
    from kubenotes.scheduler.testing import make_pod

    kw: dict = {}
    labels = None
    if case == "SchedulingNodeAffinity":
        kw["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone1", "zone2"]}]}]}}}
    if case == "SchedulingPodAntiAffinity":
        labels = {"color": "green"}
        kw["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"color": "green"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    if case in SPREADING and prefix == "measured":
        labels = {"color": "blue"}
        kw["topologySpreadConstraints"] = [{"maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone",
                                            "whenUnsatisfiable": SPREADING[case],
                                            "labelSelector": {"matchLabels": {"color": "blue"}}}]
    requests = {"cpu": "100m", "memory": "500Mi"}
    if case == "PreemptionBasic":  # templates pod-low-priority.yaml / pod-high-priority.yaml
        requests = {"cpu": "900m" if prefix == "init" else "3000m", "memory": "500Mi"}
        kw["priority"] = 0 if prefix == "init" else 10
    return make_pod(f"{prefix}-{i}", requests=requests, labels=labels,
                    creation_timestamp=f"2024-01-01T00:00:{i % 60:02d}Z", **kw)


def run_case(case: str, num_nodes: int) -> dict:
    from kubenotes.scheduler.schedule_one import new_scheduler

    init_pods, measured = CASES[case][num_nodes]
    if case == "PreemptionBasic":
        num_nodes = PREEMPTION_NODES[num_nodes]
    nodes = [_node(i, case) for i in range(num_nodes)]
    # Init pods are scheduled first (as scheduler_perf does), then the measured ones.
    sched = new_scheduler(nodes, [_pod(i, case, "init") for i in range(init_pods)], seed=0, trace=False)
    sched.run()
    for i in range(measured):
        sched.add_pod(_pod(i, case, "measured"))
    t0 = time.perf_counter()
    sched.run()
    seconds = time.perf_counter() - t0
    placed = sum(1 for key, _ in sched.bindings if "/measured-" in key)
    return {"case": case, "nodes": num_nodes, "victims": len(getattr(sched, "deleted", ()) or ()), "pods": measured, "placed": placed, "seconds": round(seconds, 3),
            "pods_per_second": round(measured / seconds, 1),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, nargs="+", default=[500, 5000])
    ap.add_argument("--case", choices=list(CASES), nargs="+", default=list(CASES))
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_case(args.child[0], int(args.child[1]))))
        return
    print(f"{'case':28} {'nodes':>6} {'pods':>5} {'placed':>6} {'victims':>7} {'pods/s':>8} {'upstream':>8} {'peak MiB':>9}")
    for case in args.case:
        for n in args.nodes:
            out = subprocess.run([sys.executable, __file__, "--child", case, str(n)], capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            ref = THRESHOLDS_5000.get(case, "") if n == 5000 else ""
            print(f"{case:28} {r['nodes']:>6} {r['pods']:>5} {r['placed']:>6} {r['victims']:>7} {r['pods_per_second']:>8} "
                  f"{ref!s:>8} {r['peak_rss_mib']:>9}")


if __name__ == "__main__":
    main()
