"""kube-controller-manager's controllers, each a :class:`~kubenotes.controllers.reconciler.Controller`.

:data:`CONTROLLERS` maps upstream's controller names (``--controllers``) to
the classes a :class:`~kubenotes.sim.cluster.Cluster` runs by default.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/kube-controller-manager/names/controller_names.go
"""

from __future__ import annotations

import importlib

__all__ = ["CONTROLLERS", "load_controller"]

#: Controller name (as ``kube-controller-manager --controllers``) -> ``module:Class``.
CONTROLLERS: dict[str, str] = {
    "namespace-controller": "kubenotes.controllers.namespace:NamespaceController",
    "serviceaccount-controller": "kubenotes.controllers.serviceaccount:ServiceAccountsController",
    "serviceaccount-token-controller": "kubenotes.controllers.serviceaccount:TokensController",
    "root-ca-certificate-publisher-controller": "kubenotes.controllers.rootcacertpublisher:Publisher",
    "node-ipam-controller": "kubenotes.controllers.nodeipam:NodeIpamController",
    "node-lifecycle-controller": "kubenotes.controllers.nodelifecycle:NodeLifecycleController",
    "taint-eviction-controller": "kubenotes.controllers.tainteviction:TaintEvictionController",
    "replicaset-controller": "kubenotes.controllers.replicaset:ReplicaSetController",
    "replicationcontroller-controller": "kubenotes.controllers.replication:ReplicationManager",
    "deployment-controller": "kubenotes.controllers.deployment:DeploymentController",
    "daemonset-controller": "kubenotes.controllers.daemonset:DaemonSetsController",
    "statefulset-controller": "kubenotes.controllers.statefulset:StatefulSetController",
    "job-controller": "kubenotes.controllers.job:JobController",
    "cronjob-controller": "kubenotes.controllers.cronjob:CronJobController",
    "endpoints-controller": "kubenotes.controllers.endpoints:EndpointsController",
    "endpointslice-controller": "kubenotes.controllers.endpointslice:EndpointSliceController",
    "garbage-collector-controller": "kubenotes.controllers.garbagecollector:GarbageCollector",
    "resourcequota-controller": "kubenotes.controllers.resourcequota:ResourceQuotaController",
    "disruption-controller": "kubenotes.controllers.disruption:DisruptionController",
    "horizontal-pod-autoscaler-controller": "kubenotes.controllers.podautoscaler:HorizontalController",
}


def load_controller(name: str) -> type:
    """The controller class registered as ``name``.

    Raises
    ------
    KeyError
        For a name not in :data:`CONTROLLERS`, listing the known names.
    """
    try:
        target = CONTROLLERS[name]
    except KeyError:
        raise KeyError(f"unknown controller {name!r}; known: {', '.join(sorted(CONTROLLERS))}") from None
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)
