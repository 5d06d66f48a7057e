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

When the cluster ran on a real etcd (``Cluster.from_manifests(..., etcd=URL)``,
``simulate --etcd URL``), ``linked_trace(..., etcd=storage)`` reads every
write's revision back from that etcd: a range read of the key at the write's
revision, through the API server's own storage backend, whose ``mod_revision``
is shown beside the model's resourceVersion (they are equal: kube-apiserver's
resourceVersion *is* the key's ``mod_revision``).

Notes
-----
Without ``etcd`` the API server's in-memory store plays etcd's MVCC: the
revision shown is the store's resourceVersion. Either way the Raft model
provides the index, the term, who acknowledged and how long the commit took
(a real etcd's own Raft index is not read back: etcd answers a write with
its revision and term only). In real etcd the Raft index
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

from kubenotes.errors import KubenotesError
from kubenotes.etcd.cluster import RaftCluster

__all__ = ["linked_trace", "chain"]

_STORED = re.compile(r"(?:stored|ADDED|MODIFIED|DELETED) (/\S+) at resourceVersion (\d+)")
_WATCH_RV = re.compile(r"resourceVersion (\d+)")


def _read_back(etcd: Any, key: str, revision: int, deleted: bool) -> tuple[int | None, str]:
    """The mod_revision etcd holds for ``key`` at ``revision`` (a range read at that revision), and a few words.

    For a delete the key is absent at ``revision`` and present just before it: that revision is returned.
    """
    name = key.rsplit("/", 1)[-1]

    def mod_revision_at(rev: int) -> int | None:
        objs, _ = etcd.get_list(key, revision=rev)  # a range over the key as a prefix: keep the key itself
        return next((int(o["metadata"]["resourceVersion"]) for o in objs
                     if (o.get("metadata") or {}).get("name") == name), None)

    where = getattr(etcd, "url", "etcd")
    try:
        got = mod_revision_at(revision)
        if deleted:
            before = mod_revision_at(revision - 1)
            if got is None and before is not None:
                return revision, f"read back from {where}: absent at revision {revision}, present at {revision - 1}"
            return None, f"read back from {where}: not deleted at revision {revision}"
    except KubenotesError as e:
        return None, f"read back from {where} failed: {e}"
    if got is None:
        return None, f"read back from {where}: no key at revision {revision}"
    return got, f"read back from {where}: mod_revision {got}"


def linked_trace(hops: Sequence[Mapping[str, Any]], raft: RaftCluster, *, settle_seconds: float = 0.05,
                 etcd: Any = None) -> list[dict]:
    """The apply's hops with every write put through ``raft`` and the Raft hops inserted after it.

    Parameters
    ----------
    hops : sequence of dict
        :func:`kubenotes.sim.trace.apply_hops`'s answer.
    raft : RaftCluster
        A cluster with a leader (run it first); its clock advances ``settle_seconds`` per write.
    settle_seconds : float
        Virtual time given to each write to commit and apply.
    etcd : storage.Interface, optional
        The storage backend the cluster's API server wrote to (``cluster.server.store.storage``: an
        :class:`~kubenotes.apiserver.storage.etcd3.EtcdStorage` when it ran with ``etcd=URL``); only its
        ``get_list(prefix, revision)`` and ``url`` are used. Each write's key is read at the write's
        revision and its ``mod_revision`` reported. None: nothing is read back.

    Returns
    -------
    list[dict]
        ``{"step", "time", "from", "to", "what", "raft_index", "raft_term", "revision", "etcd_revision",
        "etcd_read"}`` per hop: the original hops (watch hops get the index and revision of the write they
        deliver) and, after each write to etcd, three Raft hops: ``etcd -> leader mX`` (``MsgProp``: appended at
        index I in term T), ``leader -> followers`` (``MsgApp``; committed by a quorum, naming who acknowledged
        and after how many ms) and ``leader -> etcd`` (applied: revision R, returned as resourceVersion R).
        With ``etcd``, each write's hop and its ``applied`` hop carry ``etcd_revision`` (the key's mod_revision
        read back at revision R; for a delete, R when the key is absent at R and present at R - 1; None when
        the read found otherwise or failed) and ``etcd_read`` (what the read found, in words; the ``applied``
        hop's ``what`` ends with it). Without ``etcd`` both are None.

    Raises
    ------
    ValueError
        When ``raft`` has no leader, or a write does not commit within ``settle_seconds`` (no quorum).

    Notes
    -----
    A read-back failure (etcd gone, the revision compacted) does not raise: ``etcd_read`` says what failed.

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
               "raft_index": None, "raft_term": None, "revision": None, "etcd_revision": None, "etcd_read": None}
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
        back: dict[str, Any] = {}
        if etcd is not None:
            got, text = _read_back(etcd, key, rv, deleted=" DELETED " in f" {h['what']}")
            back = {"etcd_revision": got, "etcd_read": text}
        add(h, revision=rv, **back)
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
             "what": f"applied index {req.index}: revision {rv} of {key}, returned as resourceVersion {rv}"
                     + (f"; {back['etcd_read']}" if back else "")},
            raft_index=req.index, raft_term=req.term, revision=rv, **back)
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
        resourceVersion, the watch event, the informer (component) it woke, and that component's next write;
        when the rows were read back from a real etcd, ``etcd mod_revision`` (what the read found) follows
        ``etcd revision``. Links that did not happen (nobody watched) are left out; ``[]`` when ``rows`` holds
        no write.

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
    if first.get("etcd_read"):
        out.append({"link": "etcd mod_revision", "value": "-" if first["etcd_revision"] is None
                    else str(first["etcd_revision"]), "where": first["etcd_read"]})
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
