"""One request path for objects read from manifests: what ``kubectl apply -f`` does against a fresh kube-apiserver.

``validate``, ``simulate`` and ``serve`` (and a notebook's
:class:`~kubenotes.sim.cluster.Cluster`) create the objects of their input
through this module, so the same file gets the same verdict from each:

* :func:`start_api_server` is kube-apiserver at start: the system namespaces
  (``systemnamespaces`` controller), the ``kubernetes`` Service, the system
  PriorityClasses, the default admission chain
  (:func:`~kubenotes.apiserver.admission.default_admission_chain`:
  NamespaceLifecycle, LimitRanger, ServiceAccount, Priority,
  DefaultTolerationSeconds, DefaultStorageClass, PersistentVolumeClaimResize, DefaultIngressClass,
  ResourceQuota) and object validation;
* :func:`create_objects` sends every object as a create request (decoding,
  field validation, defaulting, dropping of disabled fields, mutating
  admission, validation, validating admission), in :data:`INSTALL_ORDER`.
  An object that carries ``metadata.uid`` (a ``kubectl get -o yaml`` dump of
  a running cluster) is restored as from an etcd backup instead: it keeps its
  uid and skips admission, which the cluster it came from already applied. A
  Node's ``status`` is posted after its create, as its kubelet would.

Notes
-----
Upstream's ``kubectl apply -f`` sends the objects in the order it reads them
(files in lexical order, documents in file order): it does not reorder by
kind, so a Pod before its Namespace is refused by NamespaceLifecycle
(``namespaces "x" not found``) and succeeds when applied again. The model
sends them in :data:`INSTALL_ORDER` (as Helm installs), so that a directory
loads whatever its files are called; within a kind, input order is kept. At
time zero no controller has run: a ResourceQuota created from the same input
has no ``status.hard`` yet, so, as upstream's ResourceQuota admission does
before the quota controller's first sync, it limits nothing; later creates
(a ReplicaSet's pods in ``simulate`` and ``serve``) are checked against it.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go (objects sent in the order read)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go (files in lexical order)
kubernetes/kubernetes@v1.34.0 pkg/controlplane/controller/systemnamespaces/system_namespaces_controller.go
kubernetes/kubernetes@v1.34.0 pkg/registry/scheduling/rest/storage_scheduling.go (system PriorityClasses at start)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go
"""

from __future__ import annotations

import copy
from typing import Any, Iterable

from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.resources import resource_for_kind
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError
from kubenotes.errors import ManifestError

__all__ = ["KUBERNETES_SERVICE", "DEFAULT_SERVICE_CIDR_NAME", "SYSTEM_NAMESPACES", "INSTALL_ORDER", "ADMIN", "start_api_server",
           "bootstrap_objects", "enable_request_path", "create_objects", "objects_with_locations",
           "load_through_api_server"]

#: The ``kubernetes`` Service kube-apiserver keeps in ``default`` (first address of the service range, 443 -> 6443).
KUBERNETES_SERVICE = {
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "kubernetes", "namespace": "default",
                 "labels": {"component": "apiserver", "provider": "kubernetes"}},
    "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.1", "clusterIPs": ["10.96.0.1"],
             "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack", "sessionAffinity": "None",
             "internalTrafficPolicy": "Cluster",
             "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]},
}

#: The ServiceCIDR the API server creates from ``--service-cluster-ip-range`` (``DefaultServiceCIDRName``).
DEFAULT_SERVICE_CIDR_NAME = "kubernetes"

#: Namespaces the API server creates at start (``systemnamespaces`` controller).
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")

#: Kinds created first when loading manifests, so references resolve (as Helm's install order; IPAddress, which
#: Helm does not list, before Service, so that a dump's IPAddresses are restored before their Services).
INSTALL_ORDER = ("Namespace", "PriorityClass", "ResourceQuota", "LimitRange", "StorageClass", "ServiceAccount",
                 "Secret", "ConfigMap", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
                 "PersistentVolume", "PersistentVolumeClaim", "Node", "IPAddress", "Service", "PodDisruptionBudget",
                 "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
                 "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob")

#: ``kubectl``'s user in a kubeadm cluster's admin.conf.
ADMIN = UserInfo("kubernetes-admin", groups=("system:masters", "system:authenticated"))


def bootstrap_objects(client: Any) -> None:
    """Create what kube-apiserver creates at start: system namespaces, the default ServiceCIDR, the ``kubernetes``
    Service, system PriorityClasses, and API Priority and Fairness's bootstrap configuration.

    Parameters
    ----------
    client : kubenotes.apiserver.server.Client
        A client of the server being started (``kube-apiserver``).

    Notes
    -----
    Upstream creates these from post-start hooks and controllers running side by side; here they are created
    in one fixed order (namespaces, ServiceCIDR ``kubernetes`` and its Ready status, the ``kubernetes`` Service,
    PriorityClasses, PriorityLevelConfigurations, FlowSchemas each with its ``Dangling`` status), so that resourceVersions repeat run after run.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controlplane/controller/kubernetesservice/controller.go
    kubernetes/kubernetes@v1.34.0 pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go
    """
    from kubenotes.api.priority import system_priority_classes
    from kubenotes.apiserver.flowcontrol_bootstrap import (bootstrap_flow_schemas,
                                                          bootstrap_priority_level_configurations,
                                                          dangling_condition)
    from kubenotes.apiserver.ipallocator import DEFAULT_SERVICE_CIDR

    for ns in SYSTEM_NAMESPACES:
        client.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    cidr = client.create("servicecidrs", {"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR",
                                          "metadata": {"name": DEFAULT_SERVICE_CIDR_NAME},
                                          "spec": {"cidrs": [DEFAULT_SERVICE_CIDR]}})
    cidr["status"] = {"conditions": [{"type": "Ready", "status": "True", "reason": "",
                                      "message": "Kubernetes default Service CIDR is ready",
                                      "lastTransitionTime": client.server.timestamp()}]}
    client.update_status("servicecidrs", cidr)
    client.create("services", copy.deepcopy(KUBERNETES_SERVICE), "default")
    for pc in system_priority_classes():
        client.create("priorityclasses", pc.to_dict())
    levels = {client.create("prioritylevelconfigurations", plc)["metadata"]["name"]
              for plc in bootstrap_priority_level_configurations()}
    for fs in bootstrap_flow_schemas():
        created = client.create("flowschemas", fs)
        created["status"] = {"conditions": [dangling_condition(created, levels, client.server.timestamp())]}
        client.update_status("flowschemas", created)


def enable_request_path(server: APIServer, *, seed: int = 0, admission: bool = True, validation: bool = True) -> None:
    """Turn on the default admission chain and object validation of ``server``.

    Parameters
    ----------
    server : APIServer
    seed : int
        Seeds the ServiceAccount plugin's token volume names.
    admission, validation : bool
        Which of the two to turn on.
    """
    from kubenotes.apiserver import validation as v
    from kubenotes.apiserver.admission import default_admission_chain

    if admission:
        server.admission = default_admission_chain(seed=seed)
    if validation:
        server.validator = v


def start_api_server(seed: int = 0, epoch: Any = None, feature_gates: Any = None) -> APIServer:
    """A kube-apiserver as it starts: bootstrap objects, default admission, validation; no authorization.

    Parameters
    ----------
    seed : int
        Seeds uids, generated names and ServiceAccount volume names.
    epoch : datetime or str, optional
        Wall-clock time of virtual second 0 (see :class:`~kubenotes.apiserver.server.APIServer`).
    feature_gates : FeatureGate, mapping of str to bool, str or None
        ``--feature-gates``; None: v1.34's defaults.

    Returns
    -------
    APIServer

    Examples
    --------
    >>> s = start_api_server()
    >>> sorted(n["metadata"]["name"] for n in s.list("namespaces"))
    ['default', 'kube-node-lease', 'kube-public', 'kube-system']
    >>> s.admission.names()[0], s.validator is not None
    ('NamespaceLifecycle', True)
    """
    kw = {} if epoch is None else {"epoch": epoch}
    server = APIServer(seed=seed, feature_gates=feature_gates, **kw)
    bootstrap_objects(server.client("kube-apiserver", ADMIN))
    enable_request_path(server, seed=seed)
    return server


def objects_with_locations(objects: Any) -> list[tuple[dict, Any]]:
    """``(dict, LoadedObject)`` pairs of API objects; None in place of the LoadedObject for an object not from a file.

    Parameters
    ----------
    objects : Manifests, or iterable of LoadedObject, lightkube objects or dicts
        Component configuration documents (``Scenario``, ``KubeSchedulerConfiguration``: not API objects) are
        left out.

    Returns
    -------
    list of tuple

    Raises
    ------
    TypeError
        For an element that is none of those.
    """
    from kubenotes.api.manifests import LoadedObject, Manifests

    out = []
    if isinstance(objects, Manifests):
        objects = list(objects)
    for o in objects or ():
        loc = None
        if isinstance(o, LoadedObject):
            if isinstance(o.obj, dict):  # NON_API_KINDS: read by their own modules, never sent to the server
                continue
            loc, o = o, o.obj
        if isinstance(o, dict):
            out.append((o, loc))
        elif hasattr(o, "to_dict"):
            out.append((o.to_dict(), loc))
        else:
            raise TypeError(f"cannot load {type(o).__name__} into a cluster")
    return out


def create_objects(server: APIServer, client: Any, objects: Iterable[tuple[dict, Any]], *,
                   owned: bool = False) -> list[tuple[dict, Any]]:
    """Create manifest objects through the request path, as ``kubectl apply -f`` at time zero.

    Parameters
    ----------
    server : APIServer
        A started server (:func:`start_api_server`, or a Cluster's).
    client : kubenotes.apiserver.server.Client
        The client the requests come from (``kubectl``).
    objects : iterable of (dict, LoadedObject or None)
        From :func:`objects_with_locations`.
    owned : bool
        The dicts of pairs with a LoadedObject were made for this call (``to_dict`` of a typed object) and are
        handed over: the server takes them without a copy and returns its stored objects themselves, which the
        caller only reads (``APIServer.create``'s ``owned``). For a one-shot server, as
        :func:`load_through_api_server`'s.

    Returns
    -------
    list of (dict, LoadedObject or None)
        The stored objects (a Node with its posted status), in the order created; a system Namespace or the
        ``kubernetes`` Service of the input, which the server created at start, is the stored one.

    Raises
    ------
    ManifestError
        When the API server refuses an object read from a file: one line naming the file, document and
        object, then the API server's own words (``pods "web" is forbidden: exceeded quota: ...``).
    ApiError
        When it refuses an object given as a dict (no file to name).
    """
    rank = {k: i for i, k in enumerate(INSTALL_ORDER)}
    docs = sorted(objects, key=lambda d: rank.get(d[0].get("kind", ""), len(rank)))
    out = []
    for d, loc in docs:
        try:
            out.append((_create_one(server, client, d, owned and loc is not None), loc))
        except ApiError as e:
            if loc is None:
                raise
            raise ManifestError(loc.source, loc.doc, loc.ref, str(e)) from None
    return out


def _create_one(server: APIServer, client: Any, d: dict, owned: bool = False) -> dict:
    ri = resource_for_kind(d.get("kind", ""), d.get("apiVersion"))
    md = d.get("metadata") or {}
    if ri.kind == "Namespace" and md.get("name") in SYSTEM_NAMESPACES:
        return server.get("namespaces", None, md["name"])
    if ri.kind == "Service" and (md.get("namespace"), md.get("name")) == ("default", "kubernetes"):
        return server.get("services", "default", "kubernetes")  # the API server's own Service (a dump carries it)
    if ri.kind == "IPAddress" and md.get("uid"):
        held = server.get("ipaddresses", None, md.get("name", ""))
        if held is not None and _ref(held) == _ref(d):
            return held  # a dump's IPAddress of the `kubernetes` Service, which the server made again at start
    status = d.get("status")
    restoring = bool(md.get("uid"))
    admission = server.admission
    if restoring:
        # A `kubectl get -o yaml` dump (it carries uids): restored as from an etcd backup, without admission
        # (the cluster it came from admitted it; its ServiceAccounts, quotas... may not be in the dump).
        server.admission = None
    try:
        # an object with a status (a Node, a dump's object) is posted again below from `status`: not handed over
        out = server.create(client._attrs("create", ri.resource, md.get("namespace")), d, keep_uid=True,
                            owned=owned and not restoring and status is None)
        if restoring and status and ri.kind in ("PersistentVolume", "PersistentVolumeClaim", "Pod"):
            # a restored volume or claim keeps its phase (Bound...), a pod its phase and startTime (the scheduler's
            # preemption compares victims' start times), as etcd held them (still without admission)
            out = client.update_status(ri.resource, dict(out, status=status), md.get("namespace"))
    finally:
        server.admission = admission
    if ri.kind == "Node" and status:
        new = dict(out)
        new["status"] = status
        out = client.update_status("nodes", new)
    return out


def _ref(ip_address: dict) -> dict:
    """An IPAddress's ``spec.parentRef`` without its empty fields (the core group's ``group: ""``)."""
    return {k: v for k, v in ((ip_address.get("spec") or {}).get("parentRef") or {}).items() if v}


def load_through_api_server(m: Any, seed: int = 0, feature_gates: Any = None) -> Any:
    """The objects of ``m`` as a fresh kube-apiserver stores them after ``kubectl apply -f``.

    Every API object goes through :func:`create_objects`, the request path ``validate``, ``schedule``,
    ``simulate`` and ``serve`` load with (defaulting, admission, validation, field validation); component
    configuration documents are kept as read.

    Parameters
    ----------
    m : kubenotes.api.manifests.Manifests
        Read with ``defaults=False``.
    seed : int
        Seeds uids, generated names and ServiceAccount volume names.
    feature_gates : FeatureGate, mapping of str to bool, str or None
        ``--feature-gates``; None: v1.34's defaults.

    Returns
    -------
    kubenotes.api.manifests.Manifests
        In input order; each object is the stored one (lightkube typed, as read).

    Raises
    ------
    ManifestError
        When the API server refuses an object (file, document and object named, then upstream's message).

    Notes
    -----
    ``validate`` and ``schedule`` read what this returns; ``simulate`` and ``serve`` keep their server running
    (:func:`create_objects` on a Cluster's server).

    Examples
    --------
    >>> from kubenotes.api.manifests import load_manifests
    >>> m = load_manifests('''apiVersion: v1
    ... kind: Pod
    ... metadata: {name: web}
    ... spec: {containers: [{name: c, image: nginx}]}
    ... ''', defaults=False)
    >>> pod = load_through_api_server(m).pods[0]
    >>> pod.spec.priority, pod.spec.serviceAccountName, pod.status.qosClass
    (0, 'default', 'BestEffort')
    """
    from kubenotes.api.manifests import LoadedObject, Manifests
    from kubenotes.apiserver.server import using_epoch

    server = start_api_server(seed=seed, feature_gates=feature_gates)
    with using_epoch(server.epoch):
        created = create_objects(server, server.client("kubectl", ADMIN), objects_with_locations(m), owned=True)
    stored = {id(loc): d for d, loc in created}
    del created
    _release(server)
    out = []
    for o in m:
        d = stored.pop(id(o), None)
        if d is not None:
            o = LoadedObject(o.source, o.doc, type(o.obj).from_dict(d), o.kind, o.namespace, o.name, o.api_version)
        out.append(o)
    return Manifests(out)


def _release(server: APIServer) -> None:
    """Drop a one-shot server's state: its store, watch history and logs are not read again.

    The server sits in reference cycles (its clients, watches and loopback refer back to it), and ``schedule``
    runs with the cyclic collector off, so without this the whole store stayed in memory beside the scheduler's
    own copies (3.2 GiB instead of 1.4 GiB at 150,000 pods). Clearing the instances' attributes breaks the
    cycles, so reference counting frees them at once.
    """
    store = getattr(server, "store", None)
    if store is not None:
        vars(store).clear()
    vars(server).clear()
