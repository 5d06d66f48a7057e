"""The set-up files agree with each other: pyproject.toml is the dependency list, environment.yml mirrors it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

#: conda-forge names that differ from the PyPI name.
CONDA_TO_PYPI = {"python-kubernetes": "kubernetes"}


def _norm(req: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(\[[^\]]*\])?\s*(.*)$", req)
    assert m, req
    # extras (pyjwt[crypto]) have no conda spelling: conda-forge lists what they pull in (cryptography) itself
    return m.group(1).lower().replace("_", "-"), m.group(3).replace(" ", "")


def _pyproject_requirements() -> dict[str, str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(meta["dependencies"])
    for extra in meta["optional-dependencies"].values():
        reqs += extra
    return dict(_norm(r) for r in reqs)


def _environment_requirements() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    out = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str):
            name, spec = _norm(dep)
            if name not in ("python", "pip"):
                out[CONDA_TO_PYPI.get(name, name)] = spec
    return out


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    assert _environment_requirements() == _pyproject_requirements()


def test_environment_yml_installs_the_package_itself_and_pins_python():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_entries = [d for d in env["dependencies"] if isinstance(d, dict)]
    assert pip_entries and "-e ." in pip_entries[0]["pip"]
    py = [d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python") and not d.startswith("python-")]
    required = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert py == ["python" + required]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci
    readme = (ROOT / "README.md").read_text()
    assert readme.index("make lab") < readme.index("## ") or "make lab" in readme.split("## ")[0] + readme.split("## ")[1]
    assert "make test" in readme


def test_test_file_names_are_unique():
    """pytest imports test modules by basename (tests/ has no __init__.py): two test_config.py break collection."""
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []


def test_test_module_basenames_are_unique():
    # tests/ has no __init__.py files, so pytest imports each test module by its
    # basename: two test_x.py files in different folders stop collection
    # ("import file mismatch") on a clean clone. CI failed once this way.
    seen: dict[str, Path] = {}
    clashes = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name in seen:
            clashes.append(f"{seen[path.name].relative_to(ROOT)} and {path.relative_to(ROOT)}")
        seen.setdefault(path.name, path)
    assert not clashes, "test modules share a basename: " + "; ".join(clashes)


def test_no_new_conftest_modules():
    # make test collects tests/ with --doctest-modules, which imports every conftest.py as a module named
    # "conftest"; a third one (tests/apiserver/storage/conftest.py) stopped collection with "import file
    # mismatch" on a clean clone. Shared fixtures go in tests/conftest.py.
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("conftest.py"))
    assert found == ["tests/conftest.py", "tests/scheduler/conftest.py"], found
