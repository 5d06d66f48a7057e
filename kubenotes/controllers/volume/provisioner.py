"""sig-storage-lib-external-provisioner's loop, and a model of an external provisioner with hostPath volumes.

:class:`ProvisionController` is the library's ``ProvisionController``, the one
home of the provision/delete loop every external provisioner shares: this
module's :class:`HostPathProvisioner` and the CSI external-provisioner
(:class:`kubenotes.controllers.volume.external_provisioner.ExternalProvisioner`)
only implement ``Provision`` and ``Delete``.

Dynamic provisioning in v1.34 happens outside kube-controller-manager: the
PersistentVolume controller annotates a claim with
``volume.kubernetes.io/storage-provisioner: <provisioner>`` and an external
provisioner (kubernetes-csi's external-provisioner, or any program built on
sig-storage-lib-external-provisioner) does the rest. This model is such a
program with a hostPath "driver", like minikube's ``k8s.io/minikube-hostpath``
storage-provisioner:

* a claim annotated for it (and, for a ``WaitForFirstConsumer`` class, given
  a node by the scheduler through ``volume.kubernetes.io/selected-node``) gets
  a PersistentVolume ``pvc-<claim uid>``: ``hostPath``
  ``/tmp/hostpath-provisioner/<namespace>/<claim>``, the claim's size, access
  modes and volumeMode, the class's reclaim policy and mount options,
  ``claimRef`` to the claim, ``pv.kubernetes.io/provisioned-by`` and the
  ``external-provisioner.volume.kubernetes.io/finalizer``; with a selected node,
  node affinity to it (as rancher's local-path provisioner). Events
  ``Provisioning`` then ``ProvisioningSucceeded``; the PV controller then binds
  the claim to it.
* When the node's "disk" (:attr:`HostPathProvisioner.capacity_bytes`) cannot
  hold the claim, provisioning fails: ``ProvisioningFailed``, the claim stays
  Pending and the provisioner retries with its back-off (1 s doubling to 5 min,
  external-provisioner's ``--retry-interval-start`` / ``--retry-interval-max``);
  a claim the scheduler placed on that node loses its
  ``volume.kubernetes.io/selected-node`` instead (as a ``ResourceExhausted``
  answer makes external-provisioner reschedule), so the scheduler can pick
  another node.
  Nothing is created half-way: the PV object is written only after the
  directory exists.
* A ``Released`` volume it provisioned with reclaim policy ``Delete`` is
  deleted: the directory, then the PV object, then the finalizer (the
  library's ``deleteVolumeOperation``).
* As the external-resizer: a Bound claim of a class with
  ``allowVolumeExpansion: true`` whose request grew past its volume's capacity
  gets the volume grown and ``status.capacity`` updated (``Resizing``, then
  ``VolumeResizeSuccessful``).

Notes
-----
No part of kube-controller-manager: run it with
``Cluster(..., extra_controllers={"storage-provisioner": HostPathProvisioner})``.
Installing it creates, like the add-on's manifest, the ``storage-provisioner``
ServiceAccount's ClusterRole ``system:persistent-volume-provisioner`` (upstream
bootstrap policy) and its binding when they are absent. Leader election,
provisioning in the background (``ProvisioningInBackground``), storage capacity
tracking (CSIStorageCapacity) and node (filesystem) expansion are not modelled.

References
----------
kubernetes-sigs/sig-storage-lib-external-provisioner@v11 controller/controller.go (shouldProvision, provisionClaimOperation, deleteVolumeOperation)
kubernetes-csi/external-provisioner@v5 pkg/controller/controller.go (finalizer, retry intervals)
kubernetes-csi/external-resizer@v1 pkg/controller/controller.go (Resizing, VolumeResizeSuccessful)
kubernetes/minikube pkg/storage/storage_provisioner.go (k8s.io/minikube-hostpath)
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (system:persistent-volume-provisioner)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubenotes.api.storagehelpers import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER,
    get_persistent_volume_claim_class,
    storage_capacity_bytes,
    storage_request_bytes,
)
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, STORAGE_GROUP, events_rule, policy_rule
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.reconciler import Controller, Result, split_key

__all__ = ["ProvisionController", "ProvisioningFailure", "HostPathProvisioner", "PROVISIONER_NAME",
           "PROVISIONER_FINALIZER", "PROVISIONER_CLUSTER_ROLE", "RETRY_INTERVAL_START_SECONDS",
           "RETRY_INTERVAL_MAX_SECONDS", "PROVISIONING_FINISHED", "PROVISIONING_IN_BACKGROUND",
           "PROVISIONING_RESCHEDULE"]

#: The provisioner name a StorageClass names in ``provisioner``.
PROVISIONER_NAME = "k8s.io/minikube-hostpath"
#: external-provisioner's finalizer on the volumes it provisioned.
PROVISIONER_FINALIZER = "external-provisioner.volume.kubernetes.io/finalizer"
#: ``--retry-interval-start`` and ``--retry-interval-max`` (external-provisioner's defaults).
RETRY_INTERVAL_START_SECONDS = 1.0
RETRY_INTERVAL_MAX_SECONDS = 300.0
#: Upstream's bootstrap ClusterRole for external provisioners.
PROVISIONER_CLUSTER_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
    "metadata": {"name": "system:persistent-volume-provisioner"},
    "rules": [
        policy_rule(("get", "list", "watch", "create", "delete"), (LEGACY_GROUP,), ("persistentvolumes",)),
        policy_rule(("get", "list", "watch", "update"), (LEGACY_GROUP,), ("persistentvolumeclaims",)),
        policy_rule(("get", "list", "watch"), (STORAGE_GROUP,), ("storageclasses",)),
        policy_rule(("watch",), (LEGACY_GROUP,), ("events",)),
        events_rule(),
        # the model also reads nodes (selected node) and, as the resizer, updates volumes and claim status
        policy_rule(("get", "list", "watch"), (LEGACY_GROUP,), ("nodes",)),
        policy_rule(("update", "patch"), (LEGACY_GROUP,), ("persistentvolumes", "persistentvolumeclaims/status")),
    ],
}


def _ann(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("annotations") or {}


def _request(claim: dict) -> str:
    """The claim's storage request as written (the provisioned size)."""
    return str((((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage", "0"))


#: ``controller.ProvisioningState`` values (the library's): what a failed ``Provision`` asks for.
PROVISIONING_FINISHED = "Finished"
PROVISIONING_IN_BACKGROUND = "Background"
PROVISIONING_RESCHEDULE = "Reschedule"


@dataclass(frozen=True)
class ProvisioningFailure:
    """A ``Provision`` that failed (a value, not an exception): the message and the library's state.

    Attributes
    ----------
    message : str
        The error text.
    state : str
        :data:`PROVISIONING_FINISHED` (retry with back-off), :data:`PROVISIONING_IN_BACKGROUND` (the same
        here) or :data:`PROVISIONING_RESCHEDULE` (the claim loses ``volume.kubernetes.io/selected-node``).
    storage_class : str or None
        The class named in ``ProvisioningFailed``'s ``failed to provision volume with StorageClass "<class>":``
        prefix; None: the message alone.
    """

    message: str
    state: str = PROVISIONING_FINISHED
    storage_class: str | None = None


class ProvisionController(Controller):
    """sig-storage-lib-external-provisioner's ``ProvisionController``: the loop every external provisioner shares.

    Claims (``namespace/name`` keys) and volumes (``name`` keys) in one queue with the provisioner's
    back-off (:data:`RETRY_INTERVAL_START_SECONDS` doubling to :data:`RETRY_INTERVAL_MAX_SECONDS`):

    * ``shouldProvision``: an unbound claim annotated for :attr:`provisioner_name`, of an existing class
      the provisioner accepts (:meth:`knows_class`), given a node when the class waits for its first consumer;
    * ``provisionClaimOperation``: Event ``Provisioning``; the provisioner's :meth:`provision` (a PV to
      create, or a :class:`ProvisioningFailure`: Event ``ProvisioningFailed`` and a retry, or for
      ``Reschedule`` the selected node removed); the PV created (when that fails, :meth:`provision_cleanup`
      undoes the volume, so nothing is half-provisioned); Event ``ProvisioningSucceeded``;
    * ``shouldDelete``: a ``Released`` volume provisioned by us with reclaim policy ``Delete`` (when being
      deleted, only while our finalizer is on); ``deleteVolumeOperation``: read again from the API server,
      the provisioner's :meth:`delete` (a message: Event ``VolumeFailedDelete`` and a retry), then the PV
      object, then the finalizer :data:`PROVISIONER_FINALIZER`.

    Subclasses set :attr:`provisioner_name` (in :meth:`setup_provisioner` at the latest) and implement
    :meth:`provision`; :meth:`sync_claim` sees every other claim (a resizer's hook).

    References
    ----------
    kubernetes-sigs/sig-storage-lib-external-provisioner@v11 controller/controller.go (shouldProvision,
    provisionClaimOperation, provisionVolumeErrorHandling, rescheduleProvisioning, shouldDelete,
    deleteVolumeOperation)
    """

    provisioner_name = ""

    def setup(self) -> None:
        from kubenotes.client.workqueue import ItemExponentialFailureRateLimiter, RateLimitingQueue

        self.queue = RateLimitingQueue(self.env, ItemExponentialFailureRateLimiter(
            RETRY_INTERVAL_START_SECONDS, RETRY_INTERVAL_MAX_SECONDS), name=self.name)
        self.claims = self.informers.informer_for("persistentvolumeclaims")
        self.volumes = self.informers.informer_for("persistentvolumes")
        self.classes = self.informers.informer_for("storageclasses")
        self.nodes = self.informers.informer_for("nodes")
        self.setup_provisioner()
        self.claims.add_event_handler(self.enqueue, lambda old, cur: self.enqueue(cur), None)
        self.volumes.add_event_handler(lambda v: self.enqueue(v["metadata"]["name"]),
                                       lambda old, cur: self.enqueue(cur["metadata"]["name"]), None)

    def setup_provisioner(self) -> None:
        """The provisioner's own informers and state (called from :meth:`setup`)."""

    # ------------------------------------------------------------ the queue: claims (ns/name) and volumes
    def reconcile(self, key: str) -> Result | None:
        if "/" in key:
            ns, name = split_key(key)
            claim = self.claims.lister.get(ns, name)
            if claim is None:
                return None
            if self.should_provision(claim):
                return self._provision_claim(claim)
            return self.sync_claim(claim)
        pv = self.volumes.lister.get(None, key)
        if pv is not None and self.should_delete(pv):
            return self._delete_volume(pv)
        return None

    def sync_claim(self, claim: dict) -> Result | None:
        """A claim not to provision (the hostpath model resizes here)."""
        return None

    # ------------------------------------------------------------ provisioning
    def class_of(self, claim: dict) -> dict | None:
        """The claim's StorageClass from the informer, or None."""
        return self.classes.lister.get(None, get_persistent_volume_claim_class(claim))

    def knows_class(self, sc: dict) -> bool:
        """Whether a class is this provisioner's (default: any class a claim annotated for us names)."""
        return True

    def should_provision(self, claim: dict) -> bool:
        """``shouldProvision``: unbound, annotated for us, its class known, WaitForFirstConsumer given a node."""
        if (claim.get("spec") or {}).get("volumeName"):
            return False
        ann = _ann(claim)
        if (ann.get(ANN_STORAGE_PROVISIONER) or ann.get(ANN_BETA_STORAGE_PROVISIONER)) != self.provisioner_name:
            return False
        sc = self.class_of(claim)
        if sc is None or not self.knows_class(sc):
            return False
        if sc.get("volumeBindingMode") == VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER:
            return bool(ann.get(ANN_SELECTED_NODE))
        return True

    def provision(self, claim: dict, pv_name: str) -> dict | ProvisioningFailure:
        """The provisioner's ``Provision``: the PersistentVolume to create, or why not."""
        raise NotImplementedError

    def provision_cleanup(self, pv: dict) -> None:
        """Undo a provisioned volume whose PV object could not be written."""

    def provisioning_failed(self, claim: dict, failure: ProvisioningFailure) -> Result | None:
        """``provisionVolumeErrorHandling``: the Event, then reschedule (``rescheduleProvisioning``) or retry."""
        message = failure.message
        if failure.storage_class is not None:
            message = f'failed to provision volume with StorageClass "{failure.storage_class}": {message}'
        self.event(claim, "Warning", "ProvisioningFailed", message)
        if failure.state == PROVISIONING_RESCHEDULE and ANN_SELECTED_NODE in _ann(claim):
            new = deep_copy(claim)
            new["metadata"]["annotations"].pop(ANN_SELECTED_NODE, None)
            self.client.update("persistentvolumeclaims", new, claim["metadata"]["namespace"])
            return None
        return Result(requeue=True)

    def _provision_claim(self, claim: dict) -> Result | None:
        """``provisionClaimOperation``."""
        md = claim["metadata"]
        pv_name = f"pvc-{md.get('uid', '')}"
        if self.volumes.lister.get(None, pv_name) is not None:
            return None  # provisioned already; the PV controller binds it
        self.event(claim, "Normal", "Provisioning",
                   f'External provisioner is provisioning volume for claim "{md["namespace"]}/{md["name"]}"')
        pv = self.provision(claim, pv_name)
        if isinstance(pv, ProvisioningFailure):
            return self.provisioning_failed(claim, pv)
        try:
            self.client.create("persistentvolumes", pv)
        except ApiError as e:
            if e.code != 409:
                self.provision_cleanup(pv)  # no PV object for the volume: nothing is left half-provisioned
                self.event(claim, "Warning", "ProvisioningFailed",
                           f"Error creating provisioned PV object for claim {md['namespace']}/{md['name']}: {e}. "
                           "Deleting the volume.")
                return Result(requeue=True)
        self.event(claim, "Normal", "ProvisioningSucceeded", f"Successfully provisioned volume {pv_name}")
        return None

    # ------------------------------------------------------------ deletion
    def should_delete(self, pv: dict) -> bool:
        """``shouldDelete``: Released, reclaim policy Delete, provisioned by us; when being deleted, only while the
        finalizer is still on."""
        md = pv.get("metadata") or {}
        if md.get("deletionTimestamp") and PROVISIONER_FINALIZER not in (md.get("finalizers") or ()):
            return False
        return ((pv.get("status") or {}).get("phase") == "Released"
                and (pv.get("spec") or {}).get("persistentVolumeReclaimPolicy") == "Delete"
                and _ann(pv).get(ANN_DYNAMICALLY_PROVISIONED) == self.provisioner_name)

    def delete(self, pv: dict) -> str | None:
        """The provisioner's ``Delete``: None when the volume is gone, else the error text."""
        return None

    def _delete_volume(self, pv: dict) -> Result | None:
        """``deleteVolumeOperation``: the provisioner's ``Delete``, the PV object, then the finalizer."""
        name = pv["metadata"]["name"]
        try:  # the cache may be behind: check again on the API server, as the library does
            pv = self.client.get("persistentvolumes", name)
        except ApiError as e:
            if e.code == 404:
                return None
            raise
        if not self.should_delete(pv):
            return None
        error = self.delete(pv)
        if error is not None:
            self.event(pv, "Warning", "VolumeFailedDelete", error)
            return Result(requeue=True)
        try:
            self.client.delete("persistentvolumes", name)
        except ApiError as e:
            if e.code != 404:
                raise
        try:
            current = self.client.get("persistentvolumes", name)
        except ApiError as e:
            if e.code == 404:
                return None
            raise
        if PROVISIONER_FINALIZER in (current["metadata"].get("finalizers") or ()):
            current["metadata"]["finalizers"] = [f for f in current["metadata"]["finalizers"]
                                                 if f != PROVISIONER_FINALIZER]
            self.client.update("persistentvolumes", current)
        return None


class HostPathProvisioner(ProvisionController):
    """An external provisioner and resizer with a hostPath driver (see the module docstring).

    Attributes
    ----------
    provisioner_name : str
        The name it answers to (default :data:`PROVISIONER_NAME`).
    capacity_bytes : int or None
        Each node's (or, without a selected node, the whole provisioner's) disk
        size; None: unlimited. Provisioned volumes count against it until deleted.
    directories : dict of str to int
        The "disk": path -> bytes of each directory it created and has not deleted.

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": "k8s.io/minikube-hostpath",
    ...       "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}}
    >>> pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
    ...        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    >>> c = Cluster([sc, pvc], controllers=["persistentvolume-binder-controller"],
    ...             extra_controllers={"storage-provisioner": HostPathProvisioner})
    >>> c.run(until=5)
    >>> claim = c.get("persistentvolumeclaims", "data", "default")
    >>> claim["status"]["phase"], claim["spec"]["volumeName"] == "pvc-" + claim["metadata"]["uid"]
    ('Bound', True)
    >>> c.get("persistentvolumes", claim["spec"]["volumeName"])["spec"]["hostPath"]["path"]
    '/tmp/hostpath-provisioner/default/data'
    """

    name = PROVISIONER_NAME
    service_account = "storage-provisioner"
    provisioner_name = PROVISIONER_NAME
    capacity_bytes: int | None = None

    def __init__(self, ctx: Any):
        self._install_rbac(ctx)
        super().__init__(ctx)

    @staticmethod
    def _install_rbac(ctx: Any) -> None:
        """The add-on's manifest: the ClusterRole (if the cluster lacks it) and its binding to our account."""
        from kubenotes.apiserver.request import UserInfo

        admin = ctx.server.client("kube-apiserver", UserInfo("kubernetes-admin", groups=("system:masters",)))
        binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                   "metadata": {"name": "storage-provisioner"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                               "name": PROVISIONER_CLUSTER_ROLE["metadata"]["name"]},
                   "subjects": [{"kind": "ServiceAccount", "name": "storage-provisioner",
                                 "namespace": "kube-system"}]}
        for resource, obj in (("clusterroles", PROVISIONER_CLUSTER_ROLE), ("clusterrolebindings", binding)):
            if ctx.server.get(resource, None, obj["metadata"]["name"]) is None:
                admin.create(resource, deep_copy(obj))

    def setup_provisioner(self) -> None:
        self.directories: dict[str, int] = {}
        # Event names are <object>.<virtual ns + the recorder's sequence number>: this recorder and the PV
        # controller's write events about the same claim at the same instant, so start ours far from theirs.
        self.recorder._seq = 1 << 20

    def sync_claim(self, claim: dict) -> Result | None:
        if self._should_resize(claim):
            self._resize(claim)
        return None

    # ------------------------------------------------------------ Provision / Delete with a hostPath "driver"
    def _used_bytes(self, node: str) -> int:
        return sum(b for path, b in self.directories.items() if path.startswith(f"{node}:"))

    def provision(self, claim: dict, pv_name: str) -> dict | ProvisioningFailure:
        md = claim["metadata"]
        sc = self.class_of(claim) or {}
        sc_name = sc.get("metadata", {}).get("name", "")
        node = _ann(claim).get(ANN_SELECTED_NODE, "")
        size = storage_request_bytes(claim)
        if node and self.nodes.lister.get(None, node) is None:
            return ProvisioningFailure(f'failed to get target node: node "{node}" not found', PROVISIONING_RESCHEDULE,
                                       sc_name)
        if self.capacity_bytes is not None and self._used_bytes(node) + size > self.capacity_bytes:
            # ResourceExhausted: a claim placed on that node goes back to the scheduler (rescheduleProvisioning)
            free = self.capacity_bytes - self._used_bytes(node)
            return ProvisioningFailure(f"insufficient capacity on {node or 'the host'}: requested {size} bytes, "
                                       f"{free} available", PROVISIONING_RESCHEDULE, sc_name)
        path = f"/tmp/hostpath-provisioner/{md['namespace']}/{md['name']}"
        self.directories[f"{node}:{path}"] = size
        spec: dict[str, Any] = {
            "accessModes": list((claim.get("spec") or {}).get("accessModes") or []),
            "capacity": {"storage": _request(claim)},
            "hostPath": {"path": path, "type": ""},
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": md["namespace"], "name": md["name"],
                         "uid": md.get("uid"), "apiVersion": "v1", "resourceVersion": md.get("resourceVersion")},
            "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
            "storageClassName": get_persistent_volume_claim_class(claim),
            "volumeMode": (claim.get("spec") or {}).get("volumeMode") or "Filesystem",
        }
        if sc.get("mountOptions"):
            spec["mountOptions"] = list(sc["mountOptions"])
        if node:
            spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}
        return {"apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": pv_name, "annotations": {ANN_DYNAMICALLY_PROVISIONED: self.provisioner_name},
                             "finalizers": [PROVISIONER_FINALIZER]},
                "spec": spec}

    def _forget(self, pv: dict) -> None:
        path = ((pv.get("spec") or {}).get("hostPath") or {}).get("path", "")
        for key in [k for k in self.directories if k.endswith(f":{path}")]:
            del self.directories[key]

    def provision_cleanup(self, pv: dict) -> None:
        self._forget(pv)  # the directory goes

    def delete(self, pv: dict) -> str | None:
        self._forget(pv)
        return None

    # ------------------------------------------------------------ expansion (external-resizer)
    def _bound_volume(self, claim: dict) -> dict | None:
        name = (claim.get("spec") or {}).get("volumeName")
        pv = self.volumes.lister.get(None, name) if name else None
        if pv is None or _ann(pv).get(ANN_DYNAMICALLY_PROVISIONED) != self.provisioner_name:
            return None
        return pv

    def _should_resize(self, claim: dict) -> bool:
        if (claim.get("status") or {}).get("phase") != "Bound":
            return False
        pv = self._bound_volume(claim)
        sc = self.class_of(claim)
        if pv is None or sc is None or not sc.get("allowVolumeExpansion"):
            return False
        return storage_request_bytes(claim) > storage_capacity_bytes(pv)

    def _resize(self, claim: dict) -> None:
        pv = self._bound_volume(claim)
        assert pv is not None
        self.event(claim, "Normal", "Resizing", f"External resizer is resizing volume {pv['metadata']['name']}")
        size = storage_request_bytes(claim)
        new_pv = deep_copy(pv)
        new_pv["spec"]["capacity"]["storage"] = _request(claim)
        self.client.update("persistentvolumes", new_pv)
        for key in [k for k in self.directories if k.endswith(f":{pv['spec']['hostPath']['path']}")]:
            self.directories[key] = size
        new_claim = deep_copy(claim)
        new_claim.setdefault("status", {})["capacity"] = {"storage": _request(claim)}
        self.client.update_status("persistentvolumeclaims", new_claim, claim["metadata"]["namespace"])
        self.event(claim, "Normal", "VolumeResizeSuccessful", "Resize volume succeeded")

