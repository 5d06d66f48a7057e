"""Exceptions raised by kubenotes for misuse and bad input.

Expected outcomes (a pod that does not fit, a failed plugin) are values
(:class:`kubenotes.scheduler.framework.interface.Status`), never exceptions.
These classes are for input that cannot be modelled: a malformed quantity, a
missing object, a stale resourceVersion.

Every exception class of the library derives from :class:`KubenotesError`
(``tests/test_errors.py`` checks it). The general ones are here; a
component's own errors live beside it and subclass this base, keeping their
upstream fields and messages: :class:`kubenotes.apiserver.status.ApiError`
(a ``metav1.Status``), :class:`kubenotes.cri.api.CRIError` (a gRPC status),
:class:`kubenotes.cni.spec.CNIError` (the CNI error result's
``code``/``msg``/``details``), and the controllers', the kubelet's and the
network models' errors. A class may keep a builtin base beside it (e.g.
``ValueError``) where callers catch that.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go
"""

from __future__ import annotations

__all__ = [
    "KubenotesError",
    "FieldError",
    "InvalidQuantity",
    "ManifestError",
    "NotFound",
    "AlreadyExists",
    "Conflict",
    "Gone",
    "ConfigError",
    "RPCStatusError",
    "aggregate_error_message",
]


class KubenotesError(Exception):
    """Base class of every error kubenotes raises on purpose."""


class FieldError(KubenotesError):
    """A field of an object holds a value the model cannot accept.

    Parameters
    ----------
    field : str
        Field path in kubectl's notation, e.g. ``spec.containers[0].resources.requests.cpu``.
    message : str
        What is wrong, e.g. ``invalid quantity "lots"``.

    Examples
    --------
    >>> str(FieldError("spec.priority", "must be an integer"))
    'spec.priority: must be an integer'
    """

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)

    def prefixed(self, prefix: str) -> "FieldError":
        """Return a copy whose field path starts with ``prefix`` (joined by a dot)."""
        if not prefix:
            return self
        field = f"{prefix}.{self.field}" if self.field and not self.field.startswith("[") else f"{prefix}{self.field}"
        return type(self)(field, self.message) if type(self) is FieldError else FieldError(field, self.message)


class InvalidQuantity(FieldError):
    """A resource quantity string that upstream's ``resource.ParseQuantity`` rejects."""

    def __init__(self, field: str, value: object):
        self.value = value
        FieldError.__init__(self, field, f"invalid quantity {str(value)!r}".replace("'", '"'))


class ManifestError(KubenotesError):
    """Bad input in a manifest, located by file, document, object and field.

    The message is one line, e.g.
    ``pods.yaml doc 3 Pod default/web: spec.containers[0].resources.requests.cpu: invalid quantity "lots"``.

    Parameters
    ----------
    source : str
        File name (``<stdin>`` or ``<string>`` for streams); empty when the
        caller reports the location itself (the kubelet's pod sources): with
        no source, document or object the message is ``detail`` alone.
    doc : int or None
        1-based YAML document number in that source.
    obj : str or None
        ``Kind namespace/name`` (or ``Kind name`` for cluster-scoped kinds).
    detail : str
        The field path and what is wrong with it.

    Returns
    -------
    ManifestError
        Keeping ``source``, ``doc``, ``obj`` and ``detail`` as attributes; its
        ``str()`` is the one-line message.

    Raises
    ------
    TypeError
        When an argument is missing, or ``source`` is not a string while
        ``doc`` or ``obj`` is given (the location is built by concatenation).

    See Also
    --------
    kubenotes.api.manifests.load_manifests : raises it for a bad document.

    Notes
    -----
    Upstream reports manifest errors through ``kubectl``'s resource builder
    and the API server's ``field.ErrorList``; one class with the location
    spelled out stands in for both.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go

    Examples
    --------
    >>> str(ManifestError("pods.yaml", 3, "Pod default/web", 'spec.priority: must be an integer'))
    'pods.yaml doc 3 Pod default/web: spec.priority: must be an integer'
    >>> str(ManifestError("", None, None, "invalid pods list"))
    'invalid pods list'
    """

    def __init__(self, source: str, doc: int | None, obj: str | None, detail: str):
        self.source, self.doc, self.obj, self.detail = source, doc, obj, detail
        where = source
        if doc is not None:
            where += f" doc {doc}"
        if obj:
            where += f" {obj}"
        super().__init__(f"{where}: {detail}" if where else detail)


class NotFound(KubenotesError):
    """An object that was asked for does not exist."""


class AlreadyExists(KubenotesError):
    """An object with the same key already exists."""


class Conflict(KubenotesError):
    """A write carried a stale resourceVersion."""


class Gone(KubenotesError):
    """A watch asked for a resourceVersion older than the store keeps (HTTP 410)."""


class RPCStatusError(KubenotesError):
    """A gRPC status error of a node API (CRI, CSI): a code name and the server's message.

    ``str()`` is what a Go client prints for a ``status.Error``
    (``rpc error: code = <code> desc = <message>``), the text kubelet logs and
    Events carry.

    Parameters
    ----------
    code : str
        The gRPC code name (``NotFound``, ``AlreadyExists``, ``FailedPrecondition``...).
    message : str
        The server's message (the status ``desc``).

    Examples
    --------
    >>> str(RPCStatusError("NotFound", "no such thing"))
    'rpc error: code = NotFound desc = no such thing'
    """

    def __init__(self, code: str, message: str) -> None:
        # args are the constructor's, so a copy (SimPy re-raising a process's error, pickling) is the same error
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"rpc error: code = {self.code} desc = {self.message}"


class ConfigError(KubenotesError):
    """A component configuration (e.g. KubeSchedulerConfiguration) failed validation.

    The message reproduces upstream's validation message.
    """


def aggregate_error_message(messages: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message as is, several de-duplicated in brackets.

    The text of Go's aggregated error, for the components that report several
    failures as one (admission webhooks' ``matchConditions``, ...).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go

    Examples
    --------
    >>> aggregate_error_message(["a"]), aggregate_error_message(["a", "b", "a"]), aggregate_error_message([])
    ('a', '[a, b]', '')
    """
    seen = list(dict.fromkeys(messages))
    if len(seen) <= 1:
        return seen[0] if seen else ""
    return "[" + ", ".join(seen) + "]"
