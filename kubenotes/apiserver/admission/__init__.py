"""Admission: the plugins between authorization and storage, in upstream's default order.

:func:`default_admission_chain` builds the chain a :class:`~kubenotes.sim.cluster.Cluster`
runs, with the default-on plugins upstream's ``AllOrderedPlugins`` lists, in
that order: ``NamespaceLifecycle``, ``LimitRanger``, ``ServiceAccount``,
``Priority``, ``DefaultTolerationSeconds``, ``DefaultStorageClass``, ``PersistentVolumeClaimResize``,
``DefaultIngressClass``, ``MutatingAdmissionPolicy``, ``MutatingAdmissionWebhook``, ``ValidatingAdmissionPolicy``,
``ValidatingAdmissionWebhook``, ``ResourceQuota``. The API server runs every plugin's mutating phase, then (after the registry strategy and
object validation) every plugin's validating phase.

Notes
-----
Default-on plugins that are not modelled: ``TaintNodesByCondition``,
``PodSecurity``, ``RuntimeClass``,
``StorageObjectInUseProtection`` (the protection controllers add the finalizers),
and the certificate plugins. ``MutatingAdmissionPolicy``
(:mod:`.mutatingadmissionpolicy`) is in the chain, as upstream's default-on
list has it, and acts only when its API is served (feature gate
``MutatingAdmissionPolicy``, beta and off by default in v1.34, and
``--runtime-config admissionregistration.k8s.io/v1beta1=true``). The webhook
plugins (:mod:`.webhook`) call real webhooks over HTTP(S); the policy plugins
(:mod:`.validatingadmissionpolicy`) evaluate a subset of CEL (:mod:`.cel`);
with nothing configured they do nothing and request traces leave them out,
as they leave out ``DefaultIngressClass`` while no IngressClass exists.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/kubeapiserver/options/plugins.go (AllOrderedPlugins, DefaultOffAdmissionPlugins)
https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/
"""

from __future__ import annotations

from kubenotes.apiserver.admission.defaultingressclass import DefaultIngressClass
from kubenotes.apiserver.admission.defaultstorageclass import DefaultStorageClass
from kubenotes.apiserver.admission.defaulttolerationseconds import DefaultTolerationSeconds
from kubenotes.apiserver.admission.interfaces import (
    CONNECT, CREATE, DELETE, UPDATE, AdmissionChain, Plugin, forbidden, resource_name)
from kubenotes.apiserver.admission.limitranger import LimitRanger
from kubenotes.apiserver.admission.mutatingadmissionpolicy import MutatingAdmissionPolicy
from kubenotes.apiserver.admission.namespacelifecycle import NamespaceLifecycle
from kubenotes.apiserver.admission.persistentvolumeclaimresize import PersistentVolumeClaimResize
from kubenotes.apiserver.admission.priority import Priority
from kubenotes.apiserver.admission.resourcequota import ResourceQuota
from kubenotes.apiserver.admission.serviceaccount import ServiceAccount
from kubenotes.apiserver.admission.validatingadmissionpolicy import ValidatingAdmissionPolicy
from kubenotes.apiserver.admission.webhook import MutatingAdmissionWebhook, ValidatingAdmissionWebhook

__all__ = [
    "CREATE", "UPDATE", "DELETE", "CONNECT",
    "Plugin", "AdmissionChain", "forbidden", "resource_name",
    "NamespaceLifecycle", "LimitRanger", "ServiceAccount", "Priority", "DefaultTolerationSeconds", "DefaultStorageClass",
    "PersistentVolumeClaimResize", "DefaultIngressClass", "ResourceQuota", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook", "MutatingAdmissionPolicy",
    "DEFAULT_PLUGIN_ORDER", "default_admission_chain",
]

#: The default-on plugins the model runs, in ``AllOrderedPlugins`` order.
DEFAULT_PLUGIN_ORDER = ("NamespaceLifecycle", "LimitRanger", "ServiceAccount", "Priority",
                        "DefaultTolerationSeconds", "DefaultStorageClass", "PersistentVolumeClaimResize",
                        "DefaultIngressClass", "MutatingAdmissionPolicy", "MutatingAdmissionWebhook",
                        "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota")


def default_admission_chain(seed: int = 0) -> AdmissionChain:
    """The admission chain of a default kube-apiserver, as far as the model goes.

    Parameters
    ----------
    seed : int
        Seeds the ServiceAccount plugin's volume names (``kube-api-access-xxxxx``).

    Returns
    -------
    AdmissionChain

    Examples
    --------
    >>> names = default_admission_chain().names()
    >>> names[:5]
    ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'Priority', 'DefaultTolerationSeconds']
    >>> names[5:8]
    ['DefaultStorageClass', 'PersistentVolumeClaimResize', 'DefaultIngressClass']
    >>> names[8:]
    ['MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota']
    """
    return AdmissionChain([NamespaceLifecycle(), LimitRanger(), ServiceAccount(seed), Priority(),
                           DefaultTolerationSeconds(), DefaultStorageClass(), PersistentVolumeClaimResize(),
                           DefaultIngressClass(), MutatingAdmissionPolicy(),
                           MutatingAdmissionWebhook(seed), ValidatingAdmissionPolicy(),
                           ValidatingAdmissionWebhook(seed), ResourceQuota()])
