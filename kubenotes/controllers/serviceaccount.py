"""ServiceAccount controllers: a ``default`` ServiceAccount in every namespace, and legacy token Secrets.

* :class:`ServiceAccountsController` (``serviceaccount-controller``) makes
  sure each Active namespace has the ServiceAccount ``default``, and creates
  it again when it is deleted.
* :class:`TokensController` (``serviceaccount-token-controller``): since
  v1.24 no token Secret is generated for a ServiceAccount (pods get
  short-lived tokens through the TokenRequest API, ``serviceaccounts/<name>/token``,
  which the API server serves). The controller only fills in the Secrets of
  type ``kubernetes.io/service-account-token`` that users create with the
  annotation ``kubernetes.io/service-account.name``: ``data.token``,
  ``data["ca.crt"]`` and ``data.namespace`` (base64, as in the API), and the
  ``kubernetes.io/service-account.uid`` annotation. The token is a JWT of
  :func:`legacy_token_claims` (issuer ``kubernetes/serviceaccount``, no
  ``exp``, no ``aud``) signed with the API server's service-account key, so
  the API server's authenticator accepts it
  (:meth:`kubenotes.apiserver.authn.TokenAuthenticator.verify_service_account_token`).
  Such a Secret is deleted when its ServiceAccount is gone (or is a different
  one with the same name).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/controller/serviceaccount/serviceaccounts_controller.go
kubernetes/kubernetes@v1.34.0 pkg/controller/serviceaccount/tokens_controller.go
kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/legacy.go (LegacyClaims, LegacyIssuer)
kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/jwt.go (JWTTokenGenerator)
https://kubernetes.io/docs/concepts/security/service-accounts/#get-a-token
"""

from __future__ import annotations

import base64
from typing import Any

from kubenotes.apiserver.authn import LEGACY_ISSUER, JWTTokenGenerator, _token_generator, legacy_token_claims
from kubenotes.apiserver.bootstrap_policy import LEGACY_GROUP, ControllerPolicy, events_rule, policy_rule
from kubenotes.apiserver.status import ApiError
from kubenotes.apiserver.store import deep_copy
from kubenotes.controllers.podutil import unwrap_deleted
from kubenotes.controllers.reconciler import Controller, Result

__all__ = ["ServiceAccountsController", "TokensController", "SECRET_TYPE_SERVICE_ACCOUNT_TOKEN",
           "SERVICE_ACCOUNT_NAME_KEY", "SERVICE_ACCOUNT_UID_KEY", "DEFAULT_SERVICE_ACCOUNT_NAME",
           "legacy_token_claims", "MODEL_ROOT_CA", "SERVICE_ACCOUNTS_CONTROLLER_POLICY", "TOKENS_CONTROLLER_POLICY"]

#: Upstream's ``system:controller:service-account-controller`` role (``controller_policy.go``) and the ServiceAccount
#: the controller runs as (``ClientOrDie("service-account-controller")``, ``cmd/kube-controller-manager/app/core.go``).
#: The bootstrap policy is assembled from these: :data:`kubenotes.controllers.CONTROLLER_POLICIES`.
SERVICE_ACCOUNTS_CONTROLLER_POLICY = ControllerPolicy("service-account-controller", (
    policy_rule(("create",), (LEGACY_GROUP,), ("serviceaccounts",)),
    events_rule(),
))

#: The tokens controller has no ServiceAccount and no role: it runs with kube-controller-manager's own
#: credentials (``rootClientBuilder``, user ``system:kube-controller-manager``), as upstream.
TOKENS_CONTROLLER_POLICY = ControllerPolicy(None)

DEFAULT_SERVICE_ACCOUNT_NAME = "default"
SECRET_TYPE_SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"
SERVICE_ACCOUNT_NAME_KEY = "kubernetes.io/service-account.name"
SERVICE_ACCOUNT_UID_KEY = "kubernetes.io/service-account.uid"
#: The model's cluster CA bundle (there is no real PKI); ``root-ca-file`` option replaces it.
MODEL_ROOT_CA = "-----BEGIN CERTIFICATE-----\nkubenotes model cluster CA (kubernetes)\n-----END CERTIFICATE-----\n"


def _b64(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def _generate_token(signer: JWTTokenGenerator, namespace: str, sa_name: str, sa_uid: str, secret_name: str) -> str:
    """A legacy token: :func:`legacy_token_claims` signed by ``signer`` (issuer ``kubernetes/serviceaccount``).

    Parameters
    ----------
    signer : JWTTokenGenerator
        The controller's generator: issuer :data:`LEGACY_ISSUER`, the API server's private key.
    namespace, sa_name, sa_uid, secret_name : str
        The ServiceAccount and the Secret the token is written to.

    Returns
    -------
    str
        ``header.payload.signature``; random per key (the key is made at random per server).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/serviceaccount/tokens_controller.go (generateTokenIfNeeded)
    """
    return signer.generate_token(legacy_token_claims(namespace, sa_name, sa_uid, secret_name))


class ServiceAccountsController(Controller):
    """``serviceaccount.ServiceAccountsController``: ensure ``default`` in every Active namespace.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/serviceaccount/serviceaccounts_controller.go
    """

    name = "serviceaccount-controller"
    service_account = SERVICE_ACCOUNTS_CONTROLLER_POLICY.service_account
    #: ``ServiceAccountsControllerOptions.ServiceAccounts``.
    service_accounts_to_ensure = (DEFAULT_SERVICE_ACCOUNT_NAME,)

    def setup(self) -> None:
        """Queue namespaces on add/update and when their ``default`` ServiceAccount is deleted."""
        self.sa_informer = self.informers.informer_for("serviceaccounts")
        self.ns_informer = self.informers.informer_for("namespaces")
        self.sa_informer.add_event_handler(lambda o: None, lambda o, n: None, self._sa_deleted)
        self.ns_informer.add_event_handler(lambda n: self.enqueue(n["metadata"]["name"]),
                                           lambda o, n: self.enqueue(n["metadata"]["name"]), lambda o: None)

    def _sa_deleted(self, obj: Any) -> None:
        sa = unwrap_deleted(obj)
        if sa is not None and sa["metadata"]["name"] in self.service_accounts_to_ensure:
            self.enqueue(sa["metadata"]["namespace"])

    def reconcile(self, key: str) -> Result | None:
        """``syncNamespace``: create the missing ServiceAccounts of an Active namespace."""
        ns = self.ns_informer.lister.get("", key)
        if ns is None or (ns.get("status") or {}).get("phase") != "Active":
            return None
        failures = []
        for name in self.service_accounts_to_ensure:
            if self.sa_informer.lister.get(key, name) is not None:
                continue
            try:
                self.client.create("serviceaccounts", {"apiVersion": "v1", "kind": "ServiceAccount",
                                                       "metadata": {"name": name, "namespace": key}}, key)
            except ApiError as e:
                if e.code == 409 or _namespace_terminating(e):
                    continue
                failures.append(e)
        if failures:
            raise failures[0]
        return None


def _namespace_terminating(e: ApiError) -> bool:
    causes = ((e.status or {}).get("details") or {}).get("causes") or [] if hasattr(e, "status") else []
    if any(c.get("reason") == "NamespaceTerminating" for c in causes):
        return True
    return e.code == 403 and "being terminated" in str(e)


class TokensController(Controller):
    """``serviceaccount.TokensController``: populate and clean up legacy ``service-account-token`` Secrets.

    Options: ``root-ca-file`` (the CA bundle text written as ``ca.crt``).
    Tokens are signed with the API server's service-account key
    (``APIServer.token_generator``): upstream's kube-controller-manager
    ``--service-account-private-key-file`` is the private half of the
    apiserver's ``--service-account-key-file``; the model shares the one key.

    Notes
    -----
    Simplified: one workqueue for both Secret and ServiceAccount keys.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/controller/serviceaccount/tokens_controller.go
    """

    name = "serviceaccount-token-controller"
    service_account = TOKENS_CONTROLLER_POLICY.service_account  # None: kube-controller-manager's own credentials

    def setup(self) -> None:
        """Watch ServiceAccount deletions and ``service-account-token`` Secrets."""
        self.root_ca = str(self.option("root-ca-file", MODEL_ROOT_CA))
        self._signer: JWTTokenGenerator | None = None
        self.sa_informer = self.informers.informer_for("serviceaccounts")
        self.secret_informer = self.informers.informer_for("secrets")
        self.sa_informer.add_event_handler(lambda o: None, lambda o, n: None, self._sa_deleted)
        self.secret_informer.add_event_handler(self._secret_changed, lambda o, n: self._secret_changed(n),
                                               lambda o: None)

    def _sa_deleted(self, obj: Any) -> None:
        sa = unwrap_deleted(obj)
        if sa is not None:
            md = sa["metadata"]
            self.enqueue(f"sa/{md['namespace']}/{md['name']}/{md.get('uid', '')}")

    def _secret_changed(self, secret: dict) -> None:
        if secret.get("type") == SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
            md = secret["metadata"]
            self.enqueue(f"secret/{md['namespace']}/{md['name']}")

    def reconcile(self, key: str) -> Result | None:
        """``sa/<ns>/<name>/<uid>``: delete its token Secrets; ``secret/<ns>/<name>``: ``syncSecret``."""
        kind, _, rest = key.partition("/")
        if kind == "sa":
            ns, name, uid = rest.split("/", 2)
            self._delete_tokens(ns, name, uid)
        elif kind == "secret":
            ns, _, name = rest.partition("/")
            self.sync_secret(ns, name)
        return None

    @property
    def signer(self) -> JWTTokenGenerator:
        """``serviceaccount.JWTTokenGenerator(LegacyIssuer, privateKey)`` over the API server's signing key."""
        if self._signer is None:
            self._signer = JWTTokenGenerator(LEGACY_ISSUER, _token_generator(self.client.server).private_key)
        return self._signer

    def _delete_tokens(self, ns: str, sa_name: str, sa_uid: str) -> None:
        """``syncServiceAccount`` for a deleted ServiceAccount: delete the Secrets that reference it."""
        for s in self.secret_informer.lister.list(namespace=ns):
            if s.get("type") != SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
                continue
            ann = s["metadata"].get("annotations") or {}
            if ann.get(SERVICE_ACCOUNT_NAME_KEY) != sa_name:
                continue
            if ann.get(SERVICE_ACCOUNT_UID_KEY) and sa_uid and ann[SERVICE_ACCOUNT_UID_KEY] != sa_uid:
                continue
            self._delete_secret(s)

    def _delete_secret(self, secret: dict) -> None:
        md = secret["metadata"]
        try:
            self.client.delete("secrets", md["name"], md["namespace"], preconditions={"uid": md.get("uid")})
        except ApiError as e:
            if e.code not in (404, 409):
                raise

    def _service_account(self, ns: str, name: str, uid: str) -> dict | None:
        sa = self.sa_informer.lister.get(ns, name)
        if sa is None:
            try:
                sa = self.client.get("serviceaccounts", name, ns)  # fetchOnCacheMiss
            except ApiError as e:
                if e.code == 404:
                    return None
                raise
        if uid and sa["metadata"].get("uid") != uid:
            return None
        return sa

    def sync_secret(self, ns: str, name: str) -> None:
        """``syncSecret``: delete an orphaned token Secret, or fill in its token, CA and namespace.

        Parameters
        ----------
        ns, name : str
            The Secret.
        """
        secret = self.secret_informer.lister.get(ns, name)
        if secret is None:
            return
        ann = secret["metadata"].get("annotations") or {}
        sa_name, sa_uid = ann.get(SERVICE_ACCOUNT_NAME_KEY, ""), ann.get(SERVICE_ACCOUNT_UID_KEY, "")
        sa = self._service_account(ns, sa_name, sa_uid) if sa_name else None
        if sa is None:
            self._delete_secret(secret)
            return
        data = secret.get("data") or {}
        want_ca, want_ns = _b64(self.root_ca), _b64(ns)
        if data.get("token") and data.get("ca.crt") == want_ca and data.get("namespace") == want_ns \
                and ann.get(SERVICE_ACCOUNT_UID_KEY) == sa["metadata"].get("uid"):
            return
        live = deep_copy(self.client.get("secrets", name, ns))
        ldata = live.setdefault("data", {}) or {}
        live["data"] = ldata
        if not ldata.get("token"):
            ldata["token"] = _b64(_generate_token(self.signer, ns, sa_name, sa["metadata"].get("uid", ""), name))
        ldata["ca.crt"] = want_ca
        ldata["namespace"] = want_ns
        lann = live["metadata"].setdefault("annotations", {})
        lann[SERVICE_ACCOUNT_NAME_KEY] = sa_name
        lann[SERVICE_ACCOUNT_UID_KEY] = sa["metadata"].get("uid", "")
        self.client.update("secrets", live, ns)
