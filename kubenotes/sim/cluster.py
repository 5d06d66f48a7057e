"""A running cluster on one virtual clock: API server, controllers, scheduler and a kubelet per node.

:class:`Cluster` wires every component as SimPy processes on one
``simpy.Environment``. Each component talks only to the API server: it lists
and watches through informers, caches what it watches, and writes through
the request path (RBAC, admission, validation). Runs are deterministic: the
same manifests, scenario and seed give the same audit log, byte for byte.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-apiserver, cmd/kube-controller-manager, cmd/kube-scheduler (what runs)
kubernetes/kubernetes@v1.34.0 pkg/controlplane/controller/systemnamespaces (default, kube-system, kube-public, kube-node-lease)
kubernetes/kubernetes@v1.34.0 pkg/registry/scheduling/rest/storage_scheduling.go (system PriorityClasses at start)
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Callable, Iterable, Iterator, Mapping

import simpy

from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.server import APIServer, AuditEntry, using_epoch
from kubenotes.apiserver.status import ApiError
from kubenotes.gcpolicy import fewer_gc_passes
from kubenotes.apiserver.load import bootstrap_objects, create_objects, enable_request_path, objects_with_locations
from kubenotes.apiserver.resources import resource_for_kind

__all__ = ["Cluster", "POD_VOLUME_CONTROLLERS", "to_dicts"]

#: How often the watch cache sends bookmarks (upstream: about once a minute to watchers that allow them).
BOOKMARK_INTERVAL_SECONDS = 60.0

#: Controllers every pod's ServiceAccount token volume depends on (run whenever the kubelet model runs).
POD_VOLUME_CONTROLLERS = ("serviceaccount-controller", "root-ca-certificate-publisher-controller")

def to_dicts(objects: Any) -> list[dict]:
    """JSON-shaped dicts from a :class:`~kubenotes.api.manifests.Manifests`, lightkube objects or dicts."""
    return [d for d, _ in objects_with_locations(objects)]


def _admin() -> UserInfo:
    return UserInfo("kubernetes-admin", groups=("system:masters", "system:authenticated"))


class Cluster:
    """A cluster running on the virtual clock.

    Parameters
    ----------
    objects : Manifests, iterable of dict or lightkube objects, optional
        What ``kubectl apply`` would be given; created at time 0 in
        :data:`~kubenotes.apiserver.load.INSTALL_ORDER` through the whole request path (RBAC,
        admission, validation). Objects that carry a ``metadata.uid`` (a
        ``kubectl get -o yaml`` dump of a running cluster) are restored as
        from an etcd backup instead: they keep their uid, so ownerReferences
        still point at their owners, and skip admission, which the cluster
        they came from already applied. Every Node gets a kubelet; a
        Node's ``status`` is posted as given. The mirror pods of such a dump
        (etcd, kube-apiserver ... on control-plane nodes) become the static
        pods of their node's kubelet model, which keeps them running.
    seed : int
        Seeds uids, generated names and every component's randomness.
    controllers : iterable of str, optional
        Names from :data:`kubenotes.controllers.CONTROLLERS` to run (all by default).
        With the kubelet model and at least one Node, the two in
        :data:`POD_VOLUME_CONTROLLERS` always run: every pod's ``kube-api-access`` volume needs its namespace's
        ``default`` ServiceAccount and ``kube-root-ca.crt`` ConfigMap, and
        without them no pod would start (as in a real cluster).
    extra_controllers : mapping of str to Controller subclass, optional
        More controllers (a notebook's own, or one under test).
    options : dict, optional
        kube-controller-manager flags by upstream name (``node-monitor-grace-period``...).
    kubelet : str
        ``"model"`` (default): :class:`kubenotes.kubelet.kubelet.Kubelet` over a
        CRI runtime per node (volumes, sandboxes, pulls, probes, restarts,
        eviction, events), or ``"stand-in"``: a hollow kubelet
        (:class:`kubenotes.sim.kubelet.StandInKubelet`, like upstream's kubemark
        hollow nodes) that marks pods Running 2 s after binding with no runtime,
        for control-plane scale runs where the node side does not matter.
    kubelet_options : KubeletConfiguration or KubeletOptions, optional
    network : dict, optional
        The pod network a network add-on installs before pods run (a Scenario's
        ``spec.cluster.network``: ``{"plugin": "calico", "mode": ..., "ipPool":
        {"cidr", "blockSize"}}``, see :func:`kubenotes.sim.network.install_pod_network`);
        the Calico state is ``self.network``. None (default): each node's kubelet model
        networks pods with a bridge config for the Node's ``spec.podCIDR``, and
        ``self.network`` is None.
    scheduler_config : KubeSchedulerConfiguration, optional
    scheduler : bool
        Run kube-scheduler.
    scheduler_trace : bool
        Keep the scheduler's per-node traces (``cluster.scheduler.traces``) for notebooks.
    authorization : bool
        RBAC on (as ``--authorization-mode=Node,RBAC``); off means AlwaysAllow.
    admission : bool
        The default admission plugins on.
    validation : bool
        Object validation (422 Invalid) on.
    epoch : datetime or str, optional
        Wall-clock time of virtual second 0, which every timestamp in the
        objects counts from (default
        :data:`~kubenotes.apiserver.server.DEFAULT_EPOCH`, 2025-08-27, so
        outputs are reproducible). ``"now"`` takes the wall clock once, at
        construction: what a cluster served to the real kubectl wants, since
        kubectl computes ages (``describe``, ``events``, ``get`` without
        server-side tables) from the wall clock and the timestamps; with the
        default, those ages read "454d". ``kubenotes serve`` uses ``"now"``;
        in a notebook, build ``Cluster(..., epoch="now")`` before
        :meth:`serve`. Ages stay right only while the clock runs at
        ``time_scale=1``; a paused clock makes kubectl's ages grow while the
        model's time stands still.
    feature_gates : FeatureGate, mapping of str to bool, str or None
        The cluster's feature gates, as ``--feature-gates`` on its components
        (:func:`kubenotes.features.feature_gates`): ``{"ImageVolume": True}`` or
        ``"ImageVolume=true,EnvFiles=true"``; None: v1.34's defaults. The API
        server drops the fields of disabled gates on create and update
        (:mod:`kubenotes.api.dropdisabled`); :mod:`kubenotes.features` lists
        the gates the model honours.
    etcd : str, optional
        A real etcd's client URL (``http://127.0.0.1:2379``): the API server
        writes every object there first (``/registry/...`` keys, JSON values,
        resourceVersion = etcd's mod_revision) and runs the compactor; see
        :class:`~kubenotes.apiserver.storage.etcd3.EtcdStorage`. None: the
        embedded store (default).
    etcd_prefix : str
        Prepended to every key in that etcd (tests keep apart with it).
    etcd_compaction_interval_seconds : float
        ``--etcd-compaction-interval`` (default 300, on the virtual clock).
    request_costs : RequestCosts, optional
        Client-side rate limits (each component's upstream QPS and burst) and
        each request's latency on the virtual clock
        (:class:`kubenotes.sim.costs.RequestCosts`); None (default): every
        request takes zero virtual time, as ``simulate --instant``.
    runtime_config : str or dict of str to bool, optional
        The API server's ``--runtime-config``: ``"admissionregistration.k8s.io/v1beta1=true"``
        with ``feature_gates={"MutatingAdmissionPolicy": True}`` serves MutatingAdmissionPolicies.

    Returns
    -------
    Cluster
        Constructing it creates the objects at virtual time 0 and wires the
        components; nothing runs until :meth:`run`. What it holds is listed
        under Attributes.

    Raises
    ------
    ValueError
        For a ``kubelet`` other than ``"model"`` or ``"stand-in"``.
    ConfigError
        For an unknown feature gate, or a locked one set away from its default; for an ``etcd`` URL that
        is wrong, unreachable or already holds objects (one line naming it).
    KeyError
        For a name in ``controllers`` that is not in :data:`kubenotes.controllers.CONTROLLERS`.
    ManifestError
        When the API server refuses an object read from a manifest file (naming the file and document).
    ApiError
        When it refuses an object given as a dict (no file to name): 422
        Invalid, 409 AlreadyExists, 403 Forbidden...

    Attributes
    ----------
    env : simpy.Environment
    server : APIServer
    client : Client
        An admin client (``kubernetes-admin``, group ``system:masters``), as ``kubectl``.
    informers : SharedInformerFactory
        kube-controller-manager's shared informers.
    scheduler_informers : SharedInformerFactory
        kube-scheduler's own informers (a separate process upstream).
    controllers : dict[str, Controller]
    scheduler : KubeScheduler or None
    kubelets : dict[str, StandInKubelet or Kubelet]

    Examples
    --------
    >>> c = Cluster.from_manifests('''
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {name: n1}
    ... status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
    ... ---
    ... apiVersion: v1
    ... kind: Pod
    ... metadata: {name: web}
    ... spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
    ... ''', controllers=[])
    >>> c.run(until=5)
    >>> pod = c.get("pods", "web", "default")
    >>> pod["spec"]["nodeName"], pod["status"]["phase"]
    ('n1', 'Running')
    """

    def __init__(self, objects: Any = None, *, seed: int = 0, controllers: Iterable[str] | None = None,
                 extra_controllers: Mapping[str, type] | None = None, options: Mapping[str, Any] | None = None,
                 kubelet_options: Any = None, kubelet: str = "model", network: Mapping[str, Any] | None = None,
                 scheduler_config: Any = None,
                 scheduler: bool = True,
                 scheduler_trace: bool = False,
                 authorization: bool = True, admission: bool = True, validation: bool = True,
                 history_capacity: int | None = None, epoch: Any = None, feature_gates: Any = None,
                 etcd: str | None = None, etcd_prefix: str = "", etcd_compaction_interval_seconds: float = 300.0,
                 request_costs: Any = None, runtime_config: Any = None):
        from kubenotes.client import SharedInformerFactory
        from kubenotes.controllers import CONTROLLERS, load_controller
        from kubenotes.controllers.reconciler import ControllerContext
        from kubenotes.sim.kubelet import StandInKubelet
        from kubenotes.sim.scheduler import KubeScheduler

        self.env = simpy.Environment()
        self.seed = seed
        kw: dict[str, Any] = {} if history_capacity is None else {"history_capacity": history_capacity}
        if epoch is not None:
            kw["epoch"] = epoch
        if etcd is not None:  # --etcd URL: every write goes to a real etcd first (checked here, before anything runs)
            from kubenotes.apiserver.storage.etcd3 import EtcdStorage

            kw["storage"] = EtcdStorage(etcd, prefix=etcd_prefix)
            kw["etcd_compaction_interval_seconds"] = etcd_compaction_interval_seconds
        if runtime_config is not None:
            kw["runtime_config"] = runtime_config
        self.server = APIServer(self.env, seed=seed, feature_gates=feature_gates, **kw)
        self.server.kubelet_client = _KubeletConnections(self)
        # construction too runs on this cluster's epoch (timestamps parsed while loading and wiring)
        with using_epoch(self.server.epoch):
            self.client = self.server.client("kubectl", _admin())
            self._bootstrap_client = self.server.client("kube-apiserver", _admin())
            self._bootstrap()
            # user objects pass the whole request path (RBAC, admission, validation), as `kubectl apply` would
            self._enable_request_path(authorization, admission, validation)
            self._load(objects or ())
            self._kubernetes_endpoints()
            self.server.request_costs = request_costs  # after loading: objects at time 0 cost nothing

            self.informers = SharedInformerFactory(self.server.client("kube-controller-manager", UserInfo(
                "system:kube-controller-manager", groups=("system:authenticated",))), self.env)
            self.scheduler_informers = SharedInformerFactory(self.server.client("default-scheduler", UserInfo(
                "system:kube-scheduler", groups=("system:authenticated",))), self.env)
            self.metrics: dict[tuple[str, str], float] = {}
            ctx = ControllerContext(self.env, self.server, self.informers, self._controller_client,
                                    random.Random(seed), dict(options or {}), self.metrics)
            names = list(CONTROLLERS) if controllers is None else list(controllers)
            if kubelet == "model" and self.server.list("nodes"):
                names += [n for n in POD_VOLUME_CONTROLLERS if n not in names]
            self.controllers: dict[str, Any] = {}
            for name in names:
                self.controllers[name] = load_controller(name)(ctx)
            for name, cls in (extra_controllers or {}).items():
                self.controllers[name] = cls(ctx)
            from kubenotes.sim.csi import install_csi_drivers

            #: CSI driver name -> the driver model, for the CSIDrivers the cluster has (kubenotes.sim.csi)
            self.csi = install_csi_drivers(self, ctx)
            self.scheduler = KubeScheduler(self, scheduler_config, seed, scheduler_trace) if scheduler else None
            self.kubelets: dict[str, Any] = {}
            if kubelet not in ("stand-in", "model"):
                raise ValueError(f'kubelet must be "stand-in" or "model", not {kubelet!r}')
            mirrors = self._mirror_pods_by_node() if kubelet == "model" else {}
            for node in self.server.list("nodes"):
                name = node["metadata"]["name"]
                if kubelet == "model":
                    from kubenotes.kubelet.kubelet import Kubelet

                    self.kubelets[name] = Kubelet(self, name, options=self._node_kubelet_options(
                        kubelet_options, name, mirrors.get(name, [])))
                else:
                    self.kubelets[name] = StandInKubelet(self, name, kubelet_options)
            self.network: Any = None
            if network is not None:
                from kubenotes.sim.network import install_pod_network

                self.network = install_pod_network(self, dict(network))

            self.informers.start()
            self.scheduler_informers.start()
            for c in self.controllers.values():
                c.start()
            if self.scheduler is not None:
                self.scheduler.start()
            for k in self.kubelets.values():
                k.start()
            self.env.process(self._bookmarks())

    def _mirror_pods_by_node(self) -> dict[str, list[dict]]:
        """Mirror pods of the loaded objects (a cluster dump), by the node they are bound to."""
        from kubenotes.kubelet.config import is_mirror_pod

        out: dict[str, list[dict]] = {}
        for pod in self.server.list("pods"):
            node = (pod.get("spec") or {}).get("nodeName")
            if node and is_mirror_pod(pod):
                out.setdefault(node, []).append(pod)
        return out

    @staticmethod
    def _node_kubelet_options(options: Any, node_name: str, mirrors: list[dict]) -> Any:
        """The kubelet model's configuration for one node: its ``staticPodPath`` holds the manifests of the
        mirror pods a restored dump bound to it (unless the caller configured a ``staticPodPath``)."""
        from kubenotes.kubelet.config import manifest_from_mirror_pod
        from kubenotes.kubelet.kubelet import KubeletConfiguration, _configuration

        if not mirrors or (options is not None and getattr(options, "static_pod_path", None) is not None):
            return options
        cfg = _configuration(options) if not isinstance(options, KubeletConfiguration) else options
        manifests = {f"{manifest_from_mirror_pod(m, node_name)['metadata']['name']}.yaml":
                     manifest_from_mirror_pod(m, node_name) for m in mirrors}
        return dataclasses.replace(cfg, static_pod_path=manifests)

    # ------------------------------------------------------------ construction
    @classmethod
    def from_manifests(cls, *sources: Any, **kwargs: Any) -> "Cluster":
        """Load manifests (paths, directories, YAML text; see :func:`~kubenotes.api.manifests.load_manifests`).

        Raises
        ------
        ManifestError
            For bad input, before anything runs.
        """
        from kubenotes.api.manifests import load_manifests

        return cls(load_manifests(*sources, defaults=False, feature_gates=kwargs.get("feature_gates")), **kwargs)

    def _controller_client(self, component: str, service_account: str | None) -> Any:
        if not service_account:
            return self.server.client(component, UserInfo("system:kube-controller-manager",
                                                          groups=("system:authenticated",)))
        user = UserInfo(f"system:serviceaccount:kube-system:{service_account}",
                        groups=("system:serviceaccounts", "system:serviceaccounts:kube-system",
                                "system:authenticated"))
        return self.server.client(component, user)

    def _bootstrap(self) -> None:
        """What kube-apiserver creates at start: system namespaces, PriorityClasses, bootstrap RBAC,
        and the ``kubernetes`` Service in ``default`` (``pkg/controlplane/controller/kubernetesservice``)."""
        from kubenotes.apiserver.bootstrap_policy import bootstrap_cluster_role_bindings, bootstrap_cluster_roles
        from kubenotes.controllers import CONTROLLER_POLICIES

        c = self._bootstrap_client
        bootstrap_objects(c)
        # the controllers' own roles: each controller module declares its ServiceAccount and rules
        for r in bootstrap_cluster_roles(CONTROLLER_POLICIES.values()):
            c.create("clusterroles", r)
        for b in bootstrap_cluster_role_bindings(CONTROLLER_POLICIES.values()):
            c.create("clusterrolebindings", b)

    def _kubernetes_endpoints(self) -> None:
        """The API server's endpoint reconciler: Endpoints and EndpointSlice ``kubernetes`` list where it listens.

        The address is the first control-plane Node's InternalIP (kubeadm's
        ``--advertise-address``), port 6443; with no control-plane Node the
        Service has no endpoints. A dump's own ``kubernetes`` endpoints are kept.
        """
        if self.server.get("endpoints", "default", "kubernetes") is not None:
            return
        ip = None
        for node in self.server.list("nodes"):
            labels = (node.get("metadata") or {}).get("labels") or {}
            if "node-role.kubernetes.io/control-plane" in labels:
                ip = next((a["address"] for a in (node.get("status") or {}).get("addresses") or ()
                           if a.get("type") == "InternalIP"), None)
                if ip:
                    break
        if ip is None:
            return
        c = self._bootstrap_client
        c.create("endpoints", {"apiVersion": "v1", "kind": "Endpoints",
                               "metadata": {"name": "kubernetes", "namespace": "default",
                                            "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
                               "subsets": [{"addresses": [{"ip": ip}],
                                            "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]},
                 "default")
        if self.server.get("endpointslices", "default", "kubernetes") is None:
            c.create("endpointslices", {
                "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": "kubernetes", "namespace": "default",
                             "labels": {"kubernetes.io/service-name": "kubernetes"}},
                "addressType": "IPv4",
                "endpoints": [{"addresses": [ip], "conditions": {"ready": True}}],
                "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}, "default")

    def _load(self, objects: Any) -> None:
        """Create the given objects through the request path (:func:`kubenotes.apiserver.load.create_objects`)."""
        create_objects(self.server, self.client, objects_with_locations(objects))

    def _enable_request_path(self, authorization: bool, admission: bool, validation: bool) -> None:
        from kubenotes.apiserver.rbac import RBACAuthorizer

        if authorization:
            self.server.authorizer = _NodeAndRBAC(RBACAuthorizer(self.server))
        enable_request_path(self.server, seed=self.seed, admission=admission, validation=validation)

    def _bookmarks(self):
        """The watch cache's BOOKMARK events, every :data:`BOOKMARK_INTERVAL_SECONDS` to every watch.

        A bookmark carries only the current resourceVersion: a reflector that
        must watch again resumes from there instead of from its last event,
        which may have left the history (410 Gone).
        """
        while True:
            yield self.env.timeout(BOOKMARK_INTERVAL_SECONDS)
            self.server.store.bookmark_all()

    # ------------------------------------------------------------ running
    @property
    def now(self) -> float:
        """Virtual seconds since the cluster started."""
        return float(self.env.now)

    @property
    def epoch(self) -> Any:
        """Wall-clock time (UTC datetime) of virtual second 0."""
        return self.server.epoch

    def run(self, until: float | None = None) -> None:
        """Advance the clock to ``until`` virtual seconds (everything due runs)."""
        if until is None:
            raise ValueError("run(until=...) needs a time: the cluster never runs out of events")
        if until > self.env.now:
            with using_epoch(self.server.epoch), fewer_gc_passes():
                self.env.run(until=until)  # controllers parse timestamps against this cluster's epoch

    def run_for(self, seconds: float) -> None:
        """Advance the clock by ``seconds``."""
        self.run(self.env.now + seconds)

    def run_until(self, predicate: Callable[["Cluster"], bool], timeout_seconds: float = 600.0,
                  poll_seconds: float = 0.5) -> bool:
        """Run until ``predicate(cluster)`` holds (checked every ``poll_seconds``) or ``timeout_seconds`` pass.

        Returns
        -------
        bool
            Whether the predicate held.
        """
        end = self.env.now + timeout_seconds
        while self.env.now < end:
            if predicate(self):
                return True
            self.run(min(self.env.now + poll_seconds, end))
        return bool(predicate(self))

    def step(self) -> None:
        """Process the next scheduled SimPy event."""
        with using_epoch(self.server.epoch):
            self.env.step()

    # ------------------------------------------------------------ reading
    def get(self, resource: str, name: str, namespace: str | None = None) -> dict | None:
        """The stored object (a copy), or None."""
        try:
            return self.client.get(resource, name, namespace)
        except ApiError as e:
            if e.code == 404:
                return None
            raise

    def list(self, resource: str, namespace: str | None = None, *, label_selector: str = "",
             field_selector: str = "") -> list[dict]:
        """Stored objects (copies)."""
        return self.client.list(resource, namespace, label_selector=label_selector,
                                field_selector=field_selector)["items"]

    @property
    def audit_log(self) -> list[AuditEntry]:
        """Every committed write, in order."""
        return self.server.audit_log

    # ------------------------------------------------------------ acting
    def apply(self, obj: dict, component: str = "kubectl") -> dict:
        """Create ``obj``, or merge-patch it onto the existing one (``kubectl apply`` without the last-applied bookkeeping)."""
        try:
            ri = resource_for_kind(obj.get("kind", ""), obj.get("apiVersion"))
            name = ri.resource
        except ApiError:  # a custom resource a served CRD defines
            ri = self.server.crds.for_kind(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
            if ri is None:
                raise
            name = f"{ri.resource}.{ri.version}.{ri.group}"
        md = obj.get("metadata") or {}
        client = self.client if component == "kubectl" else self.server.client(component, _admin())
        ns = md.get("namespace") or ("default" if ri.namespaced else None)
        if self.server.store.get(ri, ns if ri.namespaced else None, md.get("name", "")) is None:
            return client.create(name, obj, ns)
        patch = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "status")}
        return client.patch(name, md["name"], patch, ns)

    def serve(self, port: int = 0, time_scale: float = 1.0, **kwargs: Any) -> Any:
        """Serve this cluster over the Kubernetes REST API on 127.0.0.1 (a background thread), for the real kubectl.

        See :func:`kubenotes.sim.serve.serve` (the returned ``ServedCluster`` has
        ``kubeconfig_path``, ``kubectl(*args)`` and ``stop()``).

        Notes
        -----
        The cluster keeps its epoch: one built with the default epoch shows
        kubectl ages of "454d" in ``describe`` and ``events`` (kubectl reads
        the wall clock there); build it with ``Cluster(..., epoch="now")`` to
        serve it, as ``kubenotes serve`` does.
        """
        from kubenotes.sim.serve import serve

        return serve(self, port=port, time_scale=time_scale, **kwargs)

    def node_down(self, name: str) -> None:
        """Stop a node's kubelet heartbeats and status (it becomes unreachable)."""
        self.kubelets[name].node_down()

    def node_up(self, name: str) -> None:
        """Resume a node's kubelet."""
        self.kubelets[name].node_up()


class _KubeletConnections:
    """The API server's way to its nodes' kubelets (``KubeletClientConfig``): here, the stand-in kubelets."""

    def __init__(self, cluster: "Cluster"):
        self.cluster = cluster

    def container_log_reader(self, node: str, namespace: str, name: str, container: str, options: dict) -> Any:
        """Forward ``/containerLogs`` to the node's kubelet; 500 (a dial error) when the node has none."""
        kubelet = self.cluster.kubelets.get(node)
        if kubelet is None:
            from kubenotes.apiserver.server import _kubelet_unreachable

            raise _kubelet_unreachable(node, f"/containerLogs/{namespace}/{name}/{container}")
        return kubelet.container_log_reader(namespace, name, container, options)


class _NodeAndRBAC:
    """``--authorization-mode=Node,RBAC``: the Node authorizer's verdict for kubelets, then RBAC.

    Notes
    -----
    The Node authorizer is simplified to: a ``system:node:<name>`` user in
    group ``system:nodes`` may do what the ``system:node`` ClusterRole allows
    (upstream restricts each node to its own pods' secrets and to its own Node
    and Lease object through a graph).
    """

    def __init__(self, rbac: Any):
        self.rbac = rbac

    def authorize(self, attrs: Any) -> tuple[str, str]:
        if attrs.user.name.startswith("system:node:") and "system:nodes" in attrs.user.groups and \
                getattr(attrs, "resource", None) is not None:
            node = attrs.user.name[len("system:node:"):]
            r = attrs.resource.resource
            if r in ("nodes", "leases") and attrs.name and attrs.name != node and attrs.verb not in ("get", "list",
                                                                                                   "watch"):
                return "NoOpinion", f'node "{node}" cannot modify {r} of another node'
            return "Allow", "Node authorizer (simplified): node agent"
        return self.rbac.authorize(attrs)
