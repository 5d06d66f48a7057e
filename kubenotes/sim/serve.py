"""Serve a running :class:`~kubenotes.sim.cluster.Cluster` on loopback so the real ``kubectl`` talks to it.

:func:`serve` starts the HTTP layer (:func:`kubenotes.apiserver.http.create_app`
under uvicorn) in a background thread, writes a kubeconfig naming the
server and the admin bearer token, and runs a clock thread that advances
the cluster's SimPy environment at ``time_scale`` virtual seconds per wall
second (``0`` pauses it: a notebook then steps it with
:meth:`ServedCluster.run_for`). One lock (:class:`ServeLock`) guards every
touch of the environment, from HTTP requests and from the clock alike,
because SimPy is single-threaded. The clock runs the model one SimPy event
at a time and hands the lock to waiting requests every
:data:`CLOCK_SLICE_SECONDS` of wall time, between two events or, inside one
long event, between two of the model's own API requests: a request never
waits behind a whole simulation step (issue #31; ``benchmarks/serve_clock.py``
measures GETs during a 5,000-replica rollout).

This is kube-apiserver's ``--secure-port`` and ``--bind-address`` on
``127.0.0.1`` with a self-signed serving certificate made at start (its own
CA, for the IP ``127.0.0.1`` and ``localhost``), plus what ``kubeadm init``
does for the admin kubeconfig (``/etc/kubernetes/admin.conf``, here with
the certificate as ``certificate-authority-data``). The admin bearer token
is random at every start (``secrets.token_urlsafe``), and so is the
service-account signing key unless ``--service-account-signing-key-file``
names one: the cluster's objects may be deterministic (``--seed``), its
secrets never are. The private keys and the kubeconfig are written 0600 and
removed by :meth:`ServedCluster.stop`. HTTPS is not optional:
client-go, and so kubectl, sends a bearer token only over TLS
(``getUserIdentificationPartialConfig``), so on plain HTTP every kubectl
request would arrive without credentials and get 401.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kubeadm/app/phases/kubeconfig/kubeconfig.go (the admin kubeconfig's shape)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/clientcmd/api/v1/types.go (Config, Cluster, AuthInfo, Context)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/clientcmd/client_config.go (tokens only with TLS)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/util/cert/cert.go (GenerateSelfSignedCertKey)
kubernetes/kubernetes@v1.34.0 cmd/kubeadm/app/phases/certs/certs.go (the service-account key pair, sa.key)
"""

from __future__ import annotations

import base64
import datetime as _dt
import gc
import logging
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from typing import Any

__all__ = ["serve", "ServedCluster", "kubeconfig_text", "find_kubectl", "self_signed_cert", "write_private_file",
           "KUBECTL_CANDIDATES", "CLOCK_TICK_SECONDS",
           "CLOCK_SLICE_SECONDS", "ServeLock", "revision_floor", "REVISIONS_PER_WALL_SECOND"]

#: Where kubectl is looked for, in order: the versioned binary matching ``/version`` (1.33), then the dispatcher.
KUBECTL_CANDIDATES = ("/usr/lib/google-cloud-sdk/bin/kubectl.1.33", "/usr/bin/kubectl")

#: Wall seconds between two advances of the virtual clock.
CLOCK_TICK_SECONDS = 0.05

#: Wall seconds the clock holds the lock at most before it lets waiting requests in (between two events, or
#: between two API requests of one event), so no request waits behind a whole simulation step (issue #31).
CLOCK_SLICE_SECONDS = 0.01

_START_TIMEOUT_SECONDS = 10.0

#: Revisions per wall second above which a served run's resourceVersions start (see :func:`revision_floor`).
REVISIONS_PER_WALL_SECOND = 10_000
#: 2020-01-01T00:00:00Z: the floor counts wall seconds from here, so it stays a 13-digit number.
_REVISION_EPOCH_UNIX = 1_577_836_800


class _QuietUpgrades(logging.Filter):
    """Drop uvicorn's warnings about WebSocket upgrades (``kubectl exec`` tries one first; the API answers 400)."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        return not (msg.startswith("Unsupported upgrade request") or msg.startswith("No supported WebSocket"))


def find_kubectl() -> str | None:
    """The kubectl binary to run: the first of :data:`KUBECTL_CANDIDATES` that exists, else ``kubectl`` on PATH.

    Parameters
    ----------
    None

    Returns
    -------
    str or None
        The path of an executable file; None when there is no kubectl at all.

    Raises
    ------
    None of its own: it only looks at the file system and ``PATH`` (``os.access``, ``shutil.which``).

    Notes
    -----
    The versioned binary comes first because it matches the version the
    model's ``/version`` reports (1.33); the model runs no kubectl of its own.

    Examples
    --------
    >>> import os
    >>> p = find_kubectl()
    >>> p is None or (os.path.basename(p).startswith("kubectl") and os.access(p, os.X_OK))
    True
    """
    for c in KUBECTL_CANDIDATES:
        if os.path.exists(c) and os.access(c, os.X_OK):
            return c
    return shutil.which("kubectl")


def self_signed_cert(hosts: tuple[str, ...] = ("127.0.0.1", "localhost"), days: int = 365) -> tuple[bytes, bytes]:
    """A self-signed serving certificate and its key, PEM-encoded (``cert.GenerateSelfSignedCertKey``).

    The certificate is its own CA (``CA:TRUE``), so a kubeconfig can name it
    as ``certificate-authority-data``. It is made with the wall clock (TLS
    needs real validity dates); nothing in the model reads it.

    Examples
    --------
    >>> cert, key = self_signed_cert()
    >>> cert.startswith(b"-----BEGIN CERTIFICATE-----"), b"PRIVATE KEY" in key
    (True, True)
    """
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubenotes-apiserver")])
    sans: list[x509.GeneralName] = []
    for h in hosts:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            sans.append(x509.DNSName(h))
    now = _dt.datetime.now(_dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - _dt.timedelta(minutes=5)).not_valid_after(now + _dt.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_cert_sign=True,
                                         content_commitment=False, data_encipherment=False, key_agreement=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .sign(key, hashes.SHA256()))
    return (cert.public_bytes(serialization.Encoding.PEM),
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()))


def write_private_file(path: str, data: bytes | str) -> None:
    """Write ``data`` to ``path`` readable by its owner only (mode 0600 from the moment it exists).

    kubeadm writes its private keys and ``admin.conf`` so (``keyutil.WriteKey``,
    ``clientcmd.WriteToFile``); opening with the mode, rather than chmod after
    writing, leaves no moment in which another user could read the secret.

    Parameters
    ----------
    path : str
    data : bytes or str
        Written as is (a str is UTF-8 encoded).

    Raises
    ------
    OSError
        When the file cannot be opened or written.

    Examples
    --------
    >>> import os, stat, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "sa.key")
    >>> write_private_file(p, b"secret")
    >>> oct(stat.S_IMODE(os.stat(p).st_mode))
    '0o600'
    """
    raw = data.encode() if isinstance(data, str) else data
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_CREAT: narrow it
        os.write(fd, raw)
    finally:
        os.close(fd)


def kubeconfig_text(url: str, token: str, ca_pem: bytes | None = None, name: str = "kubenotes",
                    namespace: str = "default") -> str:
    """A kubeconfig with one cluster, one user (a bearer token) and one context, made current.

    Examples
    --------
    >>> import yaml
    >>> cfg = yaml.safe_load(kubeconfig_text("https://127.0.0.1:6443", "t0k", b"PEM"))
    >>> cfg["current-context"], cfg["clusters"][0]["cluster"]["server"], cfg["users"][0]["user"]["token"]
    ('kubenotes', 'https://127.0.0.1:6443', 't0k')
    >>> cfg["clusters"][0]["cluster"]["certificate-authority-data"]
    'UEVN'
    """
    import yaml

    cluster: dict[str, Any] = {"server": url}
    if ca_pem is not None:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": "kubernetes-admin", "user": {"token": token}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": "kubernetes-admin",
                                                "namespace": namespace}}],
        "current-context": name,
        "preferences": {},
    }
    return yaml.safe_dump(cfg, sort_keys=False)


class ServedCluster:
    """A cluster behind a loopback HTTP server, with its clock running in the background.

    Made by :func:`serve`; use it as a context manager or call :meth:`stop`.

    Attributes
    ----------
    cluster : Cluster
    url : str
        ``https://127.0.0.1:<port>``.
    ca_path : str
        The serving certificate (PEM), to verify the server with (``curl --cacert``).
    port : int
    kubeconfig_path : str
    token : str
        The admin bearer token written to the kubeconfig (random per start).
    signing_key_path : str
        The service-account signing key (PEM, 0600): the one given, or the one made at start.
    lock : ServeLock
        Hold it to touch the cluster from another thread (``with served.lock: ...``); advance the clock
        with :meth:`run_for`, not ``cluster.run`` under this lock, while the clock runs.
    time_scale : float
        Virtual seconds per wall second (0: paused).
    """

    def __init__(self, cluster: Any, port: int, kubeconfig_path: str, lock: Any, time_scale: float,
                 uv_server: Any, threads: list[threading.Thread], stopping: threading.Event,
                 tmpdir: str, ca_path: str, token: str = "", signing_key_path: str = "",
                 clock_lock: threading.Lock | None = None):
        self.cluster = cluster
        self._clock_lock = clock_lock if clock_lock is not None else threading.Lock()
        self.port = port
        self.url = f"https://127.0.0.1:{port}"
        self.ca_path = ca_path
        self.kubeconfig_path = kubeconfig_path
        self.token = token
        self.signing_key_path = signing_key_path
        self.lock = lock
        self.time_scale = time_scale
        self._uv = uv_server
        self._threads = threads
        self._stopping = stopping
        self._tmpdir = tmpdir
        self._cache_dir = tempfile.mkdtemp(prefix="kubenotes-kubectl-cache-")
        self.stopped = False

    # ------------------------------------------------------------ clock
    def run_for(self, seconds: float) -> None:
        """Advance the virtual clock by ``seconds`` now (under the lock), whatever the time scale.

        It waits for the clock thread's current slice to end: that thread lets
        requests in between the model's requests inside one event, and nothing
        else may advance the environment then.
        """
        with self._clock_lock, self.lock:
            self.cluster.run_for(seconds)

    @property
    def now(self) -> float:
        """Virtual seconds."""
        with self.lock:
            return float(self.cluster.env.now)

    # ------------------------------------------------------------ kubectl
    def kubectl(self, *args: str, timeout: float = 60.0, input: str | None = None,
                kubectl: str | None = None) -> subprocess.CompletedProcess:
        """Run the real kubectl against this server and return its result (text stdout/stderr).

        Parameters
        ----------
        *args : str
            kubectl's arguments (``"get", "pods", "-A"``).
        timeout : float
            Wall seconds before the process is killed (``subprocess.TimeoutExpired``).
        input : str, optional
            Standard input (``kubectl apply -f -``).
        kubectl : str, optional
            The binary (default: :func:`find_kubectl`).

        Raises
        ------
        FileNotFoundError
            When no kubectl is installed.
        """
        exe = kubectl or find_kubectl()
        if exe is None:
            raise FileNotFoundError("kubectl not found (looked for " + ", ".join(KUBECTL_CANDIDATES) + " and PATH)")
        env = dict(os.environ)
        env["KUBECONFIG"] = self.kubeconfig_path
        cmd = [exe, "--kubeconfig", self.kubeconfig_path, "--cache-dir", self._cache_dir, *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input, env=env,
                              stdin=None if input is not None else subprocess.DEVNULL)

    # ------------------------------------------------------------ lifecycle
    def stop(self) -> None:
        """Stop the clock and the HTTP server (open watches end), and remove files :func:`serve` created.

        Those are the temporary directory (serving certificate and key, the
        service-account signing key it made) and the kubeconfig, also one
        written to a path given with ``kubeconfig=``: its token dies with the
        server. A signing key read from a file is left alone.
        """
        if self.stopped:
            return
        self.stopped = True
        self._stopping.set()
        self._uv.should_exit = True
        for t in self._threads:
            t.join(timeout=5.0)
        if any(t.is_alive() for t in self._threads):
            self._uv.force_exit = True
            for t in self._threads:
                t.join(timeout=5.0)
        shutil.rmtree(self._cache_dir, ignore_errors=True)
        shutil.rmtree(self._tmpdir, ignore_errors=True)
        try:
            os.remove(self.kubeconfig_path)
        except OSError:
            pass

    def __enter__(self) -> "ServedCluster":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "stopped" if self.stopped else f"t={self.cluster.env.now:g}s"
        return f"ServedCluster({self.url}, {state}, kubeconfig={self.kubeconfig_path})"


class ServeLock:
    """The lock every touch of a served cluster takes: a reentrant lock that counts the threads waiting for it.

    It behaves as :class:`threading.RLock` (``with lock:``, ``acquire``,
    ``release``); :attr:`waiting` lets the clock, which holds it while the
    model runs, hand it over to the requests waiting (:meth:`handoff`)
    instead of taking it straight back.

    Examples
    --------
    >>> lock = ServeLock()
    >>> with lock:
    ...     lock.waiting
    0
    >>> lock.acquire(blocking=False), lock.release()
    (True, None)
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._count = threading.Lock()
        #: Threads blocked in :meth:`acquire` right now.
        self.waiting = 0

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Take the lock (as ``RLock.acquire``), counted in :attr:`waiting` while blocked."""
        if self._lock.acquire(blocking=False):
            return True
        if not blocking:
            return False
        with self._count:
            self.waiting += 1
        try:
            return self._lock.acquire(True, timeout)
        finally:
            with self._count:
                self.waiting -= 1

    def release(self) -> None:
        """Give the lock back (as ``RLock.release``)."""
        self._lock.release()

    __enter__ = acquire

    def __exit__(self, *exc: Any) -> None:
        self._lock.release()

    def handoff(self, max_wait_seconds: float = 0.05) -> None:
        """From the thread holding the lock: let the threads waiting for it take it, then take it back.

        The lock is released whatever the holding thread's recursion depth
        (as :class:`threading.Condition` does) and taken back at the same
        depth; the holder waits until no thread is waiting any more, at most
        ``max_wait_seconds`` (so a steady stream of requests cannot stop the clock).
        """
        state = self._lock._release_save()  # type: ignore[attr-defined]
        try:
            if not self.waiting:
                return
            time.sleep(0)  # a thread woken by the release gets the interpreter
            deadline = time.monotonic() + max_wait_seconds
            while self.waiting and time.monotonic() < deadline:
                time.sleep(0.0002)
        finally:
            self._lock._acquire_restore(state)  # type: ignore[attr-defined]


class _Clock:
    """The clock thread's work: advance ``cluster`` at ``time_scale``, in slices that let requests in.

    The model runs one SimPy event at a time (``env.step``, the order of
    ``env.run``), and once it has held the lock for
    :data:`CLOCK_SLICE_SECONDS` of wall time it hands the lock to the
    requests waiting (:meth:`ServeLock.handoff`): between two events, and
    inside one event between two of the model's own API requests (the
    server's :attr:`~kubenotes.apiserver.server.APIServer.between_requests`),
    because one event can be long (a ReplicaSet sync creating 500 pods).
    ``clock_lock`` is held meanwhile, so nobody else advances the
    environment in the middle of an event (:meth:`ServedCluster.run_for` takes it).
    """

    def __init__(self, cluster: Any, lock: ServeLock, clock_lock: threading.Lock, time_scale: float,
                 stopping: threading.Event):
        self.cluster, self.lock, self.clock_lock = cluster, lock, clock_lock
        self.time_scale, self.stopping = time_scale, stopping
        self.ident: int | None = None
        self.held_since = 0.0
        self.freezing = False
        #: How many times the clock handed the lock over (for tests and benchmarks).
        self.handoffs = 0

    def pause(self) -> None:
        """In the clock thread, after a slice's worth of wall time: let waiting requests in."""
        if threading.get_ident() != self.ident:
            return  # a request from an HTTP thread: it holds the lock already
        now = time.monotonic()
        if now - self.held_since < CLOCK_SLICE_SECONDS:
            return
        self.handoffs += 1
        if self.freezing:
            gc.freeze()  # what the model made so far is out of the collections until the slice ends (see advance)
        self.lock.handoff()
        self.held_since = time.monotonic()

    def advance(self, target: float) -> None:
        """Run every event due before virtual second ``target``, one at a time, then move the clock to it.

        Events due exactly at ``target`` are left for the next call (the clock
        then stops just before them): the order of events is ``env.run``'s.
        """
        from kubenotes.apiserver.server import using_epoch
        from kubenotes.gcpolicy import fewer_gc_passes

        env = self.cluster.env
        server = self.cluster.server
        with self.clock_lock, self.lock:
            # fewer_gc_passes freezes the heap for the slice when nothing is frozen yet (counting frozen objects
            # walks them all: ask before, while the count is 0); pause() then freezes what the model made since
            freezing = gc.isenabled() and gc.get_freeze_count() == 0
            with using_epoch(server.epoch), fewer_gc_passes(freeze_existing=True):
                self.freezing = freezing
                self._advance(env, server, target)

    def _advance(self, env: Any, server: Any, target: float) -> None:
        """Step events before ``target`` under the lock (held by :meth:`advance`), pausing after each."""
        self.held_since = time.monotonic()
        server.between_requests = self.pause
        try:
            while env.peek() < target and not self.stopping.is_set():
                env.step()
                self.pause()
            if env.peek() > target > env.now:
                env.run(until=target)  # no event before it: only the clock moves
        finally:
            server.between_requests = None
            self.freezing = False

    def run(self) -> None:
        """Advance by ``time_scale`` virtual seconds per wall second until ``stopping`` is set.

        When the model cannot keep up, at most one wall second of backlog is
        kept: virtual time then runs slower than asked instead of in bursts.
        """
        self.ident = threading.get_ident()
        env = self.cluster.env
        last = time.monotonic()
        target = float(env.now)
        while not self.stopping.wait(CLOCK_TICK_SECONDS):
            now = time.monotonic()
            target = min(target + (now - last) * self.time_scale, float(env.now) + self.time_scale)
            last = now
            self.advance(target)


def revision_floor(now_unix_seconds: float | None = None) -> int:
    """The revision a served cluster's in-memory store continues from: above any an earlier ``serve`` made.

    Every run of ``serve`` is a new cluster on a new in-memory store. Were its
    revisions to start at 1 again, a client holding a resourceVersion from
    the run before (a watch it resumes, a list it pages) would be answered
    silently with another cluster's history. The store's revision jumps
    instead to :data:`REVISIONS_PER_WALL_SECOND` per wall second since
    2020: an earlier run would have had to write faster than that, all its
    life, to reach it. An older resourceVersion is then below the watch
    cache's start (410 ``too old resource version``) and a later one above
    the store (504 ``Too large resource version``).

    Parameters
    ----------
    now_unix_seconds : float, optional
        Wall-clock time (default: now).

    Returns
    -------
    int

    Notes
    -----
    A model device: kube-apiserver keeps its revisions in etcd, which a
    restart does not lose; a new etcd starts again at 1. ``--etcd`` keeps
    etcd's revisions as they are.

    Examples
    --------
    >>> revision_floor(1_577_836_800 + 3600)
    36000000
    """
    now = time.time() if now_unix_seconds is None else now_unix_seconds
    return int((now - _REVISION_EPOCH_UNIX) * REVISIONS_PER_WALL_SECOND)


def serve(cluster: Any, port: int = 0, time_scale: float = 1.0, *, kubeconfig: str | None = None,
          token: str | None = None, git_version: str | None = None,
          service_account_signing_key_file: str | None = None) -> ServedCluster:
    """Serve ``cluster`` on ``127.0.0.1:port`` in background threads.

    Parameters
    ----------
    cluster : Cluster
    port : int
        TCP port; 0 picks a free one.
    time_scale : float
        Virtual seconds per wall second; 0 pauses the clock (step it with
        :meth:`ServedCluster.run_for`).

        kubectl computes some ages from the wall clock (``describe``,
        ``events``): they read right when the cluster was made with
        ``epoch="now"`` and the clock runs at 1; with the default epoch
        (2025-08-27) they read hundreds of days. The server-side tables
        of ``kubectl get`` use the virtual clock and are right either way.
    kubeconfig : str, optional
        Where to write the kubeconfig (default: in a new temporary directory
        that also holds the serving certificate and key, removed by
        :meth:`ServedCluster.stop`). Written 0600; removed on stop.
    token : str, optional
        The admin bearer token (default: a random one, ``secrets.token_urlsafe(32)``;
        read it from :attr:`ServedCluster.token` or the kubeconfig).
    git_version : str, optional
        ``/version``'s gitVersion (default :data:`kubenotes.apiserver.http.GIT_VERSION`).
    service_account_signing_key_file : str, optional
        ``--service-account-signing-key-file``: a PEM RSA or ECDSA private key
        that signs service-account tokens. By default a random RSA-2048 key
        is made now and written 0600 to ``sa.key`` in the temporary
        directory. Tokens the cluster issued before it was served still
        verify (the in-process key stays a verifying key and is published in the JWKS).

    Returns
    -------
    ServedCluster

    Raises
    ------
    OSError
        When the port cannot be bound.
    RuntimeError
        When the server does not start within 10 s.
    ConfigError
        When the signing key file cannot be read or holds no RSA/ECDSA private key.

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> import json, ssl, urllib.request
    >>> with serve(Cluster(controllers=[], scheduler=False), time_scale=0) as s:
    ...     req = urllib.request.Request(s.url + "/api/v1/namespaces/default",
    ...                                  headers={"Authorization": "Bearer " + s.token})
    ...     tls = ssl.create_default_context(cafile=s.ca_path)
    ...     json.load(urllib.request.urlopen(req, context=tls))["metadata"]["name"]
    'default'
    """
    import uvicorn

    from kubenotes.apiserver import authn

    err_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietUpgrades) for f in err_log.filters):
        err_log.addFilter(_QuietUpgrades())
    from kubenotes.apiserver.http import GIT_VERSION, create_app

    if time_scale < 0:
        raise ValueError(f"time_scale must be >= 0, got {time_scale}")
    lock = ServeLock()
    clock_lock = threading.Lock()
    stopping = threading.Event()
    server = cluster.server
    # the server starts: a new signing key (kubeadm's RSA sa.key), or the given one; tokens the in-process
    # cluster issued before keep verifying (their key stays a verifying key, as in a key rotation)
    before = server.token_generator
    key = (authn.load_signing_key(service_account_signing_key_file) if service_account_signing_key_file
           else authn.generate_signing_key("RSA"))
    server.token_generator = authn.JWTTokenGenerator(before.issuer, key, verifying_keys=before.public_keys())
    token = token or secrets.token_urlsafe(32)
    static = {token: authn.ADMIN_USER}
    authenticator = authn.TokenAuthenticator(static, reader=server, epoch=server.epoch)
    server.authenticator = authenticator  # TokenReview answers with the same authenticator as the HTTP layer
    # A restart of `serve` is a new cluster on a new in-memory store, whose revisions would start where the last
    # run's did: they start above every revision an earlier run can have made instead (with --etcd they are etcd's).
    if server.store.storage is None:
        server.store.revision = max(server.store.revision, revision_floor())
    # kube-apiserver starts: its watch cache begins with a list at the current revision, so a watch from a
    # resourceVersion of before (an earlier run's) is 410 too old, never answered with events it cannot have
    server.store.replace_watch_cache()
    app = create_app(cluster.server, lock=lock, authenticator=authenticator,
                     git_version=git_version or GIT_VERSION, stopping=stopping)

    # IPPROTO_TCP, not 0: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets whose protocol
    # says TCP; without it every response waited ~40 ms for the client's delayed ACK (benchmarks/serve_load.py).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    port = sock.getsockname()[1]
    tmpdir = tempfile.mkdtemp(prefix="kubenotes-")
    cert_pem, key_pem = self_signed_cert()
    ca_path, key_path = os.path.join(tmpdir, "apiserver.crt"), os.path.join(tmpdir, "apiserver.key")
    with open(ca_path, "wb") as f:
        f.write(cert_pem)
    write_private_file(key_path, key_pem)
    if service_account_signing_key_file:
        signing_key_path = os.path.abspath(service_account_signing_key_file)
    else:
        signing_key_path = os.path.join(tmpdir, "sa.key")
        write_private_file(signing_key_path, authn.signing_key_pem(server.token_generator.private_key))
    # Keep idle connections 90 s, as kube-apiserver's http.Server (IdleTimeout): uvicorn's default of 5 s closed
    # the connection kubectl drain reuses for its eviction retry exactly 5 s later, and kubectl saw EOF.
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False,
                            timeout_graceful_shutdown=2, timeout_keep_alive=90, ws="none", ssl_certfile=ca_path,
                            ssl_keyfile=key_path)
    uv = uvicorn.Server(config)

    def run_http() -> None:
        try:
            uv.run(sockets=[sock])
        finally:
            sock.close()

    threads = [threading.Thread(target=run_http, name=f"kubenotes-http-{port}", daemon=True)]
    if time_scale > 0:
        clock = _Clock(cluster, lock, clock_lock, time_scale, stopping)
        threads.append(threading.Thread(target=clock.run, name=f"kubenotes-clock-{port}", daemon=True))

    if kubeconfig is None:
        kubeconfig = os.path.join(tmpdir, "kubeconfig")
    url = f"https://127.0.0.1:{port}"
    write_private_file(kubeconfig, kubeconfig_text(url, token, cert_pem))

    threads[0].start()
    deadline = time.monotonic() + _START_TIMEOUT_SECONDS
    while not uv.started:
        if not threads[0].is_alive() or time.monotonic() > deadline:
            uv.should_exit = True
            shutil.rmtree(tmpdir, ignore_errors=True)
            if os.path.exists(kubeconfig):
                os.remove(kubeconfig)  # its admin token was never served
            raise RuntimeError(f"the kubenotes API server did not start on {url}")
        time.sleep(0.01)
    for t in threads[1:]:
        t.start()
    return ServedCluster(cluster, port, kubeconfig, lock, time_scale, uv, threads, stopping, tmpdir, ca_path,
                         token, signing_key_path, clock_lock)
