"""The shared sample data under data/ loads, documents itself, and is a consistent cluster."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from kubenotes.api.manifests import MANIFEST_SUFFIXES, load_manifests
from kubenotes.api.resources import pod_requests, resource_list
from kubenotes.data import SCENARIO_DIRS

DATA = Path(__file__).resolve().parents[1] / "data"
FILES = sorted(p for p in DATA.rglob("*") if p.is_file() and p.name.endswith(MANIFEST_SUFFIXES))
PRIORITY_CLASSES = DATA / "cluster" / "priorityclasses.yaml"
ZONE = "topology.kubernetes.io/zone"


#: The chapters' self-contained scenario folders (kubenotes.data.SCENARIO_DIRS); the rest of data/ is one sample cluster.
CHAPTER_SCENARIO_DIRS = SCENARIO_DIRS


@pytest.fixture(scope="module")
def everything():
    return load_manifests(*sorted(p for p in DATA.iterdir() if p.is_dir() and p.name not in CHAPTER_SCENARIO_DIRS))


@pytest.fixture(scope="module")
def cluster():
    return load_manifests(DATA / "cluster")


def test_there_is_data():
    names = {p.relative_to(DATA).as_posix() for p in FILES}
    assert {"cluster/nodes.yaml", "cluster/priorityclasses.yaml", "cluster/namespaces.yaml",
            "cluster/workloads.yaml", "cluster/running-pods.yaml", "scheduling/scheduler-config.yaml"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(DATA).as_posix())
def test_file_starts_with_a_comment_and_loads(path):
    text = path.read_text()
    assert text.startswith("# "), "every data file starts with a comment saying what it shows"
    load_manifests(str(path), defaults=False)
    m = load_manifests(str(PRIORITY_CLASSES), str(path)) if path != PRIORITY_CLASSES else load_manifests(str(path))
    assert len(m) > 0


def test_everything_loads_together_with_defaults(everything):
    kinds = {o.kind for o in everything}
    assert {"Node", "Pod", "Namespace", "PriorityClass", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
            "Job", "CronJob", "Service", "PersistentVolume", "PersistentVolumeClaim", "StorageClass",
            "PodDisruptionBudget", "ResourceQuota", "LimitRange", "KubeSchedulerConfiguration"} <= kinds


def test_three_zones_one_region(cluster):
    zones = defaultdict(list)
    for n in cluster.nodes:
        labels = n.metadata.labels
        assert labels["topology.kubernetes.io/region"] == "us-central1"
        zones[labels[ZONE]].append(n.metadata.name)
    assert sorted(zones) == ["us-central1-a", "us-central1-b", "us-central1-c"]
    for zone, names in zones.items():
        assert sum(name.startswith("worker-") for name in names) == 2, zone


def test_node_labels_and_pools(cluster):
    for n in cluster.nodes:
        labels = n.metadata.labels
        assert labels["kubernetes.io/hostname"] == n.metadata.name
        assert labels["kubernetes.io/os"] == "linux" and labels["kubernetes.io/arch"] == "amd64"
        assert labels["node.kubernetes.io/instance-type"]
        assert {c.type: c.status for c in n.status.conditions}["Ready"] == "True"
        assert n.status.nodeInfo.kubeletVersion == "v1.34.0"
    cp = cluster.get("Node", "cp-1")
    assert "node-role.kubernetes.io/control-plane" in cp.metadata.labels
    assert [(t.key, t.value, t.effect) for t in cp.spec.taints] == [
        ("node-role.kubernetes.io/control-plane", None, "NoSchedule")]
    gpus = [n for n in cluster.nodes if n.metadata.name.startswith("gpu-")]
    assert len(gpus) == 2
    for n in gpus:
        assert n.status.allocatable["nvidia.com/gpu"] == "4" and n.status.capacity["nvidia.com/gpu"] == "4"
        assert n.metadata.labels["nvidia.com/gpu.product"] == "NVIDIA-A100-SXM4-40GB"
        assert [(t.key, t.value, t.effect) for t in n.spec.taints] == [("dedicated", "gpu", "NoSchedule")]
    workers = [n for n in cluster.nodes if n.metadata.name.startswith("worker-")]
    assert len(workers) == 6 and all(not n.spec.taints for n in workers)


def test_allocatable_is_capacity_minus_reserved_and_eviction(cluster):
    mi = 2**20
    reserved = {"n2-standard-4": (80, 2663 * mi), "n2-standard-8": (90, 3646 * mi), "a2-highgpu-4g": (190, 13886 * mi)}
    for n in cluster.nodes:
        cap = resource_list(n.status.capacity)
        alloc = resource_list(n.status.allocatable)
        cpu_r, mem_r = reserved[n.metadata.labels["node.kubernetes.io/instance-type"]]
        assert alloc["cpu"] == cap["cpu"] - cpu_r
        assert alloc["memory"] == cap["memory"] - mem_r - 100 * mi
        assert alloc["ephemeral-storage"] == cap["ephemeral-storage"] - int(cap["ephemeral-storage"] * 0.1)
        assert alloc["pods"] == cap["pods"] == 110
    assert cluster.get("Node", "worker-a-1").status.allocatable["cpu"] == "7910m"


def test_node_images_as_kubelet_reports_them(cluster):
    for n in cluster.nodes:
        assert n.status.images
        for img in n.status.images:
            digest, tag = img.names
            assert "@sha256:" in digest and len(digest.split("@sha256:")[1]) == 64
            assert digest.split("@")[0] == tag.rsplit(":", 1)[0]
            assert img.sizeBytes > 0


def test_bound_pods_fit_their_nodes(cluster):
    nodes = {n.metadata.name: n for n in cluster.nodes}
    used: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    count: dict[str, int] = defaultdict(int)
    for p in cluster.pods:
        assert p.spec.nodeName in nodes, p.metadata.name
        assert p.status.phase == "Running"
        count[p.spec.nodeName] += 1
        for k, v in pod_requests(p).items():
            used[p.spec.nodeName][k] += v
    for name, n in nodes.items():
        alloc = resource_list(n.status.allocatable)
        for k, v in used[name].items():
            assert v <= alloc.get(k, 0), (name, k, v)
        assert count[name] <= alloc["pods"]
        assert count[name] >= 2, "kube-proxy and fluent-bit run everywhere"
    cpu = {name: used[name]["cpu"] for name in nodes if name.startswith("worker-")}
    assert max(cpu.values()) - min(cpu.values()) >= 3000, "some workers are busier than others"
    assert used["gpu-a-1"]["nvidia.com/gpu"] == 4 and used["gpu-b-1"]["nvidia.com/gpu"] == 1


def test_bound_pods_respect_taints(cluster):
    nodes = {n.metadata.name: n for n in cluster.nodes}
    for p in cluster.pods:
        if any(o.kind == "Node" for o in p.metadata.ownerReferences or ()):
            continue  # a static pod's mirror: kubelet runs it without the scheduler, NoSchedule does not apply
        for t in nodes[p.spec.nodeName].spec.taints or ():
            if t.effect not in ("NoSchedule", "NoExecute"):
                continue
            assert any(
                (tol.operator == "Exists" and (not tol.key or tol.key == t.key))
                or (tol.key == t.key and (tol.value or None) == (t.value or None))
                for tol in p.spec.tolerations or ()
                if not tol.effect or tol.effect == t.effect
            ), (p.metadata.name, t.key)


def test_owners_and_template_hashes(cluster):
    rs = {(r.metadata.namespace, r.metadata.name): r for r in cluster.of_kind("ReplicaSet")}
    deployments = {(d.metadata.namespace, d.metadata.name) for d in cluster.of_kind("Deployment")}
    for r in rs.values():
        (owner,) = r.metadata.ownerReferences
        assert (r.metadata.namespace, owner.name) in deployments
    for p in cluster.pods:
        if p.metadata.ownerReferences is None:
            assert p.metadata.name == "notebook-alice"
            continue
        (owner,) = p.metadata.ownerReferences
        if owner.kind == "ReplicaSet":
            r = rs[(p.metadata.namespace, owner.name)]
            assert owner.uid == r.metadata.uid
            assert owner.name.endswith("-" + p.metadata.labels["pod-template-hash"])
            assert p.metadata.name.startswith(owner.name + "-")
        elif owner.kind == "Node":
            assert owner.name == p.spec.nodeName == "cp-1"


def test_priorities_match_classes(cluster):
    values = {pc.metadata.name: pc.value for pc in cluster.priority_classes}
    values.update({"system-node-critical": 2000001000, "system-cluster-critical": 2000000000})
    assert [pc.metadata.name for pc in cluster.priority_classes if pc.globalDefault] == ["default-priority"]
    for p in cluster.pods:
        assert p.spec.priority == values[p.spec.priorityClassName]
    batch = [p for p in cluster.pods if p.metadata.namespace == "batch"]
    assert batch and all(p.spec.priority == -100 for p in batch)


def test_namespaces_exist_for_every_namespaced_object(everything):
    namespaces = {ns.metadata.name for ns in everything.namespaces}
    for o in everything:
        if o.namespace is not None:
            assert o.namespace in namespaces, o.location


def test_volumes_bound_in_their_pods_zone(cluster):
    pvs = {pv.metadata.name: pv for pv in cluster.of_kind("PersistentVolume")}
    zones = {n.metadata.name: n.metadata.labels[ZONE] for n in cluster.nodes}
    claims = {c.metadata.name: c for c in cluster.of_kind("PersistentVolumeClaim")}
    for c in claims.values():
        pv = pvs[c.spec.volumeName]
        assert pv.spec.claimRef.name == c.metadata.name and pv.spec.claimRef.uid == c.metadata.uid
    for p in cluster.pods:
        for v in p.spec.volumes or ():
            if v.persistentVolumeClaim is not None:
                pv = pvs[claims[v.persistentVolumeClaim.claimName].spec.volumeName]
                assert pv.metadata.labels[ZONE] == zones[p.spec.nodeName]


def _free(cluster) -> dict[str, dict[str, int]]:
    free = {n.metadata.name: resource_list(n.status.allocatable) for n in cluster.nodes}
    for p in cluster.pods:
        for k, v in pod_requests(p).items():
            free[p.spec.nodeName][k] -= v
    return free


def _scenario(name: str):
    return load_manifests(PRIORITY_CLASSES, DATA / "scheduling" / name)


def test_scheduling_scenarios_are_pending_pods():
    for path in sorted((DATA / "scheduling").glob("*.yaml")):
        m = load_manifests(PRIORITY_CLASSES, path)
        for p in m.pods:
            assert not p.spec.nodeName and p.status.phase == "Pending", path.name


def test_scenarios_are_what_their_comments_say(cluster):
    free = _free(cluster)
    workers = [n for n in free if n.startswith("worker-")]

    (web,) = _scenario("fits.yaml").pods
    assert all(free[w]["cpu"] >= pod_requests(web)["cpu"] for w in workers)

    (big,) = _scenario("unschedulable.yaml").pods
    cpu = pod_requests(big)["cpu"]
    assert cpu == 12000 and all(resource_list(cluster.get("Node", w).status.allocatable)["cpu"] < cpu for w in workers)
    assert not big.spec.tolerations

    (gpu,) = _scenario("gpu.yaml").pods
    want = pod_requests(gpu)["nvidia.com/gpu"]
    assert [n for n in free if free[n].get("nvidia.com/gpu", 0) >= want] == ["gpu-b-1"]
    assert gpu.spec.preemptionPolicy == "Never"

    (urgent,) = _scenario("preemption.yaml").pods
    assert urgent.spec.priority == 1000000
    assert all(free[w]["cpu"] < pod_requests(urgent)["cpu"] for w in workers)
    assert max(free[w]["cpu"] for w in workers) == free["worker-b-1"]["cpu"] == 5260

    (ingress,) = _scenario("hostport.yaml").pods
    ports = {(p.hostPort) for c in ingress.spec.containers for p in c.ports if p.hostPort}
    holders = {p.spec.nodeName for p in cluster.pods
               for c in p.spec.containers for port in c.ports or () if port.hostPort in ports and not p.spec.hostNetwork}
    assert ports == {80, 443} and holders == {"worker-a-2", "worker-b-2"}

    search = _scenario("spread.yaml").pods
    assert len(search) == 3
    for p in search:
        assert p.spec.topologySpreadConstraints[0].topologyKey == ZONE
        assert p.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey == \
            "kubernetes.io/hostname"


def test_scheduler_config(everything):
    # data/extenders/scheduler-config.yaml is data/scheduling's profile plus an extender (kept out of
    # data/scheduling so that `schedule data/cluster data/scheduling` reads one configuration)
    (with_extender,) = [c for c in everything.scheduler_configs if c.get("extenders")]
    (cfg,) = [c for c in everything.scheduler_configs if not c.get("extenders")]
    assert with_extender["profiles"] == cfg["profiles"]
    (ext,) = with_extender["extenders"]
    assert ext["urlPrefix"] == "http://127.0.0.1:8888/scheduler" and ext["ignorable"] and ext["nodeCacheCapable"]
    assert cfg["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    (profile,) = cfg["profiles"]
    assert profile["schedulerName"] == "default-scheduler"
    (fit,) = profile["pluginConfig"]
    assert fit["name"] == "NodeResourcesFit" and fit["args"]["scoringStrategy"]["type"] == "MostAllocated"
