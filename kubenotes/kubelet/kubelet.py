"""The kubelet: one node's agent, syncing its pods through the CRI on the virtual clock.

Mirrors ``pkg/kubelet`` of kubernetes/kubernetes v1.34 (kubelet.go, pod_workers.go,
kuberuntime/kuberuntime_manager.go, kuberuntime_container.go, images/image_manager.go,
status/status_manager.go, kubelet_node_status.go) as a set of SimPy processes:

* **registration and heartbeats**: the Node is created (``--register-node``) or its
  default labels reconciled (:mod:`kubenotes.kubelet.node_status`); its status is
  computed every ``nodeStatusUpdateFrequency`` (10 s) and posted when it changed or
  ``nodeStatusReportFrequency`` (5 min) passed; the Lease in ``kube-node-lease`` is
  renewed every ``nodeLeaseDurationSeconds`` × 0.25 (10 s). A PLEG that has not
  relisted for 3 min turns the node ``NotReady`` (``PLEG is not healthy: ...``).
* **the API pod source**: list and watch of pods with ``spec.nodeName=<node>``;
  status-only changes are not updates (the config source compares specs).
* **static pods** (``staticPodPath``, a directory or an in-memory mapping of
  file name -> manifest): read at start and every ``fileCheckFrequency`` (20 s)
  (:func:`~kubenotes.kubelet.config.extract_from_dir`, merged by
  :class:`~kubenotes.kubelet.config.PodStorage`: ``<name>-<node>``, a uid
  hashed from the manifest, the ``kubernetes.io/config.*`` annotations). They
  run through the same pod workers; SyncPod creates their **mirror pod** in the
  API (``kubernetes.io/config.mirror``, owned by the Node), deletes and
  recreates a mirror that is being deleted or outdated, and the status manager
  writes the static pod's status to its mirror. A mirror pod seen on the API
  watch syncs its static pod (it is never run itself); a removed manifest stops
  the pod, and housekeeping (every 2 s) deletes the orphaned mirror.
* **pod workers**: one SimPy process per pod serializes its syncs
  (``podWorkers``); a sync is triggered by the pod source, by PLEG events
  (``ContainerStarted``/``ContainerDied``, relisted every 1 s by
  :class:`~kubenotes.kubelet.pleg.GenericPLEG`), by probe results, and by the
  work queue (``completeWork``): after a sync the pod is requeued after
  ``syncFrequency`` (1 min), after an error after ``backOffPeriod`` (10 s),
  each delay stretched by a seeded jitter of up to 50 %; work is picked up on
  the sync loop's 1 s ticks. As in v1.34, a container (or image) in back-off is
  an error like any other: its pod is re-checked 10-15 s after each sync, so a
  restart comes at the first re-check after the back-off expires, up to ~15 s
  late (v1.35's kubernetes#133066 requeues at the expiry itself; not modelled).
* **syncPod** (``Kubelet.SyncPod`` then ``kubeGenericRuntimeManager.SyncPod``):
  the API status is generated first (:func:`~kubenotes.kubelet.status.generate_api_pod_status`:
  ``ContainerCreating`` before anything runs) and written by the status manager;
  the probe workers are added; then the actions: kill what must die (liveness or
  startup failure, a changed container hash), ``RunPodSandbox`` with the pause
  image if no sandbox is ready, the init containers one at a time in order
  (restartable init containers — sidecars — are started in their place and the
  next one waits until the sidecar has started), then the app containers. Each
  start is ``EnsureImageExists`` (``ImageStatus``, the pull policy, ``PullImage``
  serialized per node as ``serializeImagePulls: true``, ``ImageStatus`` for the
  size; ``Pulling``/``Pulled`` events), ``CreateContainer`` with the OCI-bound
  config and labels (``Created`` event) and ``StartContainer`` (``Started``).
  The container's environment is made first
  (:func:`~kubenotes.kubelet.envvars.make_environment_variables`: ``envFrom``,
  ``env`` with ConfigMap, Secret and field references, the Service
  variables); a ConfigMap, Secret or key that does not exist (and is not
  ``optional``) fails the start: the container waits with
  ``CreateContainerConfigError`` and upstream's message (``configmap "x" not
  found``), a ``Failed`` event says ``Error: ...``, and the pod worker retries
  every ``backOffPeriod`` until the object appears.
  An exited container is restarted per ``restartPolicy`` behind the
  CrashLoopBackOff (:func:`~kubenotes.kubelet.backoff.do_back_off`: the first
  restart at once, then 10 s, 20 s, 40 s ... 300 s after each exit). When the
  actions give a container a new Waiting reason (``CrashLoopBackOff``,
  ``CreateContainerConfigError``, ``ErrImagePull``...), the status is written
  again at once, so the reason and the last termination (``lastState``) show
  during the whole back-off.
* **sidecars**: with no regular container left to keep or start (all exited
  under ``Never``/``OnFailure``), the pod's remaining containers are killed
  (``computePodActions``' ``KillPod``) and the sidecars are not restarted, so
  the pod turns ``Succeeded``/``Failed`` (sidecars do not count for the phase)
  and a Job with a sidecar completes. Every kill of several containers
  (this one, deletion, eviction) stops the regular containers first and the
  sidecars in reverse order, each after the later ones have exited
  (``newTerminationOrdering``).
* **what the model assumes** (:mod:`~kubenotes.kubelet.process_model`): a
  command it cannot read runs until stopped, except in a batch pod (a Job's,
  or ``restartPolicy`` ``Never``/``OnFailure``) or a regular init container,
  where it exits 0 after ``default_run_seconds`` (10 s); an exec liveness probe
  on a file the container's own script creates and removes answers as the
  script says; any other probe succeeds unless a Scenario step says
  otherwise. Each assumption is told in a ``ModelAssumption`` event (not an
  upstream reason).
* **probes**: :class:`~kubenotes.kubelet.prober.ProberManager` workers; a
  liveness failure records ``Killing`` (``Container app failed liveness probe,
  will be restarted``) and the container is stopped with the pod's grace
  period and started again.
* **graceful termination**: a pod with ``deletionTimestamp`` is killed: the
  liveness/startup probes stop, every container gets ``Killing`` (``Stopping
  container app``), its ``preStop`` ``sleep`` action (other handlers take no
  time here), then ``StopContainer`` with the remaining grace period (the
  runtime sends SIGTERM, SIGKILL at the deadline); the final status is
  written, the sandbox stopped, and the pod deleted from the API with grace
  period 0 (the status manager's ``canBeDeleted``).
* **node-pressure eviction**: :class:`~kubenotes.kubelet.eviction_manager.EvictionManager`
  runs every 10 s from :meth:`Kubelet.start` over :class:`KubeletEvictionAdapter`
  (the stats summary from the runtime's per-container usage, which
  ``ContainerRuntime.set_container_usage`` sets). The pod it evicts goes through
  the pod worker: ``Killing`` with the eviction's grace period (at least 2 s),
  then phase ``Failed``, reason ``Evicted``, upstream's message and the
  ``DisruptionTarget`` condition (the pod stays in the API). The node status
  reports its ``MemoryPressure``/``DiskPressure``/``PIDPressure`` (the node
  lifecycle controller turns them into ``NoSchedule`` taints), and a new pod
  goes through its ``Admit`` (``canAdmitPod``): a rejected pod never starts and
  is written ``Failed`` with the handler's reason and message.

Container logs are kept as the stand-in kubelet keeps them: one
:class:`~kubenotes.kubelet.logs.ContainerRun` per started container, holding
:func:`~kubenotes.kubelet.logs.modelled_output`, so ``kubectl logs`` keeps working.

Static pods also come from ``staticPodURL`` (:meth:`Kubelet.read_http_manifests`,
every ``httpCheckFrequency``).

Simplified (also in the docstrings below): no volumes, pull secrets, postStart hooks, ephemeral
containers or in-place resize; the pod worker reads the runtime itself (the same
inspection RPCs the PLEG cache would have made) instead of waiting for the PLEG
cache (``GetNewerThan``); container garbage collection runs right after a start
and keeps one dead instance per container (``MaxPerPodContainer`` 1); the sandbox
is removed when the pod leaves the API; image garbage collection
(:class:`~kubenotes.kubelet.image_gc.RealImageGCManager`, every 5 min and as the
eviction manager's reclaim) removes unused images, container GC frees nothing more,
images share the node filesystem, and
the only admit handler is the eviction manager's; events carry their ``fieldPath``
(the recorder takes whole objects; :attr:`Kubelet.events` keeps it). The
manifest directory is polled only (upstream also watches it with inotify on
Linux, so edits show sooner; :meth:`Kubelet.read_static_pods` reads it at once);
a static pod's mirror is created in the same sync before its status is written
(upstream's status manager writes it at its next batch); the HandlePodCleanups
housekeeping only deletes orphaned mirror pods.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go (SyncPod, SyncTerminatingPod, syncLoopIteration)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/pod_workers.go (completeWork, workerResyncIntervalJitterFactor)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go (computePodActions, SyncPod, doBackOff)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_container.go (startContainer, killContainer)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/images/image_manager.go (EnsureImageExists)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/events/event.go (event reasons)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/status/status_manager.go (canBeDeleted: delete with grace 0)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/container/sync_result.go (BackoffError)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/config/file.go (the static pod directory)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/pod/mirror_client.go (CreateMirrorPod, DeleteMirrorPod)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet_pods.go (deleteOrphanedMirrorPods)
"""

from __future__ import annotations

import copy
import dataclasses
import ipaddress
import json
import math
import os
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generator

import simpy

from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.server import format_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.client.record import EventRecorder
from kubenotes.cri.api import CRIError
from kubenotes.cri.runtime import CONTAINER_RUNNING, ContainerRuntime, default_process_model
from kubenotes.errors import KubenotesError, ManifestError
from kubenotes.kubelet.eviction import (
    DEFAULT_EVICTION_HARD,
    DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD_SECONDS,
    parse_threshold_config,
)
from kubenotes.kubelet.eviction_manager import (
    IMAGE_GC_HIGH_THRESHOLD_PERCENT,
    IMAGE_GC_LOW_THRESHOLD_PERCENT,
    IMAGE_MINIMUM_GC_AGE_SECONDS,
    EvictionConfig,
    EvictionManager,
    ImageGCPolicy,
)
from kubenotes.kubelet.envvars import CREATE_CONTAINER_CONFIG_ERROR, make_environment_variables, service_env_vars
from kubenotes.kubelet.image_gc import RealImageGCManager
from kubenotes.kubelet.kuberuntime import container_config_for_pod, sandbox_config_for_pod
from kubenotes.kubelet.volumes import KUBELET_PODS_DIR, VolumeManager, WaitForAttachAndMountError
from kubenotes.kubelet.backoff import (
    EVENT_TYPE_NORMAL,
    EVENT_TYPE_WARNING,
    ImagePullBackOff,
    do_back_off,
    get_backoff_key,
    go_duration,
    new_crash_loop_back_off,
)
from kubenotes.kubelet.node_status import (
    DEFAULT_NODE_LEASE_DURATION_SECONDS,
    DEFAULT_NODE_STATUS_REPORT_FREQUENCY_SECONDS,
    DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_SECONDS,
    NODE_LEASE_NAMESPACE,
    MachineInfo,
    NodeConfig,
    initial_node,
    lease_renew_interval_seconds,
    new_lease,
    renew_lease,
    set_node_status,
    should_post_node_status,
    update_default_labels,
)
from kubenotes.kubelet.config import (
    ADD,
    DELETE,
    DEFAULT_FILE_CHECK_FREQUENCY_SECONDS,
    HTTP_SOURCE,
    REMOVE,
    SET,
    UPDATE,
    PodStorage,
    PodUpdate,
    extract_from_dir,
    extract_from_http,
    is_mirror_pod_of,
    mirror_pod,
    pod_full_name,
    read_pods_from_dir,
    watch_api_source,
)
from kubenotes.kubelet.pleg import GenericPLEG, pleg_not_healthy_message
from kubenotes.kubelet.process_model import (
    DEFAULT_RUN_SECONDS,
    MODEL_ASSUMPTION,
    assumed_exit_message,
    exec_probe_outcome,
    probe_assumption_message,
    run_outcome,
)
from kubenotes.kubelet.qos import is_mirror_pod, is_static_pod
from kubenotes.kubelet.prober import FAILURE, LIVENESS, STARTUP, SUCCESS, ProberManager
from kubenotes.api.podutil import is_restartable_init_container
from kubenotes.kubelet.status import (
    CONTAINER_STATE_CREATED,
    CONTAINER_STATE_EXITED,
    CONTAINER_STATE_RUNNING,
    CONTAINER_STATE_UNKNOWN,
    POD_FAILED,
    POD_SUCCEEDED,
    RuntimeContainerStatus,
    RuntimePodStatus,
    generate_api_pod_status,
    should_container_be_restarted,
    terminate_pod,
)

from kubenotes.kubelet.logs import (
    ContainerLogReader,
    ContainerRun,
    container_env,
    modelled_output,
    open_container_log,
)

__all__ = [
    "CREATED_CONTAINER",
    "STARTED_CONTAINER",
    "FAILED_TO_CREATE_CONTAINER",
    "FAILED_TO_START_CONTAINER",
    "KILLING_CONTAINER",
    "PULLING_IMAGE",
    "PULLED_IMAGE",
    "FAILED_TO_PULL_IMAGE",
    "ERR_IMAGE_NEVER_PULL_POLICY",
    "BACK_OFF_PULL_IMAGE",
    "CONTAINER_UNHEALTHY",
    "MINIMUM_GRACE_PERIOD_SECONDS",
    "DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS",
    "SYNC_FREQUENCY_SECONDS",
    "BACK_OFF_PERIOD_SECONDS",
    "WORKER_JITTER_FACTOR",
    "SYNC_LOOP_TICK_SECONDS",
    "HOUSEKEEPING_PERIOD_SECONDS",
    "DEFAULT_STATIC_POD_PATH",
    "RUN_SECONDS_ANNOTATION",
    "EXIT_CODE_ANNOTATION",
    "KubeletConfiguration",
    "Kubelet",
    "KubeletEvictionAdapter",
    "POD_REJECTED_MESSAGE_PREFIX",
    "container_hash",
    "image_pull_policy",
    "pulled_message",
]

#: ``events.CreatedContainer`` / ``StartedContainer`` / ``FailedToCreateContainer`` / ``FailedToStartContainer``.
CREATED_CONTAINER, STARTED_CONTAINER = "Created", "Started"
FAILED_TO_CREATE_CONTAINER = FAILED_TO_START_CONTAINER = "Failed"
#: ``events.KillingContainer``.
KILLING_CONTAINER = "Killing"
#: ``events.PullingImage`` / ``PulledImage`` / ``FailedToPullImage`` / ``ErrImageNeverPullPolicy`` /
#: ``BackOffPullImage``.
PULLING_IMAGE, PULLED_IMAGE, FAILED_TO_PULL_IMAGE = "Pulling", "Pulled", "Failed"
ERR_IMAGE_NEVER_PULL_POLICY, BACK_OFF_PULL_IMAGE = "ErrImageNeverPull", "BackOff"
#: ``events.ContainerUnhealthy``.
CONTAINER_UNHEALTHY = "Unhealthy"
#: ``minimumGracePeriodInSeconds`` (kuberuntime_container.go): a kill never gives less than 2 s.
MINIMUM_GRACE_PERIOD_SECONDS = 2
#: ``v1.DefaultTerminationGracePeriodSeconds``.
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
#: ``syncFrequency`` default (1 min): the pod worker's resync interval.
SYNC_FREQUENCY_SECONDS = 60.0
#: ``backOffPeriod`` (kubelet.go): requeue after a failed sync.
BACK_OFF_PERIOD_SECONDS = 10.0
#: ``workerResyncIntervalJitterFactor`` and ``workerBackOffPeriodJitterFactor`` (pod_workers.go).
WORKER_JITTER_FACTOR = 0.5
#: The sync loop's ``syncTicker`` (1 s): queued work is picked up on its ticks.
SYNC_LOOP_TICK_SECONDS = 1.0
#: ``housekeepingPeriod`` (kubelet.go): ``HandlePodCleanups`` (here: deleting orphaned mirror pods) every 2 s.
HOUSEKEEPING_PERIOD_SECONDS = 2.0
#: The directory kubeadm configures as ``staticPodPath``; the file paths of an in-memory manifest mapping.
DEFAULT_STATIC_POD_PATH = "/etc/kubernetes/manifests"

_IMAGE_NEVER_PULL_MESSAGE = 'Container image "{image}" is not present with pull policy of Never'
_ALREADY_PRESENT_MESSAGE = 'Container image "{image}" already present on machine'
_UNKNOWN_IMAGE_BYTES = 10 * 2**20
#: The stand-in kubelet's KWOK-style annotations (same strings as ``kubenotes.sim.kubelet``), honoured by the
#: default runtime's process model: the containers exit after this many seconds of running, with this code.
RUN_SECONDS_ANNOTATION = "kubenotes.io/run-seconds"
EXIT_CODE_ANNOTATION = "kubenotes.io/exit-code"


@dataclass
class KubeletConfiguration:
    """The ``KubeletConfiguration`` fields this model reads (v1.34 defaults).

    Every field is a keyword argument with upstream's default, so
    ``KubeletConfiguration()`` is a default kubelet and a scenario changes
    only what it needs.

    Parameters
    ----------
    node_status_update_frequency_seconds : float
        ``nodeStatusUpdateFrequency`` (10 s).
    node_status_report_frequency_seconds : float
        ``nodeStatusReportFrequency`` (5 min).
    node_lease_duration_seconds : int
        ``nodeLeaseDurationSeconds`` (40); renewed every quarter.
    sync_frequency_seconds : float
        ``syncFrequency`` (1 min).
    serialize_image_pulls : bool
        ``serializeImagePulls`` (true): one pull at a time per node.
    register_node : bool
        ``--register-node``: create the Node if it does not exist.
    node_config : NodeConfig, optional
        Reservations, labels, taints, node IPs (derived from an existing Node when None).
    machine_info : MachineInfo, optional
        The machine (derived from an existing Node's capacity when None).
    probe_results : mapping or callable, optional
        The probe outcomes a scenario sets (see :class:`~kubenotes.kubelet.prober.ProberManager`).
    unknown_images_exist : bool
        A modelling convenience: an image the registry catalogue does not know is
        registered with one 10 MiB layer and a ``Cmd`` (no ``Entrypoint``) named after its
        repository before its pull, so any manifest runs (the pod's ``command`` or
        ``args`` replace that ``Cmd``, as for ``busybox`` or ``perl``).
        False: such pulls fail as ``ErrImagePull``.
    static_pod_path : str or mapping, optional
        ``staticPodPath`` (unset by default; kubeadm sets ``/etc/kubernetes/manifests``):
        a real directory, or an in-memory one, a mapping of file name -> manifest
        (YAML/JSON text, or a Pod as a dict), read as if it were
        :data:`DEFAULT_STATIC_POD_PATH`. Edit the mapping to edit the "files"; the
        kubelet sees the change at its next read.
    file_check_frequency_seconds : float
        ``fileCheckFrequency`` (20 s): how often the manifest directory is read.
    static_pod_url : str, optional
        ``staticPodURL``: a URL serving one Pod or a PodList (YAML or JSON), fetched
        at start and every ``httpCheckFrequency``; its pods are static pods with
        ``kubernetes.io/config.source: http``.
    static_pod_url_header : mapping, optional
        ``staticPodURLHeader``: request headers (name -> list of values).
    http_check_frequency_seconds : float
        ``httpCheckFrequency`` (20 s).
    http_get : callable, optional
        ``http_get(url, headers) -> (status_code, status_text, body)``: how the URL is
        fetched. None: a real HTTP GET (urllib, 10 s timeout; a failed connection is
        reported as upstream reports it and leaves the pods as they were). A
        notebook or test passes its own "web server" here.
    eviction_hard, eviction_soft, eviction_soft_grace_period : mapping, optional
        ``evictionHard`` (None: upstream's defaults, ``memory.available<100Mi``,
        ``nodefs.available<10%``, ``nodefs.inodesFree<5%``, ``imagefs.available<15%``),
        ``evictionSoft`` and ``evictionSoftGracePeriod``: signal -> quantity/percentage/duration.
    eviction_max_pod_grace_period_seconds : int
        ``evictionMaxPodGracePeriod`` (0).
    eviction_pressure_transition_period_seconds : float
        ``evictionPressureTransitionPeriod`` (5 min).
    eviction_minimum_reclaim : mapping, optional
        ``evictionMinimumReclaim``: signal -> quantity or percentage to reclaim past a threshold.
    image_gc_high_threshold_percent, image_gc_low_threshold_percent : int
        ``imageGCHighThresholdPercent`` (85) and ``imageGCLowThresholdPercent`` (80).
    image_minimum_gc_age_seconds : float
        ``imageMinimumGCAge`` (2 min).
    default_run_seconds : float
        Not upstream: the kubelet model's assumption for a command it cannot
        read (:func:`~kubenotes.cri.runtime.command_outcome`) in a batch pod
        (owned by a Job, or ``restartPolicy`` ``Never``/``OnFailure``) or a
        regular init container: it exits 0 after this many seconds (10), and a
        ``ModelAssumption`` Event says so
        (:mod:`kubenotes.kubelet.process_model`). Other containers run until
        stopped. The pod annotations ``kubenotes.io/run-seconds`` and
        ``kubenotes.io/exit-code`` win over it.

    Returns
    -------
    KubeletConfiguration
        A mutable record with these fields as attributes of the same names.

    Raises
    ------
    TypeError
        For an unknown keyword (the dataclass constructor). Values are not
        checked here: a bad eviction threshold raises when a kubelet is built
        from this configuration and parses it (:func:`~kubenotes.kubelet.eviction.parse_threshold_config`).

    See Also
    --------
    kubenotes.kubelet.eviction_manager.EvictionConfig : what the eviction fields become.

    Notes
    -----
    A stand-in ``KubeletOptions`` is accepted where this is: its
    ``node_lease_duration_seconds`` and ``node_status_report_frequency_seconds`` are taken over.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/apis/config/v1beta1/defaults.go

    Examples
    --------
    >>> cfg = KubeletConfiguration()
    >>> cfg.node_status_update_frequency_seconds, cfg.node_lease_duration_seconds, cfg.sync_frequency_seconds
    (10.0, 40, 60.0)
    """

    node_status_update_frequency_seconds: float = DEFAULT_NODE_STATUS_UPDATE_FREQUENCY_SECONDS
    node_status_report_frequency_seconds: float = DEFAULT_NODE_STATUS_REPORT_FREQUENCY_SECONDS
    node_lease_duration_seconds: int = DEFAULT_NODE_LEASE_DURATION_SECONDS
    sync_frequency_seconds: float = SYNC_FREQUENCY_SECONDS
    serialize_image_pulls: bool = True
    register_node: bool = True
    node_config: NodeConfig | None = None
    machine_info: MachineInfo | None = None
    probe_results: Any = None
    unknown_images_exist: bool = True
    static_pod_path: Any = None
    file_check_frequency_seconds: float = DEFAULT_FILE_CHECK_FREQUENCY_SECONDS
    static_pod_url: str | None = None
    static_pod_url_header: Any = None
    http_check_frequency_seconds: float = DEFAULT_FILE_CHECK_FREQUENCY_SECONDS
    http_get: Any = None
    eviction_hard: Any = None
    eviction_soft: Any = None
    eviction_soft_grace_period: Any = None
    eviction_max_pod_grace_period_seconds: int = 0
    eviction_pressure_transition_period_seconds: float = DEFAULT_EVICTION_PRESSURE_TRANSITION_PERIOD_SECONDS
    eviction_minimum_reclaim: Any = None
    image_gc_high_threshold_percent: int = IMAGE_GC_HIGH_THRESHOLD_PERCENT
    image_gc_low_threshold_percent: int = IMAGE_GC_LOW_THRESHOLD_PERCENT
    image_minimum_gc_age_seconds: float = IMAGE_MINIMUM_GC_AGE_SECONDS
    default_run_seconds: float = DEFAULT_RUN_SECONDS


def _configuration(options: Any) -> KubeletConfiguration:
    """A :class:`KubeletConfiguration` from itself, None, or the stand-in's ``KubeletOptions`` (same names)."""
    if isinstance(options, KubeletConfiguration):
        return options
    cfg = KubeletConfiguration()
    for name in ("node_lease_duration_seconds", "node_status_report_frequency_seconds"):
        if options is not None and hasattr(options, name):
            setattr(cfg, name, getattr(options, name))
    return cfg


_HASH_CACHE: dict[str, str] = {}


def _fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def container_hash(container: Mapping[str, Any]) -> str:
    """The container's spec hash (``kubecontainer.HashContainer``) as the runtime label holds it (hex).

    Notes
    -----
    FNV-32a over the canonical JSON of the spec without ``resources`` (which
    in-place resize may change); upstream hashes Go's JSON of a pruned ``v1.Container``,
    so the numbers differ from a real node's.

    Examples
    --------
    >>> container_hash({"name": "a", "image": "nginx"}) == container_hash({"image": "nginx", "name": "a"})
    True
    >>> container_hash({"name": "a", "image": "nginx"}) == container_hash({"name": "a", "image": "nginx:1.27"})
    False
    """
    pruned = {k: v for k, v in container.items() if k != "resources"}
    key = json.dumps(pruned, sort_keys=True, separators=(",", ":"))
    h = _HASH_CACHE.get(key)
    if h is None:  # FNV in pure Python costs more than the JSON: every sync hashes every container
        if len(_HASH_CACHE) >= 4096:
            _HASH_CACHE.clear()
        h = _HASH_CACHE[key] = format(_fnv32a(key.encode()), "x")
    return h


def image_pull_policy(container: Mapping[str, Any]) -> str:
    """``imagePullPolicy`` as the API defaults it: ``Always`` for ``:latest`` or no tag, else ``IfNotPresent``.

    Examples
    --------
    >>> image_pull_policy({"image": "nginx"}), image_pull_policy({"image": "nginx:1.27"})
    ('Always', 'IfNotPresent')
    >>> image_pull_policy({"image": "nginx:1.27", "imagePullPolicy": "Never"})
    'Never'
    """
    if container.get("imagePullPolicy"):
        return str(container["imagePullPolicy"])
    image = str(container.get("image", ""))
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    tag = last.split(":", 1)[1] if ":" in last else ""
    return "Always" if tag in ("", "latest") else "IfNotPresent"


def _truncate_ms(seconds: float) -> float:
    return math.floor(round(seconds * 1000, 6)) / 1000


def pulled_message(image: str, pull_seconds: float, total_seconds: float, size_bytes: int) -> str:
    """The ``Pulled`` event after a pull (durations truncated to milliseconds, Go's ``Duration`` format).

    Examples
    --------
    >>> pulled_message("nginx:1.27", 1.2, 1.2, 12345)
    'Successfully pulled image "nginx:1.27" in 1.2s (1.2s including waiting). Image size: 12345 bytes.'
    >>> pulled_message("busybox:1.36", 0.4567, 2.5, 1)
    'Successfully pulled image "busybox:1.36" in 456ms (2.5s including waiting). Image size: 1 bytes.'
    """
    return (f"Successfully pulled image {json.dumps(image)} in {go_duration(_truncate_ms(pull_seconds))} "
            f"({go_duration(_truncate_ms(total_seconds))} including waiting). Image size: {size_bytes} bytes.")


@dataclass
class _PodWorker:
    uid: str
    pod: dict
    wake: Any = None
    pending: bool = True
    requeue_at: float | None = None
    done: bool = False
    started_at: float | None = None
    process: Any = None


class _Requeue(KubenotesError):
    """A sync error (``SyncPod`` returned one): the worker requeues after ``backOffPeriod`` (v1.34).

    ``seconds`` is when the error itself says to retry (a back-off's expiry, or ``backOffPeriod``):
    v1.34's ``completeWork`` does not look at it (v1.35, kubernetes#133066, does).
    """

    def __init__(self, seconds: float):
        super().__init__(seconds)
        self.seconds = seconds


#: ``rejectPod``: the pod status message of a pod an admit handler rejected starts with this.
POD_REJECTED_MESSAGE_PREFIX = "Pod was rejected: "


def _http_get(url: str, headers: Mapping[str, list[str]]) -> tuple[int, str, bytes]:
    """A real GET of ``staticPodURL`` (upstream's client: 10 s timeout); ``(status, "200 OK", body)``."""
    import http.client
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, headers={k: ", ".join(v) for k, v in headers.items()})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - the user's own manifest URL
            return resp.status, f"{resp.status} {http.client.responses.get(resp.status, '')}".strip(), resp.read()
    except urllib.error.HTTPError as e:
        return e.code, f"{e.code} {http.client.responses.get(e.code, '')}".strip(), e.read()


class KubeletEvictionAdapter:
    """The kubelet side of the eviction manager (:class:`~kubenotes.kubelet.eviction_manager.EvictionAdapter`).

    Active pods are the kubelet's pods not evicted, terminal or being deleted;
    the stats summary is built from the CRI runtime's per-container usage
    (``memory_bytes``, ``disk_bytes``, set by ``set_container_usage``) and the
    node's MachineInfo; eviction goes through the kubelet's pod worker.

    Parameters
    ----------
    kubelet : Kubelet

    Notes
    -----
    Simplified: one filesystem (no dedicated imagefs), no inode or log
    accounting, one process per running container, container GC frees
    nothing (dead containers are removed right after a restart). What
    runs outside pods uses the memory and disk a scenario's ``systemUsage``
    sets (:meth:`Kubelet.set_system_usage`; none by default): the node's
    working set is cAdvisor's root cgroup, pods and system daemons together. Image reclaim is the kubelet's image GC
    (:class:`~kubenotes.kubelet.image_gc.RealImageGCManager`).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go (NewMainKubelet: eviction.NewManager)
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/server/stats/summary.go
    """

    def __init__(self, kubelet: "Kubelet") -> None:
        self.kubelet = kubelet

    def _running_by_uid(self) -> dict[str, list[Any]]:
        rt = self.kubelet.runtime
        out: dict[str, list[Any]] = {}
        for c in rt.containers.values():
            if c.state != CONTAINER_RUNNING:
                continue
            sb = rt.sandboxes.get(c.pod_sandbox_id)
            if sb is not None:
                out.setdefault(sb.metadata.get("uid"), []).append(c)
        return out

    def active_pods(self, now: float) -> list[dict[str, Any]]:
        """Pods admitted, not terminal, not being deleted and not already evicted."""
        k = self.kubelet
        return [p for uid, p in k.pods.items() if uid not in k._evictions
                and not (p.get("metadata") or {}).get("deletionTimestamp")
                and (p.get("status") or {}).get("phase") not in (POD_SUCCEEDED, POD_FAILED)]

    def summary(self, now: float) -> dict[str, Any]:
        """``/stats/summary`` from the runtime's container usage and the machine's capacities."""
        k = self.kubelet
        machine, _ = k._machine_and_config(k.server.get("nodes", None, k.node_name))
        running = self._running_by_uid()
        working_set = k.system_memory_bytes + sum(c.memory_bytes for cs in running.values() for c in cs)
        capacity, available = self.node_fs()
        fs = {"capacityBytes": capacity, "availableBytes": available}
        node = {"memory": {"availableBytes": max(machine.memory_capacity_bytes - working_set, 0),
                           "workingSetBytes": working_set},
                "fs": fs, "runtime": {"imageFs": dict(fs)},
                "rlimit": {"maxpid": 4194304, "curproc": sum(len(cs) for cs in running.values())}}
        pods = []
        for uid, cs in running.items():
            pod = k.pods.get(uid)
            if pod is None:
                continue
            md = pod["metadata"]
            pods.append({"podRef": {"name": md.get("name"), "namespace": md.get("namespace", "default"), "uid": uid},
                         "containers": [{"name": c.metadata.get("name"), "memory": {"workingSetBytes": c.memory_bytes},
                                         "rootfs": {"usedBytes": c.disk_bytes, "inodesUsed": c.disk_inodes},
                                         "logs": {"usedBytes": 0, "inodesUsed": 0}} for c in cs],
                         "volume": [], "process_stats": {"process_count": len(cs)}})
        return {"time": now, "node": node, "pods": pods}

    def node_fs(self) -> tuple[int, int]:
        """``(capacityBytes, availableBytes)`` of the node filesystem: images and writable layers use it."""
        k = self.kubelet
        machine, _ = k._machine_and_config(k.server.get("nodes", None, k.node_name))
        images = sum(img.size_bytes for img in k.runtime.images.images.values())
        writable = sum(c.disk_bytes for c in k.runtime.containers.values())
        used = k.system_disk_bytes + images + writable
        return machine.rootfs_capacity_bytes, max(machine.rootfs_capacity_bytes - used, 0)

    def has_dedicated_image_fs(self) -> bool:
        """False: images share the node filesystem."""
        return False

    def delete_all_unused_containers(self, now: float) -> int:
        """Container GC (immediate in this model): nothing left to free."""
        return 0

    def delete_unused_images(self, now: float) -> int:
        """``DeleteUnusedImages`` through the kubelet's image GC: bytes freed."""
        return self.kubelet.image_gc.delete_unused_images(now)

    def terminate_pod(self, pod: Mapping[str, Any], grace_period_seconds: int, status: Mapping[str, Any],
                      now: float) -> None:
        """Hand the pod to :meth:`Kubelet.evict_pod`."""
        self.kubelet.evict_pod((pod.get("metadata") or {}).get("uid"), grace_period_seconds, status)

    def pod_cleaned_up(self, pod: Mapping[str, Any], now: float) -> bool:
        """No container of the pod runs any more."""
        return (pod.get("metadata") or {}).get("uid") not in self._running_by_uid()

    def record_event(self, involved: str, event_type: str, reason: str, message: str,
                     annotations: Mapping[str, str] | None = None) -> None:
        """A Node event (``Node/<name>``) through the kubelet's recorder, a pod event as the kubelet's own."""
        k = self.kubelet
        if involved.startswith("Node/"):
            k.events.append({"time": float(k.env.now), "type": event_type, "reason": reason, "message": message,
                             "namespace": "", "pod": "", "node": k.node_name, "field_path": ""})
            if k.up:
                k.recorder.event({"kind": "Node", "apiVersion": "v1", "metadata": {"name": k.node_name}},
                                 event_type, reason, message)
            return
        ns, _, name = involved.partition("/")
        for pod in k.pods.values():
            md = pod.get("metadata") or {}
            if md.get("name") == name and md.get("namespace", "default") == ns:
                k._event(pod, event_type, reason, message)
                return


class KubeletVolumeHost:
    """The kubelet side of the volume manager (:class:`~kubenotes.kubelet.volumes.VolumeHostAdapter`).

    ConfigMaps and Secrets are read with the kubelet's own credentials (upstream's
    watch-based managers serve them from a cache the API keeps fresh; here each
    SetUp reads the API), tokens come from the ``serviceaccounts/token``
    subresource (a TokenRequest), FailedMount events go through the kubelet's recorder.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/volume_host.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/token/token_manager.go
    """

    def __init__(self, kubelet: "Kubelet") -> None:
        self.kubelet = kubelet

    def _get(self, resource: str, namespace: str, name: str) -> dict | None:
        try:
            return self.kubelet.client.get(resource, name, namespace)
        except ApiError as e:
            if e.code == 404:
                return None
            raise

    def get_config_map(self, namespace: str, name: str) -> dict | None:
        """The ConfigMap, or None when it does not exist."""
        return self._get("configmaps", namespace, name)

    def get_secret(self, namespace: str, name: str) -> dict | None:
        """The Secret, or None when it does not exist."""
        return self._get("secrets", namespace, name)

    def request_token(self, namespace: str, service_account_name: str, audiences: list[str],
                      expiration_seconds: int, pod: Mapping[str, Any]) -> str:
        """A bound ServiceAccount token through a TokenRequest."""
        return self.kubelet.client.create_token(namespace, service_account_name,
                                                int(expiration_seconds))["status"]["token"]

    def record_event(self, pod: Mapping[str, Any], event_type: str, reason: str, message: str) -> None:
        """An Event on the pod, from the kubelet."""
        self.kubelet._event(dict(pod), event_type, reason, message)

    def wait_for_attach(self, pod: Mapping[str, Any], volume: Mapping[str, Any]) -> None:
        """The CSI plugin's ``WaitForAttach`` for a claim's volume (:func:`kubenotes.kubelet.csi.wait_for_attach`)."""
        from kubenotes.kubelet.csi import wait_for_attach

        wait_for_attach(self._get, self.kubelet.node_name, pod, volume)

    @property
    def csi(self) -> Any:
        """The node's CSI volume plugin (:class:`kubenotes.kubelet.csi.CSIVolumePlugin`): the driver models the
        cluster installed (``cluster.csi``), registered on this node by node-driver-registrar."""
        if getattr(self, "_csi", None) is None:
            from kubenotes.kubelet.csi import CSIVolumePlugin

            k = self.kubelet

            def node_service(driver_name: str) -> Any:
                driver = (getattr(k.cluster, "csi", None) or {}).get(driver_name)
                return driver.nodes.get(k.node_name) if driver is not None else None

            def record_event(obj: dict, event_type: str, reason: str, message: str) -> None:
                if obj.get("kind", "Pod") == "Pod":
                    k._event(obj, event_type, reason, message)
                elif k.up:
                    k.recorder.event(obj, event_type, reason, message)

            self._csi = CSIVolumePlugin(
                self._get, k.node_name, node_service, record_event=record_event,
                update_claim_status=lambda c: k.client.update_status("persistentvolumeclaims", c,
                                                                     c["metadata"]["namespace"]))
        return self._csi

    def node_allocatable(self) -> Mapping[str, Any]:
        """The Node's ``status.allocatable`` (sizes a memory-backed emptyDir)."""
        node = self.kubelet.server.get("nodes", None, self.kubelet.node_name) or {}
        return (node.get("status") or {}).get("allocatable") or {}


class Kubelet:
    """One node's kubelet, a set of SimPy processes (see the module docstring for what it does).

    Parameters
    ----------
    cluster_or_ctx : object
        Anything with ``env`` (simpy.Environment) and ``server`` (APIServer);
        ``seed`` is read when present (a :class:`~kubenotes.sim.cluster.Cluster`).
    node_name : str
    runtime : ContainerRuntime, optional
        The node's CRI runtime; default a containerd one on the same clock whose
        network hooks call CNI (:mod:`kubenotes.cni`: bridge + host-local IPAM over the
        Node's ``spec.podCIDR``) and whose
        process model honours the stand-in's ``kubenotes.io/run-seconds`` and
        ``kubenotes.io/exit-code`` pod annotations.
    options : KubeletConfiguration or KubeletOptions, optional

    Attributes
    ----------
    client : Client
        ``system:node:<node>`` in group ``system:nodes``.
    pods : dict[str, dict]
        Pod UID -> the pod as last seen from the API.
    runs : dict[str, dict[str, list[ContainerRun]]]
        Pod UID -> container -> its runs (the container logs).
    events : list of dict
        Every event recorded: ``time``, ``type``, ``reason``, ``message``,
        ``namespace``, ``pod``, ``field_path`` (``spec.containers{app}``).
    sync_log : list of tuple
        ``(time, pod uid, what)`` of every pod sync (``SyncPod``/``SyncTerminatingPod``).
    status_log : list of tuple
        ``(time, pod uid, status)`` of every pod status written to the API.
    prober : ProberManager
    pleg : GenericPLEG
    runtime : ContainerRuntime
    mirror_pods : dict[str, dict]
        Pod full name (``<name>_<namespace>``) -> the mirror pod as last seen from the API.
    pod_config : PodStorage
        The merge of the file source (``pod_config.pods["file"]``: the static pods by uid).
    manifest_errors : list of str
        The manifest files the last read of ``staticPodPath`` skipped, with upstream's words.
    eviction_manager : EvictionManager
        Node-pressure eviction; its ``timeline`` lists every round.
    image_gc : RealImageGCManager
        Image garbage collection; its ``passes`` and ``removed`` list what it did.

    Notes
    -----
    Same public surface as :class:`~kubenotes.sim.kubelet.StandInKubelet` for
    :class:`~kubenotes.sim.cluster.Cluster`: ``start``, ``node_down``,
    ``node_up``, ``container_log_reader``, ``pods``, ``runs``, ``up``.

    Simplified compared with upstream: see the module docstring (no volumes,
    pull secrets, HTTP manifests, postStart hooks or ephemeral
    containers; the pod worker inspects the runtime itself; immediate container
    GC). Probe outcomes come from a scenario (``probe_overrides``,
    ``options.probe_results``), else from the model's reading of the
    container's script (:func:`~kubenotes.kubelet.process_model.exec_probe_outcome`),
    else they are taken to succeed (a ``ModelAssumption`` event says so for a liveness probe).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/pod_workers.go
    kubernetes/kubernetes@v1.34.0 pkg/kubelet/kuberuntime/kuberuntime_manager.go

    Examples
    --------
    >>> import simpy
    >>> from types import SimpleNamespace
    >>> from kubenotes.apiserver.server import APIServer
    >>> env = simpy.Environment(); server = APIServer(env)
    >>> admin = server.client("kubectl")
    >>> _ = admin.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    >>> kubelet = Kubelet(SimpleNamespace(env=env, server=server), "n1"); kubelet.start()
    >>> _ = admin.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {
    ...     "nodeName": "n1", "containers": [{"name": "web", "image": "nginx:1.27"}]}}, "default")
    >>> env.run(until=10)
    >>> [(e["reason"], e["message"]) for e in kubelet.events][2:]
    [('Created', 'Created container: web'), ('Started', 'Started container web')]
    >>> [t["method"] for t in kubelet.runtime.trace if t["method"] in ("RunPodSandbox", "PullImage",
    ...                                                                  "CreateContainer", "StartContainer")]
    ['RunPodSandbox', 'PullImage', 'CreateContainer', 'StartContainer']
    >>> admin.get("pods", "web", "default")["status"]["phase"]
    'Running'
    """

    def __init__(self, cluster_or_ctx: Any, node_name: str, runtime: ContainerRuntime | None = None,
                 options: Any = None):
        self.cluster = cluster_or_ctx
        self.env = cluster_or_ctx.env
        self.server = cluster_or_ctx.server
        self.node_name = node_name
        self.options = _configuration(options)
        self.component = f"kubelet/{node_name}"
        self.client = self.server.client(self.component, UserInfo(f"system:node:{node_name}",
                                                                 groups=("system:nodes", "system:authenticated")))
        self.recorder = EventRecorder(self.client, "kubelet", node_name)
        seed = getattr(cluster_or_ctx, "seed", 0)
        self.rng = random.Random(f"{seed}/kubelet/{node_name}")
        if runtime is None:
            runtime = ContainerRuntime(self.env, node_name, network_setup=self._network_setup,
                                       network_teardown=self._network_teardown, process_model=self._process_model)
        self.runtime = runtime
        #: Probe outcomes a scenario sets while the model runs: ``(pod_uid, container, kind) -> result`` or
        #: ``(result, output)``; they win over ``options.probe_results``.
        self.probe_overrides: dict[tuple[str, str, str], Any] = {}
        self.prober = ProberManager(self.env, random.Random(f"{seed}/prober/{node_name}"), self._probe_outcome,
                                    on_result=self._on_probe_result, on_event=self._on_probe_event)
        self.pleg = GenericPLEG(self.env, runtime)
        self.crash_loop_back_off = new_crash_loop_back_off(self.env)
        self.image_pull_back_off = ImagePullBackOff(self.env)
        self._pull_lock = simpy.Resource(self.env, capacity=1)
        self.up = True
        self.pods: dict[str, dict] = {}
        self.runs: dict[str, dict[str, list[ContainerRun]]] = {}
        self.events: list[dict] = []
        self.sync_log: list[tuple[float, str, str]] = []
        self.status_log: list[tuple[float, str, dict]] = []
        self.pod_workers: dict[str, _PodWorker] = {}
        self.reason_cache: dict[str, dict[str, tuple[str, str]]] = {}
        self._status_written: dict[str, dict] = {}
        self._sandbox_attempts: dict[str, int] = {}
        self._prober_seen: dict[tuple[str, str], tuple[str, str]] = {}
        self._kill_requests: dict[tuple[str, str], tuple[str, str]] = {}
        #: Images the kubelet registered because the catalogue did not know them (``unknown_images_exist``).
        self._unknown_images: set[str] = set()
        #: Runtime container id -> (argv, run seconds) of a start whose run time the model assumed.
        self._assumed_runs: dict[str, tuple[list[str], float]] = {}
        #: (pod uid, container, probe kind) whose assumed probe answers an Event already reported.
        self._assumed_probes: set[tuple[str, str, str]] = set()
        self._ips: dict[str, str] = {}
        #: The node's CNI layer (:class:`~kubenotes.cni.manager.CNIManager`), made at the first sandbox, unless a
        #: network add-on installed its own config and plugins on the node before (set before :meth:`start`).
        self.cni: Any = None
        self._cni_hooks: tuple = ()
        self._machine: MachineInfo | None = self.options.machine_info
        self._node_config: NodeConfig | None = self.options.node_config
        self._status_reported_at: float | None = None
        self._started_at = 0.0
        #: Fired by :meth:`node_up` for every process waiting in :meth:`_wait_up`.
        self._up_event: Any = None
        #: Pod source deliveries while the kubelet is down, by uid (the latest wins), replayed at :meth:`node_up`.
        self._deferred: dict[str, tuple[bool, dict]] = {}
        self.mirror_pods: dict[str, dict] = {}
        self.pod_config = PodStorage(epoch=self.server.epoch)
        self.manifest_errors: list[str] = []
        self.manifest_url_errors: list[str] = []
        self._restart_requested: set[str] = set()
        self._file_source_started = False
        #: Pod UID -> (grace period seconds, status fields) of the pods the eviction manager evicted.
        self._evictions: dict[str, tuple[int, dict]] = {}
        thresholds = parse_threshold_config(
            eviction_hard=DEFAULT_EVICTION_HARD if self.options.eviction_hard is None else self.options.eviction_hard,
            eviction_soft=self.options.eviction_soft,
            eviction_soft_grace_period=self.options.eviction_soft_grace_period,
            eviction_minimum_reclaim=self.options.eviction_minimum_reclaim)
        #: Memory and disk bytes used outside pods (the OS, the kubelet, the runtime): cAdvisor's root
        #: cgroup and the node filesystem count them (:meth:`set_system_usage`).
        self.system_memory_bytes = 0
        self.system_disk_bytes = 0
        self.eviction_manager = EvictionManager(
            EvictionConfig(tuple(thresholds),
                           pressure_transition_period_seconds=self.options.eviction_pressure_transition_period_seconds,
                           max_pod_grace_period_seconds=self.options.eviction_max_pod_grace_period_seconds),
            KubeletEvictionAdapter(self), node_name)
        self.volume_manager = VolumeManager(self.env, node_name, KubeletVolumeHost(self),
                                            rng=random.Random(f"{seed}/volumes/{node_name}"))
        #: Pod UID -> the data directories ``makePodDataDirs`` made (pod, volumes, plugins).
        self.pod_dirs: dict[str, list[str]] = {}
        adapter = self.eviction_manager.adapter
        self.image_gc = RealImageGCManager(
            self.env, runtime, adapter.node_fs,
            lambda event_type, reason, message: adapter.record_event(f"Node/{node_name}", event_type, reason, message),
            ImageGCPolicy(self.options.image_gc_high_threshold_percent, self.options.image_gc_low_threshold_percent,
                          self.options.image_minimum_gc_age_seconds))

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Start the kubelet: registration and heartbeats, the pod source, the PLEG and the sync loop."""
        self._started_at = float(self.env.now)
        self.env.process(self._node_status_loop())
        self.env.process(self._lease_loop())
        self.env.process(self._pod_source())
        self.pleg.start()
        self.env.process(self._pleg_loop())
        if self.options.static_pod_path is not None and not self._file_source_started:
            self._file_source_started = True
            self.env.process(self._file_source())
        if self.options.static_pod_url:
            self.env.process(self._http_source())
        self.env.process(self._only_while_up(self._housekeeping_loop()))
        self.env.process(self._only_while_up(self.eviction_manager.run(self.env)))
        self.env.process(self._only_while_up(self.image_gc.run()))

    def node_down(self) -> None:
        """The kubelet stops: no heartbeats, status or API writes, and it does not act on its pods.

        The containers keep running (or exit on their own) in the runtime; the
        kubelet neither sees the API's pod changes (an eviction, a deletion) nor
        syncs, relists (PLEG), evicts or collects images until :meth:`node_up`.
        """
        if self.up:
            self.up = False
            self.pleg.stop()

    def node_up(self) -> None:
        """The kubelet is back: status is posted at once, and what it missed is acted on.

        The pod source's deliveries held while it was down are handed over, as a
        fresh list of the node's pods would (latest state of each pod, removals
        included), the PLEG relists and the pod workers sync again.
        """
        if not self.up:
            self.up = True
            self._status_reported_at = None
            self.pleg.start()
            deferred, self._deferred = self._deferred, {}
            for removed, pod in deferred.values():
                (self._on_pod_removed if removed else self._on_pod)(pod)
            if self._up_event is not None and not self._up_event.triggered:
                self._up_event.succeed()
            self._up_event = None

    # ------------------------------------------------------------ node: registration, status, lease
    def _machine_and_config(self, node: dict | None) -> tuple[MachineInfo, NodeConfig]:
        """MachineInfo and NodeConfig, derived once from an existing Node's capacity and addresses."""
        from kubenotes.api.quantity import memory_bytes, milli_cpu, value

        if self._machine is not None and self._node_config is not None:
            return self._machine, self._node_config
        st = (node or {}).get("status") or {}
        cap = st.get("capacity") or {}
        if self._machine is None:
            m = MachineInfo()
            if cap.get("cpu") is not None:
                m.num_cores = max(1, math.ceil(milli_cpu(cap["cpu"]) / 1000))
            if cap.get("memory") is not None:
                m.memory_capacity_bytes = memory_bytes(cap["memory"])
            if cap.get("ephemeral-storage") is not None:
                m.rootfs_capacity_bytes = memory_bytes(cap["ephemeral-storage"])
            self._machine = m
        if self._node_config is None:
            c = NodeConfig(node_name=self.node_name)
            ips = [a["address"] for a in st.get("addresses") or [] if a.get("type") == "InternalIP"]
            if ips:
                c.node_ips = ips
            if cap.get("pods") is not None:
                c.max_pods = value(cap["pods"])
            self._node_config = c
        return self._machine, self._node_config

    def _fmt(self, seconds: float) -> str:
        return format_timestamp(seconds, self.server.epoch)

    def _register(self) -> None:
        """``registerWithAPIServer``: create the Node, or reconcile the default labels of the existing one."""
        node = self.server.get("nodes", None, self.node_name)
        machine, config = self._machine_and_config(node)
        initial = initial_node(machine, config, self.env.now, format_time=self._fmt)
        initial["status"]["nodeInfo"].setdefault("kubeProxyVersion", "")
        try:
            if node is None:
                if self.options.register_node:
                    self.client.create("nodes", initial)
                return
            existing = copy.deepcopy(node)
            if update_default_labels(initial, existing):
                self.client.update("nodes", existing)
        except ApiError:
            pass  # retried at the next status update

    def _runtime_errors(self) -> list[str]:
        ok, message = self.pleg.healthy()
        if not ok and self.pleg.relist_time is not None:
            return [pleg_not_healthy_message(message)]
        return []

    def _images(self) -> list[dict]:
        return [{"repoTags": sorted(t for t, i in self.runtime.images.tags.items() if i == img.id),
                 "repoDigests": [img.repo_digest], "size": img.size_bytes}
                for img in self.runtime.images.images.values()]

    def _update_node_status(self) -> None:
        """``tryUpdateNodeStatus``: run the setters; post when changed or the report interval passed."""
        node = self.server.get("nodes", None, self.node_name)
        if node is None:
            self._register()
            return
        machine, config = self._machine_and_config(node)
        new = deep_copy(node)
        em = self.eviction_manager
        set_node_status(new, machine, config, self.env.now, images=self._images(), errors=self._runtime_errors(),
                        memory_pressure=em.is_under_memory_pressure(), disk_pressure=em.is_under_disk_pressure(),
                        pid_pressure=em.is_under_pid_pressure(), format_time=self._fmt)
        # NodeSystemInfo.kubeProxyVersion has no omitempty: the API shows "" (and lightkube's Node requires it)
        new["status"]["nodeInfo"].setdefault("kubeProxyVersion", "")
        in_use = self.volume_manager.volumes_in_use()  # the VolumesInUse setter (kubelet.csi)
        if in_use:
            new["status"]["volumesInUse"] = in_use
        else:
            new["status"].pop("volumesInUse", None)
        if not should_post_node_status(node.get("status"), new.get("status"), self.env.now,
                                       self._status_reported_at, self.options.node_status_report_frequency_seconds):
            self.volume_manager.mark_volumes_as_reported_in_use((node.get("status") or {}).get("volumesInUse"))
            return
        try:
            updated = self.client.update_status("nodes", new)
            self._status_reported_at = float(self.env.now)
            self.volume_manager.mark_volumes_as_reported_in_use((updated.get("status") or {}).get("volumesInUse"))
        except ApiError:
            pass

    def _wait_up(self) -> Generator:
        """Wait until the kubelet is up (every waiting process wakes at :meth:`node_up`)."""
        while not self.up:
            if self._up_event is None:
                self._up_event = self.env.event()
            yield self._up_event

    def _only_while_up(self, loop: Generator) -> Generator:
        """Run a kubelet loop (eviction manager, image GC) that pauses between its steps while the kubelet is down."""
        value = None
        while True:
            try:
                ev = loop.send(value)
            except StopIteration:
                return
            value = yield ev
            yield from self._wait_up()

    def _node_status_loop(self) -> Generator:
        self._register()
        while True:
            yield from self._wait_up()
            self._update_node_status()
            yield self.env.timeout(self.options.node_status_update_frequency_seconds)

    def _lease_loop(self) -> Generator:
        interval = lease_renew_interval_seconds(self.options.node_lease_duration_seconds)
        while True:
            yield from self._wait_up()
            node = self.server.get("nodes", None, self.node_name)
            uid = (node or {}).get("metadata", {}).get("uid", "")
            lease = self.server.get("leases", NODE_LEASE_NAMESPACE, self.node_name)
            try:
                if lease is None:
                    self.client.create("leases", new_lease(self.node_name, self.env.now, uid,
                                                           self.options.node_lease_duration_seconds,
                                                           self.server.epoch), NODE_LEASE_NAMESPACE)
                else:
                    self.client.update("leases", renew_lease(lease, self.node_name, self.env.now, uid,
                                                             self.options.node_lease_duration_seconds,
                                                             self.server.epoch), NODE_LEASE_NAMESPACE)
            except ApiError:
                pass  # the lease controller retries
            yield self.env.timeout(interval)

    # ------------------------------------------------------------ runtime hooks (for the default runtime)
    def _cni(self) -> Any:
        """The node's CNI layer (containerd's go-cni over ``/etc/cni/net.d``), made once the Node has a podCIDR.

        The network config is :func:`~kubenotes.cni.manager.default_conflist` for the Node's
        ``spec.podCIDR`` (bridge ``cni0`` + host-local IPAM + portmap + bandwidth); None while the
        Node has no podCIDR (the node IPAM controller has not assigned one yet).
        """
        if self.cni is None:
            from kubenotes.cni.manager import CNIManager, default_conflist

            node = self.server.get("nodes", None, self.node_name)
            cidr = ((node or {}).get("spec") or {}).get("podCIDR")
            if not cidr:
                return None
            self.cni = CNIManager(self.node_name, default_conflist(cidr))
        if not self._cni_hooks:
            self._cni_hooks = self.cni.cri_hooks()
        return self.cni

    def _network_setup(self, sandbox: Any) -> str:
        """RunPodSandbox's network step: CNI ADD through the node's plugins; the pod's first IP ("" without a podCIDR)."""
        if self._cni() is None:
            return ""
        ip = self._cni_hooks[0](sandbox)
        self._ips[sandbox.metadata.get("uid", "")] = ip
        return ip

    def _network_teardown(self, sandbox: Any) -> None:
        """StopPodSandbox's network step: CNI DEL (the pod's address goes back to host-local)."""
        if self._cni_hooks:
            self._cni_hooks[1](sandbox)

    def _process_model(self, container: Any) -> tuple[float, int] | None:
        """The stand-in's annotations first (``kubenotes.io/run-seconds``, ``exit-code``), then the command line.

        A command the model cannot read runs ``default_run_seconds`` in a batch
        pod or a regular init container (:func:`~kubenotes.kubelet.process_model.run_outcome`);
        the container's id is remembered so its start records a ``ModelAssumption`` Event.
        """
        sb = self.runtime.sandboxes.get(container.pod_sandbox_id)
        ann = (sb.config.get("annotations") or {}) if sb is not None else {}
        if ann.get(RUN_SECONDS_ANNOTATION) is not None:
            return float(ann[RUN_SECONDS_ANNOTATION]), int(ann.get(EXIT_CODE_ANNOTATION, "0"))
        argv = container.spec["process"]["args"]
        labels = container.config.get("labels") or {}
        pod = self.pods.get(labels.get("io.kubernetes.pod.uid", ""))
        if pod is None:
            return default_process_model(argv)
        name = labels.get("io.kubernetes.container.name", "")
        spec = self._spec_of(pod, name)
        known = (not spec.get("command") and not spec.get("args")
                 and spec.get("image", "") not in self._unknown_images)
        outcome, assumed = run_outcome(pod, name, argv, self.options.default_run_seconds, image_program_known=known)
        if assumed:
            self._assumed_runs[container.id] = (list(argv), outcome[0])
        return outcome

    def _probe_outcome(self, pod_uid: str, container: str, kind: str, now: float) -> Any:
        """The probe's outcome: a scenario's override, else ``options.probe_results``, else the model's reading.

        The model's reading (:func:`~kubenotes.kubelet.process_model.exec_probe_outcome`) answers an
        exec probe on a file the container's own script creates and removes; any other probe is taken
        to succeed, and a ``ModelAssumption`` Event says so once per container and probe.
        """
        override = self.probe_overrides.get((pod_uid, container, kind))
        if override is not None:
            return override
        src = self.options.probe_results
        if callable(src):
            return src(pod_uid, container, kind, now)
        if src is not None and (pod_uid, container, kind) in src:
            v = src[(pod_uid, container, kind)]
            return v(now) if callable(v) else v
        return self._modelled_probe_outcome(pod_uid, container, kind, now)

    def _modelled_probe_outcome(self, pod_uid: str, container: str, kind: str, now: float) -> Any:
        pod = self.pods.get(pod_uid)
        if pod is None:
            return "success"
        c = self._spec_of(pod, container)
        probe = c.get({LIVENESS: "livenessProbe", STARTUP: "startupProbe"}.get(kind, "readinessProbe")) or {}
        state = self.prober.containers.get((pod_uid, container))
        rc = self.runtime.containers.get(state.container_id.split("://", 1)[-1]) if state is not None else None
        if rc is not None and state.started_at is not None:
            outcome = exec_probe_outcome(probe, rc.spec["process"]["args"], c.get("image", ""), now - state.started_at)
            if outcome is not None:
                return outcome
        if kind == LIVENESS and (pod_uid, container, kind) not in self._assumed_probes:
            self._assumed_probes.add((pod_uid, container, kind))
            self._event(pod, EVENT_TYPE_NORMAL, MODEL_ASSUMPTION, probe_assumption_message(container, kind, probe),
                        self._field_path(pod, container))
        return "success"

    def set_system_usage(self, memory_bytes: int | None = None, disk_bytes: int | None = None) -> None:
        """Set the memory working set and disk bytes of what runs outside pods (a scenario's ``systemUsage``).

        Upstream's eviction manager reads the node's ``memory.available`` from
        the Summary API, whose node working set is cAdvisor's root cgroup:
        system daemons (the OS, the kubelet, the container runtime) count as
        much as pods. ``nodefs`` likewise holds more than images and writable layers.

        Parameters
        ----------
        memory_bytes, disk_bytes : int, optional
            None leaves a value as it is.

        Returns
        -------
        None

        Raises
        ------
        ValueError
            For a negative amount.

        References
        ----------
        kubernetes/kubernetes@v1.34.0 pkg/kubelet/server/stats/summary.go (the node's memory and fs stats)
        kubernetes/kubernetes@v1.34.0 pkg/kubelet/eviction/helpers.go (makeSignalObservations)

        Examples
        --------
        >>> from kubenotes.sim.cluster import Cluster
        >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        ...         "status": {"capacity": {"cpu": "2", "memory": "1Gi", "pods": "110"}}}
        >>> kubelet = Cluster([node], controllers=[]).kubelets["n1"]
        >>> kubelet.set_system_usage(memory_bytes=256 * 2**20)
        >>> kubelet.eviction_manager.adapter.summary(0.0)["node"]["memory"]
        {'availableBytes': 805306368, 'workingSetBytes': 268435456}
        """
        for name, v in (("memory_bytes", memory_bytes), ("disk_bytes", disk_bytes)):
            if v is not None and int(v) < 0:
                raise ValueError(f"{name} must be >= 0, got {v}")
        if memory_bytes is not None:
            self.system_memory_bytes = int(memory_bytes)
        if disk_bytes is not None:
            self.system_disk_bytes = int(disk_bytes)

    def running_container_id(self, namespace: str, name: str, container: str) -> str | None:
        """The runtime id of a pod's container that is running now (for a scenario's ``containerExit``)."""
        for c in self.runtime.containers.values():
            labels = c.config.get("labels") or {}
            if (labels.get("io.kubernetes.pod.namespace") == namespace and labels.get("io.kubernetes.pod.name") == name
                    and labels.get("io.kubernetes.container.name") == container and c.state == "CONTAINER_RUNNING"):
                return c.id
        return None

    # ------------------------------------------------------------ events
    def _event(self, pod: dict, event_type: str, reason: str, message: str, field_path: str = "") -> None:
        md = pod.get("metadata") or {}
        self.events.append({"time": float(self.env.now), "type": event_type, "reason": reason, "message": message,
                            "namespace": md.get("namespace", ""), "pod": md.get("name", ""),
                            "field_path": field_path})
        if self.up:
            obj = {"kind": "Pod", "apiVersion": "v1", "metadata": md}
            self.recorder.event(obj, event_type, reason, message, field_path)

    @staticmethod
    def _field_path(pod: dict, name: str) -> str:
        init = {c["name"] for c in (pod.get("spec") or {}).get("initContainers") or []}
        return f"spec.initContainers{{{name}}}" if name in init else f"spec.containers{{{name}}}"

    # ------------------------------------------------------------ pod source
    @staticmethod
    def _semantic(pod: dict) -> tuple:
        md = pod.get("metadata") or {}
        return (json.dumps(pod.get("spec"), sort_keys=True), json.dumps(md.get("labels"), sort_keys=True),
                json.dumps(md.get("annotations"), sort_keys=True), md.get("deletionTimestamp"),
                md.get("deletionGracePeriodSeconds"))

    def _pod_source(self) -> Generator:
        """The API pod source: list and watch pods with ``spec.nodeName=<node>`` (``config.NewSourceApiserver``)."""
        return watch_api_source(self.env, self.client, self.node_name, self._on_pod, self._on_pod_removed)

    def _defer_while_down(self, pod: dict, removed: bool) -> bool:
        """Hold a pod source delivery while the kubelet is down (it sees nothing); True when held."""
        if self.up:
            return False
        uid = pod["metadata"]["uid"]
        self._deferred.pop(uid, None)  # keep delivery order: the latest change goes last
        self._deferred[uid] = (removed, pod)
        return True

    def _on_pod(self, pod: dict) -> None:
        """``HandlePodAdditions``/``HandlePodUpdates``: status-only changes are not updates; mirror pods aside."""
        if self._defer_while_down(pod, False):
            return
        if is_mirror_pod(pod):
            self._on_mirror_pod(pod)
            return
        uid = pod["metadata"]["uid"]
        old = self.pods.get(uid)
        self.pods[uid] = pod
        self.prober.update_pod(pod)
        if old is not None and self._semantic(old) == self._semantic(pod):
            return
        if old is None and uid not in self.pod_workers:
            self._admit(uid, pod)
        self._dispatch(uid, pod)

    def _admit(self, uid: str, pod: dict) -> None:
        """``canAdmitPod`` (the eviction manager's admit handler) and ``rejectPod`` for a new pod.

        A rejected pod is never started: its worker writes phase Failed with the
        handler's reason and ``Pod was rejected: <message>``, after a Warning
        event with the handler's reason and message.
        """
        md = pod.get("metadata") or {}
        if md.get("deletionTimestamp") or (pod.get("status") or {}).get("phase") in (POD_SUCCEEDED, POD_FAILED):
            return
        ok, reason, message = self.eviction_manager.admit(pod)
        if ok:
            return
        self._event(pod, EVENT_TYPE_WARNING, reason, message)
        self._evictions[uid] = (0, {"phase": POD_FAILED, "reason": reason,
                                    "message": POD_REJECTED_MESSAGE_PREFIX + message})

    def _on_pod_removed(self, pod: dict) -> None:
        """``HandlePodRemoves``: forget the pod, kill what is left, remove its sandbox and logs."""
        if self._defer_while_down(pod, True):
            return
        if is_mirror_pod(pod):
            self._on_mirror_pod_removed(pod)
            return
        uid = pod["metadata"]["uid"]
        self.pods.pop(uid, None)
        self.runs.pop(uid, None)
        self.prober.remove_pod(pod)
        w = self.pod_workers.get(uid)
        if w is not None and not w.done:
            w.pod = pod
            self._trigger(w)
        else:
            self.env.process(self._remove_sandboxes(uid))

    # ------------------------------------------------------------ static pods and their mirror pods
    def _file_source(self) -> Generator:
        """The file source (``config.NewSourceFile``): read ``staticPodPath`` now and every ``fileCheckFrequency``."""
        while True:
            self.read_static_pods()
            yield self.env.timeout(self.options.file_check_frequency_seconds)

    def read_static_pods(self) -> list:
        """Read the manifest directory once and act on what changed (``extractFromDir`` + ``podStorage.merge``).

        New static pods are dispatched to pod workers (``HandlePodAdditions``),
        changed ones updated, removed ones killed (``HandlePodRemoves``). Called
        by the file source every ``fileCheckFrequency``; a notebook may call it to
        see an edit at once (upstream's inotify watch does the same on Linux).

        Returns
        -------
        list of PodUpdate
            The merged updates (``REMOVE``, ``ADD``, ``UPDATE``, ``DELETE``, ``RECONCILE``).

        Examples
        --------
        >>> import simpy
        >>> from types import SimpleNamespace
        >>> from kubenotes.apiserver.server import APIServer
        >>> env = simpy.Environment(); server = APIServer(env); admin = server.client("kubectl")
        >>> _ = admin.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
        >>> manifests = {"web.yaml": "apiVersion: v1\\nkind: Pod\\nmetadata: {name: web}\\n"
        ...                          "spec: {containers: [{name: web, image: nginx:1.27}]}\\n"}
        >>> k = Kubelet(SimpleNamespace(env=env, server=server), "n1",
        ...             options=KubeletConfiguration(static_pod_path=manifests)); k.start()
        >>> env.run(until=5)
        >>> mirror = admin.get("pods", "web-n1", "default")
        >>> static_uid = k.pod_config.all_pods()[0]["metadata"]["uid"]
        >>> mirror["metadata"]["annotations"]["kubernetes.io/config.mirror"] == static_uid, mirror["status"]["phase"]
        (True, 'Running')
        >>> del manifests["web.yaml"]; [u.op for u in k.read_static_pods()]
        ['REMOVE']
        >>> env.run(until=10); server.get("pods", "default", "web-n1") is None
        True
        """
        path = self.options.static_pod_path
        errors: list[str] = []
        if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__"):
            update = read_pods_from_dir(str(path), self.node_name, errors)
        else:
            files = {name: json.dumps(text) if isinstance(text, Mapping) else text
                     for name, text in dict(path or {}).items()}
            update = extract_from_dir(files, self.node_name, DEFAULT_STATIC_POD_PATH, errors)
        self.manifest_errors = errors
        return self._apply_source_update(update)

    def _http_source(self) -> Generator:
        """The HTTP source (``config.NewSourceURL``): fetch ``staticPodURL`` now and every ``httpCheckFrequency``."""
        while True:
            self.read_http_manifests()
            yield self.env.timeout(self.options.http_check_frequency_seconds)

    def read_http_manifests(self) -> list:
        """Fetch ``staticPodURL`` once and act on what changed (``extractFromURL`` + ``podStorage.merge``).

        A body of one Pod or a PodList replaces the source's pods; an empty body
        removes them all (upstream sends an empty update so the source counts as
        seen) and is reported as ``zero-length data received from <url>``; a
        failed request, a status other than 200 or a body that is not a pod
        leaves them as they were. Errors are kept in :attr:`manifest_url_errors`.

        Returns
        -------
        list of PodUpdate
            The merged updates.

        Examples
        --------
        >>> import simpy
        >>> from types import SimpleNamespace
        >>> from kubenotes.apiserver.server import APIServer
        >>> env = simpy.Environment(); server = APIServer(env); admin = server.client("kubectl")
        >>> _ = admin.create("nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
        >>> site = {"body": "apiVersion: v1\\nkind: Pod\\nmetadata: {name: agent}\\n"
        ...                 "spec: {containers: [{name: agent, image: busybox:1.36}]}\\n"}
        >>> get = lambda url, headers: (200, "200 OK", site["body"])
        >>> k = Kubelet(SimpleNamespace(env=env, server=server), "n1", options=KubeletConfiguration(
        ...     static_pod_url="http://10.0.0.1/pods", http_get=get)); k.start()
        >>> env.run(until=5)
        >>> mirror = admin.get("pods", "agent-n1", "default")
        >>> mirror["metadata"]["annotations"]["kubernetes.io/config.source"], mirror["status"]["phase"]
        ('http', 'Running')
        >>> site["body"] = ""; [u.op for u in k.read_http_manifests()], k.manifest_url_errors
        (['REMOVE'], ['zero-length data received from http://10.0.0.1/pods'])
        """
        url = self.options.static_pod_url
        headers = {k: list(v) if isinstance(v, (list, tuple)) else [v]
                   for k, v in dict(self.options.static_pod_url_header or {}).items()}
        try:
            code, text, body = (self.options.http_get or _http_get)(url, headers)
        except OSError as e:
            self.manifest_url_errors = [f"{url}: {e}"]
            return []
        try:
            update = extract_from_http(url, body, self.node_name, code, text)
            self.manifest_url_errors = []
        except ManifestError as e:
            self.manifest_url_errors = [str(e)]
            if code != 200 or body:
                return []
            update = PodUpdate(SET, HTTP_SOURCE, [])
        return self._apply_source_update(update)

    def _apply_source_update(self, update: PodUpdate) -> list:
        """Merge one static source's update and dispatch what changed (``podStorage.merge`` + the sync loop)."""
        updates = self.pod_config.merge(update, now=float(self.env.now))
        for reason, full_name, message in self.pod_config.events:
            name, _, namespace = full_name.rpartition("_")
            self._event({"metadata": {"name": name, "namespace": namespace}}, EVENT_TYPE_WARNING, reason, message)
        self.pod_config.events.clear()
        for u in updates:
            for p in u.pods:
                if u.op == REMOVE:
                    self._on_pod_removed(copy.deepcopy(p))
                elif u.op in (ADD, UPDATE, DELETE):
                    p = copy.deepcopy(p)
                    uid = p["metadata"]["uid"]
                    self.pods[uid] = p
                    self.prober.update_pod(p)
                    self._dispatch(uid, p)
        return updates

    @staticmethod
    def _is_static(pod: Mapping[str, Any]) -> bool:
        """A static pod as the kubelet holds it (its mirror in the API carries the same source annotation)."""
        return is_static_pod(pod) and not is_mirror_pod(pod)

    def write_static_pod_manifest(self, file_name: str, manifest: Any) -> None:
        """Put a manifest into this node's ``staticPodPath`` (the scenario action ``staticPod``).

        Parameters
        ----------
        file_name : str
            E.g. ``etcd.yaml``.
        manifest : str or dict
            YAML/JSON text, or a Pod as a dict.

        Notes
        -----
        An in-memory directory shared with other nodes (one configuration for
        the whole cluster) is copied first, so the manifest lands on this node
        only; with no ``staticPodPath`` an in-memory one is made. A real
        directory gets a real file. The kubelet sees it at its next read
        (``fileCheckFrequency``).
        """
        path = self.options.static_pod_path
        if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__"):
            text = json.dumps(manifest) if isinstance(manifest, Mapping) else manifest
            with open(os.path.join(os.fsdecode(path), file_name), "w" if isinstance(text, str) else "wb") as fh:
                fh.write(text)
            return
        self._own_static_pod_mapping()[file_name] = manifest

    def remove_static_pod_manifest(self, file_name: str) -> None:
        """Remove a manifest from this node's ``staticPodPath`` (the pod stops at the next read)."""
        path = self.options.static_pod_path
        if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__"):
            full = os.path.join(os.fsdecode(path), file_name)
            if os.path.exists(full):
                os.remove(full)
            return
        self._own_static_pod_mapping().pop(file_name, None)

    def _own_static_pod_mapping(self) -> dict:
        if not getattr(self, "_owns_static_pod_mapping", False):
            self.options = dataclasses.replace(self.options, static_pod_path=dict(self.options.static_pod_path or {}))
            self._owns_static_pod_mapping = True
        if not self._file_source_started:
            self._file_source_started = True
            self.env.process(self._file_source())
        return self.options.static_pod_path

    def _static_pod_by_full_name(self, full_name: str) -> dict | None:
        """``GetPodByMirrorPod``: the static pod a mirror pod stands for."""
        return next((p for p in self.pods.values() if self._is_static(p) and pod_full_name(p) == full_name), None)

    def _on_mirror_pod(self, mirror: dict) -> None:
        """``handleMirrorPod``: a new or changed mirror pod syncs its static pod (status-only changes do not)."""
        full = pod_full_name(mirror)
        old = self.mirror_pods.get(full)
        self.mirror_pods[full] = mirror
        if old is not None and old["metadata"].get("uid") == mirror["metadata"].get("uid") \
                and self._semantic(old) == self._semantic(mirror):
            return
        self._sync_static_pod_of(full)

    def _on_mirror_pod_removed(self, mirror: dict) -> None:
        """A mirror pod left the API: forget it and sync its static pod (which creates it again)."""
        full = pod_full_name(mirror)
        current = self.mirror_pods.get(full)
        if current is not None and current["metadata"].get("uid") == mirror["metadata"].get("uid"):
            del self.mirror_pods[full]
        self._sync_static_pod_of(full)

    def _sync_static_pod_of(self, full_name: str) -> None:
        static = self._static_pod_by_full_name(full_name)
        if static is None:
            return
        w = self.pod_workers.get(static["metadata"]["uid"])
        if w is not None and not w.done:
            self._trigger(w)

    def _sync_mirror_pod(self, pod: dict) -> None:
        """SyncPod's mirror step: delete an outdated or deleted mirror pod, create a missing one.

        A mirror pod that is being deleted (``kubectl delete``) or carries an old
        hash is deleted at once (grace period 0, uid precondition) and a new one is
        created (``CreateMirrorPod``), unless the Node is gone or being deleted.
        """
        if not self.up:
            return
        full = pod_full_name(pod)
        mirror = self.mirror_pods.get(full)
        deleted = False
        if mirror is not None and ((mirror.get("metadata") or {}).get("deletionTimestamp")
                                   or not is_mirror_pod_of(mirror, pod)):
            deleted = self._delete_mirror_pod(full, mirror["metadata"].get("uid"))
        if mirror is not None and not deleted:
            return
        node = self.server.get("nodes", None, self.node_name)
        if node is None or (node.get("metadata") or {}).get("deletionTimestamp"):
            return  # no need to create a mirror pod: the node has been removed from the cluster
        body = mirror_pod(pod, self.node_name, node["metadata"].get("uid", ""))
        try:
            created = self.client.create("pods", body, pod["metadata"]["namespace"])
        except ApiError:
            return  # AlreadyExists (the watch brings it) or a rejection: retried at the next sync
        self.mirror_pods[full] = created
        self._status_written.pop(pod["metadata"]["uid"], None)  # the new mirror has no status yet

    def _delete_mirror_pod(self, full_name: str, uid: str | None) -> bool:
        """``DeleteMirrorPod``: delete with grace period 0 (and a uid precondition when given); True if deleted."""
        name, _, namespace = full_name.rpartition("_")
        try:
            self.client.delete("pods", name, namespace, grace_period_seconds=0,
                               preconditions={"uid": uid} if uid else None)
        except ApiError:
            return False  # NotFound or a failed precondition (Conflict): nothing deleted
        current = self.mirror_pods.get(full_name)
        if current is not None and (uid is None or current["metadata"].get("uid") == uid):
            del self.mirror_pods[full_name]
        return True

    def _housekeeping_loop(self) -> Generator:
        """``HandlePodCleanups`` every ``housekeepingPeriod``, reduced to ``deleteOrphanedMirrorPods``.

        A mirror pod without a static pod is deleted once no pod worker is still
        terminating a static pod of that full name (and once the file source has
        been read, ``sourcesReady``). A pod that came back while its worker was
        terminating it (a manifest removed and added back with the same uid) is
        started again (``restartRequested``).
        """
        while True:
            yield self.env.timeout(HOUSEKEEPING_PERIOD_SECONDS)
            for uid in sorted(self._restart_requested):  # podWorkers.SyncKnownPods: restartRequested
                if uid in self.pods and uid not in self.pod_workers:
                    self._dispatch(uid, self.pods[uid])
            self._restart_requested.clear()
            if not self.mirror_pods or not self.up:
                continue
            if self.options.static_pod_path is not None and "file" not in self.pod_config.sources_seen:
                continue
            if self.options.static_pod_url and HTTP_SOURCE not in self.pod_config.sources_seen:
                continue
            statics = {pod_full_name(p) for p in self.pods.values() if self._is_static(p)}
            terminating = {pod_full_name(w.pod) for w in self.pod_workers.values()
                           if not w.done and self._is_static(w.pod)}
            for full in [f for f in self.mirror_pods if f not in statics and f not in terminating]:
                self._delete_mirror_pod(full, None)

    def _dispatch(self, uid: str, pod: dict) -> None:
        """``podWorkers.UpdatePod``: start the pod's worker or give it the new pod."""
        w = self.pod_workers.get(uid)
        if w is None:
            w = _PodWorker(uid, pod)
            self.pod_workers[uid] = w
            w.process = self.env.process(self._pod_worker_loop(w))
            return
        w.pod = pod
        self._trigger(w)

    def _trigger(self, w: _PodWorker) -> None:
        w.pending = True
        if w.wake is not None and not w.wake.triggered:
            w.wake.succeed()

    def _pleg_loop(self) -> Generator:
        """``syncLoopIteration``'s PLEG case: every event syncs its pod."""
        while True:
            e = yield self.pleg.event_channel.get()
            w = self.pod_workers.get(e.id)
            if w is not None and not w.done:
                self._trigger(w)

    def _next_tick(self, t: float) -> float:
        k = math.ceil(round((t - self._started_at) / SYNC_LOOP_TICK_SECONDS, 9))
        return self._started_at + max(k, 0) * SYNC_LOOP_TICK_SECONDS

    def _jitter(self, seconds: float) -> float:
        return seconds * (1 + self.rng.random() * WORKER_JITTER_FACTOR)

    def _pod_worker_loop(self, w: _PodWorker) -> Generator:
        """``podWorkerLoop``: one sync at a time for this pod, then requeue (``completeWork``)."""
        while not w.done:
            if not w.pending:
                w.wake = self.env.event()
                waits = [w.wake]
                if w.requeue_at is not None:
                    waits.append(self.env.timeout(max(0.0, self._next_tick(w.requeue_at) - self.env.now)))
                yield self.env.any_of(waits)
                w.wake = None
            yield from self._wait_up()  # a stopped kubelet syncs nothing
            w.pending = False
            w.requeue_at = None
            pod = w.pod
            if w.uid not in self.pods or (pod.get("metadata") or {}).get("deletionTimestamp"):
                yield from self._sync_terminating_pod(w, pod)
                w.done = True
                break
            try:
                terminal = yield from self._sync_pod(w, pod)
            except _Requeue:
                # v1.34's completeWork: any sync error (a container or image in back-off included) requeues
                # after backOffPeriod with up to 50 % jitter (10-15 s); requeueing at the back-off's expiry
                # came with kubernetes#133066, after v1.34.0
                w.requeue_at = self.env.now + self._jitter(BACK_OFF_PERIOD_SECONDS)
                continue
            if terminal:
                yield from self._sync_terminal_pod(w, self.pods.get(w.uid, pod))
                continue
            w.requeue_at = self.env.now + self._jitter(self.options.sync_frequency_seconds)
        self.pod_workers.pop(w.uid, None)
        again = self.pods.get(w.uid)
        if again is not None and not (again.get("metadata") or {}).get("deletionTimestamp"):
            self._restart_requested.add(w.uid)  # e.g. a static pod's manifest removed and added back

    # ------------------------------------------------------------ runtime inspection
    def _seconds(self, ns: int) -> float | None:
        return None if not ns else (ns - self.runtime.epoch_ns) / 1e9

    def _get_pod_status(self, uid: str) -> Generator:
        """``GetPodStatus``: sandboxes and container instances of the pod, as a :class:`RuntimePodStatus`."""
        selector = {"filter": {"label_selector": {"io.kubernetes.pod.uid": uid}}}
        sandboxes = (yield from self.runtime.ListPodSandbox(selector)).get("items") or []
        sandboxes.sort(key=lambda s: s.get("created_at", 0), reverse=True)
        status = RuntimePodStatus()
        ready = [s for s in sandboxes if s.get("state") == "SANDBOX_READY"]
        if ready:
            resp = yield from self.runtime.PodSandboxStatus({"pod_sandbox_id": ready[0]["id"]})
            ip = ((resp.get("status") or {}).get("network") or {}).get("ip", "")
            status.ips = [ip] if ip else []
            status.sandbox_ready = True
        containers = (yield from self.runtime.ListContainers(selector)).get("containers") or []
        prefix = "cri-o" if self.runtime.kind == "cri-o" else "containerd"
        states = {"CONTAINER_RUNNING": CONTAINER_STATE_RUNNING, "CONTAINER_EXITED": CONTAINER_STATE_EXITED,
                  "CONTAINER_CREATED": CONTAINER_STATE_CREATED}
        for c in containers:
            s = (yield from self.runtime.ContainerStatus({"container_id": c["id"]}))["status"]
            ann = s.get("annotations") or {}
            status.container_statuses.append(RuntimeContainerStatus(
                name=s["metadata"]["name"], state=states.get(s["state"], CONTAINER_STATE_UNKNOWN),
                id=f"{prefix}://{s['id']}", image=s["image"]["image"], image_ref=s.get("image_ref", ""),
                created_at_seconds=self._seconds(s["created_at"]) or 0.0,
                started_at_seconds=self._seconds(s["started_at"]), finished_at_seconds=self._seconds(s["finished_at"]),
                exit_code=s.get("exit_code", 0), reason=s.get("reason", ""), message=s.get("message", ""),
                restart_count=int(ann.get("io.kubernetes.container.restartCount", "0"))))
        return status, sandboxes, {c["id"]: c for c in containers}

    def _feed_prober_and_logs(self, uid: str, status: RuntimePodStatus) -> None:
        """Tell the prober about new or exited instances; close the log runs of exited ones."""
        names = {c.name for c in status.container_statuses}
        for name in names:
            cs = status.find_container_status_by_name(name)
            key = (uid, name)
            seen = self._prober_seen.get(key)
            if seen == (cs.id, cs.state):
                continue
            self._prober_seen[key] = (cs.id, cs.state)
            if cs.state == CONTAINER_STATE_RUNNING:
                self.prober.container_started(uid, name, cs.id, cs.started_at_seconds)
            elif cs.state == CONTAINER_STATE_EXITED:
                self.prober.container_exited(uid, name, cs.id, cs.exit_code)
        for cs in status.container_statuses:
            if cs.state == CONTAINER_STATE_EXITED:
                for run in self.runs.get(uid, {}).get(cs.name, []):
                    if run.container_id == cs.id and run.finished_seconds is None:
                        run.finished_seconds = cs.finished_at_seconds

    # ------------------------------------------------------------ status manager
    def _host_ips(self) -> list[str]:
        node = self.server.get("nodes", None, self.node_name) or {}
        return [a["address"] for a in (node.get("status") or {}).get("addresses") or []
                if a.get("type") == "InternalIP"]

    def _probe_results(self, uid: str, pod: dict) -> tuple[dict, dict]:
        readiness, startup = {}, {}
        spec = pod.get("spec") or {}
        for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or []):
            r = self.prober.readiness(uid, c["name"])
            if r is not None and c.get("readinessProbe") is not None:
                readiness[c["name"]] = r == SUCCESS
            s = self.prober.startup(uid, c["name"])
            if s is not None and c.get("startupProbe") is not None:
                startup[c["name"]] = s == SUCCESS
        return readiness, startup

    def _generate_status(self, w: _PodWorker, pod: dict, status: RuntimePodStatus, terminal: bool = False) -> dict:
        uid = w.uid
        readiness, startup = self._probe_results(uid, pod)
        return generate_api_pod_status(
            pod, status, now=self.env.now, host_ips=self._host_ips(), pod_is_terminal=terminal,
            old_status=self._status_written.get(uid), reason_cache=self.reason_cache.get(uid),
            readiness_results=readiness, startup_results=startup, start_time=w.started_at, format_time=self._fmt)

    def _set_pod_status(self, uid: str, status: dict) -> None:
        """``statusManager.SetPodStatus`` + ``syncPod``: write the status when it changed (one retry on conflict)."""
        if self._status_written.get(uid) == status or not self.up:
            return
        for _ in range(2):
            pod = self.pods.get(uid)
            if pod is None:
                return
            static = self._is_static(pod)
            target = self.mirror_pods.get(pod_full_name(pod)) if static else pod
            if target is None or (static and not is_mirror_pod_of(target, pod)):
                return  # a static pod without its mirror pod yet: written once the mirror exists
            new = dict(target)
            new["status"] = status
            md = target["metadata"]
            try:
                out = self.client.update_status("pods", new, md["namespace"])
            except ApiError as e:
                if e.code == 409:
                    try:
                        fresh = self.client.get("pods", md["name"], md["namespace"])
                    except ApiError:
                        return
                    if static:
                        self.mirror_pods[pod_full_name(pod)] = fresh
                    else:
                        self.pods[uid] = fresh
                    continue
                return
            if static:  # the status manager writes a static pod's status to its mirror pod (TranslatePodUID)
                self.mirror_pods[pod_full_name(pod)] = out
                out = dict(pod)
                out["status"] = status
            self.pods[uid] = out
            self.prober.update_pod(out)
            self._status_written[uid] = status
            self.status_log.append((float(self.env.now), uid, status))
            return

    # ------------------------------------------------------------ SyncPod
    def _sync_pod(self, w: _PodWorker, pod: dict) -> Generator:
        """``Kubelet.SyncPod`` + ``kubeGenericRuntimeManager.SyncPod``; returns whether the pod is terminal.

        Raises
        ------
        _Requeue
            A container or image is backed off (requeue at its expiry), or a step failed (10 s, jittered).
        """
        uid = w.uid
        self.sync_log.append((float(self.env.now), uid, "SyncPod"))
        if w.started_at is None:
            w.started_at = float(self.env.now)
        if uid in self._evictions:
            yield from self._sync_evicted_pod(w, pod)
            return True
        status, sandboxes, _ = yield from self._get_pod_status(uid)
        self._feed_prober_and_logs(uid, status)
        api_status = self._generate_status(w, pod, status)
        if self._is_static(pod):
            self._sync_mirror_pod(self.pods.get(uid, pod))
        self._set_pod_status(uid, api_status)
        if api_status.get("phase") in (POD_SUCCEEDED, POD_FAILED):
            return True
        pod = self.pods.get(uid, pod)
        if uid not in self.pod_dirs:  # makePodDataDirs
            base = f"{KUBELET_PODS_DIR}/{uid}"
            self.pod_dirs[uid] = [base, f"{base}/volumes", f"{base}/plugins"]
        try:
            yield from self.volume_manager.wait_for_attach_and_mount(pod, lambda: self._termination_requested(uid))
        except WaitForAttachAndMountError:
            raise _Requeue(BACK_OFF_PERIOD_SECONDS) from None  # v1.34 records no Event for the timeout
        self.prober.add_pod(pod)
        reasons_before = dict(self.reason_cache.get(uid, {}))

        requeue: list[float] = []
        spec = pod.get("spec") or {}
        policy = spec.get("restartPolicy", "Always")
        containers = list(spec.get("containers") or [])
        init_containers = list(spec.get("initContainers") or [])

        # 1. kill what must die: probe failures and changed specs
        to_start_after_kill: set[str] = set()
        kills = []
        for c in containers + [c for c in init_containers if is_restartable_init_container(c)]:
            cs = status.find_container_status_by_name(c["name"])
            if cs is None or cs.state != CONTAINER_STATE_RUNNING:
                continue
            message, reason = "", ""
            req = self._kill_requests.get((uid, c["name"]))
            if req is not None and req[0] == cs.id:
                message, reason = req[1], "probe"
            elif self._running_hash(uid, cs) not in ("", container_hash(c)):
                message = f"Container {c['name']} definition changed, will be restarted"
                reason = "hash"
            if message:
                kills.append((c, cs, message))
                # a changed spec restarts regardless of the restart policy (computePodActions)
                restart = reason == "hash" or policy != "Never" or is_restartable_init_container(c)
                if restart:
                    to_start_after_kill.add(c["name"])
        for c, cs, message in kills:
            self._kill_requests.pop((uid, c["name"]), None)
            yield from self._kill_container(pod, c, cs.id, message, self._probe_grace(pod, c))

        # 2. the sandbox
        if not status.sandbox_ready:
            if status.container_statuses and any(s.state == CONTAINER_STATE_RUNNING for s in status.container_statuses):
                # a dead sandbox takes its containers with it (killPodWithSyncResult)
                for cs in status.container_statuses:
                    if cs.state == CONTAINER_STATE_RUNNING:
                        c = self._spec_of(pod, cs.name)
                        yield from self._kill_container(pod, c, cs.id, f"Stopping container {cs.name}",
                                                        self._pod_grace(pod))
            if policy == "Never" and any(s.name in {c["name"] for c in containers} for s in status.container_statuses):
                return False  # a Never pod that already ran is not restarted in a new sandbox
            ok = yield from self._create_sandbox(pod, len(sandboxes))
            if not ok:
                raise _Requeue(BACK_OFF_PERIOD_SECONDS)
            status = RuntimePodStatus(ips=status.ips, container_statuses=status.container_statuses, sandbox_ready=True)
        sandbox_id = self._ready_sandbox_id(uid)
        sandbox_config = sandbox_config_for_pod(pod, attempt=self._sandbox_attempts.get(uid, 0))

        # 3. init containers, one at a time; sidecars in their place
        init_done = True
        for c in init_containers:
            cs = status.find_container_status_by_name(c["name"])
            if is_restartable_init_container(c):
                if cs is not None and cs.state == CONTAINER_STATE_RUNNING and c["name"] not in to_start_after_kill:
                    if self.prober.is_container_started(uid, c["name"]) or c.get("startupProbe") is None:
                        continue
                    init_done = False  # wait for the sidecar's startup probe
                    break
                yield from self._start_or_back_off(pod, c, status, sandbox_id, sandbox_config, requeue)
                init_done = False
                break
            if cs is not None and cs.state == CONTAINER_STATE_EXITED and cs.exit_code == 0:
                continue
            init_done = False
            if cs is not None and cs.state == CONTAINER_STATE_RUNNING:
                break
            if cs is not None and cs.state == CONTAINER_STATE_EXITED and policy == "Never":
                break  # the pod has failed (getPhase says Failed at the next sync)
            yield from self._start_or_back_off(pod, c, status, sandbox_id, sandbox_config, requeue)
            break

        # 4. app containers (and sidecars that exited after initialization)
        if init_done:
            regular = {c["name"] for c in containers}
            keep = start = 0
            for c in containers:
                cs = status.find_container_status_by_name(c["name"])
                if c["name"] in to_start_after_kill or should_container_be_restarted(c, pod, status):
                    start += 1
                elif cs is not None and cs.state == CONTAINER_STATE_RUNNING:
                    keep += 1
            if containers and keep == 0 and start == 0:
                # computePodActions: nothing to keep, nothing to start: KillPod, and the sidecars are not
                # restarted, so they do not keep the pod alive (a Job's pod with a sidecar completes)
                running = [cs for cs in status.container_statuses if cs.state == CONTAINER_STATE_RUNNING]
                if running:
                    yield from self._kill_containers_in_order(pod, running, self._pod_grace(pod))
                    yield from self._stop_sandbox(uid)
                return False
            for c in [c for c in init_containers if is_restartable_init_container(c)] + containers:
                cs = status.find_container_status_by_name(c["name"])
                if c["name"] not in to_start_after_kill:
                    if cs is not None and cs.state == CONTAINER_STATE_RUNNING:
                        continue
                    if not should_container_be_restarted(c, pod, status):
                        continue
                yield from self._start_or_back_off(pod, c, status, sandbox_id, sandbox_config, requeue)
        self._write_new_waiting_reasons(w, uid, pod, status, reasons_before)
        if requeue:
            raise _Requeue(max(0.0, min(requeue)))
        return False

    def _write_new_waiting_reasons(self, w: _PodWorker, uid: str, pod: dict, status: RuntimePodStatus,
                                   before: Mapping[str, tuple[str, str]]) -> None:
        """After SyncPod's actions: write the status again when they gave a container a new Waiting reason.

        ``CrashLoopBackOff``, ``CreateContainerConfigError``, ``ErrImagePull``...
        (the reason cache) then show from the moment the kubelet decided them,
        with the last termination in ``lastState``, as ``kubectl get`` and
        ``describe`` show them during the whole back-off.
        """
        after = self.reason_cache.get(uid, {})
        if any(before.get(name) != reason for name, reason in after.items()):
            self._set_pod_status(uid, self._generate_status(w, self.pods.get(uid, pod), status))

    def _service_env(self, pod: dict) -> dict[str, str]:
        """The Service variables of the pod's containers (``getServiceEnvVarMap``), from the Services that
        exist now: a Service created after the pod's container started is not in its environment."""
        spec = pod.get("spec") or {}
        return service_env_vars(self.server.list("services"), (pod.get("metadata") or {}).get("namespace", "default"),
                                enable_service_links=spec.get("enableServiceLinks", True) is not False)

    def _termination_requested(self, uid: str) -> bool:
        """``IsPodTerminationRequested``: the pod left the API, is being deleted, or is to be evicted."""
        pod = self.pods.get(uid)
        return pod is None or bool((pod.get("metadata") or {}).get("deletionTimestamp")) or uid in self._evictions

    def _spec_of(self, pod: dict, name: str) -> dict:
        spec = pod.get("spec") or {}
        for c in list(spec.get("containers") or []) + list(spec.get("initContainers") or []):
            if c["name"] == name:
                return c
        return {"name": name}

    def _running_hash(self, uid: str, cs: RuntimeContainerStatus) -> str:
        c = self.runtime.containers.get(cs.id.split("://", 1)[-1])
        return ((c.config.get("annotations") or {}).get("io.kubernetes.container.hash", "")) if c else ""

    def _ready_sandbox_id(self, uid: str) -> str:
        """The newest ready sandbox of the pod ("" when none)."""
        best = None
        for sb in self.runtime.sandboxes.values():
            if sb.state == "SANDBOX_READY" and sb.metadata.get("uid") == uid \
                    and (best is None or sb.created_at > best.created_at):
                best = sb
        return best.id if best is not None else ""

    @staticmethod
    def _pod_grace(pod: dict) -> float:
        md, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        if md.get("deletionGracePeriodSeconds") is not None:
            return float(md["deletionGracePeriodSeconds"])
        g = spec.get("terminationGracePeriodSeconds")
        return float(DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS if g is None else g)

    def _probe_grace(self, pod: dict, c: dict) -> float:
        for field_name in ("livenessProbe", "startupProbe"):
            g = (c.get(field_name) or {}).get("terminationGracePeriodSeconds")
            if g is not None:
                return float(g)
        g = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
        return float(DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS if g is None else g)

    def _create_sandbox(self, pod: dict, attempt: int) -> Generator:
        """``createPodSandbox``: ``RunPodSandbox`` with the pause image (the runtime pulls and pins it)."""
        uid = pod["metadata"]["uid"]
        self._sandbox_attempts[uid] = attempt
        config = sandbox_config_for_pod(pod, attempt=attempt)
        try:
            yield from self.runtime.RunPodSandbox({"config": config, "runtime_handler": ""})
        except CRIError as e:
            self._event(pod, EVENT_TYPE_WARNING, "FailedCreatePodSandBox",
                        f"Failed to create pod sandbox: {e}")
            return False
        return True

    def _start_or_back_off(self, pod: dict, c: dict, status: RuntimePodStatus, sandbox_id: str,
                           sandbox_config: dict, requeue: list) -> Generator:
        """The ``start`` helper of SyncPod: ``doBackOff`` for an exited container, then ``startContainer``.

        ``doBackOff`` looks at the newest *exited* instance of the container,
        so a container its liveness probe just killed (the killed instance was
        still running when the status was read) is held back too
        once an earlier instance has exited and the back-off outlasts its run.
        """
        uid = pod["metadata"]["uid"]
        name = c["name"]
        exited = [s for s in status.container_statuses if s.name == name and s.state == CONTAINER_STATE_EXITED]
        cs = max(exited, key=lambda s: s.created_at_seconds) if exited else None
        if cs is not None:
            h = container_hash(c)
            result = do_back_off(self.crash_loop_back_off, pod, name, h, cs.finished_at_seconds)
            if result.in_back_off:
                self.reason_cache.setdefault(uid, {})[name] = (result.reason, result.message)
                ev = result.event
                self._event(pod, ev["type"], ev["reason"], ev["message"], self._field_path(pod, name))
                key = get_backoff_key(pod, name, h)
                requeue.append(cs.finished_at_seconds + self.crash_loop_back_off.get(key) - self.env.now)
                return
        ok = yield from self._start_container(pod, c, status, sandbox_id, sandbox_config, requeue)
        if ok:
            self.reason_cache.get(uid, {}).pop(name, None)

    # ------------------------------------------------------------ images
    def _ensure_image_exists(self, pod: dict, c: dict) -> Generator:
        """``EnsureImageExists``: the pull policy, the pull back-off, and the events; returns (ok, reason, message)."""
        uid = pod["metadata"]["uid"]
        image = c.get("image", "")
        fp = self._field_path(pod, c["name"])
        resp = yield from self.runtime.ImageStatus({"image": {"image": image}})
        present = resp.get("image") is not None
        policy = image_pull_policy(c)
        if policy == "Never" or (policy == "IfNotPresent" and present):
            if present:
                self._event(pod, EVENT_TYPE_NORMAL, PULLED_IMAGE, _ALREADY_PRESENT_MESSAGE.format(image=image), fp)
                return True, "", ""
            msg = _IMAGE_NEVER_PULL_MESSAGE.format(image=image)
            self._event(pod, EVENT_TYPE_WARNING, ERR_IMAGE_NEVER_PULL_POLICY, msg, fp)
            return False, ERR_IMAGE_NEVER_PULL_POLICY, msg
        before = self.image_pull_back_off.before_pull(uid, image)
        for ev in before.events:
            self._event(pod, ev["type"], ev["reason"], ev["message"], fp)
        if not before.pull:
            return False, before.reason, before.message
        if self.options.unknown_images_exist and self.runtime.images.catalogue.get(image) is None:
            try:
                # its Cmd (no Entrypoint, as most official images): a program named after the repository,
                # which the pod's command or args replace
                program = image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0] or "app"
                self.runtime.images.catalogue.register(image, [_UNKNOWN_IMAGE_BYTES],
                                                       config={"Cmd": [f"/usr/local/bin/{program}"]})
                self._unknown_images.add(image)
            except ValueError:
                pass  # an invalid reference: the pull fails with the runtime's words
        queued = float(self.env.now)
        if self.options.serialize_image_pulls:
            with self._pull_lock.request() as req:
                yield req
                result = yield from self._pull(pod, c, image, queued)
        else:
            result = yield from self._pull(pod, c, image, queued)
        return result

    def _pull(self, pod: dict, c: dict, image: str, queued: float) -> Generator:
        uid = pod["metadata"]["uid"]
        fp = self._field_path(pod, c["name"])
        started = float(self.env.now)
        try:
            yield from self.runtime.PullImage({"image": {"image": image}})
        except CRIError as e:
            r = self.image_pull_back_off.pull_failed(uid, image, str(e))
            for ev in r.events:
                self._event(pod, ev["type"], ev["reason"], ev["message"], fp)
            return False, r.reason, r.message
        pulled = float(self.env.now)
        size = ((yield from self.runtime.ImageStatus({"image": {"image": image}})).get("image") or {}).get("size", 0)
        self.image_pull_back_off.pull_succeeded()
        self._event(pod, EVENT_TYPE_NORMAL, PULLED_IMAGE, pulled_message(image, pulled - started, pulled - queued,
                                                                        int(size)), fp)
        return True, "", ""

    # ------------------------------------------------------------ containers
    def _start_container(self, pod: dict, c: dict, status: RuntimePodStatus, sandbox_id: str,
                         sandbox_config: dict, requeue: list) -> Generator:
        """``startContainer``: image, ``CreateContainer`` (``Created``), ``StartContainer`` (``Started``)."""
        uid = pod["metadata"]["uid"]
        name = c["name"]
        fp = self._field_path(pod, name)
        ok, reason, message = yield from self._ensure_image_exists(pod, c)
        if not ok:
            self.reason_cache.setdefault(uid, {})[name] = (reason, message)
            self._event(pod, EVENT_TYPE_WARNING, FAILED_TO_CREATE_CONTAINER, f"Error: {reason}", fp)
            if reason == "ImagePullBackOff" or reason == "ErrImagePull":
                key = self.image_pull_back_off.key(uid, c.get("image", ""))
                entry = self.image_pull_back_off.back_off.per_item_backoff.get(key)
                if entry is not None:
                    requeue.append(entry.last_update + entry.backoff_seconds - self.env.now)
                    return False
            requeue.append(BACK_OFF_PERIOD_SECONDS)
            return False
        prev = status.find_container_status_by_name(name)
        restart_count = prev.restart_count + 1 if prev is not None else 0
        memory = (self._machine or MachineInfo()).memory_capacity_bytes
        service_env = self._service_env(pod)
        host = self.volume_manager.adapter
        environment = make_environment_variables(pod, c, service_env, host.get_config_map, host.get_secret,
                                                 self._ips.get(uid, ""))
        if not environment.ok:  # generateContainerConfig failed: ErrCreateContainerConfig
            self.reason_cache.setdefault(uid, {})[name] = (CREATE_CONTAINER_CONFIG_ERROR, environment.error)
            self._event(pod, EVENT_TYPE_WARNING, FAILED_TO_CREATE_CONTAINER, f"Error: {environment.error}", fp)
            requeue.append(BACK_OFF_PERIOD_SECONDS)
            return False
        config = container_config_for_pod(pod, name, attempt=restart_count, memory_capacity_bytes=memory,
                                          environment=environment.variables)
        config["annotations"]["io.kubernetes.container.hash"] = container_hash(c)
        try:
            cid = (yield from self.runtime.CreateContainer({"pod_sandbox_id": sandbox_id, "config": config,
                                                             "sandbox_config": sandbox_config}))["container_id"]
        except CRIError as e:
            self.reason_cache.setdefault(uid, {})[name] = ("CreateContainerError", str(e))
            self._event(pod, EVENT_TYPE_WARNING, FAILED_TO_CREATE_CONTAINER, f"Error: {e}", fp)
            requeue.append(BACK_OFF_PERIOD_SECONDS)
            return False
        self._event(pod, EVENT_TYPE_NORMAL, CREATED_CONTAINER, f"Created container: {name}", fp)
        try:
            yield from self.runtime.StartContainer({"container_id": cid})
        except CRIError as e:
            self.reason_cache.setdefault(uid, {})[name] = ("RunContainerError", str(e))
            self._event(pod, EVENT_TYPE_WARNING, FAILED_TO_START_CONTAINER, f"Error: {e}", fp)
            requeue.append(BACK_OFF_PERIOD_SECONDS)
            return False
        self._event(pod, EVENT_TYPE_NORMAL, STARTED_CONTAINER, f"Started container {name}", fp)
        assumed = self._assumed_runs.pop(cid, None)
        if assumed is not None:
            self._event(pod, EVENT_TYPE_NORMAL, MODEL_ASSUMPTION, assumed_exit_message(c, assumed[1]), fp)
        prefix = "cri-o" if self.runtime.kind == "cri-o" else "containerd"
        current = self.pods.get(uid, pod)
        ann = (current.get("metadata") or {}).get("annotations") or {}
        rc = self.runtime.containers.get(cid)
        now = self._seconds(rc.started_at) if rc is not None and rc.started_at else float(self.env.now)
        log_env = container_env(current, c, service_env)
        log_env.update((k, v) for k, v in environment.variables if k not in environment.unknown)
        lines = modelled_output(c, ann, log_env)
        self.runs.setdefault(uid, {}).setdefault(name, []).append(
            ContainerRun(f"{prefix}://{cid}", now, lines=[(now + dt, text) for dt, text in lines]))
        yield from self._gc_dead_containers(uid, name, keep=cid)
        return True

    def _gc_dead_containers(self, uid: str, name: str, keep: str) -> Generator:
        """Container GC in miniature: keep the new instance and the newest dead one (``MaxPerPodContainer`` 1)."""
        dead = sorted((c for c in self.runtime.containers.values()
                       if (c.config.get("labels") or {}).get("io.kubernetes.pod.uid") == uid
                       and c.metadata.get("name") == name and c.id != keep and c.state == "CONTAINER_EXITED"),
                      key=lambda c: c.created_at, reverse=True)
        for c in dead[1:]:
            try:
                yield from self.runtime.RemoveContainer({"container_id": c.id})
            except CRIError:
                pass

    def _kill_container(self, pod: dict, c: dict, container_id: str, message: str, grace_seconds: float,
                        wait_for: list | None = None) -> Generator:
        """``killContainer``: ``Killing`` event, the preStop ``sleep`` action, its turn, ``StopContainer`` with what is left.

        ``wait_for`` (``terminationOrdering.waitForTurn``): the kills this one waits for, within its
        grace period, before it stops the container; the whole seconds waited come off the grace period.
        """
        self._event(pod, EVENT_TYPE_NORMAL, KILLING_CONTAINER, message, self._field_path(pod, c.get("name", "")))
        grace = float(grace_seconds)
        sleep = (((c.get("lifecycle") or {}).get("preStop") or {}).get("sleep") or {}).get("seconds")
        if sleep is not None and grace > 0:
            spent = min(float(sleep), grace)
            yield self.env.timeout(spent)
            grace -= spent
        pending = [e for e in wait_for or [] if not e.processed]
        if pending and grace > 0:
            began = float(self.env.now)
            yield self.env.all_of(pending) | self.env.timeout(grace)
            grace -= int(float(self.env.now) - began)
        grace = max(grace, MINIMUM_GRACE_PERIOD_SECONDS)
        try:
            yield from self.runtime.StopContainer({"container_id": container_id.split("://", 1)[-1],
                                                   "timeout": int(math.ceil(grace))})
        except CRIError:
            pass

    def _kill_containers_in_order(self, pod: dict, running: list[RuntimeContainerStatus], grace: float,
                                  message: str = "Stopping container {name}") -> Generator:
        """``killContainersWithSyncResult``: every running container at once, sidecars in reverse order.

        All kills start together (their ``Killing`` events first); a sidecar
        (restartable init container) is stopped only after the regular
        containers and the sidecars declared after it have exited, within its
        grace period (``newTerminationOrdering``).
        """
        sidecars = [c["name"] for c in (pod.get("spec") or {}).get("initContainers") or []
                    if is_restartable_init_container(c)]
        by_name = {cs.name: cs for cs in running}
        procs: dict[str, Any] = {}
        for cs in running:
            if cs.name not in sidecars:
                procs[cs.name] = self.env.process(self._kill_container(
                    pod, self._spec_of(pod, cs.name), cs.id, message.format(name=cs.name), grace))
        regular = list(procs.values())
        later: list = []
        for name in reversed(sidecars):
            cs = by_name.get(name)
            if cs is None:
                continue
            procs[name] = self.env.process(self._kill_container(
                pod, self._spec_of(pod, name), cs.id, message.format(name=name), grace, wait_for=regular + later))
            later = later + [procs[name]]
        if procs:
            yield self.env.all_of(list(procs.values()))

    # ------------------------------------------------------------ eviction
    def evict_pod(self, uid: str, grace_period_seconds: int, status: Mapping[str, Any]) -> None:
        """The eviction manager's ``killPodFunc``: the pod worker kills the pod and writes the evicted status."""
        if uid not in self.pods or uid in self._evictions:
            return
        self._evictions[uid] = (int(grace_period_seconds), dict(status))
        w = self.pod_workers.get(uid)
        if w is not None:
            self._trigger(w)

    def _sync_evicted_pod(self, w: _PodWorker, pod: dict) -> Generator:
        """Kill every running container with the eviction's grace period, then write Failed/Evicted."""
        uid = w.uid
        grace, evicted = self._evictions[uid]
        self.prober.stop_liveness_and_startup(pod)
        status, _, _ = yield from self._get_pod_status(uid)
        yield from self._kill_containers_in_order(
            pod, [cs for cs in status.container_statuses if cs.state == CONTAINER_STATE_RUNNING], grace)
        status, _, _ = yield from self._get_pod_status(uid)
        self._feed_prober_and_logs(uid, status)
        pod = self.pods.get(uid, pod)
        api_status = self._generate_status(w, pod, status, terminal=True)
        api_status["phase"] = evicted.get("phase", POD_FAILED)
        for key in ("reason", "message"):
            if key in evicted:
                api_status[key] = evicted[key]
        conditions = [dict(c) for c in api_status.get("conditions") or []]
        old = {c.get("type"): c for c in (self._status_written.get(uid) or {}).get("conditions") or []}
        for cond in evicted.get("conditions") or []:
            cond = dict(cond)
            prev = old.get(cond["type"])
            cond.setdefault("lastProbeTime", None)
            cond["lastTransitionTime"] = (prev.get("lastTransitionTime") if prev is not None
                                          and prev.get("status") == cond.get("status") else self._fmt(self.env.now))
            conditions = [c for c in conditions if c.get("type") != cond["type"]] + [cond]
        api_status["conditions"] = conditions
        self._set_pod_status(uid, api_status)
        self.volume_manager.remove_pod(uid)

    # ------------------------------------------------------------ termination
    def _sync_terminal_pod(self, w: _PodWorker, pod: dict) -> Generator:
        """A pod that reached Succeeded/Failed: stop probing, unmount its volumes, stop its sandbox; it stays in the API."""
        self.prober.remove_pod(pod)
        self.volume_manager.remove_pod(w.uid)
        yield from self._stop_sandbox(w.uid)

    def _stop_sandbox(self, uid: str) -> Generator:
        """``StopPodSandbox`` of the pod's ready sandbox, if it has one (an error is left to the next sync)."""
        sid = self._ready_sandbox_id(uid)
        if sid:
            try:
                yield from self.runtime.StopPodSandbox({"pod_sandbox_id": sid})
            except CRIError:
                pass

    def _sync_terminating_pod(self, w: _PodWorker, pod: dict) -> Generator:
        """``SyncTerminatingPod`` then ``SyncTerminatedPod``: kill with the grace period, final status, delete.

        Regular containers are stopped together, then sidecars in reverse order
        (:meth:`_kill_containers_in_order`). The final status is the status manager's
        ``TerminatePod`` (:func:`~kubenotes.kubelet.status.terminate_pod`) over the terminal status
        generated from the stopped containers: a container the runtime no longer reports as terminated
        becomes ``ContainerStatusUnknown`` (exit code 137) and a phase still ``Pending``/``Running``
        becomes ``Failed``. The pod is deleted from the API (grace 0, uid precondition) once every
        container is terminated, as the status manager does.

        Notes
        -----
        Upstream's ``SyncTerminatedPod`` calls ``SetPodStatus`` with the generated terminal status and
        then ``TerminatePod``; the status manager's sync loop usually writes only the result of the
        second. The model writes that one status (one ``pods/status`` update), then deletes.

        References
        ----------
        kubernetes/kubernetes@v1.34.0 pkg/kubelet/kubelet.go (SyncTerminatingPod, SyncTerminatedPod:
        ``statusManager.TerminatePod``)
        kubernetes/kubernetes@v1.34.0 pkg/kubelet/status/status_manager.go (TerminatePod, canBeDeleted)
        """
        uid = w.uid
        self.sync_log.append((float(self.env.now), uid, "SyncTerminatingPod"))
        self.prober.stop_liveness_and_startup(pod)
        status, _, _ = yield from self._get_pod_status(uid)
        grace = self._pod_grace(pod)
        running = [cs for cs in status.container_statuses if cs.state == CONTAINER_STATE_RUNNING]
        yield from self._kill_containers_in_order(pod, running, grace)
        status, _, _ = yield from self._get_pod_status(uid)
        self._feed_prober_and_logs(uid, status)
        yield from self._stop_sandbox(uid)
        self.prober.remove_pod(pod)
        self.volume_manager.remove_pod(uid)  # the containers are gone: unmount (SyncTerminatedPod)
        if uid in self.pods and not self._is_static(self.pods[uid]):
            api_pod = self.pods[uid]
            self._set_pod_status(uid, terminate_pod(api_pod, self._generate_status(w, api_pod, status, terminal=True)))
            yield from self._wait_up()
            md = self.pods.get(uid, pod)["metadata"]
            try:
                self.client.delete("pods", md["name"], md["namespace"], grace_period_seconds=0,
                                   preconditions={"uid": uid})
            except ApiError:
                pass
        else:
            yield from self._remove_sandboxes(uid)

    def _remove_sandboxes(self, uid: str) -> Generator:
        """Sandbox GC, simplified to right after the pod left the API."""
        for sb in [s for s in self.runtime.sandboxes.values() if s.metadata.get("uid") == uid]:
            try:
                yield from self.runtime.RemovePodSandbox({"pod_sandbox_id": sb.id})
            except CRIError:
                pass
        self._ips.pop(uid, None)
        self.volume_manager.remove_pod(uid)
        self.pod_dirs.pop(uid, None)
        self._evictions.pop(uid, None)
        self._status_written.pop(uid, None)
        self.reason_cache.pop(uid, None)
        for key in [k for k in self._prober_seen if k[0] == uid]:
            del self._prober_seen[key]

    # ------------------------------------------------------------ probes
    def _on_probe_result(self, uid: str, container: str, kind: str, result: str, message: str) -> None:
        """The results managers' update channels: a liveness/startup failure kills; every change syncs the pod."""
        if kind in (LIVENESS, STARTUP) and result == FAILURE:
            st = self.prober.containers.get((uid, container))
            if st is not None and st.container_id:
                self._kill_requests[(uid, container)] = (st.container_id, message)
        w = self.pod_workers.get(uid)
        if w is not None and not w.done:
            self._trigger(w)

    def _on_probe_event(self, uid: str, container: str, event_type: str, reason: str, message: str) -> None:
        pod = self.pods.get(uid)
        if pod is not None:
            self._event(pod, event_type, reason, message, self._field_path(pod, container))

    # ------------------------------------------------------------ container logs
    def container_log_reader(self, namespace: str, name: str, container: str,
                             options: dict | None = None) -> ContainerLogReader:
        """Answer ``GET /containerLogs/<namespace>/<name>/<container>`` (``GetKubeletContainerLogs``).

        Raises
        ------
        ApiError
            400 with the kubelet's words (see
            :func:`~kubenotes.kubelet.logs.validate_container_log_status`); 500
            while the node is down.
        """
        return open_container_log(self, namespace, name, container, options,
                                  lambda pod: self._status_written.get(pod["metadata"]["uid"]) or pod.get("status") or {})
