"""The ValidatingAdmissionPolicy admission plugin: CEL validations bound to resources (GA since v1.30).

For each ValidatingAdmissionPolicyBinding, in name order, whose policy
exists, the plugin matches the request against the policy's
``matchConstraints`` (``resourceRules``, ``excludeResourceRules``,
``namespaceSelector``, ``objectSelector``, ``matchPolicy``) and the
binding's ``matchResources``, evaluates the policy's ``matchConditions``
(all must hold), its ``variables`` and then each ``validations[*].expression``
with ``object``, ``oldObject``, ``request``, ``params`` (the binding's
``paramRef`` object by name, when the policy has a ``paramKind``),
``namespaceObject`` and ``variables``. A validation that is false is acted on
with the binding's ``validationActions``: ``Deny`` refuses with upstream's
``<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with
binding '<b>' denied request: <message>`` (code from ``reason``: Invalid 422,
Forbidden 403...), ``Warn`` returns a ``Warning``, ``Audit`` is only recorded.
An expression that fails to evaluate follows the policy's ``failurePolicy``.

Notes
-----
The CEL is the subset of :mod:`kubenotes.apiserver.admission.cel` (no type
checking, so a policy's ``status.typeChecking`` stays empty, no cost limits,
no Kubernetes CEL libraries); ``messageExpression`` is evaluated with the
same subset; ``auditAnnotations`` are recorded in
:attr:`ValidatingAdmissionPolicy.audit_annotations` (the model keeps no audit
events). ``variables`` are evaluated when first used; ``paramRef`` takes a
``name`` or a ``selector`` (one evaluation per param object). The mutating
policies are in :mod:`.mutatingadmissionpolicy`.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go
https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
"""

from __future__ import annotations

from typing import Any

from kubenotes.apiserver.admission.cel import (MATCH_CONDITIONS_COST_BUDGET, CELError, CostBudget, OutOfBudget,
                                               evaluate)
from kubenotes.apiserver.admission.interfaces import CONNECT, CREATE, DELETE, UPDATE, Plugin, forbidden
from kubenotes.apiserver.admission.webhook import _labels, _selector_matches, _Webhooks, matches_rule
from kubenotes.apiserver.request import Attributes
from kubenotes.errors import KubenotesError

__all__ = ["ValidatingAdmissionPolicy", "REASON_CODES", "ParamError", "collect_params", "lazy_variables"]

#: ``reasonToCode``: the HTTP code of a denial's ``reason``.
REASON_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}
_POLICIES = "validatingadmissionpolicies.admissionregistration.k8s.io"
_BINDINGS = "validatingadmissionpolicybindings.admissionregistration.k8s.io"


def _matches(constraints: dict | None, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> bool:
    """``matching.Matcher``: resource rules (minus the excluded), then the namespace and object selectors."""
    if not constraints:
        return True
    ri = attrs.resource
    rules = constraints.get("resourceRules")
    hook = {"rules": rules, "matchPolicy": constraints.get("matchPolicy") or "Equivalent"}
    if rules is not None and _Webhooks._matched(hook, attrs) is None:
        return False
    for rule in constraints.get("excludeResourceRules") or ():
        if matches_rule(rule, attrs, ri.group, ri.version, ri.resource):
            return False
    sel = {"namespaceSelector": constraints.get("namespaceSelector"),
           "objectSelector": constraints.get("objectSelector")}
    return _Webhooks._selectors_match(sel, attrs, obj, old, reader)


class ParamError(KubenotesError):
    """A binding's params cannot be collected (upstream's ``collectParams`` errors); the policy's failurePolicy applies."""


def collect_params(param_kind: dict | None, param_ref: dict | None, namespace: str, reader: Any) -> list[Any]:
    """``CollectParams``: the param objects a binding evaluates its policy with, one invocation each.

    Parameters
    ----------
    param_kind : dict or None
        The policy's ``paramKind`` (``apiVersion``, ``kind``).
    param_ref : dict or None
        The binding's ``paramRef`` (``name`` or ``selector``, ``namespace``, ``parameterNotFoundAction``).
    namespace : str
        The request's namespace (the params' namespace when ``paramRef.namespace`` is empty).
    reader : object with ``get`` and ``list``
        The API server's store reader.

    Returns
    -------
    list
        ``[None]`` without a ``paramKind`` or ``paramRef``; else the objects found (maybe none).

    Raises
    ------
    ParamError
        Upstream's texts: ``paramKind kind `...` not known``, ``cannot use namespaced paramRef in policy
        binding that matches cluster-scoped resources``, ``no params found for policy binding with `Deny`
        parameterNotFoundAction``.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go (CollectParams)

    Examples
    --------
    >>> collect_params(None, {"name": "x"}, "default", None)
    [None]
    """
    from kubenotes.apiserver.resources import resource_for_kind

    if not param_kind or not param_ref:
        return [None]
    api_version, kind = param_kind.get("apiVersion", ""), param_kind.get("kind", "")
    gv = api_version.split("/")
    described = f"{'/'.join(gv[:-1]) + ', ' if len(gv) > 1 else ', '}Version={gv[-1]}, Kind={kind}"
    try:
        ri = resource_for_kind(kind, api_version)
    except Exception:  # noqa: BLE001 - an unknown kind
        ri = getattr(getattr(reader, "crds", None), "for_kind", lambda *_: None)(api_version, kind)
    if ri is None:
        raise ParamError(f"paramKind kind `{described}` not known")
    ns = None
    if ri.namespaced:
        ns = param_ref.get("namespace") or namespace
        if not ns:
            raise ParamError("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
    elif param_ref.get("namespace"):
        raise ParamError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
    if param_ref.get("name"):
        try:
            found = reader.get(ri.resource if not ri.group else f"{ri.resource}.{ri.group}", ns, param_ref["name"])
        except Exception:  # noqa: BLE001 - not found
            found = None
        params = [found] if found is not None else []
    else:
        sel = param_ref.get("selector") or {}
        res = ri.resource if not ri.group else f"{ri.resource}.{ri.group}"
        params = [o for o in reader.list(res, ns) if _selector_matches(sel, _labels(o))]
    if not params and param_ref.get("parameterNotFoundAction") == "Deny":
        raise ParamError("no params found for policy binding with `Deny` parameterNotFoundAction")
    return params


class _LazyVariables(dict):
    """``variables``: each evaluated when first read (an unused variable's error does not count), as upstream."""

    def __init__(self, variables: list[dict], env: dict):
        super().__init__()
        self._exprs = {v.get("name", ""): v.get("expression", "") for v in variables}
        self._env = env

    def __contains__(self, key: object) -> bool:
        return key in self._exprs

    def __missing__(self, key: str) -> Any:
        if key not in self._exprs:
            raise KeyError(key)
        value = self[key] = evaluate(self._exprs[key], self._env)
        return value


def lazy_variables(variables: Any, env: dict) -> dict:
    """The ``variables`` map of a CEL environment: a policy's ``spec.variables``, evaluated lazily.

    Examples
    --------
    >>> env = {"object": {"a": 1}}
    >>> env["variables"] = lazy_variables([{"name": "x", "expression": "object.a + 1"},
    ...                                    {"name": "broken", "expression": "object.missing"}], env)
    >>> evaluate("variables.x * 10", env)
    20
    """
    return _LazyVariables(list(variables or ()), env)


def _request(attrs: Attributes, obj: dict | None, old: dict | None) -> dict:
    from kubenotes.apiserver.admission.webhook import admission_review

    return admission_review("", attrs, obj, old)["request"]


class ValidatingAdmissionPolicy(Plugin):
    """Evaluates the bound ValidatingAdmissionPolicies in the validating phase.

    Attributes
    ----------
    audit : list of dict
        Every failed validation whose action included ``Audit``:
        ``{"policy", "binding", "message"}``.
    warnings : list of str
        The ``Warn`` messages of the request being validated (also sent to the client when served).
    audit_annotations : list of dict
        Every ``auditAnnotations`` value recorded: ``{"key": "<policy>/<key>", "value"}`` (upstream adds
        them to the request's audit event; a ``null`` value is left out).

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> from kubenotes.apiserver.admission import AdmissionChain
    >>> api = APIServer(admission=AdmissionChain([ValidatingAdmissionPolicy()]))
    >>> c = api.client()
    >>> _ = c.create("validatingadmissionpolicies", {"metadata": {"name": "small-configmaps"}, "spec": {
    ...     "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
    ...                          "operations": ["CREATE", "UPDATE"], "resources": ["configmaps"]}]},
    ...     "validations": [{"expression": "!has(object.data) || size(object.data) <= 1"}]}})
    >>> _ = c.create("validatingadmissionpolicybindings", {"metadata": {"name": "small-configmaps-all"},
    ...     "spec": {"policyName": "small-configmaps", "validationActions": ["Deny"]}})
    >>> try:
    ...     c.create("configmaps", {"metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}}, "default")
    ... except Exception as e:
    ...     print(e.code, e.status["reason"], *str(e).split(": "), sep=" | ")
    422 | Invalid | configmaps "c" is forbidden | ValidatingAdmissionPolicy 'small-configmaps' with binding \
'small-configmaps-all' denied request | failed expression | !has(object.data) || size(object.data) <= 1
    """

    name = "ValidatingAdmissionPolicy"
    operations = frozenset({CREATE, UPDATE, DELETE, CONNECT})

    def __init__(self) -> None:
        self.audit: list[dict] = []
        self.warnings: list[str] = []
        self.audit_annotations: list[dict] = []

    def idle(self, reader: Any) -> bool:
        """No binding exists: nothing to evaluate (request traces leave the plugin out)."""
        return not reader.list(_BINDINGS)

    def validate(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        bindings = reader.list(_BINDINGS)
        if not bindings:
            return
        self.warnings = []
        policies = {p["metadata"]["name"]: p for p in reader.list(_POLICIES)}
        for b in sorted(bindings, key=lambda x: x["metadata"]["name"]):
            bspec = b.get("spec") or {}
            pol = policies.get(bspec.get("policyName", ""))
            if pol is None:
                continue
            spec = pol.get("spec") or {}
            if not _matches(spec.get("matchConstraints"), attrs, obj, old, reader):
                continue
            if bspec.get("matchResources") and not _matches(bspec["matchResources"], attrs, obj, old, reader):
                continue
            self._check(pol, b, attrs, obj, old, reader)
        if self.warnings:
            from kubenotes.apiserver.server import _warn

            _warn(self.warnings)

    def _check(self, pol: dict, binding: dict, attrs: Attributes, obj: dict | None, old: dict | None,
               reader: Any) -> None:
        spec, bspec = pol.get("spec") or {}, binding.get("spec") or {}
        pname, bname = pol["metadata"]["name"], binding["metadata"]["name"]
        ns = reader.get("namespaces", None, attrs.namespace) if attrs.namespace else None
        actions = bspec.get("validationActions") or ["Deny"]
        fail = (spec.get("failurePolicy") or "Fail") == "Fail"
        try:
            params = collect_params(spec.get("paramKind"), bspec.get("paramRef"), attrs.namespace, reader)
        except ParamError as e:
            if fail:
                self._deny(attrs, obj, pname, bname, f"failed to configure binding: {e}", "Invalid", actions)
            return
        for param in params:  # one evaluation per param object (paramRef.selector may select several)
            env: dict[str, Any] = {"object": obj, "oldObject": old, "request": _request(attrs, obj, old),
                                   "namespaceObject": ns, "params": param}
            env["variables"] = lazy_variables(spec.get("variables") or (), env)
            self._validations(spec, env, attrs, obj, pname, bname, actions, fail)

    def _validations(self, spec: dict, env: dict, attrs: Attributes, obj: dict | None, pname: str, bname: str,
                     actions: list[str], fail: bool) -> None:
        """One evaluation of a binding (``validator.Validate``), under upstream's runtime cost limits.

        Every expression runs under ``PerCallLimit`` (passing it is that expression's error, ``operation
        cancelled: actual cost limit exceeded``); the ``matchConditions`` share
        :data:`~kubenotes.apiserver.admission.cel.MATCH_CONDITIONS_COST_BUDGET`, the audit annotations one
        ``RuntimeCELCostBudget`` and the validations with their ``messageExpression`` another. A spent budget
        stops the rest and is one error under ``failurePolicy`` (denied under ``Fail``, ignored under
        ``Ignore``), as other evaluation errors are.
        """
        from kubenotes.apiserver.apiextensions.celcost import PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET

        budget = CostBudget(MATCH_CONDITIONS_COST_BUDGET, PER_CALL_LIMIT)
        try:
            for cond in spec.get("matchConditions") or ():
                if budget.evaluate(cond.get("expression", ""), env) is not True:
                    return
        except CELError as e:
            if fail:
                self._deny(attrs, obj, pname, bname, f"{e}", "Invalid", actions)
            return
        budget = CostBudget(RUNTIME_CEL_COST_BUDGET, PER_CALL_LIMIT)
        for a in spec.get("auditAnnotations") or ():
            expr = a.get("valueExpression", "")
            try:
                value = budget.evaluate(expr, env)
            except OutOfBudget as e:
                if fail:
                    self._deny(attrs, obj, pname, bname, f"{e}", "Invalid", actions)
                break
            except CELError as e:
                if fail:
                    self._deny(attrs, obj, pname, bname, f"expression '{expr}' resulted in error: {e}", "Invalid",
                               actions)
                continue
            if value is not None:
                self.audit_annotations.append({"key": f"{pname}/{a.get('key', '')}", "value": value})
        budget = CostBudget(RUNTIME_CEL_COST_BUDGET, PER_CALL_LIMIT)
        for v in spec.get("validations") or ():
            expr = v.get("expression", "")
            try:
                ok = budget.evaluate(expr, env)
            except OutOfBudget as e:
                if fail:
                    self._deny(attrs, obj, pname, bname, f"{e}", "Invalid", actions)
                return
            except CELError as e:
                if fail:
                    self._deny(attrs, obj, pname, bname, f"expression '{expr}' resulted in error: {e}",
                               v.get("reason") or "Invalid", actions)
                continue
            if ok is True:
                continue
            msg = v.get("message") or ""
            if v.get("messageExpression"):
                try:
                    out = budget.evaluate(v["messageExpression"], env)
                    if isinstance(out, str) and out.strip():
                        msg = out
                except CELError:
                    pass
            self._deny(attrs, obj, pname, bname, msg or f"failed expression: {expr}", v.get("reason") or "Invalid",
                       actions)

    def _deny(self, attrs: Attributes, obj: dict | None, pname: str, bname: str, message: str, reason: str,
              actions: list[str]) -> None:
        if "Audit" in actions:
            self.audit.append({"policy": pname, "binding": bname, "message": message})
        if "Warn" in actions:
            self.warnings.append(f"Validation failed for ValidatingAdmissionPolicy '{pname}' with binding "
                                 f"'{bname}': {message}")
        if "Deny" in actions:
            text = f"ValidatingAdmissionPolicy '{pname}' with binding '{bname}' denied request: {message}"
            err = forbidden(attrs, obj, text)
            err.status["reason"] = reason
            err.status["code"] = REASON_CODES.get(reason, 422)
            err.status.setdefault("details", {}).setdefault("causes", []).append({"message": text})
            raise err
