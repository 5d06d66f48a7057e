"""The disruption controller: keep each PodDisruptionBudget's status (how many evictions are allowed).

For every PDB the controller finds the pods its selector picks, works out
how many should exist (``expectedPods``: the scale of their controllers, or
the pod count for an integer ``minAvailable``), how many must stay healthy
(``desiredHealthy`` from ``minAvailable``, or ``expectedPods -
maxUnavailable``; percentages round up), counts the ready ones not already
being disrupted (``currentHealthy``), and writes ``disruptionsAllowed =
max(currentHealthy - desiredHealthy, 0)`` with the ``DisruptionAllowed``
condition. The eviction subresource reads that number, decrements it and
records the pod in ``disruptedPods``; entries older than 2 minutes
(``DeletionTimeout``) are dropped here if the pod never went away.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/disruption/disruption.go (trySync, getExpectedPodCount, getExpectedScale, buildDisruptedPodMap, countHealthyPods, updatePdbStatus)
kubernetes/kubernetes@v1.34.0 pkg/apis/policy/helper/helpers.go (UpdateDisruptionAllowedCondition)
https://kubernetes.io/docs/concepts/workloads/pods/disruptions/
"""

from __future__ import annotations


from kubenotes.apiserver.bootstrap_policy import (
    APPS_GROUP,
    EXTENSIONS_GROUP,
    LEGACY_GROUP,
    POLICY_GROUP,
    READ,
    ControllerPolicy,
    events_rule,
    policy_rule,
)
from kubenotes.apiserver.server import parse_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.meta import get_controller_of
from kubenotes.controllers.controller_utils import resolve_controller_ref
from kubenotes.api.podutil import is_pod_ready
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, split_key
from kubenotes.controllers.workload_util import (
    CACHE_CATCH_UP_SECONDS,
    WrittenVersions,
    int_or_percent,
    label_selector,
)
from kubenotes.errors import KubenotesError

__all__ = ["DisruptionController", "expected_pod_count", "go_label_selector_string", "disruptions_allowed", "DELETION_TIMEOUT_SECONDS",
           "DISRUPTION_ALLOWED_CONDITION", "SUFFICIENT_PODS_REASON", "INSUFFICIENT_PODS_REASON", "SYNC_FAILED_REASON",
           "UNMANAGED_PODS_MESSAGE", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:disruption-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("disruption-controller")``, ``cmd/kube-controller-manager/app/policy.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("disruption-controller", (
    policy_rule(READ, (EXTENSIONS_GROUP, APPS_GROUP), ("deployments",)),
    policy_rule(READ, (APPS_GROUP, EXTENSIONS_GROUP), ("replicasets",)),
    policy_rule(READ, (LEGACY_GROUP,), ("replicationcontrollers",)),
    policy_rule(READ, (POLICY_GROUP,), ("poddisruptionbudgets",)),
    policy_rule(READ, (APPS_GROUP,), ("statefulsets",)),
    policy_rule(("update",), (POLICY_GROUP,), ("poddisruptionbudgets/status",)),
    policy_rule(("patch", "update"), (LEGACY_GROUP,), ("pods/status",)),
    policy_rule(("get",), ("*",), ("*/scale",)),
    events_rule(),
))

#: ``DeletionTimeout``: an evicted pod still present after this long counts as healthy again.
DELETION_TIMEOUT_SECONDS = 2 * 60.0
DISRUPTION_ALLOWED_CONDITION = "DisruptionAllowed"
SUFFICIENT_PODS_REASON = "SufficientPods"
INSUFFICIENT_PODS_REASON = "InsufficientPods"
SYNC_FAILED_REASON = "SyncFailed"
UNMANAGED_PODS_MESSAGE = ("Pods selected by this PodDisruptionBudget (selector: {selector}) were found to be "
                          "unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may "
                          "result in undefined behavior. To account for these pods please set \".spec.minAvailable\" "
                          "field of the PDB to an integer value.")


def go_label_selector_string(selector: dict | None) -> str:
    """``(*metav1.LabelSelector).String()``, as ``%v`` prints it in the UnmanagedPods Event.

    Examples
    --------
    >>> go_label_selector_string({"matchLabels": {"app": "web"}})
    '&LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}'
    >>> go_label_selector_string({"matchExpressions": [{"key": "t", "operator": "In", "values": ["a", "b"]}]})
    '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:t,Operator:In,Values:[a b],},},}'
    """
    if selector is None:
        return "nil"
    ml = selector.get("matchLabels") or {}
    labels = "".join(f"{k}: {ml[k]}," for k in sorted(ml))
    exprs = "".join(f"LabelSelectorRequirement{{Key:{e.get('key', '')},Operator:{e.get('operator', '')},"
                    f"Values:[{' '.join(e.get('values') or [])}],}},"
                    for e in selector.get("matchExpressions") or [])
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


def expected_pod_count(spec: dict, pod_count: int, controller_scale: int) -> tuple[int, int]:
    """``getExpectedPodCount``: ``(expectedCount, desiredHealthy)`` for a PDB spec.

    Parameters
    ----------
    spec : dict
        The PDB's ``spec`` (``minAvailable`` or ``maxUnavailable``, int or ``"N%"``).
    pod_count : int
        Pods the selector picks (used for an integer ``minAvailable``).
    controller_scale : int
        The summed ``spec.replicas`` of those pods' controllers.

    Examples
    --------
    >>> expected_pod_count({"minAvailable": 2}, 3, 5)
    (3, 2)
    >>> expected_pod_count({"minAvailable": "51%"}, 3, 5)     # 2.55 rounds up
    (5, 3)
    >>> expected_pod_count({"maxUnavailable": "30%"}, 3, 5)   # 1.5 rounds up: 5 - 2
    (5, 3)
    """
    if spec.get("maxUnavailable") is not None:
        expected = controller_scale
        max_unavailable = int_or_percent(spec["maxUnavailable"], expected, True)
        return expected, max(expected - max_unavailable, 0)
    mina = spec.get("minAvailable")
    if mina is None:
        return 0, 0
    if isinstance(mina, int):
        return pod_count, mina
    expected = controller_scale
    return expected, int_or_percent(mina, expected, True)


def disruptions_allowed(current_healthy: int, desired_healthy: int, expected_count: int) -> int:
    """``updatePdbStatus``: ``currentHealthy - desiredHealthy``, at least 0, and 0 with no expected pods.

    Examples
    --------
    >>> disruptions_allowed(3, 2, 3), disruptions_allowed(1, 2, 3), disruptions_allowed(2, 0, 0)
    (1, 0, 0)
    """
    allowed = current_healthy - desired_healthy
    if expected_count <= 0 or allowed <= 0:
        return 0
    return allowed


class _SyncError(KubenotesError):
    pass


class DisruptionController(Controller):
    """``disruption.DisruptionController``.

    Parameters
    ----------
    ctx : ControllerContext
        Clock, informers, client factory, flags (see :class:`~kubenotes.controllers.reconciler.ControllerContext`).

    Notes
    -----
    Not modelled: the stale ``DisruptionTarget`` pod condition cleanup, the
    generic ``scale`` finder for custom controllers (Deployment, ReplicaSet,
    ReplicationController and StatefulSet are looked up), and a PDB with
    ``unhealthyPodEvictionPolicy`` (the eviction subresource's concern).
    Events carry upstream's source component ``controllermanager``; the
    audit log names the writer ``disruption-controller``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/disruption/disruption.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    ...         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    >>> pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default",
    ...        "labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    >>> pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web",
    ...        "namespace": "default"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}
    >>> c = Cluster([node, pod, pdb], controllers=["disruption-controller"], authorization=False)
    >>> c.run(until=5)
    >>> st = c.get("poddisruptionbudgets", "web", "default")["status"]
    >>> st["currentHealthy"], st["desiredHealthy"], st["disruptionsAllowed"]
    (1, 1, 0)
    """

    name = "disruption-controller"
    service_account = CONTROLLER_POLICY.service_account
    #: Upstream's EventSource component for this controller's Events.
    event_component = "controllermanager"

    def setup(self) -> None:
        self.recorder.component = self.event_component
        self.written = WrittenVersions()
        self.pdbs = self.informers.informer_for("poddisruptionbudgets")
        self.pods = self.informers.informer_for("pods")
        self.rss = self.informers.informer_for("replicasets")
        self.deployments = self.informers.informer_for("deployments")
        self.rcs = self.informers.informer_for("replicationcontrollers")
        self.statefulsets = self.informers.informer_for("statefulsets")
        self.pdbs.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur),
                                    lambda o: self.enqueue(unwrap_deleted(o)))
        self.pods.add_event_handler(self._pod_changed, lambda old, cur: self._pod_changed(cur),
                                    lambda o: self._pod_changed(unwrap_deleted(o)))

    def _pod_changed(self, pod: dict) -> None:
        """``getPdbForPod``: enqueue the PDB(s) whose selector matches the pod."""
        labels = pod["metadata"].get("labels") or {}
        for pdb in self.pdbs.lister.list(pod["metadata"].get("namespace")):
            sel = (pdb.get("spec") or {}).get("selector")
            if sel is None:
                continue
            if label_selector(sel).matches(labels):
                self.enqueue(pdb)

    def _pods_for_pdb(self, pdb: dict) -> list[dict]:
        sel = (pdb.get("spec") or {}).get("selector")
        if sel is None:
            return []
        s = label_selector(sel)
        return [p for p in self.pods.lister.list(pdb["metadata"]["namespace"])
                if s.matches(p["metadata"].get("labels") or {})]

    # ------------------------------------------------------------ finders
    def _controller_scale(self, ns: str, ref: dict) -> tuple[str, int] | None:
        """The finders: ``(uid, spec.replicas)`` of the pod's controller, following RS -> Deployment."""
        kind = ref.get("kind")
        if kind == "ReplicaSet":
            rs = resolve_controller_ref(self.rss.lister, ns, ref, kind)
            if rs is None:
                return None
            owner = get_controller_of(rs)
            if owner is not None and owner.get("kind") == "Deployment":
                d = resolve_controller_ref(self.deployments.lister, ns, owner, "Deployment")
                if d is None:
                    return None
                return d["metadata"]["uid"], int((d.get("spec") or {}).get("replicas", 1))
            return rs["metadata"]["uid"], int((rs.get("spec") or {}).get("replicas", 1))
        informer = {"ReplicationController": self.rcs, "StatefulSet": self.statefulsets}.get(kind)
        if informer is None:
            return None
        obj = resolve_controller_ref(informer.lister, ns, ref, kind)
        if obj is None:
            return None
        return obj["metadata"]["uid"], int((obj.get("spec") or {}).get("replicas", 1))

    def _expected_scale(self, pdb: dict, pods: list[dict]) -> tuple[int, list[str]]:
        """``getExpectedScale``: the summed scale of the pods' controllers, and the unmanaged pods."""
        seen: dict[str, int] = {}
        unmanaged: list[str] = []
        ns = pdb["metadata"]["namespace"]
        for pod in pods:
            ref = get_controller_of(pod)
            if ref is None:
                unmanaged.append(pod["metadata"]["name"])
                continue
            if ref.get("uid") in seen:
                continue
            found = self._controller_scale(ns, ref)
            if found is None:
                raise _SyncError(f'found no controllers for pod "{pod["metadata"]["name"]}"')
            seen[ref["uid"]] = found[1]
        return sum(seen.values()), unmanaged

    # ------------------------------------------------------------ sync
    def reconcile(self, key: str) -> Result | None:
        """``sync``/``trySync``; on an error the PDB fails safe (no disruptions allowed)."""
        ns, name = split_key(key)
        pdb = self.pdbs.lister.get(ns, name)
        if pdb is None:
            self.written.forget(key)
            return None
        if self.written.is_stale(key, pdb):
            return Result(requeue_after_seconds=CACHE_CATCH_UP_SECONDS)
        try:
            return self._try_sync(key, pdb)
        except _SyncError as e:
            self._fail_safe(key, pdb, str(e))
            return None

    def _try_sync(self, key: str, pdb: dict) -> Result | None:
        pods = self._pods_for_pdb(pdb)
        if not pods:
            self.event(pdb, "Normal", "NoPods", "No matching pods found")
        spec = pdb.get("spec") or {}
        unmanaged: list[str] = []
        needs_scale = spec.get("maxUnavailable") is not None or isinstance(spec.get("minAvailable"), str)
        scale = 0
        if needs_scale:
            scale, unmanaged = self._expected_scale(pdb, pods)
        try:
            expected, desired = expected_pod_count(spec, len(pods), scale)
        except ValueError as e:
            raise _SyncError(str(e)) from None
        if unmanaged:
            self.event(pdb, "Warning", "UnmanagedPods",
                       UNMANAGED_PODS_MESSAGE.format(selector=go_label_selector_string(spec.get("selector"))))
        now = float(self.env.now)
        disrupted, recheck = self._build_disrupted_pod_map(pods, pdb, now)
        healthy = sum(1 for p in pods if not p["metadata"].get("deletionTimestamp")
                      and p["metadata"]["name"] not in disrupted and is_pod_ready(p))
        self._update_status(key, pdb, healthy, desired, expected, disrupted)
        if recheck is not None:
            return Result(requeue_after_seconds=max(recheck - now, 1e-3))
        return None

    def _build_disrupted_pod_map(self, pods: list[dict], pdb: dict, now: float) -> tuple[dict, float | None]:
        """``buildDisruptedPodMap``: keep recent evictions of pods still present and not being deleted."""
        disrupted = (pdb.get("status") or {}).get("disruptedPods") or {}
        out: dict[str, str] = {}
        recheck: float | None = None
        if not disrupted:
            return out, None
        for pod in pods:
            name = pod["metadata"]["name"]
            if pod["metadata"].get("deletionTimestamp") or name not in disrupted:
                continue
            expires = parse_timestamp(disrupted[name]) + DELETION_TIMEOUT_SECONDS
            if expires < now:
                self.event(pod, "Warning", "NotDeleted", "Pod was expected by PDB "
                           f'{pdb["metadata"]["namespace"]}/{pdb["metadata"]["name"]} to be deleted but it wasn\'t')
                continue
            out[name] = disrupted[name]
            if recheck is None or expires < recheck:
                recheck = expires
        return out, recheck

    def _update_status(self, key: str, pdb: dict, healthy: int, desired: int, expected: int,
                       disrupted: dict) -> None:
        allowed = disruptions_allowed(healthy, desired, expected)
        st = pdb.get("status") or {}
        gen = int(pdb["metadata"].get("generation", 1))
        cond = self._condition(st, allowed, gen)
        if (st.get("currentHealthy") == healthy and st.get("desiredHealthy") == desired
                and st.get("expectedPods") == expected and st.get("disruptionsAllowed") == allowed
                and (st.get("disruptedPods") or {}) == disrupted and st.get("observedGeneration") == gen
                and cond is None):
            return
        new = deep_copy(pdb)
        conds = [c for c in st.get("conditions") or [] if c.get("type") != DISRUPTION_ALLOWED_CONDITION]
        old_cond = next((c for c in st.get("conditions") or [] if c.get("type") == DISRUPTION_ALLOWED_CONDITION), None)
        conds.append(cond or old_cond)
        new["status"] = {"disruptedPods": disrupted, "disruptionsAllowed": allowed, "currentHealthy": healthy,
                         "desiredHealthy": desired, "expectedPods": expected, "observedGeneration": gen,
                         "conditions": conds}
        if not disrupted:
            new["status"].pop("disruptedPods")
        self._write(key, new)

    def _condition(self, st: dict, allowed: int, gen: int, reason: str | None = None,
                   message: str = "") -> dict | None:
        """``UpdateDisruptionAllowedCondition``: the new condition, or None when the current one is up to date."""
        status = "True" if allowed > 0 and reason is None else "False"
        if reason is None:
            reason = SUFFICIENT_PODS_REASON if status == "True" else INSUFFICIENT_PODS_REASON
        old = next((c for c in st.get("conditions") or [] if c.get("type") == DISRUPTION_ALLOWED_CONDITION), None)
        if old is not None and old.get("status") == status and old.get("reason") == reason \
                and old.get("message", "") == message and old.get("observedGeneration") == gen:
            return None
        ltt = old.get("lastTransitionTime") if old is not None and old.get("status") == status else \
            self.client.server.timestamp()
        return {"type": DISRUPTION_ALLOWED_CONDITION, "status": status, "observedGeneration": gen,
                "lastTransitionTime": ltt, "reason": reason, "message": message}

    def _fail_safe(self, key: str, pdb: dict, message: str) -> None:
        """``failSafe``: no disruptions allowed, condition ``SyncFailed`` with the error."""
        new = deep_copy(pdb)
        st = new.setdefault("status", {})
        gen = int(pdb["metadata"].get("generation", 1))
        cond = self._condition(st, 0, gen, SYNC_FAILED_REASON, message)
        st["disruptionsAllowed"] = 0
        st["observedGeneration"] = gen
        if cond is not None:
            st["conditions"] = [c for c in st.get("conditions") or []
                                if c.get("type") != DISRUPTION_ALLOWED_CONDITION] + [cond]
        self._write(key, new)

    def _write(self, key: str, pdb: dict) -> None:
        try:
            out = self.client.update_status("poddisruptionbudgets", pdb, pdb["metadata"]["namespace"])
        except ApiError:
            raise
        self.written.note(key, out)

