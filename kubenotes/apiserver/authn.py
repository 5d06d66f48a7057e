"""Authentication: bearer tokens in, a user (name, uid, groups) out.

Two token kinds are modelled, as kube-apiserver checks them in turn:

* **static tokens** (``--token-auth-file``): a fixed token names a user and
  groups, like the admin token of a kubeconfig;
* **service-account tokens**: JWTs the API server issues from
  ``POST serviceaccounts/<name>/token`` (a TokenRequest). The token carries
  the issuer, subject ``system:serviceaccount:<namespace>:<name>``,
  audiences, issue/expiry times and a ``kubernetes.io`` claim naming the
  ServiceAccount and its uid. The authenticator checks the signature, issuer,
  audience and expiry (with go-jose's one-minute leeway) and, when it can
  read the store, that the ServiceAccount still exists with that uid.

Every authenticated user also gets the group ``system:authenticated``; a
service account gets ``system:serviceaccounts`` and
``system:serviceaccounts:<namespace>``. A request whose token no
authenticator accepts is answered 401 Unauthorized
(:func:`kubenotes.apiserver.status.new_unauthorized`).

Times are virtual: ``iat``/``exp`` count from
:data:`kubenotes.apiserver.clock.DEFAULT_EPOCH` plus the SimPy clock.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/jwt.go (JWTTokenGenerator, JWTTokenAuthenticator)
kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/claims.go (Claims, validator.Validate)
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
import hmac
import json
import uuid
from typing import Any, Mapping

from kubenotes.apiserver.request import SYSTEM_AUTHENTICATED, SYSTEM_MASTERS, SYSTEM_UNAUTHENTICATED, UserInfo
from kubenotes.errors import KubenotesError

__all__ = [
    "issue_service_account_token",
    "decode_token",
    "TokenAuthenticator",
    "TokenError",
    "make_username",
    "make_group_names",
    "split_username",
    "DEFAULT_ISSUER",
    "DEFAULT_LEEWAY_SECONDS",
    "ADMIN_TOKEN",
    "ADMIN_USER",
    "ANONYMOUS_USER",
    "SERVICE_ACCOUNT_USERNAME_PREFIX",
    "ALL_SERVICE_ACCOUNTS_GROUP",
    "TOKEN_EXPIRED",
    "TOKEN_NOT_VALID_YET",
]

#: ``--service-account-issuer`` of a kubeadm cluster; also the default API audience.
DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"
#: go-jose's ``jwt.DefaultLeeway``: clock skew tolerated on ``exp``, ``nbf`` and ``iat``.
DEFAULT_LEEWAY_SECONDS = 60
SERVICE_ACCOUNT_USERNAME_PREFIX = "system:serviceaccount:"
ALL_SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
SERVICE_ACCOUNT_GROUP_PREFIX = "system:serviceaccounts:"

#: ``validator.Validate`` messages (``pkg/serviceaccount/claims.go``).
TOKEN_EXPIRED = "service account token has expired"
TOKEN_NOT_VALID_YET = "service account token is not valid yet"
TOKEN_ISSUED_IN_FUTURE = "service account token is issued in the future"

#: The kubeconfig admin's static token in the model (what ``kubectl`` sends).
ADMIN_TOKEN = "kubenotes-admin-token"
#: The user :data:`ADMIN_TOKEN` authenticates as (as :meth:`APIServer.client` defaults to).
ADMIN_USER = UserInfo("kubernetes-admin", groups=(SYSTEM_MASTERS, SYSTEM_AUTHENTICATED))
#: ``system:anonymous`` in ``system:unauthenticated`` (``--anonymous-auth``), for requests without a token.
ANONYMOUS_USER = UserInfo("system:anonymous", groups=(SYSTEM_UNAUTHENTICATED,))

# The signing key: fixed, so issued tokens are the same on every run (the model stays deterministic).
_DEFAULT_KEY = hashlib.sha256(b"kubenotes service-account signing key").digest()
_ALG = "HS256"


class TokenError(KubenotesError):
    """Why a token was rejected (the API server logs this and answers only 401 Unauthorized)."""


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


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _json(o: Any) -> bytes:
    return json.dumps(o, sort_keys=True, separators=(",", ":")).encode()


def _epoch_seconds(epoch: _dt.datetime | None) -> int:
    if epoch is None:
        from kubenotes.apiserver.clock import DEFAULT_EPOCH

        epoch = DEFAULT_EPOCH
    return int(epoch.timestamp())


def _unix_seconds(timestamp: str) -> float:
    t = _dt.datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)
    return t.timestamp()


def _sign(key: bytes, signing_input: str) -> str:
    return _b64(hmac.new(key, signing_input.encode("ascii"), hashlib.sha256).digest())


def _key_id(key: bytes) -> str:
    return _b64(hashlib.sha256(key).digest())


def issue_service_account_token(namespace: str, name: str, uid: str, expiration_seconds: int = 3600,
                                now_seconds: float = 0.0, *, audiences: tuple[str, ...] = (DEFAULT_ISSUER,),
                                issuer: str = DEFAULT_ISSUER, key: bytes = _DEFAULT_KEY,
                                epoch: _dt.datetime | None = None) -> str:
    """A bound service-account token, as a TokenRequest returns it in ``status.token``.

    Parameters
    ----------
    namespace, name, uid : str
        The ServiceAccount.
    expiration_seconds : int
        ``spec.expirationSeconds`` (upstream defaults 3600 and requires at least 600).
    now_seconds : float
        Virtual time of issue (the SimPy clock).
    audiences : tuple of str
        ``aud`` (the API server's own audience by default).
    issuer : str
        ``iss`` (``--service-account-issuer``).
    key : bytes
        HMAC key (the model's fixed key by default).
    epoch : datetime, optional
        Wall-clock time of virtual second 0 (:data:`~kubenotes.apiserver.clock.DEFAULT_EPOCH`).

    Returns
    -------
    str
        ``header.payload.signature``, each part base64url without padding.

    Notes
    -----
    Upstream signs with RS256 or ES256 using ``--service-account-signing-key-file``
    and publishes the public key at ``/openid/v1/jwks``; the model signs
    with HMAC-SHA256 (``HS256``) over a fixed key, which only the API
    server can verify. ``jti`` is derived from the claims instead of
    random, so runs stay byte-identical. Tokens bound to a Pod or Secret
    (``kubernetes.io.pod``, ``node``) and ``warnafter`` are not modelled.

    Examples
    --------
    >>> tok = issue_service_account_token("default", "viewer", "uid-1", 3600, now_seconds=10)
    >>> claims = decode_token(tok)
    >>> claims["sub"], claims["exp"] - claims["iat"], claims["kubernetes.io"]["serviceaccount"]
    ('system:serviceaccount:default:viewer', 3600, {'name': 'viewer', 'uid': 'uid-1'})
    """
    iat = _epoch_seconds(epoch) + int(now_seconds)
    claims = {
        "iss": issuer,
        "sub": make_username(namespace, name),
        "aud": list(audiences),
        "iat": iat,
        "nbf": iat,
        "exp": iat + int(expiration_seconds),
        "kubernetes.io": {"namespace": namespace, "serviceaccount": {"name": name, "uid": uid}},
    }
    claims["jti"] = str(uuid.uuid5(uuid.NAMESPACE_URL, _json(claims).decode()))
    header = {"alg": _ALG, "kid": _key_id(key)}
    signing_input = _b64(_json(header)) + "." + _b64(_json(claims))
    return signing_input + "." + _sign(key, signing_input)


def decode_token(token: str) -> dict:
    """The claims of a JWT, without verifying anything (what jwt.io shows).

    Raises
    ------
    TokenError
        When the token is not three base64url JSON parts.
    """
    parts = token.split(".")
    if len(parts) != 3:
        raise TokenError("token is not a JWT")
    try:
        return json.loads(_unb64(parts[1]))
    except (ValueError, UnicodeDecodeError):
        raise TokenError("token payload is not JSON") from None


class TokenAuthenticator:
    """Bearer-token authentication: static tokens, then service-account JWTs.

    Parameters
    ----------
    static_tokens : mapping of str to UserInfo, optional
        ``--token-auth-file`` entries; by default :data:`ADMIN_TOKEN` ->
        :data:`ADMIN_USER`.
    reader : StoreReader, optional
        When given, a service-account token is accepted only while its
        ServiceAccount exists with the uid in the token
        (``--service-account-lookup``, on by default upstream).
    issuers : tuple of str
        Accepted ``iss`` values (``--service-account-issuer``).
    audiences : tuple of str
        ``--api-audiences``: the token's ``aud`` must contain one of them.
    key : bytes
        The HMAC key tokens were signed with.
    epoch : datetime, optional
        Wall-clock time of virtual second 0.

    Notes
    -----
    Only bearer tokens are modelled: no x509 client certificates, OIDC,
    webhook token review, bootstrap tokens, legacy Secret-based
    service-account tokens or the token cache. ``UserInfo.extra``
    (``authentication.kubernetes.io/credential-id``, pod name and uid) is not
    set. The default admin token maps to ``kubernetes-admin`` in
    ``system:masters``, as :meth:`~kubenotes.apiserver.server.APIServer.client`
    does (kubeadm since 1.29 puts ``kubernetes-admin`` in
    ``kubeadm:cluster-admins`` and keeps ``system:masters`` for
    ``super-admin.conf``).

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/serviceaccount/jwt.go
    kubernetes/kubernetes@v1.34.0 pkg/kubeapiserver/authenticator/config.go

    Examples
    --------
    >>> authn = TokenAuthenticator()
    >>> authn.authenticate(ADMIN_TOKEN, 0).name
    'kubernetes-admin'
    >>> tok = issue_service_account_token("default", "viewer", "uid-1", 600, now_seconds=0)
    >>> user = authn.authenticate(tok, now_seconds=100)
    >>> user.name, user.groups
    ('system:serviceaccount:default:viewer', ('system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'))
    >>> authn.authenticate(tok, now_seconds=661) is None  # expired: 600 s plus the 60 s leeway have passed
    True
    """

    def __init__(self, static_tokens: Mapping[str, UserInfo] | None = None, *, reader: Any = None,
                 issuers: tuple[str, ...] = (DEFAULT_ISSUER,), audiences: tuple[str, ...] = (DEFAULT_ISSUER,),
                 key: bytes = _DEFAULT_KEY, epoch: _dt.datetime | None = None):
        self.static_tokens = dict({ADMIN_TOKEN: ADMIN_USER} if static_tokens is None else static_tokens)
        self.reader = reader
        self.issuers = tuple(issuers)
        self.audiences = tuple(audiences)
        self.key = key
        self.epoch_seconds = _epoch_seconds(epoch)
        #: Why the last rejected token was rejected (upstream logs it; the client only sees 401).
        self.last_error = ""

    def verify_service_account_token(self, token: str, now_seconds: float) -> UserInfo:
        """Check a service-account JWT and return its user.

        Raises
        ------
        TokenError
            Bad shape, algorithm or signature, unknown issuer, wrong audience,
            :data:`TOKEN_EXPIRED`, :data:`TOKEN_NOT_VALID_YET`, or (with a reader) a
            ServiceAccount that is gone, was deleted more than the leeway ago, or has another uid.
        """
        parts = token.split(".")
        if len(parts) != 3:
            raise TokenError("token is not a JWT")
        try:
            header = json.loads(_unb64(parts[0]))
        except (ValueError, UnicodeDecodeError):
            raise TokenError("token header is not JSON") from None
        if header.get("alg") != _ALG:
            raise TokenError(f'unexpected signing algorithm "{header.get("alg")}"')
        if not hmac.compare_digest(_sign(self.key, parts[0] + "." + parts[1]), parts[2]):
            raise TokenError("invalid signature")  # go-jose: "square/go-jose: error in cryptographic primitive"
        claims = decode_token(token)
        if claims.get("iss") not in self.issuers:
            raise TokenError("token issuer is not accepted")
        aud = claims.get("aud")
        aud = [aud] if isinstance(aud, str) else list(aud or [])
        if self.audiences and not set(aud) & set(self.audiences):
            raise TokenError("token audiences is invalid")
        now = self.epoch_seconds + now_seconds
        leeway = DEFAULT_LEEWAY_SECONDS
        if "exp" in claims and now - leeway > claims["exp"]:
            raise TokenError(TOKEN_EXPIRED)
        if "nbf" in claims and now + leeway < claims["nbf"]:
            raise TokenError(TOKEN_NOT_VALID_YET)
        if "iat" in claims and now + leeway < claims["iat"]:
            raise TokenError(TOKEN_ISSUED_IN_FUTURE)
        k8s = claims.get("kubernetes.io") or {}
        namespace = k8s.get("namespace", "")
        sa = k8s.get("serviceaccount") or {}
        name, uid = sa.get("name", ""), sa.get("uid", "")
        if not namespace or not name or claims.get("sub") != make_username(namespace, name):
            raise TokenError("token does not name a service account")
        if self.reader is not None:
            obj = self.reader.get("serviceaccounts", namespace, name)
            if obj is None:
                raise TokenError(f'serviceaccounts "{name}" not found')
            deleted = obj.get("metadata", {}).get("deletionTimestamp")
            if deleted and _unix_seconds(deleted) < now - leeway:
                raise TokenError(f"service account {namespace}/{name} has been deleted")
            if obj.get("metadata", {}).get("uid", "") != uid:
                raise TokenError(f"service account UID ({obj.get('metadata', {}).get('uid', '')}) does not match "
                                 f"claim ({uid})")
        return UserInfo(make_username(namespace, name), uid, make_group_names(namespace))

    def authenticate(self, token: str, now_seconds: float = 0.0) -> UserInfo | None:
        """The user a bearer token authenticates, or None (the caller answers 401 Unauthorized).

        Parameters
        ----------
        token : str
        now_seconds : float
            Virtual time of the request.

        Returns
        -------
        UserInfo or None
            With ``system:authenticated`` added to its groups.
        """
        self.last_error = ""
        if not token:
            self.last_error = "no token"
            return None
        user = self.static_tokens.get(token)
        if user is None:
            try:
                user = self.verify_service_account_token(token, now_seconds)
            except TokenError as e:
                self.last_error = str(e)
                return None
        if SYSTEM_AUTHENTICATED not in user.groups:
            user = UserInfo(user.name, user.uid, (*user.groups, SYSTEM_AUTHENTICATED))
        return user

    def authenticate_header(self, authorization: str | None, now_seconds: float = 0.0) -> UserInfo | None:
        """``bearertoken.AuthenticateRequest``: the user of an ``Authorization: Bearer <token>`` header.

        A missing header, another scheme or an empty token give None.

        Examples
        --------
        >>> TokenAuthenticator().authenticate_header("Bearer " + ADMIN_TOKEN).groups
        ('system:masters', 'system:authenticated')
        >>> TokenAuthenticator().authenticate_header("Basic abc") is None
        True
        """
        if not authorization:
            return None
        parts = authorization.strip().split(" ", 2)
        if len(parts) < 2 or parts[0].lower() != "bearer" or not parts[1]:
            return None
        return self.authenticate(parts[1], now_seconds)
