"""DefaultPreemption's speed path: the dry run's memo of victims per node, and the steps on resource totals.

kubenotes only, behind the wall of :mod:`kubenotes.scheduler.fast`: upstream's
``SelectVictimsOnNode`` (:meth:`~kubenotes.scheduler.plugins.defaultpreemption.
default_preemption.DefaultPreemption.select_victims_on_node`) runs the
full Filter plugins on a copy of the node for every candidate node of every
dry run. When the Filters that run read only what can be keyed (the node
object, its resource totals, or what a plugin signs), this module

* remembers each node's victims and reuses them while nothing they read
  changed (:class:`VictimsMemo`), and
* runs the same remove/re-add steps on a
  :class:`~kubenotes.scheduler.framework.node_info.RequestsLedger` (totals
  and a pod count) instead of a full NodeInfo (:meth:`VictimsMemo.ledger_steps`).

The victims and statuses are the same as the full steps give:
tests/scheduler/plugins/test_defaultpreemption.py runs upstream's cases and
whole clusters both ways.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (SelectVictimsOnNode)
kubernetes/kubernetes@v1.34.0 pkg/scheduler/framework/preemption/preemption.go (DryRunPreemption)
"""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from kubenotes.scheduler.arrays import pod_spec_key
from kubenotes.scheduler.batch import plugin_plan, requests_decide as _requests_decide
from kubenotes.scheduler.fast.registry import fast_forms
from kubenotes.scheduler.framework.interface import Code, Status
from kubenotes.scheduler.framework.node_info import NodeInfo, PodInfo, RequestsLedger

__all__ = ["VictimsMemo"]


class VictimsMemo:
    """One DefaultPreemption plugin's memo of dry-run victims, and its ledger path.

    Parameters
    ----------
    plugin : DefaultPreemption
        The plugin whose ``handle``, hooks (``is_eligible_pod``,
        ``more_important_pod``) and ``select_victims_on_node`` this uses.

    Attributes
    ----------
    memo : dict
        Preemptor key -> node key -> (node_info, generation, nominated pods, result).
    entries : int
        Results held in :attr:`memo`, across all preemptor keys.
    dry_run_of : tuple or None
        The dry run under way: (pod, state, its preemptor key or None, that key's memo, the plugins signing
        each node or None, the PDBs, the nominator's node -> pods map or None).
    """

    #: Remembered dry-run results beyond which the memo starts afresh.
    ENTRIES = 1 << 17

    def __init__(self, plugin: Any):
        self.plugin = plugin
        self.memo: dict[tuple[Any, ...], dict[Any, tuple[Any, ...]]] = {}
        self.entries = 0
        self.dry_run_of: tuple[Any, ...] | None = None

    def ledger_steps(self, state: Any, pod: PodInfo, node_info: NodeInfo
                     ) -> tuple[Any, Callable[[PodInfo], Status | None], Callable[[PodInfo], Status | None],
                                Callable[[], bool]] | None:
        """``SelectVictimsOnNode``'s remove / re-add / fits steps on resource totals, when they decide the same.

        When every Filter that runs for ``pod`` reads the node object
        (``filter_ignores_node_pods``) or resource totals
        (``filter_reads_requests_only``) and no PreFilter extension runs, the
        steps run on a :class:`RequestsLedger` (totals and a pod count), kept
        beside the node with the nominated pods added
        (``RunFilterPluginsWithNominatedPods``' first pass), and a reprieve
        asks only the totals Filters again.

        Parameters
        ----------
        state : CycleState
        pod : PodInfo
            The preemptor.
        node_info : NodeInfo
            The node (a copy the caller may change).

        Returns
        -------
        (RequestsLedger, remove, add, fits) or None
            The ledger standing for ``node_info`` and the three steps; None
            when the full steps must run.
        """
        h = self.plugin.handle
        totals_filters = self.totals_filters(h, state)
        if totals_filters is None:
            return None
        ledger = RequestsLedger(node_info)
        ledgers = [ledger]
        nominated = h.ge_nominated_pods(pod, ledger.name)
        if nominated:
            with_nominated = ledger.clone()
            for pi in nominated:
                with_nominated.add_pod(pi)
            ledgers.insert(0, with_nominated)  # RunFilterPluginsWithNominatedPods' first pass

        def remove(p: PodInfo) -> Status | None:
            for one in ledgers:
                one.remove_pod(p)
            return None

        def add(p: PodInfo) -> Status | None:
            for one in ledgers:
                one.add_pod(p)
            return None

        def fits() -> bool:
            for one in ledgers:
                for f in totals_filters:
                    s = f(state, pod, one)
                    if s is not None and s.code != Code.SUCCESS:
                        return False
            return True

        return ledger, remove, add, fits

    def totals_filters(self, handle: Any, state: Any) -> list[Callable[..., Any]] | None:
        """The ``filter`` of each Filter reading resource totals, or None.

        See :func:`~kubenotes.scheduler.batch.requests_decide`.

        The same for every node of one dry run (the per-node states are
        copies with the same skipped plugins), so it is kept per set of
        skipped plugins (:func:`~kubenotes.scheduler.batch.plugin_plan`).
        """
        if state is None:
            return None
        return plugin_plan(handle, "preemption totals filters", state.skip_filter_plugins, _totals_filters_of, state)

    def node_signers(self, handle: Any, state: Any) -> list[Any] | None:
        """The fast forms of the Filter plugins that read a node's pods, when each can sign what it reads.

        Every Filter that runs must read only the node object or resource
        totals, or have ``filter_node_signature``; and every PreFilter plugin
        with extensions that runs must be one of those signing (its
        ``AddPod``/``RemovePod`` change only what its signature covers).
        None otherwise, or when no plugin signs (the ledger path is then the
        one to take). Kept per set of skipped plugins, as
        :meth:`totals_filters`.
        """
        return plugin_plan(handle, "preemption node signers", state.skip_filter_plugins, _signing_plugins, state)

    def select_victims_on_copy(self, state: Any, pod: PodInfo, node_info: NodeInfo, pdbs: list[Any]
                               ) -> tuple[list[PodInfo], int, Status]:
        """:meth:`DefaultPreemption.select_victims_on_node` on copies of ``state`` and ``node_info`` (one node of ``DryRunPreemption``).

        kubenotes only. On the ledger path (see :meth:`DefaultPreemption.select_victims_on_node`)
        neither argument is modified, so no copies are made, and the result is
        remembered per node. It is reused while all of these hold:

        * the node's :class:`NodeInfo` is the same object at the same
          ``generation`` (no pod added or removed since);
        * the pods of at least the preemptor's priority nominated there are
          the same objects;
        * the preemptor has the same priority and reads the same to every
          Filter that runs (:meth:`signature`), and the same Filter plugins
          are skipped;
        * no PodDisruptionBudget is listed, and :attr:`is_eligible_pod` and
          :attr:`more_important_pod` are the defaults.

        On that path every Filter's verdict reads only the node object, the
        resource totals and pod count of the node, and what the plugin
        declares it reads of the pod (its requests, or the ``spec`` fields
        of ``filter_reads_pod_spec``, from which its PreFilter state also
        comes); so equal keys give equal victims and statuses. Preemptors
        asking for the same resources visit the same unchanged nodes again
        and again.

        The memo also serves dry runs off the ledger path when the Filters
        that read the node's pods can each sign, per node, what they read of
        the PreFilter state (``filter_state_signature`` once per dry run,
        ``filter_node_signature`` per node: InterPodAffinity's counts at the
        node's topology pairs, which its ``RemovePod``/``AddPod`` change only
        from the pods of that node) and no other PreFilter extension runs.
        The node key then holds those signatures too, and a miss runs
        :meth:`DefaultPreemption.select_victims_on_node` on copies.

        Returns
        -------
        (list[PodInfo], int, Status)
            As :meth:`DefaultPreemption.select_victims_on_node`; the list and the status are the
            caller's to keep.
        """
        got = self.dry_run_of
        if got is not None and got[0] is pod and got[1] is state and got[5] is pdbs:
            head, memo, signers, nominations = got[2], got[3], got[4], got[6]
        else:  # once per dry run: which memo path applies, and the preemptor's part of the key
            head = memo = signers = None
            # node name -> nominated pods (read live; only its keys are looked at), if the nominator shows it
            nominations = getattr(getattr(self.plugin.handle, "nominator", None), "nominated_pods", None)
            default_hooks = (self.plugin.is_eligible_pod, self.plugin.more_important_pod) == self.plugin._default_hooks
            if state is not None and not pdbs and default_hooks:
                if self.totals_filters(self.plugin.handle, state) is not None:
                    head = (self.signature(pod, state), frozenset(state.skip_filter_plugins))
                else:
                    signers = self.node_signers(self.plugin.handle, state)
                    if signers:
                        head = (self.signature(pod, state), frozenset(state.skip_filter_plugins),
                                tuple(pl.filter_state_signature(state, pod) for pl in signers))
                        if None in head[2]:
                            head = signers = None
                if head is not None:
                    memo = self.memo.get(head)
                    if memo is None:
                        memo = self.memo[head] = {}
            self.dry_run_of = (pod, state, head, memo, signers, pdbs, nominations)
        if head is None:
            return self.plugin.select_victims_on_node(state.clone() if state is not None else None, pod, node_info.clone(), pdbs)
        if nominations is not None and node_info.name not in nominations:
            nominated: tuple[PodInfo, ...] = ()
        else:
            nominated = tuple(self.plugin.handle.ge_nominated_pods(pod, node_info.name))
        key: Any = (node_info.name, tuple(p.uid for p in nominated)) if nominated else node_info.name
        if signers:
            key = (key, tuple(pl.filter_node_signature(state, pod, node_info) for pl in signers))
        got = memo.get(key)
        if got is not None and got[0] is node_info and got[1] == node_info.generation \
                and all(a is b for a, b in zip(got[2], nominated)):
            victims, num_violating, status = got[3]
        else:
            # On the signed path the full steps change the state and the node: on copies.
            victims, num_violating, status = self.plugin.select_victims_on_node(
                state.clone() if signers else state, pod, node_info.clone() if signers else node_info, pdbs)
            if self.entries >= self.ENTRIES:
                self.memo.clear()
                self.entries = 0
                memo = self.memo[head] = {}
                self.dry_run_of = (pod, state, head, memo, signers, pdbs, nominations)
            if key not in memo:
                self.entries += 1
            memo[key] = (node_info, node_info.generation, nominated, (victims, num_violating, status))
        return list(victims), num_violating, Status(status.code, list(status.reasons), status.plugin)

    def signature(self, pod: PodInfo, state: Any) -> tuple[Any, ...]:
        """What of ``pod`` the ledger path reads: its priority, and what its Filters read.

        Each Filter that runs declares it: ``filter_reads_requests_only``
        (the pod's requests, :attr:`PodInfo.requests`) or
        ``filter_reads_pod_spec`` (a tuple of ``spec`` field names). Without
        such a declaration the namespace, labels, annotations and whole spec
        stand for the pod.
        """
        spec = pod.pod.spec
        skip = state.skip_filter_plugins
        fields: list[str] = []
        for pl in self.plugin.handle.filter_plugins:
            forms = fast_forms(pl, self.plugin.handle)
            if pl.name() in skip or getattr(forms, "filter_reads_requests_only", False):
                continue
            declared = getattr(forms, "filter_reads_pod_spec", None)
            if declared is None:
                meta = pod.pod.metadata
                sig = (pod.priority, pod.namespace,
                       msgspec.json.encode((meta.labels if meta is not None else None,
                                            meta.annotations if meta is not None else None, spec)))
                break
            fields.extend(f for f in declared if f not in fields)
        else:
            r = pod.requests
            fields.sort()
            sig = (pod.priority, r.milli_cpu, r.memory_bytes, r.ephemeral_storage_bytes,
                   tuple(sorted(r.scalar_resources.items())), tuple(fields), pod_spec_key(pod, fields))
        return sig


def _totals_filters_of(handle: Any, state: Any) -> list[Callable[..., Any]] | None:
    """See :meth:`VictimsMemo.totals_filters`."""
    if not _requests_decide(handle, state):
        return None
    return [pl.filter for pl in handle.filter_plugins
            if getattr(fast_forms(pl, handle), "filter_reads_requests_only", False)
            and pl.name() not in state.skip_filter_plugins]


def _signing_plugins(handle: Any, state: Any) -> list[Any] | None:
    """See :meth:`VictimsMemo.node_signers`."""
    filters, pre_filters = getattr(handle, "filter_plugins", None), getattr(handle, "pre_filter_plugins", None)
    if state is None or filters is None or pre_filters is None:
        return None
    skip = state.skip_filter_plugins
    signers, signing = [], []  # the signers' fast forms, and the plugins they are of
    for pl in filters:
        forms = fast_forms(pl, handle)
        if pl.name() in skip or getattr(forms, "filter_ignores_node_pods", False) \
                or getattr(forms, "filter_reads_requests_only", False):
            continue
        if getattr(forms, "filter_node_signature", None) is None or getattr(forms, "filter_state_signature", None) is None:
            return None
        signers.append(forms)
        signing.append(pl)
    for pl in pre_filters:
        if pl.name() in skip or pl.pre_filter_extensions() is None:
            continue
        if not any(pl is s for s in signing):
            return None
    return signers or None
