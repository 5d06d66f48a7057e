"""The namespace controller: empties a Terminating namespace, then releases its ``kubernetes`` finalizer.

Deleting a Namespace only sets its ``deletionTimestamp`` and phase
``Terminating``; the object stays while ``spec.finalizers`` holds
``kubernetes``. The namespace controller then deletes every namespaced
resource in it (each kind the API serves with ``list`` and ``delete``,
propagation ``Background``), found afresh on every pass as upstream's
``ServerPreferredNamespacedResources`` finds them: the built-in kinds and
each served custom resource in its preferred version, so a CRD applied a
moment ago is emptied too; reports progress in the namespace's status
conditions (``NamespaceDeletionDiscoveryFailure``,
``NamespaceDeletionContentFailure``, ``NamespaceContentRemaining``,
``NamespaceFinalizersRemaining``...), and waits: pods terminate
gracefully, so while their grace period (the largest
``terminationGracePeriodSeconds``) has not passed since the namespace's
deletion, it comes back after ``estimate / 2 + 1`` seconds. Objects still
held by finalizers count for 15 s each time. Once nothing is left it removes
``kubernetes`` through ``namespaces/<name>/finalize``, and the API server
deletes the namespace.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/namespace_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/deletion/namespaced_resources_deleter.go
kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/deletion/status_condition_utils.go
https://kubernetes.io/docs/tasks/administer-cluster/namespaces/#deleting-a-namespace
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, ControllerPolicy, policy_rule
from kubenotes.apiserver.resources import RESOURCES, ResourceInfo
from kubenotes.apiserver.server import parse_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.controllers.reconciler import Controller, Result
from kubenotes.errors import KubenotesError

__all__ = ["NamespaceController", "ResourcesRemainingError", "update_conditions", "content_conditions",
           "deletable_namespaced_resources", "CONDITION_TYPES", "OK_REASONS", "OK_MESSAGES",
           "FINALIZER_KUBERNETES", "FINALIZER_ESTIMATE_SECONDS", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:namespace-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("namespace-controller")``, ``cmd/kube-controller-manager/app/core.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
#: No events rule upstream: the namespace controller records no Events.
CONTROLLER_POLICY = ControllerPolicy("namespace-controller", (
    policy_rule(("get", "list", "watch", "delete"), (LEGACY_GROUP,), ("namespaces",)),
    policy_rule(("update",), (LEGACY_GROUP,), ("namespaces/finalize", "namespaces/status")),
    policy_rule(("get", "list", "watch", "delete", "deletecollection"), ("*",), ("*",)),
))

FINALIZER_KUBERNETES = "kubernetes"
#: ``finalizerEstimateSeconds``: the wait assumed for objects held by finalizers.
FINALIZER_ESTIMATE_SECONDS = 15

#: Condition types the deleter maintains, in upstream's order.
CONDITION_TYPES = ("NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure",
                   "NamespaceDeletionContentFailure", "NamespaceContentRemaining", "NamespaceFinalizersRemaining")
OK_MESSAGES = {
    "NamespaceDeletionDiscoveryFailure": "All resources successfully discovered",
    "NamespaceDeletionGroupVersionParsingFailure": "All legacy kube types successfully parsed",
    "NamespaceDeletionContentFailure": "All content successfully deleted, may be waiting on finalization",
    "NamespaceContentRemaining": "All content successfully removed",
    "NamespaceFinalizersRemaining": "All content successfully removed",
}
OK_REASONS = {
    "NamespaceDeletionDiscoveryFailure": "ResourcesDiscovered",
    "NamespaceDeletionGroupVersionParsingFailure": "ParsedGroupVersions",
    "NamespaceDeletionContentFailure": "ContentDeleted",
    "NamespaceContentRemaining": "ContentRemoved",
    "NamespaceFinalizersRemaining": "ContentRemoved",
}


class ResourcesRemainingError(KubenotesError):
    """``ResourcesRemainingError``: content is still going away; try again after ``estimate / 2 + 1`` s."""

    def __init__(self, estimate: int):
        self.estimate = estimate
        super().__init__(f"some content remains in the namespace, estimate {estimate} seconds before it is removed")


def deletable_namespaced_resources(custom: Iterable[ResourceInfo] = ()) -> list[ResourceInfo]:
    """The namespaced resources the deleter empties: those served with ``list`` and ``delete``.

    ``ServerPreferredNamespacedResources`` filtered by the ``delete`` verb
    (resources without ``list`` cannot be emptied either): one entry per
    group-resource, in its preferred version. The built-in kinds come first
    (:data:`~kubenotes.apiserver.resources.RESOURCES` already holds each in its
    preferred version), then the custom resources.

    Parameters
    ----------
    custom : iterable of ResourceInfo
        The served custom resources, by group and then version priority, as
        :meth:`CustomResourceDefinitions.served
        <kubenotes.apiserver.apiextensions.CustomResourceDefinitions.served>` returns them: the first
        version met of a group-resource is its preferred one.

    Returns
    -------
    list of ResourceInfo

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/client-go/discovery/discovery_client.go (ServerPreferredResources)
    kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/deletion/namespaced_resources_deleter.go (deleteAllContent)

    Examples
    --------
    >>> [ri.resource for ri in deletable_namespaced_resources()][:3]
    ['configmaps', 'endpoints', 'events']
    """
    out = [ri for ri in RESOURCES if ri.namespaced and "delete" in ri.verbs and "list" in ri.verbs]
    seen: set[tuple[str, str]] = set()
    for ri in custom:
        if (ri.group, ri.resource) in seen:
            continue  # another served version of a group-resource already taken in its preferred version
        seen.add((ri.group, ri.resource))
        if ri.namespaced and "delete" in ri.verbs and "list" in ri.verbs:
            out.append(ri)
    return out


def content_conditions(num_remaining: dict[str, int], finalizers_remaining: dict[str, int], now: str) -> list[dict]:
    """``ProcessContentTotals``: the ``ContentRemaining``/``FinalizersRemaining`` failure conditions.

    ``num_remaining`` is keyed ``resource.group`` (``pods.`` for core).

    Parameters
    ----------
    num_remaining : dict[str, int]
        ``resource.group`` -> objects left.
    finalizers_remaining : dict[str, int]
        Finalizer -> objects holding it.
    now : str
        ``lastTransitionTime``.

    Examples
    --------
    >>> for c in content_conditions({"pods.": 2}, {"example.com/x": 1}, "t"):
    ...     print(c["reason"], "|", c["message"])
    SomeResourcesRemain | Some resources are remaining: pods. has 2 resource instances
    SomeFinalizerRemain | Some finalizers are remaining: example.com/x in 1 resource instances
    """
    out = []
    parts = sorted(f"{gr} has {n} resource instances" for gr, n in num_remaining.items() if n)
    if num_remaining:
        out.append({"type": "NamespaceContentRemaining", "status": "True", "lastTransitionTime": now,
                    "reason": "SomeResourcesRemain", "message": "Some resources are remaining: " + ", ".join(parts)})
    fparts = sorted(f"{f} in {n} resource instances" for f, n in finalizers_remaining.items() if n)
    if finalizers_remaining:
        out.append({"type": "NamespaceFinalizersRemaining", "status": "True", "lastTransitionTime": now,
                    "reason": "SomeFinalizerRemain", "message": "Some finalizers are remaining: " + ", ".join(fparts)})
    return out


def update_conditions(status: dict, new_conditions: list[dict], now: str) -> bool:
    """``updateConditions``: each maintained type gets its new (failure) condition or the OK one; True if changed.

    Parameters
    ----------
    status : dict
        The namespace's status, changed in place.
    new_conditions : list of dict
        The failure conditions found in this pass.
    now : str

    Examples
    --------
    >>> st = {}
    >>> update_conditions(st, [], "t0"), [c["reason"] for c in st["conditions"]][:2]
    (True, ['ResourcesDiscovered', 'ParsedGroupVersions'])
    >>> update_conditions(st, [], "t1")
    False
    """
    changed = False
    conds = status.setdefault("conditions", [])
    for ctype in CONDITION_TYPES:
        new = next((c for c in new_conditions if c["type"] == ctype), None)
        if new is None:
            new = {"type": ctype, "status": "False", "lastTransitionTime": now, "reason": OK_REASONS[ctype],
                   "message": OK_MESSAGES[ctype]}
        old = next((c for c in conds if c.get("type") == ctype), None)
        if old is None:
            conds.append(dict(new))
            changed = True
        elif (old.get("status"), old.get("message"), old.get("reason")) != \
                (new["status"], new["message"], new["reason"]):
            if old.get("status") != new["status"]:
                old["lastTransitionTime"] = now
            old.update(status=new["status"], reason=new["reason"], message=new["message"])
            changed = True
    return changed


class NamespaceController(Controller):
    """``namespace.NamespaceController`` with the ``NamespacedResourcesDeleter``.

    Notes
    -----
    Simplified: resources are deleted one by one (no ``deletecollection``);
    discovery is read from the API server's registry (built-in kinds and the
    served CRDs) rather than over HTTP, and cannot fail, so the discovery and group-version conditions are
    always the OK ones; no periodic resync (``namespace-sync-period``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/namespace/namespace_controller.go
    """

    name = "namespace-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        """Queue every namespace that has a ``deletionTimestamp``."""
        self.ns_informer = self.informers.informer_for("namespaces")
        self.ns_informer.add_event_handler(self._enqueue_namespace, lambda o, n: self._enqueue_namespace(n),
                                           lambda o: None)

    def _enqueue_namespace(self, ns: dict) -> None:
        if ns["metadata"].get("deletionTimestamp"):
            self.enqueue(ns["metadata"]["name"])

    def reconcile(self, key: str) -> Result | None:
        """``syncNamespaceFromKey``; a :class:`ResourcesRemainingError` becomes a requeue after ``estimate/2+1`` s."""
        if self.ns_informer.lister.get("", key) is None:
            return None
        try:
            self.delete(key)
        except ResourcesRemainingError as e:
            return Result(requeue_after_seconds=float(e.estimate // 2 + 1))
        return None

    def delete(self, name: str) -> None:
        """``NamespacedResourcesDeleter.Delete``.

        Parameters
        ----------
        name : str
            The namespace.

        Raises
        ------
        ResourcesRemainingError
            When content is still terminating.
        ApiError
            When a write fails (retried with back-off by the caller).
        """
        try:
            ns = self.client.get("namespaces", name)
        except ApiError as e:
            if e.code == 404:
                return
            raise
        if not ns["metadata"].get("deletionTimestamp"):
            return
        if (ns.get("status") or {}).get("phase") != "Terminating":
            ns.setdefault("status", {})["phase"] = "Terminating"
            ns = self.client.update_status("namespaces", ns)
        estimate = self.delete_all_content(ns)
        if estimate > 0:
            raise ResourcesRemainingError(estimate)
        self.finalize_namespace(ns)

    def finalize_namespace(self, ns: dict) -> None:
        """Remove ``kubernetes`` from ``spec.finalizers`` through the ``finalize`` subresource.

        Parameters
        ----------
        ns : dict
            The namespace as last read.
        """
        for attempt in range(5):  # retryOnConflictError
            if attempt:
                try:
                    ns = self.client.get("namespaces", ns["metadata"]["name"])
                except ApiError as e:
                    if e.code == 404:
                        return
                    raise
            finalizers = [f for f in (ns.get("spec") or {}).get("finalizers") or [] if f != FINALIZER_KUBERNETES]
            new = dict(ns)
            new["spec"] = dict(ns.get("spec") or {}, finalizers=sorted(set(finalizers)))
            try:
                self.client.update("namespaces", new, subresource="finalize")
                return
            except ApiError as e:
                if e.code == 404:
                    return
                if e.code != 409:
                    raise

    def delete_all_content(self, ns: dict) -> int:
        """``deleteAllContent``: delete every namespaced object; the seconds to wait (0: empty).

        Parameters
        ----------
        ns : dict
        """
        name = ns["metadata"]["name"]
        deleted_at = parse_timestamp(ns["metadata"]["deletionTimestamp"])
        now = self.ctx.server.timestamp()
        estimate = 0
        errors: list[str] = []
        num_remaining: dict[str, int] = {}
        finalizers_remaining: dict[str, int] = {}
        for ri in deletable_namespaced_resources(self.client.server.crds.served()):  # discovery, every pass
            try:
                gvr_estimate, remaining, finalizers = self._delete_all_content_for(ri, name, deleted_at)
            except ApiError as e:
                errors.append(str(e))
                continue
            except _UnexpectedRemaining as e:
                errors.append(str(e))
                gvr_estimate, remaining, finalizers = 0, e.remaining, {}
            if remaining:
                num_remaining[f"{ri.resource}.{ri.group}"] = remaining
            for f, n in finalizers.items():
                finalizers_remaining[f] = finalizers_remaining.get(f, 0) + n
            estimate = max(estimate, gvr_estimate)
        conds = content_conditions(num_remaining, finalizers_remaining, now)
        if errors:
            conds.append({"type": "NamespaceDeletionContentFailure", "status": "True", "lastTransitionTime": now,
                          "reason": "ContentDeletionFailed",
                          "message": f"Failed to delete all resource types, {len(errors)} remaining: "
                                     + ", ".join(sorted(errors))})
        try:
            cur = self.client.get("namespaces", name)
            st = cur.setdefault("status", {})
            if update_conditions(st, conds, now):
                self.client.update_status("namespaces", cur)
        except ApiError:
            pass
        if errors:
            raise ApiError({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 500,
                            "reason": "InternalError", "message": "; ".join(sorted(errors))})
        return estimate

    def _delete_all_content_for(self, ri: ResourceInfo, namespace: str, deleted_at: float) -> tuple[int, int, dict]:
        estimate = self._estimate_graceful_termination(ri, namespace, deleted_at)
        name = f"{ri.resource}.{ri.version}.{ri.group}" if ri.group else ri.resource  # exactly this version
        items = self.client.list(name, namespace)["items"]
        for item in items:
            md = item["metadata"]
            if md.get("deletionTimestamp"):
                continue
            try:
                self.client.delete(name, md["name"], namespace, propagation_policy="Background")
            except ApiError as e:
                if e.code not in (404, 405):
                    raise
        items = self.client.list(name, namespace)["items"]
        if not items:
            return 0, 0, {}
        finalizers: dict[str, int] = {}
        for item in items:
            for f in item["metadata"].get("finalizers") or []:
                finalizers[f] = finalizers.get(f, 0) + 1
        if estimate:
            return estimate, len(items), finalizers
        if finalizers:
            return FINALIZER_ESTIMATE_SECONDS, len(items), finalizers
        raise _UnexpectedRemaining(namespace, ri, len(items))

    def _estimate_graceful_termination(self, ri: ResourceInfo, namespace: str, deleted_at: float) -> int:
        if ri.group != "" or ri.resource != "pods":
            return 0
        estimate = 0
        for pod in self.client.list("pods", namespace)["items"]:
            if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            grace = (pod.get("spec") or {}).get("terminationGracePeriodSeconds")
            if grace is not None and int(grace) > estimate:
                estimate = int(grace)
        if float(self.env.now) - deleted_at >= estimate:
            return 0
        return estimate


class _UnexpectedRemaining(KubenotesError):
    def __init__(self, namespace: str, ri: ResourceInfo, remaining: int):
        self.remaining = remaining
        gvr = f"{ri.group}/{ri.version}, Resource={ri.resource}"
        super().__init__(f"unexpected items still remain in namespace: {namespace} for gvr: {gvr}")

    def __reduce__(self) -> Any:  # pragma: no cover - pickling support only
        return (Exception, (str(self),))
