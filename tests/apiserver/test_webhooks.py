"""Admission webhooks called for real: a local HTTPS webhook server in the test, the API server's plugins calling it.

Expected texts are upstream's: ``admission webhook "x" denied the request: ...``
(admission/plugin/webhook/errors/statuserror.go), ``failed calling webhook "x": ...``
wrapped as an internal error (webhook/mutating and validating dispatcher.go),
``admission webhook "x" does not support dry run`` (webhook/errors/errors.go).
"""

from __future__ import annotations

import base64
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kubenotes.apiserver import validation
from kubenotes.apiserver.admission import default_admission_chain
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError
from kubenotes.sim.serve import self_signed_cert


class WebhookServer:
    """A webhook on 127.0.0.1 over HTTPS: ``answer(review) -> response`` (a dict, raw bytes, or a delay)."""

    def __init__(self, tmp_path, answer):
        cert, key = self_signed_cert()
        (tmp_path / "tls.crt").write_bytes(cert)
        (tmp_path / "tls.key").write_bytes(key)
        self.ca_bundle = base64.b64encode(cert).decode()
        self.reviews: list[dict] = []
        self.answer = answer
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                review["path"] = self.path
                outer.reviews.append(review)
                out = outer.answer(review)
                if isinstance(out, float):
                    time.sleep(out)
                    out = {"allowed": True}
                body = out if isinstance(out, bytes) else json.dumps(
                    {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                     "response": {"uid": review["request"]["uid"], **out}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (ConnectionError, ssl.SSLError):
                    pass  # the API server gave up waiting (the timeout cases): nobody reads this answer

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(tmp_path / "tls.crt", tmp_path / "tls.key")
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def webhook(tmp_path):
    servers = []

    def start(answer):
        s = WebhookServer(tmp_path, answer)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


def _b64(patch: list) -> str:
    return base64.b64encode(json.dumps(patch).encode()).decode()


def _hook(name, url, ca, **kw):
    h = {"name": name, "clientConfig": {"url": url, "caBundle": ca}, "sideEffects": "None",
         "admissionReviewVersions": ["v1"],
         "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
                    "resources": ["configmaps"]}]}
    h.update(kw)
    return h


def _api(**kw):
    api = APIServer(admission=default_admission_chain(0), **({"validator": validation} | kw))
    api.client().create("namespaces", {"metadata": {"name": "default"}})
    return api


def _configure(api, kind, *hooks):
    res = "validatingwebhookconfigurations" if kind == "validating" else "mutatingwebhookconfigurations"
    api.client().create(res, {"metadata": {"name": f"{kind}-{len(api.list(res))}"}, "webhooks": list(hooks)})


def _cm(name="c", labels=None, data=None):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels or {}},
            "data": data or {}}


def test_validating_webhook_sees_an_admission_review_and_refuses_with_upstream_text(webhook):
    s = webhook(lambda r: {"allowed": r["request"]["object"]["data"].get("colour") != "red",
                           "status": {"code": 403, "message": "no red configmaps"}})
    api = _api()
    _configure(api, "validating", _hook("colour.example.com", s.url + "/validate", s.ca_bundle))
    c = api.client()
    c.create("configmaps", _cm("ok", data={"colour": "blue"}), "default")
    with pytest.raises(ApiError) as e:
        c.create("configmaps", _cm("bad", data={"colour": "red"}), "default")
    assert (e.value.code, str(e.value)) == (403, 'admission webhook "colour.example.com" denied the request: no red '
                                                 'configmaps')
    assert api.get("configmaps", "default", "bad") is None
    req = s.reviews[0]["request"]
    assert s.reviews[0]["path"] == "/validate?timeout=10s"
    assert (s.reviews[0]["apiVersion"], s.reviews[0]["kind"]) == ("admission.k8s.io/v1", "AdmissionReview")
    assert req["operation"] == "CREATE" and req["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert req["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert (req["name"], req["namespace"], req["oldObject"], req["dryRun"]) == ("ok", "default", None, False)
    assert req["userInfo"]["username"] == "kubernetes-admin" and req["options"]["kind"] == "CreateOptions"


def test_mutating_webhook_json_patch_is_applied_and_reinvoked_if_needed(webhook):
    def add_label(r):
        patch = [{"op": "add", "path": "/metadata/labels/seen-by", "value": "webhook"}]
        return {"allowed": True, "patchType": "JSONPatch", "patch": _b64(patch)}

    def add_data(r):
        patch = [{"op": "add", "path": "/data/added", "value": "yes"}]
        return {"allowed": True, "patchType": "JSONPatch", "patch": _b64(patch)}

    a, b = webhook(add_label), webhook(add_data)
    api = _api()
    _configure(api, "mutating", _hook("label.example.com", a.url, a.ca_bundle, reinvocationPolicy="IfNeeded"),
               _hook("data.example.com", b.url, b.ca_bundle))
    cm = api.client().create("configmaps", _cm(), "default")
    assert cm["metadata"]["labels"] == {"seen-by": "webhook"} and cm["data"] == {"added": "yes"}
    assert len(a.reviews) == 2 and len(b.reviews) == 1  # the first webhook ran again after the second changed it


def test_selectors_and_rules_decide_which_requests_a_webhook_sees(webhook):
    s = webhook(lambda r: {"allowed": False})
    api = _api()
    api.client().create("namespaces", {"metadata": {"name": "guarded", "labels": {"guard": "on"}}})
    _configure(api, "validating", _hook("guard.example.com", s.url, s.ca_bundle,
                                        namespaceSelector={"matchLabels": {"guard": "on"}},
                                        objectSelector={"matchExpressions": [{"key": "skip", "operator":
                                                                              "DoesNotExist"}]}))
    c = api.client()
    c.create("configmaps", _cm(), "default")  # the namespace's labels do not match
    c.create("configmaps", _cm("skipped", labels={"skip": "yes"}), "guarded")  # the object's labels do not
    c.create("secrets", {"metadata": {"name": "s"}}, "guarded")  # no rule for secrets
    with pytest.raises(ApiError) as e:
        c.create("configmaps", _cm(), "guarded")
    assert (e.value.code, str(e.value)) == (400, 'admission webhook "guard.example.com" denied the request without '
                                                 'explanation')
    assert len(s.reviews) == 1


def test_failure_policy_decides_for_a_webhook_that_is_down():
    api = _api()
    _configure(api, "validating", _hook("down.example.com", "https://127.0.0.1:1/x", "", failurePolicy="Fail"))
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", _cm(), "default")
    assert (e.value.code, str(e.value)) == (
        500, 'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post '
             '"https://127.0.0.1:1/x?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused')
    api2 = _api()
    _configure(api2, "validating", _hook("down.example.com", "https://127.0.0.1:1/x", "", failurePolicy="Ignore"))
    assert api2.client().create("configmaps", _cm(), "default")["metadata"]["name"] == "c"


def test_a_slow_webhook_times_out_and_garbage_is_an_invalid_response(webhook):
    slow = webhook(lambda r: 1.5)
    api = _api()
    _configure(api, "validating", _hook("slow.example.com", slow.url, slow.ca_bundle, timeoutSeconds=1))
    t0 = time.monotonic()
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", _cm(), "default")
    assert time.monotonic() - t0 < 1.4
    assert str(e.value) == (f'Internal error occurred: failed calling webhook "slow.example.com": failed to call '
                            f'webhook: Post "{slow.url}?timeout=1s": context deadline exceeded')
    junk = webhook(lambda r: json.dumps({"apiVersion": "v1", "kind": "Status"}).encode())
    api2 = _api()
    _configure(api2, "validating", _hook("junk.example.com", junk.url, junk.ca_bundle))
    with pytest.raises(ApiError) as e:
        api2.client().create("configmaps", _cm(), "default")
    assert str(e.value) == ('Internal error occurred: failed calling webhook "junk.example.com": received invalid '
                            'webhook response: expected webhook response of admission.k8s.io/v1, '
                            'Kind=AdmissionReview, got v1, Kind=Status')


def test_dry_run_needs_a_webhook_without_side_effects(webhook):
    s = webhook(lambda r: {"allowed": True})
    # admissionregistration/v1 refuses sideEffects Some for a new configuration (only one stored before v1 can
    # still have it): this server skips validation to hold one
    api = _api(validator=None)
    _configure(api, "validating", _hook("effects.example.com", s.url, s.ca_bundle, sideEffects="Some"))
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", _cm(), "default", dry_run=True)
    assert (e.value.code, str(e.value)) == (400, 'admission webhook "effects.example.com" does not support dry run')
    assert s.reviews == []


def test_match_policy_equivalent_reaches_another_version_of_the_same_resource(webhook):
    s = webhook(lambda r: {"allowed": False, "status": {"message": r["request"]["kind"]["version"]}})
    rule = {"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v2"],
            "resources": ["horizontalpodautoscalers"]}
    hpa = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
           "spec": {"maxReplicas": 3, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}}
    api = _api(validator=None)
    _configure(api, "validating", _hook("hpa.example.com", s.url, s.ca_bundle, rules=[rule]))
    with pytest.raises(ApiError) as e:
        api.client().create("horizontalpodautoscalers.v1.autoscaling", hpa, "default")
    assert str(e.value) == 'admission webhook "hpa.example.com" denied the request: v2'
    api2 = _api(validator=None)
    _configure(api2, "validating", _hook("hpa.example.com", s.url, s.ca_bundle, rules=[rule], matchPolicy="Exact"))
    api2.client().create("horizontalpodautoscalers.v1.autoscaling", hpa, "default")
    assert len(s.reviews) == 1


def test_no_configuration_leaves_the_trace_unchanged():
    api = _api()
    trace = api.trace_requests()
    api.client().create("configmaps", _cm(), "default")
    steps = [st["step"] for st in trace[-1]["steps"]]
    assert not [st for st in steps if "Webhook" in st]


def test_match_conditions_are_cel_over_the_request(webhook):
    s = webhook(lambda r: {"allowed": False, "status": {"message": "refused"}})
    api = _api()
    _configure(api, "validating", _hook("cond.example.com", s.url, s.ca_bundle, matchConditions=[
        {"name": "only-labelled", "expression": "has(object.metadata.labels) && 'guard' in object.metadata.labels"},
        {"name": "not-system", "expression": "!request.userInfo.username.startsWith('system:')"}]))
    c = api.client()
    c.create("configmaps", _cm("free"), "default")
    with pytest.raises(ApiError) as e:
        c.create("configmaps", _cm("held", labels={"guard": "1"}), "default")
    assert str(e.value) == 'admission webhook "cond.example.com" denied the request: refused'
    assert len(s.reviews) == 1


def test_a_webhook_change_reinvokes_if_needed_mutating_admission_policies(webhook):
    # upstream's reinvocation context: a MutatingAdmissionPolicy with reinvocationPolicy IfNeeded runs again
    # when a mutating webhook (after it in the chain) changed the object
    def add_label(r):
        patch = [{"op": "add", "path": "/metadata/labels/tier", "value": "gold"}]
        return {"allowed": True, "patchType": "JSONPatch", "patch": _b64(patch)}

    expr = ("Object{metadata: Object.metadata{labels: {'copied-tier': has(object.metadata.labels) && 'tier' in "
            "object.metadata.labels ? object.metadata.labels['tier'] : 'none'}}}")
    a = webhook(add_label)
    for policy, want in (("IfNeeded", "gold"), ("Never", "none")):
        api = _api(feature_gates="MutatingAdmissionPolicy=true",
                   runtime_config="admissionregistration.k8s.io/v1beta1=true")
        api.client().create("mutatingadmissionpolicies", {"metadata": {"name": "copy"}, "spec": {
            "matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""],
                                                    "apiVersions": ["v1"], "resources": ["configmaps"]}]},
            "reinvocationPolicy": policy,
            "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expr}}]}})
        api.client().create("mutatingadmissionpolicybindings", {"metadata": {"name": "copy"},
                                                                "spec": {"policyName": "copy"}})
        _configure(api, "mutating", _hook("tier.example.com", a.url, a.ca_bundle))
        cm = api.client().create("configmaps", _cm(), "default")
        assert cm["metadata"]["labels"] == {"tier": "gold", "copied-tier": want}, policy


def test_a_webhooks_warnings_reach_the_response_and_its_audit_annotations_are_recorded(webhook):
    # validating/dispatcher.go: auditAnnotations as "<webhook>/<key>", then warning.AddWarning for each warning,
    # before the verdict: a refusing webhook's warnings are returned too
    from kubenotes.apiserver.request import RESPONSE_WARNINGS

    s = webhook(lambda r: {"allowed": r["request"]["name"] != "bad", "warnings": ["colour is deprecated"],
                           "auditAnnotations": {"checked": "colour"}, "status": {"message": "no"}})
    api = _api()
    _configure(api, "validating", _hook("colour.example.com", s.url, s.ca_bundle))
    plugin = next(p for p in api.admission.plugins if p.name == "ValidatingAdmissionWebhook")
    for name in ("ok", "bad"):
        warnings: list[str] = []
        token = RESPONSE_WARNINGS.set(warnings)
        try:
            if name == "ok":
                api.client().create("configmaps", _cm(name), "default")
            else:
                with pytest.raises(ApiError):
                    api.client().create("configmaps", _cm(name), "default")
        finally:
            RESPONSE_WARNINGS.reset(token)
        assert warnings == ["colour is deprecated"]
    assert plugin.audit_annotations == [{"key": "colour.example.com/checked", "value": "colour"}] * 2


# ------------------------------------------ matchConditions errors (matchconditions/matcher.go, generic/webhook.go)

DOWN = "https://127.0.0.1:1/x"  # calling it would fail with a 500: each case shows whether the webhook was called
MISSING = "object.data.missing == 'x'"


@pytest.mark.parametrize("conditions,policy,want", [
    # a false condition skips the webhook even when another one fails to evaluate (evaluated in any order)
    ([MISSING, "false"], "Fail", None),
    (["false", MISSING], "Fail", None),
    # an error and no false: Fail refuses without calling the webhook, Ignore skips the webhook
    ([MISSING, "true"], "Fail",
     "configmaps \"c\" is forbidden: expression 'object.data.missing == 'x'' resulted in error: no such key: missing"),
    ([MISSING, "true"], "Ignore", None),
    # two errors are aggregated as Go's utilerrors.NewAggregate prints them
    ([MISSING, "object.data.other == 'y'"], "Fail",
     "configmaps \"c\" is forbidden: [expression 'object.data.missing == 'x'' resulted in error: no such key: missing,"
     " expression 'object.data.other == 'y'' resulted in error: no such key: other]"),
])
def test_match_condition_errors_follow_the_failure_policy(conditions, policy, want):
    api = _api()
    _configure(api, "validating", _hook("cond.example.com", DOWN, "", failurePolicy=policy, matchConditions=[
        {"name": f"c{i}", "expression": e} for i, e in enumerate(conditions)]))
    if want is None:
        assert api.client().create("configmaps", _cm(), "default")["metadata"]["name"] == "c"
        return
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", _cm(), "default")
    assert (e.value.code, e.value.status["reason"], str(e.value)) == (403, "Forbidden", want)


def test_match_conditions_are_validated_when_the_configuration_is_created():
    api = _api()
    for kind in ("validating", "mutating"):
        with pytest.raises(ApiError) as e:
            _configure(api, kind, _hook("cond.example.com", DOWN, "", matchConditions=[
                {"name": "p", "expression": "params.x == 1"},
                {"name": "v", "expression": "variables.x"},
                {"name": "p", "expression": "  "},
                {"name": "bad name!", "expression": "true"},
                {"expression": "object.metadata.name == 'x'"},
                {"name": "syntax", "expression": "object.x =="}]))
        assert e.value.code == 422
        msgs = [f'{c["field"]}: {c["message"]}' for c in e.value.status["details"]["causes"]]
        assert msgs[:5] == [
            "webhooks[0].matchConditions[0].expression: Invalid value: \"params.x == 1\": compilation failed: ERROR: "
            "<input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^",
            "webhooks[0].matchConditions[1].expression: Invalid value: \"variables.x\": compilation failed: ERROR: "
            "<input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.x\n | ^",
            "webhooks[0].matchConditions[2].expression: Required value",
            'webhooks[0].matchConditions[2].name: Duplicate value: "p"',
            "webhooks[0].matchConditions[3].name: Invalid value: \"bad name!\": name part must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ]
        assert msgs[5] == "webhooks[0].matchConditions[4].name: Required value"
        assert msgs[6] == ('webhooks[0].matchConditions[5].expression: Invalid value: "object.x ==": compilation '
                           "failed: ERROR: <input>:1:12: Syntax error: unexpected '<EOF>'\n | object.x ==\n"
                           " | ...........^")
        assert len(msgs) == 7
    with pytest.raises(ApiError) as e:
        _configure(api, "validating", _hook("many.example.com", DOWN, "", matchConditions=[
            {"name": f"c{i}", "expression": "true"} for i in range(65)]))
    assert [f'{c["field"]}: {c["message"]}' for c in e.value.status["details"]["causes"]] == [
        "webhooks[0].matchConditions: Too many: 65: must have at most 64 items"]
    # what a webhook's conditions may read: object, oldObject, request, namespaceObject (null: the matcher binds
    # none), authorizer; these hold, so the webhook is called (and is down: 500)
    _configure(api, "validating", _hook("ok.example.com", DOWN, "", matchConditions=[
        {"name": "ok", "expression": "object != null && oldObject == null && request.operation == 'CREATE' && "
                                     "namespaceObject == null && [1, 2].all(x, x > 0)"}]))
    with pytest.raises(ApiError) as e:
        api.client().create("configmaps", _cm(), "default")
    assert e.value.code == 500 and 'failed calling webhook "ok.example.com"' in str(e.value)


def test_a_webhook_configuration_is_validated_as_upstream_does_on_create():
    api = _api()
    bad = _hook("hook", "http://user@127.0.0.1:1/x?q=1#f", "", sideEffects="Some", timeoutSeconds=31,
                failurePolicy="Sometimes", admissionReviewVersions=["v2", "v2"],
                rules=[{"operations": ["PATCH"], "apiGroups": [], "apiVersions": ["v1"], "resources": ["pods"]}])
    with pytest.raises(ApiError) as e:
        _configure(api, "validating", bad, _hook("hook", DOWN, "", clientConfig={}))
    assert e.value.code == 422
    assert [f'{c["field"]}: {c["message"]}' for c in e.value.status["details"]["causes"]] == [
        'webhooks[0].name: Invalid value: "hook": should be a domain with at least three segments separated by dots',
        'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", '
        '"DELETE", "UPDATE"',
        "webhooks[0].rules[0].apiGroups: Required value",
        'webhooks[0].failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
        'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired '
        "format: https://host[/path]",
        'webhooks[0].clientConfig.url: Invalid value: "user": user information is not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
        'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
        'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
        'webhooks[0].admissionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
        'webhooks[1].name: Invalid value: "hook": should be a domain with at least three segments separated by dots',
        "webhooks[1].clientConfig: Required value: exactly one of url or service is required",
        'webhooks[1].name: Duplicate value: "hook"']
    with pytest.raises(ApiError) as e:
        _configure(api, "mutating", _hook("svc.example.com", DOWN, "", reinvocationPolicy="Always",
                                          admissionReviewVersions=[], sideEffects=None,
                                          clientConfig={"service": {"name": "s", "port": 0, "path": "/a//B"}}))
    assert [f'{c["field"]}: {c["message"]}' for c in e.value.status["details"]["causes"]] == [
        "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
        'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
        "webhooks[0].clientConfig.service.namespace: Required value: service namespace is required",
        "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, "
        "inclusive",
        'webhooks[0].clientConfig.service.path: Invalid value: "/a//B": segment[1] may not be empty',
        'webhooks[0].clientConfig.service.path: Invalid value: "/a//B": segment[2]: a lowercase RFC 1123 subdomain '
        "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"]
