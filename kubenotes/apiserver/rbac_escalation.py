"""RBAC escalation prevention: nobody grants, through a Role or a binding, permissions they do not hold.

kube-apiserver wraps the storage of the four RBAC kinds in "policy based"
storage. Before a Role or ClusterRole is written (create, or update, patch and
apply, which are updates), its rules must be *covered* by the rules the
requester already holds in the request's namespace (``ConfirmNoEscalation``),
unless the requester

* is in ``system:masters`` (``EscalationAllowed``), or
* is allowed the verb ``escalate`` on that ``roles``/``clusterroles`` resource
  (``RoleEscalationAuthorized``; the name is the URL's, so ``""`` on create).

Before a RoleBinding or ClusterRoleBinding is written, the requester must be
in ``system:masters``, or be allowed ``bind`` on the referenced role
(``BindingAuthorized``: in the binding's namespace, ``""`` for a
ClusterRoleBinding), or hold every permission of the referenced role.
A role that does not exist is 404 NotFound (the registry's error, plural:
``roles.rbac.authorization.k8s.io "x" not found``).

A refusal is 403 Forbidden::

    clusterrolebindings.rbac.authorization.k8s.io "mine" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
    {APIGroups:["*"], Resources:["*"], Verbs:["*"]}
    {NonResourceURLs:["*"], Verbs:["*"]}

Each missing permission is one broken-down rule (one group, resource, verb and
name); rules differing only by verb are joined again (``CompactRules``), and
the lines are sorted. Setting, changing or removing a ClusterRole's
``aggregationRule`` needs ``*`` on everything (``cluster-admin``): "must have
cluster-admin privileges to use the aggregationRule". An update that changes
only ``ownerReferences``, ``finalizers`` or ``managedFields`` (what the garbage
collector writes) is never checked.

References
----------
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/escalation_check.go (EscalationAllowed, RoleEscalationAuthorized, BindingAuthorized, IsOnlyMutatingGCFields)
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/role/policybased/storage.go
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/clusterrole/policybased/storage.go
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/rolebinding/policybased/storage.go
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/clusterrolebinding/policybased/storage.go
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/validation/rule.go (ConfirmNoEscalation)
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/validation/policy_compact.go (CompactRules)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/component-helpers/auth/rbac/validation/policy_comparator.go (Covers, BreakdownRule)
kubernetes/kubernetes@v1.34.0 pkg/apis/rbac/v1/helpers.go (CompactString)
https://kubernetes.io/docs/reference/access-authn-authz/rbac/#privilege-escalation-prevention-and-bootstrapping
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Sequence

from kubenotes.apiserver.rbac import ALLOW, RBAC_GROUP, RBACAuthorizer
from kubenotes.apiserver.request import SYSTEM_MASTERS, Attributes, UserInfo
from kubenotes.apiserver.status import aggregate_causes, new_forbidden, new_internal_error, new_not_found
from kubenotes.apiserver.validation import _go_quote

__all__ = [
    "FULL_AUTHORITY",
    "AGGREGATION_RULE_FORBIDDEN",
    "RegistryRuleResolver",
    "breakdown_rule",
    "covers",
    "compact_rules",
    "compact_string",
    "escalation_allowed",
    "role_escalation_authorized",
    "binding_authorized",
    "confirm_no_escalation",
    "is_only_mutating_gc_fields",
    "check_escalation",
]

_ALL = "*"

#: ``fullAuthority``: what setting an ``aggregationRule`` requires (``*`` on ``*.*`` and on every URL).
FULL_AUTHORITY: tuple[dict, ...] = (
    {"verbs": [_ALL], "apiGroups": [_ALL], "resources": [_ALL]},
    {"verbs": [_ALL], "nonResourceURLs": [_ALL]},
)

AGGREGATION_RULE_FORBIDDEN = "must have cluster-admin privileges to use the aggregationRule"

#: The policy-based storages, by resource.
_ROLE_RESOURCES = ("roles", "clusterroles")
_BINDING_RESOURCES = ("rolebindings", "clusterrolebindings")


class RegistryRuleResolver(RBACAuthorizer):
    """The rule resolver the RBAC registry builds over its own storage (``NewDefaultRuleResolver`` of the registries).

    It resolves rules as :class:`~kubenotes.apiserver.rbac.RBACAuthorizer`
    does (aggregated ClusterRoles included, standing in for the aggregation
    controller) but names a missing role as the registry's ``Get`` does,
    with the plural resource (``roles.rbac.authorization.k8s.io "x" not found``).

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> RegistryRuleResolver(APIServer(seed=0)).get_role_reference_rules(
    ...     {"kind": "ClusterRole", "name": "nope"}, "")
    (None, 'clusterroles.rbac.authorization.k8s.io "nope" not found')
    """

    not_found_resources = ("roles", "clusterroles")

    def get_role_reference_rules(self, role_ref: dict, namespace: str) -> tuple[list[dict] | None, str | None]:
        """``GetRoleReferenceRules``: ``(rules, None)`` or ``(None, error message)``.

        Parameters
        ----------
        role_ref : dict
            A binding's ``roleRef`` (``kind`` ``Role`` or ``ClusterRole``, ``name``).
        namespace : str
            The binding's namespace (``""`` for a ClusterRoleBinding).

        Returns
        -------
        (list of dict or None, str or None)
        """
        return self._role_reference_rules(self._current(), role_ref, namespace)


# ------------------------------------------------------------------ Covers (policy_comparator.go)

def breakdown_rule(rule: dict) -> list[dict]:
    """``BreakdownRule``: one rule per (group, resource, verb[, name]) and per (URL, verb).

    Examples
    --------
    >>> breakdown_rule({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]})
    [{'apiGroups': [''], 'resources': ['pods'], 'verbs': ['get']}, {'apiGroups': [''], 'resources': ['pods'], 'verbs': ['list']}]
    >>> breakdown_rule({"verbs": ["get"], "nonResourceURLs": ["/healthz", "/version"]})
    [{'nonResourceURLs': ['/healthz'], 'verbs': ['get']}, {'nonResourceURLs': ['/version'], 'verbs': ['get']}]
    """
    out: list[dict] = []
    verbs = rule.get("verbs") or ()
    names = rule.get("resourceNames") or ()
    for group in rule.get("apiGroups") or ():
        for resource in rule.get("resources") or ():
            for verb in verbs:
                if names:
                    out.extend({"apiGroups": [group], "resources": [resource], "verbs": [verb],
                                "resourceNames": [n]} for n in names)
                else:
                    out.append({"apiGroups": [group], "resources": [resource], "verbs": [verb]})
    for url in rule.get("nonResourceURLs") or ():
        for verb in verbs:
            out.append({"nonResourceURLs": [url], "verbs": [verb]})
    return out


def _has_all(owned: Sequence[str], wanted: Sequence[str]) -> bool:
    have = set(owned)
    return all(w in have for w in wanted)


def _resource_covers_all(owned: Sequence[str], wanted: Sequence[str]) -> bool:
    """``resourceCoversAll``: ``*``, every name, or ``*/<subresource>`` for each subresource asked."""
    if _ALL in owned or _has_all(owned, wanted):
        return True
    for path in wanted:
        if path in owned:
            continue
        if "/" not in path:
            return False
        if "*/" + path.split("/", 1)[1] not in owned:
            return False
    return True


def _non_resource_url_covers(owner: str, path: str) -> bool:
    return owner == path or (owner.endswith("*") and path.startswith(owner.rstrip("*")))


def _rule_covers(owner: dict, sub: dict) -> bool:
    """``ruleCovers``: whether one owned rule covers one broken-down rule."""
    owner_verbs, owner_groups = owner.get("verbs") or (), owner.get("apiGroups") or ()
    owner_names = owner.get("resourceNames") or ()
    sub_names = sub.get("resourceNames") or ()
    if sub_names:
        names_match = not owner_names or _has_all(owner_names, sub_names)
    else:
        names_match = not owner_names
    return ((_ALL in owner_verbs or _has_all(owner_verbs, sub.get("verbs") or ()))
            and (_ALL in owner_groups or _has_all(owner_groups, sub.get("apiGroups") or ()))
            and _resource_covers_all(owner.get("resources") or (), sub.get("resources") or ())
            and all(any(_non_resource_url_covers(o, p) for o in owner.get("nonResourceURLs") or ())
                    for p in sub.get("nonResourceURLs") or ())
            and names_match)


def covers(owner_rules: Iterable[dict], servant_rules: Iterable[dict]) -> tuple[bool, list[dict]]:
    """``Covers``: whether the owner's rules hold every permission of ``servant_rules``, and the missing ones.

    Parameters
    ----------
    owner_rules : iterable of dict
        The requester's rules (``RulesFor``).
    servant_rules : iterable of dict
        The rules to be granted.

    Returns
    -------
    (bool, list of dict)
        The missing permissions, broken down (:func:`breakdown_rule`).

    Examples
    --------
    >>> owner = [{"verbs": ["*"], "apiGroups": [""], "resources": ["pods", "*/status"]}]
    >>> covers(owner, [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods", "nodes/status"]}])
    (True, [])
    >>> covers(owner, [{"verbs": ["get"], "apiGroups": ["apps"], "resources": ["pods"]}])
    (False, [{'apiGroups': ['apps'], 'resources': ['pods'], 'verbs': ['get']}])
    """
    owners = list(owner_rules)
    missing = [sub for rule in servant_rules for sub in breakdown_rule(rule)
               if not any(_rule_covers(o, sub) for o in owners)]
    return not missing, missing


# ------------------------------------------------------------------ the message (policy_compact.go, helpers.go)

def _simple_resource(rule: dict) -> tuple | None:
    """``isSimpleResourceRule``: one group, one resource, at most one name, verbs, nothing else."""
    if len(rule.get("resourceNames") or ()) > 1 or rule.get("nonResourceURLs"):
        return None
    if len(rule.get("apiGroups") or ()) != 1 or len(rule.get("resources") or ()) != 1:
        return None
    if set(k for k, v in rule.items() if v) - {"apiGroups", "resources", "verbs", "resourceNames"}:
        return None
    names = rule.get("resourceNames") or ()
    return rule["apiGroups"][0], rule["resources"][0], bool(names), names[0] if names else ""


def compact_rules(rules: Iterable[dict]) -> list[dict]:
    """``CompactRules``: rules on one group, resource (and name) that differ only by verb become one.

    Examples
    --------
    >>> compact_rules([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
    ...                {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}])
    [{'apiGroups': [''], 'resources': ['pods'], 'verbs': ['get', 'list']}]
    """
    out: list[dict] = []
    simple: dict[tuple, dict] = {}
    for rule in rules:
        key = _simple_resource(rule)
        if key is None:
            out.append(rule)
        elif key in simple:
            verbs = simple[key].setdefault("verbs", [])
            verbs.extend(v for v in rule.get("verbs") or () if v not in verbs)
        else:
            simple[key] = {k: list(v) for k, v in rule.items()}
    return out + list(simple.values())


def _go_quote_list(items: Sequence[str]) -> str:
    """``%q`` of a ``[]string``: ``["a" "b"]``."""
    return "[" + " ".join(_go_quote(s) for s in items) + "]"


def compact_string(rule: dict) -> str:
    """``CompactString``: ``{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}``.

    Examples
    --------
    >>> compact_string({"verbs": ["get"], "apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s"]})
    '{APIGroups:[""], Resources:["secrets"], ResourceNames:["s"], Verbs:["get"]}'
    >>> compact_string({"verbs": ["*"], "nonResourceURLs": ["*"]})
    '{NonResourceURLs:["*"], Verbs:["*"]}'
    """
    parts = [f"{label}:{_go_quote_list(rule[key])}" for label, key in (
        ("APIGroups", "apiGroups"), ("Resources", "resources"), ("NonResourceURLs", "nonResourceURLs"),
        ("ResourceNames", "resourceNames"), ("Verbs", "verbs")) if rule.get(key)]
    return "{" + ", ".join(parts) + "}"


def confirm_no_escalation(resolver: RBACAuthorizer, user: UserInfo, namespace: str,
                          rules: Iterable[dict]) -> str | None:
    """``ConfirmNoEscalation``: ``None`` when ``user`` holds every permission of ``rules`` in ``namespace``.

    Parameters
    ----------
    resolver : RBACAuthorizer
        Its ``rules_for`` gives the requester's rules (a :class:`RegistryRuleResolver` in the API server).
    user : UserInfo
    namespace : str
        The request's namespace (``""``: ClusterRoleBindings only).
    rules : iterable of dict

    Returns
    -------
    str or None
        Otherwise upstream's message: ``user "alice" (groups=[...]) is attempting
        to grant RBAC permissions not currently held:`` and one line per
        missing permission, then ``; resolution errors: [...]`` when a binding
        of the user names a missing role.

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> r = RegistryRuleResolver(APIServer(seed=0))
    >>> print(confirm_no_escalation(r, UserInfo("jane", groups=("system:authenticated",)), "dev",
    ...     [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["secrets"]}]))
    user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
    {APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}
    """
    owner_rules, errors = resolver.rules_for(user, namespace)
    ok, missing = covers(owner_rules, rules)
    if ok:
        return None
    lines = sorted({compact_string(r) for r in compact_rules(missing)})
    msg = (f"user {_go_quote(user.name)} (groups={_go_quote_list(user.groups)}) is attempting to grant RBAC "
           f"permissions not currently held:\n" + "\n".join(lines))
    if errors:
        msg += f"; resolution errors: [{aggregate_causes(errors)}]"
    return msg


# ------------------------------------------------------------------ escalation_check.go

def escalation_allowed(user: UserInfo) -> bool:
    """``EscalationAllowed``: members of ``system:masters`` may grant anything.

    Examples
    --------
    >>> escalation_allowed(UserInfo("admin", groups=("system:masters",))), escalation_allowed(UserInfo("jane"))
    (True, False)
    """
    return SYSTEM_MASTERS in user.groups


def _allowed(authorizer: Any, user: UserInfo, verb: str, resource: str, group: str, namespace: str,
             name: str) -> bool:
    from kubenotes.apiserver.resources import resource_for

    ri = resource_for(resource)
    if group != ri.group:  # a roleRef's apiGroup is asked as given (validation refuses a wrong one later)
        ri = dataclasses.replace(ri, group=group)
    return authorizer.authorize(Attributes(user, verb, ri, "", namespace, name))[0] == ALLOW


def role_escalation_authorized(authorizer: Any, attrs: Attributes) -> bool:
    """``RoleEscalationAuthorized``: the requester may ``escalate`` the role resource of this request.

    Asked with the request's namespace and name (``""`` on create: the name is the URL's).
    """
    if authorizer is None or attrs.resource.resource not in _ROLE_RESOURCES or attrs.resource.group != RBAC_GROUP:
        return False
    return _allowed(authorizer, attrs.user, "escalate", attrs.resource.resource, RBAC_GROUP, attrs.namespace,
                    attrs.name)


def binding_authorized(authorizer: Any, user: UserInfo, role_ref: dict, namespace: str) -> bool:
    """``BindingAuthorized``: the requester may ``bind`` the referenced role in the binding's namespace.

    ``namespace`` is ``""`` for a ClusterRoleBinding; a ``roleRef`` of another
    kind is never authorized.
    """
    if authorizer is None:
        return False
    resource = {"ClusterRole": "clusterroles", "Role": "roles"}.get(role_ref.get("kind", ""))
    if resource is None:
        return False
    return _allowed(authorizer, user, "bind", resource, role_ref.get("apiGroup", ""), namespace,
                    role_ref.get("name", ""))


def is_only_mutating_gc_fields(obj: dict, old: dict | None) -> bool:
    """``IsOnlyMutatingGCFields``: the update changes nothing but ownerReferences, finalizers or managedFields.

    Examples
    --------
    >>> old = {"metadata": {"name": "r", "resourceVersion": "5"}, "rules": []}
    >>> is_only_mutating_gc_fields({"metadata": {"name": "r", "finalizers": ["x"]}, "rules": []}, old)
    True
    >>> is_only_mutating_gc_fields({"metadata": {"name": "r"}, "rules": [{"verbs": ["get"]}]}, old)
    False
    """
    if old is None:
        return False

    def comparable(o: dict) -> dict:
        c = dict(o)
        md = {k: v for k, v in (o.get("metadata") or {}).items() if v not in (None, [], {}, "")}
        for k in ("ownerReferences", "finalizers", "selfLink", "managedFields", "resourceVersion"):
            md.pop(k, None)
        c["metadata"] = md
        return c

    return comparable(obj) == comparable(old)


def _has_aggregation_rule(role: dict | None) -> bool:
    return bool(role and ((role.get("aggregationRule") or {}).get("clusterRoleSelectors")))


def check_escalation(server: Any, attrs: Attributes, obj: dict, old: dict | None) -> None:
    """The policy-based storage's check of one create (``old`` None) or update of an RBAC object.

    Called by the API server after mutating admission and before validation,
    where upstream's storage wrapper runs. Nothing is checked without an
    authorizer (AlwaysAllow allows ``escalate`` and ``bind``).

    Parameters
    ----------
    server : APIServer
        Its ``authorizer`` answers ``escalate``/``bind``; it is the reader the rules are resolved from.
    attrs : Attributes
    obj : dict
        The object to be written.
    old : dict or None
        The stored object of an update.

    Raises
    ------
    ApiError
        403 Forbidden (an escalation, or an aggregationRule without full
        authority), 404 NotFound (a binding's role does not exist), 500
        InternalError (a ``roleRef`` kind other than Role and ClusterRole, as
        upstream's resolver error surfaces before validation).
    """
    ri = attrs.resource
    if ri.group != RBAC_GROUP or server.authorizer is None or escalation_allowed(attrs.user):
        return
    if ri.resource not in _ROLE_RESOURCES and ri.resource not in _BINDING_RESOURCES:
        return
    if is_only_mutating_gc_fields(obj, old):
        return
    name = (obj.get("metadata") or {}).get("name", "")  # "" for a generateName create, as upstream's message
    namespace = attrs.namespace if ri.namespaced else ""
    resolver = _resolver(server)
    if ri.resource in _ROLE_RESOURCES:
        if role_escalation_authorized(server.authorizer, attrs):
            return
        err = confirm_no_escalation(resolver, attrs.user, namespace, obj.get("rules") or ())
        if err is not None:
            raise new_forbidden(RBAC_GROUP, ri.resource, name, err)
        if ri.resource == "clusterroles" and (_has_aggregation_rule(obj) or _has_aggregation_rule(old)):
            if confirm_no_escalation(resolver, attrs.user, namespace, FULL_AUTHORITY) is not None:
                raise new_forbidden(RBAC_GROUP, ri.resource, name, AGGREGATION_RULE_FORBIDDEN)
        return
    ref = obj.get("roleRef") or {}
    if binding_authorized(server.authorizer, attrs.user, ref, namespace):
        return
    rules, err = resolver.get_role_reference_rules(ref, namespace)
    if err is not None:
        kind = ref.get("kind", "")
        if kind in ("Role", "ClusterRole"):
            raise new_not_found(RBAC_GROUP, "roles" if kind == "Role" else "clusterroles", ref.get("name", ""))
        raise new_internal_error(err)
    err = confirm_no_escalation(resolver, attrs.user, namespace, rules or ())
    if err is not None:
        raise new_forbidden(RBAC_GROUP, ri.resource, name, err)


def _resolver(server: Any) -> RegistryRuleResolver:
    """The server's registry rule resolver, made once (it re-reads RBAC objects when they change)."""
    r = server.__dict__.get("_registry_rule_resolver")
    if r is None:
        r = server.__dict__["_registry_rule_resolver"] = RegistryRuleResolver(server)
    return r

