"""Tests for kubenotes.scheduler.queue (after backend/queue/scheduling_queue_test.go and nominator tests)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubenotes.scheduler.framework.interface import Code, NominatingInfo, Status
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.plugins.queuesort import PrioritySort
from kubenotes.scheduler.plugins.schedulinggates import SchedulingGates
from kubenotes.scheduler.queue import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    PodNominator,
    SchedulingQueue,
)
from kubenotes.scheduler.testing import make_pod


def pod(name, priority=0, ts=None, **kw):
    return PodInfo(make_pod(name, priority=priority, creation_timestamp=ts, **kw))


def gates(p: PodInfo) -> Status:
    s = SchedulingGates().pre_enqueue(p)
    if not s.is_success():
        s.plugin = "SchedulingGates"
    return s


def new_queue(**kw) -> SchedulingQueue:
    return SchedulingQueue(PrioritySort().less, gates, **kw)


def test_pop_order_priority_then_timestamp():
    q = new_queue()
    q.add(pod("mid-late", 5, "2024-01-01T00:00:10Z"))
    q.add(pod("low", 1, "2024-01-01T00:00:00Z"))
    q.add(pod("high", 10, "2024-01-01T00:00:20Z"))
    q.add(pod("mid-early", 5, "2024-01-01T00:00:05Z"))
    assert [q.pop().pod_info.name for _ in range(4)] == ["high", "mid-early", "mid-late", "low"]
    assert q.pop() is None
    assert q.scheduling_cycle == 4


def test_equal_priority_and_time_keeps_insertion_order():
    q = new_queue()
    for n in "abcde":
        q.add(pod(n))
    assert [q.pop().pod_info.name for _ in range(5)] == list("abcde")


def test_pop_counts_attempts():
    q = new_queue()
    qp = q.add(pod("a"))
    assert q.pop() is qp and qp.attempts == 1
    assert q.add_unschedulable_if_not_present(qp, error=True) == "backoffQ"
    assert q.pop() is qp and qp.attempts == 2


def test_gated_pod_is_kept_out():
    q = new_queue()
    q.add(pod("gated", schedulingGates=[{"name": "example.com/foo"}, {"name": "bar"}]))
    q.add(pod("free"))
    assert q.pop().pod_info.name == "free"
    assert q.pop() is None
    [g] = q.gated_pods()
    assert g.gating_plugin == "SchedulingGates"
    assert g.gating_status.message() == "waiting for scheduling gates: [example.com/foo bar]"
    assert str(g.gating_status.code) == "UnschedulableAndUnresolvable"
    # events never ungate a pod
    q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE)
    assert q.pop() is None


@pytest.mark.parametrize("rejectors, event, want", [
    ({"NodeResourcesFit"}, None, "unschedulablePods"),
    ({"NodeResourcesFit"}, ASSIGNED_POD_DELETE, "backoffQ"),
    ({"NodeResourcesFit"}, ASSIGNED_POD_ADD, "unschedulablePods"),
    ({"InterPodAffinity"}, ASSIGNED_POD_ADD, "backoffQ"),
    ({"TaintToleration"}, ASSIGNED_POD_DELETE, "unschedulablePods"),
    ({"MyOutOfTreePlugin"}, ASSIGNED_POD_ADD, "backoffQ"),
    (set(), None, "unschedulablePods"),
])
def test_requeue_after_failure_depends_on_in_flight_events(rejectors, event, want):
    q = new_queue()
    q.add(pod("p"))
    qp = q.pop()
    if event is not None:
        q.move_all_to_active_or_backoff_queue(event)
    qp.unschedulable_plugins = set(rejectors)
    assert q.add_unschedulable_if_not_present(qp) == want


def test_error_is_retried_once_without_events():
    q = new_queue()
    q.add(pod("p"))
    qp = q.pop()
    assert q.add_unschedulable_if_not_present(qp, error=True) == "backoffQ"
    assert q.pop() is qp
    assert q.add_unschedulable_if_not_present(qp, error=True) == "unschedulablePods"
    q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_ADD)
    assert q.pop() is qp


def test_move_all_uses_interests_and_pre_check():
    q = new_queue()
    for n, plugin in [("fit", "NodeResourcesFit"), ("aff", "InterPodAffinity"), ("taint", "TaintToleration")]:
        q.add(pod(n))
        qp = q.pop()
        qp.unschedulable_plugins = {plugin}
        assert q.add_unschedulable_if_not_present(qp) == "unschedulablePods"
    assert q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_ADD) == 1
    assert q.pop().pod_info.name == "aff"
    assert q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, pre_check=lambda p: p.pod_info.name != "fit") == 0
    assert q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE) == 1
    assert q.pop().pod_info.name == "fit"
    assert [p.pod_info.name for p in q.pending_pods()["unschedulablePods"]] == ["taint"]


def test_active_q_before_backoff_q():
    q = new_queue()
    q.add(pod("first"))
    first = q.pop()
    assert q.add_unschedulable_if_not_present(first, error=True) == "backoffQ"
    q.add(pod("second", priority=-5))
    # a pod in activeQ, even of lower priority, goes before a backing-off one
    assert q.pop().pod_info.name == "second"
    assert q.pop() is first


@pytest.mark.parametrize("attempts, want", [(1, 1), (2, 2), (3, 4), (4, 8), (5, 10), (20, 10)])
def test_backoff_duration(attempts, want):
    q = new_queue()
    qp = q.add(pod("p"))
    qp.attempts = attempts
    assert q.backoff_duration_seconds(qp) == want


def test_backoff_duration_custom_limits():
    q = new_queue(pod_initial_backoff_seconds=2, pod_max_backoff_seconds=5)
    qp = q.add(pod("p"))
    qp.attempts = 3
    assert q.backoff_duration_seconds(qp) == 5


def test_requeued_pod_goes_behind_equal_priority_pods():
    q = new_queue()
    q.add(pod("a", ts="2024-01-01T00:00:00Z"))
    q.add(pod("b", ts="2024-01-01T00:00:01Z"))
    a = q.pop()
    a.unschedulable_plugins = {"NodeResourcesFit"}
    q.add_unschedulable_if_not_present(a)
    q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE)
    q.activate([a.pod_info])
    assert [q.pop().pod_info.name for _ in range(2)] == ["b", "a"]


def test_delete_removes_everywhere():
    q = new_queue()
    p = pod("p")
    q.add(p)
    q.nominator.add_nominated_pod(p, NominatingInfo("n1"))
    q.delete(p)
    assert q.pop() is None and q.nominator.nominated_pods_for_node("n1") == []


def test_delete_finds_a_pod_queued_again_and_skips_absent_ones():
    """The active queue knows which uids it holds: a pod popped and queued again is deleted, one never queued
    (a bound victim) or already deleted is a no-op, and the others keep their order."""
    q = new_queue()
    a, b, c = pod("a", 3), pod("b", 2), pod("c", 1)
    for p in (a, b, c):
        q.add(p)
    assert q.pop().pod_info is a
    q.add(a)                                     # back in the queue
    q.delete(pod("bound-victim"))                # never queued
    q.delete(b)
    q.delete(b)                                  # already gone
    assert [q.pop().pod_info for _ in range(2)] == [a, c] and q.pop() is None
    q.add(c)
    q.delete(c)
    assert q.pop() is None


def test_heap_removes_each_entry_of_a_pod_pushed_twice():
    from kubenotes.scheduler.queue import QueuedPodInfo, _Heap

    h = _Heap(PrioritySort().less)
    a, b = QueuedPodInfo(pod("a", 2)), QueuedPodInfo(pod("b", 1))
    for q in (a, b, a):
        h.push(q)
    uid = a.pod_info.uid
    assert h.remove(uid) is a and h.remove(uid) is a and h.remove(uid) is None
    assert h.pop() is b and h.pop() is None


@given(st.lists(st.tuples(st.integers(-2, 2), st.integers(0, 2), st.booleans()), max_size=30))
def test_keyed_heap_pops_in_the_order_less_gives(ops):
    """PrioritySort.sort_key orders the active queue exactly as its less does, ties by sequence."""
    from kubenotes.scheduler.queue import QueuedPodInfo, _Heap

    sort = PrioritySort()
    by_less, by_key = _Heap(sort.less), _Heap(sort.less, sort.sort_key)
    popped_less, popped_key = [], []
    for i, (prio, ts, pop_after) in enumerate(ops):
        q = QueuedPodInfo(pod(f"p{i}", prio), timestamp=float(ts), seq=(7 * i) % 31)  # unique, not in push order
        by_less.push(q)
        by_key.push(q)
        if pop_after:
            popped_less.append(by_less.pop())
            popped_key.append(by_key.pop())
    assert list(by_key) == list(by_less)
    popped_less += [by_less.pop() for _ in range(len(by_less))]
    popped_key += [by_key.pop() for _ in range(len(by_key))]
    assert popped_key == popped_less


@given(st.lists(st.tuples(st.sampled_from(["push", "pop", "peek", "remove", "iter"]), st.integers(-2, 2),
                          st.integers(0, 40)), max_size=80))
def test_keyed_heap_with_a_sorted_run_pops_as_the_plain_heap(ops):
    """With a run (RUN_MIN lowered to 3, so the heap is sorted into it again and again) pop, peek, remove, len and
    iteration agree with the less-ordered heap at every step, pods pushed twice included."""
    from kubenotes.scheduler.queue import QueuedPodInfo, _Heap

    class SmallRun(_Heap):
        __slots__ = ()
        RUN_MIN = 3

    sort = PrioritySort()
    plain, with_run = _Heap(sort.less), SmallRun(sort.less, sort.sort_key)
    pushed: list = []
    for i, (op, prio, pick) in enumerate(ops):
        if op == "push" or not pushed:
            q = pushed[pick % len(pushed)] if pushed and pick > 30 else QueuedPodInfo(pod(f"p{i}", prio), seq=i)
            pushed.append(q)
            plain.push(q)
            with_run.push(q)
        elif op == "pop":
            assert with_run.pop() is plain.pop()
        elif op == "peek":
            assert with_run.peek() is plain.peek()
        elif op == "remove":
            uid = pushed[pick % len(pushed)].pod_info.uid
            assert with_run.remove(uid) is plain.remove(uid)
        else:
            assert list(with_run) == list(plain)
        assert len(with_run) == len(plain)
    assert [with_run.pop() for _ in range(len(with_run) + 1)] == [plain.pop() for _ in range(len(plain) + 1)]


def test_a_large_heap_is_popped_from_a_sorted_run():
    """Past RUN_MIN entries the first pop sorts the heap into the run; a later push is merged at its place."""
    from kubenotes.scheduler.queue import QueuedPodInfo, _Heap

    sort = PrioritySort()
    h = _Heap(sort.less, sort.sort_key)
    qs = [QueuedPodInfo(pod(f"p{i}", i % 7), seq=i) for i in range(h.RUN_MIN + 10)]
    for q in qs:
        h.push(q)
    first = h.pop()
    assert len(h._run) == len(qs) and not h._items
    late = QueuedPodInfo(pod("late", 3), seq=10**6)
    h.push(late)
    rest = [h.pop() for _ in range(len(h))]
    want = sorted(qs, key=lambda q: (-q.pod_info.priority, q.seq))
    want.insert(want.index(max((q for q in qs if q.pod_info.priority == 3), key=lambda q: q.seq)) + 1, late)
    assert [first] + rest == want


# --------------------------------------------------------------------------- nominator
def test_nominator_modes():
    n = PodNominator()
    p = pod("p", 10)
    n.add_nominated_pod(p, NominatingInfo("n1"))
    n.add_nominated_pod(p, NominatingInfo("n2"))  # re-nominating moves it
    assert n.nominated_pods_for_node("n1") == [] and n.nominated_pods_for_node("n2") == [p]
    n.add_nominated_pod(p, None)  # ModeNoop with no status.nominatedNodeName removes it
    assert n.nominated_node_name(p) == ""
    with_status = PodInfo(make_pod("s"))
    from lightkube.models.core_v1 import PodStatus

    with_status.pod.status = PodStatus(nominatedNodeName="n3")
    n.add_nominated_pod(with_status)
    assert n.nominated_node_name(with_status) == "n3"
    n.add_nominated_pod(with_status, NominatingInfo("", "ModeOverride"))  # clear
    assert n.nominated_pods_for_node("n3") == []


def test_nominator_ignores_bound_pods():
    n = PodNominator()
    bound = PodInfo(make_pod("b", node_name="n1"))
    n.add_nominated_pod(bound, NominatingInfo("n1"))
    assert n.nominated_pods_for_node("n1") == []


def test_pre_enqueue_status_code():
    p = pod("g", schedulingGates=[{"name": "a"}])
    assert gates(p).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_own_events_do_not_requeue_the_pod():
    q = new_queue()
    p = pod("p")
    q.add(p)
    qp = q.pop()
    q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, p)  # e.g. its own forget after a failed bind
    assert q.add_unschedulable_if_not_present(qp, error=True) == "backoffQ"
    assert q.pop() is qp
    q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, p)
    assert q.add_unschedulable_if_not_present(qp, error=True) == "unschedulablePods"


def test_attempts_guard_parks_the_pod():
    q = new_queue(max_attempts_per_pod=3)
    q.add(pod("p"))
    for _ in range(3):
        qp = q.pop()
        q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE)
        qp.unschedulable_plugins = {"NodeResourcesFit"}
        where = q.add_unschedulable_if_not_present(qp)
    assert where == "unschedulablePods" and qp.attempts == 3
    assert q.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE) == 0
