"""Operators: controllers for custom resources, run beside kube-controller-manager on the same clock.

An operator is a controller in the same shape as kube-controller-manager's
(informers, a workqueue, Reconcile), shipped by a project other than
Kubernetes, that reconciles the custom resources of its own
CustomResourceDefinitions. :data:`OPERATORS` maps each operator's name to its
class; a Scenario enables one with ``spec.cluster.operators: [<name>]``, and
:class:`~kubenotes.sim.cluster.Cluster` runs it as one of its
``extra_controllers``.

Notes
-----
Upstream, an operator is installed by its own chart (CRDs, RBAC, the operator
Deployment) and runs in its own pod; here its logic runs in-process, on the
virtual clock, and its class applies the chart's objects when it starts.

References
----------
rook/rook@v1.18.0 deploy/charts/rook-ceph (the operator chart)
https://kubernetes.io/docs/concepts/extend-kubernetes/operator/
"""

from __future__ import annotations

from kubenotes.operators import rook

__all__ = ["OPERATORS"]

#: Operator name (as ``spec.cluster.operators``) -> its class.
OPERATORS: dict[str, type] = {
    rook.OPERATOR_NAME: rook.RookCephOperator,
}
