"""The Raft model's predictions checked against real etcd 3.4 members on loopback (required when CI is set).

Each test runs the same fault on a real 3-member cluster (kubenotes.etcd.members.EtcdCluster, etcd's default
--heartbeat-interval 100 ms and --election-timeout 1000 ms) and on the model (kubenotes.etcd.cluster), and
compares what etcd reports (the JSON gateway, ``etcdctl endpoint status -w json``) with the model's range.
"""

from __future__ import annotations

import threading
import time

import pytest

from kubenotes.etcd import client
from kubenotes.etcd.cluster import ERR_DEADLINE, ERR_TIMEOUT, RaftCluster, RaftConfig, failover, failover_times
from kubenotes.etcd.members import EtcdCluster

#: How late the poll below may see a new leader: its 20 ms period plus an HTTP round trip, with margin.
DETECTION_SLACK_SECONDS = 0.3


@pytest.fixture(scope="module")
def model_failover():
    """The model's time to a new leader after the leader freezes, over 200 seeds, and the term steps seen."""
    times = failover_times(seeds=range(200))
    steps = {r["new_term"] - r["old_term"] for r in (failover(seed=s) for s in range(40))}
    return min(times), max(times), steps


def _leader_seen_by(etcd: EtcdCluster, members) -> int:
    for m in members:
        st = etcd.status(m, timeout_seconds=0.2)
        if st and st["leader"]:
            return st["leader"]
    return 0


def test_a_frozen_leader_is_replaced_within_the_models_bounds_and_terms_move_alike(etcd_required, model_failover):
    lo, hi, steps = model_failover
    assert 0.8 <= lo < 1.0 and 2.0 < hi < 4.5 and 1 in steps
    with EtcdCluster(3) as etcd:
        measured = []
        for _ in range(2):
            old = etcd.leader()
            old_id = etcd.status(old)["member_id"]
            before = {r["member_id"]: r for r in client.endpoint_status(etcd.endpoints)}
            assert len(before) == 3 and {r["leader"] for r in before.values()} == {old_id}
            term = before[old_id]["raft_term"]
            others = [m for m in etcd.members if m is not old]
            old.pause()
            t0 = time.monotonic()
            while _leader_seen_by(etcd, others) in (0, old_id):
                assert time.monotonic() - t0 < hi + 2, "no new leader"
                time.sleep(0.02)
            measured.append(time.monotonic() - t0)
            after = client.endpoint_status([m.client_url for m in others])
            new_ids = {r["leader"] for r in after}
            assert len(new_ids) == 1 and new_ids != {old_id}
            assert {r["raft_term"] for r in after} <= {term + s for s in steps}
            old.resume()
            etcd.wait_healthy(10)
            rejoined = client.endpoint_status(etcd.endpoints)
            assert {r["leader"] for r in rejoined} == new_ids  # the old leader follows the new term
        for seconds in measured:
            assert lo - 0.05 <= seconds <= hi + DETECTION_SLACK_SECONDS, (measured, lo, hi)


def _model_quorum_loss(seed: int, alone_seconds: float) -> dict:
    c = RaftCluster(3, seed=seed)
    c.run(3)
    lead = c.leader()
    rest = [n for n in c.names if n != lead]
    term = c.member(lead).raft.term
    for n in rest:
        c.stop(n)
    t0 = c.now
    stuck = c.put("/kubenotes/a", "1", via=lead)
    while c.leader() == lead:  # until CheckQuorum steps it down
        c.run_for(0.01)
    step_down = c.now - t0
    orphan = c.put("/kubenotes/b", "2", via=lead)
    c.run(t0 + alone_seconds)
    c.start(rest[0])
    c.run_until_leader(10)
    c.run_for(0.2)  # the new leader's empty entry commits, and with it everything before
    return {"stuck": stuck, "orphan": orphan, "step_down": step_down, "term_step": c.member(c.leader()).raft.term - term,
            "a_committed": "/kubenotes/a" in c.member(lead).keys}


def test_without_quorum_writes_fail_as_the_model_says_and_succeed_when_a_member_returns(etcd_required):
    with EtcdCluster(3) as etcd:
        lead = etcd.leader()
        lead_id = etcd.status(lead)["member_id"]
        term = etcd.status(lead)["raft_term"]
        rest = [m for m in etcd.members if m is not lead]
        for m in rest:
            m.kill()
        t_down = time.monotonic()
        answers = {}
        first = threading.Thread(target=lambda: answers.update(a=client.put(lead.client_url, "/kubenotes/a", "1")))
        first.start()
        while etcd.status(lead)["leader"] == lead_id:  # CheckQuorum: it steps down an election timeout later
            assert time.monotonic() - t_down < 3, "the leader without quorum did not step down"
            time.sleep(0.02)
        step_down = time.monotonic() - t_down
        answers["b"] = client.put(lead.client_url, "/kubenotes/b", "2")
        first.join()
        alone = time.monotonic() - t_down
        rest[0].start()
        etcd.wait_healthy(15, members=[lead, rest[0]])
        ok = client.put(lead.client_url, "/kubenotes/c", "3")
        new_term = max(r["raft_term"] for r in client.endpoint_status([lead.client_url, rest[0].client_url]))
        a_now = client.get(lead.client_url, "/kubenotes/a")

    model = [_model_quorum_loss(s, alone) for s in range(12)]
    timeout = RaftConfig().request_timeout_seconds
    # the put that reached Raft: etcd's ErrTimeout after ReqTimeout, as the model's
    assert answers["a"]["http_status"] == 503 and answers["a"]["code"] == 14, answers["a"]
    assert answers["a"]["error"] == ERR_TIMEOUT == model[0]["stuck"].error
    assert answers["a"]["seconds"] == pytest.approx(timeout, abs=0.5)
    assert model[0]["stuck"].latency_seconds == pytest.approx(timeout)
    # the put made while no leader was known never reached Raft
    assert answers["b"]["http_status"] == 500 and answers["b"]["code"] == 2, answers["b"]
    assert answers["b"]["error"] == ERR_DEADLINE == model[0]["orphan"].error
    # CheckQuorum: at the second check after the kill, i.e. one to two election timeouts later
    downs = sorted(m["step_down"] for m in model)
    assert 1.0 <= downs[0] and downs[-1] <= 2.05
    assert 1.0 - 0.05 <= step_down <= 2.0 + DETECTION_SLACK_SECONDS, (step_down, downs)
    # one member back: writes succeed; the lone member's campaigns raised the term as far as the model's do
    assert ok["http_status"] == 200 and "error" not in ok
    steps = sorted(m["term_step"] for m in model)
    assert steps[0] - 1 <= new_term - term <= steps[-1] + 1, (new_term - term, steps)
    # the put that timed out was in the longer log: the new leader committed it after all, in etcd and the model
    assert a_now["value"] == "1" and all(m["a_committed"] for m in model)
