"""The root CA certificate publisher: a ``kube-root-ca.crt`` ConfigMap in every namespace.

Every pod's projected ServiceAccount volume (``kube-api-access-xxxxx``, added
by the ServiceAccount admission plugin) takes ``ca.crt`` from the ConfigMap
``kube-root-ca.crt`` of the pod's namespace, so a container can verify the
API server it reaches at ``kubernetes.default.svc``. This controller
(``root-ca-certificate-publisher-controller`` in kube-controller-manager)
keeps that ConfigMap in each namespace: it creates it when a namespace is
added, creates it again when it is deleted, and writes the CA and the
``kubernetes.io/description`` annotation back when someone edits them.

Options: ``root-ca-file`` (the CA bundle text; default
:data:`~kubenotes.controllers.serviceaccount.MODEL_ROOT_CA`, as the tokens
controller uses).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/certificates/rootcacertpublisher/publisher.go
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go
(``system:controller:root-ca-cert-publisher``: create/update configmaps, events)
https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/#root-ca-certificate-publisher
"""

from __future__ import annotations

from typing import Any

from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result
from kubenotes.controllers.serviceaccount import MODEL_ROOT_CA

__all__ = ["Publisher", "NAME", "ROOT_CA_CERT_CONFIG_MAP_NAME", "DESCRIPTION_ANNOTATION", "DESCRIPTION",
           "root_ca_config_map", "CONTROLLER_POLICY"]

#: Upstream's ``system:controller:root-ca-cert-publisher`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("root-ca-cert-publisher")``,
#: ``cmd/kube-controller-manager/app/certificates.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
CONTROLLER_POLICY = ControllerPolicy("root-ca-cert-publisher", (
    policy_rule(("create", "update"), (LEGACY_GROUP,), ("configmaps",)),
    events_rule(),
))

#: ``names.RootCACertificatePublisherController``.
NAME = "root-ca-certificate-publisher-controller"
#: ``RootCACertConfigMapName``.
ROOT_CA_CERT_CONFIG_MAP_NAME = "kube-root-ca.crt"
#: ``DescriptionAnnotation``.
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
#: ``Description`` (exact upstream text).
DESCRIPTION = ("Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
               "such as the internal service IP or kubernetes.default.svc. "
               "No other usage is guaranteed across distributions of Kubernetes clusters.")


def root_ca_config_map(namespace: str, root_ca: str = MODEL_ROOT_CA) -> dict:
    """The ConfigMap the publisher creates in ``namespace``.

    Parameters
    ----------
    namespace : str
    root_ca : str
        The CA bundle (PEM text).

    Returns
    -------
    dict
        A v1 ConfigMap with ``data["ca.crt"]`` and the description annotation.

    Examples
    --------
    >>> cm = root_ca_config_map("team", "PEM")
    >>> cm["metadata"]["name"], cm["data"], cm["metadata"]["annotations"][DESCRIPTION_ANNOTATION][:24]
    ('kube-root-ca.crt', {'ca.crt': 'PEM'}, 'Contains a CA bundle tha')
    """
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": ROOT_CA_CERT_CONFIG_MAP_NAME, "namespace": namespace,
                         "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
            "data": {"ca.crt": root_ca}}


def _namespace_gone_or_terminating(e: ApiError) -> bool:
    """``IsNotFound(err) || HasStatusCause(err, NamespaceTerminatingCause)``."""
    if e.code == 404:
        return True
    status = getattr(e, "status", None) or {}
    causes = (status.get("details") or {}).get("causes") or [] if isinstance(status, dict) else []
    if any(c.get("reason") == "NamespaceTerminating" for c in causes):
        return True
    return e.code == 403 and "being terminated" in str(e)


class Publisher(Controller):
    """``rootcacertpublisher.Publisher``: ensure ``kube-root-ca.crt`` in every namespace.

    Event handlers as upstream: namespaces on add (any phase) and on update
    when Active; the ConfigMap ``kube-root-ca.crt`` on update and delete (key:
    its namespace). :meth:`reconcile` is ``syncNamespace``.

    Notes
    -----
    Simplified: one worker (upstream runs ``--concurrent-...``; the default is 1
    too); no metrics (``root_ca_cert_publisher_sync_total``...). The CA is the
    model's text, not a real certificate.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/certificates/rootcacertpublisher/publisher.go
    """

    name = NAME
    #: ``system:controller:root-ca-cert-publisher``.
    service_account = CONTROLLER_POLICY.service_account

    def setup(self) -> None:
        """Register the namespace and ConfigMap handlers (``NewPublisher``)."""
        self.root_ca = str(self.option("root-ca-file", MODEL_ROOT_CA))
        self.cm_informer = self.informers.informer_for("configmaps")
        self.ns_informer = self.informers.informer_for("namespaces")
        self.cm_informer.add_event_handler(lambda o: None, lambda o, n: self._config_map_changed(n),
                                           self._config_map_changed)
        self.ns_informer.add_event_handler(self._namespace_added, self._namespace_updated, lambda o: None)

    def _config_map_changed(self, obj: Any) -> None:
        cm = unwrap_deleted(obj)
        if cm is None or cm["metadata"].get("name") != ROOT_CA_CERT_CONFIG_MAP_NAME:
            return
        self.enqueue(cm["metadata"].get("namespace", ""))

    def _namespace_added(self, ns: dict) -> None:
        self.enqueue(ns["metadata"]["name"])

    def _namespace_updated(self, old: dict, new: dict) -> None:
        if (new.get("status") or {}).get("phase") != "Active":
            return
        self.enqueue(new["metadata"]["name"])

    def reconcile(self, key: str) -> Result | None:
        """``syncNamespace``: create the ConfigMap if missing, else restore its data and annotation.

        Parameters
        ----------
        key : str
            A namespace name.

        Raises
        ------
        ApiError
            A create or update failed for another reason than the namespace being gone or
            terminating (retried with the workqueue's back-off).
        """
        if not key:
            return None
        cm = self.cm_informer.lister.get(key, ROOT_CA_CERT_CONFIG_MAP_NAME)
        if cm is None:
            try:
                self.client.create("configmaps", root_ca_config_map(key, self.root_ca), key)
            except ApiError as e:
                # don't retry a create if the namespace doesn't exist or is terminating
                if _namespace_gone_or_terminating(e):
                    return None
                raise
            return None
        data = {"ca.crt": self.root_ca}
        annotations = cm["metadata"].get("annotations") or {}
        if (cm.get("data") or {}) == data and annotations.get(DESCRIPTION_ANNOTATION):
            return None
        cm = deep_copy(cm)
        cm["data"] = data
        cm["metadata"]["annotations"] = dict(annotations)
        cm["metadata"]["annotations"][DESCRIPTION_ANNOTATION] = DESCRIPTION
        self.client.update("configmaps", cm, key)
        return None
