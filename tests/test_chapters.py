"""The index table, each chapter's previous/next links and the README table are what kubenotes.chapters generates."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kubenotes.chapters import CHAPTERS, GENERATOR, INDEX, expected_files, main, navigation_line

ROOT = Path(__file__).resolve().parents[1]


def _first_markdown(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "".join(next(c for c in nb["cells"] if c["cell_type"] == "markdown")["source"])


def _code(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


@pytest.mark.parametrize("name", ["README.md"] + [f"notebooks/{c.file}" for c in CHAPTERS])
def test_generated_parts_are_what_the_table_gives(name):
    path = ROOT / name
    assert path.read_text(encoding="utf-8") == expected_files(ROOT)[path], f"run {GENERATOR}"


def test_the_table_and_the_notebooks_name_the_same_chapters():
    on_disk = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert [c.notebook for c in CHAPTERS] == on_disk  # reading order is file-name order


def test_each_chapter_ends_its_first_cell_with_its_navigation_and_opens_with_its_number():
    for c in CHAPTERS:
        text = _first_markdown(ROOT / "notebooks" / c.file)
        assert text.rstrip("\n").split("\n")[-1] == navigation_line(c.notebook)
        if c.notebook != INDEX:
            assert text.startswith(f"# {c.number} "), c.notebook


def test_viz_modules_and_data_folders_exist_and_the_notebook_uses_them():
    for c in CHAPTERS:
        code = _code(ROOT / "notebooks" / c.file)
        if c.viz:
            assert (ROOT / "kubenotes" / "viz" / f"{c.viz}.py").is_file(), c
            assert re.search(rf"kubenotes\.viz\.{c.viz}\b|from kubenotes\.viz import .*\b{c.viz}\b", code), c
        if c.data:
            assert (ROOT / "data" / c.data).is_dir(), c


def _copy_repo(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    return tmp_path


def test_check_fails_on_a_hand_edited_link_and_write_mends_it(tmp_path, capsys):
    root = _copy_repo(tmp_path)
    nb = root / "notebooks" / "04.00-scheduling-framework.ipynb"
    original = nb.read_text(encoding="utf-8")
    before = CHAPTERS[[c.notebook for c in CHAPTERS].index("04.00-scheduling-framework") - 1]  # whichever it is
    assert f"[← {before.label}]" in original
    nb.write_text(original.replace(f"[← {before.label}]", "[← 03.01 Controllers]"), encoding="utf-8")
    assert main(["--check", "--root", str(root)]) == 1
    assert "04.00-scheduling-framework.ipynb" in capsys.readouterr().err
    assert main(["--write", "--root", str(root)]) == 0
    assert nb.read_text(encoding="utf-8") == original
    assert main(["--check", "--root", str(root)]) == 0


def test_check_fails_on_an_edited_readme_or_index_row(tmp_path):
    root = _copy_repo(tmp_path)
    readme = root / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("legacy names |", "old names |"), encoding="utf-8")
    index = root / "notebooks" / "00.00-index.ipynb"
    index.write_text(index.read_text(encoding="utf-8").replace("| policies, trace variant", "| policies"),
                     encoding="utf-8")
    assert main(["--check", "--root", str(root)]) == 1
    main(["--write", "--root", str(root)])
    assert readme.read_text(encoding="utf-8") == (ROOT / "README.md").read_text(encoding="utf-8")
    assert index.read_text(encoding="utf-8") == (ROOT / "notebooks" / "00.00-index.ipynb").read_text(encoding="utf-8")


def test_a_notebook_missing_from_the_table_or_a_row_without_a_notebook_fails(tmp_path, capsys):
    root = _copy_repo(tmp_path)
    shutil.copy(root / "notebooks" / "05.00-kubelet.ipynb", root / "notebooks" / "05.03-extra.ipynb")
    assert main(["--check", "--root", str(root)]) == 1
    assert "05.03-extra.ipynb is not in" in capsys.readouterr().err
    (root / "notebooks" / "05.03-extra.ipynb").unlink()
    (root / "notebooks" / "06.01-services-and-kube-proxy.ipynb").unlink()
    assert main(["--write", "--root", str(root)]) == 1
    assert "06.01-services-and-kube-proxy.ipynb does not exist" in capsys.readouterr().err


def _scenario_mode(path: Path) -> str:
    """``instant`` or ``realistic``: how ``simulate`` and the chapters' helpers run a scenario file."""
    from kubenotes.api.manifests import load_manifests
    from kubenotes.sim.scenario import cluster_options, parse_scenario

    docs = [o for o in load_manifests(path, defaults=False) if o.kind == "Scenario"]
    options = cluster_options([parse_scenario(o.obj, o.source, o.doc) for o in docs])
    return "realistic" if "request_costs" in options else "instant"


def _helper_sources(code: str) -> list[str]:
    """The source of each function a chapter's cells import from kubenotes.sim, and the strings it names."""
    import ast
    import importlib
    import inspect

    out = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kubenotes.sim."):
            module = importlib.import_module(node.module)
            for alias in node.names:
                obj = getattr(module, alias.name, None)
                if callable(obj) and inspect.isfunction(obj := inspect.unwrap(obj)):  # through lru_cache
                    src = inspect.getsource(obj)
                    out.append(src)
                    out += [v for n in re.findall(r"\b[A-Z_]+\b", src)
                            if isinstance(v := getattr(module, n, None), str)]
    return out


def _modes_run(chapter) -> set[str]:
    """The request-cost modes of the clusters a chapter runs: a Cluster built in its cells is instant; a scenario
    file of its data folder named in its cells, or by a kubenotes.sim function its cells import, runs as it says."""
    code = _code(ROOT / "notebooks" / chapter.file)
    modes = {"instant"} if re.search(r"\bCluster(\.from_manifests)?\(", code) else set()
    if chapter.data:
        texts = [code] + _helper_sources(code)
        for path in sorted((ROOT / "data" / chapter.data).glob("*.yaml")):
            named = re.compile(rf"(?<![\w-]){re.escape(path.name)}")  # pod-start.yaml, not cri-pod-start.yaml
            if "kind: Scenario" in path.read_text(encoding="utf-8") and any(named.search(t) for t in texts):
                modes.add(_scenario_mode(path))
    return modes


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.number)
def test_each_chapter_that_runs_a_cluster_says_which_request_costs_it_uses(chapter):
    modes = _modes_run(chapter)
    if not modes:
        assert chapter.costs is None, "runs no cluster: no request costs to state"
        assert "request costs" not in navigation_line(chapter.notebook)
        return
    assert chapter.costs, f"{chapter.notebook} runs clusters ({', '.join(sorted(modes))}): set its costs"
    stated = set(re.findall(r"\b(instant|realistic)\b", chapter.costs))
    assert stated == modes, (chapter.notebook, chapter.costs, modes)
    assert navigation_line(chapter.notebook).split(" <!--")[0].endswith(f" · request costs: {chapter.costs}")
