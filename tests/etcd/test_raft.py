"""The Raft model (kubenotes.etcd.raft, kubenotes.etcd.cluster) behaves as etcd 3.4's raft package does."""

from __future__ import annotations

import random

import pytest

from kubenotes.etcd.cluster import ERR_DEADLINE, ERR_TIMEOUT, RaftCluster, RaftConfig, failover, failover_times
from kubenotes.etcd.raft import (MSG_APP_RESP, MSG_VOTE, Entry, Message, Raft, RaftLog, StateType)


def _state(c: RaftCluster, name: str) -> dict:
    return next(s for s in c.status() if s["name"] == name)


def test_randomized_election_timeout_is_in_electiontimeout_to_twice_it():
    r = Raft(1, [1, 2, 3], election_tick=10, rng=random.Random(7))
    seen = set()
    for _ in range(400):
        r.become_follower(r.term, 0)
        seen.add(r.randomized_election_timeout)
    assert seen == set(range(10, 20))


def test_three_members_elect_one_leader_in_term_2_with_a_quorum_of_votes():
    c = RaftCluster(3, seed=4)
    c.run(3)
    lead = c.leader()
    assert lead is not None and {s["term"] for s in c.status()} == {2}
    assert {s["lead"] for s in c.status()} == {lead}
    (e,) = c.elections()
    assert e["leader"] == lead and e["term"] == 2 and len(e["votes"]) >= 2
    assert 1.0 - 0.1 <= e["time"] < 2.0 + 0.01  # one randomized timeout from boot
    # the new leader's empty entry (index 4, after 3 bootstrap ConfChanges) committed everywhere
    assert [s["commit"] for s in c.status()] == [4, 4, 4]


def test_only_entries_of_the_leaders_term_are_committed_by_counting_replicas():
    r = Raft(1, [1, 2, 3], election_tick=10, rng=random.Random(0))
    r.term = 2
    r.log.append([Entry(1, 1), Entry(2, 2)])
    r.become_candidate()
    r.become_leader()  # term 3, appends its empty entry at index 3
    assert r.term == 3 and r.log.last_index == 3
    r.step(Message(MSG_APP_RESP, frm=2, to=1, term=3, index=2))
    assert r.log.committed == 0  # entry 2 is on a majority but of term 2: not committed by counting
    r.step(Message(MSG_APP_RESP, frm=2, to=1, term=3, index=3))
    assert r.log.committed == 3  # committing entry 3 commits 2 with it


def test_log_matching_rejects_a_gap_and_truncates_a_conflict():
    log = RaftLog()
    log.append([Entry(1, 1), Entry(1, 2), Entry(2, 3)])
    assert log.maybe_append(5, 2, 5, [Entry(2, 6)]) == -1  # nothing at index 5: rejected
    assert log.maybe_append(2, 1, 4, [Entry(3, 3), Entry(3, 4)]) == 4
    assert [(e.index, e.term) for e in log.entries] == [(1, 1), (2, 1), (3, 3), (4, 3)] and log.committed == 4
    assert log.maybe_append(1, 1, 4, [Entry(1, 2)]) == 2 and log.last_index == 4  # an old MsgApp truncates nothing


def test_a_vote_needs_a_log_at_least_as_up_to_date():
    r = Raft(2, [1, 2, 3], rng=random.Random(0))
    r.log.append([Entry(1, 1), Entry(2, 2)])
    r.term = 2
    r.step(Message(MSG_VOTE, frm=1, to=2, term=3, index=5, log_term=1))  # longer but older last term
    assert r.msgs[-1].reject and r.vote == 0 and r.term == 3
    r.step(Message(MSG_VOTE, frm=3, to=2, term=3, index=2, log_term=2))
    assert not r.msgs[-1].reject and r.vote == 3


def test_writes_need_a_quorum_and_fail_as_etcd_reports_it():
    c = RaftCluster(3, seed=2)
    c.run(3)
    lead = c.leader()
    rest = [n for n in c.names if n != lead]
    for n in rest:
        c.stop(n)
    stuck = c.put("/registry/configmaps/default/a", "1")
    c.run_for(1.5)  # CheckQuorum: the leader steps down one election timeout later
    assert c.leader() is None and _state(c, lead)["state"] == "StateFollower"
    assert any(h["event"] == "stepped down" and h["member"] == lead for h in c.history)
    orphan = c.put("/registry/configmaps/default/b", "2", via=lead)
    c.run_for(7.5)
    assert stuck.status == "error" and stuck.error == ERR_TIMEOUT and stuck.latency_seconds == pytest.approx(7.0)
    assert orphan.status == "error" and orphan.error == ERR_DEADLINE  # no leader: never reached Raft
    # without pre-vote, the lone member campaigns again and again: its term climbs
    assert _state(c, lead)["term"] >= 5
    c.start(rest[0])
    assert c.run_until_leader(5) is not None
    ok = c.put("/registry/configmaps/default/c", "3", via=lead)
    c.run_for(0.2)
    # the timed-out put was in the lone member's log, the longer one: the new leader committed it after all
    assert ok.status == "ok" and ok.revision == 2
    assert c.member(lead).keys["/registry/configmaps/default/a"] == ("1", 1, 1)
    assert "/registry/configmaps/default/b" not in c.member(lead).keys


def test_a_leader_cut_off_in_a_minority_is_replaced_and_its_uncommitted_entry_overwritten():
    c = RaftCluster(5, seed=8)
    c.run(3)
    old = c.leader()
    old_term = _state(c, old)["term"]
    others = [n for n in c.names if n != old]
    c.partition([old, others[0]], others[1:])
    lost = c.put("/k", "from-the-minority", via=old)
    c.run_for(2.5)
    new = c.leader()
    assert new in others[1:] and _state(c, new)["term"] > old_term
    won = c.put("/k", "from-the-majority", via=new)
    c.run_for(0.5)
    assert _state(c, old)["state"] != "StateLeader"  # CheckQuorum stepped it down (it may campaign since)
    assert any(h["event"] == "stepped down" and h["member"] == old for h in c.history)
    assert won.status == "ok" and lost.status == "pending"
    c.heal()
    c.run_for(8)
    assert lost.error == ERR_TIMEOUT and won.revision == 1
    assert {s["term"] for s in c.status()} == {_state(c, new)["term"]}
    assert {s["last_index"] for s in c.status()} == {_state(c, new)["last_index"]}
    values = {c.member(n).keys["/k"][0] for n in c.names}
    assert values == {"from-the-majority"}


def test_pre_vote_keeps_an_isolated_member_from_raising_its_term_and_disrupting_the_leader():
    def isolated(pre_vote: bool) -> tuple[int, int, int]:
        c = RaftCluster(3, config=RaftConfig(pre_vote=pre_vote), seed=5)
        c.run(3)
        lead = c.leader()
        lone = next(n for n in c.names if n != lead)
        term = _state(c, lead)["term"]
        c.partition([lone], [n for n in c.names if n != lone])
        c.run_for(6)
        lone_term = _state(c, lone)["term"]
        c.heal()
        c.run_for(3)
        return term, lone_term, _state(c, c.leader())["term"]

    term, lone_term, after = isolated(pre_vote=False)
    assert lone_term >= term + 2 and after > term  # rejoining with a higher term forces a new election
    term, lone_term, after = isolated(pre_vote=True)
    assert lone_term == term and after == term  # it stayed a pre-candidate: no disruption


def test_check_quorum_lease_makes_followers_ignore_a_disruptive_candidate():
    c = RaftCluster(3, seed=5)
    c.run(3)
    r = c.member(c.leader()).raft
    follower = next(m for m in c.members.values() if m.raft is not r)
    follower.raft.step(Message(MSG_VOTE, frm=9, to=follower.raft.id, term=99, index=100, log_term=99))
    assert follower.raft.term == 2 and follower.raft.vote != 9
    assert c.history[-1]["event"] == "ignored MsgVote"


def test_learners_get_the_log_but_neither_vote_nor_count_nor_campaign():
    c = RaftCluster(1, learners=1, seed=3)
    c.run(3)
    assert c.leader() == "m1" and _state(c, "m2")["role"] == "learner"
    put = c.put("/k", "v")
    c.run_for(0.2)
    assert put.status == "ok" and _state(c, "m2")["applied"] == _state(c, "m1")["applied"]
    term = _state(c, "m2")["term"]
    c.stop("m1")
    c.run_for(10)
    assert _state(c, "m2")["state"] == "StateFollower" and _state(c, "m2")["term"] == term and c.leader() is None
    assert not any(h["member"] == "m2" and "Candidate" in h["event"] for h in c.history)


def test_read_index_is_linearizable_and_a_serializable_read_can_be_stale():
    c = RaftCluster(3, seed=6)
    c.run(3)
    old = c.leader()
    c.put("/k", "1")
    c.run_for(0.2)
    c.partition([old], [n for n in c.names if n != old])
    c.run_for(3)
    new = c.leader()
    c.put("/k", "2", via=new)
    c.run_for(0.2)
    stale = c.range("/k", via=old, linearizable=False)
    blocked = c.range("/k", via=old)
    fresh = c.range("/k", via=next(n for n in c.names if n not in (old, new)))
    c.run_for(8)
    assert stale.status == "ok" and stale.value == "1" and stale.latency_seconds == 0
    assert blocked.status == "error" and blocked.error == ERR_TIMEOUT
    assert fresh.status == "ok" and fresh.value == "2" and fresh.index > 0


def test_lossy_and_slow_links_and_adding_and_removing_members():
    c = RaftCluster(3, seed=1)
    c.run(3)
    lead = c.leader()
    a, b = [n for n in c.names if n != lead]
    c.set_link(lead, a, drop=1.0)
    c.set_link(lead, b, delay_ms=40)
    put = c.put("/k", "v")
    c.run_for(0.2)
    assert put.status == "ok" and put.latency_seconds >= 0.08  # committed through the slow follower only
    c.heal()
    new = c.add_member()
    c.run_for(1)
    assert _state(c, new)["role"] == "voter" and _state(c, new)["applied"] == _state(c, lead)["applied"]
    assert len(c.member(lead).raft.voters) == 4
    c.remove_member(a)
    c.run_for(1)
    assert _state(c, a)["state"] == "removed" and len(c.member(lead).raft.voters) == 3
    with pytest.raises(ValueError, match="drop must be in"):
        c.set_link(lead, b, drop=2)


def test_the_same_seed_gives_the_same_run_and_bad_input_is_one_line():
    def run(seed):
        c = RaftCluster(5, seed=seed)
        c.run(4)
        c.stop(c.leader())
        c.run(8)
        return [(h["time"], h["member"], h["event"]) for h in c.history]

    assert run(11) == run(11) and run(11) != run(12)
    with pytest.raises(ValueError, match="^members must be at least 1, not 0$"):
        RaftCluster(0)
    with pytest.raises(ValueError, match=r"^no member 'm9'; members are m1, m2, m3$"):
        RaftCluster(3).stop("m9")


def test_failover_time_is_one_randomized_election_timeout_after_the_last_heartbeat():
    ts = failover_times(seeds=range(60))
    assert len(ts) == 60 and min(ts) > 0.8 and max(ts) < 4.0
    assert 1.0 < sorted(ts)[30] < 1.6  # the median: about the mean of [1, 2) s, less the heartbeat gap
    r = failover(fault="stop", seed=2)
    assert r["new_term"] == r["old_term"] + 1 or r["new_term"] == r["old_term"] + 2


def test_fault_scenario_blocks_writes_only_while_a_quorum_is_missing():
    from kubenotes.etcd.cluster import fault_scenario

    r = fault_scenario(3, fault="stop a majority", fault_at_seconds=4, recover_after_seconds=4, until_seconds=16)
    during = [w for w in r["writes"] if 4 <= w.start < 8]
    after = [w for w in r["writes"] if w.start >= 9]
    assert len(r["victims"]) == 2 and during
    assert all(w.status == "error" or w.done >= 8 for w in during)  # nothing commits before a quorum is back
    assert any(w.error == "etcdserver: request timed out" for w in during)
    assert after and all(w.status == "ok" for w in after)
    r = fault_scenario(5, fault="stop leader", until_seconds=12)
    assert len(r["cluster"].elections()) >= 2 and all(w.status == "ok" for w in r["writes"] if w.start >= 5.5)
    lost = [w for w in r["writes"] if w.status != "ok"]
    # forwarded by a follower to the dead leader before the new election: lost, and they time out
    assert lost and all(4 <= w.start < 5.5 and w.error == "etcdserver: request timed out" for w in lost)
    with pytest.raises(ValueError, match="^fault must be one of 'none', 'stop leader'.*not 'explode'$"):
        fault_scenario(fault="explode")


def test_state_spans_tile_each_members_time_and_fault_summary_counts_the_writes():
    from kubenotes.etcd.cluster import fault_scenario, fault_summary, state_spans

    r = fault_scenario(3, fault="stop leader", recover_after_seconds=3, until_seconds=12)
    c = r["cluster"]
    spans = state_spans(c)
    assert set(spans) == set(c.names)
    for member, ss in spans.items():
        assert ss[0][0] == 0.0 and ss[-1][1] == c.now
        assert all(a[1] == b[0] for a, b in zip(ss, ss[1:])), member
    assert any(s[2] == "stopped" for s in spans[r["victims"][0]])
    f = fault_summary(r)
    states = [w.status for w in r["writes"]]
    assert (f["writes"], f["committed"], f["waiting"]) == (len(states), states.count("ok"), states.count("pending"))
    assert f["first_leader_after_fault"]["seconds_after_fault"] > 0 and f["leader"] == c.leader()
