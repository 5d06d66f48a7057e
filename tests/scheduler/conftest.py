"""Shared fixtures of the scheduler tests."""

from __future__ import annotations

import random

import pytest

from kubenotes.scheduler.testing import make_node, make_pod


def random_large_cluster(rng: random.Random):
    """101-160 nodes and 120-220 pods exercising every batch Filter/Score plugin, failures and preemption."""
    ns = []
    n_nodes = rng.randint(101, 160)
    for i in range(n_nodes):
        taints = []
        if rng.random() < 0.15:
            taints.append({"key": "dedicated", "value": rng.choice(["gpu", "db"]), "effect": "NoSchedule"})
        if rng.random() < 0.2:
            taints.append({"key": "spot", "value": "true", "effect": "PreferNoSchedule"})
        alloc = {"cpu": str(rng.choice([1, 2])), "memory": f"{rng.choice([2, 4, 8])}Gi",
                 "pods": str(rng.choice([3, 5, 110]))}
        if rng.random() < 0.1:
            alloc["example.com/gpu"] = str(rng.choice([1, 2]))
        images = []
        if rng.random() < 0.3:
            images.append({"names": ["nginx:1.25"], "sizeBytes": 300 * 1024 * 1024})
        if rng.random() < 0.2:
            images.append({"names": ["redis:7"], "sizeBytes": 600 * 1024 * 1024})
        ns.append(make_node(f"n{i}", allocatable=alloc, labels={"zone": rng.choice(["a", "b", "c"]),
                                                                 "disk": rng.choice(["ssd", "hdd"])},
                            taints=taints or None, unschedulable=rng.random() < 0.03, images=images or None))
    pods = []
    for j in range(rng.randint(120, 220)):
        kw: dict = {}
        app = rng.choice(["x", "y", "z"])
        if rng.random() < 0.3:
            kw["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        if rng.random() < 0.15:
            kw["nodeSelector"] = {"zone": rng.choice(["a", "b"])}
        aff: dict = {}
        if rng.random() < 0.2:
            aff["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": rng.sample(["a", "b", "c"], 2)}]}]}}
        if rng.random() < 0.2:
            aff.setdefault("nodeAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "preference": {"matchExpressions": [
                    {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]
        if rng.random() < 0.2:
            aff["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}
        if rng.random() < 0.1:
            aff["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "zone"}}]}
        if aff:
            kw["affinity"] = aff
        if rng.random() < 0.15:
            kw["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "zone",
                                                "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
                                                "labelSelector": {"matchLabels": {"app": app}}}]
        requests = {"cpu": f"{rng.choice([100, 500, 1000, 1500])}m", "memory": f"{rng.choice([128, 512, 1024])}Mi"}
        if rng.random() < 0.05:
            requests["example.com/gpu"] = "1"
        container = {"name": "c0", "image": rng.choice(["nginx:1.25", "redis:7", "pause"]),
                     "resources": {"requests": requests}}
        if rng.random() < 0.15:
            container["ports"] = [{"containerPort": 80, "hostPort": rng.choice([8080, 9090])}]
        bound = f"n{rng.randrange(n_nodes)}" if rng.random() < 0.2 else None
        pods.append(make_pod(f"p{j}", containers=[container], priority=rng.choice([0, 0, 10, 100, 1000]), node_name=bound,
                             labels={"app": app}, **kw))
    return ns, pods


@pytest.fixture(name="random_large_cluster")
def _random_large_cluster_fixture():
    """:func:`random_large_cluster` (a function of a ``random.Random``)."""
    return random_large_cluster
