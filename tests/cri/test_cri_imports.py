"""The runtimes only read what the kubelet sends: no module of kubenotes.cri imports the kubelet or kube-proxy.

Upstream's kubelet hands its decisions to the runtime in the CRI messages
(``LinuxPodSandboxConfig.cgroup_parent``, ``LinuxContainerResources``,
``PodSandboxConfig.dns_config``); containerd and CRI-O never import kubelet code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CRI = Path(__file__).resolve().parents[2] / "kubenotes" / "cri"


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


@pytest.mark.parametrize("path", sorted(CRI.rglob("*.py")), ids=lambda p: p.name)
def test_cri_imports_neither_kubelet_nor_proxy(path):
    bad = [m for m in _imports(path) if m.startswith(("kubenotes.kubelet", "kubenotes.proxy"))]
    assert bad == []
