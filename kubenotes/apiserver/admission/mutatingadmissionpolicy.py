"""The MutatingAdmissionPolicy admission plugin: CEL mutations bound to resources (beta in v1.34, off by default).

kube-apiserver v1.34 serves admissionregistration.k8s.io/v1beta1
MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding only with the
``MutatingAdmissionPolicy`` feature gate on (beta, default off) and the group
version enabled with ``--runtime-config admissionregistration.k8s.io/v1beta1=true``;
the model does the same (the objects are validated by
:func:`kubenotes.apiserver.validation.validate_create`; ``APIServer(feature_gates=..., runtime_config=...)``,
``Cluster(..., runtime_config=...)``, see
:func:`kubenotes.apiserver.resources.gated_served`). The plugin runs first of the
mutating policies and webhooks (``AllOrderedPlugins``: ``MutatingAdmissionPolicy``,
``MutatingAdmissionWebhook``, ``ValidatingAdmissionPolicy``, ``ValidatingAdmissionWebhook``).

For each policy (by name) and each of its bindings (by name) the plugin
matches the request against the policy's ``matchConstraints`` and the
binding's ``matchResources`` (resource rules, excluded rules, namespace and
object selectors, ``matchPolicy``), resolves the binding's ``paramRef``
(``name`` or ``selector``: one invocation per param object), evaluates the
``matchConditions`` (all must hold), then each of the policy's ``mutations``
in order, with ``object``, ``oldObject``, ``request``, ``params``,
``namespaceObject`` and ``variables`` (evaluated when first used):

* ``patchType: ApplyConfiguration``: ``expression`` builds an ``Object{...}``
  (nested ``Object.spec{...}`` values named by their field path), merged into
  the object with server-side apply's merge (associative lists by their keys,
  sets, granular maps; :mod:`kubenotes.apiserver.apply`); a field the kind's
  schema does not declare fails the typed conversion (``failed to convert patch
  object to typed object: .spec.x: field not declared in schema``,
  :func:`undeclared_fields`), and setting an atomic list or struct is refused
  (``may not mutate atomic arrays, maps or structs``);
* ``patchType: JSONPatch``: ``expression`` returns a list of
  ``JSONPatch{op, path, from, value}`` applied in order (a failed ``test`` op
  leaves the object unchanged; :func:`kubenotes.apiserver.patch.json_patch`).

After each mutation the object is defaulted again. An error (evaluation,
merge, patch, a missing param under ``parameterNotFoundAction: Deny``)
follows the policy's ``failurePolicy`` (default ``Fail``): every error of a
``Fail`` policy refuses the request with 403 ``policy '<p>' with binding '<b>'
denied request: <error>`` (reason ``Invalid`` for evaluation errors), as
upstream's generic policy dispatcher does. A policy with
``reinvocationPolicy: IfNeeded`` runs once more when a later policy, or a
mutating webhook, changed the object after it ran (the plugin leaves its
reinvocation context in the request's attributes, :data:`REINVOCATION_KEY`,
where :class:`~kubenotes.apiserver.admission.webhook.MutatingAdmissionWebhook`
finds it).

Notes
-----
Simplified: the CEL is :mod:`kubenotes.apiserver.admission.cel`'s subset (no
type checking; no cost limits; no ``authorizer``). As upstream, an
undeclared field is refused when the mutation is applied, not when the policy
is created (the mutation environment types ``Object`` fields dynamically); a
custom resource's apply configuration is checked against its CRD's structural
schema (upstream: the OpenAPI published from it); a policy reinvoked for a
later policy's change runs again before the webhooks, not in a second pass after them; atomic
structs are the ones of :data:`ATOMIC_STRUCTS`; policies are taken in name
order. ``admissionregistration.k8s.io/v1alpha1`` is not served.

References
----------
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/dispatcher.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/smd.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/json_patch.go
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go
https://kubernetes.io/docs/reference/access-authn-authz/mutating-admission-policy/
"""

from __future__ import annotations

import json
from typing import Any, Callable

from kubenotes.apiserver.admission.cel import (MATCH_CONDITIONS_COST_BUDGET, CELError, CostBudget, ObjectVal,
                                               OutOfBudget, evaluate, plain, type_name_errors)
from kubenotes.apiserver.admission.interfaces import CONNECT, CREATE, DELETE, UPDATE, Plugin, forbidden
from kubenotes.apiserver.admission.validatingadmissionpolicy import (
    ParamError, _matches, _request, collect_params, lazy_variables)
from kubenotes.apiserver.request import Attributes
from kubenotes.apiserver.store import deep_copy
from kubenotes.errors import KubenotesError

__all__ = ["MutatingAdmissionPolicy", "ATOMIC_STRUCTS", "REINVOCATION_KEY", "apply_configuration_patch",
           "undeclared_fields"]

#: Where the plugin leaves its reinvocation context in the request's attributes (``a.GetReinvocationContext()``):
#: a callable the mutating webhook plugin calls with the object when its webhooks changed it.
REINVOCATION_KEY = "reinvocation/MutatingAdmissionPolicy"
_POLICIES = "mutatingadmissionpolicies.admissionregistration.k8s.io"
_BINDINGS = "mutatingadmissionpolicybindings.admissionregistration.k8s.io"

#: Definitions marked ``x-kubernetes-map-type: atomic`` in the built-in schemas that an apply configuration
#: may not set (upstream finds them in the OpenAPI schema).
ATOMIC_STRUCTS = frozenset({
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
    "io.k8s.api.core.v1.NodeSelector",
    "io.k8s.api.core.v1.NodeSelectorTerm",
    "io.k8s.api.core.v1.TopologySelectorTerm",
})


class _PolicyError(KubenotesError):
    """One policy error: its message and status reason (``Invalid`` for evaluation errors)."""

    def __init__(self, message: str, reason: str = ""):
        super().__init__(message)
        self.reason = reason


def _atomics(value: Any, definition: str | None, path: str) -> list[str]:
    """``findAtomics``: field paths of atomic lists and structs an apply configuration sets."""
    from kubenotes.apiserver.patch_meta import DEFINITIONS

    out: list[str] = []
    if definition in ATOMIC_STRUCTS and isinstance(value, dict):
        out.append(path)
    fields = DEFINITIONS.get(definition or "", {})
    if isinstance(value, dict):
        for k, v in value.items():
            f = fields.get(k)
            if f is None:
                continue
            sub = f"{path}.{k}"
            if isinstance(v, list):
                if f.list_type in (None, "atomic"):
                    out.append(sub)
                for i, item in enumerate(v):
                    out += _atomics(item, f.definition, f"{sub}[{i}]") if f.definition else []
            elif isinstance(v, dict):
                out += _atomics(v, f.definition, sub)
    return out


def _smd_path(value: Any, keys: tuple, list_info: Callable[[tuple[str, ...]], tuple[str, tuple[str, ...]]]) -> str:
    """A structured-merge-diff field path (``.spec.containers[name="a"].x``) for the keys that reach a field.

    ``list_info(field names)``: the list type and map keys of the list at those names.
    """
    out, names, cur = "", [], value
    for k in keys:
        if isinstance(k, str):
            out += f".{k}"
            names.append(k)
            cur = cur[k]
            continue
        list_type, map_keys = list_info(tuple(names))
        item = cur[k]
        if list_type == "map" and map_keys and isinstance(item, dict):
            out += "[" + ",".join(f"{mk}={json.dumps(item.get(mk), separators=(',', ':'))}" for mk in map_keys) + "]"
        elif list_type == "set":
            out += f"[={json.dumps(item, separators=(',', ':'))}]"
        else:
            out += f"[{k}]"
        cur = item
    return out


#: What the OpenAPI schema published for a custom resource declares beside its CRD's schema (and inside an
#: ``x-kubernetes-embedded-resource``).
_CR_ROOT_FIELDS = ("apiVersion", "kind", "metadata")


def _crd_unknown(value: Any, node: Any, keys: tuple, out: list[tuple]) -> None:
    """The keys of undeclared fields in ``value`` against a CRD's structural schema (first one per object)."""
    if not isinstance(node, dict) or node.get("x-kubernetes-preserve-unknown-fields"):
        return
    if isinstance(value, dict):
        props = node.get("properties")
        extra = node.get("additionalProperties")
        if props is None and extra is not None:
            if isinstance(extra, dict):
                for k in sorted(value):
                    _crd_unknown(value[k], extra, (*keys, k), out)
            return
        allowed = set(props or ()) | (set(_CR_ROOT_FIELDS) if not keys or node.get("x-kubernetes-embedded-resource")
                                      else set())
        for k in sorted(value):
            if k not in allowed:
                out.append((*keys, k))
                return
            if k in (props or {}):
                _crd_unknown(value[k], props[k], (*keys, k), out)
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            _crd_unknown(item, node["items"], (*keys, i), out)


def _crd_list_info(schema: dict) -> Callable[[tuple[str, ...]], tuple[str, tuple[str, ...]]]:
    def info(names: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        node: Any = schema
        for n in names:
            node = ((node or {}).get("properties") or {}).get(n)
        node = node or {}
        return node.get("x-kubernetes-list-type") or "atomic", tuple(node.get("x-kubernetes-list-map-keys") or ())
    return info


def undeclared_fields(patch: dict, api_version: str, kind: str, schema: dict | None = None) -> list[str]:
    """structured-merge-diff's errors typing an apply configuration: ``.spec.x: field not declared in schema``.

    Upstream converts the apply configuration to a typed value against the kind's OpenAPI schema
    before merging it; a field the schema does not declare fails the conversion. The walk stops at
    the first undeclared field of each object (the model takes them in name order).

    Parameters
    ----------
    patch : dict
        The apply configuration, as plain JSON.
    api_version, kind : str
        The object's: a built-in kind is checked against the served OpenAPI schema.
    schema : dict, optional
        A custom resource's ``openAPIV3Schema`` (``x-kubernetes-preserve-unknown-fields`` accepts anything
        below it); without it, a kind the server has no schema for is not checked.

    Returns
    -------
    list of str

    References
    ----------
    kubernetes-sigs/structured-merge-diff typed/validate.go (``visitMapItems``), typed/helpers.go (``ValidationErrors``)

    Examples
    --------
    >>> undeclared_fields({"spec": {"replicas": 1, "replicaz": 2, "template": {"spec": {"containers": [
    ...     {"name": "a", "imag": "x"}]}}}}, "apps/v1", "Deployment")
    ['.spec.replicaz: field not declared in schema', '.spec.template.spec.containers[name="a"].imag: field not declared in schema']
    >>> crd = {"type": "object", "properties": {
    ...     "spec": {"type": "object", "properties": {"port": {"type": "integer"}}},
    ...     "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
    >>> undeclared_fields({"metadata": {"labels": {"a": "b"}}, "spec": {"prot": 80}, "status": {"any": 1}},
    ...                   "example.com/v1", "Website", crd)
    ['.spec.prot: field not declared in schema']
    """
    from kubenotes.apiserver.fieldvalidation import _unknown  # the schema walk of fieldValidation, reused
    from kubenotes.apiserver.patch_meta import list_info_for

    if schema is not None:
        found: list[tuple] = []
        _crd_unknown({k: v for k, v in patch.items() if k != "metadata"}, schema, (), found)
        if isinstance(patch.get("metadata"), dict):  # ObjectMeta's schema, as for any kind
            found += [("metadata", *keys[1:]) for _, keys in _unknown({"metadata": patch["metadata"]}, "v1", "Pod")]
        info = _crd_list_info(schema)
        return [f"{_smd_path(patch, keys, info)}: field not declared in schema" for keys in sorted(found, key=str)]
    out, parents = [], set()
    for _, keys in sorted(_unknown(patch, api_version, kind), key=lambda pk: pk[0]):
        if keys[:-1] in parents:
            continue
        parents.add(keys[:-1])
        out.append(f"{_smd_path(patch, keys, lambda names: list_info_for(api_version, kind, names))}: "
                   "field not declared in schema")
    return out


def apply_configuration_patch(obj: dict, config: Any, api_version: str, kind: str, schema: dict | None = None
                              ) -> dict:
    """Merge an ``ApplyConfiguration`` mutation's result into ``obj`` (``ApplyStructuredMergeDiff``).

    Parameters
    ----------
    obj : dict
        The object being admitted (not changed).
    config : ObjectVal
        What the expression returned: an ``Object{...}``.
    api_version, kind : str
        The object's, for its list types (:func:`kubenotes.apiserver.patch_meta.list_info_for`).
    schema : dict, optional
        A custom resource's ``openAPIV3Schema``, for :func:`undeclared_fields`.

    Returns
    -------
    dict
        The merged object.

    Raises
    ------
    CELError
        Upstream's texts: ``unsupported return type from ApplyConfiguration expression``, ``type mismatch:
        unexpected type name ...``, ``error applying patch: failed to convert patch object to typed object:
        .spec.x: field not declared in schema`` (:func:`undeclared_fields`), ``error applying patch: invalid
        ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector``.

    Examples
    --------
    >>> d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    ...      "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}}
    >>> cfg = evaluate("Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{"
    ...                "containers: [Object.spec.template.spec.containers{name: 'b', image: 'y'}]}}}}", {})
    >>> [c["name"] for c in apply_configuration_patch(d, cfg, "apps/v1", "Deployment")["spec"]["template"]["spec"]["containers"]]
    ['a', 'b']
    >>> apply_configuration_patch(d, evaluate("Object{spec: Object.spec{selector: Object.spec.selector{}}}", {}),
    ...                           "apps/v1", "Deployment")
    Traceback (most recent call last):
    ...
    kubenotes.apiserver.admission.cel.CELError: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector
    """
    from kubenotes.apiserver.apply import _merge
    from kubenotes.apiserver.patch_meta import definition_for, list_info_for

    if not isinstance(config, ObjectVal) or config.type_name != "Object":
        type_name = config.type_name if isinstance(config, ObjectVal) else type(config).__name__
        raise CELError(f"unsupported return type from ApplyConfiguration expression: {type_name}")
    errs = type_name_errors(config)
    if errs:
        raise CELError("type mismatch: " + "; ".join(errs))
    patch = plain(config)
    undeclared = undeclared_fields(patch, api_version, kind, schema)
    if undeclared:  # typeConverter.ObjectToTyped: one error as is, several as smd's "errors:" list
        text = undeclared[0] if len(undeclared) == 1 else "errors:\n  " + "\n  ".join(undeclared)
        raise CELError(f"error applying patch: failed to convert patch object to typed object: {text}")
    atomics = _atomics(patch, definition_for(api_version, kind), "")
    if atomics:
        raise CELError("error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or "
                       f"structs: {', '.join(atomics)}")
    return _merge(obj, patch, (), lambda fpath: list_info_for(api_version, kind, fpath))


def _json_patch(obj: dict, ops: Any) -> dict:
    """A ``JSONPatch`` mutation: the expression's list of ``JSONPatch{...}`` applied in order."""
    from kubenotes.apiserver.patch import JSONPatchError, json_patch

    if not isinstance(ops, list):
        raise CELError("type mismatch: JSONPatchType.expression should evaluate to array")
    patch = []
    for op in ops:
        if not isinstance(op, ObjectVal) or op.type_name != "JSONPatch":
            raise CELError("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch")
        if "value" in op:
            errs = type_name_errors(op["value"], _object_path(op["value"], op.get("path", "")))
            if errs:
                raise CELError("type mismatch: " + "; ".join(errs))
        entry = {"op": op.get("op", ""), "path": op.get("path", "")}
        if op.get("from"):
            entry["from"] = op["from"]
        if "value" in op:
            entry["value"] = plain(op["value"])
        patch.append(entry)
    try:
        return json_patch(obj, patch)
    except JSONPatchError as e:
        if str(e).startswith("testing value"):  # a failed test: the patch is not applied
            return obj
        raise CELError(f"JSONPath: {e}") from None


def _object_path(value: Any, path: str) -> tuple[str, ...]:
    """The type-name path a JSONPatch value must carry: ``Object`` plus the path's field names (no indices)."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]
    return ("Object", *[p for p in parts if not p.isdigit() and p != "-"])


def _raise_failing(errors: list, attrs: Attributes, obj: dict | None) -> None:
    """The generic dispatcher's end: every error of a ``Fail`` policy into one 403 (the first one's message)."""
    failing = [e for e in errors if ((e[0].get("spec") or {}).get("failurePolicy") or "Fail") != "Ignore"]
    if failing:
        err = forbidden(attrs, obj, "admission request denied by policy")
        causes = []
        for pol, b, pe in failing:
            text = f"policy '{pol['metadata']['name']}' with binding '{b['metadata']['name']}' denied request: {pe}"
            causes.append({"message": text})
        err.status["message"] = causes[0]["message"]
        if failing[0][2].reason:
            err.status["reason"] = failing[0][2].reason
        err.status.setdefault("details", {})["causes"] = causes
        err.args = (causes[0]["message"],)
        raise err


def _bindings(reader: Any) -> list[dict]:
    """The bindings, when the server serves the API (``InspectFeatureGates``: inactive with the gate off)."""
    if not getattr(reader, "gated_served", None):
        return []
    return reader.list(_BINDINGS)


class MutatingAdmissionPolicy(Plugin):
    """Evaluates the bound MutatingAdmissionPolicies in the mutating phase.

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> from kubenotes.apiserver.admission import AdmissionChain
    >>> api = APIServer(admission=AdmissionChain([MutatingAdmissionPolicy()]),
    ...                 feature_gates="MutatingAdmissionPolicy=true",
    ...                 runtime_config="admissionregistration.k8s.io/v1beta1=true")
    >>> c = api.client()
    >>> _ = c.create("mutatingadmissionpolicies", {"metadata": {"name": "add-team"}, "spec": {
    ...     "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
    ...                          "operations": ["CREATE"], "resources": ["configmaps"]}]},
    ...     "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
    ...         "expression": "Object{metadata: Object.metadata{labels: {'team': 'blue'}}}"}}]}})
    >>> _ = c.create("mutatingadmissionpolicybindings", {"metadata": {"name": "add-team"},
    ...     "spec": {"policyName": "add-team"}})
    >>> c.create("configmaps", {"metadata": {"name": "c"}}, "default")["metadata"]["labels"]
    {'team': 'blue'}
    """

    name = "MutatingAdmissionPolicy"
    operations = frozenset({CREATE, UPDATE, DELETE, CONNECT})

    def idle(self, reader: Any) -> bool:
        """The API is not served (gate or runtime-config off) or no binding exists: nothing to evaluate."""
        return not _bindings(reader)

    def admit(self, attrs: Attributes, obj: dict | None, old: dict | None, reader: Any) -> None:
        bindings = _bindings(reader)
        if not bindings:
            return
        errors: list[tuple[dict, dict | None, _PolicyError]] = []
        invocations: list[tuple[dict, dict, Any]] = []
        by_policy: dict[str, list[dict]] = {}
        for b in sorted(bindings, key=lambda x: x["metadata"]["name"]):
            by_policy.setdefault((b.get("spec") or {}).get("policyName", ""), []).append(b)
        for pol in sorted(reader.list(_POLICIES), key=lambda x: x["metadata"]["name"]):
            spec = pol.get("spec") or {}
            if pol["metadata"]["name"] not in by_policy:
                continue
            if not _matches(spec.get("matchConstraints"), attrs, obj, old, reader):
                continue
            for b in by_policy[pol["metadata"]["name"]]:
                bspec = b.get("spec") or {}
                if bspec.get("matchResources") and not _matches(bspec["matchResources"], attrs, obj, old, reader):
                    continue
                try:
                    params = collect_params(spec.get("paramKind"), bspec.get("paramRef"), attrs.namespace, reader)
                except ParamError as e:
                    errors.append((pol, b, _PolicyError(f"failed to configure binding: {e}")))
                    continue
                invocations += [(pol, b, p) for p in params]
        if invocations and obj is not None:
            errors += self._dispatch(invocations, attrs, obj, old, reader)
        _raise_failing(errors, attrs, obj)

    def _dispatch(self, invocations: list[tuple[dict, dict, Any]], attrs: Attributes, obj: dict, old: dict | None,
                  reader: Any) -> list[tuple[dict, dict | None, _PolicyError]]:
        """``dispatchInvocations``: each invocation's mutations in order, then the ``IfNeeded`` reinvocations."""
        ns = None
        if attrs.namespace and not (attrs.resource.group == "" and attrs.resource.resource == "namespaces"):
            ns = reader.get("namespaces", None, attrs.namespace)
        errors: list[tuple[dict, dict | None, _PolicyError]] = []
        invoked: list[int] = []  # IfNeeded invocations already run, in order
        reinvoke: set[int] = set()
        for i, inv in enumerate(invocations):
            before = deep_copy(obj)
            self._invoke(inv, attrs, obj, old, ns, reader, errors)
            if obj != before:
                reinvoke.update(invoked)
            if (inv[0].get("spec") or {}).get("reinvocationPolicy") == "IfNeeded":
                invoked.append(i)
        for i in sorted(reinvoke):  # reinvoked once: a later policy changed the object after it ran
            self._invoke(invocations[i], attrs, obj, old, ns, reader, errors)
        pending = [invocations[i] for i in invoked if i not in reinvoke]
        if pending:  # the reinvocation context: a later mutating webhook that changes the object reruns these

            def reinvoke_after_webhooks(current: dict) -> None:
                attrs.extra.pop(REINVOCATION_KEY, None)
                errs: list = []
                for inv in pending:
                    self._invoke(inv, attrs, current, old, ns, reader, errs)
                _raise_failing(errs, attrs, current)

            attrs.extra[REINVOCATION_KEY] = reinvoke_after_webhooks
        return errors

    def _invoke(self, inv: tuple[dict, dict, Any], attrs: Attributes, obj: dict, old: dict | None, ns: dict | None,
                reader: Any, errors: list) -> None:
        pol, binding, param = inv
        spec = pol.get("spec") or {}
        env: dict[str, Any] = {"object": obj, "oldObject": old, "request": _request(attrs, obj, old),
                               "namespaceObject": ns, "params": param}
        env["variables"] = lazy_variables(spec.get("variables") or (), env)
        from kubenotes.apiserver.apiextensions.celcost import PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET

        budget = CostBudget(MATCH_CONDITIONS_COST_BUDGET, PER_CALL_LIMIT)  # each expression also under PerCallLimit
        try:
            for cond in spec.get("matchConditions") or ():
                if budget.evaluate(cond.get("expression", ""), env) is not True:
                    return
        except CELError as e:
            errors.append((pol, binding, _PolicyError(str(e), "Invalid")))
            return
        ri = attrs.resource
        budget = CostBudget(RUNTIME_CEL_COST_BUDGET, PER_CALL_LIMIT)
        for m in spec.get("mutations") or ():
            try:
                if m.get("patchType") == "JSONPatch":
                    new = _json_patch(obj, budget.evaluate((m.get("jsonPatch") or {}).get("expression", ""), env))
                else:
                    cfg = budget.evaluate((m.get("applyConfiguration") or {}).get("expression", ""), env)
                    new = apply_configuration_patch(obj, cfg, obj.get("apiVersion") or ri.api_version,
                                                    obj.get("kind") or ri.kind,
                                                    getattr(getattr(ri, "crd", None), "schema", None))
            except OutOfBudget as e:  # no further mutation is evaluated
                errors.append((pol, binding, _PolicyError(str(e), "Invalid")))
                break
            except CELError as e:
                errors.append((pol, binding, _PolicyError(str(e), "Invalid")))
                continue
            default = getattr(reader, "_default", None)  # the defaulter runs on every mutation's result
            if default is not None and isinstance(new, dict):
                new = default(ri, new)
            obj.clear()
            obj.update(new)
            env["object"] = obj
