"""The pod status a kubelet writes: phase, container statuses and conditions.

Mirrors ``pkg/kubelet/kubelet_pods.go`` (``generateAPIPodStatus``,
``convertStatusToAPIStatus``, ``convertToAPIContainerStatuses``,
``getPhase``), ``pkg/kubelet/status/generate.go`` (the kubelet-owned pod
conditions) and ``pkg/kubelet/prober/prober_manager.go``
(``UpdatePodStatus``: the ``started`` and ``ready`` fields) of
kubernetes/kubernetes v1.34.

The kubelet's internal view of a pod is the runtime's view
(``kubecontainer.PodStatus``): a :class:`RuntimePodStatus` holding the
sandbox's IPs and one :class:`RuntimeContainerStatus` per container *instance*
(the current one and, after a restart, the previous one), plus what the
kubelet remembers beside it: the reason cache (why a container is waiting:
``CrashLoopBackOff``, ``ErrImagePull``...) and the probe results. From that,
:func:`generate_api_pod_status` computes the ``status`` a ``kubectl get pod
-o yaml`` prints.

Feature gates are at their v1.34 defaults: ``PodReadyToStartContainersCondition``,
``InPlacePodVerticalScaling``, ``RecursiveReadOnlyMounts`` and
``SupplementalGroupsPolicy`` on; ``ContainerRestartRules`` and
``ChangeContainerStatusOnKubeletRestart`` off.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/status/generate.go
kubernetes/kubernetes@v1.34.0 pkg/kubelet/prober/prober_manager.go (UpdatePodStatus)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/container/helpers.go (ShouldContainerBeRestarted)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (doBackOff)
https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from kubenotes.api.qos import pod_qos_class
from kubenotes.api.podutil import is_restartable_init_container
from kubenotes.kubelet.qos import is_static_pod
from kubenotes.apiserver.server import format_timestamp

__all__ = [
    "POD_PENDING",
    "POD_RUNNING",
    "POD_SUCCEEDED",
    "POD_FAILED",
    "CONTAINER_STATE_CREATED",
    "CONTAINER_STATE_RUNNING",
    "CONTAINER_STATE_EXITED",
    "CONTAINER_STATE_UNKNOWN",
    "CONTAINER_CREATING",
    "POD_INITIALIZING",
    "CONTAINER_REASON_STATUS_UNKNOWN",
    "REASON_COMPLETED",
    "REASON_ERROR",
    "REASON_OOM_KILLED",
    "UNKNOWN_CONTAINER_STATUSES",
    "POD_COMPLETED",
    "POD_FAILED_REASON",
    "CONTAINERS_NOT_READY",
    "CONTAINERS_NOT_INITIALIZED",
    "READINESS_GATES_NOT_READY",
    "POD_READY_TO_START_CONTAINERS",
    "POD_INITIALIZED",
    "CONTAINERS_READY",
    "POD_READY",
    "POD_SCHEDULED",
    "KUBELET_POD_CONDITIONS",
    "RuntimeContainerStatus",
    "RuntimePodStatus",
    "should_container_be_restarted",
    "terminated_reason",
    "convert_to_api_container_statuses",
    "update_probe_status",
    "get_phase",
    "generate_containers_ready_condition",
    "generate_pod_ready_condition",
    "generate_pod_initialized_condition",
    "generate_pod_ready_to_start_containers_condition",
    "generate_api_pod_status",
    "has_pod_initialized",
    "terminate_pod",
]

# --- pod phases (core/v1) -----------------------------------------------------------------------------------
POD_PENDING = "Pending"
POD_RUNNING = "Running"
POD_SUCCEEDED = "Succeeded"
POD_FAILED = "Failed"

# --- runtime container states (kubecontainer.State) ---------------------------------------------------------
CONTAINER_STATE_CREATED = "created"
CONTAINER_STATE_RUNNING = "running"
CONTAINER_STATE_EXITED = "exited"
CONTAINER_STATE_UNKNOWN = "unknown"

# --- waiting reasons (kubelet_pods.go, kubecontainer, images) -----------------------------------------------
#: Default waiting reason of a container of a pod without init containers.
CONTAINER_CREATING = "ContainerCreating"
#: Default waiting reason of a container of a pod with init containers.
POD_INITIALIZING = "PodInitializing"
#: ``kubecontainer.ContainerReasonStatusUnknown``.
CONTAINER_REASON_STATUS_UNKNOWN = "ContainerStatusUnknown"
#: Terminated reasons the CRI runtimes (containerd, CRI-O) report.
REASON_COMPLETED, REASON_ERROR, REASON_OOM_KILLED = "Completed", "Error", "OOMKilled"

_UNKNOWN_TERMINATED_MESSAGE = "The container could not be located when the pod was terminated"
_UNKNOWN_LAST_STATE_MESSAGE = (
    "The container could not be located when the pod was deleted.  The container used to be Running"
)
_INIT_COMPLETED_MESSAGE = (
    "Unable to get init container status from container runtime and pod has been initialized, "
    "treat it as exited normally"
)

# --- condition reasons (status/generate.go) -----------------------------------------------------------------
UNKNOWN_CONTAINER_STATUSES = "UnknownContainerStatuses"
POD_COMPLETED = "PodCompleted"
POD_FAILED_REASON = "PodFailed"
CONTAINERS_NOT_READY = "ContainersNotReady"
CONTAINERS_NOT_INITIALIZED = "ContainersNotInitialized"
READINESS_GATES_NOT_READY = "ReadinessGatesNotReady"

# --- condition types ----------------------------------------------------------------------------------------
POD_READY_TO_START_CONTAINERS = "PodReadyToStartContainers"
POD_INITIALIZED = "Initialized"
CONTAINERS_READY = "ContainersReady"
POD_READY = "Ready"
POD_SCHEDULED = "PodScheduled"
#: Conditions the kubelet owns (``kubetypes.PodConditionByKubelet``); others are preserved as they are.
KUBELET_POD_CONDITIONS = (POD_SCHEDULED, POD_READY, POD_INITIALIZED, CONTAINERS_READY, POD_READY_TO_START_CONTAINERS)


def _go_list(names: Sequence[str]) -> str:
    """Go's ``%s`` of a ``[]string``: ``[a b]``."""
    return "[" + " ".join(names) + "]"








def terminated_reason(exit_code: int, oom_killed: bool = False) -> str:
    """The reason a CRI runtime reports for an exited container (containerd/CRI-O).

    Examples
    --------
    >>> terminated_reason(0), terminated_reason(1), terminated_reason(137, oom_killed=True)
    ('Completed', 'Error', 'OOMKilled')
    """
    if oom_killed:
        return REASON_OOM_KILLED
    return REASON_COMPLETED if exit_code == 0 else REASON_ERROR


@dataclass
class RuntimeContainerStatus:
    """One container instance as the runtime reports it (``kubecontainer.Status``).

    Attributes
    ----------
    name : str
        The container's name in the pod spec.
    state : str
        ``created``, ``running``, ``exited`` or ``unknown``.
    id : str
        ``<runtime>://<id>`` (``containerd://3f2a...``).
    image, image_ref : str
        The image as asked for and its digest reference (``imageID`` in the API).
    created_at_seconds : float
        When the runtime created it (orders instances: the newest is the current one).
    started_at_seconds, finished_at_seconds : float or None
        Virtual times of start and exit.
    exit_code : int
    reason, message : str
        ``Completed``/``Error``/``OOMKilled`` and the runtime's message, for an exited container.
    restart_count : int
        The kubelet's count, carried on the container's labels (``io.kubernetes.container.restartCount``).
    user : dict or None
        ``{"linux": {"uid", "gid", "supplementalGroups"}}`` the process runs as, when the runtime reports it.
    """

    name: str
    state: str
    id: str = ""
    image: str = ""
    image_ref: str = ""
    created_at_seconds: float = 0.0
    started_at_seconds: float | None = None
    finished_at_seconds: float | None = None
    exit_code: int = 0
    reason: str = ""
    message: str = ""
    restart_count: int = 0
    user: dict | None = None


@dataclass
class RuntimePodStatus:
    """The runtime's view of one pod (``kubecontainer.PodStatus``).

    Attributes
    ----------
    ips : list of str
        The sandbox's IPs (primary first).
    container_statuses : list of RuntimeContainerStatus
        Every container instance the runtime still has, current and previous.
    sandbox_ready : bool
        A ready sandbox with its network exists (no new sandbox is needed).
    """

    ips: list[str] = field(default_factory=list)
    container_statuses: list[RuntimeContainerStatus] = field(default_factory=list)
    sandbox_ready: bool = False

    def find_container_status_by_name(self, name: str) -> RuntimeContainerStatus | None:
        """The newest instance of container ``name`` (``FindContainerStatusByName``)."""
        found = [c for c in self.container_statuses if c.name == name]
        return max(found, key=lambda c: c.created_at_seconds) if found else None


def _spec(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return pod.get("spec") or {}


def should_container_be_restarted(container: Mapping[str, Any], pod: Mapping[str, Any],
                                  pod_status: RuntimePodStatus) -> bool:
    """Whether the next sync would (re)start the container (``kubecontainer.ShouldContainerBeRestarted``).

    Notes
    -----
    A sidecar (restartable init container) follows its own ``restartPolicy:
    Always`` rather than the pod's; ``ContainerRestartRules`` (alpha, off) is
    not modelled.

    Examples
    --------
    >>> pod = {"spec": {"restartPolicy": "OnFailure"}}
    >>> st = RuntimePodStatus(container_statuses=[RuntimeContainerStatus("a", "exited", exit_code=0)])
    >>> should_container_be_restarted({"name": "a"}, pod, st), should_container_be_restarted({"name": "b"}, pod, st)
    (False, True)
    """
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    status = pod_status.find_container_status_by_name(container.get("name", ""))
    if status is None:
        return True
    if status.state == CONTAINER_STATE_RUNNING:
        return False
    if status.state in (CONTAINER_STATE_UNKNOWN, CONTAINER_STATE_CREATED):
        return True
    if is_restartable_init_container(container):
        return True
    policy = _spec(pod).get("restartPolicy", "Always")
    if policy == "Never":
        return False
    if policy == "OnFailure" and status.exit_code == 0:
        return False
    return True


def _time(seconds: float | None, fmt: Callable[[float], str]) -> str | None:
    return None if seconds is None else fmt(seconds)


def _convert_container_status(cs: RuntimeContainerStatus, old: Mapping[str, Any] | None,
                              fmt: Callable[[float], str]) -> dict:
    status: dict[str, Any] = {"name": cs.name, "restartCount": cs.restart_count, "image": cs.image,
                              "imageID": cs.image_ref, "containerID": cs.id, "lastState": {}}
    if old is not None and old.get("volumeMounts") is not None:
        status["volumeMounts"] = copy.deepcopy(old["volumeMounts"])
    if cs.state == CONTAINER_STATE_RUNNING:
        status["state"] = {"running": {"startedAt": _time(cs.started_at_seconds, fmt)}}
    elif cs.state == CONTAINER_STATE_CREATED:
        status["state"] = {"waiting": {}}
    elif cs.state == CONTAINER_STATE_EXITED:
        # metav1.Time is never omitted: a zero time is serialized as null
        term = {"exitCode": cs.exit_code, "reason": cs.reason, "message": cs.message,
                "startedAt": _time(cs.started_at_seconds, fmt), "finishedAt": _time(cs.finished_at_seconds, fmt),
                "containerID": cs.id}
        status["state"] = {"terminated": {k: v for k, v in term.items() if v != ""}}
    elif cs.state == CONTAINER_STATE_UNKNOWN and old is not None and (old.get("state") or {}).get("running"):
        status["state"] = {"terminated": {"exitCode": 137, "reason": CONTAINER_REASON_STATUS_UNKNOWN,
                                          "message": _UNKNOWN_TERMINATED_MESSAGE, "startedAt": None,
                                          "finishedAt": None}}
        status["restartCount"] = int(old.get("restartCount", 0)) + 1
    else:
        status["state"] = {"waiting": {}}
    return status


def _volume_mount_statuses(container: Mapping[str, Any]) -> list[dict] | None:
    mounts = []
    for vol in container.get("volumeMounts") or []:
        st: dict[str, Any] = {"name": vol.get("name"), "mountPath": vol.get("mountPath")}
        if vol.get("readOnly"):
            st["readOnly"] = True
            st["recursiveReadOnly"] = "Disabled"
        mounts.append(st)
    return mounts or None


def convert_to_api_container_statuses(
    pod: Mapping[str, Any],
    pod_status: RuntimePodStatus,
    previous_status: Sequence[Mapping[str, Any]] | None,
    containers: Sequence[Mapping[str, Any]],
    has_init_containers: bool,
    is_init_container: bool,
    reason_cache: Mapping[str, tuple[str, str]] | None = None,
    format_time: Callable[[float], str] = format_timestamp,
) -> list[dict]:
    """API ``containerStatuses`` (or ``initContainerStatuses``) from the runtime's view (``convertToAPIContainerStatuses``).

    Parameters
    ----------
    pod : dict
        The pod (its spec and ``metadata.deletionTimestamp``).
    pod_status : RuntimePodStatus
        The runtime's view.
    previous_status : list of dict or None
        The same list from the last status the kubelet wrote (restart counts
        and last states survive containers the runtime no longer has).
    containers : list of dict
        ``spec.containers`` or ``spec.initContainers``.
    has_init_containers : bool
        The pod has init containers (default waiting reason ``PodInitializing``
        rather than ``ContainerCreating``).
    is_init_container : bool
        Converting init containers (kept in spec order; exited-0 init containers are not waiting).
    reason_cache : dict, optional
        Container name -> ``(reason, message)`` of its last start failure, as
        the kubelet's ``ReasonCache`` holds it: ``CrashLoopBackOff`` from
        :func:`kubenotes.kubelet.backoff.do_back_off`, ``ErrImagePull`` /
        ``ImagePullBackOff`` from :class:`kubenotes.kubelet.backoff.ImagePullBackOff`...
    format_time : callable
        Virtual seconds -> ``metav1.Time`` string.

    Returns
    -------
    list of dict
        One ``ContainerStatus`` per container; regular ones sorted by name, init ones in spec order.
        ``ready`` is False and ``started`` unset: :func:`update_probe_status` fills them.

    Notes
    -----
    ``resources`` (``InPlacePodVerticalScaling``) are the spec's resources:
    the actual cgroup values the runtime reports are not modelled.

    Examples
    --------
    >>> pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a", "image": "nginx"}]}}
    >>> [s["state"] for s in convert_to_api_container_statuses(pod, RuntimePodStatus(), None,
    ...                                                       pod["spec"]["containers"], False, False)]
    [{'waiting': {'reason': 'ContainerCreating'}}]
    """
    reason_cache = reason_cache or {}
    old_statuses = {s["name"]: s for s in previous_status or []}
    default_waiting = {"waiting": {"reason": POD_INITIALIZING if has_init_containers else CONTAINER_CREATING}}
    statuses: dict[str, dict] = {}
    for container in containers:
        status: dict[str, Any] = {"name": container["name"], "image": container.get("image", ""),
                                  "imageID": "", "state": copy.deepcopy(default_waiting), "lastState": {},
                                  "ready": False, "restartCount": 0}
        mounts = _volume_mount_statuses(container)
        if mounts is not None:
            status["volumeMounts"] = mounts
        old = old_statuses.get(container["name"])
        if old is not None:
            if (old.get("state") or {}).get("terminated") is not None:
                status = copy.deepcopy(dict(old))
            else:
                status["restartCount"] = old.get("restartCount", 0)
                status["lastState"] = copy.deepcopy(old.get("lastState") or {})
        statuses[container["name"]] = status

    runtime_names = {c.name for c in pod_status.container_statuses}
    deleted = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
    for container in containers:
        name = container["name"]
        if name in runtime_names or name not in old_statuses:
            continue
        old_state = old_statuses[name].get("state") or {}
        if old_state.get("terminated") is not None or old_state.get("running") is None:
            continue
        status = statuses[name]
        waiting = (status.get("state") or {}).get("waiting")
        if waiting is None or waiting.get("reason") != default_waiting["waiting"]["reason"]:
            continue
        if (status.get("lastState") or {}).get("terminated") is not None:
            continue
        # it was running and the runtime lost it: show it stopped rather than waiting, or the pod turns Pending
        status["lastState"] = {"terminated": {"exitCode": 137, "reason": CONTAINER_REASON_STATUS_UNKNOWN,
                                              "message": _UNKNOWN_LAST_STATE_MESSAGE, "startedAt": None,
                                              "finishedAt": None}}
        if not deleted:
            status["restartCount"] = status.get("restartCount", 0) + 1

    seen: dict[str, int] = {}
    spec_by_name = {c["name"]: c for c in containers}
    for cs in sorted(pod_status.container_statuses, key=lambda c: c.created_at_seconds, reverse=True):
        if cs.name not in statuses or seen.get(cs.name, 0) >= 2:
            continue
        old = old_statuses.get(cs.name)
        status = _convert_container_status(cs, old, format_time)
        if "volumeMounts" not in status and "volumeMounts" in statuses[cs.name]:
            status["volumeMounts"] = statuses[cs.name]["volumeMounts"]
        if cs.state == CONTAINER_STATE_RUNNING and old is not None and old.get("started") is not None:
            status["started"] = old["started"]
        resources = copy.deepcopy(spec_by_name[cs.name].get("resources") or {})
        status["resources"] = resources
        if resources.get("requests"):
            status["allocatedResources"] = copy.deepcopy(resources["requests"])
        if cs.user is not None:
            status["user"] = copy.deepcopy(cs.user)
        status["ready"] = False
        if seen.get(cs.name, 0) == 0:
            if not status["containerID"]:
                del status["containerID"]
            statuses[cs.name] = status
        else:
            statuses[cs.name]["lastState"] = status["state"]
        seen[cs.name] = seen.get(cs.name, 0) + 1

    for container in containers:
        name = container["name"]
        if is_init_container:
            s = pod_status.find_container_status_by_name(name)
            if s is not None and s.state == CONTAINER_STATE_EXITED and s.exit_code == 0:
                continue
            regular_created = any(pod_status.find_container_status_by_name(c["name"]) is not None
                                  for c in _spec(pod).get("containers") or [])
            if (s is None and regular_created and not is_restartable_init_container(container)
                    and (statuses[name].get("state") or {}).get("waiting") is not None):
                statuses[name]["state"] = {"terminated": {"exitCode": 0, "reason": REASON_COMPLETED,
                                                          "message": _INIT_COMPLETED_MESSAGE,
                                                          "startedAt": None, "finishedAt": None}}
                continue
        if not should_container_be_restarted(container, pod, pod_status):
            continue
        if name not in reason_cache:
            continue
        status = statuses[name]
        if (status.get("state") or {}).get("terminated") is not None:
            status["lastState"] = status["state"]
        reason, message = reason_cache[name]
        waiting = {"reason": reason}
        if message:
            waiting["message"] = message
        status["state"] = {"waiting": waiting}

    if is_init_container:
        return [statuses[c["name"]] for c in containers]
    return [statuses[n] for n in sorted(statuses)]


def _is_success(result: Any) -> bool:
    return result is True or (isinstance(result, str) and result.lower() == "success")


def _probe_started(container: Mapping[str, Any], status: Mapping[str, Any],
                   startup_results: Mapping[str, bool]) -> bool:
    if (status.get("state") or {}).get("running") is None:
        return False
    name = container["name"]
    if name in startup_results:
        return _is_success(startup_results[name])
    return container.get("startupProbe") is None  # no worker: started as soon as it runs


def _probe_ready(container: Mapping[str, Any], status: Mapping[str, Any],
                 readiness_results: Mapping[str, bool]) -> bool:
    if (status.get("state") or {}).get("running") is None:
        return False
    name = container["name"]
    if _is_success(readiness_results.get(name)):
        return True
    return container.get("readinessProbe") is None and name not in readiness_results


def update_probe_status(pod: Mapping[str, Any], status: dict,
                        readiness_results: Mapping[str, bool] | None = None,
                        startup_results: Mapping[str, bool] | None = None) -> dict:
    """Set each container status's ``started`` and ``ready`` from the probe results (prober ``UpdatePodStatus``).

    Parameters
    ----------
    pod : dict
    status : dict
        A ``PodStatus`` with ``containerStatuses``/``initContainerStatuses``; changed in place.
    readiness_results, startup_results : dict, optional
        Container name -> latest result (True or ``"success"`` for success;
        False, ``"failure"``, ``"unknown"`` otherwise), e.g. from
        :meth:`kubenotes.kubelet.prober.ProberManager.readiness`. A container with a
        probe and no result yet is not ready (not started); one without the
        probe is ready (started) as soon as it runs.

    Returns
    -------
    dict
        ``status``.

    Notes
    -----
    A regular init container is ``ready`` once it exited 0; a sidecar is
    ``ready`` like a regular container (after it started).

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "a", "readinessProbe": {}}]}}
    >>> st = {"containerStatuses": [{"name": "a", "state": {"running": {}}, "ready": False}]}
    >>> [(c["started"], c["ready"]) for c in update_probe_status(pod, st)["containerStatuses"]]
    [(True, False)]
    >>> update_probe_status(pod, st, readiness_results={"a": True})["containerStatuses"][0]["ready"]
    True
    """
    readiness_results = readiness_results or {}
    startup_results = startup_results or {}
    spec = _spec(pod)
    by_name = {c["name"]: c for c in spec.get("containers") or []}
    for cs in status.get("containerStatuses") or []:
        container = by_name.get(cs["name"], {"name": cs["name"]})
        started = _probe_started(container, cs, startup_results)
        cs["started"] = started
        cs["ready"] = started and _probe_ready(container, cs, readiness_results)
    init_by_name = {c["name"]: c for c in spec.get("initContainers") or []}
    for cs in status.get("initContainerStatuses") or []:
        container = init_by_name.get(cs["name"], {"name": cs["name"]})
        started = _probe_started(container, cs, startup_results)
        cs["started"] = started
        if not is_restartable_init_container(container):
            term = (cs.get("state") or {}).get("terminated")
            cs["ready"] = bool(term is not None and term.get("exitCode") == 0)
            continue
        cs["ready"] = started and _probe_ready(container, cs, readiness_results)
    return status


def _status_by_name(statuses: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {s["name"]: s for s in statuses}


def get_phase(pod: Mapping[str, Any], info: Sequence[Mapping[str, Any]], pod_is_terminal: bool = False,
              pod_has_initialized: bool = False) -> str:
    """A pod's phase from its API container statuses (``getPhase``).

    Parameters
    ----------
    pod : dict
        The pod (``spec.restartPolicy``, containers, init containers).
    info : list of dict
        All ``ContainerStatus`` entries, regular and init together.
    pod_is_terminal : bool
        The kubelet has decided the pod is done (deleted, evicted,
        ``activeDeadlineSeconds``): stopped containers give Succeeded/Failed
        whatever the restart policy (except for static pods).
    pod_has_initialized : bool
        A regular container has started before, so a restarting sidecar does
        not put the pod back to Pending.

    Returns
    -------
    str
        ``Pending``, ``Running``, ``Succeeded`` or ``Failed``.

    Examples
    --------
    >>> pod = {"spec": {"restartPolicy": "Never", "containers": [{"name": "a"}]}}
    >>> get_phase(pod, [{"name": "a", "state": {"terminated": {"exitCode": 1}}}])
    'Failed'
    >>> get_phase(pod, [{"name": "a", "state": {"waiting": {"reason": "ContainerCreating"}}}])
    'Pending'
    """
    spec = _spec(pod)
    statuses = _status_by_name(info)
    pending_restartable_init = pending_regular_init = failed_initialization = 0
    for container in spec.get("initContainers") or []:
        if is_restartable_init_container(container):
            continue
        cs = statuses.get(container["name"])
        if cs is None:
            pending_regular_init += 1
            continue
        state = cs.get("state") or {}
        last = (cs.get("lastState") or {}).get("terminated")
        if state.get("running") is not None:
            pending_regular_init += 1
        elif state.get("terminated") is not None:
            if state["terminated"].get("exitCode", 0) != 0:
                failed_initialization += 1
        elif state.get("waiting") is not None:
            if last is not None:
                if last.get("exitCode", 0) != 0:
                    failed_initialization += 1
            else:
                pending_regular_init += 1
        else:
            pending_regular_init += 1

    unknown = running = waiting = stopped = succeeded = 0
    for container in spec.get("initContainers") or []:
        if not is_restartable_init_container(container):
            continue
        cs = statuses.get(container["name"])
        if cs is None:
            unknown += 1
            continue
        state = cs.get("state") or {}
        if state.get("running") is not None:
            if not cs.get("started"):
                pending_restartable_init += 1
            running += 1
        elif state.get("terminated") is not None:
            pass  # a stopped sidecar does not count for the phase
        elif state.get("waiting") is not None:
            if (cs.get("lastState") or {}).get("terminated") is None:
                pending_restartable_init += 1
                waiting += 1
        else:
            pending_restartable_init += 1
            unknown += 1

    for container in spec.get("containers") or []:
        cs = statuses.get(container["name"])
        if cs is None:
            unknown += 1
            continue
        state = cs.get("state") or {}
        if state.get("running") is not None:
            running += 1
        elif state.get("terminated") is not None:
            stopped += 1
            if state["terminated"].get("exitCode", 0) == 0:
                succeeded += 1
        elif state.get("waiting") is not None:
            if (cs.get("lastState") or {}).get("terminated") is not None:
                stopped += 1
            else:
                waiting += 1
        else:
            unknown += 1

    restart_policy = spec.get("restartPolicy", "Always")
    if failed_initialization > 0 and restart_policy == "Never":
        return POD_FAILED
    if pending_regular_init > 0 or (pending_restartable_init > 0 and not pod_has_initialized) or waiting > 0:
        return POD_PENDING
    if running > 0 and unknown == 0:
        return POD_RUNNING
    if running == 0 and stopped > 0 and unknown == 0:
        if pod_is_terminal and not is_static_pod(pod):
            return POD_SUCCEEDED if stopped == succeeded else POD_FAILED
        if restart_policy == "Always":
            return POD_RUNNING
        if stopped == succeeded:
            return POD_SUCCEEDED
        if restart_policy == "Never":
            return POD_FAILED
        return POD_RUNNING
    return POD_PENDING


def _condition(ctype: str, status: str, reason: str = "", message: str = "") -> dict:
    c = {"type": ctype, "status": status}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


def generate_containers_ready_condition(pod: Mapping[str, Any], container_statuses: Sequence[Mapping[str, Any]] | None,
                                        pod_phase: str) -> dict:
    """The ``ContainersReady`` condition (``GenerateContainersReadyCondition``).

    True when every regular container and every sidecar is ready; False with
    ``ContainersNotReady`` and ``containers with unready status: [a b]``
    (and/or ``containers with unknown status: [...]``); ``PodCompleted`` /
    ``PodFailed`` for a terminal pod.

    Parameters
    ----------
    pod : dict
    container_statuses : list of dict or None
        Init and regular statuses together; None when unknown.
    pod_phase : str

    Returns
    -------
    dict
        The condition (``type``, ``status``, ``reason``, ``message``; no times yet).

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "a"}, {"name": "b"}]}}
    >>> generate_containers_ready_condition(pod, [{"name": "a", "ready": False}, {"name": "b", "ready": False}], "Running")
    {'type': 'ContainersReady', 'status': 'False', 'reason': 'ContainersNotReady', 'message': 'containers with unready status: [a b]'}
    """
    if container_statuses is None:
        return _condition(CONTAINERS_READY, "False", UNKNOWN_CONTAINER_STATUSES)
    statuses = _status_by_name(container_statuses)
    unknown: list[str] = []
    unready: list[str] = []
    spec = _spec(pod)
    wanted = [c for c in spec.get("initContainers") or [] if is_restartable_init_container(c)]
    wanted += list(spec.get("containers") or [])
    for container in wanted:
        cs = statuses.get(container["name"])
        if cs is None:
            unknown.append(container["name"])
        elif not cs.get("ready"):
            unready.append(container["name"])
    if pod_phase == POD_SUCCEEDED and not unknown:
        return _condition(CONTAINERS_READY, "False", POD_COMPLETED)
    if pod_phase == POD_FAILED:
        return _condition(CONTAINERS_READY, "False", POD_FAILED_REASON)
    messages = []
    if unknown:
        messages.append(f"containers with unknown status: {_go_list(unknown)}")
    if unready:
        messages.append(f"containers with unready status: {_go_list(unready)}")
    if messages:
        return _condition(CONTAINERS_READY, "False", CONTAINERS_NOT_READY, ", ".join(messages))
    return _condition(CONTAINERS_READY, "True")


def generate_pod_ready_condition(pod: Mapping[str, Any], conditions: Sequence[Mapping[str, Any]],
                                 container_statuses: Sequence[Mapping[str, Any]] | None, pod_phase: str) -> dict:
    """The ``Ready`` condition (``GeneratePodReadyCondition``): ContainersReady and every readiness gate.

    Parameters
    ----------
    pod : dict
    conditions : list of dict
        The pod's other conditions (readiness gates are looked up there).
    container_statuses : list of dict or None
    pod_phase : str

    Returns
    -------
    dict

    Examples
    --------
    >>> pod = {"spec": {"containers": [{"name": "a"}], "readinessGates": [{"conditionType": "example.com/lb"}]}}
    >>> generate_pod_ready_condition(pod, [], [{"name": "a", "ready": True}], "Running")["message"]
    'corresponding condition of pod readiness gate "example.com/lb" does not exist.'
    """
    containers_ready = generate_containers_ready_condition(pod, container_statuses, pod_phase)
    if containers_ready["status"] != "True":
        return _condition(POD_READY, containers_ready["status"], containers_ready.get("reason", ""),
                          containers_ready.get("message", ""))
    by_type = {c.get("type"): c for c in conditions}
    messages = []
    for gate in _spec(pod).get("readinessGates") or []:
        ctype = gate.get("conditionType", "")
        c = by_type.get(ctype)
        if c is None:
            messages.append(f'corresponding condition of pod readiness gate "{ctype}" does not exist.')
        elif c.get("status") != "True":
            messages.append(f'the status of pod readiness gate "{ctype}" is not "True", but {c.get("status")}')
    if messages:
        return _condition(POD_READY, "False", READINESS_GATES_NOT_READY, ", ".join(messages))
    return _condition(POD_READY, "True")


def _has_any_regular_container_started(pod: Mapping[str, Any], statuses: Mapping[str, Mapping[str, Any]]) -> bool:
    for container in _spec(pod).get("containers") or []:
        cs = statuses.get(container["name"])
        if cs is None:
            continue
        state = cs.get("state") or {}
        if state.get("running") is not None or state.get("terminated") is not None:
            return True
    return False


def generate_pod_initialized_condition(pod: Mapping[str, Any], container_statuses: Sequence[Mapping[str, Any]] | None,
                                       pod_phase: str) -> dict:
    """The ``Initialized`` condition (``GeneratePodInitializedCondition``).

    A regular init container counts once ``ready`` (exited 0), a sidecar once
    ``started``; False with ``ContainersNotInitialized`` and ``containers with
    incomplete status: [init]`` until then.

    Examples
    --------
    >>> pod = {"spec": {"initContainers": [{"name": "init"}], "containers": [{"name": "a"}]}}
    >>> sts = [{"name": "init", "ready": False, "state": {"running": {}}},
    ...        {"name": "a", "ready": False, "state": {"waiting": {"reason": "PodInitializing"}}}]
    >>> generate_pod_initialized_condition(pod, sts, "Pending")["message"]
    'containers with incomplete status: [init]'
    """
    init_containers = _spec(pod).get("initContainers") or []
    if container_statuses is None and init_containers:
        return _condition(POD_INITIALIZED, "False", UNKNOWN_CONTAINER_STATUSES)
    statuses = _status_by_name(container_statuses or [])
    unknown: list[str] = []
    incomplete: list[str] = []
    for container in init_containers:
        cs = statuses.get(container["name"])
        if cs is None:
            unknown.append(container["name"])
            continue
        if is_restartable_init_container(container):
            done = bool(cs.get("started"))
        else:
            done = bool(cs.get("ready"))
        if not done:
            incomplete.append(container["name"])
    if pod_phase == POD_SUCCEEDED and not unknown:
        return _condition(POD_INITIALIZED, "True", POD_COMPLETED)
    if _has_any_regular_container_started(pod, statuses):
        return _condition(POD_INITIALIZED, "True")
    messages = []
    if unknown:
        messages.append(f"containers with unknown status: {_go_list(unknown)}")
    if incomplete:
        messages.append(f"containers with incomplete status: {_go_list(incomplete)}")
    if messages:
        return _condition(POD_INITIALIZED, "False", CONTAINERS_NOT_INITIALIZED, ", ".join(messages))
    return _condition(POD_INITIALIZED, "True")


def generate_pod_ready_to_start_containers_condition(pod_status: RuntimePodStatus) -> dict:
    """``PodReadyToStartContainers``: True once the sandbox and its network are up.

    Examples
    --------
    >>> generate_pod_ready_to_start_containers_condition(RuntimePodStatus(sandbox_ready=True))["status"]
    'True'
    """
    return _condition(POD_READY_TO_START_CONTAINERS, "True" if pod_status.sandbox_ready else "False")


def _with_times(new: dict, old_conditions: Mapping[str, Mapping[str, Any]], now_text: str) -> dict:
    """``lastTransitionTime`` kept while the status is unchanged (status manager ``updateLastTransitionTime``)."""
    old = old_conditions.get(new["type"])
    new = dict(new)
    new["lastProbeTime"] = None
    if old is not None and old.get("status") == new["status"] and old.get("lastTransitionTime"):
        new["lastTransitionTime"] = old["lastTransitionTime"]
    else:
        new["lastTransitionTime"] = now_text
    return new


def generate_api_pod_status(
    pod: Mapping[str, Any],
    pod_status: RuntimePodStatus,
    *,
    now: float,
    host_ips: Sequence[str] = (),
    pod_is_terminal: bool = False,
    old_status: Mapping[str, Any] | None = None,
    reason_cache: Mapping[str, tuple[str, str]] | None = None,
    readiness_results: Mapping[str, bool] | None = None,
    startup_results: Mapping[str, bool] | None = None,
    start_time: float | None = None,
    format_time: Callable[[float], str] = format_timestamp,
) -> dict:
    """The ``status`` the kubelet writes for a pod (``generateAPIPodStatus``).

    Parameters
    ----------
    pod : dict
        The pod as the kubelet has it (spec; ``status`` as last seen in the API).
    pod_status : RuntimePodStatus
        The runtime's view.
    now : float
        Virtual seconds (condition transition times).
    host_ips : list of str
        The node's IPs (``hostIP``/``hostIPs``; a ``hostNetwork`` pod's IPs too).
    pod_is_terminal : bool
        See :func:`get_phase`.
    old_status : dict, optional
        The status the kubelet wrote last (status manager cache); defaults to ``pod["status"]``.
    reason_cache, readiness_results, startup_results : dict, optional
        See :func:`convert_to_api_container_statuses` and :func:`update_probe_status`.
    start_time : float, optional
        When the kubelet first acknowledged the pod (``startTime``); kept from the old status when set there.
    format_time : callable
        Virtual seconds -> ``metav1.Time`` string.

    Returns
    -------
    dict
        A ``PodStatus``: ``phase``, ``conditions``, ``hostIP(s)``, ``podIP(s)``, ``startTime``,
        ``initContainerStatuses``, ``containerStatuses``, ``qosClass`` (and ``reason``/``message`` kept with the phase).

    Notes
    -----
    Ephemeral containers, pod resize conditions, ``observedGeneration`` and
    the ``HostIPsIPFamilyMismatch`` event are left out. Pod IPs are taken in
    the runtime's order (``sortPodIPs`` would order them by the node's family).
    ``pod_has_initialized`` is derived from the runtime statuses.

    Examples
    --------
    >>> pod = {"metadata": {"name": "p", "namespace": "default", "uid": "u"},
    ...        "spec": {"containers": [{"name": "a", "image": "nginx"}]}}
    >>> rt = RuntimePodStatus(ips=["10.244.1.5"], sandbox_ready=True, container_statuses=[
    ...     RuntimeContainerStatus("a", "running", id="containerd://1", image="nginx", started_at_seconds=3.0)])
    >>> st = generate_api_pod_status(pod, rt, now=4.0, host_ips=["10.0.0.2"], start_time=1.0)
    >>> st["phase"], [(c["type"], c["status"]) for c in st["conditions"]]
    ('Running', [('PodReadyToStartContainers', 'True'), ('Initialized', 'True'), ('Ready', 'True'), ('ContainersReady', 'True'), ('PodScheduled', 'True')])
    >>> st["podIP"], st["hostIP"], st["qosClass"], st["containerStatuses"][0]["state"]
    ('10.244.1.5', '10.0.0.2', 'BestEffort', {'running': {'startedAt': '2025-08-27T00:00:03Z'}})
    """
    api_status = pod.get("status") or {}
    old = old_status if old_status is not None else api_status
    spec = _spec(pod)
    has_init = bool(spec.get("initContainers"))
    s: dict[str, Any] = {}
    if pod_status.ips:
        s["podIPs"] = [{"ip": ip} for ip in pod_status.ips]
        s["podIP"] = pod_status.ips[0]
    s["qosClass"] = pod_qos_class(pod)
    s["containerStatuses"] = convert_to_api_container_statuses(
        pod, pod_status, old.get("containerStatuses"), spec.get("containers") or [], has_init, False,
        reason_cache, format_time)
    if has_init:
        s["initContainerStatuses"] = convert_to_api_container_statuses(
            pod, pod_status, old.get("initContainerStatuses"), spec.get("initContainers") or [], has_init, True,
            reason_cache, format_time)
    all_statuses = list(s["containerStatuses"]) + list(s.get("initContainerStatuses") or [])
    regular = {c["name"] for c in spec.get("containers") or []}
    has_initialized = any(c.name in regular and c.started_at_seconds is not None
                          for c in pod_status.container_statuses)
    # upstream computes the phase before the prober fills started/ready: a sidecar's ``started`` here is the
    # one kept from the previous status, so a pod waits one more sync for a sidecar that just started
    phase = get_phase(pod, all_statuses, pod_is_terminal, has_initialized)
    terminal = (POD_FAILED, POD_SUCCEEDED)
    if phase not in terminal:
        if old.get("phase") in terminal:
            phase = old["phase"]
        elif api_status.get("phase") in terminal:
            phase = api_status["phase"]
    if api_status.get("phase") in terminal:
        phase = api_status["phase"]  # no transitions out of a terminal phase
    s["phase"] = phase
    if phase == old.get("phase"):
        for key in ("reason", "message"):
            value = old.get(key) or api_status.get(key)
            if value:
                s[key] = value

    update_probe_status(pod, s, readiness_results, startup_results)
    old_conditions = {c.get("type"): c for c in old.get("conditions") or []}
    conditions = [copy.deepcopy(c) for c in api_status.get("conditions") or []
                  if c.get("type") not in KUBELET_POD_CONDITIONS]
    disruption = old_conditions.get("DisruptionTarget")
    if disruption is not None:
        conditions = [c for c in conditions if c.get("type") != "DisruptionTarget"] + [copy.deepcopy(disruption)]
    now_text = format_time(now)
    generated = [generate_pod_ready_to_start_containers_condition(pod_status)]
    ordered_statuses = list(s.get("initContainerStatuses") or []) + list(s["containerStatuses"])
    generated.append(generate_pod_initialized_condition(pod, ordered_statuses, phase))
    generated.append(generate_pod_ready_condition(pod, conditions + generated, ordered_statuses, phase))
    generated.append(generate_containers_ready_condition(pod, ordered_statuses, phase))
    scheduled = old_conditions.get(POD_SCHEDULED) or next(
        (c for c in api_status.get("conditions") or [] if c.get("type") == POD_SCHEDULED), None)
    generated_times = [_with_times(c, old_conditions, now_text) for c in generated]
    if scheduled is not None and scheduled.get("status") == "True":
        generated_times.append(copy.deepcopy(dict(scheduled)))
    else:
        generated_times.append(_with_times(_condition(POD_SCHEDULED, "True"), old_conditions, now_text))
    s["conditions"] = conditions + generated_times

    if host_ips:
        s["hostIP"] = host_ips[0]
        s["hostIPs"] = [{"ip": ip} for ip in host_ips[:2]]
        if spec.get("hostNetwork") and not s.get("podIP"):
            s["podIP"] = host_ips[0]
            s["podIPs"] = [{"ip": ip} for ip in host_ips[:2]]
    if old.get("startTime"):
        s["startTime"] = old["startTime"]
    elif start_time is not None:
        s["startTime"] = format_time(start_time)
    return s


def has_pod_initialized(pod: Mapping[str, Any]) -> bool:
    """Whether the pod shows evidence of having started a regular container (``hasPodInitialized``).

    A pod without init containers always has; otherwise a regular container
    that left ``waiting`` (or has a last termination), or a last init
    container that completed with exit code 0 (a sidecar: that started).

    Examples
    --------
    >>> has_pod_initialized({"spec": {"containers": [{"name": "a"}]}})
    True
    >>> has_pod_initialized({"spec": {"initContainers": [{"name": "i"}], "containers": [{"name": "a"}]},
    ...                      "status": {"containerStatuses": [{"name": "a", "state": {"waiting": {}}}]}})
    False
    """
    spec, status = _spec(pod), pod.get("status") or {}
    init = spec.get("initContainers") or []
    if not init:
        return True
    for cs in status.get("containerStatuses") or []:
        if (cs.get("lastState") or {}).get("terminated") is not None or (cs.get("state") or {}).get("waiting") is None:
            return True
    init_statuses = status.get("initContainerStatuses") or []
    if init_statuses:
        last = init_statuses[-1]
        container = next((c for c in init if c.get("name") == last.get("name")), None)
        if container is None:
            return False
        if is_restartable_init_container(container):
            return bool(last.get("started"))
        term = (last.get("state") or {}).get("terminated")
        return term is not None and term.get("exitCode", 0) == 0
    return False


def _initialized_prefix(statuses: Sequence[Mapping[str, Any]]) -> int:
    """How many init container statuses have tried to start (``initializedContainers``; at least one)."""
    for i in range(len(statuses) - 1, -1, -1):
        cs = statuses[i]
        if (cs.get("state") or {}).get("waiting") is None or (cs.get("lastState") or {}).get("terminated") is not None:
            return i + 1
    return min(1, len(statuses))


def terminate_pod(pod: Mapping[str, Any], status: Mapping[str, Any]) -> dict:
    """The status manager's ``TerminatePod``: the last status of a pod whose containers are all stopped.

    A container status that is not ``terminated`` is reported terminated with
    ``ContainerStatusUnknown``, exit code 137 and "The container could not be
    located when the pod was terminated" (regular containers once the pod has
    initialized, :func:`has_pod_initialized`; init containers up to the last
    one that tried to start), because the kubelet cannot know it succeeded;
    a ``Pending`` or ``Running`` phase becomes ``Failed`` (not for static pods).

    Parameters
    ----------
    pod : dict
        The pod as the API has it (spec, ``status`` for :func:`has_pod_initialized`).
    status : dict
        The last generated status (``generate_api_pod_status(..., pod_is_terminal=True)``).

    Returns
    -------
    dict
        A new status.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/status/status_manager.go (TerminatePod, hasPodInitialized,
    initializedContainers)

    Examples
    --------
    >>> pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}]}}
    >>> st = terminate_pod(pod, {"phase": "Pending", "containerStatuses": [
    ...     {"name": "a", "state": {"waiting": {"reason": "ContainerCreating"}}}]})
    >>> st["phase"], st["containerStatuses"][0]["state"]["terminated"]["reason"]
    ('Failed', 'ContainerStatusUnknown')
    """
    st = copy.deepcopy(dict(status))
    unknown = {"terminated": {"exitCode": 137, "reason": CONTAINER_REASON_STATUS_UNKNOWN,
                              "message": _UNKNOWN_TERMINATED_MESSAGE, "startedAt": None, "finishedAt": None}}
    if has_pod_initialized(pod):
        for cs in st.get("containerStatuses") or []:
            if (cs.get("state") or {}).get("terminated") is None:
                cs["state"] = copy.deepcopy(unknown)
    init_statuses = st.get("initContainerStatuses") or []
    for cs in init_statuses[:_initialized_prefix(init_statuses)]:
        if (cs.get("state") or {}).get("terminated") is None:
            cs["state"] = copy.deepcopy(unknown)
    if not is_static_pod(pod) and st.get("phase") not in (POD_SUCCEEDED, POD_FAILED):
        st["phase"] = POD_FAILED
    return st
