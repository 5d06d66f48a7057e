"""The running cluster: every component as a SimPy process on one virtual clock.

References
----------
kubernetes/kubernetes@v1.34.0 cmd/ (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet)
"""

from kubenotes.sim.cluster import Cluster

__all__ = ["Cluster"]
