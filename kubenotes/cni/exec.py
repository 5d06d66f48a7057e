"""Run a CNI plugin: the real binary (``/usr/lib/cni/<type>``) or the model, with the same inputs and output shape.

A container runtime executes a plugin as libcni's ``invoke.RawExec`` does: the CNI
parameters in the environment, the network config on stdin, the result or error JSON on
stdout, exit code 0 or not. :func:`exec_real` does exactly that with :mod:`subprocess`;
:func:`exec_model` feeds the same environment and stdin to the model
(:func:`kubenotes.cni.spec.run_plugin`) so tests can compare the two outputs field by field.
:func:`read_data_dir` / :func:`model_data_dir` give host-local's reservation files of
either side in the same ``{relative path: bytes}`` shape.

References
----------
containernetworking/cni@v1.3.0 pkg/invoke/raw_exec.go, pkg/invoke/exec.go
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kubenotes.cni.spec import CNIEnv, CNIError, PluginOutput, run_plugin

__all__ = [
    "DEFAULT_PLUGIN_DIRS",
    "find_plugin_binary",
    "exec_real",
    "exec_model",
    "read_data_dir",
    "model_data_dir",
]

#: Where Debian's containernetworking-plugins and the usual ``/opt/cni/bin`` keep the binaries.
DEFAULT_PLUGIN_DIRS: tuple[str, ...] = ("/usr/lib/cni", "/opt/cni/bin")


def find_plugin_binary(plugin_type: str, dirs: tuple[str, ...] = DEFAULT_PLUGIN_DIRS) -> str | None:
    """Path of the executable named ``plugin_type`` in ``dirs`` (``invoke.FindInPath``), or None.

    Examples
    --------
    >>> find_plugin_binary("no-such-plugin") is None
    True
    """
    for d in dirs:
        p = os.path.join(d, plugin_type)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def _stdin_bytes(stdin: bytes | str | Mapping[str, Any]) -> bytes:
    if isinstance(stdin, Mapping):
        return json.dumps(stdin).encode()
    return stdin.encode() if isinstance(stdin, str) else bytes(stdin)


def exec_real(plugin_type: str, env: CNIEnv, stdin: bytes | str | Mapping[str, Any], *,
              binary: str | None = None, timeout_seconds: float = 30.0) -> PluginOutput:
    """Execute the real plugin binary with ``env`` and ``stdin``.

    Parameters
    ----------
    plugin_type : str
        Binary name (``host-local``).
    env : CNIEnv
        The CNI variables; the process gets only these and ``PATH``.
    stdin : bytes, str or mapping
    binary : str, optional
        Explicit path (default: :func:`find_plugin_binary`).
    timeout_seconds : float

    Returns
    -------
    PluginOutput
        Exit code, stdout, and the parsed result (exit 0) or :class:`CNIError` (otherwise).

    Raises
    ------
    FileNotFoundError
        If the binary is not installed.
    """
    path = binary or find_plugin_binary(plugin_type)
    if path is None:
        raise FileNotFoundError(f'failed to find plugin "{plugin_type}" in path {list(DEFAULT_PLUGIN_DIRS)}')
    proc_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env.to_environ()}
    proc = subprocess.run([path], input=_stdin_bytes(stdin), env=proc_env, capture_output=True,
                          timeout=timeout_seconds, check=False)
    stdout = proc.stdout.decode()
    if proc.returncode == 0:
        result = json.loads(stdout) if stdout.strip() else None
        return PluginOutput(0, stdout, result=result)
    try:
        error = CNIError.from_dict(json.loads(stdout))
    except (json.JSONDecodeError, AttributeError):
        error = CNIError(999, f"netplugin failed: {stdout or proc.stderr.decode()}")
    return PluginOutput(proc.returncode, stdout, error=error)


def exec_model(plugin_type: str, env: CNIEnv, stdin: bytes | str | Mapping[str, Any], *, host: Any = None,
               trace: list | None = None) -> PluginOutput:
    """Run the model of ``plugin_type`` with the same inputs :func:`exec_real` takes.

    Examples
    --------
    >>> out = exec_model("host-local", CNIEnv("ADD", "c1", "/ns", "eth0", path="/opt/cni/bin"), "{")
    >>> out.exit_code, out.error.code
    (1, 6)
    """
    return run_plugin(plugin_type, env, _stdin_bytes(stdin), host=host, trace=trace)


def read_data_dir(data_dir: str | os.PathLike) -> dict[str, bytes]:
    """Every file under a real host-local ``dataDir``: ``{"<network>/<file>": content}``."""
    root = Path(data_dir)
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def model_data_dir(files: Mapping[str, bytes], data_dir: str) -> dict[str, bytes]:
    """The model's files under ``data_dir`` in the shape of :func:`read_data_dir`.

    Examples
    --------
    >>> model_data_dir({"/d/n/10.0.0.2": b"c1\\r\\neth0", "/x/y": b""}, "/d")
    {'n/10.0.0.2': b'c1\\r\\neth0'}
    """
    prefix = data_dir.rstrip("/") + "/"
    return {p[len(prefix):]: data for p, data in sorted(files.items()) if p.startswith(prefix)}
