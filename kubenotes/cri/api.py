"""CRI message vocabulary: enum names, gRPC status codes, errors and small helpers.

Mirrors ``k8s.io/cri-api/pkg/apis/runtime/v1/api.proto`` (v1.34). The model
speaks CRI the way gRPC's Python stubs would look if they took and returned
plain dicts: **method names exactly as the proto's** (``RunPodSandbox``,
``CreateContainer``...), **message fields as the proto's snake_case field
names** (``pod_sandbox_id``, ``metadata``, ``linux.resources.cpu_shares``),
and **enum values as the proto's value names** (``SANDBOX_READY``,
``CONTAINER_EXITED``). Errors are :class:`CRIError` with a gRPC status code
name and the runtime's own message text, so ``str(err)`` reads like the line
the kubelet logs (``rpc error: code = NotFound desc = ...``).

Message strings are copied from containerd's CRI plugin (the most common
runtime); see the constants below for the file each comes from.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto
containerd/containerd@v2.1 internal/cri/server/ (container_start.go, container_remove.go,
container_execsync.go, container_status.go, helpers.go)
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any, Mapping

from kubenotes.errors import RPCStatusError

__all__ = [
    "short_id",
    "call_summary",
    "CRI_API_VERSION",
    "SANDBOX_READY",
    "SANDBOX_NOTREADY",
    "CONTAINER_CREATED",
    "CONTAINER_RUNNING",
    "CONTAINER_EXITED",
    "CONTAINER_UNKNOWN",
    "POD_SANDBOX_STATES",
    "CONTAINER_STATES",
    "NAMESPACE_MODE_POD",
    "NAMESPACE_MODE_CONTAINER",
    "NAMESPACE_MODE_NODE",
    "NAMESPACE_MODE_TARGET",
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "FAILED_PRECONDITION",
    "UNIMPLEMENTED",
    "COMPLETE_EXIT_REASON",
    "ERROR_EXIT_REASON",
    "OOM_EXIT_REASON",
    "CONTAINER_NOT_FOUND",
    "SANDBOX_NOT_FOUND",
    "CONTAINER_IN_STATE",
    "FAILED_TO_SET_STARTING",
    "FAILED_TO_SET_REMOVING",
    "CONTAINER_STILL_RUNNING",
    "CONTAINER_STATE_UNKNOWN",
    "SANDBOX_NOT_RUNNING",
    "EXEC_CONTAINER_NOT_RUNNING",
    "NAME_RESERVED",
    "FAILED_TO_RESERVE_CONTAINER_NAME",
    "FAILED_TO_RESERVE_SANDBOX_NAME",
    "IMAGE_NOT_FOUND_PULL",
    "CRIError",
    "make_sandbox_name",
    "make_container_name",
    "new_id",
    "match_labels",
    "deep_copy",
]

#: ``runtime_api_version`` returned by Version.
CRI_API_VERSION = "v1"

#: ``PodSandboxState`` values.
SANDBOX_READY = "SANDBOX_READY"
SANDBOX_NOTREADY = "SANDBOX_NOTREADY"
POD_SANDBOX_STATES = (SANDBOX_READY, SANDBOX_NOTREADY)

#: ``ContainerState`` values.
CONTAINER_CREATED = "CONTAINER_CREATED"
CONTAINER_RUNNING = "CONTAINER_RUNNING"
CONTAINER_EXITED = "CONTAINER_EXITED"
CONTAINER_UNKNOWN = "CONTAINER_UNKNOWN"
CONTAINER_STATES = (CONTAINER_CREATED, CONTAINER_RUNNING, CONTAINER_EXITED, CONTAINER_UNKNOWN)

#: ``NamespaceMode`` values (``NamespaceOption.network``/``pid``/``ipc``).
NAMESPACE_MODE_POD = "POD"
NAMESPACE_MODE_CONTAINER = "CONTAINER"
NAMESPACE_MODE_NODE = "NODE"
NAMESPACE_MODE_TARGET = "TARGET"

#: gRPC status code names (``google.golang.org/grpc/codes``).
OK = "OK"
CANCELLED = "Canceled"
UNKNOWN = "Unknown"
INVALID_ARGUMENT = "InvalidArgument"
DEADLINE_EXCEEDED = "DeadlineExceeded"
NOT_FOUND = "NotFound"
ALREADY_EXISTS = "AlreadyExists"
FAILED_PRECONDITION = "FailedPrecondition"
UNIMPLEMENTED = "Unimplemented"

#: containerd ``completeExitReason``: exit code 0.
COMPLETE_EXIT_REASON = "Completed"
#: containerd ``errorExitReason``: non-zero exit code.
ERROR_EXIT_REASON = "Error"
#: containerd ``oomExitReason``: the cgroup's OOM killer ended the process.
OOM_EXIT_REASON = "OOMKilled"

#: containerd container_status.go / container_stop.go ... (``%q`` is Go-quoted).
CONTAINER_NOT_FOUND = 'an error occurred when try to find container "{id}": not found'
#: containerd sandbox_status.go and friends.
SANDBOX_NOT_FOUND = 'an error occurred when try to find sandbox "{id}": not found'
#: containerd container_start.go ``setContainerStarting``.
CONTAINER_IN_STATE = "container is in {state} state"
#: containerd container_start.go.
FAILED_TO_SET_STARTING = 'failed to set starting state for container "{id}": {err}'
#: containerd container_remove.go.
FAILED_TO_SET_REMOVING = 'failed to set removing state for container "{id}": {err}'
#: containerd container_remove.go ``setContainerRemoving``.
CONTAINER_STILL_RUNNING = "container is still running, to stop first"
#: containerd container_remove.go ``setContainerRemoving``.
CONTAINER_STATE_UNKNOWN = "container state is unknown, to stop first"
#: containerd container_start.go: the pod's sandbox is gone or stopped.
SANDBOX_NOT_RUNNING = 'sandbox container "{id}" is not running'
#: containerd container_execsync.go.
EXEC_CONTAINER_NOT_RUNNING = 'container "{id}" is in {state} state'
#: containerd internal/registrar ``Reserve``.
NAME_RESERVED = 'name "{name}" is reserved for "{key}"'
#: containerd container_create.go.
FAILED_TO_RESERVE_CONTAINER_NAME = 'failed to reserve container name "{name}": {err}'
#: containerd sandbox_run.go.
FAILED_TO_RESERVE_SANDBOX_NAME = 'failed to reserve sandbox name "{name}": {err}'
#: containerd image_pull.go when the registry has no such reference.
IMAGE_NOT_FOUND_PULL = (
    'failed to pull and unpack image "{ref}": failed to resolve reference "{ref}": {ref}: not found'
)


class CRIError(RPCStatusError):
    """A failed CRI call: a gRPC status code name and the runtime's message.

    Parameters
    ----------
    code : str
        gRPC code name (``NotFound``, ``Unknown``, ``DeadlineExceeded``...).
    message : str
        The runtime's message (the gRPC status ``desc``).

    Notes
    -----
    ``str()`` is the text a Go client prints for a ``status.Error``, which is
    what appears in kubelet logs and in container status messages.

    Examples
    --------
    >>> err = CRIError("NotFound", CONTAINER_NOT_FOUND.format(id="abc"))
    >>> err.code
    'NotFound'
    >>> str(err)
    'rpc error: code = NotFound desc = an error occurred when try to find container "abc": not found'
    """


def make_sandbox_name(metadata: Mapping[str, Any]) -> str:
    """The sandbox name runtimes reserve: ``k8s_POD_<name>_<namespace>_<uid>_<attempt>``.

    Mirrors containerd's ``makeSandboxName`` (and dockershim's historical
    format, which CRI-O shares).

    Examples
    --------
    >>> make_sandbox_name({"name": "web", "namespace": "default", "uid": "u1", "attempt": 0})
    'k8s_POD_web_default_u1_0'
    """
    return "_".join(
        ["k8s", "POD", str(metadata.get("name", "")), str(metadata.get("namespace", "")),
         str(metadata.get("uid", "")), str(metadata.get("attempt", 0))]
    )


def make_container_name(container_metadata: Mapping[str, Any], sandbox_metadata: Mapping[str, Any]) -> str:
    """``k8s_<container>_<pod>_<namespace>_<uid>_<attempt>`` (containerd ``makeContainerName``).

    Examples
    --------
    >>> make_container_name({"name": "app", "attempt": 2}, {"name": "web", "namespace": "default", "uid": "u1"})
    'k8s_app_web_default_u1_2'
    """
    return "_".join(
        ["k8s", str(container_metadata.get("name", "")), str(sandbox_metadata.get("name", "")),
         str(sandbox_metadata.get("namespace", "")), str(sandbox_metadata.get("uid", "")),
         str(container_metadata.get("attempt", 0))]
    )


def new_id(*parts: object) -> str:
    """A deterministic 64-hex-digit ID (runtimes use 32 random bytes; the model hashes its inputs).

    Examples
    --------
    >>> len(new_id("node-1", 1)), new_id("node-1", 1) == new_id("node-1", 1)
    (64, True)
    """
    return hashlib.sha256("\x00".join(str(p) for p in parts).encode()).hexdigest()


def match_labels(labels: Mapping[str, str] | None, selector: Mapping[str, str] | None) -> bool:
    """True when every ``selector`` pair is in ``labels`` (CRI ``label_selector``: equality AND).

    Examples
    --------
    >>> match_labels({"a": "1", "b": "2"}, {"a": "1"}), match_labels({"a": "1"}, {"a": "2"})
    (True, False)
    >>> match_labels({}, None)
    True
    """
    labels = labels or {}
    return all(labels.get(k) == v for k, v in (selector or {}).items())


def deep_copy(obj: Any) -> Any:
    """A deep copy of a message (responses never alias the runtime's state).

    Messages are JSON-shaped (dicts, lists, scalars, bytes), so a plain
    recursive copy does; it is several times faster than :func:`copy.deepcopy`,
    which matters for the PLEG's relist every second on every node.

    Examples
    --------
    >>> a = {"x": [1, {"y": b"z"}]}; b = deep_copy(a); b["x"][1]["y"] = 2; a
    {'x': [1, {'y': b'z'}]}
    """
    if isinstance(obj, dict):
        return {k: deep_copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [deep_copy(v) for v in obj]
    if isinstance(obj, (str, int, float, bool, bytes, type(None))):
        return obj
    if isinstance(obj, tuple):
        return tuple(deep_copy(v) for v in obj)
    return copy.deepcopy(obj)


def short_id(identifier: str, n: int = 13) -> str:
    """An ID cut to its first ``n`` characters, as ``crictl ps`` and ``crictl pods`` print it.

    Parameters
    ----------
    identifier : str
        A sandbox, container or image ID ("" or None gives "").
    n : int
        Characters kept: crictl's ``truncatedIDLen`` is 13.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        When ``identifier`` is not a str.

    References
    ----------
    kubernetes-sigs/cri-tools cmd/crictl/util.go (truncatedIDLen)

    Examples
    --------
    >>> short_id("0123456789abcdef0123"), short_id("")
    ('0123456789abc', '')
    """
    return identifier[:n] if identifier else ""


def call_summary(entry: Mapping[str, Any]) -> tuple[str, str]:
    """``(request, response)`` of one trace entry in a line each, as ``crictl`` would name the arguments.

    Parameters
    ----------
    entry : dict
        One :attr:`ContainerRuntime.trace <kubenotes.cri.runtime.ContainerRuntime.trace>` entry
        (``method``, ``request``, ``response``, ``error``).

    Returns
    -------
    tuple of str
        IDs are shortened to 13 characters, as ``crictl ps`` shows them.

    Examples
    --------
    >>> call_summary({"method": "PullImage", "request": {"image": {"image": "nginx:1.27"}},
    ...               "response": {"image_ref": "sha256:0123456789abcdef0123"}, "error": None})
    ('image nginx:1.27', 'image_ref sha256:0123456789ab')
    >>> call_summary({"method": "ImageStatus", "request": {"image": {"image": "nginx:1.27"}},
    ...               "response": {"image": None}, "error": None})
    ('image nginx:1.27', 'image: null (not on the node)')
    """
    method = entry.get("method", "")
    req = entry.get("request") or {}
    resp = entry.get("response")
    if method == "RunPodSandbox":
        meta = (req.get("config") or {}).get("metadata") or {}
        parent = ((req.get("config") or {}).get("linux") or {}).get("cgroup_parent", "")
        request = f"pod {meta.get('namespace', '')}/{meta.get('name', '')} attempt {meta.get('attempt', 0)}"
        if parent:
            request += f", cgroup_parent {parent}"
    elif method in ("PullImage", "ImageStatus", "RemoveImage"):
        request = f"image {(req.get('image') or {}).get('image', '')}"
    elif method == "CreateContainer":
        cfg = req.get("config") or {}
        request = (f"container {(cfg.get('metadata') or {}).get('name', '')} "
                   f"(image {(cfg.get('image') or {}).get('image', '')}) in sandbox "
                   f"{short_id(req.get('pod_sandbox_id', ''))}")
    elif "container_id" in req:
        request = f"container_id {short_id(req['container_id'])}"
    elif "pod_sandbox_id" in req:
        request = f"pod_sandbox_id {short_id(req['pod_sandbox_id'])}"
    else:
        request = ", ".join(sorted(req)) or "(empty)"
    if entry.get("error"):
        return request, f"error: {entry['error']}"
    if resp is None:
        return request, ""
    if "pod_sandbox_id" in resp:
        response = f"pod_sandbox_id {short_id(resp['pod_sandbox_id'])}"
    elif "container_id" in resp:
        response = f"container_id {short_id(resp['container_id'])}"
    elif "image_ref" in resp:
        response = f"image_ref {short_id(resp['image_ref'], 19)}"
    elif method == "ImageStatus":
        image = resp.get("image")
        response = "image: null (not on the node)" if image is None else f"present, {image.get('size', 0) / 2**20:.1f} MiB"
    elif method == "PodSandboxStatus":
        status = resp.get("status") or {}
        response = f"{status.get('state', '')}, ip {(status.get('network') or {}).get('ip', '') or '-'}"
    elif method == "ContainerStatus":
        response = (resp.get("status") or {}).get("state", "")
    else:
        response = "{}" if not resp else ", ".join(sorted(resp))
    return request, response
