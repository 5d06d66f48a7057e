"""The Kubernetes REST API over HTTP: routing and translation in front of :class:`~kubenotes.apiserver.server.APIServer`.

This module turns HTTP requests into the model's request path and its answers
back into HTTP, as kube-apiserver's handler chain does: the bearer token is
authenticated (401 otherwise), the URL is parsed into request info
(group, version, namespace, resource, name, subresource; upstream's
``RequestInfoFactory``), the verb is chosen from the method and query
(``GET ?watch=1`` is ``watch``, ``GET`` on a collection is ``list``), and the
call goes to :class:`~kubenotes.apiserver.server.APIServer`. An
:class:`~kubenotes.apiserver.status.ApiError` becomes its ``Status`` body
with its HTTP code, which is what kubectl prints as
``Error from server (NotFound): pods "nope" not found``. All API semantics
(authorization, admission, validation, storage, watch filtering) stay in
``server.py``; nothing here decides what a request does.

The HTTP library is `Starlette <https://www.starlette.io>`_ (routing and
streaming responses) served by `uvicorn <https://www.uvicorn.org>`_ (the
ASGI server): both are well kept, widely used, pure-Python wheels on PyPI
with no compiled extension required, and ASGI's streaming responses map
one to one onto a watch's chunked JSON stream.

Served:

* ``/version``, ``/healthz``, ``/livez``, ``/readyz``;
* discovery: ``/api``, ``/apis``, ``/api/v1``, ``/apis/<group>``,
  ``/apis/<group>/<version>``, and the aggregated ``apidiscovery.k8s.io/v2`` documents, all from
  :mod:`kubenotes.apiserver.discovery`;
* ``/openapi/v3`` and ``/openapi/v3/<path>`` (and the protobuf ``/openapi/v2``), from :mod:`kubenotes.apiserver.openapi`;
* every resource: get, list (label and field selectors, ``limit``/``continue``),
  watch (``resourceVersion``, ``allowWatchBookmarks``, ``timeoutSeconds``),
  create, update, patch (merge, JSON, strategic), delete, deletecollection,
  ``dryRun=All``, and the subresources ``server.py`` serves (status, scale,
  binding, eviction, token);
* ``pods/<name>/log`` as ``text/plain`` (``container``, ``previous``,
  ``tailLines``, ``sinceSeconds``, ``sinceTime``, ``timestamps``,
  ``limitBytes``; ``follow`` streams chunks until the container stops or the
  server does), from the stand-in kubelets' modelled output
  (:meth:`~kubenotes.apiserver.server.APIServer.pod_log`);
* ``pods/<name>/exec``, ``attach`` and ``portforward`` (the SPDY or WebSocket
  upgrades of ``kubectl exec``/``attach``/``cp``/``port-forward``) answer at
  once with a 400 ``Status`` saying the model runs no processes
  (:meth:`~kubenotes.apiserver.server.APIServer.connect`), so kubectl exits
  with that message instead of hanging; ``/metrics``, ``/logs`` and
  ``/debug`` get a 404 that says why;
* server-side Tables for ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io``
  (:func:`kubenotes.apiserver.tables.table_for`), also on watches.

Notes
-----
Simplified against upstream: responses are JSON only; request bodies are
JSON, YAML (``application/yaml``), or protobuf as kubectl's typed commands send it (decoded to the same
dict by :func:`kubenotes.apiserver.protobuf.decode_protobuf`; kubectl does not
fall back to JSON on 415); anything else, CBOR included, is 415. As kube-apiserver: a body over
:data:`MAX_REQUEST_BODY_BYTES` is 413, JSON nested deeper than :data:`MAX_JSON_DEPTH` is 400, integer
query parameters that do not parse are 400 with ``strconv.ParseInt``'s error, ``dryRun`` other than
``All`` and an unknown ``propagationPolicy`` are 422, a watch's or list's ``resourceVersion`` that is not a
number is 400 and one newer than the store's 504 ``Too large resource version`` (at once: upstream waits up to
3 s for the cache to catch up); a served store's watch cache starts at the revision the server started at
(:meth:`~kubenotes.apiserver.store.ObjectStore.replace_watch_cache`), so after a restart a watch from an
older resourceVersion is the 410 below. Two answers differ from v1.34 on purpose (issue #31 asks for no 500 on a client's
mistake): a DeleteOptions body that is not an object, or whose fields have the wrong types, and a
non-numeric watch resourceVersion get a 400 with the decoder's message, where kube-apiserver v1.34 answers a
500 (kubernetes/kubernetes#139460, #139485). An authenticator that fails on a token leaves the request
unauthenticated (401). No ``exec``/``attach``/``portforward`` streams (400 with a clear
message) and no ``metrics.k8s.io`` (``kubectl top`` says ``Metrics API not
available``); no
``resourceVersionMatch`` on lists; a watch without a resourceVersion (or
``"0"``) starts with ``ADDED`` events for the current objects, as the watch
cache does, and, WatchList defaulting it to ``sendInitialEvents=true``
(:func:`watch_list_options`), ends them with a BOOKMARK annotated
``k8s.io/initial-events-end`` when bookmarks are allowed; one from a revision
older than the history is a 200 stream whose only event is ``ERROR`` with the
410 ``Expired`` Status, as the cacher answers it; watch streams poll for events every
:data:`WATCH_POLL_SECONDS`. ``kubectl`` sends its bearer token only over TLS,
so :func:`kubenotes.sim.serve.serve` runs this app over HTTPS. Every touch
of the model happens under one lock, because the model's SimPy environment
is single-threaded.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (RequestInfoFactory)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/internalversion/{defaults.go,validation/validation.go}
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go (Watch: initial events, ERROR events)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/{get,create,update,patch,delete,watch}.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go (ErrorToAPIStatus)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/discovery/{legacy,group,version}.go
kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/rest/{log,subresources}.go (pods/log, exec, attach, portforward)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/registry/generic/rest/streamer.go (LocationStreamer)
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any, AsyncIterator, Callable

from kubenotes.apiserver import discovery as discovery_docs
from kubenotes.apiserver import openapi as openapi_docs
from kubenotes.apiserver.patch import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH
from kubenotes.apiserver.request import Attributes, UserInfo
from kubenotes.apiserver.protobuf import decode_protobuf
from kubenotes.apiserver.request import RESPONSE_WARNINGS
from kubenotes.apiserver.server import DECODING_BODY, HTTP_REQUEST, using_epoch
from kubenotes.apiserver.resources import SERVED_RESOURCES, ResourceInfo
from kubenotes.apiserver.status import (ApiError, _status, field_cause, new_bad_request, new_internal_error, new_invalid,
                                        new_request_entity_too_large, new_too_large_resource_version,
                                        new_unauthorized, new_unsupported_media_type)
from kubenotes.apiserver.validation import FORBIDDEN, NOT_SUPPORTED
from kubenotes.apiserver.watch import ADDED, BOOKMARK
from kubenotes.errors import KubenotesError

__all__ = ["create_app", "GIT_VERSION", "version_info", "parse_request_path", "RequestInfo", "WATCH_POLL_SECONDS",
           "decode_protobuf", "pod_log_options", "LOG_FOLLOW_POLL_SECONDS", "MAX_REQUEST_BODY_BYTES", "MAX_JSON_DEPTH",
           "BODY_MEDIA_TYPES", "PROPAGATION_POLICIES", "query_int", "check_dry_run", "check_propagation_policy",
           "check_field_validation",
           "json_depth", "decode_json"]

#: ``gitVersion`` of ``/version``. kubectl's dispatcher runs the kubectl whose minor version matches this,
#: and the newest one installed here is 1.33 (the model follows v1.34 semantics; the version skew policy
#: lets kubectl 1.33 talk to a 1.34 server).
GIT_VERSION = "v1.33.0"

#: How often (wall seconds) an open watch stream looks for new events.
WATCH_POLL_SECONDS = 0.02

#: Default ``timeoutSeconds`` of a watch (upstream picks 30-60 min at random; kubectl reconnects).
DEFAULT_WATCH_TIMEOUT_SECONDS = 1800

_TABLE_MEDIA = "as=Table"
_PATCH_TYPES = {MERGE_PATCH: MERGE_PATCH, STRATEGIC_MERGE_PATCH: STRATEGIC_MERGE_PATCH, JSON_PATCH: JSON_PATCH}
#: Subresource -> (group, version, kind, verbs) of its discovery entry (``kubectl api-resources`` does not show them).
_SUBRESOURCE_KINDS = {
    "scale": ("autoscaling", "v1", "Scale", ("get", "patch", "update")),
    "binding": ("", "v1", "Binding", ("create",)),
    "eviction": ("policy", "v1", "Eviction", ("create",)),
    "token": ("authentication.k8s.io", "v1", "TokenRequest", ("create",)),
    "log": ("", "v1", "Pod", ("get",)),
    "ephemeralcontainers": ("", "v1", "Pod", ("get", "patch", "update")),
    "finalize": ("", "v1", "Namespace", ("update",)),
    "status": (None, None, None, ("get", "patch", "update")),
}
_NAMESPACE_SUBRESOURCES = ("status", "finalize")
#: The pods subresources that upgrade to a stream of a running process (refused: the model runs none).
_CONNECT_SUBRESOURCES = ("exec", "attach", "portforward")
#: Non-resource paths a real kube-apiserver serves and this one does not, with the reason it gives (404).
_NOT_SERVED_PATHS = {
    "/metrics": "the kubenotes API server serves no /metrics: the model keeps no Prometheus metrics "
                "(and serves no metrics.k8s.io, so kubectl top has nothing to show)",
    "/logs": "the kubenotes API server serves no /logs: it has no log files (kubectl logs POD reads the "
             "modelled container output)",
    "/debug": "the kubenotes API server serves no /debug endpoints (no pprof, no flags)",
}
#: Wall seconds between two reads of a followed log (``kubectl logs -f``).
LOG_FOLLOW_POLL_SECONDS = 0.05
_BY_GVR: dict[tuple[str, str, str], ResourceInfo] = {(r.group, r.version, r.resource): r for r in SERVED_RESOURCES}


def version_info(git_version: str = GIT_VERSION) -> dict:
    """The ``/version`` document (``version.Info``).

    Examples
    --------
    >>> v = version_info("v1.33.0")
    >>> v["major"], v["minor"], v["gitVersion"]
    ('1', '33', 'v1.33.0')
    """
    major, minor = git_version.lstrip("v").split(".")[:2]
    return {"major": major, "minor": minor, "emulationMajor": major, "emulationMinor": minor,
            "minCompatibilityMajor": major, "minCompatibilityMinor": str(max(int(minor) - 1, 0)),
            "gitVersion": git_version, "gitCommit": "kubenotes", "gitTreeState": "clean",
            "buildDate": "2025-08-27T00:00:00Z", "goVersion": "go1.24", "compiler": "gc",
            "platform": "linux/amd64"}


def _gated(server: Any, group: str, version: str, resource: str) -> ResourceInfo | None:
    """An off-by-default resource (MutatingAdmissionPolicy) the server serves (gate and --runtime-config on)."""
    return next((r for r in server.gated_served if (r.group, r.version, r.resource) == (group, version, resource)),
                None)


def _extra(server: Any) -> list:
    """What discovery lists beside the built-in resources: enabled off-by-default APIs, then the CRDs'."""
    return [*sorted(server.gated_served, key=lambda r: r.resource), *server.crds.served()]


def _groups(custom: Any = ()) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in (*SERVED_RESOURCES, *custom):
        if r.group:
            vs = out.setdefault(r.group, [])
            if r.version not in vs:
                vs.append(r.version)
    return out


def _api_group(name: str, versions: list[str]) -> dict:
    gvs = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": gvs, "preferredVersion": gvs[0]}


class RequestInfo:
    """A resource request's parts (``request.RequestInfo``).

    Attributes
    ----------
    group, version, namespace, resource, name, subresource : str
    """

    __slots__ = ("group", "version", "namespace", "resource", "name", "subresource")

    def __init__(self, group: str, version: str, namespace: str, resource: str, name: str, subresource: str):
        self.group, self.version, self.namespace = group, version, namespace
        self.resource, self.name, self.subresource = resource, name, subresource

    def __repr__(self) -> str:
        return (f"RequestInfo({self.group!r}, {self.version!r}, ns={self.namespace!r}, {self.resource!r}, "
                f"name={self.name!r}, sub={self.subresource!r})")


def parse_request_path(path: str) -> RequestInfo | None:
    """Split a resource URL as ``RequestInfoFactory.NewRequestInfo`` does; None when it is not one.

    ``namespaces/<ns>/status`` and ``namespaces/<ns>/finalize`` are the
    Namespace's own subresources, not a collection in it.

    Examples
    --------
    >>> parse_request_path("/api/v1/namespaces/default/pods/web/status")
    RequestInfo('', 'v1', ns='default', 'pods', name='web', sub='status')
    >>> parse_request_path("/apis/apps/v1/deployments")
    RequestInfo('apps', 'v1', ns='', 'deployments', name='', sub='')
    >>> parse_request_path("/api/v1/namespaces/kube-system")
    RequestInfo('', 'v1', ns='', 'namespaces', name='kube-system', sub='')
    >>> parse_request_path("/version") is None
    True
    """
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 3 and parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif len(parts) >= 4 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        if len(rest) == 2 or (len(rest) == 3 and rest[2] in _NAMESPACE_SUBRESOURCES):
            return RequestInfo(group, version, "", "namespaces", rest[1], rest[2] if len(rest) == 3 else "")
        namespace, rest = rest[1], rest[2:]
    if len(rest) > 3:
        return None
    return RequestInfo(group, version, namespace, rest[0], rest[1] if len(rest) > 1 else "",
                       rest[2] if len(rest) > 2 else "")


def pod_log_options(query: Any) -> dict:
    """``PodLogOptions`` from a log request's query (``?container=a&tailLines=5&follow=true``).

    Raises
    ------
    ApiError
        400 BadRequest for a number that does not parse.

    Examples
    --------
    >>> pod_log_options({"container": "a", "tailLines": "5", "follow": "true", "timestamps": "false"})
    {'container': 'a', 'follow': True, 'previous': False, 'timestamps': False, 'tailLines': 5}
    """
    out: dict[str, Any] = {"container": query.get("container") or ""}
    for key in ("follow", "previous", "timestamps"):
        v = query.get(key)
        out[key] = v is not None and v.lower() in ("1", "true", "t", "yes")
    for key in ("sinceSeconds", "tailLines", "limitBytes"):
        v = query.get(key)
        if v is not None and v != "":
            try:
                out[key] = int(v)
            except ValueError:
                raise new_bad_request(f'unable to parse "{v}" as {key}: strconv.ParseInt: parsing "{v}": '
                                      f'invalid syntax') from None
    since_time = query.get("sinceTime")
    if since_time:
        import datetime as _dt

        try:
            _dt.datetime.fromisoformat(since_time.replace("Z", "+00:00"))
        except ValueError:
            raise new_bad_request(f'parsing time "{since_time}" as "2006-01-02T15:04:05Z07:00": cannot parse '
                                  f'"{since_time}" as RFC 3339') from None
        out["sinceTime"] = since_time
    return out


def _not_found_path() -> ApiError:
    return _status(404, "NotFound", "the server could not find the requested resource", {})


def _flag(v: str | None) -> bool:
    """A boolean query parameter as ``Convert_Slice_string_To_bool`` reads it: only ``0`` and ``false`` are false.

    Examples
    --------
    >>> [_flag(v) for v in (None, "", "1", "true", "x", "0", "FALSE")]
    [False, True, True, True, True, False, False]
    """
    return v is not None and v != "0" and v.lower() != "false"


#: kube-apiserver's ``--max-request-body-bytes`` default (``MaxRequestBodyBytes``, 3 MiB): a longer body is 413.
MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024
#: ``maxNestingDepth`` of the JSON decoder (encoding/json's scanner): a body nested deeper is refused.
MAX_JSON_DEPTH = 10000
#: Media types a create, update or delete body may have (``negotiation.NegotiateInputSerializer``).
BODY_MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
_ALLOWED_DRY_RUN = ("All",)
#: ``metav1.DeletionPropagation`` values (``ValidateDeleteOptions`` also lists "nil").
PROPAGATION_POLICIES = ("Foreground", "Background", "Orphan")


def query_int(query: Any, key: str) -> int | None:
    """An integer query parameter (``limit``, ``timeoutSeconds``, ``gracePeriodSeconds``); None when absent.

    Raises
    ------
    ApiError
        400 BadRequest with ``strconv.ParseInt``'s error, as ``ParameterCodec.DecodeParameters`` fails.

    Examples
    --------
    >>> query_int({"limit": "5"}, "limit"), query_int({}, "limit")
    (5, None)
    >>> query_int({"gracePeriodSeconds": "abc"}, "gracePeriodSeconds")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: strconv.ParseInt: parsing "abc": invalid syntax
    """
    v = query.get(key)
    if v is None:
        return None
    s = v[1:] if v[:1] in "+-" else v
    if not s.isascii() or not s.isdigit():
        raise new_bad_request(f"strconv.ParseInt: parsing {json.dumps(v)}: invalid syntax")
    n = int(v)
    if not -(1 << 63) <= n < (1 << 63):
        raise new_bad_request(f"strconv.ParseInt: parsing {json.dumps(v)}: value out of range")
    return n


def check_dry_run(values: list[str], options_kind: str) -> bool:
    """``ValidateDryRun``: whether the request is a dry run; 422 for a value other than ``All``.

    Examples
    --------
    >>> check_dry_run([], "CreateOptions"), check_dry_run(["All"], "CreateOptions")
    (False, True)
    >>> check_dry_run(["foo"], "CreateOptions")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: \
[]string{"foo"}: supported values: "All"
    """
    if any(v not in _ALLOWED_DRY_RUN for v in values):
        shown = "[]string{" + ", ".join(json.dumps(v) for v in values) + "}"
        msg = f'dryRun: Unsupported value: {shown}: supported values: "All"'
        raise new_invalid("meta.k8s.io", options_kind, "", [field_cause("dryRun", msg, NOT_SUPPORTED)])
    return bool(values)


def check_field_validation(directive: str, options_kind: str) -> str:
    """``ValidateFieldValidation``, then the handlers' default: an empty directive is ``Warn`` (v1.23+).

    Examples
    --------
    >>> check_field_validation("", "CreateOptions"), check_field_validation("Strict", "PatchOptions")
    ('Warn', 'Strict')
    >>> check_field_validation("strict", "CreateOptions")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported \
value: "strict": supported values: "Ignore", "Strict", "Warn"
    """
    from kubenotes.apiserver.fieldvalidation import IGNORE, STRICT, WARN

    if not directive:
        return WARN
    if directive not in (IGNORE, STRICT, WARN):
        supported = ", ".join(json.dumps(v) for v in (IGNORE, STRICT, WARN))
        msg = f"fieldValidation: Unsupported value: {json.dumps(directive)}: supported values: {supported}"
        raise new_invalid("meta.k8s.io", options_kind, "", [field_cause("fieldValidation", msg, NOT_SUPPORTED)])
    return directive


def check_propagation_policy(policy: Any) -> None:
    """``ValidateDeleteOptions``: 422 for a ``propagationPolicy`` other than Foreground, Background, Orphan.

    Examples
    --------
    >>> check_propagation_policy("Background")
    >>> check_propagation_policy("foo")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported \
value: "foo": supported values: "Foreground", "Background", "Orphan", "nil"
    """
    if policy is None or policy in PROPAGATION_POLICIES:
        return
    supported = ", ".join(json.dumps(v) for v in (*PROPAGATION_POLICIES, "nil"))
    msg = f"propagationPolicy: Unsupported value: {json.dumps(policy)}: supported values: {supported}"
    raise new_invalid("meta.k8s.io", "DeleteOptions", "", [field_cause("propagationPolicy", msg, NOT_SUPPORTED)])


def json_depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text (strings skipped).

    Examples
    --------
    >>> json_depth(b'{"a": [[1], "]]]"]}')
    3
    """
    import itertools
    import re

    bare = re.sub(rb'"(?:[^"\\]|\\.)*"', b"", raw)
    steps = (1 if c in b"[{" else -1 for c in bare if c in b"[]{}")
    return max(itertools.accumulate(steps, initial=0))


def decode_json(raw: bytes, kind: str) -> Any:
    """A JSON request body; up to :data:`MAX_JSON_DEPTH` levels of nesting, as Go's decoder takes.

    Raises
    ------
    ApiError
        400 BadRequest for text that is not JSON, or nested deeper than :data:`MAX_JSON_DEPTH`
        (``transformDecodeError``'s "the object provided is unrecognized" with the decoder's error).
    """
    import sys

    if raw.count(b"[") + raw.count(b"{") > MAX_JSON_DEPTH:  # only then can it nest too deep
        if json_depth(raw) > MAX_JSON_DEPTH:
            summary = raw[:30].decode("utf-8", "replace") + (" ..." if len(raw) > 30 else "")
            raise new_bad_request(f"the object provided is unrecognized (must be of type {kind}): couldn't get "
                                  f"version/kind; json parse error: exceeded max depth ({summary})")
        with _DEEP_LOCK:  # Python's decoder recurses once per level: let it go as deep as Go's
            if sys.getrecursionlimit() < 4 * MAX_JSON_DEPTH:
                sys.setrecursionlimit(4 * MAX_JSON_DEPTH)
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise new_bad_request(f"error decoding request body: {e}") from None


_DEEP_LOCK = threading.Lock()


NOT_OLDER_THAN = "NotOlderThan"
INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end"


def watch_list_options(query: Any, watch_list: bool = True) -> tuple[bool | None, str]:
    """A watch's ``sendInitialEvents`` and ``resourceVersionMatch``, defaulted and validated.

    ``SetListOptionsDefaults``: with the WatchList feature on, a watch from no
    resourceVersion (or ``"0"``) that sets neither becomes
    ``sendInitialEvents=true&resourceVersionMatch=NotOlderThan``; then
    ``validateWatchOptions``.

    Parameters
    ----------
    query : mapping
        The request's query parameters.
    watch_list : bool
        Whether the ``WatchList`` feature gate is on (beta, on by default in v1.34).

    Raises
    ------
    ApiError
        422 Invalid on ``ListOptions.meta.k8s.io`` with upstream's field errors.

    Examples
    --------
    >>> watch_list_options({"watch": "true"})
    (True, 'NotOlderThan')
    >>> watch_list_options({"watch": "true", "resourceVersion": "12"})
    (None, '')
    >>> watch_list_options({"watch": "true", "sendInitialEvents": "true"})
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: \
sendInitialEvents requires setting resourceVersionMatch to NotOlderThan
    """
    raw = query.get("sendInitialEvents")
    send: bool | None = None if raw is None else _flag(raw)
    match = query.get("resourceVersionMatch") or ""
    rv = query.get("resourceVersion") or ""
    if watch_list and send is None and not match and rv in ("", "0"):
        send, match = True, NOT_OLDER_THAN
    path = "resourceVersionMatch"
    errs: list[dict] = []
    if send is not None:
        if match != NOT_OLDER_THAN:
            errs.append(field_cause(path, f"{path}: Forbidden: sendInitialEvents requires setting {path} to "
                                          f"{NOT_OLDER_THAN}", FORBIDDEN))
        if not watch_list:
            errs.append(field_cause("sendInitialEvents", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden "
                                    "for watch unless the WatchList feature gate is enabled", FORBIDDEN))
    if match:
        if send is None:
            errs.append(field_cause(path, f"{path}: Forbidden: {path} is forbidden for watch unless "
                                          "sendInitialEvents is provided", FORBIDDEN))
        if match != NOT_OLDER_THAN:
            errs.append(field_cause(path, f'{path}: Unsupported value: "{match}": supported values: '
                                          f'"{NOT_OLDER_THAN}"', NOT_SUPPORTED))
        if query.get("continue"):
            errs.append(field_cause(path, f"{path}: Forbidden: {path} is forbidden when continue is provided",
                                    FORBIDDEN))
    if errs:
        raise new_invalid("meta.k8s.io", "ListOptions", "", errs)
    return send, match


def _component(user_agent: str) -> str:
    """``kubectl1.33.0/v1.33.0 (linux/amd64) kubernetes/abc`` -> ``kubectl``."""
    head = (user_agent or "http").split("/", 1)[0].strip()
    for prefix in ("kubectl", "kubenotes"):
        if head.startswith(prefix):
            return prefix
    return head or "http"


def create_app(server: Any, *, lock: Any = None, authenticator: Any = None, git_version: str = GIT_VERSION,
               stopping: threading.Event | None = None) -> Any:
    """The ASGI application serving ``server`` as the Kubernetes REST API.

    Parameters
    ----------
    server : APIServer
    lock : context manager, optional
        Held around every touch of ``server`` (and so of its SimPy
        environment); a ``threading.RLock`` shared with whatever advances the
        clock. A new one when omitted.
    authenticator : TokenAuthenticator, optional
        Checks ``Authorization: Bearer`` (default: the admin token, and
        service-account tokens checked against the store).
    git_version : str
        ``/version``'s ``gitVersion``.
    stopping : threading.Event, optional
        Set when the server shuts down: open watches end.

    Returns
    -------
    starlette.applications.Starlette

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> app = create_app(APIServer())
    >>> type(app).__name__, [r.path for r in app.routes][:3]
    ('Starlette', ['/version', '/version/', '/healthz'])
    """
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    from kubenotes.apiserver.authn import TokenAuthenticator

    lock = lock if lock is not None else threading.RLock()
    stopping = stopping if stopping is not None else threading.Event()
    if authenticator is None:
        authenticator = getattr(server, "authenticator", None) or TokenAuthenticator(
            reader=server, epoch=getattr(server, "epoch", None))

    def json_response(body: Any, code: int = 200) -> Response:
        warnings = RESPONSE_WARNINGS.get() or []
        headers = [("Warning", f"299 - {json.dumps(w)}") for w in dict.fromkeys(warnings)]
        resp = Response(json.dumps(body, separators=(",", ":")), status_code=code, media_type="application/json")
        for k, v in headers:  # one header per warning (upstream's warning.AddWarning), not one joined value
            resp.raw_headers.append((k.lower().encode("latin-1"), v.encode("latin-1", "replace")))
        return resp

    def error_response(err: ApiError) -> Response:
        return json_response(err.status, err.code)

    def authenticate_sync(header: str | None) -> UserInfo | None:
        with lock:  # service-account tokens are checked against the store
            try:
                return authenticator.authenticate_header(header, float(server.env.now))
            except Exception:  # noqa: BLE001 - a token no authenticator can read is no user: 401, never a 500
                return None

    async def authenticate(request: Request) -> UserInfo:
        header = request.headers.get("authorization")
        static = getattr(authenticator, "static_user", None)
        user = static(header) if static is not None else None  # a static token: no lock, no worker thread
        if user is None:
            user = await run_in_threadpool(authenticate_sync, header)
        if user is None:
            raise new_unauthorized()
        as_user = request.headers.get("impersonate-user")
        if as_user:
            return impersonate(user, as_user, request.headers.getlist("impersonate-group"))
        return user

    def impersonate(user: UserInfo, as_user: str, as_groups: list[str]) -> UserInfo:
        """``kubectl --as``: the impersonation filter, simplified to "members of system:masters may impersonate".

        Upstream asks the authorizer for verb ``impersonate`` on ``users``/``groups``/``serviceaccounts``;
        here only ``system:masters`` may, and anyone else gets upstream's Forbidden for ``users``.
        A service-account name gets its groups as the authenticator would give them.
        """
        if "system:masters" not in user.groups:
            from kubenotes.apiserver.status import new_forbidden_request

            raise new_forbidden_request(user.name, "impersonate", "", "users", "", "", as_user)
        groups = list(as_groups)
        if as_user.startswith("system:serviceaccount:") and not groups:
            ns = as_user.split(":")[2]
            groups = ["system:serviceaccounts", f"system:serviceaccounts:{ns}"]
        if "system:authenticated" not in groups:
            groups.append("system:authenticated")
        return UserInfo(as_user, groups=tuple(groups))

    async def read_raw(request: Request) -> bytes:
        """The body, at most :data:`MAX_REQUEST_BODY_BYTES` (``limitedReadBody``: 413 beyond)."""
        too_large = new_request_entity_too_large(f"limit is {MAX_REQUEST_BODY_BYTES}")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_REQUEST_BODY_BYTES:
            raise too_large
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_REQUEST_BODY_BYTES:
                raise too_large
            chunks.append(chunk)
        return b"".join(chunks)

    async def read_body(request: Request, kind: str = "", patch: bool = False) -> Any:
        raw = await read_raw(request)
        if not raw:
            return None
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower() or "application/json"
        if patch:  # the patch type was checked against the supported ones
            media = "application/yaml" if ctype == APPLY_PATCH else "application/json"
        elif ctype not in BODY_MEDIA_TYPES:
            raise new_unsupported_media_type(ctype, BODY_MEDIA_TYPES)
        else:
            media = ctype
        if media == "application/vnd.kubernetes.protobuf":
            return decode_protobuf(raw)
        if media == "application/yaml":  # server-side apply, or a YAML body (the yaml serializer)
            from kubenotes.api.yamlutil import YAMLError, load as load_yaml

            try:
                return load_yaml(raw.decode("utf-8", errors="replace"))
            except (YAMLError, ValueError, RecursionError) as e:
                raise new_bad_request(f"error converting YAML to JSON: {e}") from None
        return decode_json(raw, kind or "Object")

    def check_group_version(ri: ResourceInfo, body: Any) -> None:
        """A create's or update's body in another version of the URL's group is 400, as upstream.

        create.go and update.go decode the body with the URL's group-version
        as the default, then refuse an object whose group-version is not the
        URL's (``RequestScope.AcceptsGroupVersion``: only the scope's own
        version; no built-in resource sets a delegate): an ``autoscaling/v1``
        HorizontalPodAutoscaler sent to ``autoscaling/v2``'s URL is not converted.
        A body of another group, or without ``apiVersion``, is left to the decoding that follows.
        """
        if ri.__class__ is not ResourceInfo or not isinstance(body, dict):
            return
        version = body.get("apiVersion")
        if (isinstance(version, str) and version and version != ri.api_version
                and version.rpartition("/")[0] == ri.api_version.rpartition("/")[0]):
            raise new_bad_request(f"the API version in the data ({version}) does not match the expected API "
                                  f"version ({ri.api_version})")

    def check_resource_version(rv: str) -> None:
        """A list's or watch's ``resourceVersion`` must be a number (``APIObjectVersioner.ParseResourceVersion``)."""
        if rv and not (rv.isascii() and rv.isdigit()):
            raise new_bad_request(f'resourceVersion: Invalid value: {json.dumps(rv)}: strconv.ParseUint: '
                                  f'parsing {json.dumps(rv)}: invalid syntax')

    def wants_table(request: Request) -> bool:
        return _TABLE_MEDIA in request.headers.get("accept", "")

    def table(ri: ResourceInfo, objects: list[dict], meta: dict | None = None, include: str = "",
              now: float | None = None) -> dict:
        """The Table of ``objects`` at virtual second ``now`` (default: the clock's, read under the lock)."""
        from kubenotes.apiserver.apiextensions.tableconvertor import table_for_columns
        from kubenotes.apiserver.tables import table_for

        if now is None:
            with lock:
                now = float(server.env.now)
        t = (table_for(ri.resource, objects, now, wide=True) if ri.__class__ is ResourceInfo
             else table_for_columns(ri.crd.columns, objects, now))  # a CRD's printer columns
        if include == "Object":  # ?includeObject=Object (kubectl --sort-by): whole objects in the rows
            for row, o in zip(t["rows"], objects):
                row["object"] = o
        elif include == "None":
            for row in t["rows"]:
                row.pop("object", None)
        if meta:
            t["metadata"] = {k: v for k, v in meta.items() if k in ("resourceVersion", "continue",
                                                                   "remainingItemCount")}
        return t

    # ------------------------------------------------------------ non-resource endpoints
    async def version(request: Request) -> Response:
        try:
            await authenticate(request)
        except ApiError as e:
            return error_response(e)
        return json_response(version_info(git_version))

    async def health(request: Request) -> Response:
        try:
            await authenticate(request)
        except ApiError as e:
            return error_response(e)
        return Response("ok", media_type="text/plain")

    async def openid_metadata(request: Request) -> Response:
        """Service-account issuer discovery (``pkg/routes/openidmetadata.go``); anonymous when no token is sent."""
        from kubenotes.apiserver import openidmetadata
        from kubenotes.apiserver.authn import ANONYMOUS_USER

        try:
            user = await authenticate(request) if request.headers.get("authorization") else ANONYMOUS_USER
            with lock:
                body, media = openidmetadata.metadata_response(server, user, request.url.path, request.url.netloc)
        except ApiError as e:
            return error_response(e)
        return Response(body, media_type=media, headers={"Cache-Control": openidmetadata.CACHE_CONTROL})

    async def discovery(request: Request) -> Response:
        try:
            await authenticate(request)
            return discovery_answer(request)
        except ApiError as e:
            return error_response(e)
        except Exception as e:  # noqa: BLE001 - a bug must reach the client as a 500 Status
            return error_response(new_internal_error(f"{type(e).__name__}: {e}"))

    def discovery_answer(request: Request) -> Response:
        path = request.url.path.rstrip("/")
        parts = [p for p in path.split("/") if p]
        accept = request.headers.get("accept", "")
        aggregated = "as=APIGroupDiscoveryList" in accept
        if aggregated and len(parts) == 1:
            body = discovery_docs.aggregated_discovery(parts[0], _extra(server))
            mt = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
            return Response(json.dumps(body, separators=(",", ":")), media_type=mt,
                            headers={"Vary": "Accept"})
        if parts == ["api"]:
            return json_response(discovery_docs.api_versions())
        if parts == ["apis"]:
            return json_response(discovery_docs.api_group_list(_extra(server)))
        if len(parts) == 2 and parts[0] == "api":
            group, ver = "", parts[1]
        elif len(parts) == 2 and parts[0] == "apis":
            vs = _groups(_extra(server)).get(parts[1])
            if vs is None:
                return error_response(_not_found_path())
            return json_response({"kind": "APIGroup", "apiVersion": "v1", **_api_group(parts[1], vs)})
        else:
            group, ver = parts[1], parts[2]
        try:
            body = discovery_docs.api_resource_list(group, ver, _extra(server))
        except LookupError:
            body = None
        if body is None:
            return error_response(_not_found_path())
        return json_response(body)

    async def openapi(request: Request) -> Response:
        try:
            await authenticate(request)
            return await run_in_threadpool(openapi_answer, request)
        except ApiError as e:
            return error_response(e)
        except Exception as e:  # noqa: BLE001
            return error_response(new_internal_error(f"{type(e).__name__}: {e}"))

    async def openapi_v2(request: Request) -> Response:
        """The OpenAPI v2 document kubectl falls back to for a group-version /openapi/v3 lacks (protobuf only)."""
        try:
            await authenticate(request)
        except ApiError as e:
            return error_response(e)
        return Response(openapi_docs.openapi_v2_protobuf(git_version), media_type=openapi_docs.OPENAPI_V2_PROTOBUF)

    def openapi_answer(request: Request) -> Response:
        rest = request.url.path[len("/openapi/v3"):].strip("/")
        try:
            with lock:
                custom = server.crds.served()
            gated = server.gated_served  # enabled off-by-default APIs (MutatingAdmissionPolicy)
            if not rest:
                body = openapi_docs.openapi_v3_index(custom)
                body["paths"].update(openapi_docs.gated_index_entries(gated))
            else:
                body = (openapi_docs.gated_document(rest, gated)
                        or openapi_docs.openapi_v3_document(rest, custom))
        except (KeyError, LookupError):
            body = None
        if body is None:
            return error_response(_not_found_path())
        return json_response(body)

    # ------------------------------------------------------------ resources
    async def resource(request: Request) -> Response:
        RESPONSE_WARNINGS.set([])
        DECODING_BODY.set(True)
        try:
            user = await authenticate(request)
            info = parse_request_path(request.url.path)
            if info is None:
                top = "/" + request.url.path.strip("/").split("/", 1)[0]
                if top in _NOT_SERVED_PATHS:
                    raise _status(404, "NotFound", _NOT_SERVED_PATHS[top], {})
                raise _not_found_path()
            ri = _BY_GVR.get((info.group, info.version, info.resource)) or _gated(
                server, info.group, info.version, info.resource) or server.crds.lookup(
                info.group, info.version, info.resource)  # a built-in resource, an enabled beta one, or a CRD's
            if ri is None:
                raise _not_found_path()
            if ri.__class__ is not ResourceInfo and ri.crd.deprecation_warning:
                RESPONSE_WARNINGS.get().append(ri.crd.deprecation_warning)  # a deprecated CRD version
            if ri.kind == "Pod" and info.name and info.subresource in _CONNECT_SUBRESOURCES:
                return await run_in_threadpool(do_connect, user, ri, info, request.query_params.get("container")
                                               or "", _component(request.headers.get("user-agent", "")))
            if info.subresource and info.subresource not in ri.subresources:
                raise _not_found_path()
            q = request.query_params
            method = request.method
            component = _component(request.headers.get("user-agent", ""))
            options_kind = {"POST": "CreateOptions", "PUT": "UpdateOptions", "PATCH": "PatchOptions",
                            "DELETE": "DeleteOptions"}.get(method)
            dry_run = check_dry_run(q.getlist("dryRun"), options_kind) if options_kind else False
            ns = info.namespace if ri.namespaced else ""

            extra = {k: q[k] for k in ("fieldManager", "fieldValidation") if q.get(k)}
            if options_kind in ("CreateOptions", "UpdateOptions", "PatchOptions"):
                extra["fieldValidation"] = check_field_validation(q.get("fieldValidation") or "", options_kind)
            if _flag(q.get("force")) and "force" in q:
                extra["force"] = True

            def attrs(verb: str) -> Attributes:
                return Attributes(user, verb, ri, info.subresource, ns, info.name, dry_run, component, dict(extra))

            if method == "GET" and not info.name:
                if _flag(q.get("watch")) and "watch" in q:
                    return await watch(request, ri, attrs("watch"))
                return await run_in_threadpool(do_list, request, ri, attrs("list"))
            if method == "GET":
                if info.subresource == "log":
                    return await pod_log(request, attrs("get"))
                return await run_in_threadpool(do_get, request, ri, attrs("get"))
            ptype = None
            if method == "PATCH" and info.name:
                ctype = request.headers.get("content-type", "").split(";")[0].strip()
                ptype = APPLY_PATCH if ctype == APPLY_PATCH else _PATCH_TYPES.get(ctype)
                if ptype is None:
                    raise _status(415, "UnsupportedMediaType", f"the body of the request was in an unknown "
                                                               f"format - accepted media types include: "
                                                               f"{JSON_PATCH}, {MERGE_PATCH}, "
                                                               f"{STRATEGIC_MERGE_PATCH}", {})
            body = await read_body(request, ri.kind, patch=ptype is not None)
            if method in ("POST", "PUT") and not info.subresource:
                check_group_version(ri, body)
            if method == "POST" and not info.name:
                if not isinstance(body, dict):
                    raise new_bad_request("the object provided is unrecognized (must be of type map)")
                return await run_in_threadpool(locked, lambda: (server.create(attrs("create"), body), 201))
            if method == "POST" and info.subresource:
                return await run_in_threadpool(locked, lambda: (server.create(attrs("create"), body or {}), 201))
            if method == "PUT" and info.name:
                return await run_in_threadpool(locked, lambda: (server.update(attrs("update"), body or {}), 200))
            if method == "PATCH" and info.name:
                if ptype == APPLY_PATCH:
                    def apply_call() -> tuple[Any, int]:
                        with lock:
                            existed = server.store.get(ri, ns or None, info.name) is not None
                            return server.patch(attrs("patch"), body, ptype), 200 if existed else 201
                    return await run_in_threadpool(locked, apply_call)
                return await run_in_threadpool(locked, lambda: (server.patch(attrs("patch"), body, ptype), 200))
            if method == "DELETE":
                opts = delete_options(body, q)
                if opts.get("dryRun"):
                    dry_run = check_dry_run(opts["dryRun"], "DeleteOptions") or dry_run
                if info.name:
                    return await run_in_threadpool(do_delete, attrs("delete"), opts)
                return await run_in_threadpool(do_delete_collection, request, ri, attrs("deletecollection"), opts,
                                               q)
            raise _status(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                                                   "resource", {})
        except ApiError as e:
            return error_response(e)
        except KubenotesError as e:  # bad selectors and the like: the request's fault
            return error_response(new_bad_request(str(e)))
        except Exception as e:  # noqa: BLE001 - a bug in the model must reach kubectl as a 500, not a hang
            return error_response(new_internal_error(f"{type(e).__name__}: {e}"))

    def locked(fn: Callable[[], tuple[Any, int]]) -> Response:
        try:
            with lock:
                out, code = fn()
        except ApiError as e:
            return error_response(e)
        except KubenotesError as e:
            return error_response(new_bad_request(str(e)))
        return json_response(out, code)

    def do_connect(user: UserInfo, ri: ResourceInfo, info: RequestInfo, container: str, component: str) -> Response:
        """exec/attach/portforward: upstream's checks, then a 400 saying no process runs (never an upgrade)."""
        a = Attributes(user, "create", ri, info.subresource, info.namespace, info.name, False, component)
        try:
            with lock:
                server.connect(a, container)
        except ApiError as e:
            return error_response(e)
        return error_response(new_internal_error("connect returned without an answer"))  # not reached

    async def pod_log(request: Request, a: Attributes) -> Response:
        """``GET pods/<name>/log``: text/plain, or a chunked stream with ``follow``."""
        opts = pod_log_options(request.query_params)

        def open_log() -> tuple[Any, str]:
            with lock:
                reader = server.pod_log(a, opts)
                return reader, (reader.read() if reader is not None else "")

        reader, first = await run_in_threadpool(open_log)
        if reader is None or reader.done:
            return Response(first, media_type="text/plain")

        def more() -> tuple[str, bool]:
            with lock:
                return reader.read(), reader.done

        async def stream() -> AsyncIterator[bytes]:
            yield first.encode()
            while not stopping.is_set():
                text, done = await run_in_threadpool(more)
                if text:
                    yield text.encode()
                if done:
                    break
                await asyncio.sleep(LOG_FOLLOW_POLL_SECONDS)

        return StreamingResponse(stream(), media_type="text/plain", headers={"Transfer-Encoding": "chunked"})

    def do_list(request: Request, ri: ResourceInfo, a: Attributes) -> Response:
        q = request.query_params
        cont = q.get("continue") or ""
        try:
            limit = query_int(q, "limit") or 0
            if cont and (q.get("resourceVersion") or "0") != "0":  # etcd3 GetList / cacher
                raise new_bad_request("specifying resource version is not allowed when using continue")
            rv = q.get("resourceVersion") or ""
            check_resource_version(rv)
            with lock:  # the stored objects themselves (never changed in place: a write stores a new one)
                if rv and int(rv) > server.store.revision:  # cacher GetList: waitUntilFreshAndBlock gives up
                    raise new_too_large_resource_version(int(rv), server.store.revision)
                out = server.list_objects(a, label_selector=q.get("labelSelector") or "",
                                          field_selector=q.get("fieldSelector") or "", limit=limit,
                                          continue_token=cont, copy=False)
                now = float(server.env.now)
            # the table and the JSON of a long list are made without the lock: the clock goes on meanwhile
            if wants_table(request):
                out = table(ri, out["items"], out["metadata"], q.get("includeObject") or "", now)
        except ApiError as e:
            return error_response(e)
        except KubenotesError as e:
            return error_response(new_bad_request(str(e)))
        return json_response(out)

    def do_get(request: Request, ri: ResourceInfo, a: Attributes) -> Response:
        try:
            with lock:
                out = server.get_object(a)
                if wants_table(request) and not a.subresource:
                    out = table(ri, [out], {"resourceVersion": out["metadata"].get("resourceVersion", "")},
                                request.query_params.get("includeObject") or "")
        except ApiError as e:
            return error_response(e)
        return json_response(out)

    def delete_options(body: Any, q: Any) -> dict:
        """``DeleteOptions`` from the body, or from the query when there is no body (as delete.go reads them).

        A body that is not an object, or whose fields have the wrong JSON types, is 400 BadRequest with the
        decoder's error (upstream answers it with a 500, the decoder's error not being a Status).
        """
        from kubenotes.apiserver.fieldvalidation import type_error

        if body is None:
            opts: dict[str, Any] = {}
            grace = query_int(q, "gracePeriodSeconds")
            if grace is not None:
                opts["gracePeriodSeconds"] = grace
            if q.get("propagationPolicy") is not None:
                opts["propagationPolicy"] = q.get("propagationPolicy")
            if q.getlist("dryRun"):
                opts["dryRun"] = q.getlist("dryRun")
            if "orphanDependents" in q:
                opts["orphanDependents"] = _flag(q.get("orphanDependents"))
        elif not isinstance(body, dict):
            from kubenotes.apiserver.fieldvalidation import _go_kind

            raise new_bad_request("couldn't get version/kind; json parse error: json: cannot unmarshal "
                                  f"{_go_kind(body)} into Go value of type struct {{ APIVersion string "
                                  '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
        else:
            err = type_error(body, "v1", "DeleteOptions")
            if err:
                raise new_bad_request(err)
            opts = body
        check_propagation_policy(opts.get("propagationPolicy"))
        return opts

    def do_delete(a: Attributes, opts: dict) -> Response:
        grace = opts.get("gracePeriodSeconds")
        policy = opts.get("propagationPolicy")
        if opts.get("dryRun"):
            a.dry_run = True
        try:
            with lock:
                before = server.store.get(a.resource, a.namespace or None, a.name)
                out = server.delete(a, grace_period_seconds=grace, propagation_policy=policy,
                                    preconditions=opts.get("preconditions"))
                still = server.store.get(a.resource, a.namespace or None, a.name)
        except ApiError as e:
            return error_response(e)
        if still is not None or a.resource.kind == "Pod" or a.dry_run:
            return json_response(out)
        md = (before or out).get("metadata") or {}
        details = {"name": a.name, "group": a.resource.group, "kind": a.resource.resource, "uid": md.get("uid", "")}
        return json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                              "details": {k: v for k, v in details.items() if v}})

    def do_delete_collection(request: Request, ri: ResourceInfo, a: Attributes, opts: dict, q: Any) -> Response:
        grace = opts.get("gracePeriodSeconds")
        try:
            with lock:
                la = Attributes(a.user, "list", ri, "", a.namespace, "", a.dry_run, a.component)
                server.authorize(Attributes(a.user, "deletecollection", ri, "", a.namespace, "", a.dry_run,
                                            a.component))
                items = server.list_objects(la, label_selector=q.get("labelSelector") or "",
                                            field_selector=q.get("fieldSelector") or "")["items"]
                out = []
                for o in items:
                    md = o["metadata"]
                    da = Attributes(a.user, "delete", ri, "", md.get("namespace", ""), md["name"], a.dry_run,
                                    a.component)
                    out.append(server.delete(da, grace_period_seconds=grace,
                                             propagation_policy=opts.get("propagationPolicy")))
        except ApiError as e:
            return error_response(e)
        return json_response({"kind": ri.list_kind, "apiVersion": ri.api_version, "metadata": {}, "items": out})

    async def watch(request: Request, ri: ResourceInfo, a: Attributes) -> Response:
        q = request.query_params
        rv = q.get("resourceVersion") or ""
        bookmarks = _flag(q.get("allowWatchBookmarks")) and "allowWatchBookmarks" in q
        try:
            timeout = float(query_int(q, "timeoutSeconds") or DEFAULT_WATCH_TIMEOUT_SECONDS)
            check_resource_version(rv)
        except ApiError as e:
            return error_response(e)
        as_table = wants_table(request)
        include = q.get("includeObject") or ""
        ls, fs = q.get("labelSelector") or "", q.get("fieldSelector") or ""
        try:
            send_initial, _ = watch_list_options(q, server.feature_gates.enabled("WatchList"))
        except ApiError as e:
            return error_response(e)
        end_rv: list[str] = []  # the initial-events-end bookmark's revision, when one is due

        def open_watch() -> tuple[Any, list]:
            with lock:
                if rv and int(rv) > server.store.revision:  # cacher: waitUntilFreshAndBlock gives up
                    raise new_too_large_resource_version(int(rv), server.store.revision)
                initial = []
                from_now = rv in ("", "0") or send_initial
                if from_now and send_initial is not False:
                    # the state at the current revision (NotOlderThan: never older than rv), then what follows
                    la = Attributes(a.user, "list", ri, "", a.namespace, "", False, a.component)
                    listed = server.list_objects(la, label_selector=ls, field_selector=fs)
                    initial = listed["items"]
                    if send_initial and bookmarks:
                        end_rv.append(listed["metadata"]["resourceVersion"])
                w = server.watch(a, resource_version="" if from_now else rv, label_selector=ls,
                                 field_selector=fs)
                w.owner = f"{a.component} (http watch)"
                return w, initial

        try:
            w, initial = await run_in_threadpool(open_watch)
        except ApiError as e:
            if e.code == 410:
                # cacher.go Watch: once the request is authorized and its resourceVersion parsed, a
                # too-old revision is a watch that emits one ERROR event (200), not an HTTP error
                line = json.dumps({"type": "ERROR", "object": e.status}, separators=(",", ":")) + "\n"
                return Response(line.encode(), media_type="application/json")
            return error_response(e)
        except KubenotesError as e:
            return error_response(new_bad_request(str(e)))

        first = [True]

        def encode(etype: str, obj: dict, now: float) -> bytes:
            if as_table:
                if etype == BOOKMARK:
                    obj = {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                           "metadata": {"resourceVersion": obj["metadata"].get("resourceVersion", "")},
                           "columnDefinitions": [], "rows": []}
                else:
                    obj = table(ri, [obj], {"resourceVersion": obj["metadata"].get("resourceVersion", "")},
                                include, now)
                    if not first[0]:
                        obj["columnDefinitions"] = []
                    first[0] = False
            return (json.dumps({"type": etype, "object": obj}, separators=(",", ":")) + "\n").encode()

        def initial_chunks() -> list[bytes]:
            with lock:
                now = float(server.env.now)
            chunks = [encode(ADDED, o, now) for o in initial]
            if end_rv:  # cacher: the bookmark that ends the initial events (WatchList)
                chunks.append(encode(BOOKMARK, {
                    "kind": ri.kind, "apiVersion": ri.api_version, "metadata": {
                        "resourceVersion": end_rv[0],
                        "annotations": {INITIAL_EVENTS_END_ANNOTATION: "true"}}}, now))
            return chunks

        def take() -> list[bytes]:
            """The pending events, encoded; taken under the lock (waiting for it in a worker thread), encoded
            without it (events hold stored objects, which no write changes in place)."""
            with lock:
                events = [(e.type, e.object) for e in w.pop_all()] if w.pending() else []
                now = float(server.env.now)
            return [encode(t, o, now) for t, o in events if t != BOOKMARK or bookmarks]

        async def stream() -> AsyncIterator[bytes]:
            deadline = time.monotonic() + timeout
            try:
                for c in await run_in_threadpool(initial_chunks):
                    yield c
                while not stopping.is_set() and time.monotonic() < deadline:
                    pending = w.pending()  # a length: read without the lock, as a hint
                    if pending:
                        for c in await run_in_threadpool(take):
                            yield c
                    if w.stopped:
                        break
                    if not pending:
                        await asyncio.sleep(WATCH_POLL_SECONDS)
            finally:
                with lock:
                    w.stop()

        media = "application/json"
        return StreamingResponse(stream(), media_type=media, headers={"Transfer-Encoding": "chunked"})

    routes = [
        Route("/version", version, methods=["GET"]),
        Route("/version/", version, methods=["GET"]),
        Route("/healthz", health, methods=["GET"]),
        Route("/livez", health, methods=["GET"]),
        Route("/readyz", health, methods=["GET"]),
        Route("/api", discovery, methods=["GET"]),
        Route("/api/", discovery, methods=["GET"]),
        Route("/apis", discovery, methods=["GET"]),
        Route("/apis/", discovery, methods=["GET"]),
        Route("/api/{version}", discovery, methods=["GET"]),
        Route("/apis/{group}", discovery, methods=["GET"]),
        Route("/apis/{group}/{version}", discovery, methods=["GET"]),
        Route("/openapi/v2", openapi_v2, methods=["GET"]),
        Route("/openapi/v3", openapi, methods=["GET"]),
        Route("/openapi/v3/{path:path}", openapi, methods=["GET"]),
        *(Route(p, openid_metadata, methods=["GET"]) for p in ("/.well-known/openid-configuration",
                                                                "/.well-known/openid-configuration/",
                                                                "/openid/v1/jwks", "/openid/v1/jwks/")),
        Route("/{path:path}", resource, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
    ]
    class HttpLog:
        """Record each request in ``server.http_log`` when that is a list (``APIServer.trace_http``)."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            log = getattr(server, "http_log", None)
            if scope["type"] != "http" or log is None:
                await self.inner(scope, receive, send)
                return
            query = scope.get("query_string", b"").decode("latin-1")
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            with lock:
                now = float(server.env.now)
            entry = {"time": now, "method": scope["method"],
                     "url": scope["path"] + (f"?{query}" if query else ""),
                     "user_agent": headers.get("user-agent", ""), "accept": headers.get("accept", ""),
                     "content_type": headers.get("content-type", ""), "code": 0,
                     "watch": "watch=1" in query or "watch=true" in query, "requests": []}
            log.append(entry)
            token = HTTP_REQUEST.set(entry)

            async def send_status(message: dict) -> None:
                if message["type"] == "http.response.start":
                    entry["code"] = message["status"]
                await send(message)

            try:
                await self.inner(scope, receive, send_status)
            finally:
                HTTP_REQUEST.reset(token)

    class EpochContext:
        """Serve every request inside ``using_epoch(server.epoch)``: tables, ages and timestamps use the cluster's epoch."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            with using_epoch(getattr(server, "epoch", None)):
                await self.inner(scope, receive, send)

    app = Starlette(routes=routes, middleware=[Middleware(EpochContext), Middleware(HttpLog)])
    app.state.server = server
    app.state.lock = lock
    app.state.stopping = stopping
    return app
