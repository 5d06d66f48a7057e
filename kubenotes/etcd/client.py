"""A few etcd v3 calls against real members, for checking the Raft model: put and range through the JSON gateway,
``etcdctl endpoint status -w json``.

The JSON gateway (``/v3/kv/put``, ``/v3/kv/range``) is what etcd 3.4 serves on
its client URL beside gRPC; keys and values travel base64-encoded. An error
comes back as ``{"error", "message", "code"}`` with the gRPC code and an HTTP
status (``etcdserver: request timed out`` is code 14, HTTP 503; ``context
deadline exceeded`` code 2, HTTP 500), which :func:`put` returns as a value,
not an exception: failing is what is being measured.

References
----------
etcd-io/etcd@v3.4 etcdserver/api/v3rpc/rpctypes/error.go (the gRPC errors and their codes)
etcd-io/etcd@v3.4 etcdctl/ctlv3/command/ep_command.go (``endpoint status``)
https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from typing import Sequence

from kubenotes.etcd.members import EtcdUnavailable

__all__ = ["gateway_call", "put", "get", "endpoint_status"]


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def gateway_call(url: str, path: str, body: dict, timeout_seconds: float) -> dict:
    """POST ``body`` as JSON to ``path`` of an etcd member's v3 JSON gateway (``/v3/kv/put``, ``/v3/kv/range``...).

    Parameters
    ----------
    url : str
        The member's client URL, ``http://127.0.0.1:2379``.
    path : str
        The gateway path, ``/v3/kv/range``.
    body : dict
        The request message in the gateway's JSON form (keys and values base64).
    timeout_seconds : float
        How long to wait for the answer.

    Returns
    -------
    dict
        The decoded answer plus ``http_status`` (0 when the member did not answer; ``error`` then says why) and
        ``seconds`` (wall time of the call). Never raises for HTTP or connection errors.

    References
    ----------
    https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/
    """
    req = urllib.request.Request(url.rstrip("/") + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout_seconds) as r:  # noqa: S310 - loopback members
            status, got = r.status, json.loads(r.read().decode() or "{}")
    except urllib.error.HTTPError as e:
        status = e.code
        try:
            got = json.loads(e.read().decode() or "{}")
        except ValueError:
            got = {"error": f"HTTP {e.code}"}
    except (OSError, urllib.error.URLError) as e:
        status, got = 0, {"error": str(getattr(e, "reason", e))}
    got["http_status"] = status
    got["seconds"] = time.monotonic() - t0
    return got


def put(url: str, key: str, value: str, *, timeout_seconds: float = 15.0) -> dict:
    """``PUT key value`` through ``url``'s JSON gateway.

    Returns
    -------
    dict
        ``{"http_status", "seconds", "revision", "raft_term"}`` on success, ``{"http_status", "seconds",
        "error", "code"}`` otherwise (``http_status`` 0 when the member did not answer at all).
    """
    got = gateway_call(url, "/v3/kv/put", {"key": _b64(key), "value": _b64(value)}, timeout_seconds)
    header = got.get("header") or {}
    out = {"http_status": got["http_status"], "seconds": got["seconds"]}
    if "error" in got:
        out.update(error=got["error"], code=int(got.get("code", 0)))
    else:
        out.update(revision=int(header.get("revision", 0)), raft_term=int(header.get("raft_term", 0)))
    return out


def get(url: str, key: str, *, serializable: bool = False, timeout_seconds: float = 15.0) -> dict:
    """``GET key`` (linearizable unless ``serializable``): ``{"http_status", "value", "mod_revision", "revision"}``."""
    got = gateway_call(url, "/v3/kv/range", {"key": _b64(key), "serializable": serializable}, timeout_seconds)
    if "error" in got:
        return {"http_status": got["http_status"], "error": got["error"], "code": int(got.get("code", 0))}
    kvs = got.get("kvs") or []
    return {"http_status": got["http_status"],
            "value": base64.b64decode(kvs[0]["value"]).decode() if kvs else None,
            "mod_revision": int(kvs[0].get("mod_revision", 0)) if kvs else 0,
            "revision": int((got.get("header") or {}).get("revision", 0))}


def endpoint_status(endpoints: Sequence[str], *, etcdctl: str = "etcdctl", timeout_seconds: float = 2.0) -> list[dict]:
    """``etcdctl endpoint status -w json`` over ``endpoints``: one ``{"endpoint", "member_id", "leader",
    "raft_term", "raft_index"}`` per member that answered.

    Raises
    ------
    EtcdUnavailable
        When ``etcdctl`` is not installed (Debian's etcd-client).
    """
    binary = shutil.which(etcdctl) or shutil.which(etcdctl, path="/usr/bin")
    if not binary:
        raise EtcdUnavailable(f"{etcdctl}: not found on PATH; install Debian's etcd-client")
    p = subprocess.run([binary, "--endpoints", ",".join(endpoints), "--command-timeout",
                        f"{timeout_seconds:g}s", "endpoint", "status", "-w", "json"],
                       capture_output=True, text=True, env={"ETCDCTL_API": "3", "PATH": "/usr/bin:/bin"},
                       timeout=timeout_seconds * len(endpoints) + 5)
    try:
        rows = json.loads(p.stdout or "[]")
    except ValueError:
        rows = []
    return [{"endpoint": r["Endpoint"], "member_id": int(r["Status"]["header"]["member_id"]),
             "leader": int(r["Status"]["leader"]), "raft_term": int(r["Status"]["raftTerm"]),
             "raft_index": int(r["Status"]["raftIndex"])} for r in rows]
