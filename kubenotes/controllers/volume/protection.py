"""The pvc-protection and pv-protection controllers: a claim or volume in use is not removed under its user.

Each adds its finalizer to every claim (``kubernetes.io/pvc-protection``)
or volume (``kubernetes.io/pv-protection``) that lacks it, and, once the
object is being deleted, removes the finalizer when nothing uses it any
more, so that the API server can finish the deletion. A claim is in use
while a scheduled pod that has not terminated names it (the informer's
pods, then a live list of the namespace's pods, as upstream double-checks);
a volume while it is ``Bound``.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/pvcprotection/pvc_protection_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/pvprotection/pv_protection_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/volume/protectionutil/utils.go
https://kubernetes.io/docs/concepts/storage/persistent-volumes/#storage-object-in-use-protection
"""

from __future__ import annotations

from kubenotes.api.storagehelpers import PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER, claims_of_pod
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, split_key

__all__ = ["PVCProtectionController", "PVProtectionController", "PVC_CONTROLLER_POLICY", "PV_CONTROLLER_POLICY",
           "is_deletion_candidate", "need_to_add_finalizer"]

#: ``system:controller:pvc-protection-controller`` (``controller_policy.go``).
PVC_CONTROLLER_POLICY = ControllerPolicy("pvc-protection-controller", (
    policy_rule(("get", "list", "watch", "update"), (LEGACY_GROUP,), ("persistentvolumeclaims",)),
    policy_rule(("list", "watch", "get"), (LEGACY_GROUP,), ("pods",)),
    events_rule(),
))
#: ``system:controller:pv-protection-controller``.
PV_CONTROLLER_POLICY = ControllerPolicy("pv-protection-controller", (
    policy_rule(("get", "list", "watch", "update"), (LEGACY_GROUP,), ("persistentvolumes",)),
    events_rule(),
))


def is_deletion_candidate(obj: dict, finalizer: str) -> bool:
    """``protectionutil.IsDeletionCandidate``: being deleted and still holding ``finalizer``.

    Examples
    --------
    >>> is_deletion_candidate({"metadata": {"deletionTimestamp": "t", "finalizers": ["kubernetes.io/pv-protection"]}},
    ...                       "kubernetes.io/pv-protection")
    True
    """
    md = obj.get("metadata") or {}
    return bool(md.get("deletionTimestamp")) and finalizer in (md.get("finalizers") or ())


def need_to_add_finalizer(obj: dict, finalizer: str) -> bool:
    """``protectionutil.NeedToAddFinalizer``: not being deleted and without ``finalizer``."""
    md = obj.get("metadata") or {}
    return not md.get("deletionTimestamp") and finalizer not in (md.get("finalizers") or ())


class _FinalizerController(Controller):
    finalizer = ""
    resource = ""

    def _set_finalizer(self, obj: dict, present: bool) -> None:
        new = deep_copy(obj)
        fins = [f for f in new["metadata"].get("finalizers") or [] if f != self.finalizer]
        if present:
            fins.append(self.finalizer)
        new["metadata"]["finalizers"] = fins
        self.client.update(self.resource, new, obj["metadata"].get("namespace"))


class PVCProtectionController(_FinalizerController):
    """``pvcprotection.Controller`` (``persistentvolumeclaim-protection-controller``).

    Notes
    -----
    Upstream enqueues a pod's claims only for some pod changes (deleted,
    terminated, newly scheduled); the model enqueues them on every pod event.

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "d", "namespace": "default"},
    ...        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    >>> c = Cluster([pvc], controllers=["persistentvolumeclaim-protection-controller"], authorization=False)
    >>> c.run(until=2)
    >>> c.get("persistentvolumeclaims", "d", "default")["metadata"]["finalizers"]
    ['kubernetes.io/pvc-protection']
    >>> _ = c.client.delete("persistentvolumeclaims", "d", "default"); c.run(until=4)
    >>> c.server.get("persistentvolumeclaims", "default", "d") is None
    True
    """

    name = "pvc-protection-controller"
    service_account = PVC_CONTROLLER_POLICY.service_account
    finalizer = PVC_PROTECTION_FINALIZER
    resource = "persistentvolumeclaims"

    def setup(self) -> None:
        self.claims = self.informers.informer_for("persistentvolumeclaims")
        self.pods = self.informers.informer_for("pods")
        self.claims.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur), None)
        self.pods.add_event_handler(self._pod_changed, lambda old, cur: self._pod_changed(cur),
                                    lambda o: self._pod_changed(unwrap_deleted(o)))

    def _pod_changed(self, pod: dict) -> None:
        ns = pod["metadata"].get("namespace", "")
        for name in claims_of_pod(pod):
            self.enqueue(f"{ns}/{name}")

    @staticmethod
    def _pod_uses(pod: dict, claim_name: str) -> bool:
        """``podUsesPVC``: only scheduled pods count, and terminated ones do not."""
        if not (pod.get("spec") or {}).get("nodeName"):
            return False
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            return False
        return claim_name in claims_of_pod(pod)

    def _is_being_used(self, claim: dict) -> bool:
        ns, name = claim["metadata"]["namespace"], claim["metadata"]["name"]
        if any(self._pod_uses(p, name) for p in self.pods.lister.list(ns)):
            return True
        # the informer may be behind: ask the API server (askAPIServer)
        pods = self.client.list("pods", ns).get("items", [])
        return any(self._pod_uses(p, name) for p in pods)

    def reconcile(self, key: str) -> Result | None:
        """``processPVC``."""
        ns, name = split_key(key)
        claim = self.claims.lister.get(ns, name)
        if claim is None:
            return None
        if is_deletion_candidate(claim, self.finalizer):
            if not self._is_being_used(claim):
                self._set_finalizer(claim, False)
            return None
        if need_to_add_finalizer(claim, self.finalizer):
            self._set_finalizer(claim, True)
        return None


class PVProtectionController(_FinalizerController):
    """``pvprotection.Controller`` (``persistentvolume-protection-controller``): a Bound volume keeps its finalizer.

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
    ...       "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"}}}
    >>> c = Cluster([pv], controllers=["persistentvolume-protection-controller"], authorization=False)
    >>> c.run(until=2)
    >>> c.get("persistentvolumes", "pv1")["metadata"]["finalizers"]
    ['kubernetes.io/pv-protection']
    """

    name = "pv-protection-controller"
    service_account = PV_CONTROLLER_POLICY.service_account
    finalizer = PV_PROTECTION_FINALIZER
    resource = "persistentvolumes"

    def setup(self) -> None:
        self.volumes = self.informers.informer_for("persistentvolumes")
        self.volumes.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur), None)

    def reconcile(self, key: str) -> Result | None:
        """``processPV``: a volume is in use while its phase is Bound."""
        pv = self.volumes.lister.get(None, key)
        if pv is None:
            return None
        if is_deletion_candidate(pv, self.finalizer):
            if (pv.get("status") or {}).get("phase") != "Bound":
                self._set_finalizer(pv, False)
            return None
        if need_to_add_finalizer(pv, self.finalizer):
            self._set_finalizer(pv, True)
        return None

