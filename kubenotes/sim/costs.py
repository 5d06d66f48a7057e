"""The time an API request takes: client-side rate limits per component and the API server's latency.

``simulate`` charges them by default (realistic costs); ``simulate --instant``,
a scenario's ``spec.cluster.requestCosts: instant``, or a
:class:`~kubenotes.sim.cluster.Cluster` built without ``request_costs`` keep
every request at zero virtual time, for when only the order of events
matters. With :class:`RequestCosts` on a cluster
(``Cluster(request_costs=RequestCosts())``, ``simulate`` without
``--instant``, or a scenario's ``spec.cluster.requestCosts``), each request a
component sends from its work loop first waits for a token of its client's
:class:`~kubenotes.client.flowcontrol.TokenBucketRateLimiter` (each component's
upstream QPS and burst, :data:`COMPONENT_RATE_LIMITS`), then takes the
request's latency (:class:`RequestLatency`: the handler chain, and for a
write etcd's commit: a quorum round trip plus the WAL fsync) before it is
applied and answered.

A scenario file states its mode in ``spec.cluster.requestCosts``
(:func:`parse_request_costs`): ``instant``, ``realistic`` (upstream's
defaults), or a mapping of ``latency`` and per-component ``clients`` that
refines the realistic defaults (``{}`` is ``realistic``). Without the field a
file runs with :data:`DEFAULT_REQUEST_COSTS`, wherever it runs (``simulate``,
or a chapter's helper through :func:`kubenotes.sim.scenario.cluster_options`);
``--instant`` and ``--realistic`` on the command line win over the file.

Where the model charges the costs
---------------------------------
Costs are charged to requests sent from a component's work loop, which runs
under :func:`~kubenotes.client.flowcontrol.run_blocking`: every controller's
Reconcile, the scheduler's scheduling and binding cycle, the stand-in
kubelet's pod status writes. Requests made outside such a loop (informers'
LIST and WATCH, objects loaded at time 0, scenario actions, the kubelet
model's writes, HTTP requests from the real kubectl) stay instant. Events
(``record.EventRecorder``) never block their sender upstream (the event
broadcaster writes them from its own goroutine through its own client, with
its own spam filter), so Event writes are free here.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/apis/config/v1alpha1/defaults.go (kube-controller-manager: QPS 20, burst 30)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-base/config/v1alpha1/defaults.go
    (RecommendedDefaultClientConnectionConfiguration: QPS 50, burst 100, what kube-scheduler uses)
kubernetes/kubernetes@v1.34.0 pkg/kubelet/apis/config/v1beta1/defaults.go (kubeAPIQPS 50, kubeAPIBurst 100)
kubernetes/kubernetes@v1.34.0 pkg/proxy/apis/config/v1alpha1/defaults.go (kube-proxy: QPS 5, burst 10)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/rest/config.go (DefaultQPS 5, DefaultBurst 10: kubectl, clients)
https://etcd.io/docs/v3.4/tuning/ (heartbeat ~ the members' round-trip time; local networks are sub-millisecond)
https://etcd.io/docs/v3.4/op-guide/hardware/ (etcd is sensitive to disk write latency: every WAL write is fsynced)
https://github.com/kubernetes/community/blob/master/sig-scalability/slos/api_call_latency.md
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from kubenotes.client.flowcontrol import DEFAULT_BURST, DEFAULT_QPS, TokenBucketRateLimiter, in_blocking_task, sleep

__all__ = ["COMPONENT_RATE_LIMITS", "RequestLatency", "RequestCosts", "component_of", "parse_request_costs",
           "MUTATING_VERBS", "REQUEST_COST_MODES", "DEFAULT_REQUEST_COSTS"]

#: The two spellings ``spec.cluster.requestCosts`` (and ``simulate --instant`` / ``--realistic``) accept.
REQUEST_COST_MODES = ("instant", "realistic")
#: A scenario's mode when its file does not state one (issue #27: timing comparable with real clusters;
#: ``instant`` is asked for where only the order of events matters).
DEFAULT_REQUEST_COSTS = "realistic"

#: Each component's client QPS and burst at upstream's defaults, by component. "client-go" is what any
#: other client (kubectl, an operator) gets from ``rest.DefaultQPS`` / ``rest.DefaultBurst``.
COMPONENT_RATE_LIMITS: dict[str, tuple[float, int]] = {
    "kube-controller-manager": (20.0, 30),   # --kube-api-qps 20, --kube-api-burst 30
    "kube-scheduler": (50.0, 100),           # clientConnection.qps 50, burst 100
    "kubelet": (50.0, 100),                  # kubeAPIQPS 50, kubeAPIBurst 100
    "kube-proxy": (5.0, 10),                 # clientConnection.qps 5, burst 10
    "client-go": (DEFAULT_QPS, DEFAULT_BURST),
}

#: Verbs that go to etcd as a write (a Raft proposal, committed by a quorum and fsynced).
MUTATING_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})


@dataclass(frozen=True)
class RequestLatency:
    """The API server's time for one request, on the virtual clock.

    Parameters
    ----------
    handler_seconds : float
        kube-apiserver's handler chain for a request: authentication,
        authorization, admission, validation, conversion and encoding
        (default 3 ms; the API call latency SLO allows 1 s at p99 for a
        single-object mutating call, which real clusters stay far below).
    etcd_round_trip_seconds : float
        One round trip between etcd members: the leader's MsgApp to a
        follower and its answer, what a quorum commit waits for (default
        1 ms; etcd's tuning guide sizes the heartbeat interval to about the
        RTT, which is well under a millisecond on a local network).
    etcd_fsync_seconds : float
        The WAL fsync every member does before acknowledging an entry (default
        2 ms: 8 KB sequential writes at 500 IOPS, the figure recommended for
        loaded clusters; etcd wants the 99th percentile under 10 ms).

    Notes
    -----
    A write costs ``handler + round trip + fsync`` (the leader fsyncs while it
    replicates, so the commit waits for the slower of its own fsync and a
    follower's round trip plus fsync); a GET or LIST costs ``handler + round
    trip`` (a linearizable read: ReadIndex confirms leadership with one
    heartbeat round); a WATCH costs nothing (its events come from the watch
    cache). Object size, etcd's batching, and queueing inside the server (API
    Priority and Fairness) are not modelled: APF's default priority levels
    (``workload-low`` for controllers' service accounts, ``node-high`` for
    kubelets...) only queue requests when the server's seats are all busy, which a
    cluster at the client-side default rates never reaches.

    Examples
    --------
    >>> lat = RequestLatency()
    >>> round(lat.seconds("create"), 4), round(lat.seconds("get"), 4), lat.seconds("watch")
    (0.006, 0.004, 0.0)
    """

    handler_seconds: float = 0.003
    etcd_round_trip_seconds: float = 0.001
    etcd_fsync_seconds: float = 0.002

    def seconds(self, verb: str) -> float:
        """The latency of one request with ``verb`` (``create``, ``get``, ``watch``...)."""
        if verb == "watch":
            return 0.0
        if verb in MUTATING_VERBS:
            return self.handler_seconds + self.etcd_round_trip_seconds + self.etcd_fsync_seconds
        return self.handler_seconds + self.etcd_round_trip_seconds


def component_of(user_name: str, component: str) -> str | None:
    """Which component's client defaults a client gets, from its user and component name.

    Returns
    -------
    str or None
        A key of :data:`COMPONENT_RATE_LIMITS`, or None for kube-apiserver's own
        loopback client (no costs).

    Examples
    --------
    >>> component_of("system:serviceaccount:kube-system:replicaset-controller", "replicaset-controller")
    'kube-controller-manager'
    >>> component_of("system:node:n1", "kubelet/n1"), component_of("kubernetes-admin", "kubectl")
    ('kubelet', 'client-go')
    """
    if component == "kube-apiserver":
        return None
    if user_name.startswith("system:node:"):
        return "kubelet"
    if user_name == "system:kube-scheduler":
        return "kube-scheduler"
    if component.startswith("kube-proxy") or user_name in ("system:kube-proxy",
                                                          "system:serviceaccount:kube-system:kube-proxy"):
        return "kube-proxy"
    if user_name == "system:kube-controller-manager" or user_name.startswith("system:serviceaccount:kube-system:"):
        return "kube-controller-manager"
    return "client-go"


@dataclass
class RequestCosts:
    """Client rate limits and request latency for one cluster (``Cluster(request_costs=...)``).

    Parameters
    ----------
    latency : RequestLatency
    rate_limits : dict[str, tuple[float, int]]
        Component -> (QPS, burst), merged over :data:`COMPONENT_RATE_LIMITS`;
        a QPS of 0 or less turns that component's throttling off (client-go:
        a negative QPS means no rate limiter).

    Attributes
    ----------
    throttled_seconds : dict[str, float]
        Total time each component (by client component name) waited for tokens.
    requests : dict[str, int]
        Requests charged, by client component name.

    Notes
    -----
    Each :class:`~kubenotes.apiserver.server.Client` has its own bucket, as each
    client-go clientset has: every controller of kube-controller-manager gets
    its own client from the ClientBuilder, each with 20 QPS / 30 burst; the
    scheduler and each kubelet have one. A component's requests within one work
    item run one after another (a ReplicaSet's slow-start batch sends its creates
    in parallel goroutines upstream): when throttled this changes nothing (tokens
    come 1/QPS apart, longer than a request takes); within the burst the model
    adds one latency per request.

    Examples
    --------
    >>> c = RequestCosts(rate_limits={"kube-controller-manager": (100.0, 200)})
    >>> c.limits_for("kube-controller-manager"), c.limits_for("kube-scheduler")
    ((100.0, 200), (50.0, 100))
    """

    latency: RequestLatency = field(default_factory=RequestLatency)
    rate_limits: dict[str, tuple[float, int]] = field(default_factory=dict)
    throttled_seconds: dict[str, float] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)

    def limits_for(self, kind: str) -> tuple[float, int]:
        """(QPS, burst) for a component kind (:func:`component_of`)."""
        return self.rate_limits.get(kind, COMPONENT_RATE_LIMITS[kind])

    def _limiter(self, client: Any) -> TokenBucketRateLimiter | None:
        try:
            return client._rate_limiter
        except AttributeError:
            pass
        kind = component_of(client.user.name, client.component)
        limiter = None
        if kind is not None:
            qps, burst = self.limits_for(kind)
            if qps > 0:
                limiter = TokenBucketRateLimiter(qps, burst)
        client._rate_limiter = limiter
        client._costs_kind = kind
        return limiter

    def before_request(self, client: Any, verb: str, resource: str) -> None:
        """Charge one request (the hook :class:`~kubenotes.apiserver.server.Client` calls before sending it).

        Outside a blocking task (code SimPy drives directly) nothing happens;
        Events and kube-apiserver's own requests are free.
        """
        if resource == "events" or not in_blocking_task():
            return
        limiter = self._limiter(client)
        if client._costs_kind is None:
            return
        env = client.server.env
        name = client.component
        self.requests[name] = self.requests.get(name, 0) + 1
        if limiter is not None:
            waited = limiter.wait(env)
            if waited:
                self.throttled_seconds[name] = self.throttled_seconds.get(name, 0.0) + waited
        sleep(self.latency.seconds(verb))


#: ``spec.cluster.requestCosts.latency`` fields -> :class:`RequestLatency` attributes.
_LATENCY_FIELDS = {"handlerSeconds": "handler_seconds", "etcdRoundTripSeconds": "etcd_round_trip_seconds",
                   "etcdFsyncSeconds": "etcd_fsync_seconds"}


def parse_request_costs(spec: Any, fail: Any = None,
                        field_path: str = "spec.cluster.requestCosts") -> RequestCosts | None:
    """The costs a scenario's ``spec.cluster.requestCosts`` asks for: a :class:`RequestCosts`, or None for instant.

    Parameters
    ----------
    spec : str, dict or None
        ``"instant"`` (every request takes zero virtual time), ``"realistic"``
        (upstream's rate limits and the documented latency; as ``{}``), or a
        mapping ``{"latency": {"handlerSeconds", "etcdRoundTripSeconds",
        "etcdFsyncSeconds"}, "clients": {<component>: {"qps": float, "burst":
        int}}}`` that refines the realistic defaults, every key optional;
        components are the keys of :data:`COMPONENT_RATE_LIMITS`. None (an
        empty YAML value) is ``{}``.
    fail : callable(field, message) -> Exception, optional
        Builds the one-line error (default: ValueError with ``field: message``).
    field_path : str
        The field named in errors.

    Returns
    -------
    RequestCosts or None
        None for ``"instant"``.

    Raises
    ------
    ValueError or what ``fail`` returns
        For another string, an unknown key, a negative latency, or a burst below 1.

    Examples
    --------
    >>> parse_request_costs("instant") is None, parse_request_costs("realistic") == parse_request_costs({})
    (True, True)
    >>> c = parse_request_costs({"latency": {"etcdFsyncSeconds": 0.01}, "clients": {"kubelet": {"qps": 5}}})
    >>> c.latency.etcd_fsync_seconds, c.limits_for("kubelet")
    (0.01, (5.0, 100))
    >>> parse_request_costs("fast")
    Traceback (most recent call last):
    ...
    ValueError: spec.cluster.requestCosts: Unsupported value: "fast": supported values: "instant", "realistic", or a mapping of latency and clients
    >>> parse_request_costs({"clients": {"kubectl": {}}})
    Traceback (most recent call last):
    ...
    ValueError: spec.cluster.requestCosts.clients.kubectl: Unsupported value: "kubectl": supported values: "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy", "client-go"
    """
    if fail is None:
        def fail(f: str, msg: str) -> Exception:
            return ValueError(f"{f}: {msg}")

    def supported(f: str, v: str, allowed: Any) -> Exception:
        return fail(f, f'Unsupported value: "{v}": supported values: ' + ", ".join(f'"{a}"' for a in allowed))

    def number(f: str, v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise fail(f, f"Invalid value: {v!r}: must be a number")
        return float(v)

    if spec == "instant":
        return None
    if isinstance(spec, str) and spec != "realistic" or isinstance(spec, (bool, int, float, list)):
        raise fail(field_path, f'Unsupported value: "{spec}": supported values: "instant", "realistic", '
                               "or a mapping of latency and clients")
    spec = {} if spec is None or spec == "realistic" else spec
    if not isinstance(spec, dict):
        raise fail(field_path, f"Invalid value: expected a mapping, got {type(spec).__name__}")
    for k in spec:
        if k not in ("latency", "clients"):
            raise supported(f"{field_path}.{k}", k, ("latency", "clients"))
    lat_kw: dict[str, float] = {}
    for k, v in (spec.get("latency") or {}).items():
        f = f"{field_path}.latency.{k}"
        if k not in _LATENCY_FIELDS:
            raise supported(f, k, _LATENCY_FIELDS)
        if number(f, v) < 0:
            raise fail(f, f"Invalid value: {v!r}: must be >= 0")
        lat_kw[_LATENCY_FIELDS[k]] = float(v)
    limits: dict[str, tuple[float, int]] = {}
    for kind, cfg in (spec.get("clients") or {}).items():
        f = f"{field_path}.clients.{kind}"
        if kind not in COMPONENT_RATE_LIMITS:
            raise supported(f, kind, COMPONENT_RATE_LIMITS)
        if not isinstance(cfg, dict):
            raise fail(f, "Invalid value: expected a mapping with qps and burst")
        qps, burst = COMPONENT_RATE_LIMITS[kind]
        for k, v in cfg.items():
            if k == "qps":
                qps = number(f"{f}.qps", v)
            elif k == "burst":
                if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                    raise fail(f"{f}.burst", f"Invalid value: {v!r}: must be an integer >= 1")
                burst = v
            else:
                raise supported(f"{f}.{k}", k, ("qps", "burst"))
        limits[kind] = (qps, burst)
    return RequestCosts(latency=RequestLatency(**lat_kw), rate_limits=limits)


def with_rate_limits(costs: RequestCosts, limits: Mapping[str, tuple[float, int]]) -> RequestCosts:
    """A copy of ``costs`` whose rate limits are overridden by ``limits`` (component -> (QPS, burst))."""
    return dataclasses.replace(costs, rate_limits={**costs.rate_limits, **dict(limits)},
                               throttled_seconds={}, requests={})
