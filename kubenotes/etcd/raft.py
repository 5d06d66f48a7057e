"""One Raft member as etcd 3.4's raft package runs it: terms, votes, the log, commit by quorum, ReadIndex.

:class:`Raft` is the state machine of one member after ``etcd-io/etcd@v3.4
raft/raft.go``: it is driven by :meth:`Raft.tick` (one call per
``--heartbeat-interval``) and :meth:`Raft.step` (one call per message
received), and leaves the messages it wants sent in :attr:`Raft.msgs`. It
never reads a clock or the network; :class:`kubenotes.etcd.cluster.RaftCluster`
runs several of them on a SimPy clock, as etcd's server and its peer
transport (rafthttp) do.

What is modelled, with upstream's names:

- the states ``StateFollower``, ``StateCandidate``, ``StateLeader`` and, when
  ``pre_vote`` is on, ``StatePreCandidate`` (:class:`StateType`);
- terms, one vote per term, the randomized election timeout in
  ``[electiontimeout, 2*electiontimeout)`` ticks (``resetRandomizedElectionTimeout``);
- the messages ``MsgHup``, ``MsgBeat``, ``MsgProp``, ``MsgApp``/``MsgAppResp``,
  ``MsgVote``/``MsgVoteResp``, ``MsgPreVote``/``MsgPreVoteResp``,
  ``MsgHeartbeat``/``MsgHeartbeatResp``, ``MsgCheckQuorum``,
  ``MsgReadIndex``/``MsgReadIndexResp``;
- the log (:class:`RaftLog`, after ``raft/log.go``): the log-matching check
  on ``(Index, LogTerm)``, truncation of a conflicting suffix, the
  "at least as up-to-date" vote check, and commit by quorum of voters'
  ``Match`` for entries of the leader's current term only (``maybeCommit``);
- a leader's step-down on a higher term, CheckQuorum (the leader steps down
  after an election timeout without hearing from a quorum; followers ignore
  votes while in their leader's lease), learners (replicated to, never
  counted, never campaigning);
- ReadIndex (``raft/read_only.go``, ``ReadOnlySafe``): the leader records its
  commit index, confirms its leadership with one heartbeat round and only
  then releases the read; it refuses reads until it has committed an entry of
  its own term.

Notes
-----
Simplified compared with upstream: no snapshots or log compaction (a lagging
member is always caught up from the log), no flow control (``Inflights``,
``MaxSizePerMsg``: a ``MsgApp`` carries every entry from ``Next``), no
leadership transfer (``MsgTransferLeader``, ``MsgTimeoutNow``), no
``ReadOnlyLeaseBased`` and no joint consensus (etcd 3.4 applies one
``ConfChange`` at a time, as here). Member ids are small integers.

References
----------
etcd-io/etcd@v3.4 raft/raft.go (Step, stepLeader, stepCandidate, stepFollower, campaign, poll, tickElection,
tickHeartbeat, becomeFollower/PreCandidate/Candidate/Leader, handleAppendEntries, handleHeartbeat)
etcd-io/etcd@v3.4 raft/log.go (maybeAppend, findConflict, isUpToDate, maybeCommit)
etcd-io/etcd@v3.4 raft/read_only.go (addRequest, recvAck, advance)
etcd-io/etcd@v3.4 raft/tracker/progress.go (MaybeUpdate, MaybeDecrTo, RecentActive)
etcd-io/etcd@v3.4 etcdserver/raft.go (raft.Config: CheckQuorum true, PreVote from --pre-vote)
Diego Ongaro, "Consensus: Bridging Theory and Practice" (2014), sections 3.4-3.6, 6.4, 9.6
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = [
    "NONE", "StateType", "MSG_HUP", "MSG_BEAT", "MSG_PROP", "MSG_APP", "MSG_APP_RESP", "MSG_VOTE",
    "MSG_VOTE_RESP", "MSG_PRE_VOTE", "MSG_PRE_VOTE_RESP", "MSG_HEARTBEAT", "MSG_HEARTBEAT_RESP",
    "MSG_CHECK_QUORUM", "MSG_READ_INDEX", "MSG_READ_INDEX_RESP", "ENTRY_NORMAL", "ENTRY_CONF_CHANGE",
    "CONF_ADD_NODE", "CONF_ADD_LEARNER_NODE", "CONF_REMOVE_NODE", "Entry", "Message", "RaftLog", "Progress",
    "Raft", "quorum",
]

#: No member (``raft.None``): no vote cast, no leader known.
NONE = 0

MSG_HUP = "MsgHup"
MSG_BEAT = "MsgBeat"
MSG_PROP = "MsgProp"
MSG_APP = "MsgApp"
MSG_APP_RESP = "MsgAppResp"
MSG_VOTE = "MsgVote"
MSG_VOTE_RESP = "MsgVoteResp"
MSG_PRE_VOTE = "MsgPreVote"
MSG_PRE_VOTE_RESP = "MsgPreVoteResp"
MSG_HEARTBEAT = "MsgHeartbeat"
MSG_HEARTBEAT_RESP = "MsgHeartbeatResp"
MSG_CHECK_QUORUM = "MsgCheckQuorum"
MSG_READ_INDEX = "MsgReadIndex"
MSG_READ_INDEX_RESP = "MsgReadIndexResp"

#: ``raftpb.EntryNormal`` and ``raftpb.EntryConfChange``.
ENTRY_NORMAL = "EntryNormal"
ENTRY_CONF_CHANGE = "EntryConfChange"
#: ``raftpb.ConfChangeType`` values used by etcd 3.4's member add / add --learner / remove.
CONF_ADD_NODE = "ConfChangeAddNode"
CONF_ADD_LEARNER_NODE = "ConfChangeAddLearnerNode"
CONF_REMOVE_NODE = "ConfChangeRemoveNode"

_RESP = {MSG_VOTE: MSG_VOTE_RESP, MSG_PRE_VOTE: MSG_PRE_VOTE_RESP}


class StateType(enum.Enum):
    """A member's role (``raft.StateType``); ``str()`` gives upstream's spelling."""

    FOLLOWER = "StateFollower"
    CANDIDATE = "StateCandidate"
    LEADER = "StateLeader"
    PRE_CANDIDATE = "StatePreCandidate"

    def __str__(self) -> str:
        return self.value


def quorum(voters: int) -> int:
    """Votes (or acknowledgements) needed among ``voters``: a strict majority, ``voters // 2 + 1``.

    Parameters
    ----------
    voters : int
        Voting members (learners do not count).

    Returns
    -------
    int

    Raises
    ------
    TypeError
        When ``voters`` is not an integer.

    Examples
    --------
    >>> [quorum(n) for n in (1, 2, 3, 4, 5)]
    [1, 2, 2, 3, 3]
    """
    return voters // 2 + 1


@dataclass(frozen=True)
class Entry:
    """One log entry (``raftpb.Entry``).

    Attributes
    ----------
    term, index : int
        The leader's term when it was appended, and its position (from 1).
    type : str
        :data:`ENTRY_NORMAL` (``data`` is a client request, or None for the empty entry a new leader appends)
        or :data:`ENTRY_CONF_CHANGE` (``data`` is ``(ConfChangeType, member id)``).
    data : object
    """

    term: int
    index: int
    type: str = ENTRY_NORMAL
    data: Any = None


@dataclass
class Message:
    """One message between members (``raftpb.Message``); ``frm`` is upstream's ``From``.

    ``index``/``log_term`` are the entry before ``entries`` in a ``MsgApp``, the candidate's last entry in a
    vote, the acknowledged index in a ``MsgAppResp``; ``context`` carries a ReadIndex request's id.
    """

    type: str
    frm: int = NONE
    to: int = NONE
    term: int = 0
    log_term: int = 0
    index: int = 0
    entries: tuple[Entry, ...] = ()
    commit: int = 0
    reject: bool = False
    reject_hint: int = 0
    context: Any = None


class RaftLog:
    """The replicated log of one member and its commit and apply positions (``raft/log.go``).

    Index 0 is a sentinel of term 0, so the first entry has index 1.

    Examples
    --------
    >>> log = RaftLog()
    >>> log.append([Entry(1, 1), Entry(1, 2), Entry(2, 3)])
    3
    >>> log.match_term(2, 1), log.match_term(3, 1), log.is_up_to_date(3, 2), log.is_up_to_date(5, 1)
    (True, False, True, False)
    >>> log.maybe_append(1, 1, 1, [Entry(3, 2)])  # entry 2 conflicts: 2 and 3 are replaced
    2
    >>> [(e.index, e.term) for e in log.entries], log.committed
    ([(1, 1), (2, 3)], 1)
    """

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.committed = 0
        self.applied = 0

    @property
    def last_index(self) -> int:
        """Index of the last entry (0 when empty)."""
        return len(self.entries)

    @property
    def last_term(self) -> int:
        """Term of the last entry (0 when empty)."""
        return self.entries[-1].term if self.entries else 0

    def term(self, index: int) -> int:
        """Term of the entry at ``index``; 0 for index 0 or past the end (upstream's ``zeroTermOnErrCompacted``)."""
        return self.entries[index - 1].term if 0 < index <= len(self.entries) else 0

    def match_term(self, index: int, term: int) -> bool:
        """True when the entry at ``index`` has ``term`` (index 0 always matches): the log-matching check."""
        return index == 0 or (index <= self.last_index and self.term(index) == term)

    def is_up_to_date(self, last_index: int, last_term: int) -> bool:
        """True when a log ending at ``(last_index, last_term)`` is at least as up-to-date as this one (§5.4.1)."""
        return last_term > self.last_term or (last_term == self.last_term and last_index >= self.last_index)

    def append(self, entries: list[Entry] | tuple[Entry, ...]) -> int:
        """Append ``entries`` after truncating anything from the first one's index on; returns the last index."""
        if entries:
            after = entries[0].index - 1
            if after < self.committed:
                raise ValueError(f"entry {after + 1} is before the commit index {self.committed}")
            del self.entries[after:]
            self.entries.extend(entries)
        return self.last_index

    def find_conflict(self, entries: tuple[Entry, ...] | list[Entry]) -> int:
        """Index of the first of ``entries`` whose term differs from this log's (or is new); 0 if none."""
        for e in entries:
            if not self.match_term(e.index, e.term):
                return e.index
        return 0

    def maybe_append(self, index: int, log_term: int, commit: int, entries: tuple[Entry, ...] | list[Entry]) -> int:
        """Append a leader's ``entries`` if the entry before them matches ``(index, log_term)``.

        Returns
        -------
        int
            The last index now known to match the leader's log (``lastnewi``), or -1 when
            ``(index, log_term)`` does not match (the ``MsgApp`` is rejected).
        """
        if not self.match_term(index, log_term):
            return -1
        last_new = index + len(entries)
        conflict = self.find_conflict(entries)
        if conflict:
            self.append(list(entries)[conflict - index - 1:])
        self.commit_to(min(commit, last_new))
        return last_new

    def commit_to(self, index: int) -> None:
        """Move the commit index forward to ``index`` (never back, never past the last entry)."""
        index = min(index, self.last_index)
        if index > self.committed:
            self.committed = index


@dataclass
class Progress:
    """What a leader knows of one follower (``tracker.Progress``): ``match`` is replicated, ``next`` is sent next."""

    match: int = 0
    next: int = 1
    recent_active: bool = False

    def maybe_update(self, index: int) -> bool:
        """Record an acknowledgement of ``index``; True when ``match`` moved."""
        updated = index > self.match
        if updated:
            self.match = index
        self.next = max(self.next, index + 1)
        return updated

    def maybe_decr_to(self, rejected: int, last: int) -> bool:
        """Step ``next`` back after a rejected ``MsgApp`` for index ``rejected``; the follower's last index is ``last``."""
        if self.next - 1 != rejected and rejected <= self.match:
            return False  # stale rejection
        self.next = max(1, min(rejected, last + 1))
        return True


@dataclass
class _ReadIndexStatus:
    index: int
    context: Any
    requester: int
    acks: set[int] = field(default_factory=set)


class Raft:
    """One member's Raft state machine (``raft.raft``).

    Parameters
    ----------
    id : int
        This member's id (> 0).
    voters, learners : iterable of int
        The configuration this member starts from (its own id included where it belongs).
    election_tick : int
        ``ElectionTick``: etcd's ``--election-timeout`` divided by ``--heartbeat-interval`` (1000/100 = 10).
    heartbeat_tick : int
        ``HeartbeatTick``; etcd sets 1 (a heartbeat every tick).
    pre_vote, check_quorum : bool
        ``PreVote`` (etcd 3.4: ``--pre-vote``, default false) and ``CheckQuorum`` (etcd sets it true).
    rng : random.Random
        Draws the randomized election timeouts (seeded by the caller).
    record : callable(event, detail), optional
        Told of every state change, vote and step-down, for the cluster's history.

    Attributes
    ----------
    term, vote, lead : int
        ``Term``, ``Vote`` (whom this member voted for in ``term``), ``lead`` (the known leader, or :data:`NONE`).
    state : StateType
    log : RaftLog
    msgs : list[Message]
        Outgoing messages, taken by the caller (``Ready.Messages``).
    read_states : list[tuple[int, object]]
        Released ReadIndex requests ``(index, context)``, taken by the caller (``Ready.ReadStates``).

    Examples
    --------
    A single voter elects itself on its first election timeout and commits its empty entry at once:

    >>> r = Raft(1, voters=[1], election_tick=10, rng=random.Random(0))
    >>> for _ in range(20):
    ...     r.tick()
    >>> str(r.state), r.term, r.log.committed
    ('StateLeader', 1, 1)
    >>> r.propose("put a=1"), r.log.committed
    (2, 2)
    """

    def __init__(self, id: int, voters, learners=(), *, election_tick: int = 10, heartbeat_tick: int = 1,
                 pre_vote: bool = False, check_quorum: bool = True, rng: random.Random | None = None,
                 record: Callable[[str, str], None] | None = None):
        if id <= NONE:
            raise ValueError(f"member id must be positive, not {id}")
        if election_tick <= heartbeat_tick:
            raise ValueError(f"election tick ({election_tick}) must be greater than heartbeat tick ({heartbeat_tick})")
        self.id = id
        self.voters: set[int] = set(voters)
        self.learners: set[int] = set(learners) - self.voters
        self.election_timeout = election_tick
        self.heartbeat_timeout = heartbeat_tick
        self.pre_vote = pre_vote
        self.check_quorum = check_quorum
        self.rng = rng or random.Random(0)
        self.record = record or (lambda event, detail: None)
        self.term = 0
        self.vote = NONE
        self.lead = NONE
        self.state = StateType.FOLLOWER
        self.log = RaftLog()
        self.prs: dict[int, Progress] = {}
        self.votes: dict[int, bool] = {}
        self.msgs: list[Message] = []
        self.read_states: list[tuple[int, Any]] = []
        self._reads: list[_ReadIndexStatus] = []
        self.pending_conf_index = 0
        self.election_elapsed = 0
        self.heartbeat_elapsed = 0
        self.randomized_election_timeout = election_tick
        self.become_follower(self.term, NONE)

    # -- configuration ------------------------------------------------------------------------------------------

    @property
    def promotable(self) -> bool:
        """True when this member is a voter (learners and removed members never campaign)."""
        return self.id in self.voters

    def quorum(self) -> int:
        """:func:`quorum` of the voters."""
        return quorum(len(self.voters))

    def apply_conf_change(self, change: str, member: int) -> None:
        """Apply a committed ``ConfChange`` (``applyConfChange``): add a voter or learner, or remove a member."""
        if change == CONF_ADD_NODE:
            self.learners.discard(member)
            self.voters.add(member)
        elif change == CONF_ADD_LEARNER_NODE:
            if member not in self.voters:
                self.learners.add(member)
        elif change == CONF_REMOVE_NODE:
            self.voters.discard(member)
            self.learners.discard(member)
        else:
            raise ValueError(f"unknown ConfChangeType {change!r}")
        self.pending_conf_index = 0
        if self.state is StateType.LEADER:
            for m in self.voters | self.learners:
                if m not in self.prs:
                    self.prs[m] = Progress(0, self.log.last_index + 1, True)
            for m in list(self.prs):
                if m not in self.voters and m not in self.learners:
                    del self.prs[m]
            if self.voters and self._maybe_commit():
                self._bcast_append()

    # -- state changes ------------------------------------------------------------------------------------------

    def _reset(self, term: int) -> None:
        if self.term != term:
            self.term = term
            self.vote = NONE
        self.lead = NONE
        self.election_elapsed = 0
        self.heartbeat_elapsed = 0
        self.randomized_election_timeout = self.election_timeout + self.rng.randrange(self.election_timeout)
        self.votes = {}
        self.prs = {m: Progress(0, self.log.last_index + 1) for m in self.voters | self.learners}
        if self.id in self.prs:
            self.prs[self.id].match = self.log.last_index
        self._reads = []
        self.pending_conf_index = 0

    def become_follower(self, term: int, lead: int) -> None:
        """``becomeFollower``: a new term (the vote cleared) or the same one, with ``lead`` as the known leader."""
        self._reset(term)
        self.lead = lead
        self.state = StateType.FOLLOWER
        self.record(f"became {self.state}", f"term {self.term}" + (f", leader {lead}" if lead else ""))

    def become_pre_candidate(self) -> None:
        """``becomePreCandidate``: ask for votes for ``term + 1`` without changing the term."""
        self.state = StateType.PRE_CANDIDATE
        self.votes = {}
        self.lead = NONE
        self.record(f"became {self.state}", f"term {self.term}, asking for term {self.term + 1}")

    def become_candidate(self) -> None:
        """``becomeCandidate``: increment the term and vote for itself."""
        self._reset(self.term + 1)
        self.vote = self.id
        self.state = StateType.CANDIDATE
        self.record(f"became {self.state}", f"term {self.term}")

    def become_leader(self) -> None:
        """``becomeLeader``: lead this term and append an empty entry of it (to commit earlier terms' entries)."""
        self._reset(self.term)
        self.lead = self.id
        self.state = StateType.LEADER
        for m, pr in self.prs.items():
            pr.recent_active = m == self.id
        self.pending_conf_index = self.log.last_index  # conservatively: no conf change until all is applied
        self.record(f"became {self.state}", f"term {self.term}")
        self._append_entry([Entry(self.term, 0)])

    # -- ticks ----------------------------------------------------------------------------------------------------

    def tick(self) -> None:
        """One ``--heartbeat-interval`` passed (``tickElection`` or, for a leader, ``tickHeartbeat``)."""
        if self.state is StateType.LEADER:
            self.heartbeat_elapsed += 1
            self.election_elapsed += 1
            if self.election_elapsed >= self.election_timeout:
                self.election_elapsed = 0
                if self.check_quorum:
                    self.step(Message(MSG_CHECK_QUORUM, frm=self.id))
            if self.state is StateType.LEADER and self.heartbeat_elapsed >= self.heartbeat_timeout:
                self.heartbeat_elapsed = 0
                self.step(Message(MSG_BEAT, frm=self.id))
            return
        self.election_elapsed += 1
        if self.promotable and self.election_elapsed >= self.randomized_election_timeout:
            self.election_elapsed = 0
            self.step(Message(MSG_HUP, frm=self.id))

    def _campaign(self, pre: bool) -> None:
        if pre:
            self.become_pre_candidate()
            vote_msg, term = MSG_PRE_VOTE, self.term + 1
        else:
            self.become_candidate()
            vote_msg, term = MSG_VOTE, self.term
        if self._poll(self.id, _RESP[vote_msg], True) == "won":
            if pre:
                self._campaign(False)
            else:
                self.become_leader()
            return
        for m in sorted(self.voters - {self.id}):
            self._send(Message(vote_msg, to=m, term=term, index=self.log.last_index, log_term=self.log.last_term))

    def _poll(self, member: int, resp: str, granted: bool) -> str:
        if member not in self.votes:
            self.votes[member] = granted
        won = sum(self.votes.values())
        lost = len(self.votes) - won
        if won >= self.quorum():
            return "won"
        if lost >= self.quorum():
            return "lost"
        return "pending"

    # -- messages -------------------------------------------------------------------------------------------------

    def _send(self, m: Message) -> None:
        m.frm = self.id
        if m.term == 0 and m.type not in (MSG_PROP, MSG_READ_INDEX):
            m.term = self.term
        self.msgs.append(m)

    def step(self, m: Message) -> bool:
        """Handle one message (``Step``); False when a proposal or read was dropped (no leader)."""
        if m.term == 0:
            pass  # a local message
        elif m.term > self.term:
            if m.type in (MSG_VOTE, MSG_PRE_VOTE):
                in_lease = self.check_quorum and self.lead != NONE and self.election_elapsed < self.election_timeout
                if in_lease:
                    self.record(f"ignored {m.type}", f"from {m.frm} at term {m.term}: leader {self.lead} "
                                                     f"heard from {self.election_elapsed} tick(s) ago (lease)")
                    return True
            if m.type == MSG_PRE_VOTE or (m.type == MSG_PRE_VOTE_RESP and not m.reject):
                pass  # a pre-vote never changes the term
            elif m.type in (MSG_APP, MSG_HEARTBEAT):
                self.become_follower(m.term, m.frm)
            else:
                self.become_follower(m.term, NONE)
        elif m.term < self.term:
            if (self.check_quorum or self.pre_vote) and m.type in (MSG_HEARTBEAT, MSG_APP):
                self._send(Message(MSG_APP_RESP, to=m.frm))  # tells a stale leader of the newer term
            elif m.type == MSG_PRE_VOTE:
                self._send(Message(MSG_PRE_VOTE_RESP, to=m.frm, reject=True))
            return True

        if m.type == MSG_HUP:
            if self.state is not StateType.LEADER and self.promotable:
                self._campaign(self.pre_vote)
            return True
        if m.type in (MSG_VOTE, MSG_PRE_VOTE):
            can_vote = (self.vote == m.frm or (self.vote == NONE and self.lead == NONE)
                        or (m.type == MSG_PRE_VOTE and m.term > self.term))
            if can_vote and self.log.is_up_to_date(m.index, m.log_term):
                self._send(Message(_RESP[m.type], to=m.frm, term=m.term))
                if m.type == MSG_VOTE:
                    self.election_elapsed = 0
                    self.vote = m.frm
                self.record(f"granted {m.type}", f"to {m.frm} for term {m.term}")
            else:
                self._send(Message(_RESP[m.type], to=m.frm, reject=True))
                why = (f"voted for {self.vote} in term {self.term}" if self.vote not in (NONE, m.frm) else
                       "its log is behind" if can_vote else f"follows leader {self.lead}")
                self.record(f"rejected {m.type}", f"from {m.frm} for term {m.term}: {why}")
            return True
        if self.state is StateType.LEADER:
            return self._step_leader(m)
        if self.state in (StateType.CANDIDATE, StateType.PRE_CANDIDATE):
            return self._step_candidate(m)
        return self._step_follower(m)

    def _step_leader(self, m: Message) -> bool:
        if m.type == MSG_BEAT:
            self._bcast_heartbeat()
        elif m.type == MSG_CHECK_QUORUM:
            active = sum(1 for v in self.voters if v == self.id or (v in self.prs and self.prs[v].recent_active))
            for v, pr in self.prs.items():
                if v != self.id:
                    pr.recent_active = False
            if active < self.quorum():
                self.record("stepped down", f"CheckQuorum: heard from {active} of {len(self.voters)} voters "
                                            f"in the last election timeout")
                self.become_follower(self.term, NONE)
        elif m.type == MSG_PROP:
            if self.id not in self.prs:
                return False  # removed from the configuration
            entries = []
            for e in m.entries:
                if e.type == ENTRY_CONF_CHANGE:
                    if self.pending_conf_index > self.log.applied:
                        return False  # one configuration change at a time
                    self.pending_conf_index = self.log.last_index + len(entries) + 1
                entries.append(e)
            self._append_entry(entries)
        elif m.type == MSG_READ_INDEX:
            if self.quorum() > 1:
                if self.log.term(self.log.committed) != self.term:
                    return False  # no entry of its own term committed yet: it cannot vouch for the commit index
                st = _ReadIndexStatus(self.log.committed, m.context, m.frm or self.id, {self.id})
                self._reads.append(st)
                self._bcast_heartbeat(context=m.context)
            else:
                self._release_read(_ReadIndexStatus(self.log.committed, m.context, m.frm or self.id))
        elif m.type == MSG_APP_RESP:
            pr = self.prs.get(m.frm)
            if pr is None:
                return True
            pr.recent_active = True
            if m.reject:
                if pr.maybe_decr_to(m.index, m.reject_hint):
                    self._send_append(m.frm)
            elif pr.maybe_update(m.index):
                if self._maybe_commit():
                    self._bcast_append()
                elif pr.match < self.log.last_index:
                    self._send_append(m.frm)
        elif m.type == MSG_HEARTBEAT_RESP:
            pr = self.prs.get(m.frm)
            if pr is None:
                return True
            pr.recent_active = True
            if pr.match < self.log.last_index:
                self._send_append(m.frm)
            if m.context is not None and self._reads:
                for i, st in enumerate(self._reads):
                    if st.context == m.context:
                        if m.frm in self.voters:
                            st.acks.add(m.frm)
                        if len(st.acks & self.voters) >= self.quorum():
                            for done in self._reads[:i + 1]:
                                self._release_read(done)
                            del self._reads[:i + 1]
                        break
        return True

    def _release_read(self, st: _ReadIndexStatus) -> None:
        if st.requester == self.id:
            self.read_states.append((st.index, st.context))
        else:
            self._send(Message(MSG_READ_INDEX_RESP, to=st.requester, index=st.index, context=st.context))

    def _step_candidate(self, m: Message) -> bool:
        if m.type == MSG_PROP or m.type == MSG_READ_INDEX:
            return False
        if m.type == MSG_APP:
            self.become_follower(m.term, m.frm)
            self._handle_append_entries(m)
        elif m.type == MSG_HEARTBEAT:
            self.become_follower(m.term, m.frm)
            self._handle_heartbeat(m)
        elif m.type == (MSG_PRE_VOTE_RESP if self.state is StateType.PRE_CANDIDATE else MSG_VOTE_RESP):
            res = self._poll(m.frm, m.type, not m.reject)
            if res == "won":
                if self.state is StateType.PRE_CANDIDATE:
                    self._campaign(False)
                else:
                    self.become_leader()
                    self._bcast_append()
            elif res == "lost":
                self.record("lost the election", f"term {self.term}: a quorum rejected it")
                self.become_follower(self.term, NONE)
        return True

    def _step_follower(self, m: Message) -> bool:
        if m.type in (MSG_PROP, MSG_READ_INDEX):
            if self.lead == NONE:
                return False
            self._send(Message(m.type, to=self.lead, entries=m.entries, context=m.context))
        elif m.type == MSG_APP:
            self.election_elapsed = 0
            self.lead = m.frm
            self._handle_append_entries(m)
        elif m.type == MSG_HEARTBEAT:
            self.election_elapsed = 0
            self.lead = m.frm
            self._handle_heartbeat(m)
        elif m.type == MSG_READ_INDEX_RESP:
            self.read_states.append((m.index, m.context))
        return True

    def _handle_append_entries(self, m: Message) -> None:
        if m.index < self.log.committed:
            self._send(Message(MSG_APP_RESP, to=m.frm, index=self.log.committed))
            return
        last_new = self.log.maybe_append(m.index, m.log_term, m.commit, m.entries)
        if last_new >= 0:
            self._send(Message(MSG_APP_RESP, to=m.frm, index=last_new))
        else:
            self._send(Message(MSG_APP_RESP, to=m.frm, index=m.index, reject=True, reject_hint=self.log.last_index))

    def _handle_heartbeat(self, m: Message) -> None:
        self.log.commit_to(m.commit)
        self._send(Message(MSG_HEARTBEAT_RESP, to=m.frm, context=m.context))

    # -- leader helpers -------------------------------------------------------------------------------------------

    def _append_entry(self, entries: list[Entry]) -> None:
        last = self.log.last_index
        stamped = [Entry(self.term, last + i + 1, e.type, e.data) for i, e in enumerate(entries)]
        self.log.append(stamped)
        if self.id in self.prs:
            self.prs[self.id].maybe_update(self.log.last_index)
        self._maybe_commit()
        self._bcast_append()

    def _maybe_commit(self) -> bool:
        matches = sorted((self.prs[v].match if v in self.prs else 0 for v in self.voters), reverse=True)
        if not matches:
            return False
        mci = matches[self.quorum() - 1]
        if mci > self.log.committed and self.log.term(mci) == self.term:
            self.log.commit_to(mci)
            return True
        return False

    def _send_append(self, to: int) -> None:
        pr = self.prs[to]
        prev = pr.next - 1
        entries = tuple(self.log.entries[prev:])
        self._send(Message(MSG_APP, to=to, index=prev, log_term=self.log.term(prev), entries=entries,
                           commit=self.log.committed))
        if entries:
            pr.next = entries[-1].index + 1

    def _bcast_append(self) -> None:
        for m in sorted(self.prs):
            if m != self.id:
                self._send_append(m)

    def _bcast_heartbeat(self, context: Any = None) -> None:
        if context is None and self._reads:
            context = self._reads[-1].context
        for m in sorted(self.prs):
            if m != self.id:
                commit = min(self.prs[m].match, self.log.committed)
                self._send(Message(MSG_HEARTBEAT, to=m, commit=commit, context=context))

    # -- the node's API (raft/node.go, reduced) -------------------------------------------------------------------

    def propose(self, data: Any, type: str = ENTRY_NORMAL) -> int:
        """Propose one entry at this member (``Node.Propose``); returns the index it got here, 0 when dropped.

        A follower forwards the proposal to its leader (the index is then 0 here: the leader assigns it).
        """
        before = self.log.last_index
        ok = self.step(Message(MSG_PROP, frm=self.id, entries=(Entry(0, 0, type, data),)))
        if not ok or self.state is not StateType.LEADER or self.log.last_index == before:
            return 0
        return self.log.last_index

    def read_index(self, context: Any) -> bool:
        """Ask for a linearizable read (``Node.ReadIndex``); the answer appears in :attr:`read_states`."""
        return self.step(Message(MSG_READ_INDEX, frm=NONE, context=context))

    def restart(self) -> None:
        """Come back after a crash with what etcd persists (term, vote, log, commit); the rest starts afresh."""
        self.become_follower(self.term, NONE)
        self.msgs.clear()
        self.read_states.clear()
