"""The ResourceQuota controller: recompute each quota's ``status.used`` from what its namespace holds.

Admission charges a create against ``status.used`` at once; this
controller is what gives usage back (a pod finishing or deleted, a service
deleted) and keeps ``status.hard`` equal to ``spec.hard``. It syncs a quota
when it is created or its ``spec.hard`` changes, when an object it tracks is
deleted or stops counting (a pod turns Succeeded/Failed, a service changes
type, a claim is resized), and every quota every 5 minutes
(``--resource-quota-sync-period``). Usage is summed with the same evaluators
the ResourceQuota admission plugin uses
(:mod:`kubenotes.apiserver.admission.quota`), so the two agree.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/resourcequota/resource_quota_controller.go (syncResourceQuota, replenishQuota)
kubernetes/kubernetes@v1.34.0 pkg/controller/resourcequota/resource_quota_monitor.go (which updates replenish)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go (CalculateUsage)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go (CalculateUsageStats)
https://kubernetes.io/docs/concepts/policy/resource-quotas/
"""

from __future__ import annotations

from typing import Any

from kubenotes.api.resources import resource_list
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.resources import ResourceInfo, resource_for
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, key_of, split_key
from kubenotes.controllers.workload_util import CACHE_CATCH_UP_SECONDS, WrittenVersions

__all__ = ["ResourceQuotaController", "calculate_usage", "tracked_resources", "DEFAULT_SYNC_PERIOD_SECONDS",
           "REPLENISHED_RESOURCES", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:resourcequota-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("resourcequota-controller")``, ``cmd/kube-controller-manager/app/core.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("resourcequota-controller", (
    # quota counts anything, so it reads everything
    policy_rule(("list", "watch"), ("*",), ("*",)),
    policy_rule(("update",), (LEGACY_GROUP,), ("resourcequotas/status",)),
    events_rule(),
))

#: ``--resource-quota-sync-period`` default.
DEFAULT_SYNC_PERIOD_SECONDS = 5 * 60.0
#: Resources whose informers the controller watches from the start (``install.NewQuotaConfigurationForControllers``).
REPLENISHED_RESOURCES = ("pods", "services", "persistentvolumeclaims", "configmaps", "secrets",
                         "replicationcontrollers", "resourcequotas")


def _quota() -> Any:
    from kubenotes.apiserver.admission import quota

    return quota


def tracked_resources(hard: dict) -> list[ResourceInfo]:
    """The API resources whose objects a quota's ``hard`` names are charged by.

    Examples
    --------
    >>> [r.resource for r in tracked_resources({"pods": "10", "requests.cpu": "4", "count/deployments.apps": "2"})]
    ['pods', 'deployments']
    """
    q = _quota()
    out: list[ResourceInfo] = []
    candidates = [resource_for(r) for r in REPLENISHED_RESOURCES]
    for name in hard:
        if name.startswith("count/"):
            try:
                candidates.append(resource_for(name[len("count/"):]))
            except ApiError:
                continue
    for ri in candidates:
        ev = q.evaluator_for(ri)
        if ev is not None and ev.matching_resources(hard) and ri not in out:
            out.append(ri)
    return out


def calculate_usage(quota_obj: dict, objects_by_resource: dict[ResourceInfo, list[dict]],
                    now_seconds: float | None = None) -> dict:
    """``quota.CalculateUsage``: usage of every resource in ``spec.hard``, from the namespace's objects.

    Parameters
    ----------
    quota_obj : dict
        The ResourceQuota (``spec.hard``, ``spec.scopes``, ``spec.scopeSelector``).
    objects_by_resource : dict
        ResourceInfo -> the namespace's objects of that resource.
    now_seconds : float, optional
        Virtual now (a pod stuck terminating past its grace period stops counting).

    Returns
    -------
    dict
        Resource name -> Quantity, every ``spec.hard`` name present (0 when nothing charges it).

    Examples
    --------
    >>> from kubenotes.apiserver.resources import resource_for
    >>> rq = {"spec": {"hard": {"pods": "5", "requests.cpu": "2"}}}
    >>> pod = {"spec": {"containers": [{"resources": {"requests": {"cpu": "250m"}}}]}, "status": {"phase": "Running"}}
    >>> done = {**pod, "status": {"phase": "Succeeded"}}
    >>> _quota().pretty_print(calculate_usage(rq, {resource_for("pods"): [pod, pod, done]}))
    'pods=2,requests.cpu=500m'
    """
    q = _quota()
    hard = (quota_obj.get("spec") or {}).get("hard") or {}
    selectors = q.scope_selectors(quota_obj)
    used: dict = {}
    for ri, objs in objects_by_resource.items():
        ev = q.evaluator_for(ri)
        if ev is None:
            continue
        matched = [n for n in ev.matching_resources(hard) if n in hard]
        if not matched:
            continue
        stats = {n: q.Quantity.zero() for n in matched}
        for o in objs:
            if not all(ev.matches_scope(s, o) for s in selectors):
                continue
            stats = q.add(stats, q.mask(ev.usage(o, now_seconds), matched))
        used = q.add(used, stats)
    return q.mask(used, hard)


class ResourceQuotaController(Controller):
    """``resourcequota.Controller``.

    Parameters
    ----------
    ctx : ControllerContext
        Clock, informers, client factory, flags (see :class:`~kubenotes.controllers.reconciler.ControllerContext`).

    Notes
    -----
    One queue instead of upstream's two (``queue`` and
    ``missingUsageQueue``); the quota monitor's dynamic discovery of
    countable resources is replaced by watching the resources a quota's
    ``count/<resource>`` names mention. Upstream does not resync a quota when
    an object is *added* (admission has charged it); on the model's clock a
    replenishment sync can run at the same instant as an admission charge,
    before the informer shows the new object, and would undercount until the
    next 5-minute resync, so adds also trigger a sync here (it writes only
    when the usage differs).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/resourcequota/resource_quota_controller.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    ...         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    >>> rq = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
    ...       "spec": {"hard": {"pods": "10", "configmaps": "5"}}}
    >>> cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "default"}}
    >>> c = Cluster([node, rq, cm], controllers=["resourcequota-controller"], authorization=False)
    >>> c.run(until=2)
    >>> c.get("resourcequotas", "q", "default")["status"]["used"]   # cm and the root CA publisher's kube-root-ca.crt
    {'pods': '0', 'configmaps': '2'}
    """

    name = "resourcequota-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        self.written = WrittenVersions()
        self.sync_period = float(self.option("resource-quota-sync-period", DEFAULT_SYNC_PERIOD_SECONDS))
        self.quotas = self.informers.informer_for("resourcequotas")
        self.quotas.add_event_handler(self._add_quota, self._update_quota, lambda o: None)
        self._watched: set[str] = set()
        for r in REPLENISHED_RESOURCES:
            self._watch(resource_for(r))
        self.every(self.sync_period, self._resync_all)

    def _watch(self, ri: ResourceInfo) -> Any:
        name = f"{ri.resource}.{ri.group}" if ri.group else ri.resource
        inf = self.informers.informer_for(name)
        if name not in self._watched:
            self._watched.add(name)
            if ri.resource != "resourcequotas":
                inf.add_event_handler(self._object_added, lambda old, cur, ri=ri: self._object_updated(ri, old, cur),
                                      lambda o: self._replenish(unwrap_deleted(o)))
        return inf

    # ------------------------------------------------------------ handlers
    def _add_quota(self, rq: dict) -> None:
        self.enqueue(rq)

    def _update_quota(self, old: dict, cur: dict) -> None:
        if (old.get("spec") or {}).get("hard") != (cur.get("spec") or {}).get("hard"):
            self.enqueue(cur)

    def _object_added(self, obj: dict) -> None:
        """A new object: upstream waits for the periodic resync; see the class Notes."""
        if self.informers.has_synced():
            self._replenish(obj)

    def _object_updated(self, ri: ResourceInfo, old: dict, cur: dict) -> None:
        """The quota monitor's update filter: only changes that can give usage back."""
        q = _quota()
        notify = False
        if ri.resource == "pods" and ri.group == "":
            now = float(self.env.now)
            notify = q.quota_v1_pod(old, now) and not q.quota_v1_pod(cur, now)
        elif ri.resource == "services" and ri.group == "":
            notify = ((old.get("spec") or {}).get("type") or "ClusterIP") != \
                ((cur.get("spec") or {}).get("type") or "ClusterIP")
        elif ri.resource == "persistentvolumeclaims" and ri.group == "":
            ev = q.evaluator_for(ri)
            notify = ev._storage(old) != ev._storage(cur)
        if notify:
            self._replenish(cur)

    def _replenish(self, obj: dict) -> None:
        """``replenishQuota``: sync every quota of the object's namespace."""
        ns = (obj.get("metadata") or {}).get("namespace")
        if not ns:
            return
        for rq in self.quotas.lister.list(ns):
            self.enqueue(rq)

    def _resync_all(self) -> None:
        for rq in self.quotas.lister.list():
            self.enqueue(rq)

    # ------------------------------------------------------------ sync
    def reconcile(self, key: str) -> Result | None:
        """``syncResourceQuota``: ``status.hard = spec.hard``, ``status.used`` recomputed; written when changed."""
        q = _quota()
        ns, name = split_key(key)
        rq = self.quotas.lister.get(ns, name)
        if rq is None:
            self.written.forget(key)
            return None
        if self.written.is_stale(key, rq):
            return Result(requeue_after_seconds=CACHE_CATCH_UP_SECONDS)
        spec_hard = (rq.get("spec") or {}).get("hard") or {}
        st = rq.get("status") or {}
        status_hard = st.get("hard")
        hard = resource_list(spec_hard, quantities=True)
        dirty = status_hard is None or st.get("used") is None or \
            q.format_resource_list(resource_list(status_hard, quantities=True)) != q.format_resource_list(hard)
        objects: dict[ResourceInfo, list[dict]] = {}
        for ri in tracked_resources(spec_hard):
            inf = self._watch(ri)
            if not inf.has_synced():
                return Result(requeue_after_seconds=1.0)
            objects[ri] = inf.lister.list(ns)
        used = resource_list(st.get("used"), quantities=True)
        used.update(calculate_usage(rq, objects, float(self.env.now)))
        used = q.mask(used, hard)
        new_used = q.format_resource_list(used)
        dirty = dirty or new_used != q.format_resource_list(resource_list(st.get("used"), quantities=True))
        if not dirty:
            return None
        new = deep_copy(rq)
        new["status"] = {"hard": q.format_resource_list(hard), "used": new_used}
        out = self.client.update_status("resourcequotas", new, ns)
        self.written.note(key_of(out), out)
        return None
