"""Real etcd members on loopback (Debian's etcd-server 3.4): they start, elect, fail over and leave nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time

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
        p.wait(20)
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
