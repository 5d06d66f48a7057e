"""The RBAC authorizer: which Roles and ClusterRoles, bound to whom, allow a request.

For each request the authorizer walks the rules that apply to the user, as
upstream's ``DefaultRuleResolver.VisitRulesFor`` does: first every
ClusterRoleBinding whose subjects include the user (by name, group, or
ServiceAccount), then, for a namespaced request, every RoleBinding in that
namespace. A binding's ``roleRef`` names a Role in the binding's namespace or a
ClusterRole (a RoleBinding to a ClusterRole grants its rules only inside the
binding's namespace). The first rule that matches the verb, API group,
resource (``resource/subresource``, ``*``, ``*/subresource``) and resource name
allows the request, and the reason says where it came from::

    RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"

If nothing matches the decision is ``NoOpinion`` (which the API server turns
into 403 Forbidden) with an empty reason, unless a binding pointed at a role
that does not exist, in which case the reason lists those errors
(``RBAC: clusterrole.rbac.authorization.k8s.io "x" not found``).

A ClusterRole with an ``aggregationRule`` gets the rules of every ClusterRole
its label selectors match (sorted by name, duplicates dropped), as the
clusterrole-aggregation controller writes them.

References
----------
kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/rbac.go
kubernetes/kubernetes@v1.34.0 pkg/registry/rbac/validation/rule.go
kubernetes/kubernetes@v1.34.0 pkg/apis/rbac/v1/evaluation_helpers.go
kubernetes/kubernetes@v1.34.0 pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go
kubernetes/kubernetes@v1.34.0 pkg/kubeapiserver/authorizer/reload.go (the system:masters authorizer in front of RBAC)
kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go
https://kubernetes.io/docs/reference/access-authn-authz/rbac/
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from kubenotes.apiserver.request import SYSTEM_MASTERS, Attributes, UserInfo
from kubenotes.apiserver.status import aggregate_causes

__all__ = [
    "RBACAuthorizer",
    "can_i_matrix",
    "PrivilegedGroupsAuthorizer",
    "NonResourceAttributes",
    "ALLOW",
    "DENY",
    "NO_OPINION",
    "rule_allows",
    "verb_matches",
    "api_group_matches",
    "resource_matches",
    "resource_name_matches",
    "non_resource_url_matches",
    "applies_to",
    "describe_subject",
    "aggregated_rules",
    "resource_attributes",
    "subject_rules_review_status",
]

#: ``authorizer.Decision`` values.
ALLOW = "Allow"
DENY = "Deny"
NO_OPINION = "NoOpinion"

RBAC_GROUP = "rbac.authorization.k8s.io"
SERVICE_ACCOUNT_USERNAME_PREFIX = "system:serviceaccount:"

#: ``rbacv1.VerbAll``, ``APIGroupAll``, ``ResourceAll``, ``NonResourceAll``.
_ALL = "*"


@dataclass(frozen=True)
class NonResourceAttributes:
    """A request for a non-resource URL (``GET /healthz``, ``GET /version``): ``IsResourceRequest() == false``.

    Attributes
    ----------
    user : UserInfo
    verb : str
        The lower-case HTTP method (``get``, ``post``...).
    path : str
    """

    user: UserInfo
    verb: str
    path: str
    namespace: str = ""


# ------------------------------------------------------------------ rule evaluation (evaluation_helpers.go)

def verb_matches(rule: dict, verb: str) -> bool:
    """``VerbMatches``: the rule lists the verb or ``*`` (verbs are case-sensitive: ``GET`` is not ``get``)."""
    verbs = rule.get("verbs") or ()
    return _ALL in verbs or verb in verbs


def api_group_matches(rule: dict, group: str) -> bool:
    """``APIGroupMatches``: the rule lists the group (``""`` is core) or ``*``."""
    groups = rule.get("apiGroups") or ()
    return _ALL in groups or group in groups


def resource_matches(rule: dict, combined_resource: str, subresource: str) -> bool:
    """``ResourceMatches``: ``*``, the exact ``resource[/subresource]``, or ``*/<subresource>``.

    Parameters
    ----------
    rule : dict
    combined_resource : str
        ``pods`` or ``pods/status``.
    subresource : str
        ``""`` or ``status``.

    Examples
    --------
    >>> resource_matches({"resources": ["*/scale"]}, "deployments/scale", "scale")
    True
    >>> resource_matches({"resources": ["pods"]}, "pods/status", "status")
    False
    >>> resource_matches({"resources": ["*"]}, "pods/status", "status")
    True
    """
    for r in rule.get("resources") or ():
        if r == _ALL or r == combined_resource:
            return True
        if subresource and len(r) == len(subresource) + 2 and r.startswith("*/") and r.endswith(subresource):
            return True
    return False


def resource_name_matches(rule: dict, name: str) -> bool:
    """``ResourceNameMatches``: no ``resourceNames`` means any name; otherwise the name must be listed.

    A request without a name (``list``, ``create``) never matches a rule with ``resourceNames``.
    """
    names = rule.get("resourceNames")
    if not names:
        return True
    return name in names


def non_resource_url_matches(rule: dict, path: str) -> bool:
    """``NonResourceURLMatches``: ``*``, the exact path, or a prefix ending in ``*``.

    Examples
    --------
    >>> rule = {"nonResourceURLs": ["/apis/*"]}
    >>> non_resource_url_matches(rule, "/apis/v1"), non_resource_url_matches(rule, "/apis")
    (True, False)
    """
    for u in rule.get("nonResourceURLs") or ():
        if u == _ALL or u == path:
            return True
        if u.endswith("*") and path.startswith(u[:-1]):
            return True
    return False


def _is_resource_request(attrs: Any) -> bool:
    return not isinstance(attrs, NonResourceAttributes)


def rule_allows(attrs: Attributes | NonResourceAttributes, rule: dict) -> bool:
    """``RuleAllows``: whether one PolicyRule allows the request.

    Parameters
    ----------
    attrs : Attributes or NonResourceAttributes
    rule : dict
        A PolicyRule (``verbs``, ``apiGroups``, ``resources``, ``resourceNames``, ``nonResourceURLs``).

    Returns
    -------
    bool

    Examples
    --------
    >>> from kubenotes.apiserver.resources import resource_for
    >>> a = Attributes(UserInfo("bob"), "update", resource_for("pods"), "status", "default", "web")
    >>> rule_allows(a, {"verbs": ["update"], "apiGroups": [""], "resources": ["pods/status"]})
    True
    >>> rule_allows(a, {"verbs": ["update"], "apiGroups": [""], "resources": ["pods"]})
    False
    """
    if _is_resource_request(attrs):
        ri = attrs.resource
        combined = f"{ri.resource}/{attrs.subresource}" if attrs.subresource else ri.resource
        return (verb_matches(rule, attrs.verb) and api_group_matches(rule, ri.group)
                and resource_matches(rule, combined, attrs.subresource)
                and resource_name_matches(rule, attrs.name))
    return verb_matches(rule, attrs.verb) and non_resource_url_matches(rule, attrs.path)


# ------------------------------------------------------------------ subjects (rule.go)

def _subject_username(subject: dict, namespace: str) -> str | None:
    """The user name a User or ServiceAccount subject matches (None when it matches nobody)."""
    kind = subject.get("kind")
    if kind == "User":
        return subject.get("name", "")
    if kind == "ServiceAccount":
        ns = subject.get("namespace") or namespace
        if not ns:
            return None
        return f"{SERVICE_ACCOUNT_USERNAME_PREFIX}{ns}:{subject.get('name', '')}"
    return None


def applies_to(user: UserInfo, subjects: Sequence[dict], namespace: str) -> tuple[int, bool]:
    """``appliesTo``: whether any subject of a binding is this user, and the index of the first that is.

    Parameters
    ----------
    user : UserInfo
    subjects : sequence of dict
        ``{"kind": "User"|"Group"|"ServiceAccount", "name", "namespace"?}``.
    namespace : str
        The binding's namespace (``""`` for a ClusterRoleBinding): a
        ServiceAccount subject without a namespace means one in it.

    Returns
    -------
    (int, bool)

    Examples
    --------
    >>> sa = UserInfo("system:serviceaccount:kube-system:default")
    >>> applies_to(sa, [{"kind": "User", "name": "x"}, {"kind": "ServiceAccount", "name": "default",
    ...                                                  "namespace": "kube-system"}], "default")
    (1, True)
    >>> applies_to(UserInfo("foobar"), [{"kind": "User", "name": "*"}], "default")
    (0, False)
    """
    for i, s in enumerate(subjects):
        kind = s.get("kind")
        if kind == "Group":
            if s.get("name") in user.groups:
                return i, True
        elif _subject_username(s, namespace) == user.name:
            return i, True
    return 0, False


def describe_subject(subject: dict, binding_namespace: str) -> str:
    """``describeSubject``: ``User "alice"``, ``Group "system:masters"``, ``ServiceAccount "name/namespace"``."""
    if subject.get("kind") == "ServiceAccount":
        ns = subject.get("namespace") or binding_namespace
        return f'ServiceAccount "{subject.get("name", "")}/{ns}"'
    return f'{subject.get("kind", "")} "{subject.get("name", "")}"'


def _describe_binding(binding: dict, subject: dict) -> str:
    md = binding.get("metadata", {})
    ref = binding.get("roleRef") or {}
    if binding.get("kind") == "RoleBinding" or md.get("namespace"):
        ns = md.get("namespace", "")
        return (f'RoleBinding "{md.get("name", "")}/{ns}" of {ref.get("kind", "")} "{ref.get("name", "")}" '
                f'to {describe_subject(subject, ns)}')
    return (f'ClusterRoleBinding "{md.get("name", "")}" of {ref.get("kind", "")} "{ref.get("name", "")}" '
            f'to {describe_subject(subject, "")}')


# ------------------------------------------------------------------ aggregation

def _norm_rule(rule: dict) -> tuple:
    return tuple(tuple(rule.get(k) or ()) for k in ("verbs", "apiGroups", "resources", "resourceNames",
                                                     "nonResourceURLs"))


def _selector_matches(selector: dict, labels: dict) -> bool:
    from kubenotes.api.selectors import LabelSelector

    try:
        return LabelSelector.from_api(selector).matches(labels)
    except Exception:  # an invalid selector matches nothing (LabelSelectorAsSelector fails, the controller skips it)
        return False


def aggregated_rules(role: dict, cluster_roles: Iterable[dict], _visiting: frozenset[str] = frozenset()) -> list[dict]:
    """The rules the clusterrole-aggregation controller writes into an aggregated ClusterRole.

    For each selector of ``aggregationRule.clusterRoleSelectors`` in order,
    the matching ClusterRoles other than ``role`` itself, sorted by name,
    contribute their rules; a rule already collected is not added again.
    A matched role that aggregates in turn contributes its own aggregated
    rules (what the controller converges to).

    Parameters
    ----------
    role : dict
        A ClusterRole; without ``aggregationRule`` its own ``rules`` are returned.
    cluster_roles : iterable of dict
        Every ClusterRole in the cluster.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> view = {"metadata": {"name": "view"}, "aggregationRule": {"clusterRoleSelectors": [
    ...     {"matchLabels": {"agg": "view"}}]}}
    >>> a = {"metadata": {"name": "a", "labels": {"agg": "view"}}, "rules": [{"verbs": ["get"]}]}
    >>> b = {"metadata": {"name": "b", "labels": {"agg": "view"}}, "rules": [{"verbs": ["get"]}, {"verbs": ["list"]}]}
    >>> aggregated_rules(view, [view, b, a])
    [{'verbs': ['get']}, {'verbs': ['list']}]
    """
    name = role.get("metadata", {}).get("name", "")
    agg = role.get("aggregationRule")
    if agg is None or name in _visiting:
        return list(role.get("rules") or [])
    roles = sorted(cluster_roles, key=lambda r: r.get("metadata", {}).get("name", ""))
    visiting = _visiting | {name}
    out: list[dict] = []
    seen: set[tuple] = set()
    for sel in agg.get("clusterRoleSelectors") or []:
        for other in roles:
            md = other.get("metadata", {})
            if md.get("name") == name or not _selector_matches(sel, md.get("labels") or {}):
                continue
            for rule in aggregated_rules(other, roles, visiting):
                key = _norm_rule(rule)
                if key not in seen:
                    seen.add(key)
                    out.append(rule)
    return out


# ------------------------------------------------------------------ authorizers

class PrivilegedGroupsAuthorizer:
    """``authorizerfactory.NewPrivilegedGroups``: allow any request from a member of the given groups.

    kube-apiserver puts one, for ``system:masters``, in front of every
    configured authorization mode; it allows with an empty reason and
    has no opinion otherwise.

    Examples
    --------
    >>> masters = UserInfo("a", groups=("system:masters",))
    >>> PrivilegedGroupsAuthorizer().authorize(NonResourceAttributes(masters, "get", "/x"))
    ('Allow', '')
    """

    def __init__(self, groups: Iterable[str] = (SYSTEM_MASTERS,)):
        self.groups = frozenset(groups)

    def authorize(self, attrs: Any) -> tuple[str, str]:
        if self.groups.intersection(attrs.user.groups):
            return ALLOW, ""
        return NO_OPINION, ""


class _Snapshot:
    """The RBAC objects of one store revision, indexed by subject."""

    __slots__ = ("crbs", "crb_index", "rbs", "rb_index", "roles", "cluster_roles", "rules_cache")

    def __init__(self, reader: Any):
        self.crbs: list[dict] = list(reader.list("clusterrolebindings"))
        self.crb_index = self._index(self.crbs, "")
        self.rbs: dict[str, list[dict]] = {}
        for rb in reader.list("rolebindings"):
            self.rbs.setdefault(rb.get("metadata", {}).get("namespace", ""), []).append(rb)
        self.rb_index = {ns: self._index(lst, ns) for ns, lst in self.rbs.items()}
        self.cluster_roles = {r["metadata"]["name"]: r for r in reader.list("clusterroles")}
        self.roles = {(r["metadata"].get("namespace", ""), r["metadata"]["name"]): r for r in reader.list("roles")}
        self.rules_cache: dict[tuple[str, str, str], tuple[list[dict] | None, str | None]] = {}

    @staticmethod
    def _index(bindings: list[dict], namespace: str) -> dict[tuple[str, str], list[tuple[int, int]]]:
        """(``"user"``|``"group"``, name) -> [(binding position, subject position)]."""
        idx: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for bi, b in enumerate(bindings):
            for si, s in enumerate(b.get("subjects") or ()):
                if s.get("kind") == "Group":
                    key = ("group", s.get("name", ""))
                else:
                    user = _subject_username(s, namespace)
                    if user is None:
                        continue
                    key = ("user", user)
                idx.setdefault(key, []).append((bi, si))
        return idx


def _matching(index: dict, user: UserInfo) -> list[tuple[int, int]]:
    """Bindings that apply to ``user``, in binding order, each with its first applying subject."""
    first: dict[int, int] = {}
    for key in (("user", user.name), *(("group", g) for g in user.groups)):
        for bi, si in index.get(key, ()):
            if bi not in first or si < first[bi]:
                first[bi] = si
    return sorted(first.items())


class RBACAuthorizer:
    """``--authorization-mode=RBAC`` over the API server's Roles, ClusterRoles and their bindings.

    Parameters
    ----------
    reader : StoreReader
        The API server (``.list(resource, namespace=None)`` and
        ``.get(resource, namespace, name)`` of stored dicts).
    privileged_groups : iterable of str
        Groups allowed everything before RBAC is consulted, as
        kube-apiserver's ``system:masters`` authorizer does (``()``: RBAC alone).

    Returns
    -------
    RBACAuthorizer
        Holds ``reader`` and ``privileged`` (a :class:`PrivilegedGroupsAuthorizer`);
        :meth:`authorize` returns ``(decision, reason)``, ``decision`` being
        ``Allow`` or ``NoOpinion`` (RBAC never denies).

    Raises
    ------
    AttributeError
        Not from the constructor, which only stores ``reader``: at the first
        :meth:`authorize` call, when ``reader`` has no ``list``.
    KeyError
        At :meth:`authorize`, when a stored Role or ClusterRole has no
        ``metadata.name`` (the API server never stores one).

    See Also
    --------
    resource_attributes : the ``Attributes`` of a ``kubectl auth can-i`` question.

    Notes
    -----
    Upstream visits ClusterRoleBindings in informer-cache order (effectively
    random); here they are visited in store (etcd key) order, so when several
    bindings allow a request the reason names the first by name. The subject
    index and resolved role rules are rebuilt whenever an RBAC object changes
    (the API server's RBAC revision; with a reader without one, on every
    call). Aggregated ClusterRoles are resolved when a request needs them,
    standing in for the clusterrole-aggregation controller.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/rbac.go

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> from kubenotes.apiserver.resources import resource_for
    >>> api = APIServer(seed=0)
    >>> admin = api.client("kubectl")
    >>> _ = admin.create("clusterroles", {"metadata": {"name": "pod-reader"},
    ...     "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]})
    >>> _ = admin.create("rolebindings", {"metadata": {"name": "read-pods", "namespace": "dev"},
    ...     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "pod-reader"},
    ...     "subjects": [{"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"}]})
    >>> rbac = RBACAuthorizer(api)
    >>> rbac.authorize(Attributes(UserInfo("jane"), "list", resource_for("pods"), namespace="dev"))
    ('Allow', 'RBAC: allowed by RoleBinding "read-pods/dev" of ClusterRole "pod-reader" to User "jane"')
    >>> rbac.authorize(Attributes(UserInfo("jane"), "list", resource_for("pods"), namespace="prod"))
    ('NoOpinion', '')
    """

    #: How a missing Role / ClusterRole is named in a resolution error: the authorizer's listers say
    #: ``role.rbac.authorization.k8s.io``; the registry's rule resolver (escalation checks) says ``roles...``.
    not_found_resources: tuple[str, str] = ("role", "clusterrole")

    def __init__(self, reader: Any, *, privileged_groups: Iterable[str] = (SYSTEM_MASTERS,)):
        self.reader = reader
        self.privileged = PrivilegedGroupsAuthorizer(privileged_groups)
        self._snapshot: _Snapshot | None = None
        self._revision: Any = None

    # ------------------------------------------------------------ snapshot
    def _current(self) -> _Snapshot:
        rev = getattr(self.reader, "_rbac_revision", None)
        if self._snapshot is None or rev is None or rev != self._revision:
            self._snapshot = _Snapshot(self.reader)
            self._revision = rev
        return self._snapshot

    def _role_reference_rules(self, snap: _Snapshot, ref: dict, namespace: str) -> tuple[list[dict] | None,
                                                                                         str | None]:
        """``GetRoleReferenceRules``: (rules, None) or (None, error message)."""
        kind, name = ref.get("kind", ""), ref.get("name", "")
        key = (kind, namespace if kind == "Role" else "", name)
        hit = snap.rules_cache.get(key)
        if hit is not None:
            return hit
        if kind == "Role":
            role = snap.roles.get((namespace, name))
            out = (list(role.get("rules") or []), None) if role is not None else (
                None, f'{self.not_found_resources[0]}.{RBAC_GROUP} "{name}" not found')
        elif kind == "ClusterRole":
            role = snap.cluster_roles.get(name)
            out = (aggregated_rules(role, snap.cluster_roles.values()), None) if role is not None else (
                None, f'{self.not_found_resources[1]}.{RBAC_GROUP} "{name}" not found')
        else:
            out = (None, f'unsupported role reference kind: "{kind}"')
        snap.rules_cache[key] = out
        return out

    def visit_rules_for(self, user: UserInfo, namespace: str) -> Iterator[tuple[str | None, dict | None, str | None]]:
        """``VisitRulesFor``: every (source description, rule, error) that applies to ``user`` in ``namespace``.

        ClusterRoleBindings first, then (when ``namespace`` is set) the
        RoleBindings of that namespace. A binding whose role is missing yields
        ``(None, None, error)``.
        """
        snap = self._current()
        for bi, si in _matching(snap.crb_index, user):
            b = snap.crbs[bi]
            rules, err = self._role_reference_rules(snap, b.get("roleRef") or {}, "")
            if err is not None:
                yield None, None, err
                continue
            source = _describe_binding(b, b["subjects"][si])
            for rule in rules or ():
                yield source, rule, None
        if namespace:
            bindings = snap.rbs.get(namespace, [])
            for bi, si in _matching(snap.rb_index.get(namespace, {}), user):
                b = bindings[bi]
                rules, err = self._role_reference_rules(snap, b.get("roleRef") or {}, namespace)
                if err is not None:
                    yield None, None, err
                    continue
                source = _describe_binding(b, b["subjects"][si])
                for rule in rules or ():
                    yield source, rule, None

    def rules_for(self, user: UserInfo, namespace: str = "") -> tuple[list[dict], list[str]]:
        """``RulesFor``: every rule that applies to ``user`` in ``namespace`` and the resolution errors.

        What ``kubectl auth can-i --list`` prints (for the RBAC part).
        """
        rules, errors = [], []
        for _, rule, err in self.visit_rules_for(user, namespace):
            if rule is not None:
                rules.append(rule)
            if err is not None:
                errors.append(err)
        return rules, errors

    def authorize_rbac(self, attrs: Attributes | NonResourceAttributes) -> tuple[str, str]:
        """RBAC alone (``RBACAuthorizer.Authorize``): ``(Allow, reason)`` or ``(NoOpinion, reason)``."""
        errors: list[str] = []
        for source, rule, err in self.visit_rules_for(attrs.user, attrs.namespace):
            if rule is not None and rule_allows(attrs, rule):
                return ALLOW, f"RBAC: allowed by {source}"
            if err is not None:
                errors.append(err)
        return NO_OPINION, (f"RBAC: {aggregate_causes(errors)}" if errors else "")

    def authorize(self, attrs: Attributes | NonResourceAttributes) -> tuple[str, str]:
        """The privileged-groups authorizer, then RBAC.

        Parameters
        ----------
        attrs : Attributes or NonResourceAttributes

        Returns
        -------
        (str, str)
            ``("Allow", reason)`` or ``("NoOpinion", reason)``; the API server
            answers ``NoOpinion`` with 403 Forbidden, appending a non-empty
            reason to the message.
        """
        decision = self.privileged.authorize(attrs)
        if decision[0] == ALLOW:
            return decision
        return self.authorize_rbac(attrs)

    def can_i(self, attrs: Attributes | NonResourceAttributes) -> bool:
        """Whether the request would be allowed (a SubjectAccessReview's ``status.allowed``).

        Examples
        --------
        >>> from kubenotes.apiserver.server import APIServer
        >>> rbac = RBACAuthorizer(APIServer(seed=0))
        >>> rbac.can_i(resource_attributes(UserInfo("kubernetes-admin", groups=("system:masters",)), "delete", "nodes"))
        True
        >>> rbac.can_i(resource_attributes(UserInfo("jane"), "get", "pods", "default"))
        False
        """
        return self.authorize(attrs)[0] == ALLOW


def resource_attributes(user: UserInfo, verb: str, resource: str, namespace: str = "", name: str = "",
                        subresource: str = "") -> Attributes:
    """Request attributes for ``kubectl auth can-i VERB RESOURCE[/SUBRESOURCE] [NAME] -n NAMESPACE``.

    Parameters
    ----------
    user : UserInfo
    verb : str
    resource : str
        Any name ``kubectl`` accepts (``pods``, ``deploy``, ``deployments.apps``);
        ``pods/status`` splits off the subresource.
    namespace, name, subresource : str
        Empty for "all"; ``namespace`` is dropped for a cluster-scoped resource.

    Returns
    -------
    Attributes
        ``(user, verb, resource info, subresource, namespace, name)``, ready for
        :meth:`RBACAuthorizer.authorize`.

    Raises
    ------
    ApiError
        400 BadRequest for a resource the model does not serve.

    See Also
    --------
    RBACAuthorizer.authorize

    Notes
    -----
    ``kubectl auth can-i`` sends a ``SelfSubjectAccessReview`` and the API
    server builds these attributes from it; here they are built directly.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/auth/cani.go
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go (AttributesRecord)

    Examples
    --------
    >>> a = resource_attributes(UserInfo("jane"), "get", "pods/log", "dev", "web")
    >>> a.verb, a.resource.resource, a.subresource, a.namespace, a.name
    ('get', 'pods', 'log', 'dev', 'web')
    >>> resource_attributes(UserInfo("jane"), "list", "nodes", "dev").namespace
    ''
    """
    from kubenotes.apiserver.resources import resource_for

    if "/" in resource and not subresource:
        resource, subresource = resource.split("/", 1)
    ri = resource_for(resource)
    return Attributes(user, verb, ri, subresource, namespace if ri.namespaced else "", name)


def can_i_matrix(authorizer: Any, user: UserInfo, resources: Sequence[str], namespace: str = "default",
                 verbs: Sequence[str] = ("get", "list", "watch", "create", "update", "delete")) -> dict[str, dict[str, bool]]:
    """``kubectl auth can-i VERB RESOURCE -n NAMESPACE --as USER`` for every verb and resource of a grid.

    Parameters
    ----------
    authorizer : RBACAuthorizer
        Anything with ``can_i(attributes) -> bool`` (:meth:`RBACAuthorizer.can_i`).
    user : UserInfo
    resources : sequence of str
        Resource names as :func:`resource_attributes` takes them (``pods``,
        ``secrets``, ``deployments``, ``pods/log``...).
    namespace : str
    verbs : sequence of str

    Returns
    -------
    dict[str, dict[str, bool]]
        Resource -> verb -> allowed, both in the order given.

    Raises
    ------
    ApiError
        400 BadRequest for a resource the model does not serve (as
        :func:`resource_attributes`).
    AttributeError
        When ``authorizer`` has no ``can_i``.

    See Also
    --------
    resource_attributes, RBACAuthorizer.can_i, kubenotes.viz.controlplane.can_i_table

    Notes
    -----
    Upstream, each ``kubectl auth can-i`` sends a SelfSubjectAccessReview
    (with ``--as``, impersonated); here the authorizer is asked directly, with
    no request, authentication or audit entry.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/auth/cani.go
    kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/rbac.go

    Examples
    --------
    >>> class Reads:
    ...     def can_i(self, attrs): return attrs.verb == "get"
    >>> can_i_matrix(Reads(), UserInfo("jane"), ["pods"], verbs=("get", "delete"))
    {'pods': {'get': True, 'delete': False}}
    """
    return {res: {verb: authorizer.can_i(resource_attributes(user, verb, res, namespace)) for verb in verbs}
            for res in resources}


def subject_rules_review_status(authorizer: RBACAuthorizer, user: UserInfo, namespace: str) -> dict:
    """The ``status`` of a SelfSubjectRulesReview (``kubectl auth can-i --list``) for ``user`` in ``namespace``.

    Each RBAC rule that applies (``RulesFor``: ClusterRoleBindings, then the
    namespace's RoleBindings) becomes a ``resourceRules`` entry when it names
    resources and a ``nonResourceRules`` entry when it names URLs; a binding
    whose role is missing sets ``evaluationError`` (the aggregated messages).

    Parameters
    ----------
    authorizer : RBACAuthorizer
    user : UserInfo
        The requesting user (a *self* review: the one who sent the request).
    namespace : str
        ``spec.namespace`` of the review.

    Returns
    -------
    dict
        ``{"resourceRules": [...], "nonResourceRules": [...], "incomplete": False}``
        plus ``evaluationError`` when a role could not be resolved.

    Notes
    -----
    Only RBAC resolves rules, as the API server's rule resolvers do for
    RBAC-authorized users; ``system:masters`` gets its rules through the
    ``cluster-admin`` ClusterRoleBinding. ``incomplete`` is always false:
    RBAC's ``RulesFor`` never reports an incomplete list.

    References
    ----------
    kubernetes/kubernetes@v1.34.0 pkg/registry/authorization/selfsubjectrulesreview/rest.go
    kubernetes/kubernetes@v1.34.0 plugin/pkg/auth/authorizer/rbac/rbac.go (RulesFor)
    kubernetes/kubernetes@v1.34.0 staging/src/k8s.io/kubectl/pkg/cmd/auth/cani.go (how --list prints it)

    Examples
    --------
    >>> from kubenotes.apiserver.server import APIServer
    >>> api = APIServer(seed=0)
    >>> admin = api.client("kubectl")
    >>> _ = admin.create("roles", {"metadata": {"name": "pod-reader", "namespace": "dev"},
    ...     "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]}, "dev")
    >>> _ = admin.create("rolebindings", {"metadata": {"name": "read-pods", "namespace": "dev"},
    ...     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
    ...     "subjects": [{"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"}]}, "dev")
    >>> subject_rules_review_status(RBACAuthorizer(api), UserInfo("jane"), "dev")
    {'resourceRules': [{'verbs': ['get', 'list'], 'apiGroups': [''], 'resources': ['pods']}], 'nonResourceRules': [], 'incomplete': False}
    >>> subject_rules_review_status(RBACAuthorizer(api), UserInfo("jane"), "prod")["resourceRules"]
    []
    """
    resource_rules: list[dict] = []
    non_resource_rules: list[dict] = []
    rules, errors = authorizer.rules_for(user, namespace)
    for rule in rules:
        if rule.get("resources"):
            r = {"verbs": list(rule.get("verbs") or []), "apiGroups": list(rule.get("apiGroups") or []),
                 "resources": list(rule["resources"])}
            if rule.get("resourceNames"):
                r["resourceNames"] = list(rule["resourceNames"])
            resource_rules.append(r)
        if rule.get("nonResourceURLs"):
            non_resource_rules.append({"verbs": list(rule.get("verbs") or []),
                                       "nonResourceURLs": list(rule["nonResourceURLs"])})
    status: dict[str, Any] = {"resourceRules": resource_rules, "nonResourceRules": non_resource_rules,
                              "incomplete": False}
    if errors:
        status["evaluationError"] = aggregate_causes(errors)
    return status
