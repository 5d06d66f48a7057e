"""Storage errors as the API errors kube-apiserver answers with (``registry/generic/registry`` ``storeerr``).

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/errors/storage.go (InterpretGetError ...)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/etcd3/errors.go (interpretWatchError,
interpretListError: ``The resourceVersion for the provided watch/list is too old.``)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/finisher/finisher.go
(``request did not complete within requested timeout - context deadline exceeded``)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go
(ErrorToAPIStatus: an error that is no Status is a 500 with its text as message)
"""

from __future__ import annotations

from kubenotes.apiserver.status import (
    ApiError,
    _status,
    new_already_exists,
    new_conflict,
    new_not_found,
    new_resource_expired,
)
from kubenotes.apiserver.storage.interfaces import (
    ERR_COMPACTED,
    ERR_KEY_EXISTS,
    ERR_KEY_NOT_FOUND,
    ERR_RESOURCE_VERSION_CONFLICTS,
    ERR_UNREACHABLE,
    StorageError,
)

__all__ = ["interpret_error", "new_timeout_error", "WATCH_EXPIRED", "LIST_EXPIRED", "DEADLINE_EXCEEDED"]

#: ``interpretWatchError`` for etcd's ErrCompacted.
WATCH_EXPIRED = "The resourceVersion for the provided watch is too old."
#: ``interpretListError`` for etcd's ErrCompacted.
LIST_EXPIRED = "The resourceVersion for the provided list is too old."
#: What a request whose etcd never answered ends with (the etcd client waits for the request's deadline).
DEADLINE_EXCEEDED = "request did not complete within requested timeout - context deadline exceeded"


def new_timeout_error(message: str, retry_after_seconds: int = 0) -> ApiError:
    """``errors.NewTimeoutError``: 504, reason ``Timeout``, message ``Timeout: <message>``.

    Examples
    --------
    >>> e = new_timeout_error(DEADLINE_EXCEEDED)
    >>> e.code, e.reason, e.message
    (504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded')
    """
    details = {"retryAfterSeconds": retry_after_seconds} if retry_after_seconds else None
    return _status(504, "Timeout", f"Timeout: {message}", details)


def interpret_error(err: StorageError, group: str, resource: str, name: str, verb: str) -> ApiError:
    """The API error a request ``verb`` (get, list, watch, create, update, delete) on ``resource`` answers.

    Parameters
    ----------
    err : StorageError
    group, resource, name : str
        What the request was about (``name`` "" for a list or watch).
    verb : str

    Returns
    -------
    ApiError
        404 / 409 (already exists, conflict) as ``storeerr`` maps them; 410
        Expired for a compacted revision; 504 Timeout when etcd did not answer;
        a 500 carrying etcd's own text (``etcdserver: request timed out``,
        ``etcdserver: no leader``) for any error etcd answered with, as
        ``ErrorToAPIStatus`` turns an error that is not a Status.

    Notes
    -----
    ``storeerr`` maps ``storage.ErrCodeUnreachable`` to a 500 ServerTimeout,
    but etcd3's store passes etcd client errors on unwrapped: an etcd that does
    not answer holds the request until its deadline, which the handler reports
    as 504 Timeout. The model's client gives up after its own short timeout.

    Examples
    --------
    >>> e = interpret_error(StorageError(ERR_UNREACHABLE), "", "pods", "web", "create")
    >>> e.code, e.reason
    (504, 'Timeout')
    >>> from kubenotes.apiserver.storage.interfaces import ERR_SERVER
    >>> e = interpret_error(StorageError(ERR_SERVER, "", "etcdserver: request timed out"), "", "pods", "", "list")
    >>> e.code, e.reason, e.message
    (500, '', 'etcdserver: request timed out')
    """
    code = err.code
    if code == ERR_KEY_NOT_FOUND:
        return new_not_found(group, resource, name)
    if code == ERR_KEY_EXISTS:
        return new_already_exists(group, resource, name)
    if code == ERR_RESOURCE_VERSION_CONFLICTS:
        return new_conflict(group, resource, name, err.message) if err.message != code else new_conflict(
            group, resource, name)
    if code == ERR_COMPACTED:
        return new_resource_expired(WATCH_EXPIRED if verb == "watch" else LIST_EXPIRED)
    if code == ERR_UNREACHABLE:
        return new_timeout_error(DEADLINE_EXCEEDED)
    return _status(500, "", err.message)
