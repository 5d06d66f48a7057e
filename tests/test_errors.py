"""One exception hierarchy: every exception class kubenotes defines derives from kubenotes.errors.KubenotesError.

Expected outcomes are values; exceptions are for misuse and bad input, and a
caller can catch them all with ``except KubenotesError`` (the command line
does). A class may keep a builtin base beside it (``CronError`` is also a
``ValueError``), never instead of it.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pkgutil
from pathlib import Path

import kubenotes
from kubenotes.cri.api import CRIError
from kubenotes.cni.spec import CNIError
from kubenotes.errors import KubenotesError, ManifestError

ROOT = Path(kubenotes.__file__).resolve().parent
_BUILTIN_EXCEPTIONS = {n for n, v in vars(builtins).items() if inspect.isclass(v) and issubclass(v, BaseException)}


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(kubenotes.__path__, "kubenotes.")
                  if not m.name.endswith("__main__"))


def _classes(owner: object, module: str):
    for value in vars(owner).values():
        if inspect.isclass(value) and value.__module__ == module:
            yield value
            yield from _classes(value, module)


def test_every_exception_class_derives_from_kubenotes_error():
    outside = []
    for name in _modules():
        module = importlib.import_module(name)
        for cls in _classes(module, name):
            if issubclass(cls, BaseException) and not issubclass(cls, KubenotesError):
                outside.append(f"{name}.{cls.__qualname__}")
    assert outside == []


def test_no_exception_class_with_only_builtin_bases_anywhere_in_the_source():
    # also classes defined inside functions, which the import scan cannot see
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and node.bases:
                names = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases]
                if all(n in _BUILTIN_EXCEPTIONS for n in names) and node.name != KubenotesError.__name__:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert found == []


def test_runtime_and_network_errors_keep_their_fields_and_messages():
    cri = CRIError("NotFound", 'an error occurred when try to find container "abc": not found')
    assert isinstance(cri, KubenotesError) and cri.code == "NotFound"
    assert str(cri) == 'rpc error: code = NotFound desc = an error occurred when try to find container "abc": not found'
    cni = CNIError(1, "incompatible CNI versions", "config is x")
    assert isinstance(cni, KubenotesError) and (cni.code, cni.msg, cni.details) == (1, "incompatible CNI versions",
                                                                                     "config is x")
    assert str(cni) == "incompatible CNI versions; config is x"


def test_one_manifest_error_for_api_and_kubelet():
    from kubenotes.kubelet.config import decode_pod_list, extract_from_http

    assert ManifestError("pods.yaml", 2, "Pod default/web", "x: bad").args == ("pods.yaml doc 2 Pod default/web: x: bad",)
    try:
        decode_pod_list("kind: Pod\n", "/m/p.yaml", True, "n1")
    except ManifestError as e:
        assert str(e) == "invalid pods list"
    else:
        raise AssertionError("no ManifestError")
    try:
        extract_from_http("http://cfg/pods", "", "n1", 404, "404 Not Found")
    except ManifestError as e:
        assert str(e) == "http://cfg/pods: 404 Not Found" and e.source == "http://cfg/pods"
    else:
        raise AssertionError("no ManifestError")


def test_errors_with_several_fields_survive_a_copy_from_their_args():
    """SimPy re-raises a failed process's exception as ``type(e)(*e.args)``; pickling rebuilds it the same way."""
    import pickle

    from kubenotes.cni.spec import CNIError
    from kubenotes.cri.api import CRIError

    for err in (CRIError("NotFound", 'image "nginx" not found'), CNIError(7, "no IP addresses available", "range full"),
                CNIError(11, "try again")):
        for copy in (type(err)(*err.args), pickle.loads(pickle.dumps(err))):
            assert type(copy) is type(err) and str(copy) == str(err) and vars(copy) == vars(err)
