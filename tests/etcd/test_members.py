"""Real etcd members on loopback (Debian's etcd-server 3.4): they start, elect, fail over and leave nothing behind."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from kubenotes.etcd.members import EtcdCluster, EtcdUnavailable


def test_missing_binary_is_one_clear_error():
    with pytest.raises(EtcdUnavailable, match="no-such-etcd: not found on PATH; install Debian's etcd-server"):
        EtcdCluster(1, binary="no-such-etcd").start()


def test_three_members_elect_one_leader_and_fail_over(etcd_required):
    with EtcdCluster(3, heartbeat_interval_ms=50, election_timeout_ms=500) as etcd:
        root = etcd.root
        assert root and len(etcd.endpoints) == 3 and all(m.healthy() for m in etcd.members)
        leader = etcd.leader()
        term = etcd.status(leader)["raft_term"]
        leader.pause()  # a hung leader: the other two elect one of themselves in a higher term
        new = etcd.leader(timeout_seconds=10)
        assert new is not leader and etcd.status(new)["raft_term"] > term
        leader.resume()
        etcd.wait_healthy(10)
        assert etcd.leader() is new  # the old leader rejoins as a follower of the new term
    assert not os.path.exists(root) and not any(m.running for m in etcd.members)


def test_cli_prints_endpoints_and_cleans_up_on_ctrl_c(etcd_required):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    p = subprocess.Popen([sys.executable, "-m", "kubenotes", "etcd", "--members", "1"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = p.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        note = p.stderr.readline()
        root = note.split("data in ")[1].split(";")[0]
        assert os.path.isdir(root)
    finally:
        p.send_signal(2)
        p.wait(60)  # SIGTERM to etcd, up to 10 s, then SIGKILL: generous for a loaded 2-core CI machine
    deadline = time.monotonic() + 5
    while os.path.exists(root) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(root)


def test_cli_refuses_zero_members():
    p = subprocess.run([sys.executable, "-m", "kubenotes", "etcd", "--members", "0"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.strip().endswith("--members: must be at least 1, not 0"), p.stderr


def test_a_port_taken_between_pick_and_start_is_retried_not_borrowed(etcd_required, monkeypatch):
    # CI: two test workers each started an etcd; one member's client port was taken by the other's in between,
    # so it exited while the other etcd answered there, and a test "paused" the wrong one
    import kubenotes.etcd.members as members

    with EtcdCluster(1) as first:
        taken = int(first.endpoints[0].rsplit(":", 1)[1])
        real, calls = members._free_port, []

        def free_port():
            calls.append(1)
            return taken if len(calls) == 1 else real()

        monkeypatch.setattr(members, "_free_port", free_port)
        with EtcdCluster(1) as second:
            assert second.endpoints[0] != first.endpoints[0]
            assert second.members[0].running and second._all_ours()


def test_ports_are_picked_below_the_kernels_ephemeral_range():
    # a port from bind(0) is handed out again while its member is stopped for a restart (CI: another worker's
    # server took it and the restarted member's tests talked to that server)
    from kubenotes.etcd.members import _ephemeral_low, _free_port

    low = _ephemeral_low()
    ports = [_free_port() for _ in range(50)]
    assert all(1024 <= p < low for p in ports) and len(set(ports)) > 40


class _ForeignEtcd(http.server.BaseHTTPRequestHandler):
    """Answers like a healthy etcd of another cluster."""

    def _answer(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - http.server's name
        self._answer({"health": "true"})

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer({"members": [{"name": "other", "peerURLs": ["http://127.0.0.1:1"]}]})

    def log_message(self, *args):
        pass


def test_a_restart_on_a_port_taken_meanwhile_fails_loudly_instead_of_using_the_other_server(etcd_required):
    with EtcdCluster(1) as etcd:
        m = etcd.members[0]
        port = int(m.client_url.rsplit(":", 1)[1])
        m.stop()
        other = http.server.HTTPServer(("127.0.0.1", port), _ForeignEtcd)  # takes the port while m is down
        threading.Thread(target=other.serve_forever, daemon=True).start()
        try:
            m.start()
            with pytest.raises(EtcdUnavailable) as e:
                etcd.wait_healthy(10)
            assert "m1" in str(e.value) and ("exited" in str(e.value) or "another etcd answers" in str(e.value))
            assert "address already in use" in str(e.value) or "another etcd answers" in str(e.value)
        finally:
            other.shutdown()
            other.server_close()


def test_pause_returns_once_every_thread_is_stopped_and_a_request_then_times_out(etcd_required):
    with EtcdCluster(1) as etcd:
        m = etcd.members[0]
        m.pause()
        try:
            tasks = os.listdir(f"/proc/{m.process.pid}/task")
            states = {open(f"/proc/{m.process.pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()[0] for t in tasks}
            assert len(tasks) > 1 and states <= {"T", "t"}, states
            with pytest.raises(OSError):  # urllib's timeout (socket.timeout / URLError are OSErrors)
                urllib.request.urlopen(m.client_url + "/health", timeout=0.5)  # noqa: S310
        finally:
            m.resume()
        etcd.wait_healthy(10)
