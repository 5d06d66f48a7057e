"""The Node a kubelet registers and keeps up to date, and its Lease.

Mirrors ``pkg/kubelet/kubelet_node_status.go`` (``initialNode``,
``registerWithAPIServer``, ``updateDefaultLabels``, ``tryUpdateNodeStatus``,
``nodeStatusHasChanged``), ``pkg/kubelet/nodestatus/setters.go`` (the status
setters: addresses, machine info, version info, daemon endpoints, images and
the four conditions), ``pkg/kubelet/cm/node_container_manager_linux.go``
(``GetNodeAllocatableReservation``, ``hardEvictionReservation``) and
``pkg/kubelet/nodelease`` with
``staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go``
(the node's Lease in ``kube-node-lease``) of kubernetes/kubernetes v1.34.

Everything is a pure function over JSON-shaped objects; the SimPy clock's
``now`` comes in as seconds. The timing the kubelet follows:

* the status is computed every ``nodeStatusUpdateFrequency`` (10 s) and
  posted only when something other than heartbeat times changed, or
  ``nodeStatusReportFrequency`` (5 min) has passed since the last post
  (:func:`should_post_node_status`);
* the Lease is renewed every ``nodeLeaseDurationSeconds`` × 0.25 = 10 s
  (:data:`NODE_LEASE_RENEW_INTERVAL_FRACTION`); the node lifecycle
  controller treats a node whose Lease is older than its grace period (50 s) as
  unreachable.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_node_status.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/nodestatus/setters.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/cm/node_container_manager_linux.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/nodelease/controller.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/apis/config/v1beta1/defaults.go
https://kubernetes.io/docs/tasks/administer-cluster/reserve-compute-resources/
https://kubernetes.io/docs/concepts/architecture/nodes/#node-heartbeats
"""

from __future__ import annotations

import copy
import datetime as _dt
import hashlib
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable, Mapping, Sequence

from kubenotes.api.quantity import BINARY_SI, DECIMAL_SI, Quantity
from kubenotes.apiserver.discovery import SERVER_GIT_VERSION
from kubenotes.apiserver.server import current_epoch, format_timestamp
from kubenotes.apiserver.store import deep_copy
from kubenotes.kubelet.eviction import (
    DEFAULT_EVICTION_HARD,
    SIGNAL_MEMORY_AVAILABLE,
    SIGNAL_NODE_FS_AVAILABLE,
    get_threshold_quantity,
    parse_threshold_config,
)

__all__ = [
    "NODE_LEASE_NAMESPACE",
    "DEFAULT_MAX_PODS",
    "DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_SECONDS",
    "DEFAULT_NODE_STATUS_REPORT_FREQUENCY_SECONDS",
    "DEFAULT_NODE_LEASE_DURATION_SECONDS",
    "NODE_LEASE_RENEW_INTERVAL_FRACTION",
    "DEFAULT_NODE_STATUS_MAX_IMAGES",
    "MAX_NAMES_PER_IMAGE_IN_NODE_STATUS",
    "KUBELET_PORT",
    "LABEL_HOSTNAME",
    "LABEL_OS_STABLE",
    "LABEL_ARCH_STABLE",
    "LABEL_OS_BETA",
    "LABEL_ARCH_BETA",
    "LABEL_INSTANCE_TYPE_STABLE",
    "LABEL_INSTANCE_TYPE",
    "CONTROLLER_MANAGED_ATTACH_ANNOTATION",
    "NODE_READY",
    "NODE_MEMORY_PRESSURE",
    "NODE_DISK_PRESSURE",
    "NODE_PID_PRESSURE",
    "KUBELET_READY",
    "KUBELET_NOT_READY",
    "KUBELET_READY_MESSAGE",
    "NODE_STATUS_EVENT_MESSAGE_FMT",
    "MachineInfo",
    "NodeConfig",
    "hard_eviction_reservation",
    "node_allocatable_reservation",
    "node_capacity",
    "node_allocatable",
    "node_addresses",
    "node_info",
    "node_images",
    "set_pressure_condition",
    "set_ready_condition",
    "node_conditions",
    "initial_node",
    "set_node_status",
    "update_default_labels",
    "node_status_has_changed",
    "should_post_node_status",
    "format_micro_time",
    "lease_renew_interval_seconds",
    "new_lease",
    "renew_lease",
]

#: Namespace of the node Leases (``v1.NamespaceNodeLease``).
NODE_LEASE_NAMESPACE = "kube-node-lease"
#: ``maxPods`` default.
DEFAULT_MAX_PODS = 110
#: ``nodeStatusUpdateFrequency`` default (10 s).
DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_SECONDS = 10.0
#: ``nodeStatusReportFrequency`` default (5 min).
DEFAULT_NODE_STATUS_REPORT_FREQUENCY_SECONDS = 300.0
#: ``nodeLeaseDurationSeconds`` default.
DEFAULT_NODE_LEASE_DURATION_SECONDS = 40
#: The Lease is renewed every ``leaseDuration`` × this (``nodelease.renewIntervalFraction``).
NODE_LEASE_RENEW_INTERVAL_FRACTION = 0.25
#: ``nodeStatusMaxImages`` default.
DEFAULT_NODE_STATUS_MAX_IMAGES = 50
#: ``nodestatus.MaxNamesPerImageInNodeStatus``.
MAX_NAMES_PER_IMAGE_IN_NODE_STATUS = 5
#: The kubelet's port (``ports.KubeletPort``).
KUBELET_PORT = 10250

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_OS_STABLE = "kubernetes.io/os"
LABEL_ARCH_STABLE = "kubernetes.io/arch"
LABEL_OS_BETA = "beta.kubernetes.io/os"
LABEL_ARCH_BETA = "beta.kubernetes.io/arch"
LABEL_INSTANCE_TYPE_STABLE = "node.kubernetes.io/instance-type"
LABEL_INSTANCE_TYPE = "beta.kubernetes.io/instance-type"
_LABEL_ZONE_STABLE = "topology.kubernetes.io/zone"
_LABEL_REGION_STABLE = "topology.kubernetes.io/region"
_LABEL_ZONE = "failure-domain.beta.kubernetes.io/zone"
_LABEL_REGION = "failure-domain.beta.kubernetes.io/region"
_LABEL_WINDOWS_BUILD = "node.kubernetes.io/windows-build"
#: Labels the kubelet owns on its Node (``updateDefaultLabels``).
_DEFAULT_LABELS = (LABEL_HOSTNAME, _LABEL_ZONE_STABLE, _LABEL_REGION_STABLE, _LABEL_ZONE, _LABEL_REGION,
                   LABEL_INSTANCE_TYPE_STABLE, LABEL_INSTANCE_TYPE, LABEL_OS_STABLE, LABEL_ARCH_STABLE,
                   _LABEL_WINDOWS_BUILD, LABEL_OS_BETA, LABEL_ARCH_BETA)
#: ``volutil.ControllerManagedAttachAnnotation``.
CONTROLLER_MANAGED_ATTACH_ANNOTATION = "volumes.kubernetes.io/controller-managed-attach-detach"

NODE_READY = "Ready"
NODE_MEMORY_PRESSURE = "MemoryPressure"
NODE_DISK_PRESSURE = "DiskPressure"
NODE_PID_PRESSURE = "PIDPressure"
KUBELET_READY = "KubeletReady"
KUBELET_NOT_READY = "KubeletNotReady"
KUBELET_READY_MESSAGE = "kubelet is posting ready status"
#: The kubelet's node event message (``recordNodeStatusEvent``): node name, event reason.
NODE_STATUS_EVENT_MESSAGE_FMT = "Node {} status is now: {}"
_MISSING_CAPACITY_FMT = "missing node capacity for resources: {}"

#: condition type -> (pressure reason, pressure message, event), (no-pressure reason, message, event)
_PRESSURE = {
    NODE_MEMORY_PRESSURE: (("KubeletHasInsufficientMemory", "kubelet has insufficient memory available",
                            "NodeHasInsufficientMemory"),
                           ("KubeletHasSufficientMemory", "kubelet has sufficient memory available",
                            "NodeHasSufficientMemory")),
    NODE_DISK_PRESSURE: (("KubeletHasDiskPressure", "kubelet has disk pressure", "NodeHasDiskPressure"),
                         ("KubeletHasNoDiskPressure", "kubelet has no disk pressure", "NodeHasNoDiskPressure")),
    NODE_PID_PRESSURE: (("KubeletHasInsufficientPID", "kubelet has insufficient PID available",
                         "NodeHasInsufficientPID"),
                        ("KubeletHasSufficientPID", "kubelet has sufficient PID available", "NodeHasSufficientPID")),
}


@dataclass
class MachineInfo:
    """What cAdvisor and the runtime report about the machine.

    Attributes
    ----------
    num_cores : int
    memory_capacity_bytes : int
    rootfs_capacity_bytes : int
        The filesystem holding ``/var/lib/kubelet`` (``ephemeral-storage`` capacity).
    hugepages : dict[str, int]
        Page size (``"2Mi"``, ``"1Gi"``) -> number of pages reserved.
    machine_id, system_uuid, boot_id : str
        Empty: derived from the node name.
    kernel_version, os_image, operating_system, architecture : str
    """

    num_cores: int = 4
    memory_capacity_bytes: int = 15990844 * 1024
    rootfs_capacity_bytes: int = 101203600 * 1024
    hugepages: dict[str, int] = field(default_factory=dict)
    machine_id: str = ""
    system_uuid: str = ""
    boot_id: str = ""
    kernel_version: str = "6.8.0-1015-generic"
    os_image: str = "Ubuntu 24.04.2 LTS"
    operating_system: str = "linux"
    architecture: str = "amd64"


@dataclass
class NodeConfig:
    """The kubelet flags and ``KubeletConfiguration`` fields the Node depends on.

    Attributes
    ----------
    node_name : str
    hostname : str
        Empty: the node name.
    node_ips : list of str
        ``--node-ip`` (one, or two for dual-stack).
    max_pods, pods_per_core : int
        ``maxPods`` (110) and ``podsPerCore`` (0: off).
    kube_reserved, system_reserved : dict[str, str]
        ``kubeReserved``/``systemReserved`` (``{"cpu": "100m", "memory": "256Mi"}``).
    eviction_hard : dict[str, str]
        ``evictionHard``; the defaults when None.
    node_labels : dict[str, str]
        ``--node-labels``.
    register_with_taints : list of dict
        ``registerWithTaints``.
    register_schedulable : bool
        False registers the node ``unschedulable`` with the ``node.kubernetes.io/unschedulable`` taint.
    external_cloud_provider : bool
        ``--cloud-provider=external``: the node starts with the
        ``node.cloudprovider.kubernetes.io/uninitialized`` taint until the cloud controller manager removes it.
    instance_type, zone, region : str
        From a cloud provider; labels only when given.
    provider_id : str
    kubelet_version : str
        Matches the API server's version.
    container_runtime_version : str
        ``<runtime>://<version>``.
    enable_controller_attach_detach : bool
    node_status_max_images : int
    """

    node_name: str = "node-1"
    hostname: str = ""
    node_ips: list[str] = field(default_factory=lambda: ["10.0.0.2"])
    max_pods: int = DEFAULT_MAX_PODS
    pods_per_core: int = 0
    kube_reserved: dict[str, str] = field(default_factory=dict)
    system_reserved: dict[str, str] = field(default_factory=dict)
    eviction_hard: dict[str, str] | None = None
    node_labels: dict[str, str] = field(default_factory=dict)
    register_with_taints: list[dict] = field(default_factory=list)
    register_schedulable: bool = True
    external_cloud_provider: bool = False
    instance_type: str = ""
    zone: str = ""
    region: str = ""
    provider_id: str = ""
    kubelet_version: str = SERVER_GIT_VERSION
    container_runtime_version: str = "containerd://2.1.0"
    enable_controller_attach_detach: bool = True
    node_status_max_images: int = DEFAULT_NODE_STATUS_MAX_IMAGES


def hard_eviction_reservation(eviction_hard: Mapping[str, str] | None,
                              capacity: Mapping[str, Quantity]) -> dict[str, Quantity]:
    """What the hard eviction thresholds hold back (``hardEvictionReservation``).

    ``memory.available`` reserves memory, ``nodefs.available`` reserves
    ephemeral-storage; other signals reserve nothing.

    Examples
    --------
    >>> cap = {"memory": Quantity.parse("10Gi"), "ephemeral-storage": Quantity.parse("100Gi")}
    >>> {k: str(v) for k, v in hard_eviction_reservation(None, cap).items()}
    {'memory': '100Mi', 'ephemeral-storage': '10737418400'}
    """
    thresholds = parse_threshold_config(
        eviction_hard=DEFAULT_EVICTION_HARD if eviction_hard is None else eviction_hard)
    out: dict[str, Quantity] = {}
    for t in thresholds:
        if t.grace_period_seconds:
            continue
        if t.signal == SIGNAL_MEMORY_AVAILABLE and "memory" in capacity:
            out["memory"] = get_threshold_quantity(t.value, capacity["memory"])
        elif t.signal == SIGNAL_NODE_FS_AVAILABLE and "ephemeral-storage" in capacity:
            out["ephemeral-storage"] = get_threshold_quantity(t.value, capacity["ephemeral-storage"])
    return out


def node_allocatable_reservation(capacity: Mapping[str, Quantity], kube_reserved: Mapping[str, str] | None = None,
                                 system_reserved: Mapping[str, str] | None = None,
                                 eviction_hard: Mapping[str, str] | None = None) -> dict[str, Quantity]:
    """system-reserved + kube-reserved + hard eviction, per resource of the capacity (``GetNodeAllocatableReservation``).

    Examples
    --------
    >>> cap = {"cpu": Quantity.parse("10"), "memory": Quantity.parse("10Gi")}
    >>> r = node_allocatable_reservation(cap, {"cpu": "100m", "memory": "100Mi"}, {"cpu": "50m", "memory": "50Mi"}, {})
    >>> {k: str(v) for k, v in r.items()}
    {'cpu': '150m', 'memory': '150Mi'}
    """
    eviction = hard_eviction_reservation(eviction_hard, capacity)
    out: dict[str, Quantity] = {}
    for name in capacity:
        value = Quantity.zero(DECIMAL_SI)
        for source in (system_reserved or {}, kube_reserved or {}):
            if name in source:
                value = value + Quantity.parse(source[name])
        if name in eviction:
            value = value + eviction[name]
        if value.sign() != 0:
            out[name] = value
    return out


def node_capacity(machine: MachineInfo, config: NodeConfig) -> dict[str, Quantity]:
    """``status.capacity`` (the ``MachineInfo`` setter): cpu, memory, pods, ephemeral-storage, hugepages-*.

    Examples
    --------
    >>> {k: str(v) for k, v in node_capacity(MachineInfo(num_cores=2, memory_capacity_bytes=8 * 2**30), NodeConfig()).items()}
    {'cpu': '2', 'ephemeral-storage': '101203600Ki', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', 'memory': '8Gi', 'pods': '110'}
    """
    pods = config.max_pods
    if config.pods_per_core > 0:
        pods = min(machine.num_cores * config.pods_per_core, config.max_pods)
    cap = {
        "cpu": Quantity(Decimal(machine.num_cores), DECIMAL_SI),
        "memory": Quantity(Decimal(machine.memory_capacity_bytes), BINARY_SI),
        "pods": Quantity(Decimal(pods), DECIMAL_SI),
        "ephemeral-storage": Quantity(Decimal(machine.rootfs_capacity_bytes), BINARY_SI),
    }
    sizes = dict.fromkeys(("1Gi", "2Mi"), 0)
    sizes.update(machine.hugepages)
    for size, count in sizes.items():
        cap[f"hugepages-{size}"] = Quantity(Quantity.parse(size).value * count, BINARY_SI)
    return dict(sorted(cap.items()))


def node_allocatable(capacity: Mapping[str, Quantity], config: NodeConfig) -> dict[str, Quantity]:
    """``status.allocatable`` = capacity − reservation, never negative, memory less the hugepages.

    Examples
    --------
    >>> cap = node_capacity(MachineInfo(num_cores=4, memory_capacity_bytes=16 * 2**30, hugepages={"2Mi": 512}),
    ...                     NodeConfig())
    >>> alloc = node_allocatable(cap, NodeConfig(kube_reserved={"cpu": "100m"}))
    >>> str(alloc["cpu"]), str(alloc["memory"]), str(alloc["pods"])
    ('3900m', '15260Mi', '110')
    """
    reservation = node_allocatable_reservation(capacity, config.kube_reserved, config.system_reserved,
                                               config.eviction_hard)
    out: dict[str, Quantity] = {}
    for name, value in capacity.items():
        v = value - reservation[name] if name in reservation else value
        out[name] = Quantity.zero(v.format) if v.sign() < 0 else v
    for name, value in capacity.items():
        if name.startswith("hugepages-") and "memory" in out:
            mem = out["memory"] - value
            out["memory"] = Quantity.zero(mem.format) if mem.sign() < 0 else mem
    return out


def node_addresses(config: NodeConfig) -> list[dict[str, str]]:
    """``status.addresses``: the node IPs as ``InternalIP``, then the ``Hostname``.

    Examples
    --------
    >>> node_addresses(NodeConfig(node_name="w1", node_ips=["10.0.0.5"]))
    [{'type': 'InternalIP', 'address': '10.0.0.5'}, {'type': 'Hostname', 'address': 'w1'}]
    """
    out = [{"type": "InternalIP", "address": ip} for ip in config.node_ips]
    out.append({"type": "Hostname", "address": config.hostname or config.node_name})
    return out


def _uuid(hexdigits: str) -> str:
    h = hexdigits
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def node_info(machine: MachineInfo, config: NodeConfig) -> dict[str, str]:
    """``status.nodeInfo`` (the ``MachineInfo`` and ``VersionInfo`` setters).

    Examples
    --------
    >>> info = node_info(MachineInfo(), NodeConfig())
    >>> info["kubeletVersion"], info["containerRuntimeVersion"], info["operatingSystem"]
    ('v1.33.0', 'containerd://2.1.0', 'linux')
    """
    ids = hashlib.sha256(config.node_name.encode()).hexdigest()
    return {
        "machineID": machine.machine_id or ids[:32],
        "systemUUID": machine.system_uuid or _uuid(ids[:32]),
        "bootID": machine.boot_id or _uuid(ids[32:]),
        "kernelVersion": machine.kernel_version,
        "osImage": machine.os_image,
        "containerRuntimeVersion": config.container_runtime_version,
        "kubeletVersion": config.kubelet_version,
        "kubeProxyVersion": "",  # deprecated, no omitempty: the API shows ""
        "operatingSystem": machine.operating_system,
        "architecture": machine.architecture,
    }


def node_images(images: Sequence[Mapping[str, Any]], max_images: int = DEFAULT_NODE_STATUS_MAX_IMAGES) -> list[dict]:
    """``status.images`` (the ``Images`` setter): biggest first, at most ``max_images``, 5 names each.

    Parameters
    ----------
    images : list of dict
        CRI ``Image`` records: ``repoTags``, ``repoDigests``, ``size`` (bytes).
    max_images : int
        ``nodeStatusMaxImages``; -1 for no limit.

    Examples
    --------
    >>> node_images([{"repoTags": ["busybox:1.36"], "repoDigests": ["busybox@sha256:1"], "size": 2_000_000},
    ...              {"repoTags": ["nginx:1.27"], "repoDigests": [], "size": 70_000_000}])
    [{'names': ['nginx:1.27'], 'sizeBytes': 70000000}, {'names': ['busybox@sha256:1', 'busybox:1.36'], 'sizeBytes': 2000000}]
    """
    ordered = sorted(images, key=lambda i: -int(i.get("size", 0)))
    if max_images >= 0:
        ordered = ordered[:max_images]
    out = []
    for img in ordered:
        names = list(img.get("repoDigests") or []) + list(img.get("repoTags") or [])
        out.append({"names": names[:MAX_NAMES_PER_IMAGE_IN_NODE_STATUS], "sizeBytes": int(img.get("size", 0))})
    return out


def _find(conditions: list[dict], ctype: str) -> dict | None:
    return next((c for c in conditions if c.get("type") == ctype), None)


def set_pressure_condition(conditions: list[dict], ctype: str, under_pressure: bool, now_text: str,
                           events: list[str] | None = None) -> list[dict]:
    """The ``MemoryPressure``/``DiskPressure``/``PIDPressure`` setter.

    Every call refreshes ``lastHeartbeatTime``; a change of status sets the
    reason and message, ``lastTransitionTime`` and appends the event reason
    (``NodeHasSufficientMemory``...) to ``events``.

    Examples
    --------
    >>> ev = []
    >>> c = set_pressure_condition([], "MemoryPressure", False, "t0", ev)[0]
    >>> c["status"], c["reason"], c["message"], ev
    ('False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available', ['NodeHasSufficientMemory'])
    """
    cond = _find(conditions, ctype)
    if cond is None:
        cond = {"type": ctype, "status": "Unknown"}
        conditions.append(cond)
    cond["lastHeartbeatTime"] = now_text
    (p_reason, p_message, p_event), (n_reason, n_message, n_event) = _PRESSURE[ctype]
    want, reason, message, event = (("True", p_reason, p_message, p_event) if under_pressure
                                    else ("False", n_reason, n_message, n_event))
    if cond.get("status") != want:
        cond.update(status=want, reason=reason, message=message, lastTransitionTime=now_text)
        if events is not None:
            events.append(event)
    return conditions


def _aggregate(errors: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message, or ``[a, b]``."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def set_ready_condition(conditions: list[dict], now_text: str, errors: Sequence[str] = (),
                        capacity: Mapping[str, Any] | None = None, events: list[str] | None = None) -> list[dict]:
    """The ``Ready`` setter: ``KubeletReady`` unless the runtime, network, storage or capacity report errors.

    Parameters
    ----------
    conditions : list of dict
        The node's conditions; changed in place.
    now_text : str
    errors : list of str
        Runtime/network/storage errors (``container runtime network not ready: ...``).
    capacity : dict, optional
        ``status.capacity``: cpu, memory and pods must be there.
    events : list, optional
        ``NodeReady``/``NodeNotReady`` appended on a change.

    Examples
    --------
    >>> c = set_ready_condition([], "t0", capacity={"cpu": "1", "memory": "1Gi", "pods": "110"})[0]
    >>> c["status"], c["reason"], c["message"]
    ('True', 'KubeletReady', 'kubelet is posting ready status')
    >>> set_ready_condition([], "t0", capacity={"cpu": "1"})[0]["message"]
    'missing node capacity for resources: memory, pods'
    """
    errs = list(errors)
    if capacity is not None:
        missing = [r for r in ("cpu", "memory", "pods") if r not in capacity]
        if missing:
            errs.append(_MISSING_CAPACITY_FMT.format(", ".join(missing)))
    if errs:
        new = {"type": NODE_READY, "status": "False", "reason": KUBELET_NOT_READY, "message": _aggregate(errs)}
    else:
        new = {"type": NODE_READY, "status": "True", "reason": KUBELET_READY, "message": KUBELET_READY_MESSAGE}
    new["lastHeartbeatTime"] = now_text
    cond = _find(conditions, NODE_READY)
    if cond is None:
        new["lastTransitionTime"] = now_text
        conditions.append(new)
        changed = True
    else:
        changed = cond.get("status") != new["status"]
        new["lastTransitionTime"] = now_text if changed else cond.get("lastTransitionTime", now_text)
        cond.clear()
        cond.update(new)
    if changed and events is not None:
        events.append("NodeReady" if new["status"] == "True" else "NodeNotReady")
    return conditions


def node_conditions(conditions: Sequence[Mapping[str, Any]], now_text: str, *, memory_pressure: bool = False,
                    disk_pressure: bool = False, pid_pressure: bool = False, errors: Sequence[str] = (),
                    capacity: Mapping[str, Any] | None = None,
                    events: list[str] | None = None) -> list[dict]:
    """All four conditions in the setters' order: MemoryPressure, DiskPressure, PIDPressure, Ready.

    Examples
    --------
    >>> [(c["type"], c["status"]) for c in node_conditions([], "t0", disk_pressure=True)]
    [('MemoryPressure', 'False'), ('DiskPressure', 'True'), ('PIDPressure', 'False'), ('Ready', 'True')]
    """
    out = deep_copy(list(conditions))
    set_pressure_condition(out, NODE_MEMORY_PRESSURE, memory_pressure, now_text, events)
    set_pressure_condition(out, NODE_DISK_PRESSURE, disk_pressure, now_text, events)
    set_pressure_condition(out, NODE_PID_PRESSURE, pid_pressure, now_text, events)
    set_ready_condition(out, now_text, errors, capacity, events)
    return out


def _quantities(q: Mapping[str, Quantity]) -> dict[str, str]:
    return {k: str(v) for k, v in q.items()}


def set_node_status(node: dict, machine: MachineInfo, config: NodeConfig, now: float, *,
                    images: Sequence[Mapping[str, Any]] = (), memory_pressure: bool = False,
                    disk_pressure: bool = False, pid_pressure: bool = False, errors: Sequence[str] = (),
                    events: list[str] | None = None,
                    format_time: Callable[[float], str] = format_timestamp) -> dict:
    """Run the status setters on ``node`` (``setNodeStatus``) and return it.

    Parameters
    ----------
    node : dict
        Changed in place.
    machine : MachineInfo
    config : NodeConfig
    now : float
        Virtual seconds.
    images : list of dict
        The runtime's images (see :func:`node_images`).
    memory_pressure, disk_pressure, pid_pressure : bool
        The eviction manager's ``IsUnderMemoryPressure``... answers.
    errors : list of str
        Runtime/network errors that make the node NotReady.
    events : list, optional
        Event reasons the setters record (``NodeHasSufficientMemory``, ``NodeReady``...).
    format_time : callable

    Returns
    -------
    dict

    Notes
    -----
    Volume limits, ``volumesInUse`` (the kubelet adds it from its volume manager,
    :meth:`kubenotes.kubelet.volumes.VolumeManager.volumes_in_use`), ``volumesAttached``
    (the attach/detach controller's), ``runtimeHandlers``,
    device-plugin and extended resources are left out; ``kubeProxyVersion``
    is not set (``DisableNodeKubeProxyVersion``).
    """
    status = node.setdefault("status", {})
    status["addresses"] = node_addresses(config)
    cap = node_capacity(machine, config)
    status["capacity"] = _quantities(cap)
    status["allocatable"] = _quantities(node_allocatable(cap, config))
    status["nodeInfo"] = node_info(machine, config)
    status["daemonEndpoints"] = {"kubeletEndpoint": {"Port": KUBELET_PORT}}
    status["images"] = node_images(images, config.node_status_max_images)
    status["features"] = {"supplementalGroupsPolicy": True}
    status["conditions"] = node_conditions(
        status.get("conditions") or [], format_time(now), memory_pressure=memory_pressure,
        disk_pressure=disk_pressure, pid_pressure=pid_pressure, errors=errors, capacity=status["capacity"],
        events=events)
    return node


def initial_node(machine: MachineInfo, config: NodeConfig, now: float, **status_kwargs: Any) -> dict:
    """The Node a kubelet creates with ``--register-node`` (``initialNode`` + ``setNodeStatus``).

    Parameters
    ----------
    machine : MachineInfo
    config : NodeConfig
    now : float
    **status_kwargs
        Passed to :func:`set_node_status`.

    Returns
    -------
    dict
        A ``v1`` Node: labels, annotations, taints, and the first status.

    Examples
    --------
    >>> n = initial_node(MachineInfo(), NodeConfig(node_name="w1", kube_reserved={"cpu": "100m"}), now=0)
    >>> sorted(n["metadata"]["labels"].items())[:3]
    [('beta.kubernetes.io/arch', 'amd64'), ('beta.kubernetes.io/os', 'linux'), ('kubernetes.io/arch', 'amd64')]
    >>> n["status"]["capacity"]["cpu"], n["status"]["allocatable"]["cpu"], n["status"]["allocatable"]["memory"]
    ('4', '3900m', '15888444Ki')
    """
    labels = {
        LABEL_HOSTNAME: config.hostname or config.node_name,
        LABEL_OS_STABLE: machine.operating_system,
        LABEL_ARCH_STABLE: machine.architecture,
        LABEL_OS_BETA: machine.operating_system,
        LABEL_ARCH_BETA: machine.architecture,
    }
    if config.instance_type:
        labels[LABEL_INSTANCE_TYPE] = labels[LABEL_INSTANCE_TYPE_STABLE] = config.instance_type
    if config.zone:
        labels[_LABEL_ZONE] = labels[_LABEL_ZONE_STABLE] = config.zone
    if config.region:
        labels[_LABEL_REGION] = labels[_LABEL_REGION_STABLE] = config.region
    labels.update(config.node_labels)
    taints = copy.deepcopy(config.register_with_taints)
    unschedulable = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    if not config.register_schedulable and not any(
            t.get("key") == unschedulable["key"] and t.get("effect") == unschedulable["effect"] for t in taints):
        taints.append(unschedulable)  # set at registration to avoid a scheduling race (kubernetes#63897)
    if config.external_cloud_provider:
        taints.append({"key": "node.cloudprovider.kubernetes.io/uninitialized", "value": "true",
                       "effect": "NoSchedule"})
    node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                            "metadata": {"name": config.node_name, "labels": labels}, "spec": {}}
    if not config.register_schedulable:
        node["spec"]["unschedulable"] = True
    if config.enable_controller_attach_detach:
        node["metadata"]["annotations"] = {CONTROLLER_MANAGED_ATTACH_ANNOTATION: "true"}
    if taints:
        node["spec"]["taints"] = taints
    if config.provider_id:
        node["spec"]["providerID"] = config.provider_id
    return set_node_status(node, machine, config, now, **status_kwargs)


def update_default_labels(initial: Mapping[str, Any], existing: dict) -> bool:
    """Reconcile the kubelet-owned labels of an already registered Node (``updateDefaultLabels``).

    A default label the initial node sets overwrites the existing value; one
    it does not set is removed.

    Returns
    -------
    bool
        Whether ``existing`` changed (and needs an update).

    Examples
    --------
    >>> existing = {"metadata": {"labels": {"kubernetes.io/hostname": "old", "team": "a",
    ...                                     "node.kubernetes.io/instance-type": "m5"}}}
    >>> update_default_labels({"metadata": {"labels": {"kubernetes.io/hostname": "new"}}}, existing)
    True
    >>> existing["metadata"]["labels"]
    {'kubernetes.io/hostname': 'new', 'team': 'a'}
    """
    want = (initial.get("metadata") or {}).get("labels") or {}
    labels = existing.setdefault("metadata", {}).setdefault("labels", {})
    changed = False
    for key in _DEFAULT_LABELS:
        if key in want:
            if labels.get(key) != want[key]:
                labels[key] = want[key]
                changed = True
        elif key in labels:
            del labels[key]
            changed = True
    return changed


def _without_heartbeats(status: Mapping[str, Any] | None) -> dict:
    # a view for comparison only: nothing is mutated, so no copy of the nested values is needed
    s = dict(status or {})
    conds = sorted(s.pop("conditions", None) or [], key=lambda c: c.get("type", ""))
    s["conditions"] = [{k: v for k, v in c.items() if k != "lastHeartbeatTime"} for c in conds]
    return s


def node_status_has_changed(original: Mapping[str, Any] | None, status: Mapping[str, Any] | None) -> bool:
    """Whether a status differs other than in heartbeat times (``nodeStatusHasChanged``).

    Examples
    --------
    >>> a = {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "t0"}]}
    >>> b = {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "t9"}]}
    >>> node_status_has_changed(a, b), node_status_has_changed(a, {"conditions": []})
    (False, True)
    """
    if original is None and status is None:
        return False
    if original is None or status is None:
        return True
    return _without_heartbeats(original) != _without_heartbeats(status)


def should_post_node_status(original: Mapping[str, Any] | None, status: Mapping[str, Any] | None, now: float,
                            last_report_seconds: float | None,
                            report_frequency_seconds: float = DEFAULT_NODE_STATUS_REPORT_FREQUENCY_SECONDS,
                            pod_cidr_changed: bool = False) -> bool:
    """Whether ``tryUpdateNodeStatus`` patches the status now.

    The status is computed every ``nodeStatusUpdateFrequency``; it is sent
    when it changed, or when ``nodeStatusReportFrequency`` passed since the
    last report.

    Examples
    --------
    >>> s = {"conditions": [{"type": "Ready", "status": "True"}]}
    >>> should_post_node_status(s, s, now=100, last_report_seconds=0)
    False
    >>> should_post_node_status(s, s, now=300, last_report_seconds=0)
    True
    """
    if last_report_seconds is None or now >= last_report_seconds + report_frequency_seconds:
        return True
    return pod_cidr_changed or node_status_has_changed(original, status)


def format_micro_time(seconds: float, epoch: _dt.datetime | None = None) -> str:
    """``metav1.MicroTime`` (microseconds), as Lease ``renewTime`` is written.

    Examples
    --------
    >>> format_micro_time(10.25)
    '2025-08-27T00:00:10.250000Z'
    """
    t = (epoch or current_epoch()) + _dt.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def lease_renew_interval_seconds(lease_duration_seconds: int = DEFAULT_NODE_LEASE_DURATION_SECONDS) -> float:
    """How often the kubelet renews its Lease: a quarter of its duration.

    Examples
    --------
    >>> lease_renew_interval_seconds(40)
    10.0
    """
    return lease_duration_seconds * NODE_LEASE_RENEW_INTERVAL_FRACTION


def new_lease(node_name: str, now: float, node_uid: str = "",
              lease_duration_seconds: int = DEFAULT_NODE_LEASE_DURATION_SECONDS,
              epoch: _dt.datetime | None = None) -> dict:
    """The node's Lease (``coordination.k8s.io/v1``) as the lease controller creates it.

    The owner reference to the Node is set once the Node (and its uid) is known.

    Examples
    --------
    >>> lease = new_lease("w1", 0, node_uid="abc")
    >>> lease["metadata"]["namespace"], lease["spec"]["holderIdentity"], lease["spec"]["leaseDurationSeconds"]
    ('kube-node-lease', 'w1', 40)
    >>> lease["metadata"]["ownerReferences"]
    [{'apiVersion': 'v1', 'kind': 'Node', 'name': 'w1', 'uid': 'abc'}]
    """
    meta: dict[str, Any] = {"name": node_name, "namespace": NODE_LEASE_NAMESPACE}
    if node_uid:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": node_uid}]
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
            "spec": {"holderIdentity": node_name, "leaseDurationSeconds": lease_duration_seconds,
                     "renewTime": format_micro_time(now, epoch)}}


def renew_lease(lease: Mapping[str, Any], node_name: str, now: float, node_uid: str = "",
                lease_duration_seconds: int = DEFAULT_NODE_LEASE_DURATION_SECONDS,
                epoch: _dt.datetime | None = None) -> dict:
    """A copy of ``lease`` renewed at ``now`` (``newLease`` from an existing one).

    Holder, duration and (when missing) the owner reference are set again, as upstream does.

    Examples
    --------
    >>> renewed = renew_lease(new_lease("w1", 0), "w1", 10, node_uid="abc")
    >>> renewed["spec"]["renewTime"], len(renewed["metadata"]["ownerReferences"])
    ('2025-08-27T00:00:10.000000Z', 1)
    """
    out = deep_copy(dict(lease))
    out.setdefault("spec", {}).update(holderIdentity=node_name, leaseDurationSeconds=lease_duration_seconds,
                                      renewTime=format_micro_time(now, epoch))
    meta = out.setdefault("metadata", {})
    if node_uid and not meta.get("ownerReferences"):
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": node_uid}]
    return out
