"""Rook's Ceph operator, modelled: a CephCluster becomes monitors with a quorum, OSDs, a CSI driver and a StorageClass.

Rook (rook/rook, ``pkg/operator/ceph``) is the archetype of the operator
pattern: a CustomResourceDefinition (``cephclusters.ceph.rook.io``), a
controller that reconciles it into Deployments, Services and ConfigMaps, and a
CSI driver underneath. :class:`RookCephOperator` follows its CephCluster
reconciliation in simplified form, in the project's controller shape
(informers, a workqueue, :meth:`~RookCephOperator.reconcile`), on the virtual
clock:

* **Install** (:func:`chart_objects`): what ``helm install rook-ceph`` applies:
  the ``rook-ceph`` Namespace, the CephCluster CRD, the operator's
  ServiceAccount ``rook-ceph-system`` with its ClusterRole and binding, and the
  ``rook-ceph-operator`` Deployment.
* **Monitors** (``pkg/operator/ceph/cluster/mon/mon.go``): ``spec.mon.count``
  (default :data:`DEFAULT_MON_COUNT` = 3) mons named ``a``, ``b``, ``c``...,
  each a Service ``rook-ceph-mon-<id>`` (its clusterIP is the mon's identity,
  port 6789 and msgr2 3300) and a Deployment ``rook-ceph-mon-<id>`` pinned
  with a ``kubernetes.io/hostname`` nodeSelector to its own node
  (``allowMultiplePerNode: false``, Rook's default in its examples: one mon a
  node). The ConfigMap ``rook-ceph-mon-endpoints`` is the source of truth, as
  upstream: ``data`` (``a=<ip>:6789,...``), ``mapping`` (mon -> node),
  ``maxMonId`` and ``outOfQuorum``.
* **OSDs** (``pkg/operator/ceph/cluster/osd``): once the mons have a quorum,
  a Deployment ``rook-ceph-osd-<id>`` per device, pinned to the device's node.
  The model's stand-in for what the ``rook-ceph-osd-prepare-<node>`` Job
  discovers with ``lsblk`` is the node annotation :data:`DEVICES_ANNOTATION`
  (``kubenotes.io/ceph-devices: "sdb,sdc"``): a device becomes an OSD only if
  the node has it and the CephCluster selects it (``storage.useAllNodes`` with
  ``useAllDevices``, or ``storage.nodes[].devices[].name``, or a node entry's
  ``useAllDevices``). A node without devices gets no OSD.
* **CSI**: the CSIDriver ``rook-ceph.rbd.csi.ceph.com`` (Rook's RBD driver
  registration, ``attachRequired: true``, ``fsGroupPolicy: File``) and the
  StorageClass ``rook-ceph-block`` of Rook's example
  (``deploy/examples/csi/rbd/storageclass.yaml``).
* **Status** (``pkg/operator/ceph/cluster/cluster.go``, ``controller.UpdateCondition``):
  ``phase`` and the ``Progressing`` condition (reason ``ClusterProgressing``,
  ``Configuring the Ceph cluster``) while it builds, then ``Ready`` (reason
  ``ClusterCreated``, ``Cluster created successfully``), ``state``
  ``Creating``/``Created``, and ``ceph.health`` with ``ceph.details`` worded as
  ``ceph health detail`` words them (``MON_DOWN``: ``1/3 mons down, quorum
  b,c``). Event ``ReconcileSucceeded`` (``successfully configured CephCluster
  "rook-ceph/rook-ceph"``) when the cluster is first ready.
* **Mon health and failover** (``pkg/operator/ceph/cluster/mon/health.go``): every
  ``healthCheck.daemonHealth.mon.interval`` (default
  :data:`HEALTH_CHECK_INTERVAL_SECONDS`, 45 s; the first check one interval
  after the cluster is ready) the operator checks each mon. A mon out of quorum
  is noted the first time it is seen out; it is failed over at the first check
  more than ``timeout`` (default :data:`MON_OUT_TIMEOUT_SECONDS`, 10 minutes;
  ``0`` never fails over) after that. If then the mon's pod is not scheduled
  (Pending: its node is gone), Rook waits one more timeout before failing over
  ("the timeout ... will be doubled"), as upstream's
  ``retriesBeforeNodeDrainFailover``. Failover: the failed mon's Deployment is
  scaled to 0, a new mon (the next letter, ``d``) is placed on a node without
  a mon, and once it is in quorum the failed mon is removed (Service,
  Deployment, endpoints entry). One mon per check. Each step is an Event on
  the CephCluster whose message is Rook's log line (``mon "a" not found in
  quorum, waiting for timeout (554 seconds left) before failover``), and a line
  of :attr:`RookCephOperator.log`.

Notes
-----
Simplified compared with Rook:

* There is no Ceph: a mon is *in quorum* when its pod is Running and Ready
  (what ``ceph quorum_status`` says is read from the API instead; the node
  lifecycle controller turns a dead node's pods NotReady after
  ``node-monitor-grace-period``), and the cluster has quorum while more than
  half of its mons are in it. A mon pod is *scheduled* when a pod of the mon
  that is not terminating has a node.
* Mons are placed by the operator itself (a Ready, untainted, schedulable node
  without a mon, by name), not by scheduling canary Deployments; no mgr, no
  osd-prepare Jobs, no PodDisruptionBudgets, no CephBlockPool (the StorageClass
  names pool ``replicapool``), no CSI plugin pods: the CSI driver is a stub,
  registered but provisioning nothing (no CSI model exists on main).
* A failover whose new mon never joins is not reverted (upstream scales the old
  one back up); a failed mon's replacement is removed only when it joined.
* The reasons of the mon Events (:data:`REASON_MON_OUT_OF_QUORUM`,
  :data:`REASON_MON_FAILOVER`, :data:`REASON_MON_REMOVED`) are the model's:
  Rook writes those lines to its log only.
* The operator's environment overrides ``ROOK_MON_HEALTHCHECK_INTERVAL`` and
  ``ROOK_MON_OUT_TIMEOUT`` are not read; the CephCluster's fields are.
* The issue asked for a 300 s failover; Rook's documented default, followed
  here, is 10 minutes (``MonOutTimeout = 10 * time.Minute``; the doc page
  "Monitor Health": "the operator will wait 10 minutes").

References
----------
rook/rook@v1.18.0 pkg/operator/ceph/cluster/mon/health.go (HealthCheckInterval, MonOutTimeout, checkHealth, failoverMon, removeMon)
rook/rook@v1.18.0 pkg/operator/ceph/cluster/mon/mon.go (mon names, endpoints ConfigMap, placement)
rook/rook@v1.18.0 pkg/operator/ceph/cluster/cluster.go (ClusterProgressing, ClusterCreated conditions)
rook/rook@v1.18.0 pkg/operator/ceph/cluster/osd/spec.go (rook-ceph-osd-<id> Deployments)
rook/rook@v1.18.0 Documentation/Storage-Configuration/Advanced/ceph-mon-health.md (45 s, 10 minutes, doubled when Pending)
rook/rook@v1.18.0 deploy/examples/cluster.yaml (mon.count 3, allowMultiplePerNode false), deploy/examples/csi/rbd/storageclass.yaml
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Generator

from kubenotes.api.duration import parse_go_duration
from kubenotes.api.meta import new_controller_ref
from kubenotes.api.podutil import is_pod_ready
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, policy_rule
from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.resources import resource_for_kind
from kubenotes.apiserver.status import ApiError
from kubenotes.client import SharedInformerFactory
from kubenotes.controllers.controller_utils import is_pod_terminating
from kubenotes.controllers.podutil import get_node_condition
from kubenotes.controllers.reconciler import Controller, ControllerContext, Result, key_of, split_key

__all__ = ["OPERATOR_NAME", "OPERATOR_NAMESPACE", "SERVICE_ACCOUNT", "CRD_NAME", "DEFAULT_MON_COUNT",
           "HEALTH_CHECK_INTERVAL_SECONDS", "MON_OUT_TIMEOUT_SECONDS", "RBD_DRIVER_NAME", "STORAGE_CLASS_NAME",
           "MON_ENDPOINTS_CONFIGMAP", "DEVICES_ANNOTATION", "REASON_MON_OUT_OF_QUORUM", "REASON_MON_FAILOVER",
           "REASON_MON_REMOVED", "REASON_RECONCILE_SUCCEEDED", "mon_name", "ceph_cluster_crd", "chart_objects",
           "node_devices", "desired_osds", "RookCephOperator"]

#: The operator's name: its component in the event log, its Deployment, ``spec.cluster.operators``.
OPERATOR_NAME = "rook-ceph-operator"
#: The namespace the chart installs into (``helm install --namespace rook-ceph``).
OPERATOR_NAMESPACE = "rook-ceph"
#: The operator's ServiceAccount (the chart's ``rook-ceph-system``).
SERVICE_ACCOUNT = "rook-ceph-system"
GROUP = "ceph.rook.io"
VERSION = "v1"
CRD_NAME = f"cephclusters.{GROUP}"
#: The operator image of the pinned release.
ROOK_IMAGE = "docker.io/rook/ceph:v1.18.0"
#: The Ceph image when ``spec.cephVersion.image`` is unset (the one Rook's v1.18 examples name).
DEFAULT_CEPH_IMAGE = "quay.io/ceph/ceph:v19.2.3"
#: ``mon.count`` when unset or 0 (``mon.DefaultMonCount``).
DEFAULT_MON_COUNT = 3
#: ``HealthCheckInterval``: how often the mons are checked (``healthCheck.daemonHealth.mon.interval``).
HEALTH_CHECK_INTERVAL_SECONDS = 45.0
#: ``MonOutTimeout``: how long a mon may be out of quorum before it is failed over (``...mon.timeout``).
MON_OUT_TIMEOUT_SECONDS = 600.0
#: Rook's RBD CSI driver name (``<operator namespace>.rbd.csi.ceph.com``).
RBD_DRIVER_NAME = f"{OPERATOR_NAMESPACE}.rbd.csi.ceph.com"
#: The StorageClass of Rook's RBD example.
STORAGE_CLASS_NAME = "rook-ceph-block"
#: The ConfigMap holding the mons' endpoints and placement (Rook's source of truth).
MON_ENDPOINTS_CONFIGMAP = "rook-ceph-mon-endpoints"
#: Node annotation naming the node's raw devices, comma-separated (the model's stand-in for ``lsblk``).
DEVICES_ANNOTATION = "kubenotes.io/ceph-devices"
#: Mon ports: msgr1 (6789) and msgr2 (3300).
MON_PORT = 6789
MSGR2_PORT = 3300
HOSTNAME_LABEL = "kubernetes.io/hostname"

#: Event reasons (the model's; the messages are Rook's log lines).
REASON_MON_OUT_OF_QUORUM = "MonOutOfQuorum"
REASON_MON_FAILOVER = "MonFailover"
REASON_MON_REMOVED = "MonRemoved"
#: Rook's reconcile reason (``cephv1.ReconcileSucceeded``).
REASON_RECONCILE_SUCCEEDED = "ReconcileSucceeded"

#: Workqueue keys of the periodic mon health check start with this.
_HEALTH = "mon-health:"

_ADMIN = UserInfo("kubernetes-admin", groups=("system:masters", "system:authenticated"))


def mon_name(index: int) -> str:
    """A mon's name from its index, as Rook's ``k8sutil.IndexToName``: 0 -> ``a``, 25 -> ``z``, 26 -> ``aa``.

    Examples
    --------
    >>> [mon_name(i) for i in (0, 1, 2, 3, 25, 26, 27)]
    ['a', 'b', 'c', 'd', 'z', 'aa', 'ab']
    """
    out = ""
    i = index
    while True:
        out = chr(ord("a") + i % 26) + out
        i = i // 26 - 1
        if i < 0:
            return out


def ceph_cluster_crd() -> dict:
    """The CephCluster CustomResourceDefinition, a structural subset of Rook's.

    The fields the model reads are typed (``cephVersion``, ``dataDirHostPath``,
    ``mon``, ``storage``, ``healthCheck``); the rest of ``spec`` is kept
    (``x-kubernetes-preserve-unknown-fields``). Printer columns, short name
    ``ceph`` and the status subresource as Rook's CRD.

    Examples
    --------
    >>> crd = ceph_cluster_crd()
    >>> crd["metadata"]["name"], crd["spec"]["names"]["kind"], crd["spec"]["scope"]
    ('cephclusters.ceph.rook.io', 'CephCluster', 'Namespaced')
    """
    duration = {"type": "string"}
    devices = {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}},
                                          "x-kubernetes-preserve-unknown-fields": True}}
    spec = {
        "type": "object", "x-kubernetes-preserve-unknown-fields": True,
        "properties": {
            "cephVersion": {"type": "object", "properties": {"image": {"type": "string"},
                                                             "allowUnsupported": {"type": "boolean"}}},
            "dataDirHostPath": {"type": "string", "pattern": "^/(\\S+)"},
            "mon": {"type": "object", "properties": {
                "count": {"type": "integer", "minimum": 0, "maximum": 9},
                "allowMultiplePerNode": {"type": "boolean"}}},
            "storage": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {
                "useAllNodes": {"type": "boolean"}, "useAllDevices": {"type": "boolean"}, "devices": devices,
                "nodes": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                                     "properties": {"name": {"type": "string"},
                                                                    "useAllDevices": {"type": "boolean"},
                                                                    "devices": devices}}}}},
            "healthCheck": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {
                "daemonHealth": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {
                    "mon": {"type": "object", "properties": {"disabled": {"type": "boolean"},
                                                             "interval": duration, "timeout": duration}}}}}},
        }}
    columns = [("DataDirHostPath", "string", ".spec.dataDirHostPath", "Directory used on the K8s nodes"),
               ("MonCount", "string", ".spec.mon.count", "Number of MONs"),
               ("Age", "date", ".metadata.creationTimestamp", ""),
               ("Phase", "string", ".status.phase", "Phase"),
               ("Message", "string", ".status.message", "Message"),
               ("Health", "string", ".status.ceph.health", "Ceph Health")]
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": CRD_NAME},
        "spec": {
            "group": GROUP, "scope": "Namespaced",
            "names": {"plural": "cephclusters", "singular": "cephcluster", "kind": "CephCluster",
                      "listKind": "CephClusterList", "shortNames": ["ceph"]},
            "versions": [{
                "name": VERSION, "served": True, "storage": True,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": n, "type": t, "jsonPath": p, **({"description": d} if d else {})}
                    for n, t, p, d in columns],
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                    "spec": spec,
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                    "required": ["metadata", "spec"]}},
            }],
        },
    }


def _operator_rules() -> list[dict]:
    """The chart's ClusterRoles, condensed to what the model's operator does."""
    rw = ("get", "list", "watch", "create", "update", "patch", "delete")
    return [
        policy_rule(rw, [LEGACY_GROUP], ["pods", "services", "configmaps"]),
        policy_rule(("get", "list", "watch"), [LEGACY_GROUP], ["nodes"]),
        policy_rule(("create", "patch", "update"), [LEGACY_GROUP], ["events"]),
        policy_rule(("create", "patch", "update"), ["events.k8s.io"], ["events"]),
        policy_rule(rw, ["apps"], ["deployments"]),
        policy_rule(rw, [GROUP], ["cephclusters", "cephclusters/status", "cephclusters/finalizers"]),
        policy_rule(rw, ["storage.k8s.io"], ["csidrivers", "storageclasses"]),
    ]


def chart_objects(namespace: str = OPERATOR_NAMESPACE) -> list[dict]:
    """What ``helm install rook-ceph --namespace <namespace>`` applies, in the order it applies them.

    Returns
    -------
    list of dict
        Namespace, CephCluster CRD, ServiceAccount ``rook-ceph-system``,
        ClusterRole and ClusterRoleBinding ``rook-ceph-operator``, Deployment
        ``rook-ceph-operator``.

    Notes
    -----
    The chart's roles (``rook-ceph-global``, ``rook-ceph-system``,
    ``rook-ceph-cluster-mgmt``...) are condensed into one ClusterRole holding
    what the model's operator reads and writes.

    Examples
    --------
    >>> [(o["kind"], o["metadata"]["name"]) for o in chart_objects()][:3]
    [('Namespace', 'rook-ceph'), ('CustomResourceDefinition', 'cephclusters.ceph.rook.io'), ('ServiceAccount', 'rook-ceph-system')]
    """
    labels = {"operator": "rook", "storage-backend": "ceph", "app.kubernetes.io/part-of": "rook-ceph-operator"}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        ceph_cluster_crd(),
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": {"name": SERVICE_ACCOUNT, "namespace": namespace, "labels": labels}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": OPERATOR_NAME, "labels": labels}, "rules": _operator_rules()},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": OPERATOR_NAME, "labels": labels},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": OPERATOR_NAME},
         "subjects": [{"kind": "ServiceAccount", "name": SERVICE_ACCOUNT, "namespace": namespace}]},
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": OPERATOR_NAME, "namespace": namespace, "labels": labels},
         "spec": {"replicas": 1, "strategy": {"type": "Recreate"},
                  "selector": {"matchLabels": {"app": OPERATOR_NAME}},
                  "template": {"metadata": {"labels": {"app": OPERATOR_NAME}},
                               "spec": {"serviceAccountName": SERVICE_ACCOUNT,
                                        "containers": [{"name": OPERATOR_NAME, "image": ROOK_IMAGE,
                                                        "args": ["ceph", "operator"]}]}}}},
    ]


def node_devices(node: dict) -> list[str]:
    """The raw devices a node has: its :data:`DEVICES_ANNOTATION`, comma-separated (empty: none).

    Examples
    --------
    >>> node_devices({"metadata": {"annotations": {"kubenotes.io/ceph-devices": "sdb, sdc"}}})
    ['sdb', 'sdc']
    >>> node_devices({"metadata": {"name": "n"}})
    []
    """
    text = ((node.get("metadata") or {}).get("annotations") or {}).get(DEVICES_ANNOTATION, "")
    return [d.strip() for d in text.split(",") if d.strip()]


def desired_osds(spec: dict, nodes: list[dict]) -> list[tuple[str, str]]:
    """``(node, device)`` pairs that get an OSD: devices a node has and the CephCluster's ``storage`` selects.

    Parameters
    ----------
    spec : dict
        The CephCluster's ``spec``.
    nodes : list of dict
        The cluster's Nodes.

    Returns
    -------
    list of tuple of str
        In node-name order, then the device order of the node's annotation.

    Examples
    --------
    >>> nodes = [{"metadata": {"name": "w1", "annotations": {"kubenotes.io/ceph-devices": "sdb,sdc"}}},
    ...          {"metadata": {"name": "w2"}}]
    >>> desired_osds({"storage": {"useAllNodes": True, "useAllDevices": True}}, nodes)
    [('w1', 'sdb'), ('w1', 'sdc')]
    >>> desired_osds({"storage": {"useAllNodes": False, "nodes": [{"name": "w1", "devices": [{"name": "sdc"}]},
    ...                                                          {"name": "w2", "devices": [{"name": "sdb"}]}]}}, nodes)
    [('w1', 'sdc')]
    """
    storage = spec.get("storage") or {}
    has = {n["metadata"]["name"]: node_devices(n) for n in nodes}
    wanted: dict[str, set[str] | None] = {}  # node -> device names, None: all its devices
    if storage.get("useAllNodes"):
        names = {d.get("name") for d in storage.get("devices") or ()}
        for n in has:
            wanted[n] = None if storage.get("useAllDevices") else names
    else:
        for entry in storage.get("nodes") or ():
            names = {d.get("name") for d in entry.get("devices") or ()}
            all_devices = entry.get("useAllDevices", storage.get("useAllDevices") if not names else False)
            wanted[entry.get("name", "")] = None if all_devices else names
    return [(n, d) for n in sorted(has) if n in wanted for d in has[n] if wanted[n] is None or d in wanted[n]]


@dataclass
class _ClusterState:
    """What Rook's ``mon.Cluster`` keeps in memory for one CephCluster."""

    mons: dict[str, str] = field(default_factory=dict)  # mon -> node
    mon_ips: dict[str, str] = field(default_factory=dict)
    max_mon_id: int = -1
    out_since: dict[str, float] = field(default_factory=dict)  # monTimeoutList
    out_of_quorum: set[str] = field(default_factory=set)
    retries_before_node_drain_failover: int = 1
    failing: str | None = None  # the mon being replaced (removed once its replacement is in quorum)
    osds: dict[tuple[str, str], int] = field(default_factory=dict)
    ready: bool = False
    checking: bool = False


class RookCephOperator(Controller):
    """Rook's CephCluster controller and mon health checker, on the virtual clock.

    Constructing it installs the chart (:func:`chart_objects`) as
    ``kubernetes-admin`` would with Helm; the operator then runs as
    ``system:serviceaccount:rook-ceph:rook-ceph-system`` with its own
    informers (CephClusters, Pods, Nodes, Deployments, Services), as its own
    process does upstream.

    Parameters
    ----------
    ctx : ControllerContext

    Attributes
    ----------
    log : list of tuple(float, str)
        ``(virtual seconds, line)``: the operator's log, worded as Rook's ``op-mon`` lines.

    See Also
    --------
    kubenotes.operators.OPERATORS : enable it in a Scenario with ``spec.cluster.operators: [rook-ceph-operator]``.

    Examples
    --------
    >>> from kubenotes.sim import Cluster
    >>> nodes = "".join(f'''
    ... ---
    ... apiVersion: v1
    ... kind: Node
    ... metadata: {{name: w{i}, labels: {{kubernetes.io/hostname: w{i}}}, annotations: {{kubenotes.io/ceph-devices: sdb}}}}
    ... status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}, capacity: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
    ... ''' for i in (1, 2, 3))
    >>> c = Cluster.from_manifests(nodes, kubelet="stand-in", extra_controllers={"rook": RookCephOperator})
    >>> _ = c.apply({"apiVersion": "ceph.rook.io/v1", "kind": "CephCluster",
    ...              "metadata": {"name": "rook-ceph", "namespace": "rook-ceph"},
    ...              "spec": {"cephVersion": {"image": "quay.io/ceph/ceph:v19.2.3"}, "dataDirHostPath": "/var/lib/rook",
    ...                       "storage": {"useAllNodes": True, "useAllDevices": True}}})
    >>> c.run(until=30)
    >>> cc = c.get("cephclusters", "rook-ceph", "rook-ceph")
    >>> cc["status"]["phase"], cc["status"]["ceph"]["health"]
    ('Ready', 'HEALTH_OK')
    >>> sorted(d["spec"]["template"]["spec"]["nodeSelector"][HOSTNAME_LABEL] for d in c.list("deployments", "rook-ceph")
    ...        if d["metadata"]["labels"].get("app") == "rook-ceph-mon")
    ['w1', 'w2', 'w3']
    """

    name = OPERATOR_NAME
    service_account = SERVICE_ACCOUNT

    def __init__(self, ctx: ControllerContext):
        install(ctx.server.client("helm", _ADMIN))
        user = UserInfo(f"system:serviceaccount:{OPERATOR_NAMESPACE}:{SERVICE_ACCOUNT}",
                        groups=("system:serviceaccounts", f"system:serviceaccounts:{OPERATOR_NAMESPACE}",
                                "system:authenticated"))

        def make_client(component: str, _sa: str | None) -> Any:
            return ctx.server.client(component, user)

        informers = SharedInformerFactory(make_client(OPERATOR_NAME, None), ctx.env)
        self.log: list[tuple[float, str]] = []
        self._state: dict[str, _ClusterState] = {}
        super().__init__(dataclasses.replace(ctx, make_client=make_client, informers=informers))

    # ------------------------------------------------------------ wiring
    def setup(self) -> None:
        self.clusters = self.informers.informer_for("cephclusters")
        self.clusters.add_event_handler(on_add=self.enqueue, on_update=lambda old, new: self.enqueue(new),
                                        on_delete=self._cluster_deleted)
        self.pods = self.informers.informer_for("pods")
        self.pods.add_event_handler(on_add=self._pod_changed, on_update=lambda old, new: self._pod_changed(new),
                                    on_delete=self._pod_changed)
        self.nodes = self.informers.informer_for("nodes")
        self.deployments = self.informers.informer_for("deployments")
        self.services = self.informers.informer_for("services")

    def start(self) -> None:
        self.informers.start()
        super().start()

    def _cluster_deleted(self, obj: Any) -> None:
        obj = getattr(obj, "obj", obj)
        self._state.pop(key_of(obj), None)

    def _pod_changed(self, pod: Any) -> None:
        pod = getattr(pod, "obj", pod)
        md = pod.get("metadata") or {}
        if (md.get("labels") or {}).get("app") in ("rook-ceph-mon", "rook-ceph-osd"):
            for cc in self.clusters.lister.list(md.get("namespace")):
                self.enqueue(cc)

    def _log(self, line: str) -> None:
        self.log.append((float(self.env.now), line))

    # ------------------------------------------------------------ settings from the CephCluster
    @staticmethod
    def mon_count(cluster: dict) -> int:
        """``spec.mon.count``, or :data:`DEFAULT_MON_COUNT` when unset or 0 (as Rook's cluster validation)."""
        return int(((cluster.get("spec") or {}).get("mon") or {}).get("count") or DEFAULT_MON_COUNT)

    @staticmethod
    def _mon_health(cluster: dict) -> dict:
        return (((cluster.get("spec") or {}).get("healthCheck") or {}).get("daemonHealth") or {}).get("mon") or {}

    def health_check_interval_seconds(self, cluster: dict) -> float:
        """``healthCheck.daemonHealth.mon.interval`` in seconds (default 45)."""
        v = self._mon_health(cluster).get("interval")
        return parse_go_duration(v) if v else HEALTH_CHECK_INTERVAL_SECONDS

    def mon_out_timeout_seconds(self, cluster: dict) -> float:
        """``healthCheck.daemonHealth.mon.timeout`` in seconds (default 600; 0: never fail over)."""
        v = self._mon_health(cluster).get("timeout")
        return parse_go_duration(v) if v not in (None, "") else MON_OUT_TIMEOUT_SECONDS

    # ------------------------------------------------------------ reading the cluster
    def _mon_pods(self, namespace: str, mon: str) -> list[dict]:
        return [p for p in self.pods.lister.list(namespace, f"app=rook-ceph-mon,mon={mon}")
                if not is_pod_terminating(p)]

    def mon_in_quorum(self, namespace: str, mon: str) -> bool:
        """The model's ``quorum_status``: a pod of the mon is Running and Ready."""
        return any((p.get("status") or {}).get("phase") == "Running" and is_pod_ready(p)
                   for p in self._mon_pods(namespace, mon))

    def quorum(self, namespace: str, name: str) -> list[str]:
        """The mons of CephCluster ``namespace/name`` that are in quorum, by name."""
        st = self._state.get(f"{namespace}/{name}")
        return [] if st is None else [m for m in sorted(st.mons) if self.mon_in_quorum(namespace, m)]

    def _mon_scheduled(self, namespace: str, mon: str) -> bool:
        return any((p.get("spec") or {}).get("nodeName") for p in self._mon_pods(namespace, mon))

    def _placeable_nodes(self) -> list[dict]:
        out = []
        for n in self.nodes.lister.list():
            ready = get_node_condition(n.get("status"), "Ready")
            taints = (n.get("spec") or {}).get("taints") or ()
            if ready is None or ready.get("status") != "True" or (n.get("spec") or {}).get("unschedulable"):
                continue
            if any(t.get("effect") in ("NoSchedule", "NoExecute") for t in taints):
                continue
            out.append(n)
        return sorted(out, key=lambda n: n["metadata"]["name"])

    def _pick_node(self, cluster: dict, st: _ClusterState) -> str | None:
        allow_multiple = bool(((cluster.get("spec") or {}).get("mon") or {}).get("allowMultiplePerNode"))
        used = [n for m, n in st.mons.items()]
        nodes = [n["metadata"]["name"] for n in self._placeable_nodes()]
        free = [n for n in nodes if n not in used]
        if free:
            return free[0]
        if allow_multiple and nodes:
            return min(nodes, key=lambda n: (used.count(n), n))
        return None

    # ------------------------------------------------------------ objects
    def _labels(self, ns: str, daemon: str, daemon_id: str) -> dict:
        return {"app": f"rook-ceph-{daemon}", "app.kubernetes.io/name": f"ceph-{daemon}",
                "app.kubernetes.io/instance": daemon_id, "app.kubernetes.io/part-of": ns,
                "app.kubernetes.io/managed-by": OPERATOR_NAME, "ceph_daemon_type": daemon,
                "ceph_daemon_id": daemon_id, "rook_cluster": ns}

    def _owned(self, obj: dict, cluster: dict) -> dict:
        obj["metadata"]["ownerReferences"] = [new_controller_ref(cluster, f"{GROUP}/{VERSION}", "CephCluster")]
        return obj

    def _pinned_deployment(self, cluster: dict, name: str, labels: dict, selector: dict, node: str,
                           container: dict) -> dict:
        ns = cluster["metadata"]["namespace"]
        node_obj = self.nodes.lister.get(None, node) or {"metadata": {}}
        host = ((node_obj["metadata"].get("labels") or {}).get(HOSTNAME_LABEL)) or node
        return self._owned({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"replicas": 1, "strategy": {"type": "Recreate"}, "selector": {"matchLabels": selector},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"nodeSelector": {HOSTNAME_LABEL: host}, "containers": [container]}}},
        }, cluster)

    def _image(self, cluster: dict) -> str:
        return (((cluster.get("spec") or {}).get("cephVersion") or {}).get("image")) or DEFAULT_CEPH_IMAGE

    def _start_mon(self, cluster: dict, st: _ClusterState, mon: str, node: str) -> None:
        """Service then Deployment of one mon (``startMon``): the Service's clusterIP is the mon's identity."""
        ns = cluster["metadata"]["namespace"]
        name = f"rook-ceph-mon-{mon}"
        labels = {**self._labels(ns, "mon", mon), "mon": mon, "mon_cluster": ns}
        selector = {"app": "rook-ceph-mon", "ceph_daemon_id": mon, "mon": mon, "mon_cluster": ns, "rook_cluster": ns}
        svc = self.services.lister.get(ns, name)
        if svc is None:
            svc = self.client.create("services", self._owned({
                "apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns, "labels": labels},
                "spec": {"selector": selector, "ports": [
                    {"name": "tcp-msgr1", "port": MON_PORT, "targetPort": MON_PORT, "protocol": "TCP"},
                    {"name": "tcp-msgr2", "port": MSGR2_PORT, "targetPort": MSGR2_PORT, "protocol": "TCP"}]},
            }, cluster), ns)
        ip = (svc.get("spec") or {}).get("clusterIP", "")
        st.mon_ips[mon] = ip
        if self.deployments.lister.get(ns, name) is None:
            container = {"name": "mon", "image": self._image(cluster), "command": ["ceph-mon"],
                         "args": [f"--id={mon}", "--foreground", f"--public-addr={ip}",
                                  f"--mon-data=/var/lib/ceph/mon/ceph-{mon}"],
                         "ports": [{"name": "tcp-msgr1", "containerPort": MON_PORT, "protocol": "TCP"},
                                   {"name": "tcp-msgr2", "containerPort": MSGR2_PORT, "protocol": "TCP"}]}
            self.client.create("deployments", self._pinned_deployment(cluster, name, labels, selector, node,
                                                                      container), ns)

    def _save_mon_config(self, cluster: dict, st: _ClusterState) -> None:
        """Write ``rook-ceph-mon-endpoints`` (``saveMonConfig``) when it changed."""
        ns = cluster["metadata"]["namespace"]
        mapping = {"node": {m: {"Name": n, "Hostname": n} for m, n in sorted(st.mons.items())}}
        data = {"data": ",".join(f"{m}={st.mon_ips.get(m, '')}:{MON_PORT}" for m in sorted(st.mons)),
                "mapping": json.dumps(mapping, sort_keys=True, separators=(",", ":")),
                "maxMonId": str(st.max_mon_id), "outOfQuorum": ",".join(sorted(st.out_of_quorum))}
        try:
            cm = self.client.get("configmaps", MON_ENDPOINTS_CONFIGMAP, ns)
        except ApiError as e:
            if e.code != 404:
                raise
            self.client.create("configmaps", self._owned({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": MON_ENDPOINTS_CONFIGMAP, "namespace": ns}, "data": data}, cluster), ns)
            return
        if cm.get("data") != data:
            cm["data"] = data
            self.client.update("configmaps", cm, ns)

    def _ensure_csi(self, cluster: dict) -> None:
        """Register the RBD CSI driver and create the StorageClass (the driver itself is a stub)."""
        ns = cluster["metadata"]["namespace"]
        for resource, obj in (
            ("csidrivers", {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                            "metadata": {"name": RBD_DRIVER_NAME},
                            "spec": {"attachRequired": True, "podInfoOnMount": False, "fsGroupPolicy": "File"}}),
            ("storageclasses", {
                "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": STORAGE_CLASS_NAME},
                "provisioner": RBD_DRIVER_NAME, "reclaimPolicy": "Delete", "allowVolumeExpansion": True,
                "volumeBindingMode": "Immediate",
                "parameters": {"clusterID": ns, "pool": "replicapool", "imageFormat": "2", "imageFeatures": "layering",
                               "csi.storage.k8s.io/provisioner-secret-name": "rook-csi-rbd-provisioner",
                               "csi.storage.k8s.io/provisioner-secret-namespace": ns,
                               "csi.storage.k8s.io/controller-expand-secret-name": "rook-csi-rbd-provisioner",
                               "csi.storage.k8s.io/controller-expand-secret-namespace": ns,
                               "csi.storage.k8s.io/node-stage-secret-name": "rook-csi-rbd-node",
                               "csi.storage.k8s.io/node-stage-secret-namespace": ns,
                               "csi.storage.k8s.io/fstype": "ext4"}}),
        ):
            try:
                self.client.create(resource, obj)
            except ApiError as e:
                if e.code != 409:
                    raise

    def _ensure_osds(self, cluster: dict, st: _ClusterState) -> None:
        ns = cluster["metadata"]["namespace"]
        for node, device in desired_osds(cluster.get("spec") or {}, self.nodes.lister.list()):
            if (node, device) not in st.osds:
                st.osds[(node, device)] = len(st.osds)
            osd = str(st.osds[(node, device)])
            name = f"rook-ceph-osd-{osd}"
            if self.deployments.lister.get(ns, name) is not None:
                continue
            labels = {**self._labels(ns, "osd", osd), "osd": osd, "ceph-osd-id": osd,
                      "topology-location-host": node, "device": device}
            selector = {"app": "rook-ceph-osd", "ceph-osd-id": osd, "rook_cluster": ns}
            container = {"name": "osd", "image": self._image(cluster), "command": ["ceph-osd"],
                         "args": [f"--id={osd}", "--foreground"],
                         "env": [{"name": "ROOK_BLOCK_PATH", "value": f"/dev/{device}"}]}
            self.client.create("deployments", self._pinned_deployment(cluster, name, labels, selector, node,
                                                                      container), ns)

    # ------------------------------------------------------------ status
    def _ceph_health(self, ns: str, st: _ClusterState) -> dict:
        """``status.ceph`` as Rook copies it from ``ceph status``: health and details (``ceph health detail``)."""
        inq = [m for m in sorted(st.mons) if self.mon_in_quorum(ns, m)]
        details: dict[str, dict] = {}
        health = "HEALTH_OK"
        down = len(st.mons) - len(inq)
        if down and 2 * len(inq) > len(st.mons):
            health = "HEALTH_WARN"
            details["MON_DOWN"] = {"message": f"{down}/{len(st.mons)} mons down, quorum {','.join(inq)}",
                                   "severity": "HEALTH_WARN"}
        elif down:
            health = "HEALTH_ERR"
            details["MON_DOWN"] = {"message": f"{down}/{len(st.mons)} mons down, no quorum",
                                   "severity": "HEALTH_ERR"}
        osds_down = sum(1 for (_n, _d), i in st.osds.items() if not any(
            (p.get("status") or {}).get("phase") == "Running" and is_pod_ready(p)
            for p in self.pods.lister.list(ns, f"app=rook-ceph-osd,ceph-osd-id={i}") if not is_pod_terminating(p)))
        if osds_down and health == "HEALTH_OK":
            health = "HEALTH_WARN"
        if osds_down:
            details["OSD_DOWN"] = {"message": f"{osds_down} osds down", "severity": "HEALTH_WARN"}
        return {"health": health, **({"details": details} if details else {})}

    def _write_status(self, cluster: dict, st: _ClusterState, ready: bool) -> dict:
        ns = cluster["metadata"]["namespace"]
        old = cluster.get("status") or {}
        now = self.client.server.timestamp()
        progressing = {"type": "Progressing", "status": "False" if ready else "True", "reason": "ClusterProgressing",
                       "message": "Configuring the Ceph cluster"}
        conds = [progressing]
        if ready or st.ready:
            conds.append({"type": "Ready", "status": "True", "reason": "ClusterCreated",
                          "message": "Cluster created successfully"})
        prev = {c.get("type"): c for c in old.get("conditions") or ()}
        for c in conds:
            p = prev.get(c["type"])
            same = p is not None and all(p.get(k) == c[k] for k in ("status", "reason", "message"))
            c["lastHeartbeatTime"] = p.get("lastHeartbeatTime", now) if same else now
            c["lastTransitionTime"] = p.get("lastTransitionTime", now) if same else now
        done = ready or st.ready
        status = {"phase": "Ready" if done else "Progressing",
                  "state": "Created" if done else "Creating",
                  "message": "Cluster created successfully" if done else "Configuring the Ceph cluster",
                  "conditions": conds, "ceph": self._ceph_health(ns, st)}
        if status != old:
            cluster = dict(cluster, status=status)
            cluster = self.client.update_status("cephclusters", cluster, ns)
        return cluster

    # ------------------------------------------------------------ reconcile
    def reconcile(self, key: str) -> Result | None:
        """Reconcile one CephCluster (mons, OSDs, CSI, status), or run its mon health check (``mon-health:`` keys)."""
        if key.startswith(_HEALTH):
            self.check_health(key[len(_HEALTH):])
            return None
        ns, name = split_key(key)
        cluster = self.clusters.lister.get(ns, name)
        if cluster is None:
            self._state.pop(key, None)
            return None
        st = self._state.setdefault(key, _ClusterState())
        desired = self.mon_count(cluster)
        # mons first: start the missing ones, one node each (startMons)
        if st.failing is None and len(st.mons) < desired:
            new = []
            while len(st.mons) < desired:
                node = self._pick_node(cluster, st)
                if node is None:
                    break
                st.max_mon_id += 1
                st.mons[mon_name(st.max_mon_id)] = node
                new.append(mon_name(st.max_mon_id))
            for mon in new:
                self._start_mon(cluster, st, mon, st.mons[mon])
            if new:
                self._log(f"waiting for mon quorum with {sorted(st.mons)}")
                self._save_mon_config(cluster, st)
        for mon in sorted(st.mons):
            if mon not in st.mon_ips:
                self._start_mon(cluster, st, mon, st.mons[mon])
        if st.failing is not None:
            self._finish_failover(cluster, st)
        inq = [m for m in sorted(st.mons) if self.mon_in_quorum(ns, m)]
        has_quorum = 2 * len(inq) > len(st.mons) > 0
        ready = False
        if has_quorum:
            self._ensure_osds(cluster, st)
            self._ensure_csi(cluster)
            ready = len(inq) == len(st.mons) == desired or st.ready
        first = ready and not st.ready
        cluster = self._write_status(cluster, st, ready)
        if first:
            st.ready = True
            self.event(cluster, "Normal", REASON_RECONCILE_SUCCEEDED, f'successfully configured CephCluster "{key}"')
            self._start_health_checker(key)
        return None

    def _start_health_checker(self, key: str) -> None:
        """``HealthChecker.Check``: every interval, a ``mon-health:`` key into the queue, while the cluster exists."""
        st = self._state[key]
        if st.checking:
            return
        st.checking = True

        def loop() -> Generator:
            while True:
                ns, name = split_key(key)
                cluster = self.clusters.lister.get(ns, name)
                if cluster is None or self._state.get(key) is not st:
                    self._log(f'stopping monitoring of mons in namespace "{ns}"')
                    return
                yield self.env.timeout(self.health_check_interval_seconds(cluster))
                self.queue.add(_HEALTH + key)

        self.env.process(loop())

    # ------------------------------------------------------------ mon health (health.go)
    def check_health(self, key: str) -> None:
        """One mon health check of CephCluster ``key`` (``checkHealth``): note, wait, fail over one mon at most."""
        ns, name = split_key(key)
        cluster = self.clusters.lister.get(ns, name)
        st = self._state.get(key)
        if cluster is None or st is None:
            return
        if self._mon_health(cluster).get("disabled"):
            return
        now = float(self.env.now)
        timeout = self.mon_out_timeout_seconds(cluster)
        desired = self.mon_count(cluster)
        all_in = True
        for mon in sorted(st.mons):
            if mon == st.failing:
                continue
            if self.mon_in_quorum(ns, mon):
                if mon in st.out_of_quorum:
                    st.out_of_quorum.discard(mon)
                    self._log(f'marking mon "{mon}" back in quorum')
                if st.out_since.pop(mon, None) is not None:
                    self._log(f'mon "{mon}" is back in quorum, removed from mon out timeout list')
                continue
            all_in = False
            if mon not in st.out_of_quorum:
                st.out_of_quorum.add(mon)
                self._log(f'marking mon "{mon}" out of quorum')
                self._save_mon_config(cluster, st)
            if timeout == 0:
                self._log(f'mon "{mon}" NOT found in quorum and health timeout is 0, mon will never fail over')
                continue
            since = st.out_since.setdefault(mon, now)
            if now - since <= timeout:
                line = (f'mon "{mon}" not found in quorum, waiting for timeout '
                        f"({int(timeout - (now - since))} seconds left) before failover")
                self._log(line)
                self.event(cluster, "Warning", REASON_MON_OUT_OF_QUORUM, line)
                continue
            if not self._mon_scheduled(ns, mon) and st.retries_before_node_drain_failover > 0:
                line = (f'mon "{mon}" NOT found in quorum after timeout. Mon pod is not scheduled. '
                        f"Retrying with a timeout of {timeout:.2f} seconds before failover")
                self._log(line)
                self.event(cluster, "Warning", REASON_MON_OUT_OF_QUORUM, line)
                del st.out_since[mon]
                st.retries_before_node_drain_failover -= 1
                self._write_status(cluster, st, st.ready)
                return
            st.retries_before_node_drain_failover = 1
            line = f'mon "{mon}" NOT found in quorum and timeout exceeded, mon will be failed over'
            self._log(line)
            self.event(cluster, "Warning", REASON_MON_FAILOVER, line)
            self._fail_mon(cluster, st, mon, desired)
            self._write_status(cluster, st, st.ready)
            return
        if all_in and st.out_of_quorum:
            st.out_of_quorum.clear()
            self._save_mon_config(cluster, st)
        if st.failing is None and len(st.mons) < desired:
            self._log(f"adding mons. currently {len(st.mons)} mons are in quorum and the desired count is {desired}.")
            self.enqueue(key)
        self._write_status(cluster, st, st.ready)

    def _fail_mon(self, cluster: dict, st: _ClusterState, mon: str, desired: int) -> None:
        """``failMon``/``failoverMon``: scale the failed mon to 0 and start the next one on another node."""
        ns = cluster["metadata"]["namespace"]
        if len(st.mons) > desired:
            self._remove_mon(cluster, st, mon)
            return
        line = f'Failing over monitor "{mon}"'
        self._log(line)
        node = self._pick_node(cluster, st)
        if node is None:
            self._log(f'failed to failover mon "{mon}". failed to place new mon on a node')
            return
        new = mon_name(st.max_mon_id + 1)
        self._log(f'scaling the mon "{mon}" deployment to replica 0')
        self.client.patch("deployments", f"rook-ceph-mon-{mon}", {"spec": {"replicas": 0}}, ns)
        self._log(f'starting new mon "{new}" on node "{node}"')
        self.event(cluster, "Normal", REASON_MON_FAILOVER, f'{line}: starting new mon "{new}" on node "{node}"')
        st.max_mon_id += 1
        st.mons[new] = node
        st.failing = mon
        self._start_mon(cluster, st, new, node)
        self._save_mon_config(cluster, st)

    def _finish_failover(self, cluster: dict, st: _ClusterState) -> None:
        """Once the new mon is in quorum, remove the failed one (the end of ``failoverMon``)."""
        newest = mon_name(st.max_mon_id)
        if st.failing is not None and self.mon_in_quorum(cluster["metadata"]["namespace"], newest):
            failed, st.failing = st.failing, None
            self._remove_mon(cluster, st, failed)

    def _remove_mon(self, cluster: dict, st: _ClusterState, mon: str) -> None:
        """``removeMon``: out of the monmap and the endpoints, then its Service and Deployment deleted."""
        ns = cluster["metadata"]["namespace"]
        self._log(f"ensuring removal of unhealthy monitor {mon}")
        self._log(f"removed monitor {mon}")
        st.mons.pop(mon, None)
        st.mon_ips.pop(mon, None)
        st.out_since.pop(mon, None)
        st.out_of_quorum.discard(mon)
        self._save_mon_config(cluster, st)
        for resource in ("services", "deployments"):
            try:
                self.client.delete(resource, f"rook-ceph-mon-{mon}", ns, propagation_policy="Foreground")
            except ApiError as e:
                if e.code != 404:
                    raise
        self.event(cluster, "Normal", REASON_MON_REMOVED, f"removed monitor {mon}")


def install(client: Any, namespace: str = OPERATOR_NAMESPACE) -> None:
    """Apply :func:`chart_objects` through ``client`` (``helm install``); objects already there are kept.

    Raises
    ------
    ApiError
        When the API server refuses an object for another reason than AlreadyExists.
    """
    for obj in chart_objects(namespace):
        ri = resource_for_kind(obj["kind"], obj["apiVersion"])
        try:
            client.create(ri.resource, obj, obj["metadata"].get("namespace"))
        except ApiError as e:
            if e.code != 409:
                raise
