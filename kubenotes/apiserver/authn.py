"""Authentication: bearer tokens in, a user (name, uid, groups) out; service-account tokens issued and reviewed.

Two token kinds are modelled, as kube-apiserver checks them in turn:

* **static tokens** (``--token-auth-file``): a fixed token names a user and
  groups, like the admin token of a kubeconfig (``kubenotes serve`` makes a
  random one at every start);
* **service-account tokens**: JWTs the API server issues from
  ``POST serviceaccounts/<name>/token`` (a TokenRequest), signed RS256 with
  the server's private key (``--service-account-signing-key-file``; a new
  RSA key per server when none is given) through PyJWT. The token carries
  the issuer, subject ``system:serviceaccount:<namespace>:<name>``,
  audiences, ``iat``/``nbf``/``exp``, a random ``jti`` and a
  ``kubernetes.io`` claim naming the ServiceAccount and, for a bound token,
  the Pod, Secret or Node. The authenticator checks the algorithm, the
  signature against the public keys, the issuer, the audience, the times
  (with go-jose's one-minute leeway) and, when it can read the store, that
  the ServiceAccount and the bound object still exist with the uids in the
  token.

Every authenticated user also gets the group ``system:authenticated``; a
service account gets ``system:serviceaccounts`` and
``system:serviceaccounts:<namespace>``. A request whose token no
authenticator accepts is answered 401 Unauthorized
(:func:`kubenotes.apiserver.status.new_unauthorized`).

Times are virtual: ``iat``/``exp`` count from the server's epoch
(:data:`kubenotes.apiserver.clock.DEFAULT_EPOCH` unless the cluster chose
another) plus the SimPy clock. Keys and tokens are secrets, not part of the
model's determinism: ``--seed`` fixes objects and events, never a key.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/jwt.go (JWTTokenGenerator, keyIDFromPublicKey, JWTTokenAuthenticator)
kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/claims.go (Claims, validator.Validate)
kubernetes/kubernetes@v1.34.0 pkg/registry/core/serviceaccount/storage/token.go (TokenREST.Create)
kubernetes/kubernetes@v1.34.0 pkg/apis/authentication/validation/validation.go (ValidateTokenRequest)
kubernetes/kubernetes@v1.34.0 pkg/registry/authentication/tokenreview/storage.go (REST.Create)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go (MakeUsername, MakeGroupNames)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authentication/token/tokenfile/tokenfile.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authentication/group/authenticated_group_adder.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go
https://kubernetes.io/docs/reference/access-authn-authz/authentication/#service-account-tokens
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import threading
import uuid
from typing import Any, Mapping, Sequence

from kubenotes.apiserver.request import SYSTEM_AUTHENTICATED, SYSTEM_MASTERS, SYSTEM_UNAUTHENTICATED, UserInfo
from kubenotes.errors import ConfigError, KubenotesError

__all__ = [
    "issue_service_account_token",
    "service_account_claims",
    "decode_token",
    "JWTTokenGenerator",
    "TokenAuthenticator",
    "TokenError",
    "UnrecognizedToken",
    "key_id_from_public_key",
    "algorithm_from_public_key",
    "generate_signing_key",
    "load_signing_key",
    "signing_key_pem",
    "token_request",
    "token_review",
    "make_username",
    "make_group_names",
    "split_username",
    "DEFAULT_ISSUER",
    "DEFAULT_LEEWAY_SECONDS",
    "DEFAULT_TOKEN_EXPIRATION_SECONDS",
    "MIN_TOKEN_EXPIRATION_SECONDS",
    "MAX_TOKEN_EXPIRATION_SECONDS",
    "WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS",
    "EXPIRATION_EXTENSION_SECONDS",
    "SUPPORTED_ALGORITHMS",
    "ADMIN_USER",
    "ANONYMOUS_USER",
    "SERVICE_ACCOUNT_USERNAME_PREFIX",
    "ALL_SERVICE_ACCOUNTS_GROUP",
    "TOKEN_EXPIRED",
    "TOKEN_NOT_VALID_YET",
    "TOKEN_INVALIDATED",
    "INVALID_SIGNATURE",
    "INVALID_BEARER_TOKEN",
    "DURATION_TOO_SHORT",
    "DURATION_TOO_LONG",
]

#: ``--service-account-issuer`` of a kubeadm cluster; also the default API audience.
DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"
#: go-jose's ``jwt.DefaultLeeway``: clock skew tolerated on ``exp``, ``nbf`` and ``iat``.
DEFAULT_LEEWAY_SECONDS = 60
#: ``SetDefaults_TokenRequestSpec``: a TokenRequest without ``expirationSeconds`` asks for an hour.
DEFAULT_TOKEN_EXPIRATION_SECONDS = 60 * 60
#: ``ValidateTokenRequest``: the shortest and longest ``expirationSeconds`` a TokenRequest may ask for.
MIN_TOKEN_EXPIRATION_SECONDS = 10 * 60
MAX_TOKEN_EXPIRATION_SECONDS = 1 << 32
#: ``claims.go``: the expiration kubelets ask for, which ``--service-account-extend-token-expiration`` extends.
WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7
#: ``claims.go``: what such a token's lifetime is extended to (a year); it carries ``warnafter`` instead.
EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60
#: The signature algorithms ``jwt.go`` accepts when it parses a token (``jwt.ParseSigned``'s allowed list).
SUPPORTED_ALGORITHMS = ("RS256", "ES256", "ES384", "ES512")
SERVICE_ACCOUNT_USERNAME_PREFIX = "system:serviceaccount:"
ALL_SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
SERVICE_ACCOUNT_GROUP_PREFIX = "system:serviceaccounts:"

#: ``validator.Validate`` messages (``pkg/serviceaccount/claims.go``).
TOKEN_EXPIRED = "service account token has expired"
TOKEN_NOT_VALID_YET = "service account token is not valid yet"
TOKEN_ISSUED_IN_FUTURE = "service account token is issued in the future"
TOKEN_INVALIDATED = "service account token has been invalidated"
#: go-jose's error when no public key verifies the signature.
INVALID_SIGNATURE = "go-jose/go-jose: error in cryptographic primitive"
#: ``bearertoken.go``'s error when no authenticator recognises the token.
INVALID_BEARER_TOKEN = "invalid bearer token"
#: ``ValidateTokenRequest`` messages.
DURATION_TOO_SHORT = "may not specify a duration less than 10 minutes"
DURATION_TOO_LONG = "may not specify a duration larger than 2^32 seconds"

#: The user the admin token of ``kubenotes serve``'s kubeconfig authenticates as (as :meth:`APIServer.client`).
ADMIN_USER = UserInfo("kubernetes-admin", groups=(SYSTEM_MASTERS, SYSTEM_AUTHENTICATED))
#: ``system:anonymous`` in ``system:unauthenticated`` (``--anonymous-auth``), for requests without a token.
ANONYMOUS_USER = UserInfo("system:anonymous", groups=(SYSTEM_UNAUTHENTICATED,))

_RSA_KEY_BITS = 2048  # what kubeadm's sa.key has (pkiutil.NewPrivateKey for the service-account key pair)


class TokenError(KubenotesError):
    """Why a token was rejected (the API server logs this and answers only 401 Unauthorized)."""


class UnrecognizedToken(TokenError):
    """Not a service-account token of this issuer: the authenticator has no opinion (``hasCorrectIssuer``)."""


def make_username(namespace: str, name: str) -> str:
    """``serviceaccount.MakeUsername``: ``system:serviceaccount:<namespace>:<name>``.

    Examples
    --------
    >>> make_username("default", "viewer")
    'system:serviceaccount:default:viewer'
    """
    return f"{SERVICE_ACCOUNT_USERNAME_PREFIX}{namespace}:{name}"


def split_username(username: str) -> tuple[str, str] | None:
    """``serviceaccount.SplitUsername``: ``(namespace, name)`` of a service-account user name, else None.

    Examples
    --------
    >>> split_username("system:serviceaccount:kube-system:node-controller"), split_username("alice")
    (('kube-system', 'node-controller'), None)
    """
    if not username.startswith(SERVICE_ACCOUNT_USERNAME_PREFIX):
        return None
    parts = username[len(SERVICE_ACCOUNT_USERNAME_PREFIX):].split(":")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return parts[0], parts[1]


def make_group_names(namespace: str) -> tuple[str, str]:
    """``serviceaccount.MakeGroupNames``: ``system:serviceaccounts`` and ``system:serviceaccounts:<namespace>``."""
    return ALL_SERVICE_ACCOUNTS_GROUP, SERVICE_ACCOUNT_GROUP_PREFIX + namespace


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _epoch_seconds(epoch: _dt.datetime | None) -> int:
    if epoch is None:
        from kubenotes.apiserver.clock import DEFAULT_EPOCH

        epoch = DEFAULT_EPOCH
    return int(epoch.timestamp())


def _unix_seconds(timestamp: str) -> float:
    t = _dt.datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)
    return t.timestamp()


def _rfc3339(unix_seconds: int) -> str:
    return _dt.datetime.fromtimestamp(unix_seconds, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------ keys (jwt.go, openidmetadata.go)

def key_id_from_public_key(public_key: Any) -> str:
    """``keyIDFromPublicKey``: base64url (no padding) of the SHA-256 of the key's DER SubjectPublicKeyInfo.

    The ``kid`` header of every token the key signs and the ``kid`` of its
    JWK in ``/openid/v1/jwks``; it names the key without revealing it.

    Examples
    --------
    >>> key = generate_signing_key()
    >>> kid = key_id_from_public_key(key.public_key())
    >>> len(kid), "=" in kid
    (43, False)
    """
    from cryptography.hazmat.primitives import serialization

    der = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode("ascii")


def algorithm_from_public_key(public_key: Any) -> str:
    """``algorithmFromPublicKey``: RS256 for RSA, ES256/ES384/ES512 for ECDSA on P-256/P-384/P-521.

    Raises
    ------
    ConfigError
        For another key type or curve (upstream's "unknown public key type" / "unknown private key curve").

    Examples
    --------
    >>> algorithm_from_public_key(generate_signing_key().public_key())
    'RS256'
    """
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if isinstance(public_key, rsa.RSAPublicKey):
        return "RS256"
    if isinstance(public_key, ec.EllipticCurvePublicKey):
        alg = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}.get(public_key.curve.name)
        if alg is None:
            raise ConfigError("unknown private key curve, must be 256, 384, or 521")
        return alg
    raise ConfigError("unknown public key type, must be *rsa.PublicKey or *ecdsa.PublicKey")


def generate_signing_key(key_type: str = "RSA") -> Any:
    """A new random private key: RSA-2048 (what kubeadm writes to ``/etc/kubernetes/pki/sa.key``) or ECDSA P-256.

    Parameters
    ----------
    key_type : {"RSA", "EC"}
        ``EC`` is what upstream's in-process test API server signs with
        (``cmd/kube-apiserver/app/testing/testserver.go`` passes an ECDSA P-256
        key as ``--service-account-signing-key-file``); it takes a fraction
        of a millisecond to make where RSA takes about 0.1 s.

    Raises
    ------
    ConfigError
        For another key type.

    Examples
    --------
    >>> generate_signing_key().key_size, generate_signing_key("EC").curve.name
    (2048, 'secp256r1')
    """
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if key_type == "RSA":
        return rsa.generate_private_key(public_exponent=65537, key_size=_RSA_KEY_BITS)
    if key_type == "EC":
        return ec.generate_private_key(ec.SECP256R1())
    raise ConfigError(f"unknown signing key type {key_type!r}, must be RSA or EC")


def load_signing_key(path: str) -> Any:
    """Read ``--service-account-signing-key-file``: a PEM RSA or ECDSA private key (``keyutil.PrivateKeyFromFile``).

    Raises
    ------
    ConfigError
        When the file cannot be read, holds no private key, or holds a key of another type.
    """
    from cryptography.hazmat.primitives import serialization

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ConfigError(f"failed to parse service-account issuer key file {path!r}: {e.strerror}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise ConfigError(f"failed to parse service-account issuer key file {path!r}: no unencrypted PEM private "
                          "key in it") from None
    algorithm_from_public_key(key.public_key())
    return key


def signing_key_pem(private_key: Any) -> bytes:
    """The private key as PEM, the traditional form kubeadm writes (``RSA PRIVATE KEY`` / ``EC PRIVATE KEY``).

    Examples
    --------
    >>> signing_key_pem(generate_signing_key()).splitlines()[0]
    b'-----BEGIN RSA PRIVATE KEY-----'
    """
    from cryptography.hazmat.primitives import serialization

    return private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                     serialization.NoEncryption())


class JWTTokenGenerator:
    """``serviceaccount.JWTTokenGenerator``: signs service-account claims with the issuer's private key.

    Parameters
    ----------
    issuer : str
        ``--service-account-issuer``: written to ``iss`` of every token.
    private_key : RSA or EC private key (``cryptography``), optional
        ``--service-account-signing-key-file``. Without one, a random key of
        ``key_type`` is made the first time one is needed (so a model that
        never issues a token never pays for the key), and it lives as long
        as this generator: a new server, a new key.
    key_type : {"RSA", "EC"}
        The kind of key made when none is given (:func:`generate_signing_key`).
    verifying_keys : sequence of public keys
        More keys tokens are accepted from and the JWKS publishes
        (``--service-account-key-file`` given several times, as during a
        key rotation).

    Notes
    -----
    Signing goes through PyJWT; the header is ``{"alg", "kid"}`` as go-jose
    writes it (no ``typ``). Upstream's external signer (``jwt_external.go``)
    is not modelled. The in-process :class:`~kubenotes.apiserver.server.APIServer`
    signs with an ECDSA key (ES256), as upstream's test API server does, so
    that the many clusters a notebook or a test suite builds do not each
    spend 0.1 s on an RSA key; ``kubenotes serve`` makes an RSA key (RS256)
    at start, as a kubeadm cluster has.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/jwt.go (JWTTokenGenerator, signerFromRSAPrivateKey, GenerateToken)

    Examples
    --------
    >>> gen = JWTTokenGenerator()
    >>> gen.algorithm, gen.key_id == key_id_from_public_key(gen.public_key)
    ('RS256', True)
    """

    def __init__(self, issuer: str = DEFAULT_ISSUER, private_key: Any = None, *, key_type: str = "RSA",
                 verifying_keys: Sequence[Any] = ()):
        self.issuer = issuer
        self.key_type = key_type
        self.verifying_keys = list(verifying_keys)
        self._private_key = private_key
        self._lock = threading.Lock()

    @property
    def has_key(self) -> bool:
        """Whether the key exists yet (a generator without one has signed nothing)."""
        return self._private_key is not None

    @property
    def private_key(self) -> Any:
        """The signing key (made on first use when none was given)."""
        if self._private_key is None:
            with self._lock:
                if self._private_key is None:
                    self._private_key = generate_signing_key(self.key_type)
        return self._private_key

    @property
    def public_key(self) -> Any:
        """The key tokens are verified with (served in ``/openid/v1/jwks``)."""
        return self.private_key.public_key()

    @property
    def key_id(self) -> str:
        """:func:`key_id_from_public_key` of :attr:`public_key`: the ``kid`` header."""
        return key_id_from_public_key(self.public_key)

    @property
    def algorithm(self) -> str:
        """:func:`algorithm_from_public_key`: ``RS256`` for the default RSA key."""
        return algorithm_from_public_key(self.public_key)

    def public_keys(self) -> list[Any]:
        """The keys tokens are verified with: the signing key's public half (once it exists), then the others."""
        return ([self.public_key] if self.has_key else []) + self.verifying_keys

    def generate_token(self, claims: Mapping[str, Any]) -> str:
        """``GenerateToken``: set ``iss`` to the issuer and sign; the compact ``header.payload.signature``."""
        import jwt

        payload = dict(claims, iss=self.issuer)
        # go-jose merges the public and private claims into one JSON object: its keys come out sorted
        payload = json.loads(json.dumps(payload, sort_keys=True))
        return jwt.encode(payload, self.private_key, algorithm=self.algorithm,
                          headers={"kid": self.key_id, "typ": None})

    def __repr__(self) -> str:
        return f"JWTTokenGenerator({self.issuer!r}, kid={self.key_id if self.has_key else None!r})"


def service_account_claims(namespace: str, name: str, uid: str, expiration_seconds: int, now_unix: int, *,
                           audiences: Sequence[str] = (DEFAULT_ISSUER,), pod: Mapping | None = None,
                           secret: Mapping | None = None, node: Mapping | None = None,
                           warnafter_seconds: int = 0) -> dict:
    """``serviceaccount.Claims``: the claims of a token for one ServiceAccount (everything but ``iss``).

    Parameters
    ----------
    namespace, name, uid : str
        The ServiceAccount.
    expiration_seconds : int
        Lifetime: ``exp = iat + expiration_seconds``.
    now_unix : int
        ``iat`` and ``nbf``, in Unix seconds.
    audiences : sequence of str
        ``aud``.
    pod, secret, node : dict, optional
        The object the token is bound to (its ``metadata`` name and uid go into ``kubernetes.io``).
        A Pod token also names the Pod's node when ``node`` is given (``ServiceAccountTokenPodNodeInfo``).
    warnafter_seconds : int
        When not 0, ``kubernetes.io.warnafter = iat + warnafter_seconds`` (an extended kubelet token).

    Returns
    -------
    dict
        ``sub``, ``aud``, ``iat``, ``nbf``, ``exp``, ``jti`` (a random UUID) and ``kubernetes.io``.

    Raises
    ------
    TokenError
        When bound to a Secret and to a Pod or Node at once.

    Examples
    --------
    >>> web = {"metadata": {"name": "web", "uid": "p1"}}
    >>> c = service_account_claims("default", "viewer", "uid-1", 600, 1_000, pod=web)
    >>> c["sub"], c["exp"] - c["iat"], c["kubernetes.io"]["pod"]
    ('system:serviceaccount:default:viewer', 600, {'name': 'web', 'uid': 'p1'})
    """
    if secret is not None and (pod is not None or node is not None):
        raise TokenError("internal error, token can only be bound to one object type")
    now_unix = int(now_unix)
    k8s: dict[str, Any] = {"namespace": namespace, "serviceaccount": {"name": name, "uid": uid}}

    def ref(obj: Mapping) -> dict:
        md = obj.get("metadata") or {}
        return {k: v for k, v in (("name", md.get("name", "")), ("uid", md.get("uid", ""))) if v}

    if pod is not None:
        k8s["pod"] = ref(pod)
        if node is not None:
            k8s["node"] = ref(node)
    elif secret is not None:
        k8s["secret"] = ref(secret)
    elif node is not None:
        k8s["node"] = ref(node)
    if warnafter_seconds:
        k8s["warnafter"] = now_unix + int(warnafter_seconds)
    return {"sub": make_username(namespace, name), "aud": list(audiences), "iat": now_unix, "nbf": now_unix,
            "exp": now_unix + int(expiration_seconds), "jti": str(uuid.uuid4()), "kubernetes.io": k8s}


def issue_service_account_token(generator: JWTTokenGenerator, namespace: str, name: str, uid: str,
                                expiration_seconds: int = DEFAULT_TOKEN_EXPIRATION_SECONDS,
                                now_seconds: float = 0.0, *, audiences: Sequence[str] = (DEFAULT_ISSUER,),
                                epoch: _dt.datetime | None = None, **bound: Any) -> str:
    """A service-account token, as a TokenRequest returns it in ``status.token``.

    Parameters
    ----------
    generator : JWTTokenGenerator
        The issuer and its key (``APIServer.token_generator``).
    namespace, name, uid : str
        The ServiceAccount.
    expiration_seconds : int
        ``spec.expirationSeconds``.
    now_seconds : float
        Virtual time of issue (the SimPy clock).
    audiences : sequence of str
        ``aud`` (the API server's own audience by default).
    epoch : datetime, optional
        Wall-clock time of virtual second 0 (:data:`~kubenotes.apiserver.clock.DEFAULT_EPOCH`).
    **bound
        ``pod``, ``secret``, ``node``, ``warnafter_seconds`` of :func:`service_account_claims`.

    Returns
    -------
    str
        ``header.payload.signature``, each part base64url without padding.

    Examples
    --------
    >>> gen = JWTTokenGenerator()
    >>> tok = issue_service_account_token(gen, "default", "viewer", "uid-1", 3600, now_seconds=10)
    >>> claims = decode_token(tok)
    >>> claims["sub"], claims["exp"] - claims["iat"], claims["kubernetes.io"]["serviceaccount"]
    ('system:serviceaccount:default:viewer', 3600, {'name': 'viewer', 'uid': 'uid-1'})
    """
    now_unix = _epoch_seconds(epoch) + int(now_seconds)
    return generator.generate_token(service_account_claims(namespace, name, uid, expiration_seconds, now_unix,
                                                           audiences=audiences, **bound))


def decode_token(token: str) -> dict:
    """The claims of a JWT, without verifying anything (what jwt.io shows).

    Raises
    ------
    TokenError
        When the token is not three base64url parts with a JSON object in the middle.
    """
    parts = token.split(".")
    if len(parts) != 3:
        raise UnrecognizedToken("token is not a JWT")
    try:
        claims = json.loads(_unb64(parts[1]))
    except (ValueError, UnicodeDecodeError):
        raise UnrecognizedToken("token payload is not JSON") from None
    if not isinstance(claims, dict):
        raise UnrecognizedToken("token payload is not a JSON object")
    return claims


def _check_claim_types(claims: Mapping[str, Any]) -> None:
    """Refuse claims of the wrong JSON type, as go-jose and ``json.Unmarshal`` do when they parse them.

    Raises
    ------
    TokenError
        ``aud`` neither a string nor a list of strings; ``exp``/``nbf``/``iat``
        not numbers; ``iss``/``sub``/``jti`` not strings; a ``kubernetes.io``
        part that is not an object of strings (``warnafter`` a number).
    """
    def bad(what: str) -> TokenError:
        return TokenError(f"service account token claims could not be parsed: {what}")

    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    aud = claims.get("aud")
    if aud is not None and not isinstance(aud, str) and \
            not (isinstance(aud, list) and all(isinstance(a, str) for a in aud)):
        raise bad("expected string or array value to unmarshal to Audience")
    for f in ("exp", "nbf", "iat"):
        if claims.get(f) is not None and not number(claims[f]):
            raise bad(f"{f} is not a number")
    for f in ("iss", "sub", "jti"):
        if claims.get(f) is not None and not isinstance(claims[f], str):
            raise bad(f"{f} is not a string")
    k8s = claims.get("kubernetes.io")
    if k8s is None:
        return
    if not isinstance(k8s, dict):
        raise bad("kubernetes.io is not an object")
    if k8s.get("namespace") is not None and not isinstance(k8s["namespace"], str):
        raise bad("kubernetes.io.namespace is not a string")
    if k8s.get("warnafter") is not None and not number(k8s["warnafter"]):
        raise bad("kubernetes.io.warnafter is not a number")
    for ref in ("serviceaccount", "pod", "secret", "node"):
        r = k8s.get(ref)
        if r is None:
            continue
        if not isinstance(r, dict) or any(r.get(f) is not None and not isinstance(r[f], str) for f in ("name", "uid")):
            raise bad(f"kubernetes.io.{ref} is not an object with string name and uid")


class TokenAuthenticator:
    """Bearer-token authentication: static tokens, then service-account JWTs.

    Parameters
    ----------
    static_tokens : mapping of str to UserInfo, optional
        ``--token-auth-file`` entries (none by default: ``kubenotes serve``
        adds its random admin token).
    reader : StoreReader, optional
        When given, a service-account token is accepted only while its
        ServiceAccount (and the Pod, Secret or Node it is bound to) exists
        with the uid in the token (``--service-account-lookup``, on by
        default upstream). An :class:`~kubenotes.apiserver.server.APIServer`
        also lends its ``token_generator`` as the verifying key.
    issuers : tuple of str
        Accepted ``iss`` values (``--service-account-issuer``).
    audiences : tuple of str
        ``--api-audiences``: the token's ``aud`` must contain one of them.
    keys : JWTTokenGenerator or sequence of public keys, optional
        What signatures are verified with (``--service-account-key-file``);
        by default the reader's ``token_generator``.
    epoch : datetime, optional
        Wall-clock time of virtual second 0.

    Notes
    -----
    Only bearer tokens are modelled: no x509 client certificates, OIDC,
    webhook token review, bootstrap tokens, legacy Secret-based
    service-account tokens or the token cache. ``UserInfo.extra``
    (``authentication.kubernetes.io/credential-id``, pod name and uid) is not
    set. The admin token maps to ``kubernetes-admin`` in ``system:masters``,
    as :meth:`~kubenotes.apiserver.server.APIServer.client` does (kubeadm
    since 1.29 puts ``kubernetes-admin`` in ``kubeadm:cluster-admins`` and
    keeps ``system:masters`` for ``super-admin.conf``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/jwt.go
    kubernetes/kubernetes@v1.34.0 pkg/kubeapiserver/authenticator/config.go

    Examples
    --------
    >>> gen = JWTTokenGenerator()
    >>> authn = TokenAuthenticator({"s3cret": ADMIN_USER}, keys=gen)
    >>> authn.authenticate("s3cret", 0).name
    'kubernetes-admin'
    >>> tok = issue_service_account_token(gen, "default", "viewer", "uid-1", 600, now_seconds=0)
    >>> user = authn.authenticate(tok, now_seconds=100)
    >>> user.name, user.groups
    ('system:serviceaccount:default:viewer', ('system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'))
    >>> authn.authenticate(tok, now_seconds=661) is None  # expired: 600 s plus the 60 s leeway have passed
    True
    >>> TokenAuthenticator(keys=JWTTokenGenerator()).authenticate(tok, 100) is None  # another server's key
    True
    """

    def __init__(self, static_tokens: Mapping[str, UserInfo] | None = None, *, reader: Any = None,
                 issuers: tuple[str, ...] = (DEFAULT_ISSUER,), audiences: tuple[str, ...] = (DEFAULT_ISSUER,),
                 keys: Any = None, epoch: _dt.datetime | None = None):
        self.static_tokens = dict(static_tokens or {})
        self.reader = reader
        self.issuers = tuple(issuers)
        self.audiences = tuple(audiences)
        self.keys = keys
        self.epoch_seconds = _epoch_seconds(epoch)
        #: Why the last rejected token was rejected (upstream logs it; the client only sees 401).
        self.last_error = ""
        #: Whether a service-account authenticator recognised the last rejected token as one of its issuer's.
        self.last_recognized = False

    def public_keys(self) -> list[Any]:
        """The keys signatures are checked against (``keysGetter.GetPublicKeys``)."""
        keys = self.keys if self.keys is not None else getattr(self.reader, "token_generator", None)
        if keys is None:
            return []
        if hasattr(keys, "public_keys"):
            return list(keys.public_keys())
        return list(keys)

    def verify_service_account_token(self, token: str, now_seconds: float,
                                     audiences: Sequence[str] | None = None) -> UserInfo:
        """Check a service-account JWT and return its user.

        Parameters
        ----------
        token : str
        now_seconds : float
            Virtual time of the request.
        audiences : sequence of str, optional
            The audiences asked for (a TokenReview's ``spec.audiences``); the API audiences by default.

        Raises
        ------
        TokenError
            Not a JWT or not from an accepted issuer; an algorithm outside
            :data:`SUPPORTED_ALGORITHMS` (``none``, ``HS256``...); no public
            key verifies the signature (:data:`INVALID_SIGNATURE`); wrong
            audience; :data:`TOKEN_EXPIRED`, :data:`TOKEN_NOT_VALID_YET`; or
            (with a reader) a ServiceAccount or bound object that is gone, was
            deleted more than the leeway ago, or has another uid.
        """
        import jwt

        claims = decode_token(token)
        if claims.get("iss") not in self.issuers:  # hasCorrectIssuer: not a token of this issuer
            raise UnrecognizedToken(f'token issuer "{claims.get("iss")}" is not accepted')
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise UnrecognizedToken("token header is not JSON") from None
        alg = header.get("alg")
        if alg not in SUPPORTED_ALGORITHMS:
            allowed = " ".join(f'"{a}"' for a in SUPPORTED_ALGORITHMS)
            raise TokenError(f'go-jose/go-jose: unexpected signature algorithm "{alg}"; expected [{allowed}]')
        verified = None
        for key in self.public_keys():
            if algorithm_from_public_key(key) != alg:
                continue
            try:
                verified = jwt.decode(token, key, algorithms=[alg], options={
                    "verify_signature": True, "verify_exp": False, "verify_nbf": False, "verify_iat": False,
                    "verify_aud": False, "verify_iss": False})
                break
            except jwt.InvalidSignatureError:
                continue
            except jwt.PyJWTError as e:
                raise TokenError(str(e)) from None
        if verified is None:
            raise TokenError(INVALID_SIGNATURE)
        claims = verified
        _check_claim_types(claims)
        aud = claims.get("aud")
        token_auds = [aud] if isinstance(aud, str) else list(aud or [])
        wanted = tuple(audiences) if audiences else self.audiences
        if not token_auds:
            token_auds = list(self.audiences)  # a legacy token without aud: only the API audiences
        if wanted and not set(token_auds) & set(wanted):
            raise TokenError(f"token audiences {json.dumps(token_auds)} is invalid for the target audiences "
                             f"{json.dumps(list(wanted))}")
        now = self.epoch_seconds + now_seconds
        leeway = DEFAULT_LEEWAY_SECONDS
        if claims.get("exp") is not None and now - leeway > claims["exp"]:
            raise TokenError(TOKEN_EXPIRED)
        if claims.get("nbf") is not None and now + leeway < claims["nbf"]:
            raise TokenError(TOKEN_NOT_VALID_YET)
        if claims.get("iat") is not None and now + leeway < claims["iat"]:
            raise TokenError(TOKEN_ISSUED_IN_FUTURE)
        k8s = claims.get("kubernetes.io") or {}
        namespace = k8s.get("namespace") or ""
        sa = k8s.get("serviceaccount") or {}
        name, uid = sa.get("name") or "", sa.get("uid") or ""
        if not namespace or not name or claims.get("sub") != make_username(namespace, name):
            raise TokenError("token does not name a service account")
        if self.reader is not None:
            self._validate_references(namespace, name, uid, k8s, now)
        return UserInfo(make_username(namespace, name), uid, make_group_names(namespace))

    def _validate_references(self, namespace: str, name: str, uid: str, k8s: dict, now: float) -> None:
        """``validator.Validate``: the ServiceAccount and the bound Secret, Pod or Node still exist, same uids."""
        deleted_before = now - DEFAULT_LEEWAY_SECONDS

        def gone(obj: dict) -> bool:
            ts = (obj.get("metadata") or {}).get("deletionTimestamp")
            return bool(ts) and _unix_seconds(ts) < deleted_before

        obj = self.reader.get("serviceaccounts", namespace, name)
        if obj is None:
            raise TokenError(f'serviceaccounts "{name}" not found')
        if gone(obj):
            raise TokenError(f"service account {namespace}/{name} has been deleted")
        if obj.get("metadata", {}).get("uid", "") != uid:
            raise TokenError(f"service account UID ({obj.get('metadata', {}).get('uid', '')}) does not match "
                             f"claim ({uid})")
        for kind, resource, ns in (("secret", "secrets", namespace), ("pod", "pods", namespace),
                                   ("node", "nodes", None)):
            ref = k8s.get(kind)
            if not isinstance(ref, dict):
                continue
            bound = self.reader.get(resource, ns, ref.get("name", ""))
            if bound is None or gone(bound):
                raise TokenError(TOKEN_INVALIDATED)
            if bound.get("metadata", {}).get("uid", "") != ref.get("uid", ""):
                what = {"secret": "secret", "pod": "pod", "node": "node"}[kind]
                raise TokenError(f"{what} UID ({bound['metadata'].get('uid', '')}) does not match service account "
                                 f"{kind} ref claim ({ref.get('uid', '')})")

    def authenticate(self, token: str, now_seconds: float = 0.0,
                     audiences: Sequence[str] | None = None) -> UserInfo | None:
        """The user a bearer token authenticates, or None (the caller answers 401 Unauthorized).

        Parameters
        ----------
        token : str
        now_seconds : float
            Virtual time of the request.
        audiences : sequence of str, optional
            Audiences asked for (a TokenReview's); the API audiences by default.

        Returns
        -------
        UserInfo or None
            With ``system:authenticated`` added to its groups.
        """
        self.last_error, self.last_recognized = "", False
        if not token:
            self.last_error = "no token"
            return None
        user = self.static_tokens.get(token)
        if user is None:
            try:
                user = self.verify_service_account_token(token, now_seconds, audiences)
            except TokenError as e:
                self.last_error, self.last_recognized = str(e), not isinstance(e, UnrecognizedToken)
                return None
        if SYSTEM_AUTHENTICATED not in user.groups:
            user = UserInfo(user.name, user.uid, (*user.groups, SYSTEM_AUTHENTICATED))
        return user

    def authenticate_header(self, authorization: str | None, now_seconds: float = 0.0) -> UserInfo | None:
        """``bearertoken.AuthenticateRequest``: the user of an ``Authorization: Bearer <token>`` header.

        A missing header, another scheme or an empty token give None.

        Examples
        --------
        >>> authn = TokenAuthenticator({"s3cret": ADMIN_USER})
        >>> authn.authenticate_header("Bearer s3cret").groups
        ('system:masters', 'system:authenticated')
        >>> authn.authenticate_header("Basic abc") is None
        True
        """
        token = _bearer_token(authorization)
        return self.authenticate(token, now_seconds) if token else None

    def static_user(self, authorization: str | None) -> UserInfo | None:
        """The user of a static token (``--token-auth-file``) in an ``Authorization`` header, else None.

        It reads nothing but the static tokens (no store, no clock, no
        :attr:`last_error`), so the HTTP layer calls it without the model's lock.

        Examples
        --------
        >>> authn = TokenAuthenticator({"s3cret": ADMIN_USER})
        >>> authn.static_user("Bearer s3cret").groups
        ('system:masters', 'system:authenticated')
        >>> authn.static_user("Bearer other") is None
        True
        """
        user = self.static_tokens.get(_bearer_token(authorization))
        if user is None:
            return None
        if SYSTEM_AUTHENTICATED not in user.groups:
            user = UserInfo(user.name, user.uid, (*user.groups, SYSTEM_AUTHENTICATED))
        return user


def _bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header ("" for none, another scheme or an empty token)."""
    if not authorization:
        return ""
    parts = authorization.strip().split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer" or not parts[1]:
        return ""
    return parts[1]


# ------------------------------------------------------------------ the REST side (token.go, tokenreview)

#: The typed fields of the two bodies: (path, Go struct field as encoding/json names it, Go type).
_TOKEN_REQUEST_FIELDS = (
    ("spec", "TokenRequest.spec", "v1.TokenRequestSpec"),
    ("spec.audiences", "TokenRequestSpec.spec.audiences", "[]string"),
    ("spec.expirationSeconds", "TokenRequestSpec.spec.expirationSeconds", "int64"),
    ("spec.boundObjectRef", "TokenRequestSpec.spec.boundObjectRef", "v1.BoundObjectReference"),
    *((f"spec.boundObjectRef.{f}", f"BoundObjectReference.spec.boundObjectRef.{f}", "string")
      for f in ("kind", "apiVersion", "name", "uid")),
)
_TOKEN_REVIEW_FIELDS = (
    ("spec", "TokenReview.spec", "v1.TokenReviewSpec"),
    ("spec.token", "TokenReviewSpec.spec.token", "string"),
    ("spec.audiences", "TokenReviewSpec.spec.audiences", "[]string"),
)


def _check_types(kind: str, body: Mapping, fields: Sequence[tuple[str, str, str]]) -> None:
    """Refuse a wrong JSON type as the decoder does: 400 ``json: cannot unmarshal <type> into Go struct field ...``.

    Raises
    ------
    ApiError
        400 BadRequest naming the first field of a wrong type.
    """
    from kubenotes.apiserver.status import ApiError, new_bad_request

    def json_kind(v: Any, go_type: str) -> str:
        names = {bool: "bool", str: "string", list: "array", dict: "object"}
        if type(v) in names:
            return names[type(v)]
        return f"number {v}" if go_type.startswith("int") else "number"

    def ok(v: Any, go_type: str) -> bool:
        if go_type == "string":
            return isinstance(v, str)
        if go_type == "int64":
            return isinstance(v, int) and not isinstance(v, bool)
        if go_type == "[]string":
            return isinstance(v, list)
        return isinstance(v, dict)

    def refuse(v: Any, go_field: str, go_type: str) -> ApiError:
        return new_bad_request(f'{kind} in version "v1" cannot be handled as a {kind}: json: cannot unmarshal '
                               f"{json_kind(v, go_type)} into Go struct field {go_field} of type {go_type}")

    for path, go_field, go_type in fields:
        *parents, name = path.split(".")
        parent: Any = body
        for part in parents:
            parent = parent.get(part) if isinstance(parent, dict) else None
        v = parent.get(name) if isinstance(parent, dict) else None
        if v is None:  # absent or null: the zero value
            continue
        if not ok(v, go_type):
            raise refuse(v, go_field, go_type)
        if go_type == "[]string":
            for x in v:
                if not isinstance(x, str):
                    raise refuse(x, go_field, "string")


def _token_generator(server: Any) -> JWTTokenGenerator:
    gen = getattr(server, "token_generator", None)
    if gen is None:  # a server made before it had one: give it its own
        gen = server.token_generator = JWTTokenGenerator()
    return gen


def token_request(server: Any, attrs: Any, body: Any) -> dict:
    """``TokenREST.Create``: answer ``POST serviceaccounts/<name>/token`` with a signed token (never stored).

    Parameters
    ----------
    server : APIServer
        Its store, clock, epoch and ``token_generator``.
    attrs : Attributes
        The request (namespace and ServiceAccount name).
    body : dict
        The TokenRequest: ``spec.expirationSeconds`` (default 3600),
        ``spec.audiences`` (default the API audiences), ``spec.boundObjectRef``.

    Returns
    -------
    dict
        The TokenRequest with ``status.token`` and ``status.expirationTimestamp``.

    Raises
    ------
    ApiError
        422 Invalid (``expirationSeconds`` under 600 or over 2^32, a name or namespace in the body that
        differs from the URL), 404 NotFound (the ServiceAccount or the bound object), 400 BadRequest (a
        bound Pod running as another ServiceAccount, a kind that cannot be bound), 409 Conflict (the bound
        object's uid differs).

    Notes
    -----
    ``--service-account-max-token-expiration`` is unset (no cap) and
    ``--service-account-extend-token-expiration`` is on, as in a kubeadm
    cluster: a Pod-bound token for the API audience asking for 3607 s lives
    a year and carries ``warnafter``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/core/serviceaccount/storage/token.go
    kubernetes/kubernetes@v1.34.0 pkg/apis/authentication/validation/validation.go
    """
    from kubenotes.apiserver.status import field_cause, new_bad_request, new_conflict, new_invalid, new_not_found

    group, kind = "authentication.k8s.io", "TokenRequest"
    body = body if isinstance(body, dict) else {}
    _check_types(kind, body, _TOKEN_REQUEST_FIELDS)
    md = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    spec = dict(body.get("spec") or {}) if isinstance(body.get("spec"), dict) else {}
    if md.get("name") and md["name"] != attrs.name:
        raise new_invalid(group, kind, attrs.name, [field_cause(
            "metadata.name", f'metadata.name: Invalid value: "{md["name"]}": must match the service account name '
                             "if specified")])
    if md.get("namespace") and md["namespace"] != attrs.namespace:
        raise new_invalid(group, kind, attrs.name, [field_cause(
            "metadata.namespace", f'metadata.namespace: Invalid value: "{md["namespace"]}": must match the service '
                                  "account namespace if specified")])
    seconds = spec.get("expirationSeconds")
    seconds = DEFAULT_TOKEN_EXPIRATION_SECONDS if seconds is None else seconds
    errs = []
    if seconds < MIN_TOKEN_EXPIRATION_SECONDS:
        errs.append(field_cause("spec.expirationSeconds",
                                f"spec.expirationSeconds: Invalid value: {seconds}: {DURATION_TOO_SHORT}"))
    if seconds > MAX_TOKEN_EXPIRATION_SECONDS:
        errs.append(field_cause("spec.expirationSeconds",
                                f"spec.expirationSeconds: Invalid value: {seconds}: {DURATION_TOO_LONG}"))
    if errs:
        raise new_invalid(group, kind, "", errs)
    sa = server.get("serviceaccounts", attrs.namespace, attrs.name)
    if sa is None:
        raise new_not_found("", "serviceaccounts", attrs.name)
    bound: dict[str, Any] = {}
    ref = spec.get("boundObjectRef")
    if isinstance(ref, dict) and ref:
        ref_kind, api_version = ref.get("kind", ""), ref.get("apiVersion", "")
        ref_group = api_version.split("/")[0] if "/" in api_version else ""
        resource = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}.get(ref_kind) if not ref_group else None
        if resource is None:
            gv = api_version if "/" in api_version else f"/{api_version}"
            raise new_bad_request(f"cannot bind token to object of type {gv}, Kind={ref_kind}")
        obj = server.get(resource, attrs.namespace if resource != "nodes" else None, ref.get("name", ""))
        if obj is None:
            raise new_not_found("", resource, ref.get("name", ""))
        if resource == "pods":
            pod_sa = (obj.get("spec") or {}).get("serviceAccountName", "")
            if pod_sa != attrs.name:
                raise new_bad_request(f'cannot bind token for serviceaccount "{attrs.name}" to pod running with '
                                      f'serviceaccount "{pod_sa}"')
            node_name = (obj.get("spec") or {}).get("nodeName", "")
            node = server.get("nodes", None, node_name) if node_name else None
            if node is not None:
                bound["node"] = node
        bound[resource[:-1]] = obj
        obj_uid = obj["metadata"].get("uid", "")
        if ref.get("uid") and ref["uid"] != obj_uid:
            raise new_conflict("", ref_kind, ref.get("name", ""),
                               f"the UID in the bound object reference ({ref['uid']}) does not match the UID in "
                               f"record ({obj_uid}). The object might have been deleted and then recreated")
        spec["boundObjectRef"] = dict(ref, uid=obj_uid)
    audiences = list(spec.get("audiences") or []) or [DEFAULT_ISSUER]
    spec["audiences"] = audiences
    spec["expirationSeconds"] = seconds
    exp, warnafter = seconds, 0
    if "pod" in bound and seconds == WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS and DEFAULT_ISSUER in audiences:
        exp, warnafter = EXPIRATION_EXTENSION_SECONDS, seconds
    now_unix = _epoch_seconds(server.epoch) + int(server.env.now)
    claims = service_account_claims(attrs.namespace, attrs.name, sa["metadata"].get("uid", ""), exp, now_unix,
                                    audiences=audiences, pod=bound.get("pod"), secret=bound.get("secret"),
                                    node=bound.get("node"), warnafter_seconds=warnafter)
    token = _token_generator(server).generate_token(claims)
    return {"kind": kind, "apiVersion": f"{group}/v1",
            "metadata": {"name": attrs.name, "namespace": attrs.namespace, "creationTimestamp": None},
            "spec": spec,
            "status": {"token": token, "expirationTimestamp": _rfc3339(now_unix + seconds)}}


def token_review(server: Any, attrs: Any, body: Any) -> dict:
    """``tokenreview.REST.Create``: authenticate ``spec.token`` and answer with ``status`` (never stored).

    Parameters
    ----------
    server : APIServer
        Its ``authenticator`` when it has one (the HTTP layer's, with the
        admin token), else a service-account authenticator over its store.
    attrs : Attributes
    body : dict
        The TokenReview: ``spec.token``, ``spec.audiences`` (default the API audiences).

    Returns
    -------
    dict
        The TokenReview with ``status.authenticated``, ``status.user``,
        ``status.audiences`` or ``status.error``.

    Raises
    ------
    ApiError
        400 BadRequest without a token, or for a namespaced request.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/authentication/tokenreview/storage.go
    """
    from kubenotes.apiserver.status import new_bad_request

    body = body if isinstance(body, dict) else {}
    _check_types("TokenReview", body, _TOKEN_REVIEW_FIELDS)
    spec = dict(body.get("spec") or {}) if isinstance(body.get("spec"), dict) else {}
    if attrs.namespace:
        raise new_bad_request(f"namespace is not allowed on this type: {attrs.namespace}")
    token = spec.get("token")
    if not token or not isinstance(token, str):
        raise new_bad_request("token is required for TokenReview in authentication")
    authn = getattr(server, "authenticator", None)
    if authn is None:
        authn = TokenAuthenticator(reader=server, epoch=server.epoch)
    auds = list(spec.get("audiences") or []) or list(authn.audiences)
    user = authn.authenticate(token, float(server.env.now), auds)
    status: dict[str, Any] = {"authenticated": user is not None}
    if user is None:
        status["user"] = {}
        status["error"] = authn.last_error if authn.last_recognized else INVALID_BEARER_TOKEN
    else:
        info: dict[str, Any] = {"username": user.name}
        if user.uid:
            info["uid"] = user.uid
        info["groups"] = list(user.groups)
        status["user"] = info
        claims_aud: list[str] = []
        if user.name.startswith(SERVICE_ACCOUNT_USERNAME_PREFIX) and token not in authn.static_tokens:
            aud = decode_token(token).get("aud")
            claims_aud = [aud] if isinstance(aud, str) else list(aud or [])
        status["audiences"] = [a for a in auds if not claims_aud or a in claims_aud]
    md = dict(body["metadata"]) if isinstance(body.get("metadata"), dict) else {}
    md.setdefault("creationTimestamp", None)
    return {"kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1", "metadata": md, "spec": spec,
            "status": status}
