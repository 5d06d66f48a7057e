"""kube-controller-manager's controllers, each a :class:`~kubenotes.controllers.reconciler.Controller`.

:data:`CONTROLLERS` maps upstream's controller names (``--controllers``) to
the classes a :class:`~kubenotes.sim.cluster.Cluster` runs by default, and
:data:`CONTROLLER_POLICIES` maps the same names to the RBAC each controller
module declares next to itself (its ServiceAccount and the rules of its
``system:controller:<sa>`` ClusterRole). Whoever builds a cluster passes
``CONTROLLER_POLICIES.values()`` to the API server's bootstrap policy
(:func:`kubenotes.apiserver.bootstrap_policy.bootstrap_cluster_roles`).

To add a controller: write ``controllers/<name>.py`` with its class and its
``CONTROLLER_POLICY``, then add one line to each table here.

Notes
-----
Upstream's controller descriptors (``controller_descriptor.go``) name each
controller and its start function but carry no RBAC: the roles live in the
API server's ``controller_policy.go``. kubenotes keeps each controller's
policy in the controller's module so that the two cannot drift apart.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/names/controller_names.go
kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/app/controller_descriptor.go
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
"""

from __future__ import annotations

from kubenotes.apiserver.bootstrap_policy import ControllerPolicy
from kubenotes.controllers import (
    cronjob,
    daemonset,
    deployment,
    disruption,
    endpoints,
    endpointslice,
    garbagecollector,
    job,
    namespace,
    nodeipam,
    nodelifecycle,
    podautoscaler,
    podgc,
    replicaset,
    replication,
    resourcequota,
    rootcacertpublisher,
    serviceaccount,
    statefulset,
    tainteviction,
)
from kubenotes.controllers.volume import persistentvolume, protection

__all__ = ["CONTROLLERS", "CONTROLLER_POLICIES", "load_controller"]

#: Controller name (as ``kube-controller-manager --controllers``) -> its class, in start order.
CONTROLLERS: dict[str, type] = {
    "namespace-controller": namespace.NamespaceController,
    "serviceaccount-controller": serviceaccount.ServiceAccountsController,
    "serviceaccount-token-controller": serviceaccount.TokensController,
    "root-ca-certificate-publisher-controller": rootcacertpublisher.Publisher,
    "node-ipam-controller": nodeipam.NodeIpamController,
    "node-lifecycle-controller": nodelifecycle.NodeLifecycleController,
    "taint-eviction-controller": tainteviction.TaintEvictionController,
    "replicaset-controller": replicaset.ReplicaSetController,
    "replicationcontroller-controller": replication.ReplicationManager,
    "deployment-controller": deployment.DeploymentController,
    "daemonset-controller": daemonset.DaemonSetsController,
    "statefulset-controller": statefulset.StatefulSetController,
    "job-controller": job.JobController,
    "cronjob-controller": cronjob.CronJobController,
    "endpoints-controller": endpoints.EndpointsController,
    "endpointslice-controller": endpointslice.EndpointSliceController,
    "garbage-collector-controller": garbagecollector.GarbageCollector,
    "pod-garbage-collector-controller": podgc.PodGCController,
    "resourcequota-controller": resourcequota.ResourceQuotaController,
    "disruption-controller": disruption.DisruptionController,
    "horizontal-pod-autoscaler-controller": podautoscaler.HorizontalController,
    "persistentvolume-binder-controller": persistentvolume.PersistentVolumeController,
    "persistentvolumeclaim-protection-controller": protection.PVCProtectionController,
    "persistentvolume-protection-controller": protection.PVProtectionController,
}

#: Controller name -> the ServiceAccount and RBAC rules its module declares (same keys and order as
#: :data:`CONTROLLERS`). node-ipam, node-lifecycle and taint-eviction share ``node-controller``'s.
CONTROLLER_POLICIES: dict[str, ControllerPolicy] = {
    "namespace-controller": namespace.CONTROLLER_POLICY,
    "serviceaccount-controller": serviceaccount.SERVICE_ACCOUNTS_CONTROLLER_POLICY,
    "serviceaccount-token-controller": serviceaccount.TOKENS_CONTROLLER_POLICY,
    "root-ca-certificate-publisher-controller": rootcacertpublisher.CONTROLLER_POLICY,
    "node-ipam-controller": nodeipam.CONTROLLER_POLICY,
    "node-lifecycle-controller": nodelifecycle.CONTROLLER_POLICY,
    "taint-eviction-controller": tainteviction.CONTROLLER_POLICY,
    "replicaset-controller": replicaset.CONTROLLER_POLICY,
    "replicationcontroller-controller": replication.CONTROLLER_POLICY,
    "deployment-controller": deployment.CONTROLLER_POLICY,
    "daemonset-controller": daemonset.CONTROLLER_POLICY,
    "statefulset-controller": statefulset.CONTROLLER_POLICY,
    "job-controller": job.CONTROLLER_POLICY,
    "cronjob-controller": cronjob.CONTROLLER_POLICY,
    "endpoints-controller": endpoints.CONTROLLER_POLICY,
    "endpointslice-controller": endpointslice.CONTROLLER_POLICY,
    "garbage-collector-controller": garbagecollector.CONTROLLER_POLICY,
    "pod-garbage-collector-controller": podgc.CONTROLLER_POLICY,
    "resourcequota-controller": resourcequota.CONTROLLER_POLICY,
    "disruption-controller": disruption.CONTROLLER_POLICY,
    "horizontal-pod-autoscaler-controller": podautoscaler.CONTROLLER_POLICY,
    "persistentvolume-binder-controller": persistentvolume.CONTROLLER_POLICY,
    "persistentvolumeclaim-protection-controller": protection.PVC_CONTROLLER_POLICY,
    "persistentvolume-protection-controller": protection.PV_CONTROLLER_POLICY,
}


def load_controller(name: str) -> type:
    """The controller class registered as ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`CONTROLLERS` (``replicaset-controller``).

    Returns
    -------
    type
        The :class:`~kubenotes.controllers.reconciler.Controller` subclass.

    Raises
    ------
    KeyError
        For a name not in :data:`CONTROLLERS`, listing the known names.

    Examples
    --------
    >>> load_controller("replicaset-controller").__name__
    'ReplicaSetController'
    """
    try:
        return CONTROLLERS[name]
    except KeyError:
        raise KeyError(f"unknown controller {name!r}; known: {', '.join(sorted(CONTROLLERS))}") from None
