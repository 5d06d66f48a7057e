"""The MutatingAdmissionWebhook and ValidatingAdmissionWebhook admission plugins: real webhooks over HTTP(S).

For each request, the plugins read the MutatingWebhookConfigurations (or
ValidatingWebhookConfigurations) in the store, in name order, and call every
webhook whose ``rules`` (operations, apiGroups, apiVersions, resources with
``/subresource`` and ``*``, scope), ``matchPolicy``, ``namespaceSelector`` and
``objectSelector`` match, by POSTing an ``admission.k8s.io/v1``
``AdmissionReview`` to its ``clientConfig`` (``url``, or a ``service``
resolved to ``https://<name>.<namespace>.svc:<port><path>`` unless a
resolver is given) with ``?timeout=<timeoutSeconds>s``, trusting
``caBundle``. An answer ``allowed: false`` refuses the request with
upstream's ``admission webhook "<name>" denied the request: <message>``; a
mutating webhook's ``JSONPatch`` is applied to the object; a webhook that
cannot be reached, times out or answers something that is not a valid
AdmissionReview is skipped under ``failurePolicy: Ignore`` and refuses the
request (500, ``failed calling webhook "<name>": ...``) under ``Fail`` (the
default). A dry-run request is refused by a webhook whose ``sideEffects`` is
not ``None``/``NoneOnDryRun``; ``reinvocationPolicy: IfNeeded`` calls a mutating
webhook once more when a later webhook (or a MutatingAdmissionPolicy reinvoked
because a webhook changed the object) changed the object.

Notes
-----
Simplified against upstream: validating webhooks are called one after the
other (upstream calls them in parallel; the first refusal wins either way);
``matchConditions`` are evaluated with the CEL subset of
:mod:`kubenotes.apiserver.admission.cel` (a false one skips the webhook; an
evaluation error and no false one refuses the request, 403, under
``failurePolicy: Fail`` and skips the webhook under ``Ignore``); response ``warnings`` become
``Warning`` headers of the response and ``auditAnnotations`` are recorded in
``audit_annotations`` as ``<webhook name>/<key>`` (the model keeps no audit
log); the object is not converted for a
webhook matched through ``matchPolicy: Equivalent`` except where the model
has a conversion (autoscaling, events, a CRD's versions). The call happens
under the API server's lock: a webhook that calls back into the same API
server waits for its own timeout.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go (ShouldCallHook)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions/matcher.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/mutating/dispatcher.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/errors/statuserror.go (ToStatusErr)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/request/admissionreview.go
https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/
"""

from __future__ import annotations

import base64
import json
import random
import socket
import ssl
import urllib.error
import urllib.request
import uuid
from typing import Any, Callable
from urllib.parse import urlsplit

from kubenotes.api.selectors import LabelSelector
from kubenotes.apiserver.admission.interfaces import CONNECT, CREATE, DELETE, UPDATE, Plugin, forbidden
from kubenotes.apiserver.patch import json_patch
from kubenotes.apiserver.request import Attributes, add_warning
from kubenotes.apiserver.resources import storage_resource
from kubenotes.errors import KubenotesError, aggregate_error_message
from kubenotes.apiserver.status import ApiError, _status, new_bad_request, new_internal_error
from kubenotes.apiserver.store import deep_copy

__all__ = ["MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "ADMISSION_REVIEW_VERSION",
           "DEFAULT_TIMEOUT_SECONDS", "matches_rule", "admission_review", "denied"]

#: ``admission.k8s.io/v1``: the only AdmissionReview version the model sends (``admissionReviewVersions``).
ADMISSION_REVIEW_VERSION = "admission.k8s.io/v1"
#: ``timeoutSeconds`` default of admissionregistration.k8s.io/v1 webhooks.
DEFAULT_TIMEOUT_SECONDS = 10
_NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")
_OPTIONS_KIND = {CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions"}


def _split(res: str) -> tuple[str, str]:
    r, _, sub = res.partition("/")
    return r, sub


def matches_rule(rule: dict, attrs: Attributes, group: str, version: str, resource: str) -> bool:
    """``rules.Matcher.Matches``: operations, groups, versions, ``resource/subresource`` and scope.

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> a = Attributes(UserInfo("u"), "create", resource_for("pods"), "", "default", "web")
    >>> rule = {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
    >>> matches_rule(rule, a, "", "v1", "pods")
    True
    >>> matches_rule({**rule, "resources": ["pods/status"]}, a, "", "v1", "pods")
    False
    >>> matches_rule({**rule, "resources": ["*"], "scope": "Cluster"}, a, "", "v1", "pods")
    False
    """
    ops = rule.get("operations") or ()
    if "*" not in ops and attrs.operation not in ops:
        return False
    groups, versions = rule.get("apiGroups") or (), rule.get("apiVersions") or ()
    if "*" not in groups and group not in groups:
        return False
    if "*" not in versions and version not in versions:
        return False
    sub = attrs.subresource
    if not any((r == "*" or r == resource) and (s == "*" or s == sub)
               for r, s in (_split(x) for x in rule.get("resources") or ())):
        return False
    scope = rule.get("scope") or "*"
    is_namespace = group == "" and resource == "namespaces"
    if scope == "Namespaced":
        return not is_namespace and bool(attrs.namespace)
    if scope == "Cluster":
        return is_namespace or not attrs.namespace
    return True


def _selector_matches(sel: Any, labels: dict) -> bool:
    if sel is None:
        return True
    return LabelSelector.from_api(sel).matches(labels or {})


def _labels(o: dict | None) -> dict:
    return ((o or {}).get("metadata") or {}).get("labels") or {}


def admission_review(uid: str, attrs: Attributes, obj: dict | None, old: dict | None,
                     matched: tuple[str, str, str] | None = None) -> dict:
    """The ``AdmissionReview`` request a webhook receives for this request.

    ``matched`` is the (group, version, resource) the webhook's rule matched,
    when that differs from the request's (``matchPolicy: Equivalent``).

    Examples
    --------
    >>> from kubenotes.apiserver.request import UserInfo
    >>> from kubenotes.apiserver.resources import resource_for
    >>> a = Attributes(UserInfo("alice", groups=("dev",)), "create", resource_for("configmaps"), "", "default", "c")
    >>> r = admission_review("1", a, {"metadata": {"name": "c"}}, None)["request"]
    >>> r["kind"], r["operation"], r["oldObject"], r["options"]["kind"]
    ({'group': '', 'version': 'v1', 'kind': 'ConfigMap'}, 'CREATE', None, 'CreateOptions')
    >>> r["userInfo"]
    {'username': 'alice', 'groups': ['dev']}
    """
    ri = attrs.resource
    g, v, res = matched or (ri.group, ri.version, ri.resource)
    op = attrs.operation
    name = attrs.name or ((obj or old or {}).get("metadata") or {}).get("name", "")
    user: dict[str, Any] = {"username": attrs.user.name}
    if attrs.user.uid:
        user["uid"] = attrs.user.uid
    if attrs.user.groups:
        user["groups"] = list(attrs.user.groups)
    req: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": g, "version": v, "kind": ri.kind},
        "resource": {"group": g, "version": v, "resource": res},
        "requestKind": {"group": ri.group, "version": ri.version, "kind": ri.kind},
        "requestResource": {"group": ri.group, "version": ri.version, "resource": ri.resource},
        "name": name,
        "operation": op,
        "userInfo": user,
        "object": obj,
        "oldObject": old,
        "dryRun": bool(attrs.dry_run),
    }
    if attrs.subresource:
        req["subResource"] = req["requestSubResource"] = attrs.subresource
    if attrs.namespace:
        req["namespace"] = attrs.namespace
    if op in _OPTIONS_KIND:
        opts = {"kind": _OPTIONS_KIND[op], "apiVersion": "meta.k8s.io/v1"}
        if op != DELETE and attrs.extra.get("fieldManager"):
            opts["fieldManager"] = attrs.extra["fieldManager"]
        req["options"] = opts
    return {"apiVersion": ADMISSION_REVIEW_VERSION, "kind": "AdmissionReview", "request": req}


def denied(webhook: str, status: dict | None) -> ApiError:
    """``webhookerrors.ToStatusErr``: a refusal, at least 400, worded ``admission webhook "x" denied the request``.

    Examples
    --------
    >>> str(denied("deny.example.com", {"message": "no red widgets", "code": 403}))
    'admission webhook "deny.example.com" denied the request: no red widgets'
    >>> e = denied("deny.example.com", None); e.code, str(e)
    (400, 'admission webhook "deny.example.com" denied the request without explanation')
    """
    st = dict(status or {})
    by = f'admission webhook "{webhook}" denied the request'
    code = int(st.get("code") or 0)
    if code < 400:
        code = 400
    if st.get("message"):
        msg = f'{by}: {st["message"]}'
    elif st.get("reason"):
        msg = f'{by}: {st["reason"]}'
    else:
        msg = f"{by} without explanation"
    out = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": msg,
           "code": code}
    if st.get("reason"):
        out["reason"] = st["reason"]
    if st.get("details"):
        out["details"] = st["details"]
    return ApiError(out)


class _CallError(KubenotesError):
    """``webhookutil.ErrCallingWebhook``'s reason (raised and caught inside the webhook plugins)."""


class _Webhooks(Plugin):
    """What both plugins share: reading configurations, matching, calling."""

    operations = frozenset({CREATE, UPDATE, DELETE, CONNECT})
    config_resource = ""
    mutating = False

    def __init__(self, seed: int = 0, service_resolver: Callable[[str, str, int, str], str] | None = None):
        self._rng = random.Random(f"{seed}/{self.name}")
        #: ``(namespace, name, port, path) -> URL`` for ``clientConfig.service`` (upstream's ServiceResolver).
        self.service_resolver = service_resolver
        #: Every call made: ``{"webhook", "url", "uid", "allowed", "patched", "error"}`` (newest last).
        self.calls: list[dict] = []
        #: Every ``auditAnnotations`` entry a webhook answered: ``{"key": "<webhook name>/<key>", "value"}``
        #: (upstream adds them to the request's audit event; the model keeps no audit log).
        self.audit_annotations: list[dict] = []

    def idle(self, reader: Any) -> bool:
        """No configuration exists: the plugin has nothing to do (the request trace leaves it out)."""
        return not reader.list(self.config_resource)

    def _hooks(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> list[tuple[dict, tuple]]:
        ri = attrs.resource
        if ri.group == "admissionregistration.k8s.io" and ri.resource.endswith("webhookconfigurations"):
            return []  # webhooks are never called for webhook configurations
        configs = sorted(reader.list(self.config_resource), key=lambda c: c["metadata"]["name"])
        out = []
        for cfg in configs:
            for hook in cfg.get("webhooks") or ():
                matched = self._matched(hook, attrs)
                if matched is None:
                    continue
                if not self._selectors_match(hook, attrs, obj, old, reader):
                    continue
                if hook.get("matchConditions") and not self._conditions_hold(hook, attrs, obj, old):
                    continue
                out.append((hook, matched))
        return out

    @staticmethod
    def _matched(hook: dict, attrs: Attributes) -> tuple | None:
        ri = attrs.resource
        own = (ri.group, ri.version, ri.resource)
        for rule in hook.get("rules") or ():
            if matches_rule(rule, attrs, *own):
                return own
        if (hook.get("matchPolicy") or "Equivalent") != "Equivalent":
            return None
        sri = storage_resource(ri)  # another served version of the same data
        if sri is not ri:
            for rule in hook.get("rules") or ():
                if matches_rule(rule, attrs, sri.group, sri.version, sri.resource):
                    return sri.group, sri.version, sri.resource
        return None

    @staticmethod
    def _selectors_match(hook: dict, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> bool:
        ri = attrs.resource
        ns_sel = hook.get("namespaceSelector")
        if ns_sel is not None:
            if ri.group == "" and ri.resource == "namespaces":
                labels = _labels(obj) or _labels(old)
            elif ri.namespaced and attrs.namespace:
                ns = reader.get("namespaces", None, attrs.namespace)
                labels = _labels(ns)
            else:
                labels = None  # cluster-scoped: the namespace selector does not apply
            if labels is not None and not _selector_matches(ns_sel, labels):
                return False
        obj_sel = hook.get("objectSelector")
        if obj_sel is not None:
            if not (_selector_matches(obj_sel, _labels(obj)) if obj is not None else False) and \
                    not (_selector_matches(obj_sel, _labels(old)) if old is not None else False):
                return False
        return True

    @staticmethod
    def _conditions_hold(hook: dict, attrs: Attributes, obj: dict | None, old: dict | None) -> bool:
        """``matchConditions`` (``matchconditions.matcher.Match``): the webhook is called when none is false.

        Every condition is evaluated: one ``false`` skips the webhook even when another failed; otherwise
        an evaluation error skips it under ``failurePolicy: Ignore`` and refuses the request (403, the
        errors aggregated) under ``Fail``. Each expression runs under ``PerCallLimit`` (``operation cancelled:
        actual cost limit exceeded`` is its error) and all share ``RuntimeCELCostBudgetMatchConditions``; a
        spent budget stops the evaluation and is the one error, handled per ``failurePolicy`` the same way.
        """
        from kubenotes.apiserver.admission.cel import (MATCH_CONDITIONS_COST_BUDGET, CELError, CostBudget,
                                                       OutOfBudget)

        env = {"object": obj, "oldObject": old, "request": admission_review("", attrs, obj, old)["request"],
               "namespaceObject": None}  # declared upstream, but the matcher binds no namespace
        errors: list[str] = []
        from kubenotes.apiserver.apiextensions.celcost import PER_CALL_LIMIT

        budget = CostBudget(MATCH_CONDITIONS_COST_BUDGET, PER_CALL_LIMIT)  # one per webhook
        for cond in hook["matchConditions"]:
            expr = cond.get("expression", "")
            try:
                if budget.evaluate(expr, env) is False:
                    return False
            except OutOfBudget as e:  # the filter's own error: no further condition is evaluated
                errors = [str(e)]
                break
            except CELError as e:
                errors.append(f"expression '{expr}' resulted in error: {e}")
        if not errors:
            return True
        if (hook.get("failurePolicy") or "Fail") == "Ignore":
            return False
        raise forbidden(attrs, obj, aggregate_error_message(errors))

    def _url(self, hook: dict) -> str:
        cc = hook.get("clientConfig") or {}
        if cc.get("url"):
            url = cc["url"]
        else:
            svc = cc.get("service") or {}
            port, path = int(svc.get("port") or 443), svc.get("path") or ""
            if self.service_resolver is not None:
                url = self.service_resolver(svc.get("namespace", ""), svc.get("name", ""), port, path)
            else:
                url = f'https://{svc.get("name", "")}.{svc.get("namespace", "")}.svc:{port}{path}'
        timeout = int(hook.get("timeoutSeconds") or DEFAULT_TIMEOUT_SECONDS)
        return url + ("&" if "?" in url else "?") + f"timeout={timeout}s"

    def _call(self, hook: dict, review: dict) -> dict:
        """POST ``review``; returns the webhook's ``response``. Raises :class:`_CallError` (the reason)."""
        url = self._url(hook)
        timeout = int(hook.get("timeoutSeconds") or DEFAULT_TIMEOUT_SECONDS)
        ctx = None
        if url.startswith("https:"):
            ca = (hook.get("clientConfig") or {}).get("caBundle")
            ctx = ssl.create_default_context(cadata=base64.b64decode(ca).decode()) if ca else \
                ssl.create_default_context()
        req = urllib.request.Request(url, data=json.dumps(review).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "application/json"})
        post = f'Post "{url}"'
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=ctx) as r:  # noqa: S310 - a webhook's URL
                body = r.read()
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace").strip()
            if e.code == 404:
                raise _CallError("failed to call webhook: the server could not find the requested resource") \
                    from None
            raise _CallError(f'failed to call webhook: an error on the server ("{text}") has prevented the '
                             f"request from succeeding") from None
        except (TimeoutError, socket.timeout):
            raise _CallError(f"failed to call webhook: {post}: context deadline exceeded") from None
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise _CallError(f"failed to call webhook: {post}: context deadline exceeded") from None
            if isinstance(reason, ConnectionRefusedError):
                host = urlsplit(url).netloc
                raise _CallError(f"failed to call webhook: {post}: dial tcp {host}: connect: connection refused") \
                    from None
            if isinstance(reason, ssl.SSLError):
                raise _CallError(f"failed to call webhook: {post}: tls: failed to verify certificate: {reason}") \
                    from None
            raise _CallError(f"failed to call webhook: {post}: {reason}") from None
        except OSError as e:
            raise _CallError(f"failed to call webhook: {post}: {e}") from None
        try:
            answer = json.loads(body)
        except ValueError as e:
            raise _CallError(f"failed to call webhook: couldn't get version/kind; json parse error: {e}") from None
        if not isinstance(answer, dict) or (answer.get("apiVersion"), answer.get("kind")) != (
                ADMISSION_REVIEW_VERSION, "AdmissionReview"):
            got = f'{(answer or {}).get("apiVersion", "") if isinstance(answer, dict) else ""}, Kind=' \
                  f'{(answer or {}).get("kind", "") if isinstance(answer, dict) else ""}'
            raise _CallError("received invalid webhook response: expected webhook response of "
                             f"admission.k8s.io/v1, Kind=AdmissionReview, got {got}")
        resp = answer.get("response")
        if not isinstance(resp, dict):
            raise _CallError("received invalid webhook response: webhook response was absent")
        want = review["request"]["uid"]
        if resp.get("uid") != want:
            raise _CallError(f'received invalid webhook response: expected response.uid="{want}", got '
                             f'"{resp.get("uid", "")}"')
        if resp.get("patch") is not None:
            if self.mutating is False:
                raise _CallError("received invalid webhook response: validating webhook may not return "
                                 "response.patch")
            if not resp.get("patchType"):
                raise _CallError("received invalid webhook response: webhook returned response.patch but not "
                                 "response.patchType")
            if resp["patchType"] != "JSONPatch":
                raise _CallError(f'received invalid webhook response: webhook returned invalid response.patchType '
                                 f'of "{resp["patchType"]}"')
        return resp

    def _run(self, hook: dict, matched: tuple, attrs: Attributes, obj: dict | None, old: dict | None) -> dict | None:
        """Call one webhook; returns its response, or None when it failed open (``failurePolicy: Ignore``)."""
        name = hook.get("name", "")
        if attrs.dry_run and hook.get("sideEffects") not in _NO_SIDE_EFFECTS:
            raise new_bad_request(f'admission webhook "{name}" does not support dry run')
        uid = str(uuid.UUID(int=self._rng.getrandbits(128), version=4))
        review = admission_review(uid, attrs, deep_copy(obj), deep_copy(old), matched)
        record = {"webhook": name, "url": "", "uid": uid, "allowed": None, "patched": False, "error": ""}
        self.calls.append(record)
        try:
            record["url"] = self._url(hook)
            resp = self._call(hook, review)
        except _CallError as e:
            record["error"] = str(e)
            if (hook.get("failurePolicy") or "Fail") == "Ignore":
                return None
            raise new_internal_error(f'failed calling webhook "{name}": {e}') from None
        record["allowed"] = bool(resp.get("allowed"))
        # as the dispatchers do before looking at the verdict: audit annotations under "<webhook>/<key>", warnings
        # added to the response being built (warning.AddWarning), whether the webhook allowed the request or not
        for key, value in sorted((resp.get("auditAnnotations") or {}).items()):
            self.audit_annotations.append({"key": f"{name}/{key}", "value": str(value)})
        for w in resp.get("warnings") or ():
            if isinstance(w, str) and w.strip():
                add_warning(w)
        if not resp.get("allowed"):
            raise denied(name, resp.get("status"))
        return resp


class MutatingAdmissionWebhook(_Webhooks):
    """Calls the MutatingWebhookConfigurations' webhooks in the mutating phase and applies their JSON patches.

    Parameters
    ----------
    seed : int
        Seeds the AdmissionReview uids.
    service_resolver : callable(namespace, name, port, path) -> str, optional
        Where a ``clientConfig.service`` is reached (default: its cluster DNS name over HTTPS).

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> from kubenotes.apiserver.admission import AdmissionChain
    >>> api = APIServer(admission=AdmissionChain([MutatingAdmissionWebhook()]))
    >>> _ = api.client().create("mutatingwebhookconfigurations", {"metadata": {"name": "m"}, "webhooks": [
    ...     {"name": "down.example.com", "clientConfig": {"url": "https://127.0.0.1:1/mutate"}, "sideEffects": "None",
    ...      "admissionReviewVersions": ["v1"], "rules": [{"operations": ["CREATE"], "apiGroups": [""],
    ...      "apiVersions": ["v1"], "resources": ["configmaps"]}]}]})
    >>> try:
    ...     api.client().create("configmaps", {"metadata": {"name": "c"}}, "default")
    ... except Exception as e:
    ...     print(e.code, *str(e).split(": "), sep=" | ")
    500 | Internal error occurred | failed calling webhook "down.example.com" | failed to call webhook | Post \
"https://127.0.0.1:1/mutate?timeout=10s" | dial tcp 127.0.0.1:1 | connect | connection refused
    """

    name = "MutatingAdmissionWebhook"
    config_resource = "mutatingwebhookconfigurations.admissionregistration.k8s.io"
    mutating = True

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        hooks = self._hooks(attrs, obj, old, reader)
        if not hooks:
            return
        before = deep_copy(obj) if obj is not None else None
        after: dict[int, Any] = {}  # IfNeeded webhooks: the object right after each one ran
        for i, (hook, matched) in enumerate(hooks):
            self._mutate(hook, matched, attrs, obj, old)
            if hook.get("reinvocationPolicy") == "IfNeeded" and obj is not None:
                after[i] = deep_copy(obj)
        reinvoke_policies = attrs.extra.get("reinvocation/MutatingAdmissionPolicy")
        if reinvoke_policies is not None and obj is not None and obj != before:
            reinvoke_policies(obj)  # IfNeeded MutatingAdmissionPolicies run again after a webhook's change
        for i, snap in after.items():  # reinvoked once if a later webhook (or policy) changed the object
            if obj != snap:
                hook, matched = hooks[i]
                self._mutate(hook, matched, attrs, obj, old)

    def _mutate(self, hook: dict, matched: tuple, attrs: Attributes, obj: dict | None, old: dict | None) -> None:
        resp = self._run(hook, matched, attrs, obj, old)
        if resp is None or not resp.get("patch") or obj is None:
            return
        try:
            ops = json.loads(base64.b64decode(resp["patch"]))
            patched = json_patch(obj, ops)
        except (ValueError, ApiError) as e:
            raise new_internal_error(f'failed calling webhook "{hook.get("name", "")}": received invalid '
                                     f"webhook response: {e}") from None
        if not isinstance(patched, dict):
            raise _status(500, "InternalError", "Internal error occurred: the patched object is not an object", {})
        obj.clear()
        obj.update(patched)
        self.calls[-1]["patched"] = True


class ValidatingAdmissionWebhook(_Webhooks):
    """Calls the ValidatingWebhookConfigurations' webhooks in the validating phase; any refusal refuses.

    Parameters
    ----------
    seed : int
    service_resolver : callable(namespace, name, port, path) -> str, optional
    """

    name = "ValidatingAdmissionWebhook"
    config_resource = "validatingwebhookconfigurations.admissionregistration.k8s.io"

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        for hook, matched in self._hooks(attrs, obj, old, reader):
            self._run(hook, matched, attrs, obj, old)
