"""One ``kubectl apply`` followed through Raft: log index -> etcd revision -> resourceVersion -> watch -> informer.

:func:`linked_trace` takes the hops of an apply as
:func:`kubenotes.sim.trace.apply_hops` lists them (the API server's request
path, the writes to etcd, the watch events that wake each component) and
puts every write through a :class:`~kubenotes.etcd.cluster.RaftCluster`, in
order: the write becomes a ``MsgProp`` to the leader, an entry at a Raft
**index** in the leader's **term**, ``MsgApp`` to the followers, committed
when a quorum has acknowledged it, then applied, which is when etcd assigns
the **revision** that kube-apiserver returns as the object's
**resourceVersion**; the watch event carrying that resourceVersion is what
wakes the next component's informer and, through its workqueue, its
controller. :func:`chain` picks that path out for the apply's first write.

Notes
-----
The API server's in-memory store plays etcd's MVCC here: the revision shown
is the store's resourceVersion; the Raft model provides the index, the term,
who acknowledged and how long the commit took. In real etcd the Raft index
runs ahead of the revision (bootstrap configuration entries, each new
leader's empty entry, etcd's own internal requests and reads through
ReadIndex take indexes but no revision), as it does here. This module reads
hops as data and imports nothing from :mod:`kubenotes.sim`.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (resourceVersion from
the key's mod_revision)
etcd-io/etcd@v3.4 etcdserver/v3_server.go (a write is a Raft proposal, answered once applied)
etcd-io/etcd@v3.4 mvcc/kvstore_txn.go (the revision a write transaction creates)
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from kubenotes.etcd.cluster import RaftCluster

__all__ = ["linked_trace", "chain"]

_STORED = re.compile(r"(?:stored|ADDED|MODIFIED|DELETED) (/\S+) at resourceVersion (\d+)")
_WATCH_RV = re.compile(r"resourceVersion (\d+)")


def linked_trace(hops: Sequence[Mapping[str, Any]], raft: RaftCluster, *, settle_seconds: float = 0.05) -> list[dict]:
    """The apply's hops with every write put through ``raft`` and the Raft hops inserted after it.

    Parameters
    ----------
    hops : sequence of dict
        :func:`kubenotes.sim.trace.apply_hops`'s answer.
    raft : RaftCluster
        A cluster with a leader (run it first); its clock advances ``settle_seconds`` per write.
    settle_seconds : float
        Virtual time given to each write to commit and apply.

    Returns
    -------
    list[dict]
        ``{"step", "time", "from", "to", "what", "raft_index", "raft_term", "revision"}`` per hop: the original
        hops (watch hops get the index and revision of the write they deliver) and, after each write to
        etcd, three Raft hops: ``etcd -> leader mX`` (``MsgProp``: appended at index I in term T), ``leader ->
        followers`` (``MsgApp``; committed by a quorum, naming who acknowledged and after how many ms) and
        ``leader -> etcd`` (applied: revision R, returned as resourceVersion R).

    Raises
    ------
    ValueError
        When ``raft`` has no leader, or a write does not commit within ``settle_seconds`` (no quorum).

    Examples
    --------
    >>> from kubenotes.etcd.cluster import RaftCluster
    >>> raft = RaftCluster(3, seed=1)
    >>> raft.run(3)
    >>> hops = [{"step": 1, "time": 0.0, "from": "validating admission", "to": "etcd", "request": 0,
    ...          "what": "validating admission: none; stored /registry/pods/default/web at resourceVersion 7"},
    ...         {"step": 2, "time": 0.0, "from": "etcd", "to": "kube-scheduler", "request": None,
    ...          "what": "watch: ADDED Pod default/web (resourceVersion 7)"}]
    >>> rows = linked_trace(hops, raft)
    >>> [(r["from"], r["to"]) for r in rows]  # doctest: +NORMALIZE_WHITESPACE
    [('validating admission', 'etcd'), ('etcd', 'raft leader m3'), ('raft leader m3', 'followers m1, m2'),
     ('raft leader m3', 'etcd'), ('etcd', 'kube-scheduler')]
    >>> rows[1]["raft_index"], rows[1]["raft_term"], rows[-1]["raft_index"], rows[-1]["revision"]
    (5, 2, 5, 7)
    """
    lead = raft.leader()
    if lead is None:
        raise ValueError("the Raft cluster has no leader: run it until one is elected")
    by_rv: dict[int, tuple[int, int]] = {}
    rows: list[dict] = []

    def add(h: Mapping[str, Any], **extra: Any) -> None:
        row = {"step": len(rows) + 1, "time": float(h["time"]), "from": h["from"], "to": h["to"], "what": h["what"],
               "raft_index": None, "raft_term": None, "revision": None}
        row.update(extra)
        rows.append(row)

    for h in hops:
        m = _STORED.search(h["what"]) if h["to"] == "etcd" else None
        if m is None:
            w = _WATCH_RV.search(h["what"]) if h["from"] == "etcd" and h["what"].startswith("watch:") else None
            if w and int(w.group(1)) in by_rv:
                index, term = by_rv[int(w.group(1))]
                add(h, raft_index=index, raft_term=term, revision=int(w.group(1)))
            else:
                add(h)
            continue
        key, rv = m.group(1), int(m.group(2))
        add(h, revision=rv)
        lead = raft.leader() or lead
        req = raft.put(key, str(rv), via=lead)
        raft.run_for(settle_seconds)
        if req.status != "ok":
            raise ValueError(f"the write of {key} (resourceVersion {rv}) did not commit within "
                             f"{settle_seconds:g} s: {req.error or 'no quorum'}")
        leader = raft.member(lead).raft
        followers = sorted(n for n in raft.names if n != lead and raft.member(n).raft.id in leader.voters)
        acked = [n for n in followers if raft.member(n).raft.log.last_index >= req.index]
        ms = req.latency_seconds * 1000
        by_rv[rv] = (req.index, req.term)
        t = float(h["time"])
        add({"time": t, "from": "etcd", "to": f"raft leader {lead}",
             "what": f"MsgProp: appended at index {req.index} in term {req.term}"},
            raft_index=req.index, raft_term=req.term)
        add({"time": t, "from": f"raft leader {lead}", "to": "followers " + ", ".join(followers),
             "what": f"MsgApp index {req.index}: acknowledged by {', '.join(acked) or 'none'}; committed by "
                     f"a quorum of {leader.quorum()} of {len(leader.voters)} after {ms:.1f} ms"},
            raft_index=req.index, raft_term=req.term)
        add({"time": t, "from": f"raft leader {lead}", "to": "etcd",
             "what": f"applied index {req.index}: revision {rv} of {key}, returned as resourceVersion {rv}"},
            raft_index=req.index, raft_term=req.term, revision=rv)
    return rows


def chain(rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The first write's path: ``kubectl`` -> Raft index -> revision -> resourceVersion -> watch -> next write.

    Parameters
    ----------
    rows : sequence of dict
        :func:`linked_trace`'s answer.

    Returns
    -------
    list[dict]
        ``{"link", "value", "where"}`` rows: the request, the Raft index and term, the revision, the
        resourceVersion, the watch event, the informer (component) it woke, and that component's next write.
        Links that did not happen (nobody watched) are left out; ``[]`` when ``rows`` holds no write.

    Raises
    ------
    KeyError
        When a row lacks one of :func:`linked_trace`'s keys.

    Examples
    --------
    >>> rows = [{"step": 1, "time": 0.0, "from": "kubectl", "to": "authentication", "what": "create pods default/p",
    ...          "raft_index": None, "raft_term": None, "revision": None},
    ...         {"step": 2, "time": 0.0, "from": "validating admission", "to": "etcd",
    ...          "what": "stored /registry/pods/default/p at resourceVersion 9", "raft_index": None,
    ...          "raft_term": None, "revision": 9}]
    >>> [(x["link"], x["value"]) for x in chain(rows)]  # doctest: +NORMALIZE_WHITESPACE
    [('kubectl apply', 'create pods default/p'), ('etcd revision', '9'), ('resourceVersion', '9')]
    """
    first = next((r for r in rows if r["revision"] is not None and r["to"] == "etcd"), None)
    if first is None:
        return []
    rv = first["revision"]
    client = next((r for r in rows if r["from"] == "kubectl" and r["step"] < first["step"]), first)
    out = [{"link": "kubectl apply", "value": client["what"], "where": client["from"]}]
    raft_rows = [r for r in rows if r["raft_index"] is not None and r["revision"] in (None, rv)
                 and r["step"] > first["step"]]
    if raft_rows:
        r = raft_rows[0]
        out.append({"link": "Raft log index", "value": f"{r['raft_index']} (term {r['raft_term']})", "where": r["to"]})
        out.append({"link": "committed", "value": raft_rows[1]["what"].split(": ", 1)[1], "where": raft_rows[1]["to"]})
    out.append({"link": "etcd revision", "value": str(rv), "where": "etcd (MVCC)"})
    out.append({"link": "resourceVersion", "value": str(rv), "where": "kube-apiserver"})
    watch = next((r for r in rows if r["what"].startswith("watch:") and r["revision"] == rv), None)
    if watch is not None:
        out.append({"link": "watch event", "value": watch["what"][len("watch: "):], "where": "watch cache"})
        out.append({"link": "informer", "value": f"{watch['to']}'s informer: cache updated, key queued",
                    "where": watch["to"]})
        nxt = next((r for r in rows if r["step"] > watch["step"] and r["from"] == watch["to"]), None)
        if nxt is not None:
            out.append({"link": "controller", "value": nxt["what"], "where": watch["to"]})
    return out
