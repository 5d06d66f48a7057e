"""The package's layers stay in order and no modules import each other in a circle.

Layers, lowest first: ``errors``/``data``/``gcpolicy``; ``api``/``datasets``; ``apiserver``; ``client``; the components
(``scheduler``, ``controllers``, ``kubelet``, ``cri``, ``replay``); ``sim``; ``viz``; the command line.
A module may import from its own layer or below, never above (``kubenotes.api`` never imports the
scheduler). Every import counts, also those inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "kubenotes"

LAYERS = {
    "errors": 0, "data": 0, "gcpolicy": 0, "chapters": 0,
    "api": 1, "datasets": 1,
    "apiserver": 2,
    "client": 3,
    "scheduler": 4, "controllers": 4, "kubelet": 4, "cri": 4, "replay": 4, "cni": 4, "proxy": 4,
    "sim": 5,
    "viz": 6,
    "cli": 7, "__main__": 7, "": 7,
}


def _module_name(path: Path) -> str:
    parts = ("kubenotes",) + path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def import_graph() -> nx.DiGraph:
    """Module -> module it imports (``from pkg import submodule`` points at the submodule)."""
    g = nx.DiGraph()
    for path in ROOT.rglob("*.py"):
        mod = _module_name(path)
        g.add_node(mod)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [f"{node.module}.{a.name}" if _is_module(f"{node.module}.{a.name}") else node.module
                           for a in node.names]
            for t in targets:
                if t.startswith("kubenotes") and t != mod:
                    g.add_edge(mod, t)
    return g


def _layer(mod: str) -> int:
    parts = mod.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else ""]


def test_every_package_has_a_layer():
    names = {parts[1] for parts in (_module_name(p).split(".") for p in ROOT.rglob("*.py")) if len(parts) > 1}
    assert names <= set(LAYERS), names - set(LAYERS)


def test_no_upward_imports():
    upward = sorted(f"{a} imports {b}" for a, b in import_graph().edges if _layer(b) > _layer(a))
    assert upward == []


def test_no_import_cycles():
    g = import_graph()
    # a package's __init__ importing its own modules is how packages re-export, not a circle
    g.remove_edges_from([(a, b) for a, b in list(g.edges) if b.startswith(a + ".")])
    cycles = sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)
    assert cycles == []
