"""The speed path stays behind its wall: the plugin modules hold no batch forms, memo keys or node class tables.

Issue #24: ``kubenotes/scheduler/plugins/`` reads like upstream's plugin files (NAME, reason constants, the plugin
class with its extension points, the factory). Batch forms, the memo keys they keep results under, the classes of
identical nodes they evaluate once, and what the batch path may rely on live in ``kubenotes/scheduler/fast/``,
found by plugin NAME (``kubenotes.scheduler.fast.registry``).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from kubenotes.scheduler.fast import registry
from kubenotes.scheduler.fast.forms import FastForms

PLUGINS = Path(__file__).resolve().parents[2] / "kubenotes" / "scheduler" / "plugins"

#: What the batch path reads off a plugin's fast forms: declared in a plugin module, it would be read there no more.
FAST_FACTS = {"filter_ignores_node_pods", "filter_reads_requests_only", "filter_error_free", "add_pod_error_free",
              "filter_reads_pod_spec", "filter_state_signature", "filter_node_signature"}
#: SnapshotArrays' class tables and memos: only fast forms build or read them.
CLASS_TABLE_CALLS = {"classes", "filter_by_class", "score_by_class", "uniform_by_class", "mask_by_class",
                     "eval_by_class", "per_node_memo", "node_object_memo", "label_values", "label_on_every_node"}

#: Plugin modules that may still ask the fast path what it declares (not define it): DefaultPreemption's dry run
#: remembers victims per node and tests Filters on resource totals, which needs the Filter plugins' fast facts
#: (``fast_forms``) and the batch path's plan of them (``plugin_plan``, ``requests_decide``).
READS_FAST_FACTS = {"defaultpreemption/default_preemption.py"}


def _defined_names(tree: ast.AST) -> list[tuple[str, int]]:
    """Every name a module binds: functions, classes, methods, assignment targets (also ``self.x``), arguments."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node.lineno))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.append((node.id, node.lineno))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.append((node.attr, node.lineno))
        elif isinstance(node, ast.arg):
            found.append((node.arg, node.lineno))
        elif isinstance(node, ast.alias):
            found.append((node.asname or node.name.rsplit(".", 1)[-1], node.lineno))
    return found


def _plugin_modules() -> list[Path]:
    return sorted(PLUGINS.rglob("*.py"))


@pytest.mark.parametrize("path", _plugin_modules(), ids=lambda p: str(p.relative_to(PLUGINS)))
def test_plugin_module_defines_no_batch_form_memo_key_or_class_table(path):
    tree = ast.parse(path.read_text(), str(path))
    bad = []
    for name, line in _defined_names(tree):
        lowered = name.lower()
        if "_batch" in lowered or "memo_key" in lowered or "_score_key" in lowered or name in FAST_FACTS:
            bad.append(f"line {line}: defines {name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CLASS_TABLE_CALLS:
            bad.append(f"line {node.lineno}: calls .{node.func.attr}() (a class table or memo of the fast path)")
        if isinstance(node, ast.ImportFrom) and node.module and (
                node.module == "kubenotes.scheduler.batch" or node.module.startswith("kubenotes.scheduler.fast")) \
                and path.relative_to(PLUGINS).as_posix() not in READS_FAST_FACTS:
            bad.append(f"line {node.lineno}: imports {node.module} (the wall runs the other way)")
    assert bad == [], f"{path.relative_to(PLUGINS)} holds fast-path code: move it to kubenotes/scheduler/fast/"


def test_the_wall_test_sees_a_batch_form(tmp_path):
    """The check above catches what it is meant to (so it cannot pass by reading nothing)."""
    src = ("class P:\n    filter_error_free = True\n    def score_batch(self, state, pod, arrays, idx):\n"
           "        return arrays.classes('P', repr)\n")
    tree = ast.parse(src)
    names = {n for n, _ in _defined_names(tree)}
    assert {"score_batch", "filter_error_free"} <= names
    assert any(isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "classes" for n in ast.walk(tree))
    assert len(_plugin_modules()) > 20


def test_every_registered_fast_form_serves_the_plugin_of_its_name():
    """Each registry entry is keyed by its plugin's NAME and names the plugin class it serves."""
    for name, forms in registry.FAST_FORMS.items():
        assert issubclass(forms, FastForms) and forms.plugin_type is not object, name
        assert sys.modules[forms.plugin_type.__module__].NAME == name


def test_plugins_of_another_class_keep_the_per_node_path():
    """An out-of-tree plugin under an in-tree name gets no fast forms: the batch path reads the plugin itself."""
    class MyTaints:
        def name(self):
            return "TaintToleration"

    mine = MyTaints()
    assert registry.fast_forms(mine) is mine
    assert getattr(registry.fast_forms(mine), "filter_batch", None) is None
