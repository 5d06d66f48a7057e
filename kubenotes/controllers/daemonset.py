"""The DaemonSet controller: one pod on every eligible node, replaced node by node on an update.

For each node the controller asks :func:`node_should_run_daemon_pod`: does
the pod's ``nodeName``, ``nodeSelector`` and required node affinity fit, and
do its tolerations (plus the ones every DaemonSet pod gets,
:func:`add_or_update_daemon_pod_tolerations`) tolerate the node's
``NoSchedule``/``NoExecute`` taints? It creates a pod (``<ds>-<5 random>``)
on each node that should run one and has none, pinned to the node with
``affinity.nodeAffinity`` ``matchFields metadata.name In [<node>]`` so the
scheduler places it there, and deletes pods from nodes that may no longer run
them, failed pods and duplicates. ``RollingUpdate`` replaces old pods at most
``maxUnavailable`` (default 1) at a time, or with ``maxSurge`` starts the new
pod before deleting the old one; ``OnDelete`` waits for pods to be deleted.
Each template is snapshotted in a ``ControllerRevision`` ``<ds>-<hash>`` and
its pods carry ``controller-revision-hash: <hash>``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/daemon/daemon_controller.go (syncDaemonSet, manage, podsShouldBeOnNode, NodeShouldRunDaemonPod, syncNodes, updateDaemonSetStatus)
kubernetes/kubernetes@v1.34.0 pkg/controller/daemon/update.go (rollingUpdate, constructHistory, cleanupHistory, findUpdatedPodsOnNode)
kubernetes/kubernetes@v1.34.0 pkg/controller/daemon/util/daemonset_util.go (AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity, CreatePodTemplate, IsPodUpdated, UnavailableCount, SurgeCount)
https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.selectors import RequiredNodeAffinity
from kubenotes.api.taints import find_matching_untolerated_taint, match_toleration
from kubenotes.apiserver.bootstrap_policy import (
    APPS_GROUP,
    EXTENSIONS_GROUP,
    LEGACY_GROUP,
    READ,
    ControllerPolicy,
    events_rule,
    policy_rule,
)
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.meta import get_controller_of, new_controller_ref
from kubenotes.controllers.controller_utils import (
    ControllerExpectations,
    resolve_controller_ref,
)
from kubenotes.api.podutil import is_pod_ready
from kubenotes.controllers.podutil import is_pod_available_inclusive, timestamp_seconds, unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, key_of, split_key
from kubenotes.controllers.workload_util import (
    CACHE_CATCH_UP_SECONDS,
    CONTROLLER_REVISION_HASH_LABEL,
    WrittenVersions,
    claim_pods,
    controller_revision_name,
    create_pod,
    delete_pod,
    hash_revision_data,
    int_or_percent,
    label_selector,
    pod_from_template,
    template_patch,
)

__all__ = ["DaemonSetsController", "node_should_run_daemon_pod", "add_or_update_daemon_pod_tolerations",
           "replace_daemon_set_pod_node_name_node_affinity", "new_pod", "DAEMONSET_TOLERATIONS",
           "POD_TEMPLATE_GENERATION_LABEL", "BURST_REPLICAS", "FAILED_DAEMON_POD_REASON", "SELECTING_ALL_REASON",
           "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:daemon-set-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("daemon-set-controller")``, ``cmd/kube-controller-manager/app/apps.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("daemon-set-controller", (
    policy_rule(READ, (EXTENSIONS_GROUP, APPS_GROUP), ("daemonsets",)),
    policy_rule(("update",), (EXTENSIONS_GROUP, APPS_GROUP), ("daemonsets/status",)),
    policy_rule(("update",), (EXTENSIONS_GROUP, APPS_GROUP), ("daemonsets/finalizers",)),
    policy_rule(("list", "watch"), (LEGACY_GROUP,), ("nodes",)),
    policy_rule(("list", "watch", "create", "delete", "patch"), (LEGACY_GROUP,), ("pods",)),
    policy_rule(("create",), (LEGACY_GROUP,), ("pods/binding",)),
    policy_rule(("get", "list", "watch", "create", "delete", "update", "patch"), (APPS_GROUP,),
                ("controllerrevisions",)),
    events_rule(),
))

#: ``extensions.DaemonSetTemplateGenerationKey``.
POD_TEMPLATE_GENERATION_LABEL = "pod-template-generation"
#: The annotation the API server keeps the template generation in.
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
#: ``BurstReplicas``: pods created or deleted per sync at most.
BURST_REPLICAS = 250
FAILED_DAEMON_POD_REASON = "FailedDaemonPod"
SELECTING_ALL_REASON = "SelectingAll"
#: Failed-pod back-off per node (``failedPodsBackoff``: 1 s doubling to 15 min).
FAILED_POD_BACKOFF_SECONDS, MAX_FAILED_POD_BACKOFF_SECONDS = 1.0, 900.0

#: ``AddOrUpdateDaemonPodTolerations``: (key, effect) every DaemonSet pod tolerates (operator Exists, no seconds).
DAEMONSET_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_NETWORK_UNAVAILABLE = ("node.kubernetes.io/network-unavailable", "NoSchedule")


def add_or_update_daemon_pod_tolerations(spec: dict) -> dict:
    """Add the DaemonSet tolerations to a pod spec (in place; returned for chaining).

    A toleration that matches one of them (same key/operator/value/effect) is
    replaced by it (so ``tolerationSeconds`` goes), as
    ``AddOrUpdateTolerationInPodSpec`` does.

    Examples
    --------
    >>> spec = add_or_update_daemon_pod_tolerations({"hostNetwork": True})
    >>> len(spec["tolerations"]), spec["tolerations"][0]
    (7, {'key': 'node.kubernetes.io/not-ready', 'operator': 'Exists', 'effect': 'NoExecute'})
    """
    wanted = list(DAEMONSET_TOLERATIONS) + ([_NETWORK_UNAVAILABLE] if spec.get("hostNetwork") else [])
    tols = list(spec.get("tolerations") or [])
    for key, effect in wanted:
        t = {"key": key, "operator": "Exists", "effect": effect}
        out, updated = [], False
        for cur in tols:
            if match_toleration(cur, t):
                out.append(t)
                updated = True
            else:
                out.append(cur)
        if not updated:
            out.append(t)
        tols = out
    spec["tolerations"] = tols
    return spec


def replace_daemon_set_pod_node_name_node_affinity(affinity: dict | None, node_name: str) -> dict:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity``: required node affinity = ``metadata.name In [node]``.

    Examples
    --------
    >>> aff = replace_daemon_set_pod_node_name_node_affinity(None, "n1")
    >>> aff["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    [{'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': ['n1']}]}]
    """
    aff = deep_copy(affinity) if affinity else {}
    na = aff.setdefault("nodeAffinity", {})
    na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
    return aff


def new_pod(ds: dict, node_name: str) -> dict:
    """``NewPod``: the DaemonSet's pod as it would be on ``node_name`` (for the predicates)."""
    tmpl = (ds.get("spec") or {}).get("template") or {}
    spec = deep_copy(tmpl.get("spec") or {})
    spec["nodeName"] = node_name
    add_or_update_daemon_pod_tolerations(spec)
    return {"metadata": deep_copy(tmpl.get("metadata") or {}), "spec": spec}


def node_should_run_daemon_pod(node: dict, ds: dict) -> tuple[bool, bool]:
    """``NodeShouldRunDaemonPod``: ``(shouldRun, shouldContinueRunning)``.

    A node that does not match ``nodeName``, ``nodeSelector`` or required
    node affinity gets ``(False, False)``. An untolerated ``NoSchedule`` or
    ``NoExecute`` taint stops new pods; an existing pod keeps running unless
    a ``NoExecute`` taint is untolerated.

    Examples
    --------
    >>> ds = {"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}}
    >>> node = {"metadata": {"name": "n1"}, "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]}}
    >>> node_should_run_daemon_pod(node, ds)
    (False, True)
    >>> node_should_run_daemon_pod({"metadata": {"name": "n1"}, "spec": {"unschedulable": True}}, ds)
    (True, True)
    """
    tmpl_spec = ((ds.get("spec") or {}).get("template") or {}).get("spec") or {}
    name = node["metadata"]["name"]
    if tmpl_spec.get("nodeName") not in (None, "", name):
        return False, False
    pod = new_pod(ds, name)
    if not RequiredNodeAffinity.from_pod(pod).match(node):
        return False, False
    taints = (node.get("spec") or {}).get("taints") or []
    tols = pod["spec"].get("tolerations") or []
    untolerated = find_matching_untolerated_taint(taints, tols,
                                                  lambda t: t.get("effect") in ("NoSchedule", "NoExecute"))
    if untolerated is not None:
        no_exec = find_matching_untolerated_taint(taints, tols, lambda t: t.get("effect") == "NoExecute")
        return False, no_exec is None
    return True, True


def _target_node_name(pod: dict) -> str:
    """``GetTargetNodeName``: ``spec.nodeName``, else the single ``metadata.name`` of the node affinity."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return spec["nodeName"]
    req = ((((spec.get("affinity") or {}).get("nodeAffinity") or {})
            .get("requiredDuringSchedulingIgnoredDuringExecution")) or {})
    for term in req.get("nodeSelectorTerms") or []:
        for mf in term.get("matchFields") or []:
            if mf.get("key") == "metadata.name" and mf.get("operator") == "In" and len(mf.get("values") or []) == 1:
                return mf["values"][0]
    return ""


def _by_creation_and_phase(pod: dict) -> tuple:
    """``podByCreationTimestampAndPhase``: scheduled first, then oldest, then by name."""
    md = pod["metadata"]
    return (0 if (pod.get("spec") or {}).get("nodeName") else 1,
            timestamp_seconds(md["creationTimestamp"]) if md.get("creationTimestamp") else 0.0, md["name"])


class _Backoff:
    """``flowcontrol.Backoff`` for failed daemon pods, per (ds, node)."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[float, float]] = {}  # key -> (backoff, last update)

    def in_backoff_since_update(self, key: str, now: float) -> tuple[bool, float]:
        e = self.entries.get(key)
        if e is None:
            return False, 0.0
        return now - e[1] < e[0], e[0] - (now - e[1])

    def next(self, key: str, now: float) -> None:
        e = self.entries.get(key)
        if e is None or now - e[1] > 2 * MAX_FAILED_POD_BACKOFF_SECONDS:
            self.entries[key] = (FAILED_POD_BACKOFF_SECONDS, now)
        else:
            self.entries[key] = (min(e[0] * 2, MAX_FAILED_POD_BACKOFF_SECONDS), now)


class DaemonSetsController(Controller):
    """``daemon.DaemonSetsController``.

    Parameters
    ----------
    ctx : ControllerContext
        Clock, informers, client factory, flags (see :class:`~kubenotes.controllers.reconciler.ControllerContext`).

    Notes
    -----
    The template generation (``pod-template-generation``) is the
    ``deprecated.daemonset.template.generation`` annotation when present,
    else ``metadata.generation`` (the model's API server does not keep the
    annotation). Revision hashes are FNV-32a over sorted-key JSON (see
    :func:`~kubenotes.controllers.workload_util.hash_revision_data`), so they
    differ from a real cluster's. Node updates re-sync every DaemonSet rather
    than only those whose verdict changed.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/daemon/daemon_controller.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    ...         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    >>> ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default"},
    ...       "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {
    ...           "app": "agent"}}, "spec": {"containers": [{"name": "c", "image": "agent:1"}]}}}}
    >>> c = Cluster([node, ds], controllers=["daemonset-controller"], authorization=False)
    >>> c.run(until=10)
    >>> [p["spec"]["nodeName"] for p in c.list("pods", "default")]
    ['n1']
    """

    name = "daemonset-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        self.expectations = ControllerExpectations(lambda: float(self.env.now))
        self.written = WrittenVersions()
        self.failed_pods_backoff = _Backoff()
        self.dss = self.informers.informer_for("daemonsets")
        self.pods = self.informers.informer_for("pods")
        self.nodes = self.informers.informer_for("nodes")
        self.revisions = self.informers.informer_for("controllerrevisions")
        self.dss.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur),
                                   lambda o: self.enqueue(unwrap_deleted(o)))
        self.pods.add_event_handler(self._add_pod, self._update_pod, self._delete_pod)
        self.nodes.add_event_handler(lambda n: self._enqueue_all(), self._update_node, lambda n: self._enqueue_all())
        self.revisions.add_event_handler(self._revision_changed, lambda old, cur: self._revision_changed(cur),
                                         lambda o: self._revision_changed(unwrap_deleted(o)))

    # ------------------------------------------------------------ handlers
    def _enqueue_all(self) -> None:
        for ds in self.dss.lister.list():
            self.enqueue(ds)

    def _update_node(self, old: dict, cur: dict) -> None:
        """``updateNode``: only label, taint and condition changes matter."""
        if (old["metadata"].get("labels") != cur["metadata"].get("labels")
                or (old.get("spec") or {}).get("taints") != (cur.get("spec") or {}).get("taints")
                or (old.get("spec") or {}).get("unschedulable") != (cur.get("spec") or {}).get("unschedulable")):
            self._enqueue_all()

    def _ds_key_for(self, obj: dict) -> str | None:
        """The key of the DaemonSet controlling ``obj`` (a pod or ControllerRevision), or None."""
        ds = resolve_controller_ref(self.dss.lister, obj["metadata"].get("namespace", ""), get_controller_of(obj),
                                    "DaemonSet")
        return None if ds is None else key_of(ds)

    def _add_pod(self, pod: dict) -> None:
        key = self._ds_key_for(pod)
        if key is None:
            return
        if pod["metadata"].get("deletionTimestamp"):
            self.expectations.deletion_observed(key)
        else:
            self.expectations.creation_observed(key)
        self.enqueue(key)

    def _update_pod(self, old: dict, cur: dict) -> None:
        key = self._ds_key_for(cur) or self._ds_key_for(old)
        if key is None:
            return
        if cur["metadata"].get("deletionTimestamp") and not old["metadata"].get("deletionTimestamp"):
            self.expectations.deletion_observed(key)
        self.enqueue(key)
        ds = self.dss.lister.get(*split_key(key))
        mrs = int(((ds or {}).get("spec") or {}).get("minReadySeconds", 0) or 0)
        if mrs > 0 and is_pod_ready(cur) and not is_pod_ready(old):
            self.enqueue_after(key, mrs + 1)

    def _delete_pod(self, obj: Any) -> None:
        pod = unwrap_deleted(obj)
        key = self._ds_key_for(pod)
        if key is None:
            return
        if not pod["metadata"].get("deletionTimestamp"):
            self.expectations.deletion_observed(key)
        self.enqueue(key)

    def _revision_changed(self, rev: dict) -> None:
        key = self._ds_key_for(rev)
        if key is not None:
            self.enqueue(key)

    # ------------------------------------------------------------ helpers
    @staticmethod
    def _template_generation(ds: dict) -> str:
        ann = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
        return str(ann) if ann is not None else str(ds["metadata"].get("generation", 1))

    def _is_pod_updated(self, pod: dict, hash_: str, ds: dict) -> bool:
        """``IsPodUpdated``: the revision hash or the template generation matches."""
        labels = pod["metadata"].get("labels") or {}
        return (bool(hash_) and labels.get(CONTROLLER_REVISION_HASH_LABEL) == hash_) or \
            labels.get(POD_TEMPLATE_GENERATION_LABEL) == self._template_generation(ds)

    def _nodes_to_daemon_pods(self, ds: dict, include_deleted_terminal: bool = False) -> dict[str, list[dict]]:
        """``getNodesToDaemonPods``: claimed pods grouped by their (target) node."""
        sel = label_selector((ds.get("spec") or {}).get("selector"))
        pods = claim_pods(self.client, ds, "apps/v1", "DaemonSet", sel,
                          self.pods.lister.list(ds["metadata"]["namespace"]))
        out: dict[str, list[dict]] = {}
        for p in pods:
            phase = (p.get("status") or {}).get("phase")
            if not include_deleted_terminal and phase in ("Succeeded", "Failed") and \
                    p["metadata"].get("deletionTimestamp"):
                continue
            node = _target_node_name(p)
            if node:
                out.setdefault(node, []).append(p)
        return out

    # ------------------------------------------------------------ history
    def _construct_history(self, ds: dict) -> tuple[dict, list[dict]]:
        """``constructHistory``: the current ControllerRevision (created if new) and the old ones."""
        ns = ds["metadata"]["namespace"]
        uid = ds["metadata"]["uid"]
        revs = [r for r in self.revisions.lister.list(ns) if (get_controller_of(r) or {}).get("uid") == uid]
        template = (ds.get("spec") or {}).get("template") or {}
        collision = (ds.get("status") or {}).get("collisionCount")
        hash_ = hash_revision_data(template, collision)
        data = template_patch(template)
        max_rev = max((int(r.get("revision", 0)) for r in revs), default=0)
        cur, old = None, []
        for r in revs:
            if r.get("data") == data and cur is None:
                cur = r
            else:
                old.append(r)
        if cur is None:
            labels = dict((template.get("metadata") or {}).get("labels") or {})
            labels[CONTROLLER_REVISION_HASH_LABEL] = hash_
            rev = {"apiVersion": "apps/v1", "kind": "ControllerRevision",
                   "metadata": {"name": controller_revision_name(ds["metadata"]["name"], hash_), "namespace": ns,
                                "labels": labels, "ownerReferences": [new_controller_ref(ds, "apps/v1", "DaemonSet")]},
                   "data": data, "revision": max_rev + 1}
            if ds["metadata"].get("annotations"):
                rev["metadata"]["annotations"] = dict(ds["metadata"]["annotations"])
            try:
                cur = self.client.create("controllerrevisions", rev, ns)
            except ApiError as e:
                if e.code != 409:
                    raise
                cur = self.client.get("controllerrevisions", rev["metadata"]["name"], ns)
                if cur.get("data") != data:
                    st = deep_copy(ds)
                    st.setdefault("status", {})["collisionCount"] = int(collision or 0) + 1
                    self.written.note(key_of(ds), self.client.update_status("daemonsets", st, ns))
                    raise
        elif int(cur.get("revision", 0)) < max_rev:
            upd = deep_copy(cur)
            upd["revision"] = max_rev + 1
            cur = self.client.update("controllerrevisions", upd, ns)
        return cur, old

    def _cleanup_history(self, ds: dict, old: list[dict], nodes_to_pods: dict[str, list[dict]]) -> None:
        """``cleanupHistory``: delete the oldest unused revisions beyond ``revisionHistoryLimit`` (10)."""
        limit = int((ds.get("spec") or {}).get("revisionHistoryLimit", 10))
        to_kill = len(old) - limit
        if to_kill <= 0:
            return
        live = {(p["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL)
                for pods in nodes_to_pods.values() for p in pods}
        for r in sorted(old, key=lambda r: int(r.get("revision", 0))):
            if to_kill <= 0:
                break
            if (r["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL) in live:
                continue
            try:
                self.client.delete("controllerrevisions", r["metadata"]["name"], r["metadata"]["namespace"])
            except ApiError:
                continue
            to_kill -= 1

    # ------------------------------------------------------------ sync
    def reconcile(self, key: str) -> Result | None:
        """``syncDaemonSet``."""
        ns, name = split_key(key)
        ds = self.dss.lister.get(ns, name)
        if ds is None:
            self.expectations.delete_expectations(key)
            self.written.forget(key)
            return None
        if self.written.is_stale(key, ds):
            return Result(requeue_after_seconds=CACHE_CATCH_UP_SECONDS)
        nodes = sorted(self.nodes.lister.list(), key=lambda n: n["metadata"]["name"])
        sel = (ds.get("spec") or {}).get("selector")
        if sel is not None and label_selector(sel).is_empty():
            self.event(ds, "Warning", SELECTING_ALL_REASON,
                       "This daemon set is selecting all pods. A non-empty selector is required.")
            return None
        if ds["metadata"].get("deletionTimestamp"):
            return None
        cur, old = self._construct_history(ds)
        hash_ = (cur["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL, "")
        if not self.expectations.satisfied_expectations(key):
            return self._update_status(key, ds, nodes, hash_, False)
        err: ApiError | None = None
        try:
            self._manage(key, ds, nodes, hash_)
            if self.expectations.satisfied_expectations(key):
                strategy = ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type", "RollingUpdate")
                if strategy == "RollingUpdate":
                    self._rolling_update(key, ds, nodes, hash_)
            self._cleanup_history(ds, old, self._nodes_to_daemon_pods(ds, True))
        except ApiError as e:
            err = e
        res = self._update_status(key, ds, nodes, hash_, True)
        if err is not None:
            raise err
        return res

    def _manage(self, key: str, ds: dict, nodes: list[dict], hash_: str) -> None:
        """``manage``: which nodes need a pod and which pods must go."""
        node_pods = self._nodes_to_daemon_pods(ds)
        need: list[str] = []
        delete: list[dict] = []
        for node in nodes:
            n, d = self._pods_should_be_on_node(key, node, node_pods, ds, hash_)
            need += n
            delete += d
        names = {n["metadata"]["name"] for n in nodes}
        for node_name, pods in node_pods.items():  # getUnscheduledPodsWithoutNode
            if node_name in names:
                continue
            delete += [p for p in pods if not (p.get("spec") or {}).get("nodeName")
                       and not p["metadata"].get("deletionTimestamp")]
        self._sync_nodes(key, ds, delete, need, hash_)

    def _pods_should_be_on_node(self, key: str, node: dict, node_pods: dict[str, list[dict]], ds: dict,
                                hash_: str) -> tuple[list[str], list[dict]]:
        """``podsShouldBeOnNode``."""
        should_run, should_continue = node_should_run_daemon_pod(node, ds)
        name = node["metadata"]["name"]
        pods = node_pods.get(name)
        need: list[str] = []
        delete: list[dict] = []
        if should_run and not pods:
            need.append(name)
        elif should_continue and pods:
            running = []
            now = float(self.env.now)
            for p in pods:
                if p["metadata"].get("deletionTimestamp"):
                    continue
                phase = (p.get("status") or {}).get("phase")
                if phase == "Failed":
                    bkey = f"{ds['metadata']['uid']}/{ds['metadata'].get('generation', 1)}/{name}"
                    in_backoff, delay = self.failed_pods_backoff.in_backoff_since_update(bkey, now)
                    if in_backoff:
                        self.enqueue_after(key, delay)
                        continue
                    self.failed_pods_backoff.next(bkey, now)
                    self.event(ds, "Warning", FAILED_DAEMON_POD_REASON,
                               f"Found failed daemon pod {p['metadata']['namespace']}/{p['metadata']['name']} on "
                               f"node {name}, will try to kill it")
                    delete.append(p)
                elif phase == "Succeeded":
                    delete.append(p)
                else:
                    running.append(p)
            running.sort(key=_by_creation_and_phase)
            if not self._allows_surge(ds):
                delete += running[1:]
            else:
                oldest_new = oldest_old = None
                for p in running:
                    if (p["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL) == hash_:
                        if oldest_new is None:
                            oldest_new = p
                            continue
                    elif oldest_old is None:
                        oldest_old = p
                        continue
                    delete.append(p)
                if oldest_new is not None and oldest_old is not None:
                    mrs = float((ds.get("spec") or {}).get("minReadySeconds", 0) or 0)
                    if not is_pod_ready(oldest_old) or is_pod_available_inclusive(oldest_new, mrs, now):
                        delete.append(oldest_old)
        elif not should_continue and pods:
            delete += [p for p in pods if not p["metadata"].get("deletionTimestamp")]
        return need, delete

    @staticmethod
    def _allows_surge(ds: dict) -> bool:
        ru = (((ds.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate") or {})
        if ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type", "RollingUpdate") != "RollingUpdate":
            return False
        try:
            return int_or_percent(ru.get("maxSurge", 0), 1, True) != 0 if ru.get("maxSurge") is not None else False
        except ValueError:
            return False

    def _sync_nodes(self, key: str, ds: dict, delete: list[dict], need: list[str], hash_: str) -> None:
        """``syncNodes``: create pods pinned to nodes (slow start), delete the others."""
        need = need[:BURST_REPLICAS]
        delete = delete[:BURST_REPLICAS]
        self.expectations.set_expectations(key, len(need), len(delete))
        template = deep_copy((ds.get("spec") or {}).get("template") or {})
        extra = {POD_TEMPLATE_GENERATION_LABEL: self._template_generation(ds)}
        if hash_:
            extra[CONTROLLER_REVISION_HASH_LABEL] = hash_
        add_or_update_daemon_pod_tolerations(template.setdefault("spec", {}))
        errors: list[ApiError] = []
        pos, batch = 0, min(len(need), 1)
        while pos < len(need):
            for node in need[pos:pos + batch]:
                t = deep_copy(template)
                t["spec"]["affinity"] = replace_daemon_set_pod_node_name_node_affinity(t["spec"].get("affinity"),
                                                                                       node)
                pod = pod_from_template(t, ds, "apps/v1", "DaemonSet", generate_name=f"{ds['metadata']['name']}-",
                                        extra_labels=extra)
                try:
                    create_pod(self, ds, pod)
                except ApiError as e:
                    errors.append(e)
                    self.expectations.creation_observed(key)
            pos += batch
            if errors:
                for _ in need[pos:]:
                    self.expectations.creation_observed(key)
                break
            batch = min(2 * batch, len(need) - pos)
        for p in delete:
            try:
                delete_pod(self, ds, p)
            except ApiError as e:
                self.expectations.deletion_observed(key)
                errors.append(e)
        if errors:
            raise errors[0]

    def _desired_node_counts(self, ds: dict, nodes: list[dict], node_pods: dict) -> tuple[int, int, int]:
        """``updatedDesiredNodeCounts``: (maxSurge, maxUnavailable, desiredNumberScheduled)."""
        desired = 0
        for n in nodes:
            run, _ = node_should_run_daemon_pod(n, ds)
            if run:
                desired += 1
                node_pods.setdefault(n["metadata"]["name"], [])
        ru = (((ds.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate") or {})
        max_unavailable = int_or_percent(ru.get("maxUnavailable", 1), desired, True)
        max_surge = int_or_percent(ru.get("maxSurge", 0), desired, True)
        if desired > 0 and max_unavailable == 0 and max_surge == 0:
            max_unavailable = 1
        return max_surge, max_unavailable, desired

    def _find_updated_pods_on_node(self, ds: dict, pods: list[dict], hash_: str) -> tuple[Any, Any, bool]:
        new = old = None
        for p in pods:
            if p["metadata"].get("deletionTimestamp"):
                continue
            if self._is_pod_updated(p, hash_, ds):
                if new is not None:
                    return None, None, False
                new = p
            else:
                if old is not None:
                    return None, None, False
                old = p
        return new, old, True

    def _rolling_update(self, key: str, ds: dict, nodes: list[dict], hash_: str) -> None:
        """``rollingUpdate``: replace old pods within maxUnavailable, or surge first with maxSurge."""
        node_pods = self._nodes_to_daemon_pods(ds)
        max_surge, max_unavailable, _ = self._desired_node_counts(ds, nodes, node_pods)
        now = float(self.env.now)
        mrs = float((ds.get("spec") or {}).get("minReadySeconds", 0) or 0)
        if max_surge == 0:
            unavailable = 0
            allowed, candidates = [], []
            for node_name in sorted(node_pods):
                new, old, ok = self._find_updated_pods_on_node(ds, node_pods[node_name], hash_)
                if not ok:
                    unavailable += 1
                    continue
                if (old is None and new is None) or (old is not None and new is not None):
                    unavailable += 1
                elif new is not None:
                    if not is_pod_available_inclusive(new, mrs, now):
                        unavailable += 1
                else:
                    if not is_pod_available_inclusive(old, mrs, now):
                        allowed.append(old)
                    elif unavailable >= max_unavailable:
                        continue
                    else:
                        candidates.append(old)
            remaining = min(max(max_unavailable - unavailable, 0), len(candidates))
            self._sync_nodes(key, ds, allowed + candidates[:remaining], [], hash_)
            return
        surge = 0
        allowed_nodes, candidate_nodes, old_to_delete = [], [], []
        for node_name in sorted(node_pods):
            new, old, ok = self._find_updated_pods_on_node(ds, node_pods[node_name], hash_)
            if not ok or old is None:
                continue
            if new is None:
                if not is_pod_available_inclusive(old, mrs, now):
                    allowed_nodes.append(node_name)
                elif surge >= max_surge:
                    continue
                else:
                    candidate_nodes.append(node_name)
            else:
                if not is_pod_available_inclusive(new, mrs, now):
                    surge += 1
                    continue
                old_to_delete.append(old)
        remaining = min(max(max_surge - surge, 0), len(candidate_nodes))
        self._sync_nodes(key, ds, old_to_delete, allowed_nodes + candidate_nodes[:remaining], hash_)

    # ------------------------------------------------------------ status
    def _update_status(self, key: str, ds: dict, nodes: list[dict], hash_: str,
                       update_observed_gen: bool) -> Result | None:
        """``updateDaemonSetStatus``/``storeDaemonSetStatus``."""
        node_pods = self._nodes_to_daemon_pods(ds)
        now = float(self.env.now)
        mrs = float((ds.get("spec") or {}).get("minReadySeconds", 0) or 0)
        desired = current = mis = ready = updated = available = 0
        for n in nodes:
            run, _ = node_should_run_daemon_pod(n, ds)
            pods = node_pods.get(n["metadata"]["name"]) or []
            if run:
                desired += 1
                if not pods:
                    continue
                current += 1
                pod = sorted(pods, key=_by_creation_and_phase)[0]
                if is_pod_ready(pod):
                    ready += 1
                    if is_pod_available_inclusive(pod, mrs, now):
                        available += 1
                if self._is_pod_updated(pod, hash_, ds):
                    updated += 1
            elif pods:
                mis += 1
        st = ds.get("status") or {}
        new_st = {"currentNumberScheduled": current, "numberMisscheduled": mis, "desiredNumberScheduled": desired,
                  "numberReady": ready, "updatedNumberScheduled": updated, "numberAvailable": available,
                  "numberUnavailable": desired - available}
        gen = int(ds["metadata"].get("generation", 1))
        new_st["observedGeneration"] = gen if update_observed_gen else st.get("observedGeneration", 0)
        if st.get("collisionCount") is not None:
            new_st["collisionCount"] = st["collisionCount"]
        if st.get("conditions"):
            new_st["conditions"] = st["conditions"]
        for k in ("numberAvailable", "numberUnavailable", "updatedNumberScheduled", "observedGeneration"):
            if not new_st.get(k):
                new_st.pop(k, None)
        if new_st != st:
            new = deep_copy(ds)
            new["status"] = new_st
            out = self.client.update_status("daemonsets", new, ds["metadata"]["namespace"])
            self.written.note(key, out)
        if mrs > 0 and ready != available:
            return Result(requeue_after_seconds=mrs)
        return None
