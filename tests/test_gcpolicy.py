"""kubenotes.gcpolicy: fewer collector passes, and the loaded heap kept out of them, while a run lasts."""

from __future__ import annotations

import gc
import weakref

import pytest

from kubenotes.gcpolicy import GC_THRESHOLD_WHILE_RUNNING, fewer_gc_passes


@pytest.fixture
def unfrozen():
    gc.unfreeze()  # a panel test may have frozen the heap (viz.widgets.settle_heap)
    yield
    gc.unfreeze()


def test_freeze_existing_keeps_objects_alive_now_out_of_collections_until_the_end(unfrozen):
    before = gc.get_threshold()
    with fewer_gc_passes(freeze_existing=True):
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] >= GC_THRESHOLD_WHILE_RUNNING
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
    with fewer_gc_passes():
        assert gc.get_freeze_count() == 0  # only on request


def test_an_outer_freeze_is_left_as_it_is(unfrozen, monkeypatch):
    """Neither frozen again nor unfrozen. (The frozen count itself is no witness: a thread another test left
    running may free frozen objects meanwhile, which lowers it; CI saw 1,449,247 become 1,449,162.)"""
    gc.freeze()
    calls = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
    with fewer_gc_passes(freeze_existing=True):
        [object() for _ in range(10)]
    monkeypatch.undo()
    assert calls == [] and gc.get_freeze_count() > 0


def test_nested_runs_unfreeze_only_at_the_end_of_the_outer_one(unfrozen):
    with fewer_gc_passes(freeze_existing=True):
        with fewer_gc_passes(freeze_existing=True):
            pass
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_cycles_left_during_a_frozen_run_are_collected_afterwards(unfrozen):
    class Node:
        pass

    a = Node()
    a.self = a
    ref = weakref.ref(a)
    with fewer_gc_passes(freeze_existing=True):
        del a
        gc.collect()
        assert ref() is not None  # frozen: not looked at
    gc.collect()
    assert ref() is None


def test_no_gc_passes_turns_the_collector_off_and_back_on():
    from kubenotes.gcpolicy import no_gc_passes

    assert gc.isenabled()
    with no_gc_passes():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with no_gc_passes():
            pass
        assert not gc.isenabled()  # off before: left off
    finally:
        gc.enable()


def test_no_gc_passes_is_on_again_after_an_error():
    from kubenotes.gcpolicy import no_gc_passes

    with pytest.raises(ValueError):
        with no_gc_passes():
            raise ValueError("bad manifest")
    assert gc.isenabled()


def test_schedule_program_ends_without_teardown_and_keeps_its_output(tmp_path):
    """``python -m kubenotes schedule`` exits once its output is flushed (no freeing of the heap), status intact;
    in process, main() returns as usual."""
    import subprocess
    import sys

    from kubenotes.__main__ import main
    from kubenotes.gcpolicy import teardown_skipped
    from kubenotes.scheduler.testing import make_node, make_pod

    docs = [make_node("n1").to_dict(), make_pod("p", requests={"cpu": "100m"}).to_dict(),
            make_pod("big", requests={"cpu": "100"}).to_dict()]
    path = tmp_path / "c.json"
    path.write_text(__import__("json").dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    p = subprocess.run([sys.executable, "-m", "kubenotes", "schedule", "-o", "summary", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1  # one pod unschedulable
    assert p.stdout.splitlines()[1].split()[:3] == ["2", "1", "1"] and p.stderr == ""
    assert main(["schedule", "-o", "summary", str(path)]) == 1  # in process: returns
    assert teardown_skipped()


def test_collector_stays_off_after_the_block_only_in_a_program_ending_without_teardown(monkeypatch):
    """no_gc_passes turns the collector back on, except in the kubenotes program once a command asked to end
    without teardown (collecting a heap about to be dropped is wasted); in process (tests, notebooks) it always
    comes back."""
    import kubenotes.gcpolicy as gp

    assert gc.isenabled()
    monkeypatch.setattr(gp, "_without_teardown", True)
    with gp.no_gc_passes():
        pass
    assert gc.isenabled()  # not a program: back on
    monkeypatch.setattr(gp, "_program", True)
    try:
        with gp.no_gc_passes():
            pass
        assert not gc.isenabled()
        monkeypatch.setattr(gp, "_without_teardown", False)
        with gp.no_gc_passes():
            pass
        assert not gc.isenabled()  # it was off when the block began
        gc.enable()
        with gp.no_gc_passes():
            pass
        assert gc.isenabled()  # a program keeping its teardown: back on
    finally:
        gc.enable()


def test_schedule_program_leaves_the_collector_off_to_its_end(tmp_path):
    """In ``python -m kubenotes schedule`` the collector is still off when the entry point ends the process."""
    import subprocess
    import sys

    from kubenotes.scheduler.testing import make_node, make_pod

    docs = [make_node("n1").to_dict(), make_pod("p", requests={"cpu": "100m"}).to_dict()]
    path = tmp_path / "c.json"
    path.write_text(__import__("json").dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    probe = ("import gc, os, sys, kubenotes.__main__ as m\n"
             "real = os._exit\n"
             "def exit_(rc):\n"
             "    sys.stderr.write(f'gc {gc.isenabled()}\\n'); sys.stderr.flush(); real(rc)\n"
             "os._exit = exit_\n"
             f"sys.argv = ['kubenotes', 'schedule', '-o', 'summary', {str(path)!r}]\n"
             "m.run()\n")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stderr == "gc False\n", p.stderr
