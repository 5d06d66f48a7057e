"""API errors as upstream's ``metav1.Status`` objects.

Every request the model's API server refuses raises :class:`ApiError`, whose
``status`` is the ``Status`` document a real API server would send (kind,
reason, code, message, details). The messages are worded as
``k8s.io/apimachinery/pkg/api/errors`` words them, so ``kubectl`` (issue #8)
and a learner reading a notebook see upstream's text.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (StatusReason)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from kubenotes.errors import KubenotesError

__all__ = [
    "ApiError",
    "qualified_resource",
    "qualified_kind",
    "new_not_found",
    "new_already_exists",
    "new_conflict",
    "new_invalid",
    "new_forbidden",
    "new_forbidden_request",
    "new_unauthorized",
    "new_resource_expired",
    "new_bad_request",
    "new_request_entity_too_large",
    "new_unsupported_media_type",
    "new_too_large_resource_version",
    "new_method_not_supported",
    "new_too_many_requests",
    "new_internal_error",
    "new_service_unavailable",
    "field_cause",
    "aggregate_causes",
]


class ApiError(KubenotesError):
    """A request the API server refused; ``status`` is the ``metav1.Status`` body.

    Parameters
    ----------
    status : dict
        ``{"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": str, "reason": str, "details": dict, "code": int}``.

    Attributes
    ----------
    code : int
        HTTP status code (404, 409, 422, ...).
    reason : str
        ``NotFound``, ``AlreadyExists``, ``Conflict``, ``Invalid``, ``Forbidden``,
        ``Unauthorized``, ``Expired``, ``BadRequest``, ``MethodNotAllowed``,
        ``TooManyRequests``, ``InternalError``, ``ServiceUnavailable``.
    message : str
    causes : list of dict
        ``details.causes`` (``{"reason", "message", "field"}``), empty when absent.

    Returns
    -------
    ApiError
        An exception whose ``str()`` is ``status["message"]`` (empty when it has
        none); ``code`` defaults to 500 when the status has no ``code``.

    Raises
    ------
    AttributeError
        When ``status`` is not a mapping (it has no ``get``).

    See Also
    --------
    new_not_found : one of the constructors of the usual errors (``NewNotFound``...).

    Notes
    -----
    Upstream's ``StatusError`` wraps a typed ``metav1.Status``; here the
    status is the JSON-shaped dict the API server would send.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go (StatusError)

    Examples
    --------
    >>> e = new_not_found("", "pods", "web")
    >>> e.code, e.reason, str(e)
    (404, 'NotFound', 'pods "web" not found')
    """

    def __init__(self, status: dict):
        self.status = status
        super().__init__(status.get("message", ""))

    @property
    def code(self) -> int:
        return int(self.status.get("code", 500))

    @property
    def reason(self) -> str:
        return str(self.status.get("reason", ""))

    @property
    def message(self) -> str:
        return str(self.status.get("message", ""))

    @property
    def causes(self) -> list[dict]:
        return list((self.status.get("details") or {}).get("causes") or [])


def _status(code: int, reason: str, message: str, details: Mapping[str, Any] | None = None) -> ApiError:
    st: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                          "message": message, "reason": reason}
    if details:
        st["details"] = dict(details)
    st["code"] = code
    return ApiError(st)


def qualified_resource(group: str, resource: str) -> str:
    """``schema.GroupResource.String()``: ``pods`` or ``deployments.apps``.

    Examples
    --------
    >>> qualified_resource("apps", "deployments"), qualified_resource("", "pods")
    ('deployments.apps', 'pods')
    """
    return f"{resource}.{group}" if group else resource


def qualified_kind(group: str, kind: str) -> str:
    """``schema.GroupKind.String()``: ``Pod`` or ``Deployment.apps``."""
    return f"{kind}.{group}" if group else kind


def _details(group: str, kind_or_resource: str, name: str, **extra: Any) -> dict:
    d: dict[str, Any] = {}
    if name:
        d["name"] = name
    if group:
        d["group"] = group
    d["kind"] = kind_or_resource
    d.update({k: v for k, v in extra.items() if v})
    return d


def new_not_found(group: str, resource: str, name: str) -> ApiError:
    """404 NotFound: ``pods "web" not found``."""
    return _status(404, "NotFound", f'{qualified_resource(group, resource)} "{name}" not found',
                   _details(group, resource, name))


def new_already_exists(group: str, resource: str, name: str) -> ApiError:
    """409 AlreadyExists: ``pods "web" already exists``."""
    return _status(409, "AlreadyExists", f'{qualified_resource(group, resource)} "{name}" already exists',
                   _details(group, resource, name))


#: The message an update with a stale resourceVersion gets (``registry/generic/registry/store.go``).
OPTIMISTIC_LOCK_ERROR_MSG = "the object has been modified; please apply your changes to the latest version and try again"


def new_conflict(group: str, resource: str, name: str, err: str = OPTIMISTIC_LOCK_ERROR_MSG) -> ApiError:
    """409 Conflict: ``Operation cannot be fulfilled on pods "web": the object has been modified; ...``."""
    return _status(409, "Conflict",
                   f'Operation cannot be fulfilled on {qualified_resource(group, resource)} "{name}": {err}',
                   _details(group, resource, name))


def field_cause(field: str, message: str, reason: str = "FieldValueInvalid") -> dict:
    """One ``StatusCause``: ``{"reason", "message", "field"}`` (``message`` is the field error's full text)."""
    return {"reason": reason, "message": message, "field": field}


def aggregate_causes(messages: Iterable[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message alone, several as ``[a, b]``."""
    msgs = list(dict.fromkeys(messages))  # the aggregate de-duplicates
    if len(msgs) == 1:
        return msgs[0]
    return "[" + ", ".join(msgs) + "]"


def new_invalid(group: str, kind: str, name: str, causes: list[dict]) -> ApiError:
    """422 Invalid: ``Pod "UPPER_case" is invalid: metadata.name: Invalid value: ...``.

    Parameters
    ----------
    causes : list of dict
        :func:`field_cause` entries; each ``message`` is the full field error
        (``metadata.name: Invalid value: "x": ...``). The message joins them;
        the Status's causes keep only each error's body, as upstream's
        ``NewInvalid`` does.

    Examples
    --------
    >>> e = new_invalid("apps", "Deployment", "web", [field_cause(
    ...     "spec.replicas", "spec.replicas: Invalid value: -1: must be greater than or equal to 0")])
    >>> str(e)
    'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'
    >>> e.status["details"]["causes"][0]["message"]
    'Invalid value: -1: must be greater than or equal to 0'
    """
    msg = f'{qualified_kind(group, kind)} "{name}" is invalid: {aggregate_causes(c["message"] for c in causes)}'
    # In the Status, each cause carries the error's body (``err.ErrorBody()``): the path is in ``field`` only.
    bodies = [dict(c, message=c["message"][len(c["field"]) + 2:])
              if c.get("field") and c["message"].startswith(c["field"] + ": ") else dict(c) for c in causes]
    return _status(422, "Invalid", msg, _details(group, kind, name, causes=bodies))


def new_forbidden(group: str, resource: str, name: str, err: str) -> ApiError:
    """403 Forbidden from admission: ``pods "web" is forbidden: exceeded quota: ...``.

    With an empty ``name``: ``pods is forbidden: ...``.
    """
    qr = qualified_resource(group, resource)
    head = f'{qr} "{name}"' if name else qr
    return _status(403, "Forbidden", f"{head} is forbidden: {err}", _details(group, resource, name))


def new_forbidden_request(user: str, verb: str, group: str, resource: str, subresource: str, namespace: str,
                          name: str, reason: str = "") -> ApiError:
    """403 Forbidden from the authorizer, worded as ``endpoints/handlers/responsewriters/errors.go``.

    Examples
    --------
    >>> str(new_forbidden_request("system:serviceaccount:default:viewer", "create", "", "pods", "", "default", ""))
    'pods is forbidden: User "system:serviceaccount:default:viewer" cannot create resource "pods" in API group "" in the namespace "default"'
    """
    res = f"{resource}/{subresource}" if subresource else resource
    if namespace:
        where = f' in the namespace "{namespace}"'
    else:
        where = " at the cluster scope"
    err = f'User "{user}" cannot {verb} resource "{res}" in API group "{group}"{where}'
    if reason:
        err += f": {reason}"
    qr = qualified_resource(group, resource)
    head = f'{qr} "{name}"' if name else qr
    return _status(403, "Forbidden", f"{head} is forbidden: {err}", _details(group, resource, name))


def new_unauthorized(message: str = "Unauthorized") -> ApiError:
    """401 Unauthorized (a request without a valid token)."""
    return _status(401, "Unauthorized", message)


def new_resource_expired(message: str) -> ApiError:
    """410 Expired, as the watch cache answers a watch from a compacted revision.

    Examples
    --------
    >>> e = new_resource_expired("too old resource version: 5 (10)")
    >>> e.code, e.reason
    (410, 'Expired')
    """
    return _status(410, "Expired", message)


def new_bad_request(message: str) -> ApiError:
    """400 BadRequest."""
    return _status(400, "BadRequest", message)


def new_request_entity_too_large(message: str) -> ApiError:
    """413 RequestEntityTooLarge: ``Request entity too large: limit is 3145728`` (``NewRequestEntityTooLargeError``).

    Examples
    --------
    >>> e = new_request_entity_too_large("limit is 3145728")
    >>> e.code, e.reason, str(e)
    (413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728')
    """
    return _status(413, "RequestEntityTooLarge", f"Request entity too large: {message}")


def new_unsupported_media_type(content_type: str, accepted: Iterable[str]) -> ApiError:
    """415 UnsupportedMediaType, worded as ``negotiation.NewUnsupportedMediaTypeError``.

    Examples
    --------
    >>> str(new_unsupported_media_type("text/plain", ["application/json", "application/yaml"]))[-64:]
    'accepted media types include: application/json, application/yaml'
    """
    return _status(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media "
                                                "types include: " + ", ".join(accepted))


def new_too_large_resource_version(requested: int, current: int, retry_after_seconds: int = 1) -> ApiError:
    """504 Timeout for a resourceVersion newer than the store's (``storage.NewTooLargeResourceVersionError``).

    Examples
    --------
    >>> e = new_too_large_resource_version(99, 12)
    >>> e.code, e.reason, str(e), e.causes[0]["reason"]
    (504, 'Timeout', 'Too large resource version: 99, current: 12', 'ResourceVersionTooLarge')
    """
    return _status(504, "Timeout", f"Too large resource version: {requested}, current: {current}",
                   {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                    "retryAfterSeconds": retry_after_seconds})


def new_method_not_supported(group: str, resource: str, verb: str) -> ApiError:
    """405 MethodNotAllowed: ``create is not supported on resources of kind "componentstatuses"``-style text."""
    return _status(405, "MethodNotAllowed",
                   f"{verb} is not supported on resources of kind {qualified_resource(group, resource)!r}".replace("'", '"'),
                   _details(group, resource, ""))


def new_too_many_requests(message: str, retry_after_seconds: int = 0) -> ApiError:
    """429 TooManyRequests, e.g. an eviction a PodDisruptionBudget does not allow."""
    details = {"retryAfterSeconds": retry_after_seconds} if retry_after_seconds else None
    return _status(429, "TooManyRequests", message, details)


def new_internal_error(message: str) -> ApiError:
    """500 InternalError: ``Internal error occurred: ...``."""
    return _status(500, "InternalError", f"Internal error occurred: {message}")


def new_service_unavailable(message: str) -> ApiError:
    """503 ServiceUnavailable."""
    return _status(503, "ServiceUnavailable", message)
