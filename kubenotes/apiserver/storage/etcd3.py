"""The API server's objects in a real etcd, through etcd's v3 JSON gateway (``etcd3gw``).

:class:`EtcdStorage` implements :class:`~kubenotes.apiserver.storage.Interface`
the way kube-apiserver's ``storage/etcd3`` store does: an object is the value
of its key; a create is a transaction on ``mod_revision == 0``; an update and a
delete are transactions conditioned on the ``mod_revision`` read, retried with
a fresh read when another writer got there first (``GuaranteedUpdate``); a
list reads a range at one revision; a watch is etcd's watch from a revision,
and a compacted revision is etcd's ``ErrCompacted``. The values are JSON
(kube-apiserver stores protobuf, ``application/vnd.kubernetes.protobuf``, for
built-in kinds; JSON is what it stores for custom resources).

:func:`connect` checks a ``--etcd`` URL before anything uses it, so a wrong or
unreachable URL is one line naming it.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (Create, Delete,
GuaranteedUpdate, GetList, Count)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/etcd3/watcher.go (watch from
resourceVersion + 1; ADDED when create_revision == mod_revision)
etcd-io/etcd@v3.4 Documentation/dev-guide/api_grpc_gateway.md (the ``/v3/`` JSON gateway, base64 keys and values)
"""

from __future__ import annotations

import base64
import json
import queue
import socket
import threading
from typing import Any
from urllib.parse import urlparse

import requests
from etcd3gw import exceptions as gw_exceptions
from etcd3gw.client import Etcd3Client

from kubenotes.apiserver.storage.interfaces import (
    ERR_COMPACTED,
    ERR_FUTURE_REVISION,
    ERR_KEY_EXISTS,
    ERR_SERVER,
    ERR_UNREACHABLE,
    Event,
    Interface,
    StorageError,
    StorageWatch,
    decode,
    encode,
)
from kubenotes.errors import ConfigError

__all__ = ["EtcdStorage", "connect", "DEFAULT_TIMEOUT_SECONDS"]

#: How long the model's etcd client waits for one answer before it calls etcd unreachable. kube-apiserver's
#: client keeps retrying until the request's own deadline (``--request-timeout`` 60 s; 34 s for writes).
DEFAULT_TIMEOUT_SECONDS = 2.0


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def _unb64(s: str) -> str:
    return base64.b64decode(s).decode()


def _range_end(prefix: str) -> str:
    """The key just past every key starting with ``prefix`` (``clientv3.GetPrefixRangeEnd``)."""
    b = bytearray(prefix.encode())
    for i in range(len(b) - 1, -1, -1):
        if b[i] < 0xFF:
            b[i] += 1
            return base64.b64encode(bytes(b[: i + 1])).decode()
    return base64.b64encode(b"\0").decode()


def _interpret(exc: Exception, key: str = "") -> StorageError:
    """An etcd3gw / requests failure as a :class:`StorageError`."""
    if isinstance(exc, (gw_exceptions.ConnectionFailedError, gw_exceptions.ConnectionTimeoutError,
                        requests.RequestException)):
        return StorageError(ERR_UNREACHABLE, key, str(exc).splitlines()[0] if str(exc) else ERR_UNREACHABLE)
    text = getattr(exc, "detail_text", None) or str(exc)
    try:
        text = json.loads(text).get("error") or text
    except (ValueError, AttributeError):
        pass
    if "required revision has been compacted" in text:
        return StorageError(ERR_COMPACTED, key)
    if "required revision is a future revision" in text:
        return StorageError(ERR_FUTURE_REVISION, key)
    return StorageError(ERR_SERVER, key, text.strip())


def connect(url: str, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> Etcd3Client:
    """An ``etcd3gw`` client for ``url`` once ``GET /version`` there says it is etcd 3.4 or later.

    Parameters
    ----------
    url : str
        ``http://HOST:PORT`` (kube-apiserver's ``--etcd-servers``; one URL here).

    Raises
    ------
    ConfigError
        One line naming ``url``: not an http(s) URL with a host and port,
        nothing answering, or something that is not etcd answering.
    """
    u = urlparse(url)
    if u.scheme not in ("http", "https") or not u.hostname or u.path not in ("", "/"):
        raise ConfigError(f"--etcd {url}: not an etcd client URL (want http://HOST:PORT)")
    try:
        port = u.port or 2379
    except ValueError:
        raise ConfigError(f"--etcd {url}: not an etcd client URL (want http://HOST:PORT)") from None
    client = Etcd3Client(host=u.hostname, port=port, protocol=u.scheme, timeout=timeout_seconds, api_path="/v3/")
    try:
        resp = client.session.get(client.base_url + "/version", timeout=timeout_seconds)
    except requests.RequestException as e:
        raise ConfigError(f"--etcd {url}: etcd unreachable ({type(e).__name__})") from None
    try:
        version = resp.json()["etcdserver"]
        major_minor = tuple(int(p) for p in version.split(".")[:2])
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"--etcd {url}: not etcd (GET /version answered HTTP {resp.status_code} "
                          "without an etcdserver version)") from None
    if major_minor < (3, 4):
        raise ConfigError(f"--etcd {url}: etcd {version} is older than 3.4 (the /v3/ JSON gateway)")
    return client


class _EtcdWatch(StorageWatch):
    """etcd's watch over the gateway's streaming ``POST /v3/watch``, read by a thread into a queue."""

    def __init__(self, storage: "EtcdStorage", prefix: str, start_revision: int):
        self._storage = storage
        self._events: "queue.Queue[Event | StorageError | None]" = queue.Queue()
        body: dict[str, Any] = {"create_request": {"key": _b64(storage.prefix + prefix),
                                                   "range_end": _range_end(storage.prefix + prefix),
                                                   "prev_kv": True, "start_revision": start_revision}}
        self._session = requests.Session()
        try:
            self._resp = self._session.post(storage.client.get_url("/watch"), json=body, stream=True,
                                             timeout=(storage.timeout_seconds, None))
        except requests.RequestException as e:
            raise _interpret(e) from None
        self._stopped = False
        #: ``(key, why)`` of the events whose value did not decode as an object (left out of the stream).
        self.skipped: list[tuple[str, str]] = []
        self._thread = threading.Thread(target=self._read, daemon=True, name="etcd-watch")
        self._thread.start()

    def _read(self) -> None:
        err: StorageError | None = None
        try:
            for line in self._resp.iter_lines():
                if not line.strip():
                    continue
                result = json.loads(line).get("result", {})
                if result.get("canceled"):
                    if int(result.get("compact_revision", 0) or 0):
                        err = StorageError(ERR_COMPACTED)
                    else:
                        err = StorageError(ERR_SERVER, "", result.get("cancel_reason", "canceled"))
                    return
                for ev in result.get("events", ()):
                    try:
                        self._events.put(self._storage._event(ev))
                    except (ValueError, KeyError, TypeError) as e:  # a value that is no object JSON
                        key = _unb64(ev.get("kv", {}).get("key", ""))[len(self._storage.prefix):]
                        self.skipped.append((key, f"{type(e).__name__}: {e}"))
            err = StorageError(ERR_UNREACHABLE, "", "etcd closed the watch stream")
        except Exception as e:  # noqa: BLE001 - the stream closed (stop(), or etcd went away)
            err = _interpret(e)
        finally:
            if err is not None and not self._stopped:
                self._events.put(err)
            self._events.put(None)

    def next(self, timeout_seconds: float = 1.0) -> Event | None:
        """The next event; raises :class:`StorageError` once when the watch ended (compaction, etcd gone).

        ``timeout_seconds`` 0 takes only what has arrived already.
        """
        try:
            got = self._events.get(timeout=timeout_seconds) if timeout_seconds > 0 else self._events.get_nowait()
        except queue.Empty:
            return None
        if isinstance(got, StorageError):
            raise got
        if got is None:
            self._events.put(None)  # stay ended
        return got

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:  # wake the reading thread: shut the stream's socket down under it (as etcd3gw's Watcher.stop does)
            s = socket.fromfd(self._resp.raw._fp.fileno(), socket.AF_INET, socket.SOCK_STREAM)
            s.shutdown(socket.SHUT_RDWR)
            s.close()
        except (OSError, AttributeError, ValueError):
            pass
        self._thread.join(2.0)
        self._resp.close()
        self._session.close()
        if self in self._storage._watches:
            self._storage._watches.remove(self)


class EtcdStorage(Interface):
    """:class:`~kubenotes.apiserver.storage.Interface` on a real etcd (v3 JSON gateway, ``etcd3gw``).

    Parameters
    ----------
    url : str
        The etcd client URL (``http://127.0.0.1:2379``), checked by :func:`connect`.
    prefix : str
        Prepended to every key: a test keeps its objects apart on a shared
        etcd with a fresh one (kube-apiserver's ``--etcd-prefix`` is the
        ``/registry`` the keys already start with).
    timeout_seconds : float
        How long one request may take before etcd counts as unreachable.

    Raises
    ------
    ConfigError
        From :func:`connect`, for a wrong or unreachable ``url``.

    Notes
    -----
    One endpoint; no TLS client certificates; no lease-based TTLs (Events
    are kept like any object). Reads are linearizable (etcd's default);
    every write is one round trip (a txn), a retried update two more.
    """

    def __init__(self, url: str, prefix: str = "", timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS):
        self.url = url
        self.prefix = prefix.rstrip("/")
        self.timeout_seconds = timeout_seconds
        self.client = connect(url, timeout_seconds)
        self._revision = 0
        self._compacted = 0
        self._watches: list[_EtcdWatch] = []  # open watches, stopped by close()

    # ------------------------------------------------------------------ plumbing
    def _post(self, path: str, body: dict, key: str = "") -> dict:
        try:
            got = self.client.post(self.client.get_url(path), data=json.dumps(body))
        except (gw_exceptions.Etcd3Exception, requests.RequestException) as e:
            raise _interpret(e, key) from None
        rev = int((got.get("header") or {}).get("revision", 0) or 0)
        if rev > self._revision:
            self._revision = rev
        return got

    def _kv_object(self, kv: dict, revision: int | None = None) -> dict:
        return decode(base64.b64decode(kv.get("value", "")), int(revision or kv["mod_revision"]))

    def _event(self, ev: dict) -> Event:
        kv = ev["kv"]
        key = _unb64(kv["key"])[len(self.prefix):]
        rev = int(kv["mod_revision"])
        if ev.get("type") == "DELETE":
            prev = ev.get("prev_kv") or {}
            return Event("DELETED", key, self._kv_object(prev, rev) if prev else {"metadata": {}}, rev)
        kind = "ADDED" if int(kv.get("create_revision", 0)) == rev else "MODIFIED"
        return Event(kind, key, self._kv_object(kv), rev)

    # ------------------------------------------------------------------ reads
    @property
    def revision(self) -> int:
        return self._revision

    @property
    def compacted_revision(self) -> int:
        return self._compacted

    def current_revision(self) -> int:
        """etcd's revision now (a count-only range; ``GetCurrentResourceVersion``)."""
        self._post("/kv/range", {"key": _b64(self.prefix + "/"), "count_only": True})
        return self._revision

    def get(self, key: str) -> dict | None:
        got = self._post("/kv/range", {"key": _b64(self.prefix + key)}, key)
        kvs = got.get("kvs") or ()
        return self._kv_object(kvs[0]) if kvs else None

    def get_list(self, prefix: str, revision: int = 0) -> tuple[list[dict], int]:
        body: dict[str, Any] = {"key": _b64(self.prefix + prefix), "range_end": _range_end(self.prefix + prefix)}
        if revision:
            body["revision"] = revision
        got = self._post("/kv/range", body, prefix)
        at = revision or int(got["header"]["revision"])
        return [self._kv_object(kv) for kv in got.get("kvs") or ()], at

    def count(self, prefix: str) -> int:
        got = self._post("/kv/range", {"key": _b64(self.prefix + prefix), "range_end": _range_end(self.prefix + prefix),
                                       "count_only": True}, prefix)
        return int(got.get("count", 0) or 0)

    def keys(self, prefix: str = "") -> list[str]:
        got = self._post("/kv/range", {"key": _b64(self.prefix + prefix), "range_end": _range_end(self.prefix + prefix),
                                       "keys_only": True}, prefix)
        return [_unb64(kv["key"])[len(self.prefix):] for kv in got.get("kvs") or ()]

    # ------------------------------------------------------------------ writes
    def _txn(self, key: str, target: str, field: str, expected: int, success: dict, failure: dict | None) -> dict:
        body = {"compare": [{"key": _b64(self.prefix + key), "result": "EQUAL", "target": target, field: expected}],
                "success": [success], "failure": [failure] if failure else []}
        return self._post("/kv/txn", body, key)

    def create(self, key: str, obj: dict) -> dict:
        value = encode(obj)
        got = self._txn(key, "MOD", "mod_revision", 0,
                        {"request_put": {"key": _b64(self.prefix + key), "value": _b64(value)}}, None)
        if not got.get("succeeded"):
            raise StorageError(ERR_KEY_EXISTS, key)
        return decode(value, int(got["header"]["revision"]))

    def _txn_put(self, key: str, expected_mod_revision: int, obj: dict | None) -> tuple[bool, dict | None, int]:
        k = _b64(self.prefix + key)
        if obj is None:
            success = {"request_delete_range": {"key": k, "prev_kv": True}}
        else:
            value = encode(obj)
            success = {"request_put": {"key": k, "value": _b64(value)}}
        got = self._txn(key, "MOD", "mod_revision", expected_mod_revision, success, {"request_range": {"key": k}})
        rev = int(got["header"]["revision"])
        if not got.get("succeeded"):
            kvs = ((got.get("responses") or [{}])[0].get("response_range") or {}).get("kvs") or ()
            return False, (self._kv_object(kvs[0]) if kvs else None), rev
        if obj is None:
            prev = ((got.get("responses") or [{}])[0].get("response_delete_range") or {}).get("prev_kvs") or ()
            return True, (self._kv_object(prev[0], rev) if prev else None), rev
        return True, decode(value, rev), rev

    def compare_version_and_put(self, key: str, expect_version: int, value: str) -> tuple[bool, int, int, str]:
        k = _b64(self.prefix + key)
        got = self._txn(key, "VERSION", "version", expect_version, {"request_put": {"key": k, "value": _b64(value)}},
                        {"request_range": {"key": k}})
        rev = int(got["header"]["revision"])
        if got.get("succeeded"):
            return True, rev, expect_version + 1, value
        kvs = ((got.get("responses") or [{}])[0].get("response_range") or {}).get("kvs") or ()
        if not kvs:
            return False, rev, 0, ""
        return False, rev, int(kvs[0].get("version", 0)), _unb64(kvs[0].get("value", ""))

    # ------------------------------------------------------------------ watch and compaction
    def watch(self, prefix: str, since: int = 0) -> StorageWatch:
        if since:
            now = self.current_revision()
            if since + 1 <= now:  # a range at the watch's start revision fails as the watch would
                self._post("/kv/range", {"key": _b64(self.prefix + prefix), "count_only": True,
                                         "revision": since + 1}, prefix)
            start = since + 1
        else:
            start = self.current_revision() + 1
        w = _EtcdWatch(self, prefix, start)
        self._watches.append(w)
        return w

    def compact(self, revision: int) -> None:
        self._post("/kv/compaction", {"revision": revision, "physical": False})
        self._compacted = max(self._compacted, revision)

    def close(self) -> None:
        """Stop the watches opened here and close the client's connections."""
        for w in list(self._watches):
            w.stop()
        self.client.session.close()
