"""CSI message vocabulary: gRPC status code names, enum names, :class:`CSIError` and the call trace.

Mirrors the Container Storage Interface specification (``csi.proto``, v1.11):
the services ``Identity``, ``Controller`` and ``Node``, their RPCs by the
proto's method names (``CreateVolume``, ``ControllerPublishVolume``,
``NodeStageVolume``...), message fields by the proto's snake_case names
(``volume_id``, ``node_id``, ``publish_context``) and enum values by the
proto's value names (``SINGLE_NODE_WRITER``, ``STAGE_UNSTAGE_VOLUME``). A
failed call raises :class:`CSIError` with the gRPC code name the spec gives for
the case, so ``str(err)`` reads like the line a sidecar logs
(``rpc error: code = NotFound desc = ...``).

Every call is appended to a trace, like the CRI calls of
:mod:`kubenotes.cri.runtime`: one dict per call with ``time``, ``service``,
``method``, ``request``, ``response``, ``error``, ``node``.

References
----------
container-storage-interface/spec@v1.11.0 spec.md (RPC interactions and error scheme), csi.proto
grpc/grpc-go codes/codes.go (code names as Go prints them)
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Callable, Mapping

from kubenotes.errors import RPCStatusError

__all__ = [
    "OK", "INVALID_ARGUMENT", "NOT_FOUND", "ALREADY_EXISTS", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
    "SINGLE_NODE_WRITER", "SINGLE_NODE_READER_ONLY", "MULTI_NODE_READER_ONLY", "MULTI_NODE_SINGLE_WRITER",
    "MULTI_NODE_MULTI_WRITER", "SINGLE_NODE_SINGLE_WRITER", "SINGLE_NODE_MULTI_WRITER", "ACCESS_MODES",
    "CONTROLLER_SERVICE", "VOLUME_ACCESSIBILITY_CONSTRAINTS",
    "CREATE_DELETE_VOLUME", "PUBLISH_UNPUBLISH_VOLUME", "GET_CAPACITY", "EXPAND_VOLUME", "STAGE_UNSTAGE_VOLUME",
    "CSIError", "rpc", "call_summary",
]

#: gRPC status code names, as ``status.Error`` prints them (``google.golang.org/grpc/codes``).
OK = "OK"
INVALID_ARGUMENT = "InvalidArgument"
NOT_FOUND = "NotFound"
ALREADY_EXISTS = "AlreadyExists"
FAILED_PRECONDITION = "FailedPrecondition"
RESOURCE_EXHAUSTED = "ResourceExhausted"
OUT_OF_RANGE = "OutOfRange"
UNIMPLEMENTED = "Unimplemented"
INTERNAL = "Internal"

#: ``VolumeCapability.AccessMode.Mode`` values.
SINGLE_NODE_WRITER = "SINGLE_NODE_WRITER"
SINGLE_NODE_READER_ONLY = "SINGLE_NODE_READER_ONLY"
MULTI_NODE_READER_ONLY = "MULTI_NODE_READER_ONLY"
MULTI_NODE_SINGLE_WRITER = "MULTI_NODE_SINGLE_WRITER"
MULTI_NODE_MULTI_WRITER = "MULTI_NODE_MULTI_WRITER"
SINGLE_NODE_SINGLE_WRITER = "SINGLE_NODE_SINGLE_WRITER"
SINGLE_NODE_MULTI_WRITER = "SINGLE_NODE_MULTI_WRITER"
ACCESS_MODES = (SINGLE_NODE_WRITER, SINGLE_NODE_READER_ONLY, MULTI_NODE_READER_ONLY, MULTI_NODE_SINGLE_WRITER,
                MULTI_NODE_MULTI_WRITER, SINGLE_NODE_SINGLE_WRITER, SINGLE_NODE_MULTI_WRITER)

#: ``PluginCapability.Service.Type`` values.
CONTROLLER_SERVICE = "CONTROLLER_SERVICE"
VOLUME_ACCESSIBILITY_CONSTRAINTS = "VOLUME_ACCESSIBILITY_CONSTRAINTS"
#: ``ControllerServiceCapability.RPC.Type`` and ``NodeServiceCapability.RPC.Type`` values used here.
CREATE_DELETE_VOLUME = "CREATE_DELETE_VOLUME"
PUBLISH_UNPUBLISH_VOLUME = "PUBLISH_UNPUBLISH_VOLUME"
GET_CAPACITY = "GET_CAPACITY"
EXPAND_VOLUME = "EXPAND_VOLUME"
STAGE_UNSTAGE_VOLUME = "STAGE_UNSTAGE_VOLUME"


class CSIError(RPCStatusError):
    """A failed CSI call: a gRPC status code name and the plugin's message.

    Parameters
    ----------
    code : str
        gRPC code name (``NotFound``, ``AlreadyExists``, ``FailedPrecondition``, ``ResourceExhausted``...).
    message : str
        The plugin's message (the gRPC status ``desc``).

    Examples
    --------
    >>> err = CSIError(NOT_FOUND, "volume id vol-1 does not exist in the volumes list")
    >>> err.code
    'NotFound'
    >>> str(err)
    'rpc error: code = NotFound desc = volume id vol-1 does not exist in the volumes list'
    """


def rpc(service: str) -> Callable:
    """Decorate a plugin method named after a CSI RPC so each call is appended to ``self.trace``.

    The decorated method takes the request dict and returns the response dict
    (or raises :class:`CSIError`); the trace entry keeps copies of both, the
    virtual time (``self.clock()``) and the node (``self.node_id``, "" for the
    controller).

    Parameters
    ----------
    service : str
        ``Identity``, ``Controller`` or ``Node``.

    Returns
    -------
    callable
        The decorator.
    """

    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(self: Any, request: Mapping[str, Any] | None = None) -> dict:
            request = dict(request or {})
            entry = {"time": float(self.clock()), "service": service, "method": fn.__name__,
                     "request": copy.deepcopy(request), "response": None, "error": None,
                     "node": getattr(self, "node_id", "")}
            self.trace.append(entry)
            try:
                response = fn(self, request)
            except CSIError as err:
                entry["error"] = str(err)
                entry["code"] = err.code
                raise
            entry["response"] = copy.deepcopy(response)
            entry["code"] = OK
            return response

        return wrapper

    return decorate


def call_summary(entry: Mapping[str, Any]) -> str:
    """One line for a trace entry: ``time method(volume_id, node_id) -> code``.

    Parameters
    ----------
    entry : dict
        One trace entry (see :func:`rpc`).

    Returns
    -------
    str

    Examples
    --------
    >>> call_summary({"time": 3.0, "method": "ControllerPublishVolume", "node": "",
    ...               "request": {"volume_id": "v1", "node_id": "n1"}, "code": "OK"})
    't=3.0 ControllerPublishVolume(volume_id=v1, node_id=n1) -> OK'
    """
    req = entry.get("request") or {}
    args = ", ".join(f"{k}={req[k]}" for k in ("name", "volume_id", "node_id") if req.get(k))
    where = f" on {entry['node']}" if entry.get("node") else ""
    return f"t={entry.get('time', 0.0)} {entry.get('method', '')}({args}){where} -> {entry.get('code', '')}"
