"""kubenotes/__init__.py's docstring maps every package and top-level module to the upstream it models."""

from __future__ import annotations

import re
from pathlib import Path

import kubenotes

ROOT = Path(__file__).resolve().parents[1] / "kubenotes"


def test_every_package_and_top_level_module_is_in_the_map():
    mapped = re.findall(r"^``kubenotes\.(\w+)``  ", kubenotes.__doc__, re.M)
    names = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    names |= {p.stem for p in ROOT.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert sorted(mapped) == sorted(names)
