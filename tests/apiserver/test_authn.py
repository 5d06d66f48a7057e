"""Bearer-token authentication: static tokens and RS256 service-account JWTs on the virtual clock.

Ported from kubernetes/kubernetes@v1.34.0 ``pkg/serviceaccount/claims_test.go``: ``TestClaims`` (the
"no obj binding" and "pod" cases: sub, aud, iat = nbf, exp = iat + expirationSeconds, kubernetes.io
namespace/serviceaccount/pod) and ``TestValidatePrivateClaims`` (good, expired, not yet valid, missing
serviceaccount, different uid serviceaccount, and the serviceaccount deletion cases around the 60 s leeway).
The other cases follow upstream's documented behaviour: ``pkg/serviceaccount/jwt.go`` (RS256 signing with a
``kid`` derived from the public key; only RS256/ES256/ES384/ES512 accepted; signature, issuer and audience
checks; a valid token authenticates as ``system:serviceaccount:<ns>:<name>`` with the service-account groups),
go-jose's ``Claims.ValidateWithLeeway`` (exp/nbf boundaries), ``pkg/apis/authentication/validation``
(``ValidateTokenRequest``), ``pkg/registry/core/serviceaccount/storage/token.go`` (bound tokens),
``pkg/registry/authentication/tokenreview/storage.go``, ``authentication/request/bearertoken/bearertoken.go``
(scheme and empty-token handling) and ``authentication/group/authenticated_group_adder.go``
(``system:authenticated`` added once). Forged tokens are made with PyJWT and ``hmac``, not with the model.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from kubenotes.apiserver.authn import (
    ADMIN_USER,
    DEFAULT_ISSUER,
    INVALID_BEARER_TOKEN,
    INVALID_SIGNATURE,
    TOKEN_EXPIRED,
    TOKEN_NOT_VALID_YET,
    JWTTokenGenerator,
    TokenAuthenticator,
    TokenError,
    decode_token,
    issue_service_account_token,
    load_signing_key,
    split_username,
)
from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.server import DEFAULT_EPOCH, APIServer, format_timestamp
from kubenotes.apiserver.status import ApiError
from kubenotes.errors import ConfigError

EPOCH = int(DEFAULT_EPOCH.timestamp())
SA_GROUPS = ("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated")
ADMIN = "a-static-admin-token"


@pytest.fixture(scope="module")
def gen() -> JWTTokenGenerator:
    return JWTTokenGenerator()  # one RSA key for the module (making one takes ~0.1 s)


@pytest.fixture(scope="module")
def other_gen() -> JWTTokenGenerator:
    return JWTTokenGenerator()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64json(part: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def issue(gen, *args, **kw) -> str:
    return issue_service_account_token(gen, *args, **kw)


def test_token_is_an_rs256_jwt_with_upstream_claims_on_the_virtual_clock(gen):
    tok = issue(gen, "default", "builder", "uid-1", expiration_seconds=600, now_seconds=42.7)
    header, payload, sig = tok.split(".")
    assert "=" not in tok and sig
    der = gen.public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert _b64json(header) == {"alg": "RS256", "kid": _b64(hashlib.sha256(der).digest())}  # no typ, as go-jose
    claims = _b64json(payload)
    assert claims == decode_token(tok)
    assert claims["iss"] == DEFAULT_ISSUER and claims["aud"] == [DEFAULT_ISSUER]
    assert claims["sub"] == "system:serviceaccount:default:builder"
    assert claims["iat"] == claims["nbf"] == EPOCH + 42
    assert claims["exp"] == EPOCH + 42 + 600
    assert claims["kubernetes.io"] == {"namespace": "default", "serviceaccount": {"name": "builder", "uid": "uid-1"}}
    assert len(claims["jti"]) == 36  # a random UUID (ServiceAccountTokenJTI, GA)
    assert list(claims) == sorted(claims)  # go-jose merges the claim sets into one JSON object: sorted keys
    # a standard library verifies it with the public key alone
    assert jwt.decode(tok, gen.public_key, algorithms=["RS256"], audience=DEFAULT_ISSUER,
                      options={"verify_exp": False, "verify_iat": False, "verify_nbf": False})["sub"] == claims["sub"]


def test_tokens_and_keys_are_secrets_not_deterministic(gen, other_gen):
    a, b = issue(gen, "default", "sa", "u", 3600, 5), issue(gen, "default", "sa", "u", 3600, 5)
    assert a != b and decode_token(a)["jti"] != decode_token(b)["jti"]
    assert gen.key_id != other_gen.key_id
    assert not JWTTokenGenerator().has_key  # made lazily, when a token or the JWKS first needs it


def test_valid_token_authenticates_as_the_service_account(gen):
    tok = issue(gen, "default", "builder", "uid-1", 3600, 0)
    user = TokenAuthenticator(keys=gen).authenticate(tok, now_seconds=10)
    assert user == UserInfo("system:serviceaccount:default:builder", "uid-1", SA_GROUPS)


@pytest.mark.parametrize("now,ok", [(600, True), (660, True), (661, False), (10_000, False)])
def test_expiry_with_sixty_second_leeway(gen, now, ok):
    tok = issue(gen, "default", "sa", "u", expiration_seconds=600, now_seconds=0)
    authn = TokenAuthenticator(keys=gen)
    assert (authn.authenticate(tok, now) is not None) is ok
    if not ok:
        assert authn.last_error == TOKEN_EXPIRED
        with pytest.raises(TokenError, match=TOKEN_EXPIRED):
            authn.verify_service_account_token(tok, now)


def test_not_valid_before_issue_time_minus_leeway(gen):
    tok = issue(gen, "default", "sa", "u", 3600, now_seconds=1000)
    authn = TokenAuthenticator(keys=gen)
    assert authn.authenticate(tok, 940) is not None
    assert authn.authenticate(tok, 939) is None and authn.last_error == TOKEN_NOT_VALID_YET


def _forge(header: dict, claims: dict, sign) -> str:
    signing_input = _b64(json.dumps(header).encode()) + "." + _b64(json.dumps(claims).encode())
    return signing_input + "." + _b64(sign(signing_input.encode()))


def test_forged_tokens_are_rejected(gen, other_gen):
    """Tampered claims, another key, ``alg: none``, and HS256 keyed with the (public) verification key."""
    authn = TokenAuthenticator(keys=gen)
    tok = issue(gen, "default", "viewer", "u", 3600, 0)
    header, payload, sig = tok.split(".")
    claims = _b64json(payload)
    claims["sub"] = "system:serviceaccount:kube-system:generic-garbage-collector"
    claims["kubernetes.io"] = {"namespace": "kube-system", "serviceaccount": {"name": "generic-garbage-collector",
                                                                              "uid": "u"}}
    tampered = header + "." + _b64(json.dumps(claims).encode()) + "." + sig
    assert authn.authenticate(tampered, 1) is None and authn.last_error == INVALID_SIGNATURE
    other = issue(other_gen, "default", "viewer", "u", 3600, 0)
    assert authn.authenticate(other, 1) is None and authn.last_error == INVALID_SIGNATURE
    assert TokenAuthenticator(keys=other_gen).authenticate(other, 1) is not None
    none = _forge({"alg": "none", "kid": gen.key_id}, claims, lambda m: b"")
    assert authn.authenticate(none, 1) is None and 'unexpected signature algorithm "none"' in authn.last_error
    pem = gen.public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    hs = _forge({"alg": "HS256", "kid": gen.key_id}, claims, lambda m: hmac.new(pem, m, hashlib.sha256).digest())
    assert authn.authenticate(hs, 1) is None and 'unexpected signature algorithm "HS256"' in authn.last_error
    for junk in ("not-a-jwt", "a.b.c", tok + "x"):
        assert authn.authenticate(junk, 1) is None


def test_a_token_before_the_key_exists_is_not_verified_and_makes_no_key():
    fresh = JWTTokenGenerator()
    other = JWTTokenGenerator(private_key=ec.generate_private_key(ec.SECP256R1()))
    tok = issue(other, "default", "sa", "u", 3600, 0)
    assert TokenAuthenticator(keys=fresh).authenticate(tok, 1) is None and not fresh.has_key


def test_issuer_and_audience_must_be_accepted(gen):
    tok = issue(gen, "default", "sa", "u", 3600, 0, audiences=("vault",))
    authn = TokenAuthenticator(keys=gen)
    assert authn.authenticate(tok, 1) is None
    assert authn.last_error == ('token audiences ["vault"] is invalid for the target audiences '
                                '["https://kubernetes.default.svc.cluster.local"]')
    assert TokenAuthenticator(audiences=("vault",), keys=gen).authenticate(tok, 1) is not None
    foreign = JWTTokenGenerator("https://other.example", gen.private_key)
    assert authn.authenticate(issue(foreign, "default", "sa", "u", 3600, 0), 1) is None


def test_ecdsa_signing_key_from_a_pem_file(tmp_path):
    key = ec.generate_private_key(ec.SECP256R1())
    path = tmp_path / "sa.key"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    es = JWTTokenGenerator(private_key=load_signing_key(str(path)))
    tok = issue(es, "default", "sa", "u", 3600, 0)
    assert jwt.get_unverified_header(tok)["alg"] == "ES256"
    assert TokenAuthenticator(keys=es).authenticate(tok, 1).name == "system:serviceaccount:default:sa"
    (tmp_path / "bad.key").write_text("not a key")
    with pytest.raises(ConfigError, match="failed to parse service-account issuer key file"):
        load_signing_key(str(tmp_path / "bad.key"))
    with pytest.raises(ConfigError):
        load_signing_key(str(tmp_path / "missing.key"))


def test_static_admin_token_and_authenticated_group_added_once():
    authn = TokenAuthenticator({"t1": UserInfo("alice", "1", ("dev",)), ADMIN: ADMIN_USER})
    assert authn.authenticate("t1").groups == ("dev", "system:authenticated")
    assert authn.authenticate(ADMIN).groups == ("system:masters", "system:authenticated")
    assert authn.authenticate("t2") is None and authn.authenticate("") is None
    assert TokenAuthenticator().authenticate(ADMIN) is None  # no static token unless one is configured


@pytest.mark.parametrize("header,user", [
    (f"Bearer {ADMIN}", "kubernetes-admin"), (f"bearer {ADMIN}", "kubernetes-admin"),
    (f"  Bearer {ADMIN}  ", "kubernetes-admin"), ("Bearer ", None), ("Bearer", None),
    (f"Basic {ADMIN}", None), ("", None), (None, None), ("Bearer  " + ADMIN, None),
])
def test_bearer_header(header, user):
    got = TokenAuthenticator({ADMIN: ADMIN_USER}).authenticate_header(header)
    assert (got.name if got else None) == user


def test_token_request_through_the_server_and_service_account_lookup():
    api = APIServer(seed=0)
    admin = api.client("kubectl")
    sa = admin.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    api.env.run(until=30)
    tr = admin.create_token("default", "builder", expiration_seconds=600)
    tok = tr["status"]["token"]
    assert tr["status"]["expirationTimestamp"] == "2025-08-27T00:10:30Z"
    authn = TokenAuthenticator(reader=api)
    user = authn.authenticate(tok, api.env.now)
    assert user == UserInfo("system:serviceaccount:default:builder", sa["metadata"]["uid"], SA_GROUPS)
    assert authn.authenticate(tok, 30 + 600 + 61) is None and authn.last_error == TOKEN_EXPIRED
    admin.delete("serviceaccounts", "builder", "default")
    assert authn.authenticate(tok, 31) is None
    assert authn.last_error == 'serviceaccounts "builder" not found'
    admin.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")  # same name, new uid
    assert authn.authenticate(tok, 31) is None and authn.last_error.startswith("service account UID")
    # without lookup, only the JWT is checked (against the server's key)
    assert TokenAuthenticator(keys=api.token_generator).authenticate(tok, 31) is not None


def test_split_username():
    assert split_username("system:serviceaccount:default:viewer") == ("default", "viewer")
    assert split_username("system:serviceaccount:default") is None
    assert split_username("system:serviceaccount::viewer") is None
    assert split_username("kubernetes-admin") is None


def test_claims_no_object_binding():
    """claims_test.go TestClaims, "no obj binding": multi-member audience, exp 100."""
    claims = decode_token(issue(JWTTokenGenerator(private_key=_EC), "myns", "mysvcacct", "mysvcacct-uid", 100, 0,
                                audiences=("1", "2")))
    assert claims["sub"] == "system:serviceaccount:myns:mysvcacct" and claims["aud"] == ["1", "2"]
    assert claims["iat"] == claims["nbf"] == EPOCH and claims["exp"] == EPOCH + 100
    assert claims["kubernetes.io"] == {"namespace": "myns",
                                       "serviceaccount": {"name": "mysvcacct", "uid": "mysvcacct-uid"}}


_EC = ec.generate_private_key(ec.SECP256R1())  # cheap to make


class _Getter:
    def __init__(self, sa=None):
        self.sa = sa

    def get(self, resource, namespace, name):
        assert resource == "serviceaccounts"
        return self.sa


def _sa(uid="sauid", deleted_at=None):
    md = {"name": "saname", "namespace": "ns", "uid": uid}
    if deleted_at is not None:
        md["deletionTimestamp"] = format_timestamp(deleted_at)
    return {"metadata": md}


NOW = 1000  # virtual seconds; the token below expires at NOW (as TestValidatePrivateClaims' expiry = now)


@pytest.mark.parametrize("name,getter,token_uid,issued,expires_in,expect", [
    ("good", _Getter(_sa()), "sauid", NOW - 10, 10, ""),
    ("expired", _Getter(_sa()), "sauid", 0, 10, "service account token has expired"),
    ("not yet valid", _Getter(_sa()), "sauid", NOW + 3_600_000, 10, "service account token is not valid yet"),
    ("missing serviceaccount", _Getter(None), "sauid", NOW - 10, 10, 'serviceaccounts "saname" not found'),
    ("different uid serviceaccount", _Getter(_sa()), "sauidold", NOW - 10, 10,
     "service account UID (sauid) does not match claim (sauidold)"),
    ("deleted now serviceaccount", _Getter(_sa(deleted_at=NOW)), "sauid", NOW - 10, 10, ""),
    ("deleted near past serviceaccount", _Getter(_sa(deleted_at=NOW - 1)), "sauid", NOW - 10, 10, ""),
    ("deleted near future serviceaccount", _Getter(_sa(deleted_at=NOW + 1)), "sauid", NOW - 10, 10, ""),
    ("deleted now-leeway serviceaccount", _Getter(_sa(deleted_at=NOW - 60)), "sauid", NOW - 10, 10, ""),
    ("deleted now-leeway-1 serviceaccount", _Getter(_sa(deleted_at=NOW - 61)), "sauid", NOW - 10, 10,
     "service account ns/saname has been deleted"),
])
def test_validate_private_claims(gen, name, getter, token_uid, issued, expires_in, expect):
    tok = issue(gen, "ns", "saname", token_uid, expires_in, issued)
    authn = TokenAuthenticator(reader=getter, keys=gen)
    if expect:
        with pytest.raises(TokenError) as e:
            authn.verify_service_account_token(tok, NOW)
        assert str(e.value) == expect
    else:
        assert authn.verify_service_account_token(tok, NOW).name == "system:serviceaccount:ns:saname"


# ---------------------------------------------------------------- TokenRequest and TokenReview through the server

def _token_request(api, name="builder", namespace="default", **spec) -> dict:
    attrs = api.client("kubectl")._attrs("create", "serviceaccounts", namespace, name, "token")
    return api.create(attrs, {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec})


@pytest.fixture(scope="module")
def api() -> APIServer:
    api = APIServer(seed=0)
    admin = api.client("kubectl")
    admin.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    admin.create("nodes", {"metadata": {"name": "n1"}})
    for name, sa in (("web", "builder"), ("other", "default")):
        admin.create("pods", {"metadata": {"name": name}, "spec": {
            "serviceAccountName": sa, "nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]}}, "default")
    return api


@pytest.mark.parametrize("seconds,message", [
    (599, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: '
          "may not specify a duration less than 10 minutes"),
    (60, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: '
         "may not specify a duration less than 10 minutes"),
    ((1 << 32) + 1, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: '
                    "4294967297: may not specify a duration larger than 2^32 seconds"),
])
def test_token_request_duration_is_validated_as_upstream(api, seconds, message):
    with pytest.raises(ApiError) as e:
        _token_request(api, expirationSeconds=seconds)
    assert (e.value.code, e.value.reason, e.value.message) == (422, "Invalid", message)


def test_token_request_defaults_and_bounds(api):
    tr = _token_request(api)
    claims = decode_token(tr["status"]["token"])
    assert tr["spec"]["expirationSeconds"] == 3600 and tr["spec"]["audiences"] == [DEFAULT_ISSUER]
    assert claims["exp"] - claims["iat"] == 3600
    assert decode_token(_token_request(api, expirationSeconds=600)["status"]["token"])["exp"] - claims["iat"] == 600


def test_token_request_bound_to_a_pod_names_the_pod_and_its_node(api):
    pod = api.get("pods", "default", "web")
    tr = _token_request(api, boundObjectRef={"kind": "Pod", "apiVersion": "v1", "name": "web"})
    k8s = decode_token(tr["status"]["token"])["kubernetes.io"]
    assert k8s["pod"] == {"name": "web", "uid": pod["metadata"]["uid"]}
    assert k8s["node"] == {"name": "n1", "uid": api.get("nodes", None, "n1")["metadata"]["uid"]}
    assert TokenAuthenticator(reader=api).authenticate(tr["status"]["token"], api.env.now) is not None
    # what a kubelet asks for: 3607 s for the API audience, extended to a year with warnafter (claims.go)
    tr = _token_request(api, expirationSeconds=3607, boundObjectRef={"kind": "Pod", "apiVersion": "v1",
                                                                     "name": "web"})
    c = decode_token(tr["status"]["token"])
    assert (c["exp"] - c["iat"], c["kubernetes.io"]["warnafter"] - c["iat"]) == (365 * 24 * 3600, 3607)
    assert tr["status"]["expirationTimestamp"] == format_timestamp(api.env.now + 3607, api.epoch)
    with pytest.raises(ApiError) as e:
        _token_request(api, boundObjectRef={"kind": "Pod", "apiVersion": "v1", "name": "other"})
    assert (e.value.code, e.value.message) == (400, 'cannot bind token for serviceaccount "builder" to pod running '
                                                    'with serviceaccount "default"')
    with pytest.raises(ApiError) as e:
        _token_request(api, boundObjectRef={"kind": "Deployment", "apiVersion": "apps/v1", "name": "web"})
    assert (e.value.code, e.value.message) == (400, "cannot bind token to object of type apps/v1, Kind=Deployment")
    with pytest.raises(ApiError) as e:
        _token_request(api, boundObjectRef={"kind": "Pod", "apiVersion": "v1", "name": "web", "uid": "stale"})
    assert e.value.code == 409


def test_bound_token_dies_with_its_pod():
    api = APIServer(seed=0)
    admin = api.client("kubectl")
    admin.create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    admin.create("pods", {"metadata": {"name": "web"}, "spec": {
        "serviceAccountName": "builder", "containers": [{"name": "c", "image": "nginx"}]}}, "default")
    tok = _token_request(api, boundObjectRef={"kind": "Pod", "apiVersion": "v1", "name": "web"})["status"]["token"]
    authn = TokenAuthenticator(reader=api)
    assert authn.authenticate(tok, api.env.now) is not None
    admin.delete("pods", "web", "default")
    assert authn.authenticate(tok, api.env.now) is None
    assert authn.last_error == "service account token has been invalidated"


@pytest.mark.parametrize("epoch", [None, "now", "2031-05-01T12:00:00Z"])
def test_tokens_authenticate_under_every_epoch(epoch):
    api = APIServer(seed=0, epoch=epoch) if epoch else APIServer(seed=0)
    api.token_generator = JWTTokenGenerator(private_key=_EC)  # keep the test fast: no RSA key per case
    api.client("kubectl").create("serviceaccounts", {"metadata": {"name": "builder"}}, "default")
    api.env.run(until=100)
    tr = _token_request(api)
    claims = decode_token(tr["status"]["token"])
    assert claims["iat"] == int(api.epoch.timestamp()) + 100
    assert tr["status"]["expirationTimestamp"] == format_timestamp(100 + 3600, api.epoch)
    assert TokenAuthenticator(reader=api, epoch=api.epoch).authenticate(tr["status"]["token"], 101) is not None


def test_token_review_is_answered_and_never_stored(api):
    tok = _token_request(api)["status"]["token"]
    admin = api.client("kubectl")
    rv = admin.list("configmaps")["metadata"]["resourceVersion"]
    review = admin.create("tokenreviews", {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                                           "metadata": {"name": "r1"}, "spec": {"token": tok}})
    sa_uid = api.get("serviceaccounts", "default", "builder")["metadata"]["uid"]
    assert review["status"] == {"authenticated": True, "audiences": [DEFAULT_ISSUER], "user": {
        "username": "system:serviceaccount:default:builder", "uid": sa_uid, "groups": list(SA_GROUPS)}}
    assert admin.list("configmaps")["metadata"]["resourceVersion"] == rv  # nothing written
    assert api.list("tokenreviews") == []
    bad = admin.create("tokenreviews", {"spec": {"token": "not-a-token"}})["status"]
    assert bad == {"authenticated": False, "user": {}, "error": INVALID_BEARER_TOKEN}
    other = issue(JWTTokenGenerator(private_key=_EC), "default", "builder", sa_uid)
    assert admin.create("tokenreviews", {"spec": {"token": other}})["status"]["error"] == INVALID_SIGNATURE
    vault = admin.create("tokenreviews", {"spec": {"token": tok, "audiences": ["vault"]}})["status"]
    assert vault["authenticated"] is False and "is invalid for the target audiences" in vault["error"]
    with pytest.raises(ApiError) as e:
        admin.create("tokenreviews", {"spec": {}})
    assert (e.value.code, e.value.message) == (400, "token is required for TokenReview in authentication")


@pytest.mark.parametrize("resource,body,message", [
    ("token", {"spec": "x"}, "json: cannot unmarshal string into Go struct field TokenRequest.spec of type "
                             "v1.TokenRequestSpec"),
    ("token", {"spec": {"audiences": "vault"}}, "json: cannot unmarshal string into Go struct field "
                                                "TokenRequestSpec.spec.audiences of type []string"),
    ("token", {"spec": {"audiences": [1]}}, "json: cannot unmarshal number into Go struct field "
                                            "TokenRequestSpec.spec.audiences of type string"),
    ("token", {"spec": {"expirationSeconds": "600"}}, "json: cannot unmarshal string into Go struct field "
                                                      "TokenRequestSpec.spec.expirationSeconds of type int64"),
    ("token", {"spec": {"expirationSeconds": 600.5}}, "json: cannot unmarshal number 600.5 into Go struct field "
                                                      "TokenRequestSpec.spec.expirationSeconds of type int64"),
    ("token", {"spec": {"boundObjectRef": {"kind": "Pod", "name": 7}}},
     "json: cannot unmarshal number into Go struct field BoundObjectReference.spec.boundObjectRef.name of type "
     "string"),
    ("tokenreviews", {"spec": {"token": 5}}, "json: cannot unmarshal number into Go struct field "
                                             "TokenReviewSpec.spec.token of type string"),
    ("tokenreviews", {"spec": []}, "json: cannot unmarshal array into Go struct field TokenReview.spec of type "
                                   "v1.TokenReviewSpec"),
])
def test_wrong_json_types_are_400_never_500(api, resource, body, message):
    admin = api.client("kubectl")
    kind = "TokenRequest" if resource == "token" else "TokenReview"
    with pytest.raises(ApiError) as e:
        if resource == "token":
            api.create(admin._attrs("create", "serviceaccounts", "default", "builder", "token"), body)
        else:
            admin.create("tokenreviews", body)
    assert (e.value.code, e.value.message) == (400, f'{kind} in version "v1" cannot be handled as a {kind}: '
                                                    + message)


@pytest.mark.parametrize("change", [
    {"aud": 1}, {"aud": ["ok", 1]}, {"exp": "soon"}, {"nbf": True}, {"sub": 5}, {"kubernetes.io": []},
    {"kubernetes.io": {"namespace": 1, "serviceaccount": {"name": "b", "uid": "u"}}},
    {"kubernetes.io": {"namespace": "default", "serviceaccount": {"name": "b", "uid": "u"}, "pod": "web"}},
    {"kubernetes.io": {"namespace": "default", "serviceaccount": {"name": ["b"], "uid": "u"}}},
])
def test_signed_claims_of_the_wrong_json_type_are_refused_not_crashed(gen, change):
    """A token the key really signed but whose claims go-jose could not parse: rejected (401), never a crash."""
    claims = {"sub": "system:serviceaccount:default:b", "aud": [DEFAULT_ISSUER], "iat": EPOCH, "nbf": EPOCH,
              "exp": EPOCH + 3600, "kubernetes.io": {"namespace": "default", "serviceaccount": {"name": "b",
                                                                                               "uid": "u"}}}
    authn = TokenAuthenticator(keys=gen)
    assert authn.authenticate(gen.generate_token(claims), 1) is not None
    assert authn.authenticate(gen.generate_token({**claims, **change}), 1) is None
    # PyJWT checks sub itself ("Subject must be a string"); the model checks the rest, as go-jose's parsing would
    assert authn.last_error.startswith(("service account token claims could not be parsed: ",
                                        "Subject must be a string"))
