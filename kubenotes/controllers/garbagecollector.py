"""The garbage collector: deletes objects whose owners are gone, in background, foreground or orphan mode.

The GraphBuilder watches every resource that can be deleted (except Events)
and keeps a dependency graph from ``metadata.ownerReferences`` (owner uid ->
dependents). Two queues act on it:

* **attemptToDelete**: an object whose owners are all absent (404, or a
  different uid under that name) is deleted (``Background``; ``Foreground``
  when it has dependents and an owner is waiting for them). An object with
  at least one live owner only has its dangling references (and those to
  owners deleting in foreground) patched away.
* **attemptToOrphan**: an owner deleted with ``propagationPolicy: Orphan``
  (the API server adds the ``orphan`` finalizer) has its uid removed from
  every dependent's ``ownerReferences``, then its ``orphan`` finalizer removed.

Foreground deletion: the API server gives the owner a ``deletionTimestamp``
and the ``foregroundDeletion`` finalizer; the GC deletes the dependents and
removes the finalizer once no dependent with ``blockOwnerDeletion: true``
is left. Background (``kubectl delete``'s default ``--cascade=background``):
the owner goes at once and its dependents are collected afterwards.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem,
orphanDependents)
kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/graph_builder.go (processGraphChanges, processTransitions)
kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/graph.go
https://kubernetes.io/docs/concepts/architecture/garbage-collection/
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubenotes.apiserver.apiextensions.registry import CustomResourceInfo
from kubenotes.apiserver.bootstrap_policy import ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.resources import RESOURCES, ResourceInfo, resource_for_kind
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result

__all__ = ["GarbageCollector", "Node", "ObjectReference", "FINALIZER_ORPHAN", "FINALIZER_DELETE_DEPENDENTS",
           "IGNORED_RESOURCES", "monitored_resources", "CONTROLLER_POLICY", "MONITOR_SYNC_PERIOD_SECONDS"]

#: Upstream's ``system:controller:generic-garbage-collector`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("generic-garbage-collector")``, ``cmd/kube-controller-manager/app/core.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("generic-garbage-collector", (
    policy_rule(("get", "list", "watch", "patch", "update", "delete"), ("*",), ("*",)),
    events_rule(),
))

FINALIZER_ORPHAN = "orphan"
FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion"
#: How often the monitors follow the served resources (``garbageCollector.Sync(ctx, discoveryClient, 30*time.Second)``
#: in cmd/kube-controller-manager/app/core.go).
MONITOR_SYNC_PERIOD_SECONDS = 30.0
#: ``ignoredResources``: never collected (events).
IGNORED_RESOURCES = frozenset({("", "events")})


def monitored_resources() -> list[ResourceInfo]:
    """``GetDeletableResources`` minus the ignored ones: resources with ``delete``, ``list`` and ``watch``."""
    return [ri for ri in RESOURCES if {"delete", "list", "watch"} <= set(ri.verbs)
            and (ri.group, ri.resource) not in IGNORED_RESOURCES]


@dataclass(frozen=True)
class ObjectReference:
    """``objectReference``: an owner reference plus the namespace (uid identifies it)."""

    uid: str
    api_version: str
    kind: str
    name: str
    namespace: str = ""

    def key(self) -> str:
        """``Kind/namespace/name`` (``Kind/name`` for cluster-scoped), as :meth:`GarbageCollector.graph` names nodes."""
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"


@dataclass
class Node:
    """A graph node (``garbagecollector.node``)."""

    identity: ObjectReference
    owners: list[dict] = field(default_factory=list)
    dependents: set[str] = field(default_factory=set)  # uids
    being_deleted: bool = False
    deleting_dependents: bool = False
    virtual: bool = True


def _identity(obj: dict) -> ObjectReference:
    md = obj["metadata"]
    return ObjectReference(md.get("uid", ""), obj.get("apiVersion", ""), obj.get("kind", ""), md["name"],
                           md.get("namespace", "") or "")


class GarbageCollector(Controller):
    """``garbagecollector.GarbageCollector`` with its ``GraphBuilder``.

    Attributes
    ----------
    uid_to_node : dict[str, Node]
        The dependency graph.
    absent_owner_cache : set[str]
        Owner uids verified absent.

    Notes
    -----
    Simplified: the graph is updated synchronously in the informer handlers
    (upstream queues graph changes and one goroutine applies them); one
    workqueue holds both attemptToDelete (``delete/<uid>``) and
    attemptToOrphan (``orphan/<uid>``) items; owner lookups use the API
    (a live GET, as upstream) rather than the informer caches.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/garbagecollector/garbagecollector.go
    """

    name = "garbage-collector-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        """Register graph handlers on an informer for every monitored resource."""
        self.uid_to_node: dict[str, Node] = {}
        self.absent_owner_cache: set[str] = set()
        self.monitors: dict[str, Any] = {}
        for ri in monitored_resources():
            name = f"{ri.resource}.{ri.group}" if ri.group else ri.resource
            inf = self.informers.informer_for(name)
            self.monitors[name] = inf
            inf.add_event_handler(self._on_add, self._on_update, self._on_delete)
        self.every(MONITOR_SYNC_PERIOD_SECONDS, self.sync_monitors)

    def sync_monitors(self) -> None:
        """``GarbageCollector.Sync``: monitor the custom resources served now, stop monitoring the ones gone.

        Upstream re-reads discovery every 30 s and resyncs its monitors when the deletable
        resources changed; a custom resource's objects join the graph from then on.
        """
        served: dict[str, ResourceInfo] = {}
        for ri in self.client.server.crds.served():  # by version priority: the first is the preferred version
            if {"delete", "list", "watch"} <= set(ri.verbs):
                served.setdefault(f"{ri.resource}.{ri.group}", ri)
        for name, ri in served.items():
            if name not in self.monitors:
                inf = self.informers.informer_for(f"{ri.resource}.{ri.version}.{ri.group}")
                self.monitors[name] = inf
                inf.add_event_handler(self._on_add, self._on_update, self._on_delete)
        for name in [n for n, inf in self.monitors.items() if n not in served
                     and isinstance(inf.resource, CustomResourceInfo)]:
            self.informers.forget(self.monitors.pop(name))

    # ------------------------------------------------------------ graph (GraphBuilder)
    def _on_add(self, obj: dict) -> None:
        self._process_change(None, obj)

    def _on_update(self, old: dict, new: dict) -> None:
        self._process_change(old, new)

    def _on_delete(self, obj: Any) -> None:
        o = unwrap_deleted(obj)
        if o is None:
            return
        uid = o["metadata"].get("uid", "")
        node = self.uid_to_node.get(uid)
        if node is None:
            return
        self._remove_node(node)
        # the object is gone: its dependents may be garbage now; owners waiting on it may finish
        for dep in sorted(node.dependents):
            self.enqueue("delete/" + dep)
        for ref in node.owners:
            owner = self.uid_to_node.get(ref.get("uid", ""))
            if owner is not None and owner.deleting_dependents:
                self.enqueue("delete/" + owner.identity.uid)

    def _remove_node(self, node: Node) -> None:
        self.uid_to_node.pop(node.identity.uid, None)
        for ref in node.owners:
            owner = self.uid_to_node.get(ref.get("uid", ""))
            if owner is not None:
                owner.dependents.discard(node.identity.uid)
                if owner.virtual and not owner.dependents:
                    self.uid_to_node.pop(owner.identity.uid, None)

    def _process_change(self, old: dict | None, obj: dict) -> None:
        md = obj["metadata"]
        uid = md.get("uid", "")
        if not uid:
            return
        ident = _identity(obj)
        refs = list(md.get("ownerReferences") or [])
        being_deleted = bool(md.get("deletionTimestamp"))
        finalizers = md.get("finalizers") or []
        node = self.uid_to_node.get(uid)
        if node is None or node.virtual:
            if node is None:
                node = Node(ident)
                self.uid_to_node[uid] = node
            else:
                node.identity = ident
            node.virtual = False
            node.owners = refs
            node.being_deleted = being_deleted
            self._add_dependent_to_owners(node, refs)
        else:
            old_uids = {r.get("uid") for r in node.owners}
            new_uids = {r.get("uid") for r in refs}
            for r in node.owners:
                if r.get("uid") not in new_uids:
                    owner = self.uid_to_node.get(r.get("uid", ""))
                    if owner is not None:
                        owner.dependents.discard(uid)
            added = [r for r in refs if r.get("uid") not in old_uids]
            changed_block = [r for r in refs if r.get("uid") in old_uids and
                             next((o for o in node.owners if o.get("uid") == r.get("uid")), {}).get(
                                 "blockOwnerDeletion") and not r.get("blockOwnerDeletion")]
            node.owners = refs
            node.being_deleted = being_deleted
            self._add_dependent_to_owners(node, added)
            # an owner waiting for its blocking dependents may be unblocked
            for r in changed_block:
                owner = self.uid_to_node.get(r.get("uid", ""))
                if owner is not None and owner.deleting_dependents:
                    self.enqueue("delete/" + owner.identity.uid)
            for r in old_uids - new_uids:
                owner = self.uid_to_node.get(r or "")
                if owner is not None and owner.deleting_dependents:
                    self.enqueue("delete/" + owner.identity.uid)
        # processTransitions
        if being_deleted and FINALIZER_ORPHAN in finalizers:
            self.enqueue("orphan/" + uid)
        if being_deleted and FINALIZER_DELETE_DEPENDENTS in finalizers:
            if not node.deleting_dependents:
                node.deleting_dependents = True
                for dep in sorted(node.dependents):
                    self.enqueue("delete/" + dep)
            self.enqueue("delete/" + uid)
        else:
            node.deleting_dependents = False
        if refs and (old is None or refs != (old["metadata"].get("ownerReferences") or [])):
            # references to owners not observed (or known absent) are verified
            for r in refs:
                owner = self.uid_to_node.get(r.get("uid", ""))
                if owner is None or owner.virtual or r.get("uid") in self.absent_owner_cache:
                    self.enqueue("delete/" + uid)
                    break

    def _add_dependent_to_owners(self, node: Node, refs: list[dict]) -> None:
        for r in refs:
            ouid = r.get("uid", "")
            owner = self.uid_to_node.get(ouid)
            if owner is None:
                ns = node.identity.namespace if self._namespaced(r) else ""
                owner = Node(ObjectReference(ouid, r.get("apiVersion", ""), r.get("kind", ""), r.get("name", ""),
                                             ns), virtual=True)
                self.uid_to_node[ouid] = owner
                self.enqueue("delete/" + ouid)  # verify the virtual owner
            owner.dependents.add(node.identity.uid)

    def _namespaced(self, ref: dict) -> bool:
        ri = self._resource(ObjectReference("", ref.get("apiVersion", ""), ref.get("kind", ""), "", ""))
        return True if ri is None else ri.namespaced

    def graph(self) -> list[tuple[str, str]]:
        """The ownership edges ``(owner, dependent)``, each named ``Kind/namespace/name``, sorted.

        Virtual owners (referenced, not observed) appear too.
        """
        edges = []
        for node in self.uid_to_node.values():
            for dep_uid in node.dependents:
                dep = self.uid_to_node.get(dep_uid)
                if dep is not None:
                    edges.append((node.identity.key(), dep.identity.key()))
        return sorted(edges)

    # ------------------------------------------------------------ workers
    def reconcile(self, key: str) -> Result | None:
        """``delete/<uid>``: ``attemptToDeleteItem``; ``orphan/<uid>``: ``attemptToOrphan``."""
        kind, _, uid = key.partition("/")
        node = self.uid_to_node.get(uid)
        if node is None:
            return None
        if kind == "orphan":
            return self.attempt_to_orphan(node)
        return self.attempt_to_delete_item(node)

    def _resource(self, ident: ObjectReference) -> ResourceInfo | None:
        """The REST mapping of ``ident``'s kind: a built-in resource or a served custom resource."""
        try:
            return resource_for_kind(ident.kind, ident.api_version)
        except ApiError:
            return self.client.server.crds.for_kind(ident.api_version, ident.kind)

    def _get_object(self, ident: ObjectReference) -> dict | None:
        ri = self._resource(ident)
        if ri is None:
            return None
        name = f"{ri.resource}.{ri.group}" if ri.group else ri.resource
        try:
            return self.client.get(name, ident.name, ident.namespace or None)
        except ApiError as e:
            if e.code == 404:
                return None
            raise

    def _virtual_delete(self, node: Node) -> None:
        """The object is absent: drop its node and look at its dependents (``enqueueVirtualDeleteEvent``)."""
        self.absent_owner_cache.add(node.identity.uid)
        self.uid_to_node.pop(node.identity.uid, None)
        for dep in sorted(node.dependents):
            self.enqueue("delete/" + dep)

    def attempt_to_delete_item(self, item: Node) -> Result | None:
        """``attemptToDeleteItem``: delete the object if it has no solid owner; patch away dangling references.

        Parameters
        ----------
        item : Node
            A graph node.
        """
        if item.being_deleted and not item.deleting_dependents:
            return None
        if self._resource(item.identity) is None:
            return None  # a kind the API does not serve: cannot be verified
        latest = self._get_object(item.identity)
        if latest is None or latest["metadata"].get("uid") != item.identity.uid:
            self._virtual_delete(item)
            return None
        if item.virtual:
            # the owner exists after all: keep it virtual until its informer adds it, and look again with back-off
            # meanwhile, as upstream's worker requeues an unobserved item (kubernetes#56121): an owner deleted
            # before any informer reported it (its kind not yet monitored) is then found gone
            return Result(requeue=True)
        if item.deleting_dependents:
            return self._process_deleting_dependents_item(item)
        refs = latest["metadata"].get("ownerReferences") or []
        if not refs:
            return None
        solid, dangling, waiting = self._classify_references(item, refs)
        if solid:
            if not dangling and not waiting:
                return None
            remove = {r["uid"] for r in dangling + waiting}
            self._patch_owner_refs(latest, remove)
            return None
        if waiting and item.dependents:
            for dep_uid in sorted(item.dependents):
                dep = self.uid_to_node.get(dep_uid)
                if dep is not None and dep.deleting_dependents:
                    self._unblock_owner_references(latest)
                    break
            self._delete_object(item.identity, latest, "Foreground")
            return None
        finalizers = latest["metadata"].get("finalizers") or []
        if FINALIZER_ORPHAN in finalizers:
            policy = "Orphan"
        elif FINALIZER_DELETE_DEPENDENTS in finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        self._delete_object(item.identity, latest, policy)
        return None

    def _classify_references(self, item: Node, refs: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
        solid, dangling, waiting = [], [], []
        for r in refs:
            ouid = r.get("uid", "")
            if ouid in self.absent_owner_cache:
                dangling.append(r)
                continue
            ns = item.identity.namespace if self._namespaced(r) else ""
            oref = ObjectReference(ouid, r.get("apiVersion", ""), r.get("kind", ""), r.get("name", ""), ns)
            if self._resource(oref) is None:
                solid.append(r)  # no REST mapping for the owner's kind: upstream errors and retries, never deletes
                continue
            owner = self._get_object(oref)
            if owner is None or owner["metadata"].get("uid") != ouid:
                self.absent_owner_cache.add(ouid)
                dangling.append(r)
                continue
            omd = owner["metadata"]
            if omd.get("deletionTimestamp") and FINALIZER_DELETE_DEPENDENTS in (omd.get("finalizers") or []):
                waiting.append(r)
            else:
                solid.append(r)
        return solid, dangling, waiting

    def _resource_name(self, ident: ObjectReference) -> str | None:
        ri = self._resource(ident)
        if ri is None:
            return None
        return f"{ri.resource}.{ri.group}" if ri.group else ri.resource

    def _delete_object(self, ident: ObjectReference, latest: dict, policy: str) -> None:
        name = self._resource_name(ident)
        if name is None:
            return
        try:
            self.client.delete(name, ident.name, ident.namespace or None, propagation_policy=policy,
                               preconditions={"uid": ident.uid})
        except ApiError as e:
            if e.code not in (404, 409):
                raise

    def _patch_owner_refs(self, latest: dict, remove_uids: set[str]) -> None:
        """``deleteOwnerRefStrategicMergePatch``: drop the references to ``remove_uids``."""
        ident = _identity(latest)
        name = self._resource_name(ident)
        if name is None:
            return
        refs = [r for r in latest["metadata"].get("ownerReferences") or [] if r.get("uid") not in remove_uids]
        new = deep_copy(latest)
        if refs:
            new["metadata"]["ownerReferences"] = refs
        else:
            new["metadata"].pop("ownerReferences", None)
        try:
            self.client.update(name, new, ident.namespace or None)
        except ApiError as e:
            if e.code != 404:
                raise

    def _unblock_owner_references(self, latest: dict) -> None:
        """``unblockOwnerReferencesStrategicMergePatch``: set ``blockOwnerDeletion: false`` on every reference."""
        ident = _identity(latest)
        name = self._resource_name(ident)
        if name is None:
            return
        new = deep_copy(latest)
        for r in new["metadata"].get("ownerReferences") or []:
            if r.get("blockOwnerDeletion"):
                r["blockOwnerDeletion"] = False
        self.client.update(name, new, ident.namespace or None)

    def _blocking_dependents(self, item: Node) -> list[Node]:
        out = []
        for dep_uid in sorted(item.dependents):
            dep = self.uid_to_node.get(dep_uid)
            if dep is None:
                continue
            for r in dep.owners:
                if r.get("uid") == item.identity.uid and r.get("blockOwnerDeletion"):
                    out.append(dep)
                    break
        return out

    def _process_deleting_dependents_item(self, item: Node) -> Result | None:
        """Remove ``foregroundDeletion`` once no blocking dependent is left; else push them along."""
        blocking = self._blocking_dependents(item)
        if not blocking:
            self._remove_finalizer(item, FINALIZER_DELETE_DEPENDENTS)
            return None
        for dep in blocking:
            if not dep.deleting_dependents:
                self.enqueue("delete/" + dep.identity.uid)
        return None

    def _remove_finalizer(self, item: Node, finalizer: str) -> None:
        name = self._resource_name(item.identity)
        if name is None:
            return
        for _ in range(5):
            latest = self._get_object(item.identity)
            if latest is None:
                return
            fins = latest["metadata"].get("finalizers") or []
            if finalizer not in fins:
                return
            new = deep_copy(latest)
            rest = [f for f in fins if f != finalizer]
            if rest:
                new["metadata"]["finalizers"] = rest
            else:
                new["metadata"].pop("finalizers", None)
            try:
                self.client.update(name, new, item.identity.namespace or None)
                return
            except ApiError as e:
                if e.code == 404:
                    return
                if e.code != 409:
                    raise

    def attempt_to_orphan(self, owner: Node) -> Result | None:
        """``attemptToOrphanWorker``: drop the owner from its dependents' references, then its ``orphan`` finalizer.

        Parameters
        ----------
        owner : Node
            The owner deleted with ``propagationPolicy: Orphan``.
        """
        for dep_uid in sorted(owner.dependents):
            dep = self.uid_to_node.get(dep_uid)
            if dep is None or dep.virtual:
                continue
            latest = self._get_object(dep.identity)
            if latest is None:
                continue
            if any(r.get("uid") == owner.identity.uid for r in latest["metadata"].get("ownerReferences") or []):
                self._patch_owner_refs(latest, {owner.identity.uid})
        self._remove_finalizer(owner, FINALIZER_ORPHAN)
        return None
