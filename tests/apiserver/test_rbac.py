"""The RBAC authorizer and the bootstrap policy.

Ported from upstream (kubernetes/kubernetes@v1.34.0):

* ``plugin/pkg/auth/authorizer/rbac/rbac_test.go``: ``TestRuleMatches`` (star verb, star group, star
  resource, tuple expansion, subresource expansion, star non-resource, non-resource subpath, star verb with
  exact non-resource URLs) and ``TestAuthorizer`` (the RoleBinding-to-ClusterRole case, the non-resource-URL
  case, and the two subresource-resolution cases).
* ``pkg/registry/rbac/validation/rule_test.go``: ``TestDefaultRuleResolver`` (effective rules per user and
  namespace) and ``TestAppliesTo`` (every case).

The rest are kubenotes cases for upstream's documented behaviour: reason strings of ``rule.go``'s binding
describers, ``RBAC: <not found>`` reasons, ``*/subresource`` and ``resourceNames`` rules, ClusterRole
aggregation, the ``system:masters`` authorizer in front of RBAC (``pkg/kubeapiserver/authorizer/reload.go``),
the Forbidden message through the API server, and what the bootstrap roles let each component do
(``bootstrappolicy/testdata/*.yaml``).
"""

from __future__ import annotations

import pytest

from kubenotes.apiserver import bootstrap_policy as bp
from kubenotes.apiserver.rbac import (
    ALLOW,
    NO_OPINION,
    NonResourceAttributes,
    RBACAuthorizer,
    aggregated_rules,
    applies_to,
    resource_attributes,
    rule_allows,
    subject_rules_review_status,
)
from kubenotes.apiserver.request import Attributes, UserInfo
from kubenotes.apiserver.resources import ResourceInfo, resource_for
from kubenotes.apiserver.server import APIServer
from kubenotes.apiserver.status import ApiError
from kubenotes.controllers import CONTROLLER_POLICIES

RBAC = "rbac.authorization.k8s.io"
#: What a cluster passes to the bootstrap policy: every controller's declared ServiceAccount and rules.
POLICIES = CONTROLLER_POLICIES.values()
#: Controller name -> the ServiceAccount it runs as (None: kube-controller-manager's own credentials).
CONTROLLER_SERVICE_ACCOUNTS = {name: p.service_account for name, p in CONTROLLER_POLICIES.items()}


# ------------------------------------------------------------------ helpers in the shape of rbac_test.go

def new_rule(verbs, groups, resources, urls):
    return {"verbs": verbs.split(","), "apiGroups": groups.split(","), "resources": resources.split(","),
            "nonResourceURLs": urls.split(",")}


def _subjects(subjects):
    out = []
    for s in subjects:
        kind, name = s.split(":", 1)
        if kind == "ServiceAccount":  # "ServiceAccount:name" or "ServiceAccount:namespace:name"
            ns, _, n = name.rpartition(":")
            out.append({"kind": kind, "name": n, **({"namespace": ns} if ns else {})})
        else:
            out.append({"kind": kind, "apiGroup": RBAC, "name": name})
    return out


def cluster_role(name, *rules, labels=None):
    return {"kind": "ClusterRole", "metadata": {"name": name, "labels": labels or {}}, "rules": list(rules)}


def role(name, namespace, *rules):
    return {"kind": "Role", "metadata": {"name": name, "namespace": namespace}, "rules": list(rules)}


def cluster_role_binding(role_name, *subjects, name=None):
    return {"kind": "ClusterRoleBinding", "metadata": {"name": name or f"crb-{role_name}"},
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role_name},
            "subjects": _subjects(subjects)}


def role_binding(namespace, role_name, kind, *subjects, name=None):
    return {"kind": "RoleBinding", "metadata": {"name": name or f"rb-{role_name}", "namespace": namespace},
            "roleRef": {"apiGroup": RBAC, "kind": kind, "name": role_name}, "subjects": _subjects(subjects)}


class StaticRoles:
    """``validation.StaticRoles``: a reader over fixed lists (no RBAC revision, so nothing is cached)."""

    def __init__(self, roles=(), role_bindings=(), cluster_roles=(), cluster_role_bindings=()):
        self.objs = {"roles": list(roles), "rolebindings": list(role_bindings),
                     "clusterroles": list(cluster_roles), "clusterrolebindings": list(cluster_role_bindings)}

    def list(self, resource, namespace=None):
        return [o for o in self.objs[resource] if namespace is None or o["metadata"].get("namespace") == namespace]

    def get(self, resource, namespace, name):
        return next((o for o in self.list(resource, namespace) if o["metadata"]["name"] == name), None)


def attrs(user, groups, verb, resource, subresource, namespace, group, name=""):
    ri = ResourceInfo(group, "v1", resource, resource.capitalize(), bool(namespace))
    return Attributes(UserInfo(user, groups=tuple(g for g in groups.split(",") if g)), verb, ri, subresource,
                      namespace, name)


def req(verb, group="", resource="", subresource="", name=""):
    return Attributes(UserInfo("u"), verb, ResourceInfo(group, "v1", resource, "X", True), subresource, "ns", name)


def url(verb, path):
    return NonResourceAttributes(UserInfo("u"), verb, path)


def pure_rbac(reader):
    return RBACAuthorizer(reader, privileged_groups=())


# ------------------------------------------------------------------ TestRuleMatches

RULE_MATCHES = [
    ("star verb, exact match other", {"verbs": ["*"], "apiGroups": ["group1"], "resources": ["resource1"]}, {
        ("verb1", "group1", "resource1"): True, ("verb1", "group2", "resource1"): False,
        ("verb1", "group1", "resource2"): False, ("verb1", "group2", "resource2"): False,
        ("verb2", "group1", "resource1"): True, ("verb2", "group2", "resource1"): False,
        ("verb2", "group1", "resource2"): False, ("verb2", "group2", "resource2"): False}),
    ("star group, exact match other", {"verbs": ["verb1"], "apiGroups": ["*"], "resources": ["resource1"]}, {
        ("verb1", "group1", "resource1"): True, ("verb1", "group2", "resource1"): True,
        ("verb1", "group1", "resource2"): False, ("verb1", "group2", "resource2"): False,
        ("verb2", "group1", "resource1"): False, ("verb2", "group2", "resource1"): False,
        ("verb2", "group1", "resource2"): False, ("verb2", "group2", "resource2"): False}),
    ("star resource, exact match other", {"verbs": ["verb1"], "apiGroups": ["group1"], "resources": ["*"]}, {
        ("verb1", "group1", "resource1"): True, ("verb1", "group2", "resource1"): False,
        ("verb1", "group1", "resource2"): True, ("verb1", "group2", "resource2"): False,
        ("verb2", "group1", "resource1"): False, ("verb2", "group2", "resource1"): False,
        ("verb2", "group1", "resource2"): False, ("verb2", "group2", "resource2"): False}),
    ("tuple expansion", {"verbs": ["verb1", "verb2"], "apiGroups": ["group1", "group2"],
                         "resources": ["resource1", "resource2"]},
     {(v, g, r): True for v in ("verb1", "verb2") for g in ("group1", "group2") for r in ("resource1", "resource2")}),
]


@pytest.mark.parametrize("name,rule,cases", RULE_MATCHES, ids=[c[0] for c in RULE_MATCHES])
def test_rule_matches(name, rule, cases):
    for (verb, group, resource), expected in cases.items():
        assert rule_allows(req(verb, group, resource), rule) is expected, (name, verb, group, resource)


def test_rule_matches_subresource_expansion():
    rule = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["resource1/subresource1"]}
    for verb in ("verb1", "verb2"):
        assert rule_allows(req(verb, "group1", "resource1", "subresource1"), rule)
        assert not rule_allows(req(verb, "group2", "resource1", "subresource2"), rule)
        assert not rule_allows(req(verb, "group1", "resource2", "subresource1"), rule)
        assert not rule_allows(req(verb, "group2", "resource2", "subresource1"), rule)


def test_rule_matches_non_resource_urls():
    star = {"verbs": ["verb1"], "nonResourceURLs": ["*"]}
    for p in ("/foo", "/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one"):
        assert rule_allows(url("verb1", p), star)
        assert not rule_allows(url("verb2", p), star)
    sub = {"verbs": ["verb1"], "nonResourceURLs": ["/foo/*"]}
    expected = {"/foo": False, "/foo/bar": True, "/foo/baz": True, "/foo/bar/one": True, "/foo/baz/one": True,
                "/notfoo": False, "/notfoo/bar": False, "/notfoo/baz": False, "/notfoo/bar/one": False,
                "/notfoo/baz/one": False}
    for p, e in expected.items():
        assert rule_allows(url("verb1", p), sub) is e, p
    exact = {"verbs": ["*"], "nonResourceURLs": ["/foo", "/foo/bar/one"]}
    for verb in ("verb1", "verb2"):
        assert [rule_allows(url(verb, p), exact) for p in ("/foo", "/foo/bar", "/foo/baz", "/foo/bar/one",
                                                            "/foo/baz/one")] == [True, False, False, True, False]


def test_star_subresource_and_resource_names():
    scale = {"verbs": ["get"], "apiGroups": ["*"], "resources": ["*/scale"]}
    assert rule_allows(req("get", "apps", "deployments", "scale"), scale)
    assert not rule_allows(req("get", "apps", "deployments", "status"), scale)
    assert not rule_allows(req("get", "apps", "deployments"), scale)
    named = {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["a"]}
    assert rule_allows(req("get", "", "configmaps", name="a"), named)
    assert not rule_allows(req("get", "", "configmaps", name="b"), named)
    assert not rule_allows(req("list", "", "configmaps"), named)  # a collection has no name


# ------------------------------------------------------------------ TestAuthorizer

def test_authorizer_role_binding_to_cluster_role():
    reader = StaticRoles(cluster_roles=[cluster_role("admin", new_rule("*", "*", "*", "*"))],
                         role_bindings=[role_binding("ns1", "admin", "ClusterRole", "User:admin", "Group:admins")])
    a = pure_rbac(reader)
    for ok in [("admin", "", "get", "Pods", "", "ns1", ""), ("admin", "", "watch", "Pods", "", "ns1", ""),
               ("admin", "group1", "watch", "Foobar", "", "ns1", ""),
               ("joe", "admins", "watch", "Foobar", "", "ns1", ""),
               ("joe", "group1,admins", "watch", "Foobar", "", "ns1", "")]:
        assert a.authorize(attrs(*ok))[0] == ALLOW, ok
    for bad in [("admin", "", "GET", "Pods", "", "ns2", ""), ("admin", "", "GET", "Nodes", "", "", ""),
                ("admin", "admins", "GET", "Pods", "", "ns2", ""), ("admin", "admins", "GET", "Nodes", "", "", "")]:
        assert a.authorize(attrs(*bad)) == (NO_OPINION, ""), bad


def test_authorizer_non_resource_urls():
    reader = StaticRoles(
        cluster_roles=[cluster_role("non-resource-url-getter", {"verbs": ["get"], "nonResourceURLs": ["/apis"]}),
                       cluster_role("non-resource-url", {"verbs": ["*"], "nonResourceURLs": ["/apis"]}),
                       cluster_role("non-resource-url-prefix", {"verbs": ["get"], "nonResourceURLs": ["/apis/*"]})],
        cluster_role_bindings=[cluster_role_binding("non-resource-url-getter", "User:foo", "Group:bar"),
                               cluster_role_binding("non-resource-url", "User:admin", "Group:admin"),
                               cluster_role_binding("non-resource-url-prefix", "User:prefixed", "Group:prefixed")])
    a = pure_rbac(reader)

    def nr(name, groups, verb, path):
        return NonResourceAttributes(UserInfo(name, groups=groups), verb, path)

    should_pass = [nr("foo", (), "get", "/apis"), nr("", ("bar",), "get", "/apis"), nr("admin", (), "get", "/apis"),
                   nr("", ("admin",), "get", "/apis"), nr("admin", (), "watch", "/apis"),
                   nr("", ("admin",), "watch", "/apis"), nr("prefixed", (), "get", "/apis/v1"),
                   nr("", ("prefixed",), "get", "/apis/v1"), nr("prefixed", (), "get", "/apis/v1/foobar"),
                   nr("", ("prefixed",), "get", "/apis/v1/foorbar")]
    should_fail = [nr("foo", (), "watch", "/apis"), nr("", ("bar",), "watch", "/apis"),
                   nr("foo", (), "get", "/api/v1"), nr("", ("bar",), "get", "/api/v1"),
                   nr("admin", (), "get", "/api/v1"), nr("", ("admin",), "get", "/api/v1"),
                   nr("prefixed", (), "get", "/api/v1"), nr("", ("prefixed",), "get", "/api/v1")]
    assert all(a.can_i(x) for x in should_pass)
    assert not any(a.can_i(x) for x in should_fail)


@pytest.mark.parametrize("resource,allowed,denied", [("pods", "", "status"), ("pods/status", "status", "")])
def test_authorizer_subresource_resolution(resource, allowed, denied):
    reader = StaticRoles(cluster_roles=[cluster_role("admin", new_rule("*", "*", resource, "*"))],
                         role_bindings=[role_binding("ns1", "admin", "ClusterRole", "User:admin", "Group:admins")])
    a = pure_rbac(reader)
    assert a.can_i(attrs("admin", "", "get", "pods", allowed, "ns1", ""))
    assert not a.can_i(attrs("admin", "", "get", "pods", denied, "ns1", ""))


# ------------------------------------------------------------------ rule_test.go

RULE_READ_PODS = {"verbs": ["GET", "WATCH"], "apiGroups": ["v1"], "resources": ["pods"]}
RULE_READ_SERVICES = {"verbs": ["GET", "WATCH"], "apiGroups": ["v1"], "resources": ["services"]}
RULE_WRITE_NODES = {"verbs": ["PUT", "CREATE", "UPDATE"], "apiGroups": ["v1"], "resources": ["nodes"]}
RULE_ADMIN = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}


@pytest.mark.parametrize("user,namespace,effective", [
    (UserInfo("foobar"), "namespace1", [RULE_READ_PODS, RULE_READ_SERVICES]),
    (UserInfo("foobar"), "namespace2", []),
    (UserInfo("foobar", groups=("admin",)), "", [RULE_ADMIN]),  # no namespace: only cluster rules apply
    (UserInfo(""), "", []),
])
def test_default_rule_resolver(user, namespace, effective):
    reader = StaticRoles(
        roles=[role("readthings", "namespace1", RULE_READ_PODS, RULE_READ_SERVICES)],
        cluster_roles=[cluster_role("cluster-admin", RULE_ADMIN), cluster_role("write-nodes", RULE_WRITE_NODES)],
        role_bindings=[role_binding("namespace1", "readthings", "Role", "User:foobar", "Group:group1")],
        cluster_role_bindings=[cluster_role_binding("cluster-admin", "User:admin", "Group:admin")])
    rules, errors = pure_rbac(reader).rules_for(user, namespace)
    assert rules == effective and errors == []


SA_DEFAULT = {"kind": "ServiceAccount", "namespace": "kube-system", "name": "default"}


@pytest.mark.parametrize("subjects,user,namespace,expected", [
    ([{"kind": "User", "name": "foobar"}], UserInfo("foobar"), "", True),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "User", "name": "foobar"}], UserInfo("foobar"), "", True),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "User", "name": "foobar"}], UserInfo("zimzam"), "", False),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"}],
     UserInfo("zimzam", groups=("foobar",)), "", True),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"}],
     UserInfo("zimzam", groups=("foobar",)), "namespace1", True),
    ([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"}, SA_DEFAULT],
     UserInfo("system:serviceaccount:kube-system:default"), "default", True),
    ([{"kind": "User", "name": "*"}], UserInfo("foobar"), "default", False),
    ([{"kind": "Group", "name": "system:authenticated"}, {"kind": "Group", "name": "system:unauthenticated"}],
     UserInfo("foobar", groups=("system:authenticated",)), "default", True),
    ([{"kind": "Group", "name": "system:authenticated"}, {"kind": "Group", "name": "system:unauthenticated"}],
     UserInfo("system:anonymous", groups=("system:unauthenticated",)), "default", True),
])
def test_applies_to(subjects, user, namespace, expected):
    assert applies_to(user, subjects, namespace)[1] is expected


def test_applies_to_service_account_without_namespace_uses_binding_namespace():
    sa = {"kind": "ServiceAccount", "name": "builder"}
    assert applies_to(UserInfo("system:serviceaccount:ci:builder"), [sa], "ci") == (0, True)
    assert applies_to(UserInfo("system:serviceaccount:ci:builder"), [sa], "prod")[1] is False
    assert applies_to(UserInfo("system:serviceaccount:ci:builder"), [sa], "")[1] is False  # a ClusterRoleBinding


# ------------------------------------------------------------------ reasons

def test_allowed_reason_names_binding_role_and_first_matching_subject():
    reader = StaticRoles(
        cluster_roles=[cluster_role("pod-reader", {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]})],
        cluster_role_bindings=[cluster_role_binding("pod-reader", "User:someone", "Group:readers", "User:jane",
                                                    name="readers")],
        role_bindings=[role_binding("dev", "pod-reader", "ClusterRole", "ServiceAccount:ci", name="ci-reads")])
    a = pure_rbac(reader)
    get = attrs("jane", "readers", "get", "pods", "", "dev", "")
    assert a.authorize(get) == (ALLOW, 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole '
                                       '"pod-reader" to Group "readers"')
    sa = Attributes(UserInfo("system:serviceaccount:dev:ci"), "get", resource_for("pods"), "", "dev", "web")
    assert a.authorize(sa) == (ALLOW, 'RBAC: allowed by RoleBinding "ci-reads/dev" of ClusterRole "pod-reader" '
                                      'to ServiceAccount "ci/dev"')


def test_reason_names_the_first_subject_of_the_binding_that_applies():
    reader = StaticRoles(
        cluster_roles=[cluster_role("pod-reader", {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]})],
        cluster_role_bindings=[cluster_role_binding("pod-reader", "User:jane", "Group:readers", name="b")])
    assert pure_rbac(reader).authorize(attrs("jane", "readers", "get", "pods", "", "", ""))[1] == (
        'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "pod-reader" to User "jane"')


def test_missing_roles_are_reported_in_the_reason():
    reader = StaticRoles(
        cluster_role_bindings=[cluster_role_binding("gone", "User:jane", name="a")],
        role_bindings=[role_binding("dev", "also-gone", "Role", "User:jane", name="b"),
                       role_binding("dev", "x", "Secret", "User:jane", name="c"),
                       role_binding("dev", "gone", "ClusterRole", "User:someone-else", name="d")])
    decision, reason = pure_rbac(reader).authorize(attrs("jane", "", "get", "pods", "", "dev", ""))
    assert decision == NO_OPINION
    assert reason == ('RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, '
                      'role.rbac.authorization.k8s.io "also-gone" not found, '
                      'unsupported role reference kind: "Secret"]')
    # the binding of another user is not resolved, so it adds no error
    one = StaticRoles(cluster_role_bindings=[cluster_role_binding("gone", "User:jane")])
    assert pure_rbac(one).authorize(attrs("jane", "", "get", "pods", "", "", "")) == (
        NO_OPINION, 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found')


def test_role_binding_grants_cluster_role_only_in_its_namespace():
    reader = StaticRoles(cluster_roles=[cluster_role("secret-reader", {"verbs": ["get"], "apiGroups": [""],
                                                                       "resources": ["secrets"]})],
                         role_bindings=[role_binding("dev", "secret-reader", "ClusterRole", "User:dave")])
    a = pure_rbac(reader)
    assert a.can_i(attrs("dave", "", "get", "secrets", "", "dev", ""))
    assert not a.can_i(attrs("dave", "", "get", "secrets", "", "prod", ""))
    assert not a.can_i(attrs("dave", "", "get", "secrets", "", "", ""))  # across all namespaces


def test_role_binding_cannot_reference_role_of_another_namespace():
    reader = StaticRoles(roles=[role("r", "other", {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})],
                         role_bindings=[role_binding("dev", "r", "Role", "User:dave")])
    assert pure_rbac(reader).authorize(attrs("dave", "", "get", "pods", "", "dev", "")) == (
        NO_OPINION, 'RBAC: role.rbac.authorization.k8s.io "r" not found')


# ------------------------------------------------------------------ aggregation

def test_aggregation_collects_rules_of_matching_roles_sorted_by_name_without_duplicates():
    get_pods = {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}
    list_cms = {"verbs": ["list"], "apiGroups": [""], "resources": ["configmaps"]}
    agg = {"metadata": {"name": "monitoring"},
           "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"monitoring": "true"}}]},
           "rules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]}  # overwritten by the controller
    z = cluster_role("z", list_cms, get_pods, labels={"monitoring": "true"})
    a = cluster_role("a", get_pods, labels={"monitoring": "true"})
    other = cluster_role("other", {"verbs": ["delete"]}, labels={"monitoring": "false"})
    assert aggregated_rules(agg, [z, other, agg, a]) == [get_pods, list_cms]


def test_aggregation_is_transitive_even_before_the_controller_filled_the_middle_role():
    leaf = cluster_role("leaf", {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]},
                        labels={"to-middle": "true"})
    middle = {"kind": "ClusterRole", "metadata": {"name": "middle", "labels": {"to-top": "true"}}, "rules": [],
              "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"to-middle": "true"}}]}}
    top = {"kind": "ClusterRole", "metadata": {"name": "top"}, "rules": None,
           "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"to-top": "true"}}]}}
    a = pure_rbac(StaticRoles(cluster_roles=[leaf, middle, top],
                              cluster_role_bindings=[cluster_role_binding("top", "User:u")]))
    assert a.can_i(attrs("u", "", "get", "pods", "", "ns", ""))
    assert not a.can_i(attrs("u", "", "list", "pods", "", "ns", ""))


def test_aggregated_role_follows_new_aggregate_to_view_roles_through_the_server():
    api = APIServer(seed=0)
    api.authorizer = RBACAuthorizer(api)
    admin = api.client("kubectl")
    for r in bp.bootstrap_cluster_roles(POLICIES):
        admin.create("clusterroles", r)
    admin.create("rolebindings", role_binding("default", "view", "ClusterRole", "User:jane"))
    jane = api.client("jane", UserInfo("jane", groups=("system:authenticated",)))
    jane.list("pods", "default")
    with pytest.raises(ApiError) as e:
        jane.list("storageclasses")
    assert e.value.code == 403
    admin.create("clusterroles", cluster_role("view-storage", {"verbs": ["get", "list", "watch"],
                                                               "apiGroups": ["storage.k8s.io"],
                                                               "resources": ["storageclasses"]},
                                              labels={bp.AGGREGATE_TO_VIEW: "true"}))
    with pytest.raises(ApiError):  # a RoleBinding grants nothing cluster-scoped
        jane.list("storageclasses")
    admin.create("clusterrolebindings", cluster_role_binding("view", "User:jane", name="jane-view"))
    assert jane.list("storageclasses")["items"] == []  # the server's decision cache was invalidated


# ------------------------------------------------------------------ through the API server

@pytest.fixture
def api():
    api = APIServer(seed=0)
    api.authorizer = RBACAuthorizer(api)
    admin = api.client("kubectl")  # kubernetes-admin in system:masters: allowed before any binding exists
    for r in bp.bootstrap_cluster_roles(POLICIES):
        admin.create("clusterroles", r)
    for b in bp.bootstrap_cluster_role_bindings(POLICIES):
        admin.create("clusterrolebindings", b)
    return api


VIEWER = UserInfo("system:serviceaccount:default:viewer",
                  groups=("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"))
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
       "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}


def test_forbidden_message_and_nothing_stored(api):
    before = api.store.revision
    with pytest.raises(ApiError) as e:
        api.client("x", VIEWER).create("pods", POD, "default")
    assert e.value.code == 403 and e.value.reason == "Forbidden"
    assert str(e.value) == ('pods is forbidden: User "system:serviceaccount:default:viewer" cannot create '
                            'resource "pods" in API group "" in the namespace "default"')
    assert api.store.revision == before


def test_view_role_binding_allows_list_but_not_create(api):
    admin = api.client("kubectl")
    admin.create("rolebindings", {"metadata": {"name": "viewer-view", "namespace": "default"},
                                  "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "view"},
                                  "subjects": [{"kind": "ServiceAccount", "name": "viewer", "namespace": "default"}]})
    viewer = api.client("x", VIEWER)
    assert viewer.list("pods", "default")["items"] == []
    with pytest.raises(ApiError) as e:
        viewer.create("pods", POD, "default")
    assert e.value.code == 403
    with pytest.raises(ApiError) as e:
        viewer.list("pods", "kube-system")
    assert str(e.value).endswith('cannot list resource "pods" in API group "" in the namespace "kube-system"')
    with pytest.raises(ApiError) as e:
        viewer.get("secrets", "token", "default")  # view does not read secrets
    assert str(e.value) == ('secrets "token" is forbidden: User "system:serviceaccount:default:viewer" cannot '
                            'get resource "secrets" in API group "" in the namespace "default"')


def test_forbidden_message_carries_rbac_resolution_errors(api):
    api.client("kubectl").create("rolebindings", role_binding("default", "nope", "ClusterRole",
                                                              "User:system:serviceaccount:default:viewer"))
    with pytest.raises(ApiError) as e:
        api.client("x", VIEWER).list("pods", "default")
    assert str(e.value) == ('pods is forbidden: User "system:serviceaccount:default:viewer" cannot list resource '
                            '"pods" in API group "" in the namespace "default": '
                            'RBAC: clusterrole.rbac.authorization.k8s.io "nope" not found')


def test_system_masters_allowed_by_privileged_group_and_by_cluster_admin_binding(api):
    masters = UserInfo("kubernetes-admin", groups=("system:masters", "system:authenticated"))
    a = resource_attributes(masters, "delete", "nodes", name="n1")
    assert api.authorizer.authorize(a) == (ALLOW, "")
    assert RBACAuthorizer(api, privileged_groups=()).authorize(a) == (
        ALLOW, 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" '
               'to Group "system:masters"')
    assert RBACAuthorizer(APIServer(seed=0), privileged_groups=()).authorize(a) == (NO_OPINION, "")


def test_cluster_scope_wording(api):
    with pytest.raises(ApiError) as e:
        api.client("x", VIEWER).list("nodes")
    assert str(e.value) == ('nodes is forbidden: User "system:serviceaccount:default:viewer" cannot list '
                            'resource "nodes" in API group "" at the cluster scope')


# ------------------------------------------------------------------ what the bootstrap policy lets components do

def _can(api, user, verb, resource, namespace="", name="", subresource=""):
    return api.authorizer.can_i(resource_attributes(user, verb, resource, namespace, name, subresource))


SCHEDULER = UserInfo("system:kube-scheduler", groups=("system:authenticated",))
KCM = UserInfo("system:kube-controller-manager", groups=("system:authenticated",))


def _controller(sa):
    return UserInfo(f"system:serviceaccount:kube-system:{sa}",
                    groups=("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"))


def test_scheduler_permissions(api):
    for verb, resource, sub in [("create", "pods", "binding"), ("update", "pods", "status"),
                                ("patch", "pods", "status"), ("create", "events", ""), ("list", "pods", ""),
                                ("watch", "pods", ""), ("get", "nodes", ""), ("watch", "nodes", ""),
                                ("delete", "pods", ""), ("list", "poddisruptionbudgets", ""),
                                ("list", "storageclasses", "")]:  # storageclasses via system:volume-scheduler
        assert _can(api, SCHEDULER, verb, resource, "default", "web", sub), (verb, resource, sub)
    assert not _can(api, SCHEDULER, "update", "pods", "default", "web")
    assert not _can(api, SCHEDULER, "create", "deployments", "default")
    assert api.authorizer.authorize(resource_attributes(SCHEDULER, "create", "pods/binding", "default", "web")) == (
        ALLOW, 'RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" '
               'to User "system:kube-scheduler"')


def test_controller_manager_informers_list_and_watch_everything(api):
    for resource in ("pods", "nodes", "deployments", "replicasets", "jobs", "leases", "endpointslices",
                     "resourcequotas", "horizontalpodautoscalers", "poddisruptionbudgets", "secrets"):
        assert _can(api, KCM, "list", resource) and _can(api, KCM, "watch", resource), resource
    assert not _can(api, KCM, "delete", "pods", "default", "web")
    assert _can(api, KCM, "create", "secrets", "default") and _can(api, KCM, "update", "serviceaccounts", "default")


def test_every_controller_service_account_is_bound_and_records_events(api):
    from kubenotes.controllers import CONTROLLERS

    assert set(CONTROLLER_SERVICE_ACCOUNTS) == set(CONTROLLERS)
    for controller, sa in CONTROLLER_SERVICE_ACCOUNTS.items():
        user = KCM if sa is None else _controller(sa)
        # upstream gives the namespace controller and the pod garbage collector no events rule
        expected = sa not in ("namespace-controller", "pod-garbage-collector")
        assert _can(api, user, "create", "events", "default") is expected, controller
        assert _can(api, user, "patch", "events", "default", "x") is expected, controller


@pytest.mark.parametrize("sa,verb,resource,sub,allowed", [
    ("replicaset-controller", "create", "pods", "", True),
    ("replicaset-controller", "update", "replicasets", "status", True),
    ("replicaset-controller", "update", "pods", "", False),
    ("replication-controller", "update", "replicationcontrollers", "status", True),
    ("deployment-controller", "create", "replicasets", "", True),
    ("deployment-controller", "update", "deployments", "status", True),
    ("deployment-controller", "create", "pods", "", False),
    ("daemon-set-controller", "create", "pods", "binding", True),
    ("daemon-set-controller", "create", "controllerrevisions", "", True),
    ("statefulset-controller", "create", "persistentvolumeclaims", "", True),
    ("job-controller", "update", "jobs", "status", True),
    ("cronjob-controller", "create", "jobs", "", True),
    ("node-controller", "delete", "pods", "", True),
    ("node-controller", "patch", "nodes", "", True),
    ("node-controller", "update", "nodes", "status", True),
    ("node-controller", "create", "pods", "eviction", False),
    ("endpoint-controller", "update", "endpoints", "", True),
    ("endpointslice-controller", "create", "endpointslices", "", True),
    ("generic-garbage-collector", "delete", "configmaps", "", True),
    ("generic-garbage-collector", "create", "configmaps", "", False),
    ("resourcequota-controller", "update", "resourcequotas", "status", True),
    ("resourcequota-controller", "get", "pods", "", False),
    ("disruption-controller", "update", "poddisruptionbudgets", "status", True),
    ("disruption-controller", "get", "deployments", "scale", True),
    ("horizontal-pod-autoscaler", "update", "deployments", "scale", True),
    ("horizontal-pod-autoscaler", "update", "horizontalpodautoscalers", "status", True),
    ("horizontal-pod-autoscaler", "update", "deployments", "", False),
    ("namespace-controller", "deletecollection", "pods", "", True),
    ("namespace-controller", "update", "namespaces", "finalize", True),
    ("service-account-controller", "create", "serviceaccounts", "", True),
    ("service-account-controller", "delete", "serviceaccounts", "", False),
])
def test_controller_role_rules(api, sa, verb, resource, sub, allowed):
    assert _can(api, _controller(sa), verb, resource, "default", "x", sub) is allowed


def test_discovery_and_basic_user_for_every_authenticated_user(api):
    someone = UserInfo("someone", groups=("system:authenticated",))
    assert api.authorizer.can_i(NonResourceAttributes(someone, "get", "/apis/apps/v1"))
    assert api.authorizer.can_i(resource_attributes(someone, "create", "selfsubjectaccessreviews"))
    anonymous = UserInfo("system:anonymous", groups=("system:unauthenticated",))
    assert api.authorizer.can_i(NonResourceAttributes(anonymous, "get", "/version"))
    assert not api.authorizer.can_i(NonResourceAttributes(anonymous, "get", "/apis"))


def test_admin_edit_view_aggregate_each_other():
    user = UserInfo("u")
    for name, can_rbac, can_write in [("admin", True, True), ("edit", False, True), ("view", False, False)]:
        a = RBACAuthorizer(StaticRoles(cluster_roles=bp.bootstrap_cluster_roles(POLICIES),
                                       role_bindings=[role_binding("ns", name, "ClusterRole", "User:u")]))
        assert a.can_i(resource_attributes(user, "list", "deployments", "ns")), name
        assert a.can_i(resource_attributes(user, "create", "rolebindings", "ns")) is can_rbac, name
        assert a.can_i(resource_attributes(user, "create", "pods", "ns")) is can_write, name
        assert a.can_i(resource_attributes(user, "update", "deployments/scale", "ns", "web")) is can_write, name
        assert not a.can_i(resource_attributes(user, "list", "nodes")), name


def test_bootstrap_objects_carry_upstream_labels_and_annotations():
    objs = bp.bootstrap_cluster_roles(POLICIES) + bp.bootstrap_cluster_role_bindings(POLICIES)
    names = [o["metadata"]["name"] for o in objs if o["kind"] == "ClusterRole"]
    assert len(names) == len(set(names))
    for o in objs:
        assert o["apiVersion"] == "rbac.authorization.k8s.io/v1"
        assert o["metadata"]["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults"
        assert o["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] == "true"
    roles = {r["metadata"]["name"] for r in bp.bootstrap_cluster_roles(POLICIES)}
    for b in bp.bootstrap_cluster_role_bindings(POLICIES):
        assert b["roleRef"]["name"] in roles
    for sa in set(filter(None, CONTROLLER_SERVICE_ACCOUNTS.values())):
        assert f"system:controller:{sa}" in roles


def test_controller_reason_names_its_service_account(api):
    a = resource_attributes(_controller("node-controller"), "delete", "pods", "default", "web")
    assert api.authorizer.authorize(a) == (
        ALLOW, 'RBAC: allowed by ClusterRoleBinding "system:controller:node-controller" of ClusterRole '
               '"system:controller:node-controller" to ServiceAccount "node-controller/kube-system"')
    # upstream has no role for these service accounts: taint eviction and the tokens controller use others
    for wrong in ("taint-eviction-controller", "tokens-controller"):
        assert not _can(api, _controller(wrong), "delete", "pods", "default", "web")


def test_self_subject_access_review_answers_kubectl_auth_can_i_without_storing_it():
    from kubenotes.sim.cluster import Cluster

    c = Cluster(seed=0, controllers=[], scheduler=False)
    viewer = UserInfo("system:serviceaccount:default:viewer",
                      groups=("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"))
    c.client.create("rolebindings", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                                     "metadata": {"name": "viewer-view", "namespace": "default"},
                                     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                                 "name": "view"},
                                     "subjects": [{"kind": "ServiceAccount", "name": "viewer",
                                                   "namespace": "default"}]}, "default")
    client = c.server.client("kubectl", viewer)

    def can_i(verb, resource):
        review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                  "spec": {"resourceAttributes": {"namespace": "default", "verb": verb, "resource": resource}}}
        return client.create("selfsubjectaccessreviews", review)["status"]

    assert can_i("list", "pods")["allowed"] is True
    assert can_i("list", "pods")["reason"] == ('RBAC: allowed by RoleBinding "viewer-view/default" of ClusterRole '
                                               '"view" to ServiceAccount "viewer/default"')
    assert can_i("create", "pods") == {"allowed": False}
    who = client.create("selfsubjectreviews", {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert who["status"]["userInfo"]["username"] == viewer.name
    from kubenotes.apiserver.resources import resource_for

    assert c.server.store.count(resource_for("selfsubjectaccessreviews")) == 0


# ------------------------------------------------------------------ SelfSubjectRulesReview (kubectl auth can-i --list)


def test_rules_review_lists_the_rules_that_apply_in_the_namespace(api):
    admin = api.client("kubectl")
    admin.create("rolebindings", {"metadata": {"name": "viewer-view", "namespace": "default"},
                                  "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "view"},
                                  "subjects": [{"kind": "ServiceAccount", "name": "viewer",
                                                "namespace": "default"}]}, "default")
    st = subject_rules_review_status(api.authorizer, VIEWER, "default")
    assert st["incomplete"] is False and "evaluationError" not in st
    # system:basic-user (every authenticated user): the self reviews
    assert {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
            "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]} in st["resourceRules"]
    # system:discovery / system:public-info-viewer: non-resource URLs only
    assert any("/version" in r["nonResourceURLs"] and r["verbs"] == ["get"] for r in st["nonResourceRules"])
    # view (aggregated) through the RoleBinding: pods may be listed here, not in another namespace
    listed = [r for r in st["resourceRules"] if "pods" in r["resources"] and "list" in r["verbs"]]
    assert listed and all(r["apiGroups"] == [""] for r in listed)
    other = subject_rules_review_status(api.authorizer, VIEWER, "kube-system")
    assert not any("pods" in r["resources"] for r in other["resourceRules"])


def test_rules_review_keeps_resource_names_and_reports_missing_roles(api):
    admin = api.client("kubectl")
    admin.create("roles", {"metadata": {"name": "one-cm", "namespace": "dev"},
                           "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"],
                                      "resourceNames": ["settings"]}]}, "dev")
    for name, kind, role in (("b1", "Role", "one-cm"), ("b2", "ClusterRole", "nope")):
        admin.create("rolebindings", {"metadata": {"name": name, "namespace": "dev"},
                                      "roleRef": {"apiGroup": RBAC, "kind": kind, "name": role},
                                      "subjects": [{"kind": "User", "name": "jane", "apiGroup": RBAC}]}, "dev")
    st = subject_rules_review_status(api.authorizer, UserInfo("jane"), "dev")
    assert st["resourceRules"] == [{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"],
                                    "resourceNames": ["settings"]}]
    assert st["evaluationError"] == f'clusterrole.{RBAC} "nope" not found'
