"""Bearer-token authentication: static tokens and service-account JWTs on the virtual clock.

Ported from kubernetes/kubernetes@v1.34.0 ``pkg/serviceaccount/claims_test.go``: ``TestClaims`` (the
"no obj binding" case: sub, aud, iat = nbf, exp = iat + expirationSeconds, kubernetes.io
namespace/serviceaccount) and ``TestValidatePrivateClaims`` (good, expired, not yet valid, missing
serviceaccount, different uid serviceaccount, and the serviceaccount deletion cases around the 60 s leeway).
The other cases follow upstream's documented behaviour: ``pkg/serviceaccount/jwt.go`` (signature, issuer and
audience checks; a valid token authenticates as ``system:serviceaccount:<ns>:<name>`` with the
service-account groups), go-jose's ``Claims.ValidateWithLeeway`` (exp/nbf boundaries),
``authentication/request/bearertoken/bearertoken.go`` (scheme and empty-token handling) and
``authentication/group/authenticated_group_adder.go`` (``system:authenticated`` added once).
"""

from __future__ import annotations

import base64
import json

import pytest

from kubenotes.apiserver.authn import (
    ADMIN_TOKEN,
    DEFAULT_ISSUER,
    TOKEN_EXPIRED,
    TOKEN_NOT_VALID_YET,
    TokenAuthenticator,
    TokenError,
    decode_token,
    issue_service_account_token,
    split_username,
)
from kubenotes.apiserver.request import UserInfo
from kubenotes.apiserver.server import DEFAULT_EPOCH, APIServer, format_timestamp

EPOCH = int(DEFAULT_EPOCH.timestamp())
SA_GROUPS = ("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated")


def _b64json(part: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_token_is_a_jwt_with_upstream_claims_on_the_virtual_clock():
    tok = issue_service_account_token("default", "builder", "uid-1", expiration_seconds=600, now_seconds=42.7)
    header, payload, sig = tok.split(".")
    assert "=" not in tok and sig
    assert _b64json(header)["alg"] == "HS256"
    claims = _b64json(payload)
    assert claims == decode_token(tok)
    assert claims["iss"] == DEFAULT_ISSUER and claims["aud"] == [DEFAULT_ISSUER]
    assert claims["sub"] == "system:serviceaccount:default:builder"
    assert claims["iat"] == claims["nbf"] == EPOCH + 42
    assert claims["exp"] == EPOCH + 42 + 600
    assert claims["kubernetes.io"] == {"namespace": "default", "serviceaccount": {"name": "builder", "uid": "uid-1"}}
    assert list(claims) == sorted(claims)  # go-jose merges the claim sets into one JSON object: sorted keys


def test_tokens_are_deterministic():
    a = issue_service_account_token("default", "sa", "u", 3600, 5)
    assert a == issue_service_account_token("default", "sa", "u", 3600, 5)
    assert a != issue_service_account_token("default", "sa", "u", 3600, 6)


def test_valid_token_authenticates_as_the_service_account():
    tok = issue_service_account_token("default", "builder", "uid-1", 3600, 0)
    user = TokenAuthenticator().authenticate(tok, now_seconds=10)
    assert user == UserInfo("system:serviceaccount:default:builder", "uid-1", SA_GROUPS)


@pytest.mark.parametrize("now,ok", [(600, True), (660, True), (661, False), (10_000, False)])
def test_expiry_with_sixty_second_leeway(now, ok):
    tok = issue_service_account_token("default", "sa", "u", expiration_seconds=600, now_seconds=0)
    authn = TokenAuthenticator()
    assert (authn.authenticate(tok, now) is not None) is ok
    if not ok:
        assert authn.last_error == TOKEN_EXPIRED
        with pytest.raises(TokenError, match=TOKEN_EXPIRED):
            authn.verify_service_account_token(tok, now)


def test_not_valid_before_issue_time_minus_leeway():
    tok = issue_service_account_token("default", "sa", "u", 3600, now_seconds=1000)
    authn = TokenAuthenticator()
    assert authn.authenticate(tok, 940) is not None
    assert authn.authenticate(tok, 939) is None and authn.last_error == TOKEN_NOT_VALID_YET


def test_tampered_token_or_other_key_is_rejected():
    tok = issue_service_account_token("default", "viewer", "u", 3600, 0)
    header, payload, sig = tok.split(".")
    claims = _b64json(payload)
    claims["sub"] = "system:serviceaccount:kube-system:generic-garbage-collector"
    claims["kubernetes.io"] = {"namespace": "kube-system", "serviceaccount": {"name": "generic-garbage-collector",
                                                                              "uid": "u"}}
    forged = header + "." + base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode() + "." + sig
    authn = TokenAuthenticator()
    assert authn.authenticate(forged, 1) is None and authn.last_error == "invalid signature"
    other = issue_service_account_token("default", "viewer", "u", 3600, 0, key=b"another key")
    assert authn.authenticate(other, 1) is None
    assert TokenAuthenticator(key=b"another key").authenticate(other, 1) is not None
    assert authn.authenticate("not-a-jwt", 1) is None


def test_issuer_and_audience_must_be_accepted():
    tok = issue_service_account_token("default", "sa", "u", 3600, 0, audiences=("vault",))
    assert TokenAuthenticator().authenticate(tok, 1) is None
    assert TokenAuthenticator(audiences=("vault",)).authenticate(tok, 1) is not None
    foreign = issue_service_account_token("default", "sa", "u", 3600, 0, issuer="https://other.example")
    assert TokenAuthenticator().authenticate(foreign, 1) is None


def test_static_admin_token_and_authenticated_group_added_once():
    authn = TokenAuthenticator({"t1": UserInfo("alice", "1", ("dev",)), ADMIN_TOKEN: UserInfo(
        "kubernetes-admin", groups=("system:masters", "system:authenticated"))})
    assert authn.authenticate("t1").groups == ("dev", "system:authenticated")
    assert authn.authenticate(ADMIN_TOKEN).groups == ("system:masters", "system:authenticated")
    assert authn.authenticate("t2") is None and authn.authenticate("") is None
    assert TokenAuthenticator().authenticate(ADMIN_TOKEN).name == "kubernetes-admin"


@pytest.mark.parametrize("header,user", [
    (f"Bearer {ADMIN_TOKEN}", "kubernetes-admin"), (f"bearer {ADMIN_TOKEN}", "kubernetes-admin"),
    (f"  Bearer {ADMIN_TOKEN}  ", "kubernetes-admin"), ("Bearer ", None), ("Bearer", None),
    (f"Basic {ADMIN_TOKEN}", None), ("", None), (None, None), ("Bearer  " + ADMIN_TOKEN, None),
])
def test_bearer_header(header, user):
    got = TokenAuthenticator().authenticate_header(header)
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
    assert TokenAuthenticator().authenticate(tok, 31) is not None  # without lookup, only the JWT is checked


def test_split_username():
    assert split_username("system:serviceaccount:default:viewer") == ("default", "viewer")
    assert split_username("system:serviceaccount:default") is None
    assert split_username("system:serviceaccount::viewer") is None
    assert split_username("kubernetes-admin") is None


def test_claims_no_object_binding():
    """claims_test.go TestClaims, "no obj binding": multi-member audience, exp 100."""
    claims = decode_token(issue_service_account_token("myns", "mysvcacct", "mysvcacct-uid", 100, 0,
                                                      audiences=("1", "2")))
    assert claims["sub"] == "system:serviceaccount:myns:mysvcacct" and claims["aud"] == ["1", "2"]
    assert claims["iat"] == claims["nbf"] == EPOCH and claims["exp"] == EPOCH + 100
    assert claims["kubernetes.io"] == {"namespace": "myns",
                                       "serviceaccount": {"name": "mysvcacct", "uid": "mysvcacct-uid"}}


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
def test_validate_private_claims(name, getter, token_uid, issued, expires_in, expect):
    tok = issue_service_account_token("ns", "saname", token_uid, expires_in, issued)
    authn = TokenAuthenticator(reader=getter)
    if expect:
        with pytest.raises(TokenError) as e:
            authn.verify_service_account_token(tok, NOW)
        assert str(e.value) == expect
    else:
        assert authn.verify_service_account_token(tok, NOW).name == "system:serviceaccount:ns:saname"
