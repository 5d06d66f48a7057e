"""A container runtime behind the CRI: containerd (CRI plugin + shims) or CRI-O (conmon), over runc.

Mirrors the two gRPC services of ``k8s.io/cri-api`` ``runtime.v1``
(``api.proto``) as a SimPy model. Every RPC is a **generator method named
exactly as the proto's** that takes virtual time and returns the response as
a dict of proto field names::

    resp = yield from runtime.RunPodSandbox({"config": sandbox_config, "runtime_handler": ""})
    sandbox_id = resp["pod_sandbox_id"]

Failures raise :class:`~kubenotes.cri.api.CRIError` with a gRPC code name and
containerd's message text. Every call is appended to :attr:`ContainerRuntime.trace`.

State machines, as the CRI states them (and ``critest`` checks):

* a sandbox is ``SANDBOX_READY`` from ``RunPodSandbox`` until ``StopPodSandbox``
  (which SIGKILLs its containers and tears its network down), then
  ``SANDBOX_NOTREADY``; ``RemovePodSandbox`` stops it if needed, removes its
  containers, and is idempotent;
* a container is ``CONTAINER_CREATED`` -> ``CONTAINER_RUNNING`` (StartContainer,
  only from CREATED) -> ``CONTAINER_EXITED`` (its process ends by itself, by
  :meth:`ContainerRuntime.exit_container`, by a cgroup OOM kill, or by
  ``StopContainer``: the image's stop signal, then SIGKILL after ``timeout``
  seconds unless the process exits first); ``RemoveContainer`` refuses a
  running container and is idempotent for a missing one.

The pod's sandbox is the pause container (``registry.k8s.io/pause:3.10``,
pulled and pinned by the runtime on first use) holding the pod's network,
IPC and UTS namespaces; the network namespace is filled by the
``network_setup`` hook (the CNI model plugs in there). containerd runs one
``containerd-shim-runc-v2`` per pod; CRI-O runs one ``conmon`` per container
and, with its default ``drop_infra_ctr = true``, no pause process at all
unless the pod shares its PID namespace (``pinns`` pins the namespaces).

Call latencies are parameters (:data:`DEFAULT_LATENCIES`); the defaults are
**illustrative round numbers, not measurements** of upstream runtimes.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/testing/fake_runtime_service.go
containerd/containerd@v2.1 internal/cri/server/ (sandbox_run.go, container_create.go, container_start.go,
container_stop.go, container_remove.go, container_status.go, container_execsync.go, helpers.go)
cri-o/cri-o@v1.34 docs/crio.conf.5.md (drop_infra_ctr, pause_image)
kubernetes-sigs/cri-tools pkg/validate/container.go, pod.go (critest)
"""

from __future__ import annotations

import functools
import inspect
import re
import shlex
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterable, Iterator, Mapping

from kubenotes.cri.api import (
    COMPLETE_EXIT_REASON,
    CONTAINER_CREATED,
    CONTAINER_EXITED,
    CONTAINER_IN_STATE,
    CONTAINER_NOT_FOUND,
    CONTAINER_RUNNING,
    CONTAINER_STILL_RUNNING,
    CONTAINER_UNKNOWN,
    CONTAINER_STATE_UNKNOWN,
    CRI_API_VERSION,
    DEADLINE_EXCEEDED,
    ERROR_EXIT_REASON,
    EXEC_CONTAINER_NOT_RUNNING,
    FAILED_TO_RESERVE_CONTAINER_NAME,
    FAILED_TO_RESERVE_SANDBOX_NAME,
    FAILED_TO_SET_REMOVING,
    FAILED_TO_SET_STARTING,
    IMAGE_NOT_FOUND_PULL,
    INVALID_ARGUMENT,
    NAME_RESERVED,
    NAMESPACE_MODE_NODE,
    NAMESPACE_MODE_POD,
    NOT_FOUND,
    OOM_EXIT_REASON,
    SANDBOX_NOT_FOUND,
    SANDBOX_NOT_RUNNING,
    SANDBOX_NOTREADY,
    SANDBOX_READY,
    UNKNOWN,
    CRIError,
    deep_copy,
    make_container_name,
    make_sandbox_name,
    match_labels,
    new_id,
)
from kubenotes.cri.images import PAUSE_IMAGE, Image, ImageCatalogue, ImageStore, normalize_image_ref
from kubenotes.cri.oci import _resources, netns_path, oci_config_from_cri, sandbox_oci_config

__all__ = [
    "CONTAINERD",
    "CRI_O",
    "RUNC",
    "CRUN",
    "RUNTIME_KINDS",
    "LOW_LEVEL_RUNTIMES",
    "RUNTIME_VERSIONS",
    "DEFAULT_LATENCIES",
    "LOW_LEVEL_FACTORS",
    "SIGKILL_EXIT_CODE",
    "FAILED_TO_FIND_SANDBOX_ID",
    "SANDBOX_GONE",
    "FAILED_TO_RESOLVE_IMAGE",
    "FAILED_TO_GENERATE_SPEC",
    "FAILED_TO_SETUP_NETWORK",
    "EXEC_TIMEOUT",
    "PodSandbox",
    "Container",
    "default_process_model",
    "command_outcome",
    "RUNS_FOREVER",
    "ContainerRuntime",
]

CONTAINERD = "containerd"
CRI_O = "cri-o"
RUNC = "runc"
CRUN = "crun"
#: The high-level runtimes the model knows, as ``ContainerRuntime(kind=...)`` names them.
RUNTIME_KINDS = (CONTAINERD, CRI_O)
#: The OCI runtimes the model knows.
LOW_LEVEL_RUNTIMES = (RUNC, CRUN)

#: ``Version`` answers: runtime name and version of a v1.34-era node.
RUNTIME_VERSIONS = {CONTAINERD: ("containerd", "v2.1.4"), CRI_O: ("cri-o", "1.34.0")}

#: Seconds per RPC (illustrative, not measured). ``run_pod_sandbox`` excludes
#: the pause image pull and the network setup hook; ``list_per_item`` is added
#: per sandbox/container listed (the PLEG relist cost); ``pull_image`` is
#: the image store's pull time, not a constant.
DEFAULT_LATENCIES: dict[str, dict[str, float]] = {
    CONTAINERD: {
        "version": 0.0005, "run_pod_sandbox": 0.25, "stop_pod_sandbox": 0.05, "remove_pod_sandbox": 0.03,
        "pod_sandbox_status": 0.001, "list_base": 0.001, "list_per_item": 0.00005,
        "create_container": 0.05, "start_container": 0.08, "stop_container": 0.01, "remove_container": 0.02,
        "container_status": 0.001, "update_container_resources": 0.01, "exec_sync": 0.04,
        "container_stats": 0.002, "image_status": 0.001, "list_images": 0.002, "remove_image": 0.05,
        "image_fs_info": 0.001,
    },
    CRI_O: {
        "version": 0.0005, "run_pod_sandbox": 0.20, "stop_pod_sandbox": 0.05, "remove_pod_sandbox": 0.03,
        "pod_sandbox_status": 0.001, "list_base": 0.001, "list_per_item": 0.00005,
        "create_container": 0.08, "start_container": 0.06, "stop_container": 0.01, "remove_container": 0.02,
        "container_status": 0.001, "update_container_resources": 0.01, "exec_sync": 0.05,
        "container_stats": 0.002, "image_status": 0.001, "list_images": 0.002, "remove_image": 0.05,
        "image_fs_info": 0.001,
    },
}
#: Factor on the runc-bound calls (sandbox/container create and start) per low-level runtime (illustrative).
LOW_LEVEL_FACTORS = {RUNC: 1.0, CRUN: 0.6}
#: 128 + SIGKILL.
SIGKILL_EXIT_CODE = 137

#: containerd container_create.go.
FAILED_TO_FIND_SANDBOX_ID = 'failed to find sandbox id "{id}": not found'
#: containerd container_start.go: the container's sandbox is no longer in the store.
SANDBOX_GONE = 'sandbox "{id}" not found: not found'
#: containerd container_create.go (image not present locally).
FAILED_TO_RESOLVE_IMAGE = 'failed to resolve image "{image}": not found'
#: containerd container_create.go.
FAILED_TO_GENERATE_SPEC = 'failed to generate container "{id}" spec: {err}'
#: containerd sandbox_run.go.
FAILED_TO_SETUP_NETWORK = 'failed to setup network for sandbox "{id}": {err}'
#: containerd container_execsync.go when the command outlives its timeout.
EXEC_TIMEOUT = "failed to exec in container: timeout {timeout}s exceeded: context deadline exceeded"

@dataclass
class PodSandbox:
    """A pod sandbox as the runtime holds it.

    Attributes
    ----------
    id : str
    config : dict
        The ``PodSandboxConfig`` it was created from.
    state : str
        ``SANDBOX_READY`` or ``SANDBOX_NOTREADY``.
    created_at : int
        Nanoseconds since the model epoch.
    ip : str
        Pod IP from the network setup hook ('' for host network or no hook).
    netns : str
        Path of the pinned network namespace ('' for host network).
    pid : int or None
        Host PID of the pause process (``None``: CRI-O dropped the infra container).
    shim_pid : int or None
        containerd's ``containerd-shim-runc-v2`` for this pod.
    spec : dict
        The pause container's OCI config.
    """

    id: str
    name: str
    config: dict
    runtime_handler: str
    state: str
    created_at: int
    ip: str = ""
    netns: str = ""
    pid: int | None = None
    shim_pid: int | None = None
    spec: dict = field(default_factory=dict)

    @property
    def metadata(self) -> dict:
        """The sandbox's ``PodSandboxMetadata``."""
        return self.config.get("metadata") or {}

    @property
    def namespace_options(self) -> dict:
        """``linux.security_context.namespace_options`` of its config."""
        return ((self.config.get("linux") or {}).get("security_context") or {}).get("namespace_options") or {}


@dataclass
class Container:
    """A container as the runtime holds it (see the module docstring for its states)."""

    id: str
    name: str
    pod_sandbox_id: str
    config: dict
    image: Image
    state: str
    created_at: int
    spec: dict
    log_path: str
    started_at: int = 0
    finished_at: int = 0
    exit_code: int = 0
    reason: str = ""
    message: str = ""
    pid: int | None = None
    conmon_pid: int | None = None
    starting: bool = False
    removing: bool = False
    generation: int = 0
    memory_bytes: int = 0
    milli_cpu: int = 0
    disk_bytes: int = 0
    disk_inodes: int = 0
    cpu_usage_core_nano_seconds: int = 0
    usage_updated_at: float = 0.0
    sigterm_exit_seconds: float | None = None
    sigterm_exit_code: int = 0
    signals: list = field(default_factory=list)
    exited_event: Any = None

    @property
    def metadata(self) -> dict:
        """The container's ``ContainerMetadata`` (name, attempt)."""
        return self.config.get("metadata") or {}

    @property
    def resources(self) -> dict:
        """The current ``LinuxContainerResources``."""
        return (self.config.get("linux") or {}).get("resources") or {}


_QUICK_COMMANDS = {"echo", "printf", "date", "hostname", "env", "ls", "cat", "touch", "mkdir", "cp", "id", "pwd",
                   "nslookup", "uname", "chmod", "chown", "rm", "ln"}
_SHELLS = {"sh", "bash", "ash", "dash"}


#: :func:`command_outcome`'s answer for a command that never ends by itself (``sleep infinity``, ``tail -f``,
#: ``while true`` loops).
RUNS_FOREVER = "forever"


def _loops_forever(script: str) -> bool:
    """A ``while true``/``while :`` loop with no ``break`` or ``exit`` in the script."""
    return bool(re.search(r"(^|[;&\n]|\s)while\s+(true|:)\s*;?\s*do\b", script)) \
        and not re.search(r"\b(break|exit)\b", script)


def _script_outcome(script: str) -> tuple[float, int] | str | None:
    if _loops_forever(script):
        return RUNS_FOREVER
    seconds, code = 0.0, 0
    for part in script.replace("&&", ";").replace("\n", ";").split(";"):
        try:
            tokens = shlex.split(part)
        except ValueError:
            return None
        if not tokens:
            continue
        cmd = tokens[0].rsplit("/", 1)[-1]
        if cmd == "sleep":
            arg = tokens[1] if len(tokens) > 1 else "0"
            if arg in ("inf", "infinity"):
                return RUNS_FOREVER
            try:
                seconds += float(arg.rstrip("s"))
            except ValueError:
                return None
            code = 0
        elif cmd == "tail" and any(t in ("-f", "-F", "--follow") or t.startswith("--follow=") for t in tokens[1:]):
            return RUNS_FOREVER
        elif cmd in ("true", ":"):
            code = 0
        elif cmd == "false":
            code = 1
        elif cmd == "exit":
            try:
                return seconds, int(tokens[1]) if len(tokens) > 1 else code
            except ValueError:
                return None
        elif cmd in _QUICK_COMMANDS:
            code = 0
        else:
            return None
    return seconds, code


def command_outcome(argv: list[str]) -> tuple[float, int] | str | None:
    """What the model reads in a container's command line: ``(run_seconds, exit_code)``, :data:`RUNS_FOREVER`, or None.

    A small reading, enough for chapter scenarios and the tutorials' manifests:
    ``sleep N``, ``true``, ``false``, ``exit N`` and quick commands like
    ``echo``, ``touch`` or ``rm``, alone or as a ``sh -c`` script joined by
    ``;``, ``&&`` or newlines, end by themselves; ``sleep infinity``,
    ``tail -f`` and a ``while true`` loop never do; a shell without ``-c``
    exits at once (no stdin: the classic ``busybox`` CrashLoopBackOff).

    Parameters
    ----------
    argv : list of str
        The process's arguments (entrypoint and command as the runtime resolved them).

    Returns
    -------
    tuple of (float, int), str or None
        When and how the process ends by itself; :data:`RUNS_FOREVER` when it
        never does; None when the model cannot read it (any other program, an
        empty command line, a shell running a script file): the kubelet
        decides what to assume (:mod:`kubenotes.kubelet.process_model`).

    See Also
    --------
    default_process_model : the runtime's own default (None for both "forever" and "cannot read").

    References
    ----------
    https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/

    Examples
    --------
    >>> command_outcome(["sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"])
    (630.0, 0)
    >>> command_outcome(["sleep", "infinity"]), command_outcome(["sh", "-c", "tail -F /opt/logs.txt"])
    ('forever', 'forever')
    >>> command_outcome(["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"]) is None
    True
    """
    if not argv:
        return None
    cmd = argv[0].rsplit("/", 1)[-1]
    if cmd in _SHELLS:
        if "-c" in argv[1:]:
            i = argv.index("-c")
            return _script_outcome(argv[i + 1]) if i + 1 < len(argv) else (0.0, 0)
        return (0.0, 0) if len(argv) == 1 else None
    return _script_outcome(shlex.join(argv))


def default_process_model(argv: list[str]) -> tuple[float, int] | None:
    """When a container's main process ends by itself: ``(run_seconds, exit_code)``, or ``None`` (runs until stopped).

    :func:`command_outcome`, with a command it cannot read taken to be a
    server (it runs until stopped), like one it knows never ends.

    Examples
    --------
    >>> default_process_model(["sleep", "3600"])
    (3600.0, 0)
    >>> default_process_model(["sh", "-c", "echo init; sleep 2; exit 3"])
    (2.0, 3)
    >>> default_process_model(["sh"]), default_process_model(["nginx", "-g", "daemon off;"])
    ((0.0, 0), None)
    """
    outcome = command_outcome(argv)
    return outcome if isinstance(outcome, tuple) else None


def _rpc(service: str) -> Callable:
    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(self: "ContainerRuntime", request: Mapping[str, Any] | None = None) -> Generator:
            request = dict(request or {})
            if not self.trace_enabled:
                return (yield from fn(self, request))
            entry = {"time": self.env.now, "service": service, "method": fn.__name__,
                     "request": deep_copy(request), "response": None, "error": None,
                     "duration_seconds": 0.0, "node": self.node_name}
            self.trace.append(entry)
            try:
                response = yield from fn(self, request)
            except CRIError as err:
                entry["error"] = str(err)
                entry["duration_seconds"] = self.env.now - entry["time"]
                raise
            entry["response"] = deep_copy(response) if self.trace_responses else None
            entry["duration_seconds"] = self.env.now - entry["time"]
            return response

        return wrapper

    return decorate


def _filtered(objs: Iterable[Any], flt: Mapping[str, Any]) -> Iterator[Any]:
    """The sandboxes or containers a List RPC's ``filter`` selects (``id`` and ``pod_sandbox_id`` prefixes,
    ``state``, ``label_selector``); an empty filter selects all without looking (the PLEG's relist)."""
    if not flt:
        yield from objs
        return
    state = (flt.get("state") or {}).get("state")
    id_prefix, sandbox_prefix, selector = flt.get("id"), flt.get("pod_sandbox_id"), flt.get("label_selector")
    for o in objs:
        if id_prefix and not o.id.startswith(id_prefix):
            continue
        if sandbox_prefix and not o.pod_sandbox_id.startswith(sandbox_prefix):
            continue
        if state and o.state != state:
            continue
        if selector and not match_labels(o.config.get("labels"), selector):
            continue
        yield o


class ContainerRuntime:
    """A node's container runtime: CRI RuntimeService and ImageService on the SimPy clock.

    Parameters
    ----------
    env : simpy.Environment
    node_name : str
    kind : {"containerd", "cri-o"}
    low_level : {"runc", "crun"}
        The OCI runtime; scales the create/start latencies by :data:`LOW_LEVEL_FACTORS`.
    latencies : dict, optional
        Overrides of :data:`DEFAULT_LATENCIES` keys, in seconds.
    images : ImageStore, optional
        The node's image store (default: a fresh store over the default catalogue).
    catalogue : ImageCatalogue, optional
        Registry contents for a default store.
    network_setup : callable, optional
        ``network_setup(sandbox) -> ip`` or a generator returning the IP
        (``yield from`` is used, so it can take virtual time). Not called for
        host-network pods. Default: no network, IP ''.
    network_teardown : callable, optional
        ``network_teardown(sandbox)``, plain or generator, on StopPodSandbox.
    process_model : callable, optional
        ``process_model(container) -> (run_seconds, exit_code) | None``;
        default reads the command line with :func:`default_process_model`.
    cgroup_v2 : bool
        Unified hierarchy (adds a cgroup namespace to specs).
    drop_infra_ctr : bool
        CRI-O's ``drop_infra_ctr`` (default true upstream); ignored for containerd.
    epoch_ns : int
        Unix nanoseconds of ``env.now == 0`` (timestamps are ``epoch_ns + now * 1e9``).
    trace_maxlen : int, optional
        Keep only the last N trace entries (long benchmarks).
    trace_enabled : bool
        Record calls at all (off for large benchmarks; also settable later as an attribute).
    trace_responses : bool
        Store response copies in the trace.

    Attributes
    ----------
    trace : list of dict
        One entry per call: ``time``, ``service``, ``method``, ``request``,
        ``response``, ``error``, ``duration_seconds``, ``node``.
    events : list of dict
        The runtime's own actions (``component`` ``cri/<node>``): image
        pulled, netns created, shim started, signal sent, process exited...
    sandboxes, containers : dict
        ID -> :class:`PodSandbox` / :class:`Container`.

    Notes
    -----
    Simplified: no ``GetContainerEvents`` stream (evented PLEG), ``Attach``/
    ``Exec``/``PortForward`` streaming, checkpointing, ``ListMetricDescriptors``
    or runtime handlers beyond recording the name; CRI-O answers with
    containerd's message texts; a start never fails (no ``StartError``).

    Examples
    --------
    >>> import simpy
    >>> env = simpy.Environment()
    >>> rt = ContainerRuntime(env, "node-1")
    >>> def start():
    ...     sb = (yield from rt.RunPodSandbox({"config": {"metadata": {"name": "web", "namespace": "default",
    ...                                         "uid": "u1", "attempt": 0}}}))["pod_sandbox_id"]
    ...     yield from rt.PullImage({"image": {"image": "nginx:1.27"}})
    ...     cid = (yield from rt.CreateContainer({"pod_sandbox_id": sb, "config": {
    ...         "metadata": {"name": "app"}, "image": {"image": "nginx:1.27"}}}))["container_id"]
    ...     yield from rt.StartContainer({"container_id": cid})
    ...     return (yield from rt.ContainerStatus({"container_id": cid}))["status"]["state"]
    >>> p = env.process(start()); env.run(); p.value
    'CONTAINER_RUNNING'
    >>> [e["method"] for e in rt.trace]
    ['RunPodSandbox', 'PullImage', 'CreateContainer', 'StartContainer', 'ContainerStatus']
    """

    def __init__(
        self,
        env: Any,
        node_name: str,
        kind: str = CONTAINERD,
        low_level: str = RUNC,
        latencies: Mapping[str, float] | None = None,
        *,
        images: ImageStore | None = None,
        catalogue: ImageCatalogue | None = None,
        network_setup: Callable | None = None,
        network_teardown: Callable | None = None,
        process_model: Callable | None = None,
        cgroup_v2: bool = True,
        drop_infra_ctr: bool = True,
        epoch_ns: int = 0,
        trace_maxlen: int | None = None,
        trace_responses: bool = True,
        trace_enabled: bool = True,
    ) -> None:
        if kind not in DEFAULT_LATENCIES:
            raise ValueError(f"unknown runtime kind {kind!r}; expected 'containerd' or 'cri-o'")
        if low_level not in LOW_LEVEL_FACTORS:
            raise ValueError(f"unknown low-level runtime {low_level!r}")
        self.env = env
        self.node_name = node_name
        self.kind = kind
        self.low_level = low_level
        self.latencies = dict(DEFAULT_LATENCIES[kind])
        self.latencies.update(latencies or {})
        self.images = images if images is not None else ImageStore(node_name, catalogue)
        self.network_setup = network_setup
        self.network_teardown = network_teardown
        self.process_model = process_model
        self.cgroup_v2 = cgroup_v2
        self.drop_infra_ctr = drop_infra_ctr
        self.epoch_ns = int(epoch_ns)
        self.trace: Any = deque(maxlen=trace_maxlen) if trace_maxlen else []
        self.trace_enabled = trace_enabled
        self.trace_responses = trace_responses
        self.events: list[dict[str, Any]] = []
        self.sandboxes: dict[str, PodSandbox] = {}
        self.containers: dict[str, Container] = {}
        self.exec_results: dict[str, dict[tuple | None, dict[str, Any]]] = {}
        self.daemon_pid = 900
        self._next_pid = 1000
        self._names: dict[str, str] = {}
        self._seq = 0
        self._pulls: dict[str, Any] = {}

    # --- helpers ---------------------------------------------------------------------------------

    @property
    def component(self) -> str:
        """``cri/<node>``, the events' component."""
        return f"cri/{self.node_name}"

    def now_ns(self) -> int:
        """The virtual clock in Unix-style nanoseconds."""
        return self.epoch_ns + int(round(self.env.now * 1e9))

    def _event(self, kind: str, obj_id: str, event: str, message: str = "") -> None:
        self.events.append({"time": self.env.now, "component": self.component, "kind": kind, "id": obj_id,
                            "event": event, "message": message})

    def _pid(self) -> int:
        self._next_pid += 1
        return self._next_pid

    def _wait(self, key: str, factor: float = 1.0) -> Any:
        return self.env.timeout(self.latencies[key] * factor)

    def _runc_factor(self) -> float:
        return LOW_LEVEL_FACTORS[self.low_level]

    def _new_id(self, what: str) -> str:
        self._seq += 1
        return new_id(self.node_name, what, self._seq)

    def _reserve(self, name: str, key: str) -> str | None:
        holder = self._names.get(name)
        if holder is not None and holder != key:
            return NAME_RESERVED.format(name=name, key=holder)
        self._names[name] = key
        return None

    def _release(self, name: str, key: str) -> None:
        if self._names.get(name) == key:
            del self._names[name]

    def _find_container(self, container_id: str) -> Container:
        c = self.containers.get(container_id)
        if c is None and container_id:
            matches = [k for k in self.containers if k.startswith(container_id)]
            if len(matches) == 1:
                c = self.containers[matches[0]]
        if c is None:
            raise CRIError(NOT_FOUND, CONTAINER_NOT_FOUND.format(id=container_id))
        return c

    def _find_sandbox(self, sandbox_id: str, message: str = SANDBOX_NOT_FOUND) -> PodSandbox:
        s = self.sandboxes.get(sandbox_id)
        if s is None and sandbox_id:
            matches = [k for k in self.sandboxes if k.startswith(sandbox_id)]
            if len(matches) == 1:
                s = self.sandboxes[matches[0]]
        if s is None:
            raise CRIError(NOT_FOUND, message.format(id=sandbox_id))
        return s

    def _call_hook(self, hook: Callable, sandbox: PodSandbox) -> Generator:
        result = hook(sandbox)
        if inspect.isgenerator(result):
            result = yield from result
        return result

    def _list_wait(self, n: int) -> Any:
        return self.env.timeout(self.latencies["list_base"] + self.latencies["list_per_item"] * n)

    # --- scenario controls (not CRI) --------------------------------------------------------------

    def exit_container(self, container_id: str, exit_code: int, reason: str | None = None, message: str = "") -> None:
        """Make a running container's process end now (a scenario's ``containerExit``).

        Parameters
        ----------
        container_id : str
        exit_code : int
        reason : str, optional
            Default ``Completed`` for 0, else ``Error``; pass ``OOMKilled`` for an OOM kill.
        message : str

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container.

        Notes
        -----
        Does nothing if the container is not running (its process already ended).
        """
        c = self._find_container(container_id)
        self._process_exit(c, exit_code, reason, message)

    def set_container_usage(
        self,
        container_id: str,
        *,
        memory_bytes: int | None = None,
        milli_cpu: int | None = None,
        disk_bytes: int | None = None,
        disk_inodes: int | None = None,
    ) -> None:
        """Set what a container uses now (a scenario's ``usage``); ContainerStats reports it.

        A working set above the container's memory limit makes the cgroup's OOM
        killer end the process: exit code 137, reason ``OOMKilled``.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container.
        """
        c = self._find_container(container_id)
        self._accumulate_cpu(c)
        if milli_cpu is not None:
            c.milli_cpu = int(milli_cpu)
        if disk_bytes is not None:
            self.images.writable_bytes += int(disk_bytes) - c.disk_bytes
            c.disk_bytes = int(disk_bytes)
        if disk_inodes is not None:
            self.images.writable_inodes += int(disk_inodes) - c.disk_inodes
            c.disk_inodes = int(disk_inodes)
        if memory_bytes is not None:
            c.memory_bytes = int(memory_bytes)
            limit = int(c.resources.get("memory_limit_in_bytes") or 0)
            if c.state == CONTAINER_RUNNING and limit and c.memory_bytes > limit:
                self._event("container", c.id, "OOMKilled",
                            f"memory cgroup out of memory: {c.memory_bytes} > limit {limit}")
                self._process_exit(c, SIGKILL_EXIT_CODE, OOM_EXIT_REASON)

    def set_exec_result(
        self,
        container_id: str,
        cmd: list[str] | None = None,
        *,
        exit_code: int = 0,
        stdout: bytes | str = b"",
        stderr: bytes | str = b"",
        duration_seconds: float = 0.0,
    ) -> None:
        """Script what ``ExecSync`` returns for ``cmd`` (``None``: any command) in a container.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container.
        """
        c = self._find_container(container_id)
        enc = (lambda s: s.encode() if isinstance(s, str) else bytes(s))
        self.exec_results.setdefault(c.id, {})[tuple(cmd) if cmd is not None else None] = {
            "exit_code": int(exit_code), "stdout": enc(stdout), "stderr": enc(stderr),
            "duration_seconds": float(duration_seconds)}

    def set_stop_behaviour(self, container_id: str, sigterm_exit_seconds: float | None, exit_code: int = 0) -> None:
        """How the container's process reacts to its stop signal: exits after N seconds, or ``None`` (ignores it).

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container.
        """
        c = self._find_container(container_id)
        c.sigterm_exit_seconds = sigterm_exit_seconds
        c.sigterm_exit_code = int(exit_code)

    def pull_seconds(self, image: str) -> float:
        """How long ``PullImage`` of ``image`` would take now (layer cache considered)."""
        return self.images.pull_seconds(image)

    # --- process lifecycle -----------------------------------------------------------------------

    def _accumulate_cpu(self, c: Container) -> None:
        now = self.env.now
        if c.state == CONTAINER_RUNNING:
            c.cpu_usage_core_nano_seconds += int(round(c.milli_cpu / 1000 * (now - c.usage_updated_at) * 1e9))
        c.usage_updated_at = now

    def _process_exit(self, c: Container, exit_code: int, reason: str | None = None, message: str = "") -> bool:
        if c.state != CONTAINER_RUNNING:
            return False
        self._accumulate_cpu(c)
        c.state = CONTAINER_EXITED
        c.finished_at = self.now_ns()
        c.exit_code = int(exit_code)
        if reason is None:
            reason = COMPLETE_EXIT_REASON if exit_code == 0 else ERROR_EXIT_REASON
        c.reason = reason
        c.message = message
        c.generation += 1
        self._event("container", c.id, "TaskExit", f"pid {c.pid} exited with status {exit_code}")
        c.pid = None
        if c.exited_event is not None and not c.exited_event.triggered:
            c.exited_event.succeed(exit_code)
        return True

    def _exit_later(self, c: Container, generation: int, seconds: float, exit_code: int,
                    reason: str | None = None) -> Generator:
        yield self.env.timeout(seconds)
        if c.generation == generation:
            self._process_exit(c, exit_code, reason)

    # --- RuntimeService ----------------------------------------------------------------------------

    @_rpc("RuntimeService")
    def Version(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802 - proto method name
        """``Version``: ``{"version", "runtime_name", "runtime_version", "runtime_api_version"}``."""
        yield self._wait("version")
        name, version = RUNTIME_VERSIONS[self.kind]
        return {"version": "0.1.0", "runtime_name": name, "runtime_version": version,
                "runtime_api_version": CRI_API_VERSION}

    def _needs_infra(self, ns_opts: Mapping[str, str]) -> bool:
        if self.kind == CONTAINERD or not self.drop_infra_ctr:
            return True
        return ns_opts.get("pid") == NAMESPACE_MODE_POD

    @_rpc("RuntimeService")
    def RunPodSandbox(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``RunPodSandbox``: reserve the name, ensure the pause image, pin namespaces, set up the network, start the pause process.

        Request: ``{"config": PodSandboxConfig, "runtime_handler": str}``;
        response: ``{"pod_sandbox_id": str}``.

        Raises
        ------
        CRIError
            ``Unknown`` when the sandbox name is reserved by another sandbox,
            the network setup hook fails, or the pause image cannot be pulled.
        """
        config = dict(request.get("config") or {})
        meta = config.get("metadata") or {}
        sandbox_id = self._new_id("sandbox")
        name = make_sandbox_name(meta)
        err = self._reserve(name, sandbox_id)
        if err:
            raise CRIError(UNKNOWN, FAILED_TO_RESERVE_SANDBOX_NAME.format(name=name, err=err))
        sb = PodSandbox(sandbox_id, name, config, request.get("runtime_handler", ""), SANDBOX_NOTREADY, 0)
        ns_opts = sb.namespace_options
        try:
            if self._needs_infra(ns_opts) and self.images.lookup(PAUSE_IMAGE) is None:
                yield from self._pull(PAUSE_IMAGE, pinned=True)
            host_net = ns_opts.get("network") == NAMESPACE_MODE_NODE
            if not host_net:
                sb.netns = netns_path(sandbox_id, self.kind)
                self._event("sandbox", sandbox_id, "NetNSCreated", sb.netns)
                if self.network_setup is not None:
                    try:
                        ip = yield from self._call_hook(self.network_setup, sb)
                    except CRIError:
                        raise
                    except Exception as exc:  # the CNI model's failure
                        raise CRIError(UNKNOWN, FAILED_TO_SETUP_NETWORK.format(id=sandbox_id, err=exc)) from exc
                    sb.ip = str(ip or "")
                    self._event("sandbox", sandbox_id, "NetworkSetUp", sb.ip)
            yield self._wait("run_pod_sandbox", self._runc_factor())
        except CRIError:
            self._release(name, sandbox_id)
            raise
        sb.spec = sandbox_oci_config(config, sandbox_id=sandbox_id, runtime=self.kind, cgroup_v2=self.cgroup_v2)
        if self.kind == CONTAINERD:
            sb.shim_pid = self._pid()
            self._event("sandbox", sandbox_id, "ShimStarted", f"containerd-shim-runc-v2 pid {sb.shim_pid}")
        if self._needs_infra(ns_opts):
            sb.pid = self._pid()
            self._event("sandbox", sandbox_id, "SandboxStarted", f"{self.low_level} started /pause pid {sb.pid}")
        else:
            self._event("sandbox", sandbox_id, "NamespacesPinned", "pinns (infra container dropped)")
        sb.state = SANDBOX_READY
        sb.created_at = self.now_ns()
        self.sandboxes[sandbox_id] = sb
        return {"pod_sandbox_id": sandbox_id}

    @_rpc("RuntimeService")
    def StopPodSandbox(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``StopPodSandbox``: SIGKILL the pod's containers, tear the network down, stop the pause process.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown sandbox (as containerd).
        """
        sb = self._find_sandbox(request.get("pod_sandbox_id", ""))
        for c in list(self.containers.values()):
            if c.pod_sandbox_id == sb.id and c.state == CONTAINER_RUNNING:
                c.signals.append(("SIGKILL", self.env.now))
                self._process_exit(c, SIGKILL_EXIT_CODE, ERROR_EXIT_REASON)
        if sb.state == SANDBOX_READY:
            if sb.netns and self.network_teardown is not None:
                yield from self._call_hook(self.network_teardown, sb)
            yield self._wait("stop_pod_sandbox")
            sb.state = SANDBOX_NOTREADY
            sb.pid = None
            self._event("sandbox", sb.id, "SandboxStopped")
        return {}

    @_rpc("RuntimeService")
    def RemovePodSandbox(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``RemovePodSandbox``: force-stop if needed, remove its containers; no error if already gone."""
        sid = request.get("pod_sandbox_id", "")
        try:
            sb = self._find_sandbox(sid)
        except CRIError:
            yield self._wait("pod_sandbox_status")
            return {}
        for c in list(self.containers.values()):
            if c.pod_sandbox_id == sb.id:
                if c.state == CONTAINER_RUNNING:
                    self._process_exit(c, SIGKILL_EXIT_CODE, ERROR_EXIT_REASON)
                self._drop_container(c)
        if sb.state == SANDBOX_READY:
            if sb.netns and self.network_teardown is not None:
                yield from self._call_hook(self.network_teardown, sb)
            sb.state = SANDBOX_NOTREADY
        yield self._wait("remove_pod_sandbox")
        self._release(sb.name, sb.id)
        self.sandboxes.pop(sb.id, None)
        self._event("sandbox", sb.id, "SandboxRemoved")
        return {}

    def _sandbox_status(self, sb: PodSandbox) -> dict[str, Any]:
        return {
            "id": sb.id,
            "metadata": deep_copy(sb.metadata),
            "state": sb.state,
            "created_at": sb.created_at,
            "network": {"ip": sb.ip, "additional_ips": []},
            "linux": {"namespaces": {"options": deep_copy(sb.namespace_options)}},
            "labels": dict(sb.config.get("labels") or {}),
            "annotations": dict(sb.config.get("annotations") or {}),
            "runtime_handler": sb.runtime_handler,
        }

    @_rpc("RuntimeService")
    def PodSandboxStatus(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``PodSandboxStatus``: ``{"status": PodSandboxStatus, "info": {}, "timestamp": ns}``.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown sandbox.
        """
        sb = self._find_sandbox(request.get("pod_sandbox_id", ""))
        yield self._wait("pod_sandbox_status")
        info: dict[str, Any] = {}
        if request.get("verbose"):
            info = {"pid": sb.pid, "netns": sb.netns, "runtimeSpec": deep_copy(sb.spec)}
        return {"status": self._sandbox_status(sb), "info": info, "timestamp": self.now_ns()}

    @_rpc("RuntimeService")
    def ListPodSandbox(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ListPodSandbox`` with ``filter`` ``{id, state: {state}, label_selector}``: ``{"items": [PodSandbox]}``."""
        items = [self._cri_sandbox(sb) for sb in _filtered(self.sandboxes.values(), request.get("filter") or {})]
        yield self._list_wait(len(self.sandboxes))
        return {"items": items}

    @_rpc("RuntimeService")
    def CreateContainer(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``CreateContainer``: reserve the name, resolve the local image, write the OCI spec; state CREATED.

        Request: ``{"pod_sandbox_id", "config": ContainerConfig, "sandbox_config": PodSandboxConfig}``;
        response: ``{"container_id": str}``.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown sandbox or an image not on the node;
            ``Unknown`` when the name is reserved or no command can be derived.
        """
        sb = self._find_sandbox(request.get("pod_sandbox_id", ""), FAILED_TO_FIND_SANDBOX_ID)
        config = dict(request.get("config") or {})
        image_name = (config.get("image") or {}).get("image", "")
        image = self.images.lookup(image_name) if image_name else None
        if image is None:
            raise CRIError(NOT_FOUND, FAILED_TO_RESOLVE_IMAGE.format(image=image_name))
        cid = self._new_id("container")
        name = make_container_name(config.get("metadata") or {}, sb.metadata)
        err = self._reserve(name, cid)
        if err:
            raise CRIError(UNKNOWN, FAILED_TO_RESERVE_CONTAINER_NAME.format(name=name, err=err))
        sandbox_config = request.get("sandbox_config") or sb.config
        try:
            spec = oci_config_from_cri(config, sandbox_config, container_id=cid, sandbox_id=sb.id,
                                       sandbox_pid=sb.pid or 0, image_config=image.config, image_ref=image.ref,
                                       runtime=self.kind, cgroup_v2=self.cgroup_v2)
        except ValueError as exc:
            self._release(name, cid)
            raise CRIError(UNKNOWN, FAILED_TO_GENERATE_SPEC.format(id=cid, err=exc)) from exc
        yield self._wait("create_container", self._runc_factor())
        log_dir = sb.config.get("log_directory", "")
        log_path = f"{log_dir}/{config.get('log_path', '')}" if log_dir and config.get("log_path") else ""
        c = Container(cid, name, sb.id, config, image, CONTAINER_CREATED, self.now_ns(), spec, log_path,
                      sigterm_exit_seconds=image.sigterm_exit_seconds, sigterm_exit_code=image.sigterm_exit_code)
        if self.kind == CRI_O:
            c.conmon_pid = self._pid()
        self.containers[cid] = c
        self._event("container", cid, "ContainerCreated", name)
        return {"container_id": cid}

    @_rpc("RuntimeService")
    def StartContainer(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``StartContainer``: only from CREATED, in a READY sandbox; state RUNNING.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container; ``Unknown`` when it is not
            in ``CONTAINER_CREATED`` or its sandbox is not running.
        """
        c = self._find_container(request.get("container_id", ""))
        if c.state != CONTAINER_CREATED:
            raise CRIError(UNKNOWN, FAILED_TO_SET_STARTING.format(id=c.id, err=CONTAINER_IN_STATE.format(state=c.state)))
        if c.removing:
            raise CRIError(UNKNOWN, FAILED_TO_SET_STARTING.format(id=c.id, err="container is in removing state, can't be started"))
        if c.starting:
            raise CRIError(UNKNOWN, FAILED_TO_SET_STARTING.format(id=c.id, err="container is already in starting state"))
        sb = self.sandboxes.get(c.pod_sandbox_id)
        if sb is None:
            raise CRIError(NOT_FOUND, SANDBOX_GONE.format(id=c.pod_sandbox_id))
        if sb.state != SANDBOX_READY:
            raise CRIError(UNKNOWN, SANDBOX_NOT_RUNNING.format(id=c.pod_sandbox_id))
        c.starting = True
        yield self._wait("start_container", self._runc_factor())
        c.starting = False
        c.state = CONTAINER_RUNNING
        c.started_at = self.now_ns()
        c.usage_updated_at = self.env.now
        c.pid = self._pid()
        c.exited_event = self.env.event()
        self._event("container", c.id, "ContainerStarted", f"{self.low_level} started pid {c.pid}")
        outcome = (self.process_model(c) if self.process_model is not None
                   else default_process_model(c.spec["process"]["args"]))
        if outcome is not None:
            seconds, code = outcome
            self.env.process(self._exit_later(c, c.generation, max(0.0, float(seconds)), int(code)))
        return {}

    @_rpc("RuntimeService")
    def StopContainer(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``StopContainer``: the stop signal, then SIGKILL after ``timeout`` seconds unless the process exits.

        ``timeout`` 0 kills at once. Stopping a container that is not running
        succeeds and does nothing.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container.
        """
        c = self._find_container(request.get("container_id", ""))
        timeout = float(request.get("timeout", 0) or 0)
        yield self._wait("stop_container")
        if c.state != CONTAINER_RUNNING:
            return {}
        if timeout > 0:
            signal = str(c.image.config.get("StopSignal") or "SIGTERM")
            c.signals.append((signal, self.env.now))
            self._event("container", c.id, "Signal", f"{signal} to pid {c.pid}")
            if c.sigterm_exit_seconds is not None and c.sigterm_exit_seconds < timeout:
                self.env.process(self._exit_later(c, c.generation, c.sigterm_exit_seconds, c.sigterm_exit_code))
            yield c.exited_event | self.env.timeout(timeout)
        if c.state == CONTAINER_RUNNING:
            c.signals.append(("SIGKILL", self.env.now))
            self._event("container", c.id, "Signal", f"SIGKILL to pid {c.pid}")
            self._process_exit(c, SIGKILL_EXIT_CODE, ERROR_EXIT_REASON)
        return {}

    def _drop_container(self, c: Container) -> None:
        self.images.writable_bytes -= c.disk_bytes
        self.images.writable_inodes -= c.disk_inodes
        self._release(c.name, c.id)
        self.containers.pop(c.id, None)
        self.exec_results.pop(c.id, None)

    @_rpc("RuntimeService")
    def RemoveContainer(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``RemoveContainer``: refuses RUNNING/UNKNOWN containers; a missing container is not an error.

        Raises
        ------
        CRIError
            ``Unknown`` with containerd's message when the container is running.
        """
        try:
            c = self._find_container(request.get("container_id", ""))
        except CRIError:
            yield self._wait("container_status")
            return {}
        if c.state == CONTAINER_RUNNING:
            raise CRIError(UNKNOWN, FAILED_TO_SET_REMOVING.format(id=c.id, err=CONTAINER_STILL_RUNNING))
        if c.state == CONTAINER_UNKNOWN:
            raise CRIError(UNKNOWN, FAILED_TO_SET_REMOVING.format(id=c.id, err=CONTAINER_STATE_UNKNOWN))
        if c.starting:
            raise CRIError(UNKNOWN, FAILED_TO_SET_REMOVING.format(id=c.id, err="container is in starting state, can't be removed"))
        if c.removing:
            raise CRIError(UNKNOWN, FAILED_TO_SET_REMOVING.format(id=c.id, err="container is already in removing state"))
        c.removing = True
        yield self._wait("remove_container")
        self._drop_container(c)
        self._event("container", c.id, "ContainerRemoved", c.name)
        return {}

    @staticmethod
    def _cri_sandbox(sb: PodSandbox) -> dict[str, Any]:
        return {"id": sb.id, "metadata": dict(sb.metadata), "state": sb.state, "created_at": sb.created_at,
                "labels": dict(sb.config.get("labels") or {}), "annotations": dict(sb.config.get("annotations") or {}),
                "runtime_handler": sb.runtime_handler}

    def _cri_container(self, c: Container) -> dict[str, Any]:
        return {"id": c.id, "pod_sandbox_id": c.pod_sandbox_id, "metadata": dict(c.metadata),
                "image": {"image": c.image.ref}, "image_ref": c.image.id, "image_id": c.image.id,
                "state": c.state, "created_at": c.created_at,
                "labels": dict(c.config.get("labels") or {}), "annotations": dict(c.config.get("annotations") or {})}

    @_rpc("RuntimeService")
    def ListContainers(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ListContainers`` with ``filter`` ``{id, state: {state}, pod_sandbox_id, label_selector}``: ``{"containers": [...]}``."""
        out = [self._cri_container(c) for c in _filtered(self.containers.values(), request.get("filter") or {})]
        yield self._list_wait(len(self.containers))
        return {"containers": out}

    @_rpc("RuntimeService")
    def ContainerStatus(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ContainerStatus``: ``{"status": ContainerStatus, "info": {}}``; ``verbose`` adds the OCI spec.

        ``reason`` is set once exited: ``Completed`` (exit 0), ``Error``, or ``OOMKilled``.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container.
        """
        c = self._find_container(request.get("container_id", ""))
        yield self._wait("container_status")
        status = {
            "id": c.id, "metadata": deep_copy(c.metadata), "state": c.state,
            "created_at": c.created_at, "started_at": c.started_at, "finished_at": c.finished_at,
            "exit_code": c.exit_code if c.state == CONTAINER_EXITED else 0,
            "image": {"image": c.image.ref}, "image_ref": c.image.repo_digest, "image_id": c.image.id,
            "reason": c.reason if c.state == CONTAINER_EXITED else "",
            "message": c.message if c.state == CONTAINER_EXITED else "",
            "labels": dict(c.config.get("labels") or {}), "annotations": dict(c.config.get("annotations") or {}),
            "mounts": deep_copy(c.config.get("mounts") or []), "log_path": c.log_path,
            "resources": {"linux": deep_copy(c.resources)},
            "user": {"linux": {"uid": c.spec["process"]["user"]["uid"], "gid": c.spec["process"]["user"]["gid"],
                               "supplemental_groups": list(c.spec["process"]["user"].get("additionalGids") or [])}},
        }
        info: dict[str, Any] = {}
        if request.get("verbose"):
            info = {"pid": c.pid, "sandboxID": c.pod_sandbox_id, "runtimeSpec": deep_copy(c.spec)}
        return {"status": status, "info": info}

    @_rpc("RuntimeService")
    def UpdateContainerResources(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``UpdateContainerResources``: new ``linux`` resources into the container's config and OCI spec.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container.
        """
        c = self._find_container(request.get("container_id", ""))
        linux = dict(request.get("linux") or {})
        yield self._wait("update_container_resources")
        c.config.setdefault("linux", {})
        resources = dict(c.config["linux"].get("resources") or {})
        resources.update(linux)
        c.config["linux"]["resources"] = resources
        c.spec["linux"]["resources"] = _resources(resources)
        if "oom_score_adj" in resources:
            c.spec["process"]["oomScoreAdj"] = int(resources["oom_score_adj"])
        limit = int(resources.get("memory_limit_in_bytes") or 0)
        if c.state == CONTAINER_RUNNING and limit and c.memory_bytes > limit:
            self._process_exit(c, SIGKILL_EXIT_CODE, OOM_EXIT_REASON)
        return {}

    @_rpc("RuntimeService")
    def ExecSync(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ExecSync``: the scripted result (:meth:`set_exec_result`; default exit 0, no output).

        Response: ``{"stdout": bytes, "stderr": bytes, "exit_code": int}``.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container; ``Unknown`` when it is not
            running; ``DeadlineExceeded`` when the scripted duration exceeds
            ``timeout`` (seconds, 0 = none).
        """
        c = self._find_container(request.get("container_id", ""))
        if c.state != CONTAINER_RUNNING:
            raise CRIError(UNKNOWN, EXEC_CONTAINER_NOT_RUNNING.format(id=c.id, state=c.state))
        cmd = tuple(request.get("cmd") or ())
        scripted = self.exec_results.get(c.id, {})
        result = scripted.get(cmd) or scripted.get(None) or {"exit_code": 0, "stdout": b"", "stderr": b"",
                                                              "duration_seconds": 0.0}
        timeout = float(request.get("timeout", 0) or 0)
        duration = result["duration_seconds"]
        if timeout > 0 and duration > timeout:
            yield self._wait("exec_sync")
            yield self.env.timeout(timeout)
            raise CRIError(DEADLINE_EXCEEDED, EXEC_TIMEOUT.format(timeout=int(timeout) if timeout == int(timeout) else timeout))
        yield self._wait("exec_sync")
        if duration:
            yield self.env.timeout(duration)
        return {"stdout": result["stdout"], "stderr": result["stderr"], "exit_code": result["exit_code"]}

    def _stats(self, c: Container) -> dict[str, Any]:
        self._accumulate_cpu(c)
        ts = self.now_ns()
        running = c.state == CONTAINER_RUNNING
        return {
            "attributes": {"id": c.id, "metadata": deep_copy(c.metadata),
                           "labels": dict(c.config.get("labels") or {}),
                           "annotations": dict(c.config.get("annotations") or {})},
            "cpu": {"timestamp": ts, "usage_core_nano_seconds": {"value": c.cpu_usage_core_nano_seconds},
                    "usage_nano_cores": {"value": c.milli_cpu * 1_000_000 if running else 0}},
            "memory": {"timestamp": ts, "working_set_bytes": {"value": c.memory_bytes if running else 0},
                       "usage_bytes": {"value": c.memory_bytes if running else 0},
                       "rss_bytes": {"value": c.memory_bytes if running else 0}},
            "writable_layer": {"timestamp": ts, "fs_id": {"mountpoint": self.images.filesystem_usage(ts)["fs_id"]["mountpoint"]},
                               "used_bytes": {"value": c.disk_bytes}, "inodes_used": {"value": c.disk_inodes}},
        }

    @_rpc("RuntimeService")
    def ContainerStats(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ContainerStats``: cpu, memory and writable-layer usage as set by :meth:`set_container_usage`.

        Raises
        ------
        CRIError
            ``NotFound`` for an unknown container.
        """
        c = self._find_container(request.get("container_id", ""))
        yield self._wait("container_stats")
        return {"stats": self._stats(c)}

    @_rpc("RuntimeService")
    def ListContainerStats(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ListContainerStats`` with ``filter`` ``{id, pod_sandbox_id, label_selector}``: ``{"stats": [...]}``."""
        flt = request.get("filter") or {}
        out = []
        for c in self.containers.values():
            if flt.get("id") and not c.id.startswith(flt["id"]):
                continue
            if flt.get("pod_sandbox_id") and not c.pod_sandbox_id.startswith(flt["pod_sandbox_id"]):
                continue
            if not match_labels(c.config.get("labels"), flt.get("label_selector")):
                continue
            out.append(self._stats(c))
        yield self._list_wait(len(self.containers))
        return {"stats": out}

    # --- ImageService ------------------------------------------------------------------------------

    def _pull(self, ref: str, pinned: bool = False) -> Generator:
        try:
            key = normalize_image_ref(ref)
        except ValueError as exc:
            raise CRIError(INVALID_ARGUMENT, str(exc)) from exc
        inflight = self._pulls.get(key)
        if inflight is not None:
            image_id = yield inflight
            if isinstance(image_id, CRIError):
                raise CRIError(image_id.code, image_id.message)
            return image_id
        done = self.env.event()
        self._pulls[key] = done
        try:
            image = self.images.catalogue.get(ref)
            if image is None:
                yield self.env.timeout(self.images.resolve_seconds)
                raise CRIError(UNKNOWN, IMAGE_NOT_FOUND_PULL.format(ref=key))
            seconds = self.images.pull_seconds(ref)
            missing = self.images.missing_layers(ref)
            yield self.env.timeout(seconds)
            n = self.images.record_download(ref)
            if pinned:
                self.images.pinned.add(image.id)
            self._event("image", image.id, "ImagePulled",
                        f"{image.ref}: {len(missing)} of {len(image.layers)} layers, {n} bytes in {seconds:.3f}s")
        except CRIError as err:
            self._pulls.pop(key, None)
            done.succeed(err)
            raise
        self._pulls.pop(key, None)
        done.succeed(image.id)
        return image.id

    @_rpc("ImageService")
    def PullImage(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``PullImage``: download the missing layers; ``{"image_ref": "sha256:<image id>"}``.

        Takes :meth:`ImageStore.pull_seconds`; concurrent pulls of the same
        reference share one download.

        Raises
        ------
        CRIError
            ``Unknown`` with containerd's message when no registry has the image.
        """
        ref = (request.get("image") or {}).get("image", "")
        image_id = yield from self._pull(ref, pinned=ref == PAUSE_IMAGE)
        return {"image_ref": image_id}

    @_rpc("ImageService")
    def ImageStatus(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ImageStatus``: ``{"image": Image | None, "info": {}}`` (``None`` when not present, not an error)."""
        ref = (request.get("image") or {}).get("image", "")
        yield self._wait("image_status")
        image = self.images.lookup(ref)
        return {"image": self.images.cri_image(image) if image is not None else None, "info": {}}

    @_rpc("ImageService")
    def ListImages(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ListImages`` with optional ``filter.image.image``: ``{"images": [Image]}``."""
        ref = ((request.get("filter") or {}).get("image") or {}).get("image", "")
        yield self._wait("list_images")
        if ref:
            image = self.images.lookup(ref)
            images = [image] if image is not None else []
        else:
            images = list(self.images.images.values())
        return {"images": [self.images.cri_image(i) for i in images]}

    @_rpc("ImageService")
    def RemoveImage(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``RemoveImage``: remove the image and unreferenced layers; removing a missing image succeeds."""
        ref = (request.get("image") or {}).get("image", "")
        yield self._wait("remove_image")
        removed = self.images.remove(ref)
        if removed is not None:
            self._event("image", removed.id, "ImageRemoved", removed.ref)
        return {}

    @_rpc("ImageService")
    def ImageFsInfo(self, request: Mapping[str, Any]) -> Generator:  # noqa: N802
        """``ImageFsInfo``: ``{"image_filesystems": [FilesystemUsage], "container_filesystems": [...]}``.

        Image layers and writable layers share one snapshotter filesystem,
        so both lists name the same usage (containerd's single-disk layout).
        """
        yield self._wait("image_fs_info")
        usage = self.images.filesystem_usage(self.now_ns())
        return {"image_filesystems": [usage], "container_filesystems": [deep_copy(usage)]}
