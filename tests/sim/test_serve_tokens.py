"""Service-account tokens and secrets of a served cluster, checked by clients that are not the model.

The real kubectl creates a token (``kubectl create token``) and uses it; the official ``kubernetes``
Python client authenticates with a model token; PyJWT verifies one from the JWKS the server publishes at
``/openid/v1/jwks`` (found through ``/.well-known/openid-configuration``), as any OIDC relying party does;
forged tokens get 401. Expected texts are upstream's: kubectl's "error: You must be logged in to the server
(Unauthorized)" (``cmd/util/helpers.go``), the TokenRequest validation message
(``pkg/apis/authentication/validation``), the discovery documents of ``pkg/serviceaccount/openidmetadata.go``
and ``pkg/routes/openidmetadata.go``, and the non-resource Forbidden of ``responsewriters/errors.go``.
The private keys and the kubeconfig are 0600 and are removed when the server stops, also on SIGTERM.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from kubenotes.sim.cluster import Cluster
from kubenotes.sim.serve import serve

ROOT = Path(__file__).resolve().parents[2]
ISSUER = "https://kubernetes.default.svc.cluster.local"


def _with_bot(cluster: Cluster) -> Cluster:
    cluster.server.client("kubectl").create("serviceaccounts", {"metadata": {"name": "bot"}}, "default")
    return cluster


@pytest.fixture(scope="module")
def served():
    """One served cluster whose virtual second 0 is now (``kubenotes serve``'s default), with a ServiceAccount."""
    s = serve(_with_bot(Cluster(controllers=[], scheduler=False, epoch="now")), port=0, time_scale=0)
    try:
        yield s
    finally:
        s.stop()


def _get(s, path: str, token: str | None = None, method: str = "GET", body: dict | None = None):
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    if data:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(s.url + path, headers=headers, method=method, data=data)
    try:
        with urllib.request.urlopen(req, context=ssl.create_default_context(cafile=s.ca_path), timeout=10) as r:
            return r.status, dict(r.headers), json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.load(e)


def _token(s, name: str = "bot", seconds: int = 3600) -> str:
    code, _, body = _get(s, f"/api/v1/namespaces/default/serviceaccounts/{name}/token", s.token, "POST",
                         {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                          "spec": {"expirationSeconds": seconds}})
    assert code == 201, body
    return body["status"]["token"]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _forged(s) -> dict[str, str]:
    """Tokens claiming to be kube-system's garbage collector: another key, ``alg: none``, HS256 keyed with the
    server's public key (the classic algorithm-confusion attack), and a real token with its claims swapped."""
    real = _token(s)
    claims = jwt.decode(real, options={"verify_signature": False})
    claims.update(sub="system:serviceaccount:kube-system:generic-garbage-collector",
                  **{"kubernetes.io": {"namespace": "kube-system",
                                       "serviceaccount": {"name": "generic-garbage-collector", "uid": "x"}}})
    kid = jwt.get_unverified_header(real)["kid"]
    pem = s.cluster.server.token_generator.public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def signed(header: dict, sign) -> str:
        head = _b64(json.dumps(header).encode()) + "." + _b64(json.dumps(claims).encode())
        return head + "." + _b64(sign(head.encode()))

    h, _, sig = real.split(".")
    return {
        "another key": jwt.encode(claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256",
                                  headers={"kid": kid}),
        "alg none": signed({"alg": "none", "kid": kid}, lambda m: b""),
        "HS256 with the public key": signed({"alg": "HS256", "kid": kid},
                                            lambda m: hmac.new(pem, m, hashlib.sha256).digest()),
        "swapped claims": h + "." + _b64(json.dumps(claims).encode()) + "." + sig,
    }


def test_kubectl_create_token_then_uses_it(served, kubectl_required):
    r = served.kubectl("create", "token", "bot")
    assert r.returncode == 0, r.stderr
    tok = r.stdout.strip()
    r = served.kubectl("auth", "whoami", "-o", "json", "--token", tok)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"]["userInfo"]["username"] == "system:serviceaccount:default:bot"
    r = served.kubectl("get", "pods", "--token", tok)  # authenticated, not authorized: RBAC's 403
    assert r.returncode == 1 and 'User "system:serviceaccount:default:bot" cannot list resource "pods"' in r.stderr
    r = served.kubectl("create", "token", "bot", "--duration=5m")
    assert r.returncode == 1
    assert r.stderr.strip() == ('error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: '
                                "spec.expirationSeconds: Invalid value: 300: may not specify a duration less than "
                                "10 minutes")
    for what, forged in _forged(served).items():
        r = served.kubectl("get", "pods", "--token", forged)
        assert (r.returncode, r.stderr.strip()) == (1, "error: You must be logged in to the server (Unauthorized)"), \
            what


def test_official_kubernetes_client_with_a_model_token(served):
    from kubernetes import client

    cfg = client.Configuration()
    cfg.host, cfg.ssl_ca_cert = served.url, served.ca_path
    cfg.api_key = {"authorization": _token(served)}
    cfg.api_key_prefix = {"authorization": "Bearer"}
    with client.ApiClient(cfg) as api:
        review = client.AuthenticationV1Api(api).create_self_subject_review(client.V1SelfSubjectReview())
        assert review.status.user_info.username == "system:serviceaccount:default:bot"
        assert "system:serviceaccounts:default" in review.status.user_info.groups
        with pytest.raises(client.ApiException) as e:
            client.CoreV1Api(api).list_namespaced_pod("default")
        assert e.value.status == 403
    for what, forged in _forged(served).items():
        cfg.api_key = {"authorization": forged}
        with client.ApiClient(cfg) as api:
            with pytest.raises(client.ApiException) as e:
                client.AuthenticationV1Api(api).create_self_subject_review(client.V1SelfSubjectReview())
            assert e.value.status == 401, what


def test_issuer_discovery_lets_a_standard_library_verify_model_tokens(served):
    tok = _token(served)
    # system:service-account-issuer-discovery is bound to system:serviceaccounts only: anonymous is refused
    code, _, body = _get(served, "/openid/v1/jwks")
    assert (code, body["reason"], body["message"]) == (
        403, "Forbidden", 'forbidden: User "system:anonymous" cannot get path "/openid/v1/jwks"')
    code, headers, cfg = _get(served, "/.well-known/openid-configuration", tok)
    assert code == 200 and headers["content-type"] == "application/json"
    assert headers["cache-control"] == "public, max-age=3600"
    assert cfg == {"issuer": ISSUER, "jwks_uri": f"{served.url}/openid/v1/jwks",
                   "response_types_supported": ["id_token"], "subject_types_supported": ["public"],
                   "id_token_signing_alg_values_supported": ["RS256"]}
    # the documented step for public discovery: bind the role to system:unauthenticated too
    code, _, _ = _get(served, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", served.token, "POST", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "oidc-reviewer"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "system:service-account-issuer-discovery"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:unauthenticated"}]})
    assert code == 201
    code, headers, jwks = _get(served, "/openid/v1/jwks")
    assert code == 200 and headers["content-type"] == "application/jwk-set+json"
    assert [k["kid"] for k in jwks["keys"]] == [jwt.get_unverified_header(tok)["kid"]]
    # PyJWT fetches the key set anonymously, picks the key by kid and checks signature, issuer, audience, times
    keys = jwt.PyJWKClient(cfg["jwks_uri"], ssl_context=ssl.create_default_context(cafile=served.ca_path))
    claims = jwt.decode(tok, keys.get_signing_key_from_jwt(tok).key,
                        algorithms=cfg["id_token_signing_alg_values_supported"], audience=ISSUER,
                        issuer=cfg["issuer"])
    assert claims["sub"] == "system:serviceaccount:default:bot"
    forged = _forged(served)["another key"]
    with pytest.raises(jwt.PyJWTError):
        jwt.decode(forged, keys.get_signing_key_from_jwt(forged).key, algorithms=["RS256"], audience=ISSUER)


def test_forged_tokens_get_401(served):
    for what, forged in _forged(served).items():
        code, _, body = _get(served, "/api/v1/namespaces/default/pods", forged)
        assert (code, body["reason"]) == (401, "Unauthorized"), what


def test_tokens_survive_no_restart_and_secrets_are_0600_then_removed(tmp_path):
    """Keys and the kubeconfig are written 0600; stop removes them; a new server has a new key and admin token."""
    kubeconfig = tmp_path / "admin.conf"
    cluster = _with_bot(Cluster(controllers=[], scheduler=False))
    early = cluster.server.client("kubectl").create_token("default", "bot")["status"]["token"]
    assert jwt.get_unverified_header(early)["alg"] == "ES256"  # in process: an ECDSA key, as upstream's TestServer
    first = serve(cluster, port=0, time_scale=0, kubeconfig=str(kubeconfig))
    try:
        key, cert_key = Path(first.signing_key_path), Path(first.ca_path).with_name("apiserver.key")
        for p in (kubeconfig, key, cert_key):
            assert p.stat().st_mode & 0o777 == 0o600, p
        assert key.read_bytes().startswith(b"-----BEGIN RSA PRIVATE KEY-----")
        tok = _token(first)
        assert jwt.get_unverified_header(tok)["alg"] == "RS256"  # served: the RSA key made at start
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
        for t in (early, tok):  # a token from before serving still verifies (its key stays a verifying key)
            code, _, body = _get(first, "/apis/authentication.k8s.io/v1/selfsubjectreviews", t, "POST", review)
            assert (code, body["status"]["userInfo"]["username"]) == (201, "system:serviceaccount:default:bot")
    finally:
        first.stop()
    assert not kubeconfig.exists() and not key.exists() and not cert_key.exists()
    second = serve(Cluster(controllers=[], scheduler=False), port=0, time_scale=0)
    try:
        with second.lock:
            _with_bot(second.cluster)
        assert second.token != first.token
        assert _get(second, "/api/v1/namespaces/default/pods", first.token)[0] == 401
        assert _get(second, "/apis/authentication.k8s.io/v1/selfsubjectreviews", tok, "POST", {
            "apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})[0] == 401  # the old key is gone
    finally:
        second.stop()


def test_signing_key_file_signs_and_is_kept(tmp_path):
    path = tmp_path / "sa.key"
    key = ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    s = serve(_with_bot(Cluster(controllers=[], scheduler=False)), port=0, time_scale=0,
              service_account_signing_key_file=str(path))
    try:
        tok = _token(s)
        assert jwt.get_unverified_header(tok)["alg"] == "ES256"
        jwt.decode(tok, key.public_key(), algorithms=["ES256"], audience=ISSUER,
                   options={"verify_exp": False, "verify_iat": False, "verify_nbf": False})
    finally:
        s.stop()
    assert path.exists()  # the user's key file is theirs


def test_kubenotes_serve_removes_its_secrets_on_sigterm_as_on_sigint(tmp_path):
    """A real process (~3 s): SIGTERM, as a container runtime or ``kill`` sends, cleans up as Ctrl-C does (the
    handler raises the KeyboardInterrupt that SIGINT raises, so both take the same path)."""
    kubeconfig = tmp_path / "kubeconfig"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "kubenotes", "serve", "--port", "0", "--time-scale", "0",
                             "--kubeconfig", str(kubeconfig)], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, text=True, env=env, cwd=str(tmp_path))
    try:
        key = None
        deadline = time.monotonic() + 30
        while key is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line, "serve exited before it was ready"
            if "service-account tokens are signed with " in line:
                key = Path(line.split("signed with ", 1)[1].split(";", 1)[0])
        assert key is not None
        assert kubeconfig.stat().st_mode & 0o777 == 0o600 and key.stat().st_mode & 0o777 == 0o600
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not kubeconfig.exists() and not key.exists() and not key.parent.exists()


def test_token_review_over_http_uses_the_servers_authenticator(served):
    """A TokenReview is answered by the same authenticators as requests (the admin's static token too)."""
    def review(token: str) -> dict:
        code, _, body = _get(served, "/apis/authentication.k8s.io/v1/tokenreviews", served.token, "POST",
                             {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                              "spec": {"token": token}})
        assert code == 201, body
        return body["status"]

    assert review(served.token)["user"]["username"] == "kubernetes-admin"
    assert review(_token(served))["user"]["username"] == "system:serviceaccount:default:bot"
    for what, forged in _forged(served).items():
        assert review(forged)["authenticated"] is False, what
    with served.lock:
        assert served.cluster.server.list("tokenreviews") == []  # answered, never stored


def test_legacy_secret_token_authenticates_over_http_and_is_tracked():
    """A ``service-account-token`` Secret's token (tokens controller, the served RSA key) works as a bearer token.

    As upstream's legacyValidator: the user is the ServiceAccount, the Secret gets the
    ``kubernetes.io/legacy-token-last-used`` label, a Secret the ServiceAccount lists adds the warning, and the
    model's old unsigned form (a SHA-256 of header and claims) and a token of another key get 401.
    """
    cluster = _with_bot(Cluster(controllers=["serviceaccount-token-controller"], scheduler=False, epoch="now"))
    s = serve(cluster, port=0, time_scale=0)
    try:
        code, _, body = _get(s, "/api/v1/namespaces/default/secrets", s.token, "POST", {
            "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {"name": "bot-token", "annotations": {"kubernetes.io/service-account.name": "bot"}}})
        assert code == 201, body
        s.run_for(1)  # the tokens controller fills it in
        _, _, secret = _get(s, "/api/v1/namespaces/default/secrets/bot-token", s.token)
        tok = base64.b64decode(secret["data"]["token"]).decode()
        assert jwt.get_unverified_header(tok)["alg"] == "RS256"  # served: the RSA key made at start
        assert jwt.decode(tok, options={"verify_signature": False})["iss"] == "kubernetes/serviceaccount"
        code, headers, review = _get(s, "/apis/authentication.k8s.io/v1/selfsubjectreviews", tok, "POST",
                                     {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
        assert code == 201, review
        assert review["status"]["userInfo"]["username"] == "system:serviceaccount:default:bot"
        assert "warning" not in {k.lower() for k in headers}  # a manually created Secret: no warning
        _, _, secret = _get(s, "/api/v1/namespaces/default/secrets/bot-token", s.token)
        assert secret["metadata"]["labels"]["kubernetes.io/legacy-token-last-used"] == time.strftime(
            "%Y-%m-%d", time.gmtime(s.cluster.server.epoch.timestamp() + s.now))
        req = urllib.request.Request(s.url + "/api/v1/namespaces/default/serviceaccounts/bot", method="PATCH",
                                     data=json.dumps({"secrets": [{"name": "bot-token"}]}).encode(),
                                     headers={"Authorization": f"Bearer {s.token}",
                                              "Content-Type": "application/merge-patch+json"})
        with urllib.request.urlopen(req, context=ssl.create_default_context(cafile=s.ca_path), timeout=10) as r:
            assert r.status == 200  # the ServiceAccount now lists the Secret: an "auto-generated" token
        code, headers, _ = _get(s, "/api/v1/namespaces/default/configmaps", tok)
        assert code == 403  # authenticated, not authorized
        assert headers["warning"] == ('299 - "Use tokens from the TokenRequest API or manually created secret-based '
                                      'tokens instead of auto-generated secret-based tokens."')
        head, payload, _ = tok.split(".")
        old = _b64(json.dumps({"alg": "RS256", "kid": "kubenotes"}, separators=(",", ":")).encode())
        forged = {"old sha256 form": f"{old}.{payload}." + _b64(hashlib.sha256(f"{old}.{payload}".encode()).digest()),
                  "another key": jwt.encode(jwt.decode(tok, options={"verify_signature": False}),
                                            ec.generate_private_key(ec.SECP256R1()), algorithm="ES256")}
        for what, bad in forged.items():
            code, _, body = _get(s, "/api/v1/namespaces/default/configmaps", bad)
            assert (code, body["message"]) == (401, "Unauthorized"), what
    finally:
        s.stop()
