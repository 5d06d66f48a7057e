"""The ``ServiceAccount`` admission plugin: every pod runs as a ServiceAccount and gets its API token.

On pod CREATE (mutating phase):

* an empty ``spec.serviceAccountName`` becomes ``default``;
* the ServiceAccount must exist (403 ``error looking up service account
  ns/name: serviceaccount "name" not found``);
* unless the pod (or else the ServiceAccount) sets
  ``automountServiceAccountToken: false``, a projected volume
  ``kube-api-access-<5 random characters>`` (a bound token that expires
  after 3607 s, the ``kube-root-ca.crt`` ConfigMap's ``ca.crt``, and the
  namespace from the downward API) is added, and every container and init
  container without a mount at ``/var/run/secrets/kubernetes.io/serviceaccount``
  mounts it read-only there;
* a pod without ``imagePullSecrets`` inherits the ServiceAccount's.

The validating phase checks again that the ServiceAccount exists and, when
the ServiceAccount is annotated ``kubernetes.io/enforce-mountable-secrets:
"true"``, that the pod uses only the secrets the ServiceAccount lists.
Mirror pods (annotation ``kubernetes.io/config.mirror``) are not mutated and
may not reference ServiceAccounts.

Notes
-----
Upstream retries a missing ``default`` ServiceAccount for up to about two
seconds, because the ServiceAccount controller creates it right after the
namespace. Requests cannot wait on the virtual clock, so by default
(``wait_for_default=True``) a missing ``default`` ServiceAccount is treated
as the one that controller is about to create (automount on, no pull
secrets): the outcome upstream's retry gives on a healthy control plane.
Any other missing ServiceAccount is refused as upstream refuses it. Only
the container and init container secret references are checked for
mountable secrets (not ephemeral containers).

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/admission/serviceaccount/admission.go
kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/claims.go (WarnOnlyBoundTokenExpirationSeconds = 3607)
https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/
"""

from __future__ import annotations

import random
from typing import Any

from kubenotes.apiserver.admission.interfaces import CREATE, UPDATE, Plugin, forbidden
from kubenotes.apiserver.request import Attributes

__all__ = ["NAME", "ServiceAccount", "DEFAULT_SERVICE_ACCOUNT_NAME", "SERVICE_ACCOUNT_VOLUME_NAME",
           "DEFAULT_API_TOKEN_MOUNT_PATH", "ENFORCE_MOUNTABLE_SECRETS_ANNOTATION", "MIRROR_POD_ANNOTATION",
           "WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS", "token_volume_source"]

NAME = "ServiceAccount"
DEFAULT_SERVICE_ACCOUNT_NAME = "default"
#: Prefix of the projected token volume's name.
SERVICE_ACCOUNT_VOLUME_NAME = "kube-api-access"
DEFAULT_API_TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = "kubernetes.io/enforce-mountable-secrets"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
#: Lifetime of the token in the projected volume (one hour plus seven seconds).
WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607
#: ``names.SimpleNameGenerator``'s alphabet (no vowels, no confusable digits).
from kubenotes.api.rand import random_string  # noqa: E402


def token_volume_source() -> dict:
    """``TokenVolumeSource``: the projected volume of token, cluster CA and namespace (defaultMode 0644)."""
    return {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
                                    "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
    ]}


class ServiceAccount(Plugin):
    """Default the ServiceAccount, check it exists, mount its token (CREATE and UPDATE of pods).

    Parameters
    ----------
    seed : int
        Seeds the volume-name suffixes (``names.SimpleNameGenerator``).
    mount_service_account_token : bool
        ``MountServiceAccountToken``.
    limit_secret_references : bool
        ``LimitSecretReferences``: enforce mountable secrets for every ServiceAccount.
    wait_for_default : bool
        See Notes of the module.
    """

    name = NAME
    operations = frozenset({CREATE, UPDATE})

    def __init__(self, seed: int = 0, *, mount_service_account_token: bool = True,
                 limit_secret_references: bool = False, wait_for_default: bool = True):
        self.rng = random.Random(seed)
        self.mount_service_account_token = mount_service_account_token
        self.limit_secret_references = limit_secret_references
        self.wait_for_default = wait_for_default

    def generate_name(self, base: str) -> str:
        return base + random_string(5, self.rng)

    @staticmethod
    def _ignore(attrs: Attributes, obj: dict | None) -> bool:
        ri = attrs.resource
        return ri.group != "" or ri.resource != "pods" or attrs.subresource not in ("", "ephemeralcontainers") \
            or obj is None

    def _get_sa(self, attrs: Attributes, obj: dict, name: str, reader: Any) -> dict:
        sa = reader.get("serviceaccounts", attrs.namespace, name)
        if sa is not None:
            return sa
        if name == DEFAULT_SERVICE_ACCOUNT_NAME and self.wait_for_default:
            return {"metadata": {"name": name, "namespace": attrs.namespace}}
        raise forbidden(attrs, obj, f"error looking up service account {attrs.namespace}/{name}: "
                                    f'serviceaccount "{name}" not found')

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        if self._ignore(attrs, obj) or attrs.operation != CREATE:
            return
        assert obj is not None
        if MIRROR_POD_ANNOTATION in ((obj.get("metadata") or {}).get("annotations") or {}):
            return self.validate(attrs, obj, old, reader)
        spec = obj.setdefault("spec", {})
        if not spec.get("serviceAccountName"):
            spec["serviceAccountName"] = DEFAULT_SERVICE_ACCOUNT_NAME
        sa = self._get_sa(attrs, obj, spec["serviceAccountName"], reader)
        if self.mount_service_account_token and _should_automount(sa, spec):
            self._mount_token(spec)
        if not spec.get("imagePullSecrets") and sa.get("imagePullSecrets"):
            spec["imagePullSecrets"] = [{"name": s.get("name", "")} for s in sa["imagePullSecrets"]]

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        if self._ignore(attrs, obj) or attrs.operation != CREATE:
            return
        assert obj is not None
        spec = obj.get("spec") or {}
        md = obj.get("metadata") or {}
        if MIRROR_POD_ANNOTATION in (md.get("annotations") or {}):
            if spec.get("serviceAccountName"):
                raise forbidden(attrs, obj, "a mirror pod may not reference service accounts")
            return
        if not spec.get("serviceAccountName"):
            raise forbidden(attrs, obj, f"no service account specified for pod {attrs.namespace}/{md.get('name', '')}")
        sa = self._get_sa(attrs, obj, spec["serviceAccountName"], reader)
        enforce = self.limit_secret_references or str(
            ((sa.get("metadata") or {}).get("annotations") or {}).get(ENFORCE_MOUNTABLE_SECRETS_ANNOTATION, "")
        ).lower() in ("true", "1", "t")
        if enforce:
            msg = _limit_secret_references(sa, spec)
            if msg:
                raise forbidden(attrs, obj, msg)

    def _mount_token(self, spec: dict) -> None:
        volumes = list(spec.get("volumes") or [])
        prefix = SERVICE_ACCOUNT_VOLUME_NAME + "-"
        token_volume = next((v["name"] for v in volumes if v.get("name", "").startswith(prefix)), "")
        has_volume = bool(token_volume)
        if not token_volume:
            token_volume = self.generate_name(SERVICE_ACCOUNT_VOLUME_NAME + "-")
        mount = {"name": token_volume, "readOnly": True, "mountPath": DEFAULT_API_TOKEN_MOUNT_PATH}
        needs = False
        for key in ("initContainers", "containers"):
            for c in spec.get(key) or ():
                mounts = c.get("volumeMounts") or []
                if not any(m.get("mountPath") == DEFAULT_API_TOKEN_MOUNT_PATH for m in mounts):
                    c["volumeMounts"] = list(mounts) + [dict(mount)]
                    needs = True
        if not has_volume and needs:
            spec["volumes"] = list(volumes) + [{"name": token_volume, "projected": token_volume_source()}]


def _should_automount(sa: dict, spec: dict) -> bool:
    if spec.get("automountServiceAccountToken") is not None:
        return bool(spec["automountServiceAccountToken"])
    if sa.get("automountServiceAccountToken") is not None:
        return bool(sa["automountServiceAccountToken"])
    return True


def _limit_secret_references(sa: dict, spec: dict) -> str | None:
    sa_name = (sa.get("metadata") or {}).get("name", "")
    mountable = {s.get("name") for s in sa.get("secrets") or ()}
    for v in spec.get("volumes") or ():
        secret = v.get("secret")
        if secret is not None and secret.get("secretName") not in mountable:
            return (f'volume with secret.secretName="{secret.get("secretName")}" is not allowed because service '
                    f"account {sa_name} does not reference that secret")
    for key, what in (("initContainers", "init container"), ("containers", "container")):
        for c in spec.get(key) or ():
            for env in c.get("env") or ():
                ref = ((env.get("valueFrom") or {}).get("secretKeyRef")) or None
                if ref is not None and ref.get("name") not in mountable:
                    return (f'{what} {c.get("name")} with envVar {env.get("name")} referencing secret.secretName='
                            f'"{ref.get("name")}" is not allowed because service account {sa_name} does not '
                            f"reference that secret")
            for ef in c.get("envFrom") or ():
                ref = ef.get("secretRef")
                if ref is not None and ref.get("name") not in mountable:
                    return (f'{what} {c.get("name")} with envFrom referencing secret.secretName="{ref.get("name")}" '
                            f"is not allowed because service account {sa_name} does not reference that secret")
    pull = {s.get("name") for s in sa.get("imagePullSecrets") or ()}
    for i, ref in enumerate(spec.get("imagePullSecrets") or ()):
        if ref.get("name") not in pull:
            return (f'imagePullSecrets[{i}].name="{ref.get("name")}" is not allowed because service account '
                    f"{sa_name} does not reference that imagePullSecret")
    return None
