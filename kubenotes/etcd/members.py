"""Real etcd members on loopback, for the model to be checked against: start, fault, stop, clean up.

:class:`EtcdCluster` starts ``n`` members of Debian's ``etcd-server`` (etcd
3.4) as one cluster on 127.0.0.1, each with a temporary data directory and
free client and peer ports, waits until every member answers ``/health``,
and on :meth:`EtcdCluster.stop` (or leaving its ``with`` block, or the
interpreter exiting) terminates every process and removes every data
directory. A member can be stopped, killed, paused (``SIGSTOP``, the
process frozen as a hung machine would be), resumed and restarted on its
own data, which is how the Raft model's predictions (:mod:`kubenotes.etcd`)
are checked against real elections.

``python -m kubenotes etcd --members 3`` runs the same from the command line:
it prints one endpoint per line and keeps the members up until Ctrl-C.

References
----------
etcd-io/etcd@v3.4 etcdmain/config.go (flags ``--name``, ``--data-dir``,
``--listen-client-urls``, ``--advertise-client-urls``, ``--listen-peer-urls``,
``--initial-advertise-peer-urls``, ``--initial-cluster``,
``--initial-cluster-state``, ``--initial-cluster-token``,
``--heartbeat-interval`` default 100 ms, ``--election-timeout`` default 1000 ms);
etcd-io/etcd@v3.4 etcdserver/api/etcdhttp (``/health``).
"""

from __future__ import annotations

import atexit
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import weakref
from dataclasses import dataclass, field
from typing import Sequence

from kubenotes.errors import KubenotesError

__all__ = ["EtcdUnavailable", "EtcdMember", "EtcdCluster", "find_etcd", "DEFAULT_HEARTBEAT_INTERVAL_MS",
           "DEFAULT_ELECTION_TIMEOUT_MS"]

#: etcd's ``--heartbeat-interval`` default, in milliseconds.
DEFAULT_HEARTBEAT_INTERVAL_MS = 100
#: etcd's ``--election-timeout`` default, in milliseconds.
DEFAULT_ELECTION_TIMEOUT_MS = 1000


class EtcdUnavailable(KubenotesError):
    """No etcd binary, or members that did not become healthy in time (one line, exit 2 in the CLI)."""


def find_etcd(binary: str = "etcd") -> str:
    """The path of the ``etcd`` server binary.

    Parameters
    ----------
    binary : str
        A name looked up on ``PATH`` (and in ``/usr/bin``), or a path.

    Returns
    -------
    str

    Raises
    ------
    EtcdUnavailable
        When there is none; the message says which package provides it.
    """
    found = shutil.which(binary) or shutil.which(binary, path="/usr/bin:/usr/sbin")
    if not found:
        raise EtcdUnavailable(f"{binary}: not found on PATH; install Debian's etcd-server (etcd 3.4), "
                              "as .ci/run does")
    return found


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (``net.ipv4.ip_local_port_range``; 32768 by default)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _free_port() -> int:
    """A loopback port free now, below the kernel's ephemeral range.

    A port from ``bind(0)`` is one the kernel hands out again to anyone
    asking for a free port (another test worker's server, a client's source
    port), and it does so while a member is stopped for a restart on that
    port. Below the ephemeral range only a deliberate pick like this one can
    take it.
    """
    low = _ephemeral_low()
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(max(1024, low - 12000), low)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:  # a crowded range: any free port
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url: str, timeout_seconds: float) -> dict:
    with urllib.request.urlopen(url, timeout=timeout_seconds) as r:  # noqa: S310 - loopback only
        return json.loads(r.read().decode() or "{}")


def _all_threads_stopped(pid: int) -> bool:
    """True when every thread of ``pid`` is in state ``T`` (stopped), or when ``/proc`` cannot tell."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # a thread that just exited
        if state not in ("T", "t"):
            return False
    return True


@dataclass
class EtcdMember:
    """One etcd member process.

    Attributes
    ----------
    name : str
        ``--name`` (``m1``, ``m2`` ...).
    client_url, peer_url : str
        ``http://127.0.0.1:PORT`` for clients (the v3 JSON gateway under
        ``/v3/``) and for its peers.
    data_dir : str
        Its ``--data-dir``, inside the cluster's temporary directory.
    process : subprocess.Popen or None
        While it runs.
    """

    name: str
    client_url: str
    peer_url: str
    data_dir: str
    args: list[str] = field(default_factory=list, repr=False)
    log_path: str = ""
    process: subprocess.Popen | None = field(default=None, repr=False)
    paused: bool = False

    def start(self) -> None:
        """Start (or restart on its existing data directory) this member's process."""
        if self.running:
            return
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child holds it; closed below
        try:
            self.process = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        finally:
            log.close()
        self.paused = False

    @property
    def running(self) -> bool:
        """True while its process exists (paused or not)."""
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout_seconds: float = 10.0) -> None:
        """Stop the process gracefully (``SIGTERM``; ``SIGKILL`` after ``timeout_seconds``)."""
        if not self.running:
            self.process = None
            return
        assert self.process is not None
        if self.paused:
            self.resume()
        self.process.terminate()
        try:
            self.process.wait(timeout_seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def kill(self) -> None:
        """Kill the process at once (``SIGKILL``), as a crashed machine."""
        if self.running:
            assert self.process is not None
            self.process.kill()
            self.process.wait()
        self.process = None
        self.paused = False

    def pause(self, timeout_seconds: float = 5.0) -> None:
        """Freeze the process (``SIGSTOP``): it neither sends heartbeats nor answers, as a hung machine.

        Returns once every thread of the process is stopped (state ``T`` in
        ``/proc``), so a request sent after it is never answered.
        """
        if self.running and not self.paused:
            assert self.process is not None
            os.kill(self.process.pid, signal.SIGSTOP)
            self.paused = True
            deadline = time.monotonic() + timeout_seconds
            while not _all_threads_stopped(self.process.pid) and time.monotonic() < deadline:
                time.sleep(0.002)

    def resume(self) -> None:
        """Thaw a paused process (``SIGCONT``)."""
        if self.running and self.paused:
            assert self.process is not None
            os.kill(self.process.pid, signal.SIGCONT)
        self.paused = False

    def healthy(self, timeout_seconds: float = 1.0) -> bool:
        """True when ``GET /health`` answers ``{"health": "true"}`` (the member has a leader and is serving)."""
        if not self.running or self.paused:
            return False
        try:
            return str(_get_json(self.client_url + "/health", timeout_seconds).get("health")) == "true"
        except (OSError, urllib.error.URLError, ValueError):
            return False


def _listed_peer_urls(m: EtcdMember) -> list[str]:
    """The peer URLs of the members listed at ``m``'s client URL (sorted; empty when nothing answers)."""
    try:
        req = urllib.request.Request(m.client_url + "/v3/cluster/member/list", data=b"{}",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as r:  # noqa: S310 - loopback only
            listed = json.loads(r.read().decode() or "{}").get("members") or []
    except (OSError, urllib.error.URLError, ValueError):
        return []
    return sorted(u for x in listed for u in x.get("peerURLs") or ())


def _log_tails(members: Sequence[EtcdMember]) -> str:
    """The last 300 bytes of each member's log, for an error message."""
    tails = []
    for m in members:
        try:
            with open(m.log_path, "rb") as f:
                tails.append(f"{m.name}: {f.read()[-300:].decode(errors='replace').strip()}")
        except OSError:
            tails.append(f"{m.name}: no log")
    return "; ".join(tails)


_LIVE: "weakref.WeakSet[EtcdCluster]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:  # pragma: no cover - runs at interpreter exit
    for cluster in list(_LIVE):
        cluster.stop()


class EtcdCluster:
    """``members`` etcd members on loopback forming one new cluster, in temporary data directories.

    Parameters
    ----------
    members : int
        Cluster size (1, 3, 5 ...).
    heartbeat_interval_ms, election_timeout_ms : int
        etcd's ``--heartbeat-interval`` and ``--election-timeout`` (defaults 100 and 1000).
    binary : str
        The etcd server binary (:func:`find_etcd`).
    extra_args : sequence of str
        More flags for every member (e.g. ``--pre-vote``).

    Raises
    ------
    EtcdUnavailable
        From :meth:`start`: no binary, or members not healthy within its timeout (the members
        started are stopped and their data removed first).

    Examples
    --------
    Used as a context manager (needs Debian's ``etcd-server``)::

        with EtcdCluster(3) as etcd:
            print(etcd.endpoints)          # ['http://127.0.0.1:…', …]
            etcd.leader().pause()          # a new leader is elected by the other two
    """

    def __init__(self, members: int = 1, *, heartbeat_interval_ms: int = DEFAULT_HEARTBEAT_INTERVAL_MS,
                 election_timeout_ms: int = DEFAULT_ELECTION_TIMEOUT_MS, binary: str = "etcd",
                 extra_args: Sequence[str] = ()):
        if members < 1:
            raise ValueError(f"members must be at least 1, not {members}")
        self.size = members
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.election_timeout_ms = election_timeout_ms
        self.binary = binary
        self.extra_args = list(extra_args)
        self.root: str | None = None
        self.members: list[EtcdMember] = []

    # -- lifecycle ------------------------------------------------------------

    def start(self, timeout_seconds: float = 30.0) -> "EtcdCluster":
        """Start every member and wait until each is healthy; returns ``self``.

        Ports are picked free and then handed to etcd, so another process
        (a second test worker starting its own etcd) can take one in between:
        the member then exits with "address already in use" while the other
        etcd answers on that port. A start is therefore accepted only when
        every process still runs and the members listed at each client URL
        are this cluster's own (same peer URLs); otherwise it is retried on
        fresh ports, up to three times.
        """
        binary = find_etcd(self.binary)
        for attempt in range(3):
            self._launch(binary)
            try:
                self.wait_healthy(timeout_seconds)
                if self._all_ours():
                    return self
                problem = EtcdUnavailable(f"etcd members did not all start on their ports (attempt {attempt + 1})")
            except EtcdUnavailable as e:
                problem = e
            self.stop()
            self.members = []
        raise problem

    def _launch(self, binary: str) -> None:
        self.root = tempfile.mkdtemp(prefix="kubenotes-etcd-")
        _LIVE.add(self)
        token = os.path.basename(self.root)
        specs = [(f"m{i + 1}", _free_port(), _free_port()) for i in range(self.size)]
        initial = ",".join(f"{name}=http://127.0.0.1:{peer}" for name, _client, peer in specs)
        for name, client, peer in specs:
            client_url, peer_url = f"http://127.0.0.1:{client}", f"http://127.0.0.1:{peer}"
            data_dir = os.path.join(self.root, name)
            args = [binary, "--name", name, "--data-dir", data_dir,
                    "--listen-client-urls", client_url, "--advertise-client-urls", client_url,
                    "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
                    "--initial-cluster", initial, "--initial-cluster-state", "new",
                    "--initial-cluster-token", token,
                    "--heartbeat-interval", str(self.heartbeat_interval_ms),
                    "--election-timeout", str(self.election_timeout_ms), *self.extra_args]
            self.members.append(EtcdMember(name, client_url, peer_url, data_dir, args,
                                           os.path.join(self.root, f"{name}.log")))
        for m in self.members:
            m.start()

    def _all_ours(self) -> bool:
        """Every process runs, and each client URL answers with this cluster's member list (by peer URL)."""
        ours = sorted(m.peer_url for m in self.members)
        return all(m.running and _listed_peer_urls(m) == ours for m in self.members)

    def wait_healthy(self, timeout_seconds: float = 30.0, members: Sequence[EtcdMember] | None = None) -> None:
        """Wait until ``members`` (default: every started, unpaused member) answer ``/health``.

        A member is healthy only while its own process runs and its client
        URL answers for it (the member list there holds its peer URL): a
        restart on a port another process took in between fails here instead
        of the other etcd being used in its place.

        Raises
        ------
        EtcdUnavailable
            At once when a member's process has exited, or when its client URL answers for another etcd;
            after ``timeout_seconds`` naming the members still unhealthy. Each names the end of the member's log.
        """
        want = [m for m in (members if members is not None else self.members)
                if m.process is not None and not m.paused]
        deadline = time.monotonic() + timeout_seconds
        while True:
            gone = [m for m in want if not m.running]
            if gone:
                raise EtcdUnavailable(f"etcd members {', '.join(m.name for m in gone)} exited "
                                      f"({_log_tails(gone)})")
            sick = [m for m in want if not m.healthy()]
            if not sick:
                foreign = [m for m in want if m.peer_url not in _listed_peer_urls(m)]
                if foreign:
                    raise EtcdUnavailable(f"etcd members {', '.join(m.name for m in foreign)}: another etcd answers "
                                          f"at {', '.join(m.client_url for m in foreign)} ({_log_tails(foreign)})")
                return
            if time.monotonic() > deadline:
                raise EtcdUnavailable(f"etcd members {', '.join(m.name for m in sick)} not healthy after "
                                      f"{timeout_seconds:g} s ({_log_tails(sick)})")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop every member and remove the data directories; safe to call twice."""
        for m in self.members:
            try:
                m.stop()
            except Exception:  # noqa: BLE001 - keep stopping the others
                m.kill()
        if self.root and os.path.isdir(self.root):
            shutil.rmtree(self.root, ignore_errors=True)
        self.root = None
        _LIVE.discard(self)

    def __enter__(self) -> "EtcdCluster":
        return self if self.members else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- reading --------------------------------------------------------------

    @property
    def endpoints(self) -> list[str]:
        """Every member's client URL."""
        return [m.client_url for m in self.members]

    def member(self, name: str) -> EtcdMember:
        """The member called ``name`` (``m1`` ...); KeyError when none is."""
        for m in self.members:
            if m.name == name:
                return m
        raise KeyError(name)

    def status(self, member: EtcdMember, timeout_seconds: float = 1.0) -> dict | None:
        """The member's ``Maintenance.Status`` through the JSON gateway (``/v3/maintenance/status``).

        Returns
        -------
        dict or None
            ``{"member_id": int, "leader": int, "raft_term": int, "raft_index": int}`` (ids as integers, as
            ``etcdctl endpoint status -w json`` prints them), or None when it does not answer.
        """
        if not member.running or member.paused:
            return None
        req = urllib.request.Request(member.client_url + "/v3/maintenance/status", data=b"{}",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout_seconds) as r:  # noqa: S310 - loopback only
                got = json.loads(r.read().decode())
        except (OSError, urllib.error.URLError, ValueError):
            return None
        header = got.get("header", {})
        return {"member_id": int(header.get("member_id", 0)), "leader": int(got.get("leader", 0)),
                "raft_term": int(got.get("raftTerm", header.get("raft_term", 0))),
                "raft_index": int(got.get("raftIndex", 0))}

    def leader(self, timeout_seconds: float = 10.0) -> EtcdMember:
        """The member that is leader now, as the answering members agree (waits up to ``timeout_seconds``).

        Raises
        ------
        EtcdUnavailable
            When no leader is agreed on in time (e.g. no quorum).
        """
        deadline = time.monotonic() + timeout_seconds
        while True:
            ids = {}
            leaders = set()
            for m in self.members:
                st = self.status(m)
                if st:
                    ids[st["member_id"]] = m
                    if st["leader"]:
                        leaders.add(st["leader"])
            if len(leaders) == 1:
                lead = leaders.pop()
                if lead in ids:
                    return ids[lead]
            if time.monotonic() > deadline:
                raise EtcdUnavailable(f"no leader agreed on among {len(ids)} answering etcd members "
                                      f"after {timeout_seconds:g} s")
            time.sleep(0.05)


def register(subparsers) -> None:
    """Add the ``etcd`` subcommand (see :mod:`kubenotes.cli`)."""
    p = subparsers.add_parser("etcd", help="start local etcd members on loopback (Debian's etcd-server) until Ctrl-C",
                              description="Start MEMBERS etcd members as one cluster on 127.0.0.1 with temporary "
                                          "data directories, print their client endpoints, and keep them up "
                                          "until Ctrl-C; then stop them and remove their data.")
    p.add_argument("--members", type=int, default=1, help="cluster size (default 1)")
    p.add_argument("--heartbeat-interval", type=int, default=DEFAULT_HEARTBEAT_INTERVAL_MS, metavar="MS",
                   help="etcd --heartbeat-interval (default 100)")
    p.add_argument("--election-timeout", type=int, default=DEFAULT_ELECTION_TIMEOUT_MS, metavar="MS",
                   help="etcd --election-timeout (default 1000)")
    p.set_defaults(func=_run)


def _run(args) -> int:
    import sys

    from kubenotes.errors import ConfigError

    if args.members < 1:
        raise ConfigError(f"--members: must be at least 1, not {args.members}")
    # Ctrl-C only sets a flag, and KeyboardInterrupt is raised from the loop below: raised anywhere else it could
    # land inside Popen.poll() between taking and releasing the Popen's waitpid lock, and stop()'s wait would then
    # block for ever (seen once in CI: the process did not exit within 20 s of Ctrl-C).
    interrupted = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.set())
    cluster = EtcdCluster(args.members, heartbeat_interval_ms=args.heartbeat_interval,
                          election_timeout_ms=args.election_timeout)
    try:
        cluster.start()
        for url in cluster.endpoints:
            print(url, flush=True)
        print(f"# {args.members} etcd member(s) up; data in {cluster.root}; Ctrl-C stops them and removes it",
              file=sys.stderr, flush=True)
        while all(m.running for m in cluster.members):
            if interrupted.wait(0.5):
                raise KeyboardInterrupt
        print("kubenotes etcd: a member exited; stopping the others", file=sys.stderr)
        return 1
    finally:
        cluster.stop()
        signal.signal(signal.SIGINT, previous)
