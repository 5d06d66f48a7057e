"""Load Kubernetes manifests (YAML or JSON) into lightkube objects, the way ``kubectl apply`` reads them.

A source is what a person hands ``kubectl``: a file, a directory, ``-`` for
stdin, or the YAML text itself. Every document becomes one object; ``kind: List``
(what ``kubectl get -o yaml`` prints) and ``*List`` kinds are flattened. The
loader checks what the API server would reject before the model sees it
(unknown kinds, wrong field types, unknown fields, bad quantities, bad label
selectors, duplicate objects), then applies API defaults and Priority admission.
Any problem raises one :class:`~kubenotes.errors.ManifestError` whose message
is a single line naming the file, the document, the object and the field::

    pods.yaml doc 3 Pod default/web: spec.containers[0].resources.requests.cpu: invalid quantity "lots"

Mirrors the client half of ``kubectl apply -f`` (``k8s.io/cli-runtime``
resource builder: file, directory and stdin visitors, List flattening) and
the server half that decodes, strictly validates and defaults the object.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go
https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import msgspec
import msgspec.inspect as _mi
import yaml
from lightkube.codecs import resource_registry
from lightkube.core.resource import GlobalResource, NamespacedResource
from lightkube.models.meta_v1 import ObjectMeta

from kubenotes.api.dropdisabled import drop_disabled_fields
from kubenotes.api.quantity import parse_quantity
from kubenotes.api.resources import resource_list, validate_resource_requirements
from kubenotes.api.schema import fill_required_defaults
from kubenotes.api.selectors import LabelSelector, NodeSelector
from kubenotes.api.yamlutil import YAMLError, load_documents
from kubenotes.errors import FieldError, KubenotesError, ManifestError, NotFound
from kubenotes.features import feature_gates as feature_gates_of

__all__ = [
    "SCHEDULER_CONFIG_API_VERSION",
    "NON_API_KINDS",
    "MANIFEST_SUFFIXES",
    "LoadedObject",
    "Manifests",
    "load_manifests",
    "dump_manifests",
    "defaulting_steps",
    "DEFAULTING_STEP_SOURCES",
]

#: apiVersion of ``KubeSchedulerConfiguration`` accepted by kube-scheduler v1.34 (v1beta3 was removed in v1.29).
SCHEDULER_CONFIG_API_VERSION = "kubescheduler.config.k8s.io/v1"

#: Component configuration kinds that are not API objects: ``(apiVersion, kind)``.
#: They load as plain ``dict`` (their own modules parse them).
NON_API_KINDS: frozenset[tuple[str, str]] = frozenset({
    (SCHEDULER_CONFIG_API_VERSION, "KubeSchedulerConfiguration"),
    ("kubenotes.io/v1", "Scenario"),  # timed actions for `simulate` (kubenotes.sim.scenario)
})

#: File name suffixes read from a directory (as ``kubectl apply -f DIR``).
MANIFEST_SUFFIXES = (".json", ".yaml", ".yml")

_KIND_RE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_MSGSPEC_AT = re.compile(r"^(?P<msg>.*?) - at `\$(?P<path>.*)`$", re.S)
_MISSING_FIELD = re.compile(r"^Object missing required field `(?P<name>[^`]+)`$")
_EXPECTED = re.compile(r"^Expected `(?P<want>[^`]+)`, got `(?P<got>[^`]+)`$")
#: Characters of generated name suffixes (``k8s.io/apimachinery/pkg/util/rand``).
from kubenotes.api.rand import ALPHANUMS as _NAME_ALPHABET  # noqa: E402


# ---------------------------------------------------------------------------
# YAML reading


_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass(slots=True)
class _RawDoc:
    source: str
    doc: int
    item: str  # "" or "items[3]" for an element of a List
    data: dict


def _looks_like_text(s: str) -> bool:
    head = s.lstrip()
    return "\n" in s or head.startswith(("apiVersion", "---", "kind:", "{"))


def _docs_from_text(text: str, source: str, as_json: bool = False) -> Iterator[tuple[int, Any]]:
    """Yield ``(doc_number, parsed)``; empty documents are yielded as None and counted."""
    if as_json:
        try:
            yield 1, json.loads(text)
        except json.JSONDecodeError as e:
            raise ManifestError(source, 1, None, f"json: line {e.lineno}, column {e.colno}: {e.msg}") from None
        return
    try:
        yield from load_documents(text)  # as kubectl reads YAML (kubenotes.api.yamlutil)
    except YAMLError as e:
        raise ManifestError(source, getattr(e, "doc", None), None, str(e)) from None


def _read_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise ManifestError(path, None, None, "no such file") from None
    except IsADirectoryError:
        raise ManifestError(path, None, None, "is a directory") from None
    except PermissionError:
        raise ManifestError(path, None, None, "permission denied") from None
    except UnicodeDecodeError as e:
        raise ManifestError(path, None, None, f"not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise ManifestError(path, None, None, (e.strerror or str(e)).lower()) from None


def _expand(source: Any) -> Iterator[tuple[str, str, bool]]:
    """Yield ``(name, text, is_json)`` for one user-given source."""
    if isinstance(source, (bytes, bytearray)):
        yield "<string>", bytes(source).decode("utf-8", errors="replace"), False
        return
    if hasattr(source, "read"):
        text = source.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        name = getattr(source, "name", None)
        name = name if isinstance(name, str) and name else "<stream>"
        yield name, text, name.endswith(".json")
        return
    if isinstance(source, str) and source == "-":
        yield "<stdin>", sys.stdin.read(), False
        return
    if isinstance(source, str) and _looks_like_text(source):
        yield "<string>", source, False
        return
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"a manifest source is a path, '-', YAML text or a file object, not {type(source).__name__}")
    name = os.fspath(source)
    if os.path.isdir(name):
        files = []
        for dirpath, dirnames, filenames in os.walk(name):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for fn in filenames:
                if fn.endswith(MANIFEST_SUFFIXES) and not fn.startswith("."):
                    rel = os.path.relpath(os.path.join(dirpath, fn), name)
                    files.append(Path(rel).parts)
        for parts in sorted(files):
            p = os.path.join(name, *parts)
            yield p, _read_file(p), p.endswith(".json")
        return
    yield name, _read_file(name), name.endswith(".json")


def _raw_docs(name: str, text: str, is_json: bool) -> Iterator[_RawDoc]:
    for n, d in _docs_from_text(text, name, is_json):
        if d is None:
            continue
        yield from _flatten(name, n, "", d)


def _type_name(v: Any) -> str:
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if v is None:
        return "null"
    return type(v).__name__


def _show(v: Any) -> str:
    """A value in an error message: JSON for scalars, the JSON type for containers."""
    if isinstance(v, (dict, list)):
        return _type_name(v)
    try:
        s = json.dumps(v)
    except (TypeError, ValueError):
        s = str(v)
    return s if len(s) <= 60 else s[:57] + "..."


def _flatten(source: str, doc: int, item: str, d: Any) -> Iterator[_RawDoc]:
    if not isinstance(d, dict):
        where = f"{item}: " if item else ""
        raise ManifestError(source, doc, None, f"{where}expected a mapping with apiVersion and kind, got {_type_name(d)}")
    kind = d.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(d.get("apiVersion"), str) and "spec" not in d:
        items = d.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            raise ManifestError(source, doc, None, f"{item + '.' if item else ''}items: expected array, got {_type_name(items)}")
        for i, it in enumerate(items):
            if it is None:
                continue
            yield from _flatten(source, doc, f"{item}.items[{i}]" if item else f"items[{i}]", it)
        return
    yield _RawDoc(source, doc, item, d)


# ---------------------------------------------------------------------------
# Converting one document


@dataclass(slots=True)
class LoadedObject:
    """One object read from a manifest, with where it came from.

    Attributes
    ----------
    source : str
        The path as the user gave it (``data/cluster/nodes.yaml``), ``<stdin>``,
        ``<string>`` or ``<stream>``.
    doc : int
        1-based YAML document number within ``source`` (items of a ``List``
        share their list's number).
    obj : lightkube resource or dict
        The typed object; a ``dict`` for component configuration kinds
        (:data:`NON_API_KINDS`).
    kind : str
        ``Pod``, ``Node``, ``KubeSchedulerConfiguration``...
    namespace : str or None
        ``None`` for cluster-scoped kinds and component configuration.
    name : str
        ``metadata.name`` ("" when the kind has none).
    api_version : str
        ``v1``, ``apps/v1``...
    """

    source: str
    doc: int
    obj: Any
    kind: str
    namespace: str | None
    name: str
    api_version: str = ""

    @property
    def ref(self) -> str:
        """``Kind namespace/name``, or ``Kind name`` for cluster-scoped kinds (as in error messages)."""
        return _ref(self.kind, self.namespace, self.name)

    @property
    def location(self) -> str:
        """``source doc N Kind namespace/name``."""
        return f"{self.source} doc {self.doc} {self.ref}"


def _ref(kind: str | None, namespace: str | None, name: str | None) -> str | None:
    if not kind:
        return None
    if not name:
        return kind
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _meta(d: dict) -> dict:
    m = d.get("metadata")
    return m if isinstance(m, dict) else {}


def _raw_ref(d: dict, namespaced: bool | None = None) -> str | None:
    kind = d.get("kind") if isinstance(d.get("kind"), str) else None
    m = _meta(d)
    name = m.get("name") if isinstance(m.get("name"), str) else None
    ns = m.get("namespace") if isinstance(m.get("namespace"), str) and m.get("namespace") else None
    if namespaced and ns is None:
        ns = "default"
    if namespaced is False:
        ns = None
    return _ref(kind, ns, name)


def _no_match(kind: str, api_version: str) -> str:
    return f'no matches for kind "{kind}" in version "{api_version}"'


def _resolve(api_version: str, kind: str) -> type:
    """The lightkube resource class for ``(apiVersion, kind)``; raises ``FieldError`` when unknown."""
    if not _KIND_RE.match(kind) or api_version.count("/") > 1 or not api_version or api_version.strip() != api_version:
        raise FieldError("", _no_match(kind, api_version))
    try:
        cls = resource_registry.load(api_version, kind)
    except Exception:  # LoadResourceError, ImportError, ValueError from odd versions
        raise FieldError("", _no_match(kind, api_version)) from None
    info = getattr(cls, "_api_info", None)
    if (not isinstance(cls, type) or not issubclass(cls, (NamespacedResource, GlobalResource)) or info is None
            or info.resource.kind != kind or info.resource.api_version != api_version or info.parent is not None):
        raise FieldError("", _no_match(kind, api_version))
    return cls


def _msgspec_detail(err: msgspec.ValidationError, data: dict) -> str:
    """Turn ``Expected `int | null`, got `str` - at `$.spec.priority``` into ``spec.priority: expected int, got str "x"``."""
    text = str(err)
    m = _MSGSPEC_AT.match(text)
    msg, path = (m.group("msg"), m.group("path")) if m else (text, "")
    path = path[1:] if path.startswith(".") else path
    mf = _MISSING_FIELD.match(msg)
    if mf:
        full = f"{path}.{mf.group('name')}" if path else mf.group("name")
        return f"{full}: Required value"
    me = _EXPECTED.match(msg)
    if me:
        want = " or ".join(t for t in me.group("want").split(" | ") if t != "null")
        got = me.group("got")
        value = _lookup(data, path)
        shown = f" {_show(value)}" if value is not _MISSING and not isinstance(value, (dict, list)) else ""
        return f"{path or '<root>'}: expected {want}, got {got}{shown}"
    msg = msg[:1].lower() + msg[1:]
    return f"{path}: {msg}" if path else msg


_MISSING = object()
_PATH_TOKEN = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]")


def _lookup(data: Any, path: str) -> Any:
    cur = data
    for m in _PATH_TOKEN.finditer("." + path if path and not path.startswith("[") else path):
        key, idx = m.group(1), m.group(2)
        if key is not None:
            if not isinstance(cur, dict) or key not in cur:
                return _MISSING
            cur = cur[key]
        elif idx is not None:
            i = int(idx)
            if not isinstance(cur, list) or i >= len(cur):
                return _MISSING
            cur = cur[i]
        else:
            return _MISSING
    return cur


# --- strict field validation over the raw dict, driven by the model's types ----------------

#: ``(model class name, field)`` pairs that hold a ``ResourceList`` (name -> quantity).
_RESOURCE_LISTS = frozenset({
    ("ResourceRequirements", "limits"), ("ResourceRequirements", "requests"),
    ("VolumeResourceRequirements", "limits"), ("VolumeResourceRequirements", "requests"),
    ("PodSpec", "overhead"),
    ("NodeStatus", "capacity"), ("NodeStatus", "allocatable"),
    ("ResourceQuotaSpec", "hard"), ("ResourceQuotaStatus", "hard"), ("ResourceQuotaStatus", "used"),
    ("LimitRangeItem", "max"), ("LimitRangeItem", "min"), ("LimitRangeItem", "default"),
    ("LimitRangeItem", "defaultRequest"), ("LimitRangeItem", "maxLimitRequestRatio"),
    ("PersistentVolumeSpec", "capacity"),
    ("PersistentVolumeClaimStatus", "capacity"), ("PersistentVolumeClaimStatus", "allocatedResources"),
    ("ContainerStatus", "allocatedResources"),
    ("Overhead", "podFixed"),
})
#: ``(model class name, field)`` pairs that hold a single quantity.
_QUANTITIES = frozenset({
    ("EmptyDirVolumeSource", "sizeLimit"), ("ResourceFieldSelector", "divisor"),
    ("MetricTarget", "averageValue"), ("MetricTarget", "value"),
})
#: ``(model class name, field)`` pairs that are ``map[string]string``.
_STRING_MAPS = frozenset({
    ("ObjectMeta", "labels"), ("ObjectMeta", "annotations"),
    ("PodSpec", "nodeSelector"), ("ServiceSpec", "selector"), ("ReplicationControllerSpec", "selector"),
    ("LabelSelector", "matchLabels"), ("ConfigMap", "data"), ("Secret", "stringData"),
})


def _struct_of(t: Any) -> Any:
    """The struct/list/dict type inside an ``Optional[...]``."""
    if isinstance(t, _mi.UnionType):
        for s in t.types:
            if not isinstance(s, _mi.NoneType):
                return _struct_of(s)
        return None
    return t


_TYPE_INFO: dict[type, Any] = {}


def _type_info(cls: type) -> Any:
    ti = _TYPE_INFO.get(cls)
    if ti is None:
        ti = _TYPE_INFO[cls] = _mi.type_info(cls)
    return ti


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _check_string_map(value: Any, path: str) -> None:
    if not isinstance(value, dict):
        return
    for k, v in value.items():
        if not isinstance(k, str):
            raise FieldError(path, f"expected string keys, got {_type_name(k)} {_show(k)}")
        if v is not None and not isinstance(v, str):
            raise FieldError(_join(path, k), f"expected str, got {_type_name(v)} {_show(v)}")


def _check_selector(cname: str, value: Any, path: str) -> None:
    """Validate a ``LabelSelector`` or ``NodeSelector`` as the API server does (:mod:`kubenotes.api.selectors`)."""
    if cname == "LabelSelector":
        LabelSelector.from_api(value, field_path=path)
    else:
        NodeSelector.from_api(value, field_path=path)


_SELECTOR_TYPES = frozenset({"LabelSelector", "NodeSelector"})


_NOTHING, _RECURSE, _RESOURCES, _QUANTITY, _STRINGS = range(5)
#: struct class -> (JSON name -> (what _walk does with the field, its resolved type), is ResourceRequirements,
#: is a selector to check)
_PLANS: dict[type, tuple[dict[str, tuple[int, Any]], bool, bool]] = {}


def _walks_into(t: Any) -> bool:
    """Whether :func:`_walk` can find anything to check in a value of (resolved) type ``t``."""
    if isinstance(t, _mi.StructType):
        return True
    if isinstance(t, _mi.ListType):
        return _walks_into(_struct_of(t.item_type))
    if isinstance(t, _mi.DictType):
        vt = _struct_of(t.value_type)
        return isinstance(vt, (_mi.StructType, _mi.ListType)) and _walks_into(vt)
    return False


def _plan(t: Any) -> tuple[dict[str, tuple[int, Any]], bool, bool]:
    """What :func:`_walk` does with each field of struct type ``t``, decided once per class."""
    got = _PLANS.get(t.cls)
    if got is None:
        cname = t.cls.__name__
        fields: dict[str, tuple[int, Any]] = {}
        for f in t.fields:
            k = (cname, f.encode_name)
            if k in _RESOURCE_LISTS:
                fields[f.encode_name] = (_RESOURCES, None)
            elif k in _QUANTITIES:
                fields[f.encode_name] = (_QUANTITY, None)
            elif k in _STRING_MAPS:
                fields[f.encode_name] = (_STRINGS, None)
            else:
                st = _struct_of(f.type)
                fields[f.encode_name] = (_RECURSE, st) if _walks_into(st) else (_NOTHING, None)
        got = _PLANS[t.cls] = (fields, cname == "ResourceRequirements",
                               cname in _SELECTOR_TYPES and t.cls.__module__.startswith("lightkube.models."))
    return got


def _walk(t: Any, value: Any, path: str) -> None:
    """Strict decoding checks over raw ``value`` of type ``t`` (unknown fields, quantities, maps, selectors)."""
    _walk_resolved(_struct_of(t), value, path)


def _walk_resolved(t: Any, value: Any, path: str) -> None:
    if value is None or t is None:
        return
    if isinstance(t, _mi.StructType):
        if not isinstance(value, dict):
            return
        fields, resource_requirements, selector = _plan(t)
        for key, sub in value.items():
            got = fields.get(key)
            if got is None:
                raise FieldError("", f'unknown field "{_join(path, key)}"')
            action, st = got
            if action == _NOTHING:
                continue
            sub_path = _join(path, key)
            if action == _RECURSE:
                _walk_resolved(st, sub, sub_path)
            elif action == _RESOURCES:
                if isinstance(sub, dict):
                    resource_list(sub, sub_path)
            elif action == _QUANTITY:
                if sub is not None:
                    parse_quantity(sub, sub_path)
            else:
                _check_string_map(sub, sub_path)
        if resource_requirements:
            validate_resource_requirements(value.get("requests"), value.get("limits"), path)
        if selector:
            _check_selector(t.cls.__name__, value, path)
        return
    if isinstance(t, _mi.ListType) and isinstance(value, list):
        it = _struct_of(t.item_type)
        if _walks_into(it):
            for i, item in enumerate(value):
                _walk_resolved(it, item, f"{path}[{i}]")
        return
    if isinstance(t, _mi.DictType) and isinstance(value, dict):
        vt = _struct_of(t.value_type)
        if isinstance(vt, (_mi.StructType, _mi.ListType)):
            for k, item in value.items():
                _walk_resolved(vt, item, _join(path, str(k)))


def _generated_name(prefix: str, seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return prefix + "".join(_NAME_ALPHABET[b % len(_NAME_ALPHABET)] for b in digest[:5])


def _convert(raw: _RawDoc) -> LoadedObject:
    d = raw.data
    prefix = f"{raw.item}: " if raw.item else ""

    def fail(detail: str, ref: str | None = None) -> ManifestError:
        return ManifestError(raw.source, raw.doc, ref, f"{prefix if ref is None else ''}{detail}")

    api_version, kind = d.get("apiVersion"), d.get("kind")
    missing = [k for k, v in (("apiVersion", api_version), ("kind", kind)) if v is None or v == ""]
    if missing:
        raise fail(", ".join(f"{k} not set" for k in missing), _raw_ref(d))
    for k, v in (("apiVersion", api_version), ("kind", kind)):
        if not isinstance(v, str):
            raise fail(f"{k}: expected str, got {_type_name(v)} {_show(v)}", _raw_ref(d) if k == "apiVersion" else None)

    if (api_version, kind) in NON_API_KINDS:
        m = _meta(d)
        return LoadedObject(raw.source, raw.doc, d, kind, None, str(m.get("name") or ""), api_version)

    try:
        cls = _resolve(api_version, kind)
    except FieldError as e:
        raise fail(e.message, _raw_ref(d)) from None
    namespaced = issubclass(cls, NamespacedResource)
    ref = _raw_ref(d, namespaced)
    fill_required_defaults(d, cls)  # fields the v1.34 classes require but upstream's decoder zero-fills or defaults
    try:
        obj = cls.from_dict(d)
    except msgspec.ValidationError as e:
        raise fail(_msgspec_detail(e, d), ref) from None
    except (TypeError, ValueError) as e:
        raise fail(" ".join(str(e).split()), ref) from None
    try:
        _walk(_type_info(cls), d, "")
    except FieldError as e:
        raise fail(str(e), ref) from None

    if obj.metadata is None:
        obj.metadata = ObjectMeta()
    md = obj.metadata
    if not md.name:
        if md.generateName:
            md.name = _generated_name(md.generateName, f"{raw.source}\0{raw.doc}\0{raw.item}")
        else:
            raise fail("metadata.name: Required value: name or generateName is required", ref)
    if namespaced:
        md.namespace = md.namespace or "default"
    else:
        md.namespace = None
    return LoadedObject(raw.source, raw.doc, obj, kind, md.namespace, md.name, api_version)


# ---------------------------------------------------------------------------
# The collection


@dataclass
class Manifests:
    """Everything one :func:`load_manifests` call read, in input order.

    Attributes
    ----------
    objects : list[LoadedObject]
        One entry per object (List items flattened), in source, document and
        item order.

    Examples
    --------
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... ---
    ... apiVersion: v1
    ... kind: Pod
    ... metadata: {name: web}
    ... spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
    ... ''', defaults=False)
    >>> len(m), [o.ref for o in m], m.pods[0].metadata.namespace
    (2, ['Node n1', 'Pod default/web'], 'default')
    """

    objects: list[LoadedObject] = field(default_factory=list)

    def __iter__(self) -> Iterator[LoadedObject]:
        return iter(self.objects)

    def __len__(self) -> int:
        return len(self.objects)

    def __repr__(self) -> str:
        counts: dict[str, int] = {}
        for o in self.objects:
            counts[o.kind] = counts.get(o.kind, 0) + 1
        inner = ", ".join(f"{k}={v}" for k, v in counts.items())
        return f"Manifests({inner})"

    def of_kind(self, kind: str) -> list[Any]:
        """The objects (lightkube objects, or dicts for component configs) of one ``kind``, in input order."""
        return [o.obj for o in self.objects if o.kind == kind]

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any:
        """One object by kind and name (and namespace for namespaced kinds; ``default`` when omitted).

        Raises
        ------
        NotFound
            When no such object was loaded; the message is upstream's
            ``pods "web" not found``-style text with the kind.
        """
        for o in self.objects:
            if o.kind == kind and o.name == name and (o.namespace is None or o.namespace == (namespace or "default")):
                return o.obj
        raise NotFound(f'{kind} "{name}" not found' + (f" in namespace {namespace!r}" if namespace else ""))

    @property
    def nodes(self) -> list[Any]:
        """``Node`` objects."""
        return self.of_kind("Node")

    @property
    def pods(self) -> list[Any]:
        """``Pod`` objects (bound and pending)."""
        return self.of_kind("Pod")

    @property
    def priority_classes(self) -> list[Any]:
        """``PriorityClass`` objects of the input (the built-in system classes are not added)."""
        return self.of_kind("PriorityClass")

    @property
    def namespaces(self) -> list[Any]:
        """``Namespace`` objects."""
        return self.of_kind("Namespace")

    @property
    def scheduler_configs(self) -> list[dict]:
        """``KubeSchedulerConfiguration`` documents as plain dicts."""
        return self.of_kind("KubeSchedulerConfiguration")


# ---------------------------------------------------------------------------
# Entry points


def _iter_sources(sources: Iterable[Any]) -> Iterator[Any]:
    for s in sources:
        if isinstance(s, (list, tuple)):
            yield from _iter_sources(s)
        else:
            yield s


def load_manifests(*sources: Any, defaults: bool = True, feature_gates: Any = None) -> Manifests:
    """Read Kubernetes objects from files, directories, stdin or YAML text.

    Parameters
    ----------
    *sources : str, os.PathLike, file object, or list of them
        A path to a ``.yaml``/``.yml``/``.json`` file; a directory (its
        manifest files, recursively, in sorted path order); ``"-"`` for stdin;
        YAML text (a string containing a newline or starting with
        ``apiVersion``, ``kind:``, ``---`` or ``{``); or an open file object.
        Each source may hold several YAML documents; ``kind: List`` and
        ``*List`` documents are flattened; empty documents are skipped.
    defaults : bool
        Apply API server defaulting (:func:`kubenotes.api.defaults.apply_defaults`)
        to every object, then Priority admission
        (:func:`kubenotes.api.priority.apply_priority_admission`) to every Pod
        against the PriorityClasses of the whole input plus the system classes.
    feature_gates : FeatureGate, mapping of str to bool, str or None
        The cluster's feature gates (:func:`kubenotes.features.feature_gates`;
        None: v1.34's defaults). The fields of disabled gates are dropped from
        every object, as the API server's ``dropDisabled...Fields`` drop them
        on create (:func:`kubenotes.api.dropdisabled.drop_disabled_fields`).

    Returns
    -------
    Manifests
        All objects, in input order.

    Raises
    ------
    ManifestError
        For the first problem found, with one-line message
        ``source doc N Kind namespace/name: field: problem``: a missing file
        (``no such file``), YAML or JSON syntax (line and column), a document
        that is not a mapping, ``apiVersion not set``/``kind not set``, an
        unknown kind (``no matches for kind "X" in version "v"``), a field of
        the wrong type (``spec.priority: expected int, got str "high"``), an
        unknown field, an invalid quantity in any resource list (containers,
        init containers, pod templates, overhead, node capacity and
        allocatable, quotas, limit ranges, claims), a non-string label, an
        invalid label selector, a missing name, a duplicate object
        (``pods "web" already exists``) or a Priority admission error. Nothing
        is returned partly loaded.
    TypeError
        When a source is of an unsupported type.

    See Also
    --------
    dump_manifests : the reverse.
    kubenotes.scheduler.snapshot.new_snapshot : build the scheduler's view from ``.nodes`` and ``.pods``.

    Notes
    -----
    Upstream splits this between kubectl (reading files, flattening Lists)
    and the API server (decoding, strict field validation, defaulting,
    admission). Simplified: only the checks the models need are made (types,
    unknown fields, quantities, string maps, label selectors, names,
    duplicates), not full ``ValidatePod``; a missing namespace means
    ``default`` (kubectl's context namespace); a ``generateName`` gets a
    deterministic suffix instead of a random one; CRDs are not supported.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go
    kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go
    https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation

    Examples
    --------
    >>> m = load_manifests('''
    ... apiVersion: v1
    ... kind: List
    ... items:
    ... - apiVersion: v1
    ...   kind: Node
    ...   metadata: {name: worker-1}
    ...   status: {allocatable: {cpu: 7910m, memory: 29030364Ki, pods: "110"}}
    ... ''', defaults=False)
    >>> m.objects[0].location, m.nodes[0].status.allocatable["cpu"]
    ('<string> doc 1 Node worker-1', '7910m')
    >>> load_manifests('''apiVersion: v1
    ... kind: Pod
    ... metadata: {name: web}
    ... spec:
    ...   containers:
    ...   - name: nginx
    ...     resources: {requests: {cpu: lots}}
    ... ''', defaults=False)
    Traceback (most recent call last):
    ...
    kubenotes.errors.ManifestError: <string> doc 1 Pod default/web: spec.containers[0].resources.requests.cpu: invalid quantity "lots"
    """
    raws: list[_RawDoc] = []
    for src in _iter_sources(sources):
        for name, text, is_json in _expand(src):
            raws.extend(_raw_docs(name, text, is_json))

    gates = feature_gates_of(feature_gates)
    for r in raws:  # PrepareForCreate's dropDisabled...Fields
        if isinstance(r.data.get("kind"), str):
            drop_disabled_fields(r.data["kind"], r.data, None, gates)
    loaded = [_convert(r) for r in raws]
    _check_duplicates(loaded)
    if defaults:
        _apply_defaults(loaded)
        _admit(loaded)
    return Manifests(loaded)


def _check_duplicates(loaded: list[LoadedObject]) -> None:
    seen: dict[tuple, LoadedObject] = {}
    for o in loaded:
        if isinstance(o.obj, dict):
            continue
        info = o.obj._api_info
        key = (info.resource.group, o.kind, o.namespace, o.name)
        first = seen.get(key)
        if first is not None:
            raise ManifestError(o.source, o.doc, o.ref,
                                f'{info.plural} "{o.name}" already exists (first in {first.source} doc {first.doc})')
        seen[key] = o


def _apply_defaults(loaded: list[LoadedObject]) -> None:
    from kubenotes.api.defaults import apply_defaults

    for o in loaded:
        if isinstance(o.obj, dict):
            continue
        try:
            apply_defaults(o.obj)
        except KubenotesError as e:
            raise ManifestError(o.source, o.doc, o.ref, str(e)) from None


def _admit(loaded: list[LoadedObject]) -> None:
    from kubenotes.api.priority import apply_priority_admission, priority_classes_by_name

    classes = priority_classes_by_name([o.obj for o in loaded if o.kind == "PriorityClass"])
    for o in loaded:
        if o.kind != "Pod":
            continue
        try:
            apply_priority_admission(o.obj, classes, include_system_classes=False)
        except KubenotesError as e:
            raise ManifestError(o.source, o.doc, o.ref, str(e)) from None


def _field_values(d: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf of a JSON-shaped object by its field path (``spec.containers[0].name``); empty maps and lists count."""
    out: dict[str, Any] = {}
    if isinstance(d, dict):
        if not d and prefix:
            out[prefix] = {}
        for k, v in d.items():
            out.update(_field_values(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(d, list):
        if not d:
            out[prefix] = []
        for i, v in enumerate(d):
            out.update(_field_values(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = d
    return out


def _field_text(v: Any) -> str:
    """A field's value as the steps list shows it: ``—`` when absent, YAML's ``true``/``false``, ``{}``."""
    if v is None:
        return "—"
    if v == {}:
        return "{}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


#: The upstream file of each :func:`defaulting_steps` step.
DEFAULTING_STEP_SOURCES = {
    "SetDefaults_Pod": "pkg/apis/core/v1/defaults.go",
    "SetDefaults_PodSpec": "pkg/apis/core/v1/defaults.go (and SetDefaults_Container)",
    "PrepareForCreate": "pkg/registry/core/pod/strategy.go",
    "Priority admission": "plugin/pkg/admission/priority/admission.go",
}


def defaulting_steps(pod: Any, priority_classes: Iterable[Any] = (), *,
                     include_system_classes: bool = True) -> list[dict[str, str]]:
    """What each step of Pod creation writes into a Pod, field by field.

    Runs, on a copy of ``pod``, the steps :func:`~kubenotes.api.manifests.load_manifests`
    runs: ``SetDefaults_Pod`` (:func:`~kubenotes.api.defaults.set_defaults_pod`:
    requests from limits...), ``SetDefaults_PodSpec`` and
    ``SetDefaults_Container`` (:func:`~kubenotes.api.defaults.set_defaults_pod_spec`),
    the create strategy's ``PrepareForCreate``
    (:func:`~kubenotes.api.defaults.prepare_pod_for_create`: ``status.qosClass``)
    and the ``Priority`` admission plugin
    (:func:`~kubenotes.api.priority.apply_priority_admission`).

    Parameters
    ----------
    pod : lightkube.resources.core_v1.Pod
        As written (e.g. from ``load_manifests(..., defaults=False)``); not modified.
    priority_classes : iterable of PriorityClass
        The cluster's classes, for admission.
    include_system_classes : bool
        Add ``system-node-critical`` and ``system-cluster-critical``.

    Returns
    -------
    list[dict[str, str]]
        One entry per changed field, in step order: ``step``, ``field``
        (``spec.containers[0].resources.requests.cpu``), ``before`` (``—``
        when absent) and ``after``.

    Raises
    ------
    FieldError
        When admission rejects the Pod (unknown class, conflicting ``spec.priority``).
    InvalidQuantity
        When a quantity needed for defaulting does not parse.

    See Also
    --------
    kubenotes.api.defaults.apply_defaults : the same defaults in one call.

    Notes
    -----
    The namespace default (``default``) is not listed: ``load_manifests``
    sets it while reading, before these steps. Other admission plugins
    (``LimitRanger``, ``RuntimeClass``, ``ServiceAccount``...) are not modelled.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/v1/defaults.go
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go
    kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/priority/admission.go

    Examples
    --------
    >>> from kubenotes.scheduler.testing import make_pod
    >>> steps = defaulting_steps(make_pod("p", limits={"cpu": "1"}))
    >>> [(s["step"], s["after"]) for s in steps if s["field"].endswith("requests.cpu")]
    [('SetDefaults_Pod', '1')]
    >>> [s["after"] for s in steps if s["field"] in ("status.qosClass", "spec.priority")]
    ['Burstable', '0']
    """
    from kubenotes.api.defaults import prepare_pod_for_create, set_defaults_pod, set_defaults_pod_spec
    from kubenotes.api.priority import apply_priority_admission

    work = copy.deepcopy(pod)
    classes = list(priority_classes)
    stages: list[tuple[str, Callable[[Any], None]]] = [
        ("SetDefaults_Pod", set_defaults_pod),
        ("SetDefaults_PodSpec", lambda p: set_defaults_pod_spec(p.spec)),
        ("PrepareForCreate", prepare_pod_for_create),
        ("Priority admission", lambda p: apply_priority_admission(p, classes,
                                                                  include_system_classes=include_system_classes)),
    ]
    out: list[dict[str, str]] = []
    before = _field_values(work.to_dict())
    for name, step in stages:
        step(work)
        after = _field_values(work.to_dict())
        for path in after:
            if path not in before or before[path] != after[path]:
                out.append({"step": name, "field": path, "before": _field_text(before.get(path)),
                            "after": _field_text(after[path])})
        before = after
    return out


def _to_plain(o: Any) -> dict:
    if isinstance(o, LoadedObject):
        o = o.obj
    if isinstance(o, dict):
        return o
    if hasattr(o, "to_dict"):
        return o.to_dict()
    raise TypeError(f"cannot dump {type(o).__name__}")


def dump_manifests(objs: Any, *, comment: str | None = None) -> str:
    """Write objects as multi-document YAML (the format :func:`load_manifests` reads).

    Parameters
    ----------
    objs : Manifests, or iterable of LoadedObject, lightkube objects or dicts
        What to write, in order; a single object is accepted too.
    comment : str, optional
        Text written first as ``#`` comment lines (a data file's header).

    Returns
    -------
    str
        YAML documents separated by ``---``; fields in model order
        (``apiVersion``, ``kind``, ``metadata``, ``spec``, ``status``),
        ``None`` fields omitted.

    Raises
    ------
    TypeError
        When an element is neither a lightkube object nor a dict.

    Notes
    -----
    ``kubectl get -o yaml`` sorts keys and wraps several objects in a
    ``kind: List``; this writes one document per object instead, which
    ``kubectl apply -f`` reads the same way.

    Examples
    --------
    >>> from lightkube.resources.core_v1 import Namespace
    >>> print(dump_manifests([Namespace.from_dict({"metadata": {"name": "web"}})]), end="")
    apiVersion: v1
    kind: Namespace
    metadata:
      name: web
    >>> m = load_manifests(dump_manifests([Namespace.from_dict({"metadata": {"name": "web"}})]), defaults=False)
    >>> m.namespaces[0].metadata.name
    'web'
    """
    if isinstance(objs, (dict, LoadedObject)) or hasattr(objs, "to_dict"):
        objs = [objs]
    docs = [_to_plain(o) for o in objs]
    out = io.StringIO()
    if comment:
        for line in comment.splitlines():
            out.write(f"# {line}".rstrip() + "\n")
    if docs:
        yaml.dump_all(docs, out, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
    return out.getvalue()
