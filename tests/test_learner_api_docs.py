"""Every name a chapter imports from kubenotes is documented as the learner's API (STYLE.md section 5).

A notebook's ``from kubenotes... import name`` lines are the learner's front door: each function or class imported
there needs a numpydoc docstring with Parameters, Returns, Raises and Examples (the Examples run as doctests through
``--doctest-modules``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SECTIONS = ("Parameters", "Returns", "Raises", "Examples")


def imported_names(notebooks: Path = NOTEBOOKS) -> dict[tuple[str, str], list[str]]:
    """``(module, name)`` -> the notebooks whose code cells import it."""
    found: dict[tuple[str, str], list[str]] = {}
    for nb in sorted(notebooks.glob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            try:
                tree = ast.parse("".join(cell["source"]))
            except SyntaxError:  # a cell of IPython magics
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kubenotes"):
                    for alias in node.names:
                        found.setdefault((node.module, alias.name), []).append(nb.name)
    return found


def missing_sections(obj: object) -> list[str]:
    """The numpydoc section headings absent from ``obj``'s docstring."""
    lines = {line.strip() for line in (inspect.getdoc(obj) or "").splitlines()}
    return [s for s in SECTIONS if s not in lines]


def _documented_objects():
    for (module, name), notebooks in sorted(imported_names().items()):
        obj = getattr(importlib.import_module(module), name, None)  # None: a submodule (``from kubenotes.api import qos``)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield pytest.param(obj, id=f"{module}.{name}")


@pytest.mark.parametrize("obj", list(_documented_objects()))
def test_every_name_a_chapter_imports_is_documented(obj):
    assert missing_sections(obj) == []


def test_the_section_check_can_fail():
    def bare(x):
        """Only a summary."""

    assert missing_sections(bare) == list(SECTIONS)


def test_the_notebooks_import_from_kubenotes():
    names = imported_names()
    assert ("kubenotes.sim", "Cluster") in names or any(m.startswith("kubenotes.viz") for m, _ in names)
    assert len(names) > 100
