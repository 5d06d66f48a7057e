"""The package's layers stay in order, and neither modules nor packages import each other in a circle.

Layers, lowest first: ``errors``/``data``/``gcpolicy``/``chapters``; ``api``/``datasets``; ``apiserver``; ``client``; the
components; the components built on other components (``kubelet`` over ``cri``/``cni``, ``replay`` over
``scheduler``, ``dns`` reading the kubelet's resolv.conf, ``operators`` built on the controllers' reconciler); ``sim``; ``viz``; the command line. A module may import from its own layer or below, never above
(``kubenotes.api`` never imports the scheduler). Inside the component layer, packages are independent of each other,
as upstream's binaries are: kube-proxy reads objects, never the controllers' code. Every import counts, also those
inside functions and under ``TYPE_CHECKING``.

Registries are ordinary imports (upstream's ``registry.go`` imports every plugin): nothing in the project imports one
of its own modules by a string, or guards such an import with ``except ImportError``; and only ``viz/`` draws.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1] / "kubenotes"

LAYERS = {
    "errors": 0, "features": 0, "data": 0, "gcpolicy": 0, "chapters": 0,
    "api": 1, "datasets": 1, "etcd": 1,
    "apiserver": 2,
    "client": 3,
    "scheduler": 4, "controllers": 4, "cri": 4, "cni": 4, "proxy": 4, "csi": 4,
    "kubelet": 5, "replay": 5, "dns": 5, "operators": 5,
    "sim": 6,
    "viz": 7,
    "cli": 8, "__main__": 8, "": 8,
}

#: Component packages and the components below them that each may use (the kubelet drives the runtime and the
#: network plugins; the replay drives the scheduler). Any other edge between component packages is a defect.
COMPONENT_USES = {
    "scheduler": set(), "controllers": set(), "cri": set(), "cni": set(), "proxy": set(), "csi": set(),
    "kubelet": {"cri", "cni", "csi"},
    "replay": {"scheduler"},
    "dns": {"kubelet"},  # CoreDNS expands a short name with the pod's resolv.conf, which kubelet.dns writes
    "operators": {"controllers"},  # an operator is a controller of the same shape (reconciler, controller helpers)
}

#: Third-party packages only ``viz/`` may import: the library's models compute, the notebooks' drawing lives in viz.
DRAWING = ("matplotlib", "ipywidgets", "IPython")


def _module_name(path: Path) -> str:
    parts = ("kubenotes",) + path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@cache
def _trees() -> dict[str, tuple[Path, ast.Module]]:
    return {_module_name(p): (p, ast.parse(p.read_text(), str(p))) for p in sorted(ROOT.rglob("*.py"))}


def _imports(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node, a.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                yield node, full if full.startswith("kubenotes") and _is_module(full) else node.module


def import_graph() -> nx.DiGraph:
    """Module -> module it imports (``from pkg import submodule`` points at the submodule)."""
    g = nx.DiGraph()
    for mod, (_, tree) in _trees().items():
        g.add_node(mod)
        for _, t in _imports(tree):
            if t.startswith("kubenotes") and t != mod:
                g.add_edge(mod, t)
    return g


def _package(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer(mod: str) -> int:
    return LAYERS[_package(mod)]


def package_graph() -> nx.DiGraph:
    """Top-level package -> package it imports, each edge carrying the module pairs behind it."""
    g = nx.DiGraph()
    for a, b in import_graph().edges:
        pa, pb = _package(a), _package(b)
        if pa != pb:
            g.add_edge(pa, pb)
            g.edges[pa, pb].setdefault("because", []).append(f"{a} imports {b}")
    return g


def test_every_package_has_a_layer():
    names = {_package(m) for m in _trees()}
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


def test_no_package_circles():
    g = package_graph()
    circles = sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)
    assert circles == [], {tuple(c): [e for a in c for b in c if g.has_edge(a, b) for e in g.edges[a, b]["because"]]
                           for c in circles}


def test_components_use_only_the_components_below_them():
    g = package_graph()
    wrong = sorted(
        because
        for a, b in g.edges
        if a in COMPONENT_USES and b in COMPONENT_USES and b not in COMPONENT_USES[a]
        for because in g.edges[a, b]["because"]
    )
    assert wrong == []


def _string_imports(tree: ast.Module) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name not in {"import_module", "__import__"} or not node.args:
            continue
        arg = node.args[0]
        # a literal or f-string that names another library (lightkube's generated models) is not the project's
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and not arg.value.startswith("kubenotes"):
            continue
        if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant) \
                and not str(arg.values[0].value).startswith("kubenotes"):
            continue
        lines.append(node.lineno)
    return lines


def _guarded_project_imports(tree: ast.Module) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id in {"ImportError", "ModuleNotFoundError"} for h in node.handlers
        ):
            for stmt in node.body:
                lines += [n.lineno for n, t in _imports(ast.Module([stmt], [])) if t.startswith("kubenotes")]
    return lines


def test_no_import_by_string_inside_the_project():
    found = [f"{mod}:{line}" for mod, (_, tree) in _trees().items() for line in _string_imports(tree)]
    assert found == []


def test_no_import_error_scaffolding_around_the_project():
    found = [f"{mod}:{line}" for mod, (_, tree) in _trees().items() for line in _guarded_project_imports(tree)]
    assert found == []


def test_only_viz_draws():
    found = sorted(
        f"{mod} imports {t}"
        for mod, (_, tree) in _trees().items()
        if _package(mod) != "viz"
        for _, t in _imports(tree)
        if t.split(".")[0] in DRAWING
    )
    assert found == []


#: The packages that hold typed (lightkube) objects: the API types and helpers (api/), the scheduler (which
#: converts at its snapshot edge, scheduler/snapshot.py ``typed``), the trace loader that builds typed Nodes/Pods
#: (datasets/), the API server's codec edge, which decodes to apply the scheme's defaults, and the modules below.
TYPED_EDGES = {"api", "scheduler", "datasets"}
TYPED_MODULES = {"kubenotes.apiserver.server",
                 # the objects chapter's example Pod, built as the typed object the api/ helpers it shows take
                 "kubenotes.sim.objects"}


def test_one_object_form_outside_the_typed_edges():
    """The control plane, node side and sim work on stored (JSON-shaped) dicts; only the edges above decode."""
    found = sorted(
        f"{mod} imports {t}"
        for mod, (_, tree) in _trees().items()
        if _package(mod) not in TYPED_EDGES | {"viz"} and mod not in TYPED_MODULES
        for _, t in _imports(tree)
        if t.split(".")[0] == "lightkube"
    )
    assert found == []


@pytest.mark.parametrize("source, expected", [
    ("import importlib\nimportlib.import_module('kubenotes.scheduler')", 1),
    ("import importlib\nm = 'kubenotes.x'\nimportlib.import_module(m)", 1),
    ("import importlib\nimportlib.import_module(f'lightkube.models.{x}')", 0),
])
def test_the_string_import_check_can_fail(source, expected):
    assert len(_string_imports(ast.parse(source))) == expected


def test_the_guard_check_can_fail():
    guarded = "try:\n    from kubenotes.kubelet import kubelet\nexcept ImportError:\n    kubelet = None\n"
    assert _guarded_project_imports(ast.parse(guarded)) == [2]
    assert _guarded_project_imports(ast.parse("try:\n    import yaml\nexcept ImportError:\n    pass\n")) == []
