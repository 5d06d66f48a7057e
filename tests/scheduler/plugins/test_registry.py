"""Tests for kubenotes.scheduler.plugins.registry and names."""

from __future__ import annotations

import pytest

from kubenotes.scheduler.config import default_config
from kubenotes.scheduler.framework.cycle_state import CycleState
from kubenotes.scheduler.framework.interface import Code
from kubenotes.scheduler.framework.node_info import PodInfo
from kubenotes.scheduler.framework.runtime import Framework
from kubenotes.scheduler.plugins import names
from kubenotes.scheduler.plugins.registry import PLUGIN_FACTORIES, in_tree_registry
from kubenotes.scheduler.snapshot import ClusterObjects, new_snapshot
from kubenotes.scheduler.testing import make_pod


def test_every_name_is_registered():
    r = in_tree_registry()
    assert set(r) == set(names.IN_TREE_NAMES) | set(names.LEGACY_NAMES) == set(PLUGIN_FACTORIES)


@pytest.mark.parametrize("name", sorted(PLUGIN_FACTORIES))
def test_factories_build_plugins_named_after_their_key(name):
    fw = Framework({}, None, snapshot=new_snapshot([], []), objects=ClusterObjects())
    assert in_tree_registry()[name](None, fw).name() == name


def test_default_profile_extension_points():
    fw = Framework(in_tree_registry(), default_config().profiles[0], snapshot=new_snapshot([], []))
    got = fw.list_plugins()
    assert got["QueueSort"] == ["PrioritySort"] and got["PreEnqueue"] == ["SchedulingGates"]
    assert got["Bind"] == ["DefaultBinder"] and got["PostFilter"] == ["DynamicResources", "DefaultPreemption"]
    assert got["Filter"][:4] == ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity"]
    assert got["Score"][-1] == "ImageLocality"
    assert fw.score_plugin_weight["TaintToleration"] == 3 and fw.score_plugin_weight["InterPodAffinity"] == 2
    assert not any(n in got["Filter"] for n in names.LEGACY_NAMES)


def test_registry_imports_every_plugin_module_statically():
    import ast
    import inspect

    from kubenotes.scheduler.plugins import registry

    src = inspect.getsource(registry)
    assert "importlib" not in src and "import_module" not in src
    # every factory is a plugin module's own `new`, imported at the top of registry.py, or a stand-in's
    stand_ins = {names.DYNAMIC_RESOURCES}
    for name, factory in PLUGIN_FACTORIES.items():
        if name in stand_ins:
            assert factory.__module__ == registry.__name__, name
        else:
            assert factory.__name__ == "new" and factory.__module__.startswith("kubenotes.scheduler.plugins."), name
    top_level = [n for n in ast.parse(src).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    imported = {f"{n.module}.{a.name}" for n in top_level if isinstance(n, ast.ImportFrom) for a in n.names}
    for name, factory in PLUGIN_FACTORIES.items():
        if name not in stand_ins:
            mod = factory.__module__
            assert any(mod == m or mod.startswith(m + ".") for m in imported), (name, mod)


def test_volume_plugins_are_the_real_ones():
    from kubenotes.scheduler.plugins import nodevolumelimits, volumebinding

    assert PLUGIN_FACTORIES[names.VOLUME_BINDING] is volumebinding.new
    assert PLUGIN_FACTORIES[names.NODE_VOLUME_LIMITS] is nodevolumelimits.new


def test_stand_ins_for_unmodelled_plugins():
    from kubenotes.scheduler.plugins.registry import NotModelledDynamicResources

    plain = PodInfo(make_pod("p"))
    dra = NotModelledDynamicResources()
    assert dra.pre_filter(CycleState(), plain, [])[1].is_skip()
    r, s = dra.post_filter(CycleState(), plain, {})
    assert r is None and s.code == Code.UNSCHEDULABLE and s.message() == "no new claims to deallocate"
