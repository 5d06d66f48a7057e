"""Per-node numpy arrays over a snapshot, and the memos of the fast path.

kubenotes only: upstream has no counterpart. :class:`SnapshotArrays` keeps,
per snapshot node, the totals of
:class:`~kubenotes.scheduler.framework.node_info.NodeInfo` (allocatable,
requested, non-zero requested, pod and host-port counts...) and is told by
``NodeInfo`` whenever a pod is added or removed, so the arrays always equal
the NodeInfos; node-only facts (labels, taints, images) are grouped into
classes of identical nodes, so a fast form can run a plugin's per-node code
once per class. :func:`snapshot_arrays` is how a plugin's PreFilter or
PreScore asks for them; :class:`PodMemo` and :func:`pod_spec_key` key what the
per-snapshot indexes and the fast forms remember.

The batch scheduling path (:mod:`kubenotes.scheduler.batch`) and the fast
forms of the plugins (:mod:`kubenotes.scheduler.fast`) read these arrays.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/backend/cache/snapshot.go (the snapshot these arrays mirror)
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Mapping

import msgspec
import numpy as np

from kubenotes.scheduler.framework.interface import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo

__all__ = ["SnapshotArrays", "PodMemo", "snapshot_arrays", "pod_spec_key"]

_I64 = np.int64
_NO_ROWS = np.zeros(0, dtype=_I64)
_UNKNOWN = object()
_NO_ROWS.flags.writeable = False
_BATCH_HOOK = operator.attrgetter("batch_hook")


class SnapshotArrays:
    """Per-node numpy arrays over a snapshot's nodes, kept equal to the NodeInfos.

    Parameters
    ----------
    node_infos : list[NodeInfo]
        The snapshot's nodes, in snapshot order (index ``i`` is ``node_infos[i]``).
    counts : Mapping[str, object], optional
        Plugin ``NAME`` -> its whole-snapshot counts (``SNAPSHOT_COUNTS`` of
        :mod:`kubenotes.scheduler.fast.registry`, which the snapshot passes):
        what a plugin's PreFilter or PreScore asks through :meth:`counts_of`
        to count over these arrays instead of walking every pod.

    Attributes
    ----------
    node_infos : list[NodeInfo]
    index : dict[str, int]
        Node name -> index.
    alloc_milli_cpu, alloc_memory_bytes, alloc_ephemeral_storage_bytes, allowed_pod_number : numpy.ndarray
        ``NodeInfo.allocatable``, int64 of shape (n,).
    requested_milli_cpu, requested_memory_bytes, requested_ephemeral_storage_bytes : numpy.ndarray
        ``NodeInfo.requested``.
    non_zero_milli_cpu, non_zero_memory_bytes : numpy.ndarray
        ``NodeInfo.non_zero_requested``.
    num_pods, num_used_ports, num_pods_with_affinity, num_pods_with_required_anti_affinity : numpy.ndarray
        Lengths of ``pods``, ``used_ports``, ``pods_with_affinity`` and
        ``pods_with_required_anti_affinity``.
    total_pods : int
        The sum of :attr:`num_pods`.
    arange, arange_twice : numpy.ndarray
        ``0 .. n-1``, and that twice over (so any rotation is a slice); read-only.
    pod_generation : numpy.ndarray
        Bumped on every pod added to or removed from the node, so per-node
        pod counts kept by plugins know which rows to redo.
    changes : int
        How many node refreshes so far; :meth:`rows_changed_since` tells
        which nodes changed after a given count (usually one: the node the
        last pod was placed on), without comparing every node's generation.

    Notes
    -----
    Each NodeInfo gets a ``batch_hook`` back to these arrays; ``NodeInfo``
    calls :meth:`refresh` after every ``add_pod``/``remove_pod``. Node
    objects (labels, taints, images) never change in a snapshot, so their
    classes are computed once.

    Examples
    --------
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_node, make_pod
    >>> snap = new_snapshot([make_node("n1"), make_node("n2")], [])
    >>> arr = snap.arrays()
    >>> snap.add_pod(PodInfo(make_pod("p", requests={"cpu": "500m"}, node_name="n2")), "n2")
    >>> arr.requested_milli_cpu.tolist(), arr.num_pods.tolist()
    ([0, 500], [0, 1])
    """

    _ROW_FIELDS = (
        "requested_milli_cpu", "requested_memory_bytes", "requested_ephemeral_storage_bytes",
        "non_zero_milli_cpu", "non_zero_memory_bytes", "num_pods", "num_used_ports",
        "num_pods_with_affinity", "num_pods_with_required_anti_affinity",
    )

    def __init__(self, node_infos: list["NodeInfo"], counts: Mapping[str, Any] | None = None):
        self.node_infos = node_infos
        self._counts = counts if counts is not None else {}
        self._node_info_objects = np.empty(len(node_infos), dtype=object)
        self._node_info_objects[:] = node_infos
        n = len(node_infos)
        self.index = {ni.name: i for i, ni in enumerate(node_infos)}
        self.alloc_milli_cpu = np.array([ni.allocatable.milli_cpu for ni in node_infos], dtype=_I64)
        self.alloc_memory_bytes = np.array([ni.allocatable.memory_bytes for ni in node_infos], dtype=_I64)
        self.alloc_ephemeral_storage_bytes = np.array(
            [ni.allocatable.ephemeral_storage_bytes for ni in node_infos], dtype=_I64)
        self.allowed_pod_number = np.array([ni.allocatable.allowed_pod_number for ni in node_infos], dtype=_I64)
        for f in self._ROW_FIELDS:
            setattr(self, f, np.zeros(n, dtype=_I64))
        self.pod_generation = np.zeros(n, dtype=_I64)
        self.total_pods = 0
        self._scalars: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._label_values: dict[str, tuple[np.ndarray, dict[str, int]]] = {}
        self._label_everywhere: dict[str, bool] = {}
        self._classes: dict[Hashable, tuple[np.ndarray, list[int]]] = {}
        self._class_tables: dict[Hashable, np.ndarray] = {}
        self._node_object_memos: dict[Hashable, np.ndarray] = {}
        self._uniform: dict[Hashable, int | None] = {}
        self.arange = np.arange(n, dtype=_I64)
        self.arange_twice = np.concatenate((self.arange, self.arange))
        self.arange.flags.writeable = self.arange_twice.flags.writeable = False
        self._indices_memo: tuple[list["NodeInfo"], int, np.ndarray] | None = None
        #: ``ge_nominated_positions``' per-priority node flags, for one nominator version.
        self.nominated_flags: dict[Any, Any] = {}
        self._row_memos: dict[Hashable, list[Any]] = {}
        self._change_log: list[int] = []  # node index per refresh, oldest first
        self._change_base = 0             # refreshes dropped from the front of the log
        self._rows_since: dict[int, np.ndarray] = {}  # rows_changed_since's answers while no refresh comes
        self._rows_since_at = -1                         # ... at this many changes
        for i, ni in enumerate(node_infos):
            self.refresh(i)
            ni.batch_hook = (self, i)

    @property
    def changes(self) -> int:
        """Node refreshes so far (a position for :meth:`rows_changed_since`)."""
        return self._change_base + len(self._change_log)

    #: The change log keeps at least this many refreshes, and at least four per node.
    MIN_CHANGE_LOG = 4096
    #: Up to this many refreshes, :meth:`rows_changed_since` sorts them in Python (np.unique beyond).
    FEW_CHANGES = 64

    def rows_changed_since(self, changes: int | None) -> np.ndarray | None:
        """Sorted indices (int64, read-only) of the nodes refreshed after :attr:`changes` was ``changes``.

        None when ``changes`` is None or older than the log still reaches:
        the caller then treats every node as changed.
        """
        if changes is None:
            return None
        start = changes - self._change_base
        if start < 0:
            return None
        log = self._change_log
        if start >= len(log):
            return _NO_ROWS
        # The per-node memos and indexes of one cycle mostly ask from the same mark: answered once per mark
        # until the next refresh (read-only arrays).
        now = self._change_base + len(log)
        got = self._rows_since.get(changes) if self._rows_since_at == now else None
        if got is not None:
            return got
        if self._rows_since_at != now:
            self._rows_since.clear()
            self._rows_since_at = now
        if start == len(log) - 1:
            got = np.array(log[start:], dtype=_I64)
        elif len(log) - start <= self.FEW_CHANGES:  # sorting a few in Python costs less than np.unique
            got = np.array(sorted(set(log[start:])), dtype=_I64)
        else:
            got = np.unique(np.array(log[start:], dtype=_I64))
        got.flags.writeable = False
        self._rows_since[changes] = got
        return got

    def counts_of(self, name: str) -> Any:
        """The whole-snapshot counts of the plugin named ``name``, or None (the plugin then walks the pods).

        Parameters
        ----------
        name : str
            A plugin ``NAME``.

        Returns
        -------
        object or None
            Its entry of the ``counts`` these arrays were built with.
        """
        return self._counts.get(name)

    def __len__(self) -> int:
        return len(self.node_infos)

    def indices_of(self, nodes: list["NodeInfo"]) -> np.ndarray | None:
        """Snapshot index of each of ``nodes`` (int64), or None when one is not one of these arrays' NodeInfos.

        Read from each NodeInfo's ``batch_hook``. The list last given to
        :meth:`remember_indices` (the scheduler's feasible nodes) is answered
        from memory, so PreScore and Score plugins that all ask for the same
        list pay for it once.
        """
        memo = self._indices_memo
        if memo is not None and memo[0] is nodes and memo[1] == len(nodes):
            return memo[2]
        if not nodes:
            return np.zeros(0, dtype=_I64)
        hooks = list(map(_BATCH_HOOK, nodes))
        if hooks.count(None):
            return None
        owners, pos = zip(*hooks)
        if owners.count(self) != len(owners):
            return None
        return np.array(pos, dtype=_I64)

    def changed_rows(self, mark: int | None, seen: np.ndarray) -> tuple[np.ndarray, int]:
        """The nodes an index of per-node counts must redo, and its next ``mark``.

        For indexes that keep ``seen`` (their copy of :attr:`pod_generation`)
        and a ``mark`` (:attr:`changes` at their last look, None at first):
        the nodes refreshed since ``mark`` (:meth:`rows_changed_since`), or,
        when the log no longer reaches back, every node whose generation
        differs from ``seen``. ``seen`` is brought up to date for them.

        Returns
        -------
        (numpy.ndarray, int)
            Sorted node indices (int64), and :attr:`changes` now.
        """
        stale = self.rows_changed_since(mark)
        gen = self.pod_generation
        if stale is None:
            stale = np.flatnonzero(seen != gen)
        if len(stale):
            seen[stale] = gen[stale]
        return stale, self.changes

    def node_infos_at(self, idx: np.ndarray) -> list["NodeInfo"]:
        """The NodeInfos at snapshot indices ``idx``, as a new list (one numpy gather)."""
        return self._node_info_objects[idx].tolist()

    def remember_indices(self, nodes: list["NodeInfo"], idx: np.ndarray) -> None:
        """Let :meth:`indices_of` answer ``nodes`` with ``idx`` (until the next call); ``nodes`` must not change."""
        self._indices_memo = (nodes, len(nodes), idx)

    #: How many :meth:`per_node_memo` keys are kept (least recently used out).
    MAX_ROW_MEMOS = 256
    #: Up to this many changed nodes, a :meth:`per_node_memo` ``compute`` may run its plugin's per-node code.
    FEW_ROWS = 4

    def per_node_memo(self, key: Hashable, compute: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``compute(rows)`` for every node, kept per ``key``; only nodes whose pods changed since are recomputed.

        Parameters
        ----------
        key : hashable
            Names the computation and everything it reads besides the nodes
            (a scorer and the pod's requests, say).
        compute : callable
            Node indices (int64) -> one value per index. It may read only
            what these arrays hold per node: their pods' totals (which
            :meth:`refresh` marks in :attr:`pod_generation`) and the node
            objects (which never change in a snapshot).

        Returns
        -------
        numpy.ndarray
            One value per snapshot node; read-only for the caller.
        """
        memos = self._row_memos
        got = memos.pop(key, None)
        stale = self.rows_changed_since(got[1] if got is not None else None)
        if stale is None:
            if got is None and len(memos) >= self.MAX_ROW_MEMOS:
                del memos[next(iter(memos))]
            got = [compute(self.arange), self.changes]
        else:
            if len(stale):
                got[0][stale] = compute(stale)
            got[1] = self.changes
        memos[key] = got  # most recently used last
        return got[0]

    # ------------------------------------------------------------ dynamic
    def refresh(self, i: int) -> None:
        """Copy node ``i``'s totals from its NodeInfo (called by ``NodeInfo`` on every change)."""
        ni = self.node_infos[i]
        self.pod_generation[i] += 1
        log = self._change_log
        log.append(i)
        if len(log) > 2 * max(self.MIN_CHANGE_LOG, 4 * len(self.node_infos)):
            half = len(log) // 2
            del log[:half]
            self._change_base += half
        req, nz = ni.requested, ni.non_zero_requested
        self.requested_milli_cpu[i] = req.milli_cpu
        self.requested_memory_bytes[i] = req.memory_bytes
        self.requested_ephemeral_storage_bytes[i] = req.ephemeral_storage_bytes
        self.non_zero_milli_cpu[i] = nz.milli_cpu
        self.non_zero_memory_bytes[i] = nz.memory_bytes
        num_pods = len(ni.pods)
        self.total_pods += num_pods - int(self.num_pods[i])
        self.num_pods[i] = num_pods
        self.num_used_ports[i] = len(ni.used_ports)
        self.num_pods_with_affinity[i] = len(ni.pods_with_affinity)
        self.num_pods_with_required_anti_affinity[i] = len(ni.pods_with_required_anti_affinity)
        for name, (_alloc, used) in self._scalars.items():
            used[i] = req.scalar_resources.get(name, 0)

    def scalar(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(allocatable, requested)`` of a scalar resource (0 where the node has none), tracked from now on."""
        got = self._scalars.get(name)
        if got is None:
            alloc = np.array([ni.allocatable.scalar_resources.get(name, 0) for ni in self.node_infos], dtype=_I64)
            used = np.array([ni.requested.scalar_resources.get(name, 0) for ni in self.node_infos], dtype=_I64)
            got = self._scalars[name] = (alloc, used)
        return got

    def nodes_with(self, counts: np.ndarray) -> list["NodeInfo"]:
        """NodeInfos (snapshot order) whose entry in ``counts`` is non-zero."""
        infos = self.node_infos
        return [infos[i] for i in np.flatnonzero(counts).tolist()]

    # ------------------------------------------------------------- static
    def label_values(self, key: str) -> tuple[np.ndarray, dict[str, int]]:
        """Per node, the id of its value for label ``key`` (-1 when absent), and value -> id."""
        got = self._label_values.get(key)
        if got is None:
            vocab: dict[str, int] = {}
            ids = np.array([vocab.setdefault(ni.labels[key], len(vocab)) if key in ni.labels else -1
                            for ni in self.node_infos], dtype=_I64)
            got = self._label_values[key] = (ids, vocab)
        return got

    def label_on_every_node(self, key: str) -> bool:
        """Whether every node has label ``key`` (:meth:`label_values` has no -1)."""
        got = self._label_everywhere.get(key)
        if got is None:
            got = self._label_everywhere[key] = bool((self.label_values(key)[0] >= 0).all())
        return got

    def classes(self, name: Hashable, key_of: Callable[["NodeInfo"], Hashable]) -> tuple[np.ndarray, list[int]]:
        """Group nodes by ``key_of(node_info)`` (cached under ``name``: node facts never change).

        Returns
        -------
        (numpy.ndarray, list[int])
            Class id per node, and one representative node index per class.
        """
        got = self._classes.get(name)
        if got is None:
            ids: dict[Hashable, int] = {}
            reps: list[int] = []
            cls = []
            for i, ni in enumerate(self.node_infos):
                k = key_of(ni)
                c = ids.get(k)
                if c is None:
                    c = ids[k] = len(reps)
                    reps.append(i)
                cls.append(c)
            got = self._classes[name] = (np.array(cls, dtype=_I64), reps)
        return got

    def eval_by_class(self, classes: tuple[np.ndarray, list[int]], idx: np.ndarray,
                      fn: Callable[["NodeInfo"], Any]) -> tuple[list[Any], np.ndarray]:
        """``fn`` on one representative node per class present in ``idx``.

        Returns
        -------
        (list, numpy.ndarray)
            Results per class (None for classes not evaluated) and the class
            id of each ``idx`` entry.
        """
        cls, reps = classes
        c = cls[idx]
        infos = self.node_infos
        if len(reps) <= 4 or len(reps) <= len(idx) // 4:
            present: Iterable[int] = range(len(reps))
        else:
            present = np.unique(c).tolist()
        out: list[Any] = [None] * len(reps)
        for k in present:
            out[k] = fn(infos[reps[k]])
        return out, c

    #: How many :meth:`filter_by_class` / :meth:`score_by_class` tables are kept per ``memo_key``.
    MAX_CLASS_TABLES = 1024

    def _class_table(self, classes: tuple[np.ndarray, list[int]], idx: np.ndarray, fn: Callable[["NodeInfo"], Any],
                     memo_key: Hashable | None, to_table: Callable[[list[Any]], np.ndarray | None]
                     ) -> tuple[np.ndarray | None, np.ndarray]:
        """One value per class (``to_table`` of ``fn``'s results) and the class of each ``idx`` entry.

        With ``memo_key`` every class is evaluated once and the table kept
        under that key (node objects never change); without it only the
        classes present in ``idx`` are.
        """
        cls, reps = classes
        if memo_key is None:
            results, c = self.eval_by_class(classes, idx, fn)
            return to_table(results), c
        table = self._class_tables.get(memo_key)
        if table is None:
            infos = self.node_infos
            table = to_table([fn(infos[r]) for r in reps])
            if table is not None:
                if len(self._class_tables) >= self.MAX_CLASS_TABLES:
                    self._class_tables.clear()
                self._class_tables[memo_key] = table
        return table, cls[idx]

    def filter_by_class(self, classes: tuple[np.ndarray, list[int]], idx: np.ndarray,
                        filter_fn: Callable[["NodeInfo"], Status | None], memo_key: Hashable | None = None
                        ) -> np.ndarray | None:
        """Pass mask over ``idx`` from a Filter that depends only on the class; None on an Error status.

        ``memo_key``, when given, names everything ``filter_fn`` reads besides
        the node object (the plugin, the classes, the pod's fields it reads),
        so the verdict per class is kept between cycles.
        """
        cls, reps = classes
        if len(reps) == 1 and memo_key is None:  # one kind of node (no taints, say): one verdict for all
            s = filter_fn(self.node_infos[reps[0]])
            if s is None or s.code == Code.SUCCESS:
                return np.ones(len(idx), dtype=bool)
            return np.zeros(len(idx), dtype=bool) if s.is_rejected() else None
        table, c = self._class_table(classes, idx, filter_fn, memo_key, _pass_table)
        return None if table is None else table[c]

    def score_by_class(self, classes: tuple[np.ndarray, list[int]], idx: np.ndarray,
                       score_fn: Callable[["NodeInfo"], tuple[int, Status | None]], memo_key: Hashable | None = None
                       ) -> np.ndarray | None:
        """Scores over ``idx`` from a Score that depends only on the class; None on a failed status.

        ``memo_key`` as for :meth:`filter_by_class`.
        """
        table, c = self._class_table(classes, idx, score_fn, memo_key, _score_table)
        return None if table is None else table[c]

    def uniform_by_class(self, classes: tuple[np.ndarray, list[int]],
                         score_fn: Callable[["NodeInfo"], tuple[int, Status | None]], memo_key: Hashable) -> int | None:
        """The score every node gets from a Score that depends only on the class, if it is one for all; else None.

        Evaluates and keeps the table as :meth:`score_by_class` does with
        ``memo_key``; None also on a failed status.
        """
        got = self._uniform.get(memo_key, _UNKNOWN)
        if got is _UNKNOWN:
            table, _c = self._class_table(classes, _NO_ROWS, score_fn, memo_key, _score_table)
            got = None
            if table is not None and len(table) and (table == table[0]).all():
                got = int(table[0])
            if len(self._uniform) >= self.MAX_CLASS_TABLES:
                self._uniform.clear()
            self._uniform[memo_key] = got
        return got

    def mask_by_class(self, classes: tuple[np.ndarray, list[int]], fn: Callable[["NodeInfo"], Any],
                      memo_key: Hashable | None = None) -> np.ndarray:
        """``bool(fn(node))`` for every snapshot node, evaluated once per class.

        With ``memo_key`` (as for :meth:`filter_by_class`) the mask is kept
        and returned read-only.
        """
        cls, reps = classes
        infos = self.node_infos
        compute = lambda: np.array([bool(fn(infos[r])) for r in reps], dtype=bool)[cls]  # noqa: E731
        return compute() if memo_key is None else self.node_object_memo(memo_key, compute)

    def node_object_memo(self, key: Hashable, compute: Callable[[], np.ndarray | None]) -> np.ndarray | None:
        """``compute()``, one value per snapshot node, kept read-only under ``key``.

        For values that read only the node objects, which never change in a
        snapshot, and what ``key`` names. A None result is not kept.
        """
        got = self._node_object_memos.get(key)
        if got is None:
            got = compute()
            if got is not None:
                got.flags.writeable = False
                if len(self._node_object_memos) >= self.MAX_CLASS_TABLES:
                    self._node_object_memos.clear()
                self._node_object_memos[key] = got
        return got


def _pass_table(results: list[Status | None]) -> np.ndarray | None:
    """Filter statuses per class -> pass flags (a class not evaluated passes); None on an Error."""
    table = np.zeros(len(results), dtype=bool)
    for k, s in enumerate(results):
        if s is None or s.code == Code.SUCCESS:
            table[k] = True
        elif not s.is_rejected():
            return None
    return table


def _score_table(results: list[tuple[int, Status | None] | None]) -> np.ndarray | None:
    """``(score, status)`` per class -> scores (0 for a class not evaluated); None on a failed status."""
    table = np.zeros(len(results), dtype=_I64)
    for k, r in enumerate(results):
        if r is None:
            continue
        sc, s = r
        if s is not None and s.code != Code.SUCCESS:
            return None
        table[k] = int(sc)
    return table


def pod_spec_key(pod: "PodInfo", fields: Iterable[str]) -> bytes:
    """The values of the ``spec`` fields ``fields`` of ``pod``, encoded: equal for pods equal in them.

    For memo keys of plugins that read only these fields of the pod (their
    ``filter_reads_pod_spec``).

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_pod
    >>> a, b = PodInfo(make_pod("a", nodeSelector={"disk": "ssd"})), PodInfo(make_pod("b", nodeSelector={"disk": "ssd"}))
    >>> pod_spec_key(a, ["nodeSelector"]) == pod_spec_key(b, ["nodeSelector"]), pod_spec_key(a, ["nodeSelector"])
    (True, b'[{"disk":"ssd"}]')
    """
    spec = pod.pod.spec
    return msgspec.json.encode([getattr(spec, f) for f in fields])


class PodMemo:
    """A value remembered per PodInfo object, for the per-node pod indexes of the batch plugins.

    Kept by identity: a PodInfo's labels and namespace never change, so a
    value derived from them (its label class) stays right for that object;
    a pod updated in the snapshot is a new PodInfo and is looked at again.
    Pods that left are forgotten in bulk: :meth:`trim` clears the memo once it
    holds more than four times the pods on the nodes (plus 4,096).

    Examples
    --------
    >>> from kubenotes.scheduler.framework.node_info import PodInfo
    >>> from kubenotes.scheduler.testing import make_pod
    >>> memo, p = PodMemo(), PodInfo(make_pod("p"))
    >>> memo.put(p, 7); memo.get(p), memo.get(PodInfo(make_pod("p")))
    (7, None)
    """

    __slots__ = ("_values", "_limit")

    def __init__(self) -> None:
        self._values: dict[int, tuple[Any, Any]] = {}
        self._limit = 4096

    def get(self, pod: Any) -> Any:
        """The value put for this very object, or None."""
        got = self._values.get(id(pod))
        return got[1] if got is not None and got[0] is pod else None

    def put(self, pod: Any, value: Any) -> None:
        """Remember ``value`` (not None) for ``pod``."""
        self._values[id(pod)] = (pod, value)

    def trim(self, pods_on_nodes: int) -> None:
        """Forget everything when the memo has grown well past ``pods_on_nodes``."""
        if len(self._values) > self._limit:
            self._limit = 4 * pods_on_nodes + 4096
            if len(self._values) > self._limit:
                self._values.clear()


def snapshot_arrays(snapshot: Any, nodes: Any) -> Any:
    """The snapshot's :class:`SnapshotArrays` when ``nodes`` is its node list, else None.

    Plugins with a batch form ask for the arrays this way: a list other than
    the snapshot's own (a preemption copy, a test's list) gets the per-node path.

    Examples
    --------
    >>> from kubenotes.scheduler.snapshot import new_snapshot
    >>> from kubenotes.scheduler.testing import make_node
    >>> snap = new_snapshot([make_node("n1")], [])
    >>> snapshot_arrays(snap, snap.list()) is snap.arrays(), snapshot_arrays(snap, list(snap.list()))
    (True, None)
    """
    arrays_fn = getattr(snapshot, "arrays", None)
    if arrays_fn is None or not nodes:
        return None
    arrays = arrays_fn()
    return arrays if arrays.node_infos is nodes else None
