"""The API server: the request path of every read and write, in upstream's order.

A request passes authentication (done when a :class:`Client` is made),
authorization (RBAC), then for writes: decoding with defaults, mutating
admission, for the four RBAC kinds the escalation check of their
policy-based storage (:mod:`kubenotes.apiserver.rbac_escalation`), the
registry strategy (``PrepareForCreate``/``PrepareForUpdate``: system fields,
generation, status reset), validation (422 Invalid),
validating admission, and finally the store, which assigns the
resourceVersion and fans the event out to watches. A refused request raises
:class:`~kubenotes.apiserver.status.ApiError` with upstream's ``Status`` and
changes nothing in the store. Every committed write is appended to
:attr:`APIServer.audit_log` with the virtual time and the writing component,
which is what ``simulate -o events`` prints.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/{create,update,patch,delete,get,watch}.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/registry/rest/{create,update,delete}.go
kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/storage/{storage.go,eviction.go} (binding, eviction)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/namespace/storage/storage.go (graceful namespace deletion)
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/*/policybased/storage.go (RBAC escalation prevention)
"""

from __future__ import annotations

import json
import contextlib
import contextvars
import datetime as _dt
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import simpy

from kubenotes.api.dropdisabled import drop_disabled_fields
from kubenotes.api.rand import random_string
from kubenotes.api.selectors import parse_selector
from kubenotes.apiserver.authn import JWTTokenGenerator
from kubenotes.apiserver.fields import parse_field_selector
from kubenotes.apiserver.patch import (APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, JSONPatchError,
                                       json_patch, json_patch_apply_error, merge_patch, strategic_merge_patch)
from kubenotes.apiserver.rbac_escalation import check_escalation
from kubenotes.apiserver.request import RESPONSE_WARNINGS, Attributes, UserInfo
from kubenotes.apiserver.resources import GATED_RESOURCES, ResourceInfo, gated_served, parse_runtime_config, resource_for
from kubenotes.apiserver.status import (
    ApiError,
    field_cause,
    new_already_exists,
    new_bad_request,
    new_conflict,
    new_invalid,
    new_method_not_supported,
    new_not_found,
    new_request_entity_too_large,
    new_resource_expired,
    new_too_many_requests,
)
from kubenotes.apiserver.storage.compact import DEFAULT_COMPACTION_INTERVAL_SECONDS
from kubenotes.apiserver.store import DEFAULT_HISTORY_CAPACITY, ObjectStore, deep_copy
from kubenotes.apiserver.watch import ADDED, DELETED, MODIFIED, Watch
from kubenotes.features import feature_gates as feature_gates_of

__all__ = ["APIServer", "Client", "AuditEntry", "DEFAULT_EPOCH", "format_timestamp", "parse_timestamp",
           "DISRUPTION_BUDGET_MESSAGE", "current_epoch", "using_epoch", "resolve_epoch", "validate_pod_log_options",
           "validate_container", "NO_PROCESSES_MESSAGE", "component_statuses", "encode_continue", "decode_continue",
           "CONTINUE_EXPIRED_MESSAGE", "MAX_JSON_PATCH_OPERATIONS"]

from kubenotes.apiserver.clock import DEFAULT_EPOCH  # noqa: E402 - re-exported: server.DEFAULT_EPOCH

#: The 429 message of an eviction a PodDisruptionBudget does not allow (``pkg/registry/core/pod/storage/eviction.go``).
#: ``maxJSONPatchOperations`` of the patch handler: a longer JSON patch is 413.
MAX_JSON_PATCH_OPERATIONS = 10000
DISRUPTION_BUDGET_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."

#: Kinds whose objects carry ``metadata.generation`` (their strategies bump it when the spec changes).
_GENERATION_KINDS = frozenset({"Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
                               "ReplicationController", "HorizontalPodAutoscaler", "PodDisruptionBudget",
                               "Service", "Namespace", "Node", "PersistentVolumeClaim", "PriorityClass",
                               "Ingress", "IngressClass", "NetworkPolicy", "ValidatingAdmissionPolicy",
                               "ValidatingAdmissionPolicyBinding", "CustomResourceDefinition"})
#: Kinds lightkube decodes and kubenotes.api.defaults defaults.
_DEFAULTED_KINDS = frozenset({"Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
                              "ReplicationController", "Service", "PersistentVolume", "PersistentVolumeClaim",
                              "StorageClass", "NetworkPolicy", "IngressClass"})


#: The epoch of the cluster whose code is running (set around a cluster's clock and each HTTP request), so that
#: :func:`format_timestamp` and :func:`parse_timestamp` called without one agree with ``APIServer.epoch``.
_EPOCH: contextvars.ContextVar[_dt.datetime | None] = contextvars.ContextVar("kubenotes_epoch", default=None)


def current_epoch() -> _dt.datetime:
    """The epoch in effect: the one :func:`using_epoch` set, else :data:`DEFAULT_EPOCH`.

    Examples
    --------
    >>> current_epoch() == DEFAULT_EPOCH
    True
    """
    return _EPOCH.get() or DEFAULT_EPOCH


class using_epoch:  # noqa: N801 - used as a context manager, like a function
    """Context manager: :func:`format_timestamp`/:func:`parse_timestamp` default to ``epoch`` inside it.

    :class:`~kubenotes.sim.cluster.Cluster` runs its clock inside
    ``using_epoch(server.epoch)`` and the HTTP layer serves each request inside
    it, so controllers that turn timestamps into virtual seconds stay right
    when a cluster's virtual second 0 is not :data:`DEFAULT_EPOCH`
    (``Cluster(epoch="now")``, what ``kubenotes serve`` uses).

    Examples
    --------
    >>> import datetime as dt
    >>> with using_epoch(dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)):
    ...     format_timestamp(61), parse_timestamp("2030-01-01T00:01:01Z")
    ('2030-01-01T00:01:01Z', 61.0)
    >>> format_timestamp(61)
    '2025-08-27T00:01:01Z'
    """

    def __init__(self, epoch: _dt.datetime | None):
        self.epoch = epoch
        self._token: Any = None

    def __enter__(self) -> "using_epoch":
        self._token = _EPOCH.set(self.epoch)
        return self

    def __exit__(self, *exc: Any) -> None:
        _EPOCH.reset(self._token)


def resolve_epoch(epoch: "_dt.datetime | str | None") -> _dt.datetime:
    """An epoch argument as a UTC datetime: None is :data:`DEFAULT_EPOCH`, ``"now"`` the wall clock (whole seconds).

    ``"now"`` is for served clusters only (real kubectl computes ages from the
    wall clock); an ISO 8601 string is parsed; a naive datetime is taken as UTC.

    Raises
    ------
    ValueError
        For a string that is neither ``"now"`` nor ISO 8601.

    Examples
    --------
    >>> resolve_epoch(None) == DEFAULT_EPOCH
    True
    >>> resolve_epoch("2030-01-01T00:00:00Z").isoformat()
    '2030-01-01T00:00:00+00:00'
    >>> resolve_epoch("now").microsecond
    0
    """
    if epoch is None:
        return DEFAULT_EPOCH
    if isinstance(epoch, str):
        if epoch == "now":
            return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        epoch = _dt.datetime.fromisoformat(epoch.replace("Z", "+00:00"))
    if epoch.tzinfo is None:
        epoch = epoch.replace(tzinfo=_dt.timezone.utc)
    return epoch.astimezone(_dt.timezone.utc)


def format_timestamp(seconds: float, epoch: _dt.datetime | None = None) -> str:
    """RFC 3339 ``metav1.Time`` of virtual ``seconds`` (second precision, as the API serializes it).

    ``epoch`` defaults to :func:`current_epoch`.

    Examples
    --------
    >>> format_timestamp(75.9)
    '2025-08-27T00:01:15Z'
    """
    t = (epoch or current_epoch()) + _dt.timedelta(seconds=int(seconds))
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_timestamp(text: str, epoch: _dt.datetime | None = None) -> float:
    """Virtual seconds of an RFC 3339 timestamp (the inverse of :func:`format_timestamp`).

    ``epoch`` defaults to :func:`current_epoch`.

    Examples
    --------
    >>> parse_timestamp("2025-08-27T00:01:15Z")
    75.0
    """
    t = _dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)
    return (t - (epoch or current_epoch())).total_seconds()


@dataclass(slots=True)
class AuditEntry:
    """One committed write, as ``simulate -o events`` prints it.

    Attributes
    ----------
    time : float
        Virtual seconds.
    component : str
        ``deployment-controller``, ``default-scheduler``, ``kubelet/worker-1``, ``kubectl``...
    verb : str
        ``create``, ``update``, ``patch``, ``delete``, ``bind``, ``evict``...
    kind, namespace, name, resource_version : str
    detail : str
        What changed, in a few words (``node=worker-1``, ``replicas 3->5``, an Event's ``reason: message``).
    """

    time: float
    component: str
    verb: str
    kind: str
    namespace: str
    name: str
    resource_version: str
    detail: str = ""

    def to_dict(self) -> dict:
        return {"time": self.time, "component": self.component, "verb": self.verb, "kind": self.kind,
                "namespace": self.namespace, "name": self.name, "resourceVersion": self.resource_version,
                "detail": self.detail}




def _warn(messages: Iterable[str]) -> None:
    out = RESPONSE_WARNINGS.get()
    if out is not None:
        out.extend(messages)


#: Whether the request being served arrived as bytes (set by the HTTP layer): its body is then decoded
#: against the kind's schema, as kube-apiserver's handlers decode every body
#: (:func:`kubenotes.apiserver.fieldvalidation.type_error`).
#: The model's in-process clients hand over dicts they built, as client-go's typed clients send only what their Go
#: structs can hold, and skip the walk.
DECODING_BODY: contextvars.ContextVar[bool] = contextvars.ContextVar("kubenotes_decoding_body", default=False)

#: kube-apiserver's own loopback user (``user.APIServerUser``, in ``system:masters``), which writes what the
#: server itself maintains, such as the IPAddress objects of Services' ClusterIPs.
APISERVER_USER = UserInfo("system:apiserver", groups=("system:masters", "system:authenticated"))

#: The HTTP request being served (its :attr:`APIServer.http_log` entry), set by the HTTP layer; the request
#: records made while serving it are added to the entry's ``requests``.
HTTP_REQUEST: contextvars.ContextVar[dict | None] = contextvars.ContextVar("kubenotes_http_request", default=None)


def _request(fn: Callable) -> Callable:
    """Count a request and, when ``request_trace`` is on, record its steps (nested calls join the outer one).

    Before a request that no other request encloses, :attr:`APIServer.between_requests` is called when set:
    the served clock lets waiting HTTP requests in there (kubenotes.sim.serve), as requests of
    kube-apiserver's clients interleave between each other's.
    """

    def wrapper(self: "APIServer", attrs: Attributes, *args: Any, **kwargs: Any) -> Any:
        self.request_count += 1
        if self.between_requests is not None:
            self.yield_point()
            self._depth += 1
            try:
                return _traced(self, fn, attrs, *args, **kwargs)
            finally:
                self._depth -= 1
        return _traced(self, fn, attrs, *args, **kwargs)

    wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__ = fn.__name__, fn.__doc__, fn  # type: ignore[attr-defined]
    return wrapper


def _traced(self: "APIServer", fn: Callable, attrs: Attributes, *args: Any, **kwargs: Any) -> Any:
    """Serve one request, recording its steps when ``request_trace`` is on (see :func:`_request`)."""
    if self.request_trace is None or self._current is not None:
        return fn(self, attrs, *args, **kwargs)
    rec = {"time": float(self.env.now), "component": attrs.component, "user": attrs.user.name,
           "verb": attrs.verb, "resource": attrs.resource.resource + (f"/{attrs.subresource}"
                                                                      if attrs.subresource else ""),
           "namespace": attrs.namespace, "name": attrs.name, "code": 200,
           "steps": [{"step": "authentication", "detail": f"user {attrs.user.name!r} groups "
                                                          f"{list(attrs.user.groups)}"}]}
    self.request_trace.append(rec)
    self._authorized = set()
    http_entry = HTTP_REQUEST.get()
    if http_entry is not None:  # served over HTTP with the http log on: the request joins its HTTP entry
        http_entry["requests"].append(rec)
    self._current = rec
    try:
        return fn(self, attrs, *args, **kwargs)
    except ApiError as e:
        rec["code"] = e.code
        rec["steps"].append({"step": "response", "detail": f"{e.code} {e.reason}: {e}"})
        raise
    finally:
        self._current = None


def _md(o: dict) -> dict:
    return o.setdefault("metadata", {})


def _without_rv(o: dict) -> dict:
    m = o.get("metadata", {})
    if "resourceVersion" not in m:
        return o
    c = dict(o)
    c["metadata"] = {k: v for k, v in m.items() if k != "resourceVersion"}
    return c


class APIServer:
    """The model's kube-apiserver: storage, the request path and watches on one SimPy clock.

    Parameters
    ----------
    env : simpy.Environment, optional
        The virtual clock (a new one when omitted).
    seed : int
        Seeds uids and generated names, so runs are reproducible.
    authorizer : object with ``authorize(attrs) -> (decision, reason)``, optional
        None allows everything (the ``AlwaysAllow`` mode).
    admission : object with ``admit(attrs, obj, old, reader)`` and ``validate(...)``, optional
    validator : module-like with ``validate_create(ri, obj)`` and ``validate_update(ri, obj, old)``, optional
        Returns lists of field causes; None skips validation.
    history_capacity : int
        Events kept for resuming watches.
    epoch : datetime or str
        Wall-clock time of virtual second 0 (:data:`DEFAULT_EPOCH`; ``"now"`` or
        an ISO 8601 string also work, see :func:`resolve_epoch`).
    feature_gates : FeatureGate, mapping of str to bool, str or None
        ``--feature-gates`` (:func:`kubenotes.features.feature_gates`); None: v1.34's defaults.
        The fields of disabled gates are dropped on create and update
        (:func:`kubenotes.api.dropdisabled.drop_disabled_fields`).
    storage : kubenotes.apiserver.storage.Interface, optional
        Where objects are kept besides the watch cache: a real etcd
        (:class:`~kubenotes.apiserver.storage.etcd3.EtcdStorage`, ``--etcd URL``);
        None (default) keeps them in the embedded store only.
    etcd_compaction_interval_seconds : float
        ``--etcd-compaction-interval`` of ``storage``'s compactor (default 300).
    runtime_config : str or dict of str to bool, optional
        ``--runtime-config`` (:func:`~kubenotes.apiserver.resources.parse_runtime_config`):
        ``admissionregistration.k8s.io/v1beta1=true`` with the ``MutatingAdmissionPolicy``
        gate serves MutatingAdmissionPolicies and their bindings.

    Attributes
    ----------
    store : ObjectStore
    audit_log : list[AuditEntry]
    on_commit : list of callable(AuditEntry)
        Called after each committed write (the cluster's event log listens here).

    Returns
    -------
    APIServer
        Holding an empty :class:`ObjectStore` on ``env``; :meth:`client` gives
        a client that sends requests through the request path.

    Raises
    ------
    ValueError
        When ``epoch`` is a string that is neither ``"now"`` nor ISO 8601
        (from :func:`resolve_epoch`). Requests refused later raise
        :class:`~kubenotes.apiserver.status.ApiError` (404, 409, 422, 403...).

    See Also
    --------
    kubenotes.apiserver.rbac.RBACAuthorizer : the ``authorizer`` of a cluster with RBAC.

    Notes
    -----
    One object holds the storage, the request path and the watch history:
    no etcd client, no HTTP between components (clients call methods; the
    HTTP layer serves a real ``kubectl``), no API priority and fairness and no
    aggregation layer (APIService). CustomResourceDefinitions are served
    live (:attr:`crds`, :mod:`kubenotes.apiserver.apiextensions`).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go

    Examples
    --------
    >>> api = APIServer(seed=1)
    >>> c = api.client("kubectl")
    >>> pod = c.create("pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
    ...                         "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}, "default")
    >>> pod["metadata"]["resourceVersion"], pod["status"]["phase"], pod["spec"]["schedulerName"]
    ('2', 'Pending', 'default-scheduler')
    >>> c.create("pods", {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}, "default")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: pods "web" already exists
    """

    def __init__(self, env: simpy.Environment | None = None, *, seed: int = 0, authorizer: Any = None,
                 admission: Any = None, validator: Any = None,
                 history_capacity: int = DEFAULT_HISTORY_CAPACITY, epoch: _dt.datetime | str = DEFAULT_EPOCH,
                 feature_gates: Any = None, storage: Any = None,
                 etcd_compaction_interval_seconds: float = DEFAULT_COMPACTION_INTERVAL_SECONDS,
                 runtime_config: Any = None):
        self.env = env if env is not None else simpy.Environment()
        self.rng = random.Random(seed)
        #: ClusterIPs and node ports (a stream of its own, so Services do not shift uids and generated names).
        self._allocator_rng = random.Random(f"{seed}/service-allocations")
        #: generateName suffixes (a stream of its own, so objects created at bootstrap, which take uids, do not
        #: shift the names of the pods and ReplicaSets a scenario creates).
        self._name_rng = random.Random(f"{seed}/generated-names")
        #: IPAddress uids (a stream of its own, so the objects of Services' ClusterIPs do not shift other uids).
        self._ip_address_uid_rng = random.Random(f"{seed}/ipaddresses")
        self.store = ObjectStore(self.env, history_capacity, storage, etcd_compaction_interval_seconds)
        self.authorizer = authorizer
        self.admission = admission
        self.validator = validator
        self.epoch = resolve_epoch(epoch)
        #: ``--service-account-issuer`` and its signing key (a random ECDSA key, made when first needed).
        self.token_generator = JWTTokenGenerator(key_type="EC")
        #: ``--feature-gates``: the fields of disabled gates are dropped on create and update.
        self.feature_gates = feature_gates_of(feature_gates)
        #: ``--runtime-config`` and the off-by-default resources it serves with their gates (MutatingAdmissionPolicy).
        self.runtime_config = parse_runtime_config(runtime_config)
        self.gated_served = gated_served(self.feature_gates, self.runtime_config)
        #: The apiserver's connection to kubelets (``KubeletClientConfig``): an object with
        #: ``container_log_reader(node, namespace, pod, container, options)``; set by
        #: :class:`~kubenotes.sim.cluster.Cluster` to its stand-in kubelets. None: no node answers.
        self.kubelet_client: Any = None
        self.audit_log: list[AuditEntry] = []
        self.on_commit: list[Callable[[AuditEntry], None]] = []
        #: When a list, every request appends ``{"time", "component", "user", "verb", "resource", "namespace",
        #: "name", "code", "steps": [{"step", "detail"}]}``: the request path as it happened (off by default).
        self.request_trace: list[dict] | None = None
        #: When a list, the HTTP layer appends one entry per HTTP request (see :meth:`trace_http`).
        self.http_log: list[dict] | None = None
        self._current: dict | None = None
        self._authorized: set = set()  # what the traced request being served was already allowed to touch
        self._authz_cache: dict[tuple, tuple[str, str]] = {}
        self._authz_rev = -1
        self.request_count = 0
        #: Called before each request no other request encloses (None: nothing). The served clock sets it
        #: to let HTTP requests in between a controller's requests inside one simulation event
        #: (:mod:`kubenotes.sim.serve`); it must not touch the model.
        self.between_requests: Callable[[], None] | None = None
        self._depth = 0  # requests being served, nested ones included (counted while between_requests is set)
        from kubenotes.apiserver.apiextensions import CustomResourceDefinitions

        #: The CustomResourceDefinitions served (:mod:`kubenotes.apiserver.apiextensions`).
        self.crds = CustomResourceDefinitions(self)
        #: Client rate limits and request latency (:class:`kubenotes.sim.costs.RequestCosts`); None: instant.
        self.request_costs: Any = None

    # ------------------------------------------------------------ utilities
    def now(self) -> float:
        return float(self.env.now)

    def timestamp(self) -> str:
        """``metav1.Now()`` on the virtual clock (formatted once per virtual second: a load at time zero asks for
        the same text for every object)."""
        if self.epoch is None:  # the epoch in effect (current_epoch) may change between calls
            return format_timestamp(self.env.now, None)
        key = (int(self.env.now), self.epoch)
        if self._timestamp_memo[0] != key:
            self._timestamp_memo = (key, format_timestamp(self.env.now, self.epoch))
        return self._timestamp_memo[1]

    _timestamp_memo: tuple[Any, str] = (None, "")

    def new_uid(self, rng: random.Random | None = None) -> str:
        """A seeded UUID (``uuid.NewUUID``), from ``rng`` (default: the server's own stream).

        The text of ``uuid.UUID(int=bits, version=4)``, written out directly (the version and variant bits set,
        then 8-4-4-4-12 hex digits): one per object created.
        """
        n = (rng or self.rng).getrandbits(128)
        n = (n & ~(0xc000 << 48) & ~(0xf000 << 64)) | (0x8000 << 48) | (4 << 76)
        h = "%032x" % n
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def generate_name(self, base: str) -> str:
        """``names.SimpleNameGenerator``: ``base`` plus 5 random characters (base cut to 58)."""
        base = base[:58]
        return base + random_string(5, self._name_rng)

    def client(self, component: str = "kubectl", user: UserInfo | None = None) -> "Client":
        """A client for in-process components, authenticated as ``user`` (cluster admin by default)."""
        if user is None:
            user = UserInfo("kubernetes-admin", groups=("system:masters", "system:authenticated"))
        return Client(self, user, component)

    # ------------------------------------------------------------ reader (admission, RBAC)
    def get(self, resource: str, namespace: str | None, name: str) -> dict | None:
        """:class:`~kubenotes.apiserver.request.StoreReader`: the stored object, shared (do not mutate)."""
        ri = resource_for(resource)
        return self.store.get(ri, namespace if ri.namespaced else None, name)

    def list(self, resource: str, namespace: str | None = None) -> list[dict]:
        """:class:`~kubenotes.apiserver.request.StoreReader`: stored objects, shared (do not mutate)."""
        return self.store.list(resource_for(resource), namespace)

    def update_status(self, resource: str, obj: dict, component: str) -> dict:
        """:class:`~kubenotes.apiserver.request.StoreReader`: write an object's status from inside the server.

        Used by admission (ResourceQuota usage); no authorization or admission.
        """
        ri = resource_for(resource)
        md = obj.get("metadata", {})
        cur = self.store.get(ri, md.get("namespace"), md["name"])
        if cur is None:
            raise new_not_found(ri.group, ri.resource, md["name"])
        new = dict(cur)
        new["metadata"] = dict(cur["metadata"])
        new["status"] = deep_copy(obj.get("status"))
        return self._commit(ri, MODIFIED, new, cur, component, "update", "status")

    def trace_requests(self, on: bool = True) -> list[dict]:
        """Start (or stop) recording the request path of every request; returns the record list.

        Each record has the steps of upstream's handler chain as they happened:
        authentication, authorization, each mutating admission plugin, validation,
        each validating admission plugin, storage (key and resourceVersion), and
        which watches the event was queued for.
        """
        if on:
            if self.request_trace is None:
                self.request_trace = []
        else:
            self.request_trace = None
        self.store.track_deliveries = on
        return self.request_trace if on else []

    def trace_http(self, on: bool = True) -> list[dict]:
        """Start (or stop) recording every HTTP request the served API answers; returns the log.

        Each entry is ``{"time", "method", "url", "user_agent", "code", "watch", "requests"}``:
        ``url`` is the path with its query, ``code`` the HTTP status, ``requests``
        the :meth:`trace_requests` records made while serving it (empty for
        discovery and OpenAPI). Turning it on also turns on :meth:`trace_requests`.
        """
        self.trace_requests(on)
        if on:
            if self.http_log is None:
                self.http_log = []
        else:
            self.http_log = None
        return self.http_log if on else []

    def _step(self, step: str, detail: str = "") -> None:
        if self._current is not None:
            self._current["steps"].append({"step": step, "detail": detail})

    # ------------------------------------------------------------ authorization
    def authorize(self, attrs: Attributes) -> None:
        """Raise 403 Forbidden unless the authorizer allows the request.

        Within one traced request, the server's own nested reads and writes of
        an object already authorized (a PATCH of ``scale`` reads, then updates,
        the Deployment) are not authorized again, as upstream authorizes a
        request once in its handler chain.
        """
        rec = self._current
        target = (attrs.user, attrs.resource, attrs.subresource, attrs.namespace, attrs.name)
        if rec is not None and (target in self._authorized or (self.authorizer is None and self._authorized)):
            return
        if self.authorizer is None:
            self._step("authorization", "AlwaysAllow")
            return
        if self._rbac_revision != self._authz_rev:
            self._authz_cache.clear()  # a Role or binding changed
            self._authz_rev = self._rbac_revision
        key = (attrs.user, attrs.verb, attrs.resource, attrs.subresource, attrs.namespace, attrs.name)
        decision = self._authz_cache.get(key)
        if decision is None:
            decision = self.authorizer.authorize(attrs)
            self._authz_cache[key] = decision
        self._step("authorization", f"{decision[0]}: {decision[1]}")
        if decision[0] == "Allow" and rec is not None:
            self._authorized.add(target)
        if decision[0] != "Allow":
            from kubenotes.apiserver.status import new_forbidden_request

            raise new_forbidden_request(attrs.user.name, attrs.verb, attrs.resource.group, attrs.resource.resource,
                                        attrs.subresource, attrs.namespace, attrs.name, decision[1])

    _rbac_revision = 0

    # ------------------------------------------------------------ commit
    def _commit(self, ri: ResourceInfo, event_type: str, obj: dict, old: dict | None, component: str, verb: str,
                detail: str = "") -> dict:
        if ri.group == "rbac.authorization.k8s.io":
            self._rbac_revision += 1
        self.store.commit(ri, event_type, obj, old)
        md = obj["metadata"]
        if self._current is not None:
            from kubenotes.apiserver.resources import etcd_key

            self._step("storage", f"{event_type} {etcd_key(ri, md.get('namespace'), md['name'])} "
                                  f"at resourceVersion {md['resourceVersion']}")
            self._step("watch", "event queued for " + (", ".join(self.store.last_delivered) or "no watcher"))
        entry = AuditEntry(float(self.env.now), component, verb, ri.kind, md.get("namespace", "") or "", md["name"],
                           md["resourceVersion"], detail)
        self.audit_log.append(entry)
        for cb in self.on_commit:
            cb(entry)
        if ri.group == "apiextensions.k8s.io" or ri.__class__ is not ResourceInfo:
            self.crds.committed(ri, event_type, obj)
        elif event_type == DELETED and ri.kind == "Service":  # afterDelete: the Service's ClusterIPs released
            from kubenotes.apiserver.ipallocator import service_ips

            self._release_ip_addresses(service_ips([obj]))
        return obj

    @contextlib.contextmanager
    def _loopback(self) -> Iterator["Client"]:
        """kube-apiserver's loopback client (``system:apiserver``); its requests are traced as requests of their own."""
        current, authorized = self._current, self._authorized
        self._current = None
        try:
            yield self.client("kube-apiserver", APISERVER_USER)
        finally:
            self._current, self._authorized = current, authorized

    def _release_ip_addresses(self, ips: list[str]) -> None:
        if ips:
            from kubenotes.apiserver.ipallocator import release_ip_addresses

            with self._loopback() as lo:
                release_ip_addresses(lo, ips)

    # ------------------------------------------------------------ decoding
    def _decode(self, ri: ResourceInfo, body: Any, namespace: str | None, validation: str = "",
                owned: bool = False) -> dict:
        if not isinstance(body, dict):
            raise new_bad_request("the object provided is unrecognized (must be of type map)")
        if ri.__class__ is ResourceInfo:  # sigs.k8s.io/json: every value must decode into its Go field
            self._check_types(ri.api_version, ri.kind, body)
        obj = body if owned else deep_copy(body)  # owned: a plain JSON-shaped dict no one else holds (see create)
        if validation:  # fieldValidation=Strict|Warn|Ignore: unknown fields refused, warned of, or dropped
            from kubenotes.apiserver.fieldvalidation import check_fields

            _warn(check_fields(obj, validation, api_version=ri.api_version, kind=ri.kind))
        obj.setdefault("apiVersion", ri.api_version)
        obj.setdefault("kind", ri.kind)
        if obj["kind"] != ri.kind:
            raise new_bad_request(f"the API version in the data ({obj.get('apiVersion')}) does not match the expected "
                                  f"API version ({ri.api_version})" if obj["kind"] == "" else
                                  f'the object provided is unrecognized (kind "{obj["kind"]}" is not {ri.kind})')
        if obj.get("apiVersion") != ri.api_version:
            if obj.get("apiVersion") and not _same_group(obj["apiVersion"], ri.api_version):
                raise new_bad_request(f"the API version in the data ({obj['apiVersion']}) does not match the "
                                      f"expected API version ({ri.api_version})")
            obj["apiVersion"] = ri.api_version
        from kubenotes.apiserver.validation import bytes_decode_error

        bad_bytes = bytes_decode_error(ri.kind, obj)  # []byte fields are base64 in JSON
        if bad_bytes:
            raise new_bad_request(f'{ri.kind} in version "{ri.version}" cannot be handled as a {ri.kind}: {bad_bytes}')
        md = obj.get("metadata")
        if md is None:
            md = obj["metadata"] = {}
        if not isinstance(md, dict):
            raise new_bad_request("metadata: expected an object")
        if ri.namespaced:
            ns = md.get("namespace")
            if namespace and ns and ns != namespace:
                raise new_bad_request("the namespace of the provided object does not match the namespace sent on "
                                      "the request")
            md["namespace"] = ns or namespace or "default"
        else:
            md.pop("namespace", None)
        if ri.group == "apiextensions.k8s.io" or ri.__class__ is not ResourceInfo:  # CRD defaults; CR schema
            _warn(self.crds.decode(ri, obj, validation))
        return obj

    def _check_body(self, attrs: Attributes, body: Any) -> None:
        """A subresource's or a review's body decoded against its own kind (they skip :meth:`_decode`)."""
        ri = attrs.resource
        if attrs.subresource:
            from kubenotes.apiserver.discovery import subresource_kind

            g, v, k = subresource_kind(ri, attrs.subresource)
            if body is not None and not isinstance(body, dict):
                raise new_bad_request("the object provided is unrecognized (must be of type map)")
            if k and body:
                self._check_types(f"{g}/{v}" if g else v, k, body)
        elif ri.__class__ is ResourceInfo and ri.resource.endswith("reviews"):
            if not isinstance(body, dict):
                raise new_bad_request("the object provided is unrecognized (must be of type map)")
            self._check_types(ri.api_version, ri.kind, body)

    @staticmethod
    def _check_types(api_version: str, kind: str, body: Any) -> None:
        """400 BadRequest for a value of the wrong JSON type, worded as upstream's ``transformDecodeError``."""
        from kubenotes.apiserver.fieldvalidation import type_error

        err = type_error(body, api_version, kind) if DECODING_BODY.get() else None
        if err:
            version = api_version.rpartition("/")[2]
            raise new_bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: {err}')

    def _typed(self, ri: ResourceInfo, obj: dict) -> Any:
        from lightkube.codecs import resource_registry

        from kubenotes.api.schema import fill_required_defaults

        cls = resource_registry.load(ri.api_version, ri.kind)
        try:
            return cls.from_dict(fill_required_defaults(obj, cls))
        except Exception as e:  # msgspec.ValidationError, TypeError
            name = obj.get("metadata", {}).get("name", "")
            raise new_bad_request(f'{ri.kind} in version "{ri.version}" cannot be handled as a {ri.kind}: '
                                  f'{" ".join(str(e).split())}' + (f" ({name})" if False else "")) from None

    def _default(self, ri: ResourceInfo, obj: dict) -> dict:
        if ri.kind not in _DEFAULTED_KINDS:
            return obj
        from kubenotes.api.defaults import apply_defaults
        from kubenotes.errors import FieldError

        typed = self._typed(ri, obj)
        try:
            apply_defaults(typed)
        except FieldError as e:
            name = obj.get("metadata", {}).get("name", "")
            raise new_invalid(ri.group, ri.kind, name, [field_cause(e.field, str(e))]) from None
        out = typed.to_dict()
        return out

    def _validate(self, ri: ResourceInfo, obj: dict, old: dict | None) -> None:
        extra = (self.crds.validate(ri, obj, old) if ri.group == "apiextensions.k8s.io"
                 or ri.__class__ is not ResourceInfo else [])  # a CRD's spec, a custom resource's schema
        if self.validator is None and not extra:
            return
        causes = [] if self.validator is None else (self.validator.validate_create(ri, obj) if old is None
                                                    else self.validator.validate_update(ri, obj, old))
        causes = causes + extra
        self._step("validation", f"{len(causes)} field error(s)" if causes else "valid")
        if causes:
            raise new_invalid(ri.group, ri.kind, obj.get("metadata", {}).get("name", "")
                              or obj.get("metadata", {}).get("generateName", ""), causes)

    def _admit(self, attrs: Attributes, obj: dict | None, old: dict | None) -> None:
        if self.admission is None:
            return
        if self._current is None or not hasattr(self.admission, "plugins"):
            self.admission.admit(attrs, obj, old, self)
            return
        for p in self.admission.plugins:  # traced: one step per plugin, with whether it changed the object
            if attrs.operation not in getattr(p, "operations", ()) or type(p).admit is _base_admit(p) or (
                    hasattr(p, "idle") and p.idle(self)):  # webhook plugins with no configuration: left out
                continue
            before = deep_copy(obj) if obj is not None else None
            p.admit(attrs, obj, old, self)
            self._step(f"mutating admission: {p.name}", "changed the object" if obj != before else "no change")

    def _admit_validate(self, attrs: Attributes, obj: dict | None, old: dict | None) -> None:
        if self.admission is None:
            return
        if self._current is None or not hasattr(self.admission, "plugins"):
            self.admission.validate(attrs, obj, old, self)
            return
        for p in self.admission.plugins:
            if attrs.operation not in getattr(p, "operations", ()) or type(p).validate is _base_validate(p) or (
                    hasattr(p, "idle") and p.idle(self)):
                continue
            p.validate(attrs, obj, old, self)
            self._step(f"validating admission: {p.name}", "admitted")

    # ------------------------------------------------------------ create
    @_request
    def create(self, attrs: Attributes, body: dict, *, keep_uid: bool = False, owned: bool = False) -> dict:
        """``POST``: create an object (``attrs.subresource`` routes binding, eviction, token...).

        ``keep_uid`` keeps a ``metadata.uid`` given in the body (restoring
        objects, as from an etcd backup, so ownerReferences still resolve); a
        real create always assigns a new one.

        ``owned`` hands ``body`` over to the server (a plain JSON-shaped dict,
        freshly decoded, that the caller and no one else will read or change
        again) and takes back the stored object itself instead of a copy, which
        the caller must not change: a one-shot load
        (:func:`kubenotes.apiserver.load.load_through_api_server`) saves the two
        copies of every object. The request path is otherwise the same.

        Returns
        -------
        dict
            The stored object (a copy), or the subresource's response.

        Raises
        ------
        ApiError
            403 Forbidden (authorization or admission), 404 NotFound (namespace,
            subresource parent), 409 AlreadyExists, 422 Invalid, 400 BadRequest.
        """
        self.authorize(attrs)
        ri = attrs.resource
        self._check_body(attrs, body)
        if attrs.subresource:
            return self._create_subresource(attrs, body)
        if ri.resource in ("selfsubjectaccessreviews", "selfsubjectreviews", "selfsubjectrulesreviews"):
            return self._self_subject_review(attrs, body)
        if ri.resource in ("subjectaccessreviews", "localsubjectaccessreviews"):
            return self._subject_access_review(attrs, body)
        if ri.resource == "tokenreviews":  # answered, never stored
            from kubenotes.apiserver.authn import token_review

            return token_review(self, attrs, body)
        if "create" not in ri.verbs:
            raise new_method_not_supported(ri.group, ri.resource, "create")
        if ri.__class__ is not ResourceInfo:
            self.crds.check_create(ri)
        obj = self._decode(ri, body, attrs.namespace, attrs.extra.get("fieldValidation", ""), owned)
        md = obj["metadata"]
        attrs.namespace = md.get("namespace", "") or ""
        obj = self._default(ri, obj)
        md = obj["metadata"]
        self._admit(attrs, obj, None)
        if ri.group == "rbac.authorization.k8s.io":  # the policy-based storage: no escalation through RBAC
            check_escalation(self, attrs, obj, None)
        # PrepareForCreate + FillObjectMetaSystemFields (rest.BeforeCreate)
        md = obj["metadata"]
        if not md.get("name") and md.get("generateName"):
            md["name"] = self.generate_name(md["generateName"])
        attrs.name = md.get("name", "")
        if not attrs.name:  # BeforeCreate's Validate refuses it before the strategy's PrepareForCreate reads the name
            self._validate(ri, obj, None)
            raise new_invalid(ri.group, ri.kind, "", [field_cause(
                "metadata.name", "metadata.name: Required value: name or generateName is required",
                "FieldValueRequired")])
        if self._current is not None:
            self._current["name"] = attrs.name
        for k in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
            md.pop(k, None)
        restoring = bool(keep_uid and md.get("uid"))  # decided before a new uid is assigned
        if not restoring:
            md["uid"] = self.new_uid(self._ip_address_uid_rng if ri.kind == "IPAddress" else None)
        md["creationTimestamp"] = self.timestamp()
        if ri.kind in _GENERATION_KINDS or ri.__class__ is not ResourceInfo:
            md["generation"] = 1
        drop_disabled_fields(ri.kind, obj, None, self.feature_gates)  # PrepareForCreate's dropDisabled...Fields
        allocated = self._prepare_for_create(ri, obj, restoring=restoring, dry_run=attrs.dry_run)
        try:
            if ri.kind == "CertificateSigningRequest" and attrs.user is not None:
                # csrStrategy.PrepareForCreate: the requester is whoever sent the request, never the body's claim
                spec = obj.setdefault("spec", {})
                for k in ("username", "uid", "groups", "extra"):
                    spec.pop(k, None)
                spec["username"] = attrs.user.name
                if attrs.user.uid:
                    spec["uid"] = attrs.user.uid
                if attrs.user.groups:
                    spec["groups"] = list(attrs.user.groups)
            self._validate(ri, obj, None)
            self._admit_validate(attrs, obj, None)
            if ri.kind == "PersistentVolume":  # the registry strategy's WarningsOnCreate
                from kubenotes.api.storagehelpers import warnings_for_persistent_volume

                _warn(warnings_for_persistent_volume(obj))
            if not md.get("name"):
                raise new_invalid(ri.group, ri.kind, "", [field_cause(
                    "metadata.name", "metadata.name: Required value: name or generateName is required",
                    "FieldValueRequired")])
            if self.store.get(ri, md.get("namespace"), md["name"]) is not None:
                raise new_already_exists(ri.group, ri.resource, md["name"])
            if attrs.dry_run:
                return deep_copy(obj)
        except ApiError:
            self._release_ip_addresses(allocated)  # the allocation's Revert (beginCreate's finish(false))
            raise
        self._commit(ri, ADDED, obj, None, attrs.component, "create", self._create_detail(ri, obj))
        return obj if owned else deep_copy(obj)

    @staticmethod
    def _create_detail(ri: ResourceInfo, obj: dict) -> str:
        if ri.kind == "Event":  # core v1 message, events.k8s.io/v1 note
            return f'{obj.get("reason", "")}: {obj.get("message", obj.get("note", ""))}'
        refs = obj["metadata"].get("ownerReferences") or []
        ctrl = next((r for r in refs if r.get("controller")), None)
        if ctrl:
            return f'owner={ctrl.get("kind")}/{ctrl.get("name")}'
        return ""

    def _prepare_for_create(self, ri: ResourceInfo, obj: dict, restoring: bool = False,
                            dry_run: bool = False) -> list[str]:
        """PrepareForCreate, and a Service's allocations (``beginCreate``); returns the IPAddresses it created."""
        kind = ri.kind
        if kind == "Pod":
            # status.qosClass from the spec as admission left it (LimitRanger may have added requests), as
            # podStrategy.PrepareForCreate computes it (qos.GetPodQOS) for every create
            obj = self._requalify(obj)
            st = obj.setdefault("status", {})
            st["phase"] = "Pending"
            for k in list(st):
                if k not in ("phase", "qosClass", "conditions"):
                    st.pop(k)
        elif kind == "Namespace":
            obj["status"] = {"phase": "Active"}
            spec = obj.setdefault("spec", {})
            spec.setdefault("finalizers", ["kubernetes"])
            labels = obj["metadata"].setdefault("labels", {})
            labels["kubernetes.io/metadata.name"] = obj["metadata"]["name"]
        elif kind == "Node":
            pass  # nodes post their own status at registration
        elif kind == "Service" and ri.__class__ is ResourceInfo:
            obj.pop("status", None)
            from kubenotes.apiserver.ipallocator import allocate_service, create_ip_addresses, service_allocation_errors

            existing = self.store.list(ri, None)
            held = [a["metadata"]["name"] for a in self.store.list(resource_for("ipaddresses"), None)]
            # the allocators refuse requested addresses and ports out of range or taken (a restore keeps them)
            errors = [] if restoring else service_allocation_errors(obj, existing, held=held)
            if errors:
                raise new_invalid(ri.group, ri.kind, obj["metadata"].get("name", ""),
                                  [field_cause(f, m) for f, m in errors])
            requested = list((obj.get("spec") or {}).get("clusterIPs") or [(obj.get("spec") or {}).get("clusterIP")])
            allocate_service(obj, existing, self._allocator_rng, held=held)
            obj["status"] = {"loadBalancer": {}}
            if not dry_run:  # each ClusterIP an IPAddress object, created through the loopback client
                with self._loopback() as lo:
                    return create_ip_addresses(lo, obj, requested, restoring)
        elif kind == "Job":
            obj.pop("status", None)
            _generate_job_selector(obj)
        elif kind == "DaemonSet":
            obj.pop("status", None)
            anns = obj["metadata"].setdefault("annotations", {})
            anns[DAEMONSET_TEMPLATE_GENERATION] = "1"  # templateGeneration = 1, as apps/v1 carries it
        elif kind == "PersistentVolume":
            # persistentvolumeStrategy.PrepareForCreate (PersistentVolumeLastPhaseTransitionTime, GA)
            obj["status"] = {"phase": "Pending", "lastPhaseTransitionTime": self.timestamp()}
        elif kind == "PersistentVolumeClaim":
            # the status is cleared; read back, SetDefaults_PersistentVolumeClaim makes the phase Pending
            obj["status"] = {"phase": "Pending"}
        elif "status" in ri.subresources:
            obj.pop("status", None)
        return []

    @staticmethod
    def _requalify(obj: dict) -> dict:
        from kubenotes.api.qos import compute_pod_qos

        obj.setdefault("status", {})["qosClass"] = compute_pod_qos(obj)  # the stored (dict) form: no typed decode
        return obj

    # ------------------------------------------------------------ read
    @_request
    def get_object(self, attrs: Attributes) -> dict:
        """``GET`` one object (a copy). Raises 404 NotFound."""
        self.authorize(attrs)
        ri = attrs.resource
        if ri.resource == "componentstatuses":
            obj = next((o for o in component_statuses() if o["metadata"]["name"] == attrs.name), None)
        else:
            obj = self.store.read(ri, attrs.namespace or None, attrs.name)
        if obj is None:
            raise new_not_found(ri.group, ri.resource, attrs.name)
        if attrs.subresource == "scale":
            return self._scale_of(ri, obj)
        return deep_copy(obj)

    def yield_point(self) -> None:
        """A point outside every request where other clients' requests may be served (:attr:`between_requests`).

        The model's clients call it between two pieces of work that are not
        requests (an informer between two keys of its queue), as a goroutine
        of kube-controller-manager would be preempted there. Nothing happens
        unless a served clock set :attr:`between_requests`.
        """
        if self.between_requests is not None and not self._depth:
            self.between_requests()

    @_request
    def list_objects(self, attrs: Attributes, *, label_selector: str = "", field_selector: str = "",
                     limit: int = 0, continue_token: str = "", copy: bool = True) -> dict:
        """``GET`` a collection: ``{"kind": "PodList", "metadata": {"resourceVersion"}, "items"}``.

        ``limit`` and ``continue_token`` page through the keys as upstream's
        chunked lists do: the token is opaque (:func:`encode_continue`: the
        list's resourceVersion and the next key), every page is read from the
        first page's revision (:meth:`ObjectStore.list_at`), ``limit`` <= 0
        means no limit, and ``remainingItemCount`` is given for lists without
        selectors only.

        Raises
        ------
        ApiError
            400 for a token that does not decode (:func:`decode_continue`), 410
            Expired once the history no longer reaches the token's revision
            (:data:`CONTINUE_EXPIRED_MESSAGE`).
        """
        self.authorize(attrs)
        ri = attrs.resource
        labels = parse_selector(label_selector) if label_selector else None
        fields = parse_field_selector(field_selector, ri.resource, ri.crd.selectable_fields if ri.__class__
                                      is not ResourceInfo else ()) if field_selector else None  # a CRD's too
        items = None
        if fields is not None:
            pinned = [v for f, op, v in fields.terms if f == "spec.nodeName" and op == "="]
            if pinned:
                items = self.store.list_by_trigger(ri, pinned[0], attrs.namespace or None)
        if items is None:
            items = (component_statuses() if ri.resource == "componentstatuses"
                     else self.store.read_list(ri, attrs.namespace or None))
        if labels is not None:
            items = [o for o in items if labels.matches(o.get("metadata", {}).get("labels") or {})]
        if fields is not None:
            items = [o for o in items if fields.matches(o)]
        rv = self.store.revision
        prefix = f"/registry/{ri.prefix}/" + (f"{attrs.namespace}/" if attrs.namespace and ri.namespaced else "")
        from_key = ""
        if continue_token:
            from_key, rv = decode_continue(continue_token, prefix)
            snapshot = self.store.list_at(ri, attrs.namespace or None, rv)
            if snapshot is None:
                raise new_resource_expired(CONTINUE_EXPIRED_MESSAGE)
            items = [o for k, o in snapshot if k >= from_key]
            if labels is not None:
                items = [o for o in items if labels.matches(o.get("metadata", {}).get("labels") or {})]
            if fields is not None:
                items = [o for o in items if fields.matches(o)]
        meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if limit > 0 and len(items) > limit:
            last = items[limit - 1]["metadata"]
            last_key = (f"{last.get('namespace')}/" if ri.namespaced and not attrs.namespace else "") + last["name"]
            meta["continue"] = encode_continue(last_key + "\x00", rv)
            if labels is None and fields is None:  # etcd3 GetList: a count only for an unfiltered list
                meta["remainingItemCount"] = len(items) - limit
            items = items[:limit]
        return {"kind": ri.list_kind, "apiVersion": ri.api_version, "metadata": meta,
                "items": [deep_copy(o) for o in items] if copy else list(items)}

    @_request
    def watch(self, attrs: Attributes, *, resource_version: str = "", label_selector: str = "",
              field_selector: str = "") -> Watch:
        """``GET ?watch=1``: events after ``resource_version`` ("" or "0": from now).

        Raises
        ------
        ApiError
            410 Expired when ``resource_version`` is older than the history.
        """
        self.authorize(attrs)
        ri = attrs.resource
        labels = parse_selector(label_selector) if label_selector else None
        fields = parse_field_selector(field_selector, ri.resource, ri.crd.selectable_fields if ri.__class__
                                      is not ResourceInfo else ()) if field_selector else None  # a CRD's too
        try:
            since = int(resource_version or 0)
        except ValueError:
            raise new_bad_request(f'invalid resource version "{resource_version}"') from None
        return self.store.watch(ri, since, attrs.namespace or None, labels, fields)

    # ------------------------------------------------------------ pods/log and the streaming subresources
    @_request
    def pod_log(self, attrs: Attributes, options: dict | None = None) -> Any:
        """``GET pods/<name>/log``: the container's log, from the kubelet of the pod's node (``LogREST.Get``).

        Parameters
        ----------
        attrs : Attributes
            Verb ``get``, subresource ``log``.
        options : dict, optional
            ``PodLogOptions`` by upstream name: ``container`` (str), ``follow``,
            ``previous``, ``timestamps`` (bool), ``sinceSeconds``, ``tailLines``,
            ``limitBytes`` (int), ``sinceTime`` (RFC 3339 str).

        Returns
        -------
        object or None
            The kubelet's log reader (``read() -> str``, ``done``; see
            :class:`kubenotes.kubelet.logs.ContainerLogReader`), or None for a
            pod not yet on a node (upstream answers an empty body then).

        Raises
        ------
        ApiError
            403 Forbidden; 422 Invalid for bad options (``ValidatePodLogOptions``);
            404 for no such pod; 400 BadRequest for a missing or unknown
            container name (``validateContainer``) and for the kubelet's own
            refusals (``container "x" in pod "y" is waiting to start:
            ContainerCreating``); 500 when no kubelet answers for the node.

        Notes
        -----
        The apiserver proxies this request to the kubelet's
        ``/containerLogs/<ns>/<pod>/<container>``; here the reader comes from
        :attr:`kubelet_client` directly.

        References
        ----------
        kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/rest/log.go (LogREST.Get)
        kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (LogLocation, validateContainer)
        kubernetes/kubernetes@v1.34.0 pkg/apis/core/validation/validation.go (ValidatePodLogOptions)
        """
        self.authorize(attrs)
        opts = dict(options or {})
        causes = validate_pod_log_options(opts)
        if causes:
            raise new_invalid("", "PodLogOptions", attrs.name, causes)
        pod = self.store.get(attrs.resource, attrs.namespace or None, attrs.name)
        if pod is None:
            raise new_not_found(attrs.resource.group, attrs.resource.resource, attrs.name)
        container = validate_container(opts.get("container") or "", pod)
        node = (pod.get("spec") or {}).get("nodeName") or ""
        if not node:
            self._step("log", "the pod has no node yet: an empty log (LogLocation returns no location)")
            return None
        self._step("kubelet", f"GET /containerLogs/{attrs.namespace}/{attrs.name}/{container} on node {node}")
        if self.kubelet_client is None:
            raise _kubelet_unreachable(node, f"/containerLogs/{attrs.namespace}/{attrs.name}/{container}")
        return self.kubelet_client.container_log_reader(node, attrs.namespace, attrs.name, container, opts)

    @_request
    def connect(self, attrs: Attributes, container: str = "") -> None:
        """``pods/exec``, ``pods/attach``, ``pods/portforward``: refused, because the model runs no processes.

        Upstream upgrades the connection (SPDY or WebSocket) and proxies it to
        the kubelet, which streams the container's stdin/stdout or a port.
        kubenotes has no containers behind its pods, so after the checks
        upstream makes first (authorization of ``create`` on the subresource,
        the pod exists, the container is valid, the pod has a node) the
        answer is always 400 BadRequest with :data:`NO_PROCESSES_MESSAGE`.

        Raises
        ------
        ApiError
            403, 404, 400 (``validateContainer``; ``pod x does not have a host
            assigned``; then always, with :data:`NO_PROCESSES_MESSAGE`).

        References
        ----------
        kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/rest/subresources.go (ExecREST, AttachREST, PortForwardREST)
        kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (streamLocation, PortForwardLocation)
        """
        self.authorize(attrs)
        pod = self.store.get(attrs.resource, attrs.namespace or None, attrs.name)
        if pod is None:
            raise new_not_found(attrs.resource.group, attrs.resource.resource, attrs.name)
        sub = attrs.subresource
        if sub != "portforward":
            container = validate_container(container, pod)
        if not (pod.get("spec") or {}).get("nodeName"):
            raise new_bad_request(f"pod {attrs.name} does not have a host assigned")
        what = {"exec": "exec into", "attach": "attach to", "portforward": "forward ports of"}.get(sub, sub)
        target = f'container "{container}" of pod "{attrs.name}"' if sub != "portforward" else f'pod "{attrs.name}"'
        self._step("kubelet", f"refused: {sub} needs a running process")
        raise new_bad_request(NO_PROCESSES_MESSAGE.format(what=what, target=target))

    # ------------------------------------------------------------ update
    @_request
    def update(self, attrs: Attributes, body: dict, verb: str = "update", detail: str = "") -> dict:
        """``PUT`` an object or its ``status``/``scale`` subresource.

        A body whose ``metadata.resourceVersion`` is not the stored one gets
        409 Conflict; an empty one updates unconditionally. An update that
        changes nothing is not written (no new resourceVersion), as etcd's
        ``GuaranteedUpdate`` skips identical bytes.
        """
        self.authorize(attrs)
        ri = attrs.resource
        if attrs.subresource == "scale":
            self._check_body(attrs, body)
            return self._update_scale(attrs, body)
        if attrs.subresource not in ("", "status", "finalize", "approval"):
            raise new_method_not_supported(ri.group, f"{ri.resource}/{attrs.subresource}", "update")
        old = self.store.get(ri, attrs.namespace or None, attrs.name)
        if old is None:
            raise new_not_found(ri.group, ri.resource, attrs.name)
        obj = self._decode(ri, body, attrs.namespace, attrs.extra.get("fieldValidation", ""))
        md = obj["metadata"]
        if md.get("name") and md["name"] != attrs.name:
            raise new_bad_request(f'the name of the object ({md["name"]}) does not match the name on the URL '
                                  f'({attrs.name})')
        md["name"] = attrs.name
        rv = md.get("resourceVersion")
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise new_conflict(ri.group, ri.resource, attrs.name)
        if attrs.subresource == "" and ri.kind != "Pod" and ri.kind in _DEFAULTED_KINDS:
            # The decoder defaults every request body, not only creates (a template patched in without
            # defaults must still equal its ReplicaSet's). Status is set aside: only the spec needs defaults,
            # and the typed decoder is stricter with partial status than the API server's JSON decoding.
            status = obj.pop("status", None)
            obj = self._default(ri, obj)
            obj.pop("status", None)
            if status is not None:
                obj["status"] = status
        obj = self._prepare_for_update(ri, attrs.subresource, obj, old)
        self._admit(attrs, obj, old)
        if ri.group == "rbac.authorization.k8s.io":
            check_escalation(self, attrs, obj, old)
        if attrs.subresource == "":
            drop_disabled_fields(ri.kind, obj, old, self.feature_gates)  # PrepareForUpdate's dropDisabled...Fields
            self._validate(ri, obj, old)
        elif attrs.subresource == "status" and ri.__class__ is not ResourceInfo:
            self._validate(ri, obj, old)  # a custom resource's status is checked against its schema
        self._admit_validate(attrs, obj, old)
        if old["metadata"].get("managedFields") and verb != "apply":
            self._record_managed_fields(attrs, old, obj)
        if _without_rv(obj) == _without_rv(old):
            return deep_copy(old)
        if attrs.dry_run:  # what would be stored, at the stored resourceVersion (kubectl diff shows it)
            out = deep_copy(obj)
            out["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion", "")
            return out
        nmd = obj["metadata"]
        if nmd.get("deletionTimestamp") and not nmd.get("finalizers") and self._may_finish_delete(ri, obj):
            self._commit(ri, DELETED, obj, old, attrs.component, "delete", "finalizers removed")
            return deep_copy(obj)
        self._commit(ri, MODIFIED, obj, old, attrs.component, verb,
                     detail or self._update_detail(ri, attrs.subresource, obj, old))
        return deep_copy(obj)

    @staticmethod
    def _may_finish_delete(ri: ResourceInfo, obj: dict) -> bool:
        if ri.kind == "Namespace":
            return not (obj.get("spec") or {}).get("finalizers")
        if ri.kind == "Pod":
            return obj["metadata"].get("deletionGracePeriodSeconds", 0) == 0
        return True

    @staticmethod
    def _update_detail(ri: ResourceInfo, sub: str, obj: dict, old: dict) -> str:
        parts = []
        if sub:
            parts.append(sub)
        spec, ospec = obj.get("spec") or {}, old.get("spec") or {}
        if "replicas" in spec and spec.get("replicas") != ospec.get("replicas"):
            parts.append(f"replicas {ospec.get('replicas')}->{spec.get('replicas')}")
        st, ost = obj.get("status") or {}, old.get("status") or {}
        if ri.kind == "Pod" and st.get("phase") != ost.get("phase"):
            parts.append(f"phase {ost.get('phase')}->{st.get('phase')}")
        if obj["metadata"].get("deletionTimestamp") and not old["metadata"].get("deletionTimestamp"):
            parts.append("deletionTimestamp set")
        return " ".join(parts)

    def _prepare_for_update(self, ri: ResourceInfo, sub: str, obj: dict, old: dict) -> dict:
        if ri.__class__ is not ResourceInfo:  # the custom resource strategy
            return self.crds.prepare_for_update(ri, sub, obj, old)
        md, omd = obj["metadata"], old["metadata"]
        for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
            if k in omd:
                md[k] = omd[k]
            else:
                md.pop(k, None)
        md.pop("resourceVersion", None)
        if sub == "status":
            # The status strategies' PrepareForUpdate: the spec stays as stored, the request's status is taken,
            # and so are its annotations (the Deployment controller writes its revision annotation this way);
            # the apps kinds also keep their stored labels.
            new = dict(old)
            new["metadata"] = dict(omd)
            new["metadata"].pop("resourceVersion", None)
            if "annotations" in md:
                new["metadata"]["annotations"] = md["annotations"]
            else:
                new["metadata"].pop("annotations", None)
            if ri.group != "apps":
                if "labels" in md:
                    new["metadata"]["labels"] = md["labels"]
                else:
                    new["metadata"].pop("labels", None)
            new["status"] = obj.get("status")
            if new["status"] is None:
                new.pop("status")
            elif ri.kind == "PersistentVolume" and new["status"].get("phase") != (old.get("status") or {}).get("phase"):
                # persistentvolumeStatusStrategy.PrepareForUpdate: a phase change stamps the transition time
                new["status"] = dict(new["status"], lastPhaseTransitionTime=self.timestamp())
            return new
        if sub == "approval":
            # csrApprovalStrategy.PrepareForUpdate: only status.conditions change (Approved, Denied)
            new = dict(old)
            new["metadata"] = dict(omd)
            new["metadata"].pop("resourceVersion", None)
            new["status"] = {**(old.get("status") or {}), "conditions": (obj.get("status") or {}).get("conditions")}
            if new["status"]["conditions"] is None:
                new["status"].pop("conditions")
            return new
        if sub == "finalize":
            new = dict(old)
            new["metadata"] = dict(omd)
            new["metadata"].pop("resourceVersion", None)
            new["spec"] = dict(old.get("spec") or {})
            new["spec"]["finalizers"] = list((obj.get("spec") or {}).get("finalizers") or [])
            return new
        if "status" in ri.subresources and ri.kind not in ("Node", "Namespace"):
            if "status" in old:
                obj["status"] = old["status"]
            else:
                obj.pop("status", None)
        elif ri.kind == "Namespace":
            obj["status"] = old.get("status")
        if ri.kind in _GENERATION_KINDS and obj.get("spec") != old.get("spec"):
            md["generation"] = int(omd.get("generation", 1)) + 1
        if ri.kind == "DaemonSet":
            gen = int((omd.get("annotations") or {}).get(DAEMONSET_TEMPLATE_GENERATION, "1"))
            if (obj.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
                gen += 1
            md.setdefault("annotations", {})[DAEMONSET_TEMPLATE_GENERATION] = str(gen)
        if ri.kind == "Namespace":
            labels = md.setdefault("labels", {})
            labels["kubernetes.io/metadata.name"] = md["name"]
        if ri.kind == "Service":
            _keep_service_allocations(obj, old)
        return obj

    @_request
    def patch(self, attrs: Attributes, patch: Any, patch_type: str = MERGE_PATCH) -> dict:
        """``PATCH``: JSON merge patch (RFC 7386), JSON patch (RFC 6902), strategic merge patch, or apply.

        Strategic merge patch merges lists by their patch-merge key (containers
        by ``name``) and honours ``$patch``, ``$setElementOrder``, ``$retainKeys``
        and ``$deleteFromPrimitiveList`` (:func:`kubenotes.apiserver.patch.strategic_merge_patch`).
        ``application/apply-patch+yaml`` is server-side apply (:meth:`apply`).
        ``attrs.extra["fieldValidation"]`` (``Strict``/``Warn``/``Ignore``)
        checks the patched object for unknown fields as upstream's patch handler does.

        Raises
        ------
        ApiError
            404 NotFound, 409 Conflict, 422 Invalid (validation, or an unknown
            field under ``Strict``), 400 BadRequest (a malformed patch), 415
            UnsupportedMediaType.
        """
        if patch_type in (APPLY_PATCH, "apply"):
            return self.apply(attrs, patch, field_manager=attrs.extra.get("fieldManager", ""),
                              force=bool(attrs.extra.get("force")))
        ri = attrs.resource
        if attrs.subresource == "scale":
            cur = self.get_object(attrs)
        else:
            self.authorize(attrs)
            cur_obj = self.store.get(ri, attrs.namespace or None, attrs.name)
            if cur_obj is None:
                raise new_not_found(ri.group, ri.resource, attrs.name)
            cur = cur_obj
        if patch_type in (STRATEGIC_MERGE_PATCH, "strategic") and ri.__class__ is not ResourceInfo:
            from kubenotes.apiserver.apiextensions.registry import strategic_merge_refused

            raise strategic_merge_refused()
        self._check_patch(attrs, patch, patch_type)
        if patch_type in (STRATEGIC_MERGE_PATCH, "strategic"):
            from kubenotes.apiserver.patch_meta import meta_for

            if attrs.subresource == "scale":
                from kubenotes.apiserver.discovery import subresource_kind

                g, v, k = subresource_kind(ri, "scale")
                meta = meta_for(f"{g}/{v}" if g else v, k)
            else:
                meta = meta_for(ri.api_version, ri.kind)
            new = strategic_merge_patch(cur, patch, meta)
        elif patch_type in (MERGE_PATCH, "merge"):
            new = merge_patch(cur, patch)
        elif patch_type in (JSON_PATCH, "json"):
            try:
                new = json_patch(cur, patch)
            except JSONPatchError as e:
                raise json_patch_apply_error(e) from None
        else:
            from kubenotes.apiserver.status import ApiError as _E

            raise _E({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": f"the server does not support the patch type {patch_type!r}",
                      "reason": "UnsupportedMediaType", "code": 415})
        if attrs.subresource != "scale" and ri.__class__ is ResourceInfo and DECODING_BODY.get():
            from kubenotes.apiserver.fieldvalidation import type_error

            err = type_error(new, ri.api_version, ri.kind)
            if err:  # patch.go applyPatchToCurrentObject: the patched object does not decode
                raise _patch_invalid(json.dumps(new, separators=(",", ":")), err)
        validation = attrs.extra.get("fieldValidation", "")
        if validation and attrs.subresource == "" and isinstance(new, dict):
            self._check_patched_fields(ri, new, patch, validation)
        md = new.setdefault("metadata", {})
        patched_rv = (patch.get("metadata") or {}).get("resourceVersion") if isinstance(patch, dict) else None
        md["resourceVersion"] = patched_rv or cur.get("metadata", {}).get("resourceVersion")
        return self.update(attrs, new, verb="patch")

    def _check_patch(self, attrs: Attributes, patch: Any, patch_type: str) -> None:
        """A patch body's shape before it is applied (upstream's ``patchResource`` and the patch libraries).

        A merge patch that is not an object is evanphx/json-patch's ``Invalid JSON Patch`` (400); a
        strategic merge patch must be an object (400); more than :data:`MAX_JSON_PATCH_OPERATIONS`
        JSON patch operations is 413; a strategic patch whose values cannot decode into the kind is 422.
        """
        ri = attrs.resource
        if patch_type in (MERGE_PATCH, "merge") and not isinstance(patch, dict):
            raise new_bad_request("Invalid JSON Patch")
        if patch_type in (STRATEGIC_MERGE_PATCH, "strategic"):
            if not isinstance(patch, dict):
                from kubenotes.apiserver.fieldvalidation import _go_kind

                raise new_bad_request(f"json: cannot unmarshal {_go_kind(patch)} into Go value of type "
                                      "map[string]interface {}")
            if attrs.subresource != "scale" and ri.__class__ is ResourceInfo and DECODING_BODY.get():
                from kubenotes.apiserver.fieldvalidation import type_error

                err = type_error(patch, ri.api_version, ri.kind, patch=True)
                if err:
                    raise _patch_invalid(_go_format(patch), err)
        if patch_type in (JSON_PATCH, "json") and isinstance(patch, list) and len(patch) > MAX_JSON_PATCH_OPERATIONS:
            raise new_request_entity_too_large(f"The allowed maximum operations in a JSON patch is "
                                               f"{MAX_JSON_PATCH_OPERATIONS}, got {len(patch)}")

    def _check_patched_fields(self, ri: ResourceInfo, new: dict, patch: Any, validation: str) -> None:
        """Unknown fields in a patched object: 422 under Strict (upstream's ``patch`` field error), else warn."""
        from kubenotes.apiserver.fieldvalidation import STRICT, WARN, check_fields, unknown_fields

        unknown = unknown_fields(new, ri.api_version, ri.kind)
        if not unknown:
            return
        errs = ", ".join(f'unknown field "{p}"' for p in unknown)
        if validation == STRICT:
            detail = f'patch: Invalid value: "{_go_format(patch)}": strict decoding error: {errs}'
            raise ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": f' "" is invalid: {detail}', "reason": "Invalid",
                            "details": {"causes": [{"reason": "FieldValueInvalid",
                                                    "message": f'Invalid value: "{_go_format(patch)}": strict '
                                                               f'decoding error: {errs}', "field": "patch"}]},
                            "code": 422})
        _warn(check_fields(new, WARN if validation == WARN else "Ignore", api_version=ri.api_version,
                           kind=ri.kind))

    # ------------------------------------------------------------ server-side apply
    @_request
    def apply(self, attrs: Attributes, config: Any, *, field_manager: str = "", force: bool = False) -> dict:
        """Server-side apply: merge an applied configuration, tracking field managers.

        Creates the object when it does not exist (as upstream's apply does,
        with the ``create`` verb authorized too). See
        :mod:`kubenotes.apiserver.apply` for what is modelled.

        Raises
        ------
        ApiError
            400 BadRequest (no ``fieldManager``, a body that is not an object, or
            a name that does not match the URL), 409 Conflict (apply
            conflicts), and whatever create/update raise.
        """
        from kubenotes.apiserver.apply import apply_configuration
        from kubenotes.apiserver.patch_meta import list_info_for

        ri = attrs.resource
        if not field_manager:
            raise new_bad_request("fieldManager is required for apply requests")
        if not isinstance(config, dict):
            raise new_bad_request("error decoding YAML: the applied configuration must be an object")
        name = (config.get("metadata") or {}).get("name")
        if name and name != attrs.name:
            raise new_bad_request(f"the name of the object ({name}) does not match the name on the URL "
                                  f"({attrs.name})")
        self.authorize(attrs)
        config = self._decode(ri, config, attrs.namespace, attrs.extra.get("fieldValidation", "Strict"))
        config.get("metadata", {}).setdefault("name", attrs.name)
        api_version, kind = ri.api_version, ri.kind

        def resolve(fpath: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
            return list_info_for(api_version, kind, fpath)

        cur = self.store.get(ri, attrs.namespace or None, attrs.name)
        if cur is None:
            obj = apply_configuration(None, config, field_manager, force=force, time=self.timestamp(),
                                      resolve=resolve)
            create = Attributes(attrs.user, "create", ri, "", attrs.namespace, "", attrs.dry_run, attrs.component)
            return self.create(create, obj)
        new = apply_configuration(cur, config, field_manager, force=force, time=self.timestamp(), resolve=resolve)
        new["metadata"]["resourceVersion"] = cur["metadata"].get("resourceVersion")
        return self.update(attrs, new, verb="apply")

    def _record_managed_fields(self, attrs: Attributes, old: dict, obj: dict) -> None:
        """Give the fields a non-apply write changed to its manager (objects applied server-side only)."""
        from kubenotes.apiserver.apply import manager_for, record_update
        from kubenotes.apiserver.patch_meta import list_info_for

        ri = attrs.resource
        if "managedFields" not in obj.get("metadata", {}):
            obj["metadata"]["managedFields"] = deep_copy(old["metadata"]["managedFields"])
        base = attrs.component.split("/")[0]
        program = "kube-controller-manager" if base.endswith("-controller") else _COMPONENT_MANAGERS.get(base, base)
        manager = manager_for(program, attrs.extra.get("fieldManager", ""))
        record_update(old, obj, manager, subresource=attrs.extra.get("managedSubresource", attrs.subresource),
                      time=self.timestamp(),
                      resolve=lambda fpath: list_info_for(ri.api_version, ri.kind, fpath))

    # ------------------------------------------------------------ delete
    @_request
    def delete(self, attrs: Attributes, *, grace_period_seconds: int | None = None,
               propagation_policy: str | None = None, preconditions: dict | None = None) -> dict:
        """``DELETE`` an object, gracefully where its kind is graceful.

        Pods on a node get ``deletionTimestamp`` = now + grace period (their
        ``terminationGracePeriodSeconds``, 30 s by default) and stay until the
        kubelet confirms with a zero grace period; objects with finalizers get
        ``deletionTimestamp`` and stay until the finalizers are removed;
        ``propagation_policy`` ``Orphan`` and ``Foreground`` add the ``orphan``
        and ``foregroundDeletion`` finalizers for the garbage collector.
        A Namespace turns ``Terminating`` until the namespace controller has
        emptied it and removed the ``kubernetes`` finalizer.

        Returns
        -------
        dict
            The object as it now is (still present, or its last state).
        """
        self.authorize(attrs)
        ri = attrs.resource
        if "delete" not in ri.verbs:
            raise new_method_not_supported(ri.group, ri.resource, "delete")
        old = self.store.get(ri, attrs.namespace or None, attrs.name)
        if old is None:
            raise new_not_found(ri.group, ri.resource, attrs.name)
        omd = old["metadata"]
        if preconditions:
            if preconditions.get("uid") and preconditions["uid"] != omd.get("uid"):
                raise new_conflict(ri.group, ri.resource, attrs.name,
                                   f'Precondition failed: UID in precondition: {preconditions["uid"]}, UID in object '
                                   f'meta: {omd.get("uid")}')
            if preconditions.get("resourceVersion") and preconditions["resourceVersion"] != omd["resourceVersion"]:
                raise new_conflict(ri.group, ri.resource, attrs.name,
                                   f'Precondition failed: ResourceVersion in precondition: '
                                   f'{preconditions["resourceVersion"]}, ResourceVersion in object meta: '
                                   f'{omd["resourceVersion"]}')
        self._admit(attrs, None, old)
        self._admit_validate(attrs, None, old)
        if attrs.dry_run:
            return deep_copy(old)
        if ri.resource == "customresourcedefinitions" and ri.group == "apiextensions.k8s.io":
            left = self.crds.begin_delete(old, attrs.component)  # Terminating, instances deleted, then gone
            return deep_copy(left if left is not None else old)
        new = dict(old)
        md = new["metadata"] = dict(omd)
        md.pop("resourceVersion", None)
        finalizers = list(md.get("finalizers") or [])
        if propagation_policy == "Orphan" and "orphan" not in finalizers:
            finalizers.append("orphan")
        elif propagation_policy == "Foreground" and "foregroundDeletion" not in finalizers:
            finalizers.append("foregroundDeletion")
        if finalizers != list(md.get("finalizers") or []):
            md["finalizers"] = finalizers

        if ri.kind == "Namespace":
            if md.get("deletionTimestamp") and not (new.get("spec") or {}).get("finalizers") and not finalizers:
                return self._commit(ri, DELETED, new, old, attrs.component, "delete")
            if not md.get("deletionTimestamp"):
                md["deletionTimestamp"] = self.timestamp()
                md["deletionGracePeriodSeconds"] = 0
            new["status"] = {"phase": "Terminating"}
            if not (new.get("spec") or {}).get("finalizers") and not finalizers:
                return deep_copy(self._commit(ri, DELETED, new, old, attrs.component, "delete"))
            return deep_copy(self._commit(ri, MODIFIED, new, old, attrs.component, "delete", "Terminating"))

        grace = self._grace_period(ri, old, grace_period_seconds)
        if grace > 0:
            cur_grace = md.get("deletionGracePeriodSeconds")
            if md.get("deletionTimestamp") and cur_grace is not None and cur_grace <= grace:
                return deep_copy(old)  # already terminating with a shorter grace period
            md["deletionTimestamp"] = format_timestamp(self.env.now + grace, self.epoch)
            md["deletionGracePeriodSeconds"] = grace
            return deep_copy(self._commit(ri, MODIFIED, new, old, attrs.component, "delete",
                                          f"graceful, {grace}s"))
        if finalizers:
            if not md.get("deletionTimestamp"):
                md["deletionTimestamp"] = self.timestamp()
            md["deletionGracePeriodSeconds"] = 0
            if _without_rv(new) == _without_rv(old):
                return deep_copy(old)
            return deep_copy(self._commit(ri, MODIFIED, new, old, attrs.component, "delete",
                                          "finalizers: " + ",".join(finalizers)))
        return deep_copy(self._commit(ri, DELETED, new, old, attrs.component, "delete"))

    @staticmethod
    def _grace_period(ri: ResourceInfo, obj: dict, requested: int | None) -> int:
        if ri.kind != "Pod":
            return 0
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        if not spec.get("nodeName") or status.get("phase") in ("Succeeded", "Failed"):
            return 0  # pkg/registry/core/pod/strategy.go CheckGracefulDelete
        if requested is not None:
            return max(int(requested), 0)
        g = spec.get("terminationGracePeriodSeconds")
        return 30 if g is None else int(g)

    # ------------------------------------------------------------ subresources
    def _create_subresource(self, attrs: Attributes, body: dict) -> dict:
        ri, sub = attrs.resource, attrs.subresource
        if ri.kind == "Pod" and sub == "binding":
            return self._bind(attrs, body)
        if ri.kind == "Pod" and sub == "eviction":
            return self._evict(attrs, body)
        if ri.kind == "ServiceAccount" and sub == "token":
            return self._token_request(attrs, body)
        raise new_method_not_supported(ri.group, f"{ri.resource}/{sub}", "create")

    def _bind(self, attrs: Attributes, body: dict) -> dict:
        ri = attrs.resource
        pod = self.store.get(ri, attrs.namespace or None, attrs.name)
        if pod is None:
            raise new_not_found(ri.group, ri.resource, attrs.name)
        target = (body or {}).get("target") or {}
        node = target.get("name", "")
        if not node:
            raise new_invalid("", "Binding", attrs.name, [field_cause(
                "target.name", "target.name: Required value: name is required", "FieldValueRequired")])
        if pod["metadata"].get("deletionTimestamp"):
            raise new_conflict(ri.group, ri.resource, attrs.name, "pod is being deleted, cannot be assigned to a host")
        cur = (pod.get("spec") or {}).get("nodeName")
        if cur:
            raise new_conflict(ri.group, ri.resource, attrs.name,
                               f"pod {attrs.name} is already assigned to node \"{cur}\"")
        new = dict(pod)
        new["metadata"] = dict(pod["metadata"])
        new["metadata"].pop("resourceVersion", None)
        new["spec"] = dict(pod["spec"])
        new["spec"]["nodeName"] = node
        st = new["status"] = dict(pod.get("status") or {})
        conds = [c for c in st.get("conditions") or [] if c.get("type") != "PodScheduled"]
        conds.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                      "lastTransitionTime": self.timestamp()})
        st["conditions"] = conds
        self._commit(ri, MODIFIED, new, pod, attrs.component, "bind", f"node={node}")
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}

    def _evict(self, attrs: Attributes, body: dict) -> dict:
        """``pods/eviction``: delete the pod unless a PodDisruptionBudget covering it has no disruptions left."""
        ri = attrs.resource
        pod = self.store.get(ri, attrs.namespace or None, attrs.name)
        if pod is None:
            raise new_not_found(ri.group, ri.resource, attrs.name)
        phase = (pod.get("status") or {}).get("phase")
        labels = pod["metadata"].get("labels") or {}
        pdb_ri = resource_for("poddisruptionbudgets")
        budgets = []
        if phase not in ("Succeeded", "Failed", "Pending") and not pod["metadata"].get("deletionTimestamp"):
            from kubenotes.api.selectors import LabelSelector

            for pdb in self.store.list(pdb_ri, attrs.namespace or None):
                sel = (pdb.get("spec") or {}).get("selector")
                if sel is None:
                    continue
                if LabelSelector.from_api(_Sel(sel)).matches(labels):
                    budgets.append(pdb)
        if len(budgets) > 1:
            from kubenotes.apiserver.status import new_internal_error

            raise new_internal_error("This pod has more than one PodDisruptionBudget, which the eviction "
                                     "subresource does not support.")
        if budgets:
            pdb = budgets[0]
            st = pdb.get("status") or {}
            if st.get("observedGeneration", 0) < pdb["metadata"].get("generation", 1) or \
                    int(st.get("disruptionsAllowed", 0)) <= 0:
                err = new_too_many_requests(DISRUPTION_BUDGET_MESSAGE, 0)
                err.status["details"] = {"causes": [{
                    "reason": "DisruptionBudget",
                    "message": f'The disruption budget {pdb["metadata"]["name"]} needs '
                               f'{st.get("desiredHealthy", 0)} healthy pods and has '
                               f'{st.get("currentHealthy", 0)} currently'}]}
                raise err
            new_pdb = dict(pdb)
            new_pdb["metadata"] = dict(pdb["metadata"])
            new_pdb["metadata"].pop("resourceVersion", None)
            nst = new_pdb["status"] = dict(st)
            nst["disruptionsAllowed"] = int(st.get("disruptionsAllowed", 0)) - 1
            dp = dict(nst.get("disruptedPods") or {})
            dp[attrs.name] = self.timestamp()
            nst["disruptedPods"] = dp
            self._commit(pdb_ri, MODIFIED, new_pdb, pdb, attrs.component, "update", "status (eviction)")
        opts = (body or {}).get("deleteOptions") or {}
        del_attrs = Attributes(attrs.user, "delete", ri, "", attrs.namespace, attrs.name, attrs.dry_run,
                               attrs.component)
        self.admission_bypass_delete(del_attrs, opts.get("gracePeriodSeconds"))
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}

    def admission_bypass_delete(self, attrs: Attributes, grace: int | None) -> dict:
        authz, self.authorizer = self.authorizer, None
        try:
            return self.delete(attrs, grace_period_seconds=grace)
        finally:
            self.authorizer = authz

    def _self_subject_review(self, attrs: Attributes, body: dict) -> dict:
        """Answer a SelfSubjectAccessReview (``kubectl auth can-i``), SelfSubjectRulesReview (``can-i --list``)
        or SelfSubjectReview (``kubectl auth whoami``).

        Neither is stored: the API server evaluates the review for the requesting
        user and returns it with ``status`` filled in (``pkg/registry/authorization/
        selfsubjectaccessreview/rest.go``, ``pkg/registry/authentication/selfsubjectreview/rest.go``).
        """
        ri = attrs.resource
        spec = deep_copy((body or {}).get("spec") or {})
        out: dict[str, Any] = {"kind": ri.kind, "apiVersion": ri.api_version, "metadata": {"creationTimestamp": None}}
        if ri.resource == "selfsubjectreviews":
            u = attrs.user
            out["status"] = {"userInfo": {"username": u.name, **({"uid": u.uid} if u.uid else {}),
                                          "groups": list(u.groups)}}
            return out
        if ri.resource == "selfsubjectrulesreviews":  # kubectl auth can-i --list
            from kubenotes.apiserver.rbac import RBACAuthorizer, subject_rules_review_status

            rbac = self.authorizer
            while rbac is not None and not isinstance(rbac, RBACAuthorizer):
                rbac = getattr(rbac, "rbac", None) or getattr(rbac, "next", None)
            out["spec"] = spec
            out["status"] = (subject_rules_review_status(rbac, attrs.user, spec.get("namespace", ""))
                             if rbac is not None else
                             {"resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                              "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                              "incomplete": False})
            return out
        out["spec"] = spec
        out["status"] = self._access_review_status(attrs.user, spec)
        return out

    def _subject_access_review(self, attrs: Attributes, body: dict) -> dict:
        """Answer a SubjectAccessReview or a LocalSubjectAccessReview: may the user in ``spec`` do this?

        Not stored, like the self reviews; the user evaluated is the spec's
        (``user``, ``uid``, ``groups``), not the requester. A
        LocalSubjectAccessReview asks about resources in the request's
        namespace only.

        Raises
        ------
        ApiError
            422 Invalid without a user or group, or without exactly one of
            ``resourceAttributes`` / ``nonResourceAttributes`` (a local review
            allows no ``nonResourceAttributes``); 400 BadRequest for a local
            review about another namespace.

        References
        ----------
        kubernetes/kubernetes@v1.34.0 pkg/registry/authorization/subjectaccessreview/rest.go
        kubernetes/kubernetes@v1.34.0 pkg/registry/authorization/localsubjectaccessreview/rest.go
        kubernetes/kubernetes@v1.34.0 pkg/apis/authorization/validation/validation.go
        """
        ri = attrs.resource
        spec = deep_copy((body or {}).get("spec") or {})
        local = ri.resource == "localsubjectaccessreviews"
        causes = []
        ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
        if ra is not None and nra is not None:
            causes.append(field_cause("spec.nonResourceAttributes", "spec.nonResourceAttributes: Invalid value: "
                                      f"{_nra_go(nra)}: cannot be specified in combination with resourceAttributes",
                                      "FieldValueInvalid"))
        elif ra is None and nra is None:
            causes.append(field_cause("spec.resourceAttributes", "spec.resourceAttributes: Invalid value: \"null\": "
                                      "exactly one of nonResourceAttributes or resourceAttributes must be specified",
                                      "FieldValueInvalid"))
        if not spec.get("user") and not spec.get("groups"):
            causes.append(field_cause("spec.user", 'spec.user: Invalid value: "": at least one of user or group '
                                      "must be specified", "FieldValueInvalid"))
        if local and nra is not None:
            causes.append(field_cause("spec.nonResourceAttributes", "spec.nonResourceAttributes: Invalid value: "
                                      f"{_nra_go(nra)}: disallowed on this kind of request", "FieldValueInvalid"))
        if causes:
            raise new_invalid(ri.group, ri.kind, "", causes)
        if local and (ra or {}).get("namespace", "") != attrs.namespace:
            raise new_bad_request(f"spec.resourceAttributes.namespace must match namespace: {attrs.namespace}")
        user = UserInfo(spec.get("user", ""), spec.get("uid", ""), tuple(spec.get("groups") or ()))
        md = {"namespace": attrs.namespace, "creationTimestamp": None} if local else {"creationTimestamp": None}
        return {"kind": ri.kind, "apiVersion": ri.api_version, "metadata": md, "spec": spec,
                "status": self._access_review_status(user, spec)}

    def _access_review_status(self, user: UserInfo, spec: dict) -> dict:
        """The ``status`` of an access review: the authorizer's decision for ``user`` on the spec's attributes."""
        ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
        decision, reason = "Allow", ""
        if self.authorizer is not None:
            if ra is not None:
                res, group = ra.get("resource", ""), ra.get("group", "")
                try:
                    target = resource_for(f"{res}.{group}" if group else res)
                except ApiError:
                    decision, reason = "NoOpinion", ""
                else:
                    decision, reason = self.authorizer.authorize(Attributes(
                        user, ra.get("verb", ""), target, ra.get("subresource", ""),
                        ra.get("namespace", "") if target.namespaced else "", ra.get("name", "")))
            elif nra is not None:
                from kubenotes.apiserver.rbac import NonResourceAttributes

                decision, reason = self.authorizer.authorize(
                    NonResourceAttributes(user, nra.get("verb", ""), nra.get("path", "")))
        status: dict[str, Any] = {"allowed": decision == "Allow"}
        if reason:
            status["reason"] = reason
        return status

    def _token_request(self, attrs: Attributes, body: dict) -> dict:
        from kubenotes.apiserver.authn import token_request

        return token_request(self, attrs, body)

    def _scale_of(self, ri: ResourceInfo, obj: dict) -> dict:
        if ri.__class__ is not ResourceInfo:
            return self.crds.scale_of(ri, obj)
        md = obj["metadata"]
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        sel = spec.get("selector") or {}
        if ri.kind == "ReplicationController":
            selector = ",".join(f"{k}={v}" for k, v in sorted(sel.items()))
        else:
            from kubenotes.api.selectors import LabelSelector

            selector = str(LabelSelector.from_api(_Sel(sel))) if sel else ""
        return {"kind": "Scale", "apiVersion": "autoscaling/v1",
                "metadata": {"name": md["name"], "namespace": md.get("namespace"), "uid": md.get("uid"),
                             "resourceVersion": md.get("resourceVersion"),
                             "creationTimestamp": md.get("creationTimestamp")},
                "spec": {"replicas": int(spec.get("replicas", 0) or 0)},
                "status": {"replicas": int(st.get("replicas", 0) or 0), "selector": selector}}

    def _update_scale(self, attrs: Attributes, body: dict) -> dict:
        ri = attrs.resource
        old = self.store.get(ri, attrs.namespace or None, attrs.name)
        if old is None:
            raise new_not_found(ri.group, ri.resource, attrs.name)
        replicas = ((body or {}).get("spec") or {}).get("replicas")
        if not isinstance(replicas, int) or replicas < 0:
            raise new_invalid("autoscaling", "Scale", attrs.name, [field_cause(
                "spec.replicas", f"spec.replicas: Invalid value: {replicas}: must be greater than or equal to 0")])
        rv = ((body or {}).get("metadata") or {}).get("resourceVersion")
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise new_conflict(ri.group, ri.resource, attrs.name)
        new = deep_copy(old)
        if ri.__class__ is not ResourceInfo:
            self.crds.set_replicas(ri, new, replicas)
        else:
            new["spec"]["replicas"] = replicas
        inner = Attributes(attrs.user, "update", ri, "", attrs.namespace, attrs.name, attrs.dry_run, attrs.component,
                           extra={"managedSubresource": "scale", "fieldManager": attrs.extra.get("fieldManager", "")})
        authz, self.authorizer = self.authorizer, None
        try:
            out = self.update(inner, new, verb="scale")
        finally:
            self.authorizer = authz
        return self._scale_of(ri, out)


#: The answer to ``kubectl exec``/``attach``/``cp``/``port-forward`` (kubenotes has no container runtime).
NO_PROCESSES_MESSAGE = ("kubenotes cannot {what} {target}: the model runs no container processes, so "
                        "exec, attach, cp and port-forward have nothing to connect to (kubectl logs shows the "
                        "modelled output)")

#: ``isNegativeErrorMsg`` of ``pkg/apis/core/validation``.
_IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"


#: ``storage/etcd3``'s 410 for a continue token whose revision was compacted away.
CONTINUE_EXPIRED_MESSAGE = ("The provided continue parameter is too old to display a consistent list result. You "
                            "can start a new list without the continue parameter, or use the continue token in this "
                            "response to retrieve the remainder of the results. Continuing with the provided token "
                            "results in an inconsistent list - objects that were created, modified, or deleted "
                            "between the time the first chunk was returned and now may show up in the list.")


def encode_continue(start_key: str, resource_version: int) -> str:
    r"""The opaque ``continue`` token of a chunked list (``storage.EncodeContinue``).

    Unpadded URL-safe base64 of ``{"v":"meta.k8s.io/v1","rv":N,"start":KEY}``,
    where ``KEY`` is the next key to read, relative to the resource's key
    prefix (the last key returned plus ``\\x00``).

    Examples
    --------
    >>> encode_continue("default/web\x00", 12)
    'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIsInN0YXJ0IjoiZGVmYXVsdC93ZWJcdTAwMDAifQ'
    >>> decode_continue(encode_continue("web\x00", 12), "/registry/pods/default/")
    ('/registry/pods/default/web\x00', 12)
    """
    import base64

    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": resource_version, "start": start_key}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_continue(token: str, key_prefix: str) -> tuple[str, int]:
    r"""``(from_key, resource_version)`` of a continue token (``storage.DecodeContinue``).

    Raises
    ------
    ApiError
        400 BadRequest ``invalid continue token: continue key is not valid...`` for a token that does not decode,
        names another version, has no revision or start key, or climbs out of the key prefix.

    Examples
    --------
    >>> try:
    ...     decode_continue("eA", "/registry/pods/")  # base64 of "x"
    ... except ApiError as e:
    ...     print(e.code, e.message)
    400 invalid continue token: continue key is not valid: invalid character 'x' looking for beginning of value
    """
    import base64
    import binascii
    import posixpath

    def bad(detail: str) -> ApiError:
        return new_bad_request(f"invalid continue token: continue key is not valid{detail}")

    if "=" in token or any(c in token for c in "+/"):
        raise bad(f": illegal base64 data at input byte {min(i for i, c in enumerate(token) if c in '=+/')}")
    try:
        data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise bad(f": illegal base64 data at input byte {len(token) - len(token) % 4}") from None
    if not data:
        raise bad(": unexpected end of JSON input")
    try:
        c = json.loads(data)
    except (ValueError, RecursionError):
        first = data.decode("utf-8", "replace").lstrip()[:1]
        raise bad(f": invalid character '{first}' looking for beginning of value") from None
    if not isinstance(c, dict):
        raise bad(": json: cannot unmarshal array into Go value of type storage.continueToken")
    version, rv, start = c.get("v", ""), c.get("rv", 0), c.get("start", "")
    if not isinstance(version, str) or isinstance(rv, bool) or not isinstance(rv, int) or not isinstance(start, str):
        raise bad(": json: cannot unmarshal into Go value of type storage.continueToken")
    if version != "meta.k8s.io/v1":
        raise bad(f": server does not recognize this encoded version {version}")
    if rv == 0:
        raise bad(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    if not start:
        raise bad(": encoded start key empty (version meta.k8s.io/v1)")
    key = start if start.startswith("/") else "/" + start
    if posixpath.normpath(key) != key or key.startswith("//"):
        raise bad(f": {start}")
    return key_prefix + key[1:], rv


def _same_group(api_version: str, expected: str) -> bool:
    """Whether a body's ``apiVersion`` names the URL's group (another served version of it converts)."""
    return api_version.rpartition("/")[0] == expected.rpartition("/")[0]


def validate_pod_log_options(opts: dict) -> list[dict]:
    """``ValidatePodLogOptions``: field causes for bad ``tailLines``, ``limitBytes``, ``sinceSeconds``/``sinceTime``.

    Examples
    --------
    >>> [c["message"] for c in validate_pod_log_options({"tailLines": -1, "limitBytes": 0})]
    ['tailLines: Invalid value: -1: must be greater than or equal to 0', 'limitBytes: Invalid value: 0: must be greater than 0']
    >>> validate_pod_log_options({"sinceSeconds": 5, "sinceTime": "2025-08-27T00:00:00Z"})[0]["message"]
    ': Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'
    >>> validate_pod_log_options({"tailLines": 10, "sinceSeconds": 1})
    []

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/apis/core/validation/validation.go (ValidatePodLogOptions)
    """
    causes = []
    tail, limit = opts.get("tailLines"), opts.get("limitBytes")
    since, since_time = opts.get("sinceSeconds"), opts.get("sinceTime")
    if tail is not None and tail < 0:
        causes.append(field_cause("tailLines", f"tailLines: Invalid value: {tail}: {_IS_NEGATIVE_ERROR_MSG}"))
    if limit is not None and limit < 1:
        causes.append(field_cause("limitBytes", f"limitBytes: Invalid value: {limit}: must be greater than 0"))
    if since is not None and since_time:
        causes.append(field_cause("", ": Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
                                  "FieldValueForbidden"))
    elif since is not None and since < 1:
        causes.append(field_cause("sinceSeconds", f"sinceSeconds: Invalid value: {since}: must be greater than 0"))
    return causes


def validate_container(container: str, pod: dict) -> str:
    """``validateContainer``: the container a log/exec/attach request means, or 400 BadRequest.

    With no name, a pod's only container is meant; with several, the error
    lists them all (init, regular, ephemeral, as ``VisitContainers``).

    Raises
    ------
    ApiError
        400 BadRequest with upstream's message.

    Examples
    --------
    >>> pod = {"metadata": {"name": "web-x"}, "spec": {"containers": [{"name": "a"}, {"name": "b"}]}}
    >>> validate_container("b", pod)
    'b'
    >>> validate_container("", pod)
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: a container name must be specified for pod web-x, choose one of: [a b]
    >>> validate_container("c", pod)
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.status.ApiError: container c is not valid for pod web-x

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/pod/strategy.go (validateContainer, podHasContainerWithName)
    """
    spec = pod.get("spec") or {}
    name = pod["metadata"]["name"]
    every = [c.get("name", "") for key in ("initContainers", "containers", "ephemeralContainers")
             for c in spec.get(key) or []]
    if not container:
        regular = spec.get("containers") or []
        if len(regular) == 1:
            return regular[0].get("name", "")
        if not regular:
            raise new_bad_request(f"a container name must be specified for pod {name}")
        raise new_bad_request(f"a container name must be specified for pod {name}, choose one of: "
                              f"[{' '.join(every)}]")
    if container not in every:
        raise new_bad_request(f"container {container} is not valid for pod {name}")
    return container


def component_statuses() -> list[dict]:
    """``GET /api/v1/componentstatuses``: the control plane's health as the deprecated API reports it.

    Upstream's REST (no storage) probes the scheduler's and the controller
    manager's ``/healthz`` and each etcd server; the model's components run in
    the API server's process and its store is in memory, so all are Healthy.

    Returns
    -------
    list[dict]
        ``ComponentStatus`` objects for ``controller-manager``, ``etcd-0`` and
        ``scheduler`` (no creationTimestamp: upstream builds them per request).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/componentstatus/rest.go

    Examples
    --------
    >>> [(c["metadata"]["name"], c["conditions"][0]["message"]) for c in component_statuses()]
    [('controller-manager', 'ok'), ('etcd-0', 'ok'), ('scheduler', 'ok')]
    """
    return [{"kind": "ComponentStatus", "apiVersion": "v1", "metadata": {"name": name},
             "conditions": [{"type": "Healthy", "status": "True", "message": "ok"}]}
            for name in ("controller-manager", "etcd-0", "scheduler")]


def _kubelet_unreachable(node: str, path: str) -> ApiError:
    """What the apiserver answers when the node's kubelet does not (a dial error, 500 without a reason)."""
    from kubenotes.apiserver.status import _status

    return _status(500, "", f'Get "https://{node}:10250{path}": dial tcp {node}:10250: connect: connection refused')


#: The apps/v1 annotation carrying a DaemonSet's templateGeneration (``pkg/apis/apps/v1/conversion.go``).
DAEMONSET_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


def _generate_job_selector(job: dict) -> None:
    """``generateSelector`` of ``pkg/registry/batch/job/strategy.go``: label the template with the Job's uid and name.

    Unless ``spec.manualSelector`` is true, the template gets ``controller-uid``,
    ``batch.kubernetes.io/controller-uid``, ``job-name`` and
    ``batch.kubernetes.io/job-name``, and the selector becomes
    ``matchLabels: {batch.kubernetes.io/controller-uid: <uid>}``.
    """
    spec = job.setdefault("spec", {})
    if spec.get("manualSelector"):
        return
    md = job["metadata"]
    uid, name = md.get("uid", ""), md.get("name", "")
    tmpl = spec.setdefault("template", {})
    labels = tmpl.setdefault("metadata", {}).setdefault("labels", {})
    for k, v in (("batch.kubernetes.io/controller-uid", uid), ("batch.kubernetes.io/job-name", name),
                 ("controller-uid", uid), ("job-name", name)):
        labels.setdefault(k, v)
    spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}


def _base_admit(p: Any) -> Any:
    for cls in type(p).__mro__[1:]:
        if "admit" in vars(cls):
            return vars(cls)["admit"]
    return None


def _base_validate(p: Any) -> Any:
    for cls in type(p).__mro__[1:]:
        if "validate" in vars(cls):
            return vars(cls)["validate"]
    return None


class _Sel:
    """Adapter giving a selector dict the attribute shape ``LabelSelector.from_api`` reads."""

    __slots__ = ("matchLabels", "matchExpressions")

    def __init__(self, d: dict):
        self.matchLabels = d.get("matchLabels")
        self.matchExpressions = [_Expr(e) for e in d.get("matchExpressions") or []] or None


class _Expr:
    __slots__ = ("key", "operator", "values")

    def __init__(self, d: dict):
        self.key, self.operator, self.values = d.get("key"), d.get("operator"), d.get("values")


class Client:
    """A typed-free clientset bound to one user: what a component or ``kubectl`` calls.

    Every method builds the request :class:`~kubenotes.apiserver.request.Attributes`
    and goes through the server's full request path. ``resource`` is any
    name ``kubectl`` accepts (``pods``, ``deploy``, ``deployments.apps``).
    Returned objects are copies the caller may change; watch events are shared
    and read-only.

    Parameters
    ----------
    server : APIServer
    user : UserInfo
    component : str
        Name written to the audit log (``replicaset-controller``).
    """

    def __init__(self, server: APIServer, user: UserInfo, component: str):
        self.server = server
        self.user = user
        self.component = component

    def _attrs(self, verb: str, resource: str, namespace: str | None, name: str = "", subresource: str = "",
               dry_run: bool = False) -> Attributes:
        try:
            ri = resource_for(resource)
        except ApiError:
            ri = self.server.crds.resource_for(resource)  # a custom resource a CRD serves
            if ri is None:
                raise
        if ri in GATED_RESOURCES and ri not in self.server.gated_served:  # an off-by-default API not enabled
            raise new_bad_request(f'the server doesn\'t have a resource type "{resource}"')
        if self.server.request_costs is not None:  # client-side rate limit and latency (kubenotes.sim.costs)
            self.server.request_costs.before_request(self, verb, ri.resource)
        ns = (namespace or "") if ri.namespaced else ""
        if ri.namespaced and not ns and verb not in ("list", "watch"):
            ns = "default"
        return Attributes(self.user, verb, ri, subresource, ns, name, dry_run, self.component)

    # reads
    def get(self, resource: str, name: str, namespace: str | None = None, *, subresource: str = "") -> dict:
        return self.server.get_object(self._attrs("get", resource, namespace, name, subresource))

    def list(self, resource: str, namespace: str | None = None, *, label_selector: str = "",
             field_selector: str = "", resource_version: str = "", limit: int = 0, continue_token: str = "") -> dict:
        return self.server.list_objects(self._attrs("list", resource, namespace), label_selector=label_selector,
                                        field_selector=field_selector, limit=limit, continue_token=continue_token)

    def watch(self, resource: str, namespace: str | None = None, *, resource_version: str = "",
              label_selector: str = "", field_selector: str = "", allow_watch_bookmarks: bool = True) -> Watch:
        w = self.server.watch(self._attrs("watch", resource, namespace), resource_version=resource_version,
                              label_selector=label_selector, field_selector=field_selector)
        w.owner = self.component
        return w

    # writes
    def create(self, resource: str, obj: dict, namespace: str | None = None, *, dry_run: bool = False) -> dict:
        ns = namespace or (obj.get("metadata") or {}).get("namespace")
        return self.server.create(self._attrs("create", resource, ns, dry_run=dry_run), obj)

    def update(self, resource: str, obj: dict, namespace: str | None = None, *, subresource: str = "",
               dry_run: bool = False) -> dict:
        md = obj.get("metadata") or {}
        ns = namespace or md.get("namespace")
        return self.server.update(self._attrs("update", resource, ns, md.get("name", ""), subresource, dry_run), obj)

    def update_status(self, resource: str, obj: dict, namespace: str | None = None) -> dict:
        return self.update(resource, obj, namespace, subresource="status")

    def patch(self, resource: str, name: str, patch: Any, namespace: str | None = None, *,
              patch_type: str = MERGE_PATCH, subresource: str = "", dry_run: bool = False) -> dict:
        return self.server.patch(self._attrs("patch", resource, namespace, name, subresource, dry_run), patch,
                                 patch_type)

    def delete(self, resource: str, name: str, namespace: str | None = None, *, grace_period_seconds: int | None = None,
               propagation_policy: str | None = None, preconditions: dict | None = None,
               dry_run: bool = False) -> dict:
        return self.server.delete(self._attrs("delete", resource, namespace, name, dry_run=dry_run),
                                  grace_period_seconds=grace_period_seconds, propagation_policy=propagation_policy,
                                  preconditions=preconditions)

    # subresources
    def bind(self, namespace: str, name: str, node_name: str) -> dict:
        """``POST pods/<name>/binding`` with a Binding to ``node_name`` (what the scheduler's DefaultBinder sends)."""
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": namespace},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node_name}}
        return self.server.create(self._attrs("create", "pods", namespace, name, "binding"), body)

    def evict(self, namespace: str, name: str, grace_period_seconds: int | None = None) -> dict:
        """``POST pods/<name>/eviction`` (policy/v1 Eviction)."""
        body: dict = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": namespace}}
        if grace_period_seconds is not None:
            body["deleteOptions"] = {"gracePeriodSeconds": grace_period_seconds}
        return self.server.create(self._attrs("create", "pods", namespace, name, "eviction"), body)

    def scale(self, resource: str, name: str, replicas: int, namespace: str | None = None) -> dict:
        """``PUT <resource>/<name>/scale``."""
        return self.server.update(self._attrs("update", resource, namespace, name, "scale"),
                                  {"spec": {"replicas": replicas}})

    def create_token(self, namespace: str, service_account: str, expiration_seconds: int = 3600) -> dict:
        """``POST serviceaccounts/<name>/token`` (a TokenRequest)."""
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                "spec": {"expirationSeconds": expiration_seconds}}
        return self.server.create(self._attrs("create", "serviceaccounts", namespace, service_account, "token"), body)


def _keep_service_allocations(new: dict, old: dict) -> None:
    """``patchAllocatedValues``: an update that leaves out the ClusterIP(s) or a port's nodePort keeps them."""
    spec, ospec = new.setdefault("spec", {}), old.get("spec") or {}
    if spec.get("type") == "ExternalName" or ospec.get("type") == "ExternalName":
        return
    for k in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
        if not spec.get(k) and ospec.get(k):
            spec[k] = deep_copy(ospec[k])
    if spec.get("type") in ("NodePort", "LoadBalancer") and ospec.get("type") in ("NodePort", "LoadBalancer"):
        old_ports = {(p.get("port"), p.get("protocol", "TCP")): p.get("nodePort") for p in ospec.get("ports") or ()}
        for p in spec.get("ports") or ():
            if not p.get("nodePort") and old_ports.get((p.get("port"), p.get("protocol", "TCP"))):
                p["nodePort"] = old_ports[(p.get("port"), p.get("protocol", "TCP"))]


#: The manager name upstream's components write under (their user agent's program name).
_COMPONENT_MANAGERS = {"default-scheduler": "kube-scheduler", "kubelet": "kubelet",
                       "kube-apiserver": "kube-apiserver"}


def _nra_go(nra: Any) -> str:
    """``%#v`` of the internal ``authorization.NonResourceAttributes``, as a field error prints a struct value."""
    d = nra if isinstance(nra, dict) else {}
    return f'authorization.NonResourceAttributes{{Path:"{d.get("path", "")}", Verb:"{d.get("verb", "")}"}}'


def _patch_invalid(value: str, detail: str) -> ApiError:
    """422 on field ``patch``: the patched object does not decode (``NewInvalid(schema.GroupKind{}, "", ...)``)."""
    cause = f'Invalid value: "{value}": {detail}'
    return ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                     "message": f' "" is invalid: patch: {cause}', "reason": "Invalid",
                     "details": {"causes": [{"reason": "FieldValueInvalid", "message": cause, "field": "patch"}]},
                     "code": 422})


def _go_format(v: Any) -> str:
    """A decoded JSON value as Go's ``%+v`` prints it (``map[spec:map[replicas:3]]``), for upstream's messages.

    Examples
    --------
    >>> _go_format({"spec": {"replicas": 3, "x": [1, "a"], "ok": True, "n": None}})
    'map[spec:map[n:<nil> ok:true replicas:3 x:[1 a]]]'
    """
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{_go_format(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(_go_format(x) for x in v) + "]"
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
