"""The kubepods cgroup tree and the values the kubelet and the runtime write into it.

Mirrors ``pkg/kubelet/cm`` (helpers_linux.go, cgroup_manager_linux.go,
qos_container_manager_linux.go, pod_container_manager_linux.go,
node_container_manager_linux.go) and the container part of
``pkg/kubelet/kuberuntime`` (kuberuntime_container_linux.go). With
``cgroupsPerQOS: true`` (the default) the tree is::

    kubepods                      node allocatable: cpu.shares, memory limit
    ├── pod<uid>                  Guaranteed pods sit directly under kubepods
    ├── burstable                 cpu.shares = shares of the summed Burstable requests
    │   └── pod<uid>              ResourceConfigForPod
    │       └── <container>       written by the runtime from CRI LinuxContainerResources
    └── besteffort                cpu.shares = 2
        └── pod<uid>

With the ``systemd`` cgroup driver every level is a slice named after its
whole path with ``-`` between parts (dashes inside a part become ``_``):
``/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice``.
With ``cgroupfs`` it is the plain path ``/kubepods/burstable/pod<uid>``.

CPU requests become ``cpu.shares`` (1024 per core, clamped to [2, 262144]);
on cgroup v2 the kubelet converts shares to ``cpu.weight`` with
``1 + (shares - 2) * 9999 / 262142`` (range [1, 10000]). CPU limits become a
CFS quota per 100 ms period (at least 1 ms); memory limits become
``memory.limit_in_bytes`` / ``memory.max``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/helpers_linux.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/cgroup_manager_linux.go (ToSystemd, ToCgroupfs, getCPUWeight)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/qos_container_manager_linux.go (setCPUCgroupConfig)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/pod_container_manager_linux.go (GetPodContainerName)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/node_container_manager_linux.go (getCgroupConfig)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container_linux.go (calculateLinuxResources)
https://kubernetes.io/docs/concepts/architecture/cgroups/
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from kubenotes.api.qos import BEST_EFFORT, BURSTABLE, GUARANTEED, pod_qos_class
from kubenotes.api.quantity import memory_bytes, milli_cpu
from kubenotes.api.resources import aggregate_container_requests, pod_limits, pod_requests, resource_list
from kubenotes.kubelet.qos import container_oom_score_adjust

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

__all__ = [
    "cgroup_tree_graph",
    "qos_values",
    "MIN_SHARES",
    "MAX_SHARES",
    "SHARES_PER_CPU",
    "MILLI_CPU_TO_CPU",
    "QUOTA_PERIOD",
    "MIN_QUOTA_PERIOD",
    "MIN_MILLI_CPU_LIMIT",
    "DEFAULT_NODE_ALLOCATABLE_CGROUP_NAME",
    "BURSTABLE_CGROUP_NAME",
    "BEST_EFFORT_CGROUP_NAME",
    "POD_CGROUP_NAME_PREFIX",
    "CGROUP_DRIVER_SYSTEMD",
    "CGROUP_DRIVER_CGROUPFS",
    "ResourceConfig",
    "milli_cpu_to_shares",
    "milli_cpu_to_quota",
    "shares_to_milli_cpu",
    "quota_to_milli_cpu",
    "cpu_shares_to_cpu_weight",
    "cpu_weight_to_cpu_shares",
    "escape_systemd_cgroup_name",
    "cgroup_name_to_systemd",
    "cgroup_name_to_cgroupfs",
    "cgroup_path",
    "qos_cgroup_name",
    "pod_cgroup_name",
    "pod_cgroup_path",
    "container_cgroup_path",
    "resource_config_for_pod",
    "qos_cgroup_configs",
    "node_allocatable_cgroup_config",
    "linux_container_resources",
    "cgroup_tree",
]

#: ``cm.MinShares``: the kernel's minimum ``cpu.shares``.
MIN_SHARES = 2
#: ``cm.MaxShares``: the kernel's maximum ``cpu.shares``.
MAX_SHARES = 262144
#: ``cm.SharesPerCPU``.
SHARES_PER_CPU = 1024
#: ``cm.MilliCPUToCPU``.
MILLI_CPU_TO_CPU = 1000
#: ``cm.QuotaPeriod``: the CFS period, 100 ms in microseconds.
QUOTA_PERIOD = 100000
#: ``cm.MinQuotaPeriod``: the smallest CFS quota the kernel accepts, 1 ms in microseconds.
MIN_QUOTA_PERIOD = 1000
#: ``cm.MinMilliCPULimit``: limits below 10m are raised to the 1 ms minimum quota.
MIN_MILLI_CPU_LIMIT = 10

#: ``defaultNodeAllocatableCgroupName``: the root of all pod cgroups.
DEFAULT_NODE_ALLOCATABLE_CGROUP_NAME = "kubepods"
#: The Burstable QoS cgroup under ``kubepods``.
BURSTABLE_CGROUP_NAME = "burstable"
#: The BestEffort QoS cgroup under ``kubepods``.
BEST_EFFORT_CGROUP_NAME = "besteffort"
#: ``podCgroupNamePrefix``: a pod's cgroup is ``pod<uid>``.
POD_CGROUP_NAME_PREFIX = "pod"
#: ``--cgroup-driver=systemd`` (kubeadm's default since v1.22).
CGROUP_DRIVER_SYSTEMD = "systemd"
#: ``--cgroup-driver=cgroupfs`` (the kubelet's built-in default).
CGROUP_DRIVER_CGROUPFS = "cgroupfs"

_SYSTEMD_SUFFIX = ".slice"
_RUNTIME_SCOPE_PREFIX = {"containerd": "cri-containerd", "cri-o": "crio"}


def _go_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


# --- CPU conversions (helpers_linux.go, cgroup_manager_linux.go) -------------------------------------


def milli_cpu_to_shares(milli_cpu: int) -> int:
    """``cpu.shares`` for a CPU request (``MilliCPUToShares``).

    ``milli_cpu * 1024 / 1000`` (integer division), clamped to [2, 262144];
    zero gives 2, the kernel's minimum.

    Examples
    --------
    >>> [milli_cpu_to_shares(m) for m in (0, 1, 100, 250, 1000, 2000, 300000)]
    [2, 2, 102, 256, 1024, 2048, 262144]
    """
    if milli_cpu == 0:
        return MIN_SHARES
    shares = _go_div(milli_cpu * SHARES_PER_CPU, MILLI_CPU_TO_CPU)
    if shares < MIN_SHARES:
        return MIN_SHARES
    if shares > MAX_SHARES:
        return MAX_SHARES
    return shares


def milli_cpu_to_quota(milli_cpu: int, period: int = QUOTA_PERIOD) -> int:
    """CFS quota in microseconds for a CPU limit (``MilliCPUToQuota``).

    Parameters
    ----------
    milli_cpu : int
        The limit; 0 means no limit and gives quota 0 (unset).
    period : int
        ``cpu.cfs_period_us``; 100000 unless the CPUCFSQuotaPeriod feature
        gate and ``cpuCFSQuotaPeriod`` say otherwise.

    Examples
    --------
    >>> [milli_cpu_to_quota(m) for m in (0, 5, 10, 200, 500, 1000, 1500)]
    [0, 1000, 1000, 20000, 50000, 100000, 150000]
    >>> milli_cpu_to_quota(200, 50000)
    10000
    """
    if milli_cpu == 0:
        return 0
    quota = _go_div(milli_cpu * period, MILLI_CPU_TO_CPU)
    return max(quota, MIN_QUOTA_PERIOD)


def shares_to_milli_cpu(shares: int) -> int:
    """Inverse of :func:`milli_cpu_to_shares`, rounded up (``sharesToMilliCPU``).

    Examples
    --------
    >>> shares_to_milli_cpu(1024), shares_to_milli_cpu(102), shares_to_milli_cpu(1)
    (1000, 100, 0)
    """
    if shares < MIN_SHARES:
        return 0
    return -((-shares * MILLI_CPU_TO_CPU) // SHARES_PER_CPU)


def quota_to_milli_cpu(quota: int, period: int) -> int:
    """Inverse of :func:`milli_cpu_to_quota` (``quotaToMilliCPU``); quota -1 (no limit) gives 0.

    Examples
    --------
    >>> quota_to_milli_cpu(50000, 100000), quota_to_milli_cpu(-1, 100000)
    (500, 0)
    """
    if quota == -1:
        return 0
    return _go_div(quota * MILLI_CPU_TO_CPU, period)


def cpu_shares_to_cpu_weight(shares: int | None) -> int:
    """cgroup v2 ``cpu.weight`` for cgroup v1 shares, as the kubelet converts (``getCPUWeight``).

    Maps [2, 262144] linearly onto [1, 10000]: ``1 + (shares - 2) * 9999 / 262142``.

    Parameters
    ----------
    shares : int or None
        ``None`` (unset) gives 0, meaning "leave the kernel default (100)".

    Notes
    -----
    The kubelet applies this to the pod and QoS cgroups it manages. Container
    cgroups are written by the runtime through runc / opencontainers/cgroups
    (``ConvertCPUSharesToCgroupV2Value``), which uses the same linear formula
    in the versions shipped with v1.34-era runtimes; runc 1.4 later switched to
    a quadratic mapping that sends 1024 shares to weight 100.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/cgroup_manager_linux.go (getCPUWeight)

    Examples
    --------
    >>> [cpu_shares_to_cpu_weight(s) for s in (None, 2, 102, 1024, 2048, 262144)]
    [0, 1, 4, 39, 79, 10000]
    """
    if shares is None:
        return 0
    if shares >= MAX_SHARES:
        return 10000
    return 1 + ((shares - 2) * 9999) // 262142


def cpu_weight_to_cpu_shares(weight: int) -> int:
    """Inverse of :func:`cpu_shares_to_cpu_weight` (``cpuWeightToCPUShares``, cgroup v2 reads).

    Examples
    --------
    >>> cpu_weight_to_cpu_shares(39), cpu_weight_to_cpu_shares(10000)
    (998, 262144)
    """
    return ((weight - 1) * 262142) // 9999 + 2


# --- names and paths (cgroup_manager_linux.go) ---------------------------------------------------------


def escape_systemd_cgroup_name(part: str) -> str:
    """Replace ``-`` by ``_``: systemd uses ``-`` to separate slice levels (``escapeSystemdCgroupName``).

    Examples
    --------
    >>> escape_systemd_cgroup_name("pod1234-abcd")
    'pod1234_abcd'
    """
    return part.replace("-", "_")


def cgroup_name_to_systemd(name: Iterable[str]) -> str:
    """The systemd slice path of a cgroup name (``CgroupName.ToSystemd`` with ``ExpandSlice``).

    Examples
    --------
    >>> cgroup_name_to_systemd(["kubepods", "burstable", "pod12-34"])
    '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34.slice'
    >>> cgroup_name_to_systemd([])
    '/'
    """
    parts = [escape_systemd_cgroup_name(p) for p in name]
    if not parts or parts == [""]:
        return "/"
    path = ""
    for i in range(len(parts)):
        path += "/" + "-".join(parts[: i + 1]) + _SYSTEMD_SUFFIX
    return path


def cgroup_name_to_cgroupfs(name: Iterable[str]) -> str:
    """The cgroupfs path of a cgroup name (``CgroupName.ToCgroupfs``).

    Examples
    --------
    >>> cgroup_name_to_cgroupfs(["kubepods", "besteffort", "pod1"])
    '/kubepods/besteffort/pod1'
    """
    parts = [p for p in name if p]
    return "/" + "/".join(parts)


def cgroup_path(name: Iterable[str], cgroup_driver: str = CGROUP_DRIVER_SYSTEMD) -> str:
    """A cgroup name as the given driver spells it.

    Raises
    ------
    ValueError
        For a driver other than ``systemd`` or ``cgroupfs``.

    Examples
    --------
    >>> cgroup_path(["kubepods"], "cgroupfs"), cgroup_path(["kubepods"], "systemd")
    ('/kubepods', '/kubepods.slice')
    """
    if cgroup_driver == CGROUP_DRIVER_SYSTEMD:
        return cgroup_name_to_systemd(name)
    if cgroup_driver == CGROUP_DRIVER_CGROUPFS:
        return cgroup_name_to_cgroupfs(name)
    raise ValueError(f"unknown cgroup driver {cgroup_driver!r}")


def qos_cgroup_name(qos_class: str) -> list[str]:
    """The cgroup name of a QoS class (``qosContainersInfo``): Guaranteed pods live in ``kubepods`` itself.

    Examples
    --------
    >>> qos_cgroup_name("Guaranteed"), qos_cgroup_name("Burstable")
    (['kubepods'], ['kubepods', 'burstable'])
    """
    root = [DEFAULT_NODE_ALLOCATABLE_CGROUP_NAME]
    if qos_class == GUARANTEED:
        return root
    if qos_class == BURSTABLE:
        return root + [BURSTABLE_CGROUP_NAME]
    if qos_class == BEST_EFFORT:
        return root + [BEST_EFFORT_CGROUP_NAME]
    raise ValueError(f"unknown QoS class {qos_class!r}")


def pod_cgroup_name(pod: Mapping[str, Any]) -> list[str]:
    """A pod's cgroup name: its QoS cgroup plus ``pod<uid>`` (``GetPodContainerName``).

    Examples
    --------
    >>> pod_cgroup_name({"metadata": {"uid": "5f2c-01"}, "spec": {"containers": [{"name": "c"}]}})
    ['kubepods', 'besteffort', 'pod5f2c-01']
    """
    uid = (pod.get("metadata") or {}).get("uid") or ""
    return qos_cgroup_name(pod_qos_class(pod)) + [POD_CGROUP_NAME_PREFIX + uid]


def pod_cgroup_path(pod: Mapping[str, Any], cgroup_driver: str = CGROUP_DRIVER_SYSTEMD) -> str:
    """A pod's cgroup directory relative to the cgroup mount (``/sys/fs/cgroup``).

    Examples
    --------
    >>> pod = {"metadata": {"uid": "5f2c-01"}, "spec": {"containers": [
    ...     {"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}
    >>> pod_cgroup_path(pod)
    '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5f2c_01.slice'
    >>> pod_cgroup_path(pod, "cgroupfs")
    '/kubepods/burstable/pod5f2c-01'
    """
    return cgroup_path(pod_cgroup_name(pod), cgroup_driver)


def container_cgroup_path(
    pod: Mapping[str, Any],
    container_id: str,
    cgroup_driver: str = CGROUP_DRIVER_SYSTEMD,
    runtime: str = "containerd",
) -> str:
    """Where the runtime puts a container's cgroup under its pod's.

    With systemd the runtime asks for a transient scope named
    ``<prefix>-<id>.scope`` (``cri-containerd`` for containerd, ``crio`` for
    CRI-O); with cgroupfs the directory is the container ID.

    Raises
    ------
    ValueError
        For an unknown runtime or cgroup driver.

    Notes
    -----
    This is the runtimes' convention (containerd's CRI plugin, CRI-O), not
    kubelet code; the kubelet only passes the pod cgroup as ``cgroup_parent``.

    Examples
    --------
    >>> pod = {"metadata": {"uid": "u1"}, "spec": {"containers": [{"name": "c"}]}}
    >>> container_cgroup_path(pod, "abc123")
    '/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podu1.slice/cri-containerd-abc123.scope'
    >>> container_cgroup_path(pod, "abc123", "cgroupfs")
    '/kubepods/besteffort/podu1/abc123'
    """
    if runtime not in _RUNTIME_SCOPE_PREFIX:
        raise ValueError(f"unknown runtime {runtime!r}")
    base = pod_cgroup_path(pod, cgroup_driver)
    if cgroup_driver == CGROUP_DRIVER_SYSTEMD:
        return f"{base}/{_RUNTIME_SCOPE_PREFIX[runtime]}-{container_id}.scope"
    return f"{base}/{container_id}"


# --- resource configs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResourceConfig:
    """The values the kubelet writes to one cgroup (``cm.ResourceConfig``).

    ``None`` means "not set" (the cgroup keeps its default or inherits).

    Attributes
    ----------
    cpu_shares : int or None
        cgroup v1 ``cpu.shares``.
    cpu_quota : int or None
        CFS quota in microseconds per period; -1 means unlimited.
    cpu_period : int or None
        CFS period in microseconds.
    memory : int or None
        Memory limit in bytes (0 is written as no limit).
    unified : dict[str, str]
        Extra cgroup v2 files (``memory.min`` with MemoryQoS).
    """

    cpu_shares: int | None = None
    cpu_quota: int | None = None
    cpu_period: int | None = None
    memory: int | None = None
    unified: Mapping[str, str] = field(default_factory=dict)

    def cgroup_v1_files(self) -> dict[str, str]:
        """The cgroup v1 files and their contents.

        Examples
        --------
        >>> ResourceConfig(cpu_shares=512, cpu_quota=50000, cpu_period=100000, memory=1 << 30).cgroup_v1_files()
        {'cpu.shares': '512', 'cpu.cfs_period_us': '100000', 'cpu.cfs_quota_us': '50000', 'memory.limit_in_bytes': '1073741824'}
        """
        out: dict[str, str] = {}
        if self.cpu_shares is not None:
            out["cpu.shares"] = str(self.cpu_shares)
        if self.cpu_period is not None:
            out["cpu.cfs_period_us"] = str(self.cpu_period)
        if self.cpu_quota is not None:
            out["cpu.cfs_quota_us"] = str(self.cpu_quota)
        if self.memory is not None:
            out["memory.limit_in_bytes"] = str(self.memory) if self.memory > 0 else "-1"
        return out

    def cgroup_v2_files(self) -> dict[str, str]:
        """The cgroup v2 files and their contents (shares converted to ``cpu.weight``).

        Examples
        --------
        >>> ResourceConfig(cpu_shares=1024, cpu_quota=-1, cpu_period=100000).cgroup_v2_files()
        {'cpu.weight': '39', 'cpu.max': 'max 100000'}
        >>> ResourceConfig(cpu_shares=2048, cpu_quota=200000, cpu_period=100000, memory=1 << 30).cgroup_v2_files()
        {'cpu.weight': '79', 'cpu.max': '200000 100000', 'memory.max': '1073741824'}
        """
        out: dict[str, str] = {}
        if self.cpu_shares is not None:
            out["cpu.weight"] = str(cpu_shares_to_cpu_weight(self.cpu_shares))
        if self.cpu_quota is not None or self.cpu_period is not None:
            quota = self.cpu_quota or 0
            text = str(quota) if quota > 0 else "max"
            if self.cpu_period:
                text += f" {self.cpu_period}"
            out["cpu.max"] = text
        if self.memory is not None:
            out["memory.max"] = str(self.memory) if self.memory > 0 else "max"
        out.update(self.unified)
        return out


def _limit_declared(rl: Mapping[str, Any], name: str) -> bool:
    q = rl.get(name)
    return q is not None and q.value != 0


def resource_config_for_pod(
    pod: Mapping[str, Any],
    *,
    enforce_cpu_limits: bool = True,
    cpu_period: int = QUOTA_PERIOD,
    enforce_memory_qos: bool = False,
    pod_level_resources: bool = True,
) -> ResourceConfig:
    """The pod cgroup's values (``ResourceConfigForPod``).

    * cpu.shares from the pod's effective CPU request (containers plus
      sidecars or the largest init container, pod-level requests, overhead);
    * Guaranteed: CFS quota from the CPU limit and the memory limit;
    * Burstable: quota only when *every* container (and every init step)
      declares a CPU limit, memory limit only when every one declares a
      memory limit (or the pod sets pod-level limits);
    * BestEffort: cpu.shares 2 and nothing else.

    Parameters
    ----------
    pod : dict
        A JSON-shaped Pod.
    enforce_cpu_limits : bool
        ``cpuCFSQuota`` (default true); when false the quota is -1.
    cpu_period : int
        ``cpuCFSQuotaPeriod`` in microseconds.
    enforce_memory_qos : bool
        The MemoryQoS feature (alpha): adds ``memory.min`` = memory request.
    pod_level_resources : bool
        The PodLevelResources feature gate (beta, on in v1.34).

    Returns
    -------
    ResourceConfig

    Raises
    ------
    InvalidQuantity
        When a quantity does not parse.

    Notes
    -----
    Hugepage limits are left out.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/helpers_linux.go (ResourceConfigForPod)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests, PodLimits)

    Examples
    --------
    >>> burstable = {"spec": {"containers": [
    ...     {"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "128Mi"},
    ...                                 "limits": {"cpu": "1", "memory": "256Mi"}}},
    ...     {"name": "b", "resources": {"requests": {"cpu": "250m"}}}]}}
    >>> resource_config_for_pod(burstable)
    ResourceConfig(cpu_shares=768, cpu_quota=None, cpu_period=None, memory=None, unified={})
    """
    # ContainerFn of PodLimits: every container, and every init step (an init
    # container plus the sidecars before it, or the sidecars so far).
    declared = {"cpu": True, "memory": True}

    def container_fn(rl: dict, _container_type: str) -> None:
        for name in declared:
            declared[name] = declared[name] and _limit_declared(rl, name)

    spec = pod.get("spec") or {}
    if pod_level_resources:
        reqs = pod_requests(pod, quantities=True)
        limits = pod_limits(pod, quantities=True, container_fn=container_fn)
    else:
        reqs = pod_requests(pod, skip_pod_level_resources=True, quantities=True)
        limits = pod_limits(pod, skip_pod_level_resources=True, exclude_overhead=True, quantities=True,
                            container_fn=container_fn)
        # the overhead goes onto the limits that are set and non-zero only
        for k, v in resource_list(spec.get("overhead"), quantities=True).items():
            if k in limits and limits[k].value != 0:
                limits[k] = limits[k] + v
    cpu_declared, memory_declared = declared["cpu"], declared["memory"]
    pod_limits_spec = (spec.get("resources") or {}).get("limits") or {}
    if pod_level_resources and (spec.get("resources") or {}):
        pod_rl = resource_list(pod_limits_spec, quantities=True)
        if _limit_declared(pod_rl, "cpu"):
            cpu_declared = True
        if _limit_declared(pod_rl, "memory"):
            memory_declared = True

    cpu_requests = reqs["cpu"].milli_value() if "cpu" in reqs else 0
    cpu_limits = limits["cpu"].milli_value() if "cpu" in limits else 0
    memory_limits = limits["memory"].int_value() if "memory" in limits else 0
    cpu_shares = milli_cpu_to_shares(cpu_requests)
    cpu_quota = milli_cpu_to_quota(cpu_limits, cpu_period) if enforce_cpu_limits else -1

    unified: dict[str, str] = {}
    if enforce_memory_qos and "memory" in reqs and reqs["memory"].int_value() > 0:
        unified["memory.min"] = str(reqs["memory"].int_value())

    qos_class = pod_qos_class(pod)
    if qos_class == GUARANTEED:
        return ResourceConfig(cpu_shares, cpu_quota, cpu_period, memory_limits, unified)
    if qos_class == BURSTABLE:
        return ResourceConfig(
            cpu_shares,
            cpu_quota if cpu_declared else None,
            cpu_period if cpu_declared else None,
            memory_limits if memory_declared else None,
            unified,
        )
    return ResourceConfig(cpu_shares=MIN_SHARES, unified=unified)


def qos_cgroup_configs(pods: Iterable[Mapping[str, Any]], *, pod_level_resources: bool = True) -> dict[str, ResourceConfig]:
    """The QoS cgroups' values for the node's active pods (``setCPUCgroupConfig``).

    ``burstable`` gets the shares of the summed CPU requests of all Burstable
    pods; ``besteffort`` always gets 2.

    Returns
    -------
    dict[str, ResourceConfig]
        ``{"Burstable": ..., "BestEffort": ...}``.

    Notes
    -----
    The QOSReserved (memory limits on the QoS cgroups) and MemoryQoS alpha
    features are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/qos_container_manager_linux.go

    Examples
    --------
    >>> pods = [{"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": m}}}]}}
    ...         for m in ("500m", "1500m")]
    >>> qos_cgroup_configs(pods)["Burstable"].cpu_shares
    2048
    """
    total = 0
    for pod in pods:
        if pod_qos_class(pod) != BURSTABLE:
            continue
        if pod_level_resources:
            reqs = pod_requests(pod, quantities=True)
        else:
            reqs = aggregate_container_requests(pod, quantities=True)
        if "cpu" in reqs:
            total += reqs["cpu"].milli_value()
    return {
        BURSTABLE: ResourceConfig(cpu_shares=milli_cpu_to_shares(total)),
        BEST_EFFORT: ResourceConfig(cpu_shares=MIN_SHARES),
    }


def node_allocatable_cgroup_config(
    capacity: Mapping[str, Any],
    kube_reserved: Mapping[str, Any] | None = None,
    system_reserved: Mapping[str, Any] | None = None,
) -> ResourceConfig:
    """The ``kubepods`` cgroup's values: capacity minus kube- and system-reserved (``getCgroupConfig``).

    Parameters
    ----------
    capacity, kube_reserved, system_reserved : dict
        ResourceLists (``{"cpu": "4", "memory": "16Gi"}``).

    Notes
    -----
    ``getNodeAllocatableAbsolute`` does not subtract the hard eviction
    threshold (that only lowers the ``allocatable`` the scheduler sees), so
    pods may use the threshold's memory until the kubelet evicts. Pid and
    hugepage limits are left out.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/node_container_manager_linux.go

    Examples
    --------
    >>> node_allocatable_cgroup_config({"cpu": "4", "memory": "16Gi"}, {"cpu": "100m", "memory": "1Gi"})
    ResourceConfig(cpu_shares=3993, cpu_quota=None, cpu_period=None, memory=16106127360, unified={})
    """
    cpu = milli_cpu(capacity.get("cpu", 0))
    mem = memory_bytes(capacity.get("memory", 0))
    for reserved in (kube_reserved or {}, system_reserved or {}):
        cpu -= milli_cpu(reserved.get("cpu", 0))
        mem -= memory_bytes(reserved.get("memory", 0))
    return ResourceConfig(cpu_shares=milli_cpu_to_shares(max(cpu, 0)), memory=max(mem, 0))


def linux_container_resources(
    pod: Mapping[str, Any],
    container_name: str,
    memory_capacity_bytes: int,
    *,
    cpu_cfs_quota: bool = True,
    cpu_cfs_quota_period: int = QUOTA_PERIOD,
    cgroup_v2: bool = True,
    single_process_oom_kill: bool = False,
) -> dict[str, Any]:
    """The CRI ``LinuxContainerResources`` the kubelet sends for a container.

    Parameters
    ----------
    pod : dict
        A JSON-shaped Pod.
    container_name : str
        A regular or init container.
    memory_capacity_bytes : int
        The node's memory capacity (for ``oom_score_adj``).
    cpu_cfs_quota : bool
        ``cpuCFSQuota``.
    cpu_cfs_quota_period : int
        ``cpuCFSQuotaPeriod`` in microseconds.
    cgroup_v2 : bool
        Whether the node runs the unified hierarchy.
    single_process_oom_kill : bool
        ``singleProcessOOMKill`` (default false on cgroup v2): when false the
        kubelet asks for ``memory.oom.group=1``, so an OOM kills the whole
        container rather than one process.

    Returns
    -------
    dict
        Protobuf field names of ``runtime.v1.LinuxContainerResources``:
        ``cpu_period``, ``cpu_quota``, ``cpu_shares``,
        ``memory_limit_in_bytes``, ``oom_score_adj``, and ``unified``.

    Raises
    ------
    KeyError
        When the pod has no such container.

    Notes
    -----
    A container with a CPU limit but no request gets shares from the limit.
    Memory swap, hugepages, cpuset (CPU manager) and pod-level limits
    inherited by containers are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container_linux.go
    (generateLinuxContainerResources, calculateLinuxResources)

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "app", "resources": {
    ...     "requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": "500m", "memory": "128Mi"}}}]}}
    >>> linux_container_resources(pod, "app", 8 << 30)
    {'cpu_period': 100000, 'cpu_quota': 50000, 'cpu_shares': 256, 'memory_limit_in_bytes': 134217728, 'oom_score_adj': 993, 'unified': {'memory.oom.group': '1'}}
    """
    spec = pod.get("spec") or {}
    container = None
    for c in list(spec.get("containers") or ()) + list(spec.get("initContainers") or ()):
        if c.get("name") == container_name:
            container = c
            break
    if container is None:
        raise KeyError(f"container {container_name!r} not found in pod")
    res = container.get("resources") or {}
    requests = res.get("requests") or {}
    limits = res.get("limits") or {}
    cpu_limit = milli_cpu(limits["cpu"]) if "cpu" in limits else 0
    if "cpu" not in requests and "cpu" in limits:
        cpu_shares = milli_cpu_to_shares(cpu_limit)
    else:
        cpu_shares = milli_cpu_to_shares(milli_cpu(requests.get("cpu", 0)))
    out: dict[str, Any] = {}
    if cpu_cfs_quota:
        out["cpu_period"] = cpu_cfs_quota_period
        out["cpu_quota"] = milli_cpu_to_quota(cpu_limit, cpu_cfs_quota_period)
    out["cpu_shares"] = cpu_shares
    mem_limit = memory_bytes(limits["memory"]) if "memory" in limits else 0
    if mem_limit:
        out["memory_limit_in_bytes"] = mem_limit
    out["oom_score_adj"] = container_oom_score_adjust(pod, container_name, memory_capacity_bytes)
    if cgroup_v2 and not single_process_oom_kill:
        out["unified"] = {"memory.oom.group": "1"}
    return out


def cgroup_tree(
    pods: Iterable[Mapping[str, Any]],
    capacity: Mapping[str, Any],
    *,
    kube_reserved: Mapping[str, Any] | None = None,
    system_reserved: Mapping[str, Any] | None = None,
    cgroup_driver: str = CGROUP_DRIVER_SYSTEMD,
    cgroup_v2: bool = True,
) -> dict[str, dict[str, str]]:
    """Every kubelet-managed cgroup on a node with the files it writes.

    Parameters
    ----------
    pods : iterable of dict
        The node's active pods (each with ``metadata.uid``).
    capacity, kube_reserved, system_reserved : dict
        Node ResourceLists, as for :func:`node_allocatable_cgroup_config`.
    cgroup_driver : str
        ``systemd`` or ``cgroupfs``.
    cgroup_v2 : bool
        Write cgroup v2 files (``cpu.weight``, ``cpu.max``, ``memory.max``)
        rather than v1 ones.

    Returns
    -------
    dict[str, dict[str, str]]
        Cgroup path -> file name -> content, parents before children.

    Examples
    --------
    >>> pod = {"metadata": {"uid": "u1"}, "spec": {"containers": [{"name": "c"}]}}
    >>> tree = cgroup_tree([pod], {"cpu": "2", "memory": "4Gi"}, cgroup_driver="cgroupfs")
    >>> list(tree)
    ['/kubepods', '/kubepods/burstable', '/kubepods/besteffort', '/kubepods/besteffort/podu1']
    >>> tree["/kubepods/besteffort/podu1"]
    {'cpu.weight': '1'}
    """
    pods = list(pods)

    def files(cfg: ResourceConfig) -> dict[str, str]:
        return cfg.cgroup_v2_files() if cgroup_v2 else cfg.cgroup_v1_files()

    tree: dict[str, dict[str, str]] = {}
    tree[cgroup_path([DEFAULT_NODE_ALLOCATABLE_CGROUP_NAME], cgroup_driver)] = files(
        node_allocatable_cgroup_config(capacity, kube_reserved, system_reserved)
    )
    qos = qos_cgroup_configs(pods)
    tree[cgroup_path(qos_cgroup_name(BURSTABLE), cgroup_driver)] = files(qos[BURSTABLE])
    tree[cgroup_path(qos_cgroup_name(BEST_EFFORT), cgroup_driver)] = files(qos[BEST_EFFORT])
    for pod in pods:
        tree[pod_cgroup_path(pod, cgroup_driver)] = files(resource_config_for_pod(pod))
    return tree


def qos_values(pod: Mapping[str, Any], memory_capacity_bytes: int = 8 * 2**30) -> dict[str, Any]:
    """What the kubelet derives from a one-container pod's resources.

    Parameters
    ----------
    pod : mapping
        A Pod dict; its first container is the one shown.
    memory_capacity_bytes : int
        Node memory, bytes (the Burstable ``oom_score_adj`` depends on it).

    Returns
    -------
    dict
        ``qosClass``, ``oom_score_adj``, ``pod cgroup`` (cgroupfs path),
        ``cpu.shares`` (v1), ``cpu.weight``, ``cpu.max``, ``memory.max`` (v2,
        pod level; ``-`` when unset), and ``container memory.max``.

    Raises
    ------
    KeyError
        ``pod`` has no ``spec``/``containers`` or the container no ``name``.
    IndexError
        ``spec.containers`` is empty.
    kubenotes.errors.InvalidQuantity
        A request or limit is not a quantity.

    See Also
    --------
    kubenotes.viz.qos.qos_values_table, kubenotes.api.qos.pod_qos_class,
    kubenotes.kubelet.qos.container_oom_score_adjust,
    kubenotes.kubelet.cgroups.resource_config_for_pod

    Notes
    -----
    One container, no init containers, no pod-level resources, cgroupfs
    driver: the systemd driver's ``kubepods.slice`` names are not shown.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/qos/policy.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/helpers_linux.go

    Examples
    --------
    >>> res = {"requests": {"cpu": "500m", "memory": "1024Mi"}, "limits": {"cpu": "500m", "memory": "1024Mi"}}
    >>> pod = {"metadata": {"name": "app", "uid": "app"}, "spec": {"containers": [{"name": "app", "resources": res}]}}
    >>> v = qos_values(pod)
    >>> v["qosClass"], v["oom_score_adj"], v["pod cgroup"], v["cpu.weight"], v["cpu.max"], v["memory.max"]
    ('Guaranteed', -997, '/kubepods/podapp', '20', '50000 100000', '1073741824')
    >>> qos_values({"metadata": {"name": "app", "uid": "app"}, "spec": {"containers": [{"name": "app"}]}})["oom_score_adj"]
    1000
    """
    container = pod["spec"]["containers"][0]["name"]
    cfg = resource_config_for_pod(pod)
    v1 = cfg.cgroup_v1_files()
    v2 = cfg.cgroup_v2_files()
    cri = linux_container_resources(pod, container, memory_capacity_bytes)
    return {
        "qosClass": pod_qos_class(pod),
        "oom_score_adj": container_oom_score_adjust(pod, container, memory_capacity_bytes),
        "pod cgroup": pod_cgroup_path(pod, CGROUP_DRIVER_CGROUPFS),
        "cpu.shares": v1.get("cpu.shares", "-"),
        "cpu.weight": v2.get("cpu.weight", "-"),
        "cpu.max": v2.get("cpu.max", "-"),
        "memory.max": v2.get("memory.max", "-"),
        "container memory.max": str(cri.get("memory_limit_in_bytes", "max")),
    }


def cgroup_tree_graph(pods: Iterable[Mapping[str, Any]], capacity: Mapping[str, Any], *,
                      cgroup_driver: str = CGROUP_DRIVER_CGROUPFS) -> nx.DiGraph:
    """The kubelet's cgroup tree as a directed graph, parent -> child, spelled as ``cgroup_driver`` spells it.

    The kubelet's ``cgroupDriver`` setting (or, with ``KubeletCgroupDriverFromCRI``, GA in v1.34, the
    runtime's answer to the CRI ``RuntimeConfig`` call) decides the spelling: ``cgroupfs`` writes
    ``/kubepods/burstable/pod<uid>``, ``systemd`` ``/kubepods.slice/kubepods-burstable.slice/
    kubepods-burstable-pod<uid>.slice``; the tree and its files are the same.

    Each node carries ``files`` (cgroup v2 file -> content) and ``qos``
    (the QoS class of a pod cgroup, else None).

    Parameters
    ----------
    pods : iterable of mapping
        Pod dicts on the node.
    capacity : mapping
        Node capacity, resource name -> quantity (``{"cpu": "2", "memory": "4Gi"}``).
    cgroup_driver : str
        ``"cgroupfs"`` (default) or ``"systemd"``.

    Returns
    -------
    networkx.DiGraph
        Vertices are cgroup paths (cgroupfs: ``/kubepods``, ``/kubepods/burstable``,
        ``/kubepods/besteffort``, ``.../pod<uid>``; systemd: the ``.slice`` names) with
        ``files``, ``qos`` and ``pod`` (the pod's name, else None); edges parent -> child.

    Raises
    ------
    KeyError
        A pod has no ``metadata``.
    kubenotes.errors.InvalidQuantity
        A capacity, request or limit is not a quantity.
    ValueError
        An unknown ``cgroup_driver``.

    See Also
    --------
    cgroup_tree, kubenotes.viz.qos.cgroup_tree_figure : draws it.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/qos_container_manager_linux.go

    Examples
    --------
    >>> from kubenotes.sim.scenarios import single_container_pod
    >>> g = cgroup_tree_graph([single_container_pod("be", uid="u1")], {"cpu": "2", "memory": "4Gi"})
    >>> sorted(g.edges())
    [('/kubepods', '/kubepods/besteffort'), ('/kubepods', '/kubepods/burstable'), ('/kubepods/besteffort', '/kubepods/besteffort/podu1')]
    >>> g.nodes["/kubepods/besteffort/podu1"]["qos"]
    'BestEffort'
    >>> sd = cgroup_tree_graph([single_container_pod("be", uid="u1")], {"cpu": "2", "memory": "4Gi"}, cgroup_driver="systemd")
    >>> list(sd.successors("/kubepods.slice/kubepods-besteffort.slice"))
    ['/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podu1.slice']
    """
    import networkx as nx

    pods = list(pods)
    tree = cgroup_tree(pods, capacity, cgroup_driver=cgroup_driver)
    qos_of = {pod_cgroup_path(p, cgroup_driver): (pod_qos_class(p), p["metadata"].get("name")) for p in pods}
    g = nx.DiGraph()
    for path, files in tree.items():
        qos, name = qos_of.get(path, (None, None))
        g.add_node(path, files=dict(files), qos=qos, pod=name)
        parent = path.rsplit("/", 1)[0]
        if parent in tree:
            g.add_edge(parent, path)
    return g
