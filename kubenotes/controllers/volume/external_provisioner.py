"""The external-provisioner sidecar: claims of one CSI driver to CreateVolume calls and PersistentVolumes.

kube-controller-manager's PersistentVolume controller does not provision CSI
volumes; it annotates an unbound claim of a class whose ``provisioner`` is a
CSI driver with ``volume.kubernetes.io/storage-provisioner: <driver>`` and
waits (``ExternalProvisioning``). kubernetes-csi's external-provisioner (built
on sig-storage-lib-external-provisioner), a sidecar of the driver's controller
pod, does the rest (the library's loop is
:class:`kubenotes.controllers.volume.provisioner.ProvisionController`; this module
is the sidecar's ``Provision`` and ``Delete``):

* **provision** (``shouldProvision``): an unbound claim annotated for this
  driver, of an existing class naming it, and, for a ``WaitForFirstConsumer``
  class, given a node by the scheduler (``volume.kubernetes.io/selected-node``).
  Event ``Provisioning``; then ``CreateVolume`` with the name
  ``pvc-<claim uid>`` (``--volume-name-prefix``), ``capacity_range.required_bytes``
  the claim's request, one volume capability per access mode, the class's
  ``parameters`` minus the ``csi.storage.k8s.io/`` keys (an unknown one of those
  is a final error), and, as the driver has ``VOLUME_ACCESSIBILITY_CONSTRAINTS``,
  ``accessibility_requirements`` from the CSINodes that have the driver
  (:func:`accessibility_requirements`). The answer becomes a PersistentVolume
  ``pvc-<uid>``: ``spec.csi`` {``driver``, ``volumeHandle`` (the volume id),
  ``fsType`` (``csi.storage.k8s.io/fstype``, none for Block), ``volumeAttributes``
  (the volume context plus ``storage.kubernetes.io/csiProvisionerIdentity``)},
  the capacity the driver reported, node affinity from the volume's
  ``accessible_topology``, the class's reclaim policy and mount options, the
  claim's access modes and volumeMode, ``claimRef``, ``storageClassName``,
  ``pv.kubernetes.io/provisioned-by: <driver>``, the empty
  ``volume.kubernetes.io/provisioner-deletion-secret-name``/``-namespace``
  annotations and the finalizer ``external-provisioner.volume.kubernetes.io/finalizer``.
  Event ``ProvisioningSucceeded``; the PV controller then binds the claim.
* **errors**: ``ProvisioningFailed`` (``failed to provision volume with
  StorageClass "<class>": <error>``) and a retry with the provisioner's back-off
  (``--retry-interval-start`` 1 s doubling to ``--retry-interval-max`` 5 min).
  ``RESOURCE_EXHAUSTED`` for a claim with a selected node is
  ``ProvisioningReschedule``: the claim loses ``volume.kubernetes.io/selected-node``
  so the scheduler picks again (``checkError``, ``rescheduleProvisioning``); so does a selected node
  that no longer exists (``ProvisioningFailed``: ``node "<name>" not found``).
  Nothing is half-provisioned: when the PV object cannot be written the volume
  is deleted again.
* **delete** (``shouldDelete``): a ``Released`` volume provisioned by this
  driver with reclaim policy ``Delete``: refused while a VolumeAttachment names
  it; else ``DeleteVolume``, then the PV object is deleted and the finalizer
  removed. A failure is ``VolumeFailedDelete`` and a retry.

CSIStorageCapacity publishing (``--enable-capacity``) is its own controller in the same sidecar:
:mod:`kubenotes.controllers.volume.capacity`.

Notes
-----
A sidecar, not part of kube-controller-manager: ServiceAccount
``csi-provisioner`` with its deployment's ClusterRole ``external-provisioner-runner``
(created on install). Not modelled: leader election, ``--timeout`` and
``ProvisioningInBackground`` (calls answer at once), secrets (the
``csi.storage.k8s.io/*-secret-*`` keys are stripped but not resolved),
``--extra-create-metadata``, data sources (snapshots, clones), ``--strict-topology``,
``allowedTopologies``, claim selectors (refused
as upstream: ``claim Selector is not supported``), migrated in-tree volumes.
The provisioner identity is ``<cluster epoch in ms>-8081-<driver>`` (upstream:
start time, a random number, the driver). Events come from
``<driver>_csi-hostpathplugin-0_<uuid>`` as the library's recorder names them.

References
----------
kubernetes-csi/external-provisioner@v5.3 pkg/controller/controller.go (prepareProvision, Provision,
removePrefixedParameters, checkError, Delete)
kubernetes-csi/external-provisioner@v5.3 pkg/controller/topology.go (GenerateAccessibilityRequirements,
GenerateVolumeNodeAffinity)
kubernetes-sigs/sig-storage-lib-external-provisioner@v11 controller/controller.go (shouldProvision,
provisionClaimOperation, rescheduleProvisioning, shouldDelete, deleteVolumeOperation)
kubernetes-csi/external-provisioner@v5.3 deploy/kubernetes/rbac.yaml
"""

from __future__ import annotations

import uuid
import zlib
from typing import Any

from kubenotes.api.quantity import format_quantity
from kubenotes.api.storagehelpers import (
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    storage_request_bytes,
)
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, STORAGE_GROUP, events_rule, policy_rule
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.volume.external_attacher import volume_capability
from kubenotes.controllers.volume.provisioner import (
    PROVISIONER_FINALIZER,
    PROVISIONING_FINISHED,
    PROVISIONING_IN_BACKGROUND,
    PROVISIONING_RESCHEDULE,
    ProvisionController,
    ProvisioningFailure,
)
from kubenotes.errors import KubenotesError

__all__ = ["ExternalProvisioner", "accessibility_requirements", "volume_node_affinity", "remove_prefixed_parameters",
           "CSI_PARAMETER_PREFIX", "PREFIXED_FS_TYPE_KEY", "PROVISIONER_ID_KEY", "PROVISIONER_CLUSTER_ROLE",
           "ANN_DELETION_SECRET_NAME", "ANN_DELETION_SECRET_NAMESPACE", "PROVISIONING_RESCHEDULE",
           "PROVISIONING_FINISHED", "PROVISIONING_IN_BACKGROUND", "check_error"]

#: StorageClass parameters with this prefix are for the sidecar, never passed to ``CreateVolume``.
CSI_PARAMETER_PREFIX = "csi.storage.k8s.io/"
#: The class parameter giving the volume's filesystem.
PREFIXED_FS_TYPE_KEY = CSI_PARAMETER_PREFIX + "fstype"
#: The prefixed keys the sidecar knows (any other ``csi.storage.k8s.io/`` key is an error).
KNOWN_PREFIXED_KEYS = frozenset(CSI_PARAMETER_PREFIX + k for k in (
    "fstype", "secret-name", "secret-namespace", "provisioner-secret-name", "provisioner-secret-namespace",
    "controller-publish-secret-name", "controller-publish-secret-namespace", "node-stage-secret-name",
    "node-stage-secret-namespace", "node-publish-secret-name", "node-publish-secret-namespace",
    "controller-expand-secret-name", "controller-expand-secret-namespace", "node-expand-secret-name",
    "node-expand-secret-namespace"))
#: ``volumeAttributes`` key naming the provisioner instance that created the volume.
PROVISIONER_ID_KEY = "storage.kubernetes.io/csiProvisionerIdentity"
ANN_DELETION_SECRET_NAME = "volume.kubernetes.io/provisioner-deletion-secret-name"
ANN_DELETION_SECRET_NAMESPACE = "volume.kubernetes.io/provisioner-deletion-secret-namespace"
#: The gRPC code of a driver out of room (controllers do not import kubenotes.csi: the code names are gRPC's).
RESOURCE_EXHAUSTED = "ResourceExhausted"
#: gRPC codes after which a ``CreateVolume`` may still be running (``isFinalError`` false), with ResourceExhausted.
_NOT_FINAL_CODES = ("Canceled", "DeadlineExceeded", "Unavailable", "Aborted", RESOURCE_EXHAUSTED)
#: The sidecar's ClusterRole (its ``rbac.yaml``), bound to ServiceAccount ``kube-system/csi-provisioner``.
PROVISIONER_CLUSTER_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
    "metadata": {"name": "external-provisioner-runner"},
    "rules": [
        policy_rule(("get", "list", "watch", "create", "patch", "update", "delete"), (LEGACY_GROUP,),
                    ("persistentvolumes",)),
        policy_rule(("get", "list", "watch", "update", "patch"), (LEGACY_GROUP,), ("persistentvolumeclaims",)),
        policy_rule(("get", "list", "watch"), (STORAGE_GROUP,), ("storageclasses",)),
        events_rule(),
        policy_rule(("get", "list", "watch"), (STORAGE_GROUP,), ("csinodes",)),
        policy_rule(("get", "list", "watch"), (LEGACY_GROUP,), ("nodes",)),
        policy_rule(("get", "list", "watch"), (STORAGE_GROUP,), ("volumeattachments",)),
    ],
}


def _ann(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("annotations") or {}


def remove_prefixed_parameters(parameters: dict[str, str]) -> dict[str, str]:
    """``removePrefixedParameters``: the class parameters without the ``csi.storage.k8s.io/`` keys.

    Raises
    ------
    ValueError
        A ``csi.storage.k8s.io/`` key the sidecar does not know (upstream's final error).

    Examples
    --------
    >>> remove_prefixed_parameters({"csi.storage.k8s.io/fstype": "xfs", "kind": "fast"})
    {'kind': 'fast'}
    >>> remove_prefixed_parameters({"csi.storage.k8s.io/colour": "red"})
    Traceback (most recent call last):
    ...
    ValueError: found unknown parameter key "csi.storage.k8s.io/colour" with reserved namespace csi.storage.k8s.io/
    """
    out = {}
    for k, v in parameters.items():
        if k.startswith(CSI_PARAMETER_PREFIX):
            if k not in KNOWN_PREFIXED_KEYS:
                raise ValueError(f'found unknown parameter key "{k}" with reserved namespace {CSI_PARAMETER_PREFIX}')
        else:
            out[k] = v
    return out


def check_error(code: str, may_reschedule: bool) -> str:
    """``checkError``: the provisioning state after a failed ``CreateVolume`` with gRPC code ``code``.

    ``RESOURCE_EXHAUSTED`` with a selected node (and a topology-aware driver)
    reschedules; codes meaning the call may still be running
    (``Canceled``, ``DeadlineExceeded``, ``Unavailable``, ``Aborted``,
    ``ResourceExhausted``) are in the background; the others are final.

    Examples
    --------
    >>> check_error("ResourceExhausted", True), check_error("ResourceExhausted", False), check_error("OutOfRange", True)
    ('Reschedule', 'Background', 'Finished')
    """
    if code == RESOURCE_EXHAUSTED and may_reschedule:
        return PROVISIONING_RESCHEDULE
    if code in _NOT_FINAL_CODES:
        return PROVISIONING_IN_BACKGROUND
    return PROVISIONING_FINISHED


def _segments(node: dict, keys: list[str]) -> dict[str, str] | None:
    labels = (node.get("metadata") or {}).get("labels") or {}
    if not all(k in labels for k in keys):
        return None
    return {k: labels[k] for k in keys}


def accessibility_requirements(driver: str, claim_name: str, csinodes: list[dict], nodes: dict[str, dict],
                               selected_node: str = "") -> dict | None:
    """``GenerateAccessibilityRequirements`` (no strict topology, no ``allowedTopologies``).

    ``requisite``: the distinct topology segments (the Node labels of the
    driver's ``topologyKeys``) of every node whose CSINode has the driver,
    sorted. ``preferred``: the same list rotated to start at the selected
    node's segment; without one (Immediate binding), at a place chosen by a
    hash of the claim's name.

    Parameters
    ----------
    driver : str
        The CSI driver's name.
    claim_name : str
        The claim's name (the rotation without a selected node).
    csinodes : list of dict
        The cluster's CSINodes.
    nodes : dict of str to dict
        Node name -> Node (for its labels).
    selected_node : str
        ``volume.kubernetes.io/selected-node`` ("" for none).

    Returns
    -------
    dict or None
        ``{"requisite": [{"segments": {...}}, ...], "preferred": [...]}``; None when no node offers topology.

    Raises
    ------
    ValueError
        The selected node has no CSINode entry for the driver, or lacks its topology labels.

    Examples
    --------
    >>> nodes = {n: {"metadata": {"name": n, "labels": {"topo/node": n}}} for n in ("a", "b", "c")}
    >>> csn = [{"metadata": {"name": n}, "spec": {"drivers": [{"name": "d", "topologyKeys": ["topo/node"]}]}}
    ...        for n in nodes]
    >>> r = accessibility_requirements("d", "data", csn, nodes, "b")
    >>> [t["segments"]["topo/node"] for t in r["preferred"]], len(r["requisite"])
    (['b', 'c', 'a'], 3)
    """
    terms: list[dict[str, str]] = []
    selected: dict[str, str] | None = None
    for csinode in csinodes:
        name = (csinode.get("metadata") or {}).get("name", "")
        entry = next((d for d in (csinode.get("spec") or {}).get("drivers") or () if d.get("name") == driver), None)
        if entry is None or not entry.get("topologyKeys") or name not in nodes:
            if name == selected_node and selected_node:
                raise ValueError(f'topology keys for driver "{driver}" not found on node "{name}"')
            continue
        seg = _segments(nodes[name], list(entry["topologyKeys"]))
        if seg is None:
            if name == selected_node:
                raise ValueError(f"topology labels from selected node {nodes[name]['metadata'].get('labels')} "
                                 f"does not match topology keys from CSINode {entry['topologyKeys']}")
            continue
        if name == selected_node:
            selected = seg
        if seg not in terms:
            terms.append(seg)
    if selected_node and selected is None:
        raise ValueError(f'error getting CSINode for selected node "{selected_node}": csinode.storage.k8s.io '
                         f'"{selected_node}" not found')
    if not terms:
        return None
    terms.sort(key=lambda s: sorted(s.items()))
    start = terms.index(selected) if selected is not None else zlib.crc32(claim_name.encode()) % len(terms)
    preferred = terms[start:] + terms[:start]
    return {"requisite": [{"segments": dict(s)} for s in terms],
            "preferred": [{"segments": dict(s)} for s in preferred]}


def volume_node_affinity(accessible_topology: list[dict]) -> dict | None:
    """``GenerateVolumeNodeAffinity``: one node selector term per topology, a match expression per segment key.

    Examples
    --------
    >>> volume_node_affinity([{"segments": {"topo/node": "a"}}])["required"]["nodeSelectorTerms"]
    [{'matchExpressions': [{'key': 'topo/node', 'operator': 'In', 'values': ['a']}]}]
    >>> volume_node_affinity([]) is None
    True
    """
    terms = []
    for t in accessible_topology or ():
        segs = t.get("segments") or {}
        if segs:
            terms.append({"matchExpressions": [{"key": k, "operator": "In", "values": [v]}
                                               for k, v in sorted(segs.items())]})
    return {"required": {"nodeSelectorTerms": terms}} if terms else None


class ExternalProvisioner(ProvisionController):
    """The external-provisioner of one CSI driver (see the module docstring).

    Attributes
    ----------
    driver : object
        The CSI driver's Identity and Controller services (``GetPluginInfo``, ``CreateVolume``,
        ``DeleteVolume``); set with :meth:`configured`.

    Examples
    --------
    >>> from kubenotes.sim.cluster import Cluster
    >>> node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    >>> drv = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "hostpath.csi.k8s.io"},
    ...        "spec": {"attachRequired": True}}
    >>> sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "csi"},
    ...       "provisioner": "hostpath.csi.k8s.io", "parameters": {"csi.storage.k8s.io/fstype": "xfs"}}
    >>> pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
    ...        "spec": {"storageClassName": "csi", "accessModes": ["ReadWriteOnce"],
    ...                 "resources": {"requests": {"storage": "1Gi"}}}}
    >>> c = Cluster([node, drv, sc, pvc], controllers=["persistentvolume-binder-controller"], scheduler=False,
    ...             kubelet="stand-in")
    >>> c.run(until=5)
    >>> claim = c.get("persistentvolumeclaims", "data", "default")
    >>> pv = c.get("persistentvolumes", claim["spec"]["volumeName"])
    >>> claim["status"]["phase"], pv["metadata"]["name"] == "pvc-" + claim["metadata"]["uid"]
    ('Bound', True)
    >>> pv["spec"]["csi"]["driver"], pv["spec"]["csi"]["fsType"], pv["spec"]["capacity"]
    ('hostpath.csi.k8s.io', 'xfs', {'storage': '1Gi'})
    """

    name = "csi-provisioner"
    service_account = "csi-provisioner"
    driver: Any = None

    def __init__(self, ctx: Any):
        if self.driver is None:
            raise ValueError("ExternalProvisioner needs a driver: ExternalProvisioner.configured(driver=...)")
        _install_sidecar_rbac(ctx, PROVISIONER_CLUSTER_ROLE, "csi-provisioner")
        super().__init__(ctx)

    def setup_provisioner(self) -> None:
        self.driver_name = self.provisioner_name = self.driver.GetPluginInfo({})["name"]
        epoch_ms = int(self.client.server.epoch.timestamp() * 1000)
        self.identity = f"{epoch_ms}-8081-{self.driver_name}"
        # the library's recorder: <provisioner name>_<leader-election identity>
        pod_uid = uuid.uuid5(uuid.NAMESPACE_URL, f"csi-provisioner/{self.driver_name}")
        self.recorder.component = f"{self.driver_name}_csi-hostpathplugin-0_{pod_uid}"
        self.recorder._seq = 5 << 20  # apart from the PV controller's event names about the same claim
        self.csinodes = self.informers.informer_for("csinodes")
        self.attachments = self.informers.informer_for("volumeattachments")

    def knows_class(self, sc: dict) -> bool:
        """Only classes whose ``provisioner`` is this driver."""
        return sc.get("provisioner") == self.driver_name

    # ------------------------------------------------------------ Provision (the library's Provisioner interface)
    def provision(self, claim: dict, pv_name: str) -> dict | ProvisioningFailure:
        """``Provision``: ``CreateVolume``, then the PersistentVolume to create (see the class docstring)."""
        md = claim["metadata"]
        sc = self.class_of(claim) or {}
        sc_name = (sc.get("metadata") or {}).get("name", "")
        spec = claim.get("spec") or {}
        node = _ann(claim).get(ANN_SELECTED_NODE, "")
        if node and self.nodes.lister.get(None, node) is None:
            return ProvisioningFailure(f'node "{node}" not found', PROVISIONING_RESCHEDULE)
        if spec.get("selector"):
            return ProvisioningFailure("claim Selector is not supported", PROVISIONING_FINISHED, sc_name)
        params = dict(sc.get("parameters") or {})
        try:
            req_params = remove_prefixed_parameters(params)
        except ValueError as e:
            return ProvisioningFailure(f"failed to strip CSI Parameters of prefixed keys: {e}", PROVISIONING_FINISHED,
                                       sc_name)
        block = spec.get("volumeMode") == "Block"
        fs_type = params.get(PREFIXED_FS_TYPE_KEY, "")
        caps = [volume_capability({"spec": {"accessModes": [m], "volumeMode": spec.get("volumeMode"),
                                            "csi": {"fsType": fs_type}}})
                for m in spec.get("accessModes") or ()]
        size = storage_request_bytes(claim)
        nodes = {n["metadata"]["name"]: n for n in self.nodes.lister.list()}
        try:
            topology = accessibility_requirements(self.driver_name, md["name"], self.csinodes.lister.list(), nodes,
                                                  node)
        except ValueError as e:
            return ProvisioningFailure(f"error generating accessibility requirements: {e}", PROVISIONING_FINISHED,
                                       sc_name)
        request: dict[str, Any] = {"name": pv_name, "capacity_range": {"required_bytes": size},
                                   "volume_capabilities": caps, "parameters": req_params}
        if topology is not None:
            request["accessibility_requirements"] = topology
        try:
            volume = self.driver.CreateVolume(request)["volume"]
        except KubenotesError as err:  # a CSIError: the driver answered with a gRPC code
            return ProvisioningFailure(str(err), check_error(getattr(err, "code", ""), bool(node)), sc_name)
        capacity = int(volume.get("capacity_bytes") or 0) or size
        csi: dict[str, Any] = {"driver": self.driver_name, "volumeHandle": volume["volume_id"],
                               "volumeAttributes": {PROVISIONER_ID_KEY: self.identity,
                                                    **dict(volume.get("volume_context") or {})}}
        if not block:
            csi["fsType"] = fs_type
        pv_spec: dict[str, Any] = {
            "accessModes": list(spec.get("accessModes") or []),
            "capacity": {"storage": format_quantity(capacity, "storage")},
            "csi": csi,
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": md["namespace"], "name": md["name"],
                         "uid": md.get("uid"), "apiVersion": "v1", "resourceVersion": md.get("resourceVersion")},
            "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
            "storageClassName": sc_name,
            "volumeMode": spec.get("volumeMode") or "Filesystem",
        }
        if sc.get("mountOptions"):
            pv_spec["mountOptions"] = list(sc["mountOptions"])
        affinity = volume_node_affinity(volume.get("accessible_topology") or [])
        if affinity is not None:
            pv_spec["nodeAffinity"] = affinity
        return {"apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": pv_name,
                             "annotations": {ANN_DYNAMICALLY_PROVISIONED: self.driver_name,
                                             ANN_DELETION_SECRET_NAME: "", ANN_DELETION_SECRET_NAMESPACE: ""},
                             "finalizers": [PROVISIONER_FINALIZER]},
                "spec": pv_spec}

    def provision_cleanup(self, pv: dict) -> None:
        """The PV object could not be written: ``DeleteVolume`` the volume just created."""
        self.driver.DeleteVolume({"volume_id": pv["spec"]["csi"]["volumeHandle"]})

    # ------------------------------------------------------------ Delete
    def delete(self, pv: dict) -> str | None:
        """``Delete``: refused while a VolumeAttachment names the volume; else ``DeleteVolume``."""
        name = pv["metadata"]["name"]
        for va in self.attachments.lister.list():
            if ((va.get("spec") or {}).get("source") or {}).get("persistentVolumeName") == name:
                return f"persistentvolume {name} is still attached to node {va['spec'].get('nodeName', '')}"
        try:
            self.driver.DeleteVolume({"volume_id": ((pv.get("spec") or {}).get("csi") or {}).get("volumeHandle", "")})
        except KubenotesError as err:
            return str(err)
        return None


def _install_sidecar_rbac(ctx: Any, role: dict, service_account: str) -> None:
    """A sidecar's ``rbac.yaml``: its ClusterRole (if absent) and the binding ``<sa>-role`` to ``kube-system/<sa>``."""
    from kubenotes.apiserver.request import UserInfo

    admin = ctx.server.client("kube-apiserver", UserInfo("kubernetes-admin", groups=("system:masters",)))
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": f"{service_account}-role"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": role["metadata"]["name"]},
               "subjects": [{"kind": "ServiceAccount", "name": service_account, "namespace": "kube-system"}]}
    for resource, obj in (("clusterroles", role), ("clusterrolebindings", binding)):
        if ctx.server.get(resource, None, obj["metadata"]["name"]) is None:
            admin.create(resource, deep_copy(obj))
