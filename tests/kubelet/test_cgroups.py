"""Tests for kubenotes.kubelet.cgroups.

Upstream sources the cases come from:

* kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/helpers_linux_test.go:
  TestMilliCPUToQuota (the table, verbatim), TestMilliCPUToShares-style
  bounds, TestResourceConfigForPod (besteffort, burstable-no-limits,
  burstable-with-limits, burstable-with-limits-no-cpu-enforcement,
  burstable-partial-limits, burstable-with-limits-with-tuned-quota,
  guaranteed, guaranteed-no-cpu-enforcement, pod-level resources), with
  upstream's getPod(cpuRequest, cpuLimit, memoryRequest, memoryLimit) helper.
* kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/cgroup_manager_linux_test.go:
  TestCgroupNameToSystemdBasename / TestCgroupNameToCgroupfs style names.
* kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/cgroup_manager_linux.go getCPUWeight.
"""

from __future__ import annotations

import pytest

from kubenotes.kubelet.cgroups import (
    MAX_SHARES,
    MIN_SHARES,
    ResourceConfig,
    cgroup_name_to_cgroupfs,
    cgroup_name_to_systemd,
    cgroup_path,
    cgroup_tree,
    container_cgroup_path,
    cpu_shares_to_cpu_weight,
    cpu_weight_to_cpu_shares,
    linux_container_resources,
    milli_cpu_to_quota,
    milli_cpu_to_shares,
    node_allocatable_cgroup_config,
    pod_cgroup_path,
    qos_cgroup_configs,
    quota_to_milli_cpu,
    resource_config_for_pod,
    shares_to_milli_cpu,
)

MI = 1 << 20


def res(cpu_req="", cpu_lim="", mem_req="", mem_lim=""):
    requests, limits = {}, {}
    if cpu_req:
        requests["cpu"] = cpu_req
    if mem_req:
        requests["memory"] = mem_req
    if cpu_lim:
        limits["cpu"] = cpu_lim
    if mem_lim:
        limits["memory"] = mem_lim
    return {"requests": requests, "limits": limits}


def get_pod(cpu_req, cpu_lim, mem_req, mem_lim, uid="uid-1"):
    return {"metadata": {"name": "p", "uid": uid},
            "spec": {"containers": [{"name": "c", "resources": res(cpu_req, cpu_lim, mem_req, mem_lim)}]}}


@pytest.mark.parametrize("milli,quota", [
    (0, 0), (5, 1000), (9, 1000), (10, 1000), (200, 20000), (500, 50000), (1000, 100000), (1500, 150000),
])
def test_milli_cpu_to_quota(milli, quota):
    assert milli_cpu_to_quota(milli, 100000) == quota


def test_milli_cpu_to_quota_tuned_period():
    assert milli_cpu_to_quota(400, 5000) == 2000  # 400m of a 5 ms period = 2 ms
    assert milli_cpu_to_quota(100, 5000) == 1000  # 0.5 ms raised to the 1 ms minimum


@pytest.mark.parametrize("milli,shares", [
    (0, MIN_SHARES), (1, MIN_SHARES), (2, MIN_SHARES), (3, 3), (100, 102), (1000, 1024), (256000, MAX_SHARES),
    (10**9, MAX_SHARES),
])
def test_milli_cpu_to_shares(milli, shares):
    assert milli_cpu_to_shares(milli) == shares


def test_round_trips():
    assert shares_to_milli_cpu(milli_cpu_to_shares(250)) == 250
    assert quota_to_milli_cpu(milli_cpu_to_quota(750), 100000) == 750
    assert cpu_shares_to_cpu_weight(MIN_SHARES) == 1
    assert cpu_shares_to_cpu_weight(MAX_SHARES) == 10000
    assert cpu_weight_to_cpu_shares(1) == MIN_SHARES
    assert cpu_weight_to_cpu_shares(10000) == MAX_SHARES
    weights = [cpu_shares_to_cpu_weight(s) for s in range(2, 5000, 37)]
    assert weights == sorted(weights)


def test_resource_config_best_effort():
    assert resource_config_for_pod(get_pod("", "", "", "")) == ResourceConfig(cpu_shares=MIN_SHARES)


def test_resource_config_burstable_no_limits():
    cfg = resource_config_for_pod(get_pod("100m", "", "100Mi", ""))
    assert cfg == ResourceConfig(cpu_shares=102)


def test_resource_config_burstable_with_limits():
    cfg = resource_config_for_pod(get_pod("100m", "200m", "100Mi", "200Mi"))
    assert cfg == ResourceConfig(cpu_shares=102, cpu_quota=20000, cpu_period=100000, memory=200 * MI)


def test_resource_config_burstable_with_limits_no_cpu_enforcement():
    cfg = resource_config_for_pod(get_pod("100m", "200m", "100Mi", "200Mi"), enforce_cpu_limits=False)
    assert cfg == ResourceConfig(cpu_shares=102, cpu_quota=-1, cpu_period=100000, memory=200 * MI)


def test_resource_config_burstable_partial_limits():
    p = get_pod("100m", "200m", "100Mi", "200Mi")
    p["spec"]["containers"].append({"name": "d", "resources": res("100m", "", "100Mi", "")})
    cfg = resource_config_for_pod(p)
    assert cfg == ResourceConfig(cpu_shares=milli_cpu_to_shares(200))


def test_resource_config_burstable_partial_limits_through_init_container():
    p = get_pod("100m", "200m", "100Mi", "200Mi")
    p["spec"]["initContainers"] = [{"name": "init", "resources": res("50m", "", "", "")}]
    cfg = resource_config_for_pod(p)
    assert cfg.cpu_quota is None and cfg.memory is None


def test_resource_config_burstable_with_tuned_quota():
    cfg = resource_config_for_pod(get_pod("100m", "200m", "100Mi", "200Mi"), cpu_period=5000)
    assert cfg == ResourceConfig(cpu_shares=102, cpu_quota=1000, cpu_period=5000, memory=200 * MI)


def test_resource_config_guaranteed():
    cfg = resource_config_for_pod(get_pod("100m", "100m", "100Mi", "100Mi"))
    assert cfg == ResourceConfig(cpu_shares=102, cpu_quota=10000, cpu_period=100000, memory=100 * MI)
    no_cpu = resource_config_for_pod(get_pod("100m", "100m", "100Mi", "100Mi"), enforce_cpu_limits=False)
    assert no_cpu.cpu_quota == -1


def test_resource_config_sidecar_requests_and_overhead():
    p = get_pod("100m", "200m", "100Mi", "200Mi")
    p["spec"]["initContainers"] = [{"name": "proxy", "restartPolicy": "Always",
                                    "resources": res("50m", "100m", "50Mi", "100Mi")}]
    p["spec"]["overhead"] = {"cpu": "10m", "memory": "10Mi"}
    cfg = resource_config_for_pod(p)
    assert cfg.cpu_shares == milli_cpu_to_shares(160)
    assert cfg.cpu_quota == milli_cpu_to_quota(310)
    assert cfg.memory == 310 * MI


def test_resource_config_pod_level_resources():
    p = {"metadata": {"uid": "u"}, "spec": {
        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}},
        "containers": [{"name": "a"}, {"name": "b", "resources": res("100m", "", "", "")}]}}
    cfg = resource_config_for_pod(p)
    # Pod-level limits count as declared even though the containers set none.
    assert cfg == ResourceConfig(cpu_shares=1024, cpu_quota=200000, cpu_period=100000, memory=2 << 30)
    off = resource_config_for_pod(p, pod_level_resources=False)
    assert off == ResourceConfig(cpu_shares=milli_cpu_to_shares(100))


def test_memory_qos_sets_memory_min():
    cfg = resource_config_for_pod(get_pod("100m", "", "100Mi", ""), enforce_memory_qos=True)
    assert cfg.unified == {"memory.min": str(100 * MI)}
    assert cfg.cgroup_v2_files()["memory.min"] == str(100 * MI)


def test_cgroup_files():
    cfg = ResourceConfig(cpu_shares=102, cpu_quota=20000, cpu_period=100000, memory=200 * MI)
    assert cfg.cgroup_v1_files() == {"cpu.shares": "102", "cpu.cfs_period_us": "100000",
                                     "cpu.cfs_quota_us": "20000", "memory.limit_in_bytes": str(200 * MI)}
    assert cfg.cgroup_v2_files() == {"cpu.weight": "4", "cpu.max": "20000 100000", "memory.max": str(200 * MI)}
    assert ResourceConfig(cpu_shares=2).cgroup_v2_files() == {"cpu.weight": "1"}


def test_qos_cgroup_configs_sum_burstable_requests_only():
    pods = [get_pod("100m", "", "", "", "a"), get_pod("400m", "", "", "", "b"),
            get_pod("1", "1", "1Gi", "1Gi", "g"), get_pod("", "", "", "", "be")]
    cfgs = qos_cgroup_configs(pods)
    assert cfgs["Burstable"].cpu_shares == milli_cpu_to_shares(500)
    assert cfgs["BestEffort"].cpu_shares == MIN_SHARES
    assert qos_cgroup_configs([])["Burstable"].cpu_shares == MIN_SHARES


def test_names_and_paths():
    assert cgroup_name_to_systemd(["kubepods", "burstable", "pod-1"]) == \
        "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod_1.slice"
    assert cgroup_name_to_cgroupfs(["kubepods", "burstable", "pod-1"]) == "/kubepods/burstable/pod-1"
    assert cgroup_name_to_systemd([""]) == "/"
    with pytest.raises(ValueError):
        cgroup_path(["kubepods"], "openrc")
    g = get_pod("1", "1", "1Gi", "1Gi", uid="ab-cd")
    assert pod_cgroup_path(g) == "/kubepods.slice/kubepods-podab_cd.slice"
    assert pod_cgroup_path(g, "cgroupfs") == "/kubepods/podab-cd"
    assert container_cgroup_path(g, "f00", runtime="cri-o").endswith("/crio-f00.scope")


def test_linux_container_resources():
    p = get_pod("", "500m", "", "256Mi")
    p["spec"]["containers"][0]["resources"]["requests"] = {"memory": "128Mi"}
    out = linux_container_resources(p, "c", 8 << 30, cgroup_v2=False)
    # Request missing but limit set: shares come from the limit.
    assert out == {"cpu_period": 100000, "cpu_quota": 50000, "cpu_shares": 512,
                   "memory_limit_in_bytes": 256 * MI, "oom_score_adj": 985}
    be = linux_container_resources(get_pod("", "", "", ""), "c", 8 << 30, cpu_cfs_quota=False,
                                   single_process_oom_kill=True)
    assert be == {"cpu_shares": 2, "oom_score_adj": 1000}
    with pytest.raises(KeyError):
        linux_container_resources(p, "nope", 8 << 30)


def test_node_allocatable_and_tree():
    cfg = node_allocatable_cgroup_config({"cpu": "2", "memory": "4Gi"}, {"memory": "512Mi"}, {"cpu": "500m"})
    assert cfg == ResourceConfig(cpu_shares=milli_cpu_to_shares(1500), memory=(4 << 30) - (512 << 20))
    pods = [get_pod("250m", "500m", "64Mi", "128Mi", "b1"), get_pod("1", "1", "1Gi", "1Gi", "g1")]
    tree = cgroup_tree(pods, {"cpu": "2", "memory": "4Gi"}, cgroup_v2=False)
    assert list(tree) == [
        "/kubepods.slice", "/kubepods.slice/kubepods-burstable.slice", "/kubepods.slice/kubepods-besteffort.slice",
        "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podb1.slice", "/kubepods.slice/kubepods-podg1.slice"]
    assert tree["/kubepods.slice/kubepods-burstable.slice"] == {"cpu.shares": "256"}
    assert tree["/kubepods.slice/kubepods-podg1.slice"]["memory.limit_in_bytes"] == str(1 << 30)


def test_cgroup_tree_graph_has_one_vertex_per_cgroup_and_marks_pod_cgroups():
    from kubenotes.kubelet.cgroups import cgroup_tree, cgroup_tree_graph
    from kubenotes.sim.scenarios import single_container_pod

    pods = [single_container_pod("g", 500, 500, 256, 256, uid="ug"), single_container_pod("b", uid="ub")]
    capacity = {"cpu": "2", "memory": "4Gi"}
    for driver in ("cgroupfs", "systemd"):
        g = cgroup_tree_graph(pods, capacity, cgroup_driver=driver)
        assert set(g) == set(cgroup_tree(pods, capacity, cgroup_driver=driver))
        assert sorted(d["qos"] for _, d in g.nodes(data=True) if d["pod"]) == ["BestEffort", "Guaranteed"]
        assert all(g.in_degree(v) == 1 for v in g if v not in ("/kubepods", "/kubepods.slice"))
