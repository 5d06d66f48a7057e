"""etcd members on a SimPy clock: Raft (:mod:`kubenotes.etcd.raft`), a network with faults, an MVCC key space.

:class:`RaftCluster` runs ``n`` :class:`~kubenotes.etcd.raft.Raft` members as
etcd 3.4's server does: each ticks every ``--heartbeat-interval`` (with its
own phase), messages travel over a network whose links can be cut
(partitions), made lossy or slow, members can be stopped (killed) and
restarted on what they persisted, paused (``SIGSTOP``) and resumed, and
added or removed by a configuration change committed through the log.
Committed entries are applied to each member's MVCC key space, so a write
has a Raft index, a term and an etcd **revision** (the counter kube-apiserver
hands out as ``resourceVersion``).

Client requests behave as etcd's v3 API reports them through its JSON
gateway: a put is proposed through the member asked (a follower forwards it
to its leader) and answers when that member has applied it; a linearizable
range asks the leader for a ReadIndex and waits until the member has applied
that index; a serializable range answers from the member's own state at
once. A request not answered within etcd's request timeout
(``5 s + 2 * --election-timeout``) fails with ``etcdserver: request timed out``
(gRPC code 14, HTTP 503) when it reached Raft, and with ``context deadline
exceeded`` (code 2, HTTP 500) when no leader was known the whole time: the
two answers measured from a real 3-member etcd 3.4 with two members down.

Notes
-----
Simplified compared with etcd: no internal requests (etcd also commits
member attributes and the cluster version, so its Raft index runs ahead of
this model's), no snapshots, no ``--initial-election-tick-advance`` (a new
cluster's first election waits a full randomized timeout), messages to a
paused member are held and delivered in order when it resumes, a lost
``MsgProp`` is not retried. A member's messages are sent as soon as it has
handled an event (persisting to disk takes no time), and one-way network
delay is ``network_delay_ms`` plus up to ``network_jitter_ms``.

References
----------
etcd-io/etcd@v3.4 etcdserver/raft.go (raftNode: ticks, Ready, sending messages, applying entries)
etcd-io/etcd@v3.4 etcdserver/config.go (ReqTimeout: 5 s + 2 * election timeout)
etcd-io/etcd@v3.4 etcdserver/v3_server.go (linearizableReadLoop, processInternalRaftRequestOnce)
etcd-io/etcd@v3.4 etcdserver/errors.go (ErrTimeout "etcdserver: request timed out")
etcd-io/etcd@v3.4 embed/config.go (--heartbeat-interval 100, --election-timeout 1000, --pre-vote false)
etcd-io/etcd@v3.4 raft/node.go (no proposals accepted while no leader is known)
etcd-io/etcd@v3.4 mvcc/kvstore.go (one revision per write transaction)
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import simpy

if TYPE_CHECKING:
    import networkx as nx

from kubenotes.etcd.raft import (CONF_ADD_LEARNER_NODE, CONF_ADD_NODE, CONF_REMOVE_NODE, ENTRY_CONF_CHANGE, NONE,
                                 Entry, Message, Raft, StateType)

__all__ = ["RaftConfig", "Request", "RaftCluster", "ERR_TIMEOUT", "ERR_DEADLINE", "FAULTS", "failover", "failover_times",
           "fault_scenario", "fault_summary", "state_spans"]

#: etcd's ``ErrTimeout`` as its JSON gateway returns it (gRPC code 14 Unavailable, HTTP 503).
ERR_TIMEOUT = "etcdserver: request timed out"
#: What the gateway returns when the request never reached Raft (no leader known): gRPC code 2, HTTP 500.
ERR_DEADLINE = "context deadline exceeded"


@dataclass(frozen=True)
class RaftConfig:
    """etcd's timing flags and Raft options, and the network the members talk over.

    Parameters
    ----------
    heartbeat_interval_ms, election_timeout_ms : int
        ``--heartbeat-interval`` (100) and ``--election-timeout`` (1000): one tick, and
        ``ElectionTick = election / heartbeat`` ticks (10).
    pre_vote : bool
        ``--pre-vote``: false by default in etcd 3.4 (true from 3.5 on).
    check_quorum : bool
        etcd's server always sets ``CheckQuorum``; off only to show what it prevents.
    network_delay_ms, network_jitter_ms : float
        One-way delay of every message, plus a uniform extra of up to the jitter (loopback: well under 1 ms).

    Returns
    -------
    RaftConfig
        Frozen; :attr:`election_ticks`, :attr:`tick_seconds` and :attr:`request_timeout_seconds` derive from it.

    Raises
    ------
    ValueError
        As etcd refuses it: ``--election-timeout[1000ms] should be at least as 5 times as
        --heartbeat-interval[300ms]``.

    Examples
    --------
    >>> c = RaftConfig()
    >>> c.election_ticks, c.tick_seconds, c.request_timeout_seconds
    (10, 0.1, 7.0)
    >>> RaftConfig(heartbeat_interval_ms=300)
    Traceback (most recent call last):
    ...
    ValueError: --election-timeout[1000ms] should be at least as 5 times as --heartbeat-interval[300ms]
    """

    heartbeat_interval_ms: int = 100
    election_timeout_ms: int = 1000
    pre_vote: bool = False
    check_quorum: bool = True
    network_delay_ms: float = 0.3
    network_jitter_ms: float = 0.2

    def __post_init__(self) -> None:
        if self.heartbeat_interval_ms <= 0:
            raise ValueError(f"--heartbeat-interval must be positive, not {self.heartbeat_interval_ms}")
        if 5 * self.heartbeat_interval_ms > self.election_timeout_ms:
            raise ValueError(f"--election-timeout[{self.election_timeout_ms}ms] should be at least as 5 times as "
                             f"--heartbeat-interval[{self.heartbeat_interval_ms}ms]")

    @property
    def election_ticks(self) -> int:
        """``ElectionTick``: the election timeout in ticks."""
        return self.election_timeout_ms // self.heartbeat_interval_ms

    @property
    def tick_seconds(self) -> float:
        """One tick in seconds."""
        return self.heartbeat_interval_ms / 1000

    @property
    def request_timeout_seconds(self) -> float:
        """etcd's ``ReqTimeout``: 5 s plus twice the election timeout."""
        return 5.0 + 2 * self.election_timeout_ms / 1000


@dataclass
class Request:
    """One client request to the model's etcd and what became of it.

    Attributes
    ----------
    op : str
        ``"put"`` or ``"range"``.
    via : str
        The member the client asked.
    linearizable : bool
        For a range: ReadIndex (True, etcd's default) or serializable (``--consistency=s``).
    status : str
        ``"pending"``, ``"ok"`` or ``"error"``.
    error : str or None
        :data:`ERR_TIMEOUT` or :data:`ERR_DEADLINE` (or that the member is not running).
    index, term, revision : int
        For a put: its Raft entry and the etcd revision it created; for a range: the ReadIndex (0 if
        serializable) and the revision of the state read.
    value : str or None
        A range's answer.
    start, done : float
        Virtual seconds.
    """

    id: int
    op: str
    key: str
    value: Any
    via: str
    start: float
    linearizable: bool = True
    status: str = "pending"
    error: str | None = None
    proposed: bool = False
    index: int = 0
    term: int = 0
    revision: int = 0
    done: float | None = None

    @property
    def latency_seconds(self) -> float | None:
        """``done - start``, or None while pending."""
        return None if self.done is None else self.done - self.start


@dataclass
class _Member:
    name: str
    raft: Raft
    up: bool = True
    paused: bool = False
    removed: bool = False
    generation: int = 0
    reported_commit: int = -1
    held: list[Message] = field(default_factory=list)
    revision: int = 0
    keys: dict[str, tuple[Any, int, int]] = field(default_factory=dict)  # key -> (value, create_rev, mod_rev)
    index_revision: dict[int, int] = field(default_factory=dict)  # raft index -> revision it created
    pending: list[Request] = field(default_factory=list)  # not yet accepted by Raft (no leader known)
    reads: dict[int, Request] = field(default_factory=dict)  # read context -> request, waiting


class RaftCluster:
    """``members`` etcd members (and ``learners``) on one SimPy clock.

    Parameters
    ----------
    members : int
        Voting members at bootstrap (1, 3, 5 ...), named ``m1``, ``m2`` ... with ids 1, 2 ...
    learners : int
        Non-voting members at bootstrap (``member add --learner``), named after the voters.
    config : RaftConfig
    seed : int
        Seeds election timeouts, tick phases, jitter and lossy links: the same seed, the same run.

    Attributes
    ----------
    env : simpy.Environment
        The clock (``env.now`` in seconds).
    history : list[dict]
        ``{"time", "member", "term", "event", "detail"}`` for every state change, vote, step-down and fault.
    commits : list[tuple[float, str, int]]
        ``(time, member, commit index)`` each time a member's commit index moves.
    message_counts, dropped : collections.Counter
        Messages sent and messages lost, by type.
    requests : list[Request]

    Returns
    -------
    RaftCluster
        Booted at t = 0 (every member a follower of term 1, the configuration committed); run it with
        :meth:`run` or :meth:`run_for`.

    Raises
    ------
    ValueError
        When ``members`` < 1 or ``learners`` < 0.

    Examples
    --------
    >>> c = RaftCluster(3, seed=1)
    >>> c.run(until=3)
    >>> c.leader(), [s["term"] for s in c.status()]
    ('m3', [2, 2, 2])
    >>> put = c.put("/registry/pods/default/web", "v1")
    >>> c.run_for(0.1)
    >>> put.status, put.revision, put.index == c.status()[0]["commit"]
    ('ok', 1, True)
    """

    def __init__(self, members: int = 3, *, learners: int = 0, config: RaftConfig | None = None, seed: int = 0):
        if members < 1:
            raise ValueError(f"members must be at least 1, not {members}")
        if learners < 0:
            raise ValueError(f"learners must not be negative, not {learners}")
        self.config = config or RaftConfig()
        self.env = simpy.Environment()
        self.rng = random.Random(seed)
        self.history: list[dict] = []
        self.commits: list[tuple[float, str, int]] = []
        self.message_counts: Counter = Counter()
        self.dropped: Counter = Counter()
        self.requests: list[Request] = []
        self.members: dict[int, _Member] = {}
        self._groups: dict[int, int] = {}
        self._links: dict[tuple[int, int], tuple[float, float]] = {}
        self._next_ctx = 0
        voters = list(range(1, members + 1))
        learner_ids = list(range(members + 1, members + learners + 1))
        boot = [Entry(1, i + 1, ENTRY_CONF_CHANGE, (CONF_ADD_NODE, m)) for i, m in enumerate(voters)]
        boot += [Entry(1, len(boot) + i + 1, ENTRY_CONF_CHANGE, (CONF_ADD_LEARNER_NODE, m))
                 for i, m in enumerate(learner_ids)]
        for m in voters + learner_ids:
            self._add_member_object(m, voters, learner_ids, boot)

    # -- members ------------------------------------------------------------------------------------------------

    def _add_member_object(self, mid: int, voters: Iterable[int], learners: Iterable[int],
                           boot: list[Entry]) -> _Member:
        name = f"m{mid}"
        raft = Raft(mid, voters, learners, election_tick=self.config.election_ticks, pre_vote=self.config.pre_vote,
                    check_quorum=self.config.check_quorum, rng=random.Random(self.rng.random()))
        raft.record = lambda event, detail, n=name: self._record(n, event, detail)
        if boot:  # etcd's StartNode: the initial configuration as committed entries of term 1
            raft.term = 1
            raft.log.append(list(boot))
            raft.log.commit_to(len(boot))
        mem = _Member(name, raft)
        self.members[mid] = mem
        self._apply(mem)
        self._schedule_tick(mem, self.rng.random() * self.config.tick_seconds)
        return mem

    def member(self, name: str) -> _Member:
        """The member called ``name``; ValueError naming the members when there is none."""
        for m in self.members.values():
            if m.name == name:
                return m
        raise ValueError(f"no member {name!r}; members are {', '.join(m.name for m in self.members.values())}")

    @property
    def names(self) -> list[str]:
        """Every member's name, removed ones included."""
        return [m.name for m in self.members.values()]

    # -- the clock ----------------------------------------------------------------------------------------------

    @property
    def now(self) -> float:
        """Virtual seconds."""
        return self.env.now

    def run(self, until: float) -> None:
        """Run the clock to ``until`` seconds."""
        if until > self.env.now:
            self.env.run(until=until)

    def run_for(self, seconds: float) -> None:
        """Run the clock ``seconds`` further."""
        self.run(self.env.now + seconds)

    def run_until_leader(self, timeout_seconds: float = 30.0, *, other_than: str | None = None) -> str | None:
        """Run in small steps until a leader (other than ``other_than``) is known; its name, or None on timeout."""
        end = self.env.now + timeout_seconds
        step = self.config.tick_seconds / 10
        while self.env.now < end:
            lead = self.leader()
            if lead is not None and lead != other_than:
                return lead
            self.run(min(end, self.env.now + step))
        return None

    def _schedule_tick(self, mem: _Member, delay: float) -> None:
        gen = mem.generation
        ev = self.env.timeout(delay)
        ev.callbacks.append(lambda _e: self._on_tick(mem, gen))

    def _on_tick(self, mem: _Member, gen: int) -> None:
        if gen != mem.generation or not mem.up:
            return
        self._schedule_tick(mem, self.config.tick_seconds)
        if mem.paused:
            return
        mem.raft.tick()
        self._retry_pending(mem)
        self._after(mem)

    # -- events -------------------------------------------------------------------------------------------------

    def _record(self, name: str, event: str, detail: str = "") -> None:
        term = next((m.raft.term for m in self.members.values() if m.name == name), 0)
        self.history.append({"time": self.env.now, "member": name, "term": term, "event": event, "detail": detail})

    def _after(self, mem: _Member) -> None:
        """Send what ``mem`` queued, apply what it committed, answer what it can."""
        raft = mem.raft
        msgs, raft.msgs = raft.msgs, []
        for m in msgs:
            self._send(mem, m)
        self._apply(mem)
        for index, ctx in raft.read_states:
            req = mem.reads.get(ctx)
            if req is not None:
                req.index = index
        raft.read_states = []
        for ctx, req in list(mem.reads.items()):
            if req.index and raft.log.applied >= req.index:
                del mem.reads[ctx]
                self._answer_range(mem, req)

    def _apply(self, mem: _Member) -> None:
        log = mem.raft.log
        if log.committed != mem.reported_commit:
            mem.reported_commit = log.committed
            self.commits.append((self.env.now, mem.name, log.committed))
        while log.applied < log.committed:
            e = log.entries[log.applied]
            log.applied += 1
            if e.type == ENTRY_CONF_CHANGE:
                change, who = e.data
                mem.raft.apply_conf_change(change, who)
                if change == CONF_REMOVE_NODE and who == mem.raft.id:
                    self._record(mem.name, "removed", "the member has been permanently removed from the cluster")
                    mem.removed = True
                    mem.up = False
                    mem.generation += 1
                    return
            elif isinstance(e.data, dict) and e.data.get("op") == "put":
                mem.revision += 1
                old = mem.keys.get(e.data["key"])
                mem.keys[e.data["key"]] = (e.data["value"], old[1] if old else mem.revision, mem.revision)
                mem.index_revision[e.index] = mem.revision
                req = self._request(e.data["id"])
                if req is not None and req.via == mem.name and req.status == "pending":
                    req.status, req.index, req.term, req.revision, req.done = "ok", e.index, e.term, mem.revision, \
                        self.env.now

    def _request(self, rid: int) -> Request | None:
        return self.requests[rid] if 0 <= rid < len(self.requests) else None

    # -- the network --------------------------------------------------------------------------------------------

    def _send(self, src: _Member, m: Message) -> None:
        self.message_counts[m.type] += 1
        dst = self.members.get(m.to)
        if dst is None or dst.removed or not src.up or self._groups.get(src.raft.id, 0) != self._groups.get(m.to, 0):
            self.dropped[m.type] += 1
            return
        loss, extra_ms = self._links.get((src.raft.id, m.to), (0.0, 0.0))
        if loss and self.rng.random() < loss:
            self.dropped[m.type] += 1
            return
        delay = (self.config.network_delay_ms + self.rng.random() * self.config.network_jitter_ms + extra_ms) / 1000
        ev = self.env.timeout(delay)
        ev.callbacks.append(lambda _e: self._deliver(dst, m))

    def _deliver(self, dst: _Member, m: Message) -> None:
        if not dst.up or dst.removed:
            self.dropped[m.type] += 1
            return
        if dst.paused:
            dst.held.append(m)
            return
        dst.raft.step(m)
        self._after(dst)

    # -- faults -------------------------------------------------------------------------------------------------

    def stop(self, name: str) -> None:
        """Kill member ``name`` (``SIGKILL``): it stops ticking and answering; what it persisted stays."""
        mem = self.member(name)
        mem.up, mem.paused = False, False
        mem.generation += 1
        mem.held.clear()
        self._record(name, "stopped", "killed")
        for req in mem.pending + list(mem.reads.values()):
            self._fail(req, f"{name} stopped: connection reset")
        mem.pending.clear()
        mem.reads.clear()

    def start(self, name: str) -> None:
        """Restart a stopped member on its persisted term, vote, log and commit index, as a follower."""
        mem = self.member(name)
        if mem.up or mem.removed:
            return
        mem.up = True
        mem.generation += 1
        self._record(name, "restarted", f"term {mem.raft.term}, last index {mem.raft.log.last_index}")
        mem.raft.restart()
        self._schedule_tick(mem, self.rng.random() * self.config.tick_seconds)

    def pause(self, name: str) -> None:
        """Freeze member ``name`` (``SIGSTOP``): no ticks, messages to it held until :meth:`resume`."""
        mem = self.member(name)
        if mem.up:
            mem.paused = True
            self._record(name, "paused", "SIGSTOP")

    def resume(self, name: str) -> None:
        """Thaw a paused member (``SIGCONT``): it handles the held messages, in order, then ticks again."""
        mem = self.member(name)
        if not mem.paused:
            return
        mem.paused = False
        self._record(name, "resumed", f"{len(mem.held)} held message(s)")
        held, mem.held = mem.held, []
        for m in held:
            mem.raft.step(m)
        self._after(mem)

    def partition(self, *groups: Iterable[str]) -> None:
        """Cut the network into ``groups`` of member names; members in no group form one more side.

        Raises
        ------
        ValueError
            On an unknown member name.
        """
        self._groups = {}
        for i, g in enumerate(groups, start=1):
            for name in g:
                self._groups[self.member(name).raft.id] = i
        self._record("", "partitioned", " | ".join(",".join(sorted(g)) for g in groups))

    def heal(self) -> None:
        """Remove every partition and link fault."""
        self._groups = {}
        self._links = {}
        self._record("", "healed", "")

    def set_link(self, src: str, dst: str, *, drop: float = 0.0, delay_ms: float = 0.0, both: bool = True) -> None:
        """Make messages from ``src`` to ``dst`` (and back when ``both``) lost with probability ``drop`` or slower.

        Raises
        ------
        ValueError
            On an unknown member, or ``drop`` outside [0, 1] or a negative delay.
        """
        if not 0.0 <= drop <= 1.0 or delay_ms < 0:
            raise ValueError(f"drop must be in [0, 1] and delay_ms >= 0, not drop={drop}, delay_ms={delay_ms}")
        a, b = self.member(src).raft.id, self.member(dst).raft.id
        for pair in ((a, b), (b, a)) if both else ((a, b),):
            self._links[pair] = (drop, delay_ms)
        self._record("", "link fault", f"{src}{'<->' if both else '->'}{dst}: drop {drop:g}, +{delay_ms:g} ms")

    def _conf_change(self, change: str, mid: int, via: str | None) -> bool:
        lead = self.leader()
        if lead is None:
            return False
        mem = self.member(via or lead)
        before = mem.raft.log.last_index
        mem.raft.propose((change, mid), type=ENTRY_CONF_CHANGE)
        ok = mem.raft.log.last_index > before
        self._after(mem)
        return ok

    def add_member(self, *, learner: bool = False) -> str:
        """``etcdctl member add [--learner]`` then start the new member: a configuration change through the log.

        Returns
        -------
        str
            The new member's name; it knows no configuration until the leader has replicated the log to it.

        Raises
        ------
        ValueError
            When no leader is known or a configuration change is still pending (etcd refuses it too).
        """
        mid = max(self.members) + 1
        if not self._conf_change(CONF_ADD_LEARNER_NODE if learner else CONF_ADD_NODE, mid, None):
            raise ValueError("member add: no leader, or a configuration change is still pending; try again")
        mem = self._add_member_object(mid, (), (), [])
        self._record(mem.name, "added", "as learner" if learner else "as voter")
        return mem.name

    def promote(self, name: str) -> None:
        """``etcdctl member promote``: make a learner a voter (ValueError when it cannot be proposed now)."""
        mid = self.member(name).raft.id
        if not self._conf_change(CONF_ADD_NODE, mid, None):
            raise ValueError("member promote: no leader, or a configuration change is still pending; try again")

    def remove_member(self, name: str) -> None:
        """``etcdctl member remove``: the member stops once it applies its own removal."""
        mid = self.member(name).raft.id
        if not self._conf_change(CONF_REMOVE_NODE, mid, None):
            raise ValueError("member remove: no leader, or a configuration change is still pending; try again")

    # -- clients ------------------------------------------------------------------------------------------------

    def _new_request(self, op: str, key: str, value: Any, via: str | None, linearizable: bool) -> tuple[Request,
                                                                                                         _Member]:
        name = via or self.leader() or self.names[0]
        mem = self.member(name)
        req = Request(len(self.requests), op, key, value, name, self.env.now, linearizable)
        self.requests.append(req)
        if not mem.up or mem.removed:
            self._fail(req, f"dial tcp {name}: connect: connection refused")
        else:  # a paused member's kernel still accepts the connection: the request waits for it
            ev = self.env.timeout(self.config.request_timeout_seconds)
            ev.callbacks.append(lambda _e: self._deadline(req))
        return req, mem

    def put(self, key: str, value: Any, *, via: str | None = None) -> Request:
        """``etcdctl put key value`` through member ``via`` (default: the leader); follow it in the result.

        Returns
        -------
        Request
            Pending until the member asked has applied it (``status "ok"``) or the request timeout passed.
        """
        req, mem = self._new_request("put", key, value, via, True)
        if req.status == "pending":
            mem.pending.append(req)
            self._retry_pending(mem)
            self._after(mem)
        return req

    def range(self, key: str, *, via: str | None = None, linearizable: bool = True) -> Request:
        """``etcdctl get key`` through member ``via``: linearizable (ReadIndex) or serializable (local state)."""
        req, mem = self._new_request("range", key, None, via, linearizable)
        if req.status != "pending":
            return req
        if not linearizable and not mem.paused:
            self._answer_range(mem, req)
            return req
        if not linearizable:
            mem.pending.append(req)
            return req
        mem.pending.append(req)
        self._retry_pending(mem)
        self._after(mem)
        return req

    def _retry_pending(self, mem: _Member) -> None:
        """Hand waiting requests to Raft once a leader is known (etcd's raft node takes no proposal without one)."""
        raft = mem.raft
        if mem.paused:
            return
        still = []
        for req in mem.pending:
            if req.status != "pending":
                continue
            if req.op == "range" and not req.linearizable:
                self._answer_range(mem, req)
                continue
            if raft.lead == NONE:
                still.append(req)
                continue
            if req.op == "put":
                raft.propose({"op": "put", "id": req.id, "key": req.key, "value": req.value})
                req.proposed = True
            else:
                self._next_ctx += 1
                if raft.read_index(self._next_ctx):
                    mem.reads[self._next_ctx] = req
                    req.proposed = True
                else:
                    still.append(req)  # a new leader without an entry of its term: asked again next tick
        mem.pending = still

    def _answer_range(self, mem: _Member, req: Request) -> None:
        got = mem.keys.get(req.key)
        req.value = got[0] if got else None
        req.revision = mem.revision
        req.status, req.done = "ok", self.env.now

    def _fail(self, req: Request, error: str) -> None:
        if req.status == "pending":
            req.status, req.error, req.done = "error", error, self.env.now

    def _deadline(self, req: Request) -> None:
        if req.status == "pending":
            # a put waits for the raft node to take it (none without a leader): ctx deadline; a read's wait
            # for its ReadIndex answer times out with ErrTimeout either way
            self._fail(req, ERR_TIMEOUT if req.proposed or req.op == "range" else ERR_DEADLINE)

    # -- reading ------------------------------------------------------------------------------------------------

    def leader(self) -> str | None:
        """The leader now: the running member in ``StateLeader`` with the highest term (None when there is none).

        A leader cut off from its quorum still calls itself leader until CheckQuorum steps it down; the one in
        the higher term is the one that can commit.
        """
        best = None
        for m in self.members.values():
            if m.up and not m.paused and not m.removed and m.raft.state is StateType.LEADER:
                if best is None or m.raft.term > best.raft.term:
                    best = m
        return best.name if best else None

    def status(self) -> list[dict]:
        """One row per member: ``name, id, state, term, vote, lead, last_index, commit, applied, revision, role, up``.

        ``state`` is ``"stopped"``/``"paused"``/``"removed"`` for a member that is not running; ``vote`` and
        ``lead`` are member names ("" for none); ``role`` is ``voter``, ``learner`` or ``-`` (not in the
        configuration this member knows).
        """
        rows = []
        names = {m.raft.id: m.name for m in self.members.values()}
        for m in self.members.values():
            r = m.raft
            state = ("removed" if m.removed else "stopped" if not m.up else "paused" if m.paused else str(r.state))
            rows.append({"name": m.name, "id": r.id, "state": state, "term": r.term,
                         "vote": names.get(r.vote, ""), "lead": names.get(r.lead, ""),
                         "last_index": r.log.last_index, "commit": r.log.committed, "applied": r.log.applied,
                         "revision": m.revision,
                         "role": "voter" if r.id in r.voters else "learner" if r.id in r.learners else "-",
                         "up": m.up and not m.paused and not m.removed})
        return rows

    def elections(self) -> list[dict]:
        """Every leader elected: ``{"time", "leader", "term", "votes"}`` (``votes``: members that granted it)."""
        out = []
        granted: dict[tuple[str, int], list[str]] = {}
        for h in self.history:
            if h["event"] == "granted MsgVote":
                to = f"m{h['detail'].split()[1]}"
                term = int(h["detail"].split()[-1])
                granted.setdefault((to, term), []).append(h["member"])
            elif h["event"] == f"became {StateType.LEADER}":
                votes = [h["member"]] + sorted(granted.get((h["member"], h["term"]), []))
                out.append({"time": h["time"], "leader": h["member"], "term": h["term"], "votes": votes})
        return out

    def graph(self) -> "nx.Graph":
        """The members as a networkx graph: a node per member (``status()``'s row as attributes) and an edge per
        pair of members, with ``cut`` True when a partition or a fully lossy link separates them.

        Examples
        --------
        >>> c = RaftCluster(3)
        >>> c.partition(["m1"], ["m2", "m3"])
        >>> sorted((a, b) for a, b, cut in c.graph().edges(data="cut") if cut)
        [('m1', 'm2'), ('m1', 'm3')]
        """
        import networkx as nx

        g = nx.Graph()
        for row in self.status():
            g.add_node(row["name"], **row)
        ms = [m for m in self.members.values() if not m.removed]
        for i, a in enumerate(ms):
            for b in ms[i + 1:]:
                ida, idb = a.raft.id, b.raft.id
                cut = (self._groups.get(ida, 0) != self._groups.get(idb, 0)
                       or self._links.get((ida, idb), (0, 0))[0] >= 1 or self._links.get((idb, ida), (0, 0))[0] >= 1)
                g.add_edge(a.name, b.name, cut=cut)
        return g

    def log_rows(self) -> list[dict]:
        """Every member's log: ``{"member", "index", "term", "type", "data", "committed"}``, one row per entry."""
        rows = []
        for m in self.members.values():
            for e in m.raft.log.entries:
                data = e.data
                if isinstance(data, dict):
                    data = f"put {data['key']}={data['value']}"
                elif isinstance(data, tuple):
                    data = f"{data[0]} m{data[1]}"
                elif data is None:
                    data = "(empty entry of a new leader)"
                rows.append({"member": m.name, "index": e.index, "term": e.term, "type": e.type, "data": data,
                             "committed": e.index <= m.raft.log.committed})
        return rows


def failover(config: RaftConfig | None = None, *, members: int = 3, seed: int = 0, fault: str = "pause",
             at_seconds: float = 5.0, timeout_seconds: float = 30.0) -> dict:
    """Elect a leader, stop it (``fault``: ``"pause"`` or ``"stop"``) at ``at_seconds``, time the next election.

    Returns
    -------
    dict
        ``{"old_leader", "old_term", "new_leader", "new_term", "fault_time", "elected_time", "seconds"}``;
        ``new_leader`` None (and ``seconds`` None) when none is elected within ``timeout_seconds``.

    Raises
    ------
    ValueError
        On an unknown ``fault``, or when no first leader is elected by ``at_seconds``.

    Examples
    --------
    >>> r = failover(seed=3)
    >>> r["old_term"], r["new_term"], 0.8 < r["seconds"] < 2.2
    (2, 3, True)
    """
    if fault not in ("pause", "stop"):
        raise ValueError(f"fault must be 'pause' or 'stop', not {fault!r}")
    c = RaftCluster(members, config=config, seed=seed)
    c.run(at_seconds)
    old = c.leader()
    if old is None:
        raise ValueError(f"no leader elected by t={at_seconds:g} s")
    old_term = c.member(old).raft.term
    (c.pause if fault == "pause" else c.stop)(old)
    t0 = c.now
    new = c.run_until_leader(timeout_seconds, other_than=old)
    return {"old_leader": old, "old_term": old_term, "new_leader": new,
            "new_term": c.member(new).raft.term if new else None, "fault_time": t0,
            "elected_time": c.now if new else None, "seconds": (c.now - t0) if new else None}


def failover_times(config: RaftConfig | None = None, *, members: int = 3, seeds: Iterable[int] = range(50),
                   fault: str = "pause") -> list[float]:
    """:func:`failover`'s ``seconds`` over ``seeds``: the model's distribution of the time to a new leader.

    Parameters
    ----------
    config : RaftConfig, optional
        etcd's defaults when None.
    members : int
    seeds : iterable of int
        One run per seed (the fault comes at a slightly different moment in each, 3 s plus up to 78 ms).
    fault : str
        ``"pause"`` (``SIGSTOP``) or ``"stop"`` (kill).

    Returns
    -------
    list[float]
        Seconds from the fault to a new leader, for each run that elected one within 30 s.

    Raises
    ------
    ValueError
        As :func:`failover`.

    Examples
    --------
    >>> ts = failover_times(seeds=range(20))
    >>> len(ts), 0.8 < min(ts) <= max(ts) < 4.0
    (20, True)
    """
    out = []
    for s in seeds:
        r = failover(config, members=members, seed=s, fault=fault, at_seconds=3.0 + (s % 7) * 0.013)
        if r["seconds"] is not None:
            out.append(r["seconds"])
    return out


#: The faults :func:`fault_scenario` can inject (the chapter's widget offers them).
FAULTS = ("none", "stop leader", "pause leader", "partition leader into a minority", "stop a majority")


def fault_scenario(members: int = 3, *, election_timeout_ms: int = 1000, heartbeat_interval_ms: int = 100,
                   fault: str = "stop leader", fault_at_seconds: float = 4.0,
                   recover_after_seconds: float | None = 4.0, pre_vote: bool = False, seed: int = 0,
                   until_seconds: float = 14.0, write_every_seconds: float = 0.5) -> dict:
    """Boot ``members`` members, inject ``fault`` at ``fault_at_seconds``, undo it later, with a client writing.

    Parameters
    ----------
    members : int
        Voting members (1, 3, 5 ...).
    election_timeout_ms, heartbeat_interval_ms : int
        etcd's flags (:class:`RaftConfig`).
    fault : str
        One of :data:`FAULTS`. ``"partition leader into a minority"`` puts the leader with ``members // 2 - 1``
        followers on one side; ``"stop a majority"`` kills the leader and enough followers to lose quorum.
    fault_at_seconds : float
        When the fault happens (after the first election, which takes one to two election timeouts).
    recover_after_seconds : float or None
        When the stopped members restart, the paused one resumes or the partition heals; None: never.
    pre_vote : bool
        ``--pre-vote``.
    seed : int
    until_seconds : float
        When the run ends.
    write_every_seconds : float
        A client puts ``/registry/configmaps/default/tick`` this often from the first second on, through the
        leader it last knew (or the first running member), as a client balancer does.

    Returns
    -------
    dict
        ``{"cluster", "writes", "fault", "fault_at", "recover_at", "victims", "leader_before", "config"}``:
        the :class:`RaftCluster` at ``until_seconds``, the client's :class:`Request` list, and the members hit.

    Raises
    ------
    ValueError
        On an unknown fault (naming the choices), a bad configuration (:class:`RaftConfig`), or ``members`` < 1.

    Examples
    --------
    >>> r = fault_scenario(3, fault="stop a majority", recover_after_seconds=None, until_seconds=20)
    >>> r["victims"], sorted({w.error for w in r["writes"] if w.status == "error"})
    (['m2', 'm1'], ['context deadline exceeded', 'etcdserver: request timed out'])
    """
    if fault not in FAULTS:
        raise ValueError(f"fault must be one of {', '.join(repr(f) for f in FAULTS)}, not {fault!r}")
    config = RaftConfig(heartbeat_interval_ms=heartbeat_interval_ms, election_timeout_ms=election_timeout_ms,
                        pre_vote=pre_vote)
    c = RaftCluster(members, config=config, seed=seed)
    writes: list[Request] = []
    state = {"victims": [], "leader_before": None, "target": None}

    def client(t: float) -> None:
        lead = c.leader()
        if lead is not None:
            state["target"] = lead
        target = state["target"]
        if target is None or not c.member(target).up:
            target = next((n for n in c.names if c.member(n).up), c.names[0])
        writes.append(c.put("/registry/configmaps/default/tick", f"{t:.1f}", via=target))

    def inject() -> None:
        lead = c.leader()
        state["leader_before"] = lead
        if lead is None or fault == "none":
            return
        followers = [n for n in c.names if n != lead]
        if fault == "stop leader":
            state["victims"] = [lead]
            c.stop(lead)
        elif fault == "pause leader":
            state["victims"] = [lead]
            c.pause(lead)
        elif fault == "partition leader into a minority":
            minority = [lead] + followers[:max(0, members // 2 - 1)]
            state["victims"] = minority
            c.partition(minority, [n for n in c.names if n not in minority])
        else:
            state["victims"] = [lead] + followers[:members // 2]
            for n in state["victims"]:
                c.stop(n)

    def recover() -> None:
        if fault in ("stop leader", "stop a majority"):
            for n in state["victims"]:
                c.start(n)
        elif fault == "pause leader":
            for n in state["victims"]:
                c.resume(n)
        elif fault == "partition leader into a minority":
            c.heal()

    recover_at = None if recover_after_seconds is None else fault_at_seconds + recover_after_seconds
    t = 1.0
    events = [(fault_at_seconds, 0, inject)]
    if recover_at is not None and recover_at < until_seconds:
        events.append((recover_at, 0, recover))
    while t < until_seconds:
        events.append((t, 1, lambda t=t: client(t)))
        t += write_every_seconds
    for when, _order, action in sorted(events, key=lambda e: (e[0], e[1])):
        c.run(when)
        action()
    c.run(until_seconds)
    return {"cluster": c, "writes": writes, "fault": fault, "fault_at": fault_at_seconds, "recover_at": recover_at,
            "victims": state["victims"], "leader_before": state["leader_before"], "config": config}


def state_spans(cluster: RaftCluster) -> dict[str, list[tuple[float, float, str, int]]]:
    """Each member's ``(start, end, state, term)`` spans from the history, the last ending at ``cluster.now``.

    Parameters
    ----------
    cluster : RaftCluster
        A run (its ``history``, ``names`` and ``now``).

    Returns
    -------
    dict of str to list of (float, float, str, int)
        Member -> spans in time order. ``state`` is a raft ``StateType``
        name, or ``stopped``/``paused``/``removed`` while the member was out
        (a term change while out stays in the same span).

    Raises
    ------
    AttributeError
        When ``cluster`` is not a :class:`RaftCluster`.

    See Also
    --------
    kubenotes.viz.etcd.timeline_figure : draws them.

    Examples
    --------
    >>> c = RaftCluster(1, seed=0)
    >>> c.run(3)
    >>> [(s[2], s[3]) for s in state_spans(c)["m1"]]
    [('StateFollower', 1), ('StateLeader', 2)]
    """
    spans: dict[str, list[tuple[float, float, str, int]]] = {n: [] for n in cluster.names}
    current: dict[str, tuple[float, str, int]] = {n: (0.0, "StateFollower", 1) for n in cluster.names}
    frozen: dict[str, str | None] = {n: None for n in cluster.names}

    def switch(name: str, t: float, state: str, term: int) -> None:
        start, old, old_term = current[name]
        if t > start:
            spans[name].append((start, t, old, old_term))
        current[name] = (t, state, term)

    for h in cluster.history:
        n, ev = h["member"], h["event"]
        if n not in current:
            continue
        if ev.startswith("became "):
            raft_state = ev[len("became "):]
            if frozen[n] is None:
                switch(n, h["time"], raft_state, h["term"])
            else:
                current[n] = (current[n][0], current[n][1], h["term"])
        elif ev in ("stopped", "paused", "removed"):
            frozen[n] = ev
            switch(n, h["time"], ev, h["term"])
        elif ev in ("restarted", "resumed"):
            frozen[n] = None
            switch(n, h["time"], str(cluster.member(n).raft.state) if ev == "resumed" else "StateFollower",
                   h["term"])
    for n, (start, state, term) in current.items():
        if cluster.now > start:
            spans[n].append((start, cluster.now, state, term))
    return spans


def fault_summary(result: Mapping[str, Any]) -> dict[str, Any]:
    """What a :func:`fault_scenario` run came to: writes committed, waiting and failed, and the first new leader.

    Parameters
    ----------
    result : mapping
        A :func:`fault_scenario` result (``cluster``, ``writes``, ``fault_at``).

    Returns
    -------
    dict
        ``writes`` (sent), ``committed``, ``waiting`` (no answer when the run
        ended), ``errors`` (distinct error strings, sorted), ``elections``
        (in all), ``first_leader_after_fault`` (the first election after
        ``fault_at`` with ``leader``, ``term`` and ``seconds_after_fault``, or
        None) and ``leader`` (at the end, or None).

    Raises
    ------
    KeyError
        When ``result`` lacks ``cluster``, ``writes`` or ``fault_at``.

    See Also
    --------
    fault_scenario

    Examples
    --------
    >>> f = fault_summary(fault_scenario(3, fault="stop leader", until_seconds=10))
    >>> f["committed"] <= f["writes"], f["first_leader_after_fault"]["term"] > 1
    (True, True)
    """
    c, w = result["cluster"], result["writes"]
    elected = c.elections()
    after = [e for e in elected if e["time"] > result["fault_at"]]
    first = ({"leader": after[0]["leader"], "term": after[0]["term"],
              "seconds_after_fault": after[0]["time"] - result["fault_at"]} if after else None)
    return {"writes": len(w), "committed": sum(1 for x in w if x.status == "ok"),
            "waiting": sum(1 for x in w if x.status == "pending"),
            "errors": sorted({x.error for x in w if x.status == "error"}), "elections": len(elected),
            "first_leader_after_fault": first, "leader": c.leader()}
