"""The shape every controller shares: informers feed a rate-limited workqueue, workers Reconcile keys.

A controller in kube-controller-manager registers event handlers on shared
informers, turns each event into a key (``namespace/name``) in a
rate-limited workqueue, and runs workers that pop a key, read the current
state from the informer caches (listers, never the API server), and write
the difference through the API. This module gives that loop once, on the
model's SimPy clock: subclasses implement :meth:`Controller.setup` (wire the
handlers) and :meth:`Controller.reconcile` (upstream's ``syncHandler``).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/replicaset/replica_set.go (Run, worker, processNextWorkItem, handleErr)
kubernetes/kubernetes@v1.34.0 pkg/controller/controller_utils.go (KeyFunc, expectations)
kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/app/controllermanager.go
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Generator

import simpy

from kubenotes.apiserver.status import ApiError
from kubenotes.client.flowcontrol import run_blocking

__all__ = ["Result", "ControllerContext", "Controller", "key_of", "split_key", "MAX_RETRIES"]

#: How often a key is retried with back-off before it is dropped (many upstream controllers use 15).
MAX_RETRIES = 15


def key_of(obj: dict) -> str:
    """``cache.MetaNamespaceKeyFunc``: ``namespace/name``, or ``name`` for cluster-scoped objects.

    Examples
    --------
    >>> key_of({"metadata": {"namespace": "default", "name": "web"}}), key_of({"metadata": {"name": "n1"}})
    ('default/web', 'n1')
    """
    md = obj.get("metadata", {})
    ns = md.get("namespace")
    return f"{ns}/{md['name']}" if ns else md["name"]


def split_key(key: str) -> tuple[str, str]:
    """``cache.SplitMetaNamespaceKey``: ``("default", "web")`` or ``("", "n1")``.

    Parameters
    ----------
    key : str
        A workqueue key: ``namespace/name``, or ``name`` for a cluster-scoped object (:func:`key_of`).

    Returns
    -------
    (str, str)
        The namespace (``""`` for a cluster-scoped key) and the name.

    Raises
    ------
    None
        Any string splits; a name never holds ``/``, so the first one separates.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/tools/cache/store.go (SplitMetaNamespaceKey)

    Examples
    --------
    >>> split_key("shop/web"), split_key("worker-1")
    (('shop', 'web'), ('', 'worker-1'))
    """
    if "/" in key:
        ns, name = key.split("/", 1)
        return ns, name
    return "", key


@dataclass
class Result:
    """What a Reconcile asks for next (controller-runtime's ``reconcile.Result``).

    Attributes
    ----------
    requeue : bool
        Put the key back with rate-limited back-off.
    requeue_after_seconds : float
        Put the key back after this many virtual seconds (0: not).
    """

    requeue: bool = False
    requeue_after_seconds: float = 0.0


@dataclass
class ControllerContext:
    """What kube-controller-manager hands each controller.

    Attributes
    ----------
    env : simpy.Environment
        The virtual clock.
    server : APIServer
        Only to build clients; controllers never read the store directly.
    informers : SharedInformerFactory
        Shared informers (one per resource) for every controller.
    make_client : callable(component: str, service_account: str or None) -> Client
        A client authenticated as ``system:serviceaccount:kube-system:<service_account>``
        (``--use-service-account-credentials``), or as ``system:kube-controller-manager`` for None.
    rng : random.Random
        Seeded randomness (names, jitter).
    options : dict
        Component flags by their upstream names (``node-monitor-grace-period``...).
    metrics : dict
        ``(namespace, name) -> value`` a scenario supplies for HorizontalPodAutoscalers
        (the stand-in for metrics-server).
    """

    env: simpy.Environment
    server: Any
    informers: Any
    make_client: Callable[[str, str], Any]
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    options: dict[str, Any] = field(default_factory=dict)
    metrics: dict[tuple[str, str], float] = field(default_factory=dict)


class Controller:
    """Base class: a workqueue of keys, a worker process, event recording and periodic tasks.

    Subclasses set :attr:`name` (the component name written to the event
    log and Events, e.g. ``replicaset-controller``) and
    :attr:`service_account` (upstream's controller service account, whose
    ``system:controller:*`` ClusterRole RBAC checks), and implement
    :meth:`setup` and :meth:`reconcile`.

    Parameters
    ----------
    ctx : ControllerContext

    Returns
    -------
    Controller
        Constructed with its handlers registered (:meth:`setup`); its worker
        runs once :meth:`start` is called (a :class:`~kubenotes.sim.cluster.Cluster`
        starts the controllers it is given, ``extra_controllers`` included).

    Raises
    ------
    NotImplementedError
        From :meth:`reconcile` when a subclass does not implement it.
    ApiError
        Raised by :meth:`reconcile` is caught by the worker: the key is
        retried with back-off, up to :data:`MAX_RETRIES` times, and the error
        is kept in :attr:`errors`.

    Attributes
    ----------
    client : Client
        Writes go through here (full request path: RBAC, admission, validation).
    queue : RateLimitingQueue
        Upstream's default controller rate limiter.
    reconciles : int
        How many keys were processed (for the notebooks' counters).
    errors : list of (float, str, str)
        ``(virtual time, key, message)`` of each reconcile that raised an ApiError.

    See Also
    --------
    kubenotes.client.informer.SharedInformerFactory, kubenotes.client.workqueue.RateLimitingQueue

    Examples
    --------
    A controller that logs the Namespaces it sees:

    >>> from kubenotes.sim.cluster import Cluster
    >>> class Seen(Controller):
    ...     name = "seen-controller"
    ...     def setup(self):
    ...         self.namespaces = self.informers.informer_for("namespaces")
    ...         self.namespaces.add_event_handler(on_add=self.enqueue)
    ...         self.seen = []
    ...     def reconcile(self, key):
    ...         self.seen.append(key)
    >>> c = Cluster(controllers=[], extra_controllers={"seen": Seen})
    >>> c.run(until=1)
    >>> c.controllers["seen"].seen
    ['default', 'kube-node-lease', 'kube-public', 'kube-system']
    """

    name = "controller"
    #: Upstream's service account (``system:controller:<sa>`` ClusterRole); None: kube-controller-manager's user.
    service_account: str | None = None
    #: Option key and default for the periodic resync (0: none).
    resync_seconds = 0.0

    @classmethod
    def configured(cls, **attrs: Any) -> type:
        """A subclass with other class attributes, for a controller the cluster builds from its class.

        Parameters
        ----------
        **attrs
            Class attributes to override (``capacity_bytes=2**30``, ``driver=HostPathDriver()``).

        Returns
        -------
        type
            A subclass of ``cls`` with the same name.

        Examples
        --------
        >>> class Demo(Controller):
        ...     name = "demo"
        >>> Demo.configured(name="other").name, Demo.configured().__name__
        ('other', 'Demo')
        """
        return type(cls.__name__, (cls,), attrs)

    def __init__(self, ctx: ControllerContext):
        from kubenotes.client.record import EventRecorder
        from kubenotes.client.workqueue import RateLimitingQueue, default_controller_rate_limiter

        self.ctx = ctx
        self.env = ctx.env
        self.informers = ctx.informers
        # None: the controller runs with kube-controller-manager's own credentials (the tokens controller)
        self.client = ctx.make_client(self.name, self.service_account)
        self.queue = RateLimitingQueue(ctx.env, default_controller_rate_limiter(), name=self.name)
        self.recorder = EventRecorder(self.client, self.name)
        self.reconciles = 0
        self.errors: list[tuple[float, str, str]] = []
        self.setup()

    # ------------------------------------------------------------ to override
    def setup(self) -> None:
        """Register event handlers on ``self.informers`` (called once from ``__init__``)."""

    def reconcile(self, key: str) -> Result | None:
        """Bring the object named ``key`` toward its desired state (upstream's ``syncHandler``).

        Raise :class:`~kubenotes.apiserver.status.ApiError` (or return
        ``Result(requeue=True)``) to retry with back-off.
        """
        raise NotImplementedError

    # ------------------------------------------------------------ helpers
    def option(self, name: str, default: Any) -> Any:
        """A component flag by upstream's name, e.g. ``option("node-monitor-grace-period", 50.0)``."""
        return self.ctx.options.get(name, default)

    def enqueue(self, obj: dict | str) -> None:
        """Add an object's key (or a key) to the queue."""
        self.queue.add(obj if isinstance(obj, str) else key_of(obj))

    def enqueue_after(self, obj: dict | str, seconds: float) -> None:
        self.queue.add_after(obj if isinstance(obj, str) else key_of(obj), seconds)

    def event(self, obj: dict, event_type: str, reason: str, message: str) -> None:
        """Record a Kubernetes Event about ``obj`` (``record.EventRecorder.Event``)."""
        self.recorder.event(obj, event_type, reason, message)

    def every(self, seconds: float, fn: Callable[[], None], *, initial_delay_seconds: float | None = None) -> None:
        """Run ``fn`` every ``seconds`` virtual seconds (``wait.Until``), starting after ``initial_delay_seconds``."""

        def loop() -> Generator:
            yield self.env.timeout(seconds if initial_delay_seconds is None else initial_delay_seconds)
            while True:
                fn()
                yield self.env.timeout(seconds)

        self.env.process(loop())

    # ------------------------------------------------------------ the worker
    def start(self) -> None:
        """Start the worker process (after the informers are started)."""
        self.env.process(self._worker())

    def _worker(self) -> Generator:
        yield self.informers.wait_for_cache_sync()
        while True:
            key = yield self.queue.get()
            if key is self.queue.SHUTDOWN:
                return
            if getattr(self.client.server, "request_costs", None) is None:
                self._process(key)
            else:  # requests wait for the client's rate limiter and take their latency on the clock
                yield from run_blocking(self.env, self._process, key)

    def _process(self, key: str) -> None:
        self.reconciles += 1
        try:
            res = self.reconcile(key)
        except ApiError as e:
            self.errors.append((float(self.env.now), key, str(e)))
            if self.queue.num_requeues(key) < MAX_RETRIES:
                self.queue.add_rate_limited(key)
            else:
                self.queue.forget(key)
            self.queue.done(key)
            return
        if res is not None and res.requeue:
            self.queue.add_rate_limited(key)
        else:
            self.queue.forget(key)
            if res is not None and res.requeue_after_seconds > 0:
                self.queue.add_after(key, res.requeue_after_seconds)
        self.queue.done(key)
