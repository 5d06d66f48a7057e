"""Chapter 03.02's runs: a CRD served and discovered, a custom resource's desired Deployment, Rook's mon failover.

The pieces a notebook on operators needs, as values:

* :func:`api_resources`: what ``kubectl api-resources`` would print for the
  cluster's discovery documents (built-in, enabled and CRD-served resources),
  so a chapter can show a CRD appearing in discovery;
* :func:`website_deployment`: the Deployment a ``Website``
  (``data/operators/website-crd.yaml``) asks for, owned by it, the desired
  state a learner's controller writes;
* :func:`simulate_mon_failover`: ``data/operators/rook-ceph.yaml`` run with a
  chosen node dying, sampled every few virtual seconds into
  :class:`MonSample` rows (which mon runs on which node and whether it is in
  quorum), with the operator's log.

Runs are deterministic and memoised, as in :mod:`kubenotes.sim.scenarios`; a
returned run is shared, so treat it as read-only.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_discovery_controller.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/apiresources/apiresources.go
kubernetes/sample-controller (controller.go: syncHandler, newDeployment)
rook/rook@v1.18.0 pkg/operator/ceph/cluster/mon/health.go (checkHealth, failover)
"""

from __future__ import annotations

import base64
import functools
import json
import ssl
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, NamedTuple

from kubenotes.api.meta import new_controller_ref
from kubenotes.api.podutil import is_pod_ready
from kubenotes.apiserver.discovery import api_group_list, api_resource_list
from kubenotes.sim.scenario import Scenario, Step
from kubenotes.sim.scenarios import _cluster, load_scenario_file

__all__ = ["WEBSITE_FILE", "ROOK_FILE", "WEBSITE_CONTROLLERS", "api_resources", "website_objects", "website_cluster",
           "website_deployment", "replicas_policy", "WebhookServer", "serve_webhook", "MonSample", "MonFailoverRun",
           "simulate_mon_failover"]

#: The chapter's CRD, RBAC and Website (``python -m kubenotes simulate`` runs it).
WEBSITE_FILE = "operators/website-crd.yaml"
#: Rook's pattern: a CephCluster, three mons, a node failure.
ROOK_FILE = "operators/rook-ceph.yaml"
#: The built-in controllers a Website's Deployment needs (pods, and deletion with its owner).
WEBSITE_CONTROLLERS = ("deployment-controller", "replicaset-controller", "garbage-collector-controller")


def api_resources(cluster: Any, group: str | None = None) -> list[dict]:
    """The rows ``kubectl api-resources`` prints, read from the cluster's discovery documents.

    Parameters
    ----------
    cluster : Cluster
        A running :class:`~kubenotes.sim.cluster.Cluster`; the CRDs it serves at
        this moment are listed beside the built-in resources.
    group : str, optional
        Only this API group (``""`` is the core group); None: every group.

    Returns
    -------
    list of dict
        One per resource (subresources left out, as kubectl leaves them out):
        ``name``, ``shortNames`` (comma-joined), ``apiVersion``, ``namespaced``,
        ``kind``, in discovery order.

    Raises
    ------
    None
        A group the server does not serve gives an empty list.

    See Also
    --------
    kubenotes.apiserver.discovery.api_resource_list

    Notes
    -----
    kubectl reads the aggregated discovery document (``/apis`` with
    ``as=APIGroupDiscoveryList``); the per-group lists read here hold the same
    resources. Only each group's preferred version is listed, as kubectl does.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/apiresources/apiresources.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_discovery_controller.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> c = Cluster(controllers=[])
    >>> api_resources(c, "example.com")
    []
    >>> [r["name"] for r in api_resources(c, "apps")][:2]
    ['controllerrevisions', 'daemonsets']
    """
    server = cluster.server
    custom = [*sorted(server.gated_served, key=lambda r: r.resource), *server.crds.served()]
    versions: list[tuple[str, str]] = [("", "v1")]
    for g in api_group_list(custom)["groups"]:
        versions.append((g["name"], g["preferredVersion"]["version"]))
    rows = []
    for g, v in versions:
        if group is not None and g != group:
            continue
        try:
            doc = api_resource_list(g, v, custom)
        except (KeyError, LookupError):
            continue
        for r in doc["resources"]:
            if "/" in r["name"]:
                continue
            rows.append({"name": r["name"], "shortNames": ",".join(r.get("shortNames", [])),
                         "apiVersion": f"{g}/{v}" if g else v, "namespaced": r["namespaced"], "kind": r["kind"]})
    return rows


def website_objects(*, crd: bool = True) -> tuple[list[dict], Scenario]:
    """The objects and the Scenario of ``website-crd.yaml``, with or without its CustomResourceDefinition.

    Parameters
    ----------
    crd : bool
        Keep the CRD ``websites.example.com`` (False: a cluster to apply it to later).

    Returns
    -------
    (list of dict, Scenario)
        Fresh copies, in file order.

    Raises
    ------
    ManifestError, NotFound
        As :func:`kubenotes.sim.scenarios.load_scenario_file`.

    Examples
    --------
    >>> objects, scenario = website_objects(crd=False)
    >>> [o["kind"] for o in objects]
    ['Node', 'Node', 'Namespace', 'ClusterRole', 'ClusterRoleBinding']
    >>> scenario.steps[0].args["kind"]
    'Website'
    """
    objects, scenario = load_scenario_file(WEBSITE_FILE)
    if not crd:
        objects = [o for o in objects if o.get("kind") != "CustomResourceDefinition"]
    return objects, scenario


def website_cluster(extra_controllers: Any = None, *, crd: bool = True, start: bool = True, seed: int = 0) -> Any:
    """A :class:`~kubenotes.sim.cluster.Cluster` of ``website-crd.yaml`` with your controllers beside the built-in ones.

    Parameters
    ----------
    extra_controllers : mapping of str to Controller subclass, optional
        A notebook's own controllers by name (``{"website-controller": WebsiteController}``).
    crd : bool
        Serve the CRD from t=0 (False: leave it out, to apply it yourself).
    start : bool
        Start the file's Scenario (the Website ``shop/web`` created at t=5); it needs the CRD.
    seed : int

    Returns
    -------
    Cluster
        Stand-in kubelets (pods Running 2 s after binding), RBAC on,
        controllers :data:`WEBSITE_CONTROLLERS` plus ``extra_controllers``; at t=0.

    Raises
    ------
    ApiError
        When the API server refuses one of the file's objects.

    Examples
    --------
    >>> c = website_cluster()
    >>> c.run(until=10)
    >>> c.get("websites.example.com", "web", "shop")["spec"]
    {'replicas': 2, 'image': 'nginx:1.27', 'port': 80}
    """
    from kubenotes.sim.scenario import cluster_options, start_scenario
    from kubenotes.sim.cluster import Cluster

    objects, scenario = website_objects(crd=crd)
    opts = cluster_options([scenario])
    c = Cluster(objects, seed=seed, controllers=list(WEBSITE_CONTROLLERS),
                extra_controllers=dict(extra_controllers or {}), **opts)
    if start:
        start_scenario(c, scenario)
    return c


def replicas_policy(max_replicas: int = 5) -> list[dict]:
    """A ValidatingAdmissionPolicy and its Binding: a Website may not ask for more than ``max_replicas``.

    Parameters
    ----------
    max_replicas : int
        The CEL rule is ``object.spec.replicas <= max_replicas``.

    Returns
    -------
    list of dict
        The ``admissionregistration.k8s.io/v1`` policy ``website-replicas-limit``
        (CREATE and UPDATE of ``websites.example.com``) and the binding
        ``website-replicas-limit-binding`` (``validationActions: [Deny]``), in
        the order to apply them.

    Raises
    ------
    None

    Notes
    -----
    No ``reason`` is set, so a denial is ``422 Invalid`` as upstream answers;
    the message is the policy's ``message``.

    References
    ----------
    https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go

    Examples
    --------
    >>> policy, binding = replicas_policy(3)
    >>> policy["spec"]["validations"][0]["expression"], binding["spec"]["validationActions"]
    ('object.spec.replicas <= 3', ['Deny'])
    """
    name = "website-replicas-limit"
    policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
              "metadata": {"name": name},
              "spec": {"failurePolicy": "Fail",
                       "matchConstraints": {"resourceRules": [{
                           "apiGroups": ["example.com"], "apiVersions": ["v1"],
                           "operations": ["CREATE", "UPDATE"], "resources": ["websites"]}]},
                       "validations": [{"expression": f"object.spec.replicas <= {int(max_replicas)}",
                                        "message": f"a Website may run at most {int(max_replicas)} replicas"}]}}
    binding = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
               "metadata": {"name": f"{name}-binding"},
               "spec": {"policyName": name, "validationActions": ["Deny"]}}
    return [policy, binding]


class WebhookServer:
    """A validating admission webhook served from a Python function on 127.0.0.1 over HTTPS.

    What controller-runtime's webhook server does for an operator written in
    Go, reduced to one path: the API server POSTs an ``admission.k8s.io/v1``
    AdmissionReview, the function decides, the server answers with the
    review's ``uid``. Build it with :func:`serve_webhook`.

    Parameters
    ----------
    review : callable(request: dict) -> (bool, str)
        Called with the AdmissionReview's ``request`` (``operation``,
        ``object``, ``oldObject``, ``userInfo``...); returns whether the
        request is allowed and, when not, the message the API server passes on.

    Returns
    -------
    WebhookServer
        Serving from construction (a daemon thread) until :meth:`stop`.

    Raises
    ------
    OSError
        When no loopback port can be bound.

    Attributes
    ----------
    url : str
        ``https://127.0.0.1:<port>``.
    ca_bundle : str
        The base64 PEM of its self-signed certificate (``caBundle``).
    reviews : list of dict
        Every AdmissionReview request received, in order.

    Notes
    -----
    No mutation (no JSONPatch answer) and no ``warnings``; a function that
    raises is answered ``allowed: false`` with the exception's text, as a
    webhook's own bug would refuse requests under ``failurePolicy: Fail``.

    References
    ----------
    kubernetes-sigs/controller-runtime pkg/webhook/admission (Handler, Validator)
    https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/

    Examples
    --------
    >>> hook = serve_webhook(lambda request: (True, ""))
    >>> hook.url.startswith("https://127.0.0.1:"), hook.reviews
    (True, [])
    >>> hook.stop()
    """

    def __init__(self, review: Callable[[dict], tuple[bool, str]]):
        from kubenotes.sim.serve import self_signed_cert

        cert, key = self_signed_cert()
        self.ca_bundle = base64.b64encode(cert).decode()
        self.reviews: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                request = body.get("request") or {}
                outer.reviews.append(request)
                try:
                    allowed, message = review(request)
                except Exception as e:  # noqa: BLE001 - the learner's function: its error is the webhook's answer
                    allowed, message = False, f"{type(e).__name__}: {e}"
                response: dict[str, Any] = {"uid": request.get("uid", ""), "allowed": bool(allowed)}
                if not allowed:
                    response["status"] = {"code": 403, "message": str(message)}
                data = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                   "response": response}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "tls.crt").write_bytes(cert)
            (Path(d) / "tls.key").write_bytes(key)
            ctx.load_cert_chain(Path(d) / "tls.crt", Path(d) / "tls.key")
        self._httpd.socket = ctx.wrap_socket(self._httpd.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def configuration(self, name: str, *, api_groups: list[str], resources: list[str],
                      operations: tuple[str, ...] = ("CREATE", "UPDATE"), failure_policy: str = "Fail",
                      timeout_seconds: int = 5) -> dict:
        """The ValidatingWebhookConfiguration that sends matching requests here.

        Parameters
        ----------
        name : str
            The webhook's name (a domain, e.g. ``no-latest.example.com``); the configuration is named the same.
        api_groups, resources : list of str
            The rule's groups and resources (``["example.com"]``, ``["websites"]``).
        operations : tuple of str
        failure_policy : {"Fail", "Ignore"}
        timeout_seconds : int

        Returns
        -------
        dict
            ``admissionregistration.k8s.io/v1`` ValidatingWebhookConfiguration with
            ``clientConfig.url`` and ``caBundle``, ``sideEffects: None``,
            ``admissionReviewVersions: [v1]``.

        Raises
        ------
        None

        Examples
        --------
        >>> hook = serve_webhook(lambda request: (True, ""))
        >>> cfg = hook.configuration("x.example.com", api_groups=["example.com"], resources=["websites"])
        >>> cfg["webhooks"][0]["rules"][0]["resources"], cfg["webhooks"][0]["clientConfig"]["url"] == hook.url
        (['websites'], True)
        >>> hook.stop()
        """
        return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
                "metadata": {"name": name},
                "webhooks": [{"name": name, "clientConfig": {"url": self.url, "caBundle": self.ca_bundle},
                              "rules": [{"apiGroups": list(api_groups), "apiVersions": ["*"],
                                         "operations": list(operations), "resources": list(resources)}],
                              "failurePolicy": failure_policy, "sideEffects": "None",
                              "timeoutSeconds": int(timeout_seconds), "admissionReviewVersions": ["v1"]}]}

    def stop(self) -> None:
        """Stop serving and close the port."""
        self._httpd.shutdown()
        self._httpd.server_close()


def serve_webhook(review: Callable[[dict], tuple[bool, str]]) -> WebhookServer:
    """Serve ``review`` as a validating admission webhook on 127.0.0.1 (HTTPS, a self-signed certificate).

    Parameters
    ----------
    review : callable(request: dict) -> (bool, str)
        As :class:`WebhookServer`.

    Returns
    -------
    WebhookServer
        Apply :meth:`WebhookServer.configuration` to the cluster to have its
        API server call it; :meth:`WebhookServer.stop` when done.

    Raises
    ------
    OSError
        When no loopback port can be bound.

    See Also
    --------
    kubenotes.apiserver.admission.webhook.ValidatingAdmissionWebhook

    References
    ----------
    https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/

    Examples
    --------
    >>> hook = serve_webhook(lambda request: (False, "no"))
    >>> hook.stop()
    """
    return WebhookServer(review)


def website_deployment(website: dict) -> dict:
    """The Deployment a ``Website`` asks for: its replicas, image and port, owned by the Website.

    Parameters
    ----------
    website : dict
        A ``example.com/v1`` Website as the API server stores it (defaults
        applied: ``spec.replicas``, ``spec.image``, ``spec.port``; with
        ``metadata.uid``).

    Returns
    -------
    dict
        An ``apps/v1`` Deployment named as the Website, in its namespace,
        selecting and labelling pods ``website: <name>``, with a controller
        ownerReference to the Website (so the garbage collector deletes it
        with the Website).

    Raises
    ------
    KeyError
        When ``spec.image`` or the metadata is missing.

    See Also
    --------
    kubenotes.api.meta.new_controller_ref

    Notes
    -----
    kubernetes/sample-controller's ``newDeployment`` builds the same shape for
    its ``Foo`` kind; a real operator would also set resource requests and
    probes.

    References
    ----------
    kubernetes/sample-controller controller.go (newDeployment)
    https://kubernetes.io/docs/concepts/extend-kubernetes/operator/

    Examples
    --------
    >>> site = {"apiVersion": "example.com/v1", "kind": "Website",
    ...         "metadata": {"name": "web", "namespace": "shop", "uid": "u1"},
    ...         "spec": {"replicas": 2, "image": "nginx:1.27", "port": 80}}
    >>> d = website_deployment(site)
    >>> d["spec"]["replicas"], d["metadata"]["ownerReferences"][0]["kind"]
    (2, 'Website')
    >>> d["spec"]["template"]["spec"]["containers"][0]["ports"]
    [{'containerPort': 80}]
    """
    md, spec = website["metadata"], website["spec"]
    name, labels = md["name"], {"website": md["name"]}
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": md["namespace"], "labels": dict(labels),
                     "ownerReferences": [new_controller_ref(website, "example.com/v1", "Website")]},
        "spec": {"replicas": int(spec.get("replicas", 1)), "selector": {"matchLabels": dict(labels)},
                 "template": {"metadata": {"labels": dict(labels)},
                              "spec": {"containers": [{"name": "web", "image": spec["image"],
                                                       "ports": [{"containerPort": int(spec.get("port", 80))}]}]}}},
    }


class MonSample(NamedTuple):
    """One mon at one sampled instant.

    Attributes
    ----------
    t : float
        Virtual seconds.
    mon : str
        Rook's mon name (``a``, ``b``...).
    node : str
        The node the mon is pinned to (``rook-ceph-mon-endpoints``' mapping).
    state : str
        ``"in quorum"`` (its pod Running and Ready), ``"out of quorum"``
        (a pod on the node, not Ready: the node is unreachable) or
        ``"not scheduled"`` (no pod bound: its node is gone or the pod was
        evicted).
    """

    t: float
    mon: str
    node: str
    state: str


class MonFailoverRun(NamedTuple):
    """A finished run of ``rook-ceph.yaml``.

    Attributes
    ----------
    cluster : Cluster
    dead_node : str
        The node whose kubelet stopped.
    down_at_seconds : float
    samples : tuple of MonSample
        Every mon every ``sample_seconds``, in time then mon order.
    log : tuple of (float, str)
        The operator's log lines (Rook's wording) with their virtual times.
    """

    cluster: Any
    dead_node: str
    down_at_seconds: float
    samples: tuple[MonSample, ...]
    log: tuple[tuple[float, str], ...]

    @property
    def end_seconds(self) -> float:
        """Virtual seconds at which the run stopped."""
        return float(self.cluster.now)

    def at(self, t: float) -> list[MonSample]:
        """The samples of the last sampled instant at or before ``t``.

        Examples
        --------
        >>> run = MonFailoverRun(None, "worker-1", 60.0, (MonSample(0, "a", "worker-1", "in quorum"),
        ...                      MonSample(10, "a", "worker-1", "out of quorum")), ())
        >>> [s.state for s in run.at(9)]
        ['in quorum']
        """
        times = sorted({s.t for s in self.samples if s.t <= t})
        if not times:
            return []
        return [s for s in self.samples if s.t == times[-1]]

    def quorum_at(self, t: float) -> list[str]:
        """The mons in quorum at the last sample at or before ``t``."""
        return [s.mon for s in self.at(t) if s.state == "in quorum"]

    def failover_seconds(self) -> float | None:
        """When a new mon first appeared after the node died (None: no failover in the run)."""
        first = {s.mon for s in self.samples if s.t <= self.down_at_seconds}
        later = [s.t for s in self.samples if s.mon not in first]
        return min(later) if later else None


def _sample_mons(cluster: Any, namespace: str) -> list[tuple[str, str, str]]:
    """(mon, node, state) for every mon in the mon endpoints ConfigMap."""
    from kubenotes.operators.rook import MON_ENDPOINTS_CONFIGMAP

    cm = cluster.get("configmaps", MON_ENDPOINTS_CONFIGMAP, namespace)
    if cm is None:
        return []
    mapping = json.loads(cm["data"].get("mapping") or "{}").get("node", {})
    pods = cluster.list("pods", namespace, label_selector="app=rook-ceph-mon")
    out = []
    for mon, where in sorted(mapping.items()):
        mine = [p for p in pods if p["metadata"].get("labels", {}).get("ceph_daemon_id") == mon
                and not p["metadata"].get("deletionTimestamp")]
        if any(p.get("status", {}).get("phase") == "Running" and is_pod_ready(p) for p in mine):
            state = "in quorum"
        elif any(p.get("spec", {}).get("nodeName") for p in mine):
            state = "out of quorum"
        else:
            state = "not scheduled"
        out.append((mon, where["Name"], state))
    return out


@functools.lru_cache(maxsize=8)
def simulate_mon_failover(dead_node: str = "worker-1", down_at_seconds: float = 60.0, *,
                          run_seconds: float = 1500.0, sample_seconds: float = 10.0,
                          seed: int = 0) -> MonFailoverRun:
    """``rook-ceph.yaml`` with ``dead_node``'s kubelet stopping at ``down_at_seconds``, sampled as it runs.

    Parameters
    ----------
    dead_node : str
        One of the file's nodes (``worker-1`` ... ``worker-4``); ``""``: no node dies.
    down_at_seconds : float
        When its kubelet stops (virtual seconds).
    run_seconds, sample_seconds : float
        How long the run lasts; how often the mons are sampled.
    seed : int

    Returns
    -------
    MonFailoverRun

    Raises
    ------
    ValueError
        For a node the file does not have (one line naming the nodes).

    See Also
    --------
    kubenotes.operators.rook.RookCephOperator

    Notes
    -----
    A mon's state is read from its pods as the operator's model of
    ``quorum_status`` reads it (Running and Ready is in quorum), not from a
    Ceph monitor map; the operator's own verdicts are in ``log``.

    References
    ----------
    rook/rook@v1.18.0 pkg/operator/ceph/cluster/mon/health.go
    https://rook.io/docs/rook/latest/CRDs/Cluster/ceph-cluster-crd/ (healthCheck.daemonHealth.mon)

    Examples
    --------
    >>> run = simulate_mon_failover("worker-3", run_seconds=120)
    >>> sorted({(s.mon, s.node) for s in run.at(0) + run.at(50)})
    [('a', 'worker-1'), ('b', 'worker-2'), ('c', 'worker-3')]
    >>> run.quorum_at(50), run.quorum_at(120)
    (['a', 'b', 'c'], ['a', 'b'])
    """
    objects, scenario = load_scenario_file(ROOK_FILE)
    nodes = [o["metadata"]["name"] for o in objects if o.get("kind") == "Node"]
    if dead_node and dead_node not in nodes:
        raise ValueError(f"no node {dead_node!r} in {ROOK_FILE}: choose one of {', '.join(nodes)}")
    steps = [s for s in scenario.steps if s.action != "nodeDown"]
    if dead_node:
        steps.append(Step(float(down_at_seconds), "nodeDown", {"name": dead_node}))
    c = _cluster(objects, Scenario(scenario.name, tuple(steps), scenario.cluster), seed)
    namespace = "rook-ceph"
    samples: list[MonSample] = []
    t = 0.0
    while True:
        c.run(until=t) if t > 0 else None
        samples += [MonSample(t, mon, node, state) for mon, node, state in _sample_mons(c, namespace)]
        if t >= run_seconds:
            break
        t = min(t + sample_seconds, float(run_seconds))
    op = c.controllers["rook-ceph-operator"]
    return MonFailoverRun(c, dead_node, float(down_at_seconds), tuple(samples), tuple(op.log))
