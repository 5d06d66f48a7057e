"""The StatefulSet controller: pods with stable names and storage, created and replaced in order.

Pods are named ``<set>-<ordinal>`` for ordinals ``start .. start+replicas-1``
(``spec.ordinals.start``, default 0), labelled
``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index`` and
``controller-revision-hash: <revision name>``, with ``hostname`` = pod name and
``subdomain`` = ``spec.serviceName``. Each ``volumeClaimTemplate`` gives the
pod a PersistentVolumeClaim ``<claim>-<set>-<ordinal>``, created before the
pod and kept after it (retention policy ``Retain`` by default).

With ``podManagementPolicy: OrderedReady`` (the default) the controller
creates one pod at a time and waits for it to be Running and Ready (and
available for ``minReadySeconds``) before the next, and removes surplus pods
one at a time from the highest ordinal; ``Parallel`` creates and deletes
them all at once. A ``RollingUpdate`` deletes, from the highest ordinal down
to ``partition``, one pod at a time whose revision is not the update
revision, waiting for each replacement to be healthy; ``OnDelete`` leaves
that to the user.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/statefulset/stateful_set_control.go (updateStatefulSet, processReplica, processCondemned, getStatefulSetRevisions)
kubernetes/kubernetes@v1.34.0 pkg/controller/statefulset/stateful_set_utils.go (getPodName, newStatefulSetPod, newVersionedStatefulSetPod, updateStorage, isHealthy)
kubernetes/kubernetes@v1.34.0 pkg/controller/statefulset/stateful_pod_control.go (CreateStatefulPod, recordPodEvent, recordClaimEvent)
kubernetes/kubernetes@v1.34.0 pkg/controller/history/controller_history.go (NewControllerRevision, HashControllerRevision)
https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/
"""

from __future__ import annotations

import re
from typing import Any

from kubenotes.apiserver.bootstrap_policy import (
    APPS_GROUP,
    LEGACY_GROUP,
    READ,
    ControllerPolicy,
    events_rule,
    policy_rule,
)
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.api.meta import get_controller_of, new_controller_ref
from kubenotes.controllers.controller_utils import resolve_controller_ref
from kubenotes.api.podutil import is_pod_ready
from kubenotes.controllers.podutil import is_pod_available_inclusive, unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result, key_of, split_key
from kubenotes.controllers.workload_util import (
    CACHE_CATCH_UP_SECONDS,
    CONTROLLER_REVISION_HASH_LABEL,
    WrittenVersions,
    claim_pods,
    controller_revision_name,
    hash_revision_data,
    label_selector,
    pod_from_template,
    template_patch,
)

__all__ = ["StatefulSetController", "get_ordinal", "get_pod_name", "get_persistent_volume_claim_name",
           "new_stateful_set_pod", "is_healthy", "STATEFULSET_POD_NAME_LABEL", "POD_INDEX_LABEL",
           "CONTROLLER_REVISION_HASH_HISTORY_LABEL", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:statefulset-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("statefulset-controller")``, ``cmd/kube-controller-manager/app/apps.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("statefulset-controller", (
    policy_rule(("list", "watch"), (LEGACY_GROUP,), ("pods",)),
    policy_rule(READ, (APPS_GROUP,), ("statefulsets",)),
    policy_rule(("update",), (APPS_GROUP,), ("statefulsets/status",)),
    policy_rule(("update",), (APPS_GROUP,), ("statefulsets/finalizers",)),
    policy_rule(("get", "create", "delete", "update", "patch"), (LEGACY_GROUP,), ("pods",)),
    policy_rule(("get", "create", "delete", "update", "patch", "list", "watch"), (APPS_GROUP,),
                ("controllerrevisions",)),
    policy_rule(("get", "create", "list", "watch"), (LEGACY_GROUP,), ("persistentvolumeclaims",)),
    policy_rule(("update", "delete"), (LEGACY_GROUP,), ("persistentvolumeclaims",)),
    policy_rule(("update",), (LEGACY_GROUP,), ("pods/finalizers",)),
    events_rule(),
))

#: ``apps.StatefulSetPodNameLabel``.
STATEFULSET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
#: ``apps.PodIndexLabel`` (PodIndexLabel, GA in v1.32).
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
#: ``history.ControllerRevisionHashLabel`` on ControllerRevisions.
CONTROLLER_REVISION_HASH_HISTORY_LABEL = "controller.kubernetes.io/hash"

_ORDINAL_RE = re.compile(r"^(.*)-([0-9]+)$")


def get_ordinal(pod_name: str) -> tuple[str, int]:
    """``getParentNameAndOrdinal``: ``("web", 2)`` for ``web-2``; ordinal -1 when the name has none.

    Examples
    --------
    >>> get_ordinal("web-2"), get_ordinal("my-db-10"), get_ordinal("web")
    (('web', 2), ('my-db', 10), ('', -1))
    """
    m = _ORDINAL_RE.match(pod_name)
    if not m:
        return "", -1
    return m.group(1), int(m.group(2))


def get_pod_name(set_name: str, ordinal: int) -> str:
    """``getPodName``: ``<set>-<ordinal>``."""
    return f"{set_name}-{ordinal}"


def get_persistent_volume_claim_name(set_name: str, claim_name: str, ordinal: int) -> str:
    """``getPersistentVolumeClaimName``: ``<claim>-<set>-<ordinal>``.

    Examples
    --------
    >>> get_persistent_volume_claim_name("web", "www", 0)
    'www-web-0'
    """
    return f"{claim_name}-{set_name}-{ordinal}"


def _start_ordinal(sts: dict) -> int:
    return int((((sts.get("spec") or {}).get("ordinals")) or {}).get("start", 0) or 0)


def _end_ordinal(sts: dict) -> int:
    return _start_ordinal(sts) + int((sts.get("spec") or {}).get("replicas", 1)) - 1


def _is_created(pod: dict) -> bool:
    return bool((pod.get("status") or {}).get("phase"))


def _is_terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def _is_running_and_ready(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running" and is_pod_ready(pod)


def is_healthy(pod: dict) -> bool:
    """``isHealthy``: Running, Ready and not terminating."""
    return _is_running_and_ready(pod) and not _is_terminating(pod)


def new_stateful_set_pod(sts: dict, ordinal: int, revision_name: str, template: dict | None = None) -> dict:
    """``newStatefulSetPod`` + ``setPodRevision``: the pod for one ordinal, with identity and storage.

    Examples
    --------
    >>> sts = {"metadata": {"name": "web", "namespace": "default", "uid": "u"},
    ...        "spec": {"serviceName": "nginx", "template": {"metadata": {"labels": {"app": "nginx"}},
    ...                 "spec": {"containers": [{"name": "nginx"}]}},
    ...                 "volumeClaimTemplates": [{"metadata": {"name": "www"}}]}}
    >>> pod = new_stateful_set_pod(sts, 1, "web-7c9d")
    >>> pod["metadata"]["name"], pod["spec"]["hostname"], pod["spec"]["volumes"][0]["persistentVolumeClaim"]
    ('web-1', 'web-1', {'claimName': 'www-web-1'})
    >>> sorted(pod["metadata"]["labels"].items())[:2]
    [('app', 'nginx'), ('apps.kubernetes.io/pod-index', '1')]
    """
    spec = sts.get("spec") or {}
    name = get_pod_name(sts["metadata"]["name"], ordinal)
    labels = {STATEFULSET_POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal),
              CONTROLLER_REVISION_HASH_LABEL: revision_name}
    pod = pod_from_template(template if template is not None else (spec.get("template") or {}), sts, "apps/v1",
                            "StatefulSet", name=name, extra_labels=labels)
    pspec = pod["spec"]
    pspec["hostname"] = name
    if spec.get("serviceName"):
        pspec["subdomain"] = spec["serviceName"]
    vols = [v for v in pspec.get("volumes") or []]
    for claim in spec.get("volumeClaimTemplates") or []:
        cname = (claim.get("metadata") or {}).get("name", "")
        vols = [v for v in vols if v.get("name") != cname]
        vols.append({"name": cname, "persistentVolumeClaim": {
            "claimName": get_persistent_volume_claim_name(sts["metadata"]["name"], cname, ordinal)}})
    if vols:
        pspec["volumes"] = vols
    return pod


class StatefulSetController(Controller):
    """``statefulset.StatefulSetController`` with ``defaultStatefulSetControl``.

    Parameters
    ----------
    ctx : ControllerContext
        Clock, informers, client factory, flags (see :class:`~kubenotes.controllers.reconciler.ControllerContext`).

    Notes
    -----
    The claims are bound by the PersistentVolume controller
    (:mod:`kubenotes.controllers.volume.persistentvolume`). Retention policy
    ``whenDeleted: Delete`` gives claims an ownerReference to the set and
    ``whenScaled: Delete`` one to the pod when it is removed by a scale-down,
    for the garbage collector; the stale-claim checks are not modelled.
    ``maxUnavailable`` for rolling updates (the MaxUnavailableStatefulSet
    gate, off in v1.34) is not modelled, and neither is updating a pod whose
    identity or storage drifted (``UpdateStatefulPod``). Revision hashes are
    FNV-32a over sorted-key JSON, so names differ from a real cluster's.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/statefulset/stateful_set.go

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
    ...         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    >>> sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web", "namespace": "default"},
    ...        "spec": {"replicas": 2, "serviceName": "web", "selector": {"matchLabels": {"app": "web"}},
    ...                 "template": {"metadata": {"labels": {"app": "web"}},
    ...                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    >>> c = Cluster([node, sts], controllers=["statefulset-controller"], authorization=False)
    >>> c.run(until=10)
    >>> [(p["metadata"]["name"], p["metadata"]["creationTimestamp"]) for p in c.list("pods", "default")]
    [('web-0', '2025-08-27T00:00:00Z'), ('web-1', '2025-08-27T00:00:02Z')]
    """

    name = "statefulset-controller"
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        self.written = WrittenVersions()
        self.sets = self.informers.informer_for("statefulsets")
        self.pods = self.informers.informer_for("pods")
        self.revisions = self.informers.informer_for("controllerrevisions")
        self.pvcs = self.informers.informer_for("persistentvolumeclaims")
        self.sets.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur),
                                    lambda o: self.enqueue(unwrap_deleted(o)))
        self.pods.add_event_handler(self._pod_changed, self._update_pod,
                                    lambda o: self._pod_changed(unwrap_deleted(o)))
        self.revisions.add_event_handler(self._pod_changed, lambda old, cur: self._pod_changed(cur),
                                         lambda o: self._pod_changed(unwrap_deleted(o)))

    def _set_key_for(self, obj: dict) -> str | None:
        """The key of the StatefulSet controlling ``obj`` (a pod or ControllerRevision), or None."""
        sts = resolve_controller_ref(self.sets.lister, obj["metadata"].get("namespace", ""), get_controller_of(obj),
                                     "StatefulSet")
        return None if sts is None else key_of(sts)

    def _pod_changed(self, obj: dict) -> None:
        key = self._set_key_for(obj)
        if key is not None:
            self.enqueue(key)

    def _update_pod(self, old: dict, cur: dict) -> None:
        key = self._set_key_for(cur) or self._set_key_for(old)
        if key is None:
            return
        self.enqueue(key)
        sts = self.sets.lister.get(*split_key(key))
        mrs = int(((sts or {}).get("spec") or {}).get("minReadySeconds", 0) or 0)
        if mrs > 0 and is_pod_ready(cur) and not is_pod_ready(old):
            self.enqueue_after(key, mrs + 1)

    # ------------------------------------------------------------ events
    def _record_pod_event(self, verb: str, sts: dict, pod: dict, err: ApiError | None) -> None:
        name, sname = pod["metadata"]["name"], sts["metadata"]["name"]
        if err is None:
            self.event(sts, "Normal", f"Successful{verb.title()}", f"{verb.lower()} Pod {name} in StatefulSet "
                                                                    f"{sname} successful")
        else:
            self.event(sts, "Warning", f"Failed{verb.title()}", f"{verb.lower()} Pod {name} in StatefulSet {sname} "
                                                                f"failed error: {err}")

    def _record_claim_event(self, verb: str, sts: dict, pod: dict, claim: dict, err: ApiError | None) -> None:
        cname, name, sname = claim["metadata"]["name"], pod["metadata"]["name"], sts["metadata"]["name"]
        if err is None:
            self.event(sts, "Normal", f"Successful{verb.title()}", f"{verb.lower()} Claim {cname} Pod {name} in "
                                                                    f"StatefulSet {sname} success")
        else:
            self.event(sts, "Warning", f"Failed{verb.title()}", f"{verb.lower()} Claim {cname} for Pod {name} in "
                                                                f"StatefulSet {sname} failed error: {err}")

    # ------------------------------------------------------------ revisions
    def _revisions(self, sts: dict) -> tuple[dict, dict, int, list[dict]]:
        """``getStatefulSetRevisions``: (current, update, collisionCount, all revisions)."""
        ns = sts["metadata"]["namespace"]
        uid = sts["metadata"]["uid"]
        revs = sorted([r for r in self.revisions.lister.list(ns) if (get_controller_of(r) or {}).get("uid") == uid],
                      key=lambda r: (int(r.get("revision", 0)), r["metadata"]["name"]))
        collision = int((sts.get("status") or {}).get("collisionCount", 0) or 0)
        template = (sts.get("spec") or {}).get("template") or {}
        data = template_patch(template)
        next_rev = (int(revs[-1].get("revision", 0)) if revs else 0) + 1
        equal = [r for r in revs if r.get("data") == data]
        if equal and int(equal[-1].get("revision", 0)) == int(revs[-1].get("revision", 0)):
            update = equal[-1]
        elif equal:
            upd = deep_copy(equal[-1])
            upd["revision"] = next_rev
            update = self.client.update("controllerrevisions", upd, ns)
            revs = [r for r in revs if r["metadata"]["name"] != update["metadata"]["name"]] + [update]
        else:
            hash_ = hash_revision_data(data, collision)
            labels = dict((template.get("metadata") or {}).get("labels") or {})
            labels[CONTROLLER_REVISION_HASH_HISTORY_LABEL] = hash_
            rev = {"apiVersion": "apps/v1", "kind": "ControllerRevision",
                   "metadata": {"name": controller_revision_name(sts["metadata"]["name"], hash_), "namespace": ns,
                                "labels": labels,
                                "ownerReferences": [new_controller_ref(sts, "apps/v1", "StatefulSet")]},
                   "data": data, "revision": next_rev}
            try:
                update = self.client.create("controllerrevisions", rev, ns)
            except ApiError as e:
                if e.code != 409:
                    raise
                existing = self.client.get("controllerrevisions", rev["metadata"]["name"], ns)
                if existing.get("data") == data:
                    update = existing
                else:
                    collision += 1
                    raise
            revs = revs + [update]
        cur_name = (sts.get("status") or {}).get("currentRevision")
        current = next((r for r in revs if r["metadata"]["name"] == cur_name), None) or update
        return current, update, collision, revs

    # ------------------------------------------------------------ sync
    def reconcile(self, key: str) -> Result | None:
        """``sync`` → ``UpdateStatefulSet``: revisions, pods in order, status, history."""
        ns, name = split_key(key)
        sts = self.sets.lister.get(ns, name)
        if sts is None:
            self.written.forget(key)
            return None
        if self.written.is_stale(key, sts):
            return Result(requeue_after_seconds=CACHE_CATCH_UP_SECONDS)
        sel = (sts.get("spec") or {}).get("selector")
        selector = label_selector(sel)
        pods = claim_pods(self.client, sts, "apps/v1", "StatefulSet", selector, [
            p for p in self.pods.lister.list(ns) if get_ordinal(p["metadata"]["name"])[0] == name])
        current, update, collision, revs = self._revisions(sts)
        status, err = self._update_stateful_set(sts, current, update, collision, pods)
        self._update_status(key, sts, status)
        self._truncate_history(sts, pods, revs, current, update)
        if err is not None:
            raise err
        mrs = int((sts.get("spec") or {}).get("minReadySeconds", 0) or 0)
        if mrs > 0 and status["readyReplicas"] != status["availableReplicas"]:
            return Result(requeue_after_seconds=mrs)
        return None

    def _update_stateful_set(self, sts: dict, current: dict, update: dict, collision: int,
                             pods: list[dict]) -> tuple[dict, ApiError | None]:
        """``updateStatefulSet``."""
        spec = sts.get("spec") or {}
        status = {"observedGeneration": int(sts["metadata"].get("generation", 1)),
                  "currentRevision": current["metadata"]["name"], "updateRevision": update["metadata"]["name"],
                  "collisionCount": collision}
        start, end = _start_ordinal(sts), _end_ordinal(sts)
        replicas: list[dict | None] = [None] * max(end - start + 1, 0)
        condemned: list[dict] = []
        for p in pods:
            _, ordinal = get_ordinal(p["metadata"]["name"])
            if start <= ordinal <= end:
                replicas[ordinal - start] = p
            elif ordinal >= 0:
                condemned.append(p)
        strategy = spec.get("updateStrategy") or {}
        partition = int((strategy.get("rollingUpdate") or {}).get("partition", 0) or 0) \
            if strategy.get("type", "RollingUpdate") == "RollingUpdate" else 0
        current_template = ((current.get("data") or {}).get("spec") or {}).get("template") or {}
        current_template = {k: v for k, v in current_template.items() if k != "$patch"}
        for ordinal in range(start, end + 1):
            if replicas[ordinal - start] is None:
                if strategy.get("type", "RollingUpdate") == "RollingUpdate" and ordinal < start + partition:
                    replicas[ordinal - start] = new_stateful_set_pod(sts, ordinal, current["metadata"]["name"],
                                                                     current_template)
                else:
                    replicas[ordinal - start] = new_stateful_set_pod(sts, ordinal, update["metadata"]["name"])
        condemned.sort(key=lambda p: -get_ordinal(p["metadata"]["name"])[1])
        first_unhealthy = None
        for p in replicas:
            if not is_healthy(p) and first_unhealthy is None:
                first_unhealthy = p
        for p in reversed(condemned):
            if not is_healthy(p) and first_unhealthy is None:
                first_unhealthy = p
        self._compute_status(status, sts, current, update, [replicas, condemned])
        if sts["metadata"].get("deletionTimestamp"):
            return status, None
        monotonic = spec.get("podManagementPolicy", "OrderedReady") != "Parallel"
        mrs = float(spec.get("minReadySeconds", 0) or 0)
        now = float(self.env.now)
        try:
            for i in range(len(replicas)):
                if self._process_replica(sts, monotonic, replicas, i, mrs, now) and monotonic:
                    self._compute_status(status, sts, current, update, [replicas, condemned])
                    return status, None
            for p in condemned:
                stop = self._process_condemned(sts, first_unhealthy, monotonic, p, mrs, now)
                if stop and monotonic:
                    self._compute_status(status, sts, current, update, [replicas, condemned])
                    return status, None
        except ApiError as e:
            self._compute_status(status, sts, current, update, [replicas, condemned])
            return status, e
        self._compute_status(status, sts, current, update, [replicas, condemned])
        if strategy.get("type", "RollingUpdate") == "OnDelete":
            return status, None
        for target in range(len(replicas) - 1, partition - 1, -1):
            pod = replicas[target]
            if (pod["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL) != update["metadata"]["name"] \
                    and not _is_terminating(pod):
                err = self._delete_pod(sts, pod)
                status["currentReplicas"] -= 1
                return status, err
            if not is_healthy(pod):
                return status, None
        return status, None

    def _process_replica(self, sts: dict, monotonic: bool, replicas: list, i: int, mrs: float, now: float) -> bool:
        """``processReplica``: returns True when the ordered walk must stop here."""
        pod = replicas[i]
        phase = (pod.get("status") or {}).get("phase")
        if phase in ("Failed", "Succeeded"):
            if not _is_terminating(pod):
                err = self._delete_pod(sts, pod)
                if err is not None:
                    raise err
            return True
        if not _is_created(pod):
            self._create_pod(sts, pod)
            if monotonic:
                return True
        if phase == "Pending":
            self._create_missing_claims(sts, pod)
        if not _is_running_and_ready(pod) and monotonic:
            return True
        if not (_is_running_and_ready(pod) and is_pod_available_inclusive(pod, mrs, now)) and monotonic:
            return True
        return False

    def _process_condemned(self, sts: dict, first_unhealthy: Any, monotonic: bool, pod: dict, mrs: float,
                           now: float) -> bool:
        """``processCondemned``: returns True when the walk must stop (always after a deletion)."""
        if _is_terminating(pod):
            return monotonic
        if not _is_running_and_ready(pod) and monotonic and pod is not first_unhealthy:
            return True
        if not (_is_running_and_ready(pod) and is_pod_available_inclusive(pod, mrs, now)) and monotonic \
                and pod is not first_unhealthy:
            return True
        policy = ((sts.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {})
        if policy.get("whenScaled") == "Delete":
            self._own_claims(sts, pod, {"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
                                        "uid": pod["metadata"]["uid"]})
        err = self._delete_pod(sts, pod)
        if err is not None:
            raise err
        return True

    # ------------------------------------------------------------ pod control
    def _claims_for(self, sts: dict, pod: dict) -> list[dict]:
        """``getPersistentVolumeClaims``: the claims a pod of this set needs."""
        spec = sts.get("spec") or {}
        _, ordinal = get_ordinal(pod["metadata"]["name"])
        match_labels = ((spec.get("selector") or {}).get("matchLabels")) or {}
        out = []
        for t in spec.get("volumeClaimTemplates") or []:
            claim = deep_copy(t)
            md = claim.setdefault("metadata", {})
            cname = md.get("name", "")
            md["name"] = get_persistent_volume_claim_name(sts["metadata"]["name"], cname, ordinal)
            md["namespace"] = sts["metadata"]["namespace"]
            labels = dict(md.get("labels") or {})
            labels.update(match_labels)
            md["labels"] = labels
            claim["apiVersion"], claim["kind"] = "v1", "PersistentVolumeClaim"
            claim.pop("status", None)
            out.append(claim)
        return out

    def _create_missing_claims(self, sts: dict, pod: dict) -> None:
        """``createPersistentVolumeClaims``: create each claim the pod needs and that does not exist."""
        policy = ((sts.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {})
        ns = sts["metadata"]["namespace"]
        for claim in self._claims_for(sts, pod):
            if self.pvcs.lister.get(ns, claim["metadata"]["name"]) is not None:
                continue
            if policy.get("whenDeleted") == "Delete":
                claim["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "StatefulSet",
                                                         "name": sts["metadata"]["name"],
                                                         "uid": sts["metadata"]["uid"]}]
            try:
                self.client.create("persistentvolumeclaims", claim, ns)
            except ApiError as e:
                if e.code == 409 and e.reason == "AlreadyExists":
                    continue
                self._record_claim_event("create", sts, pod, claim, e)
                raise
            self._record_claim_event("create", sts, pod, claim, None)

    def _own_claims(self, sts: dict, pod: dict, ref: dict) -> None:
        ns = sts["metadata"]["namespace"]
        for claim in self._claims_for(sts, pod):
            cur = self.pvcs.lister.get(ns, claim["metadata"]["name"])
            if cur is None or any(r.get("uid") == ref["uid"] for r in cur["metadata"].get("ownerReferences") or []):
                continue
            # ``updateClaimOwnerRefForSetAndPod`` writes with an Update (the role grants update, not patch)
            new = deep_copy(cur)
            new["metadata"]["ownerReferences"] = list(cur["metadata"].get("ownerReferences") or []) + [ref]
            try:
                self.client.update("persistentvolumeclaims", new, ns)
            except ApiError:
                continue

    def _create_pod(self, sts: dict, pod: dict) -> dict:
        """``CreateStatefulPod``: claims first, then the pod; a SuccessfulCreate/FailedCreate Event."""
        self._create_missing_claims(sts, pod)
        try:
            out = self.client.create("pods", pod, sts["metadata"]["namespace"])
        except ApiError as e:
            if e.code == 409 and e.reason == "AlreadyExists":
                raise
            self._record_pod_event("create", sts, pod, e)
            raise
        self._record_pod_event("create", sts, pod, None)
        return out

    def _delete_pod(self, sts: dict, pod: dict) -> ApiError | None:
        """``DeleteStatefulPod``."""
        md = pod["metadata"]
        try:
            self.client.delete("pods", md["name"], md["namespace"])
        except ApiError as e:
            if e.code == 404:
                return None
            self._record_pod_event("delete", sts, pod, e)
            return e
        self._record_pod_event("delete", sts, pod, None)
        return None

    # ------------------------------------------------------------ status and history
    def _compute_status(self, status: dict, sts: dict, current: dict, update: dict, lists: list) -> None:
        """``updateStatus``/``computeReplicaStatus``."""
        mrs = float((sts.get("spec") or {}).get("minReadySeconds", 0) or 0)
        now = float(self.env.now)
        counts = dict(replicas=0, readyReplicas=0, availableReplicas=0, currentReplicas=0, updatedReplicas=0)
        for lst in lists:
            for p in lst:
                if p is None:
                    continue
                if _is_created(p):
                    counts["replicas"] += 1
                if _is_running_and_ready(p):
                    counts["readyReplicas"] += 1
                    if is_pod_available_inclusive(p, mrs, now):
                        counts["availableReplicas"] += 1
                if _is_created(p) and not _is_terminating(p):
                    rev = (p["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL)
                    if rev == current["metadata"]["name"]:
                        counts["currentReplicas"] += 1
                    if rev == update["metadata"]["name"]:
                        counts["updatedReplicas"] += 1
        status.update(counts)

    def _update_status(self, key: str, sts: dict, status: dict) -> None:
        """``updateStatefulSetStatus``: complete a finished rolling update, write only when changed."""
        spec = sts.get("spec") or {}
        if (spec.get("updateStrategy") or {}).get("type", "RollingUpdate") == "RollingUpdate" and \
                status["updatedReplicas"] == status["replicas"] and status["readyReplicas"] == status["replicas"]:
            status["currentReplicas"] = status["updatedReplicas"]
            status["currentRevision"] = status["updateRevision"]
        old = sts.get("status") or {}
        new_st = dict(old)
        new_st.update(status)
        for k in ("readyReplicas", "currentReplicas", "updatedReplicas"):
            if not new_st.get(k):
                new_st.pop(k, None)
        if new_st == old:
            return
        new = deep_copy(sts)
        new["status"] = new_st
        out = self.client.update_status("statefulsets", new, sts["metadata"]["namespace"])
        self.written.note(key, out)

    def _truncate_history(self, sts: dict, pods: list[dict], revs: list[dict], current: dict, update: dict) -> None:
        """``truncateHistory``: keep at most ``revisionHistoryLimit`` revisions no pod uses."""
        live = {current["metadata"]["name"], update["metadata"]["name"]}
        live |= {(p["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL) for p in pods}
        history = [r for r in revs if r["metadata"]["name"] not in live]
        limit = int((sts.get("spec") or {}).get("revisionHistoryLimit", 10))
        for r in history[:max(len(history) - limit, 0)]:
            try:
                self.client.delete("controllerrevisions", r["metadata"]["name"], r["metadata"]["namespace"])
            except ApiError:
                continue
