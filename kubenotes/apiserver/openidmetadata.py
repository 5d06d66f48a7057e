"""Service-account issuer discovery: ``/.well-known/openid-configuration`` and ``/openid/v1/jwks``.

kube-apiserver publishes how to verify the tokens it issues, so that a
relying party (a cloud's workload-identity federation, Vault, any OIDC
library) can check a service-account token without asking the API server:
the OpenID provider configuration names the issuer and the URL of the key
set; the key set (JWKS) holds the public half of every signing key, each
with the ``kid`` the tokens carry. Both are non-resource URLs, authorized
by RBAC: the bootstrap ClusterRole ``system:service-account-issuer-discovery``
grants ``get`` on them and is bound to ``system:serviceaccounts``; anonymous
clients get them once an administrator binds that role to
``system:unauthenticated`` as well (the documented step for public discovery).

References
----------
kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/openidmetadata.go (openIDConfigJSON, openIDKeysetJSON, jwkFromPublicKey)
kubernetes/kubernetes@v1.34.0 pkg/routes/openidmetadata.go (content types, Cache-Control)
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (system:service-account-issuer-discovery)
https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/#service-account-issuer-discovery
"""

from __future__ import annotations

import base64
import json
from typing import Any, Sequence

from kubenotes.apiserver.authn import algorithm_from_public_key, key_id_from_public_key
from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.status import ApiError

__all__ = ["OPENID_CONFIG_PATH", "JWKS_PATH", "CACHE_CONTROL", "MIME_JWKS", "PATHS", "jwk_from_public_key",
           "public_jwks", "openid_config", "metadata_response"]

#: ``serviceaccount.OpenIDConfigPath``.
OPENID_CONFIG_PATH = "/.well-known/openid-configuration"
#: ``serviceaccount.JWKSPath``.
JWKS_PATH = "/openid/v1/jwks"
#: ``routes.cacheControl``: both documents may be cached an hour.
CACHE_CONTROL = "public, max-age=3600"
#: ``routes.mimeJWKS`` (RFC 7517 section 8.5.1).
MIME_JWKS = "application/jwk-set+json"
#: The paths served, with and without a trailing slash (as the ClusterRole lists them).
PATHS = (OPENID_CONFIG_PATH, OPENID_CONFIG_PATH + "/", JWKS_PATH, JWKS_PATH + "/")


def _b64_uint(n: int) -> str:
    raw = n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64_fixed(n: int, size: int) -> str:
    return base64.urlsafe_b64encode(n.to_bytes(size, "big")).rstrip(b"=").decode("ascii")


def jwk_from_public_key(public_key: Any) -> dict:
    """``jwkFromPublicKey``: one public key as a JWK (``use: sig``, its ``kid`` and ``alg``).

    Keys come in go-jose's order: ``use``, ``kty``, ``kid``, (``crv``), ``alg``, then the key's numbers.

    Examples
    --------
    >>> from kubenotes.apiserver.authn import generate_signing_key
    >>> jwk = jwk_from_public_key(generate_signing_key().public_key())
    >>> list(jwk), jwk["e"]
    (['use', 'kty', 'kid', 'alg', 'n', 'e'], 'AQAB')
    """
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    alg = algorithm_from_public_key(public_key)
    kid = key_id_from_public_key(public_key)
    if isinstance(public_key, rsa.RSAPublicKey):
        nums = public_key.public_numbers()
        return {"use": "sig", "kty": "RSA", "kid": kid, "alg": alg, "n": _b64_uint(nums.n), "e": _b64_uint(nums.e)}
    assert isinstance(public_key, ec.EllipticCurvePublicKey)  # algorithm_from_public_key refused anything else
    nums = public_key.public_numbers()
    size = (public_key.curve.key_size + 7) // 8
    crv = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}[alg]
    return {"use": "sig", "kty": "EC", "kid": kid, "crv": crv, "alg": alg, "x": _b64_fixed(nums.x, size),
            "y": _b64_fixed(nums.y, size)}


def public_jwks(public_keys: Sequence[Any]) -> dict:
    """``openIDKeysetJSON``: the JSON Web Key Set of the issuer's public keys.

    Examples
    --------
    >>> from kubenotes.apiserver.authn import generate_signing_key
    >>> [k["kty"] for k in public_jwks([generate_signing_key().public_key()])["keys"]]
    ['RSA']
    """
    return {"keys": [jwk_from_public_key(k) for k in public_keys]}


def openid_config(issuer: str, jwks_uri: str, public_keys: Sequence[Any]) -> dict:
    """``openIDConfigJSON``: the OpenID provider configuration of the service-account issuer.

    Parameters
    ----------
    issuer : str
        ``--service-account-issuer`` (an https URL).
    jwks_uri : str
        ``--service-account-jwks-uri``, else ``https://<external address>/openid/v1/jwks``.
    public_keys : sequence
        The verifying keys; ``id_token_signing_alg_values_supported`` lists their algorithms, sorted.

    Examples
    --------
    >>> from kubenotes.apiserver.authn import generate_signing_key
    >>> openid_config("https://kubernetes.default.svc.cluster.local", "https://127.0.0.1:6443/openid/v1/jwks",
    ...               [generate_signing_key().public_key()])  # doctest: +NORMALIZE_WHITESPACE
    {'issuer': 'https://kubernetes.default.svc.cluster.local', 'jwks_uri': 'https://127.0.0.1:6443/openid/v1/jwks',
     'response_types_supported': ['id_token'], 'subject_types_supported': ['public'],
     'id_token_signing_alg_values_supported': ['RS256']}
    """
    return {"issuer": issuer, "jwks_uri": jwks_uri, "response_types_supported": ["id_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": sorted({algorithm_from_public_key(k) for k in public_keys})}


def metadata_response(server: Any, user: UserInfo, path: str, external_address: str) -> tuple[bytes, str]:
    """Authorize ``GET path`` for ``user`` and render the document: ``(body, content type)``.

    Parameters
    ----------
    server : APIServer
        Its ``authorizer`` (None: everything is allowed) and ``token_generator``.
    user : UserInfo
        The authenticated user, or :data:`~kubenotes.apiserver.authn.ANONYMOUS_USER`.
    path : str
        One of :data:`PATHS`.
    external_address : str
        ``host:port`` the API server is reached at (the default ``jwks_uri``'s host).

    Raises
    ------
    ApiError
        403 Forbidden, worded as upstream's for a non-resource URL
        (``forbidden: User "system:anonymous" cannot get path "/openid/v1/jwks"``).

    Notes
    -----
    Upstream takes the external address from ``--advertise-address`` or
    ``--external-hostname``; the model uses the ``Host`` the request came to.
    """
    authorizer = getattr(server, "authorizer", None)
    if authorizer is not None:
        from kubenotes.apiserver.rbac import NonResourceAttributes

        decision, reason = authorizer.authorize(NonResourceAttributes(user, "get", path))
        if decision != "Allow":
            msg = f'forbidden: User "{user.name}" cannot get path "{path}"'
            if reason:
                msg += f": {reason}"
            raise ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": msg, "reason": "Forbidden", "details": {}, "code": 403})
    gen = server.token_generator
    keys = [gen.public_key, *gen.verifying_keys]
    if path.rstrip("/") == JWKS_PATH:
        return json.dumps(public_jwks(keys), separators=(",", ":")).encode(), MIME_JWKS
    jwks_uri = f"https://{external_address}{JWKS_PATH}"
    return json.dumps(openid_config(gen.issuer, jwks_uri, keys), separators=(",", ":")).encode(), "application/json"
