"""The generated modules of kubenotes/apiserver are what their generators write.

``patch_meta.py``'s tables come from ``tools/gen_patch_meta.py`` and upstream's ``swagger.json``;
``protobuf_meta.py`` from ``python -m kubenotes.apiserver.protobuf`` and the Go sources of
kubernetes/api and kubernetes/apimachinery. Neither input can be installed here, so the comparison
with the real input is a command in ``tools/README.md``, not a test that would skip in CI; these
tests check the generator's code on synthetic input and that the committed block is laid out
exactly as the generator writes its values.
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from kubenotes.apiserver import patch_meta
from kubenotes.apiserver.patch_meta import DEFINITIONS, KINDS

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "gen_patch_meta.py"
_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture(scope="module")
def gen() -> dict:
    """The generator script's globals (it is a script, not a module of the package)."""
    return runpy.run_path(str(TOOL))


def _swagger_from_tables() -> dict:
    """A minimal swagger ``definitions`` whose tables are the committed ones."""
    defs: dict[str, dict] = {}
    for (api_version, kind), name in KINDS.items():
        group, _, version = api_version.rpartition("/")
        defs.setdefault(name, {"properties": {}}).setdefault("x-kubernetes-group-version-kind", []).append(
            {"group": group, "version": version, "kind": kind})
    keys = ("x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-list-type",
            "x-kubernetes-list-map-keys")
    for name, fields in DEFINITIONS.items():
        props = defs.setdefault(name, {"properties": {}})["properties"]
        for field, row in fields.items():
            prop = {k: list(v) if isinstance(v, tuple) else v for k, v in zip(keys, row[:4]) if v is not None}
            if row.definition:
                prop["$ref"] = "#/definitions/" + row.definition
            props[field] = prop
    return defs


def test_patch_meta_block_is_laid_out_as_the_generator_writes_it(gen):
    source = Path(patch_meta.__file__).read_text(encoding="utf-8")
    start, end = gen["committed_block"](source)
    assert gen["generate_block"](_swagger_from_tables()) == source[start:end]


def test_patch_meta_docstring_names_its_generator():
    assert "tools/gen_patch_meta.py" in patch_meta.__doc__


def test_patch_meta_generator_doctests_pass():
    subprocess.run([sys.executable, "-m", "doctest", str(TOOL)], check=True, env=_ENV, cwd=ROOT)


def test_the_synthetic_swagger_round_trips(gen):
    tables, kinds = gen["generate_tables"](_swagger_from_tables())
    assert kinds == KINDS
    assert tables == {n: {f: tuple(r) for f, r in fs.items()} for n, fs in DEFINITIONS.items()}
