"""No 500 for a client's mistake: kube-apiserver's 400/401/413/415/422 answers to malformed requests (issue #31).

Each class the issue lists gets upstream v1.34's status code and message, and
nothing is stored: wrong-typed query parameters on every verb, bodies of the
wrong JSON type, empty keys under ``fieldValidation``, a create without a
name, deep nesting, wrong types in reviews and ``metadata``, bad continue
tokens, malformed bearer tokens, the request body and ConfigMap/Secret size
limits, JSON patch length, int32 overflow, Content-Type, YAML bodies,
apiVersion/kind against the URL, ``dryRun``, ``propagationPolicy`` and watch
resourceVersions. Paging: opaque continue tokens, one snapshot per list, the
410 once the history no longer reaches the token.

The app is spoken to in-process (Starlette's TestClient), with a stand-in
authenticator so the tests do not depend on how tokens are issued.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/{create,delete,patch,rest}.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/storage/continue.go, storage/etcd3/store.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go (query parameters)
"""

from __future__ import annotations

import base64
import json

import pytest
from starlette.testclient import TestClient

from kubenotes.apiserver import validation
from kubenotes.apiserver.authn import ADMIN_USER, TokenAuthenticator
from kubenotes.apiserver.http import create_app
from kubenotes.apiserver.server import APIServer

CM = "/api/v1/namespaces/default/configmaps"
TOKEN = "test-token"


class _Admin:
    """Any ``Bearer test-token`` is the admin."""

    def authenticate_header(self, header, now_seconds=0.0):
        return ADMIN_USER if header == f"Bearer {TOKEN}" else None


def _cm(name: str, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "b"}, **extra}


@pytest.fixture
def api():
    server = APIServer(history_capacity=50, validator=validation)
    client = TestClient(create_app(server, authenticator=_Admin()), raise_server_exceptions=False)
    client.server = server
    for n in ("one", "two"):
        assert call(client, "POST", CM, _cm(n))[0] == 201
    return client


def call(client, method: str, path: str, body=None, *, raw: bytes | None = None, ctype: str = "application/json",
         headers: dict | None = None) -> tuple[int, dict]:
    h = {"Authorization": f"Bearer {TOKEN}", **(headers or {})}
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    if data is not None:
        h["Content-Type"] = ctype
    r = client.request(method, path, content=data, headers=h)
    return r.status_code, r.json()


def status(code_body: tuple[int, dict]) -> tuple[int, str, str]:
    code, body = code_body
    assert body.get("kind") == "Status", body
    return code, body.get("reason", ""), body.get("message", "")


def stored(api, name: str) -> dict | None:
    from kubenotes.apiserver.resources import resource_for

    return api.server.store.get(resource_for("configmaps"), "default", name)


# ---------------------------------------------------------------- query parameters
@pytest.mark.parametrize("method,path", [
    ("GET", CM + "?limit=abc"),
    ("GET", CM + "?watch=1&timeoutSeconds=abc"),
    ("DELETE", CM + "/one?gracePeriodSeconds=abc"),
    ("DELETE", CM + "?gracePeriodSeconds=abc"),
])
def test_a_query_parameter_of_the_wrong_type_is_400_on_every_verb(api, method, path):
    assert status(call(api, method, path)) == (400, "BadRequest", 'strconv.ParseInt: parsing "abc": invalid syntax')
    assert stored(api, "one") is not None


@pytest.mark.parametrize("method,path,kind", [
    ("POST", CM, "CreateOptions"), ("PUT", CM + "/one", "UpdateOptions"),
    ("PATCH", CM + "/one", "PatchOptions"), ("DELETE", CM + "/one", "DeleteOptions"),
])
def test_dry_run_accepts_only_all(api, method, path, kind):
    body = _cm("new") if method == "POST" else (_cm("one") if method == "PUT" else None)
    ctype = "application/merge-patch+json" if method == "PATCH" else "application/json"
    if method == "PATCH":
        body = {"data": {"x": "y"}}
    code, reason, msg = status(call(api, method, path + "?dryRun=foo", body, ctype=ctype))
    assert (code, reason) == (422, "Invalid")
    assert msg == f'{kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{{"foo"}}: supported ' \
                  f'values: "All"'
    assert stored(api, "new") is None and stored(api, "one")["data"] == {"a": "b"}


def test_dry_run_all_writes_nothing(api):
    rv = api.server.store.revision
    assert call(api, "POST", CM + "?dryRun=All", _cm("new"))[0] == 201
    assert call(api, "DELETE", CM + "/one?dryRun=All")[0] == 200
    assert stored(api, "new") is None and stored(api, "one") is not None and api.server.store.revision == rv


def test_propagation_policy_accepts_only_the_three_policies(api):
    code, reason, msg = status(call(api, "DELETE", CM + "/one?propagationPolicy=foo"))
    assert (code, reason) == (422, "Invalid")
    assert msg == ('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "foo": supported '
                   'values: "Foreground", "Background", "Orphan", "nil"')
    assert status(call(api, "DELETE", CM + "/one", {"propagationPolicy": "Sideways"}))[0] == 422
    assert stored(api, "one") is not None
    assert call(api, "DELETE", CM + "/one?propagationPolicy=Foreground")[0] == 200


# ---------------------------------------------------------------- bodies of the wrong JSON type
@pytest.mark.parametrize("body,kind", [("str", "string"), ([1], "array")])
def test_a_delete_options_body_that_is_not_an_object_is_400(api, body, kind):
    code, reason, msg = status(call(api, "DELETE", CM + "/one", body))
    assert (code, reason) == (400, "BadRequest")
    assert msg.startswith(f"couldn't get version/kind; json parse error: json: cannot unmarshal {kind} into Go value "
                          "of type struct { APIVersion string")
    assert stored(api, "one") is not None


def test_delete_options_fields_of_the_wrong_type_are_400(api):
    assert status(call(api, "DELETE", CM + "/one", {"gracePeriodSeconds": "x"})) == (
        400, "BadRequest", "json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of "
                           "type int64")


@pytest.mark.parametrize("patch", [[1], "x", 3])
def test_a_merge_patch_that_is_not_an_object_is_400(api, patch):
    assert status(call(api, "PATCH", CM + "/one", patch, ctype="application/merge-patch+json")) == (
        400, "BadRequest", "Invalid JSON Patch")
    assert stored(api, "one")["data"] == {"a": "b"}


@pytest.mark.parametrize("ctype", ["application/merge-patch+json", "application/strategic-merge-patch+json"])
@pytest.mark.parametrize("patch,detail", [
    ({"data": "x"}, "json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string"),
    ({"metadata": {"labels": "x"}},
     "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    ({"metadata": "x"}, "json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta"),
])
def test_a_patch_that_sets_a_map_to_a_string_is_422_and_stores_nothing(api, ctype, patch, detail):
    rv = stored(api, "one")["metadata"]["resourceVersion"]
    code, reason, msg = status(call(api, "PATCH", CM + "/one", patch, ctype=ctype))
    assert (code, reason) == (422, "Invalid")
    assert msg.startswith(' "" is invalid: patch: Invalid value: ') and msg.endswith(detail)
    assert stored(api, "one")["metadata"]["resourceVersion"] == rv


def test_a_json_patch_of_more_than_10000_operations_is_413(api):
    ops = [{"op": "test", "path": "/data/a", "value": "b"}] * 10001
    assert status(call(api, "PATCH", CM + "/one", ops, ctype="application/json-patch+json")) == (
        413, "RequestEntityTooLarge",
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001")
    assert call(api, "PATCH", CM + "/one", ops[:10000], ctype="application/json-patch+json")[0] == 200


@pytest.mark.parametrize("directive", ["Warn", "Ignore"])
def test_an_empty_key_under_warn_or_ignore_is_dropped_and_the_object_stored(api, directive):
    body = _cm("empty")
    body[""] = 1
    body["metadata"][""] = 2
    r = api.request("POST", f"{CM}?fieldValidation={directive}", content=json.dumps(body),
                    headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    assert r.status_code == 201
    warnings = r.headers.get_list("warning") if hasattr(r.headers, "get_list") else r.headers.getlist("warning")
    assert (len(warnings) == 2) == (directive == "Warn")
    assert "" not in stored(api, "empty") and "" not in stored(api, "empty")["metadata"]


def test_field_validation_defaults_to_warn_and_refuses_other_values(api):
    r = api.request("POST", CM, content=json.dumps({**_cm("unknown"), "dataa": {"x": "y"}}),
                    headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    assert r.status_code == 201 and r.headers["warning"] == '299 - "unknown field \\"dataa\\""'
    assert "dataa" not in stored(api, "unknown")
    assert status(call(api, "POST", CM + "?fieldValidation=strict", _cm("x"))) == (
        422, "Invalid", 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": '
                        'supported values: "Ignore", "Strict", "Warn"')


@pytest.mark.parametrize("path,kind", [(CM, "ConfigMap"), ("/api/v1/namespaces", "Namespace"),
                                       ("/apis/apps/v1/namespaces/default/deployments", "Deployment.apps")])
def test_a_create_without_a_name_is_422(api, path, kind):
    rv = api.server.store.revision
    code, reason, msg = status(call(api, "POST", path, {}))
    assert (code, reason) == (422, "Invalid")
    assert msg.startswith(f'{kind} "" is invalid: ') and "metadata.name: Required value: name or generateName is " \
                                                          "required" in msg
    assert api.server.store.revision == rv


def test_json_nested_10000_deep_is_decoded_and_deeper_is_400(api):
    deep = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":' + b"[" * 9999 + b"]" * 9999 + b"}"
    assert call(api, "POST", CM + "?fieldValidation=Ignore", raw=deep)[0] == 201
    too = b"[" * 10001 + b"]" * 10001
    code, reason, msg = status(call(api, "POST", CM, raw=too))
    assert (code, reason) == (400, "BadRequest")
    assert msg == ("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json "
                   "parse error: exceeded max depth ([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ ...)")


@pytest.mark.parametrize("path,body,detail", [
    (CM, _cm("f", metadata={"name": "f", "finalizers": [1]}),
     "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct "
     "field ObjectMeta.metadata.finalizers of type string"),
    (CM, _cm("g", data="notamap"),
     "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct "
     "field ConfigMap.data of type map[string]string"),
    ("/apis/authorization.k8s.io/v1/subjectaccessreviews",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": {"a": 1}}},
     "SubjectAccessReview in version \"v1\" cannot be handled as a SubjectAccessReview: json: cannot unmarshal "
     "object into Go struct field SubjectAccessReviewSpec.spec.user of type string"),
    ("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
     {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": [1]}},
     "SelfSubjectRulesReview in version \"v1\" cannot be handled as a SelfSubjectRulesReview: json: cannot unmarshal "
     "array into Go struct field SelfSubjectRulesReviewSpec.spec.namespace of type string"),
    ("/apis/authentication.k8s.io/v1/tokenreviews",
     {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": 5}},
     "TokenReview in version \"v1\" cannot be handled as a TokenReview: json: cannot unmarshal number into Go struct "
     "field TokenReviewSpec.spec.token of type string"),
    ("/api/v1/namespaces/default/serviceaccounts/default/token",
     {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": "x"}},
     "TokenRequest in version \"v1\" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go "
     "struct field TokenRequestSpec.spec.expirationSeconds of type int64"),
    ("/apis/apps/v1/namespaces/default/deployments",
     {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {
         "replicas": 1099511627776, "selector": {"matchLabels": {"a": "b"}},
         "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}},
     "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal number 1099511627776 "
     "into Go struct field DeploymentSpec.spec.replicas of type int32"),
])
def test_a_value_of_the_wrong_json_type_is_400_and_never_stored(api, path, body, detail):
    rv = api.server.store.revision
    assert status(call(api, "POST", path, body)) == (400, "BadRequest", detail)
    assert api.server.store.revision == rv


# ---------------------------------------------------------------- limits and media types
def test_a_body_over_3_mib_is_413(api):
    big = json.dumps(_cm("big", data={"a": "x" * (3 << 20)})).encode()
    assert status(call(api, "POST", CM, raw=big)) == (413, "RequestEntityTooLarge",
                                                      "Request entity too large: limit is 3145728")
    assert stored(api, "big") is None


def test_configmap_and_secret_data_over_1_mib_is_422(api):
    code, reason, msg = status(call(api, "POST", CM, _cm("big", data={"a": "x" * (1 << 20), "b": "y"})))
    assert (code, reason, msg) == (422, "Invalid",
                                   'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes')
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
              "data": {"a": base64.b64encode(b"x" * ((1 << 20) + 1)).decode()}}
    assert status(call(api, "POST", "/api/v1/namespaces/default/secrets", secret)) == (
        422, "Invalid", 'Secret "s" is invalid: data: Too long: may not be more than 1048576 bytes')
    assert call(api, "POST", CM, _cm("fits", data={"a": "x" * (1 << 19)}))[0] == 201


def test_content_type_is_checked_and_yaml_is_accepted(api):
    assert status(call(api, "POST", CM, raw=b"x", ctype="text/plain")) == (
        415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types "
                                     "include: application/json, application/yaml, application/vnd.kubernetes.protobuf")
    yaml_body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n"
    code, body = call(api, "POST", CM, raw=yaml_body, ctype="application/yaml")
    assert (code, body["data"]) == (201, {"k": "v"})


def test_apiversion_or_kind_not_matching_the_url_is_400(api):
    assert status(call(api, "POST", CM, {**_cm("k"), "apiVersion": "apps/v1"})) == (
        400, "BadRequest", "the API version in the data (apps/v1) does not match the expected API version (v1)")
    assert status(call(api, "POST", CM, {**_cm("k"), "kind": "Secret"}))[:2] == (400, "BadRequest")
    assert stored(api, "k") is None


# ---------------------------------------------------------------- authentication
@pytest.mark.parametrize("path", ["/version", "/healthz", "/api/v1/namespaces"])
@pytest.mark.parametrize("header", [b"Bearer a.b.c", b"Bearer \xff\xfe", b"Bearer eyJhbGciOiJSUzI1NiJ9.eyJ.x",
                                    b"Bearer", b"Basic xyz"])
def test_a_malformed_bearer_token_is_401_never_a_500(path, header):
    server = APIServer()
    client = TestClient(create_app(server, authenticator=TokenAuthenticator(reader=server)),
                        raise_server_exceptions=False)
    r = client.get(path, headers={"Authorization": header})
    assert (r.status_code, r.json()["reason"]) == (401, "Unauthorized")


def test_an_authenticator_that_fails_on_a_token_gives_401():
    class Broken:
        def authenticate_header(self, header, now_seconds=0.0):
            raise ValueError("cannot parse token")

    client = TestClient(create_app(APIServer(), authenticator=Broken()), raise_server_exceptions=False)
    for path in ("/version", "/healthz", "/api/v1/pods"):
        r = client.get(path, headers={"Authorization": "Bearer x"})
        assert (r.status_code, r.json()["reason"]) == (401, "Unauthorized")


# ---------------------------------------------------------------- paging
def test_continue_tokens_are_upstreams_and_pages_come_from_one_snapshot(api):
    for i in range(3):
        call(api, "POST", CM, _cm(f"p{i}"))
    code, first = call(api, "GET", CM + "?limit=2")
    rv = first["metadata"]["resourceVersion"]
    token = first["metadata"]["continue"]
    decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert decoded == {"v": "meta.k8s.io/v1", "rv": int(rv), "start": first["items"][-1]["metadata"]["name"] + "\x00"}
    assert first["metadata"]["remainingItemCount"] == 3
    call(api, "POST", CM, _cm("a-new"))       # sorts before every page's keys
    call(api, "POST", CM, _cm("zz-new"))      # sorts after
    call(api, "DELETE", CM + "/two")          # deleted after the first page: still in the snapshot
    names = [o["metadata"]["name"] for o in first["items"]]
    while token:
        code, page = call(api, "GET", f"{CM}?limit=2&continue={token}")
        assert code == 200 and page["metadata"]["resourceVersion"] == rv
        names += [o["metadata"]["name"] for o in page["items"]]
        token = page["metadata"].get("continue")
    assert names == ["one", "p0", "p1", "p2", "two"]


def test_a_continue_token_with_a_resource_version_is_400(api):
    token = call(api, "GET", CM + "?limit=1")[1]["metadata"]["continue"]
    assert status(call(api, "GET", f"{CM}?limit=1&continue={token}&resourceVersion=5")) == (
        400, "BadRequest", "specifying resource version is not allowed when using continue")
    assert call(api, "GET", f"{CM}?limit=1&continue={token}&resourceVersion=0")[0] == 200


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_a_limit_of_zero_or_less_means_no_limit(api, limit):
    code, body = call(api, "GET", f"{CM}?limit={limit}")
    assert code == 200 and len(body["items"]) == 2 and "continue" not in body["metadata"]


@pytest.mark.parametrize("token,detail", [
    ("zzz", "invalid continue token: continue key is not valid: invalid character"),
    ("12", "invalid continue token: continue key is not valid"),
    (base64.urlsafe_b64encode(b'{"v":"meta.k8s.io/v2","rv":3,"start":"a"}').decode().rstrip("="),
     "invalid continue token: continue key is not valid: server does not recognize this encoded version "
     "meta.k8s.io/v2"),
    (base64.urlsafe_b64encode(b'{"v":"meta.k8s.io/v1","rv":0,"start":"a"}').decode().rstrip("="),
     "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version "
     "meta.k8s.io/v1)"),
    (base64.urlsafe_b64encode(b'{"v":"meta.k8s.io/v1","rv":3,"start":"../secrets"}').decode().rstrip("="),
     "invalid continue token: continue key is not valid: ../secrets"),
])
def test_an_invalid_continue_token_is_400(api, token, detail):
    code, reason, msg = status(call(api, "GET", f"{CM}?continue={token}"))
    assert (code, reason) == (400, "BadRequest") and msg.startswith(detail)


def test_a_continue_token_older_than_the_history_is_410(api):
    code, first = call(api, "GET", CM + "?limit=1")
    for i in range(60):  # the fixture's history keeps 50 events
        call(api, "POST", CM, _cm(f"later-{i}"))
    code, reason, msg = status(call(api, "GET", f"{CM}?limit=1&continue={first['metadata']['continue']}"))
    assert (code, reason) == (410, "Expired")
    assert msg.startswith("The provided continue parameter is too old to display a consistent list result.")


# ---------------------------------------------------------------- watch resourceVersions
def test_a_watch_resource_version_that_is_not_a_number_is_400_and_one_from_the_future_504(api):
    assert status(call(api, "GET", CM + "?watch=1&resourceVersion=abc")) == (
        400, "BadRequest", 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax')
    now = api.server.store.revision
    code, reason, msg = status(call(api, "GET", f"{CM}?watch=1&resourceVersion={now + 1000}"))
    assert (code, reason, msg) == (504, "Timeout", f"Too large resource version: {now + 1000}, current: {now}")
