"""Kubernetes protobuf request bodies as JSON-shaped dicts (the apiserver's protobuf serializer, decode side).

kubectl's typed commands (``create deployment``, ``create rolebinding``,
``run``, ``expose``, ``drain``...) use client-go typed clients, which send
``Content-Type: application/vnd.kubernetes.protobuf`` and do not fall back to
JSON on 415. Such a body is the 4-byte magic ``k8s\\x00`` followed by a
``runtime.Unknown`` message: ``typeMeta`` (1: ``apiVersion`` = 1,
``kind`` = 2), ``raw`` (2: the object's own message), ``contentEncoding``
(3), ``contentType`` (4). :func:`decode_protobuf` reads the envelope, finds
the kind's message in :data:`~kubenotes.apiserver.protobuf_meta.KINDS` and
decodes ``raw`` with the field tables of
:data:`~kubenotes.apiserver.protobuf_meta.MESSAGES`, generated from the Go
struct tags of k8s.io/api and k8s.io/apimachinery
(:func:`generate_meta_source`).

The result is the dict the same object is as JSON (``encoding/json`` of the
Go struct), so the rest of the API server cannot tell the two apart:

* gogo-protobuf writes every non-pointer scalar, even ``""``/``0``/``false``;
  JSON drops those when the field's tag says ``omitempty``, and so does the
  decoder. Pointer fields keep their value even when it is zero
  (``replicas: 0``).
* A non-pointer struct is always written and is ``{}`` in JSON even with
  ``omitempty``; a nil slice, map or pointer without ``omitempty`` is
  ``null``; a zero ``metav1.Time`` is ``null``.
* ``json:",inline"`` structs (``Volume.volumeSource``, ``Probe.handler``)
  are nested messages on the wire and merge into their parent in JSON.
* Types with hand-written protobuf: ``metav1.Time`` and ``MicroTime``
  (``Timestamp``: seconds = 1, nanos = 2; Time drops the nanoseconds on
  decode, MicroTime keeps microseconds), ``metav1.Duration`` (int64
  nanoseconds = 1, a Go duration string such as ``1h0m0s`` in JSON),
  ``resource.Quantity`` (string = 1), ``intstr.IntOrString`` (type = 1,
  intVal = 2, strVal = 3), ``runtime.RawExtension`` and ``metav1.FieldsV1``
  (raw JSON bytes = 1), maps (repeated entries key = 1, value = 2), ``[]byte``
  (base64 in JSON, as ``Secret.data``) and named slice types used as map
  values (``ExtraValue``: a message with ``repeated items = 1``).

Notes
-----
Simplified against upstream: only decoding, only the group-versions in
:mod:`kubenotes.apiserver.protobuf_meta`; unknown field numbers are skipped
(upstream's gogo unmarshalers skip them too); a ``RawExtension`` holding a
protobuf object is decoded by the same envelope rules. Errors: a body without
the ``k8s\\x00`` magic or of a kind without a table is 415
UnsupportedMediaType, malformed bytes are 400 BadRequest (upstream says
``the body of the request was in an unknown format`` and its decode error).

References
----------
kubernetes/apimachinery@v0.34.0 pkg/runtime/serializer/protobuf/protobuf.go (protoEncodingPrefix, Serializer.Decode)
kubernetes/apimachinery@v0.34.0 pkg/runtime/generated.proto (Unknown, RawExtension)
kubernetes/apimachinery@v0.34.0 pkg/apis/meta/v1/{time_proto,micro_time_proto,duration}.go
kubernetes/apimachinery@v0.34.0 pkg/api/resource/quantity_proto.go, pkg/util/intstr/generated.proto
kubernetes/api@v0.34.0 */*/types.go (struct tags), */*/generated.pb.go (gogo marshalers)
https://kubernetes.io/docs/reference/using-api/api-concepts/#protobuf-encoding
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import re
import struct
import subprocess
import sys
from typing import Any, Callable, Iterator

from kubenotes.apiserver.protobuf_meta import KINDS, MESSAGES
from kubenotes.apiserver.status import ApiError, _status, new_bad_request

__all__ = ["PROTOBUF_MAGIC", "decode_protobuf", "decode_message", "format_go_duration", "generate_meta_source"]

#: The 4 bytes every Kubernetes protobuf body starts with (``protoEncodingPrefix``).
PROTOBUF_MAGIC = b"k8s\x00"
#: ``time.Time{}.Unix()``: what a zero ``metav1.Time`` would carry if it were written as seconds.
_ZERO_TIME_UNIX_SECONDS = -62135596800
_UNIX_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
#: Kinds every group-version registers (``metav1.AddToGroupVersion``): sent as ``<group>/<version>``.
_META_KINDS = ("DeleteOptions", "CreateOptions", "PatchOptions", "UpdateOptions")


# --------------------------------------------------------------------------- wire format
def _varint(b: bytes, i: int) -> tuple[int, int]:
    shift = out = 0
    while True:
        if i >= len(b):
            raise ValueError("unexpected EOF in a varint")
        c = b[i]
        i += 1
        out |= (c & 0x7F) << shift
        if c < 0x80:
            return out, i
        shift += 7
        if shift > 63:
            raise ValueError("varint overflows 64 bits")


def _fields(b: bytes) -> Iterator[tuple[int, int, Any]]:
    """Wire fields ``(number, wire type, value)``: an int for varint/fixed, bytes for length-delimited."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise ValueError("illegal field number 0")
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 2:
            n, i = _varint(b, i)
            if i + n > len(b):
                raise ValueError("unexpected EOF in a length-delimited field")
            v, i = b[i:i + n], i + n
        elif wt in (1, 5):
            size = 8 if wt == 1 else 4
            if i + size > len(b):
                raise ValueError("unexpected EOF in a fixed-size field")
            v, i = b[i:i + size], i + size
        else:
            raise ValueError(f"illegal wire type {wt} for field {num}")
        yield num, wt, v


def _signed(v: int) -> int:
    """A varint as Go's int32/int64 (negative numbers are 10-byte two's complement)."""
    return v - (1 << 64) if v >= 1 << 63 else v


def _one(b: bytes) -> dict[int, Any]:
    """The last value of each field number (proto2 semantics for non-repeated fields)."""
    return {num: v for num, _, v in _fields(b)}


# --------------------------------------------------------------------------- special types
def _time(b: bytes, micro: bool) -> str | None:
    f = _one(b)
    if not b:
        return None  # Time.Marshal writes nothing for the zero time; JSON says null
    seconds, nanos = _signed(f.get(1, 0)), _signed(f.get(2, 0))
    if seconds == _ZERO_TIME_UNIX_SECONDS and not nanos:
        return None
    t = _UNIX_EPOCH + _dt.timedelta(seconds=seconds)
    if micro:  # MicroTime keeps microseconds (RFC3339Micro); Time drops nanos on Unmarshal
        return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos // 1000:06d}Z"
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _fraction(v: int, scale: int) -> str:
    whole, frac = divmod(v, scale)
    digits = f"{frac:0{len(str(scale)) - 1}d}".rstrip("0") if frac else ""
    return f"{whole}.{digits}" if digits else str(whole)


def format_go_duration(nanoseconds: int) -> str:
    """Go's ``time.Duration.String()``, which ``metav1.Duration`` marshals to JSON.

    Parameters
    ----------
    nanoseconds : int

    Returns
    -------
    str
        ``"1h0m0s"``, ``"1m30s"``, ``"1.5s"``, ``"2ms"``, ``"0s"``.

    Notes
    -----
    Ported from the cases of ``TestDurationString`` (Go ``src/time/time_test.go``).

    References
    ----------
    go@go1.24 src/time/time.go (Duration.String)

    Examples
    --------
    >>> format_go_duration(3600 * 10**9), format_go_duration(90 * 10**9), format_go_duration(1500)
    ('1h0m0s', '1m30s', '1.5µs')
    """
    sign = "-" if nanoseconds < 0 else ""
    u = abs(nanoseconds)
    if u == 0:
        return "0s"
    if u < 10**9:
        for unit, scale in (("ns", 1), ("µs", 10**3), ("ms", 10**6)):
            if u < scale * 1000:
                return sign + _fraction(u, scale) + unit
    seconds, frac = divmod(u, 10**9)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = _fraction(secs * 10**9 + frac, 10**9) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    return f"{sign}{minutes}m{text}" if minutes else sign + text


def _raw_json(b: bytes) -> Any:
    raw = _one(b).get(1, b"")
    if not raw:
        return None
    if raw.startswith(PROTOBUF_MAGIC):
        return decode_protobuf(raw)
    return json.loads(raw)


def _int_or_string(b: bytes) -> int | str:
    f = _one(b)
    return f.get(3, b"").decode() if f.get(1, 0) == 1 else _signed(f.get(2, 0))


# --------------------------------------------------------------------------- messages
def _value(code: str, wt: int, v: Any) -> Any:
    """One wire value of element type ``code`` (see :mod:`~kubenotes.apiserver.protobuf_meta`)."""
    if code in ("i", "b"):
        if wt == 0:
            return bool(v) if code == "b" else _signed(v)
        if wt in (1, 5):
            return int.from_bytes(v, "little", signed=True)
        raise ValueError(f"wire type {wt} for an integer field")
    if code == "f":
        if wt == 1:
            return struct.unpack("<d", v)[0]
        if wt == 5:
            return struct.unpack("<f", v)[0]
        raise ValueError(f"wire type {wt} for a float field")
    if wt != 2:
        raise ValueError(f"wire type {wt} for a length-delimited field")
    if code == "s":
        return v.decode("utf-8")
    if code == "y":
        return base64.b64encode(v).decode()
    if code in ("T", "M"):
        return _time(v, code == "M")
    if code == "D":
        return format_go_duration(_signed(_one(v).get(1, 0)))
    if code == "Q":
        return _one(v).get(1, b"0").decode() or "0"
    if code == "I":
        return _int_or_string(v)
    if code in ("R", "F"):
        return _raw_json(v)
    return decode_message(v, code)


def _zero(code: str) -> Any:
    """The JSON of a Go zero value of element type ``code``."""
    zeros = {"s": "", "i": 0, "b": False, "f": 0, "y": None, "T": None, "M": None, "D": "0s", "Q": "0",
             "I": 0, "R": None, "F": None}
    return zeros[code] if code in zeros else decode_message(b"", code)


def _packed(code: str, v: bytes) -> list:
    out, i = [], 0
    while i < len(v):
        n, i = _varint(v, i)
        out.append(bool(n) if code == "b" else _signed(n))
    return out


def _items(code: str, v: bytes) -> list:
    """A named slice type's message (``ExtraValue``): ``repeated items = 1``."""
    return [_value(code, wt, x) for num, wt, x in _fields(v) if num == 1]


def decode_message(data: bytes, message: str) -> dict:
    """One protobuf message as the JSON-shaped dict of the same Go struct.

    Parameters
    ----------
    data : bytes
        The message's wire bytes.
    message : str
        Its name in :data:`~kubenotes.apiserver.protobuf_meta.MESSAGES` (``"apps/v1.DeploymentSpec"``).

    Returns
    -------
    dict
        camelCase JSON names, ``omitempty`` applied as ``encoding/json`` does.

    Raises
    ------
    ValueError
        Malformed bytes (truncated, wrong wire type, bad UTF-8).
    KeyError
        ``message`` has no table.

    Examples
    --------
    ``RoleRef`` (no ``omitempty``: the empty ``apiGroup`` stays) and a ``DeploymentSpec`` with
    ``replicas: 0`` (a pointer: kept) and ``minReadySeconds: 0`` (``omitempty``: dropped):

    >>> decode_message(b"\\x12\\x0bClusterRole\\x1a\\x04view", "rbac/v1.RoleRef")
    {'kind': 'ClusterRole', 'name': 'view', 'apiGroup': ''}
    >>> spec = decode_message(b"\\x08\\x00\\x28\\x00", "apps/v1.DeploymentSpec")
    >>> spec["replicas"], "minReadySeconds" in spec, spec["selector"], spec["strategy"]
    (0, False, None, {})
    """
    table = MESSAGES[message]
    out: dict[str, Any] = {}
    seen: set[int] = set()
    inline: list[dict] = []
    for num, wt, v in _fields(data):
        spec = table.get(num)
        if spec is None:
            continue  # a field this version does not know
        name, code, flags = spec
        seen.add(num)
        if "m" in flags:
            if wt != 2:
                raise ValueError(f"wire type {wt} for the map field {name}")
            entry = {n: (w, x) for n, w, x in _fields(v)}
            key = entry[1][1].decode("utf-8") if 1 in entry else ""
            if 2 in entry:
                w, x = entry[2]
                val = _items(code, x) if "w" in flags else _value(code, w, x)
            else:
                val = [] if "w" in flags else _zero(code)
            out.setdefault(name, {})[key] = val
        elif "r" in flags:
            if wt == 2 and code in ("i", "b"):
                out.setdefault(name, []).extend(_packed(code, v))
            else:
                out.setdefault(name, []).append(_value(code, wt, v))
        elif "w" in flags:
            out.setdefault(name, []).extend(_items(code, v))
        elif "i" in flags:
            inline.append(_value(code, wt, v))
        else:
            out[name] = _value(code, wt, v)
    for num, (name, code, flags) in table.items():
        omitempty = "o" in flags
        if num not in seen:
            if "i" in flags:
                inline.append(_zero(code))
            elif any(f in flags for f in "rmwp") or code == "y":
                if not omitempty:
                    out[name] = None  # a nil slice, map, pointer or []byte is null in JSON
            elif not (omitempty and code in ("s", "i", "b", "f")):
                out[name] = _zero(code)
        elif omitempty and "p" not in flags and (code in ("s", "i", "b", "f", "y") or "m" in flags) \
                and not out[name]:
            del out[name]
    for sub in inline:
        out.update(sub)
    return out


def _message_for(api_version: str, kind: str) -> str | None:
    message = KINDS.get((api_version, kind))
    if message is None and kind in _META_KINDS:
        message = KINDS.get(("meta.k8s.io/v1", kind))
    return message


def decode_protobuf(raw: bytes) -> dict:
    """A Kubernetes protobuf body (``k8s\\x00`` + ``runtime.Unknown``) as a JSON-shaped dict.

    Parameters
    ----------
    raw : bytes
        The request body.

    Returns
    -------
    dict
        ``apiVersion``, ``kind`` (from the envelope's ``typeMeta``) and the object's fields, equal to
        the JSON the same client would send.

    Raises
    ------
    ApiError
        415 UnsupportedMediaType when the body lacks the ``k8s\\x00`` magic or its kind has no table;
        400 BadRequest when the bytes are malformed.

    Examples
    --------
    >>> tm = b"\\x0a\\x02v1\\x12\\x09Namespace"
    >>> meta = b"\\x0a\\x01x"
    >>> ns = b"\\x0a" + bytes([len(meta)]) + meta
    >>> unknown = b"\\x0a" + bytes([len(tm)]) + tm + b"\\x12" + bytes([len(ns)]) + ns
    >>> obj = decode_protobuf(b"k8s\\x00" + unknown)
    >>> obj["apiVersion"], obj["kind"], obj["metadata"]
    ('v1', 'Namespace', {'name': 'x', 'creationTimestamp': None})
    >>> obj["spec"], obj["status"]  # non-pointer structs: {} in JSON too
    ({}, {})
    """
    if not raw.startswith(PROTOBUF_MAGIC):
        raise _status(415, "UnsupportedMediaType", "the body of the request was in an unknown format - the "
                                                   "protobuf body lacks the k8s\\x00 prefix", {})
    try:
        envelope = _one(raw[len(PROTOBUF_MAGIC):])
        type_meta = _one(envelope.get(1, b""))
        api_version, kind = type_meta.get(1, b"").decode(), type_meta.get(2, b"").decode()
        message = _message_for(api_version, kind)
        if message is None:
            raise _status(415, "UnsupportedMediaType",
                          f"the kubenotes API server has no protobuf table for {kind or 'an object without a kind'}"
                          f"{' in ' + api_version if api_version else ''}; send JSON "
                          f"(kubectl create -f / apply -f)", {})
        encoding = envelope.get(3, b"").decode()
        if encoding:
            raise _status(415, "UnsupportedMediaType", f"unsupported protobuf contentEncoding {encoding!r}", {})
        return {"apiVersion": api_version, "kind": kind, **decode_message(envelope.get(2, b""), message)}
    except ApiError:
        raise
    except (ValueError, KeyError, AttributeError, TypeError, struct.error) as e:
        raise new_bad_request(f"error decoding protobuf body: {e}") from None


# --------------------------------------------------------------------------- table generation
#: package key -> (repository, file, API group) read by :func:`generate_meta_source`.
_GO_PACKAGES = {
    "core/v1": ("api", "core/v1/types.go", ""),
    "admissionregistration/v1": ("api", "admissionregistration/v1/types.go", "admissionregistration.k8s.io"),
    "apps/v1": ("api", "apps/v1/types.go", "apps"),
    "authentication/v1": ("api", "authentication/v1/types.go", "authentication.k8s.io"),
    "authorization/v1": ("api", "authorization/v1/types.go", "authorization.k8s.io"),
    "autoscaling/v1": ("api", "autoscaling/v1/types.go", "autoscaling"),
    "autoscaling/v2": ("api", "autoscaling/v2/types.go", "autoscaling"),
    "batch/v1": ("api", "batch/v1/types.go", "batch"),
    "certificates/v1": ("api", "certificates/v1/types.go", "certificates.k8s.io"),
    "coordination/v1": ("api", "coordination/v1/types.go", "coordination.k8s.io"),
    "discovery/v1": ("api", "discovery/v1/types.go", "discovery.k8s.io"),
    "events/v1": ("api", "events/v1/types.go", "events.k8s.io"),
    "flowcontrol/v1": ("api", "flowcontrol/v1/types.go", "flowcontrol.apiserver.k8s.io"),
    "networking/v1": ("api", "networking/v1/types.go", "networking.k8s.io"),
    "node/v1": ("api", "node/v1/types.go", "node.k8s.io"),
    "policy/v1": ("api", "policy/v1/types.go", "policy"),
    "rbac/v1": ("api", "rbac/v1/types.go", "rbac.authorization.k8s.io"),
    "resource/v1": ("api", "resource/v1/types.go", "resource.k8s.io"),
    "scheduling/v1": ("api", "scheduling/v1/types.go", "scheduling.k8s.io"),
    "storage/v1": ("api", "storage/v1/types.go", "storage.k8s.io"),
    "meta/v1": ("apimachinery", "pkg/apis/meta/v1/types.go", "meta.k8s.io"),
}
_GO_SPECIAL = {"meta/v1.Time": "T", "meta/v1.MicroTime": "M", "meta/v1.Duration": "D", "meta/v1.FieldsV1": "F",
               "resource.Quantity": "Q", "intstr.IntOrString": "I", "runtime.RawExtension": "R",
               "types.UID": "s", "types.NodeName": "s"}
_GO_PRIMITIVE = {"string": "s", "bool": "b", "int32": "i", "int64": "i", "int": "i", "uint32": "i", "uint64": "i",
                 "float64": "f", "float32": "f", "[]byte": "y"}
_GO_IMPORTS = {"k8s.io/apimachinery/pkg/apis/meta/v1": "meta/v1", "k8s.io/apimachinery/pkg/api/resource": "resource",
               "k8s.io/apimachinery/pkg/util/intstr": "intstr", "k8s.io/apimachinery/pkg/runtime": "runtime",
               "k8s.io/apimachinery/pkg/types": "types"}
_GO_FIELD = re.compile(r'^\s*(?:(\w+)\s+)?(\*?[\w.\[\]*]+)\s+`(.*)`\s*(?://.*)?$')
_GO_META_KINDS = ("DeleteOptions", "CreateOptions", "PatchOptions", "UpdateOptions", "Status")


def _parse_go(src: str) -> tuple[dict, dict, dict]:
    """Imports (alias -> package key), structs (name -> [(field, type, tags)]) and named types of a Go file."""
    imports = {}
    for m in re.finditer(r'^\s*(\w+\s+)?"(k8s\.io/[^"]+)"', src, re.M):
        path = m.group(2)
        key = path[len("k8s.io/api/"):] if path.startswith("k8s.io/api/") else _GO_IMPORTS.get(path)
        if key:
            imports[(m.group(1) or "").strip() or path.rsplit("/", 1)[1]] = key
    structs: dict[str, list] = {}
    named: dict[str, str] = {}
    lines = src.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r'^type (\w+) struct \{\s*$', lines[i])
        if m:
            fields, i = [], i + 1
            while not lines[i].startswith("}"):
                fm = _GO_FIELD.match(lines[i])
                if fm and not lines[i].strip().startswith("//"):
                    fields.append(fm.groups())
                i += 1
            structs[m.group(1)] = fields
        else:
            m = re.match(r'^type (\w+) (?:= )?([\w.\[\]*]+)\s*(?://.*)?$', lines[i])
            if m:
                named[m.group(1)] = m.group(2)
        i += 1
    return imports, structs, named


def generate_meta_source(read: Callable[[str, str], str], api_ref: str = "v0.34.0",
                         apimachinery_ref: str = "v0.34.0", commits: tuple[str, str] = ("", "")) -> str:
    """The source of :mod:`kubenotes.apiserver.protobuf_meta`, from the Go struct tags of k8s.io/api.

    Parameters
    ----------
    read : callable
        ``read(repository, path) -> str``; ``repository`` is ``"api"`` or ``"apimachinery"``.
    api_ref, apimachinery_ref : str
        The tags read (named in the generated docstring).
    commits : tuple[str, str]
        Their commit ids.

    Returns
    -------
    str
        Python source.

    Notes
    -----
    Each ``type X struct`` field gives its number (the ``protobuf:"wire,N,..."`` tag), its JSON name,
    ``omitempty`` and ``inline`` (the ``json:"..."`` tag) and its element type (the Go type; named
    types are resolved to their underlying types across package aliases). The wire type of the tag is
    not used: a few tags are stale (``PriorityClass.value`` says ``bytes`` for an int32), and the
    generated marshalers follow the Go type.

    Examples
    --------
    >>> go = {"core/v1/types.go": 'type Thing struct {\\n\\tmetav1.TypeMeta `json:",inline"`\\n'
    ...       '\\tSize *int32 `json:"size,omitempty" protobuf:"varint,1,opt,name=size"`\\n}\\n'}
    >>> src = generate_meta_source(lambda repo, path: go.get(path, ""))
    >>> '("v1", "Thing"): "core/v1.Thing"' in src, '1: ("size", "i", "po"),' in src
    (True, True)
    """
    pk = {pkg: _parse_go(read(repo, path)) for pkg, (repo, path, _) in _GO_PACKAGES.items()}

    def resolve(pkg: str, t: str) -> tuple[str, bool, bool, bool]:
        if t in _GO_PRIMITIVE:
            return _GO_PRIMITIVE[t], False, False, False
        if t.startswith("*"):
            return resolve(pkg, t[1:])
        if t.startswith("[]"):
            code, rep, mp, _ = resolve(pkg, t[2:])
            if rep or mp:
                raise ValueError(f"unsupported Go type {t}")
            return code, True, False, False
        if t.startswith("map["):
            k, v = re.match(r'map\[([\w.]+)\](.+)$', t).groups()
            code, rep, mp, wrapped = resolve(pkg, v)
            if resolve(pkg, k)[0] != "s" or mp or rep:
                raise ValueError(f"unsupported Go type {t}")
            return code, False, True, wrapped
        alias, _, name = t.rpartition(".")
        p = pk[pkg][0].get(alias, alias) if alias else pkg
        if f"{p}.{name}" in _GO_SPECIAL:
            return _GO_SPECIAL[f"{p}.{name}"], False, False, False
        if name in pk[p][2]:
            code, rep, mp, wrapped = resolve(p, pk[p][2][name])
            return (code, False, False, True) if rep else (code, rep, mp, wrapped)  # named slice: {items = 1}
        if name in pk[p][1]:
            return f"{p}.{name}", False, False, False
        raise KeyError(f"{p}.{name}")

    messages: dict[str, dict] = {}

    def add(q: str) -> None:
        if q in messages or "." not in q:
            return
        pkg, name = q.split(".", 1)
        messages[q] = table = {}
        for fname, gotype, tags in pk[pkg][1][name]:
            js, pb = re.search(r'json:"([^"]*)"', tags), re.search(r'protobuf:"([^"]*)"', tags)
            if not pb or pb.group(1) == "-":
                continue
            jparts = (js.group(1) if js else "").split(",")
            inline = "inline" in jparts[1:]
            jname = jparts[0] or ("" if inline else fname)
            if jname == "-":
                continue
            code, rep, mp, wrapped = resolve(pkg, gotype)
            flags = "".join(f for f, on in (("r", rep), ("m", mp), ("w", wrapped), ("p", gotype.startswith("*")),
                                            ("o", "omitempty" in jparts[1:]), ("i", inline)) if on)
            table[int(pb.group(1).split(",")[1])] = (jname, code, flags)
            add(code)

    kinds = {}
    for pkg, (_, _, group) in _GO_PACKAGES.items():
        gv = (group + "/" if group else "") + pkg.split("/")[1]
        for name, fields in pk[pkg][1].items():
            if not any(f is None and g.endswith("TypeMeta") for f, g, _ in fields):
                continue
            if pkg == "meta/v1" and name not in _GO_META_KINDS:
                continue
            add(f"{pkg}.{name}")
            kinds[(gv, name)] = f"{pkg}.{name}"

    refs = {"api": api_ref, "apimachinery": apimachinery_ref}
    files = [f"``{path}``" for _, path, _ in _GO_PACKAGES.values()]
    w: list[str] = []
    w.append('"""Field tables of the Kubernetes protobuf messages the API server decodes (generated data; '
             'do not edit).\n')
    w.append("Generated by ``python -m kubenotes.apiserver.protobuf API_GIT_DIR APIMACHINERY_GIT_DIR >")
    w.append("kubenotes/apiserver/protobuf_meta.py`` (:func:`kubenotes.apiserver.protobuf.generate_meta_source`,")
    w.append("which reads the files with ``git show TAG:PATH``) from the Go struct tags of")
    w.append(f"kubernetes/api@{api_ref} ({commits[0]}) and")
    w.append(f"kubernetes/apimachinery@{apimachinery_ref} ({commits[1]}), files")
    line = ""
    for i, f in enumerate(files):
        part = f + (", " if i < len(files) - 1 else ".")
        if len(line) + len(part) > 110:
            w.append(line.rstrip())
            line = ""
        line += part
    w.append(line + "\n")
    w += ["How: every ``type X struct`` of those files is read field by field; a field's number comes from its",
          "``protobuf:\"wire,NUMBER,...\"`` tag, its JSON name, ``omitempty`` and ``,inline`` from its",
          "``json:\"...\"`` tag, and its element type from the Go type (named types such as ``ResourceList``",
          "or ``PullPolicy`` resolve to their underlying types, across package aliases such as ``metav1``).",
          "Fields without a protobuf tag (``metav1.TypeMeta``, which the ``runtime.Unknown`` envelope carries)",
          "and ``json:\"-\"`` fields are skipped. The tables start at every struct that embeds",
          "``metav1.TypeMeta`` (the kinds, plus meta.k8s.io/v1 DeleteOptions, CreateOptions, PatchOptions,",
          "UpdateOptions and Status) and follow nested types.\n",
          "Shapes", "------",
          ":data:`MESSAGES`: message -> field number -> ``(json_name, type, flags)``. ``type`` is a message",
          "name (``\"core/v1.PodSpec\"``) or a code: ``s`` string, ``y`` bytes (base64 in JSON), ``i`` integer,",
          "``b`` bool, ``f`` float, ``T`` metav1.Time, ``M`` metav1.MicroTime, ``D`` metav1.Duration,",
          "``Q`` resource.Quantity, ``I`` intstr.IntOrString, ``R`` runtime.RawExtension, ``F`` metav1.FieldsV1.",
          "``flags``: ``r`` repeated (a Go slice), ``m`` map (entries key = 1, value = 2), ``w`` a named slice",
          "type sent as a message ``{repeated items = 1}`` (``ExtraValue``), ``p`` Go pointer, ``o``",
          "``omitempty``, ``i`` ``json:\",inline\"`` (the nested message's fields merge into the parent's JSON).",
          ":data:`KINDS`: ``(apiVersion, kind)`` -> message.\n",
          "References", "----------"]
    w += [f"kubernetes/{repo}@{refs[repo]} {path}" for repo, path, _ in _GO_PACKAGES.values()]
    w += ['"""\n', "from __future__ import annotations\n",
          '__all__ = ["MESSAGES", "KINDS", "API_COMMIT", "APIMACHINERY_COMMIT"]\n',
          f"#: kubernetes/api {api_ref}.", f'API_COMMIT = "{commits[0]}"',
          f"#: kubernetes/apimachinery {apimachinery_ref}.", f'APIMACHINERY_COMMIT = "{commits[1]}"\n',
          "#: message -> field number -> (JSON name, type, flags); see the module docstring.",
          "MESSAGES: dict[str, dict[int, tuple[str, str, str]]] = {"]
    for name in sorted(messages):
        w.append(f'    "{name}": {{')
        w += [f'        {num}: ("{j}", "{c}", "{f}"),' for num, (j, c, f) in sorted(messages[name].items())]
        w.append("    },")
    w += ["}\n", "#: (apiVersion, kind) -> message.", "KINDS: dict[tuple[str, str], str] = {"]
    w += [f'    ("{gv}", "{k}"): "{m}",' for (gv, k), m in sorted(kinds.items())]
    w.append("}")
    return "\n".join(w) + "\n"


def _main(argv: list[str]) -> int:
    """``python -m kubenotes.apiserver.protobuf API_GIT_DIR APIMACHINERY_GIT_DIR [API_REF [APIMACHINERY_REF]]``."""
    api_dir, am_dir = argv[0], argv[1]
    refs = {"api": argv[2] if len(argv) > 2 else "v0.34.0", "apimachinery": argv[3] if len(argv) > 3 else "v0.34.0"}
    dirs = {"api": api_dir, "apimachinery": am_dir}

    def git(repo: str, *args: str) -> str:
        return subprocess.run(["git", "-C", dirs[repo], *args], capture_output=True, text=True, check=True).stdout

    commits = (git("api", "rev-parse", refs["api"] + "^{commit}").strip(),
               git("apimachinery", "rev-parse", refs["apimachinery"] + "^{commit}").strip())
    sys.stdout.write(generate_meta_source(lambda repo, path: git(repo, "show", f"{refs[repo]}:{path}"),
                                          refs["api"], refs["apimachinery"], commits))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
